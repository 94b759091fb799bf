"""Every built-in pack folder ships in the wheel (pyproject lists it and its data)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).parent.parent


def test_every_pack_folder_is_a_listed_package() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    packages = set(config["packages"])
    data = config["package-data"]
    for folder in sorted((ROOT / "templates").rglob("*")):
        if not folder.is_dir() or folder.name == "__pycache__":
            continue
        name = "hopvista.templates." + ".".join(folder.relative_to(ROOT / "templates").parts)
        assert name in packages, f"{name} missing from [tool.setuptools] packages"
        suffixes = {p.suffix for p in folder.iterdir() if p.is_file()}
        for suffix in suffixes:
            assert f"*{suffix}" in data.get(name, []), f"{name}: *{suffix} not in package-data"
