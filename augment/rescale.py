"""``rescale``: resize the image by a drawn factor with Pillow (Lanczos down, bicubic up), with
the exact warp (Pillow's resampling is centre-aligned, so box edges scale by the size ratio)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

import numpy as np
from PIL import Image
from pydantic import Field

from hopvista.augment._params import FloatRange, Params, Within, uniform
from hopvista.augment.geometry import scale_warp
from hopvista.augment.perturbation import Perturbed, Size, perturbation


class RescaleParams(Params):
    """The range the scale factor is drawn from."""

    factor: Annotated[FloatRange, Within(0.25, 4.0)] = Field(
        (0.7, 1.3), description="Scale factor (both axes), drawn from this range.")


def sample_rescale(rng: np.random.Generator, size: Size,
                   params: RescaleParams) -> dict[str, Any]:
    """The scale factor."""
    return {"factor": uniform(rng, params.factor, 4)}


def rescale_at(strength: float) -> dict[str, Any]:
    """The parameters at ``strength`` (0–1): the image shrunk by the factor 1 − 0.75 × s."""
    return {"factor": (round(1 - 0.75 * float(strength), 4),) * 2}


@perturbation("rescale", RescaleParams, sample_rescale, strength=rescale_at)
def rescale(image: Image.Image, params: RescaleParams, drawn: Mapping[str, Any]) -> Perturbed:
    """Resize by a drawn factor; the warp scales points by the exact size ratio."""
    factor = float(drawn["factor"])
    width, height = image.size
    size = (max(1, round(width * factor)), max(1, round(height * factor)))
    resample = Image.Resampling.LANCZOS if factor < 1 else Image.Resampling.BICUBIC
    rgb = image if image.mode == "RGB" else image.convert("RGB")
    warp = scale_warp(size[0] / width, size[1] / height)
    return Perturbed(rgb.resize(size, resample), {"factor": drawn["factor"], "size": list(size)},
                     warp)
