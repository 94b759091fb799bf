"""An independent executor of statement programs, reading only an item's stored inputs.

It shares nothing with the generator's label computation beyond the program language (see
``docs/format.md``): values are parsed back from the displayed strings, sets are recomputed
from scratch, and every presupposition (a definite description picks exactly one entity, a
ranking or trend is visually clear, no value sits on a threshold, both readings agree) is
checked. Anything that fails raises :class:`Undecidable`.
"""

from __future__ import annotations

import copy
import re
from decimal import Decimal
from functools import lru_cache
from itertools import pairwise
from typing import Any

from hopvista.reading import as_read, spoken_as_digits

Program = dict[str, Any]
Path_ = tuple[Any, ...]


class Undecidable(Exception):
    """The program's label cannot be concluded from the inputs."""


_PLAIN_DECIMAL = re.compile(r"-?[0-9]+(?:\.[0-9]+)?")
#: Longest number text read: a longer one is not a displayed value (and could overflow).
MAX_NUMBER_CHARS = 40


def program_number(text: Any) -> Decimal:
    """A program's number ("-1234.5": a decimal string without separators), exactly.

    ``ValueError`` for anything else: NaN, infinities, exponents, non-strings, huge texts.
    """
    if not isinstance(text, str) or len(text) > MAX_NUMBER_CHARS or \
            not _PLAIN_DECIMAL.fullmatch(text):
        raise ValueError(f"not a decimal number: {str(text)[:40]!r}")
    return Decimal(text)


MISSING_TOKENS = frozenset({"", "n/a", "-", "\u2014", "\u2013", "na", "--"})
"""What a cell shows when a ``missing`` variant blanked it (compared lower-cased, stripped).
A build never writes these (its schema wants a displayed number in every cell)."""


def parse_number(text: Any) -> Decimal:
    """A displayed number ("-1,234.5", also with U+2212 as the minus) back to an exact
    decimal; ``ValueError`` for anything that is not a finite plain decimal."""
    if not isinstance(text, str):
        raise ValueError(f"not a number: {str(text)[:40]!r}")
    return _parse_text(text)


@lru_cache(maxsize=8192)
def _parse_text(text: str) -> Decimal:
    """:func:`parse_number` of a string (remembered: a generator reads the same cells of an
    instance under every candidate statement)."""
    try:
        return program_number(text.replace(",", "").replace("\u2212", "-").strip())
    except ValueError:
        raise ValueError(f"not a number: {text[:40]!r}") from None


@lru_cache(maxsize=1 << 14)
def _normalise(text: str) -> str:
    return " ".join(spoken_as_digits(as_read(text)).lower().split())


def mentions(text: str, phrase: str) -> bool:
    """Whether ``phrase`` occurs in ``text`` as whole words, as a reader sees both (case,
    spacing, invisible characters, compatibility forms and thousands separators ignored, small
    numbers in words or digits alike: :mod:`hopvista.reading`)."""
    haystack, needle = _normalise(text), _normalise(phrase)
    start = haystack.find(needle)
    while start != -1:
        end = start + len(needle)
        before = haystack[start - 1] if start > 0 else " "
        after = haystack[end] if end < len(haystack) else " "
        if not (before.isalnum() or before == "_") and not (after.isalnum() or after == "_"):
            return True
        start = haystack.find(needle, start + 1)
    return False


class Context:
    """An item's inputs, parsed, with the chart margins of its build."""

    def __init__(self, item: dict[str, Any], min_rank_gap: float, min_trend_step: float):
        inputs = item["inputs"]
        self.entities = [e["id"] for e in item["entities"]]
        self.table: dict[tuple[str, str, int], Decimal] = {}
        for row in inputs["table"]["rows"]:
            for column, text in row["values"].items():
                if isinstance(text, str) and text.strip().lower() in MISSING_TOKENS:
                    continue  # a cell a variant shows blank: a program reading it fails
                self.table[(row["entity"], column, int(row["year"]))] = parse_number(text)
        chart = inputs["chart"]
        self.chart_column = chart["column"]["key"]
        self.years = [int(y) for y in chart["years"]]
        self.chart: dict[tuple[str, int], Decimal] = {}
        for series in chart["series"]:
            for year, text in zip(self.years, series["values"], strict=True):
                self.chart[(series["entity"], year)] = parse_number(text)
        self.texts = {t["entity"]: t["text"] for t in inputs["text"]}
        self.chart_kind = chart.get("kind")
        if self.chart_kind == "pie":
            # a pie shows shares of one whole: its scale is the sum of the slices
            if len(self.years) != 1 or min(self.chart.values()) <= 0:
                raise ValueError("a pie chart needs one year of positive values")
            span = sum(self.chart.values(), Decimal(0))
        else:
            points = list(self.chart.values()) + [Decimal(0)]
            span = max(points) - min(points)
        self.rank_gap = span * Decimal(str(min_rank_gap))
        self.trend_step = span * Decimal(str(min_trend_step))

    def cell(self, entity: str, column: str, year: int) -> Decimal:
        """A table value (or a chart value, for the chart column)."""
        if column == self.chart_column:
            return self.chart[(entity, year)]
        try:
            return self.table[(entity, column, year)]
        except KeyError:
            raise Undecidable(f"no table cell {entity}/{column}/{year}") from None

    def point(self, entity: str, column: str, year: int) -> Decimal:
        """A chart value; chart hops may read nothing else."""
        if column != self.chart_column:
            raise Undecidable(f"{column!r} is not the chart column")
        return self.chart[(entity, year)]


def compare(value: Decimal, cmp: str, threshold: Decimal) -> bool:
    """``value cmp threshold``; undecidable on equality or an unknown comparison."""
    if value == threshold:
        raise Undecidable(f"a value equals the threshold {threshold}")
    if cmp == ">":
        return value > threshold
    if cmp == "<":
        return value < threshold
    raise Undecidable(f"unknown comparison {cmp!r}")


def apply_sign(a: Decimal, sign: str, b: Decimal) -> Decimal:
    """``a + b`` or ``a - b``."""
    if sign == "+":
        return a + b
    if sign == "-":
        return a - b
    raise Undecidable(f"unknown sign {sign!r}")


def year_span(ctx: Context, first: int, last: int) -> list[int]:
    """The chart's periods from ``first`` to ``last`` (at least two, both on the chart)."""
    years = [y for y in ctx.years if first <= y <= last]
    if len(years) < 2 or years[0] != first or years[-1] != last:
        raise Undecidable(f"periods {first}-{last} are not on the chart")
    return years


def trend(ctx: Context, node: dict[str, Any], years: list[int]) -> frozenset[str]:
    """Entities whose chart series moves the node's way over ``years``, every step clearly;
    undecidable when any entity's movement is unclear."""
    up = node["direction"] == "increasing"
    chosen = set()
    for e in ctx.entities:
        values = [ctx.point(e, node["column"], y) for y in years]
        moves = [(b - a) if up else (a - b) for a, b in pairwise(values)]
        if min(moves) >= ctx.trend_step and min(moves) > 0:
            chosen.add(e)
        elif min(moves) > -ctx.trend_step or min(moves) == 0:
            raise Undecidable(f"the trend of {e} is not visually clear")
    return frozenset(chosen)


def best(ctx: Context, scores: dict[str, Decimal], order: str, gap: Decimal) -> str:
    """The entity ranked first by ``order``, clear of the runner-up by ``gap``."""
    if order not in ("max", "min"):
        raise Undecidable(f"unknown order {order!r}")
    ordered = sorted(scores, key=lambda e: scores[e], reverse=(order == "max"))
    margin = abs(scores[ordered[0]] - scores[ordered[1]])
    if margin == 0 or margin < gap:
        raise Undecidable("the top two are too close to rank")
    return ordered[0]


def select(node: dict[str, Any], ctx: Context) -> frozenset[str]:
    """The set of entities a selector node picks (its operator's own definition)."""
    from hopvista.errors import UserError
    from hopvista.verify.operators import OPERATORS

    op = node["op"]
    if not isinstance(op, str):
        raise Undecidable(f"operation is not a name: {str(op)[:40]!r}")
    try:
        definition = OPERATORS.get(op)
    except UserError:
        raise Undecidable(f"unknown operation {op[:40]!r}") from None
    return definition.select(node, ctx)


def picked_by(node: dict[str, Any], ctx: Context) -> frozenset[str]:
    """:func:`select`, with a malformed node undecidable (as in :func:`decide`)."""
    try:
        return select(node, ctx)
    except (KeyError, TypeError, ValueError, IndexError, ArithmeticError, RecursionError) as exc:
        raise Undecidable(f"malformed node: {type(exc).__name__}: {exc}") from None


def reads(node: Any, modality: str) -> bool:
    """Whether a node, or any node nested in its fields, reads ``modality``."""
    from hopvista.verify.operators import OPERATORS

    if isinstance(node, list):
        return any(reads(value, modality) for value in node)
    if not isinstance(node, dict):
        return False
    op = node.get("op")
    if isinstance(op, str) and op in OPERATORS and modality in OPERATORS.get(op).modalities:
        return True
    return any(reads(value, modality) for value in node.values())


def bounds(node: dict[str, Any], ctx: Context, hidden: str) -> tuple[frozenset[str],
                                                                     frozenset[str]]:
    """``(must, may)``: the entities a selector node picks in every completion and in some
    completion of the withheld modality ``hidden`` (docs/format.md, section 3.8). An operator
    without bounds of its own may pick anything when it (or a node inside it) reads
    ``hidden``, and exactly what it picks otherwise."""
    from hopvista.errors import UserError
    from hopvista.verify.operators import OPERATORS

    try:
        definition = OPERATORS.get(node["op"])
    except UserError:
        raise Undecidable(f"unknown operation {str(node['op'])[:40]!r}") from None
    if definition.bounds is not None:
        return definition.bounds(node, ctx, hidden)
    if reads(node, hidden):
        return frozenset(), frozenset(ctx.entities)
    picked = definition.select(node, ctx)
    return picked, picked


def decide(program: Program, ctx: Context) -> bool:
    """The label of a statement program; raises :class:`Undecidable` when there is none."""
    try:
        return _decide(program, ctx)
    except (KeyError, TypeError, ValueError, IndexError, ArithmeticError, RecursionError) as exc:
        raise Undecidable(f"malformed program: {type(exc).__name__}: {exc}") from None


def _decide(program: Program, ctx: Context) -> bool:
    picked = select(program["select"], ctx)
    claim = program.get("claim")
    if claim and "only" in claim:
        return picked == frozenset({claimed_entity(claim["only"], ctx)})
    if len(picked) != 1:
        raise Undecidable(f"the selector picks {len(picked)} entities, not exactly one")
    (chosen,) = picked
    if not claim:
        raise Undecidable("the statement claims nothing")
    if "entity" in claim:
        return claimed_entity(claim["entity"], ctx) == chosen
    owners = select(claim["fact"], ctx)
    if not owners:
        raise Undecidable("no entity's text states the fact")
    return chosen in owners


def claimed_entity(entity: Any, ctx: Context) -> str:
    """An entity a claim names; undecidable unless it is one of the item's."""
    if not isinstance(entity, str) or entity not in ctx.entities:
        raise Undecidable(f"unknown entity {str(entity)[:40]!r}")
    return entity


def hops(program: Program) -> list[Path_]:
    """Paths of every hop of a program, each of which can be dropped."""
    from hopvista.verify.operators import OPERATORS

    select_node = program["select"]
    found = list(OPERATORS.get(select_node["op"]).hop_paths(select_node, ("select",)))
    if program.get("claim") and "fact" in program["claim"]:
        found.append(("claim",))
    return found


#: Fields of a node that are a hop of their own, a condition: dropping one deletes the field
#: (``rk_when`` then ranks over every period, ``rk_among`` among every entity).
CONDITION_FIELDS = ("when", "among")


def drop(program: Program, path: Path_) -> Program:
    """The program without one hop: a selector becomes 'any entity', a condition
    (:data:`CONDITION_FIELDS`) is deleted, a fact claim claims nothing."""
    result = copy.deepcopy(program)
    if path == ("claim",):
        result["claim"] = None
        return result
    parent: Any = result
    for key in path[:-1]:
        parent = parent[key]
    if path[-1] in CONDITION_FIELDS:
        del parent[path[-1]]
    else:
        parent[path[-1]] = {"op": "any"}
    return result
