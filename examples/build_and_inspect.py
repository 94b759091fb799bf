"""Build a small dataset through the Python API, re-prove it, and print one item.

Run: python examples/build_and_inspect.py [OUT]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from hopvista.building.pipeline import BuildConfig, build
from hopvista.verify import verify_dataset


def main() -> int:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "out/example")
    build(BuildConfig(domain="financial", levels=(1, 2, 3), count=12, seed=7), out,
          overwrite=True)
    checked, problems = verify_dataset(out)
    print(f"{checked} items, {len(problems)} problems")
    first = json.loads((out / "items.jsonl").read_text(encoding="utf-8").splitlines()[0])
    print(first["question"])
    print("answer:", ", ".join(map(str, first["answer"])) or "none")
    for statement in first["statements"]:
        print(f"- [{statement['type']}] {statement['label']}: "
              f"{json.dumps(statement['program'])}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
