"""A build's scratch folder for temporary files of its browsers (profiles, sockets).

It lives in the system's temporary folder, not beside the output: Chromium puts a Unix socket
in it, and socket paths are limited to about 100 bytes, which a deep ``--out`` would exceed.
The folder is locked while its build runs and removed on every exit Python sees; one left by a
killed build (its lock free again) is removed by the next build, which says so.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from hopvista.output.atomic import FileLock, LockHeld

PREFIX = "hopvista-scratch-"
LOCK_NAME = ".lock"


def clean_stale_scratch(base: Path, notice: Callable[[str], None]) -> None:
    """Remove scratch folders in ``base`` whose builds are gone (their lock is free)."""
    try:
        entries = sorted(base.iterdir())
    except OSError:
        return
    for entry in entries:
        if not entry.name.startswith(PREFIX) or entry.is_symlink() or \
                not (entry / LOCK_NAME).is_file():
            continue
        lock = FileLock(entry / LOCK_NAME)
        try:
            lock.acquire()
        except (LockHeld, OSError):
            continue  # a live build's, or not ours to touch
        lock.release()
        shutil.rmtree(entry, ignore_errors=True)
        notice(f"removed {entry}, the temporary files of an interrupted build")


MAX_BASE_CHARS = 40
"""Longest temporary folder path that leaves Chromium room for its socket paths inside it."""


def _short_temp_folder() -> Path:
    """The system's temporary folder, or ``/tmp`` when that one's path is too long."""
    base = Path(tempfile.gettempdir())
    if len(str(base)) > MAX_BASE_CHARS and os.access("/tmp", os.W_OK | os.X_OK):
        return Path("/tmp")
    return base


@contextmanager
def scratch_folder(notice: Callable[[str], None]) -> Iterator[Path]:
    """A fresh locked scratch folder in the system's temporary folder, removed at the end.

    While it exists, this process and the children it starts (browsers) keep their temporary
    files in it: ``TMPDIR`` and :data:`tempfile.tempdir` point there.
    """
    base = _short_temp_folder()
    for folder in sorted({base, Path(tempfile.gettempdir())}):
        clean_stale_scratch(folder, notice)
    folder = Path(tempfile.mkdtemp(prefix=PREFIX, dir=base))
    lock = FileLock(folder / LOCK_NAME)
    old_env, old_tempdir = os.environ.get("TMPDIR"), tempfile.tempdir
    try:
        lock.acquire()
        os.environ["TMPDIR"] = tempfile.tempdir = str(folder)
        yield folder
    finally:
        tempfile.tempdir = old_tempdir
        if old_env is None:
            os.environ.pop("TMPDIR", None)
        else:
            os.environ["TMPDIR"] = old_env
        lock.release()
        _remove(folder)


REMOVE_TRIES = 40
"""How many times the scratch folder is removed, a moment apart, while a browser that is
still exiting writes into it (an interrupt reaches every process at once)."""


def _remove(folder: Path) -> None:
    """Remove ``folder``, again while something still writes into it."""
    for _ in range(REMOVE_TRIES):
        shutil.rmtree(folder, ignore_errors=True)
        if not os.path.lexists(folder):
            return
        time.sleep(0.05)
