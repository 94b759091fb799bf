"""CT+TR and AR+TR: a table condition over every period fused with an all-period chart trend.

Each hop alone picks two or more entities; together they pick exactly one (FCMR Table 12,
"For all years, the company with <condition> and <trend> ..."). CT+TR and AR+TR claim
"X is the only <noun> with <condition> and <trend>": a false one names an entity both hops
pick along with another, so that each modality is needed for its label too (docs/format.md,
section 3.8); their fact forms keep one entity and a fact claim. The instance sampler is asked
for its guided draw (``trend_pair``): two entities trending the same way on one chart.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np

from hopvista.generation.instance import Instance
from hopvista.program.statement_types import Selector, Words, selector
from hopvista.statements.arithmetic import ar_sum
from hopvista.statements.openness import fused_bounds
from hopvista.statements.selection import Margins, Selection
from hopvista.statements.threshold import ct_all
from hopvista.statements.trend import tr_all

#: With three periods the only trend span is all of them, so an item could not hold both a
#: one-hop TR (one entity trends) and a CT+TR pair (two trend) on its one chart: all-period
#: trend pairs need a fourth period to leave shorter spans to one-hop trends.
MIN_PERIODS = 4

_VARIABLES = ("cond_column", "cmp", "threshold", "first", "last", "trend_column", "direction",
              "direction_verb")


def fused_pairs(first: Callable[[range], Iterator[Selection]],
                second: Callable[[range], Iterator[Selection]], k: int,
                rng: np.random.Generator, everyone: frozenset[str]) -> Iterator[Selection]:
    """Fused two-selector hops: each alone picks 2..k-1 entities, together one or more (one
    for a definite description; two or more for a false "X is the only ..." claim)."""
    sizes = range(2, k)
    seconds = list(second(sizes))
    for a in first(sizes):
        for j in rng.permutation(len(seconds)):
            b = seconds[int(j)]
            both = a.picked & b.picked
            if both:
                modalities = a.modalities | b.modalities
                yield Selection(picked=both,
                                node={"op": "and", "args": [a.node, b.node]},
                                cells=a.cells + b.cells, words=a.words | b.words,
                                modalities=modalities,
                                withheld={m: fused_bounds((a, b), m, everyone)
                                          for m in modalities})


def _with_trend(condition: Callable[[Instance, np.random.Generator, Words, range],
                                    Iterator[Selection]]) -> Selector:
    """The fused selector of ``condition`` (a table hop over every period) and ``tr_all``."""
    def select(instance: Instance, rng: np.random.Generator, words: Words,
               margins: Margins) -> Iterator[Selection]:
        return fused_pairs(lambda s: condition(instance, rng, words, s),
                           lambda s: tr_all(instance, rng, words, margins, s),
                           len(instance.ids), rng, frozenset(instance.ids))

    return select


#: CT+TR: {cond_column} {cmp} {threshold} in every period, and a continuous trend.
ct_tr = selector("CT+TR", modalities=("table", "chart"), variables=_VARIABLES,
                 operators=("and", "ct_all", "tr_all"), hops=2, min_periods=MIN_PERIODS,
                 trend_pair=True, claim="only", shared_fact_form=True)(_with_trend(ct_all))

#: AR+TR: the total of {cond_column} over the periods {cmp} {threshold}, and a trend.
ar_tr = selector("AR+TR", modalities=("table", "chart"), variables=_VARIABLES,
                 operators=("and", "ar_sum", "tr_all"), hops=2, min_periods=MIN_PERIODS,
                 trend_pair=True, claim="only", shared_fact_form=True)(_with_trend(ar_sum))
