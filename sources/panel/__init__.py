"""The generic panel source: ``gen build panel --data DIR`` for any entities over periods.

``DIR`` holds ``panel.csv`` (entity, optional period, numeric columns; see
:mod:`~hopvista.sources.panel.table` for how the period column is recognised), optionally
``texts.jsonl`` (passages per entity; facts are extracted from them by rule) and
``domain.yaml`` (any fields of the pack format, merged over the built-in ``panel`` pack; see
:mod:`~hopvista.sources.panel.pack`). A user's own pack folder with ``source: panel`` and its
data beside its ``domain.yaml`` builds with ``gen build DIR``.
"""

from __future__ import annotations

from hopvista.sources import source
from hopvista.sources.panel.loader import load_panel
from hopvista.sources.panel.pack import panel_pack

__all__ = ["load_panel", "panel_pack"]

source("panel", adapt_pack=panel_pack)(load_panel)
