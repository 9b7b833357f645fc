"""Alertmanager repeats of an open group while its diagnosis runs (issue 23 item 1), on the real
stack on 127.0.0.1: two Daphnes (an HA pair of Alertmanagers sends each notification to both), a
threads-pool Celery worker running a diagnosis that writes a span and events every 0.1 s, their
own Redis. Before the lock order of diagnosis.locks, the
intake's tenant row lock and the worker's span insert deadlocked: 500s, and the diagnosis failed.
"""

import json
import threading
import time
from pathlib import Path

import httpx
import pytest
from django.db import connection
from django.utils import timezone

from diagnosis.events import TERMINAL_EVENTS, EventKind
from diagnosis.intake import alertmanager
from diagnosis.models import AlertGroup, DiagnosisTask, Role, TaskEvent, ToolCallSpan
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

FIXTURES = Path(__file__).resolve().parent / "intake" / "fixtures"
SENDERS = 8  # threads, each sending every repeat to both Daphnes
STEPS, STEP_S = 50, 0.1  # the diagnosis: about 5 s of span and event writes
MAX_FLOOD_S = 20.0


def _body(name: str) -> dict:
    return json.loads((FIXTURES / f"{name}.json").read_text())


def _repeat(fingerprint: str) -> dict:
    """The group's notification with one alert more, as Alertmanager sends when one joins."""
    body = _body("alertmanager-2-repeat")
    alert = dict(body["alerts"][0])
    alert["labels"] = {**alert["labels"], "instance": f"checkout-{fingerprint}:8080"}
    alert["fingerprint"] = fingerprint
    body["alerts"] = [alert]
    return body


def _deadlocks() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()"
        )
        return cursor.fetchone()[0]


@pytest.mark.fault(
    "Alertmanager repeats of an open group, 8 senders to two Daphnes, while its diagnosis "
    "writes spans",
    kind="fault",
)
def test_repeats_racing_the_diagnosis_they_feed_neither_fail_nor_deadlock(
    live_db_env, tmp_path, reliability_record
):
    tenant = factories.make_tenant("repeats")
    secret = factories.make_token(
        factories.make_member(tenant, role=Role.ADMIN),
        scopes=("alerts:write", "incidents:write"),
    )
    headers = {"Authorization": f"Bearer {secret}"}
    deadlocks_before = _deadlocks()
    with RedisProcess(tmp_path / "redis") as broker:
        env = {
            **live_db_env,
            "REDIS_URL": broker.url,
            "CELERY_BROKER_URL": broker.url,
            "ALERT_RATE_LIMIT": "100000",
            # Renewed every second: a run that stopped shows as an expired lease in 5 s.
            "DIAGNOSIS_LEASE_SECONDS": "5",
        }
        ports = [free_port(), free_port()]
        bases = [f"http://127.0.0.1:{port}" for port in ports]
        logs = {name: tmp_path / f"{name}.log" for name in ("web-a", "web-b", "worker")}
        procs = {
            name: start_logged(
                ["daphne", "-b", "127.0.0.1", "-p", str(port), "agentops.asgi:application"],
                env,
                logs[name],
            )
            for name, port in zip(("web-a", "web-b"), ports, strict=True)
        }  # fmt: skip
        procs["worker"] = start_logged(
            ["celery", "-A", "agentops", "worker", "--pool=threads", "--concurrency=4",
             "-n", f"repeats{ports[0]}@%h", "--without-gossip", "--without-mingle",
             "--loglevel=INFO"],
            env,
            logs["worker"],
        )  # fmt: skip
        try:
            for base in bases:

                def up(base: str = base) -> bool:
                    try:
                        return (
                            httpx.get(f"{base}/healthz", timeout=1).status_code == 200
                        )
                    except httpx.TransportError:
                        return False

                wait_for(up, timeout=60, what=f"daphne {base} to answer /healthz")
            # The group open, as the intake leaves it after its first notification, on an
            # incident whose diagnosis writes a span and two events every 0.1 s (the timed
            # plan: the default plan's calls come too few and far between to race reliably).
            created = httpx.post(
                f"{bases[0]}/api/incidents",
                headers=headers,
                json={
                    "title": "CheckoutHighErrorRate",
                    "service": "checkout",
                    "severity": "sev1",
                    "plan": "timed",
                    "plan_args": {"steps": [STEP_S] * STEPS, "spans": True},
                },
                timeout=30,
            )
            assert created.status_code == 201, created.text
            task_id = created.json()["task"]["id"]
            note = alertmanager.notification(_body("alertmanager-1-firing"))
            group = AlertGroup.objects.create(
                tenant=tenant,
                source=note.source,
                key_hash=note.key_hash,
                key=note.key,
                incident_id=created.json()["id"],
                alerts={a.fingerprint: a.record() for a in note.alerts},
                first_payload_at=timezone.now(),
                last_payload_at=timezone.now(),
            )
            wait_for(
                lambda: (
                    ToolCallSpan.objects.filter(task_id=task_id).exists()
                    or is_terminal(DiagnosisTask.objects.get(pk=task_id).state)
                ),
                timeout=60,
                what="the diagnosis to write its first span",
            )
            ended = threading.Event()
            answers: list[tuple[int, str | None, str | None]] = []
            errors: list[BaseException] = []

            def send(sender: int) -> None:
                try:
                    with httpx.Client(headers=headers, timeout=30) as client:
                        n = 0
                        while not ended.is_set():
                            body = _repeat(f"{sender:02d}{n:05d}")
                            n += 1
                            for base in bases:  # an HA pair: one notification, twice
                                reply = client.post(
                                    f"{base}/api/alerts/alertmanager", json=body
                                )
                                data = reply.json() if reply.status_code < 500 else {}
                                answers.append(
                                    (
                                        reply.status_code,
                                        data.get("result"),
                                        data.get("task_id"),
                                    )
                                )
                except BaseException as exc:  # reported by the test
                    errors.append(exc)

            senders = [
                threading.Thread(target=send, args=(i,), daemon=True)
                for i in range(SENDERS)
            ]
            started = time.monotonic()
            for thread in senders:
                thread.start()

            def finished() -> DiagnosisTask | None:
                task = DiagnosisTask.objects.get(pk=task_id)
                if time.monotonic() - started > MAX_FLOOD_S:
                    ended.set()  # a slow diagnosis: stop sending, let it end
                stuck = (  # its worker gave up on a write: the lease is left to expire
                    task.state == TaskState.RUNNING
                    and task.lease_expires_at is not None
                    and task.lease_expires_at < timezone.now()
                )
                return task if is_terminal(task.state) or stuck else None

            task = wait_for(finished, timeout=MAX_FLOOD_S + 60, what="the task to end")
            flood_s = time.monotonic() - started
            ended.set()
            for thread in senders:
                thread.join(30)
            assert task.state == TaskState.SUCCEEDED, (
                f"task {task.state}: {task.error_code} {task.error_message}\n"
                f"worker log:\n{log_tail(logs['worker'])}"
            )
            for name, proc in procs.items():
                assert proc.poll() is None, f"{name} exited:\n{log_tail(logs[name])}"
        finally:
            for proc in procs.values():
                stop(proc)
            wait_for_other_sessions_to_close()

    assert errors == []
    statuses = sorted({status for status, _, _ in answers})
    assert statuses == [200], [a for a in answers if a[0] != 200][:5]
    # Every repeat accounted for: each answer counted in the group, each change reported to
    # the diagnosis it was sent to by exactly one alert_received event.
    group.refresh_from_db()
    assert group.payloads == 1 + len(answers)
    fed = sum(1 for _, result, tid in answers if result == "updated" and tid)
    events = list(TaskEvent.objects.filter(task_id=task_id).order_by("seq"))
    assert sum(e.type == EventKind.ALERT_RECEIVED for e in events) == fed
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert sum(e.type in TERMINAL_EVENTS for e in events) == 1
    assert task.attempt == 1
    # The repeats did race the worker's span writes.
    spans = ToolCallSpan.objects.filter(task_id=task_id).count()
    assert fed > 0 and spans > 1
    deadlocks = _deadlocks() - deadlocks_before
    assert deadlocks == 0
    reliability_record(
        observed="every repeat answered 200 and was counted in the group; each change "
        "reached the running diagnosis as one alert_received event; the diagnosis "
        "succeeded on attempt 1; PostgreSQL counted no deadlock",
        figures={
            "senders": SENDERS,
            "daphnes": 2,
            "repeats": len(answers),
            "alert_received": fed,
            "spans": spans,
            "flood_s": round(flood_s, 1),
            "status_5xx": 0,
            "deadlocks": deadlocks,
            "state": task.state,
        },
    )
