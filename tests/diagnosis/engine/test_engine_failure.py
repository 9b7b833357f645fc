"""A diagnosis that fails inside the engine's TaskGroup (issue 23 item 6): the task and its
task_failed event name the real cause, not "unhandled errors in a TaskGroup", and no span of the
failed attempt stays `started`. In process: the real runner, real MCP servers over stdio."""

import errno

import pytest

from diagnosis import artifacts, runner
from diagnosis.events import EventKind
from diagnosis.models import DiagnosisTask, SpanState, TaskEvent, ToolCallSpan
from diagnosis.states import TaskState
from tests import factories
from tests.diagnosis.engine import support

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


@pytest.mark.fault(
    "the result store refuses a write (disk full) while a round of calls runs",
    kind="fault",
)
def test_failure_inside_a_task_group_names_its_cause_and_ends_open_spans(
    monkeypatch, reliability_record
):
    real = artifacts.store_result
    stored: list[str] = []

    def store_result(**kwargs):
        stored.append(kwargs["span_id"])
        if len(stored) == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(**kwargs)

    monkeypatch.setattr(artifacts, "store_result", store_result)
    _, task = support.open_demo_incident(
        factories.make_tenant("engine-fail"), "dns-nxdomain"
    )
    assert runner.run_task(str(task.id)) == TaskState.FAILED
    task = DiagnosisTask.objects.get(pk=task.pk)
    assert (task.error_layer, task.error_code, task.error_message) == (
        "engine",
        "OSError",
        "[Errno 28] No space left on device",
    )
    failed = TaskEvent.objects.get(task=task, type=EventKind.TASK_FAILED)
    assert {k: failed.data.get(k) for k in ("error_layer", "error_code")} == {
        "error_layer": "engine",
        "error_code": "OSError",
    }
    assert failed.data["error_message"] == "[Errno 28] No space left on device"
    spans = ToolCallSpan.objects.filter(task=task)
    assert not spans.filter(state=SpanState.STARTED).exists()
    # The call whose result could not be stored ended with the attempt's cause.
    broken = spans.get(span_id=stored[1])
    assert (broken.state, broken.error_code) == (SpanState.CANCELLED, "OSError")
    reliability_record(
        observed="the task failed with the real cause (engine / OSError / No space left on "
        "device) on the row and in task_failed; the open span ended cancelled with it",
        figures={"spans": spans.count(), "spans_left_started": 0},
    )
