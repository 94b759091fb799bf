"""``gen preview``: a static HTML contact sheet of a dataset's items."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import jinja2

from hopvista.errors import UserError
from hopvista.outdir import write_atomic

PREVIEW_NAME = "preview.html"

_TEMPLATE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy"
      content="default-src 'none'; img-src 'self' file: data:; style-src 'unsafe-inline'">
<title>{{ title }}</title>
<style>
body { font-family: "DejaVu Sans", sans-serif; margin: 24px; color: #222; }
.item { border: 1px solid #ccc; border-radius: 6px; padding: 12px 16px; margin: 0 0 20px; }
.item h2 { font-size: 16px; margin: 0 0 8px; }
.images { display: flex; gap: 16px; flex-wrap: wrap; align-items: flex-start; }
.images img { max-width: 640px; border: 1px solid #eee; }
.true { color: #176f2c; } .false { color: #a32020; }
.meta { color: #666; font-size: 13px; }
details { margin: 8px 0; } pre { white-space: pre-wrap; font-size: 13px; }
</style></head><body>
<h1>{{ title }}</h1>
<p class="meta">{{ items|length }} item(s) shown of {{ total }}.</p>
{% for item in items %}
<section class="item" id="{{ item.id }}">
  <h2>{{ item.id }} <span class="meta">{{ item.difficulty }} · answer:
    {{ item.answer|join(", ") if item.answer else "none" }}</span></h2>
  <div class="images">
    {% for src in item.srcs %}
    <img src="{{ src }}" alt="{{ item.id }} image {{ loop.index }}">
    {% endfor %}
  </div>
  <ol>
  {% for s in item.statements %}
    <li class="{{ 'true' if s.label else 'false' }}">[{{ s.type }}] {{ s.text }}
      <span class="meta">({{ 'true' if s.label else 'false' }})</span></li>
  {% endfor %}
  </ol>
  <details><summary>Text</summary>
  {% for t in item.inputs.text %}<pre>{{ names[item.id][t.entity] }}: {{ t.text }}</pre>{% endfor %}
  </details>
</section>
{% endfor %}
</body></html>
"""


def write_preview(root: Path, out: Path | None = None, limit: int = 100) -> Path:
    """Write the contact sheet of the first ``limit`` items; return its path."""
    items_path = root / "items.jsonl"
    if not items_path.is_file():
        raise UserError(f"{root}: no items.jsonl (not a hopvista dataset)")
    target = out or root / PREVIEW_NAME
    if not target.parent.is_dir():
        raise UserError(f"--out {target}: folder {target.parent} does not exist")
    try:
        lines = items_path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise UserError(f"{items_path}: not UTF-8 text ({exc.reason})") from None
    items: list[dict[str, Any]] = []
    for number, line in enumerate(lines[:limit], start=1):
        try:
            item = json.loads(line)
        except ValueError as exc:
            raise UserError(f"{items_path}:{number}: not valid JSON ({exc})") from None
        if not isinstance(item, dict) or "id" not in item or "entities" not in item:
            raise UserError(f"{items_path}:{number}: not a hopvista item")
        items.append(item)
    base = target.resolve().parent
    for item in items:
        item["srcs"] = [Path(os.path.relpath((root / p).resolve(), base)).as_posix()
                        for p in item.get("images", [])]
    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)
    html = env.from_string(_TEMPLATE).render(
        title=f"hopvista preview: {root.name}", items=items, total=len(lines),
        names={i["id"]: {e["id"]: e["name"] for e in i["entities"]} for i in items})
    write_atomic(target, html.encode("utf-8"))
    return target
