"""Parquet shards with the images embedded, so ``datasets.load_dataset(folder)`` works offline.

A row holds the item's plain fields, its ``answer`` as the text a model should answer (its
kind's reference form, e.g. ``"1, 3"`` or ``"none"``), every image of the item in
``images`` with the role of each in ``image_roles`` (same order as the item's ``images``),
and the whole item as ``item_json`` (exactly its line of ``items.jsonl``). A build whose
statements were paraphrased gives each statement of the row its ``paraphrase`` (the template
text and the kept attempt); any other keeps the schema it had.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hopvista.building import heap
from hopvista.model import ITEM_KINDS, Item
from hopvista.model.statement import Statement

SPLIT = "test"
SHARD_ROWS = 1000
GROUP_ROWS = 64
#: A row group is also closed once its images reach this many bytes: the writer holds about
#: five copies of a group while it writes it (~50 MB at 64 rows of ~140 KB of PNGs).
GROUP_BYTES = 2 << 20
DATA_DIR = "data"


LOAD_EXAMPLE = """from datasets import load_dataset
ds = load_dataset("path/to/this/folder", split="{split}")
row = ds[0]
table = row["images"][row["image_roles"].index("table")]  # PIL images, by role
row["question"], row["answer"], json.loads(row["item_json"])"""
"""How the dataset card shows loading the Parquet shards (``{split}`` is filled in)."""


# The row's columns as ``datasets`` features, written out: a build need not import
# ``datasets`` (about a second) to write them. A value is a dtype name, "image", a list of one
# value, or a struct (a dict). tests/test_parquet_schema.py holds it to what ``datasets``
# declares for the same features.
_STATEMENT: dict[str, Any] = {"text": "string", "label": "bool", "type": "string"}
_PARAPHRASE: dict[str, Any] = {"template": "string", "kept": "int32"}
_COLUMNS: dict[str, Any] = {
    "id": "string", "base_id": "string", "variant": "string", "domain": "string",
    "kind": "string", "difficulty": "string", "hops": "int32",
    "entities": [{"id": "string", "name": "string"}], "question": "string",
    "statements": [_STATEMENT], "answer": "string", "answer_type": "string",
    "images": ["image"], "image_roles": ["string"], "item_json": "string",
}


def columns(paraphrased: bool = False) -> dict[str, Any]:
    """The row's columns as features (the module's comment above); ``paraphrased`` adds each
    statement's ``paraphrase``."""
    if not paraphrased:
        return _COLUMNS
    return _COLUMNS | {"statements": [_STATEMENT | {"paraphrase": _PARAPHRASE}]}


def _arrow_type(feature: Any) -> Any:
    import pyarrow as pa

    if isinstance(feature, dict):
        return pa.struct([(name, _arrow_type(inner)) for name, inner in feature.items()])
    if isinstance(feature, list):
        return pa.list_(_arrow_type(feature[0]))
    if feature == "image":
        return pa.struct([("bytes", pa.binary()), ("path", pa.string())])
    return pa.type_for_alias(feature)


def _declared(feature: Any) -> Any:
    """A feature as ``datasets`` records it in the schema's ``huggingface`` metadata."""
    if isinstance(feature, dict):
        return {name: _declared(inner) for name, inner in feature.items()}
    if isinstance(feature, list):
        return {"feature": _declared(feature[0]), "_type": "List"}
    if feature == "image":
        return {"_type": "Image"}
    return {"dtype": feature, "_type": "Value"}


def arrow_schema(paraphrased: bool = False) -> Any:
    """The shards' Arrow schema, with the ``huggingface`` metadata through which
    ``datasets.load_dataset`` reads ``images`` as images."""
    import pyarrow as pa

    features = columns(paraphrased)
    metadata = {"info": {"features": {name: _declared(f) for name, f in features.items()}}}
    return pa.schema([(name, _arrow_type(f)) for name, f in features.items()],
                     metadata={"huggingface": json.dumps(metadata)})


def item_line(item: Item) -> str:
    """The item as its line of ``items.jsonl`` (without the newline)."""
    return json.dumps(item.model_dump(mode="json"), ensure_ascii=False, separators=(",", ":"))


def _statement_row(statement: Statement, paraphrased: bool) -> dict[str, Any]:
    row: dict[str, Any] = {"text": statement.text, "label": statement.label,
                           "type": statement.type}
    if paraphrased:
        record = statement.model_dump(mode="json").get("paraphrase") or {}
        row["paraphrase"] = {"template": record.get("template", statement.text),
                             "kept": record.get("kept")}
    return row


def _row(item: Item, root: Path, line: str, paraphrased: bool = False) -> dict[str, Any]:
    return {
        "id": item.id, "base_id": item.base_id, "variant": item.variant.name,
        "domain": item.domain, "kind": item.kind, "difficulty": item.difficulty,
        "hops": item.hops, "entities": [{"id": e.id, "name": e.name} for e in item.entities],
        "question": item.question,
        "statements": [_statement_row(s, paraphrased) for s in item.statements],
        "answer": ITEM_KINDS.get(item.kind).reference(item), "answer_type": item.answer_type,
        "images": [{"bytes": (root / image.path).read_bytes(), "path": Path(image.path).name}
                   for image in item.images],
        "image_roles": [image.role for image in item.images],
        "item_json": line,
    }


class ParquetShards:
    """Writes items as they come into ``data/test-0000i-of-0000n.parquet`` under ``root``.

    ``count`` items are expected (it fixes the number of shards in the names). Rows are
    written in row groups of ``group_rows``, or fewer once their images reach ``group_bytes``
    (the writer's memory is a few times a group's), so memory stays flat however many items come;
    the same items give the same bytes.
    """

    def __init__(self, root: Path, count: int, shard_rows: int = SHARD_ROWS,
                 group_rows: int = GROUP_ROWS, group_bytes: int = GROUP_BYTES,
                 paraphrased: bool = False) -> None:
        self._root = root
        self._shards = max(1, -(-count // shard_rows))
        self._shard_rows = shard_rows
        self._group_rows = group_rows
        self._group_bytes = group_bytes
        self._bytes = 0  # of the images in self._rows
        self._paraphrased = paraphrased
        self._schema = arrow_schema(paraphrased)
        self._rows: list[dict[str, Any]] = []
        self._writer: Any = None
        self._in_shard = 0
        self._added = 0
        self.written: list[str] = []
        """Relative paths of the shards written so far."""
        (root / DATA_DIR).mkdir(exist_ok=True)

    def add(self, item: Item, line: str | None = None) -> None:
        """Queue one item (its images are read from ``root``); ``line`` is its line of
        ``items.jsonl`` when the caller has it already."""
        if self._added == self._shards * self._shard_rows:
            raise ValueError(f"more items than the {self._shards} shard(s) announced")
        if self._writer is None:
            self._open()
        row = _row(item, self._root, item_line(item) if line is None else line,
                   self._paraphrased)
        self._rows.append(row)
        self._bytes += sum(len(image["bytes"]) for image in row["images"])
        self._added += 1
        self._in_shard += 1
        if len(self._rows) >= self._group_rows or self._bytes >= self._group_bytes:
            self._flush()
        if self._in_shard == self._shard_rows:
            self._close_shard()

    def close(self) -> list[str]:
        """Finish the last shard (an empty build still gets one empty shard)."""
        if self._writer is None and not self.written:
            self._open()
        if self._writer is not None:
            self._close_shard()
        return self.written

    def _open(self) -> None:
        import pyarrow.parquet as pq

        name = f"{DATA_DIR}/{SPLIT}-{len(self.written):05d}-of-{self._shards:05d}.parquet"
        self._writer = pq.ParquetWriter(self._root / name, self._schema,
                                        compression="zstd")
        self.written.append(name)
        self._in_shard = 0

    def _flush(self) -> None:
        import pyarrow as pa

        if self._rows:
            rows, self._rows, self._bytes = self._rows, [], 0
            table = pa.Table.from_pylist(rows, schema=self._schema)
            del rows  # the images' bytes are in the table now: one copy less while it is written
            self._writer.write_table(table)
            del table
            pa.default_memory_pool().release_unused()
            heap.trim()  # the rows' images

    def _close_shard(self) -> None:
        self._flush()
        self._writer.close()
        self._writer = None
