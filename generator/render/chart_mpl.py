"""matplotlib and seaborn charts: one ``Figure`` per image, drawn under reset rcParams.

No pyplot state is used: each image is its own ``Figure`` on an Agg canvas, drawn inside
``matplotlib.rc_context`` after ``rcdefaults()`` (seaborn's look comes from ``axes_style`` /
``plotting_context`` dicts, never ``set_theme``), so an image is the same whatever was drawn
before it. rcParams are process-global: drawing holds a lock. Text is drawn from the font files
``hopvista.themes.fonts`` resolved, under family names that match those files only, never
through matplotlib's own (per-user, order-dependent) font lookup.
"""

from __future__ import annotations

import io
import math
import threading
from collections.abc import Callable
from typing import Any, Literal

from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle, Wedge
from matplotlib.text import Text

from hopvista.render.chart_data import (
    EMPHASIS_MARKER,
    EMPHASIS_RING,
    LINE_X_PADDING,
    TITLE_WIDTH_SHARE,
    ChartData,
    Emphasis,
    dodge,
    emphasis_pad,
    legend_labels,
    pixel_box,
    scatter_padding,
    text_width_px,
    wrap_label,
)
from hopvista.themes.fonts import ResolvedFont, matplotlib_families, matplotlib_weight

_RC_LOCK = threading.Lock()

ZERO_LINE_COLOR = "#333333"
PIE_EDGE_COLOR = "white"
PIE_LABEL_DISTANCE = 1.08
PIE_LABEL_GAP_PX = 3.0
PIE_FIT_ROUNDS = 6
TICK_GAP_PX = 10.0
Y_AXIS_ALLOWANCE_PX = 110.0
"""Rough width of the value axis (tick labels and title), to size the title before layout."""
CROWDED_SHARE = 0.4
"""Year labels are measured after layout only when together they take this share of the
image width (FCMR's five years never do)."""
GRID_ALPHA = 0.45
LAYOUT_PAD_IN = 0.08
"""Space between the image edge and titles or legends, in inches (8 px at dpi 100)."""


def _rc(style: dict[str, Any], font: ResolvedFont, fallback: bool,
        seaborn: bool) -> dict[str, Any]:
    from cycler import cycler

    sizes = style["font_sizes"]
    rc: dict[str, Any] = {}
    if seaborn:
        import seaborn as sns

        rc.update(sns.axes_style(style["theme"]))
        rc.update(sns.plotting_context("notebook"))
    else:
        rc["axes.grid"] = bool(style["grid"])
        rc["grid.alpha"] = GRID_ALPHA
    weight = matplotlib_weight(font.weight)
    rc.update({
        "font.family": matplotlib_families(font.family, fallback),
        "font.weight": weight,
        # Chart text is plain text; mathtext would choose its own fonts by family name.
        "text.parse_math": False,
        "axes.titleweight": weight,
        "axes.labelweight": weight,
        "figure.titleweight": weight,
        "font.size": sizes["tick"],
        "axes.titlesize": sizes["title"],
        "axes.labelsize": sizes["axis_label"],
        "xtick.labelsize": sizes["tick"],
        "ytick.labelsize": sizes["tick"],
        "legend.fontsize": sizes["legend"],
        "axes.unicode_minus": False,
        "axes.axisbelow": True,
        "axes.prop_cycle": cycler(color=list(style["palette"])),
        "lines.linewidth": style["line_width"],
        "lines.markersize": style["marker_size"],
        "legend.frameon": False,
        "figure.constrained_layout.h_pad": LAYOUT_PAD_IN,
        "figure.constrained_layout.w_pad": LAYOUT_PAD_IN,
        "savefig.facecolor": "white",
        "figure.facecolor": "white",
    })
    return rc
def draw_matplotlib_chart(data: ChartData, style: dict[str, Any], font: ResolvedFont,
                          fallback: bool, seaborn: bool,
                          inspect: Callable[[Figure], None] | None = None
                          ) -> tuple[bytes, tuple[int, int, int, int] | None]:
    """The chart as PNG bytes of exactly ``style["width"] x style["height"]`` pixels, and the
    pixel box of the emphasised mark when ``data.emphasis`` is set (drawn last, over the
    finished layout, so nothing else moves).

    ``inspect`` (tests) is called with the drawn figure while its rcParams still apply.
    """
    import matplotlib as mpl
    import matplotlib.style
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    rc = _rc(style, font, fallback, seaborn)
    dpi = int(style["dpi"])
    with _RC_LOCK, mpl.rc_context():
        mpl.rcdefaults()
        matplotlib.style.use(rc)
        fig = Figure(figsize=(style["width"] / dpi, style["height"] / dpi), dpi=dpi,
                     layout="constrained")
        FigureCanvasAgg(fig)
        ax = fig.add_subplot()
        legend_px = 0.0
        if data.kind != "pie":
            _series(ax, data, style, seaborn)
            legend_px = _legend(fig, data, style, font.family)
            _axes(ax, data, style, seaborn)
        # The title is centred over the plot and wraps within it, clear of a legend beside it.
        width = int(style["width"])
        room = max(0.5 * width, min(TITLE_WIDTH_SHARE * width,
                                    width - legend_px - Y_AXIS_ALLOWANCE_PX))
        title = wrap_label(data.title, font.family, float(style["font_sizes"]["title"]), dpi,
                           room)
        ax.set_title("\n".join(title))
        wedges: list[Wedge] = []
        if data.kind == "pie":
            wedges = _pie(fig, ax, data, style, font.family)
        else:
            _slant_crowded_years(fig, ax, data, style, font.family)
        emphasis = data.emphasis
        marks = _emphasis(ax, data, emphasis, style, seaborn, wedges) if emphasis else []
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=dpi, metadata={"Software": None})
        box = _emphasis_box(fig, marks, emphasis, style) if emphasis else None
        if inspect is not None:
            inspect(fig)
    return buffer.getvalue(), box


def _series(ax: Axes, data: ChartData, style: dict[str, Any], seaborn: bool) -> None:
    palette = list(style["palette"])[:len(data.names)]
    colors = dict(zip(data.names, palette, strict=True))
    width = float(style["bar_width"])
    count = len(data.names)
    offsets, marker = dodge(count, len(data.years), int(style["width"]),
                            float(style["marker_size"]) * int(style["dpi"]) / 72.0)
    marker_pt = marker * 72.0 / int(style["dpi"])
    if seaborn:
        _seaborn_series(ax, data, style, colors, offsets, marker_pt)
        return
    for i, (name, values) in enumerate(zip(data.names, data.values, strict=True)):
        color = colors[name]
        if data.kind == "line":
            ax.plot(data.years, values, color=color, linewidth=style["line_width"],
                    marker="o", markersize=style["marker_size"], zorder=3)
        elif data.kind == "scatter":
            ax.scatter([y + offsets[i] for y in data.years], values, s=marker_pt ** 2,
                       color=color, linewidths=0, zorder=3)
        else:
            bar = width / count
            left = -width / 2 + bar / 2
            ax.bar([p + left + i * bar for p in range(len(data.years))], values, width=bar,
                   color=color, zorder=2)


def _seaborn_series(ax: Axes, data: ChartData, style: dict[str, Any],
                    colors: dict[str, str], offsets: list[float], marker_pt: float) -> None:
    import seaborn as sns

    rows: dict[str, list[Any]] = {"year": [], "x": [], "value": [], "entity": []}
    for i, (name, values) in enumerate(zip(data.names, data.values, strict=True)):
        for year, value in zip(data.years, values, strict=True):
            rows["year"].append(year)
            rows["x"].append(year + offsets[i])
            rows["value"].append(value)
            rows["entity"].append(name)
    common = {"data": rows, "hue": "entity", "hue_order": list(data.names),
              "palette": colors, "legend": False, "ax": ax}
    if data.kind == "line":
        sns.lineplot(x="year", y="value", marker="o", markersize=style["marker_size"],
                     linewidth=style["line_width"], errorbar=None, **common)
    elif data.kind == "scatter":
        sns.scatterplot(x="x", y="value", s=marker_pt ** 2, zorder=3, **common)
    else:
        sns.barplot(x="year", y="value", order=list(data.years), width=style["bar_width"],
                    saturation=1.0, errorbar=None, **common)


def _slant_crowded_years(fig: Figure, ax: Axes, data: ChartData, style: dict[str, Any],
                         family: str) -> None:
    """Slant the year labels by 45° (or stand them up) when they would touch side by side.

    Only judged after a layout pass, and only when the years could be crowded at all.
    """
    dpi = int(style["dpi"])
    tick_pt = float(style["font_sizes"]["tick"])
    label_px = max(text_width_px(t, family, tick_pt, dpi) for t in data.period_texts())
    if len(data.years) * (label_px + TICK_GAP_PX) <= CROWDED_SHARE * int(style["width"]):
        return
    fig.draw_without_rendering()
    centres = sorted(float(x) for x, _ in ax.transData.transform(
        [(t, 0.0) for t in ax.get_xticks()]))
    spacing = min(b - a for a, b in zip(centres, centres[1:], strict=False))
    if spacing >= label_px + TICK_GAP_PX:
        return
    line_px = 1.3 * tick_pt * dpi / 72.0
    angle = 45 if spacing * math.sin(math.radians(45)) >= line_px else 90
    ax.tick_params(axis="x", labelrotation=angle)
    for tick in ax.get_xticklabels():
        tick.set_horizontalalignment("right" if angle == 45 else "center")
        tick.set_rotation_mode("anchor" if angle == 45 else "default")


def _tick_decimals(ticks: list[float]) -> int:
    for decimals in range(7):
        if all(abs(round(t, decimals) - t) <= 1e-9 * max(1.0, abs(t)) for t in ticks):
            return decimals
    return 6


def _axes(ax: Axes, data: ChartData, style: dict[str, Any], seaborn: bool) -> None:
    from matplotlib.ticker import FuncFormatter

    labels = data.period_texts()
    if data.kind == "bar":
        ax.set_xticks(range(len(data.years)), labels)
        ax.set_xlim(-0.5, len(data.years) - 0.5)
        ax.xaxis.grid(False)
    else:
        pad = LINE_X_PADDING if data.kind == "line" else scatter_padding(len(data.names))
        ax.set_xticks(list(data.years), labels)
        ax.set_xlim(data.years[0] - pad, data.years[-1] + pad)
    ax.minorticks_off()
    low, high = data.value_range()
    ax.set_ylim(low, high)
    ticks = [float(t) for t in ax.yaxis.get_major_locator().tick_values(low, high)]
    decimals = _tick_decimals(ticks)
    half = 0.5 * 10.0 ** -decimals

    def fmt(value: float, _: int | None) -> str:
        return f"{0.0 if abs(value) < half else value:,.{decimals}f}"

    ax.yaxis.set_major_formatter(FuncFormatter(fmt))
    if data.crosses_zero():
        ax.axhline(0.0, color=ZERO_LINE_COLOR, linewidth=0.9, zorder=2.5)
    if not seaborn and style["theme"] == "open":
        ax.spines[["top", "right"]].set_visible(False)
    ax.set_xlabel(data.category_title)
    ax.set_ylabel(data.value_title)


def _legend(fig: Figure, data: ChartData, style: dict[str, Any], family: str) -> float:
    """Draw the legend outside the plot; returns the width it takes beside the plot (px)."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    palette = list(style["palette"])
    size = float(style["font_sizes"]["legend"])
    dpi = int(style["dpi"])
    lines, columns = legend_labels(data.names, style["legend"], family, size, dpi,
                                   int(style["width"]))
    handles: list[Artist] = []
    for i in range(len(data.names)):
        if data.kind == "bar":
            handles.append(Patch(facecolor=palette[i]))
        elif data.kind == "line":
            handles.append(Line2D([], [], color=palette[i], linewidth=style["line_width"],
                                  marker="o", markersize=style["marker_size"]))
        else:
            handles.append(Line2D([], [], color=palette[i], linestyle="",
                                  marker="o", markersize=style["marker_size"]))
    loc: Literal["outside right upper", "outside lower center"] = (
        "outside right upper" if style["legend"] == "right" else "outside lower center")
    fig.legend(handles, ["\n".join(parts) for parts in lines], loc=loc, ncols=columns)
    if style["legend"] != "right":
        return 0.0
    widest = max(text_width_px(line, family, size, dpi) for parts in lines for line in parts)
    return widest + 3.5 * size * dpi / 72.0


def _pie_start_angle(values: list[float]) -> float:
    """Start angle that centres the smallest slice at 3 o'clock, where neighbouring labels
    are spread vertically (slices run clockwise)."""
    total = sum(values)
    smallest = min(range(len(values)), key=lambda i: (values[i], i))
    before = sum(values[:smallest])
    return 360.0 * (before + values[smallest] / 2) / total


def _pie(fig: Figure, ax: Axes, data: ChartData, style: dict[str, Any],
         family: str) -> list[Wedge]:
    values = [series[0] for series in data.values]
    size = float(style["font_sizes"]["legend"])
    dpi = int(style["dpi"])
    labels = ["\n".join(wrap_label(n, family, size, dpi, 0.3 * int(style["width"])))
              for n in data.names]
    wedges, texts = ax.pie(values, labels=labels, colors=list(style["palette"])[:len(values)],
                      startangle=_pie_start_angle(values), counterclock=False,
                      labeldistance=PIE_LABEL_DISTANCE,
                      wedgeprops={"edgecolor": PIE_EDGE_COLOR, "linewidth": 1.0},
                      textprops={"fontsize": size})[:2]
    for text in texts:
        text.set_in_layout(False)  # _fit_pie keeps them inside the axes instead
    ax.set_aspect("auto")  # the axes take all the room; _fit_pie keeps the pie round
    _fit_pie(fig, ax, list(texts))
    return list(wedges)


def _point(data: ChartData, e: Emphasis, style: dict[str, Any]) -> tuple[float, float, float]:
    """The emphasised point's data coordinates and its marker diameter in points."""
    marker = float(style["marker_size"])
    x = float(data.years[e.period])
    if data.kind == "scatter":
        offsets, px = dodge(len(data.names), len(data.years), int(style["width"]),
                            marker * int(style["dpi"]) / 72.0)
        x += offsets[e.series]
        marker = px * 72.0 / int(style["dpi"])
    return x, data.values[e.series][e.period], marker


def _bar(ax: Axes, data: ChartData, e: Emphasis) -> Rectangle:
    """The drawn bar of the emphasised point: in its year's group, the series' place from the
    left (matplotlib and seaborn both dodge bars in series order)."""
    group = sorted((p for p in ax.patches if isinstance(p, Rectangle)
                    and abs(p.get_x() + p.get_width() / 2 - e.period) < 0.5),
                   key=lambda p: p.get_x())
    if len(group) != len(data.names):
        raise RuntimeError(f"found {len(group)} bars for year {e.year}, expected "
                           f"{len(data.names)}")
    return group[e.series]


def _emphasis(ax: Axes, data: ChartData, e: Emphasis, style: dict[str, Any], seaborn: bool,
              wedges: list[Wedge]) -> list[Artist]:
    """Draw the emphasis over the finished chart; returns the artists drawn. They take no
    part in the layout and the axes limits are already fixed, so nothing else moves."""
    from matplotlib.lines import Line2D

    colour = list(style["palette"])[e.series]
    marks: list[Artist] = []
    if data.kind == "pie":
        w = wedges[e.series]
        marks.append(Wedge(w.center, w.r, w.theta1, w.theta2, fill=False, edgecolor=e.colour,
                           linewidth=e.width, joinstyle="round", zorder=5))
    elif data.kind == "bar":
        bar = _bar(ax, data, e)
        marks.append(Rectangle(bar.get_xy(), bar.get_width(), bar.get_height(), fill=False,
                               edgecolor=e.colour, linewidth=e.width, joinstyle="round",
                               zorder=4))
    elif e.how == "series":
        # the whole line, thicker, just under the series' own line and markers
        marks.append(Line2D(list(data.years), list(data.values[e.series]), color=colour,
                            linewidth=float(style["line_width"]) + 2 * e.width,
                            solid_capstyle="round", solid_joinstyle="round",
                            zorder=1.95 if seaborn else 2.95))
    else:
        x, y, marker = _point(data, e, style)
        if e.how == "outline":
            marks.append(Line2D([x], [y], linestyle="", marker="o",
                                markersize=EMPHASIS_RING * marker + e.width,
                                markerfacecolor="none", markeredgecolor=e.colour,
                                markeredgewidth=e.width, zorder=4))
        else:
            marks.append(Line2D([x], [y], linestyle="", marker="o",
                                markersize=EMPHASIS_MARKER * marker, markerfacecolor=colour,
                                markeredgecolor=e.colour, markeredgewidth=e.width, zorder=4))
    for mark in marks:
        mark.set_in_layout(False)
        if isinstance(mark, Line2D):
            ax.add_line(mark)
        else:
            ax.add_patch(mark)  # type: ignore[arg-type]
    return marks


def _emphasis_box(fig: Figure, marks: list[Artist], e: Emphasis,
                  style: dict[str, Any]) -> tuple[int, int, int, int]:
    """The pixel box ``(x, y, w, h)`` (y down) of the emphasis as drawn, stroke included."""
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    height = int(style["height"])
    extents = [m.get_window_extent(renderer) for m in marks]
    x0, x1 = min(b.x0 for b in extents), max(b.x1 for b in extents)
    y0, y1 = min(b.y0 for b in extents), max(b.y1 for b in extents)
    pad = emphasis_pad(e, style)
    return pixel_box(x0, height - y1, x1, height - y0, pad, int(style["width"]), height)


def _fit_pie(fig: Figure, ax: Axes, texts: list[Text]) -> None:
    """Zoom the pie out until its labels fit inside the axes, and move apart labels that
    would overlap. Labels keep their size in pixels, so each round brings them closer.

    Limits are set so one data unit has the same length in x and y (a round pie) for the
    axes box the layout gives; the box does not move once every label is inside it.
    """
    limit = 1.0 + PIE_LABEL_GAP_PX / 100.0
    for _ in range(PIE_FIT_ROUNDS):
        fig.draw_without_rendering()
        renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
        box = ax.get_window_extent(renderer)
        unit = min(box.width, box.height) / (2.0 * limit)
        ax.set_xlim(-box.width / 2 / unit, box.width / 2 / unit)
        ax.set_ylim(-box.height / 2 / unit, box.height / 2 / unit)
        _separate_labels(fig, ax, texts)
        box = ax.get_window_extent(renderer)
        cx, cy = ax.transData.transform((0.0, 0.0))
        need = 0.0
        for text in texts:
            extent = text.get_window_extent(renderer)
            need = max(need,
                       (max(cx - extent.x0, extent.x1 - cx) + PIE_LABEL_GAP_PX) / (box.width / 2),
                       (max(cy - extent.y0, extent.y1 - cy) + PIE_LABEL_GAP_PX) / (box.height / 2))
        if need <= 1.0:
            return
        limit *= need * 1.01


def _separate_labels(fig: Figure, ax: Axes, texts: list[Text]) -> None:
    """Move pie labels apart vertically where two on the same side would overlap."""
    fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    to_data = ax.transData.inverted()
    for side in ("left", "right", "center"):
        group = [t for t in texts if t.get_horizontalalignment() == side]
        boxes = sorted(((t.get_window_extent(renderer), t) for t in group),
                       key=lambda bt: -bt[0].y1)
        floor: float | None = None
        for box, text in boxes:
            shift = 0.0 if floor is None else max(0.0, box.y1 - (floor - PIE_LABEL_GAP_PX))
            if shift > 0:
                x, y = ax.transData.transform(text.get_position())
                text.set_position(tuple(to_data.transform((x, y - shift))))
            floor = box.y0 - shift
