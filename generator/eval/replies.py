"""A model's answer as the evaluator accepts it: text of bounded length, token counts that
are counts. Anything else is an error of the item (:class:`~hopvista.eval.backends.ModelError`),
never a crash, whatever a model or a server sends.
"""

from __future__ import annotations

from typing import Any

from hopvista.eval.backends import ModelError, Reply
from hopvista.eval.clean import plain_text

MAX_REPLY_CHARS = 1_000_000
"""The longest reply scored; a longer one is an error of the item."""
MAX_TOKENS = 1_000_000_000
"""The most tokens a request is believed to have cost (on either side)."""


def checked_reply(answer: Any) -> Reply:
    """``answer`` (text or a :class:`Reply`) as a Reply: lone surrogates replaced by U+FFFD,
    text no longer than :data:`MAX_REPLY_CHARS`, token counts whole numbers from 0 to
    :data:`MAX_TOKENS` (or unknown), seconds a time (or unknown). ``ModelError`` naming
    what is wrong otherwise."""
    if isinstance(answer, str):
        answer = Reply(answer)
    if not isinstance(answer, Reply):
        raise ModelError(f"malformed response: the model answered {type(answer).__name__}, "
                         "not text")
    if not isinstance(answer.text, str):
        raise ModelError(f"malformed response: the answer is {type(answer.text).__name__}, "
                         "not text")
    if len(answer.text) > MAX_REPLY_CHARS:
        raise ModelError(f"malformed response: the answer has {len(answer.text):,} "
                         f"characters, more than {MAX_REPLY_CHARS:,}")
    for side, count in (("input", answer.input_tokens), ("output", answer.output_tokens)):
        check_tokens(side, count)
    check_seconds(answer.seconds)
    return Reply(plain_text(answer.text), answer.input_tokens, answer.output_tokens,
                 answer.seconds)


MAX_SECONDS = 366 * 24 * 3600.0
"""The longest an answer is believed to have taken."""


def check_seconds(seconds: Any) -> None:
    """``ModelError`` unless ``seconds`` is ``None`` or a time from 0 to
    :data:`MAX_SECONDS`."""
    if seconds is None:
        return
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or \
            not 0 <= seconds <= MAX_SECONDS:
        raise ModelError(f"malformed response: {_shown(seconds)} is not a time in seconds "
                         f"(0 to {MAX_SECONDS:,.0f})")


def check_tokens(side: str, count: Any) -> None:
    """``ModelError`` unless ``count`` is ``None`` or a whole number of tokens in range."""
    if count is None:
        return
    if isinstance(count, bool) or not isinstance(count, int) or \
            not 0 <= count <= MAX_TOKENS:
        raise ModelError(f"malformed response: {_shown(count)} {side} tokens is not a token "
                         f"count (0 to {MAX_TOKENS:,})")


def _shown(value: Any) -> str:
    if isinstance(value, int) and value.bit_length() > 128:
        return f"a {value.bit_length():,}-bit number of"
    text = repr(value)
    return text if len(text) <= 40 else text[:40] + "…"
