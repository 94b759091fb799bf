"""hopvista: verified multimodal multi-hop reasoning benchmarks.

``hopvista.build``, ``hopvista.build_markup``, ``hopvista.verify`` and ``hopvista.load`` are
the Python API (see :mod:`hopvista.api`); their heavy imports happen on first use, so
``import hopvista`` stays light.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from hopvista.api import VerifyReport, build, build_markup, verify

if TYPE_CHECKING:
    from hopvista.model.dataset import Dataset

from hopvista.version import __version__

__all__ = ["VerifyReport", "__version__", "build", "build_markup", "load", "verify"]


def load(path: str | Path) -> Dataset:
    """Open a dataset folder as a typed :class:`~hopvista.model.Dataset` (items read lazily;
    an older format version is migrated as it is read). See :func:`hopvista.model.load`."""
    from hopvista.model.dataset import load as load_dataset

    return load_dataset(path)
