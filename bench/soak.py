"""The soak of bench/load.py (`--soak`, issue 23): faults, alert repeats and approvals while
incidents are diagnosed and watched, and the figures they leave.

What runs next to load.py's incidents and SSE watchers (`drive` starts them):

- `faults`: the stack's own PostgreSQL restarted with `pg_ctl restart -m fast` every
  --pg-restart-every s; its own Redis stopped for --redis-down-for s once (and started again on
  the same port); the Celery worker's process group SIGKILLed once while a diagnosis runs and
  started again at once, so the reaper must re-queue the killed task once its lease
  (DIAGNOSIS_LEASE_SECONDS) runs out.
- `AlertSenders`: --alert-groups open Alertmanager groups (webhook version 4, bearer token with
  alerts:write), each re-sent every --alert-interval s by two senders (Alertmanager HA peers,
  one per Daphne) with the group's alerts so far; a new alert joins a group now and then. A
  group is resolved once its diagnosis is over and it has been open --group-hold s, and a new
  group (a new incident) takes its place while the alert share of the incidents lasts.
- `approver`: approves every pending approval of the run through the API (the pool-exhaustion
  demo incidents ask for a restart), so the actions server's ledger can be checked: one write
  per approved action, none repeated.

`soak_report` prints the soak's figures and says which targets were missed.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import itertools
import json
import math
import random
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable

    from bench.stack import Stack

# The actions server is a stdio child that gets PATH, HOME and LANG only (registry.CHILD_ENV),
# so its default ledger is under /tmp whatever TMPDIR says here. Records are keyed
# `<incident id>:<tool>:<target>:<generation>`: this run's are found by its incident ids.
ACTIONS_LEDGER = Path("/tmp") / "agentops-actions" / "ledger.jsonl"
DEMO_SCENARIO = "pool-exhaustion"  # its diagnosis asks to restart the leaking workload
FAULT_GRACE = 5.0  # seconds after a fault that its effects are still blamed on it
MAX_GROUP_ALERTS = 40  # alerts the harness lets one group grow to


def soak_defaults(args: Any) -> None:
    """The --soak preset: the issue's figures for 10 minutes, scaled for a shorter --duration."""
    if args.duration is None:
        args.duration = 600.0
    if args.incidents is None:
        args.incidents = max(10, round(args.duration / 6))  # 100 in 10 minutes
    if args.clients is None:
        args.clients = 200
    if args.pg_restart_every is None:
        args.pg_restart_every = min(120.0, args.duration / 5)  # every 2 minutes in 10
    if args.redis_down_at is None:
        args.redis_down_at = args.duration * 0.35
    if args.worker_kill_at is None:
        args.worker_kill_at = args.duration * 0.55
    if args.group_hold is None:
        alert_incidents = max(1, round(args.incidents * args.alert_share))
        # 0.8: a group is resolved only once its diagnosis is over, which takes a while.
        args.group_hold = max(
            10.0, 0.8 * args.duration * args.alert_groups / alert_incidents
        )
    args.soak_env = {
        # The soak's tenant sends ~2 x groups / interval payloads a second (4000 a minute
        # with 10 groups every 0.3 s); its operators raise the limit for that.
        "ALERT_RATE_LIMIT": "1000000",
        "DIAGNOSIS_DEADLINE_SECONDS": str(int(args.task_deadline)),
    }


# --- the database, across restarts ----------------------------------------------------------------


class Db:
    """ORM calls on one thread, retried while the soak's PostgreSQL restarts."""

    def __init__(self) -> None:
        self.pool = ThreadPoolExecutor(1, thread_name_prefix="soak-db")

    async def __call__(self, fn: Callable[..., Any], *args: Any) -> Any:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.pool, self._retrying, fn, args)

    @staticmethod
    def _retrying(fn: Callable[..., Any], args: tuple[Any, ...]) -> Any:
        from django.db import InterfaceError, OperationalError, connection

        for _ in range(120):
            try:
                return fn(*args)
            except (OperationalError, InterfaceError):
                with contextlib.suppress(Exception):
                    connection.close()
                time.sleep(0.5)
        return fn(*args)

    def close(self) -> None:
        self.pool.shutdown(wait=True)


# --- faults ----------------------------------------------------------------------------------------


@dataclass
class Fault:
    kind: str  # pg_restart | redis_down | worker_kill
    start: float  # time.time()
    end: float
    detail: str = ""

    def touches(self, began: float, ended: float) -> bool:
        return self.start <= ended and began <= self.end + FAULT_GRACE


@dataclass
class Faults:
    done: list[Fault] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    killed_tasks: list[str] = field(
        default_factory=list
    )  # running when the worker died


async def faults(args: Any, stack: Stack, db: Db, log: Faults, began: float) -> None:
    """Every fault at its time (seconds from `began`, loop time); each in a task of its own."""
    loop = asyncio.get_running_loop()

    async def at(offset: float) -> None:
        await asyncio.sleep(max(0.0, began + offset - loop.time()))

    async def pg_restart(offset: float) -> None:
        await at(offset)
        start = time.time()
        try:
            downtime = await loop.run_in_executor(None, stack.pg.restart)
        except Exception as exc:
            log.errors.append(f"pg restart at {offset:.0f} s: {exc!r}"[:300])
            return
        log.done.append(Fault("pg_restart", start, time.time(), f"{downtime:.2f} s unavailable"))  # fmt: skip

    async def redis_down(offset: float) -> None:
        await at(offset)
        start = time.time()
        await loop.run_in_executor(None, stack.redis_proc.stop)
        await asyncio.sleep(args.redis_down_for)
        try:
            await loop.run_in_executor(None, stack.redis_proc.start)
        except Exception as exc:
            log.errors.append(f"redis start again: {exc!r}"[:300])
        log.done.append(Fault("redis_down", start, time.time(), f"{time.time() - start:.1f} s down"))  # fmt: skip

    async def worker_kill(offset: float) -> None:
        await at(offset)
        from diagnosis.models import DiagnosisTask

        def running() -> list[str]:
            return [
                str(pk)
                for pk in DiagnosisTask.objects.filter(state="running").values_list(
                    "pk", flat=True
                )
            ]

        # Kill while something runs (a kill that orphans nothing tests nothing), within 60 s.
        tasks: list[str] = []
        for _ in range(120):
            tasks = await db(running)
            if tasks:
                break
            await asyncio.sleep(0.5)
        start = time.time()
        group = await loop.run_in_executor(None, stack.kill_worker)
        log.killed_tasks = tasks
        stack.start_worker()  # the harness brings the worker back, as systemd would
        log.done.append(Fault("worker_kill", start, time.time(), f"SIGKILL to group {group} with {len(tasks)} running"))  # fmt: skip

    plan: list[Any] = []
    offset = args.pg_restart_every
    while args.pg_restart_every > 0 and offset < args.duration:
        plan.append(pg_restart(offset))
        offset += args.pg_restart_every
    if args.redis_down_for > 0:
        plan.append(redis_down(args.redis_down_at))
    if args.worker_kill_at >= 0:
        plan.append(worker_kill(args.worker_kill_at))
    results = await asyncio.gather(*plan, return_exceptions=True)
    log.errors += [repr(r)[:300] for r in results if isinstance(r, BaseException)]


# --- alerts from two senders -------------------------------------------------------------------------


@dataclass
class Group:
    number: int
    key: str
    opened: float  # loop time
    alerts: list[dict[str, Any]] = field(default_factory=list)
    task: str | None = None
    creations: int = 0  # 201s for this group (more than one: an incident opened twice)
    resolved: bool = False


@dataclass
class AlertFigures:
    sent: int = 0
    statuses: collections.Counter[int] = field(default_factory=collections.Counter)
    results: collections.Counter[str] = field(default_factory=collections.Counter)
    groups_opened: int = 0
    groups_resolved: int = 0
    opened_twice: int = 0
    failures: list[str] = field(default_factory=list)
    rounds: int = 0
    first: float = 0.0
    last: float = 0.0


class AlertSenders:
    """Alertmanager HA peers: every open group's notification, from each peer, every interval."""

    def __init__(self, args: Any, clients: list[Any], announce: Callable[[str], None], finished: set[str]) -> None:  # fmt: skip
        self.args = args
        self.http = clients  # one httpx.AsyncClient per sender (Daphne)
        self.announce = announce
        self.finished = finished  # terminal task ids, kept fresh by the drive
        self.figures = AlertFigures()
        self.rng = random.Random(args.seed * 7919)
        self.numbers = itertools.count(1)
        self.budget = max(1, round(args.incidents * args.alert_share))

    def _alert(self, group: Group, instance: int, status: str = "firing") -> dict[str, Any]:  # fmt: skip
        labels = {
            "alertname": f"SoakHighErrorRate{group.number}",
            "service": f"soak-{group.number % 5}",
            "severity": "warning",
            "instance": f"pod-{instance}:8080",
        }
        now = datetime.now(UTC).isoformat()
        return {
            "status": status,
            "labels": labels,
            "annotations": {"summary": f"5xx on {labels['instance']}"},
            "startsAt": now,
            "endsAt": now if status == "resolved" else "0001-01-01T00:00:00Z",
            "generatorURL": "http://prometheus:9090/graph",
            "fingerprint": f"{group.number:04d}{instance:012d}",
        }

    def _body(self, group: Group, status: str) -> dict[str, Any]:
        alerts = group.alerts
        if status == "resolved":
            alerts = [{**a, "status": "resolved"} for a in alerts]
        first = group.alerts[0]["labels"]
        return {
            "version": "4",
            "groupKey": group.key,
            "truncatedAlerts": 0,
            "status": status,
            "receiver": "agentops",
            "groupLabels": {"alertname": first["alertname"]},
            "commonLabels": {k: first[k] for k in ("alertname", "service", "severity")},
            "commonAnnotations": {},
            "externalURL": "http://alertmanager:9093",
            "alerts": alerts,
        }

    async def _post(self, sender: int, group: Group, body: dict[str, Any]) -> None:
        figures = self.figures
        figures.sent += 1
        try:
            response = await self.http[sender].post(
                "/api/alerts/alertmanager", json=body
            )
        except Exception as exc:
            figures.statuses[0] += 1
            figures.failures.append(f"alert post: {type(exc).__name__} {exc}"[:200])
            return
        figures.statuses[response.status_code] += 1
        if response.status_code >= 300:
            if response.status_code != 429 and len(figures.failures) < 50:
                figures.failures.append(f"alert post: {response.status_code} {response.text[:200]}")  # fmt: skip
            return
        data = response.json()
        figures.results[data.get("result", "?")] += 1
        if data.get("result") == "created":
            group.creations += 1
            if group.creations > 1:
                figures.opened_twice += 1
            if data.get("task_id") and group.task is None:
                group.task = data["task_id"]
                self.announce(group.task)

    async def _send(self, group: Group, status: str) -> None:
        body = self._body(group, status)
        await asyncio.gather(
            *(self._post(i, group, body) for i in range(len(self.http)))
        )

    def _open(self, loop: asyncio.AbstractEventLoop) -> Group:
        number = next(self.numbers)
        group = Group(number, f'{{}}:{{alertname="SoakHighErrorRate{number}"}}/{uuid.uuid4().hex[:8]}', loop.time())  # fmt: skip
        group.alerts.append(self._alert(group, 1))
        self.figures.groups_opened += 1
        return group

    async def run(self, began: float) -> None:
        """Until the alert budget is spent and every group is resolved."""
        args, figures = self.args, self.figures
        loop = asyncio.get_running_loop()
        stagger = args.group_hold / max(1, args.alert_groups)
        slots: list[Group | None] = [None] * args.alert_groups
        opened = 0
        figures.first = time.time()
        while True:
            now = loop.time()
            creating = now < began + args.duration
            for i, group in enumerate(slots):
                if (
                    group is not None
                    and group.task in self.finished
                    and (now >= group.opened + args.group_hold or not creating)
                ):
                    await self._send(group, "resolved")
                    group.resolved = True
                    figures.groups_resolved += 1
                    slots[i] = group = None
                if group is None and opened < self.budget and creating and now >= began + i * stagger:  # fmt: skip
                    slots[i] = self._open(loop)
                    opened += 1
            live = [g for g in slots if g is not None]
            if not live and (opened >= self.budget or not creating):
                break
            for group in live:
                if len(group.alerts) < MAX_GROUP_ALERTS and group.task and self.rng.random() < args.alert_join:  # fmt: skip
                    group.alerts.append(self._alert(group, len(group.alerts) + 1))
            tick = loop.time()
            await asyncio.gather(*(self._send(g, "firing") for g in live))
            figures.rounds += 1
            if not creating and loop.time() > began + args.duration + args.drain:
                figures.failures.append(f"{len(live)} group(s) still open at the drain's end (their diagnosis not over)")  # fmt: skip
                break
            await asyncio.sleep(max(0.0, tick + args.alert_interval - loop.time()))
        figures.last = time.time()


# --- the approver ----------------------------------------------------------------------------------


@dataclass
class Approvals:
    seen: set[str] = field(default_factory=set)
    approved: set[str] = field(default_factory=set)
    statuses: collections.Counter[int] = field(default_factory=collections.Counter)
    failures: list[str] = field(default_factory=list)


async def approver(http: Any, db: Db, stop: asyncio.Event, figures: Approvals) -> None:
    """Approve each pending approval of the run once (a retry reuses its Idempotency-Key)."""
    from diagnosis.models import Approval

    def pending() -> list[str]:
        return [
            str(pk)
            for pk in Approval.objects.filter(status="pending").values_list(
                "pk", flat=True
            )
        ]

    keys: dict[str, str] = {}
    while not stop.is_set():
        for approval in await db(pending):
            if approval in figures.approved:
                continue
            figures.seen.add(approval)
            key = keys.setdefault(approval, f"soak-approve-{approval}")
            try:
                response = await http.post(
                    f"/api/approvals/{approval}/decision",
                    json={
                        "decision": "approve",
                        "reason": "soak: approved by the harness",
                    },
                    headers={"Idempotency-Key": key},
                )
            except Exception as exc:
                figures.statuses[0] += 1
                figures.failures.append(
                    f"approve {approval}: {type(exc).__name__}"[:200]
                )
                continue
            figures.statuses[response.status_code] += 1
            if response.status_code == 200:
                figures.approved.add(approval)
            elif len(figures.failures) < 50:
                figures.failures.append(f"approve {approval}: {response.status_code} {response.text[:200]}")  # fmt: skip
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 1.0)


# --- the figures -----------------------------------------------------------------------------------


def _ledger(incidents: set[str]) -> list[dict[str, Any]]:
    try:
        text = ACTIONS_LEDGER.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    out = []
    for line in text.splitlines():
        with contextlib.suppress(ValueError):
            record = json.loads(line)
            key = str(record.get("idempotency_key", ""))
            if key.split(":", 1)[0] in incidents:
                out.append(record)
    return out


def soak_report(args: Any, stack: Stack, run: dict[str, Any], load: dict[str, Any]) -> bool:  # fmt: skip
    """Print the soak's figures; True when every target is met."""
    from diagnosis.models import Approval, DiagnosisTask, TaskEvent

    # Every task in the soak's own database is the soak's: one whose POST answered too late for
    # its sender (a ReadTimeout, then a repeat that finds the group open) still counts, and is
    # still checked (states, events, re-queues after the kill).
    announced = set(run["created"].tasks)
    ids: list[str] = sorted(
        announced
        | {str(pk) for pk in DiagnosisTask.objects.values_list("pk", flat=True)}
    )
    log: Faults = run["faults"]
    alerts: AlertFigures = run["alerts"]
    approvals: Approvals = run["approvals"]
    tasks = list(
        DiagnosisTask.objects.filter(pk__in=ids).values(
            "id", "incident_id", "state", "created_at", "started_at", "finished_at",
            "deadline_at", "error_layer", "error_code", "error_message", "attempt", "environment",
        )
    )  # fmt: skip
    by_state = collections.Counter(t["state"] for t in tasks)
    rows: list[tuple[str, str]] = []
    missed: list[str] = []

    # Diagnoses: every one succeeded; a failed one names its error and the fault it met.
    failed_notes = []
    for t in tasks:
        if t["state"] in ("succeeded", "queued", "running", "waiting_approval", "cancelling"):  # fmt: skip
            continue
        # From its creation: the deadline runs from then, and a fault may delay a queued task.
        began = t["created_at"].timestamp()
        ended = (t["finished_at"] or datetime.now(UTC)).timestamp()
        met = [f"{f.kind}@{f.start - run['t0']:.0f}s" for f in log.done if f.touches(began, ended)]  # fmt: skip
        failed_notes.append(
            f"{t['id']} {t['state']}: {t['error_layer']}/{t['error_code']}: {t['error_message'][:160]!r}; "
            f"environment {t['environment']}, attempt {t['attempt']}; faults during its life: {', '.join(met) or 'none'}"
        )
    failed = sum(n for s, n in by_state.items() if s in ("failed", "timed_out", "cancelled"))  # fmt: skip
    by_fault = sum(1 for note in failed_notes if not note.endswith("none"))
    if failed:
        missed.append(
            f"{failed} diagnosis(es) did not succeed ({by_fault} during a fault)"
        )

    # Deadlines: terminal, and by deadline_at.
    now = datetime.now(UTC)
    late = [t for t in tasks if t["finished_at"] is None or (t["deadline_at"] and t["finished_at"] > t["deadline_at"])]  # fmt: skip
    overdue = sum(1 for t in late if t["deadline_at"] and (t["finished_at"] or now) > t["deadline_at"])  # fmt: skip
    if late:
        missed.append(f"{len(late)} task(s) not terminal within their deadline ({overdue} past it, the rest unfinished at the end)")  # fmt: skip

    # Events: the table's seqs gap-free with one terminal event; the watchers' checks (load.py).
    seqs: dict[str, list[int]] = collections.defaultdict(list)
    terminals: collections.Counter[str] = collections.Counter()
    for task_id, seq, kind in TaskEvent.objects.filter(task_id__in=ids).values_list("task_id", "seq", "type"):  # fmt: skip
        seqs[str(task_id)].append(seq)
        terminals[str(task_id)] += kind in ("task_completed", "task_failed", "task_cancelled", "task_timed_out")  # fmt: skip
    table_gaps = sum(max(seq) - len(set(seq)) for seq in seqs.values() if seq)
    table_dups = sum(len(seq) - len(set(seq)) for seq in seqs.values())
    extra_terminal = sum(n - 1 for n in terminals.values() if n > 1)
    lost = load["lost"] + table_gaps
    duplicated = load["duplicated"] + table_dups + extra_terminal
    if lost or duplicated or load["mismatched"]:
        missed.append(f"events: {lost} lost, {duplicated} duplicated, {load['mismatched']} watches unlike the table")  # fmt: skip

    # Actions: ledger writes per approved action.
    incidents = {str(t["incident_id"]) for t in tasks}
    ledger = _ledger(incidents)
    per_action: collections.Counter[tuple[str, str, str]] = collections.Counter()
    for record in ledger:  # <incident id>:<tool>:<target>:<generation>
        incident, tool, rest = [*str(record["idempotency_key"]).split(":", 2), "", ""][:3]  # fmt: skip
        per_action[(incident, tool, rest.rsplit(":", 1)[0])] += 1
    approved = Approval.objects.filter(task_id__in=ids, status="approved")
    approved_keys = {
        (str(incident), tool, str((action or {}).get("target") or ""))
        for incident, tool, action in approved.values_list(
            "task__incident_id", "tool_name", "action"
        )
    }
    repeated = sum(n - 1 for n in per_action.values() if n > 1)
    unapproved = sum(1 for k in per_action if k not in approved_keys)
    not_done = [k for k in approved_keys if k not in per_action]
    state_of = {str(t["incident_id"]): t["state"] for t in tasks}
    not_done_notes = [f"approved, not in the ledger: {tool} {target} of incident {incident} (its task {state_of.get(incident)})" for incident, tool, target in not_done]  # fmt: skip
    if repeated or unapproved:
        missed.append(f"actions: {repeated} repeated, {unapproved} without an approval")
    if not approved_keys:
        missed.append("actions not measured: no approval was approved")

    # The rest of the figures.
    opened = len(ids)
    if opened < args.incidents:
        missed.append(f"{opened} of {args.incidents} incidents opened")
    pg = [f for f in log.done if f.kind == "pg_restart"]
    redis = [f for f in log.done if f.kind == "redis_down"]
    kills = [f for f in log.done if f.kind == "worker_kill"]
    # A re-queue says why: lease_expired (a run that died: the kill, or one the reaper found),
    # database_unavailable (an outage outlasted the attempt's retries: the runner gave the task
    # back) or approval_decided (a parked diagnosis resumed: no fault at all).
    requeued = list(
        TaskEvent.objects.filter(task_id__in=ids, type="task_requeued").values_list(
            "task_id", "occurred_at", "data"
        )
    )
    requeues = [
        (t, at) for t, at, data in requeued
        if str(t) in log.killed_tasks and data.get("reason") == "lease_expired"
    ]  # fmt: skip
    requeue_reasons = collections.Counter(str(data.get("reason", "?")) for _, _, data in requeued)  # fmt: skip
    other_requeues = sum(
        1 for t, _, data in requeued
        if data.get("reason") == "database_unavailable"
        or (str(t) not in log.killed_tasks and data.get("reason") == "lease_expired")
    )  # fmt: skip
    kill_at = kills[0].start if kills else 0.0
    after: dict[str, float] = {}  # each killed task's first re-queue after the kill
    for t, at in requeues:
        if at.timestamp() >= kill_at:
            after[str(t)] = min(after.get(str(t), math.inf), at.timestamp() - kill_at)
    killed_states = collections.Counter(t["state"] for t in tasks if str(t["id"]) in log.killed_tasks)  # fmt: skip
    if kills and log.killed_tasks and len(after) < len(log.killed_tasks):
        missed.append(f"worker kill: {len(log.killed_tasks) - len(after)} of {len(log.killed_tasks)} running task(s) never re-queued")  # fmt: skip
    if not kills:
        missed.append("the worker kill did not happen")
    expected_pg = (
        math.ceil(args.duration / args.pg_restart_every) - 1
        if args.pg_restart_every > 0
        else 0
    )
    if len(pg) < expected_pg or (args.redis_down_for > 0 and not redis) or log.errors:
        missed.append(f"faults: {len(pg)} of {expected_pg} PG restarts, {len(redis)} Redis outage(s); {len(log.errors)} fault error(s)")  # fmt: skip
    fivexx = {route: {s: n for s, n in c.items() if s >= 500} for route, c in run["routes"].items()}  # fmt: skip
    fivexx["POST /api/alerts/alertmanager"] = {s: n for s, n in alerts.statuses.items() if s >= 500}  # fmt: skip
    fivexx["POST /api/approvals/{id}/decision"] = {s: n for s, n in approvals.statuses.items() if s >= 500}  # fmt: skip
    fivexx["GET /api/tasks/{id}/events"] = {int(k[7:]): v for k, v in load["closes"].items() if k.startswith("status_5")}  # fmt: skip
    try:  # PostgreSQL's own count: each is a transaction it rolled back to break a cycle
        deadlocks = stack.pg.log.read_text(errors="replace").count("deadlock detected")
    except OSError:
        deadlocks = -1
    span = max(1e-9, alerts.last - alerts.first)
    # The load the soak was to apply: a round (every open group, from both senders) every
    # --alert-interval s while groups are open.
    mean_round = span / max(1, alerts.rounds)
    if mean_round > 2 * args.alert_interval:
        missed.append(f"alert repeats not at the planned rate: a round every {mean_round:.2f} s on average, not {args.alert_interval:g} s")  # fmt: skip
    if deadlocks:
        missed.append(f"{deadlocks} deadlock(s) in PostgreSQL")
    errors_5xx = sum(n for c in fivexx.values() for st, n in c.items() if st != 503)
    if errors_5xx:
        missed.append(f"{errors_5xx} server error(s) other than 503 (by route above)")
    accepted = sum(n for s, n in alerts.statuses.items() if 200 <= s < 300)
    refused = sum(n for s, n in alerts.statuses.items() if s == 0 or s >= 300)

    def secs(faults: list[Fault]) -> str:
        return ", ".join(f"{f.start - run['t0']:.0f}s ({f.detail})" for f in faults) or "none"  # fmt: skip

    rows += [
        ("incidents opened", f"{opened} of {args.incidents} ({len(run['alert_tasks'])} by alert groups, {opened - len(run['alert_tasks'])} by the API, {run['demo_incidents']} of them {DEMO_SCENARIO} demos; {len(ids) - len(announced)} whose answer came too late for its sender)"),
        ("diagnoses by final state", " ".join(f"{s}:{n}" for s, n in sorted(by_state.items())) or "none"),
        ("diagnoses failed", f"{failed} ({by_fault} with a fault during their life)"),
        ("events lost / duplicated", f"{lost} / {duplicated} (watchers {load['lost']} / {load['duplicated']}; table gaps {table_gaps}, extra terminal events {extra_terminal}; watches unlike the table {load['mismatched']})"),
        ("actions", f"{len(approved_keys)} approved, {len(ledger)} ledger writes, {repeated} repeated, {unapproved} without approval, {len(not_done)} approved but not done ({len(approvals.approved)} approved by the harness of {len(approvals.seen)} seen)"),
        ("tasks not terminal in deadline", f"{len(late)} ({overdue} past deadline_at; deadline {args.task_deadline:g} s)"),
        ("5xx by route", "; ".join(f"{r} {' '.join(f'{s}:{n}' for s, n in sorted(c.items()))}" for r, c in fivexx.items() if c) or "none"),
        ("PG deadlocks detected", f"{deadlocks} (ERROR lines in the soak PostgreSQL's log)"),
        ("PG restarts", f"{len(pg)} of {expected_pg}: {secs(pg)}"),
        ("Redis outage", secs(redis)),
        ("worker kill", f"{secs(kills)}; running then: {len(log.killed_tasks)}, re-queued after {', '.join(f'{v:.1f} s' for v in sorted(after.values())) or 'never'}; their states now {dict(killed_states)}"),
        ("re-queues", f"{dict(requeue_reasons)}; {other_requeues} not from the kill nor an approval (a run a fault ended: the worker logs say why)"),
        ("alert repeats", f"{alerts.sent} sent ({alerts.sent / span:.1f}/s, {alerts.rounds} rounds, one every {mean_round:.2f} s), {accepted} accepted, {refused} refused or failed; statuses {' '.join(f'{s}:{n}' for s, n in sorted(alerts.statuses.items()))}; results {' '.join(f'{s}:{n}' for s, n in sorted(alerts.results.items()))}"),
        ("alert groups", f"{alerts.groups_opened} opened, {alerts.groups_resolved} resolved, {alerts.opened_twice} opened twice; hold {args.group_hold:.0f} s"),
    ]  # fmt: skip
    if load["crashed"] or load["stalled"]:
        missed.append(f"watchers: {load['crashed']} client(s) crashed, {load['stalled']} stream(s) stalled")  # fmt: skip
    if alerts.opened_twice:
        missed.append(f"{alerts.opened_twice} alert group(s) opened a second incident")
    print(f"\nSoak: {args.duration:g} s, PG restart every {args.pg_restart_every:g} s, Redis down {args.redis_down_for:g} s at {args.redis_down_at:.0f} s, worker SIGKILL at {args.worker_kill_at:.0f} s, {args.alert_groups} alert groups every {args.alert_interval:g} s from 2 senders")  # fmt: skip
    width = max(len(name) for name, _ in rows) + 2
    for name, value in rows:
        print(f"  {name:<{width}} {value}")
    notes = (
        failed_notes
        + not_done_notes
        + log.errors
        + alerts.failures[:10]
        + approvals.failures[:10]
    )
    notes += [f"late: {t['id']} {t['state']} deadline {t['deadline_at']} finished {t['finished_at']}" for t in late[:10]]  # fmt: skip
    if notes:
        print(f"\nSoak notes ({len(notes)}; first 30):")
        for line in notes[:30]:
            print(f"  {line[:400]}")
    print("\nSoak targets missed:" if missed else "\nSoak targets: all met")
    for line in missed:
        print(f"  - {line}")
    return not missed
