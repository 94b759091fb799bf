"""``gen build --executor ray``: a build's shards as Ray tasks, merged into one dataset.

The driver splits the build into shards (``--shards``, default the cluster's CPUs), submits
each as a Ray task that runs ``gen build --shard I/N`` into a folder beside ``--out``, shows
each shard's progress as its items are written, and joins the shards with ``gen merge``: the
output is byte for byte the local build's. A shard folder a previous run finished is reused;
one it left unfinished resumes (:mod:`hopvista.building.resume`). On a cluster the folder of
``--out``
must be storage every node shares, and every node needs hopvista installed (the same
version and packages: the shards' manifests must agree or the merge refuses them).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hopvista.building.config import BuildConfig
from hopvista.building.merge import merge, read_shard
from hopvista.building.pipeline import build, check_build_out, shard_range
from hopvista.errors import UserError
from hopvista.output.folder import _check_target

Notice = Callable[[str], None]
POLL_S = 0.5


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise UserError("--executor ray needs Ray: pip install 'hopvista[ray]' (or "
                        "pip install 'ray>=2.9')") from None
    return ray


def _shard_folder(root: Path, index: int, total: int) -> Path:
    return root / f"shard-{index:04d}-of-{total:04d}"


def _finished(folder: Path) -> bool:
    try:
        read_shard(folder)
    except UserError:
        return False
    return True


def build_shard(config: BuildConfig, folder: str, index: int, total: int,
                progress: Any = None) -> str:
    """One Ray task: build shard ``index`` of ``total`` into ``folder`` (reusing a finished
    one); report each item done to the ``progress`` actor. Returns the folder."""
    path = Path(folder)
    if _finished(path):
        return folder

    def report(done: int) -> None:
        if progress is not None:
            progress.set.remote(index, done)

    build(config, path, workers=1, overwrite=True, shard=(index, total), on_item=report,
          notice=lambda text: None)
    return folder


class Progress:
    """A Ray actor holding the items each shard has written."""

    def __init__(self) -> None:
        self.done: dict[int, int] = {}

    def set(self, index: int, done: int) -> None:
        """Shard ``index`` has written ``done`` items."""
        self.done[index] = done

    def counts(self) -> dict[int, int]:
        """Items written per shard."""
        return dict(self.done)


def build_on_ray(config: BuildConfig, out: Path, *, address: str | None = None,
                 shards: int | None = None, workers: int = 1, overwrite: bool = False,
                 progress: bool = False, notice: Notice = print) -> dict[str, Any]:
    """Build ``config`` as Ray tasks and merge the shards into ``out``; return the manifest."""

    ray = _import_ray()
    config.pack()  # an unknown domain or a broken pack is reported before Ray starts
    path, _ = check_build_out(config, out)
    _check_target(path, out, overwrite)  # refuse a non-empty --out before any work
    started = False
    if not ray.is_initialized():
        if address is None:
            os.environ.setdefault("RAY_AUTH_MODE", "disabled")  # no token in a local HOME
        try:
            ray.init(address=address, num_cpus=None if address else workers,
                     include_dashboard=False, log_to_driver=False,
                     logging_level="ERROR", configure_logging=True)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            raise UserError(f"--executor ray: cannot start or join Ray"
                            f"{f' at {address}' if address else ''}: {exc}") from None
        started = True
    try:
        total = shards or max(1, int(ray.cluster_resources().get("CPU", 1)))
        total = max(1, min(total, config.count))
        digest = hashlib.sha256(repr(config).encode()).hexdigest()[:12]
        root = path.parent / f".{path.name}.ray-{digest}-{total}"
        root.mkdir(parents=True, exist_ok=True)
        actor = ray.remote(Progress).remote()
        task = ray.remote(num_cpus=1, max_retries=0)(build_shard)
        refs = {task.remote(config, str(_shard_folder(root, i, total)), i, total, actor): i
                for i in range(1, total + 1)}
        _wait(ray, refs, actor, config, total, progress, notice)
        folders = [_shard_folder(root, i, total) for i in range(1, total + 1)]
        for folder in folders:
            if not _finished(folder):
                raise UserError(f"{folder}: a shard Ray built is not visible here; on a "
                                "cluster, --out must be on storage every node shares")
        manifest = merge(folders, out, overwrite=overwrite, notice=notice)
        shutil.rmtree(root, ignore_errors=True)
        return manifest
    finally:
        if started:
            with contextlib.suppress(Exception):
                ray.shutdown()


def _wait(ray: Any, refs: dict[Any, int], actor: Any, config: BuildConfig, total: int,
          progress: bool, notice: Notice) -> None:
    """Wait for every shard task, showing per-shard progress; a failed task's error is
    raised (a user's mistake as one line)."""
    from tqdm import tqdm

    sizes = {i: (lambda r: r[1] - r[0])(shard_range(config.count, (i, total)))
             for i in range(1, total + 1)}
    bars = {i: tqdm(total=sizes[i], desc=f"shard {i}/{total}", unit="item", position=i - 1,
                    file=sys.stderr, leave=True) for i in sizes} if progress else {}
    pending = list(refs)
    try:
        while pending:
            ready, pending = ray.wait(pending, num_returns=len(pending), timeout=POLL_S)
            counts = ray.get(actor.counts.remote())
            for i, bar in bars.items():
                bar.n = counts.get(i, bar.n)
                bar.refresh()
            for ref in ready:
                try:
                    ray.get(ref)
                except Exception as exc:  # noqa: BLE001 - re-raised as what the task raised
                    cause = getattr(exc, "cause", None)
                    if isinstance(cause, UserError):
                        raise UserError(f"shard {refs[ref]}/{total}: {cause}") from None
                    raise
                if not bars:
                    notice(f"shard {refs[ref]}/{total} done ({sizes[refs[ref]]} items)")
                else:
                    bars[refs[ref]].n = sizes[refs[ref]]
                    bars[refs[ref]].refresh()
    except BaseException:
        for ref in pending:
            with contextlib.suppress(Exception):
                ray.cancel(ref, force=True)
        raise
    finally:
        for bar in bars.values():
            bar.close()
