"""CPU time of generation alone (no images), per item and per level, in one process.

    python scripts/bench_generation.py -n 200 [--domain financial] [--seed 0]

Makes the items of ``gen build DOMAIN -n N`` with ``build_item`` and prints, per level, the
items, the milliseconds of CPU per item and the instance draws per item, then the mean. To
compare two versions, run it under each at the same time (the other installed into a
folder: ``pip install --no-deps --target DIR REV`` and ``PYTHONPATH=DIR``): the figures of
one run mean little against another day's.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict


def main() -> int:
    """Time every item's generation and print one JSON report."""
    from hopvista.building import workers
    from hopvista.building.config import BuildConfig
    from hopvista.generation.item import build_item
    from hopvista.model.balance import LEVEL_NAMES

    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", "--count", type=int, default=200)
    parser.add_argument("--domain", default="financial")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    config = BuildConfig(domain=args.domain, count=args.count, seed=args.seed)
    plan, _ = workers.plan_build(config)
    pack, world = workers.load_state(config)
    defences = workers.build_defences(config)
    spent: dict[int, float] = defaultdict(float)
    draws: dict[int, int] = defaultdict(int)
    counts: dict[int, int] = defaultdict(int)
    for entry in plan:
        start = time.process_time()
        item = build_item(world, pack, config.seed, entry, defences)
        spent[entry.level] += time.process_time() - start
        draws[entry.level] += item.provenance.attempts or 0
        counts[entry.level] += 1
    report = {LEVEL_NAMES[level]: {"items": counts[level],
                                   "cpu_ms_per_item": round(spent[level] / counts[level] * 1e3, 1),
                                   "draws_per_item": round(draws[level] / counts[level], 1)}
              for level in sorted(counts)}
    report["all"] = {"items": len(plan),
                     "cpu_ms_per_item": round(sum(spent.values()) / len(plan) * 1e3, 1)}
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
