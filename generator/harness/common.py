"""What every harness export shares: the prompts and references, and the export folder.

An export asks :func:`hopvista.eval.prompts.build_prompt` for each item's prompt in the chosen
setting with the item kind's built-in template, and its kind for the reference answer, so a
harness run sees exactly what ``gen eval`` would send and is scored against the same answers.
The folder is written into a staging folder beside ``--out`` and renamed into place; it holds
:data:`MARKER` (what was exported, from which dataset), so a later export may replace it while
a folder that holds anything else is never touched.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hopvista.errors import UserError
from hopvista.eval.backends import Prompt, PromptImage
from hopvista.eval.prompts import Setting, build_prompt, default_template, setting
from hopvista.eval.strategies import PromptPack, prompt_pack
from hopvista.model import ITEM_KINDS, Item
from hopvista.model.dataset import ITEMS, Dataset, load, sha256_file
from hopvista.output.atomic import (
    Unsupported,
    rename_exchange,
    rename_noreplace,
    write_atomic,
)
from hopvista.output.files import (
    EXPORT_FORMAT,
    MARKER,
    check_new_folder,
    kind_of,
    reason,
    refuse_misplaced,
    staging_folder,
)
from hopvista.output.folder import declared_format
from hopvista.version import __version__

README = "README.md"
EXPORT_VERSION = 1


@dataclass(frozen=True)
class Entry:
    """One item as a harness gets it: the prompt ``gen eval`` would send and the reference."""

    number: int
    """The item's position in the export, from 0."""
    item: Item
    prompt: Prompt
    reference: str

    @property
    def item_json(self) -> str:
        """The item as JSON, for the exported scorers (they rebuild the :class:`Item`)."""
        return self.item.model_dump_json()

    def image_name(self, part: int) -> str:
        """A file name for the image that is part ``part`` of the prompt (no item text in it)."""
        image = self.prompt.parts[part]
        assert isinstance(image, PromptImage)
        return f"{self.number:06d}-{part:02d}-{image.role}.png"


def entries(dataset: Dataset, how: Setting, limit: int | None,
            pack: PromptPack | None = None) -> Iterator[Entry]:
    """The dataset's items (the first ``limit``) with their prompts (``pack``'s, when given:
    a prompt strategy's) and references."""
    templates: dict[str, str] = {}
    for number, item in enumerate(dataset):
        if limit is not None and number >= limit:
            return
        if item.kind not in ITEM_KINDS:
            raise UserError(f"{dataset.root / ITEMS}: item {item.id} is of kind {item.kind!r}, "
                            "which this install does not know")
        if pack is not None:
            prompt = pack.first(item, dataset, how)
        else:
            if item.kind not in templates:
                templates[item.kind] = default_template(item.kind)
            prompt = build_prompt(item, dataset, how, templates[item.kind])
        yield Entry(number, item, prompt, ITEM_KINDS.get(item.kind).reference(item))


def export_pack(dataset: Dataset, limit: int | None, strategy: str, table_format: str,
                seed: int | None) -> PromptPack | None:
    """The prompts of ``strategy`` for the items to export (``None`` for the default,
    which exports each kind's built-in prompt); ``UserError`` in one line for a strategy
    that holds a conversation, which an export of one prompt per item cannot carry."""
    items = [item for number, item in enumerate(dataset) if limit is None or number < limit]
    known = [item for item in items if item.kind in ITEM_KINDS]
    kinds = sorted({item.kind for item in known})
    pack = prompt_pack(strategy, table_format, kinds, None, dataset, known, seed)
    if pack.refine is not None:
        raise UserError(f"--strategy {strategy}: a conversation of two turns, which a harness "
                        "export cannot carry (it sends one prompt per item); run it with "
                        "gen eval")
    return None if pack.default and seed is None else pack


def metric_names(entry: Entry) -> list[str]:
    """The metrics the kind of ``entry`` reports (what scoring its reference gives)."""
    # heavy:
    from hopvista.eval.runner import score_response

    score, _, _ = score_response(entry.item, f"Answer: {entry.reference}")
    return sorted(score.metrics)


def parts_json(entry: Entry, image_path: Callable[[int], str]) -> list[dict[str, str]]:
    """The prompt's parts as data: ``{"text": ...}`` or ``{"image": path, "role": ...}``."""
    parts: list[dict[str, str]] = []
    for k, part in enumerate(entry.prompt.parts):
        if isinstance(part, str):
            parts.append({"text": part})
        else:
            parts.append({"image": image_path(k), "role": part.role})
    return parts


def write_readme(job: Job, harness: str, count: int, how_to_run: str) -> None:
    """The export's ``README.md``: what it holds, the ``gen eval`` command that sends the
    same prompts, and ``how_to_run`` (Markdown: the harness's commands, how it is scored)."""
    source = shlex.quote(str(job.dataset.root.resolve()))
    write_text(job.folder / README, (
        f"# A hopvista dataset exported for {harness}\n\n"
        f"{count} items of `{job.dataset.root.resolve()}`, each shown as in the setting "
        f"**{job.setting.name}** ({job.setting.description}). The prompts and reference "
        "answers are those `gen eval` uses in that setting:\n\n"
        f"    gen eval {source} --setting {job.setting.name}{_strategy_flags(job)} --model "
        "MODEL --out RUN\n\n"
        "Answers are scored by hopvista's own parser and scorer (hopvista must be installed "
        "where they are scored), so a score here can be set beside that run's.\n\n"
        f"{how_to_run.strip()}\n"))


def _strategy_flags(job: Job) -> str:
    """The ``gen eval`` flags of the export's prompt strategy (none for the default)."""
    if job.pack is None:
        return ""
    seed = f" --seed {job.pack.seed}" if job.pack.seed is not None else ""
    return (f" --strategy {job.pack.name} --table-format {job.pack.table_format}"
            f"{seed}")


def write_json(path: Path, value: Any) -> None:
    """``value`` as indented JSON in ``path`` (atomically)."""
    write_atomic(path, (json.dumps(value, indent=1, ensure_ascii=False) + "\n").encode())


def write_text(path: Path, text: str) -> None:
    """``text`` in ``path`` (atomically)."""
    write_atomic(path, text.encode("utf-8"))


@dataclass(frozen=True)
class Job:
    """An export being written: the dataset, the setting, and the staging folder."""

    dataset: Dataset
    setting: Setting
    limit: int | None
    folder: Path
    """The staging folder the format writes into (renamed to ``--out`` at the end)."""
    out: Path
    """Where the export will be (``--out``): what its README names."""
    pack: PromptPack | None = None
    """A prompt strategy's prompts (``None``: each kind's built-in prompt)."""

    def entries(self) -> Iterator[Entry]:
        """The items to export, with their prompts and references."""
        return entries(self.dataset, self.setting, self.limit, self.pack)


def marker(dataset: Dataset, fmt: str, how: Setting, limit: int | None,
           count: int, files: dict[str, str], pack: PromptPack | None = None
           ) -> dict[str, Any]:
    """The record :data:`MARKER` holds; ``files`` is :func:`written_files` of the export,
    ``pack`` its prompt strategy's prompts if it has one."""
    strategy = {} if pack is None else {k: v for k, v in pack.record().items()
                                        if k in ("strategy", "table_format", "seed")}
    return {
        "format": EXPORT_FORMAT, "format_version": EXPORT_VERSION, "harness": fmt,
        "hopvista": __version__,
        "dataset": {"path": str(dataset.root.resolve()),
                    "items_sha256": sha256_file(dataset.root / ITEMS),
                    "domain": dataset.manifest.config.get("domain")},
        "setting": how.name, "limit": limit, "items": count, "files": files,
    } | strategy


def written_files(folder: Path) -> dict[str, str]:
    """Every entry under ``folder`` but its folders (and :data:`MARKER`), by relative path:
    a file's sha256, or ``"symlink"`` / the kind of a special file."""
    found: dict[str, str] = {}
    for root, folders, names in os.walk(folder):
        linked = [name for name in folders if os.path.islink(os.path.join(root, name))]
        for name in sorted(names + linked):
            path = Path(root, name)
            relative = path.relative_to(folder).as_posix()
            if relative == MARKER:
                continue
            mode = path.lstat().st_mode
            found[relative] = sha256_file(path) if stat.S_ISREG(mode) else kind_of(mode)
    return found


def is_export(path: Path) -> bool:
    """Whether ``path`` holds an earlier harness export (its marker says so)."""
    return declared_format(path / MARKER) == EXPORT_FORMAT


def check_out(out: Path, source: Path | None = None) -> None:
    """Refuse an ``--out`` that is not a new folder, an empty one or an earlier export holding
    only what the export wrote, unchanged; a symlink; a place inside a dataset; a folder that
    is or holds ``source`` (the dataset exported)."""
    shown = f"--out {out}"
    found = check_new_folder(out, shown)
    refuse_misplaced(out, shown, inputs=() if source is None else (source,), folder=True)
    if found is not None:
        _check_contents(out, shown)


def _check_contents(out: Path, shown: str) -> None:
    try:
        empty = not any(out.iterdir())
    except OSError as exc:
        raise UserError(f"{shown}: cannot list it: {reason(exc)}") from None
    if empty:
        return
    if not is_export(out):
        raise UserError(f"{shown}: folder is not empty and is not a hopvista export; "
                        "nothing was changed (choose another folder)")
    problem = _not_written(out)
    if problem is not None:
        raise UserError(f"{shown}: {problem}; nothing was changed (move it away or choose "
                        "another folder)")


def _not_written(out: Path) -> str | None:
    """What of the earlier export ``out`` it did not write as it is now, if anything."""
    try:
        record = json.loads((out / MARKER).read_text(encoding="utf-8")).get("files")
    except (OSError, ValueError, RecursionError, AttributeError):
        return f"its {MARKER} cannot be read"
    if record is None:
        return None  # an export older than the record of its files
    if not isinstance(record, dict):
        return f"its {MARKER} has no readable list of files"
    try:
        present = written_files(out)
    except OSError as exc:
        return f"cannot read what it holds ({exc.filename}: {reason(exc)})"
    for name, digest in present.items():
        if name not in record:
            return f"holds {name}, which the earlier export did not write"
        if record[name] != digest:
            return f"{name} was changed since the earlier export wrote it"
    return None


@contextmanager
def staged(out: Path, source: Path | None = None) -> Iterator[Path]:
    """A staging folder beside ``out``, renamed to ``out`` when the block succeeds.

    ``out`` is checked (:func:`check_out`) before and again just before the rename. An earlier
    export at ``out`` is swapped out in one step where the kernel can and then removed; an
    empty folder is replaced. On failure the staging folder (and parent folders made for it)
    goes and ``out`` is left as it was; a full or read-only disk is one line.
    """
    check_out(out, source)
    with staging_folder(out, f"--out {out}", "hopvista-export") as stage:
        os.chmod(stage, 0o755)
        yield stage
        check_out(out, source)
        _swap_in(stage, out)


def _swap_in(stage: Path, out: Path) -> None:
    if out.is_dir() and not any(out.iterdir()):
        try:
            out.rmdir()
        except OSError as exc:
            raise UserError(f"--out {out}: cannot replace the empty folder: {reason(exc)}; "
                            "nothing was changed") from None
    if not out.exists():
        try:
            rename_noreplace(stage, out)
        except FileExistsError:
            raise UserError(f"--out {out}: appeared while exporting; nothing was changed") \
                from None
        return
    try:
        rename_exchange(stage, out)  # the old export is now at ``stage``, removed by caller
    except Unsupported:
        old = stage.with_name(stage.name + ".old")
        os.rename(out, old)
        os.rename(stage, out)
        shutil.rmtree(old, ignore_errors=True)


def open_dataset(path: Path, setting_name: str) -> tuple[Dataset, Setting]:
    """The dataset at ``path`` and the setting called ``setting_name`` (``UserError`` if not)."""
    how = setting(setting_name)
    if how.chart == "derendered":
        raise UserError(f"--setting {how.name}: a chart-to-table reader reads the charts "
                        "during gen eval, which an export cannot run; export chart-as-table "
                        "(the exact data) or evaluate with gen eval")
    if not path.is_dir():
        raise UserError(f"{path}: not a folder (give a hopvista dataset folder)")
    return load(path), how
