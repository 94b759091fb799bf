"""Linear identities between a domain's columns (``gp = sale - cogs``) and what they derive."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Identity:
    """A linear identity ``lhs = ±t1 ±t2 ...`` between columns."""

    text: str
    lhs: str
    terms: tuple[tuple[int, str], ...]

    @property
    def members(self) -> frozenset[str]:
        """Every column the identity mentions."""
        return frozenset([self.lhs, *(c for _, c in self.terms)])


_TERM = re.compile(r"\s*([+-])?\s*([a-z][a-z0-9_]*)\s*")


def parse_identity(text: str) -> Identity:
    """Parse ``'gp = sale - cogs'``; raise ``ValueError`` naming the bad part."""
    if text.count("=") != 1:
        raise ValueError(f"identity {text!r} needs exactly one '='")
    left, right = (part.strip() for part in text.split("="))
    if not re.fullmatch(r"[a-z][a-z0-9_]*", left):
        raise ValueError(f"identity {text!r}: left side must be one column")
    terms: list[tuple[int, str]] = []
    pos = 0
    while pos < len(right):
        match = _TERM.match(right, pos)
        if not match or match.end() == pos:
            raise ValueError(f"identity {text!r}: cannot read {right[pos:]!r}")
        sign = -1 if match.group(1) == "-" else 1
        if terms and match.group(1) is None:
            raise ValueError(f"identity {text!r}: missing + or - before {match.group(2)!r}")
        terms.append((sign, match.group(2)))
        pos = match.end()
    if not terms:
        raise ValueError(f"identity {text!r}: right side is empty")
    return Identity(text=text, lhs=left, terms=tuple(terms))


def derivable_closure(known: set[str] | frozenset[str], identities: list[Identity]) -> set[str]:
    """Columns computable from ``known`` by applying identities until nothing new follows."""
    closure = set(known)
    changed = True
    while changed:
        changed = False
        for identity in identities:
            missing = identity.members - closure
            if len(missing) == 1:
                closure |= missing
                changed = True
    return closure
