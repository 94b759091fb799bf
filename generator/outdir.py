"""Writing a dataset folder safely: atomic files, and never clobbering what is not ours."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from hopvista.errors import UserError

DATASET_FORMAT = "hopvista-dataset"


def is_hopvista_dataset(path: Path) -> bool:
    """Whether ``path`` holds a dataset written by hopvista (its manifest says so)."""
    try:
        manifest = json.loads((path / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(manifest, dict) and manifest.get("format") == DATASET_FORMAT


def check_out(out: Path, overwrite: bool) -> None:
    """Refuse an output folder we may not write; say why in one line."""
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {out}: exists and is not a folder")
    if out.is_dir() and any(out.iterdir()):
        if not overwrite:
            raise UserError(f"--out {out}: folder is not empty (pass --overwrite to replace "
                            "an earlier hopvista dataset)")
        if not is_hopvista_dataset(out):
            raise UserError(f"--out {out}: not a hopvista dataset (no hopvista manifest.json); "
                            "refusing to overwrite it")
    parent = out.resolve().parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"--out {out}: cannot create {parent}: {exc.strerror}") from None
    if not os.access(parent, os.W_OK | os.X_OK):
        raise UserError(f"--out {out}: cannot write in {parent}")


@contextmanager
def staged_dataset(out: Path) -> Iterator[Path]:
    """A temporary sibling folder that replaces ``out`` only when the block succeeds."""
    parent = out.resolve().parent
    try:
        stage = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".tmp", dir=parent))
    except OSError as exc:
        raise UserError(f"--out {out}: cannot write in {parent}: {exc.strerror}") from None
    try:
        yield stage
        os.chmod(stage, 0o755)
        if out.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".old", dir=parent))
            os.replace(out, old / "previous")
            os.replace(stage, out)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(stage, out)
    finally:
        if stage.exists():
            shutil.rmtree(stage, ignore_errors=True)


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
