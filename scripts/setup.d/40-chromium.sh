#!/bin/sh
# Install Debian's chromium for the browser tests (playwright drives /usr/bin/chromium; no tool
# downloads a browser of its own). Quick when installed; never aborts the run: the browser tests
# skip with a reason when the binary is missing.
if [ -x /usr/bin/chromium ]; then
    exit 0
fi
if [ "$(id -u)" != "0" ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "40-chromium: not root or no apt-get; install Debian's chromium by hand to run the browser tests" >&2
    exit 0
fi
export DEBIAN_FRONTEND=noninteractive
if ! apt-get install -y -q chromium >/dev/null 2>&1; then
    apt-get update -q >/dev/null 2>&1 || true
    apt-get install -y -q chromium >/dev/null 2>&1 || echo "40-chromium: apt-get install chromium failed; browser tests will skip" >&2
fi
exit 0
