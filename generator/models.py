"""Models the evaluator can ask: a registry of named factories.

An entry of :data:`MODELS` is a *factory*: a callable taking the model's options (strings,
e.g. ``{"base_url": ..., "model": ...}`` from the command line) and returning a :class:`Model`,
an object with ``answer(prompt, images) -> str``. A class whose constructor takes the options
is a factory, so the decorator sits on the class::

    from hopvista.models import MODELS, PromptImage

    @MODELS.register("always-none")
    class AlwaysNone:
        '''Answers "none" to everything (a floor for set accuracy).'''

        def __init__(self, options: Mapping[str, str]) -> None: ...

        def answer(self, prompt: str, images: Sequence[PromptImage]) -> str:
            return "none"

``prompt`` is the full question text; ``images`` the item's images in the order the prompt
refers to them, each with its role (``"table"``, ``"chart"``, ...). The answer is free text
(``"1, 3"``, ``"none"``, a short answer); the evaluator parses and scores it. A factory raises
:class:`~hopvista.errors.UserError` for missing or bad options (an unset API key, say).
Third-party packages register theirs through the ``hopvista.models`` entry-point group.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from hopvista.registry import Registry

__all__ = ["MODELS", "Model", "ModelFactory", "PromptImage", "load_model"]


@dataclass(frozen=True)
class PromptImage:
    """One image shown to a model: PNG bytes and the role it plays in the item."""

    png: bytes
    role: str


@runtime_checkable
class Model(Protocol):
    """Anything that answers a prompt with images."""

    def answer(self, prompt: str, images: Sequence[PromptImage]) -> str:
        """The model's answer to ``prompt`` shown with ``images``."""
        ...


ModelFactory = Callable[[Mapping[str, str]], Model]
"""``factory(options) -> Model``."""

MODELS: Registry[ModelFactory] = Registry("model", "models")
"""Every model factory by name (entry-point group ``hopvista.models``)."""


def load_model(name: str, options: Mapping[str, str] | None = None) -> Model:
    """The model ``name`` made with ``options``; ``UserError`` for an unknown name.

    Raises ``TypeError`` when the factory returns something without ``answer``.
    """
    model = MODELS.get(name)(dict(options or {}))
    if not isinstance(model, Model):
        raise TypeError(f"model {name!r}: the factory returned {type(model).__name__}, "
                        "which has no answer(prompt, images) method")
    return model
