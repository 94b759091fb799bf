"""The audit a build records in its manifest and card: ``gen audit``'s proxy
solvers run on the items just written, before the card is.

Small builds are not audited (their intervals would span most of the scale; the card says
how to audit them), and large ones are audited on a seeded sample of items.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from hopvista.audit import audit_items, summary
from hopvista.audit.data import Margins, with_folds
from hopvista.audit.mmtables import CARD_SCOPES as MMTABLES_SCOPES
from hopvista.audit.mmtables import audit_mmtables
from hopvista.model import Item
from hopvista.rng import derive

#: Fewest items a build is audited at (smaller ones: ``gen audit`` runs on demand).
AUDIT_MIN_ITEMS = 100
#: Most items the audit of a build reads (a seeded sample of larger builds).
AUDIT_MAX_ITEMS = 4000
#: The audit's folds and seed (``gen audit``'s defaults, so it reproduces the card).
AUDIT_FOLDS, AUDIT_SEED = 5, 0
#: The fields of an item the audit's solvers read; the rest is not kept.
AUDIT_FIELDS = ("kind", "difficulty", "entities", "inputs", "statements")
#: Longest string shared between the audit's items (longer ones are texts, rarely equal).
_SHARED_LENGTH = 40


def build_audit(items_path: Path, count: int, margins: tuple[float, float]
                ) -> dict[str, Any] | None:
    """The manifest's ``audit`` for the items in ``items_path``, or ``None`` below
    :data:`AUDIT_MIN_ITEMS`."""
    if count < AUDIT_MIN_ITEMS:
        return None

    keep = sample(count)
    with items_path.open(encoding="utf-8") as lines:
        dicts = list(_audit_dicts(lines, keep))
    items = with_folds(dicts, AUDIT_FOLDS, AUDIT_SEED)
    report = audit_items(str(items_path.parent), items, Margins(*margins), folds=AUDIT_FOLDS,
                         seed=AUDIT_SEED)
    return summary(report) | {"sampled": keep is not None}


def sample(count: int) -> set[int] | None:
    """The numbers of the items a build of ``count`` audits (``None``: all of them)."""
    if count <= AUDIT_MAX_ITEMS:
        return None
    return set(derive(AUDIT_SEED, "audit", "sample", count).choice(
        count, AUDIT_MAX_ITEMS, replace=False).tolist())


def mmtables_audit(items_path: Path, count: int) -> dict[str, Any] | None:
    """The manifest's ``audit`` of an mmtables build (the solvers that never see the cell
    pictures) for the items in ``items_path``, or ``None`` below :data:`AUDIT_MIN_ITEMS`."""
    if count < AUDIT_MIN_ITEMS:
        return None
    keep = sample(count)
    with items_path.open(encoding="utf-8") as lines:
        items = [Item.model_validate_json(line) for n, line in enumerate(lines)
                 if keep is None or n in keep]
    report = audit_mmtables(str(items_path.parent), items, folds=AUDIT_FOLDS, seed=AUDIT_SEED)
    return summary(report, MMTABLES_SCOPES) | {"sampled": keep is not None}


def _audit_dicts(lines: Iterable[str], keep: set[int] | None) -> Iterator[dict[str, Any]]:
    """The :data:`AUDIT_FIELDS` of the items on ``lines`` (those numbered in ``keep``, or
    all). Keys and short strings are shared between items: column keys, entity ids and
    cell texts repeat in every item, and the sample is held whole while the audit runs."""
    shared: dict[str, str] = {}

    def share(value: Any) -> Any:
        return shared.setdefault(value, value) if isinstance(value, str) \
            and len(value) <= _SHARED_LENGTH else value

    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        return {share(key): share(value) for key, value in pairs}

    for n, line in enumerate(lines):
        if keep is None or n in keep:
            item = json.loads(line, object_pairs_hook=hook)
            yield {key: item[key] for key in AUDIT_FIELDS if key in item}
