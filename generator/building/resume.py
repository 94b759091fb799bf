"""Resuming a killed build: what of its staging folder can be kept.

A build writes ``items.jsonl`` one flushed line per finished item, in index order, each item's
images written (atomically) before its line. A build killed at any point (``kill -9``) leaves
its staging folder; run again with the same command, it finds the folder by its resume key
(:func:`resume_key`, recorded in the folder's marker: everything that decides the bytes) and
keeps the items whose lines are whole, in order, and whose images are on disk with their
recorded sha256 (:func:`kept_lines`). It then makes only the items after them; Parquet, card,
audit and manifest are always written afresh, so the result is byte for byte the
uninterrupted build's.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from hopvista.model import Item
from hopvista.model.format import FORMAT_VERSION

ITEMS = "items.jsonl"


def resume_key(config: dict[str, Any], packages: dict[str, str],
               shard: tuple[int, int] | None = None) -> str:
    """The key of a build: its configuration, the package versions and the format (and the
    shard, for ``--shard``); a staging folder is resumed only by a build of the same key."""
    data = {"config": config, "packages": packages, "format_version": FORMAT_VERSION,
            "shard": list(shard) if shard else None}
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()


def _image_ok(root: Path, item: Item) -> bool:
    for image in item.images:
        try:
            data = (root / image.path).read_bytes()
        except OSError:
            return False
        if hashlib.sha256(data).hexdigest() != image.sha256:
            return False
    return True


def kept_lines(root: Path, first: int) -> list[tuple[str, Item]]:
    """The whole lines of ``root/items.jsonl`` that a resumed build keeps, each with its
    item: items ``first``, ``first + 1``, … in order (by ``provenance.index``), each parsing
    and with its images intact; the file is cut after the last one kept."""
    path = root / ITEMS
    if not path.is_file():
        return []
    kept: list[tuple[str, Item]] = []
    size = 0
    with path.open("rb") as lines:
        for raw in lines:
            if not raw.endswith(b"\n"):
                break  # the line being written when the build was killed
            try:
                text = raw.decode("utf-8")
                item = Item.model_validate_json(text)
            except (UnicodeDecodeError, ValueError):
                break
            if item.provenance.index != first + len(kept) or not _image_ok(root, item):
                break
            kept.append((text.rstrip("\n"), item))
            size += len(raw)
    with path.open("r+b") as cut:
        cut.truncate(size)
    return kept
