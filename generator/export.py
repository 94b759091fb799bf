"""Parquet shards with the images embedded, so ``datasets.load_dataset(folder)`` works offline."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

SPLIT = "test"
SHARD_ROWS = 1000
GROUP_ROWS = 64
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


class ParquetShards:
    """Writes items as they come into ``data/test-0000i-of-0000n.parquet`` under ``root``.

    ``count`` items are expected (it fixes the number of shards in the names). Rows are
    written in row groups of ``group_rows``, so memory stays flat however many items come;
    the same items give the same bytes.
    """

    def __init__(self, root: Path, count: int, shard_rows: int = SHARD_ROWS,
                 group_rows: int = GROUP_ROWS) -> None:
        self._root = root
        self._shards = max(1, -(-count // shard_rows))
        self._shard_rows = shard_rows
        self._group_rows = group_rows
        self._features = _features()
        self._rows: list[dict[str, Any]] = []
        self._writer: Any = None
        self._in_shard = 0
        self._added = 0
        self.written: list[str] = []
        """Relative paths of the shards written so far."""
        (root / DATA_DIR).mkdir(exist_ok=True)

    def add(self, item: dict[str, Any]) -> None:
        """Queue one item (its images are read from ``root``)."""
        if self._added == self._shards * self._shard_rows:
            raise ValueError(f"more items than the {self._shards} shard(s) announced")
        if self._writer is None:
            self._open()
        self._rows.append(self._features.encode_example(_row(item, self._root)))
        self._added += 1
        self._in_shard += 1
        if len(self._rows) >= self._group_rows:
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
        self._writer = pq.ParquetWriter(self._root / name, self._features.arrow_schema,
                                        compression="zstd")
        self.written.append(name)
        self._in_shard = 0

    def _flush(self) -> None:
        import pyarrow as pa

        if self._rows:
            table = pa.Table.from_pylist(self._rows, schema=self._features.arrow_schema)
            self._writer.write_table(table)
            self._rows = []

    def _close_shard(self) -> None:
        self._flush()
        self._writer.close()
        self._writer = None


def write_parquet(items: Iterable[dict[str, Any]], root: Path, count: int,
                  shard_rows: int = SHARD_ROWS) -> list[str]:
    """Write ``count`` items as Parquet shards under ``root``; return the relative paths.

    The schema carries the Hugging Face features (``Image`` columns hold the PNG bytes), so
    the shards load with ``datasets`` and stand alone without the ``images/`` folder.
    """
    shards = ParquetShards(root, count, shard_rows)
    for item in items:
        shards.add(item)
    return shards.close()


def iter_lines(path: Path) -> Iterable[dict[str, Any]]:
    """Items of an ``items.jsonl``."""
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            yield json.loads(line)
