"""``gen export --format inspect``: an Inspect AI task folder.

The folder holds ``task.py`` (the task ``hopvista``: ``inspect eval task.py --model ...``),
``samples.jsonl`` (one line per item: ``id``, the prompt's ``parts`` in order, ``target``, the
reference answer, and ``metadata`` with the item itself as ``item_json``) and ``images/`` (the
prompt images as PNG files). ``task.py`` is the same for every dataset: it reads the samples and
makes one user message per item, the text and images (``data:`` URLs) in the order ``gen eval``
sends them, and scores the completion with hopvista's parser and scorer.
"""

from __future__ import annotations

import json
from functools import partial

from hopvista.harness.common import Entry, Job, parts_json, write_text
from hopvista.models import PromptImage

TASK_FILE = "task.py"
SAMPLES_FILE = "samples.jsonl"
IMAGES_DIR = "images"

TASK_SOURCE = '''"""An Inspect AI task exported by hopvista (``gen export --format inspect``).

Run it with ``inspect eval task.py --model PROVIDER/MODEL``. The samples are read from
samples.jsonl beside this file and the images from images/; completions are scored by
hopvista's own answer parser and scorer (hopvista must be installed), as ``gen eval`` scores
them.
"""

import base64
import json
from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageUser, ContentImage, ContentText
from inspect_ai.scorer import CORRECT, INCORRECT, Score, Target, accuracy, scorer, stderr
from inspect_ai.solver import TaskState, generate

HERE = Path(__file__).resolve().parent
SAMPLES = HERE / "samples.jsonl"


def _content(part):
    if "text" in part:
        return ContentText(text=part["text"])
    png = (HERE / part["image"]).read_bytes()
    return ContentImage(image="data:image/png;base64," + base64.b64encode(png).decode("ascii"))


def load_samples():
    """The exported items as Inspect samples: one user message each."""
    samples = []
    with SAMPLES.open(encoding="utf-8") as fh:
        for line in fh:
            if not line.strip():
                continue
            record = json.loads(line)
            message = ChatMessageUser(content=[_content(p) for p in record["parts"]])
            samples.append(Sample(id=record["id"], input=[message], target=record["target"],
                                  metadata=record["metadata"]))
    return samples


@scorer(metrics=[accuracy(), stderr()])
def hopvista_scorer():
    """Parse and score a completion as ``gen eval`` does."""
    from hopvista.eval.runner import score_response
    from hopvista.model import Item

    async def score(state: TaskState, target: Target) -> Score:
        item = Item.model_validate_json(state.metadata["item_json"])
        result, parsed, rule = score_response(item, state.output.completion)
        return Score(value=CORRECT if result.correct else INCORRECT,
                     answer=None if parsed is None else json.dumps(parsed),
                     explanation=f"answer read by rule: {rule}",
                     metadata={"metrics": result.metrics, "parse_rule": rule})

    return score


@task
def hopvista():
    """The exported hopvista items, answered in one generation each."""
    return Task(dataset=MemoryDataset(load_samples(), name="hopvista"), solver=generate(),
                scorer=hopvista_scorer())
'''


def _image_path(entry: Entry, part: int) -> str:
    return f"{IMAGES_DIR}/{entry.image_name(part)}"


def write(job: Job) -> int:
    """Write the task folder into ``job.folder``; return the number of samples."""
    images = job.folder / IMAGES_DIR
    images.mkdir()
    lines = []
    for entry in job.entries():
        for k, part in enumerate(entry.prompt.parts):
            if isinstance(part, PromptImage):
                (images / entry.image_name(k)).write_bytes(part.png)
        item = entry.item
        record = {
            "id": item.id,
            "parts": parts_json(entry, partial(_image_path, entry)),
            "target": entry.reference,
            "metadata": {"id": item.id, "base_id": item.base_id, "kind": item.kind,
                         "difficulty": item.difficulty, "variant": item.variant.name,
                         "setting": job.setting.name, "item_json": entry.item_json},
        }
        lines.append(json.dumps(record, ensure_ascii=False) + "\n")
    write_text(job.folder / SAMPLES_FILE, "".join(lines))
    write_text(job.folder / TASK_FILE, TASK_SOURCE)
    return len(lines)
