#!/usr/bin/env bash
# Install hopvista and everything its tests need (Python packages; system packages as root).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install --quiet --upgrade "pip>=23" "setuptools>=77" wheel
python3 -m pip install --quiet -e '.[dev]'
