"""Engine benchmark (issue 9 item 12): many diagnoses at once on one worker host.

    .venv/bin/python bench/engine.py            # each scenario alone, then 20 incidents at once
    .venv/bin/python bench/engine.py --quick    # two scenarios alone, then 5 at once
    .venv/bin/python bench/engine.py --burst 40 --threads 40
    .venv/bin/python bench/engine.py --pool-table   # issue 19's table: the session pool cold and warm

Two worker designs, one after the other on the same stack: ours, Celery's threads pool (each
diagnosis runs its own asyncio loop in its own thread, --threads of them), and the baseline,
prefork concurrency 2 (--baseline-concurrency). For each: a warm-up (two incidents to their end,
not measured), then "1": each scenario alone, one after the other, and "N": --burst incidents
opened at once, the demo scenarios round-robin. Incidents are opened over HTTP
(POST /api/incidents/demo) and followed by diagnosis.evaluation's driver, which denies the
approvals a diagnosis asks for, as `manage.py evaluate` does.

Measured per incident: from just before its create request to its `task_started` event (a
worker slot took it), to its first `tool_started` event (the events' occurred_at), and to its
task's finished_at (wall). "right" is how many runs
`evaluate` would count. Peak DB sessions is the highest count of sessions on the bench's database
while a batch ran (sampled every 0.25 s); the engine holds 3-4 per running diagnosis (the runner
thread, its DB writer and stop-check threads, the lease heartbeat).

Loopback only and bounded: a private database (created, migrated, dropped) on DATABASE_URL's
server, else an embedded PostgreSQL in a temporary folder; a private embedded Redis; Daphne and
the worker as children (agentops.stack), with the app's own settings. PostgreSQL, Redis, Daphne,
the worker, its MCP server processes and this driver share the machine's cores, so the figures
are an upper bound. Prints figures and ratios; asserts nothing about time.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import shutil
import signal
import statistics
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agentops import embedded  # noqa: E402


@dataclass(frozen=True)
class Design:
    label: str
    pool: str
    concurrency: int
    is_baseline: bool


@dataclass
class Batch:
    design: Design
    incidents: int  # at once (1: one after the other)
    started: list[float] = field(default_factory=list)  # create → task_started
    first_tool: list[float] = field(default_factory=list)  # create → first tool_started
    wall: list[float] = field(default_factory=list)
    by_scenario: dict[str, list[float]] = field(default_factory=dict)
    right: int = 0
    runs: int = 0
    missing_first_tool: int = 0
    states: dict[str, int] = field(default_factory=dict)
    peak_sessions: int = 0
    misses: list[str] = field(default_factory=list)  # why a run was not right
    from_start: list[float] = field(
        default_factory=list
    )  # task_started → first tool_started


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


# --- services ------------------------------------------------------------------------------------


@contextlib.contextmanager
def private_services(base: Path):
    """(DATABASE_URL, REDIS_URL) of a private database and a private Redis; gone on exit."""
    given = os.environ.get("DATABASE_URL")
    with embedded.embedded_services(
        base, database=not given, redis=True, ephemeral_redis=True
    ) as urls:
        if not given:
            yield urls.database_url, urls.redis_url
            return
        import psycopg

        name = f"agentops_engine_{os.getpid()}"
        parts = urlsplit(given)
        admin = urlunsplit(parts._replace(path="/postgres"))
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
            conn.execute(f'CREATE DATABASE "{name}"')
        try:
            yield urlunsplit(parts._replace(path=f"/{name}")), urls.redis_url
        finally:
            from django.db import connections

            connections.close_all()
            with psycopg.connect(admin, autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


class SessionSampler(threading.Thread):
    """The highest number of sessions on the current database, sampled until stopped."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.peak = 0
        self.stopped = threading.Event()

    def run(self) -> None:
        from django.db import connection

        try:
            while not self.stopped.wait(0.25):
                with connection.cursor() as cursor:
                    cursor.execute(
                        "SELECT count(*) FROM pg_stat_activity "
                        "WHERE datname = current_database() AND pid <> pg_backend_pid()"
                    )
                    self.peak = max(self.peak, cursor.fetchone()[0])
        finally:
            connection.close()

    def stop(self) -> int:
        self.stopped.set()
        self.join()
        return self.peak


# --- the runs ------------------------------------------------------------------------------------


def measure(batch: Batch, runs: list) -> None:
    """Add the runs (diagnosis.evaluation.Run) to the batch, timed from the table's rows."""
    from diagnosis import evaluation
    from diagnosis.models import DiagnosisTask, TaskEvent

    ids = [r.task_id for r in runs if r.task_id]
    firsts: dict[tuple[str, str], float] = {}
    for task_id, kind, at in (
        TaskEvent.objects.filter(
            task_id__in=ids, type__in=["task_started", "tool_started"]
        )
        .order_by("task_id", "seq")
        .values_list("task_id", "type", "occurred_at")
    ):
        firsts.setdefault((str(task_id), kind), at.timestamp())
    finished = {
        str(pk): at
        for pk, at in DiagnosisTask.objects.filter(pk__in=ids).values_list(
            "pk", "finished_at"
        )
    }
    for run in runs:
        batch.runs += 1
        batch.states[run.state] = batch.states.get(run.state, 0) + 1
        score = evaluation.score(run)
        batch.right += score.counted
        if not score.counted:
            questions = run.report.get("open_questions") or [""]
            batch.misses.append(
                f"{run.scenario.folder}: {score.why}; {run.report.get('summary', '')[:120]}"
                f" | {questions[0][:240]}"
            )
        started = firsts.get((run.task_id, "task_started"))
        if started is not None:
            batch.started.append(started - run.created_at)
        tool = firsts.get((run.task_id, "tool_started"))
        if tool is not None:
            batch.first_tool.append(tool - run.created_at)
            if started is not None:
                batch.from_start.append(tool - started)
        else:
            batch.missing_first_tool += 1
        end = finished.get(run.task_id) if run.task_id else None
        wall = end.timestamp() - run.created_at if end else run.wall_s
        batch.wall.append(wall)
        batch.by_scenario.setdefault(run.scenario.folder, []).append(wall)


def run_design(
    stack, design: Design, scenarios: list, secret: str, args: argparse.Namespace
) -> list[Batch]:
    from diagnosis import evaluation

    def go(batch_scenarios: list, at_once: int) -> list:
        return asyncio.run(
            evaluation.run_all(
                stack.base_url,
                secret,
                batch_scenarios,
                concurrency=at_once,
                timeout=args.timeout,
                poll=args.poll,
            )
        )

    name = f"bench-{design.pool}"
    stack.start_worker(name, pool=design.pool, concurrency=design.concurrency)
    try:
        print(f"  {design.label}: warm-up", flush=True)
        go(scenarios[:2], 2)
        batches = []
        alone = scenarios[: args.alone]
        plan = [
            (1, alone),
            (args.burst, [scenarios[i % len(scenarios)] for i in range(args.burst)]),
        ]
        for at_once, batch_scenarios in plan:
            if not batch_scenarios:
                continue
            print(
                f"  {design.label}: {len(batch_scenarios)} incident(s), {at_once} at once",
                flush=True,
            )
            batch = Batch(design=design, incidents=at_once)
            sampler = SessionSampler()
            sampler.start()
            try:
                runs = go(batch_scenarios, at_once)
            finally:
                batch.peak_sessions = sampler.stop()
            measure(batch, runs)
            batches.append(batch)
        return batches
    finally:
        stack.stop(name)


# --- issue 19's table: the worker's MCP session pool, cold and warm -------------------------------


def _rss_mib(pid: int) -> tuple[float, float, float]:
    """(RSS of process `pid`, RSS of it and every descendant, PSS of it and every descendant), MiB.

    RSS counts a page shared by several processes once per process: forks of the fork server
    share most of theirs, so their RSS sum overstates the memory they take. PSS (from
    /proc/PID/smaps_rollup) divides each shared page among its sharers, so its sum is the
    memory the tree takes.
    """
    children: dict[int, list[int]] = {}
    rss: dict[int, float] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            status = (entry / "status").read_text()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry.name))
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                rss[int(entry.name)] = int(line.split()[1]) / 1024
    total, pss, todo = 0.0, 0.0, [pid]
    while todo:
        current = todo.pop()
        total += rss.get(current, 0.0)
        pss += _pss_mib(current)
        todo += children.get(current, [])
    return rss.get(pid, 0.0), total, pss


def _pss_mib(pid: int) -> float:
    try:
        rollup = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except OSError:
        return 0.0
    for line in rollup.splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1]) / 1024
    return 0.0


def pool_table(stack, scenarios: list, secret: str, args: argparse.Namespace) -> None:
    """The rows of issue 19's table, in one run on this machine: 20 at once on one environment
    cold (a fresh worker) and then warm, one alone warm (x5), 20 on 20 demo environments cold (a
    fresh worker), then every scenario once more and the worker's RSS with the pool warm."""
    from diagnosis import evaluation

    def go(batch_scenarios: list, at_once: int, label: str) -> Batch:
        print(f"  pool: {label}", flush=True)
        batch = Batch(
            design=Design(label, "threads", args.threads, False), incidents=at_once
        )
        runs = asyncio.run(
            evaluation.run_all(
                stack.base_url,
                secret,
                batch_scenarios,
                concurrency=at_once,
                timeout=args.timeout,
                poll=args.poll,
            )
        )
        measure(batch, runs)
        return batch

    one = scenarios[0]
    rows: list[tuple[Batch, str]] = []
    stack.start_worker("pool-a", pool="threads", concurrency=args.threads)
    try:
        rows.append(
            (
                go([one] * args.burst, args.burst, "cold"),
                f"{args.burst} at once, one environment, cold",
            )
        )
        rows.append(
            (
                go([one] * args.burst, args.burst, "warm"),
                f"{args.burst} at once, one environment, warm",
            )
        )
        rows.append(
            (go([one] * 5, 1, "alone"), "one alone, warm (5 one after the other)")
        )
    finally:
        stack.stop("pool-a")
    many = [scenarios[i % len(scenarios)] for i in range(args.burst)]
    stack.start_worker("pool-b", pool="threads", concurrency=args.threads)
    try:
        rows.append(
            (
                go(many, args.burst, "many"),
                f"{args.burst} on {len({s.folder for s in many})} demo environments, cold",
            )
        )
        rest = go(scenarios, args.burst, "all")  # every environment pooled now
        pid = stack.procs["pool-b"].pid
        worker_rss, with_servers, pss = _rss_mib(pid)
    finally:
        stack.stop("pool-b")
    print()
    print(f"Issue 19 table ({os.cpu_count()} CPUs shared by everything; seconds):")
    head = f"{'case':<46} {'task_started→first tool p50 / p99':>34} {'first tool from create p99':>27} {'wall p50 / p99':>17} {'right':>6}"
    print(head)
    print("-" * len(head))
    for batch, label in rows:

        def q(values: list[float], p: float) -> str:
            return f"{pct(values, p):.2f}" if values else "n/a"

        print(
            f"{label:<46} {q(batch.from_start, 0.5) + ' / ' + q(batch.from_start, 0.99):>34} "
            f"{q(batch.first_tool, 0.99):>27} {q(batch.wall, 0.5) + ' / ' + q(batch.wall, 0.99):>17} "
            f"{f'{batch.right}/{batch.runs}':>6}"
        )
    print(
        f"worker RSS with the pool warm for {len(scenarios)} demo environments: "
        f"{worker_rss:.0f} MiB (the worker), {with_servers:.0f} MiB RSS summed with every "
        f"descendant (fork server, launchers, servers), {pss:.0f} MiB PSS summed (shared pages "
        f"counted once); "
        f"that last batch: {rest.right}/{rest.runs} right"
    )
    for batch, label in [*rows, (rest, "all")]:
        for miss in batch.misses[:3]:
            print(f"  note: {label}: {miss}")


# --- the table -----------------------------------------------------------------------------------


def report(batches: list[Batch], *, max_connections: int, cpus: int) -> None:
    def s(values: list[float], q: float) -> str:
        return f"{pct(values, q):6.1f} s" if values else "     n/a"

    def ratio(ours: list[float], base: list[float], q: float) -> str:
        if not ours or not base or pct(base, q) == 0:
            return "  n/a"
        return f"{pct(ours, q) / pct(base, q):5.2f}"

    baseline = {b.incidents: b for b in batches if b.design.is_baseline}
    print()
    print(
        f"Engine bench: one worker host, {cpus} CPUs shared by PostgreSQL (max_connections "
        f"{max_connections}), Redis, Daphne, the worker, its MCP servers and the driver"
    )

    def both(values: list[float]) -> str:
        return f"{s(values, 0.5)} / {s(values, 0.99)}"

    head = (
        f"{'design':<34} {'incidents':>10}  {'task_started p50 / p99':>19}  "
        f"{'first tool_started p50 / p99':>28}  {'wall p50 / p99':>19}  {'right':>6}  "
        f"{'DB sessions':>11}  ratio vs baseline: first tool p50, p99; wall p50, p99"
    )
    print(head)
    print("-" * len(head))
    for b in sorted(batches, key=lambda b: (b.incidents, b.design.is_baseline)):
        base = baseline.get(b.incidents)
        ratios = (
            "1 (baseline)"
            if b.design.is_baseline or base is None
            else ", ".join(
                ratio(values, base_values, q).strip()
                for values, base_values, q in (
                    (b.first_tool, base.first_tool, 0.5),
                    (b.first_tool, base.first_tool, 0.99),
                    (b.wall, base.wall, 0.5),
                    (b.wall, base.wall, 0.99),
                )
            )
        )
        if base is not None and not b.design.is_baseline and b.right < base.right:
            ratios += " (fewer right: not comparable)"
        label = "1 alone" if b.incidents == 1 else f"{b.incidents} at once"
        print(
            f"{b.design.label:<34} {label:>10}  {both(b.started):>19}  "
            f"{both(b.first_tool):>28}  {both(b.wall):>19}  "
            f"{f'{b.right}/{b.runs}':>6}  {b.peak_sessions:>11}  {ratios}"
        )
    print()
    print("Wall time per scenario (median of its runs):")
    names = sorted({n for b in batches for n in b.by_scenario})
    columns = sorted(batches, key=lambda b: (b.incidents, b.design.is_baseline))
    titles = [
        f"{'threads' if not c.design.is_baseline else 'prefork'} x{c.incidents}"
        for c in columns
    ]
    print(f"  {'scenario':<22}" + "".join(f"{t:>14}" for t in titles))
    for name in names:
        cells = []
        for c in columns:
            values = c.by_scenario.get(name)
            cells.append(
                f"{statistics.median(values):12.1f} s" if values else f"{'-':>14}"
            )
        print(f"  {name:<22}" + "".join(cells))
    notes = []
    for b in batches:
        if b.missing_first_tool:
            notes.append(
                f"{b.design.label} x{b.incidents}: {b.missing_first_tool} run(s) without a tool_started"
            )
        odd = {k: v for k, v in b.states.items() if k != "succeeded"}
        if odd:
            notes.append(f"{b.design.label} x{b.incidents}: task states {odd}")
        notes += [f"{b.design.label} x{b.incidents}: {m}" for m in b.misses[:3]]
        if b.peak_sessions >= 0.9 * max_connections:
            notes.append(
                f"{b.design.label} x{b.incidents}: {b.peak_sessions} sessions, near max_connections"
            )
    for note in notes:
        print(f"  note: {note}")


# --- main ----------------------------------------------------------------------------------------


class Deadline(Exception):
    pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--quick", action="store_true", help="two scenarios alone, 5 at once"
    )
    parser.add_argument(
        "--burst", type=int, help="incidents opened at once (default 20)"
    )
    parser.add_argument(
        "--alone", type=int, help="scenarios run one after the other (default all)"
    )
    parser.add_argument(
        "--threads", type=int, help="threads of our worker (default: --burst)"
    )
    parser.add_argument("--baseline-concurrency", type=int, default=2)
    parser.add_argument(
        "--timeout", type=float, default=900.0, help="per incident, seconds"
    )
    parser.add_argument(
        "--poll", type=float, default=0.5, help="driver's snapshot poll, seconds"
    )
    parser.add_argument(
        "--designs", default="threads,prefork", help="which to run, of threads,prefork"
    )
    parser.add_argument("--keep", action="store_true", help="keep the children's logs")
    parser.add_argument(
        "--pool-table",
        action="store_true",
        help="issue 19's table (the session pool cold and warm) instead of the designs",
    )
    parser.add_argument(
        "--deadline", type=float, default=3600.0, help="the whole run, seconds"
    )
    args = parser.parse_args()
    if args.burst is None:
        args.burst = 5 if args.quick else 20
    if args.alone is None:
        args.alone = 2 if args.quick else 99
    args.threads = args.threads or args.burst

    def expire(_signum, _frame):
        raise Deadline(f"the run's hard deadline ({args.deadline:.0f} s) passed")

    signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, args.deadline)
    work = Path(tempfile.mkdtemp(prefix="agentops-engine-bench-"))
    ok = False
    try:
        embedded.prepare_runtime_dir(work, force=True)
        with private_services(work / "services") as (database_url, redis_url):
            os.environ.update(
                {
                    "DJANGO_SETTINGS_MODULE": "agentops.settings",
                    "DATABASE_URL": database_url,
                    "REDIS_URL": redis_url,
                    "CELERY_BROKER_URL": redis_url,
                    "LOG_LEVEL": "WARNING",
                    "INCIDENT_RATE_LIMIT": "0",
                }
            )
            ok = bench(args, work)
    except Deadline as exc:
        print(f"FAILED: {exc} (logs in {work})", file=sys.stderr)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        if ok and not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"children's logs kept in {work}", file=sys.stderr)
    sys.exit(0 if ok else 1)


def bench(args: argparse.Namespace, work: Path) -> bool:
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    from agentops.stack import LocalStack
    from diagnosis import evaluation
    from diagnosis.registry import bundled_scenarios_dir

    logging.getLogger("httpx").setLevel(logging.WARNING)
    call_command("migrate", verbosity=0)
    with connection.cursor() as cursor:
        cursor.execute("SHOW max_connections")
        max_connections = int(cursor.fetchone()[0])
    scenarios = evaluation.load_scenarios(bundled_scenarios_dir())
    secret = evaluation.evaluator_token_create(tenant="bench", username="bench")
    designs = [
        Design(f"threads pool, {args.threads} threads", "threads", args.threads, False),
        Design(
            f"prefork, concurrency {args.baseline_concurrency} (baseline)",
            "prefork",
            args.baseline_concurrency,
            True,
        ),
    ]
    designs = [d for d in designs if d.pool in args.designs.split(",")]
    batches: list[Batch] = []
    with LocalStack(work / "logs") as stack:
        stack.start_web()
        print(f"Daphne at {stack.base_url}; logs in {work / 'logs'}", flush=True)
        if args.pool_table:
            pool_table(stack, scenarios, secret, args)
            connection.close()
            return True
        for design in designs:
            batches += run_design(stack, design, scenarios, secret, args)
    report(batches, max_connections=max_connections, cpus=os.cpu_count() or 0)
    connection.close()
    return all(b.runs for b in batches)


if __name__ == "__main__":
    main()
