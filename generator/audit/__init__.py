"""``gen audit``: how well proxy solvers that never see one modality answer a dataset.

Each proxy solver withholds one modality (chart, table or text), imputes what it can from the
rest with models learned on the dataset itself (K-fold cross-fitting over items: an item is
answered by models fitted on the other folds only), and runs the item's own programs with the
verifier's independent executor. Plain priors and a blind classifier on the statement wording
complete the picture. :func:`run_audit` returns an :class:`AuditReport`.
"""

from __future__ import annotations

from hopvista.audit.report import (
    AuditReport,
    Check,
    Thresholds,
    audit_items,
    run_audit,
    summary,
)

__all__ = ["AuditReport", "Check", "Thresholds", "audit_items", "run_audit", "summary"]
