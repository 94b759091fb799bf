"""The panel source's loader: ``panel.csv`` (+ ``texts.jsonl``) of a data folder as a World.

The pack it gets has been fitted to the folder by :func:`hopvista.sources.panel.pack.
panel_pack` (one pack column per CSV column, in CSV order). Each line of ``texts.jsonl`` is one
chunk; its facts are extracted by the rules used for 10-K text
(:func:`hopvista.sources.sec.facts.extract_entity_facts`), with the entity's name and the
domain's nouns ("the city") as the subjects a sentence may have.
"""

from __future__ import annotations

from decimal import Decimal

from hopvista.atomic import sha256_file
from hopvista.domain import DomainPack
from hopvista.errors import UserError
from hopvista.sources import SourceOptions
from hopvista.sources.panel.pack import PANEL_FILE, TEXTS_FILE, data_folder, texts_path
from hopvista.sources.panel.stated import columns_stated
from hopvista.sources.panel.table import Panel, read_panel
from hopvista.sources.panel.texts import read_texts
from hopvista.sources.sec.facts import extract_entity_facts
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
            options: SourceOptions) -> dict[str, list[Chunk]]:
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
    for line in read_texts(path, panel):
        own = chunks.setdefault(line.entity, [])
        chunk_id = f"{line.entity}-{line.section}-{len(own) + 1}"
        own.append(Chunk(
            id=chunk_id, entity=line.entity, section=line.section, period=line.period,
            text=line.text, columns_stated=columns_stated(line.text, values[line.entity],
                                                          precision),
            facts=tuple(extract_entity_facts(line.entity, chunk_id, line.text,
                                             [names[line.entity]], nouns))))
    return chunks


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
    chunks = _chunks(pack, panel, values, options) if pack.spec.documents else {}
    provenance: dict[str, object] = {"panel": {"file": PANEL_FILE, "sha256": panel.sha256}}
    texts = texts_path(folder)
    if chunks and texts is not None:
        provenance["texts"] = {"file": TEXTS_FILE, "sha256": sha256_file(texts)}
    return World(
        domain=pack.name, source="panel",
        entities=[Entity(id=entity, name=name) for entity, name in panel.entities],
        periods=periods if panel.has_period else [0],
        columns=columns, values=values, chunks=chunks, provenance=provenance,
        period_axis=panel.has_period)
