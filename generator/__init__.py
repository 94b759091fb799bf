"""hopvista: verified multimodal multi-hop reasoning benchmarks.

``hopvista.build``, ``hopvista.verify`` and ``hopvista.load`` are the Python API (see
:mod:`hopvista.api`); they are imported on first use, so ``import hopvista`` stays light.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

__all__ = ["__version__", "build", "load", "verify"]

_API = {"build": "hopvista.api", "verify": "hopvista.api", "load": "hopvista.model"}


def __getattr__(name: str) -> Any:
    if name in _API:
        import importlib

        return getattr(importlib.import_module(_API[name]), name)
    raise AttributeError(f"module 'hopvista' has no attribute {name!r}")
