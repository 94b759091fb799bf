"""The embedded default source: a seeded synthetic financial world (figures + 10-K text).

``load_world(pack, seed)`` builds, with no network and no data files beyond the pack, a
panel of companies (Compustat-like annual figures in USD millions) and a 10-K excerpt per
company. What the world is made of (industries, places, courts, ...) is pack data
(``<pack>/catalogues.yaml``); how a document is laid out is ``<pack>/text/plan.yaml``;
the wording is the pack's Jinja2 macros (``<pack>/text/*.j2``). How these meet is the
contract in :mod:`.contract`, checked when the pack is loaded.

How it is made, in order, per company ``C001`` ... (each stage from its own RNG stream
``derive(seed, "world", <stage>, index)``; faker from one instance seeded once):

1. **Profile** (:mod:`.profiles`): an industry archetype and a growth regime (grower,
   decliner, cyclical, flat, volatile) drive every ratio.
2. **Figures** (:mod:`.figures`): independent columns drawn as floats, quantized to
   ``Decimal('0.001')``; dependent ones computed exactly, so every identity holds.
3. **Names** (:mod:`.names`) and **fact base** (:mod:`.facts`): headquarters,
   incorporation, employees, ..., each with a needle unique in the world
   (:mod:`.uniqueness`).
4. **Text** (:mod:`.writer`): sections laid out as paragraphs from the document plan; each
   sentence is one alternative of a macro (:mod:`.templates`) given ``c`` and ``f`` or
   ``m`` (:mod:`.context`); paragraphs are grouped by three into chunks (FCMR B.4).

Module map: :mod:`.loader` (``load_world``), :mod:`.catalogue` and :mod:`.plan` (the
pack's data files, validated by :mod:`.datafile`), :mod:`.contract`, and the stages above.
"""

from __future__ import annotations

from hopvista.sources.synthetic.figures import MAX_SALE, MIN_SALE, PRODUCED
from hopvista.sources.synthetic.loader import PackLike, load_world
from hopvista.sources.synthetic.plan import PARAGRAPHS_PER_CHUNK

__all__ = ["MAX_SALE", "MIN_SALE", "PARAGRAPHS_PER_CHUNK", "PRODUCED", "PackLike",
           "load_world"]
