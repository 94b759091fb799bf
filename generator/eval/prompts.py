"""What a model is shown for an item: the evaluation settings and the prompts they make.

A setting says how each input reaches the model (FCMR and MMTabReal define them):

====================  ==========================  =====================================
setting               table                       chart
====================  ==========================  =====================================
``interleaved``       image                       image
``table-json``        JSON (FCMR's main setting)  image
``chart-as-table``    JSON                        its exact data as JSON (text only):
                                                  the upper bound of reading the chart
``chart-derendered``  JSON                        the table a chart-to-table reader read
                                                  from its image, as JSON (text only:
                                                  :mod:`hopvista.eval.derender`)
``no-chart``          JSON                        withheld (FCMR Table 8's check)
``image-only``        one page image of inputs    on the page
====================  ==========================  =====================================

Multimodal tables (``mmtable`` items, whose cells hold pictures) have MMTabReal's five
settings (:mod:`hopvista.eval.cell_visuals`): ``missing-image`` (the table as Markdown, the
picture cells empty), ``entity-replaced`` (each picture replaced by its exact description),
``image-captioning`` (each picture replaced by a captioner's caption), ``table-as-image``
(the one table image) and ``interleaved`` (the table as Markdown, each picture an image part
of its own in its cell, in reading order). The first three apply to ``mmtable`` items only.

The text passages are given as text in every setting but ``image-only``. Markup is shown as
drawn: a markup task or markup variant gets its table image (a chart-markup variant its chart
image) whatever the setting (:func:`marked_images`). A prompt is a
Jinja2 template per item kind: ``templates/prompts/KIND.j2`` unless the run names another
file, rendered in :class:`hopvista.sandbox.PackEnvironment` (no code runs; work, time and size
are bounded). It sees ``question`` (the item's own question, statements included),
``names``, ``texts`` (``name``, ``text``), ``table_json`` (a table built with a structure as
its image shows it: :mod:`hopvista.eval.structured_text`), ``chart_json`` (the chart's exact
data, or in ``chart-derendered`` the table its reader read),
``table_markdown`` (an ``mmtable`` item's table as text, its picture cells filled as the
setting says), ``table_text``, ``chart_text`` and ``table_format`` (the table, and the
chart's data, as text in the run's ``--table-format``: ``json``, ``pipe`` or ``markdown``,
:mod:`hopvista.eval.table_text`; ``None`` where the setting shows neither as text),
``setting`` and two
functions, ``has(role)`` (whether the setting shows an image of that role) and
``image(role)`` (the image, placed there in the prompt). The run records the template text.
"""

from __future__ import annotations

import json
import re
import secrets
from dataclasses import dataclass, replace
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2

from hopvista import sandbox
from hopvista.errors import UserError
from hopvista.eval.backends import Prompt, PromptImage
from hopvista.eval.cell_visuals import (
    CELL_IMAGE,
    Captioner,
    cell_images,
    kind_caption,
    table_markdown,
)
from hopvista.eval.structured_text import column_heading, structured_rows
from hopvista.eval.table_text import DEFAULT_TABLE_FORMAT, table_text
from hopvista.model import Item
from hopvista.model.dataset import Dataset
from hopvista.model.inputs import GridTable, Table
from hopvista.model.mmtable import Visual
from hopvista.yamlfile import read_text


@dataclass(frozen=True)
class Setting:
    """How an item's inputs reach the model."""

    name: str
    description: str
    table: str
    """``"image"``, ``"json"``, ``"text"`` (an ``mmtable`` item's grid as Markdown) or
    ``"page"``."""
    chart: str
    """``"image"``, ``"table"`` (its data as JSON), ``"derendered"`` (what a chart-to-table
    reader read of its image, as JSON), ``"none"`` or ``"page"``."""
    pictures: str = "cells"
    """How an ``mmtable`` item's pictures are shown when its table is given as text:
    ``"empty"``, ``"description"``, ``"caption"`` or ``"cells"`` (each its own image); a
    setting that gives the table as an image shows them in it."""
    kinds: tuple[str, ...] = ()
    """The item kinds the setting applies to (every kind when empty)."""

    def roles(self) -> tuple[str, ...]:
        """The image roles the setting shows."""
        if self.table == "page":
            return ("page",)
        return tuple(role for role, how in (("table", self.table), ("chart", self.chart))
                     if how == "image")


SETTINGS: dict[str, Setting] = {s.name: s for s in (
    Setting("interleaved", "text, table image and chart image", "image", "image"),
    Setting("table-json", "text, table as JSON, chart image (FCMR's main setting)",
            "json", "image"),
    Setting("chart-as-table", "text, table as JSON, the chart's exact data as JSON: text "
            "only (the upper bound of chart reading)", "json", "table"),
    Setting("chart-derendered", "text, table as JSON, the chart as a chart-to-table reader "
            "read it (--derenderer): text only", "json", "derendered"),
    Setting("no-chart", "text and table as JSON, chart withheld (FCMR Table 8)", "json", "none"),
    Setting("image-only", "one page image of the inputs", "page", "page"),
    Setting("missing-image", "the table as text, its picture cells empty (MMTabReal)",
            "text", "none", "empty", ("mmtable",)),
    Setting("entity-replaced", "the table as text, each picture replaced by its exact "
            "description (MMTabReal's upper bound)", "text", "none", "description",
            ("mmtable",)),
    Setting("image-captioning", "the table as text, each picture replaced by a caption "
            "(MMTabReal)", "text", "none", "caption", ("mmtable",)),
    Setting("table-as-image", "one image of the table (MMTabReal)", "image", "none"),
)}
"""Every setting by name."""

DEFAULT_SETTING = "table-json"


def setting(name: str) -> Setting:
    """The setting called ``name``; a ``UserError`` listing the settings otherwise."""
    if name not in SETTINGS:
        raise UserError(f"--setting: no setting {name!r} (settings: {', '.join(SETTINGS)})")
    return SETTINGS[name]


def default_template(kind: str) -> str:
    """The built-in prompt template of item kind ``kind``."""
    source = resources.files("hopvista.templates.prompts").joinpath(f"{kind}.j2")
    if not source.is_file():
        raise UserError(f"no built-in prompt for items of kind {kind!r}: give one with --prompt")
    return source.read_text(encoding="utf-8")


def read_template(path: str | Path) -> str:
    """A prompt template file, checked to compile and to render (on stand-in values) in the
    sandbox: a ``UserError`` naming the file and the line if not."""
    path = Path(path)
    try:
        text = read_text(path, sandbox.MAX_SOURCE_CHARS * 4, "prompt template")
    except UserError as exc:
        raise UserError(f"--prompt {exc}") from None
    try:
        _ENV.from_string(text).render(**_stand_in_variables())
    except sandbox.TEMPLATE_ERRORS as exc:
        line = sandbox.template_line(exc)
        raise UserError(f"{path}{f':{line}' if line else ''}: "
                        f"{sandbox.describe(exc, sorted(_stand_in_variables()))}") from None
    return text


_ENV = sandbox.PackEnvironment(keep_trailing_newline=False, trim_blocks=False)


def _stand_in_variables() -> dict[str, Any]:
    """Variables of the shape :func:`build_prompt` gives, to try a template on."""
    @sandbox.exposed
    def image(role: str) -> str:
        return ""

    @sandbox.exposed
    def has(role: str) -> bool:
        return False

    return {"question": "<question>", "names": "<names>",
            "texts": [{"name": "<name>", "text": "<text>"}], "table_json": "<table_json>",
            "chart_json": "<chart_json>", "table_markdown": "<table_markdown>",
            "table_text": "<table_text>", "chart_text": "<chart_text>",
            "table_format": DEFAULT_TABLE_FORMAT,
            "setting": DEFAULT_SETTING, "image": image,
            "has": has}


def build_prompt(item: Item, dataset: Dataset, how: Setting, template: str,
                 pages: Path | None = None, check_only: bool = False,
                 captioner: Captioner = kind_caption,
                 chart_reading: str | None = None,
                 table_format: str = DEFAULT_TABLE_FORMAT) -> Prompt:
    """The prompt ``item`` gets in setting ``how`` from ``template``.

    ``UserError`` when the setting needs an image the dataset does not have (a build with
    ``--no-images``, or no page image for ``image-only``), or the template fails. An item
    whose inputs exist only as a page image (a ``screenshot`` variant) is shown that page in
    every setting that shows images. With ``check_only``, images are looked for but not read
    (the prompt's images are empty), and a page the evaluator is to draw into ``pages``
    counts as there: a run checks every prompt this way before it writes anything.
    An ``mmtable`` item's captions (``image-captioning``) come from ``captioner``; in
    ``chart-derendered`` the chart is ``chart_reading``, the JSON of what a reader read
    (:mod:`hopvista.eval.derender`; ``[]`` while checking). The template's ``table_text``
    and ``chart_text`` are the table and the chart's data (exact, or as read) in
    ``table_format``.
    """
    nonce = secrets.token_hex(8)
    if how.kinds and item.kind not in how.kinds:
        raise UserError(f"{item.id}: the setting {how.name!r} applies to items of kind "
                        f"{', '.join(how.kinds)}, not {item.kind!r}")
    how = shown_setting(item, how)
    shown = how.roles()
    images: dict[str, PromptImage] = {}

    @sandbox.exposed
    def image(role: str) -> str:
        if role not in shown:
            return ""
        if role not in images:
            path = dataset.image_path(item, role)
            drawn = path is None and role == "page" and pages is not None
            if drawn:
                path = pages / f"{item.id}.png"  # type: ignore[operator]  # hopvista.eval.page
            if path is None or not (path.is_file() or (drawn and check_only)):
                raise UserError(
                    f"{item.id}: the setting {how.name!r} shows its {role} image, which the "
                    f"dataset does not have" + (" (built with --no-images?)"
                                                if role != "page" else ""))
            images[role] = PromptImage(b"" if check_only else path.read_bytes(), role)
        return f"\0{nonce}:{role}\0"

    @sandbox.exposed
    def has(role: str) -> bool:
        return role in shown

    def cell_marker(visual: Visual) -> str:
        number, picture = pictures.get((visual.row, visual.col), (0, None))
        if picture is None:
            raise UserError(f"{item.id}: the setting {how.name!r} shows the picture of cell "
                            f"row {visual.row}, col {visual.col} as an image, which the "
                            "dataset does not have (built with --no-images?)")
        key = f"{CELL_IMAGE}.{number}"
        if key not in images:
            path = dataset.image_file(picture)
            images[key] = PromptImage(b"" if check_only else path.read_bytes(), CELL_IMAGE)
        return f"\0{nonce}:{key}\0"

    pictures = cell_images(item) if how.pictures == "cells" else {}
    fills = {"empty": lambda v: "", "description": lambda v: v.description,
             "caption": lambda v: captioner(item, v), "cells": cell_marker}
    names = {e.id: e.name for e in item.entities}
    as_json = table_json(item) if how.table == "json" else None
    chart_data = chart_json(item) if how.chart == "table" else \
        _reading(item, chart_reading, check_only) if how.chart == "derendered" else None
    variables: dict[str, Any] = {
        "question": item.question,
        "names": ", ".join(e.name for e in item.entities),
        "texts": [{"name": names.get(t.entity, t.entity), "text": t.text}
                  for t in item.inputs.text] if how.table != "page" else [],
        "table_json": as_json,
        "table_text": table_text(as_json, table_format),
        "table_format": table_format,
        "chart_json": chart_data,
        "chart_text": table_text(chart_data, table_format),
        "table_markdown": table_markdown(item, fills[how.pictures])
        if how.table == "text" else None,
        "setting": how.name,
        "image": image,
        "has": has,
    }
    try:
        text = _template(template).render(**variables)
    except sandbox.TEMPLATE_ERRORS as exc:
        raise UserError(f"{item.id}: prompt template: {sandbox.describe(exc, sorted(variables))}"
                        ) from None
    parts: list[str | PromptImage] = []
    for k, piece in enumerate(re.split(f"\0{nonce}:([a-z][a-z0-9.-]*)\0", text)):
        if k % 2:
            parts.append(images[piece])
        elif piece:
            parts.append(piece)
    return Prompt(tuple(parts))


def shown_setting(item: Item, how: Setting) -> Setting:
    """The setting as ``item`` is shown in it: an ``mmtable`` item's pictures
    (:func:`picture_setting`), a vision-only variant's one page, markup as drawn
    (:func:`marked_images`)."""
    how = picture_setting(item, how)
    if how.table != "page" and item.image("page") is not None and \
            any(item.image(role) is None for role in how.roles()):
        how = SETTINGS["image-only"]  # a vision-only variant: its inputs exist as one page
    return marked_images(item, how)


def _reading(item: Item, reading: str | None, check_only: bool) -> str | None:
    """The chart of a ``chart-derendered`` prompt: what the reader read."""
    if item.inputs.chart is None:
        return None
    return "[]" if reading is None and check_only else reading


@lru_cache(maxsize=16)
def _template(source: str) -> jinja2.Template:
    return _ENV.from_string(source)


def picture_setting(item: Item, how: Setting) -> Setting:
    """The setting as it applies to ``item``: an ``mmtable`` item in ``interleaved`` gets
    its table as text with each picture an image of its own in its cell (MMTabReal's
    interleaved setting); any other item, or setting, is unchanged."""
    if item.kind == "mmtable" and how.name == "interleaved":
        return replace(how, table="text", chart="none", pictures="cells")
    return how


def marked_images(item: Item, how: Setting) -> Setting:
    """The setting as it applies to ``item``: markup exists only as pixels, so a markup task
    and every markup variant (the unmarked control too, so the seven differ only in the
    marker) show their table image where the setting would give the table as JSON or as a
    drawn page; a chart-markup variant shows its chart image where the setting would give
    its data or withhold it."""
    markup = item.variant.markup
    on_table = item.kind == "markup_task" or (
        markup is not None and markup.get("modality", "table") == "table")
    if on_table and how.table in ("json", "page") and item.image("table") is not None:
        how = replace(how, table="image", chart="none" if how.table == "page" else how.chart)
    if markup is not None and markup.get("modality") == "chart" and \
            how.chart in ("table", "derendered", "none") and item.image("chart") is not None:
        how = replace(how, chart="image")
    return how


def table_json(item: Item) -> str | None:
    """The item's table as JSON: one object per row, keyed by column heading (with unit); a
    structured table as its structure shows it (:mod:`hopvista.eval.structured_text`)."""
    table = item.inputs.table
    if table is None:
        return None
    if isinstance(table, GridTable):
        header = list(table.column_headers)
        if len(set(header)) == len(header) and all(header):
            rows: list[Any] = [dict(zip(header, row, strict=False)) for row in table.body_rows]
        else:
            rows = [header, *map(list, table.body_rows)]
        return json.dumps(rows, ensure_ascii=False, indent=1)
    structured = structured_rows(item)
    return json.dumps(_records(item, table) if structured is None else structured,
                      ensure_ascii=False, indent=1)


def _records(item: Item, table: Table) -> list[dict[str, str | int]]:
    names = {e.id: e.name for e in item.entities}
    records = []
    for row in table.rows:
        record: dict[str, str | int] = {table.entity_label: names.get(row.entity, row.entity)}
        if table.period_label:
            record[table.period_label] = row.year
        for column in table.columns:
            if column.key in row.values:
                record[column_heading(column.label, column.unit)] = row.values[column.key]
        records.append(record)
    return records


def chart_json(item: Item) -> str | None:
    """The chart's exact data as JSON: one object per point (entity, year, value) — the
    upper bound of what a chart-to-table model such as DePlot could give a text-only model
    (``chart-as-table``; ``chart-derendered`` shows what a reader did give)."""
    chart = item.inputs.chart
    if chart is None:
        return None
    names = {e.id: e.name for e in item.entities}
    heading = column_heading(chart.column.label, chart.column.unit)
    table = item.inputs.table
    entity_label = table.entity_label if isinstance(table, Table) else "Entity"
    period_label = (table.period_label if isinstance(table, Table) else None) or "Year"
    points = [{entity_label: names.get(s.entity, s.entity), period_label: year, heading: value}
              for s in chart.series for year, value in zip(chart.years, s.values, strict=False)
              if value != ""]
    return json.dumps(points, ensure_ascii=False, indent=1)
