"""Reading ``panel.csv``: entities, an optional period column, then numeric columns.

The first row is the header: the entity column's label, then (optionally) the period column's,
then one label per numeric column. Each following row is one entity in one period (or, without
a period column, one entity). The second column is the **period column** when

* the pack names it (its ``period.name`` equals the header, case ignored), or
* its header is a usual period name (:data:`PERIOD_NAMES`: Year, Season, Quarter, Month, ...),
  or
* every value in it is an integer and every entity has at least two rows (the values repeat
  per entity: a panel over time).

A pack that sets ``period: null`` has no period column, whatever the header says. Period values
are integers (years, seasons, temperatures in K, ...). A cell of a numeric column is a decimal
number as people write it (``12``, ``-3.25``, ``1e3``, ``24,481``, ``$1,200.50``, ``12.5%``);
an empty cell, ``NA``, ``N/A`` or ``NaN`` is a missing value. A column whose every cell writes
the same percent sign or currency symbol has it as its unit.
A column's precision is the largest number of decimals written in it.

Every problem is a :class:`~hopvista.errors.UserError` naming the file and line.
"""

from __future__ import annotations

import csv
import io
import re
import unicodedata
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path

from hopvista.display import undrawable, unshowable_number
from hopvista.errors import UserError, one_line
from hopvista.reading import (
    Lookalikes,
    character_name,
    first_difference,
    invisible_character,
    visible_text,
)
from hopvista.sources.sec.files import read_data_file
from hopvista.sources.sec.model import SourceFileError

__all__ = ["MAX_NAME_CHARS", "MAX_PRECISION", "MISSING", "PERIOD_NAMES", "Panel", "PanelColumn",
           "looks_the_same", "name_problem", "quoted", "read_panel", "slug_key", "slug_id"]

#: Headers that make the second column the period column.
PERIOD_NAMES = frozenset((
    "year", "years", "fiscal_year", "season", "seasons", "period", "periods", "quarter",
    "month", "week", "day", "date", "round", "matchday", "edition", "cycle", "wave", "vintage",
    "step", "epoch", "time", "temperature", "age", "level"))

#: Cell texts read as a missing value (case ignored), besides the empty cell.
MISSING = frozenset({"na", "n/a", "nan"})

#: Precision is capped here (the pack format allows at most 6 decimals).
MAX_PRECISION = 6

MIN_NUMERIC_COLUMNS = 3

#: Characters an entity name or a header label may have: they are shown in tables and charts.
MAX_NAME_CHARS = 200

#: Bidirectional embeddings, overrides and isolates: they reorder what follows them, so a name
#: holding one can display as another text.
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def name_problem(text: str) -> str | None:
    """Why ``text`` cannot be an entity name or a header label (plain text shown in tables
    and charts), or ``None``: a control character (NUL included), a lone surrogate, a
    Unicode noncharacter or a bidirectional control, more than :data:`MAX_NAME_CHARS`
    characters, or an invisible format character (a zero width space, a soft hyphen, ...;
    a zero width (non-)joiner only where its script needs none,
    :func:`hopvista.reading.invisible_character`)."""
    why = undrawable(text)
    if why is not None:
        return why
    for char in text:
        if char in BIDI_CONTROLS:
            return f"has a bidirectional control (U+{ord(char):04X}), which reorders the " \
                   "text shown"
    if len(text) > MAX_NAME_CHARS:
        return f"is {len(text)} characters long (at most {MAX_NAME_CHARS})"
    if not visible_text(text):
        return "shows nothing (it has only blank or invisible characters)"
    hidden = invisible_character(text)
    if hidden is not None:
        return f"has an invisible format character ({character_name(hidden)}), so it " \
               "would look the same as the text without it"
    return None


def looks_the_same(text: str, other: str) -> str:
    """``'Аcme' looks the same as 'Acme'`` and the character that tells them apart."""
    differs = first_difference(text, other)
    tells = f" ({character_name(differs)})" if differs is not None else ""
    return f"{quoted(text)}{tells} looks the same as {quoted(other)}"


def quoted(text: str) -> str:
    """``text`` quoted for a message (unprintable characters escaped), its head and tail
    when it is long."""
    return repr(text if len(text) <= 60 else f"{text[:40]}...{text[-12:]}")


@dataclass(frozen=True)
class PanelColumn:
    """One numeric column of the CSV: its header label, a unique key and its decimals."""

    label: str
    key: str
    precision: int
    unit: str = ""
    """``"%"`` or a currency symbol when every cell of the column writes it, else ``""``."""


@dataclass(frozen=True)
class Panel:
    """The parsed ``panel.csv``.

    ``values[entity_id][key]`` is aligned with ``periods`` (``[0]`` without a period
    column); ``None`` marks a missing value or a period the entity has no row for.
    """

    path: Path
    sha256: str
    entity_label: str
    period_label: str | None
    entities: tuple[tuple[str, str], ...]  # (id, display name), in order of first appearance
    periods: tuple[int, ...]
    columns: tuple[PanelColumn, ...]
    values: dict[str, dict[str, list[Decimal | None]]]

    @property
    def has_period(self) -> bool:
        """Whether the CSV has a period column."""
        return self.period_label is not None

    def entity_id(self, name_or_id: str) -> str | None:
        """The id of the entity called ``name_or_id`` (its name, or its id), or ``None``."""
        for entity_id, name in self.entities:
            if name_or_id in (name, entity_id):
                return entity_id
        folded = name_or_id.strip().casefold()
        for entity_id, name in self.entities:
            if folded == name.casefold():
                return entity_id
        return None


def _ascii_words(text: str) -> list[str]:
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return re.findall(r"[a-z0-9]+", plain.lower())


def slug_key(label: str, taken: set[str], fallback: str) -> str:
    """A column key from a label (``'PM2.5 (µg/m³)'`` -> ``'pm2_5_g_m3'``), unique in
    ``taken`` (``_2``, ``_3``, ... appended) and added to it; ``fallback`` when the label has
    no letters or digits."""
    key = "_".join(_ascii_words(label))[:40].strip("_") or fallback
    if not key[0].isalpha():
        key = f"c_{key}"
    unique, n = key, 2
    while unique in taken:
        unique, n = f"{key}_{n}", n + 1
    taken.add(unique)
    return unique


def slug_id(name: str, taken: set[str]) -> str:
    """An entity id from a display name (``'Port Avalon'`` -> ``'port-avalon'``), unique in
    ``taken`` and added to it."""
    base = "-".join(_ascii_words(name))[:48].strip("-") or "entity"
    unique, n = base, 2
    while unique in taken:
        unique, n = f"{base}-{n}", n + 1
    taken.add(unique)
    return unique


def _decimals(value: Decimal) -> int:
    exponent = value.as_tuple().exponent
    return max(0, -exponent) if isinstance(exponent, int) else 0


#: A number as people write it in a spreadsheet: an optional sign and currency symbol,
#: thousands grouped with commas (or not), decimals, an exponent or a trailing percent sign.
_WRITTEN = re.compile(
    r"(?P<sign>[+-]?)(?P<currency>[$£€¥]?)(?P<digits>\d{1,3}(?:,\d{3})+(?:\.\d+)?"
    r"|(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)(?P<percent>\s?%?)")


def _number(cell: str) -> tuple[Decimal | None, str]:
    """The cell's value (``None`` when missing) and the unit it writes with it (``"%"``, a
    currency symbol, or ``""``); ``ValueError`` when it is not a number. Thousands
    separators, a currency symbol and a percent sign are read as people write them
    (``"24,481"``, ``"$1,200.50"``, ``"12.5%"`` is 12.5)."""
    text = cell.strip()
    if not text or text.lower() in MISSING:
        return None, ""
    match = _WRITTEN.fullmatch(text)
    percent = match is not None and bool(match.group("percent").strip())
    if match is None or (match.group("currency") and percent):
        raise ValueError(text)
    try:
        value = Decimal(match.group("sign") + match.group("digits").replace(",", ""))
    except InvalidOperation:  # pragma: no cover - the pattern admits only numbers
        raise ValueError(text) from None
    return value, "%" if percent else match.group("currency")


def _integer(cell: str) -> int | None:
    text = cell.strip()
    return int(text) if re.fullmatch(r"[+-]?\d{1,9}", text) else None


@dataclass(frozen=True)
class _Row:
    line: int
    fields: list[str]


def _rows(path: Path, text: str) -> tuple[list[str], int, list[_Row]]:
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    header: list[str] | None = None
    header_line = 0
    rows: list[_Row] = []
    try:
        for fields in reader:
            if not fields or all(not f.strip() for f in fields):
                continue  # blank line
            if header is None:
                header = [f.strip() for f in fields]
                header_line = reader.line_num
                continue
            rows.append(_Row(reader.line_num, fields))
    except csv.Error as exc:
        raise UserError(f"{path}:{reader.line_num}: malformed CSV: {exc}") from None
    if header is None:
        raise UserError(f"{path}: empty file (expected a header row: entity, [period,] "
                        "numeric columns)")
    for i, label in enumerate(header):
        if not label:
            raise UserError(f"{path}:{header_line}: header column {i + 1} has no label")
        why = name_problem(label)
        if why is not None:
            raise UserError(f"{path}:{header_line}: header label {quoted(label)} {why}")
    seen: Lookalikes[int] = Lookalikes()
    for i, label in enumerate(header):
        if any(h.casefold() == label.casefold() for h in header[:i]):
            raise UserError(f"{path}:{header_line}: header label {one_line(label)!r} "
                            "appears twice")
        twin = seen.add(label, i + 1)
        if twin is not None:
            raise UserError(f"{path}:{header_line}: header label "
                            f"{looks_the_same(label, twin[0])} (column {twin[1]})")
    if not rows:
        raise UserError(f"{path}: no data rows after the header")
    return header, header_line, rows


def _period_column(header: list[str], rows: list[_Row], period: str | bool | None) -> bool:
    """Whether the second column holds periods (see the module docstring for the rule)."""
    if period is False or len(header) < 2:
        return False
    if period is True:
        return True
    name = header[1].casefold()
    if isinstance(period, str) and name == period.casefold():
        return True
    if "_".join(_ascii_words(header[1])) in PERIOD_NAMES:
        return True
    if any(len(r.fields) != len(header) for r in rows):
        return False  # reported as a bad row by the caller
    if any(_integer(r.fields[1]) is None for r in rows):
        return False
    counts: dict[str, int] = {}
    for r in rows:
        counts[r.fields[0].strip()] = counts.get(r.fields[0].strip(), 0) + 1
    return min(counts.values()) >= 2


def read_utf8(path: Path) -> tuple[str, str]:
    """The text of a data file (a UTF-8 byte-order mark is dropped) and the sha256 of its
    bytes; one-line errors naming the file for a missing, unreadable, oversized or non-UTF-8
    file."""
    try:
        data = read_data_file(path)
    except SourceFileError as exc:
        raise UserError(one_line(str(exc))) from None
    try:
        return data.data.decode("utf-8-sig"), data.sha256
    except UnicodeDecodeError as exc:
        raise UserError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def read_panel(path: Path, period: str | bool | None = None) -> Panel:
    """Parse ``panel.csv`` at ``path``.

    ``period`` is what is known of the period column: ``True`` (the second column is it),
    ``False`` (there is none), a name (the second column is it when its header says so,
    else it is detected), or ``None`` (detect it; see the module docstring).
    """
    text, sha256 = read_utf8(path)
    header, header_line, rows = _rows(path, text)
    if len(header) == 1 and any(mark in header[0] for mark in ";\t"):
        mark = "semicolons" if ";" in header[0] else "tabs"
        raise UserError(f"{path}:{header_line}: the header is one field separated by {mark}; "
                        f"{path.name} is comma-separated (save it as CSV with commas)")
    for row in rows:
        if len(row.fields) != len(header):
            raise UserError(f"{path}:{row.line}: {len(row.fields)} fields, expected "
                            f"{len(header)} (as in the header)")
    has_period = _period_column(header, rows, period)
    first_value = 2 if has_period else 1
    labels = header[first_value:]
    if len(labels) < MIN_NUMERIC_COLUMNS:
        raise UserError(f"{path}:{header_line}: {len(labels)} numeric column(s) after the entity"
                        f"{' and period' if has_period else ''} column; at least "
                        f"{MIN_NUMERIC_COLUMNS} are needed (one is charted, two or more "
                        "tabled)")
    taken: set[str] = set()
    keys = [slug_key(label, taken, f"column_{i + 1}") for i, label in enumerate(labels)]

    ids: dict[str, str] = {}
    taken_ids: set[str] = set()
    cells: dict[tuple[str, int], tuple[int, list[Decimal | None]]] = {}
    decimals = [0] * len(labels)
    units: list[set[str]] = [set() for _ in labels]
    written: list[tuple[int, int, str, Decimal]] = []
    names: Lookalikes[int] = Lookalikes()
    for row in rows:
        name = " ".join(row.fields[0].split())
        if not name:
            raise UserError(f"{path}:{row.line}: the {header[0]!r} cell is empty")
        if name not in ids:
            why = name_problem(name)
            if why is not None:
                raise UserError(f"{path}:{row.line}: the {header[0]!r} cell {quoted(name)} "
                                f"{why}; entity names are shown as plain text")
            twin = names.add(name, row.line)
            if twin is not None:
                raise UserError(f"{path}:{row.line}: entity {looks_the_same(name, twin[0])} "
                                f"on line {twin[1]}")
            ids[name] = slug_id(name, taken_ids)
        when = 0
        if has_period:
            parsed = _integer(row.fields[1])
            if parsed is None:
                raise UserError(f"{path}:{row.line}: {header[1]} "
                                f"{one_line(row.fields[1].strip())!r} is not an integer "
                                "(periods are integers; if this is not a period column, "
                                "say period: null in domain.yaml)")
            when = parsed
        earlier = cells.get((name, when))
        if earlier is not None:
            what = f"{name!r} in {header[1]} {when}" if has_period else repr(name)
            raise UserError(f"{path}:{row.line}: duplicate row for {one_line(what)} (first "
                            f"on line {earlier[0]})")
        values: list[Decimal | None] = []
        for i, cell in enumerate(row.fields[first_value:]):
            try:
                value, unit = _number(cell)
            except ValueError:
                raise UserError(f"{path}:{row.line}: column {labels[i]!r}: "
                                f"{quoted(cell.strip())} is not a number (leave the cell "
                                "empty for a missing value)") from None
            if value is not None:
                decimals[i] = max(decimals[i], _decimals(value))
                units[i].add(unit)
                written.append((row.line, i, cell, value))
            values.append(value)
        cells[(name, when)] = (row.line, values)
    precisions = [min(MAX_PRECISION, d) for d in decimals]
    for line, i, cell, value in written:
        why = unshowable_number(value, precisions[i])
        if why is not None:
            raise UserError(f"{path}:{line}: column {labels[i]!r}: {quoted(cell.strip())} {why}")

    periods = tuple(sorted({when for _, when in cells}))
    position = {p: k for k, p in enumerate(periods)}
    table: dict[str, dict[str, list[Decimal | None]]] = {
        entity_id: {key: [None] * len(periods) for key in keys} for entity_id in ids.values()}
    for (name, when), (_, values) in cells.items():
        for key, value in zip(keys, values, strict=True):
            table[ids[name]][key][position[when]] = value
    columns = tuple(PanelColumn(label, key, precision, next(iter(u)) if len(u) == 1 else "")
                    for label, key, precision, u in zip(labels, keys, precisions, units,
                                                        strict=True))
    return Panel(path=path, sha256=sha256, entity_label=header[0],
                 period_label=header[1] if has_period else None,
                 entities=tuple((entity_id, name) for name, entity_id in ids.items()),
                 periods=periods, columns=columns, values=table)
