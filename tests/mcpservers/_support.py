"""Helpers for the bundled MCP server tests: the fixture scenario, servers as subprocesses, SDK client sessions."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx2
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parent / "fixtures"
DEMO = FIXTURES / "demo"
TOKEN = "test-token-0123456789"
START_TIMEOUT_S = 60  # importing the SDK takes seconds on a loaded machine
_URL_LINE = re.compile(r"serving Streamable HTTP on (http://\S+)")


@dataclass
class ServerProcess:
    """A server started with --http on a free port; `stderr` collects its output for failure messages."""

    proc: subprocess.Popen[str]
    url: str = ""
    stderr: list[str] = field(default_factory=list)
    ready: threading.Event = field(default_factory=threading.Event)

    def _drain(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.stderr.append(line)
            match = _URL_LINE.search(line)
            if match:
                self.url = match.group(1)
                self.ready.set()
        self.ready.set()  # EOF: the process died before serving

    def wait_ready(self) -> str:
        if not self.ready.wait(START_TIMEOUT_S) or not self.url:
            self.stop()
            raise AssertionError("server did not start:\n" + "".join(self.stderr))
        return self.url

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        if self.proc.stderr is not None:
            self.proc.stderr.close()


def start_http_server(
    module: str, *args: str, env: dict[str, str] | None = None
) -> ServerProcess:
    """Start `python -m module --http 127.0.0.1:0 args…`; call `wait_ready()` for its URL."""
    proc = subprocess.Popen(
        [sys.executable, "-m", module, "--http", "127.0.0.1:0", *args],
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    server = ServerProcess(proc)
    threading.Thread(target=server._drain, daemon=True).start()
    return server


def server_args(module: str, tmp: Path) -> list[str]:
    """Arguments that run each server on the fixture scenario (or a fresh ledger)."""
    return {
        "mcpservers.logs": ["--scenario", str(DEMO)],
        "mcpservers.metrics": ["--scenario", str(DEMO)],
        "mcpservers.runbooks": ["--scenario", str(DEMO)],
        "mcpservers.actions": ["--ledger", str(tmp / "ledger.jsonl")],
    }[module]


SERVERS = (
    "mcpservers.logs",
    "mcpservers.metrics",
    "mcpservers.runbooks",
    "mcpservers.actions",
)


@contextlib.asynccontextmanager
async def stdio_session(module: str, *args: str) -> AsyncIterator[ClientSession]:
    """An initialized SDK `ClientSession` to `python -m module args…` over stdio."""
    params = StdioServerParameters(
        command=sys.executable, args=["-m", module, *args], cwd=str(ROOT)
    )
    with tempfile.TemporaryFile("w+") as errlog:
        try:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                yield session
        except BaseException:
            errlog.seek(0)
            sys.stderr.write(f"--- {module} stderr ---\n{errlog.read()}")
            raise


@contextlib.asynccontextmanager
async def http_session(
    url: str, *, token: str | None = TOKEN
) -> AsyncIterator[ClientSession]:
    """An initialized SDK `ClientSession` over Streamable HTTP, sending the bearer token when given."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30)) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


def structured(result: Any) -> dict[str, Any]:
    """The structured content of a successful tool result, failing with its text otherwise."""
    assert not result.is_error, result.content[0].text
    assert result.structured_content is not None
    return result.structured_content


def error_text(result: Any) -> str:
    """The message of a tool error result (is_error must be set)."""
    assert result.is_error, f"expected a tool error, got {result.structured_content}"
    return result.content[0].text
