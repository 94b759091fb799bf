"""Label openness, as the generator knows it (docs/format.md, section 3.8).

A statement is emitted only if, for every modality it reads, withholding that modality leaves
both labels possible: some completion of the withheld data makes it true, and some false.
Each selection says what it may pick with a modality withheld, as bounds ``(must, may)``: the
entities it picks in every completion and in some completion. A claim is then judged as "the
selector picks exactly one entity, and it is one of these" (the entity named; for a fact
claim, the fact's owners): possibly true when some owner is in ``may`` and ``must`` holds
nothing else, possibly false unless ``must == may`` is one owner. With the text withheld, a
fact's owners are unknown too.

The verifier (``hopvista.verify``) re-checks this with its own code; this module only uses
what the generator built.
"""

from __future__ import annotations

from collections.abc import Iterable

from hopvista.statements.selection import Bounds, Selection

# Why some types claim facts that several entities state (``Instance.shared``; the types
# whose ``StatementType.shared_facts`` is set, by ``selector(..., shared_fact_form=True)``):
# with a fact one entity states, a false statement of a fused pair of selectors cannot keep
# its label open with each modality withheld, since the owner would have to pass both
# selectors (else one modality refutes it) and so be the one entity they pick
# (docs/format.md, section 3.8). A shared fact whose owners include an entity each selector
# passes alone is open without either. True statements of these types use shared facts as
# well, so the wording tells no label.


def withheld_bounds(selection: Selection, hidden: str, everyone: frozenset[str]) -> Bounds:
    """``(must, may)`` of ``selection`` with the modality ``hidden`` withheld."""
    if hidden in selection.withheld:
        return selection.withheld[hidden]
    if hidden in selection.modalities:
        return frozenset(), everyone
    return selection.picked, selection.picked


def fused_bounds(parts: Iterable[Selection], hidden: str, everyone: frozenset[str]) -> Bounds:
    """Bounds of the intersection of several selections (each completed independently)."""
    must, may = everyone, everyone
    for part in parts:
        part_must, part_may = withheld_bounds(part, hidden, everyone)
        must, may = must & part_must, may & part_may
    return must, may


def possible_labels(must: frozenset[str], may: frozenset[str], targets: frozenset[str]
                    ) -> tuple[bool, bool]:
    """(can be true, can be false) of "the selector picks exactly one entity, one of
    ``targets``"."""
    can_true = any(x in may and must <= {x} for x in targets)
    return can_true, not (must == may and len(must) == 1 and must <= targets)


def stays_open(selection: Selection, everyone: frozenset[str], targets: frozenset[str],
               fact: bool = False) -> bool:
    """Whether a statement whose claim is about ``targets`` (the entity named, or the owners
    of the fact attributed, when ``fact``) keeps both labels possible with any one modality
    it reads withheld (the text too, for a fact claim)."""
    for hidden in selection.modalities | ({"text"} if fact else set()):
        must, may = withheld_bounds(selection, hidden, everyone)
        if fact and hidden == "text":
            can_true = any(x in may and must <= {x} for x in everyone)
            can_false = True
        else:
            can_true, can_false = possible_labels(must, may, targets)
        if not (can_true and can_false):
            return False
    return True
