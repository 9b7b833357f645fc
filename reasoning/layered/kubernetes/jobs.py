"""Jobs and cron jobs as workloads of their own: a run that hangs, a job that failed, a schedule held.

Rules, per cron job (or a job of no cron job), the first that holds naming the reason:
- a cron job whose runs the controller skips because one is still active (`JobAlreadyActive`, a
  concurrency policy of Forbid), or whose active job has run far longer than its completed runs
  took (`HUNG_FACTOR` times the longest, and longer than `HUNG_MIN_S`) or, with no completed run
  listed, than `HUNG_FACTOR` of its schedule's intervals, is held by a hung run (`JobAlreadyActive`
  when the skips are shown, else `JobRunningLong`);
- a job that failed as a whole (`BackoffLimitExceeded`, `DeadlineExceeded`, or the list's status
  `Failed`) fails its cron job (unless a pod stage already named the workload's fault); the last
  line its newest pod logged is cited (a pod gone from the list found by the job's `Created pod:`
  event);
  a workload the job prepares (named as the job's prefix, or running the job's image) whose pods
  log a schema object missing (`column … does not exist`, `no such table` …) runs code that needs
  what the failed job (a schema migration) did not apply: that line is cited and the workload is
  what the job explains (its victim);
- a suspended cron job whose last run is older than `HUNG_FACTOR` of its intervals runs no more
  (`Suspended`).
A job has no service a user calls: what users see is its missing output. So the fault is relevant
when its cron job lies on the incident's path, when the incident's words share a word with its
name, or (a held or suspended schedule) when the incident's service is no workload of the
namespace.
"""

import re
from dataclasses import dataclass

from reasoning import layers
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.kubectl import Event, Table, age_seconds
from reasoning.layered.kubernetes.object_settings import cite_settings
from reasoning.layered.kubernetes.path import Path
from reasoning.layered.reading import short
from reasoning.observations import Observation

HUNG_FACTOR = 3.0
HUNG_MIN_S = 600.0
FAILED_JOB = ("BackoffLimitExceeded", "DeadlineExceeded")
_CREATED = re.compile(r"Created pod:\s*(\S+)")
# A query naming a schema object the database does not have (PostgreSQL, MySQL, SQLite, Oracle).
SCHEMA_MISSING = re.compile(
    r"\b(?:column|relation|table|function|type|schema|index|constraint)\s+\S+\s+does not exist"
    r"|\bUndefined(?:Column|Table|Function|Object)\b|\bno such (?:table|column)\b"
    r"|\bUnknown column\b|\bTable '[^']+' doesn't exist|\bORA-009(?:42|04)\b",
    re.IGNORECASE,
)
_DESCRIBED_POLICY = re.compile(r"^Concurrency Policy:\s*(\S+)", re.MULTILINE)
_DESCRIBED_DEADLINE = re.compile(r"^Active Deadline Seconds:\s*(\S+)", re.MULTILINE)


def schedule_interval(schedule: str) -> float | None:
    """Seconds between two runs of a cron schedule of the common shapes (`*/15 * * * *`,
    `5 * * * *`, `0 3 * * *`, `@hourly` …); None when it is not one of them."""
    named = {"@hourly": 3600.0, "@daily": 86400.0, "@midnight": 86400.0}
    named |= {"@weekly": 7 * 86400.0}
    if schedule.strip() in named:
        return named[schedule.strip()]
    fields = schedule.split()
    if len(fields) != 5:
        return None
    minute, hour, day, month, weekday = fields
    if (day, month, weekday) != ("*", "*", "*"):
        return None
    step = re.fullmatch(r"\*/(\d+)", minute)
    if step and hour == "*":
        return 60.0 * int(step.group(1))
    if minute == "*" and hour == "*":
        return 60.0
    if re.fullmatch(r"\d+", minute):
        if hour == "*":
            return 3600.0
        hours = re.fullmatch(r"\*/(\d+)", hour)
        if hours:
            return 3600.0 * int(hours.group(1))
        if re.fullmatch(r"\d+", hour):
            return 86400.0
        if re.fullmatch(r"\d+(,\d+)+", hour):
            return 86400.0 / len(hour.split(","))
    return None


@dataclass(frozen=True)
class Run:
    """One job of a cron job, as the jobs list shows it."""

    name: str
    status: (
        str  # Running | Complete | Failed | … ("" when the list has no STATUS column)
    )
    completions: str
    duration_s: float | None

    @property
    def is_complete(self) -> bool:
        done = re.fullmatch(r"(\d+)/(\d+)", self.completions)
        return self.status == "Complete" or (
            not self.status and bool(done) and done.group(1) == done.group(2)  # type: ignore[union-attr]
        )

    @property
    def is_active(self) -> bool:
        return self.status == "Running" or (
            not self.status and not self.is_complete and self.duration_s is not None
        )


def _runs(cluster: Cluster, ns: str, owner: str) -> list[Run]:
    table = cluster.table("jobs", ns)
    return [
        Run(
            row["NAME"],
            row.get("STATUS", ""),
            row.get("COMPLETIONS", ""),
            age_seconds(row.get("DURATION", "")),
        )
        for row in (table.rows if table else ())
        if row.get("NAME") and cluster.owner(ns, "job", row["NAME"]) == owner
    ]


def _owners(cluster: Cluster, ns: str) -> list[str]:
    """The listed cron jobs, then the owners of listed jobs and of warned jobs."""
    found = [f"cronjob/{name}" for name in cluster.names("cronjobs", ns)]
    jobs = cluster.names("jobs", ns)
    jobs += [e.name for e in cluster.warnings(ns) if e.kind == "job"]
    for job in jobs:
        owner = cluster.owner(ns, "job", job)
        if owner not in found:
            found.append(owner)
    return found


def _warnings(cluster: Cluster, ns: str, owner: str) -> list[Event]:
    return [
        e
        for e in cluster.warnings(ns)
        if e.kind in ("job", "cronjob") and cluster.owner(ns, e.kind, e.name) == owner
    ]


def _hung(
    cluster: Cluster, ns: str, owner: str, runs: list[Run], row: dict[str, str] | None
) -> tuple[Run, str] | None:
    """The active run that has run far past what its runs take, and why it counts as far."""
    done = [r.duration_s for r in runs if r.is_complete and r.duration_s is not None]
    interval = schedule_interval(row.get("SCHEDULE", "")) if row else None
    for run in runs:
        if not run.is_active or run.duration_s is None:
            continue
        if done:
            usual = max(done)
            if run.duration_s > max(HUNG_FACTOR * usual, HUNG_MIN_S):
                return run, f"its completed runs took {_span(usual)} at most"
        elif interval is not None and run.duration_s > max(
            HUNG_FACTOR * interval, HUNG_MIN_S
        ):
            return run, f"it is scheduled every {_span(interval)}"
    return None


def _span(seconds: float) -> str:
    if seconds >= 3600:
        return f"{seconds / 3600:.1f} h"
    if seconds >= 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds:.0f} s"


def _finding(ns: str, owner: str, reason: str, statement: str) -> Finding:
    f = Finding("runtime", reason, owner, layers.APPLICATION, statement, ns)
    f.keywords = [reason, owner.partition("/")[2], "job"]
    return f


def _cite_table(f: Finding, table: Table | None, name: str, what: str) -> None:
    if table is not None and table.row(name) is not None:
        f.cite(table.obs, f"get {what}: {table.line(name)}")


def created_pods(cluster: Cluster, ns: str, job: str) -> list[str]:
    """The pods the job's `SuccessfulCreate` events name (`Created pod: <name>`), listed or not."""
    return [
        m.group(1)
        for e in cluster.events.get(ns, [])
        if e.kind == "job" and e.name == job and e.reason == "SuccessfulCreate"
        if (m := _CREATED.search(e.message))
    ]


def _cite_run(cluster: Cluster, ns: str, f: Finding, run: Run) -> None:
    """The run's pods: their row, and the last line their logs show (where the run stopped); a
    pod no longer listed, by the job's events, when its logs were read."""
    jobs = cluster.table("jobs", ns)
    _cite_table(f, jobs, run.name, "jobs")
    pods = cluster.table("pods", ns)
    listed = [p for p in cluster.pods(ns) if p.name.startswith(f"{run.name}-")]
    names = [p.name for p in listed[:1]] or created_pods(cluster, ns, run.name)
    for pod in listed[:1]:
        if pods is not None:
            f.cite(pods.obs, f"get pods: {pod.line}")
    for name in names[-1:]:
        for obs, text in cluster.log_text(ns, name):
            lines = [line for line in text.splitlines() if line.strip()]
            if lines:
                f.cite(obs, f"logs {name}, last line: {short(lines[-1], 200)}")


def prepared_workloads(cluster: Cluster, ns: str, job: str) -> list[str]:
    """The workloads a job prepares: named as the job's prefix (`orders-api` of
    `orders-api-migrate-7`), or running the image repository the job runs."""
    jobs = cluster.table("jobs", ns)
    row = jobs.row(job) if jobs else None
    images = {_repository(i) for i in (row or {}).get("IMAGES", "").split(",") if i}
    out = []
    for workload in cluster.workloads(ns):
        kind, _, name = workload.partition("/")
        table = cluster.table(kind + "s", ns)
        mine = table.row(name) if table else None
        theirs = {
            _repository(i) for i in (mine or {}).get("IMAGES", "").split(",") if i
        }
        if job.startswith(f"{name}-") or (images & theirs):
            out.append(workload)
    return out


def _repository(image: str) -> str:
    """An image without its tag or digest."""
    image = image.strip().partition("@")[0]
    head, _, tag = image.rpartition(":")
    return head if head and "/" not in tag else image


def schema_errors(
    cluster: Cluster, ns: str, job: str
) -> list[tuple[str, Observation, str, str]]:
    """The workloads the job prepares whose pods' logs (as read) name a schema object missing, as
    (workload, span, pod, line): the first such line of each."""
    out = []
    for workload in prepared_workloads(cluster, ns, job):
        for pod in cluster.pods_of(ns, workload):
            hit = next(
                (
                    (obs, line.strip())
                    for obs, text in cluster.log_text(ns, pod.name)
                    for line in text.splitlines()
                    if SCHEMA_MISSING.search(line)
                ),
                None,
            )
            if hit is not None:
                out.append((workload, hit[0], pod.name, hit[1]))
                break
    return out


def _held(
    cluster: Cluster, ns: str, owner: str, runs: list[Run], row: dict[str, str] | None
) -> Finding | None:
    """A hung run holding the schedule (rule 1)."""
    name = owner.partition("/")[2]
    skipped = [
        e for e in _warnings(cluster, ns, owner) if e.reason == "JobAlreadyActive"
    ]
    hung = _hung(cluster, ns, owner, runs, row)
    if not (skipped or hung):
        return None
    run = hung[0] if hung else next((r for r in runs if r.is_active), None)
    reason = "JobAlreadyActive" if skipped else "JobRunningLong"
    statement = f"{owner}'s run {run.name if run else '?'} hangs"
    if run is not None and run.duration_s is not None:
        statement += f": active for {_span(run.duration_s)}"
        statement += f" while {hung[1]}" if hung else ""
    if skipped:
        statement += (
            "; every later run is skipped while it stays active (JobAlreadyActive: "
            f"{short(skipped[0].message, 120)})"
        )
    f = _finding(ns, owner, reason, statement)
    for event in skipped:
        f.cite(event.obs, event.fact)
    _cite_table(f, cluster.table("cronjobs", ns), name, "cronjobs")
    if run is not None:
        _cite_run(cluster, ns, f, run)
    described = cluster.describe("cronjobs", ns, name)
    policy = _DESCRIBED_POLICY.search(described.text) if described else None
    if described is not None and policy is not None:
        f.cite(
            described, f"describe cronjob {name}: Concurrency Policy: {policy.group(1)}"
        )
    f.chain = [
        f"{owner}: no run completes, later runs are skipped",
        f.statement,
    ]
    return f


def _failed(cluster: Cluster, ns: str, owner: str, runs: list[Run]) -> Finding | None:
    """A job that failed as a whole (rule 2)."""
    events = [e for e in _warnings(cluster, ns, owner) if e.reason in FAILED_JOB]
    failed = [r for r in runs if r.status == "Failed"]
    if not (events or failed):
        return None
    reason = events[0].reason if events else "Failed"
    job = events[0].name if events else failed[0].name
    why = short(events[0].message, 160) if events else "status Failed"
    f = _finding(ns, owner, reason, f"{owner}'s job {job} failed ({reason}: {why})")
    for event in events[:3]:
        f.cite(event.obs, event.fact)
    cite_settings(f, cluster, ns, "jobs", job)
    for run in [r for r in runs if r.name == job] + failed[:1]:
        _cite_run(cluster, ns, f, run)
    if not runs:
        _cite_run(cluster, ns, f, Run(job, "Failed", "", None))
    f.chain = [f"{owner}: job {job} failed", f.statement]
    for workload, obs, pod, line in schema_errors(cluster, ns, job):
        f.cite(obs, f"logs {pod}: {short(line, 200)}")
        f.explains.append(workload)
        f.statement += (
            f"; {workload} runs code that needs the schema the job did not apply: "
            f"{short(line, 140)}"
        )
        f.chain.insert(
            0, f"{workload} fails on a schema object missing: {short(line, 100)}"
        )
        f.keywords.append("migration")
    return f


def _suspended(
    cluster: Cluster, ns: str, owner: str, row: dict[str, str] | None
) -> Finding | None:
    """A suspended cron job that has not run for several intervals (rule 3)."""
    if row is None or row.get("SUSPEND", "").lower() != "true":
        return None
    interval = schedule_interval(row.get("SCHEDULE", ""))
    last = age_seconds(row.get("LAST SCHEDULE", ""))
    if interval is None or (last is not None and last <= HUNG_FACTOR * interval):
        return None
    name = owner.partition("/")[2]
    since = f"its last run {_span(last)} ago" if last is not None else "it never ran"
    f = _finding(
        ns,
        owner,
        "Suspended",
        f"{owner} is suspended: scheduled every {_span(interval)}, {since}",
    )
    _cite_table(f, cluster.table("cronjobs", ns), name, "cronjobs")
    cite_settings(f, cluster, ns, "cronjobs", name)
    f.chain = [f"{owner}: no run since it was suspended", f.statement]
    return f


def _shares_words(name: str, words: set[str]) -> bool:
    """The incident's words share one with the name (plural s aside; words of 4 letters or more)."""

    def stems(text: str) -> set[str]:
        return {
            w[:-1] if len(w) > 4 and w.endswith("s") and not w.endswith("ss") else w
            for w in re.findall(r"[a-z0-9]+", text.lower())
            if len(w) >= 4
        }

    return bool(stems(name) & {s for w in words for s in stems(w)})


def job_faults(
    cluster: Cluster, ns: str, path: Path, words: set[str] | None = None
) -> list[Finding]:
    """A cron job whose active run hangs far past its usual duration (later runs skipped), whose job failed as a whole, or that is suspended past its schedule, fails at runtime: users see its missing output, or (a failed schema migration) the errors of the workload it prepares."""
    if not (cluster.has_list("cronjobs", ns) or cluster.has_list("jobs", ns)):
        return []
    cronjobs = cluster.table("cronjobs", ns)
    out: list[Finding] = []
    for owner in _owners(cluster, ns):
        row = cronjobs.row(owner.partition("/")[2]) if cronjobs else None
        runs = _runs(cluster, ns, owner)
        f = (
            _held(cluster, ns, owner, runs, row)
            or _failed(cluster, ns, owner, runs)
            or _suspended(cluster, ns, owner, row)
        )
        if f is None:
            continue
        f.is_relevant = (
            owner in path.workloads
            or _shares_words(owner.partition("/")[2], words or set())
            or (not path.resolved and f.reason not in (*FAILED_JOB, "Failed"))
        )
        f.depth = path.depth.get(owner, 0)
        out.append(f)
    return out
