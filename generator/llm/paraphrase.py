"""The paraphrase stage: every statement of a build reworded by one LLM in two passes, checked
by the deterministic guard, then by a judge (docs/llm.md).

Per item, in item order (up to ``--llm-concurrency`` items in flight, written in order):

1. one request paraphrases the item's statements *lexically* (a JSON list in, a JSON list
   out), one more *syntactically* (the lexical paraphrases in, new sentences out);
2. the guard (:func:`hopvista.verify.guard.guard`) checks each against its template text: it
   keeps every value the program reads or states, and adds nothing;
3. one judge request asks about the statements the guard passed (template and paraphrase
   pairs; a JSON list of ``"same"`` / ``"changed"``);
4. a statement the guard or the judge rejected, or whose reply was not the JSON asked for, is
   asked again alone with a new draw, up to ``--llm-attempts``; then it keeps its template
   text. A statement whose request fails for good (after the client's retries) keeps its
   template text at once. Nothing is dropped: every fallback is counted by its reason.

The program, the label, the cells and the answer never come from the LLM: only ``text`` (and
the question, rendered from the final texts) change, and each statement records its template,
both passes of every attempt, the guard's checks and the judge's verdicts (``paraphrase``,
docs/format.md). A build whose first requests are all refused (401, 403, 404) stops with one
line naming the endpoint and the status.
"""

from __future__ import annotations

import sys
from collections import Counter, deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from tqdm import tqdm

from hopvista.domain import DomainPack
from hopvista.errors import UserError
from hopvista.eval.cache import ResponseCache
from hopvista.eval.prices import Prices
from hopvista.generation.item import item_question
from hopvista.llm.client import (
    LlmClient,
    LlmError,
    LlmReplyError,
    LlmRequestError,
    LlmSpec,
    Usage,
    cost_usd,
    stage_order,
)
from hopvista.llm.prompts import (
    PromptTemplate,
    pairs_variables,
    prompt_template,
    statements_variables,
)
from hopvista.llm.settings import ParaphraseSettings, open_cache, price_table
from hopvista.model import Item
from hopvista.rng import derive_int
from hopvista.verify.guard import guard

REFUSED = (401, 403, 404)
"""Statuses that say every request will fail: a build whose first requests get them stops."""

VERDICTS = ("same", "changed")

#: Why a statement kept its template text, as the manifest and the card count it.
FALLBACK_REASONS = ("guard", "judge: changed", "judge: no verdict", "reply not JSON",
                    "request failed")

Notice = Callable[[str], None]


@dataclass
class _Statement:
    """One statement's paraphrase as it is made."""

    template: str
    attempts: list[dict[str, Any]] = field(default_factory=list)
    kept: int | None = None
    text: str | None = None
    checks: tuple[str, ...] = ()
    failed: bool = False

    @property
    def done(self) -> bool:
        return self.kept is not None or self.failed

    def record(self) -> dict[str, Any]:
        """The statement's ``paraphrase`` field."""
        return {"template": self.template, "kept": self.kept,
                "checks": list(self.checks) if self.kept is not None else [],
                "attempts": self.attempts}


def _strings(count: int) -> Callable[[Any], list[str]]:
    def check(value: Any) -> list[str]:
        if not isinstance(value, list) or len(value) != count or \
                not all(isinstance(v, str) and v.strip() for v in value):
            raise LlmReplyError(f"not a JSON list of {count} non-empty strings")
        return [" ".join(v.split()) for v in value]
    return check


def _verdicts(count: int) -> Callable[[Any], list[str]]:
    def check(value: Any) -> list[str]:
        if not isinstance(value, list) or len(value) != count or \
                not all(isinstance(v, str) and v.strip().lower() in VERDICTS for v in value):
            raise LlmReplyError(f"not a JSON list of {count} verdicts (same or changed)")
        return [v.strip().lower() for v in value]
    return check


class ParaphraseStage:
    """The stage over a build's items (see the module docstring). Made before anything is
    written: an unknown model, a bad endpoint or cache folder is a ``UserError`` here."""

    def __init__(self, settings: ParaphraseSettings, pack: DomainPack, seed: int, *,
                 progress: bool = False, notice: Notice | None = None) -> None:
        self.settings, self.pack, self.seed, self.progress = settings, pack, seed, progress
        self.cache = open_cache(settings.cache)
        prices = price_table(settings.prices)
        self.usage = Usage()
        self.paraphraser = _client(settings.paraphrase, self.cache, prices, self.usage,
                                   settings)
        self.judge = _client(settings.judge, self.cache, prices, self.usage, settings)
        self.prices = prices
        self.prompts: dict[str, PromptTemplate] = {
            name: prompt_template(name, pack)
            for name in ("paraphrase_lexical", "paraphrase_syntactic", "judge")}
        for name, variables in (("paraphrase_lexical", statements_variables(["<s>"], pack)),
                                ("paraphrase_syntactic", statements_variables(["<s>"], pack)),
                                ("judge", pairs_variables([("<s>", "<p>")], pack))):
            self.prompts[name].render(variables)  # a broken template stops the build here
        self.words = pack.spec.words
        self.synonyms = pack.synonyms()
        if settings.judge_is_paraphraser and notice is not None:
            notice(f"--judge {settings.judge.model} is the paraphrasing model at the same "
                   "endpoint: it judges its own paraphrases (FCMR uses separate models to "
                   "mitigate a model's biases)")

    # -- the stream of items ------------------------------------------------------------

    def run(self, items: Iterator[Item]) -> Iterator[Item]:
        """``items`` paraphrased, in order, up to ``concurrency`` items in flight."""
        bar = tqdm(desc="paraphrases", unit="item", disable=not self.progress,
                   file=sys.stderr)
        pool = ThreadPoolExecutor(self.settings.concurrency, thread_name_prefix="hopvista-llm")
        pending: deque[Future[Item]] = deque()
        try:
            for item in items:
                pending.append(pool.submit(self.item, item))
                while len(pending) >= self.settings.concurrency or \
                        (pending and pending[0].done()):
                    yield pending.popleft().result()
                    bar.update()
            while pending:
                yield pending.popleft().result()
                bar.update()
        finally:
            for future in pending:
                future.cancel()
            pool.shutdown(wait=False, cancel_futures=True)
            bar.close()

    def item(self, item: Item) -> Item:
        """``item`` with its statements paraphrased (see the module docstring)."""
        if not item.statements:
            return item
        data = item.model_dump(mode="json")
        made = [_Statement(s.text) for s in item.statements]
        pending = list(range(len(made)))
        for attempt in range(1, self.settings.attempts + 1):
            groups = [pending] if attempt == 1 else [[i] for i in pending]
            for group in groups:
                self._attempt(data, made, group, attempt)
            pending = [i for i in pending if not made[i].done]
            if not pending:
                break
        statements = []
        for raw, one in zip(data["statements"], made, strict=True):
            text = one.text if one.kept is not None and one.text is not None else one.template
            statements.append(raw | {"text": text, "paraphrase": one.record()})
        texts = [s["text"] for s in statements]
        question = item_question(self.pack, [e.name for e in item.entities], texts)
        return Item.model_validate(data | {"statements": statements, "question": question})

    def replay(self, item: Item) -> None:
        """Ask again, from the cache, what ``item`` (a kept item of a resumed build) needed,
        so the build's usage counts it as an uninterrupted build does."""
        templates = [s.paraphrase.template if s.paraphrase is not None else s.text
                     for s in item.statements]
        if all(s.paraphrase is None for s in item.statements):
            return
        data = item.model_dump(mode="json")
        statements = [{k: v for k, v in raw.items() if k != "paraphrase"} | {"text": t}
                      for raw, t in zip(data["statements"], templates, strict=True)]
        question = item_question(self.pack, [e.name for e in item.entities], templates)
        self.item(Item.model_validate(data | {"statements": statements, "question": question}))

    # -- one attempt --------------------------------------------------------------------

    def _draw(self, data: dict[str, Any], step: str, attempt: int, group: list[int]) -> int:
        index = data["provenance"].get("index") or 0
        return derive_int(self.seed, "llm", index, step, attempt,
                          ",".join(str(i) for i in group))

    def _attempt(self, data: dict[str, Any], made: list[_Statement], group: list[int],
                 attempt: int) -> None:
        """Attempt ``attempt`` at the statements ``group`` (indices of ``made``)."""
        templates = [made[i].template for i in group]
        try:
            lexical = self._ask(self.paraphraser, "paraphrase_lexical",
                                statements_variables(templates, self.pack),
                                self._draw(data, "lexical", attempt, group),
                                _strings(len(group)))
        except LlmError as exc:
            self._failed(made, group, exc, None)
            return
        try:
            syntactic = self._ask(self.paraphraser, "paraphrase_syntactic",
                                  statements_variables(lexical, self.pack),
                                  self._draw(data, "syntactic", attempt, group),
                                  _strings(len(group)))
        except LlmError as exc:
            self._failed(made, group, exc, lexical)
            return
        results = {i: guard(text, made[i].template, data["statements"][i], data, self.words,
                            self.synonyms) for i, text in zip(group, syntactic, strict=True)}
        passed = [i for i in group if results[i].passed]
        judged = self._judge(data, made, passed, dict(zip(group, syntactic, strict=True)),
                             attempt)
        verdicts = judged if isinstance(judged, dict) else {}
        for i, lex, syn in zip(group, lexical, syntactic, strict=True):
            judge = None if i not in passed else {
                "model": self.settings.judge.model,
                "prompt_sha256": self.prompts["judge"].sha256, "verdict": verdicts.get(i)}
            made[i].attempts.append({"lexical": lex, "syntactic": syn,
                                     "guard": list(results[i].problems), "judge": judge}
                                    | ({"error": f"request failed: {judged}"}
                                       if i in passed and not isinstance(judged, dict)
                                       else {}))
            made[i].failed = i in passed and not isinstance(judged, dict)
            if i in passed and verdicts.get(i) == "same":
                made[i].kept, made[i].text = attempt, syn
                made[i].checks = results[i].checks

    def _judge(self, data: dict[str, Any], made: list[_Statement], passed: list[int],
               paraphrases: dict[int, str], attempt: int) -> dict[int, str] | LlmRequestError:
        """The judge's verdict on each statement of ``passed`` (none when its reply gave
        none), or the error of a judge request that failed for good."""
        if not passed:
            return {}
        pairs = [(made[i].template, paraphrases[i]) for i in passed]
        try:
            verdicts = self._ask(self.judge, "judge", pairs_variables(pairs, self.pack),
                                 self._draw(data, "judge", attempt, passed),
                                 _verdicts(len(passed)))
        except LlmRequestError as exc:
            return exc
        except LlmReplyError:
            return {}
        return dict(zip(passed, verdicts, strict=True))

    def _ask(self, client: LlmClient, prompt: str, variables: dict[str, Any], draw: int,
             check: Callable[[Any], list[str]]) -> list[str]:
        text = self.prompts[prompt].render(variables)
        try:
            return client.ask_json(text, draw=draw, check=check)
        except LlmRequestError as exc:
            self._refused(client, exc)
            raise

    def _refused(self, client: LlmClient, exc: LlmRequestError) -> None:
        """Stop the build when a step's endpoint refuses it before it answered anything."""
        spec = client.spec
        stage = self.usage.stages.get(spec.stage)
        if exc.status in REFUSED and (stage is None or stage.prompts == 0):
            where = spec.endpoint or "OpenAI's endpoint (OPENAI_BASE_URL unset)"
            raise UserError(f"--{spec.stage} {spec.model}: {where} refused the request "
                            f"({exc}); check the model's name and the key "
                            f"({_key_hint(spec)})")

    def _failed(self, made: list[_Statement], group: list[int], exc: LlmError,
                lexical: list[str] | None) -> None:
        """Record an attempt that got no paraphrase; a request that failed for good ends the
        statement's attempts (it keeps its template text)."""
        failed = isinstance(exc, LlmRequestError)
        why = f"request failed: {exc}" if failed else f"reply not JSON: {exc}"
        for n, i in enumerate(group):
            made[i].attempts.append({"lexical": None if lexical is None else lexical[n],
                                     "syntactic": None, "guard": [], "judge": None,
                                     "error": why})
            made[i].failed = failed


def _client(spec: LlmSpec, cache: ResponseCache, prices: Prices, usage: Usage,
            settings: ParaphraseSettings) -> LlmClient:
    try:
        return LlmClient(spec, cache, prices, usage, timeout=settings.timeout,
                         retries=settings.retries)
    except UserError as exc:
        message = str(exc)
        if message.startswith(f"--{spec.stage} "):
            raise
        if "set OPENAI_API_KEY" in message:
            message = f"set {_key_hint(spec)} (or --{spec.stage}-url URL for a local server)"
        raise UserError(f"--{spec.stage} {spec.model}: {message}") from None


def _key_hint(spec: LlmSpec) -> str:
    return "HOPVISTA_JUDGE_API_KEY or OPENAI_API_KEY" if spec.stage == "judge" \
        else "OPENAI_API_KEY"


def fallback_reason(record: dict[str, Any]) -> str | None:
    """Why a statement's ``paraphrase`` record kept its template text (one of
    :data:`FALLBACK_REASONS`), or ``None`` when a paraphrase was kept."""
    if record.get("kept") is not None:
        return None
    attempts = record.get("attempts") or []
    if not attempts:
        return "request failed"
    last = attempts[-1]
    error = str(last.get("error") or "")
    if error.startswith("request failed"):
        return "request failed"
    if error:
        return "reply not JSON"
    if last.get("guard"):
        return "guard"
    verdict = (last.get("judge") or {}).get("verdict")
    return "judge: changed" if verdict == "changed" else "judge: no verdict"


class ParaphraseCounts:
    """Statements paraphrased and kept, and those that kept their template text by reason
    (fed one item at a time, kept items of a resumed build included)."""

    def __init__(self) -> None:
        self.statements = 0
        self.kept = 0
        self.attempts = 0
        self.fallback: Counter[str] = Counter()

    def add(self, item: Item) -> None:
        """Count ``item``'s statements."""
        for statement in item.statements:
            if statement.paraphrase is None:
                continue
            record = statement.model_dump(mode="json")["paraphrase"]
            self.statements += 1
            self.attempts += len(record.get("attempts") or [])
            reason = fallback_reason(record)
            if reason is None:
                self.kept += 1
            else:
                self.fallback[reason] += 1

    def to_json(self) -> dict[str, Any]:
        """The manifest's ``llm.counts``."""
        return {"statements": self.statements, "kept": self.kept, "attempts": self.attempts,
                "fallback": {r: self.fallback[r] for r in FALLBACK_REASONS if self.fallback[r]}}


def llm_manifest(stage: ParaphraseStage, counts: ParaphraseCounts) -> dict[str, Any]:
    """The manifest's ``llm``: usage per step and the paraphrases' counts."""
    return {"usage": stage.usage.to_json(stage.prices), "counts": counts.to_json()}


def merged_llm(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """The ``llm`` of a build joined from its shards' (``gen merge``): what the single
    build records."""
    usage: dict[str, dict[str, Any]] = {}
    for part in parts:
        for name, step in part["usage"].items():
            into = usage.setdefault(name, {"model": step["model"], "prompts": 0, "unusable": 0,
                                           "input_tokens": 0, "output_tokens": 0,
                                           "tokens_unknown": 0,
                                           "price_usd_per_million":
                                               step["price_usd_per_million"]})
            for key in ("prompts", "unusable", "input_tokens", "output_tokens",
                        "tokens_unknown"):
                into[key] += step[key]
    for step in usage.values():
        step["cost_usd"] = cost_usd(step["input_tokens"], step["output_tokens"],
                                    step["price_usd_per_million"], step["tokens_unknown"])
    fallback: Counter[str] = Counter()
    counts = {"statements": 0, "kept": 0, "attempts": 0}
    for part in parts:
        for key in counts:
            counts[key] += part["counts"][key]
        fallback.update(part["counts"]["fallback"])
    return {"usage": {k: usage[k] for k in sorted(usage, key=stage_order)},
            "counts": counts | {"fallback": {r: fallback[r] for r in FALLBACK_REASONS
                                             if fallback[r]}}}
