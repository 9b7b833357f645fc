"""Runtime: the containers start, then fail — they crash, run out of memory, or fail their probes.

Rules, the first that holds naming the reason (over the pods that restart or run unready):
- a pod OOMKilled, a container whose last state was Terminated: OOMKilled, or an `OOMKilling`
  warning means the containers exceed their memory limit;
- a failed probe (`Unhealthy`) that is a liveness probe, or any probe while the pods do not crash
  loop, means the probe fails (the kubelet kills or withholds traffic from the container);
- a pod in CrashLoopBackOff means the containers crash and restart;
- a job that reached its backoff limit (`BackoffLimitExceeded`) failed as a whole;
- a pod in another non-running status shows the reason itself;
- a pod running again after restarts shows what ended its last run (describe's Terminated reason);
- else a pod running but not ready is NotReady.
A probe that failed while a pod started and passes now is no fault: only pods not ready or
restarting make the probes' failures count. The last failing line of the pods' logs joins the
evidence; when it shows a back end refusing credentials, the statement says so.
"""

import re

from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.kubectl import Event, Pod, read_containers
from reasoning.layered.kubernetes.logs import AUTH_FAIL, FAILING
from reasoning.layered.kubernetes.view import WorkloadView
from reasoning.layered.reading import short

STATUSES = frozenset({"CrashLoopBackOff", "OOMKilled", "Error"})
_PROBE = re.compile(r"(Liveness|Readiness|Startup) probe failed", re.IGNORECASE)


def runtime_reason(
    view: WorkloadView,
    selected: list[Pod],
    probes: list[Event],
    terminated: list[str],
    *,
    crashing: bool,
) -> str:
    """The reason, by the rules above, for the selected pods."""
    oom = (
        any(p.status == "OOMKilled" for p in selected)
        or "OOMKilled" in terminated
        or bool(view.by_reason.get("OOMKilling"))
    )
    crash_looping = any(p.status == "CrashLoopBackOff" for p in selected)
    liveness = any("Liveness" in e.message for e in probes)
    if oom:
        return "OOMKilled"
    if probes and (liveness or not crash_looping):
        return "Unhealthy"
    if crash_looping:
        return "CrashLoopBackOff"
    if view.by_reason.get("BackoffLimitExceeded"):
        return "BackoffLimitExceeded"
    if selected[0].status not in ("Running", ""):
        return selected[0].status
    if crashing:
        # Running again after restarts: what ended the last run, as Kubernetes says it.
        return next(
            (t for t in terminated if t not in ("Completed",)),
            "BackOff" if view.by_reason.get("BackOff") else "Error",
        )
    return "NotReady"


def _statement(workload: str, reason: str, probes: list[Event]) -> str:
    return {
        "OOMKilled": f"{workload}'s containers are killed for exceeding their memory limit (OOMKilled)",
        "Unhealthy": f"{workload}'s probes fail: {short(probes[0].message, 200) if probes else 'not ready'}",
        "CrashLoopBackOff": f"{workload}'s containers crash and restart (CrashLoopBackOff)",
        "BackoffLimitExceeded": f"{workload}'s job fails: its pods failed until it reached its backoff limit (BackoffLimitExceeded)",
    }.get(reason, f"{workload}'s pods are {reason}")


def _cite_logs(view: WorkloadView, f: Finding, selected: list[Pod]) -> None:
    """The last failing line of the logs of the first two pods whose logs were read; credentials
    refused, said."""
    read = [
        logs
        for pod in selected
        if (logs := view.cluster.log_text(view.namespace, pod.name))
    ]
    for pod_logs in read[:2]:
        for obs, text in pod_logs:
            tail = [line for line in text.splitlines() if FAILING.search(line)]
            if not tail:
                continue
            f.cite(obs, f"logs {obs.arguments.get('pod')}: {tail[-1]}")
            f.keywords.append(short(tail[-1], 60))
            if AUTH_FAIL.search(tail[-1]):
                f.statement += (
                    f": a back end refuses its credentials ({short(tail[-1], 120)})"
                )


def runtime(view: WorkloadView) -> Finding | None:
    """Pods that restart or run unready fail at runtime, for the first reason that holds: OOM, failing probes, a crash loop, else what ended the run."""
    crashing = [p for p in view.pods if p.status in STATUSES or p.restarts > 0]
    unready = [p for p in view.pods if p.status == "Running" and not p.is_ready]
    if not (crashing or unready):
        return None  # (a failed probe counts only with a pod restarting or unready)
    probes = [e for e in view.events("Unhealthy") if _PROBE.search(e.message)]
    selected = crashing or unready
    describes = [
        described
        for pod in selected
        if (described := view.cluster.describe("pods", view.namespace, pod.name))
        is not None
    ]
    terminated = [t for d in describes for t in read_containers(d.text).terminated]
    reason = runtime_reason(view, selected, probes, terminated, crashing=bool(crashing))
    f = view.finding("runtime", reason, _statement(view.workload, reason, probes))
    view.cite_pods(f, selected)
    for described in describes:
        if reason == "OOMKilled" and "OOMKilled" in described.text:
            f.cite(described, "describe: Last State Terminated, Reason: OOMKilled")
    view.cite_events(
        f, ["BackOff", "Unhealthy", "OOMKilling", "Killing", "BackoffLimitExceeded"]
    )
    _cite_logs(view, f, selected)
    f.chain = [
        f"{view.workload}: {len(selected)} of {len(view.pods)} pods failing",
        f.statement,
    ]
    return f
