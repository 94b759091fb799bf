"""The JSON Schema of the dataset format: of one line of ``items.jsonl`` or of
``manifest.json``, as ``gen schema`` prints it."""

from __future__ import annotations

from typing import Any

from hopvista.model.dataset import Manifest
from hopvista.model.format import FORMAT_VERSION
from hopvista.model.item import Item

JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def json_schema(manifest: bool = False) -> dict[str, Any]:
    """The JSON Schema of an item, or of a manifest with ``manifest``."""
    model = Manifest if manifest else Item
    body = model.model_json_schema()
    return {"$schema": JSON_SCHEMA_DIALECT,
            "$comment": f"hopvista dataset format_version {FORMAT_VERSION}", **body}
