"""Benchmark ``gen augment``: variant images per second at ``--workers`` (default 2).

Two inputs, each augmented with TableVista's ten variants:

- ``tables``: a table-QA dataset in the generic JSONL format (``--records`` records, tables of
  14 rows by 6 columns, made here from a seed), the TableVista case: one table image (or page)
  per variant;
- ``financial``: ``gen build financial -n --bases`` with images, the multimodal case: each
  variant also shows the chart (redrawn by the style variants, perturbed or resized by the
  others).

It prints, per input, the wall time of the whole ``gen augment`` process (reading, drawing,
writing the items, Parquet and manifest), the variant items per second, the table/page images
per second (the figure TableVista's 30,000 images are counted in), all images per second and
the peak summed PSS of its process tree (browsers included; ``scripts/bench_build.py``). Then the
perturbations against the same library calls in a bare loop
(``scripts/bench_perturbations.py``), in the same run.

    python scripts/bench_variants.py --records 40 --bases 12 --workers 2
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

from hopvista.cli.main import main as gen

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_build import measure  # noqa: E402

TEN = "web,latex,excel,custom,noise,structural,partial,missing,screenshot,photo"
COUNTRIES = ["Norway", "Chile", "Kenya", "Vietnam", "Portugal", "Canada", "Peru", "Ghana",
             "Finland", "Uruguay", "Morocco", "Nepal", "Ireland", "Jordan", "Bolivia", "Latvia",
             "Tunisia", "Malaysia", "Iceland", "Panama"]


def tables_jsonl(path: Path, records: int, seed: int = 0) -> None:
    """``records`` table-QA records in the generic JSONL format."""
    rng = random.Random(seed)
    header = ["Country", "Year", "Population (m)", "GDP (USD bn)", "Growth (%)", "Exports (%)"]
    with path.open("w", encoding="utf-8") as out:
        for n in range(records):
            names = rng.sample(COUNTRIES, 7)
            rows = [[name, str(year), f"{rng.uniform(1, 90):.1f}", f"{rng.uniform(10, 900):,.0f}",
                     f"{rng.uniform(-3, 8):.1f}", f"{rng.uniform(5, 70):.1f}"]
                    for name in names for year in (2022, 2023)]
            row = rng.choice(rows)
            out.write(json.dumps({
                "id": f"t{n}", "question": f"What was the GDP of {row[0]} in {row[1]}?",
                "answer": row[3], "table": {"rows": [header, *rows]}}) + "\n")


def run(label: str, source: Path, out: Path, workers: int) -> None:
    """Augment ``source`` into ``out`` with ``gen augment`` and print the rates."""
    seconds, peak, code = measure([sys.executable, "-m", "hopvista.cli.main", "augment",
                                   str(source), "--out", str(out), "--variants", TEN,
                                   "--workers", str(workers)])
    if code != 0:
        raise SystemExit(f"gen augment failed with exit code {code}")
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    items = [json.loads(line) for line in (out / "items.jsonl").open(encoding="utf-8")]
    variants = [i for i in items if i["variant"]["name"] != "base"]
    tables = sum(1 for i in variants for image in i["images"]
                 if image["role"] in ("table", "page"))
    images = sum(len(i["images"]) for i in variants)
    print(f"{label:<10} {manifest['counts']['bases']:>5} {len(variants):>8} {seconds:>7.1f} "
          f"{len(variants) / seconds:>10.2f} {tables / seconds:>12.2f} {images / seconds:>10.2f}"
          f" {peak / 2**20:>8.0f}")


def main() -> None:
    """Make the inputs, augment them, print the table; then the perturbation ratios."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=40, help="table-QA records")
    parser.add_argument("--bases", type=int, default=12, help="financial base items")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        tables_jsonl(root / "tables.jsonl", args.records)
        assert gen(["build", "financial", "-n", str(args.bases), "--seed", "5",
                    "--out", str(root / "financial")]) == 0
        print(f"gen augment, the ten variants, --workers {args.workers}")
        print(f"{'input':<10} {'bases':>5} {'variants':>8} {'seconds':>7} {'variants/s':>10} "
              f"{'table img/s':>12} {'all img/s':>10} {'peak MB':>8}")
        run("tables", root / "tables.jsonl", root / "tables-out", args.workers)
        run("financial", root / "financial", root / "financial-out", args.workers)
    print()
    subprocess.run([sys.executable, str(Path(__file__).with_name("bench_perturbations.py")),
                    "--count", "30", "--rounds", "3"], check=True)


if __name__ == "__main__":
    main()
