"""The output folder of a build: claimed for the whole build, replaced in one step, and never
clobbering what is not ours.

A build into ``--out X`` (with ``X`` resolved through symlinks to the folder it names):

1. takes an exclusive lock ``.X.lock`` beside ``X`` (a second build into ``X`` is refused);
2. removes staging folders that dead builds into ``X`` left (and says so), restoring ``X``
   first if a build died in the middle of a fallback replacement — except the staging folder
   of a killed build of the *same* configuration (its marker's ``resume`` key), which the
   build resumes (:mod:`hopvista.resume`);
3. writes the new dataset into a staging folder ``.X.hopvista-stage-*/dataset`` beside ``X``;
4. swaps it in: ``renameat2(RENAME_EXCHANGE)`` with the old dataset (or
   ``RENAME_NOREPLACE`` when there is none), so ``X`` is at every instant either the old
   dataset or the new one, and a folder that appeared at ``X`` during the build is never
   replaced; where the kernel lacks these, two renames that a later build recovers from;
5. deletes the staging folder (now holding the old dataset) and the lock file.

On failure the staging folder and any parent folders the build created are removed.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hopvista.atomic import (
    FileLock,
    LockHeld,
    Unsupported,
    rename_exchange,
    rename_noreplace,
    sha256_file,
    write_atomic,
)
from hopvista.errors import UserError
from hopvista.model.format import DATASET_FORMAT

__all__ = ["DATASET_FORMAT", "Output", "claim_output", "dataset_containing", "is_hopvista_dataset"]

STAGE_TAG = "hopvista-stage"
STAGE_MARKER = ".hopvista-stage.json"
PREVIOUS = "previous"  # where the fallback replacement parks the old dataset

Notice = Callable[[str], None]


def _checkpoint(step: str) -> None:
    """A named step of claiming and replacing the output (tests kill the process here)."""


def declared_format(record: Path) -> str | None:
    """The ``format`` a folder's JSON record (a manifest, a run or export marker) declares,
    or ``None`` when it is missing, unreadable or not such a record."""
    try:
        found = json.loads(record.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    value = found.get("format") if isinstance(found, dict) else None
    return value if isinstance(value, str) else None


def is_hopvista_dataset(path: Path) -> bool:
    """Whether ``path`` holds a dataset written by hopvista (its manifest says so)."""
    return declared_format(path / "manifest.json") == DATASET_FORMAT


def dataset_containing(path: Path) -> Path | None:
    """The hopvista dataset folder that ``path`` lies in (a parent of it, not ``path``
    itself), if any."""
    for folder in path.parents:
        if is_hopvista_dataset(folder):
            return folder
    return None


def resolve_out(out: Path) -> Path:
    """The folder ``--out`` names, symlinks followed; refuse what cannot be replaced."""
    if not str(out).strip():
        raise UserError("--out: empty path")
    if out.is_symlink() and not out.exists():
        raise UserError(f"--out {out}: a symlink to {os.readlink(out)}, which does not exist")
    try:
        target = Path(os.path.realpath(out, strict=False))
    except (OSError, RuntimeError) as exc:  # a symlink loop
        raise UserError(f"--out {out}: cannot be resolved: {exc}") from None
    try:
        cwd = Path.cwd().resolve()
    except FileNotFoundError:
        raise UserError("the current folder no longer exists; change to another one") from None
    if target == cwd or target in cwd.parents:
        raise UserError(f"--out {out}: is the current folder or contains it, which a build "
                        "cannot replace; name a folder inside it, e.g. --out out/data")
    if target.parent == target:
        raise UserError(f"--out {out}: the file-system root cannot be an output folder")
    return target


def _check_target(out: Path, shown: Path, overwrite: bool) -> tuple[int, int] | None:
    """Refuse an output folder we may not write; return the identity of the dataset there."""
    if out.is_symlink():
        raise UserError(f"--out {shown}: {out} is a symlink loop or changed during the check")
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {shown}: exists and is not a folder")
    if not out.is_dir():
        return None
    try:
        empty = not any(out.iterdir())
    except OSError as exc:
        raise UserError(f"--out {shown}: cannot list it: {exc.strerror}") from None
    if not empty:
        if not overwrite:
            raise UserError(f"--out {shown}: folder is not empty (pass --overwrite to replace "
                            "an earlier hopvista dataset)")
        if not is_hopvista_dataset(out):
            raise UserError(f"--out {shown}: not a hopvista dataset (no hopvista manifest.json);"
                            " refusing to overwrite it")
    stat = out.stat()
    return stat.st_dev, stat.st_ino


def _make_parents(parent: Path, shown: Path) -> list[Path]:
    """Create ``parent`` and its missing ancestors; return those created, outermost first."""
    missing = []
    for folder in [parent, *parent.parents]:
        if folder.exists():
            break
        missing.append(folder)
    created: list[Path] = []
    for folder in reversed(missing):
        try:
            folder.mkdir()
        except FileExistsError:
            continue
        except OSError as exc:
            _remove_empty(created)
            raise UserError(f"--out {shown}: cannot create {folder}: {exc.strerror}") from None
        created.append(folder)
    if not parent.is_dir():
        raise UserError(f"--out {shown}: {parent} is not a folder")
    if not os.access(parent, os.W_OK | os.X_OK):
        _remove_empty(created)
        raise UserError(f"--out {shown}: cannot write in {parent}")
    return created


def _remove_empty(folders: list[Path]) -> None:
    for folder in reversed(folders):
        try:
            folder.rmdir()
        except OSError:
            return  # not empty (someone else wrote there) or gone: leave it and its parents


def _stage_prefix(out: Path) -> str:
    return f".{out.name}.{STAGE_TAG}-"


def _stale_stages(out: Path) -> list[Path]:
    """Staging folders of builds into ``out`` (call with the lock held: all are dead)."""
    prefix = _stage_prefix(out)
    found = []
    for entry in sorted(out.parent.iterdir()):
        if not entry.name.startswith(prefix) or entry.is_symlink() or not entry.is_dir():
            continue
        try:
            marker = json.loads((entry / STAGE_MARKER).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            if not any(entry.iterdir()):  # a build killed before it wrote its marker
                found.append(entry)
            continue  # otherwise not provably ours: leave it alone
        if isinstance(marker, dict) and marker.get("out") == out.name:
            found.append(entry)
    return found


def _size(path: Path) -> int:
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                continue
    return total


def _resume_key(stage: Path) -> str | None:
    try:
        marker = json.loads((stage / STAGE_MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    key = marker.get("resume") if isinstance(marker, dict) else None
    return key if isinstance(key, str) else None


def _clean_stale(out: Path, shown: Path, notice: Notice, resume: str | None = None
                 ) -> Path | None:
    """Recover from and remove what dead builds into ``out`` left behind; keep and return the
    staging folder of a dead build whose resume key is ``resume`` (the first such)."""
    kept: Path | None = None
    for stage in _stale_stages(out):
        previous = stage / PREVIOUS
        if previous.is_dir() and not os.path.lexists(out):
            rename_noreplace(previous, out)
            notice(f"restored {shown} from {stage.name}, where a build that was killed while "
                   "replacing it had left the previous dataset")
        if kept is None and resume is not None and _resume_key(stage) == resume and \
                (stage / "dataset").is_dir() and not (stage / PREVIOUS).exists():
            kept = stage
            continue
        size = _size(stage)
        shutil.rmtree(stage, ignore_errors=True)
        notice(f"removed {stage.name} ({size / 1e6:.1f} MB), the staging folder of an "
               f"interrupted build into {shown}")
    return kept


@dataclass
class Output:
    """A claimed output folder: where to stage the new dataset and how to swap it in."""

    path: Path
    """The real folder the dataset goes to (symlinks followed)."""
    shown: Path
    """The path as the user named it, for messages."""
    identity: tuple[int, int] | None
    """(device, inode) of the dataset there when claimed, or ``None`` if there was none."""
    stage: Path | None = None
    committed: bool = False
    resume: str | None = None
    """The build's resume key: a killed build's staging folder with the same key is resumed."""
    resumable: Path | None = None
    """That staging folder, found when the output was claimed."""
    resumed: bool = False
    """Whether :meth:`begin` took up a killed build's staging folder."""

    @property
    def dataset(self) -> Path:
        """The staging folder of the new dataset."""
        if self.stage is None:
            raise RuntimeError("no staging folder: call begin() first")
        return self.stage / "dataset"

    def begin(self) -> None:
        """Create the staging folder beside the output, or take up the one a killed build of
        the same configuration left (:attr:`resumed`)."""
        if self.resumable is not None:
            self.stage, self.resumable, self.resumed = self.resumable, None, True
            self._mark()
            _checkpoint("staged")
            return
        try:
            stage = Path(tempfile.mkdtemp(prefix=_stage_prefix(self.path), dir=self.path.parent))
        except OSError as exc:
            raise UserError(f"--out {self.shown}: cannot write in {self.path.parent}: "
                            f"{exc.strerror}") from None
        self.stage = stage
        self._mark()
        self.dataset.mkdir()
        _checkpoint("staged")

    def _mark(self) -> None:
        assert self.stage is not None
        marker = {"out": self.path.name, "pid": os.getpid()} | (
            {"resume": self.resume} if self.resume else {})
        write_atomic(self.stage / STAGE_MARKER, json.dumps(marker).encode())

    def seal(self, manifest: dict[str, Any]) -> None:
        """Record the sha256 of every staged file in ``manifest["files"]``, write it as the
        stage's ``manifest.json``, and :meth:`commit`."""
        stage = self.dataset
        manifest["files"] = {path.relative_to(stage).as_posix(): sha256_file(path)
                             for path in sorted(stage.rglob("*")) if path.is_file()}
        write_atomic(stage / "manifest.json",
                     (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode())
        self.commit()

    def commit(self) -> None:
        """Put the staged dataset at the output path in one step, or refuse."""
        if self.resume is not None:  # from here the stage may come to hold the old dataset
            self.resume = None
            self._mark()
        new = self.dataset
        os.chmod(new, 0o755)
        _checkpoint("written")
        if self.identity is None:
            try:
                rename_noreplace(new, self.path)
            except FileExistsError:
                raise UserError(f"--out {self.shown}: something was created at {self.path} "
                                "during the build; it was left as it is and the new dataset "
                                "was discarded") from None
            self.committed = True
            _checkpoint("swapped")
            return
        try:
            rename_exchange(new, self.path)
        except Unsupported:
            self._replace_in_two_steps()
            return
        except FileNotFoundError:  # the old dataset was removed during the build
            self.identity = None
            self.commit()
            return
        if self._identity_of(new) != self.identity:  # not what we claimed: put it back
            rename_exchange(new, self.path)
            raise self._changed()
        self.committed = True
        _checkpoint("swapped")

    def _replace_in_two_steps(self) -> None:
        """Fallback replacement: old aside into the stage, new in. A build that dies between
        the two renames leaves the old dataset in the stage; the next build restores it."""
        parked = self.dataset.parent / PREVIOUS
        if self._identity_of(self.path) != self.identity:
            raise self._changed()
        os.rename(self.path, parked)
        _checkpoint("moved-aside")
        try:
            rename_noreplace(self.dataset, self.path)
        except FileExistsError:
            kept = self.path.with_name(f"{self.path.name}.previous-{os.getpid()}")
            rename_noreplace(parked, kept)
            raise UserError(f"--out {self.shown}: something was created at {self.path} while "
                            f"the previous dataset was being replaced; the previous dataset is "
                            f"now {kept} and the new one was discarded") from None
        self.committed = True
        _checkpoint("swapped")

    def _changed(self) -> UserError:
        return UserError(f"--out {self.shown}: {self.path} was replaced by something else "
                         "during the build; it was left as it is and the new dataset was "
                         "discarded")

    @staticmethod
    def _identity_of(path: Path) -> tuple[int, int] | None:
        try:
            stat = path.lstat()
        except OSError:
            return None
        return stat.st_dev, stat.st_ino

    def discard_stage(self) -> None:
        """Remove the staging folder (after a commit it holds the old dataset)."""
        if self.stage is not None:
            shutil.rmtree(self.stage, ignore_errors=True)
            self.stage = None
            _checkpoint("cleaned")


@contextmanager
def claim_output(out: Path, overwrite: bool, notice: Notice,
                 resume: str | None = None) -> Iterator[Output]:
    """Hold ``out`` for a build: checked, locked, cleaned of dead builds' leftovers.

    Everything the block creates beside ``out`` is removed when it fails; parent folders the
    claim created are removed too when the build did not commit. With a ``resume`` key, the
    staging folder a killed build with the same key left is kept for :meth:`Output.begin`
    to take up (a build that fails or is interrupted cleanly still removes its own).
    """
    path = resolve_out(out)
    identity = _check_target(path, out, overwrite)
    created = _make_parents(path.parent, out)
    lock = FileLock(path.parent / f".{path.name}.lock")
    committed = False
    try:
        try:
            lock.acquire()
        except LockHeld as held:
            raise UserError(f"--out {out}: another build is writing it ({held.owner}); wait "
                            "for it to finish or choose another folder") from None
        except OSError as exc:
            raise UserError(f"--out {out}: cannot lock {lock.path}: {exc.strerror}") from None
        _checkpoint("locked")
        kept = _clean_stale(path, out, notice, resume)
        identity = _check_target(path, out, overwrite)  # again, now that we hold the lock
        claimed = Output(path=path, shown=out, identity=identity, resume=resume,
                         resumable=kept)
        try:
            yield claimed
            committed = claimed.committed
        except OSError as exc:
            if exc.errno in (errno.ENOSPC, errno.EDQUOT):
                raise UserError(f"--out {out}: the disk is full ({exc.filename or path.parent});"
                                " nothing was replaced") from None
            raise
        finally:
            claimed.discard_stage()
    finally:
        lock.release()
        if not committed:
            _remove_empty(created)
