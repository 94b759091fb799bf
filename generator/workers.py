"""Making items in worker processes: per-process state, the pool, items in index order."""

from __future__ import annotations

import multiprocessing
import multiprocessing.util
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tqdm import tqdm

from hopvista.config import BuildConfig
from hopvista.domain import DomainPack
from hopvista.feasibility import feasible_types
from hopvista.item import build_item
from hopvista.plan import PlanEntry, make_plan
from hopvista.sources import load_world
from hopvista.world import World

_WORKER: dict[str, Any] = {}

BATCH = 4  # items a worker renders together (charts and tables overlap within a batch)


def _close_renderer() -> None:
    renderer = _WORKER.pop("renderer", None)
    if renderer is not None:
        renderer.close()


def load_state(config: BuildConfig) -> tuple[DomainPack, World]:
    """Pack and world of ``config`` in this process (kept if already there)."""
    if _WORKER.get("config") != config:
        pack = config.pack()
        world = load_world(config.source or pack.spec.source, pack, config.seed,
                           config.options())
        _WORKER.update(config=config, pack=pack, world=world)
    return _WORKER["pack"], _WORKER["world"]


def _init_worker(config: BuildConfig, images_root: Path | None) -> None:
    load_state(config)  # forked workers inherit the parent's world; spawned ones build it
    _WORKER["images_root"] = images_root
    if images_root is not None and "renderer" not in _WORKER:
        from hopvista.render.item_images import ItemRenderer

        _WORKER["renderer"] = ItemRenderer().__enter__()
        # Pool workers that exit normally run these finalizers: the browsers are closed.
        multiprocessing.util.Finalize(None, _close_renderer, exitpriority=10)


def _make(entries: list[PlanEntry]) -> list[dict[str, Any]]:
    config: BuildConfig = _WORKER["config"]
    world: World = _WORKER["world"]
    items = [build_item(world, _WORKER["pack"], config.seed, entry) for entry in entries]
    if _WORKER["images_root"] is not None:
        _WORKER["renderer"].render_many(items, _WORKER["images_root"])
    return items


def plan_build(config: BuildConfig) -> tuple[list[PlanEntry], tuple[str, ...]]:
    """The build's plan over the statement types its world can make (probed here)."""
    pack, world = load_state(config)
    available = feasible_types(world, pack, config.seed)
    return make_plan(config.seed, config.count, config.levels, available), available


def generate_items(config: BuildConfig, workers: int = 1, progress: bool = False,
                   images_root: Path | None = None,
                   plan: list[PlanEntry] | None = None) -> Iterator[dict[str, Any]]:
    """The build's items, in index order, whatever ``workers`` is.

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
                    for item in _make(batch):
                        yield item
                        bar.update()
            finally:
                _close_renderer()
        else:
            if sys.platform == "linux":
                # Build the world and import the renderers' libraries once, before forking,
                # so every worker starts with them instead of paying for them again.
                load_state(config)
                if images_root is not None:
                    from hopvista.render.item_images import preload

                    preload()
            context = multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")
            pool = context.Pool(workers, initializer=_init_worker,
                                initargs=(config, images_root))
            finished = False
            try:
                for items in pool.imap(_make, batches):
                    for item in items:
                        yield item
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
