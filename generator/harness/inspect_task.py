"""``gen export --format inspect``: an Inspect AI task folder.

The folder holds ``task.py`` (the task ``hopvista``: ``inspect eval task.py --model ...``),
``samples.jsonl`` (one line per item: ``id``, the prompt's ``parts`` in order, ``target``, the
reference answer, and ``metadata`` with the item's kind's ``metrics`` and the item itself as
``item_json``), ``images/`` (the prompt images as PNG files) and ``README.md`` (how to run it).
``task.py`` is the same for every dataset: it reads the samples and makes one user message per
item, the text and images (``data:`` URLs) in the order ``gen eval`` sends them, and scores the
completion with hopvista's parser and scorer: ``accuracy`` and every metric of the item kinds, each
aggregated by Inspect.
"""

from __future__ import annotations

import json
import shlex
from functools import partial

from hopvista.eval.backends import PromptImage
from hopvista.harness.common import Entry, Job, metric_names, parts_json, write_readme, write_text

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
from inspect_ai.scorer import (CORRECT, INCORRECT, Score, Target, accuracy, mean, scorer,
                                stderr)
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


def metric_names(samples):
    """Every metric of the exported items' kinds (each sample lists its kind's)."""
    return sorted({name for sample in samples for name in sample.metadata["metrics"]})


def hopvista_scorer(names):
    """Parse and score a completion as ``gen eval`` does: ``accuracy`` (C or I) and each of
    ``names``, every one aggregated; a metric another item kind has is NaN here, which Inspect
    leaves out of its mean."""
    metrics = {"accuracy": [accuracy(), stderr()], **{name: [mean(), stderr()] for name in names}}

    @scorer(metrics=metrics, name="hopvista_scorer")
    def hopvista_scorer_():
        from hopvista.eval.runner import score_response
        from hopvista.model import Item

        async def score(state: TaskState, target: Target) -> Score:
            item = Item.model_validate_json(state.metadata["item_json"])
            result, parsed, rule = score_response(item, state.output.completion)
            value = {"accuracy": CORRECT if result.correct else INCORRECT}
            value.update({name: float(result.metrics.get(name, float("nan"))) for name in names})
            return Score(value=value, answer=None if parsed is None else json.dumps(parsed),
                         explanation=f"answer read by rule: {rule}",
                         metadata={"parse_rule": rule})

        return score

    return hopvista_scorer_()


@task
def hopvista():
    """The exported hopvista items, answered in one generation each."""
    samples = load_samples()
    return Task(dataset=MemoryDataset(samples, name="hopvista"), solver=generate(),
                scorer=hopvista_scorer(metric_names(samples)))
'''


HOW_TO_RUN = """\
## Run it in Inspect AI

    inspect eval {task} --model PROVIDER/MODEL

(for an OpenAI-compatible endpoint: `--model openai/NAME`, with `OPENAI_BASE_URL` and
`OPENAI_API_KEY` set). Each item is one user message with the text and images in the order
`gen eval` sends them.

## Scores

The scorer `hopvista_scorer` gives each sample `accuracy` (C or I) and every metric of the
exported item kinds ({metrics}); Inspect aggregates each of them (accuracy and mean, with
their standard errors). A metric of another item kind is NaN on a sample, which Inspect leaves
out of that metric's mean. `inspect view` shows them per sample.
"""


def _image_path(entry: Entry, part: int) -> str:
    return f"{IMAGES_DIR}/{entry.image_name(part)}"


def write(job: Job) -> int:
    """Write the task folder into ``job.folder``; return the number of samples."""
    images = job.folder / IMAGES_DIR
    images.mkdir()
    lines = []
    kinds: dict[str, list[str]] = {}
    for entry in job.entries():
        if entry.item.kind not in kinds:
            kinds[entry.item.kind] = metric_names(entry)
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
                         "setting": job.setting.name, "metrics": kinds[item.kind],
                         "item_json": entry.item_json},
        }
        lines.append(json.dumps(record, ensure_ascii=False) + "\n")
    write_text(job.folder / SAMPLES_FILE, "".join(lines))
    write_text(job.folder / TASK_FILE, TASK_SOURCE)
    write_readme(job, "Inspect AI", len(lines), HOW_TO_RUN.format(
        task=shlex.quote(str(job.out.resolve() / TASK_FILE)),
        metrics=", ".join(f"`{name}`" for name in sorted(set().union(*kinds.values())))))
    return len(lines)
