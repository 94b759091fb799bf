"""File-system operations that are safe at every instant: atomic writes, atomic renames that
never replace what they must not, and an advisory lock that dies with its process."""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import fcntl
import os
import stat
import sys
import tempfile
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from hopvista.errors import UserError

AT_FDCWD = -100
RENAME_NOREPLACE = 1
RENAME_EXCHANGE = 2
TEMP_RANDOM = 8
"""Random characters :mod:`tempfile` adds to a prefix: in the name of the temporary file
:func:`write_atomic` writes first, and of a staging folder."""


class Unsupported(OSError):
    """The kernel, C library or file system cannot do this rename atomically."""


FILE_MODE = 0o644
"""Permission bits of the files a dataset, run or report is made of, whatever the umask, so a
folder reads the same on every machine it is copied to."""


def write_atomic(path: Path, data: bytes, *, mode: int | None = FILE_MODE) -> None:
    """Write ``data`` to ``path`` through a temporary file ``.NAME.XXXXXXXX`` beside it and a
    rename, so ``path`` is at every instant either what it was or ``data`` whole.

    ``mode`` is the file's permission bits (:data:`FILE_MODE` unless given); ``None`` leaves
    them to the process's umask, as for a file the user downloads.
    """
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            os.fchmod(fh.fileno(), 0o666 & ~_umask() if mode is None else mode)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    """The process's umask, read without changing it where Linux tells it (setting it to read
    it back would race with other threads creating files)."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def remove_empty(folders: list[Path]) -> None:
    """Remove ``folders`` that a command made (outermost first in the list, removed innermost
    first), stopping at one that is not empty (another process wrote there) or gone."""
    for folder in reversed(folders):
        try:
            folder.rmdir()
        except OSError:
            return


@cache
def _renameat2() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    function = getattr(libc, "renameat2", None)  # glibc >= 2.28
    if function is not None:
        function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                             ctypes.c_uint]
        function.restype = ctypes.c_int
    return function


def _rename_flags(source: Path, target: Path, flags: int) -> None:
    function = _renameat2()
    if function is None:
        raise Unsupported(errno.ENOSYS, "renameat2 is not available here")
    if function(AT_FDCWD, os.fsencode(source), AT_FDCWD, os.fsencode(target), flags) == 0:
        return
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
        raise Unsupported(code, f"renameat2 flag {flags} is not supported here", str(source))
    raise OSError(code, os.strerror(code), str(source), None, str(target))


def rename_exchange(first: Path, second: Path) -> None:
    """Swap two existing paths in one step (Linux ``RENAME_EXCHANGE``).

    Raises :class:`Unsupported` where the system cannot; the caller then falls back.
    """
    _rename_flags(first, second, RENAME_EXCHANGE)


def rename_noreplace(source: Path, target: Path) -> None:
    """Rename ``source`` to ``target`` only if ``target`` does not exist, in one step.

    Raises ``FileExistsError`` if it does. Where ``RENAME_NOREPLACE`` is missing, the check and
    the rename are two steps (a folder created between them would be lost only if empty).
    """
    try:
        _rename_flags(source, target, RENAME_NOREPLACE)
    except Unsupported:
        if os.path.lexists(target):
            raise FileExistsError(errno.EEXIST, "File exists", str(target)) from None
        os.rename(source, target)


class LockHeld(Exception):
    """Another live process holds the lock; ``owner`` is what it wrote in the lock file."""

    def __init__(self, owner: str) -> None:
        super().__init__(owner)
        self.owner = owner


class FileLock:
    """An exclusive ``flock`` on a lock file, released when the process dies.

    The file holds the owner's pid (for messages) and is removed on :meth:`release`. A lock
    file unlinked by a releasing owner between our ``open`` and ``flock`` is detected (its
    inode is no longer the path's) and opened again.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def acquire(self) -> None:
        """Take the lock now or raise :class:`LockHeld`; ``OSError`` when the path is a
        symbolic link, a special file or a file with other names (never written through)."""
        for _ in range(20):
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW
                             | os.O_NONBLOCK, 0o644)
            except OSError as exc:
                if exc.errno == errno.ELOOP:
                    raise OSError(errno.ELOOP, "it is a symbolic link", str(self.path)) \
                        from None
                raise
            found = os.fstat(fd)
            if not stat.S_ISREG(found.st_mode) or found.st_nlink != 1:
                os.close(fd)
                raise OSError(errno.EPERM, "it is not a lock file of hopvista's (a special "
                              "file, or a file with other names)", str(self.path))
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                owner = os.pread(fd, 200, 0).decode("utf-8", "replace").strip()
                os.close(fd)
                raise LockHeld(owner or "another process") from None
            try:
                same = os.stat(self.path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if same:
                os.ftruncate(fd, 0)
                os.pwrite(fd, f"pid {os.getpid()}\n".encode(), 0)
                self._fd = fd
                return
            os.close(fd)
        raise LockHeld("a process that keeps replacing the lock file")

    def release(self) -> None:
        """Remove the lock file and drop the lock; safe to call twice."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        try:
            self.path.unlink(missing_ok=True)
        finally:
            os.close(fd)


def create_folders(parent: Path, shown: str, why: Callable[[Path, OSError], str]
                   ) -> list[Path]:
    """Create ``parent`` and its missing ancestors; return those created, outermost first
    (for :func:`remove_empty`). :class:`UserError` beginning with ``shown`` when one cannot be
    made (a dangling symlink or a file in the way, or the system's refusal: ``why`` says it),
    after removing the folders it created."""
    missing: list[Path] = []
    for folder in [parent, *parent.parents]:
        if os.path.lexists(folder):
            if not folder.is_dir():
                what = "a symlink to nothing" if folder.is_symlink() and not folder.exists() \
                    else "not a folder"
                raise UserError(f"{shown}: {folder} is {what}")
            break
        missing.append(folder)
    created: list[Path] = []
    for folder in reversed(missing):
        try:
            folder.mkdir()
        except FileExistsError:
            if folder.is_dir():
                continue
            remove_empty(created)
            raise UserError(f"{shown}: {folder} is not a folder") from None
        except OSError as exc:
            remove_empty(created)
            raise UserError(f"{shown}: cannot create the folder {folder}: {why(folder, exc)}; "
                            "nothing was changed") from None
        created.append(folder)
    return created
