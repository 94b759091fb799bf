"""``gen verify`` of paraphrased statements: a good paraphrase verifies, a consistent forgery
fails naming the statement and what it lost or added.

The datasets are made without an LLM: a small ``--no-images`` build whose statements get
paraphrase records written into them (the paraphrases are edits of the templates, the checks
the guard's), resealed (``reseal``: Parquet rows, hashes and counts rewritten to match), as
a forger who rewrites the hashes too would do.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hopvista.cli.main import main
from hopvista.domain import DomainPack, Synonyms, render_question, resolve_pack
from hopvista.verify.guard import guard
from tests.conftest import build_dataset, read_items, reseal

JUDGE = {"model": "openai:judge", "prompt_sha256": "0" * 64, "verdict": "same"}
#: Edits that keep the meaning, tried in order on a template (the first that applies).
KEEPING = [("greater than", "more than"), ("less than", "below"), ("highest", "largest"),
           ("lowest", "smallest"), ("decreased", "fell"), ("increased", "rose"),
           ("Net Sales", "revenue"), ("minus", "less")]
Edit = Callable[[dict[str, Any], dict[str, Any]], None]
"""A forger's rewrite of one paraphrased statement (statement, item), in place."""


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A financial build of every level, without images."""
    out = tmp_path_factory.mktemp("plain") / "ds"
    build_dataset(out, "--hops", "1-3", "-n", "9", "--seed", "3", "--no-images")
    return out


def _pack() -> DomainPack:
    return resolve_pack("financial")


def paraphrased(text: str) -> str:
    """A paraphrase of ``text`` that keeps its meaning: a word or a column named by a
    synonym, or the sentence framed."""
    for old, new in KEEPING:
        if re.search(rf"\b{old}\b", text):
            return re.sub(rf"\b{old}\b", new, text, count=1)
    return f"It is the case that {text[0].lower()}{text[1:]}"


def record(statement: dict[str, Any], item: dict[str, Any], text: str,
           attempts: list[dict[str, Any]] | None = None, kept: int | None = 1) -> None:
    """Write ``text`` as the statement's paraphrase, with the record a build would write."""
    pack = _pack()
    template = statement.get("paraphrase", {}).get("template", statement["text"])
    result = guard(text, template, statement, item, pack.words.words, pack.synonyms())
    attempts = attempts if attempts is not None else [
        {"lexical": text, "syntactic": text, "guard": list(result.problems), "judge": JUDGE}]
    statement["paraphrase"] = {"template": template, "kept": kept,
                               "checks": list(result.checks) if kept else [],
                               "attempts": attempts}
    statement["text"] = text if kept else template


def requestion(item: dict[str, Any]) -> None:
    """The item's question rendered from its statements' final texts."""
    pack = _pack()
    entity = pack.spec.entity
    item["question"] = render_question(pack, {
        "names": ", ".join(e["name"] for e in item["entities"]).rstrip("."),
        "statements": [s["text"] for s in item["statements"]],
        "singular": entity.singular, "plural": entity.plural, "noun": entity.singular})


def write_paraphrases(root: Path, items: list[dict[str, Any]],
                      synonyms: dict[str, Any] | None = None) -> None:
    """Reseal ``items`` into ``root`` with ``config.llm`` recording the synonyms used."""
    manifest = json.loads((root / "manifest.json").read_text())
    manifest["config"]["llm"] = {"synonyms": synonyms if synonyms is not None
                                 else _pack().synonyms().to_json()}
    (root / "manifest.json").write_text(json.dumps(manifest, indent=2))
    for item in items:
        requestion(item)
    reseal(root, items)


@pytest.fixture(scope="module")
def good(plain: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The build with every statement paraphrased (some kept, one rejected by the judge)."""
    root = tmp_path_factory.mktemp("good") / "ds"
    shutil.copytree(plain, root)
    items = read_items(root)
    for item in items:
        for statement in item["statements"]:
            record(statement, item, paraphrased(statement["text"]))
    rejected = items[0]["statements"][0]
    rejected_attempt = {"lexical": "x", "syntactic": rejected["text"], "guard": [],
                        "judge": {**JUDGE, "verdict": "changed"}}
    record(rejected, items[0], rejected["paraphrase"]["template"],
           attempts=[rejected_attempt], kept=None)
    write_paraphrases(root, items)
    return root


def _verify(root: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    capsys.readouterr()
    code = main(["verify", str(root), "--max-problems", "0"])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return code, err.splitlines()


def test_a_paraphrased_build_verifies(good: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, lines = _verify(good, capsys)
    assert code == 0, "\n".join(lines)
    texts = [s for item in read_items(good) for s in item["statements"]]
    kept = [s for s in texts if s["paraphrase"]["kept"] is not None]
    assert kept and all(s["text"] != s["paraphrase"]["template"] for s in kept)


def test_without_paraphrases_the_items_have_no_paraphrase_key(plain: Path) -> None:
    assert all("paraphrase" not in s for item in read_items(plain) for s in item["statements"])


# -- consistent forgeries ----------------------------------------------------------------------


def _forge(good: Path, tmp_path: Path, edit: Edit, want: Callable[[dict[str, Any]], bool],
           synonyms: dict[str, Any] | None = None) -> tuple[Path, int]:
    """A copy of ``good`` with the first statement ``want`` accepts rewritten by ``edit``;
    returns the folder and the statement's 1-based number."""
    root = tmp_path / "forged"
    shutil.copytree(good, root)
    items = read_items(root)
    for item in items:
        for n, statement in enumerate(item["statements"], start=1):
            if statement["paraphrase"]["kept"] is not None and want(statement):
                edit(statement, item)
                write_paraphrases(root, items, synonyms)
                return root, n
    raise AssertionError("no statement to forge")


def _fails(root: Path, n: int, capsys: pytest.CaptureFixture[str], *clauses: str) -> list[str]:
    code, lines = _verify(root, capsys)
    assert code == 1, "\n".join(lines)
    named = [line for line in lines if f"statement {n} (" in line]
    for clause in clauses:
        assert any(clause in line for line in named), "\n".join(lines)
    return named


def _texted(old: str, new: str, count: int = 1) -> Edit:
    def edit(statement: dict[str, Any], item: dict[str, Any]) -> None:
        record(statement, item, statement["text"].replace(old, new, count))
    return edit


def _has(word: str) -> Callable[[dict[str, Any]], bool]:
    return lambda s: re.search(rf"\b{word}\b", s["text"]) is not None


def test_a_dropped_year_fails(good: Path, tmp_path: Path,
                              capsys: pytest.CaptureFixture[str]) -> None:
    def drop(statement: dict[str, Any], item: dict[str, Any]) -> None:
        year = str(statement["program"]["select"]["year"])
        record(statement, item, statement["text"].replace(f" in {year}", ""))

    root, n = _forge(good, tmp_path, drop,
                     lambda s: s["type"] == "CT" and
                     f" in {s['program']['select']['year']}" in s["text"])
    _fails(root, n, capsys, "the paraphrase drops the year")


def test_a_flipped_increase_fails(good: Path, tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    def flip(statement: dict[str, Any], item: dict[str, Any]) -> None:
        text = statement["text"]
        for old, new in (("rose", "fell"), ("fell", "rose"), ("increased", "decreased"),
                         ("decreased", "increased")):
            if re.search(rf"\b{old}\b", text):
                record(statement, item, re.sub(rf"\b{old}\b", new, text))
                return
        raise AssertionError(text)

    root, n = _forge(good, tmp_path, flip,
                     lambda s: bool(re.search(r"\b(rose|fell|increased|decreased)\b",
                                              s["text"])))
    _fails(root, n, capsys, "the paraphrase drops the direction")


def test_a_swapped_entity_fails(good: Path, tmp_path: Path,
                                capsys: pytest.CaptureFixture[str]) -> None:
    def swap(statement: dict[str, Any], item: dict[str, Any]) -> None:
        names = {e["id"]: e["name"] for e in item["entities"]}
        claimed = names[statement["program"]["claim"]["entity"]]
        other = next(n for n in names.values() if n not in statement["text"])
        record(statement, item, statement["text"].replace(claimed, other))

    root, n = _forge(good, tmp_path, swap,
                     lambda s: s["type"] in ("CT", "RK") and "entity" in s["program"]["claim"])
    _fails(root, n, capsys, "the paraphrase drops the entity", "(the entity")


def test_an_added_number_fails(good: Path, tmp_path: Path,
                               capsys: pytest.CaptureFixture[str]) -> None:
    def add(statement: dict[str, Any], item: dict[str, Any]) -> None:
        record(statement, item, statement["text"].rstrip(".") + ", up 12 percent.")

    root, n = _forge(good, tmp_path, add, lambda s: True)
    _fails(root, n, capsys, "the paraphrase adds the number 12")


def test_template_and_text_changed_together_fail(good: Path, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    flips = {"greater than": "less than", "less than": "greater than", "more than": "below",
             "below": "more than"}

    def both(statement: dict[str, Any], item: dict[str, Any]) -> None:
        record_ = statement["paraphrase"]
        word = next(w for w in ("greater than", "less than") if w in record_["template"])
        record_["template"] = record_["template"].replace(word, flips[word])
        said = next(w for w in ("more than", "below") if w in statement["text"])
        record(statement, item, statement["text"].replace(said, flips[said]))

    root, n = _forge(good, tmp_path, both,
                     lambda s: s["type"] == "CT" and ("more than" in s["text"] or
                                                      "below" in s["text"]))
    _fails(root, n, capsys, "paraphrase.template does not mention the comparison")


def test_a_kept_attempt_the_judge_said_changed_fails(good: Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    def changed(statement: dict[str, Any], item: dict[str, Any]) -> None:
        statement["paraphrase"]["attempts"][0]["judge"] = {**JUDGE, "verdict": "changed"}

    root, n = _forge(good, tmp_path, changed, lambda s: True)
    _fails(root, n, capsys, "the judge said 'changed' of the kept attempt 1, not 'same'")


def test_a_text_that_is_not_the_kept_attempt_fails(good: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    def other(statement: dict[str, Any], item: dict[str, Any]) -> None:
        statement["paraphrase"]["attempts"][0]["syntactic"] = "Something else entirely."

    root, n = _forge(good, tmp_path, other, lambda s: True)
    _fails(root, n, capsys, "text is not the syntactic pass of the kept attempt 1")


def test_recorded_checks_that_are_not_the_guards_fail(good: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    def checks(statement: dict[str, Any], item: dict[str, Any]) -> None:
        statement["paraphrase"]["checks"] = statement["paraphrase"]["checks"][1:]

    root, n = _forge(good, tmp_path, checks, lambda s: True)
    _fails(root, n, capsys, "paraphrase.checks are not the guard's checks")


def test_a_smuggled_synonym_of_another_sense_fails(good: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    smuggled = Synonyms.default().to_json()
    smuggled["words"]["cmp"][">"] = ["more than", "below"]

    def below(statement: dict[str, Any], item: dict[str, Any]) -> None:
        record(statement, item, statement["text"].replace("more than", "below"))

    root, n = _forge(good, tmp_path, below, lambda s: "more than" in s["text"],
                     synonyms=smuggled)
    named = _fails(root, n, capsys, "the paraphrase drops the comparison 'greater than'",
                   "adds 'below'")
    assert named
    code, lines = _verify(root, capsys)
    assert any(line.startswith("manifest.json: config.llm.synonyms.words.cmp['>'][1] 'below' "
                               "says '<'") for line in lines), "\n".join(lines)


def test_a_smuggled_synonym_of_a_custom_pack_is_refused(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    from hopvista.verify.paraphrase import judge_synonyms

    smuggled = Synonyms.default().to_json()
    smuggled["words"]["order"]["max"] = ["largest", "not the lowest"]
    smuggled["columns"]["rain"] = ["no rain"]
    verdict = judge_synonyms({"llm": {"synonyms": smuggled}})
    assert verdict.synonyms.word("order", "max") == ("largest",)
    assert verdict.synonyms.column("rain") == ()
    assert any("words.order['max'][1] 'not the lowest'" in p for p in verdict.problems)
    assert any("columns.rain[0] 'no rain'" in p for p in verdict.problems)


def test_a_question_showing_the_templates_fails(good: Path, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "forged"
    shutil.copytree(good, root)
    items = read_items(root)
    question = items[1]["question"]
    for statement in items[1]["statements"]:
        question = question.replace(statement["text"], statement["paraphrase"]["template"])
    items[1]["question"] = question
    reseal(root, items)
    code, lines = _verify(root, capsys)
    assert code == 1
    assert any(f"item {items[1]['id']}: question is not the pack's question" in line
               for line in lines), "\n".join(lines)


@pytest.mark.parametrize(("path", "value", "message"), [
    (("kept",), 3, "field 'statements.0.paraphrase.kept': expected a whole number in 1..1"),
    (("attempts", 0, "judge", "verdict"), "maybe",
     "field 'statements.0.paraphrase.attempts.0.judge.verdict'"),
    (("template",), 7, "field 'statements.0.paraphrase.template'"),
])
def test_a_malformed_paraphrase_record_names_its_field(
        good: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        path: tuple[Any, ...], value: Any, message: str) -> None:
    root = tmp_path / "forged"
    shutil.copytree(good, root)
    lines = (root / "items.jsonl").read_text().splitlines()
    item = json.loads(lines[1])
    target = item["statements"][0]["paraphrase"]
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    lines[1] = json.dumps(item)
    (root / "items.jsonl").write_text("\n".join(lines) + "\n")
    code, out = _verify(root, capsys)
    assert code == 1
    assert any(line.startswith(f"item {item['id']}: malformed item: {message}")
               for line in out), "\n".join(out)


def test_verify_says_what_it_does_not_prove_of_paraphrases(
        good: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["verify", str(good)]) == 0
    assert "the judge's verdict is recorded, verify asks no model" in capsys.readouterr().out


@pytest.mark.slow
def test_variants_of_a_paraphrased_build_verify_and_a_forged_one_fails(
        good: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "aug"
    assert main(["augment", str(good), "--variants", "web", "--out", str(out)]) == 0
    code, lines = _verify(out, capsys)
    assert code == 0, "\n".join(lines)
    items = read_items(out)
    variant = next(i for i in items if i["id"].endswith(".web"))
    statement = next(s for s in variant["statements"] if s["paraphrase"]["kept"] is not None)
    n = variant["statements"].index(statement) + 1
    text = statement["text"].rstrip(".") + ", up 12 percent."
    statement["text"] = statement["paraphrase"]["attempts"][0]["syntactic"] = text
    requestion(variant)
    reseal(out, items)
    code, lines = _verify(out, capsys)
    assert code == 1
    assert any(line.startswith(f"item {variant['id']}: statement {n} (") and
               "the paraphrase adds the number 12" in line for line in lines), "\n".join(lines)
