"""--llm-facts: claims an LLM proposes for a chunk, kept only where the chunk proves them."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any, cast

import pytest

from hopvista.cli.main import main
from hopvista.domain import DomainPack, resolve_pack
from hopvista.eval.cache import ResponseCache
from hopvista.eval.prices import Prices
from hopvista.llm.client import LlmClient, LlmSpec, Usage
from hopvista.llm.facts import (
    CLAIMS_PER_CHUNK,
    FACT_DRAWS,
    ChunkRules,
    Claim,
    FactsSettings,
    chunk_rules,
    claim_problem,
    facts_world,
    parse_claims,
    with_llm_facts,
)
from hopvista.llm.prompts import prompt_template
from hopvista.sources import SOURCES, SourceOptions
from hopvista.sources.sec.facts import claim_of, needles_of, sentence_spans
from hopvista.world import World
from tests.conftest import read_items
from tests.scripted_server import Behaviour, Script, serve

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
    assert problem(riverton, "originally was founded in 1898", "founded in 1898") is None


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
    ("also Kestrel Park is its ground", "Kestrel Park", "not_predicate"),
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


# --- the build ------------------------------------------------------------------------------

#: What the scripted model proposes for each club's passage (the cue is a phrase of it).
PROPOSED = {
    "Kestrel Park": {"facts": [
        {"claim": "plays its home games at Kestrel Park, which holds 24,500 spectators",
         "needle": "Kestrel Park"},
        {"claim": "plays its home games at Kestrel Stadium", "needle": "Kestrel Stadium"},
        {"claim": "was not founded in 1898", "needle": "founded in 1898"},
        {"claim": "won the Northern Cup in 1954", "needle": "Northern Cup"},
    ]},
    "Quayside Youth Tournament": {"facts": [
        {"claim": "has an academy that has trained 140 professional players",
         "needle": "140 professional players"},
        {"claim": "hosts the Quayside Youth Tournament every July",
         "needle": "Quayside Youth Tournament"},
    ]},
    "Eastgate Training Centre": {"facts": [
        {"claim": "opened the Eastgate Training Centre in 2011",
         "needle": "Eastgate Training Centre"},
    ]},
}


def replies() -> dict[str, list[Behaviour]]:
    """Each passage's scripted reply (one fenced, as models often write JSON)."""
    script: dict[str, list[Behaviour]] = {
        cue: [json.dumps(reply)] for cue, reply in PROPOSED.items()}
    script["Eastgate Training Centre"] = [
        "```json\n" + json.dumps(PROPOSED["Eastgate Training Centre"]) + "\n```"]
    return script


def build_args(data: Path, out: Path, url: str, cache: Path, *more: str) -> list[str]:
    return ["build", "panel", "--data", str(data), "--hops", "1", "-n", "6", "--no-images",
            "--out", str(out), "--llm-facts", "openai:facts-model", "--facts-url", url,
            "--llm-cache", str(cache), *more]


def gen(capsys: pytest.CaptureFixture[str], args: list[str]) -> tuple[int, str]:
    capsys.readouterr()
    code = main(args)
    said = capsys.readouterr()
    return code, said.out + said.err


def llm_record(out: Path) -> dict[str, Any]:
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    return cast("dict[str, Any]", manifest["source"]["llm_facts"])


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-facts")


def test_a_build_merges_the_proved_claims_verifies_and_a_rerun_asks_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data, cache = panel_folder(tmp_path / "data"), tmp_path / "cache"
    script = Script(replies())
    with serve(script) as url:
        code, said = gen(capsys, build_args(data, tmp_path / "one", url, cache))
        assert code == 0, said
        asked = dict(script.requests)
        # another seed: the same world's facts asked for again, other items drawn from them
        code, other = gen(capsys, build_args(data, tmp_path / "two", url, cache, "--seed", "1"))
        assert code == 0, other
    assert asked == dict.fromkeys(PROPOSED, 1)
    assert dict(script.requests) == asked  # the rerun found every answer in the cache
    assert "gen: LLM requests for facts: facts: 3 sent, 0 cached" in said
    assert "gen: LLM requests for facts: facts: 0 sent, 3 cached" in other
    assert "llm facts (openai:facts-model): 3 chunks, 7 claims, 1 kept; dropped: 2 the same " \
           "needle as a fact already kept" in said
    record = llm_record(tmp_path / "one")
    assert record["dropped"] == {"duplicate": 2, "name_not_in_chunk": 1, "negation_added": 1,
                                 "needle_not_verbatim": 1, "other_entity_text": 1}
    assert record["facts"] == [{"entity": "riverton-fc", "chunk": "riverton-fc-text-1",
                                "needle": "Kestrel Park", "claim": "plays its home games at "
                                "Kestrel Park, which holds 24,500 spectators"}]
    assert record["rule_facts"] == "kept" and record["usage"]["prompts"] == 3
    assert llm_record(tmp_path / "two") == record  # the same facts, the same usage
    card = (tmp_path / "one" / "README.md").read_text(encoding="utf-8")
    assert "--llm-facts openai:facts-model" in card and "## Facts from an LLM" in card
    assert "claims proposed: 7; kept: 1\n- dropped by reason: duplicate 2," in card
    written = [p for p in tmp_path.rglob("*") if p.is_file() and p.parent != data]
    assert written and not any(b"sk-test-facts" in p.read_bytes() for p in written)
    assert main(["verify", str(tmp_path / "one")]) == 0


def test_llm_facts_only_leaves_the_rule_based_facts_out(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = panel_folder(tmp_path / "data")
    with serve(Script(replies())) as url:
        code, said = gen(capsys, build_args(data, tmp_path / "out", url, tmp_path / "cache",
                                            "--llm-facts-only"))
    assert code == 0, said
    record = llm_record(tmp_path / "out")
    assert record["rule_facts"] == "left out"
    claims = {f["claim"] for f in record["facts"]}
    assert len(claims) == 3
    used = {s["text"] for item in read_items(tmp_path / "out") for s in item["statements"]
            if s["type"] == "FC"}
    assert used and all(any(c in text for c in claims) for text in used)
    assert main(["verify", str(tmp_path / "out")]) == 0


def test_a_reply_that_is_not_the_json_asked_for_is_asked_again_then_counted(
        clubs: tuple[DomainPack, World], tmp_path: Path) -> None:
    pack, world = clubs
    script = Script({"Kestrel Park": ["Sure! The passage says the club was founded in 1898."],
                     "Quayside Youth Tournament": ['{"facts": [{"claim": "hosts a tournament"}]}'],
                     "Eastgate Training Centre": ["[]"]})
    with serve(script) as url:
        client = LlmClient(LlmSpec("facts", "openai:facts-model", url), ResponseCache(tmp_path),
                           Prices.builtin(), Usage())
        made = with_llm_facts(world, pack, client, prompt_template("facts", pack))
    assert dict(script.requests) == {"Kestrel Park": FACT_DRAWS,
                                     "Quayside Youth Tournament": FACT_DRAWS,
                                     "Eastgate Training Centre": 1}
    record = made.provenance["llm_facts"]
    assert isinstance(record, dict)
    assert record["dropped"] == {"malformed_reply": 2} and record["kept"] == 0
    assert made.chunks == world.chunks  # the rule-based facts stay, nothing added


def test_a_request_that_fails_for_good_stops_the_build_naming_the_chunk(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = panel_folder(tmp_path / "data")
    with serve(Script({"Kestrel Park": [("status", 401)], "": ['{"facts": []}']})) as url:
        code, said = gen(capsys, build_args(data, tmp_path / "out", url, tmp_path / "cache"))
    assert code == 2
    line = said.strip().splitlines()[-1]
    assert line.startswith("gen: error: --llm-facts openai:facts-model: chunk "
                           "riverton-fc-text-1: "), line
    assert "401" in line and "Traceback" not in said
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(("args", "message"), [
    (["--facts-url", "http://127.0.0.1:9/v1"], "--facts-url applies to LLM fact extraction"),
    (["--llm-facts-only"], "--llm-facts-only applies to LLM fact extraction"),
    (["--llm-facts", "openai:"], "--llm-facts 'openai:': give a model as openai:NAME"),
    (["--llm-facts", "openai:m", "--facts-url", "ftp://host/v1"], "--facts-url 'ftp://host/v1'"),
    (["--llm-facts", "openai:m", "--llm-attempts", "2"], "--llm-attempts applies to the "
     "paraphrase stage"),
])
def test_misused_flags_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                    args: list[str], message: str) -> None:
    data = panel_folder(tmp_path / "data")
    code, said = gen(capsys, ["build", "panel", "--data", str(data), "--no-images",
                              "--out", str(tmp_path / "out"), *args])
    assert code == 2 and said.startswith(f"gen: error: {message}"), said
    assert len(said.strip().splitlines()) == 1 and not (tmp_path / "out").exists()


def test_a_domain_without_documents_is_refused(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "panel.csv").write_text(CSV, encoding="utf-8")
    code, said = gen(capsys, ["build", "panel", "--data", str(data), "--no-images", "--out",
                              str(tmp_path / "out"), "--llm-facts", "openai:m",
                              "--llm-cache", str(tmp_path / "cache")])
    assert code == 2, said
    assert said.strip().splitlines()[-1] == (
        "gen: error: --llm-facts: domain 'panel' has no documents (documents: false), so "
        "there is no text to extract facts from")
    assert not (tmp_path / "out").exists()


def _rule_claims(prompt: str) -> str:
    """A stand-in model that proposes what the rule-based extractor finds in the passage."""
    name = re.search(r"about the company\n(.+?)\.\n", prompt)
    passage = prompt.split('"""\n', 1)[1].rsplit('\n"""', 1)[0]
    facts = []
    for start, end in sentence_spans(passage):
        sentence = passage[start:end]
        claim = claim_of(sentence, [name.group(1)] if name else [])
        found = needles_of(claim, sentence) if claim else []
        if claim and found:
            facts.append({"claim": claim, "needle": found[0].needle})
    return json.dumps({"facts": facts[:CLAIMS_PER_CHUNK]})


@pytest.mark.slow
def test_a_sec_build_from_llm_facts_alone_verifies(
        sec_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sec"
    with serve(Script({"": [("call", _rule_claims)]})) as url:
        code, said = gen(capsys, [
            "build", "financial", "--source", "sec", "--data", str(sec_data), "--hops", "1",
            "-n", "6", "--no-images", "--out", str(out), "--llm-facts", "openai:facts-model",
            "--facts-url", url, "--llm-facts-only", "--llm-cache", str(tmp_path / "cache")])
    assert code == 0, said
    record = llm_record(out)
    assert record["kept"] > 10 and record["rule_facts"] == "left out"
    claims = {f["claim"] for f in record["facts"]}
    used = [s["text"] for item in read_items(out) for s in item["statements"]
            if s["type"] == "FC"]
    assert used and all(any(c in text for c in claims) for text in used)
    assert main(["verify", str(out)]) == 0


def test_a_pack_s_own_prompt_is_asked_and_recorded(tmp_path: Path) -> None:
    folder = panel_folder(tmp_path / "data")
    (folder / "prompts").mkdir()
    (folder / "prompts" / "facts.j2").write_text(
        "Club facts, please, from {{ name }}'s passage:\n{{ text }}\n", encoding="utf-8")
    options = SourceOptions(data=folder)
    source = SOURCES.get("panel")
    pack = source.pack_for(resolve_pack("panel"), options)
    world = source.load(pack, 0, options)
    script = Script({"Club facts, please, from Riverton FC's":
                     [json.dumps(PROPOSED["Kestrel Park"])],
                     "Club facts, please": ['{"facts": []}']})
    with serve(script) as url:
        settings = FactsSettings.make("openai:facts-model", url=url, cache=tmp_path / "cache")
        assert settings is not None
        made = facts_world(world, pack, settings)
    assert script.unmatched == 0 and sum(script.requests.values()) == 3
    record = made.provenance["llm_facts"]
    assert isinstance(record, dict) and record["kept"] == 1
    recorded = settings.to_json(pack)["prompts"]["facts"]
    assert recorded["origin"] == "prompts/facts.j2"  # the pack's own, wherever it lies
    assert record["prompt_sha256"] == recorded["sha256"] == hashlib.sha256(
        (folder / "prompts" / "facts.j2").read_bytes()).hexdigest()


def test_shards_of_a_build_with_llm_facts_merge_into_its_bytes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data, cache = panel_folder(tmp_path / "data"), tmp_path / "cache"
    with serve(Script(replies())) as url:
        for out, more in (("single", ()), ("s1", ("--shard", "1/2")), ("s2", ("--shard", "2/2"))):
            code, said = gen(capsys, build_args(data, tmp_path / out, url, cache, "-n", "4",
                                                *more))
            assert code == 0, said
    assert main(["merge", str(tmp_path / "s1"), str(tmp_path / "s2"),
                 "--out", str(tmp_path / "merged")]) == 0
    for name in ("items.jsonl", "manifest.json", "README.md"):
        assert (tmp_path / "single" / name).read_bytes() == \
            (tmp_path / "merged" / name).read_bytes()
