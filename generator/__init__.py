"""hopvista: verified multimodal multi-hop reasoning benchmarks.

The Python API (see :mod:`hopvista.api` and docs/api.md) is reached from here:
``hopvista.build``, ``hopvista.verify``, ``hopvista.load`` and one function for each other
``gen`` command. It is imported on first use, so ``import hopvista`` stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hopvista.version import __version__

if TYPE_CHECKING:
    from hopvista.api import (
        COMMANDS,
        Catalogue,
        VerifyReport,
        build,
        build_markup,
        catalogue,
        estimate_paraphrases,
        evaluate,
        export_harness,
        fetch_sec,
        json_schema,
        load,
        make_variants,
        merge_shards,
        new_domain,
        preview,
        report,
        run_audit,
        statement_types,
        verify,
    )

__all__ = ["COMMANDS", "Catalogue", "VerifyReport", "__version__", "build", "build_markup",
           "catalogue", "estimate_paraphrases",
           "evaluate", "export_harness", "fetch_sec", "json_schema", "load", "make_variants",
           "merge_shards", "new_domain", "preview", "report", "run_audit", "statement_types",
           "verify"]


def __getattr__(name: str) -> Any:
    """The API's functions, imported when first asked for."""
    if name not in __all__:
        raise AttributeError(f"module 'hopvista' has no attribute {name!r}")
    # start-up: the API imports every stage of the package, which ``import hopvista`` (and
    # each ``import hopvista.x``) must not pay for.
    from hopvista import api

    return getattr(api, name)
