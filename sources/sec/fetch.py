"""Download 10-K filings and XBRL companyfacts from SEC EDGAR (``gen fetch sec``).

Layout under the output folder (the one :mod:`hopvista.sources.sec` reads)::

    sec-edgar-filings/<TICKER>/10-K/<ACCESSION>/full-submission.txt     (sec-edgar-downloader)
    sec-edgar-filings/<TICKER>/10-K/<ACCESSION>/primary-document.html
    companyfacts/CIK##########.json

The filings come through ``sec_edgar_downloader.Downloader`` (v5); the companyfacts JSON through
:class:`SecClient`. All requests of one run, the downloader's included, share one
:class:`RateLimiter` (at most 10 per second, as the SEC asks) and carry the User-Agent
"Name email" the SEC requires.

**How the downloader is redirected.** sec-edgar-downloader 5.x builds every URL from three
module-level constants and sends every request through one private function. While
:func:`fetch_sec` runs (and only then; they are restored afterwards) these are patched:

- ``_sec_gateway.URL_CIK_MAPPING``, ``_orchestrator.URL_SUBMISSIONS`` and
  ``_orchestrator.URL_FILING`` get the configured base URLs instead of
  ``https://www.sec.gov`` / ``https://data.sec.gov``;
- ``_sec_gateway._call_sec`` (the downloader's only HTTP call) goes through :class:`SecClient`:
  the shared rate limiter, a timeout, errors that name the URL, and a refusal of any URL
  (or redirect) outside the configured bases (so a future downloader version with a new URL
  fails loudly instead of reaching the real SEC from a test);
- ``_orchestrator.save_document`` writes atomically (temporary file + rename), and only into
  ``sec-edgar-filings/<TICKER>/10-K/<ACCESSION>/`` under the output folder (an accession
  number from the server such as ``../../x`` is refused).

The downloader catches every exception raised while it fetches or saves a document and goes
on with the next one; such failures are collected in ``SecClient.failures`` and the first one
ends the run as a :class:`FetchError`, so a 10-K is never silently missing.

The base URLs default to the SEC's; ``HOPVISTA_SEC_BASE_URL`` (one URL serving both hosts'
paths, e.g. a local test server or a mirror) or :class:`SecClient`'s parameters override them.
"""

from __future__ import annotations

import contextlib
import gzip
import http.client
import io
import json
import os
import re
import time
import urllib.error
import urllib.request
import zlib
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from types import ModuleType
from typing import Any

from hopvista.output.atomic import write_atomic
from hopvista.sources.sec.figures import fiscal_year_label
from hopvista.sources.sec.files import entry_problem, read_data_file
from hopvista.sources.sec.model import SourceFileError

SEC_WWW = "https://www.sec.gov"
SEC_DATA = "https://data.sec.gov"
#: One base URL for both SEC hosts (their paths do not overlap): a test server or a mirror.
BASE_URL_ENV = "HOPVISTA_SEC_BASE_URL"
MAX_REQUESTS_PER_SECOND = 10
DEFAULT_TIMEOUT_S = 60.0

CIK_MAPPING_PATH = "/files/company_tickers_exchange.json"
SUBMISSIONS_PATH = "/submissions/CIK{cik}.json"
COMPANYFACTS_PATH = "/api/xbrl/companyfacts/CIK{cik}.json"
FILINGS_FOLDER = "sec-edgar-filings"
COMPANYFACTS_FOLDER = "companyfacts"
FORM = "10-K"

_EMAIL = re.compile(r"[^\s@<>()\[\],;]+@[^\s@<>()\[\],;]+\.[A-Za-z]{2,}")
_ERRNO = re.compile(r"\[Errno -?\d+\] ([^'\"\])]+)")
_ACCESSION = re.compile(r"[0-9]{10}-[0-9]{2}-[0-9]{6}")


class FetchError(Exception):
    """A download that cannot go on; the message is one line and names the URL or input."""


# --- inputs ---------------------------------------------------------------------------------

def parse_user_agent(text: str) -> tuple[str, str]:
    """``"Name email@example.com"`` -> (name, email); the SEC refuses requests without both."""
    found = _EMAIL.search(text)
    name = _EMAIL.sub(" ", text).strip(" \t<>,;()") if found else ""
    name = " ".join(name.split())
    if found is None or not name:
        missing = "no email address" if found is None else "no name"
        raise FetchError(f"--user-agent: {_echo(text)} has {missing}; the SEC requires a name and "
                         "an email address, e.g. \"Jane Doe jane.doe@example.com\"")
    return name, found.group(0)


def _echo(text: str) -> str:
    """``text`` quoted for an error message, shortened when long."""
    return repr(text if len(text) <= 40 else text[:37] + "...")


def parse_years(text: str) -> tuple[int, ...]:
    """``"2020-2024"``, ``"2021,2023"`` or ``"2024"`` -> the fiscal years, sorted."""
    years: set[int] = set()
    for chunk in text.split(","):
        first, dash, last = chunk.strip().partition("-")
        try:
            low = int(first)
            high = int(last) if dash else low
        except ValueError:
            raise FetchError(f"--years: expected YEAR, FIRST-LAST or a list such as "
                             f"2020,2022, got {_echo(text)}") from None
        if not 1993 <= low <= high <= 2100:
            raise FetchError(f"--years: {_echo(chunk.strip())}: years must lie in 1993-2100, "
                             "first <= last")
        years.update(range(low, high + 1))
    return tuple(sorted(years))


def parse_tickers(text: str) -> tuple[str, ...]:
    """``"aapl, NVDA"`` -> ("AAPL", "NVDA"); a number is taken as a CIK (zero-padded)."""
    out: list[str] = []
    for raw in text.split(","):
        token = raw.strip().upper().replace(".", "-")
        if not token:
            continue
        if not re.fullmatch(r"[A-Z0-9-]{1,12}", token):
            raise FetchError(f"--tickers: {_echo(raw.strip())} is not a ticker or CIK")
        if token.isdigit():
            if len(token) > 10:
                raise FetchError(f"--tickers: CIK {token} has more than 10 digits")
            token = token.zfill(10)
        if token not in out:
            out.append(token)
    if not out:
        raise FetchError("--tickers: no ticker given")
    return tuple(out)


def filing_date_range(years: Sequence[int]) -> tuple[date, date]:
    """The filing dates that can hold the 10-Ks of ``years`` (FY N is filed in N or N+1)."""
    return date(min(years), 1, 1), date(max(years) + 1, 12, 31)


# --- HTTP -----------------------------------------------------------------------------------

class RateLimiter:
    """At most ``per_second`` requests in any one-second window.

    A request may start only one second after the request ``per_second`` places before it
    *ended*, so even the server's arrival times never show more than ``per_second`` in a
    second.
    """

    def __init__(self, per_second: int = MAX_REQUESTS_PER_SECOND, *,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        if per_second < 1:
            raise ValueError("per_second must be at least 1")
        self._ends: deque[float] = deque(maxlen=per_second)
        self._clock = clock
        self._sleep = sleep

    @contextlib.contextmanager
    def slot(self) -> Iterator[None]:
        """Wait for a free slot, run the request, then record when it ended."""
        if len(self._ends) == self._ends.maxlen:
            wait = self._ends[0] + 1.0 - self._clock()
            if wait > 0:
                self._sleep(wait)
        try:
            yield
        finally:
            self._ends.append(self._clock())


@dataclass
class _Response:
    """The part of ``requests.Response`` sec-edgar-downloader uses: ``content`` and ``json()``."""

    url: str
    content: bytes

    def json(self) -> Any:
        try:
            return json.loads(self.content)
        except ValueError:
            raise FetchError(f"{self.url}: the response is not JSON") from None


def _decode(body: bytes, encoding: str | None) -> bytes:
    if encoding == "gzip":
        return gzip.decompress(body)
    if encoding == "deflate":
        try:
            return zlib.decompress(body)
        except zlib.error:
            return zlib.decompress(body, -zlib.MAX_WBITS)
    return body


def _reason(exc: BaseException) -> str:
    if isinstance(exc, urllib.error.HTTPError):
        return f"HTTP {exc.code} {exc.reason}".strip()
    if isinstance(exc, TimeoutError):
        return "timed out"
    reason: object = exc.reason if isinstance(exc, urllib.error.URLError) else exc
    if isinstance(reason, OSError) and reason.strerror:
        return str(reason.strerror)
    match = _ERRNO.search(str(reason))
    text = match.group(1) if match else str(reason) or type(reason).__name__
    return " ".join(text.split())


class _StayOnBases(urllib.request.HTTPRedirectHandler):
    """Follows a redirect only to a URL under the client's base URLs."""

    def __init__(self, client: SecClient) -> None:
        self.client = client

    def redirect_request(self, req: urllib.request.Request, fp: Any, code: int, msg: str,
                         headers: Any, newurl: str) -> urllib.request.Request | None:
        """The redirected request, or :class:`FetchError` when it would leave the bases."""
        if not self.client.allowed(newurl):
            fp.close()
            raise FetchError(f"refusing the redirect of {req.full_url} to {newurl}: outside "
                             f"the configured SEC base URLs ({self.client.www_base}, "
                             f"{self.client.data_base})")
        return super().redirect_request(req, fp, code, msg, headers, newurl)


class SecClient:
    """GETs against SEC EDGAR (or the configured stand-in), rate-limited, one-line errors.

    Redirects are followed only within the configured base URLs.
    """

    def __init__(self, user_agent: str, *, www_base: str | None = None,
                 data_base: str | None = None, limiter: RateLimiter | None = None,
                 timeout: float = DEFAULT_TIMEOUT_S) -> None:
        parse_user_agent(user_agent)
        override = os.environ.get(BASE_URL_ENV, "").strip() or None
        self.user_agent = user_agent
        self.www_base = (www_base or override or SEC_WWW).rstrip("/")
        self.data_base = (data_base or override or SEC_DATA).rstrip("/")
        self.limiter = limiter or RateLimiter()
        self.timeout = timeout
        self.requests = 0
        self.failures: list[str] = []
        self._cached: dict[str, bytes] = {}
        self._opener = urllib.request.build_opener(_StayOnBases(self))

    def allowed(self, url: str) -> bool:
        """Whether ``url`` lies under one of the configured base URLs."""
        return any(url.startswith(base + "/") for base in (self.www_base, self.data_base))

    def get(self, url: str, *, keep: bool = False) -> bytes:
        """The body of ``url``; ``keep`` serves the next GET of the same URL from memory.

        Every failure is also added to ``failures`` (sec-edgar-downloader swallows exceptions
        raised while it downloads a document; :func:`fetch_sec` looks there afterwards).
        """
        if url in self._cached:
            return self._cached.pop(url)
        try:
            body = self._download(url)
        except FetchError as exc:
            self.failures.append(str(exc))
            raise
        if keep:
            self._cached[url] = body
        return body

    def _download(self, url: str) -> bytes:
        if not self.allowed(url):
            raise FetchError(f"refusing {url}: outside the configured SEC base URLs "
                             f"({self.www_base}, {self.data_base})")
        request = urllib.request.Request(url, headers={
            "User-Agent": self.user_agent, "Accept-Encoding": "gzip, deflate"})
        try:
            with self.limiter.slot():
                self.requests += 1
                with self._opener.open(request, timeout=self.timeout) as response:
                    return _decode(response.read(), response.headers.get("Content-Encoding"))
        except (OSError, ValueError, EOFError, zlib.error, http.client.HTTPException) as exc:
            # URLError, HTTPError, timeouts and resets are all OSError
            raise FetchError(f"cannot download {url}: {_reason(exc)}") from None

    def get_json(self, url: str, *, keep: bool = False) -> Any:
        """``get`` and decode JSON."""
        return _Response(url, self.get(url, keep=keep)).json()


# --- writing --------------------------------------------------------------------------------

def _write(path: Path, data: bytes) -> None:
    """Write a downloaded file atomically (its folders made, its mode left to the umask), with
    :class:`FetchError` naming the file when it cannot be done."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, data, mode=None)
    except OSError as exc:
        blocking = next((p for p in reversed(path.parents)
                         if os.path.lexists(p) and not p.is_dir()), None)
        reason = f"{blocking} is not a folder" if blocking else exc.strerror or str(exc)
        raise FetchError(f"cannot write {path}: {reason}") from None


def _prepare_out(out: Path) -> None:
    """Make the output folder; :class:`FetchError` when ``out`` is a file or cannot be made."""
    problem = entry_problem(out, "folder") if os.path.lexists(out) else None
    if problem is not None:
        raise FetchError(f"--out {out}: {problem}")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise FetchError(f"--out {out}: cannot create the folder "
                         f"({exc.strerror or exc})") from None


# --- the downloader -------------------------------------------------------------------------

def _downloader_modules() -> tuple[ModuleType, ModuleType, str]:
    from sec_edgar_downloader import _orchestrator, _sec_gateway, _version

    return _orchestrator, _sec_gateway, str(getattr(_version, "__version__", "?"))


def _check_save_path(path: Path, filings: Path) -> None:
    """Refuse a save path outside ``filings/<TICKER>/10-K/<ACCESSION>/`` (an accession number
    from the server such as ``../../x`` must not write elsewhere)."""
    if len(path.parents) < 4 or path.parents[3] != filings \
            or not _ACCESSION.fullmatch(path.parent.name):
        raise FetchError(f"refusing to write {path}: not an accession folder under {filings} "
                         f"(accession {path.parent.name!r} from the server)")


@contextlib.contextmanager
def redirected_downloader(client: SecClient, saved: list[Path],
                          filings: Path | None = None) -> Iterator[None]:
    """Point sec-edgar-downloader at ``client``'s base URLs and transport (see module doc).

    A document that cannot be saved (or, with ``filings``, whose path lies outside that
    folder's accession folders) is refused and its message added to ``client.failures``.
    """
    orchestrator, gateway, version = _downloader_modules()

    def call_sec(uri: str, user_agent: str, host: str) -> _Response:
        return _Response(uri, client.get(uri))

    def save_document(contents: bytes, save_path: Path) -> None:
        path = Path(save_path)
        try:
            if filings is not None:
                _check_save_path(path, filings)
            _write(path, contents)
        except FetchError as exc:
            client.failures.append(str(exc))   # the downloader swallows exceptions
            raise
        saved.append(path)

    patches: dict[tuple[ModuleType, str], object] = {
        (gateway, "URL_CIK_MAPPING"): client.www_base + CIK_MAPPING_PATH,
        (orchestrator, "URL_SUBMISSIONS"): client.data_base + "/submissions/{submission}",
        (orchestrator, "URL_FILING"):
            client.www_base + "/Archives/edgar/data/{cik}/{acc_num_no_dash}/{document}",
        (gateway, "_call_sec"): call_sec,
        (orchestrator, "save_document"): save_document,
    }
    missing = [f"{module.__name__}.{name}" for module, name in patches
               if not hasattr(module, name)]
    if missing:
        raise FetchError(f"sec-edgar-downloader {version} is not supported (hopvista patches "
                         f"5.x internals; missing {', '.join(missing)})")
    originals = {key: getattr(*key) for key in patches}
    try:
        for (module, name), value in patches.items():
            setattr(module, name, value)
        yield
    finally:
        for (module, name), value in originals.items():
            setattr(module, name, value)


# --- the run --------------------------------------------------------------------------------

@dataclass
class CompanyResult:
    """What one ticker got."""

    ticker: str
    cik: str
    downloaded: list[str] = field(default_factory=list)   # accession numbers written now
    kept: int = 0                                          # 10-Ks already complete on disk
    skipped: list[str] = field(default_factory=list)      # 10-Ks of other fiscal years
    companyfacts: str = ""          # written / unchanged / kept existing ... / replaced

    def line(self) -> str:
        """The summary line of this company."""
        return (f"{self.ticker:<6} CIK {self.cik}  10-K: {len(self.downloaded)} downloaded, "
                f"{self.kept} kept existing  companyfacts: {self.companyfacts}")


@dataclass
class FetchReport:
    """What a run did, for the summary."""

    out: Path
    companies: list[CompanyResult] = field(default_factory=list)
    requests: int = 0
    seconds: float = 0.0

    def lines(self) -> list[str]:
        """A readable summary, one line per company and a total."""
        downloaded = sum(len(c.downloaded) for c in self.companies)
        kept = sum(c.kept for c in self.companies)
        return [*(c.line() for c in self.companies),
                f"fetched {len(self.companies)} companies into {self.out}: {downloaded} 10-K "
                f"filings downloaded, {kept} kept existing; {self.requests} requests in "
                f"{self.seconds:.1f} s"]


def _skip_other_years(submissions: Any, years: Sequence[int],
                      window: tuple[date, date]) -> list[str]:
    """10-Ks filed in ``window`` whose period of report lies in another fiscal year."""
    filings = submissions.get("filings") if isinstance(submissions, Mapping) else None
    recent = filings.get("recent") if isinstance(filings, Mapping) else None
    if not isinstance(recent, Mapping):
        return []
    columns = [column if isinstance(column := recent.get(key), list) else [] for key in
               ("accessionNumber", "form", "filingDate", "reportDate")]
    skip: list[str] = []
    for accession, form, filed, report in zip(*columns, strict=False):
        if form != FORM or not report:
            continue
        try:
            filed_on, period = date.fromisoformat(filed), date.fromisoformat(report)
        except (TypeError, ValueError):
            continue
        if window[0] <= filed_on <= window[1] and fiscal_year_label(period) not in years:
            skip.append(str(accession))
    return skip


def _save_companyfacts(client: SecClient, cik: str, out: Path, overwrite: bool) -> str:
    url = client.data_base + COMPANYFACTS_PATH.format(cik=cik)
    body = client.get(url)
    data = _Response(url, body).json()
    if not isinstance(data, Mapping) or not isinstance(data.get("facts"), Mapping):
        raise FetchError(f"{url}: not a companyfacts object (no 'facts'); not stored")
    path = out / COMPANYFACTS_FOLDER / f"CIK{cik}.json"
    if os.path.lexists(path):
        try:
            existing = read_data_file(path).data
        except SourceFileError as exc:
            raise FetchError(f"{exc}; left as it is") from None
        if existing == body:
            return "unchanged"
        if not overwrite:
            return f"kept existing {path.name} (differs from the server's; --overwrite replaces it)"
        _write(path, body)
        return "replaced"
    _write(path, body)
    return "written"


def _downloader(name: str, email: str, out: Path, client: SecClient) -> Any:
    """sec-edgar-downloader's ``Downloader`` (it reads the ticker mapping at once)."""
    from sec_edgar_downloader._Downloader import Downloader

    try:
        return Downloader(name, email, out)
    except (KeyError, IndexError, TypeError, ValueError, AttributeError) as exc:
        raise FetchError(f"{client.www_base}{CIK_MAPPING_PATH}: unexpected ticker mapping "
                         f"data ({type(exc).__name__}: {exc})") from None


def fetch_sec(tickers: Sequence[str], years: Sequence[int], out: Path, user_agent: str, *,
              client: SecClient | None = None, overwrite: bool = False,
              progress: Callable[[str], None] | None = None) -> FetchReport:
    """Download the 10-Ks of ``years`` and the companyfacts JSON of each ticker into ``out``.

    Raises :class:`FetchError` (one line, naming the URL) on a network or server error, an
    unknown ticker or a User-Agent without an email address.
    """
    name, email = parse_user_agent(user_agent)
    if not years:
        raise FetchError("--years: no fiscal year given")
    client = client or SecClient(user_agent)
    out = Path(out)
    _prepare_out(out)
    window = filing_date_range(years)
    report = FetchReport(out)
    started = time.monotonic()
    saved: list[Path] = []
    with redirected_downloader(client, saved, out.resolve() / FILINGS_FOLDER):
        downloader = _downloader(name, email, out.resolve(), client)
        mapping: Mapping[str, str] = downloader.ticker_to_cik_mapping
        for ticker in tickers:
            cik = ticker if ticker.isdigit() else mapping.get(ticker)
            if cik is None:
                raise FetchError(f"unknown ticker {ticker!r}: not in "
                                 f"{client.www_base}{CIK_MAPPING_PATH}")
            result = CompanyResult(ticker, cik)
            if progress:
                progress(f"{ticker}: 10-K filings for fiscal years {years[0]}-{years[-1]}")
            submissions_url = client.data_base + SUBMISSIONS_PATH.format(cik=cik)
            result.skipped = _skip_other_years(
                client.get_json(submissions_url, keep=True), years, window)
            before = len(saved)
            failures = len(client.failures)
            # The downloader prints (to stdout) and skips a filing whose download failed:
            # silence that and report the first failure as an error instead.
            try:
                with contextlib.redirect_stdout(io.StringIO()):
                    count = downloader.get(FORM, ticker, after=window[0], before=window[1],
                                           download_details=True,
                                           accession_numbers_to_skip=set(result.skipped))
            except (KeyError, IndexError, TypeError, ValueError, AttributeError) as exc:
                raise FetchError(f"{submissions_url}: unexpected submissions data "
                                 f"({type(exc).__name__}: {exc})") from None
            if len(client.failures) > failures:
                raise FetchError(client.failures[failures])
            result.downloaded = sorted({p.parent.name for p in saved[before:]})
            result.kept = max(0, int(count) - len(result.downloaded))
            result.companyfacts = _save_companyfacts(client, cik, out, overwrite)
            report.companies.append(result)
    report.requests = client.requests
    report.seconds = time.monotonic() - started
    return report
