"""The folders ``gen eval`` is given, checked before anything is read or written.

A folder it writes (``--out``, ``--cache``) must be a folder or not exist yet, reachable
(no symlink loop, no file on the way, a name the system accepts), and outside every dataset
— a run inside a dataset would make ``gen verify`` fail on it — and not a dataset itself.
(The files it reads, ``--prompt`` and ``--prices``, are read by
:func:`hopvista.yamlfile.read_text`: regular files of bounded size only.)
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from hopvista.errors import UserError
from hopvista.output.files import hopvista_folder
from hopvista.output.folder import dataset_containing, is_hopvista_dataset


def _why(exc: OSError) -> str:
    return exc.strerror or str(exc)


def writable_folder(path: Path, flag: str, run: Path | None = None) -> Path:
    """``path`` resolved through symlinks, if ``gen eval`` may make it or write into it;
    ``UserError`` naming ``flag`` and the reason otherwise. It may not be or lie inside a
    dataset or an export, nor lie inside an evaluation run other than ``run`` (the run's own
    folder, for ``--cache``), nor be another evaluation run's folder when it is a cache."""
    shown = f"{flag} {path}"
    if not str(path).strip():
        raise UserError(f"{flag}: empty path")
    try:
        found = os.stat(path)
    except FileNotFoundError:
        found = None
    except ValueError:  # a NUL in the name
        raise UserError(f"{flag} {path!r}: not a valid path") from None
    except OSError as exc:  # a loop, a file on the way, a name too long
        if exc.errno == errno.ELOOP:
            raise UserError(f"{shown}: a symlink loop") from None
        if exc.errno == errno.ENOTDIR:
            raise UserError(f"{shown}: a part of the path is a file, not a folder") from None
        raise UserError(f"{shown}: cannot be used ({_why(exc)})") from None
    if found is None and os.path.islink(path):
        raise UserError(f"{shown}: a symlink to {os.readlink(path)}, which does not exist")
    if found is not None and not stat.S_ISDIR(found.st_mode):
        raise UserError(f"{shown}: exists and is not a folder")
    try:
        target = Path(os.path.realpath(path, strict=found is not None))
    except (OSError, RuntimeError) as exc:
        raise UserError(f"{shown}: cannot be resolved ({exc})") from None
    if found is None:
        _check_parents(target, shown)
    if is_hopvista_dataset(target):
        raise UserError(f"{shown}: is a dataset; give the run a folder of its own")
    inside = dataset_containing(target)
    if inside is not None:
        raise UserError(f"{shown}: lies inside the dataset {inside}, which gen verify would "
                        "then refuse; choose a folder outside it")

    itself = hopvista_folder(target)
    if itself == "export" or (itself == "evaluation run" and run is not None):
        raise UserError(f"{shown}: is an {itself}; choose a folder of its own")
    for owner in target.parents:
        what = hopvista_folder(owner)
        if what is not None and owner != run:
            raise UserError(f"{shown}: lies inside the {what} {owner}; choose a folder "
                            "outside it")
    return target


def _check_parents(target: Path, shown: str) -> None:
    """The nearest existing parent of a folder to make must be a folder."""
    for parent in target.parents:
        try:
            found = os.stat(parent)
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise UserError(f"{shown}: cannot be made under {parent} ({_why(exc)})") from None
        if not stat.S_ISDIR(found.st_mode):
            raise UserError(f"{shown}: {parent} is a file, not a folder")
        return
