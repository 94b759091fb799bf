"""How much each perturbation costs the OCR baseline, by strength.

    python scripts/ocr_by_strength.py DIR [--strengths 0,0.25,0.5,0.75,1] [--limit 6]
                                          [--perturbations NAME,...] [--seed 0]

``DIR`` is a hopvista dataset with table images (``gen build financial -n 6 --seed 7 --out
DIR``). Every registered perturbation (the registry swept: a plug-in's too) is applied to each
base item's table image at its defaults and at each strength (``Perturbation.at_strength``),
drawn from the item's own streams; the OCR baseline's reader (``gen eval --model ocr``:
RapidOCR) reads the result, and a cell counts as read when the words it finds inside the
cell's box (carried through the perturbation's warp) spell the cell's text, case and spaces
aside. Prints a Markdown table of the share of cells read, one row per perturbation (the
unperturbed images first), for docs/augment.md. A perturbation without a strength scale gets
its defaults' share only.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from PIL import Image

from hopvista.augment import PERTURBATIONS
from hopvista.eval.ocr import OcrBaseline, Word
from hopvista.model.dataset import load
from hopvista.rng import Streams
from hopvista.variants.maker import perturb

STRENGTHS = (0.0, 0.25, 0.5, 0.75, 1.0)
NONE = "(none)"
"""The row of the unperturbed images."""

Reader = Callable[[bytes], list[Word]]
"""Words an OCR engine finds in a PNG."""


def table_images(folder: Path, limit: int) -> list[tuple[str, bytes, dict[str, Any]]]:
    """Up to ``limit`` table images of the dataset at ``folder``: (item id, PNG, the image's
    recorded layout with its cell boxes)."""
    dataset = load(folder)
    found = []
    for item in dataset:
        image = next((i for i in item.images if i.role == "table" and i.render.get("cells")),
                     None)
        path = dataset.image_path(item, "table") if image is not None else None
        if image is None or path is None or not path.is_file():
            continue
        found.append((item.id, path.read_bytes(), dict(image.render)))
        if len(found) == limit:
            break
    return found


def _normal(text: str) -> str:
    return "".join(text.replace("\u2212", "-").split()).casefold()


def cells_read(words: Sequence[Word], layout: dict[str, Any]) -> tuple[int, int]:
    """(cells read, cells with text) of a table image: a cell is read when the words whose
    centres lie in its box, left to right, spell its text (case and spaces aside)."""
    read = total = 0
    for cell in layout.get("cells", []):
        text = _normal(str(cell.get("text", "")))
        if not text:
            continue
        total += 1
        x, y, w, h = cell["box"]
        inside = sorted((word for word in words
                         if x <= word.x < x + w and y <= word.y < y + h),
                        key=lambda word: (round(word.y / max(h, 1)), word.left))
        read += _normal("".join(word.text for word in inside)) == text
    return read, total


def perturbed(png: bytes, layout: dict[str, Any], name: str, params: dict[str, Any],
              streams: Streams) -> tuple[bytes, dict[str, Any]]:
    """The table image with perturbation ``name`` applied (``params``, drawn from
    ``streams``), and its layout with the boxes carried along."""
    out, _, moved = perturb(png, ((name, params),), streams, "table", layout)
    return out, moved if moved is not None else layout


def settings(name: str, strengths: Sequence[float]) -> list[tuple[str, dict[str, Any]]]:
    """(column, parameters) of a perturbation: its defaults, then each strength it has."""
    chosen = PERTURBATIONS.get(name)
    columns: list[tuple[str, dict[str, Any]]] = [("defaults", {})]
    for strength in strengths:
        params = chosen.at_strength(strength)
        if params is not None:
            columns.append((f"{strength:g}", params.model_dump(mode="json")))
    return columns


def measure(images: Sequence[tuple[str, bytes, dict[str, Any]]], names: Sequence[str],
            strengths: Sequence[float], read: Reader, seed: int = 0,
            progress: Callable[[str], None] = lambda line: None) -> dict[str, dict[str, float]]:
    """The share of cells read: by row (``(none)``, then each perturbation) and column
    (``defaults`` or a strength)."""
    counts: dict[str, dict[str, list[int]]] = {}

    def count(row: str, column: str, png: bytes, layout: dict[str, Any]) -> None:
        done, total = cells_read(read(png), layout)
        tally = counts.setdefault(row, {}).setdefault(column, [0, 0])
        tally[0] += done
        tally[1] += total

    for item_id, png, layout in images:
        count(NONE, "defaults", png, layout)
        for name in names:
            for column, params in settings(name, strengths):
                streams = Streams(seed, item_id, f"ocr-by-strength.{column}")
                count(name, column, *perturbed(png, layout, name, params, streams))
        progress(f"{item_id}: done")
    return {row: {column: done / total if total else 0.0
                  for column, (done, total) in columns.items()}
            for row, columns in counts.items()}


def markdown(rates: dict[str, dict[str, float]], strengths: Sequence[float]) -> str:
    """The rates as a Markdown table (a strength a perturbation lacks is shown as —)."""
    columns = ["defaults", *(f"{s:g}" for s in strengths)]
    lines = ["| perturbation | " + " | ".join(
                 c if c == "defaults" else f"strength {c}" for c in columns) + " |",
             "|---|" + "---|" * len(columns)]
    for row, found in rates.items():
        cells = [f"{100 * found[c]:.1f}%" if c in found else "—" for c in columns]
        lines.append(f"| {row} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def ocr_reader() -> Reader:
    """The OCR baseline's reader (RapidOCR), on PNG bytes."""
    baseline = OcrBaseline({})
    scratch = Path(tempfile.mkdtemp(prefix="ocr-by-strength-"))

    def read(png: bytes) -> list[Word]:
        path = scratch / "image.png"
        Image.open(io.BytesIO(png)).save(path)
        return baseline.read(path)

    return read


def main(argv: Sequence[str] | None = None) -> int:
    """Measure and print the table (and, with ``--json``, the rates as JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--strengths", default=",".join(f"{s:g}" for s in STRENGTHS))
    parser.add_argument("--limit", type=int, default=6, help="table images to read")
    parser.add_argument("--perturbations", default="",
                        help="comma-separated names (default: every registered one)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, help="also write the rates here")
    args = parser.parse_args(argv)
    strengths = [float(s) for s in args.strengths.split(",") if s]
    names = [n for n in args.perturbations.split(",") if n] or sorted(PERTURBATIONS.names())
    images = table_images(args.dataset, args.limit)
    if not images:
        parser.error(f"{args.dataset}: no table image with recorded cells")
    rates = measure(images, names, strengths, ocr_reader(), args.seed,
                    lambda line: print(line, file=sys.stderr))
    if args.json is not None:
        args.json.write_text(json.dumps(rates, indent=2) + "\n")
    print(markdown(rates, strengths))
    return 0


if __name__ == "__main__":
    sys.exit(main())
