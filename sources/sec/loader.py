"""The SEC source: real 10-K text and XBRL figures, aligned on companies, as a World.

Reads what ``gen fetch sec`` (or sec-edgar-downloader) wrote: ``sec-edgar-filings/<TICKER or
CIK>/10-K/<ACCESSION>/{primary-document.html | full-submission.txt}`` and
``companyfacts/CIK##########.json``. A company is kept when it has figures for every year of
the window and a 10-K whose fiscal year lies in it; everything else is reported (stderr and
the manifest's ``source`` section), never silently mixed.
"""

from __future__ import annotations

import functools
import json
import os
import re
import sys
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hopvista.domain import DomainPack
from hopvista.errors import UserError, one_line
from hopvista.sources import SourceOptions, source
from hopvista.sources.sec.facts import extract_facts
from hopvista.sources.sec.figures import companyfacts_figures, xbrl_figures
from hopvista.sources.sec.files import DataFile, entry_problem, read_data_file
from hopvista.sources.sec.filings import chunk_paragraphs, find_filings, is_boilerplate, read_filing
from hopvista.sources.sec.model import (
    ITEMS,
    SECTION_NAMES,
    CompanyFigures,
    Filing,
    SourceFileError,
)
from hopvista.sources.sec.stated import columns_stated
from hopvista.world import Chunk, Entity, World


@dataclass(frozen=True)
class _Facts:
    """A companyfacts file as read: its JSON object, digest and usable entity name."""

    path: Path
    data: dict[str, Any]
    sha256: str
    cik: str
    name: str | None


@dataclass
class _Company:
    key: str                      # CIK when known, else the folder name
    filings: list[Filing]
    facts: _Facts | None = None


def _cik_given(value: object) -> str | None:
    """A CIK given on its own (a companyfacts ``cik``, a ``CIK…`` file name): an integer or
    at most ten ASCII digits, padded to ten, else ``None``."""
    if value is None or isinstance(value, bool):
        return None
    digits = str(value).strip()
    return digits.zfill(10) if digits.isascii() and digits.isdigit() and len(digits) <= 10 \
        else None


_JSON_TYPES = {list: "a list", str: "a string", int: "a number", float: "a number",
               bool: "a boolean", type(None): "null"}


def _json_object(file: DataFile) -> dict[str, Any]:
    """The JSON object a file holds; raises :class:`SourceFileError` naming the file."""
    path = file.path
    if not file.data.strip():
        raise SourceFileError(f"{path}: empty file")
    try:
        data = json.loads(file.data.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise SourceFileError(f"{path}: not UTF-8 text (byte {file.data[exc.start]:#04x} at "
                              f"offset {exc.start})") from None
    except ValueError as exc:
        raise SourceFileError(f"{path}: not JSON ({exc})") from None
    except RecursionError:
        raise SourceFileError(f"{path}: not JSON (nested too deeply)") from None
    if not isinstance(data, dict):
        raise SourceFileError(f"{path}: not a companyfacts object (the JSON is "
                              f"{_JSON_TYPES.get(type(data), 'not an object')})")
    return data


def _companyfacts_file(path: Path) -> _Facts:
    """One ``companyfacts/CIK##########.json``; raises :class:`SourceFileError`."""
    file = read_data_file(path)
    data = _json_object(file)
    if not isinstance(data.get("facts"), dict):
        raise SourceFileError(f"{path}: no 'facts' object; not a companyfacts file")
    cik = _cik_given(data.get("cik")) or _cik_given(path.stem.removeprefix("CIK"))
    if cik is None:
        raise SourceFileError(f"{path}: no CIK (neither a 'cik' number nor a "
                              "CIK##########.json name)")
    name = data.get("entityName")
    return _Facts(path, data, file.sha256, cik,
                  (name.strip() or None) if isinstance(name, str) else None)


def _companyfacts_paths(root: Path, report: list[str]) -> list[Path]:
    folder = root / "companyfacts"
    if not os.path.lexists(folder):
        return []
    problem = entry_problem(folder, "folder")
    try:
        if problem is None:
            return sorted(p for p in folder.iterdir()
                          if p.name.startswith("CIK") and p.name.endswith(".json"))
    except OSError as exc:
        problem = f"cannot list the folder ({exc.strerror or exc})"
    report.append(f"{folder}: {problem}; no companyfacts read")
    return []


def _read_companyfacts(root: Path, report: list[str]) -> dict[str, _Facts]:
    found: dict[str, _Facts] = {}
    for path in _companyfacts_paths(root, report):
        try:
            facts = _companyfacts_file(path)
        except SourceFileError as exc:
            report.append(f"{exc}; skipped")
            continue
        if facts.cik in found:
            report.append(f"{path}: CIK {facts.cik} again (also in "
                          f"{found[facts.cik].path.name}); skipped")
            continue
        if facts.name is None and facts.data.get("entityName") is not None:
            report.append(f"{path}: entityName {str(facts.data['entityName'])[:40]!r} is not "
                          "a name; ignored")
        found[facts.cik] = facts
    return found


def _companies(root: Path, report: list[str]) -> list[_Company]:
    filings: list[Filing] = []
    for path in find_filings(root, report):
        try:
            filing = read_filing(path)
        except SourceFileError as exc:
            report.append(f"{exc}; skipped")
            continue
        for problem in filing.problems:
            report.append(f"{path}: {problem}")
        filings.append(filing)
    if not filings and not report:
        raise UserError(f"--data {root}: no 10-K filings (expected "
                        "sec-edgar-filings/<TICKER or CIK>/10-K/<ACCESSION>/"
                        "primary-document.html or full-submission.txt, as 'gen fetch sec' "
                        "writes)")
    companies: dict[str, _Company] = {}
    for filing in filings:
        key = _cik_given(filing.cik) or filing.folder
        companies.setdefault(key, _Company(key=key, filings=[])).filings.append(filing)
    for cik, facts in _read_companyfacts(root, report).items():
        companies.setdefault(cik, _Company(key=cik, filings=[])).facts = facts
    return [companies[k] for k in sorted(companies)]


def _window(root: Path, companies: list[_Company], periods: int,
            years: tuple[int, int] | None) -> tuple[int, int]:
    if years is not None:
        return years
    ends = sorted({f.fiscal_year for c in companies for f in c.filings if f.fiscal_year})
    if not ends:
        raise UserError(f"--data {root}: no 10-K with a known fiscal year; nothing to build "
                        "from (see the messages above)")
    best = max(ends, key=lambda end: (sum(
        1 for c in companies if c.facts is not None
        and any(f.fiscal_year and end - periods < f.fiscal_year <= end for f in c.filings)),
        end))
    return best - periods + 1, best


def _figures(company: _Company, filing: Filing, window: Sequence[int]) -> CompanyFigures:
    if company.facts is not None:
        return companyfacts_figures(company.facts.data, window)
    return xbrl_figures(filing.facts, window)


def _figures_file(company: _Company, filing: Filing) -> Path:
    return company.facts.path if company.facts is not None else filing.path


def _chunks(entity: str, filing: Filing, figures: CompanyFigures,
            names: Sequence[str]) -> list[Chunk]:
    chunks = []
    for item in ITEMS:
        section = SECTION_NAMES[item]
        for k, group in enumerate(chunk_paragraphs(filing.sections.get(item, [])), start=1):
            text = "\n\n".join(group)
            if is_boilerplate(text):
                continue
            chunk_id = f"{entity}-{section}-{k}"
            chunks.append(Chunk(
                id=chunk_id, entity=entity, section=section, period=filing.fiscal_year or 0,
                text=text, columns_stated=columns_stated(text, figures.values),
                facts=tuple(extract_facts(entity, chunk_id, text, names, filing.ticker))))
    return chunks


_PROPER = re.compile(r"\b[A-Z][A-Za-z0-9]+(?:[-&][A-Za-z0-9]+)*\b")
BRAND_MIN_COUNT = 15
BRAND_RATIO = 20
_MONTHS = {"january", "february", "march", "april", "may", "june", "july", "august",
           "september", "october", "november", "december"}


def _document_text(filing: Filing) -> str:
    return "\n".join(p for paragraphs in filing.sections.values() for p in paragraphs)


@functools.lru_cache(maxsize=64)
def _proper_rates(text: str) -> tuple[dict[str, int], int]:
    counts: dict[str, int] = {}
    for word in _PROPER.findall(text):
        counts[word] = counts.get(word, 0) + 1
    return counts, max(1, len(text.split()))


@functools.lru_cache(maxsize=64)
def _lower_words(text: str) -> frozenset[str]:
    return frozenset(re.findall(r"\b[a-z][a-z0-9]+\b", text))


def brand_names(own: str, others: Sequence[str]) -> list[str]:
    """Proper names that give a company away: frequent in its own 10-K ("Google" in
    Alphabet's), rare in the other companies' (at most one in BRAND_RATIO as often, per word).
    A claim naming one is rejected like one naming the company itself."""
    mine, size = _proper_rates(own)
    theirs = [_proper_rates(text) for text in others]
    common = set().union(*(_lower_words(text) for text in others))
    brands = []
    for word, count in mine.items():
        if count < BRAND_MIN_COUNT or len(word) < 3 or word.lower() in common \
                or word.lower() in _MONTHS:
            continue  # an English word capitalised ("Company", "Search") is no brand
        rate = count / size
        if all(c.get(word, 0) / n * BRAND_RATIO <= rate for c, n in theirs):
            brands.append(word)
    return sorted(brands)


def _data_root(options: SourceOptions) -> Path:
    """The ``--data`` folder, checked: it exists and is a folder."""
    if options.data is None:
        raise UserError("--source sec needs --data DIR (the folder 'gen fetch sec' wrote)")
    problem = entry_problem(options.data, "folder")
    if problem is not None:
        raise UserError(one_line(f"--data {options.data}: {problem}"))
    return options.data


@source("sec")
def load_world(pack: DomainPack, seed: int, options: SourceOptions) -> World:
    """Real companies of ``options.data`` aligned on the window of fiscal years.

    Every file that cannot be used and every company dropped is reported on stderr (one line
    each, naming the file) and in ``provenance["report"]``; :class:`UserError` when fewer
    companies than an instance needs remain.
    """
    root = _data_root(options)
    report: list[str] = []
    try:
        return _load(pack, root, options.years, report)
    except UserError as exc:
        raise UserError(one_line(str(exc))) from None
    finally:
        for line in report:
            print(f"gen: sec: {one_line(line)}", file=sys.stderr)


_Accepted = tuple[_Company, Filing, CompanyFigures, dict[str, list[int]], str]


def _accept(company: _Company, window: list[int], columns: Collection[str], need: int,
            report: list[str]) -> _Accepted | None:
    """The company's filing and figures for ``window``, or None (reported) when unusable."""
    first, last = window[0], window[-1]
    in_window = [f for f in company.filings if f.fiscal_year and first <= f.fiscal_year <= last]
    label = company.filings[0].folder if company.filings else \
        str(company.facts.path if company.facts else f"CIK{company.key}")
    if not in_window:
        years = sorted({f.fiscal_year for f in company.filings if f.fiscal_year})
        report.append(f"{label}: no 10-K for a fiscal year in {first}-{last} "
                      f"(10-Ks for {years or 'none'}); dropped")
        return None
    filing = max(in_window, key=lambda f: f.fiscal_year or 0)
    figures = _figures(company, filing, window)
    source = _figures_file(company, filing)
    report.extend(f"{source}: {problem}" for problem in figures.malformed)
    complete = [c for c in columns if all(y in figures.values.get(c, {}) for y in window)]
    missing = {c: [y for y in window if y not in figures.values.get(c, {})]
               for c in columns if c not in complete}
    if len(complete) < need:
        report.append(f"{label}: figures for every year {first}-{last} in only "
                      f"{len(complete)} columns (need {need}; {figures.origin} {source}); "
                      "dropped")
        return None
    for column, years in missing.items():
        report.append(f"{label}: {column} missing for {years}; not sampled for it")
    return company, filing, figures, missing, label


def _load(pack: DomainPack, root: Path, years: tuple[int, int] | None,
          report: list[str]) -> World:
    companies = _companies(root, report)
    first, last = _window(root, companies, pack.spec.instance.periods, years)
    window = list(range(first, last + 1))
    columns = pack.columns()
    need = pack.spec.instance.table_columns + 1
    entities, values, chunks = [], {}, {}
    kept: dict[str, Any] = {}
    accepted = [a for c in companies
                if (a := _accept(c, window, columns, need, report)) is not None]
    documents = {id(f): _document_text(f) for _, f, _, _, _ in accepted}
    for company, filing, figures, missing, label in accepted:
        entity_id = filing.ticker or label
        if entity_id in kept:
            report.append(f"{label}: ticker {entity_id} of {filing.path} is already that of "
                          f"CIK {kept[entity_id]['cik']}; dropped")
            continue
        # the registrant name as the 10-K writes it ("Alphabet Inc."), else SEC's index name
        name = filing.name or (company.facts.name if company.facts else None) or entity_id
        others = [documents[id(f)] for _, f, _, _, _ in accepted if f is not filing]
        names = sorted(n for n in {name, filing.name, entity_id} if n)
        names += brand_names(documents[id(filing)], others)
        company_chunks = _chunks(entity_id, filing, figures, names)
        if not company_chunks:
            report.append(f"{label}: no usable text chunk in {filing.path}; dropped")
            continue
        entities.append(Entity(id=entity_id, name=name,
                               attributes={"cik": company.key, "ticker": filing.ticker or ""}))
        values[entity_id] = {c: [figures.values.get(c, {}).get(y) for y in window]
                             for c in columns}
        chunks[entity_id] = company_chunks
        kept[entity_id] = _provenance(root, company, filing, figures, missing, name, names,
                                      company_chunks)
        report.extend(f"{label}: {p}" for p in figures.problems)
    if len(entities) < pack.spec.instance.entities:
        raise UserError(f"--data {root}: only {len(entities)} companies have both a 10-K and "
                        f"figures for {first}-{last} (need {pack.spec.instance.entities}); "
                        "see the messages above")
    return World(domain=pack.name, source="sec", entities=entities, periods=window,
                 columns=columns, values=values, chunks=chunks,
                 provenance={"window": [first, last], "companies": kept, "report": report})


def _provenance(root: Path, company: _Company, filing: Filing, figures: CompanyFigures,
                missing: dict[str, list[int]], name: str, names: list[str],
                company_chunks: list[Chunk]) -> dict[str, Any]:
    """What the manifest records of one kept company: its files, digests and tags."""
    facts = company.facts
    return {
        "name": name, "cik": company.key, "aliases": sorted(set(names) - {name}),
        "text": {
            "file": filing.path.relative_to(root).as_posix(), "sha256": filing.sha256,
            "accession": filing.accession, "fiscal_year": filing.fiscal_year},
        "figures": {"origin": figures.origin,
                    "file": facts.path.relative_to(root).as_posix() if facts else None,
                    "sha256": facts.sha256 if facts else None,
                    "tags": {c: {str(y): t for y, t in by_year.items()}
                             for c, by_year in sorted(figures.tags.items())}},
        "missing": missing, "chunks": len(company_chunks),
        "facts": sum(len(c.facts) for c in company_chunks)}
