"""A company's annual figures (Compustat-like, USD millions), exact to the identities.

Independent columns are drawn as floats and quantized to ``Decimal('0.001')``; dependent
ones are computed from them in exact Decimal arithmetic, so every identity of the pack holds
exactly (:func:`check_identities` proves it before the world is returned).

The stages below draw from one stream per company in a fixed order (sales, operating
ratios, balance sheet, earnings, cash flows): reordering draws changes every world.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

import numpy as np

from hopvista.domain import Identity
from hopvista.errors import GenerationError
from hopvista.rng import derive
from hopvista.sources.synthetic.catalogue import Industry
from hopvista.sources.synthetic.draws import Floats, uniform
from hopvista.sources.synthetic.profiles import Profile, growth

#: Columns this source can produce; a pack asking for others is refused.
PRODUCED = ("sale", "cogs", "gp", "xsga", "dp", "oiadp", "xint", "nopi", "pi", "txt", "ni",
            "at", "act", "che", "lt", "lct", "dltt", "seq", "oancf", "ivncf", "fincf", "capx",
            "dv", "chech")
#: Bounds of every company's net sales in every year (USD millions).
MIN_SALE, MAX_SALE = 200.0, 300_000.0

Series = list[Decimal]
Figures = dict[str, Series]
_ZERO = Decimal("0.000")


def q(x: float) -> Decimal:
    """A float as a Decimal quantized to 0.001 (no negative zero)."""
    d = Decimal(f"{x:.3f}")
    return _ZERO if d == 0 else d


def _floats(series: Series) -> Floats:
    return np.array([float(x) for x in series])


def drift(rng: np.random.Generator, n: int, sigma: float) -> Floats:
    """A multiplicative random walk starting at 1: how a ratio wanders from year to year.

    Ratios that wander (asset turnover, leverage, margins, capital intensity) let a
    company's columns follow regimes of their own (assets growing while sales fall, debt
    paid down while assets grow), so no table column reads the chart column's trends and
    rankings as well as it would otherwise: a proxy solver cannot stand in for the chart."""
    return np.asarray(np.exp(walk(rng, n, sigma)), dtype=np.float64)


def walk(rng: np.random.Generator, n: int, sigma: float) -> Floats:
    """An additive random walk starting at 0 (for shares and margins)."""
    return np.concatenate([[0.0], np.cumsum(rng.normal(0.0, sigma, n - 1))])


def draw_figures(seed: int, profile: Profile, n: int) -> Figures:
    """Every column of :data:`PRODUCED` for one company over ``n`` periods, from its stream
    ``(seed, "world", "figures", index)``. Sets the profile's acquisition price and buybacks.
    """
    rng = derive(seed, "world", "figures", profile.index)
    sale = _sales(rng, profile, n)
    ops = _operating(rng, profile, sale, n)
    figs = _balance_sheet(rng, profile, sale, n)
    figs.update(_earnings(rng, sale, ops, figs["xint"], n))
    figs.update(_cash_flows(rng, profile, sale, ops, figs, n))
    return {key: figs[key] for key in PRODUCED}


def _sales(rng: np.random.Generator, profile: Profile, n: int) -> Floats:
    """Net sales: a log-normal base level moved by the regime's growth, within the bounds."""
    ind = profile.industry
    base = math.exp(rng.normal(math.log(ind.sale_median), ind.sale_sigma))
    path = np.concatenate([[1.0], np.cumprod(1.0 + growth(rng, profile.regime, n - 1))])
    sale = base * path
    if sale.max() > MAX_SALE:
        sale *= MAX_SALE / sale.max() * rng.uniform(0.6, 0.98)
    if sale.min() < MIN_SALE:
        sale *= MIN_SALE / sale.min() * rng.uniform(1.02, 1.6)
    return sale


@dataclass(frozen=True)
class _Operating:
    """Income-statement drivers as floats: margins and amounts per period."""

    gm: Floats  # gross margin
    sga: Floats  # SG&A / sales
    dp: Floats  # D&A
    nopi: Floats  # nonoperating income, impairments deducted
    impairment: Floats  # added back in operating cash flow


def _operating(rng: np.random.Generator, profile: Profile, sale: Floats, n: int) -> _Operating:
    ind = profile.industry
    trend = {"grower": 0.003, "decliner": -0.006}.get(profile.regime, 0.0)
    years = np.arange(n)
    r = ind.ratios
    gm = np.clip(uniform(rng, r.gm) + trend * years + walk(rng, n, 0.02)
                 + rng.normal(0, 0.005, n), 0.04, 0.95)
    sga = np.clip(uniform(rng, r.sga) - trend * years + walk(rng, n, 0.012)
                  + rng.normal(0, 0.004, n), 0.01, 3.0)
    dp = sale * uniform(rng, r.dp) * drift(rng, n, 0.09) * (1 + rng.normal(0, 0.025, n))
    nopi = sale * rng.normal(0.002, 0.006, n)
    impairment = np.where(rng.random(n) < 0.06, sale * rng.uniform(0.04, 0.18, n), 0.0)
    nopi -= impairment
    return _Operating(gm=gm, sga=sga, dp=dp, nopi=nopi, impairment=impairment)


def _balance_sheet(rng: np.random.Generator, profile: Profile, sale: Floats,
                   n: int) -> Figures:
    """Assets, liabilities and equity (``at = lt + seq``), and the interest on the debt."""
    r: Industry = profile.industry
    at_target = sale * uniform(rng, r.ratios.turn) * drift(rng, n, 0.09) * \
        (1 + rng.normal(0, 0.02, n))
    if profile.negative_equity:
        lev = uniform(rng, (1.03, 1.2)) + rng.normal(0, 0.01, n)
    else:
        lev = np.clip(uniform(rng, r.ratios.lev) + walk(rng, n, 0.035) + rng.normal(0, 0.01, n),
                      0.05, 0.97)
    lct_share = uniform(rng, r.ratios.lct)
    dltt_share = min(uniform(rng, r.ratios.dltt), 0.92 - lct_share)
    rate = uniform(rng, (0.03, 0.068))

    d_lt = [q(x) for x in at_target * lev]
    d_seq = [q(x) for x in at_target * (1 - lev)]
    d_at = [a + b for a, b in zip(d_lt, d_seq, strict=True)]
    at_f, lt_f = _floats(d_at), _floats(d_lt)
    act_f = at_f * np.clip(uniform(rng, r.ratios.act) * drift(rng, n, 0.07)
                           * (1 + rng.normal(0, 0.02, n)), 0.02, 0.95)
    che_f = act_f * np.clip(uniform(rng, r.ratios.che) * drift(rng, n, 0.12)
                            * (1 + rng.normal(0, 0.05, n)), 0.01, 0.95)
    lct_shares = np.clip(lct_share * drift(rng, n, 0.08), 0.02, 0.9)
    dltt_shares = np.minimum(dltt_share * drift(rng, n, 0.09), 0.94 - lct_shares)
    d_lct = [q(x) for x in lt_f * lct_shares * (1 + rng.normal(0, 0.02, n))]
    dltt_f = lt_f * dltt_shares * (1 + rng.normal(0, 0.02, n))
    d_xint = [q(max(x, 0.05)) for x in dltt_f * rate * (1 + rng.normal(0, 0.05, n))]
    return {"at": d_at, "act": [q(x) for x in act_f], "che": [q(x) for x in che_f],
            "lt": d_lt, "lct": d_lct, "dltt": [q(x) for x in dltt_f], "seq": d_seq,
            "xint": d_xint}


def _earnings(rng: np.random.Generator, sale: Floats, ops: _Operating, d_xint: Series,
              n: int) -> Figures:
    """The income statement down to net income (``gp``, ``oiadp``, ``pi``, ``ni`` exact)."""
    d_sale = [q(x) for x in sale]
    d_cogs = [q(x) for x in sale * (1 - ops.gm)]
    d_xsga = [q(x) for x in sale * ops.sga]
    d_dp = [q(max(x, 0.01)) for x in ops.dp]
    d_nopi = [q(x) for x in ops.nopi]
    d_gp = [s - c for s, c in zip(d_sale, d_cogs, strict=True)]
    d_oiadp = [g - x - d for g, x, d in zip(d_gp, d_xsga, d_dp, strict=True)]
    d_pi = [o + p - i for o, p, i in zip(d_oiadp, d_nopi, d_xint, strict=True)]
    pi_f = _floats(d_pi)
    tax_rate = np.clip(rng.normal(0.21, 0.035, n), 0.08, 0.35)
    allowance = rng.random(n) < 0.3
    txt_f = np.where(pi_f > 0, pi_f * tax_rate,
                     np.where(allowance, sale * rng.uniform(0.001, 0.006, n),
                              pi_f * rng.uniform(0.0, 0.08, n)))
    d_txt = [q(x) for x in txt_f]
    d_ni = [p - t for p, t in zip(d_pi, d_txt, strict=True)]
    return {"sale": d_sale, "cogs": d_cogs, "gp": d_gp, "xsga": d_xsga, "dp": d_dp,
            "oiadp": d_oiadp, "nopi": d_nopi, "pi": d_pi, "txt": d_txt, "ni": d_ni}


def _cash_flows(rng: np.random.Generator, profile: Profile, sale: Floats, ops: _Operating,
                figs: Figures, n: int) -> Figures:
    """Operating, investing and financing cash flows (``chech`` is their exact sum),
    capital expenditures and dividends; sets the acquisition price and the buybacks."""
    ind = profile.industry
    ni_f, dp_f = _floats(figs["ni"]), _floats(figs["dp"])
    oancf = ni_f + dp_f + ops.impairment + sale * rng.normal(0.01, 0.025, n)
    capx = np.maximum(sale * uniform(rng, ind.ratios.capex) * drift(rng, n, 0.14)
                      * (1 + rng.normal(0, 0.05, n)), 0.2)
    ivncf = -capx * rng.uniform(1.0, 1.2, n) + sale * rng.normal(0, 0.008, n)
    ivncf += np.where(rng.random(n) < 0.06, sale * rng.uniform(0.06, 0.16, n), 0.0)
    acquisition = np.zeros(n)
    if profile.acquisition_index is not None:
        k = profile.acquisition_index
        profile.acquisition_price = max(round(float(sale[k]) * profile.acquisition_share, 1), 5.0)
        acquisition[k] = profile.acquisition_price
    ivncf -= acquisition
    positive_ni = ni_f[ni_f > 0]
    dv = np.zeros(n)
    if profile.payer and positive_ni.size:
        level = uniform(rng, ind.ratios.payout) * float(positive_ni.mean())
        if level >= 0.5:
            dv = level * 1.04 ** np.arange(n) * (1 + rng.normal(0, 0.01, n))
    buyback = np.where(profile.buyer & (ni_f > 0), sale * rng.uniform(0.005, 0.05, n), 0.0)
    profile.buyback = [round(float(x), 1) for x in buyback]
    # Financing covers most of each year's operating + investing gap: surpluses go to
    # dividends, buybacks and repayments; deficits are funded with debt or equity. The net
    # change in cash stays modest and is deliberately not tied to ``che`` (which includes
    # short-term investments), so no table column approximates ``chech``.
    gap = oancf + ivncf
    fincf = -gap * rng.uniform(0.7, 1.05, n) + sale * rng.normal(0.0, 0.01, n)

    d_oancf = [q(x) for x in oancf]
    d_ivncf = [q(x) for x in ivncf]
    d_fincf = [q(x) for x in fincf]
    d_chech = [a + b + c for a, b, c in zip(d_oancf, d_ivncf, d_fincf, strict=True)]
    return {"oancf": d_oancf, "ivncf": d_ivncf, "fincf": d_fincf, "capx": [q(x) for x in capx],
            "dv": [q(max(float(x), 0.0)) for x in dv], "chech": d_chech}


def check_identities(identities: Sequence[Identity],
                     values: dict[str, dict[str, list[Decimal | None]]]) -> None:
    """Raise :class:`GenerationError` unless every identity holds in every period."""
    for entity_id, row in values.items():
        for identity in identities:
            if identity.lhs not in row or any(c not in row for _, c in identity.terms):
                continue
            for t, lhs in enumerate(row[identity.lhs]):
                total = Decimal(0)
                for sign, col in identity.terms:
                    v = row[col][t]
                    total += sign * v if v is not None else Decimal("NaN")
                if lhs != total:
                    raise GenerationError(
                        f"synthetic source: identity {identity.text!r} fails for {entity_id} "
                        f"in period {t}; the pack's identities must match how the source "
                        "computes its columns")
