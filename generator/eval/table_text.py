"""An item's table as text in the format a prompt asks for: JSON, pipe-separated rows
(MMTabReal's text baselines) or a Markdown table.

Every format holds the same cells as :func:`hopvista.eval.prompts.table_json`: one row per
table row, the columns headed by their label and unit, the entity by its name. A structured
table (:mod:`hopvista.eval.structured_text`) keeps its structure: nested keys (header levels)
become one header joined by ``" / "`` (``Income statement / Revenue (USD millions) / 2019``,
as :attr:`hopvista.model.inputs.GridTable.column_headers` joins a hierarchical header), and
related tables are given one after another, each under its title, a blank line between them.
"""

from __future__ import annotations

import json
from typing import Any

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


def flat_record(record: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """``record`` with its nested objects (header levels) spelled out: each value under one
    heading joining the keys above it by ``" / "``."""
    flat: dict[str, Any] = {}
    for key, value in record.items():
        if isinstance(value, dict):
            flat |= flat_record(value, f"{prefix}{key} / ")
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def table_text(as_json: str | None, fmt: str) -> str | None:
    """The table whose JSON (:func:`~hopvista.eval.prompts.table_json`) is ``as_json`` in
    ``fmt``; ``None`` when there is no table. An object of tables by title (related tables)
    gives each under its title."""
    if as_json is None or fmt == "json":
        return as_json
    shown = json.loads(as_json)
    if isinstance(shown, dict):
        below = "\n\n" if fmt == "markdown" else "\n"
        return "\n\n".join(f"{title}{below}{_rows_text(rows, fmt)}"
                             for title, rows in shown.items())
    return _rows_text(shown, fmt)


def _rows_text(rows: list[Any], fmt: str) -> str:
    """Rows (objects by heading, or lists with the header first) in ``fmt``."""
    if rows and isinstance(rows[0], dict):
        grid = records_grid([flat_record(row) for row in rows])
    else:
        grid = [[str(c) for c in row] for row in rows]
    return format_grid(grid, fmt) if grid and grid[0] else ""
