"""Every app connection to PostgreSQL is ended (pg_terminate_backend) twice while a diagnosis
runs: the worker reconnects and finishes the run in the same attempt, with every event in the
table once, and a watcher over SSE (through Daphne, whose connections are ended too) sees each
event once."""

import threading
import time

import httpx
import pytest
from django.db import connection
from django.utils import timezone

from diagnosis.events import TERMINAL_EVENTS, EventKind
from diagnosis.models import DiagnosisTask, TaskEvent
from diagnosis.states import TaskState, is_terminal
from tests import factories
from tests.livestack import (
    free_port,
    log_tail,
    start_logged,
    stop,
    wait_for,
    wait_for_other_sessions_to_close,
)
from tests.redisproc import RedisProcess

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

STEPS = 12


def _terminate_other_backends() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        return cursor.fetchone()[0]


def _completed(task_id: str) -> int:
    return TaskEvent.objects.filter(
        task_id=task_id, type=EventKind.AGENT_COMPLETED
    ).count()


class _Watcher(threading.Thread):
    """An SSE client from Last-Event-ID 0 that resumes from its last id when cut off."""

    def __init__(self, base: str, task_id: str, secret: str) -> None:
        super().__init__(daemon=True)
        self.url = f"{base}/api/tasks/{task_id}/events"
        self.headers = {"Authorization": f"Bearer {secret}"}
        self.ids: list[int] = []
        self.types: list[str] = []
        self.done = threading.Event()
        self.error: BaseException | None = None

    def run(self) -> None:
        deadline = time.monotonic() + 60
        try:
            while time.monotonic() < deadline:
                last = self.ids[-1] if self.ids else 0
                try:
                    with httpx.stream(
                        "GET",
                        self.url,
                        headers={**self.headers, "Last-Event-ID": str(last)},
                        timeout=10,
                    ) as response:
                        if response.status_code != 200:
                            time.sleep(0.2)  # a refusal while its database was cut off
                            continue
                        for line in response.iter_lines():
                            if line.startswith("id:"):
                                self.ids.append(int(line[3:].strip()))
                            elif line.startswith("event:"):
                                self.types.append(line[6:].strip())
                except httpx.TransportError:
                    time.sleep(0.1)
                    continue
                if self.types and self.types[-1] in TERMINAL_EVENTS:
                    return
        except BaseException as exc:  # reported by the test
            self.error = exc
        finally:
            self.done.set()


@pytest.mark.fault("pg_terminate_backend of every app connection, twice, mid-diagnosis")
def test_terminated_database_connections_mid_run_reconnect_in_the_same_attempt(
    live_db_env, tmp_path, reliability_record
):
    with RedisProcess(tmp_path / "redis") as broker:
        env = {
            **live_db_env,
            "REDIS_URL": broker.url,
            "CELERY_BROKER_URL": broker.url,
            # Renewed every second: a heartbeat that stopped shows as an expired lease in 3 s.
            "DIAGNOSIS_LEASE_SECONDS": "3",
        }
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        logs = {name: tmp_path / f"{name}.log" for name in ("web", "worker")}
        procs = {
            "web": start_logged(
                ["daphne", "-b", "127.0.0.1", "-p", str(port), "agentops.asgi:application"],
                env,
                logs["web"],
            ),
            "worker": start_logged(
                ["celery", "-A", "agentops", "worker", "--pool=solo", "-n",
                 f"pgterm{port}@%h", "--without-gossip", "--without-mingle",
                 "--loglevel=INFO"],
                env,
                logs["worker"],
            ),
        }  # fmt: skip
        tenant = factories.make_tenant("pgterm")
        secret = factories.make_token(factories.make_member(tenant))

        def up() -> bool:
            try:
                return httpx.get(f"{base}/healthz", timeout=1).status_code == 200
            except httpx.TransportError:
                return False

        def ended_or_stuck() -> DiagnosisTask | None:
            task = DiagnosisTask.objects.get(pk=task_id)
            if is_terminal(task.state):
                return task
            # The heartbeat renews every second; an expired lease means it stopped.
            if (
                task.state == TaskState.RUNNING
                and task.lease_expires_at is not None
                and task.lease_expires_at < timezone.now()
            ):
                return task
            return None

        try:
            wait_for(up, timeout=30, what="daphne to answer /healthz")
            created = httpx.post(
                f"{base}/api/incidents",
                headers={"Authorization": f"Bearer {secret}"},
                json={
                    "title": "checkout 502s",
                    "service": "checkout",
                    "severity": "sev2",
                    "plan": "timed",
                    "plan_args": {"steps": [0.3] * STEPS},
                },
                timeout=30,
            )
            assert created.status_code == 201, created.text
            task_id = created.json()["task"]["id"]
            watcher = _Watcher(base, task_id, secret)
            watcher.start()

            terminated = []
            for done in (2, 5):
                # A run that stopped shows at once as a stuck task, not as a long wait.
                wait_for(
                    lambda done=done: _completed(task_id) >= done or ended_or_stuck(),
                    timeout=30,
                    what=f"the worker to finish {done} steps",
                )
                if ended_or_stuck():
                    break
                terminated.append(_terminate_other_backends())
                assert terminated[-1] > 0
            final = wait_for(
                ended_or_stuck,
                timeout=30,
                what="the task to end or its lease to expire",
            )
            assert final.state == TaskState.SUCCEEDED, (
                f"task {final.state} (lease {final.lease_expires_at}); "
                f"worker log:\n{log_tail(logs['worker'])}"
            )
            assert watcher.done.wait(30), "the watcher did not see the stream end"
            for name, proc in procs.items():
                assert proc.poll() is None, f"{name} exited:\n{log_tail(logs[name])}"
        finally:
            for proc in procs.values():
                stop(proc)
            wait_for_other_sessions_to_close()

    # Same attempt, never re-queued.
    assert final.attempt == 1
    events = list(TaskEvent.objects.filter(task_id=task_id).order_by("seq"))
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    kinds = [e.type for e in events]
    assert sum(k in TERMINAL_EVENTS for k in kinds) == 1
    assert kinds.count(EventKind.TASK_STARTED) == 1
    assert EventKind.TASK_REQUEUED not in kinds
    # Each step completed once: no event was appended twice by a retry.
    completed = [e.data["agent"] for e in events if e.type == EventKind.AGENT_COMPLETED]
    assert completed == [f"step-{i}" for i in range(STEPS)]
    # The watcher saw every event, each once, in order.
    assert watcher.error is None, watcher.error
    assert watcher.ids == [e.seq for e in events]
    assert watcher.types == kinds
    reliability_record(
        observed="worker and Daphne reconnected; the diagnosis succeeded in the same attempt, "
        "never re-queued, each step's event written once; the SSE watcher saw every event once",
        figures={
            "terminations": len(terminated),
            "sessions_terminated": sum(terminated),
            "attempt": final.attempt,
            "events": len(events),
            "events_lost": 0,
            "events_duplicated": 0,
        },
    )
