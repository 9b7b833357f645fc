"""A worker killed with SIGKILL mid-plan: the reaper re-queues the task and another worker finishes it."""

import os
import signal
import subprocess
import sys

import pytest

from diagnosis.events import TERMINAL_EVENTS, EventKind
from diagnosis.models import DiagnosisTask, TaskEvent
from diagnosis.states import TaskState
from tests import factories
from tests.livestack import redis_url_with_db, stop, wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

# A Redis database of its own, so no other worker on the machine takes these messages.
BROKER_DB = 11


def start_worker(env, name, *, with_beat: bool, tmp_path):
    cmd = [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "agentops",
        "worker",
        "--pool=solo",
        "--concurrency=1",
        "-n",
        f"{name}@%h",
        "--without-gossip",
        "--without-mingle",
        "--loglevel=WARNING",
    ]
    if with_beat:
        cmd += ["-B", "-s", str(tmp_path / f"beat-{name}")]
    return subprocess.Popen(
        cmd,
        env=env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


@pytest.mark.fault("Celery worker SIGKILLed mid-diagnosis")
def test_sigkilled_worker_task_is_requeued_and_finished_by_another(
    live_db_env, tmp_path, reliability_record
):
    redis_url = redis_url_with_db(BROKER_DB)
    env = {
        **live_db_env,
        "REDIS_URL": redis_url,
        "CELERY_BROKER_URL": redis_url,
        "DIAGNOSIS_LEASE_SECONDS": "2",
        "DIAGNOSIS_REAPER_INTERVAL_SECONDS": "0.5",
    }
    tenant = factories.make_tenant("kill")
    _, task = factories.make_incident(tenant, plan_args={"steps": [0.4] * 8})
    # The on_commit enqueue went to the default broker; send it to ours too (a duplicate is harmless).
    subprocess.run(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "agentops",
            "call",
            "diagnosis.tasks.diagnosis_run",
            "--args",
            f'["{task.id}"]',
        ],
        env=env,
        check=True,
        capture_output=True,
        timeout=60,
    )

    first = start_worker(env, "first", with_beat=False, tmp_path=tmp_path)
    second = None
    try:
        wait_for(
            lambda: (
                TaskEvent.objects.filter(
                    task=task, type=EventKind.AGENT_COMPLETED
                ).count()
                >= 2
            ),
            timeout=60,
            what="the first worker to finish two steps",
        )
        os.killpg(first.pid, signal.SIGKILL)
        first.wait(timeout=10)
        killed_at = DiagnosisTask.objects.get(pk=task.pk)
        assert killed_at.state == TaskState.RUNNING
        assert killed_at.attempt == 1

        second = start_worker(env, "second", with_beat=True, tmp_path=tmp_path)
        final = wait_for(
            lambda: (
                (t := DiagnosisTask.objects.get(pk=task.pk)).state
                in {"succeeded", "failed"}
                and t
            ),
            timeout=90,
            what="the second worker to finish the task",
        )
    finally:
        stop(first)
        if second is not None:
            stop(second)

    assert final.state == TaskState.SUCCEEDED
    assert final.attempt == 2
    events = list(TaskEvent.objects.filter(task=task).order_by("seq"))
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    kinds = [e.type for e in events]
    assert sum(k in TERMINAL_EVENTS for k in kinds) == 1
    assert kinds.count(EventKind.TASK_REQUEUED) == 1
    assert kinds.count(EventKind.TASK_STARTED) == 2
    # the second attempt resumed at the checkpoint instead of starting over
    completed = [e.data["agent"] for e in events if e.type == EventKind.AGENT_COMPLETED]
    assert sorted(set(completed)) == [f"step-{i}" for i in range(8)]
    assert len(completed) <= 9
    reliability_record(
        observed="the reaper re-queued the task once its lease expired; a second worker resumed "
        "at the checkpoint and succeeded on attempt 2; the event table stayed gap-free with one "
        "terminal event (no SSE watcher in this test)",
        figures={
            "lease_s": 2,
            "attempts": final.attempt,
            "steps": 8,
            "steps_run_twice": len(completed) - 8,
            "events": len(events),
        },
    )
