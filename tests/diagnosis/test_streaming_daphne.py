"""The SSE stream end to end: real Daphne subprocesses on 127.0.0.1 against this run's test DB.

Clients are httpx (wire parsed by httpx-sse) or raw sockets where a browser-like client that stops
reading, or many simultaneous streams, are needed.
"""

import json
import signal
import socket
import time

import httpx
import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from tests.diagnosis.test_streaming_support import (
    append,
    finish,
    make_task,
    parse_sse,
    start_daphne,
    start_redis,
)

pytestmark = pytest.mark.django_db(transaction=True)
READ = 10.0


@pytest.fixture(autouse=True)
def _no_celery(monkeypatch):
    monkeypatch.setattr("diagnosis.dispatch.diagnosis_run_enqueue", lambda *a: None)


@pytest.fixture(scope="module")
def daphne(django_db_setup, django_db_blocker):
    proc, base = start_daphne(
        SSE_HEARTBEAT_SECONDS="0.3", SSE_MAX_UNFLUSHED_BYTES=str(256 * 1024)
    )
    yield proc, base
    proc.stop()


def url(base: str, task) -> str:
    return f"{base}/api/tasks/{task.pk}/events"


class WireReader:
    """Reads a streaming response chunk by chunk, keeping the raw bytes for wire checks."""

    def __init__(self, response: httpx.Response) -> None:
        self.response = response
        self.raw = bytearray()
        self._chunks = response.iter_raw()
        self.ended = False

    def events(self):
        return parse_sse(bytes(self.raw))

    def read_until(self, predicate, timeout: float = READ) -> None:
        deadline = time.monotonic() + timeout
        while not predicate(self):
            assert time.monotonic() < deadline, f"timed out; got {bytes(self.raw)!r}"
            try:
                self.raw += next(self._chunks)
            except StopIteration:
                self.ended = True
                assert predicate(self), f"stream ended; got {bytes(self.raw)!r}"
                return

    def read_to_end(self, timeout: float = READ) -> None:
        self.read_until(lambda r: r.ended, timeout)


def n_events(count):
    return lambda reader: len(reader.events()) >= count


def test_wire_format_over_daphne(daphne, tenant, token):
    _, base = daphne
    task = make_task(tenant)
    headers = {"Authorization": f"Bearer {token}", "Accept-Encoding": "gzip, br"}
    with (
        httpx.Client(timeout=READ) as client,
        client.stream("GET", url(base, task), headers=headers) as response,
    ):
        assert response.status_code == 200
        assert response.headers["content-type"] == "text/event-stream"
        assert response.headers["cache-control"] == "no-cache"
        assert response.headers["x-accel-buffering"] == "no"
        assert "content-encoding" not in response.headers
        reader = WireReader(response)
        reader.read_until(n_events(1))
        assert bytes(reader.raw).startswith(b"retry: 2000\n\n")
        tricky = {
            "text": "line one\nline two\n\nafter a blank line",
            "cr": "a\r\nb\rc",
            "zh": "诊断",
        }
        append(task, **tricky)
        reader.read_until(n_events(2))
        reader.read_until(
            lambda r: b"\n: hb\n\n" in bytes(r.raw)
        )  # heartbeat: comment, no id
        finish(task)
        reader.read_to_end()
    events = reader.events()
    assert [(e.id, e.event) for e in events] == [
        ("1", "task_created"),
        ("2", "tool_progress"),
        ("3", "task_started"),
        ("4", "task_completed"),
    ]
    payload = json.loads(events[1].data)
    assert {k: payload[k] for k in tricky} == tricky
    for block in bytes(reader.raw).split(b"\n\n")[:-1]:
        lines = block.split(b"\n")
        if lines[0].startswith(b":") or lines[0].startswith(b"retry:"):
            assert len(lines) == 1  # heartbeats and the opening carry no id, no data
            continue
        assert [line.split(b":", 1)[0] for line in lines] == [b"id", b"event", b"data"]
        json.loads(lines[2][len(b"data: ") :])  # exactly one line of JSON
    # The browser reconnects with the terminal id: 204 ends it for good.
    done = httpx.get(
        url(base, task), headers={**headers, "Last-Event-ID": "4"}, timeout=READ
    )
    assert done.status_code == 204


def test_auth_and_tenancy_over_daphne(daphne, tenant, other_tenant, token):
    _, base = daphne
    theirs = make_task(other_tenant)
    anonymous = httpx.get(url(base, theirs), timeout=READ)
    assert anonymous.status_code == 401
    assert anonymous.json()["error"] == "not_authenticated"
    cross = httpx.get(
        url(base, theirs), headers={"Authorization": f"Bearer {token}"}, timeout=READ
    )
    assert cross.status_code == 404
    # The rest of the site still goes through Django.
    assert httpx.get(f"{base}/admin/login/", timeout=READ).status_code == 200


@hsettings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    steps=st.lists(
        st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(0, 6)),
        min_size=1,
        max_size=5,
    )
)
def test_resume_after_random_disconnects_yields_each_seq_once_in_order(
    daphne, tenant, token, steps
):
    """Each step: events while away, connect with the last id, events while connected, process
    `take` of them, drop the connection. Finally read to the terminal event."""
    _, base = daphne
    task = make_task(tenant)  # seq 1
    received: list[int] = []
    with httpx.Client(
        timeout=READ, headers={"Authorization": f"Bearer {token}"}
    ) as client:
        for away, during, take in steps:
            append(task, away)
            headers = {"Last-Event-ID": str(received[-1])} if received else {}
            with client.stream("GET", url(base, task), headers=headers) as response:
                assert response.status_code == 200
                append(task, during)
                task.refresh_from_db()
                take = min(take, task.last_seq - (received[-1] if received else 0))
                reader = WireReader(response)
                reader.read_until(n_events(take))
                received += [int(e.id) for e in reader.events()[:take]]
        finish(task)
        headers = {"Last-Event-ID": str(received[-1])} if received else {}
        with client.stream("GET", url(base, task), headers=headers) as response:
            reader = WireReader(response)
            reader.read_to_end()
            received += [int(e.id) for e in reader.events()]
    task.refresh_from_db()
    assert received == list(range(1, task.last_seq + 1))


def test_redis_outage_costs_latency_not_events(
    tenant, token, settings, django_db_blocker
):
    redis, port = start_redis()
    redis_url = f"redis://127.0.0.1:{port}/0"
    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [redis_url]},
        }
    }
    proc, base = start_daphne(REDIS_URL=redis_url, SSE_HEARTBEAT_SECONDS="0.5")
    try:
        task = make_task(tenant)
        with (
            httpx.Client(timeout=READ) as client,
            client.stream(
                "GET", url(base, task), headers={"Authorization": f"Bearer {token}"}
            ) as response,
        ):
            reader = WireReader(response)
            reader.read_until(n_events(1))
            append(task, 2)
            reader.read_until(n_events(3))
            redis.stop()
            proc.wait_for_line("channel layer receive failed")
            append(task, 3)  # wake-ups go nowhere now
            reader.read_until(n_events(6))
            finish(task)
            reader.read_to_end()
        assert [int(e.id) for e in reader.events()] == list(range(1, 9))
    finally:
        proc.stop()
        redis.stop()


def _raw_stream(
    port: int, task, token: str, *, rcvbuf: int | None = None
) -> socket.socket:
    sock = socket.socket()
    if rcvbuf:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.settimeout(READ)
    sock.connect(("127.0.0.1", port))
    sock.sendall(
        f"GET /api/tasks/{task.pk}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Authorization: Bearer {token}\r\n\r\n".encode()
    )
    return sock


def _read_until(sock: socket.socket, needle: bytes, buf: bytearray) -> None:
    deadline = time.monotonic() + READ
    while needle not in buf:
        assert time.monotonic() < deadline
        chunk = sock.recv(65536)
        if not chunk:
            raise EOFError(bytes(buf))
        buf += chunk


@pytest.mark.fault("Daphne SIGTERMed with 30 SSE streams open")
def test_sigterm_drains_every_stream_with_server_draining(
    tenant, token, settings, reliability_record
):
    settings.SSE_MAX_STREAMS_PER_USER = 100
    proc, base = start_daphne(SSE_DRAIN_SECONDS="3", SSE_MAX_STREAMS_PER_USER="100")
    port = int(base.rsplit(":", 1)[1])
    try:
        task = make_task(tenant)
        socks = [_raw_stream(port, task, token) for _ in range(30)]
        bufs = [bytearray() for _ in socks]
        for sock, buf in zip(socks, bufs, strict=True):
            _read_until(sock, b"event: task_created", buf)
        started = time.monotonic()
        proc.proc.send_signal(signal.SIGTERM)
        for sock, buf in zip(socks, bufs, strict=True):
            _read_until(sock, b"\r\n0\r\n\r\n", buf)  # the chunked body ended cleanly
            sock.close()
        assert proc.proc.wait(10) is not None
        elapsed = time.monotonic() - started
        assert elapsed < 5, elapsed
        for buf in bufs:
            body = bytes(buf).split(b"\r\n\r\n", 1)[1]
            assert b"event: server_draining" in body
            block = next(b for b in body.split(b"\n\n") if b"server_draining" in b)
            assert b"id:" not in block and b"retry: " in block
        reliability_record(
            observed="every stream got server_draining (no id, retry advice) and a clean end "
            "of the chunked body; Daphne exited",
            figures={"streams": len(socks), "drain_s": round(elapsed, 2)},
        )
    finally:
        proc.stop()


def test_client_that_stops_reading_is_cut_off(daphne, tenant, token):
    proc, base = daphne
    port = int(base.rsplit(":", 1)[1])
    task = make_task(tenant)
    sock = _raw_stream(port, task, token, rcvbuf=4096)
    buf = bytearray()
    _read_until(sock, b"event: task_created", buf)
    before = sum("slow client cut off" in line for line in proc.lines)
    # ~6 MB, far more than the kernel buffers and the 256 KiB bound; the client reads nothing.
    for _ in range(30):
        append(task, blob="x" * 200_000)
    deadline = time.monotonic() + READ
    while sum("slow client cut off" in line for line in proc.lines) == before:
        assert time.monotonic() < deadline, "no cut-off logged"
        proc.wait_for_line("slow client cut off", timeout=deadline - time.monotonic())
    # The connection is gone: draining it reaches EOF or a reset, not an endless stream.
    total = len(buf)
    with pytest.raises((ConnectionResetError, EOFError)):
        while True:
            chunk = sock.recv(1 << 20)
            if not chunk:
                raise EOFError
            total += len(chunk)
    sock.close()
    assert total < 6_000_000


def _opened(port: int, task, token: str) -> tuple[int, socket.socket, bytearray]:
    """A raw stream and its status, read once the answer's head is in."""
    sock = _raw_stream(port, task, token)
    buf = bytearray()
    _read_until(sock, b"\r\n\r\n", buf)
    return int(bytes(buf).split(b" ", 2)[1]), sock, buf


@pytest.mark.fault(
    "One user's SSE streams spread over two Daphnes, past SSE_MAX_STREAMS_PER_USER",
    kind="limit",
)
def test_per_user_stream_limit_holds_across_two_daphnes(
    tenant, token, settings, reliability_record
):
    limit = 3
    settings.SSE_MAX_STREAMS_PER_USER = limit
    # Both start at once; a loaded machine may take a while to import Django twice.
    a, base_a = start_daphne(ready_timeout=0, SSE_MAX_STREAMS_PER_USER=str(limit))
    b, base_b = start_daphne(ready_timeout=0, SSE_MAX_STREAMS_PER_USER=str(limit))
    port_a, port_b = (int(base.rsplit(":", 1)[1]) for base in (base_a, base_b))
    socks: list[socket.socket] = []
    try:
        for proc in (a, b):
            proc.wait_for_line("Listening on TCP address", 90)
        task = make_task(tenant)
        statuses = []
        for port in (port_a, port_a, port_b):
            status, sock, buf = _opened(port, task, token)
            socks.append(sock)
            statuses.append(status)
            _read_until(sock, b"event: task_created", buf)
        # The user has `limit` streams open, two on A: B, with one, refuses the next.
        refused, sock, buf = _opened(port_b, task, token)
        sock.close()
        assert statuses == [200] * limit
        assert refused == 429, bytes(buf)
        assert b"too_many_streams" in bytes(buf) or b"retry-after" in bytes(buf).lower()
        # Closing a stream on A frees a slot for B (once A has seen the disconnect).
        socks.pop(0).close()
        deadline = time.monotonic() + READ
        while True:
            again, sock, buf = _opened(port_b, task, token)
            if again == 200:
                socks.append(sock)
                break
            sock.close()
            assert again == 429
            assert time.monotonic() < deadline, "the closed stream's slot was not freed"
            time.sleep(0.05)
        reliability_record(
            observed=f"with {limit} streams open (two on A, one on B) B refused the next "
            "with 429; closing one on A let B open it",
            figures={"limit": limit, "daphnes": 2, "refused_status": refused},
        )
    finally:
        for sock in socks:
            sock.close()
        a.stop()
        b.stop()
