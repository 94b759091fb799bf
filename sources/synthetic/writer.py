"""Writes one company's document: paragraphs from the plan, sentences from the macros,
chunks of three paragraphs (FCMR B.4) with the facts and columns they state."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hopvista.errors import UserError
from hopvista.sources.macros import Templates
from hopvista.sources.synthetic.draws import pick
from hopvista.sources.synthetic.facts import FactSpec
from hopvista.sources.synthetic.plan import PARAGRAPHS_PER_CHUNK, DocumentPlan, Paragraph
from hopvista.world import Chunk, Fact


@dataclass
class Written:
    """A written paragraph: its sentences, the facts it states, the columns it states."""

    sentences: list[str] = field(default_factory=list)
    facts: list[tuple[FactSpec, str]] = field(default_factory=list)
    columns: set[str] = field(default_factory=set)


class Writer:
    """Writes one company's document from its fact base and figures."""

    def __init__(self, templates: Templates, plan: DocumentPlan, rng: np.random.Generator,
                 c: dict[str, Any], facts: dict[str, FactSpec],
                 figures: dict[str, dict[str, Any]]) -> None:
        self.t, self.plan, self.rng, self.c = templates, plan, rng, c
        self.facts, self.figures = facts, figures
        self.used: set[str] = set()

    def _choose(self, lines: list[str]) -> str:
        """One alternative, preferring those not used yet in this document."""
        fresh = [line for line in lines if line not in self.used]
        line: str = pick(self.rng, fresh or lines)
        self.used.add(line)
        return line

    def _available(self, kind: str, name: str) -> bool:
        if kind == "fact":
            return name in self.facts
        if kind == "fig":
            return name in self.figures
        return True

    def paragraph(self, section: str, paragraph: Paragraph) -> Written:
        """Write one paragraph: its available slots, optional ones kept with probability 1/2,
        at least two sentences."""
        present = [s for s in paragraph.slots if self._available(s.kind, s.name)]
        keep = [s for s in present if not s.optional or self.rng.random() < 0.5]
        for slot in present:  # at least two sentences per paragraph
            if len(keep) >= 2:
                break
            if slot not in keep:
                keep.insert(present.index(slot), slot)
        keep = [s for s in present if s in keep]
        para = Written()
        for slot in keep:
            if slot.kind == "fact":
                fact = self.facts[slot.name]
                lines = self.t.lines(section, slot.name, self.c, fact.f)
                for line in lines:
                    if fact.needle not in line:
                        raise UserError(
                            f"{self.t.path(section)}: macro {slot.name!r}: alternative "
                            f"{line!r} does not state {fact.needle!r} verbatim")
                sentence = self._choose(lines)
                para.facts.append((fact, sentence))
            elif slot.kind == "fig":
                m = self.figures[slot.name]
                sentence = self._choose(self.t.lines(section, slot.name, self.c, m))
                columns = self.plan.figures[slot.name].columns
                para.columns.add(columns[0])
                # the second column is stated only where its ratio or value is printed
                if any(m[k] and m[k] in sentence for k in ("ratio", "prev_ratio", "other")):
                    para.columns.update(columns[1:])
            else:
                sentence = self._choose(self.t.lines(section, slot.name, self.c))
            para.sentences.append(sentence)
        return para

    def section(self, section: str) -> list[Written]:
        """The paragraphs of one section: the required ones and enough optional ones (order
        preserved) to fill a drawn number of chunks."""
        spec = self.plan.sections[section]
        plan = spec.outline
        required = [i for i, p in enumerate(plan)
                    if i == 0 or p.always
                    or any(s.kind == "fact" and s.name in self.facts for s in p.slots)]
        chunks = int(pick(self.rng, spec.chunks))
        target = max(chunks, -(-len(required) // PARAGRAPHS_PER_CHUNK)) * PARAGRAPHS_PER_CHUNK
        target = min(target, len(plan) - len(plan) % PARAGRAPHS_PER_CHUNK)
        optional = [i for i in range(len(plan)) if i not in required]
        extra = max(0, target - len(required))
        chosen = sorted(required + [optional[int(i)] for i in
                                    self.rng.choice(len(optional), size=extra, replace=False)])
        return [self.paragraph(section, plan[i]) for i in chosen]

    def claim(self, fact: FactSpec) -> str:
        """The fact as a third-person predicate (one alternative of its claims macro)."""
        return self._choose(self.t.lines("claims", fact.kind, self.c, fact.f))


def write_chunks(writer: Writer, entity_id: str, period: int) -> list[Chunk]:
    """Every section of the company's document, as chunks of consecutive paragraphs."""
    out: list[Chunk] = []
    for section in writer.plan.sections:
        paragraphs = writer.section(section)
        for k in range(0, len(paragraphs), PARAGRAPHS_PER_CHUNK):
            group = paragraphs[k:k + PARAGRAPHS_PER_CHUNK]
            chunk_id = f"{entity_id}-{section}-{k // PARAGRAPHS_PER_CHUNK + 1}"
            facts = tuple(
                Fact(entity=entity_id, chunk=chunk_id, kind=fact.kind, key=fact.key,
                     needle=fact.needle, claim=writer.claim(fact), sentence=sentence)
                for para in group for fact, sentence in para.facts)
            out.append(Chunk(
                id=chunk_id, entity=entity_id, section=section, period=period,
                text="\n\n".join(" ".join(p.sentences) for p in group),
                columns_stated=frozenset(col for p in group for col in p.columns),
                facts=facts))
    return out
