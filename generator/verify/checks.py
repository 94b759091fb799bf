"""Dataset-level checks of ``gen verify``: every item re-proved, balance, file hashes."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from itertools import combinations, permutations
from pathlib import Path
from typing import Any

from hopvista.derivation import derivation
from hopvista.domain import derivable_closure, parse_identity
from hopvista.errors import UserError
from hopvista.outdir import DATASET_FORMAT
from hopvista.pipeline import FORMAT_VERSION
from hopvista.plan import slot_groups
from hopvista.preview import PREVIEW_NAME
from hopvista.verify.executor import Context, Undecidable, decide, drop, hops, parse_number

LEVEL_MODALITIES = {1: 1, 2: 2, 3: 3}
ALL_ANSWERS = [list(c) for r in range(4) for c in combinations((1, 2, 3), r)]


def check_item(item: dict[str, Any], ctx: Context) -> list[str]:
    """Problems with one item: labels, presuppositions, hop necessity, answer, modalities."""
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
        if len(statement["modalities"]) != item["hops"] or \
                len(statement["type"].split("+")) != item["hops"]:
            problems.append(f"{where}: does not have {item['hops']} hops")
    stored = [i + 1 for i, s in enumerate(item["statements"]) if s["label"]]
    if item["answer"] != stored:
        problems.append(f"answer {item['answer']} does not match the labels {stored}")
    if None not in labels:
        proved = [i + 1 for i, label in enumerate(labels) if label]
        if proved != item["answer"]:
            problems.append(f"answer {item['answer']} but the programs prove {proved}")
    return problems


def check_chart_needed(item: dict[str, Any], identities: list[Any]) -> list[str]:
    """The chart column cannot be derived from the table, and no text states its values."""
    chart = item["inputs"]["chart"]
    column = chart["column"]["key"]
    table = {c["key"] for c in item["inputs"]["table"]["columns"]}
    problems = []
    if column in derivable_closure(table, identities):
        problems.append(f"chart column {column!r} can be derived from the table's columns")
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


def check_balance(items: list[dict[str, Any]],
                  available: tuple[str, ...] | None = None) -> list[str]:
    """The plan's guarantees: answer sets (overall and per level), modality orders per level
    and types sharing a modality slot, each equal ±1."""
    problems = []

    def spread(name: str, counts: Counter[Any], universe: list[Any]) -> None:
        values = [counts.get(k, 0) for k in universe]
        if values and max(values) - min(values) > 1:
            shown = {", ".join(map(str, k)) if isinstance(k, tuple) else k: counts.get(k, 0)
                     for k in universe}
            problems.append(f"{name} not balanced: {shown}")

    universe = [tuple(a) for a in ALL_ANSWERS]
    spread("answer sets", Counter(tuple(item["answer"]) for item in items), universe)
    for level in sorted({item["hops"] for item in items}):
        at = [item for item in items if item["hops"] == level]
        spread(f"level {level} answer sets", Counter(tuple(i["answer"]) for i in at), universe)
        groups = slot_groups(level, available)
        if len(groups) == 3:
            orders = Counter(tuple("+".join(s["modalities"]) for s in item["statements"])
                             for item in at)
            spread(f"level {level} modality orders", orders, list(permutations(groups)))
        for group, names in groups.items():
            types = Counter(s["type"] for item in at for s in item["statements"]
                            if "+".join(s["modalities"]) == group)
            spread(f"level {level} types in slot {group}", types, names)
    return problems


def check_files(root: Path, manifest: dict[str, Any]) -> list[str]:
    """Every file listed in the manifest exists with its sha256; no file is unlisted."""
    problems = []
    listed = manifest.get("files", {})
    for name, digest in listed.items():
        path = root / name
        if not path.is_file():
            problems.append(f"{name}: listed in manifest.json but missing")
            continue
        actual = hashlib.sha256(path.read_bytes()).hexdigest()
        if actual != digest:
            problems.append(f"{name}: sha256 {actual[:12]}… differs from manifest {digest[:12]}…")
    for path in sorted(root.rglob("*")):
        name = path.relative_to(root).as_posix()
        if path.is_file() and name not in ("manifest.json", PREVIEW_NAME) and name not in listed:
            problems.append(f"{name}: not listed in manifest.json")
    return problems


def verify_dataset(root: Path) -> tuple[int, list[str]]:
    """Re-prove a dataset folder. Returns (items checked, problems, each naming its item)."""
    try:
        manifest = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserError(f"{root}: no manifest.json (not a hopvista dataset)") from None
    except ValueError as exc:
        raise UserError(f"{root / 'manifest.json'}: not valid JSON: {exc}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != DATASET_FORMAT:
        raise UserError(f"{root / 'manifest.json'}: not a hopvista dataset manifest")
    if manifest.get("format_version") != FORMAT_VERSION:
        raise UserError(f"{root / 'manifest.json'}: format_version "
                        f"{manifest.get('format_version')!r} is not supported "
                        f"(this hopvista reads {FORMAT_VERSION})")
    problems = check_files(root, manifest)
    try:
        config = manifest["config"]
        identities = [parse_identity(text) for text in config["identities"]]
        decide_cfg = config["decidability"]
        margins = (float(decide_cfg["min_rank_gap"]), float(decide_cfg["min_trend_step"]))
        types = config.get("types")
    except (KeyError, TypeError, ValueError) as exc:
        raise UserError(f"{root / 'manifest.json'}: malformed config: "
                        f"{type(exc).__name__}: {exc}") from None
    try:
        lines = (root / "items.jsonl").read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise UserError(f"{root}: no items.jsonl") from None
    except UnicodeDecodeError as exc:
        raise UserError(f"{root / 'items.jsonl'}: not UTF-8 text ({exc.reason})") from None
    items = []
    for number, line in enumerate(lines, start=1):
        try:
            item = json.loads(line)
        except ValueError as exc:
            problems.append(f"items.jsonl:{number}: not valid JSON: {exc}")
            continue
        if not isinstance(item, dict):
            problems.append(f"items.jsonl:{number}: not an item (a JSON object)")
            continue
        try:
            found = check_item(item, Context(item, *margins))
            found += check_chart_needed(item, identities)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
            found = [f"malformed item: {type(exc).__name__}: {exc}"]
        else:
            items.append(item)  # only well-formed items enter the balance check
        for problem in found:
            problems.append(f"item {item.get('id', f'on line {number}')}: {problem}")
    problems += check_balance(items, tuple(types) if types is not None else None)
    return len(lines), problems
