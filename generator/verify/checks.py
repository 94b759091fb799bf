"""The proofs of ``gen verify`` for one item: labels, presuppositions, hop necessity, answer,
and that the chart is needed. They use only the independent executor and the item's inputs."""

from __future__ import annotations

import re
from typing import Any

from hopvista.domain import Identity, derivable_closure
from hopvista.errors import excerpt
from hopvista.program.derivation import Relation, derivation
from hopvista.program.executor import (
    Context,
    Undecidable,
    bounds,
    decide,
    drop,
    hops,
    parse_number,
    picked_by,
)
from hopvista.program.operators import modalities
from hopvista.program.ratios import Product, product_relation
from hopvista.program.stated_numbers import stated_values
from hopvista.reading import Lookalikes, as_read, character_name, invisible_character

#: The first format whose builds keep every "during the years when" label open without the
#: table; older datasets were made before that rule and are not held to it.
LABEL_NECESSITY_FORMAT = 3

#: The first format whose builds keep every statement's label open with any one modality
#: withheld (docs/format.md, section 3.8), and that has the ``only`` claim.
LABEL_OPEN_FORMAT = 4

#: The first format whose builds have no exception to label openness: FC+CT+TR and FC+AR+TR
#: claim facts that several entities state (docs/format.md, section 3.8).
SHARED_FACT_FORMAT = 5

#: Statement types whose *false* statements are decidable with one modality withheld in
#: format 4, and which its label-openness check skips: with a fact that one entity states,
#: its owner would have to pass both fused selectors to keep both modalities open, and then
#: it is the one entity they pick. Format 5 claims facts several entities state instead.
LABEL_DECIDABLE_FALSE = frozenset({"FC+CT+TR", "FC+AR+TR"})


def check_names(item: dict[str, Any]) -> list[str]:
    """The names a reader tells the item's entities and columns apart by: none holds an
    invisible character, and no two look the same (a Cyrillic "А" for a Latin "A", "ACME"
    beside "Acme": :mod:`hopvista.reading`) — a statement about one would be unprovable
    from an image that shows both."""
    problems: list[str] = []
    named = [("entity", e.get("id"), e.get("name")) for e in item.get("entities") or ()
             if isinstance(e, dict)]
    table = (item.get("inputs") or {}).get("table") or {}
    named += [("column", c.get("key"), c.get("label")) for c in table.get("columns") or ()
              if isinstance(c, dict)]
    seen: dict[str, Lookalikes[str]] = {"entity": Lookalikes(), "column": Lookalikes()}
    for what, key, name in named:
        if not isinstance(name, str):
            continue
        hidden = invisible_character(name)
        if hidden is not None:
            problems.append(f"{what} {key!r}: its name {excerpt(name)} holds the invisible "
                            f"character {character_name(hidden)}")
        earlier = seen[what].add(name, str(key), distinct=True)
        if earlier is not None:
            problems.append(f"{what}s {earlier[1]!r} and {key!r} look the same "
                            f"({excerpt(earlier[0])}, {excerpt(name)}): a reader cannot tell "
                            "them apart")
    return problems


def check_item(item: dict[str, Any], ctx: Context, version: int = SHARED_FACT_FORMAT
               ) -> list[str]:
    """Problems with one item: labels re-derived, presuppositions, hop necessity (on the
    selection; on the label for datasets of format ``version`` >= 3, for "during the years
    when" statements in format 3, for every statement but the false FC+CT+TR and FC+AR+TR
    ones in format 4, and for every statement from format 5), answer."""
    problems = []
    labels: list[bool | None] = []
    for n, statement in enumerate(item["statements"], start=1):
        where = f"statement {n} ({statement['type']})"
        program = statement["program"]
        try:
            label = decide(program, ctx)
        except Undecidable as exc:
            problems.append(f"{where}: undecidable: {exc}")
            labels.append(None)
            continue
        labels.append(label)
        if label != statement["label"]:
            problems.append(f"{where}: stored label {statement['label']}, program gives {label}")
        for path in hops(program):
            if not hop_necessary(program, path, ctx):
                problems.append(f"{where}: hop {'/'.join(map(str, path))} is not necessary")
        if _held_open(statement, label, version):
            problems += [f"{where}: its label is readable without the {modality}"
                         for modality in readable_without(program, ctx)]
    stored = [i + 1 for i, s in enumerate(item["statements"]) if s["label"]]
    if item["answer"] != stored:
        problems.append(f"answer {item['answer']} does not match the labels {stored}")
    if None not in labels:
        proved = [i + 1 for i, label in enumerate(labels) if label]
        if proved != item["answer"]:
            problems.append(f"answer {item['answer']} but the programs prove {proved}")
    return problems


def _held_open(statement: dict[str, Any], label: bool, version: int) -> bool:
    """Whether a statement (of label ``label``) of a dataset of format ``version`` must keep
    its label open with each modality withheld."""
    if version >= SHARED_FACT_FORMAT:
        return True
    if version >= LABEL_OPEN_FORMAT:
        return label or statement["type"] not in LABEL_DECIDABLE_FALSE
    return version >= LABEL_NECESSITY_FORMAT and \
        statement["program"]["select"].get("op") == "rk_when"


def hop_necessary(program: dict[str, Any], path: tuple[Any, ...], ctx: Context) -> bool:
    """Whether the hop at ``path`` is needed (docs/format.md, section 3.7). For entity and
    fact claims the program without it must be undecidable. An ``only`` claim always has a
    label, so there the remaining hops must pick the claimed entity and another one: the
    dropped hop is then what decides whether the claimed entity is the only one."""
    dropped = drop(program, path)
    claim = program.get("claim") or {}
    try:
        if "only" in claim:
            picked = picked_by(dropped["select"], ctx)
            return claim["only"] in picked and len(picked) >= 2
        decide(dropped, ctx)
    except Undecidable:
        return True
    return False


def readable_without(program: dict[str, Any], ctx: Context) -> list[str]:
    """The modalities (of those the program reads) without which only one label is possible
    (docs/format.md, section 3.8). A program whose claim or bounds cannot be computed gives
    none: the label check reports it."""
    claim = program.get("claim") or {}
    readable = []
    try:
        if "fact" in claim:
            targets = picked_by(claim["fact"], ctx)
            if not targets:
                return []
        else:
            named = claim.get("only", claim.get("entity"))
            if not isinstance(named, str):
                return []
            targets = frozenset({named})
        for modality in modalities(program):
            must, may = bounds(program["select"], ctx, modality)
            if "fact" in claim and modality == "text":
                can_be_true = any(x in may and must <= {x} for x in ctx.entities)
                can_be_false = True
            else:
                can_be_true = any(x in may and must <= {x} for x in targets)
                can_be_false = not (must == may and len(must) == 1 and must <= targets)
            if not (can_be_true and can_be_false):
                readable.append(modality)
    except (Undecidable, KeyError, TypeError, ValueError, IndexError, ArithmeticError):
        return []
    return readable


def check_chart_needed(item: dict[str, Any], identities: list[Identity],
                       related: list[list[str]] | None = None) -> list[str]:
    """The chart column cannot be derived from the table (by an identity, a related column of
    the pack, or a linear relation the data shown obey:
    :func:`hopvista.program.derivation.derivation`, or a product or ratio of one or two
    columns: :func:`hopvista.program.ratios.product_relation`), and no text states its values
    (as numbers: :mod:`hopvista.program.stated_numbers`, in the text as a reader sees it:
    :func:`hopvista.reading.as_read`)."""
    chart = item["inputs"]["chart"]
    column = chart["column"]["key"]
    table = {c["key"] for c in item["inputs"]["table"]["columns"]}
    problems = []
    if column in derivable_closure(table, identities):
        problems.append(f"chart column {column!r} can be derived from the table's columns")
    for group in related or []:
        if column in group and table & set(group) - {column}:
            problems.append(f"chart column {column!r} is related to table column(s) "
                            f"{sorted(table & set(group) - {column})} (pack 'related')")
    precision = chart["column"]["precision"]
    relation = _shown_relation(item)
    if relation is not None:
        problems.append(f"chart column {column!r} follows from the table in the data shown: "
                        f"{relation.formula(column)} (within rounding)")
    shown = {parse_number(v): v for s in chart["series"] for v in s["values"]}
    for text in item["inputs"]["text"]:
        read = as_read(text["text"])
        stated = sorted(shown[v] for v in stated_values(read, shown, precision))
        if stated:
            problems.append(f"text chunk {text['chunk']} states chart values {stated}")
    return problems


def _shown_relation(item: dict[str, Any]) -> Relation | Product | None:
    """The linear relation, or else the product or ratio, by which the table's columns give
    the chart in the rows the chart shows, if any; none where a chart cell has no table row
    or a series is not one value a year (the consistency check reports those). A column's
    precision is the one it declares, else the decimals it shows."""
    chart = item["inputs"]["chart"]
    table = item["inputs"]["table"]
    rows = {(r["entity"], r["year"]): r["values"] for r in table["rows"]}
    if any(len(s["values"]) != len(chart["years"]) for s in chart["series"]):
        return None
    cells = [(s["entity"], year, value) for s in chart["series"]
             for year, value in zip(chart["years"], s["values"], strict=True)]
    if any((entity, year) not in rows for entity, year, _ in cells):
        return None
    target = [parse_number(value) for _, _, value in cells]
    columns = {c["key"]: [parse_number(rows[(entity, year)][c["key"]])
                          for entity, year, _ in cells] for c in table["columns"]}
    places = {c["key"]: c["precision"] if isinstance(c.get("precision"), int)
              else max(_decimals(rows[(entity, year)][c["key"]]) for entity, year, _ in cells)
              for c in table["columns"]}
    groups = [entity for entity, _, _ in cells]
    precision = chart["column"]["precision"]
    return derivation(target, columns, precision, places, groups) or \
        product_relation(target, columns, precision, places, groups)


def _decimals(text: str) -> int:
    """How many decimals a displayed number shows."""
    _, point, fraction = str(text).partition(".")
    return len(fraction) if point else 0


def related_groups(config: dict[str, Any]) -> list[list[str]]:
    """The manifest's ``config.related`` groups (none when absent or malformed: the identities
    and the data check still apply)."""
    groups = config.get("related")
    if not isinstance(groups, list):
        return []
    return [list(g) for g in groups
            if isinstance(g, list) and all(isinstance(c, str) for c in g)]


#: Numbers written in words that may state a value (one to ten state nothing: a value needs
#: two significant digits).
_NUMBER_WORDS = re.compile(
    r"\b(eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|"
    r"thirty|forty|fifty|sixty|seventy|eighty|ninety|hundreds?|thousands?|millions?|"
    r"billions?|trillions?)\b", re.IGNORECASE)
#: A number in digits followed by a scale word, and the power of ten of each scale word.
_SCALED = re.compile(r"\d(?:[\d.,]*\d)?\s?(thousand|million|billion|trillion|mln|mn|bn|tn)\b",
                     re.IGNORECASE)
_POWERS = {"thousand": 3, "million": 6, "mln": 6, "mn": 6, "billion": 9, "bn": 9,
           "trillion": 12, "tn": 12}
_UNIT_SCALE = re.compile(r"\b(thousand|million|billion|trillion)s?\b", re.IGNORECASE)


def numbers_not_read(item: dict[str, Any]) -> str | None:
    """The first number a text chunk writes that the chart-need check cannot read as a chart
    value (``None``: none): a number in words ("two thousand"), or one whose scale word is not
    the chart unit's ("2.1 billion" beside a chart in millions)."""
    unit = str(item["inputs"]["chart"]["column"].get("unit") or "")
    scale = _UNIT_SCALE.search(unit)
    power = _POWERS[scale.group(1).lower()] if scale is not None else None
    for chunk in item["inputs"]["text"]:
        text = as_read(chunk["text"])
        for found in _SCALED.finditer(text):
            if power is not None and _POWERS[found.group(1).lower()] != power:
                return found.group()
        for found in _NUMBER_WORDS.finditer(text):
            before = text[:found.start()].rstrip()
            if not (before[-1:].isdigit() and found.group(1).lower() in _POWERS):
                return found.group()
    return None
