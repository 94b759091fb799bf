"""gen eval on multimodal tables: MMTabReal's five settings send what each promises (checked
against a scripted OpenAI-compatible server on 127.0.0.1), the oracle scores 100% in all of
them, results break down by MMTabReal's facets, and the harness exports read back."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from hopvista.cli.main import main
from hopvista.eval.prompts import SETTINGS, build_prompt, default_template
from hopvista.model import ITEM_KINDS, Item, load
from tests.scripted_server import Script, serve

MMTABREAL = ("missing-image", "entity-replaced", "image-captioning", "table-as-image",
             "interleaved")
TEXT_SETTINGS = ("missing-image", "entity-replaced", "image-captioning")
GOLDEN = Path(__file__).parent / "golden" / "format6"
"""A small dataset of three-statement items without images, read only."""


def _build(out: Path, *args: str) -> Path:
    assert main(["build", "mmtables", "-n", "8", "--seed", "1", "--out", str(out), *args]) == 0
    return out


@pytest.fixture(scope="module")
def mm_text(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Eight mmtable items, one per archetype, without images."""
    return _build(tmp_path_factory.mktemp("mm") / "text", "--no-images")


@pytest.fixture(scope="module")
def mm_images(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same eight items with their table and cell images."""
    return _build(tmp_path_factory.mktemp("mm") / "images")


def _reference(item: Item) -> str:
    return ITEM_KINDS.get(item.kind).reference(item)


def _results(run: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]


def _caption(kind: str) -> str:
    return f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}"


def _ask(dataset: Path, setting: str, run: Path, monkeypatch: pytest.MonkeyPatch
         ) -> list[tuple[Item, list[tuple[str, Any]]]]:
    """Run gen eval against a scripted server answering every item right; each item with
    what its request held: ``("text", str)`` and ``("image", png bytes)`` parts in order."""
    items = list(load(dataset))
    script = Script({item.question: [f"Answer: {_reference(item)}"] for item in items})
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with serve(script) as url:
        assert main(["eval", str(dataset), "--model", "openai:scripted", "--base-url", url,
                     "--setting", setting, "--out", str(run), "--quiet"]) == 0
    assert all(r["correct"] for r in _results(run))
    sent: dict[str, list[tuple[str, Any]]] = {}
    for body in script.bodies:
        content = body["messages"][-1]["content"]
        parts: list[tuple[str, Any]] = [("text", content)] if isinstance(content, str) else [
            ("text", c["text"]) if c["type"] == "text"
            else ("image", base64.b64decode(c["image_url"]["url"].split(",", 1)[1]))
            for c in content]
        question = next(i.question for i in items
                        if any(k == "text" and i.question in v for k, v in parts))
        sent[question] = parts
    return [(item, sent[item.question]) for item in items]


def _text(parts: list[tuple[str, Any]]) -> str:
    return "".join(v for k, v in parts if k == "text")


def test_the_oracle_scores_every_item_in_all_five_settings(
        mm_text: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for setting in MMTABREAL:
        run = tmp_path / setting
        assert main(["eval", str(mm_text), "--model", "oracle", "--setting", setting,
                     "--metric", "mmtabreal", "--out", str(run), "--quiet"]) == 0
        summary = json.loads((run / "summary.json").read_text())
        assert summary["accuracy"]["value"] == 1.0 and summary["answered"] == 8
        assert summary["metrics"]["mmtabreal_em"]["value"] == 1.0
    assert "100.0%" in capsys.readouterr().out


def test_results_break_down_by_mmtabreal_facets(mm_text: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    assert main(["eval", str(mm_text), "--model", "oracle", "--setting", "missing-image",
                 "--out", str(run), "--quiet"]) == 0
    items = list(load(mm_text))
    by = json.loads((run / "summary.json").read_text())["by"]
    assert sorted(by["archetype"]) == sorted({i.tags.archetype for i in items if i.tags})
    for facet in ("question_type", "reasoning", "answer_type"):
        counts = {g: e["n"] for g, e in by[facet].items()}
        assert sum(counts.values()) == 8
    kinds = {v.kind for i in items for v in i.inputs.visuals}
    assert set(by["visual_kind"]) == kinds
    for kind in kinds:  # an item counts under every kind of picture it holds
        assert by["visual_kind"][kind]["n"] == \
            sum(any(v.kind == kind for v in i.inputs.visuals) for i in items)
    report = tmp_path / "report.html"
    assert main(["report", str(run), "--out", str(report)]) == 0
    html = report.read_text()
    for facet in ("archetype", "question_type", "reasoning", "answer_type", "visual_kind"):
        assert f"data-facet='{facet}'" in html


def test_the_text_settings_send_no_image_and_fill_picture_cells_as_they_say(
        mm_text: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for setting in TEXT_SETTINGS:
        for item, parts in _ask(mm_text, setting, tmp_path / setting, monkeypatch):
            assert all(kind == "text" for kind, _ in parts)
            text = _text(parts)
            header = item.inputs.table.header  # type: ignore[union-attr]
            assert "| " + " | ".join(header) + " |" in text  # the table, as pipe-separated text
            described = [v.description in text for v in item.inputs.visuals]
            captioned = [f"| {_caption(v.kind)} |" in text for v in item.inputs.visuals]
            assert all(described) if setting == "entity-replaced" else not any(described)
            assert all(captioned) if setting == "image-captioning" else not any(captioned)


def test_a_setting_that_shows_images_refuses_a_build_without_them(
        mm_text: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for setting in ("table-as-image", "interleaved"):
        run = tmp_path / setting
        code = main(["eval", str(mm_text), "--model", "openai:m", "--base-url",
                     "http://127.0.0.1:9/v1", "--setting", setting, "--out", str(run),
                     "--quiet"])
        err = capsys.readouterr().err
        assert code == 2 and "--no-images" in err and "Traceback" not in err
        assert len(err.strip().splitlines()) == 1 and not run.exists()


def test_the_picture_settings_refuse_items_without_pictures(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["eval", str(GOLDEN), "--model", "openai:m", "--base-url",
                 "http://127.0.0.1:9/v1", "--setting", "missing-image", "--out",
                 str(tmp_path / "r"), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "'missing-image' applies to items of kind mmtable" in err


@pytest.mark.slow
def test_table_as_image_sends_the_table_and_interleaved_each_picture_in_order(
        mm_images: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for item, parts in _ask(mm_images, "table-as-image", tmp_path / "t", monkeypatch):
        images = [v for k, v in parts if k == "image"]
        assert images == [(mm_images / item.image("table").path).read_bytes()]  # type: ignore[union-attr]
        assert not any(v.description in _text(parts) for v in item.inputs.visuals)
    for item, parts in _ask(mm_images, "interleaved", tmp_path / "i", monkeypatch):
        images = [v for k, v in parts if k == "image"]
        cells = sorted((i for i in item.images if i.role == "cell-image"),
                       key=lambda i: (i.render["row"], i.render["col"]))
        assert images == [(mm_images / i.path).read_bytes() for i in cells]
        assert len(images) == len(item.inputs.visuals)
        assert not any(v.description in _text(parts) for v in item.inputs.visuals)
        # each picture sits in its cell: the text before it ends inside the picture's row
        for k, (kind, _) in enumerate(parts):
            if kind == "image":
                assert parts[k - 1][0] == "text" and parts[k - 1][1].endswith("| ")


def _prompts(dataset: Path, setting: str) -> list[tuple[Item, Any, str]]:
    data = load(dataset)
    return [(item, build_prompt(item, data, SETTINGS[setting], default_template(item.kind)),
             _reference(item)) for item in data]


@pytest.mark.slow
def test_every_harness_exports_the_interleaved_pictures_and_reads_back(
        mm_images: Path, tmp_path: Path) -> None:
    import pandas as pd
    import pyarrow.parquet as pq

    expected = _prompts(mm_images, "interleaved")
    sent = [[("text", p) if isinstance(p, str) else ("image", p.png) for p in prompt.parts]
            for _, prompt, _ in expected]
    assert all(sum(k == "image" for k, _ in s) == len(i.inputs.visuals)
               for s, (i, _, _) in zip(sent, expected, strict=True))
    for fmt in ("inspect", "lmms-eval", "vlmevalkit"):
        assert main(["export", str(mm_images), "--format", fmt, "--setting", "interleaved",
                     "--out", str(tmp_path / fmt)]) == 0

    folder = tmp_path / "inspect"
    samples = [json.loads(line) for line in (folder / "samples.jsonl").read_text().splitlines()]
    assert [[("text", p["text"]) if "text" in p else ("image", (folder / p["image"]).read_bytes())
             for p in sample["parts"]] for sample in samples] == sent

    rows = pq.read_table(tmp_path / "lmms-eval" / "data" / "test.parquet").to_pylist()
    assert [[("text", p["text"]) if "text" in p else ("image", row["images"][p["image"]]["bytes"])
             for p in json.loads(row["parts"])] for row in rows] == sent

    [tsv] = (tmp_path / "vlmevalkit").glob("*.tsv")
    table = pd.read_csv(tsv, sep="\t")
    for (_, row), parts, (_, prompt, reference) in zip(table.iterrows(), sent, expected,
                                                       strict=True):
        cell = str(row["image"])  # VLMEvalKit's toliststr: a list, or one image alone
        encoded = json.loads(cell) if cell.startswith("[") else [cell]
        assert [base64.b64decode(x) for x in encoded] == \
            [value for kind, value in parts if kind == "image"]
        assert row["question"] == prompt.text and str(row["answer"]) == reference


def test_a_captioner_that_cannot_caption_is_one_line(
        mm_text: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for captioner, said in (("gpt-4o", "--captioner 'gpt-4o': expected kind or openai:MODEL"),
                            ("openai:vision", "built with --no-images?")):
        run = tmp_path / "r"
        code = main(["eval", str(mm_text), "--model", "openai:m", "--base-url",
                     "http://127.0.0.1:9/v1", "--setting", "image-captioning", "--captioner",
                     captioner, "--out", str(run), "--quiet"])
        err = capsys.readouterr().err
        assert code == 2 and len(err.strip().splitlines()) == 1 and said in err
        assert not run.exists()


@pytest.mark.slow
def test_a_vision_model_captions_each_picture_once_for_image_captioning(
        mm_images: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    items = list(load(mm_images))
    cue = "This picture is shown in a cell of a table"
    script = Script({cue: ["CAPTIONED PICTURE"],
                     **{item.question: [f"Answer: {_reference(item)}"] for item in items}})
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    run = tmp_path / "run"
    with serve(script) as url:
        args = ["eval", str(mm_images), "--model", "openai:scripted", "--base-url", url,
                "--setting", "image-captioning", "--captioner", "openai:captioner", "--out",
                str(run), "--quiet"]
        assert main(args) == 0
        pictures = {i.sha256 for item in items for i in item.images if i.role == "cell-image"}
        assert script.requests[cue] == len(pictures)
        assert main(args) == 0  # a rerun asks for no caption again
        assert script.requests[cue] == len(pictures)
    for body in script.bodies:
        content = body["messages"][-1]["content"]
        images = [c for c in content if c["type"] == "image_url"] \
            if isinstance(content, list) else []
        text = content if isinstance(content, str) else \
            "".join(c.get("text", "") for c in content)
        if cue in text:
            assert body["model"] == "captioner" and len(images) == 1
        else:  # a question: the captions in the cells, no image, no description
            assert body["model"] == "scripted" and not images
            assert "| CAPTIONED PICTURE |" in text
            assert not any(v.description in text for i in items for v in i.inputs.visuals)
    captions = json.loads((run / "captions.json").read_text())
    assert captions["captioner"] == "openai:captioner"
    assert set(captions["captions"].values()) == {"CAPTIONED PICTURE"}
    assert json.loads((run / "run.json").read_text())["captioner"] == "openai:captioner"
    assert all(r["correct"] for r in _results(run))
