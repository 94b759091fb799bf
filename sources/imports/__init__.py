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


IMPORTERS: Registry[Importer] = Registry("import format", "importers")
"""Every release format ``gen augment`` reads, by name (entry-point group
``hopvista.importers``)."""
