"""Fictional entity names from a seeded syllable generator: no answer can come from world
knowledge, and the same streams give the same names."""

from __future__ import annotations

from hopvista.rng import Streams

ONSETS = ("b", "br", "c", "d", "dr", "f", "g", "gr", "h", "k", "l", "m", "n", "p", "r", "s",
          "st", "t", "tr", "v", "w", "z")
VOWELS = ("a", "e", "i", "o", "u", "ai", "ea", "ou")
CODAS = ("", "n", "r", "l", "s", "th", "m", "nd", "x")
TRIES = 64
"""Names drawn at most for one entity before the table is given up as too crowded."""


def stem(streams: Streams, slot: str, syllables: int) -> str:
    """A pronounceable made-up word of ``syllables`` syllables, capitalised."""
    parts = [streams.choose(ONSETS, f"{slot}.onset.{i}")
             + streams.choose(VOWELS, f"{slot}.vowel.{i}")
             + (streams.choose(CODAS, f"{slot}.coda.{i}") if i == syllables - 1 else "")
             for i in range(syllables)]
    return "".join(parts).capitalize()


def unique_names(streams: Streams, slot: str, count: int, suffixes: tuple[str, ...]) -> list[str]:
    """``count`` different names, each a made-up stem with one of ``suffixes`` (which may
    join the stem directly, ``"ia"``, or after a space, ``" FC"``)."""
    names: list[str] = []
    for attempt in range(TRIES):
        if len(names) == count:
            break
        where = f"{slot}.{attempt}"
        word = stem(streams, where, streams.integer(f"{where}.syllables", 1, 2))
        name = word + streams.choose(suffixes, f"{where}.suffix")
        if name.casefold() not in {n.casefold() for n in names}:
            names.append(name)
    if len(names) < count:
        raise ValueError(f"only {len(names)} different names in {TRIES} draws")
    return names
