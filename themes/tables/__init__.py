"""Table themes: one CSS file each, plus the HTML skeleton of a table (``table.html.j2``).

TableVista renders tables in four scenarios (Web, LaTeX, Excel and "Custom" themes drawn from
a pool); this registry covers all of them. A theme is a CSS file using the ``hv-`` classes of
the skeleton and the custom properties the renderer sets from the sampled style:

``--hv-font``  the font family (also set explicitly on ``.hv-root``)
``--hv-size``  body font size;  ``--hv-pad-y`` / ``--hv-pad-x``  cell padding
``--hv-margin``  space around the table;  ``--hv-accent``  the theme's accent colour
``--hv-head-max``  maximum width of a header label before it wraps

A theme sets ``--hv-bg`` (the page colour) in ``:root``. Themes never change the text itself
(no ``text-transform``, no ``content``): the layout reports the DOM text of every cell.

Themes live in the :data:`TABLE_THEMES` registry (a plug-in adds its own ``Theme`` with its
CSS text or file). :func:`sample_table_style` draws an item's style from its named streams
(:class:`hopvista.rng.Streams`): the same seed, item id and variant always give the same style,
and adding a theme re-styles only the items that pick the new theme.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from hopvista.errors import UserError
from hopvista.registry import Registry
from hopvista.rng import Streams

SKELETON = "table.html.j2"

FAMILIES = ("web", "latex", "excel", "custom")
"""TableVista's rendering scenarios; every theme belongs to one."""

DECOR = ("column-letters", "row-numbers")
"""Interface elements a theme may draw around the cells (not table content)."""

RANGE_KEYS = ("font_size_px", "padding_y_px", "padding_x_px", "margin_px", "header_max_em")
"""The integer parameters a theme gives a range for, sampled per item in this order."""

# Accent colours for the themes that use one (header fills, stripes, rules).
_ACCENTS: tuple[str, ...] = (
    "#1f4e79",
    "#2e75b6",
    "#385723",
    "#7f6000",
    "#843c0c",
    "#5b2c6f",
    "#0b5345",
    "#922b21",
    "#2c3e50",
    "#1a5276",
)


@dataclass(frozen=True)
class Theme:
    """One table theme: its CSS, the font families it may use and its parameter ranges.

    The CSS is given either as text (``css``) or as a file name (``css_file``) inside the
    Python package ``package`` (read with :mod:`importlib.resources`, so it works from a
    wheel); exactly one of the two. Ranges are ``(low, high)`` with both ends included.
    ``weight`` is the theme's relative share when themes are sampled (1.0 = as often as any
    built-in theme). ``family`` is the TableVista scenario the theme belongs to (one of
    :data:`FAMILIES`: ``web``, ``latex``, ``excel``, or ``custom`` for every other look) and
    picks the themes a style variant draws from; ``decor`` lists interface elements drawn around
    the cells (:data:`DECOR`: ``column-letters`` and ``row-numbers`` for a spreadsheet). A
    third-party package registers one with ``TABLE_THEMES.register("name", Theme(...))``;
    ``name`` must equal the registered name.
    """

    name: str
    fonts: tuple[str, ...]
    description: str
    css: str = ""
    css_file: str = ""
    package: str = __name__
    font_size_px: tuple[int, int] = (13, 16)
    padding_y_px: tuple[int, int] = (4, 8)
    padding_x_px: tuple[int, int] = (8, 14)
    margin_px: tuple[int, int] = (10, 20)
    header_max_em: tuple[int, int] = (8, 14)
    accents: tuple[str, ...] = ("#000000",)
    weight: float = 1.0
    family: str = "custom"
    decor: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if bool(self.css) == bool(self.css_file):
            raise ValueError(f"table theme {self.name!r}: give exactly one of css (text) "
                             "and css_file")
        if not self.fonts:
            raise ValueError(f"table theme {self.name!r}: fonts is empty")
        if not self.accents or len(set(self.accents)) != len(self.accents):
            raise ValueError(f"table theme {self.name!r}: accents must be distinct, and "
                             "at least one")
        for key in RANGE_KEYS:
            low, high = getattr(self, key)
            if low > high:
                raise ValueError(f"table theme {self.name!r}: {key} {low} > {high}")
        if self.family not in FAMILIES:
            raise ValueError(f"table theme {self.name!r}: family {self.family!r} is not one of "
                             f"{list(FAMILIES)}")
        if set(self.decor) - set(DECOR):
            raise ValueError(f"table theme {self.name!r}: decor {list(self.decor)} may only "
                             f"hold {list(DECOR)}")
        if not self.weight >= 0:
            raise ValueError(f"table theme {self.name!r}: weight must be >= 0")

    def stylesheet(self) -> str:
        """The theme's CSS text."""
        return self.css or _read(self.package, self.css_file)


_SANS = ("Liberation Sans", "Open Sans", "Roboto", "DejaVu Sans", "Noto Sans")
_SERIF = ("Liberation Serif", "Caladea", "TeX Gyre Pagella", "TeX Gyre Termes", "DejaVu Serif")

_BUILTIN: tuple[Theme, ...] = (
    Theme(
        "web",
        _SANS,
        "Bootstrap-like web table: light header, striped rows, thin horizontal rules.",
        css_file="web.css",
        family="web",
    ),
    Theme(
        "wikitable",
        ("Liberation Sans", "DejaVu Sans", "Noto Sans", "TeX Gyre Heros"),
        "Wikipedia 'wikitable': grey header, grey cell borders, light grey page.",
        css_file="wikitable.css",
        family="web",
        font_size_px=(13, 15),
        padding_y_px=(3, 6),
        padding_x_px=(6, 10),
    ),
    Theme(
        "latex",
        ("CMU Serif", "Latin Modern Roman"),
        "LaTeX booktabs: top, mid and bottom rules, no vertical lines, Computer Modern.",
        css_file="latex.css",
        family="latex",
        font_size_px=(14, 17),
        padding_y_px=(2, 5),
        padding_x_px=(8, 14),
    ),
    Theme(
        "excel",
        ("Carlito", "Liberation Sans"),
        "Spreadsheet: gridlines on every cell, grey header band, dense rows.",
        css_file="excel.css",
        family="excel",
        decor=("column-letters", "row-numbers"),
        font_size_px=(13, 15),
        padding_y_px=(1, 3),
        padding_x_px=(4, 7),
        margin_px=(4, 10),
    ),
    Theme(
        "dark",
        ("Roboto", "Open Sans", "DejaVu Sans", "Noto Sans"),
        "Dark mode: light text on a dark page, subtle row separators.",
        css_file="dark.css",
        accents=("#4fc3f7", "#81c784", "#ffb74d", "#ba68c8", "#f06292"),
    ),
    Theme(
        "minimal",
        ("Open Sans", "Roboto", "Noto Sans", "Carlito"),
        "Minimal: whitespace only, one hairline under the header.",
        css_file="minimal.css",
        padding_y_px=(5, 9),
        padding_x_px=(12, 18),
    ),
    Theme(
        "zebra",
        ("Liberation Sans", "DejaVu Sans", "Roboto", "Carlito"),
        "Zebra: strongly tinted alternate rows in the accent colour, no borders.",
        css_file="zebra.css",
        accents=_ACCENTS,
    ),
    Theme(
        "financial-report",
        _SERIF + ("EB Garamond 12",),
        "Annual-report style: serif, right-aligned figures, rule above totals, double rule below.",
        css_file="financial.css",
        font_size_px=(14, 17),
        accents=_ACCENTS,
    ),
    Theme(
        "compact",
        ("Liberation Sans Narrow", "Roboto Condensed", "Carlito"),
        "Compact: small type, tight padding, condensed faces, thin borders.",
        css_file="compact.css",
        font_size_px=(11, 13),
        padding_y_px=(1, 2),
        padding_x_px=(3, 6),
        margin_px=(4, 8),
        header_max_em=(7, 11),
    ),
    Theme(
        "bold-header",
        ("Liberation Sans", "Roboto", "Open Sans", "TeX Gyre Heros"),
        "Black header band with white bold labels, heavy outer border.",
        css_file="bold_header.css",
    ),
    Theme(
        "coloured-header",
        ("Roboto", "Open Sans", "Noto Sans", "Carlito", "Liberation Sans"),
        "Header filled with the accent colour, white labels, light row rules.",
        css_file="coloured_header.css",
        accents=_ACCENTS,
    ),
    Theme(
        "monospace",
        ("Inconsolata", "Liberation Mono", "DejaVu Sans Mono"),
        "Plain-text look: monospace, dashed rules, like a terminal or a code listing.",
        css_file="monospace.css",
        font_size_px=(13, 15),
        padding_y_px=(2, 4),
        padding_x_px=(6, 10),
    ),
    Theme(
        "classic",
        ("Caladea", "TeX Gyre Schola", "TeX Gyre Bonum", "Liberation Serif", "DejaVu Serif"),
        "Printed-document look: double outer border, cream page, serif type.",
        css_file="classic.css",
        accents=_ACCENTS,
    ),
)

TABLE_THEMES: Registry[Theme] = Registry("table theme", "table_themes")
"""Every table theme by name: the built-in ones below and any a plug-in registers."""

for _theme in _BUILTIN:
    TABLE_THEMES.register(_theme.name, _theme)


@cache
def _read(package: str, filename: str) -> str:
    return resources.files(package).joinpath(filename).read_text(encoding="utf-8")


def skeleton() -> str:
    """The Jinja2 source of the default table skeleton (``table.html.j2``)."""
    return _read(__name__, SKELETON)


def get_theme(name: str) -> Theme:
    """The theme registered as ``name``; a ``UserError`` naming the known themes otherwise."""
    theme = TABLE_THEMES.get(name)
    if theme.name != name:
        raise ValueError(f"table theme registered as {name!r} is named {theme.name!r}")
    return theme


def sample_table_style(streams: Streams, family: str | None = None) -> dict[str, Any]:
    """The table style of one item variant: a JSON-serialisable dict the renderer accepts.

    ``family`` restricts the theme to one of :data:`FAMILIES` (a style variant's scenario).

    Keys: ``theme``, ``font``, ``font_size_px``, ``padding_y_px``, ``padding_x_px``,
    ``margin_px``, ``header_max_em``, ``accent``. Each comes from its own named stream
    (``table.theme``, ``table.font``, ``table.<key>``, ``table.accent``); the theme and font
    are rendezvous choices by name, so registering another theme changes the style of exactly
    the items that now pick it, and nothing else.
    """
    themes = {n: t for n, t in TABLE_THEMES.items() if family is None or t.family == family}
    if not themes:
        raise UserError(f"no table theme of family {family!r}; families: {list(FAMILIES)}")
    name = streams.choose(themes, "table.theme", {n: t.weight for n, t in themes.items()})
    theme = get_theme(name)
    style: dict[str, Any] = {"theme": name, "font": streams.choose(theme.fonts, "table.font")}
    for key in RANGE_KEYS:
        low, high = getattr(theme, key)
        style[key] = streams.integer(f"table.{key}", low, high)
    style["accent"] = streams.choose(theme.accents, "table.accent")
    return style


def default_style(name: str) -> dict[str, Any]:
    """The unsampled style of a theme: its first font and the middle of each range."""
    theme = get_theme(name)
    style: dict[str, Any] = {"theme": theme.name, "font": theme.fonts[0]}
    for key in RANGE_KEYS:
        low, high = getattr(theme, key)
        style[key] = (low + high) // 2
    style["accent"] = theme.accents[0]
    return style
