"""Daphne and Celery workers as child processes on this process's database and Redis.

For `manage.py evaluate` and bench/engine.py: the children run the app's own settings against
the database this process is connected to (its URL rebuilt from the connection settings, so a
test database too) and the same Redis; each runs in its own session with its output in a log
file, and is stopped (its whole session) on close. A child also gets SIGTERM when this process dies
without closing (killed by its pid, even by SIGKILL: Linux's parent-death signal), so a killed
`evaluate` leaves no worker consuming from its Redis.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlencode

import httpx

from agentops.embedded import die_with_parent

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from types import TracebackType

BASE_DIR = Path(__file__).resolve().parent.parent
STOP_TIMEOUT = 15.0


class StackError(RuntimeError):
    """A child did not come up; the message carries the end of its log."""


def database_url(
    settings_dict: Mapping[str, Any] | None = None,
    *,
    application_name: str | None = None,
) -> str:
    """A DATABASE_URL naming the database of `settings_dict` (default: the default connection's).

    `application_name` marks the children's sessions, so one can wait for exactly them to end.
    """
    if settings_dict is None:
        from django.db import connection

        settings_dict = connection.settings_dict
    auth = quote(settings_dict["USER"] or "postgres", safe="")
    if settings_dict["PASSWORD"]:
        auth += f":{quote(settings_dict['PASSWORD'], safe='')}"
    options = {
        k: str(v)
        for k, v in (settings_dict.get("OPTIONS") or {}).items()
        if k != "host"
    }
    if application_name:
        options["application_name"] = application_name
    host = settings_dict["HOST"] or "127.0.0.1"
    name = quote(settings_dict["NAME"], safe="")
    if host.startswith("/"):  # a unix socket directory (the embedded PostgreSQL)
        query = urlencode({**options, "host": host})
        return f"postgresql://{auth}@/{name}?{query}"
    port = settings_dict["PORT"] or 5432
    query = urlencode(options)
    return f"postgresql://{auth}@{host}:{port}/{name}" + (f"?{query}" if query else "")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_until(
    predicate: Callable[[], bool],
    *,
    timeout: float,
    what: str,
    alive: Callable[[], bool] = lambda: True,
) -> None:
    """Poll `predicate` every 0.1 s.

    Raises:
        StackError: `alive()` turned false, or `timeout` seconds passed first.
    """
    end = time.monotonic() + timeout
    while not predicate():
        if not alive():
            raise StackError(f"gave up waiting for {what}: the process exited")
        if time.monotonic() > end:
            raise StackError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.1)


def stop_process(
    proc: subprocess.Popen[bytes], *, timeout: float = STOP_TIMEOUT
) -> None:
    """SIGTERM the child's session (a warm Celery shutdown), then SIGKILL what is left of it."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout)
    # Whatever is left in its session: pool processes, stdio MCP servers.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(5)


class LocalStack:
    """One Daphne and any number of Celery workers, started on demand, stopped on close.

    `env` overrides the children's environment (e.g. AGENTOPS_SERVERS); DATABASE_URL, REDIS_URL
    and CELERY_BROKER_URL default to this process's.
    """

    def __init__(self, log_dir: Path, env: Mapping[str, str] | None = None) -> None:
        from django.conf import settings

        self.log_dir = log_dir
        log_dir.mkdir(parents=True, exist_ok=True)
        self.application_name = f"agentops-stack-{os.getpid()}"
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "agentops.settings",
            "PYTHONPATH": os.pathsep.join(
                p for p in (str(BASE_DIR), os.environ.get("PYTHONPATH", "")) if p
            ),
            "PYTHONUNBUFFERED": "1",
            "DATABASE_URL": database_url(application_name=self.application_name),
            "REDIS_URL": settings.REDIS_URL,
            "CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
            **(env or {}),
        }
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        self.base_url = ""

    def __enter__(self) -> LocalStack:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def log(self, name: str) -> Path:
        return self.log_dir / f"{name}.log"

    def log_tail(self, name: str, lines: int = 40) -> str:
        path = self.log(name)
        text = path.read_text(errors="replace") if path.exists() else ""
        return "\n".join(text.splitlines()[-lines:])

    def _spawn(self, name: str, argv: list[str]) -> subprocess.Popen[bytes]:
        with self.log(name).open("ab") as out:
            proc = subprocess.Popen(
                argv,
                cwd=BASE_DIR,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=die_with_parent(os.getpid()),
            )
        self.procs[name] = proc
        return proc

    def start_web(self, *, timeout: float = 60) -> str:
        """Start Daphne on a free loopback port; return its base URL once /healthz answers 200.

        Raises:
            StackError: it exited or did not answer within `timeout` seconds.
        """
        port = free_port()
        self._spawn(
            "web",
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port),
             "agentops.asgi:application"],
        )  # fmt: skip
        base = f"http://127.0.0.1:{port}"

        def up() -> bool:
            try:
                return httpx.get(f"{base}/healthz", timeout=1).status_code == 200
            except httpx.TransportError:
                return False

        self._wait("web", up, timeout=timeout, what="Daphne to answer /healthz")
        self.base_url = base
        return base

    def start_worker(
        self,
        name: str,
        *,
        pool: str = "threads",
        concurrency: int = 20,
        timeout: float = 60,
    ) -> None:
        """Start a Celery worker and wait until it answers a ping (it consumes from then on).

        Raises:
            StackError: it exited or did not answer within `timeout` seconds.
        """
        from celery import Celery

        node = f"{name}-{os.getpid()}@{socket.gethostname()}"
        self._spawn(
            name,
            [sys.executable, "-m", "celery", "-A", "agentops", "worker",
             f"--pool={pool}", f"--concurrency={concurrency}", "-n", node,
             "--without-gossip", "--without-mingle", "--loglevel=WARNING"],
        )  # fmt: skip
        # An app of its own on the children's broker: this process's may point elsewhere.
        probe = Celery(broker=self.env["CELERY_BROKER_URL"])

        def pong() -> bool:
            return bool(probe.control.ping(destination=[node], timeout=0.5))

        try:
            self._wait(
                name, pong, timeout=timeout, what=f"worker {node} to answer a ping"
            )
        finally:
            probe.close()

    def _wait(
        self, name: str, predicate: Callable[[], bool], *, timeout: float, what: str
    ) -> None:
        proc = self.procs[name]
        try:
            wait_until(
                predicate, timeout=timeout, what=what, alive=lambda: proc.poll() is None
            )
        except StackError as exc:
            raise StackError(f"{exc}; its log ends:\n{self.log_tail(name)}") from None

    def stop(self, name: str) -> None:
        proc = self.procs.pop(name, None)
        if proc is not None:
            stop_process(proc)

    def close(self) -> None:
        """Stop every child (web first, so nothing new is queued), then wait until their
        database sessions are gone (a test database can be dropped only then)."""
        for name in sorted(self.procs, key=lambda n: n != "web"):
            self.stop(name)
        with contextlib.suppress(StackError):
            wait_until(
                self._sessions_closed, timeout=10, what="the children's sessions to end"
            )

    def _sessions_closed(self) -> bool:
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s",
                [self.application_name],
            )
            row = cursor.fetchone()
        return row is not None and row[0] == 0
