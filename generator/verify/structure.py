"""A generated item's table structure and attributes, checked again (docs/format.md, 2.6).

A structure must describe its table (groups and related tables naming its columns, entities
and periods, each value cell in one table) and lay out every logical cell of the table once,
so that the labels ``gen verify`` proves from the logical cells are proved from what the
structure shows (the table image's recorded cells are then checked against the same logical
cells, :mod:`hopvista.verify.images`). The attributes an item records are computed again from
its table and its programs and must be the same.
"""

from __future__ import annotations

from typing import Any

from hopvista.augment.structures import (
    MEASURE_HEADERS,
    item_attributes,
    layout_problem,
    note_texts,
    structure_problem,
    structured_layout,
)
from hopvista.model import Item, Table


def check_structure(item: dict[str, Any]) -> list[str]:
    """Problems with an item's table structure and attributes (a well-formed item)."""
    raw = item["inputs"].get("table")
    if item.get("attributes") is None and not (isinstance(raw, dict)
                                              and raw.get("structure") is not None):
        return []  # a build without --structure
    typed = Item.model_validate(item)
    table = typed.inputs.table
    if not isinstance(table, Table) or table.structure is None:
        return ["records attributes, but its table has no structure"]
    problem = structure_problem(table)
    if problem is None:
        names = {e.id: e.name for e in typed.entities}
        laid_out = layout_problem(table, structured_layout(table, names))
        problem = None if laid_out is None else f"its table's structure {laid_out}"
    if problem is not None:
        return [f"inputs.table: {problem}"]
    kind = table.structure.type
    planned = (typed.provenance.plan or {}).get("structure")
    problems = []
    if planned is not None and planned != kind:
        problems.append(f"inputs.table.structure.type is {kind!r}, but the plan gave "
                        f"{planned!r}")
    if typed.attributes is None:
        return [*problems, "its table has a structure, but it records no attributes"]
    recorded = typed.attributes.model_dump()
    computed = item_attributes(typed).model_dump()
    for where, (got, wanted) in _differences(recorded, computed, "attributes"):
        problems.append(f"{where} is {got!r}, but its table and programs give {wanted!r}")
    return problems


def noted_texts(item: dict[str, Any]) -> dict[tuple[int, int], str]:
    """What a ``text-mixed`` table shows instead of its noted column's labels and values
    (its notes header and sentences), by logical cell; nothing for any other table."""
    table = item["inputs"]["table"]
    if not isinstance(table, dict) or not table.get("structure"):
        return {}
    names = {e["id"]: e["name"] for e in item["entities"]}
    return note_texts(Table.model_validate(table), names)


def check_group_headers(item: dict[str, Any], layout: dict[str, Any]) -> str | None:
    """Why the headers the table image records that its structure adds (``render.groups``:
    the labels of its groups of columns, or a long-format table's measure and value headers)
    are not those, in order, each with a box, or ``None``."""
    table = item["inputs"]["table"]
    structure = table.get("structure") if isinstance(table, dict) else None
    tables = structure.get("tables") if isinstance(structure, dict) else None
    wanted = [] if not isinstance(structure, dict) or tables else \
        list(MEASURE_HEADERS) if structure.get("long_format") else \
        [group["label"] for group in structure.get("groups") or ()]
    recorded = layout.get("groups") or []
    if not isinstance(recorded, list) or not all(isinstance(g, dict) for g in recorded):
        return "table image: render.groups is not a list of headers"
    texts = [group.get("text") for group in recorded]
    if texts != wanted:
        return f"table image: render.groups show {texts}, not the structure's groups {wanted}"
    for group in recorded:
        box = group.get("box")
        if not (isinstance(box, list) and len(box) == 4 and box[2] > 0 and box[3] > 0):
            return f"table image: render.groups {group.get('text')!r} has no box"
    return None


def _differences(got: Any, wanted: Any, path: str) -> list[tuple[str, tuple[Any, Any]]]:
    """The leaves where ``got`` differs from ``wanted``, by dotted path."""
    if isinstance(got, dict) and isinstance(wanted, dict):
        return [found for key in sorted(set(got) | set(wanted))
                for found in _differences(got.get(key), wanted.get(key), f"{path}.{key}")]
    return [] if got == wanted else [(path, (got, wanted))]
