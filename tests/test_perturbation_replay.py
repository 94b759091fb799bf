"""Every registered perturbation (the registry swept, so a new one is tested by being added)
samples, then applies: the records a variant item holds replay to the same image bytes, the
drawn values are plain JSON and applying them needs no generator, and an altered record is
refused with one line naming the value."""

from __future__ import annotations

import io
import json
import random
from typing import Any

import numpy as np
import pytest
from PIL import Image, ImageDraw

from hopvista.augment import PERTURBATIONS
from hopvista.augment.perturbation import stream_name
from hopvista.errors import UserError
from hopvista.rng import Streams
from hopvista.variants.maker import perturb

NAMES = sorted(PERTURBATIONS.names())
STREAMS = Streams(5, "financial-s5-000003", "replay")


def table_png() -> bytes:
    """A small gridded table as a PNG."""
    image = Image.new("RGB", (240, 110), "white")
    draw = ImageDraw.Draw(image)
    for row in range(3):
        for col in range(2):
            box = [8 + col * 112, 8 + row * 32, 116 + col * 112, 38 + row * 32]
            draw.rectangle(box, outline="black")
            draw.text((box[0] + 6, box[1] + 9), f"{row}{col} 12,345.6", fill="black")
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def pixels(image: Image.Image) -> tuple[tuple[int, int], bytes]:
    rgb = image.convert("RGB")
    return rgb.size, rgb.tobytes()


def garble_global_rngs() -> None:
    random.seed("not the variant's stream")
    np.random.seed(4242)


def drawn_once(name: str) -> tuple[Image.Image, dict[str, Any]]:
    """The table image, and the record of ``name`` applied to it once, as an item holds it."""
    image = Image.open(io.BytesIO(table_png())).convert("RGB")
    _, records, _ = perturb(table_png(), ((name, {}),), STREAMS, "table")
    record: dict[str, Any] = json.loads(json.dumps(records[0]))
    return image, record


@pytest.mark.parametrize("name", NAMES)
def test_an_item_s_records_replay_to_the_same_image_bytes(name: str) -> None:
    steps = ((name, {}), (name, {}))  # twice: the second step draws from its own stream
    made, records, _ = perturb(table_png(), steps, STREAMS, "table")
    records = json.loads(json.dumps(records))  # as items.jsonl holds them
    garble_global_rngs()
    image = Image.open(io.BytesIO(table_png())).convert("RGB")
    for k, record in enumerate(records):
        chosen = PERTURBATIONS.get(record["name"])
        rng = STREAMS.stream(stream_name(record["role"], k, record["name"]))
        image = chosen.replay(image, record, rng).image.convert("RGB")
    assert pixels(image) == pixels(Image.open(io.BytesIO(made)))


@pytest.mark.parametrize("name", NAMES)
def test_the_drawn_values_are_json_and_applying_them_needs_no_generator(name: str) -> None:
    chosen = PERTURBATIONS.get(name)
    image = Image.open(io.BytesIO(table_png())).convert("RGB")
    rng = STREAMS.stream(stream_name("table", 0, name))
    drawn = json.loads(json.dumps(chosen.draw(image.size, rng), allow_nan=False))
    once = chosen.run(image, STREAMS.stream(stream_name("table", 0, name)))
    garble_global_rngs()
    first = chosen.applied(image, drawn)
    garble_global_rngs()
    again = chosen.applied(image, json.loads(json.dumps(drawn)))
    assert pixels(first.image) == pixels(again.image) == pixels(once.image)
    assert first.record == again.record == once.record
    points = np.array([[0.0, 0.0], [120.5, 40.0], [240.0, 110.0]])
    if once.warp is None:
        assert first.warp is None
    else:
        assert first.warp is not None and np.array_equal(first.warp(points), once.warp(points))


@pytest.mark.parametrize("name", NAMES)
def test_a_record_whose_drawn_value_was_altered_is_refused(name: str) -> None:
    image, record = drawn_once(name)
    if not record["drawn"]:
        pytest.skip(f"{name} records no drawn value")
    key = sorted(record["drawn"])[-1]
    altered = record | {"drawn": record["drawn"] | {key: "altered"}}
    with pytest.raises(UserError, match=rf"perturbation '{name}': drawn\.{key}: the record "
                                        r"says 'altered', its stream draws"):
        PERTURBATIONS.get(name).replay(image, altered, STREAMS.stream(
            stream_name("table", 0, name)))


def test_a_record_of_another_perturbation_is_refused() -> None:
    image, record = drawn_once("rescale")
    with pytest.raises(UserError,
                       match="perturbation 'noise': the record names perturbation 'rescale'"):
        PERTURBATIONS.get("noise").replay(image, record, STREAMS.stream("any"))


def test_drawn_values_with_a_forged_generator_state_are_refused() -> None:
    chosen = PERTURBATIONS.get("noise")
    image = Image.open(io.BytesIO(table_png())).convert("RGB")
    drawn = chosen.draw(image.size, STREAMS.stream(stream_name("table", 0, "noise")))
    forged = drawn | {"noise_state": drawn["noise_state"] | {"bit_generator": "seed"}}
    before = np.random.get_state(legacy=True)
    with pytest.raises(UserError, match="generator state: bit_generator: 'seed' is not one of"):
        chosen.applied(image, forged)
    after = np.random.get_state(legacy=True)  # NumPy's global generator is left alone
    assert np.array_equal(before[1], after[1]) and before[2:] == after[2:]
