"""Markup tasks (HighlightBench's five families, T1–T5) over any table: ``gen markup``.

A markup task shows one table image with some cells marked (highlighted in a named colour,
underlined or bold) and asks a question whose answer is a strict JSON object. The subtasks are
registered in :data:`hopvista.markup_tasks.subtasks.MARKUP_TASKS` (one module per family:
``grounding``, ``retrieval``, ``relations``, ``aggregation``, ``missingness``); tables come
from a domain's world or from an existing dataset (:mod:`hopvista.markup_tasks.tables`); the build
itself is :mod:`hopvista.markup_tasks.build`. ``gen verify`` re-derives every answer by executing
the
item's program (:mod:`hopvista.program.marks`).
"""
