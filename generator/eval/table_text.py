"""An item's table as text in the format a prompt asks for: JSON, pipe-separated rows
(MMTabReal's text baselines) or a Markdown table.

Every format holds the same cells as :func:`hopvista.eval.prompts.table_json`: one row per
table row, the columns headed by their label and unit, the entity by its name.
"""

from __future__ import annotations

import json

TABLE_FORMATS = ("json", "pipe", "markdown")
"""The formats a setting that shows the table as text can give it in."""

DEFAULT_TABLE_FORMAT = "json"


def format_grid(grid: list[list[str]], fmt: str) -> str:
    """``grid`` (its header first) as pipe-separated rows or a Markdown table."""
    cells = [[" ".join(str(c).split()).replace("|", "\\|") for c in row] for row in grid]
    if fmt == "pipe":
        return "\n".join(" | ".join(row) for row in cells)
    width = max(len(row) for row in cells)
    lines = ["| " + " | ".join(row) + " |" for row in cells]
    return "\n".join([lines[0], "|" + "---|" * width, *lines[1:]])


def records_grid(records: list[dict[str, str | int]]) -> list[list[str]]:
    """Records keyed by column heading as a grid: the headings (in first-seen order), then
    one row per record (an empty cell where a record lacks a column)."""
    header: list[str] = []
    for record in records:
        header += [key for key in record if key not in header]
    return [header, *[[str(record.get(key, "")) for key in header] for record in records]]


def table_text(as_json: str | None, fmt: str) -> str | None:
    """The table whose JSON (:func:`~hopvista.eval.prompts.table_json`) is ``as_json`` in
    ``fmt``; ``None`` when there is no table."""
    if as_json is None or fmt == "json":
        return as_json
    rows = json.loads(as_json)
    if rows and isinstance(rows[0], dict):
        grid = records_grid(rows)
    else:
        grid = [[str(c) for c in row] for row in rows]
    return format_grid(grid, fmt) if grid and grid[0] else ""
