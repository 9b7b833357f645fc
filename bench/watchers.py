"""SSE watchers for bench/load.py, in spawned client processes: each watches a task from
Last-Event-ID 0 to its terminal event, drops its connection at random and resumes with
Last-Event-ID, and checks every seq it gets against the last it has (lost: a gap; duplicated:
one again). The parent collects each process's watches as plain dicts (`Watch(**d)`)."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import multiprocessing
import random
import resource
import time
from dataclasses import dataclass, field

TERMINAL = frozenset(
    {"task_completed", "task_failed", "task_cancelled", "task_timed_out"}
)
CONNECT_TIMEOUT = 10.0
HEAD_TIMEOUT = (
    30.0  # a stream's response head (then the client gives up and reconnects)
)
# No byte for this long is a stall: the server sends a heartbeat every 15 s (SSE_HEARTBEAT_SECONDS).
IDLE_TIMEOUT = 20.0
STREAM_OPEN_GATE = 100  # opens in flight per client process


class Dechunker:
    """HTTP/1.1 chunked transfer coding, incrementally (RFC 9112 §7.1)."""

    def __init__(self) -> None:
        self.buf = b""
        self.left = 0  # bytes of the current chunk still to come, then its CRLF
        self.ended = False

    def feed(self, data: bytes) -> bytes:
        self.buf += data
        out = bytearray()
        while self.buf and not self.ended:
            if self.left:
                take = self.buf[: self.left]
                out += take
                self.left -= len(take)
                self.buf = self.buf[len(take) :]
                if self.left:
                    break
                self.left = -2  # the chunk's CRLF
                continue
            if self.left < 0:
                if len(self.buf) < 2:
                    break
                self.buf = self.buf[2:]
                self.left = 0
                continue
            line, sep, rest = self.buf.partition(b"\r\n")
            if not sep:
                break
            size = int(line.split(b";")[0], 16)
            self.buf = rest
            if size == 0:
                self.ended = True
            self.left = size
        return bytes(out)


def sse_frames(buf: bytearray) -> list[dict[str, str]]:
    """Complete frames taken from the front of buf (what follows the last blank line stays)."""
    frames = []
    while (end := buf.find(b"\n\n")) >= 0:
        block = bytes(buf[:end]).decode()
        del buf[: end + 2]
        fields: dict[str, str] = {}
        for line in block.split("\n"):
            if not line or line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            fields[name] = value[1:] if value.startswith(" ") else value
        if "event" in fields or "data" in fields:
            frames.append(fields)
    return frames


@dataclass
class Watch:
    """One client's watch of one task, from Last-Event-ID 0 to the terminal event."""

    task: str
    last: int = 0
    terminal: int = 0  # the terminal event's seq, once seen
    lost: int = 0  # seqs skipped over (a gap on the stream)
    duplicated: int = 0  # seqs received again
    reconnects: int = 0
    # (seq, type, received at, connection opened at), time.time() throughout
    events: list[tuple[int, str, float, float]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # anything but a clean stream


class ClientState:
    """What a client process knows: the tasks, which are finished, who watches what."""

    def __init__(self) -> None:
        self.tasks: list[str] = []
        self.finished: set[str] = set()
        self.watchers: collections.Counter[str] = collections.Counter()
        self.changed = asyncio.Event()
        self.finishing = False
        self.closes: collections.Counter[str] = collections.Counter()
        self.opens: list[float] = []  # seconds from connect to the 200's head

    def add(self, task: str) -> None:
        self.tasks.append(task)
        self.changed.set()

    async def pick(self) -> str | None:
        """The least-watched task not seen finished (the newest on a tie); None once the run
        is finishing and nothing is left to watch."""
        while True:
            open_tasks = [t for t in self.tasks if t not in self.finished]
            if open_tasks:
                task = min(
                    reversed(open_tasks), key=lambda t: self.watchers[t]
                )  # min keeps the first of equals: the newest
                self.watchers[task] += 1
                return task
            if self.finishing:
                return None
            self.changed.clear()
            await self.changed.wait()


async def read_head(reader: asyncio.StreamReader) -> tuple[int, dict[str, str]]:
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
    return status, headers


async def stream_once(
    port: int,
    token: str,
    watch: Watch,
    kill_after: float,
    state: ClientState,
    gate: asyncio.Semaphore,
) -> str:
    """One connection: read frames until the terminal event, our random drop, or a stall.
    Returns why it ended."""
    loop = asyncio.get_running_loop()
    request = (
        f"GET /api/tasks/{watch.task}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Authorization: Bearer {token}\r\nAccept: text/event-stream\r\n"
        f"Last-Event-ID: {watch.last}\r\n\r\n"
    ).encode()
    # Only the open is gated (connect to the response head): a real client's opens are not
    # all in flight at once either; an open stream holds no slot.
    async with gate:
        try:
            async with asyncio.timeout(CONNECT_TIMEOUT):
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
        except (OSError, TimeoutError) as exc:
            watch.notes.append(f"connect: {type(exc).__name__}")
            return "connect_error"
        opened = time.time()
        try:
            writer.write(request)
            async with asyncio.timeout(HEAD_TIMEOUT):
                status, headers = await read_head(reader)
        except (OSError, TimeoutError, asyncio.IncompleteReadError) as exc:
            writer.transport.abort()
            watch.notes.append(
                f"no response head in {HEAD_TIMEOUT:g} s: {type(exc).__name__}"
            )
            return "head_error"
    state.opens.append(time.time() - opened)
    kill_at = loop.time() + kill_after
    try:
        if status != 200:
            body = b""
            with contextlib.suppress(Exception):
                async with asyncio.timeout(2):
                    body = await reader.read(500)
            watch.notes.append(f"status {status}: {body[-300:]!r}")
            return f"status_{status}"
        chunks = Dechunker() if headers.get("transfer-encoding") == "chunked" else None
        buf = bytearray()
        while True:
            left = kill_at - loop.time()
            if left <= 0:
                return "dropped"  # by us, at random
            try:
                data = await asyncio.wait_for(
                    reader.read(1 << 16), min(left, IDLE_TIMEOUT)
                )
            except TimeoutError:
                if loop.time() >= kill_at - 0.001:
                    return "dropped"
                watch.notes.append(f"stall after seq {watch.last}")
                return "stalled"
            except OSError as exc:
                watch.notes.append(f"read: {type(exc).__name__}")
                return "read_error"
            now = time.time()
            if not data:
                return "server_closed"
            buf += chunks.feed(data) if chunks else data
            for frame in sse_frames(buf):
                kind = frame.get("event", "message")
                if "id" not in frame:
                    watch.notes.append(f"event {kind} without id")  # server_draining
                    continue
                seq = int(frame["id"])
                if kind == "resync_required":
                    watch.notes.append(f"resync_required at {seq}: {frame.get('data')}")
                    watch.lost += max(0, seq - watch.last)
                    watch.last = max(watch.last, seq)
                    continue
                if seq <= watch.last:
                    watch.duplicated += 1
                    continue
                if seq > watch.last + 1:
                    watch.lost += seq - watch.last - 1
                    watch.notes.append(f"gap {watch.last} -> {seq}")
                watch.last = seq
                watch.events.append((seq, kind, now, opened))
                if kind in TERMINAL:
                    watch.terminal = seq
                    state.finished.add(watch.task)
                    state.changed.set()
                    return "terminal"
            if chunks is not None and chunks.ended:
                return "server_closed"
    finally:
        writer.transport.abort()


async def check_no_content(port: int, token: str, watch: Watch) -> bool:
    """After the terminal event, resuming from it must get 204 (EventSource stops for good)."""
    try:
        async with asyncio.timeout(CONNECT_TIMEOUT):
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(
                (
                    f"GET /api/tasks/{watch.task}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    f"Authorization: Bearer {token}\r\nLast-Event-ID: {watch.last}\r\n\r\n"
                ).encode()
            )
            status, _headers = await read_head(reader)
            writer.transport.abort()
    except (OSError, TimeoutError, asyncio.IncompleteReadError) as exc:
        watch.notes.append(f"after terminal: {type(exc).__name__}")
        return False
    if status != 204:
        watch.notes.append(f"after terminal: {status}, not 204")
    return status == 204


async def one_client(
    port: int,
    token: str,
    state: ClientState,
    rng: random.Random,
    reconnect_mean: float,
    gate: asyncio.Semaphore,
    watches: list[Watch],
    stop_at: float,
) -> None:
    loop = asyncio.get_running_loop()
    while loop.time() < stop_at:
        task = await state.pick()
        if task is None:
            return
        watch = Watch(task)
        watches.append(watch)
        try:
            while not watch.terminal and loop.time() < stop_at:
                kill_after = min(
                    rng.expovariate(1 / reconnect_mean), stop_at - loop.time()
                )
                reason = await stream_once(port, token, watch, kill_after, state, gate)
                state.closes[reason] += 1
                if reason == "terminal":
                    break
                watch.reconnects += 1
                # A refusal or an error backs off; our own drop resumes at once or nearly.
                pause = 0.5 if reason not in ("dropped", "server_closed") else 0.0
                await asyncio.sleep(pause + rng.uniform(0, 0.05))
            if watch.terminal and rng.random() < 0.1:
                state.closes[
                    "after_terminal_204"
                    if await check_no_content(port, token, watch)
                    else "after_terminal_wrong"
                ] += 1
        finally:
            state.watchers[task] -= 1


def client_process(pipe, port: int, token: str, clients: int, seed: int, reconnect_mean: float, budget: float) -> None:  # fmt: skip
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    asyncio.run(_client_main(pipe, port, token, clients, seed, reconnect_mean, budget))


async def _client_main(pipe, port, token, clients, seed, reconnect_mean, budget):
    loop = asyncio.get_running_loop()
    state = ClientState()
    stop_at = loop.time() + budget
    finish = asyncio.Event()

    def readable() -> None:
        while pipe.poll():
            message = pipe.recv()
            if message[0] == "task":
                state.add(message[1])
            elif message[0] == "finish":
                state.finishing = True
                state.changed.set()
                finish.set()

    loop.add_reader(pipe.fileno(), readable)
    gate = asyncio.Semaphore(STREAM_OPEN_GATE)
    watches: list[Watch] = []
    rng = random.Random(seed)
    runners = [
        loop.create_task(
            one_client(
                port,
                token,
                state,
                random.Random(rng.random()),
                reconnect_mean,
                gate,
                watches,
                stop_at,
            )
        )
        for _ in range(clients)
    ]
    pipe.send(("ready",))
    # Finishing: every task is terminal in the table, so a watch ends within seconds.
    done, pending = await asyncio.wait(runners, timeout=budget)
    for runner in pending:
        runner.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    crashed = [repr(r.exception()) for r in done if r.exception() is not None]
    loop.remove_reader(pipe.fileno())
    # Plain dicts, rebuilt by the parent as Watch(**d).
    pipe.send(
        (
            "results",
            [vars(w) for w in watches],
            dict(state.closes),
            len(pending),
            crashed,
            state.opens,
        )
    )


class ClientProcess:
    def __init__(self, **kwargs) -> None:
        context = multiprocessing.get_context("spawn")
        self.pipe, child = context.Pipe()
        self.proc = context.Process(
            target=client_process, args=(child,), kwargs=kwargs, daemon=True
        )
        self.proc.start()
        child.close()

    def recv(self, timeout: float):
        if not self.pipe.poll(timeout):
            raise TimeoutError("client process did not answer")
        return self.pipe.recv()

    def close(self) -> None:
        self.proc.join(5)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join(5)
