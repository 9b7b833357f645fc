"""diagnosis.db_retry and the runner's use of it, in-process on the real database: the session
is really ended (pg_terminate_backend of its own pid), including right after a COMMIT, which is
the case where a retry could write twice; and transactions PostgreSQL really aborted (a deadlock
between two sessions, a REPEATABLE READ serialization failure) run again."""

import contextlib
import logging
import threading
import time

import psycopg
import pytest
from django.db import InterfaceError, OperationalError, connection, transaction

from agentops import stack
from diagnosis import db_retry, lifecycle, runner
from diagnosis.endings import RunEnd
from diagnosis.events import TERMINAL_EVENTS, EventKind
from diagnosis.models import DiagnosisTask, TaskEvent, Tenant
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
    claimed = lifecycle.diagnosis_claim(
        task_id=task.id, owner="w1"
    )  # step events need the lease
    calls = then_end_session(monkeypatch, lifecycle, "event_append_unchecked")
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
    claims = then_end_session(monkeypatch, lifecycle, "diagnosis_claim")
    moves = then_end_session(monkeypatch, lifecycle, "diagnosis_transition")
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
    assert lifecycle.diagnosis_claim(task_id=task.id, owner="w1") is not None
    moves = then_end_session(monkeypatch, lifecycle, "diagnosis_transition")
    context = runner._Context(task_id=str(task.id), plan_args={}, owner="w1")
    assert runner._finish(context, RunEnd.DONE) == TaskState.SUCCEEDED
    # The probe found the row ended: the move was not tried again.
    assert len(moves) == 1
    kinds = [e.type for e in events(task)]
    assert kinds.count(EventKind.TASK_COMPLETED) == 1


# --- transactions PostgreSQL aborted (40P01 deadlock, 40001 serialization failure) ----------


def _lock(cursor, tenant) -> None:
    cursor.execute(
        f"SELECT 1 FROM {Tenant._meta.db_table} WHERE id = %s FOR UPDATE", [tenant.pk]
    )


def _waiting_for_a_row_lock() -> bool:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_locks WHERE NOT granted "
            "AND locktype IN ('transactionid', 'tuple')"
        )
        return cursor.fetchone()[0] > 0


def test_atomic_runs_a_transaction_a_real_deadlock_aborted_again_whole(
    transactional_db, caplog
):
    a, b = factories.make_tenant("dl-a"), factories.make_tenant("dl-b")
    other_holds_b, main_holds_a = threading.Event(), threading.Event()
    other_errors: list[BaseException] = []

    def other() -> None:
        # Locks b then a: the opposite order to the unit's first try.
        try:
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute("SET LOCAL deadlock_timeout = '10s'")  # the unit notices
                _lock(cursor, b)
                other_holds_b.set()
                assert main_holds_a.wait(10)
                _lock(cursor, a)
        except BaseException as exc:  # reported by the test
            other_errors.append(exc)
        finally:
            connection.close()

    errors: list[BaseException] = []

    def unit() -> int:
        try:
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL deadlock_timeout = '50ms'")
                _lock(cursor, a)
                if not errors:
                    main_holds_a.set()
                    deadline = time.monotonic() + 10
                    while not _waiting_for_a_row_lock():  # the other waits for a
                        assert time.monotonic() < deadline
                        time.sleep(0.01)
                _lock(cursor, b)
        except OperationalError as exc:
            errors.append(exc)
            raise
        return len(errors) + 1

    thread = threading.Thread(target=other)
    thread.start()
    assert other_holds_b.wait(10)
    pid = connection.cursor().connection.info.backend_pid
    with caplog.at_level(logging.WARNING, logger="diagnosis.db_retry"):
        tries = db_retry.atomic(unit, what="two tenants")
    thread.join(20)

    assert tries == 2
    assert [type(e.__cause__) for e in errors] == [psycopg.errors.DeadlockDetected]
    assert db_retry.is_rolled_back(errors[0])
    assert "deadlock detected" in caplog.text and "running it again" in caplog.text
    assert other_errors == []
    # The session was fine: it was not closed and reopened.
    assert connection.cursor().connection.info.backend_pid == pid


def _conflicting_update(raw, tenant, name: str) -> None:
    """Read the tenant in a REPEATABLE READ snapshot, let another session change it, then
    update it: PostgreSQL answers 40001 (could not serialize access)."""
    with connection.cursor() as cursor:
        cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        Tenant.objects.get(pk=tenant.pk)
    raw.execute(
        f"UPDATE {Tenant._meta.db_table} SET name = name || '.' WHERE id = %s",
        [tenant.pk],
    )
    Tenant.objects.filter(pk=tenant.pk).update(name=name)


@pytest.fixture
def raw(transactional_db):
    with psycopg.connect(stack.database_url(), autocommit=True) as conn:
        yield conn


def test_atomic_runs_a_transaction_a_serialization_failure_aborted_again(raw):
    tenant = factories.make_tenant("serial")
    tries = []

    def unit() -> str:
        tries.append(1)
        if len(tries) == 1:
            _conflicting_update(raw, tenant, "first")
        else:
            Tenant.objects.filter(pk=tenant.pk).update(name="second")
        return "done"

    assert db_retry.atomic(unit, what="tenant rename") == "done"
    assert len(tries) == 2
    assert Tenant.objects.get(pk=tenant.pk).name == "second"


def test_atomic_gives_up_after_its_bound_of_aborted_tries(raw):
    tenant = factories.make_tenant("bound")
    errors: list[BaseException] = []

    def unit() -> None:
        try:
            _conflicting_update(raw, tenant, "never")
        except OperationalError as exc:
            errors.append(exc)
            raise

    with pytest.raises(OperationalError):
        db_retry.atomic(unit, what="tenant rename")
    assert len(errors) == len(db_retry.ROLLBACK_BACKOFF) + 1
    assert {type(e.__cause__) for e in errors} == {psycopg.errors.SerializationFailure}


def test_atomic_does_not_retry_a_lost_connection(task):
    calls = []

    def unit():
        calls.append(1)
        end_own_session()
        return DiagnosisTask.objects.count()

    with pytest.raises((OperationalError, InterfaceError)):
        db_retry.atomic(unit, what="count")
    assert calls == [1]


def test_atomic_inside_a_callers_transaction_raises_the_abort_for_it_to_retry(raw):
    tenant = factories.make_tenant("nested")
    calls = []

    def unit() -> None:
        calls.append(1)
        Tenant.objects.filter(pk=tenant.pk).update(name="inner")

    with pytest.raises(OperationalError), transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        Tenant.objects.get(pk=tenant.pk)
        raw.execute(
            f"UPDATE {Tenant._meta.db_table} SET name = 'other' WHERE id = %s",
            [tenant.pk],
        )
        db_retry.atomic(unit, what="tenant rename")
    assert calls == [1]


def test_call_runs_a_unit_a_serialization_failure_aborted_again(raw):
    tenant = factories.make_tenant("call")
    tries = []

    def unit() -> int:
        tries.append(1)
        with transaction.atomic():
            if len(tries) == 1:
                _conflicting_update(raw, tenant, "first")
            return Tenant.objects.filter(pk=tenant.pk).update(name="second")

    assert db_retry.call(unit, what="tenant rename") == 1
    assert len(tries) == 2


def test_a_task_on_a_thread_whose_connection_was_left_in_a_transaction_is_claimed(
    task, caplog
):
    # What a worker thread can be left with by an earlier task: its session ended by the
    # server while Django still counts an open atomic block (close() inside one keeps it).
    leaked = transaction.atomic()
    leaked.__enter__()
    DiagnosisTask.objects.count()
    end_own_session()
    connection.close()
    assert (
        connection.in_atomic_block
    )  # every query now refuses, and db_retry cannot help
    with caplog.at_level("ERROR", logger="diagnosis.db_retry"):
        assert runner.run_task(str(task.id), owner="w1") == TaskState.SUCCEEDED
    assert "left inside a transaction" in caplog.text
    assert not connection.in_atomic_block


def test_a_claim_of_a_task_with_no_row_says_so(transactional_db, caplog):
    with caplog.at_level("WARNING", logger="diagnosis.lifecycle"):
        assert runner.run_task("00000000-0000-4000-8000-000000000002") is None
    assert "no such task" in caplog.text
