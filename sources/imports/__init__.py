"""Readers of existing table-QA datasets in their release formats (for ``gen augment``).

Each reader turns the records of one release format into :class:`Imported` records: a typed
:class:`~hopvista.model.Item` (no images, variant ``base``) with the table as a
:class:`~hopvista.model.inputs.GridTable`, the cells an answer may depend on
(:class:`Protected`, inferred conservatively: imported records have no programs), and for a
release whose charts exist only as images (FCMR), the chart image's path. A record a reader
cannot use is a :class:`Skipped` naming its file and line (or id) and why; a reader never
stops on one bad record. A path a format cannot read at all is a :class:`Mismatch` saying
what its reader found (``truncated JSON at line 3, column 5``), shown when the format is named
(``--format``) or when no format reads the path.

Grid coordinates: row 0 is the header row (``GridTable.header``), body rows count from 1
(``GridTable.rows[r - 1]``); columns count from 0.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from hopvista.errors import UserError
from hopvista.model import Item
from hopvista.registry import Registry


@dataclass(frozen=True)
class Protected:
    """A table cell no variant may hide, blank or move away from its headers, and why
    (``"matches the answer"``, ``"in the column the question names ('Year')"``, ...)."""

    row: int
    col: int
    why: str


@dataclass(frozen=True)
class Imported:
    """One record of an existing dataset, ready to be shown in variants."""

    item: Item
    protected: tuple[Protected, ...] = ()
    chart_image: Path | None = None


MAX_MESSAGE_CHARS = 300
"""Longest ``where`` or ``why`` of a :class:`Skipped` (a longer one is cut)."""


def _clipped(text: str) -> str:
    text = " ".join(str(text).encode("utf-8", "backslashreplace").decode("utf-8").split())
    return text if len(text) <= MAX_MESSAGE_CHARS else f"{text[:MAX_MESSAGE_CHARS - 1]}…"


@dataclass(frozen=True)
class Skipped:
    """A record that was not imported: where it is (``file:line`` or ``file: id X``) and why,
    each one line of at most :data:`MAX_MESSAGE_CHARS` characters."""

    where: str
    why: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "where", _clipped(self.where))
        object.__setattr__(self, "why", _clipped(self.why))


@dataclass(frozen=True)
class Mismatch:
    """Why a path is not in a format, as its reader found it (one line). ``shaped`` when the
    path has the format's file names or layout (a ``.json`` file, a folder with ``data/*.tsv``):
    then the reason helps even when the format was not named."""

    why: str
    shaped: bool = True


@dataclass(frozen=True)
class Importer:
    """A release format: ``detect(path)`` says whether ``path`` (a file or folder) is in it;
    ``read(path)`` yields its records in a stable order. ``diagnose(path)``, when given, says
    why ``path`` is not (``None`` when it is); ``title`` is the format's name in messages."""

    name: str
    description: str
    detect: Callable[[Path], bool]
    read: Callable[[Path], Iterator[Imported | Skipped]]
    diagnose: Callable[[Path], Mismatch | None] | None = None
    title: str = ""

    def mismatch(self, path: Path) -> Mismatch | None:
        """Why ``path`` is not in this format, or ``None`` when it is."""
        if self.diagnose is not None:
            return self.diagnose(path)
        if self.detect(path):
            return None
        return Mismatch(f"not a {self.name} dataset ({self.description})", shaped=False)


BUILTIN_FORMATS = ("fcmr", "finqa", "hitab", "jsonl", "tabfact", "tatqa", "wtq")
"""The release formats read here; each is the module ``hopvista.sources.imports.<name>``."""

IMPORTERS: Registry[Importer] = Registry("import format", "importers", builtins=tuple(
    f"hopvista.sources.imports.{name}" for name in BUILTIN_FORMATS))
"""Every release format ``gen augment`` reads, by name (entry-point group
``hopvista.importers``)."""


def detect_format(path: Path | str) -> str:
    """The name of the one release format ``path`` (a file or folder) is in.

    A :class:`~hopvista.errors.UserError` naming the path when it does not exist, is in no
    known format, or looks like several (then pass the format by name).
    """
    path = Path(path)
    if not path.exists():
        raise UserError(f"{path}: no such file or folder")
    mismatches = {name: importer.mismatch(path) for name, importer in IMPORTERS.items()}
    found = [name for name, mismatch in mismatches.items() if mismatch is None]
    if not found:
        raise UserError(f"{path}: not a dataset in any known format "
                        f"({', '.join(IMPORTERS.names())}; see docs/imports.md)"
                        + _findings(mismatches))
    if len(found) > 1:
        raise UserError(f"{path}: looks like several formats ({', '.join(found)}); "
                        "name the one to read")
    return found[0]


def read_records(path: Path | str, format: str | None = None
                 ) -> tuple[str, Iterator[Imported | Skipped]]:
    """The format of ``path`` (detected unless ``format`` names it) and its records, read
    lazily in a stable order. Whole-input problems (missing path, wrong format, unreadable
    file) raise :class:`~hopvista.errors.UserError`; a bad record is a :class:`Skipped`."""
    path = Path(path)
    if not path.exists():
        raise UserError(f"{path}: no such file or folder")
    name = detect_format(path) if format is None else format
    importer = IMPORTERS.get(name)
    if format is not None:
        mismatch = importer.mismatch(path)
        if mismatch is not None:
            raise UserError(f"{path}: {importer.title or name}: {mismatch.why}")
    return name, importer.read(path)


def _findings(mismatches: dict[str, Mismatch | None]) -> str:
    """What the readers of the formats ``path`` is shaped like found, one clause per reason
    (``; TabFact, TAT-QA: truncated JSON at line 3, column 5``); empty when none is."""
    by_reason: dict[str, list[str]] = {}
    for name, mismatch in mismatches.items():
        if mismatch is not None and mismatch.shaped:
            by_reason.setdefault(mismatch.why, []).append(IMPORTERS.get(name).title or name)
    return "".join(f"; {', '.join(names)}: {why}" for why, names in by_reason.items())
