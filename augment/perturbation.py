"""Perturbations: named image transformations, with a parameter schema and a record.

A :class:`Perturbation` is what a variant recipe applies to an item's image (blur, rotation,
JPEG compression, a photo of a screen, ...). Its entry contract:

- ``name`` — the registered name (``PERTURBATIONS.register(name, ...)`` uses the same one);
- ``parameters`` — a pydantic model class: the perturbation's parameters, their types,
  defaults and bounds. ``schema()`` gives its JSON Schema (what ``gen schema`` and the docs
  publish); bad parameters are a :class:`~hopvista.errors.UserError` naming the field;
- ``apply(image, rng, params) -> Perturbed`` — a *new* PIL image, a JSON record of what it
  drew (the exact angle, the JPEG quality, ...) and, if it moves pixels, a ``warp`` mapping
  input points to output points (cell boxes follow it). ``image`` is a copy the function may not
  keep; ``rng`` is the variant's own named stream (:func:`hopvista.rng.stream`), the only
  source of randomness; the same image, stream state and parameters give the same pixels.

:meth:`Perturbation.run` validates, applies and checks the result, and returns the record a
variant stores: ``{"name", "params", "drawn"}``. A third-party package registers one with the
:func:`perturbation` decorator (or ``PERTURBATIONS.register``) in a module its
``hopvista.perturbations`` entry point names.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, NamedTuple, TypeVar, cast

import numpy as np
from PIL import Image
from pydantic import BaseModel, ValidationError

from hopvista.errors import UserError
from hopvista.registry import Registry

P = TypeVar("P", bound=BaseModel)


Warp = Callable[[np.ndarray], np.ndarray]
"""Where points of the input image land in the output: ``(N, 2)`` float array of ``(x, y)``
pixel coordinates in, the same shape out (coordinates may fall outside the output image)."""


def parse_params(model: type[P], params: Mapping[str, Any] | None, owner: str) -> P:
    """``params`` validated by ``model`` (defaults filled in); a ``UserError`` that names
    ``owner`` ("perturbation 'noise'", "variant 'photo'") and the first bad field."""
    try:
        return model.model_validate(dict(params or {}))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "parameters"
        raise UserError(f"{owner}: {where}: {first['msg']}") from None


class Perturbed(NamedTuple):
    """A perturbation's result: the new image, a JSON-serialisable record and, for a
    perturbation that moves pixels (perspective, warp, rescaling, padding), the point mapping
    (:data:`Warp`) that carries cell boxes from the input image to the output one. ``warp``
    is ``None`` when pixels stay where they were (blur, noise, JPEG, colour)."""

    image: Image.Image
    record: dict[str, Any]
    warp: Warp | None = None


Apply = Callable[[Image.Image, np.random.Generator, P], Perturbed]
"""``apply(image, rng, params) -> Perturbed``."""


@dataclass(frozen=True)
class Perturbation(Generic[P]):
    """One registered perturbation (see the module docstring for the contract)."""

    name: str
    description: str
    parameters: type[P]
    apply: Apply[P]

    @property
    def origin(self) -> str:
        """The module defining ``apply`` (what the registry reports as the entry's origin)."""
        return str(getattr(self.apply, "__module__", None) or "?")

    def schema(self) -> dict[str, Any]:
        """The JSON Schema of the parameters."""
        return self.parameters.model_json_schema()

    def parse(self, params: Mapping[str, Any] | P | None = None) -> P:
        """Validated parameters (defaults filled in); a ``UserError`` naming the bad field."""
        if isinstance(params, self.parameters):
            return params
        given = cast("Mapping[str, Any] | None", params)  # another model is read as a mapping
        return parse_params(self.parameters, given, f"perturbation {self.name!r}")

    def run(self, image: Image.Image, rng: np.random.Generator,
            params: Mapping[str, Any] | P | None = None) -> Perturbed:
        """Apply to a copy of ``image``; the record is ``{"name", "params", "drawn"}``.

        Raises ``TypeError`` when ``apply`` breaks the contract (no PIL image, or a record
        that is not JSON).
        """
        parsed = self.parse(params)
        result = self.apply(image.copy(), rng, parsed)
        if not isinstance(result, Perturbed) or not isinstance(result.image, Image.Image):
            raise TypeError(f"perturbation {self.name!r}: apply must return "
                            "Perturbed(PIL image, record)")
        record = {"name": self.name, "params": parsed.model_dump(mode="json"),
                  "drawn": result.record}
        try:
            json.dumps(record, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"perturbation {self.name!r}: record is not JSON: {exc}") from None
        return Perturbed(result.image, record, result.warp)


PERTURBATIONS: Registry[Perturbation[Any]] = Registry("perturbation", "perturbations")
"""Every perturbation by name (entry-point group ``hopvista.perturbations``)."""


def perturbation(name: str, parameters: type[P],
                 description: str | None = None) -> Callable[[Apply[P]], Apply[P]]:
    """Decorator registering ``apply`` as the perturbation ``name``::

        class BlurParams(BaseModel):
            radius: float = Field(1.0, gt=0, le=5)

        @perturbation("blur", BlurParams)
        def blur(image, rng, params):
            return Perturbed(image.filter(GaussianBlur(params.radius)), {})

    ``description`` defaults to the first line of the function's docstring.
    """
    def register(apply: Apply[P]) -> Apply[P]:
        text = description or (apply.__doc__ or "").strip().split("\n")[0]
        PERTURBATIONS.register(name, Perturbation(name, text, parameters, apply))
        return apply

    return register
