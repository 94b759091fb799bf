"""The prompts of the LLM stage: Jinja2 templates, rendered in the pack sandbox.

The built-in ones are ``templates/prompts/paraphrase_lexical.j2``,
``paraphrase_syntactic.j2``, ``judge.j2`` and ``facts.j2``; a domain pack overrides one by
shipping ``prompts/NAME.j2`` in its folder. A template is data like a pack's forms: it
renders in :class:`hopvista.sandbox.PackEnvironment`, bounded in work, time and size, and
the SHA-256 of its source is recorded in the manifest (``config.llm``) and, for the judge,
beside each verdict.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

from hopvista import sandbox
from hopvista.domain import DomainPack
from hopvista.errors import UserError
from hopvista.yamlfile import read_text

PROMPT_NAMES = ("paraphrase_lexical", "paraphrase_syntactic", "judge", "facts")
"""The stage's prompts, each ``NAME.j2``."""

PACK_PROMPTS = "prompts"
"""The folder of a pack where its own prompts go."""

_ENV = sandbox.PackEnvironment(keep_trailing_newline=False, trim_blocks=False)


@dataclass(frozen=True)
class PromptTemplate:
    """One prompt's template: its source, where it comes from and its SHA-256."""

    name: str
    source: str
    origin: str
    """``built-in``, or the pack's file."""

    @property
    def sha256(self) -> str:
        """The SHA-256 of the template's source."""
        return hashlib.sha256(self.source.encode("utf-8")).hexdigest()

    def render(self, variables: dict[str, Any]) -> str:
        """The prompt: the template rendered with ``variables`` (a ``UserError`` naming the
        template's file and line when it cannot be)."""
        try:
            return _ENV.from_string(self.source).render(**variables).strip() + "\n"
        except sandbox.TEMPLATE_ERRORS as exc:
            line = sandbox.template_line(exc)
            raise UserError(f"{self.origin}{f':{line}' if line else ''}: "
                            f"{sandbox.describe(exc, sorted(variables), False)}") from None

    def to_json(self) -> dict[str, str]:
        """What the manifest records of it."""
        return {"origin": self.origin, "sha256": self.sha256}


def prompt_template(name: str, pack: DomainPack | None = None) -> PromptTemplate:
    """Prompt ``name``: the pack's ``prompts/NAME.j2`` when it has one, else the built-in."""
    if name not in PROMPT_NAMES:
        raise ValueError(f"no prompt {name!r}")
    if pack is not None:
        own = pack.path / PACK_PROMPTS / f"{name}.j2"
        if own.exists():
            return PromptTemplate(name, read_text(own, sandbox.MAX_SOURCE_CHARS * 4,
                                                  "prompt template"), str(own))
    source = resources.files("hopvista.templates.prompts").joinpath(f"{name}.j2")
    return PromptTemplate(name, source.read_text(encoding="utf-8"), "built-in")


def statements_variables(texts: list[str], pack: DomainPack) -> dict[str, Any]:
    """The variables of a paraphrase pass over ``texts``."""
    return {"statements": list(texts), "statements_json": json.dumps(texts, indent=1,
                                                                      ensure_ascii=False),
            **_entity_words(pack)}


def pairs_variables(pairs: list[tuple[str, str]], pack: DomainPack) -> dict[str, Any]:
    """The variables of a judge's prompt over ``(original, paraphrase)`` pairs."""
    listed = [{"original": a, "paraphrase": b} for a, b in pairs]
    return {"pairs": listed, "pairs_json": json.dumps(listed, indent=1, ensure_ascii=False),
            **_entity_words(pack)}


def _entity_words(pack: DomainPack) -> dict[str, str]:
    entity = pack.spec.entity
    return {"singular": entity.singular, "plural": entity.plural}
