"""Domain packs: the YAML that names a domain's columns, identities, wording and defaults.

A pack is a folder holding ``pack.yaml`` and ``statements.yaml`` (and whatever its source
needs, such as Jinja2 text templates). Built-in packs live in ``hopvista.templates``; a user's
pack is any folder given by path. Every field is validated; unknown keys are rejected and
errors name the file and the field.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import jinja2
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from hopvista.errors import UserError
from hopvista.world import Column

PACK_FORMAT = 1
STATEMENT_TYPES = (
    "FC", "CT", "AR", "TR", "RK",
    "FC+CT", "FC+AR", "FC+TR", "FC+RK", "CT+TR", "CT+RK", "AR+TR", "AR+RK",
    "FC+CT+TR", "FC+CT+RK", "FC+AR+TR", "FC+AR+RK",
)


_SELECTOR_WORDS = {
    "FC": (),
    "CT": ("column", "cmp", "threshold", "year"),
    "AR": ("column", "year1", "year2", "sign", "result"),
    "TR": ("column", "year1", "year2", "direction", "direction_verb"),
    "RK": ("column", "order", "year"),
    "CT+TR": ("cond_column", "cmp", "threshold", "first", "last", "trend_column", "direction",
              "direction_verb"),
    "CT+RK": ("anchor", "cond_column", "cmp", "threshold", "order", "rank_column"),
}
_SELECTOR_WORDS["AR+TR"] = _SELECTOR_WORDS["CT+TR"]
_SELECTOR_WORDS["AR+RK"] = (*_SELECTOR_WORDS["CT+RK"], "sign", "cond_column2")
WORD_MAPS = {"cmp": (">", "<"), "sign": ("+", "-"), "order": ("max", "min"),
             "direction": ("increasing", "decreasing"),
             "direction_verb": ("increasing", "decreasing")}


def type_variables(type_name: str) -> tuple[str, ...]:
    """The variables a surface form of ``type_name`` may use."""
    if type_name.startswith("FC+"):
        return ("noun", "fact", *_SELECTOR_WORDS[type_name[3:]])
    base = ("noun", "entity", "fact") if type_name == "FC" else ("noun", "entity")
    return (*base, *_SELECTOR_WORDS[type_name])


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ColumnSpec(_Strict):
    """One column of the domain's catalogue."""

    key: str = Field(pattern=r"^[a-z][a-z0-9_]*$", description="Short mnemonic (Compustat-like).")
    label: str = Field(min_length=1, description="The one display name used everywhere.")
    description: str = Field(description="What the column measures.")
    unit: str = Field(description="Unit of the values, e.g. 'USD millions'.")
    precision: int = Field(ge=0, le=6, description="Decimals shown in tables and statements.")
    chartable: bool = Field(default=True, description="May be the instance's chart column.")


class EntityWords(_Strict):
    """How statements and tables name the domain's entities."""

    label: str = Field(description="Table header of the entity column, e.g. 'Company'.")
    nouns: list[str] = Field(min_length=1, description="Nouns for 'the company ...' clauses.")


class InstanceSpec(_Strict):
    """Shape of one instance (FCMR: 3 companies, 5 years, 6 table columns + 1 chart)."""

    entities: int = Field(default=3, ge=3, le=8)
    periods: int = Field(default=5, ge=3, le=12)
    table_columns: int = Field(default=6, ge=2, le=20)
    peer_column: str | None = Field(default=None, description="Column used to pick peers.")
    peer_ratio: float = Field(default=4.0, gt=1.0, description="Max scale ratio among peers.")


class Decidability(_Strict):
    """Margins that make chart-read facts visually decidable (fractions of the axis span)."""

    min_rank_gap: float = Field(default=0.03, gt=0, lt=1)
    min_trend_step: float = Field(default=0.03, gt=0, lt=1)


class PackSpec(_Strict):
    """``pack.yaml``."""

    format: Literal[1] = Field(description="Pack format version.")
    name: str = Field(pattern=r"^[a-z][a-z0-9_-]*$")
    title: str
    source: str = Field(description="Default source that yields this domain's world.")
    period_label: str = Field(default="Year")
    entity: EntityWords
    instance: InstanceSpec = InstanceSpec()
    decidability: Decidability = Decidability()
    columns: list[ColumnSpec] = Field(min_length=3)
    identities: list[str] = Field(default_factory=list, description="'a = b + c - d' lines.")
    question: str = Field(description="Jinja2 template of the three-statement prompt.")

    @field_validator("columns")
    @classmethod
    def _unique_keys(cls, columns: list[ColumnSpec]) -> list[ColumnSpec]:
        keys = [c.key for c in columns]
        dupes = sorted({k for k in keys if keys.count(k) > 1})
        if dupes:
            raise ValueError(f"duplicate column keys: {', '.join(dupes)}")
        return columns


class StatementWords(_Strict):
    """``statements.yaml``: surface forms per statement type and the small word maps."""

    format: Literal[1]
    words: dict[str, dict[str, str]] = Field(
        description="Word maps, e.g. cmp: {'>': 'greater than'}; order: {max: highest}.")
    forms: dict[str, list[str]] = Field(description="Jinja2 surface forms per statement type.")

    @field_validator("words")
    @classmethod
    def _word_maps(cls, words: dict[str, dict[str, str]]) -> dict[str, dict[str, str]]:
        for name, keys in WORD_MAPS.items():
            missing = [k for k in keys if k not in words.get(name, {})]
            if missing:
                raise ValueError(f"word map {name!r} needs entries for {', '.join(missing)}")
        return words

    @field_validator("forms")
    @classmethod
    def _all_types(cls, forms: dict[str, list[str]]) -> dict[str, list[str]]:
        unknown = sorted(set(forms) - set(STATEMENT_TYPES))
        if unknown:
            raise ValueError(f"unknown statement types: {', '.join(unknown)}")
        missing = [t for t in STATEMENT_TYPES if not forms.get(t)]
        if missing:
            raise ValueError(f"no surface form for: {', '.join(missing)}")
        return forms


@dataclass(frozen=True)
class Identity:
    """A linear accounting identity ``lhs = ±t1 ±t2 ...`` between columns."""

    text: str
    lhs: str
    terms: tuple[tuple[int, str], ...]

    @property
    def members(self) -> frozenset[str]:
        """Every column the identity mentions."""
        return frozenset([self.lhs, *(c for _, c in self.terms)])


_TERM = re.compile(r"\s*([+-])?\s*([a-z][a-z0-9_]*)\s*")


def parse_identity(text: str) -> Identity:
    """Parse ``'gp = sale - cogs'``; raise ``ValueError`` naming the bad part."""
    if text.count("=") != 1:
        raise ValueError(f"identity {text!r} needs exactly one '='")
    left, right = (part.strip() for part in text.split("="))
    if not re.fullmatch(r"[a-z][a-z0-9_]*", left):
        raise ValueError(f"identity {text!r}: left side must be one column")
    terms: list[tuple[int, str]] = []
    pos = 0
    while pos < len(right):
        match = _TERM.match(right, pos)
        if not match or match.end() == pos:
            raise ValueError(f"identity {text!r}: cannot read {right[pos:]!r}")
        sign = -1 if match.group(1) == "-" else 1
        if terms and match.group(1) is None:
            raise ValueError(f"identity {text!r}: missing + or - before {match.group(2)!r}")
        terms.append((sign, match.group(2)))
        pos = match.end()
    if not terms:
        raise ValueError(f"identity {text!r}: right side is empty")
    return Identity(text=text, lhs=left, terms=tuple(terms))


def derivable_closure(known: set[str] | frozenset[str], identities: list[Identity]) -> set[str]:
    """Columns computable from ``known`` by applying identities until nothing new follows."""
    closure = set(known)
    changed = True
    while changed:
        changed = False
        for identity in identities:
            missing = identity.members - closure
            if len(missing) == 1:
                closure |= missing
                changed = True
    return closure


@dataclass(frozen=True)
class DomainPack:
    """A loaded, validated domain pack."""

    path: Path
    spec: PackSpec
    words: StatementWords
    identities: tuple[Identity, ...]

    @property
    def name(self) -> str:
        """The pack's registry name."""
        return self.spec.name

    def columns(self) -> dict[str, Column]:
        """The column catalogue as engine objects."""
        return {
            c.key: Column(c.key, c.label, c.description, c.unit, c.precision, c.chartable)
            for c in self.spec.columns
        }


def _read_yaml(path: Path) -> Any:
    try:
        with path.open(encoding="utf-8") as fh:
            return yaml.safe_load(fh)
    except FileNotFoundError:
        raise UserError(f"{path}: file not found") from None
    except UnicodeDecodeError as exc:
        raise UserError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except RecursionError:
        raise UserError(f"{path}: invalid YAML: nested too deeply") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot read it: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise UserError(f"{path}{where}: invalid YAML: {problem}") from None


def _validation_message(path: Path, exc: ValidationError) -> str:
    first = exc.errors()[0]
    field = ".".join(str(p) for p in first["loc"]) or "(top level)"
    more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
    return f"{path}: field '{field}': {first['msg']}{more}"


def _check_forms(path: Path, words: StatementWords) -> None:
    """Render every surface form once, so a typo fails at load time naming its place."""
    env = jinja2.Environment(undefined=jinja2.StrictUndefined, autoescape=False)
    for type_name, forms in words.forms.items():
        variables = {v: f"<{v}>" for v in type_variables(type_name)}
        for i, form in enumerate(forms):
            where = f"{path}: field 'forms.{type_name}.{i}'"
            try:
                env.from_string(form).render(**variables)
            except jinja2.TemplateSyntaxError as exc:
                raise UserError(f"{where}: template syntax: {exc.message}") from None
            except jinja2.UndefinedError as exc:
                raise UserError(f"{where}: {exc.message} (available: "
                                f"{', '.join(sorted(variables))})") from None
            except (jinja2.TemplateError, TypeError, ValueError) as exc:
                raise UserError(f"{where}: cannot render: {exc}") from None


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size


def load_pack(folder: Path) -> DomainPack:
    """Load and validate the pack in ``folder``; raise :class:`UserError` on any problem.

    A pack whose two files are unchanged (same modification time and size) since it was last
    loaded in this process is not read again.
    """
    pack_file, words_file = folder / "pack.yaml", folder / "statements.yaml"
    return _load_pack(folder, _stamp(pack_file), _stamp(words_file))


@functools.lru_cache(maxsize=16)
def _load_pack(folder: Path, pack_stamp: tuple[int, int] | None,
               words_stamp: tuple[int, int] | None) -> DomainPack:
    pack_file, words_file = folder / "pack.yaml", folder / "statements.yaml"
    try:
        spec = PackSpec.model_validate(_read_yaml(pack_file))
    except ValidationError as exc:
        raise UserError(_validation_message(pack_file, exc)) from None
    try:
        words = StatementWords.model_validate(_read_yaml(words_file))
    except ValidationError as exc:
        raise UserError(_validation_message(words_file, exc)) from None
    _check_forms(words_file, words)
    keys = {c.key for c in spec.columns}
    identities = []
    for i, text in enumerate(spec.identities):
        try:
            identity = parse_identity(text)
        except ValueError as exc:
            raise UserError(f"{pack_file}: field 'identities.{i}': {exc}") from None
        unknown = sorted(identity.members - keys)
        if unknown:
            raise UserError(
                f"{pack_file}: field 'identities.{i}': unknown columns {', '.join(unknown)}")
        identities.append(identity)
    peer = spec.instance.peer_column
    if peer is not None and peer not in keys:
        raise UserError(f"{pack_file}: field 'instance.peer_column': unknown column {peer!r}")
    return DomainPack(path=folder, spec=spec, words=words, identities=tuple(identities))


def builtin_pack_names() -> list[str]:
    """Names of the packs shipped in ``hopvista.templates``."""
    root = resources.files("hopvista.templates")
    return sorted(p.name for p in root.iterdir() if p.is_dir() and (p / "pack.yaml").is_file())


def resolve_pack(name_or_path: str) -> DomainPack:
    """A built-in pack by name, or a user's pack folder by path."""
    if name_or_path in builtin_pack_names():
        folder = Path(str(resources.files("hopvista.templates") / name_or_path))
        return load_pack(folder)
    candidate = Path(name_or_path)
    if candidate.is_dir():
        if not (candidate / "pack.yaml").is_file():
            raise UserError(f"{candidate}: not a domain pack (no pack.yaml)")
        return load_pack(candidate)
    known = ", ".join(builtin_pack_names()) or "none"
    raise UserError(f"unknown domain {name_or_path!r} (built-in domains: {known}; "
                    "or give the path of a pack folder)")
