"""The worker's fork server: bundled stdio servers start as forks of one pre-imported process.

A demo environment starts its bundled servers as ``python -m mcpservers.launch <name> ...``
(`diagnosis.registry`). Given `AGENTOPS_FORKSERVER` (a socket path) in its environment, that
launcher asks the fork server (mcpservers/forkserver.py) for a fork of the already imported
server instead of importing the MCP SDK itself: the start costs tens of milliseconds of CPU,
not most of a second. Without it the launcher runs the server the usual way.

`ForkServer` is the handle the process's session pool owns: it starts the fork server on the
first start that can use it, hands out its socket path while it runs, starts a new one if it
died, and stops it (its children with it) when the pool closes. A fork server that will not
start is logged and not tried again for a while; the starts go the usual way meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from diagnosis.registry import CHILD_ENV, FORKSERVER_ENV

if TYPE_CHECKING:
    from collections.abc import Mapping

logger = logging.getLogger(__name__)

READY_TIMEOUT = (
    60.0  # its imports take about a second alone, longer on a loaded machine
)
RETRY_AFTER = 60.0  # after a failed start, starts go the usual way for this long
STOP_TIMEOUT = 5.0


class ForkServer:
    """One fork server, started on first use; all methods run on the pool's event loop."""

    def __init__(self) -> None:
        self._process: asyncio.subprocess.Process | None = None
        self._dir: Path | None = None
        self._lock = asyncio.Lock()
        self._failed_at = -RETRY_AFTER
        self.starts = 0

    @property
    def pid(self) -> int | None:
        process = self._process
        return (
            process.pid if process is not None and process.returncode is None else None
        )

    async def environ(self, environ: Mapping[str, str]) -> dict[str, str]:
        """`environ` with the fork server's socket added, or as it is when there is none."""
        path = await self.socket_path()
        return {**environ, FORKSERVER_ENV: path} if path is not None else dict(environ)

    async def socket_path(self) -> str | None:
        async with self._lock:
            if self._process is not None and self._process.returncode is None:
                assert self._dir is not None
                return str(self._dir / "fork.sock")
            await self._cleanup()
            if time.monotonic() - self._failed_at < RETRY_AFTER:
                return None
            try:
                return await self._start()
            except (OSError, TimeoutError, RuntimeError) as exc:
                self._failed_at = time.monotonic()
                logger.warning(
                    "the fork server did not start (%s); servers start the usual way",
                    exc,
                )
                await self._cleanup()
                return None

    async def _start(self) -> str:
        self._dir = Path(
            tempfile.mkdtemp(prefix="agentops-fork-")
        )  # 0700: only we can connect
        path = self._dir / "fork.sock"
        # Its initial environment is what its forks inherit in /proc/PID/environ: the minimum.
        env = {name: os.environ[name] for name in CHILD_ENV if name in os.environ}
        self._process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "mcpservers.forkserver",
            "--socket",
            str(path),
            stdin=asyncio.subprocess.PIPE,  # its end of file is our exit
            stdout=asyncio.subprocess.PIPE,
            env=env,
        )
        assert self._process.stdout is not None
        async with asyncio.timeout(READY_TIMEOUT):
            line = await self._process.stdout.readline()
        if not line.startswith(b"ready "):
            raise RuntimeError(f"it exited with {await self._process.wait()}")
        self.starts += 1
        logger.info("fork server %s ready at %s", self._process.pid, path)
        return str(path)

    async def close(self) -> None:
        async with self._lock:
            await self._cleanup()

    async def _cleanup(self) -> None:
        process, self._process = self._process, None
        if process is not None and process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.terminate()  # it kills its children, then exits
            try:
                async with asyncio.timeout(STOP_TIMEOUT):
                    await process.wait()
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
                await process.wait()
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None
