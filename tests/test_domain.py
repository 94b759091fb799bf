"""Domain packs: loading, identities, and errors that name the file and the field."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

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


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


@pytest.mark.parametrize("file,old,new,message", [
    ("pack.yaml", "period_label: Year", "period_labl: Year", "field 'period_labl'"),
    ("pack.yaml", "  - at = lt + seq", "  - at = lt + equity", "field 'identities.4'"),
    ("pack.yaml", "precision: 1,", "precision: -1,", "field 'columns.0.precision'"),
    ("pack.yaml", "peer_column: sale", "peer_column: sales", "instance.peer_column"),
    ("pack.yaml", "format: 1", "format: [1", "invalid YAML"),
    ("statements.yaml", "{{ threshold }} in {{ year }} is {{ entity }}",
     "{{ treshold }} in {{ year }} is {{ entity }}", "field 'forms.CT.0'"),
    ("statements.yaml", '  cmp: {">": greater than, "<": less than}', '  cmp: {">": above}',
     "word map 'cmp' needs entries for <"),
])
def test_pack_errors_name_file_and_field(pack_copy: Path, file: str, old: str, new: str,
                                         message: str, capsys) -> None:
    _edit(pack_copy / file, old, new)
    with pytest.raises(UserError) as exc:
        load_pack(pack_copy)
    assert str(pack_copy / file) in str(exc.value) and message in str(exc.value)
    assert main(["build", str(pack_copy), "-n", "3", "--out", str(pack_copy.parent / "o")]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_a_pack_folder_builds_by_path(pack_copy: Path, tmp_path: Path) -> None:
    _edit(pack_copy / "pack.yaml", "name: financial", "name: myfinance")
    out = tmp_path / "ds"
    assert main(["build", str(pack_copy), "-n", "6", "--no-images", "--out", str(out)]) == 0
    assert main(["verify", str(out)]) == 0
