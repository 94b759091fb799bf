"""scripts/ocr_by_strength.py (the OCR-by-strength table of docs/augment.md): it sweeps the
perturbation registry, counts a cell read only where its text is found inside its box, and
runs end to end with the OCR baseline on one tiny table at one strength."""

from __future__ import annotations

import importlib.util
import io
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from PIL import Image, ImageDraw

from hopvista.augment import PERTURBATIONS
from hopvista.eval.ocr import Word

ROOT = Path(__file__).resolve().parent.parent


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("ocr_by_strength",
                                                  ROOT / "scripts" / "ocr_by_strength.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SCRIPT = _script()
TEXTS = [["Company", "Revenue"], ["Acme", "1,250"], ["Birch", "980"]]


def tiny_table() -> tuple[bytes, dict[str, Any]]:
    """A 2 x 3 table drawn large enough to read, with its cells' boxes."""
    image = Image.new("RGB", (260, 120), "white")
    draw = ImageDraw.Draw(image)
    cells = []
    for row, texts in enumerate(TEXTS):
        for col, text in enumerate(texts):
            box = [10 + col * 120, 10 + row * 34, 120, 34]
            draw.rectangle([box[0], box[1], box[0] + box[2], box[1] + box[3]], outline="black")
            draw.text((box[0] + 10, box[1] + 8), text, fill="black", font_size=16)
            cells.append({"row": row, "col": col, "text": text, "box": box})
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue(), {"cells": cells}


def test_a_cell_is_read_only_when_its_text_is_found_inside_its_box() -> None:
    _, layout = tiny_table()
    words = [Word("Acme", 20, 52, 60, 64), Word("1,25O", 140, 52, 180, 64),
             Word("Birch", 150, 86, 190, 98)]  # a misread, and a word in the wrong cell
    assert SCRIPT.cells_read(words, layout) == (1, 6)


def test_every_registered_perturbation_gets_a_row_and_its_strengths(
        monkeypatch: pytest.MonkeyPatch) -> None:
    png, layout = tiny_table()
    applied: list[tuple[str, dict[str, Any]]] = []

    def unchanged(png: bytes, layout: dict[str, Any], name: str, params: dict[str, Any],
                  streams: Any) -> tuple[bytes, dict[str, Any]]:
        applied.append((name, params))
        return png, layout

    monkeypatch.setattr(SCRIPT, "perturbed", unchanged)

    def perfect(png: bytes) -> list[Word]:  # reads every cell of the unmoved layout
        return [Word(c["text"], c["box"][0] + 5, c["box"][1] + 5, c["box"][0] + 40,
                     c["box"][1] + 20) for c in layout["cells"]]

    names = sorted(PERTURBATIONS.names())
    rates = SCRIPT.measure([("tiny", png, layout)], names, [0.5], perfect)
    assert list(rates) == [SCRIPT.NONE, *names]
    assert rates[SCRIPT.NONE] == {"defaults": 1.0}
    assert all(set(rates[n]) == {"defaults", "0.5"} for n in names)
    assert ("noise", PERTURBATIONS.get("noise").at_strength(0.5).model_dump(mode="json")) \
        in applied
    table = SCRIPT.markdown(rates, [0.5])
    assert table.splitlines()[0] == "| perturbation | defaults | strength 0.5 |"
    assert "| (none) | 100.0% | — |" in table


@pytest.mark.slow
def test_the_script_reads_a_tiny_table_with_the_ocr_baseline() -> None:
    pytest.importorskip("rapidocr")
    png, layout = tiny_table()
    rates = SCRIPT.measure([("tiny", png, layout)], ["noise"], [0.5], SCRIPT.ocr_reader())
    assert rates[SCRIPT.NONE]["defaults"] >= 0.5
    assert set(rates["noise"]) == {"defaults", "0.5"}
