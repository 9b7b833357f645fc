#!/bin/sh
# Install Debian's prometheus-alertmanager for tests/diagnosis/test_alerts_live.py.
# Idempotent and quick when already installed; never aborts the test run (./test ignores our status,
# and the test that needs it skips with a reason when it is missing).
if command -v prometheus-alertmanager >/dev/null 2>&1; then
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "22-alertmanager: apt-get not available; install prometheus-alertmanager by hand" >&2
    exit 0
fi
SUDO=""
if [ "$(id -u)" != "0" ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        SUDO="sudo -n"
    else
        echo "22-alertmanager: not root and no password-less sudo; skipping install" >&2
        exit 0
    fi
fi
export DEBIAN_FRONTEND=noninteractive
install() {
    $SUDO apt-get install -y -q --no-install-recommends prometheus-alertmanager >/dev/null 2>&1
}
# Package lists may be missing (fresh image) or stale (candidate gone): update once, then retry.
if ! install; then
    $SUDO apt-get update -q >/dev/null 2>&1 || true
    install || {
        echo "22-alertmanager: apt-get install prometheus-alertmanager failed; its test will skip" >&2
        exit 0
    }
fi
# The package's postinst may start a system daemon on :9093 where an init system exists; the test
# starts its own instance on a free port, so the daemon is not needed (and is not stopped by us).
exit 0
