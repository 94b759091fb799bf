"""Perturbations and variant recipes.

:data:`PERTURBATIONS` is the registry of image perturbations (see
:mod:`hopvista.augment.perturbation` for the entry contract); third-party packages add theirs
through the ``hopvista.perturbations`` entry-point group.
"""

from hopvista.augment.perturbation import (
    PERTURBATIONS,
    Perturbation,
    Perturbed,
    perturbation,
)

__all__ = ["PERTURBATIONS", "Perturbation", "Perturbed", "perturbation"]
