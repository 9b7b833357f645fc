"""A redis-server of one test's own on a fixed 127.0.0.1 port, which the test can stop and start
again on the same port (a broker outage) without touching the machine's Redis or the run's."""

import os
import signal
import subprocess
import time
from pathlib import Path

import redis

from agentops.embedded import EmbeddedRedis, die_with_parent
from tests.livestack import free_port


class RedisProcess:
    """redis-server in the foreground, no persistence: a restart comes back empty, as after a
    crash of a Redis without snapshots (the harder case: every queued message is gone)."""

    def __init__(self, directory: Path, port: int | None = None) -> None:
        self.directory = directory
        self.port = port or free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 15) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        # The same port again after a stop: a client that reconnects finds its broker back.
        argv = [EmbeddedRedis.executable(), "--port", str(self.port)]
        argv += ["--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        argv += ["--dir", str(self.directory)]
        self.process = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            preexec_fn=die_with_parent(os.getpid()),
        )
        client = redis.Redis.from_url(self.url, socket_timeout=1)
        deadline = time.monotonic() + timeout
        try:
            while time.monotonic() < deadline and self.process.poll() is None:
                try:
                    if client.ping():
                        return
                except redis.ConnectionError:
                    time.sleep(0.05)
        finally:
            client.close()
        raise AssertionError(f"redis-server on port {self.port} did not start")

    def stop(self) -> None:
        """SIGTERM (no snapshot to write) and wait: clients see their connections closed."""
        proc, self.process = self.process, None
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(signal.SIGCONT)  # a paused server must run to stop
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)

    def pause(self) -> None:
        """SIGSTOP: connections stay open and connects still succeed (the kernel accepts them),
        but nothing answers, as when a broker hangs or the network drops its packets."""
        assert self.process is not None
        self.process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGCONT)

    def __enter__(self) -> "RedisProcess":
        self.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()
