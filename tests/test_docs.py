"""The documents a user reads: every relative link leads somewhere, the README stays short and
keeps its two set-up commands, no document or source file cites an issue number, and CI runs
the README's tests as the quick tier first, then the slow tier."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = sorted([ROOT / "README.md", ROOT / "CONTRIBUTING.md", ROOT / "CHANGELOG.md",
                    *(ROOT / "docs").glob("*.md")])
CODE_FOLDERS = ("generator", "sources", "templates", "themes", "augment", "docs", "scripts",
                "examples", "tests")
INSTALL_COMMAND = ("bash scripts/install.sh && gen build financial --hops 3 -n 48 --seed 7 "
                   "--out out/financial --overwrite && gen verify out/financial")
TEST_COMMAND = "python -m pytest -q -n auto --dist loadfile"

FENCE = re.compile(r"^```.*?^```", re.S | re.M)
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
ISSUE_NUMBER = re.compile(r"[Ii]ssues? ?#?[0-9]")
SOURCE_PATH = re.compile(r"(?<![\w./~-])((?:generator|sources|augment|themes|templates)/"
                         r"[\w./-]*[\w/])")
PLACEHOLDER = re.compile(r"[A-Z]{3,}")  # NAME.py, KIND.j2: a file the reader names


def prose(path: Path) -> str:
    """A Markdown file without its fenced code blocks (their brackets are code, not links)."""
    return FENCE.sub("", path.read_text(encoding="utf-8"))


def anchors(path: Path) -> set[str]:
    """The heading anchors a Markdown file offers, as GitHub makes them."""
    found = set()
    for line in prose(path).splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            found.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return found


def relative_links(path: Path) -> list[str]:
    return [target for target in LINK.findall(prose(path))
            if not re.match(r"[a-z]+:", target)]


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_leads_to_a_file_and_heading(document: Path) -> None:
    broken = []
    for target in relative_links(document):
        name, _, anchor = target.partition("#")
        linked = (document.parent / name).resolve() if name else document
        if not linked.exists():
            broken.append(f"{target}: no such file")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            broken.append(f"{target}: no such heading")
    assert not broken, f"{document.relative_to(ROOT)}: {broken}"


GUIDES = [ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]


@pytest.mark.parametrize("document", GUIDES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_source_path_a_document_names_exists(document: Path) -> None:
    named = {match.rstrip(".") for match in SOURCE_PATH.findall(document.read_text("utf-8"))}
    missing = sorted(path for path in named
                     if not PLACEHOLDER.search(path) and not (ROOT / path).exists())
    assert not missing, f"{document.relative_to(ROOT)} names paths that do not exist: {missing}"


def test_the_readme_is_read_in_one_sitting() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 250


def test_the_readme_keeps_its_two_set_up_commands() -> None:
    blocks = [block.strip("`").strip().removeprefix("bash").strip()
              for block in FENCE.findall((ROOT / "README.md").read_text(encoding="utf-8"))]
    assert INSTALL_COMMAND in blocks
    assert TEST_COMMAND in blocks


def test_ci_runs_the_readme_test_command_once() -> None:
    runs = [shlex.split(line) for line in (ROOT / ".ci/run").read_text().splitlines()
            if line.startswith(TEST_COMMAND)]
    flags = [run[len(shlex.split(TEST_COMMAND)):] for run in runs]
    assert [f[:f.index("||")] if "||" in f else f for f in flags] == [["--durations=25"]]


def test_no_document_or_source_file_cites_an_issue_number() -> None:
    files = [ROOT / "README.md", ROOT / "CONTRIBUTING.md"]
    for folder in CODE_FOLDERS:
        files += [p for p in (ROOT / folder).rglob("*")
                  if p.is_file() and p.suffix in {".py", ".md", ".yaml", ".j2", ".css", ".html"}
                  and "golden" not in p.parts]
    cited = [f"{p.relative_to(ROOT)}:{n}" for p in files
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if ISSUE_NUMBER.search(line) and p != Path(__file__).resolve()]
    assert not cited
