"""Names: companies, counterparties (acquisition targets, plaintiffs), tickers, coined brands."""

from __future__ import annotations

from typing import Any

import numpy as np

from hopvista.sources.synthetic.catalogue import Industry, NameParts
from hopvista.sources.synthetic.draws import TRIES, pick
from hopvista.sources.synthetic.uniqueness import Uniqueness


def company_name(fake: Any, rng: np.random.Generator, industry: Industry, parts: NameParts,
                 taken: Uniqueness) -> str:
    """A company name that contains no other name and is contained in none."""
    name = ""
    for _ in range(TRIES):
        style = rng.random()
        if style < 0.55:
            name = f"{fake.last_name()} {pick(rng, industry.name_words)}"
        elif style < 0.78:
            suffix = pick(rng, parts.company_suffixes)
            name = f"{fake.last_name()} {pick(rng, industry.name_words)} {suffix}"
        else:
            name = str(fake.company())
        if taken.name_ok(name):
            break
    else:
        for suffix in parts.fallback_suffixes:
            if taken.name_ok(f"{name} {suffix}"):
                name = f"{name} {suffix}"
                break
        else:
            taken.clash("company_name")
    taken.add_name(name)
    return name


def other_name(fake: Any, rng: np.random.Generator, parts: NameParts, taken: Uniqueness,
               person: bool) -> str:
    """A counterparty (acquisition target, plaintiff) whose name clashes with no other name."""
    name = ""
    for _ in range(TRIES):
        if person:
            name = str(fake.name())
        elif rng.random() < 0.6:
            name = f"{fake.last_name()} {pick(rng, parts.counterparty_words)}"
        else:
            name = str(fake.company())
        if taken.name_ok(name):
            break
    else:
        taken.clash("counterparty_name")
    taken.add_name(name)
    return name


def ticker(name: str, rng: np.random.Generator, used: set[str]) -> str:
    """A 3-4 letter ticker not in ``used`` (initials or leading letters when they are free)."""
    words = ["".join(ch for ch in w.upper() if "A" <= ch <= "Z") for w in name.split()]
    words = [w for w in words if w]
    letters = "".join(words)
    candidates = ["".join(w[0] for w in words[:4])] if len(words) >= 3 else []
    candidates += [letters[:3], letters[:4]]
    if words:
        candidates += [words[0][:2] + w[0] for w in words[1:]]
    for candidate in candidates:
        if 3 <= len(candidate) <= 4 and candidate not in used:
            used.add(candidate)
            return candidate
    while True:  # 26**4 tickers; terminates quickly for any realistic world
        size = 3 if rng.random() < 0.5 else 4
        first = letters[:1] or chr(65 + int(rng.integers(26)))
        candidate = first + "".join(chr(65 + int(x)) for x in rng.integers(0, 26, size - 1))
        if candidate not in used:
            used.add(candidate)
            return candidate


def coin(rng: np.random.Generator, parts: NameParts) -> str:
    """A brand-like invented word ("Veralon", "Clionex") of 6 to 11 letters."""
    while True:
        syllables = [pick(rng, parts.onsets) + pick(rng, parts.vowels)
                     for _ in range(int(rng.integers(2, 4)))]
        word = ("".join(syllables) + pick(rng, parts.endings)).capitalize()
        if 6 <= len(word) <= 11:
            return word
