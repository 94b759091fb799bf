"""The items an audit reads: plain dicts (as the verifier reads them) plus their fold."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hopvista.errors import UserError
from hopvista.model.dataset import load
from hopvista.model.kinds import THREE_STATEMENT
from hopvista.rng import derive

MODALITIES = ("text", "table", "chart")
LEVELS = ("easy", "medium", "hard")


@dataclass(frozen=True)
class Margins:
    """The chart margins of a build (manifest ``config.decidability``)."""

    min_rank_gap: float
    min_trend_step: float


@dataclass(frozen=True)
class AuditItem:
    """One three-statement item: its JSON dict and its cross-fitting fold."""

    data: dict[str, Any]
    fold: int
    memo: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    """What solvers work out from ``data`` once and read in every fold (``data`` is never
    changed, so it stays true)."""

    @property
    def statements(self) -> list[dict[str, Any]]:
        """The item's statements (JSON dicts)."""
        return list(self.data["statements"])

    @property
    def labels(self) -> list[bool]:
        """The stored labels, in surface order."""
        return [bool(s["label"]) for s in self.data["statements"]]

    @property
    def level(self) -> str:
        """``easy``, ``medium`` or ``hard``."""
        return str(self.data["difficulty"])


def assign_folds(count: int, folds: int, seed: int) -> list[int]:
    """A fold per item index, balanced and drawn from the seeded stream ``audit/folds``."""
    order = derive(seed, "audit", "folds", count).permutation(count)
    result = [0] * count
    for rank, index in enumerate(order):
        result[int(index)] = rank % folds
    return result


def with_folds(dicts: list[dict[str, Any]], folds: int, seed: int) -> list[AuditItem]:
    """The three-statement items among ``dicts``, each with its cross-fitting fold."""
    kept = [d for d in dicts if d.get("kind") == THREE_STATEMENT.name
            and len(d.get("statements") or ()) == THREE_STATEMENT.statements]
    fold_of = assign_folds(len(kept), folds, seed)
    return [AuditItem(d, f) for d, f in zip(kept, fold_of, strict=True)]


def read_items(path: str | Path, folds: int, seed: int) -> tuple[list[AuditItem], Margins]:
    """The dataset's three-statement items with their folds, and its chart margins.

    :class:`UserError` when ``path`` is not a dataset or has too few items for ``folds``.
    """
    dataset = load(path)
    config = dataset.manifest.config
    decidability = config.get("decidability") or {}
    try:
        margins = Margins(float(decidability["min_rank_gap"]),
                          float(decidability["min_trend_step"]))
    except (KeyError, TypeError, ValueError):
        raise UserError(f"{path}: manifest.json has no config.decidability margins") from None
    items = with_folds([item.model_dump(mode="json") for item in dataset], folds, seed)
    if len(items) < folds:
        raise UserError(f"{path}: {len(items)} three-statement item(s), fewer than the "
                        f"{folds} folds of the audit")
    return items, margins
