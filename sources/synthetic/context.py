"""What the macros see: ``c`` (the company) and ``m`` (one MD&A figure, as displayed)."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from hopvista.sources.synthetic.facts import FactSpec
from hopvista.sources.synthetic.formatting import TENTH, money, ratio, shown
from hopvista.sources.synthetic.plan import Figure
from hopvista.sources.synthetic.profiles import Profile

Figures = dict[str, list[Decimal]]


def company_context(name: str, profile: Profile, facts: dict[str, FactSpec], figs: Figures,
                    periods: list[int]) -> dict[str, Any]:
    """The ``c`` of every macro (its fields are listed in the contract)."""
    ind = profile.industry
    words = ind.words
    sales_up = figs["sale"][-1] >= figs["sale"][-2]
    segments: list[str] = facts["segments"].f["names"]
    return {
        "name": name, "year": periods[-1], "prev_year": periods[-2], "first_year": periods[0],
        "industry": ind.label.lower(), "business_we": words.business_we,
        "business_3p": words.business_3p, "market": words.market,
        "customers": words.customers, "offering": words.offering, "inputs": words.inputs,
        "competitors": words.competitors, "facilities": ind.facilities, "seg": segments,
        "seg1": segments[0], "seg2": segments[1], "domestic": ind.foreign is None,
        "payer": profile.payer, "sector": ind.key, "sales_up": sales_up,
    }


def figure_context(figs: Figures, columns: tuple[str, ...], periods: list[int]) -> dict[str, Any]:
    """The ``m`` of a figure macro: last year vs the year before, as displayed."""
    series = figs[columns[0]]
    cur, prev = shown(series[-1]), shown(series[-2])
    diff = cur - prev
    pct = ""
    if prev > 0 and cur > 0:
        pct = f"{abs(diff / prev * 100).quantize(TENTH, rounding=ROUND_HALF_UP)}%"
    flat = diff == 0 or pct == "0.0%"
    up = diff > 0
    word = "increased" if up else "decreased"
    if flat:
        moved_to, change = "remained essentially unchanged at", "essentially unchanged"
    elif pct:
        moved_to = f"{word} {pct} to"
        change = f"an increase of {pct}" if up else f"a decrease of {pct}"
    else:
        moved_to = f"{word} by {money(diff)} to"
        change = f"an increase of {money(diff)}" if up else f"a decrease of {money(diff)}"
    this_ratio = prev_ratio = other = ""
    if len(columns) > 1 and columns[1] in figs:
        den = figs[columns[1]]
        this_ratio = ratio(cur, shown(den[-1]))
        prev_ratio = ratio(prev, shown(den[-2]))
        other = money(den[-1])
    return {
        "cur": money(cur), "prev": money(prev), "neg": cur < 0, "prev_neg": prev < 0,
        "zero": cur == 0, "diff": money(diff), "pct": pct, "up": up, "flat": flat,
        "moved_to": moved_to, "change": change, "ratio": this_ratio, "prev_ratio": prev_ratio,
        "other": other,
        "year": periods[-1], "prev_year": periods[-2],
    }


def figure_set(figs: Figures, figures: dict[str, Figure],
               periods: list[int]) -> dict[str, dict[str, Any]]:
    """The ``m`` of every figure that applies to this company (by figure name)."""
    out: dict[str, dict[str, Any]] = {}
    for name, figure in figures.items():
        series = figs[figure.columns[0]]
        if figure.positive and (series[-1] <= 0 or series[-2] <= 0):
            continue
        out[name] = figure_context(figs, figure.columns, periods)
    return out
