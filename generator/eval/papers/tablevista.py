"""TableVista's exact match, reproduced: ``gen eval --metric tablevista``.

TableVista's ``scripts/eval.py`` takes the prediction from an ``<answer>…</answer>`` span if
the reply has one, else the text after the last ``</think>`` (or ``◁/think▷``), else the whole
reply; it and the gold are lowercased with runs of whitespace made one space, and compared for
equality (``tablevista_em``). Its prompt asks for the answer only, so a reply with reasoning
before the answer scores 0 here where hopvista's parser reads the answer line.
"""

from __future__ import annotations

import re
from typing import Any

from hopvista.eval.papers.mmtabreal import gold_text
from hopvista.model import Item

_ANSWER = re.compile(r"<answer>(.*?)</answer>", re.IGNORECASE | re.DOTALL)
_THINKING = (re.compile(r"^.*</think>", re.DOTALL), re.compile(r"^.*◁/think▷", re.DOTALL))


def normalise(text: Any) -> str:
    """TableVista's ``normalize_answer``: lowercased, whitespace runs made one space."""
    return re.sub(r"\s+", " ", str(text).strip().lower())


def extract(reply: str) -> str:
    """TableVista's ``extract_answer``: the ``<answer>`` span, or what follows the reasoning."""
    match = _ANSWER.search(reply)
    if match:
        return match.group(1).strip()
    for thinking in _THINKING:
        reply = thinking.sub("", reply)
    return reply.strip()


def score(item: Item, response: str, parsed: Any, rule: str | None) -> dict[str, float]:
    """``tablevista_em`` of the reply ``response`` (TableVista reads the reply itself, not
    hopvista's parse of it). The gold is the answer as MMTabReal's script reads it; a boolean's
    ``Yes`` / ``No`` is lowercased with the rest."""
    return {"tablevista_em": float(normalise(extract(response)) == normalise(gold_text(item)))}
