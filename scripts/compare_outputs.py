"""Prove that the current tree writes the same outputs as an earlier commit.

    python scripts/compare_outputs.py [--base COMMIT] [--keep]

Checks out COMMIT (default :data:`BASE`, ``57fb474``: the last commit before the code was
grouped into stage packages) in a temporary git worktree, installs each tree (editable) in a
Python environment of its own, runs the same commands with both (:func:`commands`), and
compares what they wrote: ``items.jsonl`` byte for byte, every image byte for byte, and the
Parquet shards column by column (their metadata may name package versions). A financial
build with images, a hard one without, a materials build with images, markup tasks
(``gen markup``, or ``gen build markup`` where a tree has no such command) and ``gen augment``
variants of the first build (a style, a perturbation, a structural and two markup variants).

It prints every command it ran, then per command ``same`` or ``differs`` with the first file
(and line, column or row) that differs; the dataset card and the manifest's stable fields are
compared too, as notes that do not count. Exit code 0 only if every command gives the same
outputs, 1 if any differs or fails. ``--keep`` keeps both trees' outputs (the folder is
printed). Images render in Chromium: expect several minutes on two cores.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parent.parent
BASE = "57fb474"
"""The default commit to compare against: the last one before the restructuring."""

MARKUP_ARGS = ["--count", "12", "--seed", "5"]
VARIANTS = "web,noise,photo,structural,markup-hc,markup-ui"
"""A style, two perturbation recipes, a structural one and two counterfactual markups."""

NOT_COUNTED = ("manifest.json", "README.md")
STABLE_MANIFEST_FIELDS = ("format", "format_version", "config", "source", "seed", "render",
                          "counts", "shares")
"""manifest.json fields compared as a note (the rest name versions, times and commands)."""


@dataclass(frozen=True)
class Run:
    """One command, run once with each tree: its name (the output folder) and arguments."""

    name: str
    args: tuple[str, ...]
    markup: bool = False


def commands() -> list[Run]:
    """The commands both trees run, in order; ``augment`` reads the first build's output."""
    return [
        Run("financial", ("build", "financial", "-n", "12", "--seed", "5")),
        Run("financial-hard", ("build", "financial", "--hops", "3", "--no-images",
                               "-n", "24", "--seed", "5")),
        Run("materials", ("build", "materials", "-n", "8", "--seed", "5")),
        Run("markup", tuple(MARKUP_ARGS), markup=True),
        Run("augment", ("augment", "{financial}", "--variants", VARIANTS)),
    ]


def sh(cmd: list[str], cwd: Path | None = None,
       env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``cmd``, capturing its output as text."""
    return subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=cwd, env=env)


def clean_env() -> dict[str, str]:
    """The environment both trees run in: this one without anything that picks the code."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def make_env(tree: Path, where: Path) -> Path:
    """A venv at ``where`` (sharing this Python's packages) with ``tree`` installed editable."""
    base_python = getattr(sys, "_base_executable", sys.executable)
    steps = ([base_python, "-m", "venv", "--without-pip", "--system-site-packages", str(where)],
             [str(where / "bin" / "python"), "-m", "pip", "install", "-q", "--no-deps",
              "--no-build-isolation", "-e", str(tree)])
    for step in steps:
        done = sh(step, env=clean_env(), cwd=where.parent)
        if done.returncode:
            raise SystemExit(f"compare_outputs: {' '.join(step)} failed:\n{done.stderr}")
    python = where / "bin" / "python"
    found = sh([str(python), "-c", "import hopvista; print(hopvista.__file__)"],
               env=clean_env(), cwd=where.parent).stdout.strip()
    if not found.startswith(str(tree)):
        raise SystemExit(f"compare_outputs: the environment for {tree} imports {found}")
    return python


def gen(python: Path, args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """``gen ARGS`` with the tree installed for ``python``."""
    return sh([str(python), "-m", "hopvista.cli.main", *args], env=clean_env(), cwd=cwd)


def markup_command(python: Path, cwd: Path) -> list[str]:
    """``gen markup`` where the tree has it, else ``gen build markup``."""
    has_own = gen(python, ["markup", "--help"], cwd).returncode == 0
    return ["markup"] if has_own else ["build", "markup"]


def run_all(label: str, python: Path, out: Path) -> dict[str, str | None]:
    """Run every command with one tree into ``out``; the error of each that failed, or None."""
    out.mkdir(parents=True)
    failed: dict[str, str | None] = {}
    for run in commands():
        head = markup_command(python, out) if run.markup else []
        args = [a.format(financial=out / "financial") for a in (*head, *run.args)]
        args += ["--out", str(out / run.name)]
        print(f"  [{label}] gen {' '.join(args)}", flush=True)
        started = time.monotonic()
        done = gen(python, args, out)
        seconds = time.monotonic() - started
        if done.returncode:
            last = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
            failed[run.name] = f"exit {done.returncode}: {last}"
            print(f"    failed after {seconds:.0f} s: {failed[run.name]}", flush=True)
        else:
            failed[run.name] = None
            print(f"    {seconds:.0f} s", flush=True)
    return failed


def first_line_difference(old: Path, new: Path) -> str | None:
    """Where two text files first differ (``line N: ...``), or None if their bytes match."""
    a, b = old.read_bytes(), new.read_bytes()
    if a == b:
        return None
    old_lines, new_lines = a.splitlines(), b.splitlines()
    for number, (x, y) in enumerate(zip(old_lines, new_lines, strict=False), start=1):
        if x != y:
            return f"line {number}: {excerpt(x, y)}"
    return f"{len(old_lines)} lines before, {len(new_lines)} now"


def excerpt(before: bytes | str, now: bytes | str, room: int = 30) -> str:
    """Where two differing texts part, a little of each: ``...before... -> ...now...``."""
    x = before.decode("utf-8", "replace") if isinstance(before, bytes) else before
    y = now.decode("utf-8", "replace") if isinstance(now, bytes) else now
    at = next((i for i, (p, q) in enumerate(zip(x, y, strict=False)) if p != q),
              min(len(x), len(y)))
    start = max(0, at - room)
    return f"{x[start:at + room]!r} before, {y[start:at + room]!r} now"


def parquet_difference(old: Path, new: Path) -> str | None:
    """Where two Parquet files' columns first differ, or None if every value matches."""
    a, b = pq.read_table(old), pq.read_table(new)
    if a.column_names != b.column_names:
        return f"columns {a.column_names} before, {b.column_names} now"
    if a.num_rows != b.num_rows:
        return f"{a.num_rows} rows before, {b.num_rows} now"
    for column in a.column_names:
        before, now = a.column(column).to_pylist(), b.column(column).to_pylist()
        for row, (x, y) in enumerate(zip(before, now, strict=True)):
            if x != y:
                shown = f": {excerpt(x, y)}" if isinstance(x, str) and isinstance(y, str) else ""
                return f"column {column} row {row}{shown}"
    return None


def manifest_difference(old: Path, new: Path) -> str | None:
    """The first stable manifest field that differs, or None."""
    a, b = json.loads(old.read_text()), json.loads(new.read_text())
    for field in STABLE_MANIFEST_FIELDS:
        if a.get(field) != b.get(field):
            return f"manifest.json field {field!r} differs"
    return None


def files_of(folder: Path) -> set[str]:
    """Every file under ``folder``, as paths relative to it."""
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}


def comparison_order(name: str) -> tuple[int, str]:
    """items.jsonl first, then the images and other files, the Parquet shards last."""
    return (0 if name == "items.jsonl" else 2 if name.endswith(".parquet") else 1, name)


def compare(old: Path, new: Path) -> tuple[str | None, list[str]]:
    """The first difference of two outputs that counts (or None), and the notes that do not."""
    old_files, new_files = files_of(old), files_of(new)
    if old_files != new_files:
        only = sorted(old_files ^ new_files)[0]
        side = "before only" if only in old_files else "now only"
        return f"{only} ({side})", []
    notes = []
    card = first_line_difference(old / "README.md", new / "README.md")
    if card:
        notes.append(f"README.md (the card) differs at {card}")
    manifest = manifest_difference(old / "manifest.json", new / "manifest.json")
    if manifest:
        notes.append(manifest)
    for name in sorted(old_files - set(NOT_COUNTED), key=comparison_order):
        if name.endswith(".parquet"):
            found = parquet_difference(old / name, new / name)
        elif name.endswith(".jsonl"):
            found = first_line_difference(old / name, new / name)
        else:
            found = None if (old / name).read_bytes() == (new / name).read_bytes() else "bytes"
        if found:
            return f"{name} {found}", notes
    return None, notes


def report(work: Path, failures: dict[str, dict[str, str | None]]) -> bool:
    """Print one line per command; True if every command gave the same outputs."""
    print("\nresults:")
    all_same = True
    for run in commands():
        errors = [f"{side}: {failures[side][run.name]}" for side in ("before", "now")
                  if failures[side][run.name]]
        if errors:
            print(f"  {run.name:15} failed ({'; '.join(errors)})")
            all_same = False
            continue
        count = len(files_of(work / "new" / run.name))
        difference, notes = compare(work / "old" / run.name, work / "new" / run.name)
        if difference:
            all_same = False
            print(f"  {run.name:15} differs: {difference}")
        else:
            print(f"  {run.name:15} same ({count} files)")
        for note in notes:
            print(f"  {'':15} note (not counted): {note}")
    return all_same


def add_worktree(commit: str, where: Path) -> None:
    """A detached git worktree of ``commit`` at ``where``."""
    done = sh(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(where), commit])
    if done.returncode:
        raise SystemExit(f"compare_outputs: cannot check out {commit}: {done.stderr.strip()}")


def remove_worktree(where: Path) -> None:
    """Remove the temporary worktree and git's record of it."""
    sh(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(where)])
    sh(["git", "-C", str(ROOT), "worktree", "prune"])


def main() -> int:
    """Check out the base, build with both trees, compare, print the results."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default=BASE, help=f"the commit to compare with ({BASE})")
    parser.add_argument("--keep", action="store_true", help="keep both trees' outputs")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="hopvista-compare-"))
    base_tree = work / "base-tree"
    add_worktree(args.base, base_tree)
    try:
        print(f"comparing {ROOT} (now) with {args.base} (before) in {work}", flush=True)
        pythons = {"old": make_env(base_tree, work / "env-old"),
                   "new": make_env(ROOT, work / "env-new")}
        failures = {"before": run_all(f"before {args.base}", pythons["old"], work / "old"),
                    "now": run_all("now", pythons["new"], work / "new")}
        same = report(work, failures)
    finally:
        remove_worktree(base_tree)
        if args.keep:
            print(f"outputs kept in {work}/old and {work}/new")
        else:
            shutil.rmtree(work, ignore_errors=True)
    print("every output is the same" if same else "outputs differ")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
