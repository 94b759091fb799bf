"""``gen eval``: ask a model about every item of a dataset, score the answers, write the run.

A run folder holds ``run.json`` (what was asked: dataset and its items' SHA-256, model and
options, setting, the prompt templates verbatim), ``cache/`` (every answer as it arrives,
:mod:`hopvista.eval.cache`), ``results.jsonl`` (one line per item: prompt id, raw response,
parsed answer, score, tokens, cost, error), ``summary.json`` (:mod:`hopvista.eval.summary`) and
``report.html`` (:mod:`hopvista.eval.report`); ``.lock`` while a run writes it.

A run goes in three steps:

1. **Check everything, write nothing**: ``--out`` and ``--cache`` (:mod:`hopvista.eval.paths`:
   folders outside any dataset), the dataset, the setting, the model and its options, and
   every item's prompt (its images there, its template rendering) — so a mistake leaves no
   trace that would refuse the corrected command.
2. **Hold the folder**: one ``gen eval`` per run folder (:mod:`hopvista.eval.rundir`; a
   second is refused at once with the pid of the first). ``run.json`` is written; a folder
   holding another run with no answer yet is taken over, one with answers refused.
3. **Ask and write**: every answer goes to the cache as it arrives; ``results.jsonl``,
   ``summary.json`` and ``report.html`` when every item has an answer or an error.
   Rerunning the same command into the same folder asks only what is not cached yet (the
   errors, and whatever an interrupted run had not reached).

With ``--error-classes`` (or ``--judge openai:MODEL``) the wrong answers get their error
classes once every item has its answer (:mod:`hopvista.eval.error_classes`); a rerun with the
flag classifies a finished run from its cache without asking the model again.

Whatever a model sends is checked (:func:`~hopvista.eval.replies.checked_reply`) and cannot
crash the run: a malformed reply is an error of its item, one that cannot be scored is an
unparseable answer. Secrets (the API key, and what the model lists in ``secrets()``) are
redacted from everything written, answers included, before they are cached
(:mod:`hopvista.eval.clean`). A full disk or a read-only folder stops the run with one line
naming the file; the answers cached until then are kept.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from hopvista.errors import UserError
from hopvista.eval.backends import (
    Exchange,
    ItemModel,
    Model,
    ModelError,
    Prompt,
    Reply,
    ask,
    load_model,
    split_spec,
)
from hopvista.eval.baselines import chart_margins
from hopvista.eval.cache import ResponseCache, conversation_digest, prompt_digest, request_key
from hopvista.eval.captioning import BUILT_IN, captioner_model, check_pictures, model_captioner
from hopvista.eval.cell_visuals import Captioner, kind_caption
from hopvista.eval.clean import Redactor, json_line, plain, secrets_of
from hopvista.eval.derender import (
    OFFLINE,
    ChartReader,
    DerenderError,
    chart_reader,
    check_charts,
    check_derenderer,
    reading_json,
    reading_record,
)
from hopvista.eval.error_classes import JUDGE_TEMPLATE, ErrorJudge, classify, judge_model
from hopvista.eval.papers import paper_metrics
from hopvista.eval.parse import parse_short, parse_statements
from hopvista.eval.paths import writable_folder
from hopvista.eval.prices import Prices
from hopvista.eval.prompts import DEFAULT_SETTING, Setting, default_template, setting, shown_setting
from hopvista.eval.replies import checked_reply
from hopvista.eval.report import write_report
from hopvista.eval.rundir import (
    CACHE_DIR,
    PAGES_DIR,
    REPORT_FILE,
    RESULTS_FILE,
    SUMMARY_FILE,
    held_run_folder,
    refuse_foreign,
    write_file,
)
from hopvista.eval.stages import check_items, stage_fields, stages_template
from hopvista.eval.strategies import DEFAULT_STRATEGY, PromptPack, check_model, prompt_pack
from hopvista.eval.summary import summarise
from hopvista.eval.table_text import DEFAULT_TABLE_FORMAT
from hopvista.model import Item
from hopvista.model.answers import normalise_text, read_json_object, same_field
from hopvista.model.dataset import ITEMS, Dataset, load, sha256_file
from hopvista.model.kinds import ITEM_KINDS, THREE_STATEMENT, Score
from hopvista.output.files import RUN_FILE, RUN_FORMAT

__all__ = ["CACHE_DIR", "PAGES_DIR", "REPORT_FILE", "RESULTS_FILE", "RUN_FILE", "RUN_FORMAT",
           "RUN_VERSION", "SUMMARY_FILE", "EvalRequest", "markup_failure", "run_eval",
           "score_response"]

RUN_VERSION = 1
MAX_ERROR_CHARS = 300
"""The longest error message recorded for an item."""


@dataclass(frozen=True)
class EvalRequest:
    """Everything ``gen eval`` is asked."""

    dataset: Path
    model: str
    options: dict[str, str] = field(default_factory=dict)
    setting: str = DEFAULT_SETTING
    limit: int | None = None
    concurrency: int = 4
    variants: tuple[str, ...] | None = None
    where: tuple[tuple[str, str], ...] = ()
    """Only items whose facets have these values (``("structure", "complex")``): a facet of
    a list (``skill``) matches a value it holds; several conditions must all hold."""
    prompt: str | None = None
    """A prompt template's text (every item kind), instead of the built-in ones."""
    prices: Prices | None = None
    cache: Path | None = None
    """Where answers are cached (default: the run's ``cache/``)."""
    metrics: tuple[str, ...] = ()
    """Papers' scores to add to each short answer's, by name
    (:data:`~hopvista.eval.papers.PAPER_METRICS`)."""
    captioner: str = BUILT_IN
    """What captions the pictures in ``image-captioning``: ``kind`` or ``openai:MODEL``
    (:mod:`hopvista.eval.captioning`)."""
    protocol: str | None = None
    """``stages``: the stage-graded protocol (:mod:`hopvista.eval.stages`); ``None``: the
    answer alone."""
    error_classes: bool = False
    """Give every wrong answer its error classes (:mod:`hopvista.eval.error_classes`)."""
    judge: str | None = None
    """``openai:MODEL``: the judge of the wrong answers no rule classifies (implies
    ``error_classes``)."""
    judge_url: str | None = None
    """The judge's endpoint (default: the model's)."""
    derenderer: str = OFFLINE
    """What reads the chart in ``chart-derendered``: ``ocr`` or ``openai:MODEL``
    (:mod:`hopvista.eval.derender`)."""
    strategy: str = DEFAULT_STRATEGY
    """The prompt strategy (:mod:`hopvista.eval.strategies`)."""
    table_format: str = DEFAULT_TABLE_FORMAT
    """How a setting that shows the table as text writes it: ``json``, ``pipe``, ``markdown``."""
    seed: int | None = None
    """What draws the ``one-shot`` strategy's examples (default 0)."""


Progress = Callable[[int, int, float | None, float], None]
"""``progress(done, total, accuracy so far, cost so far)``."""
Notice = Callable[[str], None]
"""``notice(line)``: something the user should know (a run folder taken over)."""


class _Secrets:
    """The redactor of a run: the environment's secrets first, the model's once it exists."""

    def __init__(self) -> None:
        self.redactor = Redactor(secrets_of(None))

    def add(self, model: object) -> None:
        self.redactor = Redactor(secrets_of(model))


def run_eval(request: EvalRequest, out: Path, progress: Progress | None = None,
             notice: Notice | None = None) -> dict[str, Any]:
    """Evaluate, write the run folder ``out`` and return its summary (see the module
    docstring). ``UserError`` (secrets redacted) for what the user must fix."""
    secrets = _Secrets()
    try:
        return _run_eval(request, out, progress, notice, secrets)
    except UserError as exc:
        raise UserError(secrets.redactor.text(str(exc))) from None


def _run_eval(request: EvalRequest, out: Path, progress: Progress | None,
              notice: Notice | None, secrets: _Secrets) -> dict[str, Any]:
    folder = writable_folder(out, "--out")
    cache_folder = writable_folder(request.cache, "--cache", folder) \
        if request.cache is not None \
        else folder / CACHE_DIR
    refuse_foreign(folder, out)
    dataset = load(request.dataset)
    how = setting(request.setting)
    items = _selected(dataset, request)
    name, options = split_spec(request.model)
    model = load_model(name, {**options, **request.options})
    secrets.add(model)
    with _closed_at_end(model):
        return _run_model(request, out, progress, notice, secrets, folder, cache_folder,
                          dataset, how, items, model)


def _run_model(request: EvalRequest, out: Path, progress: Progress | None,
               notice: Notice | None, secrets: _Secrets, folder: Path, cache_folder: Path,
               dataset: Dataset, how: Setting, items: list[Item], model: Model | ItemModel
               ) -> dict[str, Any]:
    redactor = secrets.redactor
    kinds = sorted({item.kind for item in items})
    check_model(request.strategy, request.table_format, model, request.model)
    if request.protocol is not None:
        check_items(items)
        _check_stage_model(model, request.model)
        _check_stage_strategy(request)
    pack = prompt_pack(request.strategy, request.table_format,
                       kinds if not isinstance(model, ItemModel) else (), request.prompt,
                       dataset, items, request.seed)
    if request.protocol is not None:  # the stage protocol's own prompt, through the pack
        pack = replace(pack, templates={kind: request.prompt or stages_template(kind)
                                        for kind in pack.templates})
    templates = pack.templates
    asks_captions = how.pictures == "caption" and not isinstance(model, ItemModel)
    captioner = captioner_model(request.captioner, request.options) if asks_captions else None
    if captioner is not None:
        check_pictures(items, dataset)
    judge = judge_model(request.judge, request.options, request.judge_url) \
        if request.judge else None
    derendered = how.chart == "derendered" and not isinstance(model, ItemModel)
    if derendered:
        check_derenderer(request.derenderer)
        check_charts([i for i in [*items, *pack.examples.values()]
                      if shown_setting(i, how).chart == "derendered"], dataset)
    prices = request.prices or Prices.builtin()
    cache = ResponseCache(cache_folder, f"--cache {request.cache}" if request.cache is not None
                          else f"--out {out}")
    reader = chart_reader(request.derenderer, request.options, dataset, cache, prices,
                          lambda answer: _clean_reply(redactor, answer)) if derendered else None
    with _environment_failures(out, folder, request.cache, cache_folder), \
            held_run_folder(folder, out) as held:
        pages = folder / PAGES_DIR
        to_draw = _check_prompts(items, dataset, how, pack, pages) \
            if not isinstance(model, ItemModel) else []
        if hasattr(model, "prepare"):
            model.prepare(items, dataset)
        run = _run_record(request, dataset, items, model, how, templates) | \
            _reader_record(reader) | pack.record()
        run = plain(redactor.value(run))  # what run.json says: compared on a rerun
        held.claim(run, notice)
        if to_draw:
            # heavy:
            from hopvista.eval.page import draw_pages

            draw_pages(to_draw, dataset, pages)
        captions: Captioner = kind_caption if captioner is None else \
            model_captioner(captioner, request.captioner, items, dataset, folder)
        job = _Job(dataset, model, how.name, pack, cache, prices, request.model, pages,
                   redactor, request.metrics, captions, request.protocol,
                   chart_margins(dataset) if request.protocol is not None else (0.0, 0.0),
                   reader)
        final = _answer_all(job, items, _concurrency(model, request.concurrency), progress)
        if "error_classes" in run:
            final = _classified(final, items, job, judge, request)
        summary = _write_outputs(folder, out, run, final)
    return summary


@contextmanager
def _closed_at_end(model: Model | ItemModel) -> Iterator[None]:
    """Run the block, then close ``model`` if it has a ``close()`` (a server it holds open)."""
    try:
        yield
    finally:
        close = getattr(model, "close", None)
        if callable(close):
            close()


def _concurrency(model: Model | ItemModel, asked: int) -> int:
    """How many items are asked at once: ``asked``, at most the model's
    ``max_concurrency``."""
    most = getattr(model, "max_concurrency", None)
    limit = most if isinstance(most, int) and most >= 1 else asked
    return max(1, min(asked, limit))


def _run_record(request: EvalRequest, dataset: Dataset, items: Sequence[Item],
                model: Model | ItemModel, how: Setting, templates: dict[str, str]
                ) -> dict[str, Any]:
    """What ``run.json`` records: what was asked, of which dataset, how."""
    return {
        "format": RUN_FORMAT, "format_version": RUN_VERSION,
        "dataset": {"path": str(request.dataset.resolve()),
                    "items_sha256": sha256_file(dataset.root / ITEMS),
                    "domain": dataset.manifest.config.get("domain"),
                    "items": len(items)},
        "model": request.model,
        "options": {k: v for k, v in sorted(request.options.items())},
        "identity": _identity(model),
        "setting": how.name,
        "limit": request.limit,
        "variants": list(request.variants) if request.variants else None,
        **({"where": [f"{k}={v}" for k, v in request.where]} if request.where else {}),
        "prompts": templates,
        **({"metrics": list(request.metrics)} if request.metrics else {}),
        **({"captioner": request.captioner} if how.pictures == "caption" and
           how.table == "text" else {}),
        **({"protocol": request.protocol} if request.protocol is not None else {}),
        **({"error_classes": {"judge": request.judge, "prompt": default_template(
            JUDGE_TEMPLATE) if request.judge else None}}
           if request.error_classes or request.judge else {}),
    }


def _check_stage_model(model: Model | ItemModel, spec: str) -> None:
    """``UserError`` for a model answering items directly that cannot answer the stage
    protocol (it has no ``answer_stages(item)``)."""
    if isinstance(model, ItemModel) and not callable(getattr(model, "answer_stages", None)):
        raise UserError(f"--protocol stages: the model {spec!r} answers items directly and "
                        "cannot answer the stage protocol (the oracle and openai:NAME can)")


def _check_stage_strategy(request: EvalRequest) -> None:
    """``UserError`` for ``--protocol stages`` with a prompt strategy or table format other
    than the default: the stage protocol asks its own prompt, tables as JSON, in one turn."""
    if request.strategy != DEFAULT_STRATEGY:
        raise UserError(f"--protocol {request.protocol} and --strategy {request.strategy}: the "
                        "stage protocol asks its own prompt in one turn; drop --strategy")
    if request.table_format != DEFAULT_TABLE_FORMAT:
        raise UserError(f"--protocol {request.protocol} and --table-format "
                        f"{request.table_format}: the stage protocol's prompt shows tables as "
                        "JSON; drop --table-format")


def _classified(final: list[dict[str, Any]], items: Sequence[Item], job: _Job,
                judge: Model | None, request: EvalRequest) -> list[dict[str, Any]]:
    """The result lines with the error classes of their wrong answers, the judge's replies
    cached and costed like answers, secrets redacted."""
    errant = ErrorJudge(judge, str(request.judge), default_template(JUDGE_TEMPLATE),
                        job.cache, job.prices) if judge is not None else None
    lines = classify(final, items, errant, max(1, request.concurrency))
    return [plain(job.redactor.value(line)) for line in lines]


def _reader_record(reader: ChartReader | None) -> dict[str, Any]:
    """What ``run.json`` records of a ``chart-derendered`` run's reader: its name and the
    prompt it is asked with (none for the offline reader)."""
    if reader is None:
        return {}
    template = getattr(reader, "template", None)
    return {"derenderer": reader.spec} | ({"derender_prompt": template} if template else {})


def _write_outputs(folder: Path, out: Path, run: dict[str, Any],
                   final: list[dict[str, Any]]) -> dict[str, Any]:
    """Write ``results.jsonl``, ``summary.json`` and ``report.html``; the summary."""

    write_file(folder, out, RESULTS_FILE,
               "".join(json_line(r) + "\n" for r in final).encode())
    summary: dict[str, Any] = plain(summarise(final, run))
    write_file(folder, out, SUMMARY_FILE, (json.dumps(
        summary, indent=1, ensure_ascii=False, sort_keys=True, allow_nan=False)
        + "\n").encode())
    try:
        write_report([(out, run, final, summary)], folder / REPORT_FILE)
    except OSError as exc:
        raise UserError(f"--out {out}: cannot write {REPORT_FILE}: "
                        f"{exc.strerror or exc}") from None
    return summary


def _answer_all(job: _Job, items: Sequence[Item], concurrency: int,
                progress: Progress | None) -> list[dict[str, Any]]:
    """Every item's result line, in dataset order."""
    results: list[dict[str, Any] | None] = [None] * len(items)
    correct = answered = 0
    cost = 0.0
    for index, result in _in_parallel(job.evaluate, items, concurrency):
        results[index] = result
        if result["error"] is None:
            answered += 1
            correct += bool(result["correct"])
        cost += result["cost"] or 0.0
        if progress is not None:
            done = sum(r is not None for r in results)
            progress(done, len(items), correct / answered if answered else None, cost)
    return [r for r in results if r is not None]


def _check_prompts(items: Sequence[Item], dataset: Dataset, how: Setting,
                   pack: PromptPack, pages: Path) -> list[Item]:
    """Render every item's prompt without reading its images (``UserError`` for a missing
    image or a failing template); the items whose page the evaluator must draw."""
    to_draw: list[Item] = []
    if how.table == "page":
        # heavy:
        from hopvista.eval.page import pages_to_draw

        shown = {item.id: item for item in [*items, *pack.examples.values()]}
        to_draw = pages_to_draw(list(shown.values()), dataset, pages)  # one-shot's too
    for item in items:
        pack.first(item, dataset, how, pages, check_only=True)
        pack.second(item, how)
    return to_draw


@contextmanager
def _environment_failures(out: Path, folder: Path, cache: Path | None, cache_folder: Path
                          ) -> Iterator[None]:
    """Turn a failing file-system call (a full disk, a read-only folder) into a
    ``UserError`` naming the file and the flag of the folder it lies in."""
    try:
        yield
    except OSError as exc:
        why = exc.strerror or str(exc) or type(exc).__name__
        name = None if exc.filename is None else Path(str(exc.filename))
        flag, shown = "--out", out
        if cache is not None and name is not None and _under(name, cache_folder):
            flag, shown = "--cache", cache
        where = f"{name}: " if name is not None else ""
        raise UserError(f"{flag} {shown}: {where}{why}") from None


def _under(path: Path, folder: Path) -> bool:
    try:
        return path.resolve() == folder or folder in path.resolve().parents
    except (OSError, RuntimeError):
        return False


def _selected(dataset: Dataset, request: EvalRequest) -> list[Item]:
    items = []
    for item in dataset:
        if request.variants and item.variant.name not in request.variants:
            continue
        if request.where and not _matches(item, request.where):
            continue
        items.append(item)
        if request.limit is not None and len(items) >= request.limit:
            break
    if not items:
        asked = " and ".join(f"--where {k}={v}" for k, v in request.where)
        raise UserError(f"{request.dataset}: no item to evaluate"
                        + (" (no item of the variants asked for)" if request.variants else "")
                        + (f" (no item with {asked})" if asked else ""))
    return items


WHERE_FACETS = ("difficulty", "family", "subtask", "order", "chart_library", "chart_kind",
                "table_theme", "archetype", "question_type", "reasoning", "answer_type",
                "visual_kind", "structure", "header_levels", "tables", "size", "richness",
                "steps", "skill")
"""The facets ``--where`` selects on (what the summary breaks results down by)."""


def check_where(where: tuple[tuple[str, str], ...]) -> None:
    """Refuse a ``--where`` condition on a facet results are not broken down by."""
    for facet, value in where:
        if facet not in WHERE_FACETS:
            raise UserError(f"--where {facet}={value}: no facet {facet!r} (facets: "
                            f"{', '.join(WHERE_FACETS)})")


def _matches(item: Item, where: tuple[tuple[str, str], ...]) -> bool:
    """Whether every condition of ``where`` holds of the item's facets."""
    facets = _facets(item) | {"difficulty": item.difficulty}
    for facet, value in where:
        found = facets.get(facet)
        values = found if isinstance(found, list) else [found]
        if value not in [str(v) for v in values if v is not None]:
            return False
    return True


def _identity(model: Model | ItemModel) -> dict[str, Any] | None:
    identity = getattr(model, "cache_identity", None)
    return identity() if callable(identity) else None


def _in_parallel(work: Callable[[Item], dict[str, Any]], items: Sequence[Item],
                 concurrency: int) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(index, work(item))`` as they finish, at most ``concurrency`` at a time."""
    if concurrency == 1:
        for index, item in enumerate(items):
            yield index, work(item)
        return
    pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="gen-eval")
    pending: dict[Future[dict[str, Any]], int] = {}
    queue = iter(enumerate(items))
    try:
        for index, item in queue:
            pending[pool.submit(work, item)] = index
            if len(pending) >= concurrency:
                break
        while pending:
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                index = pending.pop(future)
                yield index, future.result()
                following = next(queue, None)
                if following is not None:
                    pending[pool.submit(work, following[1])] = following[0]
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


@dataclass(frozen=True)
class _Job:
    """What every item of a run is asked and scored with."""

    dataset: Dataset
    model: Model | ItemModel
    setting_name: str
    pack: PromptPack
    cache: ResponseCache
    prices: Prices
    spec: str
    pages: Path
    redactor: Redactor
    metrics: tuple[str, ...] = ()
    captioner: Captioner = kind_caption
    protocol: str | None = None
    margins: tuple[float, float] = (0.0, 0.0)
    reader: ChartReader | None = None

    def evaluate(self, item: Item) -> dict[str, Any]:
        """One item's result line (plain JSON, secrets redacted)."""
        prompt_id = None
        cached = False
        error = None
        reply: Reply | None = None
        derendered, chart, error = self._read_chart(item)
        example_chart = None
        if error is None and not isinstance(self.model, ItemModel):
            example_chart, error = self._example_reading(item)
        if isinstance(self.model, ItemModel):
            try:
                reply = self._clean(self.model.answer_stages(item)  # type: ignore[attr-defined]
                                    if self.protocol is not None else
                                    self.model.answer_item(item))
            except ModelError as exc:
                error = self._error(exc)
        elif error is None:
            how = setting(self.setting_name)
            prompt = self.pack.first(item, self.dataset, how, self.pages,
                                     captioner=self.captioner, chart_reading=chart,
                                     example_reading=example_chart)
            digest = prompt_digest(prompt)
            prompt_id = digest[:16]
            reply, cached, error = self._turn(self.model, digest, [], prompt)
            second = self.pack.second(item, how)
            if second is not None:
                result = self._refined(item, prompt, prompt_id, second, reply, cached, error)
                return self._written(result, derendered)
        result = _result(item, self.setting_name, prompt_id, cached, error)
        if reply is not None:
            result |= _scored(item, reply, None if cached else self.prices.cost(self.spec,
                                                                                 reply),
                              self.metrics)
            if self.protocol is not None:
                result |= stage_fields(item, reply.text, self.margins)
        return self._written(result, derendered)

    def _written(self, result: dict[str, Any], derendered: dict[str, Any] | None
                 ) -> dict[str, Any]:
        """The result line as written: what the chart's reader read (``chart-derendered``)
        added, plain JSON, secrets redacted."""
        if derendered is not None:
            result["derendered"] = derendered
        written: dict[str, Any] = plain(self.redactor.value(result))
        return written

    def _read_chart(self, item: Item) -> tuple[dict[str, Any] | None, str | None, str | None]:
        """In ``chart-derendered``: what the reader read of the item's chart (the result's
        ``derendered``), the reading as the prompt shows it, and the item's error when the
        reading failed; nothing for an item whose chart is not read."""
        if self.reader is None or item.inputs.chart is None or \
                shown_setting(item, setting(self.setting_name)).chart != "derendered":
            return None, None, None
        try:
            reading = self.reader.read(item)
        except ModelError as exc:
            failure = exc if isinstance(exc, DerenderError) else None
            return (reading_record(self.reader.spec, item, None, failure), None,
                    self._error(ModelError(f"derenderer {self.reader.spec}: {exc}")))
        return reading_record(self.reader.spec, item, reading), reading_json(reading), None

    def _example_reading(self, item: Item) -> tuple[str | None, str | None]:
        """In ``chart-derendered`` with ``one-shot``: the reading of the chart of the example
        shown before ``item`` and the item's error when that reading failed."""
        example = self.pack.examples.get(item.id)
        if example is None:
            return None, None
        _, reading, error = self._read_chart(example)
        return reading, error

    def _turn(self, model: Model, digest: str, history: Sequence[Exchange],
              prompt: Prompt) -> tuple[Reply | None, bool, str | None]:
        """One request of a conversation (the first when ``history`` is empty), from the
        cache when it holds the answer: the reply, whether it was cached, the error."""
        identity = _identity(model)
        key = request_key(identity or {"model": self.spec}, digest)
        found = self.cache.get(key) if identity is not None else None
        reply = None if found is None else self._clean(found)
        if reply is not None and found is not None and reply.text != found.text:
            self.cache.put(key, reply)  # cached by a run that kept a secret in it
        if reply is not None:
            return reply, True, None
        try:
            reply = self._clean(ask(model, history, prompt))
        except ModelError as exc:
            return None, False, self._error(exc)
        if identity is not None:
            self.cache.put(key, reply)
        return reply, False, None

    def _refined(self, item: Item, first: Prompt, prompt_id: str, second: Prompt,
                 reply: Reply | None, cached: bool, error: str | None) -> dict[str, Any]:
        """The result line of a two-turn strategy: the answer, then the revision asked in
        the same conversation; the revision is scored, both turns' tokens and costs
        counted, and each turn kept under ``turns`` (the line before it is written)."""
        assert isinstance(self.model, Model)
        turns = [] if reply is None else [(reply, cached)]
        if reply is not None:
            history = self.pack.history(first, reply.text)
            revised, again, error = self._turn(
                self.model, conversation_digest(history, second), history, second)
            if revised is not None:
                turns.append((revised, again))
        done = len(turns) == 2
        result = _result(item, self.setting_name, prompt_id,
                         done and all(c for _, c in turns), error)
        costs = [None if c else self.prices.cost(self.spec, r) for r, c in turns]
        if done:
            result |= _scored(item, turns[1][0], _total(costs), self.metrics)
        if turns:  # what was spent, whether or not the revision came
            result["cost"] = _total(costs)
            result["tokens"] = {side: _total([getattr(r, f"{side}_tokens") for r, _ in turns])
                                for side in ("input", "output")}
        result["turns"] = [{"response": r.text, "cached": c, "cost": cost,
                            "tokens": {"input": r.input_tokens, "output": r.output_tokens}}
                           for (r, c), cost in zip(turns, costs, strict=True)]
        return result

    def _clean(self, answer: Any) -> Reply:
        """``answer`` checked (``ModelError`` if malformed), secrets redacted."""
        return _clean_reply(self.redactor, answer)

    def _error(self, exc: ModelError) -> str:
        text = " ".join(plain(str(exc) or type(exc).__name__).split())
        text = "".join(c if c.isprintable() else "\ufffd" for c in text)
        return self.redactor.text(text)[:MAX_ERROR_CHARS]


def _clean_reply(redactor: Redactor, answer: Any) -> Reply:
    """``answer`` checked (``ModelError`` if malformed), secrets redacted."""
    reply = checked_reply(answer)
    text = redactor.text(reply.text)
    return reply if text == reply.text else Reply(text, reply.input_tokens,
                                                  reply.output_tokens, reply.seconds)
def _total(values: Sequence[float | int | None]) -> Any:
    """The sum of the known ``values``; ``None`` when none is known."""
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def _result(item: Item, setting_name: str, prompt_id: str | None, cached: bool,
            error: str | None) -> dict[str, Any]:
    """An item's result line before its answer is scored."""
    return {
        "id": item.id, "base_id": item.base_id, "variant": item.variant.name,
        "kind": item.kind, "difficulty": item.difficulty, "setting": setting_name,
        "prompt_id": prompt_id, "cached": cached, "error": error,
        "response": None, "parsed": None, "parse_rule": None, "correct": None,
        "metrics": {}, "tokens": {"input": None, "output": None}, "cost": None,
        **_facets(item),
    }


def _scored(item: Item, reply: Reply, cost: float | None,
            extra: Sequence[str] = ()) -> dict[str, Any]:
    """The fields of a result line that an answer fills (``extra``: the papers whose scores
    are added to the metrics of the short answers, :mod:`hopvista.eval.papers`)."""
    score, parsed, rule = score_response(item, reply.text)
    metrics = dict(score.metrics)
    if extra:
        metrics |= paper_metrics(extra, item, reply.text, parsed, rule)
    fields: dict[str, Any] = {
        "response": reply.text, "parsed": parsed, "parse_rule": rule,
        "correct": score.correct, "metrics": metrics,
        "tokens": {"input": reply.input_tokens, "output": reply.output_tokens},
        "cost": cost,
    }
    try:
        failure = markup_failure(item, parsed, score.correct)
    except (ValueError, ArithmeticError, RecursionError):
        failure = LOGICAL_FAILURE
    if failure is not None:
        fields["markup_failure"] = failure
    if reply.seconds is not None:
        fields["seconds"] = round(reply.seconds, 3)
    if item.statements:
        truth = [s.label for s in item.statements]
        predicted = [None if parsed is None else (n + 1) in parsed for n in range(len(truth))]
        fields["statements"] = [{"type": s.type, "label": s.label, "predicted": p}
                                for s, p in zip(item.statements, predicted, strict=True)]
    return fields


MARKER_HIJACKED, LOGICAL_FAILURE = "marker hijacked", "logical failure"
COORDINATE_ERROR = "coordinate error"


def markup_failure(item: Item, parsed: Any, correct: bool) -> str | None:
    """How a wrong answer failed, on a markup task or an *incongruent* markup variant (the
    marker on the distractor); ``None`` for a right answer, an unparsed one, or another item.

    - ``"marker hijacked"``: the answer the item records a marker-misled reader giving
      (``variant.markup.hijacked``);
    - ``"coordinate error"``: the right value at the wrong place — a markup task answered with
      the right ``value`` but the wrong ``row`` or ``column`` (HighlightBench's definition), or
      a variant answered as a reader of a cell next to the target would
      (``variant.markup.coordinate``);
    - ``"logical failure"``: any other wrong answer.
    """
    if correct or parsed is None:
        return None
    if item.kind == "markup_task":
        return _task_failure(item, parsed)
    markup = item.variant.markup or {}
    hijacked = markup.get("hijacked") or {}
    if correct or parsed is None or markup.get("on") != "distractor" or \
            not hijacked.get("distinguishes") or hijacked.get("answer") is None:
        return None
    if _answers_as(item, parsed, hijacked["answer"]):
        return MARKER_HIJACKED
    coordinate = markup.get("coordinate") or {}
    if any(_answers_as(item, parsed, other) for other in coordinate.get("answers", [])):
        return COORDINATE_ERROR
    return LOGICAL_FAILURE


def _answers_as(item: Item, parsed: Any, answer: Any) -> bool:
    """Whether ``parsed`` is ``answer``, scored by the rules of the item's kind."""
    kind = ITEM_KINDS.get(item.kind)
    misled = item.model_copy(update={"answer": answer})
    said = parsed if isinstance(parsed, str) else json.dumps(parsed)
    if kind.check(misled):  # the misled answer is no value of the item's type ("2nd")
        return normalise_text(said) == normalise_text(str(answer))
    return kind.score(misled, parsed if item.kind == THREE_STATEMENT.name else said).correct


def _task_failure(item: Item, said: Any) -> str:
    gold = item.answer if isinstance(item.answer, dict) else {}
    if isinstance(said, dict) and "value" in gold and ({"row", "column"} & set(gold)):
        place = [k for k in ("row", "column") if k in gold]
        if same_field(gold["value"], said.get("value")) and not all(
                same_field(gold[k], said.get(k)) for k in place):
            return COORDINATE_ERROR
    return LOGICAL_FAILURE


UNSCORABLE = "unscorable"
"""The parse rule of an answer the item kind's scorer cannot take (a number of 40 digits
where two decimals are compared, JSON nested past Python's limit): a wrong answer, counted
as unparseable."""


def score_response(item: Item, text: str) -> tuple[Score, Any, str]:
    """The score of answer ``text``, what was read from it and the parsing rule used. Never
    raises on what ``text`` holds: an answer that cannot be scored is wrong and unparseable
    (rule :data:`UNSCORABLE`)."""
    try:
        return _score(item, text)
    except (ValueError, ArithmeticError, RecursionError):
        return _unparsed(item.kind), None, UNSCORABLE


def _unparsed(kind: str) -> Score:
    """The score of an answer of an item of ``kind`` that could not be read."""
    if kind == THREE_STATEMENT.name:
        return Score(False, {"set_accuracy": 0.0, "statement_accuracy": 0.0, "parsed": 0.0})
    if kind == "markup_task":
        return Score(False, {"em": 0.0, "fields": 0.0, "parsed": 0.0})
    return Score(False, {"em": 0.0, "ss": 0.0, "f1": 0.0, "parsed": 0.0})


def _score(item: Item, text: str) -> tuple[Score, Any, str]:
    if item.kind == THREE_STATEMENT.name:
        parsed = parse_statements(text)
        if parsed.answer is None:
            return _unparsed(item.kind), None, parsed.rule
        return ITEM_KINDS.get(item.kind).score(item, parsed.answer), parsed.answer, parsed.rule
    if item.kind == "markup_task":
        said = read_json_object(text)
        if said is None:
            return _unparsed(item.kind), None, "unparseable"
        return ITEM_KINDS.get(item.kind).score(item, said), said, "json"
    short = parse_short(text)
    if short.answer is None:
        return _unparsed(item.kind), None, short.rule
    score = ITEM_KINDS.get(item.kind).score(item, short.answer)
    return Score(score.correct, {**score.metrics, "parsed": 1.0}), short.answer, short.rule


def _facets(item: Item) -> dict[str, Any]:
    """What the report breaks results down by."""
    style = item.variant.style or {}
    plan = item.provenance.plan or {}
    chart = style.get("chart") or {}
    table = style.get("table") or {}
    return {
        "family": item.task.family if item.task is not None else None,
        "subtask": item.task.subtask if item.task is not None else None,
        "order": " / ".join(plan.get("order") or []) or None,
        "chart_library": chart.get("library"),
        "chart_kind": chart.get("kind"),
        "table_theme": table.get("theme"),
        **_picture_facets(item),
        **_structure_facets(item),
    }


def _structure_facets(item: Item) -> dict[str, Any]:
    """A structured item's attributes as facets (nothing for an item without attributes):
    its structure, header levels, tables, size (rows x columns), richness, reasoning steps,
    and the skills its statements need (an item counts under each)."""
    found = item.attributes
    if found is None:
        return {}
    layout = found.layout
    return {"structure": found.structure, "header_levels": layout.header_levels,
            "tables": layout.tables, "size": f"{layout.rows}x{layout.columns}",
            "richness": found.richness, "steps": found.steps,
            "skill": [name for name, count in found.skills.model_dump().items() if count]}


def _picture_facets(item: Item) -> dict[str, Any]:
    """An ``mmtable`` item's MMTabReal facets: its tags and the kinds of its pictures
    (nothing for items of other kinds, whose result lines keep their fields)."""
    if item.tags is None:
        return {}
    return {"archetype": item.tags.archetype, "question_type": item.tags.question_type,
            "reasoning": item.tags.reasoning, "answer_type": item.tags.answer_type,
            "visual_kind": sorted({v.kind for v in item.inputs.visuals or ()})}
