#!/usr/bin/env bash
# Install hopvista and everything it and its tests need: Python packages, and (as root on
# Debian/Ubuntu) Chromium and the fonts the renderers use. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

FONTS="fonts-dejavu fonts-liberation fonts-noto-core fonts-roboto fonts-lmodern fonts-cmu
  fonts-crosextra-carlito fonts-crosextra-caladea fonts-comic-neue fonts-inconsolata
  fonts-ebgaramond fonts-texgyre fonts-open-sans fonts-noto-cjk"
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  missing=""
  for pkg in chromium $FONTS; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing="$missing $pkg"
  done
  if [ -n "$missing" ]; then
    echo "installing system packages:$missing"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
    rm -rf ~/.cache/matplotlib  # matplotlib caches the font list; new fonts need a rescan
  fi
elif ! command -v chromium >/dev/null 2>&1 && [ -z "${HOPVISTA_CHROMIUM:-}" ]; then
  echo "note: no Chromium found; install one, set HOPVISTA_CHROMIUM, or run 'playwright install chromium'" >&2
fi

python3 -m pip install --quiet --upgrade "pip>=23" "setuptools>=77" wheel
python3 -m pip install --quiet -e '.[dev,ocr,harness,augment,ray]'
