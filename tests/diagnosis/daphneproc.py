"""A Daphne on 127.0.0.1 serving agentops.asgi, for tests that need the real server's HTTP."""

import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

from tests.livestack import free_port

ROOT = Path(__file__).resolve().parents[2]


@contextlib.contextmanager
def daphne(env: dict[str, str] | None = None) -> Iterator[tuple[str, int]]:
    """Start Daphne; yield (base URL, port); stop it. Fails after 60 s if it does not come up."""
    port = free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "daphne",
            "-b",
            "127.0.0.1",
            "-p",
            str(port),
            "agentops.asgi:application",
        ],
        cwd=ROOT,
        env={
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "agentops.settings",
            "PYTHONPATH": str(ROOT),
            **(env or {}),
        },
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                # Reading stderr of a live process waits for its EOF, i.e. forever: end it first.
                if process.poll() is None:
                    process.kill()
                    process.wait()
                raise RuntimeError(
                    f"daphne did not start: {process.stderr.read().decode()[-2000:]}"
                )
            time.sleep(0.1)
        yield base, port
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        process.stderr.close()
