"""The defences against proxy solvers are a strategy the build hands the item builder: the
build's items are what the item builder makes with it, and a strategy governs the proxy
readings, the agreement demands and which instances are drawn, never the plan."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import hopvista
from hopvista.audit.defences import NO_DEFENCES, ProxyDefences, defences_for
from hopvista.domain import DomainPack
from hopvista.generation.defences import Defences, Demands, ProxyItem
from hopvista.generation.instance import Divergence
from hopvista.generation.item import build_item
from hopvista.generation.plan import PlanEntry, make_plan
from hopvista.world import World

from .conftest import read_items

SEED = 11  # the seed of the session's ``world`` fixture
COUNT = 3


@pytest.fixture(scope="module")
def on_and_off(tmp_path_factory: pytest.TempPathFactory) -> dict[bool, Path]:
    """The same small build through the Python API, with the defences on and off."""
    root = tmp_path_factory.mktemp("defences")
    for on in (True, False):
        hopvista.build("financial", root / str(on), count=COUNT, seed=SEED, images=False,
                       defences=on)
    return {on: root / str(on) for on in (True, False)}


def _plan_without_agreement(item: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in item["provenance"]["plan"].items() if k != "agree"}


def test_the_defences_change_the_readings_and_demands_but_never_the_plan(
        on_and_off: dict[bool, Path]) -> None:
    on, off = (read_items(on_and_off[flag]) for flag in (True, False))
    assert [_plan_without_agreement(i) for i in on] == [_plan_without_agreement(i) for i in off]
    assert [i["answer"] for i in on] == [i["answer"] for i in off]
    assert all(s["proxy"] for i in on for s in i["statements"] if set(s["modalities"]) - {"text"})
    assert all("agree" in i["provenance"]["plan"] for i in on)
    assert not any(s["proxy"] for i in off for s in i["statements"])
    assert not any("agree" in i["provenance"]["plan"] or i["provenance"]["agree_waived"]
                   for i in off)
    configs = [hopvista.load(on_and_off[flag]).manifest.config for flag in (True, False)]
    assert {k: v for k, v in configs[0].items() if k != "defences"} == \
        {k: v for k, v in configs[1].items() if k != "defences"}


@pytest.mark.parametrize("on", [True, False])
def test_a_builds_items_are_what_the_item_builder_makes_with_its_strategy(
        on_and_off: dict[bool, Path], pack: DomainPack, world: World, on: bool) -> None:
    plan = make_plan(SEED, COUNT, (1, 2, 3), pack.types, defences=on)
    strategy = defences_for(on, world)
    assert isinstance(strategy, ProxyDefences if on else type(NO_DEFENCES))
    made = [build_item(world, pack, SEED, entry, strategy).model_dump(mode="json")
            for entry in plan]
    assert made == read_items(on_and_off[on])


class _LetEverythingGo:
    """A strategy written outside the package: the proxy defences' readings and columns,
    but every demand let go from the first attempt."""

    def __init__(self, world: World) -> None:
        self._defences = ProxyDefences.of(world)
        self.asked: list[tuple[int, int]] = []

    def divergence(self, entry: PlanEntry) -> Divergence | None:
        return self._defences.divergence(entry)

    def demands(self, entry: PlanEntry, attempt: int, item: ProxyItem) -> Demands:
        self.asked.append((entry.index, attempt))
        reader = self._defences.demands(entry, attempt, item).reader
        return Demands(reader, None, waived=True)


def test_a_strategy_from_outside_governs_the_demands_and_nothing_else(
        pack: DomainPack, world: World) -> None:
    plan = make_plan(SEED, COUNT, (1, 2, 3), pack.types)
    letting_go = _LetEverythingGo(world)
    strategy: Defences = letting_go
    for entry in plan:
        item = build_item(world, pack, SEED, entry, strategy).model_dump(mode="json")
        assert item["provenance"]["plan"] == entry.to_json()
        assert item["answer"] == [slot + 1 for slot in entry.slots if entry.truth(slot)]
        assert [s["type"] for s in item["statements"]] == list(entry.types)
        assert item["provenance"]["agree_waived"] is True
        assert all(s["proxy"] for s in item["statements"] if set(s["modalities"]) - {"text"})
        asked = [attempt for index, attempt in letting_go.asked if index == entry.index]
        assert asked == sorted(set(asked)) and asked[-1] == item["provenance"]["attempts"]
