"""``gen augment``: every base of an input in every requested variant, written as a dataset.

The input is a hopvista dataset (its base items are copied, images and all, and each gets its
variants) or an existing dataset in its release format (:mod:`hopvista.sources.imports`; its
records get variants only — an imported record has no image of its own). A variant a recipe
cannot make for a base (it would hide a protected cell, or the table is too small to split) is
skipped and counted; a record the reader cannot use is reported with its line or id and
skipped. Output goes through :func:`hopvista.output.folder.claim_output`: staged, then swapped in.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing
from pathlib import Path
from typing import Any

from tqdm import tqdm

from hopvista.augment import chart_markup, markup
from hopvista.augment.grid import grid_of_table
from hopvista.augment.recipes import VARIANTS, Base, base_of_item
from hopvista.building.dataset_writer import Counts, DatasetKind, package_versions, write_dataset
from hopvista.building.workers import cap_workers, preload_renderers, run_ordered
from hopvista.errors import UserError
from hopvista.model import Item
from hopvista.model.dataset import MANIFEST, MISSING, Dataset, dataset_file_problem, load
from hopvista.model.image import longest_image_name
from hopvista.model.item import BASE_VARIANT, VARIANT_PATTERN, variant_id
from hopvista.output.card import front_matter, pictures_credits
from hopvista.output.folder import check_out, image_name_limit, is_hopvista_dataset
from hopvista.sources.imports import Skipped, read_records
from hopvista.sources.imports.common import MAX_IMAGE_BYTES, one_line, read_bytes
from hopvista.themes.visuals import VISUAL_KINDS, icons
from hopvista.variants.maker import Skip, VariantMaker, VariantSpec
from hopvista.variants.questions import question_type

Notice = Callable[[str], None]
MANIFEST_KIND = "augmented"

GROUPS: dict[str, tuple[str, ...]] = {
    markup.GROUP: tuple(markup.VARIANTS),
    chart_markup.GROUP: tuple(chart_markup.VARIANTS),
}
"""Names ``--variants`` expands to several variants: ``markup`` (the seven table markup
variants) and ``chart-markup`` (the three chart markup variants)."""


def _stderr(text: str) -> None:
    print(f"gen: {text}", file=sys.stderr)


# -- the --variants option -------------------------------------------------------------------


def parse_variants(text: str) -> list[VariantSpec]:
    """``web,latex,photo:surface=paper,noise:perturbation.quality=40`` as variant specs.

    Items are separated by commas; ``NAME:KEY=VALUE`` gives a parameter, and a following
    ``KEY=VALUE`` item adds another to the same variant. ``NAME=RECIPE`` (before any ``:``)
    names a second variant of one recipe (``paper=photo:surface=paper``); ``markup`` stands
    for the seven markup variants (:mod:`hopvista.augment.markup`), ``chart-markup`` for the
    three chart markup variants (:mod:`hopvista.augment.chart_markup`): :data:`GROUPS`. A
    value is read as JSON when it parses (numbers, ``true``, lists), as text otherwise; a
    dotted key sets a nested parameter. Errors name the offending item.
    """
    specs: list[dict[str, Any]] = []
    for raw in (part.strip() for part in _top_level_items(text)):
        if not raw:
            continue
        head, _, rest = raw.partition(":")
        if "=" in head and specs and not rest and not _is_alias(head):
            _set(specs[-1]["params"], head, raw)
            continue
        name, _, recipe = head.partition("=")
        recipe = recipe or name
        if recipe in GROUPS and not rest:
            specs += [{"name": n, "recipe": n, "params": {}} for n in GROUPS[recipe]]
            continue
        if recipe not in VARIANTS:
            known = ", ".join(VARIANTS.names())
            raise UserError(f"--variants: unknown variant {recipe!r} in {raw!r} (known: {known})")
        if not _valid_name(name):
            raise UserError(f"--variants: {name[:MAX_VARIANT_NAME]!r} is not a variant name "
                            f"(lower-case letters, digits, - and _; at most {MAX_VARIANT_NAME})")
        spec: dict[str, Any] = {"name": name, "recipe": recipe, "params": {}}
        if rest:
            _set(spec["params"], rest, raw)
        specs.append(spec)
    if not specs:
        raise UserError("--variants: no variant named")
    seen = Counter(s["name"] for s in specs)
    twice = sorted(n for n, k in seen.items() if k > 1)
    if twice:
        raise UserError(f"--variants: {twice[0]!r} given twice; name the second one "
                        f"(e.g. {twice[0]}2={specs[0]['recipe']}:...)")
    out = [VariantSpec(s["name"], s["recipe"], s["params"]) for s in specs]
    for made in out:
        VARIANTS.get(made.recipe).parse(made.params)  # bad parameters fail before any work
    return out


def _top_level_items(text: str) -> list[str]:
    """``text`` split at the commas outside brackets and quotes (``[40,50]`` stays whole)."""
    items, depth, quote, start = [], 0, "", 0
    for i, char in enumerate(text):
        if quote:
            quote = "" if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char in "[{":
            depth += 1
        elif char in "]}":
            depth = max(0, depth - 1)
        elif char == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    items.append(text[start:])
    return items


def _is_alias(head: str) -> bool:
    name, _, recipe = head.partition("=")
    return recipe in VARIANTS and _valid_name(name)


MAX_VARIANT_NAME = 40
"""Longest variant name (it is part of every image file name of the variant)."""


def _valid_name(name: str) -> bool:
    return (bool(re.fullmatch(VARIANT_PATTERN, name)) and name != BASE_VARIANT
            and len(name) <= MAX_VARIANT_NAME)


def _set(params: dict[str, Any], pair: str, raw: str) -> None:
    key, eq, value = pair.partition("=")
    if not eq or not key:
        raise UserError(f"--variants: {raw!r}: parameters are KEY=VALUE")
    try:
        parsed: Any = json.loads(value)
    except ValueError:
        parsed = value
    if isinstance(parsed, list):
        parsed = list(parsed)
    target = params
    parts = key.split(".")
    for part in parts[:-1]:
        target = target.setdefault(part, {})
        if not isinstance(target, dict):
            raise UserError(f"--variants: {raw!r}: {part!r} is not a group of parameters")
    target[parts[-1]] = parsed


# -- inputs ----------------------------------------------------------------------------------


class Source:
    """An input: its bases (with the base items to copy, for a hopvista dataset), the records
    skipped while reading, and what the manifest says of it.

    An imported input is read twice (to count its records, then to make their variants);
    the records it skips are known after the first reading, and an input whose every record
    is skipped is refused then, with the reasons."""

    def __init__(self, path: Path, fmt: str | None) -> None:
        self.path = path
        self.skipped: list[dict[str, str]] = []
        self.dataset: Dataset | None = None
        if fmt in (None, "hopvista") and is_hopvista_dataset(path):
            self.format = "hopvista"
            self.dataset = load(path)
            if self.dataset.manifest.kind == "markup":
                raise UserError(f"{path}: a dataset of markup tasks (gen markup): a "
                                "task's answer depends on its marks and layout, which gen "
                                "augment's variants would change")
            self.count = sum(1 for _ in self._hopvista())
            self.seed = self.dataset.manifest.seed
            if self.count == 0 and len(self.dataset):
                raise UserError(f"{path}: no record to augment (hopvista): its "
                                f"{len(self.dataset)} item(s) are all variants of other "
                                "items, with no base; augment the dataset they were made from")
        else:
            self.format, records = read_records(path, fmt)
            self.count = 0
            for record in records:
                if isinstance(record, Skipped):
                    self.skipped.append({"where": record.where, "why": record.why})
                else:
                    self.count += 1
            self.seed = 0
        if self.count == 0:
            because = (f": all {len(self.skipped)} record(s) skipped: "
                       f"{skip_summary(self.skipped)}") if self.skipped else ""
            raise UserError(f"{path}: no record to augment ({self.format}){because}")

    def _hopvista(self) -> Iterator[Item]:
        """The base items, each with its image files checked (regular files in the input)."""
        dataset = self.dataset
        assert dataset is not None
        for item in dataset:
            if item.variant.name == BASE_VARIANT:
                for image in item.images:
                    dataset.image_file(image)
                yield item

    def bases(self) -> Iterator[Base]:
        """The bases, in input order (skipped records are noted in :attr:`skipped`)."""
        if self.dataset is not None:
            for item in self._hopvista():
                try:
                    yield base_of_item(item, self.path)
                except Skip as why:
                    self.skipped.append({"where": item.id, "why": str(why)})
            return

        for record in read_records(self.path, self.format)[1]:
            if isinstance(record, Skipped):
                continue  # noted by the first reading
            where = record.item.provenance.source
            table = record.item.inputs.table
            if table is None:
                self.skipped.append({"where": where, "why": "no table"})
                continue
            try:
                chart = read_bytes(record.chart_image, MAX_IMAGE_BYTES) \
                    if record.chart_image else None
            except (OSError, ValueError) as exc:
                self.skipped.append({"where": where,
                                     "why": f"chart image unreadable: {one_line(exc)}"})
                continue
            protected = {(p.row, p.col): p.why for p in record.protected}
            yield Base(record.item, grid_of_table(table, {}), protected, chart_png=chart,
                       chart_render={"kind": "image", "source": "imported"})


SHOWN_SKIPS = 20
"""How many skipped records are named one by one on stderr (all are in the manifest, up to
:data:`KEPT_SKIPS`)."""
KEPT_SKIPS = 1000
"""How many skipped records (and skipped variants) the manifest lists."""
SHOWN_REASONS = 4
"""How many kinds of reason a summary of skipped records names."""
SHOWN_REASON_CHARS = 160
"""Longest reason a summary quotes (a longer one is cut)."""
_DETAILS = re.compile(r"'[^']*'|\"[^\"]*\"|\S*[/\\]\S*|\d[\d,.]*")


def skip_summary(skipped: Sequence[dict[str, str]]) -> str:
    """Skipped records summarised on one line: for each kind of reason (the reason less its
    names, numbers and quotes) how many, with the first record of that kind (``2 like
    easy_data.csv:2: chart image ... not found; 1 like easy_data.csv:4: ...``)."""
    kinds: dict[str, list[dict[str, str]]] = {}
    for skip in skipped:
        kinds.setdefault(_DETAILS.sub("…", skip["why"]), []).append(skip)
    ranked = sorted(kinds.values(), key=lambda group: -len(group))
    parts = [f"{len(group)} like {group[0]['where']}: {_cut(group[0]['why'])}"
             for group in ranked[:SHOWN_REASONS]]
    if len(ranked) > SHOWN_REASONS:
        rest = sum(len(group) for group in ranked[SHOWN_REASONS:])
        parts.append(f"{rest} more for {len(ranked) - SHOWN_REASONS} other reason(s)")
    return "; ".join(parts)


def _cut(text: str) -> str:
    return text if len(text) <= SHOWN_REASON_CHARS else f"{text[:SHOWN_REASON_CHARS - 1]}…"


def report_skipped(skipped: Sequence[dict[str, str]], notice: Notice) -> None:
    """Name the first :data:`SHOWN_SKIPS` skipped records one by one, then sum them all up."""
    for skip in skipped[:SHOWN_SKIPS]:
        notice(f"skipped {skip['where']}: {skip['why']}")
    if len(skipped) > SHOWN_SKIPS:
        notice(f"... and {len(skipped) - SHOWN_SKIPS} more skipped record(s) (manifest.json, "
               f"records_skipped, lists the first {KEPT_SKIPS})")
    notice(f"{len(skipped)} record(s) of the input skipped: {skip_summary(skipped)}")


# -- workers ---------------------------------------------------------------------------------


class BaseVariants:
    """The worker's maker: every variant of one base (items, or ``(variant, why)`` for a
    skip), drawn by a :class:`~hopvista.variants.maker.VariantMaker` of the process."""

    def __init__(self, root: Path, seed: int) -> None:
        self.root, self.seed = root, seed
        self._maker: VariantMaker | None = None

    def prepare(self) -> None:
        """Import the renderers' libraries before the workers are forked."""
        preload_renderers()

    def open(self) -> None:
        """Start this process's variant maker (its browser)."""
        self._maker = VariantMaker(self.root, self.seed).__enter__()

    def make(self, task: tuple[Base, Sequence[VariantSpec]]) -> list[Item | tuple[str, str]]:
        """Every variant of one base."""
        base, specs = task
        assert self._maker is not None
        return self._maker.make_all(base, list(specs))

    def close(self) -> None:
        """Stop the variant maker."""
        maker, self._maker = self._maker, None
        if maker is not None:
            maker.close()


# -- the run ---------------------------------------------------------------------------------


def augment(path: Path, out: Path, specs: Sequence[VariantSpec], *, fmt: str | None = None,
            seed: int | None = None, workers: int = 1, overwrite: bool = False,
            progress: bool = False, notice: Notice = _stderr) -> dict[str, Any]:
    """Write every base of ``path`` in every variant of ``specs`` into ``out``; return the
    manifest. ``seed`` defaults to the input dataset's (0 for an imported one)."""
    if not path.exists():
        raise UserError(f"{path}: no such file or folder")
    check_out(out, inputs=[path])  # before the input is read
    _refuse_special_manifest(path)
    source = Source(path, fmt)
    kind = Augmented(path, source, specs, source.seed if seed is None else seed,
                     cap_workers(workers, notice), progress, notice)
    return write_dataset(out, kind, overwrite=overwrite, notice=notice, inputs=[path])


class Augmented(DatasetKind):
    """A dataset of visual variants: each base (copied, for a hopvista input) followed by its
    variants; the variants made and skipped per name, the records skipped."""

    name = MANIFEST_KIND

    def __init__(self, path: Path, source: Source, specs: Sequence[VariantSpec], seed: int,
                 workers: int, progress: bool, notice: Notice) -> None:
        self.path, self.source, self.specs, self.seed = path, source, specs, seed
        self.workers, self.progress, self.notice = workers, progress, notice
        self.total = source.count * (len(specs) + (1 if source.dataset is not None else 0))
        self.per_variant: Counter[str] = Counter()
        self.skips: Counter[str] = Counter()
        self.skip_list: list[dict[str, str]] = []
        self.by_question = SkipsByQuestion()
        self.emblems: set[str] = set()
        self.incongruent: Counter[str] = Counter()
        self.distinguishing: Counter[str] = Counter()

    def items(self, stage: Path, kept: int) -> Iterator[Item]:
        """Each base (copied into ``stage``, for a hopvista input), then its variants."""
        (stage / "images").mkdir(exist_ok=True)
        bar = tqdm(total=self.source.count, desc="bases", unit="base",
                   disable=not self.progress, file=sys.stderr)
        bases: list[Base] = []
        limit = image_name_limit(stage)

        def tasks() -> Iterator[tuple[Base, Sequence[VariantSpec]]]:
            for base in self.source.bases():
                _check_image_names(self.path, base.item.base_id, self.specs, limit)
                bases.append(base)
                yield base, self.specs

        try:
            with closing(run_ordered(BaseVariants(stage, self.seed), tasks(),
                                     self.workers)) as made:
                for results in made:
                    base = bases.pop(0)
                    if self.source.dataset is not None:
                        yield _copied(base.item, self.source.path, stage)
                    asked = self.by_question.base(base.item)
                    for result in results:
                        if isinstance(result, tuple):
                            self.skips[result[0]] += 1
                            self.by_question.skip(asked, *result)
                            self.skip_list.append({"base_id": base.item.base_id,
                                                   "variant": result[0], "why": result[1]})
                        else:
                            self.per_variant[result.variant.name] += 1
                            yield result
                    bar.update()
        finally:
            bar.close()

    def add(self, item: Item) -> None:
        """Note the icon-set emblems on the pictures of an item with images, and whether an
        incongruent markup variant's misled answer differs from the right one."""
        markup = item.variant.markup or {}
        if markup.get("on") == "distractor":
            self.incongruent[item.variant.name] += 1
            if (markup.get("hijacked") or {}).get("distinguishes"):
                self.distinguishing[item.variant.name] += 1
        if item.images:
            for visual in item.inputs.visuals:
                self.emblems.update(VISUAL_KINDS.get(visual.kind).icons(visual.attributes))

    def manifest(self, stage: Path, counts: Counts) -> dict[str, Any]:
        """What was made and skipped (said on stderr too), of which input, and the icon set
        the emblems on its pictures come from (when any is shown)."""
        source, specs, notice = self.source, self.specs, self.notice
        wanted = source.count * len(specs)
        made_count = sum(self.per_variant.values())
        if self.skips:
            notice(f"{wanted - made_count} of {wanted} variant(s) skipped "
                   f"({100 * (wanted - made_count) / wanted:.1f}%): " +
                   ", ".join(f"{n} {k}" for n, k in sorted(self.skips.items())))
            for line in self.by_question.lines():
                notice(line)
        if source.skipped:
            report_skipped(source.skipped, notice)
        record = icons.icon_set_record(self.emblems)
        icon_set = {"icon_set": record} if record is not None else {}
        return {
            "config": {
                "input": {"format": source.format, "name": self.path.name,
                          "manifest": _input_manifest(source)},
                "variants": [{"name": s.name, "recipe": s.recipe, "params": dict(s.params)}
                             for s in specs],
                "seed": self.seed,
            },
            "seed": self.seed,
            "packages": package_versions(),
            "counts": {"items": counts.items, "images": counts.images, "bases": source.count,
                       "records_skipped": len(source.skipped)},
            "variants": {"made": dict(sorted(self.per_variant.items())),
                         "skipped": dict(sorted(self.skips.items())),
                         **self.by_question.record()},
            "skipped": self.skip_list[:KEPT_SKIPS],
            "records_skipped": source.skipped[:KEPT_SKIPS],
            **icon_set,
            **self._markup_record(),
        }

    def _markup_record(self) -> dict[str, Any]:
        """``markup``: of the incongruent markup variants (the marker on the distractor), how
        many have a misled answer that differs from the right one, per variant and in all
        (nothing when none was made)."""
        if not self.incongruent:
            return {}
        per_variant = {name: {"incongruent": count, "distinguishes": self.distinguishing[name]}
                       for name, count in sorted(self.incongruent.items())}
        total, told = sum(self.incongruent.values()), sum(self.distinguishing.values())
        return {"markup": {"incongruent": total, "distinguishes": told,
                           "share": round(told / total, 4), "variants": per_variant}}

    def card(self, manifest: dict[str, Any]) -> str:
        """The card of the variants."""
        return augment_card(manifest)


def _check_image_names(path: Path, base_id: str, specs: Sequence[VariantSpec],
                       limit: int) -> None:
    """Refuse a base whose variants' image file names (``images/ID.VARIANT.ROLE.png``) would
    be longer than ``limit`` bytes, naming it."""
    longest = max(longest_image_name(variant_id(base_id, spec.name)) for spec in specs)
    if longest > limit:
        shown = base_id if len(base_id) <= 60 else f"{base_id[:40]}...{base_id[-12:]}"
        raise UserError(f"{path}: item {shown}: its variants' image file names would be "
                        f"{longest} bytes, more than the {limit} the output folder allows "
                        f"(its id is {len(base_id)} characters)")


def _refuse_special_manifest(path: Path) -> None:
    """Refuse a folder whose ``manifest.json`` is there but is no regular file (a named pipe,
    a device, a symbolic link): it is neither read as a dataset nor taken for an import."""
    why = dataset_file_problem(path, MANIFEST) if path.is_dir() else None
    if why is not None and why != MISSING:
        raise UserError(f"{path / MANIFEST}: {why}")


def _input_manifest(source: Source) -> dict[str, Any] | None:
    if source.dataset is None:
        return None
    manifest = source.dataset.manifest
    return {"config": manifest.config, "seed": manifest.seed,
            "format_version": manifest.format_version}


def _copied(item: Item, root: Path, stage: Path) -> Item:
    """A base item copied with its images (same relative paths)."""
    for image in item.images:
        target = stage / image.path
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(root / image.path, target)
    return item


def augment_card(manifest: dict[str, Any]) -> str:
    """The dataset card of an augmented dataset (Hugging Face YAML front matter)."""
    config = manifest["config"]
    front = front_matter(licence="other",
                         pretty_name=f"hopvista variants of {config['input']['name']}",
                         tags=("multimodal", "tables", "robustness", "visual-variants",
                               "hopvista"))
    counts, made = manifest["counts"], manifest["variants"]
    names = ",".join(v["name"] for v in config["variants"])
    credits = "\n" + pictures_credits(manifest["icon_set"]).rstrip("\n") + "\n" \
        if "icon_set" in manifest else ""
    rows = "\n".join(f"| {v['name']} | {made['made'].get(v['name'], 0)} | "
                     f"{made['skipped'].get(v['name'], 0)} |" for v in config["variants"])
    by_question = skips_by_question_card(made)
    markup = manifest.get("markup")
    attribution = "" if not markup else (
        f"\nMarkup attribution: in {markup['distinguishes']} of {markup['incongruent']} "
        f"incongruent markup variant(s) ({100 * markup['share']:.1f}%), a reader misled by the "
        "marker on the distractor answers differently from the right answer "
        "(`variant.markup.hijacked.distinguishes`); only there can `gen eval` put a wrong "
        "answer down to the marker.\n")
    return f"""{front}

# Visual variants of {config['input']['name']}

Made by `gen augment INPUT --variants {names} --seed {config['seed']}` from a
{config['input']['format']} input: {counts['bases']} base record(s), {counts['items']} item(s),
{counts['images']} image(s). Each variant item links to its base by `base_id`, records its
recipe and the exact parameters drawn (`variant`), and the cells it kept clear
(`variant.protected`). The licence of the input applies to its content.

| variant | items | skipped |
|---|---|---|
{rows}
{by_question}{attribution}{credits}"""


class SkipsByQuestion:
    """Skipped variants counted per question type (:func:`question_type`), with the bases of
    each type and each group's most common reason."""

    def __init__(self) -> None:
        self.bases: Counter[str] = Counter()
        self.skipped: dict[str, Counter[str]] = {}
        self.reasons: dict[tuple[str, str], Counter[str]] = {}

    def base(self, item: Item) -> str:
        """Count a base; its question type."""
        asked = question_type(item)
        self.bases[asked] += 1
        return asked

    def skip(self, asked: str, variant: str, why: str) -> None:
        """Count a variant skipped for a base whose question is of type ``asked``."""
        self.skipped.setdefault(variant, Counter())[asked] += 1
        self.reasons.setdefault((variant, asked), Counter())[_cut(why)] += 1

    def record(self) -> dict[str, Any]:
        """The manifest's ``variants.skipped_by_question_type`` (nothing when no variant was
        skipped): per variant, per question type, ``{"skipped", "bases", "why"}``, ``why``
        the most common reason (ties: the first in sorted order)."""
        if not self.skipped:
            return {}
        return {"skipped_by_question_type": {
            variant: {asked: {"skipped": count, "bases": self.bases[asked],
                              "why": _commonest(self.reasons[(variant, asked)])}
                      for asked, count in sorted(types.items())}
            for variant, types in sorted(self.skipped.items())}}

    def lines(self) -> list[str]:
        """One line per variant with skips: its skips per question type, with the reason."""
        return [f"{variant} skipped, by question type: " + "; ".join(
            f"{asked} {n['skipped']} of {n['bases']} ({n['why']})" for asked, n in types.items())
            for variant, types in self.record().get("skipped_by_question_type", {}).items()]


def _commonest(reasons: Counter[str]) -> str:
    return min(reasons.items(), key=lambda kv: (-kv[1], kv[0]))[0]


def skips_by_question_card(variants: dict[str, Any]) -> str:
    """The card's table of skipped variants per question type (empty when none was)."""
    groups = variants.get("skipped_by_question_type")
    if not groups:
        return ""
    rows = "\n".join(f"| {variant} | {asked} | {n['skipped']} of {n['bases']} | "
                     f"{n['why'].replace('|', '/')} |"
                     for variant, types in groups.items() for asked, n in types.items())
    return f"""
Skipped variants by the type of the base's question (`variants.skipped_by_question_type`):

| variant | question type | skipped | most common reason |
|---|---|---|---|
{rows}
"""
