"""The typed model of a dataset: items, statements, programs, images, variants, provenance.

Every object is a frozen pydantic model whose JSON form is the dataset format
(docs/format.md); ``gen schema`` prints the JSON Schema. Layers return new objects
(``item.model_copy(update=...)``, :meth:`Item.with_images`) rather than editing shared ones.
"""

from hopvista.model.dataset import Dataset, Manifest, load
from hopvista.model.format import DATASET_FORMAT, FORMAT_VERSION
from hopvista.model.image import ROLES, Image, by_role, image_path
from hopvista.model.inputs import (
    Chart,
    Column,
    GridTable,
    Inputs,
    MergedCell,
    Series,
    Table,
    TableRow,
    TextChunk,
)
from hopvista.model.item import (
    BASE_VARIANT,
    Entity,
    Item,
    Provenance,
    Variant,
    base_item_id,
    variant_id,
)
from hopvista.model.kinds import ITEM_KINDS, ItemKind, Score, score
from hopvista.model.mmtable import Tags, Visual
from hopvista.model.statement import (
    Claim,
    Distractor,
    EntityClaim,
    FactClaim,
    JudgeVerdict,
    Node,
    OnlyClaim,
    Paraphrase,
    ParaphraseAttempt,
    Program,
    Statement,
    TextCell,
    ValueCell,
)

__all__ = [
    "BASE_VARIANT", "DATASET_FORMAT", "FORMAT_VERSION", "ITEM_KINDS", "ROLES", "Chart", "Claim",
    "Column", "Dataset", "Distractor", "Entity", "EntityClaim", "FactClaim", "GridTable",
    "Image", "Inputs", "Item", "ItemKind", "JudgeVerdict", "Manifest", "MergedCell", "Node",
    "OnlyClaim", "Paraphrase", "ParaphraseAttempt", "Program",
    "Provenance", "Score", "Series", "Statement", "Table", "TableRow", "Tags", "TextCell",
    "TextChunk", "ValueCell", "Variant", "Visual", "base_item_id", "by_role", "image_path",
    "load", "score", "variant_id",
]
