"""gen eval --setting chart-derendered: the chart given as a chart-to-table reader read it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hopvista.cli.main import main
from hopvista.eval.derender import parse_table, values_read
from hopvista.eval.prompts import chart_json
from hopvista.model.dataset import load
from tests.conftest import read_items
from tests.scripted_server import Script, serve

KEY = "sk-test-derender-5b1e77c2a9"
READ_CUE = "Read the chart above"
TABLE = "Series | Year | Value (USD millions)\nZorblax Holdings | 2099 | 4242\n"


@pytest.fixture
def tiny() -> Path:
    """Six items without images (a golden dataset: read, never written)."""
    return Path(__file__).parent / "golden" / "format6"


def _results(run: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]


def _texts(script: Script) -> list[str]:
    return ["\n".join(p.get("text", "") for m in body["messages"]
                      for p in (m["content"] if isinstance(m["content"], list)
                                else [{"text": m["content"]}]))
            for body in script.bodies]


@pytest.mark.parametrize(("reply", "rows"), [
    (TABLE, [["Series", "Year", "Value (USD millions)"], ["Zorblax Holdings", "2099", "4242"]]),
    ("| Year | A |\n|---|---:|\n| 2019 | 1.5 |\n", [["Year", "A"], ["2019", "1.5"]]),
    ("TITLE | Sales <0x0A> Year | A <0x0A> 2019 | 7", [["TITLE", "Sales"], ["Year", "A"],
                                                      ["2019", "7"]]),
    ('```json\n[{"Year": 2019, "A": 1.5}, {"Year": 2020, "A": null}]\n```',
     [["Year", "A"], ["2019", "1.5"], ["2020", ""]]),
    ('[["Year", "A"], [2019, 3]]', [["Year", "A"], ["2019", "3"]]),
])
def test_a_derenderer_reply_is_read_as_a_table(reply: str, rows: list[list[str]]) -> None:
    assert [list(r) for r in parse_table(reply)] == rows


@pytest.mark.parametrize("reply", ["I cannot read this chart.", "", "A | B", "[1, 2]", "{}"])
def test_a_reply_that_is_no_table_is_refused(reply: str) -> None:
    with pytest.raises(ValueError):
        parse_table(reply)


def test_values_read_count_the_points_a_reading_holds(tiny: Path) -> None:
    item = next(iter(load(tiny)))
    chart = item.inputs.chart
    assert chart is not None
    names = {e.id: e.name for e in item.entities}
    long = [["Series", "Year", "Value"]] + [
        [names[s.entity], str(year), value] for s in chart.series
        for year, value in zip(chart.years, s.values, strict=False) if value != ""]
    points = len(long) - 1
    assert values_read(item, long, heading=True) == points
    first = chart.series[0]
    wide = [["Year", *(names[s.entity] for s in chart.series)]] + [
        [str(year), *(s.values[k] for s in chart.series)] for k, year in enumerate(chart.years)]
    assert values_read(item, wide, heading=True) == points
    # The chart's words alone (title, ticks, legend), as OCR reads them, hold no point.
    ticks = [[chart.column.label], *([str(v)] for v in first.values),
             [str(y) for y in chart.years], [names[s.entity] for s in chart.series]]
    assert values_read(item, ticks, heading=False) == 0


def test_a_derenderer_other_than_ocr_or_openai_is_one_line(
        tiny: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run"
    for spec in ("gpt-4o", "openai:", "proxy:no-chart"):
        assert main(["eval", str(tiny), "--model", "openai:m", "--base-url",
                     "http://127.0.0.1:9/v1", "--setting", "chart-derendered", "--derenderer",
                     spec, "--out", str(run), "--quiet"]) == 2
        err = capsys.readouterr().err.strip()
        assert err == f"gen: error: --derenderer {spec!r}: expected ocr or openai:MODEL"
    assert not run.exists()


def test_a_build_without_chart_images_is_refused_before_anything_is_written(
        tiny: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run"
    first = read_items(tiny)[0]["id"]
    assert main(["eval", str(tiny), "--model", "openai:m", "--base-url",
                 "http://127.0.0.1:9/v1", "--setting", "chart-derendered", "--derenderer",
                 "openai:reader", "--out", str(run), "--quiet"]) == 2
    assert capsys.readouterr().err.strip() == (
        f"gen: error: {first}: the setting 'chart-derendered' reads its chart image, which "
        "the dataset does not have (built with --no-images?)")
    assert not run.exists()


def test_the_exports_refuse_the_derendered_setting_in_one_line(
        tiny: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for fmt in ("inspect", "lmms-eval", "vlmevalkit"):
        out = tmp_path / fmt
        assert main(["export", str(tiny), "--format", fmt, "--setting", "chart-derendered",
                     "--out", str(out)]) == 2
        assert capsys.readouterr().err.strip() == (
            "gen: error: --setting chart-derendered: a chart-to-table reader reads the "
            "charts during gen eval, which an export cannot run; export chart-as-table (the "
            "exact data) or evaluate with gen eval")
        assert not out.exists()


def test_a_model_derenderer_feeds_the_prompt_is_cached_and_its_bad_reply_is_an_error(
        six: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The reading reaches the prompt in place of the exact data; a reply that is no table
    is an error of its item (counted, asked again); the cache makes a rerun ask nothing."""
    script = Script({READ_CUE: ["I cannot read this chart.", TABLE],
                     "Zorblax Holdings": ["Answer: none"],
                     "Chart, given as its data": ["Answer: 1"]})
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    prices = tmp_path / "prices.yaml"
    prices.write_text("reader: {input: 1000, output: 2000}\n")
    run, exact = tmp_path / "run", tmp_path / "exact"
    with serve(script) as url:
        args = ["eval", str(six), "--model", "openai:answerer", "--base-url", url,
                "--setting", "chart-derendered", "--derenderer", "openai:reader", "--limit",
                "3", "--out", str(run), "--quiet", "--concurrency", "1", "--prices",
                str(prices)]
        assert main(args) == 0
        texts = _texts(script)
        asked = [t for t in texts if READ_CUE not in t]
        assert len(asked) == 2 and all("4242" in t for t in asked)
        exact_data = [chart_json(i) for i in list(load(six))[:3]]
        assert all(d and d not in t for d in exact_data for t in asked)
        results = _results(run)
        assert results[0]["error"] == ("derenderer openai:reader: the reply is not a table "
                                        "(no two lines of cells separated by |)")
        assert results[0]["derendered"]["response"] == "I cannot read this chart."
        assert results[0]["derendered"]["table"] is None
        for result in results[1:]:
            reading = result["derendered"]
            assert result["error"] is None and result["correct"] is not None
            assert reading["by"] == "openai:reader" and reading["read"] == 0
            assert reading["table"] == [list(r) for r in parse_table(TABLE)]
            assert reading["tokens"] == {"input": 100, "output": 20}
            assert reading["cost"] == pytest.approx(0.14)
        summary = json.loads((run / "summary.json").read_text())
        assert summary["errors"] == 1 and summary["derendered"]["failed"] == 1
        assert summary["derendered"]["cost"] == pytest.approx(0.42)
        recorded = json.loads((run / "run.json").read_text())
        assert recorded["derenderer"] == "openai:reader"
        assert READ_CUE in recorded["derender_prompt"]
        # The rerun asks again only what failed: the one chart, then its question.
        before = dict(script.requests)
        assert main(args) == 0
        assert {c: n - before.get(c, 0) for c, n in script.requests.items()} == \
            {READ_CUE: 1, "Zorblax Holdings": 1}
        assert _results(run)[0]["error"] is None
        # A third run is all in the cache: nothing is asked.
        before = dict(script.requests)
        assert main(args) == 0
        assert dict(script.requests) == before
        assert all(r["cached"] and r["derendered"]["cached"] for r in _results(run))
        # The exact data, the upper bound, beside it in gen report.
        assert main(["eval", str(six), "--model", "openai:answerer", "--base-url", url,
                     "--setting", "chart-as-table", "--limit", "3", "--out", str(exact),
                     "--quiet"]) == 0
    board = tmp_path / "board.html"
    assert main(["report", str(exact), str(run), "--out", str(board)]) == 0
    text = board.read_text()
    assert "The chart as read beside its exact data" in text
    assert "Chart readings (openai:reader)" in text
    for path in run.rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path


def test_the_table_format_writes_the_reading_as_the_chart_data(
        six: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--table-format pipe shows the reader's table as pipe rows, where the prompt's chart is."""
    script = Script({READ_CUE: [TABLE], "Zorblax Holdings": ["Answer: none"]})
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with serve(script) as url:
        assert main(["eval", str(six), "--model", "openai:answerer", "--base-url", url,
                     "--setting", "chart-derendered", "--derenderer", "openai:reader",
                     "--table-format", "pipe", "--limit", "1", "--out", str(tmp_path / "run"),
                     "--quiet"]) == 0
        asked = [t for t in _texts(script) if READ_CUE not in t]
    assert len(asked) == 1
    assert "pipe-separated rows, the header first):\nSeries | Year | Value (USD millions)\n" \
        "Zorblax Holdings | 2099 | 4242\n" in asked[0]
    assert _results(tmp_path / "run")[0]["derendered"]["by"] == "openai:reader"


def test_the_offline_reader_gives_what_ocr_read(six: Path, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("rapidocr", reason="the ocr reader needs rapidocr (pip install "
                        "'hopvista[ocr]')")
    from hopvista.eval.ocr import OcrBaseline, lines_of

    dataset = load(six)
    item = next(iter(dataset))
    path = dataset.image_path(item, "chart")
    assert path is not None
    read = [[w.text for w in line] for line in lines_of(OcrBaseline({}).read(path))]
    script = Script({"Chart, given as its data": ["Answer: none"]})
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    run = tmp_path / "run"
    with serve(script) as url:
        assert main(["eval", str(six), "--model", "openai:answerer", "--base-url", url,
                     "--setting", "chart-derendered", "--limit", "1", "--out", str(run),
                     "--quiet"]) == 0
        (asked,) = _texts(script)
    reading = _results(run)[0]["derendered"]
    assert reading["by"] == "ocr" and reading["table"] == read and reading["read"] == 0
    assert json.dumps(read, ensure_ascii=False, indent=1) in asked
    assert json.loads((run / "run.json").read_text())["derenderer"] == "ocr"
