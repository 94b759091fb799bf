"""The one dataset writer: every kind of dataset (a build, a shard, a merge, variants, markup
tasks) is written by :func:`write_dataset`.

A kind says only how its items are made and what its manifest and card add
(:class:`DatasetKind`). The writer does the rest the same way for all of them:

1. claims the output folder (:func:`hopvista.output.folder.claim_output`: checked, locked,
   dead runs' leftovers removed) and lets the kind get ready (:meth:`DatasetKind.start`);
2. stages the dataset beside it, or takes up the staging folder of a killed run with the
   same resume key and keeps its finished items (:mod:`hopvista.building.resume`);
3. streams the kind's items into ``items.jsonl`` (one flushed line per item, so a killed run
   loses only the items in flight) and the Parquet shards (:mod:`hopvista.output.parquet`),
   with every temporary file of the run in a scratch folder
   (:mod:`hopvista.building.scratch`);
4. writes the card (``README.md``) and the manifest with the sha256 of every file, and swaps
   the dataset in.

A kind that writes nothing of its own is one subclass of :class:`DatasetKind`: its items,
its manifest fields and its card.
"""

from __future__ import annotations

import itertools
import shutil
import sys
from collections.abc import Callable, Iterator, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from hopvista.building.resume import ITEMS, kept_lines
from hopvista.building.scratch import scratch_folder
from hopvista.model import Item
from hopvista.model.format import DATASET_FORMAT, FORMAT_VERSION
from hopvista.output.atomic import write_atomic
from hopvista.output.folder import claim_output
from hopvista.output.parquet import DATA_DIR, ParquetShards, item_line
from hopvista.version import __version__

Notice = Callable[[str], None]

RECORDED_PACKAGES = ("numpy", "pydantic", "jinja2", "faker", "pyyaml", "playwright", "matplotlib",
                     "seaborn", "plotly", "kaleido", "pillow", "pyarrow", "datasets")
"""The libraries whose versions a manifest records (``packages``), beside hopvista's and
Python's."""


def package_versions() -> dict[str, str]:
    """The manifest's ``packages``: hopvista, Python and each installed recorded library."""
    versions = {"hopvista": __version__, "python": sys.version.split()[0]}
    for name in RECORDED_PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return versions


class Counts:
    """What the writer has written: items and images (kept items of a resumed run included)."""

    def __init__(self) -> None:
        self.items = 0
        self.images = 0

    def add(self, item: Item) -> None:
        """Count one item written."""
        self.items += 1
        self.images += len(item.images)


class DatasetKind:
    """What one kind of dataset gives :func:`write_dataset`. A kind overrides :meth:`items`,
    :meth:`manifest` and :meth:`card`; the rest has defaults that suit most kinds."""

    name: str | None = None
    """The manifest's ``kind`` (``None``: a build's dataset, whose manifest has none)."""
    total: int = 0
    """The items the kind expects to write (at least as many as it writes): the number of
    Parquet shards, in their file names, is decided from it."""
    parquet: bool = True
    """Whether the dataset gets Parquet shards (a build's shard does not)."""
    resume_key: str | None = None
    """Everything that decides the bytes, hashed (:func:`hopvista.building.resume.resume_key`):
    with one, a killed run's staging folder of the same key is taken up and its finished
    items kept; without, the kind always starts afresh."""
    first_index: int = 0
    """``provenance.index`` of the kind's first item (a resumed run keeps items from it on)."""
    paraphrased: bool = False
    """Whether the statements were paraphrased: their Parquet struct then holds each one's
    template text and kept attempt."""

    def start(self, notice: Notice) -> None:
        """Get ready once the output folder is claimed, before anything is staged (say what
        the user should know through ``notice``)."""

    def items(self, stage: Path, kept: int) -> Iterator[Item]:
        """The items to write after the ``kept`` ones a resumed run kept, in order; their
        images already written under ``stage``."""
        raise NotImplementedError

    def add(self, item: Item) -> None:
        """Count an item written (kept ones first): what :meth:`manifest` reports of them."""

    def manifest(self, stage: Path, counts: Counts) -> dict[str, Any]:
        """The manifest's fields after ``format``, ``format_version`` and ``kind`` (the
        writer adds ``files``), once every item is written (``stage`` holds them)."""
        raise NotImplementedError

    def card(self, manifest: dict[str, Any]) -> str | None:
        """The dataset card (``README.md``) of ``manifest``, or ``None`` for none."""
        raise NotImplementedError

    def abandon(self) -> None:
        """Release what :meth:`add` started when the run fails before :meth:`manifest`."""


def write_dataset(out: Path, kind: DatasetKind, *, overwrite: bool = False,
                  notice: Notice, inputs: Sequence[Path | str] = (),
                  sources: Sequence[Path | str] = (),
                  on_item: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Write the dataset of ``kind`` into ``out`` (see the module docstring); return its
    manifest. ``inputs`` and ``sources`` are what the run reads (``out`` may not be one of
    them, hold one or lie in one); ``on_item`` is called with the number of items written
    after each one (a kept item counts as written)."""
    with claim_output(out, overwrite, notice, resume=kind.resume_key, inputs=inputs,
                      sources=sources) as output:
        kind.start(notice)
        output.begin()
        stage = output.dataset
        kept = kept_lines(stage, kind.first_index) if output.resumed else []
        if output.resumed:
            notice(f"resuming the build killed in {output.stage.name if output.stage else ''}"
                   f": {len(kept)} of {kind.total} items were done")
        with scratch_folder(notice):  # every temporary file of the run lives in it
            counts = _write_items(stage, kept, kind, on_item)
            try:
                fields = kind.manifest(stage, counts)
            except BaseException:
                kind.abandon()
                raise
        manifest = {"format": DATASET_FORMAT, "format_version": FORMAT_VERSION} | (
            {"kind": kind.name} if kind.name else {}) | fields
        card = kind.card(manifest)
        if card is not None:
            write_atomic(stage / "README.md", card.encode())
        output.seal(manifest)
    return manifest


def _write_items(stage: Path, kept: list[tuple[str, Item]], kind: DatasetKind,
                 on_item: Callable[[int], None] | None) -> Counts:
    """Append the kind's items to ``items.jsonl`` after the ``kept`` lines, one flushed line
    per item, and to the Parquet shards (all items, the kept ones first); count them."""
    shutil.rmtree(stage / DATA_DIR, ignore_errors=True)  # a killed run's are incomplete
    counts = Counts()
    items = kind.items(stage, len(kept))
    shards: ParquetShards | None = None
    try:
        # The first item is asked for first: the workers start on it while Parquet sets up.
        first = list(itertools.islice(items, 1))
        shards = ParquetShards(stage, kind.total, paraphrased=kind.paraphrased) \
            if kind.parquet else None
        for line, item in kept:
            if shards is not None:
                shards.add(item, line)
            counts.add(item)
            kind.add(item)
        with (stage / ITEMS).open("a", encoding="utf-8", newline="\n") as lines:
            for item in itertools.chain(first, items):
                line = item_line(item)
                lines.write(line + "\n")
                lines.flush()
                if shards is not None:
                    shards.add(item, line)
                counts.add(item)
                kind.add(item)
                if on_item is not None:
                    on_item(counts.items)
    except BaseException:
        kind.abandon()
        raise
    finally:
        # An error here (or an interrupt) stops the workers now, not when the traceback
        # is freed: closing a generator runs its clean-up.
        close = getattr(items, "close", None)
        if close is not None:
            close()
    if shards is not None:
        shards.close()
    return counts
