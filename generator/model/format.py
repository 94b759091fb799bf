"""The dataset format's name and version (docs/format.md, section 1)."""

from __future__ import annotations

DATASET_FORMAT = "hopvista-dataset"
"""``manifest.json``'s ``format``."""

FORMAT_VERSION = 6
"""``manifest.json``'s ``format_version``: bump it by hand for a change in a "yes" row of the
table in docs/format.md, section 1, and add a step to :mod:`hopvista.model.migrate`."""
