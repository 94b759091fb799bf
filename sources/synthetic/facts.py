"""A company's fact base: headquarters, incorporation, employees, ..., one fact per kind.

Each fact has a *needle* (the phrase that states its value, verbatim in every alternative of
its sentence macro), a *key* (``kind:value``, equal for equal facts of different companies)
and the values ``f`` its macros print. Values are redrawn (at most ``TRIES`` times) until
the needle is unique in the world and no needle of its kind contains another; but the kinds
of :data:`SHARED_KINDS` (the stock exchange, the audit firm) are drawn from a short list, so
that several companies state them alike (what FC+CT+TR and FC+AR+TR claim).

Draw order matters (one stream per company): the groups below run in a fixed order, and
within a group the kinds do too, whatever order a catalogue lists them in.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import numpy as np

from hopvista.sources.synthetic.catalogue import Catalogue, Industry
from hopvista.sources.synthetic.draws import TRIES, pick, uniform
from hopvista.sources.synthetic.formatting import count, join, money_f, money_fine, norm, pct
from hopvista.sources.synthetic.names import coin, other_name
from hopvista.sources.synthetic.profiles import Profile
from hopvista.sources.synthetic.uniqueness import Uniqueness

#: Industry-specific fact kinds (an industry's ``specific`` names some), in draw order.
SPECIFIC_KINDS = ("pipeline", "customer", "loyalty", "enterprise_customers",
                  "utility_customers", "backlog", "patents", "reserves", "fleet")
#: Every fact kind this source can draw, in draw order.
FACT_KINDS = ("headquarters", "incorporation", "employees", "facilities", "segments",
              "product", *SPECIFIC_KINDS, "acquisition", "litigation", "regulatory",
              "credit_facility", "repurchase", "rate_sensitivity", "foreign_sales",
              "fx_forwards", "commodity", "listing", "auditor")
#: Fact kinds whose values several companies share (drawn last, from the catalogue's lists).
SHARED_KINDS = ("listing", "auditor")


@dataclass(frozen=True)
class FactSpec:
    """One fact of one company, before it is placed in a chunk."""

    kind: str
    needle: str
    key: str
    f: dict[str, Any]


def spec(kind: str, needle: str, value: str, **f: Any) -> FactSpec:
    """A fact whose key is ``kind:<value normalised>``."""
    return FactSpec(kind=kind, needle=needle, key=f"{kind}:{norm(value)}", f=f)


@dataclass
class _Company:
    """What the fact makers read, and the facts drawn so far."""

    rng: np.random.Generator
    fake: Any
    taken: Uniqueness
    catalogue: Catalogue
    profile: Profile
    figs: dict[str, list[Decimal]]
    periods: list[int]
    facts: dict[str, FactSpec] = field(default_factory=dict)
    hq_tries: int = 0

    @property
    def ind(self) -> Industry:
        return self.profile.industry

    @property
    def year(self) -> int:
        return self.periods[-1]

    @property
    def sale(self) -> float:
        return float(self.figs["sale"][-1])

    def add(self, kind: str, make: Callable[[_Company], FactSpec]) -> None:
        """Draw ``make(self)`` until its needle is unique (bounded); register and keep it."""
        fact = make(self)
        for _ in range(TRIES):
            if self.taken.needle_ok(kind, fact.needle, fact.key):
                break
            fact = make(self)
        else:
            self.taken.clash(kind)
        self.taken.add_needle(kind, fact.needle, fact.key)
        self.facts[kind] = fact

    def share(self, fact: FactSpec) -> None:
        """Keep a fact of a shared kind: its needle may be any number of companies'."""
        self.facts[fact.kind] = fact


def fact_base(rng: np.random.Generator, fake: Any, taken: Uniqueness, catalogue: Catalogue,
              profile: Profile, figs: dict[str, list[Decimal]],
              periods: list[int]) -> dict[str, FactSpec]:
    """Every fact of one company, keyed by kind."""
    co = _Company(rng, fake, taken, catalogue, profile, figs, periods)
    _corporate(co)
    _industry_specific(co)
    _events(co)
    _capital(co)
    _market_risk(co)
    _reporting(co)
    return co.facts


# -- the company itself ---------------------------------------------------------------------

def _corporate(co: _Company) -> None:
    co.add("headquarters", _headquarters)
    co.add("incorporation", _incorporation)
    co.add("employees", _employees)
    co.add("facilities", _facilities)
    co.add("segments", _segments)
    co.add("product", _product)


def _headquarters(co: _Company) -> FactSpec:
    # real cities first; once they are all taken, faker's invented ones
    co.hq_tries += 1
    if co.hq_tries <= TRIES // 2:
        city, state = pick(co.rng, co.catalogue.cities)
    else:
        city, state = str(co.fake.city()), pick(co.rng, co.catalogue.cities)[1]
    return spec("headquarters", f"{city}, {state}", f"{city}, {state}", city=city, state=state)


def _incorporation(co: _Company) -> FactSpec:
    r = co.rng.random()
    state = ("Delaware" if r < 0.65 else "Nevada" if r < 0.7 else "Maryland" if r < 0.74
             else co.facts["headquarters"].f["state"])
    inc_year = int(co.rng.integers(co.ind.incorporated_from, min(2016, co.year - 3)))
    return spec("incorporation", f"incorporated in {state} in {inc_year}",
                f"{state} {inc_year}", state=state, year=inc_year)


def _employees(co: _Company) -> FactSpec:
    n = co.sale * uniform(co.rng, co.ind.employees_per_m) * math.exp(co.rng.normal(0, 0.15))
    n = max(60, int(round(n / 10.0)) * 10 if n >= 1000 else int(round(n / 5.0)) * 5)
    return spec("employees", f"approximately {count(n)} employees", str(n),
                count=count(n), year=co.year)


def _facilities(co: _Company) -> FactSpec:
    rng, ind = co.rng, co.ind
    n = max(2 + int(rng.integers(0, 40)),
            int(round(co.sale / uniform(rng, ind.sales_per_facility))))
    places = min(max(2, n // 2), int(rng.integers(3, 45)))
    where = (f"in {places} states" if ind.foreign is None or rng.random() < 0.5
             else f"in {places} countries")
    noun = ind.facilities
    return spec("facilities", f"operated {count(n)} {noun}", f"{n} {noun}",
                count=count(n), noun=noun, where=where, year=co.year)


def _segments(co: _Company) -> FactSpec:
    segments = co.ind.segments
    k = int(co.rng.integers(2, 5))
    idx = co.rng.choice(len(segments), size=k, replace=False)
    names = [segments[int(i)] for i in idx]
    joined = join(names)
    return spec("segments", joined, "|".join(sorted(n.lower() for n in names)),
                names=names, joined=joined, count_word=co.catalogue.number_words[k])


def _product(co: _Company) -> FactSpec:
    ind = co.ind
    name = coin(co.rng, co.catalogue.names)
    return spec("product", name, name, name=name, noun=ind.product_noun,
                verb=ind.product_verb, phrase=f"the {name} {ind.product_noun}",
                Phrase=f"The {name} {ind.product_noun}")


# -- what only some industries disclose ------------------------------------------------------

def _industry_specific(co: _Company) -> None:
    for kind in SPECIFIC_KINDS:
        if kind not in co.ind.specific:
            continue
        if kind == "customer" and not co.rng.random() < 0.75:
            continue  # a quarter of these companies have no customer above 10%
        co.add(kind, _SPECIFIC[kind])


def _pipeline(co: _Company) -> FactSpec:
    rng = co.rng
    code = ("".join(chr(65 + int(x)) for x in rng.integers(0, 26, 3)) + "-"
            + str(int(rng.integers(100, 9999))))
    phase = pick(rng, co.catalogue.trial_phases)
    return spec("pipeline", code, code, code=code, phase=phase,
                indication=pick(rng, co.catalogue.indications))


def _customer(co: _Company) -> FactSpec:
    share = pct(uniform(co.rng, (10.0, 40.0)))
    return spec("customer", f"{share}% of consolidated net sales", share, pct=share,
                who=co.ind.largest_customer, year=co.year)


def _loyalty(co: _Company) -> FactSpec:
    members = pct(co.sale / uniform(co.rng, (300.0, 1500.0)))
    return spec("loyalty", f"{members} million members", members, members=members,
                year=co.year)


def _enterprise_customers(co: _Company) -> FactSpec:
    n = max(40, int(co.sale * uniform(co.rng, (1.2, 6.0))))
    return spec("enterprise_customers", f"{count(n)} enterprise customers", str(n),
                count=count(n), year=co.year)


def _utility_customers(co: _Company) -> FactSpec:
    millions = f"{max(co.sale / uniform(co.rng, (1100.0, 2600.0)), 0.05):.2f}"
    return spec("utility_customers", f"{millions} million customer accounts", millions,
                count=millions, states=int(co.rng.integers(1, 9)), year=co.year)


def _backlog(co: _Company) -> FactSpec:
    amount = money_f(co.sale * uniform(co.rng, (0.35, 1.4)))
    return spec("backlog", f"backlog of {amount}", amount, amount=amount, year=co.year)


def _patents(co: _Company) -> FactSpec:
    n = max(12, int(math.sqrt(co.sale) * uniform(co.rng, (3.0, 20.0))))
    pending = max(5, int(n * uniform(co.rng, (0.1, 0.5))))
    return spec("patents", f"{count(n)} issued patents", str(n), count=count(n),
                pending=count(pending), year=co.year)


def _reserves(co: _Company) -> FactSpec:
    amount = f"{co.sale * uniform(co.rng, (0.04, 0.15)):,.1f}"
    return spec("reserves", f"{amount} million barrels of oil equivalent", amount,
                amount=amount, year=co.year)


def _fleet(co: _Company) -> FactSpec:
    n = max(50, int(co.sale * uniform(co.rng, (1.2, 3.0))))
    return spec("fleet", f"{count(n)} tractors", str(n), count=count(n),
                trailers=count(int(n * uniform(co.rng, (2.5, 4.0)))), year=co.year)


_SPECIFIC: dict[str, Callable[[_Company], FactSpec]] = {
    "pipeline": _pipeline, "customer": _customer, "loyalty": _loyalty,
    "enterprise_customers": _enterprise_customers, "utility_customers": _utility_customers,
    "backlog": _backlog, "patents": _patents, "reserves": _reserves, "fleet": _fleet,
}


# -- events: an acquisition, a lawsuit, a regulator's action ---------------------------------

def _events(co: _Company) -> None:
    if co.profile.acquisition_index is not None:
        co.add("acquisition", _acquisition)
    co.add("litigation", _litigation)
    co.add("regulatory", _regulatory)


def _acquisition(co: _Company) -> FactSpec:
    assert co.profile.acquisition_index is not None
    acq_year = co.periods[co.profile.acquisition_index]
    price = money_f(co.profile.acquisition_price)
    target = other_name(co.fake, co.rng, co.catalogue.names, co.taken, person=False)
    return spec("acquisition", f"{target} for {price}", f"{target} {acq_year}",
                target=target, price=price, month=pick(co.rng, co.catalogue.months),
                year=acq_year, business=f"a privately held supplier of {co.ind.words.market}")


def _litigation(co: _Company) -> FactSpec:
    rng, cat, year = co.rng, co.catalogue, co.year
    court = pick(rng, cat.courts)
    suit = pick(rng, cat.lawsuits)
    month, when = pick(rng, cat.months), int(rng.integers(max(co.periods[0], year - 2), year + 1))
    plaintiff = other_name(co.fake, rng, cat.names, co.taken, person=suit.person)
    subject = suit.subject
    return spec("litigation", f"{court} in {month} {when}",
                f"{subject} {court} {month} {when}", court=court, subject=subject,
                a_subject=("an " if subject[0] in "aeiou" else "a ") + subject,
                allegation=suit.allegation, plaintiff=plaintiff, month=month, year=when)


def _regulatory(co: _Company) -> FactSpec:
    rng = co.rng
    agency = pick(rng, co.ind.agencies)
    month, when = pick(rng, co.catalogue.months), int(rng.integers(co.periods[0], co.year + 1))
    return spec("regulatory", f"{agency.action} from the {agency.agency} in {month} {when}",
                f"{agency.action} {agency.agency} {month} {when}", agency=agency.agency,
                action=agency.action, topic=agency.topic, month=month, year=when)


# -- capital: the credit line and buybacks ---------------------------------------------------

def _capital(co: _Company) -> None:
    co.add("credit_facility", _credit_facility)
    bought = co.profile.buyback[-1] if co.profile.buyback else 0.0
    if bought >= 1.0:
        co.add("repurchase", lambda c: _repurchase(c, bought))


def _credit_facility(co: _Company) -> FactSpec:
    size = max(20.0, co.sale * uniform(co.rng, (0.04, 0.2)))
    step = 5.0 if size >= 1000 else 1.0
    amount = money_f(round(size / step) * step)
    return spec("credit_facility", f"{amount} revolving credit facility", amount,
                amount=amount, maturity=co.year + int(co.rng.integers(2, 7)), year=co.year)


def _repurchase(co: _Company, bought: float) -> FactSpec:
    n = max(bought / uniform(co.rng, (15.0, 350.0)), 0.05)
    shares = f"{n:.2f}" if n < 10 else f"{n:.1f}"
    return spec("repurchase", f"repurchased {shares} million shares", shares,
                shares=shares, amount=money_f(bought), year=co.year)


# -- market risk: rates, currencies, commodities ---------------------------------------------

def _market_risk(co: _Company) -> None:
    co.add("rate_sensitivity", _rate_sensitivity)
    foreign = co.ind.foreign
    if foreign is not None:
        co.add("foreign_sales", lambda c: _foreign_sales(c, foreign))
        share = float(co.facts["foreign_sales"].f["pct"]) / 100.0
        if co.rng.random() < 0.85:
            co.add("fx_forwards", lambda c: _fx_forwards(c, share))
    if co.ind.commodities:
        commodity = str(pick(co.rng, co.ind.commodities))  # drawn once, not redrawn
        co.add("commodity", lambda c: _commodity(c, commodity))


def _rate_sensitivity(co: _Company) -> FactSpec:
    dltt = float(co.figs["dltt"][-1])
    amount = money_fine(max(dltt * uniform(co.rng, (0.1, 0.7)) * 0.01, 0.05))
    return spec("rate_sensitivity", f"interest expense by approximately {amount}", amount,
                amount=amount, year=co.year)


def _foreign_sales(co: _Company, foreign: tuple[float, float]) -> FactSpec:
    share = pct(uniform(co.rng, foreign))
    return spec("foreign_sales", f"{share}% of net sales outside the United States", share,
                pct=share, year=co.year)


def _fx_forwards(co: _Company, share: float) -> FactSpec:
    rng, currencies = co.rng, co.catalogue.currencies
    amount = money_fine(max(co.sale * share * uniform(rng, (0.05, 0.3)), 0.5))
    k = int(rng.integers(2, 4))
    chosen = [currencies[int(i)] for i in rng.choice(len(currencies), size=k, replace=False)]
    return spec("fx_forwards", f"notional amount of {amount}", amount,
                amount=amount, currencies=join(chosen), year=co.year)


def _commodity(co: _Company, commodity: str) -> FactSpec:
    cogs = float(co.figs["cogs"][-1])
    amount = money_fine(max(cogs * uniform(co.rng, (0.03, 0.15)) * 0.1, 0.05))
    return spec("commodity", f"cost of sales by approximately {amount}",
                f"{commodity} {amount}", commodity=commodity, amount=amount, year=co.year)


# -- reporting: where the stock trades and who audits (shared by design) ---------------------

def _reporting(co: _Company) -> None:
    exchanges, auditors = co.catalogue.exchanges, co.catalogue.auditors
    if exchanges:
        exchange = str(pick(co.rng, exchanges))
        co.share(spec("listing", exchange, exchange, exchange=exchange))
    if auditors:
        firm = str(pick(co.rng, auditors))
        co.share(spec("auditor", firm, firm, firm=firm, year=co.year))
