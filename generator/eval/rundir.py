"""A run folder held by one ``gen eval`` at a time, and claimed only when the run is sure to
start.

:func:`held_run_folder` makes the folder if it is missing and takes an exclusive lock,
:data:`LOCK_FILE` inside it (a second ``gen eval`` into the folder is refused at once, with
the pid of the one writing it); when the block ends it releases the lock, and removes the
folders it made if the run never claimed them. :func:`claim` (called with the lock held, once
everything the run needs has been checked) makes the folder the run's:

* an empty folder gets the run's ``run.json``;
* a folder holding a run of the same evaluation is resumed (with another ``timeout`` or
  ``max_retries`` too: they change how requests are sent, not what is answered);
* a folder holding a run of another evaluation that has **no answer yet** (a run that failed
  before any request succeeded: no result line without an error, no entry in its ``cache/``)
  is taken over: its ``results.jsonl``, ``summary.json``, ``report.html`` and ``pages/`` go
  and the new ``run.json`` is written;
* anything else — another evaluation with answers, or a folder that is not a run — is refused,
  and left as it was.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from hopvista.errors import UserError
from hopvista.output import atomic
from hopvista.output.atomic import FileLock, LockHeld, remove_empty
from hopvista.output.files import RUN_FILE, RUN_FORMAT, make_parents

LOCK_FILE = ".lock"
RESULTS_FILE = "results.jsonl"
SUMMARY_FILE = "summary.json"
REPORT_FILE = "report.html"
CACHE_DIR = "cache"
PAGES_DIR = "pages"
TRANSPORT_OPTIONS = ("timeout", "max_retries", "port")
"""Options that change how requests are sent (or, for ``--model human``, on which port the page
is served), not what is answered: a rerun may change them."""
MAX_RECORD_BYTES = 64 * 1024 * 1024
"""The largest ``run.json`` read."""

Notice = Callable[[str], None]


def _entries(folder: Path) -> set[str]:
    try:
        return {entry.name for entry in folder.iterdir()} - {LOCK_FILE}
    except FileNotFoundError:
        return set()
    except OSError as exc:
        raise UserError(f"{folder}: cannot be listed ({exc.strerror})") from None


def run_record(folder: Path) -> dict[str, Any] | None:
    """The folder's ``run.json`` if it is a regular file holding a run record."""
    path = folder / RUN_FILE
    try:
        found = os.lstat(path)
        if not stat.S_ISREG(found.st_mode) or found.st_size > MAX_RECORD_BYTES:
            return None
        record = json.loads(path.read_bytes().decode("utf-8", "replace"))
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(record, dict) or record.get("format") != RUN_FORMAT:
        return None
    return record


def refuse_foreign(folder: Path, shown: Path) -> None:
    """``UserError`` if ``folder`` holds something other than an evaluation run (checked
    before anything is made, and again under the lock)."""
    if _entries(folder) and run_record(folder) is None:
        raise UserError(f"--out {shown}: exists and is not an evaluation run; nothing was "
                        "changed (choose another folder)")


class RunFolder:
    """A run folder held for one run; :meth:`claim` makes it the run's."""

    def __init__(self, path: Path, shown: Path) -> None:
        self.path = path
        self.shown = shown
        self.claimed = False

    def claim(self, run: dict[str, Any], notice: Notice | None = None) -> None:
        """Make the folder the run's (see the module docstring)."""
        claim(self.path, self.shown, run, notice)
        self.claimed = True


@contextmanager
def held_run_folder(folder: Path, shown: Path) -> Iterator[RunFolder]:
    """Make ``folder`` if needed and hold its lock for the block; folders made for a run
    that never claimed them are removed when it ends."""
    created = make_parents(folder, f"--out {shown}")
    held = RunFolder(folder, shown)
    try:
        lock = FileLock(folder / LOCK_FILE)
        try:
            lock.acquire()
        except LockHeld as found:
            raise UserError(f"--out {shown}: another gen eval is writing it ({found.owner}); "
                            "wait for it to finish or choose another folder") from None
        except OSError as exc:
            raise UserError(f"--out {shown}: cannot lock it ({exc.strerror})") from None
        try:
            yield held
        finally:
            lock.release()
    finally:
        if not held.claimed:
            remove_empty(created)


def claim(folder: Path, shown: Path, run: dict[str, Any], notice: Notice | None) -> None:
    """Make ``folder`` (locked, existing) the run's (see the module docstring)."""
    refuse_foreign(folder, shown)
    found = run_record(folder)
    if found is not None:
        different = [key for key in run if _answers_differ(key, found.get(key), run[key])]
        if not different:
            if found != run:  # another timeout or retry count: recorded, nothing else
                write_file(folder, shown, RUN_FILE,
                           (json.dumps(run, indent=1, ensure_ascii=False) + "\n").encode())
            return
        if holds_answers(folder):
            raise UserError(f"--out {shown}: holds a run with another {different[0]} "
                            "(choose another folder to keep both)")
        _clear(folder)
        if notice is not None:
            notice(f"{shown}: held a run with another {different[0]} and no answer yet; "
                   "replaced it")
    write_file(folder, shown, RUN_FILE,
               (json.dumps(run, indent=1, ensure_ascii=False) + "\n").encode())


def write_file(folder: Path, shown: Path, name: str, data: bytes) -> None:
    """Write ``folder/name`` atomically; ``UserError`` naming it when the disk is full or
    the folder read-only."""
    try:
        atomic.write_atomic(folder / name, data)
    except OSError as exc:
        raise UserError(f"--out {shown}: cannot write {name}: {exc.strerror or exc}") from None


def _answers_differ(key: str, found: Any, wanted: Any) -> bool:
    """Whether two runs differing in ``key`` may get different answers (a timeout or a
    retry count changes how requests are sent, not what is answered; extra metrics and
    error classes change how answers are scored)."""
    if key in ("metrics", "error_classes"):
        return False
    if key == "options" and isinstance(found, dict) and isinstance(wanted, dict):
        return {k: v for k, v in found.items() if k not in TRANSPORT_OPTIONS} != \
            {k: v for k, v in wanted.items() if k not in TRANSPORT_OPTIONS}
    return bool(found != wanted)


def holds_answers(folder: Path) -> bool:
    """Whether a run folder holds an answer: a result line without an error, or an entry in
    its ``cache/`` (a results file that cannot be read counts as holding answers)."""
    return _results_hold_answers(folder / RESULTS_FILE) or _cache_holds_entries(
        folder / CACHE_DIR)


def _results_hold_answers(path: Path) -> bool:
    try:
        if not os.path.lexists(path):
            return False
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return True
        with path.open("rb") as fh:
            for line in fh:
                if line.strip() and json.loads(line).get("error") is None:
                    return True
    except (OSError, ValueError, RecursionError, AttributeError):
        return True
    return False


def _cache_holds_entries(cache: Path) -> bool:
    try:
        if not cache.is_dir() or cache.is_symlink():
            return os.path.lexists(cache)
        for shard in cache.iterdir():
            if not shard.is_dir() or shard.is_symlink():
                return True
            if any(not entry.name.startswith(".") for entry in shard.iterdir()):
                return True
    except OSError:
        return True
    return False


def _clear(folder: Path) -> None:
    """Remove what a run without answers wrote (its cache holds no entry: only folders and
    temporary files)."""
    for name in (RESULTS_FILE, SUMMARY_FILE, REPORT_FILE):
        (folder / name).unlink(missing_ok=True)
    for name in (PAGES_DIR, CACHE_DIR):
        path = folder / name
        if path.is_symlink():
            path.unlink()
        elif path.is_dir():
            shutil.rmtree(path)
