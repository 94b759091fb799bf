"""``gen``: the command line. Each subcommand lives in its own module and calls the API."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import NoReturn

from hopvista import __version__
from hopvista.cli import build, fetch, listing, preview, verify
from hopvista.errors import GenerationError, UserError

SUBCOMMANDS = (build, verify, preview, listing, fetch)


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (exit code 2) instead of a usage dump."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def make_parser() -> argparse.ArgumentParser:
    """The full ``gen`` parser."""
    parser = _Parser(prog="gen", description="Generate and check multimodal multi-hop "
                     "reasoning benchmarks.")
    parser.add_argument("--version", action="version", version=f"hopvista {__version__}")
    subparsers = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for module in SUBCOMMANDS:
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``gen``; user mistakes print one line and return 2."""
    args = make_parser().parse_args(argv)
    try:
        code: int = args.run(args)
    except UserError as exc:
        print(f"gen: error: {exc}", file=sys.stderr)
        return 2
    except GenerationError as exc:
        print(f"gen: generation failed: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("gen: interrupted", file=sys.stderr)
        return 130
    return code


if __name__ == "__main__":
    sys.exit(main())
