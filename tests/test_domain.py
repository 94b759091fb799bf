"""Domain packs: loading, identities, and errors that name the file and the field."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

import hopvista.templates
from hopvista.cli.main import main
from hopvista.domain import derivable_closure, load_pack, parse_identity
from hopvista.errors import UserError

FINANCIAL = Path(hopvista.templates.__file__).parent / "financial"


@pytest.fixture()
def pack_copy(tmp_path: Path) -> Path:
    target = tmp_path / "mypack"
    shutil.copytree(FINANCIAL, target)
    return target


def test_identity_parsing_and_closure() -> None:
    identity = parse_identity("chech = oancf + ivncf - fincf")
    assert identity.lhs == "chech"
    assert identity.terms == ((1, "oancf"), (1, "ivncf"), (-1, "fincf"))
    gp, oi = parse_identity("gp = sale - cogs"), parse_identity("oiadp = gp - xsga - dp")
    assert "sale" in derivable_closure({"cogs", "oiadp", "xsga", "dp"}, [gp, oi])
    assert "sale" not in derivable_closure({"cogs", "xsga", "dp"}, [gp, oi])
    for bad in ["gp = sale cogs", "gp == sale", "= sale", "gp = "]:
        with pytest.raises(ValueError):
            parse_identity(bad)


def _edit(path: Path, old: str, new: str) -> int:
    """Replace ``old`` once; return the 1-based line where the edit starts."""
    text = path.read_text()
    assert old in text, old
    line = text[:text.index(old)].count("\n") + 1
    path.write_text(text.replace(old, new, 1))
    return line


DOMAIN = "domain.yaml"

# Ten (and more) broken packs: each error names the file, the line and the problem.
BROKEN = [
    ("typo in a field name", "entity:\n", "entitty:\n", "field 'entitty': unknown field"),
    ("unknown column in an identity", "  - at = lt + seq", "  - at = lt + equity",
     "field 'identities.4': unknown columns equity"),
    ("negative precision", "precision: 1,", "precision: -1,", "field 'columns.0.precision'"),
    ("unknown peer column", "peer_column: sale", "peer_column: sales",
     "field 'instance.peer_column': unknown column 'sales'"),
    ("YAML syntax", "format: 2", "format: [2", "invalid YAML"),
    ("template naming an unknown variable", "{{ threshold }} in {{ period }} is {{ entity }}",
     "{{ treshold }} in {{ period }} is {{ entity }}",
     "field 'forms.CT.0': 'treshold' is undefined"),
    ("template syntax", "{{ threshold }} in {{ period }} is {{ entity }}",
     "{{ threshold } in {{ period }} is {{ entity }}", "field 'forms.CT.0': template syntax"),
    ("template that fails to render", "{{ threshold }} in {{ period }} is {{ entity }}",
     "{{ threshold }} in {{ period }} is {{ entity }} {{ 1 // 0 }}",
     "field 'forms.CT.0': cannot render"),
    ("word map missing a key", '  cmp: {">": greater than, "<": less than}', '  cmp: {">": above}',
     "word map 'cmp' needs entries for <"),
    ("unknown statement type", "  FC+CT:\n", "  FC+XX:\n",
     "field 'forms.FC+XX': unknown statement type 'FC+XX'"),
    ("question with an unknown variable", "the chart about {{ names }}",
     "the chart about {{ companies }}", "field 'question': 'companies' is undefined"),
    ("text types without documents", "documents: true", "documents: false",
     "FC reads text but the domain has no documents"),
    ("trend types without a period axis", "period:\n  name: Year\n  plural: years\n", "",
     "needs a period axis but the domain has none"),
    ("enabled type without wording", "statement_types: [FC, CT,", "statement_types: [FC, CT, CT,",
     "listed twice: CT"),
    ("period format without a slot", "  plural: years\n", "  plural: years\n  format: Y\n",
     "field 'period.format': needs exactly one '{}'"),
    ("old pack format", "format: 2", "format: 1", "pack format 1"),
    ("missing required field", "title: Financial", "titel: Financial", "field 'titel'"),
    ("related group naming an unknown column", "statement_types: [",
     "related: [[sale, turnover]]\nstatement_types: [",
     "field 'related.0': unknown columns turnover"),
    ("paraphrase synonym of an unknown column", "    sale: [revenue, net revenue, sales]",
     "    sales: [revenue]", "field 'paraphrase.columns.sales': unknown column 'sales'"),
    ("paraphrase synonym that is another column's label", "    gp: [gross margin]",
     "    gp: [Net Income]", "field 'paraphrase.columns.gp.0': 'Net Income' is the label of "
     "column 'ni'"),
    ("paraphrase synonym of two columns", "    gp: [gross margin]", "    gp: [revenue]",
     "field 'paraphrase.columns.gp.0': 'revenue' is a synonym of column 'sale'"),
    ("paraphrase word of another sense", "    chech: [change in cash]\n",
     "    chech: [change in cash]\n  words: {cmp: {'>': [above, below]}}\n",
     "field 'paraphrase.words.cmp.>.1': 'below' says cmp '<', not '>'"),
    ("paraphrase word map unknown", "    chech: [change in cash]\n",
     "    chech: [change in cash]\n  words: {compare: {'>': [above]}}\n",
     "field 'paraphrase.words.compare': unknown word map 'compare'"),
    ("paraphrase word-map entry unknown", "    chech: [change in cash]\n",
     "    chech: [change in cash]\n  words: {order: {maximum: [top]}}\n",
     "unknown entry 'maximum' of word map 'order'"),
    ("paraphrase phrase with spaces around it", "    gp: [gross margin]",
     "    gp: [' gross margin']", "field 'paraphrase.columns.gp.0': expected a phrase"),
]


@pytest.mark.parametrize("case,old,new,message", BROKEN, ids=[b[0] for b in BROKEN])
def test_broken_packs_name_file_line_and_field(pack_copy: Path, case: str, old: str, new: str,
                                               message: str, capsys) -> None:
    line = _edit(pack_copy / DOMAIN, old, new)
    with pytest.raises(UserError) as exc:
        load_pack(pack_copy)
    text = str(exc.value)
    assert message in text
    assert text.startswith(f"{pack_copy / DOMAIN}:"), text
    reported = int(text.split(": ", 1)[0].rsplit(":", 1)[1])
    if case not in ("text types without documents", "trend types without a period axis",
                    "missing required field"):
        assert abs(reported - line) <= 1, (text, line)  # the field's key or its value
    assert main(["build", str(pack_copy), "-n", "3", "--out", str(pack_copy.parent / "o")]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert not (pack_copy.parent / "o").exists()


def test_a_pack_folder_builds_by_path(pack_copy: Path, tmp_path: Path) -> None:
    _edit(pack_copy / DOMAIN, "name: financial", "name: myfinance")
    out = tmp_path / "ds"
    assert main(["build", str(pack_copy), "-n", "6", "--no-images", "--out", str(out)]) == 0
    assert main(["verify", str(out)]) == 0


def test_a_pack_words_only_the_types_it_enables(pack_copy: Path, tmp_path: Path) -> None:
    """A pack without trend types (no TR forms, none enabled) builds; the plan uses the rest."""
    data = yaml.safe_load((pack_copy / DOMAIN).read_text())
    kept = [t for t in data["statement_types"] if "TR" not in t]
    del data["statement_types"]  # the worded types are the enabled ones
    data["forms"] = {t: f for t, f in data["forms"].items() if t in kept}
    (pack_copy / DOMAIN).write_text(yaml.safe_dump(data, sort_keys=False))
    pack = load_pack(pack_copy)
    assert set(pack.types) == set(kept)
    out = tmp_path / "ds"
    assert main(["build", str(pack_copy), "-n", "9", "--no-images", "--out", str(out)]) == 0
    assert main(["verify", str(out)]) == 0
    types = {s["type"] for line in (out / "items.jsonl").open()
             for s in json.loads(line)["statements"]}
    assert types <= set(kept) and not any("TR" in t for t in types)


def test_new_domain_writes_a_skeleton_that_loads(tmp_path: Path, capsys) -> None:
    assert main(["new-domain", "orchards", "--dir", str(tmp_path)]) == 0
    folder = tmp_path / "orchards"
    assert sorted(p.name for p in folder.iterdir()) == ["domain.yaml", "panel.csv",
                                                        "texts.jsonl"]
    text = (folder / "domain.yaml").read_text()
    assert text.count("\n#") >= 4 and "name: orchards" in text
    assert main(["new-domain", "orchards", "--dir", str(tmp_path)]) == 2
    assert "already exists" in capsys.readouterr().err
    assert main(["new-domain", "Orchards!", "--dir", str(tmp_path)]) == 2
    assert (folder / "domain.yaml").read_text() == text  # nothing of the user's overwritten


def test_the_skeletons_paraphrase_example_loads_once_uncommented(tmp_path: Path) -> None:
    assert main(["new-domain", "orchards", "--dir", str(tmp_path)]) == 0
    path = tmp_path / "orchards" / "domain.yaml"
    head, example = path.read_text().split("# paraphrase:\n")
    path.write_text(head + "paraphrase:\n" + "".join(
        line[2:] + "\n" for line in example.splitlines()))
    synonyms = load_pack(tmp_path / "orchards").synonyms()
    assert synonyms.column("rain") == ("precipitation", "rain total")
    assert synonyms.word("direction_verb", "increasing") == ("rose", "grew", "went up")
    assert synonyms.word("cmp", ">")[0] == "greater than"  # the built-in defaults


@pytest.mark.slow
def test_the_skeleton_builds_and_verifies_as_it_stands(tmp_path: Path) -> None:
    assert main(["new-domain", "orchards", "--dir", str(tmp_path)]) == 0
    out = tmp_path / "out"
    assert main(["build", str(tmp_path / "orchards"), "--hops", "1-3", "-n", "12",
                 "--no-images", "--out", str(out)]) == 0
    assert main(["verify", str(out)]) == 0
    texts = [s["text"] for line in (out / "items.jsonl").open()
             for s in json.loads(line)["statements"]]
    assert any("orchard" in t or "farm" in t for t in texts)
    assert not any("compan" in t for t in texts)


def test_related_columns_are_never_table_and_chart_together() -> None:
    """The verifier refuses an item whose chart column is related (pack ``related``) to one of
    its table columns, even where no identity links them."""
    from hopvista.verify.checks import check_chart_needed

    item = {"inputs": {
        "chart": {"column": {"key": "kappa", "precision": 1}, "years": [300, 400],
                  "series": [{"entity": "a", "values": ["1.0", "2.0"]},
                             {"entity": "b", "values": ["3.0", "5.0"]}]},
        "table": {"columns": [{"key": "rho"}, {"key": "cp"}],
                  "rows": [{"entity": e, "year": y, "values": {"rho": v, "cp": "7.0"}}
                           for e, v in (("a", "0.4"), ("b", "0.9")) for y in (300, 400)]},
        "text": []}}
    assert check_chart_needed(item, [], [["kappa", "rho"]]) == [
        "chart column 'kappa' is related to table column(s) ['rho'] (pack 'related')"]
    assert check_chart_needed(item, [], [["kappa", "seebeck"]]) == []
