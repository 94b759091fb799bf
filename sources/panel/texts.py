"""Reading ``texts.jsonl``: one passage of text per line, about one entity of the panel.

Each non-blank line is a JSON object ``{"entity": NAME, "text": TEXT}``, optionally with
``"section"`` (a short name such as ``"profile"``; default ``"text"``) and ``"period"`` (an
integer period of the panel the passage speaks of; default the last period). ``entity`` is an
entity's name as written in ``panel.csv`` (or its id). Each line becomes one text chunk; the
facts of a chunk are extracted by rule (see :mod:`hopvista.sources.panel.facts`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from hopvista.errors import UserError, one_line
from hopvista.sources.panel.table import Panel, read_utf8

__all__ = ["TextLine", "read_texts"]

_KEYS = {"entity", "text", "section", "period"}


@dataclass(frozen=True)
class TextLine:
    """One passage: the line it came from, its entity's id, section, period and text."""

    line: int
    entity: str
    section: str
    period: int
    text: str


def _field(path: Path, number: int, record: dict[str, object], key: str) -> str:
    value = record.get(key)
    if not isinstance(value, str) or not value.strip():
        raise UserError(f"{path}:{number}: field {key!r} must be a non-empty string")
    return value


def read_texts(path: Path, panel: Panel) -> list[TextLine]:
    """The passages of ``texts.jsonl`` at ``path``, checked against ``panel``'s entities."""
    text, _ = read_utf8(path)
    out: list[TextLine] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise UserError(f"{path}:{number}: invalid JSON: {exc.msg} (column "
                            f"{exc.colno})") from None
        except RecursionError:
            raise UserError(f"{path}:{number}: invalid JSON: nested too deeply") from None
        if not isinstance(record, dict):
            raise UserError(f"{path}:{number}: expected a JSON object "
                            '{"entity": ..., "text": ...}')
        unknown = sorted(set(record) - _KEYS)
        if unknown:
            raise UserError(f"{path}:{number}: unknown field {one_line(unknown[0])!r} "
                            f"(fields: {', '.join(sorted(_KEYS))})")
        name = _field(path, number, record, "entity")
        body = _field(path, number, record, "text")
        entity = panel.entity_id(name)
        if entity is None:
            raise UserError(f"{path}:{number}: unknown entity {one_line(name)!r} (not in "
                            f"{panel.path.name})")
        section = "text"
        if "section" in record:
            section = _field(path, number, record, "section")
            if not re.fullmatch(r"[A-Za-z0-9_\-]{1,40}", section):
                raise UserError(f"{path}:{number}: field 'section' must be a short name "
                                "(letters, digits, '-' or '_')")
        period = panel.periods[-1]
        if "period" in record:
            given = record["period"]
            if not isinstance(given, int) or isinstance(given, bool) \
                    or given not in panel.periods:
                raise UserError(f"{path}:{number}: field 'period' must be one of the "
                                f"periods of {panel.path.name} (got {one_line(repr(given))})")
            period = given
        out.append(TextLine(line=number, entity=entity, section=section, period=period,
                            text=body))
    return out
