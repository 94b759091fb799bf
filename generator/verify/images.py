"""An item's images: exactly its table and chart PNG when the build has images, none otherwise.

With images, ``images`` is ``[render.table.image, render.chart.image]``, named after the item
(``images/ID-table.png``, ``images/ID-chart.png``); each is a regular file holding a whole PNG
(signature, ``IHDR`` first, ``IEND`` last) of the recorded width and height. What the pixels
show cannot be checked here: a re-rendered image and a forged one look alike to a verifier.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

from hopvista.verify.paths import file_problem, unsafe_name

ROLES = ("table", "chart")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
PNG_END = b"\x00\x00\x00\x00IEND\xaeB`\x82"
MAX_IMAGE_BYTES = 64 << 20
Images = dict[str, bytes | None]


def png_problem(data: bytes, width: Any, height: Any) -> str | None:
    """Why ``data`` is not a whole PNG of ``width`` x ``height``, or ``None``."""
    if len(data) < 33 + len(PNG_END) or not data.startswith(PNG_SIGNATURE) or \
            data[8:16] != b"\x00\x00\x00\rIHDR":
        return "not a PNG image"
    if not data.endswith(PNG_END):
        return "a truncated PNG (no IEND chunk at the end)"
    size = struct.unpack(">II", data[16:24])
    if (width, height) != size:
        return f"PNG is {size[0]}x{size[1]}, render records {width!r}x{height!r}"
    return None


def _read(root: Path, name: str) -> tuple[bytes | None, str | None]:
    why = unsafe_name(name) or file_problem(root, name)
    if why is not None:
        return None, why
    path = root / name
    try:
        if path.stat().st_size > MAX_IMAGE_BYTES:
            return None, f"larger than {MAX_IMAGE_BYTES} bytes"
        return path.read_bytes(), None
    except OSError as exc:
        return None, f"cannot be read ({exc.strerror})"


def _render_entry(render: Any, role: str) -> dict[str, Any] | None:
    entry = render.get(role) if isinstance(render, dict) else None
    return entry if isinstance(entry, dict) else None


def _layout_text(item: dict[str, Any]) -> dict[tuple[int, int], str]:
    """The text each table cell must show: row 0 the headers, then one row per table row."""
    table = item["inputs"]["table"]
    names = {e["id"]: e["name"] for e in item["entities"]}
    period = table["period_label"]
    first = 1 if period is None else 2
    shown = str(table.get("period_format") or "{}")
    wanted = {(0, 0): table["entity_label"]} | ({} if period is None else {(0, 1): period})
    wanted |= {(0, c): column["label"] for c, column in enumerate(table["columns"], start=first)}
    for r, row in enumerate(table["rows"], start=1):
        wanted[(r, 0)] = names.get(row["entity"], row["entity"])
        if period is not None:
            wanted[(r, 1)] = shown.replace("{}", str(row["year"]))
        wanted |= {(r, c): row["values"][column["key"]]
                   for c, column in enumerate(table["columns"], start=first)}
    return wanted


def check_table_layout(item: dict[str, Any], layout: dict[str, Any]) -> str | None:
    """Why the recorded table layout does not show the item's table, or ``None``: one cell per
    (row, column), body cells with exactly the displayed values, headers starting with their
    labels (a header may carry its unit)."""
    cells = layout.get("cells")
    if not isinstance(cells, list) or not all(isinstance(c, dict) for c in cells):
        return "render.table.cells is not a list of cells"
    shown = {(c.get("row"), c.get("col")): c.get("text") for c in cells}
    wanted = _layout_text(item)
    if len(shown) != len(cells) or set(shown) != set(wanted):
        return "render.table.cells do not cover the table's rows and columns once each"
    for (row, col), text in wanted.items():
        got = shown[(row, col)]
        if not isinstance(got, str) or (got != text if row else not got.startswith(text)):
            return f"render.table.cells row {row} col {col} shows {str(got)[:40]!r}, not {text!r}"
    return None


def check_images(item: dict[str, Any], root: Path, with_images: bool | None,
                 problems: list[str]) -> Images:
    """Append the problems of the item's images; return their bytes by role (``None`` when
    absent or unreadable) for the Parquet comparison."""
    found: Images = dict.fromkeys(ROLES)
    if with_images is False:
        if item["images"] or item.get("render") is not None:
            problems.append("has images or render, but the build has none (config.images false)")
        return found
    wanted = [f"images/{item['id']}-{role}.png" for role in ROLES]
    if with_images and item["images"] != wanted:
        problems.append(f"images {item['images']} are not {wanted}")
        return found
    for role, name in zip(ROLES, item["images"], strict=False):
        entry = _render_entry(item.get("render"), role)
        if entry is None or entry.get("image") != name:
            problems.append(f"render.{role}.image is not {name!r}")
            continue
        data, why = _read(root, name)
        if data is not None:
            why = png_problem(data, entry.get("width"), entry.get("height"))
            found[role] = data
        if why is not None:
            problems.append(f"{role} image {name}: {why}")
    table = _render_entry(item.get("render"), "table")
    layout = None if table is None else check_table_layout(item, table)
    if layout is not None:
        problems.append(layout)
    chart = _render_entry(item.get("render"), "chart")
    if chart is not None and chart.get("kind") != item["inputs"]["chart"]["kind"]:
        problems.append("render.chart.kind differs from inputs.chart.kind")
    return found
