"""Cell visuals: images inside table cells drawn from attributes that are their known truth.

A :class:`VisualKind` (badge, flag, map, sparkline, minibar, minipie, symbol, avatar; one file
each in this package) says how to

- ``sample(streams, slot=..., **constraints)``: draw plain JSON attributes from the named
  streams it is given (``slot`` names the visual among an item's others; ``constraints`` fix
  attributes, e.g. ``color="red"``);
- ``draw(attributes, size_px)``: the visual as PNG bytes, on a transparent square; the same
  attributes give the same bytes;
- ``colors(attributes)``: the ``#rrggbb`` colours it is drawn with, the one covering most of
  its drawn (opaque) area first;
- ``description(attributes)``: the exact words that stand in for it ("a red circular badge
  with the white initials KF");
- ``questions(attributes)``: what a question may ask of it (:class:`VisualFact`: its colour,
  shape, count, direction, position, ...) and the answers.
- ``icons(attributes)``: the emblems of the icon set it carries (for the dataset card's
  credits; none unless the kind draws icons of :mod:`hopvista.themes.visuals.icons`).

Every method checks the attributes first (:mod:`hopvista.themes.visuals.attributes`): a
malformed one is a one-line :class:`~hopvista.errors.UserError` naming the field. Colours are
names of the closed vocabulary :data:`hopvista.themes.visuals.palette.COLORS`.

A plug-in registers a kind with ``VISUAL_KINDS.register("name", MyKind())`` (or through the
entry-point group ``hopvista.visual_kinds``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from PIL import Image

from hopvista.registry import Registry
from hopvista.rng import Streams
from hopvista.themes.visuals.attributes import Field, check_fields, refuse
from hopvista.themes.visuals.canvas import check_size, png_bytes
from hopvista.themes.visuals.palette import COLORS, distinguishable, hex_of, sample_color

FAMILIES = ("entity", "map", "chart", "visualisation")
"""What MMTabReal's image types a kind belongs to: entities (logos, flags, people), maps,
charts, and in-cell visualisations of a value (ratings, arrows, checks)."""

ASPECTS = ("colour", "shape", "count", "direction", "position", "presence", "text")
"""What a question may ask of a visual."""


@dataclass(frozen=True)
class VisualFact:
    """One thing a question may ask of a visual, and its answer.

    ``attribute`` names the fact (``"color"``, ``"stars"``, ``"highlight"``); ``aspect`` is
    one of :data:`ASPECTS`; ``value`` is the answer as a reader would give it (a colour name,
    a shape, a number, a direction, true or false).
    """

    attribute: str
    aspect: str
    value: str | int | bool

    def to_json(self) -> dict[str, Any]:
        """The fact as plain JSON."""
        return {"attribute": self.attribute, "aspect": self.aspect, "value": self.value}


class VisualKind(ABC):
    """One kind of cell visual; subclasses fill in the class attributes and the ``_``
    methods, which receive attributes already checked against :attr:`fields`."""

    name: ClassVar[str]
    summary: ClassVar[str]
    """One line for ``gen list``."""
    family: ClassVar[str]
    """Which of :data:`FAMILIES` the kind draws (a table's archetype follows from them)."""
    fields: ClassVar[tuple[Field, ...]]
    """The attributes, each typed (see :class:`~hopvista.themes.visuals.attributes.Field`)."""

    def check(self, attributes: object) -> dict[str, Any]:
        """``attributes`` checked (a new dict), or a one-line ``UserError`` naming the field."""
        checked = check_fields(self.name, attributes, self.fields)
        self._consistent(checked)
        return checked

    @abstractmethod
    def _consistent(self, attributes: dict[str, Any]) -> None:
        """Checks across fields (colours told apart, one largest slice, ...); raise
        :func:`~hopvista.themes.visuals.attributes.refuse` naming the field."""

    def vocabulary(self) -> dict[str, list[Any]]:
        """Every value each attribute with a closed set of values may take (a colour, a
        choice, true or false, a bounded whole number), by attribute name: what a question
        about the visual may be answered with, and what ``gen verify`` tries a withheld
        visual as."""
        found: dict[str, list[Any]] = {}
        for field in self.fields:
            if field.type == "color":
                found[field.name] = list(COLORS)
            elif field.type == "choice":
                found[field.name] = list(field.choices)
            elif field.type == "bool":
                found[field.name] = [False, True]
            elif field.type == "int" and field.low is not None and field.high is not None:
                found[field.name] = list(range(field.low, field.high + 1))
        return found

    def given(self, constraints: Mapping[str, Any]) -> dict[str, Any]:
        """``constraints`` checked field by field (they need not name every field)."""
        return check_fields(self.name, constraints,
                            tuple(replace(f, optional=True) for f in self.fields))

    @abstractmethod
    def sample(self, streams: Streams, *, slot: str = "visual",
               **constraints: Any) -> dict[str, Any]:
        """Attributes drawn from ``streams`` under the stream names ``slot.<attribute>``,
        with ``constraints`` fixing some of them; checked before they are returned."""

    def draw(self, attributes: object, size_px: int) -> bytes:
        """The visual as PNG bytes, ``size_px`` square, transparent around its shape."""
        checked = self.check(attributes)
        return png_bytes(self._paint(checked, check_size(size_px)))

    def colors(self, attributes: object) -> list[str]:
        """The ``#rrggbb`` colours drawn, the one covering most of the drawn area first."""
        return [hex_of(name) for name in self.color_names(attributes)]

    def color_names(self, attributes: object) -> list[str]:
        """:meth:`colors` as names of the vocabulary."""
        return self._color_names(self.check(attributes))

    def description(self, attributes: object) -> str:
        """The exact text that stands in for the visual when it is replaced by words."""
        return self._describe(self.check(attributes))

    def questions(self, attributes: object) -> list[VisualFact]:
        """What a question may ask of the visual and the answers, read off its attributes."""
        return self._facts(self.check(attributes))

    def icons(self, attributes: object) -> list[str]:
        """The emblems of the icon set (:data:`hopvista.themes.visuals.icons.EMBLEMS`) the
        drawing carries, so a dataset card can cite the set's licence."""
        return self._icons(self.check(attributes))

    def _icons(self, attributes: dict[str, Any]) -> list[str]:
        """The emblems drawn; a kind that draws no icon (the default) lists none."""
        return []

    @abstractmethod
    def _paint(self, attributes: dict[str, Any], size_px: int) -> Image.Image: ...

    @abstractmethod
    def _color_names(self, attributes: dict[str, Any]) -> list[str]: ...

    @abstractmethod
    def _describe(self, attributes: dict[str, Any]) -> str: ...

    @abstractmethod
    def _facts(self, attributes: dict[str, Any]) -> list[VisualFact]: ...


def sample_colors(streams: Streams, slot: str, names: tuple[str, ...],
                  given: Mapping[str, Any], among: Mapping[str, tuple[str, ...]] | None = None,
                  ) -> dict[str, str]:
    """A colour for each attribute in ``names``: the given ones kept, the others drawn
    (stream ``slot.<name>``) so that no two can be confused; ``among`` narrows the colours
    an attribute may take."""
    chosen = {n: given[n] for n in names if n in given}
    for name in names:
        if name not in chosen:
            chosen[name] = sample_color(streams, f"{slot}.{name}", chosen.values(),
                                        (among or {}).get(name))
    return {name: chosen[name] for name in names}


def require_distinct(kind: str, attributes: Mapping[str, Any], names: tuple[str, ...]) -> None:
    """Refuse, naming the later field, two colour attributes a reader could confuse."""
    seen: list[str] = []
    for name in names:
        value = attributes.get(name)
        if value is None:
            continue
        for earlier in seen:
            if not distinguishable(attributes[earlier], value):
                raise refuse(kind, name, f"{value} cannot be told apart from "
                                         f"{earlier} {attributes[earlier]}")
        seen.append(name)


VISUAL_KINDS: Registry[VisualKind] = Registry(
    "visual kind", "visual_kinds",
    builtins=tuple(f"hopvista.themes.visuals.{module}" for module in (
        "avatar", "badge", "flag", "map", "minibar", "minipie", "sparkline", "symbol")))
"""Every cell visual kind by name."""

def families() -> dict[str, str]:
    """The family (:data:`FAMILIES`) of every registered visual kind that declares one, by
    kind name."""
    found = {name: getattr(VISUAL_KINDS.get(name), "family", None)
             for name in VISUAL_KINDS.names()}
    return {name: family for name, family in found.items() if isinstance(family, str)}


def vocabularies() -> dict[str, dict[str, list[Any]]]:
    """:meth:`VisualKind.vocabulary` of every registered visual kind, by kind name."""
    return {name: VISUAL_KINDS.get(name).vocabulary() for name in VISUAL_KINDS.names()}


__all__ = ["ASPECTS", "FAMILIES", "VISUAL_KINDS", "Field", "VisualFact", "VisualKind", "families",
           "require_distinct", "sample_colors", "vocabularies"]
