"""10-K filings: finding them under a folder in the downloader's layout."""

from __future__ import annotations

import os
from pathlib import Path

from hopvista.sources.sec.files import entry_problem

_DOCUMENTS = ("primary-document.html", "full-submission.txt")


def find_filings(root: Path, problems: list[str] | None = None) -> list[Path]:
    """One file per 10-K accession under ``root``, sorted.

    ``root`` is the folder holding ``sec-edgar-filings`` (or its parent's ``filings``
    folder, as in ``shared/data/sec``), or ``sec-edgar-filings`` itself. Each accession
    folder ``<TICKER or CIK>/10-K/<ACCESSION>/`` yields its ``primary-document.html`` when
    that is a readable regular file, else its ``full-submission.txt``. Whatever does not fit
    the layout (a file where a folder belongs, a document that is a folder, a symbolic link
    loop, an accession folder without a document) is skipped and described, naming the path,
    in ``problems``; hidden entries (``.DS_Store``) are ignored.
    """
    report = problems if problems is not None else []
    base = _filings_base(root, report)
    if base is None:
        return []
    found: list[Path] = []
    for company in _entries(base, report):
        if _is_folder(company, report):
            form = company / "10-K"
            if os.path.lexists(form) and _is_folder(form, report):
                found.extend(doc for accession in _entries(form, report)
                             if (doc := _document(accession, report)) is not None)
    return sorted(found)


def _filings_base(root: Path, report: list[str]) -> Path | None:
    if root.name == "sec-edgar-filings":
        return root if _is_folder(root, report) else None
    for candidate in (root / "sec-edgar-filings", root / "filings" / "sec-edgar-filings"):
        if os.path.lexists(candidate) and _is_folder(candidate, report):
            return candidate
    return None


def _is_folder(path: Path, report: list[str]) -> bool:
    problem = entry_problem(path, "folder")
    if problem is not None:
        report.append(f"{path}: {problem}; skipped")
    return problem is None


def _entries(folder: Path, report: list[str]) -> list[Path]:
    try:
        return sorted(p for p in folder.iterdir() if not p.name.startswith("."))
    except OSError as exc:
        report.append(f"{folder}: cannot list the folder ({exc.strerror or exc}); skipped")
        return []


def _document(accession: Path, report: list[str]) -> Path | None:
    """The document to read in one accession folder, or None (reported)."""
    if not _is_folder(accession, report):
        return None
    present = [accession / name for name in _DOCUMENTS if os.path.lexists(accession / name)]
    for path in present:
        problem = entry_problem(path)
        if problem is None:
            return path
        report.append(f"{path}: {problem}; skipped")
    if not present:
        report.append(f"{accession}: neither {' nor '.join(_DOCUMENTS)}; skipped")
    return None
