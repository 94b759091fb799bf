"""The one dataset writer: a kind of dataset says how its items are made and what its manifest
and card add; staging, items.jsonl, Parquet, card, manifest, hashes and the swap come from
the writer, the same for builds, shards, merges, variants, markup tasks and any new kind."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import hopvista
from hopvista.building.dataset_writer import Counts, DatasetKind, write_dataset
from hopvista.errors import UserError
from hopvista.model import Item
from hopvista.verify.files import check_files
from hopvista.verify.parquet import shard_names
from tests.conftest import build_dataset


class FirstItems(DatasetKind):
    """A toy fourth kind: the first ``count`` items of an existing dataset, as a dataset of
    their own. It writes nothing itself: it gives items, manifest fields and a card."""

    name = "sample"

    def __init__(self, source: Path, count: int) -> None:
        self.source = hopvista.load(source)
        self.total = count
        self.hops: list[int] = []

    def items(self, stage: Path, kept: int) -> Iterator[Item]:
        for index in range(kept, self.total):
            yield self.source[index]

    def add(self, item: Item) -> None:
        self.hops.append(item.hops)

    def manifest(self, stage: Path, counts: Counts) -> dict[str, Any]:
        return {"config": {"count": self.total}, "seed": self.source.manifest.seed,
                "counts": {"items": counts.items, "images": counts.images},
                "hops": self.hops}

    def card(self, manifest: dict[str, Any]) -> str:
        return f"# The first {manifest['counts']['items']} items\n"


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("writer") / "small"
    build_dataset(out, "-n", "6", "--seed", "2", "--no-images")
    return out


def test_a_new_kind_writes_a_dataset_that_loads_and_passes_the_file_checks(
        small: Path, tmp_path: Path) -> None:
    out = tmp_path / "sample"
    manifest = write_dataset(out, FirstItems(small, 4), notice=print)
    dataset = hopvista.load(out)
    assert [item.id for item in dataset] == [item.id for item in hopvista.load(small)][:4]
    on_disk = json.loads((out / "manifest.json").read_text())
    assert on_disk == manifest
    assert list(manifest)[:3] == ["format", "format_version", "kind"]
    assert manifest["kind"] == "sample" and len(manifest["hops"]) == 4
    problems: list[str] = []
    check_files(out, on_disk, problems.append)
    assert shard_names(out, problems.append) == ["data/test-00000-of-00001.parquet"]
    assert problems == []
    assert (out / "README.md").read_text() == "# The first 4 items\n"
    import pyarrow.parquet as pq

    rows = pq.read_table(out / "data" / "test-00000-of-00001.parquet").to_pylist()
    lines = (out / "items.jsonl").read_text(encoding="utf-8").splitlines()
    assert [row["item_json"] for row in rows] == lines


def test_a_new_kind_gets_the_output_folders_guards(small: Path, tmp_path: Path) -> None:
    """A folder that is not a hopvista dataset is refused, and left as it was."""
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    with pytest.raises(UserError, match="--out") as refused:
        write_dataset(out, FirstItems(small, 2), notice=print)
    assert "\n" not in str(refused.value)
    assert [p.name for p in out.iterdir()] == ["notes.txt"]
    assert (out / "notes.txt").read_text() == "keep me"


def test_a_new_kind_replaces_its_earlier_dataset_only_with_overwrite(
        small: Path, tmp_path: Path) -> None:
    out = tmp_path / "sample"
    write_dataset(out, FirstItems(small, 2), notice=print)
    with pytest.raises(UserError, match="--overwrite"):
        write_dataset(out, FirstItems(small, 3), notice=print)
    assert len(hopvista.load(out)) == 2
    write_dataset(out, FirstItems(small, 3), overwrite=True, notice=print)
    assert len(hopvista.load(out)) == 3
