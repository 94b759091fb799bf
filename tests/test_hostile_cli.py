"""The command line under a hostile environment: arguments that are not UTF-8, output streams
that cannot encode what gen prints, and flags naming places gen must not write."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from hopvista.cli.main import main


@pytest.mark.parametrize("command", [
    ["build", "financial", "-n", "2", "--no-images", "--out"],
    ["augment", "x.jsonl", "--variants", "web", "--out"],
    ["merge", "a", "b", "--out"],
    ["verify"],
])
def test_an_argument_that_is_not_utf8_is_one_line(tmp_path: Path, command: list[str],
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """A file name with a byte that is not UTF-8 reaches Python as a lone surrogate; gen
    names it instead of failing when it writes it into a manifest or Parquet file."""
    name = os.fsdecode(bytes(tmp_path / "bad") + b"\xffname")
    assert main([*command, name]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and err.startswith("gen: error: argument ")
    assert "not valid UTF-8" in err and "\\udcff" in err
    assert not any(tmp_path.iterdir())


@pytest.mark.slow
@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_output_streams_that_cannot_encode_the_text_are_escaped_not_a_crash(
        tmp_path: Path, encoding: str) -> None:
    out = tmp_path / "ü-data"
    env = {**os.environ, "PYTHONIOENCODING": encoding}
    for args in (["list"], ["build", "financial", "-n", "2", "--no-images", "--out", str(out)],
                 ["verify", str(out)]):
        done = subprocess.run([sys.executable, "-m", "hopvista.cli.main", *args], env=env,
                              capture_output=True, timeout=300)
        assert done.returncode == 0, done.stderr.decode(encoding, "replace")
    assert (out / "manifest.json").is_file()


def test_augmenting_a_dataset_of_variants_only_says_why_nothing_is_made(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An augmented dataset holds variants and no base: augmenting it again names that."""
    import json

    from tests.conftest import build_dataset, read_items

    data = tmp_path / "variants"
    build_dataset(data, "-n", "3", "--no-images")
    items = read_items(data)
    for item in items:
        item["variant"] = {**item["variant"], "name": "web", "recipe": "web"}
        item["id"] = f"{item['base_id']}.web"
    (data / "items.jsonl").write_text("".join(json.dumps(i) + "\n" for i in items))
    capsys.readouterr()
    assert main(["augment", str(data), "--variants", "web", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "all variants" in err and "no base" in err


HUGE = "9" * 5000
LONG_NUMBER = "9" * 4000  # still an int to Python


@pytest.mark.parametrize(("command", "says"), [
    (["build", "financial", "--limit", HUGE], "gen: error: unrecognized arguments: --limit "),
    (["build", "financial", "-n", LONG_NUMBER], "gen build: error: argument -n/--count: must "
                                                "be at most 1,000,000,000,000, got "),
    (["verify", "D", "--max-problems", LONG_NUMBER], "gen verify: error: argument "
                                                     "--max-problems: must be at most "),
    ([HUGE], "gen: error: argument command: invalid choice: "),
], ids=["unrecognized", "count-too-large", "max-problems", "command"])
def test_a_huge_argument_is_shown_as_an_excerpt_not_echoed_whole(
        tmp_path: Path, command: list[str], says: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as raised:
        main([*command, "--out", str(tmp_path / "ds")] if command[0] == "build" else command)
    assert raised.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(says), err[:200]
    assert "\n" not in err and len(err) < 400, err[:200]
    assert "characters)" in err
    assert not (tmp_path / "ds").exists()


@pytest.mark.parametrize("command", [["build", "x" * 5000, "-n", "1", "--no-images"],
                                     ["list", "--domain", "x" * 5000]],
                         ids=["build", "list"])
def test_a_domain_name_too_long_for_a_path_is_one_line(
        tmp_path: Path, command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    argv = [*command, "--out", str(tmp_path / "ds")] if command[0] == "build" else command
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("gen: error: domain 'xxxx") and "(5,000 characters)" in err, err[:200]
    assert "\n" not in err and len(err) < 300
    assert not (tmp_path / "ds").exists()
