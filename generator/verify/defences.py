"""The proxy-agreement axis, re-checked from each item alone.

A statement of a build with the defences on records, for each modality a proxy stands in for
(the chart, the table), the straight lines a solver without that modality imputes it with
and the label its program then gives (docs/format.md, "Proxy readings"). The verifier reads
the program again through the recorded lines, checks that the plan's ``agree`` demand holds,
and (in :mod:`hopvista.verify.balance`) that the demands are balanced.
"""

from __future__ import annotations

from typing import Any

from hopvista.program.statement_types import proxied
from hopvista.program.withheld import recorded_reading


def _chart_shows_every_period(item: dict[str, Any]) -> bool:
    """Whether the stored chart has every period of the table (a chart kind may show fewer;
    the readings were taken on the full chart)."""
    inputs = item["inputs"]
    years = {int(row["year"]) for row in inputs["table"]["rows"]}
    return {int(y) for y in inputs["chart"]["years"]} == years


def check_proxies(item: dict[str, Any], defences: bool) -> list[str]:
    """Problems with an item's proxy readings: missing (with the defences on), naming
    columns the item does not show, not re-derivable, or contradicting the plan's demand."""
    problems: list[str] = []
    plan = item["provenance"].get("plan") or {}
    agree = plan.get("agree")
    if defences and not isinstance(agree, list):
        return ["provenance.plan has no 'agree' axis, but the build's defences are on"]
    table_columns = {c["key"] for c in item["inputs"]["table"]["columns"]}
    rereadable = _chart_shows_every_period(item)
    waived = item["provenance"].get("agree_waived") is True
    for n, statement in enumerate(item["statements"], start=1):
        where = f"statement {n} ({statement['type']})"
        record = statement.get("proxy") or {}
        wanted = set(proxied(statement["modalities"]))
        if defences and set(record) != wanted:
            problems.append(f"{where}: proxy readings of {sorted(record)}, expected "
                            f"{sorted(wanted)}")
            continue
        unknown = {k for r in record.values() for k in r["lines"]} - table_columns
        if unknown:
            problems.append(f"{where}: proxy lines name columns the table does not show: "
                            f"{', '.join(sorted(unknown))}")
            continue
        demand = agree[n - 1] if isinstance(agree, list) and n <= len(agree) else {}
        for modality, reading in sorted(record.items()):
            label = reading["label"]
            if rereadable:
                again = recorded_reading(item, statement, modality)
                if again != label:
                    problems.append(f"{where}: the proxy without the {modality} gives "
                                    f"{again}, the item records {label}")
            if waived:
                continue  # built without the demands (the manifest counts these)
            want = demand.get(modality) if isinstance(demand, dict) else None
            if defences and want is None:
                problems.append(f"{where}: the plan sets no agreement for the {modality}")
            elif want is not None and label is not None and \
                    (label == statement["label"]) != want:
                problems.append(f"{where}: the proxy without the {modality} must "
                                f"{'agree' if want else 'disagree'} with the label, but "
                                f"gives {label}")
    return problems
