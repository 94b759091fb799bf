"""Headless Chromium for table rendering: finding it, launching it, and a sealed page context.

Which Chromium (first that exists wins):

1. ``HOPVISTA_CHROMIUM``: a path to a Chromium / Chrome executable. When set, it is the only
   candidate: a bad value is a :class:`~hopvista.errors.UserError` naming the variable.
2. ``chromium``, ``chromium-browser`` or ``google-chrome`` on ``PATH``.
3. A Playwright-managed Chromium (``playwright install chromium``), launched without an
   executable path.

Nothing here hard-codes a machine path. The context made by :func:`new_context` runs no
JavaScript, uses a fixed viewport and scale factor, and aborts every network request (the
table is set with ``page.set_content`` and uses system fonts through fontconfig, so nothing
needs the network).

Playwright's sync API must be started *after* ``fork`` and used from one thread; each worker
process owns its own browser.

Signals and lifetime: Playwright's driver (Node) starts Chromium detached, in a session of its
own, so a terminal's Ctrl-C never reaches the browser. The driver itself runs in gen's process
group (Playwright offers no way to start it elsewhere) but ignores SIGINT, and
:func:`launch_browser` turns off its close-every-browser-on-SIGINT handler: an interrupt is
gen's to handle. When gen dies, however it dies, the driver sees its stdin close, closes the
browsers and deletes their profiles (``playwright_chromiumdev_profile-*`` in ``$TMPDIR``).
Playwright's sync API must not be interrupted halfway through a call: run calls that may meet
a signal inside :func:`uninterrupted`.
"""

from __future__ import annotations

import contextlib
import glob
import os
import re
import shutil
import signal
import subprocess
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

from playwright.sync_api import Browser, BrowserContext, CDPSession, Playwright, Route
from playwright.sync_api import Error as PlaywrightError

from hopvista.errors import UserError
from hopvista.themes.fonts import fontconfig_env

ENV_VAR = "HOPVISTA_CHROMIUM"
PATH_NAMES: tuple[str, ...] = ("chromium", "chromium-browser", "google-chrome")

# ENVIRONMENT.md's flags, plus those that keep pixels independent of the machine: no hinting,
# sRGB output, no scrollbars, greyscale antialiasing, no CPU-specific Skia code paths.
LAUNCH_ARGS: tuple[str, ...] = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--disable-extensions",
    "--disable-default-apps",
    "--mute-audio",
    "--font-render-hinting=none",
    "--force-color-profile=srgb",
    "--hide-scrollbars",
    "--disable-lcd-text",
    "--disable-skia-runtime-opts",
    # Memory, not pixels: no separate GPU process; no omnibox-popup WebUI renderers (new
    # headless is the full browser, which starts two per context; ~100 MB a browser); one
    # renderer process for the pages of a context; and a V8 heap of at most 128 MB per page,
    # which plotly's page would otherwise fill with garbage before collecting it (its peak
    # was ~50 MB higher; a chart of a few series needs a fraction of that heap), grown in
    # small steps (V8's low-memory settings: the renderer ~60 MB smaller after 400 items of
    # a build, no slower). ``TableRenderer.collect_garbage`` bounds the rest.
    "--in-process-gpu",
    "--renderer-process-limit=1",
    "--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup",
    "--js-flags=--max-old-space-size=128 --optimize-for-size",
)

INSTALL_HINT = (
    "install Chromium (Debian/Ubuntu: apt-get install chromium), "
    f"set {ENV_VAR} to a Chromium executable, or run 'playwright install chromium'"
)


@dataclass(frozen=True)
class Candidate:
    """One way to launch Chromium: an executable path, or ``None`` for Playwright's own."""

    executable: str | None
    origin: str


def candidates() -> list[Candidate]:
    """The launch candidates in order of preference (see the module docstring).

    Raises ``UserError`` when ``HOPVISTA_CHROMIUM`` is set but is not an executable file.
    """
    override = os.environ.get(ENV_VAR)
    if override:
        path = shutil.which(override) if os.sep not in override else override
        if not path or not os.path.isfile(path) or not os.access(path, os.X_OK):
            raise UserError(
                f"{ENV_VAR}={override!r} is not an executable file: "
                "point it at a Chromium executable or unset it"
            )
        return [Candidate(path, f"{ENV_VAR}={override}")]
    found: list[Candidate] = []
    for name in PATH_NAMES:
        path = shutil.which(name)
        if path and all(c.executable != path for c in found):
            found.append(Candidate(path, f"{name} on PATH"))
    found.append(Candidate(None, "Playwright-managed Chromium"))
    return found


def playwright_chromium() -> str | None:
    """The newest Chromium that ``playwright install chromium`` left, if any."""
    root = os.environ.get("PLAYWRIGHT_BROWSERS_PATH") or str(
        Path.home() / ".cache" / "ms-playwright")
    found = sorted(glob.glob(os.path.join(root, "chromium-*", "chrome-linux*", "chrome")))
    return found[-1] if found else None


def chromium_executable() -> str:
    """A Chromium executable path, for tools that need one (kaleido): the first candidate,
    or Playwright's own install. Raises ``UserError`` saying how to get one."""
    path = find_chromium() or playwright_chromium()
    if path is None:
        raise UserError(f"no Chromium found: {INSTALL_HINT}")
    return path


def find_chromium() -> str | None:
    """The Chromium executable to launch: ``HOPVISTA_CHROMIUM``, else the first on ``PATH``.

    ``None`` means "no executable found: let Playwright use its own install" (pass it as
    ``executable_path``). Raises ``UserError`` on a bad ``HOPVISTA_CHROMIUM``. This does not
    launch anything; :func:`launch_browser` also falls back past a candidate that fails to start.
    """
    return candidates()[0].executable


class _Shared(threading.local):
    playwright: Playwright | None = None
    users: int = 0
    pid: int = -1


_SHARED = _Shared()


DRIVER_NODE_OPTIONS = "--max-semi-space-size=1 --max-old-space-size=128"
"""Node options of the Playwright driver: a young generation of 1 MB and an old one of
128 MB collect the screenshots and DOM snapshots it relays sooner (measured on a two-worker
build: the drivers' peak ~280 MB instead of ~400, no slower)."""


@contextlib.contextmanager
def _driver_options() -> Iterator[None]:
    """``NODE_OPTIONS`` for the driver while it starts (Playwright copies ``os.environ``);
    the user's own options come after ours, so theirs win."""
    before = os.environ.get("NODE_OPTIONS")
    os.environ["NODE_OPTIONS"] = " ".join(filter(None, (DRIVER_NODE_OPTIONS, before)))
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("NODE_OPTIONS", None)
        else:
            os.environ["NODE_OPTIONS"] = before


def acquire_playwright() -> Playwright:
    """This thread's Playwright driver, started on first use and shared (reference-counted).

    Playwright's sync API allows one instance per thread; every renderer in a thread shares it.
    Pair each call with :func:`release_playwright`.
    """
    from playwright.sync_api import sync_playwright

    if _SHARED.playwright is None or _SHARED.pid != os.getpid():
        with _driver_options():
            _SHARED.playwright = sync_playwright().start()
        _SHARED.users = 0
        _SHARED.pid = os.getpid()
    _SHARED.users += 1
    return _SHARED.playwright


def release_playwright() -> None:
    """Give back :func:`acquire_playwright`'s driver; the last user stops it."""
    if _SHARED.playwright is None or _SHARED.pid != os.getpid():
        return
    _SHARED.users -= 1
    if _SHARED.users <= 0:
        playwright, _SHARED.playwright, _SHARED.users = _SHARED.playwright, None, 0
        playwright.stop()


STARTUP_CRASH = "has been closed"
"""What Playwright says when Chromium died while it started: seen on a loaded machine, and
tried once more."""


def launch_browser(playwright: Playwright, extra_args: tuple[str, ...] = ()) -> Browser:
    """Launch headless Chromium from the first candidate that starts (a candidate that
    crashes while starting is tried twice).

    Raises ``UserError`` saying what to install or set when none does.
    """
    errors: list[str] = []
    for candidate in candidates():
        for attempt in (1, 2):
            try:
                return playwright.chromium.launch(
                    executable_path=candidate.executable,
                    headless=True,
                    args=[*LAUNCH_ARGS, *extra_args],
                    # Fonts from the system's fontconfig setup only, never the user's own
                    # fonts or settings: the same packages draw the same pixels everywhere.
                    env={**os.environ, **fontconfig_env()},
                    # Ctrl-C is gen's to handle: the driver shares gen's process group, and
                    # by default it closes every browser on SIGINT (then exits), even when
                    # gen ignores SIGINT. SIGTERM / SIGHUP keep Playwright's graceful close.
                    handle_sigint=False,
                )
            except PlaywrightError as exc:
                message = exc.message or str(exc)
                if attempt == 1 and STARTUP_CRASH in message:
                    continue
                lines = message.strip().splitlines()
                detail = lines[0] if lines else "failed to start"
                if candidate.origin.startswith(ENV_VAR):
                    raise UserError(
                        f"cannot launch Chromium from {candidate.origin}: {detail}; "
                        f"point {ENV_VAR} at a working Chromium executable or unset it"
                    ) from None
                errors.append(f"{candidate.origin}: {detail}")
                break
    raise UserError(f"no usable Chromium ({'; '.join(errors)}): {INSTALL_HINT}")


_HELD_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP")
                      if hasattr(signal, name))

SignalHandler = Callable[[int, FrameType | None], Any]


@contextlib.contextmanager
def uninterrupted() -> Iterator[None]:
    """Hold this process's signal handlers off for the block (main thread only).

    An exception that a handler raises inside a Playwright call (Ctrl-C's ``KeyboardInterrupt``,
    gen's SIGTERM exception) abandons the request while the driver still answers it: Playwright
    then logs "Cannot find command to respond" with a traceback. A signal that arrives in the
    block is handled when the block ends (also when it raised); a second one at once.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    handlers: dict[int, SignalHandler] = {}
    for signum in _HELD_SIGNALS:
        handler = signal.getsignal(signum)
        if callable(handler):
            handlers[signum] = handler
    held: list[tuple[int, FrameType | None]] = []

    def deliver() -> None:
        pending = held[:]
        held.clear()
        for signum, frame in pending:
            handlers[signum](signum, frame)

    def hold(signum: int, frame: FrameType | None) -> None:
        held.append((signum, frame))
        if len(held) > 1:  # asked twice: do not wait any longer
            deliver()

    for signum in handlers:
        signal.signal(signum, hold)
    try:
        yield
    finally:
        for signum, handler in handlers.items():
            signal.signal(signum, handler)
        deliver()


RequestHook = Callable[[str], None]


def new_context(
    browser: Browser,
    viewport: tuple[int, int] = (1280, 1024),
    device_scale_factor: float = 1.0,
    on_request: RequestHook | None = None,
    scripts: bool = False,
) -> BrowserContext:
    """A sealed context: no JavaScript, fixed viewport and scale, every request aborted.

    ``on_request`` is called with the URL of every request the page attempts (all of them are
    aborted); use it to count or log attempts. With ``scripts``, a page of the context runs
    JavaScript until :func:`no_scripts` turns it off: pages that need scripts (plotly's) and
    pages that must not run any (tables) then share one renderer process.
    """
    context = browser.new_context(
        java_script_enabled=scripts,
        viewport={"width": viewport[0], "height": viewport[1]},
        device_scale_factor=device_scale_factor,
        color_scheme="light",
        reduced_motion="reduce",
        forced_colors="none",
        locale="en-US",
        timezone_id="UTC",
        service_workers="block",
        accept_downloads=False,
        offline=True,
    )

    def abort(route: Route) -> None:
        if on_request is not None:
            on_request(route.request.url)
        route.abort()

    context.route("**/*", abort)
    return context


def no_scripts(cdp: CDPSession) -> None:
    """Turn JavaScript off in the page of ``cdp`` for good (what Playwright does to each page
    of a context made with ``java_script_enabled=False``; it lasts across navigations). Call
    it before the page is given any content."""
    cdp.send("Emulation.setScriptExecutionDisabled", {"value": True})


def chromium_version(browser: Browser | None = None) -> str:
    """Chromium's version string (e.g. ``"156.0.8078.108"``) for the build manifest.

    With ``browser`` given, asks it; otherwise launches one briefly (about half a second).
    """
    if browser is not None:
        return browser.version
    executable = find_chromium()  # a bad HOPVISTA_CHROMIUM fails here
    if executable is not None:
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            shown = subprocess.run([executable, "--version"], capture_output=True, text=True,
                                   timeout=30, check=True).stdout
            match = re.search(r"(\d+\.\d+\.\d+\.\d+)", shown)
            if match:
                return match.group(1)
    playwright = acquire_playwright()
    try:
        launched = launch_browser(playwright)
        try:
            return launched.version
        finally:
            launched.close()
    finally:
        release_playwright()
