"""Random streams derived from the build seed and a key; nothing random comes from global state.

``derive(seed, "item", index, variant)`` gives the item's own generator. Keys are hashed
together (``numpy.random.SeedSequence`` with a spawn key), so seed 42 / item 1 and
seed 43 / item 0 are unrelated streams.

Sampling that should stay put when the code around it changes draws from *named* streams:
:func:`stream` ``(seed, item_id, variant, name)`` gives one generator per decision, and
:func:`choose` picks among named options by rendezvous hashing, so registering a new table
theme or chart library moves only the items that now pick it. :class:`Streams` bundles the
three fixed parts for one item variant.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

Key = int | str


def _key_word(part: Key) -> int:
    if isinstance(part, int):
        if part < 0:
            raise ValueError("rng keys must be non-negative")
        return part
    digest = hashlib.sha256(part.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "little")


def derive(seed: int, *keys: Key) -> np.random.Generator:
    """The generator for ``(seed, *keys)``: same inputs, same stream, on any machine."""
    if seed < 0:
        raise ValueError("seed must be non-negative")
    sequence = np.random.SeedSequence(seed, spawn_key=tuple(_key_word(k) for k in keys))
    return np.random.Generator(np.random.PCG64(sequence))


def derive_int(seed: int, *keys: Key) -> int:
    """A 63-bit integer for libraries that take an integer seed (faker, matplotlib)."""
    return int(derive(seed, *keys).integers(0, 2**63 - 1))


# -- named streams and stable choices ------------------------------------------------------
#
# Everything an item samples draws from a stream named for what it decides: (seed, item id,
# variant, stream name). Two decisions never share a stream, so adding a parameter, a theme
# or a chart library leaves every other decision of every item where it was.

STREAM_KEY = "stream"
"""First key of every named stream (keeps them apart from ``derive(seed, "item", ...)``)."""


def stream(seed: int, item_id: str, variant: str, name: str) -> np.random.Generator:
    """The generator of one decision: ``name`` (e.g. ``"table.font_size_px"``) for one item
    variant (``item_id``, ``variant`` such as ``"base"``) of the build ``seed``."""
    return derive(seed, STREAM_KEY, item_id, variant, name)


def _key(seed: int, item_id: str, variant: str, name: str) -> bytes:
    """A decision's key as bytes (a JSON array: unambiguous, the same on any machine)."""
    if seed < 0:
        raise ValueError("seed must be non-negative")
    return json.dumps([seed, item_id, variant, name], ensure_ascii=False).encode("utf-8")


def _to_unit(data: bytes) -> float:
    """A float in (0, 1) from the first 64 bits of the sha256 of ``data``."""
    word = int.from_bytes(hashlib.sha256(data).digest()[:8], "little")
    return (word + 0.5) / 2.0**64


def uniform(seed: int, item_id: str, variant: str, name: str) -> float:
    """One uniform number in (0, 1) for the decision ``name``: a hash of the four values,
    cheaper than a generator when a decision needs one number."""
    return _to_unit(_key(seed, item_id, variant, name))


def _weights(options: list[str],
             weights: Mapping[str, float] | Sequence[float] | None) -> list[float]:
    if weights is None:
        return [1.0] * len(options)
    if isinstance(weights, Mapping):
        missing = [o for o in options if o not in weights]
        if missing:
            raise ValueError(f"no weight for option(s) {missing}")
        values = [float(weights[o]) for o in options]
    else:
        values = [float(w) for w in weights]
        if len(values) != len(options):
            raise ValueError(f"{len(values)} weights for {len(options)} options")
    if any(not math.isfinite(w) or w < 0 for w in values):
        raise ValueError(f"weights must be finite and non-negative, got {values}")
    if not any(w > 0 for w in values):
        raise ValueError("at least one option needs a positive weight")
    return values


def choose(options: Iterable[str], seed: int, item_id: str, variant: str, name: str,
           weights: Mapping[str, float] | Sequence[float] | None = None) -> str:
    """One of ``options`` (names), chosen by rendezvous (highest-random-weight) hashing.

    Each option gets a score from a sha256 of ``(seed, item_id, variant, name, option)`` alone;
    the lowest ``-ln(u) / weight`` wins, so option ``o`` is chosen with probability
    ``weight(o) / sum(weights)`` and the choice depends on the *set* of options, not on their
    order. Adding an option moves exactly the items whose new option beats their old winner;
    removing one moves only the items that had chosen it. ``weights`` maps names to weights
    (or lists them in ``options`` order); an option of weight 0 is never chosen.
    """
    names = list(options)
    if not names:
        raise ValueError(f"choose({name!r}): no options")
    if len(set(names)) != len(names):
        raise ValueError(f"choose({name!r}): duplicate options in {names}")
    prefix = _key(seed, item_id, variant, name) + b"\n"
    best, best_score = names[0], math.inf
    for option, weight in zip(names, _weights(names, weights), strict=True):
        if weight <= 0:
            continue
        score = -math.log(_to_unit(prefix + option.encode("utf-8"))) / weight
        if score < best_score or (score == best_score and option < best):
            best, best_score = option, score
    return best


@dataclass(frozen=True)
class Streams:
    """The named streams of one item variant: :func:`stream` and :func:`choose` with the
    seed, item id and variant filled in."""

    seed: int
    item_id: str
    variant: str = "base"

    def stream(self, name: str) -> np.random.Generator:
        """The generator called ``name``."""
        return stream(self.seed, self.item_id, self.variant, name)

    def uniform(self, name: str) -> float:
        """:func:`uniform` for the decision ``name``: one number in (0, 1)."""
        return uniform(self.seed, self.item_id, self.variant, name)

    def integer(self, name: str, low: int, high: int) -> int:
        """One integer in ``[low, high]`` (both ends included, equally likely) for the
        decision ``name``."""
        if low > high:
            raise ValueError(f"integer({name!r}): {low} > {high}")
        return low + min(int(self.uniform(name) * (high - low + 1)), high - low)

    def choose(self, options: Iterable[str], name: str,
               weights: Mapping[str, float] | Sequence[float] | None = None) -> str:
        """:func:`choose` among ``options`` for the decision ``name``."""
        return choose(options, self.seed, self.item_id, self.variant, name, weights)
