"""``gen``: the command line. Each subcommand lives in its own module and calls the API.

Interrupts end the same way however they arrive: one line on stderr and exit code 128 + the
signal's number (130 for Ctrl-C, 143 for SIGTERM, 129 for SIGHUP), never a traceback. SIGINT
raises ``KeyboardInterrupt`` and SIGTERM / SIGHUP raise :class:`Terminated` in the main thread,
so every ``finally`` runs: browsers close, worker processes end, staging folders go. A signal
that gen inherited as ignored (``nohup``, a shell trap) stays ignored. A second signal while
gen is cleaning up ends it at once, with the same one line; its children still end (see
:mod:`hopvista.building.workers` and :mod:`hopvista.render.browser`).
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from types import FrameType
from typing import Any, NoReturn

from hopvista.cli import (
    audit,
    augment,
    build,
    evaluate,
    export,
    fetch,
    listing,
    markup,
    merge,
    new_domain,
    preview,
    report,
    schema,
    verify,
)
from hopvista.cli.arguments import excerpt_long_words
from hopvista.errors import GenerationError, UserError, one_line
from hopvista.version import __version__

SUBCOMMANDS = (build, merge, markup, verify, augment, audit, evaluate, export, report, preview,
               listing, fetch, schema, new_domain)

Handler = Callable[[int, FrameType | None], Any] | int | None


class Terminated(SystemExit):
    """SIGTERM or SIGHUP, raised in the main thread so that cleanup code runs.

    A ``SystemExit`` (code 128 + signal number): no ``except Exception`` swallows it, asyncio
    passes it through its callbacks, and if it ever escapes it exits quietly with that code.
    """

    def __init__(self, signum: int) -> None:
        super().__init__(128 + signum)
        self.signum = signum


def interrupt_message(signum: int) -> str:
    """The one line gen prints when signal ``signum`` stops it."""
    if signum == signal.SIGINT:
        return "gen: interrupted"
    return f"gen: terminated by {signal.Signals(signum).name}"


def _handled_signals() -> list[int]:
    names = ("SIGINT", "SIGTERM", "SIGHUP")
    return [getattr(signal, name) for name in names if hasattr(signal, name)]


class _InterruptGuard:
    """Signal handlers: the first signal raises; later ones end the process without cleanup."""

    def __init__(self) -> None:
        self.caught: int | None = None
        self.reported = False
        self._previous: dict[int, Handler] = {}

    def install(self) -> None:
        """Handle each signal whose disposition is still the default (ignored ones stay so)."""
        for signum in _handled_signals():
            current = signal.getsignal(signum)
            if current in (signal.SIG_DFL, signal.default_int_handler):
                self._previous[signum] = current
                signal.signal(signum, self._handle)

    def restore(self) -> None:
        """Put the handlers found by :meth:`install` back."""
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
        self._previous.clear()

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.caught is None:
            self.caught = signum
            # The signal may land inside an asyncio task (Playwright starting its driver):
            # the task then ends with the exception raised here, and asyncio would print its
            # traceback as "never retrieved" when the task is collected.
            logging.getLogger("asyncio").disabled = True
            if signum == signal.SIGINT:
                raise KeyboardInterrupt
            raise Terminated(signum)
        # Already stopping: do not wait for the cleanup. Children end with gen (their pipes
        # close; pool workers get SIGTERM from the kernel when their parent dies).
        if not self.reported:
            print(interrupt_message(self.caught), file=sys.stderr, flush=True)
        os._exit(128 + self.caught)


@contextmanager
def _interrupts_raised() -> Iterator[_InterruptGuard]:
    """Install :class:`_InterruptGuard` for the block (main thread only).

    After an interrupt the handlers stay: a further signal while the interpreter shuts down
    exits quietly instead of printing a traceback.
    """
    guard = _InterruptGuard()
    if threading.current_thread() is threading.main_thread():
        guard.install()
    try:
        yield guard
    finally:
        if guard.caught is None:
            guard.restore()


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (exit code 2) instead of a usage dump."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {excerpt_long_words(message)}\n")


def make_parser() -> argparse.ArgumentParser:
    """The full ``gen`` parser."""
    parser = _Parser(prog="gen", description="Generate and check multimodal multi-hop "
                     "reasoning benchmarks.")
    parser.add_argument("--version", action="version", version=f"hopvista {__version__}")
    subparsers = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for module in SUBCOMMANDS:
        module.register(subparsers)
    return parser


def _run(args: argparse.Namespace) -> int:
    try:
        code: int = args.run(args)
    except UserError as exc:
        print(f"gen: error: {one_line(str(exc))}", file=sys.stderr)
        return 2
    except GenerationError as exc:
        print(f"gen: generation failed: {one_line(str(exc))}", file=sys.stderr)
        return 1
    return code


EX_SOFTWARE = 70
TRACEBACK_ENV = "HOPVISTA_TRACEBACK"


def _internal_error(exc: Exception) -> int:
    """One line for a bug; the traceback goes to a file (or to stderr with
    ``HOPVISTA_TRACEBACK=1``) so that it can be reported."""
    import tempfile
    import traceback

    text = "".join(traceback.format_exception(exc))
    if os.environ.get(TRACEBACK_ENV):
        print(text, file=sys.stderr, end="")
        return EX_SOFTWARE
    try:
        fd, path = tempfile.mkstemp(prefix="hopvista-crash-", suffix=".txt")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        where = f"the traceback is in {path}"
    except OSError:
        where = f"set {TRACEBACK_ENV}=1 to see the traceback"
    print(f"gen: internal error: {one_line(f'{type(exc).__name__}: {exc}')} (a bug in "
          f"hopvista; {where})", file=sys.stderr)
    return EX_SOFTWARE


def _reader_gone() -> int:
    """The reader of gen's output went away (``gen list | head -1``): stop quietly."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    for stream in (sys.stdout, sys.stderr):
        try:
            os.dup2(devnull, stream.fileno())
        except (OSError, ValueError):  # not a real file (pytest's capture)
            continue
    os.close(devnull)
    return 128 + signal.SIGPIPE


def _tolerant_streams() -> None:
    """Let stdout and stderr show any text, whatever their encoding (``PYTHONIOENCODING=ascii``,
    a C locale): what they cannot encode is escaped, not a crash after the work is done."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors="backslashreplace")
            except (ValueError, OSError):  # a closed or detached stream
                continue


def undecodable_argument(argv: Sequence[str]) -> str | None:
    """The first argument that is not valid UTF-8 (bytes the file system gave back as lone
    surrogates), shown escaped; ``None`` when all are. hopvista writes paths and names into
    UTF-8 files (manifests, Parquet), which such bytes cannot enter."""
    for argument in argv:
        if any("\ud800" <= c <= "\udfff" for c in argument):
            return one_line(argument.encode("utf-8", "backslashreplace").decode("ascii"))
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``gen``; user mistakes print one line and return 2, interrupts 128 + signal."""
    _tolerant_streams()
    bad = undecodable_argument(sys.argv[1:] if argv is None else argv)
    if bad is not None:
        print(f"gen: error: argument {bad}: not valid UTF-8 (rename the file or folder; "
              "hopvista writes paths into UTF-8 files)", file=sys.stderr)
        return 2
    args = make_parser().parse_args(argv)
    with _interrupts_raised() as guard:
        try:
            return _run(args)
        except BrokenPipeError:
            return _reader_gone()
        except Exception as exc:  # a bug in hopvista, not the user's mistake
            return _internal_error(exc)
        except (KeyboardInterrupt, Terminated) as exc:
            signum = exc.signum if isinstance(exc, Terminated) else signal.SIGINT
            guard.caught = guard.caught or signum
            print(interrupt_message(signum), file=sys.stderr, flush=True)
            guard.reported = True
            return 128 + signum


if __name__ == "__main__":
    sys.exit(main())
