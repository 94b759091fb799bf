"""``gen verify`` of a dataset made by ``gen augment`` (manifest ``"kind": "augmented"``).

What is re-proved, item by item, never trusting what the item says of itself:

- the item parses as the typed model, its id is ``base_id.variant`` and unique, its variant
  is one the manifest asked for (or ``base``);
- its images are whole PNGs of the recorded size and sha256 at ``images/ID.ROLE.png``, and
  the table's (or page's) recorded cells show exactly the item's table: every logical cell
  once, with its text, and every repeated header equal to its cell;
- a generated item's labels are re-derived from its programs on the inputs *as this variant
  shows them*, with the blanked cells removed: a program that read a blanked cell could not be
  executed, so a ``missing`` variant that hid a cell an answer depends on fails here;
- the variants of one base agree with each other (with the base item, when the dataset has
  it): question, answer, statements, entities, texts and provenance equal, every table cell
  equal but the ones a ``missing`` variant blanked, chart data equal (unless a style variant
  redrew it as another kind); a blanked cell is none a statement reads (a hopvista base) nor
  one the variant records as protected (an imported record);
- a generated item's texts say what its programs check, with the wording of the input's
  pack judged as a build's is (:mod:`hopvista.verify.wording`);
- with ``--source`` (the input the dataset was made from): every imported record is re-read
  through the import readers and each variant agrees with it (question, answer, statements,
  texts, every cell not blanked, no blanked cell one the reader protects); every base item of
  a hopvista input is the input's item;
- a chart markup variant's target and distractor are points of its chart, and its chart
  image emphasises exactly the point the variant marks (``render.emphasis``, with a box
  inside the image), or none for the control.
- a table markup variant records its recipe's style and marked cell, its table image marks
  exactly that cell, and (of a generated base the dataset holds) the rest of its record is
  what the markup recipe chooses for that base;
- a markup task's answer is its program's, and its question the one its subtask's wording
  gives for that program (:mod:`hopvista.program.marks`);
- a multimodal-table item's visuals are well-formed, its answer is its program's, its tags
  agree with its program and its question needs its visuals; its table (or page) image
  records each picture once inside its cell, and keeps what the answer names of the layout
  (a location's row and column, a list's table order); a variant blanks no picture and no
  cell of a column the program reads (:mod:`hopvista.verify.mmtables`).

Then the Parquet rows against the lines, and the counts against the manifest. What this
cannot prove (pixels; imported records without their source) goes to the notes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from hopvista.augment.grid import grid_of_table
from hopvista.augment.recipes import protected_cells
from hopvista.augment.structures import note_texts
from hopvista.errors import UserError
from hopvista.model import Item
from hopvista.model.dataset import load
from hopvista.model.inputs import Table
from hopvista.model.item import BASE_VARIANT
from hopvista.model.strict_json import parse_strict
from hopvista.program.executor import Context
from hopvista.sources.imports import IMPORTERS, Skipped, read_records
from hopvista.verify.checks import check_item, check_names
from hopvista.verify.files import check_files
from hopvista.verify.images import png_problem, read_image
from hopvista.verify.jsonl import read_lines
from hopvista.verify.manifest import MARGIN_EXPECTED, MARGIN_KEYS, recorded_margins, visible_margin
from hopvista.verify.markup import (
    RecipeRecords,
    question_problems,
    task_problems,
    variant_markup_problems,
)
from hopvista.verify.mmtables import (
    CELL_IMAGE_ROLE,
    cell_image_problem,
    faint_picture_problem,
    mmtable_problems,
    named_layout_problem,
    shown_pictures_problem,
)
from hopvista.verify.notes import BUILD_NOTE, FACT_NOTE, IMAGE_NOTE, IMPORTED_NOTE
from hopvista.verify.paraphrase import check_paraphrases, judge_synonyms
from hopvista.verify.parquet import compare_row, iter_rows, shard_names
from hopvista.verify.paths import file_problem
from hopvista.verify.wording import (
    check_wording,
    content_differences,
    installed_pack,
    judge_wording,
    pack_by_columns,
)

Report = Callable[[str], None]
ITEMS = "items.jsonl"


ITEM_BY_ITEM = ("augmented", "markup", "mmtables")
"""The manifest ``kind`` of datasets checked here: item by item, against their own programs
and images."""


def is_augmented(manifest: dict[str, Any]) -> bool:
    """Whether the manifest is that of a ``gen augment`` output, a ``gen markup`` one or a
    dataset of multimodal tables (checked here: item by item, against their own programs
    and images)."""
    return manifest.get("kind") in ITEM_BY_ITEM


def _table_cells(item: Item) -> dict[tuple[int, int], str]:
    if item.inputs.table is None:
        return {}
    grid = grid_of_table(item.inputs.table, {e.id: e.name for e in item.entities})
    return {(c.row, c.col): c.text for row in grid.rows for c in row}


def _shown_cells(item: Item) -> dict[tuple[int, int], str]:
    """What the item's table image shows in each logical cell: a table built with
    ``--structure text-mixed`` states one column in sentences, in the base and in every
    variant of it."""
    cells = _table_cells(item)
    table = item.inputs.table
    if not isinstance(table, Table):
        return cells
    return cells | note_texts(table, {e.id: e.name for e in item.entities})


def _layout_problem(item: Item, render: dict[str, Any], role: str) -> str | None:
    wanted = _shown_cells(item)
    cells = render.get("cells")
    if not isinstance(cells, list):
        return f"{role} image: render.cells is not a list"
    shown: dict[tuple[int, int], str] = {}
    for cell in cells:
        key = (cell.get("row"), cell.get("col"))
        if key in shown:
            return f"{role} image: cell {key} recorded twice"
        shown[key] = cell.get("text")
    if set(shown) != set(wanted):
        missing = sorted(set(wanted) - set(shown), key=str)[:3]
        extra = sorted(set(shown) - set(wanted), key=str)[:3]
        return f"{role} image: cells do not cover the table once each (missing {missing}, " \
               f"extra {extra})"
    for key, text in wanted.items():
        got = shown[key]
        if " ".join(text.split()) != got:
            return f"{role} image: cell {key} shows {str(got)[:40]!r}, not {text[:40]!r}"
    for copy in render.get("copies", []):
        key = (copy.get("row"), copy.get("col"))
        if key not in wanted or copy.get("text") != " ".join(wanted[key].split()):
            return f"{role} image: a repeated header {key} does not show its cell"
    return None


def _image_problems(item: Item, root: Path, images: dict[str, bytes | None]) -> list[str]:
    problems = []
    roles = [image.role for image in item.images]
    pictures = len(item.inputs.visuals)
    allowed = [[shot] + ["cell-image"] * pictures for shot in ("table", "page")] \
        if item.kind == "mmtable" else [["table"], ["table", "chart"], ["page"]]
    if roles not in allowed and item.images:
        problems.append(f"image roles {roles} are not {' or '.join(map(str, allowed))}")
    for number, image in enumerate(item.images):
        suffix = f".{number}" if image.role == CELL_IMAGE_ROLE else ""
        wanted = f"images/{item.id}.{image.role}{suffix}.png"
        if image.path != wanted:
            problems.append(f"{image.role} image {image.path[:80]!r} is not at {wanted!r}")
            continue
        data, why = read_image(root, image.path)
        images[image.path] = data
        if data is not None:
            why = png_problem(data, image.width, image.height)
            if why is None and hashlib.sha256(data).hexdigest() != image.sha256:
                why = "sha256 differs from the item's"
        if why is None and image.role == CELL_IMAGE_ROLE and data is not None:
            why = cell_image_problem(item, number, image.render, data)
        if why is None and image.role in ("table", "page") and item.kind == "mmtable":
            why = shown_pictures_problem(item, image.render, image.width, image.height) or \
                faint_picture_problem(item) or named_layout_problem(item, image.render)
        if why:
            problems.append(f"{image.role} image {image.path}: {why}")
        if image.role in ("table", "page") and item.inputs.table is not None:
            layout = _layout_problem(item, image.render, image.role)
            if layout:
                problems.append(layout)
    return problems


@dataclass(frozen=True)
class Margins:
    """The decidability margins the items of an augmented dataset must record, and whose they
    are (the installed pack's, or the input build's), as messages name them."""

    values: tuple[float, float]
    whose: str


def _margin_problem(item: Item, margins: Margins | None) -> tuple[list[str], Any]:
    """The item's recorded margins against ``margins`` (when known; else they must be ones
    a reader can see), and the margins its labels are re-derived with (``None``: none)."""
    decide = item.provenance.decidability or {}
    recorded = tuple(decide.get(key) for key in MARGIN_KEYS)
    shown = repr(list(recorded))
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    if margins is not None:
        if recorded == margins.values:
            return [], margins.values
        return [f"provenance.decidability margins {shown} differ from {margins.whose} "
                f"{list(margins.values)}"], margins.values
    if all(visible_margin(value) for value in recorded):
        return [], recorded
    return [f"provenance.decidability margins {shown}: expected each {MARGIN_EXPECTED}"], None


def _label_problems(item: Item, blanked: set[tuple[int, int]],
                    raw: dict[str, Any], margins: Margins | None = None) -> list[str]:
    """Labels re-derived on the inputs this variant shows, blanked cells removed, with the
    margins the item must record (``margins``: those of its input's build)."""
    if not item.statements or any(s.program is None for s in item.statements):
        return []
    problems, held = _margin_problem(item, margins)
    if held is None:
        return problems

    table = item.inputs.table
    if not isinstance(table, Table) or item.inputs.chart is None:
        return ["a generated item without its entity-by-period table or its chart"]
    shown = dict(raw)
    inputs = dict(raw["inputs"])
    first = 1 if table.period_label is None else 2
    keys = [c.key for c in table.columns]
    rows = []
    for r, row in enumerate(inputs["table"]["rows"], start=1):
        values = {k: v for k, v in row["values"].items()
                  if (r, first + keys.index(k)) not in blanked}
        rows.append(dict(row) | {"values": values})
    inputs["table"] = dict(inputs["table"]) | {"rows": rows}
    shown["inputs"] = inputs
    try:
        context = Context(shown, float(held[0]), float(held[1]))
    except (KeyError, TypeError, ValueError, ArithmeticError) as exc:
        return [*problems, f"inputs cannot be read: {type(exc).__name__}: {exc}"]
    return problems + check_names(shown) + check_item(shown, context)


#: Fields of an item that its variants may change (the rest is the base's).
_VARIANT_FIELDS = frozenset({"id", "variant", "images"})
_VARIANT_INPUTS = frozenset({"table", "chart"})


def _invariant(item: Item, with_place: bool = True) -> dict[str, Any]:
    """What every variant of a base keeps, as JSON: everything but the id, the variant, the
    images, the table (compared cell by cell) and the chart (compared by kind);
    ``with_place`` False leaves out where the record was read (its input path)."""
    data = item.model_dump(mode="json", exclude=set(_VARIANT_FIELDS))
    data["inputs"] = {k: v for k, v in data["inputs"].items() if k not in _VARIANT_INPUTS}
    table = item.inputs.table
    data["caption"] = getattr(table, "caption", None)
    if not with_place and isinstance(data.get("provenance"), dict):
        data["provenance"] = {k: v for k, v in data["provenance"].items() if k != "source"}
    return data


@dataclass
class _Reference:
    """What the variants of one base must agree on, from the first of them seen."""

    item_id: str
    is_base: bool
    invariant: dict[str, Any]
    cells: dict[tuple[int, int], str]
    unknown: set[tuple[int, int]] = field(default_factory=set)
    """Cells every variant seen so far blanked (their value is not known yet)."""
    blanked: set[tuple[int, int]] = field(default_factory=set)
    """Cells any variant blanked."""
    digest: str | None = None
    """A hopvista base item's sha256 (of its JSON), for ``--source``."""

    def whose(self) -> str:
        """How a problem names this reference."""
        return "the base's" if self.is_base else f"item {self.item_id}'s (of the same base)"


def _differing(mine: dict[str, Any], theirs: dict[str, Any]) -> list[str]:
    return [key for key in sorted(set(mine) | set(theirs)) if mine.get(key) != theirs.get(key)]


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:59] + "\u2026"


def _difference(mine: dict[str, Any], theirs: dict[str, Any], whose: str) -> str | None:
    """One line naming the fields that differ from ``whose`` (with both values for an
    answer or a question), or ``None``."""
    fields = _differing(mine, theirs)
    if not fields:
        return None
    shown = [f"{key} {_shown(mine.get(key))} (not {_shown(theirs.get(key))})"
             if key in ("answer", "answer_type", "question") else key for key in fields]
    return f"{', '.join(shown)} {'differs' if len(fields) == 1 else 'differ'} from {whose}"


def _agreement(item: Item, ref: _Reference, blanked: set[tuple[int, int]]) -> list[str]:
    """A variant against the reference of its base (which learns the cells it did not
    know)."""
    problems = []
    differs = _difference(_invariant(item), ref.invariant, ref.whose())
    if differs:
        problems.append(differs)
    mine = _table_cells(item)
    if set(mine) != set(ref.cells):
        problems.append(f"its table has other cells than {ref.whose()}")
        return problems
    changed = sorted(k for k in mine if k not in blanked and k not in ref.unknown
                     and mine[k] != ref.cells[k])
    if changed:
        problems.append(f"table cells {changed[:3]} differ from {ref.whose()} but were not "
                        "blanked")
    for key in ref.unknown - blanked:
        ref.cells[key] = mine[key]
    ref.unknown &= blanked
    ref.blanked |= blanked
    return problems


class _Run:
    def __init__(self, root: Path, manifest: dict[str, Any], report: Report) -> None:
        self.root, self.manifest, self.report = root, manifest, report
        self.ids: set[str] = set()
        self.bases: dict[str, Item] = {}
        self.references: dict[str, _Reference] = {}
        self.wording: Any = None
        self.margins: Margins | None = None
        self.builtin: str | None = None
        self.synonym_problems: set[str] = set()
        self.input_format = _input(manifest).get("format")
        self.imported = 0
        self.facts = False
        config = manifest.get("config")
        asked = config.get("variants") if isinstance(config, dict) else None
        self.variants = {v.get("name"): v.get("recipe") for v in asked
                         if isinstance(v, dict)} if isinstance(asked, list) else {}
        if not isinstance(asked, list) and manifest.get("kind") == "augmented":
            report("manifest.json: field 'config.variants': expected the variants asked for")
        self.families: dict[str, int] = {}
        self.unworded: set[str] = set()
        self.records: Any = None
        self.marked: list[Item] = []
        """Markup variants read before their base (checked once every line is read)."""
        self.unmarked = False
        self.lines = 0
        self.images = 0

    def item(self, raw: dict[str, Any]) -> tuple[list[str], dict[str, bytes | None]]:
        images: dict[str, bytes | None] = {}
        try:
            item = Item.model_validate(raw)
        except ValidationError as exc:
            error = exc.errors()[0]
            where = ".".join(str(p) for p in error["loc"])
            return [f"malformed item: field {where!r}: {error['msg']}"], images
        problems = []
        if item.id in self.ids:
            problems.append("duplicate id")
        self.ids.add(item.id)
        self.images += len(item.images)
        name = item.variant.name
        if name == BASE_VARIANT:
            self.bases[item.base_id] = item
        elif self.variants.get(name) != item.variant.recipe:
            problems.append(f"variant {name!r} (recipe {item.variant.recipe!r}) is not one "
                            "the manifest asked for")
        problems += _image_problems(item, self.root, images)
        blanked = {(int(r), int(c)) for r, c in item.variant.parameters.get("cells", [])} \
            if item.variant.recipe == "missing" else set()
        self._builtin_by_columns(raw)
        problems += _label_problems(item, blanked, raw, self.margins)
        if item.kind == "markup_task":
            problems += _markup_task_problems(item, self.unworded.add)
            if item.task is not None:
                self.families[item.task.family] = self.families.get(item.task.family, 0) + 1
        elif self.manifest.get("kind") == "markup":
            problems.append(f"a {item.kind!r} item in a dataset of markup tasks (whose every "
                            "item is a markup_task)")
        if item.kind == "mmtable":
            problems += mmtable_problems(item)
        elif self.manifest.get("kind") == "mmtables":
            problems.append(f"a {item.kind!r} item in a dataset of multimodal tables (whose "
                            "every item is an mmtable)")
        problems += _chart_markup_problems(item)
        if item.variant.markup:
            problems += variant_markup_problems(item)
            if item.base_id in self.bases:
                problems += self.recipe_problems(item)
            else:
                self.marked.append(item)
        if item.statements and all(s.program is not None for s in item.statements):
            if self.input_format != "hopvista":
                problems.append(f"a generated item (its statements have programs), but the "
                                f"manifest names a {str(self.input_format)[:20]!r} input")
            problems += check_wording(raw, self.wording)
            if any(s.get("paraphrase") is not None for s in raw["statements"]):
                problems += self._paraphrases(raw)
            self.facts = self.facts or any(
                "fact" in s["program"]["claim"] or s["program"]["select"]["op"] == "fact"
                for s in raw["statements"])
        if item.provenance.generator.startswith("import:"):
            self.imported += 1
            recorded = _protected_cells(raw)
            if blanked & recorded:
                problems.append(f"blanked cells {sorted(blanked & recorded)[:3]} are cells "
                                "the variant records as protected")
        ref = self.references.get(item.base_id)
        if ref is None:
            self.references[item.base_id] = _Reference(
                item.id, name == BASE_VARIANT, _invariant(item), _table_cells(item),
                set(blanked), set(blanked), _digest(item) if name == BASE_VARIANT else None)
        else:
            problems += _agreement(item, ref, blanked)
        base = self.bases.get(item.base_id)
        if base is not None and name != BASE_VARIANT:
            problems += _against_base(item, base, blanked)
        return problems, images

    def _paraphrases(self, raw: dict[str, Any]) -> list[str]:
        """The paraphrased statements of a variant re-proved as in its input, with the
        installed pack's synonyms when the input is that pack's, else those the input's
        build recorded (judged)."""
        pack = installed_pack(self.builtin)
        if pack is not None:
            synonyms = pack.synonyms()
        else:
            verdict = judge_synonyms(_input_config(self.manifest) or {})
            synonyms = verdict.synonyms
            for problem in verdict.problems:
                if problem not in self.synonym_problems:
                    self.synonym_problems.add(problem)
                    self.report(problem.replace("config.", "config.input.manifest.config.", 1))
        words = self.wording.words if self.wording is not None else None
        return check_paraphrases(raw, words, synonyms)

    def _builtin_by_columns(self, raw: dict[str, Any]) -> None:
        """The first generated item whose columns are an installed pack's: the input's build
        must then have recorded that pack's identities, related columns and margins, and the
        items are held to its margins."""
        config = _input_config(self.manifest)
        if self.builtin is not None or config is None or self.input_format != "hopvista":
            return
        pack = pack_by_columns(raw)
        if pack is None:
            return
        self.builtin, self.margins = pack.name, _pack_margins(pack)
        recorded = _input(self.manifest).get("manifest")
        version = recorded.get("format_version") if isinstance(recorded, dict) else None
        domain = config.get("domain")
        for problem in content_differences(config, pack, domain if isinstance(domain, str)
                                           else None, version if type(version) is int else 0):
            self.report(problem.replace("config.", "config.input.manifest.config.", 1) +
                        " (its items show that pack's columns)")

    def recipe_problems(self, item: Item) -> list[str]:
        """A markup variant's record re-derived by its recipe from its generated base (the
        dataset holds it); nothing, and a note, for another base."""
        base = self.bases.get(item.base_id)
        if base is None or not base.statements or \
                not all(s.program is not None for s in base.statements):
            self.unmarked = True
            return []
        if self.records is None:
            self.records = RecipeRecords(self.manifest.get("seed"))
        problems: list[str] = self.records.problems(item, base)
        return problems


def _protected_cells(raw: dict[str, Any]) -> set[tuple[Any, Any]]:
    """The cells an item's variant records as kept clear (``variant.protected``)."""
    variant = raw.get("variant")
    cells = variant.get("protected") if isinstance(variant, dict) else None
    return {(p.get("row"), p.get("col")) for p in cells if isinstance(p, dict)} \
        if isinstance(cells, list) else set()


def _digest(item: Item) -> str:
    """The sha256 of an item's JSON (keys sorted)."""
    text = json.dumps(item.model_dump(mode="json"), sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _markup_task_problems(item: Item, unworded: Callable[[str], None]) -> list[str]:
    """A markup task: the answer re-derived by its program on its table and marks, the
    question the one its subtask words for the program (``unworded`` hears a subtask that
    has no wording), the plan naming the task, and the table image showing exactly the marks
    (as the renderer recorded the cells' markup)."""
    problems = task_problems(item) + question_problems(item, unworded)
    if item.task is None:
        return problems
    plan = item.provenance.plan or {}
    if (plan.get("family"), plan.get("subtask")) != (item.task.family, item.task.subtask):
        problems.append("provenance.plan does not name the task's family and subtask")
    table = item.image("table")
    if table is None:
        return problems + ["a markup task without its table image"]
    wanted = {(m.row, m.col): (m.style, m.colour) for m in item.task.marks}
    drawn = {(c.get("row"), c.get("col")): (c.get("mark"), c.get("colour"))
             for c in table.render.get("cells", []) if c.get("mark")}
    if drawn != wanted:
        problems.append(f"the table image marks {sorted(drawn.items(), key=str)[:3]}, the task "
                        f"{sorted(wanted.items(), key=str)[:3]}")
    return problems


def _chart_markup_problems(item: Item) -> list[str]:
    """A chart markup variant marks points of its chart, and its chart image emphasises the
    point it marks (none for the control)."""
    markup = item.variant.markup
    if not markup or markup.get("modality") != "chart":
        return []
    chart = item.inputs.chart
    if chart is None:
        return ["chart markup on an item without a chart in data form"]
    points = {(s.entity, int(y)) for s in chart.series for y in chart.years}
    problems = []
    for role in ("target", "distractor"):
        at = markup.get(role) or {}
        if (at.get("entity"), at.get("year")) not in points:
            problems.append(f"chart markup {role} ({at.get('entity')!r}, {at.get('year')!r}) "
                            "is no point of the chart")
    images = [image for image in item.images if image.role == "chart"]
    if len(images) != 1:
        return problems + ["chart markup without one chart image"]
    image = images[0]
    drawn = image.render.get("emphasis")
    on = markup.get("on")
    if on is None:
        if drawn is not None:
            problems.append("the chart markup control's chart emphasises a point")
        return problems
    if on not in ("target", "distractor"):
        return problems + [f"chart markup on {on!r} is neither target nor distractor"]
    if not isinstance(drawn, dict):
        return problems + ["the chart image records no emphasis (render.emphasis)"]
    wanted = (markup[on].get("entity"), markup[on].get("year"))
    if (drawn.get("entity"), drawn.get("year")) != wanted:
        problems.append(f"the chart emphasises ({drawn.get('entity')!r}, "
                        f"{drawn.get('year')!r}), not the {on} {wanted}")
    box = drawn.get("box")
    if not (isinstance(box, list) and len(box) == 4 and all(isinstance(v, int) for v in box)
            and box[0] >= 0 and box[1] >= 0 and box[2] > 0 and box[3] > 0
            and box[0] + box[2] <= image.width and box[1] + box[3] <= image.height):
        problems.append(f"render.emphasis.box {str(box)[:60]} is not a box inside the image")
    return problems


def _against_base(item: Item, base: Item, blanked: set[tuple[int, int]]) -> list[str]:
    """A variant of a hopvista base: the chart data is the base's (unless redrawn as another
    kind), and no blanked cell is one a statement reads."""
    problems = []
    if item.inputs.chart is not None and base.inputs.chart is not None and \
            item.inputs.chart.kind == base.inputs.chart.kind and \
            item.inputs.chart != base.inputs.chart:
        problems.append("chart data differs from the base's")

    read = protected_cells(base)
    hidden = sorted(blanked & set(read))
    if hidden:
        problems.append(f"blanked cells {hidden[:3]} are cells no variant may hide "
                        f"({read[hidden[0]]})" if base.kind == "mmtable" else
                        f"blanked cells {hidden[:3]} are read by a statement")
    return problems


def _field(manifest: dict[str, Any], key: str) -> dict[str, Any]:
    """An object field of the manifest (empty when it is not one: the counts then differ)."""
    found = manifest.get(key)
    return found if isinstance(found, dict) else {}


def _input(manifest: dict[str, Any]) -> dict[str, Any]:
    config = manifest.get("config")
    found = config.get("input") if isinstance(config, dict) else None
    return found if isinstance(found, dict) else {}


def _input_config(manifest: dict[str, Any]) -> dict[str, Any] | None:
    """The config of a hopvista input's build, as the manifest records it."""
    found = _input(manifest).get("manifest")
    config = found.get("config") if isinstance(found, dict) else None
    return config if isinstance(config, dict) else None


def _of_mmtables(manifest: dict[str, Any]) -> bool:
    """Whether the input was a build of multimodal tables (no pack's wording or margins:
    its items are re-proved by their programs)."""
    config = _input_config(manifest)
    return config is not None and config.get("domain") == "mmtables"


def _input_wording(manifest: dict[str, Any], report: Report, notes: Report
                   ) -> tuple[Any, str | None]:
    """The wording that proves a hopvista input's texts (judged as its build's would be), and
    the installed pack the input is, if any."""
    found = _input(manifest).get("manifest")
    recorded: dict[str, Any] = found if isinstance(found, dict) else {}
    config = _input_config(manifest)
    if config is None:
        report("manifest.json: field 'config.input.manifest.config': missing (the hopvista "
               "input's config, whose wording proves the base items' texts)")
        return None, None
    packages = manifest.get("packages")
    version = recorded.get("format_version")
    verdict = judge_wording(
        config, config.get("domain") if isinstance(config.get("domain"), str) else None,
        version if type(version) is int else 0,
        packages.get("hopvista") if isinstance(packages, dict) else None)
    for problem in verdict.problems:
        report(problem.replace("config.", "config.input.manifest.config.", 1))
    for text in verdict.notes:
        notes(text)
    return verdict.wording, verdict.builtin


def _input_margins(manifest: dict[str, Any], builtin: str | None, report: Report
                   ) -> Margins | None:
    """The margins the items of a hopvista input's variants must record: the installed
    pack's when the input is a built-in pack's, else those its build records (when a reader
    can see them; each other value is reported)."""

    pack = installed_pack(builtin)
    if pack is not None:
        return _pack_margins(pack)
    config = _input_config(manifest)
    if config is None:
        return None
    values = recorded_margins(config, lambda problem: report(
        problem.replace("'config.", "'config.input.manifest.config.", 1)))
    return None if values is None else Margins(values, "the input build's")


def _pack_margins(pack: Any) -> Margins:
    decide = pack.spec.decidability
    return Margins((decide.min_rank_gap, decide.min_trend_step),
                   f"the installed pack {pack.name!r}'s")


def _source_records(source: Path, fmt: Any) -> Iterator[Any]:
    """The records of the input ``source`` in the format the manifest names: typed items of
    a hopvista dataset, or the import readers' records. A source that cannot be read as that
    format is the user's mistake (:class:`~hopvista.errors.UserError`), found before any
    item is checked."""
    if not isinstance(fmt, str) or not fmt:
        raise UserError(f"--source {source}: the manifest names no input format "
                        "(config.input.format)")
    if fmt == "hopvista":
        dataset = load(source)
        if dataset.manifest.kind in ("augmented", "markup", "shard"):
            raise UserError(f"--source {source}: a dataset made by gen augment or gen build "
                            "markup, or a shard; give the dataset the variants were made from")
        return iter(dataset)

    if fmt not in IMPORTERS.names():
        raise UserError(f"--source {source}: the manifest names the input format "
                        f"{fmt[:40]!r}, which no installed reader reads (known: hopvista, "
                        f"{', '.join(IMPORTERS.names())})")
    return read_records(source, fmt)[1]


def _without_place(invariant: dict[str, Any]) -> dict[str, Any]:
    provenance = invariant.get("provenance")
    if not isinstance(provenance, dict):
        return invariant
    return invariant | {"provenance": {k: v for k, v in provenance.items() if k != "source"}}


def _record_problems(record: Item, protected: set[tuple[int, int]], ref: _Reference
                     ) -> list[str]:
    """One base of the dataset against its record in the source."""
    where = f"the source's record {record.provenance.source[:80]}"
    if ref.digest is not None:
        return [] if ref.digest == _digest(record) else \
            [f"the base item differs from {where}: " +
             (", ".join(_differing(_invariant(record), ref.invariant)) or "table, chart or "
              "images")]
    problems = []
    differs = _difference(_without_place(ref.invariant), _invariant(record, with_place=False),
                          where)
    if differs:
        problems.append(differs)
    cells = _table_cells(record)
    if set(cells) != set(ref.cells):
        problems.append(f"its table has other cells than {where}")
    else:
        changed = sorted(k for k in cells if k not in ref.unknown and cells[k] != ref.cells[k])
        if changed:
            problems.append(f"table cells {changed[:3]} differ from {where}")
    if ref.blanked & protected:
        problems.append(f"blanked cells {sorted(ref.blanked & protected)[:3]} are cells "
                        f"{where} protects")
    return problems


def _against_source(run: _Run, records: Iterator[Any], source: Path, fmt: str,
                    report: Report) -> None:
    """Every base of the dataset against the input it was made from."""
    found: set[str] = set()
    read = 0
    for record in records:
        if isinstance(record, Skipped):
            continue
        item = record if isinstance(record, Item) else record.item
        if fmt == "hopvista" and item.variant.name != BASE_VARIANT:
            continue
        read += 1
        ref = run.references.get(item.base_id)
        if ref is None:
            continue
        found.add(item.base_id)
        protected = set() if isinstance(record, Item) else \
            {(p.row, p.col) for p in record.protected}
        for problem in _record_problems(item, protected, ref):
            report(f"item {ref.item_id}: {problem}")
    for base_id, ref in run.references.items():
        if base_id not in found:
            report(f"item {ref.item_id}: no record {base_id!r} in the source {source}")
    counted = _field(run.manifest, "counts").get("bases")
    if counted != read:
        report(f"manifest.json: counts.bases is {counted!r}, the source {source} has {read} "
               "record(s)")


def verify_augmented(root: Path, manifest: dict[str, Any], report: Report,
                     notes: Report | None = None, source: Path | None = None) -> int:
    """Re-prove an augmented dataset; return the number of lines of items.jsonl. ``notes``
    hears what cannot be proved; ``source`` is the input to compare the items with."""

    note: Report = notes if notes is not None else (lambda text: None)
    fmt = _input(manifest).get("format")
    records = None
    if source is not None:
        if manifest.get("kind") != "augmented":
            made = "markup tasks" if manifest.get("kind") == "markup" else \
                "multimodal tables"
            raise UserError(f"--source {source}: {root} is a dataset of {made}, made "
                            "from no input")
        records = _source_records(source, fmt)
    check_files(root, manifest, report)
    run = _Run(root, manifest, report)
    if fmt == "hopvista" and not _of_mmtables(manifest):
        run.wording, builtin = _input_wording(manifest, report, note)
        run.margins = _input_margins(manifest, builtin, report)
        run.builtin = builtin
    version = int(manifest["format_version"])
    try:
        rows = iter_rows(root, shard_names(root, report), version, report)
    except Exception as exc:  # noqa: BLE001 - a verifier reports, it never crashes
        report(f"data: could not be read ({type(exc).__name__})")
        rows = iter(())
    path = root / ITEMS
    why = file_problem(root, ITEMS)
    if why is not None:
        report(f"{ITEMS}: {why}")
        return 0
    for line in read_lines(path):
        run.lines += 1
        where = f"{ITEMS}:{line.number}"
        if line.text is None:
            report(f"{where}: {line.problem}")
            continue
        try:
            raw = parse_strict(line.text)
        except ValueError as exc:
            report(f"{where}: not valid JSON: {str(exc)[:160]}")
            continue
        if not isinstance(raw, dict):
            report(f"{where}: not an item (a JSON object)")
            continue
        try:
            problems, images = run.item(raw)
        except Exception as exc:  # noqa: BLE001 - reported as a problem of this item
            problems, images = [f"could not be checked ({type(exc).__name__}: {exc})"], {}
        label = f"item {str(raw.get('id'))[:120]}"
        for problem in problems:
            report(f"{label}: {problem}")
        row = next(rows, None)
        if row is None:
            report(f"{where}: no Parquet row")
            continue
        try:
            compared = compare_row(row, raw, raw, images, version)
        except Exception as exc:  # noqa: BLE001 - reported as a problem of this row
            compared = [f"{row.shard} row {row.index}: could not be compared "
                        f"({type(exc).__name__})"]
        for problem in compared:
            report(problem)
    if next(rows, None) is not None:
        report(f"data: more Parquet rows than lines of {ITEMS}")
    if manifest.get("kind") == "markup":
        _balance_problems(run.families, manifest, report)
    _marked_against_bases(run, report)
    counts = _field(manifest, "counts")
    if counts.get("items") != run.lines:
        report(f"manifest.json: counts.items is {counts.get('items')!r}, {ITEMS} has "
               f"{run.lines}")
    if counts.get("images") != run.images:
        report(f"manifest.json: counts.images is {counts.get('images')!r}, the items list "
               f"{run.images}")
    if records is not None and isinstance(fmt, str):
        _against_source(run, records, source or root, fmt, report)
    _notes(run, fmt, source, note)
    return run.lines


def _notes(run: _Run, fmt: Any, source: Path | None, note: Report) -> None:
    """What the verification of an augmented dataset did not prove."""
    if run.images:
        note(IMAGE_NOTE)
    name = str(_input(run.manifest).get("name"))[:80]
    if run.imported:
        note(IMPORTED_NOTE)
    if fmt == "hopvista":
        note(BUILD_NOTE)
    if run.facts:
        note(FACT_NOTE)
    if run.unmarked:
        note("which cells the markup variants of imported records (or of bases the "
             "dataset does not hold) chose as target and distractor, and what a misled reader "
             "answers: the image is checked to mark the recorded cell, the choice is not "
             "re-derived")
    if run.unworded:
        note(f"what the questions of markup subtask(s) {', '.join(sorted(run.unworded))} "
             "ask (registered without a wording): their answers are re-derived, their "
             "questions taken as they are")
    if source is None and run.manifest.get("kind") == "augmented" and \
            (run.imported or fmt == "hopvista"):
        note(f"the items against the input they were made from (the {fmt} input {name!r}): "
             "give it with --source PATH")


def _marked_against_bases(run: _Run, report: Report) -> None:
    """The markup variants read before their base, against it (so the order of the lines
    does not matter)."""
    for item in run.marked:
        for problem in run.recipe_problems(item):
            report(f"item {item.id}: {problem}")


def _balance_problems(families: dict[str, int], manifest: dict[str, Any],
                      report: Report) -> None:
    """A markup-task dataset: families equal ±1, as the manifest says."""
    said = _field(manifest, "shares").get("families")
    if said != dict(sorted(families.items())):
        report(f"manifest.json: shares.families is {said!r}, the items have "
               f"{dict(sorted(families.items()))!r}")
    if families and max(families.values()) - min(families.values()) > 1:
        report(f"families are not balanced (±1): {dict(sorted(families.items()))}")
