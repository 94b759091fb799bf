"""FC, fact checking (text): the entity whose own text states a fact no other text supports."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from hopvista.generation.instance import Instance
from hopvista.program.statement_types import Words, selector
from hopvista.statements.selection import Margins, Selection, text_cells
from hopvista.world import Fact, SharedFact


def fact_node(fact: Fact | SharedFact) -> dict[str, str]:
    """The program node of a fact hop: the phrase that locates it in its owners' texts."""
    return {"op": "fact", "needle": fact.needle}


def fc(instance: Instance, rng: np.random.Generator) -> Iterator[Selection]:
    """One-hop FC selectors, one per usable fact, in random order."""
    facts = [f for e in instance.ids for f in instance.facts[e]]
    for k in rng.permutation(len(facts)):
        fact = facts[int(k)]
        yield Selection(picked=frozenset({fact.entity}), node=fact_node(fact),
                        cells=text_cells(instance), words={"fact": fact.claim},
                        modalities=frozenset({"text"}), meta={"fact": fact})


@selector("FC", modalities=("text",), variables=("fact",), operators=("fact",),
          fact_form=False)
def fc_type(instance: Instance, rng: np.random.Generator, words: Words,
            margins: Margins) -> Iterator[Selection]:
    """FC: "{entity} {fact}" — the fact is stated by that entity's own text alone."""
    return fc(instance, rng)
