"""``build``: plan, make every item (in parallel if asked), write the dataset folder."""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from tqdm import tqdm

from hopvista import __version__
from hopvista.domain import DomainPack, resolve_pack
from hopvista.item import build_item
from hopvista.outdir import DATASET_FORMAT, check_out, staged_dataset, write_atomic
from hopvista.plan import LEVEL_NAMES, PlanEntry, make_plan, plan_shares
from hopvista.sources import load_world
from hopvista.world import World

FORMAT_VERSION = 1
RECORDED_PACKAGES = ("numpy", "pydantic", "jinja2", "faker", "pyyaml")


@dataclass(frozen=True)
class BuildConfig:
    """Everything that determines a build's bytes (``out`` and ``workers`` do not)."""

    domain: str
    levels: tuple[int, ...] = (1, 2, 3)
    count: int = 48
    seed: int = 0
    source: str | None = None

    def to_json(self, pack: DomainPack) -> dict[str, Any]:
        """The config as the manifest records it."""
        return {"domain": pack.name, "source": self.source or pack.spec.source,
                "hops": [LEVEL_NAMES[lv] for lv in self.levels], "count": self.count,
                "seed": self.seed, "instance": pack.spec.instance.model_dump(),
                "decidability": pack.spec.decidability.model_dump(),
                "identities": [identity.text for identity in pack.identities]}


_WORKER: dict[str, Any] = {}


def _init_worker(config: BuildConfig) -> None:
    pack = resolve_pack(config.domain)
    _WORKER.update(config=config, pack=pack,
                   world=load_world(config.source or pack.spec.source, pack, config.seed))


def _make(entry: PlanEntry) -> str:
    config: BuildConfig = _WORKER["config"]
    world: World = _WORKER["world"]
    item = build_item(world, _WORKER["pack"], config.seed, entry)
    return json.dumps(item, ensure_ascii=False, separators=(",", ":"))


def generate_lines(config: BuildConfig, workers: int = 1, progress: bool = False
                   ) -> Iterator[str]:
    """The JSON lines of the build's items, in index order, whatever ``workers`` is."""
    plan = make_plan(config.seed, config.count, config.levels)
    bar = tqdm(total=len(plan), desc="items", unit="item", disable=not progress,
               file=sys.stderr)
    try:
        if workers <= 1:
            _init_worker(config)
            for entry in plan:
                yield _make(entry)
                bar.update()
        else:
            context = multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")
            with context.Pool(workers, initializer=_init_worker, initargs=(config,)) as pool:
                for line in pool.imap(_make, plan, chunksize=4):
                    yield line
                    bar.update()
    finally:
        bar.close()


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _versions() -> dict[str, str]:
    versions = {"hopvista": __version__, "python": sys.version.split()[0]}
    for name in RECORDED_PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return versions


def statement_shares(items: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """True/false counts per statement type, as built."""
    shares: dict[str, dict[str, int]] = {}
    for item in items:
        for statement in item["statements"]:
            cell = shares.setdefault(statement["type"], {"true": 0, "false": 0})
            cell["true" if statement["label"] else "false"] += 1
    return {k: shares[k] for k in sorted(shares)}


def build(config: BuildConfig, out: Path, workers: int = 1, overwrite: bool = False,
          progress: bool = False) -> dict[str, Any]:
    """Build the dataset of ``config`` into ``out``; return its manifest."""
    pack = resolve_pack(config.domain)
    check_out(out, overwrite)
    with staged_dataset(out) as stage:
        lines = list(generate_lines(config, workers, progress))
        data = "".join(line + "\n" for line in lines).encode("utf-8")
        write_atomic(stage / "items.jsonl", data)
        items = [json.loads(line) for line in lines]
        plan = make_plan(config.seed, config.count, config.levels)
        manifest = {
            "format": DATASET_FORMAT,
            "format_version": FORMAT_VERSION,
            "config": config.to_json(pack),
            "seed": config.seed,
            "packages": _versions(),
            "counts": {"items": len(items), "statements": 3 * len(items)},
            "shares": plan_shares(plan) | {"statements": statement_shares(items)},
            "files": {"items.jsonl": sha256_file(stage / "items.jsonl")},
        }
        write_atomic(stage / "manifest.json",
                     (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode())
    return manifest
