"""Errors that are the user's to fix: the CLI prints them on one line and exits with code 2."""

from __future__ import annotations


class UserError(Exception):
    """A mistake in the user's input (a flag, a file, a field). Never shown with a traceback."""


class GenerationError(Exception):
    """The engine could not make what the plan asked for within its bounded retries."""


EXCERPT_CHARS = 40
"""Longest piece of the input an error message quotes."""


def excerpt(value: object, limit: int = EXCERPT_CHARS, *, length: bool = True) -> str:
    """``value`` quoted for a one-line message: its ``repr`` when short, else its first
    ``limit`` characters and (with ``length``, for text) its length:
    ``'aaaa'… (5,000 characters)``."""
    if not isinstance(value, str):
        text = repr(value)
        return text if len(text) <= limit else f"{text[:limit]}…"
    if len(value) <= limit:
        return repr(value)
    return f"{value[:limit]!r}…" + (f" ({len(value):,} characters)" if length else "")


def one_line(text: str) -> str:
    """``text`` as one printable line: control characters (newlines, escapes) and lone
    surrogates shown escaped, so no message can forge extra lines of output."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
