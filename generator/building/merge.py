"""``gen merge``: join the shards of one build (``gen build --shard I/N``) into its dataset.

Every shard records the same configuration, package versions and seed, and its slice of the
one global plan; a merge checks that the shards are one build's — the same key, each of
``1..N`` once, every file's sha256 as its manifest says, the same Chromium — and then writes
exactly what a single-machine build writes: ``items.jsonl`` in index order, the images, the
Parquet shards, the card, the audit and the manifest (shares, tallies and fonts over all
items). The result is byte for byte the single build's.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from hopvista.audit.recorded import build_audit
from hopvista.building.dataset_writer import Counts, DatasetKind, write_dataset
from hopvista.building.pipeline import SHARD_KIND, Written, dataset_manifest
from hopvista.errors import UserError
from hopvista.llm.paraphrase import merged_llm
from hopvista.model import Item
from hopvista.model.dataset import (
    ITEMS,
    MANIFEST,
    MISSING,
    dataset_file_problem,
    open_dataset_file,
    read_manifest,
    sha256_file,
)
from hopvista.output.card import dataset_card
from hopvista.output.folder import check_out

Notice = Callable[[str], None]
SAME = ("format", "format_version", "config", "source", "seed", "packages", "plan_shares",
        "title", "margins")
"""What every shard of one build records alike."""


def _stderr(text: str) -> None:
    print(f"gen: {text}", file=sys.stderr)


def read_shard(path: Path) -> dict[str, Any]:
    """A shard's manifest, checked to be one (``UserError`` naming the folder otherwise)."""
    if dataset_file_problem(path, MANIFEST) == MISSING:
        raise UserError(f"{path}: no manifest.json (not a finished shard)")
    manifest = read_manifest(path)
    if manifest.get("kind") != SHARD_KIND:
        raise UserError(f"{path}: not a shard (build one with gen build ... --shard I/N)")
    problem = _shard_shape_problem(manifest)
    if problem is not None:
        raise UserError(f"{path / MANIFEST}: {problem}")
    return manifest


def _shard_shape_problem(manifest: dict[str, Any]) -> str | None:
    """What of the fields a merge reads is missing or malformed in a shard's manifest."""
    info, config = manifest.get("shard"), manifest.get("config")
    if not isinstance(info, dict) or not all(
            type(info.get(k)) is int for k in ("index", "of", "first", "stop")):
        return "'shard' must hold the integers index, of, first and stop"
    if not 1 <= info["index"] <= info["of"]:
        return f"'shard' says {info['index']}/{info['of']}"
    if not isinstance(config, dict) or type(config.get("count")) is not int:
        return "'config.count' must be an integer"
    margins = manifest.get("margins")
    if not isinstance(margins, list) or len(margins) != 2 or not all(
            type(m) in (int, float) for m in margins):
        return "'margins' must be two numbers"
    if not isinstance(manifest.get("files", {}), dict):
        return "'files' must be an object of path -> sha256"
    if not isinstance(manifest.get("render") or {}, dict):
        return "'render' must be an object"
    missing = [k for k in ("source", "seed", "plan_shares", "packages", "title")
               if k not in manifest]
    return f"no {missing[0]!r}" if missing else None


def check_shards(paths: Sequence[Path]) -> list[tuple[Path, dict[str, Any]]]:
    """The shards in index order, checked to be all of one build."""
    if not paths:
        raise UserError("gen merge: name the shard folders")
    shards = [(path, read_shard(path)) for path in paths]
    first = shards[0][1]
    for path, manifest in shards[1:]:
        for key in SAME:
            if manifest.get(key) != first.get(key):
                raise UserError(f"{path}: its {key} differs from {paths[0]}'s: the shards are "
                                "not of one build (same command, seed and versions)")
    total = first["shard"]["of"]
    seen: dict[int, Path] = {}
    for path, manifest in shards:
        info = manifest["shard"]
        if info["of"] != total:
            raise UserError(f"{path}: shard {info['index']}/{info['of']}, the others are "
                            f"of {total}")
        if info["index"] in seen:
            raise UserError(f"{path}: shard {info['index']}/{total} again (also "
                            f"{seen[info['index']]})")
        seen[info["index"]] = path
    missing = sorted(set(range(1, total + 1)) - set(seen))
    if missing:
        raise UserError(f"gen merge: shard(s) {', '.join(f'{i}/{total}' for i in missing)} "
                        "missing")
    chromium = {json.dumps((m.get("render") or {}).get("chromium")) for _, m in shards}
    if len(chromium) > 1:
        raise UserError("gen merge: the shards were drawn with different Chromium versions; "
                        "their images would not be one build's")
    ordered = sorted(shards, key=lambda pair: pair[1]["shard"]["index"])
    for path, manifest in ordered:
        for name, digest in manifest.get("files", {}).items():
            if name == MANIFEST:
                continue
            why = dataset_file_problem(path, name)
            if why is not None:
                raise UserError(f"{path / name[:200]}: {why} (listed in the shard's manifest)")
            if sha256_file(path / name) != digest:
                raise UserError(f"{path / name}: not as the shard's manifest says")
    return ordered


def merge(paths: Sequence[Path], out: Path, *, overwrite: bool = False,
          notice: Notice = _stderr) -> dict[str, Any]:
    """Join the shards at ``paths`` into the dataset ``out``; return its manifest."""
    check_out(out, inputs=paths)  # before the shards' files are read and hashed
    return write_dataset(out, MergedShards(check_shards(paths)), overwrite=overwrite,
                         notice=notice, inputs=paths)


class MergedShards(DatasetKind):
    """The dataset of checked shards: their items in order, with their images."""

    def __init__(self, shards: list[tuple[Path, dict[str, Any]]]) -> None:
        self.shards = shards
        self.first = shards[0][1]
        self.total = int(self.first["config"]["count"])
        self.written = Written()
        self.paraphrased = "paraphrase" in self.first["config"].get("llm", {})
        self.items_file: Path | None = None

    def items(self, stage: Path, kept: int) -> Iterator[Item]:
        """Every shard's items, its images placed under ``stage``."""
        for path, _ in self.shards:
            for number, text in enumerate(_item_lines(path), start=1):
                item = _parse_item(path, number, text)
                for image in item.images:
                    why = dataset_file_problem(path, image.path)
                    if why is not None:
                        raise UserError(f"{path / ITEMS}: item {item.id}: image "
                                        f"{image.path[:200]!r}: {why}")
                    _place(path / image.path, stage / image.path)
                yield item

    def add(self, item: Item) -> None:
        """Count the item's statements."""
        self.written.add(item)

    def manifest(self, stage: Path, counts: Counts) -> dict[str, Any]:
        """The single build's manifest: shares and tallies over every item, its audit."""
        first, written = self.first, self.written
        if written.items != self.total:
            raise UserError(f"gen merge: the shards hold {written.items} items, the build "
                            f"{self.total}")
        render = _merged_render([m.get("render") for _, m in self.shards])
        audit = build_audit(stage / ITEMS, written.items,
                            (float(first["margins"][0]), float(first["margins"][1])))
        manifest = dataset_manifest(first["config"], first["source"], first["seed"], render,
                                    written, first["plan_shares"], audit)
        manifest["packages"] = first["packages"]
        if self.paraphrased:
            manifest["llm"] = merged_llm([m["llm"] for _, m in self.shards])
        self.items_file = stage / ITEMS
        return manifest

    def card(self, manifest: dict[str, Any]) -> str:
        """The single build's card."""
        return dataset_card(manifest, self.first["title"], self.items_file)


def _parse_item(shard: Path, number: int, text: str) -> Item:
    """Line ``number`` of a shard's ``items.jsonl`` as an item; ``UserError`` naming it."""
    try:
        return Item.model_validate_json(text)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error["loc"]) or "item"
        raise UserError(f"{shard / ITEMS}:{number}: field {where!r}: {error['msg']}") from None


def _item_lines(shard: Path) -> list[str]:
    """The lines of a shard's ``items.jsonl`` (a regular file, checked before it is read),
    split at newlines only: a U+2028 inside a JSON string is part of its line."""
    with open_dataset_file(shard, ITEMS) as fh:
        data = fh.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UserError(f"{shard / ITEMS}: not UTF-8 text ({exc.reason} at byte "
                        f"{exc.start})") from None
    return [line for line in text.split("\n") if line.strip()]


def _place(source: Path, target: Path) -> None:
    """``source`` at ``target``: a hard link where the file system allows, else a copy."""
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)


def _merged_render(renders: list[dict[str, Any] | None]) -> dict[str, Any] | None:
    """One build's ``render``: the Chromium the shards share and every font they used."""
    present = [r for r in renders if r]
    if not present:
        return None
    fonts: dict[str, Any] = {}
    for render in present:
        fonts.update(render.get("fonts") or {})
    return {"chromium": present[0].get("chromium"), "fonts": dict(sorted(fonts.items()))}
