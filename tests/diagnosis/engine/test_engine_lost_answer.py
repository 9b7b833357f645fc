"""A write whose answer is lost (issue 23 item 4): the actions server records the restart in its
ledger and exits before it answers (`--exit-after-write`), so the restart span ends unknown_outcome.

The engine must ask `get_action_status` by the idempotency key in the same attempt, before the
report says anything: over stdio the child is started again and says the restart happened (the
report's action is done, citing that status span); over HTTP nothing listens any more, so the
action stays unknown (never failed) with an open question. Real processes, real ledger.
"""

import contextlib
import json
from dataclasses import replace

import pytest

from diagnosis import approvals, runner
from diagnosis.engine import executor, live
from diagnosis.models import DiagnosisTask, SpanState, ToolCallSpan
from diagnosis.states import TaskState
from tests import factories
from tests.diagnosis.engine import support
from tests.livestack import stop

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

FAULT = "--exit-after-write"


def _ledger_keys(path) -> list[str]:
    if not path.exists():
        return []
    return [
        json.loads(line)["idempotency_key"]
        for line in path.read_text().splitlines()
        if line.strip()
    ]


def _with_actions(monkeypatch, entry_of):
    """Run every diagnosis of the test with the actions entry `entry_of(entry)` returns."""
    real = live.environment_live

    @contextlib.asynccontextmanager
    async def patched(environment):
        async with real(environment) as bound:
            yield replace(
                bound,
                servers=tuple(
                    entry_of(s) if s.name == "actions" else s for s in bound.servers
                ),
            )

    monkeypatch.setattr(live, "environment_live", patched)


def _approve_and_resume(tenant, slug: str) -> DiagnosisTask:
    _, task = support.open_demo_incident(tenant, "pool-exhaustion")
    assert runner.run_task(str(task.id)) is None  # parked on the restart's approval
    task = DiagnosisTask.objects.get(pk=task.pk)
    assert task.state == TaskState.WAITING_APPROVAL
    approver = factories.make_member(
        tenant, username=f"approver-{slug}", role="approver"
    )
    approvals.approval_decide(
        approval=task.approvals.get(), user=approver.user, approve=True
    )
    assert runner.run_task(str(task.id)) == "succeeded"
    return DiagnosisTask.objects.get(pk=task.pk)


def _spans(task):
    spans = list(ToolCallSpan.objects.filter(task=task).order_by("started_at"))
    [restart] = [s for s in spans if s.tool_name == "restart_workload"]
    checks = [s for s in spans if s.tool_name == "get_action_status"]
    return restart, checks


@pytest.mark.fault(
    "The actions server (stdio) records a restart in its ledger and exits before answering",
    kind="fault",
)
def test_lost_answer_over_stdio_is_asked_about_in_the_same_attempt_and_reads_done(
    monkeypatch, tmp_path, reliability_record
):
    ledger = tmp_path / "ledger.jsonl"
    _with_actions(
        monkeypatch,
        lambda s: replace(s, command=(*s.command, "--ledger", str(ledger), FAULT)),
    )
    task = _approve_and_resume(factories.make_tenant("lost-stdio"), "stdio")

    restart, checks = _spans(task)
    assert restart.state == SpanState.UNKNOWN_OUTCOME, restart.error_message
    assert _ledger_keys(ledger) == [restart.idempotency_key]  # it did happen, once
    # Asked in the same attempt as the write, after it; the last ask was answered.
    assert checks and all(c.attempt == restart.attempt for c in checks)
    assert all(c.started_at >= restart.ended_at for c in checks)
    assert all(
        c.arguments_redacted == {"idempotency_key": restart.idempotency_key}
        for c in checks
    )
    assert checks[-1].state == SpanState.OK
    [action] = task.report["actions"]
    assert action["status"] == "done", action
    assert action["span_id"] == restart.span_id  # OpenTelemetry ids, as evidence cites
    assert action["status_span_id"] == checks[-1].span_id
    assert not any("did restart_workload" in q for q in task.report["open_questions"])
    reliability_record(
        observed="the restart span ends unknown_outcome; in the same attempt the engine "
        "restarts the child, asks get_action_status and the report's action reads done, "
        "citing that span",
        figures={
            "status_asks": len(checks),
            "ledger_records": len(_ledger_keys(ledger)),
            "action_status": action["status"],
        },
    )


@pytest.mark.fault(
    "The actions server (HTTP) records a restart and exits before answering; it stays down",
    kind="fault",
)
def test_lost_answer_with_the_server_gone_reads_unknown_with_an_open_question(
    monkeypatch, tmp_path, reliability_record
):
    monkeypatch.setattr(
        executor, "STATUS_BACKOFF", 0.1
    )  # the bound, not its length, is tested
    ledger = tmp_path / "ledger.jsonl"
    proc, url = support.serve_http(
        "mcpservers.actions",
        ["--ledger", str(ledger), FAULT],
        tmp_path / "actions.log",
    )
    try:
        _with_actions(
            monkeypatch,
            lambda s: replace(s, transport="http", url=url, command=None),
        )
        task = _approve_and_resume(factories.make_tenant("lost-http"), "http")
    finally:
        stop(proc)

    restart, checks = _spans(task)
    assert restart.state == SpanState.UNKNOWN_OUTCOME, restart.error_message
    assert _ledger_keys(ledger) == [restart.idempotency_key]  # "failed" would be a lie
    # Bounded: STATUS_TRIES asks in the write's attempt, none answered.
    assert len(checks) == executor.STATUS_TRIES
    assert all(c.attempt == restart.attempt for c in checks)
    assert all(c.state == SpanState.ERROR for c in checks)
    [action] = task.report["actions"]
    assert action["status"] == "unknown", action
    assert action["status_span_id"] == checks[-1].span_id
    assert any(
        "restart_workload" in q and "check the target" in q
        for q in task.report["open_questions"]
    ), task.report["open_questions"]
    reliability_record(
        observed="the restart span ends unknown_outcome; get_action_status cannot reach "
        "the server within the bound; the report's action reads unknown with an open "
        "question, never failed",
        figures={
            "status_asks": len(checks),
            "ledger_records": len(_ledger_keys(ledger)),
            "action_status": action["status"],
        },
    )
