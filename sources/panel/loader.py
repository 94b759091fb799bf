"""The panel source's loader: ``panel.csv`` (+ ``texts.jsonl``) of a data folder as a World.

The pack it gets has been fitted to the folder by :func:`hopvista.sources.panel.pack.
panel_pack` (one pack column per CSV column, in CSV order). Each line of ``texts.jsonl`` is one
chunk; its facts are extracted from ordinary prose by :func:`hopvista.sources.prose.prose_facts`,
with the entity's name, the domain's nouns ("the city") and pronouns right after a sentence
about it as the subjects a sentence may have; a sentence that writes one of the entity's
values gives none (the table would decide its claim). The world's provenance records how
many passages and facts each entity has and why each passage without a fact gave none.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from hopvista.domain import DomainPack
from hopvista.errors import UserError
from hopvista.model.dataset import sha256_file
from hopvista.sources import SourceOptions
from hopvista.sources.panel.pack import PANEL_FILE, TEXTS_FILE, data_folder, texts_path
from hopvista.sources.panel.stated import columns_stated
from hopvista.sources.panel.table import Panel, read_panel
from hopvista.sources.panel.texts import read_texts
from hopvista.sources.prose import prose_facts
from hopvista.world import Chunk, Entity, World

__all__ = ["load_panel"]


def _window(panel: Panel, years: tuple[int, int] | None) -> list[int]:
    """The periods of the panel inside ``--years FIRST-LAST`` (all without it)."""
    if years is None:
        return list(panel.periods)
    if not panel.has_period:
        raise UserError(f"--years: {panel.path} has no period column")
    first, last = years
    inside = [p for p in panel.periods if first <= p <= last]
    if not inside:
        raise UserError(f"--years {first}-{last}: no period of {panel.path} lies inside "
                        f"(it has {panel.periods[0]}-{panel.periods[-1]})")
    return inside


def _chunks(pack: DomainPack, panel: Panel, values: dict[str, dict[str, list[Decimal | None]]],
            options: SourceOptions) -> tuple[dict[str, list[Chunk]], dict[str, Any]]:
    """The chunks of ``texts.jsonl`` with their facts, and the report of what they gave:
    passages and facts per entity, and why each passage without a fact gave none."""
    folder = data_folder(pack, options)
    path = texts_path(folder)
    if path is None:
        raise UserError(f"{folder}: no {TEXTS_FILE}, but the domain has documents "
                        "(set documents: false)")
    names = dict(panel.entities)
    words = pack.spec.entity
    nouns = list(dict.fromkeys([*words.noun_list(), words.singular]))
    precision = {c.key: c.precision for c in pack.spec.columns}
    chunks: dict[str, list[Chunk]] = {}
    per_entity: dict[str, dict[str, int]] = {e: {"passages": 0, "facts": 0} for e in names}
    without: list[dict[str, Any]] = []
    for line in read_texts(path, panel):
        own = chunks.setdefault(line.entity, [])
        chunk_id = f"{line.entity}-{line.section}-{len(own) + 1}"
        series = values[line.entity]

        def states_data(sentence: str, series: Mapping[str, Any] = series) -> bool:
            return bool(columns_stated(sentence, series, precision))

        found = prose_facts(line.entity, chunk_id, line.text, [names[line.entity]], nouns,
                            states_data=states_data)
        own.append(Chunk(
            id=chunk_id, entity=line.entity, section=line.section, period=line.period,
            text=line.text, columns_stated=columns_stated(line.text, series, precision),
            facts=found.facts))
        per_entity[line.entity]["passages"] += 1
        per_entity[line.entity]["facts"] += len(found.facts)
        if not found.facts:
            without.append({"line": line.line, "chunk": chunk_id,
                            "reason": found.reason or "no fact found"})
    report = {"passages": sum(e["passages"] for e in per_entity.values()),
              "facts": sum(e["facts"] for e in per_entity.values()),
              "entities": per_entity, "without_facts": without}
    return chunks, report


def load_panel(pack: DomainPack, seed: int, options: SourceOptions) -> World:
    """The world of the data folder: entities, periods and values from ``panel.csv``, text
    chunks and their facts from ``texts.jsonl`` (when the domain has documents).

    The data is read as it is, so ``seed`` changes nothing here.
    """
    del seed
    folder = data_folder(pack, options)
    panel = read_panel(folder / PANEL_FILE, pack.has_periods)
    columns = pack.columns()
    if len(columns) != len(panel.columns):
        raise UserError(f"{folder / PANEL_FILE}: {len(panel.columns)} numeric columns, but "
                        f"the pack has {len(columns)} (was it fitted to this folder?)")
    periods = _window(panel, options.years)
    keep = [panel.periods.index(p) for p in periods]
    values = {
        entity: {key: [series[c.key][k] for k in keep]
                 for key, c in zip(columns, panel.columns, strict=True)}
        for entity, series in panel.values.items()}
    chunks: dict[str, list[Chunk]] = {}
    provenance: dict[str, object] = {"panel": {"file": PANEL_FILE, "sha256": panel.sha256}}
    if pack.spec.documents:
        chunks, report = _chunks(pack, panel, values, options)
        texts = texts_path(folder)
        if chunks and texts is not None:
            provenance["texts"] = {"file": TEXTS_FILE, "sha256": sha256_file(texts)} | report
    return World(
        domain=pack.name, source="panel",
        entities=[Entity(id=entity, name=name) for entity, name in panel.entities],
        periods=periods if panel.has_period else [0],
        columns=columns, values=values, chunks=chunks, provenance=provenance,
        period_axis=panel.has_period)
