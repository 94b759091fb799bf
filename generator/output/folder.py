"""The output folder of a build: claimed for the whole build, replaced in one step, and never
clobbering what is not ours.

A build into ``--out X`` (with ``X`` resolved through symlinks to the folder it names):

1. takes an exclusive lock ``.X.lock`` beside ``X`` (a second build into ``X`` is refused);
2. removes staging folders that dead builds into ``X`` left (and says so), restoring ``X``
   first if a build died in the middle of a fallback replacement — except the staging folder
   of a killed build of the *same* configuration (its marker's ``resume`` key), which the
   build resumes (:mod:`hopvista.building.resume`);
3. writes the new dataset into a staging folder ``.X.hopvista-stage-*/dataset`` beside ``X``;
4. swaps it in: ``renameat2(RENAME_EXCHANGE)`` with the old dataset (or
   ``RENAME_NOREPLACE`` when there is none), so ``X`` is at every instant either the old
   dataset or the new one, and a folder that appeared at ``X`` during the build is never
   replaced; where the kernel lacks these, two renames that a later build recovers from;
5. deletes the staging folder (now holding the old dataset) and the lock file.

On failure the staging folder and any parent folders the build created are removed.

Before anything is created, the claim refuses an output the command must not write: one of
the command's own inputs or a folder holding one, a folder inside one of them or inside any
hopvista dataset, a path longer than the file system allows, a parent that is a file or a
symbolic link loop. The names it makes beside ``X`` stay within the file system's limit
whatever the length of ``X``'s own name (:func:`sibling_name`).
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hopvista.errors import UserError
from hopvista.model.dataset import MISSING, dataset_file_problem, open_regular, sha256_file
from hopvista.model.format import DATASET_FORMAT
from hopvista.output.atomic import (
    TEMP_RANDOM,
    FileLock,
    LockHeld,
    Unsupported,
    create_folders,
    remove_empty,
    rename_exchange,
    rename_noreplace,
    write_atomic,
)

__all__ = ["DATASET_FORMAT", "Output", "check_out", "claim_output", "dataset_containing",
           "is_hopvista_dataset"]

STAGE_TAG = "hopvista-stage"
STAGE_MARKER = ".hopvista-stage.json"
PREVIOUS = "previous"  # where the fallback replacement parks the old dataset

NAME_MAX = 255
"""Bytes a file name may have where the file system does not say (ext4, XFS, Btrfs, tmpfs)."""
PATH_MAX = 4096
"""Bytes a path may have on Linux."""
ROOM_INSIDE = 600
"""Bytes the deepest file of a build takes below the folder beside ``--out``: its staging
folder (at most a name), ``dataset/images/`` and an image's temporary name (at most a name)."""

Notice = Callable[[str], None]


def _checkpoint(step: str) -> None:
    """A named step of claiming and replacing the output (tests kill the process here)."""


def _read_record(record: Path) -> Any:
    """The JSON in the regular file ``record``, or ``None`` when it is missing, not a regular
    file (a symbolic link is not followed: a record proves who wrote its folder only in it;
    a named pipe or a device is never opened) or not JSON."""
    try:
        with open_regular(record, follow_symlinks=False) as fh:
            return json.loads(fh.read().decode("utf-8"))
    except (UserError, OSError, ValueError, RecursionError):
        return None


def declared_format(record: Path) -> str | None:
    """The ``format`` a folder's JSON record (a manifest, a run or export marker) declares,
    or ``None`` when it is missing, unreadable or not such a record."""
    found = _read_record(record)
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
    if "\x00" in str(out):
        raise UserError(f"--out {out!r}: a path cannot hold a NUL character")
    try:
        cwd = Path.cwd().resolve()
    except FileNotFoundError:
        raise UserError("the current folder no longer exists; change to another one") from None
    _check_lengths(cwd / out, out)  # before the system is asked about a name it cannot hold
    if out.is_symlink() and not out.exists():
        raise UserError(f"--out {out}: a symlink to {os.readlink(out)}, which does not exist")
    try:
        target = Path(os.path.realpath(out, strict=False))
    except (OSError, RuntimeError) as exc:  # a symlink loop
        raise UserError(f"--out {out}: cannot be resolved: {exc}") from None
    if target == cwd or target in cwd.parents:
        raise UserError(f"--out {out}: is the current folder or contains it, which a build "
                        "cannot replace; name a folder inside it, e.g. --out out/data")
    if target.parent == target:
        raise UserError(f"--out {out}: the file-system root cannot be an output folder")
    _check_lengths(target, out)
    return target


def name_max(folder: Path) -> int:
    """The longest file name (in bytes) the file system of ``folder`` (or of its nearest
    existing ancestor) allows."""
    try:
        return int(os.pathconf(nearest_existing(folder), "PC_NAME_MAX"))
    except (OSError, ValueError):
        return NAME_MAX


def image_name_limit(folder: Path) -> int:
    """The longest image file name (in bytes) a dataset in ``folder`` may hold: it is first
    written as ``.NAME.XXXXXXXX`` (:func:`hopvista.output.atomic.write_atomic`)."""
    return name_max(folder) - 2 - TEMP_RANDOM


def nearest_existing(path: Path) -> Path:
    """``path`` or its nearest ancestor that exists (symlinks followed)."""
    for folder in [path, *path.parents]:
        try:
            os.stat(folder)
        except OSError:
            continue
        return folder
    return Path("/")


def _check_lengths(target: Path, shown: Path) -> None:
    """Refuse a path with a name, or a length, the file system cannot hold."""
    limit = name_max(target.parent)
    for part in target.parts[1:]:
        size = len(os.fsencode(part))
        if size > limit:
            raise UserError(f"--out {_short(shown)}: the name {_short(Path(part))!r} is {size} "
                            f"bytes; the file system allows at most {limit}")
    size = len(os.fsencode(target))
    if size + ROOM_INSIDE > PATH_MAX:
        raise UserError(f"--out {_short(shown)}: the path is {size} bytes; the dataset's files "
                        f"below it would exceed the {PATH_MAX} bytes a path may have (at most "
                        f"{PATH_MAX - ROOM_INSIDE})")


def _short(path: Path, keep: int = 120) -> str:
    """``path`` for a message: its first and last characters when it is long."""
    text = str(path)
    return text if len(text) <= 2 * keep else f"{text[:keep]}…{text[-keep:]}"


def sibling_name(out: Path, tag: str, room: int = 0) -> str:
    """The name of a file or folder hopvista keeps beside ``out`` (``.OUT.TAG``), at most the
    file system's limit less ``room`` bytes: for a long ``out`` name, its head and a digest of
    the whole name (the same name every time, a different one for every ``out``)."""
    name = f".{out.name}.{tag}"
    limit = name_max(out.parent) - room
    if len(os.fsencode(name)) <= limit:
        return name
    digest = hashlib.sha256(os.fsencode(out.name)).hexdigest()[:16]
    tail = f"~{digest}.{tag}"
    head = os.fsencode(out.name)[:max(0, limit - len(tail) - 1)].decode("utf-8", "ignore")
    return f".{head}{tail}"


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_dev, found.st_ino


def _same(first: Path, second: Path) -> bool:
    """Whether two real paths name one file or folder."""
    found = _identity(first)
    return first == second or found is not None and found == _identity(second)


def _is_within(inner: Path, outer: Path) -> bool:
    """Whether the real path ``inner`` is ``outer`` or lies below it (by path, and by
    identity for the parts that exist: a bind mount or a hard-linked name)."""
    if inner == outer or outer in inner.parents:
        return True
    wanted = _identity(outer)
    return wanted is not None and any(_identity(p) == wanted for p in [inner, *inner.parents])


def check_out(out: Path, inputs: Sequence[Path | str] = (),
              sources: Sequence[Path | str] = ()) -> Path:
    """The folder ``--out`` names, resolved (:func:`resolve_out`), once it is known that it
    is not one of the command's ``inputs`` nor ``sources``, holds none of them, lies inside
    none of the ``inputs`` (datasets and files the command reads) nor inside any hopvista
    dataset, and its parent can be a folder; ``UserError`` naming ``--out`` otherwise.
    ``sources`` are folders a build reads a few named files from (a pack, a data folder): a
    dataset may be written inside them. Nothing is created."""
    target = resolve_out(out)
    checked = [(given, True) for given in inputs] + [(given, False) for given in sources]
    for given, whole in checked:
        source = Path(os.path.realpath(given))
        if _same(target, source) or whole and _is_within(target, source):
            how = "is" if _same(target, source) else "lies inside"
            raise UserError(f"--out {_short(out)}: {how} the input {_short(Path(given))}; "
                            "write the output elsewhere")
        if _is_within(source, target):
            raise UserError(f"--out {_short(out)}: holds the input {_short(Path(given))}, "
                            "which replacing it would delete; write the output elsewhere")
    holder = dataset_containing(target)
    if holder is not None:
        raise UserError(f"--out {_short(out)}: lies inside the hopvista dataset {holder}; "
                        "write the output elsewhere")
    _check_parent(target, out)
    return target


def _check_parent(target: Path, shown: Path) -> None:
    """Refuse an output whose parent cannot be a folder: a file or a special file on the way,
    or a symbolic link that loops."""
    for folder in target.parents:
        try:
            mode = os.stat(folder).st_mode
        except FileNotFoundError:
            continue
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise UserError(f"--out {_short(shown)}: {folder} is a symbolic link that "
                                "loops (it leads back to itself)") from None
            if exc.errno == errno.ENOTDIR:
                continue  # a file further up: reported when the loop reaches it
            raise UserError(f"--out {_short(shown)}: cannot reach {folder}: "
                            f"{exc.strerror}") from None
        if not stat.S_ISDIR(mode):
            raise UserError(f"--out {_short(shown)}: {folder} is a file, not a folder")
        return


def storage_problem(folder: Path) -> str | None:
    """Why a dataset cannot be written in ``folder`` (an existing folder), or ``None``: not a
    file system that stores files (``/proc``, ``/sys``), read-only, or not writable by us."""
    try:
        found = os.statvfs(folder)
    except OSError as exc:
        return f"cannot be inspected ({exc.strerror})"
    if found.f_blocks == 0:
        return "is not on a file system that stores files (like /proc or /sys)"
    if found.f_flag & os.ST_RDONLY:
        return "is on a read-only file system"
    if not os.access(folder, os.W_OK | os.X_OK):
        return "is not writable (permission denied)"
    return None


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
    """Create ``parent`` and its missing ancestors, and check that it can be written in;
    return those created, outermost first."""
    created = create_folders(parent, f"--out {_short(shown)}",
                             lambda folder, exc: _why_not_written(folder.parent, exc))
    if not os.access(parent, os.W_OK | os.X_OK):
        remove_empty(created)
        raise UserError(f"--out {_short(shown)}: cannot write in {_short(parent)}: "
                        f"{parent} {storage_problem(parent) or 'is not writable'}")
    return created


def _why_not_written(folder: Path, exc: OSError) -> str:
    """What stopped a file or folder from being created in ``folder``: what is wrong with
    its file system when something is, else the system's reason."""
    where = nearest_existing(folder)
    problem = storage_problem(where) if where.is_dir() else None
    return f"{where} {problem}" if problem else str(exc.strerror)


LOCK_TEXT = re.compile(rb"(pid \d+\n)?")
"""What a lock file hopvista wrote holds: its owner's pid, or nothing yet."""


def _check_lock_file(lock: Path, shown: Path) -> None:
    """Refuse a lock file hopvista did not make, which taking the lock would overwrite: a
    symbolic link (to a file elsewhere), a special file, a file with other names (hard
    links), or a file holding anything but an owner's pid."""
    try:
        found = os.lstat(lock)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise UserError(f"--out {_short(shown)}: cannot inspect {lock}: {exc.strerror}") from None
    why = None
    if stat.S_ISLNK(found.st_mode):
        why = "a symbolic link"
    elif not stat.S_ISREG(found.st_mode):
        why = "not a regular file"
    elif found.st_nlink > 1:
        why = "a file with other names (hard links)"
    else:
        try:
            with open_regular(lock, follow_symlinks=False) as fh:
                text = fh.read(64)
        except UserError:
            text = b"?"
        if not LOCK_TEXT.fullmatch(text):
            why = "a file hopvista did not write"
    if why is not None:
        raise UserError(f"--out {_short(shown)}: {lock} is {why}, not a lock file of hopvista;"
                        " it was left as it is (remove it if it is not yours)")


def _stage_prefix(out: Path) -> str:
    return sibling_name(out, f"{STAGE_TAG}-", room=TEMP_RANDOM)


def _lock_name(out: Path) -> str:
    return sibling_name(out, "lock")


def _stale_stages(out: Path) -> list[Path]:
    """Staging folders of builds into ``out`` (call with the lock held: all are dead)."""
    prefix = _stage_prefix(out)
    found = []
    for entry in sorted(out.parent.iterdir()):
        if not entry.name.startswith(prefix) or entry.is_symlink() or not entry.is_dir():
            continue
        marker = _read_record(entry / STAGE_MARKER)
        if marker is None:
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
    marker = _read_record(stage / STAGE_MARKER)
    key = marker.get("resume") if isinstance(marker, dict) else None
    return key if isinstance(key, str) else None


def _resumable(stage: Path) -> bool:
    """Whether a killed build's staging folder can be taken up: its dataset is a folder
    (not a link) whose ``items.jsonl``, if any, is a regular file, and it holds no previous
    dataset."""
    dataset = stage / "dataset"
    return dataset.is_dir() and not dataset.is_symlink() and \
        dataset_file_problem(dataset, "items.jsonl") in (None, MISSING) and \
        not os.path.lexists(stage / PREVIOUS)


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
                _resumable(stage):
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
            raise UserError(f"--out {_short(self.shown)}: cannot write in {self.path.parent}: "
                            f"{_why_not_written(self.path.parent, exc)}") from None
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
            kept = self.path.with_name(sibling_name(self.path, f"previous-{os.getpid()}")[1:])
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
                 resume: str | None = None, inputs: Sequence[Path | str] = (),
                 sources: Sequence[Path | str] = ()) -> Iterator[Output]:
    """Hold ``out`` for a build: checked (:func:`check_out`, with the command's ``inputs``
    and ``sources``), locked, cleaned of dead builds' leftovers.

    Everything the block creates beside ``out`` is removed when it fails; parent folders the
    claim created are removed too when the build did not commit. With a ``resume`` key, the
    staging folder a killed build with the same key left is kept for :meth:`Output.begin`
    to take up (a build that fails or is interrupted cleanly still removes its own).
    """
    path = check_out(out, inputs, sources)
    identity = _check_target(path, out, overwrite)
    created = _make_parents(path.parent, out)
    lock = FileLock(path.parent / _lock_name(path))
    committed = False
    try:
        try:
            _check_lock_file(lock.path, out)
            lock.acquire()
        except LockHeld as held:
            raise UserError(f"--out {out}: another build is writing it ({held.owner}); wait "
                            "for it to finish or choose another folder") from None
        except OSError as exc:
            raise UserError(f"--out {_short(out)}: cannot create its lock file {lock.path.name} "
                            f"in {path.parent}: {_why_not_written(path.parent, exc)}") from None
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
            remove_empty(created)
