"""SIGTERM one Daphne with 100 streams open; every watcher resumes on a second Daphne, no gap.

Daphne A and Daphne B serve the same test database and share a private Redis (the channel layer
that carries wake-ups). 100 watchers, one thread and one HTTP connection each, follow a task on A
while a writer appends events. A gets SIGTERM: each stream ends with `server_draining`, and its
watcher reconnects to B with the Last-Event-ID it last saw. The writer keeps appending through the
handover, then the task finishes. Every watcher must hold seqs 1..N exactly: none lost, none twice.
"""

import signal
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from django.db import connection

from diagnosis.models import DiagnosisTask
from tests.diagnosis.test_streaming_support import (
    Process,
    append,
    finish,
    make_task,
    parse_sse,
    start_daphne,
)
from tests.redisproc import RedisProcess

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

WATCHERS = 100
READ = 20.0  # one read on a stream; heartbeats arrive far more often than this
TERMINAL = "task_completed"
NOT_A_SEQ = {"server_draining", "resync_required"}


@pytest.fixture(autouse=True)
def _no_celery(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("diagnosis.dispatch.diagnosis_run_enqueue", lambda *a: None)


class Watcher(threading.Thread):
    """Follows one task: on A until its stream ends, then on B from its Last-Event-ID."""

    def __init__(self, a: str, b: str, task: DiagnosisTask, token: str) -> None:
        super().__init__(daemon=True)
        self.urls = (a, b)
        self.path = f"/api/tasks/{task.pk}/events"
        self.token = token
        self.opened = threading.Event()  # task_created read on A
        self.seqs: list[int] = []
        self.drained_on_a = False
        self.opens_on_b = 0
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            with httpx.Client(
                timeout=READ, headers={"Authorization": f"Bearer {self.token}"}
            ) as client:
                events = self._follow(client, self.urls[0])
                self.drained_on_a = "server_draining" in events
                for _ in range(3):  # B may answer a 429/503 once; bounded retries
                    if self.seqs and TERMINAL in events:
                        return
                    self.opens_on_b += 1
                    events = self._follow(client, self.urls[1])
                raise AssertionError(f"no terminal event after 3 opens on B: {events}")
        except BaseException as exc:  # reported by the test, not lost in the thread
            self.error = exc
        finally:
            self.opened.set()

    def _follow(self, client: httpx.Client, base: str) -> list[str]:
        """One stream to its end (clean or cut); appends its seqs; returns its event names."""
        headers = {"Last-Event-ID": str(self.seqs[-1])} if self.seqs else {}
        raw = bytearray()
        with client.stream("GET", base + self.path, headers=headers) as response:
            if response.status_code == 204:  # the terminal event is already ours
                return [TERMINAL]
            if response.status_code != 200:
                response.read()
                return [f"status {response.status_code}"]
            try:
                for chunk in response.iter_raw():
                    raw += chunk
                    if not self.opened.is_set() and b"event: task_created" in raw:
                        self.opened.set()
            except httpx.TransportError:
                pass  # a cut: whole events before it still count, a partial one is dropped
        events = parse_sse(bytes(raw))
        self.seqs += [int(e.id) for e in events if e.event not in NOT_A_SEQ]
        return [e.event for e in events]


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


def _daphnes(redis_url: str) -> tuple[tuple[Process, str], tuple[Process, str]]:
    env = {
        "REDIS_URL": redis_url,
        "SSE_MAX_STREAMS_PER_USER": str(2 * WATCHERS),
        "SSE_DRAIN_SECONDS": "8",
        "SSE_HEARTBEAT_SECONDS": "2",
    }
    return start_daphne(**env), start_daphne(**env)


@pytest.mark.fault(
    "Daphne SIGTERMed with 100 SSE streams open; watchers resume on a second Daphne"
)
def test_sigterm_with_100_streams_resumes_on_a_second_daphne_with_no_gap(
    tenant: Any,
    token: str,
    settings: Any,
    tmp_path: Path,
    reliability_record: Any,
) -> None:
    settings.SSE_MAX_STREAMS_PER_USER = 2 * WATCHERS
    with RedisProcess(tmp_path / "redis") as redis_server:
        settings.CHANNEL_LAYERS = {
            "default": {
                "BACKEND": "channels_redis.core.RedisChannelLayer",
                "CONFIG": {"hosts": [redis_server.url], "expiry": 30},
            }
        }
        (proc_a, base_a), (proc_b, base_b) = _daphnes(redis_server.url)
        writer: Writer | None = None
        try:
            task = make_task(tenant, progress=2)  # seqs 1..3 before anyone watches
            watchers = [Watcher(base_a, base_b, task, token) for _ in range(WATCHERS)]
            for watcher in watchers:
                watcher.start()
            deadline = time.monotonic() + 30
            for watcher in watchers:
                assert watcher.opened.wait(max(0.1, deadline - time.monotonic()))
            assert [w.error for w in watchers if w.error] == []

            writer = Writer(task)
            writer.start()
            time.sleep(0.5)  # events flow to the 100 streams on A
            before_sigterm = writer.appended
            started = time.monotonic()
            proc_a.proc.send_signal(signal.SIGTERM)
            assert proc_a.proc.wait(20) is not None
            drain_s = time.monotonic() - started
            time.sleep(1.0)  # events keep coming while the watchers move to B
            writer.stop()
            finish(task)

            for watcher in watchers:
                watcher.join(max(0.1, deadline + 30 - time.monotonic()))
            assert [w.name for w in watchers if w.is_alive()] == []
            assert [w.error for w in watchers if w.error] == []
        finally:
            if writer is not None and writer.is_alive():
                writer.stopping.set()
                writer.join(10)
            proc_a.stop()
            proc_b.stop()

    task.refresh_from_db()
    expected = list(range(1, task.last_seq + 1))
    lost = sum(len(set(expected) - set(w.seqs)) for w in watchers)
    duplicated = sum(len(w.seqs) - len(set(w.seqs)) for w in watchers)
    drained = sum(w.drained_on_a for w in watchers)
    reliability_record(
        observed=(
            f"{drained} of {WATCHERS} streams on A ended with server_draining; every watcher "
            "resumed on B with its Last-Event-ID and read to task_completed"
        ),
        figures={
            "streams": WATCHERS,
            "events": task.last_seq,
            "appended_during_handover": writer.appended - before_sigterm
            if writer
            else 0,
            "drain_s": round(drain_s, 2),
            "opens_on_b": sum(w.opens_on_b for w in watchers),
            "events_lost": lost,
            "events_duplicated": duplicated,
        },
    )
    for watcher in watchers:
        assert watcher.seqs == expected, watcher.seqs
    assert drained == WATCHERS
    assert all(w.opens_on_b >= 1 for w in watchers)
    assert writer is not None and writer.appended > before_sigterm
