"""Facts from ordinary prose about the entities of any domain (clubs, cities, rivers, ...).

``prose_facts(entity_id, chunk_id, text, names, nouns, states_data)`` reads one passage and
returns :class:`PassageFacts`: the facts it states about its entity for FC statements, or the
reason it states none. A fact's ``kind`` is one of ``count`` ("18,400 spectators"),
``measure`` ("1,336 °C"), ``amount`` ("£2 million"), ``percent``, ``date`` ("founded in
1889"), ``person`` ("Tom Hadley"), ``place`` ("Meadow Lane") and ``other`` (a named thing:
"Northway Bank"); its ``key`` is ``f"{kind}:{normalised needle}"``.

Modules, one job each: :mod:`.names` (the entity's names and short forms in a
passage), :mod:`.sentences` (splitting, and shapes that give no fact), :mod:`.referents`
(subjects, pronouns and their antecedents), :mod:`.claims` (rewording a sentence as a
predicate), :mod:`.needles` (the verbatim phrase that identifies a fact), :mod:`.reasons`
(why a passage gave none) and :mod:`.passage` (the whole passage).
"""

from hopvista.sources.prose.passage import (
    PassageFacts,
    SentenceOutcome,
    prose_facts,
    sentence_outcomes,
)

__all__ = ["PassageFacts", "SentenceOutcome", "prose_facts", "sentence_outcomes"]
