"""Format drift is deliberate: the golden dataset of the current format is rebuilt and must
come out byte for byte (items.jsonl, the card) and field for field (the manifest, apart
from package versions and the hashes of files whose bytes depend on them).

After a deliberate change, regenerate it with ``python scripts/update_golden.py``.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from hopvista.cli.main import main
from hopvista.model import FORMAT_VERSION

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden" / "format6"
STABLE_MANIFEST_FIELDS = ("format", "format_version", "config", "source", "seed", "render",
                          "counts", "shares")
STABLE_FILES = ("items.jsonl", "README.md")


def _command() -> list[str]:
    spec = importlib.util.spec_from_file_location("update_golden",
                                                  ROOT / "scripts" / "update_golden.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return list(module.COMMAND)


def test_golden_is_of_the_current_format() -> None:
    manifest = json.loads((GOLDEN / "manifest.json").read_text())
    assert manifest["format_version"] == FORMAT_VERSION, \
        "the format changed: run python scripts/update_golden.py"


@pytest.mark.slow
def test_rebuilding_the_golden_gives_the_same_bytes(tmp_path: Path) -> None:
    out = tmp_path / "golden"
    assert main([*_command(), "--out", str(out)]) == 0
    for name in STABLE_FILES:
        assert (out / name).read_bytes() == (GOLDEN / name).read_bytes(), \
            f"{name} drifted: if deliberate, run python scripts/update_golden.py"
    built = json.loads((out / "manifest.json").read_text())
    golden = json.loads((GOLDEN / "manifest.json").read_text())
    for key in STABLE_MANIFEST_FIELDS:
        assert built.get(key) == golden.get(key), f"manifest.json {key} drifted"
    for name in STABLE_FILES:
        assert built["files"][name] == golden["files"][name]
