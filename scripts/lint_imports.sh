#!/usr/bin/env bash
# The layer contracts of pyproject.toml (import-linter), checked as CI checks them: on a wheel
# install of this tree. An editable install maps hopvista.sources, .templates, .themes and
# .augment from folders outside generator/, which import-linter cannot see, so a bare
# `lint-imports` in the source tree stops at "Module 'hopvista.themes' does not exist".
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
target=$(mktemp -d)
trap 'rm -rf "$target"' EXIT
python -m pip install --quiet --no-deps --no-build-isolation --target "$target" "$root"
cd "$target" && lint-imports --no-cache "$root/pyproject.toml"
