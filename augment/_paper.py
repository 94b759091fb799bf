"""The paper step of ``photo-paper``: augraphy's ink bleed on the document and a paper layer
(paper colour, noise texture, brightness texture) multiplied under it.

augraphy's effects are called one by one rather than through ``AugraphyPipeline``: the pipeline
writes ``./augraphy_cache/`` into the current directory on every image, the effects alone
write nothing. They draw from the *global* ``random`` and ``numpy.random`` generators, so they
run inside :func:`~hopvista.augment._deps.seeded_global_rngs` with a seed drawn from the
variant's generator; every scalar they would draw is drawn here instead and passed as a
one-value range, so the record holds them and the seed decides only the per-pixel textures.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from hopvista.augment._deps import require, seeded_global_rngs


def paper(array: np.ndarray, values: Mapping[str, Any]) -> np.ndarray:
    """The RGB document ``array`` printed on textured paper (``values`` as drawn by
    ``photo-paper``: ``ink_bleed``, ``ink_severity``, ``paper_hue``, ``paper_saturation``,
    ``texture_sigma``, ``texture_turbulence``, ``paper_brightness``, ``augraphy_seed``)."""
    cv2 = require("cv2", "photo-paper")
    augraphy = require("augraphy", "photo-paper")
    bgr = cv2.cvtColor(array, cv2.COLOR_RGB2BGR)
    height, width = bgr.shape[:2]
    with seeded_global_rngs(int(values["augraphy_seed"])):
        bleed, severity = float(values["ink_bleed"]), float(values["ink_severity"])
        ink = augraphy.InkBleed(intensity_range=(bleed, bleed), kernel_size=(3, 3),
                                severity=(severity, severity))(bgr, force=True)
        hue, saturation = int(values["paper_hue"]), int(values["paper_saturation"])
        sheet = augraphy.ColorPaper(hue_range=(hue, hue), saturation_range=(
            saturation, saturation))(np.full_like(bgr, 255), force=True)
        sigma, turbulence = int(values["texture_sigma"]), int(values["texture_turbulence"])
        sheet = augraphy.NoiseTexturize(
            sigma_range=(sigma, sigma), turbulence_range=(turbulence, turbulence),
            texture_width_range=(max(1, width // 4), max(1, width // 4)),
            texture_height_range=(max(1, height // 4), max(1, height // 4)))(sheet, force=True)
        shade = float(values["paper_brightness"])
        sheet = augraphy.BrightnessTexturize(texturize_range=(shade, shade),
                                             deviation=0.03)(sheet, force=True)
    printed = (ink.astype(np.uint16) * sheet.astype(np.uint16) + 127) // 255
    rgb: np.ndarray = cv2.cvtColor(printed.astype(np.uint8), cv2.COLOR_BGR2RGB)
    return rgb
