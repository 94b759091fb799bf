"""Parquet shards with the images embedded, so ``datasets.load_dataset(folder)`` works offline."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

SPLIT = "test"
SHARD_ROWS = 1000
DATA_DIR = "data"


def _features() -> Any:
    from datasets import Features, Image, Sequence, Value

    return Features({
        "id": Value("string"),
        "base_id": Value("string"),
        "domain": Value("string"),
        "kind": Value("string"),
        "difficulty": Value("string"),
        "hops": Value("int32"),
        "entities": [{"id": Value("string"), "name": Value("string")}],
        "question": Value("string"),
        "statements": [{"text": Value("string"), "label": Value("bool"),
                        "type": Value("string")}],
        "answer": Sequence(Value("int32")),
        "table_image": Image(),
        "chart_image": Image(),
        "item_json": Value("string"),
    })


def _row(item: dict[str, Any], root: Path) -> dict[str, Any]:
    images: dict[str, Any] = {"table_image": None, "chart_image": None}
    for path in item.get("images", []):
        key = "table_image" if path.endswith("-table.png") else "chart_image"
        images[key] = {"bytes": (root / path).read_bytes(), "path": Path(path).name}
    return {
        "id": item["id"], "base_id": item["base_id"], "domain": item["domain"],
        "kind": item["kind"], "difficulty": item["difficulty"], "hops": item["hops"],
        "entities": item["entities"], "question": item["question"],
        "statements": [{"text": s["text"], "label": s["label"], "type": s["type"]}
                       for s in item["statements"]],
        "answer": item["answer"], **images,
        "item_json": json.dumps(item, ensure_ascii=False, separators=(",", ":")),
    }


def _chunks(items: list[dict[str, Any]], size: int) -> Iterator[list[dict[str, Any]]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


def write_parquet(items: list[dict[str, Any]], root: Path,
                  shard_rows: int = SHARD_ROWS) -> list[str]:
    """Write ``data/test-0000i-of-0000n.parquet``; return the relative paths written.

    The schema carries the Hugging Face features (``Image`` columns hold the PNG bytes), so
    the shards load with ``datasets`` and stand alone without the ``images/`` folder.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    features = _features()
    schema = features.arrow_schema
    (root / DATA_DIR).mkdir(exist_ok=True)
    shards = list(_chunks(items, shard_rows)) or [[]]
    written = []
    for number, shard in enumerate(shards):
        name = f"{DATA_DIR}/{SPLIT}-{number:05d}-of-{len(shards):05d}.parquet"
        rows = [features.encode_example(_row(item, root)) for item in shard]
        table = pa.Table.from_pylist(rows, schema=schema)
        pq.write_table(table, root / name, compression="zstd")
        written.append(name)
    return written


def iter_lines(path: Path) -> Iterable[dict[str, Any]]:
    """Items of an ``items.jsonl``."""
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            yield json.loads(line)
