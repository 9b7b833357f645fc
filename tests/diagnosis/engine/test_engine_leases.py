"""Once the lease is lost, the engine's writes are refused and nothing is written."""

import pytest

from diagnosis import lifecycle
from diagnosis.exceptions import LeaseLost
from diagnosis.models import DiagnosisTask, TaskEvent
from tests import factories

pytestmark = pytest.mark.django_db


def test_event_append_by_a_worker_without_the_lease_is_refused(tenant):
    _, task = factories.make_incident(tenant)
    lifecycle.diagnosis_claim(task_id=task.id, owner="w1")
    before = TaskEvent.objects.filter(task=task).count()
    with pytest.raises(LeaseLost):
        lifecycle.diagnosis_event_append(
            task_id=task.id, kind="agent_started", data={"agent": "x"}, lease_owner="w2"
        )
    assert TaskEvent.objects.filter(task=task).count() == before
    lifecycle.diagnosis_event_append(
        task_id=task.id, kind="agent_started", data={"agent": "x"}, lease_owner="w1"
    )
    assert TaskEvent.objects.filter(task=task).count() == before + 1


def test_report_save_by_a_worker_without_the_lease_writes_nothing(tenant):
    _, task = factories.make_incident(tenant)
    lifecycle.diagnosis_claim(task_id=task.id, owner="w1")
    assert not lifecycle.diagnosis_report_save(
        task_id=task.id, owner="w2", report={"a": 1}
    )
    assert DiagnosisTask.objects.get(pk=task.pk).report is None
    assert lifecycle.diagnosis_report_save(task_id=task.id, owner="w1", report={"a": 1})
    assert DiagnosisTask.objects.get(pk=task.pk).report == {"a": 1}
