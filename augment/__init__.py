"""Perturbations and variant recipes.

:data:`PERTURBATIONS` is the registry of image perturbations (see
:mod:`hopvista.augment.perturbation` for the entry contract); third-party packages add theirs
through the ``hopvista.perturbations`` entry-point group. Importing this package registers the
built-in ones — ``noise``, ``rescale``, ``elastic``, ``photo-screen``, ``photo-paper`` — whose
image libraries (OpenCV, albumentations, augraphy: the ``augment`` extra) load on first use.
:func:`~hopvista.augment.geometry.warp_box` carries a cell box through a perturbation's warp.
"""

from hopvista.augment import elastic, noise, photo, rescale  # noqa: F401  (registers them)
from hopvista.augment.geometry import warp_box
from hopvista.augment.perturbation import (
    PERTURBATIONS,
    Perturbation,
    Perturbed,
    perturbation,
)

__all__ = ["PERTURBATIONS", "Perturbation", "Perturbed", "perturbation", "warp_box"]
