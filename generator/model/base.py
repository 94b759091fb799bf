"""What every model shares: frozen objects that keep keys they do not know.

Objects are frozen: a layer that changes an item returns a new one
(``item.model_copy(update={...})``) instead of editing a shared object. Unknown keys are kept
(``extra="allow"``) so that a reader of this version round-trips a dataset written by a later
one: the format's rule is that a new key in an existing object does not bump the version, and
readers ignore keys they do not know.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Model(BaseModel):
    """A frozen model that keeps unknown keys."""

    model_config = ConfigDict(frozen=True, extra="allow")


class Closed(BaseModel):
    """A frozen model whose keys are fixed (a union member told apart by its keys)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
