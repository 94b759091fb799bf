"""What a build's paraphrase stage is asked to do (``gen build --paraphrase M --judge J``),
checked before anything is built.

:class:`ParaphraseSettings` holds the two steps' :class:`~hopvista.llm.client.LlmSpec`, the
attempt bound and how the stage runs (cache, concurrency, prices, timeout). Only what fixes
the bytes goes into the build's config (:meth:`ParaphraseSettings.to_json`, the manifest's
``config.llm``, and so the resume key): models, endpoints, parameters, prompt SHA-256s, the
attempt bound and the synonyms the guard accepted. Where answers are cached, how many requests
run at once and how long one may take do not.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hopvista.domain import DomainPack
from hopvista.errors import UserError
from hopvista.eval.cache import ResponseCache
from hopvista.eval.openai_model import endpoint
from hopvista.eval.paths import writable_folder
from hopvista.eval.prices import Prices
from hopvista.llm.client import LlmSpec
from hopvista.llm.prompts import prompt_template

DEFAULT_ATTEMPTS = 3
"""Attempts per statement before it keeps its template text (``--llm-attempts``)."""
MAX_ATTEMPTS = 20
DEFAULT_CONCURRENCY = 4
"""Items whose requests are in flight at once (``--llm-concurrency``)."""
MAX_CONCURRENCY = 256
DEFAULT_TIMEOUT = 120.0
"""Seconds one request may take (``--llm-timeout``); the client retries after it."""
DEFAULT_RETRIES = 4
"""Retries of a request that timed out, was refused for now (408, 409, 429) or failed on the
server (5xx), with backoff honouring ``Retry-After`` (``--llm-retries``)."""
MAX_RETRIES = 20

PARAPHRASE_PARAMETERS: dict[str, Any] = {"temperature": 0.7}
"""What each paraphrase request is sent with (a retry's new draw is its ``seed``)."""
JUDGE_PARAMETERS: dict[str, Any] = {"temperature": 0}
"""What each judge request is sent with."""

PARAPHRASE_PROMPTS = ("paraphrase_lexical", "paraphrase_syntactic")


def default_cache() -> Path:
    """Where answers are cached unless ``--llm-cache`` says: ``$XDG_CACHE_HOME/hopvista/llm``,
    else ``~/.cache/hopvista/llm``."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "hopvista" / "llm"


@dataclass(frozen=True, kw_only=True)
class LlmRun:
    """How an LLM step of a build runs, which does not fix its bytes: requests in flight at
    once, where answers are cached, the price table, a request's timeout and its retries."""

    concurrency: int = field(default=DEFAULT_CONCURRENCY, compare=False)
    cache: Path | None = field(default=None, compare=False)
    prices: Path | None = field(default=None, compare=False)
    timeout: float = field(default=DEFAULT_TIMEOUT, compare=False)
    retries: int = field(default=DEFAULT_RETRIES, compare=False)


@dataclass(frozen=True)
class ParaphraseSettings(LlmRun):
    """The paraphrase stage of a build (see the module docstring)."""

    paraphrase: LlmSpec
    judge: LlmSpec
    attempts: int = DEFAULT_ATTEMPTS

    @classmethod
    def make(cls, paraphrase: str | None, judge: str | None, *,
             paraphrase_url: str | None = None, judge_url: str | None = None,
             attempts: int = DEFAULT_ATTEMPTS, concurrency: int = DEFAULT_CONCURRENCY,
             cache: str | Path | None = None, prices: str | Path | None = None,
             timeout: float = DEFAULT_TIMEOUT,
             retries: int = DEFAULT_RETRIES) -> ParaphraseSettings | None:
        """The settings of the flags given, checked (``UserError`` naming the flag); ``None``
        when neither model is given and no other LLM flag is."""
        if paraphrase is None and judge is None:
            given = {"--paraphrase-url": paraphrase_url is not None,
                     "--judge-url": judge_url is not None,
                     "--llm-attempts": attempts != DEFAULT_ATTEMPTS,
                     "--llm-concurrency": concurrency != DEFAULT_CONCURRENCY,
                     "--llm-cache": cache is not None, "--llm-timeout": timeout != DEFAULT_TIMEOUT,
                     "--llm-retries": retries != DEFAULT_RETRIES}
            for flag, was_given in given.items():
                if was_given:
                    raise UserError(f"{flag} applies to the paraphrase stage: give "
                                    "--paraphrase MODEL and --judge MODEL")
            return None
        if judge is None:
            raise UserError("--paraphrase needs --judge MODEL: a paraphrase is kept only when "
                            "a judge finds its meaning unchanged")
        if paraphrase is None:
            raise UserError("--judge applies to the paraphrase stage: give --paraphrase MODEL")
        if not 1 <= attempts <= MAX_ATTEMPTS:
            raise UserError(f"--llm-attempts {attempts}: must be from 1 to {MAX_ATTEMPTS}")
        check_limits(concurrency, timeout, retries)
        return cls(
            paraphrase=LlmSpec("paraphrase", checked_model(paraphrase, "--paraphrase"),
                               checked_url(paraphrase_url, "--paraphrase-url"),
                               dict(PARAPHRASE_PARAMETERS)),
            judge=LlmSpec("judge", checked_model(judge, "--judge"),
                          checked_url(judge_url, "--judge-url"), dict(JUDGE_PARAMETERS)),
            attempts=attempts, concurrency=concurrency,
            cache=None if cache is None else Path(cache),
            prices=None if prices is None else Path(prices), timeout=timeout, retries=retries)

    @property
    def judge_is_paraphraser(self) -> bool:
        """Whether the judge is the paraphrasing model at the same endpoint."""
        return self.paraphrase.same_model(self.judge)

    def to_json(self, pack: DomainPack) -> dict[str, Any]:
        """The manifest's ``config.llm``: what fixes the paraphrases (no key)."""
        prompts = {name: prompt_template(name, pack) for name in (*PARAPHRASE_PROMPTS, "judge")}
        return {
            "paraphrase": self.paraphrase.to_json() | {
                "prompts": {name: prompts[name].to_json() for name in PARAPHRASE_PROMPTS}},
            "judge": self.judge.to_json() | {"prompts": {"judge": prompts["judge"].to_json()}},
            "judge_is_paraphraser": self.judge_is_paraphraser,
            "attempts": self.attempts,
            "synonyms": pack.synonyms().to_json(),
        }


def check_limits(concurrency: int, timeout: float, retries: int) -> None:
    """``UserError`` naming the flag whose value is out of its range."""
    if not 1 <= concurrency <= MAX_CONCURRENCY:
        raise UserError(f"--llm-concurrency {concurrency}: must be from 1 to {MAX_CONCURRENCY}")
    if not 0 <= retries <= MAX_RETRIES:
        raise UserError(f"--llm-retries {retries}: must be from 0 to {MAX_RETRIES}")
    if not 0 < timeout <= 86400:
        raise UserError(f"--llm-timeout {timeout:g}: seconds, more than 0 and at most 86400")


def open_cache(cache: Path | None) -> ResponseCache:
    """The answer cache in ``cache`` (``--llm-cache``), else in :func:`default_cache`; a
    folder that cannot be written is a ``UserError`` naming it."""
    folder = cache if cache is not None else default_cache()
    shown = f"--llm-cache {cache}" if cache is not None else f"the LLM cache {folder}"
    return ResponseCache(writable_folder(folder, "--llm-cache"), shown)


def price_table(prices: Path | None) -> Prices:
    """The price table of ``--prices``, else the built-in one."""
    return Prices.read(prices) if prices is not None else Prices.builtin()


def checked_model(spec: str, flag: str) -> str:
    """``spec`` if it names a model (``NAME`` or ``NAME:ARGUMENT``), else ``UserError``
    naming ``flag``."""
    name, colon, argument = spec.partition(":")
    if not name or (colon and not argument) or any(c.isspace() for c in spec):
        raise UserError(f"{flag} {spec!r}: give a model as openai:NAME (e.g. openai:gpt-4o-mini)")
    return spec


def checked_url(value: str | None, flag: str) -> str | None:
    """The endpoint of ``flag``, else ``OPENAI_BASE_URL``'s (so the manifest names the server
    asked), checked; ``None``: OpenAI's."""
    if value is not None:
        return endpoint(value, flag)
    default = os.environ.get("OPENAI_BASE_URL")
    return endpoint(default, "OPENAI_BASE_URL") if default else None
