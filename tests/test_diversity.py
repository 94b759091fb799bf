"""How statements are worded: WPD and LD (Liu and Soh, 2022) computed by hand on small pairs,
words per statement by level, surface cues per label, and ``gen audit`` and the card section
on a dataset whose statements were paraphrased."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

import hopvista
from hopvista.audit import Thresholds, run_audit
from hopvista.audit.diversity import (
    cue_balance,
    diversity_section,
    ld,
    lemmas,
    measure_wording,
    tokens,
    worded,
    words_by_level,
    wpd,
)
from hopvista.cli.main import main
from tests.conftest import read_items, reseal

LOOSE = ["--max-hard-set", "1", "--max-statement", "1", "--max-blind", "1"]

# -- WPD and LD by hand -----------------------------------------------------------------------


def test_a_text_against_itself_deviates_in_nothing() -> None:
    text = "The company with the highest Long-Term Debt in 2022 is Acme Corp."
    assert wpd(text, text) == 0.0 and ld(text, text) == 0.0


def test_the_reference_demo_pair_a_pure_reordering() -> None:
    """The reference implementation's demo pair. Tokens (punctuation included) and lemmas:
    i go to the market in town yesterday . (positions k/8) against yesterday , i go to the
    market in town . (positions k/9); the eight shared words move by 16, 15, 14, 13, 12, 11,
    10 and 63 seventy-seconds, the full stop by 0: WPD = 154/72 / 9 = 77/324; the same words,
    so LD = 0."""
    source = "I went to the market in town yesterday."
    paraphrase = "Yesterday, I went to the market in town."
    assert lemmas(source) == ["i", "go", "to", "the", "market", "in", "town", "yesterday", "."]
    assert wpd(source, paraphrase) == pytest.approx(77 / 324)
    assert ld(source, paraphrase) == 0.0


def test_a_pure_synonym_swap_moves_nothing_and_changes_words() -> None:
    """the big dog bark . / the large dog bark .: nothing shared moved (WPD 0); two of the
    five distinct words are not shared (LD 2/5)."""
    assert wpd("The big dog barked.", "The large dog barked.") == 0.0
    assert ld("The big dog barked.", "The large dog barked.") == pytest.approx(0.4)


def test_repeated_words_move_by_their_nearest_position() -> None:
    """the cat see the dog / the dog see the cat (positions 0, 1/4, ...): "the" at 0 and 3/4
    in both (0), "see" stays (0), "cat" and "dog" move 3/4 each: WPD = 1.5/4."""
    assert wpd("the cat saw the dog", "the dog saw the cat") == pytest.approx(0.375)
    assert ld("the cat saw the dog", "the dog saw the cat") == 0.0


def test_a_word_more_often_in_one_text_is_measured_from_that_text_either_way() -> None:
    """red at 0 and 1/2, blue at 1 / blue at 0, red at 1: red's two positions are 1 and 1/2
    from the other's one (3/4), blue moved 1: WPD 7/8, whichever text comes first."""
    assert wpd("red red blue", "blue red") == pytest.approx(0.875)
    assert wpd("blue red", "red red blue") == pytest.approx(0.875)


def test_texts_sharing_no_word_deviate_fully() -> None:
    assert wpd("Sales rose.", "Revenue climbed!") == 1.0
    assert ld("Sales rose.", "Revenue climbed!") == 1.0


def test_words_are_compared_as_lemmas() -> None:
    assert lemmas("The firms increased.") == lemmas("the firm increases.") == [
        "the", "firm", "increase", "."]
    assert wpd("The firms increased.", "the firm increases.") == 0.0
    assert ld("The firms increased.", "the firm increases.") == 0.0


def test_tokens_split_as_a_reader_of_numbers_expects() -> None:
    assert tokens("Acme's debt didn't top $1,234.5 (12.5%) in 2022.") == [
        "Acme", "'s", "debt", "did", "n't", "top", "$", "1,234.5", "(", "12.5", "%", ")", "in",
        "2022", "."]


# -- statements, words, cues ------------------------------------------------------------------


def _item(level: str, statements: list[tuple[str, bool]], kind: str = "TB") -> dict[str, Any]:
    return {"difficulty": level,
            "statements": [{"text": text, "label": label, "type": kind}
                           for text, label in statements]}


def _paraphrased(statement: dict[str, Any], text: str, kept: int | None = 1) -> None:
    """Give ``statement`` a paraphrase record whose kept attempt is ``text`` (``kept`` None:
    every attempt rejected, the template stays)."""
    template = statement["text"]
    statement["paraphrase"] = {
        "template": template, "kept": kept, "checks": [],
        "attempts": [{"lexical": text, "syntactic": text, "guard": [],
                      "judge": {"model": "openai:judge", "prompt_sha256": "0" * 64,
                                "verdict": "same"}}]}
    if kept is not None:
        statement["text"] = text


def test_words_per_statement_by_level_of_texts_and_templates() -> None:
    items = [_item("hard", [("One two three four.", True), ("One two - three.", False)]),
             _item("easy", [("Five words are right here.", True)])]
    _paraphrased(items[0]["statements"][0], "One two three four five six.")
    rows = words_by_level(worded(items))
    assert [(r.level, r.statements, r.text, r.template, r.fcmr) for r in rows] == [
        ("easy", 1, 5.0, 5.0, None), ("hard", 2, 4.5, 3.5, 38.9)]


def _balanced(count: int) -> list[dict[str, Any]]:
    return [_item("medium", [(f"Entity {n} had the highest sales in 2022.", n % 2 == 0),
                             (f"Entity {n} had sales above 10 in 2021.", n % 2 == 1)])
            for n in range(count)]


def test_no_cue_separates_balanced_wording() -> None:
    balance = cue_balance(worded(_balanced(40)))
    assert balance.verdict() == "no cue separates the labels beyond chance"
    assert not any(row.separates for row in balance.rows)


def test_a_paraphraser_that_negates_false_statements_is_named() -> None:
    items = _balanced(40)
    for item in items:
        for statement in item["statements"]:
            word = "just" if statement["label"] else "not"
            _paraphrased(statement, statement["text"].replace("had", f"had {word}"))
    balance = cue_balance(worded(items))
    assert [row.cue for row in balance.rows if row.separates] == [
        "negation (not, no, never, n't, ...)"]
    assert balance.verdict().startswith(
        "the cue negation (not, no, never, n't, ...) separates the labels: 0.0% of true "
        "statements, 100.0% of false (p = 0.0005, below 0.05 over ")
    assert cue_balance(worded(items)) == balance  # seeded


def test_the_card_section_only_for_paraphrased_statements() -> None:
    items = _balanced(10)
    assert diversity_section(items) is None
    _paraphrased(items[0]["statements"][0], "In 2022, Entity 0 had the highest sales.")
    _paraphrased(items[1]["statements"][0], "unused", kept=None)
    section = diversity_section(items)
    assert section is not None and section.startswith("### How the statements read\n")
    assert "### How the statements read\n\nDiversity of the kept paraphrases" in section
    assert "| WPD (word position deviation) |" in section and "| 0.20 | 0.12 | 0.07 |" in section
    assert "| LD (lexical deviation) |" in section and "| 0.45 | 0.42 | 0.13 |" in section
    assert "| medium | 20 |" in section
    assert section.endswith("no cue separates the labels beyond chance.")


# -- gen audit on a paraphrased dataset -------------------------------------------------------


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("diversity") / "fin"
    hopvista.build("financial", out, count=15, images=False)
    return out


def test_gen_audit_adds_the_wording_section_after_what_it_printed(
        dataset: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = run_audit(dataset, thresholds=Thresholds(1.0, 1.0, 1.0))
    assert report.wording is not None and report.wording.paraphrased == 0
    without = dataclasses.replace(report, wording=None)
    assert report.render() == f"{without.render()}\n\n{report.wording.render()}"
    main(["audit", str(dataset), *LOOSE])
    printed = capsys.readouterr().out
    assert printed.startswith(without.render())
    assert "paraphrase diversity: no kept paraphrase" in printed


def test_gen_audit_reads_the_paraphrased_texts(dataset: Path, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """True statements' paraphrases open with "Indeed," and false ones' say "not": the blind
    classifier, reading the final texts, tells them apart, and the cue test names the
    negation."""
    root = tmp_path / "paraphrased"
    shutil.copytree(dataset, root)
    items = read_items(root)
    for item in items:
        for statement in item["statements"]:
            text = statement["text"]
            _paraphrased(statement, f"Indeed, {text}" if statement["label"]
                         else f"{text.rstrip('.')}, not a guess.")
    reseal(root, items)
    out = tmp_path / "audit.json"
    assert main(["audit", str(root), "--max-hard-set", "1", "--max-statement", "1",
                 "--json", str(out)]) == 1
    captured = capsys.readouterr()
    failed = captured.err.splitlines()
    assert len(failed) == 2 and failed[0].startswith("FAILED: blind wording classifier")
    assert failed[1].startswith("FAILED: surface cues per label: the cue negation (not, no, "
                                "never, n't, ...) separates the labels: 0.0% of true "
                                "statements, 100.0% of false (p = 0.0005, below 0.05 over ")
    assert "45 statements, 45 with a paraphrase record (45 kept, 0 kept their template)" \
        in captured.out
    assert "the cue negation (not, no, never, n't, ...) separates the labels: 0.0% of true " \
           "statements, 100.0% of false" in captured.out
    wording = json.loads(out.read_text(encoding="utf-8"))["wording"]
    assert wording["kept"] == 45 and wording["wpd"]["mean"] > 0 and wording["ld"]["mean"] > 0
    assert measure_wording(items).wpd == measure_wording(read_items(root)).wpd


def test_a_paraphrase_record_without_its_template_is_named(
        dataset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "broken"
    shutil.copytree(dataset, root)
    items = read_items(root)
    reseal(root, items)
    items[2]["statements"][1]["paraphrase"] = {"kept": 1}  # past the typed model: raw lines
    lines = "".join(json.dumps(item) + "\n" for item in items)
    (root / "items.jsonl").write_text(lines, encoding="utf-8")
    manifest = json.loads((root / "manifest.json").read_text())
    manifest["files"]["items.jsonl"] = hashlib.sha256(lines.encode()).hexdigest()
    (root / "manifest.json").write_text(json.dumps(manifest, indent=2))
    assert main(["audit", str(root), *LOOSE]) == 2
    err = capsys.readouterr().err
    assert err == (f"gen: error: {root / 'items.jsonl'}:3: field "
                   "'statements.1.paraphrase.template': Field required\n")


def test_a_paraphrased_dataset_with_balanced_cues_passes_the_cue_check(
        dataset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "balanced"
    shutil.copytree(dataset, root)
    items = read_items(root)
    for item in items:
        for statement in item["statements"]:
            _paraphrased(statement, f"As the figures show, {statement['text']}")
    reseal(root, items)
    assert main(["audit", str(root), *LOOSE]) == 0
    printed = capsys.readouterr().out
    assert "ok: surface cues per label: no cue separates the labels beyond chance\n" in printed
    section = diversity_section(read_items(root))
    assert section is not None and "| WPD (word position deviation) |" in section
