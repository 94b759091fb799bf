"""Pieces the perturbations share: bounded ``(low, high)`` ranges, draws from them, and a
generator's state as plain JSON (for per-pixel randomness that ``apply`` draws)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import core_schema

from hopvista.errors import UserError

FloatRange = tuple[float, float]
IntRange = tuple[int, int]


@dataclass(frozen=True)
class Within:
    """``Annotated[FloatRange, Within(0, 3)]``: a ``(low, high)`` range, ordered, both ends in
    ``[minimum, maximum]`` (the JSON Schema carries the bounds)."""

    minimum: float
    maximum: float

    def check(self, value: tuple[Any, Any]) -> tuple[Any, Any]:
        """The range itself, or a ``ValueError`` saying what is wrong with it."""
        low, high = value
        if low > high:
            raise ValueError(f"range ({low}, {high}): low is above high")
        if low < self.minimum or high > self.maximum:
            raise ValueError(f"range ({low}, {high}) must lie within "
                             f"[{self.minimum}, {self.maximum}]")
        return value

    def __get_pydantic_core_schema__(self, source: Any,
                                     handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
        return core_schema.no_info_after_validator_function(self.check, handler(source))

    def __get_pydantic_json_schema__(self, schema: core_schema.CoreSchema,
                                     handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        json_schema = handler(schema)
        for item in json_schema.get("prefixItems", []):
            item.update(minimum=self.minimum, maximum=self.maximum)
        return json_schema


class Params(BaseModel):
    """Base of the perturbations' parameters: unknown keys are an error, models are frozen."""

    model_config = ConfigDict(extra="forbid", frozen=True)


def uniform(rng: np.random.Generator, bounds: FloatRange, digits: int = 4) -> float:
    """A float drawn uniformly from ``bounds``, rounded to ``digits`` so that what the record
    stores is exactly what is applied."""
    return round(float(rng.uniform(bounds[0], bounds[1])), digits)


def integer(rng: np.random.Generator, bounds: IntRange) -> int:
    """An integer drawn uniformly from ``bounds`` (both ends included)."""
    return int(rng.integers(bounds[0], bounds[1] + 1))


def generator_state(rng: np.random.Generator) -> dict[str, Any]:
    """Where ``rng`` stands, as plain JSON (its bit generator's state, integers in hex, since
    128-bit ones do not survive every JSON reader): :func:`generator_at` makes a generator
    that draws what ``rng`` would draw next."""
    state: dict[str, Any] = _hex_ints(rng.bit_generator.state)
    return state


BIT_GENERATORS: dict[str, type[np.random.BitGenerator]] = {
    "MT19937": np.random.MT19937, "PCG64": np.random.PCG64, "PCG64DXSM": np.random.PCG64DXSM,
    "Philox": np.random.Philox, "SFC64": np.random.SFC64}
"""NumPy's bit generators by the name their state carries."""


def generator_at(state: Mapping[str, Any]) -> np.random.Generator:
    """A generator standing where :func:`generator_state` recorded one; a ``UserError`` when
    ``state`` is not one."""
    name = state.get("bit_generator")
    kind = BIT_GENERATORS.get(str(name))
    if kind is None:
        raise UserError(f"generator state: bit_generator: {name!r} is not one of "
                        f"{sorted(BIT_GENERATORS)}")
    bit_generator = kind()
    try:
        bit_generator.state = _plain_ints(dict(state))
    except (TypeError, ValueError, KeyError, OverflowError) as exc:
        raise UserError(f"generator state: not a {name} state ({exc})") from None
    return np.random.Generator(bit_generator)


def _hex_ints(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {key: _hex_ints(item) for key, item in value.items()}
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return hex(int(value))
    return value


def _plain_ints(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {key: _plain_ints(item) for key, item in value.items()}
    if isinstance(value, str) and value.startswith("0x"):
        return int(value, 16)
    return value
