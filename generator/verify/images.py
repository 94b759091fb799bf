"""An item's images: exactly its table and chart PNG when the build has images, none otherwise.

Images are found by their ``role``, never by file name. With images, ``images`` holds one
image of role ``table`` and one of role ``chart``, in that order, at the paths the format
gives them (``images/ID.ROLE.png``; format 2: ``images/BASE-ROLE.png``); each is a regular
file holding a whole PNG (signature, ``IHDR`` first, ``IEND`` last) of the recorded width,
height and sha256. What the pixels show cannot be checked here: a re-rendered image and a
forged one look alike to a verifier; the table's recorded cell texts are checked against
the table JSON.
"""

from __future__ import annotations

import hashlib
import struct
from pathlib import Path
from typing import Any

from hopvista.verify.paths import file_problem, unsafe_name
from hopvista.verify.structure import check_group_headers, noted_texts

ROLES = ("table", "chart")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
PNG_END = b"\x00\x00\x00\x00IEND\xaeB`\x82"
MAX_IMAGE_BYTES = 64 << 20
Images = dict[str, bytes | None]
"""The bytes of an item's images by path (``None``: missing or unreadable)."""


def expected_path(item: dict[str, Any], role: str, version: int) -> str:
    """Where a build writes the item's image of ``role`` (docs/format.md, section 2.5)."""
    if version <= 2:
        return f"images/{item['base_id']}-{role}.png"
    return f"images/{item['id']}.{role}.png"


def png_problem(data: bytes, width: Any, height: Any) -> str | None:
    """Why ``data`` is not a whole PNG of ``width`` x ``height``, or ``None``."""
    if len(data) < 33 + len(PNG_END) or not data.startswith(PNG_SIGNATURE) or \
            data[8:16] != b"\x00\x00\x00\rIHDR":
        return "not a PNG image"
    if not data.endswith(PNG_END):
        return "a truncated PNG (no IEND chunk at the end)"
    size = struct.unpack(">II", data[16:24])
    if (width, height) != size:
        return f"PNG is {size[0]}x{size[1]}, the item records {width!r}x{height!r}"
    return None


def read_image(root: Path, name: str) -> tuple[bytes | None, str | None]:
    """The bytes of image ``name`` under ``root`` (a safe relative path to a regular file of
    at most :data:`MAX_IMAGE_BYTES`), or ``None`` and why not."""
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
    """Why the table image's recorded layout does not show the item's table, or ``None``: one
    cell per (row, column), body cells with exactly the displayed values, headers starting
    with their labels (a header may carry its unit)."""
    cells = layout.get("cells")
    if not isinstance(cells, list) or not all(isinstance(c, dict) for c in cells):
        return "table image: render.cells is not a list of cells"
    shown = {(c.get("row"), c.get("col")): c.get("text") for c in cells}
    wanted = _layout_text(item) | noted_texts(item)
    if len(shown) != len(cells) or set(shown) != set(wanted):
        return "table image: render.cells do not cover the table's rows and columns once each"
    for (row, col), text in wanted.items():
        got = shown[(row, col)]
        if not isinstance(got, str) or (got != text if row else not got.startswith(text)):
            return (f"table image: render.cells row {row} col {col} shows {str(got)[:40]!r}, "
                    f"not {text!r}")
    return None


def check_images(item: dict[str, Any], root: Path, with_images: bool | None, version: int,
                 problems: list[str]) -> Images:
    """Append the problems of the item's images (an item that passed the shape check);
    return their bytes by path for the Parquet comparison."""
    found: Images = {}
    images = item["images"]
    if with_images is False:
        if images:
            problems.append("has images, but the build has none (config.images false)")
        return found
    roles = [image["role"] for image in images]
    if with_images and roles != list(ROLES):
        problems.append(f"image roles {roles} are not {list(ROLES)}")
        return found
    for image in images:
        role, name = image["role"], image["path"]
        if role not in ROLES:
            problems.append(f"image {name[:80]!r}: role {role[:40]!r} is not one a build makes")
            continue
        wanted = expected_path(item, role, version)
        if name != wanted:
            problems.append(f"{role} image {name[:80]!r} is not at {wanted!r}")
            continue
        data, why = read_image(root, name)
        found[name] = data
        if data is not None:
            why = png_problem(data, image["width"], image["height"])
            if why is None and hashlib.sha256(data).hexdigest() != image["sha256"]:
                why = "sha256 differs from the item's"
        if why is not None:
            problems.append(f"{role} image {name}: {why}")
        if role == "table":
            layout = check_table_layout(item, image["render"]) or \
                check_group_headers(item, image["render"])
            if layout is not None:
                problems.append(layout)
        elif image["render"].get("kind") != item["inputs"]["chart"]["kind"]:
            problems.append("chart image: render.kind differs from inputs.chart.kind")
    return found
