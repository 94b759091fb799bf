"""Regenerate the committed golden dataset of the current format (tests/golden/format5).

Run after a deliberate change of what a build writes (wording, a new field, a new format
version): ``python scripts/update_golden.py``. The golden's command is :data:`COMMAND`;
tests/test_golden.py rebuilds it and compares bytes, so drift is never silent.
tests/golden/format2, format3 and format4 are never regenerated: each is what its format's code
wrote, and stays as an input of the migration tests.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden" / "format5"
COMMAND = ["build", "financial", "--hops", "1-3", "-n", "6", "--seed", "7", "--no-images"]
"""``gen`` arguments of the golden dataset (without ``--out``)."""


def main() -> int:
    """Rebuild the golden dataset in place."""
    from hopvista.cli.main import main as gen

    GOLDEN.parent.mkdir(parents=True, exist_ok=True)
    return gen([*COMMAND, "--out", str(GOLDEN), "--overwrite"])


if __name__ == "__main__":
    sys.exit(main())
