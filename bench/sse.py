"""SSE benchmark: our stream (hub + plain ASGI app) vs django-eventstream, one Daphne each.

    .venv/bin/python bench/sse.py            # full run (1k/5k/10k idle, 1k/5k fan-out, replay)
    .venv/bin/python bench/sse.py --quick    # smaller sizes, for a smoke run

Loopback only and bounded: a private PostgreSQL database (created, migrated, dropped) on the
machine's server, a private redis-server on a free port, Daphne subprocesses on 127.0.0.1; clients
are bare asyncio protocols: for fan-out in spawned client processes (--client-procs, default 1),
so the process that commits the events never delays their receipt; for the rest in this process.
Everything shares the machine's cores with the server, so latencies are an upper bound. Prints
one table.

Measures, per server:
  idle N      streams held open; server RSS growth per stream and OS threads
  fan-out     one event committed; time from its commit to each watcher's receipt of its bytes
              (p50/p99 over all watchers and rounds)
  replay      a 10k-event history read from cursor 0 (events/s)
"""

from __future__ import annotations

import abc
import argparse
import asyncio
import contextlib
import multiprocessing
import os
import re
import resource
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
PY = Path(sys.executable)
DAPHNE = str(PY.with_name("daphne"))
ROUND = re.compile(rb'bench_round"?\s*:\s*(\d+)')
OPEN_CONCURRENCY = 200


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def proc_status(pid: int) -> tuple[float, int]:
    """(RSS in MB, threads) of a process."""
    rss = threads = 0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1])
        elif line.startswith("Threads:"):
            threads = int(line.split()[1])
    return rss / 1024, threads


def wait_port(port: int, proc: subprocess.Popen, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}")
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise TimeoutError(f"port {port} not listening")


# --- the database and the rows ----------------------------------------------------------------


def create_database(base_url: str, name: str) -> str:
    import psycopg

    with psycopg.connect(base_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    return base_url.rsplit("/", 1)[0] + "/" + name


def drop_database(base_url: str, name: str) -> None:
    import psycopg

    with psycopg.connect(base_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@dataclass
class Fixture:
    token: str
    tasks: list  # DiagnosisTask rows, one per fan-out task
    replay_task: object


def make_rows(n_tasks: int, replay_events: int) -> Fixture:
    from django.db import transaction
    from django.utils import timezone
    from django_eventstream.models import Event, EventCounter

    from diagnosis.models import DiagnosisTask, TaskEvent
    from diagnosis.services import diagnosis_start
    from tests import factories

    tenant = factories.make_tenant("bench")
    member = factories.make_member(tenant, username="bench", password="bench-123456")
    token = factories.make_token(member)
    tasks = []
    for i in range(n_tasks + 1):
        _incident, task = factories.make_incident(tenant, title=f"bench {i}")
        tasks.append(task)
    replay_task = tasks.pop()
    now = timezone.now()
    with transaction.atomic():
        TaskEvent.objects.bulk_create(
            TaskEvent(
                task_id=replay_task.pk,
                seq=seq,
                type="tool_progress",
                occurred_at=now,
                data={"task_id": str(replay_task.pk), "step": seq, "note": "x" * 64},
            )
            for seq in range(2, replay_events + 1)
        )
        DiagnosisTask.objects.filter(pk=replay_task.pk).update(last_seq=replay_events)
    # The peer's history: its placeholder event 0 and counter, then the same count of rows.
    Event(channel="replay", type="message", data="{}").save()
    Event.objects.bulk_create(
        Event(
            channel="replay",
            type="message",
            data=f'{{"step": {eid}, "note": "{"x" * 64}"}}',
            eid=eid,
        )
        for eid in range(2, replay_events + 1)
    )
    EventCounter.objects.filter(name="replay").update(value=replay_events)
    del diagnosis_start
    return Fixture(token=token, tasks=tasks, replay_task=replay_task)


# --- clients ---------------------------------------------------------------------------------


class Conn(asyncio.Protocol):
    """One watcher: a bare protocol that stamps each round's first bytes as they arrive.

    No stream reader and no task per connection: data_received runs straight from the loop's
    read callback, so the client's cost per connection and per event stays small beside the
    server's (both share the same cores). The stamp is taken before anything is parsed.
    """

    def __init__(self, key: str, ready: bytes, rounds: Rounds) -> None:
        self.key = key  # the task or channel watched
        self.ready = ready
        self.round_log = rounds
        self.rounds: dict[int, float] = {}
        self.opened: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.transport: asyncio.Transport | None = None
        self.buf = b""  # until the stream is open
        self.tail = b""
        self.received = 0

    def connection_made(self, transport) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        now = time.time()
        self.received += len(data)
        if not self.opened.done():
            self.buf += data
            if self.ready in self.buf:
                self.opened.set_result(None)
                self.buf = b""
            return
        for match in ROUND.finditer(self.tail + data):
            number = int(match.group(1))
            if number not in self.rounds:
                self.rounds[number] = now
                self.round_log.arrived(number)
        self.tail = data[-48:]

    def connection_lost(self, exc) -> None:
        if not self.opened.done():
            self.opened.set_exception(ConnectionError(self.buf[:300]))

    def close(self) -> None:
        if self.transport is not None:
            self.transport.abort()


class Rounds:
    """Per round, how many watchers have it; an event fires when all `total` do."""

    def __init__(self) -> None:
        self.total = 0
        self.arrivals: dict[int, int] = {}
        self.done: dict[int, asyncio.Event] = {}

    def event(self, number: int) -> asyncio.Event:
        if number not in self.done:
            self.done[number] = asyncio.Event()
            if self.arrivals.get(number, 0) >= self.total:
                self.done[number].set()
        return self.done[number]

    def arrived(self, number: int) -> None:
        self.arrivals[number] = self.arrivals.get(number, 0) + 1
        if self.arrivals[number] >= self.total:
            self.event(number).set()


def _watch(pipe, port: int, ready: bytes, requests: list) -> None:
    """A client process: open the streams, then report each round's arrival stamps on request."""
    asyncio.run(_watch_streams(pipe, port, ready, requests))


async def _watch_streams(pipe, port: int, ready: bytes, requests: list) -> None:
    log = Rounds()
    gate = asyncio.Semaphore(OPEN_CONCURRENCY)

    async def one(key: str, path: str, headers: dict[str, str]) -> Conn:
        async with gate:
            return await open_conn(port, path, headers, key, ready, log)

    try:
        conns = await asyncio.gather(*(one(*request) for request in requests))
    except Exception as exc:
        pipe.send(("failed", f"{type(exc).__name__} {str(exc)[:60]}"))
        return
    log.total = len(conns)
    pipe.send(("open", len(conns)))
    loop = asyncio.get_running_loop()
    while True:
        command, number = await loop.run_in_executor(None, pipe.recv)
        if command == "close":
            break
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(30):
                await log.event(number).wait()
        pipe.send([(conn.key, conn.rounds.get(number)) for conn in conns])
    for conn in conns:
        conn.close()


class Watchers:
    """A spawned client process holding some of the streams. Out of the emitting process, so
    its clients never wait for the emitter's GIL, and its stamps share the system clock."""

    def __init__(self, port: int, ready: bytes, requests: list) -> None:
        context = multiprocessing.get_context("spawn")
        self.pipe, child = context.Pipe()
        self.proc = context.Process(
            target=_watch, args=(child, port, ready, requests), daemon=True
        )
        self.proc.start()
        child.close()

    async def ask(self, message: tuple | None = None):
        loop = asyncio.get_running_loop()
        if message is not None:
            self.pipe.send(message)
        return await loop.run_in_executor(None, self.pipe.recv)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.pipe.send(("close", 0))
        self.proc.join(10)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join()


async def open_conn(
    port: int,
    path: str,
    headers: dict[str, str],
    key: str,
    ready: bytes,
    rounds: Rounds,
) -> Conn:
    loop = asyncio.get_running_loop()
    _transport, conn = await loop.create_connection(
        lambda: Conn(key, ready, rounds), "127.0.0.1", port
    )
    head = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    assert conn.transport is not None
    conn.transport.write(
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{head}\r\n".encode()
    )
    try:
        async with asyncio.timeout(60):
            await conn.opened
    except BaseException:
        conn.close()
        raise
    return conn


class Server(abc.ABC):
    """One Daphne process and how to watch something on it."""

    name: str
    ready: bytes

    def __init__(self, env: dict[str, str], app: str) -> None:
        self.port = free_port()
        log = os.environ.get("BENCH_SERVER_LOG")
        self.log = Path(log).open("ab") if log else subprocess.DEVNULL  # noqa: SIM115
        self.proc = subprocess.Popen(
            [
                DAPHNE,
                "-e",
                f"tcp:port={self.port}:interface=127.0.0.1:backlog=4096",
                app,
            ],
            env={**os.environ, **env},
            cwd=ROOT,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        wait_port(self.port, self.proc)

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(30)

    @abc.abstractmethod
    def path_headers(
        self, key: str, *, cursor: str | None = None
    ) -> tuple[str, dict[str, str]]:
        """The stream's path and request headers for one task (or channel) key."""

    @abc.abstractmethod
    def emit(self, key: str, round_no: int) -> float:
        """Publish one event for the key, the way this server's producers do; return the
        time.time() of its commit (or publication, where nothing is committed)."""

    async def open_many(self, keys: list[str]) -> list[Conn]:
        """Streams held in this process (the idle measure: no timing here)."""
        gate = asyncio.Semaphore(OPEN_CONCURRENCY)
        log = Rounds()

        async def one(key: str) -> Conn:
            async with gate:
                path, headers = self.path_headers(key)
                return await open_conn(self.port, path, headers, key, self.ready, log)

        return list(await asyncio.gather(*(one(k) for k in keys)))


class Ours(Server):
    name = "ours (hub, ASGI app)"
    ready = b"event: task_created"

    def __init__(self, env: dict[str, str], fixture: Fixture) -> None:
        super().__init__(env, "agentops.asgi:application")
        self.token = fixture.token

    def path_headers(self, key, *, cursor=None):
        headers = {"Authorization": f"Bearer {self.token}"}
        if cursor is not None:
            headers["Last-Event-ID"] = cursor
        return f"/api/tasks/{key}/events", headers

    def emit(self, key, round_no):
        from django.db import transaction

        from diagnosis.lifecycle import diagnosis_event_append

        committed: list[float] = []
        with transaction.atomic():
            # Registered first, so it runs right at the commit, before the wake-up is sent.
            transaction.on_commit(lambda: committed.append(time.time()))
            diagnosis_event_append(
                task_id=key, kind="tool_progress", data={"bench_round": round_no}
            )
        return committed[0]


class Peer(Server):
    """django-eventstream as its README sets it up, nothing tuned for or against it.

    Daphne serving Django's own ASGI handler (README "Setup" and "Deploying": no Channels routing),
    "daphne" and "django_eventstream" in INSTALLED_APPS; EVENTSTREAM_REDIS so that
    ``send_event`` from this process reaches the server's listeners (README "Multiple instances
    and scaling"); no storage for the live measures (the README's default) and
    DjangoModelStorage for replay (README "Event storage"); CONN_MAX_AGE 0, as Django's database
    notes say for ASGI. The project's middleware stays, as in any app that adds the package.
    """

    name = "django-eventstream 5.3"
    ready = b"event: stream-open"

    def __init__(self, env: dict[str, str]) -> None:
        super().__init__(
            {
                **env,
                "DJANGO_SETTINGS_MODULE": "bench.sse_peer_settings",
                "DB_CONN_MAX_AGE": "0",
            },
            "bench.sse_peer_asgi:application",
        )

    def path_headers(self, key, *, cursor=None):
        headers = {} if cursor is None else {"Last-Event-ID": f"{key}:{cursor}"}
        return f"/events/{key}/", headers

    def emit(self, key, round_no):
        from django_eventstream import send_event

        published = time.time()  # nothing is committed: the peer keeps no history here
        send_event(key, "message", {"bench_round": round_no})
        return published


# --- measures ----------------------------------------------------------------------------------


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, round(q * (len(values) - 1)))]


async def idle(server: Server, sizes: list[int], key: str) -> list[dict]:
    rows = []
    # Warm-up: the first stream loads code paths, pools and caches; not a per-stream cost.
    warm = await server.open_many([key] * 20)
    for conn in warm:
        conn.close()
    await asyncio.sleep(1.0)
    base_rss, base_threads = proc_status(server.proc.pid)
    conns: list[Conn] = []
    for size in sizes:
        started = time.monotonic()
        try:
            conns += await server.open_many([key] * (size - len(conns)))
        except Exception as exc:  # a server that cannot hold N is a result, not a crash
            rows.append(
                {
                    "measure": f"idle {size}",
                    "result": f"failed: {type(exc).__name__} {str(exc)[:60]}",
                }
            )
            break
        opened = time.monotonic() - started
        await asyncio.sleep(1.0)
        rss, threads = proc_status(server.proc.pid)
        per = (rss - base_rss) * 1024 / size
        rows.append(
            {
                "measure": f"idle {size}",
                "result": f"{per:5.1f} KB/stream, RSS {base_rss:.0f}->{rss:.0f} MB, threads {threads}, opened in {opened:.1f}s",
                "kb": per,
            }
        )
    for conn in conns:
        conn.close()
    await asyncio.sleep(2.0)
    del base_threads
    return rows


async def fanout(
    server: Server,
    keys: list[str],
    watchers: int,
    rounds: int,
    label: str,
    client_procs: int = 1,
) -> dict:
    per_key = watchers // len(keys)
    requests = [(k, *server.path_headers(k)) for k in keys for _ in range(per_key)]
    procs = [
        Watchers(server.port, server.ready, requests[i::client_procs])
        for i in range(client_procs)
    ]
    latencies: list[float] = []
    lost = 0
    loop = asyncio.get_running_loop()
    try:
        for proc in procs:
            status = await proc.ask()
            if status[0] != "open":
                raise RuntimeError(status[1])
        await asyncio.sleep(0.5)
        for r in range(1, rounds + 1):
            sent: dict[str, float] = {}
            for key in keys:
                sent[key] = await loop.run_in_executor(None, server.emit, key, r)
            for proc in procs:
                for key, got in await proc.ask(("round", r)):
                    if got is None:
                        lost += 1
                    else:
                        latencies.append(got - sent[key])
            await asyncio.sleep(0.3)
    finally:
        for proc in procs:
            proc.close()
    await asyncio.sleep(1.0)
    if not latencies:
        return {"measure": label, "result": "nothing received"}
    p50, p99 = pct(latencies, 0.5) * 1000, pct(latencies, 0.99) * 1000
    note = f", {lost} not received in 30 s" if lost else ""
    return {
        "measure": label,
        "result": f"p50 {p50:6.1f} ms  p99 {p99:6.1f} ms  ({rounds} rounds){note}",
        "p99": p99,
    }


async def replay(server: Server, key: str, events: int) -> dict:
    path, headers = server.path_headers(key, cursor="0")
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    head = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    started = time.monotonic()
    writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{head}\r\n".encode())
    count = 0
    tail = b""
    try:
        async with asyncio.timeout(60):
            while count < events - 1:
                chunk = await reader.read(1 << 20)
                if not chunk:
                    break
                count += (tail + chunk).count(b"\nevent: ") - tail.count(b"\nevent: ")
                tail = chunk[-16:]
    except TimeoutError:
        pass
    elapsed = time.monotonic() - started
    writer.transport.abort()
    return {
        "measure": f"replay {events}",
        "result": f"{count / elapsed:8.0f} events/s  ({count} events in {elapsed:.2f}s)",
    }


# --- main ----------------------------------------------------------------------------------------


async def run_server(
    server: Server, fixture: Fixture, args: argparse.Namespace, keys: dict, subset: str
) -> list[dict]:
    measures = set(subset.split(","))
    rows: list[dict] = []

    async def attempt(label: str, coro) -> None:
        try:
            result = await coro
        except Exception as exc:  # a server that cannot do it is a result, not a crash
            result = [
                {
                    "measure": label,
                    "result": f"failed: {type(exc).__name__} {str(exc)[:80]}",
                }
            ]
        for row in result if isinstance(result, list) else [result]:
            rows.append(row)
            print(f"{server.name}: {row['measure']}: {row['result']}", file=sys.stderr)
        await settle(server)

    if "idle" in measures:
        await attempt("idle", idle(server, args.idle, keys["one"]))
    if "fanout" in measures:
        for size in args.fanout:
            label = f"fan-out {size} x 1 task"
            await attempt(
                label,
                fanout(
                    server, [keys["one"]], size, args.rounds, label, args.client_procs
                ),
            )
        label = f"fan-out {args.fanout[0]} over {len(keys['many'])} tasks"
        await attempt(
            label,
            fanout(
                server,
                keys["many"],
                args.fanout[0],
                args.rounds,
                label,
                args.client_procs,
            ),
        )
    if "replay" in measures:
        await attempt("replay", replay(server, keys["replay"], args.replay))
    return rows


async def settle(server: Server, timeout: float = 120) -> None:
    """Wait until the server has let go of the previous measure's connections."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            sockets = sum(
                1
                for fd in Path(f"/proc/{server.proc.pid}/fd").iterdir()
                if fd.readlink().name.startswith("socket:")
            )
        except OSError:
            return
        if sockets < 50:
            return
        await asyncio.sleep(0.5)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only", choices=["ours", "peer"])
    parser.add_argument(
        "--measures",
        default="idle,fanout,replay",
        help="comma list of idle, fanout, replay",
    )
    parser.add_argument(
        "--client-procs",
        type=int,
        default=1,
        help="processes holding the fan-out watchers (never the one that emits)",
    )
    args = parser.parse_args()
    args.idle = [200, 500] if args.quick else [1000, 5000, 10000]
    args.fanout = [200, 500] if args.quick else [1000, 5000]
    args.rounds = 5 if args.quick else 20  # a p99 over few rounds is one round's tail
    args.replay = 2000 if args.quick else 10000

    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

    redis_port = free_port()
    redis = subprocess.Popen(
        [
            shutil.which("redis-server") or "redis-server",
            "--port",
            str(redis_port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
        ],
        stdout=subprocess.DEVNULL,
    )
    wait_port(redis_port, redis)
    base_url = os.environ.get(
        "DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
    )
    db_name = f"agentops_bench_sse_{os.getpid()}"
    db_url = create_database(base_url.rsplit("/", 1)[0] + "/postgres", db_name)
    env = {
        "DATABASE_URL": db_url,
        "REDIS_URL": f"redis://127.0.0.1:{redis_port}/0",
        "BENCH_REDIS_PORT": str(redis_port),
        "PYTHONPATH": str(ROOT),
        "DB_CONN_MAX_AGE": "60",
        "SSE_MAX_STREAMS_PER_USER": "1000000",
        "LOG_LEVEL": "WARNING",
    }
    os.environ.update(env)
    os.environ["DJANGO_SETTINGS_MODULE"] = "bench.sse_peer_settings"
    results: dict[str, list[dict]] = {}
    try:
        subprocess.run(
            [str(PY), "manage.py", "migrate", "-v", "0"],
            cwd=ROOT,
            env={**os.environ},
            check=True,
        )
        import django

        django.setup()
        from diagnosis import dispatch

        # Rows only; no worker here.
        dispatch.diagnosis_run_enqueue = lambda task_id: None
        fixture = make_rows(100 + 1, args.replay)
        ours_keys = {
            "one": str(fixture.tasks[0].pk),
            "many": [str(t.pk) for t in fixture.tasks[1:101]],
            "replay": str(fixture.replay_task.pk),
        }
        peer_keys = {
            "one": "one",
            "many": [f"c{i}" for i in range(100)],
            "replay": "replay",
        }
        measures = args.measures.split(",")
        live = ",".join(m for m in measures if m != "replay")
        plan = []  # (server factory, keys, measures)
        if args.only in (None, "ours"):
            ours_env = {**env, "DJANGO_SETTINGS_MODULE": "agentops.settings"}
            plan.append((lambda: Ours(ours_env, fixture), ours_keys, args.measures))
        if args.only in (None, "peer"):
            if live:
                plan.append((lambda: Peer(env), peer_keys, live))
            if "replay" in measures:
                storage_env = {**env, "BENCH_PEER_STORAGE": "1"}
                plan.append((lambda: Peer(storage_env), peer_keys, "replay"))
        for make, keys, subset in plan:
            server = make()
            try:
                rows = asyncio.run(run_server(server, fixture, args, keys, subset))
                for row in rows:
                    print(
                        f"{server.name}: {row['measure']}: {row['result']}",
                        file=sys.stderr,
                    )
                results.setdefault(server.name, []).extend(rows)
            finally:
                server.stop()
    finally:
        from django.db import connections

        connections.close_all()
        drop_database(base_url.rsplit("/", 1)[0] + "/postgres", db_name)
        redis.kill()
        redis.wait(10)

    print()
    print(
        f"SSE bench: one Daphne process per server, loopback, {os.cpu_count()} CPUs shared with the clients"
    )
    names = list(results)
    width = max(len(row["measure"]) for rows in results.values() for row in rows) + 2
    for name in names:
        print(f"\n## {name}")
        for row in results[name]:
            print(f"  {row['measure']:<{width}} {row['result']}")


if __name__ == "__main__":
    main()
