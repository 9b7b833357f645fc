#!/bin/sh
# Third-party MCP peers for tests/mcpclient, kept out of the app's venv:
#   var/peers/mcp1/  a venv with mcp==1.30.0 (the handshake-only Python SDK)
#   var/peers/npm/   npm ci of tests/mcpclient/peers/npm (everything server, conformance suite, Node 22)
# Idempotent: a stamp per piece, so a second run costs a few stat calls. Never fails the run: when a piece
# cannot be installed (npm unreachable, ...), its error goes to <dir>/.error and the tests that need it
# skip with that text as the reason.
set -u
cd "$(dirname "$0")/../.."
PYTHON="${PYTHON:-python3.11}"
command -v "$PYTHON" >/dev/null 2>&1 || PYTHON=python3
MCP1_SPEC="mcp==1.30.0"
MCP1=var/peers/mcp1
NPM_SRC=tests/mcpclient/peers/npm
NPM_DIR=var/peers/npm
LOCK=var/peers/.lock

mkdir -p var/peers

# Bounded wall time for anything that touches the network (coreutils timeout, when present).
bounded() {
    if command -v timeout >/dev/null 2>&1; then timeout "$@"; else shift; "$@"; fi
}

mcp1_stamp="$MCP1/.installed-$(echo "$MCP1_SPEC" | cksum | cut -d' ' -f1)"
npm_stamp="$NPM_DIR/.installed-$(cat "$NPM_SRC/package.json" "$NPM_SRC/package-lock.json" | cksum | cut -d' ' -f1)"
[ -f "$mcp1_stamp" ] && [ -f "$npm_stamp" ] && exit 0

# Two ./test runs in one checkout must not install into the same folder at once. A lock whose owner
# died (kill -9, machine reset) is taken over.
waited=0
until mkdir "$LOCK" 2>/dev/null; do
    owner=$(cat "$LOCK/pid" 2>/dev/null || true)
    if [ -n "$owner" ] && ! kill -0 "$owner" 2>/dev/null; then
        rm -rf "$LOCK"
        continue
    fi
    waited=$((waited + 1))
    if [ "$waited" -gt 600 ]; then
        echo "30-mcp-peers: $LOCK held for 10 minutes; remove it if no install is running" >&2
        exit 0
    fi
    sleep 1
done
echo $$ >"$LOCK/pid"
trap 'rm -rf "$LOCK"' EXIT
trap 'exit 1' INT TERM

if [ ! -f "$mcp1_stamp" ]; then
    echo "30-mcp-peers: installing $MCP1_SPEC into $MCP1" >&2
    rm -rf "$MCP1"
    log=var/peers/mcp1.log
    if "$PYTHON" -m venv "$MCP1" >"$log" 2>&1 \
        && bounded 300 "$MCP1/bin/python" -m pip install --quiet --disable-pip-version-check \
            --retries 1 --timeout 20 "$MCP1_SPEC" >>"$log" 2>&1 \
        && "$MCP1/bin/python" -c "import mcp.server.fastmcp, uvicorn" >>"$log" 2>&1; then
        touch "$mcp1_stamp"
    else
        mkdir -p "$MCP1"
        { echo "could not install $MCP1_SPEC into $MCP1:"; grep -v "^WARNING: Location" "$log" | tail -5; } >"$MCP1/.error"
        echo "30-mcp-peers: $(cat "$MCP1/.error")" >&2
    fi
fi

if [ ! -f "$npm_stamp" ]; then
    echo "30-mcp-peers: npm ci of $NPM_SRC into $NPM_DIR" >&2
    rm -rf "$NPM_DIR"
    mkdir -p "$NPM_DIR"
    cp "$NPM_SRC/package.json" "$NPM_SRC/package-lock.json" "$NPM_DIR/"
    log=var/peers/npm.log
    if ! command -v npm >/dev/null 2>&1; then
        echo "npm is not installed" >"$NPM_DIR/.error"
    elif (cd "$NPM_DIR" && bounded 300 npm ci --no-audit --no-fund --loglevel=error \
        --fetch-retries=1 --fetch-timeout=20000) >"$log" 2>&1; then
        touch "$npm_stamp"
    else
        { echo "npm ci failed (registry unreachable?):"; head -4 "$log"; } >"$NPM_DIR/.error"
    fi
    [ -f "$NPM_DIR/.error" ] && echo "30-mcp-peers: $(cat "$NPM_DIR/.error")" >&2
fi
exit 0
