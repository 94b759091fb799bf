"""The SEC source: real 10-K text and XBRL figures, aligned on companies, as a World.

Reads what ``gen fetch sec`` (or sec-edgar-downloader) wrote: ``sec-edgar-filings/<TICKER or
CIK>/10-K/<ACCESSION>/{primary-document.html | full-submission.txt}`` and
``companyfacts/CIK##########.json``. A company is kept when it has figures for every year of
the window and a 10-K whose fiscal year lies in it; everything else is reported (stderr and
the manifest's ``source`` section), never silently mixed.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hopvista.domain import DomainPack
from hopvista.errors import UserError
from hopvista.sources import SourceOptions
from hopvista.sources.sec.facts import extract_facts
from hopvista.sources.sec.figures import companyfacts_figures, xbrl_figures
from hopvista.sources.sec.filings import chunk_paragraphs, find_filings, is_boilerplate, read_filing
from hopvista.sources.sec.model import ITEMS, SECTION_NAMES, CompanyFigures, Filing, FilingError
from hopvista.sources.sec.stated import columns_stated
from hopvista.world import Chunk, Entity, World


@dataclass
class _Company:
    key: str                      # CIK when known, else the folder name
    filings: list[Filing]
    facts_path: Path | None = None
    facts_json: dict[str, Any] | None = None


def _cik(value: str | int | None) -> str | None:
    if value is None:
        return None
    digits = str(value).strip()
    return digits.zfill(10) if digits.isdigit() else None


def _read_companyfacts(root: Path, report: list[str]) -> dict[str, tuple[Path, dict[str, Any]]]:
    found: dict[str, tuple[Path, dict[str, Any]]] = {}
    for path in sorted((root / "companyfacts").glob("CIK*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            report.append(f"{path}: unreadable companyfacts JSON ({exc}); skipped")
            continue
        cik = _cik(data.get("cik")) or _cik(path.stem.removeprefix("CIK"))
        if cik is None or not isinstance(data.get("facts"), dict):
            report.append(f"{path}: not a companyfacts file (no cik or facts); skipped")
            continue
        found[cik] = (path, data)
    return found


def _companies(root: Path, report: list[str]) -> list[_Company]:
    filings: list[Filing] = []
    for path in find_filings(root):
        try:
            filing = read_filing(path)
        except FilingError as exc:
            report.append(f"{exc}; skipped")
            continue
        for problem in filing.problems:
            report.append(f"{path}: {problem}")
        filings.append(filing)
    facts = _read_companyfacts(root, report)
    companies: dict[str, _Company] = {}
    for filing in filings:
        key = _cik(filing.cik) or filing.folder
        companies.setdefault(key, _Company(key=key, filings=[])).filings.append(filing)
    for cik, (path, data) in facts.items():
        company = companies.setdefault(cik, _Company(key=cik, filings=[]))
        company.facts_path, company.facts_json = path, data
    return [companies[k] for k in sorted(companies)]


def _window(companies: list[_Company], periods: int,
            years: tuple[int, int] | None) -> tuple[int, int]:
    if years is not None:
        return years
    ends = sorted({f.fiscal_year for c in companies for f in c.filings if f.fiscal_year})
    if not ends:
        raise UserError("--data: no 10-K with a known fiscal year; nothing to build from")
    best = max(ends, key=lambda end: (sum(
        1 for c in companies if c.facts_json is not None
        and any(f.fiscal_year and end - periods < f.fiscal_year <= end for f in c.filings)),
        end))
    return best - periods + 1, best


def _figures(company: _Company, filing: Filing, window: Sequence[int]) -> CompanyFigures:
    if company.facts_json is not None:
        return companyfacts_figures(company.facts_json, window)
    return xbrl_figures(filing.facts, window)


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


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def load_world(pack: DomainPack, seed: int, options: SourceOptions) -> World:
    """Real companies of ``options.data`` aligned on the window of fiscal years."""
    if options.data is None:
        raise UserError("--source sec needs --data DIR (the folder 'gen fetch sec' wrote)")
    root = options.data
    if not root.is_dir():
        raise UserError(f"--data {root}: not a folder")
    report: list[str] = []
    companies = _companies(root, report)
    periods = pack.spec.instance.periods
    first, last = _window(companies, periods, options.years)
    window = list(range(first, last + 1))
    columns = pack.columns()
    need = pack.spec.instance.table_columns + 1
    entities, values, chunks = [], {}, {}
    kept: dict[str, Any] = {}
    accepted: list[tuple[_Company, Filing, CompanyFigures, dict[str, list[int]], str]] = []
    for company in companies:
        in_window = [f for f in company.filings if f.fiscal_year and first <= f.fiscal_year <= last]
        label = company.filings[0].folder if company.filings else f"CIK{company.key}"
        if not in_window:
            years = sorted({f.fiscal_year for f in company.filings if f.fiscal_year})
            report.append(f"{label}: no 10-K for a fiscal year in {first}-{last} "
                          f"(10-Ks for {years or 'none'}); dropped")
            continue
        filing = max(in_window, key=lambda f: f.fiscal_year or 0)
        figures = _figures(company, filing, window)
        complete = [c for c in columns if all(y in figures.values.get(c, {}) for y in window)]
        missing = {c: [y for y in window if y not in figures.values.get(c, {})]
                   for c in columns if c not in complete}
        if len(complete) < need:
            report.append(f"{label}: figures for every year {first}-{last} in only "
                          f"{len(complete)} columns (need {need}; {figures.origin}); dropped")
            continue
        for column, years in missing.items():
            report.append(f"{label}: {column} missing for {years}; not sampled for it")
        accepted.append((company, filing, figures, missing, label))
    documents = {id(f): _document_text(f) for _, f, _, _, _ in accepted}
    for company, filing, figures, missing, label in accepted:
        entity_id = filing.ticker or label
        # the registrant name as the 10-K writes it ("Alphabet Inc."), else SEC's index name
        name = filing.name or (company.facts_json or {}).get("entityName") or entity_id
        others = [documents[id(f)] for _, f, _, _, _ in accepted if f is not filing]
        names = sorted(n for n in {name, filing.name, entity_id} if n)
        names += brand_names(documents[id(filing)], others)
        company_chunks = _chunks(entity_id, filing, figures, names)
        if not company_chunks:
            report.append(f"{label}: no usable text chunk in {filing.path}; dropped")
            continue
        entities.append(Entity(id=entity_id, name=str(name),
                               attributes={"cik": company.key, "ticker": filing.ticker or ""}))
        values[entity_id] = {c: [figures.values.get(c, {}).get(y) for y in window]
                             for c in columns}
        chunks[entity_id] = company_chunks
        kept[entity_id] = {
            "name": name, "cik": company.key, "aliases": sorted(set(names) - {name}),
            "text": {
                "file": filing.path.relative_to(root).as_posix(), "sha256": _digest(filing.path),
                "accession": filing.accession, "fiscal_year": filing.fiscal_year},
            "figures": {"origin": figures.origin,
                        "file": (company.facts_path.relative_to(root).as_posix()
                                 if company.facts_path else None),
                        "sha256": _digest(company.facts_path) if company.facts_path else None,
                        "tags": {c: {str(y): t for y, t in by_year.items()}
                                 for c, by_year in sorted(figures.tags.items())}},
            "missing": missing, "chunks": len(company_chunks),
            "facts": sum(len(c.facts) for c in company_chunks)}
        report.extend(f"{label}: {p}" for p in figures.problems)
    for line in report:
        print(f"gen: sec: {line}", file=sys.stderr)
    if len(entities) < pack.spec.instance.entities:
        raise UserError(f"--data {root}: only {len(entities)} companies have both a 10-K and "
                        f"figures for {first}-{last} (need {pack.spec.instance.entities}); "
                        "see the messages above")
    return World(domain=pack.name, source="sec", entities=entities, periods=window,
                 columns=columns, values=values, chunks=chunks,
                 provenance={"window": [first, last], "companies": kept, "report": report})
