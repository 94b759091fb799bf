"""Texts a reader cannot tell apart: invisible format characters, and names that look the
same (``"Аcme"`` with a Cyrillic А beside ``"Acme"``, ``"ＡＣＭＥ"`` beside ``"ACME"``).

Two texts look the same when they have the same *skeleton* -- Unicode's confusable mapping
(UTS #39, through the data of ``confusable_homoglyphs``) applied to what a reader sees of
them (:func:`visible_text`: NFKC, without default-ignorable characters, blanks and runs of
spaces read as one space) -- or the same case fold of it (a reader of "ACME" and "Acme"
would not know which one a statement means).
"""

from __future__ import annotations

import functools
import unicodedata
from typing import Generic, TypeVar

__all__ = ["JOINERS", "Lookalikes", "character_name", "first_difference",
           "invisible_character", "look_keys", "skeleton", "visible_text"]

#: Zero width non-joiner and joiner: scripts need them between some letters (Persian words,
#: Indic conjuncts), where RFC 5892's CONTEXTJ rules allow them; anywhere else they only hide.
JOINERS = frozenset("\u200c\u200d")

#: Default-ignorable characters that are not format characters (Cf): fillers, variation
#: selectors, the combining grapheme joiner. They show nothing, so skeletons drop them.
_IGNORABLE_RANGES = ((0x034F, 0x034F), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F),
                     (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8),
                     (0xE0000, 0xE0FFF), (0x2065, 0x2065))

#: Characters that are not whitespace but show as a blank (a braille cell with no dots).
_BLANKS = frozenset("\u2800")

#: Marks the confusable data wraps right-to-left characters in (for display only).
_DISPLAY_MARKS = "\u200e\u200f"

#: Rounds of the confusable mapping until a skeleton is stable (the data is nearly
#: idempotent; a few prototypes map on once more).
_SKELETON_ROUNDS = 4

T = TypeVar("T")


def character_name(char: str) -> str:
    """``U+0410 CYRILLIC CAPITAL LETTER A``: a character as a message names it."""
    name = unicodedata.name(char, "")
    return f"U+{ord(char):04X}" + (f" {name}" if name else "")


def _joins(text: str, pos: int) -> bool:
    """Whether the joiner at ``text[pos]`` sits where a script needs it (RFC 5892,
    appendix A: after a virama, or between Arabic-script letters that join)."""
    from idna.core import IDNAError, valid_contextj

    try:
        return bool(valid_contextj(text, pos))
    except (IDNAError, ValueError):
        return False


def invisible_character(text: str) -> str | None:
    """The first format character (Unicode category Cf) of ``text`` a reader cannot see,
    or ``None``: zero-width spaces, soft hyphens, direction marks, word joiners, tags, ...;
    a zero width (non-)joiner only where no script needs it."""
    for pos, char in enumerate(text):
        if unicodedata.category(char) != "Cf":
            continue
        if char in JOINERS and _joins(text, pos):
            continue
        return char
    return None


_IGNORABLE = frozenset(chr(code) for low, high in _IGNORABLE_RANGES
                       for code in range(low, high + 1))


def _ignorable(char: str) -> bool:
    return char in _IGNORABLE or unicodedata.category(char) == "Cf"


@functools.cache
def _prototypes() -> dict[str, str]:
    """Each confusable character's prototype (the text it is confused with)."""
    from confusable_homoglyphs.confusables import confusables_data

    data: dict[str, list[str]] = {
        key: [entry["c"].strip(_DISPLAY_MARKS) for entry in entries]
        for key, entries in confusables_data.items()}
    out: dict[str, str] = {}
    for char, glyphs in data.items():
        if len(char) != 1 or len(glyphs) != 1:
            continue  # a sequence, or a prototype itself (listing its look-alikes)
        glyph = glyphs[0]
        if len(glyph) > 1 or len(data.get(glyph, ())) > 1:
            out[char] = glyph
        elif glyph:
            out[char] = min(char, glyph)  # a pair: either stands for both
    return out


def visible_text(text: str) -> str:
    """``text`` as a reader sees it: NFKC, default-ignorable characters dropped, blank
    characters read as spaces, runs of spaces as one, none at either end."""
    if text.isascii():
        return " ".join(text.split())
    kept = (" " if c in _BLANKS else c for c in unicodedata.normalize("NFKC", text)
            if not _ignorable(c))
    return " ".join("".join(kept).split())


def skeleton(text: str) -> str:
    """The confusable skeleton of ``text``: its :func:`visible_text`, each character
    replaced by its prototype until nothing changes (``"Аcme"`` -> ``"Acme"``)."""
    prototypes = _prototypes()
    current = visible_text(text)
    for _ in range(_SKELETON_ROUNDS):
        mapped = unicodedata.normalize(
            "NFD", "".join(prototypes.get(c, c) for c in unicodedata.normalize("NFD", current)))
        if mapped == current:
            break
        current = mapped
    return current


def look_keys(text: str) -> tuple[str, str]:
    """The keys two texts that look the same share one of: the skeleton, and the case
    fold of the :func:`visible_text`."""
    return skeleton(text), visible_text(text).casefold()


class Lookalikes(Generic[T]):
    """Texts met so far, each with where it was met, by what they look like."""

    def __init__(self) -> None:
        self._seen: dict[tuple[int, str], tuple[str, T]] = {}

    def add(self, text: str, where: T, *, distinct: bool = False) -> tuple[str, T] | None:
        """Record ``text`` met at ``where``; an earlier *different* text that looks the same
        and where it was met, or ``None``. With ``distinct``, the same text met before counts
        too (each text names a different thing)."""
        keys = list(enumerate(look_keys(text)))
        for key in keys:
            earlier = self._seen.get(key)
            if earlier is not None and (distinct or earlier[0] != text):
                return earlier
        for key in keys:
            self._seen.setdefault(key, (text, where))
        return None


def first_difference(text: str, other: str) -> str | None:
    """The first character of ``text`` that ``other`` does not have, or ``None``."""
    return next((c for c in text if c not in other), None)
