"""``openai:NAME``: any OpenAI-compatible chat endpoint (OpenAI, vLLM, Ollama, LM Studio,
OpenRouter, …) through the ``openai`` package.

Options (``gen eval --base-url URL --option KEY=VALUE``):

``base_url``
    The endpoint (default: ``OPENAI_BASE_URL``, else OpenAI's). The key is read from
    ``OPENAI_API_KEY``; a local endpoint that needs none may leave it unset.
``temperature`` (default 0), ``max_tokens`` (default: the server's), ``seed``
    Sent with each request (and part of the cache key).
``timeout`` (seconds, default 120), ``max_retries`` (default 4)
    The client retries 408, 409, 429, 5xx answers, timeouts and dropped connections with
    exponential backoff, honouring ``Retry-After``; a request that still fails raises
    :class:`~hopvista.models.ModelError` (an error of the item, asked again by a later run).

Images go as base64 ``data:image/png`` URLs, in the prompt's order among its text parts.
The key is never stored: not in the cache key, the run, the results or an error message.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Mapping
from typing import Any

from hopvista.errors import UserError
from hopvista.models import MODELS, ModelError, Prompt, PromptImage, Reply

DEFAULTS = {"temperature": "0", "timeout": "120", "max_retries": "4"}
SENT = ("temperature", "max_tokens", "seed")
KNOWN = {"model", "base_url", *SENT, "timeout", "max_retries"}


def _number(options: Mapping[str, str], key: str, kind: type[int] | type[float]) -> Any:
    value = options.get(key, DEFAULTS.get(key))
    if value is None:
        return None
    try:
        return kind(value)
    except ValueError:
        raise UserError(f"--option {key}={value}: not a number") from None


@MODELS.register("openai")
class OpenAIChat:
    """A chat model behind an OpenAI-compatible endpoint."""

    def __init__(self, options: Mapping[str, str]) -> None:
        unknown = sorted(set(options) - KNOWN)
        if unknown:
            raise UserError(f"openai: unknown option {unknown[0]!r} "
                            f"(options: {', '.join(sorted(KNOWN - {'model'}))})")
        self.name = options.get("model") or ""
        if not self.name:
            raise UserError("--model openai:NAME: give the model's name after the colon")
        try:
            import openai
        except ImportError:
            raise UserError("openai:…: install the openai package (pip install openai)") \
                from None
        self.base_url = options.get("base_url") or os.environ.get("OPENAI_BASE_URL") or None
        key = os.environ.get("OPENAI_API_KEY")
        if not key and self.base_url is None:
            raise UserError("openai:…: set OPENAI_API_KEY (or --base-url for a local server)")
        self.parameters: dict[str, Any] = {
            "temperature": _number(options, "temperature", float),
            "max_tokens": _number(options, "max_tokens", int),
            "seed": _number(options, "seed", int),
        }
        self.parameters = {k: v for k, v in self.parameters.items() if v is not None}
        self._errors = openai
        self._client = openai.OpenAI(api_key=key or "unused", base_url=self.base_url,
                                     timeout=_number(options, "timeout", float),
                                     max_retries=_number(options, "max_retries", int))

    def cache_identity(self) -> dict[str, Any]:
        """What, besides the prompt, decides the answer (the cache key; no key in it)."""
        return {"model": f"openai:{self.name}", "endpoint": self.base_url,
                "parameters": self.parameters}

    def answer(self, prompt: Prompt) -> Reply:
        """Ask the endpoint."""
        content: str | list[dict[str, Any]] = \
            [_part(p) for p in prompt.parts] if prompt.images else prompt.text
        try:
            messages: Any = [{"role": "user", "content": content}]
            response = self._client.chat.completions.create(
                model=self.name, messages=messages, **self.parameters)
        except self._errors.APIStatusError as exc:
            raise ModelError(f"HTTP {exc.status_code}: {_short(exc.message)}") from None
        except self._errors.APITimeoutError:
            raise ModelError("timed out") from None
        except self._errors.APIConnectionError as exc:
            raise ModelError(f"connection failed: {_short(str(exc))}") from None
        except self._errors.OpenAIError as exc:  # a response of the wrong shape, say
            raise ModelError(f"{type(exc).__name__}: {_short(str(exc))}") from None
        except ValueError as exc:  # a body that is not JSON
            raise ModelError(f"malformed response: {_short(str(exc))}") from None
        try:
            text = response.choices[0].message.content or ""
        except (AttributeError, IndexError, TypeError):
            raise ModelError("the response has no message") from None
        usage = getattr(response, "usage", None)
        return Reply(text, getattr(usage, "prompt_tokens", None),
                     getattr(usage, "completion_tokens", None))


def _part(part: str | PromptImage) -> dict[str, Any]:
    if isinstance(part, str):
        return {"type": "text", "text": part}
    url = "data:image/png;base64," + base64.b64encode(part.png).decode("ascii")
    return {"type": "image_url", "image_url": {"url": url}}


def _short(text: str) -> str:
    key = os.environ.get("OPENAI_API_KEY")
    if key:
        text = text.replace(key, "***")
    line = " ".join(text.split())
    return line[:200]
