"""What ``gen verify`` cannot prove, said once each instead of passed silently as OK.

Each check that leaves something unproved says so through a :class:`Notes`; the CLI prints
each note as a ``not checked: …`` line before its verdict, and :func:`hopvista.verify`
returns them as ``VerifyReport.unchecked``. A note never changes the exit status.
"""

from __future__ import annotations

from collections.abc import Callable

IMAGE_NOTE = "the images' pixels: each image's sha256, size and recorded layout are " \
    "checked, not what it shows"
PROXY_NOTE = "that the recorded proxy lines are the best the world offered (verify has no " \
    "world; it re-reads the statements through them)"
FACT_NOTE = "how a statement words a fact beyond its numbers, its proper names and its " \
    "negations (the fact's wording is free text)"
IMPORTED_NOTE = "whether the imported answers are right: records without programs are " \
    "proved to agree across their variants (and, with --source, with their source), not " \
    "re-derived"
NUMBERS_NOTE = "chart values that text chunks write in words or at another scale than the " \
    "chart's unit ('two thousand'; '2.1 billion' beside a chart in millions): the check that " \
    "no text states the chart's values reads numbers written in digits, at the chart's unit " \
    "or times their scale word"
BUILD_NOTE = "the build checks of the input's base items (balance, proxy readings, the " \
    "chart's need, ids): run gen verify on the input dataset"


def fields_note(op: str) -> str:
    """What verify leaves unchecked of a node whose operator declares no fields."""
    return f"the fields of program operator {op!r}: it declares none, so only its op is " \
        "checked (a plug-in declares them with operator(..., fields=...))"


class Notes:
    """What verification did not prove, each said once, in the order found."""

    def __init__(self, note: Callable[[str], None] | None) -> None:
        self.note = note
        self.said: set[str] = set()

    def __call__(self, text: str) -> None:
        """Say ``text`` unless it was said."""
        if text not in self.said:
            self.said.add(text)
            if self.note is not None:
                self.note(text)
