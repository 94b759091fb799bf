"""The entity domains of multimodal tables and the tables of MMTabReal's eight archetypes.

A table's first column names each row's entity (a fictional club, country, product, region
or person); two columns hold whole numbers, different row by row so that no extreme ties; the
other columns hold pictures (:class:`VisualColumn`), each drawn by a registered visual kind
from attributes sampled for it, and show no text. Which picture columns a table has is its
archetype's :class:`Layout`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from hopvista.mmtables.names import unique_names
from hopvista.rng import Streams
from hopvista.themes.visuals import VISUAL_KINDS
from hopvista.themes.visuals.palette import stands_out

ROWS = (4, 6)
"""The fewest and the most body rows of a table."""


@dataclass(frozen=True)
class Numbers:
    """A column of whole numbers: ``noun`` counts something (``points``), its header is the
    noun capitalised; values lie in ``low``..``high``."""

    noun: str
    low: int
    high: int

    @property
    def header(self) -> str:
        """The column's header text."""
        return self.noun.capitalize()


@dataclass(frozen=True)
class VisualColumn:
    """A column of pictures of one visual kind: ``noun`` is how a question names one
    (``badge``, ``form chart``); ``constraints`` fix attributes of every picture
    (``symbol="stars"``); a ``single`` column shows its picture in one row only."""

    header: str
    kind: str
    noun: str
    constraints: Mapping[str, Any] = field(default_factory=dict)
    single: bool = False


@dataclass(frozen=True)
class Domain:
    """Entities of one sort: their singular and plural, the name suffixes of their made-up
    names, and their two number columns."""

    name: str
    entity: str
    plural: str
    suffixes: tuple[str, ...]
    numbers: tuple[Numbers, Numbers]


CLUBS = Domain("clubs", "club", "clubs", (" FC", " United", " Rovers", " Athletic", " Town"),
               (Numbers("points", 18, 92), Numbers("wins", 3, 29)))
COUNTRIES = Domain("countries", "country", "countries", ("ia", "land", "stan", "ora", "mark"),
                   (Numbers("cities", 4, 60), Numbers("rivers", 2, 40)))
PRODUCTS = Domain("products", "product", "products", (" Pro", " Max", " One", " Lite", " Go"),
                  (Numbers("stores", 5, 95), Numbers("reviews", 10, 99)))
REGIONS = Domain("regions", "region", "regions", ("shire", "vale", "moor", "dale", "field"),
                 (Numbers("towns", 3, 48), Numbers("farms", 10, 99)))
PEOPLE = Domain("people", "person", "people", (" Ash", " Bell", " Crane", " Dunn", " Frost"),
                (Numbers("awards", 1, 30), Numbers("projects", 2, 60)))


@dataclass(frozen=True)
class Layout:
    """The entities and picture columns of one table of an archetype."""

    domain: Domain
    columns: tuple[VisualColumn, ...]


BADGE = VisualColumn("Badge", "badge", "badge")
LOGO = VisualColumn("Logo", "badge", "logo")
FLAG = VisualColumn("Flag", "flag", "flag")
COACH = VisualColumn("Coach", "avatar", "coach")
LEADER = VisualColumn("Leader", "avatar", "leader")
PHOTO = VisualColumn("Photo", "avatar", "photo")
RATING = VisualColumn("Rating", "symbol", "rating", {"symbol": "stars"})
STATUS = VisualColumn("Status", "symbol", "status arrow", {"symbol": "arrow"})
FORM = VisualColumn("Form", "minibar", "form chart")
TREND = VisualColumn("Trend", "sparkline", "trend line")
MIX = VisualColumn("Mix", "minipie", "mix pie")
LOCATION = VisualColumn("Location", "map", "map")

LAYOUTS: Mapping[str, tuple[Layout, ...]] = {
    "single-entity": (Layout(CLUBS, (BADGE,)), Layout(COUNTRIES, (FLAG,)),
                      Layout(PEOPLE, (PHOTO,)), Layout(PRODUCTS, (LOGO,))),
    "multi-entity": (Layout(CLUBS, (BADGE, COACH)), Layout(COUNTRIES, (FLAG, LEADER))),
    "single-chart": (Layout(PRODUCTS, (VisualColumn("Trend", "sparkline", "trend line",
                                                    single=True),)),
                     Layout(CLUBS, (VisualColumn("Form", "minibar", "form chart",
                                                 single=True),)),
                     Layout(COUNTRIES, (VisualColumn("Mix", "minipie", "trade pie",
                                                     single=True),))),
    "visualisation": (Layout(PRODUCTS, (RATING,)), Layout(CLUBS, (RATING, STATUS)),
                      Layout(PEOPLE, (STATUS,))),
    "entities-maps": (Layout(COUNTRIES, (FLAG, LOCATION)), Layout(CLUBS, (BADGE, LOCATION))),
    "entities-charts": (Layout(CLUBS, (BADGE, FORM)), Layout(PRODUCTS, (LOGO, TREND)),
                        Layout(COUNTRIES, (FLAG, MIX))),
    "multiple-charts": (Layout(PRODUCTS, (TREND, MIX)), Layout(CLUBS, (FORM,))),
    "maps-only": (Layout(REGIONS, (LOCATION,)),),
}
"""The tables each of MMTabReal's eight archetypes is drawn as."""


@dataclass(frozen=True)
class Table:
    """A drawn table: its grid of texts (header row first; a picture's cell is empty), its
    pictures by grid cell (``kind``, ``colors`` drawn, ``attributes``), and what its columns
    are."""

    layout: Layout
    grid: list[list[str]]
    visuals: dict[tuple[int, int], dict[str, Any]]
    number_columns: tuple[tuple[Numbers, int], ...]
    visual_columns: tuple[tuple[VisualColumn, int], ...]

    @property
    def rows(self) -> range:
        """The body rows' grid indices."""
        return range(1, len(self.grid))

    def label(self, row: int) -> str:
        """The entity named in ``row``."""
        return self.grid[row][0]

    def imaged(self, col: int) -> list[int]:
        """The body rows holding a picture in column ``col``."""
        return [row for row in self.rows if (row, col) in self.visuals]


def draw_table(layout: Layout, streams: Streams) -> Table:
    """A table of ``layout`` drawn from ``streams``."""
    domain = layout.domain
    count = streams.integer("table.rows", *ROWS)
    names = unique_names(streams, "table.names", count, domain.suffixes)
    numbers = [_distinct(streams, f"table.{n.noun}", n, count) for n in domain.numbers]
    header = [domain.entity.capitalize(), *(n.header for n in domain.numbers),
              *(c.header for c in layout.columns)]
    grid = [header, *([name, *(str(v[r]) for v in numbers), *("" for _ in layout.columns)]
                      for r, name in enumerate(names))]
    first = 1 + len(domain.numbers)
    visuals: dict[tuple[int, int], dict[str, Any]] = {}
    for k, column in enumerate(layout.columns):
        kind = VISUAL_KINDS.get(column.kind)
        shown = [streams.integer(f"table.{column.header}.row", 1, count)] if column.single \
            else list(range(1, count + 1))
        for row in shown:
            slot = f"table.{column.header}.{row}"
            attributes = kind.sample(streams, slot=slot, **dict(column.constraints))
            visuals[(row, first + k)] = {"kind": column.kind, "colors": kind.colors(attributes),
                                         "attributes": attributes}
    return Table(layout, grid, visuals,
                 tuple((n, 1 + k) for k, n in enumerate(domain.numbers)),
                 tuple((c, first + k) for k, c in enumerate(layout.columns)))


LEGIBLE_DRAWS = 8
"""How many times a picture that would not stand out is drawn again before the table is."""


def legible_table(table: Table, backgrounds: tuple[str, ...], streams: Streams) -> Table:
    """``table`` with each picture whose first colour would not stand out from
    ``backgrounds`` drawn again from streams of its own (``table.<column>.<row>.again-<k>``:
    no other draw changes); a ``ValueError`` when one never does."""
    visuals = dict(table.visuals)
    for column, col in table.visual_columns:
        kind = VISUAL_KINDS.get(column.kind)
        for row in table.imaged(col):
            slot = f"table.{column.header}.{row}"
            for again in range(1, LEGIBLE_DRAWS + 1):
                if stands_out(visuals[(row, col)]["colors"][0], backgrounds):
                    break
                attributes = kind.sample(streams, slot=f"{slot}.again-{again}",
                                         **dict(column.constraints))
                visuals[(row, col)] = {"kind": column.kind, "colors": kind.colors(attributes),
                                       "attributes": attributes}
            if not stands_out(visuals[(row, col)]["colors"][0], backgrounds):
                raise ValueError(f"no {column.kind} that stands out from {backgrounds}")
    return replace(table, visuals=visuals)


def _distinct(streams: Streams, name: str, numbers: Numbers, count: int) -> list[int]:
    values = streams.stream(name).choice(numbers.high - numbers.low + 1, size=count,
                                         replace=False)
    return [numbers.low + int(v) for v in values]
