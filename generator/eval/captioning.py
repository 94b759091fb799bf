"""Captions from a vision model for MMTabReal's ``image-captioning`` setting.

``gen eval --setting image-captioning --captioner openai:MODEL`` asks an OpenAI-compatible
vision model (at ``--base-url``, as a model is asked) for a caption of each picture of every
``mmtable`` item, sending the picture alone (its ``cell-image``) with :data:`CAPTION_PROMPT`,
before any question is asked. Captions are kept in the run folder's :data:`CAPTIONS_FILE`,
keyed by the picture's SHA-256: a rerun asks only for the pictures not captioned yet. The
captioner ``kind`` (the default) asks nothing and says only the picture's kind
(:func:`hopvista.eval.cell_visuals.kind_caption`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path

from hopvista.errors import UserError
from hopvista.eval.backends import Model, ModelError, Prompt, PromptImage, load_model, split_spec
from hopvista.eval.cell_visuals import CELL_IMAGE, Captioner, cell_images, kind_caption
from hopvista.eval.replies import checked_reply
from hopvista.model import Item
from hopvista.model.dataset import Dataset
from hopvista.model.mmtable import Visual
from hopvista.output.atomic import write_atomic

BUILT_IN = "kind"
"""The built-in captioner: the picture's kind alone."""
CAPTIONS_FILE = "captions.json"
CAPTION_PROMPT = ("This picture is shown in a cell of a table. Describe it in one short "
                  "phrase: what it shows, its colours, any text, shape or highlighted part.")
MAX_CAPTION_CHARS = 500


def captioner_model(spec: str, options: dict[str, str]) -> Model | None:
    """The vision model ``--captioner`` names (``None`` for the built-in ``kind``);
    ``UserError`` naming the flag for anything but ``kind`` or ``openai:MODEL``."""
    if spec == BUILT_IN:
        return None
    name, given = split_spec(spec)
    if name != "openai" or not given.get("model"):
        raise UserError(f"--captioner {spec[:80]!r}: expected {BUILT_IN} or openai:MODEL")
    sent = {key: value for key, value in options.items() if key in ("base_url", "timeout",
                                                                    "max_retries")}
    model = load_model(name, {**sent, **given})
    if not isinstance(model, Model):
        raise UserError(f"--captioner {spec[:80]!r}: not a model that reads images")
    return model


def check_pictures(items: Sequence[Item], dataset: Dataset) -> None:
    """``UserError`` naming the item when a picture has no image of its own to caption."""
    for item in items:
        pictures = cell_images(item)
        for visual in item.inputs.visuals:
            if (visual.row, visual.col) not in pictures:
                raise UserError(f"{item.id}: --captioner captions each picture alone, and the "
                                f"dataset has no image of the picture of cell row "
                                f"{visual.row}, col {visual.col} (built with --no-images?)")
            dataset.image_file(pictures[(visual.row, visual.col)][1])


def model_captioner(model: Model, spec: str, items: Sequence[Item], dataset: Dataset,
                    folder: Path) -> Captioner:
    """Caption every picture of ``items`` with ``model`` (those not in ``folder``'s
    :data:`CAPTIONS_FILE` yet, which is rewritten as captions arrive) and return the
    captioner that looks them up. A request that fails stops the run with one line; the
    captions received until then are kept."""
    path = folder / CAPTIONS_FILE
    captions = _read_captions(path, spec)
    by_cell: dict[tuple[str, int, int], str] = {}
    try:
        for item in items:
            for (row, col), (_, image) in cell_images(item).items():
                png = dataset.image_file(image).read_bytes()
                digest = hashlib.sha256(png).hexdigest()
                if digest not in captions:
                    captions[digest] = _caption(model, spec, png)
                by_cell[(item.id, row, col)] = captions[digest]
    finally:
        _write_captions(path, spec, captions)

    def caption(item: Item, visual: Visual) -> str:
        return by_cell.get((item.id, visual.row, visual.col)) or kind_caption(item, visual)

    return caption


def _caption(model: Model, spec: str, png: bytes) -> str:
    try:
        reply = checked_reply(model.answer(Prompt((CAPTION_PROMPT, PromptImage(png, CELL_IMAGE)))))
    except ModelError as exc:
        raise UserError(f"--captioner {spec}: {' '.join(str(exc).split())[:300]}") from None
    return " ".join(reply.text.split())[:MAX_CAPTION_CHARS]


def _read_captions(path: Path, spec: str) -> dict[str, str]:
    """The captions ``spec`` gave before (none when the file is absent, unreadable, or
    another captioner's)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("captioner") != spec or \
            not isinstance(data.get("captions"), dict):
        return {}
    return {k: v for k, v in data["captions"].items() if isinstance(v, str)}


def _write_captions(path: Path, spec: str, captions: dict[str, str]) -> None:
    data = json.dumps({"captioner": spec, "prompt": CAPTION_PROMPT,
                       "captions": dict(sorted(captions.items()))}, ensure_ascii=False, indent=1)
    try:
        write_atomic(path, (data + "\n").encode("utf-8"))
    except OSError as exc:
        raise UserError(f"{path}: cannot write the captions: {exc.strerror or exc}") from None
