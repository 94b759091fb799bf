"""``gen build mmtables``: a dataset of multimodal tables, one ``mmtable`` item each.

Item ``index`` asks what the plan says (:mod:`hopvista.mmtables.plan`): its archetype picks a
table layout (:mod:`hopvista.mmtables.domains`), its question, reasoning and answer types a
question maker (:mod:`hopvista.mmtables.questions`), which also gets the planned truth of a
yes/no question and the planned number of a count. A table that offers no such question, or
whose question would not need its pictures, is redrawn (``provenance.attempts``); what the
plan asks never changes. Every item is drawn from its own streams
``Streams(seed, base_id, "base")`` (a redrawn table uses ``base-2``, ``base-3``, ...): the
same seed and count give the same bytes, whatever ``--workers``. A question maker may draw
some pictures again for its question (:func:`hopvista.mmtables.choices.plant`); the table
is then made legible again.

Table images are made by an :data:`ImageMaker` given to :func:`build_mmtables`; without one,
the items are written without images.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from contextlib import closing
from pathlib import Path
from typing import Any

from tqdm import tqdm

from hopvista.audit.recorded import mmtables_audit
from hopvista.building.dataset_writer import Counts, DatasetKind, package_versions, write_dataset
from hopvista.building.workers import cap_workers, preload_renderers, run_ordered
from hopvista.mmtables.choices import Unsuitable, pick
from hopvista.mmtables.domains import LAYOUTS, Table, draw_table, legible_table
from hopvista.mmtables.images import TableImages, style_backgrounds, style_of
from hopvista.mmtables.plan import (
    ROUND,
    PlanEntry,
    answer_shares,
    archetype_shares,
    planned,
)
from hopvista.mmtables.questions import TEMPLATES, Draft, finish
from hopvista.model import Item
from hopvista.model.dataset import ITEMS
from hopvista.model.inputs import GridTable, Inputs
from hopvista.model.item import Provenance, base_item_id, variant_id
from hopvista.model.mmtable import ANSWER_TYPES, Tags, Visual
from hopvista.output.card import (
    AuditWording,
    audit_section,
    check_with_interval,
    front_matter,
    pictures_credits,
)
from hopvista.rng import Streams
from hopvista.themes.visuals import VISUAL_KINDS, icons
from hopvista.verify.mmtables import answer_type_of, json_type

DOMAIN = "mmtables"
"""The domain name of multimodal-table items, and what ``gen build`` calls their build."""
MANIFEST_KIND = "mmtables"
ATTEMPTS = 40
Notice = Callable[[str], None]
ImageMaker = Callable[[Item, Path], Item]
"""What draws an item's table image: given the item (its table and ``inputs.visuals``) and
the dataset folder being written, it writes the image under ``images/`` and returns the item
with ``images`` set (the image's ``render.cells`` on the same grid as the visuals' ``row`` and
``col``). It must be picklable (a module-level function or object): workers receive it."""
TABLE_IMAGES: ImageMaker = TableImages()
"""The image maker ``gen build mmtables`` uses unless ``--no-images`` is given: the table with
its pictures in their cells, and each picture alone (:mod:`hopvista.mmtables.images`)."""


def _stderr(text: str) -> None:
    print(f"gen: {text}", file=sys.stderr)


# -- one item ---------------------------------------------------------------------------------


def draw_item(seed: int, index: int, shares: Mapping[str, int],
              answers: Mapping[str, int] | None = None) -> Item:
    """Item ``index`` of the build, without images (``shares``: the archetypes',
    ``answers``: the answer types', the default when ``None``)."""
    entry = planned(seed, index, shares, answers)
    base_id = base_item_id(DOMAIN, seed, index)
    form = TEMPLATES[(entry.question_type, entry.reasoning)][entry.answer_type]
    layouts = [layout for layout in LAYOUTS[entry.archetype] if form.needs(layout)]
    why = "no table"
    for attempt in range(ATTEMPTS):
        streams = Streams(seed, base_id, "base" if attempt == 0 else f"base-{attempt + 1}")
        try:
            table = draw_table(pick(streams, "table.layout", layouts), streams)
            style = style_of(seed, base_id, "".join(cell for row in table.grid for cell in row))
            backgrounds = style_backgrounds(style)
            table = legible_table(table, backgrounds, streams)
            draft = form.make(table, streams, entry.ask)
            if draft.table is not None:
                table = legible_table(draft.table, backgrounds, streams)
            answer = finish(table, draft, entry.ask)
        except (Unsuitable, ValueError) as exc:
            why = str(exc)
            continue
        return _item(base_id, seed, entry, table, draft, answer, attempt + 1)
    raise RuntimeError(f"mmtables item {index} ({entry.archetype}, {entry.question_type}, "
                       f"{entry.reasoning}, {entry.answer_type}): no table in {ATTEMPTS} "
                       f"draws offers its question (the last: {why})")


def visuals_of(table: Table) -> tuple[Visual, ...]:
    """The table's pictures as the item records them, in grid order."""
    found = []
    for (row, col), visual in sorted(table.visuals.items()):
        kind = VISUAL_KINDS.get(visual["kind"])
        found.append(Visual(row=row, col=col, kind=visual["kind"], colors=visual["colors"],
                            attributes=visual["attributes"],
                            description=kind.description(visual["attributes"])))
    return tuple(found)


def _item(base_id: str, seed: int, entry: PlanEntry, table: Table, draft: Draft, answer: Any,
          attempts: int) -> Item:
    domain = table.layout.domain
    return Item(
        id=variant_id(base_id), base_id=base_id, domain=DOMAIN, kind="mmtable",
        inputs=Inputs(table=GridTable(caption=domain.plural.capitalize(),
                                      header=tuple(table.grid[0]),
                                      rows=tuple(tuple(row) for row in table.grid[1:])),
                      visuals=visuals_of(table)),
        question=draft.question, answer=answer, answer_type=json_type(answer), seed=seed,
        provenance=Provenance(generator="hopvista.mmtables", source=domain.name,
                              index=entry.index, attempts=attempts, plan=entry.to_json()),
        tags=Tags.model_validate({"archetype": entry.archetype,
                                  "question_type": draft.question_type,
                                  "reasoning": draft.reasoning,
                                  "answer_type": answer_type_of(draft.program, answer)}),
        program=draft.program)


class MmtableItems:
    """The worker's maker: item ``index``, its table image drawn into ``root`` when an
    :data:`ImageMaker` is given."""

    def __init__(self, root: Path, seed: int, shares: Mapping[str, int],
                 answers: Mapping[str, int], images: ImageMaker | None) -> None:
        self.root, self.seed, self.shares, self.images = root, seed, dict(shares), images
        self.answers = dict(answers)

    def prepare(self) -> None:
        """Import the renderers' libraries before the workers are forked, when images are
        drawn."""
        if self.images is not None:
            preload_renderers()

    def open(self) -> None:
        """Start what the image maker draws with (its browser)."""
        opener = getattr(self.images, "open", None)
        if callable(opener):
            opener()

    def close(self) -> None:
        """Let the image maker's browser go."""
        closer = getattr(self.images, "close", None)
        if callable(closer):
            closer()

    def make(self, index: int) -> Item:
        """Item ``index`` (with its image, when images are made)."""
        item = draw_item(self.seed, index, self.shares, self.answers)
        return item if self.images is None else self.images(item, self.root)


# -- the run ----------------------------------------------------------------------------------


def build_mmtables(out: Path, *, count: int, seed: int = 0, images: ImageMaker | None = None,
                   archetypes: Mapping[str, int] | None = None,
                   answer_types: Mapping[str, int] | None = None,
                   workers: int = 1, overwrite: bool = False, progress: bool = False,
                   notice: Notice = _stderr) -> dict[str, Any]:
    """Write ``count`` multimodal-table items into ``out`` (``archetypes``: each archetype's
    share, equal by default; ``answer_types``: each answer type's items per round of twenty,
    :data:`~hopvista.mmtables.plan.ANSWER_SHARES` by default; ``images``: what draws the
    table images, none by default: :data:`TABLE_IMAGES` draws the table with its pictures and
    each picture alone); return the manifest."""
    shares = archetype_shares(archetypes)
    answers = answer_shares(answer_types)
    for index in range(0, count, ROUND):  # a plan that cannot be kept stops before writing
        planned(seed, index, shares, answers)
    if images is not None:
        icons.check_installed()
    kind = Mmtables(count, seed, shares, answers, images, cap_workers(workers, notice),
                    progress)
    return write_dataset(out, kind, overwrite=overwrite, notice=notice)


class Mmtables(DatasetKind):
    """A dataset of multimodal tables: ``count`` items; the archetypes, question types,
    reasoning types and answer types they came out as."""

    name = MANIFEST_KIND

    def __init__(self, count: int, seed: int, shares: Mapping[str, int],
                 answers: Mapping[str, int], images: ImageMaker | None, workers: int,
                 progress: bool) -> None:
        self.total, self.seed, self.shares, self.images = count, seed, dict(shares), images
        self.answers = dict(answers)
        self.workers, self.progress = workers, progress
        self.tally: dict[str, Counter[str]] = {
            key: Counter() for key in ("archetype", "question_type", "reasoning",
                                       "answer_type")}
        self.emblems: set[str] = set()

    def items(self, stage: Path, kept: int) -> Iterator[Item]:
        """Items ``kept``, ``kept + 1``, ... (their images drawn into ``stage``)."""
        if self.images is not None:
            (stage / "images").mkdir(exist_ok=True)
        bar = tqdm(total=self.total, desc="items", unit="item", disable=not self.progress,
                   file=sys.stderr)
        maker = MmtableItems(stage, self.seed, self.shares, self.answers, self.images)
        try:
            with closing(run_ordered(maker, iter(range(kept, self.total)),
                                     self.workers)) as made:
                for item in made:
                    yield item
                    bar.update()
        finally:
            bar.close()

    def add(self, item: Item) -> None:
        """Count the item's tags."""
        assert item.tags is not None
        for key, counter in self.tally.items():
            counter[str(getattr(item.tags, key))] += 1
        for visual in item.inputs.visuals:
            self.emblems.update(VISUAL_KINDS.get(visual.kind).icons(visual.attributes))

    def manifest(self, stage: Path, counts: Counts) -> dict[str, Any]:
        """The build's configuration, its plan's shares, what the items came out as, the icon
        set its drawn emblems come from (when any is drawn), and the audit of solvers that never
        see the pictures (builds of :data:`~hopvista.audit.recorded.AUDIT_MIN_ITEMS` items or
        more)."""
        record = icons.icon_set_record(self.emblems) if self.images is not None else None
        icon_set = {"icon_set": record} if record is not None else {}
        return {
            "config": {"domain": DOMAIN, "count": self.total, "seed": self.seed,
                       "images": self.images is not None,
                       "archetype_shares": dict(self.shares),
                       "answer_type_shares": dict(self.answers)},
            "seed": self.seed,
            "packages": package_versions(),
            "counts": {"items": self.total, "images": counts.images},
            "shares": {"archetypes": dict(sorted(self.tally["archetype"].items())),
                       "question_types": dict(sorted(self.tally["question_type"].items())),
                       "reasoning": dict(sorted(self.tally["reasoning"].items())),
                       "answer_types": dict(sorted(self.tally["answer_type"].items()))},
            **icon_set,
            "audit": mmtables_audit(stage / ITEMS, counts.items),
        }

    def card(self, manifest: dict[str, Any]) -> str:
        """The card of the build."""
        return mmtables_card(manifest)


MMTABLES_AUDIT = AuditWording(
    title="Does every picture matter?",
    withheld="the pictures",
    intro="Accuracy of solvers that never see the pictures, with bootstrap 95% intervals "
          "(`gen audit`, models cross-fitted on this dataset, {run}): `no_image` runs each "
          "program with every picture given its kind's most frequent attributes, `prior` "
          "answers the most frequent answer of the question's kind, `blind` guesses the "
          "answer from the question's wording (closed answers: yes/no, counts, a picture's "
          "attribute).",
    check_line=check_with_interval)
"""The audit section of an mmtables card: solvers that never see the pictures."""


def mmtables_card(manifest: dict[str, Any]) -> str:
    """The dataset card of an mmtables build (Hugging Face YAML front matter)."""
    front = front_matter(licence="other", pretty_name="hopvista multimodal tables",
                         tags=("multimodal", "tables", "cell-images", "mmtabreal", "hopvista"))
    shares = manifest["shares"]

    def rows(key: str, names: tuple[str, ...] | None = None) -> str:
        found = shares[key]
        order = names if names is not None else tuple(found)
        return "\n".join(f"| {name} | {found.get(name, 0)} |" for name in order)

    images = "one table image each" if manifest["config"]["images"] else \
        "without images (the table and its pictures' attributes only)"
    credits = pictures_credits(manifest.get("icon_set")) if manifest["config"]["images"] \
        else ""
    audit = audit_section(manifest.get("audit"), manifest["counts"]["items"], MMTABLES_AUDIT)
    return f"""{front}

# Multimodal tables

Made by `gen build mmtables -n {manifest['config']['count']} --seed {manifest['seed']}`:
{manifest['counts']['items']} item(s), {images}. Each item is a table of fictional entities
some of whose cells hold a picture (a badge, a flag, an avatar, a map, a tiny chart, a
rating); `inputs.visuals` lists the pictures with their attributes, colours and descriptions.
Its question, tagged by MMTabReal's taxonomy (`tags`), needs the pictures to be answered;
`program`, executed on the table and its pictures, gives the answer (`gen verify` re-derives
each one and checks that the question needs its pictures).

| archetype | items |
|---|---|
{rows("archetypes")}

| question type | items |
|---|---|
{rows("question_types")}

| reasoning | items |
|---|---|
{rows("reasoning")}

| answer type | items |
|---|---|
{rows("answer_types", ANSWER_TYPES)}

{credits}{audit}
"""
