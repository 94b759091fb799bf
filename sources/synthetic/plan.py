"""The document plan of a pack (``<pack>/text/plan.yaml``): how a 10-K excerpt is laid out.

Sections (each rendered from ``text/<section>.j2``, in the order given) hold paragraphs; a
paragraph is a list of *slots*, each naming one macro of the section's template:

* ``fact:<kind>`` — the company's fact of that kind (skipped if it has none);
* ``fig:<name>``  — an MD&A figure, described by ``figures.<name>``;
* ``fill:<name>`` — a filler sentence (no fact, no figure).

A trailing ``?`` makes a slot optional (kept with probability 1/2; a paragraph keeps at
least two sentences). A section's first paragraph, its ``always`` paragraphs and every
paragraph holding a fact the company has are kept; the others are drawn (order preserved)
to reach ``PARAGRAPHS_PER_CHUNK`` times a chunk count drawn from ``chunks``.
:mod:`hopvista.sources.synthetic.contract` checks the plan against the templates.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from hopvista.sources.synthetic import datafile
from hopvista.yamlfile import file_stamp

PLAN_FILE = "plan.yaml"
#: Paragraphs per chunk (FCMR appendix B.4: chunks of three consecutive paragraphs).
PARAGRAPHS_PER_CHUNK = 3
SLOT = re.compile(r"^(fact|fig|fill):([a-z_][a-z0-9_]*)\??$")
#: the template file that words the claims; no section may take its name
CLAIMS = "claims"

Name = Annotated[str, Field(pattern=r"^[a-z_][a-z0-9_]*$")]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


@dataclass(frozen=True)
class Slot:
    """One slot of a paragraph: ``kind`` is fact, fig or fill; ``name`` is the macro."""

    text: str  #: as written, e.g. "fill:segment_mgmt?"
    kind: str
    name: str
    optional: bool


def parse_slot(text: str) -> Slot:
    """``'fill:pricing?' -> Slot('fill:pricing?', 'fill', 'pricing', True)``."""
    match = SLOT.match(text)
    if match is None:
        raise ValueError(f"slot {text!r} is not fact:<kind>, fig:<name> or fill:<name> "
                         "(with an optional trailing '?')")
    return Slot(text, match[1], match[2], text.endswith("?"))


@dataclass(frozen=True)
class Paragraph:
    """A planned paragraph: its name, its slots, whether it is always kept."""

    name: str
    slots: tuple[Slot, ...]
    always: bool


class Section(_Model):
    """One section of the document."""

    chunks: Annotated[tuple[Annotated[int, Field(ge=1)], ...], Field(min_length=1)]
    always: tuple[Name, ...] = ()
    paragraphs: Annotated[dict[Name, str], Field(min_length=PARAGRAPHS_PER_CHUNK)]

    @field_validator("paragraphs")
    @classmethod
    def _slots(cls, paragraphs: dict[str, str]) -> dict[str, str]:
        for name, slots in paragraphs.items():
            if not slots.split():
                raise ValueError(f"paragraph {name!r} has no slots")
            for text in slots.split():
                parse_slot(text)
        return paragraphs

    @model_validator(mode="after")
    def _always_known(self) -> Section:
        unknown = [name for name in self.always if name not in self.paragraphs]
        if unknown:
            raise ValueError(f"always: unknown paragraph(s) {', '.join(unknown)}")
        return self

    @functools.cached_property
    def outline(self) -> tuple[Paragraph, ...]:
        """The paragraphs, parsed, in order."""
        return tuple(
            Paragraph(name, tuple(parse_slot(t) for t in slots.split()), name in self.always)
            for name, slots in self.paragraphs.items())


class Figure(_Model):
    """An MD&A figure macro: the columns it states and when it applies."""

    #: the first is the column the macro's ``m`` describes (always stated); the second is
    #: stated when the sentence prints ``m.ratio``, ``m.prev_ratio`` or ``m.other``
    columns: Annotated[tuple[Name, ...], Field(min_length=1, max_length=2)]
    #: stated only when the first column is positive in the last two periods
    positive: bool = False


class DocumentPlan(_Model):
    """Everything ``text/plan.yaml`` holds."""

    sections: Annotated[dict[Name, Section], Field(min_length=1)]
    figures: dict[Name, Figure] = {}

    @field_validator("sections")
    @classmethod
    def _not_claims(cls, sections: dict[str, Section]) -> dict[str, Section]:
        if CLAIMS in sections:
            raise ValueError(f"{CLAIMS!r} is the claims template, not a section")
        return sections


def load_plan(folder: Path) -> tuple[DocumentPlan, datafile.DataFile]:
    """The validated ``text/plan.yaml`` of the pack in ``folder``, and the file itself
    (for error messages). Cached until the file changes."""
    path = folder / "text" / PLAN_FILE
    return _load(path, file_stamp(path))


@functools.lru_cache(maxsize=8)
def _load(path: Path, stamp: tuple[int, int] | None) -> tuple[DocumentPlan, datafile.DataFile]:
    file = datafile.read(path)
    return datafile.validate(DocumentPlan, file), file
