"""What a benchmark user opens: images, Parquet through `datasets`, the card, the preview."""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
from pathlib import Path

import pytest
import yaml
from PIL import Image

from hopvista.cli.main import main
from tests.conftest import read_items

pytestmark = pytest.mark.slow  # renders with Chromium, matplotlib or plotly


def test_every_item_has_a_table_and_a_chart_image(hard48: Path) -> None:
    for item in read_items(hard48):
        table, chart = item["images"]
        assert (table["role"], chart["role"]) == ("table", "chart")
        assert table["path"] == f"images/{item['id']}.table.png"
        for entry in (table, chart):
            data = (hard48 / entry["path"]).read_bytes()
            assert hashlib.sha256(data).hexdigest() == entry["sha256"]
            with Image.open(io.BytesIO(data)) as image:
                image.load()
                assert image.size == (entry["width"], entry["height"])
                assert image.width > 100 and image.height > 100
        rows = len(item["inputs"]["table"]["rows"]) + 1
        cols = len(item["inputs"]["table"]["columns"]) + 2
        assert len(table["render"]["cells"]) == rows * cols
        for cell in table["render"]["cells"]:
            x, y, w, h = cell["box"]
            assert x >= 0 and y >= 0 and x + w <= table["width"] and y + h <= table["height"]
        assert chart["render"]["kind"] == item["inputs"]["chart"]["kind"]


def test_load_dataset_offline(hard48: Path, monkeypatch: pytest.MonkeyPatch,
                              tmp_path: Path) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    from datasets import load_dataset

    ds = load_dataset(str(hard48), split="test", cache_dir=str(tmp_path / "cache"))
    assert len(ds) == 48
    items = {i["id"]: i for i in read_items(hard48)}
    for row in ds:
        assert row["image_roles"] == ["table", "chart"]
        table, chart = row["images"]
        assert table.size[0] > 100 and chart.size[0] > 100
        item = items[row["id"]]
        assert row["answer"] == (", ".join(map(str, item["answer"])) or "none")
        assert row["variant"] == "base" and row["base_id"] == item["base_id"]
        assert json.loads(row["item_json"]) == item
        with Image.open(hard48 / item["images"][0]["path"]) as image:
            assert table.tobytes() == image.convert(table.mode).tobytes()


def test_card_front_matter_points_at_parquet(hard48: Path) -> None:
    text = (hard48 / "README.md").read_text()
    front = yaml.safe_load(text.split("---")[1])
    assert front["configs"][0]["data_files"][0] == {"split": "test", "path": "data/*.parquet"}
    assert front["license"] == "cc0-1.0"
    assert "gen build financial --hops 3 -n 48 --seed 7" in text


def test_verify_catches_a_modified_png(hard48: Path, tmp_path: Path, capsys) -> None:
    copy = tmp_path / "png"
    shutil.copytree(hard48, copy)
    victim = read_items(copy)[3]["images"][1]["path"]
    with Image.open(copy / victim) as image:
        image = image.convert("RGB")
        image.putpixel((5, 5), (255, 0, 0))
        buffer = io.BytesIO()
        image.save(buffer, format="PNG")
    (copy / victim).write_bytes(buffer.getvalue())
    assert main(["verify", str(copy)]) == 1
    err = capsys.readouterr().err
    assert f"{victim}: sha256" in err


def test_manifest_records_render_versions(hard48: Path) -> None:
    manifest = json.loads((hard48 / "manifest.json").read_text())
    render = manifest["render"]
    assert render["chromium"] and render["fonts"]
    for name in ("playwright", "matplotlib", "plotly", "kaleido", "pyarrow", "datasets"):
        assert name in manifest["packages"]


def test_preview_renders_in_chromium(hard48: Path, tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    from hopvista.render.browser import find_chromium

    out = tmp_path / "sheet.html"
    assert main(["preview", str(hard48), "--out", str(out), "--limit", "5"]) == 0
    executable = find_chromium()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        page = browser.new_page()
        page.goto(out.as_uri())
        assert page.locator("section.item").count() == 5
        images = page.locator("img")
        assert images.count() == 10
        for i in range(10):
            assert images.nth(i).evaluate("img => img.complete && img.naturalWidth > 0")
        assert page.locator("li.true").count() + page.locator("li.false").count() == 15
        browser.close()
    assert os.path.getsize(out) > 1000
