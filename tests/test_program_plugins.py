"""A statement type whose operator is registered from outside hopvista (tests/plugin_lowest.py,
one file) gets what a built-in one gets: it builds, ``gen verify`` holds its nodes to the
fields its operator declares, and the proxy solvers (the build's defences and ``gen audit``)
read it through the lenient reading its operator declares."""

from __future__ import annotations

import importlib.util
import shutil
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from hopvista.cli.main import main
from hopvista.program.operators import OPERATORS
from hopvista.program.statement_types import STATEMENT_TYPES
from hopvista.sources import SOURCES
from tests.conftest import read_items, reseal
from tests.test_plugins import DOMAIN as PLUGIN_DOMAIN

DOMAIN = PLUGIN_DOMAIN.replace("source: toy", "source: lowest_orchards")
"""The orchards pack of the plug-in tests, drawn from the plug-in's own source."""


@pytest.fixture(scope="module")
def plugin() -> Iterator[ModuleType]:
    """tests/plugin_lowest.py loaded as a plug-in (its registrations), removed afterwards."""
    spec = importlib.util.spec_from_file_location(
        "plugin_lowest", Path(__file__).with_name("plugin_lowest.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    yield module
    STATEMENT_TYPES.unregister("LOWEST")
    OPERATORS.unregister("lowest")
    SOURCES.unregister("lowest_orchards")


@pytest.fixture(scope="module")
def dataset(plugin: ModuleType, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Twelve one-hop items of the orchards pack, LOWEST among their types."""
    root = tmp_path_factory.mktemp("orchards")
    (root / "orchards").mkdir()
    (root / "orchards" / "domain.yaml").write_text(DOMAIN)
    plugin.LENIENT_READS.clear()
    out = root / "ds"
    assert main(["build", str(root / "orchards"), "--hops", "1", "-n", "12", "--no-images",
                 "--out", str(out)]) == 0
    return out


def _lowest_statement(items: list[dict[str, Any]]) -> tuple[int, int]:
    """(item, statement) positions of the first LOWEST statement."""
    for i, item in enumerate(items):
        for j, statement in enumerate(item["statements"]):
            if statement["type"] == "LOWEST":
                return i, j
    raise AssertionError("no LOWEST statement was built")


def test_a_plugin_type_builds_verifies_and_meets_the_build_defences(
        plugin: ModuleType, dataset: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lowest = [s for item in read_items(dataset) for s in item["statements"]
              if s["type"] == "LOWEST"]
    assert {s["label"] for s in lowest} == {True, False}
    assert all(s["program"]["select"]["op"] == "lowest" for s in lowest)
    # the build's defences read its statements as a solver without the table would
    assert plugin.LENIENT_READS
    capsys.readouterr()
    assert main(["verify", str(dataset)]) == 0, capsys.readouterr()
    assert "fields of program operator" not in capsys.readouterr().out  # all are checked


def test_the_audit_reads_a_plugin_node_leniently(plugin: ModuleType, dataset: Path) -> None:
    plugin.LENIENT_READS.clear()
    assert main(["audit", str(dataset)]) in (0, 1)  # 1: twelve items are too few to pass
    assert plugin.LENIENT_READS  # the no-table solver read LOWEST on its imputed table


@pytest.mark.parametrize(("change", "message"), [
    (lambda node: node.update(year=str(node["year"])),
     "field 'statements.{j}.program.select.year': expected a whole number, got '{year}'"),
    (lambda node: node.update(note="lowest of all"),
     "field 'statements.{j}.program.select': unknown key(s) 'note' (a program may hold only "
     "the fields of its op)"),
    (lambda node: node.pop("column"),
     "field 'statements.{j}.program.select.column' is missing"),
    (lambda node: node.update(op="rk"),
     "field 'statements.{j}.program.select.op': expected 'lowest', got 'rk'"),
], ids=["year-as-text", "extra-field", "missing-field", "another-op"])
def test_verify_refuses_a_malformed_plugin_node(
        change: Any, message: str, dataset: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    forged = tmp_path / "forged"
    shutil.copytree(dataset, forged)
    items = read_items(forged)
    i, j = _lowest_statement(items)
    node = items[i]["statements"][j]["program"]["select"]
    year = node["year"]
    change(node)
    reseal(forged, items)
    capsys.readouterr()
    assert main(["verify", str(forged)]) != 0
    out = capsys.readouterr()
    assert message.format(j=j, year=year) in out.out + out.err
