"""An item against itself and the manifest: ids, levels, references, cells, provenance.

Each function takes an item that passed :func:`hopvista.verify.schema.check_shape` and
returns its problems (without the ``item ID:`` prefix the caller adds).
"""

from __future__ import annotations

from typing import Any

from hopvista.errors import UserError
from hopvista.model.balance import LEVEL_NAMES
from hopvista.program.executor import hops
from hopvista.program.operators import OPERATORS, View, modalities, nodes
from hopvista.program.statement_types import STATEMENT_TYPES
from hopvista.verify.manifest import Expect

Cell = tuple[Any, ...]


BASE_VARIANT = "base"


def expected_base_id(domain: str, seed: int, index: int) -> str:
    """The base id of item ``index`` of a build (docs/format.md, section 2.1)."""
    return f"{domain}-s{seed}-{index:06d}"


def check_identity(item: dict[str, Any], index: int, expect: Expect) -> list[str]:
    """Id, base id, domain, seed, level and variant of the item at line ``index`` (0-based)."""
    problems = []
    if expect.domain is not None and expect.seed is not None:
        base = expected_base_id(expect.domain, expect.seed, index)
        if item["base_id"] != base:
            problems.append(f"base_id {item['base_id'][:60]!r} is not {base!r}, the base id "
                            f"of line {index + 1}")
        wanted = f"{base}.{BASE_VARIANT}"
        if item["id"] != wanted:
            problems.append(f"id is not {wanted!r}, the id of line {index + 1}")
    if item["provenance"]["index"] != index:
        problems.append(f"provenance.index {item['provenance']['index']} is not its line "
                        f"position {index}")
    if expect.domain is not None and item["domain"] != expect.domain:
        problems.append(f"domain {item['domain'][:40]!r} is not the manifest's "
                        f"{expect.domain!r}")
    if expect.seed is not None and item["seed"] != expect.seed:
        problems.append(f"seed {item['seed']} is not the manifest's {expect.seed}")
    if item["difficulty"] != LEVEL_NAMES[item["hops"]]:
        problems.append(f"difficulty {item['difficulty']!r} does not match hops {item['hops']}")
    if expect.levels is not None and item["difficulty"] not in expect.levels:
        problems.append(f"difficulty {item['difficulty']!r} is not a level of the build "
                        f"{list(expect.levels)}")
    variant = item["variant"]
    if variant["name"] != BASE_VARIANT or variant["recipe"] is not None or \
            variant["parameters"] != {}:
        problems.append("variant is not the base variant (name 'base', no recipe, no "
                        "parameters), but a build makes base items only")
    if variant["perturbations"] != [] or variant["markup"] is not None:
        problems.append("variant has perturbations or markup, but this is a base item")
    return problems


def table_years(item: dict[str, Any]) -> list[int]:
    """The years of the item's table, ascending."""
    return sorted({row["year"] for row in item["inputs"]["table"]["rows"]})


def check_inputs(item: dict[str, Any]) -> list[str]:
    """Entities, text chunks, the table grid and the chart agree with one another."""
    problems = []
    ids = [e["id"] for e in item["entities"]]
    names = [e["name"] for e in item["entities"]]
    if len(set(ids)) != len(ids) or len(set(names)) != len(names):
        problems.append("entities: ids and names must be unique")
    inputs = item["inputs"]
    texts = [t["entity"] for t in inputs["text"]]
    if texts and texts != ids:
        problems.append(f"inputs.text: chunks are for {texts}, not one per entity {ids}")
    table, chart = inputs["table"], inputs["chart"]
    keys = [c["key"] for c in table["columns"]]
    if len(set(keys)) != len(keys):
        problems.append("inputs.table.columns: duplicate keys")
    if chart["column"]["key"] in keys:
        problems.append(f"inputs.chart.column {chart['column']['key']!r} is also a table column")
    years = table_years(item)
    grid = [(row["entity"], row["year"]) for row in table["rows"]]
    if grid != [(e, y) for e in ids for y in years]:
        problems.append("inputs.table.rows: not one row per entity and year "
                        "(entities in order, years ascending)")
    if [s["entity"] for s in chart["series"]] != ids:
        problems.append("inputs.chart.series: not one series per entity, in entities order")
    if chart["kind"] == "pie":
        if len(chart["years"]) != 1 or chart["years"][0] not in years:
            problems.append("inputs.chart: a pie chart shows exactly one of the table's years")
    elif chart["years"] != years:
        problems.append(f"inputs.chart.years {chart['years']} are not the table's years {years}")
    return problems


def expected_cells(program: dict[str, Any], item: dict[str, Any]) -> set[Cell]:
    """Every input a statement's program reads (selector hops, and all texts for a fact)."""
    view = View(item)
    cells: set[Cell] = set()
    for node in nodes(program["select"]):
        cells |= OPERATORS.get(node["op"]).cells(node, view)
    if "fact" in program["claim"]:
        fact = program["claim"]["fact"]
        cells |= OPERATORS.get(fact["op"]).cells(fact, view)
    return cells


def _stored_cells(statement: dict[str, Any]) -> set[Cell]:
    return {(c["modality"], c["entity"], c["chunk"]) if c["modality"] == "text"
            else (c["modality"], c["entity"], c["column"], c["year"]) for c in statement["cells"]}


def _references(statement: dict[str, Any], item: dict[str, Any]) -> list[str]:
    """Entities and columns a program names exist, in the modality its hop reads."""
    view = View(item)
    program, problems = statement["program"], []
    claimed = claimed_entity(program["claim"])
    if claimed is not None and claimed not in view.ids:
        problems.append(f"claims unknown entity {claimed[:40]!r}")
    for node in nodes(program["select"]):
        problems += OPERATORS.get(node["op"]).references(node, view)
    return problems


#: The first format with ``only`` claims (CT+TR and AR+TR make them; older builds did not).
ONLY_CLAIM_FORMAT = 4


def _claim_kind(statement: dict[str, Any], version: int) -> str | None:
    """Whether the claim is of the kind its type makes (``entity``, ``only`` or ``fact``;
    a type the verifier does not know, or a dataset before format 4, is not checked)."""

    if version < ONLY_CLAIM_FORMAT:
        return None if "only" not in statement["program"]["claim"] else \
            f"an 'only' claim in a dataset of format {version}"
    try:
        expected = STATEMENT_TYPES.get(statement["type"]).claim
    except UserError:
        return None
    (kind,) = statement["program"]["claim"]
    return None if kind == expected else f"claims {kind!r}, but {statement['type']} " \
        f"statements claim {expected!r}"


def claimed_entity(claim: dict[str, Any]) -> Any:
    """The entity an entity or ``only`` claim names (``None`` for a fact claim)."""
    return claim.get("entity", claim.get("only"))


def _distractor(statement: dict[str, Any], ids: set[str]) -> str | None:
    distractor, claim = statement["distractor"], statement["program"]["claim"]
    if statement["label"]:
        return None if distractor is None else "a true statement has a distractor"
    if distractor is None:
        return "a false statement has no distractor"
    if distractor["replaces"] not in ids or distractor["with"] not in ids or \
            distractor["replaces"] == distractor["with"]:
        return "distractor does not swap two entities of the item"
    claimed = claimed_entity(claim)
    if claimed is not None and claimed != distractor["with"]:
        return "distractor 'with' is not the claimed entity"
    return None


def check_statements(item: dict[str, Any], expect: Expect) -> list[str]:
    """Each statement's type, hops, modalities, references, distractor and cells."""
    problems = []
    ids = {e["id"] for e in item["entities"]}
    for n, statement in enumerate(item["statements"], start=1):
        where = f"statement {n} ({statement['type']})"
        found = []
        if len(hops(statement["program"])) != item["hops"]:
            found.append(f"does not have {item['hops']} hops")
        if statement["modalities"] != modalities(statement["program"]):
            found.append(f"modalities {statement['modalities']} are not "
                         f"{modalities(statement['program'])}, those its program reads")
        if expect.types is not None and statement["type"] not in expect.types:
            found.append("type is not among the manifest's config.types")
        found += _references(statement, item)
        kind = _claim_kind(statement, expect.version)
        if kind is not None:
            found.append(kind)
        distractor = _distractor(statement, ids)
        if distractor is not None:
            found.append(distractor)
        if not found and _stored_cells(statement) != expected_cells(statement["program"], item):
            found.append("cells are not the inputs its program reads")
        problems += [f"{where}: {problem}" for problem in found]
    return problems


def check_provenance(item: dict[str, Any], expect: Expect) -> list[str]:
    """The recorded plan entry is what the item is; the margins are those the dataset is held
    to (the manifest's, or the installed pack's for a built-in pack's dataset)."""
    provenance, problems = item["provenance"], []
    plan = provenance["plan"]
    statements = item["statements"]
    built = {"level": item["hops"], "answer": item["answer"],
             "order": ["+".join(s["modalities"]) for s in statements],
             "types": [s["type"] for s in statements]}
    for key, value in built.items():
        if plan[key] != value:
            problems.append(f"provenance.plan.{key} {plan[key]} differs from the item's {value}")
    if expect.margins is not None:
        recorded = provenance["decidability"]
        margins = (recorded.get("min_rank_gap"), recorded.get("min_trend_step"))
        if margins != expect.margins:
            held = "the manifest's" if expect.pack is None else \
                f"the installed pack {expect.pack!r}'s {list(expect.margins)}"
            shown = repr(list(margins))
            shown = shown if len(shown) <= 60 else shown[:57] + "..."
            problems.append(f"provenance.decidability margins {shown} differ from {held}")
    return problems
