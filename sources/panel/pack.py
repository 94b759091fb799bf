"""The panel source's ``adapt_pack`` hook: a domain pack fitted to the data folder.

Three layers, each over the one before:

1. the pack's wording and defaults: the built-in ``panel`` pack (generic wording through
   ``{{ noun }}``, ``{{ plural }}`` and the period variables), or a user's own pack folder
   whose ``domain.yaml`` says ``source: panel``;
2. what the data says: one column per numeric CSV column (key slugified from the header
   label, label = the header, precision = the most decimals written), the entity column's
   header as the entity label, the period column's header as the period name (or no period
   axis), ``documents`` = whether ``texts.jsonl`` exists, and an instance shape the data can
   fill (at most as many periods and table columns as there are);
3. what the user says: the pack folder's own ``domain.yaml`` (a user pack), or the data
   folder's optional ``domain.yaml`` with ``gen build panel --data DIR`` -- any fields of the
   pack format, all optional; a ``columns`` entry names a CSV column by ``label`` or ``key``
   and overrides its fields (``unit``, ``precision``, ``description``, ``chartable``, a new
   ``key``).

The result is validated as any pack is (:func:`hopvista.domain.pack_from_data`); an error in
the user's ``domain.yaml`` names its line and field.
"""

from __future__ import annotations

import copy
import os
from importlib import resources
from pathlib import Path
from typing import Any

from hopvista.domain import DOMAIN_FILE, DomainPack, PackSpec, check_columns, pack_from_data
from hopvista.errors import UserError, one_line
from hopvista.program.statement_types import STATEMENT_TYPES
from hopvista.reading import Lookalikes
from hopvista.sources import SourceOptions
from hopvista.sources.panel.table import (
    Panel,
    looks_the_same,
    name_problem,
    quoted,
    read_panel,
    slug_key,
)
from hopvista.sources.sec.files import entry_problem
from hopvista.yamlfile import Lines, read_yaml

__all__ = ["PANEL_FILE", "TEXTS_FILE", "data_folder", "panel_pack", "texts_path"]

PANEL_FILE = "panel.csv"
TEXTS_FILE = "texts.jsonl"
NO_PERIOD_FILE = "no_period.yaml"
#: Entities an instance shows by default when the data have no period column.
NO_PERIOD_ENTITIES = 5
_COLUMN_FIELDS = {"key", "label", "description", "unit", "precision", "chartable"}


def _builtin_folder() -> Path:
    return Path(str(resources.files("hopvista.templates") / "panel"))


def is_builtin(pack: DomainPack) -> bool:
    """Whether ``pack`` is the built-in generic ``panel`` pack (not a user's own pack)."""
    try:
        return pack.path.resolve() == _builtin_folder().resolve()
    except OSError:
        return False


def data_folder(pack: DomainPack, options: SourceOptions) -> Path:
    """The folder holding ``panel.csv``: ``--data``, else a user pack's own folder."""
    folder = options.data
    if folder is None:
        if is_builtin(pack):
            raise UserError(f"the panel domain needs --data DIR (a folder with {PANEL_FILE}, "
                            f"optionally {TEXTS_FILE} and {DOMAIN_FILE})")
        folder = pack.path
    problem = entry_problem(folder, "folder")
    if problem is not None:
        raise UserError(one_line(f"--data {folder}: {problem}"))
    problem = entry_problem(folder / PANEL_FILE)
    if problem is not None and os.path.lexists(folder / PANEL_FILE):
        raise UserError(one_line(f"{folder / PANEL_FILE}: {problem}"))
    if problem is not None:
        raise UserError(one_line(f"{folder}: no {PANEL_FILE} (the panel source reads "
                                 f"{PANEL_FILE}, optionally {TEXTS_FILE} and {DOMAIN_FILE})"))
    return folder


def texts_path(folder: Path) -> Path | None:
    """``texts.jsonl`` of the data folder, or ``None`` when there is none."""
    path = folder / TEXTS_FILE
    return path if path.exists() or path.is_symlink() else None


def _no_period_wording() -> dict[str, Any]:
    """The built-in pack's forms for data without a period column (``no_period.yaml``)."""
    data, lines = read_yaml(_builtin_folder() / NO_PERIOD_FILE)
    if not isinstance(data, dict) or set(data) != {"forms"}:
        raise UserError(f"{lines.path}: expected one field, 'forms'")
    return data


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """``over`` on top of ``base``: mappings merge key by key, everything else replaces."""
    out = copy.deepcopy(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _user_layer(pack: DomainPack, folder: Path) -> tuple[dict[str, Any], Lines]:
    """What the user said: the pack's own fields (a user pack), then the data folder's
    ``domain.yaml`` (when it is not the pack's own)."""
    own: dict[str, Any] = {} if is_builtin(pack) else pack.spec.model_dump(exclude_unset=True)
    lines = pack.lines or Lines(pack.path / DOMAIN_FILE)
    extra = folder / DOMAIN_FILE
    if not os.path.lexists(extra) or extra.resolve() == (pack.path / DOMAIN_FILE).resolve():
        return own, lines
    data, lines = read_yaml(extra)
    if data is None:
        return own, lines
    if not isinstance(data, dict):
        raise UserError(f"{extra}: expected a mapping of fields at the top level")
    for key in data:
        if key not in PackSpec.model_fields:
            raise UserError(f"{lines.where((str(key),))}: unknown field (a typo?); fields: "
                            f"{', '.join(PackSpec.model_fields)}")
    return _merge(own, data), lines


def _period_hint(user: dict[str, Any], builtin: bool) -> str | bool | None:
    """What the user said of the period column: its name, none (``False``), or nothing."""
    if "period" not in user:
        return None if builtin else False
    period = user["period"]
    if period is None:
        return False
    if isinstance(period, dict) and isinstance(period.get("name"), str):
        return str(period["name"])
    return None


def _columns(panel: Panel, user: dict[str, Any], lines: Lines) -> list[dict[str, Any]]:
    """One column per CSV column, the user's entries applied by label or key."""
    columns = [{"key": c.key, "label": c.label, "precision": c.precision, "unit": c.unit,
                "description": "", "chartable": True} for c in panel.columns]
    entries = user.get("columns", [])
    said: dict[int, int] = {}  # column index -> the user's entry for it
    if not isinstance(entries, list):
        raise UserError(f"{lines.where(('columns',))}: expected a list of columns")
    for i, entry in enumerate(entries):
        where = lines.where(("columns", i))
        if not isinstance(entry, dict) or not ({"key", "label"} & set(entry)):
            raise UserError(f"{where}: a column entry is a mapping naming a {PANEL_FILE} "
                            "column by 'label' or 'key'")
        unknown = sorted(str(k) for k in set(entry) - _COLUMN_FIELDS)
        if unknown:
            raise UserError(f"{lines.where(('columns', i, unknown[0]))}: unknown field "
                            f"(fields: {', '.join(sorted(_COLUMN_FIELDS))})")
        target = _find_column(columns, entry)
        if target is None:
            name = entry.get("label", entry.get("key"))
            raise UserError(f"{where}: no column {one_line(str(name))!r} in {panel.path} "
                            f"(columns: {', '.join(c.label for c in panel.columns)})")
        if _same_label(target, entry):
            entry = {k: v for k, v in entry.items() if k != "label"}  # the header's spelling
        target.update(entry)
        said[columns.index(target)] = i
    _check_shown_texts(panel, columns, said, user, lines)
    return columns


#: Where a text shown in the table is said: a field of ``domain.yaml``, or the CSV header.
_Said = tuple[int | str, ...] | None


def _check_shown_texts(panel: Panel, columns: list[dict[str, Any]], said: dict[int, int],
                       user: dict[str, Any], lines: Lines) -> None:
    """The labels and units the user's ``domain.yaml`` gives are shown as plain text, and
    the headers (entity label, period name, column labels) must be told apart."""
    headers: dict[str, tuple[Any, _Said]] = {"entity label": (panel.entity_label, None)}
    if panel.period_label is not None:
        headers["period name"] = (panel.period_label, None)
    for what, (part, name) in (("entity label", ("entity", "label")),
                               ("period name", ("period", "name"))):
        given = _mapping(user.get(part)).get(name)
        if isinstance(given, str):
            headers[what] = (given, (part, name))
    shown: list[tuple[str, Any, _Said]] = [(what, text, loc)
                                           for what, (text, loc) in headers.items()]
    written = _mapping(user.get("period")).get("format")
    if isinstance(written, str):
        shown.append(("period format", written, ("period", "format")))
    for j, column in enumerate(columns):
        entry = said.get(j)
        for key in ("label", "unit"):
            loc: _Said = ("columns", entry, key) \
                if entry is not None and key in user["columns"][entry] else None
            shown.append((f"column {key}", column[key], loc))
    seen: Lookalikes[str] = Lookalikes()
    shown.sort(key=lambda entry: entry[2] is not None)  # what the user said is the twin
    for what, text, loc in shown:
        where = lines.where(loc) if loc is not None else f"{panel.path}:1"
        if not isinstance(text, str) or not text:
            continue  # the pack's schema says what a field must be
        why = name_problem(text)
        if why is not None:
            raise UserError(f"{where}: the {what} {quoted(text)} {why}")
        if what in ("column unit", "period format"):
            continue
        twin = seen.add(text, where, distinct=True)
        if twin is not None and twin[0] == text:
            raise UserError(f"{where}: the {what} {quoted(text)} is also a header at "
                            f"{twin[1]} (the table's headers must differ)")
        if twin is not None:
            raise UserError(f"{where}: the {what} {looks_the_same(text, twin[0])} "
                            f"({twin[1]})")


def _same_label(column: dict[str, Any], entry: dict[str, Any]) -> bool:
    label = entry.get("label")
    return isinstance(label, str) and column["label"].casefold() == label.casefold()


def _find_column(columns: list[dict[str, Any]], entry: dict[str, Any]) -> dict[str, Any] | None:
    key = entry.get("key")
    for column in columns:
        if _same_label(column, entry):
            return column
    for column in columns:
        if isinstance(key, str) and (key == column["key"]
                                     or key == slug_key(column["label"], set(), "")):
            return column
    return None


#: Entity-column headers that name no kind of thing ("Name", "ID"): the generic nouns stay.
_NOT_NOUNS = frozenset({"name", "names", "entity", "entities", "id", "ids", "item", "items",
                        "label", "key", "code", "unit", "units", "object", "subject", "row"})


def plural_of(noun: str) -> str:
    """The English plural of a lower-case noun (the regular rules, a few irregulars)."""
    irregular = {"person": "people", "man": "men", "woman": "women", "child": "children",
                 "mouse": "mice", "goose": "geese", "species": "species", "series": "series",
                 "analysis": "analyses", "crisis": "crises", "datum": "data"}
    if noun in irregular:
        return irregular[noun]
    if noun.endswith(("s", "x", "z", "ch", "sh")):
        return noun + "es"
    if noun.endswith("y") and noun[-2:-1] not in ("a", "e", "i", "o", "u", ""):
        return noun[:-1] + "ies"
    return noun + "s"


def header_nouns(header: str) -> dict[str, Any]:
    """The entity's nouns read off the entity column's header (``"Club"`` -> singular
    "club", plural "clubs": statements say "the club"); nothing for a header that names no
    kind of thing ("Name", "ID") or is not one or two plain words ("Club Name" counts as
    "Club")."""
    words = header.strip().split()
    if len(words) == 2 and words[1].lower() in _NOT_NOUNS:
        words = words[:1]
    if len(words) != 1 or not words[0].isalpha() or not words[0].isascii():
        return {}
    noun = words[0].lower()
    if noun in _NOT_NOUNS or len(noun) < 3:
        return {}
    if noun.endswith("s") and not noun.endswith(("ss", "us", "is")):
        return {}  # a plural header ("Clubs"): its singular is a guess
    return {"singular": noun, "plural": plural_of(noun)}


def _mapping(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _instance(merged: dict[str, Any], user: dict[str, Any], panel: Panel,
              columns: int, lines: Lines) -> dict[str, Any]:
    instance = dict(merged.get("instance") or {})
    given = _mapping(user.get("instance"))
    entities = instance.get("entities", 3)
    if not panel.has_period and "entities" not in given:
        # measured once, an instance needs more entities for a condition to leave two or
        # more of them and a ranking among those to be false of one (CT+RK, AR+RK)
        entities = instance["entities"] = max(entities, min(NO_PERIOD_ENTITIES,
                                                            len(panel.entities)))
    if isinstance(entities, int) and len(panel.entities) < entities:
        raise UserError(f"{panel.path}: {len(panel.entities)} entities; an instance shows "
                        f"{entities}, so at least that many are needed")
    periods = instance.get("periods", 5)
    if isinstance(periods, int):
        instance["periods"] = min(periods, len(panel.periods)) if panel.has_period else 1
    tables = instance.get("table_columns", 6)
    if isinstance(tables, int) and tables > columns - 1:
        if "table_columns" in given:
            raise UserError(f"{lines.where(('instance', 'table_columns'))}: {tables} table "
                            f"columns and a chart column need {tables + 1} columns; "
                            f"{panel.path.name} has {columns}")
        instance["table_columns"] = columns - 1
    return instance


def _types(merged: dict[str, Any], documents: bool, periods: int) -> list[str]:
    """The worded types this data can make (text types only with texts, trend and
    period-condition types only with enough periods)."""
    out = []
    for name in merged.get("forms") or {}:
        if name not in STATEMENT_TYPES:
            out.append(name)  # reported by the pack loader, naming its line
            continue
        kind = STATEMENT_TYPES.get(name)
        if (kind.needs_documents and not documents) or kind.min_periods > periods:
            continue
        out.append(name)
    return out


def panel_pack(pack: DomainPack, options: SourceOptions) -> DomainPack:
    """``pack`` fitted to the data folder (see the module docstring for the layers)."""
    folder = data_folder(pack, options)
    builtin = is_builtin(pack)
    base = pack.spec.model_dump(exclude_unset=True)
    user, lines = _user_layer(pack, folder)
    panel = read_panel(folder / PANEL_FILE, _period_hint(user, builtin))
    texts = texts_path(folder)

    derived: dict[str, Any] = {"entity": {"label": panel.entity_label}}
    if builtin:
        derived["entity"] |= header_nouns(panel.entity_label)
        derived["title"] = f"Panel data: {folder.resolve().name}"
        if not panel.has_period:
            base = _merge(base, _no_period_wording())
    merged = _merge(_merge(base, derived), user)
    if panel.has_period:
        merged["period"] = {"name": panel.period_label, **_mapping(user.get("period"))}
    elif isinstance(user.get("period"), dict):
        raise UserError(f"{lines.where(('period',))}: {panel.path} has no period column "
                        "(see docs/panel.md for how it is recognised)")
    else:
        merged["period"] = None
    if user.get("documents") is True and texts is None:
        raise UserError(f"{lines.where(('documents',))}: documents: true, but {folder} has "
                        f"no {TEXTS_FILE}")
    merged["documents"] = texts is not None and user.get("documents", True) is not False
    merged["columns"] = _columns(panel, user, lines)
    merged["instance"] = _instance(merged, user, panel, len(merged["columns"]), lines)
    if "statement_types" not in user:
        periods = merged["instance"]["periods"] if panel.has_period else 1
        merged["statement_types"] = _types(merged, merged["documents"], periods)
    adapted = pack_from_data(folder, merged, lines)
    check_columns(adapted)
    return adapted
