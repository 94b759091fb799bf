"""Markup tasks (HighlightBench's T1–T5): every registered subtask's answer is re-derived by the
verifier's own executor, the plan is balanced, the images show the marks, and ``gen eval``
scores strict-JSON answers and classes the failures."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from hopvista.cli.main import main
from hopvista.markup_tasks.build import by_family, planned
from hopvista.markup_tasks.subtasks import MARKUP_TASKS, TaskTable, Unsuitable
from hopvista.markup_tasks.tables import domain_tables, imported_tables
from hopvista.model import Item
from hopvista.model.task import COLOURS, FAMILIES
from hopvista.program.marks import execute
from hopvista.rng import Streams
from tests.conftest import read_items, reseal

SAMPLES = Path(__file__).parent / "data" / "samples"


def _tables() -> list[TaskTable]:
    supply = domain_tables("financial", 5)
    tables = [supply.draw(Streams(5, f"t{k}", "base"), 0) for k in range(6)]
    imported = imported_tables(SAMPLES / "wtq", None)
    return tables + [imported.draw(Streams(5, f"w{k}", "base"), 0) for k in range(4)]


@pytest.fixture(scope="module")
def tables() -> list[TaskTable]:
    return _tables()


@pytest.mark.parametrize("name", MARKUP_TASKS.names())
def test_every_subtask_is_re_derived_by_the_verifier(name: str,
                                                     tables: list[TaskTable]) -> None:
    entry = MARKUP_TASKS.get(name)
    assert entry.family in FAMILIES
    drawn_any = 0
    for k, table in enumerate(tables):
        for yes in (True, False):
            try:
                drawn = entry.make(table, Streams(1, f"{name}-{k}", "base"), yes)
            except Unsuitable:
                continue
            drawn_any += 1
            grid = [list(row) for row in drawn.table.cells]
            marks = {(m.row, m.col): {"style": m.style, "colour": m.colour}
                     for m in drawn.marks}
            assert len(marks) == len(drawn.marks), "a cell marked twice"
            assert execute(grid, marks, drawn.program) == drawn.answer, (name, k)
            assert drawn.question.endswith(".") and "JSON" in drawn.question
            # the answer's yes/no, when it has one, is the planned one
            flags = [v for v in drawn.answer.values() if isinstance(v, bool)]
            assert not flags or flags == [yes]
    assert drawn_any >= 10, f"{name} could be drawn on {drawn_any} of 20 tries"


def test_the_plan_balances_families_subtasks_and_yes_no() -> None:
    families = by_family()
    assert sorted(families) == sorted(FAMILIES)
    assert sum(len(v) for v in families.values()) >= 20  # HighlightBench has 21 subtasks
    plan = [planned(7, index, families) for index in range(600)]
    per_family = Counter(entry.family for entry, _ in plan)
    assert max(per_family.values()) - min(per_family.values()) <= 1
    for family, entries in families.items():
        counts = Counter(entry.name for entry, _ in plan if entry.family == family)
        assert max(counts.values()) - min(counts.values()) <= 1, family
        assert set(counts) == {e.name for e in entries}
    for name in ("T1-exists", "T4-compare", "T5-marked-value"):
        answers = Counter(yes for entry, yes in plan if entry.name == name)
        assert abs(answers[True] - answers[False]) <= 1, name
    # one index's entry does not depend on the others (a shard can compute its slice)
    assert planned(7, 433, families) == plan[433]


def test_the_executor_refuses_programs_it_cannot_run() -> None:
    from hopvista.program.marks import ProgramError

    grid = [["Name", "A"], ["x", "1"], ["y", "1"]]
    marks = {(1, 1): {"style": "highlight", "colour": "green"},
             (2, 1): {"style": "highlight", "colour": "green"}}
    with pytest.raises(ProgramError, match="picks 2 cells"):
        execute(grid, marks, {"op": "value", "scope": {"style": "highlight"}})
    with pytest.raises(ProgramError, match="tie"):
        execute(grid, marks, {"op": "argmax", "scope": {"style": "highlight"}})
    with pytest.raises(ProgramError, match="unknown op"):
        execute(grid, marks, {"op": "guess"})


def _near(colour: str, pixels: np.ndarray) -> bool:
    """Whether the cell's median colour is the named highlight's (drawn ≥ 80% opaque)."""
    hexa = COLOURS[colour]
    want = np.array([int(hexa[i:i + 2], 16) for i in (1, 3, 5)])
    median = np.median(pixels.reshape(-1, 3), axis=0)
    return bool(np.abs(median - want).max() <= 60)


@pytest.fixture(scope="module")
def markup100(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("markup") / "tasks"
    assert main(["markup", "--count", "100", "--seed", "3", "--out", str(out),
                 "--workers", "2"]) == 0
    return out


@pytest.mark.slow
def test_gen_markup_gives_every_family_and_verify_re_derives_it(
        markup100: Path) -> None:
    items = read_items(markup100)
    assert len(items) == 100
    assert Counter(i["task"]["family"] for i in items) == {f: 20 for f in FAMILIES}
    assert len({i["task"]["subtask"] for i in items}) == len(MARKUP_TASKS.names())
    assert main(["verify", str(markup100)]) == 0
    for raw in items:
        item = Item.model_validate(raw)
        assert item.task is not None
        image = item.image("table")
        assert image is not None
        pixels = np.asarray(Image.open(markup100 / image.path).convert("RGB"))
        boxes = {(c["row"], c["col"]): c["box"] for c in image.render["cells"]}
        for m in item.task.marks:
            if m.style != "highlight":
                continue
            x, y, w, h = boxes[(m.row, m.col)]
            inner = pixels[y + 3:y + h - 3, x + 3:x + w - 3]
            assert _near(str(m.colour), inner), f"{item.id}: {m} is not drawn {m.colour}"


@pytest.mark.slow
def test_verify_rejects_a_consistent_forgery_of_a_markup_answer(
        markup100: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    forged = tmp_path / "forged"
    shutil.copytree(markup100, forged)
    items = read_items(forged)
    victim = next(i for i in items if i["task"]["subtask"] == "T1-count")
    victim["answer"] = {"count": victim["answer"]["count"] + 1}
    reseal(forged, items)
    capsys.readouterr()
    assert main(["verify", str(forged)]) == 1
    assert "is not what the program gives" in capsys.readouterr().err

    shutil.rmtree(forged)
    shutil.copytree(markup100, forged)
    items = read_items(forged)
    victim = next(i for i in items if len(i["task"]["marks"]) >= 2)
    victim["task"]["marks"] = victim["task"]["marks"][:-1]  # the image still shows it
    reseal(forged, items)
    assert main(["verify", str(forged)]) == 1


@pytest.mark.slow
def test_the_same_command_gives_the_same_bytes_whatever_the_workers(
        tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    assert main(["markup", "-n", "12", "--out", str(one)]) == 0
    assert main(["markup", "-n", "12", "--out", str(two), "--workers", "2"]) == 0
    for path in sorted(p.relative_to(one) for p in one.rglob("*") if p.is_file()):
        assert (one / path).read_bytes() == (two / path).read_bytes(), path


@pytest.mark.slow
def test_markup_tasks_on_an_imported_sample(tmp_path: Path) -> None:
    out = tmp_path / "wtq-tasks"
    assert main(["markup", "-n", "15", "--tables", str(SAMPLES / "wtq"),
                 "--out", str(out)]) == 0
    items = read_items(out)
    assert all(i["provenance"]["source"].startswith("wtq:") for i in items)
    assert main(["verify", str(out)]) == 0


class _FirstRowReader:
    """Answers an extreme's row with the first highlighted row but the right value."""

    def answer_item(self, item: Any) -> str:
        answer = dict(item.answer)
        if "row" in answer and "value" in answer:
            rows = [m.row for m in item.task.marks]
            first = item.inputs.table.rows[min(rows) - 1][0]
            answer["row"] = first if first != answer["row"] else "nobody"
        elif "count" in answer:
            answer["count"] += 1
        return "Sure.\n```json\n" + json.dumps(answer) + "\n```"


@pytest.mark.slow
def test_eval_scores_strict_json_and_classes_coordinate_errors(
        markup100: Path, tmp_path: Path) -> None:
    from hopvista.eval.backends import MODELS

    oracle = tmp_path / "oracle"
    assert main(["eval", str(markup100), "--model", "oracle", "--out", str(oracle),
                 "--quiet"]) == 0
    summary = json.loads((oracle / "summary.json").read_text())
    assert summary["accuracy"]["value"] == 1.0
    assert set(summary["markup"]["families"]) == set(FAMILIES)
    assert all(f["accuracy"] == 1.0 for f in summary["markup"]["families"].values())
    MODELS.register("test-first-row", lambda options: _FirstRowReader())
    try:
        run = tmp_path / "first-row"
        assert main(["eval", str(markup100), "--model", "test-first-row", "--out", str(run),
                     "--quiet"]) == 0
    finally:
        MODELS.unregister("test-first-row")
    results = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]
    for r in results:
        if r["subtask"] in ("T4-argmax", "T4-argmin", "T5-max-available"):
            assert not r["correct"] and r["markup_failure"] == "coordinate error", r["id"]
        elif r["subtask"] in ("T1-count", "T5-count-missing"):
            assert not r["correct"] and r["markup_failure"] == "logical failure"
        else:
            assert r["correct"] and r["parse_rule"] == "json", r["id"]


def test_a_markup_answer_is_read_from_the_last_json_object() -> None:
    from hopvista.model.kinds import ITEM_KINDS

    kind = ITEM_KINDS.get("markup_task")
    item = Item.model_validate({
        "id": "m-1.base", "base_id": "m-1", "domain": "markup", "kind": "markup_task",
        "inputs": {"table": {"header": ["Name", "A"], "rows": [["x", "1,200.5"], ["y", "-"]]}},
        "question": "q", "answer": {"row": "x", "value": "1,200.5", "rows": ["x", "y"]},
        "answer_type": "json", "provenance": {"generator": "t", "source": "t"},
        "task": {"family": "T4", "subtask": "t", "program": {"op": "noop"},
                 "ordered": ["rows"]}})
    assert kind.score(item, 'think {"a": 1} then {"row": "X", "value": 1200.5, '
                            '"rows": ["x", "y"]}').correct
    assert not kind.score(item, '{"row": "x", "value": "1200.5", "rows": ["y", "x"]}').correct
    assert not kind.score(item, "row x, value 1,200.5").correct
    assert kind.score(item, "row x").metrics["parsed"] == 0.0


@pytest.mark.parametrize("argv, words", [
    (["build", "markup"], "'markup' is not a domain: markup tasks have their own command, "
                          "'gen markup'"),
    (["build", "markup", "-n", "3", "--no-images"], "'gen markup'"),
    (["markup", "--tables", "no-such-domain"], "no-such-domain"),
])
def test_markup_errors_are_one_line(argv: list[str], words: str, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*argv, "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "o").exists()


def test_build_markup_is_the_python_api_of_gen_markup(tmp_path: Path) -> None:
    """``hopvista.build_markup`` takes what ``gen markup`` takes, and refuses the same way."""
    import hopvista
    from hopvista.errors import UserError

    with pytest.raises(UserError, match="no-such-domain"):
        hopvista.build_markup(tmp_path / "o", count=2, tables="no-such-domain")
    assert not (tmp_path / "o").exists()


@pytest.mark.slow
def test_build_markup_writes_what_gen_markup_writes(tmp_path: Path) -> None:
    import hopvista

    manifest = hopvista.build_markup(tmp_path / "api", count=5, seed=2)
    assert main(["markup", "-n", "5", "--seed", "2", "--out", str(tmp_path / "cli")]) == 0
    assert manifest["kind"] == "markup" and manifest["counts"]["items"] == 5
    for path in sorted(p.relative_to(tmp_path / "cli") for p in (tmp_path / "cli").rglob("*")
                       if p.is_file()):
        assert (tmp_path / "api" / path).read_bytes() == (tmp_path / "cli" / path).read_bytes()
    assert "`gen markup --count 5 --seed 2`" in (tmp_path / "cli" / "README.md").read_text()


@pytest.mark.slow
@pytest.mark.parametrize("name", ["table-json", "no-chart", "image-only", "interleaved"])
def test_every_setting_shows_a_markup_task_its_marked_image(markup100: Path, name: str) -> None:
    from hopvista.eval.backends import PromptImage
    from hopvista.eval.prompts import build_prompt, default_template, setting
    from hopvista.model.dataset import load

    dataset = load(markup100)
    item = dataset[0]
    prompt = build_prompt(item, dataset, setting(name), default_template("markup_task"))
    images = [p for p in prompt.parts if isinstance(p, PromptImage)]
    table = item.image("table")
    assert table is not None
    assert [i.role for i in images] == ["table"]
    assert images[0].png == (markup100 / table.path).read_bytes()
    assert item.question in "".join(p for p in prompt.parts if isinstance(p, str))
