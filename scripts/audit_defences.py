"""Side by side: the audit of a build with the defences and of the same build without them.

    python scripts/audit_defences.py [--domain financial] [-n 600] [--seed 21]

Builds DOMAIN twice with the same seed and size (``--no-images``), once as ``gen build`` does
by default and once with ``--no-defences``, runs ``gen audit`` on both and prints the key
figures with their 95% intervals, the failing checks and the build times: the effect of the
defences in one run, on one machine.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROWS = (("no_chart", "reads chart"), ("no_chart", "item sets: hard"),
        ("no_table", "reads table"), ("no_table", "item sets: hard"),
        ("no_text", "reads text"), ("no_text", "item sets: hard"),
        ("blind", "all statements"))


def _pct(value: float) -> str:
    return f"{100 * value:.1f}%"


def main() -> int:
    """Build, audit and print both."""
    from hopvista.audit import run_audit
    from hopvista.cli.main import main as gen

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--domain", default="financial")
    parser.add_argument("-n", "--count", type=int, default=600)
    parser.add_argument("--seed", type=int, default=21)
    args = parser.parse_args()
    reports, seconds = {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, extra in (("defended", []), ("leaky", ["--no-defences"])):
            out = Path(tmp) / name
            start = time.perf_counter()
            code = gen(["build", args.domain, "-n", str(args.count), "--seed", str(args.seed),
                        "--no-images", "--out", str(out), *extra])
            seconds[name] = time.perf_counter() - start
            if code != 0:
                return code
            reports[name] = run_audit(out)
    print(f"gen build {args.domain} -n {args.count} --seed {args.seed} --no-images, "
          "audited (5 folds, seed 0)")
    print(f"{'solver':<9} {'scope':<16} {'defended':>24} {'--no-defences':>24}")
    for solver, scope in ROWS:
        cells = []
        for name in ("defended", "leaky"):
            e = reports[name].row(solver, scope)
            cells.append("-" if e is None else
                         f"{_pct(e.accuracy)} [{_pct(e.low)}, {_pct(e.high)}]")
        print(f"{solver:<9} {scope:<16} {cells[0]:>24} {cells[1]:>24}")
    for name in ("defended", "leaky"):
        failed = [c.name for c in reports[name].checks if not c.passed]
        print(f"{name}: built in {seconds[name]:.0f} s; failing checks: "
              f"{'; '.join(failed) or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
