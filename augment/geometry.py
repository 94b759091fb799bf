"""Point mappings (:data:`~hopvista.augment.perturbation.Warp`) and what boxes become under them.

Coordinates are continuous pixel *edges*: pixel ``(i, j)`` covers ``[i, i+1) x [j, j+1)``, so
a cell box ``[x, y, w, h]`` has corners at ``x`` and ``x + w``. OpenCV's warps work on pixel
*centres* (integer coordinates are centres); :func:`homography_warp` converts between the two.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from hopvista.augment.perturbation import Warp


def as_points(points: np.ndarray | Sequence[Sequence[float]]) -> np.ndarray:
    """``points`` as a float64 ``(N, 2)`` array (raises ``ValueError`` on another shape)."""
    array = np.asarray(points, dtype=np.float64)
    if array.ndim != 2 or array.shape[1] != 2:
        raise ValueError(f"points must be an (N, 2) array of (x, y), got shape {array.shape}")
    return array


def scale_warp(sx: float, sy: float) -> Warp:
    """The warp of a resize by ``(sx, sy)`` (exact for OpenCV's centre-aligned resize)."""
    factors = np.array([sx, sy], dtype=np.float64)

    def warp(points: np.ndarray) -> np.ndarray:
        return as_points(points) * factors

    return warp


def homography_warp(matrix: np.ndarray) -> Warp:
    """The warp of ``cv2.warpPerspective(image, matrix, ...)``: exact, with the half-pixel
    shift between OpenCV's centre coordinates and box edge coordinates."""
    h = np.asarray(matrix, dtype=np.float64).reshape(3, 3).copy()

    def warp(points: np.ndarray) -> np.ndarray:
        centred = as_points(points) - 0.5
        ones = np.ones((centred.shape[0], 1))
        mapped = np.hstack([centred, ones]) @ h.T
        return mapped[:, :2] / mapped[:, 2:3] + 0.5

    return warp


def warp_box(warp: Warp | None, box: Sequence[float],
             size: tuple[int, int] | None = None) -> list[int]:
    """The integer axis-aligned box ``[x, y, w, h]`` holding the image of ``box`` (``[x, y, w,
    h]``) under ``warp``, from its four corners; clipped to ``size = (width, height)`` of the
    output image when given (a box wholly outside becomes one of zero width or height).

    ``warp=None`` (pixels did not move) rounds the box outwards and clips it.
    """
    x, y, w, h = (float(v) for v in box)
    corners = np.array([[x, y], [x + w, y], [x, y + h], [x + w, y + h]], dtype=np.float64)
    moved = corners if warp is None else as_points(warp(corners))
    if not np.all(np.isfinite(moved)):
        raise ValueError(f"the warp sent a corner of box {list(box)} to infinity")
    x0, y0 = (math.floor(v) for v in moved.min(axis=0))
    x1, y1 = (math.ceil(v) for v in moved.max(axis=0))
    if size is not None:
        width, height = size
        x0, x1 = min(max(x0, 0), width), min(max(x1, 0), width)
        y0, y1 = min(max(y0, 0), height), min(max(y1, 0), height)
    return [x0, y0, x1 - x0, y1 - y0]
