"""Models the evaluator can ask: a registry of named factories.

An entry of :data:`MODELS` is a *factory*: a callable taking the model's options (strings,
e.g. ``{"model": ..., "base_url": ...}`` from the command line) and returning a model. A class
whose constructor takes the options is a factory, so the decorator sits on the class::

    from hopvista.eval.backends import MODELS, Prompt

    @MODELS.register("always-none")
    class AlwaysNone:
        '''Answers "none" to everything (a floor for set accuracy).'''

        def __init__(self, options: Mapping[str, str]) -> None: ...

        def answer(self, prompt: Prompt) -> str:
            return "none"

A :class:`Model` answers a :class:`Prompt`: text and images in reading order
(``prompt.text`` is the text with ``[image: ROLE]`` where each image goes, ``prompt.images``
the images, each PNG bytes with its role: ``"table"``, ``"chart"``, ``"page"``, ...). The
answer is free text (``"1, 3"``, ``"none"``, a short answer, reasoning and then an answer),
or a :class:`Reply` that adds token counts; the evaluator parses and scores it. A request that
fails for good raises :class:`ModelError`: the evaluator records an error, not a wrong answer,
and a later run asks again.

A model that can hold a conversation (the ``self-refine`` prompt strategy's second turn,
:mod:`hopvista.eval.strategies`) also has ``converse(history, prompt)``: ``history`` the
earlier turns, each an :class:`Exchange` (what it was asked, what it answered), ``prompt``
the new turn.
The method is optional: a model without it answers every other strategy as before, and a
run that needs a conversation refuses it in one line before asking anything.

A baseline that reads the item itself instead of a prompt (``oracle``, ``random``, the
audit's proxies) is an :class:`ItemModel`: ``answer_item(item)``; if it has a
``prepare(items, dataset)`` method, the evaluator calls it once with every item of the run
and the :class:`~hopvista.model.dataset.Dataset` (its manifest, its image files) first.
A model that answers one prompt at a time says so with ``max_concurrency = 1`` (the run
asks no more at once, in dataset order), and one that holds something open (a server, a
socket) has a ``close()`` method, which the evaluator calls when the run ends, however it
ends.

A model that sends secrets with its requests (an API key, a token in a header) lists them in
a ``secrets()`` method; the evaluator redacts them, and ``OPENAI_API_KEY``, from everything
it writes (results, cache, summary, report, run record, messages), answers included
(:mod:`hopvista.eval.clean`). Whatever a model answers is checked before it is scored or
stored (:func:`hopvista.eval.replies.checked_reply`): text that is not a string or is
longer than a million characters, or token counts that are not counts, make an error of the
item, and lone surrogates become U+FFFD.

A factory raises :class:`~hopvista.errors.UserError` for missing or bad options (an unset API
key, say; :func:`check_options` refuses the options a model does not take). Third-party
packages register theirs through the ``hopvista.models`` entry-point group. On the command
line a model is ``NAME`` or ``NAME:ARGUMENT`` (``openai:gpt-4o``, ``proxy:no-chart``); the
argument reaches the factory as ``options["model"]``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from hopvista.errors import UserError
from hopvista.registry import Registry

if TYPE_CHECKING:
    from hopvista.model import Item

__all__ = ["MODELS", "ConversationModel", "Exchange", "ItemModel", "Model", "ModelError",
           "ModelFactory", "Prompt", "PromptImage", "Reply", "ask", "check_options", "converses",
           "load_model", "split_spec"]


@dataclass(frozen=True)
class PromptImage:
    """One image shown to a model: PNG bytes and the role it plays in the item."""

    png: bytes
    role: str


@dataclass(frozen=True)
class Prompt:
    """A prompt: text and images in reading order."""

    parts: tuple[str | PromptImage, ...]

    @property
    def text(self) -> str:
        """The prompt as text, each image shown as ``[image: ROLE]``."""
        return "".join(p if isinstance(p, str) else f"[image: {p.role}]" for p in self.parts)

    @property
    def images(self) -> list[PromptImage]:
        """The images, in order."""
        return [p for p in self.parts if isinstance(p, PromptImage)]


@dataclass(frozen=True)
class Reply:
    """A model's answer with what it cost in tokens (``None`` where unknown)."""

    text: str
    input_tokens: int | None = None
    output_tokens: int | None = None
    seconds: float | None = None
    """How long the answer took to give, where the model measures it (a person's time on
    the item: ``--model human``)."""


@dataclass(frozen=True)
class Exchange:
    """An earlier turn of a conversation: what the model was asked, and what it answered."""

    prompt: Prompt
    reply: str


class ModelError(Exception):
    """A request that failed for good (after the model's own retries): recorded as an error
    of the item, which a later run of the same evaluation asks again."""


@runtime_checkable
class Model(Protocol):
    """Anything that answers a prompt."""

    def answer(self, prompt: Prompt) -> str | Reply:
        """The model's answer to ``prompt``."""
        ...


@runtime_checkable
class ItemModel(Protocol):
    """A baseline that answers from the item itself."""

    def answer_item(self, item: Item) -> str | Reply:
        """The baseline's answer for ``item``."""
        ...


@runtime_checkable
class ConversationModel(Protocol):
    """A model that can be asked a further turn of a conversation."""

    def converse(self, history: Sequence[Exchange], prompt: Prompt) -> str | Reply:
        """The model's answer to ``prompt`` after the earlier turns ``history``."""
        ...


def converses(model: object) -> bool:
    """Whether ``model`` holds conversations (it has ``converse(history, prompt)``)."""
    return isinstance(model, ConversationModel)


def ask(model: Model, history: Sequence[Exchange], prompt: Prompt) -> str | Reply:
    """``model``'s answer to ``prompt`` after ``history`` (none: its ``answer``);
    ``TypeError`` for a history given to a model that holds no conversation."""
    if not history:
        return model.answer(prompt)
    if not isinstance(model, ConversationModel):
        raise TypeError(f"{type(model).__name__} has no converse(history, prompt) method")
    return model.converse(history, prompt)


ModelFactory = Callable[[Mapping[str, str]], "Model | ItemModel"]
"""``factory(options) -> Model | ItemModel``."""

MODELS: Registry[ModelFactory] = Registry("model", "models", builtins=(
    "hopvista.eval.baselines", "hopvista.eval.openai_model", "hopvista.eval.audit_models",
    "hopvista.eval.ocr", "hopvista.eval.human"))
"""Every model factory by name (entry-point group ``hopvista.models``)."""


def split_spec(spec: str) -> tuple[str, dict[str, str]]:
    """``"openai:gpt-4o"`` → ``("openai", {"model": "gpt-4o"})``; ``"random"`` →
    ``("random", {})``."""
    name, colon, argument = spec.partition(":")
    if not name:
        raise UserError(f"--model {spec!r}: no model name")
    return name, ({"model": argument} if colon else {})


def load_model(name: str, options: Mapping[str, str] | None = None) -> Model | ItemModel:
    """The model ``name`` made with ``options``; ``UserError`` for an unknown name.

    Raises ``TypeError`` when the factory returns something with neither ``answer`` nor
    ``answer_item``.
    """
    model = MODELS.get(name)(dict(options or {}))
    if not isinstance(model, (Model, ItemModel)):
        raise TypeError(f"model {name!r}: the factory returned {type(model).__name__}, "
                        "which has no answer(prompt) or answer_item(item) method")
    return model


def check_options(model: str, options: Mapping[str, str], known: Iterable[str] = ()) -> None:
    """``UserError`` naming the first of ``options`` that model ``model`` does not take
    (``known`` lists those it does; ``"model"`` is the argument after ``NAME:``)."""
    allowed = set(known)
    for key in sorted(set(options) - allowed):
        if key == "model":
            raise UserError(f"--model {model}:{options[key]}: {model} takes no argument "
                            "after the colon")
        takes = ", ".join(sorted(allowed - {"model"})) or "none"
        flag = "--base-url" if key == "base_url" else f"--option {key}"
        raise UserError(f"{flag}: the model {model} has no such option (its options: "
                        f"{takes})")
