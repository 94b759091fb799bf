"""The proofs of ``gen verify`` for one item: labels, presuppositions, hop necessity, answer,
and that the chart is needed. They use only the independent executor and the item's inputs."""

from __future__ import annotations

from typing import Any

from hopvista.derivation import derivation
from hopvista.domain import Identity, derivable_closure
from hopvista.verify.executor import (
    Context,
    Undecidable,
    best,
    decide,
    drop,
    hops,
    parse_number,
    select,
)

#: The first format whose builds keep every "during the years when" label open without the
#: table; older datasets were made before that rule and are not held to it.
LABEL_NECESSITY_FORMAT = 3


def check_item(item: dict[str, Any], ctx: Context, version: int = LABEL_NECESSITY_FORMAT
               ) -> list[str]:
    """Problems with one item: labels re-derived, presuppositions, hop necessity (on the
    selection, and on the label for datasets of format ``version`` >= 3), answer."""
    problems = []
    labels: list[bool | None] = []
    for n, statement in enumerate(item["statements"], start=1):
        where = f"statement {n} ({statement['type']})"
        try:
            label = decide(statement["program"], ctx)
        except Undecidable as exc:
            problems.append(f"{where}: undecidable: {exc}")
            labels.append(None)
            continue
        labels.append(label)
        if label != statement["label"]:
            problems.append(f"{where}: stored label {statement['label']}, program gives {label}")
        for path in hops(statement["program"]):
            try:
                decide(drop(statement["program"], path), ctx)
            except Undecidable:
                continue
            problems.append(f"{where}: hop {'/'.join(map(str, path))} is not necessary")
        problem = rank_when_label_open(statement["program"], ctx) \
            if version >= LABEL_NECESSITY_FORMAT else None
        if problem is not None:
            problems.append(f"{where}: {problem}")
    stored = [i + 1 for i, s in enumerate(item["statements"]) if s["label"]]
    if item["answer"] != stored:
        problems.append(f"answer {item['answer']} does not match the labels {stored}")
    if None not in labels:
        proved = [i + 1 for i, label in enumerate(labels) if label]
        if proved != item["answer"]:
            problems.append(f"answer {item['answer']} but the programs prove {proved}")
    return problems


def rank_when_label_open(program: dict[str, Any], ctx: Context) -> str | None:
    """Why a "during the years when" statement's label can be read without the table, or
    ``None``: the entity it claims (or the owner of the fact it attributes) must clearly win
    the chart in some year, else no table makes it true (issue 9, label necessity)."""
    node, claim = program["select"], program["claim"]
    if node.get("op") != "rk_when":
        return None
    try:
        if "entity" in claim:
            target = claim["entity"]
        else:
            owners = select(claim["fact"], ctx)
            if len(owners) != 1:
                return None  # reported by the label check
            (target,) = owners
        for year in ctx.years:
            scores = {e: ctx.point(e, node["column"], year) for e in ctx.entities}
            try:
                if best(ctx, scores, node["order"], ctx.rank_gap) == target:
                    return None
            except Undecidable:
                continue
    except (Undecidable, KeyError, TypeError, ValueError):
        return None  # a malformed program is reported by the label check
    return "its label is readable without the table: the entity it claims wins the chart " \
           "in no year"


def check_chart_needed(item: dict[str, Any], identities: list[Identity],
                       related: list[list[str]] | None = None) -> list[str]:
    """The chart column cannot be derived from the table (by an identity, a related column of
    the pack, or the data shown), and no text states its values."""
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
    rows = item["inputs"]["table"]["rows"]
    entities = [s["entity"] for s in chart["series"]]
    target = [parse_number(v) for s in chart["series"] for v in s["values"]]
    shown_columns = {c: [parse_number(r["values"][c]) for e in entities
                         for r in rows if r["entity"] == e and r["year"] in chart["years"]]
                     for c in table}
    found = derivation(target, shown_columns, chart["column"]["precision"])
    if found is not None:
        formula = " ".join(f"{'+' if s > 0 else '-'} {c}" for s, c in found)
        problems.append(f"chart column {column!r} equals {formula} in the data shown")
    shown = {v for s in chart["series"] for v in s["values"] if abs(parse_number(v)) >= 10}
    for text in item["inputs"]["text"]:
        stated = sorted(v for v in shown if v in text["text"])
        if stated:
            problems.append(f"text chunk {text['chunk']} states chart values {stated}")
    return problems


def related_groups(config: dict[str, Any]) -> list[list[str]]:
    """The manifest's ``config.related`` groups (none when absent or malformed: the identities
    and the data check still apply)."""
    groups = config.get("related")
    if not isinstance(groups, list):
        return []
    return [list(g) for g in groups
            if isinstance(g, list) and all(isinstance(c, str) for c in g)]
