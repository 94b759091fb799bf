"""What a question on a drawn multimodal table may choose: conditions on its pictures'
aspects ("whose badge is red"), readings of them ("the colour of the badge"), the parts an
answer is made of (an entity's name, a number column, a picture's aspect) and the answer type
they make, and values planted in pictures for a closed question (:func:`plant`).

A choice is made with the item's named streams (:func:`pick`); a table that offers none raises
:class:`Unsuitable` (the builder then draws another table).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from hopvista.mmtables.aspects import Aspect, aspects_of
from hopvista.mmtables.domains import Numbers, Table, VisualColumn
from hopvista.program.cells import rows_where
from hopvista.rng import Streams
from hopvista.themes.visuals import VISUAL_KINDS, vocabularies

T = TypeVar("T")

SE, ME, SN, MN, IL, MT = ("single-entity", "multiple-entities", "single-number",
                          "multiple-numbers", "image-location", "multiple-types")
"""MMTabReal's answer types (:data:`hopvista.model.mmtable.ANSWER_TYPES`) by short name."""


class Unsuitable(ValueError):
    """The table offers no question of the kind asked for."""


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


def pick_spread(streams: Streams, name: str, options: Sequence[T],
                key: Callable[[T], str]) -> T:
    """One of ``options``: first one of the distinct ``key``\\ s they give (each equally
    likely, however many options give it), then an option giving it."""
    keys = sorted({key(option) for option in options})
    chosen = pick(streams, f"{name}.value", keys)
    return pick(streams, name, [option for option in options if key(option) == chosen])


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


def several_rows(table: Table) -> list[Condition]:
    """Conditions that pick two rows or more, but not every row (a condition every row meets
    changes nothing)."""
    return [c for c in conditions(table) if 2 <= len(c.rows) < len(table.rows)]


def some_rows(table: Table) -> list[Condition]:
    """Conditions that pick two rows or more but not every row, or failing any, those that
    pick one."""
    return several_rows(table) or one_row(table)


def narrowing_extremes(table: Table) -> list[tuple[Condition, Numbers, str]]:
    """(condition, number column, ``argmax`` or ``argmin``) whose extreme among the rows the
    condition picks is not the extreme of the whole table (so that the pictures decide
    which row it is)."""
    found = []
    for condition in some_rows(table):
        for numbers, _ in table.number_columns:
            for op in ("argmax", "argmin"):
                if extreme_row(table, numbers, op, condition.rows) != \
                        extreme_row(table, numbers, op, table.rows):
                    found.append((condition, numbers, op))
    return found


@dataclass(frozen=True)
class Reading:
    """An aspect a question may ask for of the picture in one column."""

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


def other_number(table: Table, numbers: Numbers) -> Numbers:
    """The table's number column that is not ``numbers``."""
    return next(n for n, _ in table.number_columns if n != numbers)


def imaged_rows(table: Table) -> list[int]:
    """The body rows holding any picture."""
    return sorted({row for row, _ in table.visuals})


def most(op: str) -> str:
    """How a question words the extreme ``op`` asks for."""
    return "most" if op == "argmax" else "fewest"


def extreme_row(table: Table, numbers: Numbers, op: str, rows: Sequence[int]) -> int:
    """The row of ``rows`` with the most (``argmax``) or fewest ``numbers``."""
    return (max if op == "argmax" else min)(rows, key=lambda r: number_at(table, numbers, r))


# -- what an answer is made of ---------------------------------------------------------------


Part = Reading | Numbers | str
"""One value of an answer read from a row: a picture's aspect, a number column, or
:data:`NAME` (the row's entity)."""
NAME = "name"


def part_program(table: Table, part: Part) -> dict[str, Any]:
    """The program's reading of ``part``."""
    if isinstance(part, Reading):
        return part.program()
    if isinstance(part, Numbers):
        return {"column": part.header}
    return {"column": label(table)}


def part_is_number(part: Part) -> bool:
    """Whether ``part`` reads as a number."""
    return isinstance(part, Numbers) or isinstance(part, Reading) and part.aspect.numeric


def answer_type_of_parts(parts: Sequence[Part]) -> str:
    """The answer type an answer made of ``parts`` is written as."""
    numbers = [part_is_number(p) for p in parts]
    if len(parts) == 1:
        return SN if numbers[0] else SE
    return MN if all(numbers) else ME if not any(numbers) else MT


def read_parts(table: Table, parts: Sequence[Part]) -> Any:
    """The program's ``read`` of ``parts``: one reading, or a list of them."""
    programs = [part_program(table, p) for p in parts]
    return programs[0] if len(programs) == 1 else programs


def about_it(part: Part) -> str:
    """A follow-up asking for ``part`` of the row already named ("how many wins does it
    have", "what is the colour of its badge")."""
    if isinstance(part, Numbers):
        return f"how many {part.noun} does it have"
    assert isinstance(part, Reading)
    return part.what_is("its").lower()


def asking(first: str, parts: Sequence[Part]) -> str:
    """``first`` (a question's opening, asking for ``parts[0]``) with a follow-up for each
    other part: "A?", "A, and B?", "A, B, and C?"."""
    clauses = [first, *(about_it(p) for p in parts[1:])]
    if len(clauses) == 1:
        return f"{first}?"
    return f"{', '.join(clauses[:-1])}, and {clauses[-1]}?"


def picture_parts(table: Table, row: int, answer_type: str,
                  besides: Condition | None = None) -> list[list[Part]]:
    """The answers of ``answer_type`` a question can ask of ``row`` starting with one of its
    pictures' aspects (then another aspect or a number column), never the aspect
    ``besides`` picks the row by."""
    found = [r for r in readings(table, row)
             if besides is None or (r.column, r.aspect) != (besides.column, besides.aspect)]
    options: list[list[Part]] = [[r] for r in found]
    options += [[r, other] for r in found for other in found
                if other != r and not r.aspect.numeric and not other.aspect.numeric]
    options += [[r, n] for r in found for n, _ in table.number_columns]
    return [parts for parts in options if answer_type_of_parts(parts) == answer_type]


def named_parts(table: Table, row: int, answer_type: str, besides: Condition | None,
                given: Numbers | None = None) -> list[list[Part]]:
    """The answers of ``answer_type`` an answer-mention question can ask of ``row``: its
    entity's name, then a picture's aspect (not the one ``besides`` picks by) or a number
    column (not ``given``, which the question states), or both."""
    found = [r for r in readings(table, row)
             if besides is None or (r.column, r.aspect) != (besides.column, besides.aspect)]
    numbers = [n for n, _ in table.number_columns if n != given]
    options: list[list[Part]] = [[NAME]]
    options += [[NAME, r] for r in found]
    options += [[NAME, n] for n in numbers]
    options += [[NAME, r, n] for r in found if not r.aspect.numeric for n in numbers]
    return [parts for parts in options if answer_type_of_parts(parts) == answer_type]


def spread_key(table: Table, row: int, parts: Sequence[Part]) -> str:
    """What a one-value answer about a picture would be (its aspect and value), so that
    such answers spread over the values a table shows; other answers by their parts."""
    if len(parts) == 1 and isinstance(parts[0], Reading):
        reading = parts[0]
        visual = table.visuals[(row, column_at(table, reading.column))]
        return json.dumps([reading.aspect.attribute, reading.aspect.value(visual)])
    return json.dumps([part_program(table, p) for p in parts], sort_keys=True)


def column_at(table: Table, column: VisualColumn) -> int:
    """The grid column of the picture column ``column``."""
    return dict((c.header, k) for c, k in table.visual_columns)[column.header]


# -- pictures drawn for a closed question ----------------------------------------------------


PLANT_DRAWS = 8
"""How many times a picture is drawn again, at most, to take (or lose) a planted value."""


@dataclass(frozen=True)
class Plant:
    """A value of one aspect of one picture column that a yes/no or count question asks
    about, drawn before the rows that show it are fixed."""

    column: VisualColumn
    col: int
    aspect: Aspect
    value: Any

    def condition(self, table: Table) -> Condition:
        """The condition "this aspect is this value" on ``table``."""
        program = self.aspect.condition(self.column.header, self.value)
        rows = tuple(rows_where(table.grid, table.visuals, [program]))
        return Condition(self.column, self.aspect, self.value, program, rows)


def plantable(table: Table, rows: Sequence[int] = ()) -> list[tuple[VisualColumn, int, Aspect]]:
    """The (column, aspect) a question may plant a value of: aspects compared with ``eq``
    whose attribute has a vocabulary in its kind, of columns with a picture in each of
    ``rows``."""
    vocabulary = vocabularies()
    found = []
    for column, col in table.visual_columns:
        imaged = table.imaged(col)
        if not imaged or any(row not in imaged for row in rows):
            continue
        for aspect in aspects_of(table.visuals[(imaged[0], col)]):
            if aspect.test == "eq" and aspect.of is None and \
                    aspect.attribute in vocabulary.get(column.kind, {}):
                found.append((column, col, aspect))
    return found


def choose_plant(table: Table, s: Streams, rows: Sequence[int] = ()) -> Plant:
    """A column and aspect (each equally likely), and a value of it drawn as the column's
    pictures are drawn (so that which value a question names says nothing of its answer)."""
    column, col, aspect = pick(s, "q.plant", plantable(table, rows))
    kind = VISUAL_KINDS.get(column.kind)
    drawn = kind.sample(s, slot="q.plant.value", **dict(column.constraints))
    return Plant(column, col, aspect,
                 aspect.value({"kind": column.kind, "colors": kind.colors(drawn),
                               "attributes": drawn}))


def plant(table: Table, s: Streams, planted: Plant, showing: Sequence[int],
          rows: Sequence[int]) -> Table:
    """``table`` with the pictures of ``planted``'s column in ``rows`` drawn again where
    needed (streams ``table.<column>.<row>.plant-<k>``) so that exactly those of ``showing``
    show the planted value; :class:`Unsuitable` when a picture will not."""
    kind = VISUAL_KINDS.get(planted.column.kind)
    visuals = dict(table.visuals)
    for row in rows:
        want = row in showing
        for k in range(PLANT_DRAWS + 1):
            if (planted.aspect.value(visuals[(row, planted.col)]) == planted.value) == want:
                break
            if k == PLANT_DRAWS:
                raise Unsuitable(f"no {planted.column.kind} that "
                                 f"{'shows' if want else 'lacks'} {planted.value!r}")
            given = {planted.aspect.attribute: planted.value} if want else {}
            attributes = kind.sample(s, slot=f"table.{planted.column.header}.{row}.plant-{k}",
                                     **dict(planted.column.constraints), **given)
            visuals[(row, planted.col)] = {"kind": planted.column.kind,
                                           "colors": kind.colors(attributes),
                                           "attributes": attributes}
    return replace(table, visuals=visuals)
