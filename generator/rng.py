"""Random streams derived from the build seed and a key; nothing random comes from global state.

``derive(seed, "item", index, variant)`` gives the item's own generator. Keys are hashed
together (``numpy.random.SeedSequence`` with a spawn key), so seed 42 / item 1 and
seed 43 / item 0 are unrelated streams.
"""

from __future__ import annotations

import hashlib

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
