"""``map``: a fictional land of nine regions, one per compass point and the centre, with one
region highlighted.

The regions are the Voronoi cells of nine sites, one inside the middle of each cell of a
3 x 3 grid over the land, so a region's name (``north-west``, ``centre``, ...) is where it
lies on the map; the land is an ellipse and its regions are drawn procedurally, no shape file
is needed.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from PIL import Image

from hopvista.rng import Streams
from hopvista.themes.visuals import (
    VISUAL_KINDS,
    Field,
    VisualFact,
    VisualKind,
    require_distinct,
    sample_colors,
)
from hopvista.themes.visuals.attributes import refuse
from hopvista.themes.visuals.canvas import Canvas
from hopvista.themes.visuals.palette import a_color, rgb_of

REGIONS = ("north-west", "north", "north-east", "west", "centre", "east", "south-west",
           "south", "south-east")
"""The regions in reading order: ``sites[i]`` lies in grid cell ``i`` (row by row)."""

SITE_MARGIN = 0.25
"""How far inside its grid cell a site must lie (a fraction of the cell), so the region is
where its name says."""


class Map(VisualKind):
    """A map: nine regions (Voronoi cells of ``sites``) on ``land``, the ``highlight`` region
    filled with ``highlight_color``, the borders in ``border``."""

    name = "map"
    summary = "a map of nine regions named by compass point, one highlighted"
    family = "map"
    fields = (
        Field("sites", "points", low=9, high=9),
        Field("highlight", "choice", choices=REGIONS),
        Field("land", "color"),
        Field("highlight_color", "color"),
        Field("border", "color"),
    )

    def sample(self, streams: Streams, *, slot: str = "visual",
               **constraints: Any) -> dict[str, Any]:
        """A map drawn from ``streams`` (stream names ``slot.<attribute>``)."""
        given = self.given(constraints)
        rng = streams.stream(f"{slot}.sites")
        low, high = SITE_MARGIN + 0.01, 1 - SITE_MARGIN - 0.01
        sites = [[round((i % 3 + float(rng.uniform(low, high))) / 3, 4),
                  round((i // 3 + float(rng.uniform(low, high))) / 3, 4)] for i in range(9)]
        colors = sample_colors(streams, slot, ("border", "land", "highlight_color"), given,
                               among={"border": ("black", "white", "grey")})
        return self.check({
            "sites": given.get("sites", sites),
            "highlight": given.get("highlight") or streams.choose(REGIONS, f"{slot}.highlight"),
            **colors,
        })

    def _consistent(self, attributes: dict[str, Any]) -> None:
        require_distinct(self.name, attributes, ("land", "highlight_color", "border"))
        for i, (x, y) in enumerate(attributes["sites"]):
            col, row = i % 3, i // 3
            inside = (col + SITE_MARGIN <= x * 3 <= col + 1 - SITE_MARGIN
                      and row + SITE_MARGIN <= y * 3 <= row + 1 - SITE_MARGIN)
            if not inside:
                raise refuse(self.name, "sites", f"site {i + 1} ({REGIONS[i]}) lies outside "
                                                 f"the middle of its grid cell")

    def _paint(self, attributes: dict[str, Any], size_px: int) -> Image.Image:
        canvas = Canvas(size_px)
        side = canvas.side
        labels, borders = _regions(attributes["sites"], side,
                                   max(2, round(0.012 * side)) / side / 2)
        chosen = REGIONS.index(attributes["highlight"])
        pixels = np.empty((side, side, 4), dtype=np.uint8)
        pixels[...] = (*rgb_of(attributes["land"]), 255)
        pixels[labels == chosen] = (*rgb_of(attributes["highlight_color"]), 255)
        pixels[borders] = (*rgb_of(attributes["border"]), 255)
        canvas.set_pixels(pixels)
        canvas.outline((0.03, 0.03, 0.97, 0.97), attributes["border"], 0.012)
        canvas.clip_to((0.03, 0.03, 0.97, 0.97))
        return canvas.finished()

    def _color_names(self, attributes: dict[str, Any]) -> list[str]:
        return [attributes["land"], attributes["highlight_color"], attributes["border"]]

    def _describe(self, attributes: dict[str, Any]) -> str:
        return (f"a map of {a_color(attributes['land'])} land of nine regions with the "
                f"{attributes['highlight']} region highlighted in "
                f"{attributes['highlight_color']}")

    def _facts(self, attributes: dict[str, Any]) -> list[VisualFact]:
        return [VisualFact("highlight", "position", attributes["highlight"]),
                VisualFact("highlight_color", "colour", attributes["highlight_color"]),
                VisualFact("land", "colour", attributes["land"])]


def _regions(sites: list[list[float]], side: int,
             border: float) -> tuple[np.ndarray, np.ndarray]:
    """Each pixel's region (the index of its nearest site, the first of equals) and whether
    it lies within ``border`` (unit lengths) of another region: its distance to the
    bisector between its site and each other site. One site at a time, so memory stays that
    of a few rasters whatever the size."""
    centres = (np.arange(side, dtype=np.float32) + 0.5) / side
    xs, ys = np.meshgrid(centres, centres)
    nearest = np.full((side, side), np.inf, dtype=np.float32)
    labels = np.zeros((side, side), dtype=np.int64)
    for index, (x, y) in enumerate(sites):
        distance = (xs - x) ** 2 + (ys - y) ** 2
        closer = distance < nearest
        nearest[closer] = distance[closer]
        labels[closer] = index
    points = np.asarray(sites, dtype=np.float32)
    own_x, own_y = points[labels, 0], points[labels, 1]
    edge = np.zeros((side, side), dtype=bool)
    for index, (x, y) in enumerate(sites):
        apart = np.sqrt((own_x - x) ** 2 + (own_y - y) ** 2)
        other = labels != index
        to_bisector = ((xs - x) ** 2 + (ys - y) ** 2 - nearest)[other] / (2 * apart[other])
        edge[other] |= to_bisector < border
    return labels, edge


VISUAL_KINDS.register("map", Map())
