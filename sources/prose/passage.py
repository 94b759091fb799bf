"""Facts of one passage of ordinary prose about one entity (any domain).

Sentence by sentence: find how it refers to the entity (:mod:`.referents`), reject shapes
that never give a fact (:mod:`.sentences`) and sentences that write values of the table,
reword it as claims (:mod:`.claims`), and take the first claim with a distinctive needle
(:mod:`.needles`). Pronouns are resolved through the previous sentence only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from hopvista.sources.prose.claims import claim_problem, claims_of
from hopvista.sources.prose.names import entity_names
from hopvista.sources.prose.needles import needle_candidates
from hopvista.sources.prose.reasons import PROBLEM_OUTCOMES, Outcome, reason_for
from hopvista.sources.prose.referents import START, context_after, find_subject
from hopvista.sources.prose.sentences import prose_sentence_spans, shape_problem
from hopvista.sources.sec.facts import normalise_needle
from hopvista.world import Fact

__all__ = ["PassageFacts", "SentenceOutcome", "prose_facts", "sentence_outcomes"]


@dataclass(frozen=True)
class PassageFacts:
    """The facts a passage states about its entity, or why it states none."""

    facts: tuple[Fact, ...]
    reason: str | None
    """``None`` when facts were found; else one short sentence saying why none were."""


@dataclass(frozen=True)
class SentenceOutcome:
    """What became of one sentence: its span in the passage, outcome and fact (if any)."""

    start: int
    end: int
    outcome: Outcome
    fact: Fact | None = None


def sentence_outcomes(entity_id: str, chunk_id: str, text: str, names: Sequence[str],
                      nouns: Sequence[str] = (),
                      states_data: Callable[[str], bool] | None = None
                      ) -> list[SentenceOutcome]:
    """The outcome of each sentence of ``text`` (see :func:`prose_facts`)."""
    entity = entity_names(names, nouns, text)
    context = START
    keys: set[str] = set()
    out: list[SentenceOutcome] = []
    for start, end in prose_sentence_spans(text):
        raw = text[start:end]
        sentence = " ".join(raw.split())
        subject = find_subject(sentence, entity, context)
        context = context_after(sentence, subject, entity)
        if subject is None:
            out.append(SentenceOutcome(start, end, Outcome.NOT_ABOUT))
            continue
        problem = shape_problem(sentence)
        if problem is not None:
            out.append(SentenceOutcome(start, end, PROBLEM_OUTCOMES[problem]))
            continue
        if states_data is not None and states_data(raw):
            out.append(SentenceOutcome(start, end, Outcome.TABLE))
            continue
        claims = [c for c in claims_of(subject) if claim_problem(c, entity, subject) is None]
        if not claims:
            out.append(SentenceOutcome(start, end, Outcome.REWRITE))
            continue
        outcome, fact = Outcome.NO_DETAIL, None
        for claim in claims:
            for candidate in needle_candidates(claim, raw, entity):
                # The claim is part of the key: two entities' facts are the same fact only
                # when they are claimed alike ("Tom Hadley" coached one club in 2021 and
                # another in 2019: two facts), so a shared fact's claim is true of each.
                needle = f"{candidate.kind}:{normalise_needle(candidate.needle)}"
                key = f"{needle}|{normalise_needle(claim)}"
                if needle in keys:
                    outcome = Outcome.REPEATED
                    continue
                keys.add(needle)
                fact = Fact(entity=entity_id, chunk=chunk_id, kind=candidate.kind, key=key,
                            needle=candidate.needle, claim=claim, sentence=raw)
                break
            if fact is not None:
                outcome = Outcome.FACT
                break
        out.append(SentenceOutcome(start, end, outcome, fact))
    return out


def prose_facts(entity_id: str, chunk_id: str, text: str, names: Sequence[str],
                nouns: Sequence[str] = (),
                states_data: Callable[[str], bool] | None = None) -> PassageFacts:
    """Rule-based facts that ``text``, a passage of plain prose about one entity, states.

    ``names`` are the entity's display names, ``nouns`` the domain's nouns for it ("club",
    "side"); ``states_data(sentence)``, when given, says whether a sentence writes a value of
    the entity's table (such a sentence gives no fact). Each fact's ``sentence`` is an exact
    substring of ``text``; its ``needle`` occurs as whole words in the sentence and in the
    ``claim``; the claim is a third-person predicate entailed by the sentence that names
    neither the entity nor its short forms. At most one fact per sentence and one per key.
    Without facts, ``reason`` says why in one short sentence.
    """
    outcomes = sentence_outcomes(entity_id, chunk_id, text, names, nouns, states_data)
    facts = tuple(o.fact for o in outcomes if o.fact is not None)
    if facts:
        return PassageFacts(facts, None)
    return PassageFacts((), reason_for([o.outcome for o in outcomes], nouns))
