"""The Parquet shards declare exactly the features ``datasets`` would declare for them."""

from __future__ import annotations

import pytest
from datasets import Features, Image, List, Value

from hopvista.output.parquet import arrow_schema


def _features(paraphrased: bool) -> Features:
    statement = {"text": Value("string"), "label": Value("bool"), "type": Value("string")}
    if paraphrased:
        statement["paraphrase"] = {"template": Value("string"), "kept": Value("int32")}
    text = Value("string")
    return Features({
        "id": text, "base_id": text, "variant": text, "domain": text, "kind": text,
        "difficulty": text, "hops": Value("int32"),
        "entities": [{"id": text, "name": text}], "question": text,
        "statements": [statement], "answer": text, "answer_type": text,
        "images": List(Image()), "image_roles": List(text), "item_json": text,
    })


@pytest.mark.parametrize("paraphrased", [False, True])
def test_the_shards_schema_is_the_one_datasets_declares(paraphrased: bool) -> None:
    ours, theirs = arrow_schema(paraphrased), _features(paraphrased).arrow_schema
    assert ours.equals(theirs, check_metadata=True), (ours, theirs)
    assert Features.from_arrow_schema(ours) == _features(paraphrased)
