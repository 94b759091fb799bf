"""Does a build's memory stay flat in the item count? Peak RSS of builds of growing size.

Runs ``gen build financial --no-images --workers 1 -n N`` for each N, one after the other in
the same run, and prints the peak resident set size of each build process (from the kernel's
rusage of that child) and its ratio to the smallest build. A build that holds its items in
memory grows with N; a streaming build stays near the smallest build's peak (the balance
plan, a few hundred bytes per item, is the only thing kept per item).

    python scripts/bench_memory.py 500 5000 20000
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def peak_rss(count: int, scratch: Path, images: bool) -> tuple[int, float]:
    """Peak RSS in bytes and wall seconds of one build of ``count`` items."""
    command = [sys.executable, "-m", "hopvista.cli.main", "build", "financial", "-n",
               str(count), "--workers", "1", "--out", str(scratch / f"ds{count}")]
    if not images:
        command.append("--no-images")
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"build of {count} items failed")
    shutil.rmtree(scratch / f"ds{count}", ignore_errors=True)
    return usage.ru_maxrss * 1024, wall


def main() -> int:
    """Run the builds and print one JSON line each."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("counts", type=int, nargs="+")
    parser.add_argument("--images", action="store_true", help="render images too (slow)")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="hopvista-mem-"))
    try:
        base = None
        for count in sorted(args.counts):
            rss, wall = peak_rss(count, scratch, args.images)
            base = base or rss
            print(json.dumps({"items": count, "peak_rss_mb": round(rss / 2**20),
                              "ratio_to_smallest": round(rss / base, 2),
                              "wall_s": round(wall, 1)}), flush=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
