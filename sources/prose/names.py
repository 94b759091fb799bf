"""The entity's names in one passage: full names, the short forms that passage may use, and
the words a claim or a needle must never contain.

A *full name* is a display name, with a leading "The" and a club or legal suffix optional
("The Velvet Lanterns" is also "Velvet Lanterns", "Ashford Rovers F.C." is also "Ashford
Rovers"). Two short forms are considered, each only where it is safe in this passage:

- the first word ("Kingsbridge" for "Kingsbridge Town"), which often also names a place:
  usable only after the passage has used the full name, and only if the passage never uses
  the word otherwise (after a preposition, before another capitalised word, or as a
  possessive, which could be the town's);
- "the" + the last word ("the Rovers" for "Ashford Rovers"), capitalised as in the name:
  usable only if the passage never uses that word after another capitalised word
  ("Bristol Rovers").

Both are *forbidden* in claims whether or not they are usable as subjects.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from hopvista.sources.prose.words import COMMON_CAPS, verb_like, words
from hopvista.sources.sec.facts import GENERIC_FIRST_WORDS, name_forms, names_in

__all__ = ["EntityNames", "entity_names", "mentions"]

_SUFFIX = re.compile(
    r"(?:,?\s+(?:F\.?C\.?|A\.?F\.?C\.?|R\.?F\.?C\.?|C\.?F\.?|S\.?C\.?|Inc|Ltd|Limited|plc|PLC"
    r"|LLC|Corp|Corporation)\.?)$")

#: First words that are not a name on their own ("Port Avalon", "River Tesk", "HMS Argo").
_GENERIC_FIRST = GENERIC_FIRST_WORDS | words("""
port saint st lake loch river mount mt fort old royal city university college school hospital
the hms rms uss ss hmy king queen prince princess lord sir dr doctor santa san los las el la le
de van von upper lower little greater grand high long isle isla bay cape castle glen saints
county state federal metropolitan greater inner outer middle all holy sacred blessed
""")

#: Last words that name a kind of thing, not one thing ("Kingsbridge Town", "Eastmere General
#: Hospital", "Harlow Bank").
_GENERIC_LAST = words("""
town city united county club fc afc athletic hospital infirmary university college school
academy institute river lake loch park street road lane bank group company trust society band
orchestra choir hall stadium bridge steel alloy brass bronze iron works mill mills church
cathedral abbey station airport port harbour harbor bay island islands sea ocean valley hill
hills mountain mountains forest wood woods centre center clinic surgery practice district
borough village parish council league association federation corporation limited ltd plc
inc reservoir canal creek brook stream water falls spring springs central general national
memorial grammar primary high infirmary airport museum theatre library zoo castle
""")


@dataclass(frozen=True)
class EntityNames:
    """How one passage may refer to its entity, and what a claim must not contain."""

    full: tuple[str, ...]
    """Full names, longest first."""
    first: str | None
    """The first-word short form, where this passage may use it as a subject."""
    last: str | None
    """The last word of the name, where "the <last>" may be a subject in this passage."""
    nouns: tuple[str, ...]
    """The domain's nouns for the entity ("club", "side"), longest first."""
    forbidden: tuple[str, ...]
    """Names and short forms no claim or needle may contain."""


def _full_names(names: Sequence[str]) -> list[str]:
    return sorted((n for n in name_forms(names, _SUFFIX) if len(n) >= 2), key=len,
                  reverse=True)


def _first_word(full: Sequence[str]) -> str | None:
    for name in full:
        parts = name.split()
        if len(parts) < 2:
            continue
        first = parts[0]
        if (re.fullmatch(r"[A-Z][a-z]{3,}", first) and first.lower() not in _GENERIC_FIRST
                and first not in COMMON_CAPS):
            return first
    return None


def _last_word(full: Sequence[str]) -> str | None:
    for name in full:
        parts = name.split()
        if len(parts) < 2 or "of" in parts:
            continue
        last = parts[-1]
        if re.fullmatch(r"[A-Z][a-z]{3,}", last) and last.lower() not in _GENERIC_LAST \
                and last not in COMMON_CAPS:
            return last
    return None


def _blank_full_names(text: str, full: Sequence[str]) -> str:
    """``text`` with every full name replaced by underscores (offsets kept)."""
    for name in full:
        pattern = r"(?<!\w)" + r"\s+".join(re.escape(w) for w in name.split()) + r"(?!\w)"
        text = re.sub(pattern, lambda m: "_" * len(m.group(0)), text, flags=re.IGNORECASE)
    return text


def _first_usable(text: str, full: Sequence[str], first: str) -> bool:
    """Whether every use of ``first`` outside the full names is a sentence's (or a clause's)
    subject followed by a verb, and the full name comes before them all."""
    blanked = _blank_full_names(text, full)
    uses = list(re.finditer(r"(?<![\w\-])" + re.escape(first) + r"(?![\w\-])", blanked))
    if not uses:
        return True
    if "_" not in blanked[:uses[0].start()]:
        return False  # the passage never introduced the full name first
    for use in uses:
        before = blanked[:use.start()].rstrip()
        after = blanked[use.end():]
        starts = not before or before[-1] in ".!?" or before.endswith(",")
        verb = re.match(r" ([a-z][a-z\-]*)\b", after)
        if not starts or verb is None or not verb_like(verb.group(1), plural_ok=True):
            return False
    return True


def _last_usable(text: str, full: Sequence[str], last: str) -> bool:
    """Whether ``last`` never follows another capitalised word outside the full names."""
    blanked = _blank_full_names(text, full)
    for use in re.finditer(r"(?<![\w\-])" + re.escape(last) + r"(?![\w\-])", blanked):
        previous = re.search(r"(\S+)\s+$", blanked[:use.start()])
        if previous and previous.group(1).lower() != "the" and previous.group(1)[:1].isupper():
            return False
    return True


def entity_names(names: Sequence[str], nouns: Sequence[str], text: str) -> EntityNames:
    """The entity's names as ``text`` (one passage) may use them."""
    full = _full_names(names)
    first = _first_word(full)
    last = _last_word(full)
    forbidden = [*full, *(w for w in (first, last) if w)]
    clean_nouns = sorted({" ".join(n.lower().split()) for n in nouns if n.strip()},
                         key=len, reverse=True)
    return EntityNames(
        full=tuple(full),
        first=first if first and _first_usable(text, full, first) else None,
        last=last if last and _last_usable(text, full, last) else None,
        nouns=tuple(clean_nouns),
        forbidden=tuple(sorted(set(forbidden), key=len, reverse=True)),
    )


def mentions(text: str, names: EntityNames) -> bool:
    """Whether ``text`` contains one of the entity's names or short forms (case ignored;
    names of five letters or more also inside a longer word)."""
    return names_in(text.replace("’", "'"), [n.replace("’", "'") for n in names.forbidden],
                    None)
