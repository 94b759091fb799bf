"""Images of an item, each with its role, its file and how it was drawn.

``role`` is an open string; the roles hopvista knows are listed in :data:`ROLES`. Readers
(export, verify, preview, the card) select images by role, never by file name.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import Field

from hopvista.model.base import Model

ROLES = {
    "table": "the item's table, rendered (render: theme font, caption and cell boxes)",
    "chart": "the item's chart (render: library, kind, fonts, size)",
    "page": "a whole page or screenshot showing the item's inputs",
    "cell-image": "an image shown inside a table cell",
    "markup": "the table with counterfactual markup drawn on it",
    "photo": "a simulated photograph of a rendered table or chart",
}
"""The roles hopvista produces or reads, with what an image of that role shows."""

ROLE_PATTERN = r"^[a-z][a-z0-9-]*$"
IMAGES_DIR = "images"


class Image(Model):
    """One image file of an item.

    ``path`` is relative to the dataset folder, ``sha256`` the hex digest of its bytes,
    ``width`` and ``height`` its pixel size, ``render`` how it was drawn (for a table: the
    font, caption and the box of every cell; for a chart: library, kind, fonts; see
    docs/format.md, section 2.5).
    """

    role: str = Field(pattern=ROLE_PATTERN)
    path: str = Field(min_length=1)
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    width: int = Field(gt=0)
    height: int = Field(gt=0)
    render: dict[str, Any] = Field(default_factory=dict)


def image_path(item_id: str, role: str, number: int | None = None) -> str:
    """Where an item's image of ``role`` is written: ``images/ID.ROLE.png``, or
    ``images/ID.ROLE.N.png`` for the N-th (1-based) of several images of one role."""
    if not re.fullmatch(ROLE_PATTERN, role):
        raise ValueError(f"image role {role!r} is not a lower-case name")
    suffix = "" if number is None else f".{number}"
    return f"{IMAGES_DIR}/{item_id}.{role}{suffix}.png"


def longest_image_name(item_id: str) -> int:
    """Bytes of the longest file name :func:`image_path` gives an image of the item
    ``item_id`` (of any role in :data:`ROLES`): what must fit the file system's limit."""
    return max(len(image_path(item_id, role).rsplit("/", 1)[1].encode("utf-8", "surrogatepass"))
               for role in ROLES)


def by_role(images: tuple[Image, ...], role: str) -> list[Image]:
    """The images of ``role``, in item order."""
    return [image for image in images if image.role == role]
