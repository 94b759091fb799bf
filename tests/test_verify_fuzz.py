"""``gen verify`` against a corpus of named corruptions, each followed by a consistent forgery.

A forger edits the dataset, then makes everything else agree with the edit: the Parquet rows
are rewritten from the edited items, the manifest's counts and shares are recomputed, and
every sha256 in ``manifest.json`` is recomputed for the files that exist. Verify must still
exit non-zero, print no traceback, print each problem as one ``WHERE: WHAT`` line, and name
the problem the corruption planted (``expect``), so no corruption passes by accident.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from hopvista.cli.main import main
from hopvista.program.executor import Context, Undecidable, decide, parse_number, select
from hopvista.verify import verify_into
from hopvista.verify.balance import Tally, shares
from hopvista.verify.manifest import Expect, expectations
from hopvista.verify.wording import Wording, check_wording, judge_wording

SEED, COUNT = 3, 6
PROBLEM_LINE = re.compile(
    r"^(item [^:]+|items\.jsonl(:\d+)?|data[^:]*|manifest\.json|images/[^:]+|balance|dataset"
    r"|[\w.-]+(/[\w.-]+)*): \S")


# --------------------------------------------------------------------------------------------
# building and forging


def _build(out: Path, *args: str) -> Path:
    assert main(["build", "financial", "-n", str(COUNT), "--seed", str(SEED), "--out", str(out),
                 *args]) == 0
    return out


@pytest.fixture(scope="session")
def plain_base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A --no-images build (the quick tier's dataset)."""
    return _build(tmp_path_factory.mktemp("verify-plain") / "ds", "--no-images")


@pytest.fixture(scope="session")
def image_base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A build with table and chart images."""
    return _build(tmp_path_factory.mktemp("verify-images") / "ds")


def _image_value(root: Path, name: str) -> dict[str, Any] | None:
    path = root / name
    return {"bytes": path.read_bytes(), "path": Path(name).name} if path.is_file() else None


def _row(item: dict[str, Any], root: Path) -> dict[str, Any]:
    """A Parquet row as the exporter writes it, from whatever the (edited) item holds."""
    listed = [i for i in item.get("images") or [] if isinstance(i, dict)]
    statements = item.get("statements")
    answer = item.get("answer")
    variant = item.get("variant")
    return {
        **{k: item.get(k) for k in ("id", "base_id", "domain", "kind", "difficulty", "hops",
                                    "entities", "question", "answer_type")},
        "variant": variant.get("name") if isinstance(variant, dict) else None,
        "statements": [{k: s.get(k) for k in ("text", "label", "type")} for s in statements]
        if isinstance(statements, list) else statements,
        "answer": (", ".join(map(str, answer)) or "none") if isinstance(answer, list)
        else answer,
        "images": [_image_value(root, str(i.get("path"))) for i in listed],
        "image_roles": [i.get("role") for i in listed],
        "item_json": json.dumps(item, ensure_ascii=False, separators=(",", ":")),
    }


@dataclass
class Dataset:
    """A copy of a built dataset that a test corrupts and forges."""

    root: Path

    def items(self) -> list[dict[str, Any]]:
        """The items, parsed."""
        return [json.loads(line) for line in
                (self.root / "items.jsonl").read_text(encoding="utf-8").splitlines()]

    def manifest(self) -> dict[str, Any]:
        """manifest.json, parsed."""
        return dict(json.loads((self.root / "manifest.json").read_text(encoding="utf-8")))

    def save_manifest(self, manifest: dict[str, Any]) -> None:
        """Write manifest.json as given (no rehash)."""
        (self.root / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")

    def rehash(self) -> None:
        """The forger's last step: every listed file that exists gets its current sha256."""
        manifest = self.manifest()
        files = manifest.get("files")
        if isinstance(files, dict):
            for name in files:
                path = self.root / name
                if path.is_file():
                    files[name] = hashlib.sha256(path.read_bytes()).hexdigest()
        self.save_manifest(manifest)

    def list_file(self, name: str) -> None:
        """Add a file to manifest.json's ``files`` (the hash comes with :meth:`rehash`)."""
        manifest = self.manifest()
        manifest["files"][name] = "0" * 64
        self.save_manifest(manifest)

    def write_parquet(self, items: list[dict[str, Any]]) -> None:
        """Rewrite the one shard from ``items`` (skipped where the items cannot be typed)."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        shard = self.root / "data" / "test-00000-of-00001.parquet"
        schema = pq.read_schema(shard)
        try:
            table = pa.Table.from_pylist([_row(i, self.root) for i in items], schema=schema)
        except (pa.ArrowException, TypeError, ValueError, AttributeError):
            return
        pq.write_table(table, shard, compression="zstd")

    def recount(self, items: list[dict[str, Any]]) -> None:
        """Make counts and shares agree with ``items`` (where they are well formed)."""
        manifest = self.manifest()
        tally = Tally()
        try:
            for item in items:
                tally.add(item)
        except (KeyError, TypeError, AttributeError, IndexError):
            return
        manifest["counts"] = {"items": len(items), "statements": tally.statements,
                              "images": tally.images}
        manifest["shares"] = shares(tally)
        self.save_manifest(manifest)

    def save(self, items: list[dict[str, Any]]) -> None:
        """A consistent forgery of edited items: items.jsonl, Parquet, counts, shares, hashes."""
        (self.root / "items.jsonl").write_text("".join(
            json.dumps(i, ensure_ascii=False, separators=(",", ":")) + "\n" for i in items),
            encoding="utf-8")
        self.write_parquet(items)
        self.recount(items)
        self.rehash()

    def save_lines(self, data: bytes) -> None:
        """Replace items.jsonl with raw bytes and fix the hashes (Parquet left as built)."""
        (self.root / "items.jsonl").write_bytes(data)
        self.rehash()


# --------------------------------------------------------------------------------------------
# helpers for forgeries that keep labels provable


def _context(item: dict[str, Any]) -> Context:
    return Context(item, 0.03, 0.03)


def _relabel(item: dict[str, Any], n: int) -> None:
    """Give statement ``n`` the label its (edited) program proves, and make the answer,
    distractor and plan agree: a forgery the executor cannot catch."""
    ctx = _context(item)
    statement = item["statements"][n]
    label = decide(statement["program"], ctx)
    statement["label"] = label
    (picked,) = select(statement["program"]["select"], ctx)
    claim = statement["program"]["claim"]
    claimed = claim.get("entity") or next(
        e for e in ctx.entities if e in select(claim["fact"], ctx))
    statement["distractor"] = None if label else {"replaces": picked, "with": claimed}
    item["answer"] = [i + 1 for i, s in enumerate(item["statements"]) if s["label"]]
    item["provenance"]["plan"]["answer"] = item["answer"]


def _find(items: list[dict[str, Any]],
          test: Callable[[dict[str, Any]], bool]) -> list[tuple[int, int]]:
    found = [(i, n) for i, item in enumerate(items)
             for n, s in enumerate(item["statements"]) if test(s)]
    assert found, "the fixture dataset has no statement this forgery needs"
    return found


def _decidable(item: dict[str, Any], n: int) -> bool:
    try:
        decide(item["statements"][n]["program"], _context(item))
    except Undecidable:
        return False
    return True


# --------------------------------------------------------------------------------------------
# the corpus

Mutation = Callable[[Dataset], None]
PLAIN: dict[str, tuple[Mutation, str]] = {}
IMAGES: dict[str, tuple[Mutation, str]] = {}


def mutation(expect: str, corpus: dict[str, tuple[Mutation, str]] = PLAIN
             ) -> Callable[[Mutation], Mutation]:
    """Register a corruption; ``expect`` must occur in one of the problem lines."""
    def register(function: Mutation) -> Mutation:
        corpus[function.__name__] = (function, expect)
        return function
    return register


def _edit(ds: Dataset, change: Callable[[list[dict[str, Any]]], None]) -> None:
    items = ds.items()
    change(items)
    ds.save(items)


@mutation("malformed item: 0 statement(s)")
def zero_statements(ds: Dataset) -> None:
    def change(items: list[dict[str, Any]]) -> None:
        items[0]["statements"], items[0]["answer"] = [], []
        items[0]["provenance"]["plan"].update(answer=[], types=[], order=[])
    _edit(ds, change)


@mutation("malformed item: 1 statement(s)")
def one_statement(ds: Dataset) -> None:
    def change(items: list[dict[str, Any]]) -> None:
        items[1]["statements"] = items[1]["statements"][:1]
        items[1]["answer"] = [1] if items[1]["statements"][0]["label"] else []
    _edit(ds, change)


@mutation("id is not 'financial-s3-000000.base'")
def swapped_ids(ds: Dataset) -> None:
    def change(items: list[dict[str, Any]]) -> None:
        first, second = items[0], items[1]
        first["id"], second["id"] = second["id"], first["id"]
        first["base_id"], second["base_id"] = second["base_id"], first["base_id"]
    _edit(ds, change)


@mutation("duplicate id")
def duplicate_id(ds: Dataset) -> None:
    def change(items: list[dict[str, Any]]) -> None:
        items[2]["id"], items[2]["base_id"] = items[1]["id"], items[1]["base_id"]
    _edit(ds, change)


@mutation("counts.items 6 but items.jsonl has 0 line(s)")
def empty_items_file(ds: Dataset) -> None:
    (ds.root / "items.jsonl").write_text("")
    ds.write_parquet([])
    ds.rehash()


@mutation("program gives")
def flipped_label(ds: Dataset) -> None:
    def change(items: list[dict[str, Any]]) -> None:
        statement = items[3]["statements"][1]
        statement["label"] = not statement["label"]
        items[3]["answer"] = [i + 1 for i, s in enumerate(items[3]["statements"]) if s["label"]]
    _edit(ds, change)


@mutation("does not mention the claimed entity")
def claim_another_entity(ds: Dataset) -> None:
    """Claim another entity and relabel so that the label still re-proves."""
    items = ds.items()
    i, n = _find(items, lambda s: "entity" in s["program"]["claim"])[0]
    claim = items[i]["statements"][n]["program"]["claim"]
    claim["entity"] = next(e["id"] for e in items[i]["entities"] if e["id"] != claim["entity"])
    _relabel(items[i], n)
    ds.save(items)


@mutation("does not mention the threshold")
def flipped_comparison(ds: Dataset) -> None:
    """``>`` becomes ``<`` with a new midpoint threshold, label kept: the program is valid and
    provable, but the text still says the old comparison and number."""
    items = ds.items()
    i, n = _find(items, lambda s: s["program"]["select"]["op"] == "ct")[0]
    item, statement = items[i], items[i]["statements"][n]
    node = statement["program"]["select"]
    node["cmp"] = "<" if node["cmp"] == ">" else ">"
    row_values = {r["entity"]: parse_number(r["values"][node["column"]])
                  for r in item["inputs"]["table"]["rows"] if r["year"] == node["year"]}
    ranked = sorted(row_values.values(), reverse=node["cmp"] == ">")
    node["threshold"] = format((ranked[0] + ranked[1]) / Decimal(2), "f")
    (picked,) = select(node, _context(item))
    if "entity" in statement["program"]["claim"]:
        others = [e for e in row_values if e != picked]
        statement["program"]["claim"]["entity"] = picked if statement["label"] else others[0]
    _relabel(item, n)
    ds.save(items)


@mutation("does not mention the comparison")
def text_says_the_other_comparison(ds: Dataset) -> None:
    def change(items: list[dict[str, Any]]) -> None:
        i, n = _find(items, lambda s: " greater than " in s["text"])[0]
        statement = items[i]["statements"][n]
        old = statement["text"]
        statement["text"] = old.replace(" greater than ", " less than ")
        items[i]["question"] = items[i]["question"].replace(old, statement["text"])
    _edit(ds, change)


@mutation("the fact's")
def swapped_fact_needle(ds: Dataset) -> None:
    """A fact claim now names another statement's fact; the label is recomputed."""
    items = ds.items()
    for i, n in _find(items, lambda s: "fact" in s["program"]["claim"]):
        claim = items[i]["statements"][n]["program"]["claim"]["fact"]
        needles = [s["program"]["claim"]["fact"]["needle"] for s in items[i]["statements"]
                   if "fact" in s["program"]["claim"]]
        other = next((x for x in needles if x != claim["needle"]), None)
        if other is not None:
            claim["needle"] = other
            _relabel(items[i], n)
            ds.save(items)
            return
    raise AssertionError("no item with two fact claims")


@mutation("is not a")
def text_with_another_noun(ds: Dataset) -> None:
    """Only the pack's nouns render: a word the pack never uses is a re-worded statement."""
    def change(items: list[dict[str, Any]]) -> None:
        for i, n in _find(items, lambda s: re.search(r"\bThe (company|firm|business)\b",
                                                     s["text"]) is not None)[:1]:
            statement = items[i]["statements"][n]
            old = statement["text"]
            statement["text"] = re.sub(r"\bThe (company|firm|business)\b", "The bank", old,
                                       count=1)
            items[i]["question"] = items[i]["question"].replace(old, statement["text"])
    _edit(ds, change)


@mutation("question is not the pack's question")
def question_reworded(ds: Dataset) -> None:
    def change(items: list[dict[str, Any]]) -> None:
        items[0]["question"] = items[0]["question"].replace("Which", "Which one")
    _edit(ds, change)


@mutation("does not match the labels")
def wrong_answer(ds: Dataset) -> None:
    def change(items: list[dict[str, Any]]) -> None:
        items[2]["answer"] = [1, 2, 3] if items[2]["answer"] != [1, 2, 3] else []
        items[2]["provenance"]["plan"]["answer"] = items[2]["answer"]
    _edit(ds, change)


@mutation("does not have")
def hops_and_difficulty_changed(ds: Dataset) -> None:
    def change(items: list[dict[str, Any]]) -> None:
        item = next(i for i in items if i["hops"] == 3)
        item["hops"], item["difficulty"] = 2, "medium"
        item["provenance"]["plan"]["level"] = 2
    _edit(ds, change)


@mutation("difficulty 'easy' does not match hops")
def difficulty_mismatch(ds: Dataset) -> None:
    def change(items: list[dict[str, Any]]) -> None:
        next(i for i in items if i["hops"] == 3)["difficulty"] = "easy"
    _edit(ds, change)


@mutation("domain 'materials' is not the manifest's")
def other_domain(ds: Dataset) -> None:
    def change(items: list[dict[str, Any]]) -> None:
        items[4]["domain"] = "materials"
    _edit(ds, change)


@mutation("seed 99 is not the manifest's 3")
def other_seed(ds: Dataset) -> None:
    def change(items: list[dict[str, Any]]) -> None:
        items[4]["seed"] = 99
    _edit(ds, change)


@mutation("base_id 'financial-s3-000004' is not 'financial-s3-000005'")
def base_id_differs(ds: Dataset) -> None:
    def change(items: list[dict[str, Any]]) -> None:
        items[5]["base_id"], items[5]["id"] = items[4]["base_id"], items[4]["id"]
    _edit(ds, change)


@mutation("provenance.index 4 is not its line position 5")
def provenance_index(ds: Dataset) -> None:
    def change(items: list[dict[str, Any]]) -> None:
        items[5]["provenance"]["index"] = 4
    _edit(ds, change)


@mutation("provenance.plan.types")
def provenance_plan_types(ds: Dataset) -> None:
    def change(items: list[dict[str, Any]]) -> None:
        plan = items[0]["provenance"]["plan"]
        plan["types"] = plan["types"][::-1] if plan["types"][0] != plan["types"][2] else \
            ["FC", "CT", "TR"]
    _edit(ds, change)


@mutation("modalities")
def modalities_reordered(ds: Dataset) -> None:
    def change(items: list[dict[str, Any]]) -> None:
        statement = next(s for i in items for s in i["statements"] if len(s["modalities"]) > 1)
        statement["modalities"] = statement["modalities"][::-1]
    _edit(ds, change)


@mutation("field 'statements.0.program")
def type_does_not_fit_program(ds: Dataset) -> None:
    def change(items: list[dict[str, Any]]) -> None:
        statement = items[0]["statements"][0]
        statement["type"] = "CT" if statement["program"]["select"]["op"] != "ct" else "RK"
    _edit(ds, change)


@mutation("unknown key(s) 'hint'")
def unknown_program_key(ds: Dataset) -> None:
    def change(items: list[dict[str, Any]]) -> None:
        items[0]["statements"][2]["program"]["select"]["hint"] = "ignore the threshold"
    _edit(ds, change)


@mutation("expected a decimal string")
def nan_threshold(ds: Dataset) -> None:
    def change(items: list[dict[str, Any]]) -> None:
        i, n = _find(items, lambda s: "threshold" in s["program"]["select"])[0]
        items[i]["statements"][n]["program"]["select"]["threshold"] = "NaN"
    _edit(ds, change)


@mutation("expected a decimal string")
def huge_exponent_result(ds: Dataset) -> None:
    def change(items: list[dict[str, Any]]) -> None:
        i, n = _find(items, lambda s: s["program"]["select"]["op"] in ("ar", "ct"))[0]
        node = items[i]["statements"][n]["program"]["select"]
        node["result" if node["op"] == "ar" else "threshold"] = "1e999999"
    _edit(ds, change)


@mutation("a displayed number with 1 decimal(s)")
def infinity_in_table(ds: Dataset) -> None:
    def change(items: list[dict[str, Any]]) -> None:
        values = items[1]["inputs"]["table"]["rows"][0]["values"]
        values[next(iter(values))] = "Infinity"
    _edit(ds, change)


@mutation("a displayed number")
def chart_value_nan(ds: Dataset) -> None:
    def change(items: list[dict[str, Any]]) -> None:
        items[2]["inputs"]["chart"]["series"][0]["values"][0] = "NaN"
    _edit(ds, change)


@mutation("a displayed number with 1 decimal(s)")
def value_not_as_displayed(ds: Dataset) -> None:
    """A table value with more decimals than the column shows."""
    def change(items: list[dict[str, Any]]) -> None:
        row = items[3]["inputs"]["table"]["rows"][0]["values"]
        key = next(iter(row))
        row[key] = row[key] + "4"
    _edit(ds, change)


@mutation("expected a list")
def statements_a_string(ds: Dataset) -> None:
    def change(items: list[dict[str, Any]]) -> None:
        items[0]["statements"] = "1. yes 2. no 3. maybe"
    _edit(ds, change)


@mutation("field 'entities': expected a list")
def entities_an_object(ds: Dataset) -> None:
    def change(items: list[dict[str, Any]]) -> None:
        items[0]["entities"] = {e["id"]: e["name"] for e in items[0]["entities"]}
    _edit(ds, change)


@mutation("field 'hops': expected a whole number")
def hops_a_string(ds: Dataset) -> None:
    def change(items: list[dict[str, Any]]) -> None:
        items[0]["hops"] = str(items[0]["hops"])
    _edit(ds, change)


@mutation("expected true or false")
def label_an_int(ds: Dataset) -> None:
    def change(items: list[dict[str, Any]]) -> None:
        items[0]["statements"][0]["label"] = int(items[0]["statements"][0]["label"])
    _edit(ds, change)


@mutation("field 'inputs.table.rows.0.year': expected a whole number")
def year_a_float(ds: Dataset) -> None:
    def change(items: list[dict[str, Any]]) -> None:
        items[0]["inputs"]["table"]["rows"][0]["year"] = 2019.0
    _edit(ds, change)


@mutation("field 'provenance' is missing")
def provenance_missing(ds: Dataset) -> None:
    def change(items: list[dict[str, Any]]) -> None:
        del items[0]["provenance"]
    _edit(ds, change)


@mutation("cells are not the inputs its program reads")
def cells_dropped(ds: Dataset) -> None:
    def change(items: list[dict[str, Any]]) -> None:
        items[0]["statements"][0]["cells"] = items[0]["statements"][0]["cells"][1:]
    _edit(ds, change)


@mutation("distractor")
def distractor_on_true_statement(ds: Dataset) -> None:
    def change(items: list[dict[str, Any]]) -> None:
        statement = next(s for i in items for s in i["statements"] if s["label"])
        ids = [c["entity"] for c in statement["cells"]]
        statement["distractor"] = {"replaces": ids[0], "with": ids[-1]}
    _edit(ds, change)


@mutation("has images, but the build has none")
def images_in_a_plain_build(ds: Dataset) -> None:
    def change(items: list[dict[str, Any]]) -> None:
        items[0]["images"] = [{"role": "table", "path": f"images/{items[0]['id']}.table.png",
                               "sha256": "0" * 64, "width": 10, "height": 10, "render": {}}]
    _edit(ds, change)


@mutation("field 'images.0': expected an object")
def image_a_path_string(ds: Dataset) -> None:
    """Format 2's image list of paths is not format 3's."""
    def change(items: list[dict[str, Any]]) -> None:
        items[0]["images"] = [f"images/{items[0]['base_id']}-table.png"]
    _edit(ds, change)


@mutation("variant is not the base variant")
def variant_named_otherwise(ds: Dataset) -> None:
    def change(items: list[dict[str, Any]]) -> None:
        items[1]["variant"]["name"] = "photo"
        items[1]["id"] = f"{items[1]['base_id']}.photo"
    _edit(ds, change)


@mutation("field 'answer_type'")
def answer_type_missing(ds: Dataset) -> None:
    def change(items: list[dict[str, Any]]) -> None:
        del items[2]["answer_type"]
    _edit(ds, change)


@mutation("does not match the item schema: id 'financial-s3-000003' is not base_id.variant")
def id_without_its_variant(ds: Dataset) -> None:
    def change(items: list[dict[str, Any]]) -> None:
        items[3]["id"] = items[3]["base_id"]
    _edit(ds, change)


@mutation("not valid JSON: NaN is not allowed")
def json_nan_literal(ds: Dataset) -> None:
    data = (ds.root / "items.jsonl").read_bytes()
    ds.save_lines(data.replace(b'"label":true', b'"label":NaN', 1))


@mutation("not valid JSON: number '1e999' is out of range")
def json_infinite_float(ds: Dataset) -> None:
    data = (ds.root / "items.jsonl").read_bytes()
    ds.save_lines(data.replace(b'"seed":3', b'"seed":1e999', 1))


@mutation("not valid JSON: duplicate key 'label'")
def json_duplicate_key(ds: Dataset) -> None:
    data = (ds.root / "items.jsonl").read_bytes()
    ds.save_lines(data.replace(b'"label":true', b'"label":true,"label":false', 1))


@mutation("not valid JSON: nested too deeply")
def nested_200000_deep(ds: Dataset) -> None:
    lines = (ds.root / "items.jsonl").read_bytes().splitlines(keepends=True)
    lines[1] = b"[" * 200_000 + b"]" * 200_000 + b"\n"
    ds.save_lines(b"".join(lines))


@mutation("items.jsonl:3: not UTF-8 text")
def non_utf8_bytes(ds: Dataset) -> None:
    lines = (ds.root / "items.jsonl").read_bytes().splitlines(keepends=True)
    lines[2] = lines[2].replace(b"The ", b"Th\xff\xfe ", 1)
    ds.save_lines(b"".join(lines))


@mutation("items.jsonl:2: longer than")
def huge_line(ds: Dataset) -> None:
    lines = (ds.root / "items.jsonl").read_bytes().splitlines(keepends=True)
    lines[1] = lines[1][:-2] + b',"pad":"' + b"x" * (9 << 20) + b'"}\n'
    ds.save_lines(b"".join(lines))


@mutation("items.jsonl:4: not an item")
def line_not_an_object(ds: Dataset) -> None:
    lines = (ds.root / "items.jsonl").read_bytes().splitlines(keepends=True)
    lines[3] = b'["financial-s3-000003"]\n'
    ds.save_lines(b"".join(lines))


@mutation("empty line")
def blank_line(ds: Dataset) -> None:
    lines = (ds.root / "items.jsonl").read_bytes().splitlines(keepends=True)
    ds.save_lines(b"".join([*lines[:3], b"\n", *lines[3:]]))


@mutation("the last line has no newline")
def no_final_newline(ds: Dataset) -> None:
    ds.save_lines((ds.root / "items.jsonl").read_bytes().rstrip(b"\n"))


@mutation("items.jsonl: a folder, not a file")
def items_a_folder(ds: Dataset) -> None:
    (ds.root / "items.jsonl").unlink()
    (ds.root / "items.jsonl").mkdir()
    (ds.root / "items.jsonl" / "x").write_text("{}")
    ds.list_file("items.jsonl/x")
    ds.rehash()


@mutation("items.jsonl: missing")
def items_missing(ds: Dataset) -> None:
    (ds.root / "items.jsonl").unlink()
    ds.rehash()


@mutation("items.jsonl: not a regular file")
def items_a_fifo(ds: Dataset) -> None:
    (ds.root / "items.jsonl").unlink()
    os.mkfifo(ds.root / "items.jsonl")


@mutation("items.jsonl: a symbolic link")
def items_a_symlink(ds: Dataset) -> None:
    real = ds.root.parent / "elsewhere.jsonl"
    (ds.root / "items.jsonl").rename(real)
    (ds.root / "items.jsonl").symlink_to(real)
    ds.rehash()


@mutation("a symbolic link (not allowed in a dataset)")
def symlink_to_outside(ds: Dataset) -> None:
    (ds.root / "notes.txt").symlink_to("/etc/hostname")
    ds.list_file("notes.txt")


@mutation("not listed in manifest.json")
def unlisted_file(ds: Dataset) -> None:
    (ds.root / "extra.csv").write_text("a,b\n")
    ds.rehash()


@mutation("field 'files': expected an object of path -> sha256, got a list")
def files_a_list(ds: Dataset) -> None:
    manifest = ds.manifest()
    manifest["files"] = list(manifest["files"])
    ds.save_manifest(manifest)


@mutation("field 'files': expected an object of path -> sha256, got a NoneType")
def files_null(ds: Dataset) -> None:
    manifest = ds.manifest()
    manifest["files"] = None
    ds.save_manifest(manifest)


@mutation("field 'files': expected an object of path -> sha256, got missing")
def files_missing(ds: Dataset) -> None:
    manifest = ds.manifest()
    del manifest["files"]
    ds.save_manifest(manifest)


@mutation("'/etc/hostname' is an absolute path")
def files_absolute_path(ds: Dataset) -> None:
    manifest = ds.manifest()
    manifest["files"]["/etc/hostname"] = hashlib.sha256(b"").hexdigest()
    ds.save_manifest(manifest)


@mutation("'data/../../secret' is not a plain relative path")
def files_dotdot_path(ds: Dataset) -> None:
    manifest = ds.manifest()
    manifest["files"]["data/../../secret"] = hashlib.sha256(b"").hexdigest()
    ds.save_manifest(manifest)


@mutation("README.md: listed in manifest.json but missing")
def listed_file_missing(ds: Dataset) -> None:
    (ds.root / "README.md").unlink()
    ds.rehash()


@mutation("manifest.json: counts.statements 17")
def counts_statements(ds: Dataset) -> None:
    manifest = ds.manifest()
    manifest["counts"]["statements"] = 17
    ds.save_manifest(manifest)


@mutation("manifest.json: config.count 7")
def config_count(ds: Dataset) -> None:
    manifest = ds.manifest()
    manifest["config"]["count"] = 7
    ds.save_manifest(manifest)


@mutation("manifest.json: shares.answers")
def shares_answers(ds: Dataset) -> None:
    manifest = ds.manifest()
    answers = manifest["shares"]["answers"]
    key = next(iter(answers))
    answers[key] += 1
    ds.save_manifest(manifest)


@mutation("manifest.json: shares.statements")
def shares_statements(ds: Dataset) -> None:
    manifest = ds.manifest()
    cell = next(iter(manifest["shares"]["statements"].values()))
    cell["true"], cell["false"] = cell["false"], cell["true"] + 1
    ds.save_manifest(manifest)


@mutation("field 'config.decidability.min_rank_gap': expected a fraction")
def margins_not_numbers(ds: Dataset) -> None:
    manifest = ds.manifest()
    manifest["config"]["decidability"]["min_rank_gap"] = "NaN"
    ds.save_manifest(manifest)


@mutation("field 'seed': expected the config's seed 3")
def manifest_seed_disagrees(ds: Dataset) -> None:
    manifest = ds.manifest()
    manifest["seed"] = 4
    ds.save_manifest(manifest)


@mutation("row 1: question differ(s)")
def parquet_row_edited(ds: Dataset) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    shard = ds.root / "data" / "test-00000-of-00001.parquet"
    table = pq.read_table(shard)
    questions = table.column("question").to_pylist()
    questions[1] += " (hint: the answer is 2)"
    table = table.set_column(table.schema.get_field_index("question"), "question",
                             pa.array(questions, pa.string()))
    pq.write_table(table, shard)
    ds.rehash()


@mutation("item_json differ(s)")
def parquet_rows_reversed(ds: Dataset) -> None:
    ds.write_parquet(ds.items()[::-1])
    ds.rehash()


@mutation("data: 5 readable Parquet row(s) for 6 line(s)")
def parquet_row_missing(ds: Dataset) -> None:
    ds.write_parquet(ds.items()[:5])
    ds.rehash()


@mutation("not a readable Parquet file")
def parquet_truncated(ds: Dataset) -> None:
    shard = ds.root / "data" / "test-00000-of-00001.parquet"
    shard.write_bytes(shard.read_bytes()[:-100])
    ds.rehash()


@mutation("not a readable Parquet file")
def parquet_not_parquet(ds: Dataset) -> None:
    (ds.root / "data" / "test-00000-of-00001.parquet").write_text("id,question\n")
    ds.rehash()


@mutation("columns or their types are not the format's")
def parquet_column_dropped(ds: Dataset) -> None:
    import pyarrow.parquet as pq
    shard = ds.root / "data" / "test-00000-of-00001.parquet"
    pq.write_table(pq.read_table(shard).drop_columns(["item_json"]), shard)
    ds.rehash()


@mutation("are not 0..1")
def parquet_shard_gap(ds: Dataset) -> None:
    data = ds.root / "data"
    (data / "test-00000-of-00001.parquet").rename(data / "test-00001-of-00002.parquet")
    manifest = ds.manifest()
    manifest["files"]["data/test-00001-of-00002.parquet"] = \
        manifest["files"].pop("data/test-00000-of-00001.parquet")
    ds.save_manifest(manifest)


@mutation("not a shard name")
def parquet_stray_name(ds: Dataset) -> None:
    data = ds.root / "data"
    shutil.copy(data / "test-00000-of-00001.parquet", data / "train-00000-of-00001.parquet")
    ds.list_file("data/train-00000-of-00001.parquet")
    ds.rehash()


@mutation("data/: missing")
def data_folder_missing(ds: Dataset) -> None:
    shutil.rmtree(ds.root / "data")
    ds.rehash()


# images (the slow tier: they need a build with images)


def _image_names(ds: Dataset) -> tuple[str, str]:
    table, chart = ds.items()[0]["images"]
    return table["path"], chart["path"]


@mutation("image roles ['chart', 'table'] are not ['table', 'chart']", IMAGES)
def images_swapped(ds: Dataset) -> None:
    def change(items: list[dict[str, Any]]) -> None:
        items[0]["images"] = items[0]["images"][::-1]
    _edit(ds, change)


@mutation("table image 'images/financial-s3-000000.base.chart.png' is not at", IMAGES)
def image_roles_swapped(ds: Dataset) -> None:
    """The roles, not the file names, say which image is which: a swapped role is caught."""
    def change(items: list[dict[str, Any]]) -> None:
        table, chart = items[0]["images"]
        table["path"], chart["path"] = chart["path"], table["path"]
    _edit(ds, change)


@mutation("chart image images/financial-s3-000002.base.chart.png: sha256 differs", IMAGES)
def image_sha256_wrong(ds: Dataset) -> None:
    def change(items: list[dict[str, Any]]) -> None:
        items[2]["images"][1]["sha256"] = "f" * 64
    _edit(ds, change)


@mutation("table image images/financial-s3-000000.base.table.png: not a PNG image", IMAGES)
def image_not_a_png(ds: Dataset) -> None:
    (ds.root / _image_names(ds)[0]).write_bytes(b"GIF89a" + b"\0" * 100)
    _edit(ds, lambda items: None)


@mutation("a truncated PNG", IMAGES)
def image_truncated(ds: Dataset) -> None:
    path = ds.root / _image_names(ds)[1]
    path.write_bytes(path.read_bytes()[:-200])
    _edit(ds, lambda items: None)


@mutation("the item records", IMAGES)
def render_size_wrong(ds: Dataset) -> None:
    def change(items: list[dict[str, Any]]) -> None:
        items[1]["images"][1]["width"] += 1
    _edit(ds, change)


@mutation("listed in manifest.json but missing", IMAGES)
def image_deleted(ds: Dataset) -> None:
    (ds.root / _image_names(ds)[0]).unlink()
    _edit(ds, lambda items: None)


@mutation("table image images/financial-s3-000000.base.table.png: missing", IMAGES)
def image_deleted_and_unlisted(ds: Dataset) -> None:
    table = _image_names(ds)[0]
    (ds.root / table).unlink()
    manifest = ds.manifest()
    del manifest["files"][table]
    ds.save_manifest(manifest)
    _edit(ds, lambda items: None)


@mutation("images/financial-s3-000099.base.chart.png: not the image of an item", IMAGES)
def image_of_no_item(ds: Dataset) -> None:
    stray = "images/financial-s3-000099.base.chart.png"
    shutil.copy(ds.root / _image_names(ds)[1], ds.root / stray)
    ds.list_file(stray)
    _edit(ds, lambda items: None)


@mutation("images/financial-s3-000001.base.table.png: a symbolic link", IMAGES)
def image_a_symlink(ds: Dataset) -> None:
    path = ds.root / ds.items()[1]["images"][0]["path"]
    real = ds.root.parent / "outside.png"
    path.rename(real)
    path.symlink_to(real)
    _edit(ds, lambda items: None)


@mutation("images: a symbolic link (not allowed in a dataset)", IMAGES)
def images_folder_a_symlink(ds: Dataset) -> None:
    real = ds.root.parent / "pictures"
    (ds.root / "images").rename(real)
    (ds.root / "images").symlink_to(real)
    ds.rehash()


@mutation("row 2: images differ(s)", IMAGES)
def parquet_image_bytes_differ(ds: Dataset) -> None:
    items = ds.items()
    table = ds.root / items[2]["images"][0]["path"]
    original = table.read_bytes()
    table.write_bytes(original + b"\0")  # the forger embeds other bytes...
    ds.write_parquet(items)
    table.write_bytes(original)  # ...and restores the file
    ds.rehash()


@mutation("table image: render.cells row 1 col 2 shows", IMAGES)
def table_value_edited_in_json_only(ds: Dataset) -> None:
    """The JSON table no longer shows what the image shows (the layout records the text)."""
    def change(items: list[dict[str, Any]]) -> None:
        values = items[0]["inputs"]["table"]["rows"][0]["values"]
        key = items[0]["inputs"]["table"]["columns"][0]["key"]
        values[key] = "-" + values[key] if not values[key].startswith("-") else values[key][1:]
    _edit(ds, change)


@mutation("manifest.json: counts.images 11", IMAGES)
def counts_images(ds: Dataset) -> None:
    manifest = ds.manifest()
    manifest["counts"]["images"] = 11
    ds.save_manifest(manifest)


# --------------------------------------------------------------------------------------------
# the proxy-agreement axis: readings re-derived, demands kept, balance


def _decided_reading(items: list[dict[str, Any]]) -> tuple[dict[str, Any], int, str]:
    """An item held to its demands (not waived), a statement index and a modality whose
    recorded proxy reading decides."""
    for item in items:
        if item["provenance"].get("agree_waived"):
            continue
        for n, statement in enumerate(item["statements"]):
            for modality, reading in sorted((statement.get("proxy") or {}).items()):
                if reading["label"] is not None:
                    return item, n, modality
    raise AssertionError("the fixture dataset has no decided proxy reading")


@mutation("the proxy without the")
def proxy_reading_flipped(ds: Dataset) -> None:
    """A forger records the opposite reading and flips the plan's demand to match it."""
    def change(items: list[dict[str, Any]]) -> None:
        item, n, modality = _decided_reading(items)
        reading = item["statements"][n]["proxy"][modality]
        reading["label"] = not reading["label"]
        demand = item["provenance"]["plan"]["agree"][n]
        demand[modality] = not demand[modality]
    _edit(ds, change)


@mutation("with the label, but gives")
def proxy_demand_flipped(ds: Dataset) -> None:
    """The plan's demand no longer matches what the statement's proxy reads."""
    def change(items: list[dict[str, Any]]) -> None:
        item, n, modality = _decided_reading(items)
        demand = item["provenance"]["plan"]["agree"][n]
        demand[modality] = not demand[modality]
    _edit(ds, change)


@mutation("proxy lines name columns the table does not show")
def proxy_line_of_a_hidden_column(ds: Dataset) -> None:
    def change(items: list[dict[str, Any]]) -> None:
        item, n, modality = _decided_reading(items)
        lines = item["statements"][n]["proxy"][modality]["lines"]
        key = next(iter(lines))
        lines["not_a_column"] = lines.pop(key)
    _edit(ds, change)


@mutation("proxy readings of [], expected")
def proxy_readings_stripped(ds: Dataset) -> None:
    def change(items: list[dict[str, Any]]) -> None:
        for item in items:
            for statement in item["statements"]:
                statement["proxy"] = None
    _edit(ds, change)


@mutation("field 'config.defences'")
def defences_switch_removed(ds: Dataset) -> None:
    """Dropping the switch would excuse the items from the axis: format 4 requires it."""
    manifest = ds.manifest()
    del manifest["config"]["defences"]
    ds.save_manifest(manifest)


@mutation("provenance.plan has no 'agree' axis")
def agreement_axis_removed(ds: Dataset) -> None:
    def change(items: list[dict[str, Any]]) -> None:
        for item in items:
            del item["provenance"]["plan"]["agree"]
    _edit(ds, change)


# --------------------------------------------------------------------------------------------
# running verify


def _copy(base: Path, tmp_path: Path) -> Dataset:
    root = tmp_path / "ds"
    shutil.copytree(base, root, symlinks=True)
    return Dataset(root)


def _verify(root: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["verify", str(root), *args])
    return code, capsys.readouterr().err


def assert_problems(code: int, err: str, expect: str | None = None) -> list[str]:
    """Exit 1, no traceback, one ``WHERE: WHAT`` line per problem, a FAILED summary, and
    (when given) a line naming the planted problem. Returns the problem lines."""
    assert code == 1, err
    assert "Traceback" not in err
    lines = err.rstrip("\n").split("\n")
    assert re.fullmatch(r"FAILED: [1-9]\d* problem\(s\) in \d+ items", lines[-1]), lines[-1]
    problems = [line for line in lines[:-1] if not line.startswith("... and ")]
    assert problems and len(problems) + (len(lines) - 1 - len(problems)) == len(lines) - 1
    for line in problems:
        assert PROBLEM_LINE.match(line), line
        assert len(line) < 2000, line[:200]
    if expect is not None:
        assert any(expect in line for line in problems), f"{expect!r} not in:\n{err}"
    return problems


def test_untouched_plain_build_verifies(plain_base: Path, capsys: pytest.CaptureFixture[str]
                                        ) -> None:
    code, err = _verify(plain_base, capsys)
    assert code == 0, err
    assert err == ""


@pytest.mark.slow
def test_untouched_image_build_verifies(image_base: Path, capsys: pytest.CaptureFixture[str]
                                        ) -> None:
    code, err = _verify(image_base, capsys)
    assert code == 0, err


def test_a_forgery_with_nothing_changed_verifies(plain_base: Path, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """The forger's tools are faithful: rewriting everything from unchanged items passes,
    so each corruption below fails for its own edit."""
    ds = _copy(plain_base, tmp_path)
    _edit(ds, lambda items: None)
    code, err = _verify(ds.root, capsys)
    assert code == 0, err


@pytest.mark.slow
def test_an_image_forgery_with_nothing_changed_verifies(
        image_base: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ds = _copy(image_base, tmp_path)
    _edit(ds, lambda items: None)
    code, err = _verify(ds.root, capsys)
    assert code == 0, err


@pytest.mark.parametrize("name", sorted(PLAIN))
def test_corruption_is_reported(name: str, plain_base: Path, tmp_path: Path,
                                capsys: pytest.CaptureFixture[str]) -> None:
    corrupt, expect = PLAIN[name]
    ds = _copy(plain_base, tmp_path)
    corrupt(ds)
    code, err = _verify(ds.root, capsys, "--max-problems", "0")
    assert_problems(code, err, expect)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(IMAGES))
def test_image_corruption_is_reported(name: str, image_base: Path, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    corrupt, expect = IMAGES[name]
    ds = _copy(image_base, tmp_path)
    corrupt(ds)
    code, err = _verify(ds.root, capsys, "--max-problems", "0")
    assert_problems(code, err, expect)


# --------------------------------------------------------------------------------------------
# not a dataset at all: one line, exit 2


def _not_a_folder(ds: Dataset) -> Path:
    return ds.root / "README.md"


def _missing(ds: Dataset) -> Path:
    return ds.root / "nothing-here"


def _manifest_a_folder(ds: Dataset) -> Path:
    (ds.root / "manifest.json").unlink()
    (ds.root / "manifest.json").mkdir()
    return ds.root


def _manifest_bytes(data: bytes) -> Callable[[Dataset], Path]:
    def corrupt(ds: Dataset) -> Path:
        (ds.root / "manifest.json").write_bytes(data)
        return ds.root
    return corrupt


USER_ERRORS: dict[str, tuple[Callable[[Dataset], Path], str]] = {
    "path_is_a_file": (_not_a_folder, "not a folder"),
    "path_missing": (_missing, "no manifest.json (no such folder)"),
    "manifest_a_folder": (_manifest_a_folder, "manifest.json: a folder, not a file"),
    "manifest_not_json": (_manifest_bytes(b"{format: hopvista"), "not valid JSON"),
    "manifest_nested_deep": (_manifest_bytes(b"[" * 200_000), "nested too deeply"),
    "manifest_nan": (_manifest_bytes(b'{"format": NaN}'), "NaN is not allowed"),
    "manifest_not_utf8": (_manifest_bytes(b'{"format": "\xff"}'), "not UTF-8"),
    "manifest_a_list": (_manifest_bytes(b"[]"), "not a hopvista dataset manifest"),
    "manifest_other_version": (_manifest_bytes(
        b'{"format": "hopvista-dataset", "format_version": 99}'), "format_version '99'"),
}


@pytest.mark.parametrize("name", sorted(USER_ERRORS))
def test_not_a_dataset_is_one_line_and_exit_2(name: str, plain_base: Path, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    corrupt, expect = USER_ERRORS[name]
    path = corrupt(_copy(plain_base, tmp_path))
    code, err = _verify(path, capsys)
    assert code == 2
    assert err.startswith("gen: error: ") and err.count("\n") == 1, err
    assert expect in err and "Traceback" not in err


# --------------------------------------------------------------------------------------------
# the terminal: no traceback from the real executable, capped output, flat memory


SUBPROCESS_CASES = ["nested_200000_deep", "parquet_truncated", "items_a_fifo"]


@pytest.mark.slow
@pytest.mark.parametrize("name", SUBPROCESS_CASES)
def test_no_traceback_reaches_the_terminal(name: str, plain_base: Path, tmp_path: Path) -> None:
    corrupt, expect = PLAIN[name]
    ds = _copy(plain_base, tmp_path)
    corrupt(ds)
    gen = shutil.which("gen")
    command = [gen] if gen and name != "parquet_truncated" else \
        [sys.executable, "-m", "hopvista.cli.main"]
    done = subprocess.run([*command, "verify", str(ds.root)], capture_output=True, text=True,
                          timeout=120)
    assert done.stdout == ""
    assert_problems(done.returncode, done.stderr, expect)


def test_a_flood_of_problems_is_capped(plain_base: Path, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    ds = _copy(plain_base, tmp_path)
    ds.save_lines(b"{oops\n" * 500)
    code, err = _verify(ds.root, capsys)
    problems = assert_problems(code, err, "items.jsonl:50: not valid JSON")
    assert len(problems) == 50
    total = int(re.search(r"FAILED: (\d+) problem", err).group(1))  # type: ignore[union-attr]
    assert f"... and {total - 50} more problem(s)" in err and total > 500


def test_a_dataset_cannot_forge_lines_of_output(plain_base: Path, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    ds = _copy(plain_base, tmp_path)
    items = ds.items()
    items[0]["id"] = "x\nOK: 6 items verified\x1b[2K"
    ds.save(items)
    code, err = _verify(ds.root, capsys)
    problems = assert_problems(code, err)
    assert not any(line.startswith("OK") for line in err.splitlines())
    assert any("\\n" in line and "\\x1b" in line for line in problems)


def test_memory_is_flat_in_the_number_of_lines(plain_base: Path, tmp_path: Path) -> None:
    """6 MB of (malformed) lines: verify streams them, holding one line at a time."""
    ds = _copy(plain_base, tmp_path)
    line = b'{"id":"x","kind":"three_statement","pad":"' + b"x" * 1000 + b'"}\n'
    ds.save_lines(line * 6000)
    count = 0

    def sink(problem: str) -> None:
        nonlocal count
        count += 1

    tracemalloc.start()
    try:
        checked = verify_into(ds.root, sink)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert checked == 6000 and count > 6000
    assert peak < 4 << 20, f"peak {peak / 2**20:.1f} MiB for a 6 MB items.jsonl"


# --------------------------------------------------------------------------------------------
# statement text without the pack (a pack given by path, another hopvista version)


def pack_wording(expect: Expect, manifest: dict[str, Any]) -> Wording | None:
    """The wording ``gen verify`` proves a dataset's texts with, given who built it."""
    built_by = manifest["packages"].get("hopvista")
    return judge_wording(expect.config, expect.domain, expect.version, built_by).wording


def test_recorded_wording_is_sandboxed(plain_base: Path) -> None:
    ds = Dataset(plain_base)
    manifest = ds.manifest()
    manifest["packages"]["hopvista"] = "0.0.1"
    wording = manifest["config"]["wording"]
    wording["forms"] = {name: ["{{ ''.__class__.__mro__[1].__subclasses__() }}"]
                        for name in wording["forms"]}
    expect = expectations(manifest, lambda problem: pytest.fail(problem))
    recorded = pack_wording(expect, manifest)
    assert recorded is not None
    item = ds.items()[0]
    assert any("is not a" in p for p in check_wording(item, recorded))


def test_wording_falls_back_to_mentions_without_the_pack(plain_base: Path) -> None:
    ds = Dataset(plain_base)
    manifest = ds.manifest()
    expect = expectations(manifest, lambda problem: pytest.fail(problem))
    assert pack_wording(expect, manifest) is not None
    manifest["packages"]["hopvista"] = "0.0.1"
    recorded = pack_wording(expect, manifest)  # another version: the wording it recorded
    assert recorded is not None and recorded.pack == "financial (as recorded)"
    assert all(check_wording(item, recorded) == [] for item in ds.items())
    for broken in ({"forms": "x"}, None, {**manifest["config"]["wording"], "nouns": []}):
        manifest["config"]["wording"] = broken
        assert pack_wording(expect, manifest) is None
    items = ds.items()
    assert all(check_wording(item, None) == [] for item in items)

    i, n = _find(items, lambda s: "entity" in s["program"]["claim"])[0]
    claim = items[i]["statements"][n]["program"]["claim"]
    claim["entity"] = next(e["id"] for e in items[i]["entities"] if e["id"] != claim["entity"])
    assert any("does not mention the claimed entity" in p
               for p in check_wording(items[i], None))

    i, n = _find(items, lambda s: "threshold" in s["program"]["select"])[0]
    node = items[i]["statements"][n]["program"]["select"]
    node["threshold"] = format(Decimal(node["threshold"]) + 1, "f")
    assert any("does not mention the threshold" in p for p in check_wording(items[i], None))

    item = items[(i + 1) % len(items)]
    item["statements"] = item["statements"][::-1]
    assert check_wording(item, None) == \
        ["question does not show the three statement texts in order"]
