"""A third-party package extends hopvista without an edit to the engine: a statement type
(with the verifier's definition of its new program operator) and a source, found through
Python entry points, build a dataset from a pack folder that verifies.

The plug-in lives in a temporary folder with its own ``.dist-info`` (what ``pip install``
would leave); the build and the verify run in subprocesses that only see it on their path.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

PLUGIN = '''
"""toyplug: the LOWEST statement type, its verifier operator, and the ``toy`` source."""

from decimal import Decimal

from hopvista.rng import derive
from hopvista.sources import source
from hopvista.program.statement_types import selector
from hopvista.statements.selection import Selection, num, table_cells
from hopvista.program.executor import Undecidable
from hopvista.program.operators import operator
from hopvista.world import Entity, World


@selector("LOWEST", modalities=("table",), variables=("column", "period"),
          operators=("lowest",), fact_form=False)
def lowest(instance, rng, words, margins):
    """The entity with the lowest value of a table column in the last period."""
    year = instance.periods[-1]
    columns = list(instance.table_columns)
    for i in rng.permutation(len(columns)):
        column = columns[int(i)]
        values = {e: instance.value(e, column.key, year) for e in instance.ids}
        ranked = sorted(values.values())
        if ranked[0] == ranked[1]:
            continue
        low = min(values, key=values.get)
        yield Selection(picked=frozenset({low}),
                        node={"op": "lowest", "column": column.key, "year": year},
                        cells=table_cells(instance, [column.key], [year]),
                        words={"column": column.label, "period": instance.show(year)},
                        modalities=frozenset({"table"}))


def _cells(node, view):
    return {("table", e, node["column"], node["year"]) for e in view.ids}


@operator("lowest", ("table",), cells=_cells,
          variables=lambda n, v: {"column": v.label(n["column"]), "period": v.show(n["year"])})
def lowest_op(node, ctx):
    """The verifier's own reading of ``lowest``."""
    values = {e: ctx.cell(e, node["column"], node["year"]) for e in ctx.entities}
    ranked = sorted(values.values())
    if ranked[0] == ranked[1]:
        raise Undecidable("a tie for the lowest value")
    return frozenset(e for e, v in values.items() if v == ranked[0])


@source("toy")
def load_toy(pack, seed, options):
    """Twelve orchards, six seasons, the pack's columns, seeded values."""
    periods = list(range(2001, 2007))
    columns = pack.columns()
    entities = [Entity(f"O{i:02d}", name) for i, name in enumerate(
        ["Appleby", "Brookfield", "Cedar Hill", "Dunmore", "Elmstead", "Fairholt",
         "Glenrock", "Hawthorn", "Ivydale", "Juniper Vale", "Kestrel", "Larchmont"])]
    values = {}
    for i, entity in enumerate(entities):
        rng = derive(seed, "toy", i)
        values[entity.id] = {
            key: [Decimal(str(round(float(rng.uniform(10, 500)), column.precision)))
                  for _ in periods]
            for key, column in columns.items()}
    return World(domain=pack.name, source="toy", entities=entities, periods=periods,
                 columns=columns, values=values, chunks={}, provenance={"toy": True})
'''

ENTRY_POINTS = """\
[hopvista.statement_types]
toyplug = toyplug

[hopvista.operators]
toyplug = toyplug

[hopvista.sources]
toyplug = toyplug
"""

DOMAIN = """\
format: 2
name: orchards
title: Orchards (a plug-in's domain)
source: toy
entity: {singular: orchard, plural: orchards, label: Orchard}
period: {name: Season, plural: seasons}
documents: false
instance: {entities: 3, periods: 5, table_columns: 3}
columns:
  - {key: apples, label: Apples Picked, unit: tonnes, precision: 1}
  - {key: pears, label: Pears Picked, unit: tonnes, precision: 1}
  - {key: plums, label: Plums Picked, unit: tonnes, precision: 1}
  - {key: rain, label: Rainfall, unit: mm, precision: 0}
  - {key: hours, label: Sunshine Hours, unit: h, precision: 0}
question: |-
  Read the table and the chart about {{ names }}. Which statements are true?
  {% for s in statements %}{{ loop.index }}. {{ s }}
  {% endfor %}Answer with the numbers of the true statements, or "none".
words:
  cmp: {">": more than, "<": less than}
  sign: {"+": plus, "-": minus}
  order: {max: highest, min: lowest}
  direction: {increasing: rising, decreasing: falling}
  direction_verb: {increasing: rose, decreasing: fell}
forms:
  CT: ["The {{ noun }} with {{ column }} {{ cmp }} {{ threshold }} in {{ period }} is
        {{ entity }}."]
  RK: ["In {{ period }}, {{ entity }} had the {{ order }} {{ column }} of the {{ plural }}."]
  LOWEST: ["In {{ period }}, {{ entity }} had less {{ column }} than any other {{ noun }}."]
"""


def _run(args: list[str], path: Path | None, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(path) if path else ""}
    return subprocess.run([sys.executable, "-m", "hopvista.cli.main", *args], env=env,
                          cwd=cwd, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def plugin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("site")
    (root / "toyplug.py").write_text(textwrap.dedent(PLUGIN))
    info = root / "toyplug-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toyplug\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(ENTRY_POINTS)
    return root


def test_a_plugin_type_and_source_build_and_verify(plugin: Path, tmp_path: Path) -> None:
    pack = tmp_path / "orchards"
    pack.mkdir()
    (pack / "domain.yaml").write_text(DOMAIN)
    out = tmp_path / "ds"
    built = _run(["build", str(pack), "--hops", "1", "-n", "12", "--no-images",
                  "--out", str(out)], plugin, tmp_path)
    assert built.returncode == 0, built.stderr
    items = [json.loads(line) for line in (out / "items.jsonl").open()]
    types = {s["type"] for item in items for s in item["statements"]}
    assert "LOWEST" in types and not any(t.startswith("FC") for t in types)
    assert all(item["inputs"]["text"] == [] for item in items)
    lowest = [s for item in items for s in item["statements"] if s["type"] == "LOWEST"]
    assert {s["label"] for s in lowest} == {True, False}
    assert all(s["text"].endswith("than any other orchard.") for s in lowest)
    manifest = json.loads((out / "manifest.json").read_text())
    assert "LOWEST" in manifest["config"]["types"]

    verified = _run(["verify", str(out)], plugin, tmp_path)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    # its operator declares no node fields: verify says what it therefore leaves unchecked
    assert "not checked: the fields of program operator 'lowest'" in verified.stdout

    # Without the plug-in, the verifier does not know the operator: it says so, it does not
    # take the stored labels on trust.
    blind = _run(["verify", str(out)], None, tmp_path)
    assert blind.returncode != 0
    assert "LOWEST" in blind.stdout + blind.stderr or "lowest" in blind.stdout + blind.stderr


def test_without_the_plugin_the_source_is_unknown(tmp_path: Path) -> None:
    pack = tmp_path / "orchards"
    pack.mkdir()
    (pack / "domain.yaml").write_text(DOMAIN)
    built = _run(["build", str(pack), "-n", "3", "--no-images", "--out",
                  str(tmp_path / "o")], None, tmp_path)
    assert built.returncode == 2
    assert "unknown statement type 'LOWEST'" in built.stderr
    assert len(built.stderr.strip().splitlines()) == 1
