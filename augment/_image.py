"""Array steps the perturbations share (RGB ``uint8`` arrays of shape ``(H, W, 3)``).

Each takes the ``cv2`` module from the caller, which imported it lazily.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np
from PIL import Image


def to_rgb(image: Image.Image) -> np.ndarray:
    """The image as a writable RGB ``uint8`` array (alpha dropped, palettes expanded)."""
    return np.array(image.convert("RGB"), dtype=np.uint8)


def read_rgb(image: Image.Image) -> np.ndarray:
    """The image as an RGB ``uint8`` array that may share the image's memory (read-only: for
    steps that write their result to a new array)."""
    return np.asarray(image if image.mode == "RGB" else image.convert("RGB"))


def from_rgb(array: np.ndarray) -> Image.Image:
    """An RGB PIL image of an ``(H, W, 3)`` ``uint8`` array."""
    return Image.fromarray(np.ascontiguousarray(array, dtype=np.uint8), "RGB")


def gaussian_blur(cv2: ModuleType, array: np.ndarray, sigma: float) -> np.ndarray:
    """Gaussian blur of standard deviation ``sigma`` px (``0`` leaves the array as it is)."""
    if sigma <= 0:
        return array
    blurred: np.ndarray = cv2.GaussianBlur(array, (0, 0), sigmaX=sigma, sigmaY=sigma,
                                           borderType=cv2.BORDER_REPLICATE)
    return blurred


def gaussian_noise(rng: np.random.Generator, array: np.ndarray, sigma: float) -> np.ndarray:
    """Add zero-mean Gaussian noise of ``sigma`` grey levels drawn from ``rng`` (per pixel and
    channel), rounded and clipped to ``uint8``."""
    if sigma <= 0:
        return array
    noise = rng.standard_normal(array.shape, dtype=np.float32)
    noisy = array.astype(np.float32) + noise * np.float32(sigma)
    return np.clip(np.rint(noisy), 0, 255).astype(np.uint8)


def jpeg(cv2: ModuleType, array: np.ndarray, quality: int) -> np.ndarray:
    """Encode as JPEG at ``quality`` (1–100) and decode again (RGB in, RGB out)."""
    ok, encoded = cv2.imencode(".jpg", cv2.cvtColor(array, cv2.COLOR_RGB2BGR),
                               [int(cv2.IMWRITE_JPEG_QUALITY), int(quality)])
    if not ok:
        raise RuntimeError("OpenCV could not encode the image as JPEG")
    decoded: np.ndarray = cv2.cvtColor(cv2.imdecode(encoded, cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)
    return decoded


def brightness_contrast(cv2: ModuleType, array: np.ndarray, brightness: float,
                        contrast: float) -> np.ndarray:
    """``v' = (v - 128) * contrast + 128 + brightness * 255``, rounded and clipped (a LUT)."""
    levels = np.arange(256, dtype=np.float64)
    lut = np.clip(np.rint((levels - 128.0) * contrast + 128.0 + brightness * 255.0), 0, 255)
    adjusted: np.ndarray = cv2.LUT(array, lut.astype(np.uint8))
    return adjusted
