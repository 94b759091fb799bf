"""The built-in materials domain: its pack, its seeded world (physics and text) and a build."""

from __future__ import annotations

import re
import shutil
from decimal import Decimal
from pathlib import Path

import pytest

from hopvista.cli.main import main
from hopvista.display import fmt
from hopvista.domain import DomainPack, resolve_pack
from hopvista.errors import UserError
from hopvista.generation.instance import needle_occurs
from hopvista.sources import SOURCES, SourceOptions, load_world
from hopvista.sources.materials import physics
from hopvista.sources.materials.catalogue import Material, load_catalogue
from hopvista.sources.materials.loader import build_world
from hopvista.world import World

from .conftest import read_items

SEED = 5


@pytest.fixture(scope="module")
def pack() -> DomainPack:
    return resolve_pack("materials")


@pytest.fixture(scope="module")
def world(pack: DomainPack) -> World:
    return load_world("materials", pack, SEED)


@pytest.fixture(scope="module")
def catalogue(pack: DomainPack) -> dict[str, Material]:
    return {m.id: m for m in load_catalogue(str(pack.path))}


def gap_rises(m: Material) -> bool:
    """Lead chalcogenides, SnTe and halide perovskites: dEg/dT > 0."""
    return m.family == "halide perovskite" or (m.family == "IV-VI" and m.structure == "rock-salt")


def series(world: World, entity: str, column: str) -> list[Decimal]:
    values = world.values[entity][column]
    assert all(v is not None for v in values), (entity, column)
    return [v for v in values if v is not None]


def rising(values: list[Decimal]) -> bool:
    return all(b > a for a, b in zip(values, values[1:], strict=False))


def falling(values: list[Decimal]) -> bool:
    return all(b < a for a, b in zip(values, values[1:], strict=False))


def test_pack_validates_and_speaks_of_materials(pack: DomainPack) -> None:
    assert pack.name == "materials"
    assert pack.spec.source == "materials"
    assert pack.spec.entity.plural == "materials"
    assert pack.spec.period is not None and pack.spec.period.format == "{} K"
    assert set(pack.columns()) == set(physics.MODELS)
    assert not pack.columns()["formation_energy"].chartable  # a 0 K quantity: flat
    text = (pack.path / "domain.yaml").read_text(encoding="utf-8").lower()
    forms = text[text.index("\nforms:"):]
    assert not re.search(r"compan|firm|fiscal|\byears?\b", forms)


def test_source_is_registered(pack: DomainPack) -> None:
    assert "materials" in SOURCES.names()
    with pytest.raises(UserError, match="reads no files"):
        load_world("materials", pack, 0, SourceOptions(data=Path(".")))


def test_world_is_deterministic_per_seed(pack: DomainPack, world: World) -> None:
    again = build_world(pack, SEED)
    assert again.values == world.values
    assert again.chunks == world.chunks
    assert [e.name for e in again.entities] == [e.name for e in world.entities]
    other = build_world(pack, SEED + 1)
    assert other.values != world.values


def test_temperatures(pack: DomainPack, world: World) -> None:
    assert world.periods == [200, 300, 400, 500, 600]
    assert build_world(pack, 0, (300, 700)).periods == [300, 400, 500, 600, 700]
    for window in ((300, 350), (300, 400), (50, 400), (600, 300)):
        with pytest.raises(UserError, match="--years"):
            build_world(pack, 0, window)


def test_size_and_classes(world: World, catalogue: dict[str, Material]) -> None:
    assert 60 <= len(world.entities) <= 150
    classes = {m.cls for m in catalogue.values()}
    assert classes == {"metal", "semiconductor", "insulator", "glass"}


def test_values_are_physically_sane(world: World, catalogue: dict[str, Material]) -> None:
    top = max(world.periods)
    for entity in world.entities:
        m = catalogue[entity.id]
        gap = series(world, entity.id, "band_gap")
        assert all(g == 0 for g in gap) if m.cls == "metal" else all(g > 0 for g in gap)
        for key in ("density", "volume_per_atom", "bulk_modulus", "thermal_conductivity",
                    "heat_capacity"):
            assert all(v > 0 for v in series(world, entity.id, key)), (m.name, key)
        assert all(v < 0 for v in series(world, entity.id, "formation_energy")) \
            or m.e_form >= 0
        assert len(set(series(world, entity.id, "formation_energy"))) == 1
        rho = world.values[entity.id]["resistivity"]
        assert (all(v is not None and v > 0 for v in rho) if m.cls == "metal"
                else all(v is None for v in rho))
        seebeck = world.values[entity.id]["seebeck"]
        if m.cls == "metal" or m.seebeck is not None:
            assert all(v is not None for v in seebeck), m.name
        else:  # not reported (insulators and glasses, bar doped exceptions such as SrTiO3)
            assert all(v is None for v in seebeck), m.name
        # solid over the whole temperature range
        assert m.melting + 273 > top, m.name
        # heat capacity below the Dulong-Petit limit (with a few per cent for Cp - Cv)
        limit = Decimal(3 * physics.R / m.mean_atomic_mass * 1.2)
        assert max(series(world, entity.id, "heat_capacity")) < limit, m.name


def test_temperature_coefficients_follow_the_class(world: World,
                                                   catalogue: dict[str, Material]) -> None:
    for entity in world.entities:
        m, e = catalogue[entity.id], entity.id
        assert rising(series(world, e, "heat_capacity")), m.name  # Debye
        assert falling(series(world, e, "bulk_modulus")) == (m.bulk_slope < 0), m.name
        density = series(world, e, "density")
        volume = series(world, e, "volume_per_atom")
        if m.alpha > 0:
            assert falling(density) and rising(volume), m.name
        else:  # negative thermal expansion (ZrW2O8, ScF3)
            assert rising(density) and falling(volume), m.name
        gap = series(world, e, "band_gap")
        if m.cls != "metal":
            assert (rising(gap) if gap_rises(m) else falling(gap)), m.name
        kappa = series(world, e, "thermal_conductivity")
        if m.cls in ("semiconductor", "insulator"):
            assert (rising(kappa) if m.kappa_exponent < 0 else falling(kappa)), m.name
        if m.cls == "glass":
            assert rising(kappa), m.name
        if m.cls == "metal":
            rho = series(world, e, "resistivity")
            negative = m.rho_exp < 0 or m.rho_res > 1  # graphite, metallic glass
            assert (falling(rho) if negative else rising(rho)), m.name
            s = series(world, e, "seebeck")
            assert rising([abs(v) for v in s]), m.name
    materials = list(catalogue.values())
    assert {"PbS", "PbTe", "CsPbBr3"} <= {m.name for m in materials if gap_rises(m)}
    assert {"ZrW2O8", "ScF3"} <= {m.name for m in materials if m.alpha < 0}


def test_facts_are_stated_in_their_chunk(world: World) -> None:
    kinds = set()
    for entity in world.entities:
        chunks = world.chunks[entity.id]
        assert len(chunks) == 2
        for chunk in chunks:
            assert chunk.facts, chunk.id
            assert chunk.text.count("\n\n") == 2  # three paragraphs
            for fact in chunk.facts:
                assert fact.chunk == chunk.id and fact.entity == entity.id
                assert fact.sentence in chunk.text
                assert needle_occurs(fact.needle, fact.sentence)
                assert needle_occurs(fact.needle, chunk.text)
                assert fact.key.startswith(fact.kind + ":")
                assert entity.name not in fact.claim
                assert fact.claim[0].islower()
                kinds.add(fact.kind)
    assert {"structure", "use", "method", "melting"} <= kinds


def test_no_chunk_states_a_chartable_value(world: World) -> None:
    chartable = [c for c in world.columns.values() if c.chartable]
    for entity in world.entities:
        shown = {fmt(v, c.precision) for c in chartable
                 for v in world.values[entity.id][c.key] if v is not None}
        for chunk in world.chunks[entity.id]:
            assert chunk.columns_stated == frozenset()
            assert not re.search(r"\d\.\d", chunk.text), chunk.text  # no decimal figure
            tokens = set(re.findall(r"(?<![\w.,-])[\d,]+(?:\.\d+)?(?![\w.])", chunk.text))
            assert not tokens & shown, (chunk.id, tokens & shown)


def test_no_chunk_names_another_material(world: World) -> None:
    names = {e.id: e.name for e in world.entities}
    patterns = {e: re.compile(r"(?<![\w-])" + re.escape(n) + r"(?![\w-])")
                for e, n in names.items()}
    for entity in world.entities:
        own = entity.name.split(" (")[0]
        for chunk in world.chunks[entity.id]:
            assert own.lower() in chunk.text.lower(), chunk.id  # the text names its material
            others = [names[e] for e, p in patterns.items()
                      if e != entity.id and p.search(chunk.text)]
            assert not others, (chunk.id, others)


def test_broken_catalogue_names_file_and_material(pack: DomainPack, tmp_path: Path) -> None:
    folder = tmp_path / "mat"
    shutil.copytree(pack.path, folder)
    path = folder / "materials.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("name: GaAs, full: gallium arsenide, class: semiconductor",
                                 "name: GaAs, full: gallium arsenide, class: semimetal"),
                    encoding="utf-8")
    broken = resolve_pack(str(folder))
    with pytest.raises(UserError, match=r"materials\.yaml.*GaAs"):
        build_world(broken, 0)


@pytest.mark.slow
def test_build_with_images_verifies(tmp_path: Path) -> None:
    out = tmp_path / "mat"
    assert main(["build", "materials", "-n", "12", "--seed", "3", "--out", str(out)]) == 0
    assert main(["verify", str(out)]) == 0
    items = read_items(out)
    assert {i["difficulty"] for i in items} == {"easy", "medium", "hard"}
    for item in items:
        assert "materials" in item["question"]
        for statement in item["statements"]:
            assert not re.search(r"compan|firm|fiscal|\byears?\b", statement["text"], re.I)
    assert list((out / "images").glob("*.png"))
