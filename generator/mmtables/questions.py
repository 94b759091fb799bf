"""Questions of MMTabReal's taxonomy on a drawn table, each a :mod:`hopvista.program.cells`
program with its wording.

:data:`TEMPLATES` holds one maker per (question type, reasoning type) a program's shape
allows; a maker picks a picture column, rows and aspects with the item's streams and returns a
:class:`Draft`, or raises :class:`Unsuitable` when the table offers no such question (the
builder then draws another table). :func:`finish` executes the draft's program and keeps it
only when the question needs its pictures (:func:`hopvista.program.cells.visual_witness`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from hopvista.mmtables.aspects import Aspect, aspects_of
from hopvista.mmtables.domains import Numbers, Table, VisualColumn
from hopvista.program.cells import ProgramError, execute, rows_where, visual_witness
from hopvista.rng import Streams
from hopvista.themes.visuals import vocabularies

T = TypeVar("T")


class Unsuitable(ValueError):
    """The table offers no question of the kind asked for."""


@dataclass(frozen=True)
class Draft:
    """A question, its program, and its question and reasoning types."""

    question: str
    program: dict[str, Any]
    question_type: str
    reasoning: str


@dataclass(frozen=True)
class Condition:
    """Rows picked by one aspect of the pictures in one column: the program's condition,
    its words ("whose badge is red") and the rows it picks."""

    column: VisualColumn
    aspect: Aspect
    value: Any
    program: dict[str, Any]
    rows: tuple[int, ...]

    @property
    def clause(self) -> str:
        """The condition in words, after the picture's noun."""
        return self.aspect.clause(self.value)

    def whose(self) -> str:
        """"whose badge is red"."""
        return f"whose {self.column.noun} {self.clause}"

    def that(self) -> str:
        """"a badge that is red"."""
        return f"a {self.column.noun} that {self.clause}"


def pick(streams: Streams, name: str, options: Sequence[T]) -> T:
    """One of ``options`` for the decision ``name``."""
    if not options:
        raise Unsuitable(f"nothing to choose for {name}")
    return options[streams.integer(name, 0, len(options) - 1)]


def conditions(table: Table) -> list[Condition]:
    """Every condition on one aspect of one picture column that picks at least one row."""
    found: list[Condition] = []
    for column, col in table.visual_columns:
        cells = [table.visuals[(row, col)] for row in table.imaged(col)]
        for aspect in aspects_of(cells[0]):
            values: dict[str, Any] = {}
            for cell in cells:
                if aspect not in aspects_of(cell):
                    continue
                value = aspect.value(cell)
                for v in (value if aspect.test == "has" else [value]):
                    values[json.dumps(v)] = v
            for key in sorted(values):
                program = aspect.condition(column.header, values[key])
                rows = tuple(rows_where(table.grid, table.visuals, [program]))
                if rows:
                    found.append(Condition(column, aspect, values[key], program, rows))
    return found


def one_row(table: Table) -> list[Condition]:
    """Conditions that pick exactly one row."""
    return [c for c in conditions(table) if len(c.rows) == 1]


def some_rows(table: Table) -> list[Condition]:
    """Conditions that pick two rows or more, or failing any, those that pick one."""
    found = conditions(table)
    return [c for c in found if len(c.rows) >= 2] or found


@dataclass(frozen=True)
class Reading:
    """An aspect a question asks for of the picture in one column."""

    column: VisualColumn
    aspect: Aspect

    def program(self) -> dict[str, Any]:
        """The program's reading."""
        return self.aspect.reading(self.column.header)

    def words(self, the: str = "the") -> str:
        """"the colour of the badge" (or "of its badge")."""
        return self.aspect.words(the, self.column.noun)

    def what_is(self, the: str = "the") -> str:
        """"What is the colour of the badge" ("What are the initials ...")."""
        words = self.words(the)
        return f"What {'are' if words.startswith('the initials') else 'is'} {words}"


def readings(table: Table, row: int) -> list[Reading]:
    """The aspects a question may ask for of the pictures in ``row``."""
    found = []
    for column, col in table.visual_columns:
        cell = table.visuals.get((row, col))
        if cell is not None:
            found += [Reading(column, a) for a in aspects_of(cell) if a.what is not None]
    return found


def label(table: Table) -> str:
    """The header of the column naming the entities."""
    return table.grid[0][0]


def named(table: Table, row: int) -> dict[str, Any]:
    """The condition picking ``row`` by its entity's name."""
    return {"column": label(table), "eq": table.label(row)}


def number_at(table: Table, numbers: Numbers, row: int) -> int:
    """The whole number ``row`` shows in the column of ``numbers``."""
    col = dict((n.header, c) for n, c in table.number_columns)[numbers.header]
    return int(table.grid[row][col])


def a_number(table: Table, streams: Streams, name: str) -> Numbers:
    """One of the table's number columns."""
    return pick(streams, name, [n for n, _ in table.number_columns])


def imaged_rows(table: Table) -> list[int]:
    """The body rows holding any picture."""
    return sorted({row for row, _ in table.visuals})


def most(op: str) -> str:
    """How a question words the extreme ``op`` asks for."""
    return "most" if op == "argmax" else "fewest"


# -- the makers, by question type and reasoning type -------------------------------------------


def visual_extrema(table: Table, s: Streams) -> Draft:
    """"What is the colour of the badge of the club with the most points?" """
    options = []
    for numbers, _ in table.number_columns:
        for op in ("argmax", "argmin"):
            values = {r: number_at(table, numbers, r) for r in table.rows}
            best = (max if op == "argmax" else min)(values, key=lambda r: values[r])
            options += [(numbers, op, reading) for reading in readings(table, best)]
    numbers, op, reading = pick(s, "q.extreme", options)
    d = table.layout.domain
    return Draft(f"{reading.what_is()} of the {d.entity} with the {most(op)} "
                 f"{numbers.noun}?",
                 {"op": op, "by": {"column": numbers.header}, "read": reading.program()},
                 "visual", "extrema")


def count_by_picture(question_type: str, reasoning: str) -> Callable[[Table, Streams], Draft]:
    """"How many clubs have a badge that is red?" """
    def make(table: Table, s: Streams) -> Draft:
        condition = pick(s, "q.condition", conditions(table))
        return Draft(f"How many {table.layout.domain.plural} have {condition.that()}?",
                     {"op": "count", "where": [condition.program]}, question_type, reasoning)
    return make


def verify_named(question_type: str) -> Callable[[Table, Streams], Draft]:
    """"True or false: the badge of Arden FC is red." """
    def make(table: Table, s: Streams) -> Draft:
        row = pick(s, "q.row", imaged_rows(table))
        meets = s.uniform("q.truth") < 0.5
        options = [c for c in conditions(table) if (row in c.rows) == meets and
                   (row, _col(table, c.column)) in table.visuals]
        condition = pick(s, "q.condition", options)
        entity = table.label(row)
        question = f"True or false: the {condition.column.noun} of {entity} " \
            f"{condition.clause}." if question_type == "visual" else \
            f"Does {entity} have {condition.that()}?"
        return Draft(question, {"op": "check", "where": [named(table, row)],
                                "test": condition.program},
                     question_type, "fact-verification")
    return make


def _col(table: Table, column: VisualColumn) -> int:
    return dict((c.header, k) for c, k in table.visual_columns)[column.header]


def visual_vision(table: Table, s: Streams) -> Draft:
    """"Which cell holds the badge that is red?" or "What is the colour of the badge of the
    club with 60 points?" """
    d = table.layout.domain
    if s.uniform("q.locate") < 0.6:
        condition = pick(s, "q.condition", one_row(table))
        return Draft(f"Which cell holds the {condition.column.noun} that {condition.clause}? "
                     "Answer as row_i_col_j.",
                     {"op": "locate", "where": [condition.program],
                      "column": condition.column.header}, "visual", "vision-based")
    row = pick(s, "q.row", imaged_rows(table))
    numbers = a_number(table, s, "q.numbers")
    reading = pick(s, "q.reading", readings(table, row))
    value = number_at(table, numbers, row)
    return Draft(f"{reading.what_is()} of the {d.entity} with {value} {numbers.noun}?",
                 {"op": "value", "where": [{"column": numbers.header, "eq": str(value)}],
                  "read": reading.program()}, "visual", "vision-based")


def explicit_mathematical(table: Table, s: Streams) -> Draft:
    """"How many more points does Arden FC have than the club whose badge is red?" """
    numbers = a_number(table, s, "q.numbers")
    options = []
    for condition in one_row(table):
        other = condition.rows[0]
        options += [(condition, row) for row in imaged_rows(table)
                    if number_at(table, numbers, row) > number_at(table, numbers, other)]
    condition, row = pick(s, "q.pair", options)
    d = table.layout.domain
    return Draft(f"How many more {numbers.noun} does {table.label(row)} have than the "
                 f"{d.entity} {condition.whose()}?",
                 {"op": "difference", "a": [named(table, row)], "b": [condition.program],
                  "read": {"column": numbers.header}}, "explicit", "mathematical")


def explicit_vision(table: Table, s: Streams) -> Draft:
    """"What is the colour of the badge of Arden FC?" """
    row = pick(s, "q.row", imaged_rows(table))
    reading = pick(s, "q.reading", readings(table, row))
    return Draft(f"{reading.what_is()} of {table.label(row)}?",
                 {"op": "value", "where": [named(table, row)], "read": reading.program()},
                 "explicit", "vision-based")


def explicit_other(table: Table, s: Streams) -> Draft:
    """"How many points does Arden FC, the club whose badge is red, have?" """
    row = pick(s, "q.row", imaged_rows(table))
    condition = pick(s, "q.condition", [c for c in conditions(table) if row in c.rows])
    numbers = a_number(table, s, "q.numbers")
    d = table.layout.domain
    return Draft(f"How many {numbers.noun} does {table.label(row)}, the {d.entity} "
                 f"{condition.whose()}, have?",
                 {"op": "value", "where": [named(table, row), condition.program],
                  "read": {"column": numbers.header}}, "explicit", "other")


def _two_numbers(table: Table, s: Streams) -> tuple[Numbers, Numbers]:
    first = a_number(table, s, "q.by")
    return first, next(n for n, _ in table.number_columns if n != first)


def implicit_extrema(table: Table, s: Streams) -> Draft:
    """"Of the clubs whose badge is red, how many wins has the one with the most points?" """
    condition = pick(s, "q.condition", some_rows(table))
    by, read = _two_numbers(table, s)
    op = pick(s, "q.op", ("argmax", "argmin"))
    d = table.layout.domain
    return Draft(f"Of the {d.plural} {condition.whose()}, how many {read.noun} has the one "
                 f"with the {most(op)} {by.noun}?",
                 {"op": op, "where": [condition.program], "by": {"column": by.header},
                  "read": {"column": read.header}}, "implicit", "extrema")


def implicit_mathematical(table: Table, s: Streams) -> Draft:
    """Sums, means and differences over rows picked by their pictures."""
    numbers = a_number(table, s, "q.numbers")
    d = table.layout.domain
    how = pick(s, "q.how", ("sum", "mean", "difference"))
    if how == "difference":
        singles = one_row(table)
        pairs = [(a, b) for a in singles for b in singles
                 if number_at(table, numbers, a.rows[0]) > number_at(table, numbers, b.rows[0])]
        a, b = pick(s, "q.pair", pairs)
        return Draft(f"How many more {numbers.noun} does the {d.entity} {a.whose()} have than "
                     f"the {d.entity} {b.whose()}?",
                     {"op": "difference", "a": [a.program], "b": [b.program],
                      "read": {"column": numbers.header}}, "implicit", "mathematical")
    condition = pick(s, "q.condition", some_rows(table))
    question = f"How many {numbers.noun} do the {d.plural} {condition.whose()} have in " \
        "total?" if how == "sum" else \
        f"What is the average number of {numbers.noun} of the {d.plural} {condition.whose()}?"
    return Draft(question, {"op": how, "where": [condition.program],
                            "read": {"column": numbers.header}}, "implicit", "mathematical")


def implicit_verification(table: Table, s: Streams) -> Draft:
    """"Does the club whose badge is red have more than 50 points?" """
    condition = pick(s, "q.condition", one_row(table))
    numbers = a_number(table, s, "q.numbers")
    value = number_at(table, numbers, condition.rows[0])
    gap = s.integer("q.gap", 1, 5)
    more = s.uniform("q.more") < 0.5
    true = s.uniform("q.truth") < 0.5
    bound = value - gap if more == true else value + gap
    d = table.layout.domain
    return Draft(f"Does the {d.entity} {condition.whose()} have {'more' if more else 'fewer'} "
                 f"than {bound} {numbers.noun}?",
                 {"op": "check", "where": [condition.program],
                  "test": {"column": numbers.header, "gt" if more else "lt": str(bound)}},
                 "implicit", "fact-verification")


def implicit_other(table: Table, s: Streams) -> Draft:
    """"How many points does the club whose badge is red have?" (or both its numbers, or
    those of every such club)."""
    numbers = a_number(table, s, "q.numbers")
    d = table.layout.domain
    several = [c for c in conditions(table) if len(c.rows) >= 2]
    how = pick(s, "q.how", ("value", "values", "fields"))
    if how == "fields":
        condition = pick(s, "q.condition", one_row(table))
        first, second = (n for n, _ in table.number_columns)
        return Draft(f"How many {first.noun} and how many {second.noun} does the {d.entity} "
                     f"{condition.whose()} have?",
                     {"op": "fields", "where": [condition.program],
                      "read": [{"column": first.header}, {"column": second.header}]},
                     "implicit", "other")
    if several and how == "values":
        condition = pick(s, "q.condition", several)
        return Draft(f"List the {numbers.noun} of each {d.entity} {condition.whose()}, in "
                     "table order.",
                     {"op": "values", "where": [condition.program],
                      "read": {"column": numbers.header}}, "implicit", "other")
    condition = pick(s, "q.condition", one_row(table))
    return Draft(f"How many {numbers.noun} does the {d.entity} {condition.whose()} have?",
                 {"op": "value", "where": [condition.program],
                  "read": {"column": numbers.header}}, "implicit", "other")


def mention_extrema(table: Table, s: Streams) -> Draft:
    """"Which club whose badge is red has the most points?" """
    condition = pick(s, "q.condition", some_rows(table))
    numbers = a_number(table, s, "q.numbers")
    op = pick(s, "q.op", ("argmax", "argmin"))
    d = table.layout.domain
    return Draft(f"Which {d.entity} {condition.whose()} has the {most(op)} {numbers.noun}?",
                 {"op": op, "where": [condition.program], "by": {"column": numbers.header},
                  "read": {"column": label(table)}}, "answer-mention", "extrema")


def mention_vision(table: Table, s: Streams) -> Draft:
    """"Which club has 60 points, and what is the colour of its badge?" """
    row = pick(s, "q.row", imaged_rows(table))
    numbers = a_number(table, s, "q.numbers")
    reading = pick(s, "q.reading", readings(table, row))
    value = number_at(table, numbers, row)
    d = table.layout.domain
    return Draft(f"Which {d.entity} has {value} {numbers.noun}, and "
                 f"{reading.what_is('its').lower()}?",
                 {"op": "fields", "where": [{"column": numbers.header, "eq": str(value)}],
                  "read": [{"column": label(table)}, reading.program()]},
                 "answer-mention", "vision-based")


def mention_other(table: Table, s: Streams) -> Draft:
    """"Which club has a badge that is red?" (or every such club, or with its points)."""
    d = table.layout.domain
    how = pick(s, "q.how", ("value", "values", "fields"))
    several = [c for c in conditions(table) if len(c.rows) >= 2]
    if how == "values" and several:
        condition = pick(s, "q.condition", several)
        return Draft(f"Which {d.plural} have {condition.that()}? List them in table order.",
                     {"op": "values", "where": [condition.program],
                      "read": {"column": label(table)}}, "answer-mention", "other")
    condition = pick(s, "q.condition", one_row(table))
    if how == "fields":
        numbers = a_number(table, s, "q.numbers")
        return Draft(f"Which {d.entity} has {condition.that()}, and how many {numbers.noun} "
                     "does it have?",
                     {"op": "fields", "where": [condition.program],
                      "read": [{"column": label(table)}, {"column": numbers.header}]},
                     "answer-mention", "other")
    return Draft(f"Which {d.entity} has {condition.that()}?",
                 {"op": "value", "where": [condition.program],
                  "read": {"column": label(table)}}, "answer-mention", "other")


Maker = Callable[[Table, Streams], Draft]

TEMPLATES: Mapping[tuple[str, str], Maker] = {
    ("visual", "extrema"): visual_extrema,
    ("visual", "mathematical"): count_by_picture("visual", "mathematical"),
    ("visual", "fact-verification"): verify_named("visual"),
    ("visual", "vision-based"): visual_vision,
    ("explicit", "mathematical"): explicit_mathematical,
    ("explicit", "fact-verification"): verify_named("explicit"),
    ("explicit", "vision-based"): explicit_vision,
    ("explicit", "other"): explicit_other,
    ("implicit", "extrema"): implicit_extrema,
    ("implicit", "mathematical"): implicit_mathematical,
    ("implicit", "fact-verification"): implicit_verification,
    ("implicit", "vision-based"): count_by_picture("implicit", "vision-based"),
    ("implicit", "other"): implicit_other,
    ("answer-mention", "extrema"): mention_extrema,
    ("answer-mention", "vision-based"): mention_vision,
    ("answer-mention", "other"): mention_other,
}
"""A maker for every (question type, reasoning type) a program's shape allows (an answer
that names an entity cannot be a count or a yes/no; a question about a picture's own
looks cannot be "other"; an extreme cannot be asked of one named entity)."""


def finish(table: Table, draft: Draft) -> Any:
    """The draft's answer, when its program executes and the question needs its pictures;
    else :class:`Unsuitable`."""
    try:
        answer = execute(table.grid, table.visuals, draft.program)
    except ProgramError as exc:
        raise Unsuitable(str(exc)) from exc
    if visual_witness(table.grid, table.visuals, draft.program, vocabularies()) is None:
        raise Unsuitable("the question does not need its pictures")
    return answer
