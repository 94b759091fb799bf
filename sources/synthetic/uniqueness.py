"""World-wide uniqueness of names and needles, so a fact or a name points to one company."""

from __future__ import annotations


class Uniqueness:
    """The names and needles taken so far in one world, and the clashes accepted."""

    def __init__(self, vocabulary: frozenset[str] = frozenset()) -> None:
        #: template words a coined product name must not hide in (short words are harmless)
        self.vocabulary = sorted(w for w in vocabulary if len(w) >= 5)
        self.names: list[str] = []
        self.needles: dict[str, list[str]] = {}
        self.all_needles: set[str] = set()
        self.keys: set[str] = set()
        #: kind -> how many times the bounded redraws ended without a unique value
        self.clashes: dict[str, int] = {}

    def clash(self, kind: str) -> None:
        """Count one accepted clash of ``kind``."""
        self.clashes[kind] = self.clashes.get(kind, 0) + 1

    def name_ok(self, name: str) -> bool:
        """No taken name contains ``name`` or is contained in it; no product hides in it."""
        low = name.lower()
        return (all(low not in n and n not in low for n in self.names)
                and not any(p.lower() in low for p in self.needles.get("product", ())))

    def add_name(self, name: str) -> None:
        """Take ``name``."""
        self.names.append(name.lower())

    def needle_ok(self, kind: str, needle: str, key: str) -> bool:
        """``needle`` and ``key`` are new, and no needle of ``kind`` contains another."""
        if needle in self.all_needles or key in self.keys:
            return False
        if kind == "product":  # a coined word must not hide in any name or template word
            low = needle.lower()
            if any(low in n for n in self.names) or any(low in w for w in self.vocabulary):
                return False
        return all(needle not in n and n not in needle for n in self.needles.get(kind, ()))

    def add_needle(self, kind: str, needle: str, key: str) -> None:
        """Take ``needle`` (of ``kind``) and its ``key``."""
        self.needles.setdefault(kind, []).append(needle)
        self.all_needles.add(needle)
        self.keys.add(key)
