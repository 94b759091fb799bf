"""What ``gen verify`` found, as a value: :class:`VerifyReport` and :func:`verify`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path

from hopvista.verify.dataset import verify_into


@dataclass(frozen=True)
class VerifyReport:
    """What :func:`verify` found: the items checked, every problem (empty when sound), and
    what it could not prove (``unchecked``: the images' pixels, wording it can only judge by
    its words, imported records without their source)."""

    items: int
    problems: list[str] = field(default_factory=list)
    unchecked: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether every check passed."""
        return not self.problems


def verify(path: str | PathLike[str], *, source: str | PathLike[str] | None = None,
           on_problem: Callable[[str], None] | None = None) -> VerifyReport:
    """Re-prove every label of the dataset at ``path`` and check its files (``gen verify``).

    ``source`` is the input a ``gen augment`` dataset was made from (a release folder or
    file, or a hopvista dataset): each item is then compared with its record there.
    ``on_problem`` is called with each problem (one line) as soon as it is found; every
    problem is in the report too. Raises :class:`hopvista.errors.UserError` when ``path`` is
    not a hopvista dataset, or ``source`` cannot be read as the input it names.
    """
    problems: list[str] = []
    unchecked: list[str] = []

    def found(problem: str) -> None:
        problems.append(problem)
        if on_problem is not None:
            on_problem(problem)

    items = verify_into(Path(path), found, note=unchecked.append,
                        source=None if source is None else Path(source))
    return VerifyReport(items=items, problems=problems, unchecked=unchecked)
