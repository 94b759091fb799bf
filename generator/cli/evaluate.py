"""``gen eval DATASET --model MODEL --out RUN``: score a model (or a baseline) on a dataset.

Exit 0: the run is complete (failed requests and malformed replies are errors of their
items, counted in the summary; rerunning the command asks them again). Exit 2, with one line
and nothing written: a bad option or ``--base-url`` (checked before anything is asked), a
dataset that cannot be read, a setting the dataset cannot give (images it does not have), a
prompt template that fails, an ``--out`` or ``--cache`` that is a file, lies inside a dataset
or cannot be reached, a run folder that holds something else or another run's answers, or
one another ``gen eval`` is writing. Exit 2 too when the disk fills or a folder is read-only
during the run (the answers cached so far are kept). See :mod:`hopvista.eval.runner`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import hopvista
from hopvista.cli.arguments import positive_int
from hopvista.errors import excerpt, one_line
from hopvista.eval import MAX_CONCURRENCY
from hopvista.eval.papers import PAPER_METRICS
from hopvista.eval.prompts import DEFAULT_SETTING, SETTINGS
from hopvista.eval.stages import PROTOCOLS
from hopvista.eval.table_text import TABLE_FORMATS

DESCRIPTION = """Ask MODEL about every item of DATASET (or the first N), parse and score the
answers, and write the run folder: run.json, results.jsonl, summary.json, report.html, and a
cache of every answer (a rerun into the same folder asks only what is missing). Everything is
checked before anything is written; one gen eval at a time per run folder; the API key is
redacted from everything written, answers included.

models: openai:NAME (any OpenAI-compatible endpoint: --base-url or OPENAI_BASE_URL, key from
OPENAI_API_KEY), random, majority, oracle, human (a person answers on a page served on
127.0.0.1: the address is printed; Ctrl-C stops, the same command goes on), and any model a
plug-in registers.
settings: interleaved, table-json (default), chart-as-table (the chart's exact data: the upper
bound of reading it), chart-derendered (the chart as a chart-to-table reader read it:
--derenderer), no-chart, image-only.
strategies: cot (default), direct, four-stage, modality-integration, four-stage-integrated,
one-shot, self-refine; joined with + (four-stage-integrated+self-refine). --protocol stages
asks its own prompt: it takes no other strategy and no --table-format.
error classes: --error-classes sorts the wrong answers into FCMR's and MMTabReal's classes
where a rule decides them; --judge openai:MODEL labels the rest (docs/eval.md)."""


def _concurrency(text: str) -> int:
    value = positive_int(text)
    if value > MAX_CONCURRENCY:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_CONCURRENCY}, got {value}")
    return value


def _option(text: str) -> tuple[str, str]:
    key, equals, value = text.partition("=")
    if not equals or not key.strip():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {excerpt(text)}")
    return key.strip(), value.strip()


def register(subparsers: Any) -> None:
    """Add ``eval`` to the ``gen`` parser."""

    p = subparsers.add_parser("eval", help="score a model or a baseline on a dataset",
                              description=DESCRIPTION,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("path", type=Path, help="dataset folder")
    p.add_argument("--model", required=True, metavar="MODEL",
                   help="openai:NAME, random, majority, oracle, ...")
    p.add_argument("--out", type=Path, required=True, metavar="RUN",
                   help="run folder (outside any dataset)")
    p.add_argument("--setting", choices=sorted(SETTINGS), default=DEFAULT_SETTING,
                   help=f"how the inputs are shown (default {DEFAULT_SETTING})")
    p.add_argument("--limit", type=positive_int, metavar="N", help="the first N items only")
    p.add_argument("--concurrency", type=_concurrency, default=4, metavar="C",
                   help=f"requests at once (default 4, at most {MAX_CONCURRENCY})")
    p.add_argument("--variants", metavar="A,B", help="only items of these variants")
    p.add_argument("--where", type=_option, action="append", default=[], metavar="FACET=VALUE",
                   help="only items whose FACET (one the summary breaks results down by: "
                        "structure, skill, steps, difficulty, ...) is VALUE; repeat to ask "
                        "for all of several")
    p.add_argument("--base-url", metavar="URL",
                   help="endpoint of an openai:NAME model (http:// or https://, a host)")
    p.add_argument("--option", type=_option, action="append", default=[], metavar="KEY=VALUE",
                   help="a model option: temperature (0-2), max_tokens (>= 1), seed "
                        "(integer), timeout (seconds > 0), max_retries (0-20); for human: "
                        "port (0-65535, default 0: a free one), person (a name)")
    p.add_argument("--prompt", type=Path, metavar="FILE",
                   help="a Jinja2 prompt template instead of the built-in one")
    p.add_argument("--prices", type=Path, metavar="FILE",
                   help="dollars per million tokens by model (YAML or JSON)")
    p.add_argument("--cache", type=Path, metavar="DIR",
                   help="where answers are cached (default RUN/cache)")
    p.add_argument("--metric", choices=sorted(PAPER_METRICS), action="append", default=[],
                   help="also score short answers as a paper's script does: mmtabreal "
                        "(MMTabReal's EM / SS / F1), tablevista (TableVista's exact match); "
                        "repeat for both")
    p.add_argument("--captioner", default="kind", metavar="CAPTIONER",
                   help="what captions the pictures of multimodal tables in the "
                        "image-captioning setting: kind (the default: says only the "
                        "picture's kind, e.g. 'a flag') or openai:MODEL (a vision model at "
                        "--base-url)")
    p.add_argument("--protocol", choices=PROTOCOLS, metavar="PROTOCOL",
                   help="stages: ask each statement's values, their modality, the values "
                        "read and the conclusion as JSON, and grade FCMR's four steps "
                        "(planning, identification, retrieval, reasoning) against the "
                        "programs")
    p.add_argument("--error-classes", action="store_true",
                   help="give every wrong answer FCMR's and MMTabReal's error classes where a "
                        "rule decides them (also after the fact: rerun into the same --out, "
                        "nothing is asked again)")
    p.add_argument("--judge", metavar="openai:MODEL",
                   help="a model (at --judge-url, else --base-url) that labels the wrong "
                        "answers no rule classifies (implies --error-classes; its replies "
                        "cached and costed)")
    p.add_argument("--judge-url", metavar="URL",
                   help="the judge's endpoint, when it is not the model's --base-url (key "
                        "from OPENAI_API_KEY)")
    p.add_argument("--derenderer", default="ocr", metavar="READER",
                   help="what reads the chart into a table in the chart-derendered setting: "
                        "ocr (the default, offline: the words OCR finds in the chart image, "
                        "line by line, not the marks' values) or openai:MODEL (a vision "
                        "model at --base-url, asked with templates/prompts/derender.j2)")
    p.add_argument("--strategy", default="cot", metavar="NAME",
                   help="the prompt strategy: cot (default: think step by step), direct, "
                        "four-stage, modality-integration, four-stage-integrated, one-shot "
                        "(an example item of the dataset first), self-refine (a second turn "
                        "that critiques and revises), a plug-in's, or several joined with +")
    p.add_argument("--table-format", choices=TABLE_FORMATS, default="json",
                   help="how a setting that shows the table as text writes it (default json)")
    p.add_argument("--seed", type=int, metavar="N",
                   help="what draws the one-shot strategy's examples (default 0)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Evaluate and print the headline figures."""
    bar = None if args.quiet else _bar()
    try:
        summary = hopvista.evaluate(
            args.path, model=args.model, out=args.out, setting=args.setting,
            limit=args.limit, concurrency=args.concurrency,
            variants=args.variants.split(",") if args.variants else None,
            base_url=args.base_url, options=dict(args.option), prompt=args.prompt,
            prices=args.prices, cache=args.cache, metrics=args.metric,
            captioner=args.captioner, protocol=args.protocol,
            error_classes=args.error_classes, judge=args.judge, judge_url=args.judge_url,
            derenderer=args.derenderer, strategy=args.strategy,
            table_format=args.table_format, seed=args.seed, where=args.where, progress=bar,
            notice=_notice)
    finally:
        if bar is not None:
            bar.close()
    acc = summary["accuracy"]
    value = "–" if acc["value"] is None else \
        f"{100 * acc['value']:.1f}% [{100 * acc['low']:.1f}, {100 * acc['high']:.1f}]"
    print(one_line(f"{summary['run']['model']} on {args.path} ({args.setting}): accuracy "
                   f"{value}, {summary['answered']}/{summary['items']} answered, "
                   f"{summary['errors']} errors, {summary['unparseable']} unparseable"
                   + ("" if summary["cost"] is None else f", ${summary['cost']:.4f}")))
    print(one_line(f"wrote {args.out / 'report.html'}"))
    return 0


def _notice(line: str) -> None:
    print(f"gen eval: {one_line(line)}", file=sys.stderr)



class _bar:
    """A tqdm progress bar with the running accuracy and cost, on stderr; drawn from the first
    progress report, so a run refused at its checks shows none."""

    def __init__(self) -> None:
        self._tqdm: Any = None

    def __call__(self, done: int, total: int, accuracy: float | None, cost: float) -> None:
        if self._tqdm is None:
            from tqdm import tqdm

            self._tqdm = tqdm(total=0, unit="item", file=sys.stderr, dynamic_ncols=True,
                              disable=None)
        self._tqdm.total = total
        self._tqdm.n = done
        postfix = {"acc": "–" if accuracy is None else f"{100 * accuracy:.1f}%"}
        if cost:
            postfix["cost"] = f"${cost:.4f}"
        self._tqdm.set_postfix(postfix, refresh=False)
        self._tqdm.refresh()

    def close(self) -> None:
        if self._tqdm is not None:
            self._tqdm.close()
