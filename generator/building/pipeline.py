"""``build``: plan, make every item (in parallel if asked), write the dataset folder."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from hopvista.audit.recorded import build_audit
from hopvista.building.config import BuildConfig
from hopvista.building.dataset_writer import (
    Counts,
    DatasetKind,
    Notice,
    package_versions,
    write_dataset,
)
from hopvista.building.resume import ITEMS, resume_key
from hopvista.building.workers import cap_workers, generate_items, load_state, plan_build
from hopvista.domain import DomainPack
from hopvista.errors import UserError
from hopvista.generation.feasibility import Availability, texts_without_facts
from hopvista.generation.plan import missing_slots, plan_shares, why_not
from hopvista.llm.facts import llm_facts_notices
from hopvista.llm.paraphrase import ParaphraseCounts, ParaphraseStage, llm_manifest
from hopvista.model import Item
from hopvista.model.balance import LEVEL_NAMES, agreement_shares, slot_groups
from hopvista.model.format import FORMAT_VERSION
from hopvista.model.image import longest_image_name
from hopvista.model.item import base_item_id, variant_id
from hopvista.model.kinds import THREE_STATEMENT
from hopvista.output.card import dataset_card
from hopvista.output.folder import (
    check_out,
    image_name_limit,
    name_max,
    nearest_existing,
    storage_problem,
)
from hopvista.program.statement_types import STATEMENT_TYPES
from hopvista.render.versions import RenderVersions
from hopvista.world import World

__all__ = ["FORMAT_VERSION", "BuildConfig", "build"]

SHARD_KIND = "shard"
"""The manifest ``kind`` of a shard (``gen build --shard I/N``), joined by ``gen merge``."""

# FORMAT_VERSION (defined in hopvista.model.format, re-exported here) must be bumped by hand
# for every change in a "yes" row of docs/format.md's versioning table.


class StatementTally:
    """True/false counts per statement type, as built (fed one item at a time)."""

    def __init__(self) -> None:
        self._shares: dict[str, dict[str, int]] = {}
        self._agree: list[tuple[str, bool, dict[str, bool]]] = []
        self._waived: list[str] = []

    def add(self, item: Item) -> None:
        """Count the statements of ``item`` and the agreement demands they met."""
        for statement in item.statements:
            cell = self._shares.setdefault(statement.type, {"true": 0, "false": 0})
            cell["true" if statement.label else "false"] += 1
        plan = item.provenance.plan or {}
        demands = plan.get("agree")
        if demands is None:
            return
        for statement, wants in zip(item.statements, demands, strict=True):
            if item.provenance.agree_waived:
                self._waived.append(statement.type)
            else:
                self._agree.append((statement.type, statement.label, dict(wants)))

    def shares(self) -> dict[str, dict[str, int]]:
        """``{type: {"true": n, "false": n}}`` in type order."""
        return {k: dict(self._shares[k]) for k in sorted(self._shares)}

    def agreement(self) -> dict[str, Any] | None:
        """The manifest's ``shares.agree`` (``None`` for a build without the axis)."""
        if not self._agree and not self._waived:
            return None
        return agreement_shares(self._agree, self._waived)


# Bytes a finished item takes on disk (items.jsonl + Parquet, and with images both PNGs twice:
# under images/ and inside the Parquet), measured on the financial domain; the disk check
# refuses a build that clearly cannot fit.
ITEM_BYTES_WITH_IMAGES = 250_000
ITEM_BYTES_WITHOUT_IMAGES = 15_000


def check_disk_space(config: BuildConfig, out: Path, shown: Path | None = None) -> None:
    """Refuse a build whose output folder ``out`` (resolved; ``shown`` as the user named it)
    cannot be written (no file system that stores files, read-only, not writable) or whose
    estimated size exceeds the free space where it would be written."""
    shown = out if shown is None else shown
    where = nearest_existing(out.parent)
    problem = storage_problem(where)
    if problem is not None:
        raise UserError(f"--out {shown}: cannot be created: {where} {problem}")
    per_item = ITEM_BYTES_WITH_IMAGES if config.images else ITEM_BYTES_WITHOUT_IMAGES
    needed = config.count * per_item
    try:
        free = shutil.disk_usage(where).free
    except OSError as exc:
        raise UserError(f"--out {shown}: cannot tell the free space of {where}: "
                        f"{exc.strerror}") from None
    if needed > free:
        raise UserError(f"-n {config.count}: the dataset would take about {_human(needed)} "
                        f"(~{_human(per_item)} per item) but {where} (where --out {shown} "
                        f"goes) has {_human(free)} free")


def check_image_names(domain: str, seed: int, count: int, out: Path) -> None:
    """Refuse a build with images whose image file names would be longer than the file
    system of ``out`` allows: they carry the item ids, and so the domain's name and the
    seed (``images/financial-s7-000003.base.table.png``)."""
    longest = longest_image_name(variant_id(base_item_id(domain, seed, count - 1)))
    limit = image_name_limit(out.parent)
    if longest <= limit:
        return
    digits = len(str(seed))
    room = limit - (longest - digits)
    if room >= SHORT_SEED_DIGITS:
        raise UserError(f"--seed {str(seed)[:12]}... ({digits} digits): item ids carry the "
                        f"seed and image file names the ids, so with images it may have at "
                        f"most {room} digits (or build with --no-images)")
    raise UserError(f"domain {_shown_name(domain)}: its name is {len(os.fsencode(domain))} "
                    f"bytes; item ids carry it and image file names the ids, which would be "
                    f"longer than the {name_max(out.parent)} bytes a file name may have; "
                    "give the pack a shorter name (or build with --no-images)")


#: Digits a seed may always have (a 64-bit seed): a domain name that leaves less room for
#: the seed in a file name is the one to shorten.
SHORT_SEED_DIGITS = 20


def _shown_name(name: str) -> str:
    return repr(name if len(name) <= 60 else f"{name[:40]}...{name[-12:]}")


def _human(size: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB", "PB"):
        if size < 1000 or unit == "PB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1000
    return f"{size:.1f} PB"


def _stderr_notice(text: str) -> None:
    print(f"gen: {text}", file=sys.stderr)


def check_build_out(config: BuildConfig, out: Path) -> tuple[Path, list[Path | str]]:
    """The folder a build of ``config`` may write to (``--out`` resolved), and the folders
    the build reads from (its pack and data); ``UserError`` naming ``--out`` when it is one of
    them, holds one, lies in a dataset, or cannot hold the build's file names."""
    pack = config.pack()
    sources: list[Path | str] = [pack.path, *([config.data] if config.data else [])]
    target = check_out(out, sources=sources)
    if config.images:
        check_image_names(pack.name, config.seed, config.count, target)
    return target, sources


def build(config: BuildConfig, out: Path, workers: int = 1, overwrite: bool = False,
          progress: bool = False,
          notice: Callable[[str], None] = _stderr_notice,
          shard: tuple[int, int] | None = None,
          on_item: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Build the dataset of ``config`` into ``out``; return its manifest.

    ``out`` is locked for the whole build, the dataset is written into a staging folder beside
    it and swapped in at the end (see :mod:`hopvista.building.dataset_writer`); items stream
    to disk, so memory does not grow with the item count. A build killed at any point resumes
    when run again with the same command (:mod:`hopvista.building.resume`). ``shard``
    ``(i, n)`` builds the ``i``-th of ``n`` slices of the plan (1-based) as a shard for
    ``gen merge`` (:mod:`hopvista.building.merge`).
    ``notice`` receives what the user should know (stale folders removed, workers capped);
    ``on_item`` is called with the number of items done after each one (a kept item of a
    resumed build counts as done).
    """
    pack = config.pack()  # an unknown domain or a broken pack is reported before anything else
    target, sources = check_build_out(config, out)
    check_disk_space(config, target, out)
    workers = cap_workers(workers, notice)
    stage = None if config.llm is None else ParaphraseStage(config.llm, pack, config.seed,
                                                            progress=progress, notice=notice)
    kind = BuildKind(config, pack, workers, progress, shard, stage)
    manifest = write_dataset(out, kind, overwrite=overwrite, notice=notice, sources=sources,
                             on_item=on_item)
    if stage is not None:
        notice(f"LLM requests of this run: {stage.usage.summary()}")
    return manifest


class BuildKind(DatasetKind):
    """A build's dataset (or one shard of it): the plan's items, the statements' shares, the
    audit, and the card of the domain."""

    def __init__(self, config: BuildConfig, pack: DomainPack, workers: int, progress: bool,
                 shard: tuple[int, int] | None, stage: ParaphraseStage | None = None) -> None:
        self.config, self.pack, self.workers, self.progress = config, pack, workers, progress
        self.shard = shard
        self.stage = stage
        self.paraphrased = stage is not None
        self.paraphrases = ParaphraseCounts()
        self.replay = 0
        self.items_file: Path | None = None
        self.name = SHARD_KIND if shard else None
        self.parquet = shard is None
        self.resume_key = resume_key(config.to_json(pack), package_versions(), shard)
        self.first_index, self.stop = shard_range(config.count, shard)
        self.total = self.stop - self.first_index
        self.written: Written | None = None

    def start(self, notice: Notice) -> None:
        """Load the world, plan the build, say what the data cannot make."""
        self.pack, self.world = load_state(self.config, self.pack)
        pack, world = self.pack, self.world
        if pack.has_periods and len(world.periods) < pack.spec.instance.periods:
            raise UserError(f"the source's window has {len(world.periods)} periods "
                            f"({world.periods[0]}-{world.periods[-1]}) but instances need "
                            f"{pack.spec.instance.periods}: widen --years or lower --periods")
        self.plan, self.found = plan_build(self.config)
        for line in [*texts_notices(world), *llm_facts_notices(world), *availability_notices(
                self.config.levels, pack.types, self.found, world)]:
            notice(line)

    def items(self, stage: Path, kept: int) -> Iterator[Item]:
        """The plan's items after the kept ones (their images under ``stage``), paraphrased
        when the build has a paraphrase stage."""
        made = generate_items(self.config, self.workers, self.progress,
                              images_root=stage if self.config.images else None,
                              plan=self.plan[self.first_index + kept:self.stop])
        if self.stage is None:
            return made
        self.replay = kept
        return self.stage.run(made)

    def add(self, item: Item) -> None:
        """Count the item's statements (and, with images, look up what drew them); a kept
        item of a resumed build has its LLM requests counted again from the cache."""
        self._written().add(item)
        if self.stage is not None:
            if self.replay:
                self.replay -= 1
                self.stage.replay(item)
            self.paraphrases.add(item)

    def _written(self) -> Written:
        if self.written is None:
            # Its thread starts once the workers are forked (render/versions.py): after the
            # first item was asked for.
            self.written = Written(RenderVersions() if self.config.images else None)
        return self.written

    def abandon(self) -> None:
        """Stop looking up the render versions."""
        if self.written is not None:
            self.written.close()

    def manifest(self, stage: Path, counts: Counts) -> dict[str, Any]:
        """The build's manifest (a shard's, for ``gen merge``), with its audit."""
        written = self._written()
        render = written.render()
        decide = self.pack.spec.decidability
        margins = (decide.min_rank_gap, decide.min_trend_step)
        found = self.found
        config_json = self.config.to_json(self.pack) | {"types": list(found.available)} | (
            {"unavailable": found.to_json()} if found.reasons else {})
        if self.shard is not None:
            manifest = shard_manifest(config_json, self.world.provenance, self.config.seed,
                                      render, written, plan_shares(self.plan), self.shard,
                                      (self.first_index, self.stop), self.pack.spec.title,
                                      margins)
        else:
            audit = build_audit(stage / ITEMS, written.items, margins)
            manifest = dataset_manifest(config_json, self.world.provenance, self.config.seed,
                                        render, written, plan_shares(self.plan), audit)
        if self.stage is not None:
            manifest["llm"] = llm_manifest(self.stage, self.paraphrases)
        self.items_file = stage / ITEMS
        return manifest

    def card(self, manifest: dict[str, Any]) -> str | None:
        """The domain's card (none for a shard)."""
        return None if self.shard is not None else dataset_card(manifest, self.pack.spec.title,
                                                                self.items_file)


#: How many entities and passages without facts ``texts_notices`` names before it points
#: at the manifest.
NOTICE_ROWS = 12


def texts_notices(world: World) -> list[str]:
    """What the source's texts gave, where its provenance reports it (a panel's
    ``texts.jsonl``): passages and facts per entity on one line, and each passage without a
    fact with why (the first :data:`NOTICE_ROWS`; the manifest's ``source.texts`` has all)."""
    texts = world.provenance.get("texts")
    if not isinstance(texts, dict) or not isinstance(texts.get("entities"), dict):
        return []
    name = texts.get("file", "texts")
    entities: dict[str, dict[str, int]] = texts["entities"]
    shown = [f"{e} {c['passages']}/{c['facts']}" for e, c in entities.items()][:NOTICE_ROWS]
    more = len(entities) - len(shown)
    lines = [f"{name}: {texts['passages']} passages, {texts['facts']} facts; passages/facts "
             f"per entity: {', '.join(shown)}{f', and {more} more' if more > 0 else ''}"]
    without: list[dict[str, Any]] = texts.get("without_facts", [])
    for row in without[:NOTICE_ROWS]:
        lines.append(f"{name}:{row['line']}: no fact: {row['reason']}")
    if len(without) > NOTICE_ROWS:
        lines.append(f"{name}: {len(without) - NOTICE_ROWS} more passages without facts "
                     "(manifest.json, source.texts.without_facts)")
    return lines


def availability_notices(levels: tuple[int, ...], types: tuple[str, ...],
                         found: Availability, world: World) -> list[str]:
    """What a user should know of the types the data cannot make: one line when the texts
    give no facts at all (no FC statement), and one per level whose items leave out a
    modality slot for another reason."""
    lines = []
    none = texts_without_facts(world)
    if none is not None and any(STATEMENT_TYPES.get(t).needs_documents for t in types):
        lines.append(f"{none}: no statement reads the text (no FC type)")
    for level, slots in missing_slots(levels, types, found.available).items():
        names = [n for slot in slots for n in slot_groups(level, types)[slot]]
        if none is not None and all(STATEMENT_TYPES.get(n).needs_documents for n in names):
            continue
        lines.append(f"{LEVEL_NAMES[level]} items leave out the {', '.join(slots)} slot"
                     f"{'s' if len(slots) > 1 else ''}: {why_not(names, found.reasons)}")
    return lines


def shard_range(count: int, shard: tuple[int, int] | None) -> tuple[int, int]:
    """The indices ``[first, stop)`` of shard ``(i, n)`` (1-based) of a build of ``count``
    items: contiguous slices, equal ±1."""
    if shard is None:
        return 0, count
    i, n = shard
    return (i - 1) * count // n, i * count // n


def dataset_manifest(config_json: dict[str, Any], source: Any, seed: int,
                     render: dict[str, Any] | None, written: Written,
                     plan_shares_json: dict[str, Any], audit: Any) -> dict[str, Any]:
    """The manifest of a finished build, after its format (the dataset writer adds that, and
    ``files``)."""
    return {
        "config": config_json,
        "source": source,
        "seed": seed,
        "packages": package_versions(),
        "render": render,
        "counts": {"items": written.items, "statements": THREE_STATEMENT.statements * written.items,
                   "images": written.images},
        "shares": plan_shares_json | {"statements": written.statements.shares()} | (
            {"agree": agree} if (agree := written.statements.agreement()) else {}),
        "audit": audit,
    }


def shard_manifest(config_json: dict[str, Any], source: Any, seed: int,
                   render: dict[str, Any] | None, written: Written,
                   plan_shares_json: dict[str, Any], shard: tuple[int, int],
                   indices: tuple[int, int], title: str,
                   margins: tuple[float, float]) -> dict[str, Any]:
    """The manifest of a shard: its slice, and what ``gen merge`` needs of the whole build
    (the global plan's shares, the card's title, the audit's margins), after its format and
    kind."""
    return {
        "shard": {"index": shard[0], "of": shard[1], "first": indices[0],
                  "stop": indices[1]},
        "config": config_json,
        "source": source,
        "seed": seed,
        "packages": package_versions(),
        "render": render,
        "counts": {"items": written.items, "images": written.images},
        "plan_shares": plan_shares_json,
        "title": title,
        "margins": list(margins),
    }


class Written:
    """What the item stream left on disk, counted as it went, and what drew its images
    (looked up meanwhile by ``versions``, for a build with images)."""

    def __init__(self, versions: RenderVersions | None = None) -> None:
        self.items = 0
        self.images = 0
        self.statements = StatementTally()
        self._versions = versions

    def add(self, item: Item) -> None:
        """Count one item written."""
        self.items += 1
        self.images += len(item.images)
        self.statements.add(item)
        if self._versions is None:
            return
        for image in item.images:  # the font families each image was drawn with
            for key in ("font", "fallback_family"):
                family = image.render.get(key)
                if isinstance(family, str) and family:
                    self._versions.add(family)

    def close(self) -> None:
        """Stop looking up what drew the images (the run failed)."""
        if self._versions is not None:
            self._versions.close()

    def render(self) -> dict[str, Any] | None:
        """The manifest's ``render`` (Chromium and the font files behind the images), or
        ``None`` for a build without images."""
        return None if self._versions is None else self._versions.result()
