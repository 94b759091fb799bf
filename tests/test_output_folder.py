"""Nothing of the user's is lost: the output folder under concurrent builds, kills at every
step of the replacement, symlinks, failures and full disks."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hopvista.cli.main import main
from hopvista.output import folder as outdir
from hopvista.output.atomic import FileLock, Unsupported

BUILD = ["build", "financial", "-n", "4", "--no-images"]


def _build(out: Path, *extra: str) -> int:
    return main([*BUILD, "--out", str(out), *extra])


def _count_of(dataset: Path) -> int:
    """Which build wrote ``dataset`` (builds differ in count, sharing one world)."""
    return int(json.loads((dataset / "manifest.json").read_text())["counts"]["items"])


def _leftovers(parent: Path) -> list[str]:
    """Hidden entries a build may leave beside its output: staging folders and lock files."""
    return sorted(p.name for p in parent.iterdir() if p.name.startswith("."))


@pytest.mark.slow
def test_a_second_build_into_a_locked_folder_is_refused(tmp_path: Path, capsys) -> None:
    out = tmp_path / "ds"
    lock = FileLock(tmp_path / ".ds.lock")
    lock.acquire()
    try:
        assert _build(out) == 2
    finally:
        lock.release()
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "another build is writing it" in err
    assert f"pid {os.getpid()}" in err
    assert not out.exists() and _leftovers(tmp_path) == []
    assert _build(out) == 0  # the lock is gone with its owner


@pytest.mark.slow
def test_two_builds_started_together_one_wins_one_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "ds"
    command = [sys.executable, "-m", "hopvista.cli.main", "build", "financial", "-n", "6",
               "--out", str(out)]
    runs = [subprocess.Popen(command + ["-n", str(count)], stderr=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True) for count in (5, 6)]
    results = [(run.wait(timeout=300), run.stderr.read() if run.stderr else "") for run in runs]
    codes = sorted(code for code, _ in results)
    assert codes == [0, 2], results
    refused = next(err for code, err in results if code == 2)
    assert "another build is writing it" in refused and refused.count("\n") == 1
    winner = [5, 6][[code for code, _ in results].index(0)]
    assert _count_of(out) == winner
    assert main(["verify", str(out)]) == 0
    assert _leftovers(tmp_path) == []


def _create_at_step(step: str, action):  # type: ignore[no-untyped-def]
    def checkpoint(name: str) -> None:
        if name == step:
            action()
    return checkpoint


def test_a_folder_that_appears_during_the_build_is_never_replaced(
        tmp_path: Path, monkeypatch, capsys) -> None:
    out = tmp_path / "ds"

    def user_creates_it() -> None:
        out.mkdir()  # an empty folder: a plain rename would silently replace it
    monkeypatch.setattr(outdir, "_checkpoint", _create_at_step("written", user_creates_it))
    assert _build(out) == 2
    err = capsys.readouterr().err.strip()
    assert "created at" in err and "left as it is" in err and "\n" not in err
    assert out.is_dir() and list(out.iterdir()) == []
    assert _leftovers(tmp_path) == []


def test_a_dataset_swapped_for_user_files_during_the_build_is_never_replaced(
        tmp_path: Path, monkeypatch, capsys) -> None:
    out = tmp_path / "ds"
    assert _build(out) == 0

    def user_replaces_it() -> None:
        os.rename(out, tmp_path / "moved")
        out.mkdir()
        (out / "thesis.tex").write_text("mine")
    monkeypatch.setattr(outdir, "_checkpoint", _create_at_step("written", user_replaces_it))
    assert _build(out, "--overwrite", "-n", "7") == 2
    assert "replaced by something else" in capsys.readouterr().err
    assert (out / "thesis.tex").read_text() == "mine"
    assert sorted(p.name for p in out.iterdir()) == ["thesis.tex"]
    assert main(["verify", str(tmp_path / "moved")]) == 0


def test_fallback_replacement_also_refuses_a_changed_folder(tmp_path: Path, monkeypatch,
                                                            capsys) -> None:
    out = tmp_path / "ds"
    assert _build(out) == 0

    def no_exchange(first: Path, second: Path) -> None:
        raise Unsupported(errno.EINVAL, "not here")

    def user_replaces_it() -> None:
        os.rename(out, tmp_path / "moved")
        out.mkdir()
    monkeypatch.setattr(outdir, "rename_exchange", no_exchange)
    monkeypatch.setattr(outdir, "_checkpoint", _create_at_step("written", user_replaces_it))
    assert _build(out, "--overwrite") == 2
    assert "replaced by something else" in capsys.readouterr().err
    assert out.is_dir() and list(out.iterdir()) == []


def _killed_at(step: str, fallback: bool, args: list[str]) -> int:
    """Exit status of ``gen ARGS`` run in a forked child of this process (its imports and
    world already loaded) that SIGKILLs itself at the output folder's checkpoint ``step``;
    ``fallback`` takes away the atomic exchange of two paths."""
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        code = 99
        try:
            def checkpoint(name: str) -> None:
                if name == step:
                    os.kill(os.getpid(), signal.SIGKILL)

            def no_exchange(first: object, second: object) -> None:
                raise Unsupported(22, "not here")

            outdir._checkpoint = checkpoint
            if fallback:
                outdir.rename_exchange = no_exchange
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 1)
            os.dup2(null, 2)
            code = main(args)
        finally:
            os._exit(code)
    deadline = time.monotonic() + 120
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            raise AssertionError(f"the build to be killed at {step!r} did not end in 120 s")
        time.sleep(0.02)


STEPS = ["locked", "staged", "written", "swapped", "cleaned"]


@pytest.mark.slow
@pytest.mark.parametrize("mode, step", [("exchange", s) for s in STEPS] +
                         [("fallback", s) for s in ["written", "moved-aside", "swapped"]])
def test_a_kill_at_any_step_loses_nothing_and_a_rerun_recovers(
        tmp_path: Path, mode: str, step: str, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "ds"
    assert _build(out, "-n", "4") == 0
    killed = _killed_at(step, mode == "fallback",
                        [*BUILD, "--out", str(out), "-n", "5", "--overwrite"])
    assert killed == -signal.SIGKILL, f"the build was not killed at {step!r} ({killed})"
    if mode == "fallback" and step == "moved-aside":
        assert not out.exists()  # the one instant the fallback has no dataset at --out
    else:
        assert _count_of(out) == (5 if step in ("swapped", "cleaned") else 4)
        assert main(["verify", str(out)]) == 0
    capsys.readouterr()
    assert _build(out, "-n", "6", "--overwrite") == 0  # the rerun (the killed build is gone)
    said = capsys.readouterr().err
    stale = step not in ("locked", "cleaned")
    assert ("staging folder of an interrupted build" in said) == stale, said
    if mode == "fallback" and step == "moved-aside":
        assert "restored" in said
    assert "Traceback" not in said
    assert _count_of(out) == 6 and _leftovers(tmp_path) == []


def test_overwrite_through_a_symlink_replaces_the_dataset_it_points_to(tmp_path: Path) -> None:
    real = tmp_path / "real"
    link = tmp_path / "link"
    assert _build(real, "-n", "4") == 0
    link.symlink_to(real)
    assert _build(link, "-n", "5", "--overwrite") == 0
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert _count_of(real) == 5
    assert main(["verify", str(link)]) == 0
    assert _leftovers(tmp_path) == []


def test_a_dangling_symlink_is_refused(tmp_path: Path, capsys) -> None:
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "nowhere")
    assert _build(link) == 2
    assert "does not exist" in capsys.readouterr().err
    assert link.is_symlink() and not (tmp_path / "nowhere").exists()


@pytest.mark.slow
def test_a_failed_build_removes_the_parent_folders_it_created(tmp_path: Path, capsys) -> None:
    out = tmp_path / "new" / "a" / "b" / "out"
    assert main([*BUILD, "--periods", "50", "--out", str(out)]) == 2
    assert "lower --periods" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", [".", "", "..", "sub/.."])
def test_the_current_folder_or_its_ancestors_are_refused_up_front(
        tmp_path: Path, monkeypatch, capsys, name: str) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "sub").mkdir()
    monkeypatch.chdir(work)
    assert main([*BUILD, "--out", name]) == 2
    err = capsys.readouterr().err.strip()
    assert "current folder" in err and "\n" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["work"]
    assert sorted(p.name for p in work.iterdir()) == ["sub"]


def test_a_build_that_cannot_fit_on_the_disk_is_refused_up_front(tmp_path: Path,
                                                                 capsys) -> None:
    assert main(["build", "financial", "-n", "1000000000", "--out",
                 str(tmp_path / "huge")]) == 2
    err = capsys.readouterr().err.strip()
    assert "would take about" in err and "free" in err and "\n" not in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_a_full_disk_mid_build_is_one_line_and_replaces_nothing(tmp_path: Path, monkeypatch,
                                                                capsys) -> None:
    from hopvista.output import parquet as export

    out = tmp_path / "ds"
    assert _build(out, "-n", "4") == 0

    def full(self, item, line=None):  # type: ignore[no-untyped-def]
        raise OSError(errno.ENOSPC, "No space left on device", str(tmp_path / "x"))
    monkeypatch.setattr(export.ParquetShards, "add", full)
    assert _build(out, "-n", "5", "--overwrite") == 2
    err = capsys.readouterr().err.strip()
    assert "disk is full" in err and "\n" not in err
    assert _count_of(out) == 4 and _leftovers(tmp_path) == []


def test_workers_are_capped_at_the_cpu_count(tmp_path: Path, capsys) -> None:
    assert main([*BUILD, "--out", str(tmp_path / "ds"), "--workers", "100"]) == 0
    err = capsys.readouterr().err
    assert "--workers 100: using" in err


def test_stale_staging_of_another_output_is_left_alone(tmp_path: Path) -> None:
    other = tmp_path / ".ds.hopvista-stage-abc"  # right prefix, but not one of ours
    other.mkdir()
    (other / "notes.txt").write_text("keep")
    assert _build(tmp_path / "ds") == 0
    assert (other / "notes.txt").read_text() == "keep"


# -- preview: it writes only a preview page --------------------------------------------------

@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("preview") / "ds"
    assert _build(out) == 0
    return out


@pytest.mark.parametrize("target", ["items.jsonl", "manifest.json", "README.md",
                                    "data", "images-page.html", "data/page.html"])
def test_preview_never_writes_over_or_into_a_dataset(small: Path, capsys, target: str) -> None:
    before = {p: p.read_bytes() for p in small.rglob("*") if p.is_file()}
    assert main(["preview", str(small), "--out", str(small / target)]) == 2
    assert "\n" not in capsys.readouterr().err.strip()
    after = {p: p.read_bytes() for p in small.rglob("*") if p.is_file()}
    assert after == before


def test_preview_into_a_folder_writes_a_page_there(small: Path, tmp_path: Path) -> None:
    assert main(["preview", str(small), "--out", str(tmp_path)]) == 0
    page = tmp_path / "preview.html"
    assert "hopvista-preview" in page.read_text()
    assert main(["preview", str(small), "--out", str(page)]) == 0  # an earlier preview: fine


def test_preview_refuses_to_replace_a_page_it_did_not_write(small: Path, tmp_path: Path,
                                                           capsys) -> None:
    page = tmp_path / "report.html"
    page.write_text("<html>my report</html>")
    assert main(["preview", str(small), "--out", str(page)]) == 2
    assert "not a hopvista preview" in capsys.readouterr().err
    assert page.read_text() == "<html>my report</html>"


def test_preview_default_page_keeps_the_dataset_verifiable(small: Path) -> None:
    assert main(["preview", str(small)]) == 0
    assert main(["verify", str(small)]) == 0


@pytest.mark.parametrize("limit", ["-5", "0", "x"])
def test_preview_limit_must_be_positive(small: Path, capsys, limit: str) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["preview", str(small), "--limit", limit])
    assert exit_.value.code == 2
    assert "--limit" in capsys.readouterr().err


def test_a_dead_builds_scratch_folder_is_removed_and_a_live_ones_kept(
        tmp_path: Path, monkeypatch, capsys) -> None:
    import tempfile

    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    dead, live = temp / "hopvista-scratch-dead", temp / "hopvista-scratch-live"
    for folder in (dead, live):
        (folder / "playwright_chromiumdev_profile-x").mkdir(parents=True)
        (folder / ".lock").write_text("pid 1\n")
    held = FileLock(live / ".lock")
    held.acquire()
    try:
        assert _build(tmp_path / "ds") == 0
        assert live.is_dir()
    finally:
        held.release()
    assert not dead.exists()
    assert f"removed {dead}" in capsys.readouterr().err
    assert sorted(p.name for p in temp.iterdir()) == ["hopvista-scratch-live"]


@pytest.mark.slow
def test_a_deep_out_and_a_long_tmpdir_still_render(tmp_path: Path) -> None:
    """Chromium's socket paths must fit in ~100 bytes whatever --out and TMPDIR are."""
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    temp = tmp_path / ("t" * 70)
    temp.mkdir()
    result = subprocess.run([sys.executable, "-m", "hopvista.cli.main", "build", "financial",
                             "-n", "2", "--out", str(deep / "ds")],
                            env={**os.environ, "TMPDIR": str(temp)}, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert len(list((deep / "ds" / "images").glob("*.png"))) == 4
    assert list(temp.iterdir()) == []


@pytest.mark.slow
def test_a_datasets_files_read_the_same_on_every_machine_whatever_the_umask(
        tmp_path: Path) -> None:
    out = tmp_path / "ds"
    previous = os.umask(0o077)
    try:
        assert _build(out) == 0
    finally:
        os.umask(previous)
    for name in ("manifest.json", "README.md"):
        assert (out / name).stat().st_mode & 0o777 == 0o644, name
    assert _leftovers(tmp_path) == []
