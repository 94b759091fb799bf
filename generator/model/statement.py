"""Statements and their programs (docs/format.md, sections 2.3 and 3).

A program node is a JSON object with a required ``op`` string and the fields of its op. The
model does not enumerate the ops: a new operator needs a new executor case (in the
generator and in the independent verifier), not a model change. Nested nodes (the ``args`` of
an ``and``, the ``when`` of an ``rk_when``) stay plain JSON inside their node.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, SerializerFunctionWrapHandler, model_serializer

from hopvista.model.base import Closed, Model


class Node(Model):
    """A program node: ``{"op": ..., <the op's fields>}``."""

    op: str = Field(min_length=1)

    def fields(self) -> dict[str, Any]:
        """The op's fields (everything but ``op``)."""
        return dict(self.model_extra or {})


class EntityClaim(Closed):
    """"The entity picked is ``entity``"."""

    entity: str


class OnlyClaim(Closed):
    """"The selector picks ``only`` and no other entity" (format 4): true iff the picked set
    is exactly {``only``}; any other set, empty or of two or more, makes it false."""

    only: str


class FactClaim(Closed):
    """"The entity picked states this fact" (``fact`` is a ``fact`` node)."""

    fact: Node


Claim = EntityClaim | OnlyClaim | FactClaim


class Program(Closed):
    """``{"select": node, "claim": claim}``; ``claim`` is ``None`` only in a program with its
    claim hop dropped (never stored)."""

    select: Node
    claim: Claim | None


class TextCell(Closed):
    """A text chunk a statement reads."""

    modality: Literal["text"]
    entity: str
    chunk: str


class ValueCell(Closed):
    """A table or chart value a statement reads."""

    modality: Literal["table", "chart"]
    entity: str
    column: str
    year: int


Cell = Annotated[TextCell | ValueCell, Field(discriminator="modality")]


class Distractor(Closed):
    """A false statement's swap: the entity the selector picks and the one named instead."""

    replaces: str
    with_: str = Field(alias="with")

    model_config = Closed.model_config | {"populate_by_name": True, "serialize_by_alias": True}


class ProxyReading(Closed):
    """What a solver without one modality answers (docs/format.md, "Proxy readings"): the
    straight lines it imputes that modality with (``{column: [a, b]}``) and the label its
    program gives on the imputation (``None``: nothing decided)."""

    lines: dict[str, tuple[float, float]]
    label: bool | None


class JudgeVerdict(Model):
    """What the judge said of one attempt: the model asked, the SHA-256 of its prompt
    template, and its verdict (``None``: not asked, the guard failed, or no parseable
    verdict)."""

    model: str
    prompt_sha256: str
    verdict: Literal["same", "changed"] | None


class ParaphraseAttempt(Model):
    """One attempt at paraphrasing a statement: the lexical pass, the syntactic pass over it
    (``None`` when the lexical pass failed), the guard's problems with the syntactic pass
    (empty: it passed) and the judge's verdict."""

    lexical: str | None
    syntactic: str | None
    guard: tuple[str, ...] = ()
    judge: JudgeVerdict | None = None


class Paraphrase(Model):
    """How a statement's text was paraphrased (docs/format.md, "Paraphrases"): the pack's
    rendering (``template``), the 1-based attempt whose syntactic pass is the text (``kept``;
    ``None``: every attempt was rejected and the text is the template), the guard's checks
    on the text, and every attempt."""

    template: str = Field(min_length=1)
    kept: int | None = Field(default=None, ge=1)
    checks: tuple[str, ...] = ()
    attempts: tuple[ParaphraseAttempt, ...] = ()


class Statement(Model):
    """One statement: text, label, type, modalities, program, cells, distractor, and the
    proxy readings of the modalities it reads (builds with the defences on, format 4).

    A statement read from an existing dataset (FCMR's release) has no ``program`` and no
    ``cells``: its label is the source's answer key, which nothing here can re-derive."""

    text: str = Field(min_length=1)
    label: bool
    type: str = Field(min_length=1)
    modalities: tuple[str, ...]
    program: Program | None = None
    cells: tuple[Cell, ...] = ()
    distractor: Distractor | None = None
    proxy: dict[str, ProxyReading] | None = None
    paraphrase: Paraphrase | None = None
    """The statement's paraphrase (builds with ``--paraphrase``); absent from the JSON of
    every other statement."""

    @model_serializer(mode="wrap")
    def _without_absent_paraphrase(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if isinstance(data, dict) and data.get("paraphrase", 0) is None:
            del data["paraphrase"]
        return data
