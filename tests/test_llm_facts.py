"""--llm-facts: claims an LLM proposes for a chunk, kept only where the chunk proves them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hopvista.domain import DomainPack, resolve_pack
from hopvista.llm.facts import ChunkRules, Claim, chunk_rules, claim_problem, parse_claims
from hopvista.sources import SOURCES, SourceOptions
from hopvista.world import World

CSV = """Club,Season,Points,Goals Scored,Goals Conceded,Attendance
Riverton FC,2019,61,58,40,21450.5
Riverton FC,2020,66,63,35,22010.25
Riverton FC,2021,70,71,30,23100
Harbour Athletic,2019,48,45,52,15020
Harbour Athletic,2020,45,40,55,14800
Harbour Athletic,2021,52,49,47,16000
Millbrook United,2019,55,50,44,18000
Millbrook United,2020,57,52,41,18250.5
Millbrook United,2021,59,60,39,18900
"""

RIVERTON = ("Riverton FC was founded in 1898. The club plays its home games at Kestrel Park, "
            "which holds 24,500 spectators. Riverton FC beat Harbour Athletic in the 1954 "
            "Northern Cup final. Riverton FC finished the 2019 season with 61 points.")
TEXTS = [
    {"entity": "Riverton FC", "text": RIVERTON},
    {"entity": "Harbour Athletic",
     "text": "Harbour Athletic hosts the Quayside Youth Tournament every June. The club's "
             "academy has trained 140 professional players."},
    {"entity": "Millbrook United",
     "text": "Millbrook United opened the Eastgate Training Centre in 2011. The club reached "
             "the final of the Northern Cup in 1990."},
]


def panel_folder(root: Path) -> Path:
    """A panel of three clubs with a passage about each."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "panel.csv").write_text(CSV, encoding="utf-8")
    (root / "texts.jsonl").write_text("".join(json.dumps(t) + "\n" for t in TEXTS),
                                      encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def clubs(tmp_path_factory: pytest.TempPathFactory) -> tuple[DomainPack, World]:
    options = SourceOptions(data=panel_folder(tmp_path_factory.mktemp("clubs") / "data"))
    source = SOURCES.get("panel")
    pack = source.pack_for(resolve_pack("panel"), options)
    return pack, source.load(pack, 0, options)


@pytest.fixture(scope="module")
def riverton(clubs: tuple[DomainPack, World]) -> ChunkRules:
    pack, world = clubs
    return chunk_rules(world, world.chunks["riverton-fc"][0], pack.spec.entity.noun_list())


def problem(rules: ChunkRules, claim: str, needle: str) -> str | None:
    return claim_problem(Claim(claim, needle), rules)


def test_a_claim_the_chunk_proves_is_kept(riverton: ChunkRules) -> None:
    assert problem(riverton, "plays its home games at Kestrel Park, which holds 24,500 "
                   "spectators", "Kestrel Park") is None
    assert problem(riverton, "was founded in 1898", "founded in 1898") is None


@pytest.mark.parametrize(("claim", "needle", "reason"), [
    ("plays its home games at Kestrel Stadium", "Kestrel Stadium", "needle_not_verbatim"),
    ("plays its home games at Kestrel Park", "home games at Kestrel Park, which holds "
     "24,500 spectators every week", "needle_not_verbatim"),
    ("plays its home games at Kestrel Park, which holds 25,000 spectators", "Kestrel Park",
     "number_not_in_chunk"),
    ("was founded in 1898 by Thomas Hale", "founded in 1898", "name_not_in_chunk"),
    ("plays its home games at Kestrel Park in March", "Kestrel Park", "name_not_in_chunk"),
    ("beat Harbour Athletic in the 1954 Northern Cup final", "1954 Northern Cup final",
     "names_other_entity"),
    ("plays at Kestrel Park in Riverton", "Kestrel Park", "names_entity"),
    ("is the club that plays at Kestrel Park", "Kestrel Park", "names_entity"),
    ("was not founded in 1898", "founded in 1898", "negation_added"),
    ("was probably founded in 1898", "founded in 1898", "negation_added"),
    ("holds 24,500 spectators", "Kestrel Park", "loses_needle"),
    ("finished the 2019 season with 61 points", "61 points", "states_table_value"),
    ("won the Northern Cup in 1954", "Northern Cup", "other_entity_text"),
    ("We play at Kestrel Park", "Kestrel Park", "not_predicate"),
    ("Kestrel Park is its ground", "Kestrel Park", "not_predicate"),
    ("plays at Kestrel Pаrk", "Kestrel Park", "unreadable"),
    ("was founded in 1898", "founded", "needle_not_distinctive"),
])
def test_each_rule_drops_a_claim_that_breaks_it(riverton: ChunkRules, claim: str, needle: str,
                                                reason: str) -> None:
    assert problem(riverton, claim, needle) == reason


@pytest.mark.parametrize("reply", [
    {"facts": [{"claim": "was founded in 1898", "needle": "founded in 1898"}]},
    [{"claim": "was founded in 1898.", "needle": " founded  in 1898"}],
])
def test_replies_of_the_asked_shape_parse(reply: object) -> None:
    assert parse_claims(reply) == (Claim("was founded in 1898", "founded in 1898"),)


@pytest.mark.parametrize("reply", [
    "founded in 1898", {"claims": []}, {"facts": {"claim": "x"}}, {"facts": ["x"]},
    {"facts": [{"claim": "was founded in 1898"}]}, {"facts": [{"claim": 3, "needle": "x"}]},
])
def test_replies_of_another_shape_are_refused(reply: object) -> None:
    with pytest.raises(ValueError):
        parse_claims(reply)
