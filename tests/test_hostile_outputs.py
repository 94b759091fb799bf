"""Nothing of the user's is replaced by a command that writes a file or a small folder
(`gen report --out`, `gen audit --json`, `gen preview --out`, `gen export --out`,
`gen new-domain`, `gen fetch --out`): an existing file only if the command wrote it before,
never through a symlink, never inside a dataset or the command's own input, never a folder or
a special file; a full or read-only disk is one line with nothing left behind."""

from __future__ import annotations

import errno
import json
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from hopvista.cli.main import main
from tests.conftest import build_dataset

Command = Callable[[Path], list[str]]


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("outputs") / "data"
    build_dataset(out, "-n", "6", "--no-images", "--seed", "5")
    return out


@pytest.fixture(scope="module")
def run(dataset: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("runs") / "oracle"
    assert main(["eval", str(dataset), "--model", "oracle", "--out", str(out), "--quiet"]) == 0
    return out


def _commands(dataset: Path, run: Path) -> dict[str, Command]:
    return {
        "report": lambda target: ["report", str(run), "--out", str(target)],
        "audit": lambda target: ["audit", str(dataset), "--folds", "2", "--max-hard-set", "1",
                                 "--max-statement", "1", "--max-blind", "1",
                                 "--json", str(target)],
        "preview": lambda target: ["preview", str(dataset), "--out", str(target)],
    }


@pytest.fixture(params=["report", "audit", "preview"])
def command(request: pytest.FixtureRequest, dataset: Path, run: Path) -> Command:
    """A command that writes one file, as a function of that file's path."""
    return _commands(dataset, run)[request.param]


def _exit_code(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)


def _refused(capsys: pytest.CaptureFixture[str], argv: list[str], *words: str) -> str:
    """Run ``gen ARGV``: exit 2 with one error line that holds ``words``; return the line."""
    code = _exit_code(argv)
    err = capsys.readouterr().err
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err and "internal error" not in err, err
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def _written(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    code = _exit_code(argv)
    assert code in (0, 1), capsys.readouterr().err  # an audit whose checks fail exits 1
    capsys.readouterr()


def _state(folder: Path) -> dict[str, object]:
    """Every entry under ``folder``: a file's bytes, a symlink's target, a folder, a special
    file (a FIFO is never opened)."""
    state: dict[str, object] = {}
    for root, folders, names in os.walk(folder):
        for name in folders + names:
            path = Path(root, name)
            key = path.relative_to(folder).as_posix()
            if path.is_symlink():
                state[key] = ("symlink", os.readlink(path))
            elif path.is_dir():
                state[key] = "folder"
            elif path.is_file():
                state[key] = path.read_bytes()
            else:
                state[key] = "special file"
    return state


# -- a dataset's files -------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["items.jsonl", "manifest.json"])
def test_a_dataset_file_is_never_replaced(command: Command, dataset: Path, name: str,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    before = _state(dataset)
    _refused(capsys, command(dataset / name), name)
    assert _state(dataset) == before
    assert main(["verify", str(dataset)]) == 0


def test_no_new_file_is_written_inside_a_dataset(command: Command, dataset: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    before = _state(dataset)
    _refused(capsys, command(dataset / "data" / "page.html"), "inside the dataset")
    _refused(capsys, command(dataset / "new" / "page.html"), "inside the dataset")
    assert _state(dataset) == before


def test_preview_writes_no_page_into_another_dataset(dataset: Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    other = tmp_path / "other"
    shutil.copytree(dataset, other)
    before = _state(other)
    _refused(capsys, ["preview", str(dataset), "--out", str(other / "preview.html")],
             "inside the dataset")
    _refused(capsys, ["preview", str(dataset), "--out", str(other)], "inside the dataset")
    assert _state(other) == before


# -- a user's files ----------------------------------------------------------------------------

NOT_OURS = {
    "plain": b"my notes\n",
    "html quoting the mark": b'<!doctype html><html><head><title>notes</title></head><body>'
                             b'<meta name="generator" content="hopvista-report">'
                             b'<meta name="generator" content="hopvista-preview"></body></html>',
    "json naming the format late": b'{"mine": 1, "format": "hopvista-audit"}\n',
}


@pytest.mark.parametrize("content", list(NOT_OURS.values()), ids=list(NOT_OURS))
def test_a_user_file_is_never_replaced(command: Command, tmp_path: Path, content: bytes,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    mine = tmp_path / "notes.html"
    mine.write_bytes(content)
    _refused(capsys, command(mine), str(mine), "refusing to overwrite")
    assert _state(tmp_path) == {"notes.html": content}


def test_an_earlier_output_of_the_command_is_replaced(command: Command, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    page = tmp_path / "out" / "page.html"
    _written(capsys, command(page))  # its folder is created
    first = page.read_bytes()
    page.write_bytes(first.replace(b"</body>", b"<p>stale</p></body>").replace(
        b'"seed": 0', b'"seed": 0 '))
    _written(capsys, command(page))
    assert page.read_bytes() == first
    assert sorted(p.name for p in page.parent.iterdir()) == ["page.html"]


def test_the_json_audit_report_names_its_format(dataset: Path, run: Path, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "audit.json"
    _written(capsys, _commands(dataset, run)["audit"](out))
    data = json.loads(out.read_text())
    assert next(iter(data)) == "format" and data["format"] == "hopvista-audit"


# -- symlinks ----------------------------------------------------------------------------------

@pytest.mark.parametrize("points_to", ["a user file", "nothing", "an earlier output"])
def test_a_symlink_is_never_followed_or_replaced(command: Command, tmp_path: Path,
                                                 points_to: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "target.html"
    if points_to == "a user file":
        target.write_bytes(b"precious\n")
    elif points_to == "an earlier output":
        _written(capsys, command(target))
    link = tmp_path / "link.html"
    link.symlink_to(target)
    before = _state(tmp_path)
    _refused(capsys, command(link), str(link), "symlink")
    assert _state(tmp_path) == before
    assert link.is_symlink()


# -- the command's own input -------------------------------------------------------------------

@pytest.mark.parametrize("name", ["board.html", "report.html", "results.jsonl", "run.json"])
def test_report_never_writes_into_a_run_folder(run: Path, tmp_path: Path, name: str,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    before = _state(run)
    _refused(capsys, ["report", str(run), "--out", str(run / name)])
    _refused(capsys, ["report", str(tmp_path), str(run), "--out", str(run / name)])
    assert _state(run) == before


def test_report_never_writes_into_a_run_through_a_symlinked_folder(
        run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    alias = tmp_path / "alias"
    alias.symlink_to(run)
    before = _state(run)
    _refused(capsys, ["report", str(run), "--out", str(alias / "board.html")],
             "refusing to write there")
    assert _state(run) == before


def test_report_never_writes_into_another_run_or_an_export(
        dataset: Path, run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = tmp_path / "random"
    assert main(["eval", str(dataset), "--model", "random", "--out", str(other),
                 "--quiet"]) == 0
    assert main(_export(dataset, tmp_path / "task")) == 0
    before = _state(tmp_path)
    _refused(capsys, ["report", str(run), "--out", str(other / "report.html")],
             "inside the evaluation run")
    _refused(capsys, ["report", str(run), "--out", str(other / "board.html")],
             "inside the evaluation run")
    _refused(capsys, ["report", str(run), "--out", str(tmp_path / "task" / "board.html")],
             "inside the export")
    assert _state(tmp_path) == before


def test_audit_never_writes_into_its_dataset(dataset: Path, run: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    before = _state(dataset)
    _refused(capsys, _commands(dataset, run)["audit"](dataset / "audit.json"), "dataset")
    assert _state(dataset) == before


# -- what is not a file ------------------------------------------------------------------------

def _not_a_file(tmp_path: Path, kind: str) -> Path:
    if kind == "folder":
        (tmp_path / "folder").mkdir()
        return tmp_path / "folder"
    if kind == "fifo":
        os.mkfifo(tmp_path / "pipe.html")
        return tmp_path / "pipe.html"
    if kind == "symlink loop":
        (tmp_path / "a").symlink_to(tmp_path / "b")
        (tmp_path / "b").symlink_to(tmp_path / "a")
        return tmp_path / "a" / "page.html"
    if kind == "parent is a file":
        (tmp_path / "file").write_text("mine")
        return tmp_path / "file" / "page.html"
    assert kind == "name too long"
    return tmp_path / ("x" * 300 + ".html")


@pytest.mark.parametrize("kind", ["folder", "fifo", "symlink loop", "parent is a file",
                                  "name too long"])
def test_what_is_not_a_file_is_one_line(command: Command, tmp_path: Path, kind: str,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    target = _not_a_file(tmp_path, kind)
    if kind == "folder" and command(target)[0] == "preview":
        pytest.skip("gen preview --out FOLDER writes FOLDER/preview.html")
    before = _state(tmp_path)
    _refused(capsys, command(target))
    assert _state(tmp_path) == before


def test_report_out_a_folder_names_it(run: Path, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    _refused(capsys, ["report", str(run), "--out", str(tmp_path)], str(tmp_path), "folder")


# -- a full or read-only disk ------------------------------------------------------------------

FAILURES = [("replace", errno.ENOSPC, "the disk is full"),
            ("replace", errno.EDQUOT, "quota"),
            ("mkstemp", errno.EROFS, "read-only"),
            ("mkstemp", errno.EACCES, "permission denied"),
            ("mkstemp", errno.EPERM, "not permitted")]


def _fail_writes(monkeypatch: pytest.MonkeyPatch, call: str, code: int) -> None:
    """Make every atomic write fail as a full, read-only or forbidden disk would."""
    def failing(*args: object, **kwargs: object) -> object:
        raise OSError(code, os.strerror(code))
    if call == "replace":
        monkeypatch.setattr(os, "replace", failing)
    else:
        monkeypatch.setattr(tempfile, "mkstemp", failing)


@pytest.mark.parametrize(("call", "code", "words"), FAILURES,
                         ids=[errno.errorcode[c] for _, c, _ in FAILURES])
def test_a_disk_that_refuses_the_write_changes_nothing(
        command: Command, tmp_path: Path, call: str, code: int, words: str,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    earlier = tmp_path / "page.html"
    _written(capsys, command(earlier))
    before = _state(tmp_path)
    with monkeypatch.context() as patch:
        _fail_writes(patch, call, code)
        _refused(capsys, command(earlier), str(earlier), words)
        _refused(capsys, command(tmp_path / "new" / "deeper" / "page.html"), words)
    assert _state(tmp_path) == before  # no temporary file, no folder made for it


def _read_only_folder() -> Path:
    """A folder no one may create files in, root included (``/sys``)."""
    place = Path("/sys")
    if not place.is_dir():
        pytest.skip("no /sys here")
    try:
        fd, name = tempfile.mkstemp(dir=place)
    except OSError:
        return place
    os.close(fd)
    os.unlink(name)
    pytest.skip("/sys is writable here")


def test_a_real_read_only_folder_is_one_line(command: Command,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    place = _read_only_folder()
    target = place / "hopvista-output.html"
    _refused(capsys, command(target), str(target), "cannot write it")
    assert not target.exists()


# -- gen export --------------------------------------------------------------------------------

def _export(dataset: Path, out: Path) -> list[str]:
    return ["export", str(dataset), "--format", "lmms-eval", "--setting", "no-chart",
            "--out", str(out)]


def test_export_refuses_a_symlink_to_an_earlier_export(dataset: Path, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    assert main(_export(dataset, tmp_path / "task")) == 0
    (tmp_path / "link").symlink_to(tmp_path / "task")
    before = _state(tmp_path)
    _refused(capsys, _export(dataset, tmp_path / "link"), "symlink")
    assert _state(tmp_path) == before


def test_export_never_writes_inside_a_dataset(dataset: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    before = _state(dataset)
    _refused(capsys, _export(dataset, dataset / "task"), "dataset")
    _refused(capsys, _export(dataset, dataset / "data"), "dataset")
    assert _state(dataset) == before


@pytest.mark.parametrize("change", ["a file added", "a file edited"])
def test_export_keeps_what_the_user_put_in_an_earlier_export(
        dataset: Path, tmp_path: Path, change: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "task"
    assert main(_export(dataset, out)) == 0
    if change == "a file added":
        (out / "my-notes.txt").write_text("precious")
    else:
        (out / "utils.py").write_text((out / "utils.py").read_text() + "# my fix\n")
    before = _state(tmp_path)
    _refused(capsys, _export(dataset, out), str(out))
    assert _state(tmp_path) == before


@pytest.mark.parametrize("kind", ["symlink loop", "parent is a file", "name too long"])
def test_export_out_that_cannot_be_a_folder_is_one_line(dataset: Path, tmp_path: Path,
                                                        kind: str,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    target = _not_a_file(tmp_path, kind)
    before = _state(tmp_path)
    _refused(capsys, _export(dataset, target.with_suffix("")))
    assert _state(tmp_path) == before


@pytest.mark.parametrize(("call", "code", "words"), FAILURES,
                         ids=[errno.errorcode[c] for _, c, _ in FAILURES])
def test_export_on_a_disk_that_refuses_the_write_changes_nothing(
        dataset: Path, tmp_path: Path, call: str, code: int, words: str,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(_export(dataset, tmp_path / "task")) == 0
    before = _state(tmp_path)
    with monkeypatch.context() as patch:
        _fail_writes(patch, call, code)
        _refused(capsys, _export(dataset, tmp_path / "task"), str(tmp_path / "task"), words)
        _refused(capsys, _export(dataset, tmp_path / "new" / "task"), words)
    assert _state(tmp_path) == before


def test_export_into_a_read_only_folder_is_one_line(dataset: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    target = _read_only_folder() / "hopvista-task"
    _refused(capsys, _export(dataset, target), str(target))
    assert not target.exists()


# -- gen new-domain ----------------------------------------------------------------------------

def test_new_domain_never_writes_inside_a_dataset(dataset: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    before = _state(dataset)
    _refused(capsys, ["new-domain", "orchards", "--dir", str(dataset)], "dataset")
    _refused(capsys, ["new-domain", "orchards", "--dir", str(dataset / "data")], "dataset")
    assert _state(dataset) == before


@pytest.mark.parametrize(("call", "code", "words"), FAILURES,
                         ids=[errno.errorcode[c] for _, c, _ in FAILURES])
def test_new_domain_on_a_disk_that_refuses_the_write_leaves_nothing(
        tmp_path: Path, call: str, code: int, words: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    with monkeypatch.context() as patch:
        _fail_writes(patch, call, code)
        _refused(capsys, ["new-domain", "orchards", "--dir", str(tmp_path)],
                 str(tmp_path / "orchards"), words)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("kind", "words"), [("symlink loop", "symlink loop"),
                                             ("parent is a file", "not a folder")])
def test_new_domain_dir_that_is_not_a_folder_says_why(tmp_path: Path, kind: str, words: str,
                                                      capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    parent = _not_a_file(tmp_path, kind).parent
    before = _state(tmp_path)
    _refused(capsys, ["new-domain", "orchards", "--dir", str(parent)], "--dir", words)
    assert _state(tmp_path) == before


def test_new_domain_in_a_read_only_folder_is_one_line(capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    place = _read_only_folder()
    _refused(capsys, ["new-domain", "orchards", "--dir", str(place)], str(place))
    assert not (place / "orchards").exists()


# -- gen fetch ---------------------------------------------------------------------------------

@pytest.mark.parametrize("inside", [False, True])
def test_fetch_never_writes_into_a_dataset(dataset: Path, inside: bool,
                                           monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("HOPVISTA_SEC_BASE_URL", "http://127.0.0.1:9")  # nothing listens
    out = dataset / "sec" if inside else dataset
    before = _state(dataset)
    _refused(capsys, ["fetch", "sec", "--tickers", "AAPL", "--years", "2023", "--out",
                      str(out), "--user-agent", "Jo Doe jo@example.com"], "dataset")
    assert _state(dataset) == before
