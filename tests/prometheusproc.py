"""A real Prometheus for tests: Debian's binary on a free 127.0.0.1 port, up until the block ends."""

import contextlib
import socket
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def running_prometheus(
    config_file: Path, data_dir: Path, *extra_args: str
) -> Iterator[tuple[str, list[str]]]:
    """Yield (base URL, the log lines so far) once Prometheus says it is ready (60 s at most)."""
    port = _free_port()
    proc = subprocess.Popen(
        [
            "prometheus",
            f"--config.file={config_file}",
            f"--storage.tsdb.path={data_dir}",
            f"--web.listen-address=127.0.0.1:{port}",
            *extra_args,
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    ready = threading.Event()
    log: list[str] = []

    def watch() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            log.append(line)
            if "Server is ready to receive web requests" in line:
                ready.set()
        ready.set()

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        if not ready.wait(60) or proc.poll() is not None:
            raise AssertionError(
                "prometheus did not become ready:\n" + "".join(log[-20:])
            )
        yield f"http://127.0.0.1:{port}", log
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
        # The pipe ends with the process: let the watcher read to EOF before the file is closed
        # under it (closing first raced with its read: "I/O operation on closed file").
        watcher.join(10)
        if proc.stderr is not None and not watcher.is_alive():
            proc.stderr.close()
