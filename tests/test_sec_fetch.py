"""``gen fetch sec`` against a local HTTP server serving recorded responses (never the SEC)."""

from __future__ import annotations

import json
import os
import socket
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from hopvista.cli.main import main
from hopvista.sources.sec import fetch as sec_fetch
from hopvista.sources.sec.fetch import (
    BASE_URL_ENV,
    FetchError,
    RateLimiter,
    SecClient,
    fetch_sec,
    parse_tickers,
    parse_user_agent,
    parse_years,
)

pytestmark = pytest.mark.slow  # a local server and the downloader: the full suite runs them

FIXTURES = Path(__file__).parent / "fixtures" / "sec"
UA = "Hopvista Tests tests@example.com"
CIKS = {"AAPL": "0000320193", "NVDA": "0001045810", "GOOGL": "0001652044"}
#: Per ticker, for fiscal years 2023-2024: the 10-Ks to download, and those to leave alone.
WANTED = {"AAPL": ["0000320193-23-000106", "0000320193-24-000123"],
          "NVDA": ["0001045810-23-000017", "0001045810-24-000029"],
          "GOOGL": ["0001652044-24-000022", "0001652044-25-000014"]}
NOT_WANTED = ["0000320193-25-000079",   # FY2025: filed in the window, other fiscal year
              "0000320193-22-000108",   # filed before the window
              "0000320193-25-000073",   # a 10-Q
              "0001045810-25-000023",   # NVDA FY2025 (ended 2025-01-26)
              "0001652044-23-000016"]   # GOOGL FY2022, filed 2023-02-03


# --- no real network -------------------------------------------------------------------------

_LOCAL = {"127.0.0.1", "localhost", "::1"}


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Refuse (and remember) any connection or DNS lookup that is not the loopback."""
    blocked: list[str] = []
    real_connect = socket.socket.connect
    real_getaddrinfo = socket.getaddrinfo

    def connect(self: socket.socket, address: Any) -> None:
        host = address[0] if isinstance(address, tuple) else str(address)
        if self.family in (socket.AF_INET, socket.AF_INET6) and host not in _LOCAL:
            blocked.append(f"connect {address}")
            raise ConnectionRefusedError(f"real network blocked in tests: {address}")
        real_connect(self, address)

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        name = host.decode() if isinstance(host, bytes) else str(host)
        if name not in _LOCAL:
            blocked.append(f"getaddrinfo {name}")
            raise socket.gaierror(f"real network blocked in tests: {name}")
        return real_getaddrinfo(host, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    yield blocked
    assert not blocked, f"a test tried to reach the real network: {blocked}"


def test_the_network_guard_refuses_the_real_sec(no_network: list[str]) -> None:
    with pytest.raises(OSError):
        urllib.request.urlopen("https://www.sec.gov/files/company_tickers_exchange.json",
                               timeout=5)
    assert no_network == ["getaddrinfo www.sec.gov"]
    no_network.clear()


# --- the recorded SEC ------------------------------------------------------------------------

@dataclass
class Recorded:
    """What the server saw: (monotonic time, path, User-Agent) per request."""

    url: str
    requests: list[tuple[float, str, str]] = field(default_factory=list)
    routes: dict[str, bytes] = field(default_factory=dict)
    redirects: dict[str, str] = field(default_factory=dict)   # path -> Location (302)

    def paths(self) -> list[str]:
        return [path for _, path, _ in self.requests]


def _routes() -> dict[str, bytes]:
    full = (FIXTURES / "fetch_full_submission.txt").read_bytes()
    primary = (FIXTURES / "fetch_primary_document.htm").read_bytes()
    facts = (FIXTURES / "fetch_companyfacts.json").read_bytes()
    routes = {"/files/company_tickers_exchange.json":
              (FIXTURES / "fetch_company_tickers_exchange.json").read_bytes()}
    for cik in CIKS.values():
        submissions = (FIXTURES / f"fetch_submissions_CIK{cik}.json").read_bytes()
        routes[f"/submissions/CIK{cik}.json"] = submissions
        routes[f"/api/xbrl/companyfacts/CIK{cik}.json"] = facts
        recent = json.loads(submissions)["filings"]["recent"]
        for accession, doc in zip(recent["accessionNumber"], recent["primaryDocument"],
                                  strict=True):
            folder = f"/Archives/edgar/data/{int(cik)}/{accession.replace('-', '')}"
            routes[f"{folder}/{accession}.txt"] = full
            routes[f"{folder}/{doc}"] = primary
    return routes


@pytest.fixture
def sec_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[Recorded]:
    """A local stand-in for www.sec.gov and data.sec.gov, found through the environment."""
    recorded = Recorded(url="", routes=_routes())
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            with lock:
                recorded.requests.append(
                    (time.monotonic(), self.path, self.headers.get("User-Agent", "")))
            if self.path in recorded.redirects:
                self.send_response(302)
                self.send_header("Location", recorded.redirects[self.path])
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            body = recorded.routes.get(self.path)
            if body is None:
                self.send_error(404, "Not Found")
                return
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    recorded.url = f"http://127.0.0.1:{server.server_address[1]}"
    monkeypatch.setenv(BASE_URL_ENV, recorded.url)
    try:
        yield recorded
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def _fetch(out: Path, *extra: str, tickers: str = "AAPL,NVDA,GOOGL",
           years: str = "2023-2024", agent: str = UA) -> int:
    return int(main(["fetch", "sec", "--tickers", tickers, "--years", years, "--out", str(out),
                 "--user-agent", agent, *extra]))


# --- the download ----------------------------------------------------------------------------

def test_fetch_writes_the_downloader_layout_and_companyfacts(
        sec_server: Recorded, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sec"
    assert _fetch(out) == 0
    for ticker, accessions in WANTED.items():
        folder = out / "sec-edgar-filings" / ticker / "10-K"
        assert sorted(p.name for p in folder.iterdir()) == accessions
        for accession in accessions:
            assert (folder / accession / "full-submission.txt").read_bytes() == \
                (FIXTURES / "fetch_full_submission.txt").read_bytes()
            assert (folder / accession / "primary-document.html").read_bytes() == \
                (FIXTURES / "fetch_primary_document.htm").read_bytes()
        facts = out / "companyfacts" / f"CIK{CIKS[ticker]}.json"
        assert facts.read_bytes() == (FIXTURES / "fetch_companyfacts.json").read_bytes()
    assert not list(out.rglob(".*")), "temporary files left behind"
    requested = " ".join(sec_server.paths())
    for accession in NOT_WANTED:
        assert accession.replace("-", "") not in requested
    assert all(path in sec_server.routes for path in sec_server.paths())  # no 404
    # one submissions request per company: the downloader reuses the one fetch_sec read
    assert sum(p.startswith("/submissions/") for p in sec_server.paths()) == 3
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("AAPL") and "2 downloaded, 0 kept existing" in lines[0]
    assert "companyfacts: written" in lines[0]
    assert lines[-1].startswith("fetched 3 companies") and "6 10-K filings downloaded" \
        in lines[-1]


def test_fetched_files_take_their_mode_from_the_users_umask(
        sec_server: Recorded, tmp_path: Path) -> None:
    out = tmp_path / "sec"
    previous = os.umask(0o027)
    try:
        assert _fetch(out, tickers="AAPL", years="2024") == 0
    finally:
        os.umask(previous)
    files = [p for p in out.rglob("*") if p.is_file()]
    assert files and all(p.stat().st_mode & 0o777 == 0o640 for p in files)


def test_every_request_carries_the_user_agent_and_respects_the_rate_limit(
        sec_server: Recorded, tmp_path: Path) -> None:
    assert _fetch(tmp_path / "sec") == 0
    agents = {agent for _, _, agent in sec_server.requests}
    assert agents == {UA}
    times = sorted(t for t, _, _ in sec_server.requests)
    assert len(times) == 19          # mapping + 3 x (submissions + 4 documents + companyfacts)
    busiest = max(sum(1 for u in times if t <= u < t + 1.0) for t in times)
    assert busiest <= 10, f"{busiest} requests within one second"


def test_a_second_run_keeps_everything_and_downloads_no_filing(
        sec_server: Recorded, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sec"
    assert _fetch(out) == 0
    capsys.readouterr()
    before = {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()}
    sec_server.requests.clear()
    assert _fetch(out) == 0
    assert not any(p.startswith("/Archives/") for p in sec_server.paths())
    assert {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()} == before
    lines = capsys.readouterr().out.splitlines()
    assert "0 downloaded, 2 kept existing" in lines[0]
    assert "companyfacts: unchanged" in lines[0]


def test_different_existing_companyfacts_are_kept_unless_overwrite(
        sec_server: Recorded, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sec"
    mine = out / "companyfacts" / "CIK0000320193.json"
    mine.parent.mkdir(parents=True)
    mine.write_text('{"cik": 320193, "facts": {}}')
    assert _fetch(out, tickers="AAPL") == 0
    assert mine.read_text() == '{"cik": 320193, "facts": {}}'
    assert "kept existing CIK0000320193.json" in capsys.readouterr().out
    assert _fetch(out, "--overwrite", tickers="AAPL") == 0
    assert mine.read_bytes() == (FIXTURES / "fetch_companyfacts.json").read_bytes()
    assert "companyfacts: replaced" in capsys.readouterr().out


def test_the_api_takes_base_urls_as_parameters(
        sec_server: Recorded, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(BASE_URL_ENV)
    client = SecClient(UA, www_base=sec_server.url, data_base=sec_server.url + "/")
    report = fetch_sec(["NVDA"], [2024], tmp_path, UA, client=client)
    assert [c.downloaded for c in report.companies] == [["0001045810-24-000029"]]
    assert report.companies[0].skipped == ["0001045810-25-000023"]   # FY2023: before window
    assert report.requests == len(sec_server.requests) == 5


def test_the_downloader_is_restored_afterwards(sec_server: Recorded, tmp_path: Path) -> None:
    from sec_edgar_downloader import _orchestrator, _sec_gateway

    patched = [(_orchestrator, "URL_FILING"), (_orchestrator, "URL_SUBMISSIONS"),
               (_orchestrator, "save_document"), (_sec_gateway, "URL_CIK_MAPPING"),
               (_sec_gateway, "_call_sec")]
    before = [getattr(module, name) for module, name in patched]
    assert _fetch(tmp_path / "sec", tickers="NVDA") == 0
    assert [getattr(module, name) for module, name in patched] == before
    assert str(before[3]).startswith("https://www.sec.gov/")   # URL_CIK_MAPPING


# --- errors: exit 2, one line ----------------------------------------------------------------

def _one_line_error(capsys: pytest.CaptureFixture[str]) -> str:
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert "Traceback" not in captured.err
    return lines[0]


def test_a_user_agent_without_email_is_refused_before_any_request(
        sec_server: Recorded, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        _fetch(tmp_path / "sec", agent="Hopvista Tests")
    assert exit_info.value.code == 2
    line = _one_line_error(capsys)
    assert "--user-agent" in line and "email" in line
    assert sec_server.requests == []
    assert not (tmp_path / "sec").exists()


def test_an_unreachable_server_is_one_line_naming_the_url(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as probe:                    # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv(BASE_URL_ENV, f"http://127.0.0.1:{port}")
    assert _fetch(tmp_path / "sec") == 2
    line = _one_line_error(capsys)
    assert line.startswith("gen: error: cannot download ")
    assert f"http://127.0.0.1:{port}/files/company_tickers_exchange.json" in line
    assert "refused" in line.lower()


def test_a_missing_document_is_one_line_naming_the_url(
        sec_server: Recorded, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gone = "/Archives/edgar/data/1045810/000104581024000029/nvda-20240128.htm"
    del sec_server.routes[gone]
    assert _fetch(tmp_path / "sec", tickers="NVDA") == 2
    line = _one_line_error(capsys)
    assert line == f"gen: error: cannot download {sec_server.url}{gone}: HTTP 404 Not Found"
    assert capsys.readouterr().out == ""          # the downloader's own print is silenced


def test_an_unknown_ticker_is_one_line(
        sec_server: Recorded, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _fetch(tmp_path / "sec", tickers="AAPL,ZZZZ") == 2
    line = _one_line_error(capsys)
    assert "unknown ticker 'ZZZZ'" in line and "company_tickers_exchange.json" in line


def test_urls_outside_the_bases_are_refused(sec_server: Recorded) -> None:
    client = SecClient(UA)
    with pytest.raises(FetchError, match="refusing https://www.sec.gov/"):
        client.get("https://www.sec.gov/files/company_tickers_exchange.json")
    assert sec_server.requests == []


# --- pieces ----------------------------------------------------------------------------------

def test_rate_limiter_allows_ten_per_second() -> None:
    now = [0.0]
    sleeps: list[float] = []

    def sleep(seconds: float) -> None:
        sleeps.append(seconds)
        now[0] += seconds

    limiter = RateLimiter(10, clock=lambda: now[0], sleep=sleep)
    starts = []
    for _ in range(25):
        with limiter.slot():
            starts.append(now[0])
            now[0] += 0.01                          # each request takes 10 ms
    assert sleeps and starts[10] >= starts[0] + 1.0
    assert all(starts[i + 10] - (starts[i] + 0.01) >= 1.0 - 1e-9
               for i in range(len(starts) - 10))


def test_parse_user_agent() -> None:
    assert parse_user_agent("Jane Doe jane.doe@example.com") == ("Jane Doe", "jane.doe@example.com")
    assert parse_user_agent("Acme Corp <ops@acme.io>") == ("Acme Corp", "ops@acme.io")
    for bad in ("Jane Doe", "jane@example.com", "Jane jane@localhost", ""):
        with pytest.raises(FetchError, match="--user-agent"):
            parse_user_agent(bad)


def test_parse_years_and_tickers() -> None:
    assert parse_years("2020-2024") == (2020, 2021, 2022, 2023, 2024)
    assert parse_years("2024, 2021") == (2021, 2024)
    for bad in ("2024-2020", "twenty", "1990"):
        with pytest.raises(FetchError, match="--years"):
            parse_years(bad)
    assert parse_tickers("aapl, nvda,,BRK.B,320193") == ("AAPL", "NVDA", "BRK-B", "0000320193")
    with pytest.raises(FetchError):
        parse_tickers(" , ")


def test_filing_window_covers_fiscal_year_and_the_next() -> None:
    from datetime import date

    assert sec_fetch.filing_date_range([2020, 2024]) == (date(2020, 1, 1), date(2025, 12, 31))


def test_the_default_bases_are_the_secs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(BASE_URL_ENV, raising=False)
    client = SecClient(UA)
    assert (client.www_base, client.data_base) == ("https://www.sec.gov", "https://data.sec.gov")


def test_an_unexpected_downloader_is_refused(
        sec_server: Recorded, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from sec_edgar_downloader import _orchestrator

    monkeypatch.delattr(_orchestrator, "URL_FILING")
    with pytest.raises(FetchError, match=r"not supported .*_orchestrator\.URL_FILING"):
        fetch_sec(["NVDA"], [2024], tmp_path, UA)
    assert sec_server.requests == []
