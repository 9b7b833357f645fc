"""The incident page's stream (?follow=1) follows on past the terminal event: coordination and
feedback events appended to a finished task reach every page watching, while a plain stream
still ends at the terminal event and a cursor past it still gets 204."""

import pytest
from channels.db import database_sync_to_async as sync_to_async

from agentops.asgi import application
from diagnosis import coordination
from diagnosis.principals import principal_from_user
from tests.diagnosis.test_streaming_support import (
    StreamClient,
    bearer,
    finish,
    has_events,
    make_task,
)


@pytest.fixture(autouse=True)
def _no_celery(monkeypatch):
    monkeypatch.setattr("diagnosis.dispatch.diagnosis_run_enqueue", lambda *a: None)


def _note(member, task, text):
    coordination.incident_note_add(
        incident=task.incident, principal=principal_from_user(member.user), text=text
    )


a_note = sync_to_async(_note)


@pytest.mark.anyio
@pytest.mark.django_db(transaction=True)
async def test_follow_stream_gets_events_after_the_terminal_one_live(
    tenant, member, token
):
    task = await sync_to_async(make_task)(tenant)
    await sync_to_async(finish)(task)  # seqs 1..3, 3 terminal
    await a_note(member, task, "after the end")  # seq 4

    plain_past_end = StreamClient(
        application, task.pk, headers=[*bearer(token), (b"last-event-id", b"3")]
    )
    plain_from_start = StreamClient(
        application, task.pk, headers=[*bearer(token), (b"last-event-id", b"1")]
    )
    follow = StreamClient(
        application,
        task.pk,
        headers=[*bearer(token), (b"last-event-id", b"3")],
        query="follow=1",
    )

    assert await plain_past_end.start() == 204
    assert await plain_from_start.start() == 200
    await plain_from_start.read_to_end()
    assert plain_from_start.seqs() == [2, 3]  # ends at the terminal event
    assert await follow.start() == 200
    await follow.read_until(has_events(1))
    await a_note(member, task, "live")  # seq 5
    await follow.read_until(has_events(2))
    events = follow.events()
    assert [(int(e.id), e.event) for e in events] == [
        (4, "incident_note_added"),
        (5, "incident_note_added"),
    ]
    await follow.disconnect()
