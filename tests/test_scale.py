"""Scale: a killed build resumes to the bytes of an uninterrupted one; ``--shard`` + ``gen
merge`` and ``--executor ray`` give the bytes of a local build."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hopvista.cli.main import main

BUILD = ["build", "financial", "--seed", "4"]
GEN = [sys.executable, "-m", "hopvista.cli.main"]
"""``gen`` as a process of its own, for the builds a test kills."""


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file()}


def _same(one: Path, two: Path) -> None:
    a, b = _files(one), _files(two)
    assert sorted(a) == sorted(b)
    for name in a:
        assert a[name] == b[name], name


@pytest.fixture(scope="module")
def single(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("single") / "ds"
    assert main([*BUILD, "-n", "8", "--out", str(out)]) == 0
    return out


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    """SIGKILL a build started in a session of its own: it, its workers and their browsers;
    return once none of them is left (a worker dies a moment after its parent)."""
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            os.killpg(process.pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    raise AssertionError(f"processes of group {process.pid} outlived SIGKILL")


def _stage_lines(parent: Path, name: str) -> int:
    total = 0
    for stage in parent.glob(f".{name}.hopvista-stage-*"):
        items = stage / "dataset" / "items.jsonl"
        if items.is_file():
            total = max(total, items.read_bytes().count(b"\n"))
    return total


@pytest.mark.slow
@pytest.mark.parametrize("workers, lines", [("1", 4), ("2", 8)])
def test_a_killed_build_resumes_to_the_bytes_of_an_uninterrupted_one(
        single: Path, tmp_path: Path, workers: str, lines: int,
        capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "ds"
    arguments = [*BUILD, "-n", "8", "--out", str(out), "--workers", workers]
    process = subprocess.Popen([*GEN, *arguments], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + 120
    while _stage_lines(tmp_path, "ds") < lines or not list(tmp_path.glob(".ds.hopvista-*")):
        assert process.poll() is None, "the build ended before it could be killed"
        assert time.monotonic() < deadline
        time.sleep(0.05)
    _kill_group(process)
    assert not out.exists()
    capsys.readouterr()
    assert main(arguments) == 0  # the same command again (in this process)
    said = capsys.readouterr().err
    assert "resuming the build killed" in said
    done = int(said.split("resuming the build killed")[1].split(": ")[1].split()[0])
    assert done >= lines - 2  # only the items in flight are made again
    _same(single, out)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".ds.")] == []


@pytest.mark.slow
def test_a_leftover_of_another_configuration_is_removed_not_resumed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "ds"
    arguments = [*BUILD, "--out", str(out)]
    process = subprocess.Popen([*GEN, *arguments, "-n", "8"], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 120
    while _stage_lines(tmp_path, "ds") < 3:
        assert process.poll() is None and time.monotonic() < deadline
        time.sleep(0.05)
    _kill_group(process)
    capsys.readouterr()
    assert main([*arguments, "-n", "6"]) == 0  # another build into the same --out
    said = capsys.readouterr().err
    assert "resuming" not in said and "interrupted build" in said
    assert main(["verify", str(out)]) == 0


@pytest.mark.slow
def test_shards_merged_are_the_single_build(single: Path, tmp_path: Path) -> None:
    shards = []
    for i in (1, 2, 3):
        shard = tmp_path / f"shard{i}"
        assert main([*BUILD, "-n", "8", "--shard", f"{i}/3", "--out", str(shard)]) == 0
        shards.append(shard)
    merged = tmp_path / "merged"
    assert main(["merge", *map(str, reversed(shards)), "--out", str(merged)]) == 0
    _same(single, merged)
    assert main(["verify", str(merged)]) == 0


@pytest.mark.slow
def test_merge_refuses_what_is_not_one_build(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    one = tmp_path / "one"
    two = tmp_path / "two"
    other = tmp_path / "other"
    assert main([*BUILD, "-n", "4", "--shard", "1/2", "--out", str(one), "--no-images"]) == 0
    assert main([*BUILD, "-n", "4", "--shard", "2/2", "--out", str(two), "--no-images"]) == 0
    assert main([*BUILD, "-n", "6", "--shard", "2/2", "--out", str(other),
                 "--no-images"]) == 0
    capsys.readouterr()
    cases = [([one], "shard(s) 2/2 missing"),
             ([one, other], "differs"),
             ([one, one], "again"),
             ([tmp_path / "nothing"], "no manifest.json")]
    for paths, words in cases:
        assert main(["merge", *map(str, paths), "--out", str(tmp_path / "m")]) == 2
        err = capsys.readouterr().err
        assert words in err and "Traceback" not in err, err
    forged = tmp_path / "forged"
    shutil.copytree(two, forged)
    lines = (forged / "items.jsonl").read_text().splitlines()
    item = json.loads(lines[0])
    item["question"] += " "
    (forged / "items.jsonl").write_text("\n".join([json.dumps(item), *lines[1:]]) + "\n")
    assert main(["merge", str(one), str(forged), "--out", str(tmp_path / "m")]) == 2
    assert "not as the shard's manifest says" in capsys.readouterr().err
    assert not (tmp_path / "m").exists()
    assert main(["verify", str(one)]) == 2
    assert "a shard of a build" in capsys.readouterr().err


@pytest.mark.slow
def test_the_ray_executor_gives_the_bytes_of_a_local_build(single: Path,
                                                           tmp_path: Path) -> None:
    pytest.importorskip("ray", reason="the [ray] extra is not installed")
    out = tmp_path / "ray"
    assert main([*BUILD, "-n", "8", "--out", str(out), "--executor", "ray",
                 "--workers", "2", "--shards", "2"]) == 0
    _same(single, out)
    assert [p.name for p in tmp_path.iterdir()] == ["ray"]


def test_shard_and_executor_options_are_checked(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    for argv, words in [(["--shard", "0/3"], "1 <= I <= N"), (["--shard", "2"], "I/N"),
                        (["--shards", "2"], "apply to --executor ray"),
                        (["--executor", "ray", "--shard", "1/2"], "builds them all")]:
        try:
            code = main([*BUILD, "--out", str(tmp_path / "o"), *argv])
        except SystemExit as exit_:  # argparse's own usage errors
            code = int(exit_.code or 0)
        assert code == 2
        err = capsys.readouterr().err
        assert words in err and "Traceback" not in err, err


def test_without_ray_the_error_says_what_to_install(monkeypatch: pytest.MonkeyPatch,
                                                   tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray now fails
    assert main([*BUILD, "--out", str(tmp_path / "o"), "--executor", "ray"]) == 2
    assert "pip install 'hopvista[ray]'" in capsys.readouterr().err
