"""Perturbations: named image transformations, with a parameter schema and a record.

A :class:`Perturbation` is what a variant recipe applies to an item's image (blur, rotation,
JPEG compression, a photo of a screen, ...). It samples, then applies (albumentations'
``get_params`` then ``apply(img, **params)``). Its entry contract:

- ``name`` — the registered name (``PERTURBATIONS.register(name, ...)`` uses the same one);
- ``parameters`` — a pydantic model class: the perturbation's parameters, their types,
  defaults and bounds. ``schema()`` gives its JSON Schema (what ``gen schema`` and the docs
  publish); bad parameters are a :class:`~hopvista.errors.UserError` naming the field;
- ``sample(rng, size, params) -> drawn`` — every random value the perturbation uses, drawn
  from ``rng`` (the variant's own named stream, :func:`hopvista.rng.stream`, the only source
  of randomness) for an image of ``size = (width, height)``: plain JSON values (numbers,
  strings, lists, dicts), drawn in a fixed order. Per-pixel randomness (sensor noise, a
  displacement field) is drawn by ``apply`` from a generator rebuilt from a state ``sample``
  records (:func:`~hopvista.augment._params.generator_state`), as albumentations' ``ISONoise``
  records a seed;
- ``strength(s) -> params`` (optional) — the parameters at strength ``s`` in [0, 1], so
  that perturbations can be swept on one scale (:meth:`Perturbation.at_strength`);
- ``apply(image, params, drawn) -> Perturbed`` — deterministic, with no generator of its own:
  a *new* PIL image, the record of what it used (what a variant stores as ``drawn``: the exact
  angle, the JPEG quality, ...) and, if it moves pixels, a ``warp`` mapping input points to
  output points (cell boxes follow it). ``image`` is a copy the function may not keep; the
  same image, parameters and drawn values give the same pixels.

:meth:`Perturbation.run` validates, samples, applies and checks the result, and returns the
record a variant stores: ``{"name", "params", "drawn"}``; :meth:`Perturbation.replay` makes
the same image again from such a record. A third-party package registers one with the
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


Size = tuple[int, int]
"""An image's ``(width, height)`` in pixels."""

Sample = Callable[[np.random.Generator, Size, P], dict[str, Any]]
"""``sample(rng, size, params) -> drawn``: the perturbation's random values, as plain JSON."""

Apply = Callable[[Image.Image, P, Mapping[str, Any]], Perturbed]
"""``apply(image, params, drawn) -> Perturbed``: deterministic, no generator."""

Strength = Callable[[float], dict[str, Any]]
"""``strength(s) -> params``: a perturbation's parameters at strength ``s`` in [0, 1] (0 barely
perturbs, 1 is the strongest the scale reaches), so perturbations can be compared and swept
(``scripts/ocr_by_strength.py``)."""


def draws_nothing(rng: np.random.Generator, size: Size, params: BaseModel) -> dict[str, Any]:
    """The ``sample`` of a perturbation that draws nothing (its parameters decide it all)."""
    return {}


def _json_problem(value: Any) -> str | None:
    """Why ``value`` is not plain JSON, or ``None`` when it is."""
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as exc:
        return str(exc)
    return None


@dataclass(frozen=True)
class Perturbation(Generic[P]):
    """One registered perturbation (see the module docstring for the contract)."""

    name: str
    description: str
    parameters: type[P]
    apply: Apply[P]
    sample: Sample[P] = draws_nothing
    strength: Strength | None = None

    def at_strength(self, strength: float) -> P | None:
        """The parameters at ``strength`` (0: barely perturbed, 1: the strongest its
        ``strength`` scale reaches), or ``None`` for a perturbation without one; a
        ``ValueError`` for a strength outside [0, 1]."""
        if not 0.0 <= strength <= 1.0:
            raise ValueError(f"perturbation {self.name!r}: strength {strength} is not in [0, 1]")
        if self.strength is None:
            return None
        return self.parse(self.strength(strength))

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

    def draw(self, size: Size, rng: np.random.Generator,
             params: Mapping[str, Any] | P | None = None) -> dict[str, Any]:
        """The values ``sample`` draws from ``rng`` for an image of ``size``.

        Raises ``TypeError`` when ``sample`` breaks the contract (no dict, or not JSON).
        """
        drawn = self.sample(rng, size, self.parse(params))
        problem = "it is not a dict" if not isinstance(drawn, dict) else _json_problem(drawn)
        if problem is not None:
            raise TypeError(f"perturbation {self.name!r}: sample must return JSON values: "
                            f"{problem}")
        return drawn

    def applied(self, image: Image.Image, drawn: Mapping[str, Any],
                params: Mapping[str, Any] | P | None = None) -> Perturbed:
        """``apply`` with ``drawn`` to a copy of ``image`` (no generator involved); the record
        is ``{"name", "params", "drawn"}``.

        Raises ``TypeError`` when ``apply`` breaks the contract (no PIL image, or a record
        that is not JSON).
        """
        parsed = self.parse(params)
        result = self.apply(image.copy(), parsed, drawn)
        if not isinstance(result, Perturbed) or not isinstance(result.image, Image.Image):
            raise TypeError(f"perturbation {self.name!r}: apply must return "
                            "Perturbed(PIL image, record)")
        record = {"name": self.name, "params": parsed.model_dump(mode="json"),
                  "drawn": result.record}
        problem = _json_problem(record)
        if problem is not None:
            raise TypeError(f"perturbation {self.name!r}: record is not JSON: {problem}")
        return Perturbed(result.image, record, result.warp)

    def run(self, image: Image.Image, rng: np.random.Generator,
            params: Mapping[str, Any] | P | None = None) -> Perturbed:
        """Sample from ``rng``, then apply to a copy of ``image``; the record is
        ``{"name", "params", "drawn"}``."""
        parsed = self.parse(params)
        return self.applied(image, self.draw(image.size, rng, parsed), parsed)

    def replay(self, image: Image.Image, record: Mapping[str, Any],
               rng: np.random.Generator) -> Perturbed:
        """The image ``run`` made from ``image``, again, from the record a variant stored
        (``{"name", "params", "drawn", ...}``) and the named stream it was drawn from.

        The stream gives back what the record leaves out (the generator state of per-pixel
        randomness); every value the record holds must be the one drawn again, or the record
        was altered: a ``UserError`` naming the perturbation and the first such value.
        """
        if record.get("name") != self.name:
            raise UserError(f"perturbation {self.name!r}: the record names perturbation "
                            f"{record.get('name')!r}")
        result = self.run(image, rng, record.get("params"))
        recorded = record.get("drawn")
        if recorded != result.record["drawn"]:
            key = _first_difference(recorded, result.record["drawn"])
            raise UserError(f"perturbation {self.name!r}: drawn.{key}: the record says "
                            f"{_get(recorded, key)!r}, its stream draws "
                            f"{_get(result.record['drawn'], key)!r}")
        return result


def _get(values: Any, key: str) -> Any:
    return values.get(key) if isinstance(values, Mapping) else values


def _first_difference(recorded: Any, drawn: Mapping[str, Any]) -> str:
    """The first key (in sorted order) whose value differs between two records."""
    if not isinstance(recorded, Mapping):
        return "(the whole record)"
    keys = sorted(set(recorded) | set(drawn))
    return next(key for key in keys if recorded.get(key) != drawn.get(key))


def stream_name(role: str, index: int, name: str) -> str:
    """The named stream (among the variant's :class:`~hopvista.rng.Streams`) that the
    ``index``-th perturbation ``name`` of a variant's ``role`` image ("table", "chart") draws
    from: what :meth:`Perturbation.replay` of that step's record needs."""
    return f"perturb.{role}.{index}.{name}"


PERTURBATIONS: Registry[Perturbation[Any]] = Registry("perturbation", "perturbations")
"""Every perturbation by name (entry-point group ``hopvista.perturbations``)."""


def perturbation(name: str, parameters: type[P], sample: Sample[P] | None = None, *,
                 description: str | None = None,
                 strength: Strength | None = None) -> Callable[[Apply[P]], Apply[P]]:
    """Decorator registering ``apply`` as the perturbation ``name``, whose random values
    ``sample`` draws (none when omitted)::

        class BlurParams(Params):
            radius: tuple[float, float] = (0.5, 1.5)

        def draw_blur(rng, size, params):
            return {"radius": uniform(rng, params.radius, 3)}

        @perturbation("blur", BlurParams, draw_blur)
        def blur(image, params, drawn):
            return Perturbed(image.filter(GaussianBlur(drawn["radius"])), dict(drawn))

    ``description`` defaults to the first line of the function's docstring; ``strength``
    maps a strength in [0, 1] to parameters (:data:`Strength`).
    """
    def register(apply: Apply[P]) -> Apply[P]:
        text = description or (apply.__doc__ or "").strip().split("\n")[0]
        PERTURBATIONS.register(name, Perturbation(name, text, parameters, apply,
                                                  sample or draws_nothing, strength))
        return apply

    return register
