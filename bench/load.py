"""Load benchmark: incidents opened through the API while SSE clients watch and reconnect at random;
and the soak (issue 23): the same under faults, alert repeats and approvals.

    .venv/bin/python bench/load.py            # 200 incidents over 120 s, 500 SSE clients
    .venv/bin/python bench/load.py --quick    # 20 incidents, 50 clients: under a minute
    .venv/bin/python bench/load.py --incidents 50 --clients 100 --duration 30
    .venv/bin/python bench/load.py --soak                 # the soak: 10 minutes (+ the drain)
    .venv/bin/python bench/load.py --soak --duration 120  # its short form, scaled (20 incidents)

Loopback only and bounded (bench/stack.py): a private database (created, migrated, dropped) on
DATABASE_URL's server or the machine's PostgreSQL, a private redis-server on a free port unless
REDIS_URL is set, then Daphne, one Celery worker (prefork) and beat on 127.0.0.1, all with the
app's own settings. Incidents are POSTed to /api/incidents at an even pace with a token from
create_api_token and run the default plan (what the API takes today). Client processes
(--client-procs; bench/watchers.py) hold the SSE clients: each watches a task from
Last-Event-ID 0 to its terminal event, drops its connection at random (exponential, mean
--reconnect-mean s) and resumes with Last-Event-ID, then takes the least-watched unfinished
task. Every client checks each seq it gets against the last it has (lost: a gap; duplicated:
one again), and the run checks every finished watch against the table. Everything shares the
machine's cores, so latencies are an upper bound.

Fan-out is from commit to receipt, stamped as bench/sse.py does: the worker runs from this file
(`_worker`), which wraps the wake-up that services registers on commit so that it first writes
(task, seq, time.time()). Only events whose connection was open at the commit are counted (a
reconnect's replay is catch-up, not fan-out). Exits 1 on a loss, a duplicate, a 5xx or a stall.

The soak (`--soak`; bench/soak.py) runs on a PostgreSQL and a Redis of its own (tests/pgproc.py,
tests/redisproc.py; never the machine's), two Daphnes, a worker (--concurrency 8) and beat,
with defaults for 10 minutes that scale with --duration: --incidents (100 in 600 s; half opened
by alert groups, and every --demo-every-th API incident the pool-exhaustion demo, whose
diagnosis asks to restart a workload), 200 watchers split over the two Daphnes, PostgreSQL
restarted (`pg_ctl restart -m fast`) every --pg-restart-every s (120 in 600 s), Redis stopped
for --redis-down-for 10 s once (at 35 %), the worker's process group SIGKILLed once while a
diagnosis runs (at 55 %) and started again, 10 Alertmanager groups (--alert-groups) re-sent
every 0.3 s (--alert-interval) by two senders (HA peers, one per Daphne), with new alerts
joining now and then, each resolved once its diagnosis is over and a new group (a new
incident) in its place. The tenant's ALERT_RATE_LIMIT is raised, as its operators would for
that rate; DIAGNOSIS_DEADLINE_SECONDS is --task-deadline (900, the app's). A harness approver approves
every pending approval through the API. Clients retry a 5xx with the same Idempotency-Key
(counted). After the drain (300 s by default: a killed task waits out its lease) the soak
prints incidents opened; diagnoses by final state, and for each one that did not succeed its
error and the faults during its run; events lost or duplicated (watchers and the table's
seqs); actions (the actions server's ledger writes per approved action: repeated, unapproved,
not done); tasks not terminal by their deadline_at; 5xx by route; the PG restarts and their
downtime, the Redis outage, the worker kill and the re-queue of its tasks; alert repeats sent,
accepted and refused. It exits 1 when a target is missed: a diagnosis not succeeded, an event
lost or duplicated, an action repeated, a task not terminal within its deadline, a 5xx other
than 503, a deadlock in PostgreSQL's log, alert rounds slower than twice --alert-interval on
average (the planned load not applied), a planned incident or fault that did not happen, or no
approved action to measure. A failed run keeps
its folder (printed at the end): the servers' logs and the soak's PostgreSQL cluster, stopped
(to look inside: `tests.pgproc.PostgresProcess(Path(<folder>) / "pg", port=<the port in
<folder>/pg/data/postgresql.conf>).start()`; database agentops_soak).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import logging
import os
import resource
import shutil
import signal
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import soak  # noqa: E402
from bench.sse import pct, proc_status  # noqa: E402
from bench.stack import Stack, api_token, commit_stamps  # noqa: E402
from bench.watchers import ClientProcess, Watch  # noqa: E402

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


# --- the run ---------------------------------------------------------------------------------------


@dataclass
class Created:
    latencies: list[float] = field(default_factory=list)  # seconds, 201s only
    statuses: collections.Counter[int] = field(default_factory=collections.Counter)
    failures: list[str] = field(default_factory=list)
    tasks: list[str] = field(default_factory=list)
    first: float = 0.0
    last: float = 0.0
    demos: int = 0
    routes: collections.defaultdict[str, collections.Counter[int]] = field(
        default_factory=lambda: collections.defaultdict(collections.Counter)
    )


async def create_incidents(
    http,
    count: int,
    duration: float,
    announce,
    created: Created,
    *,
    demo_every: int = 0,
    is_retrying: bool = False,
) -> None:
    """`count` incidents POSTed at an even pace. Every `demo_every`-th (0: none) is a demo
    incident (POST /api/incidents/demo) whose diagnosis asks for an approval. Retrying (the
    soak): a 5xx or a connection error is tried again, with the same Idempotency-Key."""
    from diagnosis.registry import demo_environment_name

    loop = asyncio.get_running_loop()
    interval = duration / max(1, count)
    start = loop.time()
    created.first = time.time()

    async def one(i: int) -> None:
        path, body = (
            "/api/incidents",
            {
                "title": f"load incident {i}",
                "service": f"service-{i % 7}",
                "severity": "sev3",
                "symptoms": "p99 latency up on checkout; error rate 2%",
            },
        )
        if demo_every and i % demo_every == demo_every - 1:
            path = "/api/incidents/demo"
            body = {"environment": demo_environment_name(soak.DEMO_SCENARIO)}
            created.demos += 1
        headers = {"Idempotency-Key": f"load-{uuid.uuid4()}"} if is_retrying else {}
        for _attempt in range(30 if is_retrying else 5):
            began = time.perf_counter()
            try:
                response = await http.post(path, json=body, headers=headers)
            except Exception as exc:
                created.statuses[0] += 1
                created.routes[f"POST {path}"][0] += 1
                created.failures.append(f"POST #{i}: {type(exc).__name__} {exc}"[:300])
                if is_retrying:
                    await asyncio.sleep(1)
                    continue
                return
            elapsed = time.perf_counter() - began
            created.statuses[response.status_code] += 1
            created.routes[f"POST {path}"][response.status_code] += 1
            if (
                response.status_code == 429
            ):  # a rate limit, should one come: wait it out
                await asyncio.sleep(float(response.headers.get("retry-after", "1")))
                continue
            if is_retrying and response.status_code >= 500:
                created.failures.append(f"POST #{i}: {response.status_code} {response.text[:240]}")  # fmt: skip
                await asyncio.sleep(float(response.headers.get("retry-after", "1")))
                continue
            if response.status_code != 201:
                created.failures.append(
                    f"POST #{i}: {response.status_code} {response.text[:240]}"
                )
                return
            created.latencies.append(elapsed)
            created.last = time.time()
            announce(response.json()["task"]["id"])
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


async def warm_up(http, loop, db: soak.Db) -> None:
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
    deadline = loop.time() + 90
    while await db(tasks_unfinished, [task]):
        if loop.time() > deadline:
            raise RuntimeError("the warm-up diagnosis did not finish in 90 s")
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


def tasks_finished(ids: list[str]) -> set[str]:
    from diagnosis.models import DiagnosisTask

    return {
        str(pk)
        for pk in DiagnosisTask.objects.filter(
            pk__in=ids, finished_at__isnull=False
        ).values_list("pk", flat=True)
    }


async def drive(args: argparse.Namespace, stack: Stack, token: str) -> dict:
    import httpx

    loop = asyncio.get_running_loop()
    budget = args.duration + args.drain * (2 if args.soak else 1) + 30
    per = [args.clients // args.client_procs] * args.client_procs
    per[0] += args.clients - sum(per)
    created = Created()
    results = []
    clients: list[ClientProcess] = []
    db = soak.Db()
    alert_tasks: list[str] = []
    finished: set[str] = set()
    faults = soak.Faults()
    approvals = soak.Approvals()
    stop = asyncio.Event()

    def announce(task: str, *, by_alert: bool = False) -> None:
        created.tasks.append(task)
        if by_alert:
            alert_tasks.append(task)
        for client in clients:
            client.pipe.send(("task", task))

    def http_client(port: int):
        return httpx.AsyncClient(
            base_url=f"http://127.0.0.1:{port}",
            headers={"Authorization": f"Bearer {token}"},
            timeout=30,
            limits=httpx.Limits(max_connections=64),
        )

    async def keep_finished() -> None:
        while not stop.is_set():
            finished.update(await db(tasks_finished, list(created.tasks)))
            await asyncio.sleep(1.0)

    senders = [http_client(port) for port in stack.ports]
    http = senders[0]
    t0 = time.time()
    try:
        await warm_up(http, loop, db)
        clients = [
            ClientProcess(
                port=stack.ports[
                    i % len(stack.ports)
                ],  # the soak's clients use both Daphnes
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
        t0 = time.time()
        started = loop.time()
        background = []
        alerts = soak.AlertSenders(
            args, senders, lambda task: announce(task, by_alert=True), finished
        )
        count = args.incidents
        if args.soak:
            count -= alerts.budget
            background = [
                loop.create_task(keep_finished()),
                loop.create_task(soak.approver(http, db, stop, approvals)),
            ]
            faulting = loop.create_task(soak.faults(args, stack, db, faults, started))
            sending = loop.create_task(alerts.run(started))
        await create_incidents(
            http,
            count,
            args.duration,
            announce,
            created,
            demo_every=args.demo_every if args.soak else 0,
            is_retrying=args.soak,
        )
        if args.soak:
            await faulting
            await (
                sending
            )  # every group resolved (its diagnosis over) or the drain spent
        stack.check_alive()
        # Every task terminal in the table (a diagnosis takes seconds), within the drain.
        deadline = loop.time() + args.drain
        unfinished = len(created.tasks)
        while loop.time() < deadline:
            unfinished = await db(tasks_unfinished, created.tasks)
            if not unfinished:
                break
            await asyncio.sleep(0.5)
        elapsed = time.monotonic() - began
        cpu = {
            name: (cpu_seconds(group) - cpu[name]) / elapsed
            if stack.procs[name].pid == group  # a worker started again: not comparable
            else float("nan")
            for name, group in groups.items()
        }
        stop.set()
        await asyncio.gather(*background, return_exceptions=True)
        for client in clients:
            client.pipe.send(("finish",))
        for client in clients:
            results.append(await loop.run_in_executor(None, client.recv, budget))
    finally:
        stop.set()
        for client in clients:
            client.close()
        for sender in senders:
            await sender.aclose()
        db.close()
    return {
        "created": created,
        "clients": results,
        "unfinished_tasks": unfinished,
        "cpu": cpu,
        "t0": t0,
        "faults": faults,
        "alerts": alerts.figures,
        "alert_tasks": alert_tasks,
        "approvals": approvals,
        "routes": created.routes,
        "demo_incidents": created.demos,
    }


def report(args: argparse.Namespace, stack: Stack, run: dict) -> tuple[bool, dict]:
    """Print the load figures; (green, the figures the soak's report builds on)."""
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
        ("CPU while loaded", f"Daphne {run['cpu']['daphne']:.0%} of a core, worker (all processes) " + (f"{run['cpu']['worker']:.0%}" if run["cpu"]["worker"] == run["cpu"]["worker"] else "n/a (started again)")),
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
    figures = {
        "lost": lost,
        "duplicated": duplicated,
        "mismatched": mismatched,
        "closes": closes,
        "crashed": crashed,
        "stalled": closes.get("stalled", 0),
    }
    return is_green, figures


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
    group = parser.add_argument_group("soak (issue 23; bench/soak.py)")
    group.add_argument("--soak", action="store_true", help="the soak: 100 incidents in 10 minutes with faults, alert repeats and approvals")  # fmt: skip
    group.add_argument("--pg-restart-every", type=float, help="seconds between pg_ctl restart -m fast of the soak's PostgreSQL (0: none; default duration/5, at most 120)")  # fmt: skip
    group.add_argument("--redis-down-at", type=float, help="seconds into the run the soak's Redis stops (default 35%% of it)")  # fmt: skip
    group.add_argument("--redis-down-for", type=float, default=10.0, help="seconds Redis stays down (0: no outage)")  # fmt: skip
    group.add_argument("--worker-kill-at", type=float, help="seconds into the run the worker is SIGKILLed and started again (default 55%% of it; -1: never)")  # fmt: skip
    group.add_argument("--alert-groups", type=int, default=10, help="Alertmanager groups open at once")  # fmt: skip
    group.add_argument("--alert-interval", type=float, default=0.3, help="seconds between two repeats of a group (from each of the 2 senders)")  # fmt: skip
    group.add_argument("--alert-share", type=float, default=0.5, help="share of --incidents opened by alert groups")  # fmt: skip
    group.add_argument("--alert-join", type=float, default=0.1, help="chance a new alert joins a group at a repeat")  # fmt: skip
    group.add_argument("--group-hold", type=float, help="seconds a group stays open at least (default: what keeps --alert-groups open over the run)")  # fmt: skip
    group.add_argument("--demo-every", type=int, default=4, help=f"every n-th API incident is the {soak.DEMO_SCENARIO} demo (its restart needs an approval)")  # fmt: skip
    group.add_argument("--task-deadline", type=float, default=900.0, help="DIAGNOSIS_DEADLINE_SECONDS for the soak (default the app's)")  # fmt: skip
    args = parser.parse_args()
    if args.soak:
        soak.soak_defaults(args)
        if args.drain == parser.get_default("drain"):
            # A task killed with its worker waits out its lease, then the reaper; a slow
            # machine's queue takes a while to empty.
            args.drain = 300.0
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
        args.deadline = (
            55.0
            if args.quick
            else args.duration + args.drain * (2 if args.soak else 1) + 240
        )
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
        # The soak's token sends alerts (alerts:write) and approves (approvals:decide).
        token = api_token(role="admin" if args.soak else None)
        run = asyncio.run(drive(args, stack, token))
        from django.db import connections

        connections.close_all()  # the soak restarted PostgreSQL under this thread's connection
        is_green, figures = report(args, stack, run)
        if args.soak:
            is_green = soak.soak_report(args, stack, run, figures)
        print(f"\n{'GREEN' if is_green else 'FAILED'} (logs in {stack.dir})")
    except Deadline as exc:
        print(f"FAILED: {exc} (logs in {stack.dir})", file=sys.stderr)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        stack.stop(keep_data=not is_green)
        if is_green:
            shutil.rmtree(stack.dir, ignore_errors=True)
    sys.exit(0 if is_green else 1)


if __name__ == "__main__":
    main()
