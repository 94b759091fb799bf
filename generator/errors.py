"""Errors that are the user's to fix: the CLI prints them on one line and exits with code 2."""

from __future__ import annotations


class UserError(Exception):
    """A mistake in the user's input (a flag, a file, a field). Never shown with a traceback."""


class GenerationError(Exception):
    """The engine could not make what the plan asked for within its bounded retries."""


def excerpt(text: str, limit: int = 40) -> str:
    """``text`` quoted for an error message, cut to about ``limit`` characters."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}… ({len(text):,} characters)"
