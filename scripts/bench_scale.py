"""The build-scale figures, side by side in one run, as ratios (never against another day's number).

1. **Near the limit**: ``gen build financial -n N --workers W`` (the whole pipeline: sampling,
   HTML, screenshots, charts in three libraries, PNG encoding, hashing, writing, Parquet,
   audit) against a *bare loop of the same image work*: W processes, each with one warm
   Chromium (Playwright, the build's sealed context) and a warm kaleido, make the build's own
   images — per item ``set_content`` of the build's table page and an element screenshot, and
   its chart drawn by its library — written as PNGs; the pages are made before the clock
   starts. Ratio: bare wall time / pipeline wall time (target ≥ 0.8). Also printed, as
   ``simple``: the issue's first bare loop, a plain 15×8 table and a matplotlib bar chart per
   item, which does less image work than the build.
2. **Against the naive way**: a pipeline that launches a browser per image (a fresh Chromium
   per table shot, ``fig.to_image()`` per plotly chart), on a sample of items, against the
   build's seconds per item (target ≥ 6×); and plotly export through hopvista's warm kaleido
   against ``fig.to_image()`` per figure (target ≥ 10×).
3. **Memory**: the peak summed PSS of the build's process tree (browsers included), at each
   ``--sizes`` (target: flat within 20%, under 1.5 GB at two workers).
4. **FCMR scale** (``--fcmr``): 2,199 items in three builds of FCMR's levels (757 easy, 728
   medium, 714 hard) at ``--workers W`` (target: under 6 minutes); after each, the bare loop
   of that build's own image work (as in 1), so the report says how much of FCMR's minutes
   the images alone take on this machine at this hour (``bare_s``, ``ratio``).

    python scripts/bench_scale.py -n 200 --workers 2
    python scripts/bench_scale.py -n 200 --workers 2 --sizes 200 5000 --fcmr
"""

from __future__ import annotations

import argparse
import io
import json
import multiprocessing
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_build import measure  # noqa: E402

ROWS, COLS = 15, 8
FCMR_LEVELS = ((1, 757), (2, 728), (3, 714))


def table_html(k: int) -> str:
    """A plain 15×8 table (values vary with ``k``)."""
    head = "".join(f"<th>Column {c}</th>" for c in range(COLS))
    body = "".join("<tr>" + "".join(f"<td>{(r * 37 + c * 11 + k) % 1000:,}.{c}</td>"
                                    for c in range(COLS)) + "</tr>" for r in range(ROWS))
    return ("<html><head><style>body{margin:0;font-family:'Liberation Sans'}"
            "table{border-collapse:collapse;margin:8px}td,th{border:1px solid #999;"
            "padding:3px 8px}</style></head><body><table id='t'><tr>" + head + "</tr>"
            + body + "</table></body></html>")


def _bar_png(k: int) -> bytes:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.4, 4.8), dpi=100)
    ax = fig.add_subplot()
    years = list(range(2019, 2024))
    for s in range(3):
        ax.bar([y + 0.25 * s for y in years], [(k * 7 + s * 13 + y) % 50 + 10 for y in years],
               width=0.25, label=f"Company {s}")
    ax.legend()
    ax.set_title("Revenue")
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    return buffer.getvalue()


def _bare_worker(args: tuple[int, int, str]) -> int:
    first, count, folder = args
    from playwright.sync_api import sync_playwright

    from hopvista.render.browser import chromium_executable

    out = Path(folder)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_executable())
        page = browser.new_page(java_script_enabled=False)
        for k in range(first, first + count):
            page.set_content(table_html(k))
            (out / f"{k}.table.png").write_bytes(page.locator("#t").screenshot())
            (out / f"{k}.chart.png").write_bytes(_bar_png(k))
        browser.close()
    return count


def _cuts(count: int, workers: int) -> list[tuple[int, int]]:
    """``[first, stop)`` of each worker's share of ``count`` items."""
    return [(i * count // workers, (i + 1) * count // workers) for i in range(workers)]


def _timed_map(worker: Any, tasks: list[Any]) -> float:
    """Wall seconds of ``worker`` over ``tasks``, one spawned process per task."""
    start = time.perf_counter()
    with multiprocessing.get_context("spawn").Pool(len(tasks)) as pool:
        pool.map(worker, tasks)
    return time.perf_counter() - start


def bare_loop(count: int, workers: int, folder: Path) -> float:
    """Wall seconds of the bare loop over ``count`` items in ``workers`` processes."""
    return _timed_map(_bare_worker, [(a, b - a, str(folder)) for a, b in _cuts(count, workers)])


def _same_work_worker(args: tuple[list[dict[str, Any]], str]) -> int:
    """The build's own images, made the bare way (see the module docstring)."""
    work, folder = args
    from playwright.sync_api import sync_playwright

    from hopvista.render.browser import launch_browser, new_context
    from hopvista.render.chart import ChartRenderer

    out = Path(folder)
    with sync_playwright() as playwright, ChartRenderer() as charts:
        browser = launch_browser(playwright)
        page = new_context(browser).new_page()
        for job in work:
            page.set_content(job["html"])
            (out / f"{job['id']}.table.png").write_bytes(page.locator("#hv-root").screenshot())
            png, _ = charts.render(job["chart"], job["names"], job["style"])
            (out / f"{job['id']}.chart.png").write_bytes(png)
        browser.close()
    return len(work)


def same_work_loop(items_jsonl: Path, workers: int, folder: Path) -> float:
    """Wall seconds of the bare loop over the images of the build in ``items_jsonl``."""
    from hopvista.render.table import parse_style, render_html

    work = []
    for line in items_jsonl.read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        names = {e["id"]: e["name"] for e in item["entities"]}
        style = item["variant"]["style"]
        work.append({"id": item["id"], "names": names, "chart": item["inputs"]["chart"],
                     "style": style["chart"],
                     "html": render_html(item["inputs"]["table"], names,
                                         parse_style(style["table"]))})
    return _timed_map(_same_work_worker,
                      [(work[a:b], str(folder)) for a, b in _cuts(len(work), workers)])


def _naive_worker(args: tuple[int, int, str]) -> int:
    """Per item: a fresh Chromium for the table shot, ``fig.to_image()`` for a plotly chart."""
    first, count, folder = args
    import plotly.graph_objects as go
    from playwright.sync_api import sync_playwright

    from hopvista.render.browser import chromium_executable

    out = Path(folder)
    with sync_playwright() as playwright:
        for k in range(first, first + count):
            browser = playwright.chromium.launch(executable_path=chromium_executable())
            page = browser.new_page(java_script_enabled=False)
            page.set_content(table_html(k))
            (out / f"{k}.table.png").write_bytes(page.locator("#t").screenshot())
            browser.close()
            fig = go.Figure([go.Bar(x=[2019, 2020, 2021], y=[k, k + 1, k + 2])])
            (out / f"{k}.chart.png").write_bytes(fig.to_image(format="png", width=640,
                                                              height=480))
    return count


def naive_loop(count: int, workers: int, folder: Path) -> float:
    """Wall seconds of the naive pipeline over ``count`` items in ``workers`` processes."""
    return _timed_map(_naive_worker, [(a, b - a, str(folder)) for a, b in _cuts(count, workers)])


def plotly_export(figures: int) -> tuple[float, float]:
    """Seconds per figure: hopvista's warm kaleido, then ``fig.to_image()``."""
    import plotly.graph_objects as go

    from hopvista.render.chart import ChartRenderer

    made = [go.Figure([go.Bar(x=[2019, 2020, 2021], y=[k, k + 1, k + 2])])
            for k in range(figures)]
    with ChartRenderer() as renderer:
        renderer.kaleido_png(made[0], 640, 480)  # warm, as a build's worker is
        start = time.perf_counter()
        for fig in made:
            renderer.kaleido_png(fig, 640, 480)
        warm = (time.perf_counter() - start) / figures
    start = time.perf_counter()
    for fig in made:
        fig.to_image(format="png", width=640, height=480)
    cold = (time.perf_counter() - start) / figures
    return warm, cold


def pipeline(count: int, workers: int, folder: Path, hops: str = "1-3",
             keep: bool = False) -> dict[str, Any]:
    """``gen build financial``: wall seconds and peak summed PSS of its process tree (the
    dataset is kept, as ``out``, when ``keep``)."""
    out = folder / f"ds-{count}-{hops}"
    command = [sys.executable, "-m", "hopvista.cli.main", "build", "financial", "-n",
               str(count), "--workers", str(workers), "--hops", hops, "--out", str(out)]
    wall, peak, code = measure(command)
    if code != 0:
        raise SystemExit(f"the build failed with exit code {code}")
    if not keep:
        shutil.rmtree(out, ignore_errors=True)
    return {"items": count, "wall_s": round(wall, 2), "peak_pss_mb": round(peak / 2**20)} | (
        {"out": out} if keep else {})


def main() -> int:
    """Run the comparisons and print one JSON report."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", "--count", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--naive", type=int, default=20, help="items of the naive pipeline")
    parser.add_argument("--figures", type=int, default=20, help="plotly figures exported")
    parser.add_argument("--sizes", type=int, nargs="*", default=[],
                        help="build sizes whose peak memory to compare (e.g. 200 5000)")
    parser.add_argument("--fcmr", action="store_true", help="time FCMR's 2,199 items")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="hopvista-scale-"))
    report: dict[str, Any] = {"cpus": psutil.cpu_count(), "workers": args.workers}
    try:
        simple = bare_loop(args.count, args.workers, _fresh(scratch / "bare"))
        built = pipeline(args.count, args.workers, scratch, keep=True)
        bare = same_work_loop(built["out"] / "items.jsonl", args.workers,
                              _fresh(scratch / "same"))
        shutil.rmtree(built.pop("out"), ignore_errors=True)
        report["limit"] = {"items": args.count, "bare_s": round(bare, 2),
                           "pipeline_s": built["wall_s"],
                           "ratio": round(bare / built["wall_s"], 3), "target": 0.8,
                           "simple": {"bare_s": round(simple, 2),
                                      "ratio": round(simple / built["wall_s"], 3)}}
        naive = naive_loop(args.naive, args.workers, _fresh(scratch / "naive"))
        per_item = built["wall_s"] / args.count
        report["naive"] = {"items": args.naive, "naive_s_per_item": round(naive / args.naive, 3),
                           "pipeline_s_per_item": round(per_item, 3),
                           "speedup": round(naive / args.naive / per_item, 2), "target": 6}
        warm, cold = plotly_export(args.figures)
        report["plotly"] = {"figures": args.figures, "warm_s": round(warm, 4),
                            "to_image_s": round(cold, 4), "speedup": round(cold / warm, 2),
                            "target": 10}
        sizes = [pipeline(n, args.workers, scratch) for n in args.sizes]
        if sizes:
            report["memory"] = {"builds": sizes, "ratio": round(
                max(s["peak_pss_mb"] for s in sizes) / min(s["peak_pss_mb"] for s in sizes), 3),
                "target_ratio": 1.2, "target_mb": 1536}
        else:
            report["memory"] = {"builds": [built]}
        if args.fcmr:
            runs = [_fcmr_build(level, n, args.workers, scratch) for level, n in FCMR_LEVELS]
            wall = sum(r["wall_s"] for r in runs)
            bare = sum(r["bare_s"] for r in runs)
            report["fcmr"] = {"builds": runs, "items": sum(r["items"] for r in runs),
                              "wall_s": round(wall, 1), "target_s": 360,
                              "bare_s": round(bare, 1), "ratio": round(bare / wall, 3)}
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(json.dumps(report, indent=1))
    return 0


def _fcmr_build(level: int, count: int, workers: int, scratch: Path) -> dict[str, Any]:
    """One of FCMR's three builds, then the bare loop of its own image work (what this
    machine's libraries take for those images at this hour, whatever the pipeline does)."""
    built = pipeline(count, workers, scratch, hops=str(level), keep=True)
    out = built.pop("out")
    built["bare_s"] = round(same_work_loop(out / "items.jsonl", workers,
                                           _fresh(scratch / "fcmr-same")), 2)
    for folder in (out, scratch / "fcmr-same"):
        shutil.rmtree(folder, ignore_errors=True)
    return built


def _fresh(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    return folder


if __name__ == "__main__":
    sys.exit(main())
