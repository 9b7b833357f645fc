"""Redis, the Celery broker, stops for 10 s while a diagnosis runs: the worker, beat and Daphne
ride it out, the running diagnosis finishes, and one created during the outage runs afterwards
(its queued row is the outbox; the reaper re-dispatches it). A broker that hangs instead fails
Daphne's enqueue within seconds, and the incident is still created."""

import time

import httpx
import pytest

from diagnosis.events import TERMINAL_EVENTS, EventKind
from diagnosis.models import DiagnosisTask, TaskEvent
from diagnosis.states import TaskState
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

OUTAGE_SECONDS = 10


def _state(task_id: str) -> str:
    return DiagnosisTask.objects.get(pk=task_id).state


def _check_events(task_id: str) -> None:
    events = list(TaskEvent.objects.filter(task_id=task_id).order_by("seq"))
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert sum(e.type in TERMINAL_EVENTS for e in events) == 1


@pytest.mark.fault("Redis (broker and channel layer) stopped 10 s mid-diagnosis")
def test_worker_rides_out_a_redis_outage_and_incidents_from_it_complete(
    live_db_env, tmp_path, reliability_record
):
    with RedisProcess(tmp_path / "redis") as broker:
        env = {
            **live_db_env,
            "REDIS_URL": broker.url,
            "CELERY_BROKER_URL": broker.url,
            # The reaper re-dispatches a queued task that nobody took after 1 s.
            "DIAGNOSIS_QUEUED_REDISPATCH_SECONDS": "1",
            "DIAGNOSIS_REAPER_INTERVAL_SECONDS": "0.5",
            "DIAGNOSIS_TEST_PLANS": "1",
        }
        port = free_port()
        logs = {name: tmp_path / f"{name}.log" for name in ("web", "worker", "beat")}
        procs = {
            "web": start_logged(
                ["daphne", "-b", "127.0.0.1", "-p", str(port), "agentops.asgi:application"],
                env,
                logs["web"],
            ),
            # As the launcher runs it (prefork, gossip and mingle on), with acks_late: the
            # running task's message is unacknowledged when the connection drops.
            "worker": start_logged(
                ["celery", "-A", "agentops", "worker", "--concurrency=2", "-n",
                 f"outage{port}@%h", "--loglevel=INFO"],
                env,
                logs["worker"],
            ),
            "beat": start_logged(
                ["celery", "-A", "agentops", "beat", "--loglevel=INFO",
                 "-s", str(tmp_path / "beat-schedule")],
                env,
                logs["beat"],
            ),
        }  # fmt: skip
        tenant = factories.make_tenant("outage")
        secret = factories.make_token(factories.make_member(tenant))
        base = f"http://127.0.0.1:{port}"

        def create(steps: list[float]) -> str:
            response = httpx.post(
                f"{base}/api/incidents",
                headers={"Authorization": f"Bearer {secret}"},
                json={
                    "title": "checkout 502s",
                    "service": "checkout",
                    "severity": "sev2",
                    "plan": "timed",
                    "plan_args": {"steps": steps},
                },
                timeout=30,
            )
            assert response.status_code == 201, response.text
            return response.json()["task"]["id"]

        def up() -> bool:
            try:
                return httpx.get(f"{base}/healthz", timeout=1).status_code == 200
            except httpx.TransportError:
                return False

        try:
            wait_for(up, timeout=30, what="daphne to answer /healthz")
            running = create([0.5] * 30)
            wait_for(
                lambda: (
                    TaskEvent.objects.filter(
                        task_id=running, type=EventKind.AGENT_COMPLETED
                    ).count()
                    >= 2
                ),
                timeout=60,
                what="the worker to finish two steps",
            )

            broker.stop()
            stopped_at = time.monotonic()
            # Daphne answers while its enqueue fails: the queued row is the outbox.
            during = create([0.1])
            assert _state(during) == TaskState.QUEUED
            # The outage itself is the fault under test, so it lasts its full length.
            time.sleep(max(0.0, OUTAGE_SECONDS - (time.monotonic() - stopped_at)))
            broker.start()

            for task_id, what in ((running, "running"), (during, "created")):
                try:
                    wait_for(
                        lambda task_id=task_id: _state(task_id) == TaskState.SUCCEEDED,
                        timeout=60,
                        what=f"the diagnosis {what} during the outage to succeed",
                    )
                except AssertionError as exc:
                    raise AssertionError(
                        f"{exc}; worker log:\n{log_tail(logs['worker'])}"
                    ) from None
            for name, proc in procs.items():
                assert proc.poll() is None, f"{name} exited:\n{log_tail(logs[name])}"
        finally:
            for proc in procs.values():
                stop(proc)
            wait_for_other_sessions_to_close()

    # The running diagnosis went on through the outage: same attempt, no re-queue.
    assert DiagnosisTask.objects.get(pk=running).attempt == 1
    assert not TaskEvent.objects.filter(
        task_id=running, type=EventKind.TASK_REQUEUED
    ).exists()
    _check_events(running)
    _check_events(during)
    reliability_record(
        observed="worker, web and beat kept running; the running diagnosis finished on attempt 1 "
        "with no re-queue, the incident created during the outage (queued, 201) ran once Redis "
        "was back; events gap-free with one terminal event each",
        figures={
            "outage_s": OUTAGE_SECONDS,
            "tasks_succeeded": 2,
            "running_task_attempt": DiagnosisTask.objects.get(pk=running).attempt,
            "events_lost": 0,
            "events_duplicated": 0,
        },
    )


@pytest.mark.fault("Redis broker hangs (SIGSTOP) while an incident is created")
def test_incident_create_answers_while_the_broker_hangs(
    live_db_env, tmp_path, reliability_record
):
    with RedisProcess(tmp_path / "redis") as broker:
        env = {
            **live_db_env,
            "REDIS_URL": broker.url,
            "CELERY_BROKER_URL": broker.url,
        }
        port = free_port()
        log = tmp_path / "web.log"
        web = start_logged(
            ["daphne", "-b", "127.0.0.1", "-p", str(port), "agentops.asgi:application"],
            env,
            log,
        )
        tenant = factories.make_tenant("hang")
        secret = factories.make_token(factories.make_member(tenant))
        base = f"http://127.0.0.1:{port}"

        def create() -> httpx.Response:
            return httpx.post(
                f"{base}/api/incidents",
                headers={"Authorization": f"Bearer {secret}"},
                json={"title": "t", "service": "s", "severity": "sev2"},
                # Generous: the enqueue gives up within seconds; without a socket timeout it
                # waited for as long as the broker hung.
                timeout=60,
            )

        def up() -> bool:
            try:
                return httpx.get(f"{base}/healthz", timeout=1).status_code == 200
            except httpx.TransportError:
                return False

        try:
            wait_for(up, timeout=30, what="daphne to answer /healthz")
            # The first create opens the pooled broker connection that then hangs.
            assert create().status_code == 201
            broker.pause()
            started = time.monotonic()
            try:
                response = create()
            finally:
                broker.resume()
            answered_s = time.monotonic() - started
            assert response.status_code == 201, f"{response.text}\n{log_tail(log)}"
            assert _state(response.json()["task"]["id"]) == TaskState.QUEUED
            reliability_record(
                observed="POST /api/incidents answered 201 with the task queued; the enqueue "
                "gave up instead of holding the request",
                figures={"status": 201, "answered_s": round(answered_s, 2)},
            )
        finally:
            stop(web)
            wait_for_other_sessions_to_close()
