"""End to end over real HTTP: Daphne + a Celery worker on the test database, driven with a token."""

import httpx
import pytest

from diagnosis.events import TERMINAL_EVENTS
from diagnosis.models import TaskEvent
from tests import factories
from tests.livestack import wait_for, web_and_worker

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

BROKER_DB = 12


@pytest.fixture
def stack(live_db_env):
    with web_and_worker(live_db_env, broker_db=BROKER_DB) as base:
        yield base


def test_create_snapshot_cancel_over_daphne_ends_cancelled_with_gap_free_events(stack):
    tenant = factories.make_tenant("e2e")
    secret = factories.make_token(factories.make_member(tenant))
    with httpx.Client(
        base_url=stack, headers={"Authorization": f"Bearer {secret}"}, timeout=10
    ) as http:
        created = http.post(
            "/api/incidents",
            json={
                "title": "checkout 502s",
                "service": "checkout",
                "severity": "sev2",
                "symptoms": "502s",
                "plan": "timed",
                "plan_args": {"steps": [1] * 30},
            },
        )
        assert created.status_code == 201, created.text
        body = created.json()
        task_id = body["task"]["id"]
        assert body["task"]["events_url"].endswith(f"/api/tasks/{task_id}/events")

        snapshot = http.get(f"/api/tasks/{task_id}")
        assert snapshot.status_code == 200
        assert snapshot.json()["state"] in {"queued", "running"}
        assert snapshot.json()["last_seq"] >= 1

        # let the worker pick it up, so the cancel meets a running task
        wait_for(
            lambda: http.get(f"/api/tasks/{task_id}").json()["state"] == "running",
            timeout=60,
            what="the worker to start the task",
        )
        cancelled = http.post(f"/api/tasks/{task_id}/cancel")
        assert cancelled.status_code == 202, cancelled.text
        assert cancelled.json() == {
            "incident_id": body["id"],
            "task_id": task_id,
            "status": "cancelling",
        }

        final = wait_for(
            lambda: (
                (s := http.get(f"/api/tasks/{task_id}").json())["state"] == "cancelled"
                and s
            ),
            timeout=30,
            what="the task to end cancelled",
        )
    seqs = list(
        TaskEvent.objects.filter(task_id=task_id)
        .order_by("seq")
        .values_list("seq", flat=True)
    )
    assert seqs == list(range(1, final["last_seq"] + 1))
    kinds = list(
        TaskEvent.objects.filter(task_id=task_id).values_list("type", flat=True)
    )
    assert sum(k in TERMINAL_EVENTS for k in kinds) == 1
    assert kinds[-1] == "task_cancelled"
