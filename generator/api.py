"""The Python API: what each ``gen`` command does, as a function (docs/api.md).

    import hopvista
    manifest = hopvista.build("financial", "out/fin", hops=(3,), count=30)
    report = hopvista.verify("out/fin")
    dataset = hopvista.load("out/fin")        # typed items, read lazily

Every function takes keyword arguments (paths as ``str`` or :class:`~pathlib.Path`) and
makes the same checks as its command: a mistake in the user's input raises
:class:`hopvista.errors.UserError` with one line naming the file, field or option (the CLI
prints it and exits with code 2), before anything is written.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from typing import Any

from hopvista.audit import AuditReport, Thresholds
from hopvista.audit.mmtables import audit_dataset
from hopvista.audit.report import report_file
from hopvista.augment import PERTURBATIONS, VARIANTS, Perturbation, Recipe
from hopvista.building.config import BuildConfig
from hopvista.building.distributed import build_on_ray
from hopvista.building.merge import merge
from hopvista.building.pipeline import build as run_build
from hopvista.building.workers import availability
from hopvista.domain import builtin_pack_names, resolve_pack
from hopvista.errors import UserError
from hopvista.eval import MAX_CONCURRENCY
from hopvista.eval.papers import PAPER_METRICS
from hopvista.eval.prices import Prices
from hopvista.eval.prompts import DEFAULT_SETTING, read_template
from hopvista.eval.report import read_run, report_output, write_report
from hopvista.eval.runner import EvalRequest, Notice, Progress, check_where, run_eval
from hopvista.eval.stages import PROTOCOLS
from hopvista.generation.structure import check_structures
from hopvista.harness import ExportResult, export
from hopvista.llm.estimate import Estimate
from hopvista.llm.estimate import estimate as estimate_stage
from hopvista.llm.facts import FactsSettings
from hopvista.llm.settings import (
    DEFAULT_ATTEMPTS,
    DEFAULT_CONCURRENCY,
    DEFAULT_RETRIES,
    DEFAULT_TIMEOUT,
    ParaphraseSettings,
)
from hopvista.markup_tasks.build import build_markup as run_markup
from hopvista.markup_tasks.build import by_family
from hopvista.markup_tasks.subtasks import Subtask
from hopvista.mmtables import build as mmtables_build
from hopvista.model.dataset import Dataset
from hopvista.model.dataset import load as load_dataset
from hopvista.model.schema import json_schema as model_json_schema
from hopvista.output.files import refuse_misplaced
from hopvista.output.preview import write_preview
from hopvista.output.skeleton import write_skeleton
from hopvista.program.statement_types import STATEMENT_TYPES, StatementType
from hopvista.sources import SOURCES
from hopvista.sources.imports import IMPORTERS, Importer
from hopvista.sources.sec.fetch import FetchError, FetchReport, parse_tickers, parse_years
from hopvista.sources.sec.fetch import fetch_sec as download_sec
from hopvista.themes.marks import MarkKind, ordered_kinds
from hopvista.themes.pages import PAGE_TEMPLATES, PageTemplate
from hopvista.themes.tables import TABLE_THEMES, Theme, load_table_themes
from hopvista.themes.visuals import VISUAL_KINDS, VisualKind
from hopvista.variants import DEFAULT_VARIANTS
from hopvista.variants.build import augment, parse_variants
from hopvista.verify.outcome import VerifyReport, verify

__all__ = ["COMMANDS", "DEFAULT_VARIANTS", "MAX_CONCURRENCY", "Catalogue", "VerifyReport", "build",
           "build_markup", "catalogue", "estimate_paraphrases", "evaluate", "export_harness",
           "fetch_sec", "json_schema",
           "load", "make_variants", "merge_shards", "new_domain", "preview", "report", "run_audit",
           "statement_types", "verify"]

StrPath = str | PathLike[str]
"""A path given as text or as a path object."""

def _quiet(text: str) -> None:
    print(f"gen: {text}", file=sys.stderr)


def _path(path: StrPath | None) -> Path | None:
    return None if path is None else Path(path)


def build(domain: str, out: StrPath, *, hops: tuple[int, ...] = (1, 2, 3),
          count: int = 48, seed: int = 0, source: str | None = None,
          data: StrPath | None = None, years: tuple[int, int] | None = None,
          periods: int | None = None, images: bool = True, workers: int = 1,
          overwrite: bool = False, progress: bool = False, defences: bool = True,
          notice: Callable[[str], None] = _quiet, shard: tuple[int, int] | None = None,
          executor: str = "local", address: str | None = None,
          shards: int | None = None, paraphrase: str | None = None,
          judge: str | None = None, paraphrase_url: str | None = None,
          judge_url: str | None = None, llm_cache: StrPath | None = None,
          llm_concurrency: int = DEFAULT_CONCURRENCY, llm_attempts: int = DEFAULT_ATTEMPTS,
          llm_timeout: float = DEFAULT_TIMEOUT, llm_retries: int = DEFAULT_RETRIES,
          prices: StrPath | None = None, llm_facts: str | None = None,
          facts_url: str | None = None, llm_facts_only: bool = False,
          structures: tuple[str, ...] = ()) -> dict[str, Any]:
    """Build the dataset of ``domain`` (a built-in name or a pack folder) into ``out``
    (``gen build``).

    The same arguments give the same bytes whatever ``workers`` is. ``out`` is replaced
    atomically, and only if it holds an earlier hopvista dataset and ``overwrite`` is set.
    Returns the manifest (``manifest.json``); :func:`hopvista.load` reads the items.
    ``defences=False`` leaves out what defeats proxy solvers (a deliberately leaky dataset,
    for testing ``gen audit``). ``shard=(i, n)`` builds the i-th of n slices for
    :func:`merge_shards`; ``executor="ray"`` builds ``shards`` slices as Ray tasks on the
    cluster at ``address`` (a local Ray of ``workers`` CPUs by default) and merges them into
    ``out`` — the same bytes as a local build.

    ``paraphrase="openai:NAME"`` with ``judge="openai:NAME2"`` paraphrases every statement
    (docs/llm.md): two passes by ``paraphrase`` at ``paraphrase_url``, the guard, the judge at
    ``judge_url``; answers are cached in ``llm_cache`` (default ``~/.cache/hopvista/llm``),
    ``llm_concurrency`` items are in flight at once, a rejected statement is asked again up
    to ``llm_attempts`` times, a request may take ``llm_timeout`` seconds and is retried
    ``llm_retries`` times (honouring ``Retry-After``), and ``prices`` (a
    YAML or JSON price table) prices the tokens. Keys come from ``OPENAI_API_KEY`` (the judge's
    from ``HOPVISTA_JUDGE_API_KEY`` when set).

    ``llm_facts="openai:NAME"`` (at ``facts_url``) extracts facts for FC statements from each
    chunk of the world's documents (docs/llm.md, "LLM facts"): a claim is kept only where the
    chunk proves it, beside the rule-based facts (instead of them with ``llm_facts_only``);
    ``llm_cache``, ``llm_concurrency``, ``llm_timeout`` and ``prices`` apply to it too.

    ``structures`` (``("complex", "multi-table")``) shows each item's table in one of these
    structure types, shares balanced by the plan, and records every item's attributes
    (docs/format.md, section 2.6).

    ``domain="mmtables"`` builds multimodal tables (docs/mmtables.md): it takes ``count``,
    ``seed``, ``images``, ``workers``, ``overwrite``, ``progress`` and ``notice``, and refuses
    the other options.
    """
    facts = FactsSettings.make(llm_facts, url=facts_url, only=llm_facts_only,
                               concurrency=llm_concurrency, cache=llm_cache, prices=prices,
                               timeout=llm_timeout, retries=llm_retries)
    if facts is not None and paraphrase is None and judge is None:
        # cache, concurrency, prices, timeout and retries serve fact extraction; the rest is
        # refused
        llm = ParaphraseSettings.make(None, None, paraphrase_url=paraphrase_url,
                                      judge_url=judge_url, attempts=llm_attempts)
    else:
        llm = ParaphraseSettings.make(
            paraphrase, judge, paraphrase_url=paraphrase_url, judge_url=judge_url,
            attempts=llm_attempts, concurrency=llm_concurrency, cache=_path(llm_cache),
            prices=_path(prices), timeout=llm_timeout, retries=llm_retries)
    if prices is not None and llm is None and facts is None:
        raise UserError("--prices applies to the paraphrase stage: give --paraphrase MODEL "
                        "and --judge MODEL")
    if str(domain) == mmtables_build.DOMAIN and not (Path(domain) / "domain.yaml").is_file():
        _refuse_for_mmtables({"--hops": hops != (1, 2, 3), "--source": source is not None,
                              "--data": data is not None, "--years": years is not None,
                              "--periods": periods is not None, "--no-defences": not defences,
                              "--shard": shard is not None, "--executor": executor != "local",
                              "--address": address is not None, "--shards": shards is not None,
                              "--paraphrase": llm is not None,
                              "--llm-facts": facts is not None,
                              "--structure": bool(structures)})
        return mmtables_build.build_mmtables(
            Path(out), count=count, seed=seed,
            images=mmtables_build.TABLE_IMAGES if images else None, workers=workers,
            overwrite=overwrite, progress=progress, notice=notice)
    load_table_themes()  # a theme file it may not use stops the build before any work
    if executor not in ("local", "ray"):
        raise UserError(f"--executor: no executor {executor!r} (executors: local, ray)")
    if executor == "local" and (address or shards):
        raise UserError("--address and --shards apply to --executor ray")
    if executor == "ray" and shard:
        raise UserError("--shard builds one slice here; --executor ray builds them all")
    config = BuildConfig(domain=str(domain), levels=tuple(hops), count=count, seed=seed,
                         source=source, images=images,
                         data=None if data is None else str(data), years=years,
                         periods=periods, defences=defences, llm=llm, facts=facts,
                         structures=tuple(structures))
    check_structures(config.structures, config.pack())
    if executor == "ray":
        return build_on_ray(config, Path(out), address=address, shards=shards,
                            workers=workers, overwrite=overwrite, progress=progress,
                            notice=notice)
    return run_build(config, Path(out), workers=workers, overwrite=overwrite,
                     progress=progress, notice=notice, shard=shard)


def estimate_paraphrases(domain: str, *, hops: tuple[int, ...] = (1, 2, 3), count: int = 48,
                         seed: int = 0, source: str | None = None,
                         data: StrPath | None = None, years: tuple[int, int] | None = None,
                         periods: int | None = None, defences: bool = True, workers: int = 1,
                         progress: bool = False, paraphrase: str | None = None,
                         judge: str | None = None,
                         paraphrase_url: str | None = None, judge_url: str | None = None,
                         llm_cache: StrPath | None = None,
                         llm_concurrency: int = DEFAULT_CONCURRENCY,
                         llm_attempts: int = DEFAULT_ATTEMPTS,
                         llm_timeout: float = DEFAULT_TIMEOUT,
                         llm_retries: int = DEFAULT_RETRIES,
                         prices: StrPath | None = None) -> Estimate:
    """What the paraphrase stage of :func:`build` with these arguments would ask: requests,
    input and output tokens and cost per step, estimated from every prompt of the items'
    first attempts rendered without sending anything (``gen build --llm-estimate``; nothing
    is written). See :mod:`hopvista.llm.estimate`."""
    llm = ParaphraseSettings.make(
        paraphrase, judge, paraphrase_url=paraphrase_url, judge_url=judge_url,
        attempts=llm_attempts, concurrency=llm_concurrency, cache=_path(llm_cache),
        prices=_path(prices), timeout=llm_timeout, retries=llm_retries)
    if llm is None:
        raise UserError("--llm-estimate estimates the paraphrase stage: give --paraphrase "
                        "MODEL and --judge MODEL")
    config = BuildConfig(domain=str(domain), levels=tuple(hops), count=count, seed=seed,
                         source=source, images=False,
                         data=None if data is None else str(data), years=years,
                         periods=periods, defences=defences)
    return estimate_stage(config, llm, workers=workers, progress=progress)


MMTABLES_OPTIONS = "-n/--count, --seed, --out, --workers, --overwrite and --no-images"
"""What an mmtables build takes (``gen build mmtables``)."""


def _refuse_for_mmtables(given: Mapping[str, bool]) -> None:
    """Refuse, in one line, the first option given that an mmtables build does not take."""
    for flag, was_given in given.items():
        if was_given:
            raise UserError(f"{flag} does not apply to mmtables builds (they take "
                            f"{MMTABLES_OPTIONS})")


def merge_shards(shards: Sequence[StrPath], out: StrPath, *, overwrite: bool = False,
                 notice: Callable[[str], None] = _quiet) -> dict[str, Any]:
    """Join the shard folders of one build (``build(..., shard=(i, n))``, any order) into the
    dataset ``out``: byte for byte what the single build writes (``gen merge``). Returns its
    manifest."""
    if not shards:
        raise UserError("no shard given (the shard folders of one build)")
    return merge([Path(shard) for shard in shards], Path(out), overwrite=overwrite,
                 notice=notice)


def build_markup(out: StrPath, *, count: int = 48, seed: int = 0,
                 tables: StrPath = "financial", fmt: str | None = None,
                 source: str | None = None, data: StrPath | None = None,
                 workers: int = 1, overwrite: bool = False, progress: bool = False,
                 notice: Callable[[str], None] = _quiet,
                 marks: str | Sequence[str] | None = None) -> dict[str, Any]:
    """Write ``count`` markup tasks into ``out`` (``gen markup``): each a table image with
    marked cells (highlighted, underlined, bold; or the mark kinds ``marks`` names, at least
    three that mark a cell, ``"all"`` for every one) and a question about them whose answer a
    program re-derives (docs/markup.md).

    ``tables`` is where the tables come from: a domain (a built-in name or a pack folder, with
    its ``source`` and ``data``) or an existing dataset's file or folder (in ``fmt``, detected
    when ``None``). The same arguments give the same bytes whatever ``workers`` is; ``out`` is
    replaced as by :func:`build`. Returns the manifest.
    """
    load_table_themes()  # a theme file it may not use stops the command before any work
    return run_markup(Path(out), count=count, seed=seed, tables=str(tables), fmt=fmt,
                      source=source, data=None if data is None else str(data),
                      workers=workers, overwrite=overwrite, progress=progress, notice=notice,
                      marks=marks)


def load(path: StrPath) -> Dataset:
    """Open a dataset folder as a typed :class:`~hopvista.model.Dataset` (items read lazily;
    an older format version is migrated as it is read). See :func:`hopvista.model.load`."""
    return load_dataset(Path(path))


def statement_types(domain: str, *, source: str | None = None, data: StrPath | None = None,
                    years: tuple[int, int] | None = None, periods: int | None = None,
                    seed: int = 0) -> dict[str, str | None]:
    """Every registered statement type and whether ``domain`` (with its data) can make it
    (``gen list --domain``): ``None`` for a type a build would plan, else one sentence saying
    why not (the pack does not word it, the data have no texts or periods, the texts gave no
    facts, or no instance of the data gave a true and a false statement when probed with
    ``seed``). A build records the same reasons in its manifest (``config.unavailable``)."""
    found = availability(BuildConfig(domain=str(domain), seed=seed, source=source,
                                     data=None if data is None else str(data), years=years,
                                     periods=periods, images=False))
    return {name: None if name in found.available else found.reasons[name]
            for name in STATEMENT_TYPES.names()}


@dataclass(frozen=True)
class Catalogue:
    """What is available, built in and registered by plug-ins (``gen list``), each by name."""

    domains: dict[str, str]
    """The built-in domains' titles."""
    sources: dict[str, str]
    """Who registered each data source."""
    statement_types: dict[str, StatementType]
    markup_tasks: dict[str, list[Subtask]]
    """The markup subtasks of each family (``T1`` … ``T5``)."""
    variants: dict[str, Recipe[Any]]
    """The recipes :func:`make_variants` accepts."""
    perturbations: dict[str, Perturbation[Any]]
    import_formats: dict[str, Importer]
    """The formats of existing datasets :func:`make_variants` reads."""
    table_themes: dict[str, Theme]
    page_templates: dict[str, PageTemplate]
    """The pages of the screenshot variant."""
    visual_kinds: dict[str, VisualKind]
    """The kinds of image a table cell may hold (badge, flag, map, ...)."""
    mark_kinds: dict[str, MarkKind]
    """The ways markup is drawn on a cell (highlight, arrow, circle, ...), in their
    variants' order."""


def catalogue() -> Catalogue:
    """What ``gen list`` shows: the domains, sources, statement types, markup tasks, variants,
    perturbations, import formats, table themes, page templates, cell visual kinds and mark
    kinds available."""
    return Catalogue(
        domains={name: resolve_pack(name).spec.title for name in builtin_pack_names()},
        sources={name: SOURCES.origin(name) for name in SOURCES.names()},
        statement_types=dict(STATEMENT_TYPES.items()),
        markup_tasks=by_family(),
        variants=dict(VARIANTS.items()),
        perturbations=dict(PERTURBATIONS.items()),
        import_formats=dict(IMPORTERS.items()),
        table_themes=dict(TABLE_THEMES.items()),
        page_templates=dict(PAGE_TEMPLATES.items()),
        visual_kinds=dict(VISUAL_KINDS.items()),
        mark_kinds={kind.name: kind for kind in ordered_kinds()})


def make_variants(source: StrPath, out: StrPath, *,
                  variants: str | Sequence[str] = DEFAULT_VARIANTS, fmt: str | None = None,
                  seed: int | None = None, workers: int = 1, overwrite: bool = False,
                  progress: bool = False,
                  notice: Callable[[str], None] = _quiet) -> dict[str, Any]:
    """Write every item of ``source`` in each of ``variants`` into the dataset ``out``
    (``gen augment``); return its manifest.

    ``source`` is a hopvista dataset or an existing table-QA dataset in its release format
    (``fmt``, detected by default; see :func:`catalogue`). ``variants`` is a list of
    ``NAME`` or ``NAME:KEY=VALUE`` (or one comma-separated string, as ``--variants`` takes
    it). ``seed`` defaults to the input dataset's (0 for an imported one).
    """
    load_table_themes()  # a theme file it may not use stops the command before any work
    text = variants if isinstance(variants, str) else ",".join(variants)
    specs = parse_variants(text)
    if workers < 1:
        raise UserError(f"--workers: must be at least 1, got {workers}")
    return augment(Path(source), Path(out), specs, fmt=fmt, seed=seed, workers=workers,
                   overwrite=overwrite, progress=progress, notice=notice)


def _fraction(name: str, value: float) -> float:
    if not 0.0 <= value <= 1.0:
        raise UserError(f"--{name}: must be a fraction from 0 to 1, got {value}")
    return value


def run_audit(path: StrPath, *, json_file: StrPath | None = None, max_hard_set: float = 0.20,
              max_statement: float = 0.55, max_blind: float = 0.55,
              max_prior_gap: float = 0.05, folds: int = 5, seed: int = 0) -> AuditReport:
    """Run the proxy solvers that each lack one modality on the dataset at ``path``
    (``gen audit``) and judge their accuracies against the three limits; on an ``mmtables``
    build, solvers that never see the cell visuals, judged against ``max_prior_gap``.

    ``report.checks`` says which limits hold (``check.passed``); ``report.render()`` is the
    table ``gen audit`` prints; ``report.wording`` (three-statement items) how the statements
    are worded (:mod:`hopvista.audit.diversity`). ``json_file`` is also written, as JSON: a
    new file or an earlier audit report (checked before the audit runs; never a file the
    audit did not write, a symlink, or a place inside a dataset).
    """
    thresholds = Thresholds(_fraction("max-hard-set", max_hard_set),
                            _fraction("max-statement", max_statement),
                            _fraction("max-blind", max_blind),
                            _fraction("max-prior-gap", max_prior_gap))
    if folds < 2:
        raise UserError(f"--folds: must be at least 2 folds, got {folds}")
    output = None if json_file is None else report_file(Path(json_file), Path(path))
    if output is not None:
        output.check()
    audited = audit_dataset(Path(path), folds=folds, seed=seed, thresholds=thresholds)
    if output is not None:
        data = json.dumps(audited.to_json(), indent=1, ensure_ascii=False) + "\n"
        output.write(data.encode("utf-8"))
    return audited


def evaluate(dataset: StrPath, *, model: str, out: StrPath, setting: str = DEFAULT_SETTING,
             limit: int | None = None, concurrency: int = 4,
             variants: Sequence[str] | None = None, base_url: str | None = None,
             options: Mapping[str, str] | None = None, prompt: StrPath | None = None,
             prices: StrPath | None = None, cache: StrPath | None = None,
             metrics: Sequence[str] = (), captioner: str = "kind",
             protocol: str | None = None,
             error_classes: bool = False, judge: str | None = None,
             judge_url: str | None = None, derenderer: str = "ocr",
             strategy: str = "cot", table_format: str = "json", seed: int | None = None,
             where: Mapping[str, str] | Sequence[tuple[str, str]] = (),
             progress: Progress | None = None,
             notice: Notice | None = None) -> dict[str, Any]:
    """Ask ``model`` about every item of ``dataset`` (or the first ``limit``), score the
    answers and write the run folder ``out`` (``gen eval``); return its summary
    (``summary.json``: accuracy with its interval, answered, errors, cost, ...).

    ``model`` is ``openai:NAME`` (at ``base_url`` or ``OPENAI_BASE_URL``), ``random``,
    ``majority``, ``oracle`` or a plug-in's; ``options`` are its settings (temperature,
    max_tokens, seed, timeout, max_retries); ``prompt`` a Jinja2 template file; ``prices`` a
    YAML or JSON table of dollars per million tokens; ``cache`` where answers are kept
    (default ``out/cache``: a rerun asks only what is missing); ``metrics`` papers' scores
    to add (:data:`~hopvista.eval.papers.PAPER_METRICS`); ``captioner`` what captions the
    pictures of ``mmtable`` items in ``image-captioning`` (``kind``, or ``openai:MODEL`` at
    ``base_url``: :mod:`hopvista.eval.captioning`); ``protocol="stages"`` grades FCMR's
    four steps per statement (:mod:`hopvista.eval.stages`); ``error_classes`` gives every
    wrong answer FCMR's and MMTabReal's classes where a rule decides them, and ``judge``
    (``openai:MODEL`` at ``judge_url``, else at ``base_url``) labels the rest
    (:mod:`hopvista.eval.error_classes`); ``derenderer`` what reads the chart in
    ``chart-derendered`` (``ocr``, or ``openai:MODEL`` at ``base_url``:
    :mod:`hopvista.eval.derender`); ``strategy`` the prompt strategy (``cot``, ``direct``,
    ``four-stage``, ``modality-integration``, ``one-shot``, ``self-refine`` or a plug-in's:
    :mod:`hopvista.eval.strategies`), ``table_format`` how a table shown as text is written
    (``json``, ``pipe``, ``markdown``), ``seed`` what draws the ``one-shot`` examples,
    ``where`` (``{"structure": "complex", "skill": "aggregation"}``) keeps only the items
    whose facets have those values (docs/eval.md, "Selecting items").
    ``progress(done, total, accuracy, cost)`` and ``notice(line)`` are told as the run goes.
    Everything is checked before anything is asked or written.
    """
    if not 1 <= concurrency <= MAX_CONCURRENCY:
        raise UserError(f"--concurrency: must be from 1 to {MAX_CONCURRENCY}, got "
                        f"{concurrency}")
    if limit is not None and limit < 1:
        raise UserError(f"--limit: must be at least 1, got {limit}")
    unknown = sorted(set(metrics) - set(PAPER_METRICS))
    if unknown:
        raise UserError(f"--metric: no metric {unknown[0]!r} (metrics: "
                        f"{', '.join(sorted(PAPER_METRICS))})")
    if protocol is not None and protocol not in PROTOCOLS:
        raise UserError(f"--protocol: no protocol {protocol!r} (protocols: "
                        f"{', '.join(PROTOCOLS)})")
    if judge_url is not None and judge is None:
        raise UserError("--judge-url: give --judge openai:MODEL, the judge it is the "
                        "endpoint of")
    settings = dict(options or {})
    if base_url:
        settings["base_url"] = base_url
    request = EvalRequest(
        dataset=Path(dataset), model=model, options=settings, setting=setting, limit=limit,
        concurrency=concurrency,
        variants=None if variants is None else tuple(v.strip() for v in variants if v.strip()),
        prompt=read_template(Path(prompt)) if prompt else None,
        prices=Prices.read(Path(prices)) if prices else None,
        metrics=tuple(sorted(set(metrics))), cache=_path(cache), captioner=captioner,
        protocol=protocol, error_classes=error_classes or judge is not None, judge=judge,
        judge_url=judge_url, derenderer=derenderer, strategy=strategy,
        table_format=table_format, seed=seed, where=_where(where))
    return run_eval(request, Path(out), progress=progress, notice=notice)


def _where(where: Mapping[str, str] | Sequence[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """``--where`` conditions as (facet, value) pairs, checked."""
    pairs = tuple(where.items()) if isinstance(where, Mapping) else tuple(where)
    conditions = tuple((str(k), str(v)) for k, v in pairs)
    check_where(conditions)
    return conditions


def report(runs: Sequence[StrPath], out: StrPath) -> Path:
    """Write the HTML report of the evaluation run folders ``runs`` side by side to ``out``
    (``gen report``): a leaderboard, plots with one bar per run, and each run paired with the
    first. ``out`` is a new file or an earlier report, never a file the report did not write,
    a symlink, or a place inside a dataset or a run. Returns ``out``."""
    if not runs:
        raise UserError("no run given (the folders gen eval wrote)")
    folders = [Path(run) for run in runs]
    output = report_output(Path(out), folders)
    output.check()
    write_report([read_run(folder) for folder in folders], output)
    return Path(out)


def export_harness(dataset: StrPath, *, fmt: str, out: StrPath,
                   setting: str = DEFAULT_SETTING, limit: int | None = None,
                   protocol: str | None = None, strategy: str = "cot",
                   table_format: str = "json", seed: int | None = None) -> ExportResult:
    """Write ``dataset`` (or its first ``limit`` items) as a task of another evaluation
    harness, ``fmt`` one of ``inspect``, ``lmms-eval`` or ``vlmevalkit``, into the folder
    ``out`` (``gen export``), with the prompts of ``setting`` and of the prompt strategy
    ``strategy`` (as in :func:`evaluate`; ``self-refine``, a conversation, is refused).
    ``out`` must be new, empty or an earlier export; ``out/README.md`` says how to run it.
    A ``protocol`` (``stages``) is refused: ``gen eval`` alone grades it."""
    return export(Path(dataset), fmt, Path(out), setting=setting, limit=limit,
                  protocol=protocol, strategy=strategy, table_format=table_format, seed=seed)


def preview(dataset: StrPath, *, out: StrPath | None = None, limit: int = 100) -> Path:
    """Write a static HTML contact sheet of the first ``limit`` items of ``dataset``
    (``gen preview``) to ``out`` (a file or folder; default ``dataset/preview.html``); only a
    new file or an earlier preview is ever replaced. Returns the page's path."""
    return write_preview(Path(dataset), _path(out), limit)


def fetch_sec(tickers: str | Sequence[str], years: str | Sequence[int], out: StrPath, *,
              user_agent: str, overwrite: bool = False,
              progress: Callable[[str], None] | None = None) -> FetchReport:
    """Download the 10-K filings of the fiscal ``years`` and the XBRL companyfacts of each of
    ``tickers`` (or CIKs) from SEC EDGAR into ``out`` (``gen fetch sec``), at most 10
    requests a second; ``user_agent`` is ``"Name email@example.com"``, as the SEC requires.
    Files on disk are kept; a companyfacts JSON that differs from the server's is replaced
    only with ``overwrite``. ``tickers`` and ``years`` may also be written as ``--tickers``
    and ``--years`` take them (``"AAPL,NVDA"``, ``"2020-2024"``). ``report.lines()``
    summarises what was done."""
    try:
        wanted = parse_tickers(tickers if isinstance(tickers, str) else ",".join(tickers))
        window = _fiscal_years(years)
    except FetchError as exc:
        raise UserError(" ".join(str(exc).split())) from None
    if not str(out).strip():
        raise UserError("--out: empty path")
    target = Path(out)
    refuse_misplaced(target, f"--out {target}", folder=True)
    try:
        return download_sec(wanted, window, target, user_agent, overwrite=overwrite,
                            progress=progress)
    except FetchError as exc:
        raise UserError(" ".join(str(exc).split())) from None


def _fiscal_years(years: str | Sequence[int]) -> tuple[int, ...]:
    """``years`` checked and sorted (``FetchError`` naming ``--years`` if one is out of
    range); none is left for :func:`download_sec` to refuse."""
    if isinstance(years, str):
        return parse_years(years)
    return parse_years(",".join(str(year) for year in years)) if years else ()


def json_schema(*, manifest: bool = False) -> dict[str, Any]:
    """The JSON Schema of one line of ``items.jsonl`` in the current dataset format, or with
    ``manifest`` of ``manifest.json`` (``gen schema``)."""
    return model_json_schema(manifest)


def new_domain(name: str, *, directory: StrPath = ".") -> Path:
    """Write the commented skeleton of a domain pack, ``directory/name`` with a domain.yaml,
    panel.csv and texts.jsonl, that builds as it stands (``gen new-domain``); return its
    folder. An existing entry is never touched, nor a place inside a dataset."""
    return write_skeleton(name, Path(directory))


COMMANDS: dict[str, tuple[Callable[..., Any], ...]] = {
    "build": (build, estimate_paraphrases),
    "merge": (merge_shards,),
    "markup": (build_markup,),
    "verify": (verify,),
    "augment": (make_variants,),
    "audit": (run_audit,),
    "eval": (evaluate,),
    "export": (export_harness,),
    "report": (report,),
    "preview": (preview,),
    "list": (catalogue, statement_types),
    "fetch sec": (fetch_sec,),
    "schema": (json_schema,),
    "new-domain": (new_domain,),
}
"""The function(s) each ``gen`` command calls; :func:`load` reads what they write."""
