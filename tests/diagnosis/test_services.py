"""Transitions and event append against the real database."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from diagnosis import lifecycle, services
from diagnosis.events import EventKind
from diagnosis.exceptions import (
    ActiveTaskExists,
    InvalidTransition,
    StaleTransition,
    TaskFinished,
)
from diagnosis.models import DiagnosisTask, TaskEvent
from diagnosis.states import ALLOWED_TRANSITIONS, TERMINAL, TaskState
from tests import factories

pytestmark = pytest.mark.django_db


def seqs(task):
    return list(
        TaskEvent.objects.filter(task=task)
        .order_by("seq")
        .values_list("seq", flat=True)
    )


def test_incident_create_queues_a_task_with_task_created_event(tenant):
    incident, task = factories.make_incident(tenant)
    assert task.state == TaskState.QUEUED
    assert task.incident_id == incident.id
    event = TaskEvent.objects.get(task=task)
    assert (event.seq, event.type) == (1, EventKind.TASK_CREATED)
    assert event.data["incident_id"] == str(incident.id)
    assert task.last_seq == 1


def test_incident_create_enqueues_only_after_commit(
    tenant, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks() as callbacks:
        factories.make_incident(tenant)
    # one wake-up for task_created and one enqueue
    assert len(callbacks) == 2


def test_transition_running_to_succeeded_appends_event(tenant):
    _, task = factories.make_incident(tenant)
    task = lifecycle.diagnosis_claim(task_id=task.id, owner="w1")
    lifecycle.diagnosis_transition(
        task=task, to=TaskState.SUCCEEDED, fields={"report": {"ok": True}}
    )
    task.refresh_from_db()
    assert task.state == TaskState.SUCCEEDED
    assert task.finished_at is not None
    assert task.lease_owner == ""
    assert list(TaskEvent.objects.filter(task=task).values_list("type", flat=True)) == [
        EventKind.TASK_CREATED,
        EventKind.TASK_STARTED,
        EventKind.TASK_COMPLETED,
    ]


def test_illegal_transition_raises_and_writes_nothing(tenant):
    _, task = factories.make_incident(tenant)
    with pytest.raises(InvalidTransition):
        lifecycle.diagnosis_transition(task=task, to=TaskState.SUCCEEDED)
    task.refresh_from_db()
    assert task.state == TaskState.QUEUED
    assert seqs(task) == [1]


def test_stale_transition_raises_and_writes_nothing(tenant):
    _, task = factories.make_incident(tenant)
    first = DiagnosisTask.objects.get(pk=task.pk)
    second = DiagnosisTask.objects.get(pk=task.pk)
    lifecycle.diagnosis_transition(task=first, to=TaskState.RUNNING)
    with pytest.raises(StaleTransition):
        lifecycle.diagnosis_transition(task=second, to=TaskState.CANCELLED)
    task.refresh_from_db()
    assert task.state == TaskState.RUNNING
    assert seqs(task) == [1, 2]


def test_second_active_task_for_an_incident_is_refused(tenant):
    incident, _task = factories.make_incident(tenant)
    with pytest.raises(ActiveTaskExists):
        services.diagnosis_start(incident=incident)
    assert incident.tasks.count() == 1


def test_rerun_after_finish_creates_a_new_task(tenant):
    incident, task = factories.make_incident(tenant)
    services.diagnosis_cancel(task=task)
    again = services.diagnosis_start(incident=incident, plan="timed")
    assert again.id != task.id
    assert again.state == TaskState.QUEUED


def test_cancel_queued_task_ends_it_at_once(tenant):
    _, task = factories.make_incident(tenant)
    task = services.diagnosis_cancel(task=task)
    assert task.state == TaskState.CANCELLED
    assert task.cancel_requested_at is not None


def test_cancel_running_task_moves_it_to_cancelling_and_is_idempotent(tenant):
    _, task = factories.make_incident(tenant)
    lifecycle.diagnosis_claim(task_id=task.id, owner="w1")
    assert services.diagnosis_cancel(task=task).state == TaskState.CANCELLING
    assert services.diagnosis_cancel(task=task).state == TaskState.CANCELLING
    assert (
        list(TaskEvent.objects.filter(task=task).values_list("type", flat=True)).count(
            EventKind.TASK_CANCELLING
        )
        == 1
    )


def test_cancel_finished_task_raises_task_finished(tenant):
    _, task = factories.make_incident(tenant)
    services.diagnosis_cancel(task=task)
    with pytest.raises(TaskFinished):
        services.diagnosis_cancel(task=task)


def test_claim_only_takes_a_queued_task_once(tenant):
    _, task = factories.make_incident(tenant)
    assert lifecycle.diagnosis_claim(task_id=task.id, owner="w1") is not None
    assert lifecycle.diagnosis_claim(task_id=task.id, owner="w2") is None
    task.refresh_from_db()
    assert (task.lease_owner, task.attempt) == ("w1", 1)


def test_lease_renew_fails_for_another_owner(tenant):
    _, task = factories.make_incident(tenant)
    lifecycle.diagnosis_claim(task_id=task.id, owner="w1")
    assert lifecycle.diagnosis_lease_renew(task_id=task.id, owner="w1")
    assert not lifecycle.diagnosis_lease_renew(task_id=task.id, owner="w2")


def test_event_append_failure_of_wakeup_is_not_fatal(tenant, settings):
    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": ["redis://127.0.0.1:1/0"]},
        }
    }
    from channels.layers import channel_layers

    channel_layers.backends.clear()
    try:
        _, task = factories.make_incident(tenant)
        from diagnosis.wakeups import publish_wakeup

        publish_wakeup(task.id, 1)  # Redis unreachable: logged, not raised
    finally:
        channel_layers.backends.clear()


MOVES = st.lists(st.sampled_from(list(TaskState)), min_size=1, max_size=12)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(moves=MOVES)
def test_random_transitions_never_reach_an_illegal_state_and_seq_stays_gap_free(
    tenant, moves
):
    _, task = factories.make_incident(tenant)
    path = [TaskState.QUEUED]
    for target in moves:
        allowed = target in ALLOWED_TRANSITIONS[TaskState(task.state)]
        try:
            lifecycle.diagnosis_transition(task=task, to=target)
        except InvalidTransition:
            assert not allowed
        else:
            assert allowed
            path.append(target)
        task.refresh_from_db()
        assert task.state == path[-1]
        if task.state in TERMINAL:
            assert not ALLOWED_TRANSITIONS[TaskState(task.state)]
    assert seqs(task) == list(range(1, len(path) + 1))
    assert task.last_seq == len(path)
    assert task.version == len(path) - 1
