"""Fixtures for the mcpclient tests: the SDK peer over stdio and HTTP, misbehaving servers."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

import mcpclient

if TYPE_CHECKING:
    from collections.abc import Iterator

SERVERS = Path(__file__).parent / "servers"
PEER = SERVERS / "sdk_peer.py"
MISBEHAVING = SERVERS / "misbehaving_stdio.py"


def misbehaving(mode: str, arg: str = "", **kwargs: object) -> mcpclient.StdioServer:
    """A StdioServer spec for the hand-written misbehaving server in ``mode``."""
    return mcpclient.StdioServer(
        command=[sys.executable, str(MISBEHAVING), mode, arg], **kwargs
    )  # type: ignore[arg-type]


@pytest.fixture
def sdk_stdio() -> mcpclient.StdioServer:
    # A generous close_timeout: on a loaded machine the SDK server may need seconds to exit cleanly.
    return mcpclient.StdioServer(
        command=[sys.executable, str(PEER)], name="sdk-peer", close_timeout=15.0
    )


def _start_http_peer(*flags: str, path: str = "/mcp") -> Iterator[str]:
    proc = subprocess.Popen(
        [sys.executable, str(PEER), *(flags or ["--http"])],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        assert line.startswith("PORT "), f"peer did not start: {line!r}"
        yield f"http://127.0.0.1:{int(line.split()[1])}{path}"
    finally:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stdout:
            proc.stdout.close()


@pytest.fixture(scope="session")
def sdk_http_url() -> Iterator[str]:
    """The SDK peer over Streamable HTTP: stateful sessions, SSE answers."""
    yield from _start_http_peer()


@pytest.fixture(scope="session")
def sdk_http_json_url() -> Iterator[str]:
    """The SDK peer over Streamable HTTP: stateless, JSON answers."""
    yield from _start_http_peer("--http", "--stateless", "--json")


@pytest.fixture(scope="session")
def sdk_sse_url() -> Iterator[str]:
    """The SDK peer over the 2024-11-05 HTTP+SSE transport."""
    yield from _start_http_peer("--sse", path="/sse")
