"""A company's profile: its industry archetype and growth regime, which drive every ratio."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from hopvista.rng import derive
from hopvista.sources.synthetic.catalogue import Industry
from hopvista.sources.synthetic.draws import Floats, pick, uniform

#: Growth regimes (each is a branch of :func:`growth`) and their base weights.
REGIMES = ("grower", "decliner", "cyclical", "flat", "volatile")
_REGIME_WEIGHTS = np.array([0.34, 0.18, 0.2, 0.06, 0.22])


@dataclass
class Profile:
    """Who a company is before its figures are drawn (the figures fill in the last three)."""

    index: int
    entity_id: str
    industry: Industry
    regime: str
    payer: bool
    buyer: bool
    negative_equity: bool
    acquisition_index: int | None = None  # index into periods
    acquisition_share: float = 0.0  # price as a share of that year's sales
    acquisition_price: float = 0.0  # USD millions, set with the figures
    buyback: list[float] = field(default_factory=list)


def growth(rng: np.random.Generator, regime: str, steps: int) -> Floats:
    """Yearly sales growth rates. Outside "flat", every step is clearly up or down (FCMR
    B.7: controlled variance so that trends are visually decidable)."""
    if regime == "grower":
        return rng.uniform(0.08, 0.25, steps)
    if regime == "decliner":
        return -rng.uniform(0.06, 0.16, steps)
    if regime == "cyclical":
        sign = 1.0 if rng.random() < 0.5 else -1.0
        signs = np.array([sign * (-1.0) ** t for t in range(steps)])
        return signs * rng.uniform(0.08, 0.2, steps)
    if regime == "flat":
        return np.clip(rng.normal(0.0, 0.012, steps), -0.025, 0.025)
    g = np.clip(rng.normal(0.03, 0.14, steps), -0.35, 0.5)
    return np.where(g < 0, np.minimum(g, -0.05), np.maximum(g, 0.05))


def draw_profile(seed: int, index: int, periods: list[int],
                 industries: tuple[Industry, ...]) -> Profile:
    """Company ``index``'s profile, from its own stream ``(seed, "world", "profile", index)``."""
    rng = derive(seed, "world", "profile", index)
    industry: Industry = pick(rng, industries)
    weights = _REGIME_WEIGHTS.copy()
    weights[2] *= max(0.2, 1.0 + industry.cyclical)
    weights[4] *= max(0.2, 1.0 + industry.cyclical)
    regime = REGIMES[int(rng.choice(len(REGIMES), p=weights / weights.sum()))]
    profile = Profile(
        index=index, entity_id=f"C{index + 1:03d}", industry=industry, regime=regime,
        payer=bool(rng.random() < industry.payer), buyer=bool(rng.random() < industry.buyback),
        negative_equity=bool(rng.random() < 0.04))
    if len(periods) > 1 and rng.random() < 0.85:
        profile.acquisition_index = int(rng.integers(1, len(periods)))
        profile.acquisition_share = uniform(rng, (0.02, 0.22))
    return profile
