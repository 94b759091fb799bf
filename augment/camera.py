"""``camera``: what a phone camera adds to a photo of a document — glare, uneven light,
defocus, motion blur and JPEG artefacts — at one ``strength`` (0–1) that sets every effect's
size (:func:`effect_sizes`); where each falls (the glare's centre, the shadow's outline, the
direction of the shake) is drawn. Pixels stay where they are (no warp).

The effects are albumentations' own functions, called with drawn values (never its
transforms' generators): ``add_sun_flare_overlay`` (RandomSunFlare), ``apply_gaussian_illumination``
(Illumination) and ``add_shadow`` (RandomShadow), ``defocus`` (Defocus), a
``create_motion_kernel`` convolution (MotionBlur) and ``image_compression``
(ImageCompression). The ``photo`` variant applies it after ``photo-screen`` or
``photo-paper``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from typing import Annotated, Any

import numpy as np
from PIL import Image
from pydantic import Field

from hopvista.augment._deps import require
from hopvista.augment._image import from_rgb, to_rgb
from hopvista.augment._params import (
    FloatRange,
    Params,
    Within,
    generator_at,
    generator_state,
    uniform,
)
from hopvista.augment.perturbation import Perturbed, Size, perturbation

GLARE_COLOUR = (255, 255, 246)
"""The glare's colour: a slightly warm white."""


class CameraParams(Params):
    """How strong the camera's effects are, and which apply."""

    strength: float = Field(0.5, ge=0.0, le=1.0, description=(
        "Strength of every effect, 0 (none) to 1 (the strongest; see effect_sizes)."))
    glare: bool = Field(True, description="A bright glare spot (albumentations RandomSunFlare).")
    light: bool = Field(True, description="Uneven light: a lit or dimmed patch and a shadow "
                                          "(Illumination, RandomShadow).")
    defocus: bool = Field(True, description="Out-of-focus blur (Defocus).")
    motion_blur: bool = Field(True, description="Camera shake (MotionBlur).")
    jpeg: bool = Field(True, description="JPEG artefacts (ImageCompression).")
    light_sigma: Annotated[FloatRange, Within(0.05, 1.0)] = Field(
        (0.25, 0.6), description="Spread of the lit or dimmed patch, as a fraction of the "
                                 "image (drawn).")
    shadow_reach: Annotated[FloatRange, Within(0.0, 1.0)] = Field(
        (0.1, 0.45), description="How far the shadow reaches across the image from its side, "
                                 "at either end of its edge (drawn).")


def effect_sizes(strength: float, size: Size) -> dict[str, Any]:
    """Each effect's size at ``strength`` (0–1) for an image of ``size = (width, height)``:

    - ``glare_radius`` px: 0.5 × strength × the shorter side; its brightest point reaches
      ``glare_opacity`` 0.3 + 0.7 × strength;
    - ``light``: the lit or dimmed patch changes brightness by up to 0.4 × strength,
      ``shadow`` darkens by 0.5 × strength;
    - ``defocus_radius`` px: round(2 × strength) (0: sharp), alias blur 0.1 + 0.4 × strength;
    - ``motion_kernel`` px: 2 × round(2 × strength) + 1 (1: still);
    - ``jpeg_quality``: round(95 − 80 × strength).
    """
    s = float(strength)
    return {"glare_radius": round(0.5 * s * min(size)),
            "glare_opacity": round(0.3 + 0.7 * s, 3),
            "light": round(0.4 * s, 3),
            "shadow": round(0.5 * s, 3),
            "defocus_radius": round(2 * s),
            "alias_blur": round(0.1 + 0.4 * s, 3),
            "motion_kernel": 2 * round(2 * s) + 1,
            "jpeg_quality": round(95 - 80 * s)}


def sample_camera(rng: np.random.Generator, size: Size, params: CameraParams) -> dict[str, Any]:
    """Where each effect falls, in a fixed order whichever effects are on: the glare's centre
    and streak, the light's centre, spread and sign, the shadow's side and reach, the
    shake's angle; and the state the glare's streak circles are drawn from."""
    width, height = size
    drawn: dict[str, Any] = {
        "glare_center": [uniform(rng, (0.0, 1.0), 3), uniform(rng, (0.0, 1.0), 3)],
        "glare_angle": uniform(rng, (0.0, 360.0), 1),
        "light_center": [uniform(rng, (0.0, 1.0), 3), uniform(rng, (0.0, 1.0), 3)],
        "light_sigma": uniform(rng, params.light_sigma, 3),
        "light_sign": 1 if rng.uniform() < 0.5 else -1,
        "shadow_side": int(rng.integers(0, 4)),
        "shadow_reach": [uniform(rng, params.shadow_reach, 3),
                         uniform(rng, params.shadow_reach, 3)],
        "motion_angle": uniform(rng, (0.0, 180.0), 1),
    }
    return {**drawn, **effect_sizes(params.strength, size), "glare_state": generator_state(rng)}


def _glare(fpixel: Any, array: np.ndarray, drawn: Mapping[str, Any]) -> np.ndarray:
    """A glare spot of the drawn radius and opacity, with RandomSunFlare's streak of small
    circles along the drawn angle."""
    radius = int(drawn["glare_radius"])
    if radius < 10:
        return array
    height, width = array.shape[:2]
    centre = (int(drawn["glare_center"][0] * width), int(drawn["glare_center"][1] * height))
    picker = random.Random(int(generator_at(drawn["glare_state"]).integers(0, 2**32)))
    angle = math.radians(float(drawn["glare_angle"]))
    most = max(2, int(height * 0.01))
    # Every circle's alpha is the opacity / 5: the overlay's brightest point is then the
    # drawn opacity (add_sun_flare_overlay makes it 5 × their mean alpha).
    alpha = float(drawn["glare_opacity"]) / 5
    circles = []
    for _ in range(6):
        t = picker.uniform(-centre[0], width - centre[0])
        point = (int(centre[0] + t * math.cos(angle)), int(centre[1] + t * math.sin(angle)))
        circles.append((alpha, point, picker.randint(1, most) ** 3,
                        tuple(picker.randint(c - 40, c) for c in GLARE_COLOUR)))
    flared: np.ndarray = fpixel.add_sun_flare_overlay(array, centre, radius, GLARE_COLOUR,
                                                      circles)
    return flared


def _shadow_outline(drawn: Mapping[str, Any], width: int, height: int) -> np.ndarray:
    """The shadow polygon: the band along one side (0 top, 1 right, 2 bottom, 3 left) whose
    slanted inner edge reaches the two drawn fractions of the image across, as the shadow of
    a phone or a hand falls."""
    side = int(drawn["shadow_side"])
    near, far = (float(v) for v in drawn["shadow_reach"])
    bands: dict[int, list[tuple[float, float]]] = {
        0: [(0, 0), (1, 0), (1, far), (0, near)],
        1: [(1, 0), (1, 1), (1 - far, 1), (1 - near, 0)],
        2: [(0, 1), (1, 1), (1, 1 - far), (0, 1 - near)],
        3: [(0, 0), (0, 1), (far, 1), (near, 0)]}
    return np.array([[round(x * width), round(y * height)] for x, y in bands[side]],
                    dtype=np.int32)


def _light(fpixel: Any, array: np.ndarray, drawn: Mapping[str, Any]) -> np.ndarray:
    """A lit or dimmed patch (Gaussian illumination) and a shadow."""
    height, width = array.shape[:2]
    if drawn["light"] > 0:
        lit: np.ndarray = fpixel.apply_gaussian_illumination(
            array, float(drawn["light"]) * int(drawn["light_sign"]),
            tuple(float(v) for v in drawn["light_center"]), float(drawn["light_sigma"]))
        array = lit
    if drawn["shadow"] > 0:
        shaded: np.ndarray = fpixel.add_shadow(array, [_shadow_outline(drawn, width, height)],
                                               np.array([float(drawn["shadow"])]))
        array = shaded
    return array


def _blur(fblur: Any, fpixel: Any, array: np.ndarray, drawn: Mapping[str, Any],
          params: CameraParams) -> np.ndarray:
    """Defocus, then camera shake."""
    if params.defocus and drawn["defocus_radius"] > 0:
        array = fblur.defocus(array, int(drawn["defocus_radius"]), float(drawn["alias_blur"]))
    if params.motion_blur and drawn["motion_kernel"] > 1:
        kernel = fblur.create_motion_kernel(int(drawn["motion_kernel"]),
                                            float(drawn["motion_angle"]), 0.0, False,
                                            random.Random(0))  # unused: no shift allowed
        array = fpixel.convolve(array, kernel=kernel / kernel.sum())
    return array


APPLIED = {"glare": ("glare_center", "glare_angle", "glare_radius", "glare_opacity"),
           "light": ("light_center", "light_sigma", "light_sign", "light", "shadow_side",
                     "shadow_reach", "shadow"),
           "defocus": ("defocus_radius", "alias_blur"),
           "motion_blur": ("motion_kernel", "motion_angle"),
           "jpeg": ("jpeg_quality",)}
"""The drawn values each effect records when it is applied."""


@perturbation("camera", CameraParams, sample_camera, strength=lambda s: {"strength": s})
def camera(image: Image.Image, params: CameraParams, drawn: Mapping[str, Any]) -> Perturbed:
    """Glare, uneven light, defocus, motion blur and JPEG artefacts at one strength."""
    fpixel = require("albumentations.augmentations.pixel.functional", "camera")
    fblur = require("albumentations.augmentations.blur.functional", "camera")
    array = to_rgb(image)
    if params.glare:
        array = _glare(fpixel, array, drawn)
    if params.light:
        array = _light(fpixel, array, drawn)
    array = _blur(fblur, fpixel, array, drawn, params)
    if params.jpeg:
        array = fpixel.image_compression(array, int(drawn["jpeg_quality"]), ".jpg")
    applied = [name for name in APPLIED if getattr(params, name)]
    record: dict[str, Any] = {"strength": params.strength, "applied": applied}
    for name in applied:
        record.update({key: drawn[key] for key in APPLIED[name]})
    return Perturbed(from_rgb(array), record)
