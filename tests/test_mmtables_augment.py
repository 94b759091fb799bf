"""gen augment on a build of multimodal tables: the style, noise and photo variants show every
picture in its cell and write each picture alone; recipes that would move, hide or drop a
picture skip the items with a recorded reason; gen verify re-proves the variants."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hopvista.cli.main import main
from tests.conftest import read_items, reseal

pytestmark = pytest.mark.slow  # Chromium draws every table


@pytest.fixture(scope="module")
def augmented(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("mm-augment")
    base, out = root / "mm", root / "mm-variants"
    assert main(["build", "mmtables", "-n", "2", "--seed", "3", "--out", str(base)]) == 0
    assert main(["augment", str(base), "--variants", "web,noise,photo,structural",
                 "--out", str(out)]) == 0
    return base, out


def test_style_noise_and_photo_variants_verify(augmented: tuple[Path, Path],
                                               capsys: pytest.CaptureFixture[str]) -> None:
    _, out = augmented
    capsys.readouterr()
    assert main(["verify", str(out)]) == 0
    assert "OK: 8 items verified" in capsys.readouterr().out


def test_each_variant_shows_every_picture_and_writes_it_alone(
        augmented: tuple[Path, Path]) -> None:
    _, out = augmented
    items = {i["id"]: i for i in read_items(out)}
    for item_id, item in items.items():
        base = items[item["base_id"] + ".base"]
        roles = [image["role"] for image in item["images"]]
        assert roles == ["table"] + ["cell-image"] * len(item["inputs"]["visuals"])
        shown = {(v["row"], v["col"]) for v in item["images"][0]["render"]["visuals"]}
        assert shown == {(v["row"], v["col"]) for v in item["inputs"]["visuals"]}, item_id
        alone = [(out / i["path"]).read_bytes() for i in item["images"][1:]]
        assert alone == [(out / i["path"]).read_bytes() for i in base["images"][1:]], item_id
        assert item["inputs"]["visuals"] == base["inputs"]["visuals"]


def test_a_recipe_that_would_move_pictures_skips_with_its_reason(
        augmented: tuple[Path, Path]) -> None:
    _, out = augmented
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["variants"]["skipped"] == {"structural": 2}
    assert {s["why"] for s in manifest["skipped"]} == {
        "recipe 'structural' does not show the pictures in a table's cells"}
    assert not any(i["id"].endswith(".structural") for i in read_items(out))


def test_a_variant_that_loses_a_picture_is_named(augmented: tuple[Path, Path], tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    _, out = augmented
    forged = tmp_path / "forged"
    forged.mkdir()
    for path in out.rglob("*"):
        if path.is_file():
            (forged / path.relative_to(out)).parent.mkdir(parents=True, exist_ok=True)
            (forged / path.relative_to(out)).write_bytes(path.read_bytes())
    items = read_items(forged)
    victim = next(i for i in items if i["id"].endswith(".photo"))
    victim["images"][0]["render"]["visuals"] = victim["images"][0]["render"]["visuals"][1:]
    reseal(forged, items)
    capsys.readouterr()
    assert main(["verify", str(forged)]) != 0
    out_text = "".join(capsys.readouterr())
    assert f"item {victim['id']}: table image images/{victim['id']}.table.png: " \
           "render.visuals does not show each picture once" in out_text
