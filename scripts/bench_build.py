"""Benchmark a build: items per second and peak memory of the whole process tree.

Peak memory is the largest sum, over the build process and all its descendants (workers,
Playwright drivers, Chromium and kaleido processes), of their PSS (proportional set size:
shared pages divided among the processes sharing them), sampled every second
from /proc/PID/smaps_rollup (the process tree found with psutil). Wall time runs from process
start to exit: it includes imports, world generation, browser start-up, Parquet export and
hashing.

    python scripts/bench_build.py -n 200 --workers 2
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

SAMPLE_S = 1.0  # one sample of ~40 processes costs ~0.1 s of CPU: sample sparingly


def _pss(pid: int) -> int:
    """PSS in bytes from /proc/PID/smaps_rollup (cheap: the kernel sums it); 0 if gone."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def tree_pss(root: psutil.Process) -> int:
    """Summed PSS in bytes of ``root`` and its descendants (processes that vanish count 0)."""
    try:
        procs = [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return 0
    return sum(_pss(proc.pid) for proc in procs)


def measure(command: list[str]) -> tuple[float, int, int]:
    """Run ``command``: its wall seconds, the peak summed PSS of its process tree (bytes,
    sampled every :data:`SAMPLE_S`) and its exit code."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    watched = psutil.Process(proc.pid)
    peak = 0
    while proc.poll() is None:
        peak = max(peak, tree_pss(watched))
        time.sleep(SAMPLE_S)
    return time.perf_counter() - start, peak, proc.returncode


def main() -> int:
    """Run one build and print its figures as JSON."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", "--count", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--hops", default="1-3")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--domain", default="financial")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="hopvista-bench-"))
    out = scratch / "ds"
    command = [sys.executable, "-m", "hopvista.cli.main", "build", args.domain,
               "-n", str(args.count), "--workers", str(args.workers), "--hops", args.hops,
               "--seed", str(args.seed), "--out", str(out)]
    wall, peak, code = measure(command)
    try:
        if code != 0:
            print(f"build failed with exit code {code}", file=sys.stderr)
            return 1
        images = len(list((out / "images").glob("*.png")))
        report = {"command": " ".join(["gen", *command[3:-2]]), "items": args.count,
                  "images": images, "wall_s": round(wall, 2),
                  "items_per_s": round(args.count / wall, 2),
                  "peak_pss_mb": round(peak / 2**20), "cpus": psutil.cpu_count()}
        print(json.dumps(report))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
