"""The built-in chart libraries: matplotlib, seaborn and plotly, registered by name.

Each entry of :data:`hopvista.themes.charts.CHART_LIBRARIES` names the kinds it draws, its
base looks and a ``draw`` function. The drawing modules are imported when a chart is drawn,
not when a style is sampled, so sampling stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hopvista.render.chart_mpl import draw_matplotlib_chart
from hopvista.render.chart_plotly import emphasis_box, plotly_figure
from hopvista.themes.charts import CHART_LIBRARIES, ChartLibrary, Drawn
from hopvista.themes.fonts import (
    FALLBACK_FAMILY,
    file_version,
    fontconfig_face,
    fontconfig_family,
    resolve_font,
)

if TYPE_CHECKING:
    from hopvista.render.chart import ChartRenderer
    from hopvista.render.chart_data import ChartData

BUILTIN_KINDS = ("line", "bar", "scatter", "pie")
"""The kinds every built-in library draws."""


def _draw_matplotlib(renderer: ChartRenderer, data: ChartData, style: dict[str, Any],
                     fallback: str, *, seaborn: bool) -> Drawn:
    font = resolve_font(style["font"]["family"])
    png, box = draw_matplotlib_chart(data, style, font, bool(fallback), seaborn=seaborn)
    return Drawn(png, font.path, file_version(font.path, font.face_index), box)


def draw_matplotlib(renderer: ChartRenderer, data: ChartData, style: dict[str, Any],
                    fallback: str) -> Drawn:
    """A matplotlib chart (one ``Figure`` on an Agg canvas, rcParams reset per image)."""
    return _draw_matplotlib(renderer, data, style, fallback, seaborn=False)


def draw_seaborn(renderer: ChartRenderer, data: ChartData, style: dict[str, Any],
                 fallback: str) -> Drawn:
    """A matplotlib chart under a seaborn style and plotting context."""
    return _draw_matplotlib(renderer, data, style, fallback, seaborn=True)


def draw_plotly(renderer: ChartRenderer, data: ChartData, style: dict[str, Any],
                fallback: str) -> Drawn:
    """A plotly figure exported by kaleido in the renderer's Chromium; the font is the face
    fontconfig gives Chromium for the family."""
    family = style["font"]["family"]
    css_family = fontconfig_family(family)
    path, index = fontconfig_face(family)
    if fallback:
        css_family = f"{css_family}, {fontconfig_family(FALLBACK_FAMILY)}"
    figure = plotly_figure(data, style, css_family)
    size = int(style["width"]), int(style["height"])
    png = renderer.kaleido_png(figure, *size)
    box = None
    if data.emphasis is not None:  # where plotly put the mark: the same figure as SVG
        box = emphasis_box(renderer.kaleido_svg(figure, *size), data, style)
    return Drawn(png, path, file_version(path, index), box)


for _library in (
    ChartLibrary(
        "matplotlib", "matplotlib on its own; 'box' keeps four spines, 'open' two.",
        BUILTIN_KINDS, {True: ("box", "open"), False: ("box", "open")}, draw_matplotlib,
        ("matplotlib",)),
    ChartLibrary(
        "seaborn", "matplotlib under seaborn's axes styles (grid or plain).",
        BUILTIN_KINDS, {True: ("whitegrid", "darkgrid"), False: ("white", "ticks")},
        draw_seaborn, ("seaborn", "matplotlib")),
    ChartLibrary(
        "plotly", "plotly templates, exported to PNG by kaleido in headless Chromium.",
        BUILTIN_KINDS,
        {True: ("plotly_white", "plotly", "simple_white"),
         False: ("plotly_white", "plotly", "simple_white")},
        draw_plotly, ("plotly", "kaleido")),
):
    CHART_LIBRARIES.register(_library.name, _library)
