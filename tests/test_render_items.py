"""A worker's item renderer: what it does to keep its browser small leaves the images alone."""

from __future__ import annotations

import json
import time
from pathlib import Path

import psutil
import pytest

from hopvista.model import Item


def _renderer_pids() -> set[int]:
    return {p.pid for p in psutil.Process().children(recursive=True)
            if "--type=renderer" in " ".join(p.cmdline())}


@pytest.mark.slow  # the 48-item build, then a browser
def test_renewed_pages_draw_the_builds_own_bytes_in_a_new_renderer_process(
        hard48: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import hopvista.render.item_images as item_images

    monkeypatch.setattr(item_images, "RENEW_EVERY", 2)
    items = [Item.model_validate(json.loads(line))
             for line in (hard48 / "items.jsonl").read_text().splitlines()[:6]]
    with item_images.ItemRenderer() as renderer:
        first = _renderer_pids()
        drawn = renderer.render_many(items[:2], tmp_path)  # then its pages are renewed
        for _ in range(50):  # the old renderer process ends
            if not first & _renderer_pids():
                break
            time.sleep(0.1)
        assert first and not first & _renderer_pids()
        for k in (2, 4):
            drawn += renderer.render_many(items[k:k + 2], tmp_path)
    assert [image.path for item in drawn for image in item.images] == \
        [image.path for item in items for image in item.images]
    for item in items:
        for image in item.images:
            assert (tmp_path / image.path).read_bytes() == (hard48 / image.path).read_bytes()
