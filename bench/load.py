"""Load benchmark: incidents opened through the API while SSE clients watch and reconnect at random.

    .venv/bin/python bench/load.py            # 200 incidents over 120 s, 500 SSE clients
    .venv/bin/python bench/load.py --quick    # 20 incidents, 50 clients: under a minute
    .venv/bin/python bench/load.py --incidents 50 --clients 100 --duration 30

Loopback only and bounded, on bench/sse.py's helpers: a private database (created, migrated,
dropped) on DATABASE_URL's server or the machine's PostgreSQL, a private redis-server on a free
port unless REDIS_URL is set, then Daphne, one Celery worker (prefork) and beat on 127.0.0.1, all
with the app's own settings. Incidents are POSTed to /api/incidents at an even pace with a token
from create_api_token and run the default plan (what the API takes today). Client processes
(--client-procs) hold the SSE clients: each watches a task from Last-Event-ID 0 to its terminal
event, drops its connection at random (exponential, mean --reconnect-mean s) and resumes with
Last-Event-ID, then takes the least-watched unfinished task. Every client checks each seq it gets
against the last it has (lost: a gap; duplicated: one again), and the run checks every finished
watch against the table. Everything shares the machine's cores, so latencies are an upper bound.

Fan-out is from commit to receipt, stamped as bench/sse.py does: the worker runs from this file
(`_worker`), which wraps the wake-up that services registers on commit so that it first writes
(task, seq, time.time()). Only events whose connection was open at the commit are counted (a
reconnect's replay is catch-up, not fan-out). Exits 1 on a loss, a duplicate, a 5xx or a stall.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import logging
import multiprocessing
import os
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.sse import (  # noqa: E402
    create_database,
    drop_database,
    free_port,
    pct,
    proc_status,
    wait_port,
)

PY = Path(sys.executable)
TERMINAL = frozenset(
    {"task_completed", "task_failed", "task_cancelled", "task_timed_out"}
)
CONNECT_TIMEOUT = 10.0
HEAD_TIMEOUT = (
    30.0  # a stream's response head (then the client gives up and reconnects)
)
# No byte for this long is a stall: the server sends a heartbeat every 15 s (SSE_HEARTBEAT_SECONDS).
IDLE_TIMEOUT = 20.0
VARYING = re.compile(r"0x[0-9a-f]+|[0-9a-f]{8}-[0-9a-f-]{27}|\d+")
STREAM_OPEN_GATE = 100  # opens in flight per client process


# --- the worker, stamped ------------------------------------------------------------------------


def stamped_worker(celery_argv: list[str]) -> None:
    """Run `celery <argv>` with services' on-commit wake-up wrapped to log its commit time."""
    import django

    django.setup()
    from diagnosis import services

    original = getattr(services, "publish_wakeup", None)
    if original is not None:
        stamps = Path(os.environ["BENCH_LOAD_STAMPS"])
        files: dict[int, object] = {}

        def publish_wakeup(task_id: object, seq: int) -> None:
            # Runs first thing after COMMIT returns (on_commit), before the wake-up is sent.
            now = time.time()
            pid = os.getpid()  # prefork children write files of their own
            out = files.get(pid)
            if out is None:
                out = files[pid] = (stamps / f"{pid}.tsv").open("a", buffering=1)
            out.write(f"{task_id}\t{seq}\t{now:.6f}\n")
            original(task_id, seq)

        services.publish_wakeup = publish_wakeup
    from celery.bin.celery import main as celery_main

    sys.argv = ["celery", *celery_argv]
    celery_main()


# --- SSE clients (in spawned processes) ----------------------------------------------------------


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
    # Plain dicts: the parent cannot unpickle a class of this process's __mp_main__.
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


# --- the stack -------------------------------------------------------------------------------------


class Stack:
    """Redis (unless given), a private database, Daphne, a worker and beat; torn down in stop()."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.dir = Path(tempfile.mkdtemp(prefix="agentops-load-"))
        (self.dir / "stamps").mkdir()
        self.procs: dict[str, subprocess.Popen] = {}
        self.redis: subprocess.Popen | None = None
        base = os.environ.get(
            "DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
        )
        self.admin_url = base.split("?")[0].rsplit("/", 1)[0] + "/postgres"
        self.db_name = f"agentops_load_{os.getpid()}"
        self.db_url: str | None = None
        self.port = free_port()

    def start(self) -> dict[str, str]:
        redis_url = os.environ.get("REDIS_URL")
        if not redis_url:
            redis_port = free_port()
            self.redis = subprocess.Popen(
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
                    "--dir",
                    str(self.dir),
                ],
                stdout=subprocess.DEVNULL,
                start_new_session=True,
            )
            wait_port(redis_port, self.redis, timeout=15)
            redis_url = f"redis://127.0.0.1:{redis_port}/0"
        self.db_url = create_database(self.admin_url, self.db_name)
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "agentops.settings",
            "PYTHONPATH": str(ROOT),
            "DATABASE_URL": self.db_url,
            "REDIS_URL": redis_url,
            "CELERY_BROKER_URL": redis_url,
            "SSE_MAX_STREAMS_PER_USER": "1000000",  # one user holds every stream here
            "LOG_LEVEL": "WARNING",
            "BENCH_LOAD_STAMPS": str(self.dir / "stamps"),
        }
        os.environ.update({k: self.env[k] for k in ("DATABASE_URL", "REDIS_URL")})
        os.environ["DJANGO_SETTINGS_MODULE"] = "agentops.settings"
        subprocess.run(
            [str(PY), "manage.py", "migrate", "-v", "0"],
            cwd=ROOT,
            env=self.env,
            check=True,
            timeout=120,
        )
        self.spawn(
            "daphne",
            [
                str(PY.with_name("daphne")),
                "-e",
                f"tcp:port={self.port}:interface=127.0.0.1:backlog=4096",
                "agentops.asgi:application",
            ],
        )
        self.spawn(
            "worker",
            [
                str(PY),
                __file__,
                "_worker",
                "-A",
                "agentops",
                "worker",
                "--pool=prefork",
                f"--concurrency={self.args.concurrency}",
                "-n",
                f"load{os.getpid()}@%h",
                "--without-gossip",
                "--without-mingle",
                "--loglevel=WARNING",
            ],
        )
        self.spawn(
            "beat",
            [
                str(PY),
                "-m",
                "celery",
                "-A",
                "agentops",
                "beat",
                "--loglevel=WARNING",
                "--schedule",
                str(self.dir / "beat-schedule"),
            ],
        )
        wait_port(self.port, self.procs["daphne"], timeout=30)
        return self.env

    def spawn(self, name: str, argv: list[str]) -> None:
        log = (self.dir / f"{name}.log").open("ab")
        self.procs[name] = subprocess.Popen(
            argv,
            cwd=ROOT,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own group: a prefork worker's children go with it
        )
        log.close()

    def check_alive(self) -> None:
        for name, proc in self.procs.items():
            if proc.poll() is not None:
                raise RuntimeError(f"{name} exited with {proc.returncode}")

    def log_problems(self, limit: int = 12) -> list[str]:
        """Warnings and errors the servers logged, counted by message (timestamps cut)."""
        counts: collections.Counter[str] = collections.Counter()
        for name in self.procs:
            path = self.dir / f"{name}.log"
            if not path.exists():
                continue
            for line in path.read_text(errors="replace").splitlines():
                for level in (" WARNING ", " ERROR ", " CRITICAL ", "Traceback"):
                    if level in line:
                        message = line[line.index(level) :].strip()
                        message = VARYING.sub("#", message)  # ids, addresses, numbers
                        counts[f"{name}: {message[:160]}"] += 1
                        break
        return [f"{n:5d} x {line}" for line, n in counts.most_common(limit)]

    def stop(self) -> None:
        for name in ("daphne", "beat", "worker"):
            proc = self.procs.get(name)
            if proc is None or proc.poll() is not None:
                continue
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(5)
            # Prefork children left in the group (the leader gone first).
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
        with contextlib.suppress(Exception):
            from django.db import connections

            connections.close_all()
        if self.db_url is not None:
            drop_database(self.admin_url, self.db_name)
        if self.redis is not None:
            self.redis.kill()
            self.redis.wait(10)


def api_token() -> str:
    import io

    from django.core.management import call_command

    out = io.StringIO()
    call_command("create_api_token", tenant="load", user="load", stdout=out)
    return out.getvalue().strip().splitlines()[-1]


def commit_stamps(directory: Path) -> dict[tuple[str, int], float]:
    stamps = {}
    for path in directory.glob("*.tsv"):
        for line in path.read_text().splitlines():
            task, seq, at = line.split("\t")
            stamps[(task, int(seq))] = float(at)
    return stamps


# --- the run ---------------------------------------------------------------------------------------


@dataclass
class Created:
    latencies: list[float] = field(default_factory=list)  # seconds, 201s only
    statuses: collections.Counter[int] = field(default_factory=collections.Counter)
    failures: list[str] = field(default_factory=list)
    tasks: list[str] = field(default_factory=list)
    first: float = 0.0
    last: float = 0.0


async def create_incidents(
    http, count: int, duration: float, clients: list[ClientProcess], created: Created
) -> None:
    loop = asyncio.get_running_loop()
    interval = duration / max(1, count)
    start = loop.time()
    created.first = time.time()

    async def one(i: int) -> None:
        body = {
            "title": f"load incident {i}",
            "service": f"service-{i % 7}",
            "severity": "sev3",
            "symptoms": "p99 latency up on checkout; error rate 2%",
        }
        for _attempt in range(5):
            began = time.perf_counter()
            try:
                response = await http.post("/api/incidents", json=body)
            except Exception as exc:
                created.statuses[0] += 1
                created.failures.append(f"POST #{i}: {type(exc).__name__} {exc}"[:300])
                return
            elapsed = time.perf_counter() - began
            created.statuses[response.status_code] += 1
            if (
                response.status_code == 429
            ):  # a rate limit, should one come: wait it out
                await asyncio.sleep(float(response.headers.get("retry-after", "1")))
                continue
            if response.status_code != 201:
                created.failures.append(
                    f"POST #{i}: {response.status_code} {response.text[:240]}"
                )
                return
            created.latencies.append(elapsed)
            created.last = time.time()
            task = response.json()["task"]["id"]
            created.tasks.append(task)
            for client in clients:
                client.pipe.send(("task", task))
            return

    posts = []
    for i in range(count):
        await asyncio.sleep(max(0.0, start + i * interval - loop.time()))
        posts.append(loop.create_task(one(i)))
    await asyncio.gather(*posts)


def tasks_unfinished(ids: list[str]) -> int:
    from diagnosis.models import DiagnosisTask

    return (
        DiagnosisTask.objects.filter(pk__in=ids, finished_at__isnull=True).count()
        if ids
        else 0
    )


async def warm_up(http, loop) -> None:
    """One incident run to its end before measuring: the worker's processes, Daphne's code
    paths and connections are up, so the first figures are not start-up."""
    response = await http.post(
        "/api/incidents",
        json={"title": "warm-up", "service": "warm-up", "severity": "sev4"},
    )
    if response.status_code != 201:
        raise RuntimeError(
            f"warm-up POST: {response.status_code} {response.text[:300]}"
        )
    task = response.json()["task"]["id"]
    deadline = loop.time() + 60
    while await loop.run_in_executor(None, tasks_unfinished, [task]):
        if loop.time() > deadline:
            raise RuntimeError("the warm-up diagnosis did not finish in 60 s")
        await asyncio.sleep(0.2)


def cpu_seconds(group: int) -> float:
    """User + system CPU seconds of the live processes in a process group."""
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == group:
            total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


async def drive(args: argparse.Namespace, stack: Stack, token: str) -> dict:
    import httpx

    loop = asyncio.get_running_loop()
    budget = args.duration + args.drain + 30
    per = [args.clients // args.client_procs] * args.client_procs
    per[0] += args.clients - sum(per)
    created = Created()
    results = []
    clients: list[ClientProcess] = []
    async with httpx.AsyncClient(
        base_url=f"http://127.0.0.1:{stack.port}",
        headers={"Authorization": f"Bearer {token}"},
        timeout=30,
        limits=httpx.Limits(max_connections=64),
    ) as http:
        try:
            await warm_up(http, loop)
            clients = [
                ClientProcess(
                    port=stack.port,
                    token=token,
                    clients=n,
                    seed=args.seed + i,
                    reconnect_mean=args.reconnect_mean,
                    budget=budget,
                )
                for i, n in enumerate(per)
            ]
            for client in clients:
                message = await loop.run_in_executor(None, client.recv, 60)
                assert message == ("ready",), message
            groups = {name: stack.procs[name].pid for name in ("daphne", "worker")}
            cpu = {name: cpu_seconds(group) for name, group in groups.items()}
            began = time.monotonic()
            await create_incidents(
                http, args.incidents, args.duration, clients, created
            )
            stack.check_alive()
            # Every task terminal in the table (a diagnosis takes seconds), within the drain.
            deadline = loop.time() + args.drain
            unfinished = len(created.tasks)
            while loop.time() < deadline:
                unfinished = await loop.run_in_executor(
                    None, tasks_unfinished, created.tasks
                )
                if not unfinished:
                    break
                await asyncio.sleep(0.5)
            elapsed = time.monotonic() - began
            cpu = {
                name: (cpu_seconds(group) - cpu[name]) / elapsed
                for name, group in groups.items()
            }
            for client in clients:
                client.pipe.send(("finish",))
            for client in clients:
                results.append(await loop.run_in_executor(None, client.recv, budget))
        finally:
            for client in clients:
                client.close()
    return {
        "created": created,
        "clients": results,
        "unfinished_tasks": unfinished,
        "cpu": cpu,
    }


def report(args: argparse.Namespace, stack: Stack, run: dict) -> bool:
    from django.db.models import Max, Min

    from diagnosis.models import DiagnosisTask, TaskEvent

    created: Created = run["created"]
    ids = created.tasks
    table: dict[str, list[tuple[int, str]]] = collections.defaultdict(list)
    for task_id, seq, kind in (
        TaskEvent.objects.filter(task_id__in=ids)
        .order_by("task_id", "seq")
        .values_list("task_id", "seq", "type")
    ):
        table[str(task_id)].append((seq, kind))
    tasks = DiagnosisTask.objects.filter(pk__in=ids)
    states = collections.Counter(tasks.values_list("state", flat=True))
    span = tasks.aggregate(first=Min("started_at"), last=Max("finished_at"))
    waits = [
        (started - made).total_seconds()
        for made, started in tasks.exclude(started_at=None).values_list(
            "created_at", "started_at"
        )
    ]
    runs = [
        (finished - started).total_seconds()
        for started, finished in tasks.exclude(started_at=None)
        .exclude(finished_at=None)
        .values_list("started_at", "finished_at")
    ]
    stamps = commit_stamps(stack.dir / "stamps")

    watches: list[Watch] = []
    closes: collections.Counter[str] = collections.Counter()
    cut_off = crashed = 0
    crashes: list[str] = []
    opens: list[float] = []
    for result in run["clients"]:
        _tag, client_watches, client_closes, pending, crashed_list, client_opens = (
            result
        )
        opens += client_opens
        watches += [Watch(**w) for w in client_watches]
        closes.update(client_closes)
        cut_off += pending
        crashed += len(crashed_list)
        crashes += crashed_list
    lost = duplicated = mismatched = unfinished = undelivered = 0
    fanout: list[float] = []
    unstamped = 0
    notes: list[str] = []
    for watch in watches:
        lost += watch.lost
        duplicated += watch.duplicated
        expected = table.get(watch.task, [])
        got = [(seq, kind) for seq, kind, _at, _opened in watch.events]
        if watch.terminal:
            if got != expected:
                mismatched += 1
                notes.append(
                    f"task {watch.task}: received {got} but the table has {expected}"
                )
        else:
            unfinished += 1
            # Never a gap on the stream (that is `lost`): what the table holds past the last
            # seq received had not reached this client when the run cut it off.
            undelivered += sum(1 for seq, _kind in expected if seq > watch.last)
        notes += [f"task {watch.task}: {note}" for note in watch.notes]
        for seq, kind, at, opened in watch.events:
            commit = stamps.get((watch.task, seq))
            if commit is None:
                unstamped += (
                    kind != "task_created"
                )  # appended by the API, not the worker
                continue
            if opened < commit:
                fanout.append(at - commit)

    api = created.latencies
    created_s = len(ids) / max(1e-9, created.last - created.first)
    completed = states.get("succeeded", 0)
    if span["first"] and span["last"]:
        busy = (span["last"] - span["first"]).total_seconds()
    else:
        busy = 0.0
    server_5xx = sum(n for status, n in created.statuses.items() if status >= 500)
    stream_5xx = sum(n for reason, n in closes.items() if reason.startswith("status_5"))
    bad_closes = {
        k: v
        for k, v in closes.items()
        if k not in ("terminal", "dropped", "after_terminal_204")
    }
    reconnects = sum(w.reconnects for w in watches)

    def ms(values: list[float], q: float) -> str:
        return f"{pct(values, q) * 1000:8.1f} ms" if values else "       n/a"

    rss, threads = proc_status(stack.procs["daphne"].pid)
    rows = [
        ("incidents created", f"{len(ids)} of {args.incidents} in {created.last - created.first:.1f} s"),
        ("created/s", f"{created_s:8.2f}"),
        ("API create p50 / p99", f"{ms(api, 0.5)} / {ms(api, 0.99)}"),
        ("API statuses", " ".join(f"{s}:{n}" for s, n in sorted(created.statuses.items()))),
        ("SSE clients", f"{args.clients} in {args.client_procs} processes, {len(watches)} watches of {len({w.task for w in watches})} tasks"),
        ("stream open p50 / p99", f"{ms(opens, 0.5)} / {ms(opens, 0.99)}  ({len(opens)} opens, connect to head)"),
        ("fan-out p50 / p99", f"{ms(fanout, 0.5)} / {ms(fanout, 0.99)}  ({len(fanout)} live deliveries)"),
        ("worker throughput", f"{completed / busy if busy else 0:8.2f} diagnoses/s ({completed} in {busy:.1f} s, concurrency {args.concurrency})"),
        ("queue wait p50 / p99", f"{ms(waits, 0.5)} / {ms(waits, 0.99)}"),
        ("diagnosis run p50 / p99", f"{ms(runs, 0.5)} / {ms(runs, 0.99)}"),
        ("task states", " ".join(f"{s}:{n}" for s, n in sorted(states.items()))),
        ("lost", f"{lost} (a gap in a client's seqs)"),
        ("duplicated", f"{duplicated} (a seq a client already had)"),
        ("reconnects", f"{reconnects} (with Last-Event-ID; {closes.get('dropped', 0)} random drops)"),
        ("watches unfinished", f"{unfinished} ({cut_off} clients cut off at the end, {crashed} crashed; {undelivered} events not yet delivered to them)"),
        ("watch != table", f"{mismatched}"),
        ("other stream ends", " ".join(f"{k}:{v}" for k, v in sorted(bad_closes.items())) or "none"),
        ("Daphne at the end", f"RSS {rss:.0f} MB, {threads} threads"),
        ("CPU while loaded", f"Daphne {run['cpu']['daphne']:.0%} of a core, worker (all processes) {run['cpu']['worker']:.0%}"),
    ]  # fmt: skip
    if unstamped:
        rows.append(("events without a commit stamp", f"{unstamped}"))
    print()
    print(
        f"Load bench: loopback, {os.cpu_count()} CPUs shared by PostgreSQL, Redis, Daphne, "
        f"the worker and the clients; reconnect mean {args.reconnect_mean} s"
    )
    width = max(len(name) for name, _ in rows) + 2
    for name, value in rows:
        print(f"  {name:<{width}} {value}")
    problems = (
        created.failures
        + notes
        + crashes
        + [f"{n} task(s) not finished within the drain" for n in [run["unfinished_tasks"]] if n]
    )  # fmt: skip
    is_green = not (
        lost or duplicated or mismatched or unfinished or cut_off or crashed
        or server_5xx or stream_5xx or run["unfinished_tasks"] or len(ids) < args.incidents
        or closes.get("stalled") or closes.get("after_terminal_wrong")
    )  # fmt: skip
    if problems:
        print(f"\nNotes ({len(problems)}; first 20):")
        for line in problems[:20]:
            print(f"  {line[:400]}")
    logged = stack.log_problems()
    if logged:
        print("\nServer log warnings and errors (most frequent 12):")
        for line in logged:
            print(f"  {line}")
    print(f"\n{'GREEN' if is_green else 'FAILED'} (logs in {stack.dir})")
    return is_green


class Deadline(Exception):
    pass


def main() -> None:
    if sys.argv[1:2] == ["_worker"]:
        stamped_worker(sys.argv[2:])
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small and under a minute")
    parser.add_argument("--incidents", type=int)
    parser.add_argument("--clients", type=int)
    parser.add_argument(
        "--duration", type=float, help="seconds over which incidents are created"
    )
    parser.add_argument("--drain", type=float, default=60.0, help="after the last create: seconds for every task to finish")  # fmt: skip
    parser.add_argument("--reconnect-mean", type=float, default=2.0, help="mean seconds a client holds a connection before dropping it")  # fmt: skip
    parser.add_argument("--client-procs", type=int, default=2)
    parser.add_argument("--concurrency", type=int, default=8, help="worker processes (prefork)")  # fmt: skip
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--deadline", type=float, help="hard limit on the whole run, seconds"
    )
    args = parser.parse_args()
    quick = {"incidents": 20, "clients": 50, "duration": 8.0}
    full = {"incidents": 200, "clients": 500, "duration": 120.0}
    for name, value in (quick if args.quick else full).items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    if args.quick:
        args.drain = min(args.drain, 20.0)
        args.reconnect_mean = min(args.reconnect_mean, 1.0)
        args.concurrency = min(args.concurrency, 4)
    if args.deadline is None:
        args.deadline = 55.0 if args.quick else args.duration + args.drain + 180
    args.client_procs = max(1, min(args.client_procs, args.clients))

    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

    def expire(_signum, _frame):
        raise Deadline(f"the run's hard deadline ({args.deadline:.0f} s) passed")

    signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, args.deadline)
    stack = Stack(args)
    is_green = False
    try:
        stack.start()
        import django

        django.setup()
        logging.getLogger("httpx").setLevel(logging.WARNING)  # one line per request
        token = api_token()
        run = asyncio.run(drive(args, stack, token))
        is_green = report(args, stack, run)
    except Deadline as exc:
        print(f"FAILED: {exc} (logs in {stack.dir})", file=sys.stderr)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        stack.stop()
        if is_green:
            shutil.rmtree(stack.dir, ignore_errors=True)
    sys.exit(0 if is_green else 1)


if __name__ == "__main__":
    main()
