"""Reading and comparing short answers (MMTabReal's answer rules, Appendix E, made exact).

* **Text** is normalised as in SQuAD-style evaluation: Unicode NFKC, lower case, punctuation
  removed, the articles *a*, *an*, *the* dropped, whitespace collapsed.
* **Numbers** are read after removing thousands separators, a currency sign, a trailing
  ``%`` and surrounding spaces (U+2212 is a minus, ``(12)`` is -12), and are equal when they
  are equal after rounding half-up to two decimals (MMTabReal asks for two decimals).
* **Booleans** are ``yes``/``true`` or ``no``/``false`` in any case.
* **Lists** are a JSON array or comma/semicolon separated values; two lists are equal when
  they hold the same elements, in any order, each compared as a number when both sides
  read as numbers and as normalised text otherwise.
"""

from __future__ import annotations

import json
import re
import string
import unicodedata
from collections import Counter
from decimal import ROUND_HALF_UP, Context, Decimal
from typing import Any

from hopvista.program.numbers import MAX_DIGITS, read_number

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = str.maketrans("", "", string.punctuation)
TRUE_WORDS = ("yes", "true")
FALSE_WORDS = ("no", "false")
HUNDREDTH = Decimal("0.01")
"""Digits before the point of the largest number an answer is read as (a longer one is text)."""
_ROUNDING = Context(prec=MAX_DIGITS + 8, rounding=ROUND_HALF_UP)
MAX_JSON_ATTEMPTS = 200
"""Places :func:`read_json_object` tries to read an object at, before it gives up."""


def normalise_text(text: str) -> str:
    """``text`` lower-cased, without punctuation or articles, whitespace collapsed."""
    text = unicodedata.normalize("NFKC", text).lower().translate(_PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", text).split())


def rounded(number: Decimal) -> Decimal:
    """``number`` rounded half-up to two decimals."""
    return number.quantize(HUNDREDTH, context=_ROUNDING)


def same_number(a: Decimal, b: Decimal) -> bool:
    """Equal after rounding half-up to two decimals."""
    return rounded(a) == rounded(b)


def read_boolean(value: Any) -> bool | None:
    """``value`` as a boolean, or ``None``."""
    if isinstance(value, bool):
        return value
    if not isinstance(value, str):
        return None
    word = normalise_text(value)
    return True if word in TRUE_WORDS else False if word in FALSE_WORDS else None


def read_list(value: Any) -> list[str]:
    """``value`` as a list of element texts (a JSON array, or comma/semicolon separated)."""
    if isinstance(value, list):
        return [v if isinstance(v, str) else json.dumps(v) for v in value]
    text = str(value).strip()
    if text.startswith("["):
        try:
            parsed = json.loads(text)
        except (ValueError, RecursionError):
            text = text.strip("[]")
        else:
            if isinstance(parsed, list):
                return [v if isinstance(v, str) else json.dumps(v) for v in parsed]
    return [part.strip().strip("\"'") for part in re.split(r"[;,]", text) if part.strip()]


def element_key(text: str) -> str:
    """The comparison key of a list element: its rounded number, or its normalised text."""
    number = read_number(text)
    if number is not None:
        return "#" + format(rounded(number), "f")
    return normalise_text(text)


def token_f1(prediction: list[str], gold: list[str]) -> float:
    """F1 of two bags of tokens (1.0 when both are empty)."""
    if not prediction or not gold:
        return float(prediction == gold)
    common = sum((Counter(prediction) & Counter(gold)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(prediction), common / len(gold)
    return 2 * precision * recall / (precision + recall)


def read_json_object(value: Any) -> dict[str, Any] | None:
    """The answer object in a model's text: the last top-level JSON object in it (inside a
    code fence or not), or ``value`` itself when it already is a dict; ``None`` if none."""
    if isinstance(value, dict):
        return value
    if not isinstance(value, str):
        return None
    decoder = json.JSONDecoder()
    found: dict[str, Any] | None = None
    attempts = 0
    i = value.find("{")
    while i != -1 and attempts < MAX_JSON_ATTEMPTS:
        attempts += 1
        try:
            parsed, end = decoder.raw_decode(value, i)
        except (ValueError, RecursionError):
            i = value.find("{", i + 1)
            continue
        if isinstance(parsed, dict):
            found = parsed
        i = value.find("{", end)
    return found


def same_field(gold: Any, said: Any, ordered: bool = False) -> bool:
    """Whether one field of a JSON answer matches: ``null`` matches null or a missing-value
    word (N/A, a dash, empty); booleans as :func:`read_boolean`; numbers equal after rounding
    to two decimals (a text that reads as a number counts as one); texts normalised; lists
    element by element as :func:`element_key` reads them, in order when ``ordered`` and as
    multisets otherwise."""
    if gold is None:
        return said is None or (isinstance(said, str) and
                                said.strip().lower() in ("", "n/a", "na", "-", "\u2014",
                                                         "\u2013", "--", "none", "null"))
    if said is None:
        return False
    if isinstance(gold, bool):
        return read_boolean(said) is gold
    if isinstance(gold, list):
        golds = [element_key(g) for g in read_list(gold)]
        saids = [element_key(s) for s in read_list(said)]
        return golds == saids if ordered else sorted(golds) == sorted(saids)
    want, got = read_number(gold), read_number(said)
    if want is not None and got is not None:
        return same_number(want, got)
    if isinstance(said, (dict, list)):
        return False
    return normalise_text(str(said)) == normalise_text(str(gold))
