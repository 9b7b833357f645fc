#!/bin/sh
# Create .venv and install the project into it, when missing or when pyproject.toml changed.
# Needs only python3.11 and a POSIX shell.
#   sh scripts/bootstrap.sh                  what ./test needs: every extra (dev, servers, bench, otel)
#   sh scripts/bootstrap.sh servers          what ./run needs: the app and the bundled MCP servers
# Installs go through uv (installed into the venv with pip) because it is several times faster
# than pip here; pip does the install itself when uv cannot.
set -eu
cd "$(dirname "$0")/.."
EXTRAS="${1:-dev,servers,bench,otel}"
PYTHON="${PYTHON:-python3.11}"
command -v "$PYTHON" >/dev/null 2>&1 || PYTHON=python3
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
sum=$(cksum pyproject.toml | cut -d' ' -f1)
full_stamp=".venv/.installed-$sum-dev,servers,bench,otel"
stamp=".venv/.installed-$sum-$EXTRAS"
# The full set satisfies every smaller one.
if [ -f "$stamp" ] || [ -f "$full_stamp" ]; then
    exit 0
fi
echo "bootstrap: installing agentops[$EXTRAS] into .venv (first run only)" >&2
quiet_pip() {
    .venv/bin/python -m pip install --quiet --disable-pip-version-check "$@" 2>&1 | grep -v "^WARNING: Location" || true
}
if [ ! -x .venv/bin/uv ]; then
    quiet_pip uv
fi
if ! .venv/bin/uv pip install --quiet --python .venv/bin/python -e ".[$EXTRAS]"; then
    echo "bootstrap: uv could not install; falling back to pip" >&2
    quiet_pip -e ".[$EXTRAS]"
fi
.venv/bin/python -c "import django, channels, celery, daphne, psycopg" >/dev/null
rm -f .venv/.installed-*
touch "$stamp"
