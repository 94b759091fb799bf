"""``gen eval``: ask a model about every item of a dataset, score the answers, write the run.

A run folder holds ``run.json`` (what was asked: dataset and its items' SHA-256, model and
options, setting, the prompt templates verbatim), ``cache/`` (every answer as it arrives,
:mod:`hopvista.eval.cache`), ``results.jsonl`` (one line per item: prompt id, raw response,
parsed answer, score, tokens, cost, error), ``summary.json`` (:mod:`hopvista.eval.summary`) and
``report.html`` (:mod:`hopvista.eval.report`). ``run.json`` is written first, the rest when
every item has an answer or an error; rerunning the same command into the same folder asks
only what is not cached yet (the errors, and whatever an interrupted run had not reached).
A folder that holds something else, or a run of another evaluation, is refused.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hopvista.atomic import sha256_file, write_atomic
from hopvista.errors import UserError
from hopvista.eval.cache import ResponseCache, prompt_digest, request_key
from hopvista.eval.parse import parse_short, parse_statements
from hopvista.eval.prices import Prices
from hopvista.eval.prompts import DEFAULT_SETTING, build_prompt, default_template, setting
from hopvista.model import Item
from hopvista.model.answers import normalise_text, read_json_object, same_field
from hopvista.model.dataset import ITEMS, Dataset, load
from hopvista.model.kinds import ITEM_KINDS, Score
from hopvista.models import ItemModel, Model, ModelError, Reply, load_model, split_spec
from hopvista.outdir import declared_format

RUN_FORMAT = "hopvista-eval-run"
RUN_VERSION = 1
RUN_FILE = "run.json"
RESULTS_FILE = "results.jsonl"
SUMMARY_FILE = "summary.json"
REPORT_FILE = "report.html"
CACHE_DIR = "cache"
PAGES_DIR = "pages"


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
    prompt: str | None = None
    """A prompt template's text (every item kind), instead of the built-in ones."""
    prices: Prices | None = None
    cache: Path | None = None
    """Where answers are cached (default: the run's ``cache/``)."""


Progress = Callable[[int, int, float | None, float], None]
"""``progress(done, total, accuracy so far, cost so far)``."""


def run_eval(request: EvalRequest, out: Path, progress: Progress | None = None
             ) -> dict[str, Any]:
    """Evaluate, write the run folder ``out`` and return its summary."""
    from hopvista.eval.report import write_report
    from hopvista.eval.summary import summarise

    dataset = load(request.dataset)
    how = setting(request.setting)
    items = _selected(dataset, request)
    name, options = split_spec(request.model)
    model = load_model(name, {**options, **request.options})
    kinds = sorted({item.kind for item in items})
    templates = {kind: request.prompt or default_template(kind) for kind in kinds} \
        if not isinstance(model, ItemModel) else {}
    run = {
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
        "prompts": templates,
    }
    _claim(out, run)
    cache = ResponseCache(request.cache or out / CACHE_DIR)
    if hasattr(model, "prepare"):
        model.prepare(items, dataset)
    prices = request.prices or Prices.builtin()
    pages = out / PAGES_DIR
    if how.table == "page" and not isinstance(model, ItemModel):
        from hopvista.eval.page import draw_pages

        draw_pages(items, dataset, pages)

    def evaluate(item: Item) -> dict[str, Any]:
        return _evaluate(item, dataset, model, how.name, templates, cache, prices,
                         request.model, pages)

    results: list[dict[str, Any] | None] = [None] * len(items)
    correct = answered = 0
    cost = 0.0
    for index, result in _in_parallel(evaluate, items, max(1, request.concurrency)):
        results[index] = result
        if result["error"] is None:
            answered += 1
            correct += bool(result["correct"])
        cost += result["cost"] or 0.0
        if progress is not None:
            done = sum(r is not None for r in results)
            progress(done, len(items), correct / answered if answered else None, cost)
    final = [r for r in results if r is not None]
    write_atomic(out / RESULTS_FILE, "".join(
        json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in final).encode())
    summary = summarise(final, run)
    write_atomic(out / SUMMARY_FILE, (json.dumps(summary, indent=1, ensure_ascii=False,
                                                 sort_keys=True) + "\n").encode())
    write_report([(out, run, final, summary)], out / REPORT_FILE)
    return summary


def _selected(dataset: Dataset, request: EvalRequest) -> list[Item]:
    items = []
    for item in dataset:
        if request.variants and item.variant.name not in request.variants:
            continue
        items.append(item)
        if request.limit is not None and len(items) >= request.limit:
            break
    if not items:
        raise UserError(f"{request.dataset}: no item to evaluate"
                        + (" (no item of the variants asked for)" if request.variants else ""))
    return items


def _identity(model: Model | ItemModel) -> dict[str, Any] | None:
    identity = getattr(model, "cache_identity", None)
    return identity() if callable(identity) else None


def _claim(out: Path, run: dict[str, Any]) -> None:
    """Make ``out`` this run's folder: new, or a run of the same evaluation (resumed)."""
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {out}: exists and is not a folder")
    record = out / RUN_FILE
    if out.is_dir() and any(out.iterdir()):
        if declared_format(record) != RUN_FORMAT:
            raise UserError(f"--out {out}: exists and is not an evaluation run; "
                            "nothing was changed (choose another folder)")
        found = json.loads(record.read_text(encoding="utf-8"))
        different = [key for key in run if found.get(key) != run[key]]
        if different:
            raise UserError(f"--out {out}: holds a run with another {different[0]} "
                            "(choose another folder to keep both)")
        return
    out.mkdir(parents=True, exist_ok=True)
    write_atomic(record, (json.dumps(run, indent=1, ensure_ascii=False) + "\n").encode())


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


def _evaluate(item: Item, dataset: Dataset, model: Model | ItemModel, setting_name: str,
              templates: dict[str, str], cache: ResponseCache, prices: Prices,
              spec: str, pages: Path) -> dict[str, Any]:
    """One item's result line."""
    prompt_id = None
    cached = False
    error = None
    reply: Reply | None = None
    if isinstance(model, ItemModel):
        try:
            reply = _as_reply(model.answer_item(item))
        except ModelError as exc:
            error = str(exc) or type(exc).__name__
    else:
        prompt = build_prompt(item, dataset, setting(setting_name), templates[item.kind],
                              pages)
        identity = _identity(model)
        digest = prompt_digest(prompt)
        key = request_key(identity or {"model": spec}, digest)
        prompt_id = digest[:16]
        reply = cache.get(key) if identity is not None else None
        cached = reply is not None
        if reply is None:
            try:
                reply = _as_reply(model.answer(prompt))
            except ModelError as exc:
                error = str(exc) or type(exc).__name__
            else:
                if identity is not None:
                    cache.put(key, reply)
    result: dict[str, Any] = {
        "id": item.id, "base_id": item.base_id, "variant": item.variant.name,
        "kind": item.kind, "difficulty": item.difficulty, "setting": setting_name,
        "prompt_id": prompt_id, "cached": cached, "error": error,
        "response": None, "parsed": None, "parse_rule": None, "correct": None,
        "metrics": {}, "tokens": {"input": None, "output": None}, "cost": None,
        **_facets(item),
    }
    if reply is None:
        return result
    score, parsed, rule = score_response(item, reply.text)
    result |= {
        "response": reply.text, "parsed": parsed, "parse_rule": rule,
        "correct": score.correct, "metrics": score.metrics,
        "tokens": {"input": reply.input_tokens, "output": reply.output_tokens},
        "cost": None if cached else prices.cost(spec, reply),
    }
    failure = markup_failure(item, parsed, score.correct)
    if failure is not None:
        result["markup_failure"] = failure
    if item.statements:
        truth = [s.label for s in item.statements]
        predicted = [None if parsed is None else (n + 1) in parsed for n in range(len(truth))]
        result["statements"] = [{"type": s.type, "label": s.label, "predicted": p}
                                for s, p in zip(item.statements, predicted, strict=True)]
    return result


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
    return kind.score(misled, parsed if item.kind == "three_statement" else said).correct


def _task_failure(item: Item, said: Any) -> str:
    gold = item.answer if isinstance(item.answer, dict) else {}
    if isinstance(said, dict) and "value" in gold and ({"row", "column"} & set(gold)):
        place = [k for k in ("row", "column") if k in gold]
        if same_field(gold["value"], said.get("value")) and not all(
                same_field(gold[k], said.get(k)) for k in place):
            return COORDINATE_ERROR
    return LOGICAL_FAILURE


def _as_reply(answer: str | Reply) -> Reply:
    if isinstance(answer, Reply):
        return answer
    if not isinstance(answer, str):
        raise ModelError(f"the model answered {type(answer).__name__}, not text")
    return Reply(answer)


def score_response(item: Item, text: str) -> tuple[Score, Any, str]:
    """The score of answer ``text``, what was read from it and the parsing rule used."""
    if item.kind == "three_statement":
        parsed = parse_statements(text)
        if parsed.answer is None:
            return (Score(False, {"set_accuracy": 0.0, "statement_accuracy": 0.0,
                                  "parsed": 0.0}), None, parsed.rule)
        return ITEM_KINDS.get(item.kind).score(item, parsed.answer), parsed.answer, parsed.rule
    if item.kind == "markup_task":
        said = read_json_object(text)
        if said is None:
            return (Score(False, {"em": 0.0, "fields": 0.0, "parsed": 0.0}), None,
                    "unparseable")
        return ITEM_KINDS.get(item.kind).score(item, said), said, "json"
    short = parse_short(text)
    if short.answer is None:
        return Score(False, {"em": 0.0, "ss": 0.0, "f1": 0.0, "parsed": 0.0}), None, short.rule
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
    }
