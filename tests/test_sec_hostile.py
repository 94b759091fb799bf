"""Hostile input to the SEC source and to ``gen fetch sec``: never a traceback.

A fixed corpus of broken data folders (copies of ``fixtures/sec/layout`` with one company's
files broken in one way each) is run through the loader and ``gen build``; broken servers and
output folders through ``gen fetch sec`` against a local server. Each must end in a one-line
message naming the file, folder or field: exit code 2, or the company reported and skipped.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from hopvista.cli.main import main
from hopvista.domain import DomainPack
from hopvista.errors import UserError, one_line
from hopvista.sources import SourceOptions, load_world
from tests import test_sec_fetch as recorded
from tests.test_sec_fetch import UA, _fetch

pytestmark = pytest.mark.slow  # hostile inputs through subprocesses: the full suite runs them

#: the recorded SEC on 127.0.0.1, and the guard refusing any other connection (autouse)
sec_server = recorded.sec_server
no_network = recorded.no_network

LAYOUT = Path(__file__).parent / "fixtures" / "sec" / "layout"
GOOD = {"ALDR", "BRCH", "CEDR"}
VICTIM = "DOGW"
VICTIM_CIK = "0000000014"
ACCESSION = "0000000014-25-000004"
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
HAS_PROC_MEM = Path("/proc/self/mem").exists()


# --- the corpus ------------------------------------------------------------------------------

def _company(data: Path) -> Path:
    return data / "sec-edgar-filings" / VICTIM


def _document(data: Path) -> Path:
    return _company(data) / "10-K" / ACCESSION / "primary-document.html"


def _facts(data: Path) -> Path:
    return data / "companyfacts" / f"CIK{VICTIM_CIK}.json"


Mutation = Callable[[Path], Path]


def _write(where: Callable[[Path], Path], content: str | bytes) -> Mutation:
    """Replace a file's content."""
    def mutate(data: Path) -> Path:
        path = where(data)
        path.write_bytes(content.encode() if isinstance(content, str) else content)
        return path
    return mutate


def _replace(where: Callable[[Path], Path], make: Callable[[Path], None]) -> Mutation:
    """Remove a file or folder and put something else (``make``) in its place."""
    def mutate(data: Path) -> Path:
        path = where(data)
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink()
        make(path)
        return path
    return mutate


def _folder(path: Path) -> None:
    path.mkdir()


def _file(path: Path) -> None:
    path.write_text("not a folder\n")


def _loop(path: Path) -> None:
    path.symlink_to(path.name)


def _dangling(path: Path) -> None:
    path.symlink_to("nowhere-to-be-found")


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _io_error(path: Path) -> None:
    path.symlink_to("/proc/self/mem")   # a regular file whose read fails (EIO), even as root


def _mode_000(where: Callable[[Path], Path]) -> Mutation:
    def mutate(data: Path) -> Path:
        path = where(data)
        path.chmod(0)
        return path
    return mutate


def _edit_facts(edit: Callable[[dict[str, Any]], None]) -> Mutation:
    """Change the victim's companyfacts JSON (``NaN`` and ``Infinity`` written as JSON does)."""
    def mutate(data: Path) -> Path:
        path = _facts(data)
        facts = json.loads(path.read_text())
        edit(facts)
        path.write_text(json.dumps(facts))
        return path
    return mutate


def _revenues(facts: dict[str, Any]) -> dict[str, Any]:
    tag: dict[str, Any] = facts["facts"]["us-gaap"]["Revenues"]
    return tag


def _row(**fields: Any) -> Mutation:
    """Set fields of the victim's first Revenues row."""
    return _edit_facts(lambda facts: _revenues(facts)["units"]["USD"][0].update(fields))


def _set(*keys: str, value: Any) -> Mutation:
    def edit(facts: dict[str, Any]) -> None:
        target = facts
        for key in keys[:-1]:
            target = target[key]
        target[keys[-1]] = value
    return _edit_facts(edit)


def _edit_document(old: str, new: str) -> Mutation:
    def mutate(data: Path) -> Path:
        path = _document(data)
        text = path.read_text()
        assert old in text
        path.write_text(text.replace(old, new))
        return path
    return mutate


def _nonfraction(text: str, **attributes: str) -> Mutation:
    """Add an ``ix:nonFraction`` fact to the victim's 10-K cover."""
    extra = " ".join(f'{k}="{v}"' for k, v in attributes.items())
    return _edit_document("<div>FORM 10-K</div>", (
        f'<div>FORM 10-K <ix:nonFraction name="us-gaap:Revenues" contextRef="c-1" '
        f'unitRef="usd" {extra}>{text}</ix:nonFraction></div>'))


def _only_full_submission(content: bytes) -> Mutation:
    def mutate(data: Path) -> Path:
        _document(data).unlink()
        path = _document(data).with_name("full-submission.txt")
        path.write_bytes(content)
        return path
    return mutate


def _rename_company(name: str, strip_cik: bool = False) -> Mutation:
    """Move the victim's folder to ``name``; ``strip_cik``: its 10-K no longer tells its CIK."""
    def mutate(data: Path) -> Path:
        if strip_cik:
            text = _document(data).read_text().replace(VICTIM_CIK, "")
            _document(data).write_text(text)
        target = _company(data).with_name(name)
        _company(data).rename(target)
        return target / "10-K" / ACCESSION / "primary-document.html"
    return mutate


def _duplicate_facts(data: Path) -> Path:
    path = data / "companyfacts" / "CIK0000000099.json"
    shutil.copyfile(data / "companyfacts" / "CIK0000000011.json", path)
    return path


def _unnamed_facts(data: Path) -> Path:
    path = _facts(data).with_name("CIKunknown.json")
    facts = json.loads(_facts(data).read_text())
    del facts["cik"]
    path.write_text(json.dumps(facts))
    _facts(data).unlink()
    return path


def _only_companyfacts(data: Path) -> Path:
    shutil.rmtree(data / "sec-edgar-filings")
    return data


def _empty_accession(data: Path) -> Path:
    _document(data).unlink()
    return _document(data).parent


@dataclass(frozen=True)
class Hostile:
    """One way to break the data folder.

    ``mutate`` breaks a copy and returns the path the messages must name; ``says`` is a phrase
    of the line naming it (None: no line may name it). ``outcome``: "dropped" (the victim is
    reported and skipped), "kept" (its bad entries are skipped, the victim stays) or "fails"
    (nothing to build from: exit code 2).
    """

    mutate: Mutation
    says: str | None
    outcome: str = "dropped"


def _param(name: str, case: Hostile, *marks: pytest.MarkDecorator) -> Any:
    return pytest.param(case, id=name, marks=marks)


_NEED_NOT_ROOT = pytest.mark.skipif(IS_ROOT, reason="root reads files of mode 000 anyway "
                                    "(the /proc/self/mem cases cover unreadable files)")
_NEED_PROC = pytest.mark.skipif(not HAS_PROC_MEM, reason="needs Linux /proc/self/mem")

CASES = [
    # companyfacts: the file
    _param("facts-json-list", Hostile(_write(_facts, "[]"), "the JSON is a list")),
    _param("facts-json-null", Hostile(_write(_facts, "null"), "the JSON is null")),
    _param("facts-json-string", Hostile(_write(_facts, '"facts"'), "the JSON is a string")),
    _param("facts-json-number", Hostile(_write(_facts, "42"), "the JSON is a number")),
    _param("facts-invalid-json", Hostile(_write(_facts, '{"cik": 14, "facts": {'),
                                         "not JSON (Expecting")),
    _param("facts-deeply-nested", Hostile(_write(_facts, "[" * 100_000), "nested too deeply")),
    _param("facts-empty", Hostile(_write(_facts, b""), "empty file")),
    _param("facts-blank", Hostile(_write(_facts, " \n"), "empty file")),
    _param("facts-not-utf8", Hostile(_write(_facts, b'{"entityName": "Dogwood \xff"}'),
                                     "not UTF-8 text (byte 0xff")),
    _param("facts-binary", Hostile(_write(_facts, bytes(range(256))), "not UTF-8 text")),
    _param("facts-folder", Hostile(_replace(_facts, _folder), "a folder, not a file")),
    _param("facts-symlink-loop", Hostile(_replace(_facts, _loop), "symbolic links")),
    _param("facts-dangling-symlink", Hostile(_replace(_facts, _dangling), "No such file")),
    _param("facts-named-pipe", Hostile(_replace(_facts, _fifo), "not a regular file")),
    _param("facts-io-error", Hostile(_replace(_facts, _io_error), "cannot read file"),
           _NEED_PROC),
    _param("facts-mode-000", Hostile(_mode_000(_facts), "Permission denied"), _NEED_NOT_ROOT),
    _param("facts-folder-is-a-file", Hostile(_replace(lambda d: d / "companyfacts", _file),
                                             "not a folder", "fails")),
    # companyfacts: the shape
    _param("facts-without-facts", Hostile(_set("facts", value=None), "no 'facts' object")),
    _param("facts-facts-list", Hostile(_set("facts", value=[]), "no 'facts' object")),
    _param("facts-us-gaap-list", Hostile(_set("facts", "us-gaap", value=[]),
                                         "facts.us-gaap is not an object")),
    _param("facts-no-cik", Hostile(_unnamed_facts, "no CIK")),
    _param("facts-same-cik-twice", Hostile(_duplicate_facts, "CIK 0000000011 again", "kept")),
    _param("facts-entity-name-list", Hostile(_set("entityName", value=["Dogwood"]),
                                             "entityName", "kept")),
    _param("facts-tag-list", Hostile(_set("facts", "us-gaap", "Revenues", value=[]),
                                     "facts.us-gaap.Revenues is not an object", "kept")),
    _param("facts-units-list", Hostile(_set("facts", "us-gaap", "Revenues", "units", value=[]),
                                       "Revenues.units is not an object", "kept")),
    _param("facts-usd-object", Hostile(
        _set("facts", "us-gaap", "Revenues", "units", "USD", value={}),
        "Revenues.units.USD is not a list", "kept")),
    _param("facts-row-number", Hostile(
        _set("facts", "us-gaap", "Revenues", "units", "USD", value=[5]),
        "USD[0] is not an object", "kept")),
    # companyfacts: the values
    _param("facts-value-string", Hostile(_row(val="lots"), "val 'lots' is not a number",
                                         "kept")),
    _param("facts-value-null", Hostile(_row(val=None), "val None is not a number", "kept")),
    _param("facts-value-boolean", Hostile(_row(val=True), "val True is not a number", "kept")),
    _param("facts-value-object", Hostile(_row(val={"a": 1}), "is not a number", "kept")),
    _param("facts-value-nan", Hostile(_row(val=float("nan")), "val nan is not a finite",
                                      "kept")),
    _param("facts-value-infinity", Hostile(_row(val=float("inf")), "val inf is not a finite",
                                           "kept")),
    _param("facts-value-huge", Hostile(_row(val=10**40), "is not a finite amount", "kept")),
    _param("facts-fy-string", Hostile(_row(fy="two thousand twenty"), None, "kept")),
    _param("facts-form-list", Hostile(_row(form=["10-K"]), "form ['10-K'] is not a text",
                                      "kept")),
    _param("facts-end-malformed", Hostile(_row(end="2024-13-45"), "end '2024-13-45' is not a "
                                          "date", "kept")),
    _param("facts-end-number", Hostile(_row(end=20241231), "end 20241231 is not a date",
                                       "kept")),
    _param("facts-start-malformed", Hostile(_row(start="yesterday"), "start 'yesterday'",
                                            "kept")),
    _param("facts-end-before-start", Hostile(_row(start="2020-12-31", end="2020-01-01"),
                                              "end 2020-01-01 is before start 2020-12-31",
                                              "kept")),
    _param("facts-date-implausible", Hostile(_row(start="0001-01-01", end="0001-12-31"),
                                             "not a plausible date", "kept")),
    # 10-K documents: the file
    _param("document-folder", Hostile(_replace(_document, _folder), "a folder, not a file")),
    _param("document-symlink-loop", Hostile(_replace(_document, _loop), "symbolic links")),
    _param("document-dangling-symlink", Hostile(_replace(_document, _dangling),
                                                "No such file")),
    _param("document-named-pipe", Hostile(_replace(_document, _fifo), "not a regular file")),
    _param("document-io-error", Hostile(_replace(_document, _io_error),
                                        "cannot read file (Input/output error)"), _NEED_PROC),
    _param("document-mode-000", Hostile(_mode_000(_document), "Permission denied"),
           _NEED_NOT_ROOT),
    _param("document-empty", Hostile(_write(_document, b""), "empty file")),
    _param("document-binary", Hostile(_write(_document, bytes(range(256)) * 64),
                                      "binary data")),
    _param("document-utf16", Hostile(
        lambda d: _write(_document, _document(d).read_text().encode("utf-16"))(d),
        "binary data")),
    _param("document-not-utf8", Hostile(  # Windows-1252 text is read, not refused
        lambda d: _write(_document, _document(d).read_text().replace(
            "Inc.</ix", "Inc.\u2122</ix").encode("cp1252"))(d), None, "kept")),
    _param("full-submission-empty", Hostile(_only_full_submission(b""), "empty file")),
    _param("full-submission-binary", Hostile(_only_full_submission(b"\x00\x01" * 100),
                                             "binary data")),
    # 10-K documents: the content
    _param("document-plain-text", Hostile(_write(_document, "Nothing to see here.\n"),
                                          "no period end")),
    _param("document-10-q", Hostile(_edit_document(">10-K</ix", ">10-Q</ix"), "not a 10-K")),
    _param("document-no-items", Hostile(
        lambda d: _write(_document, _document(d).read_text().split("<div>Item 1.")[0])(d),
        "Item 1 (Business) not found")),
    _param("document-period-end-implausible", Hostile(
        _edit_document(">2024-12-31</ix", ">0001-12-31</ix"), "not plausible")),
    _param("document-scale-huge", Hostile(_nonfraction("1", scale="999999999"),
                                          "not understood", "kept")),
    _param("document-scale-100", Hostile(_nonfraction("1", scale="100"), "not understood",
                                         "kept")),
    _param("document-value-nan", Hostile(_nonfraction("sNaN"), "not understood", "kept")),
    _param("document-value-infinity", Hostile(_nonfraction("Infinity"), "not understood",
                                              "kept")),
    _param("document-decimals-huge", Hostile(_nonfraction("1", decimals="9" * 400), None,
                                             "kept")),
    _param("document-ticker-taken", Hostile(_edit_document(">DOGW</ix", ">ALDR</ix"),
                                            "ticker ALDR")),
    # the folder layout
    _param("accession-empty", Hostile(_empty_accession, "neither primary-document.html")),
    _param("accession-is-a-file", Hostile(_replace(lambda d: _document(d).parent, _file),
                                          "not a folder")),
    _param("accession-mode-000", Hostile(_mode_000(lambda d: _document(d).parent),
                                         "Permission denied"), _NEED_NOT_ROOT),
    _param("form-folder-is-a-file", Hostile(_replace(lambda d: _company(d) / "10-K", _file),
                                            "not a folder")),
    _param("company-folder-is-a-file", Hostile(_replace(_company, _file), "not a folder")),
    _param("company-folder-symlink-loop", Hostile(_replace(_company, _loop),
                                                  "symbolic links")),
    _param("company-folder-newline", Hostile(_rename_company("DOG\nW", strip_cik=True),
                                             "no CIK")),
    _param("cik-folder-unicode-digits", Hostile(
        _rename_company("\u0660" * 8 + "\u0661\u0664", strip_cik=True), "no CIK")),
    _param("cik-folder-not-a-number", Hostile(_rename_company("00000000X4", strip_cik=True),
                                              "no CIK")),
    _param("filings-folder-is-a-file", Hostile(
        _replace(lambda d: d / "sec-edgar-filings", _file), "not a folder", "fails")),
    _param("no-filings-folder", Hostile(_only_companyfacts, "no 10-K filings", "fails")),
]


# --- running it ------------------------------------------------------------------------------

@contextmanager
def _deadline(seconds: int) -> Iterator[None]:
    """Fail instead of hanging (a named pipe read without a writer blocks forever)."""
    def expire(signum: int, frame: Any) -> None:
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _layout(tmp_path: Path, without: tuple[str, ...] = ()) -> Path:
    data = tmp_path / "data"
    shutil.copytree(LAYOUT, data, ignore=shutil.ignore_patterns("README.md", *without))
    return data


def _lines_naming(path: Path, text: str) -> list[str]:
    return [line for line in text.splitlines() if one_line(str(path)) in line]


_MESSAGE = re.compile(r"gen(?: fetch sec)?: ")


def _check_stderr(err: str) -> list[str]:
    """Every line of stderr is a one-line ``gen:`` message; no traceback."""
    assert "Traceback" not in err
    lines = err.splitlines()
    assert all(_MESSAGE.match(line) for line in lines), err
    return lines


@pytest.mark.parametrize("case", CASES)
def test_the_loader_reports_and_skips(case: Hostile, tmp_path: Path, pack: DomainPack,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    data = _layout(tmp_path)
    named = case.mutate(data)
    with _deadline(30):
        if case.outcome == "fails":
            with pytest.raises(UserError) as failure:
                load_world("sec", pack, 0, SourceOptions(data=data))
        else:
            world = load_world("sec", pack, 0, SourceOptions(data=data))
    err = "\n".join(_check_stderr(capsys.readouterr().err))
    if case.outcome == "fails":
        message = str(failure.value)
        assert "\n" not in message and message.startswith(f"--data {data}")
        err += "\n" + message
    else:
        kept = {entity.id for entity in world.entities}
        assert kept == GOOD | ({VICTIM} if case.outcome == "kept" else set())
        assert [one_line(line) for line in world.provenance["report"]] == [
            line.removeprefix("gen: sec: ") for line in err.splitlines()]
    naming = _lines_naming(named, err)
    if case.says is None:
        assert naming == [], naming
    else:
        assert any(case.says in line for line in naming), (case.says, err)


#: One case of each kind runs through ``gen build`` in the quick tier (each build loads the
#: domain pack, about a second); the loader test above runs them all, the slow tier all builds.
QUICK_BUILDS = {"facts-json-list", "facts-invalid-json", "facts-folder", "facts-us-gaap-list",
                "document-folder", "document-symlink-loop", "document-binary",
                "company-folder-newline", "filings-folder-is-a-file", "no-filings-folder"}
BUILD_CASES = [case if case.id in QUICK_BUILDS else
               pytest.param(*case.values, id=case.id, marks=(*case.marks, pytest.mark.slow))
               for case in CASES]


@pytest.mark.parametrize("case", BUILD_CASES)
def test_gen_build_exits_2_or_builds(case: Hostile, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    """With three companies, one of them broken: exit code 2 naming the file (or a build,
    when the broken entries leave the company usable)."""
    data = _layout(tmp_path, without=("CEDR", "CIK0000000013.json"))
    named = case.mutate(data)
    out = tmp_path / "out"
    with _deadline(120):
        code = main(["build", "financial", "--source", "sec", "--data", str(data),
                     "--no-images", "-n", "3", "--out", str(out)])
    lines = _check_stderr(capsys.readouterr().err)
    if case.outcome == "kept":
        assert code == 0
        report = json.loads((out / "manifest.json").read_text())["source"]["report"]
        assert any(case.says in line for line in _lines_naming(named, "\n".join(report))) \
            if case.says else not _lines_naming(named, "\n".join(report))
        return
    assert code == 2 and not out.exists()
    assert lines[-1].startswith(f"gen: error: --data {data}")
    assert case.says is not None
    assert any(case.says in line for line in _lines_naming(named, "\n".join(lines))), lines


@pytest.mark.slow
@pytest.mark.parametrize("name", ["facts-json-list", "document-folder",
                                  "document-symlink-loop", "document-binary"])
def test_a_broken_company_is_skipped_and_the_build_verifies(
        name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    case = next(c.values[0] for c in CASES if c.id == name)
    data = _layout(tmp_path)
    named = case.mutate(data)
    out = tmp_path / "out"
    assert main(["build", "financial", "--source", "sec", "--data", str(data),
                 "--no-images", "-n", "3", "--out", str(out)]) == 0
    assert _lines_naming(named, "\n".join(_check_stderr(capsys.readouterr().err)))
    manifest = json.loads((out / "manifest.json").read_text())
    assert set(manifest["source"]["companies"]) == GOOD
    assert any(str(named) in line for line in manifest["source"]["report"])
    assert main(["verify", str(out)]) == 0


@pytest.mark.slow
def test_the_command_line_prints_no_traceback(tmp_path: Path) -> None:
    """The known failure, through the real ``gen`` executable: companyfacts holding ``[]``."""
    import subprocess
    import sys

    data = _layout(tmp_path, without=("CEDR", "CIK0000000013.json"))
    _write(_facts, "[]")(data)
    done = subprocess.run([sys.executable, "-m", "hopvista.cli.main", "build", "financial",
                           "--source", "sec", "--data", str(data), "--no-images", "-n", "3",
                           "--out", str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 2
    lines = _check_stderr(done.stderr)
    assert any(str(_facts(data)) in line and "the JSON is a list" in line for line in lines)


# --- documents built to be slow --------------------------------------------------------------

def _quadratic_chain(headings: list[Any]) -> list[int]:
    """The definition of the heading chain: each heading extends the best earlier chain of
    lower item order (the first of equal ones); the best chain overall (the first of equal)."""
    best: list[int] = []
    previous: list[int] = []
    for i, heading in enumerate(headings):
        value, link = heading.score, -1
        for j in range(i):
            if headings[j].high < heading.low and best[j] + heading.score > value:
                value, link = best[j] + heading.score, j
        best.append(value)
        previous.append(link)
    top = max(range(len(headings)), key=lambda k: (best[k], -k), default=-1)
    chain: list[int] = []
    while top >= 0:
        chain.append(top)
        top = previous[top]
    return chain[::-1]


def test_the_heading_chain_is_its_quadratic_definition() -> None:
    import random

    from hopvista.sources.sec.filings.items import _best_chain, _Heading

    rng = random.Random(7)
    for _ in range(2000):
        headings = []
        for index in range(rng.randint(0, 25)):
            low = rng.choice([10, 11, 12, 20, 30, 40, 50, 70, 71, 80, 90, 150])
            high = low + rng.choice([0, 0, 0, 1, 10])
            headings.append(_Heading(index, ("1",), low, high, rng.randint(1, 4)))
        assert [h.index for h in _best_chain(headings)] == _quadratic_chain(headings)


@pytest.mark.slow
def test_thirty_thousand_item_headings_are_read_in_seconds(tmp_path: Path) -> None:
    """A 3 MB 10-K of "Item N." lines: the heading chain is O(n log n), not O(n^2) (which
    took minutes)."""
    from hopvista.sources.sec.filings import read_filing

    data = _layout(tmp_path)
    headings = "".join(f"<div>Item {1 + k % 15}. Business</div><p>Words after heading "
                       f"number {k} make a sentence here.</p>" for k in range(30_000))
    _edit_document("<div>FORM 10-K</div>", headings)(data)
    with _deadline(60):
        filing = read_filing(_document(data))
    assert set(filing.sections) == {"1", "3", "7", "7A", "8"}


# --- --data itself ---------------------------------------------------------------------------

def _data_missing(tmp_path: Path) -> Path:
    return tmp_path / "nothing-here"


def _data_file(tmp_path: Path) -> Path:
    path = tmp_path / "data.txt"
    path.write_text("a file\n")
    return path


def _data_empty(tmp_path: Path) -> Path:
    path = tmp_path / "empty"
    path.mkdir()
    return path


def _data_loop(tmp_path: Path) -> Path:
    path = tmp_path / "loop"
    path.symlink_to("loop")
    return path


@pytest.mark.parametrize(("make", "says"), [
    pytest.param(_data_missing, "No such file or directory", id="missing"),
    pytest.param(_data_file, "not a folder", id="a-file"),
    pytest.param(_data_empty, "no 10-K filings", id="empty-folder"),
    pytest.param(_data_loop, "symbolic links", id="symlink-loop"),
])
def test_a_bad_data_path_exits_2(make: Callable[[Path], Path], says: str, tmp_path: Path,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    data = make(tmp_path)
    assert main(["build", "financial", "--source", "sec", "--data", str(data), "-n", "3",
                 "--no-images", "--out", str(tmp_path / "out")]) == 2
    lines = _check_stderr(capsys.readouterr().err)
    assert len(lines) == 1 and lines[0].startswith(f"gen: error: --data {data}: ")
    assert says in lines[0]
    assert not (tmp_path / "out").exists()


# --- gen fetch sec ---------------------------------------------------------------------------

def _one_line_error(capsys: pytest.CaptureFixture[str]) -> str:
    lines = _check_stderr(capsys.readouterr().err)
    assert len(lines) == 1, lines
    return lines[0]


@pytest.mark.parametrize(("option", "value", "says"), [
    ("--years", "2024-2020", "first <= last"),
    ("--years", "abc", "expected YEAR"),
    ("--years", "", "expected YEAR"),
    ("--years", "2020-2022-2024", "expected YEAR"),
    ("--years", "1800", "1993-2100"),
    ("--years", "9" * 5000, "got '9999999"),
    ("--tickers", "", "no ticker"),
    ("--tickers", " , ", "no ticker"),
    ("--tickers", "A B", "not a ticker"),
    ("--tickers", "../etc", "not a ticker"),
    ("--tickers", "12345678901", "more than 10 digits"),
    ("--out", "", "empty path"),
    ("--out", "  ", "empty path"),
    ("--user-agent", "nobody", "email"),
])
def test_bad_fetch_arguments_exit_2(option: str, value: str, says: str, tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    args = {"--tickers": "NVDA", "--years": "2024", "--out": str(tmp_path / "sec"),
            "--user-agent": UA, option: value}
    with pytest.raises(SystemExit) as exit_info:
        main(["fetch", "sec", *(x for pair in args.items() for x in pair)])
    assert exit_info.value.code == 2
    line = _one_line_error(capsys)
    assert line.startswith("gen fetch sec: error: argument ") and option in line and says in line
    assert len(line) < 300   # the input is echoed, shortened
    assert not (tmp_path / "sec").exists()


def _out_file(out: Path) -> Path:
    out.write_text("mine\n")
    return out


def _out_under_file(out: Path) -> Path:
    out.write_text("mine\n")
    return out / "sub"


def _out_in_proc(out: Path) -> Path:
    return Path("/proc") / f"hopvista-test-{os.getpid()}" / "sec"


def _out_loop(out: Path) -> Path:
    out.symlink_to(out.name)
    return out


def _companyfacts_is_file(out: Path) -> Path:
    (out / "companyfacts").parent.mkdir(parents=True)
    (out / "companyfacts").write_text("mine\n")
    return out


def _companyfacts_json_is_folder(out: Path) -> Path:
    (out / "companyfacts" / "CIK0001045810.json" / "keep").mkdir(parents=True)
    return out


def _form_folder_is_file(out: Path) -> Path:
    (out / "sec-edgar-filings" / "NVDA").mkdir(parents=True)
    (out / "sec-edgar-filings" / "NVDA" / "10-K").write_text("mine\n")
    return out


def _filings_is_file(out: Path) -> Path:
    out.mkdir()
    (out / "sec-edgar-filings").write_text("mine\n")
    return out


@pytest.mark.parametrize(("make", "named", "says"), [
    pytest.param(_out_file, "{out}", "not a folder", id="out-is-a-file"),
    pytest.param(_out_under_file, "{out}/sub", "cannot create the folder (Not a directory)",
                 id="out-under-a-file"),
    pytest.param(_out_in_proc, "/proc/", "cannot create the folder", id="out-unwritable",
                 marks=pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc")),
    pytest.param(_out_loop, "{out}", "symbolic links", id="out-symlink-loop"),
    pytest.param(_companyfacts_is_file, "{out}/companyfacts/CIK0001045810.json",
                 "companyfacts is not a folder", id="companyfacts-folder-is-a-file"),
    pytest.param(_companyfacts_json_is_folder, "{out}/companyfacts/CIK0001045810.json",
                 "a folder, not a file; left as it is", id="companyfacts-json-is-a-folder"),
    pytest.param(_filings_is_file, "{out}/sec-edgar-filings/NVDA/10-K/",
                 "sec-edgar-filings is not a folder", id="filings-folder-is-a-file"),
    pytest.param(_form_folder_is_file, "{out}/sec-edgar-filings/NVDA/10-K/0001045810-24-",
                 "10-K is not a folder", id="form-folder-is-a-file"),
])
def test_a_bad_out_folder_exits_2_and_keeps_what_is_there(
        make: Callable[[Path], Path], named: str, says: str, sec_server: Any, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sec"
    target = make(out)
    before = _snapshot(tmp_path)
    assert _fetch(target, tickers="NVDA", years="2024") == 2
    line = _one_line_error(capsys)
    assert line.startswith("gen: error: ") and named.format(out=out) in line and says in line
    after = _snapshot(tmp_path)
    assert {entry: after.get(entry) for entry in before} == before   # nothing overwritten


def _snapshot(folder: Path) -> dict[str, bytes | str]:
    """Every entry under ``folder``: a file's bytes, a link's target, "folder"."""
    return {str(p): os.readlink(p) if p.is_symlink() else p.read_bytes() if p.is_file()
            else "folder" for p in sorted(folder.rglob("*"))}


def _submissions(sec_server: Any, cik: str, edit: Callable[[dict[str, Any]], None]) -> None:
    path = f"/submissions/CIK{cik}.json"
    data = json.loads(sec_server.routes[path])
    edit(data["filings"]["recent"])
    sec_server.routes[path] = json.dumps(data).encode()


NVDA = "0001045810"
MAPPING = "/files/company_tickers_exchange.json"


@pytest.mark.parametrize(("route", "body", "says"), [
    pytest.param(MAPPING, b"<html>busy</html>", f"{MAPPING}: the response is not JSON",
                 id="mapping-not-json"),
    pytest.param(MAPPING, b"[]", f"{MAPPING}: unexpected ticker mapping data",
                 id="mapping-a-list"),
    pytest.param(MAPPING, b'{"fields": [], "data": []}',
                 f"{MAPPING}: unexpected ticker mapping data", id="mapping-without-fields"),
    pytest.param(f"/submissions/CIK{NVDA}.json", b"[]", "unexpected submissions data",
                 id="submissions-a-list"),
    pytest.param(f"/api/xbrl/companyfacts/CIK{NVDA}.json", b"[]",
                 "not a companyfacts object", id="companyfacts-a-list"),
    pytest.param(f"/api/xbrl/companyfacts/CIK{NVDA}.json", b"\xff\xfe",
                 "the response is not JSON", id="companyfacts-not-json"),
])
def test_a_bad_server_response_exits_2(route: str, body: bytes, says: str, sec_server: Any,
                                       tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    sec_server.routes[route] = body
    assert _fetch(tmp_path / "sec", tickers="NVDA", years="2024") == 2
    line = _one_line_error(capsys)
    assert line.startswith("gen: error: ") and says in line
    assert not list((tmp_path / "sec").rglob("CIK*.json"))


@pytest.mark.parametrize(("edit", "says"), [
    pytest.param(lambda recent: recent.update(form=[5] * len(recent["form"])),
                 "unexpected submissions data (AttributeError", id="forms-numbers"),
    pytest.param(lambda recent: recent.update(form=5), "unexpected submissions data",
                 id="forms-a-number"),
    pytest.param(lambda recent: recent.update(filingDate=None), "unexpected submissions data",
                 id="dates-null"),
])
def test_malformed_submissions_exit_2(edit: Callable[[dict[str, Any]], None], says: str,
                                      sec_server: Any, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    _submissions(sec_server, NVDA, edit)
    assert _fetch(tmp_path / "sec", tickers="NVDA", years="2024") == 2
    assert says in _one_line_error(capsys)


def test_an_accession_number_cannot_write_outside_out(sec_server: Any, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    escape = "../../../../escaped"

    def edit(recent: dict[str, Any]) -> None:
        wanted = recent["accessionNumber"].index("0001045810-24-000029")
        recent["accessionNumber"][wanted] = escape

    _submissions(sec_server, NVDA, edit)
    folder = f"/Archives/edgar/data/1045810/{escape.replace('-', '')}"
    sec_server.routes[f"{folder}/{escape}.txt"] = b"hostile"
    out = tmp_path / "deep" / "er" / "sec"
    assert _fetch(out, tickers="NVDA", years="2024") == 2
    line = _one_line_error(capsys)
    assert "refusing to write" in line and "'escaped'" in line
    assert not any("escaped" in p.name for p in tmp_path.rglob("*"))


# --- redirects -------------------------------------------------------------------------------

def test_a_redirect_outside_the_bases_is_refused(sec_server: Any, tmp_path: Path,
                                                 no_network: list[str],
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    path = f"/api/xbrl/companyfacts/CIK{NVDA}.json"
    sec_server.redirects[path] = "http://sec.example.invalid/facts.json"
    assert _fetch(tmp_path / "sec", tickers="NVDA", years="2024") == 2
    line = _one_line_error(capsys)
    assert "refusing the redirect of" in line and "sec.example.invalid" in line
    assert no_network == []


def test_a_redirect_within_the_bases_is_followed(sec_server: Any, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    path = f"/api/xbrl/companyfacts/CIK{NVDA}.json"
    sec_server.routes["/moved/facts.json"] = sec_server.routes[path]
    sec_server.redirects[path] = sec_server.url + "/moved/facts.json"
    assert _fetch(tmp_path / "sec", tickers="NVDA", years="2024") == 0
    assert "companyfacts: written" in capsys.readouterr().out
