"""How far apart two colours look: CIEDE2000 colour difference (ΔE₀₀) of sRGB colours, and
the least differences a markup colour keeps from what it marks.

A mark is seen by how much it differs from what it lies on. The WCAG contrast ratio measures
lightness only: a pale yellow highlight on a white cell (ratio 1.1) stands out, a crimson
outline on a red bar (ratio 1.2) does not, and a dark green one on the same bar (ratio 2.0)
does. ΔE₀₀ (CIE 2000; Sharma, Wu and Dalal 2005) weighs lightness, chroma and hue as the eye
does: about 2 is the least difference one notices side by side, and it tells the three cases
apart (16, 18 and 56).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from hopvista.rng import Streams

FILL_DELTA_E = 10.0
"""The least ΔE₀₀ between a highlighted cell (the highlight over the cell's background, at
its opacity) and the same cell unmarked: a fill covers the whole cell, so a moderate
difference is seen at once."""

STROKE_DELTA_E = 20.0
"""The least ΔE₀₀ between a stroke drawn around a chart mark (a bar's or wedge's outline, a
ring, a marker's edge; 1.5–3.5 pt wide) and the mark's own colour, and between a table mark's
ink (an arrow, a ring, a hand-drawn loop, a column's box; 1.5–3.5 px wide) and everything it
lies on: a thin line needs a larger difference to be seen against what it surrounds."""

_WHITE = (0.95047, 1.0, 1.08883)
"""The D65 white point in XYZ, the reference of sRGB."""


def rgb_of(colour: str) -> tuple[int, int, int]:
    """The 0–255 channels of ``#rrggbb``; ``ValueError`` for anything else."""
    if len(colour) != 7 or colour[0] != "#":
        raise ValueError(f"colour {colour!r} is not #rrggbb")
    red, green, blue = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return red, green, blue


def over(colour: str, ground: str, opacity: float) -> str:
    """``colour`` laid at ``opacity`` (0–1) over ``ground``, as the browser composes an
    ``rgba()`` background: ``#rrggbb``."""
    mixed = (round(opacity * a + (1 - opacity) * b)
             for a, b in zip(rgb_of(colour), rgb_of(ground), strict=True))
    return "#" + "".join(f"{value:02x}" for value in mixed)


def lab_of(colour: str) -> tuple[float, float, float]:
    """CIE L*a*b* (D65) of an sRGB ``#rrggbb``."""
    def linear(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(v) for v in rgb_of(colour))
    xyz = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b,
           0.2126729 * r + 0.7151522 * g + 0.0721750 * b,
           0.0193339 * r + 0.1191920 * g + 0.9503041 * b)

    def f(t: float) -> float:
        return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29

    fx, fy, fz = (f(v / w) for v, w in zip(xyz, _WHITE, strict=True))
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def ciede2000(first: tuple[float, float, float], second: tuple[float, float, float]) -> float:
    """ΔE₀₀ of two L*a*b* colours (Sharma, Wu and Dalal 2005; kL = kC = kH = 1)."""
    l1, a1, b1 = first
    l2, a2, b2 = second
    c_mean = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(c_mean ** 7 / (c_mean ** 7 + 25 ** 7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = math.hypot(a1p, b1), math.hypot(a2p, b2)
    h1p = math.degrees(math.atan2(b1, a1p)) % 360 if c1p else 0.0
    h2p = math.degrees(math.atan2(b2, a2p)) % 360 if c2p else 0.0
    dl, dc = l2 - l1, c2p - c1p
    dh = 0.0
    if c1p * c2p:
        dh = h2p - h1p
        dh = dh - 360 if dh > 180 else dh + 360 if dh < -180 else dh
    dhh = 2 * math.sqrt(c1p * c2p) * math.sin(math.radians(dh) / 2)
    l_mean, cp_mean = (l1 + l2) / 2, (c1p + c2p) / 2
    h_mean = h1p + h2p
    if c1p * c2p:
        h_mean = (h1p + h2p) / 2 if abs(h1p - h2p) <= 180 else \
            (h1p + h2p + 360) / 2 if h1p + h2p < 360 else (h1p + h2p - 360) / 2
    t = (1 - 0.17 * math.cos(math.radians(h_mean - 30))
         + 0.24 * math.cos(math.radians(2 * h_mean))
         + 0.32 * math.cos(math.radians(3 * h_mean + 6))
         - 0.20 * math.cos(math.radians(4 * h_mean - 63)))
    sl = 1 + 0.015 * (l_mean - 50) ** 2 / math.sqrt(20 + (l_mean - 50) ** 2)
    sc = 1 + 0.045 * cp_mean
    sh = 1 + 0.015 * cp_mean * t
    rt = (-2 * math.sqrt(cp_mean ** 7 / (cp_mean ** 7 + 25 ** 7))
          * math.sin(math.radians(60 * math.exp(-(((h_mean - 275) / 25) ** 2)))))
    return math.sqrt((dl / sl) ** 2 + (dc / sc) ** 2 + (dhh / sh) ** 2
                     + rt * (dc / sc) * (dhh / sh))


def delta_e(first: str, second: str) -> float:
    """ΔE₀₀ of two sRGB ``#rrggbb`` colours (0: the same; 100: black and white)."""
    return ciede2000(lab_of(first), lab_of(second))


def least_delta_e(colour: str, grounds: Iterable[str]) -> float:
    """The smallest ΔE₀₀ between ``colour`` and any of ``grounds`` (infinity for none)."""
    return min((delta_e(colour, ground) for ground in grounds), default=math.inf)


def fill_delta_e(colour: str, opacity: float, grounds: Iterable[str]) -> float:
    """The smallest ΔE₀₀ between any of ``grounds`` and ``colour`` laid over it at
    ``opacity`` (infinity for none): how a fill stands out from the cell it fills."""
    return min((delta_e(over(colour, ground, opacity), ground) for ground in grounds),
               default=math.inf)


def under_ink(grounds: Iterable[str], halo: tuple[str, float] | None) -> tuple[str, ...]:
    """What a line's ink lies on: ``grounds`` and, with a ``halo`` (colour, opacity) drawn
    under it, the halo laid over each of them."""
    found = list(grounds)
    if halo is not None:
        found += [over(halo[0], ground, halo[1]) for ground in found]
    return tuple(dict.fromkeys(found))


def standing_out(streams: Streams, stream: str, given: str, choices: Sequence[str],
                 least: Callable[[str], float], threshold: float
                 ) -> tuple[str, dict[str, Any] | None]:
    """``given`` when it differs from what it marks by ``threshold`` (``least``: its smallest
    ΔE₀₀ against all it may lie on); else a choice among ``choices`` that does (rendezvous
    hashing on ``stream``; with none, the one that differs most), with the record of what it
    replaced: ``{"delta_e": given's ΔE₀₀ (floored to a tenth), "least": threshold}``."""
    if least(given) >= threshold:
        return given, None
    clear = [choice for choice in choices if least(choice) >= threshold]
    chosen = streams.choose(clear, stream) if clear else max(choices, key=least)
    if chosen == given:
        return given, None
    return chosen, {"delta_e": math.floor(least(given) * 10) / 10, "least": threshold}
