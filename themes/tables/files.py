"""The table package's own files: its skeleton, panels and page templates and built-in CSS."""

from __future__ import annotations

from functools import cache
from importlib import resources

PACKAGE = __name__.rpartition(".")[0]
SKELETON = "table.html.j2"


def read_file(package: str, filename: str) -> str:
    """The text of ``filename`` inside the Python package ``package`` (works from a wheel)."""
    return resources.files(package).joinpath(filename).read_text(encoding="utf-8")


@cache
def skeleton() -> str:
    """The Jinja2 source of the default table skeleton (``table.html.j2``)."""
    return read_file(PACKAGE, SKELETON)
