"""``gen build mmtables``: multimodal-table items of MMTabReal's archetypes and taxonomy,
balanced by the plan, re-proved by ``gen verify``, the same bytes for the same seed."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from markupsafe import escape

import hopvista
from hopvista.cli.main import main
from hopvista.errors import UserError
from hopvista.mmtables import plan as plan_module
from hopvista.mmtables.build import build_mmtables, draw_item
from hopvista.mmtables.plan import (
    ANSWER_SHARES,
    ROUND,
    PlanEntry,
    answer_shares,
    archetype_shares,
    askable,
    planned,
)
from hopvista.mmtables.questions import TEMPLATES
from hopvista.model import Item, by_role
from hopvista.model.mmtable import ANSWER_TYPES, ARCHETYPES, QUESTION_TYPES, REASONING
from hopvista.themes.visuals import VISUAL_KINDS
from hopvista.verify.mmtables import archetype_of, kind_families
from tests.conftest import read_items, reseal


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``gen build mmtables -n 120 --no-images``, built once for the module; tests only
    read it (or copy it)."""
    out = tmp_path_factory.mktemp("mmtables") / "mm"
    assert main(["build", "mmtables", "-n", "120", "--no-images", "--out", str(out)]) == 0
    return out


def tally(items: list[dict[str, Any]], key: str) -> Counter[str]:
    return Counter(item["tags"][key] for item in items)


def test_a_build_of_120_makes_every_archetype_question_type_and_reasoning_type(
        built: Path) -> None:
    items = read_items(built)
    assert len(items) == 120
    assert tally(items, "archetype") == dict.fromkeys(ARCHETYPES, 15)
    assert tally(items, "question_type") == dict.fromkeys(QUESTION_TYPES, 30)
    assert tally(items, "reasoning") == dict.fromkeys(REASONING, 24)
    assert tally(items, "answer_type") == {name: 6 * share
                                           for name, share in ANSWER_SHARES.items()}
    assert set(ANSWER_SHARES) == set(ANSWER_TYPES)
    assert {item["kind"] for item in items} == {"mmtable"}
    manifest = json.loads((built / "manifest.json").read_text())
    assert manifest["kind"] == "mmtables"
    assert manifest["shares"]["answer_types"] == dict(sorted(tally(items,
                                                                   "answer_type").items()))
    assert "# Multimodal tables" in (built / "README.md").read_text()


def test_every_item_names_its_entities_in_the_first_column_and_its_pictures_show_no_text(
        built: Path) -> None:
    for item in read_items(built)[:40]:
        rows = item["inputs"]["table"]["rows"]
        assert all(row[0] for row in rows)
        for visual in item["inputs"]["visuals"]:
            assert visual["col"] > 0 and rows[visual["row"] - 1][visual["col"]] == ""
            kind = VISUAL_KINDS.get(visual["kind"])
            assert visual["description"] == kind.description(visual["attributes"])
            assert visual["colors"] == kind.colors(visual["attributes"])


def test_gen_verify_re_proves_the_build(built: Path, capsys: pytest.CaptureFixture[str]
                                        ) -> None:
    assert main(["verify", str(built)]) == 0
    assert "OK: 120 items verified" in capsys.readouterr().out


def test_the_same_seed_gives_the_same_bytes_whatever_the_workers(tmp_path: Path) -> None:
    for workers in ("1", "2"):
        assert main(["build", "mmtables", "-n", "24", "--seed", "5", "--no-images",
                     "--workers", workers, "--out", str(tmp_path / workers)]) == 0
    for name in ("items.jsonl", "manifest.json", "README.md"):
        assert (tmp_path / "1" / name).read_bytes() == (tmp_path / "2" / name).read_bytes()
    other = draw_item(6, 3, archetype_shares(None))
    assert other.question != read_items(tmp_path / "1")[3]["question"]


def _forged(built: Path, tmp_path: Path, change: Any) -> Path:
    out = tmp_path / "forged"
    shutil.copytree(built, out)
    items = read_items(out)
    change(items)
    reseal(out, items)
    return out


def test_a_forged_answer_fails_gen_verify_naming_the_item(
        built: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    forged: list[str] = []

    def forge(items: list[dict[str, Any]]) -> None:
        numeric = next(i for i in items if isinstance(i["answer"], int)
                       and not isinstance(i["answer"], bool))
        numeric["answer"] += 1
        forged.append(numeric["id"])

    out = _forged(built, tmp_path, forge)
    assert main(["verify", str(out)]) == 1
    printed = capsys.readouterr()
    assert f"item {forged[0]}: answer" in printed.out + printed.err
    assert "is not what the program gives" in printed.out + printed.err


@pytest.mark.parametrize(("key", "value", "said"), [
    ("reasoning", "other", "tags.reasoning 'other' is not what"),
    ("question_type", "visual", "tags.question_type 'visual' does not fit the program"),
    ("archetype", "maps-only", "tags.archetype 'maps-only' is not"),
])
def test_an_edited_tag_fails_gen_verify(built: Path, tmp_path: Path, key: str, value: str,
                                        said: str, capsys: pytest.CaptureFixture[str]) -> None:
    def edit(items: list[dict[str, Any]]) -> None:
        item = next(i for i in items if i["tags"]["reasoning"] == "extrema"
                    and i["tags"]["question_type"] == "implicit"
                    and i["tags"]["archetype"] == "single-entity")
        item["tags"][key] = value

    out = _forged(built, tmp_path, edit)
    assert main(["verify", str(out)]) == 1
    printed = capsys.readouterr()
    assert said in printed.out + printed.err


@pytest.mark.parametrize("flags", [["--hops", "2"], ["--source", "sec"],
                                   ["--years", "2020-2024"], ["--periods", "3"],
                                   ["--no-defences"], ["--shard", "1/2"],
                                   ["--executor", "ray"], ["--data", "x"]])
def test_an_option_that_does_not_apply_is_one_line_and_exit_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str]) -> None:
    out = tmp_path / "mm"
    assert main(["build", "mmtables", "-n", "3", "--no-images", "--out", str(out),
                 *flags]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"gen: error: {flags[0]} does not apply to mmtables builds (they take -n/--count, "
        "--seed, --out, --workers, --overwrite and --no-images)"]
    assert not out.exists()


@pytest.mark.slow  # Chromium
def test_a_build_with_images_draws_each_table_with_its_pictures_and_verifies(
        tmp_path: Path) -> None:
    from tests.test_mmtables_images import check_pixels

    out = tmp_path / "mm"
    assert main(["build", "mmtables", "-n", "3", "--seed", "4", "--out", str(out)]) == 0
    assert main(["verify", str(out)]) == 0
    for line in read_items(out):
        item = Item.model_validate(line)
        roles = [image.role for image in item.images]
        assert roles == ["table"] + ["cell-image"] * len(item.inputs.visuals)
        assert item.variant.style["table"]["theme"]
        [table] = by_role(item.images, "table")
        check_pixels(out / table.path, table.render, item)


@pytest.mark.slow  # Chromium
def test_a_picture_written_alone_that_its_visual_does_not_draw_fails_verify(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "mm"
    assert main(["build", "mmtables", "-n", "1", "--seed", "4", "--out", str(out)]) == 0
    items = read_items(out)
    first, second = by_role(Item.model_validate(items[0]).images, "cell-image")[:2]
    forged = (out / second.path).read_bytes()
    (out / first.path).write_bytes(forged)
    items[0]["images"][1]["sha256"] = hashlib.sha256(forged).hexdigest()
    items[0]["images"][1]["width"], items[0]["images"][1]["height"] = \
        second.width, second.height
    reseal(out, items)
    capsys.readouterr()
    assert main(["verify", str(out)]) == 1
    assert f"cell-image image {first.path}: is not the " in capsys.readouterr().err


def test_the_api_builds_mmtables_and_archetype_shares_are_kept(tmp_path: Path) -> None:
    manifest = hopvista.build("mmtables", tmp_path / "a", count=8, images=False)
    assert manifest["kind"] == "mmtables" and manifest["counts"]["items"] == 8
    shares = {"maps-only": 1, "single-entity": 3}
    manifest = build_mmtables(tmp_path / "b", count=8, archetypes=shares,
                              notice=lambda text: None)
    assert manifest["shares"]["archetypes"] == {"maps-only": 2, "single-entity": 6}
    kept = archetype_shares(shares)
    firsts = Counter(planned(0, i, kept).archetype for i in range(4))
    assert firsts == {"maps-only": 1, "single-entity": 3}


def test_the_plan_keeps_question_types_equal_within_one_at_any_count() -> None:
    shares = archetype_shares(None)
    seen: Counter[str] = Counter()
    for index in range(50):
        seen[planned(3, index, shares).question_type] += 1
        assert max(seen.values()) - min(seen[q] for q in QUESTION_TYPES) <= 1


def test_the_verifier_takes_each_kinds_family_from_the_registered_kinds(built: Path) -> None:
    assert kind_families() == {name: VISUAL_KINDS.get(name).family
                               for name in VISUAL_KINDS.names()}
    assert kind_families()["symbol"] == "visualisation"
    item = next(i for i in hopvista.load(built) if i.tags is not None
                and i.tags.archetype == "visualisation")
    assert archetype_of(item) == "visualisation"
    assert archetype_of(item, {"symbol": "entity"}) == "single-entity"


def test_no_seed_plans_a_question_its_table_cannot_ask() -> None:
    from hopvista.mmtables.plan import UNASKABLE, archetype_shares, planned

    shares = archetype_shares(None)
    for seed in range(40):
        entries = [planned(seed, i, shares) for i in range(240)]
        assert not {(e.archetype, e.question_type, e.reasoning) for e in entries} & UNASKABLE
        assert set(Counter(e.archetype for e in entries).values()) == {30}
        assert set(Counter(e.question_type for e in entries).values()) == {60}


def test_gen_preview_shows_each_question_its_answer_and_tags(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "mm"
    assert main(["build", "mmtables", "-n", "3", "--no-images", "--out", str(out)]) == 0
    assert main(["preview", str(out)]) == 0
    page = (out / "preview.html").read_text()
    for line in read_items(out):
        assert str(escape(line["question"])) in page
        answer = line["answer"]
        shown = ", ".join(map(str, answer)) if isinstance(answer, list) and \
            all(isinstance(a, int) for a in answer) else json.dumps(answer, ensure_ascii=False)
        assert f"answer:\n    {escape(shown)}" in page
        assert f"archetype: {line['tags']['archetype']}" in page


# -- the plan: answer types, yes/no and counts ----------------------------------------------


def _plan(seed: int, count: int, answers: dict[str, int] | None = None) -> list[PlanEntry]:
    shares = archetype_shares(None)
    return [planned(seed, index, shares, answers) for index in range(count)]


def test_every_round_plans_each_answer_type_its_share() -> None:
    for seed in range(6):
        entries = _plan(seed, 240)
        for first in range(0, 240, ROUND):
            block = entries[first:first + ROUND]
            assert Counter(e.answer_type for e in block) == ANSWER_SHARES, (seed, first)
            assert all(e.answer_type in askable(e.archetype, e.question_type, e.reasoning)
                       for e in block)


def test_yes_no_questions_are_half_true_in_every_round() -> None:
    for seed in range(6):
        entries = _plan(seed, 240)
        for first in range(0, 240, ROUND):
            truths = Counter(e.truth for e in entries[first:first + ROUND]
                             if e.reasoning == "fact-verification")
            assert truths == {True: 2, False: 2}, (seed, first)
        assert all((e.truth is None) == (e.reasoning != "fact-verification") for e in entries)


def test_counts_are_spread_over_their_range() -> None:
    for seed in range(6):
        counts = Counter(e.count for e in _plan(seed, 240) if e.count is not None)
        assert sum(counts.values()) == 36
        assert max(counts.values()) <= 0.4 * 36, (seed, counts)
        assert set(counts) >= {1, 2, 3, 4}


def test_the_items_answer_what_the_plan_asks(built: Path) -> None:
    items = read_items(built)
    for item in items:
        plan = item["provenance"]["plan"]
        assert plan["answer_type"] == item["tags"]["answer_type"]
        if "truth" in plan:
            assert item["answer"] is plan["truth"]
        if "count" in plan:
            assert item["answer"] == plan["count"]
    answers = Counter(json.dumps(i["answer"]) for i in items if i["program"]["op"] == "check")
    assert answers == {"true": 12, "false": 12}


def test_each_index_is_planned_alone() -> None:
    shares = archetype_shares(None)
    everything = [planned(7, index, shares) for index in range(1000)]
    for index in (999, 537, 9, 0):
        plan_module._round.cache_clear()
        assert planned(7, index, shares) == everything[index]


def test_a_build_of_ten_is_the_first_ten_items_of_a_longer_build(
        built: Path, tmp_path: Path) -> None:
    out = tmp_path / "ten"
    assert main(["build", "mmtables", "-n", "10", "--no-images", "--out", str(out)]) == 0
    assert read_items(out) == read_items(built)[:10]


def test_each_pair_plans_only_answer_types_its_makers_ask() -> None:
    for archetype in ARCHETYPES:
        for (question_type, reasoning), forms in TEMPLATES.items():
            assert askable(archetype, question_type, reasoning) <= set(forms)
    assert askable("maps-only", "answer-mention", "vision-based") == {
        "multiple-entities", "multiple-types", "image-location"}
    assert "multiple-numbers" in askable("single-entity", "implicit", "mathematical")


def test_answer_type_shares_are_kept_and_a_plan_that_cannot_be_kept_is_one_line(
        tmp_path: Path) -> None:
    shares = {"single-entity": 8, "single-number": 6, "multiple-numbers": 2,
              "multiple-entities": 2, "image-location": 1, "multiple-types": 1}
    manifest = build_mmtables(tmp_path / "a", count=20, answer_types=shares,
                              notice=lambda text: None)
    assert manifest["shares"]["answer_types"] == shares
    assert manifest["config"]["answer_type_shares"] == shares
    with pytest.raises(UserError) as caught:
        build_mmtables(tmp_path / "b", count=20, answer_types={"image-location": 20})
    assert str(caught.value).splitlines() == [
        "answer type shares: the questions planned for items 0-19 cannot give image-location "
        "20 (a yes/no is a single-entity, a count a single-number: see docs/mmtables.md for "
        "what each question can answer); give other shares"]
    assert not (tmp_path / "b").exists()
    with pytest.raises(UserError, match="they add up to 3; each is the answer type's items "
                                        "per round of 20"):
        answer_shares({"single-entity": 3})
    with pytest.raises(UserError, match="no answer type 'boolean'"):
        answer_shares({"boolean": 20})
