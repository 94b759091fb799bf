"""Page templates for the ``screenshot`` variant: a table (and its question, and its chart when
the item has one) inside a realistic page or application window.

**A template is a file.** Each is a Jinja2 file here (``NAME.html.j2``) that opens with a Jinja
comment holding its front matter, the word ``hopvista-page`` then YAML::

    {#- hopvista-page
    name: browser
    description: "A web browser window: tab bar, address bar, a data portal page."
    fonts: [Noto Sans, Liberation Sans]
    -#}

``fonts`` lists every font family the template's own CSS names (installed system families
only: the renderer refuses font fallback, and no emoji or icon fonts; icons are CSS shapes).
:data:`PAGE_TEMPLATES` finds the files when it first loads (then plug-ins: entry points
``hopvista.page_templates``); a malformed front matter is a one-line ``UserError`` naming the
file and the field.

**The contract.** A template is rendered with autoescaping on and gets:

``css``        the table theme's CSS (trusted): put it in a ``<style>`` before the page's own
               CSS, which must then set ``html`` / ``body`` itself (the theme's base CSS does)
``tables``     the rendered table panels (trusted markup: ``render_panel`` in
               ``hopvista.render.table``, one ``div.hv-root`` each, without an ``id``)
``question``   the question, untrusted text: always escaped, never ``|safe``
``texts``      the item's passages, ``[{"name", "text"}]`` (untrusted text, escaped), shown
               before the question: a page must show every input a model needs
``chart_src``  a ``data:image/png;base64,...`` URL of the chart, or ``None``
``title``      a short window, tab or document title (text, escaped)
``width_px``   the window's width in CSS pixels (it may grow to fit a wide table)

The element with ``id="hv-root"`` is what the screenshot shows: the whole window. The element
with a ``data-viewport`` attribute is the region that scrolls when the page is taller than the
window drawn (its content is its one child, which is moved up by a margin; the region is
given a height and clips it), and the chart's ``<img>`` carries ``data-chart``; a template
without a ``data-viewport`` region shows a page that fits its window only. The page
loads nothing: a Content-Security-Policy forbids every load but inline styles and ``data:``
images, there is no JavaScript, and no ``url()`` but ``data:``. Pages never show text that
could be read as part of the item (no figures, no entity names): their chrome is generic.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Annotated, Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from hopvista.errors import UserError
from hopvista.registry import Registry
from hopvista.yamlfile import load_yaml

__all__ = ["PAGE_TEMPLATES", "PageTemplate", "page_names", "page_template", "read_page"]

FRONT_MATTER_TAG = "hopvista-page"
"""The word that opens a page template's first Jinja comment: YAML about the template follows."""

_FRONT_MATTER = re.compile(r"\A\{#-?[ \t]*" + FRONT_MATTER_TAG + r"[ \t]*\r?\n(.*?)-?#\}",
                           re.DOTALL)


@dataclass(frozen=True)
class PageTemplate:
    """One page template: its name, what it shows, the font families its chrome uses and its
    Jinja2 source. ``origin`` names its file in messages (not compared)."""

    name: str
    description: str
    fonts: tuple[str, ...]
    source: str
    origin: str = field(default="", compare=False)


class PageFrontMatter(BaseModel):
    """The YAML front matter of a page template; unknown keys are errors."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9-]{0,47}$")]
    """The registry name: lower-case letters, digits and hyphens."""
    description: Annotated[str, StringConstraints(min_length=1, max_length=300)]
    """One line saying what the window looks like."""
    fonts: Annotated[
        list[Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9 ._-]{0,63}$")]],
        Field(min_length=1),
    ]
    """Every installed font family the template's CSS names."""


def read_page(text: str, origin: str) -> PageTemplate:
    """The :class:`PageTemplate` a template file holds; ``origin`` names the file in messages.

    Raises a one-line ``UserError`` naming the file (and the field) when the front matter is
    missing or malformed.
    """
    match = _FRONT_MATTER.match(text)
    if match is None:
        raise UserError(f"page template {origin}: the file must open with a "
                        f"'{{#- {FRONT_MATTER_TAG}' comment holding its YAML front matter")
    try:
        data: Any = load_yaml(textwrap.dedent(match.group(1)))
    except yaml.YAMLError as exc:
        problem = getattr(exc, "problem", None) or type(exc).__name__
        raise UserError(f"page template {origin}: front matter is not valid YAML: "
                        f"{problem}") from None
    try:
        front = PageFrontMatter.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error["loc"]) or "front matter"
        message = " ".join(str(error["msg"]).split())
        raise UserError(f"page template {origin}: front matter field {where!r}: "
                        f"{message}") from None
    return PageTemplate(front.name, front.description, tuple(front.fonts), text, origin)


@cache
def _builtin_pages() -> tuple[PageTemplate, ...]:
    files = sorted((entry for entry in resources.files(__name__).iterdir()
                    if entry.name.endswith(".html.j2")), key=lambda entry: entry.name)
    return tuple(read_page(entry.read_text(encoding="utf-8"), f"{__name__}/{entry.name}")
                 for entry in files)


def _register_files() -> None:
    """The registry's loader: one template per ``*.html.j2`` file of this package."""
    for page in _builtin_pages():
        PAGE_TEMPLATES.register(page.name, page)


PAGE_TEMPLATES: Registry[PageTemplate] = Registry("page template", "page_templates",
                                                  loaders=(_register_files,))
"""Every page template by name: the files here and any a plug-in registers."""


def page_template(name: str) -> str:
    """The Jinja2 source of the page template ``name``; a ``UserError`` naming the known ones
    otherwise."""
    return PAGE_TEMPLATES.get(name).source


def page_names() -> list[str]:
    """Every page template's name, sorted."""
    return PAGE_TEMPLATES.names()
