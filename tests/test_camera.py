"""Photo variants carry a camera's effects — glare, uneven light, defocus, motion blur, JPEG
artefacts — at a documented strength, recorded in the variant, the same bytes from the same
command; every perturbation maps a strength in [0, 1] to its parameters."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
from PIL import Image

from hopvista.augment import PERTURBATIONS, VARIANTS
from hopvista.augment.camera import effect_sizes
from hopvista.augment.recipes import CAMERA_STRENGTH, base_of_item
from hopvista.cli.main import main
from hopvista.model import Item
from hopvista.rng import Streams
from hopvista.variants.maker import perturb
from tests.test_chart_markup import GOLDEN
from tests.test_perturbation_replay import table_png

STREAMS = Streams(5, "financial-s5-000003", "photo")
EFFECTS = ("glare", "light", "defocus", "motion_blur", "jpeg")


def _pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(np.int16)


def _camera(strength: float, **only: bool) -> tuple[bytes, dict[str, object]]:
    out, records, _ = perturb(table_png(), (("camera", {"strength": strength, **only}),),
                              STREAMS, "table")
    return out, records[0]


def test_the_camera_at_a_strength_gives_the_same_bytes_and_records_each_effect() -> None:
    first, record = _camera(0.5)
    again, _ = _camera(0.5)
    assert first == again
    drawn = json.loads(json.dumps(record))["drawn"]
    assert drawn["strength"] == 0.5 and drawn["applied"] == list(EFFECTS)
    sizes = effect_sizes(0.5, Image.open(io.BytesIO(table_png())).size)
    assert {k: drawn[k] for k in sizes} == sizes
    assert "glare_state" not in drawn  # the stream gives it back on replay


def test_the_camera_bites_harder_with_strength_and_every_effect_changes_the_image() -> None:
    plain = _pixels(table_png())
    changes = [float(np.abs(_pixels(_camera(s)[0]) - plain).mean()) for s in (0.25, 0.5, 1.0)]
    assert changes == sorted(changes) and changes[0] > 0
    for effect in EFFECTS:
        alone = {e: e == effect for e in EFFECTS}
        out, record = _camera(1.0, **alone)
        assert record["drawn"]["applied"] == [effect]  # type: ignore[index]
        assert np.abs(_pixels(out) - plain).any(), effect
    assert np.array_equal(_pixels(_camera(0.0, jpeg=False)[0]), plain)


def test_a_photo_variant_adds_the_camera_after_the_photo_and_effects_0_leaves_it_out() -> None:
    base = base_of_item(Item.model_validate_json(GOLDEN.read_text().splitlines()[0]))
    recipe = VARIANTS.get("photo")
    plan = recipe.plan(base, STREAMS, recipe.parse({"surface": "screen"}))
    assert plan.table_perturbations == (("photo-screen", {}),
                                        ("camera", {"strength": CAMERA_STRENGTH}))
    assert plan.chart_perturbations == plan.table_perturbations
    plain = recipe.plan(base, STREAMS, recipe.parse({"surface": "screen", "effects": 0}))
    assert plain.table_perturbations == (("photo-screen", {}),)


def test_a_photo_strength_outside_0_to_1_is_one_line_naming_it(
        tmp_path: object, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["augment", str(GOLDEN.parent), "--variants", "photo:effects=1.5",
                 "--out", str(tmp_path)]) == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1 and "effects" in error[0] and error[0].startswith("gen: error:")


@pytest.mark.parametrize("name", sorted(PERTURBATIONS.names()))
def test_every_perturbation_has_a_strength_scale(name: str) -> None:
    chosen = PERTURBATIONS.get(name)
    for strength in (0.0, 0.5, 1.0):
        assert chosen.at_strength(strength) is not None  # valid parameters
    with pytest.raises(ValueError, match="strength"):
        chosen.at_strength(1.5)
