"""Regenerate the committed golden dataset of the current format (tests/golden/format6).

Run after a deliberate change of what a build writes (wording, a new field, a new format
version): ``python scripts/update_golden.py``. ``python scripts/update_golden.py --check``
rebuilds it in a temporary folder and lists the files that would change (exit code 1 if any)
without touching the golden. The golden's command is :data:`COMMAND`;
tests/test_golden.py rebuilds it and compares bytes, so drift is never silent.
tests/golden/format2 to format5 are never regenerated: each is what its format's code wrote,
and stays as an input of the migration tests.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden" / "format6"
COMMAND = ["build", "financial", "--hops", "1-3", "-n", "6", "--seed", "7", "--no-images"]
"""``gen`` arguments of the golden dataset (without ``--out``)."""


STABLE_FILES = ("items.jsonl", "README.md")
"""Files compared byte for byte (tests/test_golden.py)."""
STABLE_MANIFEST_FIELDS = ("format", "format_version", "config", "source", "seed", "render",
                          "counts", "shares")
"""manifest.json fields compared (the rest depend on package versions)."""


def check() -> int:
    """Rebuild the golden in a temporary folder; print what differs; 1 if anything does."""
    from hopvista.cli.main import main as gen

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "golden"
        code = gen([*COMMAND, "--out", str(out)])
        if code:
            return code
        changed = [name for name in STABLE_FILES
                   if (out / name).read_bytes() != (GOLDEN / name).read_bytes()]
        built = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
        golden = json.loads((GOLDEN / "manifest.json").read_text(encoding="utf-8"))
        changed += [f"manifest.json {key}" for key in STABLE_MANIFEST_FIELDS
                    if built.get(key) != golden.get(key)]
    for name in changed:
        print(f"changed: {name}")
    print("golden unchanged" if not changed else "run python scripts/update_golden.py")
    return 1 if changed else 0


def main(argv: list[str] | None = None) -> int:
    """Rebuild the golden dataset in place (``--check``: compare only)."""
    from hopvista.cli.main import main as gen

    args = sys.argv[1:] if argv is None else argv
    if args == ["--check"]:
        return check()
    if args:
        print("usage: python scripts/update_golden.py [--check]", file=sys.stderr)
        return 2
    GOLDEN.parent.mkdir(parents=True, exist_ok=True)
    return gen([*COMMAND, "--out", str(GOLDEN), "--overwrite"])


if __name__ == "__main__":
    sys.exit(main())
