"""SIGKILL of the worker mid-scenario: another worker finishes, no finished call is made again,
and the approved restart happens exactly once (the actions server's ledger is the side effect)."""

import json
import os
import signal
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

import pytest

from diagnosis import approvals
from diagnosis.events import EventKind
from diagnosis.models import DiagnosisTask, SpanState, TaskEvent, ToolCallSpan
from diagnosis.states import TaskState
from tests import factories
from tests.diagnosis.engine import support
from tests.diagnosis.test_worker_kill import start_worker
from tests.livestack import redis_url_with_db, stop, wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

BROKER_DB = 13
# The actions server's default ledger (its child environment carries no TMPDIR).
LEDGER = Path(tempfile.gettempdir()) / "agentops-actions" / "ledger.jsonl"


def _ledger_records(key_prefix: str) -> list[dict]:
    if not LEDGER.exists():
        return []
    records = []
    for line in LEDGER.read_text().splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue  # a torn last line counts as not performed
        if str(record.get("idempotency_key", "")).startswith(key_prefix):
            records.append(record)
    return records


def _enqueue(env, task_id):
    # The on_commit enqueue went to the default broker; send it to ours (a duplicate is harmless).
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
            f'["{task_id}"]',
        ],
        env=env,
        check=True,
        capture_output=True,
        timeout=60,
    )


def test_killed_worker_replays_finished_calls_and_acts_once(live_db_env, tmp_path):
    redis_url = redis_url_with_db(BROKER_DB)
    env = {
        **live_db_env,
        "REDIS_URL": redis_url,
        "CELERY_BROKER_URL": redis_url,
        "DIAGNOSIS_LEASE_SECONDS": "3",
        "DIAGNOSIS_REAPER_INTERVAL_SECONDS": "0.5",
    }
    tenant = factories.make_tenant("engine-kill")
    _, task = support.open_demo_incident(tenant, "pool-exhaustion")
    _enqueue(env, task.id)
    first = start_worker(env, "first", with_beat=False, tmp_path=tmp_path)
    second = None
    try:
        wait_for(
            lambda: (
                TaskEvent.objects.filter(
                    task=task, type=EventKind.TOOL_COMPLETED
                ).count()
                >= 3
            ),
            timeout=180,
            what="the first worker to finish three calls",
        )
        os.killpg(first.pid, signal.SIGKILL)
        first.wait(timeout=10)
        finished_before = set(
            ToolCallSpan.objects.filter(task=task, state=SpanState.OK).values_list(
                "replay_key", flat=True
            )
        )
        second = start_worker(env, "second", with_beat=True, tmp_path=tmp_path)
        parked = wait_for(
            lambda: (
                (t := DiagnosisTask.objects.get(pk=task.pk)).state
                == TaskState.WAITING_APPROVAL
                and not t.lease_owner
                and t
            ),
            timeout=180,
            what="the second worker to reach the restart and park",
        )
        approval = parked.approvals.get(status="pending")
        approver = factories.make_member(tenant, username="approver", role="approver")
        assert approvals.approval_decide(
            approval=approval, user=approver.user, approve=True, reason="stop-gap"
        )
        _enqueue(env, task.id)
        final = wait_for(
            lambda: (
                (t := DiagnosisTask.objects.get(pk=task.pk)).state
                in {"succeeded", "failed", "timed_out", "cancelled"}
                and t
            ),
            timeout=180,
            what="the task to finish after the approval",
        )
    finally:
        stop(first)
        if second is not None:
            stop(second)

    assert final.state == TaskState.SUCCEEDED, final.report
    assert final.attempt >= 3  # killed, parked, resumed
    spans = list(ToolCallSpan.objects.filter(task=task))
    ok_per_call = Counter(s.replay_key for s in spans if s.state == SpanState.OK)
    assert finished_before and all(ok_per_call[k] == 1 for k in finished_before)
    assert max(ok_per_call.values()) == 1, ok_per_call
    restart = [s for s in spans if s.tool_name == "restart_workload"]
    assert [s.state for s in restart] == [SpanState.OK]
    assert restart[0].approval_id == approval.pk
    assert len(_ledger_records(str(task.incident_id))) == 1
    action = final.report["actions"][0]
    assert (action["tool"], action["status"]) == ("restart_workload", "done")
    events = list(TaskEvent.objects.filter(task=task).order_by("seq"))
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
