"""Exports of a dataset for other evaluation harnesses (``gen export``).

Each format writes a folder that its harness runs as it is:

``inspect``
    An Inspect AI task: ``task.py`` (``inspect eval task.py --model ...``) reads the samples
    from ``samples.jsonl`` and the images from ``images/``; each prompt is one user message
    with the text and images in the order ``gen eval`` sends them.
    (:mod:`hopvista.harness.inspect_task`)
``lmms-eval``
    An lmms-eval task folder: ``hopvista.yaml`` and ``utils.py`` over ``data/test.parquet``
    (``lmms-eval --include_path DIR --tasks hopvista ...``). (:mod:`hopvista.harness.lmms_eval`)
``vlmevalkit``
    VLMEvalKit's TSV (index, base64 image(s), question, answer, category, ...) to put in
    ``$LMUData``, and ``score.py`` to score its prediction file.
    (:mod:`hopvista.harness.vlmevalkit`)

Every format uses the prompt ``gen eval`` would send in the chosen setting (the built-in template
of each item's kind; by default ``gen eval``'s default setting, ``table-json``) and the same
reference answers, and says which in its ``README.md``, with the commands that run and score it in
the harness; the exported scorers call hopvista's own parser and scorer
(:func:`hopvista.eval.runner.score_response`), so a harness run is comparable with ``gen eval``.
With ``--strategy`` (:mod:`hopvista.eval.strategies`) an export carries that strategy's
prompts (one-shot's example included) and says so in its README's ``gen eval`` command; a
strategy of two turns (``self-refine``) is refused in one line, since every harness sends one
prompt per item. Item text is only ever data (JSON, Parquet, TSV): the generated Python
files are the same for every dataset and read the items from their data file.

The stage protocol (``gen eval --protocol stages``) is not exported: its replies are graded
against each statement's program, which only ``gen eval`` does; ``--protocol stages`` is
refused with one line (:data:`NOT_EXPORTED`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from hopvista.errors import UserError
from hopvista.eval.prompts import DEFAULT_SETTING as EVAL_DEFAULT_SETTING
from hopvista.harness import inspect_task, lmms_eval, vlmevalkit
from hopvista.harness.common import (
    Job,
    export_pack,
    marker,
    open_dataset,
    staged,
    write_json,
    written_files,
)
from hopvista.output.files import MARKER

__all__ = ["FORMATS", "ExportResult", "export"]

Writer = Callable[[Job], int]
"""Writes a format into ``job.folder`` and returns how many items it exported."""

FORMATS: dict[str, Writer] = {
    "inspect": inspect_task.write,
    "lmms-eval": lmms_eval.write,
    "vlmevalkit": vlmevalkit.write,
}
"""Every export format by name."""

DEFAULT_SETTING = EVAL_DEFAULT_SETTING
"""``gen eval``'s: an export and a run of the same dataset send the same prompts unless a
setting is chosen."""


@dataclass(frozen=True)
class ExportResult:
    """What an export wrote."""

    out: Path
    format: str
    setting: str
    items: int


NOT_EXPORTED = ("--protocol {protocol}: harness exports carry the answer prompt only; the "
                "stage protocol is graded against each statement's program by gen eval "
                "--protocol {protocol}, not by a harness")
"""Why an export refuses a protocol: ``gen eval`` alone grades it."""


def export(dataset_path: str | Path, fmt: str, out: str | Path,
           setting: str = DEFAULT_SETTING, limit: int | None = None,
           protocol: str | None = None, strategy: str = "cot", table_format: str = "json",
           seed: int | None = None) -> ExportResult:
    """Export the dataset at ``dataset_path`` (its first ``limit`` items) for harness ``fmt``
    into the folder ``out``, prompts as in setting ``setting`` and prompt strategy
    ``strategy`` (tables as ``table_format``, one-shot examples drawn by ``seed``); a
    strategy of two turns (``self-refine``) cannot be exported.

    ``out`` must be new, empty or an earlier export holding only the files it wrote, unchanged
    (it is then replaced), and not a symlink, inside a dataset or holding the dataset; it is
    written in a staging folder and renamed into place. :class:`~hopvista.errors.UserError`
    for an unknown format or setting, a path that is not a dataset, an ``out`` that holds
    something else, a setting the dataset cannot give, or a disk that refuses the write, and
    for any ``protocol`` (:data:`NOT_EXPORTED`).
    """
    if protocol is not None:
        raise UserError(NOT_EXPORTED.format(protocol=protocol))
    if fmt not in FORMATS:
        raise UserError(f"--format: no format {fmt!r} (formats: {', '.join(FORMATS)})")
    if limit is not None and limit < 1:
        raise UserError(f"--limit: must be at least 1, got {limit}")
    dataset, how = open_dataset(Path(dataset_path), setting)
    pack = export_pack(dataset, limit, strategy, table_format, seed)
    target = Path(out)
    with staged(target, dataset.root) as folder:
        count = FORMATS[fmt](Job(dataset, how, limit, folder, target, pack))
        if count == 0:
            raise UserError(f"{dataset_path}: no item to export")
        write_json(folder / MARKER, marker(dataset, fmt, how, limit, count,
                                           written_files(folder), pack))
    return ExportResult(target, fmt, how.name, count)
