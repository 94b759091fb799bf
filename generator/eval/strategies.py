"""Prompt strategies: named, documented packs of prompts (``gen eval --strategy NAME``).

A strategy says what a model is asked about an item, whatever the setting shows:

================  ===========================================================================
``cot``           zero-shot chain of thought: each kind's built-in prompt (the default; a run
                  without ``--strategy`` asks exactly this)
``direct``        the answer alone, no reasoning asked for (TableVista's direct prompting)
``four-stage``    per statement: plan the values needed, identify the modality holding each,
                  retrieve them, reason to the verdict (FCMR's 4-stage reasoning)
``modality-       first restate the chart's points and the text's figures as rows beside the
integration``     table, then check the statements on that one table (FCMR's modality
                  integration)
``four-stage-     modality integration, then the four stages on the one table (FCMR Table 5's
integrated``      third row)
``one-shot``      one example item of the dataset, with its answer, before the item
                  (MMTabReal's text baselines); the example is drawn by ``--seed``
                  (:mod:`hopvista.rng`) among the items of the same kind from another base
                  item, never the item itself or a variant of it
``self-refine``   the chain-of-thought answer, then a second turn in the same conversation:
                  critique that answer and revise it (FCMR's self-refine); the revised answer
                  is scored, and both turns are cached, counted and costed
================  ===========================================================================

Strategies combine with ``+``: at most one that brings its own prompts (``direct``,
``four-stage``, ``modality-integration``, ``four-stage-integrated``), ``one-shot`` around it,
``self-refine`` after it; FCMR Table 5's rows are ``cot``, ``modality-integration``,
``four-stage-integrated`` and ``four-stage-integrated+self-refine``.

A strategy's templates are Jinja2 files rendered in the sandbox like every prompt
(:func:`hopvista.eval.prompts.build_prompt`), in its ``package``: ``NAME.KIND.j2`` for each item
kind it has its own prompt for, ``NAME.frame.j2`` around the prompt (``one-shot``: the
variables ``example``, ``example_answer`` and ``prompt``), ``NAME.refine.j2`` for the second
turn. A strategy without its own prompt of a kind wraps the kind's chain-of-thought prompt;
one with its own prompts refuses the kinds it has none for, in one line. The run records every
template it used. Tables are shown as ``--table-format`` says (``json``, ``pipe``,
``markdown``) where the setting gives the table (or the chart's data) as text; the built-in
prompts read ``table_text`` and ``chart_text``.

Third-party packages register strategies through the ``hopvista.strategies`` entry-point
group::

    STRATEGIES.register("terse", Strategy("terse", "one line, no reasoning",
                                          kinds=("three_statement",), package="my_pkg.prompts"))
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from hopvista import rng, sandbox
from hopvista.errors import UserError
from hopvista.eval.backends import Exchange, ItemModel, Model, Prompt, PromptImage, converses
from hopvista.eval.cell_visuals import Captioner, kind_caption
from hopvista.eval.prompts import Setting, build_prompt, default_template
from hopvista.eval.table_text import DEFAULT_TABLE_FORMAT, TABLE_FORMATS
from hopvista.model import ITEM_KINDS, Item
from hopvista.model.dataset import Dataset
from hopvista.registry import Registry

__all__ = ["DEFAULT_STRATEGY", "STRATEGIES", "Combination", "PromptPack", "Strategy",
           "check_model", "combination", "draw_examples", "prompt_pack", "strategy"]

DEFAULT_STRATEGY = "cot"
BUILT_IN_PACKAGE = "hopvista.templates.prompts.strategies"


@dataclass(frozen=True)
class Strategy:
    """A named prompt pack."""

    name: str
    description: str
    kinds: tuple[str, ...] = ()
    """The item kinds it has its own prompt for (``NAME.KIND.j2``); empty: it wraps each
    kind's chain-of-thought prompt."""
    frame: bool = False
    """Whether ``NAME.frame.j2`` sets an example item with its answer before the prompt."""
    refine: bool = False
    """Whether ``NAME.refine.j2`` is asked as a second turn (a conversation)."""
    package: str = BUILT_IN_PACKAGE
    """The package holding its templates."""

    def template(self, part: str) -> str:
        """The text of template ``NAME.PART.j2``; ``UserError`` if there is none."""
        source = resources.files(self.package).joinpath(f"{self.name}.{part}.j2")
        if not source.is_file():
            raise UserError(f"--strategy {self.name}: its template {self.name}.{part}.j2 is "
                            f"missing from {self.package}")
        return source.read_text(encoding="utf-8")


STRATEGIES: Registry[Strategy] = Registry("prompt strategy", "strategies")
"""Every prompt strategy by name (entry-point group ``hopvista.strategies``)."""

for _strategy in (
    Strategy("cot", "zero-shot chain of thought: each kind's built-in prompt (the default)",
             kinds=("three_statement", "table_qa")),
    Strategy("direct", "the answer alone, no reasoning asked for (TableVista)",
             kinds=("three_statement", "table_qa", "mmtable")),
    Strategy("four-stage", "plan, identify the modality, retrieve, reason, per statement "
             "(FCMR)", kinds=("three_statement",)),
    Strategy("modality-integration", "the chart and the text restated as table rows, then "
             "checked on one table (FCMR)", kinds=("three_statement",)),
    Strategy("four-stage-integrated", "the inputs brought into one table, then the four "
             "stages on it (FCMR Table 5's modality integration + 4-stage reasoning)",
             kinds=("three_statement",)),
    Strategy("one-shot", "an example item of the dataset with its answer first (MMTabReal)",
             frame=True),
    Strategy("self-refine", "chain of thought, then a second turn that critiques and revises "
             "the answer (FCMR)", refine=True),
):
    STRATEGIES.register(_strategy.name, _strategy)


def strategy(name: str) -> Strategy:
    """The strategy called ``name``; ``UserError`` naming the flag and the known ones."""
    if name not in STRATEGIES:
        raise UserError(f"--strategy: no strategy {name!r} (strategies: "
                        f"{', '.join(STRATEGIES.names())})")
    return STRATEGIES.get(name)


@dataclass(frozen=True)
class Combination:
    """Strategies asked together (``four-stage+self-refine``): at most one that brings its
    own prompts, one that frames them, one that asks a second turn."""

    name: str
    own: Strategy | None = None
    frame: Strategy | None = None
    refine: Strategy | None = None


def combination(name: str) -> Combination:
    """The strategies ``name`` joins with ``+``; ``UserError`` naming the flag for an unknown
    one, one named twice, or two that play the same part."""
    names = name.split("+")
    chosen = [strategy(n) for n in names]
    if len(set(names)) < len(names):
        raise UserError(f"--strategy {name}: a strategy named twice")
    parts: dict[str, list[Strategy]] = {
        "own": [s for s in chosen if s.kinds and s.name != DEFAULT_STRATEGY],
        "frame": [s for s in chosen if s.frame], "refine": [s for s in chosen if s.refine]}
    for part, found in parts.items():
        if len(found) > 1:
            what = {"own": "brings its own prompts", "frame": "frames the prompt",
                    "refine": "asks a second turn"}[part]
            raise UserError(f"--strategy {name}: {found[0].name} and {found[1].name} each "
                            f"{what}; combine at most one of them with the others")
    return Combination(name, *(found[0] if found else None for found in parts.values()))


def check_table_format(fmt: str) -> str:
    """``fmt`` if it is a table format; ``UserError`` naming the flag otherwise."""
    if fmt not in TABLE_FORMATS:
        raise UserError(f"--table-format: no format {fmt!r} (formats: "
                        f"{', '.join(TABLE_FORMATS)})")
    return fmt


_ENV = sandbox.PackEnvironment(keep_trailing_newline=False, trim_blocks=False)


@dataclass(frozen=True)
class PromptPack:
    """What a run asks of each item: the main template of each kind, the strategy's frame
    and second turn, and each item's example (``one-shot``)."""

    name: str
    """The strategy (or ``+``-joined strategies) asked."""
    table_format: str
    templates: dict[str, str]
    """The main template of each item kind."""
    frame: str | None = None
    refine: str | None = None
    seed: int | None = None
    examples: Mapping[str, Item] = field(default_factory=dict)
    """The example shown before each item, by item id (``one-shot``)."""

    @property
    def default(self) -> bool:
        """Whether this is the default pack (a run that records nothing more)."""
        return self.name == DEFAULT_STRATEGY and self.table_format == DEFAULT_TABLE_FORMAT

    def record(self) -> dict[str, Any]:
        """What ``run.json`` adds for this pack (nothing for the default)."""
        if self.default:
            return {}
        extra = {name: text for name, text in (("frame", self.frame), ("refine", self.refine))
                 if text is not None}
        return {"strategy": self.name, "table_format": self.table_format,
                **({"strategy_prompts": extra} if extra else {}),
                **({"seed": self.seed} if self.seed is not None else {}),
                **({"examples": {k: v.id for k, v in sorted(self.examples.items())}}
                   if self.examples else {})}

    def first(self, item: Item, dataset: Dataset, how: Setting, pages: Path | None = None,
              check_only: bool = False, captioner: Captioner = kind_caption,
              chart_reading: str | None = None, example_reading: str | None = None
              ) -> Prompt:
        """The prompt of the item's first (or only) turn; in ``chart-derendered`` the item's
        chart is ``chart_reading`` and its example's (``one-shot``) ``example_reading``, the
        JSON of what the chart's reader read (:func:`~hopvista.eval.prompts.build_prompt`)."""
        def prompt_of(shown: Item, reading: str | None) -> Prompt:
            return build_prompt(shown, dataset, how, self.templates[shown.kind], pages,
                                check_only=check_only, captioner=captioner,
                                chart_reading=reading, table_format=self.table_format)

        prompt = prompt_of(item, chart_reading)
        if self.frame is None:
            return prompt
        example = self.examples[item.id]
        answer = ITEM_KINDS.get(example.kind).reference(example)
        return _framed(item, self.frame,
                       {"example": prompt_of(example, example_reading), "prompt": prompt},
                       {"example_answer": answer, "setting": how.name})

    def second(self, item: Item, how: Setting) -> Prompt | None:
        """The prompt of the item's second turn, or ``None`` when the strategy has one turn."""
        if self.refine is None:
            return None
        return _framed(item, self.refine, {}, {"setting": how.name, "kind": item.kind})

    def history(self, first: Prompt, reply: str) -> list[Exchange]:
        """The conversation before the second turn."""
        return [Exchange(first, reply)]


def _framed(item: Item, template: str, prompts: dict[str, Prompt],
            variables: dict[str, Any]) -> Prompt:
    """``template`` rendered with ``variables``, each of ``prompts`` set in where the
    template shows its name (text and images in order)."""
    nonce = secrets.token_hex(8)
    markers = {name: f"\0{nonce}:{name}\0" for name in prompts}
    try:
        text = _ENV.from_string(template).render(**variables, **markers)
    except sandbox.TEMPLATE_ERRORS as exc:
        shown = sorted([*variables, *markers])
        raise UserError(f"{item.id}: strategy template: {sandbox.describe(exc, shown)}") \
            from None
    parts: list[str | PromptImage] = []
    for k, piece in enumerate(re.split(f"\0{nonce}:([a-z_]+)\0", text)):
        if k % 2:
            parts += prompts[piece].parts
        elif piece:
            parts.append(piece)
    return Prompt(tuple(_joined(parts)))


def _joined(parts: Sequence[str | PromptImage]) -> list[str | PromptImage]:
    """``parts`` with neighbouring texts joined into one."""
    joined: list[str | PromptImage] = []
    for part in parts:
        if isinstance(part, str) and joined and isinstance(joined[-1], str):
            joined[-1] += part
        else:
            joined.append(part)
    return joined


def prompt_pack(name: str, table_format: str, kinds: Sequence[str], prompt: str | None,
                dataset: Dataset | None = None, items: Sequence[Item] = (),
                seed: int | None = None) -> PromptPack:
    """The prompts of strategy ``name`` (strategies joined with ``+``) for items of
    ``kinds`` (``prompt``: a template text given with ``--prompt``, which replaces each
    kind's chain-of-thought prompt), tables in ``table_format``; a ``one-shot`` pack draws
    each of ``items`` an example from ``dataset`` with ``seed``. ``UserError`` naming the
    flag for what cannot be asked."""
    chosen = combination(name)
    check_table_format(table_format)
    if seed is not None and chosen.frame is None:
        raise UserError(f"--seed: the strategy {name} draws nothing (only one-shot draws its "
                        "examples)")
    if seed is not None and seed < 0:
        raise UserError(f"--seed: must be 0 or more, got {seed}")
    if prompt is not None and chosen.own is not None:
        raise UserError(f"--prompt and --strategy {name}: both give the prompt; choose one")
    templates = {kind: _main_template(chosen, kind, table_format, prompt) for kind in kinds}
    examples = {} if chosen.frame is None else draw_examples(dataset, items, seed or 0)
    return PromptPack(name, table_format, templates,
                      None if chosen.frame is None else chosen.frame.template("frame"),
                      None if chosen.refine is None else chosen.refine.template("refine"),
                      None if chosen.frame is None else seed or 0, examples)


def _main_template(chosen: Combination, kind: str, table_format: str, prompt: str | None
                   ) -> str:
    """The template of items of ``kind`` under ``chosen``."""
    own = chosen.own
    if own is not None:
        if kind not in own.kinds:
            raise UserError(f"--strategy {chosen.name}: no prompt for items of kind {kind!r} "
                            f"(the strategy {own.name} has one for {', '.join(own.kinds)})")
        return own.template(kind)
    if prompt is not None:
        return prompt
    if table_format == DEFAULT_TABLE_FORMAT:
        return default_template(kind)
    cot = STRATEGIES.get(DEFAULT_STRATEGY)
    if kind not in cot.kinds:
        raise UserError(f"--table-format {table_format}: the prompt of items of kind {kind!r} "
                        f"shows its table one way only (give a template with --prompt)")
    return cot.template(kind)


def draw_examples(dataset: Dataset | None, items: Sequence[Item], seed: int
                  ) -> dict[str, Item]:
    """For each of ``items``, an example drawn with ``seed`` from the dataset's items of the
    same kind and another base item (of the same variant when there are any); ``UserError``
    when an item has none."""
    if dataset is None:
        raise UserError("--strategy one-shot: needs the dataset to draw examples from")
    pools: dict[tuple[str, str | None], _Pool] = {}
    for other in sorted(dataset, key=lambda i: i.id):
        for key in ((other.kind, other.variant.name), (other.kind, None)):
            pools.setdefault(key, _Pool()).add(other)
    examples: dict[str, Item] = {}
    for item in items:
        draw = rng.derive_int(seed, "one-shot", item.id)
        alike = pools.get((item.kind, item.variant.name), _Pool()).pick(item, draw)
        example = alike or pools.get((item.kind, None), _Pool()).pick(item, draw)
        if example is None:
            raise UserError(f"--strategy one-shot: {item.id}: the dataset has no other item of "
                            f"kind {item.kind!r} to show as its example")
        examples[item.id] = example
    return examples


@dataclass
class _Pool:
    """Items in id order, with the positions of each base item's."""

    items: list[Item] = field(default_factory=list)
    by_base: dict[str, list[int]] = field(default_factory=dict)

    def add(self, item: Item) -> None:
        self.by_base.setdefault(item.base_id, []).append(len(self.items))
        self.items.append(item)

    def pick(self, item: Item, draw: int) -> Item | None:
        """The ``draw``-th (modulo their number) of the items of another base than
        ``item``'s; ``None`` when there is none."""
        same = self.by_base.get(item.base_id, [])
        left = len(self.items) - len(same)
        if left <= 0:
            return None
        k = draw % left
        for index in same:  # ascending: step over the item's own base
            if index <= k:
                k += 1
        return self.items[k]


def check_model(name: str, table_format: str, model: Model | ItemModel, spec: str) -> None:
    """``UserError`` when ``model`` cannot be asked as strategy ``name`` asks: a baseline that
    reads the item under a strategy or table format other than the default, or a model that
    holds no conversation under a two-turn strategy."""
    chosen = combination(name)
    check_table_format(table_format)
    if name == DEFAULT_STRATEGY and table_format == DEFAULT_TABLE_FORMAT:
        return
    if isinstance(model, ItemModel):
        raise UserError(f"--model {spec}: a baseline that reads the item, not a prompt; "
                        "--strategy and --table-format do not apply to it")
    if chosen.refine is not None and not converses(model):
        raise UserError(f"--strategy {name}: asks a second turn in one conversation, and the "
                        f"model {spec} holds none (it has no converse(history, prompt) method)")
