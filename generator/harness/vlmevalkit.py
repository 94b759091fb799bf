"""``gen export --format vlmevalkit``: VLMEvalKit's TSV, ready for ``$LMUData``.

``NAME.tsv`` (``NAME`` is ``HopVista_OpenEnded_SETTING_HASH``) has VLMEvalKit's documented columns,
one row per item: ``index`` (0, 1, ...), ``image`` (the base64 of the PNG; several images as a
list, ``["...", "..."]``, which VLMEvalKit reads with its ``toliststr``), ``image_path`` (a file
name per image, in the same shape), ``question`` (the prompt ``gen eval`` sends, each image marked
``[image: ROLE]`` where it goes: VLMEvalKit shows the images first, then the question), ``answer``
(the reference answer), ``category`` (the difficulty), ``l2-category`` (the item kind) and
``split`` (``test``); then hopvista's ``id``, ``variant`` and ``setting``. Copied into
``$LMUData``, ``--data NAME`` loads it as a custom VQA dataset.

The name is what VLMEvalKit knows a dataset by, so it carries what VLMEvalKit would otherwise
guess or reuse: ``OpenEnded`` is the marker its type inference reads (without it a custom
dataset is taken for multiple choice and some models' prompt builders append "Answer the
question directly."), and ``HASH``, the first 12 hex digits of the TSV's SHA-256, makes the
name differ whenever the content does — VLMEvalKit keeps a dataset's images in
``images/NAME/`` and writes an image only when no file of its name is there, so two exports
under one name would be run with the first one's images.

VLMEvalKit has no scorer for a custom VQA dataset: ``score.py`` beside the TSV scores its
prediction file (``python score.py PREDICTIONS.xlsx``) with hopvista's parser and scorer,
reading each item from ``items.jsonl`` (``{"index": ..., "item_json": ...}``).
"""

from __future__ import annotations

import base64
import csv
import hashlib
import json
import os
import shlex
from typing import TextIO

from hopvista.errors import UserError
from hopvista.eval.backends import PromptImage
from hopvista.harness.common import Entry, Job, write_readme, write_text

ITEMS_FILE = "items.jsonl"
SCORE_FILE = "score.py"
COLUMNS = ("index", "image", "image_path", "question", "answer", "category", "l2-category",
           "split", "id", "variant", "setting")

SCORE_SOURCE = '''"""Score a VLMEvalKit prediction file of a hopvista export (``gen export``).

Usage: python score.py PREDICTIONS (.xlsx, .tsv, .csv or .json(l): VLMEvalKit's columns
``index`` and ``prediction``). Each prediction is parsed and scored by hopvista's own parser and
scorer (hopvista must be installed), as ``gen eval`` scores it; the items are read from
items.jsonl beside this file. Prints the accuracy and each metric's mean as JSON.
"""

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _read(path):
    import pandas as pd

    suffix = Path(path).suffix.lower()
    if suffix == ".xlsx":
        return pd.read_excel(path)
    if suffix == ".tsv":
        return pd.read_csv(path, sep="\\t")
    if suffix == ".csv":
        return pd.read_csv(path)
    if suffix == ".jsonl":
        return pd.read_json(path, lines=True)
    if suffix == ".json":
        return pd.read_json(path)
    raise SystemExit(f"{path}: not a prediction file (.xlsx, .tsv, .csv, .json, .jsonl)")


def score(path):
    """Accuracy and mean metrics of the predictions in ``path``."""
    from hopvista.eval.runner import score_response
    from hopvista.model import Item

    items = {}
    with (HERE / "items.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            record = json.loads(line)
            items[int(record["index"])] = record["item_json"]
    table = _read(path)
    sums, counts, correct, scored = {}, {}, 0, 0
    for index, prediction in zip(table["index"], table["prediction"]):
        item = Item.model_validate_json(items[int(index)])
        text = "" if prediction != prediction or prediction is None else str(prediction)
        result, _, _ = score_response(item, text)
        scored += 1
        correct += bool(result.correct)
        for name, value in result.metrics.items():
            sums[name] = sums.get(name, 0.0) + float(value)
            counts[name] = counts.get(name, 0) + 1
    return {"items": scored, "accuracy": correct / scored if scored else None,
            "metrics": {name: sums[name] / counts[name] for name in sorted(sums)}}


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: python score.py PREDICTIONS")
    print(json.dumps(score(sys.argv[1]), indent=1))
'''


def dataset_name(setting: str, tsv_sha256: str) -> str:
    """The dataset's name (VLMEvalKit's ``--data``, the TSV's file name without ``.tsv``) for
    setting ``setting`` and a TSV of SHA-256 ``tsv_sha256``."""
    return f"HopVista_OpenEnded_{setting.replace('-', '_')}_{tsv_sha256[:12]}"


def _cell(values: list[str]) -> str:
    """One value as itself; several as the list literal VLMEvalKit's ``toliststr`` reads."""
    return values[0] if len(values) == 1 else json.dumps(values)


def _row(entry: Entry, setting: str) -> list[str | int]:
    images = [(k, part) for k, part in enumerate(entry.prompt.parts)
              if isinstance(part, PromptImage)]
    item = entry.item
    if not images:
        raise UserError(f"{item.id}: the setting {setting!r} shows this item no image, and "
                        "VLMEvalKit's image datasets need one (choose --setting interleaved, "
                        "table-json or image-only)")
    encoded = [base64.b64encode(image.png).decode("ascii") for _, image in images]
    return [entry.number, _cell(encoded), _cell([entry.image_name(k) for k, _ in images]),
            entry.prompt.text, entry.reference, item.difficulty or "", item.kind, "test", item.id,
            item.variant.name, setting]


HOW_TO_RUN = """\
## Run it in VLMEvalKit

The dataset's name is `{name}`: VLMEvalKit reads `OpenEnded` in it as an
open-ended (not multiple-choice) dataset, and the hash makes it new whenever the content is,
so no image or prediction of another export of the same name is reused.

1. Put the TSV where VLMEvalKit looks for datasets (`$LMUData`, by default `~/LMUData`):

       cp {tsv} "${{LMUData:-$HOME/LMUData}}/"

2. Run inference only — VLMEvalKit has no scorer for a custom open-ended dataset
   (`CustomVQADataset.evaluate` raises `NotImplementedError`, so `--mode all` ends in an
   error once the answers are in):

       python run.py --data {name} --model MODEL --mode infer --work-dir OUTPUT

   Some models' prompt builders add an instruction to an open-ended question (InternVL: "Answer
   the question using a single word or phrase."; Qwen2-VL: "Please try to answer the question
   with short words or phrases if possible."), which contradicts the step-by-step prompts. For
   those, turn them off in a config file and run it with
   `python run.py --config config.json --mode infer --work-dir OUTPUT`:

       {{"model": {{"MODEL": {{"class": "InternVLChat", "model_path": "...",
                             "use_custom_prompt": false}}}},
        "data": {{"{name}": {{"class": "CustomVQADataset",
                            "dataset": "{name}"}}}}}}

3. Score the prediction file VLMEvalKit wrote, `OUTPUT/MODEL/RUN_ID/MODEL_{name}.xlsx`,
   with hopvista's parser and scorer:

       python {score} OUTPUT/MODEL/RUN_ID/MODEL_{name}.xlsx

   It prints the accuracy and the mean of each metric of the item kinds as JSON.
"""


class _Hashed:
    """A text file that hashes the UTF-8 bytes written to it (the TSV's SHA-256 names it, with
    no second reading of a file of base64 images)."""

    def __init__(self, fh: TextIO) -> None:
        self.fh, self.digest = fh, hashlib.sha256()

    def write(self, text: str) -> int:
        """Write ``text`` and hash it."""
        self.digest.update(text.encode("utf-8"))
        return self.fh.write(text)


def write(job: Job) -> int:
    """Write the TSV, ``items.jsonl``, ``score.py`` and ``README.md`` into ``job.folder``;
    return the rows."""
    staged = job.folder / "HopVista.tsv.part"
    count = 0
    with staged.open("w", encoding="utf-8", newline="") as fh, \
            (job.folder / ITEMS_FILE).open("w", encoding="utf-8") as items:
        tsv = _Hashed(fh)
        writer = csv.writer(tsv, delimiter="\t", lineterminator="\n",
                            quoting=csv.QUOTE_MINIMAL)
        writer.writerow(COLUMNS)
        for entry in job.entries():
            writer.writerow(_row(entry, job.setting.name))
            items.write(json.dumps({"index": entry.number, "item_json": entry.item_json},
                                   ensure_ascii=False) + "\n")
            count += 1
    name = dataset_name(job.setting.name, tsv.digest.hexdigest())
    os.rename(staged, job.folder / f"{name}.tsv")
    write_text(job.folder / SCORE_FILE, SCORE_SOURCE)
    out = job.out.resolve()
    write_readme(job, "VLMEvalKit", count, HOW_TO_RUN.format(
        name=name, tsv=shlex.quote(str(out / f"{name}.tsv")),
        score=shlex.quote(str(out / SCORE_FILE))))
    return count

