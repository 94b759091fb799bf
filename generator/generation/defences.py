"""What the item builder asks of the defences against proxy solvers.

The defences (which proxy readings each statement must give, how that relaxes over an item's
attempts, and how an instance's table columns are drawn under them) are a strategy the build
passes to :func:`hopvista.generation.item.build_item`; the built-in ones are
:mod:`hopvista.audit.defences`. Generation knows them only through the types below.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from hopvista.generation.instance import Divergence
from hopvista.generation.plan import PlanEntry


class ProxyReading(Protocol):
    """One proxy's reading of a statement, as a statement records it."""

    def to_json(self) -> dict[str, Any]:
        """The public form (``proxy.<modality>`` of a statement)."""
        ...


class ProxyChecker(Protocol):
    """Reads candidate statements of one instance through the proxies that lack a modality."""

    def check(self, modality: str, program: dict[str, Any], truth: bool,
              want: bool | None) -> ProxyReading | None:
        """The ``modality``-less proxy's reading of ``program``, or ``None`` when it does not
        meet the demand ``want`` (agree with ``truth``, disagree, or ``None``: no demand)."""
        ...


@dataclass(frozen=True)
class Demands:
    """What one attempt at an item asks of its statements' proxy readings."""

    reader: ProxyChecker | None = None
    """Reads every candidate statement (``None``: no readings are taken or recorded)."""
    wants: tuple[dict[str, bool] | None, ...] | None = None
    """Per statement slot, whether each proxy reading must agree with the label (``None``
    for every slot, or for one: no demand)."""
    waived: bool = False
    """Whether an item made under these demands is recorded as waived
    (``provenance.agree_waived``): some or all of its plan's demands were let go."""

    def of(self, slot: int) -> dict[str, bool] | None:
        """The demands on statement ``slot``."""
        return None if self.wants is None else self.wants[slot]


NO_DEMANDS = Demands()
"""An attempt that asks nothing and records no readings."""

ProxyItem = Callable[[], dict[str, Any]]
"""Makes what a proxy reads of an instance (its ``inputs`` and ``entities``) when first
asked: most instance draws are given up before any statement is read."""


class Defences(Protocol):
    """A strategy against proxy solvers, asked by the item builder for each plan entry."""

    def divergence(self, entry: PlanEntry) -> Divergence | None:
        """How the table columns of ``entry``'s instances are ordered (``None``: drawn
        uniformly)."""
        ...

    def demands(self, entry: PlanEntry, attempt: int, item: ProxyItem) -> Demands:
        """What attempt ``attempt`` (from 1) at ``entry`` asks of the statements made on the
        instance ``item`` describes."""
        ...
