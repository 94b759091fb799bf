"""Drawing a cell visual with Pillow: a square transparent canvas, drawn large and shrunk.

A visual is drawn on an RGBA canvas :data:`SUPERSAMPLE` times its size and shrunk by
averaging each block of pixels (in premultiplied alpha), which smooths its edges; the inside of
every shape keeps its exact colour. :func:`png_bytes` encodes it with fixed settings and no
metadata, so the same attributes give the same bytes. Shapes are drawn with Pillow's
primitives; an emblem is an icon of the set :mod:`hopvista.themes.visuals.icons` draws from,
filled in one colour.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from functools import cache
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from hopvista.errors import UserError
from hopvista.themes.fonts import font_file
from hopvista.themes.visuals import icons
from hopvista.themes.visuals.palette import rgb_of

SUPERSAMPLE = 4
"""How many times larger than its size a visual is drawn before it is shrunk."""

MIN_SIZE_PX = 24
MAX_SIZE_PX = 1024
"""The sizes a visual may be drawn at (the side of its square, in pixels)."""

TEXT_FAMILY = "DejaVu Sans"
"""The font of a badge's initials (resolved to one file, like every font hopvista draws)."""

CREDITS = ("Cell visuals drawn by hopvista with Pillow; badge initials set in DejaVu Sans, "
           "DejaVu Fonts License (https://dejavu-fonts.github.io/License.html).")
"""What a dataset card cites for the drawing of its cell visuals and the fonts in them (the
icon set emblems come from is cited apart: :meth:`hopvista.themes.visuals.icons.IconSet.credit`)."""

Point = tuple[float, float]
RGBA = tuple[int, int, int, int]


def opaque(name: str) -> RGBA:
    """The colour ``name`` of the vocabulary as an opaque RGBA fill."""
    return (*rgb_of(name), 255)


def check_size(size_px: object) -> int:
    """``size_px`` as the side of the visual's square, or a :class:`UserError`."""
    if isinstance(size_px, bool) or not isinstance(size_px, int) \
            or not MIN_SIZE_PX <= size_px <= MAX_SIZE_PX:
        raise UserError(f"visual size_px must be a whole number of pixels in "
                        f"{MIN_SIZE_PX}..{MAX_SIZE_PX}, got {size_px!r}")
    return size_px


class Canvas:
    """A square drawing area whose coordinates run from 0 to 1 on both axes (y downwards)."""

    def __init__(self, size_px: int) -> None:
        self.size_px = size_px
        self.side = size_px * SUPERSAMPLE
        self.image = Image.new("RGBA", (self.side, self.side), (0, 0, 0, 0))
        self.pen = ImageDraw.Draw(self.image)

    def at(self, x: float, y: float) -> Point:
        """The canvas pixel of the unit point ``(x, y)``."""
        return x * self.side, y * self.side

    def box(self, left: float, top: float, right: float, bottom: float) -> list[float]:
        """The pixel box of a unit box."""
        return [left * self.side, top * self.side, right * self.side, bottom * self.side]

    def width(self, fraction: float) -> int:
        """A line width of ``fraction`` of the side, at least one drawn pixel."""
        return max(SUPERSAMPLE, round(fraction * self.side))

    def rectangle(self, box: Sequence[float], color: str) -> None:
        """Fill the unit box ``(left, top, right, bottom)``."""
        self.pen.rectangle(self.box(*box), fill=opaque(color))

    def ellipse(self, box: Sequence[float], color: str) -> None:
        """Fill the ellipse inscribed in the unit box."""
        self.pen.ellipse(self.box(*box), fill=opaque(color))

    def polygon(self, points: Sequence[Point], color: str) -> None:
        """Fill the polygon of unit ``points``."""
        self.pen.polygon([self.at(x, y) for x, y in points], fill=opaque(color))

    def line(self, points: Sequence[Point], color: str, width: float) -> None:
        """A polyline through unit ``points``, ``width`` a fraction of the side, round joins."""
        self.pen.line([self.at(x, y) for x, y in points], fill=opaque(color),
                      width=self.width(width), joint="curve")
        radius = self.width(width) / 2
        for x, y in (points[0], points[-1]):
            cx, cy = self.at(x, y)
            self.pen.ellipse([cx - radius, cy - radius, cx + radius, cy + radius],
                             fill=opaque(color))

    def outline(self, box: Sequence[float], color: str, width: float) -> None:
        """The outline of the ellipse in the unit box, ``width`` a fraction of the side."""
        self.pen.ellipse(self.box(*box), outline=opaque(color), width=self.width(width))

    def set_pixels(self, pixels: Any) -> None:
        """Replace the whole drawing with ``pixels`` (a side x side x 4 uint8 array)."""
        self.image = Image.fromarray(pixels, "RGBA")
        self.pen = ImageDraw.Draw(self.image)

    def pieslice(self, box: Sequence[float], start: float, end: float, color: str) -> None:
        """A slice of the ellipse in the unit box, angles in degrees clockwise from 3 o'clock."""
        self.pen.pieslice(self.box(*box), start, end, fill=opaque(color))

    def text(self, center: Point, text: str, height: float, color: str) -> None:
        """``text`` centred on the unit point ``center``, its capitals ``height`` of the side."""
        font = _font(max(1, round(height * self.side * 1.35)))
        self.pen.text(self.at(*center), text, font=font, fill=opaque(color), anchor="mm")

    def emblem(self, name: str, center: Point, radius: float, color: str) -> None:
        """The emblem ``name`` (a key of :data:`~hopvista.themes.visuals.icons.EMBLEMS`), its
        icon filling the square of half-side ``radius`` around ``center`` (its longer side
        the square's side), in ``color``."""
        glyph = icons.installed().glyph(icons.emblem_icon(name), round(2 * radius * self.side))
        cx, cy = self.at(*center)
        corner = (round(cx - glyph.width / 2), round(cy - glyph.height / 2))
        self.image.paste(Image.new("RGBA", glyph.size, opaque(color)), corner, glyph)

    def clip_to(self, mask_box: Sequence[float], shape: str = "ellipse") -> None:
        """Make everything outside the unit box's ellipse transparent."""
        mask = Image.new("L", self.image.size, 0)
        pen = ImageDraw.Draw(mask)
        if shape != "ellipse":
            raise ValueError(f"unknown clip shape {shape!r}")
        pen.ellipse(self.box(*mask_box), fill=255)
        alpha = self.image.getchannel("A")
        self.image.putalpha(Image.composite(alpha, mask, mask))

    def finished(self) -> Image.Image:
        """The visual at its size: each block of pixels averaged, in premultiplied alpha."""
        small = self.image.convert("RGBa").resize((self.size_px, self.size_px),
                                                  Image.Resampling.BOX)
        return small.convert("RGBA")


def star_points(center: Point, radius: float, points: int = 5) -> list[Point]:
    """The outline of a star with ``points`` points, one pointing up."""
    cx, cy = center
    inner = radius * 0.45
    outline = []
    for i in range(points * 2):
        r = radius if i % 2 == 0 else inner
        angle = math.radians(-90.0 + i * 180.0 / points)
        outline.append((cx + r * math.cos(angle), cy + r * math.sin(angle)))
    return outline


def regular_points(center: Point, radius: float, sides: int, start_deg: float) -> list[Point]:
    """The corners of a regular polygon, the first at ``start_deg`` (0 = 3 o'clock)."""
    cx, cy = center
    return [(cx + radius * math.cos(math.radians(start_deg + i * 360.0 / sides)),
             cy + radius * math.sin(math.radians(start_deg + i * 360.0 / sides)))
            for i in range(sides)]


@cache
def _font(size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(font_file(TEXT_FAMILY)), size,
                              layout_engine=ImageFont.Layout.BASIC)


def png_bytes(image: Image.Image) -> bytes:
    """``image`` as PNG bytes: fixed compression, no metadata, no timestamp."""
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", compress_level=6, optimize=False)
    return buffer.getvalue()
