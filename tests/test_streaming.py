"""Builds stream: a build's peak memory does not grow with the number of items."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest


def _peak_rss(out: Path, count: int, **audit: int) -> int:
    """Peak resident memory in bytes of one ``gen build --no-images`` process, with the
    constants of :mod:`hopvista.audit.recorded` named in ``audit`` set first. Without the
    proxy defences, which cost time per item but hold nothing per item (their lines are one
    per pair of the world's columns), so the slow tier stays quick."""
    setup = "".join(f"build_audit.{name} = {value}; " for name, value in audit.items())
    program = ("import sys; import hopvista.audit.recorded as build_audit; " + setup
               + "from hopvista.cli.main import main; sys.exit(main(sys.argv[1:]))")
    proc = subprocess.Popen([sys.executable, "-c", program, "build", "financial",
                             "-n", str(count), "--no-images", "--no-defences", "--out", str(out)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, proc.stderr.read() if proc.stderr else ""
    return usage.ru_maxrss * 1024


@pytest.mark.slow
def test_memory_is_flat_in_the_item_count(tmp_path: Path) -> None:
    """The item stream holds nothing per item, and past ``AUDIT_MAX_ITEMS`` the build's audit
    reads a sample of that size, so neither grows with the build: with the sample cut to 100
    items, builds of 150 and 800 items peak alike (the 800 items are ~9 MB of JSON and
    Parquet; their dicts, held whole, would add ~25 MB)."""
    small = _peak_rss(tmp_path / "small", 150, AUDIT_MAX_ITEMS=100)
    large = _peak_rss(tmp_path / "large", 800, AUDIT_MAX_ITEMS=100)
    assert large < small * 1.05, (small, large)
    assert sum(1 for _ in (tmp_path / "large" / "items.jsonl").open()) == 800
    manifest = json.loads((tmp_path / "large" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["audit"]["sampled"] is True


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="workers are forked on Linux only")
def test_forked_workers_share_the_parents_objects_frozen_and_the_parent_gets_them_back(
        ) -> None:
    """While forked workers run, the parent's objects are frozen (a collection would write
    to every one and copy each page the workers share); after, they are unfrozen, so a
    program that builds through the API goes on collecting them."""
    import gc

    from hopvista.building.config import BuildConfig
    from hopvista.building.workers import generate_items

    config = BuildConfig(domain="financial", count=8, images=False, defences=False)
    frozen = [gc.get_freeze_count() for _ in generate_items(config, workers=2)]
    assert len(frozen) == 8 and min(frozen) > 0
    assert gc.get_freeze_count() == 0


def test_an_error_before_the_items_are_written_stops_their_generator(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first item is asked for before Parquet is set up; when that setup fails, the
    generator (whose clean-up stops the worker pool) is closed at once, not left running
    until the traceback is freed."""
    import hopvista.building.dataset_writer
    from hopvista.building.dataset_writer import DatasetKind, _write_items

    stopped = []

    class Items(DatasetKind):
        total = 2

        def items(self, stage: Path, kept: int):  # type: ignore[no-untyped-def]
            try:
                yield "item"
                yield "item"
            finally:
                stopped.append(True)

    def broken(*args: object, **kwargs: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(hopvista.building.dataset_writer, "ParquetShards", broken)
    (tmp_path / "stage").mkdir()
    with pytest.raises(OSError, match="disk full") as caught:
        _write_items(tmp_path / "stage", [], Items(), None)
    assert stopped == [True]  # while the traceback (and the frame holding it) still lives
    assert caught.tb is not None


def test_a_row_group_closes_once_its_images_reach_the_bound(hard48: Path) -> None:
    """The Parquet writer holds a few copies of the row group it writes: a group of images
    is bounded in bytes (GROUP_BYTES), not only in rows, and every item is still there."""
    import json

    import pyarrow.parquet as pq

    from hopvista.output.parquet import GROUP_BYTES, GROUP_ROWS

    (shard,) = sorted((hard48 / "data").glob("*.parquet"))
    parquet = pq.ParquetFile(shard)
    groups = [[sum(len(image["bytes"]) for image in row)
               for row in parquet.read_row_group(k, columns=["images"]).column("images")
               .to_pylist()] for k in range(parquet.num_row_groups)]
    assert len(groups) > 1
    for rows in groups:  # no group goes on after its images reached the bound
        assert sum(rows[:-1]) < GROUP_BYTES and len(rows) <= GROUP_ROWS
    for rows in groups[:-1]:  # and each closes there (or full), not before
        assert sum(rows) >= GROUP_BYTES or len(rows) == GROUP_ROWS
    ids = [json.loads(line)["id"] for line in (hard48 / "items.jsonl").open()]
    assert pq.read_table(shard, columns=["id"]).column("id").to_pylist() == ids


@pytest.mark.parametrize(("count", "workers"), [(0, 2), (3, 2), (9, 2), (200, 2), (21, 3), (20, 1)])
def test_the_plan_is_batched_whole_in_order_with_a_tail_of_single_items(count: int,
                                                                         workers: int) -> None:
    from hopvista.building.workers import BATCH, _batches

    plan: list[Any] = list(range(count))
    batches = _batches(plan, workers)
    assert [entry for batch in batches for entry in batch] == plan
    single = min(count, workers * BATCH) if workers > 1 else 0
    assert all(len(b) == 1 for b in batches[len(batches) - single:])
    assert all(len(b) <= BATCH for b in batches)
    assert sum(len(b) == BATCH for b in batches) == (count - single) // BATCH
