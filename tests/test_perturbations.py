"""The built-in perturbations, swept over the registry: same bytes from the same stream (in one
process and across processes, whatever the global RNGs hold), JSON records, parameter errors
naming the field, visible change, warps that carry boxes onto the moved pixels, legible cells."""

from __future__ import annotations

import hashlib
import io
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from hopvista.augment import PERTURBATIONS, Perturbation, warp_box
from hopvista.augment._deps import require
from hopvista.errors import UserError

MOVES = {"camera": False, "noise": False, "rescale": True, "elastic": True, "photo-screen": True,
         "photo-paper": True}
"""Every built-in perturbation, and whether it moves pixels (returns a warp)."""

BUILTIN = sorted(name for name in PERTURBATIONS.names()
                 if PERTURBATIONS.get(name).origin.startswith("hopvista.augment."))
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.truetype(FONT, size) if Path(FONT).exists() else ImageFont.load_default()


def table_image() -> tuple[Image.Image, list[int]]:
    """A small gridded table with 14 px text, and the box of one cell."""
    image = Image.new("RGB", (420, 160), "white")
    draw = ImageDraw.Draw(image)
    for row in range(5):
        for col in range(3):
            box = [10 + col * 135, 10 + row * 28, 145 + col * 135, 38 + row * 28]
            draw.rectangle(box, outline="black")
            draw.text((box[0] + 6, box[1] + 6), f"{row * 3 + col:>3} 12,345.6", fill="black",
                      font=_font(14))
    return image, [146, 67, 134, 27]  # the inside of row 2, column 1


def png(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    Image.fromarray(np.asarray(image)).save(buffer, format="PNG")
    return buffer.getvalue()


def garble_global_rngs(salt: int) -> None:
    random.seed(f"garbage-{salt}")
    np.random.seed(salt * 7919 % 2**32)


def test_every_builtin_perturbation_is_covered() -> None:
    assert sorted(MOVES) == BUILTIN, "add a new perturbation to MOVES (and check its warp)"


@pytest.mark.parametrize("name", BUILTIN)
def test_same_stream_same_bytes_whatever_the_global_rngs(name: str) -> None:
    chosen = PERTURBATIONS.get(name)
    image, _ = table_image()
    garble_global_rngs(1)
    first = chosen.run(image, np.random.default_rng(123))
    garble_global_rngs(2)
    py_state, np_state = random.getstate(), np.random.get_state()
    again = chosen.run(image, np.random.default_rng(123))
    assert random.getstate() == py_state  # the global generators are left as they were
    assert all(np.array_equal(a, b) if isinstance(a, np.ndarray) else a == b
               for a, b in zip(np.random.get_state(), np_state, strict=True))
    assert png(first.image) == png(again.image)
    assert first.record == again.record
    assert json.loads(json.dumps(first.record, allow_nan=False)) == first.record
    assert first.record["name"] == name and first.record["drawn"]
    other = chosen.run(image, np.random.default_rng(124))
    assert other.record["drawn"] != first.record["drawn"]
    assert (first.warp is not None) == MOVES[name]


@pytest.mark.parametrize("name", BUILTIN)
def test_the_output_differs_from_the_input(name: str) -> None:
    image, _ = table_image()
    result = PERTURBATIONS.get(name).run(image, np.random.default_rng(5))
    assert result.image.mode == "RGB"
    if result.image.size == image.size:
        diff = np.abs(np.asarray(result.image, np.int16) - np.asarray(image, np.int16))
        assert diff.mean() > 0.5
    else:
        assert MOVES[name]


def _range_fields(chosen: Perturbation[Any]) -> list[tuple[str, float]]:
    return [(field, spec["prefixItems"][0]["maximum"])
            for field, spec in chosen.schema()["properties"].items() if "prefixItems" in spec]


@pytest.mark.parametrize("name", BUILTIN)
def test_bad_parameters_name_the_field(name: str) -> None:
    chosen = PERTURBATIONS.get(name)
    fields = _range_fields(chosen)
    assert fields, "every perturbation draws from at least one bounded range"
    image, _ = table_image()
    for field, maximum in fields:
        with pytest.raises(UserError, match=f"{name}.*{field}.*within"):
            chosen.parse({field: [maximum, maximum + 1]})
        with pytest.raises(UserError, match=f"{name}.*{field}.*above high"):
            chosen.parse({field: [maximum, maximum - 1]})
    with pytest.raises(UserError, match=f"{name}.*no_such_knob"):
        chosen.run(image, np.random.default_rng(0), {"no_such_knob": 1})
    chosen.parse(chosen.parse({}).model_dump())  # the defaults round-trip


def marker_image() -> tuple[Image.Image, list[int]]:
    """A red square on white (with some black text around it) and its box."""
    image = Image.new("RGB", (400, 300), "white")
    draw = ImageDraw.Draw(image)
    box = [230, 160, 50, 40]
    draw.rectangle([box[0], box[1], box[0] + box[2] - 1, box[1] + box[3] - 1], fill=(220, 0, 0))
    draw.text((20, 20), "Revenue 2024", fill="black", font=_font(14))
    return image, box


def _red(image: Image.Image) -> np.ndarray:
    array = np.asarray(image, np.int16)
    return (array[..., 0] > 120) & (array[..., 1] < 90) & (array[..., 2] < 90)


@pytest.mark.parametrize("name", BUILTIN)
@pytest.mark.parametrize("seed", [123, 7])
def test_the_warp_carries_a_box_onto_its_pixels(name: str, seed: int) -> None:
    image, box = marker_image()
    result = PERTURBATIONS.get(name).run(image, np.random.default_rng(seed))
    out_box = warp_box(result.warp, box, result.image.size)
    red = _red(result.image)
    x, y, w, h = out_box
    inside = red[max(0, y - 1):y + h + 1, max(0, x - 1):x + w + 1].sum()
    assert red.sum() > 0.6 * box[2] * box[3]
    assert inside >= 0.98 * red.sum()  # the red pixels are where the box went
    area = w * h
    assert 0.6 * red.sum() <= area <= 1.6 * red.sum() + 4 * (w + h)  # and the box is tight
    if result.warp is not None:
        width, height = image.size
        corners = result.warp(np.array([[0, 0], [width, 0], [0, height], [width, height]],
                                        dtype=float))
        out_w, out_h = result.image.size
        assert np.all(corners >= -3) and np.all(corners[:, 0] <= out_w + 3)
        assert np.all(corners[:, 1] <= out_h + 3)


def test_photo_corners_are_the_drawn_quad_and_rescale_is_exact() -> None:
    image, _ = marker_image()
    for name in ("photo-screen", "photo-paper"):
        result = PERTURBATIONS.get(name).run(image, np.random.default_rng(3))
        corners = np.array([[0, 0], [400, 0], [400, 300], [0, 300]], dtype=float)
        assert np.allclose(result.warp(corners), result.record["drawn"]["corners"], atol=1e-3)
        assert list(result.image.size) == result.record["drawn"]["size"]
        assert result.image.width > image.width and result.image.height > image.height
    result = PERTURBATIONS.get("rescale").run(image, np.random.default_rng(3), {"factor": [2, 2]})
    assert result.image.size == (800, 600)
    assert warp_box(result.warp, [10, 20, 30, 40]) == [20, 40, 60, 80]


def test_elastic_warp_inverts_the_field_closely() -> None:
    from hopvista.augment.elastic import _sample, displacement, field_warp

    cv2 = require("cv2", "test")
    for amplitude, spacing in ((2.5, 70), (6.0, 40)):  # the defaults' worst, the bounds' worst
        field = displacement(cv2, np.random.default_rng(9), (400, 300), amplitude, spacing)
        points = np.random.default_rng(1).uniform([5, 5], [395, 295], (500, 2))
        moved = field_warp(field)(points)
        residual = (moved - 0.5) + _sample(field, moved - 0.5) - (points - 0.5)
        assert np.abs(residual).max() < 0.01


def test_warp_box_rounds_outwards_and_clips() -> None:
    assert warp_box(None, [1.2, 2.7, 3.0, 4.0]) == [1, 2, 4, 5]
    assert warp_box(lambda p: p + [-5.0, 0.0], [2, 2, 10, 10], (100, 100)) == [0, 2, 7, 10]
    assert warp_box(lambda p: p + 500.0, [2, 2, 10, 10], (100, 100))[2:] == [0, 0]
    with pytest.raises(ValueError, match="infinity"):
        warp_box(lambda p: np.full_like(p, np.inf), [1, 1, 2, 2])


def test_noise_components_switch_without_moving_the_other_draws() -> None:
    image, _ = table_image()
    noise = PERTURBATIONS.get("noise")
    full = noise.run(image, np.random.default_rng(8)).record["drawn"]
    part = noise.run(image, np.random.default_rng(8), {"jpeg": False}).record["drawn"]
    assert "jpeg_quality" not in part and part["applied"] == ["brightness_contrast", "blur",
                                                               "noise"]
    assert {key: full[key] for key in part if key != "applied"} == {
        key: value for key, value in part.items() if key != "applied"}


@pytest.mark.parametrize("name", BUILTIN)
def test_a_14px_cell_stays_legible_at_the_defaults(name: str) -> None:
    """Smoke: the text strokes of a cell stay far darker than its background."""
    image, cell = table_image()
    for seed in range(3):
        result = PERTURBATIONS.get(name).run(image, np.random.default_rng(seed))
        x, y, w, h = warp_box(result.warp, cell, result.image.size)
        grey = np.asarray(result.image.convert("L"), np.float64)[y + 3:y + h - 3, x + 3:x + w - 3]
        background, ink = np.percentile(grey, 60), np.percentile(grey, 2)
        assert background - ink > 90, (seed, background, ink)


def test_augraphy_leaves_no_cache_in_the_working_directory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    image, _ = table_image()
    PERTURBATIONS.get("photo-paper").run(image, np.random.default_rng(1))
    assert list(tmp_path.iterdir()) == []
    assert Path.cwd() == tmp_path


def test_a_missing_library_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "augraphy", None)
    image, _ = table_image()
    with pytest.raises(UserError, match=r"photo-paper.*augraphy.*hopvista\[augment\]"):
        PERTURBATIONS.get("photo-paper").run(image, np.random.default_rng(1))


DIGESTS = """
import hashlib, io, json, random, sys
import numpy as np
from PIL import Image
random.seed(sys.argv[2]); np.random.seed(int(sys.argv[3]))
from hopvista.augment import PERTURBATIONS
image = Image.open(sys.argv[1])
digests = {}
for name in sys.argv[4:]:
    result = PERTURBATIONS.get(name).run(image, np.random.default_rng(123))
    buffer = io.BytesIO()
    Image.fromarray(np.asarray(result.image)).save(buffer, format="PNG")
    digests[name] = hashlib.sha256(buffer.getvalue()).hexdigest()
print(json.dumps(digests))
"""


@pytest.mark.slow
def test_same_bytes_across_processes(tmp_path: Path) -> None:
    image, _ = table_image()
    source = tmp_path / "table.png"
    image.save(source)
    runs = []
    for salt, hash_seed in (("a", "0"), ("b", "12345")):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        done = subprocess.run([sys.executable, "-c", DIGESTS, str(source), salt, hash_seed,
                               *BUILTIN], capture_output=True, text=True, env=env,
                              cwd=tmp_path, timeout=240, check=True)
        runs.append(json.loads(done.stdout))
    here = {name: hashlib.sha256(png(PERTURBATIONS.get(name).run(
        Image.open(source), np.random.default_rng(123)).image)).hexdigest() for name in BUILTIN}
    assert runs[0] == runs[1] == here
    assert sorted(path.name for path in tmp_path.iterdir()) == ["table.png"]
