"""diagnosis.engine.outcomes, the one owner of an action's status: pure, no database."""

from dataclasses import replace

import pytest

from diagnosis.engine import outcomes
from reasoning.observations import Observation
from reasoning.report import ACTION_STATUSES, ActionRecord, Report

KEY = "inc-1:restart_workload:shop/checkout:1"


def _write(**fields) -> Observation:
    return Observation(
        span_id="write-span",
        agent="action",
        server="actions",
        tool="restart_workload",
        arguments={"namespace": "shop", "name": "checkout"},
        is_ok=False,
        **fields,
    )


def _check(*, is_ok=True, result=None, **fields) -> Observation:
    return Observation(
        span_id="status-span",
        agent="action",
        server="actions",
        tool="get_action_status",
        arguments={"idempotency_key": KEY},
        is_ok=is_ok,
        result=result,
        **fields,
    )


LOST = _write(outcome_unknown=True, error_code="ConnectionLost")
FOUND = {"idempotency_key": KEY, "found": True, "status": "done", "record": {}}
NOT_FOUND = {"idempotency_key": KEY, "found": False, "status": "not_performed"}


def test_an_answered_write_is_done_and_cites_no_status_call():
    assert outcomes.action_outcome(replace(_write(), is_ok=True)) == (
        outcomes.ActionOutcome("done")
    )


def test_a_write_the_tool_refused_to_do_is_failed_with_its_error():
    acted = _write(error_code="tool_error", error_message="no such workload")
    assert outcomes.action_outcome(acted) == outcomes.ActionOutcome(
        "failed", reason="no such workload"
    )


@pytest.mark.parametrize(
    ("code", "status"),
    [
        ("approval_denied", "denied"),
        ("approval_expired", "expired"),
        ("scope_missing", "refused"),
    ],
)
def test_a_refusal_reads_in_the_reports_vocabulary_with_its_code(code, status):
    outcome = outcomes.action_outcome(_write(refused=True, error_code=code))
    assert (outcome.status, outcome.reason) == (status, code)


def test_a_denied_write_cites_its_approval_and_the_persons_reason():
    acted = _write(
        refused=True,
        error_code="approval_denied",
        error_message="denied by a person: not now",
        approval_id="approval-1",
    )
    record = ActionRecord(
        server="actions", tool="restart_workload", target="checkout", status="proposed"
    )
    outcomes.action_outcome(acted).apply(record, span_id="write-span")
    assert (record.status, record.reason, record.approval_id) == (
        "denied",
        "denied by a person: not now",
        "approval-1",
    )


def test_an_approved_write_cites_its_approval():
    outcome = outcomes.action_outcome(
        replace(_write(approval_id="approval-2"), is_ok=True)
    )
    assert (outcome.status, outcome.approval_id) == ("done", "approval-2")


def test_a_lost_answer_the_server_has_on_record_is_done_citing_the_status_span():
    outcome = outcomes.action_outcome(replace(LOST, status_check=_check(result=FOUND)))
    assert (outcome.status, outcome.status_span_id) == ("done", "status-span")
    assert "says it was performed" in (outcome.reason or "")


def test_a_lost_answer_the_server_never_performed_is_failed_citing_the_status_span():
    outcome = outcomes.action_outcome(
        replace(LOST, status_check=_check(result=NOT_FOUND))
    )
    assert (outcome.status, outcome.status_span_id) == ("failed", "status-span")


@pytest.mark.parametrize(
    "check",
    [
        None,  # never asked (the server has no status tool)
        _check(is_ok=False, error_code="ConnectError", error_message="refused"),
        _check(result={"found": "maybe"}),  # an answer that says nothing
        _check(result={"found": True, "status": "processing"}),
    ],
)
def test_a_lost_answer_nobody_could_settle_is_unknown_never_failed(check):
    outcome = outcomes.action_outcome(replace(LOST, status_check=check))
    assert outcome.status == "unknown"
    assert outcome.status_span_id == (None if check is None else "status-span")
    assert outcome.reason


def test_apply_writes_status_reason_and_both_spans_on_the_record():
    record = ActionRecord("actions", "restart_workload", "checkout", "proposed")
    outcomes.action_outcome(replace(LOST, status_check=_check(result=FOUND))).apply(
        record, span_id="write-span"
    )
    assert (record.status, record.span_id, record.status_span_id) == (
        "done",
        "write-span",
        "status-span",
    )


def test_an_unknown_action_adds_an_open_question_to_the_saved_report_once():
    unknown = ActionRecord(
        "actions", "restart_workload", "checkout", "unknown", reason="no answer"
    )
    done = ActionRecord("actions", "scale_workload", "cart", "done")
    report = Report(open_questions=["why now?"], actions=[unknown, done])
    questions = report.to_dict()["open_questions"]
    assert questions[0] == "why now?"
    assert [q for q in questions if "did restart_workload of checkout" in q] == [
        unknown.open_question()
    ]
    assert done.open_question() is None
    # A planner that kept the question does not make it twice.
    report.open_questions.append(unknown.open_question() or "")
    assert len(report.to_dict()["open_questions"]) == 2


def test_every_outcome_status_is_in_the_reports_vocabulary():
    produced = {"done", "failed", "unknown", "denied", "expired", "refused"}
    assert produced <= set(ACTION_STATUSES)
