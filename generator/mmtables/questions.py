"""Questions of MMTabReal's taxonomy on a drawn table, each a :mod:`hopvista.program.cells`
program with its wording.

:data:`TEMPLATES` holds, for each (question type, reasoning type) a program's shape allows,
the answer types its makers can ask (a :class:`Form` each: the maker and what a table layout
must offer for it). A maker is given what the plan asks (:class:`Ask`: the answer type, and
for a yes/no its truth, for a count its number), picks a picture column, rows and aspects with
the item's streams (:mod:`hopvista.mmtables.choices`) and returns a :class:`Draft`, or raises
:class:`~hopvista.mmtables.choices.Unsuitable` when the table offers no such question (the
builder then draws another table). :func:`finish` executes the draft's program and keeps it
only when the answer is what the plan asks and the question needs its pictures
(:func:`hopvista.program.cells.visual_witness`).

Which answer types each pair's makers ask (``SE`` single-entity, ``ME`` multiple-entities,
``SN`` single-number, ``MN`` multiple-numbers, ``IL`` image-location, ``MT`` multiple-types;
a yes/no is a single entity):

==============  ============  ==================  =================  ==========================
reasoning       explicit      implicit            answer-mention     visual
==============  ============  ==================  =================  ==========================
extrema         (none)        SN MN               SE ME MT IL        SE SN ME MN MT
mathematical    SN MN         SN MN               (none)             SN (a count)
fact-verif.     SE            SE                  (none)             SE
vision-based    SE SN ME MN   SN (a count)        ME MT IL           SE SN ME MN MT IL
                MT
other           SN MN         SN MN               SE ME MT           (none)
==============  ============  ==================  =================  ==========================
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from hopvista.mmtables.aspects import Aspect, aspects_of
from hopvista.mmtables.choices import (
    IL,
    ME,
    MN,
    MT,
    SE,
    SN,
    Reading,
    Unsuitable,
    a_number,
    asking,
    choose_plant,
    conditions,
    extreme_row,
    imaged_rows,
    label,
    most,
    named,
    named_parts,
    narrowing_extremes,
    number_at,
    one_row,
    other_number,
    pick,
    pick_spread,
    picture_parts,
    plant,
    read_parts,
    several_rows,
    some_rows,
    spread_key,
)
from hopvista.mmtables.domains import Layout, Numbers, Table
from hopvista.program.cells import ProgramError, execute, visual_witness
from hopvista.rng import Streams
from hopvista.themes.visuals import VISUAL_KINDS, vocabularies
from hopvista.verify.mmtables import answer_type_of

LOCATION = "Answer as row_i_col_j."


@dataclass(frozen=True)
class Ask:
    """What the plan asks of a question besides its question and reasoning types: its answer
    type, and for a yes/no question its truth, for a count the number it answers."""

    answer_type: str
    truth: bool | None = None
    count: int | None = None


@dataclass(frozen=True)
class Draft:
    """A question, its program, and its question and reasoning types; ``table`` the table
    it is asked of when the maker drew some of its pictures again
    (:func:`~hopvista.mmtables.choices.plant`)."""

    question: str
    program: dict[str, Any]
    question_type: str
    reasoning: str
    table: Table | None = None


# -- the makers, by question type and reasoning type -------------------------------------------


Maker = Callable[[Table, Streams, Ask], Draft]


def visual_extrema(table: Table, s: Streams, ask: Ask) -> Draft:
    """"What is the colour of the badge of the club with the most points?" (and how many
    wins it has, or another aspect of its pictures)."""
    options = []
    for numbers, _ in table.number_columns:
        for op in ("argmax", "argmin"):
            best = extreme_row(table, numbers, op, table.rows)
            options += [(numbers, op, best, parts)
                        for parts in picture_parts(table, best, ask.answer_type)
                        if numbers not in parts]
    numbers, op, best, parts = pick_spread(s, "q.extreme", options,
                                           lambda o: spread_key(table, o[2], o[3]))
    d = table.layout.domain
    first = parts[0]
    assert isinstance(first, Reading)
    return Draft(asking(f"{first.what_is()} of the {d.entity} with the {most(op)} "
                        f"{numbers.noun}", parts),
                 {"op": op, "by": {"column": numbers.header}, "read": read_parts(table, parts)},
                 "visual", "extrema")


def count_by_picture(question_type: str, reasoning: str) -> Maker:
    """"How many clubs have a badge that is red?": the aspect and its value are drawn first,
    then as many pictures as the plan's count are drawn to show the value and the others
    not to."""
    def make(table: Table, s: Streams, ask: Ask) -> Draft:
        assert ask.count is not None
        planted = choose_plant(table, s)
        imaged = table.imaged(planted.col)
        if ask.count > len(imaged):
            raise Unsuitable(f"{len(imaged)} pictures cannot show a count of {ask.count}")
        order = [int(k) for k in s.stream("q.plant.rows").permutation(len(imaged))]
        showing = [imaged[k] for k in order[:ask.count]]
        table = plant(table, s, planted, showing, imaged)
        condition = planted.condition(table)
        return Draft(f"How many {table.layout.domain.plural} have {condition.that()}?",
                     {"op": "count", "where": [condition.program]}, question_type, reasoning,
                     table)
    return make


def verify_named(question_type: str) -> Maker:
    """"True or false: the badge of Arden FC is red.": the aspect and its value are drawn
    first, then the entity's picture is drawn to show it or not, as the plan asks."""
    def make(table: Table, s: Streams, ask: Ask) -> Draft:
        row = pick(s, "q.row", imaged_rows(table))
        planted = choose_plant(table, s, [row])
        table = plant(table, s, planted, [row] if ask.truth else [], [row])
        condition = planted.condition(table)
        entity = table.label(row)
        question = f"True or false: the {condition.column.noun} of {entity} " \
            f"{condition.clause}." if question_type == "visual" else \
            f"Does {entity} have {condition.that()}?"
        return Draft(question, {"op": "check", "where": [named(table, row)],
                                "test": condition.program},
                     question_type, "fact-verification", table)
    return make


def visual_locate(table: Table, s: Streams, ask: Ask) -> Draft:
    """"Which cell holds the badge that is red? Answer as row_i_col_j." """
    condition = pick(s, "q.condition", one_row(table))
    return Draft(f"Which cell holds the {condition.column.noun} that {condition.clause}? "
                 f"{LOCATION}",
                 {"op": "locate", "where": [condition.program],
                  "column": condition.column.header}, "visual", "vision-based")


def visual_vision(table: Table, s: Streams, ask: Ask) -> Draft:
    """"What is the colour of the badge of the club with 60 points?" (and how many wins it
    has, or another aspect of its pictures)."""
    numbers = a_number(table, s, "q.numbers")
    options = [(row, parts) for row in imaged_rows(table)
               for parts in picture_parts(table, row, ask.answer_type) if numbers not in parts]
    row, parts = pick_spread(s, "q.row", options, lambda o: spread_key(table, *o))
    first = parts[0]
    assert isinstance(first, Reading)
    value = number_at(table, numbers, row)
    d = table.layout.domain
    return Draft(asking(f"{first.what_is()} of the {d.entity} with {value} {numbers.noun}",
                        parts),
                 {"op": "fields" if len(parts) > 1 else "value",
                  "where": [{"column": numbers.header, "eq": str(value)}],
                  "read": read_parts(table, parts)}, "visual", "vision-based")


def explicit_vision(table: Table, s: Streams, ask: Ask) -> Draft:
    """"What is the colour of the badge of Arden FC?" (and how many wins it has, or another
    aspect of its pictures)."""
    options = [(row, parts) for row in imaged_rows(table)
               for parts in picture_parts(table, row, ask.answer_type)]
    row, parts = pick_spread(s, "q.row", options, lambda o: spread_key(table, *o))
    first = parts[0]
    assert isinstance(first, Reading)
    return Draft(asking(f"{first.what_is()} of {table.label(row)}", parts),
                 {"op": "fields" if len(parts) > 1 else "value",
                  "where": [named(table, row)], "read": read_parts(table, parts)},
                 "explicit", "vision-based")


def explicit_mathematical(table: Table, s: Streams, ask: Ask) -> Draft:
    """"How many more points does Arden FC have than the club whose badge is red?" (and how
    many more wins, when both are asked)."""
    both = ask.answer_type == MN
    numbers = a_number(table, s, "q.numbers")
    asked = [numbers, other_number(table, numbers)] if both else [numbers]
    options = []
    for condition in one_row(table):
        other = condition.rows[0]
        options += [(condition, row) for row in imaged_rows(table)
                    if all(number_at(table, n, row) > number_at(table, n, other)
                           for n in asked)]
    condition, row = pick(s, "q.pair", options)
    d = table.layout.domain
    more = " and how many more ".join(n.noun for n in asked)
    return Draft(f"How many more {more} does {table.label(row)} have than the "
                 f"{d.entity} {condition.whose()}?",
                 {"op": "difference", "a": [named(table, row)], "b": [condition.program],
                  "read": read_parts(table, asked)}, "explicit", "mathematical")


def explicit_other(table: Table, s: Streams, ask: Ask) -> Draft:
    """"How many points does Arden FC, the club whose badge is red, have?" (or how many
    points and how many wins)."""
    row = pick(s, "q.row", imaged_rows(table))
    condition = pick(s, "q.condition", [c for c in conditions(table) if row in c.rows])
    numbers = a_number(table, s, "q.numbers")
    asked = [numbers, other_number(table, numbers)] if ask.answer_type == MN else [numbers]
    how_many = " and how many ".join(n.noun for n in asked)
    d = table.layout.domain
    return Draft(f"How many {how_many} does {table.label(row)}, the {d.entity} "
                 f"{condition.whose()}, have?",
                 {"op": "fields" if len(asked) > 1 else "value",
                  "where": [named(table, row), condition.program],
                  "read": read_parts(table, asked)}, "explicit", "other")


def implicit_extrema(table: Table, s: Streams, ask: Ask) -> Draft:
    """"Of the clubs whose badge is red, how many wins has the one with the most points?"
    (or how many wins and how many points)."""
    condition, by, op = pick(s, "q.condition", narrowing_extremes(table))
    read = other_number(table, by)
    asked = [read, by] if ask.answer_type == MN else [read]
    how_many = " and how many ".join(n.noun for n in asked)
    d = table.layout.domain
    return Draft(f"Of the {d.plural} {condition.whose()}, how many {how_many} has the one "
                 f"with the {most(op)} {by.noun}?",
                 {"op": op, "where": [condition.program], "by": {"column": by.header},
                  "read": read_parts(table, asked)}, "implicit", "extrema")


def implicit_mathematical(table: Table, s: Streams, ask: Ask) -> Draft:
    """Sums, means and differences over rows picked by their pictures (of both number
    columns at once, when several numbers are asked)."""
    numbers = a_number(table, s, "q.numbers")
    d = table.layout.domain
    if ask.answer_type == MN:
        return _implicit_totals(table, s, [numbers, other_number(table, numbers)])
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


def _implicit_totals(table: Table, s: Streams, asked: list[Numbers]) -> Draft:
    """"How many points and how many wins do the clubs whose badge is red have in total?"
    (or on average)."""
    condition = pick(s, "q.condition", some_rows(table))
    how = pick(s, "q.how", ("sum", "mean"))
    d = table.layout.domain
    question = f"How many {' and how many '.join(n.noun for n in asked)} do the {d.plural} " \
        f"{condition.whose()} have in total?" if how == "sum" else \
        f"What are the average numbers of {' and of '.join(n.noun for n in asked)} of the " \
        f"{d.plural} {condition.whose()}?"
    return Draft(question, {"op": how, "where": [condition.program],
                            "read": read_parts(table, asked)}, "implicit", "mathematical")


def implicit_verification(table: Table, s: Streams, ask: Ask) -> Draft:
    """"Does the club whose badge is red have more than 50 points?", true or false as the
    plan asks."""
    condition = pick(s, "q.condition", one_row(table))
    numbers = a_number(table, s, "q.numbers")
    value = number_at(table, numbers, condition.rows[0])
    gap = s.integer("q.gap", 1, 5)
    more = s.uniform("q.more") < 0.5
    bound = value - gap if more == ask.truth else value + gap
    d = table.layout.domain
    return Draft(f"Does the {d.entity} {condition.whose()} have {'more' if more else 'fewer'} "
                 f"than {bound} {numbers.noun}?",
                 {"op": "check", "where": [condition.program],
                  "test": {"column": numbers.header, "gt" if more else "lt": str(bound)}},
                 "implicit", "fact-verification")


def implicit_other(table: Table, s: Streams, ask: Ask) -> Draft:
    """"How many points does the club whose badge is red have?" (or both its numbers, or
    those of every such club)."""
    numbers = a_number(table, s, "q.numbers")
    d = table.layout.domain
    several = several_rows(table)
    if ask.answer_type == MN:
        if several and s.uniform("q.how") < 0.5:
            condition = pick(s, "q.condition", several)
            return Draft(f"List the {numbers.noun} of each {d.entity} {condition.whose()}, "
                         "in table order.",
                         {"op": "values", "where": [condition.program],
                          "read": {"column": numbers.header}}, "implicit", "other")
        condition = pick(s, "q.condition", one_row(table))
        first, second = (n for n, _ in table.number_columns)
        return Draft(f"How many {first.noun} and how many {second.noun} does the {d.entity} "
                     f"{condition.whose()} have?",
                     {"op": "fields", "where": [condition.program],
                      "read": [{"column": first.header}, {"column": second.header}]},
                     "implicit", "other")
    condition = pick(s, "q.condition", one_row(table))
    return Draft(f"How many {numbers.noun} does the {d.entity} {condition.whose()} have?",
                 {"op": "value", "where": [condition.program],
                  "read": {"column": numbers.header}}, "implicit", "other")


def mention_extrema(table: Table, s: Streams, ask: Ask) -> Draft:
    """"Which club whose badge is red has the most points?" (and how many wins it has, or
    an aspect of its pictures, or where its badge is)."""
    condition, numbers, op = pick(s, "q.condition", narrowing_extremes(table))
    best = extreme_row(table, numbers, op, condition.rows)
    d = table.layout.domain
    program = {"op": op, "where": [condition.program], "by": {"column": numbers.header}}
    if ask.answer_type == IL:
        column = pick(s, "q.column", [c for c, col in table.visual_columns
                                      if (best, col) in table.visuals])
        return Draft(f"Of the {d.plural} {condition.whose()}, which has the {most(op)} "
                     f"{numbers.noun}? Answer with the cell of its {column.noun}, as "
                     "row_i_col_j.", program | {"read": {"cell": column.header}},
                     "answer-mention", "extrema")
    parts = pick(s, "q.parts", named_parts(table, best, ask.answer_type, condition, numbers))
    return Draft(asking(f"Which {d.entity} {condition.whose()} has the {most(op)} "
                        f"{numbers.noun}", parts),
                 program | {"read": read_parts(table, parts)}, "answer-mention", "extrema")


def mention_vision(table: Table, s: Streams, ask: Ask) -> Draft:
    """"Which club has 60 points, and what is the colour of its badge?" (and how many wins
    it has), or "Where in the table is the club whose coach wears glasses? Answer with the
    cell of its badge, as row_i_col_j." """
    d = table.layout.domain
    if ask.answer_type == IL:
        condition = pick(s, "q.condition", one_row(table))
        row = condition.rows[0]
        column = pick(s, "q.column", [c for c, col in table.visual_columns
                                      if (row, col) in table.visuals])
        return Draft(f"Where in the table is the {d.entity} {condition.whose()}? Answer with "
                     f"the cell of its {column.noun}, as row_i_col_j.",
                     {"op": "locate", "where": [condition.program], "column": column.header},
                     "answer-mention", "vision-based")
    numbers = a_number(table, s, "q.numbers")
    options = [(row, parts) for row in imaged_rows(table)
               for parts in named_parts(table, row, ask.answer_type, None, numbers)
               if any(isinstance(p, Reading) for p in parts)]
    row, parts = pick(s, "q.row", options)
    value = number_at(table, numbers, row)
    return Draft(asking(f"Which {d.entity} has {value} {numbers.noun}", parts),
                 {"op": "fields", "where": [{"column": numbers.header, "eq": str(value)}],
                  "read": read_parts(table, parts)}, "answer-mention", "vision-based")


def mention_other(table: Table, s: Streams, ask: Ask) -> Draft:
    """"Which club has a badge that is red?" (or every such club, or with its points)."""
    d = table.layout.domain
    if ask.answer_type == ME:
        condition = pick(s, "q.condition", several_rows(table))
        return Draft(f"Which {d.plural} have {condition.that()}? List them in table order.",
                     {"op": "values", "where": [condition.program],
                      "read": {"column": label(table)}}, "answer-mention", "other")
    condition = pick(s, "q.condition", one_row(table))
    if ask.answer_type == MT:
        numbers = a_number(table, s, "q.numbers")
        return Draft(f"Which {d.entity} has {condition.that()}, and how many {numbers.noun} "
                     "does it have?",
                     {"op": "fields", "where": [condition.program],
                      "read": [{"column": label(table)}, {"column": numbers.header}]},
                     "answer-mention", "other")
    return Draft(f"Which {d.entity} has {condition.that()}?",
                 {"op": "value", "where": [condition.program],
                  "read": {"column": label(table)}}, "answer-mention", "other")


# -- what a table layout offers ---------------------------------------------------------------


@cache
def _column_aspects(kind: str, constraints: tuple[tuple[str, Any], ...],
                    single: bool) -> tuple[Aspect, ...]:
    """The aspects a question can ask of a column of pictures of ``kind`` drawn under
    ``constraints``: those a picture drawn from a fixed stream has (which attributes a kind
    draws does not depend on the draw), less, for a column with one picture, those whose
    attribute has no vocabulary in its kind (a question on them cannot be shown to need
    the picture: nothing to set it against)."""
    attributes = VISUAL_KINDS.get(kind).sample(Streams(0, "layout-probe"), slot="probe",
                                               **dict(constraints))
    vocabulary = vocabularies().get(kind, {})
    return tuple(a for a in aspects_of({"kind": kind, "colors": [], "attributes": attributes})
                 if not single or a.attribute in vocabulary)


def layout_aspects(layout: Layout) -> list[Aspect]:
    """The aspects a question can ask of the pictures of ``layout``'s columns."""
    return [a for column in layout.columns
            for a in _column_aspects(column.kind, tuple(sorted(column.constraints.items())),
                                     column.single)]


def any_layout(layout: Layout) -> bool:
    """Any picture aspect to ask about (a layout without one cannot ask anything)."""
    return bool(layout_aspects(layout))


def asks_a_word(layout: Layout) -> bool:
    """A picture aspect read as a word (a colour, a shape)."""
    return any(a.what is not None and not a.numeric for a in layout_aspects(layout))


def asks_a_number(layout: Layout) -> bool:
    """A picture aspect read as a number (stars, bars)."""
    return any(a.what is not None and a.numeric for a in layout_aspects(layout))


def asks_two_words(layout: Layout) -> bool:
    """Two picture aspects read as words, of one row."""
    return sum(a.what is not None and not a.numeric for a in layout_aspects(layout)) >= 2


def asks_a_word_besides(layout: Layout) -> bool:
    """A picture aspect read as a word, and another aspect to pick rows by."""
    return asks_a_word(layout) and len(layout_aspects(layout)) >= 2


def picks_several(layout: Layout) -> bool:
    """A picture column with a picture in every row, so that a condition may pick several."""
    return any(not column.single for column in layout.columns)


@dataclass(frozen=True)
class Form:
    """A maker of questions of one answer type, and what a table layout must offer for it
    (by default :func:`any_layout`)."""

    make: Maker
    needs: Callable[[Layout], bool] = any_layout


def _forms(make: Maker, **needs: Callable[[Layout], bool]) -> Callable[..., dict[str, Form]]:
    """The forms of ``make`` for the answer types given, each needing what ``needs`` says
    (by answer type's short name) or nothing."""
    short = {"SE": SE, "ME": ME, "SN": SN, "MN": MN, "IL": IL, "MT": MT}

    def of(*types: str) -> dict[str, Form]:
        return {short[t]: Form(make, needs.get(t, any_layout)) for t in types}
    return of


TEMPLATES: Mapping[tuple[str, str], Mapping[str, Form]] = {
    ("visual", "extrema"): _forms(visual_extrema, SE=asks_a_word, SN=asks_a_number,
                                  ME=asks_two_words, MN=asks_a_number,
                                  MT=asks_a_word)("SE", "SN", "ME", "MN", "MT"),
    ("visual", "mathematical"): {SN: Form(count_by_picture("visual", "mathematical"))},
    ("visual", "fact-verification"): {SE: Form(verify_named("visual"))},
    ("visual", "vision-based"): {
        **_forms(visual_vision, SE=asks_a_word, SN=asks_a_number, ME=asks_two_words,
                 MN=asks_a_number, MT=asks_a_word)("SE", "SN", "ME", "MN", "MT"),
        IL: Form(visual_locate)},
    ("explicit", "mathematical"): _forms(explicit_mathematical)("SN", "MN"),
    ("explicit", "fact-verification"): {SE: Form(verify_named("explicit"))},
    ("explicit", "vision-based"): _forms(explicit_vision, SE=asks_a_word, SN=asks_a_number,
                                         ME=asks_two_words, MN=asks_a_number,
                                         MT=asks_a_word)("SE", "SN", "ME", "MN", "MT"),
    ("explicit", "other"): _forms(explicit_other)("SN", "MN"),
    ("implicit", "extrema"): _forms(implicit_extrema)("SN", "MN"),
    ("implicit", "mathematical"): _forms(implicit_mathematical)("SN", "MN"),
    ("implicit", "fact-verification"): {SE: Form(implicit_verification)},
    ("implicit", "vision-based"): {SN: Form(count_by_picture("implicit", "vision-based"))},
    ("implicit", "other"): _forms(implicit_other)("SN", "MN"),
    ("answer-mention", "extrema"): _forms(mention_extrema, ME=asks_a_word_besides)(
        "SE", "ME", "MT", "IL"),
    ("answer-mention", "vision-based"): _forms(mention_vision, ME=asks_a_word)(
        "ME", "MT", "IL"),
    ("answer-mention", "other"): _forms(mention_other, ME=picks_several)("SE", "ME", "MT"),
}
"""The forms of each (question type, reasoning type) a program's shape allows, by answer type
(an answer that names an entity cannot be a count or a yes/no; a question about a picture's
own looks cannot be "other"; an extreme cannot be asked of one named entity)."""

COUNTING = frozenset({("visual", "mathematical"), ("implicit", "vision-based")})
"""The (question type, reasoning type) pairs asked as counts of rows picked by a picture."""


def finish(table: Table, draft: Draft, ask: Ask) -> Any:
    """The draft's answer, when its program executes, its answer is what ``ask`` asks (its
    answer type, truth or count) and the question needs its pictures; else
    :class:`Unsuitable`."""
    try:
        answer = execute(table.grid, table.visuals, draft.program)
    except ProgramError as exc:
        raise Unsuitable(str(exc)) from exc
    written = answer_type_of(draft.program, answer)
    if written != ask.answer_type:
        raise Unsuitable(f"the answer is a {written}, not a {ask.answer_type}")
    for planned in (ask.truth, ask.count):
        if planned is not None and answer != planned:
            raise Unsuitable(f"the answer is {answer!r}, not {planned!r}")
    if visual_witness(table.grid, table.visuals, draft.program, vocabularies()) is None:
        raise Unsuitable("the question does not need its pictures")
    return answer
