"""The files and small folders a command writes for its user (a report, a preview page, a JSON
record, an export or skeleton folder), written so that nothing of the user's is replaced.

For every such output:

- an existing file is replaced only if the command wrote it before: its *mark* proves it (an
  HTML ``<meta name="generator" content="...">`` in the page's head, a JSON record whose first
  key is ``"format"``);
- a symlink at the output path is refused: it is never followed to replace its target and never
  turned into a regular file;
- nothing is written into the command's own inputs or inside a folder hopvista wrote as a
  whole: a dataset, an evaluation run, an export (except ``gen preview``'s own
  ``DATASET/preview.html``);
- a folder, FIFO or other special file where a file is due, a symlink loop, a parent that is a
  file, a name too long: one line naming it;
- writes are atomic (:func:`hopvista.output.atomic.write_atomic`); a full or read-only disk or a
  denied permission is one line naming the path and the reason, and leaves nothing behind (no
  temporary file, no folder the command created).

Every refusal is a :class:`~hopvista.errors.UserError`: the CLI prints one line, exits 2.
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from hopvista.errors import UserError
from hopvista.output.atomic import create_folders, remove_empty, write_atomic
from hopvista.output.folder import declared_format, is_hopvista_dataset

Mark = Callable[[bytes], bool]
"""Whether the first :data:`HEAD_BYTES` of a file show that a command wrote it."""

HEAD_BYTES = 4096

WRITE_FAILURES = {
    errno.ENOSPC: "the disk is full",
    errno.EDQUOT: "the disk quota is used up",
    errno.EFBIG: "the file is too large for the file system",
    errno.EROFS: "the file system is read-only",
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
}
"""What the environment refuses a write for, in words."""

PATH_FAILURES = {
    errno.ELOOP: "a symlink loop in the path",
    errno.ENAMETOOLONG: "a name in the path is too long",
    errno.ENOTDIR: "a part of the path is not a folder",
}


def reason(exc: OSError) -> str:
    """Why a file-system call failed, in a few words (the system's own when nothing better)."""
    known = WRITE_FAILURES.get(exc.errno or 0) or PATH_FAILURES.get(exc.errno or 0)
    return known or exc.strerror or str(exc)


def html_generator_tag(generator: str) -> str:
    """The ``<meta>`` tag that marks a page as written by ``generator``."""
    return f'<meta name="generator" content="{generator}">'


def html_written_by(generator: str) -> Mark:
    """The mark of an HTML page written by ``generator``: it starts with a doctype and has
    :func:`html_generator_tag` in its head."""
    tag = html_generator_tag(generator).encode()

    def written(head: bytes) -> bool:
        if not head.lstrip()[:14].lower().startswith(b"<!doctype html"):
            return False
        return tag in re.split(rb"</head\s*>", head, maxsplit=1, flags=re.IGNORECASE)[0]
    return written


_JSON_FORMAT = re.compile(rb'\A\s*\{\s*"format"\s*:\s*"([^"\\]*)"')


def json_written_by(fmt: str) -> Mark:
    """The mark of a JSON record whose first key is ``"format": fmt``."""
    def written(head: bytes) -> bool:
        found = _JSON_FORMAT.match(head)
        return found is not None and found.group(1) == fmt.encode()
    return written


def _lstat(path: Path, shown: str) -> os.stat_result | None:
    """The entry at ``path`` itself (a symlink is not followed); ``None`` if there is none."""
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise UserError(f"{shown}: {_path_problem(path, exc)}") from None


def _path_problem(path: Path, exc: OSError) -> str:
    if exc.errno == errno.ENOTDIR:
        for part in reversed(path.parents):
            if os.path.lexists(part) and not part.is_dir():
                return f"{part} is not a folder"
    return reason(exc)


def kind_of(mode: int) -> str:
    """What a file-system entry is, in words."""
    for test, name in ((stat.S_ISLNK, "symlink"), (stat.S_ISDIR, "folder"),
                       (stat.S_ISREG, "file"), (stat.S_ISFIFO, "FIFO (named pipe)"),
                       (stat.S_ISSOCK, "socket"), (stat.S_ISCHR, "character device"),
                       (stat.S_ISBLK, "block device")):
        if test(mode):
            return name
    return "special file"


def _symlink_problem(path: Path) -> str:
    try:
        target = os.readlink(path)
    except OSError:
        return "is a symlink; refusing to write through it or replace it"
    return f"is a symlink (to {target}); refusing to write through it or replace it"


def _real(path: Path) -> Path:
    """``path`` with its parent's symlinks resolved (``path`` itself is not followed)."""
    try:
        return Path(os.path.realpath(path.parent)) / path.name
    except (OSError, RuntimeError):
        return Path(os.path.abspath(path))


def _places(path: Path) -> list[Path]:
    """``path`` as written (made absolute) and with its parent's symlinks resolved."""
    places = [Path(os.path.abspath(path))]
    if _real(path) not in places:
        places.append(_real(path))
    return places


def _roots(path: Path) -> set[Path]:
    roots = {Path(os.path.abspath(path))}
    with suppress(OSError, RuntimeError):
        roots.add(Path(os.path.realpath(path)))
    return roots


RUN_FILE = "run.json"
"""The record of an evaluation run (``gen eval``), in its folder."""
RUN_FORMAT = "hopvista-eval-run"
MARKER = "hopvista-export.json"
"""The record of a harness export (``gen export``), in its folder."""
EXPORT_FORMAT = "hopvista-harness-export"


def hopvista_folder(folder: Path) -> str | None:
    """What ``folder`` is if hopvista wrote it as a whole ("dataset", "evaluation run",
    "export"; its record's ``format`` says so), else ``None``."""
    if is_hopvista_dataset(folder):
        return "dataset"
    if declared_format(folder / RUN_FILE) == RUN_FORMAT:
        return "evaluation run"
    if declared_format(folder / MARKER) == EXPORT_FORMAT:
        return "export"
    return None


def refuse_misplaced(path: Path, shown: str, *, inputs: Iterable[Path] = (),
                     exempt: Path | None = None, folder: bool = False) -> None:
    """Refuse an output ``path`` inside one of the command's ``inputs`` or inside a folder
    hopvista wrote as a whole (a dataset, an evaluation run, an export: :func:`hopvista_folder`)
    unless it is ``exempt`` (the one file the command may write in its input dataset). With
    ``folder`` (an output folder, written into or replaced as a whole), also a folder that
    holds an input, and a dataset or evaluation run itself."""
    try:
        os.getcwd()
    except FileNotFoundError:
        raise UserError("the current folder no longer exists; change to another one") from None
    sources = [(source, _roots(source)) for source in inputs]
    allowed = exempt is not None and _real(path) == _real(exempt)
    for place in _places(path):
        itself = hopvista_folder(place) if folder else None
        if itself in ("dataset", "evaluation run"):
            raise UserError(f"{shown}: holds a hopvista {itself}; refusing to write there")
        for owner in place.parents:
            what = hopvista_folder(owner)
            if what is not None and not allowed:
                only = f", where only {exempt} may be written" if exempt is not None else ""
                raise UserError(f"{shown}: lies inside the {what} {owner}{only}; refusing to "
                                "write there")
        for source, roots in sources:
            if any(place == root or root in place.parents for root in roots) and not allowed:
                raise UserError(f"{shown}: lies inside {source}, which this command reads; "
                                "refusing to write there")
            if folder and any(place in root.parents for root in roots):
                raise UserError(f"{shown}: holds {source}, which this command reads; refusing "
                                "to replace it")


def make_parents(parent: Path, shown: str) -> list[Path]:
    """Create ``parent`` and its missing ancestors; return those created, outermost first
    (for :func:`remove_empty`). :class:`UserError` naming ``shown`` when one cannot be made."""
    return create_folders(parent, shown, lambda folder, exc: reason(exc))


@dataclass(frozen=True)
class OutputFile:
    """A file a command writes for its user: where, which flag named it, and how to tell a
    file the command wrote before (the only kind it replaces)."""

    path: Path
    flag: str
    """The flag that named the path (``--out``), or ``""`` for a default path."""
    kind: str
    """What the command writes, for messages: ``"a hopvista report"``."""
    written_by: Mark
    inputs: tuple[Path, ...] = ()
    """What the command reads: the file may not lie inside (or be) one of them."""
    exempt: Path | None = None
    """The one file the command may write inside a dataset (``DATASET/preview.html``)."""

    @property
    def shown(self) -> str:
        """The path as the user named it, with its flag, for messages."""
        return f"{self.flag} {self.path}" if self.flag else str(self.path)

    def check(self) -> None:
        """Refuse a path this command may not write; :class:`UserError` naming why."""
        if not str(self.path).strip():
            raise UserError(f"{self.flag or 'output'}: empty path")
        found = _lstat(self.path, self.shown)
        if found is not None:
            self._check_existing(found.st_mode)
        refuse_misplaced(self.path, self.shown, inputs=self.inputs,
                         exempt=self.exempt)

    def _check_existing(self, mode: int) -> None:
        if stat.S_ISLNK(mode):
            raise UserError(f"{self.shown}: {_symlink_problem(self.path)}")
        if stat.S_ISDIR(mode):
            raise UserError(f"{self.shown}: is a folder; name a file")
        if not stat.S_ISREG(mode):
            raise UserError(f"{self.shown}: is a {kind_of(mode)}, not a regular file; "
                            "refusing to write it")
        if not self.written_by(_head(self.path)):
            raise UserError(f"{self.shown}: exists and is not {self.kind}; refusing to "
                            "overwrite it (nothing was changed)")

    def write(self, data: bytes) -> Path:
        """Check again, then write ``data`` atomically, creating missing parent folders.

        A failed write (full or read-only disk, no permission) is a :class:`UserError`
        naming the path and the reason; it leaves no temporary file and removes the folders
        it created.
        """
        self.check()
        created = make_parents(self.path.parent, self.shown)
        try:
            write_atomic(self.path, data)
        except OSError as exc:
            remove_empty(created)
            raise UserError(f"{self.shown}: cannot write it: {reason(exc)}; nothing was "
                            "changed") from None
        except BaseException:
            remove_empty(created)
            raise
        return self.path


def _head(path: Path) -> bytes:
    """The first bytes of the regular file ``path`` (``b""`` when it cannot be read; a FIFO or
    symlink swapped in since the check is not opened)."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return b""
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return b""
        return os.read(fd, HEAD_BYTES)
    except OSError:
        return b""
    finally:
        os.close(fd)


def check_new_folder(path: Path, shown: str) -> os.stat_result | None:
    """The entry at an output folder's path (``None`` if there is none); refuse an empty path,
    a symlink, or anything but a folder."""
    if not str(path).strip():
        raise UserError(f"{shown.split()[0]}: empty path")
    found = _lstat(path, shown)
    if found is None:
        return None
    if stat.S_ISLNK(found.st_mode):
        raise UserError(f"{shown}: {_symlink_problem(path)}")
    if not stat.S_ISDIR(found.st_mode):
        raise UserError(f"{shown}: exists and is not a folder (a {kind_of(found.st_mode)})")
    return found


def _writing(exc: OSError, stage: Path) -> bool:
    """Whether ``exc`` is a failure to write into ``stage`` (not to read an input)."""
    if not exc.filename:
        return exc.errno in WRITE_FAILURES
    try:
        place = Path(os.path.abspath(os.fsdecode(exc.filename)))
    except (TypeError, ValueError):
        return False
    folder = Path(os.path.abspath(stage))
    return place == folder or folder in place.parents


@contextmanager
def staging_folder(target: Path, shown: str, tag: str) -> Iterator[Path]:
    """A new, empty folder beside ``target`` (missing parents created) for the block to fill
    and move into place; removed afterwards with whatever it still holds.

    When the block fails, the parents created for it are removed too, and a write the
    environment refused (full or read-only disk, no permission) becomes one
    :class:`UserError` naming ``shown`` and the reason.
    """
    parent = target.absolute().parent
    created = make_parents(parent, shown)
    try:
        stage = Path(tempfile.mkdtemp(prefix=f".{target.name}.{tag}-", dir=parent))
    except OSError as exc:
        remove_empty(created)
        raise UserError(f"{shown}: cannot write in {parent}: {reason(exc)}; nothing was "
                        "changed") from None
    try:
        yield stage
    except BaseException as exc:
        shutil.rmtree(stage, ignore_errors=True)
        remove_empty(created)
        if isinstance(exc, OSError) and _writing(exc, stage):
            raise UserError(f"{shown}: cannot write it: {reason(exc)}; nothing was "
                            "changed") from None
        raise
    shutil.rmtree(stage, ignore_errors=True)
