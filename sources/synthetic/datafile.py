"""Read a pack data file (YAML) into a pydantic model; every problem names file, line, field.

A thin use of :mod:`hopvista.yamlfile`, which reads every user YAML file of hopvista: a
validation error reads ``catalogues.yaml:42: field 'industries.3.ratios.gm': ...`` and a key
given twice in one mapping is an error too.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from hopvista.yamlfile import Lines, read_yaml
from hopvista.yamlfile import validate as validate_yaml

M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True)
class DataFile:
    """A parsed YAML file and the line of each field in it."""

    path: Path
    data: Any
    lines: Lines

    def where(self, *loc: str | int) -> str:
        """``'<path>:<line>: field 'a.b.0''``: the nearest line known for ``loc``."""
        return self.lines.where(loc)


def read(path: Path) -> DataFile:
    """Parse the YAML file at ``path``; :class:`UserError` if it cannot be read or parsed."""
    data, lines = read_yaml(path)
    return DataFile(path, data, lines)


def validate(model: type[M], file: DataFile) -> M:
    """``file.data`` as ``model``; the first validation error becomes a :class:`UserError`."""
    return validate_yaml(model, file.data, file.lines)
