"""A hand-drawn mark: a wobbly loop around the cell's text, as a pen would draw it (its
start and end overshoot; its radius wanders), seeded by the item's streams."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from hopvista.rng import Streams
from hopvista.themes.marks import MARK_KINDS, MarkKind, halo_and_ink
from hopvista.themes.marks.circle import ring_css

POINTS = 14
"""Points along the loop (one turn and its overshoot)."""


def sample(streams: Streams) -> dict[str, Any]:
    """The loop's start, overshoot and wander, from the item's streams."""
    start = streams.uniform("markup.hand.start") * 2 * math.pi
    overshoot = 0.25 + 0.45 * streams.uniform("markup.hand.overshoot")
    wander = [round(0.85 + 0.14 * streams.uniform(f"markup.hand.{k}"), 3) for k in range(POINTS)]
    return {"hand": {"start": round(start, 3), "overshoot": round(overshoot, 3),
                     "wander": wander}}


def loop_path(start: float, overshoot: float, wander: list[float]) -> str:
    """The loop as an SVG path in a 100 × 100 box: points on a wandering ellipse, joined by
    smooth curves (Catmull-Rom as cubic Béziers)."""
    turn = 2 * math.pi + overshoot
    points = []
    for k, scale in enumerate(wander):
        angle = start + turn * k / (len(wander) - 1)
        points.append((50 + 46 * scale * math.cos(angle), 50 + 42 * scale * math.sin(angle)))
    path = [f"M{points[0][0]:.1f} {points[0][1]:.1f}"]
    for k in range(len(points) - 1):
        p0, p1 = points[max(k - 1, 0)], points[k]
        p2, p3 = points[k + 1], points[min(k + 2, len(points) - 1)]
        c1 = (p1[0] + (p2[0] - p0[0]) / 6, p1[1] + (p2[1] - p0[1]) / 6)
        c2 = (p2[0] - (p3[0] - p1[0]) / 6, p2[1] - (p3[1] - p1[1]) / 6)
        path.append(f"C{c1[0]:.1f} {c1[1]:.1f} {c2[0]:.1f} {c2[1]:.1f} {p2[0]:.1f} {p2[1]:.1f}")
    return "".join(path)


def css(look: Mapping[str, Any]) -> str:
    """The loop's place and ink (a circle's)."""
    return ring_css("hand", look)


def shape(look: Mapping[str, Any], before: bool) -> str:
    """The loop the look's ``hand`` describes (a plain one without it)."""
    hand = look.get("hand") or {"start": 0.5, "overshoot": 0.4, "wander": [0.95] * POINTS}
    path = loop_path(float(hand["start"]), float(hand["overshoot"]),
                     [float(w) for w in hand["wander"]])
    stroke = f'<path d="{path}" vector-effect="non-scaling-stroke"'
    return ('<svg class="hv-mark-shape hv-ring hv-hand" viewBox="0 0 100 100" '
            f'preserveAspectRatio="none" aria-hidden="true">{halo_and_ink(stroke)}</svg>')


MARK_KINDS.register("hand", MarkKind(
    "hand", "d", "circled by hand", "a wobbly loop drawn by hand around the cell's text",
    css, shape, sample=sample, order=8, halo=True))
