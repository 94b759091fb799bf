"""``elastic``: a mild, smooth elastic warp (TableVista's "Structural" variant) that keeps text
readable.

The displacement field ``d`` is a coarse grid of Gaussian draws (from the generator state the
sample records after the amplitude and spacing), scaled so that its largest
component is the drawn amplitude, and upsampled (bicubic) to the image: output pixel ``q``
shows input point ``q + d(q)``. The warp carries an input point ``p`` to the output point ``q``
solving ``q + d(q) = p`` by fixed-point iteration (``q <- p - d(q)``, eight rounds, the field
sampled bilinearly). The field's slope stays far below 1 within the parameter bounds, so the
iteration contracts: the residual ``|q + d(q) - p|`` is below 0.01 px (the tests measure it);
points outside the image use the field of the nearest edge.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import ModuleType
from typing import Annotated, Any

import numpy as np
from PIL import Image
from pydantic import Field

from hopvista.augment._deps import require
from hopvista.augment._image import from_rgb, read_rgb
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
from hopvista.augment.geometry import as_points
from hopvista.augment.perturbation import Perturbed, Size, Warp, perturbation

ITERATIONS = 8


class ElasticParams(Params):
    """How far and how smoothly the elastic warp moves pixels."""

    amplitude: Annotated[FloatRange, Within(0.0, 6.0)] = Field(
        (1.0, 2.5), description="Largest displacement in px, drawn from this range.")
    spacing: Annotated[IntRange, Within(40, 400)] = Field(
        (70, 120), description="Distance in px between the field's control points (larger is "
                               "smoother), drawn from this range.")


def displacement(cv2: ModuleType, rng: np.random.Generator, size: tuple[int, int],
                 amplitude: float, spacing: int) -> np.ndarray:
    """The field ``(H, W, 2)`` float32 of ``(dx, dy)`` for an image of ``size = (W, H)``."""
    width, height = size
    grid = (height // spacing + 3, width // spacing + 3)
    coarse = rng.standard_normal((*grid, 2))
    peak = float(np.abs(coarse).max())
    coarse = (coarse * (amplitude / peak if peak > 0 else 0.0)).astype(np.float32)
    field: np.ndarray = cv2.resize(coarse, (width, height), interpolation=cv2.INTER_CUBIC)
    return field


def _sample(field: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Bilinear samples of ``field`` at ``points`` (pixel-centre coordinates, clamped)."""
    height, width = field.shape[:2]
    x = np.clip(points[:, 0], 0, width - 1)
    y = np.clip(points[:, 1], 0, height - 1)
    x0 = np.minimum(np.floor(x).astype(np.intp), max(width - 2, 0))
    y0 = np.minimum(np.floor(y).astype(np.intp), max(height - 2, 0))
    x1, y1 = np.minimum(x0 + 1, width - 1), np.minimum(y0 + 1, height - 1)
    fx, fy = (x - x0)[:, None], (y - y0)[:, None]
    top = field[y0, x0] * (1 - fx) + field[y0, x1] * fx
    bottom = field[y1, x0] * (1 - fx) + field[y1, x1] * fx
    sampled: np.ndarray = top * (1 - fy) + bottom * fy
    return sampled.astype(np.float64)


def field_warp(field: np.ndarray) -> Warp:
    """The warp (input point to output point) of the output-to-input field ``field``."""
    def warp(points: np.ndarray) -> np.ndarray:
        target = as_points(points) - 0.5  # box edges to pixel centres
        moved = target.copy()
        for _ in range(ITERATIONS):
            moved = target - _sample(field, moved)
        return moved + 0.5

    return warp


def map_warp(maps: np.ndarray) -> Warp:
    """:func:`field_warp` of the absolute map ``maps`` (output pixel → the input point it
    shows): its displacement at a point is the bilinear sample of the map less the (clamped)
    point itself, exactly, since bilinear interpolation reproduces the coordinate ramp."""
    height, width = maps.shape[:2]

    def displacement_at(points: np.ndarray) -> np.ndarray:
        clamped = np.stack([np.clip(points[:, 0], 0, width - 1),
                            np.clip(points[:, 1], 0, height - 1)], axis=1)
        moved: np.ndarray = _sample(maps, points) - clamped
        return moved

    def warp(points: np.ndarray) -> np.ndarray:
        target = as_points(points) - 0.5
        moved = target.copy()
        for _ in range(ITERATIONS):
            moved = target - displacement_at(moved)
        return moved + 0.5

    return warp


def sample_elastic(rng: np.random.Generator, size: Size,
                   params: ElasticParams) -> dict[str, Any]:
    """The amplitude and spacing, and the state the field's control points are drawn from."""
    return {"amplitude": uniform(rng, params.amplitude, 3),
            "spacing": integer(rng, params.spacing),
            "field_state": generator_state(rng)}


def elastic_at(strength: float) -> dict[str, Any]:
    """The parameters at ``strength`` (0–1): the largest displacement 6 × s px."""
    return {"amplitude": (round(6 * float(strength), 3),) * 2}


@perturbation("elastic", ElasticParams, sample_elastic, strength=elastic_at)
def elastic(image: Image.Image, params: ElasticParams, drawn: Mapping[str, Any]) -> Perturbed:
    """A mild smooth elastic warp; the warp follows the displacement field."""
    cv2 = require("cv2", "elastic")
    amplitude, spacing = float(drawn["amplitude"]), int(drawn["spacing"])
    field = displacement(cv2, generator_at(drawn["field_state"]), image.size, amplitude,
                         spacing)
    width, height = image.size
    # The field becomes the absolute map (x + dx, y + dy) in place: one two-channel map and no
    # full-size temporaries (the same coordinates as separate x and y maps, so the same pixels).
    field[..., 0] += np.arange(width, dtype=np.float32)[None, :]
    field[..., 1] += np.arange(height, dtype=np.float32)[:, None]
    array = cv2.remap(read_rgb(image), field, None, interpolation=cv2.INTER_LINEAR,
                      borderMode=cv2.BORDER_REPLICATE)
    record = {"amplitude": drawn["amplitude"], "spacing": drawn["spacing"]}
    return Perturbed(from_rgb(array), record, map_warp(field))
