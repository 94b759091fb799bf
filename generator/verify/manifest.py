"""What ``manifest.json`` says the items, counts and files must agree with.

A path that is not a hopvista dataset (no folder, no readable manifest, another format or a
version this hopvista cannot read) is the user's mistake, found by
:func:`hopvista.model.dataset.read_manifest`. A hopvista manifest whose fields are wrong is a
problem of the dataset: each wrong field is reported, and the checks that need it are skipped
(the dataset fails anyway).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, TypeGuard

from hopvista.domain import MIN_MARGIN, DomainPack, Identity, parse_identity
from hopvista.model.balance import LEVEL_NAMES
from hopvista.program.statement_types import STATEMENT_TYPES
from hopvista.verify.checks import related_groups

Report = Callable[[str], None]


@dataclass(frozen=True)
class Expect:
    """What the manifest says every item and count must match; ``None`` where the manifest's
    field is unusable (already reported). ``version`` is the format version the dataset was
    written in (its items are migrated to the current one before they are checked).

    ``margins``, ``identities`` and ``related`` are what the proofs use: the manifest's for a
    custom pack, the installed pack's for a built-in pack's dataset (``pack``, see
    :func:`held_to_pack`), whatever its manifest records."""

    version: int
    domain: str | None
    seed: int | None
    count: int | None
    images: bool | None
    levels: tuple[str, ...] | None
    margins: tuple[float, float] | None
    identities: list[Identity] | None
    types: tuple[str, ...] | None
    config: dict[str, Any]
    defences: bool = False
    """Whether the build defeats proxy solvers (format 4 ``config.defences``)."""
    related: list[list[str]] = field(default_factory=list)
    pack: str | None = None
    """The installed pack the dataset is held to, if it is a built-in pack's."""


def held_to_pack(expect: Expect, pack: DomainPack) -> Expect:
    """``expect`` holding a built-in pack's dataset to the installed ``pack``: its margins,
    identities and related columns, not those the manifest records."""
    decide = pack.spec.decidability
    return replace(expect, pack=pack.name, margins=(decide.min_rank_gap, decide.min_trend_step),
                   identities=list(pack.identities),
                   related=[list(group) for group in pack.spec.related])


def _bad(report: Report, path: str, expected: str, value: Any) -> None:
    shown = repr(value)
    shown = shown if len(shown) <= 40 else shown[:37] + "..."
    report(f"manifest.json: field '{path}': expected {expected}, got {shown}")


def _whole(config: dict[str, Any], key: str, low: int, report: Report) -> int | None:
    value = config.get(key)
    if type(value) is not int or value < low:
        _bad(report, f"config.{key}", f"a whole number >= {low}", value)
        return None
    return value


#: What a decidability margin must be (:data:`hopvista.domain.MIN_MARGIN`), as messages say.
MARGIN_EXPECTED = f"a fraction from {MIN_MARGIN} to below 1 (a difference of less than " \
    f"{MIN_MARGIN:.0%} of a chart's axis is not one a reader can see)"
MARGIN_KEYS = ("min_rank_gap", "min_trend_step")


def visible_margin(value: Any) -> TypeGuard[float]:
    """Whether ``value`` is a decidability margin a pack may ask for: a number from
    :data:`~hopvista.domain.MIN_MARGIN` to below 1."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and \
        math.isfinite(value) and MIN_MARGIN <= value < 1


def recorded_margins(config: dict[str, Any], report: Report) -> tuple[float, float] | None:
    """The margins ``config.decidability`` records, when they are ones a reader can see (else
    the field is reported, and ``None``)."""
    decide = config.get("decidability")
    values = []
    for key in MARGIN_KEYS:
        value = decide.get(key) if isinstance(decide, dict) else None
        if not visible_margin(value):
            _bad(report, f"config.decidability.{key}", MARGIN_EXPECTED, value)
            return None
        values.append(float(value))
    return values[0], values[1]


def _identities(config: dict[str, Any], report: Report) -> list[Identity] | None:
    texts = config.get("identities")
    if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
        _bad(report, "config.identities", "a list of identities", texts)
        return None
    try:
        return [parse_identity(text) for text in texts]
    except ValueError as exc:
        report(f"manifest.json: field 'config.identities': {exc}")
        return None


def _names(config: dict[str, Any], key: str, allowed: tuple[str, ...], optional: bool,
           report: Report) -> tuple[str, ...] | None:
    value = config.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, list) or not value or \
            not all(isinstance(v, str) and v in allowed for v in value):
        _bad(report, f"config.{key}", "a list of " + ", ".join(allowed), value)
        return None
    return tuple(value)


def expectations(manifest: dict[str, Any], report: Report) -> Expect:
    """The manifest's config as the checks use it; each unusable field is reported."""
    config = manifest.get("config")
    if not isinstance(config, dict):
        _bad(report, "config", "an object", config)
        config = {}
    domain = config.get("domain")
    if not isinstance(domain, str) or not domain:
        _bad(report, "config.domain", "a domain name", domain)
        domain = None
    seed = _whole(config, "seed", 0, report)
    if seed is not None and manifest.get("seed") != seed:
        _bad(report, "seed", f"the config's seed {seed}", manifest.get("seed"))
    images = config.get("images")
    if not isinstance(images, bool):
        _bad(report, "config.images", "true or false", images)
        images = None
    defences = config.get("defences", None if manifest["format_version"] >= 4 else False)
    if not isinstance(defences, bool):
        _bad(report, "config.defences", "true or false", defences)
        defences = True  # hold the items to the stricter rule
    return Expect(
        version=manifest["format_version"], domain=domain, seed=seed,
        count=_whole(config, "count", 1, report), images=images,
        levels=_names(config, "hops", tuple(LEVEL_NAMES.values()), False, report),
        margins=recorded_margins(config, report), identities=_identities(config, report),
        types=_names(config, "types", tuple(STATEMENT_TYPES.names()), True, report), config=config,
        defences=defences, related=related_groups(config))
