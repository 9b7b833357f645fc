"""diagnosis.db_retry and the runner's use of it, in-process on the real database: the session
is really ended (pg_terminate_backend of its own pid), including right after a COMMIT, which is
the case where a retry could write twice."""

import contextlib

import pytest
from django.db import InterfaceError, OperationalError, connection, transaction

from diagnosis import db_retry, runner, services
from diagnosis.events import TERMINAL_EVENTS, EventKind
from diagnosis.models import DiagnosisTask, TaskEvent
from diagnosis.states import TaskState
from tests import factories

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _no_backoff_and_a_live_session_after(monkeypatch):
    monkeypatch.setattr(db_retry, "BACKOFF", (0.0, 0.0))
    yield
    connection.close()  # a test may end on a dead session; the flush needs a new one


def end_own_session():
    """What pg_terminate_backend does to a worker's session, done to this one."""
    # The server ends the session while answering.
    with connection.cursor() as cursor, contextlib.suppress(OperationalError):
        cursor.execute("SELECT pg_terminate_backend(pg_backend_pid())")


def then_end_session(monkeypatch, module, name):
    """Patch module.name to run for real (its COMMIT goes through), then lose the session,
    once: the caller sees an error although the write was committed."""
    real = getattr(module, name)
    calls = []

    def wrapped(**kwargs):
        calls.append(kwargs)
        result = real(**kwargs)
        if len(calls) == 1:
            end_own_session()
            DiagnosisTask.objects.exists()  # raises: the reply never came
        return result

    monkeypatch.setattr(module, name, wrapped)
    return calls


@pytest.fixture
def task(transactional_db):
    _, task = factories.make_incident(
        factories.make_tenant("retry"), plan_args={"steps": [0, 0]}
    )
    return task


def events(task):
    return list(TaskEvent.objects.filter(task=task).order_by("seq"))


def test_call_reconnects_after_the_session_was_terminated(task):
    end_own_session()
    with pytest.raises((OperationalError, InterfaceError)):
        DiagnosisTask.objects.count()  # Django keeps the dead connection
    assert db_retry.call(DiagnosisTask.objects.count, what="count") == 1


def test_call_inside_an_atomic_block_raises_without_retrying(task):
    calls = []

    def unit():
        calls.append(1)
        return DiagnosisTask.objects.count()

    with pytest.raises((OperationalError, InterfaceError)), transaction.atomic():
        DiagnosisTask.objects.count()
        end_own_session()
        db_retry.call(unit, what="count")
    assert calls == [1]
    assert db_retry.call(unit, what="count") == 1


def test_call_gives_up_after_its_backoff(task, monkeypatch):
    calls = []

    def unit():
        calls.append(1)
        end_own_session()
        return DiagnosisTask.objects.count()

    with pytest.raises((OperationalError, InterfaceError)):
        db_retry.call(unit, what="count")
    assert len(calls) == len(db_retry.BACKOFF) + 1


def test_emit_whose_commit_went_through_before_the_error_is_not_appended_twice(
    task, monkeypatch
):
    claimed = services.diagnosis_claim(
        task_id=task.id, owner="w1"
    )  # step events need the lease
    calls = then_end_session(monkeypatch, services, "diagnosis_event_append")
    context = runner._Context(
        task_id=str(task.id), plan_args={}, owner="w1", last_seq=claimed.last_seq
    )
    context.emit(EventKind.AGENT_STARTED, {"agent": "step-0"})
    context.emit(EventKind.AGENT_STARTED, {"agent": "step-0"})  # a step run again
    assert len(calls) == 2
    appended = [(e.seq, e.data["agent"]) for e in events(task)[2:]]
    assert appended == [(3, "step-0"), (4, "step-0")]
    assert context.last_seq == 4


def test_run_survives_a_lost_reply_to_its_claim_and_to_its_final_move(
    task, monkeypatch
):
    claims = then_end_session(monkeypatch, services, "diagnosis_claim")
    moves = then_end_session(monkeypatch, services, "diagnosis_transition")
    # The claim's own move is the first transition: its reply is the one lost.
    assert runner.run_task(str(task.id), owner="w1") == TaskState.SUCCEEDED
    assert len(claims) == 1  # the probe found the committed claim: not claimed again
    task.refresh_from_db()
    assert task.attempt == 1
    kinds = [e.type for e in events(task)]
    assert [e.seq for e in events(task)] == list(range(1, len(kinds) + 1))
    assert kinds.count(EventKind.TASK_STARTED) == 1
    assert sum(k in TERMINAL_EVENTS for k in kinds) == 1
    assert len(moves) == 2  # the claim's move, then the final one


def test_finish_whose_commit_went_through_before_the_error_returns_the_end(
    task, monkeypatch
):
    assert services.diagnosis_claim(task_id=task.id, owner="w1") is not None
    moves = then_end_session(monkeypatch, services, "diagnosis_transition")
    assert runner._finish(str(task.id), TaskState.SUCCEEDED) == TaskState.SUCCEEDED
    # The probe found the row ended: the move was not tried again.
    assert len(moves) == 1
    kinds = [e.type for e in events(task)]
    assert kinds.count(EventKind.TASK_COMPLETED) == 1
