"""``noise``: blur, sensor noise, JPEG re-encoding and a brightness/contrast change — the
TableVista "Noise" variant. Pixels stay where they are (no warp).

Every value is drawn from the variant's generator in a fixed order whichever components are on,
so switching one component off leaves the others' draws unchanged; the sensor noise is drawn
last, from the state the sample records. The defaults keep a 14 px
table cell readable.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

import numpy as np
from PIL import Image
from pydantic import Field

from hopvista.augment._deps import require
from hopvista.augment._image import (
    brightness_contrast,
    from_rgb,
    gaussian_blur,
    gaussian_noise,
    jpeg,
    to_rgb,
)
from hopvista.augment._params import (
    FloatRange,
    IntRange,
    Params,
    Within,
    generator_at,
    generator_state,
    integer,
    uniform,
)
from hopvista.augment.perturbation import Perturbed, Size, perturbation


class NoiseParams(Params):
    """Ranges the ``noise`` perturbation draws from, and which components apply."""

    blur: bool = Field(True, description="Apply a Gaussian blur.")
    blur_sigma: Annotated[FloatRange, Within(0.0, 3.0)] = Field(
        (0.2, 0.7), description="Blur standard deviation in px, drawn from this range.")
    noise: bool = Field(True, description="Add Gaussian (sensor) noise.")
    noise_sigma: Annotated[FloatRange, Within(0.0, 40.0)] = Field(
        (2.0, 7.0), description="Noise standard deviation in grey levels (0–255).")
    jpeg: bool = Field(True, description="Re-encode as JPEG.")
    jpeg_quality: Annotated[IntRange, Within(5, 100)] = Field(
        (55, 90), description="JPEG quality, drawn from this range (both ends included).")
    brightness_contrast: bool = Field(True, description="Change brightness and contrast.")
    brightness: Annotated[FloatRange, Within(-0.5, 0.5)] = Field(
        (-0.08, 0.08), description="Brightness shift as a fraction of full scale.")
    contrast: Annotated[FloatRange, Within(0.3, 2.0)] = Field(
        (0.85, 1.1), description="Contrast factor around mid-grey.")


def sample_noise(rng: np.random.Generator, size: Size, params: NoiseParams) -> dict[str, Any]:
    """The drawn values of every component (in a fixed order, all always drawn) and the state
    the sensor noise is drawn from."""
    return {"blur_sigma": uniform(rng, params.blur_sigma, 3),
            "noise_sigma": uniform(rng, params.noise_sigma, 3),
            "jpeg_quality": integer(rng, params.jpeg_quality),
            "brightness": uniform(rng, params.brightness, 4),
            "contrast": uniform(rng, params.contrast, 4),
            "noise_state": generator_state(rng)}


def noise_at(strength: float) -> dict[str, Any]:
    """The parameters at ``strength`` (0–1): blur σ 1.5 × s px, noise σ 2 + 18 × s grey
    levels, JPEG quality round(90 − 70 × s), brightness within ±0.15 × s, contrast within
    [1 − 0.4 × s, 1]."""
    s = float(strength)
    return {"blur_sigma": (round(1.5 * s, 3),) * 2, "noise_sigma": (round(2 + 18 * s, 3),) * 2,
            "jpeg_quality": (round(90 - 70 * s),) * 2,
            "brightness": (round(-0.15 * s, 4), round(0.15 * s, 4)),
            "contrast": (round(1 - 0.4 * s, 4), 1.0)}


KEEP = {"brightness_contrast": ("brightness", "contrast"), "blur": ("blur_sigma",),
        "noise": ("noise_sigma",), "jpeg": ("jpeg_quality",)}
"""The drawn values each component records when it is applied."""


@perturbation("noise", NoiseParams, sample_noise, strength=noise_at)
def noise(image: Image.Image, params: NoiseParams, drawn: Mapping[str, Any]) -> Perturbed:
    """Blur, sensor noise, JPEG re-encoding and a brightness/contrast change (no warp)."""
    cv2 = require("cv2", "noise")
    array = to_rgb(image)
    applied: list[str] = []
    if params.brightness_contrast:
        array = brightness_contrast(cv2, array, float(drawn["brightness"]),
                                    float(drawn["contrast"]))
        applied.append("brightness_contrast")
    if params.blur:
        array = gaussian_blur(cv2, array, float(drawn["blur_sigma"]))
        applied.append("blur")
    if params.noise:
        array = gaussian_noise(generator_at(drawn["noise_state"]), array,
                               float(drawn["noise_sigma"]))
        applied.append("noise")
    if params.jpeg:
        array = jpeg(cv2, array, int(drawn["jpeg_quality"]))
        applied.append("jpeg")
    record: dict[str, Any] = {"applied": applied}
    for component in applied:
        record.update({key: drawn[key] for key in KEEP[component]})
    return Perturbed(from_rgb(array), record)
