"""Benchmark `gen build mmtables` with images: images per second, side by side with a bare
loop of the same work in the same run.

The build (in this process, ``--workers`` processes) writes each item's table image and each
picture alone. The bare loop then does the same drawing and screenshots with no hopvista
around them: every picture of every item drawn by its kind (``VISUAL_KINDS``) at the size the
table shows it and at the size it is written alone, and one Playwright screenshot of each
item's table page (the very pages the build shot, made beforehand, untimed) in one warm
Chromium, JavaScript off. Both count the same images (a table image and the cell images of
each item); the ratio is build / bare images per second.

    python scripts/bench_mmtables.py -n 48 --seed 1
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from hopvista.cli.main import main as gen
from hopvista.mmtables.images import VIEWPORT
from hopvista.model.dataset import load
from hopvista.render.browser import launch_browser
from hopvista.render.mmtable import CELL_IMAGE_PX, mmtable_document, visual_size_px
from hopvista.render.table import parse_style
from hopvista.themes.visuals import VISUAL_KINDS


def timed_build(out: Path, count: int, seed: int, workers: int) -> float:
    """Wall seconds of ``gen build mmtables`` with images into ``out``."""
    start = time.perf_counter()
    code = gen(["build", "mmtables", "-n", str(count), "--seed", str(seed),
                "--workers", str(workers), "--out", str(out)])
    if code != 0:
        raise SystemExit(f"the build failed with exit code {code}")
    return time.perf_counter() - start


def bare_loop(out: Path) -> tuple[float, int]:
    """Wall seconds and images of the bare loop over the items the build wrote."""
    from playwright.sync_api import sync_playwright

    items = list(load(out))
    work = []
    for item in items:
        style = parse_style(item.variant.style["table"])
        html, _ = mmtable_document(item.inputs.table, item.inputs.visuals,  # type: ignore[arg-type]
                                   style, item.id)
        work.append((html, visual_size_px(style), item.inputs.visuals))
    images = 0
    with sync_playwright() as playwright:
        browser = launch_browser(playwright)
        page = browser.new_page(viewport={"width": VIEWPORT[0], "height": VIEWPORT[1]},
                                java_script_enabled=False)
        start = time.perf_counter()
        for html, size_px, visuals in work:
            for visual in visuals:
                kind = VISUAL_KINDS.get(visual.kind)
                kind.draw(visual.attributes, size_px)
                kind.draw(visual.attributes, CELL_IMAGE_PX)
            page.set_content(html, wait_until="load")
            page.locator("#hv-root").screenshot()
            images += 1 + len(visuals)
        seconds = time.perf_counter() - start
        browser.close()
    return seconds, images


def main() -> None:
    """Run the build and the bare loop; print both rates and their ratio."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-n", "--count", type=int, default=48)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="bench-mmtables-"))
    try:
        out = root / "mm"
        build_s = timed_build(out, args.count, args.seed, args.workers)
        written = sum(len(item.images) for item in load(out))
        bare_s, bare_images = bare_loop(out)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    build_rate, bare_rate = written / build_s, bare_images / bare_s
    print(f"gen build mmtables -n {args.count} --workers {args.workers}: {written} images in "
          f"{build_s:.2f} s = {build_rate:.1f} images/s")
    print(f"bare loop (the same drawing and {args.count} screenshots, one warm Chromium): "
          f"{bare_images} images in {bare_s:.2f} s = {bare_rate:.1f} images/s")
    print(f"build / bare: {build_rate:.1f} / {bare_rate:.1f} = {build_rate / bare_rate:.2f}")


if __name__ == "__main__":
    main()
