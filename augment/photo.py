"""``photo-screen`` and ``photo-paper``: a phone photo of the table on a screen or on paper
(TableVista's "Photo" variant).

Both place the document on a background (a screen bezel, a desk) under a drawn perspective
(corner jitter, rotation), so the output is larger than the input; the warp is that homography,
exact. Then a lighting gradient (albumentations' linear illumination), camera blur and sensor
noise, and JPEG. ``photo-screen`` adds a moiré pattern; ``photo-paper`` prints the document on
augraphy paper first (ink bleed, paper colour and texture, see :mod:`._paper`) and casts a soft
shadow.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from types import ModuleType
from typing import Annotated, Any

import numpy as np
from PIL import Image
from pydantic import Field

from hopvista.augment._deps import require
from hopvista.augment._image import from_rgb, gaussian_blur, gaussian_noise, jpeg, to_rgb
from hopvista.augment._paper import paper
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
from hopvista.augment.geometry import homography_warp
from hopvista.augment.perturbation import Perturbed, Size, perturbation


class PhotoParams(Params):
    """What both photo perturbations draw: camera pose, lighting, blur, noise, JPEG."""

    margin: Annotated[FloatRange, Within(0.0, 0.3)] = Field(
        (0.03, 0.08), description="Background around the document, as a fraction of its "
                                  "longer side.")
    tilt: Annotated[FloatRange, Within(0.0, 0.15)] = Field(
        (0.01, 0.04), description="Perspective: how far each corner moves, as a fraction of "
                                  "the document's shorter side.")
    rotation: Annotated[FloatRange, Within(-15.0, 15.0)] = Field(
        (-2.5, 2.5), description="In-plane rotation in degrees.")
    lighting: Annotated[FloatRange, Within(0.0, 0.5)] = Field(
        (0.05, 0.18), description="Strength of the linear lighting gradient (0 = none).")
    blur_sigma: Annotated[FloatRange, Within(0.0, 3.0)] = Field(
        (0.3, 0.7), description="Camera blur standard deviation in px.")
    noise_sigma: Annotated[FloatRange, Within(0.0, 30.0)] = Field(
        (2.0, 5.0), description="Sensor noise standard deviation in grey levels.")
    jpeg_quality: Annotated[IntRange, Within(5, 100)] = Field(
        (70, 90), description="JPEG quality of the saved photo.")


class ScreenParams(PhotoParams):
    """``photo-screen``: the camera's parameters plus the screen's bezel and moiré."""

    bezel: Annotated[IntRange, Within(0, 255)] = Field(
        (10, 50), description="Grey level of the bezel around the screen.")
    moire_amplitude: Annotated[FloatRange, Within(0.0, 0.4)] = Field(
        (0.03, 0.08), description="Depth of the moiré bands (fraction of brightness).")
    moire_period: Annotated[FloatRange, Within(2.0, 60.0)] = Field(
        (6.0, 14.0), description="Distance between moiré bands in px.")


class PaperParams(PhotoParams):
    """``photo-paper``: the camera's parameters plus ink, paper, desk and shadow."""

    desk: Annotated[IntRange, Within(0, 255)] = Field(
        (70, 170), description="Grey level of the desk around the sheet (tinted warm).")
    shadow_opacity: Annotated[FloatRange, Within(0.0, 0.9)] = Field(
        (0.1, 0.3), description="Darkness of the soft shadow over part of the photo.")
    ink_bleed: Annotated[FloatRange, Within(0.0, 1.0)] = Field(
        (0.2, 0.5), description="augraphy InkBleed intensity.")
    paper_saturation: Annotated[IntRange, Within(0, 255)] = Field(
        (5, 25), description="Paper colour saturation (augraphy ColorPaper, HSV 0-255).")
    texture_sigma: Annotated[IntRange, Within(0, 20)] = Field(
        (2, 5), description="Paper noise texture strength (augraphy NoiseTexturize sigma).")


def _pose(rng: np.random.Generator, params: PhotoParams, size: Size) -> dict[str, Any]:
    """Draw the pose: margin, tilt, rotation, where the document's corners land (inside the
    margin) and the output size."""
    width, height = size
    margin = uniform(rng, params.margin, 4)
    tilt = uniform(rng, params.tilt, 4)
    rotation = uniform(rng, params.rotation, 3)
    jitter = rng.uniform(-1.0, 1.0, (4, 2)) * tilt * min(width, height)
    quad = _corners(size) + jitter - [width / 2, height / 2]
    angle = math.radians(rotation)
    turn = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])
    pad = round(margin * max(width, height))
    quad = quad @ turn.T
    quad = np.round(quad - quad.min(axis=0) + pad, 2)
    out = (math.ceil(quad[:, 0].max()) + pad, math.ceil(quad[:, 1].max()) + pad)
    return {"margin": margin, "tilt": tilt, "rotation": rotation,
            "corners": quad.tolist(), "size": list(out)}


def _corners(size: Size) -> np.ndarray:
    """The corners of an image of ``size``, clockwise from the top left (edge coordinates)."""
    width, height = size
    return np.array([[0, 0], [width, 0], [width, height], [0, height]], dtype=np.float64)


def _homography(cv2: ModuleType, size: Size, drawn: Mapping[str, Any]) -> np.ndarray:
    """The homography (OpenCV pixel-centre convention) taking the document of ``size`` onto
    the drawn corners."""
    quad = np.asarray(drawn["corners"], dtype=np.float64)
    edges = cv2.getPerspectiveTransform(_corners(size).astype(np.float32),
                                        quad.astype(np.float32))
    shift = np.array([[1, 0, 0.5], [0, 1, 0.5], [0, 0, 1]])
    centres: np.ndarray = np.linalg.inv(shift) @ np.asarray(edges, dtype=np.float64) @ shift
    return centres


def _look(rng: np.random.Generator, params: PhotoParams) -> dict[str, Any]:
    """Draw lighting, blur, noise and JPEG quality."""
    return {"lighting": uniform(rng, params.lighting, 4),
            "lighting_angle": uniform(rng, (0.0, 360.0), 2),
            "blur_sigma": uniform(rng, params.blur_sigma, 3),
            "noise_sigma": uniform(rng, params.noise_sigma, 3),
            "jpeg_quality": integer(rng, params.jpeg_quality)}


def _finish(cv2: ModuleType, array: np.ndarray, drawn: Mapping[str, Any]) -> np.ndarray:
    """Lighting gradient, camera blur, sensor noise (from the drawn state), JPEG."""
    if drawn["lighting"] > 0:
        fpixel = require("albumentations.augmentations.pixel.functional", "photo")
        array = fpixel.apply_linear_illumination(array, float(drawn["lighting"]),
                                                 float(drawn["lighting_angle"]))
    array = gaussian_blur(cv2, array, float(drawn["blur_sigma"]))
    array = gaussian_noise(generator_at(drawn["noise_state"]), array,
                           float(drawn["noise_sigma"]))
    return jpeg(cv2, array, int(drawn["jpeg_quality"]))


def _recorded(drawn: Mapping[str, Any]) -> dict[str, Any]:
    """What a photo records: every drawn value but the sensor noise's generator state."""
    return {key: value for key, value in drawn.items() if key != "noise_state"}


def moire(array: np.ndarray, amplitude: float, period: float, angle: float,
          phase: float) -> np.ndarray:
    """Darken ``array`` by wavy colour-fringed bands: ``amplitude`` deep, ``period`` px apart,
    running at ``angle`` degrees."""
    height, width = array.shape[:2]
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
    theta = math.radians(angle)
    along = xs * math.cos(theta) + ys * math.sin(theta)
    across = -xs * math.sin(theta) + ys * math.cos(theta)
    u = along + 1.5 * period * np.sin(across * np.float32(2 * math.pi / (25 * period)))
    bands = [1 - amplitude * (0.5 + 0.5 * np.cos(u * np.float32(2 * math.pi / period)
                                                 + np.float32(phase + 0.7 * c)))
             for c in range(3)]
    shaded = array.astype(np.float32) * np.stack(bands, axis=2)
    result: np.ndarray = np.clip(np.rint(shaded), 0, 255).astype(np.uint8)
    return result


def camera_at(strength: float) -> dict[str, Any]:
    """What both photos take at ``strength`` (0–1): corners moved by 0.1 × s of the shorter
    side, rotation within ±10 × s degrees, lighting gradient 0.4 × s, blur σ 2 × s px, noise
    σ 20 × s grey levels, JPEG quality round(95 − 80 × s)."""
    s = float(strength)
    return {"tilt": (round(0.1 * s, 4),) * 2, "rotation": (round(-10 * s, 3), round(10 * s, 3)),
            "lighting": (round(0.4 * s, 4),) * 2, "blur_sigma": (round(2 * s, 3),) * 2,
            "noise_sigma": (round(20 * s, 3),) * 2, "jpeg_quality": (round(95 - 80 * s),) * 2}


def screen_at(strength: float) -> dict[str, Any]:
    """``photo-screen`` at ``strength`` (0–1): :func:`camera_at` and moiré 0.3 × s deep."""
    return camera_at(strength) | {"moire_amplitude": (round(0.3 * float(strength), 4),) * 2}


def paper_at(strength: float) -> dict[str, Any]:
    """``photo-paper`` at ``strength`` (0–1): :func:`camera_at`, a shadow 0.8 × s dark and ink
    bleed 0.2 + 0.8 × s."""
    s = float(strength)
    return camera_at(s) | {"shadow_opacity": (round(0.8 * s, 4),) * 2,
                           "ink_bleed": (round(0.2 + 0.8 * s, 3),) * 2}


def sample_screen(rng: np.random.Generator, size: Size,
                  params: ScreenParams) -> dict[str, Any]:
    """Pose, bezel, moiré, lighting, blur, noise and JPEG, in that order."""
    pose = _pose(rng, params, size)
    screen = {"bezel": integer(rng, params.bezel),
              "moire_amplitude": uniform(rng, params.moire_amplitude, 4),
              "moire_period": uniform(rng, params.moire_period, 3),
              "moire_angle": uniform(rng, (0.0, 180.0), 2),
              "moire_phase": uniform(rng, (0.0, 2 * math.pi), 4)}
    look = _look(rng, params)
    return {**pose, **screen, **look, "noise_state": generator_state(rng)}


@perturbation("photo-screen", ScreenParams, sample_screen, strength=screen_at)
def photo_screen(image: Image.Image, params: ScreenParams,
                 drawn: Mapping[str, Any]) -> Perturbed:
    """A phone photo of the table on a screen: tilt, bezel, moiré, lighting, blur, noise, JPEG."""
    cv2 = require("cv2", "photo-screen")
    matrix = _homography(cv2, image.size, drawn)
    out = (int(drawn["size"][0]), int(drawn["size"][1]))
    array = cv2.warpPerspective(to_rgb(image), matrix, out, flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_CONSTANT,
                                borderValue=(drawn["bezel"],) * 3)
    array = moire(array, drawn["moire_amplitude"], drawn["moire_period"],
                  drawn["moire_angle"], drawn["moire_phase"])
    array = _finish(cv2, array, drawn)
    return Perturbed(from_rgb(array), _recorded(drawn), homography_warp(matrix))


def soft_shadow(cv2: ModuleType, array: np.ndarray, side: int, depth: float, slant: float,
                opacity: float) -> np.ndarray:
    """Darken the band along one ``side`` (0 top, 1 right, 2 bottom, 3 left) reaching ``depth``
    of the image across, its edge slanted by ``slant`` and blurred."""
    height, width = array.shape[:2]
    across = height if side in (0, 2) else width
    along = width if side in (0, 2) else height
    reach = [depth * across, (depth + slant) * across]
    edge = [[0, 0], [along, 0], [along, reach[1]], [0, reach[0]]]
    points = np.array(edge, dtype=np.float64)
    if side == 1:
        points = np.column_stack([width - points[:, 1], points[:, 0]])
    elif side == 2:
        points = np.column_stack([points[:, 0], height - points[:, 1]])
    elif side == 3:
        points = points[:, ::-1]
    mask = np.zeros((height, width), dtype=np.float32)
    cv2.fillPoly(mask, [np.round(points).astype(np.int32)], 1.0)
    mask = cv2.GaussianBlur(mask, (0, 0), sigmaX=0.04 * max(width, height))
    shaded = array.astype(np.float32) * (1 - opacity * mask)[..., None]
    result: np.ndarray = np.clip(np.rint(shaded), 0, 255).astype(np.uint8)
    return result


def sample_paper(rng: np.random.Generator, size: Size,
                 params: PaperParams) -> dict[str, Any]:
    """Pose, desk, ink, paper, shadow, lighting, blur, noise and JPEG, in that order."""
    pose = _pose(rng, params, size)
    grey = integer(rng, params.desk)
    desk = [min(255, grey + 25), min(255, grey + 8), max(0, grey - 15)]  # a warm tint
    sheet: dict[str, Any] = {
        "desk": desk,
        "ink_bleed": uniform(rng, params.ink_bleed, 3),
        "ink_severity": uniform(rng, (0.2, 0.4), 3),
        "paper_hue": integer(rng, (15, 35)),
        "paper_saturation": integer(rng, params.paper_saturation),
        "texture_sigma": integer(rng, params.texture_sigma),
        "texture_turbulence": integer(rng, (3, 5)),
        "paper_brightness": uniform(rng, (0.92, 0.99), 3),
        "augraphy_seed": integer(rng, (1, 2**32 - 1)),
        "shadow_side": integer(rng, (0, 3)),
        "shadow_depth": uniform(rng, (0.1, 0.4), 3),
        "shadow_slant": uniform(rng, (-0.1, 0.1), 3),
        "shadow_opacity": uniform(rng, params.shadow_opacity, 3)}
    look = _look(rng, params)
    return {**pose, **sheet, **look, "noise_state": generator_state(rng)}


@perturbation("photo-paper", PaperParams, sample_paper, strength=paper_at)
def photo_paper(image: Image.Image, params: PaperParams,
                drawn: Mapping[str, Any]) -> Perturbed:
    """A phone photo of the table printed on paper: augraphy ink and paper, tilt, desk, soft
    shadow, lighting, blur, noise, JPEG."""
    cv2 = require("cv2", "photo-paper")
    matrix = _homography(cv2, image.size, drawn)
    out = (int(drawn["size"][0]), int(drawn["size"][1]))
    array = paper(to_rgb(image), drawn)
    array = cv2.warpPerspective(array, matrix, out, flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_CONSTANT, borderValue=tuple(drawn["desk"]))
    array = soft_shadow(cv2, array, drawn["shadow_side"], drawn["shadow_depth"],
                        drawn["shadow_slant"], drawn["shadow_opacity"])
    array = _finish(cv2, array, drawn)
    return Perturbed(from_rgb(array), _recorded(drawn), homography_warp(matrix))
