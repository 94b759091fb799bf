"""``gen export --format vlmevalkit``: VLMEvalKit's TSV, ready for ``$LMUData``.

``NAME.tsv`` (``NAME`` is ``HopVista_SETTING``) has VLMEvalKit's documented columns, one row
per item: ``index`` (0, 1, ...), ``image`` (the base64 of the PNG; several images as a list,
``["...", "..."]``, which VLMEvalKit reads with its ``toliststr``), ``image_path`` (a file name
per image, in the same shape), ``question`` (the prompt ``gen eval`` sends, each image marked
``[image: ROLE]`` where it goes: VLMEvalKit shows the images first, then the question),
``answer`` (the reference answer), ``category`` (the difficulty), ``l2-category`` (the item
kind) and ``split`` (``test``); then hopvista's ``id``, ``variant`` and ``setting``. Copied
into ``$LMUData``, ``--data NAME`` loads it as a custom VQA dataset.

VLMEvalKit has no scorer for a custom VQA dataset: ``score.py`` beside the TSV scores its
prediction file (``python score.py PREDICTIONS.xlsx``) with hopvista's parser and scorer,
reading each item from ``items.jsonl`` (``{"index": ..., "item_json": ...}``).
"""

from __future__ import annotations

import base64
import csv
import json

from hopvista.errors import UserError
from hopvista.harness.common import Entry, Job, write_text
from hopvista.models import PromptImage

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


def dataset_name(setting: str) -> str:
    """The TSV's name (VLMEvalKit's ``--data``) for setting ``setting``."""
    return "HopVista_" + setting.replace("-", "_")


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


def write(job: Job) -> int:
    """Write the TSV, ``items.jsonl`` and ``score.py`` into ``job.folder``; return the rows."""
    name = dataset_name(job.setting.name)
    count = 0
    with (job.folder / f"{name}.tsv").open("w", encoding="utf-8", newline="") as tsv, \
            (job.folder / ITEMS_FILE).open("w", encoding="utf-8") as items:
        writer = csv.writer(tsv, delimiter="\t", lineterminator="\n",
                            quoting=csv.QUOTE_MINIMAL)
        writer.writerow(COLUMNS)
        for entry in job.entries():
            writer.writerow(_row(entry, job.setting.name))
            items.write(json.dumps({"index": entry.number, "item_json": entry.item_json},
                                   ensure_ascii=False) + "\n")
            count += 1
    write_text(job.folder / SCORE_FILE, SCORE_SOURCE)
    return count

