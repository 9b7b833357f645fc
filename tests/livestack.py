"""Real processes for end-to-end tests: Daphne and a Celery worker on the test's database."""

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import httpx

from agentops import stack

CHILD_APPLICATION_NAME = "agentops-test-child"


def child_database_url() -> str:
    """A DATABASE_URL for a child process that must use this test's database (TCP or socket)."""
    # The name lets the test wait for exactly the children's sessions to end.
    return stack.database_url(application_name=CHILD_APPLICATION_NAME)


def redis_url_with_db(number: int) -> str:
    """REDIS_URL of this run (the machine's or the embedded one) on another database number, emptied."""
    import redis
    from django.conf import settings

    parts = urlsplit(settings.REDIS_URL)
    url = urlunsplit(parts._replace(path=f"/{number}"))
    client = redis.Redis.from_url(url)
    try:
        client.flushdb()
    finally:
        client.close()
    return url


free_port = stack.free_port


def wait_for(predicate, *, timeout: float, what: str):
    """Poll predicate until it returns something truthy; fail after timeout seconds."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def stop(*procs: subprocess.Popen) -> None:
    """SIGTERM to each process group at once, then wait for each: up to 15 s, then SIGKILL.
    Stopping them together costs the slowest one's shutdown, not the sum."""
    running = [proc for proc in procs if proc.poll() is None]
    for proc in running:
        os.killpg(proc.pid, signal.SIGTERM)
    end = time.monotonic() + 15
    for proc in running:
        try:
            proc.wait(timeout=max(0.0, end - time.monotonic()))
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=5)


@contextlib.contextmanager
def web_and_worker(
    db_env: dict[str, str],
    *,
    broker_db: int,
    log_dir: Path | None = None,
    loglevel: str = "WARNING",
) -> Iterator[str]:
    """Start Daphne and one Celery worker on a Redis database of their own; yield the base URL.

    With `log_dir`, their stdout and stderr go to `web.log` and `worker.log` there."""
    redis_url = redis_url_with_db(broker_db)
    env = {
        **db_env,
        "REDIS_URL": redis_url,
        "CELERY_BROKER_URL": redis_url,
        "DIAGNOSIS_LEASE_SECONDS": "5",
    }
    port = free_port()
    outputs = (
        ((log_dir / "web.log").open("wb"), (log_dir / "worker.log").open("wb"))
        if log_dir is not None
        else (subprocess.DEVNULL, subprocess.DEVNULL)
    )
    web = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "daphne"),
            "-b",
            "127.0.0.1",
            "-p",
            str(port),
            "agentops.asgi:application",
        ],
        env=env,
        start_new_session=True,
        stdout=outputs[0],
        stderr=subprocess.STDOUT if log_dir is not None else subprocess.DEVNULL,
    )
    worker = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "agentops",
            "worker",
            "--pool=solo",
            "-n",
            f"live{broker_db}@%h",
            "--without-gossip",
            "--without-mingle",
            f"--loglevel={loglevel}",
        ],
        env=env,
        start_new_session=True,
        stdout=outputs[1],
        stderr=subprocess.STDOUT if log_dir is not None else subprocess.DEVNULL,
    )
    for output in outputs:
        if not isinstance(output, int):
            output.close()  # the children hold their own copies
    base = f"http://127.0.0.1:{port}"

    def up() -> bool:
        try:
            return httpx.get(f"{base}/healthz", timeout=1).status_code == 200
        except httpx.TransportError:
            return False

    try:
        # 60 s: a loaded 2-core CI machine has taken more than 30 s to start Daphne.
        wait_for(up, timeout=60, what="daphne to answer /healthz")
        yield base
    finally:
        stop(web, worker)
        wait_for_other_sessions_to_close()


def wait_for_other_sessions_to_close(timeout: float = 10) -> None:
    """PostgreSQL ends a dead client's backend a moment after the client exits; the test
    database can only be dropped once it has."""
    from django.db import connection

    def closed() -> bool:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name = %s",
                [CHILD_APPLICATION_NAME],
            )
            return cursor.fetchone()[0] == 0

    wait_for(closed, timeout=timeout, what="the children's database sessions to close")


def start_logged(argv: list[str], env: dict[str, str], log: Path) -> subprocess.Popen:
    """``python -m <argv>`` in its own session, stdout and stderr into ``log``."""
    with log.open("wb") as out:
        return subprocess.Popen(
            [sys.executable, "-m", *argv],
            env=env,
            start_new_session=True,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
        )


def log_tail(log: Path, lines: int = 60) -> str:
    """The last ``lines`` lines of a child's log, for an assertion message."""
    return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
