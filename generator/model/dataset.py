"""``hopvista.load(path)``: a dataset folder as a typed, lazily read :class:`Dataset`.

Only the manifest is read when a dataset is opened. Items are parsed one line at a time as
they are iterated; ``dataset[i]`` seeks to line i through an index of line offsets built by
one pass over the file the first time it is needed (8 bytes a line, no item held), and
``dataset.get(id)`` scans. A dataset of an older format version is migrated as it is read
(:mod:`hopvista.model.migrate`); the files are not changed.

A dataset's files are read only when they are regular files reached through no symbolic link
below the dataset folder (the rule ``gen verify`` applies): a named pipe, a device or a socket
in their place is refused with one line naming it, never waited on.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from array import array
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from pydantic import Field, ValidationError

from hopvista.errors import UserError
from hopvista.model.base import Model
from hopvista.model.format import DATASET_FORMAT, FORMAT_VERSION
from hopvista.model.image import Image
from hopvista.model.item import Item
from hopvista.model.migrate import (
    OLDEST,
    MigrationError,
    migrate_item,
    migrate_manifest,
    supported,
)
from hopvista.model.strict_json import parse_strict

MANIFEST = "manifest.json"
ITEMS = "items.jsonl"
MISSING = "missing"
PREVIEW_NAME = "preview.html"
"""The contact sheet ``gen preview`` writes into a dataset folder (not part of its seal)."""
"""What :func:`dataset_file_problem` says of a file that is not there."""


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file's bytes, read in blocks."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _kind_problem(mode: int) -> str | None:
    """Why a file of ``mode`` is not a regular file, or ``None``."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a folder, not a file"
    if stat.S_ISLNK(mode):
        return "a symbolic link (not allowed in a dataset)"
    if stat.S_ISFIFO(mode):
        return "a named pipe, not a regular file"
    if stat.S_ISSOCK(mode):
        return "a socket, not a regular file"
    return "a device, not a regular file"


def unsafe_name(name: object) -> str | None:
    """Why ``name`` is not a plain relative path inside a dataset (``images/x.png``), or
    ``None``: not a string, empty, absolute, with a backslash, a NUL, or an empty, ``.`` or
    ``..`` part."""
    if not isinstance(name, str) or not name:
        return "not a file name"
    if "\\" in name or "\x00" in name:
        return "not a plain relative path (backslash or NUL)"
    if name.startswith("/"):
        return "an absolute path"
    if any(part in ("", ".", "..") for part in name.split("/")):
        return "not a plain relative path (empty, '.' or '..' part)"
    return None


def dataset_file_problem(root: Path, name: str) -> str | None:
    """Why the file ``name`` of the dataset ``root`` cannot be read, or ``None``:
    :data:`MISSING`, an unsafe name, a symbolic link on the way (``root`` itself may be one),
    or not a regular file."""
    why = unsafe_name(name)
    if why is not None:
        return why
    current = root
    parts = name.split("/")
    for depth, part in enumerate(parts, start=1):
        current = current / part
        try:
            mode = os.lstat(current).st_mode
        except FileNotFoundError:
            return MISSING
        except OSError as exc:
            return f"cannot be read ({exc.strerror})"
        if depth < len(parts):
            if stat.S_ISLNK(mode):
                return f"{'/'.join(parts[:depth])} is a symbolic link (not allowed in a dataset)"
            if not stat.S_ISDIR(mode):
                return MISSING
    return _kind_problem(mode)


def open_regular(path: Path, *, follow_symlinks: bool = True) -> BinaryIO:
    """``path`` opened for reading (binary) if it is a regular file; :class:`UserError`
    naming it otherwise. A named pipe is never waited on: it is refused before it is opened,
    and should it take the file's place meanwhile, the non-blocking open returns at once and
    the descriptor's own type is checked."""
    flags = os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK
    if not follow_symlinks:
        flags |= os.O_NOFOLLOW
    try:
        mode = (os.stat if follow_symlinks else os.lstat)(path).st_mode
        why = _kind_problem(mode)
        if why is None:
            descriptor = os.open(path, flags)
            why = _kind_problem(os.fstat(descriptor).st_mode)
            if why is not None:
                os.close(descriptor)
    except FileNotFoundError:
        raise UserError(f"{path}: {MISSING}") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot be read ({exc.strerror})") from None
    if why is not None:
        raise UserError(f"{path}: {why}")
    os.set_blocking(descriptor, True)
    return os.fdopen(descriptor, "rb")


def open_dataset_file(root: Path, name: str) -> BinaryIO:
    """The file ``name`` of the dataset ``root``, opened for reading, if
    :func:`dataset_file_problem` finds nothing wrong; :class:`UserError` naming it otherwise."""
    why = dataset_file_problem(root, name)
    if why is not None:
        raise UserError(f"{root / name}: {why}")
    return open_regular(root / name, follow_symlinks=False)


class Manifest(Model):
    """``manifest.json`` (docs/format.md, section 6)."""

    format: str
    format_version: int
    config: dict[str, Any]
    source: dict[str, Any] | None = None
    seed: int = Field(ge=0)
    packages: dict[str, str] = Field(default_factory=dict)
    render: dict[str, Any] | None = None
    counts: dict[str, int]
    shares: dict[str, Any] = Field(default_factory=dict)
    files: dict[str, str] = Field(default_factory=dict)
    kind: str | None = None
    """``"augmented"`` (``gen augment``), ``"markup"`` (``gen markup``), or absent for
    a build."""


def _first_error(exc: ValidationError) -> str:
    error = exc.errors()[0]
    where = ".".join(str(part) for part in error["loc"]) or "item"
    return f"field '{where}': {error['msg']}"


class Dataset:
    """A dataset folder: its manifest, parsed, and its items, read lazily.

    ``len(dataset)`` is the manifest's item count; iterating yields :class:`Item` objects in
    file order; ``dataset[i]`` and ``dataset.get(id)`` read one item.
    """

    def __init__(self, root: Path, manifest: dict[str, Any]) -> None:
        self.root = root
        self.format_version: int = manifest["format_version"]
        """The version the folder was written in (the items are read as the current one)."""
        self._stored = manifest
        try:
            self.manifest = Manifest.model_validate(migrate_manifest(manifest))
        except ValidationError as exc:
            raise UserError(f"{root / MANIFEST}: {_first_error(exc)}") from None
        self._offsets: array[int] | None = None

    def __repr__(self) -> str:
        return f"Dataset({str(self.root)!r}, {len(self)} items)"

    def __len__(self) -> int:
        return self.manifest.counts.get("items", 0)

    def _parse(self, raw: bytes, number: int) -> Item:
        where = f"{self.root / ITEMS}:{number}"
        try:
            if self.format_version == FORMAT_VERSION:
                return Item.model_validate_json(raw)
            item = json.loads(raw)
            if not isinstance(item, dict):
                raise UserError(f"{where}: not an item (a JSON object)")
            return Item.model_validate(migrate_item(item, self._stored))
        except ValidationError as exc:
            raise UserError(f"{where}: {_first_error(exc)}") from None
        except (ValueError, RecursionError) as exc:  # JSON or a migration step
            raise UserError(f"{where}: {str(exc)[:200]}") from None

    def _items(self) -> BinaryIO:
        return open_dataset_file(self.root, ITEMS)

    def __iter__(self) -> Iterator[Item]:
        with self._items() as fh:
            for number, raw in enumerate(fh, start=1):
                yield self._parse(raw, number)

    def _index(self) -> array[int]:
        if self._offsets is None:
            offsets = array("q")
            with self._items() as fh:
                position = 0
                for raw in fh:
                    offsets.append(position)
                    position += len(raw)
            self._offsets = offsets
        return self._offsets

    def __getitem__(self, index: int) -> Item:
        offsets = self._index()
        if index < 0:
            index += len(offsets)
        if not 0 <= index < len(offsets):
            raise IndexError(f"item {index} of {len(offsets)}")
        with self._items() as fh:
            fh.seek(offsets[index])
            return self._parse(fh.readline(), index + 1)

    def get(self, item_id: str) -> Item | None:
        """The item with id ``item_id`` (``None`` if there is none), found by a scan that
        parses only the line that holds it."""
        needle = json.dumps(item_id, ensure_ascii=False).encode()
        current = self.format_version == FORMAT_VERSION  # older ids change in migration
        with self._items() as fh:
            for number, raw in enumerate(fh, start=1):
                if not current or needle in raw:
                    item = self._parse(raw, number)
                    if item.id == item_id:
                        return item
        return None

    def image_path(self, item: Item, role: str) -> Path | None:
        """The file of ``item``'s first image of ``role`` in this folder, or ``None`` when the
        item has none. :class:`UserError` naming the file when something other than a regular
        file is there (a missing file is left to the caller)."""
        image = item.image(role)
        if image is None:
            return None
        why = dataset_file_problem(self.root, image.path)
        if why is not None and why != MISSING:
            raise UserError(f"{self.root / ITEMS}: item {item.id}: image {image.path[:200]!r}: "
                            f"{why}")
        return self.root / image.path

    def image_file(self, image: Image) -> Path:
        """The file of ``image`` (one of an item's images) in this folder, checked to be a
        regular file at a plain relative path; :class:`UserError` naming it otherwise."""
        why = dataset_file_problem(self.root, image.path)
        if why is not None:
            raise UserError(f"{self.root / image.path[:200]}: {why} (an image of "
                            f"{self.root / ITEMS})")
        return self.root / image.path


def read_manifest(root: Path) -> dict[str, Any]:
    """The manifest of the dataset folder ``root``, as JSON; :class:`UserError` naming the
    folder or the file if ``root`` is not a hopvista dataset of a format version this hopvista
    reads (no folder, no manifest, not a regular file, not UTF-8, not strict JSON, another
    format or version)."""
    if not root.exists():
        raise UserError(f"{root}: no {MANIFEST} (no such folder)")
    if not root.is_dir():
        raise UserError(f"{root}: not a folder (a dataset is a folder with a {MANIFEST})")
    if dataset_file_problem(root, MANIFEST) == MISSING:
        raise UserError(f"{root}: no {MANIFEST} (not a hopvista dataset)")
    try:
        with open_dataset_file(root, MANIFEST) as fh:
            data = fh.read()
    except OSError as exc:
        raise UserError(f"{root / MANIFEST}: cannot be read ({exc.strerror})") from None
    try:
        manifest = parse_strict(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise UserError(f"{root / MANIFEST}: not UTF-8 text ({exc.reason})") from None
    except ValueError as exc:
        raise UserError(f"{root / MANIFEST}: not valid JSON: {exc}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != DATASET_FORMAT:
        raise UserError(f"{root / MANIFEST}: not a hopvista dataset manifest")
    version = manifest.get("format_version")
    if not supported(version):
        raise UserError(f"{root / MANIFEST}: format_version {str(version)[:20]!r} is not "
                        f"supported (this hopvista reads {OLDEST}..{FORMAT_VERSION})")
    return manifest


def load(path: str | Path) -> Dataset:
    """Open the dataset folder ``path``: the manifest is read now, the items as they are used.

    :class:`~hopvista.errors.UserError` if ``path`` is not a hopvista dataset of a readable
    format version (:func:`read_manifest`).
    """
    root = Path(path)
    manifest = read_manifest(root)
    try:
        return Dataset(root, manifest)
    except MigrationError as exc:
        raise UserError(f"{root / MANIFEST}: {exc}") from None
