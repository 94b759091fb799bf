"""What a statement's program asks of a reader: skill counts and reasoning steps.

Each node of a program adds its operator's counts (:data:`NODE_SKILLS`): ``aggregation``
for a node that reduces many cells to one answer (a rank over entities, a condition over every
period, a sum), ``numeric`` for one that computes or compares numbers (a threshold, a sum or
difference, a trend's steps), ``logical`` for one that combines or filters (a conjunction, a
condition, a claim that only one entity qualifies). ``lookup`` is not counted per node: it is
the number of distinct cells the statements read (their ``cells``). An operator a plug-in
registers without an entry here adds nothing but its lookups. Reasoning steps are the
program's hops (:func:`hopvista.program.executor.hops`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from hopvista.program.executor import hops
from hopvista.program.operators import nodes

SKILLS = ("lookup", "aggregation", "numeric", "logical")

NODE_SKILLS: Mapping[str, Mapping[str, int]] = {
    "any": {},
    "and": {"logical": 1},
    "ct": {"numeric": 1, "logical": 1},
    "ct_all": {"aggregation": 1, "numeric": 1, "logical": 1},
    "ar": {"numeric": 2, "logical": 1},
    "ar_sum": {"aggregation": 1, "numeric": 2, "logical": 1},
    "tr": {"numeric": 1},
    "tr_all": {"aggregation": 1, "numeric": 1},
    "rk": {"aggregation": 1, "numeric": 1},
    "rk_when": {"aggregation": 1, "numeric": 2, "logical": 1},
    "rk_among": {"aggregation": 1, "numeric": 1, "logical": 1},
    "fact": {},
}
"""Per built-in operator, what one of its nodes adds to each skill (absent: 0)."""


def _cell_key(cell: Mapping[str, Any]) -> tuple[Any, ...]:
    """A read cell as a hashable key (its modality, entity and what it points at)."""
    return tuple(sorted((str(k), str(v)) for k, v in cell.items()))


def program_skills(program: Mapping[str, Any]) -> dict[str, int]:
    """The aggregation, numeric and logical counts of one program (lookup left at 0)."""
    counts = dict.fromkeys(SKILLS, 0)
    claim = program.get("claim") or {}
    select = program["select"]
    found = [*nodes(select), *([select] if select.get("op") == "and" else [])]
    if "fact" in claim:
        found.append(claim["fact"])
    for node in found:
        for skill, count in NODE_SKILLS.get(str(node.get("op")), {}).items():
            counts[skill] += count
    if "only" in claim:
        counts["logical"] += 1
    return counts


def statement_skills(statements: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """The skill counts of a set of statements (their ``program`` and ``cells``): node counts
    added up, ``lookup`` the distinct cells they read."""
    totals = dict.fromkeys(SKILLS, 0)
    cells: set[tuple[Any, ...]] = set()
    for statement in statements:
        for skill, count in program_skills(statement["program"]).items():
            totals[skill] += count
        cells.update(_cell_key(cell) for cell in statement.get("cells") or ())
    totals["lookup"] = len(cells)
    return totals


def reasoning_steps(statements: Iterable[Mapping[str, Any]]) -> int:
    """The hops of the statements' programs together."""
    return sum(len(hops(dict(statement["program"]))) for statement in statements)
