"""Runtime: the containers start, then fail — they crash, run out of memory, or fail their probes.

Rules, the first that holds naming the reason (over the pods that restart or run unready):
- a pod OOMKilled, a container whose last state was Terminated: OOMKilled, or an `OOMKilling`
  warning means the containers exceed their memory limit;
- a pod the kubelet evicted (an `Evicted` warning about it, its describe's `Status: Failed,
  Reason: Evicted`, or the list's status `Evicted`) is `Evicted`; the eviction's message says why
  (a container's ephemeral storage or memory over its limit, the node low on a resource) and is
  cited. A pod listed `Evicted` counts only while an `Evicted` warning about the workload is
  still kept (events live about an hour; evicted pods stay listed long after);
- a failed probe (`Unhealthy`) that is a liveness probe, or any probe while the pods do not crash
  loop, means the probe fails (the kubelet kills or withholds traffic from the container);
- a pod in CrashLoopBackOff means the containers crash and restart;
- a job that reached its backoff limit (`BackoffLimitExceeded`) failed as a whole;
- a pod in another non-running status shows the reason itself;
- a pod running again after restarts shows what ended its last run (describe's Terminated reason);
- else a pod running but not ready is NotReady.
A probe that failed while a pod started and passes now is no fault: only pods not ready or
restarting make the probes' failures count. The telling failing line of the pods' logs (the last
that names a lookup, a connection or credentials, else the last failing one; each container's
logs when read by name) joins the evidence; when it shows a back end refusing credentials, or a
connection refused on a loopback address in a pod of several containers (the app started before
its sidecar listens: start order), the statement says so. When only another container than the
workload's own fails (its own runs without restarts), the statement names that sidecar, its
restarts and memory limit; a sidecar a mesh or agent injected (a known proxy name, one the pod's
annotations list or name) failing is the platform's fault (the injector's settings), not the
application's.
"""

import re

from reasoning import layers
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.kubectl import (
    Event,
    Pod,
    pod_containers,
    read_containers,
)
from reasoning.layered.kubernetes.logs import (
    AUTH_FAIL,
    CONNECT_FAIL,
    FAILING,
    LOOPBACK,
    failure_kind,
)
from reasoning.layered.kubernetes.view import WorkloadView
from reasoning.layered.reading import short
from reasoning.observations import Observation

STATUSES = frozenset({"CrashLoopBackOff", "OOMKilled", "Error"})
_PROBE = re.compile(r"(Liveness|Readiness|Startup) probe failed", re.IGNORECASE)
# A describe's pod-level reason and message (column 0; a container's are indented).
_POD_REASON = re.compile(r"^Reason:[ \t]*(\S+)[ \t]*$", re.MULTILINE)
_POD_MESSAGE = re.compile(r"^Message:[ \t]*(.+)$", re.MULTILINE)
# An eviction for a pod's own usage over its limits, not the node's shortage.
_OWN_LIMIT = re.compile(r"exceeds the (?:total )?limit|usage exceeds", re.IGNORECASE)


def runtime_reason(
    view: WorkloadView,
    selected: list[Pod],
    probes: list[Event],
    terminated: list[str],
    *,
    crashing: bool,
    evicted: bool = False,
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
    if evicted:
        return "Evicted"
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


def _statement(
    workload: str, reason: str, probes: list[Event], evicted: list[str]
) -> str:
    if reason == "Evicted":
        why = short(evicted[0], 200) if evicted else "no message shown"
        own = bool(evicted) and bool(_OWN_LIMIT.search(evicted[0]))
        return f"{workload}'s pods are evicted by the kubelet (Evicted: {why})" + (
            ": its containers use more than their own limit, the node is not short"
            if own
            else ""
        )
    return {
        "OOMKilled": f"{workload}'s containers are killed for exceeding their memory limit (OOMKilled)",
        "Unhealthy": f"{workload}'s probes fail: {short(probes[0].message, 200) if probes else 'not ready'}",
        "CrashLoopBackOff": f"{workload}'s containers crash and restart (CrashLoopBackOff)",
        "BackoffLimitExceeded": f"{workload}'s job fails: its pods failed until it reached its backoff limit (BackoffLimitExceeded)",
    }.get(reason, f"{workload}'s pods are {reason}")


def telling_line(text: str) -> str | None:
    """The failing line that says most: the last that names what failed (a lookup, a connection,
    credentials), else the last failing line; None when no line fails."""
    failing = [line.strip() for line in text.splitlines() if FAILING.search(line)]
    named = [line for line in failing if failure_kind(line) != "other"]
    chosen = named or failing
    return chosen[-1] if chosen else None


def _cite_logs(view: WorkloadView, f: Finding, selected: list[Pod]) -> None:
    """The telling failing line of the logs of the first two pods whose logs were read;
    credentials refused, or a connection refused inside the pod while it runs other containers,
    said."""
    read = [
        (pod, logs)
        for pod in selected
        if (logs := view.cluster.log_text(view.namespace, pod.name))
    ]
    said = False
    for pod, pod_logs in read[:2]:
        for obs, text in pod_logs:
            line = telling_line(text)
            if line is None:
                continue
            container = obs.arguments.get("container")
            where = f" -c {container}" if container else ""
            f.cite(obs, f"logs {obs.arguments.get('pod')}{where}: {line}")
            f.keywords.append(short(line, 60))
            if said:
                continue
            if AUTH_FAIL.search(line):
                f.statement += (
                    f": a back end refuses its credentials ({short(line, 120)})"
                )
                said = True
            elif (sidecars := _sidecars(view, pod, line, container)) is not None:
                address = LOOPBACK.search(line)
                f.statement += (
                    f": it cannot connect to {address.group(0) if address else 'localhost'} "
                    f"inside its own pod ({short(line, 120)}), where {', '.join(sidecars)} "
                    "should listen: it starts before its sidecar is ready (start order)"
                )
                f.keywords.append("sidecar start order")
                said = True


def _sidecars(
    view: WorkloadView, pod: Pod, line: str, container: object
) -> list[str] | None:
    """The pod's other containers, when `line` is a connection refused on a loopback address and
    the pod's describe lists more than one container; None otherwise."""
    if not (CONNECT_FAIL.search(line) and LOOPBACK.search(line)):
        return None
    described = view.cluster.describe("pods", view.namespace, pod.name)
    containers = pod_containers(described.text) if described is not None else []
    others = [c.name for c in containers[1:] if c.name != container] + [
        c.name for c in containers[:1] if container and c.name != container
    ]
    return others if len(containers) > 1 and others else None


def evictions(
    view: WorkloadView, describes: list[Observation]
) -> list[tuple[Observation, str, str]]:
    """Why the kubelet evicted the workload's pods, as (span, fact, message): each `Evicted`
    warning about them, and each describe whose pod-level Reason is Evicted (with its Message)."""
    out = [(e.obs, e.fact, e.message) for e in view.events("Evicted")]
    for described in describes:
        reason = _POD_REASON.search(described.text)
        if reason is None or reason.group(1) != "Evicted":
            continue
        message = _POD_MESSAGE.search(described.text)
        said = message.group(1).strip() if message else ""
        name = described.arguments.get("name")
        out.append(
            (
                described,
                f"describe pod {name}: Status: Failed, Reason: Evicted, Message: {said}",
                said,
            )
        )
    return out


def runtime(view: WorkloadView) -> Finding | None:
    """Pods that restart, run unready or were evicted fail at runtime, for the first reason that holds: OOM, an eviction, failing probes, a crash loop, else what ended the run."""
    crashing = [
        p
        for p in view.pods
        if p.status in STATUSES
        or p.restarts > 0
        or (p.status == "Evicted" and view.events("Evicted"))
    ]
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
    evicted = evictions(view, describes) if crashing else []
    reason = runtime_reason(
        view,
        selected,
        probes,
        terminated,
        crashing=bool(crashing),
        evicted=bool(evicted) or any(p.status == "Evicted" for p in selected),
    )
    said = [message for _, _, message in evicted if message]
    f = view.finding("runtime", reason, _statement(view.workload, reason, probes, said))
    if reason == "Evicted":
        for obs, fact, _ in evicted:
            f.cite(obs, fact)
        f.keywords += ["Evicted", *(short(m, 60) for m in said[:1])]
    view.cite_pods(f, selected)
    for described in describes:
        if reason == "OOMKilled" and "OOMKilled" in described.text:
            f.cite(described, "describe: Last State Terminated, Reason: OOMKilled")
    view.cite_events(
        f, ["BackOff", "Unhealthy", "OOMKilling", "Killing", "BackoffLimitExceeded"]
    )
    _cite_logs(view, f, selected)
    _sidecar_fault(view, f, describes, reason)
    f.chain = [
        f"{view.workload}: {len(selected)} of {len(view.pods)} pods failing",
        f.statement,
    ]
    return f


# Sidecars a mesh or an agent injects, by the container names they take.
INJECTED = frozenset(
    {
        "istio-proxy",
        "linkerd-proxy",
        "consul-dataplane",
        "envoy-sidecar",
        "kuma-sidecar",
        "vault-agent",
        "daprd",
        "appmesh-envoy",
        "osm-envoy",
    }
)
_ANNOTATIONS = re.compile(r"^Annotations:((?:.*\n)(?:[ \t]{2,}\S.*\n){0,40})", re.M)
_ANNOTATION_KEY = re.compile(r"(?:^|\s)([a-z0-9.-]{1,120})/[\w.-]{1,120}:")


def injected(described: str, container: str) -> bool:
    """A container a mesh or an agent injected into the pod (not the workload's own spec): a
    known injected name, one the pod's annotations list, or one named after an annotation's
    domain (`linkerd-proxy` beside `linkerd.io/…`, `vault-agent` beside `vault.hashicorp.com/…`)."""
    if container in INJECTED:
        return True
    block = _ANNOTATIONS.search(described)
    if block is None:
        return False
    text = block.group(1)
    if f'"{container}"' in text:
        return True
    first = container.split("-")[0]
    domains = {m.group(1) for m in _ANNOTATION_KEY.finditer(text)}
    return len(first) > 2 and any(first in d.split(".") for d in domains)


def _sidecar_fault(
    view: WorkloadView, f: Finding, describes: list[Observation], reason: str
) -> None:
    """When only another container than the workload's own fails (its own runs without restarts),
    the statement names that container; an injected sidecar (a mesh's proxy, an agent) failing is
    the platform's fault, not the application's."""
    for described in describes:
        containers = pod_containers(described.text)
        if len(containers) < 2:
            continue
        own = next((c for c in containers if c.name == view.name), containers[0])
        failing = [
            c
            for c in containers
            if c is not own and (c.has_failed or c.waiting == "CrashLoopBackOff")
        ]
        if not failing or own.has_failed or own.waiting:
            continue
        sidecar = failing[0]
        what = sidecar.last or sidecar.waiting or reason
        limit = f", memory limit {sidecar.memory_limit}" if sidecar.memory_limit else ""
        is_injected = injected(described.text, sidecar.name)
        f.statement = (
            f"{view.workload}'s {'injected ' if is_injected else ''}sidecar {sidecar.name} is "
            f"{what} ({sidecar.restarts} restarts{limit}) while its own container {own.name} "
            f"runs with {own.restarts} restarts"
            + (
                ": the sidecar's injection (its injector's settings, such as its resources) "
                "is at fault, not the application"
                if is_injected
                else ""
            )
        )
        f.cite(
            described,
            f"describe pod {described.arguments.get('name')}: {sidecar.name} Last State "
            f"{what}, Restart Count {sidecar.restarts}{limit}; {own.name} Restart Count "
            f"{own.restarts}",
        )
        f.keywords += [sidecar.name, "sidecar"]
        if is_injected:
            f.layer = layers.PLATFORM
            f.keywords.append("sidecar injector")
        return
