"""The contract between the pack's data files and its templates, in one place (checked at load).

A pack read by the synthetic source holds:

* ``catalogues.yaml`` — what the world is made of (:mod:`.catalogue`): industries, cities,
  courts, lawsuits, months, currencies, indications, name parts;
* ``text/plan.yaml`` — how a document is laid out (:mod:`.plan`): sections,
  paragraphs of slots, chunk counts, and the MD&A figures;
* ``text/<section>.j2`` for every section, and ``text/claims.j2`` — Jinja2 macros.

**Macros.** A macro renders its *alternatives*, one per line; the source picks one line
with its seeded RNG (blank lines are dropped, whitespace inside a line is collapsed). A slot
of ``plan.yaml`` names the macro of its section's template that words it:

* ``fill:<name>`` → ``<name>(c)`` in ``<section>.j2``: states no fact value and no figure.
* ``fact:<kind>`` → ``<kind>(c, f)`` in ``<section>.j2``: EVERY alternative contains the
  fact's needle verbatim (checked when rendered); and ``<kind>(c, f)`` in ``claims.j2``:
  the fact as a third-person predicate that can follow the company's name ("is
  headquartered in Austin, Texas"), entailed by every alternative of the sentence macro,
  without "we", "our", "us" or the company's name. ``<kind>`` is one of
  :data:`~.facts.FACT_KINDS`; a company that has no fact of that kind skips the slot.
* ``fig:<name>`` → ``<name>(c, m)`` in ``<section>.j2``, and ``figures.<name>`` in
  ``plan.yaml`` lists the columns it states (those fill ``Chunk.columns_stated``, so
  the macro must mention no other column): the first always, the second only where the
  sentence prints ``m.ratio``, ``m.prev_ratio`` or ``m.other``. Columns are among
  :data:`~.figures.PRODUCED`. ``positive: true``: skipped unless the first column is
  positive in the last two periods (dividends).

**Catalogue entries naming macros.** An industry's ``specific`` lists fact kinds among
:data:`~.facts.SPECIFIC_KINDS`; each must be placed by a ``fact:<kind>`` slot of
``plan.yaml`` (and so have its sentence and claims macros).

**Needles** (the phrase of ``f`` that states the fact's value)::

    headquarters "City, State" · incorporation "incorporated in State in YEAR" ·
    employees "approximately N employees" · facilities "operated N <f.noun>" ·
    segments f.joined · product f.name · pipeline f.code ·
    customer "P% of consolidated net sales" · loyalty "M million members" ·
    enterprise_customers "N enterprise customers" ·
    utility_customers "M million customer accounts" · backlog "backlog of $X million" ·
    patents "N issued patents" · reserves "X million barrels of oil equivalent" ·
    fleet "N tractors" · acquisition "<f.target> for <f.price>" ·
    litigation "<f.court> in <f.month> <f.year>" ·
    regulatory "<f.action> from the <f.agency> in <f.month> <f.year>" ·
    credit_facility "<f.amount> revolving credit facility" ·
    repurchase "repurchased <f.shares> million shares" ·
    rate_sensitivity "interest expense by approximately <f.amount>" ·
    foreign_sales "<f.pct>% of net sales outside the United States" ·
    fx_forwards "notional amount of <f.amount>" ·
    commodity "cost of sales by approximately <f.amount>" ·
    listing f.exchange · auditor f.firm (shared: several companies state them alike)

The other fields of ``f`` are those :mod:`.facts` passes to :func:`~.facts.spec`.

**c** (every macro): name, year, prev_year, first_year, industry, business_we, business_3p,
market, customers, offering, inputs, competitors, facilities, seg (list), seg1, seg2,
domestic, payer, sector, sales_up (:func:`~.context.company_context`).

**m** (figure macros; the first column, last period against the one before, as displayed,
USD millions with one decimal, absolute values): cur, prev ("$4,512.3 million"), neg,
prev_neg, zero, up, flat, diff, pct ("8.2%" or ""), moved_to ("increased 8.2% to" /
"decreased by $3.1 million to" / "remained essentially unchanged at"), change ("an
increase of 8.2%"), ratio / prev_ratio (first column over the second, "38.2%" or ""),
other (the second column, last period), year, prev_year (:func:`~.context.figure_context`).

**Checked at load** (a :class:`UserError` naming the data file, line and field, and the
template): every slot's macro exists in its template with the right arguments; every fact
slot's kind is one the source draws and has a claims macro; every fig slot has its
``figures`` entry; figure columns are produced; every industry-specific kind is known and
placed. Template words (comments included) also steer coined product names away from them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from hopvista.errors import UserError
from hopvista.sources.macros import Templates, load_templates
from hopvista.sources.synthetic.catalogue import Catalogue, load_catalogue
from hopvista.sources.synthetic.datafile import DataFile
from hopvista.sources.synthetic.facts import FACT_KINDS, SPECIFIC_KINDS
from hopvista.sources.synthetic.figures import PRODUCED
from hopvista.sources.synthetic.plan import CLAIMS, DocumentPlan, Slot, load_plan

#: Arguments of each kind of macro.
ARGUMENTS = {"fill": ("c",), "fact": ("c", "f"), "fig": ("c", "m")}


@dataclass(frozen=True)
class PackText:
    """The synthetic source's view of a pack: its catalogue, its document plan, its macros."""

    catalogue: Catalogue
    plan: DocumentPlan
    templates: Templates


def load_pack_text(folder: Path) -> PackText:
    """Load the data files and templates of the pack in ``folder`` and check the contract."""
    text = folder / "text"
    if not text.is_dir():
        raise UserError(f"{text}: the synthetic source needs this folder of templates")
    plan, plan_file = load_plan(folder)
    templates = load_templates(text, (*plan.sections, CLAIMS))
    catalogue, catalogue_file = load_catalogue(folder)
    placed = check_plan(plan, plan_file, templates)
    check_catalogue(catalogue, catalogue_file, placed, plan_file)
    return PackText(catalogue, plan, templates)


def check_plan(plan: DocumentPlan, file: DataFile, templates: Templates) -> set[str]:
    """Check every slot and figure against the templates; return the fact kinds placed."""
    placed: set[str] = set()
    for section_name, section in plan.sections.items():
        for paragraph in section.outline:
            where = file.where("sections", section_name, "paragraphs", paragraph.name)
            for slot in paragraph.slots:
                _check_slot(slot, section_name, where, plan, file, templates)
                if slot.kind == "fact":
                    placed.add(slot.name)
    for name, figure in plan.figures.items():
        unknown = [c for c in figure.columns if c not in PRODUCED]
        if unknown:
            raise UserError(f"{file.where('figures', name, 'columns')}: the synthetic source "
                            f"produces no column {', '.join(unknown)} (it produces: "
                            f"{', '.join(PRODUCED)})")
    return placed


def _check_slot(slot: Slot, section: str, where: str, plan: DocumentPlan, file: DataFile,
                templates: Templates) -> None:
    if slot.kind == "fact" and slot.name not in FACT_KINDS:
        raise UserError(f"{where}: slot {slot.text!r}: the synthetic source draws no fact of "
                        f"kind {slot.name!r} (it draws: {', '.join(FACT_KINDS)})")
    if slot.kind == "fig" and slot.name not in plan.figures:
        raise UserError(f"{where}: slot {slot.text!r}: no entry figures.{slot.name} in "
                        f"{file.path}")
    _check_macro(templates, section, slot, where)
    if slot.kind == "fact":
        _check_macro(templates, CLAIMS, slot, where)


def _check_macro(templates: Templates, file: str, slot: Slot, where: str) -> None:
    macro = templates.macro(file, slot.name)
    if macro is None:
        raise UserError(f"{where}: slot {slot.text!r} names macro {slot.name!r}, which "
                        f"{templates.path(file)} does not define")
    expected = ARGUMENTS[slot.kind]
    if len(macro.arguments) != len(expected):
        raise UserError(f"{where}: slot {slot.text!r}: macro {slot.name!r} of "
                        f"{templates.path(file)} takes ({', '.join(macro.arguments)}); a "
                        f"{slot.kind} macro takes ({', '.join(expected)})")


def check_catalogue(catalogue: Catalogue, file: DataFile, placed: set[str],
                    plan_file: DataFile) -> None:
    """Every industry-specific fact kind is one the source draws and the plan places."""
    for i, industry in enumerate(catalogue.industries):
        for j, kind in enumerate(industry.specific):
            where = file.where("industries", i, "specific", j)
            if kind not in SPECIFIC_KINDS:
                raise UserError(f"{where}: unknown industry-specific fact kind {kind!r} "
                                f"(known: {', '.join(SPECIFIC_KINDS)})")
            if kind not in placed:
                raise UserError(f"{where}: fact kind {kind!r} is placed by no 'fact:{kind}' "
                                f"slot of {plan_file.path}, so no macro words it")
