"""Building from real SEC data (issue: real sources): AAPL, NVDA and GOOGL, verified."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from hopvista.cli.main import main
from tests.conftest import read_items


@pytest.fixture(scope="module")
def sec_build(sec_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("sec") / "ds"
    assert main(["build", "financial", "--source", "sec", "--data", str(sec_data),
                 "--hops", "3", "-n", "12", "--seed", "1", "--out", str(out)]) == 0
    return out


@pytest.mark.slow
def test_sec_build_verifies(sec_build: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", str(sec_build)]) == 0
    items = read_items(sec_build)
    assert len(items) == 12
    assert {e["id"] for item in items for e in item["entities"]} == {"AAPL", "NVDA", "GOOGL"}
    for item in items:
        assert all(s["modalities"] == ["text", "table", "chart"] for s in item["statements"])


@pytest.mark.slow
def test_table_values_are_the_reported_figures(sec_build: Path) -> None:
    expected = {("AAPL", "sale", 2024): "391,035.0", ("AAPL", "ni", 2024): "93,736.0",
                ("GOOGL", "sale", 2024): "350,018.0"}
    seen = {}
    for item in read_items(sec_build):
        for row in item["inputs"]["table"]["rows"]:
            for column, shown in row["values"].items():
                seen[(row["entity"], column, row["year"])] = shown
        chart = item["inputs"]["chart"]
        for series in chart["series"]:
            for year, shown in zip(chart["years"], series["values"], strict=True):
                seen[(series["entity"], chart["column"]["key"], year)] = shown
    checked = [key for key in expected if key in seen]
    assert checked, "no reference figure appeared in 12 items"
    for key in checked:
        assert seen[key] == expected[key], key


@pytest.mark.slow
def test_text_chunks_are_passages_of_the_companys_own_10k(sec_build: Path,
                                                          sec_data: Path) -> None:
    from hopvista.sources.sec.filings import find_filings, read_filing

    documents: dict[str, str] = {}
    for path in find_filings(sec_data):
        filing = read_filing(path)
        if filing.ticker:
            text = " ".join(p for paras in filing.sections.values() for p in paras)
            documents[filing.ticker] = documents.get(filing.ticker, "") + " " + text
    manifest = json.loads((sec_build / "manifest.json").read_text())
    companies = manifest["source"]["companies"]
    for item in read_items(sec_build):
        for chunk in item["inputs"]["text"]:
            assert chunk["period"] == companies[chunk["entity"]]["text"]["fiscal_year"]
            for paragraph in chunk["text"].split("\n\n"):
                assert paragraph in documents[chunk["entity"]], (chunk["chunk"], paragraph[:80])
            for other, text in documents.items():
                if other != chunk["entity"]:
                    assert chunk["text"].split("\n\n")[0] not in text


def _copy(sec_data: Path, target: Path, tickers: list[str]) -> None:
    for ticker in tickers:
        shutil.copytree(sec_data / "filings" / "sec-edgar-filings" / ticker,
                        target / "sec-edgar-filings" / ticker)
    shutil.copytree(sec_data / "companyfacts", target / "companyfacts")


@pytest.mark.slow
def test_bad_pieces_are_reported_and_the_build_goes_on(sec_data: Path, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    data = tmp_path / "data"
    _copy(sec_data, data, ["AAPL", "NVDA", "GOOGL", "AMZN"])
    broken = data / "sec-edgar-filings" / "XYZ" / "10-K" / "0000000000-24-000001"
    broken.mkdir(parents=True)
    (broken / "full-submission.txt").write_text("<SEC-DOCUMENT>garbage without a 10-K")
    (data / "companyfacts" / "CIK0000000042.json").write_text("{not json")
    out = tmp_path / "ds"
    assert main(["build", "financial", "--source", "sec", "--data", str(data), "--hops", "2",
                 "-n", "8", "--no-images", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "full-submission.txt" in err and "CIK0000000042.json" in err
    assert "AMZN" in err  # no companyfacts and too few years of inline figures: reported
    assert main(["verify", str(out)]) == 0


def test_nothing_usable_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "empty"
    (data / "sec-edgar-filings").mkdir(parents=True)
    assert main(["build", "financial", "--source", "sec", "--data", str(data), "-n", "3",
                 "--no-images", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("gen: error: --data") and not (tmp_path / "o").exists()


def test_sec_needs_data(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["build", "financial", "--source", "sec", "-n", "3",
                 "--out", str(tmp_path / "o")]) == 2
    assert "--source sec needs --data" in capsys.readouterr().err


@pytest.mark.slow
def test_inline_xbrl_fallback_with_three_periods(sec_data: Path, tmp_path: Path) -> None:
    """Companies without companyfacts use the figures tagged in their own 10-K (three years
    of flows), when instances have three periods."""
    out = tmp_path / "ixbrl"
    assert main(["build", "financial", "--source", "sec", "--data", str(sec_data),
                 "--periods", "3", "--years", "2022-2024", "--hops", "1-3", "-n", "24",
                 "--no-images", "--out", str(out)]) == 0
    assert main(["verify", str(out)]) == 0
    companies = json.loads((out / "manifest.json").read_text())["source"]["companies"]
    assert companies["AMZN"]["figures"]["origin"] == "inline-xbrl"
    assert companies["AAPL"]["figures"]["origin"] == "companyfacts"
    types = json.loads((out / "manifest.json").read_text())["config"]["types"]
    assert "CT+TR" not in types  # three periods leave no room for all-year trend pairs
    for item in read_items(out):
        assert len(item["inputs"]["chart"]["years"]) in (1, 3)


def test_brand_names_are_frequent_own_proper_names_only() -> None:
    from hopvista.sources.sec.loader import brand_names

    own = " ".join(["Google Search grew.", "The Company uses Google.", "In September we met."]
                   * 20)
    others = ["The company sells search services. Our company grew in September."] * 5
    assert brand_names(own, others) == ["Google"]


@pytest.mark.slow
def test_fact_claims_do_not_name_the_company_or_its_brands(sec_data: Path) -> None:
    from hopvista.domain import resolve_pack
    from hopvista.sources import SourceOptions, load_world

    world = load_world("sec", resolve_pack("financial"), 0, SourceOptions(data=sec_data))
    companies = world.provenance["companies"]
    assert isinstance(companies, dict) and "Google" in companies["GOOGL"]["aliases"]
    checked = 0
    for entity in world.entities:
        names = [entity.name.split()[0], *companies[entity.id]["aliases"]]
        for chunk in world.chunks[entity.id]:
            for fact in chunk.facts:
                checked += 1
                for name in names:
                    assert name.lower() not in fact.claim.lower(), (name, fact.claim)
    assert checked >= 10
