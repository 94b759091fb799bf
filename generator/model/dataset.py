"""``hopvista.load(path)``: a dataset folder as a typed, lazily read :class:`Dataset`.

Only the manifest is read when a dataset is opened. Items are parsed one line at a time as
they are iterated; ``dataset[i]`` seeks to line i through an index of line offsets built by
one pass over the file the first time it is needed (8 bytes a line, no item held), and
``dataset.get(id)`` scans. A dataset of an older format version is migrated as it is read
(:mod:`hopvista.model.migrate`); the files are not changed.
"""

from __future__ import annotations

import json
from array import array
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError

from hopvista.errors import UserError
from hopvista.model.base import Model
from hopvista.model.format import DATASET_FORMAT, FORMAT_VERSION
from hopvista.model.item import Item
from hopvista.model.migrate import (
    OLDEST,
    MigrationError,
    migrate_item,
    migrate_manifest,
    supported,
)

MANIFEST = "manifest.json"
ITEMS = "items.jsonl"


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
    """``"augmented"`` (``gen augment``), ``"markup"`` (``gen build markup``), or absent for
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

    def __iter__(self) -> Iterator[Item]:
        with (self.root / ITEMS).open("rb") as fh:
            for number, raw in enumerate(fh, start=1):
                yield self._parse(raw, number)

    def _index(self) -> array[int]:
        if self._offsets is None:
            offsets = array("q")
            with (self.root / ITEMS).open("rb") as fh:
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
        with (self.root / ITEMS).open("rb") as fh:
            fh.seek(offsets[index])
            return self._parse(fh.readline(), index + 1)

    def get(self, item_id: str) -> Item | None:
        """The item with id ``item_id`` (``None`` if there is none), found by a scan that
        parses only the line that holds it."""
        needle = json.dumps(item_id, ensure_ascii=False).encode()
        current = self.format_version == FORMAT_VERSION  # older ids change in migration
        with (self.root / ITEMS).open("rb") as fh:
            for number, raw in enumerate(fh, start=1):
                if not current or needle in raw:
                    item = self._parse(raw, number)
                    if item.id == item_id:
                        return item
        return None

    def image_path(self, item: Item, role: str) -> Path | None:
        """The file of ``item``'s first image of ``role`` in this folder, or ``None``."""
        image = item.image(role)
        return None if image is None else self.root / image.path


def load(path: str | Path) -> Dataset:
    """Open the dataset folder ``path``: the manifest is read now, the items as they are used.

    :class:`~hopvista.errors.UserError` if ``path`` is not a hopvista dataset of a readable
    format version.
    """
    root = Path(path)
    try:
        text = (root / MANIFEST).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UserError(f"{root}: no {MANIFEST} (not a hopvista dataset)") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"{root / MANIFEST}: cannot be read ({exc})") from None
    try:
        manifest = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise UserError(f"{root / MANIFEST}: not valid JSON ({exc})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != DATASET_FORMAT:
        raise UserError(f"{root / MANIFEST}: not a hopvista dataset manifest")
    version = manifest.get("format_version")
    if not supported(version):
        raise UserError(f"{root / MANIFEST}: format_version {repr(version)[:20]} cannot be "
                        f"read (this hopvista reads {OLDEST}..{FORMAT_VERSION})")
    try:
        return Dataset(root, manifest)
    except MigrationError as exc:
        raise UserError(f"{root / MANIFEST}: {exc}") from None
