"""``gen markup``: a dataset of markup tasks (T1–T5), each a marked table image.

The plan is fixed by the seed before any task is drawn, and each index's entry can be computed
alone: indices go round the five families in a seeded order per round of five, each family
round the subtasks in a seeded order per round, and a yes/no subtask alternates its planned
answer between its turns. So families are equal ±1 over the build, subtasks within a family
equal ±1, yes and no equal ±1 per yes/no subtask. A table a subtask cannot use is redrawn
(``provenance.attempts``); the planned subtask never changes.

Every item is drawn from its own streams ``Streams(seed, base_id, "base")`` (a redrawn table
uses ``base-2``, ``base-3``, …): the same seed, count, tables and versions give the same bytes,
whatever ``--workers``.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing
from dataclasses import replace
from pathlib import Path
from typing import Any

from tqdm import tqdm

from hopvista.augment.grid import grid_of_table, marked, plain
from hopvista.augment.recipes import family_style
from hopvista.building.dataset_writer import Counts, DatasetKind, package_versions, write_dataset
from hopvista.building.pipeline import check_image_names
from hopvista.building.workers import cap_workers, preload_renderers, run_ordered
from hopvista.domain import DOMAIN_FILE, builtin_pack_names
from hopvista.errors import UserError
from hopvista.markup_tasks.subtasks import MARKUP_TASKS, Drawn, Subtask, TaskTable, Unsuitable
from hopvista.markup_tasks.tables import TableSupply, domain_tables, imported_tables
from hopvista.model import Item
from hopvista.model.inputs import GridTable, Inputs
from hopvista.model.item import Provenance, Variant, base_item_id, variant_id
from hopvista.model.task import FAMILIES, MARK_STYLES, Mark, Task
from hopvista.output.card import front_matter
from hopvista.output.folder import check_out
from hopvista.render.browser import uninterrupted
from hopvista.render.item_images import write_image
from hopvista.render.panels import layout_document
from hopvista.render.table import TableRenderer, parse_style
from hopvista.rng import Streams, derive
from hopvista.themes.marks import MARK_KINDS, ordered_kinds

DOMAIN = "markup"
"""The domain name of markup-task items (``gen markup`` makes them)."""
MANIFEST_KIND = "markup"
ATTEMPTS = 30
Notice = Callable[[str], None]


def _stderr(text: str) -> None:
    print(f"gen: {text}", file=sys.stderr)


# -- the plan ---------------------------------------------------------------------------------


def by_family() -> dict[str, list[Subtask]]:
    """The registered subtasks of each family that has any, by name."""
    families: dict[str, list[Subtask]] = {}
    for name in MARKUP_TASKS.names():
        entry = MARKUP_TASKS.get(name)
        families.setdefault(entry.family, []).append(entry)
    return {family: sorted(entries, key=lambda s: s.name)
            for family, entries in sorted(families.items())}


def planned(seed: int, index: int, families: dict[str, list[Subtask]]) -> tuple[Subtask, bool]:
    """The subtask of item ``index`` and its planned yes/no (see the module docstring)."""
    names = list(families)
    cycle, place = divmod(index, len(names))
    family = names[int(derive(seed, "markup.families", cycle).permutation(len(names))[place])]
    entries = families[family]
    turn, at = divmod(cycle, len(entries))
    entry = entries[int(derive(seed, "markup.subtasks", family, turn)
                        .permutation(len(entries))[at])]
    offset = int(derive(seed, "markup.yes", entry.name).integers(2))
    return entry, (turn + offset) % 2 == 0


# -- one task ---------------------------------------------------------------------------------


def draw_task(seed: int, index: int, supply: TableSupply, families: dict[str, list[Subtask]],
              styles: tuple[str, ...] = MARK_STYLES) -> tuple[Item, Drawn, Streams]:
    """Item ``index`` without its image, what its subtask drew (naming mark kinds of
    ``styles``), and its streams."""
    entry, yes = planned(seed, index, families)
    base_id = base_item_id(DOMAIN, seed, index)
    why = "no table"
    for attempt in range(ATTEMPTS):
        streams = Streams(seed, base_id, "base" if attempt == 0 else f"base-{attempt + 1}")
        try:
            table = supply.draw(streams, attempt)
            if styles != table.styles:
                table = replace(table, styles=styles)
            drawn = entry.make(table, streams, yes)
        except Unsuitable as exc:
            why = str(exc)
            continue
        return _item(base_id, seed, index, entry, drawn, attempt + 1), drawn, streams
    raise UserError(f"markup task {index} ({entry.name}): no usable table in {ATTEMPTS} "
                    f"draws (the last: {why})")


def _item(base_id: str, seed: int, index: int, entry: Subtask, drawn: Drawn,
          attempts: int) -> Item:
    table: TaskTable = drawn.table
    return Item(
        id=variant_id(base_id), base_id=base_id, domain=DOMAIN, kind="markup_task",
        inputs=Inputs(table=GridTable(caption=table.caption, header=table.cells[0],
                                      rows=table.cells[1:])),
        question=drawn.question, answer=drawn.answer, answer_type="json", seed=seed,
        provenance=Provenance(generator="hopvista.markup", source=table.source, index=index,
                              attempts=attempts,
                              plan={"family": entry.family, "subtask": entry.name}),
        task=Task(family=entry.family, subtask=entry.name, marks=drawn.marks,
                  program=drawn.program, ordered=drawn.ordered))


# -- drawing the image (in a worker) ----------------------------------------------------------

def look(streams: Streams, marks: Sequence[Mark] = ()) -> dict[str, Any]:
    """How marks are drawn on one task's table: highlight opacity, underline weight, bold
    stroke (colours are fixed by name, :data:`hopvista.model.task.COLOURS`), and the own look
    of a kind among ``marks`` that draws one (a hand-drawn loop's jitter)."""
    drawn: dict[str, Any] = {
        "colour": "#ffd54f",
        "opacity": round(0.8 + 0.15 * streams.uniform("markup.opacity"), 2),
        "thickness": float(streams.integer("markup.thickness", 2, 3)),
        "stroke": round(0.5 + 0.3 * streams.uniform("markup.stroke"), 2)}
    for name in sorted({m.style for m in marks}):
        kind = MARK_KINDS.get(name)
        if kind.sample is not None:
            drawn |= kind.sample(streams)
    return drawn


def mark_styles(marks: str | Sequence[str] | None) -> tuple[str, ...]:
    """The mark kinds ``gen markup --marks`` names (comma-separated, or ``all``: every
    installed kind that marks one cell), checked: at least three, each installed and marking
    a cell (a row or column mark covers many). ``None``: HighlightBench's three."""
    if marks is None:
        return MARK_STYLES
    cells = [kind.name for kind in ordered_kinds() if kind.scope == "cell"]
    names = [m.strip() for m in marks.split(",")] if isinstance(marks, str) else list(marks)
    if names == ["all"]:
        names = cells
    for name in names:
        if name not in MARK_KINDS:
            raise UserError(f"--marks: unknown mark kind {name[:40]!r} (known: "
                            f"{', '.join(cells)})")
        if MARK_KINDS.get(name).scope != "cell":
            raise UserError(f"--marks: {name!r} marks a whole {MARK_KINDS.get(name).scope}; a "
                            f"markup task marks single cells (kinds: {', '.join(cells)})")
    if len(set(names)) != len(names):
        raise UserError(f"--marks: a mark kind is named twice ({','.join(names)[:80]})")
    if len(names) < 3:
        raise UserError(f"--marks names {len(names)} mark kind(s); a markup task draws from "
                        "at least three")
    return tuple(names)


class TaskImages:
    """The worker's maker: task ``index`` with its marked table drawn into ``root``."""

    def __init__(self, root: Path, seed: int, tables: dict[str, Any],
                 supply: TableSupply | None = None,
                 styles: tuple[str, ...] = MARK_STYLES) -> None:
        self.root, self.seed, self.tables = root, seed, tables
        self.supply, self.styles = supply, styles
        self.families: dict[str, list[Subtask]] | None = by_family()
        self._renderer: Any = None

    def __getstate__(self) -> dict[str, Any]:
        # A spawned worker reads the tables and the registry again rather than receive them
        # pickled.
        return self.__dict__ | {"supply": None, "families": None, "_renderer": None}

    def prepare(self) -> None:
        """Import the renderers' libraries before the workers are forked."""
        preload_renderers()

    def open(self) -> None:
        """The tables (a forked worker inherits the parent's) and a browser."""

        if self.supply is None:
            self.supply = _supply(self.seed, **self.tables)
        if self.families is None:
            self.families = by_family()
        renderer = TableRenderer(viewport=(1600, 1200))
        with uninterrupted():
            renderer.open()
        self._renderer = renderer

    def close(self) -> None:
        """Close the browser."""
        renderer, self._renderer = self._renderer, None
        if renderer is not None:
            renderer.close()

    def make(self, index: int) -> Item:
        """Task ``index`` with its image written."""

        assert self.supply is not None and self.families is not None
        item, drawn, streams = draw_task(self.seed, index, self.supply, self.families,
                                         self.styles)
        assert item.inputs.table is not None
        grid = grid_of_table(item.inputs.table, {})
        layout = marked(plain(grid), {(m.row, m.col): m.style for m in drawn.marks},
                        {(m.row, m.col): m.colour for m in drawn.marks})
        style_json = family_style(streams, None, grid)
        drawn_look = look(streams, drawn.marks)
        html = layout_document(layout, parse_style(style_json), drawn_look)
        with uninterrupted():
            png, how = self._renderer.shoot(html, parse_style(style_json), "panels")
        image = write_image(self.root, item.id, "table", png, how)
        variant = Variant(style={"table": style_json, "markup": drawn_look})
        return item.model_copy(update={"images": (image,), "variant": variant})


def _supply(seed: int, kind: str, name: str, fmt: str | None = None,
            source: str | None = None, data: str | None = None) -> TableSupply:
    if kind == "import":
        return imported_tables(Path(name), fmt)
    return domain_tables(name, seed, source, data)


def _tables_spec(tables: str, fmt: str | None, source: str | None,
                 data: str | None) -> dict[str, Any]:
    """``--tables``: a built-in domain's name or a pack folder (with ``domain.yaml``) is a
    domain; another file or folder that exists, or any path with ``--format``, an existing
    dataset; anything else is looked up as a domain (and reported as unknown)."""
    path = Path(tables)
    is_pack = tables in builtin_pack_names() or (path / DOMAIN_FILE).is_file()
    if fmt is not None or (not is_pack and path.exists()):
        return {"kind": "import", "name": tables, "fmt": fmt}
    return {"kind": "domain", "name": tables, "source": source, "data": data}


# -- the run ----------------------------------------------------------------------------------


def build_markup(out: Path, *, count: int, seed: int = 0, tables: str = "financial",
                 fmt: str | None = None, source: str | None = None, data: str | None = None,
                 workers: int = 1, overwrite: bool = False, progress: bool = False,
                 notice: Notice = _stderr,
                 marks: str | Sequence[str] | None = None) -> dict[str, Any]:
    """Write ``count`` markup tasks drawn on ``tables`` (a domain, or an existing dataset's
    path) into ``out``, their marks of the kinds ``marks`` names (:func:`mark_styles`);
    return the manifest."""
    styles = mark_styles(marks)
    inputs = [tables] if Path(tables).exists() else []
    sources = [data] if data else []
    target = check_out(out, inputs=inputs, sources=sources)
    check_image_names(DOMAIN, seed, count, target)  # every task has an image
    spec = _tables_spec(tables, fmt, source, data)
    supply = _supply(seed, **spec)  # input errors surface here, before the output is claimed
    families = by_family()
    if not families:
        raise UserError("no markup subtask is registered")
    for index in range(min(count, 5 * max(len(f) for f in families.values()))):
        draw_task(seed, index, supply, families, styles)  # a table no subtask can use fails fast
    kind = MarkupTasks(count, seed, spec, supply, cap_workers(workers, notice), progress,
                       styles)
    return write_dataset(out, kind, overwrite=overwrite, notice=notice, inputs=inputs,
                         sources=sources)


class MarkupTasks(DatasetKind):
    """A dataset of markup tasks: ``count`` tasks, each a marked table image; the families,
    subtasks and yes/no answers they came out as."""

    name = MANIFEST_KIND

    def __init__(self, count: int, seed: int, tables: dict[str, Any], supply: TableSupply,
                 workers: int, progress: bool, styles: tuple[str, ...] = MARK_STYLES) -> None:
        self.total, self.seed, self.tables, self.supply = count, seed, tables, supply
        self.styles = styles
        self.workers, self.progress = workers, progress
        self.per_family: Counter[str] = Counter()
        self.per_subtask: Counter[str] = Counter()
        self.answers: Counter[str] = Counter()

    def items(self, stage: Path, kept: int) -> Iterator[Item]:
        """Tasks ``kept``, ``kept + 1``, ... with their images drawn into ``stage``."""
        (stage / "images").mkdir(exist_ok=True)
        bar = tqdm(total=self.total, desc="tasks", unit="task", disable=not self.progress,
                   file=sys.stderr)
        maker = TaskImages(stage, self.seed, self.tables, self.supply, self.styles)
        try:
            with closing(run_ordered(maker, iter(range(kept, self.total)),
                                     self.workers)) as made:
                for item in made:
                    yield item
                    bar.update()
        finally:
            bar.close()

    def add(self, item: Item) -> None:
        """Count the task's family, subtask and yes/no answers."""
        assert item.task is not None
        self.per_family[item.task.family] += 1
        self.per_subtask[item.task.subtask] += 1
        answer = item.answer if isinstance(item.answer, dict) else {}
        for key, value in answer.items():
            if isinstance(value, bool):
                self.answers[f"{item.task.subtask}:{key}={str(value).lower()}"] += 1

    def manifest(self, stage: Path, counts: Counts) -> dict[str, Any]:
        """The tasks' configuration and shares."""
        return {
            "config": {"domain": DOMAIN, "count": self.total, "seed": self.seed,
                       "tables": self.supply.description,
                       **({"marks": list(self.styles)} if self.styles != MARK_STYLES else {})},
            "seed": self.seed,
            "packages": package_versions(),
            "counts": {"items": self.total, "images": counts.images},
            "shares": {"families": dict(sorted(self.per_family.items())),
                       "subtasks": dict(sorted(self.per_subtask.items())),
                       "yes_no": dict(sorted(self.answers.items()))},
        }

    def card(self, manifest: dict[str, Any]) -> str:
        """The card of the tasks."""
        return markup_card(manifest)


def markup_card(manifest: dict[str, Any]) -> str:
    """The dataset card of a markup-task dataset (Hugging Face YAML front matter)."""
    front = front_matter(licence="other", pretty_name="hopvista markup tasks",
                         tags=("multimodal", "tables", "markup", "highlightbench", "hopvista"))
    shares = manifest["shares"]
    rows = "\n".join(f"| {family} | {FAMILIES.get(family, '')} | {n} |"
                     for family, n in shares["families"].items())
    tables = manifest["config"]["tables"]
    where = tables.get("domain") or tables.get("name")
    marks = manifest["config"].get("marks")
    flag = f" --marks {','.join(marks)}" if marks else ""
    kinds = "highlighted in a named colour, underlined or bold" if not marks else \
        "highlighted in a named colour, or marked as " + ", ".join(marks)
    return f"""{front}

# Markup tasks

Made by `gen markup --count {manifest['config']['count']} --seed {manifest['seed']}{flag}` on
tables from {where}: {manifest['counts']['items']} task(s), one marked table image each. Every
item asks a question about marked cells ({kinds}) and
is answered with a strict JSON object; `task.program`, executed on the item's table and
`task.marks`, gives the answer (`gen verify` re-derives each one).

| family | what it tests | items |
|---|---|---|
{rows}
"""
