"""Resizing controllers: an autoscaler that rewrote a workload's resources is why its pods run out.

Rule: a workload whose pods are OOMKilled, when a VerticalPodAutoscaler rewrote those pods'
memory (their `vpaUpdates:` annotation names a memory request or limit, or its updater evicted
the workload's pods, `EvictedByVPA`), is the autoscaler's victim: the autoscaler (not in `Off`
mode) lowered the limit below what the workload needs. It is the fault (`runtime`, platform
layer); the pods' current memory limit, and the template's when the workload was described (a
template limit no higher than the pods' clears the autoscaler), are its evidence.
"""

import re
from dataclasses import dataclass, field

from reasoning import layers
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.kubectl import Event, read_containers
from reasoning.observations import Observation

EVICTED = "EvictedByVPA"
# `vpaUpdates: Pod resources updated by <vpa>: container 0: cpu request, memory limit`
_UPDATES = re.compile(
    r"vpaUpdates:\s*Pod resources updated by ([a-z0-9][-a-z0-9.]*?):\s*(.*)$",
    re.MULTILINE,
)
_MEMORY_LIMIT = re.compile(
    r"^\s+Limits:\s*\n(?:\s+[\w.-]+:.*\n)*?\s+memory:\s*(\S+)", re.M
)
_OOM = frozenset({"OOMKilled"})
_UNITS = {
    "": 1,
    "K": 10**3,
    "M": 10**6,
    "G": 10**9,
    "Ki": 2**10,
    "Mi": 2**20,
    "Gi": 2**30,
}


def memory_bytes(text: str) -> float | None:
    """A Kubernetes memory quantity in bytes (`300Mi`, `1Gi`, `512M`); None when not one."""
    match = re.fullmatch(r"(\d+(?:\.\d+)?)([KMG]i?)?", text.strip())
    if match is None:
        return None
    return float(match.group(1)) * _UNITS[match.group(2) or ""]


@dataclass
class Resized:
    """A workload whose pods an autoscaler resized, with what shows it."""

    workload: str
    autoscaler: str = (
        ""  # the VerticalPodAutoscaler's name, when a pod's annotation says
    )
    limit: str = ""  # the pods' memory limit now
    marks: list[tuple[Observation, str]] = field(default_factory=list)
    is_oom_killed: bool = False


def resized(cluster: Cluster, ns: str) -> dict[str, Resized]:
    """The workloads of `ns` whose pods a VerticalPodAutoscaler resized (annotation or eviction)."""
    out: dict[str, Resized] = {}
    described = [
        (name, obs, cluster.owner(ns, "pod", name), read_containers(obs.text))
        for (kind, space, name), obs in sorted(cluster.describes.items())
        if kind == "pods" and space == ns
    ]
    oom_killed = {
        workload
        for _, _, workload, state in described
        if _OOM & {*state.terminated, *state.waiting}
    }
    oom_killed |= {
        cluster.owner(ns, "pod", p.name)
        for p in cluster.pods(ns)
        if p.status == "OOMKilled"
    }
    for name, obs, workload, state in described:
        match = _UPDATES.search(obs.text)
        if match is None or "memory" not in match.group(2):
            continue
        oom = bool(_OOM & {*state.terminated, *state.waiting})
        r = out.setdefault(workload, Resized(workload))
        r.autoscaler = r.autoscaler or match.group(1)
        limit = _MEMORY_LIMIT.search(obs.text)
        if limit and not r.limit:
            r.limit = limit.group(1)
        what = f"Limits memory {limit.group(1)}; " if limit else ""
        ended = "; Last State OOMKilled" if oom else ""
        r.marks.append(
            (
                obs,
                f"describe pod {name}: {what}vpaUpdates: {match.group(0).split(':', 1)[1].strip()}{ended}",
            )
        )
    for event in _evictions(cluster, ns):
        workload = cluster.owner(ns, event.kind, event.name)
        r = out.setdefault(workload, Resized(workload))
        if len(r.marks) < 4:
            r.marks.append((event.obs, event.fact))
    for r in out.values():
        r.is_oom_killed = r.workload in oom_killed
    return out


def _evictions(cluster: Cluster, ns: str) -> list[Event]:
    return [e for e in cluster.events.get(ns, []) if e.reason == EVICTED][:3]


def wants_autoscalers(cluster: Cluster, ns: str) -> bool:
    """A pod of `ns` was resized by a VerticalPodAutoscaler and they were not listed yet."""
    return bool(resized(cluster, ns)) and (
        cluster.wants_list("verticalpodautoscalers", ns, wide=False)
        and ("verticalpodautoscalers", ns, False) not in cluster.missing
    )


def _template_limit(
    cluster: Cluster, ns: str, workload: str
) -> tuple[Observation, str] | None:
    kind, _, name = workload.partition("/")
    described = cluster.describe(kind, ns, name)
    limit = _MEMORY_LIMIT.search(described.text) if described else None
    return (described, limit.group(1)) if described and limit else None


def resizing_faults(cluster: Cluster, ns: str) -> list[Finding]:
    """A VerticalPodAutoscaler that rewrote a workload's memory (the pods' vpaUpdates annotation, its updater's evictions) is the fault when those pods are now OOMKilled: it lowered the limit below what the workload needs."""
    table = cluster.table("verticalpodautoscalers", ns)
    rows = {r.get("NAME", ""): r for r in (table.rows if table else ())}
    out: list[Finding] = []
    for r in resized(cluster, ns).values():
        if not r.is_oom_killed:
            continue
        name = r.autoscaler or (next(iter(rows)) if len(rows) == 1 else "")
        name = name or r.workload.partition("/")[2]
        row = rows.get(name, {})
        if row.get("MODE") == "Off":
            continue  # it only recommends
        template = _template_limit(cluster, ns, r.workload)
        now, before = (
            memory_bytes(r.limit),
            memory_bytes(template[1]) if template else None,
        )
        if now is not None and before is not None and before <= now:
            continue  # the template asks no more: the autoscaler did not shrink it
        was = f" (the template asks {template[1]})" if template else ""
        f = Finding(
            "runtime",
            "ResourcesRewritten",
            f"verticalpodautoscaler/{name}",
            layers.PLATFORM,
            f"verticalpodautoscaler {name} rewrote {r.workload}'s memory"
            + (f" to a {r.limit} limit{was}" if r.limit else "")
            + ": its pods are now killed for exceeding it (OOMKilled)",
            ns,
        )
        for obs, fact in r.marks:
            f.cite(obs, fact)
        if table is not None and name in rows:
            f.cite(table.obs, f"get verticalpodautoscalers: {table.line(name)}")
        described = cluster.describe("verticalpodautoscalers", ns, name)
        if described is not None:
            mode = re.search(r"Update Mode:\s*(\S+)", described.text)
            f.cite(
                described,
                f"describe verticalpodautoscaler {name}: update mode "
                f"{mode.group(1) if mode else '?'}",
            )
        if template is not None:
            f.cite(template[0], f"describe {r.workload}: Limits memory {template[1]}")
        f.explains = [r.workload]
        f.keywords = ["vpa", "VerticalPodAutoscaler", "OOMKilled", name, r.limit]
        f.chain = [f"{r.workload}'s pods are OOMKilled", f.statement]
        out.append(f)
    return out
