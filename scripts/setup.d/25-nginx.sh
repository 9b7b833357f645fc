#!/bin/sh
# Install Debian's nginx for tests/test_nginx_sse.py (deploy/nginx.conf in front of two Daphnes).
# Idempotent and quick when already installed; never aborts the test run (./test ignores our status,
# and the test skips with a reason when the binary is missing). The tests run their own nginx with
# a generated config on 127.0.0.1; the package's own service is never started (policy-rc.d).
if command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ]; then
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "25-nginx: apt-get not available; install nginx by hand" >&2
    exit 0
fi
SUDO=""
if [ "$(id -u)" != "0" ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        SUDO="sudo -n"
    else
        echo "25-nginx: not root and no password-less sudo; skipping install" >&2
        exit 0
    fi
fi
export DEBIAN_FRONTEND=noninteractive
# The package's postinst would start a system nginx on 0.0.0.0:80 with the default site. Debian's
# policy-rc.d answer 101 ("action forbidden") stops that; container images usually ship one, and
# where none exists we put one in place for the install only.
POLICY=/usr/sbin/policy-rc.d
OWN_POLICY=""
if [ ! -e "$POLICY" ]; then
    printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$POLICY" >/dev/null && $SUDO chmod 755 "$POLICY" && OWN_POLICY=1
fi
install() {
    $SUDO apt-get install -y -q --no-install-recommends nginx >/dev/null 2>&1
}
# Package lists may be missing (fresh image) or stale (candidate gone): update once, then retry.
if ! install; then
    $SUDO apt-get update -q >/dev/null 2>&1 || true
    install || echo "25-nginx: apt-get install nginx failed; the nginx SSE tests will skip" >&2
fi
if [ -n "$OWN_POLICY" ]; then
    $SUDO rm -f "$POLICY"
fi
exit 0
