"""A small supervisor: `python -m agentops.launcher run|test|services`.

run       embedded PostgreSQL + Redis (unless DATABASE_URL / REDIS_URL are set), migrate,
          collectstatic, the demo tenant and user, then Daphne, a Celery worker and beat.
          A child that exits is restarted, after a delay that doubles with each quick exit in
          a row (AGENTOPS_RESTART_DELAY, at most AGENTOPS_RESTART_MAX_DELAY); each exit and
          restart is logged. Only a stop signal stops everything.
prepare   migrate, collectstatic and the demo tenant against the configured services.
test      the same services (a throw-away Redis per run), then pytest; exits with its status.
services  only the embedded services; prints their URLs until Ctrl-C.

Every child runs in its own session (Ctrl-C reaches only us, so we stop them in order: web and
workers first, then Redis, then PostgreSQL) and, on Linux, gets SIGTERM if we die.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agentops import embedded

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

BASE_DIR = embedded.BASE_DIR
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
# pytest's "no tests collected": a failure for the whole suite, fine for a filtered run.
PYTEST_NO_TESTS = 5


class Stop(Exception):
    """A stop signal arrived while we were starting up."""


@dataclass
class Restart:
    """How one supervised child is started again, and how often it has died lately."""

    argv: list[str]
    started_at: float
    # Exits in a row that came sooner than the longest delay after their start.
    quick_exits: int = 0
    restarts: int = 0
    # When the pending restart is due (time.monotonic()); None while the child runs.
    due_at: float | None = None


def restart_delay(quick_exits: int, *, first: float, longest: float) -> float:
    """The wait before a restart: first, doubled for each further quick exit, at most longest."""
    return min(longest, first * 2.0 ** max(0, quick_exits - 1))


def describe_exit(returncode: int) -> str:
    if returncode < 0:
        with contextlib.suppress(ValueError):
            return f"was killed by {signal.Signals(-returncode).name}"
    return f"exited with status {returncode}"


class Supervisor:
    """Starts children in their own sessions and stops them in reverse order."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = env
        self.children: list[tuple[str, subprocess.Popen[bytes]]] = []
        self.stop_signal: int | None = None
        self.grace = float(os.environ.get("AGENTOPS_STOP_TIMEOUT", "10"))
        self.restart_first = float(os.environ.get("AGENTOPS_RESTART_DELAY", "1"))
        self.restart_longest = float(os.environ.get("AGENTOPS_RESTART_MAX_DELAY", "30"))
        self.restarts: dict[str, Restart] = {}

    def install_signal_handlers(self) -> None:
        def handler(signum: int, _frame: object) -> None:
            self.stop_signal = signum

        for signum in STOP_SIGNALS:
            signal.signal(signum, handler)

    def check(self) -> None:
        if self.stop_signal is not None:
            raise Stop(signal.Signals(self.stop_signal).name)

    def _popen(self, argv: Sequence[str]) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            list(argv),
            cwd=BASE_DIR,
            env=self.env,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            preexec_fn=embedded.die_with_parent(os.getpid()),
        )

    def spawn(self, name: str, argv: Sequence[str]) -> subprocess.Popen[bytes]:
        proc = self._popen(argv)
        self.children.append((name, proc))
        return proc

    def supervise(self, name: str, argv: Sequence[str]) -> subprocess.Popen[bytes]:
        """Spawn a child that watch() restarts whenever it exits."""
        proc = self.spawn(name, argv)
        self.restarts[name] = Restart(argv=list(argv), started_at=time.monotonic())
        return proc

    def step(self, name: str, argv: Sequence[str]) -> None:
        """Run one set-up command to its end; a stop signal terminates it."""
        self.check()
        proc = self.spawn(name, argv)
        while proc.poll() is None:
            if self.stop_signal is not None:
                self.stop_all()
                self.check()
            time.sleep(0.05)
        self.children.remove((name, proc))
        if proc.returncode != 0:
            raise SystemExit(
                f"launcher: {name} failed with exit status {proc.returncode}"
            )

    def watch(self) -> int:
        """Restart supervised children that exit, until a stop signal (→ 0); an unsupervised
        child that exits stops everything (→ 1)."""
        while True:
            if self.stop_signal is not None:
                name = signal.Signals(self.stop_signal).name
                print(f"launcher: {name}, stopping", flush=True)
                return 0
            for index, (name, proc) in enumerate(self.children):
                restart = self.restarts.get(name)
                if restart is None:
                    if proc.poll() is not None:
                        print(
                            f"launcher: {name} {describe_exit(proc.returncode)}; stopping everything",
                            file=sys.stderr,
                            flush=True,
                        )
                        return 1
                elif restart.due_at is None:
                    if proc.poll() is not None:
                        self._schedule_restart(name, proc, restart)
                elif time.monotonic() >= restart.due_at:
                    self.children[index] = (name, self._restart(name, restart))
            time.sleep(0.1)

    def _schedule_restart(
        self, name: str, proc: subprocess.Popen[bytes], restart: Restart
    ) -> None:
        now = time.monotonic()
        ran = now - restart.started_at
        # A child that ran at least the longest delay was healthy: start counting again.
        restart.quick_exits = (
            1 if ran >= self.restart_longest else restart.quick_exits + 1
        )
        delay = restart_delay(
            restart.quick_exits, first=self.restart_first, longest=self.restart_longest
        )
        restart.due_at = now + delay
        # What the dead leader leaves behind in its session (a worker's pool processes).
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        in_a_row = (
            f", {restart.quick_exits} quick exits in a row"
            if restart.quick_exits > 1
            else ""
        )
        print(
            f"launcher: {name} {describe_exit(proc.returncode)} after {ran:.1f}s"
            f"{in_a_row}; restarting it in {delay:.1f}s",
            file=sys.stderr,
            flush=True,
        )

    def _restart(self, name: str, restart: Restart) -> subprocess.Popen[bytes]:
        proc = self._popen(restart.argv)
        restart.started_at = time.monotonic()
        restart.due_at = None
        restart.restarts += 1
        print(
            f"launcher: {name} restarted (pid {proc.pid}, restart {restart.restarts})",
            file=sys.stderr,
            flush=True,
        )
        return proc

    def stop_all(self) -> None:
        """SIGTERM each child (newest first), wait up to the grace period, then SIGKILL its group."""
        for _name, proc in reversed(self.children):
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    # The leader only: a Celery worker then finishes (warm shutdown) and stops its
                    # pool itself; signalling the pool directly would kill running tasks.
                    proc.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + self.grace
        for name, proc in reversed(self.children):
            try:
                proc.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                print(
                    f"launcher: {name} still running after {self.grace:.0f}s, killing it",
                    file=sys.stderr,
                    flush=True,
                )
            # Sweep the child's whole session: pool processes, grandchildren.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        self.children.clear()
        self.restarts.clear()


def _python(*args: str) -> list[str]:
    return [sys.executable, *args]


def cmd_prepare(args: argparse.Namespace) -> int:
    """System checks (a bad AGENTOPS_SERVERS file stops here), migrate, collectstatic (copies
    only what changed) and the demo tenant, in this process."""
    import django
    from django.core.management import call_command

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "agentops.settings")
    django.setup()
    call_command("check")  # migrate skips the system checks
    call_command("migrate", interactive=False, verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)
    call_command("seed_demo", url=args.url)
    return 0


@contextlib.contextmanager
def _services_for(
    env: dict[str, str], base: Path, *, ephemeral_redis: bool
) -> Iterator[None]:
    """Start the embedded services whose URL is not set, and put their URLs into env."""
    need_db = not env.get("DATABASE_URL")
    need_redis = not env.get("REDIS_URL")
    if not (need_db or need_redis):
        yield
        return
    started = time.monotonic()
    embedded.prepare_runtime_dir(base, force=True)
    with embedded.embedded_services(
        base, database=need_db, redis=need_redis, ephemeral_redis=ephemeral_redis
    ) as urls:
        if need_db:
            env["DATABASE_URL"] = urls.database_url
        if need_redis:
            env["REDIS_URL"] = urls.redis_url
        env["XDG_RUNTIME_DIR"] = os.environ["XDG_RUNTIME_DIR"]
        names = " and ".join(
            name for name, on in (("PostgreSQL", need_db), ("Redis", need_redis)) if on
        )
        print(
            f"launcher: embedded {names} up in {time.monotonic() - started:.1f}s under {base}",
            flush=True,
        )
        yield


@contextlib.contextmanager
def _exclusive(base: Path) -> Iterator[None]:
    """One `run`/`services` per data folder: they own its Redis and port."""
    base.mkdir(parents=True, exist_ok=True)
    lock = base / "launcher.pid"
    pid = embedded._read_pid(lock)
    if pid and pid != os.getpid() and embedded._alive(pid) is not None:
        raise SystemExit(
            f"launcher: another launcher (pid {pid}) is using {base}; stop it first "
            "or set AGENTOPS_DATA_DIR to another folder"
        )
    lock.write_text(f"{os.getpid()}\n")
    try:
        yield
    finally:
        if embedded._read_pid(lock) == os.getpid():
            lock.unlink(missing_ok=True)


def _wait_for_port(
    host: str, port: int, proc: subprocess.Popen[bytes], sup: Supervisor
) -> bool:
    deadline = time.monotonic() + 60
    while (
        time.monotonic() < deadline and proc.poll() is None and sup.stop_signal is None
    ):
        with (
            contextlib.suppress(OSError),
            socket.create_connection((host, port), timeout=0.5),
        ):
            return True
        time.sleep(0.1)
    return False


def cmd_run(args: argparse.Namespace) -> int:
    started = time.monotonic()
    base = embedded.data_dir()
    env = dict(os.environ)
    env.setdefault("DEBUG", "1")
    env["AGENTOPS_DATA_DIR"] = str(base)
    env.setdefault("STATIC_ROOT", str(base / "staticfiles"))
    env["PYTHONUNBUFFERED"] = "1"
    url = f"http://{args.host}:{args.port}"
    if args.host not in {"127.0.0.1", "localhost"}:
        env.setdefault("ALLOWED_HOSTS", f"{args.host},127.0.0.1,localhost")
    env.setdefault("CSRF_TRUSTED_ORIGINS", f"{url},http://localhost:{args.port}")
    sup = Supervisor(env)
    sup.install_signal_handlers()
    with _exclusive(base), _services_for(env, base, ephemeral_redis=False):
        try:
            return _run_stack(sup, env, args, url, started)
        except Stop:
            return 0
        finally:
            # Web and workers stop before the services they use.
            sup.stop_all()


def _run_stack(
    sup: Supervisor,
    env: dict[str, str],
    args: argparse.Namespace,
    url: str,
    started: float,
) -> int:
    celery_dir = Path(env["AGENTOPS_DATA_DIR"]) / "celery"
    celery_dir.mkdir(parents=True, exist_ok=True)
    sup.check()
    # One process for the three set-up commands: each Django start costs a second or more.
    sup.step(
        "prepare",
        _python("-m", "agentops.launcher", "prepare", "--url", f"{url}/"),
    )
    # Supervised: watch() restarts any of the three that exits.
    web = sup.supervise(
        "web (daphne)",
        _python(
            "-m",
            "daphne",
            "-b",
            args.host,
            "-p",
            str(args.port),
            "agentops.asgi:application",
        ),
    )
    sup.supervise(
        "worker (celery)",
        _python(
            "-m", "celery", "-A", "agentops", "worker",
            "--loglevel", env.get("LOG_LEVEL", "INFO"),
            # Diagnoses wait on I/O: one thread (and asyncio loop) each, 20 at once (bench/engine.py).
            "--pool", env.get("WORKER_POOL", "threads"),
            "--concurrency", env.get("WORKER_CONCURRENCY", "20"),
            "--hostname", f"agentops-{os.getpid()}@%h",
        ),
    )  # fmt: skip
    sup.supervise(
        "beat (celery)",
        _python(
            "-m", "celery", "-A", "agentops", "beat",
            "--loglevel", env.get("LOG_LEVEL", "INFO"),
            "--schedule", str(celery_dir / "beat-schedule"),
        ),
    )  # fmt: skip
    if _wait_for_port(args.host, args.port, web, sup):
        print(
            f"launcher: AgentOps is up at {url}/ after {time.monotonic() - started:.1f}s "
            "(Ctrl-C stops everything)",
            flush=True,
        )
    return sup.watch()


def cmd_test(pytest_args: list[str]) -> int:
    env = dict(os.environ)
    env["PYTHONUNBUFFERED"] = "1"
    base = embedded.data_dir() / "test"
    # Bytecode for pytest and the Python children the tests start (Daphne, workers, MCP servers,
    # clients), kept in the data folder, out of the checkout. With PYTHONDONTWRITEBYTECODE (the
    # image's) every child compiled the project's modules it imports from source again: a child
    # that sets up Django and imports diagnosis.tasks took 5.1 CPU-s, 2.8 with this cache (five in
    # a row from a cold cache, on a loaded machine). Stale files are safe: Python checks the
    # source's mtime and size.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.setdefault("PYTHONPYCACHEPREFIX", str(base / "pycache"))
    sup = Supervisor(env)

    def forward(signum: int, _frame: object) -> None:
        for _name, proc in sup.children:
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(signum)

    # Ctrl-C reaches pytest through the terminal's process group, so we only wait for it; a
    # handler (not SIG_IGN, which pytest would inherit) keeps us alive to stop the services.
    signal.signal(signal.SIGINT, lambda _signum, _frame: None)
    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGHUP, forward)
    with _services_for(env, base, ephemeral_redis=True):
        proc = subprocess.Popen(
            _python("-m", "pytest", *pytest_args), cwd=BASE_DIR, env=env
        )
        sup.children.append(("pytest", proc))
        status = proc.wait()
    if status == PYTEST_NO_TESTS and pytest_args:
        return 0
    return status


def cmd_services(_args: argparse.Namespace) -> int:
    base = embedded.data_dir()
    env = dict(os.environ)
    sup = Supervisor(env)
    sup.install_signal_handlers()
    with _exclusive(base), _services_for(env, base, ephemeral_redis=False):
        print(f"export DATABASE_URL='{env['DATABASE_URL']}'")
        print(f"export REDIS_URL='{env['REDIS_URL']}'", flush=True)
        while sup.stop_signal is None:
            time.sleep(0.2)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["test"]:
        rest = argv[1:]
        if rest[:1] == ["--"]:
            rest = rest[1:]
        return cmd_test(rest)
    parser = argparse.ArgumentParser(
        prog="python -m agentops.launcher", description=__doc__
    )
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="the whole stack on http://127.0.0.1:8000")
    run.add_argument("--host", default=os.environ.get("AGENTOPS_HOST", "127.0.0.1"))
    run.add_argument(
        "--port", type=int, default=int(os.environ.get("AGENTOPS_PORT", "8000"))
    )
    commands.add_parser("test", help="pytest against embedded or given services")
    commands.add_parser("services", help="only embedded PostgreSQL and Redis")
    prepare = commands.add_parser(
        "prepare", help="migrate, collectstatic, demo tenant (run does this first)"
    )
    prepare.add_argument("--url", default="http://127.0.0.1:8000/")
    args = parser.parse_args(argv)
    if args.command == "run":
        return cmd_run(args)
    if args.command == "prepare":
        return cmd_prepare(args)
    return cmd_services(args)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except embedded.EmbeddedServiceError as exc:
        sys.exit(f"launcher: {exc}")
