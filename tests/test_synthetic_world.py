"""The embedded synthetic financial world: determinism, exact identities, text and facts."""

from __future__ import annotations

import bisect
import hashlib
import os
import re
import shutil
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import pytest
import yaml

import hopvista.templates
from hopvista.domain import Identity, PackSpec, load_pack, parse_identity
from hopvista.errors import GenerationError, UserError
from hopvista.sources.synthetic import MAX_SALE, MIN_SALE, PackLike, load_world
from hopvista.sources.synthetic.facts import SHARED_KINDS
from hopvista.sources.synthetic.plan import load_plan
from hopvista.world import Column, World

FOLDER = Path(hopvista.templates.__file__).parent / "financial"
SEED = 11
N = 120
Q = Decimal("0.001")
MONEY = re.compile(r"\$[\d,]+\.\d+ million")
WE = re.compile(r"\b(we|our|us|ours)\b", re.IGNORECASE)


@dataclass(frozen=True)
class StandIn:
    """The four things load_world reads of a DomainPack."""

    path: Path
    spec: PackSpec
    identities: tuple[Identity, ...]

    @property
    def name(self) -> str:
        return self.spec.name

    def columns(self) -> dict[str, Column]:
        return {c.key: Column(c.key, c.label, c.description, c.unit, c.precision, c.chartable)
                for c in self.spec.columns}


def stand_in(folder: Path = FOLDER, **changes: object) -> StandIn:
    raw = yaml.safe_load((FOLDER / "domain.yaml").read_text(encoding="utf-8"))
    raw.update(changes)
    spec = PackSpec.model_validate(raw)
    return StandIn(folder, spec, tuple(parse_identity(t) for t in spec.identities))


@pytest.fixture(scope="module")
def synth_pack() -> PackLike:
    try:
        return load_pack(FOLDER)
    except UserError:  # statements.yaml not written yet: the source needs none of it
        return stand_in()


@pytest.fixture(scope="module")
def synth(synth_pack: PackLike) -> World:
    return load_world(synth_pack, SEED, n_entities=N)


def rows(world: World) -> dict[str, dict[str, list[Decimal]]]:
    """The panel with its ``None`` (which this source never yields) ruled out."""
    out: dict[str, dict[str, list[Decimal]]] = {}
    for entity_id, row in world.values.items():
        out[entity_id] = {}
        for column, series in row.items():
            assert all(v is not None for v in series), (entity_id, column)
            out[entity_id][column] = [v for v in series if v is not None]
    return out


def all_text(world: World, entity_id: str) -> str:
    return "\n\n".join(c.text for c in world.chunks[entity_id])


def digest(world: World) -> str:
    """sha256 of a canonical dump of the world (sets sorted)."""
    parts = [repr((world.domain, world.source, world.periods, world.columns, world.entities,
                   world.values, world.provenance))]
    for e in world.entities:
        for c in world.chunks[e.id]:
            parts.append(repr((c.id, c.entity, c.section, c.period, c.text,
                               sorted(c.columns_stated), c.facts)))
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def sentences(text: str) -> list[str]:
    return [s for p in text.split("\n\n") for s in re.split(r"(?<=\.) (?=[A-Z])", p)]


# -- determinism -----------------------------------------------------------------------------

def test_same_seed_gives_an_equal_world(synth_pack: PackLike) -> None:
    a = load_world(synth_pack, 3, n_entities=25)
    b = load_world(synth_pack, 3, n_entities=25)
    assert a == b
    assert [c.text for e in a.entities for c in a.chunks[e.id]] == \
           [c.text for e in b.entities for c in b.chunks[e.id]]


def test_different_seeds_differ(synth_pack: PackLike) -> None:
    a = load_world(synth_pack, 3, n_entities=25)
    b = load_world(synth_pack, 4, n_entities=25)
    assert [e.name for e in a.entities] != [e.name for e in b.entities]
    assert a.values["C001"]["sale"] != b.values["C001"]["sale"]
    assert all_text(a, "C001") != all_text(b, "C001")


@pytest.mark.slow
def test_same_world_in_another_process_and_hash_seed() -> None:
    """Nothing depends on string hashing (frozenset order is canonicalised by the digest)."""
    script = (
        "from pathlib import Path\n"
        "import hopvista.templates\n"
        "from hopvista.domain import load_pack\n"
        "from hopvista.sources.synthetic import load_world\n"
        "from tests.test_synthetic_world import digest\n"
        "p = load_pack(Path(hopvista.templates.__file__).parent / 'financial')\n"
        "print(digest(load_world(p, 5, n_entities=15)))\n")
    digests = set()
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        out = subprocess.run([sys.executable, "-c", script], env=env, check=True,
                             capture_output=True, text=True, cwd=FOLDER.parents[1])
        digests.add(out.stdout.strip())
    assert len(digests) == 1


# -- figures ---------------------------------------------------------------------------------

def test_shape_and_precision(synth: World, synth_pack: PackLike) -> None:
    assert synth.domain == "financial" and synth.source == "synthetic"
    assert synth.periods == [2019, 2020, 2021, 2022, 2023]
    assert list(synth.columns) == list(synth_pack.columns())
    assert [e.id for e in synth.entities] == [f"C{i:03d}" for i in range(1, N + 1)]
    for entity in synth.entities:
        row = synth.values[entity.id]
        assert set(row) == set(synth.columns)
        for column, series in row.items():
            assert len(series) == len(synth.periods), (entity.id, column)
            for v in series:
                assert isinstance(v, Decimal), (entity.id, column)
                assert v == v.quantize(Q), (entity.id, column, v)
    prov = synth.provenance
    assert prov["seed"] == SEED and prov["n_entities"] == N
    assert prov["periods"] == synth.periods and "sizes" in prov


def test_every_identity_holds_exactly(synth: World) -> None:
    spec = yaml.safe_load((FOLDER / "domain.yaml").read_text(encoding="utf-8"))
    identities = [parse_identity(t) for t in spec["identities"]]
    assert len(identities) == 6
    checked = 0
    panel = rows(synth)
    for entity in synth.entities:
        row = panel[entity.id]
        for identity in identities:
            for t in range(len(synth.periods)):
                total = sum((sign * row[c][t] for sign, c in identity.terms), Decimal(0))
                assert row[identity.lhs][t] == total, (entity.id, identity.text, t)
                checked += 1
    assert checked == N * 6 * 5


def test_realistic_ranges_and_relations(synth: World) -> None:
    panel = list(rows(synth).values())

    def cells(column: str) -> list[Decimal]:
        return [v for r in panel for v in r[column]]

    assert all(Decimal(MIN_SALE) <= v <= Decimal(MAX_SALE) for v in cells("sale"))
    sales = sorted(r["sale"][-1] for r in panel)
    assert sales[0] < 1000 and sales[-1] > 30_000  # a realistic spread of scales
    for r in panel:
        for t in range(5):
            assert r["act"][t] <= r["at"][t]
            assert r["che"][t] <= r["act"][t]
            assert r["lct"][t] <= r["lt"][t]
            assert r["dltt"][t] <= r["lt"][t]
            assert r["capx"][t] > 0 and r["dv"][t] >= 0 and r["xint"][t] > 0
            assert r["at"][t] > 0 and r["cogs"][t] > 0

    def share(column: str, pred: Callable[[Decimal], bool]) -> float:
        return sum(map(pred, cells(column))) / len(cells(column))

    assert 0.03 < share("ni", lambda v: v < 0) < 0.5
    assert share("ivncf", lambda v: v < 0) > 0.85
    assert 0.5 < share("fincf", lambda v: v < 0) < 0.98
    assert share("nopi", lambda v: v < 0) > 0.1
    assert share("chech", lambda v: v < 0) > 0.1
    assert any(v < 0 for v in cells("seq"))
    assert share("dv", lambda v: v == 0) > 0.1  # non-payers
    # tax is roughly 21% of positive pretax income
    rates = [r["txt"][t] / r["pi"][t] for r in panel for t in range(5)
             if r["pi"][t] > 100]
    assert Decimal("0.17") < sorted(rates)[len(rates) // 2] < Decimal("0.25")


def test_growth_regimes_give_monotone_and_zigzag_series(synth: World) -> None:
    panel = rows(synth)

    def steps(e: str) -> list[int]:
        s = panel[e]["sale"]
        return [1 if b > a else -1 for a, b in zip(s, s[1:], strict=False)]

    patterns = [steps(e.id) for e in synth.entities]
    assert sum(p == [1, 1, 1, 1] for p in patterns) >= 15
    assert sum(p == [-1, -1, -1, -1] for p in patterns) >= 8
    assert sum(p in ([1, -1, 1, -1], [-1, 1, -1, 1]) for p in patterns) >= 8


# -- entities --------------------------------------------------------------------------------

def test_names_and_tickers_are_unique(synth: World) -> None:
    names = [e.name.lower() for e in synth.entities]
    assert len(set(names)) == len(names)
    for a in names:
        assert not any(a != b and a in b for b in names), a
    tickers = [e.attributes["ticker"] for e in synth.entities]
    assert len(set(tickers)) == len(tickers)
    assert all(re.fullmatch(r"[A-Z]{3,4}", t) for t in tickers)
    for e in synth.entities:
        assert {"industry", "hq_city", "hq_state", "incorporation_state"} <= set(e.attributes)


def test_no_entity_name_appears_in_another_entitys_text(synth: World) -> None:
    texts = {e.id: all_text(synth, e.id) for e in synth.entities}
    for e in synth.entities:
        assert e.name in texts[e.id]
        assert not [o for o, t in texts.items() if o != e.id and e.name in t], e.name


# -- text, chunks and facts ------------------------------------------------------------------

def test_chunks_are_three_paragraphs_in_four_sections(synth: World) -> None:
    for e in synth.entities:
        chunks = synth.chunks[e.id]
        assert 6 <= len(chunks) <= 10, (e.id, len(chunks))
        assert {c.section for c in chunks} == {"business", "legal", "mdna", "market_risk"}
        assert e.name in chunks[0].text  # Item 1 opens with the company's name
        for c in chunks:
            assert ".." not in c.text and "  " not in c.text and " ," not in c.text
            assert c.entity == e.id and c.period == 2023
            assert re.fullmatch(rf"{e.id}-(business|legal|mdna|market_risk)-\d", c.id)
            assert c.id.split("-")[1] == c.section
            assert len(c.text.split("\n\n")) == 3
        assert len({c.id for c in chunks}) == len(chunks)


def test_facts_are_in_their_chunks(synth: World) -> None:
    kinds = set()
    for e in synth.entities:
        for c in synth.chunks[e.id]:
            for f in c.facts:
                kinds.add(f.kind)
                assert f.entity == e.id and f.chunk == c.id
                assert f.sentence in c.text
                assert f.needle in f.sentence
                assert f.key.startswith(f.kind + ":") and len(f.key) > len(f.kind) + 1
                assert not WE.search(f.claim), f.claim
                assert e.name.lower() not in f.claim.lower()
                assert f.claim[0].islower() and not f.claim.endswith(".")
    assert {"headquarters", "incorporation", "employees", "facilities", "segments", "product",
            "litigation", "regulatory", "credit_facility", "rate_sensitivity"} <= kinds


def test_needles_occur_once_in_their_own_document(synth: World) -> None:
    """Filler sentences never state a fact: each needle occurs only in its own sentence."""
    for e in synth.entities:
        text = all_text(synth, e.id)
        for c in synth.chunks[e.id]:
            for f in c.facts:
                assert text.count(f.needle) == 1, (e.id, f.kind, f.needle)


def test_most_companies_have_fact_rich_and_figure_free_chunks(synth: World) -> None:
    rich = [sum(len(c.facts) >= 2 for c in synth.chunks[e.id]) >= 4 for e in synth.entities]
    assert sum(rich) / len(rich) >= 0.8
    for e in synth.entities:
        chunks = synth.chunks[e.id]
        assert any(not c.columns_stated for c in chunks)
        assert any(c.columns_stated for c in chunks if c.section == "mdna")
        for c in chunks:
            if c.section != "mdna":
                assert not c.columns_stated, c.id
    facts = [len(c.facts) for e in synth.entities for c in synth.chunks[e.id]]
    assert 12 <= sum(facts) / N <= 22


def test_needle_collision_rate_across_companies(synth: World) -> None:
    """Share of facts whose needle occurs in another company's text (the engine re-checks)."""
    texts = [(e.id, " ".join(all_text(synth, e.id).lower().split())) for e in synth.entities]
    big = "\x00".join(t for _, t in texts)
    starts, pos = [], 0
    for _, t in texts:
        starts.append(pos)
        pos += len(t) + 1
    every = [f for e in synth.entities for c in synth.chunks[e.id] for f in c.facts]
    facts = [f for f in every if f.kind not in SHARED_KINDS]  # those are shared by design
    shared = Counter(f.key for f in every if f.kind in SHARED_KINDS)
    assert shared and all(n >= 2 for n in shared.values()), shared
    colliding = 0
    for f in facts:
        owners = set()
        needle = " ".join(f.needle.lower().split())  # as the engine matches: case-insensitive
        i = big.find(needle)
        while i >= 0:
            owners.add(texts[bisect.bisect_right(starts, i) - 1][0])
            i = big.find(needle, i + 1)
        colliding += bool(owners - {f.entity})
    rate = colliding / len(facts)
    print(f"\nneedle collision rate: {colliding}/{len(facts)} = {rate:.4f}")
    assert rate < 0.01
    keys = [f.key for f in facts]
    print(f"facts sharing a key with another company: {len(keys) - len(set(keys))}")
    assert len(keys) - len(set(keys)) <= len(keys) // 100


def test_columns_stated_match_the_figures_in_mdna(synth: World) -> None:
    keywords = {
        "sale": r"net sales", "gp": r"gross (profit|margin)", "xsga": r"administrative|SG&A",
        "dp": r"depreciation", "oiadp": r"\boperating (income|loss|margin)",
        "xint": r"interest expense", "nopi": r"nonoperating",
        "pi": r"before income taxes|pretax|effective tax rate",
        "txt": r"provision for income taxes|income tax (expense|benefit)|income taxes were",
        "ni": r"net (income|loss)\b", "che": r"cash and short-term investments",
        "oancf": r"operating activities", "capx": r"capital expenditures",
        "ivncf": r"investing activities", "fincf": r"financing activities",
        "dv": r"dividends", "dltt": r"long-term debt", "act": r"current assets",
        "lct": r"current liabilities", "at": r"total assets", "seq": r"stockholders'",
        "chech": r"in cash and cash equivalents|cash and cash equivalents (in|de)creased",
    }
    checked_sales = 0
    for e in synth.entities:
        for c in synth.chunks[e.id]:
            fact_sentences = {f.sentence for f in c.facts}
            for s in sentences(c.text):
                if not MONEY.search(s) or any(s in f or f in s for f in fact_sentences):
                    continue
                for column, pattern in keywords.items():
                    if re.search(pattern, s, re.IGNORECASE):
                        assert column in c.columns_stated, (c.id, column, s)
                checked_sales += bool(re.search(r"net sales", s, re.IGNORECASE))
            for column in c.columns_stated:  # and nothing is claimed that is not said
                assert re.search(keywords[column], c.text, re.IGNORECASE), (c.id, column)
    assert checked_sales >= N  # every company's MD&A discusses net sales with a figure


def test_mdna_figures_are_the_displayed_values(synth: World) -> None:
    e = synth.entities[0]
    sale = rows(synth)[e.id]["sale"][-1]
    shown = f"${sale.quantize(Decimal('0.1'), rounding=ROUND_HALF_UP):,} million"
    mdna = [c for c in synth.chunks[e.id] if "sale" in c.columns_stated]
    assert mdna and shown in mdna[0].text


# -- the pack contract -----------------------------------------------------------------------

def test_a_stand_in_pack_and_other_periods() -> None:
    world = load_world(stand_in(), 2, n_entities=8, first_period=2015, n_periods=3)
    assert world.periods == [2015, 2016, 2017]
    for e in world.entities:
        assert all(len(s) == 3 for s in world.values[e.id].values())
        assert all(c.period == 2017 for c in world.chunks[e.id])
        assert "fiscal 2017" in all_text(world, e.id)


def test_bad_arguments_are_user_errors() -> None:
    with pytest.raises(UserError):
        load_world(stand_in(), 1, n_periods=1)
    with pytest.raises(UserError):
        load_world(stand_in(), -1)
    with pytest.raises(UserError):
        load_world(stand_in(), 1, n_entities=0)


def test_unknown_column_and_wrong_identity_are_refused() -> None:
    raw = yaml.safe_load((FOLDER / "domain.yaml").read_text(encoding="utf-8"))
    extra = [*raw["columns"], {"key": "emp", "label": "Employees", "unit": "thousands",
                               "precision": 1, "description": "Employees."}]
    with pytest.raises(UserError, match="emp"):
        load_world(stand_in(columns=extra), 1, n_entities=2)
    with pytest.raises(GenerationError, match="gp = sale - xsga"):
        load_world(stand_in(identities=["gp = sale - xsga"]), 1, n_entities=2)


def copy_pack(tmp_path: Path) -> Path:
    """The pack's source data (catalogues and text) in a folder of its own, to break."""
    shutil.copytree(FOLDER / "text", tmp_path / "text")
    shutil.copy(FOLDER / "catalogues.yaml", tmp_path / "catalogues.yaml")
    return tmp_path


def test_a_template_alternative_without_the_needle_is_refused(tmp_path: Path) -> None:
    copy_pack(tmp_path)
    business = tmp_path / "text" / "business.j2"
    source = business.read_text(encoding="utf-8")
    broken = source.replace("{% macro headquarters(c, f) %}\n",
                            "{% macro headquarters(c, f) %}\nWe are based in the South.\n")
    assert broken != source
    business.write_text(broken, encoding="utf-8")
    with pytest.raises(UserError, match="headquarters"):
        load_world(stand_in(tmp_path), 1, n_entities=2)


def test_it_is_fast(synth_pack: PackLike) -> None:
    load_world(synth_pack, 1, n_entities=5)  # warm the templates
    started = time.perf_counter()
    world = load_world(synth_pack, 1, n_entities=120)
    elapsed = time.perf_counter() - started
    print(f"\n120 companies in {elapsed:.3f} s")
    assert len(world.entities) == 120
    assert elapsed < 10  # about 0.3 s on a laptop core; generous for loaded CI machines


def test_digest_is_stable_within_a_process(synth: World, synth_pack: PackLike) -> None:
    again = load_world(synth_pack, SEED, n_entities=N)
    assert digest(again) == digest(synth)


def test_figure_columns_are_pack_columns(synth: World) -> None:
    plan, _ = load_plan(FOLDER)
    assert {c for figure in plan.figures.values() for c in figure.columns} <= set(synth.columns)


# -- the pack's data files and their contract with the templates ----------------------------

def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def refused(folder: Path) -> str:
    with pytest.raises(UserError) as caught:
        load_world(stand_in(folder), 1, n_entities=1)
    message = str(caught.value)
    assert "\n" not in message
    return message


def test_a_malformed_catalogue_names_file_line_and_field(tmp_path: Path) -> None:
    folder = copy_pack(tmp_path)
    edit(folder / "catalogues.yaml", "ratios: {gm: [0.26, 0.4]", "ratios: {gm: [0.4, 0.26]")
    message = refused(folder)
    assert "catalogues.yaml:" in message and "industries.0.ratios.gm" in message
    line = int(message.split("catalogues.yaml:")[1].split(":")[0])
    assert "gm: [0.4, 0.26]" in (folder / "catalogues.yaml").read_text().splitlines()[line - 1]


@pytest.mark.parametrize(("old", "new", "field"), [
    ("payer: 0.7", "payer: often", "industries.0.payer"),
    ("    label: Specialty Retail\n", "    label: Specialty Retail\n    colour: red\n",
     "industries.0.colour"),
    ("number_words: [zero, one, two, three, four, five, six]", "number_words: [zero, one]",
     "number_words"),
    ("  - key: software\n", "  - key: retail\n", "industries"),
    ("endings: [n, x, ra, 'on',", "endings: [n, x, ra, on,", "names.endings.3"),
])
def test_a_bad_catalogue_entry_is_a_user_error(tmp_path: Path, old: str, new: str,
                                                field: str) -> None:
    folder = copy_pack(tmp_path)
    edit(folder / "catalogues.yaml", old, new)
    message = refused(folder)
    assert str(folder / "catalogues.yaml") in message and f"'{field}'" in message, message


def test_a_key_given_twice_is_refused(tmp_path: Path) -> None:
    folder = copy_pack(tmp_path)
    edit(folder / "catalogues.yaml", "    payer: 0.7\n", "    payer: 0.7\n    payer: 0.8\n")
    assert "industries.0.payer': given twice" in refused(folder)


def test_a_catalogue_kind_without_a_macro_names_both(tmp_path: Path) -> None:
    folder = copy_pack(tmp_path)
    edit(folder / "catalogues.yaml", "specific: [loyalty]", "specific: [loyalty, fleet]")
    edit(folder / "text" / "plan.yaml", " fact:fleet", "")
    message = refused(folder)
    assert "catalogues.yaml:" in message and "industries.0.specific.1" in message
    assert "plan.yaml" in message and "'fleet'" in message
    edit(folder / "catalogues.yaml", "specific: [loyalty, fleet]", "specific: [loyalty, fleat]")
    assert "unknown industry-specific fact kind 'fleat'" in refused(folder)


def test_a_plan_slot_naming_an_undefined_macro_names_both(tmp_path: Path) -> None:
    folder = copy_pack(tmp_path)
    edit(folder / "text" / "plan.yaml", "fill:segment_detail", "fill:segment_details")
    message = refused(folder)
    assert "plan.yaml:" in message and "sections.business.paragraphs.segments" in message
    assert "'segment_details'" in message and "business.j2 does not define" in message


@pytest.mark.parametrize(("old", "new", "expected"), [
    ("fact:pipeline", "fact:pipe", "draws no fact of kind 'pipe'"),
    ("fig:gross_profit", "fig:gross", "no entry figures.gross"),
    ("fig:gross_profit", "fill:gross_profit", "a fill macro takes (c)"),
    ("gross_profit: {columns: [gp, sale]}", "gross_profit: {columns: [gp, emp]}",
     "produces no column emp"),
    ("fill:segment_detail", "fill;segment_detail", "is not fact:<kind>"),
])
def test_a_plan_that_breaks_the_contract_is_refused(tmp_path: Path, old: str, new: str,
                                                    expected: str) -> None:
    folder = copy_pack(tmp_path)
    edit(folder / "text" / "plan.yaml", old, new)
    message = refused(folder)
    assert "plan.yaml" in message and expected in message, message


def test_a_claims_macro_is_required_for_every_fact_slot(tmp_path: Path) -> None:
    folder = copy_pack(tmp_path)
    edit(folder / "text" / "claims.j2", "{% macro backlog(c, f) %}", "{% macro backlogs(c, f) %}")
    message = refused(folder)
    assert "fact:backlog" in message and "claims.j2 does not define" in message


def test_a_pack_without_catalogues_is_refused(tmp_path: Path) -> None:
    folder = copy_pack(tmp_path)
    (folder / "catalogues.yaml").unlink()
    assert "catalogues.yaml: file not found" in refused(folder)
