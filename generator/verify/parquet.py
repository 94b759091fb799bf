"""The Parquet shards against items.jsonl: same rows, in the same order, with the same fields.

Shards are ``data/test-0000i-of-0000n.parquet`` for i = 0..n-1, all with one n. Rows are
read batch by batch, so memory does not grow with the dataset; row k (over all shards in
order) must be line k+1 of ``items.jsonl``: its columns equal the item's fields, ``item_json``
parses to exactly the item, and the image columns hold the bytes of the image files.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hopvista.model import Item
from hopvista.model.kinds import ITEM_KINDS, THREE_STATEMENT
from hopvista.model.strict_json import parse_strict
from hopvista.verify.images import Images
from hopvista.verify.jsonl import same_json
from hopvista.verify.paths import file_problem

DATA_DIR = "data"
SHARD = re.compile(r"test-([0-9]{5})-of-([0-9]{5})\.parquet")
BATCH_ROWS = 64
PLAIN_FIELDS = ("id", "base_id", "domain", "kind", "difficulty", "hops", "question")
V2_IMAGE_COLUMNS = {"table": "table_image", "chart": "chart_image"}
Report = Callable[[str], None]


def expected_schema(version: int, paraphrased: bool = False) -> Any:
    """The Arrow schema of a shard of format ``version`` (docs/format.md, section 8), without
    its metadata; ``paraphrased``: of a build whose statements were paraphrased (each
    statement's struct then has its ``paraphrase``: template text and kept attempt)."""
    import pyarrow as pa

    statement = [("text", pa.string()), ("label", pa.bool_()), ("type", pa.string())]
    if paraphrased:
        statement.append(("paraphrase", pa.struct([("template", pa.string()),
                                                   ("kept", pa.int32())])))
    image = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
    head = [("id", pa.string()), ("base_id", pa.string())]
    middle = [
        ("domain", pa.string()), ("kind", pa.string()), ("difficulty", pa.string()),
        ("hops", pa.int32()),
        ("entities", pa.list_(pa.struct([("id", pa.string()), ("name", pa.string())]))),
        ("question", pa.string()),
        ("statements", pa.list_(pa.struct(statement))),
    ]
    if version <= 2:
        return pa.schema([*head, *middle, ("answer", pa.list_(pa.int32())),
                          ("table_image", image), ("chart_image", image),
                          ("item_json", pa.string())])
    return pa.schema([*head, ("variant", pa.string()), *middle, ("answer", pa.string()),
                      ("answer_type", pa.string()), ("images", pa.list_(image)),
                      ("image_roles", pa.list_(pa.string())), ("item_json", pa.string())])


def _image_features(features: Any, version: int) -> bool:
    """Whether the Hugging Face features declare the image columns as images."""
    if version <= 2:
        return [features[c]["_type"] for c in V2_IMAGE_COLUMNS.values()] == ["Image", "Image"]
    images = features["images"]
    return images["_type"] in ("List", "Sequence") and images["feature"]["_type"] == "Image"


def shard_names(root: Path, report: Report) -> list[str]:
    """The shard paths in order; a missing data folder, a stray name or a gap is reported."""
    folder = root / DATA_DIR
    if not folder.is_dir() or folder.is_symlink():
        report(f"{DATA_DIR}/: missing (no Parquet shards)")
        return []
    try:
        entries = sorted(p.name for p in folder.iterdir())
    except OSError as exc:
        report(f"{DATA_DIR}/: cannot be read ({exc.strerror})")
        return []
    found: dict[int, int] = {}
    for entry in entries:
        match = SHARD.fullmatch(entry)
        if match is None:
            report(f"{DATA_DIR}/{entry}: not a shard name (test-0000i-of-0000n.parquet)")
        else:
            found[int(match.group(1))] = int(match.group(2))
    totals = sorted(set(found.values()))
    if len(totals) > 1:
        report(f"{DATA_DIR}/: shard names disagree on the number of shards {totals}")
    elif totals and sorted(found) != list(range(totals[0])):
        report(f"{DATA_DIR}/: shards {sorted(found)} are not 0..{totals[0] - 1}")
    elif not found:
        report(f"{DATA_DIR}/: no Parquet shard")
    return [f"{DATA_DIR}/test-{i:05d}-of-{n:05d}.parquet" for i, n in sorted(found.items())]


@dataclass(frozen=True)
class Row:
    """One Parquet row with where it comes from."""

    shard: str
    index: int
    values: dict[str, Any]


def _schema_problem(parquet: Any, version: int) -> str | None:
    schema = parquet.schema_arrow
    bare = schema.remove_metadata()
    if not bare.equals(expected_schema(version)) and \
            not (version > 2 and bare.equals(expected_schema(version, paraphrased=True))):
        return "columns or their types are not the format's"
    try:
        features = json.loads(schema.metadata[b"huggingface"])["info"]["features"]
        declared = _image_features(features, version)
    except (KeyError, TypeError, ValueError, RecursionError):
        declared = False
    if not declared:
        return "no Hugging Face Image features in its metadata (datasets would not decode it)"
    return None


def iter_rows(root: Path, names: list[str], version: int, report: Report) -> Iterator[Row]:
    """Rows of the shards in order, batch by batch. A shard that cannot be read (missing,
    not Parquet, truncated, wrong columns) is reported and yields no further rows."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    for name in names:
        why = file_problem(root, name)
        if why is not None:
            report(f"{name}: {why}")
            continue
        index = 0
        try:
            parquet = pq.ParquetFile(root / name)
            why = _schema_problem(parquet, version)
            if why is not None:
                report(f"{name}: {why}")
                continue
            for batch in parquet.iter_batches(batch_size=BATCH_ROWS):
                for values in batch.to_pylist():
                    yield Row(name, index, values)
                    index += 1
        except (pa.ArrowException, OSError, ValueError) as exc:
            reason = " ".join(str(exc).split())[:160]
            report(f"{name}: not a readable Parquet file after {index} row(s): "
                   f"{type(exc).__name__}: {reason}")


def _projected(items: Any, keys: tuple[str, ...]) -> Any:
    if not isinstance(items, list) or not all(isinstance(x, dict) for x in items):
        return items
    return [{k: x.get(k) for k in keys} for x in items]


def _statement_columns(row: Any, item: dict[str, Any]) -> Any:
    """The item's statements as the row should hold them (with each one's template text and
    kept attempt when the row's statements have a ``paraphrase``)."""
    statements = _projected(item.get("statements"), ("text", "label", "type"))
    paraphrased = isinstance(row, list) and any(isinstance(s, dict) and "paraphrase" in s
                                                for s in row)
    if not paraphrased or not isinstance(statements, list):
        return statements
    full = item.get("statements") or []
    return [shown | {"paraphrase": {
        "template": (record.get("paraphrase") or {}).get("template", shown["text"]),
        "kept": (record.get("paraphrase") or {}).get("kept")}}
        for shown, record in zip(statements, full, strict=False)]


def _image_value(name: str, data: bytes) -> dict[str, Any]:
    return {"bytes": data, "path": Path(name).name}


def reference_answer(answer: Any) -> str:
    """A three-statement answer as a model writes it: ``"1, 3"``, or ``"none"``."""
    return ", ".join(str(n) for n in answer) if answer else "none"


def _image_columns(values: dict[str, Any], item: dict[str, Any], images: Images,
                   version: int) -> list[str]:
    """The image columns that differ from the item's images (``images``: bytes by path)."""
    listed = item["images"]
    if any(images.get(image["path"]) is None for image in listed):
        return []  # an image file itself is unreadable (reported with the item)
    if version <= 2:
        by_role = {image["role"]: image["path"] for image in listed}
        differ = []
        for role, column in V2_IMAGE_COLUMNS.items():
            name = by_role.get(role)
            data = None if name is None else images[name]
            expected = None if name is None or data is None else _image_value(name, data)
            if values[column] != expected:
                differ.append(column)
        return differ
    differ = []
    embedded = [_image_value(image["path"], images[image["path"]] or b"") for image in listed]
    if values["images"] != embedded:
        differ.append("images")
    if values["image_roles"] != [image["role"] for image in listed]:
        differ.append("image_roles")
    return differ


def _reference(item: dict[str, Any]) -> str | None:
    """The answer as the row writes it: a three-statement item's indices, or the reference of
    another kind this install knows (``None``: it cannot be told)."""
    answer = item.get("answer")
    if item.get("kind", THREE_STATEMENT.name) == THREE_STATEMENT.name:
        return reference_answer(answer) if isinstance(answer, list) else None

    if item.get("kind") not in ITEM_KINDS:
        return None
    try:
        return ITEM_KINDS.get(str(item["kind"])).reference(Item.model_validate(item))
    except ValueError:
        return None


def compare_row(row: Row, original: dict[str, Any], item: dict[str, Any],
                images: Images | None, version: int) -> list[str]:
    """Fields of a row that differ from the item. ``original`` is the line of items.jsonl as
    stored, ``item`` the same item in the current format (they are one object for a dataset
    of the current version); ``images`` the item's image bytes by path, ``None`` when they
    could not be established."""
    values, differ = row.values, []
    for key in PLAIN_FIELDS:
        if not same_json(values[key], original.get(key)):
            differ.append(key)
    if version <= 2:
        if not same_json(values["answer"], original.get("answer")):
            differ.append("answer")
    else:
        variant = item.get("variant")
        if values["variant"] != (variant.get("name") if isinstance(variant, dict) else None):
            differ.append("variant")
        if values["answer"] != _reference(item):
            differ.append("answer")
        if values["answer_type"] != item.get("answer_type"):
            differ.append("answer_type")
    if not same_json(values["entities"], _projected(item.get("entities"), ("id", "name"))):
        differ.append("entities")
    if not same_json(values["statements"], _statement_columns(values["statements"], item)):
        differ.append("statements")
    try:
        embedded = parse_strict(values["item_json"])
    except (TypeError, ValueError):
        differ.append("item_json (not valid JSON)")
    else:
        if not same_json(embedded, original):
            differ.append("item_json")
    if images is not None:
        differ += _image_columns(values, item, images, version)
    if not differ:
        return []
    return [f"{row.shard} row {row.index}: {', '.join(differ)} differ(s) from items.jsonl"]
