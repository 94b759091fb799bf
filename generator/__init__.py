"""hopvista: verified multimodal multi-hop reasoning benchmarks."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hopvista.model.dataset import Dataset

__version__ = "0.1.0"


def load(path: str | Path) -> Dataset:
    """Open a dataset folder as a typed :class:`~hopvista.model.Dataset` (items read lazily;
    an older format version is migrated as it is read). See :func:`hopvista.model.load`."""
    from hopvista.model.dataset import load as load_dataset

    return load_dataset(path)
