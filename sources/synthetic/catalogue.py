"""The world catalogue of a pack (``<pack>/catalogues.yaml``): what the world is made of.

Industry archetypes (the ratio ranges that drive the figures, and the words the text uses
for them), places, courts, lawsuits, agencies, months, currencies, indications and the
pieces names are built from. The file is read once per process (again only when it
changes) and validated here; how its entries meet the templates is checked in
:mod:`hopvista.sources.synthetic.contract`.

Order matters: entries are drawn by position, so reordering a list changes the world.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from hopvista.sources.synthetic import datafile
from hopvista.sources.synthetic.draws import Range
from hopvista.yamlfile import file_stamp

CATALOGUE_FILE = "catalogues.yaml"

Key = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]*$")]
Text = Annotated[str, Field(min_length=1)]
Probability = Annotated[float, Field(ge=0.0, le=1.0)]
Words = tuple[Text, ...]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _check_range(r: Range) -> Range:
    lo, hi = r
    if not (math.isfinite(lo) and math.isfinite(hi)) or lo > hi:
        raise ValueError(f"a range [low, high] with low <= high, got {list(r)}")
    return r


class Ratios(_Model):
    """Ranges of the ratios that drive a company's figures (one value drawn per company)."""

    gm: Range  #: gross margin
    sga: Range  #: SG&A (incl. R&D) / sales
    dp: Range  #: D&A / sales
    turn: Range  #: total assets / sales
    lev: Range  #: total liabilities / total assets
    act: Range  #: current assets / total assets
    che: Range  #: cash / current assets
    lct: Range  #: current liabilities / total liabilities
    dltt: Range  #: long-term debt / total liabilities
    capex: Range  #: capital expenditures / sales
    payout: Range  #: dividends / net income

    @field_validator("*")
    @classmethod
    def _ranges(cls, r: Range) -> Range:
        return _check_range(r)


class Agency(_Model):
    """A regulator's action: "<action> from the <agency>" about "<topic>"."""

    agency: Text
    action: Text
    topic: Text


class IndustryWords(_Model):
    """How the text speaks of the industry (the ``c`` of every macro holds these)."""

    business_we: Text  #: "we <business_we>"
    business_3p: Text  #: "<name> <business_3p>"
    market: Text
    customers: Text
    offering: Text
    inputs: Text
    competitors: Text


class Industry(_Model):
    """An industry archetype: ratio ranges for the figures and words for the text."""

    key: Key
    label: Text
    name_words: Annotated[Words, Field(min_length=1)]  #: "<last name> <word>"
    ratios: Ratios
    payer: Probability  #: probability of paying dividends
    buyback: Probability  #: probability of buying back shares
    sale_median: Annotated[float, Field(gt=0)]  #: USD millions
    sale_sigma: Annotated[float, Field(ge=0)]  #: of log sales
    cyclical: float  #: extra weight on the cyclical and volatile regimes
    employees_per_m: Range  #: employees per USD million of sales
    sales_per_facility: Range  #: USD millions of sales per facility
    foreign: Range | None  #: percent of sales outside the US; null: domestic only
    incorporated_from: Annotated[int, Field(ge=1600, le=2015)]  #: earliest incorporation year
    facilities: Text  #: plural noun
    segments: Annotated[Words, Field(min_length=4)]  #: 2-4 are drawn per company
    product_noun: Text  #: "the Veralon <noun>"
    product_verb: Text  #: claim verb: "<verb> the Veralon <noun>"
    specific: tuple[Key, ...]  #: industry-specific fact kinds
    commodities: Words  #: empty: no commodity fact
    largest_customer: Text  #: who the largest customer is ("a pharmaceutical wholesaler")
    agencies: Annotated[tuple[Agency, ...], Field(min_length=1)]
    words: IndustryWords

    @field_validator("employees_per_m", "sales_per_facility", "foreign")
    @classmethod
    def _range(cls, r: Range | None) -> Range | None:
        return None if r is None else _check_range(r)

    @field_validator("sales_per_facility")
    @classmethod
    def _positive(cls, r: Range) -> Range:
        if r[0] <= 0:
            raise ValueError("sales per facility must be positive")
        return r


class Lawsuit(_Model):
    """A kind of lawsuit: "<subject> lawsuit ... alleging <allegation>"."""

    subject: Text  #: as an adjective of "lawsuit"
    allegation: Text  #: what the plaintiff alleges
    person: bool  #: the plaintiff is a person (else a company)


class NameParts(_Model):
    """What company, counterparty and coined product names are made of."""

    company_suffixes: Annotated[Words, Field(min_length=1)]  #: "<last name> <word> <suffix>"
    fallback_suffixes: Words  #: appended to a name that clashes after every redraw
    counterparty_words: Annotated[Words, Field(min_length=1)]  #: "<last name> <word>"
    onsets: Annotated[Words, Field(min_length=1)]  #: coined words: (onset vowel){2,3} ending
    vowels: Annotated[Words, Field(min_length=1)]
    endings: Annotated[Words, Field(min_length=1)]

    @model_validator(mode="after")
    def _coinable(self) -> NameParts:
        def size(words: Words, f: Callable[[Iterable[int]], int]) -> int:
            return f(len(w) for w in words)

        shortest = 2 * (size(self.onsets, min) + size(self.vowels, min)) + size(self.endings, min)
        longest = 3 * (size(self.onsets, max) + size(self.vowels, max)) + size(self.endings, max)
        if longest < 6 or shortest > 11:
            raise ValueError("onsets, vowels and endings cannot make a word of 6 to 11 letters")
        return self


class Catalogue(_Model):
    """Everything ``catalogues.yaml`` holds."""

    #: entries the industries share through YAML aliases (not read otherwise)
    generic_agencies: tuple[Agency, ...] = ()
    industries: Annotated[tuple[Industry, ...], Field(min_length=1)]
    cities: Annotated[tuple[tuple[Text, Text], ...], Field(min_length=1)]  #: (city, state)
    courts: Annotated[Words, Field(min_length=1)]
    lawsuits: Annotated[tuple[Lawsuit, ...], Field(min_length=1)]
    months: Annotated[Words, Field(min_length=12, max_length=12)]
    currencies: Annotated[Words, Field(min_length=3)]  #: 2-3 are drawn
    indications: Annotated[Words, Field(min_length=1)]
    trial_phases: Annotated[Words, Field(min_length=1)]
    number_words: Annotated[Words, Field(min_length=5)]  #: "zero", "one", ... (index = n)
    names: NameParts
    #: stock exchanges and audit firms: facts that several companies state alike (a pack
    #: without them has no shared facts, and so no FC+CT+TR or FC+AR+TR statements)
    exchanges: Words = ()
    auditors: Words = ()

    @field_validator("industries")
    @classmethod
    def _unique_keys(cls, industries: tuple[Industry, ...]) -> tuple[Industry, ...]:
        first: dict[str, int] = {}
        for i, ind in enumerate(industries):
            if ind.key in first:
                raise ValueError(f"industry key {ind.key!r} is given twice (entries "
                                 f"{first[ind.key]} and {i})")
            first[ind.key] = i
        return industries


def load_catalogue(folder: Path) -> tuple[Catalogue, datafile.DataFile]:
    """The validated ``catalogues.yaml`` of the pack in ``folder``, and the file itself (for
    error messages). Cached until the file changes."""
    path = folder / CATALOGUE_FILE
    return _load(path, file_stamp(path))


@functools.lru_cache(maxsize=8)
def _load(path: Path, stamp: tuple[int, int] | None) -> tuple[Catalogue, datafile.DataFile]:
    file = datafile.read(path)
    return datafile.validate(Catalogue, file), file
