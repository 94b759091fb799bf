"""Hostile paths and files for the commands that write datasets (build, augment, merge) and
for every reader of a dataset: a command never replaces its own input nor writes inside a
dataset; names too long, symlink loops, files on the way, /proc and FIFOs at --out are one
line naming --out; entity names a chart cannot draw are refused where they are read; named
pipes and special files in a dataset are refused, never waited on."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import threading
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

import hopvista
from hopvista.cli.main import main
from hopvista.errors import UserError
from hopvista.render.chart_data import ChartData
from tests.conftest import build_dataset, read_items, reseal

EXAMPLE_PANEL = Path(__file__).parent.parent / "examples" / "air-quality" / "panel.csv"
QUICK = ("-n", "6", "--no-images")
HANG_LIMIT_S = 60.0


def _snapshot(folder: Path) -> dict[str, bytes]:
    """Every file below ``folder`` with its bytes (to show nothing was changed)."""
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _one_line_error(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err.strip()
    assert err.startswith("gen: error: "), err
    assert "\n" not in err and "Traceback" not in err, err
    return err


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small dataset (6 items, no images), never changed by the tests (they copy it)."""
    out = tmp_path_factory.mktemp("hostile-paths") / "D"
    build_dataset(out, *QUICK)
    return out


@pytest.fixture(scope="module")
def shards(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The two shards of one build of 6 items."""
    root = tmp_path_factory.mktemp("hostile-shards")
    paths = (root / "s1", root / "s2")
    for k, path in enumerate(paths, start=1):
        build_dataset(path, *QUICK, "--shard", f"{k}/2")
    return paths


@pytest.fixture
def dataset(built: Path, tmp_path: Path) -> Path:
    """A copy of the small dataset the test may change."""
    return Path(shutil.copytree(built, tmp_path / "D"))


@pytest.fixture
def shard_copies(shards: tuple[Path, Path], tmp_path: Path) -> tuple[Path, Path]:
    first, second = (Path(shutil.copytree(s, tmp_path / s.name)) for s in shards)
    return first, second


# -- 1. a command never replaces its own input nor writes inside a dataset ----------------------

def test_augment_refuses_to_replace_its_own_input(dataset: Path, capsys) -> None:
    before = _snapshot(dataset)
    assert main(["augment", str(dataset), "--variants", "web", "--out", str(dataset),
                 "--overwrite"]) == 2
    err = _one_line_error(capsys)
    assert f"--out {dataset}: is the input" in err
    assert _snapshot(dataset) == before


def test_augment_refuses_its_input_reached_through_a_symlink(dataset: Path, tmp_path: Path,
                                                             capsys) -> None:
    link = tmp_path / "link"
    link.symlink_to(dataset)
    before = _snapshot(dataset)
    assert main(["augment", str(dataset), "--variants", "web", "--out", str(link),
                 "--overwrite"]) == 2
    assert "is the input" in _one_line_error(capsys)
    assert _snapshot(dataset) == before and link.is_symlink()


def test_augment_refuses_an_out_inside_its_input(dataset: Path, capsys) -> None:
    before = _snapshot(dataset)
    assert main(["augment", str(dataset), "--variants", "web", "--out",
                 str(dataset / "variants")]) == 2
    assert "lies inside the input" in _one_line_error(capsys)
    assert _snapshot(dataset) == before
    assert sorted(p.name for p in dataset.iterdir()) == ["README.md", "data", "items.jsonl",
                                                         "manifest.json"]


def test_augment_refuses_an_out_that_holds_its_input(dataset: Path, built: Path,
                                                     tmp_path: Path, capsys) -> None:
    """An earlier dataset at --out that holds the input: replacing it would delete the
    input."""
    outer = Path(shutil.copytree(built, tmp_path / "outer"))
    inner = outer / "inner"
    dataset.rename(inner)
    before = _snapshot(outer)
    assert main(["augment", str(inner), "--variants", "web", "--out", str(outer),
                 "--overwrite"]) == 2
    assert "holds the input" in _one_line_error(capsys)
    assert _snapshot(outer) == before


def test_merge_refuses_to_replace_a_shard(shard_copies: tuple[Path, Path], capsys) -> None:
    first, second = shard_copies
    before = _snapshot(first)
    assert main(["merge", str(first), str(second), "--out", str(first), "--overwrite"]) == 2
    err = _one_line_error(capsys)
    assert f"--out {first}: is the input" in err
    assert _snapshot(first) == before


def test_merge_refuses_an_out_inside_a_shard(shard_copies: tuple[Path, Path], capsys) -> None:
    first, second = shard_copies
    before = _snapshot(second)
    assert main(["merge", str(first), str(second), "--out", str(second / "all")]) == 2
    assert "lies inside the input" in _one_line_error(capsys)
    assert _snapshot(second) == before


def test_merge_overwrites_only_an_earlier_dataset(shard_copies: tuple[Path, Path],
                                                  tmp_path: Path, capsys) -> None:
    first, second = shard_copies
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep")
    assert main(["merge", str(first), str(second), "--out", str(mine), "--overwrite"]) == 2
    assert "not a hopvista dataset" in _one_line_error(capsys)
    assert (mine / "notes.txt").read_text() == "keep"
    merged = tmp_path / "merged"
    for _ in range(2):  # the second merge replaces the first: an earlier hopvista dataset
        assert main(["merge", str(first), str(second), "--out", str(merged),
                     "--overwrite"]) == 0
    assert main(["verify", str(merged)]) == 0


@pytest.mark.parametrize("inside", ["sub", "data/more", "items.jsonl/x"])
def test_build_refuses_an_out_inside_a_dataset(dataset: Path, capsys, inside: str) -> None:
    before = _snapshot(dataset)
    assert main(["build", "financial", *QUICK, "--out", str(dataset / inside)]) == 2
    err = _one_line_error(capsys)
    assert "--out" in err and ("inside the hopvista dataset" in err or "not a folder" in err)
    assert _snapshot(dataset) == before
    assert not any(p.name.startswith(".") for p in dataset.iterdir())


def test_a_ray_build_refuses_an_out_inside_a_dataset_before_any_shard(dataset: Path,
                                                                      capsys) -> None:
    pytest.importorskip("ray")
    before = _snapshot(dataset)
    assert main(["build", "financial", *QUICK, "--executor", "ray", "--out",
                 str(dataset / "sub")]) == 2
    assert "inside the hopvista dataset" in _one_line_error(capsys)
    assert _snapshot(dataset) == before
    assert not any(p.name.startswith(".") for p in dataset.parent.iterdir()
                   if "ray" in p.name)


def test_build_into_a_shard_inside_refused(shard_copies: tuple[Path, Path], capsys) -> None:
    first, _ = shard_copies
    assert main(["build", "financial", *QUICK, "--shard", "1/2", "--out",
                 str(first / "again")]) == 2
    assert "inside the hopvista dataset" in _one_line_error(capsys)


def test_markup_refuses_to_replace_its_tables_dataset(dataset: Path, capsys) -> None:
    before = _snapshot(dataset)
    assert main(["markup", "-n", "2", "--tables", str(dataset), "--out",
                 str(dataset), "--overwrite"]) == 2
    assert "is the input" in _one_line_error(capsys)
    assert _snapshot(dataset) == before


# -- 2. names too long ---------------------------------------------------------------------------

def _commands(out: Path, built: Path, shards: tuple[Path, Path]) -> dict[str, list[str]]:
    return {
        "build": ["build", "financial", *QUICK, "--out", str(out)],
        "augment": ["augment", str(built), "--variants", "web", "--out", str(out)],
        "merge": ["merge", str(shards[0]), str(shards[1]), "--out", str(out)],
    }


COMMANDS = ["build", "augment", "merge"]


@pytest.mark.parametrize("command", COMMANDS)
def test_an_out_name_longer_than_the_file_system_allows_is_one_line(
        built: Path, shards: tuple[Path, Path], tmp_path: Path, capsys, command: str) -> None:
    out = tmp_path / ("x" * 300)
    assert main(_commands(out, built, shards)[command]) == 2
    err = _one_line_error(capsys)
    assert "--out" in err and "300 bytes" in err and "at most 255" in err
    assert list(tmp_path.iterdir()) == []


def test_an_out_leaf_of_250_characters_builds_with_bounded_names_beside_it(
        tmp_path: Path) -> None:
    """The staging folder and the lock file beside --out would be longer than a name may
    be; they get bounded names and the build goes through, twice (the second replaces)."""
    out = tmp_path / ("y" * 250)
    build_dataset(out, *QUICK)
    build_dataset(out, "-n", "7", "--no-images", "--overwrite")
    assert main(["verify", str(out)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [out.name]


def test_a_path_too_long_for_the_datasets_files_is_refused(tmp_path: Path, capsys) -> None:
    out = tmp_path.joinpath(*["d" * 200] * 20)
    assert main(["build", "financial", *QUICK, "--out", str(out)]) == 2
    assert "a path may have" in _one_line_error(capsys)
    assert list(tmp_path.iterdir()) == []


SEED = str(10 ** 240)


def test_a_seed_too_long_for_image_file_names_is_refused_up_front(tmp_path: Path,
                                                                 capsys) -> None:
    assert main(["build", "financial", "-n", "1", "--seed", SEED, "--out",
                 str(tmp_path / "ds")]) == 2
    err = _one_line_error(capsys)
    assert err.startswith("gen: error: --seed 1000") and "241 digits" in err
    assert "--no-images" in err
    assert list(tmp_path.iterdir()) == []


def test_markup_refuses_a_seed_too_long_for_its_image_names(tmp_path: Path, capsys) -> None:
    assert main(["markup", "-n", "1", "--seed", SEED, "--out",
                 str(tmp_path / "ds")]) == 2
    assert "--seed" in _one_line_error(capsys)
    assert list(tmp_path.iterdir()) == []


def test_a_long_seed_without_images_builds(tmp_path: Path) -> None:
    build_dataset(tmp_path / "ds", "-n", "2", "--no-images", "--seed", SEED)
    assert main(["verify", str(tmp_path / "ds")]) == 0


@pytest.mark.slow
def test_the_longest_seed_image_names_allow_builds_with_images(tmp_path: Path,
                                                                capsys) -> None:
    main(["build", "financial", "-n", "1", "--hops", "1", "--seed", SEED, "--out",
          str(tmp_path / "probe")])
    digits = int(capsys.readouterr().err.split("at most ")[1].split()[0])
    out = tmp_path / "ds"
    build_dataset(out, "-n", "1", "--hops", "1", "--seed", str(10 ** (digits - 1)))
    assert main(["verify", str(out)]) == 0
    names = [p.name for p in (out / "images").iterdir()]
    assert len(names) == 2 and max(len(n) for n in names) >= 240


# -- 3. --out through a symlink loop or a file --------------------------------------------------

def _loop(tmp_path: Path) -> Path:
    (tmp_path / "loop").symlink_to("loop")
    return tmp_path / "loop" / "x"


def _pair(tmp_path: Path) -> Path:
    (tmp_path / "a").symlink_to("b")
    (tmp_path / "b").symlink_to("a")
    return tmp_path / "a" / "x" / "y"


def _under_file(tmp_path: Path) -> Path:
    (tmp_path / "somefile").write_text("mine")
    return tmp_path / "somefile" / "x"


def _deep_under_file(tmp_path: Path) -> Path:
    (tmp_path / "somefile").write_text("mine")
    return tmp_path / "somefile" / "x" / "y"


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize(("make", "says"), [
    (_loop, "symbolic link that loops"), (_pair, "symbolic link that loops"),
    (_under_file, "is a file, not a folder"), (_deep_under_file, "is a file, not a folder")],
    ids=["loop", "pair", "file", "deep-file"])
def test_an_out_through_a_loop_or_a_file_is_one_line(
        built: Path, shards: tuple[Path, Path], tmp_path: Path, capsys, command: str,
        make: Any, says: str) -> None:
    work = tmp_path / "work"
    work.mkdir()
    out = make(work)
    before = sorted(p.name for p in work.iterdir())
    assert main(_commands(out, built, shards)[command]) == 2
    err = _one_line_error(capsys)
    assert f"--out {out}" in err and says in err
    assert sorted(p.name for p in work.iterdir()) == before
    if (work / "somefile").exists():
        assert (work / "somefile").read_text() == "mine"


# -- 4. unusual targets: the error names --out and what is wrong -------------------------------

@pytest.mark.skipif(not Path("/proc/self").is_dir() or not Path("/sys/kernel").is_dir(),
                    reason="needs /proc and /sys")
@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("target", ["/proc/x", "/sys/x", "/proc/self/x"])
def test_an_out_on_proc_or_sys_names_out_and_why(built: Path, shards: tuple[Path, Path],
                                                capsys, command: str, target: str) -> None:
    assert main(_commands(Path(target), built, shards)[command]) == 2
    err = _one_line_error(capsys)
    assert err.startswith(f"gen: error: --out {target}: ")
    assert "-n " not in err
    assert "not on a file system that stores files" in err or "not writable" in err


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_an_out_that_is_a_special_file_is_refused(built: Path, shards: tuple[Path, Path],
                                                  tmp_path: Path, capsys, command: str,
                                                  kind: str) -> None:
    if kind == "fifo":
        out = tmp_path / "pipe"
        os.mkfifo(out)
    else:
        out = Path(os.devnull)
    assert main(_commands(out, built, shards)[command]) == 2
    assert f"--out {out}: exists and is not a folder" in _one_line_error(capsys)


def test_a_read_only_file_system_names_out(tmp_path: Path, monkeypatch, capsys) -> None:
    from hopvista.building import pipeline

    monkeypatch.setattr(pipeline, "storage_problem",
                        lambda folder: "is on a read-only file system")
    assert main(["build", "financial", *QUICK, "--out", str(tmp_path / "ds")]) == 2
    err = _one_line_error(capsys)
    assert err.startswith(f"gen: error: --out {tmp_path / 'ds'}: cannot be created: ")
    assert "read-only" in err


# -- 5. entity names a chart cannot draw --------------------------------------------------------

def _panel_folder(root: Path, old: str, new: str) -> Path:
    folder = root / "panel-data"
    folder.mkdir()
    text = EXAMPLE_PANEL.read_text(encoding="utf-8")
    assert old in text
    (folder / "panel.csv").write_text(text.replace(old, new, 1), encoding="utf-8")
    return folder


@pytest.mark.parametrize(("old", "new", "says"), [
    ("Port Avalon", "Port\x00Avalon", "control character (U+0000)"),
    ("Port Avalon", "Port\x1bAvalon", "control character (U+001B)"),
    ("Port Avalon", "Port\u202eAvalon", "bidirectional control (U+202E)"),
    ("Port Avalon", "Port\ufffeAvalon", "noncharacter (U+FFFE)"),
    ("Port Avalon", "Port Avalon" + "n" * 400, "characters long"),
    ("PM2.5", "PM\x002.5", "control character (U+0000)"),
], ids=["nul", "escape", "bidi-override", "noncharacter", "long", "nul-in-header"])
def test_panel_names_a_chart_cannot_show_are_refused_with_file_and_line(
        tmp_path: Path, capsys, old: str, new: str, says: str) -> None:
    folder = _panel_folder(tmp_path, old, new)
    assert main(["build", "panel", "--data", str(folder), "--hops", "1-2", "-n", "4",
                 "--no-images", "--out", str(tmp_path / "ds")]) == 2
    err = _one_line_error(capsys)
    line = 1 if "header" in says or old == "PM2.5" else 2
    assert f"{folder / 'panel.csv'}:{line}: " in err and says in err
    assert not (tmp_path / "ds").exists()


def test_a_panel_name_with_ordinary_unicode_still_builds(tmp_path: Path) -> None:
    folder = _panel_folder(tmp_path, "Port Avalon", "Pörto Ávalon – الميناء")
    assert main(["build", "panel", "--data", str(folder), "--hops", "1-2", "-n", "4",
                 "--no-images", "--out", str(tmp_path / "ds")]) == 0


CHART = {"column": {"key": "v", "label": "Value", "unit": "USD", "precision": 1},
         "years": [2020, 2021], "series": [{"entity": "a", "values": ["1.0", "2.0"]},
                                           {"entity": "b", "values": ["3.0", "4.0"]}]}


@pytest.mark.parametrize("name", ["A\x00B", "A\x07B", "A\ud800B", "A\uffffB"])
def test_a_chart_refuses_a_text_it_cannot_draw_before_any_library_sees_it(name: str) -> None:
    with pytest.raises(UserError, match="which a chart cannot draw"):
        ChartData.parse(CHART, {"a": name, "b": "Other"}, "line")
    labelled = json.loads(json.dumps(CHART))
    labelled["column"]["label"] = name
    with pytest.raises(UserError, match="column label"):
        ChartData.parse(labelled, {"a": "One", "b": "Other"}, "line")



# -- 5b. panel names a reader cannot tell apart, numbers a table or chart cannot show --------

def _build_panel(folder: Path, out: Path) -> int:
    return main(["build", "panel", "--data", str(folder), "--hops", "1-2", "-n", "4",
                 "--no-images", "--out", str(out)])


def _panel_with(root: Path, changes: dict[str, str], domain: str | None = None) -> Path:
    """The example panel with every ``old`` text replaced (``"Eastmere,"`` renames an
    entity on all its rows, first met on line 8), and a data folder ``domain.yaml``."""
    folder = root / "panel-data"
    folder.mkdir()
    text = EXAMPLE_PANEL.read_text(encoding="utf-8")
    for old, new in changes.items():
        assert old in text
        text = text.replace(old, new)
    (folder / "panel.csv").write_text(text, encoding="utf-8")
    if domain is not None:
        (folder / "domain.yaml").write_text(domain, encoding="utf-8")
    return folder


@pytest.mark.parametrize(("changes", "says"), [
    ({"Eastmere,": "Port Av\u0430lon,"},
     ":8: entity 'Port Av\u0430lon' (U+0430 CYRILLIC SMALL LETTER A) looks the same as "
     "'Port Avalon' on line 2"),
    ({"Eastmere,": "\uff30ort Avalon,"},
     ":8: entity '\uff30ort Avalon' (U+FF30 FULLWIDTH LATIN CAPITAL LETTER P) looks the same "
     "as 'Port Avalon' on line 2"),
    ({"Eastmere,": "PORT AVALON,"}, ":8: entity 'PORT AVALON' "),
    ({"Eastmere,": "Port\u2800Avalon,"},
     ":8: entity 'Port\u2800Avalon' (U+2800 BRAILLE PATTERN BLANK) looks the same as "
     "'Port Avalon' on line 2"),
    ({"Eastmere,": "\u3164,"}, ":8: the 'City' cell '\u3164' shows nothing (it has only "
                              "blank or invisible characters)"),
    ({",PM10,": ",\u0420M2.5,"},
     ":1: header label '\u0420M2.5' (U+0420 CYRILLIC CAPITAL LETTER ER) looks the same as "
     "'PM2.5' (column 3)"),
    ({",PM10,": ",PM\u2082.\u2085,"}, ":1: header label 'PM\u2082.\u2085' (U+2082 SUBSCRIPT "
                                      "TWO) looks the same as 'PM2.5' (column 3)"),
], ids=["cyrillic-entity", "fullwidth-entity", "case-entity", "blank-entity", "filler-entity",
        "cyrillic-header", "subscript-header"])
def test_panel_names_that_look_the_same_are_refused_naming_both_lines(
        tmp_path: Path, capsys, changes: dict[str, str], says: str) -> None:
    folder = _panel_with(tmp_path, changes)
    assert _build_panel(folder, tmp_path / "ds") == 2
    err = _one_line_error(capsys)
    assert err.startswith(f"gen: error: {folder / 'panel.csv'}{says}"), err
    assert not (tmp_path / "ds").exists()


@pytest.mark.parametrize(("changes", "line", "says"), [
    ({"Eastmere,": "East\u200bmere,"}, 8, "U+200B ZERO WIDTH SPACE"),
    ({"Eastmere,": "East\u00admere,"}, 8, "U+00AD SOFT HYPHEN"),
    ({"Eastmere,": "East\u2060mere,"}, 8, "U+2060 WORD JOINER"),
    ({"Eastmere,": "East\u200dmere,"}, 8, "U+200D ZERO WIDTH JOINER"),
    ({"Eastmere,": "East\u200cmere,"}, 8, "U+200C ZERO WIDTH NON-JOINER"),
    ({"Eastmere,": "Eastmere\U000e0041,"}, 8, "U+E0041 TAG LATIN CAPITAL LETTER A"),
    ({",Ozone,": ",Oz\ufeffone,"}, 1, "U+FEFF ZERO WIDTH NO-BREAK SPACE"),
], ids=["zwsp", "soft-hyphen", "word-joiner", "zwj-latin", "zwnj-latin", "tag", "bom-header"])
def test_panel_names_with_invisible_format_characters_are_refused(
        tmp_path: Path, capsys, changes: dict[str, str], line: int, says: str) -> None:
    folder = _panel_with(tmp_path, changes)
    assert _build_panel(folder, tmp_path / "ds") == 2
    err = _one_line_error(capsys)
    assert f"{folder / 'panel.csv'}:{line}: " in err
    assert f"has an invisible format character ({says})" in err
    assert not (tmp_path / "ds").exists()


def test_panel_names_with_the_joiners_their_scripts_need_still_build(tmp_path: Path) -> None:
    folder = _panel_with(tmp_path, {"Eastmere,": "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647,",
                                    "Caldwell Bay,": "\u0915\u094d\u200d\u0937,"})
    assert _build_panel(folder, tmp_path / "ds") == 0


@pytest.mark.parametrize(("domain", "says"), [
    ("columns: [{key: pm10, label: \"\u0420M2.5\"}]",
     "domain.yaml:1: field 'columns.0.label': the column label '\u0420M2.5' (U+0420 CYRILLIC "
     "CAPITAL LETTER ER) looks the same as 'PM2.5' ("),
    ("entity: {label: \"NO\u2082\"}",
     "domain.yaml:1: field 'entity.label': the entity label 'NO\u2082' (U+2082 SUBSCRIPT TWO) "
     "looks the same as 'NO2' ("),
    ("columns: [{label: PM10, unit: \"\u00b5g\u200b/m\u00b3\"}]",
     "domain.yaml:1: field 'columns.0.unit': the column unit '\u00b5g\\u200b/m\u00b3' has an "
     "invisible format character (U+200B ZERO WIDTH SPACE)"),
    ("period: {name: \"PM2.5\"}",
     "domain.yaml:1: field 'period.name': the period name 'PM2.5' is also a header at "),
    ("period: {format: \"\\u202e{}\"}",
     "domain.yaml:1: field 'period.format': the period format '\\u202e{}' has a "
     "bidirectional control (U+202E), which reorders the text shown"),
], ids=["column-label", "entity-label", "unit", "period-name", "period-format"])
def test_labels_a_panels_domain_yaml_gives_are_held_to_the_same_rules(
        tmp_path: Path, capsys, domain: str, says: str) -> None:
    folder = _panel_with(tmp_path, {}, domain=domain + "\n")
    assert _build_panel(folder, tmp_path / "ds") == 2
    err = _one_line_error(capsys)
    assert err.startswith(f"gen: error: {folder / says}"), err


@pytest.mark.parametrize(("cell", "says"), [
    ("1e308", "'1e308' is too large to show (a table or chart shows magnitudes below 1e15)"),
    ("9" * 5000, "'" + "9" * 40 + "..." + "9" * 12 + "' is too large to show"),
    ("1000000000000000", "'1000000000000000' is too large to show"),
    ("-1e15", "'-1e15' is too large to show"),
    ("123456789012.123456", "'123456789012.123456' has 18 significant digits as shown with 6 "
                            "decimal(s) (at most 15)"),
], ids=["1e308", "5000-digits", "1e15", "minus-1e15", "18-significant-digits"])
def test_panel_numbers_a_table_or_chart_cannot_show_are_refused_with_line_and_column(
        tmp_path: Path, capsys, cell: str, says: str) -> None:
    folder = _panel_with(tmp_path, {"Port Avalon,2018,20.0,": f"Port Avalon,2018,{cell},"})
    assert _build_panel(folder, tmp_path / "ds") == 2
    err = _one_line_error(capsys)
    assert err == f"gen: error: {folder / 'panel.csv'}:2: column 'PM2.5': {says}" or \
        err.startswith(f"gen: error: {folder / 'panel.csv'}:2: column 'PM2.5': {says}"), err
    assert len(err) < 300
    assert not (tmp_path / "ds").exists()


def test_the_largest_panel_numbers_shown_build_and_verify(tmp_path: Path) -> None:
    """PM10 scaled to hundreds of trillions (one cell at fifteen significant digits, one zero
    written with a huge exponent): the build shows them and verify accepts what it shows."""
    lines = EXAMPLE_PANEL.read_text(encoding="utf-8").split("\n")
    scaled = [lines[0]]
    for k, line in enumerate(filter(None, lines[1:])):
        fields = line.split(",")
        fields[3] = ("99999999999999.9", "0e999999999999999999")[k] if k < 2 else \
            format(Decimal(fields[3]).scaleb(13), "f")
        scaled.append(",".join(fields))
    folder = tmp_path / "panel-data"
    folder.mkdir()
    (folder / "panel.csv").write_text("\n".join(scaled) + "\n", encoding="utf-8")
    assert _build_panel(folder, tmp_path / "ds") == 0
    assert re.search(r'"[1-9][0-9]{2}(,000){4}\.0"', (tmp_path / "ds" / "items.jsonl")
                     .read_text(encoding="utf-8"))
    assert main(["verify", str(tmp_path / "ds")]) == 0


def test_verify_refuses_a_shown_number_the_sources_would_refuse(dataset: Path, capsys) -> None:
    items = read_items(dataset)
    row = items[0]["inputs"]["table"]["rows"][0]
    key = next(iter(row["values"]))
    decimals = row["values"][key].partition(".")[2]
    row["values"][key] = "1,000,000,000,000,000" + (f".{decimals}" if decimals else "")
    reseal(dataset, items)
    capsys.readouterr()
    assert main(["verify", str(dataset)]) != 0
    captured = capsys.readouterr()
    out = captured.out + captured.err
    assert f"field 'inputs.table.rows.0.values.{key}'" in out
    assert "is too large to show (a table or chart shows magnitudes below 1e15)" in out


# -- 6. named pipes and special files -----------------------------------------------------------

def _unblock(fifo: Path) -> None:
    """Let a reader blocked on opening ``fifo`` go on (it then reads an empty file)."""
    with contextlib.suppress(OSError):  # no reader waiting
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))


def _run_with_limit(args: list[str], fifos: list[Path]) -> int:
    """``gen ARGS`` in a thread: a command still waiting after :data:`HANG_LIMIT_S` fails
    the test (and is let go by opening the pipes it waits on)."""
    result: dict[str, Any] = {}

    def run() -> None:
        try:
            result["code"] = main(args)
        except BaseException as exc:  # noqa: BLE001  (reported by the assertion below)
            result["raised"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(HANG_LIMIT_S)
    hung = thread.is_alive()
    while thread.is_alive():
        for fifo in fifos:
            _unblock(fifo)
        thread.join(0.2)
    assert not hung, f"gen {' '.join(args)} waited on a named pipe"
    assert "raised" not in result, result
    return int(result["code"])


def _fifo_in_place_of(path: Path) -> Path:
    if path.is_dir():
        shutil.rmtree(path)
    else:
        path.unlink()
    os.mkfifo(path)
    return path


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    folder = tmp_path / "runs"
    folder.mkdir()
    return folder


def _readers(dataset: Path, runs: Path) -> dict[str, list[str]]:
    return {
        "audit": ["audit", str(dataset)],
        "eval": ["eval", str(dataset), "--model", "random", "--out", str(runs / "eval")],
        "export": ["export", str(dataset), "--format", "vlmevalkit", "--out",
                   str(runs / "export")],
        "augment": ["augment", str(dataset), "--variants", "web", "--out",
                    str(runs / "augment")],
        "verify": ["verify", str(dataset)],
        "preview": ["preview", str(dataset), "--out", str(runs / "preview.html")],
    }


READERS = ["audit", "eval", "export", "augment", "verify", "preview"]


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("name", ["items.jsonl", "manifest.json"])
def test_a_named_pipe_in_a_dataset_is_refused_not_waited_on(
        dataset: Path, runs: Path, capsys, reader: str, name: str) -> None:
    fifo = _fifo_in_place_of(dataset / name)
    code = _run_with_limit(_readers(dataset, runs)[reader], [fifo])
    captured = capsys.readouterr()
    if reader == "verify" and name == "items.jsonl":
        assert code == 1 and "items.jsonl: not a regular file" in captured.err
        return
    assert code == 2, captured.err
    err = captured.err.strip()
    assert "\n" not in err and str(fifo) in err and "not a regular file" in err


def test_hopvista_load_refuses_a_named_pipe(dataset: Path) -> None:
    fifo = _fifo_in_place_of(dataset / "items.jsonl")
    loaded = hopvista.load(dataset)
    outcome: dict[str, BaseException] = {}

    def read() -> None:
        try:
            list(loaded)
        except BaseException as exc:  # noqa: BLE001
            outcome["raised"] = exc

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    thread.join(HANG_LIMIT_S)
    while thread.is_alive():
        _unblock(fifo)
        thread.join(0.2)
    assert isinstance(outcome.get("raised"), UserError)
    assert "named pipe" in str(outcome["raised"])
    with pytest.raises(UserError, match="named pipe"):
        loaded.get("nothing")


def test_a_symlinked_items_file_is_refused_as_verify_refuses_it(dataset: Path,
                                                                tmp_path: Path) -> None:
    elsewhere = tmp_path / "items-elsewhere.jsonl"
    (dataset / "items.jsonl").rename(elsewhere)
    (dataset / "items.jsonl").symlink_to(elsewhere)
    with pytest.raises(UserError, match="symbolic link"):
        list(hopvista.load(dataset))


def _with_images(dataset: Path, paths: list[str]) -> None:
    """Give the first item images at ``paths`` (a forged line of items.jsonl)."""
    items = read_items(dataset)
    items[0]["images"] = [{"role": role, "path": path, "sha256": "0" * 64, "width": 1,
                           "height": 1} for role, path in zip(("table", "chart"), paths,
                                                              strict=True)]
    (dataset / "items.jsonl").write_text("".join(json.dumps(i) + "\n" for i in items))


@pytest.mark.parametrize("reader", ["augment", "export"])
def test_a_named_pipe_as_an_image_is_refused_not_waited_on(dataset: Path, runs: Path,
                                                           capsys, reader: str) -> None:
    first = json.loads((dataset / "items.jsonl").read_text().splitlines()[0])["id"]
    names = [f"images/{first}.table.png", f"images/{first}.chart.png"]
    _with_images(dataset, names)
    (dataset / "images").mkdir()
    fifos = [dataset / name for name in names]
    for fifo in fifos:
        os.mkfifo(fifo)
    args = _readers(dataset, runs)[reader] + (["--setting", "interleaved"]
                                              if reader == "export" else [])
    assert _run_with_limit(args, fifos) == 2
    err = _one_line_error(capsys)
    assert "named pipe" in err and "images/" in err


@pytest.mark.parametrize("path", ["../../outside.png", "/etc/hostname"])
def test_augment_never_copies_an_image_from_or_to_outside_the_datasets(
        dataset: Path, runs: Path, tmp_path: Path, capsys, path: str) -> None:
    _with_images(dataset, [path, path])
    assert main(_readers(dataset, runs)["augment"]) == 2
    err = _one_line_error(capsys)
    assert "path" in err
    assert not (tmp_path / "outside.png").exists() and not (runs / "augment").exists()


def test_merge_refuses_a_named_pipe_in_a_shard(shard_copies: tuple[Path, Path],
                                               tmp_path: Path, capsys) -> None:
    first, second = shard_copies
    fifo = _fifo_in_place_of(first / "manifest.json")
    assert _run_with_limit(["merge", str(first), str(second), "--out",
                            str(tmp_path / "all")], [fifo]) == 2
    assert "named pipe" in _one_line_error(capsys)


def test_a_named_pipe_beside_out_is_never_opened(tmp_path: Path) -> None:
    """A manifest.json FIFO in a folder above --out (checked for a dataset around --out) and
    a FIFO marker in a staging folder beside it are passed over, not waited on."""
    os.mkfifo(tmp_path / "manifest.json")
    stage = tmp_path / ".ds.hopvista-stage-forged"
    stage.mkdir()
    os.mkfifo(stage / ".hopvista-stage.json")
    fifos = [tmp_path / "manifest.json", stage / ".hopvista-stage.json"]
    assert _run_with_limit(["build", "financial", *QUICK, "--out", str(tmp_path / "ds")],
                           fifos) == 0
    assert main(["verify", str(tmp_path / "ds")]) == 0


@pytest.mark.parametrize("name", ["panel.csv", "texts.jsonl"])
def test_a_named_pipe_as_panel_data_is_refused_not_waited_on(tmp_path: Path, capsys,
                                                             name: str) -> None:
    folder = Path(shutil.copytree(EXAMPLE_PANEL.parent, tmp_path / "panel"))
    fifo = _fifo_in_place_of(folder / name)
    code = _run_with_limit(["build", "panel", "--data", str(folder), *QUICK, "--hops", "1-2",
                            "--out", str(tmp_path / "ds")], [fifo])
    assert code == 2
    assert f"{fifo}: not a regular file" in _one_line_error(capsys)


@pytest.mark.slow
def test_augment_refuses_a_dataset_whose_ids_are_too_long_for_image_names(
        tmp_path: Path, capsys) -> None:
    """A --no-images build takes any seed; its ids are then too long for the image file
    names of its variants, which augment says before drawing any."""
    source = tmp_path / "long-seed"
    build_dataset(source, "-n", "2", "--no-images", "--seed", SEED)
    capsys.readouterr()
    assert main(["augment", str(source), "--variants", "web", "--out",
                 str(tmp_path / "variants")]) == 2
    err = _one_line_error(capsys)
    assert "image file names would be" in err and "financial-s1000" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["long-seed"]


def _reseal_shard(shard: Path, lines: list[str]) -> None:
    """Write a shard's items.jsonl back with the sha256 its manifest lists."""
    import hashlib

    data = "".join(line + "\n" for line in lines).encode()
    (shard / "items.jsonl").write_bytes(data)
    manifest = json.loads((shard / "manifest.json").read_text())
    manifest["files"]["items.jsonl"] = hashlib.sha256(data).hexdigest()
    (shard / "manifest.json").write_text(json.dumps(manifest))


def test_merge_keeps_a_line_separator_inside_an_item(shard_copies: tuple[Path, Path],
                                                     tmp_path: Path) -> None:
    first, second = shard_copies
    lines = (first / "items.jsonl").read_text(encoding="utf-8").split("\n")[:-1]
    item = json.loads(lines[0])
    item["provenance"]["source"] = f"{item['provenance'].get('source')}\u2028more"
    lines[0] = json.dumps(item, ensure_ascii=False)
    _reseal_shard(first, lines)
    assert main(["merge", str(first), str(second), "--out", str(tmp_path / "all")]) == 0
    text = (tmp_path / "all" / "items.jsonl").read_text(encoding="utf-8")
    merged = [json.loads(line) for line in text.split("\n")[:-1]]
    assert len(merged) == 6 and merged[0]["provenance"]["source"].endswith("\u2028more")


@pytest.mark.parametrize("forge", ["no-shard", "bad-index", "no-title", "files-list",
                                   "bad-line"])
def test_merge_refuses_a_forged_shard_in_one_line(shard_copies: tuple[Path, Path],
                                                  tmp_path: Path, capsys, forge: str) -> None:
    first, second = shard_copies
    manifest = json.loads((first / "manifest.json").read_text())
    if forge == "bad-line":
        _reseal_shard(first, ['{"id": "x"}'])
    else:
        if forge == "no-shard":
            del manifest["shard"]
        elif forge == "bad-index":
            manifest["shard"]["index"] = 0
        elif forge == "no-title":
            del manifest["title"]
        else:
            manifest["files"] = ["items.jsonl"]
        (first / "manifest.json").write_text(json.dumps(manifest))
    assert main(["merge", str(first), str(second), "--out", str(tmp_path / "all")]) == 2
    assert str(first) in _one_line_error(capsys)
    assert not (tmp_path / "all").exists()


# -- beside --out: nothing there is written through ----------------------------------------------

def _lock_as(kind: str, lock: Path, victim: Path) -> None:
    if kind == "symlink":
        lock.symlink_to(victim)
    elif kind == "hard-link":
        os.link(victim, lock)
    elif kind == "fifo":
        os.mkfifo(lock)
    else:
        lock.write_text("my notes\n")


@pytest.mark.parametrize("kind", ["symlink", "hard-link", "fifo", "user-file"])
def test_a_lock_file_hopvista_did_not_make_is_never_written(tmp_path: Path, capsys,
                                                           kind: str) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    lock = tmp_path / ".ds.lock"
    _lock_as(kind, lock, victim)
    assert main(["build", "financial", *QUICK, "--out", str(tmp_path / "ds")]) == 2
    err = _one_line_error(capsys)
    assert f"{lock} is " in err and "not a lock file of hopvista" in err
    assert victim.read_text() == "precious\n"
    assert os.path.lexists(lock) and not (tmp_path / "ds").exists()


def test_a_stale_lock_file_of_a_killed_build_is_taken(tmp_path: Path) -> None:
    (tmp_path / ".ds.lock").write_text("pid 999999\n")
    build_dataset(tmp_path / "ds", *QUICK)
    assert not (tmp_path / ".ds.lock").exists()


def test_overwrite_needs_the_folders_own_manifest_not_a_link_to_one(
        built: Path, tmp_path: Path, capsys) -> None:
    """A folder whose manifest.json is a symbolic link to a dataset's is not a dataset:
    --overwrite leaves it (and the files in it) alone."""
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "thesis.tex").write_text("mine")
    (mine / "manifest.json").symlink_to(built / "manifest.json")
    assert main(["build", "financial", *QUICK, "--out", str(mine), "--overwrite"]) == 2
    assert "not a hopvista dataset" in _one_line_error(capsys)
    assert (mine / "thesis.tex").read_text() == "mine"


@pytest.mark.parametrize("kind", ["symlink", "hardlink", "fifo"])
def test_a_lock_is_never_taken_through_a_link_or_a_special_file(tmp_path: Path,
                                                                  kind: str) -> None:
    """Even when a path changes after the commands' own checks, the lock itself never
    truncates or writes a file it did not make."""
    from hopvista.output.atomic import FileLock

    target, lock = tmp_path / "user.txt", tmp_path / ".out.lock"
    target.write_text("the user's words\n")
    if kind == "symlink":
        lock.symlink_to(target)
    elif kind == "hardlink":
        os.link(target, lock)
    else:
        os.mkfifo(lock)
    with pytest.raises(OSError):
        FileLock(lock).acquire()
    assert target.read_text() == "the user's words\n"
