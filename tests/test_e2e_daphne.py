"""End to end over real HTTP: Daphne + a Celery worker on the test database, driven with a token."""

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from diagnosis.events import TERMINAL_EVENTS
from diagnosis.models import TaskEvent
from tests import factories

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

BROKER_DB = 12


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for(predicate, *, timeout: float, what: str):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def stop(proc):
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=5)


@pytest.fixture
def stack(live_db_env):
    redis_url = f"redis://127.0.0.1:6379/{BROKER_DB}"
    subprocess.run(
        ["redis-cli", "-n", str(BROKER_DB), "flushdb"], check=True, capture_output=True
    )
    env = {
        **live_db_env,
        "REDIS_URL": redis_url,
        "CELERY_BROKER_URL": redis_url,
        "DIAGNOSIS_LEASE_SECONDS": "5",
    }
    port = free_port()
    web = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "daphne"),
            "-b",
            "127.0.0.1",
            "-p",
            str(port),
            "agentops.asgi:application",
        ],
        env=env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    worker = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "agentops",
            "worker",
            "--pool=solo",
            "-n",
            "e2e@%h",
            "--without-gossip",
            "--without-mingle",
            "--loglevel=WARNING",
        ],
        env=env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"

    def up():
        try:
            return httpx.get(f"{base}/healthz", timeout=1).status_code == 200
        except httpx.TransportError:
            return False

    try:
        wait_for(up, timeout=30, what="daphne to answer /healthz")
        yield base
    finally:
        stop(web)
        stop(worker)


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
