"""The servers bench/load.py runs against, torn down in Stack.stop().

The load bench: a private database on DATABASE_URL's server (or the machine's PostgreSQL), a
private redis-server unless REDIS_URL is set, one Daphne, one Celery worker (prefork, stamped:
bench/load.py's `_worker`) and beat. The soak (`args.soak`): a PostgreSQL and a Redis of its
own (tests/pgproc.py, tests/redisproc.py: restartable on the same port, never the machine's),
two Daphnes (the two senders post to one each), and a worker the soak may SIGKILL and start
again (`kill_worker`, `start_worker`).
"""

from __future__ import annotations

import collections
import contextlib
import io
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.sse import create_database, drop_database, free_port, wait_port  # noqa: E402

PY = Path(sys.executable)
LOAD = ROOT / "bench" / "load.py"
VARYING = re.compile(r"0x[0-9a-f]+|[0-9a-f]{8}-[0-9a-f-]{27}|\d+")


class Stack:
    """Redis, a private database, Daphne(s), a worker and beat; torn down in stop()."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.soak = bool(getattr(args, "soak", False))
        self.dir = Path(tempfile.mkdtemp(prefix="agentops-soak-" if self.soak else "agentops-load-"))  # fmt: skip
        (self.dir / "stamps").mkdir()
        self.procs: dict[str, subprocess.Popen] = {}
        self.redis: subprocess.Popen | None = None
        base = os.environ.get(
            "DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
        )
        self.admin_url = base.split("?")[0].rsplit("/", 1)[0] + "/postgres"
        self.db_name = f"agentops_load_{os.getpid()}"
        self.db_url: str | None = None
        self.ports = [free_port() for _ in range(2 if self.soak else 1)]
        self.port = self.ports[0]
        self.pg = None  # tests.pgproc.PostgresProcess (the soak's own)
        self.redis_proc = None  # tests.redisproc.RedisProcess (the soak's own)
        self.worker_starts = 0

    def start(self) -> dict[str, str]:
        extra: dict[str, str] = {}
        if self.soak:
            from tests.pgproc import PostgresProcess
            from tests.redisproc import RedisProcess

            self.pg = PostgresProcess(self.dir / "pg")
            self.pg.start()
            self.db_url = self.pg.create_database("agentops_soak")
            self.redis_proc = RedisProcess(self.dir / "redis")
            self.redis_proc.start()
            redis_url = self.redis_proc.url
            extra = dict(self.args.soak_env)
        else:
            redis_url = os.environ.get("REDIS_URL") or self._start_redis()
            self.db_url = create_database(self.admin_url, self.db_name)
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "agentops.settings",
            "PYTHONPATH": str(ROOT),
            "DATABASE_URL": self.db_url,
            "REDIS_URL": redis_url,
            "CELERY_BROKER_URL": redis_url,
            "SSE_MAX_STREAMS_PER_USER": "1000000",  # one user holds every stream here
            "LOG_LEVEL": "WARNING",
            "BENCH_LOAD_STAMPS": str(self.dir / "stamps"),
            **extra,
        }
        names = ("DATABASE_URL", "REDIS_URL", *extra)
        os.environ.update({k: self.env[k] for k in names})
        os.environ["DJANGO_SETTINGS_MODULE"] = "agentops.settings"
        subprocess.run(
            [str(PY), "manage.py", "migrate", "-v", "0"],
            cwd=ROOT,
            env=self.env,
            check=True,
            timeout=120,
        )
        for i, port in enumerate(self.ports):
            self.spawn(
                "daphne" if i == 0 else f"daphne{i + 1}",
                [
                    str(PY.with_name("daphne")),
                    "-e",
                    f"tcp:port={port}:interface=127.0.0.1:backlog=4096",
                    "agentops.asgi:application",
                ],
            )
        self.start_worker()
        self.spawn(
            "beat",
            [
                str(PY),
                "-m",
                "celery",
                "-A",
                "agentops",
                "beat",
                "--loglevel=WARNING",
                "--schedule",
                str(self.dir / "beat-schedule"),
            ],
        )
        for i, port in enumerate(self.ports):
            wait_port(port, self.procs["daphne" if i == 0 else f"daphne{i + 1}"], timeout=30)  # fmt: skip
        return self.env

    def _start_redis(self) -> str:
        redis_port = free_port()
        self.redis = subprocess.Popen(
            [
                shutil.which("redis-server") or "redis-server",
                "--port",
                str(redis_port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.dir),
            ],
            stdout=subprocess.DEVNULL,
            start_new_session=True,
        )
        wait_port(redis_port, self.redis, timeout=15)
        return f"redis://127.0.0.1:{redis_port}/0"

    def start_worker(self) -> None:
        """The Celery worker (prefork), stamped; again after kill_worker, with the same name."""
        self.worker_starts += 1
        self.spawn(
            "worker",
            [
                str(PY),
                str(LOAD),
                "_worker",
                "-A",
                "agentops",
                "worker",
                "--pool=prefork",
                f"--concurrency={self.args.concurrency}",
                "-n",
                f"load{os.getpid()}@%h",
                "--without-gossip",
                "--without-mingle",
                "--loglevel=WARNING",
            ],
        )

    def kill_worker(self) -> int:
        """SIGKILL the worker's whole process group (the main process and its prefork children,
        as an OOM kill or a lost host would); returns the group's id."""
        proc = self.procs["worker"]
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)
        return proc.pid

    def spawn(self, name: str, argv: list[str]) -> None:
        log = (self.dir / f"{name}.log").open("ab")
        self.procs[name] = subprocess.Popen(
            argv,
            cwd=ROOT,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own group: a prefork worker's children go with it
        )
        log.close()

    def check_alive(self) -> None:
        for name, proc in self.procs.items():
            if proc.poll() is not None:
                raise RuntimeError(f"{name} exited with {proc.returncode}")

    def log_problems(self, limit: int = 12) -> list[str]:
        """Warnings and errors the servers logged, counted by message (timestamps cut)."""
        counts: collections.Counter[str] = collections.Counter()
        for name in self.procs:
            path = self.dir / f"{name}.log"
            if not path.exists():
                continue
            for line in path.read_text(errors="replace").splitlines():
                for level in (" WARNING ", " ERROR ", " CRITICAL ", "Traceback"):
                    if level in line:
                        message = line[line.index(level) :].strip()
                        message = VARYING.sub("#", message)  # ids, addresses, numbers
                        counts[f"{name}: {message[:160]}"] += 1
                        break
        return [f"{n:5d} x {line}" for line, n in counts.most_common(limit)]

    def stop(self, *, keep_data: bool = False) -> None:
        """Everything down; keep_data keeps the soak's PostgreSQL cluster (stopped) in self.dir/pg."""
        for name in [n for n in self.procs if n.startswith("daphne")] + ["beat", "worker"]:  # fmt: skip
            proc = self.procs.get(name)
            if proc is None or proc.poll() is not None:
                continue
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(5)
            # Prefork children left in the group (the leader gone first).
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
        with contextlib.suppress(Exception):
            from django.db import connections

            connections.close_all()
        if self.pg is not None:
            with contextlib.suppress(OSError):  # kept with the other logs
                shutil.copy(self.pg.log, self.dir / "postgres.log")
            if keep_data:
                with contextlib.suppress(Exception):
                    self.pg.stop()
            else:
                self.pg.cleanup()  # the whole cluster goes (its folder is under self.dir)
        elif self.db_url is not None:
            drop_database(self.admin_url, self.db_name)
        if self.redis_proc is not None:
            self.redis_proc.stop()
        if self.redis is not None:
            self.redis.kill()
            self.redis.wait(10)


def api_token(*, role: str | None = None) -> str:
    from django.core.management import call_command

    out = io.StringIO()
    options = {"role": role} if role else {}
    call_command("create_api_token", tenant="load", user="load", stdout=out, **options)
    return out.getvalue().strip().splitlines()[-1]


def commit_stamps(directory: Path) -> dict[tuple[str, int], float]:
    stamps = {}
    for path in directory.glob("*.tsv"):
        for line in path.read_text().splitlines():
            task, seq, at = line.split("\t")
            stamps[(task, int(seq))] = float(at)
    return stamps
