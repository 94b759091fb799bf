"""The audit a build records in its manifest and card (issue 9): ``gen audit``'s proxy
solvers run on the items just written, before the card is.

Small builds are not audited (their intervals would span most of the scale; the card says
how to audit them), and large ones are audited on a seeded sample of items.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

#: Fewest items a build is audited at (smaller ones: ``gen audit`` runs on demand).
AUDIT_MIN_ITEMS = 100
#: Most items the audit of a build reads (a seeded sample of larger builds).
AUDIT_MAX_ITEMS = 4000
#: The audit's folds and seed (``gen audit``'s defaults, so it reproduces the card).
AUDIT_FOLDS, AUDIT_SEED = 5, 0


def build_audit(items_path: Path, count: int, margins: tuple[float, float]
                ) -> dict[str, Any] | None:
    """The manifest's ``audit`` for the items in ``items_path``, or ``None`` below
    :data:`AUDIT_MIN_ITEMS`."""
    if count < AUDIT_MIN_ITEMS:
        return None
    from hopvista.audit import audit_items, summary
    from hopvista.audit.data import Margins, with_folds
    from hopvista.rng import derive

    keep = None
    if count > AUDIT_MAX_ITEMS:
        keep = set(derive(AUDIT_SEED, "audit", "sample", count).choice(
            count, AUDIT_MAX_ITEMS, replace=False).tolist())
    with items_path.open(encoding="utf-8") as lines:
        dicts = [json.loads(line) for n, line in enumerate(lines) if keep is None or n in keep]
    items = with_folds(dicts, AUDIT_FOLDS, AUDIT_SEED)
    report = audit_items(str(items_path.parent), items, Margins(*margins), folds=AUDIT_FOLDS,
                         seed=AUDIT_SEED)
    return summary(report) | {"sampled": keep is not None}
