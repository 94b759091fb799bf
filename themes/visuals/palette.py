"""The colour names a cell visual may use: a small closed vocabulary of distinct hues.

Every colour a visual draws with (except an avatar's skin tone) is one of :data:`COLORS`, so
a question about a colour has one name for its answer and a reader never has to choose
between "crimson" and "red". Pairs a reader could confuse at the size of a table cell are
listed in :data:`CONFUSABLE`; a visual never draws two colours of such a pair (nor one colour
twice where its parts must be told apart).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from types import MappingProxyType

from hopvista.errors import UserError
from hopvista.rng import Streams

COLORS = MappingProxyType({
    "red": "#d62020",
    "orange": "#f58a07",
    "yellow": "#ffd400",
    "green": "#1e9e3a",
    "blue": "#1f5fd0",
    "purple": "#7a2fa8",
    "pink": "#f26bb5",
    "brown": "#7b4a1e",
    "black": "#111111",
    "white": "#ffffff",
    "grey": "#8a8a8a",
})
"""Each colour name and the ``#rrggbb`` it is drawn with."""

CONFUSABLE: frozenset[frozenset[str]] = frozenset(frozenset(pair) for pair in (
    ("red", "orange"), ("red", "pink"), ("red", "brown"), ("orange", "yellow"),
    ("orange", "brown"), ("pink", "purple"), ("purple", "blue"), ("yellow", "white"),
    ("grey", "white"),
))
"""Pairs of colour names a reader could confuse in one small visual."""


def hex_of(name: str) -> str:
    """The ``#rrggbb`` of the colour ``name`` (a name of :data:`COLORS`)."""
    return COLORS[name]


def rgb_of(name: str) -> tuple[int, int, int]:
    """The colour ``name`` as an ``(r, g, b)`` triple."""
    code = COLORS[name]
    return int(code[1:3], 16), int(code[3:5], 16), int(code[5:7], 16)


def distinguishable(first: str, second: str) -> bool:
    """Whether a reader tells ``first`` from ``second`` in one visual: different names that
    are not a :data:`CONFUSABLE` pair."""
    return first != second and frozenset((first, second)) not in CONFUSABLE


LEGIBLE_CONTRAST = 3.0
"""The least contrast ratio (WCAG's) between text or a mark and what it is drawn on."""


def _luminance(name: str) -> float:
    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = rgb_of(name)
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


PICTURE_CONTRAST = 1.5
"""The least contrast ratio (WCAG's) between a picture's first colour (the one covering most
of it) and any background its table cell may have: below it, a white badge on a white page or
a black one on a dark page all but vanishes."""


def _hex_luminance(colour: str) -> float:
    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def stands_out(colour: str, backgrounds: Iterable[str]) -> bool:
    """Whether a picture whose first colour is ``colour`` (``#rrggbb``) reaches
    :data:`PICTURE_CONTRAST` against each of ``backgrounds`` (``#rrggbb``)."""
    mine = _hex_luminance(colour)
    for ground in backgrounds:
        light, dark = sorted((mine, _hex_luminance(ground)), reverse=True)
        if (light + 0.05) / (dark + 0.05) < PICTURE_CONTRAST:
            return False
    return True


def legible(ink: str, ground: str) -> bool:
    """Whether letters or a mark in ``ink`` read clearly on ``ground``: a WCAG contrast
    ratio of at least :data:`LEGIBLE_CONTRAST`."""
    light, dark = sorted((_luminance(ink), _luminance(ground)), reverse=True)
    return (light + 0.05) / (dark + 0.05) >= LEGIBLE_CONTRAST


def first_confusion(names: Sequence[str]) -> tuple[str, str] | None:
    """The first pair of ``names`` a reader could not tell apart, or ``None``."""
    for i, first in enumerate(names):
        for second in names[i + 1:]:
            if not distinguishable(first, second):
                return first, second
    return None


def sample_color(streams: Streams, name: str, avoid: Iterable[str] = (),
                 among: Iterable[str] | None = None) -> str:
    """One colour name for the decision ``name``, told apart from every colour in ``avoid``
    (drawn from ``among``, every colour by default)."""
    taken = list(avoid)
    options = [c for c in (COLORS if among is None else among)
               if all(distinguishable(c, t) for t in taken)]
    if not options:
        raise UserError(f"visual attribute {name!r}: no colour can be told apart from "
                        f"{', '.join(taken)}")
    return streams.choose(sorted(options), name)


def a_color(name: str) -> str:
    """``name`` with its indefinite article: "a red", "an orange"."""
    return f"{'an' if name[0] in 'aeiou' else 'a'} {name}"
