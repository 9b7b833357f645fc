"""deploy/nginx.conf in front of two Daphnes on 127.0.0.1, with Debian's nginx (issue 12 item 5).

The config is the compose stack's own file with four things swapped for the test: the listen
address (127.0.0.1 and a free port), the upstream servers (the two Daphnes' ports for web-1 and
web-2, without `resolve`, which needs Docker's DNS and nginx 1.27.3+), the /tmp/nginx runtime
paths (the test's folder) and, in one test, the stream's read timeout. Everything SSE depends on
(unbuffered stream, upstream failover, least_conn, keepalive, headers) runs as written.

- A rolling restart, one Daphne after the other, with watchers following a task through nginx
  while events are appended: every stream ends with server_draining, its reconnect with
  Last-Event-ID goes through nginx to the live Daphne, and every watcher holds seqs 1..N exactly
  once; no client ever sees a status a browser would give up on.
- The heartbeat keeps a quiet stream open past nginx's read timeout; without it nginx cuts it.
"""

import re
import shutil
import signal
import socket
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from django.db import connection

from diagnosis.models import DiagnosisTask
from diagnosis.streaming import wire
from tests.diagnosis.test_streaming_support import (
    Process,
    append,
    database_url,
    finish,
    free_port,
    make_task,
    parse_sse,
)
from tests.redisproc import RedisProcess

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

BASE_DIR = Path(__file__).resolve().parent.parent
NGINX_CONF = BASE_DIR / "deploy" / "nginx.conf"
NGINX = shutil.which("nginx") or (
    "/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None
)
WATCHERS = 10
READ = 20.0  # one read on a stream through nginx; heartbeats come every second
MAX_OPENS = 30  # per watcher: reconnects are bounded, a loop of refusals fails the test
TERMINAL = "task_completed"
NOT_A_SEQ = {"server_draining", "resync_required"}
DAPHNE_ENV = {
    "SSE_MAX_STREAMS_PER_USER": str(4 * WATCHERS),
    "SSE_HEARTBEAT_SECONDS": "1",
    "SSE_DRAIN_SECONDS": "8",
    # The watchers wait the advised retry as a browser does; short advice keeps the test short.
    "SSE_RETRY_MS": "100",
    "SSE_DRAIN_RETRY_JITTER_MS": "200",
}

needs_nginx = pytest.mark.skipif(
    NGINX is None,
    reason="nginx not installed (scripts/setup.d/25-nginx.sh installs Debian's package)",
)


def render_nginx_conf(
    text: str,
    *,
    listen_port: int,
    upstreams: dict[str, int],
    runtime_dir: Path,
    stream_read_timeout: str | None = None,
) -> str:
    """The compose config with the test's ports and folder; fails if a swap finds no target."""

    def swap(pattern: str, repl: Any, text: str, *, count: int) -> str:
        out, found = re.subn(pattern, repl, text)
        assert found == count, (
            f"{pattern!r}: {found} matches in deploy/nginx.conf, not {count}"
        )
        return out

    text = swap(r"listen 8000;", f"listen 127.0.0.1:{listen_port};", text, count=1)
    text = swap(
        r"server (web-\d+):8000 resolve",
        lambda m: f"server 127.0.0.1:{upstreams[m.group(1)]}",
        text,
        count=len(upstreams),
    )
    text = swap(r"/tmp/nginx", str(runtime_dir / "nginx"), text, count=6)
    if stream_read_timeout is not None:
        # The stream location's timeout is the only one in seconds of three digits.
        text = swap(
            r"proxy_read_timeout \d{3}s;",
            f"proxy_read_timeout {stream_read_timeout};",
            text,
            count=1,
        )
    return text


class Nginx:
    """nginx in the foreground with a rendered config; its error and access logs on our pipe."""

    def __init__(self, directory: Path, config: str) -> None:
        assert NGINX is not None
        directory.mkdir(parents=True, exist_ok=True)
        self.conf = directory / "nginx.conf"
        self.conf.write_text(config)
        argv = [NGINX, "-p", f"{directory}/", "-c", str(self.conf), "-e", "stderr"]
        check = Process([*argv, "-t"])
        check.proc.wait(20)
        check.stop()
        assert check.proc.returncode == 0, "\n".join(check.lines)
        self.process = Process([*argv, "-g", "daemon off;"])
        self.process.wait_for_line("start worker process")
        self.port = int(re.search(r"listen 127\.0\.0\.1:(\d+);", config).group(1))  # type: ignore[union-attr]
        self.url = f"http://127.0.0.1:{self.port}"
        _wait_listening(self.port)

    def access_lines(self) -> list[str]:
        return [line for line in self.process.lines if " upstream=" in line]

    def stop(self) -> None:
        # SIGTERM: fast shutdown, the master ends its workers (SIGKILL would orphan them).
        proc = self.process.proc
        if proc.poll() is None:
            proc.terminate()
            proc.wait(10)
        self.process.stop()


class Daphne:
    """Daphne on a fixed 127.0.0.1 port, so it can be restarted where nginx expects it."""

    def __init__(self, port: int, env: dict[str, str]) -> None:
        from django.conf import settings

        self.port = port
        self.env = {
            "DJANGO_SETTINGS_MODULE": "agentops.settings",
            "DATABASE_URL": database_url(),
            "PYTHONPATH": str(settings.BASE_DIR),
            "LOG_LEVEL": "INFO",
            **env,
        }
        self.process: Process | None = None
        self.generations = 0

    def start(self) -> None:
        daphne = str(Path(sys.executable).with_name("daphne"))
        argv = [daphne, "-b", "127.0.0.1", "-p", str(self.port)]
        self.process = Process([*argv, "agentops.asgi:application"], env=self.env)
        self.process.wait_for_line("Listening on TCP address")
        self.generations += 1

    def sigterm(self) -> None:
        """SIGTERM and wait for the exit: the streams drain, then the port closes."""
        assert self.process is not None
        self.process.proc.send_signal(signal.SIGTERM)
        assert self.process.proc.wait(30) is not None
        self.process.stop()

    def stop(self) -> None:
        if self.process is not None:
            self.process.stop()


def _wait_listening(port: int, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            assert time.monotonic() < deadline, f"nothing listens on {port}"
            time.sleep(0.05)


class Watcher(threading.Thread):
    """Follows one task through nginx, reconnecting with Last-Event-ID as EventSource does."""

    def __init__(self, base: str, task: DiagnosisTask, token: str) -> None:
        super().__init__(daemon=True)
        self.base = base
        self.path = f"/api/tasks/{task.pk}/events"
        self.token = token
        self.seqs: list[int] = []
        self.statuses: list[int] = []
        self.drained = 0
        self.cuts = 0
        self.done = False
        self.error: BaseException | None = None
        self._seen = threading.Condition()

    def wait_for_seq(self, seq: int, timeout: float) -> bool:
        with self._seen:
            return self._seen.wait_for(
                lambda: (
                    bool(self.seqs and self.seqs[-1] >= seq)
                    or self.error is not None
                    or self.done
                ),
                timeout,
            )

    def run(self) -> None:
        try:
            with httpx.Client(
                timeout=READ, headers={"Authorization": f"Bearer {self.token}"}
            ) as client:
                for _ in range(MAX_OPENS):
                    retry_ms = self._follow(client)
                    if self.done:
                        return
                    time.sleep(retry_ms / 1000)  # the client's reconnection delay
                raise AssertionError(f"no {TERMINAL} after {MAX_OPENS} opens")
        except BaseException as exc:  # reported by the test, not lost in the thread
            self.error = exc
        finally:
            with self._seen:
                self.done = True
                self._seen.notify_all()

    def _follow(self, client: httpx.Client) -> int:
        """One stream to its end; returns the advised reconnection delay in ms."""
        headers = {"Last-Event-ID": str(self.seqs[-1])} if self.seqs else {}
        retry_ms = 0
        with client.stream("GET", self.base + self.path, headers=headers) as response:
            self.statuses.append(response.status_code)
            if response.status_code == 204:  # the terminal event is already ours
                self.done = True
                return 0
            if response.status_code != 200:
                response.read()
                return 100
            buffer = b""
            try:
                for chunk in response.iter_raw():
                    buffer += chunk
                    # Whole events only: a block ends with a blank line.
                    blocks, _, buffer = buffer.rpartition(b"\n\n")
                    if blocks:
                        retry_ms = self._take(parse_sse(blocks + b"\n\n")) or retry_ms
            except httpx.TransportError:
                self.cuts += 1  # a cut: whole events before it still count
        return retry_ms

    def _take(self, events: list[Any]) -> int:
        retry_ms = 0
        with self._seen:
            for event in events:
                if event.retry is not None:
                    retry_ms = event.retry
                if event.event == "server_draining":
                    self.drained += 1
                elif event.event not in NOT_A_SEQ:
                    self.seqs.append(int(event.id))
                    if event.event == TERMINAL:
                        self.done = True
            self._seen.notify_all()
        return retry_ms


class Writer(threading.Thread):
    """Appends one event every `pause` seconds until stopped (its own database connection)."""

    def __init__(self, task: DiagnosisTask, pause: float = 0.02) -> None:
        super().__init__(daemon=True)
        self.task = task
        self.pause = pause
        self.stopping = threading.Event()
        self.appended = 0
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            while not self.stopping.is_set():
                append(self.task)
                self.appended += 1
                time.sleep(self.pause)
        except BaseException as exc:
            self.error = exc
        finally:
            connection.close()

    def stop(self) -> None:
        self.stopping.set()
        self.join(10)
        assert not self.is_alive(), "writer did not stop"
        assert self.error is None, self.error


@pytest.fixture(autouse=True)
def _no_celery(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("diagnosis.dispatch.diagnosis_run_enqueue", lambda *a: None)


@pytest.fixture
def redis_url(settings: Any, tmp_path: Path) -> Iterator[str]:
    """A Redis of this test's own: the channel layer that carries wake-ups to both Daphnes."""
    with RedisProcess(tmp_path / "redis") as server:
        settings.CHANNEL_LAYERS = {
            "default": {
                "BACKEND": "channels_redis.core.RedisChannelLayer",
                "CONFIG": {"hosts": [server.url], "expiry": 30},
            }
        }
        yield server.url


def test_render_swaps_every_test_specific_line(tmp_path: Path) -> None:
    text = NGINX_CONF.read_text()
    out = render_nginx_conf(
        text,
        listen_port=1234,
        upstreams={"web-1": 1111, "web-2": 2222},
        runtime_dir=tmp_path,
        stream_read_timeout="2s",
    )
    assert "server 127.0.0.1:1111 max_fails=1" in out
    assert "server 127.0.0.1:2222 max_fails=1" in out
    assert "listen 127.0.0.1:1234;" in out
    assert out.count(f"{tmp_path}/nginx") == 6
    assert "/tmp/nginx" not in out.replace(f"{tmp_path}/nginx", "")
    assert "resolve " not in out.replace("resolver ", "")
    # Only what the test must change differs: the rest is the deployed file line for line.
    changed = [
        a for a, b in zip(text.splitlines(), out.splitlines(), strict=True) if a != b
    ]
    assert len(changed) == 1 + 2 + 6 + 1, changed


def _restart(
    daphne: Daphne, nginx: Nginx, watchers: list[Watcher], writer: Writer
) -> dict[str, int]:
    """SIGTERM one Daphne, check nginx answers while it is down, start it again on its port and
    wait until nginx sends it requests again; then until every watcher has moved past it."""
    before = writer.appended
    daphne.sigterm()
    with httpx.Client(timeout=READ) as client:
        # While it is down: nginx fails over (least_conn picks the empty replica first).
        down = [client.get(f"{nginx.url}/healthz").status_code for _ in range(3)]
        daphne.start()
        # nginx takes a failed replica back after fail_timeout (5 s), on a real request.
        target = f"upstream=127.0.0.1:{daphne.port} "
        deadline = time.monotonic() + 30
        while True:
            marker = len(nginx.access_lines())
            assert client.get(f"{nginx.url}/healthz").status_code == 200
            if any(
                target in line and "/healthz" in line
                for line in nginx.access_lines()[marker:]
            ):
                break
            assert time.monotonic() < deadline, (
                "nginx never sent to the restarted Daphne"
            )
            time.sleep(0.2)
    # Events keep coming through the restart and every watcher reads past it.
    mark = DiagnosisTask.objects.get(pk=writer.task.pk).last_seq
    assert all(w.wait_for_seq(mark, 30) for w in watchers)
    return {"healthz_while_down": down.count(200), "appended": writer.appended - before}


@needs_nginx
@pytest.mark.fault(
    "Rolling restart of two Daphnes behind nginx (deploy/nginx.conf) with SSE streams open"
)
def test_streams_through_nginx_survive_a_rolling_restart_with_no_gap(
    tenant: Any,
    token: str,
    settings: Any,
    tmp_path: Path,
    redis_url: str,
    reliability_record: Any,
) -> None:
    settings.SSE_MAX_STREAMS_PER_USER = 4 * WATCHERS
    env = {**DAPHNE_ENV, "REDIS_URL": redis_url}
    web = {"web-1": Daphne(free_port(), env), "web-2": Daphne(free_port(), env)}
    nginx: Nginx | None = None
    writer: Writer | None = None
    watchers: list[Watcher] = []
    try:
        for daphne in web.values():
            daphne.start()
        nginx = Nginx(
            tmp_path / "nginx",
            render_nginx_conf(
                NGINX_CONF.read_text(),
                listen_port=free_port(),
                upstreams={name: d.port for name, d in web.items()},
                runtime_dir=tmp_path,
            ),
        )
        task = make_task(tenant, progress=2)  # seqs 1..3 before anyone watches
        watchers = [Watcher(nginx.url, task, token) for _ in range(WATCHERS)]
        for watcher in watchers:
            watcher.start()
        assert all(w.wait_for_seq(3, 30) for w in watchers)
        assert [w.error for w in watchers if w.error] == []

        writer = Writer(task)
        writer.start()
        assert all(w.wait_for_seq(10, 30) for w in watchers)
        first = _restart(web["web-1"], nginx, watchers, writer)
        second = _restart(web["web-2"], nginx, watchers, writer)
        writer.stop()
        finish(task)
        for watcher in watchers:
            watcher.join(60)
        assert [w.name for w in watchers if w.is_alive()] == []
        assert [w.error for w in watchers if w.error] == []
        access = nginx.access_lines()
    finally:
        if writer is not None and writer.is_alive():
            writer.stopping.set()
            writer.join(10)
        if nginx is not None:
            nginx.stop()
        for daphne in web.values():
            daphne.stop()

    task.refresh_from_db()
    expected = list(range(1, task.last_seq + 1))
    ports = [d.port for d in web.values()]
    failovers = [
        line
        for line in access
        if re.search(
            rf"upstream=127\.0\.0\.1:{ports[0]}, 127\.0\.0\.1:{ports[1]}", line
        )
        or re.search(
            rf"upstream=127\.0\.0\.1:{ports[1]}, 127\.0\.0\.1:{ports[0]}", line
        )
    ]
    statuses = sorted({s for w in watchers for s in w.statuses})
    reliability_record(
        observed=(
            "every stream on a restarting Daphne ended with server_draining; each watcher's "
            "reconnect with Last-Event-ID went through nginx to the live Daphne and read on to "
            "task_completed; nginx answered while either was down"
        ),
        figures={
            "streams": WATCHERS,
            "events": task.last_seq,
            "appended_during_restart_1": first["appended"],
            "appended_during_restart_2": second["appended"],
            "drained": sum(w.drained for w in watchers),
            "opens": sum(len(w.statuses) for w in watchers),
            "cuts": sum(w.cuts for w in watchers),
            "nginx_failovers_logged": len(failovers),
            "statuses": ",".join(map(str, statuses)),
            "events_lost": sum(len(set(expected) - set(w.seqs)) for w in watchers),
            "events_duplicated": sum(len(w.seqs) - len(set(w.seqs)) for w in watchers),
        },
    )
    for watcher in watchers:
        assert watcher.seqs == expected, watcher.seqs
    # Only answers EventSource goes on after: 200, and the final 204 of a finished task.
    assert set(statuses) <= {200, 204}, statuses
    # Every watcher was on the second Daphne when it restarted (the first was away or empty).
    assert all(w.drained >= 1 for w in watchers)
    assert first["healthz_while_down"] == second["healthz_while_down"] == 3
    assert failovers, "no request was passed from a stopped Daphne to the other"
    assert first["appended"] > 0 and second["appended"] > 0
    assert web["web-1"].generations == web["web-2"].generations == 2


def _quiet_stream(
    nginx: Nginx, task: DiagnosisTask, token: str, heartbeats: int
) -> tuple[bytes, bool]:
    """Read a stream with no events after task_created until `heartbeats` heartbeats arrived
    (returns True) or the stream ended (False)."""
    raw = b""
    with (
        httpx.Client(
            timeout=READ, headers={"Authorization": f"Bearer {token}"}
        ) as client,
        client.stream("GET", f"{nginx.url}/api/tasks/{task.pk}/events") as response,
    ):
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        assert "content-encoding" not in response.headers
        try:
            for chunk in response.iter_raw():
                raw += chunk
                if raw.count(wire.HEARTBEAT) >= heartbeats:
                    return raw, True
        except httpx.TransportError:
            pass
    return raw, False


@needs_nginx
def test_heartbeat_keeps_a_quiet_stream_open_past_the_proxy_read_timeout(
    tenant: Any, token: str, tmp_path: Path, redis_url: str
) -> None:
    """nginx's read timeout set to 2 s: with 0.5 s heartbeats a quiet stream stays open for 12
    of them (6 s); with 30 s heartbeats nginx cuts it, so the heartbeat is what keeps it."""
    task = make_task(tenant)
    results = {}
    for name, heartbeat in (("beating", "0.5"), ("silent", "30")):
        daphne = Daphne(
            free_port(),
            {**DAPHNE_ENV, "REDIS_URL": redis_url, "SSE_HEARTBEAT_SECONDS": heartbeat},
        )
        nginx: Nginx | None = None
        try:
            daphne.start()
            nginx = Nginx(
                tmp_path / name,
                render_nginx_conf(
                    NGINX_CONF.read_text(),
                    listen_port=free_port(),
                    upstreams={"web-1": daphne.port, "web-2": daphne.port},
                    runtime_dir=tmp_path / name,
                    stream_read_timeout="2s",
                ),
            )
            results[name] = _quiet_stream(nginx, task, token, heartbeats=12)
            errors = "\n".join(nginx.process.lines)
        finally:
            if nginx is not None:
                nginx.stop()
            daphne.stop()
        if name == "silent":
            assert "upstream timed out" in errors, errors

    raw, open_ = results["beating"]
    assert open_, raw
    assert b"event: task_created" in raw
    raw, open_ = results["silent"]
    assert not open_, raw
    assert b"event: task_created" in raw and wire.HEARTBEAT not in raw
