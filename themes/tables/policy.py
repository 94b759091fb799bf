"""What a theme file's CSS may do: style the table without hiding, moving or adding content.

A theme file from ``$HOPVISTA_THEMES`` is data a user downloads, and the rendered image is
only provable if it shows every cell's text as the layout records it. So the CSS of a theme
file is parsed (:mod:`tinycss2`) and held to a whitelist when the theme loads, before any
build work:

- **rules only**: no at-rule (``@import``, ``@font-face``, ``@media``, ...), no nested rule,
  no ``!important`` (it would override the renderer's own rules, e.g. markup highlights);
- **selectors inside the table**: built from the skeleton's element names, its ``hv-``
  classes, ``*``, attribute selectors and structural pseudo-classes (``:first-child``,
  ``:nth-child()``, ``:not()``, ...); each begins with a skeleton class and reaches no
  sibling of it, so a theme never styles the page around the table; no id, no pseudo-element
  (``::before``, ``::after``, ``::first-letter``, ...); ``:root`` alone sets ``--hv-bg``;
- **declarations from** :data:`PROPERTIES`, each value checked by its grammar: colours
  (opaque; backgrounds may also be ``transparent``), borders up to 8px, spacing up to 64px /
  4em and never negative, type (weight, style, size, line height, letter and word spacing
  within bounds), alignment. Values may use ``var()`` of the renderer's custom properties
  where they fit (``--hv-accent`` and ``--hv-bg`` as colours, ``--hv-pad-x``, ``--hv-pad-y``
  and ``--hv-margin`` as spacing), ``calc()`` sums of such spacing, and ``color-mix(in
  srgb, ...)``. No ``url()``, no other function, no other custom property;
- **text fonts**: no family whose name says it draws signs or pictures
  (:data:`SYMBOL_FONT_WORDS`);
- **legible text**: the rules are applied (conservatively: a rule whose selector may match
  counts) to sample tables drawn as the renderer draws them (the skeleton, a variant's
  panels), once per accent colour; every
  text colour must reach a contrast of :data:`MIN_CONTRAST` against every background it can
  be drawn on (a caption against what is behind the table), the table's root keeps an
  opaque background, and text stays between :data:`MIN_TEXT_PX` and :data:`MAX_TEXT_PX`
  however the rules nest.

Every refusal is one line naming the file, the line and the property (or selector, or
at-rule). The built-in themes are trusted: they are held to the same whitelist by the test
suite, which lists the few declarations the Excel theme's active-cell decoration needs.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any

import tinycss2
import tinycss2.color3

from hopvista.errors import UserError
from hopvista.themes.tables.files import PACKAGE, read_file, skeleton

if TYPE_CHECKING:
    from hopvista.themes.tables import Theme

__all__ = ["MAX_TEXT_PX", "MIN_CONTRAST", "MIN_TEXT_PX", "PROPERTIES", "SYMBOL_FONT_WORDS",
           "cell_backgrounds", "check_theme_css", "contrast", "heading_backgrounds",
           "theme_css_problems"]

MIN_CONTRAST = 3.0
"""The least contrast ratio (WCAG 2) between text and the background it is drawn on."""
MIN_TEXT_PX = 8.0
"""The smallest font size text may end up with, in CSS pixels."""
MAX_TEXT_PX = 96.0
"""The largest font size text may end up with, in CSS pixels."""

MAX_RULES = 400
"""The most style rules a theme file may hold."""
MAX_ACCENTS = 64
"""The most accent colours a theme file may list (each is checked for contrast)."""

_MAX_SPACING = {"px": 64.0, "pt": 48.0, "em": 4.0, "rem": 4.0, "ex": 8.0, "ch": 8.0}
_MAX_BORDER = {"px": 8.0, "pt": 6.0, "em": 0.5, "rem": 0.5, "ex": 1.0, "ch": 1.0}
_MAX_GAP = {"px": 16.0, "pt": 12.0, "em": 1.0, "rem": 1.0, "ex": 2.0, "ch": 2.0}
_MAX_LETTERS = {"px": 4.0, "pt": 3.0, "em": 0.3, "rem": 0.3}
_FONT_SIZE_UNITS = {"px": 1.0, "pt": 4.0 / 3.0}
_RELATIVE_SIZE = (0.5, 3.0)
_MAX_CALC_TERMS = 4

_SPACING_VARS = frozenset({"--hv-pad-x", "--hv-pad-y", "--hv-margin"})
_COLOUR_VARS = frozenset({"--hv-accent", "--hv-bg"})
_PAGE_VAR = "--hv-bg"

ELEMENTS = frozenset({"div", "table", "caption", "thead", "tbody", "tr", "th", "td", "span"})
"""Element names a theme's selectors may use: those of the table skeletons."""
CLASSES = frozenset({
    "hv-root", "hv-table", "hv-sheet", "hv-panel", "hv-caption", "hv-caption-row",
    "hv-head-row", "hv-head", "hv-label", "hv-row", "hv-group-start", "hv-group-end",
    "hv-entity", "hv-period", "hv-num", "hv-decor-row", "hv-decor", "hv-corner",
    "hv-col-letter", "hv-row-number", "hv-active",
})
"""Classes a theme's selectors may use: those the table skeletons give (and ``hv-theme-*``)."""
PSEUDO_CLASSES = frozenset({
    "root", "first-child", "last-child", "only-child", "first-of-type", "last-of-type",
    "only-of-type", "nth-child", "nth-last-child", "nth-of-type", "nth-last-of-type", "not",
    "is", "where", "empty",
})
"""Pseudo-classes a theme's selectors may use (``:root`` only to set ``--hv-bg``)."""
_SELECTOR_FUNCTIONS = frozenset({"not", "is", "where"})
_COMBINATORS = frozenset({">", "+", "~"})


SYMBOL_FONT_WORDS = ("symbol", "dingbat", "emoji", "icon", "awesome", "wingding", "webding",
                     "math", "music", "ornament", "marlett", "d050000l", "zapf", "bravura")
"""Words in the name of a font family that draws pictures or signs, not text: a theme file may
not name one (one that maps ASCII to pictures would pass the renderer's fallback check)."""


# --- Value grammars -------------------------------------------------------------------------


class _Refused(Exception):
    """A value outside its property's grammar; the message says why."""


Tokens = Sequence[Any]


def _parts(tokens: Tokens) -> list[Any]:
    """The tokens of a value without whitespace and comments."""
    return [t for t in tokens if t.type not in ("whitespace", "comment")]


def _keyword(token: Any) -> str | None:
    return str(token.lower_value) if token.type == "ident" else None


def _literal(token: Any) -> str:
    if token.type == "url" or (token.type == "function" and token.lower_name == "url"):
        raise _Refused("url() is not allowed: a theme loads nothing")
    if token.type == "function":
        raise _Refused(f"function {token.lower_name}() is not allowed")
    return str(tinycss2.serialize([token]))


def _length(token: Any, limits: dict[str, float], *, allow_vars: bool = False) -> None:
    """A non-negative length within ``limits`` (unit -> largest value)."""
    if token.type == "number" and token.value == 0:
        return
    if token.type == "dimension":
        unit = str(token.lower_unit)
        if unit not in limits:
            raise _Refused(f"unit {unit!r} is not allowed (use {', '.join(limits)})")
        if token.value < 0:
            raise _Refused("negative lengths are not allowed")
        if token.value > limits[unit]:
            raise _Refused(f"{_literal(token)} is more than {limits[unit]:g}{unit}")
        return
    if token.type == "function" and allow_vars:
        if token.lower_name == "var":
            _spacing_var(token)
            return
        if token.lower_name == "calc":
            _calc_sum(token, limits)
            return
    raise _Refused(f"{_literal(token)!r} is not a length this property takes")


def _spacing_var(token: Any) -> None:
    names = _parts(token.arguments)
    if len(names) != 1 or names[0].type != "ident" or names[0].value not in _SPACING_VARS:
        raise _Refused(f"var() may only name {', '.join(sorted(_SPACING_VARS))} here")


def _calc_sum(token: Any, limits: dict[str, float]) -> None:
    """``calc()`` of at most a few non-negative terms added together."""
    parts = _parts(token.arguments)
    terms = parts[0::2]
    signs = parts[1::2]
    if not terms or len(terms) > _MAX_CALC_TERMS or any(
            s.type != "literal" or s.value != "+" for s in signs):
        raise _Refused(f"calc() may only add up to {_MAX_CALC_TERMS} lengths")
    for term in terms:
        if term.type == "function" and term.lower_name == "calc":
            raise _Refused("calc() may not nest")
        _length(term, limits, allow_vars=True)


def _lengths(limits: dict[str, float], count: tuple[int, int], *, allow_vars: bool = False,
             keywords: frozenset[str] = frozenset()) -> Callable[[Tokens], None]:
    def check(tokens: Tokens) -> None:
        parts = _parts(tokens)
        if not count[0] <= len(parts) <= count[1]:
            raise _Refused(f"give {count[0]} to {count[1]} values")
        for token in parts:
            if _keyword(token) not in keywords:
                _length(token, limits, allow_vars=allow_vars)
    return check


def _one_of(*words: str) -> Callable[[Tokens], None]:
    allowed = frozenset(words)

    def check(tokens: Tokens) -> None:
        parts = _parts(tokens)
        if len(parts) != 1 or _keyword(parts[0]) not in allowed:
            raise _Refused(f"allowed values: {', '.join(sorted(allowed))}")
    return check


def _some_of(*words: str) -> Callable[[Tokens], None]:
    allowed = frozenset(words)

    def check(tokens: Tokens) -> None:
        parts = _parts(tokens)
        if not parts or any(_keyword(p) not in allowed for p in parts):
            raise _Refused(f"allowed values: {', '.join(sorted(allowed))}")
    return check


def _font_weight(tokens: Tokens) -> None:
    parts = _parts(tokens)
    if len(parts) == 1 and parts[0].type == "number" and parts[0].is_integer \
            and 100 <= parts[0].value <= 900 and parts[0].value % 100 == 0:
        return
    _one_of("normal", "bold", "bolder", "lighter", "inherit")(tokens)


def _font_size(tokens: Tokens) -> None:
    _font_size_value(_parts(tokens))


def _font_size_value(parts: list[Any]) -> tuple[str, float]:
    """``("px", size)``, ``("em", factor)`` or ``("inherit", 1)``."""
    if len(parts) != 1:
        raise _Refused("give one size")
    token = parts[0]
    if _keyword(token) == "inherit":
        return "inherit", 1.0
    if token.type == "dimension" and token.lower_unit in _FONT_SIZE_UNITS:
        size = float(token.value) * _FONT_SIZE_UNITS[str(token.lower_unit)]
        if not MIN_TEXT_PX <= size <= MAX_TEXT_PX:
            raise _Refused(f"text must be {MIN_TEXT_PX:g}px to {MAX_TEXT_PX:g}px")
        return "px", size
    factor = None
    if token.type == "dimension" and token.lower_unit == "em":
        factor = float(token.value)
    elif token.type == "percentage":
        factor = float(token.value) / 100
    if factor is None:
        raise _Refused("give px, pt, em or %")
    low, high = _RELATIVE_SIZE
    if not low <= factor <= high:
        raise _Refused(f"a relative size must be {low:g}em to {high:g}em")
    return "em", factor


def _line_height(tokens: Tokens) -> None:
    parts = _parts(tokens)
    if len(parts) == 1 and parts[0].type == "number" and 1 <= parts[0].value <= 3:
        return
    if len(parts) == 1 and _keyword(parts[0]) in ("normal", "inherit"):
        return
    raise _Refused("give normal or a number from 1 to 3 (lines must not overlap)")


def _spacing_of_letters(tokens: Tokens) -> None:
    parts = _parts(tokens)
    if len(parts) == 1 and _keyword(parts[0]) in ("normal", "inherit"):
        return
    if len(parts) != 1:
        raise _Refused("give one length")
    _length(parts[0], _MAX_LETTERS)


_BORDER_STYLES = frozenset({"none", "hidden", "solid", "dashed", "dotted", "double", "groove",
                            "ridge", "inset", "outset"})
_BORDER_WIDTHS = frozenset({"thin", "medium", "thick"})


def _border(tokens: Tokens) -> None:
    """``border`` shorthands: a width, a style and a colour, each at most once."""
    parts = _parts(tokens)
    if not 1 <= len(parts) <= 3:
        raise _Refused("give a width, a style and a colour")
    for token in parts:
        word = _keyword(token)
        if word in _BORDER_STYLES or word in _BORDER_WIDTHS:
            continue
        if token.type in ("dimension", "number"):
            _length(token, _MAX_BORDER)
            continue
        _colour(token, opaque=False)


def _border_colours(tokens: Tokens) -> None:
    parts = _parts(tokens)
    if not 1 <= len(parts) <= 4:
        raise _Refused("give 1 to 4 colours")
    for token in parts:
        _colour(token, opaque=False)


def _border_styles(tokens: Tokens) -> None:
    parts = _parts(tokens)
    if not 1 <= len(parts) <= 4 or any(_keyword(p) not in _BORDER_STYLES for p in parts):
        raise _Refused(f"allowed values: {', '.join(sorted(_BORDER_STYLES))}")


def _border_widths(tokens: Tokens) -> None:
    _lengths(_MAX_BORDER, (1, 4), keywords=_BORDER_WIDTHS)(tokens)


def _text_colour(tokens: Tokens) -> None:
    parts = _parts(tokens)
    if len(parts) != 1:
        raise _Refused("give one colour")
    if _keyword(parts[0]) not in ("inherit", "currentcolor"):
        _colour(parts[0], opaque=True)


def _background(tokens: Tokens) -> None:
    parts = _parts(tokens)
    if len(parts) != 1:
        raise _Refused("a background may only be one colour (no image, gradient or url())")
    if _keyword(parts[0]) not in ("none", "transparent", "inherit"):
        _colour(parts[0], opaque=True)


def _page_colour(tokens: Tokens) -> None:
    parts = _parts(tokens)
    if len(parts) != 1 or parts[0].type == "function":
        raise _Refused("give one colour (no function)")
    _colour(parts[0], opaque=True)


PROPERTIES: dict[str, Callable[[Tokens], None]] = {
    "color": _text_colour,
    "background": _background,
    "background-color": _background,
    "--hv-bg": _page_colour,
    "border-collapse": _one_of("collapse", "separate"),
    "border-spacing": _lengths(_MAX_GAP, (1, 2)),
    "border": _border,
    **{f"border-{side}": _border for side in ("top", "right", "bottom", "left")},
    "border-width": _border_widths,
    "border-style": _border_styles,
    "border-color": _border_colours,
    **{f"border-{side}-width": _border_widths for side in ("top", "right", "bottom", "left")},
    **{f"border-{side}-style": _border_styles for side in ("top", "right", "bottom", "left")},
    **{f"border-{side}-color": _border_colours for side in ("top", "right", "bottom", "left")},
    "padding": _lengths(_MAX_SPACING, (1, 4), allow_vars=True),
    **{f"padding-{side}": _lengths(_MAX_SPACING, (1, 1), allow_vars=True)
       for side in ("top", "right", "bottom", "left")},
    "margin": _lengths(_MAX_SPACING, (1, 4), allow_vars=True),
    **{f"margin-{side}": _lengths(_MAX_SPACING, (1, 1), allow_vars=True)
       for side in ("top", "right", "bottom", "left")},
    "font-weight": _font_weight,
    "font-style": _one_of("normal", "italic", "oblique", "inherit"),
    "font-size": _font_size,
    "font-variant-numeric": _some_of("normal", "tabular-nums", "proportional-nums",
                                     "lining-nums", "oldstyle-nums", "slashed-zero"),
    "line-height": _line_height,
    "letter-spacing": _spacing_of_letters,
    "word-spacing": _spacing_of_letters,
    "text-align": _one_of("left", "right", "center", "justify", "start", "end", "inherit"),
    "vertical-align": _one_of("top", "middle", "bottom", "baseline", "inherit"),
    "caption-side": _one_of("top", "bottom"),
}
"""Every property a theme file may set, with the check of its value."""


# --- Colours --------------------------------------------------------------------------------

RGB = tuple[float, float, float]


@dataclass(frozen=True)
class _Palette:
    """What ``var(--hv-accent)`` and ``var(--hv-bg)`` stand for in one analysis."""

    accent: RGB = (0.0, 0.0, 0.0)
    page: RGB = (1.0, 1.0, 1.0)


def _colour(token: Any, opaque: bool, palette: _Palette | None = None) -> RGB:
    """The colour a token names (``var()`` through ``palette``); ``opaque`` refuses any
    transparency."""
    if token.type == "function" and token.lower_name == "var":
        names = _parts(token.arguments)
        if len(names) != 1 or names[0].type != "ident" or names[0].value not in _COLOUR_VARS:
            raise _Refused(f"var() may only name {' or '.join(sorted(_COLOUR_VARS))} here")
        palette = palette or _Palette()
        return palette.accent if names[0].value == "--hv-accent" else palette.page
    if token.type == "function" and token.lower_name == "color-mix":
        return _colour_mix(token, palette)
    if token.type == "url" or token.type == "function" and token.lower_name not in (
            "rgb", "rgba", "hsl", "hsla"):
        _literal(token)  # refuses url() and other functions
    parsed = tinycss2.color3.parse_color(token)
    if parsed is None or parsed == "currentColor":
        raise _Refused(f"{_short(tinycss2.serialize([token]))!r} is not a colour a theme may "
                       "use (#rrggbb, rgb(), hsl(), a colour name, var(--hv-accent), "
                       "var(--hv-bg), color-mix(in srgb, ...))")
    if opaque and parsed.alpha < 1:
        raise _Refused(f"colour {_short(tinycss2.serialize([token]))!r} is not opaque: text "
                       "must not be hidden")
    return (parsed.red, parsed.green, parsed.blue)


def _colour_mix(token: Any, palette: _Palette | None) -> RGB:
    """``color-mix(in srgb, A [p%], B [q%])`` of opaque colours."""
    groups: list[list[Any]] = [[]]
    for part in _parts(token.arguments):
        if part.type == "literal" and part.value == ",":
            groups.append([])
        else:
            groups[-1].append(part)
    if len(groups) != 3 or [_keyword(t) for t in groups[0]] != ["in", "srgb"]:
        raise _Refused("color-mix() must be 'in srgb' of two colours")
    colours: list[RGB] = []
    shares: list[float | None] = []
    for group in groups[1:]:
        share = [t for t in group if t.type == "percentage"]
        rest = [t for t in group if t.type != "percentage"]
        if len(rest) != 1 or len(share) > 1 or any(not 0 <= s.value <= 100 for s in share):
            raise _Refused("color-mix() takes a colour and an optional percentage each")
        colours.append(_colour(rest[0], True, palette))
        shares.append(float(share[0].value) / 100 if share else None)
    first, second = shares
    if first is None and second is None:
        first = second = 0.5
    elif first is None:
        first = 1 - (second or 0.0)
    elif second is None:
        second = 1 - first
    total = first + (second or 0.0)
    if total <= 0:
        raise _Refused("color-mix() percentages must not both be 0")
    a, b = colours
    return (a[0] * first / total + b[0] * (second or 0.0) / total,
            a[1] * first / total + b[1] * (second or 0.0) / total,
            a[2] * first / total + b[2] * (second or 0.0) / total)


def _luminance(rgb: RGB) -> float:
    def channel(value: float) -> float:
        return value / 12.92 if value <= 0.04045 else ((value + 0.055) / 1.055) ** 2.4
    red, green, blue = (channel(v) for v in rgb)
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


@cache
def contrast(first: RGB, second: RGB) -> float:
    """The WCAG 2 contrast ratio of two colours (1 to 21)."""
    light, dark = sorted((_luminance(first), _luminance(second)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def _hex(rgb: RGB) -> str:
    return "#" + "".join(f"{round(v * 255):02x}" for v in rgb)


# --- Parsing --------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Declaration:
    name: str
    value: tuple[Any, ...]
    line: int
    trusted: bool


@dataclass(frozen=True)
class _Selector:
    text: str
    relaxed: str
    """The selector without pseudo-classes and attribute tests (it matches at least as much)."""
    definite: bool
    """True when the selector has neither: matching ``relaxed`` means it matches."""
    specificity: tuple[int, int]


@dataclass(frozen=True)
class _Rule:
    selectors: tuple[_Selector, ...]
    declarations: tuple[_Declaration, ...]
    order: int


@dataclass
class _Problems:
    """The problems found in one file: ``(line, one-line message)``, line 0 for the file."""

    origin: str
    offset: int
    found: list[tuple[int, str]] = field(default_factory=list)

    def add(self, line: int, text: str) -> None:
        where = f"{self.origin}:{line + self.offset}" if line else self.origin
        self.found.append((line + self.offset if line else 0, f"{where}: {text}"))

    def in_order(self) -> list[str]:
        """The messages, the file's first line first."""
        return [message for _, message in sorted(self.found, key=lambda found: found[0])]


def _parse(css: str, problems: _Problems, trusted: bool = False) -> list[_Rule]:
    rules: list[_Rule] = []
    if not trusted and css.count("{") > MAX_RULES:
        problems.add(0, f"a theme may have at most {MAX_RULES} rules")
        return rules
    for line_number, line in enumerate(css.splitlines(), start=1):
        if "</" in line or "<!--" in line:
            problems.add(line_number, "'</' and '<!--' are not allowed in a theme (the CSS "
                                      "is inlined in the page's <style>)")
    for node in tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True):
        if node.type == "at-rule":
            problems.add(node.source_line, f"at-rule '@{node.lower_at_keyword}' is not allowed "
                                           "in a theme (a theme is plain style rules: no "
                                           "@import, @font-face, @media, ...)")
        elif node.type == "error":
            problems.add(node.source_line, f"this is not valid CSS ({node.message})")
        elif node.type == "qualified-rule":
            rule = _rule(node, len(rules), problems, trusted)
            if rule is not None:
                rules.append(rule)
    return rules


def _rule(node: Any, order: int, problems: _Problems, trusted: bool) -> _Rule | None:
    selectors = []
    for group in _split_commas(node.prelude):
        try:
            selectors.append(_selector(group, trusted))
        except _Refused as refused:
            text = _short(tinycss2.serialize(group))
            problems.add(node.source_line, f"selector {text!r} is not allowed in a theme "
                                           f"({refused})")
            return None
    declarations = []
    for item in tinycss2.parse_declaration_list(node.content, skip_comments=True,
                                                skip_whitespace=True):
        if item.type == "declaration":
            declaration = _declaration(item, selectors, problems, trusted)
            if declaration is not None:
                declarations.append(declaration)
        elif item.type == "error":
            problems.add(item.source_line, f"this is not valid CSS ({item.message})")
        else:
            problems.add(item.source_line, "nested rules are not allowed in a theme")
    return _Rule(tuple(selectors), tuple(declarations), order)


def _declaration(item: Any, selectors: list[_Selector], problems: _Problems,
                 trusted: bool) -> _Declaration | None:
    name = str(item.name if item.name.startswith("--") else item.lower_name)
    if trusted:
        return _Declaration(name, tuple(item.value), item.source_line, True)
    check = PROPERTIES.get(name)
    if check is None:
        kind = "custom property" if name.startswith("--") else "property"
        problems.add(item.source_line, f"{kind} {name!r} is not allowed in a theme (a theme "
                                       "may set colours, backgrounds, borders, spacing, type "
                                       "and alignment only: see docs/themes.md)")
        return None
    if item.important:
        problems.add(item.source_line, f"property {name!r}: '!important' is not allowed in a "
                                       "theme")
        return None
    page_rule = [s.relaxed for s in selectors] == [":root"]
    if (name == _PAGE_VAR) != page_rule:
        problems.add(item.source_line, f"property {name!r} is not allowed here in a theme "
                                       f"(a ':root' rule of its own sets {_PAGE_VAR}, the page "
                                       "colour, and nothing else)")
        return None
    try:
        check(item.value)
    except _Refused as refused:
        value = _short(tinycss2.serialize(item.value))
        problems.add(item.source_line, f"property {name!r} may not be {value!r} in a theme "
                                       f"({refused})")
        return None
    return _Declaration(name, tuple(item.value), item.source_line, False)


def _short(text: str, limit: int = 80) -> str:
    """CSS text on one line, cut to ``limit`` characters for a message."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _split_commas(tokens: Tokens) -> Iterator[list[Any]]:
    group: list[Any] = []
    for token in tokens:
        if token.type == "literal" and token.value == ",":
            yield group
            group = []
        elif token.type != "comment":
            group.append(token)
    yield group


def _selector(tokens: list[Any], trusted: bool, scoped: bool = True) -> _Selector:
    """Check one complex selector and give its relaxed form and specificity; ``scoped``
    (all but the arguments of ``:not()`` and its kin) asks that it stay inside the table."""
    tokens = [t for t in tokens if t.type != "comment"]
    while tokens and tokens[0].type == "whitespace":
        tokens = tokens[1:]
    while tokens and tokens[-1].type == "whitespace":
        tokens = tokens[:-1]
    compounds: list[list[Any]] = [[]]
    combinators: list[str] = []
    pending: str | None = None
    for token in tokens:
        if token.type == "whitespace":
            if compounds[-1]:
                pending = pending or " "
        elif token.type == "literal" and token.value in _COMBINATORS:
            if not compounds[-1]:
                raise _Refused(f"it has a stray {token.value!r}")
            pending = token.value
        else:
            if pending is not None:
                combinators.append(pending)
                compounds.append([])
                pending = None
            compounds[-1].append(token)
    if not compounds[-1] or pending not in (None, " "):
        raise _Refused("it is empty or ends with a combinator")
    parsed = [_compound(compound, trusted) for compound in compounds]
    if trusted or not scoped or [t.type for t in tokens] == ["literal", "ident"] and \
            tokens[1].lower_value == "root":
        pass
    elif not parsed[0].anchor:
        raise _Refused("it must begin with one of the table's hv- classes (a theme styles "
                       "the table, not the page around it)")
    elif combinators and combinators[0] in "+~":
        raise _Refused("a sibling combinator right after a table class reaches outside the "
                       "table")
    relaxed = parsed[0].relaxed
    for combinator, part in zip(combinators, parsed[1:], strict=True):
        relaxed += (" " if combinator == " " else f" {combinator} ") + part.relaxed
    return _Selector(tinycss2.serialize(tokens).strip(), relaxed,
                     all(part.definite for part in parsed),
                     (sum(p.classes for p in parsed), sum(p.types for p in parsed)))


@dataclass(frozen=True)
class _Compound:
    relaxed: str
    definite: bool
    anchor: bool
    classes: int
    types: int


def _compound(tokens: list[Any], trusted: bool) -> _Compound:
    """Check one compound selector (``td.hv-num:first-child``)."""
    relaxed = ""
    definite, anchor = True, False
    classes = types = 0
    index = 0
    while index < len(tokens):
        token = tokens[index]
        following = tokens[index + 1] if index + 1 < len(tokens) else None
        if token.type == "ident":
            if token.lower_value not in ELEMENTS and not trusted:
                raise _Refused(f"element {token.value!r} is not in the table (use "
                               f"{', '.join(sorted(ELEMENTS))})")
            relaxed += str(token.lower_value)
            types += 1
        elif token.type == "literal" and token.value == "*":
            relaxed += "*"
        elif token.type == "literal" and token.value == ".":
            if following is None or following.type != "ident":
                raise _Refused("a '.' must name a class")
            name = str(following.value)
            if not (name in CLASSES or name.startswith("hv-theme-") or trusted):
                raise _Refused(f"class {name!r} is not one the table skeleton uses")
            relaxed += "." + name
            anchor = True
            classes += 1
            index += 1
        elif token.type == "literal" and token.value == ":":
            if following is None or following.type not in ("ident", "function"):
                raise _Refused("pseudo-elements (::before, ::after, ...) are not allowed: "
                               "they add or hide content")
            pseudo = str(following.lower_name if following.type == "function"
                         else following.lower_value)
            if pseudo not in PSEUDO_CLASSES and not trusted:
                raise _Refused(f"':{pseudo}' is not allowed (pseudo-elements such as ::before "
                               "and ::after add content)")
            if following.type == "function" and pseudo in _SELECTOR_FUNCTIONS:
                for group in _split_commas(following.arguments):
                    _selector(group, trusted, scoped=False)
            if pseudo == "root":
                relaxed += ":root"
            else:
                definite = False
            classes += 1
            index += 1
        elif token.type == "[] block":
            definite = False
            classes += 1
        elif token.type == "hash" and trusted:
            relaxed += "#" + str(token.value)
            classes += 1
        elif token.type == "hash":
            raise _Refused("id selectors are not allowed")
        else:
            raise _Refused(f"{tinycss2.serialize([token])!r} is not allowed in a selector")
        index += 1
    return _Compound(relaxed or "*", definite, anchor, classes, types)


# --- The sample table -----------------------------------------------------------------------

_BASE_CSS = """
html, body { background: var(--hv-bg); }
.hv-root { background: var(--hv-bg); color: #000000; font-size: var(--hv-size); }
.hv-table { font-size: inherit; }
.hv-caption { font-size: 0.95em; }
"""
"""The renderer's base rules that bear on colours and sizes (``hopvista.render.table``)."""


def _sample_documents(theme: Theme) -> list[Any]:
    """The theme's table drawn for a small table in each way the renderer draws one: the
    skeleton (a table alone, or a page template's panel) and a variant's panels (a header
    row repeated, row headings in the body, a merged cell, two panels)."""
    from bs4 import BeautifulSoup
    from jinja2 import Environment
    from markupsafe import Markup

    environment = Environment(autoescape=True)
    header = [{"row": 0, "col": c, "kind": kind, "text": text}
              for c, (kind, text) in enumerate([("entity", "Entity"), ("period", "Year"),
                                                ("num", "Value")])]
    rows = []
    for r, (entity, start, end) in enumerate([("A", True, False), ("A", False, True),
                                              ("B", True, True)], start=1):
        cells = [{"row": r, "col": c, "kind": kind, "text": text}
                 for c, (kind, text) in enumerate([("entity", entity), ("period", "2024"),
                                                   ("num", "1,234")])]
        rows.append({"cells": cells, "group_start": start, "group_end": end})
    table = environment.from_string(skeleton()).render(
        css="", theme=theme.name, font=theme.fonts[0], decor=list(theme.decor), panel=False,
        caption="Caption", header=header, rows=rows, column_letters=["A", "B", "C"])

    def cell(kind: str, text: str, head: bool, attrs: str = "") -> dict[str, Any]:
        return {"kind": kind, "text": text, "head": head,
                "attrs": Markup(f' data-row="0" data-col="0"{attrs}')}

    head_row = [cell("entity", "Entity", True), cell("num", "Value", True, ' colspan="2"')]
    body = [{"number": 2 + i, "group_start": i == 0, "group_end": i == 1,
             "cells": [cell("entity", "A", True), cell("period", "2024", False),
                       cell("num", "1,234", False)]} for i in range(2)]
    panel = {"caption": "Caption", "letters": ["A", "B", "C"], "body": body,
             "head": [{"number": 1, "cells": head_row},
                      {"number": 1, "cells": [cell("entity", "Entity", True, " data-copy")]}]}
    panels = environment.from_string(read_file(PACKAGE, "panels.html.j2")).render(
        panels=[panel, panel], arrange="stack", decor=list(theme.decor))
    document = environment.from_string(read_file(PACKAGE, "document.html.j2")).render(
        css="", theme=theme.name, tables=Markup(panels))
    return [BeautifulSoup(table, "html.parser"), BeautifulSoup(document, "html.parser")]



@dataclass(frozen=True)
class _Value:
    """A possible value of a property on an element, and the declaration that gave it."""

    value: Any
    line: int
    name: str


def _assignments(rules: list[_Rule], properties: frozenset[str]) -> list[
        tuple[_Selector, int, _Declaration]]:
    found = []
    for rule in rules:
        for selector in rule.selectors:
            for declaration in rule.declarations:
                if declaration.name in properties:
                    found.append((selector, rule.order, declaration))
    return found


def _possible(element_id: int, matches: dict[str, set[int]],
              assignments: list[tuple[_Selector, int, _Declaration]]) -> tuple[
                  list[_Declaration], bool]:
    """The declarations that may decide a property on an element, and whether one surely
    applies (else the inherited or initial value may show too)."""
    maybe: list[_Declaration] = []
    winner: tuple[tuple[int, int], int, _Declaration] | None = None
    for selector, order, declaration in assignments:
        if element_id not in matches[selector.relaxed]:
            continue
        if selector.definite:
            key = (selector.specificity, order)
            if winner is None or key >= (winner[0], winner[1]):
                winner = (selector.specificity, order, declaration)
        else:
            maybe.append(declaration)
    return ([winner[2]] if winner else []) + maybe, winner is not None


_TEXT_PROPS = frozenset({"color"})
_BACK_PROPS = frozenset({"background", "background-color"})
_SIZE_PROPS = frozenset({"font-size"})


def _analyse(theme: Theme, rules: list[_Rule], problems: _Problems) -> None:
    """Check every text of the sample tables for contrast and size, once per accent."""
    seen: set[str] = set()
    for document in _sample_documents(theme):
        _analyse_document(theme, document, rules, problems, seen)


def _analyse_document(theme: Theme, document: Any, rules: list[_Rule], problems: _Problems,
                      seen: set[str]) -> None:
    """Check every text of one sample document for contrast and size, once per accent."""
    elements = [document.html, *document.html.find_all(True)]
    ids = {id(e): i for i, e in enumerate(elements)}
    matches: dict[str, set[int]] = {}
    for rule in rules:
        for selector in rule.selectors:
            if selector.relaxed not in matches:
                matches[selector.relaxed] = _matching(document, selector.relaxed, ids)
    page_declarations = [d for r in rules if any(s.relaxed == ":root" for s in r.selectors)
                         for d in r.declarations if d.name == _PAGE_VAR]
    page = _Value((1.0, 1.0, 1.0), 0, _PAGE_VAR)
    if page_declarations:
        last = page_declarations[-1]
        page = _Value(_colour(_parts(last.value)[0], True), last.line, _PAGE_VAR)
    texts = _assignments(rules, _TEXT_PROPS)
    backs = _assignments(rules, _BACK_PROPS)
    sizes = _assignments(rules, _SIZE_PROPS)
    for accent in theme.accents:
        palette = _Palette(_rgb_of(accent), page.value)
        _check_contrast(elements, matches, texts, backs, palette, page, problems, seen)
    _check_sizes(theme, elements, matches, sizes, problems, seen)


def _matching(document: Any, selector: str, ids: dict[int, int]) -> set[int]:
    """The sample elements a (relaxed) selector matches; all of them when it cannot tell."""
    try:
        found = document.select(selector)
    except Exception:  # a trusted selector the matcher does not know: assume the worst
        return set(ids.values())
    return {ids[id(element)] for element in found if id(element) in ids}


def _rgb_of(hex_colour: str) -> RGB:
    return tuple(int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5))  # type: ignore[return-value]


def _check_contrast(elements: list[Any], matches: dict[str, set[int]],
                    texts: list[tuple[_Selector, int, _Declaration]],
                    backs: list[tuple[_Selector, int, _Declaration]], palette: _Palette,
                    page: _Value, problems: _Problems, seen: set[str]) -> None:
    colour: dict[int, list[_Value]] = {}
    back: dict[int, list[_Value]] = {}
    memo: dict[int, _Value | None] = {}
    parents = _parents(elements)
    for index, element in enumerate(elements):
        parent = parents[index]
        inherited = colour[parent] if parent is not None else [_Value((0.0, 0.0, 0.0), 0,
                                                                      "color")]
        behind = back[parent] if parent is not None else [page]
        outer = parents[parent] if parent is not None else None
        if element.name == "caption" and outer is not None:
            behind = back[outer]  # a table paints no background behind its caption
        declared, sure = _possible(index, matches, texts)
        colour[index] = _dedupe(_resolve(declared, inherited, palette, memo) +
                                ([] if sure else inherited))
        declared, sure = _possible(index, matches, backs)
        if "hv-root" in (element.get("class") or []):
            _check_root_background(declared, problems, seen)
        back[index] = _dedupe(_resolve(declared, behind, palette, memo) +
                              ([] if sure else behind))
        if not _has_text(element):
            continue
        for text in colour[index]:
            for ground in back[index]:
                ratio = contrast(text.value, ground.value)
                if ratio >= MIN_CONTRAST:
                    continue
                blamed = text if text.line >= ground.line else ground
                hint = ("a rule that sets a text colour should set its background too"
                        if blamed is text else
                        "a rule that sets a background should set its text colour too")
                message = (f"property {blamed.name!r} may not hide text in a theme (text "
                           f"{_hex(text.value)} on background {_hex(ground.value)}: contrast "
                           f"{ratio:.1f}:1, at least {MIN_CONTRAST:g}:1 needed; {hint})")
                if message not in seen:
                    seen.add(message)
                    problems.add(blamed.line, message)


def _check_root_background(declared: list[_Declaration], problems: _Problems,
                           seen: set[str]) -> None:
    """The table's root keeps an opaque background: a page template shows it on a window of
    its own colours, which a transparent table would let through."""
    for declaration in declared:
        parts = _parts(declaration.value)
        if declaration.trusted or not parts or _keyword(parts[0]) not in (
                "none", "transparent", "inherit"):
            continue
        message = (f"property {declaration.name!r} may not make the table's root transparent "
                   "in a theme (pages show it on backgrounds of their own; give it a colour)")
        if message not in seen:
            seen.add(message)
            problems.add(declaration.line, message)


def _parents(elements: list[Any]) -> list[int | None]:
    """The index of each element's parent in ``elements`` (document order), or None."""
    position = {id(element): index for index, element in enumerate(elements)}
    return [position.get(id(element.parent)) for element in elements]


def _has_text(element: Any) -> bool:
    from bs4.element import NavigableString

    if "hv-decor" in (element.get("class") or []):
        return False
    return any(isinstance(child, NavigableString) and child.strip()
               for child in element.children)


_INHERITED = _Value(None, 0, "")
"""What a declaration resolves to when it shows its parent's colour (inherit, transparent)."""


def _resolve(declared: list[_Declaration], inherited: list[_Value], palette: _Palette,
             memo: dict[int, _Value | None]) -> list[_Value]:
    """The colours ``declared`` may give, through ``memo`` (declaration id -> its colour)."""
    values: list[_Value] = []
    for declaration in declared:
        if id(declaration) not in memo:
            memo[id(declaration)] = _colour_of(declaration, palette)
        value = memo[id(declaration)]
        if value is _INHERITED:
            values += inherited
        elif value is not None:
            values.append(value)
    return values


def _colour_of(declaration: _Declaration, palette: _Palette) -> _Value | None:
    """The colour a declaration gives, :data:`_INHERITED`, or None when it names none."""
    parts = _parts(declaration.value)[:1]  # a trusted background's colour comes first
    if not parts:
        return None
    if _keyword(parts[0]) in ("inherit", "currentcolor", "none", "transparent"):
        return _INHERITED
    try:
        rgb = _colour(parts[0], False, palette)
    except _Refused:
        return None
    return _Value(rgb, 0 if declaration.trusted else declaration.line, declaration.name)


def _dedupe(values: Iterable[_Value]) -> list[_Value]:
    """One value per colour or size: the one declared last (what a message names)."""
    kept: dict[Any, _Value] = {}
    for value in values:
        if value.value not in kept or value.line > kept[value.value].line:
            kept[value.value] = value
    return list(kept.values())


def _check_sizes(theme: Theme, elements: list[Any], matches: dict[str, set[int]],
                 sizes: list[tuple[_Selector, int, _Declaration]], problems: _Problems,
                 seen: set[str]) -> None:
    low, high = theme.font_size_px
    bounds: dict[int, tuple[_Value, _Value]] = {}
    parents = _parents(elements)
    for index, element in enumerate(elements):
        parent = parents[index]
        inherited = bounds[parent] if parent is not None else (
            _Value(16.0, 0, "font-size"), _Value(16.0, 0, "font-size"))
        declared, sure = _possible(index, matches, sizes)
        smallest: list[_Value] = [] if sure else [inherited[0]]
        largest: list[_Value] = [] if sure else [inherited[1]]
        for declaration in declared:
            line = 0 if declaration.trusted else declaration.line
            parts = _parts(declaration.value)
            if _parts(declaration.value) and parts[0].type == "function":  # var(--hv-size)
                smallest.append(_Value(float(low), -1, "font_size_px"))
                largest.append(_Value(float(high), -1, "font_size_px"))
                continue
            kind, amount = _font_size_value(parts)
            if kind == "px":
                smallest.append(_Value(amount, line, "font-size"))
                largest.append(_Value(amount, line, "font-size"))
            else:
                smallest.append(_scaled(inherited[0], amount, line))
                largest.append(_scaled(inherited[1], amount, line))
        bounds[index] = (min(smallest, key=lambda v: v.value),
                         max(largest, key=lambda v: v.value))
        if not _has_text(element):
            continue
        for value, wrong in ((bounds[index][0], bounds[index][0].value < MIN_TEXT_PX - 1e-9),
                             (bounds[index][1], bounds[index][1].value > MAX_TEXT_PX + 1e-9)):
            if not wrong:
                continue
            if value.line == -1:
                message = (f"front matter field 'font_size_px': text may end up "
                           f"{value.value:.1f}px; a theme's text must be {MIN_TEXT_PX:g}px to "
                           f"{MAX_TEXT_PX:g}px")
                if message not in seen:
                    seen.add(message)
                    problems.add(0, message)
                continue
            message = (f"property 'font-size' may make text {value.value:.1f}px in a theme "
                       f"(text must be {MIN_TEXT_PX:g}px to {MAX_TEXT_PX:g}px, however "
                       "rules nest)")
            if message not in seen:
                seen.add(message)
                problems.add(value.line, message)


def _scaled(value: _Value, factor: float, line: int) -> _Value:
    changed = not math.isclose(factor, 1.0)
    return _Value(value.value * factor, line if changed and line else value.line, "font-size")


# --- Entry points ---------------------------------------------------------------------------


def theme_css_problems(theme: Theme, css: str, origin: str, line_offset: int = 0) -> list[str]:
    """Every way ``css`` (a theme file's style rules, starting after ``line_offset`` lines of
    front matter) breaks what a theme may do, as one-line messages ``FILE:LINE: ...``: first
    what the whitelist refuses, in line order, then illegible or ill-sized text."""
    whitelist = _Problems(origin, line_offset)
    for key, font in [("fonts", f) for f in theme.fonts] + \
            [("fallback_fonts", f) for f in theme.fallback_fonts]:
        if any(word in font.casefold().replace(" ", "") for word in SYMBOL_FONT_WORDS):
            whitelist.add(0, f"front matter field {key!r}: {font!r} is not a text font a "
                             "theme may use (it draws signs or pictures, not letters and "
                             "digits)")
            return whitelist.in_order()
    if len(theme.accents) > MAX_ACCENTS:
        whitelist.add(0, f"front matter field 'accents': at most {MAX_ACCENTS} colours")
        return whitelist.in_order()
    base = _parse(_BASE_CSS, _Problems("(base)", 0), trusted=True)
    rules = _parse(css, whitelist)
    if whitelist.found and not rules:
        return whitelist.in_order()
    legibility = _Problems(origin, line_offset)
    ordered = [_Rule(r.selectors, r.declarations, i) for i, r in enumerate(base + rules)]
    _analyse(theme, ordered, legibility)
    return whitelist.in_order() + [message for _, message in legibility.found]


def check_theme_css(theme: Theme, css: str, origin: str, line_offset: int = 0) -> None:
    """Raise a one-line ``UserError`` at the first thing in a theme file's CSS that could
    hide, move or add content (see the module docstring)."""
    messages = theme_css_problems(theme, css, origin, line_offset)
    if messages:
        raise UserError(messages[0])


@cache
def _theme_backgrounds(theme: Theme) -> dict[str, dict[str, tuple[str, ...]]]:
    """Per accent, the backgrounds a body cell (``td``) and a heading (a ``th`` of class
    ``hv-head``) may be drawn on."""
    rules = _parse(_BASE_CSS, _Problems("(base)", 0), trusted=True) + \
        _parse(theme.stylesheet(), _Problems(theme.name, 0), trusted=True)
    ordered = [_Rule(r.selectors, r.declarations, i) for i, r in enumerate(rules)]
    found: dict[str, dict[str, set[str]]] = {accent: {"td": set(), "th": set()}
                                             for accent in theme.accents}
    for document in _sample_documents(theme):
        elements = [document.html, *document.html.find_all(True)]
        ids = {id(e): i for i, e in enumerate(elements)}
        matches = {s.relaxed: _matching(document, s.relaxed, ids)
                   for rule in ordered for s in rule.selectors}
        page_declarations = [d for r in ordered if any(s.relaxed == ":root" for s in r.selectors)
                             for d in r.declarations if d.name == _PAGE_VAR]
        page = _Value(_colour(_parts(page_declarations[-1].value)[0], True)
                      if page_declarations else (1.0, 1.0, 1.0), 0, _PAGE_VAR)
        backs = _assignments(ordered, _BACK_PROPS)
        parents = _parents(elements)
        for accent in theme.accents:
            palette = _Palette(_rgb_of(accent), page.value)
            back: dict[int, list[_Value]] = {}
            memo: dict[int, _Value | None] = {}
            for index, element in enumerate(elements):
                parent = parents[index]
                behind = back[parent] if parent is not None else [page]
                declared, sure = _possible(index, matches, backs)
                back[index] = _dedupe(_resolve(declared, behind, palette, memo) +
                                      ([] if sure else behind))
                if element.name == "td" or (element.name == "th"
                                            and "hv-head" in element.get("class", [])):
                    found[accent][element.name] |= {_hex(value.value) for value in back[index]}
    return {accent: {tag: tuple(sorted(colours)) for tag, colours in tags.items()}
            for accent, tags in found.items()}


def cell_backgrounds(theme: Theme, accent: str) -> tuple[str, ...]:
    """Every background (``#rrggbb``) a body cell of ``theme`` may be drawn on with the
    accent colour ``accent`` (one of the theme's): the page's, the table's, a row's or the
    cell's own, as the theme's rules may paint them (conservatively: a rule that may apply
    counts)."""
    return _backgrounds_of(theme, accent, "td")


def heading_backgrounds(theme: Theme, accent: str) -> tuple[str, ...]:
    """Every background (``#rrggbb``) a heading cell (a column's header, a row's heading) of
    ``theme`` may be drawn on with the accent colour ``accent``, as :func:`cell_backgrounds`
    finds a body cell's."""
    return _backgrounds_of(theme, accent, "th")


def _backgrounds_of(theme: Theme, accent: str, tag: str) -> tuple[str, ...]:
    backgrounds = _theme_backgrounds(theme)
    if accent not in backgrounds:
        raise ValueError(f"table theme {theme.name!r} has no accent {accent!r}")
    return backgrounds[accent][tag]
