"""The balance a plan promises, in the terms a dataset records it: level names, the modality
slots of a level and their orders, and the shares of proxy-agreement demands. The plan draws
by them (:mod:`hopvista.generation.plan`) and ``gen verify`` checks a dataset against them."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import permutations, product
from typing import Any

from hopvista.model.kinds import THREE_STATEMENT
from hopvista.program.statement_types import types_for

LEVEL_NAMES = {1: "easy", 2: "medium", 3: "hard"}


def slot_groups(level: int, types: tuple[str, ...],
                available: tuple[str, ...] | None = None) -> dict[str, list[str]]:
    """Modality groups of a level among the domain's ``types`` and the types that fill each
    (FCMR Table 12), limited to ``available`` types when given (a group may then be empty)."""
    return {group: [n for n in names if available is None or n in available]
            for group, names in types_for(level, types).items()}


def slot_orders(groups: list[str]) -> list[tuple[str, ...]]:
    """The orders of an item's statement slots over a level's modality groups: with three
    slots (FCMR), the 6 permutations of three groups, every 3-slot sequence using both of two
    groups, the one sequence of one group, and every 3-permutation of more than three."""
    slots = THREE_STATEMENT.statements
    if len(groups) >= slots:
        return list(permutations(groups, slots))
    return [seq for seq in product(groups, repeat=slots) if set(seq) == set(groups)]


def agreement_key(wants: dict[str, bool]) -> str:
    """How the manifest names a combination of agreement demands
    (``"chart agrees, table disagrees"``; ``"none"`` for a type no proxy reads)."""
    return ", ".join(f"{m} {'agrees' if wants[m] else 'disagrees'}" for m in sorted(wants)) \
        or "none"


def agreement_shares(slots: Iterable[tuple[str, bool, dict[str, bool]]],
                     waived: Iterable[str] = ()) -> dict[str, dict[str, Any]]:
    """Per type and label, how many statements carry each combination of demands (as built:
    ``slots`` of the items that met them), and per type how many were ``waived``."""
    out: dict[str, dict[str, Any]] = {}
    for name, truth, wants in slots:
        cell = out.setdefault(name, {}).setdefault("true" if truth else "false", {})
        key = agreement_key(wants)
        cell[key] = cell.get(key, 0) + 1
    for name in waived:
        cell = out.setdefault(name, {})
        cell["waived"] = cell.get("waived", 0) + 1
    return {name: {label: dict(sorted(c.items())) if isinstance(c, dict) else c
                   for label, c in sorted(v.items())}
            for name, v in sorted(out.items())}
