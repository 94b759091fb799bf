"""Table themes: one CSS file each, plus the HTML skeleton of a table (``table.html.j2``).

TableVista renders tables in four scenarios (Web, LaTeX, Excel and "Custom" themes drawn from
a pool); this registry covers all of them. A theme is a CSS file using the ``hv-`` classes of
the skeleton and the custom properties the renderer sets from the sampled style:

``--hv-font``  the font family (also set explicitly on ``.hv-root``)
``--hv-size``  body font size;  ``--hv-pad-y`` / ``--hv-pad-x``  cell padding
``--hv-margin``  space around the table;  ``--hv-accent``  the theme's accent colour
``--hv-head-max``  maximum width of a header label before it wraps

A theme sets ``--hv-bg`` (the page colour) in ``:root``. Themes never change the text itself
(no ``text-transform``, no ``content``): the layout reports the DOM text of every cell. A
theme file read from ``$HOPVISTA_THEMES`` is held to this when it loads: its CSS may only
style the table, never hide, move or add content (:mod:`hopvista.themes.tables.policy`,
docs/themes.md); the built-in files are trusted.

**A theme is a file.** Every theme, built-in or not, is one CSS file whose first comment is
its front matter: the word ``hopvista-theme``, then YAML (:class:`FrontMatter` lists the keys;
unknown keys are errors)::

    /* hopvista-theme
    name: sepia
    family: custom
    description: "Sepia page, ruled rows."
    fonts: [Caladea, Liberation Serif]
    font_size_px: [13, 16]
    accents: ["#704214"]
    */
    :root { --hv-bg: #f4ecd8; }
    .hv-table td { border-bottom: 1px solid var(--hv-accent); }

The registry :data:`TABLE_THEMES` finds them when it first loads: every ``*.css`` file of this
package, then every ``*.css`` file in the folders of ``$HOPVISTA_THEMES`` (``os.pathsep``
separated), then plug-ins (entry points ``hopvista.table_themes``, or
``TABLE_THEMES.register(name, Theme(...))``). A malformed front matter is a one-line
``UserError`` naming the file and the field; two files defining one name are an error.

:func:`sample_table_style` draws an item's style from its named streams
(:class:`hopvista.rng.Streams`): the same seed, item id and variant always give the same style,
and adding a theme re-styles only the items that pick the new theme.
"""

from __future__ import annotations

import os
import re
import textwrap
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictFloat,
    StrictInt,
    StringConstraints,
    ValidationError,
)

from hopvista.errors import UserError
from hopvista.registry import Registry
from hopvista.rng import Streams
from hopvista.themes.fonts import covers, lacking
from hopvista.themes.tables.files import read_file
from hopvista.themes.tables.policy import check_theme_css
from hopvista.yamlfile import load_yaml, read_text

FAMILIES = ("web", "latex", "excel", "custom")
"""TableVista's rendering scenarios; every theme belongs to one."""

DECOR = ("column-letters", "row-numbers")
"""Interface elements a theme may draw around the cells (not table content)."""

RANGE_KEYS = ("font_size_px", "padding_y_px", "padding_x_px", "margin_px", "header_max_em")
"""The integer parameters a theme gives a range for, sampled per item in this order."""

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
    the cells (:data:`DECOR`: ``column-letters`` and ``row-numbers`` for a spreadsheet).
    ``fallback_fonts`` are families of the same look drawn only for a table none of ``fonts``
    can show (a glyph missing from each); the style then records it (``font_fallback``).
    ``origin`` names where the theme came from (its file), for messages; it is not compared.
    Theme files (see the module docstring) give all of these but the CSS in their front
    matter. A third-party package may also register one with
    ``TABLE_THEMES.register("name", Theme(...))``; ``name`` must equal the registered name.
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
    fallback_fonts: tuple[str, ...] = ()
    origin: str = field(default="", compare=False)

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
        """The theme's CSS text (without a theme file's front matter)."""
        text = self.css or read_file(self.package, self.css_file)
        match = _FRONT_MATTER.match(text)
        return text[match.end():] if match else text


TABLE_THEMES: Registry[Theme] = Registry("table theme", "table_themes",
                                         loaders=(lambda: _register_files(),))
"""Every table theme by name: the CSS files here, those in ``$HOPVISTA_THEMES``, and any a
plug-in registers."""


# --- Themes as files ------------------------------------------------------------------------

FRONT_MATTER_TAG = "hopvista-theme"
"""The word that opens a theme file's first comment: the YAML after it describes the theme."""

THEMES_ENV = "HOPVISTA_THEMES"
"""Folders of user theme files (``os.pathsep``-separated), read when the registry loads."""
THEME_FILE_BYTES = 1 << 22
"""Bytes of one theme file in a user's folder (its front matter is YAML, bounded as every
user's YAML is: :mod:`hopvista.yamlfile`)."""

_FRONT_MATTER = re.compile(r"\A\s*/\*[ \t]*" + FRONT_MATTER_TAG + r"[ \t]*\r?\n(.*?)\*/\s*",
                           re.DOTALL)
_FONT_NAME = r"^[A-Za-z0-9][A-Za-z0-9 ._-]{0,63}$"
_COLOUR = r"^#[0-9A-Fa-f]{6}$"

FontName = Annotated[str, StringConstraints(pattern=_FONT_NAME)]
Colour = Annotated[str, StringConstraints(pattern=_COLOUR)]
Range = tuple[StrictInt, StrictInt]


class FrontMatter(BaseModel):
    """The YAML front matter of a theme file; unknown keys are errors. A key left out takes
    :class:`Theme`'s default."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9-]{0,47}$")]
    """The registry name: lower-case letters, digits and hyphens."""
    description: Annotated[str, StringConstraints(min_length=1, max_length=300)]
    """One line saying what the theme looks like."""
    fonts: Annotated[list[FontName], Field(min_length=1)]
    """Installed font families the theme may use, sampled per item (the first is the default)."""
    family: Literal["web", "latex", "excel", "custom"] | None = None
    """The TableVista scenario (:data:`FAMILIES`); ``custom`` when left out."""
    decor: list[Literal["column-letters", "row-numbers"]] | None = None
    """Interface elements drawn around the cells (:data:`DECOR`)."""
    fallback_fonts: list[FontName] | None = None
    """Installed families of the same look, drawn only for a table none of ``fonts`` has every
    glyph of."""
    font_size_px: Range | None = None
    """Body font size range, ``[low, high]`` (both included)."""
    padding_y_px: Range | None = None
    """Vertical cell padding range."""
    padding_x_px: Range | None = None
    """Horizontal cell padding range."""
    margin_px: Range | None = None
    """Range of the space around the table."""
    header_max_em: Range | None = None
    """Range of the widest a header label gets before it wraps, in em."""
    accents: Annotated[list[Colour], Field(min_length=1)] | None = None
    """Accent colours (``"#rrggbb"``, quoted: YAML reads ``#`` as a comment), one per item."""
    weight: Annotated[StrictFloat | StrictInt, Field(ge=0)] | None = None
    """Relative share when themes are sampled (1 = as often as a built-in theme)."""


def split_front_matter(text: str, origin: str) -> tuple[dict[str, Any], str]:
    """A theme file's front matter (parsed YAML, not yet validated) and the CSS after it.

    Raises ``UserError`` naming ``origin`` when the file does not open with a
    ``/* hopvista-theme ... */`` comment or its YAML is not a mapping.
    """
    match = _FRONT_MATTER.match(text)
    if match is None:
        raise UserError(f"table theme {origin}: the file must open with a "
                        f"'/* {FRONT_MATTER_TAG}' comment holding the theme's YAML front matter")
    try:
        data = load_yaml(textwrap.dedent(match.group(1)))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 2})" if mark is not None else ""
        problem = getattr(exc, "problem", None) or type(exc).__name__
        hint = ('; quote colours ("#rrggbb"): YAML reads # as a comment'
                if re.search(r"(^|[\s\[,:])#[0-9A-Fa-f]{3}", match.group(1)) else "")
        raise UserError(f"table theme {origin}: front matter is not valid YAML{where}: "
                        f"{problem}{hint}") from None
    if not isinstance(data, dict):
        raise UserError(f"table theme {origin}: front matter must be a YAML mapping "
                        "(name: ..., fonts: [...], ...)")
    return data, text[match.end():]


def theme_from_file(text: str, origin: str, css_file: str = "", package: str = "") -> Theme:
    """The :class:`Theme` a theme file describes. ``origin`` names the file in messages.

    With ``css_file`` and ``package`` the theme reads its CSS from that package resource (a
    built-in theme, which works from a wheel, and is trusted); otherwise it keeps the CSS
    text, which must keep to what a theme may do (:mod:`hopvista.themes.tables.policy`: no
    CSS that could hide, move or add content). Raises a one-line ``UserError`` naming the
    file and the field on a malformed front matter, and the file, line and property on CSS
    a theme may not use.
    """
    data, css = split_front_matter(text, origin)
    try:
        front = FrontMatter.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        field = ".".join(str(part) for part in error["loc"]) or "?"
        message = " ".join(str(error["msg"]).split())
        raise UserError(f"table theme {origin}: front matter field {field!r}: {message}") from None
    given: dict[str, Any] = {key: value for key, value in front.model_dump().items()
                             if value is not None}
    for key, value in given.items():
        if isinstance(value, list):
            given[key] = tuple(value)
    if "weight" in given:
        given["weight"] = float(given["weight"])
    if css_file:
        given |= {"css_file": css_file, "package": package}
    else:
        given["css"] = css
    try:
        theme = Theme(**given, origin=origin)
    except ValueError as exc:
        raise UserError(f"{origin}: {exc}") from None
    if not css_file:
        check_theme_css(theme, css, origin, text[:len(text) - len(css)].count("\n"))
    return theme


def read_theme_folder(folder: str | os.PathLike[str]) -> list[Theme]:
    """Every theme in a folder of theme files (``*.css``, in name order)."""
    path = Path(folder)
    if not path.is_dir():
        raise UserError(f"table theme folder {str(path)!r} is not a directory")
    return [theme_from_file(read_text(file, THEME_FILE_BYTES, "theme file"), str(file))
            for file in sorted(path.glob("*.css"))]


def builtin_themes() -> list[Theme]:
    """The themes shipped with hopvista: one per ``*.css`` file of this package."""
    files = sorted(entry.name for entry in resources.files(__name__).iterdir()
                   if entry.name.endswith(".css"))
    return [theme_from_file(read_file(__name__, name), f"{__name__}/{name}", css_file=name,
                            package=__name__) for name in files]


def user_theme_folders() -> list[Path]:
    """The folders ``$HOPVISTA_THEMES`` names (none when it is unset or empty)."""
    value = os.environ.get(THEMES_ENV, "")
    return [Path(part) for part in value.split(os.pathsep) if part]


def _register_files() -> None:
    """The registry's loader: the built-in theme files, then the user's folders."""
    themes = builtin_themes()
    for folder in user_theme_folders():
        if not folder.is_dir():
            raise UserError(f"{THEMES_ENV}: {str(folder)!r} is not a directory")
        themes += read_theme_folder(folder)
    seen: dict[str, str] = {}
    for theme in themes:
        if theme.name in seen and seen[theme.name] != theme.origin:
            raise UserError(f"table theme {theme.name!r} is defined twice: in {seen[theme.name]} "
                            f"and in {theme.origin}")
        seen[theme.name] = theme.origin
        TABLE_THEMES.register(theme.name, theme)


def load_table_themes() -> None:
    """Load every table theme now (the built-in ones, ``$HOPVISTA_THEMES``, plug-ins), so that
    a theme file a user cannot use stops a command before it does any work."""
    TABLE_THEMES.names()


def get_theme(name: str) -> Theme:
    """The theme registered as ``name``; a ``UserError`` naming the known themes otherwise."""
    theme = TABLE_THEMES.get(name)
    if theme.name != name:
        raise ValueError(f"table theme registered as {name!r} is named {theme.name!r}")
    return theme


def sample_table_style(streams: Streams, family: str | None = None,
                       text: str = "") -> dict[str, Any]:
    """The table style of one item variant: a JSON-serialisable dict the renderer accepts.

    ``family`` restricts the theme to one of :data:`FAMILIES` (a style variant's scenario);
    ``text`` is what the table will show: only themes and fonts with a glyph for each of its
    characters are drawn from (the renderer refuses a fallback font), unless none has them all.
    A theme drawn whose fonts all lack a glyph of ``text`` takes one of its ``fallback_fonts``
    that has them all (a LaTeX table in TeX Gyre when Latin Modern lacks one), and the style
    records which glyphs each of its fonts lacks (``font_fallback``).

    Keys: ``theme``, ``font``, ``font_size_px``, ``padding_y_px``, ``padding_x_px``,
    ``margin_px``, ``header_max_em``, ``accent``. Each comes from its own named stream
    (``table.theme``, ``table.font``, ``table.<key>``, ``table.accent``); the theme and font
    are rendezvous choices by name, so registering another theme changes the style of exactly
    the items that now pick it, and nothing else; a text every font shows leaves every choice
    as it would be without it.
    """
    themes = {n: t for n, t in TABLE_THEMES.items() if family is None or t.family == family}
    if not themes:
        raise UserError(f"no table theme of family {family!r}; families: {list(FAMILIES)}")
    fonts = {n: [f for f in t.fonts if covers(f, text)] for n, t in themes.items()}
    if any(fonts.values()):
        themes = {n: t for n, t in themes.items() if fonts[n]}
    name = streams.choose(themes, "table.theme", {n: t.weight for n, t in themes.items()})
    theme = get_theme(name)
    fallback = [] if fonts.get(name) else [f for f in theme.fallback_fonts if covers(f, text)]
    usable = fonts.get(name) or fallback or list(theme.fonts)
    style: dict[str, Any] = {"theme": name, "font": streams.choose(usable, "table.font")}
    for key in RANGE_KEYS:
        low, high = getattr(theme, key)
        style[key] = streams.integer(f"table.{key}", low, high)
    style["accent"] = streams.choose(theme.accents, "table.accent")
    if fallback:
        style["font_fallback"] = {font: lacking(font, text) for font in theme.fonts}
    return style
