#!/bin/sh
# Install Debian's prometheus (prometheus + promtool) for the metrics server's back-end tests.
# Idempotent and quick when already installed; never aborts the test run (./test ignores our status,
# and the tests that need the binaries skip with a reason when they are missing).
if command -v prometheus >/dev/null 2>&1 && command -v promtool >/dev/null 2>&1; then
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "20-prometheus: apt-get not available; install prometheus and promtool by hand" >&2
    exit 0
fi
SUDO=""
if [ "$(id -u)" != "0" ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        SUDO="sudo -n"
    else
        echo "20-prometheus: not root and no password-less sudo; skipping install" >&2
        exit 0
    fi
fi
export DEBIAN_FRONTEND=noninteractive
install() {
    # --no-install-recommends: we need the two binaries, not the exporters or the web console deps.
    $SUDO apt-get install -y -q --no-install-recommends prometheus >/dev/null 2>&1
}
# Package lists may be missing (fresh image) or stale (candidate gone): update once, then retry.
if ! install; then
    $SUDO apt-get update -q >/dev/null 2>&1 || true
    install || {
        echo "20-prometheus: apt-get install prometheus failed; Prometheus back-end tests will skip" >&2
        exit 0
    }
fi
# The package's postinst may start a system daemon on :9090 where an init system exists; our tests
# start their own instance on a free port, so the daemon is not needed (and is not stopped by us).
command -v promtool >/dev/null 2>&1 || echo "20-prometheus: promtool missing after install" >&2
exit 0
