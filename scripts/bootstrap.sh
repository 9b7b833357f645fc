#!/bin/sh
# Create .venv with the app and its test tools when missing or when pyproject.toml changed.
# Needs only python3.11 and a POSIX shell.
set -eu
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3.11}"
command -v "$PYTHON" >/dev/null 2>&1 || PYTHON=python3
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
    .venv/bin/python -m pip install --quiet --upgrade pip
fi
stamp=.venv/.installed-$(cksum pyproject.toml | cut -d' ' -f1)
if [ ! -f "$stamp" ]; then
    .venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".[dev,servers,bench]" 2>&1 \
        | grep -v "^WARNING: Location" || true
    .venv/bin/python -c "import django, channels, celery, mcp" >/dev/null
    rm -f .venv/.installed-*
    touch "$stamp"
fi
