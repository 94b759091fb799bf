"""What answers cost: US dollars per million input and output tokens, per model.

The built-in table (``prices.yaml`` next to this module) lists a few hosted models at the
prices their providers published; ``gen eval --prices FILE`` replaces it with a YAML or JSON
mapping of the same shape (``{NAME: {input: 2.5, output: 10}}``, NAME as after
``openai:``). A model missing from the table has no cost (``null``), not a cost of zero.
Prices are finite numbers from 0 to :data:`MAX_PRICE`; anything else is refused with the
entry's name, so a cost is never negative, NaN or infinite.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from hopvista.errors import UserError
from hopvista.eval.backends import Reply
from hopvista.yamlfile import load_yaml, read_text, yaml_problem

MAX_PRICE = 1_000_000.0
"""The highest price taken, dollars per million tokens."""


@dataclass(frozen=True)
class Prices:
    """Per-million-token prices by model name."""

    table: dict[str, tuple[float, float]]

    @classmethod
    def builtin(cls) -> Prices:
        """The table shipped with hopvista."""
        text = resources.files("hopvista.eval").joinpath("prices.yaml").read_text("utf-8")
        return cls.parse(load_yaml(text), "prices.yaml")

    @classmethod
    def read(cls, path: Path) -> Prices:
        """A table from a YAML or JSON file, read within the bounds of
        :func:`hopvista.yamlfile.load_yaml` (a ``UserError`` naming the file, the line or the
        entry if it cannot be read or is malformed)."""
        try:
            text = read_text(path, kind="price table")
        except UserError as exc:
            raise UserError(f"--prices {exc}") from None
        try:
            data = load_yaml(text)
        except yaml.YAMLError as exc:
            line, problem = yaml_problem(exc)
            raise UserError(f"--prices {path}{f':{line}' if line else ''}: not a YAML or JSON "
                            f"table: {problem}") from None
        return cls.parse(data, str(path))

    @classmethod
    def parse(cls, data: Any, where: str) -> Prices:
        """A table from its parsed form."""
        if not isinstance(data, dict):
            raise UserError(f"{where}: not a mapping of model names to prices")
        table = {}
        for name, entry in data.items():
            try:
                price = (float(entry["input"]), float(entry["output"]))
            except (TypeError, KeyError, ValueError, OverflowError):
                raise UserError(f"{where}: {name}: give input and output, dollars per "
                                "million tokens") from None
            if not all(math.isfinite(p) and 0 <= p <= MAX_PRICE for p in price):
                raise UserError(f"{where}: {name}: prices are dollars per million tokens, "
                                f"from 0 to {MAX_PRICE:,.0f}")
            table[str(name)] = price
        return cls(table)

    def cost(self, spec: str, reply: Reply) -> float | None:
        """What ``reply`` cost from model ``spec`` (``openai:gpt-4o`` is looked up as
        ``gpt-4o``), or ``None`` when its price or its token counts are unknown."""
        name = spec.partition(":")[2] or spec
        price = self.table.get(name)
        if price is None or reply.input_tokens is None or reply.output_tokens is None:
            return None
        return (reply.input_tokens * price[0] + reply.output_tokens * price[1]) / 1e6
