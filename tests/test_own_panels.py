"""Panels as people write them: a data folder nobody here tuned the engine to builds every
level it can, says what its texts gave and why a type is not possible, and never shows a
chart the table determines.

The folders under ``tests/data/panels`` are hand-written in the style users bring:

* ``clubs``: eight football clubs over six seasons, columns with exact linear relations
  (Wins + Draws + Losses = 38, Points = 3 x Wins + Draws) and 24 plain passages;
* ``hospitals``: six hospitals over five years whose series wander, with Staff = Doctors +
  Nurses, Budget = 2 x Beds + 5 and Surgery Share (%) = 100 x Surgeries / Admissions, and
  plain prose;
* ``alloys``: seven alloys measured once (no period axis) and no texts.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from decimal import Decimal
from itertools import combinations, product
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hopvista.cli.main import main

PANELS = Path(__file__).parent / "data" / "panels"


def build(capsys: pytest.CaptureFixture[str], folder: Path, out: Path, *args: str
          ) -> tuple[int, str]:
    """``gen build panel --data FOLDER ...``: its exit code and what it said on stderr."""
    capsys.readouterr()
    code = main(["build", "panel", "--data", str(folder), "--no-images", "--out", str(out),
                 *args])
    return code, capsys.readouterr().err


def verified(capsys: pytest.CaptureFixture[str], out: Path) -> None:
    code = main(["verify", str(out)])
    said = capsys.readouterr()
    assert code == 0, said.out + said.err


def items_of(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "items.jsonl").read_text().splitlines()]


def manifest_of(out: Path) -> dict[str, Any]:
    return dict(json.loads((out / "manifest.json").read_text()))


def number(text: str) -> Decimal:
    return Decimal(text.replace(",", ""))


def shown_rows(item: dict[str, Any]) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """The chart's values and the table's columns over the rows the chart shows (entity x
    period, in the chart's order), and each table column's precision."""
    chart = item["inputs"]["chart"]
    table = item["inputs"]["table"]
    rows = {(r["entity"], r["year"]): r["values"] for r in table["rows"]}
    keys = [c["key"] for c in table["columns"]]
    target, columns = [], []
    for series in chart["series"]:
        for year, value in zip(chart["years"], series["values"], strict=True):
            target.append(float(number(value)))
            columns.append([float(number(rows[(series["entity"], year)][k])) for k in keys])
    return np.array(target), np.array(columns), [c["precision"] for c in table["columns"]]


def holds_without(design: np.ndarray, target: np.ndarray, left_out: np.ndarray,
                  chart_unit: float, picks: tuple[int, ...], precision: list[int]) -> bool:
    """Whether the relation fitted without one entity's rows still gives that entity's
    chart within the rounding (half again): a relation of the data, not of these rows (a
    world whose columns all move in lines with the period fits any chart on a few
    entities)."""
    kept = ~left_out
    if np.linalg.matrix_rank(design[kept]) < design.shape[1]:
        return True  # too few rows left to tell: keep the fit
    coef, *_ = np.linalg.lstsq(design[kept], target[kept], rcond=None)
    slack = sum(abs(coef[i]) * 10.0 ** -precision[p] / 2 for i, p in enumerate(picks))
    return bool(np.abs(design @ coef - target).max() <= 1.5 * (chart_unit + slack) + 1e-9)


#: A relation whose terms' rounding adds more than this many half display units of the chart
#: does not give the chart's values to its precision: the chart is not determined by it
#: (3 x Wins + Draws adds 4).
SLACK_LIMIT = 10


def linear_links(item: dict[str, Any]) -> Iterator[tuple[tuple[int, ...], float, float]]:
    """Every set of table columns that, with a constant, gives the chart column within the
    display rounding on the rows shown (least squares; independent of hopvista's own
    check): (columns, worst residual, tolerance). Only sets the rows over-determine (two
    rows to spare), and
    only sets of independent columns (a set with linked columns spans what a smaller one
    does, and its coefficients, not unique, would widen the tolerance at will)."""
    target, columns, precision = shown_rows(item)
    chart_unit = 10.0 ** -item["inputs"]["chart"]["column"]["precision"] / 2
    rows = len(target)
    owners = np.array([s["entity"] for s in item["inputs"]["chart"]["series"]
                       for _ in item["inputs"]["chart"]["years"]])
    for size in range(1, columns.shape[1] + 1):
        if size + 1 > rows - 2:
            break
        for picks in combinations(range(columns.shape[1]), size):
            design = np.column_stack([columns[:, list(picks)], np.ones(rows)])
            if np.linalg.matrix_rank(design) < size + 1:
                continue  # linked columns: the same span as a smaller set, tried already
            coef, *_ = np.linalg.lstsq(design, target, rcond=None)
            worst = float(np.abs(design @ coef - target).max())
            slack = sum(abs(coef[i]) * 10.0 ** -precision[p] / 2 for i, p in enumerate(picks))
            if slack > SLACK_LIMIT * chart_unit:
                continue  # near-collinear columns: the fit does not pin the chart down
            if worst <= chart_unit + slack + 1e-9 and all(
                    holds_without(design, target, owners == entity, chart_unit, picks,
                                  precision) for entity in set(owners)):
                yield picks, worst, chart_unit + slack


def ratio_links(item: dict[str, Any]) -> Iterator[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Every product or ratio of one or two table columns (exponents +1 or -1) that, with
    one constant, gives the chart within the display rounding on every row shown: the
    constant's interval allowed by each row meets all the others (in floats, independent of
    hopvista's own check)."""
    target, columns, precision = shown_rows(item)
    half = 10.0 ** -item["inputs"]["chart"]["column"]["precision"] / 2
    if len(target) < 6:
        return  # a pie's one period: on three rows, small whole numbers fit by chance
    if not (np.all(target > 0) or np.all(target < 0)) or np.any(np.abs(target) <= half):
        return
    y_low, y_high = np.abs(target) - half, np.abs(target) + half
    usable = [k for k in range(columns.shape[1])
              if (np.all(columns[:, k] > 0) or np.all(columns[:, k] < 0))
              and np.all(np.abs(columns[:, k]) > 10.0 ** -precision[k] / 2)]
    for size in (1, 2):
        for picks in combinations(usable, size):
            for exponents in product((1, -1), repeat=size):
                low, high = np.ones(len(target)), np.ones(len(target))
                for k, e in zip(picks, exponents, strict=True):
                    x = np.abs(columns[:, k])
                    lo, hi = x - 10.0 ** -precision[k] / 2, x + 10.0 ** -precision[k] / 2
                    low, high = (low * lo, high * hi) if e > 0 else (low / hi, high / lo)
                if np.max(y_low / high) <= np.min(y_high / low) * (1 + 1e-12):
                    yield picks, exponents


def assert_chart_needed(items: list[dict[str, Any]]) -> None:
    for item in items:
        links = list(linear_links(item))
        assert not links, (item["id"], item["inputs"]["chart"]["column"]["key"], links)
        ratios = list(ratio_links(item))
        assert not ratios, (item["id"], item["inputs"]["chart"]["column"]["key"], ratios)


def facts_report(out: Path) -> dict[str, Any]:
    return dict(manifest_of(out)["source"]["texts"])


@pytest.fixture(scope="module")
def clubs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The clubs panel built at every level (24 items)."""
    out = tmp_path_factory.mktemp("clubs") / "out"
    code = main(["build", "panel", "--data", str(PANELS / "clubs"), "--hops", "1-3", "-n",
                 "24", "--no-images", "--out", str(out)])
    assert code == 0
    return out


@pytest.mark.slow
def test_clubs_build_every_level_and_verify(clubs: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    verified(capsys, clubs)
    items = items_of(clubs)
    assert {i["difficulty"] for i in items} == {"easy", "medium", "hard"}
    hard = [i for i in items if i["difficulty"] == "hard"]
    assert all(s["type"].startswith("FC+") for i in hard for s in i["statements"])
    statements = " ".join(s["text"] for i in items for s in i["statements"])
    assert "the club" in statements.lower() and " entity " not in statements


@pytest.mark.slow
def test_clubs_facts_are_counted_per_entity(clubs: Path) -> None:
    report = facts_report(clubs)
    assert report["file"] == "texts.jsonl" and report["passages"] == 24
    entities = report["entities"]
    assert len(entities) == 8 and all(e["passages"] == 3 for e in entities.values())
    assert report["facts"] == sum(e["facts"] for e in entities.values())
    assert sum(1 for e in entities.values() if e["facts"] > 0) >= 7
    assert report["facts"] >= 24
    for row in report["without_facts"]:
        assert row["reason"] and row["chunk"] and row["line"] >= 1


@pytest.mark.slow
def test_clubs_never_chart_a_column_the_table_determines(clubs: Path) -> None:
    items = items_of(clubs)
    assert_chart_needed(items)
    charted = {i["inputs"]["chart"]["column"]["key"] for i in items}
    related = {"wins", "draws", "losses", "points"}
    for item in items:  # the relations of the data: never the chart beside its terms
        key = item["inputs"]["chart"]["column"]["key"]
        shown = {c["key"] for c in item["inputs"]["table"]["columns"]}
        if key in related:
            assert len(related & shown) < 2, (item["id"], key, shown)
    assert charted  # something was charted


@pytest.mark.slow
def test_wandering_panel_with_relations_makes_medium_and_hard(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "hospitals"
    code, said = build(capsys, PANELS / "hospitals", out, "--hops", "1-3", "-n", "24")
    assert code == 0, said
    verified(capsys, out)
    items = items_of(out)
    assert {i["difficulty"] for i in items} == {"easy", "medium", "hard"}
    assert_chart_needed(items)
    for item in items:
        key = item["inputs"]["chart"]["column"]["key"]
        shown = {c["key"] for c in item["inputs"]["table"]["columns"]}
        if key == "budget":
            assert "beds" not in shown
        if key == "beds":
            assert "budget" not in shown
        if key in {"staff", "doctors", "nurses"}:
            assert len({"staff", "doctors", "nurses"} & shown) < 2
        share = {"surgeries", "admissions", "surgery_share"}
        if key in share:
            assert len(share & shown) < 2, (item["id"], key, shown)


@pytest.mark.slow
def test_no_period_panel_builds_two_hops(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "alloys"
    code, said = build(capsys, PANELS / "alloys", out, "--hops", "1-2", "-n", "24")
    assert code == 0, said
    verified(capsys, out)
    items = items_of(out)
    medium = [i for i in items if i["difficulty"] == "medium"]
    assert medium and {s["type"] for i in medium for s in i["statements"]} <= {
        "CT+RK", "AR+RK"}
    assert_chart_needed(items)


def write_unextractable(folder: Path) -> Path:
    """The clubs panel with passages that state nothing a fact can be made of."""
    folder.mkdir(parents=True)
    (folder / "panel.csv").write_bytes((PANELS / "clubs" / "panel.csv").read_bytes())
    names = sorted({line.split(",")[0] for line in
                    (folder / "panel.csv").read_text().splitlines()[1:]})
    lines = [json.dumps({"entity": name, "text": "Supporters say the atmosphere is special. "
                                                  "Many people may visit next year."})
             for name in names]
    (folder / "texts.jsonl").write_text("\n".join(lines) + "\n")
    return folder


def test_texts_without_facts_never_block_the_table_and_chart(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = write_unextractable(tmp_path / "quiet")
    out = tmp_path / "quiet-out"
    code, said = build(capsys, folder, out, "--hops", "1-2", "-n", "12")
    assert code == 0, said
    assert any("texts.jsonl" in line and "gave no facts" in line and "no FC" in line
               for line in said.splitlines()), said
    verified(capsys, out)
    items = items_of(out)
    assert {i["difficulty"] for i in items} == {"easy", "medium"}
    assert not any(s["type"].startswith("FC") for i in items for s in i["statements"])
    unavailable = manifest_of(out)["config"]["unavailable"]
    assert "FC" in unavailable and "gave no facts" in unavailable["FC"]
    report = facts_report(out)
    assert report["facts"] == 0 and len(report["without_facts"]) == 8
    assert all(row["reason"] for row in report["without_facts"])

    code, said = build(capsys, folder, tmp_path / "hard", "--hops", "3", "-n", "6")
    assert code == 2
    (line,) = [x for x in said.splitlines() if "error" in x]
    assert "hard" in line and "texts.jsonl" in line and "gave no facts" in line
    assert not (tmp_path / "hard").exists()


@pytest.mark.slow
@pytest.mark.parametrize(("domain", "args"), [
    ("financial", ("--hops", "1-3", "-n", "40")),
    ("materials", ("--hops", "1-3", "-n", "30")),
])
def test_builtin_domains_never_chart_a_column_the_table_determines(
        tmp_path: Path, domain: str, args: tuple[str, ...]) -> None:
    out = tmp_path / domain
    assert main(["build", domain, *args, "--no-images", "--out", str(out)]) == 0
    assert_chart_needed(items_of(out))


def test_the_independent_check_finds_weighted_relations() -> None:
    """The check the build tests use sees Points = 3 x Wins + Draws and Losses = 38 - Wins -
    Draws in a club-like item, and nothing in the same item's unrelated column."""
    rng = np.random.default_rng(3)
    entities, years = ["a", "b", "c"], list(range(2019, 2024))
    rows, series = [], {"points": [], "losses": [], "crowd": []}
    for entity in entities:
        for year in years:
            wins, draws = int(rng.integers(5, 25)), int(rng.integers(3, 12))
            rows.append({"entity": entity, "year": year,
                         "values": {"wins": str(wins), "draws": str(draws),
                                    "goals": str(int(rng.integers(20, 80)))}})
            series["points"].append(3 * wins + draws)
            series["losses"].append(38 - wins - draws)
            series["crowd"].append(int(rng.integers(5000, 40000)))

    def item(key: str) -> dict[str, Any]:
        values = series[key]
        return {"id": key, "inputs": {
            "table": {"columns": [{"key": k, "precision": 0} for k in ("wins", "draws",
                                                                       "goals")],
                      "rows": rows},
            "chart": {"column": {"key": key, "precision": 0}, "years": years,
                      "series": [{"entity": e, "values": [str(v) for v in
                                                          values[5 * i:5 * i + 5]]}
                                 for i, e in enumerate(entities)]}}}

    assert any(picks == (0, 1) for picks, _, _ in linear_links(item("points")))
    assert any(picks == (0, 1) for picks, _, _ in linear_links(item("losses")))
    assert not list(linear_links(item("crowd")))
