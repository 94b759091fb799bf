"""Statement text from the domain pack's Jinja2 surface forms."""

from __future__ import annotations

from functools import lru_cache

import jinja2
import numpy as np

_ENV = jinja2.Environment(undefined=jinja2.StrictUndefined, autoescape=False,
                          keep_trailing_newline=False)


@lru_cache(maxsize=512)
def template(source: str) -> jinja2.Template:
    """A compiled Jinja2 template of the pack (strict: an unknown variable is an error)."""
    return _ENV.from_string(source)


def render(forms: list[str], variables: dict[str, str], rng: np.random.Generator) -> str:
    """Render one surface form, chosen by ``rng``, with ``variables``."""
    source = forms[int(rng.integers(len(forms)))]
    text = template(source).render(**variables).strip()
    return text[0].upper() + text[1:] if text else text
