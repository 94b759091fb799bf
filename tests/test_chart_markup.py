"""Counterfactual markup on charts: three variants per item (control, target emphasised,
distractor emphasised) whose chart images differ from the control only inside the emphasised
mark's recorded box, in every chart library and kind."""

from __future__ import annotations

import io
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from hopvista.augment import VARIANTS
from hopvista.augment.chart_markup import GROUP
from hopvista.augment.chart_markup import VARIANTS as CHART_MARKUP
from hopvista.augment.recipes import Skip, base_of_item
from hopvista.cli.main import main
from hopvista.model import Item
from hopvista.render.chart import ChartRenderer
from hopvista.rng import Streams
from hopvista.themes.chart_kinds import EMPHASIS_HOWS
from hopvista.variants.build import parse_variants
from tests.conftest import read_items
from tests.test_render_chart import (
    ALL_LIBRARIES,
    HAS_CHROMIUM,
    chart_for,
    style_for,
)

GOLDEN = Path(__file__).parent / "golden" / "format6" / "items.jsonl"
MARGIN = 1
"""Pixels a change may lie outside the recorded box (none was ever needed)."""


def _changed_outside(before: np.ndarray, after: np.ndarray, box: list[int]) -> tuple[int, int]:
    """(pixels changed, of them outside ``box`` grown by MARGIN)."""
    changed = np.argwhere((before != after).any(axis=2))
    x, y, w, h = box
    ys, xs = changed[:, 0], changed[:, 1]
    inside = (xs >= x - MARGIN) & (xs < x + w + MARGIN) & \
        (ys >= y - MARGIN) & (ys < y + h + MARGIN)
    return len(changed), int((~inside).sum())


def _array(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


# -- the --variants group and the plans (fast: no drawing) -----------------------------------


def test_chart_markup_names_the_three_variants() -> None:
    specs = parse_variants("web,chart-markup,markup-n")
    assert [s.name for s in specs] == ["web", *CHART_MARKUP, "markup-n"]
    assert sorted(CHART_MARKUP) == ["chart-markup-c", "chart-markup-i", "chart-markup-n"]
    assert {VARIANTS.get(n).group for n in CHART_MARKUP} == {GROUP}


def _golden_bases() -> list[Any]:
    return [base_of_item(Item.model_validate_json(line))
            for line in GOLDEN.read_text().splitlines()]


@pytest.mark.parametrize("name", VARIANTS.names())
def test_every_recipe_plans_a_generated_base_the_same_from_the_same_streams(name: str) -> None:
    recipe = VARIANTS.get(name)
    for base in _golden_bases():
        streams = Streams(7, base.item.base_id, name)
        try:
            first = recipe.plan(base, streams, recipe.parse({}))
        except Skip:
            continue
        assert first == recipe.plan(base, streams, recipe.parse({}))
        json.dumps(first.parameters)
        json.dumps(first.markup)


def test_the_three_variants_share_points_style_and_look() -> None:
    bases = _golden_bases()
    for base in bases:
        plans = {n: VARIANTS.get(n).plan(base, Streams(7, base.item.base_id, n),
                                         VARIANTS.get(n).parse({}))
                 for n in CHART_MARKUP}
        records = [p.markup for p in plans.values()]
        assert all(r is not None and r["modality"] == "chart" for r in records)
        for key in ("target", "distractor", "hijacked", "look"):
            assert len({json.dumps(r[key], sort_keys=True) for r in records if r}) == 1, key
        styles = [{k: v for k, v in (p.chart_style or {}).items() if k != "emphasis"}
                  for p in plans.values()]
        assert all(s == dict(base.item.variant.style["chart"]) for s in styles)
        assert len({json.dumps(dict(p.table_style), sort_keys=True)
                    for p in plans.values()}) == 1
        n, c, i = (plans[v] for v in CHART_MARKUP)
        assert n.markup and n.markup["on"] is None and "emphasis" not in (n.chart_style or {})
        target, rival = n.markup["target"], n.markup["distractor"]
        assert c.chart_style and c.chart_style["emphasis"]["entity"] == target["entity"]
        assert i.chart_style and i.chart_style["emphasis"]["entity"] == rival["entity"]
        look = n.markup["look"]
        assert look["how"] in EMPHASIS_HOWS[base.item.inputs.chart.kind]
        # the target is a point the drawn statement reads; the distractor another entity's
        # point in the same period
        statement = base.item.statements[target["statement"] - 1]
        read = {(x.entity, x.year) for x in statement.cells if x.modality == "chart"}
        assert (target["entity"], target["year"]) in read
        assert target["year"] == rival["year"] and target["entity"] != rival["entity"]
        hijacked = n.markup["hijacked"]
        if hijacked["answer"] is not None:
            assert hijacked["distinguishes"] == (hijacked["answer"] != base.item.answer)
            assert set(hijacked["answer"]) ^ set(base.item.answer) <= {target["statement"]}
    # the golden has items where an exchange flips the statement: those are preferred
    assert any(VARIANTS.get("chart-markup-n").plan(
        b, Streams(7, b.item.base_id, "chart-markup-n"), VARIANTS.get("chart-markup-n").parse({})
    ).markup["hijacked"]["distinguishes"] for b in bases)  # type: ignore[index]


def test_a_base_without_chart_data_or_chart_reader_is_skipped() -> None:
    base = _golden_bases()[0]
    item = base.item
    no_chart = item.model_copy(update={"inputs": item.inputs.model_copy(
        update={"chart": None})})
    no_reader = item.model_copy(update={"statements": tuple(
        s.model_copy(update={"cells": tuple(c for c in s.cells if c.modality != "chart")})
        for s in item.statements)})
    recipe = VARIANTS.get("chart-markup-c")
    for changed, why in ((no_chart, "no chart in data form"),
                         (no_reader, "no statement reads the chart")):
        with pytest.raises(Skip, match=why):
            recipe.plan(base.__class__(changed, base.grid, base.protected),
                        Streams(7, item.base_id, "chart-markup-c"), recipe.parse({}))


# -- drawing the emphasis -----------------------------------------------------------------


@pytest.fixture(scope="module")
def renderer() -> Iterator[ChartRenderer]:
    with ChartRenderer(warm_plotly=HAS_CHROMIUM) as charts:
        yield charts


CASES = [(kind, how) for kind, hows in EMPHASIS_HOWS.items() for how in hows]


@pytest.mark.parametrize("library", ALL_LIBRARIES)
@pytest.mark.parametrize(("kind", "how"), CASES, ids=[f"{k}-{h}" for k, h in CASES])
def test_an_emphasis_changes_only_the_pixels_in_its_box(renderer: ChartRenderer, library: str,
                                                        kind: str, how: str) -> None:
    chart = chart_for(kind)
    names = {s["entity"]: f"{s['entity']} Holdings" for s in chart["series"]}
    style = style_for(library, kind, seed=4)
    plain, meta = renderer.render(chart, names, style)
    assert "emphasis" not in meta
    for n, series in enumerate(chart["series"]):
        year = chart["years"][(2 * n + 1) % len(chart["years"])]
        emphasis = {"entity": series["entity"], "year": year, "how": how,
                    "colour": "#c2185b", "width": 1.5 + n}
        png, drawn = renderer.render(chart, names, style | {"emphasis": emphasis})
        record = drawn["emphasis"]
        assert (record["entity"], record["year"], record["how"]) == \
            (series["entity"], year, how)
        x, y, w, h = record["box"]
        assert w > 0 and h > 0 and x + w <= drawn["width"] and y + h <= drawn["height"]
        changed, outside = _changed_outside(_array(plain), _array(png), record["box"])
        assert changed, f"{library} {kind} {how}: the emphasis changed nothing"
        assert outside == 0, f"{library} {kind} {how}: {outside} pixels changed outside " \
                             f"{record['box']}"


@pytest.mark.parametrize(("change", "field"), [
    ({"entity": "nobody"}, "entity"), ({"year": 1999}, "year"), ({"how": "series"}, "how"),
    ({"colour": "red"}, "colour"), ({"width": 0}, "width"), ({"size": 3}, "size"),
])
def test_an_emphasis_must_name_a_point_of_the_chart(renderer: ChartRenderer,
                                                    change: dict[str, Any], field: str) -> None:
    chart = chart_for("bar")
    names = {s["entity"]: s["entity"] for s in chart["series"]}
    emphasis = {"entity": chart["series"][0]["entity"], "year": chart["years"][0],
                "how": "outline", "colour": "#000000", "width": 2.0} | change
    with pytest.raises(ValueError, match=field):
        renderer.render(chart, names, style_for("matplotlib", "bar") | {"emphasis": emphasis})


# -- a built dataset (slow) -----------------------------------------------------------------


@pytest.fixture(scope="module")
def built(six: Path) -> Path:
    return six


@pytest.fixture(scope="module")
def augmented(built: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("chart-markup") / "chart-markup"
    assert main(["augment", str(built), "--variants", "chart-markup", "--out", str(out)]) == 0
    return out


def _chart(root: Path, item: dict[str, Any]) -> tuple[np.ndarray, dict[str, Any]]:
    (image,) = [i for i in item["images"] if i["role"] == "chart"]
    return np.asarray(Image.open(root / image["path"]).convert("RGB")), image


@pytest.mark.slow
def test_chart_markup_of_a_built_dataset_changes_only_the_emphasised_mark(
        built: Path, augmented: Path) -> None:
    items = {i["id"]: i for i in read_items(augmented)}
    bases = {i["base_id"]: i for i in read_items(built)}
    assert len(items) == 6 * (1 + len(CHART_MARKUP))
    checked = 0
    for base_id, base in bases.items():
        n, c, i = (items[f"{base_id}.{v}"] for v in CHART_MARKUP)
        # the control is the base's chart, redrawn: the same bytes
        plain, plain_image = _chart(augmented, n)
        (base_chart,) = [x for x in base["images"] if x["role"] == "chart"]
        assert plain_image["sha256"] == base_chart["sha256"]
        assert "emphasis" not in plain_image["render"]
        styles = [{k: v for k, v in x["variant"]["style"]["chart"].items() if k != "emphasis"}
                  for x in (n, c, i)]
        assert styles[0] == styles[1] == styles[2] == base["variant"]["style"]["chart"]
        assert n["variant"]["style"]["table"] == c["variant"]["style"]["table"] == \
            i["variant"]["style"]["table"]
        for marked in (c, i):
            markup = marked["variant"]["markup"]
            assert markup["modality"] == "chart" and markup["style"] == markup["look"]["how"]
            assert markup["target"] == n["variant"]["markup"]["target"]
            assert markup["distractor"] == n["variant"]["markup"]["distractor"]
            assert marked["inputs"]["chart"] == base["inputs"]["chart"]
            pixels, image = _chart(augmented, marked)
            emphasis = image["render"]["emphasis"]
            point = markup[markup["on"]]
            assert (emphasis["entity"], emphasis["year"]) == (point["entity"], point["year"])
            changed, outside = _changed_outside(plain, pixels, emphasis["box"])
            assert changed and outside == 0, f"{marked['id']}: {outside} pixels outside"
            checked += 1
    assert checked == 12
    assert main(["verify", str(augmented)]) == 0


@pytest.mark.slow
def test_verify_rejects_an_emphasis_on_another_point(augmented: Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    from tests.conftest import reseal

    forged = tmp_path / "forged"
    shutil.copytree(augmented, forged)
    items = read_items(forged)
    target = next(i for i in items if i["variant"]["name"] == "chart-markup-i")
    markup = target["variant"]["markup"]
    markup["distractor"] = markup["target"]  # the record now says the target was marked
    reseal(forged, items)
    capsys.readouterr()
    assert main(["verify", str(forged)]) == 1
    said = capsys.readouterr().err
    assert target["id"] in said and "not the distractor" in said
