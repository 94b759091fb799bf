"""Statement text and the question from the domain pack's Jinja2 templates, rendered as data in
:class:`hopvista.sandbox.PackEnvironment` (no code runs; work and size are bounded)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import jinja2
import numpy as np

from hopvista import sandbox
from hopvista.errors import UserError

if TYPE_CHECKING:
    from hopvista.domain import DomainPack

_ENV = sandbox.PackEnvironment(keep_trailing_newline=False)


@lru_cache(maxsize=512)
def template(source: str) -> jinja2.Template:
    """A compiled, sandboxed template of the pack (strict: an unknown variable is an error)."""
    return _ENV.from_string(source)


def render_template(source: str, variables: dict[str, Any], where: str) -> str:
    """``source`` rendered with ``variables``; a :class:`UserError` beginning with ``where``
    (the file, line and field the template comes from) when it cannot be."""
    try:
        return template(source).render(**variables)
    except sandbox.TEMPLATE_ERRORS as exc:
        raise UserError(f"{where}: {sandbox.describe(exc, sorted(variables))}") from None


def render_form(pack: DomainPack, type_name: str, variables: dict[str, str],
                rng: np.random.Generator) -> str:
    """One surface form of ``type_name``, chosen by ``rng``, rendered with ``variables``."""
    forms = pack.words.forms[type_name]
    index = int(rng.integers(len(forms)))
    text = render_template(forms[index], variables,
                           field_where(pack, ("forms", type_name, index))).strip()
    return text[0].upper() + text[1:] if text else text


def render_question(pack: DomainPack, variables: dict[str, Any]) -> str:
    """The pack's question rendered with ``variables`` (``names``, ``statements``, …)."""
    return render_template(pack.spec.question, variables, field_where(pack, ("question",)))


def field_where(pack: DomainPack, loc: Sequence[int | str]) -> str:
    """``domain.yaml:LINE: field 'a.b.0'`` for a field of ``pack``."""
    if pack.lines is not None:
        return pack.lines.where(loc)
    from hopvista.domain import DOMAIN_FILE

    return f"{pack.path / DOMAIN_FILE}: field '{'.'.join(str(p) for p in loc)}'"
