"""The Python API: what the ``gen`` commands do, as functions.

    import hopvista
    manifest = hopvista.build("financial", "out/fin", hops=(3,), count=30)
    tasks = hopvista.build_markup("out/tasks", count=20)   # markup tasks on marked tables
    report = hopvista.verify("out/fin")
    dataset = hopvista.load("out/fin")        # typed items, read lazily

Errors in the user's input raise :class:`hopvista.errors.UserError` (the CLI prints them on
one line and exits with code 2).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from os import PathLike
from pathlib import Path
from typing import Any

from hopvista.verify.dataset import VerifyReport, verify

__all__ = ["VerifyReport", "build", "build_markup", "statement_types", "verify"]


def _quiet(text: str) -> None:
    print(f"gen: {text}", file=sys.stderr)


def build(domain: str, out: str | PathLike[str], *, hops: tuple[int, ...] = (1, 2, 3),
          count: int = 48, seed: int = 0, source: str | None = None,
          data: str | PathLike[str] | None = None, years: tuple[int, int] | None = None,
          periods: int | None = None, images: bool = True, workers: int = 1,
          overwrite: bool = False, progress: bool = False, defences: bool = True,
          notice: Callable[[str], None] = _quiet, shard: tuple[int, int] | None = None,
          executor: str = "local", address: str | None = None,
          shards: int | None = None) -> dict[str, Any]:
    """Build the dataset of ``domain`` (a built-in name or a pack folder) into ``out``.

    The same arguments give the same bytes whatever ``workers`` is. ``out`` is replaced
    atomically, and only if it holds an earlier hopvista dataset and ``overwrite`` is set.
    Returns the manifest (``manifest.json``); :func:`hopvista.load` reads the items.
    ``defences=False`` leaves out what defeats proxy solvers (a deliberately leaky dataset,
    for testing ``gen audit``). ``shard=(i, n)`` builds the i-th of n slices for
    :func:`hopvista.building.merge.merge`; ``executor="ray"`` builds ``shards`` slices as Ray tasks
    on
    the cluster at ``address`` (a local Ray of ``workers`` CPUs by default) and merges them
    into ``out`` — the same bytes as a local build.
    """
    from hopvista.building.config import BuildConfig
    from hopvista.building.pipeline import build as run_build

    config = BuildConfig(domain=str(domain), levels=tuple(hops), count=count, seed=seed,
                         source=source, images=images,
                         data=None if data is None else str(data), years=years,
                         periods=periods, defences=defences)
    if executor == "ray":
        from hopvista.building.distributed import build_on_ray

        return build_on_ray(config, Path(out), address=address, shards=shards,
                            workers=workers, overwrite=overwrite, progress=progress,
                            notice=notice)
    return run_build(config, Path(out), workers=workers, overwrite=overwrite,
                     progress=progress, notice=notice, shard=shard)


def build_markup(out: str | PathLike[str], *, count: int = 48, seed: int = 0,
                 tables: str | PathLike[str] = "financial", fmt: str | None = None,
                 source: str | None = None, data: str | PathLike[str] | None = None,
                 workers: int = 1, overwrite: bool = False, progress: bool = False,
                 notice: Callable[[str], None] = _quiet) -> dict[str, Any]:
    """Write ``count`` markup tasks into ``out`` (``gen markup``): each a table image with
    marked cells (highlighted, underlined, bold) and a question about them whose answer a
    program re-derives (docs/markup.md).

    ``tables`` is where the tables come from: a domain (a built-in name or a pack folder, with
    its ``source`` and ``data``) or an existing dataset's file or folder (in ``fmt``, detected
    when ``None``). The same arguments give the same bytes whatever ``workers`` is; ``out`` is
    replaced as by :func:`build`. Returns the manifest.
    """
    from hopvista.markup_tasks.build import build_markup as run_markup

    return run_markup(Path(out), count=count, seed=seed, tables=str(tables), fmt=fmt,
                      source=source, data=None if data is None else str(data),
                      workers=workers, overwrite=overwrite, progress=progress, notice=notice)


def statement_types(domain: str, *, source: str | None = None,
                    data: str | PathLike[str] | None = None,
                    years: tuple[int, int] | None = None, periods: int | None = None,
                    seed: int = 0) -> dict[str, str | None]:
    """Every registered statement type and whether ``domain`` (with its data) can make it:
    ``None`` for a type a build would plan, else one sentence saying why not (the pack does
    not word it, the data have no texts or periods, the texts gave no facts, or no instance
    of the data gave a true and a false statement when probed with ``seed``). A build
    records the same reasons in its manifest (``config.unavailable``)."""
    from hopvista.building.config import BuildConfig
    from hopvista.building.workers import availability
    from hopvista.program.statement_types import STATEMENT_TYPES

    found = availability(BuildConfig(domain=str(domain), seed=seed, source=source,
                                     data=None if data is None else str(data), years=years,
                                     periods=periods, images=False))
    return {name: None if name in found.available else found.reasons[name]
            for name in STATEMENT_TYPES.names()}


