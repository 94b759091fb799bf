"""Reading the size of a PNG from its header, without decoding it."""

from __future__ import annotations

import struct


def png_size(png: bytes) -> tuple[int, int]:
    """Width and height from a PNG header; ``ValueError`` if the bytes are not a PNG."""
    if png[:8] != b"\x89PNG\r\n\x1a\n" or png[12:16] != b"IHDR":
        raise ValueError("not a PNG image")
    width, height = struct.unpack(">II", png[16:24])
    return int(width), int(height)
