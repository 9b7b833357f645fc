"""Event append from several processes at once: seq stays exactly 1..N."""

import subprocess
import sys

import pytest

from diagnosis.models import TaskEvent
from tests import factories

APPENDER = """
import sys, django
django.setup()
from diagnosis.lifecycle import diagnosis_event_append
task_id, count, name = sys.argv[1], int(sys.argv[2]), sys.argv[3]
for i in range(count):
    diagnosis_event_append(task_id=task_id, kind="tool_progress", data={"writer": name, "i": i})
"""


@pytest.mark.django_db(transaction=True)
def test_appends_from_several_processes_get_seq_exactly_one_to_n(live_db_env):
    tenant = factories.make_tenant("concurrency")
    _, task = factories.make_incident(tenant)
    env = {**live_db_env, "DJANGO_SETTINGS_MODULE": "agentops.settings"}
    writers, per_writer = 4, 50
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", APPENDER, str(task.id), str(per_writer), f"w{n}"],
            env=env,
        )
        for n in range(writers)
    ]
    for proc in procs:
        assert proc.wait(timeout=120) == 0
    seqs = list(
        TaskEvent.objects.filter(task=task)
        .order_by("seq")
        .values_list("seq", flat=True)
    )
    total = 1 + writers * per_writer  # task_created + the appends
    assert seqs == list(range(1, total + 1))
    task.refresh_from_db()
    assert task.last_seq == total
    # each writer's own events keep their order
    for n in range(writers):
        mine = [
            e.data["i"]
            for e in TaskEvent.objects.filter(task=task, data__writer=f"w{n}").order_by(
                "seq"
            )
        ]
        assert mine == list(range(per_writer))
