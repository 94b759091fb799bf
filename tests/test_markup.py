"""Counterfactual markup (HighlightBench): seven variants per item whose images differ from the
unmarked one only inside the marked cell's recorded box."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from hopvista.augment.markup import VARIANTS as MARKUP
from hopvista.cli.main import main
from hopvista.themes.marks import MARK_KINDS
from hopvista.variants.build import parse_variants
from tests.conftest import read_items, reseal

SAMPLES = Path(__file__).parent / "data" / "samples"


HIGHLIGHTBENCH = ",".join(f"markup-{v}" for v in ("n", "hc", "uc", "bc", "hi", "ui", "bi"))
#: HighlightBench's seven and an arrow on either cell: a kind drawn beyond its cell, checked
#: against its recorded mark_box (tests/test_marks.py draws every kind on a small table).
SIX_MARKS = HIGHLIGHTBENCH + ",markup-ac,markup-ai"
"""HighlightBench's seven variants (highlight, underline, bold)."""


def test_markup_names_every_variant_of_every_mark_kind() -> None:
    specs = parse_variants("web,markup")
    assert [s.name for s in specs] == ["web", *MARKUP]
    assert set(HIGHLIGHTBENCH.split(",")) < set(MARKUP)
    assert len(MARKUP) == 1 + 2 * len(MARK_KINDS.names())


def _pixels(root: Path, item: dict[str, Any]) -> np.ndarray:
    return np.asarray(Image.open(root / item["images"][0]["path"]).convert("RGB"))


def _check_only_the_marked_cell_changes(root: Path) -> int:
    items = {i["id"]: i for i in read_items(root)}
    checked = 0
    for item in items.values():
        markup = item["variant"].get("markup")
        if not markup or markup["style"] is None:
            continue
        plain = items[f"{item['base_id']}.markup-n"]
        assert plain["variant"]["markup"]["target"] == markup["target"]
        assert plain["variant"]["markup"]["distractor"] == markup["distractor"]
        marked, unmarked = _pixels(root, item), _pixels(root, plain)
        assert marked.shape == unmarked.shape, item["id"]
        at = markup[markup["on"]]
        (box,) = [c.get("mark_box", c["box"]) for c in item["images"][0]["render"]["cells"]
                  if (c["row"], c["col"]) == (at["row"], at["col"])]
        x, y, w, h = box
        changed = np.argwhere((marked != unmarked).any(axis=2))
        assert len(changed), f"{item['id']}: the markup changed nothing"
        ys, xs = changed[:, 0], changed[:, 1]
        assert ((xs >= x) & (xs < x + w) & (ys >= y) & (ys < y + h)).all(), \
            f"{item['id']}: pixels changed outside the {markup['on']} cell {box}"
        checked += 1
    return checked


@pytest.fixture(scope="module")
def six_marked(six: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ``six`` build in the :data:`SIX_MARKS` markup variants; tests only read it."""
    out = tmp_path_factory.mktemp("markup") / "six"
    assert main(["augment", str(six), "--variants", SIX_MARKS, "--out", str(out)]) == 0
    return out


def test_markup_of_a_built_dataset_changes_only_the_marked_cell(six: Path,
                                                                six_marked: Path) -> None:
    built, out = six, six_marked
    assert _check_only_the_marked_cell_changes(out) == 6 * (len(SIX_MARKS.split(",")) - 1)
    bases = {i["base_id"]: i for i in read_items(built)}
    for item in read_items(out):
        markup = item["variant"].get("markup")
        if not markup:
            continue
        target, rival = markup["target"], markup["distractor"]
        assert (target["row"], target["col"]) != (rival["row"], rival["col"])
        assert target["column"] == rival["column"]
        hijacked = markup["hijacked"]
        if hijacked["answer"] is not None:  # the answer with the statement re-derived
            base_answer = bases[item["base_id"]]["answer"]
            assert hijacked["distinguishes"] == (hijacked["answer"] != base_answer)
            assert set(hijacked["answer"]) ^ set(base_answer) <= {target["statement"]}
        statement = bases[item["base_id"]]["statements"][target["statement"] - 1]
        read = {(c["entity"], c["column"], c["year"]) for c in statement["cells"]
                if c["modality"] == "table"}
        assert (target["entity"], target["column"], target["year"]) in read
    # the manifest and the card report how many incongruent variants can be attributed
    told = [i for i in read_items(out) if (i["variant"].get("markup") or {}).get("on")
            == "distractor"]
    record = json.loads((out / "manifest.json").read_text())["markup"]
    on_distractor = [v for v in SIX_MARKS.split(",") if MARKUP[v][1] == "distractor"]
    assert record["incongruent"] == len(told) == 6 * len(on_distractor)
    assert record["distinguishes"] == sum(i["variant"]["markup"]["hijacked"]["distinguishes"]
                                          for i in told)
    assert f"in {record['distinguishes']} of {len(told)} incongruent" in \
        (out / "README.md").read_text()
    assert main(["verify", str(out)]) == 0


@pytest.fixture(scope="module")
def wtq_marked(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The WikiTableQuestions sample in the seven markup variants; tests only read it."""
    out = tmp_path_factory.mktemp("markup") / "wtq"
    assert main(["augment", str(SAMPLES / "wtq"), "--variants", HIGHLIGHTBENCH,
                 "--out", str(out)]) == 0
    return out


@pytest.mark.slow
def test_markup_of_an_imported_sample_marks_the_answer_cell(wtq_marked: Path) -> None:
    out = wtq_marked
    items = read_items(out)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["variants"]["skipped"] == {}
    assert len(items) == 4 * len(HIGHLIGHTBENCH.split(","))
    assert _check_only_the_marked_cell_changes(out) == 4 * 6
    for item in items:
        markup = item["variant"]["markup"]
        target = markup["target"]
        protected = {(p["row"], p["col"]): p["why"] for p in item["variant"]["protected"]}
        assert protected[(target["row"], target["col"])].startswith("matches the answer")
        # a reader hijacked by the marker answers the distractor's text
        assert markup["hijacked"]["answer"] == markup["distractor"]["text"]
        assert markup["hijacked"]["distinguishes"]
    assert main(["verify", str(out)]) == 0


class _MarkedCellReader:
    """Answers every question with the marked cell's text: a reader the marker misleads."""

    def answer_item(self, item: Any) -> str:
        markup = item.variant.markup or {}
        if markup.get("on"):
            return str(markup[markup["on"]]["text"])
        return "no marked cell"


@pytest.mark.slow
def test_eval_classes_a_reader_of_the_marked_cell_as_hijacked(wtq_marked: Path,
                                                              tmp_path: Path) -> None:
    from hopvista.eval.backends import MODELS

    out = wtq_marked
    oracle = tmp_path / "oracle"
    assert main(["eval", str(out), "--model", "oracle", "--out", str(oracle), "--quiet"]) == 0
    summary = json.loads((oracle / "summary.json").read_text())
    assert all(v["accuracy"] == 1.0 for v in summary["markup"].values())
    MODELS.register("test-marked-cell", lambda options: _MarkedCellReader())
    try:
        run = tmp_path / "marked"
        assert main(["eval", str(out), "--model", "test-marked-cell", "--out", str(run),
                     "--quiet"]) == 0
    finally:
        MODELS.unregister("test-marked-cell")
    markup = json.loads((run / "summary.json").read_text())["markup"]
    for name in ("markup-hi", "markup-ui", "markup-bi"):
        assert markup[name] == {"items": 4, "accuracy": 0.0,
                                "failures": {"marker hijacked": 4}}, name
    for name in ("markup-hc", "markup-uc", "markup-bc"):
        # congruent markup: the marked cell is the answer's (one of the four, "4th", only
        # contains the answer 4); a wrong answer there is never put down to the marker
        assert markup[name]["accuracy"] >= 0.75 and markup[name]["failures"] == {}
    results = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]
    assert all(r.get("markup_failure") == "marker hijacked" for r in results
               if r["variant"] in ("markup-hi", "markup-ui", "markup-bi"))


class _NeighbourReader:
    """Answers with the cell recorded next to the target: a reader one coordinate off."""

    def answer_item(self, item: Any) -> str:
        markup = item.variant.markup or {}
        coordinate = markup.get("coordinate") or {}
        table = item.inputs.table
        texts = [str(([*table.header], *table.rows)[at["row"]][at["col"]])
                 for at in coordinate.get("cells", [])]
        return next((t for t in texts if t in coordinate["answers"]), "no neighbour")


@pytest.mark.slow
def test_eval_classes_a_reader_one_cell_off_as_a_coordinate_error(tmp_path: Path) -> None:
    from hopvista.eval.backends import MODELS

    out = tmp_path / "wtq"
    assert main(["augment", str(SAMPLES / "wtq"), "--variants", "markup-hi,markup-n",
                 "--out", str(out)]) == 0
    MODELS.register("test-neighbour", lambda options: _NeighbourReader())
    try:
        run = tmp_path / "neighbour"
        assert main(["eval", str(out), "--model", "test-neighbour", "--out", str(run),
                     "--quiet"]) == 0
    finally:
        MODELS.unregister("test-neighbour")
    items = {i["id"]: i for i in read_items(out)}
    results = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]
    classed = 0
    for r in results:
        if r["variant"] != "markup-hi" or r["correct"]:
            continue
        markup = items[r["id"]]["variant"]["markup"]
        expected = "marker hijacked" if r["parsed"] == markup["hijacked"]["answer"] else \
            "coordinate error" if r["parsed"] in markup["coordinate"]["answers"] else \
            "logical failure"
        assert r["markup_failure"] == expected, r["id"]
        classed += expected == "coordinate error"
    assert classed >= 3
    # the unmarked control has no distractor: a wrong answer there is not classed
    assert all("markup_failure" not in r for r in results if r["variant"] == "markup-n")


class _MisledReader:
    """Answers as a reader the marker misleads: on an incongruent variant, the answer the
    variant records for such a reader (``variant.markup.hijacked``); elsewhere the right
    answer."""

    def answer_item(self, item: Any) -> str:
        markup = item.variant.markup or {}
        answer = (markup.get("hijacked") or {}).get("answer") \
            if markup.get("on") == "distractor" else None
        said = item.answer if answer is None else answer
        return "Answer: " + (", ".join(str(n) for n in said) if said else "none")


def test_eval_puts_a_misled_readers_wrong_answers_down_to_the_marker(six_marked: Path,
                                                                     tmp_path: Path) -> None:
    from hopvista.eval.backends import MODELS

    MODELS.register("test-misled", lambda options: _MisledReader())
    try:
        run = tmp_path / "misled"
        assert main(["eval", str(six_marked), "--model", "test-misled", "--out", str(run)]) == 0
    finally:
        MODELS.unregister("test-misled")
    items = {i["id"]: i for i in read_items(six_marked)}
    results = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]
    wrong = [r for r in results if not r["correct"]]
    assert wrong, "the misled reader was never wrong"
    for r in wrong:  # every wrong answer is the misled one, and is put down to the marker
        markup = items[r["id"]]["variant"]["markup"]
        assert markup["on"] == "distractor" and markup["hijacked"]["distinguishes"], r["id"]
        assert r["markup_failure"] == "marker hijacked", r["id"]
    told = json.loads((six_marked / "manifest.json").read_text())["markup"]["distinguishes"]
    summary = json.loads((run / "summary.json").read_text())["markup"]
    assert sum(v["failures"].get("marker hijacked", 0) for v in summary.values()) == told


def test_verify_refuses_a_mark_drawn_beyond_its_cell_without_its_box(
        six_marked: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "forged"
    shutil.copytree(six_marked, root)
    items = read_items(root)
    (forged,) = [i for i in items if i["variant"]["name"] == "markup-ac"][:1]
    for cell in forged["images"][0]["render"]["cells"]:
        cell.pop("mark_box", None)
    reseal(root, items)
    capsys.readouterr()
    assert main(["verify", str(root)]) == 1
    said = capsys.readouterr().err
    assert f"{forged['id']}: the table image's arrow mark on (" in said and \
        "records no mark_box [x, y, w, h] (where it is drawn)" in said, said
