"""``build``: plan, make every item (in parallel if asked), write the dataset folder."""

from __future__ import annotations

import hashlib
import json
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

from hopvista import __version__
from hopvista.config import BuildConfig
from hopvista.errors import UserError
from hopvista.outdir import DATASET_FORMAT, check_out, staged_dataset, write_atomic
from hopvista.plan import plan_shares
from hopvista.workers import generate_items, load_state, plan_build

__all__ = ["FORMAT_VERSION", "BuildConfig", "build"]

FORMAT_VERSION = 1
RECORDED_PACKAGES = ("numpy", "pydantic", "jinja2", "faker", "pyyaml", "playwright", "matplotlib",
                     "seaborn", "plotly", "kaleido", "pillow", "pyarrow", "datasets")


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _versions() -> dict[str, str]:
    versions = {"hopvista": __version__, "python": sys.version.split()[0]}
    for name in RECORDED_PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return versions


def statement_shares(items: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """True/false counts per statement type, as built."""
    shares: dict[str, dict[str, int]] = {}
    for item in items:
        for statement in item["statements"]:
            cell = shares.setdefault(statement["type"], {"true": 0, "false": 0})
            cell["true" if statement["label"] else "false"] += 1
    return {k: shares[k] for k in sorted(shares)}


def _render_versions(items: list[dict[str, Any]]) -> dict[str, Any]:
    """Chromium and font versions behind the images (what makes their bytes)."""
    from hopvista.render.browser import chromium_version
    from hopvista.themes.fonts import font_versions

    fonts = sorted({item["render"]["table"]["font"] for item in items} |
                   {item["render"]["chart"]["font"] for item in items})
    return {"chromium": chromium_version(), "fonts": font_versions(fonts)}


def build(config: BuildConfig, out: Path, workers: int = 1, overwrite: bool = False,
          progress: bool = False) -> dict[str, Any]:
    """Build the dataset of ``config`` into ``out``; return its manifest.

    Everything is written into a temporary sibling folder that replaces ``out`` only when the
    build has succeeded.
    """
    from hopvista.card import dataset_card
    from hopvista.export import write_parquet

    config.pack()  # an unknown domain or a broken pack is reported before anything else
    check_out(out, overwrite)
    pack, world = load_state(config)
    if len(world.periods) < pack.spec.instance.periods:
        raise UserError(f"the source's window has {len(world.periods)} periods "
                        f"({world.periods[0]}-{world.periods[-1]}) but instances need "
                        f"{pack.spec.instance.periods}: widen --years or lower --periods")
    plan, available = plan_build(config)
    with staged_dataset(out) as stage:
        items = list(generate_items(config, workers, progress,
                                    images_root=stage if config.images else None, plan=plan))
        write_atomic(stage / "items.jsonl", "".join(
            json.dumps(item, ensure_ascii=False, separators=(",", ":")) + "\n"
            for item in items).encode())
        write_parquet(items, stage)
        manifest: dict[str, Any] = {
            "format": DATASET_FORMAT,
            "format_version": FORMAT_VERSION,
            "config": config.to_json(pack) | {"types": list(available)},
            "source": world.provenance,
            "seed": config.seed,
            "packages": _versions(),
            "render": _render_versions(items) if config.images else None,
            "counts": {"items": len(items), "statements": 3 * len(items),
                       "images": sum(len(item["images"]) for item in items)},
            "shares": plan_shares(plan) | {"statements": statement_shares(items)},
        }
        write_atomic(stage / "README.md", dataset_card(manifest, pack.spec.title).encode())
        manifest["files"] = {
            path.relative_to(stage).as_posix(): sha256_file(path)
            for path in sorted(stage.rglob("*")) if path.is_file()
        }
        write_atomic(stage / "manifest.json",
                     (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode())
    return manifest
