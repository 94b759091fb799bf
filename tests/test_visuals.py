"""Cell visuals: every registered kind samples, draws and describes the same way each time,
its recorded first colour is the one covering most of what it draws, and malformed attributes
are refused naming the field."""

from __future__ import annotations

import io
import json
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from PIL import Image

from hopvista.cli.main import main
from hopvista.errors import UserError
from hopvista.rng import Streams
from hopvista.themes.visuals import (
    ASPECTS,
    VISUAL_KINDS,
    Field,
    VisualFact,
    VisualKind,
    require_distinct,
    sample_colors,
)
from hopvista.themes.visuals.canvas import Canvas
from hopvista.themes.visuals.palette import COLORS, CONFUSABLE, first_confusion

SEEDS = range(6)
SIZE_PX = 32
NEAR = 12
"""How far (RGB distance) an edge-blended pixel may stray and still count as a colour."""


class Dot(VisualKind):
    """A plug-in kind as a third party would write it: a disc of one colour."""

    name = "dot"
    summary = "a disc of one colour"
    fields = (Field("color", "color"),)

    def sample(self, streams: Streams, *, slot: str = "visual",
               **constraints: Any) -> dict[str, Any]:
        return self.check(sample_colors(streams, slot, ("color",), self.given(constraints)))

    def _consistent(self, attributes: dict[str, Any]) -> None:
        require_distinct(self.name, attributes, ("color",))

    def _paint(self, attributes: dict[str, Any], size_px: int) -> Image.Image:
        canvas = Canvas(size_px)
        canvas.ellipse((0.1, 0.1, 0.9, 0.9), attributes["color"])
        return canvas.finished()

    def _color_names(self, attributes: dict[str, Any]) -> list[str]:
        return [attributes["color"]]

    def _describe(self, attributes: dict[str, Any]) -> str:
        return f"a {attributes['color']} dot"

    def _facts(self, attributes: dict[str, Any]) -> list[VisualFact]:
        return [VisualFact("color", "colour", attributes["color"])]


@pytest.fixture
def dot_kind() -> Iterator[VisualKind]:
    kind = VISUAL_KINDS.register("dot", Dot())
    yield kind
    VISUAL_KINDS.unregister("dot")


def kinds() -> list[str]:
    """Every registered kind, the plug-in among them (registered for the sweep)."""
    return [*VISUAL_KINDS.names(), "dot"]


@pytest.fixture(params=kinds())
def kind(request: pytest.FixtureRequest, dot_kind: VisualKind) -> VisualKind:
    return VISUAL_KINDS.get(request.param)


def dominant_color(png: bytes, candidates: list[str]) -> str:
    """The candidate colour most opaque pixels of ``png`` show (within :data:`NEAR`)."""
    image = Image.open(io.BytesIO(png)).convert("RGBA")
    assert image.size == (SIZE_PX, SIZE_PX)
    rgbs = {code: tuple(int(code[i:i + 2], 16) for i in (1, 3, 5)) for code in candidates}
    counts: Counter[str] = Counter()
    for pixel in image.get_flattened_data():
        if pixel[3] != 255:
            continue
        for code, rgb in rgbs.items():
            if sum((a - b) ** 2 for a, b in zip(pixel[:3], rgb, strict=False)) <= NEAR ** 2:
                counts[code] += 1
                break
    return counts.most_common(1)[0][0]


def test_same_seed_same_attributes_and_bytes(kind: VisualKind) -> None:
    for seed in SEEDS:
        first = kind.sample(Streams(seed, "item-1"), slot="r1c2")
        again = kind.sample(Streams(seed, "item-1"), slot="r1c2")
        assert first == again
        assert json.loads(json.dumps(first)) == first
        assert kind.draw(first, SIZE_PX) == kind.draw(json.loads(json.dumps(first)), SIZE_PX)


def test_different_seeds_vary(kind: VisualKind) -> None:
    samples = [kind.sample(Streams(seed, "item-1")) for seed in range(12)]
    assert len({json.dumps(s, sort_keys=True) for s in samples}) > 3
    assert len({kind.draw(s, SIZE_PX) for s in samples}) > 3
    other_slot = kind.sample(Streams(0, "item-1"), slot="other")
    other_item = kind.sample(Streams(0, "item-2"))
    assert len({json.dumps(s, sort_keys=True)
                for s in (samples[0], other_slot, other_item)}) > 1


def test_first_colour_covers_most_of_the_drawing(kind: VisualKind) -> None:
    for seed in SEEDS:
        attributes = kind.sample(Streams(seed, "item-1"))
        colors = kind.colors(attributes)
        assert all(c in COLORS.values() for c in colors)
        assert len(set(colors)) == len(colors)
        assert dominant_color(kind.draw(attributes, SIZE_PX), colors) == colors[0], attributes


def test_sampled_colours_are_told_apart(kind: VisualKind) -> None:
    for seed in range(30):
        attributes = kind.sample(Streams(seed, "item-1"))
        assert first_confusion(kind.color_names(attributes)) is None, attributes


def test_description_names_what_a_question_asks(kind: VisualKind) -> None:
    for seed in SEEDS:
        attributes = kind.sample(Streams(seed, "item-1"))
        text = kind.description(attributes)
        assert text == kind.description(attributes) and "\n" not in text
        facts = kind.questions(attributes)
        assert facts and all(f.aspect in ASPECTS for f in facts)
        for fact in facts:
            if fact.aspect in ("colour", "text"):
                assert str(fact.value) in text, (fact, text)
            assert json.loads(json.dumps(fact.to_json()))["value"] == fact.value


def test_constraints_fix_attributes(kind: VisualKind) -> None:
    sampled = kind.sample(Streams(3, "item-1"))
    field = next(f.name for f in kind.fields if f.name in sampled)
    fixed = kind.sample(Streams(7, "item-1"), **{field: sampled[field]})
    assert fixed[field] == sampled[field]
    with pytest.raises(UserError, match=f"visual {kind.name}: attribute 'no_such'"):
        kind.sample(Streams(7, "item-1"), no_such=1)


def test_a_plug_in_kind_is_listed_and_drawn(dot_kind: VisualKind,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list"]) == 0
    listed = capsys.readouterr().out
    assert "cell visual kinds:" in listed and "  dot " in listed and "  badge " in listed
    png = VISUAL_KINDS.get("dot").draw({"color": "blue"}, SIZE_PX)
    assert dominant_color(png, [COLORS["blue"]]) == COLORS["blue"]


def test_the_vocabulary_is_closed_and_distinct() -> None:
    assert len(set(COLORS.values())) == len(COLORS)
    assert all(pair <= set(COLORS) and len(pair) == 2 for pair in CONFUSABLE)


BADGE = {"shape": "circle", "color": "red", "accent": "white", "initials": "KF",
         "emblem": "none"}


@pytest.mark.parametrize(("kind_name", "attributes", "field"), [
    ("badge", {**BADGE, "color": "teal"}, "color"),
    ("badge", {**BADGE, "color": 3}, "color"),
    ("badge", {**BADGE, "initials": "kf"}, "initials"),
    ("badge", {**BADGE, "accent": "red"}, "accent"),
    ("badge", {**BADGE, "slogan": "x"}, "slogan"),
    ("badge", {k: v for k, v in BADGE.items() if k != "shape"}, "shape"),
    ("minibar", {"values": "1,2,3", "color": "blue", "axis": "black"}, "values"),
    ("minibar", {"values": [1, True], "color": "blue", "axis": "black"}, "values"),
    ("minipie", {"values": [2, 2], "colors": ["red", "blue"]}, "values"),
    ("minipie", {"values": [2, 1], "colors": ["red", "orange"]}, "colors"),
    ("symbol", {"symbol": "stars", "stars": 7, "color": "yellow", "empty_color": "grey"},
     "stars"),
    ("symbol", {"symbol": "arrow", "color": "green"}, "direction"),
    ("flag", {"layout": "canton", "colors": ["red", "blue", "white"], "emblem": "none"},
     "colors"),
    ("avatar", {"background": "blue", "skin": "light", "hair_style": "short",
                "hair": "green", "glasses": False, "hat": False, "shirt": "red"}, "hair"),
    ("avatar", {"background": "blue", "skin": "light", "hair_style": "none",
                "glasses": "no", "hat": False, "shirt": "red"}, "glasses"),
    ("map", {"sites": [[0.5, 0.5]] * 9, "highlight": "north", "land": "green",
             "highlight_color": "red", "border": "black"}, "sites"),
])
def test_a_malformed_attribute_is_refused_naming_the_field(
        kind_name: str, attributes: dict[str, Any], field: str) -> None:
    kind = VISUAL_KINDS.get(kind_name)
    for use in (lambda: kind.draw(attributes, SIZE_PX), lambda: kind.colors(attributes),
                lambda: kind.description(attributes), lambda: kind.questions(attributes)):
        with pytest.raises(UserError) as caught:
            use()
        message = str(caught.value)
        assert "\n" not in message
        assert message.startswith(f"visual {kind_name}: attribute {field!r}: "), message


@pytest.mark.parametrize("size", [0, 8, 5000, 32.0, "32", True])
def test_a_size_out_of_range_is_refused(size: object) -> None:
    with pytest.raises(UserError, match="size_px"):
        VISUAL_KINDS.get("badge").draw(BADGE, size)  # type: ignore[arg-type]


def test_attributes_must_be_an_object() -> None:
    with pytest.raises(UserError, match="visual flag: attributes must be an object"):
        VISUAL_KINDS.get("flag").colors(["red"])
