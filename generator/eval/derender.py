"""The ``chart-derendered`` setting: the chart given as a chart-to-table reader read it.

FCMR's chart-to-table setting gives a text-only model the table a chart-reading model
(DePlot) makes of the chart image; ``chart-as-table`` gives the chart's exact data, the upper
bound of any reader. In ``chart-derendered`` the prompt's ``chart_json`` holds what a
*derenderer* read from the chart image instead of the exact data:

``openai:MODEL`` (``gen eval --derenderer openai:MODEL``)
    Any OpenAI-compatible vision model at ``--base-url`` (``timeout`` and ``max_retries``
    from ``--option``), asked with the chart image and the template
    ``templates/prompts/derender.j2``; its reply is read as a table (:func:`parse_table`:
    JSON rows, or lines of cells separated by ``|``, Markdown's and DePlot's own format).
    Replies are cached in the run's cache beside the answers, keyed by the model, its
    endpoint and the request; their tokens and cost are recorded like answers'.
``ocr`` (the default: offline, no key)
    The OCR baseline's reading of the chart (:mod:`hopvista.eval.ocr`): the words RapidOCR
    finds in the chart image, grouped into lines top to bottom (the title, the axis ticks
    and titles, the legend, any value printed on a mark). OCR does not measure bars, lines or
    slices, so this is what a text-only model gets from the chart's text alone: the floor of
    chart reading, as ``chart-as-table`` is its ceiling.

A reading that fails (a request that fails, a reply that is not a table) is an error of the
item, counted with the run's errors and asked again by the next run; the reply that could
not be read is recorded. Every item's result records what was read (``derendered``: the
reader, the table, how many of the chart's values it holds, tokens, cost), so a report can
show the reading errors (:func:`reading_summary`).
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any, Protocol

from hopvista import sandbox
from hopvista.errors import UserError
from hopvista.eval.backends import (
    Model,
    ModelError,
    Prompt,
    PromptImage,
    Reply,
    load_model,
    split_spec,
)
from hopvista.eval.cache import ResponseCache, prompt_digest, request_key
from hopvista.eval.ocr import OcrBaseline, lines_of
from hopvista.eval.prices import Prices
from hopvista.model import Item
from hopvista.model.dataset import Dataset

OFFLINE = "ocr"
"""The built-in derenderer: the OCR baseline's reading of the chart."""
TEMPLATE = "derender.j2"
"""The prompt a derenderer model is asked with (``templates/prompts/``)."""
MAX_ROWS = 2000
"""The most rows a reading may have."""
MAX_CELL_CHARS = 200
"""A longer cell is cut to this length."""
TOLERANCE = 0.02
"""A chart value counts as read when the reading holds a number within this share of the
chart's largest absolute value from it (:func:`values_read`)."""


@dataclass(frozen=True)
class Reading:
    """What a derenderer read of one chart."""

    rows: tuple[tuple[str, ...], ...]
    """The table, top to bottom; the first row is the heading when ``heading``."""
    heading: bool
    reply: Reply | None = None
    """The derenderer model's reply (``None`` for the offline reader)."""
    cached: bool = False
    cost: float | None = None


class DerenderError(ModelError):
    """A reading that failed: an error of the item; ``reply`` is what could not be read."""

    def __init__(self, message: str, reply: Reply | None = None,
                 cost: float | None = None) -> None:
        super().__init__(message)
        self.reply = reply
        self.cost = cost


class ChartReader(Protocol):
    """Reads an item's chart image into a table."""

    spec: str

    def read(self, item: Item) -> Reading:
        """What was read of ``item``'s chart (``DerenderError`` when the reading fails)."""
        ...


def check_derenderer(spec: str) -> None:
    """``UserError`` naming the flag unless ``spec`` is ``ocr`` or ``openai:MODEL``."""
    name, given = split_spec(spec) if spec else ("", {})
    if spec != OFFLINE and (name != "openai" or not given.get("model")):
        raise UserError(f"--derenderer {spec[:80]!r}: expected {OFFLINE} or openai:MODEL")


def default_template() -> str:
    """The built-in derender prompt template."""
    return resources.files("hopvista.templates.prompts").joinpath(TEMPLATE).read_text("utf-8")


def check_charts(items: Sequence[Item], dataset: Dataset) -> None:
    """``UserError`` naming the item when a chart has no image to read."""
    for item in items:
        if item.inputs.chart is None:
            continue
        path = dataset.image_path(item, "chart")
        if path is None or not path.is_file():
            raise UserError(f"{item.id}: the setting 'chart-derendered' reads its chart "
                            "image, which the dataset does not have (built with --no-images?)")


def chart_reader(spec: str, options: Mapping[str, str], dataset: Dataset,
                 cache: ResponseCache, prices: Prices,
                 clean: Callable[[Any], Reply]) -> ChartReader:
    """The reader ``--derenderer`` names. ``clean`` checks a model's reply and redacts its
    secrets (``ModelError`` if malformed) before it is read or cached."""
    check_derenderer(spec)
    if spec == OFFLINE:
        return OcrChartReader(dataset)
    name, given = split_spec(spec)
    sent = {key: value for key, value in options.items()
            if key in ("base_url", "timeout", "max_retries")}
    model = load_model(name, {**sent, **given})
    if not isinstance(model, Model):
        raise UserError(f"--derenderer {spec[:80]!r}: not a model that reads images")
    return ModelChartReader(spec, model, default_template(), dataset, cache, prices, clean)


class OcrChartReader:
    """The OCR baseline's reading of a chart: its words, line by line."""

    spec = OFFLINE

    def __init__(self, dataset: Dataset) -> None:
        try:
            self._ocr = OcrBaseline({})
        except UserError as exc:
            raise UserError(f"--derenderer {OFFLINE}: {str(exc).partition(': ')[2]}") from None
        self._dataset = dataset

    def read(self, item: Item) -> Reading:
        """The chart image's words grouped into lines, top to bottom (no heading row)."""
        path = self._dataset.image_path(item, "chart")
        if path is None or not path.is_file():
            raise DerenderError("the item has no chart image (built with --no-images?)")
        rows = tuple(tuple(w.text for w in line) for line in lines_of(self._ocr.read(path)))
        return Reading(_bounded(rows), heading=False)


class ModelChartReader:
    """A vision model asked for the chart's table (cached, costed)."""

    def __init__(self, spec: str, model: Model, template: str, dataset: Dataset,
                 cache: ResponseCache, prices: Prices,
                 clean: Callable[[Any], Reply]) -> None:
        self.spec = spec
        self.template = template
        self._model = model
        self._dataset = dataset
        self._cache = cache
        self._prices = prices
        self._clean = clean
        identity = getattr(model, "cache_identity", None)
        self._identity: dict[str, Any] | None = identity() if callable(identity) else None

    def read(self, item: Item) -> Reading:
        """The model's table of ``item``'s chart, from the cache when it was asked before."""
        path = self._dataset.image_path(item, "chart")
        if path is None or not path.is_file():
            raise DerenderError("the item has no chart image (built with --no-images?)")
        prompt = derender_prompt(self.template, path.read_bytes())
        key = request_key(self._identity or {"model": self.spec}, prompt_digest(prompt))
        found = self._cache.get(key) if self._identity is not None else None
        reply = None if found is None else self._clean(found)
        cached = reply is not None
        if reply is None:
            reply = self._clean(self._model.answer(prompt))
        cost = None if cached else self._prices.cost(self.spec, reply)
        try:
            rows = parse_table(reply.text)
        except ValueError as exc:
            raise DerenderError(f"the reply is not a table ({exc})", reply, cost) from None
        if not cached and self._identity is not None:
            self._cache.put(key, reply)
        return Reading(rows, heading=True, reply=reply, cached=cached, cost=cost)


_ENV = sandbox.PackEnvironment(keep_trailing_newline=False, trim_blocks=False)


def derender_prompt(template: str, png: bytes) -> Prompt:
    """The prompt a derenderer model gets for the chart image ``png``: ``template`` rendered
    in the sandbox, the image where it calls ``image()``."""
    nonce = secrets.token_hex(8)

    @sandbox.exposed
    def image() -> str:
        return f"\0{nonce}\0"

    text = _ENV.from_string(template).render(image=image)
    parts: list[str | PromptImage] = []
    for k, piece in enumerate(text.split(f"\0{nonce}\0")):
        if k:
            parts.append(PromptImage(png, "chart"))
        if piece:
            parts.append(piece)
    return Prompt(tuple(parts))


def parse_table(text: str) -> tuple[tuple[str, ...], ...]:
    """A reply read as a table, heading first: a JSON list of objects (their keys the
    heading) or of lists, or lines of cells separated by ``|`` (Markdown's separator line
    skipped; DePlot's ``<0x0A>`` read as a line break). ``ValueError`` saying why not."""
    body = text.strip()
    fenced = re.search(r"```[a-zA-Z]*\n(.*?)```", body, re.DOTALL)
    if fenced:
        body = fenced.group(1).strip()
    if body[:1] in "[{":
        try:
            rows = _json_rows(json.loads(body))
        except (ValueError, RecursionError):
            rows = None
        if rows is not None:
            return _checked(rows)
    lines = body.replace("<0x0A>", "\n").splitlines()
    rows = [_cells(line) for line in lines if "|" in line]
    rows = [row for row in rows if row and not all(re.fullmatch(r":?-{2,}:?", c)
                                                    for c in row)]
    if len([row for row in rows if len(row) >= 2]) < 2:
        raise ValueError("no two lines of cells separated by |")
    return _checked(rows)


def _cells(line: str) -> tuple[str, ...]:
    cells = [c.strip() for c in line.strip().split("|")]
    if cells and not cells[0]:
        cells = cells[1:]
    if cells and not cells[-1]:
        cells = cells[:-1]
    return tuple(cells)


def _json_rows(data: Any) -> list[tuple[str, ...]] | None:
    """Rows of a JSON table: a list of objects or of lists (``{"rows": [...]}`` too)."""
    if isinstance(data, dict):
        data = data.get("rows", data.get("data", data.get("table")))
    if not isinstance(data, list) or not data:
        return None
    if all(isinstance(row, dict) for row in data):
        heading: list[str] = []
        for row in data:
            heading += [str(k) for k in row if str(k) not in heading]
        return [tuple(heading), *(tuple(_cell(row.get(k, "")) for k in heading)
                                  for row in data)]
    if all(isinstance(row, list) for row in data):
        return [tuple(_cell(c) for c in row) for row in data]
    return None


def _cell(value: Any) -> str:
    return "" if value is None else value if isinstance(value, str) else json.dumps(value)


def _checked(rows: Sequence[tuple[str, ...]]) -> tuple[tuple[str, ...], ...]:
    if len(rows) > MAX_ROWS:
        raise ValueError(f"more than {MAX_ROWS} rows")
    if len(rows) < 2:
        raise ValueError("fewer than two rows")
    return _bounded(rows)


def _bounded(rows: Sequence[Sequence[str]]) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(" ".join(c.split())[:MAX_CELL_CHARS] for c in row)
                 for row in rows[:MAX_ROWS])


def reading_json(reading: Reading) -> str:
    """What a prompt shows of a reading (its ``chart_json``): one object per row keyed by the
    heading when the heading names every column once, else the rows as lists."""
    rows = [list(row) for row in reading.rows]
    if reading.heading and rows:
        heading, body = rows[0], rows[1:]
        if all(heading) and len(set(heading)) == len(heading) and \
                all(len(row) <= len(heading) for row in body):
            return json.dumps([dict(zip(heading, row, strict=False)) for row in body],
                              ensure_ascii=False, indent=1)
    return json.dumps(rows, ensure_ascii=False, indent=1)


def chart_points(item: Item) -> list[tuple[str, int, float]]:
    """The points the item's chart plots: (series name, year, value)."""
    chart = item.inputs.chart
    if chart is None:
        return []
    names = {e.id: e.name for e in item.entities}
    points = []
    for series in chart.series:
        for year, value in zip(chart.years, series.values, strict=False):
            number = _number(str(value))
            if number is not None:
                points.append((names.get(series.entity, series.entity), year, number))
    return points


def values_read(item: Item, rows: Sequence[Sequence[str]], heading: bool) -> int:
    """How many of the chart's points the reading holds: a point counts when a row names its
    year and its series (in a cell, or in the heading of the value's column) and holds, in
    another cell, a number within :data:`TOLERANCE` of the chart's largest absolute value
    from the point's value. A reading of the chart's text alone (titles, ticks, legend)
    holds none."""
    points = chart_points(item)
    if not points:
        return 0
    scale = max(abs(v) for _, _, v in points) or 1.0
    head = [_plain(c) for c in rows[0]] if heading and rows else []
    body = rows[1:] if heading else rows
    return sum(any(_holds(row, head, name, year, value, scale) for row in body)
               for name, year, value in points)


def _holds(row: Sequence[str], head: Sequence[str], name: str, year: int, value: float,
           scale: float) -> bool:
    """Whether ``row`` gives ``value`` for series ``name`` in ``year``."""
    year_cells = {k for k, cell in enumerate(row) if re.search(rf"\b{year}\b", cell)}
    if not year_cells:
        return False
    series = _plain(name)
    named_in_row = any(series and series in _plain(cell) for cell in row)
    for k, cell in enumerate(row):
        if k in year_cells:
            continue
        in_column = k < len(head) and bool(series) and series in head[k]
        number = _number(cell)
        if (named_in_row or in_column) and number is not None and \
                abs(number - value) <= TOLERANCE * scale:
            return True
    return False


def _plain(text: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9]+", " ", text.lower()).split())


def _number(text: str) -> float | None:
    cleaned = text.strip().replace("−", "-").replace("–", "-").replace(",", "")
    negative = cleaned.startswith("(") and cleaned.endswith(")")
    try:
        value = float(cleaned.strip("()").strip("$€£%").strip())
    except ValueError:
        return None
    return -value if negative else value


def reading_record(spec: str, item: Item, reading: Reading | None,
                   failure: DerenderError | None = None) -> dict[str, Any]:
    """What a result line records of the reading of ``item``'s chart (``derendered``)."""
    reply = reading.reply if reading is not None else failure.reply if failure else None
    cost = reading.cost if reading is not None else failure.cost if failure else None
    rows = [list(row) for row in reading.rows] if reading is not None else None
    return {
        "by": spec,
        "table": rows,
        "heading": reading.heading if reading is not None else None,
        "values": len(chart_points(item)),
        "read": values_read(item, reading.rows, reading.heading)
        if reading is not None else None,
        "response": reply.text if reply is not None and reading is None else None,
        "cached": reading.cached if reading is not None else False,
        "tokens": {"input": reply.input_tokens if reply else None,
                   "output": reply.output_tokens if reply else None},
        "cost": cost,
    }


def reading_summary(results: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The summary of a run's readings (``None`` when no item's chart was read): charts read
    and failed, the chart values the readings hold and their share, tokens and cost."""
    records = [r["derendered"] for r in results if isinstance(r.get("derendered"), dict)]
    if not records:
        return None
    read = [r for r in records if r["table"] is not None]
    values = sum(r["values"] for r in read)
    found = sum(r["read"] or 0 for r in read)
    costs = [r["cost"] for r in records if r["cost"] is not None]
    return {
        "by": records[0]["by"],
        "charts": len(records),
        "failed": len(records) - len(read),
        "values": values,
        "read": found,
        "share": round(found / values, 6) if values else None,
        "tokens": {side: sum(r["tokens"][side] or 0 for r in records)
                   for side in ("input", "output")},
        "cost": round(sum(costs), 6) if costs else None,
    }
