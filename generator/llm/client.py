"""One LLM behind an endpoint, as every LLM step of a build asks it.

An :class:`LlmClient` asks the model of an :class:`LlmSpec` (``openai:NAME`` or any entry of
:data:`hopvista.eval.backends.MODELS` that answers prompts) through what the evaluator has:
the ``openai`` client's bounded bodies, timeouts and retries honouring ``Retry-After``
(:mod:`hopvista.eval.openai_model`), the on-disk answer cache (:mod:`hopvista.eval.cache`:
atomic entries, a damaged entry counts as missing), the price table
(:mod:`hopvista.eval.prices`) and the redaction of secrets (:mod:`hopvista.eval.clean`).

**Draws.** A question asked again (a rejected paraphrase) is a new *draw*: the draw is part of
the cache key and is sent as the request's ``seed``, so a retry is a new answer and a rerun or
a resumed build finds every answer it had in the cache and asks nothing twice.

**Keys** come from the environment only: ``OPENAI_API_KEY``, or for a step that names its own
variable (the judge: ``HOPVISTA_JUDGE_API_KEY``) that variable when it is set. They are never
in a cache key, a cached answer, a manifest or a message: answers and errors are redacted
before they are stored or shown.

**Usage.** :class:`Usage` counts, per stage, the requests a build needed (answered now or
found in the cache), the tokens their replies report and their cost by the price table (from
the token totals, so the figures do not depend on the order answers arrived in), and,
separately, what this run sent and found cached. It is safe to share between threads.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from hopvista.errors import UserError
from hopvista.eval.backends import (
    ItemModel,
    Model,
    ModelError,
    Prompt,
    Reply,
    load_model,
    split_spec,
)
from hopvista.eval.cache import ResponseCache, prompt_digest, request_key
from hopvista.eval.clean import Redactor, secrets_of
from hopvista.eval.openai_model import OpenAIChat
from hopvista.eval.prices import Prices
from hopvista.eval.replies import checked_reply

T = TypeVar("T")

STAGES = ("paraphrase", "judge", "facts")
"""The LLM steps of a build, in the order the manifest lists them."""

KEY_VARIABLE = "OPENAI_API_KEY"
"""Where every step's key comes from, unless the step has a variable of its own."""
STAGE_KEY_VARIABLES = {"judge": "HOPVISTA_JUDGE_API_KEY"}
"""A step's own key variable, used instead of :data:`KEY_VARIABLE` when it is set."""

JSON_STARTS = 64
"""How many ``[`` or ``{`` of a reply :func:`parse_json` tries to read a JSON value from."""

_FENCE = re.compile(r"```(?:json|JSON)?[ \t]*\n?(.*?)```", re.DOTALL)
_HTTP_STATUS = re.compile(r"HTTP ([0-9]{3})\b")


@dataclass(frozen=True)
class LlmSpec:
    """What fixes a step's answers (recorded in the manifest; never a key)."""

    stage: str
    """``"paraphrase"``, ``"judge"`` or ``"facts"``."""
    model: str
    """``openai:NAME``, or any model of the registry that answers prompts."""
    endpoint: str | None = None
    """The server's URL (``None``: ``OPENAI_BASE_URL``, else OpenAI's)."""
    parameters: dict[str, Any] = field(default_factory=dict)
    """What each request is sent with (``temperature``, ``max_tokens``, ...)."""

    def to_json(self) -> dict[str, Any]:
        """The spec as the manifest records it."""
        return {"model": self.model, "endpoint": self.endpoint,
                "parameters": dict(sorted(self.parameters.items()))}

    def same_model(self, other: LlmSpec) -> bool:
        """Whether ``other`` asks the same model at the same endpoint."""
        return (self.model, self.endpoint) == (other.model, other.endpoint)


class LlmError(Exception):
    """A request that gave no usable answer."""


class LlmRequestError(LlmError):
    """A request that failed for good (after the client's retries); ``status`` is the HTTP
    status of the last answer, when there was one."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class LlmReplyError(LlmError):
    """A reply that is not the JSON asked for (not JSON, or refused by its check)."""


@dataclass
class StageUsage:
    """What one step asked and what it cost."""

    model: str
    prompts: int = 0
    """Requests answered (now or from the cache)."""
    sent: int = 0
    cached: int = 0
    failed: int = 0
    """Requests that failed for good in this run."""
    unusable: int = 0
    """Answers that were not the JSON asked for."""
    input_tokens: int = 0
    output_tokens: int = 0
    uncounted: int = 0
    """Answers whose token counts the server did not report."""

    def to_json(self, prices: Prices) -> dict[str, Any]:
        """The manifest's figures of the step: what the build needed, whoever asked it."""
        price = self.price(prices)
        return {"model": self.model, "prompts": self.prompts, "unusable": self.unusable,
                "input_tokens": self.input_tokens, "output_tokens": self.output_tokens,
                "tokens_unknown": self.uncounted,
                "price_usd_per_million": None if price is None else list(price),
                "cost_usd": cost_usd(self.input_tokens, self.output_tokens, price,
                                     self.uncounted)}

    def price(self, prices: Prices) -> tuple[float, float] | None:
        """The model's price per million input and output tokens, if the table has it."""
        return prices.table.get(self.model.partition(":")[2] or self.model)


def cost_usd(input_tokens: int, output_tokens: int, price: tuple[float, float] | list[float]
             | None, uncounted: int = 0) -> float | None:
    """What the tokens cost at ``price`` (dollars per million input and output tokens), to
    the millionth of a dollar; ``None`` without a price or when some replies' tokens are
    unknown."""
    if price is None or uncounted:
        return None
    return round((input_tokens * price[0] + output_tokens * price[1]) / 1e6, 6)


class Usage:
    """Requests, tokens and cost per step (see the module docstring); thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.stages: dict[str, StageUsage] = {}

    def _stage(self, spec: LlmSpec) -> StageUsage:
        return self.stages.setdefault(spec.stage, StageUsage(spec.model))

    def answered(self, spec: LlmSpec, reply: Reply, cached: bool) -> None:
        """Count an answer of ``spec``'s step (found in the cache when ``cached``)."""
        with self._lock:
            stage = self._stage(spec)
            stage.prompts += 1
            stage.cached += cached
            stage.sent += not cached
            if reply.input_tokens is None or reply.output_tokens is None:
                stage.uncounted += 1
            stage.input_tokens += reply.input_tokens or 0
            stage.output_tokens += reply.output_tokens or 0

    def failed(self, spec: LlmSpec) -> None:
        """Count a request of ``spec``'s step that failed for good."""
        with self._lock:
            self._stage(spec).failed += 1

    def unusable(self, spec: LlmSpec) -> None:
        """Count an answer of ``spec``'s step that was not the JSON asked for."""
        with self._lock:
            self._stage(spec).unusable += 1

    def to_json(self, prices: Prices) -> dict[str, Any]:
        """The manifest's ``llm.usage``: per step, in :data:`STAGES` order."""
        with self._lock:
            return {name: self.stages[name].to_json(prices)
                    for name in sorted(self.stages, key=stage_order)}

    def summary(self) -> str:
        """What this run sent and found cached, per step (one line, for stderr)."""
        with self._lock:
            parts = [f"{name}: {s.sent} sent, {s.cached} cached"
                     + (f", {s.failed} failed" if s.failed else "")
                     for name, s in sorted(self.stages.items(),
                                           key=lambda kv: stage_order(kv[0]))]
        return "; ".join(parts) or "no request"


def stage_order(name: str) -> tuple[int, str]:
    """Where step ``name`` goes among the steps: in :data:`STAGES` order, others after."""
    return (STAGES.index(name) if name in STAGES else len(STAGES), name)


def key_variable(stage: str) -> str:
    """The environment variable the key of ``stage`` is read from (its own variable when it
    has one and it is set, else :data:`KEY_VARIABLE`)."""
    own = STAGE_KEY_VARIABLES.get(stage)
    return own if own is not None and os.environ.get(own) else KEY_VARIABLE


def open_model(spec: LlmSpec, *, timeout: float | None = None,
               retries: int | None = None) -> Model:
    """The model of ``spec`` (``UserError`` for an unknown model, a bad endpoint or a model
    that cannot answer prompts), with its key from :func:`key_variable`."""
    name, options = split_spec(spec.model)
    options = options | {key: format(value) for key, value in spec.parameters.items()}
    if spec.endpoint is not None:
        options["base_url"] = spec.endpoint
    if timeout is not None:
        options["timeout"] = format(timeout)
    if retries is not None:
        options["max_retries"] = format(retries)
    model: Model | ItemModel
    if name == "openai":
        model = OpenAIChat(options, api_key=os.environ.get(key_variable(spec.stage)))
    else:
        model = load_model(name, options)
    if not isinstance(model, Model):
        raise UserError(f"--{spec.stage} {spec.model}: this model answers items, not prompts")
    return model


class LlmClient:
    """Asks one step's model, through the cache (see the module docstring)."""

    def __init__(self, spec: LlmSpec, cache: ResponseCache, prices: Prices, usage: Usage, *,
                 model: Model | None = None, timeout: float | None = None,
                 retries: int | None = None) -> None:
        self.spec = spec
        self.cache = cache
        self.prices = prices
        self.usage = usage
        self.model = model if model is not None else open_model(spec, timeout=timeout,
                                                                retries=retries)
        identity = getattr(self.model, "cache_identity", None)
        self._identity: dict[str, Any] = identity() if callable(identity) else spec.to_json()
        self.redactor = Redactor([*secrets_of(self.model),
                                  *(os.environ.get(v) or "" for v in
                                    STAGE_KEY_VARIABLES.values())])

    def key(self, text: str, draw: int) -> str:
        """The cache key of asking ``text`` as draw ``draw``."""
        return request_key(self._identity | {"draw": draw}, prompt_digest(Prompt((text,))))

    def ask(self, text: str, *, draw: int = 0) -> Reply:
        """The model's answer to ``text`` as draw ``draw`` (from the cache if it was asked
        before); :class:`LlmRequestError` when the request fails for good."""
        key = self.key(text, draw)
        found = self.cache.get(key)
        if found is not None:
            reply = self._clean(found)
            if reply.text != found.text:
                self.cache.put(key, reply)  # stored by a run that kept a secret in it
            self.usage.answered(self.spec, reply, cached=True)
            return reply
        try:
            answer = self.model.answer(Prompt((text,)), seed=draw) \
                if isinstance(self.model, OpenAIChat) else self.model.answer(Prompt((text,)))
            reply = self._clean(checked_reply(answer))
        except ModelError as exc:
            self.usage.failed(self.spec)
            message = self.redactor.text(" ".join(str(exc).split()))
            status = _HTTP_STATUS.match(message)
            raise LlmRequestError(message, int(status.group(1)) if status else None) from None
        self.cache.put(key, reply)
        self.usage.answered(self.spec, reply, cached=False)
        return reply

    def ask_json(self, text: str, *, draw: int = 0, check: Callable[[Any], T]) -> T:
        """The answer to ``text`` read as JSON (a fenced block or prose around it tolerated)
        and passed through ``check``; :class:`LlmReplyError` when it is not JSON or ``check``
        refuses it (raising ``LlmReplyError``, ``ValueError`` or ``TypeError``), counted as
        unusable: the caller may ask again with another draw."""
        reply = self.ask(text, draw=draw)
        try:
            return check(parse_json(reply.text))
        except (LlmReplyError, ValueError, TypeError, KeyError) as exc:
            self.usage.unusable(self.spec)
            raise LlmReplyError(str(exc) or type(exc).__name__) from None

    def _clean(self, reply: Reply) -> Reply:
        text = self.redactor.text(reply.text)
        return reply if text == reply.text else Reply(text, reply.input_tokens,
                                                      reply.output_tokens)


def parse_json(text: str) -> Any:
    """The JSON value of a reply: the whole text, the first fenced block (```json ... ```),
    or the first value that starts at one of its first :data:`JSON_STARTS` brackets;
    :class:`LlmReplyError` when there is none."""
    decoder = json.JSONDecoder()
    candidates = [m.group(1) for m in _FENCE.finditer(text)][:1] + [text]
    for candidate in candidates:
        candidate = candidate.strip()
        try:
            return json.loads(candidate)
        except (ValueError, RecursionError):
            pass
        starts = [i for i, c in enumerate(candidate) if c in "[{"][:JSON_STARTS]
        for start in starts:
            try:
                return decoder.raw_decode(candidate, start)[0]
            except (ValueError, RecursionError):
                continue
    raise LlmReplyError("the reply is not JSON")
