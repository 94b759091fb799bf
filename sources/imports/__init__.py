"""Readers of existing table-QA datasets in their release formats (for ``gen augment``).

Each reader turns the records of one release format into :class:`Imported` records: a typed
:class:`~hopvista.model.Item` (no images, variant ``base``) with the table as a
:class:`~hopvista.model.inputs.GridTable`, the cells an answer may depend on
(:class:`Protected`, inferred conservatively: imported records have no programs), and for a
release whose charts exist only as images (FCMR), the chart image's path. A record a reader
cannot use is a :class:`Skipped` naming its file and line (or id) and why; a reader never
stops on one bad record.

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


@dataclass(frozen=True)
class Skipped:
    """A record that was not imported: where it is (``file:line`` or ``file: id X``) and why."""

    where: str
    why: str


@dataclass(frozen=True)
class Importer:
    """A release format: ``detect(path)`` says whether ``path`` (a file or folder) is in it;
    ``read(path)`` yields its records in a stable order."""

    name: str
    description: str
    detect: Callable[[Path], bool]
    read: Callable[[Path], Iterator[Imported | Skipped]]


BUILTIN_FORMATS = ("fcmr", "jsonl", "tabfact", "tatqa", "wtq")
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
    found = [name for name, importer in IMPORTERS.items() if importer.detect(path)]
    if not found:
        raise UserError(f"{path}: not a dataset in any known format "
                        f"({', '.join(IMPORTERS.names())}; see docs/imports.md)")
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
    if format is not None and not importer.detect(path):
        raise UserError(f"{path}: not a {name} dataset ({importer.description})")
    return name, importer.read(path)
