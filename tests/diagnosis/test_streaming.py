"""The SSE stream through the real ASGI app (agentops.asgi), in process, against PostgreSQL+Redis."""

import asyncio
import json
from datetime import timedelta

import psycopg
import pytest
from channels.db import database_sync_to_async as sync_to_async
from django.conf import settings as django_settings
from django.db import OperationalError
from django.test import Client

from agentops.asgi import application
from diagnosis import lifecycle, retention
from diagnosis.events import EventKind
from diagnosis.models import DiagnosisTask
from diagnosis.states import TaskState
from diagnosis.streaming import wire
from diagnosis.streaming.consumer import EventStreamApp, parse_cursor
from diagnosis.streaming.db import EventReader
from diagnosis.streaming.hub import Batch, Frame, Subscriber, get_hub
from diagnosis.streaming.metrics import METRICS
from diagnosis.streaming.quota import StreamQuota
from tests import factories
from tests.diagnosis.test_streaming_support import (
    StreamClient,
    append,
    bearer,
    finish,
    has_events,
    make_task,
    parse_sse,
)

# The stream reads through its own connections (async psycopg, the ORM in a worker thread), so
# rows must be committed: transactional tests. Plain unit tests below carry no mark.

a_append = sync_to_async(append)
a_finish = sync_to_async(finish)
a_make_task = sync_to_async(make_task)


@pytest.fixture(autouse=True)
def _no_celery(monkeypatch):
    """Creating an incident enqueues its run after commit; these tests only need the rows."""
    monkeypatch.setattr("diagnosis.dispatch.diagnosis_run_enqueue", lambda *a: None)


@pytest.fixture(autouse=True)
def _fresh_metrics():
    METRICS.reset()


# --- wire encoding (unit) ------------------------------------------------------------------


def test_frame_has_id_event_and_one_data_line():
    data = wire.json_line({"text": "two\nlines\n\nand a blank", "cr": "a\rb"})
    raw = wire.frame(event="tool_progress", data_json=data, event_id=7).decode()
    assert raw.startswith("id: 7\nevent: tool_progress\ndata: ")
    assert raw.endswith("\n\n") and raw.count("\n") == 4


def test_frame_without_id_omits_the_field():
    raw = wire.frame(event="server_draining", data_json="{}")
    assert b"id:" not in raw


@pytest.mark.parametrize("bad", ["a\nb", "a\rb", "a\0b"])
def test_frame_rejects_control_characters_in_fields(bad):
    with pytest.raises(ValueError, match="CR, LF or NUL"):
        wire.frame(event=bad, data_json="{}")


@pytest.mark.parametrize(
    ("raw", "cursor"),
    [
        (None, 0),
        ("", 0),
        ("0", 0),
        (" 12 ", 12),
        ("-1", None),
        ("1e3", None),
        ("x", None),
    ],
)
def test_parse_cursor(raw, cursor):
    assert parse_cursor(raw) == cursor


# --- resume --------------------------------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.django_db(transaction=True)
async def test_replays_after_cursor_then_goes_live_then_closes_on_terminal(
    tenant, token
):
    task = await a_make_task(tenant, progress=3)  # seqs 1..4
    client = StreamClient(
        application, task.pk, headers=[*bearer(token), (b"last-event-id", b"1")]
    )
    assert await client.start() == 200
    assert client.headers[b"content-type"] == b"text/event-stream"
    assert client.headers[b"cache-control"] == b"no-cache"
    assert client.headers[b"x-accel-buffering"] == b"no"
    assert b"content-encoding" not in client.headers
    await client.read_until(has_events(3))
    assert bytes(client.body).startswith(b"retry: 2000\n\n")
    await a_append(task, note="live")
    await client.read_until(has_events(4))
    await a_finish(task)  # seq 6 task_started, seq 7 task_completed
    await client.read_to_end()
    events = client.events()
    assert [int(e.id) for e in events] == [2, 3, 4, 5, 6, 7]
    assert events[-1].event == EventKind.TASK_COMPLETED
    payload = json.loads(events[3].data)
    assert payload["event_id"] == 5 and payload["note"] == "live"
    assert payload["type"] == "tool_progress" and payload["task_id"] == str(task.pk)
    assert "occurred_at" in payload and "incident_id" in payload
    assert METRICS.reconnects_with_cursor == 1
    assert METRICS.terminal_closes == 1
    assert METRICS.events_sent == 6
    await client.communicator.wait(5)
    # Closing the stream never touches the task.
    state = await sync_to_async(lambda: DiagnosisTask.objects.get(pk=task.pk).state)()
    assert state == TaskState.SUCCEEDED


@pytest.mark.anyio
@pytest.mark.django_db(transaction=True)
async def test_query_cursor_used_without_header_and_header_wins(tenant, token):
    task = await a_make_task(tenant, progress=4)  # seqs 1..5
    by_query = StreamClient(
        application, task.pk, headers=bearer(token), query="last_event_id=3"
    )
    await by_query.start()
    await by_query.read_until(has_events(2))
    assert by_query.seqs() == [4, 5]
    both = StreamClient(
        application,
        task.pk,
        headers=[*bearer(token), (b"last-event-id", b"4")],
        query="last_event_id=1",
    )
    await both.start()
    await both.read_until(has_events(1))
    assert both.seqs() == [5]
    await by_query.disconnect()
    await both.disconnect()


@pytest.mark.anyio
@pytest.mark.django_db(transaction=True)
async def test_reconnect_covering_a_finished_task_gets_204(tenant, token):
    task = await a_make_task(tenant)
    await a_finish(task)  # seqs 1..3, 3 is terminal
    client = StreamClient(
        application, task.pk, headers=[*bearer(token), (b"last-event-id", b"3")]
    )
    assert await client.start() == 204
    await client.read_to_end()
    assert client.body == b""
    # From an earlier cursor the tail is replayed and the stream closes by itself.
    again = StreamClient(
        application, task.pk, headers=[*bearer(token), (b"last-event-id", b"1")]
    )
    assert await again.start() == 200
    await again.read_to_end()
    assert again.seqs() == [2, 3]


@pytest.mark.anyio
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("cursor", "reason"), [(b"abc", "malformed_cursor"), (b"99", "cursor_beyond_end")]
)
async def test_bad_cursor_gets_200_with_resync_required_then_continues(
    tenant, token, cursor, reason
):
    task = await a_make_task(tenant, progress=2)  # seqs 1..3
    client = StreamClient(
        application, task.pk, headers=[*bearer(token), (b"last-event-id", cursor)]
    )
    assert await client.start() == 200
    await client.read_until(has_events(1))
    resync = client.events()[0]
    assert resync.event == "resync_required" and resync.id == "3"
    data = json.loads(resync.data)
    assert data == {
        "reason": reason,
        "task_id": str(task.pk),
        "snapshot_url": f"/api/tasks/{task.pk}",
        "continue_from": 3,
    }
    await a_append(task)
    await client.read_until(has_events(2))
    assert client.events()[1].id == "4"
    assert METRICS.resyncs == 1
    await client.disconnect()


@pytest.mark.anyio
@pytest.mark.django_db(transaction=True)
async def test_cursor_inside_compacted_range_gets_resync_then_close(tenant, token):
    task = await a_make_task(tenant, progress=5)  # 1 created, 2..6 progress
    await a_finish(task)  # 7 started, 8 completed
    removed = await sync_to_async(retention.events_compact)(older_than=timedelta(0))
    assert removed == 5
    client = StreamClient(
        application, task.pk, headers=[*bearer(token), (b"last-event-id", b"3")]
    )
    assert await client.start() == 200
    await client.read_to_end()
    events = client.events()
    assert [(e.event, e.id) for e in events] == [("resync_required", "8")]
    assert json.loads(events[0].data)["snapshot_url"] == f"/api/tasks/{task.pk}"
    # The browser now reconnects with Last-Event-ID 8: the task is over, 204.
    last = StreamClient(
        application, task.pk, headers=[*bearer(token), (b"last-event-id", b"8")]
    )
    assert await last.start() == 204
    # A cursor on a kept milestone right before kept milestones replays without a jump.
    fresh = StreamClient(
        application, task.pk, headers=[*bearer(token), (b"last-event-id", b"6")]
    )
    await fresh.start()
    await fresh.read_to_end()
    assert [(e.event, e.id) for e in fresh.events()] == [
        ("task_started", "7"),
        ("task_completed", "8"),
    ]


# --- auth ------------------------------------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.django_db(transaction=True)
async def test_unauthenticated_gets_401_json_before_the_stream(tenant):
    task = await a_make_task(tenant)
    client = StreamClient(application, task.pk)
    assert await client.start() == 401
    assert client.headers[b"content-type"] == b"application/json"
    assert (await client.json())["error"] == "not_authenticated"
    bad = StreamClient(application, task.pk, headers=bearer("aops_wrong"))
    assert await bad.start() == 401


@pytest.mark.anyio
@pytest.mark.django_db(transaction=True)
async def test_other_tenants_task_is_404_for_bearer_and_session(
    tenant, other_tenant, token
):
    theirs = await a_make_task(other_tenant)
    mine = await a_make_task(tenant)
    client = StreamClient(application, theirs.pk, headers=bearer(token))
    assert await client.start() == 404
    assert (await client.json())["error"] == "not_found"

    def session_cookie():
        member = factories.make_member(tenant)
        browser = Client()
        browser.force_login(member.user)
        return browser.cookies[django_settings.SESSION_COOKIE_NAME].value

    cookie = await sync_to_async(session_cookie)()
    header = [(b"cookie", f"{django_settings.SESSION_COOKIE_NAME}={cookie}".encode())]
    cross = StreamClient(application, theirs.pk, headers=header)
    assert await cross.start() == 404
    own = StreamClient(application, mine.pk, headers=header)
    assert await own.start() == 200
    await own.read_until(has_events(1))
    assert own.seqs() == [1]
    await own.disconnect()


@pytest.mark.anyio
@pytest.mark.django_db(transaction=True)
async def test_token_without_read_scope_is_403(tenant, member):
    secret = await sync_to_async(factories.make_token)(
        member, scopes=("incidents:read",)
    )
    task = await a_make_task(tenant)
    client = StreamClient(application, task.pk, headers=bearer(secret))
    assert await client.start() == 403


@pytest.mark.anyio
@pytest.mark.django_db(transaction=True)
async def test_post_is_405(tenant, token):
    task = await a_make_task(tenant)
    client = StreamClient(application, task.pk, headers=bearer(token), method="POST")
    assert await client.start() == 405


@pytest.mark.anyio
@pytest.mark.django_db(transaction=True)
async def test_per_user_stream_limit_is_429_before_opening(tenant, token, settings):
    settings.SSE_MAX_STREAMS_PER_USER = 2
    task = await a_make_task(tenant)
    first, second, third = (
        StreamClient(application, task.pk, headers=bearer(token)) for _ in range(3)
    )
    assert await first.start() == 200
    assert await second.start() == 200
    assert await third.start() == 429
    assert METRICS.rejected_limit == 1
    await first.disconnect()
    fourth = StreamClient(application, task.pk, headers=bearer(token))
    assert await fourth.start() == 200
    await second.disconnect()
    await fourth.disconnect()


# --- hub --------------------------------------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.django_db(transaction=True)
async def test_one_table_read_per_wakeup_for_all_streams_of_a_task(
    tenant, token, settings
):
    settings.SSE_HEARTBEAT_SECONDS = 60  # no catch-up tick during the test
    settings.SSE_MAX_STREAMS_PER_USER = 100
    task = await a_make_task(tenant)
    clients = [
        StreamClient(application, task.pk, headers=bearer(token)) for _ in range(25)
    ]
    for client in clients:
        await client.start()
        await client.read_until(has_events(1))
    hub = get_hub()
    assert len(hub.feeds) == 1 and len(hub.streams) == 25
    reads_before = METRICS.feed_reads
    await a_append(task)
    for client in clients:
        await client.read_until(has_events(2))
    assert METRICS.feed_reads - reads_before == 1
    assert METRICS.replay_reads == 25  # one replay page per stream at open, none since
    for client in clients:
        await client.disconnect()
    assert not hub.feeds and not hub.streams


@pytest.mark.anyio
@pytest.mark.django_db(transaction=True)
async def test_lost_wakeup_is_covered_by_the_catchup_read(
    tenant, token, settings, monkeypatch
):
    settings.SSE_HEARTBEAT_SECONDS = 0.2
    task = await a_make_task(tenant)
    client = StreamClient(application, task.pk, headers=bearer(token))
    await client.start()
    await client.read_until(has_events(1))
    monkeypatch.setattr(lifecycle, "publish_wakeup", lambda task_id, seq: None)
    await a_append(task, 2)
    await client.read_until(has_events(3))
    assert client.seqs() == [1, 2, 3]
    assert METRICS.catchup_hits >= 1 and METRICS.wakeups_received == 0
    assert b": hb\n\n" in client.body
    await client.disconnect()


# --- direct writes from the hub (unit) ---------------------------------------------------------


def _frames(first: int, count: int, *, terminal: bool = False) -> list[Frame]:
    return [
        Frame(seq, "tool_progress", f"id: {seq}\n\n".encode(), terminal)
        for seq in range(first, first + count)
    ]


def _live_subscriber(written: list[bytes], *, accepts: bool = True) -> Subscriber:
    sub = Subscriber("task", "user", deadline=1e18)
    sub.last = 4
    sub.is_live = True
    sub.direct = lambda body, chunk: written.append(body) is None and accepts
    sub.unflushed = lambda: sum(map(len, written))
    sub.max_unflushed = 1_000
    return sub


def test_idle_caught_up_stream_gets_the_batch_written_directly():
    written: list[bytes] = []
    sub = _live_subscriber(written)
    frames = _frames(5, 2)
    sub.push(frames, 100, Batch.of(frames))
    assert written == [b"id: 5\n\nid: 6\n\n"]
    assert sub.last == 6 and not sub.frames and sub.closing is None
    assert METRICS.events_sent == 2


@pytest.mark.parametrize(
    ("setup", "frames"),
    [
        ("busy", _frames(5, 1)),  # the stream is not parked in its live loop
        ("queued", _frames(5, 1)),  # frames already wait in the mailbox
        ("closing", _frames(5, 1)),
        ("ok", _frames(7, 1)),  # a gap: the stream reads it from the table first
        ("ok", _frames(3, 3)),  # overlaps what was written
        ("ok", _frames(5, 1, terminal=True)),  # the stream must end itself
        ("refused", _frames(5, 1)),  # the connection is going
    ],
)
def test_batch_goes_through_the_stream_unless_it_can_be_written_in_order(setup, frames):
    written: list[bytes] = []
    sub = _live_subscriber(written, accepts=setup != "refused")
    if setup == "busy":
        sub.is_live = False
    elif setup == "queued":
        sub.frames.extend(_frames(9, 1))
    elif setup == "closing":
        sub.closing = "lifetime"
    sub.push(frames, 100, Batch.of(frames))
    assert sub.last == 4
    assert list(sub.frames)[-len(frames) :] == frames


def test_direct_write_past_the_unflushed_bound_closes_the_stream_as_slow():
    written: list[bytes] = [b"x" * 999]
    sub = _live_subscriber(written)
    frames = _frames(5, 1)
    sub.push(frames, 100, Batch.of(frames))
    assert sub.last == 5 and sub.closing == "slow"


def test_heartbeat_of_an_idle_stream_is_written_without_waking_it():
    written: list[bytes] = []
    sub = _live_subscriber(written)
    sub.beat()
    assert written == [wire.HEARTBEAT] and not sub.heartbeat_due


def test_heartbeat_of_a_busy_stream_is_left_to_the_stream():
    written: list[bytes] = []
    sub = _live_subscriber(written)
    sub.is_live = False
    sub.beat()
    assert written == [] and sub.heartbeat_due


def test_http_chunk_frames_the_body_with_its_hex_length():
    assert wire.http_chunk(b"x" * 26) == b"1a\r\n" + b"x" * 26 + b"\r\n"


@pytest.mark.anyio
@pytest.mark.django_db(transaction=True)
async def test_direct_writes_interleave_with_the_streams_own_in_seq_order(
    tenant, token, settings
):
    settings.SSE_HEARTBEAT_SECONDS = 60
    by_hub: list[bytes] = []  # written while the stream's own task was parked

    def into_the_client(send):
        queue = send.__self__  # the communicator's output queue

        def write(body, chunk):
            (sub,) = get_hub().streams
            if sub.is_live:
                by_hub.append(body)
            queue.put_nowait(
                {"type": "http.response.body", "body": body, "more_body": True}
            )
            return True

        return write

    app = EventStreamApp(direct_probe=into_the_client)
    task = await a_make_task(tenant, progress=2)
    client = StreamClient(app, task.pk, headers=bearer(token))
    await client.start()
    await client.read_until(has_events(3))
    for n in range(4, 9):
        await a_append(task, n=n)
        await client.read_until(has_events(n))
    await a_finish(task)
    await client.read_to_end()
    assert client.seqs() == list(range(1, 11))
    # 4..9 by the hub; the terminal 10 through the stream, which then ends the response.
    assert [parse_sse(body)[0].id for body in by_hub] == [str(n) for n in range(4, 10)]


@pytest.mark.anyio
@pytest.mark.django_db(transaction=True)
async def test_slow_client_is_cut_off(tenant, token, settings):
    settings.SSE_MAX_UNFLUSHED_BYTES = 20_000

    def unread_bytes(send):
        queue = (
            send.__self__
        )  # the communicator's output queue: what the client has not read
        return lambda: sum(len(m.get("body", b"")) for m in list(queue._queue))

    app = EventStreamApp(unflushed_probe=unread_bytes)
    task = await a_make_task(tenant)
    client = StreamClient(app, task.pk, headers=bearer(token))
    await client.start()
    for _ in range(10):
        await a_append(task, blob="x" * 4000)
    async with asyncio.timeout(5):
        await client.communicator.future
    assert METRICS.slow_client_cutoffs == 1
    await client.read_to_end()
    assert 1 <= len(client.events()) < 11


@pytest.mark.anyio
@pytest.mark.django_db(transaction=True)
async def test_lagging_stream_is_cut_off(tenant, token, settings):
    settings.SSE_MAX_LAG_EVENTS = 3
    settings.SSE_HEARTBEAT_SECONDS = 60
    task = await a_make_task(tenant)
    client = StreamClient(application, task.pk, headers=bearer(token))
    await client.start()
    await client.read_until(has_events(1))
    hub = get_hub()
    (sub,) = hub.streams
    feed = hub.feeds[str(task.pk)]
    # Four frames land in the mailbox before the stream runs again: over the bound.
    sub.push(
        [Frame(feed.high + i, "tool_progress", b"", False) for i in range(1, 5)],
        hub.max_lag,
    )
    await client.read_to_end()
    assert METRICS.slow_client_cutoffs == 1


@pytest.mark.anyio
@pytest.mark.django_db(transaction=True)
async def test_stream_ends_at_max_lifetime_and_resumes(tenant, token, settings):
    settings.SSE_MAX_LIFETIME_SECONDS = 0.3
    settings.SSE_HEARTBEAT_SECONDS = 0.1
    task = await a_make_task(tenant, progress=1)
    client = StreamClient(application, task.pk, headers=bearer(token))
    await client.start()
    await client.read_to_end()
    assert client.seqs() == [1, 2]
    assert METRICS.lifetime_expired == 1
    await a_append(task)
    resumed = StreamClient(
        application, task.pk, headers=[*bearer(token), (b"last-event-id", b"2")]
    )
    await resumed.start()
    await resumed.read_until(has_events(1))
    assert resumed.seqs() == [3]
    await resumed.disconnect()


@pytest.mark.anyio
@pytest.mark.django_db(transaction=True)
async def test_drain_sends_server_draining_without_id_and_ends(tenant, token):
    task = await a_make_task(tenant)
    client = StreamClient(application, task.pk, headers=bearer(token))
    await client.start()
    await client.read_until(has_events(1))
    get_hub().drain()
    await client.read_to_end()
    events = client.events()
    assert events[-1].event == "server_draining"
    assert b"event: server_draining\ndata: " in client.body
    (block,) = [b for b in bytes(client.body).split(b"\n\n") if b"server_draining" in b]
    assert not any(line.startswith(b"id:") for line in block.split(b"\n"))
    retry_ms = json.loads(events[-1].data)["retry_ms"]
    assert events[-1].retry == retry_ms >= 2000
    assert (
        events[-1].id == "1"
    )  # the browser keeps the last real id: resume point unchanged


@pytest.mark.anyio
@pytest.mark.django_db(transaction=True)
async def test_replay_spans_pages_in_order(tenant, token, settings):
    settings.SSE_PAGE_SIZE = 3
    task = await a_make_task(tenant, progress=9)  # seqs 1..10
    await a_finish(task)  # 11, 12 (terminal)
    client = StreamClient(application, task.pk, headers=bearer(token))
    await client.start()
    await client.read_to_end()
    assert client.seqs() == list(range(1, 13))
    assert METRICS.replay_reads == 4


@pytest.mark.anyio
@pytest.mark.django_db(transaction=True)
async def test_a_read_the_database_ends_mid_stream_ends_the_response_cleanly(
    tenant, token, settings, monkeypatch
):
    """A PostgreSQL restart ends the stream's read connection: the response ends (the client
    reconnects with Last-Event-ID) instead of the app raising, which left the client on a
    silent stream (issue 23's soak)."""
    settings.SSE_PAGE_SIZE = 3
    task = await a_make_task(tenant, progress=9)  # seqs 1..10
    reads = EventReader.events

    async def dies_on_second_page(self, task_id, *, after, upto=None, limit=1000):
        if after >= 3:
            raise psycopg.OperationalError(
                "terminating connection due to administrator command"
            )
        return await reads(self, task_id, after=after, upto=upto, limit=limit)

    monkeypatch.setattr(EventReader, "events", dies_on_second_page)
    client = StreamClient(application, task.pk, headers=bearer(token))
    assert await client.start() == 200
    await asyncio.wait_for(client.read_to_end(), 10)
    assert client.seqs() == [1, 2, 3]
    assert client.body.endswith(b": unavailable\n\n")

    monkeypatch.setattr(EventReader, "events", reads)
    await a_finish(task)
    resumed = StreamClient(
        application, task.pk, headers=[*bearer(token), (b"last-event-id", b"3")]
    )
    assert await resumed.start() == 200
    await resumed.read_to_end()
    assert resumed.seqs() == list(range(4, 13))


@pytest.mark.anyio
@pytest.mark.django_db(transaction=True)
async def test_database_away_at_open_gets_an_empty_stream_that_asks_to_retry(
    tenant, token, monkeypatch
):
    task = await a_make_task(tenant)

    def broken(**kwargs):
        raise OperationalError("connection refused")

    monkeypatch.setattr("diagnosis.streaming.consumer.authorize", broken)
    client = StreamClient(application, task.pk, headers=bearer(token))
    # Any status but 200 would make EventSource stop reconnecting for good.
    assert await client.start() == 200
    await client.read_to_end()
    assert client.body == b"retry: 4000\n\n: unavailable\n\n"
    assert client.events() == []


@pytest.mark.anyio
@pytest.mark.django_db(transaction=True)
async def test_per_user_stream_limit_counts_this_process_while_redis_is_away(
    tenant, token, settings
):
    """Redis unreachable: the limit falls back to this process's count, refusing no one else."""
    settings.SSE_MAX_STREAMS_PER_USER = 2
    settings.REDIS_URL = "redis://127.0.0.1:1/0"
    task = await a_make_task(tenant)
    first, second, third = (
        StreamClient(application, task.pk, headers=bearer(token)) for _ in range(3)
    )
    assert await first.start() == 200
    assert await second.start() == 200
    assert await third.start() == 429
    await first.disconnect()
    fourth = StreamClient(application, task.pk, headers=bearer(token))
    assert await fourth.start() == 200
    await second.disconnect()
    await fourth.disconnect()


@pytest.mark.anyio
async def test_a_dead_process_stream_slots_expire_and_renewed_ones_do_not(settings):
    """Two processes' quotas on one Redis: the slots of one that stops renewing (it died) stop
    counting after their lifetime; the other's renewed slot keeps counting."""
    settings.SSE_HEARTBEAT_SECONDS = 0.1
    settings.SSE_STREAM_SLOT_TTL_SECONDS = 0.1  # raised to 2 heartbeats + 1 s
    user = f"quota-{id(settings)}"
    alive, dead = StreamQuota(), StreamQuota()
    try:
        kept = await alive.acquire(user, 3, local=0)
        assert kept is not None
        assert await dead.acquire(user, 3, local=0) is not None
        assert await dead.acquire(user, 3, local=0) is not None
        assert await alive.acquire(user, 3, local=0) is None  # 3 of 3, across both
        async with asyncio.timeout(10):
            while True:
                await alive.renew()
                slot = await alive.acquire(user, 3, local=0)
                if slot is not None:
                    break
                await asyncio.sleep(0.2)
        # The dead one's two slots are gone; the renewed one and the new one still count.
        assert await alive.acquire(user, 3, local=0) is not None
        assert await alive.acquire(user, 3, local=0) is None
        await alive.release(user, kept)
        assert await alive.acquire(user, 3, local=0) is not None
    finally:
        await alive.aclose()
        await dead.aclose()


@pytest.mark.anyio
async def test_stream_ends_while_redis_hangs_do_not_hold_the_renewal(settings):
    """Redis accepts connections and never answers: after the first call times out, ending
    streams give their slots back without waiting (they expire on their own), so the heartbeat
    tick's renewal is not queued behind one timeout per ending stream."""
    settings.SSE_LAYER_TIMEOUT_SECONDS = 0.5
    accepted: list[asyncio.StreamWriter] = []

    async def silent(
        _reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        accepted.append(writer)  # kept open, never answered

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    settings.REDIS_URL = f"redis://127.0.0.1:{port}/0"
    quota = StreamQuota()
    try:
        slots = [await quota.acquire("u", 100, local=i) for i in range(6)]
        assert all(slots)  # admitted by the local count: Redis is away
        loop = asyncio.get_running_loop()
        began = loop.time()
        for slot in slots[:5]:
            await quota.release("u", slot)
        await quota.renew()  # one bounded try for the slot still open
        assert (
            loop.time() - began < 1.2
        )  # 5 releases waiting out 0.5 s each would take 2.5 s
        assert quota.held == {"u": {slots[5]}}
    finally:
        await quota.aclose()
        server.close()
        for writer in accepted:
            writer.close()
        await server.wait_closed()
