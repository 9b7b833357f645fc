"""The lock order of diagnosis.locks, on two real PostgreSQL sessions (issue 23 item 1): an alert
repeat's intake waits for a task row that a worker's span insert holds, and the span insert goes
on instead of closing a lock cycle; a repeat PostgreSQL aborts anyway runs again and is counted
once; the payloads of different groups do not wait for each other while one group's do; and
the tenant lock still serialises what it must."""

import threading
import time

import pytest
from django.db import connection, transaction
from django.db.transaction import TransactionManagementError

from diagnosis import lifecycle, locks, tracing
from diagnosis.events import EventKind
from diagnosis.intake import receive
from diagnosis.models import (
    AlertGroup,
    AlertIntakeWindow,
    DiagnosisTask,
    Role,
    TaskEvent,
    ToolCallSpan,
)
from diagnosis.principals import Principal, role_scopes
from diagnosis.states import TaskState
from tests import factories
from tests.diagnosis.test_alerts import fixture

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _no_enqueue(monkeypatch):
    monkeypatch.setattr("diagnosis.dispatch.diagnosis_run_enqueue", lambda *a: None)


def _principal(tenant) -> Principal:
    member = factories.make_member(tenant, role=Role.ADMIN, username="monitoring")
    return Principal(
        user=member.user,
        tenant=tenant,
        role=member.role,
        scopes=role_scopes(member.role),
    )


def _waiting_for_a_row_lock() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_locks WHERE NOT granted "
            "AND locktype IN ('transactionid', 'tuple')"
        )
        return cursor.fetchone()[0]


def _span(task_id, span_id: str) -> ToolCallSpan:
    return tracing.span_start(
        task_id=task_id,
        span_id=span_id,
        attempt=1,
        agent="logs",
        server_name="logs",
        transport="stdio",
        tool_name="search_logs",
        arguments_redacted={},
        arguments_hash="0" * 64,
        replay_key=f"replay-{span_id}",
        deadline=None,
        principal="",
        granted_scopes=[],
    )


def _intake_meets(hold, then) -> tuple[DiagnosisTask, list[BaseException], list]:
    """A group's repeat arrives while a worker's transaction holds its task row.

    The worker runs hold(task_id), waits until the intake waits for a row lock (the task row:
    it holds the tenant lock and the group row by then), runs then(task_id) and commits. It
    notices a cycle first (deadlock_timeout 50 ms against the server's 1 s), so a cycle aborts
    the worker, not the intake (whose retry would hide it). Returns (task, errors, intakes).
    """
    tenant = factories.make_tenant("locks")
    principal = _principal(tenant)
    opened = receive.alertmanager_receive(
        principal=principal, data=fixture("alertmanager-1-firing")
    )
    task = opened.task
    held, intake_waits = threading.Event(), threading.Event()
    errors: list[BaseException] = []
    intakes: list[receive.Intake] = []

    def worker() -> None:
        try:
            with transaction.atomic():
                with connection.cursor() as cursor:
                    cursor.execute("SET LOCAL deadlock_timeout = '50ms'")
                hold(task.id)
                held.set()
                assert intake_waits.wait(10)
                then(task.id)
        except BaseException as exc:  # reported by the test
            errors.append(exc)
        finally:
            connection.close()

    def intake() -> None:
        try:
            intakes.append(
                receive.alertmanager_receive(
                    principal=principal, data=fixture("alertmanager-2-repeat")
                )
            )
        except BaseException as exc:  # reported by the test
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker), threading.Thread(target=intake)]
    threads[0].start()
    assert held.wait(10)
    threads[1].start()
    deadline = time.monotonic() + 10
    while not _waiting_for_a_row_lock():
        assert time.monotonic() < deadline, "the intake never came to wait for the task"
        time.sleep(0.01)
    intake_waits.set()
    for thread in threads:
        thread.join(timeout=20)
    return task, errors, intakes


def _alert_received(task) -> int:
    return TaskEvent.objects.filter(task=task, type=EventKind.ALERT_RECEIVED).count()


def test_an_intake_waiting_for_the_task_row_a_span_insert_holds_closes_no_cycle():
    def key_share(task_id) -> None:
        # A span insert's foreign-key checks take FOR KEY SHARE on the task row (task_id,
        # checked first), then on the tenant row (tenant_id); the first is taken here by
        # hand, so that the intake comes to wait for it in between.
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT 1 FROM {DiagnosisTask._meta.db_table} "
                "WHERE id = %s FOR KEY SHARE",
                [task_id],
            )

    task, errors, intakes = _intake_meets(key_share, lambda t: _span(t, "a1"))

    assert errors == []
    assert [i.result for i in intakes] == ["updated"]
    assert ToolCallSpan.objects.filter(task=task, span_id="a1").exists()
    assert _alert_received(task) == 1


def test_an_intake_waiting_for_the_task_row_a_transition_holds_closes_no_cycle():
    # A transition updates the task row twice (its state, then last_seq with its event), so
    # PostgreSQL rechecks the row's foreign keys at COMMIT: FOR KEY SHARE on its incident,
    # tenant and creator, while the task row is held.
    def claim(task_id) -> None:
        assert lifecycle.diagnosis_claim(task_id=task_id, owner="w1") is not None

    task, errors, intakes = _intake_meets(claim, lambda t: None)

    assert errors == []
    assert [i.result for i in intakes] == ["updated"]
    task.refresh_from_db()
    assert task.state == TaskState.RUNNING
    assert _alert_received(task) == 1


def test_a_repeat_a_deadlock_aborted_runs_again_and_is_counted_once():
    # A cycle the lock order does not prevent (a session that holds the task row and then
    # asks for the group row, out of order): PostgreSQL aborts the intake, which runs again.
    tenant = factories.make_tenant("victim")
    principal = _principal(tenant)
    opened = receive.alertmanager_receive(
        principal=principal, data=fixture("alertmanager-1-firing")
    )
    held = threading.Event()
    errors: list[BaseException] = []

    def out_of_order() -> None:
        try:
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute(
                    "SET LOCAL deadlock_timeout = '10s'"
                )  # the intake notices
                cursor.execute(
                    f"SELECT 1 FROM {DiagnosisTask._meta.db_table} "
                    "WHERE id = %s FOR UPDATE",
                    [opened.task.id],
                )
                held.set()
                deadline = time.monotonic() + 10
                while not _waiting_for_a_row_lock():  # the intake waits for the task
                    assert time.monotonic() < deadline
                    time.sleep(0.01)
                cursor.execute(
                    f"SELECT 1 FROM {AlertGroup._meta.db_table} "
                    "WHERE id = %s FOR UPDATE",
                    [opened.group.id],
                )
        except BaseException as exc:  # reported by the test
            errors.append(exc)
        finally:
            connection.close()

    thread = threading.Thread(target=out_of_order)
    thread.start()
    assert held.wait(10)
    try:
        with connection.cursor() as cursor:
            cursor.execute("SET deadlock_timeout = '50ms'")
        repeat = receive.alertmanager_receive(
            principal=principal, data=fixture("alertmanager-2-repeat")
        )
    finally:
        connection.close()  # back to the server's deadlock_timeout
        thread.join(20)

    assert errors == []
    assert repeat.result == "updated"
    group = AlertGroup.objects.get(pk=opened.group.id)
    assert (group.payloads, len(group.alerts)) == (2, 3)
    assert (
        TaskEvent.objects.filter(
            task_id=opened.task.id, type=EventKind.ALERT_RECEIVED
        ).count()
        == 1
    )
    assert AlertIntakeWindow.objects.get(tenant=tenant).payloads == 2


def _group(number: int, status: str = "firing") -> dict:
    """A notification of the alertmanager-1-firing fixture's shape for group `number`."""
    body = fixture("alertmanager-1-firing")
    body["groupKey"] = f'{{}}:{{alertname="Lock{number}"}}'
    body["status"] = status
    return body


def _run(target, results: list, errors: list[BaseException]) -> threading.Thread:
    def run() -> None:
        try:
            results.append(target())
        except BaseException as exc:  # reported by the test
            errors.append(exc)
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def test_a_group_s_payload_does_not_wait_for_another_group_s_intake():
    # Issue 23's soak: with every payload of a tenant under one lock, 10 groups repeated by
    # 2 senders came round every 3 s instead of every 0.3 s. An intake of group 1 waits here
    # for its task row (held as a worker's transaction would); group 2's repeat goes on.
    tenant = factories.make_tenant("parallel")
    principal = _principal(tenant)
    one = receive.alertmanager_receive(principal=principal, data=_group(1))
    two = receive.alertmanager_receive(principal=principal, data=_group(2))
    held, release = threading.Event(), threading.Event()
    errors: list[BaseException] = []
    results: list = []

    def worker() -> None:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(
                f"SELECT 1 FROM {DiagnosisTask._meta.db_table} WHERE id = %s FOR UPDATE",
                [one.task.id],
            )
            held.set()
            release.wait(20)

    hold = _run(worker, [], errors)
    try:
        assert held.wait(10)
        repeat = fixture("alertmanager-2-repeat")
        first = _run(
            lambda: receive.alertmanager_receive(
                principal=principal, data={**repeat, "groupKey": _group(1)["groupKey"]}
            ),
            results,
            errors,
        )
        deadline = time.monotonic() + 10
        while not _waiting_for_a_row_lock():
            assert time.monotonic() < deadline, "group 1's intake never waited"
            time.sleep(0.01)
        second: list = []
        other = _run(
            lambda: receive.alertmanager_receive(
                principal=principal, data={**repeat, "groupKey": _group(2)["groupKey"]}
            ),
            second,
            errors,
        )
        other.join(10)
        assert not other.is_alive(), "group 2's payload waited for group 1's intake"
        assert [i.result for i in second] == ["updated"]
        assert first.is_alive()  # still waiting for its task row
    finally:
        release.set()
        hold.join(20)
    first.join(20)
    assert errors == []
    assert [i.result for i in results] == ["updated"]
    assert _alert_received(one.task) == 1 and _alert_received(two.task) == 1
    assert AlertIntakeWindow.objects.get(tenant=tenant).payloads == 4


def test_racing_first_payloads_of_one_group_open_one_incident():
    tenant = factories.make_tenant("race")
    principal = _principal(tenant)
    start = threading.Barrier(6)
    errors: list[BaseException] = []
    results: list = []

    def send():
        start.wait(10)
        return receive.alertmanager_receive(principal=principal, data=_group(7))

    threads = [_run(send, results, errors) for _ in range(6)]
    for thread in threads:
        thread.join(30)

    assert errors == []
    assert sorted(i.result for i in results) == ["created"] + ["unchanged"] * 5
    group = AlertGroup.objects.get(tenant=tenant)
    assert group.payloads == 6
    assert DiagnosisTask.objects.filter(incident__tenant=tenant).count() == 1
    assert AlertIntakeWindow.objects.get(tenant=tenant).payloads == 6


def test_the_alert_rate_limit_holds_exactly_when_groups_race(settings):
    settings.ALERT_RATE_LIMIT = 4
    settings.ALERT_RATE_WINDOW_SECONDS = 3600
    tenant = factories.make_tenant("limit")
    principal = _principal(tenant)
    start = threading.Barrier(8)
    errors: list[BaseException] = []
    results: list = []

    def send(number: int):
        start.wait(10)
        return receive.alertmanager_receive(principal=principal, data=_group(number))

    threads = [
        _run(lambda n=n: send(n), results, errors)  # type: ignore[misc]
        for n in range(8)
    ]
    for thread in threads:
        thread.join(30)

    # A refused payload wrote nothing: no group, no incident, not counted.
    assert [i.result for i in results] == ["created"] * 4
    assert len(errors) == 4
    assert all(isinstance(e, receive.AlertsRateLimited) for e in errors)
    assert AlertGroup.objects.filter(tenant=tenant).count() == 4
    assert DiagnosisTask.objects.filter(incident__tenant=tenant).count() == 4
    assert AlertIntakeWindow.objects.get(tenant=tenant).payloads == 4


def test_the_alert_group_lock_outside_a_transaction_is_refused():
    tenant = factories.make_tenant("bare-group")
    with pytest.raises(TransactionManagementError):
        locks.alert_group_lock(tenant.pk, "alertmanager", "0" * 64)


def test_the_tenant_lock_makes_a_second_taker_wait_for_the_first_to_commit():
    tenant = factories.make_tenant("serial")
    inside, release = threading.Event(), threading.Event()
    order: list[str] = []

    def first() -> None:
        with transaction.atomic():
            locks.tenant_lock(tenant.pk)
            inside.set()
            release.wait(10)
            order.append("first")
        connection.close()

    thread = threading.Thread(target=first)
    thread.start()
    assert inside.wait(10)
    second = threading.Thread(
        target=lambda: (_take_then(tenant, order), connection.close())
    )
    second.start()
    deadline = time.monotonic() + 10
    while not _waiting_for_an_advisory_lock():
        assert time.monotonic() < deadline, "the second taker did not wait"
        time.sleep(0.01)
    release.set()
    thread.join(10)
    second.join(10)

    assert order == ["first", "second"]


def _take_then(tenant, order: list[str]) -> None:
    with transaction.atomic():
        locks.tenant_lock(tenant.pk)
        order.append("second")


def _waiting_for_an_advisory_lock() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_locks WHERE NOT granted AND locktype = 'advisory'"
        )
        return cursor.fetchone()[0]


def test_the_tenant_lock_outside_a_transaction_is_refused():
    tenant = factories.make_tenant("bare")
    with pytest.raises(TransactionManagementError):
        locks.tenant_lock(tenant.pk)
