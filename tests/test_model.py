"""The typed model: loading (lazily, and through the migration from format 2), item kinds and
their scoring, frozen objects, the published schema, and the committed golden datasets."""

from __future__ import annotations

import copy
import json
import shutil
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

import hopvista
from hopvista.cli.main import main
from hopvista.errors import UserError
from hopvista.model import FORMAT_VERSION, Image, Item, load, score
from hopvista.model.migrate import MigrationError, migrate_item, migrate_manifest
from hopvista.verify import verify_dataset

GOLDEN = Path(__file__).parent / "golden"
FORMAT2 = GOLDEN / "format2"
FORMAT3 = GOLDEN / "format3"
FORMAT4 = GOLDEN / "format4"
FORMAT5 = GOLDEN / "format5"
FORMAT6 = GOLDEN / "format6"
FIXTURES = Path(__file__).parent / "fixtures"


def _lines(root: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (root / "items.jsonl").read_text().splitlines()]


# -- the golden datasets -----------------------------------------------------------------------


def test_format2_golden_loads_through_the_migration() -> None:
    dataset = hopvista.load(FORMAT2)
    assert dataset.format_version == 2 and dataset.manifest.format_version == FORMAT_VERSION
    assert dataset.manifest.migrated_from == 2  # type: ignore[attr-defined]
    items = list(dataset)
    assert len(items) == len(dataset) == 6
    stored = _lines(FORMAT2)
    for item, old in zip(items, stored, strict=True):
        assert isinstance(item, Item)
        assert item.id == f"{old['id']}.base" and item.base_id == old["id"]
        assert item.variant.name == "base" and item.variant.recipe is None
        assert item.answer == old["answer"] and item.answer_type == "indices"
        assert [s.model_dump(mode="json", by_alias=True, exclude={"proxy"})
                for s in item.statements] == \
            old["statements"]
        assert item.images == ()


def test_format3_golden_loads_through_the_migration() -> None:
    dataset = hopvista.load(FORMAT3)
    assert dataset.format_version == 3 and dataset.manifest.format_version == FORMAT_VERSION
    assert dataset.manifest.migrated_from == 3  # type: ignore[attr-defined]
    assert dataset.manifest.config["defences"] is False
    stored = _lines(FORMAT3)
    for item, old in zip(dataset, stored, strict=True):
        assert item.id == old["id"] and item.answer == old["answer"]
        assert all(s.proxy is None for s in item.statements)


def test_format4_golden_loads_through_the_migration() -> None:
    dataset = hopvista.load(FORMAT4)
    assert dataset.format_version == 4 and dataset.manifest.format_version == FORMAT_VERSION
    assert dataset.manifest.migrated_from == 4  # type: ignore[attr-defined]
    stored = _lines(FORMAT4)
    for item, old in zip(dataset, stored, strict=True):
        assert item.model_dump(mode="json") == old


def test_format5_golden_loads_through_the_migration() -> None:
    dataset = hopvista.load(FORMAT5)
    assert dataset.format_version == 5 and dataset.manifest.format_version == FORMAT_VERSION
    assert dataset.manifest.migrated_from == 5  # type: ignore[attr-defined]
    for item, old in zip(dataset, _lines(FORMAT5), strict=True):
        assert item.model_dump(mode="json") == old


def test_every_golden_verifies(capsys: pytest.CaptureFixture[str]) -> None:
    for root in (FORMAT2, FORMAT3, FORMAT4, FORMAT5, FORMAT6):
        checked, problems = verify_dataset(root)
        assert (checked, problems) == (6, []), root
    assert main(["verify", str(FORMAT2)]) == 0
    assert "OK: 6 items verified" in capsys.readouterr().out


def test_current_golden_lines_are_the_model_dumped() -> None:
    """Each line is exactly ``json.dumps(item.model_dump(mode="json"))`` of its typed item, so
    loading and writing back changes no byte."""
    raw = (FORMAT6 / "items.jsonl").read_bytes().splitlines()
    for line, item in zip(raw, load(FORMAT6), strict=True):
        dumped = json.dumps(item.model_dump(mode="json"), ensure_ascii=False,
                            separators=(",", ":"))
        assert dumped.encode() == line


def test_the_published_schema_accepts_the_golden_items(capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    assert main(["schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema["title"] == "Item"
    for item in _lines(FORMAT6):
        jsonschema.validate(item, schema)
    broken = _lines(FORMAT6)[0]
    broken["images"] = ["images/x.png"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema)
    assert main(["schema", "--dataset"]) == 0
    manifest_schema = json.loads(capsys.readouterr().out)
    jsonschema.validate(json.loads((FORMAT6 / "manifest.json").read_text()), manifest_schema)


def test_golden_parquet_has_images_by_role() -> None:
    import pyarrow.parquet as pq

    table = pq.read_table(FORMAT6 / "data" / "test-00000-of-00001.parquet")
    assert {"images", "image_roles", "variant", "answer", "answer_type"} <= set(
        table.column_names)
    assert "table_image" not in table.column_names
    rows = table.to_pylist()
    assert [r["answer"] for r in rows] == [", ".join(map(str, i["answer"])) or "none"
                                           for i in _lines(FORMAT6)]


# -- migration ----------------------------------------------------------------------------------


def _old_item_with_images() -> tuple[dict[str, Any], dict[str, Any]]:
    item = json.loads((FIXTURES / "format2-item-with-images.json").read_text())
    manifest = {"format": "hopvista-dataset", "format_version": 2,
                "files": {path: f"{n:064x}" for n, path in enumerate(item["images"], 1)}}
    return item, manifest


def test_migration_turns_render_into_images_with_roles() -> None:
    item, manifest = _old_item_with_images()
    before = copy.deepcopy(item)
    migrated = migrate_item(item, manifest)
    assert item == before  # pure: the old item is not changed
    assert "render" not in migrated and migrated["id"].endswith(".base")
    table, chart = migrated["images"]
    assert (table["role"], chart["role"]) == ("table", "chart")
    assert table["path"] == item["render"]["table"]["image"]
    assert (table["width"], table["height"]) == (item["render"]["table"]["width"],
                                                 item["render"]["table"]["height"])
    assert table["render"]["cells"] == item["render"]["table"]["cells"]
    assert chart["render"]["kind"] == item["inputs"]["chart"]["kind"]
    assert chart["sha256"] == manifest["files"][chart["path"]]
    typed = Item.model_validate(migrated)
    assert typed.image("chart") == Image.model_validate(chart)
    assert migrate_manifest(manifest)["format_version"] == FORMAT_VERSION


def test_migration_needs_the_image_hash() -> None:
    item, manifest = _old_item_with_images()
    manifest["files"].pop(item["images"][0])
    with pytest.raises(MigrationError, match="not in the manifest's files"):
        migrate_item(item, manifest)


# -- lazy loading ------------------------------------------------------------------------------


def test_load_reads_one_item_without_reading_the_rest(tmp_path: Path) -> None:
    root = tmp_path / "ds"
    shutil.copytree(FORMAT6, root)
    lines = (root / "items.jsonl").read_bytes().splitlines(keepends=True)
    many = lines * 200  # 1,200 items, ~15 MB
    (root / "items.jsonl").write_bytes(b"".join(many) + b"{broken\n")
    dataset = load(root)
    assert len(dataset) == 6  # from the manifest, without reading items.jsonl
    tracemalloc.start()
    first = next(iter(dataset))
    last = dataset[1199]
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert first.id == last.id.replace("000005", "000000")
    assert peak < 2_000_000, peak  # the index is 8 bytes a line; no item list is built
    assert dataset.get("financial-s7-000003.base") == dataset[3]
    assert dataset.get("nope") is None  # only lines holding the id are parsed
    with pytest.raises(UserError, match=r"items.jsonl:1201"):
        dataset[1200]
    with pytest.raises(IndexError):
        dataset[1201]


NOT_DATASETS = {
    "no manifest": None,
    "old version": b'{"format": "hopvista-dataset", "format_version": 1}',
    "NaN": b'{"format": "hopvista-dataset", "format_version": NaN}',
    "duplicate key": b'{"format": "hopvista-dataset", "format": "hopvista-dataset"}',
    "not UTF-8": b'{"format": "\xff"}',
}


@pytest.mark.parametrize("case", sorted(NOT_DATASETS))
def test_load_verify_and_merge_refuse_a_manifest_with_the_same_line(
        case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "ds"
    folder.mkdir()
    if NOT_DATASETS[case] is not None:
        (folder / "manifest.json").write_bytes(NOT_DATASETS[case])
    with pytest.raises(UserError) as refused:
        load(folder)
    assert str(refused.value).startswith(str(folder)) and "\n" not in str(refused.value)
    assert main(["verify", str(folder)]) == 2
    assert capsys.readouterr().err == f"gen: error: {refused.value}\n"
    if case != "no manifest":  # a merge says a shard is missing in its own words
        assert main(["merge", str(folder), str(folder), "--out", str(tmp_path / "m")]) == 2
        assert capsys.readouterr().err == f"gen: error: {refused.value}\n"


def test_load_names_the_versions_it_reads(tmp_path: Path) -> None:
    (tmp_path / "manifest.json").write_text('{"format": "hopvista-dataset", "format_version": 1}')
    with pytest.raises(UserError, match=r"format_version '1' is not supported \(this hopvista "
                                        r"reads 2\.\."):
        load(tmp_path)


# -- frozen objects ----------------------------------------------------------------------------


def test_items_are_frozen_and_layers_return_new_objects() -> None:
    item = load(FORMAT3)[0]
    with pytest.raises(ValidationError):
        item.question = "changed"  # type: ignore[misc]
    image = Image(role="photo", path="images/x.photo.png", sha256="0" * 64, width=4, height=3)
    shown = item.with_images([image])
    assert shown.images == (image,) and item.images == ()
    assert shown.image("photo") is image and shown.image("table") is None


def test_an_id_must_carry_its_variant() -> None:
    data = _lines(FORMAT3)[0]
    data["id"] = data["base_id"]
    with pytest.raises(ValidationError, match="is not base_id.variant"):
        Item.model_validate(data)


def test_an_unknown_kind_is_read_not_rejected() -> None:
    data = _lines(FORMAT3)[0] | {"kind": "future_kind", "answer": {"x": 1},
                                 "answer_type": "whatever"}
    assert Item.model_validate(data).kind == "future_kind"


# -- item kinds --------------------------------------------------------------------------------


@pytest.mark.parametrize("prediction,correct", [
    ("none", None), ("1, 3", None), ("[1, 3]", None), ("Statements 1 and 3.", None),
    ("4", False), ("", False), ([1, 3], None),
])
def test_three_statement_scoring(prediction: Any, correct: bool | None) -> None:
    item = load(FORMAT3)[0]
    truth = ", ".join(map(str, item.answer)) or "none"  # type: ignore[arg-type]
    result = score(item, prediction)
    expected = correct if correct is not None else (
        prediction == truth or prediction == item.answer or
        (isinstance(prediction, str) and sorted(set(
            int(c) for c in prediction if c.isdigit())) == item.answer))
    assert result.correct == expected
    assert result.metrics["set_accuracy"] == float(expected)
    assert score(item, truth).correct


def _qa(answer: Any, answer_type: str) -> Item:
    return Item.model_validate({
        "id": "wtq-000001.base", "base_id": "wtq-000001", "domain": "wtq", "kind": "table_qa",
        "inputs": {"table": {"header": ["Year", "Wins"], "rows": [["2019", "12"]]}},
        "question": "How many wins?", "answer": answer, "answer_type": answer_type,
        "provenance": {"generator": "test", "source": "wtq"}})


@pytest.mark.parametrize("answer,answer_type,prediction,em", [
    ("12.5", "number", "12.50", True),
    ("12.5", "number", "$12.5", True),
    ("1234", "number", "1,234", True),
    ("0.125", "number", "0.13", True),  # both round half-up to 0.13
    ("12.5", "number", "12.6", False),
    ("The Beatles", "text", "beatles", True),
    ("New York", "text", "new york!", True),
    ("New York", "text", "York", False),
    (["Apple", "Google"], "list", '["google", "apple"]', True),
    (["Apple", "Google"], "list", "Apple, Google, IBM", False),
    ([3, 4.5], "list", "4.50, 3", True),
    (True, "boolean", "Yes", True),
    (False, "boolean", "true", False),
])
def test_table_qa_scoring(answer: Any, answer_type: str, prediction: str, em: bool) -> None:
    result = score(_qa(answer, answer_type), prediction)
    assert result.correct is em and result.metrics["em"] == float(em)
    assert 0.0 <= result.metrics["f1"] <= 1.0 and result.metrics["ss"] >= result.metrics["em"]


def test_table_qa_partial_credit() -> None:
    result = score(_qa("New York City", "text"), "York City")
    assert not result.correct and result.metrics["ss"] == 1.0
    assert result.metrics["f1"] == pytest.approx(0.8)


def test_table_qa_answer_must_fit_its_type() -> None:
    with pytest.raises(ValidationError, match="is not a number"):
        _qa("twelve", "number")
    with pytest.raises(ValidationError, match="answer_type 'date'"):
        _qa("2019", "date")
