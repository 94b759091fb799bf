"""Text as a reader sees it: what ``gen verify`` reads of words and numbers, and what tells
two names apart.

A reader does not see a zero-width space, a soft hyphen or a bidi control, reads a fullwidth
"Ｎｏｔ" as "Not", a Cyrillic "а" inside "fаlse" as the Latin "a", and "1 999" with a
non-breaking space as the number 1999. A check that compares code points instead would pass a
forgery a reader reads otherwise, so the checks read text through this module.

Reading words and numbers (``gen verify``'s wording, meaning and fact checks, and the build that
must agree with them):

* :func:`as_read` is the text a reader sees: Unicode format characters (category Cf) removed,
  the thousands separators of a number removed ("1,999", "1 999", "1 999" are "1999"),
  then NFKC-normalised (compatibility forms, non-breaking and other spaces as spaces);
* :func:`format_character` names the first format character of a text a dataset's wording or a
  statement may not hold (a reader cannot see what it changes);
* :func:`look_alike` names the first word that mixes letters of two scripts, or, in a text
  otherwise written in Latin letters, a word made of look-alikes of Latin letters from another
  script (Unicode's confusables, from ``confusable_homoglyphs``);
* :func:`spoken_as_digits` writes the number words of a text in digits ("two" is "2"), so
  that a phrase matches however its small numbers are written;
* :func:`latin_reading` is a word with its look-alike letters read as the Latin letters they
  imitate and its accents dropped: what the word says to a reader of English.

Telling names apart (a panel's entities and columns, and ``gen verify``'s check of them): two
texts look the same when they have the same *confusable skeleton* -- Unicode's confusable
mapping (UTS #39) applied to what a reader sees of them (:func:`visible_text`: NFKC, without
default-ignorable characters, blanks and runs of spaces read as one space) -- or the same case
fold of it (a reader of "ACME" and "Acme" would not know which one a statement means):

* :func:`confusable_skeleton`, :func:`look_keys` and :class:`Lookalikes` find such names;
* :func:`invisible_character` is the first format character a name may not hold (a zero width
  joiner or non-joiner only where no script needs it).
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache, lru_cache
from typing import Generic, TypeVar

from confusable_homoglyphs import categories, confusables
from confusable_homoglyphs.confusables import confusables_data
from idna.core import IDNAError, valid_contextj

__all__ = ["JOINERS", "Lookalikes", "as_read", "character_name", "confusable_skeleton",
           "first_difference", "format_character", "invisible_character", "latin_reading",
           "look_alike", "look_keys", "spoken_as_digits", "visible_text"]


# --- reading words and numbers --------------------------------------------------------------


#: Scripts a letter belongs to that are no script of their own (marks, digits, punctuation).
_NEUTRAL_SCRIPTS = frozenset({"COMMON", "INHERITED"})
#: Scripts written together in one word (Japanese mixes kanji and kana; Korean, hanja).
_WRITTEN_TOGETHER = ({"HAN", "HIRAGANA", "KATAKANA"}, {"HAN", "HANGUL"})
#: A thousands separator between digits: a comma, a no-break, thin, narrow or figure space.
_GROUP = re.compile(r"(?<=\d)[,\u00a0\u2009\u202f\u2007](?=\d{3}(?!\d))")
_LETTERS = re.compile(r"[^\W\d_]+")
#: A word with the combining marks NFKC left on its letters (a stroke, an overlay).
_MARKED = re.compile(r"(?:[^\W\d_]|[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff"
                     r"\ufe20-\ufe2f])+")


def format_character(text: str) -> str | None:
    """The first format character (Unicode category Cf) of ``text``, described (``None``:
    there is none): a zero-width space, a soft hyphen, a bidi control, … -- a zero width
    joiner too, wherever it stands (unlike :func:`invisible_character`)."""
    for char in text:
        if unicodedata.category(char) == "Cf":
            return f"U+{ord(char):04X} ({unicodedata.name(char, 'a format character')})"
    return None


def as_read(text: str) -> str:
    """``text`` as a reader sees it: without format characters, numbers without thousands
    separators, NFKC-normalised."""
    visible = "".join(c for c in text if unicodedata.category(c) != "Cf")
    return unicodedata.normalize("NFKC", _GROUP.sub("", visible))


@lru_cache(maxsize=4096)
def _script(char: str) -> str:
    return categories.alias(char) or "COMMON"


def _scripts(word: str) -> set[str]:
    return {_script(c) for c in word} - _NEUTRAL_SCRIPTS


def _mixes(scripts: set[str]) -> bool:
    return len(scripts) > 1 and not any(scripts <= group for group in _WRITTEN_TOGETHER)


@lru_cache(maxsize=4096)
def _latin_look_alikes(word: str) -> dict[str, str]:
    """The letters of ``word`` outside the Latin script that imitate a Latin letter, each
    with the (first) Latin letter it imitates."""
    found = confusables.is_confusable(word, greedy=True, preferred_aliases=["latin"]) or []
    out = {}
    for entry in found:
        latin = [h["c"] for h in entry["homoglyphs"] if len(h["c"]) == 1
                 and _script(h["c"]) == "LATIN" and h["c"].isascii()]
        if latin:
            out[entry["character"]] = latin[0]
    return out


def look_alike(text: str) -> str | None:
    """Why a word of ``text`` (read NFKC) is not what it looks like (``None``: every word is):
    it mixes letters of two scripts, or, in a text otherwise written in Latin letters, it is
    written in another script's look-alikes of Latin letters."""
    words = _MARKED.findall(unicodedata.normalize("NFKC", text))
    for word in words:
        scripts = _scripts(word)
        if _mixes(scripts):
            named = " and ".join(sorted(s.title() for s in scripts))
            return f"the word {_cut(word)!r} mixes {named} letters (it reads as " \
                f"{_cut(latin_reading(word))!r})"
        marks = [c for c in word if unicodedata.combining(c)]
        if marks and scripts <= {"LATIN"}:
            return f"the word {_cut(word)!r} carries the mark U+{ord(marks[0]):04X} " \
                f"({unicodedata.name(marks[0], 'a combining mark')}) over its letters"
    words = _LETTERS.findall(unicodedata.normalize("NFKC", text))
    imitations = [w for w in words if _imitates_latin(w)]
    # otherwise Latin: beside the imitations, only Latin words (a text in another script has
    # words with letters no Latin letter looks like)
    if imitations and all(w in imitations or _scripts(w) <= {"LATIN"} for w in words):
        word = imitations[0]
        named = "/".join(sorted(s.title() for s in _scripts(word)))
        return f"the word {_cut(word)!r} is written in {named} look-alikes of Latin letters " \
            f"(it reads as {_cut(latin_reading(word))!r})"
    return None


def _cut(word: str, limit: int = 30) -> str:
    return word if len(word) <= limit else word[:limit - 1] + "\u2026"


def _imitates_latin(word: str) -> bool:
    """Whether ``word`` is written outside the Latin script in letters each of which looks
    like a Latin letter."""
    scripts = _scripts(word)
    return bool(scripts) and scripts != {"LATIN"} and \
        set(_latin_look_alikes(word)) >= {c for c in word if c.isalpha()}


@lru_cache(maxsize=16384)
def latin_reading(word: str) -> str:
    """``word`` as a reader of English reads it: NFKC, look-alike letters read as the Latin
    letters they imitate, accents dropped, lower case."""
    text = unicodedata.normalize("NFKC", word)
    swaps = _latin_look_alikes(text)
    text = "".join(swaps.get(c, c) for c in text)
    bare = "".join(c for c in unicodedata.normalize("NFKD", text)
                   if not unicodedata.combining(c))
    return unicodedata.normalize("NFC", bare).lower()


_UNITS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
          "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen",
          "seventeen", "eighteen", "nineteen", "twenty")
_TENS = ("thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_NUMBER_WORDS = {w: str(n) for n, w in enumerate(_UNITS)} | \
    {w: str(10 * n) for n, w in enumerate(_TENS, start=3)}
_NUMBER_WORD = re.compile(r"\b(" + "|".join(_NUMBER_WORDS) + r")\b", re.IGNORECASE)


def spoken_as_digits(text: str) -> str:
    """``text`` with each number word from zero to twenty and each ten up to ninety written in
    digits ("two neighbouring farms" is "2 neighbouring farms")."""
    return _NUMBER_WORD.sub(lambda m: _NUMBER_WORDS[m.group(1).lower()], text)


# --- telling names apart -------------------------------------------------------------------

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


@cache
def _prototypes() -> dict[str, str]:
    """Each confusable character's prototype (the text it is confused with)."""
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


def confusable_skeleton(text: str) -> str:
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
    return confusable_skeleton(text), visible_text(text).casefold()


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
