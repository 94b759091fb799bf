"""``ocr``: a vision baseline that reads the table image with an OCR engine shipped in a wheel
(RapidOCR, ONNX models inside the package: fully offline), rebuilds the table from what it
read, and answers by executing the statement programs on it.

How it reads a table image: the recognised words are grouped into lines by their vertical
centres; the lines above the first one with two or more numbers are the heading; the data
lines give the columns' positions (:func:`read_grid`) and every word goes to the nearest.
Headings are matched to the item's column titles, and a
line's first cells to its entity names and periods, by text similarity: the baseline knows
the names and titles the question and the image show, and reads every value from the image.
A heading it cannot read takes the column left over in reading order. A value it cannot
read is taken as its column's median of what it did read.

What it cannot do: read values off the chart (OCR gives the chart's title, ticks and
legend, not its data). A statement that reads the chart is answered "false", as is one whose
program cannot be decided on the rebuilt table. So its accuracy says how far reading the
table image alone gets — the first number a robustness study wants for each visual variant.
Seconds per image: use ``--limit``.
"""

from __future__ import annotations

import re
import statistics
import threading
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any

from hopvista.errors import UserError
from hopvista.eval.backends import MODELS, ModelError, check_options
from hopvista.eval.baselines import chart_margins
from hopvista.model import Item
from hopvista.model.dataset import Dataset
from hopvista.model.inputs import Table
from hopvista.program.executor import Context, Undecidable, decide

_NUMBER = re.compile(r"^\(?[-−–]?[$€£]?\d[\d,]*(\.\d+)?%?\)?$")
MATCH = 0.5
"""Least text similarity (0..1) for a heading or a name to count as a match."""


@dataclass(frozen=True)
class Word:
    """A recognised piece of text and its box."""

    text: str
    left: float
    top: float
    right: float
    bottom: float

    @property
    def x(self) -> float:
        """The horizontal centre."""
        return (self.left + self.right) / 2

    @property
    def y(self) -> float:
        """The vertical centre."""
        return (self.top + self.bottom) / 2


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()


def _similar(read: str, title: str) -> float:
    """How alike a text read and a title are (0..1): the best of the read text's runs of
    words, so a caption or a stray mark read along with a heading does not hide it."""
    words, target = _norm(read).split(), _norm(title)
    runs = {" ".join(words[i:j]) for i in range(len(words))
            for j in range(i + 1, len(words) + 1)} or {""}
    return max(SequenceMatcher(None, run, target).ratio() for run in runs)


def _is_number(text: str) -> bool:
    return bool(_NUMBER.match(text.strip()))


def _number(text: str) -> float | None:
    t = text.strip().replace("−", "-").replace("–", "-").replace(",", "").strip("$€£%")
    negative = t.startswith("(") and t.endswith(")")
    t = t.strip("()")
    try:
        value = float(t)
    except ValueError:
        return None
    return -value if negative else value


def lines_of(words: Sequence[Word]) -> list[list[Word]]:
    """``words`` grouped into lines (by vertical centre), top to bottom, each left to right."""
    if not words:
        return []
    height = statistics.median(w.bottom - w.top for w in words) or 1.0
    lines: list[list[Word]] = []
    for word in sorted(words, key=lambda w: w.y):
        if lines and abs(word.y - statistics.mean(w.y for w in lines[-1])) < 0.5 * height:
            lines[-1].append(word)
        else:
            lines.append([word])
    return [sorted(line, key=lambda w: w.left) for line in lines]


def read_grid(words: Sequence[Word]) -> tuple[list[str], list[list[str]]]:
    """The heading cells and the data rows (one text per column) of a table image.

    The columns come from the data: the lines with the most frequent number of words (one
    per cell) give each column's mean position, and every word goes to the nearest column.
    A heading word goes to every column it spans: a heading OCR read together with its
    neighbour's (one phrase over two columns) is then the heading of both.
    """
    lines = lines_of(words)
    first = next((k for k, line in enumerate(lines)
                  if sum(_is_number(w.text) for w in line) >= 2), len(lines))
    data = lines[first:]
    if not data:
        return [], []
    counts = Counter(len(line) for line in data)
    n = max(counts, key=lambda c: (counts[c], c))
    modal = [line for line in data if len(line) == n]
    anchors = [statistics.mean(line[r].x for line in modal) for r in range(n)]
    edges = [(anchors[r - 1] + anchors[r]) / 2 for r in range(1, n)]
    spans = list(zip([float("-inf"), *edges], [*edges, float("inf")], strict=True))

    def nearest(word: Word) -> int:
        return min(range(n), key=lambda r: abs(anchors[r] - word.x))

    heading: list[list[Word]] = [[] for _ in range(n)]
    for line in lines[:first]:
        for word in line:
            over = [r for r, (lo, hi) in enumerate(spans)
                    if min(word.right, hi) - max(word.left, lo) > 0.25 * (word.right - word.left)]
            for r in over or [nearest(word)]:
                heading[r].append(word)
    rows = []
    for line in data:
        row: list[list[str]] = [[] for _ in range(n)]
        for word in line:
            row[nearest(word)].append(word.text)
        rows.append([" ".join(parts) for parts in row])
    texts = [" ".join(w.text for w in sorted(c, key=lambda w: (round(w.y), w.left)))
             for c in heading]
    return texts, rows


@MODELS.register("ocr")
class OcrBaseline:
    """Reads the table image, answers with the programs (see the module docstring)."""

    def __init__(self, options: Mapping[str, str]) -> None:
        check_options("ocr", options)
        try:
            from rapidocr import RapidOCR
        except ImportError:
            raise UserError("--model ocr: install rapidocr and onnxruntime "
                            "(pip install rapidocr onnxruntime)") from None
        self._engine_class = RapidOCR
        self._engine: Any = None
        self._lock = threading.Lock()
        self._dataset: Dataset | None = None
        self._margins = (0.0, 0.0)

    def prepare(self, items: Sequence[Item], dataset: Dataset) -> None:
        """Remember where the images are, and the build's chart margins."""
        self._dataset = dataset
        self._margins = chart_margins(dataset)

    def read(self, path: Path) -> list[Word]:
        """The words OCR finds in the image at ``path``."""
        with self._lock:  # one engine, one image at a time
            if self._engine is None:
                import logging

                logging.getLogger("RapidOCR").setLevel(logging.WARNING)
                self._engine = self._engine_class()
            result = self._engine(str(path))
        words = []
        for box, text in zip(result.boxes if result.boxes is not None else [],
                             result.txts or (), strict=False):
            xs, ys = [float(p[0]) for p in box], [float(p[1]) for p in box]
            words.append(Word(str(text), min(xs), min(ys), max(xs), max(ys)))
        return words

    def read_table(self, item: Item) -> dict[tuple[str, int], dict[str, float]]:
        """The values read from ``item``'s table image, by (entity id, period) and column key."""
        if self._dataset is None:
            raise ModelError("ocr: not prepared")
        path = self._dataset.image_path(item, "table")
        table = item.inputs.table
        if path is None or not path.is_file():
            raise ModelError("ocr: the item has no table image (built with --no-images?)")
        if not isinstance(table, Table):
            raise ModelError("ocr: answers items with an entity-by-period table only")
        heading, rows = read_grid(self.read(path))
        columns = _match_headings(heading, table)
        names = {e.id: e.name for e in item.entities}
        entity_cell = _best(heading, table.entity_label)
        period_cell = _best(heading, table.period_label) if table.period_label else None
        read: dict[tuple[str, int], dict[str, float]] = {}
        for row in rows:
            entity = max(names, key=lambda e: _similar(row[entity_cell or 0], names[e]))
            if _similar(row[entity_cell or 0], names[entity]) < MATCH:
                continue
            period = _number(row[period_cell]) if period_cell is not None else None
            key = (entity, int(period) if period is not None else 0)
            values = {}
            for k, column in columns.items():
                value = _number(row[k])
                if value is not None:
                    values[column] = value
            read[key] = values
        return read

    def answer_item(self, item: Item) -> str:
        """The statements the programs prove true on the rebuilt table."""
        read = self.read_table(item)
        data = item.model_dump(mode="json")
        table = data["inputs"]["table"]
        keys = [c["key"] for c in table["columns"]]
        medians = {k: statistics.median(v[k] for v in read.values() if k in v)
                   for k in keys if any(k in v for v in read.values())}
        for row in table["rows"]:
            got = read.get((row["entity"], int(row["year"] or 0)), {})
            row["values"] = {k: _text(got.get(k, medians.get(k, 0.0))) for k in keys}
        try:
            context = Context(data, *self._margins)
        except (KeyError, TypeError, ValueError, ArithmeticError):
            return "none"
        true = []
        for number, statement in enumerate(data["statements"], start=1):
            if "chart" in statement["modalities"]:
                continue
            try:
                if decide(statement["program"], context):
                    true.append(number)
            except (Undecidable, KeyError, TypeError, ValueError, ArithmeticError):
                continue
        return ", ".join(map(str, true)) if true else "none"


def _text(value: float) -> str:
    return f"{value:.6f}".rstrip("0").rstrip(".")


def _best(heading: list[str], label: str | None) -> int | None:
    if not heading or not label:
        return None
    k = max(range(len(heading)), key=lambda i: _similar(heading[i], label))
    return k if _similar(heading[k], label) >= MATCH else None


def _match_headings(heading: list[str], table: Table) -> dict[int, str]:
    """Heading cell index → column key, best matches first, each used once."""
    found: dict[int, str] = {}
    k = 0
    while k < len(heading):  # cells split from one phrase: its titles in reading order
        end = k
        while end + 1 < len(heading) and heading[end + 1] == heading[k]:
            end += 1
        if end > k:
            text = _norm(heading[k])
            titles = sorted((text.find(_norm(c.label)), c.key) for c in table.columns
                            if _norm(c.label) and _norm(c.label) in text)
            if len(titles) == end - k + 1:
                found |= {k + i: key for i, (_, key) in enumerate(titles)}
        k = end + 1
    pairs = sorted(((_similar(h, c.label), k, c.key) for k, h in enumerate(heading)
                    for c in table.columns), reverse=True)
    for score, k, key in pairs:
        if score >= MATCH and k not in found and key not in found.values():
            found[k] = key
    # A heading OCR could not read: the cells left, in order, take the columns left.
    named = {_best(heading, table.entity_label), _best(heading, table.period_label)}
    cells = [k for k in range(len(heading)) if k not in found and k not in named]
    columns = [c.key for c in table.columns if c.key not in found.values()]
    if len(cells) == len(columns):
        found |= dict(zip(cells, columns, strict=True))
    return found
