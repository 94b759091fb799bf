"""The worker runner: tasks made in worker processes, results in task order.

Every dataset kind makes its items through :func:`run_ordered`: a :class:`Maker` says how
one process gets ready (``open``), makes one task (``make``) and lets go (``close``); the
runner runs it here (one worker) or in a pool, yields the results in task order whatever the
number of workers, reports an error raised while a worker got ready from the first task, and
handles interrupts as below. The build's own maker (:class:`BuildItems`, items of a plan by
batch) is here too; variants and markup tasks have theirs beside their kinds.

Signals: pool workers leave interrupts to the parent. They ignore SIGINT and SIGHUP (a
terminal sends those to its whole process group, workers included); the parent, interrupted,
terminates the pool, which sends each worker SIGTERM. A worker turns SIGTERM into a quiet
``SystemExit``: its finalizer closes its browsers (and their temporary profiles) before it
exits, and if that takes more than :data:`WORKER_CLOSE_S` the worker is killed outright (its
browsers then exit when their pipes close). On Linux a worker also gets SIGTERM when the
parent dies, however it dies, so no worker outlives gen.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import multiprocessing
import multiprocessing.pool
import multiprocessing.util
import os
import signal
import sys
import threading
from collections.abc import Callable, Generator, Iterable, Iterator
from pathlib import Path
from types import FrameType
from typing import Any, Protocol, TypeVar, cast

from tqdm import tqdm

from hopvista.audit.defences import defences_for
from hopvista.building import heap
from hopvista.building.config import BuildConfig
from hopvista.domain import DomainPack
from hopvista.generation.defences import Defences
from hopvista.generation.feasibility import Availability, probe_types
from hopvista.generation.item import build_item
from hopvista.generation.plan import PlanEntry, check_levels, make_plan, with_structures
from hopvista.llm.facts import facts_world
from hopvista.model import Item
from hopvista.sources import load_world
from hopvista.world import World

_WORKER: dict[str, Any] = {}
"""This process's build state: the world (kept across builds of one world), the pack, the
probed statement types, the renderer."""

BATCH = 4  # items a worker renders together (charts and tables overlap within a batch)

TRIM_EVERY = 16
"""Items a worker makes between two returns of its freed memory
(:func:`hopvista.building.heap.trim`)."""

WORKER_CLOSE_S = 30
"""Longest a terminated worker may take to close its browsers before it is killed."""

POOL_STOP_S = 10
"""Longest the pool's own threads get to stop once its workers are gone."""

_PR_SET_PDEATHSIG = 1  # linux/prctl.h

# Signals a pool worker must not act on before its initializer has set them up.
_DEFERRED = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP")
                  if hasattr(signal, name))


def worker_setup(parent: int, close: Callable[[], None]) -> None:
    """What a pool worker's initializer does first: its signals (:func:`worker_signals`),
    and ``close`` registered to run when the worker exits (normally, or by SIGTERM, even while
    starting), quietly: a worker that is going away has no one to tell."""
    worker_signals(parent)

    def quietly() -> None:
        with contextlib.suppress(Exception):
            close()

    multiprocessing.util.Finalize(None, quietly, exitpriority=10)


def _ignore_unraisable(unraisable: Any) -> None:
    """A terminating worker's hook for exceptions raised in finalizers: dropped."""


def _exit_on_sigterm(signum: int, frame: FrameType | None) -> None:
    """SIGTERM in a pool worker: exit through ``SystemExit`` so the finalizers run. An object
    the signal left half-built (an event loop being made) may fail in its finalizer as the
    worker goes away; that is not reported (the parent says the build was terminated)."""
    signal.signal(signum, signal.SIG_IGN)  # one is enough; the watchdog below bounds the rest
    sys.unraisablehook = _ignore_unraisable
    if hasattr(signal, "alarm"):
        signal.signal(signal.SIGALRM, signal.SIG_DFL)  # its default action kills the process
        signal.alarm(WORKER_CLOSE_S)
    raise SystemExit(128 + signum)


def _die_with_parent(parent: int) -> None:
    """Ask Linux to send this process SIGTERM when ``parent`` (the forking thread) ends."""
    if sys.platform != "linux":
        return
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
    if os.getppid() != parent:  # the parent died before the request was made
        os.kill(os.getpid(), signal.SIGTERM)


def worker_signals(parent: int) -> None:
    """Set a pool worker's signal handling up (see the module docstring)."""
    for name in ("SIGINT", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _DEFERRED)  # blocked by start_pool
    _die_with_parent(parent)


def usable_cpus() -> int:
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def cap_workers(workers: int, notice: Callable[[str], None]) -> int:
    """``workers``, at most the usable CPU count (more only slows a build down)."""
    cpus = usable_cpus()
    if workers > cpus:
        notice(f"--workers {workers}: using {cpus}, the number of CPUs available")
        return cpus
    return workers


def load_state(config: BuildConfig, pack: DomainPack | None = None) -> tuple[DomainPack, World]:
    """Pack and world of ``config`` in this process (the world is kept while the pack, the
    source, its options, the seed and the LLM fact extraction stay the same, whatever the
    count or levels); ``pack`` is ``config.pack()`` when the caller already has it."""
    if _WORKER.get("config") != config:
        pack = pack if pack is not None else config.pack()
        key = (pack, config.source, config.seed, config.options(), config.facts)
        if _WORKER.get("world_key") != key:
            world = load_world(config.source_name(pack), pack, config.seed, config.options())
            if config.facts is not None:
                world = facts_world(world, pack, config.facts)
            _WORKER.update(world_key=key, world=world, available=None)
        _WORKER.update(config=config, pack=pack)
    return _WORKER["pack"], _WORKER["world"]


def start_pool(context: Any, workers: int, initializer: Any,
               initargs: tuple[Any, ...]) -> multiprocessing.pool.Pool:
    """A pool of ``workers`` whose ``initializer`` (which must call :func:`worker_signals`
    first) gets ``initargs``. Signals that arrive while it forks wait until the workers can
    ignore them (their initializer unblocks them) and then reach this process alone."""
    blocks = hasattr(signal, "pthread_sigmask")
    if blocks:
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, _DEFERRED)
    # Forked workers share this process's memory until either side writes a page; the
    # collector writes to every object it scans. Frozen objects are never scanned, so
    # the world and the imported libraries stay shared (:func:`stop_pool` unfreezes).
    gc.collect()
    gc.freeze()
    try:
        pool: multiprocessing.pool.Pool = context.Pool(
            workers, initializer=initializer, initargs=initargs)
    except BaseException:
        gc.unfreeze()
        raise
    finally:
        if blocks:
            signal.pthread_sigmask(signal.SIG_SETMASK, previous)
    return pool


def stop_pool(pool: multiprocessing.pool.Pool, finished: bool) -> None:
    """End a pool: after its work is done, let its workers exit normally; otherwise (an error,
    an interrupt) send each worker SIGTERM and wait for them.

    ``Pool.terminate`` is not used on the failure path: it takes the task queue's lock to drain
    it, and a worker that died holding that lock (killed while it read a task) makes it wait
    forever. SIGTERM reaches every worker however the queues stand; each closes its browsers
    (bounded by :data:`WORKER_CLOSE_S`) and exits."""
    try:
        _stop(pool, finished)
    finally:
        gc.unfreeze()


def _stop(pool: multiprocessing.pool.Pool, finished: bool) -> None:
    if finished:
        pool.close()  # workers exit normally and close their browsers
        pool.join()
        return
    workers = list(getattr(pool, "_pool", ()))
    for process in workers:
        with contextlib.suppress(Exception):
            if process.is_alive() and process.pid is not None:
                os.kill(process.pid, signal.SIGTERM)
    for process in workers:
        process.join(WORKER_CLOSE_S + 5)
        if process.is_alive() and process.pid is not None:
            with contextlib.suppress(Exception):
                os.kill(process.pid, signal.SIGKILL)
            process.join(5)
    # The workers are gone; terminate() now only stops the pool's threads. It may still wait
    # on a queue lock a dead worker held: it gets a few seconds on a daemon thread, no more.
    stopper = threading.Thread(target=pool.terminate, name="hopvista-pool-stop", daemon=True)
    stopper.start()
    stopper.join(POOL_STOP_S)


def availability(config: BuildConfig) -> Availability:
    """The statement types the build's world can make and why not the others (probed once
    per world)."""
    pack, world = load_state(config)
    found = _WORKER.get("available")
    if found is None:
        found = _WORKER["available"] = probe_types(world, pack, config.seed)
    return cast("Availability", found)


def build_defences(config: BuildConfig) -> Defences:
    """The build's defences against proxy solvers for its world (:mod:`hopvista.audit.defences`;
    made once per world: forked workers inherit them with it)."""
    _, world = load_state(config)
    found = _WORKER.get("defences")
    if found is None or found[0] is not world or found[1] != config.defences:
        found = _WORKER["defences"] = (world, config.defences,
                                       defences_for(config.defences, world))
    return cast("Defences", found[2])


def plan_build(config: BuildConfig) -> tuple[list[PlanEntry], Availability]:
    """The build's plan over the statement types its world can make (probed here); a level
    none of whose modality slots is possible is a ``UserError`` saying why."""
    pack, world = load_state(config)
    build_defences(config)
    found = availability(config)
    check_levels(config.levels, pack.types, found.available, found.reasons)
    plan = make_plan(config.seed, config.count, config.levels, pack.types, found.available,
                     defences=config.defences)
    return with_structures(plan, config.structures, config.seed), found


def _batches(plan: list[PlanEntry], workers: int) -> list[list[PlanEntry]]:
    """The plan in batches of :data:`BATCH`, its last ``workers`` x BATCH entries one by one:
    a worker that runs out of work at the end then waits for one item of another's, not a
    whole batch."""
    split = len(plan) - min(len(plan), workers * BATCH) if workers > 1 else len(plan)
    head = plan[:split]
    return [head[i:i + BATCH] for i in range(0, split, BATCH)] + [[e] for e in plan[split:]]


Task = TypeVar("Task", contravariant=True)
Result = TypeVar("Result", covariant=True)


class Maker(Protocol[Task, Result]):
    """What a worker process does: get ready, make tasks, let go.

    A maker goes to every worker (inherited by a forked one, pickled for a spawned one); its
    ``open`` runs once in each worker (here, with one worker), its ``close`` when the worker
    exits, however it exits."""

    def prepare(self) -> None:
        """In this process, before workers are forked: load what they should share."""

    def open(self) -> None:
        """Get this process ready to make tasks (start its browsers, ...)."""

    def make(self, task: Task) -> Result:
        """The result of one task."""

    def close(self) -> None:
        """Let go of what :meth:`open` took (quietly, also when it failed half-way)."""


_MAKER: dict[str, Any] = {}
"""A pool worker's maker, or the error its ``open`` raised (raised by the first task)."""


def _start_worker(maker: Maker[Any, Any], parent: int) -> None:
    worker_setup(parent, maker.close)  # closed when the worker exits, even while starting
    _MAKER["maker"] = maker
    try:
        maker.open()
    except Exception as exc:
        # An initializer that raises kills the worker with a traceback, and the pool starts
        # another, forever. The first task raises it instead: the parent reports it.
        _MAKER["error"] = exc


def _run_task(task: Any) -> Any:
    if "error" in _MAKER:
        raise _MAKER["error"]
    return _MAKER["maker"].make(task)


def run_ordered(maker: Maker[Any, Any], tasks: Iterable[Any],
                workers: int) -> Generator[Any, None, None]:
    """``maker.make(task)`` for every task, in task order: here when ``workers`` is 1, else
    in a pool of ``workers`` processes (see the module docstring), ended by
    :func:`stop_pool` however the iteration ends."""
    if workers <= 1:
        try:
            maker.open()
            for task in tasks:
                yield maker.make(task)
        finally:
            maker.close()
        return
    maker.prepare()
    context = multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")
    pool = start_pool(context, workers, _start_worker, (maker, os.getpid()))
    finished = False
    try:
        yield from pool.imap(_run_task, tasks)
        finished = True
    finally:
        stop_pool(pool, finished)


def preload_renderers() -> None:
    """Import the renderers' libraries in this process (nothing is started: safe before a
    fork), so that forked workers start with them."""
    # heavy: playwright
    from hopvista.render.item_images import preload

    preload()


class BuildItems:
    """The build's maker: the items of a batch of plan entries (their images written under
    ``images_root``, when given), from the process's world."""

    def __init__(self, config: BuildConfig, images_root: Path | None) -> None:
        self.config = config
        self.images_root = images_root

    def prepare(self) -> None:
        """Build the world and import the renderers' libraries once, before forking, so every
        worker starts with them instead of paying for them again."""
        if sys.platform == "linux":
            load_state(self.config)
            if self.images_root is not None:
                preload_renderers()

    def open(self) -> None:
        """The world (a forked worker inherits the parent's; a spawned one builds it) and,
        with images, a renderer."""
        load_state(self.config)
        if self.images_root is not None and "renderer" not in _WORKER:
            # heavy: playwright
            from hopvista.render.item_images import ItemRenderer

            _WORKER["renderer"] = ItemRenderer().__enter__()

    def make(self, entries: list[PlanEntry]) -> list[Item]:
        """The items of ``entries``, with their images."""
        config, world = self.config, _WORKER["world"]
        defences = build_defences(config)
        items = [build_item(world, _WORKER["pack"], config.seed, entry, defences)
                 for entry in entries]
        if self.images_root is not None:
            items = _WORKER["renderer"].render_many(items, self.images_root)
        _WORKER["since_trim"] = _WORKER.get("since_trim", 0) + len(items)
        if _WORKER["since_trim"] >= TRIM_EVERY:
            heap.trim()
            _WORKER["since_trim"] = 0
        return items

    def close(self) -> None:
        """Close the renderer: its browsers, their profiles."""
        renderer = _WORKER.pop("renderer", None)
        if renderer is not None:
            renderer.close()


def generate_items(config: BuildConfig, workers: int = 1, progress: bool = False,
                   images_root: Path | None = None,
                   plan: list[PlanEntry] | None = None) -> Iterator[Item]:
    """The build's items, in index order, whatever ``workers`` is.

    With ``images_root``, each item's PNGs are written under it and the item lists them.
    """
    if plan is None:
        plan, _ = plan_build(config)
    bar = tqdm(total=len(plan), desc="items", unit="item", disable=not progress,
               file=sys.stderr)
    try:
        batches = _batches(plan, workers)
        with contextlib.closing(run_ordered(BuildItems(config, images_root), batches,
                                            workers)) as made:
            for items in made:
                for item in items:
                    yield item
                    bar.update()
    finally:
        bar.close()
