"""``gen preview``: a static HTML contact sheet of a dataset's items."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import jinja2

from hopvista.errors import UserError
from hopvista.model.dataset import MISSING, PREVIEW_NAME, dataset_file_problem, read_manifest
from hopvista.model.format import FORMAT_VERSION
from hopvista.model.migrate import migrate_item
from hopvista.output.files import OutputFile, html_generator_tag, html_written_by

_HEAD = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
{{ marker|safe }}
<meta http-equiv="Content-Security-Policy"
      content="default-src 'none'; img-src 'self' file: data:; style-src 'unsafe-inline'">
<title>{{ title }}</title>
"""
"""The head both pages share: the preview marker, a policy that loads nothing but the
dataset's images, the title."""

_TEMPLATE = _HEAD + """<style>
body { font-family: "DejaVu Sans", sans-serif; margin: 24px; color: #222; }
.item { border: 1px solid #ccc; border-radius: 6px; padding: 12px 16px; margin: 0 0 20px; }
.item h2 { font-size: 16px; margin: 0 0 8px; }
.images { display: flex; gap: 16px; flex-wrap: wrap; align-items: flex-start; }
.images img { max-width: 640px; border: 1px solid #eee; }
figure { margin: 0; }
.true { color: #176f2c; } .false { color: #a32020; }
.meta { color: #666; font-size: 13px; }
details { margin: 8px 0; } pre { white-space: pre-wrap; font-size: 13px; }
</style></head><body>
<h1>{{ title }}</h1>
<p class="meta">{{ items|length }} item(s) shown of {{ total }}.</p>
{% for item in items %}
<section class="item" id="{{ item.id }}">
  <h2>{{ item.id }} <span class="meta">{{ item.difficulty }} · answer:
    {{ item.answer }}</span></h2>{% if item.question %}
  <p>{{ item.question }}</p>{% endif %}{% if item.tags %}
  <p class="meta">{{ item.tags }}</p>{% endif %}
  <div class="images">
    {% for role, src in item.srcs %}
    <figure><img src="{{ src }}" alt="{{ item.id }} {{ role }}">
      <figcaption class="meta">{{ role }}</figcaption></figure>
    {% endfor %}
  </div>
  <ol>
  {% for s in item.statements %}
    <li class="{{ 'true' if s.label else 'false' }}">[{{ s.type }}] {{ s.text }}
      <span class="meta">({{ 'true' if s.label else 'false' }})</span></li>
  {% endfor %}
  </ol>
  <details><summary>Text</summary>
  {% for t in item.texts %}
  <pre>{{ names[item.id].get(t.entity, "?") }}: {{ t.text }}</pre>
  {% endfor %}
  </details>
</section>
{% endfor %}
</body></html>
"""


PREVIEW_GENERATOR = "hopvista-preview"
PREVIEW_MARKER = html_generator_tag(PREVIEW_GENERATOR)
"""The tag in a preview's head: the mark of a page ``gen preview`` may replace."""

_SHEET = _HEAD + """<style>
body { font-family: "DejaVu Sans", sans-serif; margin: 24px; color: #222; }
.base { border: 1px solid #ccc; border-radius: 6px; padding: 12px 16px; margin: 0 0 24px; }
.base h2 { font-size: 16px; margin: 0 0 6px; }
.strip { display: flex; gap: 14px; overflow-x: auto; align-items: flex-start; }
.variant { flex: 0 0 auto; border: 1px solid #eee; padding: 6px; max-width: 420px; }
.variant img { max-width: 400px; max-height: 320px; display: block; margin: 0 0 4px; }
.variant h3 { font-size: 13px; margin: 0 0 4px; }
.source table { border-collapse: collapse; font-size: 11px; }
.source td, .source th { border: 1px solid #ccc; padding: 1px 4px; }
.meta { color: #666; font-size: 12px; } pre { white-space: pre-wrap; font-size: 12px; }
</style></head><body>
<h1>{{ title }}</h1>
<p class="meta">{{ groups|length }} base(s) shown, each beside its variants.</p>
{% for group in groups %}
<section class="base" id="{{ group.base_id }}">
  <h2>{{ group.base_id }}</h2>
  <p>{{ group.question }}</p>
  <p class="meta">answer: {{ group.answer }}</p>
  <div class="strip">
  {% if group.source %}
    <div class="variant source"><h3>source table</h3><table>
      <tr>{% for h in group.source[0] %}<th>{{ h }}</th>{% endfor %}</tr>
      {% for row in group.source[1:] %}<tr>{% for c in row %}<td>{{ c }}</td>{% endfor %}</tr>
      {% endfor %}</table></div>
  {% endif %}
  {% for v in group.variants %}
    <div class="variant" data-variant="{{ v.name }}"><h3>{{ v.name }}
      <span class="meta">{{ v.recipe }}</span></h3>
      {% for role, src in v.srcs %}<img src="{{ src }}" alt="{{ v.id }} {{ role }}">{% endfor %}
      <div class="meta">{{ v.summary }}</div></div>
  {% endfor %}
  </div>
</section>
{% endfor %}
</body></html>
"""


def preview_target(root: Path, out: Path | None) -> OutputFile:
    """Where the preview of ``root`` goes; refuse anything but a new or earlier preview page.

    ``out`` may name an ``.html`` file or a folder (the page is then ``FOLDER/preview.html``).
    Inside a dataset only ``root/preview.html`` may be written (not a page inside another
    dataset), so no dataset file is ever replaced and ``gen verify`` keeps passing; the other
    rules are :class:`hopvista.output.files.OutputFile`'s.
    """
    target = root / PREVIEW_NAME if out is None else out
    if out is not None and _is_folder(out):
        target = out / PREVIEW_NAME
    output = OutputFile(target, "" if out is None else "--out", "a hopvista preview",
                        html_written_by(PREVIEW_GENERATOR), inputs=(root,),
                        exempt=root / PREVIEW_NAME)
    if target.suffix.lower() not in (".html", ".htm"):
        raise UserError(f"{output.shown}: a preview is an .html file; name one (or a folder)")
    output.check()
    return output


def _is_folder(path: Path) -> bool:
    """Whether ``path`` is a folder itself (not a symlink to one); ``False`` for a path that
    cannot be looked at (the check of the page then names why)."""
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def _read_items(items_path: Path, limit: int) -> tuple[list[dict[str, Any]], int]:
    """The first ``limit`` items of ``items_path`` and the number of lines in it."""
    items: list[dict[str, Any]] = []
    total = 0
    try:
        with items_path.open(encoding="utf-8") as fh:
            for number, line in enumerate(fh, start=1):
                total = number
                if number > limit:
                    continue
                try:
                    item = json.loads(line)
                except (ValueError, RecursionError) as exc:
                    raise UserError(f"{items_path}:{number}: not valid JSON "
                                    f"({type(exc).__name__})") from None
                if not isinstance(item, dict) or not isinstance(item.get("id"), str) or \
                        not isinstance(item.get("entities"), list):
                    raise UserError(f"{items_path}:{number}: not a hopvista item")
                items.append(item)
    except UnicodeDecodeError as exc:
        raise UserError(f"{items_path}: not UTF-8 text ({exc.reason})") from None
    except OSError as exc:
        raise UserError(f"{items_path}: cannot read it: {exc.strerror}") from None
    return items, total


def _image_sources(item: dict[str, Any], root: Path, base: Path) -> list[tuple[str, str]]:
    """The item's images as (role, path relative to the page); only files inside the
    dataset, in the item's order."""
    sources = []
    inside = root.resolve()
    for image in item.get("images") or []:
        if not isinstance(image, dict):
            continue
        role, name = image.get("role"), image.get("path")
        if not isinstance(role, str) or not isinstance(name, str):
            continue
        path = (root / name).resolve()
        if inside in path.parents:
            sources.append((role, Path(os.path.relpath(path, base)).as_posix()))
    return sources


def _current(items: list[dict[str, Any]], root: Path) -> list[dict[str, Any]]:
    """``items`` in the current format: a dataset of an older version is migrated (an item
    that cannot be is shown as it is, without images)."""
    try:
        manifest = read_manifest(root)
    except UserError:
        return items
    if manifest["format_version"] == FORMAT_VERSION:
        return items
    current = []
    for item in items:
        try:
            current.append(migrate_item(item, manifest))
        except (ValueError, TypeError, AttributeError):
            current.append(dict(item, images=[]))
    return current


def _names(item: dict[str, Any]) -> dict[str, str]:
    return {str(e.get("id")): str(e.get("name")) for e in item["entities"] if isinstance(e, dict)}


def write_preview(root: Path, out: Path | None = None, limit: int = 100) -> Path:
    """Write the contact sheet of the first ``limit`` items; return its path."""
    if limit < 1:
        raise UserError(f"--limit {limit}: must be at least 1")
    items_path = root / "items.jsonl"
    for name in ("items.jsonl", "manifest.json"):
        why = dataset_file_problem(root, name)
        if why == MISSING and name == "items.jsonl":
            raise UserError(f"{root}: no items.jsonl (not a hopvista dataset)")
        if why is not None and why != MISSING:
            raise UserError(f"{root / name}: {why}")
    output = preview_target(root, out)
    if _has_variants(items_path):
        return _write_sheet(root, items_path, output, limit)
    items, total = _read_items(items_path, limit)
    items = _current(items, root)
    base = _page_folder(output.path)
    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)
    try:
        shown = [{"id": item["id"], "difficulty": item.get("difficulty", ""),
                  "answer": _answer_text(item.get("answer")),
                  "question": "" if item.get("statements") else str(item.get("question", "")),
                  "tags": " · ".join(f"{k}: {v}" for k, v in (item.get("tags") or {}).items()),
                  "statements": item.get("statements") or [],
                  "texts": (item.get("inputs") or {}).get("text") or [],
                  "srcs": _image_sources(item, root, base)} for item in items]
        html = env.from_string(_TEMPLATE).render(
            title=f"hopvista preview: {root.resolve().name}", items=shown, total=total,
            marker=PREVIEW_MARKER, names={i["id"]: _names(i) for i in items})
    except (jinja2.UndefinedError, TypeError, AttributeError, KeyError) as exc:
        raise UserError(f"{items_path}: an item lacks a field the preview shows ({exc})") \
            from None
    return output.write(html.encode("utf-8"))


def _answer_text(answer: Any) -> str:
    """An answer as the page shows it: a statement item's true statements ("1, 3", or
    "none"); any other answer as JSON."""
    if isinstance(answer, list) and all(isinstance(a, int) for a in answer):
        return ", ".join(map(str, answer)) if answer else "none"
    if answer is None:
        return "none"
    return json.dumps(answer, ensure_ascii=False)


def _page_folder(page: Path) -> Path:
    """The real folder the page will be in (it may not exist yet), to link images from."""
    return Path(os.path.realpath(page.parent))


def _has_variants(items_path: Path) -> bool:
    """Whether the dataset's first item is a variant made by a recipe (an augmented dataset
    starts with a base item followed by its variants, or with a variant)."""
    try:
        with items_path.open(encoding="utf-8") as fh:
            for _, line in zip(range(2), fh, strict=False):
                item = json.loads(line)
                if isinstance(item, dict) and (item.get("variant") or {}).get("recipe"):
                    return True
    except (OSError, ValueError, UnicodeDecodeError, RecursionError):
        return False
    return False


def _source_rows(item: dict[str, Any]) -> list[list[str]] | None:
    """An imported record's table as rows of text (the header first), or ``None``."""
    table = (item.get("inputs") or {}).get("table") or {}
    if "header" not in table:
        return None
    return [list(map(str, table["header"]))] + [list(map(str, r)) for r in table["rows"]]


def _summary(variant: dict[str, Any]) -> str:
    shown = {k: v for k, v in (variant.get("parameters") or {}).items()
             if k not in ("params", "layout", "cells")}
    text = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in shown.items())
    names = [p.get("name") for p in variant.get("perturbations") or [] if isinstance(p, dict)]
    if names:
        text += (" · " if text else "") + "+".join(str(n) for n in names)
    return text[:300]


def _write_sheet(root: Path, items_path: Path, output: OutputFile, limit: int) -> Path:
    """The contact sheet of an augmented dataset: each base beside its variants."""
    groups: dict[str, dict[str, Any]] = {}
    base = _page_folder(output.path)
    try:
        with items_path.open(encoding="utf-8") as fh:
            for number, line in enumerate(fh, start=1):
                try:
                    item = json.loads(line)
                    base_id = str(item["base_id"])
                    variant = item.get("variant") or {}
                except (ValueError, KeyError, TypeError, RecursionError) as exc:
                    raise UserError(f"{items_path}:{number}: not a hopvista item "
                                    f"({type(exc).__name__})") from None
                if base_id not in groups:
                    if len(groups) == limit:
                        break
                    answer = item.get("answer")
                    groups[base_id] = {
                        "base_id": base_id, "question": str(item.get("question", "")),
                        "answer": json.dumps(answer, ensure_ascii=False),
                        "source": _source_rows(item), "variants": []}
                groups[base_id]["variants"].append({
                    "id": item["id"], "name": str(variant.get("name", "")),
                    "recipe": str(variant.get("recipe") or "base"),
                    "summary": _summary(variant), "srcs": _image_sources(item, root, base)})
    except UnicodeDecodeError as exc:
        raise UserError(f"{items_path}: not UTF-8 text ({exc.reason})") from None
    except OSError as exc:
        raise UserError(f"{items_path}: cannot read it: {exc.strerror}") from None
    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)
    html = env.from_string(_SHEET).render(
        title=f"hopvista variants: {root.resolve().name}", groups=list(groups.values()),
        marker=PREVIEW_MARKER)
    return output.write(html.encode("utf-8"))
