"""Domain packs: a folder whose ``domain.yaml`` says everything a domain says in its own words.

A pack names its entities (singular, plural, table header), its period axis (or none), whether
its entities have documents, its column catalogue and identities, which statement types apply
and how each is worded (several Jinja2 surface forms per type), and the question prompt.
Built-in packs live in ``hopvista.templates``; a user's pack is any folder given by path.
``docs/domains.md`` documents the format. Every field is validated before anything is
generated; an error names the file, the line and the field.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import jinja2
import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from hopvista import sandbox
from hopvista.errors import UserError, excerpt
from hopvista.program.identities import Identity, derivable_closure, parse_identity
from hopvista.program.statement_types import STATEMENT_TYPES
from hopvista.world import Column
from hopvista.yamlfile import Lines, file_stamp, read_yaml, validation_message

__all__ = ["DEFAULT_WORD_SYNONYMS", "DOMAIN_FILE", "MIN_MARGIN", "PACK_FORMAT", "DomainPack",
           "Identity", "PackSpec", "Synonyms", "builtin_pack_names", "derivable_closure",
           "load_pack", "parse_identity", "resolve_pack"]

PACK_FORMAT = 2
DOMAIN_FILE = "domain.yaml"

#: The small word maps every pack defines, and the keys each must have.
WORD_MAPS = {"cmp": (">", "<"), "sign": ("+", "-"), "order": ("max", "min"),
             "direction": ("increasing", "decreasing"),
             "direction_verb": ("increasing", "decreasing")}
#: Variables every surface form and the question may use.
COMMON_VARIABLES = ("noun", "singular", "plural")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ColumnSpec(_Strict):
    """One column of the domain's catalogue."""

    key: str = Field(pattern=r"^[a-z][a-z0-9_]*$", description="Short mnemonic (Compustat-like).")
    label: str = Field(min_length=1, description="The one display name used everywhere.")
    description: str = Field(default="", description="What the column measures.")
    unit: str = Field(default="", description="Unit of the values, e.g. 'USD millions'.")
    precision: int = Field(ge=0, le=6, description="Decimals shown in tables and statements.")
    chartable: bool = Field(default=True, description="May be the instance's chart column.")
    group: str | None = Field(default=None, min_length=1,
                              description="The header a complex or multi-table structure "
                                          "shows over this column (a statement section: "
                                          "'Balance sheet').")


class EntityWords(_Strict):
    """How the domain names its entities."""

    singular: str = Field(min_length=1, description="'company', 'material'.")
    plural: str = Field(min_length=1, description="'companies', 'materials'.")
    label: str = Field(min_length=1, description="Table header of the entity column.")
    nouns: list[str] = Field(default_factory=list,
                             description="Nouns forms draw {{ noun }} from; default [singular].")

    def noun_list(self) -> list[str]:
        """The nouns statements use."""
        return list(self.nouns) or [self.singular]


class PeriodAxis(_Strict):
    """The domain's ordered axis of periods (years, temperatures, ...)."""

    name: str = Field(min_length=1, description="Axis title and table header, e.g. 'Year'.")
    plural: str = Field(default="", description="'years', 'temperatures'; default name + 's'.")
    format: str = Field(default="{}", description="How a value is written, e.g. '{} K'.")

    @field_validator("format")
    @classmethod
    def _one_slot(cls, text: str) -> str:
        if text.count("{}") != 1 or text.replace("{}", "").count("{") + \
                text.replace("{}", "").count("}"):
            raise ValueError("needs exactly one '{}' where the value goes (and no other braces)")
        return text

    def words(self) -> str:
        """The plural noun of the axis."""
        return self.plural or f"{self.name.lower()}s"

    def show(self, value: int) -> str:
        """A period value as tables, charts and statements write it."""
        return self.format.replace("{}", str(value))


class InstanceSpec(_Strict):
    """Shape of one instance (FCMR: 3 companies, 5 years, 6 table columns + 1 chart)."""

    entities: int = Field(default=3, ge=3, le=8)
    periods: int = Field(default=5, ge=1, le=12)
    table_columns: int = Field(default=6, ge=2, le=20)
    peer_column: str | None = Field(default=None, description="Column used to pick peers.")
    peer_ratio: float = Field(default=4.0, gt=1.0, description="Max scale ratio among peers.")


#: The smallest decidability margin, as a fraction of the chart's axis span, that a pack may
#: ask for and that ``gen verify`` accepts: a chart's plot is a few hundred pixels tall, so 1%
#: of its span is a few pixels, about the least difference a reader can see between two bars
#: or points. The built-in packs use 0.03.
MIN_MARGIN = 0.01


class Decidability(_Strict):
    """Margins that make chart-read facts visually decidable (fractions of the axis span)."""

    min_rank_gap: float = Field(default=0.03)
    min_trend_step: float = Field(default=0.03)

    @field_validator("min_rank_gap", "min_trend_step")
    @classmethod
    def _visible(cls, value: float) -> float:
        if value < MIN_MARGIN:
            raise ValueError(f"{value!r} is below {MIN_MARGIN}: a difference of less than "
                             f"{MIN_MARGIN:.0%} of the chart's axis is not one a reader can see")
        if not value < 1:  # NaN too
            raise ValueError(f"{value!r} is not a fraction from {MIN_MARGIN} to below 1")
        return value


#: The English alternatives of each word-map phrase that a paraphrase may use instead (each
#: of the sense :mod:`hopvista.verify.meaning` gives its key); a pack's ``paraphrase.words``
#: replaces the list of an entry it names.
DEFAULT_WORD_SYNONYMS: dict[str, dict[str, tuple[str, ...]]] = {
    "cmp": {">": ("greater than", "more than", "higher than", "larger than", "above",
                  "exceeding", "in excess of"),
            "<": ("less than", "lower than", "smaller than", "below", "under", "beneath")},
    "sign": {"+": ("plus", "added to"), "-": ("minus", "less")},
    "order": {"max": ("highest", "largest", "greatest", "biggest", "maximum"),
              "min": ("lowest", "smallest", "minimum")},
    "direction": {"increasing": ("increasing", "rising", "growing", "climbing", "upward"),
                  "decreasing": ("decreasing", "falling", "declining", "shrinking", "dropping",
                                 "downward")},
    "direction_verb": {
        "increasing": ("increased", "rose", "grew", "climbed", "went up", "increases", "rises",
                       "grows"),
        "decreasing": ("decreased", "fell", "declined", "dropped", "shrank", "went down",
                       "decreases", "falls", "declines", "drops")},
}


class ParaphraseSpec(_Strict):
    """``paraphrase:``: what a paraphrase of a statement may write instead of the pack's
    words (docs/domains.md, "Paraphrases")."""

    columns: dict[str, list[str]] = Field(
        default_factory=dict, description="Column key -> other names of the column.")
    words: dict[str, dict[str, list[str]]] = Field(
        default_factory=dict, description="Word map -> key -> phrases of the same sense.")


@dataclass(frozen=True)
class Synonyms:
    """The alternatives a paraphrase may use: per column key, and per word-map entry."""

    columns: dict[str, tuple[str, ...]]
    words: dict[str, dict[str, tuple[str, ...]]]

    @classmethod
    def default(cls) -> Synonyms:
        """The built-in English alternatives of the word maps, and no column's."""
        return cls(columns={}, words={m: dict(k) for m, k in DEFAULT_WORD_SYNONYMS.items()})

    def column(self, key: str) -> tuple[str, ...]:
        """The other names of column ``key``."""
        return self.columns.get(key, ())

    def word(self, name: str, key: str) -> tuple[str, ...]:
        """The alternatives of word map ``name``'s entry ``key``."""
        return self.words.get(name, {}).get(key, ())

    def to_json(self) -> dict[str, Any]:
        """The synonyms as a paraphrasing build's manifest records them
        (``config.llm.synonyms``)."""
        return {"columns": {k: list(v) for k, v in sorted(self.columns.items())},
                "words": {m: {k: list(v) for k, v in entries.items()}
                          for m, entries in self.words.items()}}


class PackSpec(_Strict):
    """``domain.yaml``."""

    format: Literal[2] = Field(description="Pack format version.")
    name: str = Field(pattern=r"^[a-z][a-z0-9_-]*$")
    title: str
    source: str = Field(description="Default source that yields this domain's world.")
    entity: EntityWords
    period: PeriodAxis | None = Field(default=None, description="None: no period axis.")
    documents: bool = Field(default=True, description="Whether entities have text.")
    instance: InstanceSpec = InstanceSpec()
    decidability: Decidability = Decidability()
    columns: list[ColumnSpec] = Field(default_factory=list)
    identities: list[str] = Field(default_factory=list, description="'a = b + c - d' lines.")
    related: list[list[str]] = Field(
        default_factory=list,
        description="Groups of columns so tied (physically, by definition) that one reveals "
                    "another, though no linear identity says so: never one in the table while "
                    "another is the chart.")
    statement_types: list[str] | None = Field(
        default=None, description="Types this domain makes; default: every worded type.")
    question: str = Field(description="Jinja2 template of the three-statement prompt.")
    words: dict[str, dict[str, str]] = Field(
        description="Word maps, e.g. cmp: {'>': 'greater than'}; order: {max: highest}.")
    forms: dict[str, list[str]] = Field(description="Jinja2 surface forms per statement type.")
    paraphrase: ParaphraseSpec | None = Field(
        default=None, description="What a paraphrase may write instead of the pack's words.")

    @field_validator("columns")
    @classmethod
    def _unique_keys(cls, columns: list[ColumnSpec]) -> list[ColumnSpec]:
        keys = [c.key for c in columns]
        dupes = sorted({k for k in keys if keys.count(k) > 1})
        if dupes:
            raise ValueError(f"duplicate column keys: {', '.join(dupes)}")
        return columns

    @field_validator("forms")
    @classmethod
    def _some_form(cls, forms: dict[str, list[str]]) -> dict[str, list[str]]:
        empty = [t for t, f in forms.items() if not f]
        if empty:
            raise ValueError(f"no surface form for: {', '.join(empty)}")
        return forms


@dataclass(frozen=True)
class StatementWords:
    """The pack's wording: word maps and surface forms per enabled type."""

    words: dict[str, dict[str, str]]
    forms: dict[str, list[str]]


@dataclass(frozen=True)
class DomainPack:
    """A loaded, validated domain pack."""

    path: Path
    spec: PackSpec
    words: StatementWords
    identities: tuple[Identity, ...]
    types: tuple[str, ...] = ()
    """The statement types this domain makes, in the pack's order (the plan's order)."""
    lines: Lines | None = field(default=None, compare=False, repr=False)

    @property
    def name(self) -> str:
        """The pack's registry name."""
        return self.spec.name

    @property
    def has_periods(self) -> bool:
        """Whether the domain has a period axis."""
        return self.spec.period is not None

    @property
    def instance_periods(self) -> int:
        """Periods an instance shows (one, never shown, without a period axis)."""
        return self.spec.instance.periods if self.has_periods else 1

    @property
    def period_label(self) -> str | None:
        """Header of the period column and title of the chart's category axis."""
        return self.spec.period.name if self.spec.period is not None else None

    def show_period(self, value: int) -> str:
        """A period value as the domain writes it."""
        return self.spec.period.show(value) if self.spec.period is not None else str(value)

    def related_to(self, key: str) -> frozenset[str]:
        """Columns that reveal ``key`` (or that it reveals) by the pack's ``related`` groups."""
        return frozenset(c for group in self.spec.related if key in group for c in group) - {key}

    def columns(self) -> dict[str, Column]:
        """The column catalogue as engine objects."""
        return {
            c.key: Column(c.key, c.label, c.description, c.unit, c.precision, c.chartable)
            for c in self.spec.columns
        }

    def wording_json(self) -> dict[str, Any]:
        """Everything the wording depends on, as the manifest records it."""
        period = self.spec.period
        return {"forms": self.words.forms, "words": self.words.words,
                "nouns": self.spec.entity.noun_list(), "singular": self.spec.entity.singular,
                "plural": self.spec.entity.plural, "question": self.spec.question,
                "period_format": period.format if period is not None else None}

    def synonyms(self) -> Synonyms:
        """What a paraphrase of this pack's statements may write instead of its words: the
        built-in English alternatives, each entry the pack's ``paraphrase.words`` names
        replaced by the pack's, and the pack's column synonyms."""
        section = self.spec.paraphrase or ParaphraseSpec()
        words = {m: dict(k) for m, k in DEFAULT_WORD_SYNONYMS.items()}
        for name, entries in section.words.items():
            for key, phrases in entries.items():
                words[name][key] = tuple(phrases)
        return Synonyms(columns={k: tuple(v) for k, v in section.columns.items()}, words=words)


def _check_template(where: str, text: str, variables: dict[str, Any]) -> None:
    """Render ``text`` once in the sandbox; a :class:`UserError` beginning with ``where`` if
    it cannot be."""
    render_template(text, variables, where)


def _enabled_types(spec: PackSpec, lines: Lines) -> tuple[str, ...]:
    """The statement types the pack enables, checked against the registry and the domain."""
    worded = list(spec.forms)
    for name in worded:
        if name not in STATEMENT_TYPES:
            raise UserError(f"{lines.where(('forms', name))}: unknown statement type {name!r} "
                            f"(known: {', '.join(STATEMENT_TYPES.names())})")
    wanted = spec.statement_types if spec.statement_types is not None else worded
    for i, name in enumerate(wanted):
        if name not in STATEMENT_TYPES:
            raise UserError(f"{lines.where(('statement_types', i))}: unknown statement type "
                            f"{name!r} (known: {', '.join(STATEMENT_TYPES.names())})")
        if name not in spec.forms:
            raise UserError(f"{lines.where(('statement_types', i))}: type {name!r} is enabled "
                            "but has no surface forms under 'forms'")
        kind = STATEMENT_TYPES.get(name)
        where = lines.where(("forms", name) if spec.statement_types is None
                            else ("statement_types", i))
        if kind.needs_documents and not spec.documents:
            raise UserError(f"{where}: {name} reads text but the domain has no documents "
                            "(documents: false)")
        if kind.min_periods > 1 and spec.period is None:
            raise UserError(f"{where}: {name} needs a period axis but the domain has none")
        if kind.min_periods > spec.instance.periods:
            raise UserError(f"{where}: {name} needs {kind.min_periods} periods per instance "
                            f"but instance.periods is {spec.instance.periods}")
    dupes = sorted({n for n in wanted if wanted.count(n) > 1})
    if dupes:
        raise UserError(f"{lines.where(('statement_types',))}: listed twice: {', '.join(dupes)}")
    return tuple(wanted)


def _check_wording(spec: PackSpec, lines: Lines) -> None:
    """Render every surface form and the question once, so a typo fails at load time. A
    form is rendered with the variables its type fills on the domain's instances: a type
    with a one-period shape (CT+RK, AR+RK) fills others on an instance of one period."""
    periods = spec.instance.periods if spec.period is not None else 1
    for type_name, forms in spec.forms.items():
        kind = STATEMENT_TYPES.get(type_name)
        variables = {v: f"<{v}>" for v in (*COMMON_VARIABLES, *kind.variables_for(periods))}
        for i, form in enumerate(forms):
            where = lines.where(("forms", type_name, i))
            if kind.variables_for(periods) != kind.variables:
                where += f" (a form for instances of one period: {type_name} then ranks " \
                         f"among the {spec.entity.plural} a condition picks)"
            _check_template(where, form, variables)
    question = {v: f"<{v}>" for v in COMMON_VARIABLES} | {
        "names": "<names>", "statements": ["<1>", "<2>", "<3>"]}
    _check_template(lines.where(("question",)), spec.question, question)


def _phrase_problem(phrase: str) -> str | None:
    if not phrase.strip() or phrase != " ".join(phrase.split()):
        return "expected a phrase (words with single spaces, no leading or trailing space)"
    if any(c in phrase for c in "{}<>\\") or not phrase.isprintable():
        return f"{phrase!r} holds a character a phrase does not"
    return None


def _check_paraphrase(spec: PackSpec, section: ParaphraseSpec, lines: Lines) -> None:
    """The ``paraphrase:`` section names known columns and word-map entries, with phrases
    that name nothing else: a column synonym is no other column's label or synonym, a word
    synonym no phrase of another entry of its map."""
    labels = {c.key: c.label for c in spec.columns}
    owner: dict[str, str] = {" ".join(label.lower().split()): key for key, label in labels.items()}
    for key, phrases in section.columns.items():
        where = lines.where(("paraphrase", "columns", key))
        if labels and key not in labels:
            raise UserError(f"{where}: unknown column {key!r} (the pack's columns: "
                            f"{', '.join(sorted(labels))})")
        for i, phrase in enumerate(phrases):
            at = lines.where(("paraphrase", "columns", key, i))
            problem = _phrase_problem(phrase)
            if problem is not None:
                raise UserError(f"{at}: {problem}")
            other = owner.setdefault(phrase.lower(), key)
            if other != key:
                said = f"the label of column {other!r}" if labels.get(other, "").lower() == \
                    phrase.lower() else f"a synonym of column {other!r}"
                raise UserError(f"{at}: {phrase!r} is {said}: a paraphrase naming it would "
                                "name another column")
    for name, entries in section.words.items():
        if name not in WORD_MAPS:
            raise UserError(f"{lines.where(('paraphrase', 'words', name))}: unknown word map "
                            f"{name!r} (known: {', '.join(WORD_MAPS)})")
        sense_of: dict[str, str] = {}
        for key in WORD_MAPS[name]:
            for phrase in (spec.words[name][key], *DEFAULT_WORD_SYNONYMS[name][key]):
                sense_of.setdefault(phrase.lower(), key)
        for key, phrases in entries.items():
            if key not in WORD_MAPS[name]:
                raise UserError(f"{lines.where(('paraphrase', 'words', name, key))}: unknown "
                                f"entry {key!r} of word map {name!r} (known: "
                                f"{', '.join(WORD_MAPS[name])})")
            for i, phrase in enumerate(phrases):
                at = lines.where(("paraphrase", "words", name, key, i))
                problem = _phrase_problem(phrase)
                if problem is not None:
                    raise UserError(f"{at}: {problem}")
                other = sense_of.get(phrase.lower(), key)
                if other != key:
                    raise UserError(f"{at}: {phrase!r} says {name} {other!r}, not {key!r}")


def _identities(spec: PackSpec, lines: Lines) -> tuple[Identity, ...]:
    keys = {c.key for c in spec.columns}
    identities = []
    for i, text in enumerate(spec.identities):
        try:
            identity = parse_identity(text)
        except ValueError as exc:
            raise UserError(f"{lines.where(('identities', i))}: {exc}") from None
        unknown = sorted(identity.members - keys)
        if unknown:
            raise UserError(f"{lines.where(('identities', i))}: unknown columns "
                            f"{', '.join(unknown)}")
        identities.append(identity)
    return tuple(identities)


def load_pack(folder: Path) -> DomainPack:
    """Load and validate the pack in ``folder``; raise :class:`UserError` on any problem.

    A pack whose ``domain.yaml`` is unchanged (same modification time and size) since it was
    last loaded in this process is not read again.
    """
    return _load_pack(folder, file_stamp(folder / DOMAIN_FILE))


def pack_from_data(folder: Path, data: Any, lines: Lines) -> DomainPack:
    """Validate the parsed ``domain.yaml`` of ``folder`` (``lines`` locates its fields)."""
    if not isinstance(data, dict):
        raise UserError(f"{lines.path}: expected a mapping of fields at the top level")
    if data.get("format") == 1:
        raise UserError(f"{lines.where(('format',))}: pack format 1 (pack.yaml + "
                        "statements.yaml) was replaced by format 2; see docs/domains.md")
    try:
        spec = PackSpec.model_validate(data)
    except ValidationError as exc:
        raise UserError(validation_message(lines, exc)) from None
    keys = {c.key for c in spec.columns}
    peer = spec.instance.peer_column
    if peer is not None and keys and peer not in keys:
        raise UserError(f"{lines.where(('instance', 'peer_column'))}: unknown column {peer!r}")
    for name, wanted in WORD_MAPS.items():
        missing = [k for k in wanted if k not in spec.words.get(name, {})]
        if missing:
            raise UserError(f"{lines.where(('words', name))}: word map {name!r} needs entries "
                            f"for {', '.join(missing)}")
    identities = _identities(spec, lines)
    for i, group in enumerate(spec.related):
        unknown = sorted(set(group) - keys) if keys else []
        if unknown or len(group) < 2:
            problem = f"unknown columns {', '.join(unknown)}" if unknown else \
                "a group needs two columns or more"
            raise UserError(f"{lines.where(('related', i))}: {problem}")
    types = _enabled_types(spec, lines)
    _check_wording(spec, lines)
    if spec.paraphrase is not None:
        _check_paraphrase(spec, spec.paraphrase, lines)
    words = StatementWords(words=spec.words, forms={t: spec.forms[t] for t in types})
    return DomainPack(path=folder, spec=spec, words=words, identities=identities,
                      types=types, lines=lines)


def check_columns(pack: DomainPack) -> None:
    """A pack must name enough columns for its instances (after its source filled them)."""
    spec = pack.spec
    where = pack.lines.where(("columns",)) if pack.lines else f"{pack.path}: field 'columns'"
    if len(spec.columns) < 2:
        raise UserError(f"{where}: a domain needs at least two columns (a table column and "
                        "a chart column)")
    if not any(c.chartable for c in spec.columns):
        raise UserError(f"{where}: no column is chartable")


@functools.lru_cache(maxsize=16)
def _load_pack(folder: Path, stamp: tuple[int, int] | None) -> DomainPack:
    data, lines = read_yaml(folder / DOMAIN_FILE)
    return pack_from_data(folder, data, lines)


def builtin_pack_names() -> list[str]:
    """Names of the packs shipped in ``hopvista.templates``."""
    root = resources.files("hopvista.templates")
    return sorted(p.name for p in root.iterdir() if p.is_dir() and (p / DOMAIN_FILE).is_file())


def resolve_pack(name_or_path: str) -> DomainPack:
    """A built-in pack by name, or a user's pack folder by path."""
    if name_or_path in builtin_pack_names():
        folder = Path(str(resources.files("hopvista.templates") / name_or_path))
        return load_pack(folder)
    candidate = Path(name_or_path)
    try:
        is_folder = candidate.is_dir()
    except OSError as exc:  # a name the system cannot hold, a loop of links
        raise UserError(f"domain {excerpt(name_or_path)}: not a built-in domain, and not a "
                        f"pack folder: {exc.strerror or exc}") from None
    if is_folder:
        if not os.path.lexists(candidate / DOMAIN_FILE):  # present but no file: read says why
            old = (candidate / "pack.yaml").is_file()
            hint = (" (pack.yaml + statements.yaml is the old format: merge them into "
                    "domain.yaml, see docs/domains.md)") if old else ""
            raise UserError(f"{candidate}: not a domain pack (no {DOMAIN_FILE}){hint}")
        return load_pack(candidate)
    known = ", ".join(builtin_pack_names()) or "none"
    raise UserError(f"unknown domain {excerpt(name_or_path)} (built-in domains: {known}; "
                    "or give the path of a pack folder)")


# The pack's words rendered: statement forms and the question, sandboxed (hopvista.sandbox).

_ENV = sandbox.PackEnvironment(keep_trailing_newline=False)


@lru_cache(maxsize=512)
def template(source: str) -> jinja2.Template:
    """A compiled, sandboxed template of the pack (strict: an unknown variable is an error)."""
    return _ENV.from_string(source)


def render_template(source: str, variables: dict[str, Any], where: str) -> str:
    """``source`` rendered with ``variables``; a :class:`UserError` beginning with ``where``
    (the file, line and field the template comes from) when it cannot be."""
    try:
        return template(source).render(**variables)
    except sandbox.TEMPLATE_ERRORS as exc:
        raise UserError(f"{where}: {sandbox.describe(exc, sorted(variables))}") from None


def render_form(pack: DomainPack, type_name: str, variables: dict[str, str],
                rng: np.random.Generator) -> str:
    """One surface form of ``type_name``, chosen by ``rng``, rendered with ``variables``."""
    forms = pack.words.forms[type_name]
    index = int(rng.integers(len(forms)))
    text = render_template(forms[index], variables,
                           field_where(pack, ("forms", type_name, index))).strip()
    return text[0].upper() + text[1:] if text else text


def render_question(pack: DomainPack, variables: dict[str, Any]) -> str:
    """The pack's question rendered with ``variables`` (``names``, ``statements``, …)."""
    return render_template(pack.spec.question, variables, field_where(pack, ("question",)))


def field_where(pack: DomainPack, loc: Sequence[int | str]) -> str:
    """``domain.yaml:LINE: field 'a.b.0'`` for a field of ``pack``."""
    if pack.lines is not None:
        return pack.lines.where(loc)
    return f"{pack.path / DOMAIN_FILE}: field '{'.'.join(str(p) for p in loc)}'"
