"""Text as a reader sees it, for the checks of ``gen verify`` that read words and numbers.

A reader does not see a zero-width space, a soft hyphen or a bidi control, reads a fullwidth
"Ｎｏｔ" as "Not", a Cyrillic "а" inside "fаlse" as the Latin "a", and "1 999" with a
non-breaking space as the number 1999. A check that compares code points instead would pass a
forgery a reader reads otherwise, so the checks read text through this module:

* :func:`as_read` is the text a reader sees: Unicode format characters (category Cf) removed,
  the thousands separators of a number removed ("1,999", "1 999", "1 999" are "1999"),
  then NFKC-normalised (compatibility forms, non-breaking and other spaces as spaces);
* :func:`invisible` names the first format character of a text a dataset's wording or a
  statement may not hold (a reader cannot see what it changes);
* :func:`look_alike` names the first word that mixes letters of two scripts, or, in a text
  otherwise written in Latin letters, a word made of look-alikes of Latin letters from another
  script (Unicode's confusables, from ``confusable_homoglyphs``);
* :func:`spoken_as_digits` writes the number words of a text in digits ("two" is "2"), so
  that a phrase matches however its small numbers are written;
* :func:`skeleton` is a word with its look-alike letters read as the Latin letters they imitate
  and its accents dropped: what the word says to a reader of English.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from confusable_homoglyphs import categories, confusables

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


def invisible(text: str) -> str | None:
    """The first format character (Unicode category Cf) of ``text``, described (``None``:
    there is none): a zero-width space, a soft hyphen, a bidi control, …"""
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
                f"{_cut(skeleton(word))!r})"
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
            f"(it reads as {_cut(skeleton(word))!r})"
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
def skeleton(word: str) -> str:
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
