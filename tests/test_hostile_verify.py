"""``gen verify`` trusts only what it can re-derive: consistent forgeries of a dataset's own
record of what its words mean fail, each with a line naming the form (or the item).

A forger rewrites the wording the manifest records and every statement text (and question) to
match it, keeps the labels, and re-hashes everything (``reseal``): a negated custom pack, a
built-in pack under another name, a negated fact, an imported answer changed on every variant,
a form whose loops would never end. Benign datasets (custom packs, the golden datasets, an
augmented import) still verify, and what verify cannot prove is listed in its report.
"""

from __future__ import annotations

import json
import re
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jinja2
import pytest

from hopvista.augment import markup as table_markup
from hopvista.augment.recipes import base_of_item, base_style
from hopvista.cli.main import main
from hopvista.model import Item
from hopvista.rng import Streams
from hopvista.themes.marks import MARK_KINDS
from hopvista.verify.wording import _pattern, statement_variables
from tests.conftest import build_dataset, read_items, reseal

GOLDEN = Path(__file__).parent / "golden"
EXAMPLE = Path(__file__).parent.parent / "examples" / "air-quality"
Form = Callable[[str, str], str]
"""A forger's rewrite of one form: (type, form) -> form."""


# -- datasets --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def custom(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A dataset of a custom pack: the ``gen new-domain`` skeleton, every level."""
    root = tmp_path_factory.mktemp("custom")
    assert main(["new-domain", "orchards", "--dir", str(root)]) == 0
    out = root / "ds"
    assert main(["build", str(root / "orchards"), "--hops", "1-3", "-n", "12", "--seed", "1",
                 "--no-images", "--out", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def financial(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A dataset of the built-in financial pack, every level."""
    out = tmp_path_factory.mktemp("financial") / "ds"
    build_dataset(out, "--hops", "1-3", "-n", "9", "--seed", "3", "--no-images")
    return out


def _copy(dataset: Path, tmp_path: Path) -> Path:
    root = tmp_path / "forged"
    shutil.copytree(dataset, root)
    return root


def _manifest(root: Path) -> dict[str, Any]:
    return dict(json.loads((root / "manifest.json").read_text(encoding="utf-8")))


def _save(root: Path, manifest: dict[str, Any], items: list[dict[str, Any]]) -> None:
    """Write the manifest, then the items with the Parquet rows and hashes to match."""
    (root / "manifest.json").write_text(json.dumps(manifest, indent=2))
    reseal(root, items)


def _verify(root: Path, capsys: pytest.CaptureFixture[str], *args: str
            ) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["verify", str(root), *args])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return code, captured.out, captured.err


def _fails_naming(root: Path, capsys: pytest.CaptureFixture[str], *names: str,
                  source: Path | None = None) -> str:
    args = ("--source", str(source)) if source is not None else ()
    code, _, err = _verify(root, capsys, "--max-problems", "0", *args)
    assert code == 1, err
    assert err.rstrip().splitlines()[-1].startswith("FAILED: ")
    for name in names:
        assert any(name in line for line in err.splitlines()), f"{name!r} not in:\n{err}"
    return err


# -- the forger's tool: rewrite the wording and re-render every text with it ------------------


_RENDER = jinja2.Environment(undefined=jinja2.StrictUndefined, autoescape=False)


def _render(form: str, variables: dict[str, str]) -> str:
    text = _RENDER.from_string(form).render(**variables).strip()
    return text[:1].upper() + text[1:]


def _matched_form(statement: dict[str, Any], variables: dict[str, str],
                  wording: dict[str, Any]) -> tuple[int, dict[str, str | None]]:
    """Which recorded form the text is, with the noun and fact it was written with."""
    extra = {"singular": wording["singular"], "plural": wording["plural"]}
    for i, form in enumerate(wording["forms"][statement["type"]]):
        try:
            rendered = _render(form, variables | extra)
        except jinja2.TemplateError:
            continue
        match = _pattern(rendered, tuple(wording["nouns"])).fullmatch(statement["text"])
        if match is not None:
            return i, match.groupdict()
    raise AssertionError(f"no form writes {statement['text']!r}")


def _reword(root: Path, form: Form | None = None, words: dict[str, dict[str, str]] | None = None,
            question: str | None = None, nouns: dict[str, str] | None = None,
            config: Callable[[dict[str, Any]], dict[str, Any]] = lambda m: m["config"]
            ) -> None:
    """Rewrite the recorded wording (forms, word maps, question, nouns; in the manifest's
    ``config`` unless told) and every statement text and question to match it: a consistent
    forgery, labels unchanged."""
    manifest = _manifest(root)
    old = config(manifest)["wording"]
    new = json.loads(json.dumps(old))
    if form is not None:
        new["forms"] = {t: [form(t, f) for f in forms] for t, forms in old["forms"].items()}
    if words is not None:
        new["words"] = {k: old["words"][k] | words.get(k, {}) for k in old["words"]}
    if question is not None:
        new["question"] = question
    renamed = nouns or {}
    new["nouns"] = [renamed.get(n, n) for n in old["nouns"]]
    new["singular"] = renamed.get(old["singular"], old["singular"])
    items = read_items(root)
    for item in items:
        for statement in item["statements"]:
            before = statement_variables(statement, item, old["words"])
            i, found = _matched_form(statement, before, old)
            after = statement_variables(statement, item, new["words"])
            noun = found.get("noun") or old["nouns"][0]
            after |= {"noun": renamed.get(noun.lower(), noun), "fact": found.get("fact") or "",
                      "singular": new["singular"], "plural": new["plural"]}
            statement["text"] = _render(new["forms"][statement["type"]][i], after)
        names = ", ".join(e["name"] for e in item["entities"]).rstrip(".")
        item["question"] = _RENDER.from_string(new["question"]).render(
            names=names, statements=[s["text"] for s in item["statements"]],
            singular=new["singular"], plural=new["plural"], noun=new["singular"])
    config(manifest)["wording"] = new
    _save(root, manifest, items)


def _lower_start(form: str) -> str:
    return form if form.startswith("{{") else form[:1].lower() + form[1:]


def _swap(form: str, a: str, b: str) -> str:
    return form.replace(a, "\0").replace(b, a).replace("\0", b)


# -- 1. a custom pack's wording is checked for meaning ---------------------------------------


def test_a_custom_pack_verifies_as_built(custom: Path, capsys: pytest.CaptureFixture[str]
                                         ) -> None:
    code, out, err = _verify(custom, capsys)
    assert code == 0, err
    assert out.rstrip().splitlines()[-1].startswith("OK: 12 items verified")


def test_a_negated_custom_pack_fails_naming_the_form(custom: Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    root = _copy(custom, tmp_path)
    _reword(root, lambda t, f: "It is false that " + _lower_start(f))
    statement = read_items(root)[0]["statements"][0]
    assert statement["text"].startswith("It is false that ")
    err = _fails_naming(root, capsys, "manifest.json: config.wording.forms.")
    line = next(x for x in err.splitlines() if "config.wording.forms." in x)
    assert "It is false that" in line and "'false'" in line


#: Consistent rewrites a hostile author could make of a custom pack's wording, each of which
#: changes what the statements say while the labels stay: (forms, word maps, question, nouns),
#: and the field the failure must name.
HOSTILE: dict[str, tuple[Form | None, dict[str, dict[str, str]] | None, str | None,
                         dict[str, str] | None, str]] = {
    "not": (lambda t, f: f.replace(" is {{ entity }}", " is not {{ entity }}"), None, None,
            None, "forms."),
    "isn't": (lambda t, f: f.replace(" is {{ entity }}", " isn't {{ entity }}"), None, None,
              None, "forms."),
    "never": (lambda t, f: f.replace("{{ entity }} has", "{{ entity }} never has")
              .replace("{{ entity }} had", "{{ entity }} never had"), None, None, None,
              "forms."),
    "hedged": (lambda t, f: "Allegedly, " + _lower_start(f), None, None, None, "forms."),
    "conditional": (lambda t, f: "Only if the table is wrong, " + _lower_start(f), None,
                    None, None, "forms."),
    "the opposite": (lambda t, f: "The opposite of this holds: " + _lower_start(f), None,
                     None, None, "forms."),
    "fails to": (lambda t, f: f.replace("{{ entity }} is the", "{{ entity }} fails to be the"),
                 None, None, None, "forms."),
    "entity for anchor": (lambda t, f: _swap(f, "{{ entity }}", "{{ anchor }}")
                          if t in ("CT+RK", "AR+RK") else f, None, None, None,
                          "forms.CT+RK"),
    "condition for ranking": (lambda t, f: f if "RK" not in t else
                              _swap(f, "{{ cond_column }}", "{{ rank_column }}"), None, None,
                              None, "forms.CT+RK"),
    "periods reversed": (lambda t, f: _swap(f, "{{ period1 }}", "{{ period2 }}"), None, None,
                         None, "forms."),
    "threshold before comparison": (
        lambda t, f: f.replace("{{ column }} {{ cmp }} {{ threshold }}",
                               "{{ threshold }} {{ cmp }} {{ column }}"), None, None, None,
        "forms."),
    "a filter": (lambda t, f: f.replace("{{ entity }}", "{{ entity | lower | title }}"), None,
                 None, None, "forms."),
    "comparisons swapped": (None, {"cmp": {">": "less than", "<": "greater than"}}, None,
                            None, "words.cmp"),
    "orders swapped": (None, {"order": {"max": "lowest", "min": "highest"}}, None, None,
                       "words.order"),
    "directions negated": (None, {"direction_verb": {"increasing": "never increased",
                                                     "decreasing": "never decreased"},
                                  "direction": {"increasing": "non-increasing",
                                                "decreasing": "non-decreasing"}},
                           None, None, "words.direction"),
    "question asks for false ones": (
        None, None,
        "Read the text, the table and the chart about {{ names }}. Which of the following "
        "statements are false?\n{% for statement in statements %}{{ loop.index }}. "
        "{{ statement }}\n{% endfor %}Answer with the numbers of all false statements.",
        None, "question"),
    "question with a condition on the statements": (
        None, None,
        "Which statements are true?\n{% for s in statements %}{{ loop.index }}. "
        "{% if 'Appleton' in s %}(reversed) {% endif %}{{ s }}\n{% endfor %}",
        None, "question"),
    "a noun that negates": (None, None, None, {"orchard": "orchard that is not"}, "singular"),
    "untrue": (lambda t, f: "It is untrue that " + _lower_start(f), None, None, None,
               "forms."),
    "a question of it": (lambda t, f: f.rstrip(".") + "?", None, None, None, "forms."),
    "a contraction": (lambda t, f: f.replace(" is {{ entity }}", " wasn't {{ entity }}"), None,
                      None, None, "forms."),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_rewordings_of_a_custom_pack_fail(case: str, custom: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    form, words, question, nouns, field = HOSTILE[case]
    root = _copy(custom, tmp_path)
    _reword(root, form, words, question, nouns)
    assert _manifest(root)["config"]["wording"] != _manifest(custom)["config"]["wording"]
    _fails_naming(root, capsys, f"manifest.json: config.wording.{field}")


def test_a_custom_pack_of_other_words_verifies_and_says_what_it_did_not_check(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The example pack words some types in its own words: they prove their statements, and
    the report says their meaning was judged by their words and slots only."""
    out = tmp_path / "air"
    assert main(["build", str(EXAMPLE), "--hops", "1-3", "-n", "9", "--seed", "2",
                 "--no-images", "--out", str(out)]) == 0
    code, stdout, err = _verify(out, capsys)
    assert code == 0, err
    lines = stdout.rstrip().splitlines()
    assert lines[-1].startswith("OK: 9 items verified")
    assert any(line.startswith("not checked: the meaning of") and "wording form" in line
               for line in lines), stdout


def test_a_custom_pack_in_its_own_words_verifies_and_names_the_words_it_did_not_check(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A pack author's own phrasing, with words the built-in packs never use, proves its
    statements; the report names the words whose meaning verify could not vouch for."""
    assert main(["new-domain", "orchards", "--dir", str(tmp_path)]) == 0
    pack = tmp_path / "orchards" / "domain.yaml"
    text = pack.read_text()
    ct = re.search(r"\n  CT:\n(    - .*\n)+", text)
    assert ct is not None
    pack.write_text(text.replace(ct.group(0), '\n  CT:\n    - "Looking across the orchards, the '
                                 '{{ noun }} with {{ column }} {{ cmp }} {{ threshold }} in '
                                 '{{ period }} turns out to be {{ entity }}."\n'))
    out = tmp_path / "ds"
    assert main(["build", str(tmp_path / "orchards"), "--hops", "1", "-n", "16", "--seed", "1",
                 "--no-images", "--out", str(out)]) == 0
    assert any("Looking across" in s["text"] for item in read_items(out)
               for s in item["statements"])
    code, stdout, err = _verify(out, capsys)
    assert code == 0, err
    doubt = next(line for line in stdout.splitlines() if "do not use" in line)
    assert doubt.startswith("not checked:") and "'looking'" in doubt


# -- 2. a built-in pack is held to the installed pack, whatever the dataset calls it --------


def _rename(root: Path, name: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The dataset with its domain renamed everywhere (ids, items, config)."""
    manifest = _manifest(root)
    old = manifest["config"]["domain"]
    manifest["config"]["domain"] = name
    items = read_items(root)
    for item in items:
        item["domain"] = name
        item["base_id"] = item["base_id"].replace(old, name, 1)
        item["id"] = item["id"].replace(old, name, 1)
    return manifest, items


def test_a_renamed_negated_builtin_fails_naming_the_form(financial: Path, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    root = _copy(financial, tmp_path)
    manifest, items = _rename(root, "finance2")
    _save(root, manifest, items)
    assert _verify(root, capsys)[0] == 0  # a renamed copy of the pack is still that pack
    _reword(root, lambda t, f: "It is false that " + _lower_start(f))
    err = _fails_naming(root, capsys, "manifest.json: config.wording.forms.",
                        "installed pack 'financial'")
    assert "finance2" in err


def test_a_renamed_builtin_is_held_to_the_installed_wording(financial: Path, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]
                                                            ) -> None:
    """A rewording made only of the pack's own words (dropping "only") passes any check of
    words; the installed pack has no such form, so the renamed dataset fails."""
    root = _copy(financial, tmp_path)
    manifest, items = _rename(root, "acme-finance")
    _save(root, manifest, items)
    _reword(root, lambda t, f: f.replace(" the only ", " the "))
    _fails_naming(root, capsys, "is not a CT form of the installed pack 'financial'")


def test_a_renamed_builtin_without_its_identities_is_found_by_its_columns(
        financial: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _copy(financial, tmp_path)
    manifest, items = _rename(root, "acme-finance")
    manifest["config"]["identities"] = []
    manifest["config"]["related"] = []
    _save(root, manifest, items)
    _reword(root, lambda t, f: f.replace(" the only ", " the "))
    _fails_naming(root, capsys, "installed pack 'financial'", "columns")


def test_a_builtin_dataset_claiming_another_version_is_still_judged(
        financial: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _copy(financial, tmp_path)
    manifest = _manifest(root)
    manifest["packages"]["hopvista"] = "0.0.1"
    _save(root, manifest, read_items(root))
    _reword(root, lambda t, f: "It is false that " + _lower_start(f))
    _fails_naming(root, capsys, "manifest.json: config.wording.forms.", "'false'")


def test_a_builtin_dataset_with_negated_forms_fails(financial: Path, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    root = _copy(financial, tmp_path)
    _reword(root, lambda t, f: "It is false that " + _lower_start(f))
    _fails_naming(root, capsys, "manifest.json: config.wording.forms.",
                  "installed pack 'financial'")


def test_a_negated_wording_of_a_fact_fails(financial: Path, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    """The fact's wording is free text that must keep the needle's numbers and names; it may
    not negate what the text stating it says."""
    root = _copy(financial, tmp_path)
    items = read_items(root)
    item, statement = next((i, s) for i in items for s in i["statements"] if s["type"] == "FC")
    name = next(e["name"] for e in item["entities"]
                if e["id"] == statement["program"]["claim"]["entity"])
    assert f"{name} " in statement["text"]
    statement["text"] = statement["text"].replace(f"{name} ", f"{name} never ", 1)
    names = ", ".join(e["name"] for e in item["entities"]).rstrip(".")
    template = _manifest(root)["config"]["wording"]["question"]
    item["question"] = _RENDER.from_string(template).render(
        names=names, statements=[s["text"] for s in item["statements"]])
    reseal(root, items)
    err = _fails_naming(root, capsys, f"item {item['id']}: statement", "of the fact")
    assert "'never'" in err


@pytest.mark.parametrize("version", [2, 3, 4, 5, 6])
def test_the_golden_datasets_verify(version: int, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _verify(GOLDEN / f"format{version}", capsys)
    assert code == 0, err
    assert out.rstrip().splitlines()[-1].startswith("OK: ")


# -- 3. what verify cannot check is listed ---------------------------------------------------


def test_an_ok_lists_what_was_not_checked(custom: Path, capsys: pytest.CaptureFixture[str]
                                          ) -> None:
    code, out, _ = _verify(custom, capsys)
    lines = out.rstrip().splitlines()
    assert code == 0 and lines[-1].startswith("OK: ")
    notes = lines[:-1]
    assert notes and all(line.startswith("not checked: ") for line in notes)
    assert any("proxy lines" in line for line in notes)
    assert any("fact" in line for line in notes)


def test_the_api_reports_what_was_not_checked(custom: Path) -> None:
    import hopvista

    report = hopvista.verify(custom)
    assert report.ok and report.items == 12
    assert any("proxy lines" in line for line in report.unchecked)


def test_a_plugin_like_type_is_listed_as_unchecked(custom: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """Forms of a type no installed pack words are checked for slots and negations only,
    and the report says so; a negated one fails."""
    root = _copy(custom, tmp_path)
    manifest = _manifest(root)
    forms = manifest["config"]["wording"]["forms"]
    forms["LOWEST"] = ["In {{ period }}, {{ entity }} had less {{ column }} than any other "
                       "{{ noun }}."]
    _save(root, manifest, read_items(root))
    code, out, err = _verify(root, capsys)
    assert code == 0, err
    assert "not checked: the meaning of the LOWEST forms" in out
    forms["LOWEST"] = ["In {{ period }}, {{ entity }} did not have the least {{ column }}."]
    _save(root, manifest, read_items(root))
    _fails_naming(root, capsys, "config.wording.forms.LOWEST[0]", "'not'")


# -- 5. a hostile template is refused at once ------------------------------------------------


NESTED = "{% for a in range(100000) %}{% for b in range(100000) %}{{ a }}{% endfor %}" \
    "{% endfor %}{{ entity }}"


@pytest.mark.parametrize("where", ["forms", "question"])
def test_a_form_with_nested_loops_is_refused_at_once(where: str, custom: Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    root = _copy(custom, tmp_path)
    manifest = _manifest(root)
    wording = manifest["config"]["wording"]
    if where == "forms":
        wording["forms"] = {t: [NESTED] for t in wording["forms"]}
    else:
        wording["question"] = "{% for s in statements %}" + NESTED + "{% endfor %}"
    _save(root, manifest, read_items(root))
    started = time.monotonic()
    err = _fails_naming(root, capsys, f"manifest.json: config.wording.{where}")
    assert time.monotonic() - started < 3
    assert re.search(r"(for %\}|loop)", err), err


@pytest.mark.parametrize("payload", [
    "{{ ''.__class__.__mro__[1].__subclasses__() }}{{ entity }}",
    "{{ cycler.__init__.__globals__.os.system('touch MARK') }}{{ entity }}",
    "{% set x = entity %}{{ x }}",
    "{{ entity if cmp else anchor }}",
    "{% include 'x' %}{{ entity }}",
])
def test_template_code_in_a_form_is_refused(payload: str, custom: Path, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    root = _copy(custom, tmp_path)
    manifest = _manifest(root)
    manifest["config"]["wording"]["forms"]["CT"] = [payload]
    _save(root, manifest, read_items(root))
    _fails_naming(root, capsys, "manifest.json: config.wording.forms.CT[0]")
    assert not (Path.cwd() / "MARK").exists()


# -- 4. imported variants: against each other and, with --source, against the source -------


RECORDS = [
    {"id": "r1", "question": "What is the population of Oslo?", "answer": "1,234",
     "table": {"rows": [["City", "Population"], ["Oslo", "1,234"], ["Bergen", "285"],
                        ["Tromso", "77"], ["Bodo", "52"]]}},
    {"id": "r2", "question": "Which city has 285 people?", "answer": "Bergen",
     "table": {"csv": "City,Population,Port\nOslo,1234,yes\nBergen,285,yes\nTromso,77,no\n"
                      "Bodo,52,yes\n"}},
]


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A generic JSONL of two records and its ``web`` and ``missing`` variants."""
    root = tmp_path_factory.mktemp("imported")
    source = root / "cities.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in RECORDS), encoding="utf-8")
    out = root / "variants"
    assert main(["augment", str(source), "--variants", "web,missing", "--out", str(out)]) == 0
    return source, out


@pytest.mark.slow
def test_an_augmented_import_verifies_with_and_without_its_source(
        imported: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    source, out = imported
    code, stdout, err = _verify(out, capsys)
    assert code == 0, err
    assert "not checked: the items against the input they were made from" in stdout
    assert "--source" in stdout and "not checked: the images' pixels" in stdout
    code, stdout, err = _verify(out, capsys, "--source", str(source))
    assert code == 0, err
    assert "not checked: the items against the input" not in stdout
    report = __import__("hopvista").verify(out, source=source)
    assert report.ok and report.unchecked


@pytest.mark.slow
def test_an_imported_answer_changed_on_every_variant_fails_against_its_source(
        imported: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source, out = imported
    root = _copy(out, tmp_path)
    items = read_items(root)
    changed = [i for i in items if i["base_id"] == "jsonl-r1"]
    assert changed
    for item in changed:
        item["answer"] = 285
    reseal(root, items)
    code, stdout, _ = _verify(root, capsys)
    assert code == 0 and "give it with --source" in stdout  # said, not passed silently
    code, _, err = _verify(root, capsys, "--source", str(source))
    assert code == 1
    line = next(x for x in err.splitlines() if x.startswith(f"item {changed[0]['id']}:"))
    assert "answer 285 (not 1234)" in line and "cities.jsonl:1" in line


@pytest.mark.slow
def test_variants_of_one_base_that_disagree_fail(imported: tuple[Path, Path], tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    _, out = imported
    root = _copy(out, tmp_path)
    items = read_items(root)
    family = [i for i in items if i["base_id"] == "jsonl-r2"]
    assert len(family) == 2
    family[1]["answer"] = "Oslo"
    family[1]["inputs"]["table"]["rows"][1][1] = "9"  # a cell the variant did not blank
    for image in family[1]["images"]:
        for cell in image["render"].get("cells", []):
            if (cell["row"], cell["col"]) == (2, 1):
                cell["text"] = "9"
    reseal(root, items)
    _fails_naming(root, capsys, f"item {family[1]['id']}: answer \"Oslo\"", "table cells")


@pytest.mark.slow
def test_a_source_that_is_not_the_input_is_refused(imported: tuple[Path, Path],
                                                   tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    source, out = imported
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps(RECORDS[1] | {"id": "r9"}) + "\n", encoding="utf-8")
    _fails_naming(out, capsys, "no record 'jsonl-r1'", source=other)
    wtq = Path(__file__).parent / "data" / "imports" / "wtq"
    code, _, err = _verify(out, capsys, "--source", str(wtq))
    assert code == 2 and len(err.strip().splitlines()) == 1 and str(wtq) in err and \
        "JSONL" in err


def test_source_on_a_build_is_refused(custom: Path, capsys: pytest.CaptureFixture[str]
                                      ) -> None:
    code, _, err = _verify(custom, capsys, "--source", str(custom))
    assert code == 2 and err.startswith("gen: error: --source ")
    assert len(err.strip().splitlines()) == 1


# -- variants of a hopvista input ------------------------------------------------------------


@pytest.fixture(scope="module")
def varied(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A small financial build and its ``web`` and ``missing`` variants."""
    root = tmp_path_factory.mktemp("varied")
    build_dataset(root / "fin", "--hops", "1", "-n", "3", "--no-images")
    assert main(["augment", str(root / "fin"), "--variants", "web,missing",
                 "--out", str(root / "variants")]) == 0
    return root / "fin", root / "variants"


@pytest.mark.slow
def test_variants_of_a_negated_build_fail(varied: tuple[Path, Path], tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    source, out = varied
    code, stdout, err = _verify(out, capsys, "--source", str(source))
    assert code == 0, err
    assert "not checked: the build checks of the input's base items" in stdout
    root = _copy(out, tmp_path)
    _reword(root, lambda t, f: "It is false that " + _lower_start(f),
            config=lambda m: m["config"]["input"]["manifest"]["config"])
    _fails_naming(root, capsys, "manifest.json: config.input.manifest.config.wording.forms.",
                  "installed pack 'financial'")


@pytest.mark.slow
def test_a_base_changed_with_all_its_variants_fails_against_its_source(
        varied: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source, out = varied
    root = _copy(out, tmp_path)
    items = read_items(root)
    for item in items:
        if item["base_id"] == items[0]["base_id"]:
            item["provenance"]["attempts"] = 99
    reseal(root, items)
    assert _verify(root, capsys)[0] == 0  # the variants agree with their (forged) base
    _fails_naming(root, capsys, f"item {items[0]['id']}: the base item differs from the "
                  "source's record", source=source)


# -- 6. margins and identities: the installed pack's, or at least what a reader can see -------


@pytest.fixture(scope="module")
def materials(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small dataset of the built-in materials pack (its ``related`` columns are not
    empty)."""
    out = tmp_path_factory.mktemp("materials") / "ds"
    assert main(["build", "materials", "--hops", "1", "-n", "3", "--seed", "1", "--no-images",
                 "--out", str(out)]) == 0
    return out


def _forge(dataset: Path, tmp_path: Path, manifest_fn: Callable[[dict[str, Any]], None],
           margins: float | None = None) -> Path:
    """A consistent forgery of ``dataset``: its manifest rewritten by ``manifest_fn`` and, when
    ``margins`` is given, every record of the margins (the config's and each item's)."""
    root = _copy(dataset, tmp_path)
    manifest, items = _manifest(root), read_items(root)
    manifest_fn(manifest)
    if margins is not None:
        manifest["config"]["decidability"] = {"min_rank_gap": margins,
                                              "min_trend_step": margins}
        for item in items:
            item["provenance"]["decidability"] |= {"min_rank_gap": margins,
                                                   "min_trend_step": margins}
    _save(root, manifest, items)
    return root


def _claims_older(manifest: dict[str, Any], how: str) -> None:
    if how in ("hopvista", "both"):
        manifest["packages"]["hopvista"] = "0.0.9"
    if how in ("format", "both"):
        manifest["format_version"] = 5


@pytest.mark.parametrize("margins", [1e-9, 0.01, 0.5])
def test_a_builtin_with_forged_margins_fails_naming_the_field(
        margins: float, financial: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
        ) -> None:
    """Margins other than the installed pack's fail, even above the floor a reader can see."""
    root = _forge(financial, tmp_path, lambda m: None, margins)
    err = _fails_naming(root, capsys, "manifest.json: config.decidability.min_rank_gap",
                        "manifest.json: config.decidability.min_trend_step")
    line = next(x for x in err.splitlines() if "config.decidability.min_rank_gap " in x)
    assert f"{margins!r} is not the installed pack 'financial''s 0.03" in line


@pytest.mark.parametrize("how", ["hopvista", "format", "both"])
def test_a_builtin_claiming_an_older_build_keeps_the_installed_identities(
        how: str, financial: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An older hopvista or format does not make the built-in pack a custom one: ``identities:
    []`` (every chart column derivable from the table allowed) fails."""
    def forged(manifest: dict[str, Any]) -> None:
        _claims_older(manifest, how)
        manifest["config"]["identities"] = []

    root = _forge(financial, tmp_path, forged)
    err = _fails_naming(root, capsys, "manifest.json: config.identities",
                        "installed pack 'financial'")
    assert "Traceback" not in err


@pytest.mark.parametrize("how", ["hopvista", "format"])
def test_a_builtin_claiming_an_older_build_keeps_the_installed_margins(
        how: str, financial: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _forge(financial, tmp_path, lambda m: _claims_older(m, how), 0.02)
    _fails_naming(root, capsys, "manifest.json: config.decidability.min_rank_gap 0.02 is not "
                  "the installed pack 'financial''s 0.03")


@pytest.mark.parametrize("how", ["hopvista", "format"])
def test_a_builtin_claiming_an_older_build_keeps_the_installed_related_columns(
        how: str, materials: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def forged(manifest: dict[str, Any]) -> None:
        _claims_older(manifest, how)
        manifest["config"]["related"] = []

    root = _forge(materials, tmp_path, forged)
    _fails_naming(root, capsys, "manifest.json: config.related", "installed pack 'materials'")


def test_a_builtin_recording_another_packs_identities_is_held_to_its_columns_pack(
        materials: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A materials dataset recording financial's identities (and financial's empty related
    columns) is still materials, by the columns its items show."""
    from hopvista.domain import resolve_pack

    def forged(manifest: dict[str, Any]) -> None:
        _claims_older(manifest, "hopvista")
        manifest["config"]["identities"] = [i.text for i in resolve_pack("financial").identities]
        manifest["config"]["related"] = []

    root = _forge(materials, tmp_path, forged)
    err = _fails_naming(root, capsys, "manifest.json: config.related are not the installed "
                        "pack 'materials''s")
    assert "items show the columns of the installed pack 'materials'" in err


def test_a_builtin_claiming_an_older_build_verifies_when_it_is_the_pack(
        financial: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """What a dataset claims about its build is not held against it when its content is the
    installed pack's (the golden datasets of formats 2 to 6 verify too); the rules of the
    formats after the one it claims are listed as not checked."""
    root = _forge(financial, tmp_path, lambda m: _claims_older(m, "both"))
    code, out, err = _verify(root, capsys)
    assert code == 0, err
    assert out.rstrip().splitlines()[-1].startswith("OK: 9 items verified")
    assert "not checked: the rules format 6 added (docs/format.md, section 1): the manifest " \
        "says the dataset was made in format 5" in out
    code, out, _ = _verify(GOLDEN / "format3", capsys)
    assert code == 0 and "not checked: the rules formats 4 to 6 added" in out


def test_a_custom_pack_with_forged_margins_below_the_floor_fails(
        custom: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """No installed pack to compare with: margins under 1% of a chart's axis (a difference no
    reader can see) fail, naming the field."""
    root = _forge(custom, tmp_path, lambda m: None, 1e-9)
    err = _fails_naming(root, capsys,
                        "manifest.json: field 'config.decidability.min_rank_gap': expected a "
                        "fraction from 0.01")
    assert "got 1e-09" in err


def _pack_with_margins(tmp_path: Path, **margins: str) -> Path:
    assert main(["new-domain", "orchards", "--dir", str(tmp_path)]) == 0
    pack = tmp_path / "orchards" / "domain.yaml"
    text = pack.read_text()
    for key, value in margins.items():
        text, count = re.subn(rf"(\n  {key}: )[0-9.]+", rf"\g<1>{value}", text)
        assert count == 1
    pack.write_text(text)
    return pack


@pytest.mark.parametrize(("key", "value", "shown"), [
    ("min_rank_gap", "0.000000001", "1e-09 is below 0.01"),
    ("min_trend_step", "0.005", "0.005 is below 0.01"),
    ("min_trend_step", "0.0", "0.0 is below 0.01"),
    ("min_rank_gap", ".nan", "nan is not a fraction from 0.01 to below 1"),
])
def test_a_pack_asking_for_margins_no_reader_can_see_is_refused_at_build(
        key: str, value: str, shown: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
        ) -> None:
    pack = _pack_with_margins(tmp_path, **{key: value})
    line = next(n for n, x in enumerate(pack.read_text().splitlines(), 1) if f"  {key}:" in x)
    capsys.readouterr()
    out = tmp_path / "ds"
    assert main(["build", str(pack.parent), "-n", "3", "--no-images", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"gen: error: {pack}:{line}: field "
                                                   f"'decidability.{key}': {shown}"), err
    assert not out.exists()


def test_a_pack_at_the_floor_builds_and_verifies(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    pack = _pack_with_margins(tmp_path, min_rank_gap="0.01", min_trend_step="0.01")
    out = tmp_path / "ds"
    assert main(["build", str(pack.parent), "--hops", "1", "-n", "3", "--no-images",
                 "--out", str(out)]) == 0
    code, stdout, err = _verify(out, capsys)
    assert code == 0, err
    assert _manifest(out)["config"]["decidability"] == {"min_rank_gap": 0.01,
                                                        "min_trend_step": 0.01}


@pytest.mark.slow
@pytest.mark.parametrize("margins", [1e-9, 0.02])
def test_variants_with_forged_margins_fail(margins: float, varied: tuple[Path, Path],
                                           tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                           ) -> None:
    """The labels of an augmented dataset's items are re-derived with the margins of the
    input's build (the installed pack's for a built-in pack), not those each item records."""
    _, out = varied
    root = _copy(out, tmp_path)
    items = read_items(root)
    for item in items:
        item["provenance"]["decidability"] |= {"min_rank_gap": margins,
                                               "min_trend_step": margins}
    reseal(root, items)
    _fails_naming(root, capsys, f"item {items[0]['id']}: provenance.decidability margins "
                  f"[{margins!r}, {margins!r}] differ from the installed pack 'financial''s "
                  "[0.03, 0.03]")


# -- markup tasks: the question says what the program asks ------------------------------------


@pytest.fixture(scope="module")
def markup(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A markup-task dataset with every subtask (30 tasks, seed 3)."""
    out = tmp_path_factory.mktemp("markup") / "tasks"
    assert main(["markup", "-n", "30", "--seed", "3", "--out", str(out)]) == 0
    return out


def _forge_task(markup: Path, tmp_path: Path, subtask: str,
                change: Callable[[dict[str, Any]], None]) -> tuple[Path, str]:
    """A copy of ``markup`` whose first item of ``subtask`` is changed by ``change``,
    resealed; the copy and the item's id."""
    root = _copy(markup, tmp_path)
    items = read_items(root)
    victim = next(i for i in items if i["task"]["subtask"] == subtask)
    before = json.dumps(victim)
    change(victim)
    assert json.dumps(victim) != before, "the forgery changed nothing"
    reseal(root, items)
    return root, victim["id"]


def _reask(old: str, new: str) -> Callable[[dict[str, Any]], None]:
    """A forger's rewrite of an item's question (its answer and program unchanged)."""
    def change(item: dict[str, Any]) -> None:
        assert old in item["question"], item["question"]
        item["question"] = item["question"].replace(old, new, 1)
    return change


def _swap_words(a: str, b: str) -> Callable[[dict[str, Any]], None]:
    def change(item: dict[str, Any]) -> None:
        item["question"] = _swap(item["question"], a, b)
    return change


#: Consistent rewrites of one markup task's question that change what it asks while its
#: answer, program and marks stay: subtask → the rewrite.
REASKED: dict[str, tuple[str, Callable[[dict[str, Any]], None]]] = {
    "T1 highlighted, asked as bold": ("T1-count", _reask("highlighted", "in bold")),
    "T1 a colour, asked as another": ("T1-colour", _reask("in orange", "in green")),
    "T1 underlined, asked as bold": ("T1-exists", _reask("underlined", "in bold")),
    "T2 one highlight colour, asked as another": ("T2-colour-group",
                                                  _reask("in yellow", "in pink")),
    "T2 another column named": ("T2-row-lookup",
                                _reask("Current Assets", "Operating Cash Flow")),
    "T3 right, asked as left": ("T3-right", _reask("to the right of", "to the left of")),
    "T3 above, asked as below": ("T3-above", _reask("directly above", "directly below")),
    "T4 greater, asked as less": ("T4-compare", _reask("greater", "less")),
    "T4 bold and underlined swapped": ("T4-compare", _swap_words("bold", "underlined")),
    "T4 largest, asked as smallest": ("T4-argmax", _reask("largest", "smallest")),
    "T4 smallest, asked as largest": ("T4-argmin", _reask("smallest", "largest")),
    "T4 a sort's direction reversed": ("T4-sort", _swap_words("largest", "smallest")),
    "T4 a mean, asked as a sum": ("T4-mean", _reask("the mean", "the sum")),
    "T5 no value, asked as a value": ("T5-count-missing", _reask("show no value", "show a value")),
    "T5 largest, asked as smallest": ("T5-max-available", _reask("the largest", "the smallest")),
    "a word hidden by a zero-width space": ("T4-compare", _reask("greater", "gre\u200bater")),
}


@pytest.mark.slow
def test_a_markup_dataset_verifies_as_built(markup: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    code, stdout, err = _verify(markup, capsys)
    assert code == 0, err
    assert "OK: 30 items verified" in stdout
    assert "questions of markup subtask" not in stdout


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(REASKED))
def test_a_markup_question_that_asks_something_else_fails(
        case: str, markup: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    subtask, change = REASKED[case]
    root, item_id = _forge_task(markup, tmp_path, subtask, change)
    err = _fails_naming(root, capsys, f"item {item_id}: question does not say what its "
                        "program asks")
    assert len([line for line in err.splitlines() if line.startswith("item ")]) == 1, err


@pytest.mark.slow
def test_a_respaced_markup_question_still_verifies(markup: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    root, _ = _forge_task(markup, tmp_path, "T4-compare",
                          _reask("greater than", "greater\u00a0 than"))
    assert _verify(root, capsys)[0] == 0


def _relabel(subtask: str) -> Callable[[dict[str, Any]], None]:
    def change(item: dict[str, Any]) -> None:
        item["task"]["subtask"] = item["provenance"]["plan"]["subtask"] = subtask
    return change


def _extra_field(item: dict[str, Any]) -> None:
    item["task"]["program"]["descending"] = False


def _unordered(item: dict[str, Any]) -> None:
    item["task"]["ordered"] = []


def _refamily(item: dict[str, Any]) -> None:
    item["task"]["family"] = item["provenance"]["plan"]["family"] = "T4"


def _not_a_task(item: dict[str, Any]) -> None:
    item.update(kind="table_qa", answer_type="text", answer="no",
                question=item["question"].replace("greater", "less"))


#: Forgeries of what a markup task is (its subtask, family, program's shape, ordered fields),
#: each leaving the question and answer alone, and the words the failure must say.
RETASKED: dict[str, tuple[str, Callable[[dict[str, Any]], None], str]] = {
    "subtask relabelled": ("T3-right", _relabel("T3-left"),
                           "program is not one subtask 'T3-left' makes: direction is 'right'"),
    "subtask not installed": ("T3-right", _relabel("T3-diagonal"),
                              "subtask 'T3-diagonal' is not installed"),
    "another family": ("T3-right", _refamily, "family 'T4' is not that of subtask 'T3-right'"),
    "a field the subtask never sets": ("T4-compare", _extra_field,
                                       "program is not one subtask 'T4-compare' makes: the "
                                       "program has a field 'descending'"),
    "an item that is no markup task": ("T4-compare", _not_a_task,
                                       "a 'table_qa' item in a dataset of markup tasks"),
    "a sort scored in any order": ("T4-sort", _unordered,
                                   "task.ordered is [], subtask 'T4-sort' compares ['rows']"),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(RETASKED))
def test_a_markup_task_that_is_not_its_subtasks_fails(
        case: str, markup: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    subtask, change, words = RETASKED[case]
    root, item_id = _forge_task(markup, tmp_path, subtask, change)
    _fails_naming(root, capsys, f"item {item_id}: {words}")


@pytest.mark.slow
def test_a_subtask_without_a_wording_is_listed_as_not_checked(
        markup: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from hopvista.markup_tasks.subtasks import MARKUP_TASKS, subtask

    root, _ = _forge_task(markup, tmp_path, "T3-right", _relabel("T3-plugin"))
    subtask("T3-plugin", "T3", "a plug-in's subtask")(MARKUP_TASKS.get("T3-right").make)
    try:
        code, stdout, err = _verify(root, capsys)
    finally:
        MARKUP_TASKS.unregister("T3-plugin")
    assert code == 0, err
    assert "not checked: what the questions of markup subtask(s) T3-plugin ask" in stdout


def test_verify_words_every_subtask_s_question_as_the_build_does() -> None:
    """Every registered subtask's drawn question is the one verify words from its program;
    the same task asking the opposite is refused."""
    from hopvista.markup_tasks.build import by_family, draw_task
    from hopvista.markup_tasks.tables import domain_tables
    from hopvista.verify.markup import question_problems

    families = by_family()
    supply = domain_tables("financial", 3)
    seen = set()
    for index in range(30):
        item, _, _ = draw_task(3, index, supply, families)
        assert item.task is not None
        seen.add(item.task.subtask)
        assert question_problems(item, lambda name: pytest.fail(name)) == [], item.id
        reasked = item.model_copy(update={"question": item.question.replace("the", "no", 1)})
        assert len(question_problems(reasked, lambda name: None)) == 1, item.question
    assert seen == {name for entries in families.values() for name in
                    (e.name for e in entries)}


# -- counterfactual markup variants: the record is the recipe's --------------------------------


@pytest.fixture(scope="module")
def marked(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Markup variants of two financial items: the control, a highlight and a column box on
    either cell (the records the rewrites below tamper with)."""
    root = tmp_path_factory.mktemp("marked")
    build_dataset(root / "fin", "--hops", "1", "-n", "2", "--no-images")
    assert main(["augment", str(root / "fin"), "--variants",
                 "markup-n,markup-hc,markup-hi,markup-cc,markup-ci",
                 "--out", str(root / "variants")]) == 0
    return root / "variants"


def _on_distractor(item: dict[str, Any]) -> None:
    if item["variant"].get("recipe") == "markup-hc":
        item["variant"]["markup"]["on"] = "distractor"


def _swapped_cells(item: dict[str, Any]) -> None:
    markup = item["variant"].get("markup")
    if markup:
        markup["target"], markup["distractor"] = markup["distractor"], markup["target"]


def _misled_answer(item: dict[str, Any]) -> None:
    markup = item["variant"].get("markup")
    if markup:
        markup["hijacked"] = {"answer": [1, 2, 3, 4], "distinguishes": True,
                              "statement": markup["target"]["statement"]}


def _made_up_ink(item: dict[str, Any]) -> None:
    if item["variant"].get("recipe") == "markup-cc":
        item["variant"]["markup"]["look"]["ink"] = "#123456"


#: Consistent rewrites of markup variants' records (every variant of every base, resealed),
#: and the words the failure must say.
REMARKED: dict[str, tuple[Callable[[dict[str, Any]], None], str]] = {
    "the target said to be the distractor": (
        _on_distractor, "variant.markup says 'highlight' on 'distractor', recipe 'markup-hc' "
        "marks 'highlight' on 'target'"),
    "target and distractor swapped": (
        _swapped_cells, "the table image marks"),
    "a misled reader's answer made up": (
        _misled_answer, "variant.markup.hijacked.answer is [1, 2, 3, 4], the markup recipe "
        "chooses"),
    "a column box's ink made up": (
        _made_up_ink, "variant.markup.look.ink is '#123456', the markup recipe chooses"),
}


@pytest.mark.slow
def test_markup_variants_verify_as_made(marked: Path, capsys: pytest.CaptureFixture[str]
                                        ) -> None:
    code, stdout, err = _verify(marked, capsys)
    assert code == 0, err
    assert "target and distractor" not in stdout


def _seed_replacing_a_column_ink(built: Path) -> tuple[int, str]:
    """A variants' seed under which a base of ``built`` has its column box drawn in another
    ink than its look's (a box over a coloured header), and that base's id."""
    bases = [base_of_item(Item.model_validate(item)) for item in read_items(built)]
    for seed in range(100):
        for base in bases:
            streams = Streams(seed, base.item.base_id, table_markup.GROUP)
            style = base_style(base, streams)
            if table_markup.mark_paint(streams, MARK_KINDS.get("column"),
                                       table_markup.look(streams, style), style):
                return seed, base.item.base_id
    raise AssertionError("no seed replaces a column box's ink")


@pytest.mark.slow
def test_a_column_box_s_replaced_ink_is_re_derived_by_verify(
        marked: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    seed, base_id = _seed_replacing_a_column_ink(marked.parent / "fin")
    root = tmp_path / "boxed"
    assert main(["augment", str(marked.parent / "fin"), "--variants", "markup-cc",
                 "--seed", str(seed), "--out", str(root)]) == 0
    items = read_items(root)
    boxed = next(i for i in items if i["base_id"] == base_id and i["variant"]["markup"])
    look = boxed["variant"]["markup"]["look"]
    chosen, faint = look["ink"], look["replaced_ink"]["ink"]
    assert look["replaced_ink"]["least"] == 20.0 and chosen != faint
    look["ink"] = faint  # the ink that hardly shows on the header
    reseal(root, items)
    _fails_naming(root, capsys, f"variant.markup.look.ink is {faint!r}, the markup recipe "
                  f"chooses {chosen!r}")


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(REMARKED))
def test_a_markup_variant_whose_record_is_not_its_recipe_s_fails(
        case: str, marked: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    change, words = REMARKED[case]
    root = _copy(marked, tmp_path)
    items = read_items(root)
    for item in items:
        change(item)
    reseal(root, items)
    _fails_naming(root, capsys, words)


@pytest.fixture(scope="module")
def charted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The three chart markup variants of two financial items."""
    root = tmp_path_factory.mktemp("charted")
    build_dataset(root / "fin", "--hops", "1", "-n", "2", "--no-images")
    assert main(["augment", str(root / "fin"), "--variants", "chart-markup",
                 "--out", str(root / "variants")]) == 0
    return root / "variants"


def _swapped_points(item: dict[str, Any]) -> None:
    """Target and distractor exchanged, and each variant said to emphasise the other one (so
    the chart image still emphasises the point the record names)."""
    markup = item["variant"].get("markup")
    if markup:
        markup["target"], markup["distractor"] = markup["distractor"], markup["target"]
        if markup["on"] is not None:
            markup["on"] = {"target": "distractor", "distractor": "target"}[markup["on"]]


def _misled_chart_answer(item: dict[str, Any]) -> None:
    markup = item["variant"].get("markup")
    if markup:
        markup["hijacked"].update(answer=[1, 2, 3], distinguishes=True, label=True)


#: Consistent rewrites of chart markup variants' records, and the words the failure must say.
RECHARTED: dict[str, tuple[Callable[[dict[str, Any]], None], str]] = {
    "target and distractor swapped with the emphasis": (
        _swapped_points, "variant.markup.distractor.entity is"),
    "a misled reader's answer made up": (
        _misled_chart_answer, "variant.markup.hijacked."),
}


@pytest.mark.slow
def test_chart_markup_variants_verify_as_made(charted: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    code, stdout, err = _verify(charted, capsys)
    assert code == 0, err
    assert "target and distractor" not in stdout


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(RECHARTED))
def test_a_chart_markup_record_that_is_not_its_recipe_s_fails(
        case: str, charted: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    change, words = RECHARTED[case]
    root = _copy(charted, tmp_path)
    items = read_items(root)
    for item in items:
        change(item)
    reseal(root, items)
    _fails_naming(root, capsys, "the markup recipe chooses", words)


@pytest.mark.slow
def test_a_made_up_misled_answer_fails_whatever_the_order_of_the_lines(
        marked: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _copy(marked, tmp_path)
    items = read_items(root)[::-1]  # every variant before its base
    for item in items:
        _misled_answer(item)
    reseal(root, items)
    _fails_naming(root, capsys, "variant.markup.hijacked.answer is [1, 2, 3, 4]")


# -- 6. words as a reader sees them: look-alike letters, invisible characters, hedges --------


#: Consistent rewordings that a reader reads as negating or hedging the claim, written to slip
#: past a list of words: each prefixes every form (and so every statement); with what the
#: failure must say.
READER: dict[str, tuple[str, str]] = {
    "a Cyrillic a in false": ("It is f\u0430lse that ", "mixes Cyrillic and Latin letters"),
    "a Cyrillic o in not": ("It is n\u043et the case that ", "(it reads as 'not')"),
    "fullwidth Not": ("\uff2e\uff4f\uff54 so: ", "the word 'not'"),
    "fabricated claim": ("Fabricated claim: ", "the word 'fabricated'"),
    "seemingly": ("Seemingly, ", "the word 'seemingly'"),
    "reportedly": ("Reportedly, ", "the word 'reportedly'"),
    "untruthfully": ("Untruthfully: ", "the word 'untruthfully'"),
    "a label of unknown words": ("Counterpoint: ", "the label 'Counterpoint:'"),
    "a soft hyphen": ("It is un\u00adtrue that ", "U+00AD (SOFT HYPHEN)"),
    "a zero-width space": ("Not\u200b ", "U+200B (ZERO WIDTH SPACE)"),
    "a bidi override": ("\u202eeslaf\u202c: ", "U+202E (RIGHT-TO-LEFT OVERRIDE)"),
    "Greek look-alikes": ("\u039d\u03bf, ", "Greek look-alikes of Latin letters (it reads as "
                          "'no')"),
    "letters spelled out": ("It is n o t so that ", "the word 'not'"),
    "a modifier apostrophe": ("It isn\u02bct so that ", "the word \"isn't\""),
    "a contraction without its apostrophe": ("It isnt so that ", "the word 'isnt'"),
    "a cross mark": ("\u274c ", "the sign '\u274c'"),
    "a label before a dash": ("Counterpoint \u2014 ", "the label 'Counterpoint \u2014'"),
    "struck-through letters": ("It is t\u0336r\u0336u\u0336e\u0336 that ",
                               "U+0336 (COMBINING LONG STROKE OVERLAY)"),
    "a fullwidth question mark": ("Is it so \uff1f ", "the sign '?'"),
    "a hyphen inside the word": ("It is fal-se that ", "the word 'false'"),
    "a digit for a letter": ("It is n0t so that ", "a number of its own"),
    "a ligature": ("It is \ufb01ctional that ", "the word 'fictional'"),
    "mathematical letters": ("\U0001d40d\U0001d428\U0001d42d, ", "the word 'not'"),
}


@pytest.mark.parametrize("case", sorted(READER))
def test_a_negation_a_reader_sees_fails_naming_the_form(case: str, custom: Path,
                                                        tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    prefix, reason = READER[case]
    root = _copy(custom, tmp_path)
    _reword(root, lambda t, f: prefix + _lower_start(f))
    assert read_items(root)[0]["statements"][0]["text"].startswith(prefix)
    err = _fails_naming(root, capsys, "manifest.json: config.wording.forms.")
    line = next(x for x in err.splitlines() if "config.wording.forms." in x)
    assert reason in line, line


@pytest.mark.parametrize("case", ["lookalike", "mixed", "invisible"])
def test_a_word_map_in_look_alike_letters_fails(case: str, custom: Path, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """"less than" for ``>`` written so that no list of phrases recognises it."""
    phrase = {"lookalike": "\u04cf\u0435\u0455\u0455 than", "mixed": "l\u0435ss than",
              "invisible": "le\u200bss than"}[case]
    root = _copy(custom, tmp_path)
    _reword(root, words={"cmp": {">": phrase}})
    err = _fails_naming(root, capsys, "manifest.json: config.wording.words.cmp['>']")
    assert "look-alikes" in err or "mixes" in err or "U+200B" in err


@pytest.mark.parametrize("key, sense, phrase", [
    ("cmp", ">", "at most"), ("cmp", ">", "lower than ever"),
    ("direction_verb", "increasing", "went down"), ("order", "max", "least"),
])
def test_a_word_map_of_the_opposite_sense_fails(key: str, sense: str, phrase: str, custom: Path,
                                               tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """A phrase of the other sense that no list of phrases holds whole still says it."""
    root = _copy(custom, tmp_path)
    _reword(root, words={key: {sense: phrase}})
    _fails_naming(root, capsys, f"manifest.json: config.wording.words.{key}[{sense!r}]",
                  "says '")


def test_a_question_asking_for_the_other_statements_fails(custom: Path, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    root = _copy(custom, tmp_path)
    _reword(root, question="Read the text, the table and the chart about {{ names }}. Which of "
            "the following statements are true?\n{% for statement in statements %}"
            "{{ loop.index }}. {{ statement }}\n{% endfor %}Answer with the numbers of the "
            "others.")
    _fails_naming(root, capsys, "manifest.json: config.wording.question", "'others'")


def test_a_question_asking_in_look_alike_letters_fails(custom: Path, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    root = _copy(custom, tmp_path)
    _reword(root, question="Read the text, the table and the chart about {{ names }}. Which of "
            "the following statements are n\u043et true?\n{% for statement in statements %}"
            "{{ loop.index }}. {{ statement }}\n{% endfor %}Answer with their numbers.")
    _fails_naming(root, capsys, "manifest.json: config.wording.question", "(it reads as 'not')")


def _fact_statement(root: Path) -> tuple[list[dict[str, Any]], dict[str, Any], dict[str, Any],
                                         str]:
    items = read_items(root)
    item, statement = next((i, s) for i in items for s in i["statements"] if s["type"] == "FC")
    name = next(e["name"] for e in item["entities"]
                if e["id"] == statement["program"]["claim"]["entity"])
    assert f"{name} " in statement["text"]
    return items, item, statement, name


def _requestion(root: Path, item: dict[str, Any]) -> None:
    names = ", ".join(e["name"] for e in item["entities"]).rstrip(".")
    template = _manifest(root)["config"]["wording"]["question"]
    item["question"] = _RENDER.from_string(template).render(
        names=names, statements=[s["text"] for s in item["statements"]])


@pytest.mark.parametrize("inserted, reason", [
    ("n\u0435ver ", "(it reads as 'never')"),
    ("n3ver ", "'never'"),
    ("un-truly ", "says 'un'"),
    ("s\u0435\u0435mingly ", "(it reads as 'seemingly')"),
    ("\u200b", "U+200B (ZERO WIDTH SPACE)"),
])
def test_a_fact_worded_in_look_alike_letters_fails(inserted: str, reason: str, financial: Path,
                                                   tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    root = _copy(financial, tmp_path)
    items, item, statement, name = _fact_statement(root)
    statement["text"] = statement["text"].replace(f"{name} ", f"{name} {inserted}", 1)
    _requestion(root, item)
    reseal(root, items)
    err = _fails_naming(root, capsys, f"item {item['id']}: statement")
    assert reason in err, err


def test_an_honest_custom_wording_with_accents_and_its_own_words_verifies(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Other honest wording (its own words, an accented one, a comma) is not a negation: it
    verifies, and the report names the words verify did not vouch for."""
    assert main(["new-domain", "orchards", "--dir", str(tmp_path)]) == 0
    pack = tmp_path / "orchards" / "domain.yaml"
    text = pack.read_text()
    for type_name, form in (
            ("CT", "Of every {{ noun }} surveyed, {{ entity }} is the one with {{ column }} "
                   "{{ cmp }} {{ threshold }} in {{ period }}."),
            ("RK", "In {{ period }}, {{ entity }} posted the {{ order }} {{ column }} of the "
                   "{{ plural }} in the café's survey.")):
        found = re.search(rf"\n  {re.escape(type_name)}:\n(    - .*\n)+", text)
        assert found is not None
        text = text.replace(found.group(0), f'\n  {type_name}:\n    - "{form}"\n')
    pack.write_text(text)
    out = tmp_path / "ds"
    assert main(["build", str(tmp_path / "orchards"), "--hops", "1", "-n", "16", "--seed", "1",
                 "--no-images", "--out", str(out)]) == 0
    code, stdout, err = _verify(out, capsys)
    assert code == 0, err
    assert stdout.rstrip().splitlines()[-1].startswith("OK: 16 items verified")
    doubt = next(line for line in stdout.splitlines() if "do not use" in line)
    assert "'every'" in doubt and "café" in doubt


# -- 7. values in text chunks as a reader sees them ------------------------------------------


def _chunk_of(item: dict[str, Any], entity: str) -> dict[str, Any]:
    return dict(next(t for t in item["inputs"]["text"] if t["entity"] == entity))


def _add_to_chunk(item: dict[str, Any], entity: str, sentence: str) -> str:
    """Append ``sentence`` to the entity's text chunk; the chunk's id."""
    chunk = next(t for t in item["inputs"]["text"] if t["entity"] == entity)
    chunk["text"] = chunk["text"].rstrip() + " " + sentence
    return str(chunk["chunk"])


def _a_large_chart_value(items: list[dict[str, Any]]) -> tuple[dict[str, Any], str, str]:
    """An item, an entity of its chart and a value it shows of four or more digits."""
    for item in items:
        for series in item["inputs"]["chart"]["series"]:
            for value in series["values"]:
                if len(value.split(".")[0].lstrip("-")) >= 4:
                    return item, series["entity"], value
    raise AssertionError("no chart value of four digits")


def _grouped(value: str, separator: str) -> str:
    whole, point, fraction = value.replace(",", "").partition(".")
    return f"{whole[:-3]}{separator}{whole[-3:]}{point}{fraction}"


@pytest.mark.parametrize("write", {
    "a zero-width space": lambda v: v[:2] + "\u200b" + v[2:],
    "a soft hyphen": lambda v: v[:2] + "\u00ad" + v[2:],
    "a word joiner": lambda v: v[:1] + "\u2060" + v[1:],
    "a no-break space grouping thousands": lambda v: _grouped(v, "\u00a0"),
    "a narrow no-break space grouping thousands": lambda v: _grouped(v, "\u202f"),
    "fullwidth digits": lambda v: v.translate({ord(d): 0xFF10 + int(d) for d in "0123456789"}),
}.items(), ids=lambda case: case[0] if isinstance(case, tuple) else "")
def test_a_chart_value_a_text_chunk_writes_in_another_form_fails(
        write: tuple[str, Callable[[str], str]], custom: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A text chunk that writes a chart value makes the chart unneeded, however the digits
    are dressed."""
    root = _copy(custom, tmp_path)
    items = read_items(root)
    item, entity, value = _a_large_chart_value(items)
    chunk = _add_to_chunk(item, entity, f"Its count that season was {write[1](value)}.")
    reseal(root, items)
    _fails_naming(root, capsys, f"item {item['id']}: text chunk {chunk} states chart values",
                  value)


def _fact_false(items: list[dict[str, Any]], wanted: Callable[[str], bool],
                margins: tuple[float, float]) -> tuple[dict[str, Any], str, str]:
    """A false statement claiming a fact ``wanted`` accepts: its item, the needle, and the
    entity of which it is claimed."""
    from hopvista.program.executor import Context, picked_by

    for item in items:
        for statement in item["statements"]:
            program = statement["program"]
            claim, select = program["claim"], program["select"]
            needle = claim["fact"]["needle"] if "fact" in claim else \
                select.get("needle") if select["op"] == "fact" else None
            if needle is None or statement["label"] or not wanted(needle):
                continue
            if "entity" in claim:
                return item, needle, claim["entity"]
            picked = picked_by(select, Context(item, *margins))
            if len(picked) == 1:
                return item, needle, next(iter(picked))
    raise AssertionError("no such false fact")


@pytest.mark.parametrize("case", ["a zero-width space", "a soft hyphen",
                                  "a number without its thousands separator"])
def test_a_fact_a_text_chunk_states_in_another_form_is_read(case: str, financial: Path,
                                                            tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]
                                                            ) -> None:
    """The entity a false fact statement claims a fact of states it, written so that a
    comparison of code points misses it: verify reads it as a reader does, and the stored
    label no longer holds."""
    root = _copy(financial, tmp_path)
    items = read_items(root)
    decide = _manifest(root)["config"]["decidability"]
    margins = (decide["min_rank_gap"], decide["min_trend_step"])
    if case == "a number without its thousands separator":
        item, needle, entity = _fact_false(items, lambda n: re.search(r"\d,\d{3}", n) is not None,
                                           margins)
        written = re.sub(r"(?<=\d),(?=\d{3})", "", needle)
    else:
        item, needle, entity = _fact_false(items, lambda n: len(n) > 8, margins)
        mark = "\u200b" if case == "a zero-width space" else "\u00ad"
        written = needle[:4] + mark + needle[4:]
    assert written != needle
    _add_to_chunk(item, entity, f"It also noted {written}.")
    reseal(root, items)
    err = _fails_naming(root, capsys, f"item {item['id']}: statement")
    assert "stored label False, program gives True" in err or \
        "the selector picks 2 entities" in err, err


@pytest.mark.parametrize("written", ["two thousand five hundred", "2.1 billion"])
def test_a_value_a_text_chunk_writes_in_words_or_another_scale_is_listed_as_not_checked(
        written: str, financial: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    root = _copy(financial, tmp_path)
    items = read_items(root)
    for item in items[:3]:
        _add_to_chunk(item, item["entities"][0]["id"], f"Spending came to {written} dollars.")
    reseal(root, items)
    code, out, err = _verify(root, capsys)
    assert code == 0, err
    notes = [line for line in out.splitlines() if "in words or at another scale" in line]
    assert len(notes) == 1 and notes[0].startswith("not checked: chart values that text chunks")
    code, out, _ = _verify(financial, capsys)
    assert code == 0 and "in words or at another scale" not in out


def test_a_fact_a_text_chunk_states_with_digits_for_its_number_word_is_read(
        custom: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """"2 neighbouring farms" states "two neighbouring farms" to a reader."""
    root = _copy(custom, tmp_path)
    items = read_items(root)
    decide = _manifest(root)["config"]["decidability"]
    words = re.compile(r"\b(two|three|four|five|six|seven|eight|nine|ten)\b")
    item, needle, entity = _fact_false(items, lambda n: words.search(n) is not None,
                                       (decide["min_rank_gap"], decide["min_trend_step"]))
    digits = {"two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
              "eight": "8", "nine": "9", "ten": "10"}
    _add_to_chunk(item, entity, f"It also notes {words.sub(lambda m: digits[m[1]], needle)}.")
    reseal(root, items)
    err = _fails_naming(root, capsys, f"item {item['id']}: statement")
    assert "stored label False, program gives True" in err or \
        "the selector picks 2 entities" in err, err


# -- the build reads texts as verify does ----------------------------------------------------------

@pytest.mark.parametrize("other", [
    "Cedar Farm planted 1,587 trees.",            # a thousands separator
    "Cedar Farm planted 1\u00a0587 trees.",       # a no-break space grouping thousands
    "Cedar Farm planted 15\u200b87 trees.",       # an invisible character
])
def test_a_fact_another_chunk_states_in_another_form_is_not_used(other: str) -> None:
    """A fact whose words another entity's chunk also holds, as a reader sees them, picks two
    entities: the build must not use it, or ``gen verify`` fails the honest build."""
    from hopvista.generation.instance import usable_facts
    from hopvista.world import Chunk, Fact

    fact = Fact(entity="a", chunk="a-1", kind="count", key="trees=1587",
                needle="1587 trees", claim="planted 1587 trees",
                sentence="Oak Farm planted 1587 trees.")
    chunks = {"a": Chunk("a-1", "a", "profile", 2020, "Oak Farm planted 1587 trees.",
                         facts=(fact,)),
              "b": Chunk("b-1", "b", "profile", 2020, other)}
    assert usable_facts(chunks)["a"] == ()
    alone = {"a": chunks["a"], "b": Chunk("b-1", "b", "profile", 2020, "Cedar Farm rested.")}
    assert usable_facts(alone)["a"] == (fact,)


# -- names a reader cannot tell apart -------------------------------------------------------------

def _renamed(items: list[dict[str, Any]], look: Callable[[str], str]) -> list[dict[str, Any]]:
    """The first item's second entity renamed ``look(first entity's name)`` everywhere the
    item writes its name."""
    first, second = items[0]["entities"][0]["name"], items[0]["entities"][1]["name"]
    forged = json.loads(json.dumps(items[0]).replace(json.dumps(second)[1:-1],
                                                     json.dumps(look(first))[1:-1]))
    return [forged, *items[1:]]


@pytest.mark.parametrize("look", [
    lambda name: name.replace("a", "\u0430", 1) if "a" in name else "\u0410" + name[1:],
    lambda name: name.upper(),
    lambda name: name[:2] + "\u200b" + name[2:],
], ids=["cyrillic-a", "case", "zero-width-space"])
def test_entities_a_reader_cannot_tell_apart_fail(financial: Path, tmp_path: Path,
                                                  look: Callable[[str], str],
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "d"
    shutil.copytree(financial, root)
    reseal(root, _renamed(read_items(root), look))
    _fails_naming(root, capsys, "look the same", "a reader cannot tell them apart")
