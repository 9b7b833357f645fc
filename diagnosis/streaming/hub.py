"""The process-local hub: one wake-up subscription and one table read per task, fanned out.

Each event loop (one per Daphne process) has one Hub. The hub owns one channel-layer channel; a
task's group gets that channel once, however many streams of the process watch the task. A wake-up
only says "look": the task's Feed then reads the rows after the highest seq it has seen (one query
per task, coalesced while a read is running) and hands the same pre-encoded frames to every
subscriber. A stream that is caught up and idle gets the batch (and its heartbeat) written
straight to its socket in the same pass (see Subscriber.push), so one wake-up costs one loop over
the subscribers, not a task switch and a server round trip per stream. At every heartbeat tick the hub also checks all watched tasks' watermarks in one query
and reads the tasks whose wake-ups were lost.

Wake-ups are trusted only while they are seen to work: every SSE_FALLBACK_POLL_SECONDS the hub
sends a probe through its own group and expects it back within SSE_LAYER_TIMEOUT_SECONDS. When
the probe, a receive or a group_add fails (Redis stopped, hung, or restarted empty and so without
our groups), the hub falls back to polling: every tick it runs that watermark check for all its
streams, and it opens new streams without touching Redis. It goes back to wake-ups once a probe
gets through and every watched task is in its group again, then reads once more, so the switch
loses nothing; the per-task seq cursor (Feed.high) means nothing is read twice.
"""

import asyncio
import collections
import contextlib
import logging
import random
import uuid
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from channels.layers import DEFAULT_CHANNEL_LAYER, channel_layers
from django.conf import settings

from diagnosis.events import TERMINAL_EVENTS
from diagnosis.streaming import wire
from diagnosis.streaming.db import EventReader, Row
from diagnosis.streaming.metrics import METRICS
from diagnosis.streaming.quota import StreamQuota
from diagnosis.wakeups import WAKEUP_TYPE, group_name

logger = logging.getLogger(__name__)

PROBE_TYPE = "sse.probe"


def setting(name: str, default: Any) -> Any:
    return getattr(settings, name, default)


@dataclass(frozen=True, slots=True)
class Frame:
    seq: int
    type: str
    data: bytes
    is_terminal: bool


@dataclass(frozen=True, slots=True)
class Batch:
    """Frames read together, joined once for every subscriber's direct write."""

    frames: list[Frame]
    body: bytes
    chunk: bytes  # the body in HTTP/1.1 chunked framing
    first: int
    last: int
    is_terminal: bool

    @classmethod
    def of(cls, frames: list[Frame]) -> "Batch":
        body = b"".join(frame.data for frame in frames)
        return cls(
            frames=frames,
            body=body,
            chunk=wire.http_chunk(body),
            first=frames[0].seq,
            last=frames[-1].seq,
            is_terminal=any(frame.is_terminal for frame in frames),
        )


HEARTBEAT_CHUNK = wire.http_chunk(wire.HEARTBEAT)
# Writes (body, chunked body) to the client now; False when it cannot (the caller queues instead).
DirectWrite = Callable[[bytes, bytes], bool]


def encode(row: Row) -> Frame:
    return Frame(
        seq=row.seq,
        type=row.type,
        data=wire.frame(event=row.type, data_json=row.json, event_id=row.seq),
        is_terminal=row.type in TERMINAL_EVENTS,
    )


class Subscriber:
    """One open stream's mailbox: frames pushed by the feed, plus flags the hub raises."""

    __slots__ = (
        "closing",
        "deadline",
        "direct",
        "frames",
        "heartbeat_due",
        "is_live",
        "last",
        "max_unflushed",
        "slot",
        "task_id",
        "unflushed",
        "user_key",
        "waiter",
        "watermark",
    )

    def __init__(
        self, task_id: str, user_key: str, deadline: float, slot: str | None = None
    ) -> None:
        self.task_id = task_id
        self.user_key = user_key
        self.slot = slot  # its place in the user's stream limit (StreamQuota)
        self.deadline = deadline
        self.frames: collections.deque[Frame] = collections.deque()
        self.waiter: asyncio.Future[None] | None = None
        self.heartbeat_due = False
        self.closing: str | None = None
        self.watermark = 0
        self.last = 0  # the highest seq written to this stream
        # Set by the stream: True only while it waits in its live loop with nothing queued.
        self.is_live = False
        self.direct: DirectWrite | None = None
        self.unflushed: Callable[[], int] | None = None
        self.max_unflushed = 0

    def push(
        self, frames: list[Frame], max_lag: int, batch: Batch | None = None
    ) -> None:
        if batch is not None and self._write_now(batch):
            return
        self.frames.extend(frames)
        if len(self.frames) > max_lag and self.closing is None:
            self.closing = "slow"
        self.wake()

    def _write_now(self, batch: Batch) -> bool:
        """The fast path: an idle, caught-up stream gets the batch on its socket at once.

        Only when nothing is queued and the batch starts right after the last seq written, so
        order and exactly-once hold; a terminal batch goes through the stream, which ends it.
        """
        if (
            batch.is_terminal
            or batch.first != self.last + 1
            or not self._direct(batch.body, batch.chunk)
        ):
            return False
        self.last = batch.last
        METRICS.events_sent += len(batch.frames)
        return True

    def beat(self) -> None:
        """Heartbeat: written at once when the stream is idle, else left to the stream."""
        if not self._direct(wire.HEARTBEAT, HEARTBEAT_CHUNK):
            self.heartbeat_due = True
            self.wake()

    def _direct(self, body: bytes, chunk: bytes) -> bool:
        if (
            self.direct is None
            or not self.is_live
            or self.frames
            or self.closing is not None
            or not self.direct(body, chunk)
        ):
            return False
        if self.unflushed is not None and self.unflushed() > self.max_unflushed:
            self.close("slow")
        return True

    def close(self, reason: str) -> None:
        if self.closing is None:
            self.closing = reason
        self.wake()

    def wake(self) -> None:
        waiter = self.waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    @property
    def has_work(self) -> bool:
        return bool(self.frames) or self.heartbeat_due or self.closing is not None

    async def wait(self) -> None:
        if self.has_work:
            return
        self.waiter = asyncio.get_running_loop().create_future()
        try:
            await self.waiter
        finally:
            self.waiter = None


@dataclass(eq=False)
class Feed:
    """A watched task: its subscribers and the highest seq this process has read."""

    task_id: str
    subscribers: set[Subscriber] = field(default_factory=set)
    high: int = -1  # -1 until the watermark is read after joining the group
    ready: asyncio.Future[None] | None = None
    reading: asyncio.Task[None] | None = None
    dirty: bool = False
    in_group: bool = False


class Hub:
    """Per-event-loop registry of feeds and streams; see the module docstring."""

    def __init__(self) -> None:
        self.feeds: dict[str, Feed] = {}
        self.streams: set[Subscriber] = set()
        self.per_user: collections.Counter[str] = collections.Counter()
        self.quota = StreamQuota()
        self.reader = EventReader(size=setting("SSE_DB_POOL_SIZE", 4))
        self.draining = False
        self.drained = asyncio.Event()
        self.channel: str | None = None
        # A layer instance of our own: channels-redis keeps receive state per instance and
        # refuses receives from two event loops on one (tests run a loop per test).
        self.layer: Any = None
        self._starting: asyncio.Future[None] | None = None
        self._receiver: asyncio.Task[None] | None = None
        self._ticker: asyncio.Task[None] | None = None
        self._health: asyncio.Task[None] | None = None
        self._recovering: asyncio.Task[None] | None = None
        self._background: set[asyncio.Task[Any]] = set()
        # True only while wake-ups are seen to arrive (see the module docstring); False: poll.
        self.wakeups_ok = False
        self._outages = 0  # bumped whenever wake-ups are lost, so a recovery can tell
        self.probe_group = f"sse-probe.{uuid.uuid4().hex}"
        self._probe_seq = 0
        self._probes: dict[int, asyncio.Future[None]] = {}
        self._last_group_refresh = 0.0
        self.page = setting("SSE_PAGE_SIZE", 1000)
        self.max_lag = setting("SSE_MAX_LAG_EVENTS", 5000)

    # --- streams -------------------------------------------------------------------------

    def user_streams(self, user_key: str) -> int:
        """This process's open streams of the user."""
        return self.per_user[user_key]

    async def admit(self, user_key: str, limit: int) -> str | None:
        """A slot for one more stream of the user, or None when `limit` are open: counted
        across every process in Redis, by this process alone while Redis is away
        (diagnosis.streaming.quota). Pass the slot to subscribe() right away."""
        return await self.quota.acquire(user_key, limit, local=self.per_user[user_key])

    async def subscribe(
        self, task_id: str, user_key: str, slot: str | None = None
    ) -> Subscriber:
        """Register a stream first, then make sure the feed has joined the group and knows its
        watermark. Every event above `subscriber.watermark` will be pushed to the subscriber;
        every event at or below it is committed, so replay reads it from the table. The
        stream's slot (from admit()) is released when it is unsubscribed.
        """
        loop = asyncio.get_running_loop()
        lifetime = setting("SSE_MAX_LIFETIME_SECONDS", 3600.0)
        sub = Subscriber(
            task_id, user_key, loop.time() + lifetime * random.uniform(0.8, 1.0), slot
        )
        self.streams.add(sub)
        self.per_user[user_key] += 1
        METRICS.streams_open += 1
        try:
            await self._start()
            feed = self.feeds.get(task_id)
            if feed is None:
                feed = self.feeds[task_id] = Feed(task_id)
                feed.ready = loop.create_future()
                feed.subscribers.add(sub)
                await self._join(feed)
            else:
                feed.subscribers.add(sub)
                assert feed.ready is not None
                await asyncio.shield(feed.ready)
            sub.watermark = feed.high
        except BaseException:
            await self.unsubscribe(sub)
            raise
        return sub

    async def _join(self, feed: Feed) -> None:
        assert feed.ready is not None
        try:
            if self.wakeups_ok:
                await self._group_add(feed)  # bounded; on failure this stream polls
            # else: the polling tick covers the task, and the recovery adds it to its group.
            feed.high = await self.reader.watermark(feed.task_id)
        except BaseException as exc:
            if self.feeds.get(feed.task_id) is feed:
                del self.feeds[feed.task_id]  # the next subscriber tries again
            feed.ready.set_exception(exc)
            feed.ready.exception()  # retrieved here; waiters re-raise it
            raise
        feed.ready.set_result(None)
        if feed.dirty:
            self._poke(feed)

    async def unsubscribe(self, sub: Subscriber) -> None:
        if sub not in self.streams:
            return
        self.streams.discard(sub)
        self.per_user[sub.user_key] -= 1
        if self.per_user[sub.user_key] <= 0:
            del self.per_user[sub.user_key]
        METRICS.streams_open -= 1
        if sub.slot is not None:
            slot, sub.slot = sub.slot, None
            await self.quota.release(sub.user_key, slot)
        feed = self.feeds.get(sub.task_id)
        if feed is not None:
            feed.subscribers.discard(sub)
            if not feed.subscribers:
                del self.feeds[sub.task_id]
                if feed.in_group and self.channel is not None:
                    self._spawn(
                        self._group_discard(self.layer, feed.task_id, self.channel)
                    )
        if not self.streams:
            if self.draining:
                self.drained.set()
            await self._stop()

    # --- reads -----------------------------------------------------------------------------

    def on_wakeup(self, task_id: str, seq: int | None) -> None:
        METRICS.wakeups_received += 1
        feed = self.feeds.get(task_id)
        if feed is None or (seq is not None and feed.high >= seq):
            return
        self._poke(feed)

    def _poke(self, feed: Feed) -> None:
        if feed.high < 0 or feed.reading is not None:
            feed.dirty = True  # read again when the current read (or the join) ends
            return
        feed.reading = asyncio.get_running_loop().create_task(self._read(feed))

    async def _read(self, feed: Feed) -> None:
        try:
            while True:
                feed.dirty = False
                rows = await self.reader.events(
                    feed.task_id, after=feed.high, limit=self.page
                )
                METRICS.feed_reads += 1
                if rows:
                    frames = [encode(row) for row in rows]
                    feed.high = frames[-1].seq
                    batch = Batch.of(frames)
                    for sub in list(feed.subscribers):
                        sub.push(frames, self.max_lag, batch)
                if len(rows) < self.page and not feed.dirty:
                    break
        except asyncio.CancelledError:
            raise
        except Exception:
            # The next tick's catch-up read retries.
            logger.warning("sse: read of task %s failed", feed.task_id, exc_info=True)
        finally:
            feed.reading = None

    # --- channel layer and ticker -----------------------------------------------------------

    async def _start(self) -> None:
        if self._starting is None:
            self._starting = asyncio.ensure_future(self._open_link())
        await asyncio.shield(self._starting)

    async def _open_link(self) -> None:
        """Start the tasks; no Redis call here (new_channel is local), so opening never waits
        on it. Streams poll until the recovery has proven the wake-up path."""
        loop = asyncio.get_running_loop()
        self.wakeups_ok = False
        self._ticker = loop.create_task(self._tick_loop())
        self._health = loop.create_task(self._health_loop())
        if DEFAULT_CHANNEL_LAYER in channel_layers.configs:
            layer = channel_layers.make_backend(DEFAULT_CHANNEL_LAYER)
            self.channel = await layer.new_channel("sse.")
            self.layer = layer
            self._receiver = loop.create_task(self._receive_loop(layer, self.channel))
            self._recovering = loop.create_task(self._recover())

    async def _stop(self) -> None:
        starting, self._starting = self._starting, None
        if starting is not None:
            with contextlib.suppress(BaseException):
                await starting
        # Detach everything first: a subscriber arriving during the awaits below starts afresh.
        tasks = [
            t
            for t in (self._receiver, self._ticker, self._health, self._recovering)
            if t is not None
        ]
        layer = self.layer
        self._receiver = self._ticker = self.layer = self.channel = None
        self._health = self._recovering = None
        self.wakeups_ok = False
        for task in tasks:
            task.cancel()
        for task in tasks + list(self._background):
            with contextlib.suppress(BaseException):
                await task
        if layer is not None and hasattr(layer, "close_pools"):
            with contextlib.suppress(Exception):
                async with asyncio.timeout(setting("SSE_LAYER_TIMEOUT_SECONDS", 2.0)):
                    await layer.close_pools()
        if not self.streams:
            await self.reader.aclose()
            await self.quota.aclose()

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _group_add(self, feed: Feed) -> bool:
        layer, channel = self.layer, self.channel
        if layer is None or channel is None:
            return False
        try:
            async with asyncio.timeout(setting("SSE_LAYER_TIMEOUT_SECONDS", 2.0)):
                await layer.group_add(group_name(feed.task_id), channel)
        except Exception:
            # Polling covers this task until the recovery re-adds it.
            METRICS.group_add_failures += 1
            feed.in_group = False
            self._wakeups_lost(f"group_add for task {feed.task_id} failed")
            return False
        feed.in_group = True
        if self.feeds.get(feed.task_id) is not feed:  # unwatched meanwhile
            self._spawn(self._group_discard(layer, feed.task_id, channel))
        return True

    async def _group_discard(self, layer: Any, task_id: str, channel: str) -> None:
        if layer is None:
            return
        with contextlib.suppress(Exception):
            async with asyncio.timeout(setting("SSE_LAYER_TIMEOUT_SECONDS", 2.0)):
                await layer.group_discard(group_name(task_id), channel)

    async def _receive_loop(self, layer: Any, channel: str) -> None:
        backoff = 0.2
        me = asyncio.current_task()
        while True:
            if me is not None and me.cancelling():
                # A cancel the client library swallowed (redis-py can turn it into a closed
                # connection): stop anyway, or the loop's shutdown waits on us forever.
                raise asyncio.CancelledError
            try:
                message = await layer.receive(channel)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if type(exc).__name__ == "TimeoutError":
                    # redis-py's socket timeout can fire just before BZPOPMIN's own timeout
                    # returns nil: an empty poll, not an outage.
                    continue
                # Once per run of failures; the outage itself is logged by _wakeups_lost.
                logger.log(
                    logging.WARNING if backoff == 0.2 else logging.DEBUG,
                    "sse: channel layer receive failed; retrying",
                    exc_info=True,
                )
                self._wakeups_lost(f"receive failed: {exc!r}")
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, 2.0)
                continue
            backoff = 0.2
            kind = message.get("type")
            if kind == WAKEUP_TYPE:
                self.on_wakeup(str(message.get("task_id")), message.get("seq"))
            elif kind == PROBE_TYPE:
                probe = self._probes.get(message.get("n", -1))
                if probe is not None and not probe.done():
                    probe.set_result(None)

    # --- wake-up health and the polling fallback -------------------------------------------

    def _wakeups_lost(self, reason: str) -> None:
        """Wake-ups may not arrive: poll from now on (and read at once), until _recover."""
        self._outages += 1
        for feed in self.feeds.values():
            feed.in_group = False  # a Redis that restarted empty has none of our groups
        if not self.wakeups_ok:
            return
        self.wakeups_ok = False
        METRICS.wakeup_outages += 1
        logger.warning(
            "sse: wake-ups unavailable (%s); streams read the table every %s s",
            reason,
            setting("SSE_FALLBACK_POLL_SECONDS", 1.0),
        )
        self._spawn(self._poll())

    async def _probe(self) -> bool:
        """Does a message sent to our probe group come back through the receive loop?"""
        layer = self.layer
        if layer is None or self._receiver is None:
            return False
        self._probe_seq += 1
        n = self._probe_seq
        probe = self._probes[n] = asyncio.get_running_loop().create_future()
        try:
            async with asyncio.timeout(setting("SSE_LAYER_TIMEOUT_SECONDS", 2.0)):
                await layer.group_send(self.probe_group, {"type": PROBE_TYPE, "n": n})
                await probe
        except asyncio.CancelledError:
            raise
        except Exception:
            return False
        finally:
            del self._probes[n]
        return True

    async def _recover(self) -> None:
        """Back to wake-ups: probe, put every watched task in its group, then read once more
        (events appended while the groups were being re-added had no wake-up)."""
        layer, channel, outages = self.layer, self.channel, self._outages
        if layer is None or channel is None or self.wakeups_ok:
            return
        try:
            async with asyncio.timeout(setting("SSE_LAYER_TIMEOUT_SECONDS", 2.0)):
                await layer.group_add(self.probe_group, channel)
        except Exception:
            return
        if not await self._probe():
            return
        while pending := [f for f in self.feeds.values() if not f.in_group]:
            for feed in pending:
                if not await self._group_add(feed):
                    return
        if outages != self._outages or self.layer is not layer:
            return  # lost again meanwhile: the next tick tries again
        if METRICS.wakeup_outages:
            logger.warning("sse: wake-ups are back; streams follow them again")
        self.wakeups_ok = True
        await self._poll()

    async def _poll(self) -> None:
        try:
            await self.catch_up()
        except asyncio.CancelledError:
            raise
        except Exception:
            logger.warning("sse: fallback read failed", exc_info=True)

    async def _health_loop(self) -> None:
        """Every SSE_FALLBACK_POLL_SECONDS: probe while on wake-ups; else read and recover."""
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(setting("SSE_FALLBACK_POLL_SECONDS", 1.0))
            if self.wakeups_ok and not await self._probe():
                self._wakeups_lost("a probe did not come back")
                continue  # _wakeups_lost has started a read
            if not self.wakeups_ok:
                METRICS.fallback_polls += 1
                await self._poll()
                if self._recovering is None or self._recovering.done():
                    self._recovering = loop.create_task(self._recover())

    async def _tick_loop(self) -> None:
        # On a fixed cadence: a tick whose Redis or database calls are slow (an outage) does
        # not push the next heartbeat back by its own duration.
        interval = setting("SSE_HEARTBEAT_SECONDS", 15.0)
        loop = asyncio.get_running_loop()
        due = loop.time() + interval
        while True:
            await asyncio.sleep(max(0.0, due - loop.time()))
            due = max(due + interval, loop.time())
            try:
                await self.tick()
            except asyncio.CancelledError:
                raise
            except Exception:
                logger.warning("sse: tick failed", exc_info=True)

    async def tick(self) -> None:
        """Heartbeats, lifetimes, the catch-up read and group re-adds; every SSE_HEARTBEAT_SECONDS."""
        loop = asyncio.get_running_loop()
        now = loop.time()
        for sub in self.streams:
            if sub.deadline <= now:
                sub.close("lifetime")
            else:
                sub.beat()
        await self.quota.renew()
        await self.catch_up()
        if not self.wakeups_ok:
            return  # the health loop polls and re-adds the groups
        # channels-redis drops group members after group_expiry: re-add well before that.
        refresh = now - self._last_group_refresh >= setting(
            "SSE_GROUP_REFRESH_SECONDS", 3600.0
        )
        if refresh:
            self._last_group_refresh = now
        for feed in list(self.feeds.values()):
            if (refresh or not feed.in_group) and not await self._group_add(feed):
                break  # the layer is away: polling covers it, the recovery re-adds

    async def catch_up(self) -> None:
        """One watermark query for all watched tasks; read those with unannounced events."""
        feeds = [feed for feed in self.feeds.values() if feed.high >= 0]
        for start in range(0, len(feeds), 1000):
            chunk = feeds[start : start + 1000]
            marks = await self.reader.watermarks(feed.task_id for feed in chunk)
            METRICS.catchup_reads += 1
            for feed in chunk:
                if marks.get(feed.task_id, -1) > feed.high and feed.reading is None:
                    METRICS.catchup_hits += 1
                    self._poke(feed)

    # --- draining --------------------------------------------------------------------------

    def drain(self) -> None:
        """Ask every stream to send server_draining and end (SIGTERM, see draining.py)."""
        self.draining = True
        if not self.streams:
            self.drained.set()
        for sub in self.streams:
            sub.close("draining")


_HUBS: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Hub]" = (
    weakref.WeakKeyDictionary()
)


def get_hub() -> Hub:
    loop = asyncio.get_running_loop()
    hub = _HUBS.get(loop)
    if hub is None:
        hub = _HUBS[loop] = Hub()
    return hub


def all_hubs() -> list[Hub]:
    return list(_HUBS.values())
