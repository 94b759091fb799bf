"""Page images for the ``image-only`` setting: an item's inputs on one page.

A dataset that has an image of role ``page`` (a screenshot variant) is shown that image. For
one that has none, the evaluator draws the page itself: the text passages (escaped), then the
table image and the chart image, in a sealed Chromium context (JavaScript off, every request
aborted; the images are inlined). The pages go into the run folder (``pages/ID.png``), so a
rerun shows the model the same bytes.
"""

from __future__ import annotations

import base64
import html
from collections.abc import Sequence
from pathlib import Path

from hopvista.errors import UserError
from hopvista.model import Item
from hopvista.model.dataset import Dataset
from hopvista.output import atomic

WIDTH = 1280
STYLE = ("body{margin:24px;font-family:'DejaVu Sans',sans-serif;font-size:15px;color:#111;"
         "background:#fff;width:1200px}h2{font-size:16px;margin:18px 0 6px}"
         "p{margin:0 0 10px;line-height:1.4;white-space:pre-wrap}img{display:block;"
         "max-width:1200px;margin:8px 0}")


def page_html(item: Item, dataset: Dataset) -> str:
    """The page of ``item``: its texts, then its table and chart images."""
    names = {e.id: e.name for e in item.entities}
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><style>{STYLE}</style>"
             "</head><body>"]
    for chunk in item.inputs.text:
        parts.append(f"<h2>{html.escape(names.get(chunk.entity, chunk.entity))}</h2>"
                     f"<p>{html.escape(chunk.text)}</p>")
    for role in ("table", "chart"):
        path = dataset.image_path(item, role)
        if path is None or not path.is_file():
            continue
        data = base64.b64encode(path.read_bytes()).decode("ascii")
        parts.append(f"<img alt='{role}' src='data:image/png;base64,{data}'>")
    parts.append("</body></html>")
    return "".join(parts)


def pages_to_draw(items: Sequence[Item], dataset: Dataset, folder: Path) -> list[Item]:
    """The items that have no page image of their own and no page in ``folder`` yet
    (``folder/ID.png``); ``UserError`` when one of them has no table image to draw it from."""
    todo = [item for item in items if dataset.image_path(item, "page") is None
            and not (folder / f"{item.id}.png").is_file()]
    if any(dataset.image_path(item, "table") is None for item in todo):
        raise UserError(f"{dataset.root}: image-only needs the items' table and chart images "
                        "to draw their pages (built with --no-images?)")
    return todo


def draw_pages(items: Sequence[Item], dataset: Dataset, folder: Path) -> None:
    """Draw the page of each item that has no page image of its own and no page in
    ``folder`` yet (``folder/ID.png``)."""
    todo = pages_to_draw(items, dataset, folder)
    if not todo:
        return
    # heavy: playwright
    from hopvista.render.browser import (
        acquire_playwright,
        launch_browser,
        new_context,
        release_playwright,
    )

    folder.mkdir(parents=True, exist_ok=True)
    playwright = acquire_playwright()
    try:
        browser = launch_browser(playwright)
        try:
            context = new_context(browser, viewport=(WIDTH, 800))
            page = context.new_page()
            for item in todo:
                page.set_content(page_html(item, dataset), wait_until="load")
                atomic.write_atomic(folder / f"{item.id}.png", page.screenshot(full_page=True))
            context.close()
        finally:
            browser.close()
    finally:
        release_playwright()
