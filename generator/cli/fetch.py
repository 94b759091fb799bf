"""``gen fetch SOURCE``: download real data, e.g. ``gen fetch sec`` (SEC EDGAR 10-Ks + XBRL)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import hopvista
from hopvista.sources.sec.fetch import FetchError, parse_tickers, parse_user_agent, parse_years

T = TypeVar("T")

_SEC_DESCRIPTION = """\
Download the 10-K filings of the given fiscal years (through sec-edgar-downloader, with the
primary document) and each company's XBRL companyfacts JSON from SEC EDGAR into OUT:
OUT/sec-edgar-filings/TICKER/10-K/ACCESSION/ and OUT/companyfacts/CIK##########.json.
At most 10 requests per second; the SEC requires a User-Agent with a name and an email.
Existing files are never overwritten silently. HOPVISTA_SEC_BASE_URL points every request at
another server (a mirror or a test server) instead of www.sec.gov / data.sec.gov."""


def _checked(parse: Callable[[str], T]) -> Callable[[str], T]:
    """An argparse ``type`` from a parser raising FetchError (one-line argparse error)."""
    def convert(text: str) -> T:
        try:
            return parse(text)
        except FetchError as exc:
            raise argparse.ArgumentTypeError(str(exc).partition(": ")[2] or str(exc)) from None
    return convert


def _tickers(text: str) -> tuple[str, ...]:
    return parse_tickers(text)


def _years(text: str) -> tuple[int, ...]:
    return parse_years(text)


def _out(text: str) -> Path:
    """``--out``: a path; an empty one would silently mean the current folder."""
    if not text.strip():
        raise argparse.ArgumentTypeError("empty path")
    return Path(text)


def _user_agent(text: str) -> str:
    parse_user_agent(text)
    return text.strip()


def register(subparsers: Any) -> None:
    """Add ``fetch`` (with its sources) to the ``gen`` parser."""
    p = subparsers.add_parser("fetch", help="download real data (SEC EDGAR)",
                              description=__doc__)
    sources = p.add_subparsers(dest="source", required=True, metavar="SOURCE")
    sec = sources.add_parser("sec", help="10-K filings and XBRL companyfacts from SEC EDGAR",
                             description=_SEC_DESCRIPTION)
    sec.add_argument("--tickers", type=_checked(_tickers), required=True,
                     help="comma-separated tickers (or CIKs), e.g. AAPL,NVDA,GOOGL")
    sec.add_argument("--years", type=_checked(_years), required=True,
                     help="fiscal years: 2020-2024, 2021,2023 or 2024 (labelled by the year "
                          "the fiscal year ends in)")
    sec.add_argument("--out", type=_out, required=True,
                     help="output folder (not a dataset or a folder inside one)")
    sec.add_argument("--user-agent", type=_checked(_user_agent), required=True,
                     help='who is asking, as the SEC requires: "Name email@example.com"')
    sec.add_argument("--overwrite", action="store_true",
                     help="replace a companyfacts JSON that differs from the server's "
                          "(filings already on disk are always kept)")
    sec.set_defaults(run=run_sec)


def run_sec(args: argparse.Namespace) -> int:
    """Download, then print one line per company and a total."""
    def progress(message: str) -> None:
        print(message, file=sys.stderr)

    report = hopvista.fetch_sec(args.tickers, args.years, args.out,
                                user_agent=args.user_agent, overwrite=args.overwrite,
                                progress=progress if sys.stderr.isatty() else None)
    for line in report.lines():
        print(line)
    return 0
