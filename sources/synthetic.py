"""The embedded default source: a seeded synthetic financial world (figures + 10-K text).

``load_world(pack, seed)`` builds, with no network and no data files, a panel of companies
(Compustat-like annual figures in USD millions) and a 10-K excerpt per company whose wording
comes from the pack's Jinja2 templates (``<pack>/text/*.j2``).

How it is made, in order, per company ``C001`` ... (each from its own RNG stream
``derive(seed, "world", <stage>, index)``; faker from one instance seeded once):

1. **Profile**: an industry archetype (retail, software, utilities, ...) and a growth regime
   (grower, decliner, cyclical, flat, volatile) drive every ratio.
2. **Figures**: the independent columns are drawn as floats, quantized to ``Decimal('0.001')``,
   and the dependent ones are computed from them in exact Decimal arithmetic, so every
   identity of the pack holds exactly (checked before returning).
3. **Fact base**: headquarters, incorporation, employees, facilities, segments, a flagship
   brand, an acquisition, a lawsuit, ... Each fact has a *needle* (the phrase that states its
   value), a *key* (``kind:value``) and a *claim*. Values are redrawn (a bounded number of
   times) until the needle is unique in the world and no needle of its kind contains another.
4. **Text**: sections ``business``, ``legal``, ``mdna`` and ``market_risk`` are laid out as
   paragraphs from the plans below; each sentence is one line (an *alternative*) of a Jinja2
   macro, chosen by the RNG. Paragraphs are grouped by three into chunks (FCMR B.4).

Template contract (see the comment at the top of each ``.j2`` file): a macro renders its
alternatives one per line; fact macros take ``(c, f)`` and every alternative must contain the
fact's needle verbatim; figure macros take ``(c, m)`` and state the columns listed in
:data:`FIGURE_COLUMNS`; filler macros take ``(c)`` and state no fact and no figure.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from importlib import metadata
from pathlib import Path
from typing import Any, Protocol, TypeVar

import jinja2
import numpy as np
import numpy.typing as npt
from faker import Faker

from hopvista.domain import Identity
from hopvista.errors import GenerationError, UserError
from hopvista.rng import derive, derive_int
from hopvista.world import Chunk, Column, Entity, Fact, World

Floats = npt.NDArray[np.float64]
T = TypeVar("T")

_MILLI = Decimal("0.001")
_TENTH = Decimal("0.1")
_ZERO = Decimal("0.000")
#: Redraws allowed to make a fact's needle (or a name) unique before accepting a clash.
_TRIES = 40
#: Paragraphs per chunk (FCMR appendix B.4: chunks of three consecutive paragraphs).
PARAGRAPHS_PER_CHUNK = 3
SECTIONS = ("business", "legal", "mdna", "market_risk")
MIN_SALE, MAX_SALE = 200.0, 300_000.0


class PackLike(Protocol):
    """What :func:`load_world` reads of a :class:`hopvista.domain.DomainPack`."""

    @property
    def path(self) -> Path:
        """The pack folder (its ``text/`` subfolder holds the templates)."""

    @property
    def name(self) -> str:
        """The domain name."""

    @property
    def identities(self) -> tuple[Identity, ...]:
        """The pack's parsed identities."""

    def columns(self) -> dict[str, Column]:
        """The column catalogue."""


# --------------------------------------------------------------------------------------------
# Industry archetypes and regimes
# --------------------------------------------------------------------------------------------

Range = tuple[float, float]


@dataclass(frozen=True)
class Industry:
    """An industry archetype: ratio ranges for the figures and words for the text."""

    key: str
    label: str
    name_words: tuple[str, ...]
    gm: Range  # gross margin
    sga: Range  # SG&A (incl. R&D) / sales
    dp: Range  # D&A / sales
    turn: Range  # total assets / sales
    lev: Range  # total liabilities / total assets
    act: Range  # current assets / total assets
    che: Range  # cash / current assets
    lct: Range  # current liabilities / total liabilities
    dltt: Range  # long-term debt / total liabilities
    capex: Range  # capital expenditures / sales
    payer: float  # probability of paying dividends
    payout: Range  # dividends / net income
    buyback: float  # probability of buying back shares
    sale_median: float
    sale_sigma: float
    cyclical: float  # extra weight on cyclical/volatile regimes
    employees_per_m: Range  # employees per USD million of sales
    sales_per_facility: Range  # USD millions of sales per facility
    facilities: str  # plural noun
    segments: tuple[str, ...]
    product_noun: str  # "the Veralon {noun}"
    product_verb: str  # claim verb: "{verb} the Veralon {noun}"
    specific: tuple[str, ...]  # industry-specific fact kinds
    commodities: tuple[str, ...]  # empty: no commodity fact
    foreign: Range | None  # share of sales outside the US (percent); None: domestic only
    agencies: tuple[tuple[str, str, str], ...]  # (agency, action, topic)
    # words for the templates
    business_we: str
    business_3p: str
    market: str
    customers: str
    offering: str
    inputs: str
    competitors: str


_GENERIC_AGENCIES: tuple[tuple[str, str, str], ...] = (
    ("U.S. Securities and Exchange Commission", "subpoena",
     "our revenue recognition and disclosure practices"),
    ("U.S. Department of Justice", "civil investigative demand",
     "certain of our sales and pricing practices"),
    ("Federal Trade Commission", "civil investigative demand",
     "our marketing and advertising practices"),
    ("U.S. Department of Labor", "request for information",
     "the classification of certain of our employees"),
)

INDUSTRIES: tuple[Industry, ...] = (
    Industry(
        key="retail", label="Specialty Retail",
        name_words=("Stores", "Brands", "Retail", "Outfitters", "Markets", "Home"),
        gm=(0.26, 0.40), sga=(0.18, 0.29), dp=(0.018, 0.035), turn=(0.45, 0.8),
        lev=(0.55, 0.8), act=(0.35, 0.55), che=(0.08, 0.3), lct=(0.45, 0.6), dltt=(0.2, 0.35),
        capex=(0.02, 0.045), payer=0.7, payout=(0.2, 0.45), buyback=0.6,
        sale_median=12_000, sale_sigma=1.2, cyclical=0.0, employees_per_m=(4.0, 10.0),
        sales_per_facility=(8.0, 40.0), facilities="retail stores",
        segments=("U.S. Stores", "International", "E-Commerce", "Home", "Apparel", "Grocery",
                  "Club Stores", "Specialty Brands", "Wholesale"),
        product_noun="private-label brand", product_verb="sells merchandise under",
        specific=("loyalty",), commodities=("cotton", "diesel fuel"), foreign=(3.0, 25.0),
        agencies=(("Consumer Product Safety Commission", "request for information",
                   "the safety of certain products we sold"),) + _GENERIC_AGENCIES,
        business_we="operate a chain of retail stores and digital storefronts",
        business_3p="operates a chain of retail stores and digital storefronts",
        market="home furnishings, apparel and everyday essentials",
        customers="value-conscious households", offering="merchandise",
        inputs="merchandise sourced from domestic and overseas vendors",
        competitors="national chains, regional retailers and online marketplaces"),
    Industry(
        key="software", label="Application Software",
        name_words=("Software", "Systems", "Technologies", "Networks", "Data", "Cloud"),
        gm=(0.66, 0.86), sga=(0.42, 0.64), dp=(0.03, 0.07), turn=(1.4, 2.8),
        lev=(0.35, 0.6), act=(0.35, 0.6), che=(0.4, 0.75), lct=(0.45, 0.6), dltt=(0.3, 0.4),
        capex=(0.02, 0.05), payer=0.3, payout=(0.1, 0.3), buyback=0.5,
        sale_median=2_500, sale_sigma=1.3, cyclical=0.0, employees_per_m=(2.0, 4.0),
        sales_per_facility=(150.0, 600.0), facilities="data centers",
        segments=("Cloud Services", "Enterprise Software", "Security", "Analytics",
                  "Professional Services", "Developer Tools", "Payments"),
        product_noun="platform", product_verb="offers",
        specific=("enterprise_customers", "patents"), commodities=(), foreign=(15.0, 55.0),
        agencies=_GENERIC_AGENCIES,
        business_we="develop and sell cloud-based software and related services",
        business_3p="develops and sells cloud-based software and related services",
        market="enterprise software", customers="enterprises and public-sector organizations",
        offering="software solutions", inputs="third-party cloud infrastructure and data centers",
        competitors="large diversified technology companies and specialized software vendors"),
    Industry(
        key="industrials", label="Industrial Machinery",
        name_words=("Industries", "Manufacturing", "Engineering", "Machinery", "Controls",
                    "Tool Works"),
        gm=(0.22, 0.38), sga=(0.10, 0.20), dp=(0.03, 0.05), turn=(0.9, 1.5),
        lev=(0.5, 0.7), act=(0.35, 0.5), che=(0.1, 0.3), lct=(0.3, 0.45), dltt=(0.3, 0.45),
        capex=(0.025, 0.05), payer=0.85, payout=(0.25, 0.45), buyback=0.5,
        sale_median=5_000, sale_sigma=1.1, cyclical=0.6, employees_per_m=(2.5, 5.0),
        sales_per_facility=(80.0, 400.0), facilities="manufacturing plants",
        segments=("Industrial Automation", "Climate Solutions", "Aerospace Components",
                  "Fluid Handling", "Power Transmission", "Test and Measurement",
                  "Building Products", "Engineered Materials"),
        product_noun="product line", product_verb="sells",
        specific=("backlog", "customer"), commodities=("steel", "aluminum", "copper"),
        foreign=(20.0, 60.0),
        agencies=(("U.S. Environmental Protection Agency", "notice of violation",
                   "air emissions at one of our manufacturing plants"),
                  ("Occupational Safety and Health Administration", "citation",
                   "workplace safety practices at one of our plants")) + _GENERIC_AGENCIES,
        business_we="design, manufacture and service engineered equipment",
        business_3p="designs, manufactures and services engineered equipment",
        market="industrial equipment and components",
        customers="industrial, commercial and government customers", offering="products",
        inputs="steel, aluminum, copper and electronic components",
        competitors="large diversified manufacturers and smaller regional competitors"),
    Industry(
        key="utilities", label="Electric Utilities",
        name_words=("Energy", "Power", "Electric", "Utilities", "Light & Power"),
        gm=(0.38, 0.55), sga=(0.08, 0.14), dp=(0.10, 0.15), turn=(3.0, 4.2),
        lev=(0.68, 0.8), act=(0.06, 0.12), che=(0.03, 0.15), lct=(0.08, 0.15),
        dltt=(0.42, 0.55), capex=(0.22, 0.34), payer=1.0, payout=(0.55, 0.75), buyback=0.05,
        sale_median=6_000, sale_sigma=0.9, cyclical=-0.5, employees_per_m=(0.8, 1.6),
        sales_per_facility=(200.0, 800.0), facilities="generating stations",
        segments=("Electric Utilities", "Gas Utilities", "Renewable Generation",
                  "Transmission", "Midstream Gas", "Energy Services"),
        product_noun="Generating Station", product_verb="operates",
        specific=("utility_customers",), commodities=("natural gas", "coal"), foreign=None,
        agencies=(("Federal Energy Regulatory Commission", "notice of alleged violation",
                   "compliance with reliability standards"),
                  ("U.S. Environmental Protection Agency", "notice of violation",
                   "emissions from one of our generating stations")) + _GENERIC_AGENCIES[:2],
        business_we="generate, transmit and distribute electricity and natural gas",
        business_3p="generates, transmits and distributes electricity and natural gas",
        market="electric and natural gas service",
        customers="residential, commercial and industrial customers",
        offering="energy services", inputs="natural gas, coal, nuclear fuel and purchased power",
        competitors="independent power producers and other regulated utilities"),
    Industry(
        key="biotech", label="Biotechnology",
        name_words=("Therapeutics", "Biosciences", "Pharmaceuticals", "Bio", "Genomics"),
        gm=(0.72, 0.9), sga=(0.55, 1.5), dp=(0.02, 0.05), turn=(1.6, 3.5),
        lev=(0.2, 0.45), act=(0.55, 0.85), che=(0.6, 0.9), lct=(0.3, 0.5), dltt=(0.25, 0.45),
        capex=(0.02, 0.06), payer=0.0, payout=(0.0, 0.0), buyback=0.05,
        sale_median=700, sale_sigma=1.1, cyclical=0.3, employees_per_m=(1.2, 2.5),
        sales_per_facility=(60.0, 300.0), facilities="research and manufacturing sites",
        segments=("Oncology", "Immunology", "Neuroscience", "Rare Diseases", "Vaccines",
                  "Cardiometabolic"),
        product_noun="product franchise", product_verb="markets",
        specific=("pipeline", "patents", "customer"), commodities=(), foreign=(10.0, 45.0),
        agencies=(("U.S. Food and Drug Administration", "warning letter",
                   "quality deficiencies at one of our manufacturing sites"),)
        + _GENERIC_AGENCIES[:2],
        business_we="discover, develop and commercialize medicines for serious diseases",
        business_3p="discovers, develops and commercializes medicines for serious diseases",
        market="innovative medicines", customers="patients, physicians and payers",
        offering="therapies", inputs="active pharmaceutical ingredients and biologic materials",
        competitors="large pharmaceutical companies and other biotechnology companies"),
    Industry(
        key="staples", label="Packaged Foods",
        name_words=("Foods", "Brands", "Consumer Products", "Beverages", "Kitchens"),
        gm=(0.30, 0.45), sga=(0.17, 0.27), dp=(0.025, 0.04), turn=(0.9, 1.4),
        lev=(0.55, 0.75), act=(0.25, 0.4), che=(0.1, 0.25), lct=(0.3, 0.45), dltt=(0.35, 0.5),
        capex=(0.03, 0.05), payer=0.95, payout=(0.45, 0.7), buyback=0.5,
        sale_median=8_000, sale_sigma=1.0, cyclical=-0.5, employees_per_m=(2.0, 4.0),
        sales_per_facility=(100.0, 500.0), facilities="manufacturing facilities",
        segments=("Snacks", "Beverages", "Frozen Foods", "Personal Care", "Pet Care",
                  "Household Products", "Dairy", "International Foods"),
        product_noun="brand", product_verb="sells products under",
        specific=("customer",), commodities=("wheat", "corn", "cocoa", "packaging resin"),
        foreign=(10.0, 45.0),
        agencies=(("Consumer Product Safety Commission", "request for information",
                   "the labeling of certain of our products"),) + _GENERIC_AGENCIES,
        business_we="manufacture and market branded food, beverage and household products",
        business_3p="manufactures and markets branded food, beverage and household products",
        market="branded consumer products",
        customers="grocery retailers, mass merchandisers and foodservice distributors",
        offering="brands", inputs="wheat, corn, sugar, cocoa and packaging materials",
        competitors="multinational consumer goods companies and private-label manufacturers"),
    Industry(
        key="energy", label="Oil and Gas",
        name_words=("Petroleum", "Energy", "Oil & Gas", "Resources", "Midstream"),
        gm=(0.16, 0.35), sga=(0.03, 0.07), dp=(0.06, 0.12), turn=(1.0, 2.0),
        lev=(0.45, 0.65), act=(0.15, 0.3), che=(0.1, 0.35), lct=(0.2, 0.35), dltt=(0.4, 0.55),
        capex=(0.08, 0.16), payer=0.7, payout=(0.3, 0.5), buyback=0.4,
        sale_median=12_000, sale_sigma=1.2, cyclical=1.5, employees_per_m=(0.4, 1.0),
        sales_per_facility=(300.0, 1500.0), facilities="processing plants",
        segments=("Upstream", "Midstream", "Downstream", "Chemicals", "Marketing",
                  "Renewable Fuels"),
        product_noun="field", product_verb="operates",
        specific=("reserves", "customer"), commodities=("crude oil", "natural gas liquids"),
        foreign=(10.0, 50.0),
        agencies=(("Pipeline and Hazardous Materials Safety Administration",
                   "notice of probable violation", "the integrity of one of our pipelines"),
                  ("U.S. Environmental Protection Agency", "notice of violation",
                   "flaring at certain of our facilities")) + _GENERIC_AGENCIES[:2],
        business_we="explore for, produce, transport and refine crude oil and natural gas",
        business_3p="explores for, produces, transports and refines crude oil and natural gas",
        market="crude oil, natural gas and refined products",
        customers="refiners, utilities, marketers and industrial users",
        offering="energy products", inputs="drilling services, steel tubulars and chemicals",
        competitors="integrated oil companies and independent producers"),
    Industry(
        key="semis", label="Semiconductors",
        name_words=("Semiconductor", "Microsystems", "Devices", "Silicon", "Micro"),
        gm=(0.45, 0.66), sga=(0.24, 0.36), dp=(0.05, 0.1), turn=(1.2, 2.2),
        lev=(0.3, 0.5), act=(0.4, 0.6), che=(0.35, 0.65), lct=(0.3, 0.5), dltt=(0.3, 0.45),
        capex=(0.06, 0.15), payer=0.6, payout=(0.2, 0.4), buyback=0.6,
        sale_median=4_000, sale_sigma=1.2, cyclical=1.2, employees_per_m=(1.5, 3.0),
        sales_per_facility=(300.0, 1500.0), facilities="wafer fabrication facilities",
        segments=("Data Center", "Automotive", "Communications", "Industrial and IoT",
                  "Consumer Electronics", "Memory", "Analog Products"),
        product_noun="processor family", product_verb="sells",
        specific=("patents", "customer"), commodities=("gold", "silicon wafers"),
        foreign=(45.0, 85.0), agencies=_GENERIC_AGENCIES,
        business_we="design, manufacture and sell semiconductors",
        business_3p="designs, manufactures and sells semiconductors",
        market="analog, mixed-signal and processing chips",
        customers="original equipment manufacturers and contract manufacturers",
        offering="chips", inputs="silicon wafers, substrates and specialty gases",
        competitors="global semiconductor companies and fabless chip designers"),
    Industry(
        key="devices", label="Medical Devices",
        name_words=("Medical", "Surgical", "Health Technologies", "Diagnostics", "Scientific"),
        gm=(0.55, 0.72), sga=(0.36, 0.52), dp=(0.04, 0.07), turn=(1.5, 2.5),
        lev=(0.35, 0.55), act=(0.35, 0.55), che=(0.25, 0.5), lct=(0.3, 0.45), dltt=(0.35, 0.5),
        capex=(0.03, 0.06), payer=0.5, payout=(0.25, 0.45), buyback=0.4,
        sale_median=3_000, sale_sigma=1.1, cyclical=-0.3, employees_per_m=(3.0, 5.0),
        sales_per_facility=(100.0, 500.0), facilities="manufacturing sites",
        segments=("Surgical Solutions", "Cardiovascular", "Orthopedics", "Diagnostics",
                  "Neuromodulation", "Patient Monitoring", "Diabetes Care"),
        product_noun="system", product_verb="sells",
        specific=("patents", "customer"), commodities=("medical-grade resin", "titanium"),
        foreign=(25.0, 55.0),
        agencies=(("U.S. Food and Drug Administration", "warning letter",
                   "complaint handling at one of our manufacturing sites"),)
        + _GENERIC_AGENCIES,
        business_we="develop, manufacture and sell medical devices",
        business_3p="develops, manufactures and sells medical devices",
        market="medical technology", customers="hospitals, clinics and physicians",
        offering="devices", inputs="medical-grade resins, metals and electronic components",
        competitors="large medical technology companies and smaller specialized firms"),
    Industry(
        key="transport", label="Trucking and Logistics",
        name_words=("Logistics", "Transport", "Freight", "Express", "Carriers"),
        gm=(0.18, 0.3), sga=(0.05, 0.1), dp=(0.06, 0.1), turn=(0.8, 1.3),
        lev=(0.5, 0.7), act=(0.2, 0.35), che=(0.1, 0.3), lct=(0.3, 0.45), dltt=(0.35, 0.5),
        capex=(0.08, 0.14), payer=0.7, payout=(0.15, 0.35), buyback=0.5,
        sale_median=5_000, sale_sigma=1.0, cyclical=0.8, employees_per_m=(3.0, 6.0),
        sales_per_facility=(40.0, 200.0), facilities="service terminals",
        segments=("Truckload", "Intermodal", "Less-Than-Truckload", "Logistics",
                  "Dedicated Contract Services", "Freight Brokerage"),
        product_noun="service", product_verb="offers",
        specific=("fleet", "customer"), commodities=("diesel fuel",), foreign=(2.0, 20.0),
        agencies=(("Federal Motor Carrier Safety Administration", "notice of claim",
                   "hours-of-service compliance by our drivers"),) + _GENERIC_AGENCIES,
        business_we="provide truckload, intermodal and logistics services",
        business_3p="provides truckload, intermodal and logistics services",
        market="freight transportation",
        customers="shippers in the retail, manufacturing and food industries",
        offering="transportation services", inputs="diesel fuel, tractors, trailers and tires",
        competitors="truckload carriers, railroads and freight brokers"),
)

REGIMES = ("grower", "decliner", "cyclical", "flat", "volatile")
_REGIME_WEIGHTS = np.array([0.34, 0.18, 0.2, 0.06, 0.22])

_CITIES: tuple[tuple[str, str], ...] = (
    ("Austin", "Texas"), ("Dallas", "Texas"), ("Houston", "Texas"), ("San Antonio", "Texas"),
    ("Fort Worth", "Texas"), ("Irving", "Texas"), ("Plano", "Texas"), ("Atlanta", "Georgia"),
    ("Alpharetta", "Georgia"), ("Charlotte", "North Carolina"), ("Raleigh", "North Carolina"),
    ("Durham", "North Carolina"), ("Chicago", "Illinois"), ("Deerfield", "Illinois"),
    ("Naperville", "Illinois"), ("Columbus", "Ohio"), ("Cincinnati", "Ohio"),
    ("Cleveland", "Ohio"), ("Akron", "Ohio"), ("Detroit", "Michigan"),
    ("Grand Rapids", "Michigan"), ("Ann Arbor", "Michigan"), ("Minneapolis", "Minnesota"),
    ("St. Paul", "Minnesota"), ("Milwaukee", "Wisconsin"), ("Madison", "Wisconsin"),
    ("Indianapolis", "Indiana"), ("St. Louis", "Missouri"), ("Kansas City", "Missouri"),
    ("Omaha", "Nebraska"), ("Denver", "Colorado"), ("Boulder", "Colorado"),
    ("Salt Lake City", "Utah"), ("Phoenix", "Arizona"), ("Scottsdale", "Arizona"),
    ("Tempe", "Arizona"), ("Las Vegas", "Nevada"), ("Reno", "Nevada"),
    ("Seattle", "Washington"), ("Bellevue", "Washington"), ("Redmond", "Washington"),
    ("Portland", "Oregon"), ("Beaverton", "Oregon"), ("San Francisco", "California"),
    ("San Jose", "California"), ("Santa Clara", "California"), ("Sunnyvale", "California"),
    ("Palo Alto", "California"), ("Menlo Park", "California"), ("San Diego", "California"),
    ("Irvine", "California"), ("Los Angeles", "California"), ("Burbank", "California"),
    ("Pasadena", "California"), ("Oakland", "California"), ("Boston", "Massachusetts"),
    ("Cambridge", "Massachusetts"), ("Waltham", "Massachusetts"),
    ("Burlington", "Massachusetts"), ("Providence", "Rhode Island"),
    ("Hartford", "Connecticut"), ("Stamford", "Connecticut"), ("Greenwich", "Connecticut"),
    ("New York City", "New York"), ("Rochester", "New York"), ("Buffalo", "New York"),
    ("White Plains", "New York"), ("Newark", "New Jersey"), ("Princeton", "New Jersey"),
    ("Parsippany", "New Jersey"), ("Philadelphia", "Pennsylvania"),
    ("Pittsburgh", "Pennsylvania"), ("Malvern", "Pennsylvania"), ("Baltimore", "Maryland"),
    ("Bethesda", "Maryland"), ("Arlington", "Virginia"), ("Richmond", "Virginia"),
    ("McLean", "Virginia"), ("Reston", "Virginia"), ("Norfolk", "Virginia"),
    ("Wilmington", "Delaware"), ("Miami", "Florida"), ("Tampa", "Florida"),
    ("Orlando", "Florida"), ("Jacksonville", "Florida"), ("Boca Raton", "Florida"),
    ("Nashville", "Tennessee"), ("Memphis", "Tennessee"), ("Knoxville", "Tennessee"),
    ("Louisville", "Kentucky"), ("Birmingham", "Alabama"), ("New Orleans", "Louisiana"),
    ("Baton Rouge", "Louisiana"), ("Oklahoma City", "Oklahoma"), ("Tulsa", "Oklahoma"),
    ("Little Rock", "Arkansas"), ("Bentonville", "Arkansas"), ("Des Moines", "Iowa"),
    ("Boise", "Idaho"), ("Albuquerque", "New Mexico"), ("Honolulu", "Hawaii"),
    ("Anchorage", "Alaska"), ("Greenville", "South Carolina"),
    ("Charleston", "South Carolina"), ("Portland", "Maine"), ("Burlington", "Vermont"),
    ("Manchester", "New Hampshire"), ("Jackson", "Mississippi"),
    ("Sioux Falls", "South Dakota"), ("Fargo", "North Dakota"), ("Billings", "Montana"),
    ("Cheyenne", "Wyoming"), ("Wichita", "Kansas"), ("Charleston", "West Virginia"),
    ("El Paso", "Texas"), ("The Woodlands", "Texas"), ("Sugar Land", "Texas"),
    ("Savannah", "Georgia"), ("Winston-Salem", "North Carolina"), ("Cary", "North Carolina"),
    ("Toledo", "Ohio"), ("Dayton", "Ohio"), ("Dublin", "Ohio"), ("Troy", "Michigan"),
    ("Lansing", "Michigan"), ("Eden Prairie", "Minnesota"), ("Rochester", "Minnesota"),
    ("Green Bay", "Wisconsin"), ("Fort Wayne", "Indiana"), ("Carmel", "Indiana"),
    ("Springfield", "Missouri"), ("Lincoln", "Nebraska"), ("Englewood", "Colorado"),
    ("Colorado Springs", "Colorado"), ("Provo", "Utah"), ("Chandler", "Arizona"),
    ("Tucson", "Arizona"), ("Henderson", "Nevada"), ("Tacoma", "Washington"),
    ("Spokane", "Washington"), ("Hillsboro", "Oregon"), ("Sacramento", "California"),
    ("Fremont", "California"), ("Mountain View", "California"), ("Santa Monica", "California"),
    ("Thousand Oaks", "California"), ("Carlsbad", "California"), ("Worcester", "Massachusetts"),
    ("Lexington", "Massachusetts"), ("Norwalk", "Connecticut"), ("Albany", "New York"),
    ("Syracuse", "New York"), ("Purchase", "New York"), ("Morristown", "New Jersey"),
    ("Camden", "New Jersey"), ("King of Prussia", "Pennsylvania"), ("Allentown", "Pennsylvania"),
    ("Columbia", "Maryland"), ("Rockville", "Maryland"), ("Herndon", "Virginia"),
    ("Fort Lauderdale", "Florida"), ("St. Petersburg", "Florida"), ("Franklin", "Tennessee"),
    ("Chattanooga", "Tennessee"), ("Lexington", "Kentucky"), ("Huntsville", "Alabama"),
    ("Lafayette", "Louisiana"), ("Overland Park", "Kansas"), ("Madison", "Mississippi"),
)

_COURTS = (
    "United States District Court for the Southern District of New York",
    "United States District Court for the District of Delaware",
    "United States District Court for the Northern District of California",
    "United States District Court for the Eastern District of Texas",
    "United States District Court for the Northern District of Illinois",
    "United States District Court for the District of New Jersey",
    "United States District Court for the Central District of California",
    "United States District Court for the District of Massachusetts",
    "United States District Court for the Eastern District of Pennsylvania",
    "United States District Court for the Western District of Texas",
    "United States District Court for the Southern District of Florida",
    "United States District Court for the Northern District of Georgia",
    "United States District Court for the District of Minnesota",
    "United States District Court for the Eastern District of Virginia",
    "United States District Court for the Western District of Washington",
    "United States District Court for the District of Colorado",
    "United States District Court for the Southern District of Ohio",
    "United States District Court for the Eastern District of Michigan",
    "United States District Court for the District of Arizona",
    "United States District Court for the Middle District of Tennessee",
    "United States District Court for the Northern District of Texas",
    "United States District Court for the Eastern District of New York",
    "Delaware Court of Chancery",
    "Superior Court of California for the County of Los Angeles",
    "Circuit Court of Cook County, Illinois",
)

#: (subject as an adjective of "lawsuit", what the plaintiff alleges, plaintiff is a person)
_LAWSUITS: tuple[tuple[str, str, bool], ...] = (
    ("patent infringement", "that certain of our products infringe patents it holds", False),
    ("securities fraud",
     "that we made materially false and misleading statements about our business", True),
    ("product liability", "injuries allegedly caused by one of our products", True),
    ("antitrust", "that we engaged in anticompetitive conduct in our markets", False),
    ("breach of contract", "that we failed to perform our obligations under a supply agreement",
     False),
    ("wage and hour", "violations of federal and state wage and hour laws", True),
    ("trade secret misappropriation",
     "that former employees of the plaintiff disclosed its confidential information to us",
     False),
    ("consumer protection", "that certain of our marketing claims were misleading", True),
)

_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December")
_CURRENCIES = ("the euro", "the British pound", "the Japanese yen", "the Canadian dollar",
               "the Mexican peso", "the Chinese renminbi", "the Swiss franc",
               "the Brazilian real", "the Indian rupee", "the Korean won")
_INDICATIONS = ("non-small cell lung cancer", "multiple myeloma", "rheumatoid arthritis",
                "ulcerative colitis", "amyotrophic lateral sclerosis", "Huntington's disease",
                "hemophilia A", "sickle cell disease", "atopic dermatitis", "heart failure",
                "Duchenne muscular dystrophy", "acute myeloid leukemia", "psoriasis",
                "chronic kidney disease", "obesity", "migraine")
_TARGET_WORDS = ("Analytics", "Labs", "Solutions", "Components", "Technologies", "Systems",
                 "Sciences", "Products", "Networks", "Instruments")
_NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six")
_ONSETS = ("b", "br", "c", "cl", "d", "dr", "f", "fl", "g", "gr", "k", "l", "m", "n", "p",
           "pr", "qu", "r", "s", "st", "t", "tr", "v", "z")
_VOWELS = ("a", "e", "i", "o", "u", "a", "e", "o", "ae", "io")
_ENDINGS = ("n", "x", "ra", "on", "is", "ex", "a", "um", "ia", "or", "ent", "yn", "ar", "ix")

# --------------------------------------------------------------------------------------------
# Document plans: paragraphs as slots "fact:<kind>", "fig:<macro>", "fill:<macro>".
# A trailing "?" makes a filler or figure slot optional (kept with probability 1/2).
# A paragraph holding a fact the company has is always kept; the others are optional and
# drawn (order preserved) to reach a multiple of three paragraphs.
# --------------------------------------------------------------------------------------------

Plan = tuple[tuple[str, tuple[str, ...]], ...]

BUSINESS_PLAN: Plan = (
    ("overview", ("fill:overview", "fact:headquarters", "fact:incorporation")),
    ("segments", ("fact:segments", "fill:segment_detail", "fill:segment_mgmt?")),
    ("products", ("fill:products", "fact:product", "fact:pipeline", "fill:innovation?")),
    ("customers", ("fill:customers", "fact:customer", "fact:loyalty",
                   "fact:enterprise_customers", "fact:utility_customers", "fill:channels?")),
    ("operations", ("fact:facilities", "fact:fleet", "fact:reserves", "fill:operations",
                    "fill:supply_chain?")),
    ("competition", ("fill:competition", "fill:competition_factors", "fill:competition_outlook?")),
    ("ip", ("fill:ip", "fact:patents", "fact:backlog", "fill:ip_risk?")),
    ("regulation", ("fill:regulation", "fill:environment", "fill:compliance?")),
    ("people", ("fact:employees", "fill:human_capital", "fill:benefits?")),
    ("seasonality", ("fill:seasonality", "fill:working_capital")),
    ("info", ("fill:available_info", "fill:website?")),
)
LEGAL_PLAN: Plan = (
    ("litigation", ("fill:legal_intro", "fact:litigation", "fill:litigation_status")),
    ("regulatory", ("fact:regulatory", "fill:regulatory_status", "fill:cooperation?")),
    ("general", ("fill:legal_general", "fill:accruals", "fill:insurance?")),
)
MDNA_PLAN: Plan = (
    ("overview", ("fill:overview", "fact:acquisition", "fill:strategy?")),
    ("sales", ("fig:sales", "fill:sales_drivers", "fill:pricing?")),
    ("gross", ("fig:gross_profit", "fill:cost_drivers?")),
    ("opex", ("fig:sga", "fig:depreciation?", "fill:opex?")),
    ("operating", ("fig:operating_income", "fill:operating?")),
    ("other", ("fig:interest", "fig:nonoperating?", "fill:other_income?")),
    ("tax", ("fig:pretax?", "fig:taxes", "fig:net_income", "fill:tax_outlook?")),
    ("liquidity", ("fill:liquidity_intro", "fig:cash", "fact:credit_facility")),
    ("operating_cf", ("fig:operating_cf", "fill:working_capital_cf?")),
    ("investing", ("fig:capex", "fig:investing_cf?", "fill:capex_plans?")),
    ("financing", ("fig:financing_cf?", "fig:dividends", "fact:repurchase",
                   "fill:capital_return?")),
    ("debt", ("fig:debt", "fig:working_capital?", "fill:covenants")),
    ("balance", ("fig:assets", "fig:equity?", "fig:cash_change?")),
    ("estimates", ("fill:estimates", "fill:estimates_detail", "fill:estimates_risk?")),
    ("outlook", ("fill:outlook", "fill:forward_looking")),
    ("pronouncements", ("fill:pronouncements", "fill:pronouncements_detail?")),
)
MARKET_RISK_PLAN: Plan = (
    ("intro", ("fill:intro", "fill:intro_policy?")),
    ("rates", ("fill:rate_intro", "fact:rate_sensitivity", "fill:rate_policy?")),
    ("fx", ("fill:fx_intro", "fact:foreign_sales", "fact:fx_forwards")),
    ("commodity", ("fill:commodity_intro", "fact:commodity", "fill:commodity_policy?")),
    ("credit", ("fill:credit_risk", "fill:counterparty?")),
    ("inflation", ("fill:inflation", "fill:inflation_outlook?")),
)
PLANS: dict[str, Plan] = {
    "business": BUSINESS_PLAN, "legal": LEGAL_PLAN, "mdna": MDNA_PLAN,
    "market_risk": MARKET_RISK_PLAN,
}
#: Allowed chunk counts per section (drawn per company; the result has 6-10 chunks).
CHUNK_CHOICES: dict[str, tuple[int, ...]] = {
    "business": (2, 3, 3), "legal": (1,), "mdna": (2, 3, 4), "market_risk": (1, 2),
}

#: Columns each MD&A figure macro may state. The first is the one the macro's ``m`` describes
#: (always stated); the second is stated when the chosen sentence prints ``m.ratio``,
#: ``m.prev_ratio`` or ``m.other`` (a margin, a tax rate, current liabilities).
FIGURE_COLUMNS: dict[str, tuple[str, ...]] = {
    "sales": ("sale",),
    "gross_profit": ("gp", "sale"),
    "sga": ("xsga", "sale"),
    "depreciation": ("dp",),
    "operating_income": ("oiadp", "sale"),
    "interest": ("xint",),
    "nonoperating": ("nopi",),
    "pretax": ("pi",),
    "taxes": ("txt", "pi"),
    "net_income": ("ni",),
    "cash": ("che",),
    "operating_cf": ("oancf",),
    "capex": ("capx",),
    "investing_cf": ("ivncf",),
    "financing_cf": ("fincf",),
    "dividends": ("dv",),
    "debt": ("dltt",),
    "working_capital": ("act", "lct"),
    "assets": ("at",),
    "equity": ("seq",),
    "cash_change": ("chech",),
}

#: Columns this source can produce; a pack asking for others is refused.
PRODUCED = ("sale", "cogs", "gp", "xsga", "dp", "oiadp", "xint", "nopi", "pi", "txt", "ni",
            "at", "act", "che", "lt", "lct", "dltt", "seq", "oancf", "ivncf", "fincf", "capx",
            "dv", "chech")


# --------------------------------------------------------------------------------------------
# Small helpers
# --------------------------------------------------------------------------------------------

def _q(x: float) -> Decimal:
    """A float as a Decimal quantized to 0.001 (no negative zero)."""
    d = Decimal(f"{x:.3f}")
    return _ZERO if d == 0 else d


def _shown(d: Decimal) -> Decimal:
    """Rounded half-up to one decimal, as tables show USD millions."""
    return d.quantize(_TENTH, rounding=ROUND_HALF_UP)


def _money(d: Decimal) -> str:
    """``Decimal('-4512.34') -> '$4,512.3 million'`` (absolute value)."""
    return f"${abs(_shown(d)):,} million"


def _money_f(x: float) -> str:
    return _money(Decimal(f"{x:.1f}"))


def _money_fine(x: float) -> str:
    """Like :func:`_money_f`, with two decimals below $10 million (fewer equal amounts)."""
    return f"${x:,.2f} million" if x < 10 else _money_f(x)


def _count(n: int) -> str:
    return f"{n:,}"


def _pct(x: float) -> str:
    return f"{x:.1f}"


def _u(rng: np.random.Generator, r: Range) -> float:
    return float(rng.uniform(r[0], r[1]))


def _pick(rng: np.random.Generator, seq: Sequence[T]) -> T:
    return seq[int(rng.integers(len(seq)))]


def _norm(text: str) -> str:
    return " ".join(text.lower().replace(",", "").split())


def _join(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


class _Registry:
    """World-wide uniqueness of names and needles."""

    def __init__(self, vocabulary: frozenset[str] = frozenset()) -> None:
        self.vocabulary = sorted(w for w in vocabulary if len(w) >= 5)
        self.names: list[str] = []
        self.needles: dict[str, list[str]] = {}
        self.all_needles: set[str] = set()
        self.keys: set[str] = set()
        self.clashes: dict[str, int] = {}

    def clash(self, kind: str) -> None:
        self.clashes[kind] = self.clashes.get(kind, 0) + 1

    def name_ok(self, name: str) -> bool:
        low = name.lower()
        return (all(low not in n and n not in low for n in self.names)
                and not any(p.lower() in low for p in self.needles.get("product", ())))

    def add_name(self, name: str) -> None:
        self.names.append(name.lower())

    def needle_ok(self, kind: str, needle: str, key: str) -> bool:
        if needle in self.all_needles or key in self.keys:
            return False
        if kind == "product":  # a coined word must not hide in any name or template word
            low = needle.lower()
            if any(low in n for n in self.names) or any(low in w for w in self.vocabulary):
                return False
        return all(needle not in n and n not in needle for n in self.needles.get(kind, ()))

    def add_needle(self, kind: str, needle: str, key: str) -> None:
        self.needles.setdefault(kind, []).append(needle)
        self.all_needles.add(needle)
        self.keys.add(key)


# --------------------------------------------------------------------------------------------
# Profiles and figures
# --------------------------------------------------------------------------------------------

@dataclass
class _Profile:
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


def _growth(rng: np.random.Generator, regime: str, steps: int) -> Floats:
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


def _profile(seed: int, index: int, periods: list[int]) -> _Profile:
    rng = derive(seed, "world", "profile", index)
    industry: Industry = _pick(rng, INDUSTRIES)
    weights = _REGIME_WEIGHTS.copy()
    weights[2] *= max(0.2, 1.0 + industry.cyclical)
    weights[4] *= max(0.2, 1.0 + industry.cyclical)
    regime = REGIMES[int(rng.choice(len(REGIMES), p=weights / weights.sum()))]
    profile = _Profile(
        index=index, entity_id=f"C{index + 1:03d}", industry=industry, regime=regime,
        payer=bool(rng.random() < industry.payer), buyer=bool(rng.random() < industry.buyback),
        negative_equity=bool(rng.random() < 0.04))
    if len(periods) > 1 and rng.random() < 0.85:
        profile.acquisition_index = int(rng.integers(1, len(periods)))
        profile.acquisition_share = _u(rng, (0.02, 0.22))
    return profile


def _figures(seed: int, profile: _Profile, n: int) -> dict[str, list[Decimal]]:
    """Every column for one company; identities hold exactly by construction."""
    rng = derive(seed, "world", "figures", profile.index)
    ind = profile.industry

    # -- income statement -------------------------------------------------------------------
    base = math.exp(rng.normal(math.log(ind.sale_median), ind.sale_sigma))
    path = np.concatenate([[1.0], np.cumprod(1.0 + _growth(rng, profile.regime, n - 1))])
    sale = base * path
    if sale.max() > MAX_SALE:
        sale *= MAX_SALE / sale.max() * rng.uniform(0.6, 0.98)
    if sale.min() < MIN_SALE:
        sale *= MIN_SALE / sale.min() * rng.uniform(1.02, 1.6)
    trend = {"grower": 0.003, "decliner": -0.006}.get(profile.regime, 0.0)
    years = np.arange(n)
    gm = np.clip(_u(rng, ind.gm) + trend * years + rng.normal(0, 0.005, n), 0.04, 0.95)
    sga = np.clip(_u(rng, ind.sga) - trend * years + rng.normal(0, 0.004, n), 0.01, 3.0)
    dp = sale * _u(rng, ind.dp) * (1 + rng.normal(0, 0.025, n))
    nopi = sale * rng.normal(0.002, 0.006, n)
    impairment = np.where(rng.random(n) < 0.06, sale * rng.uniform(0.04, 0.18, n), 0.0)
    nopi -= impairment

    # -- balance sheet ----------------------------------------------------------------------
    at_target = sale * _u(rng, ind.turn) * (1 + rng.normal(0, 0.02, n))
    if profile.negative_equity:
        lev = _u(rng, (1.03, 1.2)) + rng.normal(0, 0.01, n)
    else:
        lev = np.clip(_u(rng, ind.lev) + rng.normal(0, 0.01, n), 0.05, 0.97)
    lct_share = _u(rng, ind.lct)
    dltt_share = min(_u(rng, ind.dltt), 0.92 - lct_share)
    rate = _u(rng, (0.03, 0.068))

    d_sale = [_q(x) for x in sale]
    d_cogs = [_q(x) for x in sale * (1 - gm)]
    d_xsga = [_q(x) for x in sale * sga]
    d_dp = [_q(max(x, 0.01)) for x in dp]
    d_nopi = [_q(x) for x in nopi]
    d_lt = [_q(x) for x in at_target * lev]
    d_seq = [_q(x) for x in at_target * (1 - lev)]
    d_at = [a + b for a, b in zip(d_lt, d_seq, strict=True)]
    at_f = np.array([float(x) for x in d_at])
    lt_f = np.array([float(x) for x in d_lt])
    act_f = at_f * np.clip(_u(rng, ind.act) * (1 + rng.normal(0, 0.02, n)), 0.02, 0.95)
    che_f = act_f * np.clip(_u(rng, ind.che) * (1 + rng.normal(0, 0.05, n)), 0.01, 0.95)
    d_act = [_q(x) for x in act_f]
    d_che = [_q(x) for x in che_f]
    d_lct = [_q(x) for x in lt_f * lct_share * (1 + rng.normal(0, 0.02, n))]
    dltt_f = lt_f * dltt_share * (1 + rng.normal(0, 0.02, n))
    d_dltt = [_q(x) for x in dltt_f]
    d_xint = [_q(max(x, 0.05)) for x in dltt_f * rate * (1 + rng.normal(0, 0.05, n))]

    d_gp = [s - c for s, c in zip(d_sale, d_cogs, strict=True)]
    d_oiadp = [g - x - d for g, x, d in zip(d_gp, d_xsga, d_dp, strict=True)]
    d_pi = [o + p - i for o, p, i in zip(d_oiadp, d_nopi, d_xint, strict=True)]
    pi_f = np.array([float(x) for x in d_pi])
    tax_rate = np.clip(rng.normal(0.21, 0.035, n), 0.08, 0.35)
    allowance = rng.random(n) < 0.3
    txt_f = np.where(pi_f > 0, pi_f * tax_rate,
                     np.where(allowance, sale * rng.uniform(0.001, 0.006, n),
                              pi_f * rng.uniform(0.0, 0.08, n)))
    d_txt = [_q(x) for x in txt_f]
    d_ni = [p - t for p, t in zip(d_pi, d_txt, strict=True)]
    ni_f = np.array([float(x) for x in d_ni])

    # -- cash flows -------------------------------------------------------------------------
    dp_f = np.array([float(x) for x in d_dp])
    oancf = ni_f + dp_f + impairment + sale * rng.normal(0.01, 0.025, n)
    capx = np.maximum(sale * _u(rng, ind.capex) * (1 + rng.normal(0, 0.05, n)), 0.2)
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
        level = _u(rng, ind.payout) * float(positive_ni.mean())
        if level >= 0.5:
            dv = level * 1.04 ** years * (1 + rng.normal(0, 0.01, n))
    buyback = np.where(profile.buyer & (ni_f > 0), sale * rng.uniform(0.005, 0.05, n), 0.0)
    profile.buyback = [round(float(x), 1) for x in buyback]
    # Financing covers most of each year's operating + investing gap: surpluses go to
    # dividends, buybacks and repayments; deficits are funded with debt or equity. The net
    # change in cash stays modest and is deliberately not tied to ``che`` (which includes
    # short-term investments), so no table column approximates ``chech``.
    gap = oancf + ivncf
    fincf = -gap * rng.uniform(0.7, 1.05, n) + sale * rng.normal(0.0, 0.01, n)

    d_oancf = [_q(x) for x in oancf]
    d_ivncf = [_q(x) for x in ivncf]
    d_fincf = [_q(x) for x in fincf]
    d_capx = [_q(x) for x in capx]
    d_dv = [_q(max(float(x), 0.0)) for x in dv]
    d_chech = [a + b + c for a, b, c in zip(d_oancf, d_ivncf, d_fincf, strict=True)]
    return {
        "sale": d_sale, "cogs": d_cogs, "gp": d_gp, "xsga": d_xsga, "dp": d_dp,
        "oiadp": d_oiadp, "xint": d_xint, "nopi": d_nopi, "pi": d_pi, "txt": d_txt,
        "ni": d_ni, "at": d_at, "act": d_act, "che": d_che, "lt": d_lt, "lct": d_lct,
        "dltt": d_dltt, "seq": d_seq, "oancf": d_oancf, "ivncf": d_ivncf, "fincf": d_fincf,
        "capx": d_capx, "dv": d_dv, "chech": d_chech,
    }


# --------------------------------------------------------------------------------------------
# Names
# --------------------------------------------------------------------------------------------

def _company_name(fake: Any, rng: np.random.Generator, industry: Industry,
                  registry: _Registry) -> str:
    name = ""
    for _ in range(_TRIES):
        style = rng.random()
        if style < 0.55:
            name = f"{fake.last_name()} {_pick(rng, industry.name_words)}"
        elif style < 0.78:
            suffix = _pick(rng, ("Inc.", "Corporation", "Holdings", "Group"))
            name = f"{fake.last_name()} {_pick(rng, industry.name_words)} {suffix}"
        else:
            name = str(fake.company())
        if registry.name_ok(name):
            break
    else:
        for suffix in ("Holdings", "International", "Global", "Enterprises"):
            if registry.name_ok(f"{name} {suffix}"):
                name = f"{name} {suffix}"
                break
        else:
            registry.clash("company_name")
    registry.add_name(name)
    return name


def _other_name(fake: Any, rng: np.random.Generator, registry: _Registry, person: bool) -> str:
    """A counterparty (acquisition target, plaintiff) whose name clashes with no other name."""
    name = ""
    for _ in range(_TRIES):
        if person:
            name = str(fake.name())
        elif rng.random() < 0.6:
            name = f"{fake.last_name()} {_pick(rng, _TARGET_WORDS)}"
        else:
            name = str(fake.company())
        if registry.name_ok(name):
            break
    else:
        registry.clash("counterparty_name")
    registry.add_name(name)
    return name


def _ticker(name: str, rng: np.random.Generator, used: set[str]) -> str:
    words = ["".join(ch for ch in w.upper() if "A" <= ch <= "Z") for w in name.split()]
    words = [w for w in words if w]
    letters = "".join(words)
    candidates = ["".join(w[0] for w in words[:4])] if len(words) >= 3 else []
    candidates += [letters[:3], letters[:4]]
    if words:
        candidates += [words[0][:2] + w[0] for w in words[1:]]
    for candidate in candidates:
        if 3 <= len(candidate) <= 4 and candidate not in used:
            used.add(candidate)
            return candidate
    while True:  # 26**4 tickers; terminates quickly for any realistic world
        size = 3 if rng.random() < 0.5 else 4
        first = letters[:1] or chr(65 + int(rng.integers(26)))
        candidate = first + "".join(chr(65 + int(x)) for x in rng.integers(0, 26, size - 1))
        if candidate not in used:
            used.add(candidate)
            return candidate


def _coin(rng: np.random.Generator) -> str:
    """A brand-like invented word ("Veralon", "Clionex")."""
    while True:
        parts = [_pick(rng, _ONSETS) + _pick(rng, _VOWELS)
                 for _ in range(int(rng.integers(2, 4)))]
        word = ("".join(parts) + _pick(rng, _ENDINGS)).capitalize()
        if 6 <= len(word) <= 11:
            return word


# --------------------------------------------------------------------------------------------
# Fact base
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class _FactSpec:
    kind: str
    needle: str
    key: str
    f: dict[str, Any]


def _draw(registry: _Registry, kind: str, make: Callable[[], _FactSpec]) -> _FactSpec:
    """``make()`` until the needle is unique (bounded); registers and returns it."""
    spec = make()
    for _ in range(_TRIES):
        if registry.needle_ok(kind, spec.needle, spec.key):
            break
        spec = make()
    else:
        registry.clash(kind)
    registry.add_needle(kind, spec.needle, spec.key)
    return spec


def _spec(kind: str, needle: str, value: str, **f: Any) -> _FactSpec:
    return _FactSpec(kind=kind, needle=needle, key=f"{kind}:{_norm(value)}", f=f)


_CUSTOMER_WHO = {
    "industrials": "a large industrial distributor", "biotech": "a pharmaceutical wholesaler",
    "staples": "a national mass merchandiser", "energy": "an independent refining company",
    "semis": "a contract electronics manufacturer", "devices": "a group purchasing organization",
    "transport": "a national general merchandise retailer",
}


def _fact_base(rng: np.random.Generator, fake: Any, registry: _Registry, profile: _Profile,
               figs: dict[str, list[Decimal]], periods: list[int]) -> dict[str, _FactSpec]:
    """Every fact of one company, keyed by kind."""
    ind = profile.industry
    year = periods[-1]
    sale = float(figs["sale"][-1])
    facts: dict[str, _FactSpec] = {}

    def add(kind: str, make: Callable[[], _FactSpec]) -> None:
        facts[kind] = _draw(registry, kind, make)

    tries = [0]

    def headquarters() -> _FactSpec:
        # real cities first; once they are all taken, faker's invented ones
        tries[0] += 1
        if tries[0] <= _TRIES // 2:
            city, state = _pick(rng, _CITIES)
        else:
            city, state = str(fake.city()), _pick(rng, _CITIES)[1]
        return _spec("headquarters", f"{city}, {state}", f"{city}, {state}",
                     city=city, state=state)
    add("headquarters", headquarters)
    hq_state = facts["headquarters"].f["state"]

    def incorporation() -> _FactSpec:
        r = rng.random()
        state = ("Delaware" if r < 0.65 else "Nevada" if r < 0.7 else "Maryland" if r < 0.74
                 else hq_state)
        low = 1975 if ind.key in ("software", "biotech", "semis") else 1890
        inc_year = int(rng.integers(low, min(2016, year - 3)))
        return _spec("incorporation", f"incorporated in {state} in {inc_year}",
                     f"{state} {inc_year}", state=state, year=inc_year)
    add("incorporation", incorporation)

    def employees() -> _FactSpec:
        n = sale * _u(rng, ind.employees_per_m) * math.exp(rng.normal(0, 0.15))
        n = max(60, int(round(n / 10.0)) * 10 if n >= 1000 else int(round(n / 5.0)) * 5)
        return _spec("employees", f"approximately {_count(n)} employees", str(n),
                     count=_count(n), year=year)
    add("employees", employees)

    def facilities() -> _FactSpec:
        n = max(2 + int(rng.integers(0, 40)), int(round(sale / _u(rng, ind.sales_per_facility))))
        places = min(max(2, n // 2), int(rng.integers(3, 45)))
        where = (f"in {places} states" if ind.foreign is None or rng.random() < 0.5
                 else f"in {places} countries")
        noun = ind.facilities
        return _spec("facilities", f"operated {_count(n)} {noun}", f"{n} {noun}",
                     count=_count(n), noun=noun, where=where, year=year)
    add("facilities", facilities)

    def segments() -> _FactSpec:
        k = int(rng.integers(2, 5))
        idx = rng.choice(len(ind.segments), size=k, replace=False)
        names = [ind.segments[int(i)] for i in idx]
        joined = _join(names)
        return _spec("segments", joined, "|".join(sorted(n.lower() for n in names)),
                     names=names, joined=joined, count_word=_NUMBER_WORDS[k])
    add("segments", segments)

    def product() -> _FactSpec:
        name = _coin(rng)
        return _spec("product", name, name, name=name, noun=ind.product_noun,
                     verb=ind.product_verb, phrase=f"the {name} {ind.product_noun}",
                     Phrase=f"The {name} {ind.product_noun}")
    add("product", product)

    if "pipeline" in ind.specific:
        def pipeline() -> _FactSpec:
            code = ("".join(chr(65 + int(x)) for x in rng.integers(0, 26, 3)) + "-"
                    + str(int(rng.integers(100, 9999))))
            phase = _pick(rng, ("Phase 1", "Phase 2", "Phase 3"))
            return _spec("pipeline", code, code, code=code, phase=phase,
                         indication=_pick(rng, _INDICATIONS))
        add("pipeline", pipeline)

    if "customer" in ind.specific and rng.random() < 0.75:
        def customer() -> _FactSpec:
            pct = _pct(_u(rng, (10.0, 40.0)))
            return _spec("customer", f"{pct}% of consolidated net sales", pct, pct=pct,
                         who=_CUSTOMER_WHO.get(ind.key, "a large distributor"), year=year)
        add("customer", customer)

    if "loyalty" in ind.specific:
        def loyalty() -> _FactSpec:
            members = _pct(sale / _u(rng, (300.0, 1500.0)))
            return _spec("loyalty", f"{members} million members", members, members=members,
                         year=year)
        add("loyalty", loyalty)

    if "enterprise_customers" in ind.specific:
        def enterprise_customers() -> _FactSpec:
            n = max(40, int(sale * _u(rng, (1.2, 6.0))))
            return _spec("enterprise_customers", f"{_count(n)} enterprise customers", str(n),
                         count=_count(n), year=year)
        add("enterprise_customers", enterprise_customers)

    if "utility_customers" in ind.specific:
        def utility_customers() -> _FactSpec:
            millions = f"{max(sale / _u(rng, (1100.0, 2600.0)), 0.05):.2f}"
            return _spec("utility_customers", f"{millions} million customer accounts",
                         millions, count=millions, states=int(rng.integers(1, 9)), year=year)
        add("utility_customers", utility_customers)

    if "backlog" in ind.specific:
        def backlog() -> _FactSpec:
            amount = _money_f(sale * _u(rng, (0.35, 1.4)))
            return _spec("backlog", f"backlog of {amount}", amount, amount=amount, year=year)
        add("backlog", backlog)

    if "patents" in ind.specific:
        def patents() -> _FactSpec:
            n = max(12, int(math.sqrt(sale) * _u(rng, (3.0, 20.0))))
            pending = max(5, int(n * _u(rng, (0.1, 0.5))))
            return _spec("patents", f"{_count(n)} issued patents", str(n), count=_count(n),
                         pending=_count(pending), year=year)
        add("patents", patents)

    if "reserves" in ind.specific:
        def reserves() -> _FactSpec:
            amount = f"{sale * _u(rng, (0.04, 0.15)):,.1f}"
            return _spec("reserves", f"{amount} million barrels of oil equivalent", amount,
                         amount=amount, year=year)
        add("reserves", reserves)

    if "fleet" in ind.specific:
        def fleet() -> _FactSpec:
            n = max(50, int(sale * _u(rng, (1.2, 3.0))))
            return _spec("fleet", f"{_count(n)} tractors", str(n), count=_count(n),
                         trailers=_count(int(n * _u(rng, (2.5, 4.0)))), year=year)
        add("fleet", fleet)

    if profile.acquisition_index is not None:
        acq_year = periods[profile.acquisition_index]
        price = _money_f(profile.acquisition_price)

        def acquisition() -> _FactSpec:
            target = _other_name(fake, rng, registry, person=False)
            return _spec("acquisition", f"{target} for {price}", f"{target} {acq_year}",
                         target=target, price=price, month=_pick(rng, _MONTHS), year=acq_year,
                         business=f"a privately held supplier of {ind.market}")
        add("acquisition", acquisition)

    def litigation() -> _FactSpec:
        court = _pick(rng, _COURTS)
        subject, allegation, person = _pick(rng, _LAWSUITS)
        month, when = _pick(rng, _MONTHS), int(rng.integers(max(periods[0], year - 2), year + 1))
        plaintiff = _other_name(fake, rng, registry, person=person)
        return _spec("litigation", f"{court} in {month} {when}",
                     f"{subject} {court} {month} {when}", court=court, subject=subject,
                     a_subject=("an " if subject[0] in "aeiou" else "a ") + subject,
                     allegation=allegation, plaintiff=plaintiff, month=month, year=when)
    add("litigation", litigation)

    def regulatory() -> _FactSpec:
        agency, action, topic = _pick(rng, ind.agencies)
        month, when = _pick(rng, _MONTHS), int(rng.integers(periods[0], year + 1))
        return _spec("regulatory", f"{action} from the {agency} in {month} {when}",
                     f"{action} {agency} {month} {when}", agency=agency, action=action,
                     topic=topic, month=month, year=when)
    add("regulatory", regulatory)

    def credit_facility() -> _FactSpec:
        size = max(20.0, sale * _u(rng, (0.04, 0.2)))
        step = 5.0 if size >= 1000 else 1.0
        amount = _money_f(round(size / step) * step)
        return _spec("credit_facility", f"{amount} revolving credit facility", amount,
                     amount=amount, maturity=year + int(rng.integers(2, 7)), year=year)
    add("credit_facility", credit_facility)

    bought = profile.buyback[-1] if profile.buyback else 0.0
    if bought >= 1.0:
        def repurchase() -> _FactSpec:
            count = max(bought / _u(rng, (15.0, 350.0)), 0.05)
            shares = f"{count:.2f}" if count < 10 else f"{count:.1f}"
            return _spec("repurchase", f"repurchased {shares} million shares", shares,
                         shares=shares, amount=_money_f(bought), year=year)
        add("repurchase", repurchase)

    dltt = float(figs["dltt"][-1])

    def rate_sensitivity() -> _FactSpec:
        amount = _money_fine(max(dltt * _u(rng, (0.1, 0.7)) * 0.01, 0.05))
        return _spec("rate_sensitivity", f"interest expense by approximately {amount}", amount,
                     amount=amount, year=year)
    add("rate_sensitivity", rate_sensitivity)

    if ind.foreign is not None:
        foreign = ind.foreign

        def foreign_sales() -> _FactSpec:
            pct = _pct(_u(rng, foreign))
            return _spec("foreign_sales", f"{pct}% of net sales outside the United States", pct,
                         pct=pct, year=year)
        add("foreign_sales", foreign_sales)
        share = float(facts["foreign_sales"].f["pct"]) / 100.0
        if rng.random() < 0.85:
            def fx_forwards() -> _FactSpec:
                amount = _money_fine(max(sale * share * _u(rng, (0.05, 0.3)), 0.5))
                k = int(rng.integers(2, 4))
                currencies = [_CURRENCIES[int(i)]
                              for i in rng.choice(len(_CURRENCIES), size=k, replace=False)]
                return _spec("fx_forwards", f"notional amount of {amount}", amount,
                             amount=amount, currencies=_join(currencies), year=year)
            add("fx_forwards", fx_forwards)

    if ind.commodities:
        cogs = float(figs["cogs"][-1])
        commodity_name = str(_pick(rng, ind.commodities))

        def commodity() -> _FactSpec:
            amount = _money_fine(max(cogs * _u(rng, (0.03, 0.15)) * 0.1, 0.05))
            return _spec("commodity", f"cost of sales by approximately {amount}",
                         f"{commodity_name} {amount}", commodity=commodity_name,
                         amount=amount, year=year)
        add("commodity", commodity)
    return facts


# --------------------------------------------------------------------------------------------
# Figures as the MD&A states them
# --------------------------------------------------------------------------------------------

def _ratio(num: Decimal, den: Decimal) -> str:
    if den <= 0:
        return ""
    return f"{(num / den * 100).quantize(_TENTH, rounding=ROUND_HALF_UP)}%"


def _figure_ctx(figs: dict[str, list[Decimal]], columns: tuple[str, ...],
                periods: list[int]) -> dict[str, Any]:
    """The ``m`` of a figure macro: last year vs the year before, as displayed."""
    series = figs[columns[0]]
    cur, prev = _shown(series[-1]), _shown(series[-2])
    diff = cur - prev
    pct = ""
    if prev > 0 and cur > 0:
        pct = f"{abs(diff / prev * 100).quantize(_TENTH, rounding=ROUND_HALF_UP)}%"
    flat = diff == 0 or pct == "0.0%"
    up = diff > 0
    word = "increased" if up else "decreased"
    if flat:
        moved_to, change = "remained essentially unchanged at", "essentially unchanged"
    elif pct:
        moved_to = f"{word} {pct} to"
        change = f"an increase of {pct}" if up else f"a decrease of {pct}"
    else:
        moved_to = f"{word} by {_money(diff)} to"
        change = f"an increase of {_money(diff)}" if up else f"a decrease of {_money(diff)}"
    ratio = prev_ratio = other = ""
    if len(columns) > 1 and columns[1] in figs:
        den = figs[columns[1]]
        ratio = _ratio(cur, _shown(den[-1]))
        prev_ratio = _ratio(prev, _shown(den[-2]))
        other = _money(den[-1])
    return {
        "cur": _money(cur), "prev": _money(prev), "neg": cur < 0, "prev_neg": prev < 0,
        "zero": cur == 0, "diff": _money(diff), "pct": pct, "up": up, "flat": flat,
        "moved_to": moved_to, "change": change, "ratio": ratio, "prev_ratio": prev_ratio,
        "other": other,
        "year": periods[-1], "prev_year": periods[-2],
    }


# --------------------------------------------------------------------------------------------
# Templates
# --------------------------------------------------------------------------------------------

class _Templates:
    """The pack's ``text/*.j2`` macros; each renders its alternatives one per line."""

    def __init__(self, folder: Path) -> None:
        if not folder.is_dir():
            raise UserError(f"{folder}: the synthetic source needs this folder of templates")
        self.folder = folder
        env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(folder)),
                                 autoescape=False, undefined=jinja2.StrictUndefined,
                                 lstrip_blocks=True)
        self.modules: dict[str, Any] = {}
        words: set[str] = set()
        for name in (*SECTIONS, "claims"):
            try:
                words.update(re.findall(r"[a-z]+", (folder / f"{name}.j2").read_text(
                    encoding="utf-8").lower()))
                self.modules[name] = env.get_template(f"{name}.j2").module
            except (jinja2.TemplateNotFound, FileNotFoundError):
                raise UserError(f"{folder / (name + '.j2')}: file not found") from None
            except jinja2.TemplateSyntaxError as exc:
                raise UserError(f"{folder / (name + '.j2')}:{exc.lineno}: {exc.message}") from None
            except (jinja2.TemplateError, TypeError, ValueError, ArithmeticError) as exc:
                raise UserError(f"{folder / (name + '.j2')}: {exc}") from None
            except UnicodeDecodeError as exc:
                raise UserError(f"{folder / (name + '.j2')}: not UTF-8 text ({exc.reason})") \
                    from None
            except OSError as exc:
                raise UserError(f"{folder / (name + '.j2')}: cannot read it: {exc.strerror}") \
                    from None
        #: every lower-case word of the templates (coined brand names must avoid them)
        self.vocabulary = frozenset(words)

    def lines(self, file: str, macro: str, *args: Any) -> list[str]:
        """The alternatives of one macro, whitespace-normalised, empty lines dropped."""
        fn = getattr(self.modules[file], macro, None)
        if fn is None:
            raise UserError(f"{self.folder / (file + '.j2')}: no macro {macro!r}")
        try:
            out = str(fn(*args))
        except (jinja2.TemplateError, TypeError, ValueError, ArithmeticError) as exc:
            raise UserError(f"{self.folder / (file + '.j2')}: macro {macro!r}: {exc}") from None
        lines = [" ".join(line.split()) for line in out.splitlines()]
        lines = [line for line in lines if line]
        if not lines:
            raise UserError(f"{self.folder / (file + '.j2')}: macro {macro!r} renders nothing")
        return lines


@functools.lru_cache(maxsize=8)
def _templates(folder: str) -> _Templates:
    return _Templates(Path(folder))


@functools.lru_cache(maxsize=1)
def _faker() -> Any:
    return Faker("en_US")


# --------------------------------------------------------------------------------------------
# Document assembly
# --------------------------------------------------------------------------------------------

@dataclass
class _Paragraph:
    sentences: list[str] = field(default_factory=list)
    facts: list[tuple[_FactSpec, str]] = field(default_factory=list)
    columns: set[str] = field(default_factory=set)


_REQUIRED = {("mdna", "sales"), ("mdna", "liquidity")}


class _Writer:
    """Writes one company's document from its fact base and figures."""

    def __init__(self, templates: _Templates, rng: np.random.Generator, c: dict[str, Any],
                 facts: dict[str, _FactSpec], figures: dict[str, dict[str, Any]]) -> None:
        self.t, self.rng, self.c = templates, rng, c
        self.facts, self.figures = facts, figures
        self.used: set[str] = set()

    def _choose(self, lines: list[str]) -> str:
        fresh = [line for line in lines if line not in self.used]
        line: str = _pick(self.rng, fresh or lines)
        self.used.add(line)
        return line

    def _available(self, slot: str) -> bool:
        kind, _, name = slot.rstrip("?").partition(":")
        if kind == "fact":
            return name in self.facts
        if kind == "fig":
            return name in self.figures
        return True

    def paragraph(self, section: str, slots: tuple[str, ...]) -> _Paragraph:
        present = [s for s in slots if self._available(s)]
        keep = [s for s in present if not s.endswith("?") or self.rng.random() < 0.5]
        for slot in present:  # at least two sentences per paragraph
            if len(keep) >= 2:
                break
            if slot not in keep:
                keep.insert(present.index(slot), slot)
        keep = [s for s in present if s in keep]
        para = _Paragraph()
        for slot in keep:
            kind, _, name = slot.rstrip("?").partition(":")
            if kind == "fact":
                spec = self.facts[name]
                lines = self.t.lines(section, name, self.c, spec.f)
                for line in lines:
                    if spec.needle not in line:
                        raise UserError(
                            f"{self.t.folder / (section + '.j2')}: macro {name!r}: alternative "
                            f"{line!r} does not state {spec.needle!r} verbatim")
                sentence = self._choose(lines)
                para.facts.append((spec, sentence))
            elif kind == "fig":
                m = self.figures[name]
                sentence = self._choose(self.t.lines(section, name, self.c, m))
                columns = FIGURE_COLUMNS[name]
                para.columns.add(columns[0])
                # the second column is stated only where its ratio or value is printed
                if any(m[k] and m[k] in sentence for k in ("ratio", "prev_ratio", "other")):
                    para.columns.update(columns[1:])
            else:
                sentence = self._choose(self.t.lines(section, name, self.c))
            para.sentences.append(sentence)
        return para

    def section(self, section: str) -> list[_Paragraph]:
        plan = PLANS[section]
        required = [i for i, (pname, slots) in enumerate(plan)
                    if i == 0 or (section, pname) in _REQUIRED
                    or any(s.startswith("fact:") and s[5:] in self.facts for s in slots)]
        chunks = int(_pick(self.rng, CHUNK_CHOICES[section]))
        target = max(chunks, -(-len(required) // PARAGRAPHS_PER_CHUNK)) * PARAGRAPHS_PER_CHUNK
        target = min(target, len(plan) - len(plan) % PARAGRAPHS_PER_CHUNK)
        optional = [i for i in range(len(plan)) if i not in required]
        extra = max(0, target - len(required))
        chosen = sorted(required + [optional[int(i)] for i in
                                    self.rng.choice(len(optional), size=extra, replace=False)])
        return [self.paragraph(section, plan[i][1]) for i in chosen]

    def claim(self, spec: _FactSpec) -> str:
        return self._choose(self.t.lines("claims", spec.kind, self.c, spec.f))


def _chunks(writer: _Writer, entity_id: str, period: int) -> list[Chunk]:
    out: list[Chunk] = []
    for section in SECTIONS:
        paragraphs = writer.section(section)
        for k in range(0, len(paragraphs), PARAGRAPHS_PER_CHUNK):
            group = paragraphs[k:k + PARAGRAPHS_PER_CHUNK]
            chunk_id = f"{entity_id}-{section}-{k // PARAGRAPHS_PER_CHUNK + 1}"
            facts = tuple(
                Fact(entity=entity_id, chunk=chunk_id, kind=spec.kind, key=spec.key,
                     needle=spec.needle, claim=writer.claim(spec), sentence=sentence)
                for para in group for spec, sentence in para.facts)
            out.append(Chunk(
                id=chunk_id, entity=entity_id, section=section, period=period,
                text="\n\n".join(" ".join(p.sentences) for p in group),
                columns_stated=frozenset(col for p in group for col in p.columns),
                facts=facts))
    return out


def _company_ctx(name: str, profile: _Profile, facts: dict[str, _FactSpec],
                 figs: dict[str, list[Decimal]], periods: list[int]) -> dict[str, Any]:
    ind = profile.industry
    sales_up = figs["sale"][-1] >= figs["sale"][-2]
    segments: list[str] = facts["segments"].f["names"]
    return {
        "name": name, "year": periods[-1], "prev_year": periods[-2], "first_year": periods[0],
        "industry": ind.label.lower(), "business_we": ind.business_we,
        "business_3p": ind.business_3p, "market": ind.market, "customers": ind.customers,
        "offering": ind.offering, "inputs": ind.inputs, "competitors": ind.competitors,
        "facilities": ind.facilities, "seg": segments, "seg1": segments[0],
        "seg2": segments[1], "domestic": ind.foreign is None, "payer": profile.payer,
        "sector": ind.key, "sales_up": sales_up,
    }


def _figure_set(figs: dict[str, list[Decimal]], periods: list[int]) -> dict[str, dict[str, Any]]:
    out = {name: _figure_ctx(figs, cols, periods) for name, cols in FIGURE_COLUMNS.items()}
    if figs["dv"][-1] <= 0 or figs["dv"][-2] <= 0:
        del out["dividends"]
    return out


def _check_identities(identities: Sequence[Identity],
                      values: dict[str, dict[str, list[Decimal | None]]]) -> None:
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


# --------------------------------------------------------------------------------------------
# The source
# --------------------------------------------------------------------------------------------

def load_world(pack: PackLike, seed: int, n_entities: int = 120, first_period: int = 2019,
               n_periods: int = 5) -> World:
    """Build the seeded synthetic financial world of ``pack`` (offline, deterministic).

    ``pack`` is read only through ``path`` (templates in ``path / "text"``), ``name``,
    ``columns()`` and ``identities``. The same arguments give an equal :class:`World`, text
    included. Raises :class:`UserError` for bad arguments, a column the source cannot
    produce or a broken template, and :class:`GenerationError` if an identity of the pack
    does not hold for the generated figures.
    """
    if seed < 0:
        raise UserError("seed must be non-negative")
    if n_entities < 1:
        raise UserError("n_entities must be at least 1")
    if n_periods < 2:
        raise UserError("n_periods must be at least 2 (the MD&A compares two years)")
    if not 1900 <= first_period <= 2100 - n_periods:
        raise UserError(f"first_period {first_period} is out of range (1900-2100)")
    columns = pack.columns()
    unknown = sorted(set(columns) - set(PRODUCED))
    if unknown:
        raise UserError(f"the synthetic source cannot produce column(s) {', '.join(unknown)} "
                        f"of domain {pack.name!r} (it produces: {', '.join(PRODUCED)})")
    periods = list(range(first_period, first_period + n_periods))
    templates = _templates(str(Path(pack.path) / "text"))
    fake = _faker()
    fake.seed_instance(derive_int(seed, "world", "faker"))
    registry = _Registry(templates.vocabulary)
    tickers: set[str] = set()
    entities: list[Entity] = []
    values: dict[str, dict[str, list[Decimal | None]]] = {}
    chunks: dict[str, list[Chunk]] = {}
    industries: dict[str, int] = {}
    regimes: dict[str, int] = {}
    for index in range(n_entities):
        profile = _profile(seed, index, periods)
        figs = _figures(seed, profile, n_periods)
        rng = derive(seed, "world", "facts", index)
        name = _company_name(fake, rng, profile.industry, registry)
        facts = _fact_base(rng, fake, registry, profile, figs, periods)
        hq, inc = facts["headquarters"].f, facts["incorporation"].f
        entities.append(Entity(id=profile.entity_id, name=name, attributes={
            "ticker": _ticker(name, rng, tickers),
            "industry": profile.industry.label,
            "sector": profile.industry.key,
            "regime": profile.regime,
            "hq_city": hq["city"], "hq_state": hq["state"],
            "incorporation_state": inc["state"], "incorporation_year": str(inc["year"]),
            "employees": facts["employees"].f["count"].replace(",", ""),
        }))
        values[profile.entity_id] = {key: list(figs[key]) for key in columns}
        writer = _Writer(templates, derive(seed, "world", "text", index),
                         _company_ctx(name, profile, facts, figs, periods), facts,
                         _figure_set(figs, periods))
        chunks[profile.entity_id] = _chunks(writer, profile.entity_id, periods[-1])
        industries[profile.industry.key] = industries.get(profile.industry.key, 0) + 1
        regimes[profile.regime] = regimes.get(profile.regime, 0) + 1
    _check_identities(pack.identities, values)
    n_chunks = sum(len(v) for v in chunks.values())
    n_facts = sum(len(c.facts) for v in chunks.values() for c in v)
    try:
        faker_version = metadata.version("faker")
    except metadata.PackageNotFoundError:  # pragma: no cover - faker is a dependency
        faker_version = "unknown"
    return World(
        domain=pack.name, source="synthetic", entities=entities, periods=periods,
        columns=columns, values=values, chunks=chunks,
        provenance={
            "source": "synthetic", "generator": "hopvista.sources.synthetic", "seed": seed,
            "n_entities": n_entities, "first_period": first_period, "n_periods": n_periods,
            "periods": periods, "faker": faker_version,
            "sizes": {"entities": n_entities, "periods": n_periods, "columns": len(columns),
                      "chunks": n_chunks, "facts": n_facts,
                      "paragraphs_per_chunk": PARAGRAPHS_PER_CHUNK},
            "industries": dict(sorted(industries.items())),
            "regimes": dict(sorted(regimes.items())),
            "unresolved_clashes": dict(sorted(registry.clashes.items())),
        })
