"""``gen build DOMAIN``: make a dataset."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import hopvista
from hopvista.cli.arguments import (
    int_at_least,
    levels,
    positive_int,
    positive_number,
    seed_int,
    shard,
    structures,
    years,
)
from hopvista.errors import UserError
from hopvista.llm.settings import (
    DEFAULT_ATTEMPTS,
    DEFAULT_CONCURRENCY,
    DEFAULT_RETRIES,
    DEFAULT_TIMEOUT,
)

MARKUP_DOMAIN = "markup"
"""Not a domain: markup tasks have their own command (``gen markup``)."""


MMTABLES = "mmtables"
"""Multimodal tables: a built-in kind of build with its own options (docs/mmtables.md)."""


def _stderr(text: str) -> None:
    print(f"gen: {text}", file=sys.stderr)


def register(subparsers: Any) -> None:
    """Add ``build`` to the ``gen`` parser."""
    p = subparsers.add_parser("build", help="build a dataset", description=__doc__)
    p.add_argument("domain", help="a built-in domain (see 'gen list'), a pack folder, or "
                                  "mmtables (multimodal tables: docs/mmtables.md)")
    p.add_argument("--hops", type=levels, default=(1, 2, 3), metavar="LEVELS",
                   help="hop levels: 1 (Easy), 2 (Medium), 3 (Hard), a range 1-3 (default) "
                        "or a list 1,3")
    p.add_argument("-n", "--count", type=positive_int, default=48, help="items (default 48)")
    p.add_argument("--seed", type=seed_int, default=0, help="seed of everything random (default 0)")
    p.add_argument("--out", type=Path, default=None,
                   help="output folder (default: ./out/DOMAIN)")
    p.add_argument("--workers", type=positive_int, default=1,
                   help="processes (default 1); the output does not depend on it")
    p.add_argument("--source", default=None, help="data source (default: the domain's own)")
    p.add_argument("--data", default=None, metavar="DIR",
                   help="data folder of a file-based source (sec: what 'gen fetch sec' wrote)")
    p.add_argument("--years", type=years, default=None, metavar="FIRST-LAST",
                   help="window of periods: fiscal years (2020-2024), temperatures in K "
                        "(300-600), ... (default: the source's)")
    p.add_argument("--periods", type=int_at_least(2, "at least 2"), default=None,
                   help="periods per instance (default: the domain's, 5 for financial)")
    p.add_argument("--structure", dest="structures", type=structures, default=(),
                   metavar="TYPES",
                   help="show tables as simple, text-mixed (values stated in sentences), "
                        "complex (multi-level header, merged cells), long (many entities) or "
                        "multi-table (2-5 related tables), comma-separated: shares balanced "
                        "by the plan; items then record their attributes (docs/format.md)")
    p.add_argument("--no-images", dest="images", action="store_false",
                   help="skip rendering: items.jsonl and Parquet without table/chart images")
    p.add_argument("--no-defences", dest="defences", action="store_false",
                   help="leave out what defeats proxy solvers: a deliberately leaky dataset, "
                        "for testing 'gen audit' (see docs/audit.md)")
    p.add_argument("--overwrite", action="store_true",
                   help="replace an earlier hopvista dataset in --out")
    p.add_argument("--shard", type=shard, default=None, metavar="I/N",
                   help="build only the I-th of N slices (1 <= I <= N) of the plan, for "
                        "'gen merge' to join into the dataset a single build makes")
    p.add_argument("--executor", choices=("local", "ray"), default="local",
                   help="local (default): --workers processes here; ray: the build's shards "
                        "as Ray tasks (pip install 'hopvista[ray]'), merged into --out")
    p.add_argument("--address", default=None,
                   help="ray: the cluster to join (e.g. ray://head:10001; default: a local "
                        "Ray of --workers CPUs)")
    p.add_argument("--shards", type=positive_int, default=None,
                   help="ray: how many shards (default: the cluster's CPUs)")
    llm = p.add_argument_group("paraphrase stage (docs/llm.md)")
    llm.add_argument("--paraphrase", default=None, metavar="MODEL",
                     help="paraphrase every statement with MODEL (openai:NAME: any "
                          "OpenAI-compatible server); needs --judge")
    llm.add_argument("--judge", default=None, metavar="MODEL",
                     help="keep a paraphrase only when MODEL finds its meaning unchanged "
                          "(best another model than --paraphrase)")
    llm.add_argument("--paraphrase-url", default=None, metavar="URL",
                     help="the paraphrasing model's server (default: OPENAI_BASE_URL, else "
                          "OpenAI's), e.g. http://localhost:8000/v1 for vLLM")
    llm.add_argument("--judge-url", default=None, metavar="URL",
                     help="the judge's server (key: HOPVISTA_JUDGE_API_KEY if set, else "
                          "OPENAI_API_KEY)")
    llm.add_argument("--llm-cache", default=None, metavar="DIR",
                     help="where answers are cached (default: $XDG_CACHE_HOME/hopvista/llm or "
                          "~/.cache/hopvista/llm); a rerun asks nothing twice")
    llm.add_argument("--llm-concurrency", type=positive_int, default=DEFAULT_CONCURRENCY,
                     metavar="N", help=f"items whose requests are in flight at once (default "
                                       f"{DEFAULT_CONCURRENCY})")
    llm.add_argument("--llm-attempts", type=positive_int, default=DEFAULT_ATTEMPTS,
                     metavar="K", help=f"attempts per statement before it keeps its template "
                                       f"text (default {DEFAULT_ATTEMPTS})")
    llm.add_argument("--llm-timeout", type=positive_number, default=DEFAULT_TIMEOUT,
                     metavar="SECONDS", help=f"how long one request may take before it is "
                                             f"retried (default {DEFAULT_TIMEOUT:g})")
    llm.add_argument("--llm-retries", type=int_at_least(0, "0 or more"),
                     default=DEFAULT_RETRIES, metavar="N",
                     help=f"retries of a request that timed out, got 429 or a server error, "
                          f"honouring Retry-After (default {DEFAULT_RETRIES})")
    llm.add_argument("--prices", default=None, metavar="FILE",
                     help="price table (YAML or JSON: {NAME: {input: 2.5, output: 10}}, "
                          "dollars per million tokens) instead of the built-in one")
    llm.add_argument("--llm-estimate", action="store_true",
                     help="print the requests, tokens and cost the paraphrase stage would "
                          "need, and write nothing")
    facts = p.add_argument_group("LLM facts (docs/llm.md)")
    facts.add_argument("--llm-facts", default=None, metavar="MODEL",
                       help="also take facts for FC statements that MODEL (openai:NAME) "
                            "extracts from each text chunk, kept only where the chunk proves "
                            "them; --llm-cache, --llm-concurrency, --llm-timeout and --prices "
                            "apply")
    facts.add_argument("--facts-url", default=None, metavar="URL",
                       help="the fact-extracting model's server (default: OPENAI_BASE_URL, "
                            "else OpenAI's)")
    facts.add_argument("--llm-facts-only", action="store_true",
                       help="use only the facts --llm-facts extracts, not the rule-based ones")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Build and report where the dataset went."""
    out: Path = args.out or Path("out") / Path(args.domain).name
    if args.domain == MARKUP_DOMAIN and not (Path(args.domain) / "domain.yaml").is_file():
        raise UserError(f"{MARKUP_DOMAIN!r} is not a domain: markup tasks have their own "
                        f"command, 'gen markup' (see 'gen markup --help')")
    llm: dict[str, Any] = {"paraphrase": args.paraphrase, "judge": args.judge,
           "paraphrase_url": args.paraphrase_url, "judge_url": args.judge_url,
           "llm_cache": args.llm_cache, "llm_concurrency": args.llm_concurrency,
           "llm_attempts": args.llm_attempts, "llm_timeout": args.llm_timeout,
           "llm_retries": args.llm_retries,
           "prices": args.prices}
    if args.llm_estimate:
        estimate = hopvista.estimate_paraphrases(
            args.domain, hops=args.hops, count=args.count, seed=args.seed,
            source=args.source, data=args.data, years=args.years, periods=args.periods,
            defences=args.defences, workers=args.workers, progress=sys.stderr.isatty(), **llm)
        print(estimate.text())
        return 0
    manifest = hopvista.build(
        args.domain, out, hops=args.hops, count=args.count, seed=args.seed,
        source=args.source, data=args.data, years=args.years, periods=args.periods,
        images=args.images, workers=args.workers, overwrite=args.overwrite,
        progress=sys.stderr.isatty(), defences=args.defences, shard=args.shard,
        executor=args.executor, address=args.address, shards=args.shards,
        llm_facts=args.llm_facts, facts_url=args.facts_url, llm_facts_only=args.llm_facts_only,
        structures=args.structures, notice=_stderr, **llm)
    if manifest.get("kind") == MMTABLES:
        shares = manifest["shares"]
        print(f"wrote {manifest['counts']['items']} items to {out} (archetypes "
              f"{shares['archetypes']}, question types {shares['question_types']})")
        return 0
    if args.shard:
        info = manifest["shard"]
        print(f"wrote shard {info['index']}/{info['of']} (items {info['first']}-"
              f"{info['stop'] - 1}, {manifest['counts']['items']} items) to {out}; join the "
              "shards with gen merge")
        return 0
    shares = manifest["shares"]
    print(f"wrote {manifest['counts']['items']} items to {out} "
          f"(levels {shares['levels']}, answers {shares['answers']})")
    return 0
