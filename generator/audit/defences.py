"""The defences against proxy solvers, as the strategy a build passes to the item builder.

The balance plan tells every statement that reads the chart or the table whether each proxy
reading (:mod:`hopvista.audit.proxy`) must agree with its label. :class:`ProxyDefences` holds
those demands on an item's attempts (instance draws) in :data:`PHASES`, each letting a little
more go, and draws the instances' table columns so that a "disagree" can be met about as
often as an "agree" (:data:`COLUMN_JITTER`). :data:`NO_DEFENCES` is the strategy of a build
without them (``gen build --no-defences``). docs/audit.md gives the phases' figures.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hopvista.audit.proxy import ProxyModels, ProxyReader
from hopvista.generation.defences import NO_DEMANDS, Defences, Demands, ProxyItem
from hopvista.generation.instance import Divergence
from hopvista.generation.plan import PlanEntry
from hopvista.world import World


@dataclass(frozen=True)
class DemandPhase:
    """How a run of attempts holds an item's proxy-agreement demands."""

    last: int
    """The phase's last attempt (instance draw)."""
    predictors: int = 1
    """Through how many of the best shown predictors of the chart column the no-chart demand
    holds (:attr:`~hopvista.audit.proxy.ProxyReader.predictors`)."""
    relaxed: bool = False
    """Whether a reading that decides nothing meets any demand."""
    held: tuple[str, ...] | None = None
    """The modalities whose demands are held (``None``: all). An item built while some are
    let go is recorded as waived (``provenance.agree_waived``), like one built with none."""
    one_wrong: bool = False
    """Whether the phase holds, instead of each statement's demands, one on the whole item:
    the reading of a ``held`` modality disagrees with the label of one statement, through
    each of :attr:`predictors` (held only where two or more statements read it). Each
    attempt asks it of another of those statements in turn."""

    def wants(self, entry: PlanEntry, slot: int, attempt: int = 0) -> dict[str, bool]:
        """The demands of ``slot`` this phase holds at attempt ``attempt``."""
        if self.one_wrong:
            return self._one_wrong(entry, slot, attempt)
        return {m: v for m, v in entry.wants(slot).items()
                if self.held is None or m in self.held}

    def _one_wrong(self, entry: PlanEntry, slot: int, attempt: int) -> dict[str, bool]:
        held = self.held or ()
        reading = [k for k in entry.slots if any(m in entry.wants(k) for m in held)]
        if len(reading) < 2 or slot != reading[attempt % len(reading)]:
            return {}
        return {m: False for m in held if m in entry.wants(slot)}


STRICT_ATTEMPTS = 24
"""Draws each of the first four phases gets: 24 strict and 24 relaxed kept a defended build
within about 1.6 times an undefended one's time; fewer let the no-chart proxy off chance."""
WAIVER_ATTEMPTS = 48
"""Draws each of the two phases that let demands go gets: the items that reach them are the
hardest to make (a plan with two all-period trends reaches the last in 30-45% of items)."""
BROAD = 3
"""Predictors the strictest phases hold the no-chart demand through: the audit ranks them on
the dataset and often puts another first (52.8% no-chart accuracy through three, 56.4% two)."""
NARROW = 2
"""Predictors the middle phases hold it through: an item that cannot hold it through three
keeps it through two before any demand is let go."""

#: Every demand, decided, through the three best predictors.
STRICT = DemandPhase(STRICT_ATTEMPTS, predictors=BROAD)
#: The same, but a reading that decides nothing meets any demand.
STRICT_RELAXED = DemandPhase(2 * STRICT_ATTEMPTS, predictors=BROAD, relaxed=True)
#: Every demand, decided, through the two best predictors.
NARROWER = DemandPhase(3 * STRICT_ATTEMPTS, predictors=NARROW)
#: The same, relaxed.
NARROWER_RELAXED = DemandPhase(4 * STRICT_ATTEMPTS, predictors=NARROW, relaxed=True)
#: Only the no-chart demands, which a Hard item's chart-reading statements share (waived).
CHART_ONLY = DemandPhase(NARROWER_RELAXED.last + WAIVER_ATTEMPTS, predictors=BROAD,
                         relaxed=True, held=("chart",))
#: Only that the no-chart proxy reads one chart-reading statement wrong: a typical instance,
#: taken with no demand at all, is one it reads entirely right (waived).
ONE_WRONG = DemandPhase(CHART_ONLY.last + WAIVER_ATTEMPTS, predictors=BROAD, held=("chart",),
                        one_wrong=True)

PHASES: tuple[DemandPhase, ...] = (
    STRICT, STRICT_RELAXED, NARROWER, NARROWER_RELAXED, CHART_ONLY, ONE_WRONG)
"""The phases of an item's proxy-agreement demands, in order; after the last the item is
built without them (and says so)."""

COLUMN_JITTER = 0.05
"""Jitter of the table-column order of an instance drawn under the demands
(:class:`~hopvista.generation.instance.Divergence`): at 0.2, columns whose trends match the
chart's were shown often enough that the no-chart proxy read 22.5% of Hard sets right."""


def demand_phase(attempt: int, phases: tuple[DemandPhase, ...] = PHASES
                 ) -> DemandPhase | None:
    """The phase attempt ``attempt`` belongs to, or ``None`` once the item's demands are
    waived."""
    return next((phase for phase in phases if attempt <= phase.last), None)


@dataclass(frozen=True)
class ProxyDefences:
    """The defences of a build: the plan's proxy-agreement demands held in :attr:`phases`,
    read through lines fitted on the whole world (:class:`~hopvista.audit.proxy.ProxyModels`),
    and instances whose table columns say little about the chart's trends."""

    models: ProxyModels
    phases: tuple[DemandPhase, ...] = PHASES
    jitter: float = COLUMN_JITTER
    _divergence: Divergence = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        slopes = {pair: line.b for pair, line in self.models.chart.lines.items()}
        object.__setattr__(self, "_divergence", Divergence(self.jitter, slopes))

    @classmethod
    def of(cls, world: World) -> ProxyDefences:
        """The defences of ``world``'s builds (its proxy models fitted once, on it)."""
        return cls(ProxyModels.of(world))

    def divergence(self, entry: PlanEntry) -> Divergence | None:
        """How the table columns of ``entry``'s instances are ordered (uniformly for an
        entry the plan gives no demands)."""
        return None if entry.agree is None else self._divergence

    def demands(self, entry: PlanEntry, attempt: int, item: ProxyItem) -> Demands:
        """The demands of ``entry``'s phase at ``attempt``, with a reader of that phase; past
        the last phase, none, but the readings are still recorded."""
        if entry.agree is None:
            return NO_DEMANDS
        phase = demand_phase(attempt, self.phases)
        reader = ProxyReader(self.models, item,
                             relaxed=phase is not None and phase.relaxed,
                             predictors=phase.predictors if phase else 1)
        if phase is None:
            return Demands(reader, None, waived=True)
        wants = tuple(phase.wants(entry, slot, attempt) for slot in entry.slots)
        return Demands(reader, wants, waived=bool(phase.held))


@dataclass(frozen=True)
class NoDefences:
    """The strategy of a build without defences: instances drawn uniformly, no readings."""

    def divergence(self, entry: PlanEntry) -> Divergence | None:
        """Always ``None``: the table's columns are drawn uniformly."""
        return None

    def demands(self, entry: PlanEntry, attempt: int, item: ProxyItem) -> Demands:
        """Nothing asked, nothing read."""
        return NO_DEMANDS


NO_DEFENCES = NoDefences()
"""The strategy of ``gen build --no-defences``."""


def defences_for(on: bool, world: World) -> Defences:
    """The strategy of a build of ``world`` with its defences ``on`` or off."""
    return ProxyDefences.of(world) if on else NO_DEFENCES
