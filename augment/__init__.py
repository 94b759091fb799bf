"""Perturbations and variant recipes.

:data:`PERTURBATIONS` is the registry of image perturbations (see
:mod:`hopvista.augment.perturbation` for the entry contract); third-party packages add theirs
through the ``hopvista.perturbations`` entry-point group. Importing this package registers the
built-in ones — ``noise``, ``rescale``, ``elastic``, ``photo-screen``, ``photo-paper``,
``camera`` — whose
image libraries (OpenCV, albumentations, augraphy: the ``augment`` extra) load on first use.
:data:`VARIANTS` is the registry of variant recipes (:mod:`hopvista.augment.recipes`: TableVista's
ten and any a plug-in adds through ``hopvista.variants``).
:func:`~hopvista.augment.geometry.warp_box` carries a cell box through a perturbation's warp.
"""

from hopvista.augment import (  # noqa: F401  (registers them)
    camera,
    chart_markup,
    elastic,
    markup,
    noise,
    photo,
    rescale,
)
from hopvista.augment.geometry import warp_box
from hopvista.augment.perturbation import (
    PERTURBATIONS,
    Perturbation,
    Perturbed,
    perturbation,
)
from hopvista.augment.recipes import TEN, VARIANTS, Recipe, recipe

__all__ = ["PERTURBATIONS", "TEN", "VARIANTS", "Perturbation", "Perturbed", "Recipe",
           "perturbation", "recipe", "warp_box"]
