"""The Python API: one function for every ``gen`` command, the same checks as the command, and
typed results a Python user can rely on."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

import hopvista
from hopvista.cli.main import make_parser
from hopvista.errors import UserError
from tests.conftest import read_items

GOLDEN = Path(__file__).parent / "golden" / "format6"
IMPORTS = Path(__file__).parent / "data" / "imports"


def _commands(parser: argparse.ArgumentParser, prefix: str = "") -> set[str]:
    """Every runnable command of ``parser``: ``build``, ``fetch sec``, ..."""
    found: set[str] = set()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                inner = _commands(sub, f"{prefix}{name} ")
                found |= inner or {prefix + name}
    return found


def test_every_gen_command_has_a_documented_api_function() -> None:
    assert _commands(make_parser()) == set(hopvista.COMMANDS)
    for command, functions in hopvista.COMMANDS.items():
        for function in functions:
            assert function.__name__ in hopvista.__all__, command
            assert f"``gen {command}" in (function.__doc__ or ""), command


def test_api_names_do_not_hide_the_package_s_subpackages() -> None:
    mapped = {"augment", "sources", "templates", "themes"}  # packages from other folders
    folders = mapped | {p.name for p in Path(hopvista.__file__).parent.iterdir() if p.is_dir()}
    assert not (folders & set(hopvista.__all__)) - {"verify"}


@pytest.mark.slow  # a fresh interpreter
def test_import_hopvista_and_gen_s_parser_load_no_stage_of_the_package() -> None:
    code = ("import sys, hopvista; print(sorted(m for m in sys.modules "
            "if m.startswith('hopvista') or m in ('numpy', 'pydantic', 'playwright'))); "
            "from hopvista.cli.main import make_parser; make_parser(); "
            "print('hopvista.api' in sys.modules, 'playwright' in sys.modules)")
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True).stdout.splitlines()
    assert shown == ["['hopvista', 'hopvista.version']", "False False"]


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("api") / "small"
    manifest = hopvista.build("financial", out, count=12, seed=5, images=False)
    assert manifest["counts"]["items"] == 12
    return out


def test_build_load_verify_and_preview(small: Path) -> None:
    dataset = hopvista.load(small)
    assert len(dataset) == 12 and dataset[0].id == read_items(small)[0]["id"]
    seen: list[str] = []
    report = hopvista.verify(str(small), on_problem=seen.append)
    assert report.ok and report.items == 12 and seen == []
    page = hopvista.preview(small, limit=3)
    assert page == small / "preview.html" and page.is_file()


def test_verify_hands_each_problem_to_the_caller_as_it_is_found(small: Path,
                                                                 tmp_path: Path) -> None:
    forged = tmp_path / "forged"
    forged.mkdir()
    for name in ("items.jsonl", "manifest.json"):
        (forged / name).write_bytes((small / name).read_bytes())
    (forged / "items.jsonl").write_text("", encoding="utf-8")
    seen: list[str] = []
    report = hopvista.verify(forged, on_problem=seen.append)
    assert not report.ok and seen == report.problems


def test_build_refuses_ray_flags_without_ray(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="--address and --shards apply to --executor ray"):
        hopvista.build("financial", tmp_path / "o", count=2, images=False, shards=2)
    with pytest.raises(UserError, match="--shard builds one slice here"):
        hopvista.build("financial", tmp_path / "o", count=2, executor="ray", shard=(1, 2))
    assert not (tmp_path / "o").exists()


def test_shards_merge_into_the_single_build(small: Path, tmp_path: Path) -> None:
    shards = [tmp_path / f"s{i}" for i in (1, 2)]
    for index, shard in enumerate(shards, start=1):
        hopvista.build("financial", shard, count=12, seed=5, images=False, shard=(index, 2))
    manifest = hopvista.merge_shards([str(shard) for shard in reversed(shards)],
                                     tmp_path / "merged")
    assert manifest["counts"]["items"] == 12
    assert (tmp_path / "merged" / "items.jsonl").read_bytes() == \
        (small / "items.jsonl").read_bytes()
    with pytest.raises(UserError, match="no shard given"):
        hopvista.merge_shards([], tmp_path / "none")


def test_evaluate_then_report(small: Path, tmp_path: Path) -> None:
    summary = hopvista.evaluate(small, model="oracle", out=tmp_path / "oracle", limit=6)
    assert summary["accuracy"]["value"] == 1.0 and summary["answered"] == 6
    hopvista.evaluate(small, model="random", out=tmp_path / "random", limit=6)
    page = hopvista.report([tmp_path / "oracle", str(tmp_path / "random")],
                           tmp_path / "board.html")
    assert page == tmp_path / "board.html" and "oracle" in page.read_text(encoding="utf-8")


@pytest.mark.parametrize(("keywords", "named"), [
    ({"concurrency": 0}, "--concurrency"), ({"limit": 0}, "--limit"),
    ({"metrics": ["nope"]}, "--metric"),
])
def test_evaluate_refuses_bad_keywords_before_writing(small: Path, tmp_path: Path,
                                                      keywords: dict[str, object],
                                                      named: str) -> None:
    with pytest.raises(UserError, match=named):
        hopvista.evaluate(small, model="oracle", out=tmp_path / "run", **keywords)  # type: ignore[arg-type]
    assert not (tmp_path / "run").exists()


def test_export_harness_writes_a_task(tmp_path: Path) -> None:
    result = hopvista.export_harness(GOLDEN, fmt="inspect", out=tmp_path / "task",
                                     setting="no-chart", limit=4)
    assert (result.out, result.format, result.items) == (tmp_path / "task", "inspect", 4)
    assert (tmp_path / "task" / "README.md").is_file()
    with pytest.raises(UserError, match="--format: no format 'nope'"):
        hopvista.export_harness(GOLDEN, fmt="nope", out=tmp_path / "other")


def test_run_audit_returns_the_report_and_writes_its_json(small: Path, tmp_path: Path) -> None:
    report = hopvista.run_audit(small, json_file=tmp_path / "audit.json", folds=2,
                                max_hard_set=1, max_statement=1, max_blind=1)
    assert report.checks and all(check.passed for check in report.checks)
    written = json.loads((tmp_path / "audit.json").read_text(encoding="utf-8"))
    assert written["format"] == "hopvista-audit" and written["items"] == 12


def test_run_audit_checks_its_limits_and_json_file_first(small: Path, tmp_path: Path) -> None:
    with pytest.raises(UserError, match="--max-blind: must be a fraction"):
        hopvista.run_audit(small, max_blind=2)
    with pytest.raises(UserError, match="--folds"):
        hopvista.run_audit(small, folds=1)
    theirs = tmp_path / "notes.json"
    theirs.write_text('{"mine": true}\n', encoding="utf-8")
    with pytest.raises(UserError, match="notes.json"):
        hopvista.run_audit(small, json_file=theirs)
    assert theirs.read_text(encoding="utf-8") == '{"mine": true}\n'


def test_make_variants_refuses_an_unknown_variant_before_writing(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="bogus"):
        hopvista.make_variants(IMPORTS / "wtq", tmp_path / "o", variants=["web", "bogus"])
    assert not (tmp_path / "o").exists()


@pytest.mark.slow  # renders tables in Chromium
def test_make_variants_takes_a_list_of_variants(tmp_path: Path) -> None:
    manifest = hopvista.make_variants(IMPORTS / "wtq", tmp_path / "o", variants=["web"])
    assert [v["name"] for v in manifest["config"]["variants"]] == ["web"]
    assert hopvista.verify(tmp_path / "o", source=IMPORTS / "wtq").ok


def test_catalogue_and_statement_types() -> None:
    found = hopvista.catalogue()
    assert "financial" in found.domains and "synthetic" in found.sources
    assert "web" in found.variants and found.statement_types
    made = hopvista.statement_types("financial")
    assert set(made) == set(found.statement_types) and None in made.values()


def test_json_schema_of_an_item_and_of_a_manifest() -> None:
    item, manifest = hopvista.json_schema(), hopvista.json_schema(manifest=True)
    assert item["$schema"].startswith("https://json-schema.org/")
    assert item["title"] == "Item" and manifest["title"] == "Manifest"


def test_new_domain_writes_a_skeleton_and_never_replaces_one(tmp_path: Path) -> None:
    folder = hopvista.new_domain("orchards", directory=tmp_path)
    assert folder == tmp_path / "orchards"
    assert sorted(p.name for p in folder.iterdir()) == ["domain.yaml", "panel.csv",
                                                         "texts.jsonl"]
    before = (folder / "domain.yaml").read_bytes()
    with pytest.raises(UserError, match="already exists"):
        hopvista.new_domain("orchards", directory=str(tmp_path))
    assert (folder / "domain.yaml").read_bytes() == before


@pytest.mark.parametrize(("tickers", "years", "named"), [
    ("AAPL,$$", [2023], "--tickers"), (["AAPL"], [1900], "--years"),
    (["AAPL"], "2023", "--user-agent"),
])
def test_fetch_sec_refuses_bad_input_before_asking(tmp_path: Path, tickers: str | list[str],
                                                   years: str | list[int], named: str) -> None:
    agent = "nobody" if named == "--user-agent" else "Jane Doe jane@example.com"
    with pytest.raises(UserError, match=named):
        hopvista.fetch_sec(tickers, years, tmp_path / "sec", user_agent=agent)
    assert not (tmp_path / "sec").exists()


def test_the_api_page_shows_every_function() -> None:
    page = (Path(__file__).parent.parent / "docs" / "api.md").read_text(encoding="utf-8")
    headings = {line[3:].strip() for line in page.splitlines() if line.startswith("## ")}
    functions = {f.__name__ for group in hopvista.COMMANDS.values() for f in group}
    assert functions | {"load"} == headings
