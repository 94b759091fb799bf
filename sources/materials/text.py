"""Text of the materials world: per material two chunks of three paragraphs (FCMR's chunking),
written from the pack's Jinja2 templates (``text/*.j2``), with the facts they state.

The text describes crystal structure, appearance, uses and production. It states no value of
any panel column (``Chunk.columns_stated`` is empty) and names no other material.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from hopvista.errors import UserError
from hopvista.sources.macros import Templates, load_templates
from hopvista.sources.materials.catalogue import Material
from hopvista.world import Chunk, Fact

TEMPLATE_FILES = ("structure", "applications", "claims")
_ROMAN = re.compile(r"^[IVX]+(-[IVX0-9]+)*$")


def templates(folder: str) -> Templates:
    """The templates of a pack's text folder (cached per folder)."""
    return load_templates(Path(folder), TEMPLATE_FILES)


@dataclass(frozen=True)
class FactSpec:
    """A fact before it is written: kind, key, needle and the values its macros use."""

    kind: str
    key: str
    needle: str
    values: dict[str, str]


def _article(phrase: str) -> str:
    first = phrase.split()[0]
    if _ROMAN.match(first):
        return "a"
    return "an" if first[0].lower() in "aeiou" else "a"


def describe(m: Material) -> dict[str, str]:
    """The template context of a material: names and a class phrase (no property values)."""
    family = m.family
    if m.cls == "metal":
        noun = (family if family.endswith(("metal", "alloy", "semimetal", "glass"))
                else f"metallic {family}")
    elif m.cls == "semiconductor":
        noun = f"{family} semiconductor"
    elif m.cls == "insulator":
        noun = f"{family} insulator"
    else:
        noun = family
    full = m.full
    formula = m.name.split(" (")[0]
    if re.search(rf"(?<![\w-]){re.escape(m.name.lower())}(?![\w-])", full.lower()):
        named = full
    elif "(" in m.name:
        named = f"{full} ({formula})"
    else:
        named = f"{full} ({m.name})"
    title = named[0].upper() + named[1:]
    return {"name": m.name, "full": full, "Full": full[0].upper() + full[1:], "title": title,
            "named": named,
            "what": f"{_article(noun)} {noun}", "cls": m.cls, "family": family}


def fact_specs(m: Material) -> dict[str, list[FactSpec]]:
    """Every fact the catalogue gives for ``m``, by kind."""
    out: dict[str, list[FactSpec]] = {}

    def add(fact_kind: str, value: str, needle: str, **values: str) -> None:
        out.setdefault(fact_kind, []).append(
            FactSpec(fact_kind, f"{fact_kind}:{value.lower()}", needle, values))

    if m.year is not None:
        if m.cls == "metal" and m.formula.isalpha() and len(m.formula) <= 2:
            verb = "isolated"
        elif "alloy" in m.family or "glass" in m.family or m.cls == "glass":
            verb = "produced"
        else:
            verb = "reported"
        add("year", str(m.year), str(m.year), year=str(m.year), verb=verb)
    if m.structure == "amorphous":
        add("amorphous", "amorphous", "amorphous")
    else:
        add("structure", m.structure, m.structure, structure=m.structure)
    if m.system:
        add("system", m.system, f"{m.system} crystal system", system=m.system)
    if m.space_group:
        add("space_group", m.space_group, m.space_group, sg=m.space_group)
    if m.colour:
        add("colour", m.colour, m.colour, colour=m.colour)
    if m.mineral:
        add("mineral", m.mineral, m.mineral, mineral=m.mineral)
    temp = f"{m.melting:,} °C"
    add("melting", f"{m.melting_kind} {temp}", temp, temp=temp, verb=m.melting_kind)
    if m.magnetic:
        add("magnetic", m.magnetic, m.magnetic, magnetic=m.magnetic)
    if m.gap_type:
        add("gap_type", m.gap_type, f"{m.gap_type} band gap", kind=m.gap_type,
            article=_article(m.gap_type))
    for use in m.uses:
        add("use", use, use, use=use)
    for method in m.methods:
        add("method", method, method, method=method)
    return out


#: paragraphs of each chunk: slots "fact:KIND" (all facts of the kind), "fill:MACRO";
#: a trailing "?" marks a slot kept with probability one half
PLANS: dict[str, tuple[tuple[str, ...], ...]] = {
    "structure": (
        ("fill:intro", "fact:year", "fill:context?"),
        ("fact:structure", "fact:amorphous", "fact:system?", "fact:space_group?",
         "fill:lattice?", "fill:network"),
        ("fact:colour", "fact:mineral", "fact:melting", "fact:magnetic", "fact:gap_type"),
    ),
    "applications": (
        ("fill:uses_intro", "fact:use"),
        ("fact:method", "fill:production?"),
        ("fill:outlook", "fill:practice"),
    ),
}
FILE_OF_SECTION = {"structure": "structure", "applications": "applications"}
GLASS_ONLY = {"fill:network"}


@dataclass
class _Paragraph:
    sentences: list[str] = field(default_factory=list)
    facts: list[tuple[FactSpec, str]] = field(default_factory=list)


class Writer:
    """Writes one material's chunks from its facts."""

    def __init__(self, tpl: Templates, rng: np.random.Generator, m: Material) -> None:
        self.t, self.rng, self.m = tpl, rng, m
        self.ctx = describe(m)
        self.facts = fact_specs(m)

    def _choose(self, lines: list[str]) -> str:
        return lines[int(self.rng.integers(len(lines)))]

    def _slot_kept(self, slot: str) -> bool:
        name = slot.rstrip("?")
        amorphous = self.m.structure == "amorphous"
        if name in GLASS_ONLY and not amorphous:
            return False
        if name == "fill:lattice" and amorphous:
            return False
        if name.startswith("fact:") and name[5:] not in self.facts:
            return False
        return not slot.endswith("?") or bool(self.rng.random() < 0.5)

    def paragraph(self, file: str, slots: tuple[str, ...]) -> _Paragraph:
        """One paragraph: a sentence per kept slot (every fact of a fact slot)."""
        para = _Paragraph()
        for slot in slots:
            if not self._slot_kept(slot):
                continue
            kind, _, name = slot.rstrip("?").partition(":")
            if kind == "fill":
                para.sentences.append(self._choose(self.t.lines(file, name, self.ctx)))
                continue
            for spec in self.facts[name]:
                lines = self.t.lines(file, name, self.ctx, spec.values)
                for line in lines:
                    if spec.needle not in line:
                        raise UserError(
                            f"{self.t.folder / (file + '.j2')}: macro {name!r}: alternative "
                            f"{line!r} does not state {spec.needle!r} verbatim")
                sentence = self._choose(lines)
                para.sentences.append(sentence)
                para.facts.append((spec, sentence))
        return para

    def claim(self, spec: FactSpec) -> str:
        """The fact as a third-person predicate."""
        claim = self._choose(self.t.lines("claims", spec.kind, self.ctx, spec.values))
        if spec.needle.lower() not in claim.lower():
            raise UserError(f"{self.t.folder / 'claims.j2'}: macro {spec.kind!r}: claim "
                            f"{claim!r} does not contain {spec.needle!r}")
        return claim

    def chunks(self, entity_id: str, period: int) -> list[Chunk]:
        """The material's chunks, one per section, three paragraphs each."""
        out = []
        for number, (section, plan) in enumerate(PLANS.items(), start=1):
            paragraphs = [self.paragraph(FILE_OF_SECTION[section], slots) for slots in plan]
            chunk_id = f"{entity_id}-{section}-{number}"
            facts = tuple(
                Fact(entity=entity_id, chunk=chunk_id, kind=spec.kind, key=spec.key,
                     needle=spec.needle, claim=self.claim(spec), sentence=sentence)
                for para in paragraphs for spec, sentence in para.facts)
            out.append(Chunk(id=chunk_id, entity=entity_id, section=section, period=period,
                             text="\n\n".join(" ".join(p.sentences) for p in paragraphs),
                             columns_stated=frozenset(), facts=facts))
        return out
