"""``gen export --format lmms-eval``: an lmms-eval task folder.

The folder holds ``hopvista.yaml`` (the task ``hopvista``), ``utils.py`` (its functions, named
in the YAML with ``!function utils.NAME``), ``data/test.parquet`` and ``README.md`` (how to run
and score it). lmms-eval finds the task with ``--include_path FOLDER --tasks hopvista``.

The YAML pins what lmms-eval would otherwise fill in:

- ``data_files`` is ``!function utils.TEST_FILES``, the absolute path of the Parquet file
  beside ``utils.py``: lmms-eval releases before 0.7.3 resolve a relative ``data_files``
  against the working folder, not the YAML's, and every release resolves ``!function`` by
  loading the ``utils.py`` beside the YAML — so the folder runs from anywhere, moved or not;
- ``generation_kwargs.until`` is ``[]``: without it lmms-eval sets ``["\n\n"]``, and the
  backends that honour it (qwen2_vl, qwen_vl, glm4v, llama4_scout, cambrian, ...) would cut a
  step-by-step answer at its first blank line; ``max_new_tokens`` leaves room for the reasoning
  the prompts ask for (backends default to as little as 128).

A row holds the item's ``id``, ``kind``, ``difficulty``, ``variant``, ``setting``, the prompt
as text (``prompt``: each image as ``[image: ROLE]`` where it goes, for models that take the
images first and one text), the prompt's ``parts`` in order (JSON: ``{"text": ...}`` or
``{"image": N, "role": ...}``, N indexing ``images``; ``doc_to_messages`` gives chat models
these interleaved), the ``images`` (Hugging Face ``Image`` features), the reference
``answer`` and the item as ``item_json``, which ``process_results`` scores with hopvista's own
parser and scorer. Its metrics: ``accuracy`` and the item kinds' own (``set_accuracy``,
``statement_accuracy``, ``em``, ... and ``parsed``), each averaged.
"""

from __future__ import annotations

import json
import shlex
from typing import Any

from hopvista.eval.backends import PromptImage
from hopvista.harness.common import (
    Entry,
    Job,
    metric_names,
    parts_json,
    write_readme,
    write_text,
)

TASK = "hopvista"
YAML_FILE = f"{TASK}.yaml"
UTILS_FILE = "utils.py"
DATA_FILE = "data/test.parquet"
SPLIT = "test"
MAX_NEW_TOKENS = 2048
"""Room for the chain of thought the built-in prompts ask for."""

UTILS_SOURCE = '''"""Functions of the lmms-eval task ``hopvista``, exported by ``gen export``.

The items are rows of data/test.parquet; answers are scored by hopvista's own parser and
scorer (hopvista must be installed), as ``gen eval`` scores them.
"""

import json
from pathlib import Path

TEST_FILES = {"test": str(Path(__file__).resolve().parent / "data" / "test.parquet")}
"""The YAML's ``data_files``: the data beside this file, wherever lmms-eval is run from."""


def _images(doc):
    return [image.convert("RGB") for image in doc["images"]]


def doc_to_visual(doc):
    """The prompt's images, in the order they appear in it."""
    return _images(doc)


def doc_to_text(doc, lmms_eval_specific_kwargs=None):
    """The prompt as text; each image is marked ``[image: ROLE]`` where it goes."""
    kwargs = lmms_eval_specific_kwargs or {}
    return kwargs.get("pre_prompt", "") + doc["prompt"] + kwargs.get("post_prompt", "")


def doc_to_messages(doc, lmms_eval_specific_kwargs=None):
    """One user message with the prompt's text and images interleaved, as gen eval sends it."""
    images = _images(doc)
    content = []
    for part in json.loads(doc["parts"]):
        if "text" in part:
            content.append({"type": "text", "text": part["text"]})
        else:
            content.append({"type": "image", "url": images[part["image"]]})
    return [{"role": "user", "content": content}]


def doc_to_target(doc):
    """The reference answer, written as a model should write it."""
    return doc["answer"]


def process_results(doc, results):
    """Score the model's answer with hopvista's parser and scorer: ``accuracy`` (1 or 0) and
    the metrics of the item's kind."""
    from hopvista.eval.runner import score_response
    from hopvista.model import Item

    item = Item.model_validate_json(doc["item_json"])
    score, _, _ = score_response(item, results[0] if results else "")
    metrics = {"accuracy": float(score.correct)}
    metrics.update({name: float(value) for name, value in score.metrics.items()})
    return metrics
'''


def _features() -> Any:
    from datasets import Features, Image, List, Value

    text = Value("string")
    return Features({
        "id": text, "base_id": text, "kind": text, "difficulty": text, "variant": text,
        "setting": text, "prompt": text, "parts": text, "images": List(Image()),
        "image_roles": List(text), "answer": text, "item_json": text,
    })


def _row(entry: Entry, setting: str) -> dict[str, Any]:
    images = [(k, part) for k, part in enumerate(entry.prompt.parts)
              if isinstance(part, PromptImage)]
    position = {k: n for n, (k, _) in enumerate(images)}
    parts: list[dict[str, Any]] = []
    for part in parts_json(entry, lambda k: str(position[k])):
        parts.append({**part, "image": int(part["image"])} if "image" in part else part)
    item = entry.item
    return {
        "id": item.id, "base_id": item.base_id, "kind": item.kind,
        "difficulty": item.difficulty, "variant": item.variant.name, "setting": setting,
        "prompt": entry.prompt.text, "parts": json.dumps(parts, ensure_ascii=False),
        "images": [{"bytes": image.png, "path": entry.image_name(k)} for k, image in images],
        "image_roles": [image.role for _, image in images],
        "answer": entry.reference, "item_json": entry.item_json,
    }


def task_yaml(metrics: list[str]) -> str:
    """The task's YAML (``!function`` names its functions in ``utils.py``)."""
    q = json.dumps
    listed = "".join(f"  - metric: {q(name)}\n    aggregation: mean\n"
                     f"    higher_is_better: true\n" for name in metrics)
    return (
        "# An lmms-eval task exported by hopvista (gen export --format lmms-eval).\n"
        "# Run: lmms-eval --include_path THIS_FOLDER --tasks hopvista --model ...\n"
        f"task: {q(TASK)}\n"
        "dataset_path: parquet\n"
        "dataset_kwargs:\n"
        "  data_files: !function utils.TEST_FILES\n"
        f"test_split: {SPLIT}\n"
        "output_type: generate_until\n"
        "doc_to_visual: !function utils.doc_to_visual\n"
        "doc_to_text: !function utils.doc_to_text\n"
        "doc_to_messages: !function utils.doc_to_messages\n"
        "doc_to_target: !function utils.doc_to_target\n"
        "process_results: !function utils.process_results\n"
        "generation_kwargs:\n"
        "  until: []\n"
        f"  max_new_tokens: {MAX_NEW_TOKENS}\n"
        "  temperature: 0\n"
        "  do_sample: false\n"
        "metric_list:\n"
        f"{listed}"
        "metadata:\n"
        "  version: 1.0\n"
    )


HOW_TO_RUN = """\
## Run it in lmms-eval

    python -m lmms_eval --model MODEL --model_args ARGS \\
        --include_path {folder} --tasks hopvista \\
        --batch_size 1 --log_samples --output_path RESULTS

(for an OpenAI-compatible endpoint: `--model openai --model_args model_version=NAME`, the
endpoint and key in `OPENAI_API_BASE` / `OPENAI_API_KEY`). The folder can be run from any
working folder and moved: `utils.py` gives lmms-eval the data's absolute path.

`hopvista.yaml` sets `until: []` (lmms-eval would otherwise stop some local backends at the
first blank line, cutting a step-by-step answer) and `max_new_tokens: {max_new_tokens}`; a
`--gen_kwargs` on the command line overrides them.

## Scores

lmms-eval reports `accuracy` and each metric of the item kinds, averaged over the items,
from hopvista's parser and scorer (`process_results` in `utils.py`): {metrics}.
"""


def write(job: Job) -> int:
    """Write the task folder into ``job.folder``; return the number of rows."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    features = _features()
    path = job.folder / DATA_FILE
    path.parent.mkdir()
    metrics: set[str] = set()
    kinds: set[str] = set()
    count = 0
    rows: list[dict[str, Any]] = []
    with pq.ParquetWriter(path, features.arrow_schema, compression="zstd") as writer:
        for entry in job.entries():
            if entry.item.kind not in kinds:
                kinds.add(entry.item.kind)
                metrics.update(metric_names(entry))
            rows.append(features.encode_example(_row(entry, job.setting.name)))
            count += 1
            if len(rows) >= 64:
                writer.write_table(pa.Table.from_pylist(rows, schema=features.arrow_schema))
                rows = []
        if rows or count == 0:
            writer.write_table(pa.Table.from_pylist(rows, schema=features.arrow_schema))
    names = ["accuracy", *sorted(metrics)]
    write_text(job.folder / YAML_FILE, task_yaml(names))
    write_text(job.folder / UTILS_FILE, UTILS_SOURCE)
    write_readme(job, "lmms-eval", count, HOW_TO_RUN.format(
        folder=shlex.quote(str(job.out.resolve())), max_new_tokens=MAX_NEW_TOKENS,
        metrics=", ".join(f"`{name}`" for name in names[1:])))
    return count
