"""``build``: plan, make every item (in parallel if asked), write the dataset folder."""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import multiprocessing.util
import sys
from collections.abc import Iterator
from dataclasses import dataclass, replace
from importlib import metadata
from pathlib import Path
from typing import Any

from tqdm import tqdm

from hopvista import __version__
from hopvista.domain import DomainPack, resolve_pack
from hopvista.errors import UserError
from hopvista.feasibility import feasible_types
from hopvista.item import build_item
from hopvista.outdir import DATASET_FORMAT, check_out, staged_dataset, write_atomic
from hopvista.plan import LEVEL_NAMES, PlanEntry, make_plan, plan_shares
from hopvista.sources import SourceOptions, load_world
from hopvista.world import World

FORMAT_VERSION = 1
RECORDED_PACKAGES = ("numpy", "pydantic", "jinja2", "faker", "pyyaml", "playwright", "matplotlib",
                     "seaborn", "plotly", "kaleido", "pillow", "pyarrow", "datasets")


@dataclass(frozen=True)
class BuildConfig:
    """Everything that determines a build's bytes (``out`` and ``workers`` do not)."""

    domain: str
    levels: tuple[int, ...] = (1, 2, 3)
    count: int = 48
    seed: int = 0
    source: str | None = None
    images: bool = True
    data: str | None = None
    years: tuple[int, int] | None = None
    periods: int | None = None

    def options(self) -> SourceOptions:
        """What the source is told."""
        return SourceOptions(data=Path(self.data) if self.data else None, years=self.years)

    def pack(self) -> DomainPack:
        """The domain pack, with ``periods`` applied."""
        pack = resolve_pack(self.domain)
        if self.periods is None:
            return pack
        instance = pack.spec.instance.model_copy(update={"periods": self.periods})
        return replace(pack, spec=pack.spec.model_copy(update={"instance": instance}))

    def to_json(self, pack: DomainPack) -> dict[str, Any]:
        """The config as the manifest records it (the data folder as the user named it)."""
        return {"domain": pack.name, "source": self.source or pack.spec.source,
                "data": self.data, "years": list(self.years) if self.years else None,
                "hops": [LEVEL_NAMES[lv] for lv in self.levels], "count": self.count,
                "seed": self.seed, "images": self.images,
                "instance": pack.spec.instance.model_dump(),
                "decidability": pack.spec.decidability.model_dump(),
                "identities": [identity.text for identity in pack.identities]}


_WORKER: dict[str, Any] = {}


def _close_renderer() -> None:
    renderer = _WORKER.pop("renderer", None)
    if renderer is not None:
        renderer.close()


def _load_state(config: BuildConfig) -> tuple[DomainPack, World]:
    """Pack and world of ``config`` in this process (kept if already there)."""
    if _WORKER.get("config") != config:
        pack = config.pack()
        world = load_world(config.source or pack.spec.source, pack, config.seed,
                           config.options())
        _WORKER.update(config=config, pack=pack, world=world)
    return _WORKER["pack"], _WORKER["world"]


def _init_worker(config: BuildConfig, images_root: Path | None) -> None:
    _load_state(config)  # forked workers inherit the parent's world; spawned ones build it
    _WORKER["images_root"] = images_root
    if images_root is not None and "renderer" not in _WORKER:
        from hopvista.render.item_images import ItemRenderer

        _WORKER["renderer"] = ItemRenderer().__enter__()
        # Pool workers that exit normally run these finalizers: the browsers are closed.
        multiprocessing.util.Finalize(None, _close_renderer, exitpriority=10)


BATCH = 4  # items a worker renders together (charts and tables overlap within a batch)


def _make(entries: list[PlanEntry]) -> list[str]:
    config: BuildConfig = _WORKER["config"]
    world: World = _WORKER["world"]
    items = [build_item(world, _WORKER["pack"], config.seed, entry) for entry in entries]
    if _WORKER["images_root"] is not None:
        _WORKER["renderer"].render_many(items, _WORKER["images_root"])
    return [json.dumps(item, ensure_ascii=False, separators=(",", ":")) for item in items]


def plan_build(config: BuildConfig) -> tuple[list[PlanEntry], tuple[str, ...]]:
    """The build's plan over the statement types its world can make (probed here)."""
    pack, world = _load_state(config)
    available = feasible_types(world, pack, config.seed)
    return make_plan(config.seed, config.count, config.levels, available), available


def generate_lines(config: BuildConfig, workers: int = 1, progress: bool = False,
                   images_root: Path | None = None,
                   plan: list[PlanEntry] | None = None) -> Iterator[str]:
    """The JSON lines of the build's items, in index order, whatever ``workers`` is.

    With ``images_root``, each item's PNGs are written under it and the item records them.
    """
    if plan is None:
        plan, _ = plan_build(config)
    batches = [plan[i:i + BATCH] for i in range(0, len(plan), BATCH)]
    bar = tqdm(total=len(plan), desc="items", unit="item", disable=not progress,
               file=sys.stderr)
    try:
        if workers <= 1:
            _init_worker(config, images_root)
            try:
                for batch in batches:
                    for line in _make(batch):
                        yield line
                        bar.update()
            finally:
                _close_renderer()
        else:
            if sys.platform == "linux":
                # Build the world and import the renderers' libraries once, before forking,
                # so every worker starts with them instead of paying for them again.
                _load_state(config)
                if images_root is not None:
                    from hopvista.render.item_images import preload

                    preload()
            context = multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")
            pool = context.Pool(workers, initializer=_init_worker,
                                initargs=(config, images_root))
            finished = False
            try:
                for lines in pool.imap(_make, batches):
                    for line in lines:
                        yield line
                        bar.update()
                finished = True
            finally:
                if finished:
                    pool.close()  # workers exit normally and close their browsers
                else:
                    pool.terminate()
                pool.join()
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


def _render_versions(items: list[dict[str, Any]]) -> dict[str, Any]:
    """Chromium and font versions behind the images (what makes their bytes)."""
    from hopvista.render.browser import chromium_version
    from hopvista.themes.fonts import font_versions

    fonts = sorted({item["render"]["table"]["font"] for item in items} |
                   {item["render"]["chart"]["font"] for item in items})
    return {"chromium": chromium_version(), "fonts": font_versions(fonts)}


def build(config: BuildConfig, out: Path, workers: int = 1, overwrite: bool = False,
          progress: bool = False) -> dict[str, Any]:
    """Build the dataset of ``config`` into ``out``; return its manifest.

    Everything is written into a temporary sibling folder that replaces ``out`` only when the
    build has succeeded.
    """
    from hopvista.card import dataset_card
    from hopvista.export import write_parquet

    config.pack()  # an unknown domain or a broken pack is reported before anything else
    check_out(out, overwrite)
    pack, world = _load_state(config)
    if len(world.periods) < pack.spec.instance.periods:
        raise UserError(f"the source's window has {len(world.periods)} periods "
                        f"({world.periods[0]}-{world.periods[-1]}) but instances need "
                        f"{pack.spec.instance.periods}: widen --years or lower --periods")
    plan, available = plan_build(config)
    with staged_dataset(out) as stage:
        lines = list(generate_lines(config, workers, progress,
                                    images_root=stage if config.images else None, plan=plan))
        write_atomic(stage / "items.jsonl", "".join(line + "\n" for line in lines).encode())
        items = [json.loads(line) for line in lines]
        write_parquet(items, stage)
        manifest: dict[str, Any] = {
            "format": DATASET_FORMAT,
            "format_version": FORMAT_VERSION,
            "config": config.to_json(pack) | {"types": list(available)},
            "source": world.provenance,
            "seed": config.seed,
            "packages": _versions(),
            "render": _render_versions(items) if config.images else None,
            "counts": {"items": len(items), "statements": 3 * len(items),
                       "images": sum(len(item["images"]) for item in items)},
            "shares": plan_shares(plan) | {"statements": statement_shares(items)},
        }
        write_atomic(stage / "README.md", dataset_card(manifest, pack.spec.title).encode())
        manifest["files"] = {
            path.relative_to(stage).as_posix(): sha256_file(path)
            for path in sorted(stage.rglob("*")) if path.is_file()
        }
        write_atomic(stage / "manifest.json",
                     (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode())
    return manifest
