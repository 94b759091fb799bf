"""The statement-type registry: one decorator declares a type, its wording and its needs.

A *selector* type (CT, AR, TR, RK, the fused pairs CT+TR, ... — FCMR Table 12) is declared
where its selector lives, with :func:`selector`::

    @selector("CT", modalities=("table",), variables=("column", "cmp", "threshold", "period"),
              operators=("ct",))
    def ct(instance, rng, words, margins): ...   # yields Selection objects

Declaring it registers the type itself ("the {noun} with ... is {entity}") and, unless
``fact_form=False``, its fact form ``FC+<name>`` ("the {noun} with ... {fact}"), one hop more,
with text among its modalities. ``variables`` are the wording variables the selection fills
(besides ``noun``, ``singular``, ``plural`` and the claim's ``entity`` or ``fact``);
``operators`` are the program operators its nodes use (``hopvista.program.operators``), and
they are its selector's shape, which ``gen verify`` holds its programs to: a node of one of
them, or, when the first is ``"and"``, an ``and`` of one node of each of the others in order;
``condition_terms`` is how many terms a ranking's condition has (AR+RK: two).
``min_periods`` says how many periods an instance needs (a trend needs two, so a domain
without a period axis cannot have it); ``one_period`` gives a type that reads periods a shape
of its own on an instance of one period (no period axis), and
the wording variables that shape fills: CT+RK and AR+RK rank among the entities a table
condition restricts (``rk_among``) instead of over the periods when it holds (``rk_when``), so
they are made with or without periods (:attr:`StatementType.min_periods` is then 1, and
:attr:`StatementType.periods_read` keeps ``min_periods``); ``trend_pair`` asks
the instance sampler for the guided draw that all-period trend pairs need. ``claim`` is the
type's own claim: ``"entity"`` ("the {noun} with ... is {entity}": the selector picks exactly
one entity, and it is the one named) or ``"only"`` ("{entity} is the only {noun} with ...":
true iff the selector picks exactly that entity; a false statement may name one of several
entities the selector picks). The fact form always claims a fact of the one entity picked.

Third-party packages register types the same way from a module named in the
``hopvista.statement_types`` entry-point group.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from hopvista.program.fields import Shape
from hopvista.program.operators import modality_key
from hopvista.registry import Registry

if TYPE_CHECKING:  # the selectors' argument types; the declarations need none of generation
    from hopvista.generation.instance import Instance
    from hopvista.statements.selection import Margins, Selection

Words = dict[str, dict[str, str]]
Selector = Callable[["Instance", np.random.Generator, Words, "Margins"], Iterator["Selection"]]

#: The claims a selector type's own statements can make (see the module docstring).
CLAIMS = ("entity", "only")

#: The modalities a proxy solver stands in for (:mod:`hopvista.audit.proxy`; a fact has none).
PROXIED = ("chart", "table")


def proxied(modalities: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """The modalities of a statement that a proxy stands in for, in :data:`PROXIED` order."""
    return tuple(m for m in PROXIED if m in modalities)


@dataclass(frozen=True)
class StatementType:
    """One statement type: name, hops, modalities, wording variables, selector and needs."""

    name: str
    hops: int
    modalities: tuple[str, ...]
    variables: tuple[str, ...]
    select: Selector
    with_fact: bool = False
    claim: str = "entity"
    """``"entity"``, ``"only"`` or ``"fact"`` (the FC + X forms)."""
    operators: tuple[str, ...] = ()
    min_periods: int = 1
    """Periods an instance needs for the type to be made (1 for a type with a one-period
    shape, :attr:`one_period_variables`)."""
    trend_pair: bool = False
    shared_facts: bool = False
    """Whether the type's fact claims name facts several entities state (``Instance.shared``):
    what a fused pair of selectors needs for a false statement to stay open with each
    modality withheld (:mod:`hopvista.statements.openness`)."""
    origin: str = ""
    one_period_variables: tuple[str, ...] | None = None
    """The wording variables of its statements on an instance of one period, where its
    selector makes another shape (CT+RK, AR+RK: ``rk_among``, docs/format.md, 3.4); ``None``:
    :attr:`variables` whatever the periods."""
    several_periods: int | None = None
    """Periods its shape for several periods needs, where a one-period shape lowers
    :attr:`min_periods` (CT+RK, AR+RK: 2); see :attr:`periods_read`."""
    condition_terms: int = 1
    """Terms of a ranking's condition in its programs (``when``, ``among``)."""

    @property
    def shape(self) -> Shape:
        """The selector node its programs hold (see the module docstring): what ``gen
        verify`` checks them against, each node with the fields its operator declares."""
        ops = self.operators[:-1] if self.with_fact else self.operators
        if ops[:1] == ("and",):
            return Shape(("and",), ops[1:], self.condition_terms)
        return Shape(ops, (), self.condition_terms)

    @property
    def periods_read(self) -> int:
        """How many periods its statements read at least on an instance of several periods:
        the order in which the instance screen takes slots
        (:func:`hopvista.generation.item._screened`).
        :attr:`min_periods`, but for a type with a one-period shape, that of its other one."""
        return self.several_periods if self.several_periods is not None else self.min_periods

    def variables_for(self, periods: int) -> tuple[str, ...]:
        """The wording variables of its statements on an instance of ``periods`` periods."""
        if periods == 1 and self.one_period_variables is not None:
            return self.one_period_variables
        return self.variables

    @property
    def needs_documents(self) -> bool:
        """Whether the type reads entities' text."""
        return "text" in self.modalities

    @property
    def group(self) -> str:
        """The modality slot the type fills in the balance plan ("text+table", ...)."""
        return "+".join(self.modalities)


STATEMENT_TYPES: Registry[StatementType] = Registry(
    "statement type", "statement_types", builtins=("hopvista.statements.builtin",))


def _canonical(modalities: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(sorted(set(modalities), key=modality_key))


def selector(name: str, *, modalities: tuple[str, ...], variables: tuple[str, ...],
             operators: tuple[str, ...], hops: int = 1, min_periods: int = 1,
             trend_pair: bool = False, fact_form: bool = True,
             claims_entity: bool = True, claim: str = "entity",
             shared_fact_form: bool = False, one_period: tuple[str, ...] | None = None,
             condition_terms: int = 1) -> Callable[[Selector], Selector]:
    """Register the selector type ``name`` (and its ``FC+name`` form) for the decorated
    selector factory; see the module docstring. ``shared_fact_form``: the ``FC+name`` form
    claims facts several entities state (:attr:`StatementType.shared_facts`), as a fused
    pair of selectors needs. ``one_period``: the wording variables the selector fills on an
    instance of one period, where it makes another shape (``operators`` lists both shapes'
    operators); the type then needs ``min_periods`` periods, or one. ``condition_terms``:
    the terms of a ranking's condition."""
    if claim not in CLAIMS:
        raise ValueError(f"statement type {name}: claim must be one of {CLAIMS}, not {claim!r}")
    needs = 1 if one_period is not None else min_periods
    several = min_periods if one_period is not None else None

    def register(select: Selector) -> Selector:
        origin = getattr(select, "__module__", "")
        own_vars = (*variables, "entity") if claims_entity else tuple(variables)
        own_one = None if one_period is None else \
            (*one_period, "entity") if claims_entity else tuple(one_period)
        STATEMENT_TYPES.register(name, StatementType(
            name=name, hops=hops, modalities=_canonical(modalities), variables=own_vars,
            select=select, operators=operators, min_periods=needs,
            trend_pair=trend_pair, origin=origin, claim=claim,
            one_period_variables=own_one, several_periods=several,
            condition_terms=condition_terms))
        if fact_form:
            STATEMENT_TYPES.register(f"FC+{name}", StatementType(
                name=f"FC+{name}", hops=hops + 1, modalities=_canonical(("text", *modalities)),
                variables=(*variables, "fact"), select=select, with_fact=True, claim="fact",
                operators=(*operators, "fact"), min_periods=needs,
                trend_pair=trend_pair, shared_facts=shared_fact_form, origin=origin,
                one_period_variables=None if one_period is None else (*one_period, "fact"),
                several_periods=several, condition_terms=condition_terms))
        return select

    return register


def types_for(hops: int, names: tuple[str, ...]) -> dict[str, list[str]]:
    """Modality groups of ``hops``-hop types among ``names`` (in that order), by group."""
    groups: dict[str, list[str]] = {}
    for name in names:
        kind = STATEMENT_TYPES.get(name)
        if kind.hops == hops:
            groups.setdefault(kind.group, []).append(name)
    return groups

