"""The ``gen`` command as a user runs it: build, verify, list, and bad input."""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import pytest

from hopvista.cli.main import main
from tests.conftest import build_dataset as _build
from tests.conftest import read_items as _items


def test_hard_build_spans_all_modalities_and_verifies(hard48: Path, capsys) -> None:
    items = _items(hard48)
    assert len(items) == 48
    for item in items:
        assert item["difficulty"] == "hard" and item["hops"] == 3
        assert len(item["statements"]) == 3
        for statement in item["statements"]:
            assert statement["modalities"] == ["text", "table", "chart"]
            assert statement["type"].startswith("FC+")
        assert item["answer"] == [i + 1 for i, s in enumerate(item["statements"]) if s["label"]]
    assert main(["verify", str(hard48)]) == 0
    assert "OK: 48 items" in capsys.readouterr().out


def _rehash(path: Path) -> None:
    import hashlib
    manifest = json.loads((path / "manifest.json").read_text())
    manifest["files"]["items.jsonl"] = hashlib.sha256(
        (path / "items.jsonl").read_bytes()).hexdigest()
    (path / "manifest.json").write_text(json.dumps(manifest))


def test_verify_catches_a_flipped_label(hard48: Path, tmp_path: Path, capsys) -> None:
    import shutil
    copy = tmp_path / "tampered"
    shutil.copytree(hard48, copy)
    items = _items(copy)
    victim = items[5]
    victim["statements"][1]["label"] = not victim["statements"][1]["label"]
    victim["answer"] = [i + 1 for i, s in enumerate(victim["statements"]) if s["label"]]
    (copy / "items.jsonl").write_text("".join(json.dumps(i) + "\n" for i in items))
    capsys.readouterr()
    assert main(["verify", str(copy)]) == 1
    err = capsys.readouterr().err
    assert "sha256" in err and "items.jsonl" in err
    _rehash(copy)  # a careful tamperer fixes the hash: the label check still fails
    assert main(["verify", str(copy)]) == 1
    err = capsys.readouterr().err
    assert f"item {victim['id']}: statement 2" in err and "program gives" in err
    assert sum("program gives" in line for line in err.splitlines()) == 1


@pytest.mark.slow
def test_all_levels_balance_answers(tmp_path: Path) -> None:
    out = tmp_path / "all"  # the plan's balance does not depend on the proxy defences
    _build(out, "-n", "160", "--seed", "3", "--no-images", "--no-defences")
    items = _items(out)
    answers = Counter(tuple(i["answer"]) for i in items)
    assert len(answers) == 8 and set(answers.values()) <= {19, 20, 21}
    assert sorted(Counter(i["difficulty"] for i in items).values()) == [53, 53, 54]
    manifest = json.loads((out / "manifest.json").read_text())
    assert set(manifest["shares"]["answers"].values()) <= {19, 20, 21}
    assert main(["verify", str(out)]) == 0


def test_same_seed_same_bytes_whatever_the_workers(six: Path, tmp_path: Path) -> None:
    """One command at --workers 1 (the shared build) and at --workers 2, in this process:
    every file is identical, images and Parquet included (the manifest lists the sha256 of
    each)."""
    _build(tmp_path / "2", "-n", "6", "--seed", "3", "--workers", "2")
    first = (six / "manifest.json").read_bytes()
    assert len(json.loads(first)["files"]) == 1 + 12 + 1 + 1  # items, images, parquet, card
    assert (tmp_path / "2" / "manifest.json").read_bytes() == first
    for name in json.loads(first)["files"]:
        assert (tmp_path / "2" / name).read_bytes() == (six / name).read_bytes(), name
    for seed in ("7", "8"):  # another seed, another dataset (small: Hard items are slow)
        _build(tmp_path / seed, "--hops", "3", "-n", "6", "--seed", seed, "--no-images")
    assert (tmp_path / "7" / "items.jsonl").read_bytes() != \
        (tmp_path / "8" / "items.jsonl").read_bytes()


def test_items_are_reproducible_one_by_one(hard48: Path) -> None:
    from hopvista.audit.defences import ProxyDefences
    from hopvista.domain import resolve_pack
    from hopvista.generation.item import build_item
    from hopvista.generation.plan import make_plan
    from hopvista.sources import load_world

    pack = resolve_pack("financial")
    world = load_world("synthetic", pack, 7)
    entry = make_plan(7, 48, (3,), resolve_pack("financial").types)[17]
    stored = _items(hard48)[17]
    assert [image["role"] for image in stored["images"]] == ["table", "chart"]
    stored["images"] = []
    assert build_item(world, pack, 7, entry, ProxyDefences.of(world)
                      ).model_dump(mode="json") == stored


@pytest.mark.parametrize("args,message", [
    (["build", "nosuchdomain"], "unknown domain 'nosuchdomain'"),
    (["build", "financial", "--hops", "4"], "hops must be between 1 and 3"),
    (["build", "financial", "--count", "0"], "must be at least 1"),
    (["build", "financial", "-n", "x"], "expected a whole number"),
    (["build", "financial", "--seed", "-1"], "must be 0 or more"),
    (["verify", "/nonexistent/dataset"], "no manifest.json"),
])
def test_bad_input_is_one_line_and_exit_2(args: list[str], message: str, capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        code = main(args)
        raise SystemExit(code)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert message in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_non_empty_out_is_never_clobbered(tmp_path: Path, capsys) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    (out / "thesis.tex").write_text("precious")
    assert main(["build", "financial", "-n", "8", "--no-images", "--out", str(out)]) == 2
    assert "not empty" in capsys.readouterr().err
    assert main(["build", "financial", "-n", "8", "--no-images", "--out", str(out),
                 "--overwrite"]) == 2
    assert "not a hopvista dataset" in capsys.readouterr().err
    assert (out / "thesis.tex").read_text() == "precious"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine"]


@pytest.mark.slow
def test_overwrite_replaces_an_earlier_dataset(tmp_path: Path) -> None:
    out = tmp_path / "ds"
    _build(out, "-n", "8", "--no-images")
    first = (out / "items.jsonl").read_bytes()
    _build(out, "-n", "9", "--overwrite", "--no-images")
    assert (out / "items.jsonl").read_bytes() != first
    assert main(["verify", str(out)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ds"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write anywhere")
def test_unwritable_out(tmp_path: Path, capsys) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    assert main(["build", "financial", "-n", "8", "--no-images", "--out", str(locked / "x")]) == 2
    assert "cannot write" in capsys.readouterr().err


def test_unwritable_out_as_root(tmp_path: Path, capsys) -> None:
    """A path under a regular file can never be written, whoever runs the build."""
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert main(["build", "financial", "-n", "8", "--no-images", "--out", str(blocker / "x")]) == 2
    err = capsys.readouterr().err
    assert str(blocker / "x") in err and len(err.strip().splitlines()) == 1


def test_missing_parent_folders_are_created(tmp_path: Path) -> None:
    _build(tmp_path / "new" / "deeper" / "ds", "-n", "3", "--no-images")
    assert (tmp_path / "new" / "deeper" / "ds" / "items.jsonl").is_file()


def test_list_names_domains_and_types(capsys) -> None:
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "financial" in out and "FC+AR+RK" in out and "synthetic" in out


def test_verify_reports_malformed_items_without_a_traceback(tmp_path: Path, capsys) -> None:
    out = tmp_path / "ds"
    _build(out, "-n", "8", "--no-images")
    lines = (out / "items.jsonl").read_text().splitlines()
    broken = json.loads(lines[2])
    del broken["hops"]
    lines[2] = json.dumps(broken)
    (out / "items.jsonl").write_text("\n".join([*lines, "[1]", "{oops"]) + "\n")
    capsys.readouterr()
    assert main(["verify", str(out)]) == 1
    err = capsys.readouterr().err
    assert f"item {broken['id']}: malformed item" in err and "Traceback" not in err
    assert "items.jsonl:9: not an item" in err and "items.jsonl:10: not valid JSON" in err
    assert main(["preview", str(out)]) == 2
    assert "items.jsonl:9: not a hopvista item" in capsys.readouterr().err


def test_window_shorter_than_instances_is_a_user_error(tmp_path: Path, capsys) -> None:
    assert main(["build", "financial", "--years", "2020-2021", "-n", "3", "--no-images",
                 "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "window has 2 periods" in err and "--periods" in err


def test_a_reader_that_goes_away_ends_gen_quietly() -> None:
    import subprocess
    result = subprocess.run("gen list | head -c 1; exit ${PIPESTATUS[0]}", shell=True,
                            executable="/bin/bash", capture_output=True, text=True, timeout=120)
    assert result.stderr == "" and result.returncode in (0, 141)


def test_messages_stay_on_one_line(capsys) -> None:
    assert main(["build", "financial", "--out", "a\nb/c\x1b[2J", "-n", "2", "--no-images",
                 "--source", "nope\nOK: 6 items verified"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "\\n" in err and "\x1b" not in err


def test_an_internal_error_is_one_line_and_its_traceback_is_saved(monkeypatch, capsys,
                                                                  tmp_path: Path) -> None:
    import tempfile

    from hopvista.cli import listing

    def broken(args):  # type: ignore[no-untyped-def]
        raise TypeError("a bug")
    monkeypatch.delenv("HOPVISTA_TRACEBACK")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(listing, "run", broken)
    assert main(["list"]) == 70
    err = capsys.readouterr().err.strip()
    assert err.startswith("gen: internal error: TypeError: a bug") and "\n" not in err
    (saved,) = tmp_path.glob("hopvista-crash-*.txt")
    assert "Traceback" in saved.read_text() and str(saved) in err
