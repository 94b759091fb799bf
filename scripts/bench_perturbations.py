"""Benchmark the registered perturbations against the same library calls in a bare loop.

On one realistic table image (800x400, 14 px text, drawn with PIL) each perturbation runs
``--count`` times through the registry (``Perturbation.run``: validation, drawing from the
generator, PIL conversions, the record, the warp) and ``--count`` times as a bare loop making
the same OpenCV / albumentations / augraphy calls with the same parameters (the values one
registered run drew), the two interleaved in ``--rounds`` rounds so both see the same machine.
The best round of each is reported, with the ratio registered / bare (target: at least 0.8).

    python scripts/bench_perturbations.py --count 20 --rounds 3
"""

from __future__ import annotations

import argparse
import math
import os
import random
import tempfile
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from hopvista.augment import PERTURBATIONS
from hopvista.augment.photo import moire, soft_shadow

os.environ.setdefault("NO_ALBUMENTATIONS_UPDATE", "1")
import albumentations.augmentations.pixel.functional as fpixel  # noqa: E402
import augraphy  # noqa: E402
import cv2  # noqa: E402

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"

Bare = Callable[[Any, dict[str, Any], np.random.Generator], Any]
"""``bare(input, drawn, rng)``: an RGB array in and out (a PIL image for ``rescale``)."""


def table(width: int = 800, height: int = 400) -> Image.Image:
    """A gridded 12 x 6 table of figures with 14 px text."""
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    try:
        font: ImageFont.FreeTypeFont | ImageFont.ImageFont = ImageFont.truetype(FONT, 14)
    except OSError:
        font = ImageFont.load_default()
    rows, cols = 12, 6
    cell_w, cell_h = (width - 20) // cols, (height - 20) // rows
    for row in range(rows):
        for col in range(cols):
            x, y = 10 + col * cell_w, 10 + row * cell_h
            draw.rectangle([x, y, x + cell_w, y + cell_h], outline="black",
                           fill="#eef2f7" if row == 0 else None)
            figure = f"{(row * 7919 + col * 104729) % 99999:,}.{row}"
            text = f"FY{2019 + col}" if row == 0 else figure
            draw.text((x + 8, y + 8), text, fill="black", font=font)
    return image


def _jpeg(array: np.ndarray, quality: int) -> np.ndarray:
    _, encoded = cv2.imencode(".jpg", cv2.cvtColor(array, cv2.COLOR_RGB2BGR),
                              [int(cv2.IMWRITE_JPEG_QUALITY), quality])
    return cv2.cvtColor(cv2.imdecode(encoded, cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)


def _noise(array: np.ndarray, sigma: float, rng: np.random.Generator) -> np.ndarray:
    noisy = array.astype(np.float32) + rng.standard_normal(array.shape, np.float32) * sigma
    return np.clip(np.rint(noisy), 0, 255).astype(np.uint8)


def bare_noise(array: np.ndarray, d: dict[str, Any], rng: np.random.Generator) -> np.ndarray:
    """LUT brightness/contrast, Gaussian blur, Gaussian noise, JPEG."""
    levels = np.arange(256, dtype=np.float64)
    lut = np.clip(np.rint((levels - 128) * d["contrast"] + 128 + d["brightness"] * 255), 0, 255)
    array = cv2.LUT(array, lut.astype(np.uint8))
    array = cv2.GaussianBlur(array, (0, 0), d["blur_sigma"], borderType=cv2.BORDER_REPLICATE)
    return _jpeg(_noise(array, d["noise_sigma"], rng), d["jpeg_quality"])


def bare_rescale(image: Image.Image, d: dict[str, Any], rng: np.random.Generator) -> Image.Image:
    """One Pillow resize (of the PIL image, as the perturbation does)."""
    flag = Image.Resampling.LANCZOS if d["factor"] < 1 else Image.Resampling.BICUBIC
    return image.resize(tuple(d["size"]), flag)


def bare_elastic(array: np.ndarray, d: dict[str, Any], rng: np.random.Generator) -> np.ndarray:
    """A coarse Gaussian field upsampled bicubically, then cv2.remap."""
    height, width = array.shape[:2]
    spacing = d["spacing"]
    coarse = rng.standard_normal((height // spacing + 3, width // spacing + 3, 2))
    coarse = (coarse * (d["amplitude"] / np.abs(coarse).max())).astype(np.float32)
    field = cv2.resize(coarse, (width, height), interpolation=cv2.INTER_CUBIC)
    xs, ys = np.meshgrid(np.arange(width, dtype=np.float32), np.arange(height, dtype=np.float32))
    return cv2.remap(array, xs + field[..., 0], ys + field[..., 1], cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_REPLICATE)


def _camera(array: np.ndarray, d: dict[str, Any], border: tuple[int, ...]) -> np.ndarray:
    height, width = array.shape[:2]
    src = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
    matrix = cv2.getPerspectiveTransform(src, np.array(d["corners"], np.float32))
    shift = np.array([[1, 0, 0.5], [0, 1, 0.5], [0, 0, 1]])
    matrix = np.linalg.inv(shift) @ matrix @ shift
    return cv2.warpPerspective(array, matrix, tuple(d["size"]), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_CONSTANT, borderValue=border)


def _finish(array: np.ndarray, d: dict[str, Any], rng: np.random.Generator) -> np.ndarray:
    array = fpixel.apply_linear_illumination(array, d["lighting"], d["lighting_angle"])
    array = cv2.GaussianBlur(array, (0, 0), d["blur_sigma"], borderType=cv2.BORDER_REPLICATE)
    return _jpeg(_noise(array, d["noise_sigma"], rng), d["jpeg_quality"])


def bare_screen(array: np.ndarray, d: dict[str, Any], rng: np.random.Generator) -> np.ndarray:
    """warpPerspective onto the bezel, the moiré pattern, lighting, blur, noise, JPEG."""
    array = _camera(array, d, (d["bezel"],) * 3)
    array = moire(array, d["moire_amplitude"], d["moire_period"], d["moire_angle"],
                  d["moire_phase"])
    return _finish(array, d, rng)


def bare_paper(array: np.ndarray, d: dict[str, Any], rng: np.random.Generator) -> np.ndarray:
    """augraphy ink bleed and paper (seeded globally), warpPerspective, shadow, lighting, blur,
    noise, JPEG."""
    bgr = cv2.cvtColor(array, cv2.COLOR_RGB2BGR)
    height, width = bgr.shape[:2]
    random.seed(d["augraphy_seed"])
    np.random.seed(d["augraphy_seed"])
    bleed = augraphy.InkBleed((d["ink_bleed"],) * 2, (3, 3), (d["ink_severity"],) * 2)
    ink = bleed(bgr, force=True)
    sheet = augraphy.ColorPaper((d["paper_hue"],) * 2, (d["paper_saturation"],) * 2)(
        np.full_like(bgr, 255), force=True)
    sheet = augraphy.NoiseTexturize((d["texture_sigma"],) * 2, (d["texture_turbulence"],) * 2,
                                    (width // 4,) * 2, (height // 4,) * 2)(sheet, force=True)
    sheet = augraphy.BrightnessTexturize((d["paper_brightness"],) * 2, 0.03)(sheet, force=True)
    printed = ((ink.astype(np.uint16) * sheet + 127) // 255).astype(np.uint8)
    array = _camera(cv2.cvtColor(printed, cv2.COLOR_BGR2RGB), d, tuple(d["desk"]))
    array = soft_shadow(cv2, array, d["shadow_side"], d["shadow_depth"], d["shadow_slant"],
                        d["shadow_opacity"])
    return _finish(array, d, rng)


BARE: dict[str, Bare] = {"noise": bare_noise, "rescale": bare_rescale, "elastic": bare_elastic,
                         "photo-screen": bare_screen, "photo-paper": bare_paper}


def _rate(work: Callable[[int], object], count: int) -> float:
    start = time.perf_counter()
    for index in range(count):
        work(index)
    return count / (time.perf_counter() - start)


def main() -> None:
    """Parse the flags, run both loops per perturbation, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=20, help="images per loop and round")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (best kept)")
    parser.add_argument("--only", nargs="*", help="perturbation names (default: all)")
    args = parser.parse_args()
    image = table()
    array = np.array(image)
    names = args.only or sorted(PERTURBATIONS.names())
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        os.chdir(scratch)  # anything a library writes to the CWD lands here
        for name in names:
            chosen = PERTURBATIONS.get(name)
            drawn = chosen.run(image, np.random.default_rng(0)).record["drawn"]  # also warms up
            bare = BARE.get(name)
            given = image if name == "rescale" else array
            if bare is not None:
                bare(given, drawn, np.random.default_rng(0))  # warm up too
            registered_best, bare_best = 0.0, math.nan
            for _ in range(args.rounds):
                registered_best = max(registered_best, _rate(
                    lambda i, p=chosen: p.run(image, np.random.default_rng(i)), args.count))
                if bare is not None:
                    rate = _rate(lambda i, f=bare, d=drawn, g=given:
                                 f(g, d, np.random.default_rng(i)), args.count)
                    bare_best = rate if math.isnan(bare_best) else max(bare_best, rate)
            rows.append((name, registered_best, bare_best, registered_best / bare_best))
    print(f"table image {image.width}x{image.height}, {args.count} images x {args.rounds} "
          "rounds (best round)")
    print(f"{'perturbation':<14} {'registered img/s':>17} {'bare img/s':>11} {'ratio':>6}")
    for name, registered, bare_rate, ratio in rows:
        print(f"{name:<14} {registered:>17.1f} {bare_rate:>11.1f} {ratio:>6.2f}")


if __name__ == "__main__":
    main()
