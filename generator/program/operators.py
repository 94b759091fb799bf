"""The program operators: one registration says everything the program language knows of one.

An operator (``ct``, ``rk_when``, ...) is a node of the program language (docs/format.md).
Built-in operators (:mod:`hopvista.program.builtin`) and a plug-in's are registered alike, with
:func:`operator`, which declares:

* ``select(node, ctx)`` — the entities the node picks, recomputed from the item's inputs
  (:class:`hopvista.program.executor.Context`), raising ``Undecidable`` where the inputs do
  not decide it;
* ``fields`` — the node's fields and the check of each (:mod:`hopvista.program.fields`): the
  schema ``gen verify`` holds a node to (``None``: only its op is checked);
* ``modalities`` — the inputs it reads (``text``, ``table``, ``chart``; none for a combinator);
* ``cells(node, view)`` — the inputs it reads, as the format lists them in ``cells``;
* ``references(node, view)`` — problems with the columns or entities it names;
* ``variables(node, view)`` — the wording variables it fixes (numbers, periods, labels);
* ``conditions`` — its fields that are a hop of their own, a condition: dropping one deletes
  the field (``rk_when`` then ranks over every period);
* ``hop_paths(node, path)`` — its droppable hops (default: each of its conditions, then the
  node itself);
* ``bounds(node, ctx, hidden)`` — ``(must, may)``: the entities the node picks in every and
  in some completion of the withheld modality ``hidden`` (default, see
  :func:`hopvista.program.executor.bounds`: anything when the node reads ``hidden``, else
  exactly what it picks);
* ``lenient(node, ctx)`` — the entities a solver takes the node to pick on imputed inputs,
  where margins are zero and a definite description may pick nothing (default: ``select``;
  :mod:`hopvista.program.lenient`, what the proxy solvers of the audit and of the build's
  defences read);
* ``narrow(node, ctx, among)`` — for an operator that an ``and`` applies last, leniently: the
  entities of ``among`` it takes the node to pick (a trend: those moving its way, else the
  closest).

A third-party statement type that brings a new operator registers it here too, with
:func:`operator` (or from the ``hopvista.operators`` entry-point group).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from hopvista.program.context import Context
from hopvista.program.fields import FieldCheck
from hopvista.registry import Registry

Node = dict[str, Any]
Cell = tuple[Any, ...]
PathT = tuple[Any, ...]
Bounds = tuple[frozenset[str], frozenset[str]]
"""``(must, may)``: entities picked by every / by some completion of a withheld modality."""
BoundsFn = Callable[[Node, Context, str], Bounds]
SelectFn = Callable[[Node, Context], frozenset[str]]
NarrowFn = Callable[[Node, Context, frozenset[str]], frozenset[str]]

#: Canonical order of the built-in modalities (others sort after them, by name).
MODALITY_ORDER = ("text", "table", "chart")


def modality_key(name: str) -> tuple[int, str]:
    """Sort key putting modalities in canonical order."""
    return (MODALITY_ORDER.index(name) if name in MODALITY_ORDER else len(MODALITY_ORDER), name)


class View:
    """What operators need to know of an item, read once: labels, names, periods."""

    def __init__(self, item: dict[str, Any]) -> None:
        inputs = item["inputs"]
        self.item = item
        self.ids = [e["id"] for e in item["entities"]]
        self.names = {e["id"]: e["name"] for e in item["entities"]}
        self.table_columns = {c["key"] for c in inputs["table"]["columns"]}
        self.chart_column = inputs["chart"]["column"]["key"]
        self.labels = {c["key"]: c["label"] for c in inputs["table"]["columns"]}
        self.labels[self.chart_column] = inputs["chart"]["column"]["label"]
        self.periods = sorted({row["year"] for row in inputs["table"]["rows"]})
        self.chart_periods = list(inputs["chart"]["years"])
        self.texts = {t["entity"]: t["chunk"] for t in inputs["text"]}
        fmt = inputs["table"].get("period_format") or "{}"
        self.period_format = fmt if isinstance(fmt, str) and fmt.count("{}") == 1 else "{}"

    def label(self, key: Any) -> str:
        """The display label of a column (its key if unknown)."""
        return str(self.labels.get(key, key))

    def show(self, period: Any) -> str:
        """A period as the item writes it."""
        return self.period_format.replace("{}", str(period))


def _no_cells(node: Node, view: View) -> set[Cell]:
    return set()


def _no_problems(node: Node, view: View) -> list[str]:
    return []


def _no_variables(node: Node, view: View) -> dict[str, str]:
    return {}


def _condition_hops(conditions: tuple[str, ...]) -> Callable[[Node, PathT], list[PathT]]:
    """The hops of a node with ``conditions``: each condition, then the node itself."""
    def hop_paths(node: Node, path: PathT) -> list[PathT]:
        return [*((*path, condition) for condition in conditions), path]
    return hop_paths


@dataclass(frozen=True)
class Operator:
    """Everything the program language knows of one operator (see the module docstring)."""

    name: str
    select: SelectFn
    modalities: tuple[str, ...]
    cells: Callable[[Node, View], set[Cell]] = _no_cells
    references: Callable[[Node, View], list[str]] = _no_problems
    variables: Callable[[Node, View], dict[str, str]] = _no_variables
    hop_paths: Callable[[Node, PathT], list[PathT]] = _condition_hops(())
    conditions: tuple[str, ...] = ()
    bounds: BoundsFn | None = None
    fields: dict[str, FieldCheck] | None = None
    lenient: SelectFn | None = None
    narrow: NarrowFn | None = None
    origin: str = ""


OPERATORS: Registry[Operator] = Registry(
    "program operator", "operators", builtins=("hopvista.program.builtin",))


def operator(name: str, modalities: tuple[str, ...], *,
             fields: dict[str, FieldCheck] | None = None,
             cells: Callable[[Node, View], set[Cell]] = _no_cells,
             references: Callable[[Node, View], list[str]] = _no_problems,
             variables: Callable[[Node, View], dict[str, str]] = _no_variables,
             conditions: tuple[str, ...] = (),
             hop_paths: Callable[[Node, PathT], list[PathT]] | None = None,
             bounds: BoundsFn | None = None,
             lenient: SelectFn | None = None,
             narrow: NarrowFn | None = None,
             ) -> Callable[[SelectFn], SelectFn]:
    """Register the decorated ``select(node, ctx)`` as operator ``name`` (the other
    arguments: see the module docstring)."""
    def register(select: SelectFn) -> SelectFn:
        OPERATORS.register(name, Operator(
            name=name, select=select, modalities=modalities, cells=cells, references=references,
            variables=variables, conditions=conditions,
            hop_paths=_condition_hops(conditions) if hop_paths is None else hop_paths,
            bounds=bounds, fields=fields,
            lenient=lenient, narrow=narrow, origin=getattr(select, "__module__", "")))
        return select

    return register


def shown_number(text: str) -> str:
    """A program number as statements show it: thousands separators, its own decimals."""
    value = Decimal(text)
    exponent = value.as_tuple().exponent
    places = max(0, -exponent) if isinstance(exponent, int) else 0
    body = f"{abs(value):,.{places}f}"
    return f"-{body}" if value < 0 else body


def nodes(select: Node) -> list[Node]:
    """The leaf selector nodes of a selection (the arguments of ``and``, else itself)."""
    return list(select["args"]) if select["op"] == "and" else [select]


def modalities(program: dict[str, Any]) -> list[str]:
    """The modalities a program reads, in canonical order (text, table, chart, others)."""
    found: set[str] = set()

    def walk(node: Node) -> None:
        found.update(OPERATORS.get(node["op"]).modalities)
        for arg in node.get("args", []) if node["op"] == "and" else []:
            walk(arg)

    walk(program["select"])
    claim = program.get("claim") or {}
    if "fact" in claim:
        walk(claim["fact"])
    return sorted(found, key=modality_key)
