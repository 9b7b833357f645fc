"""Performance: containers starved of CPU by their limit (the metrics server's cAdvisor series).

Rule: a container throttled in `THROTTLED_SHARE` or more of its CFS periods (the mean of the last
five samples) is starved of CPU — its requests slow down and its probes time out.
"""

import re

from reasoning import layers
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.kubectl import read_containers
from reasoning.layered.reading import as_dict, as_list
from reasoning.observations import Investigation, Observation
from reasoning.tools import QUERY_METRIC

# A container throttled in this share of its CFS periods is starved of CPU.
THROTTLED_SHARE = 0.25
SLOW = re.compile(
    r"slow|latency|p99|p95|timed? ?out|timeout|deadline exceeded|\b504\b", re.IGNORECASE
)


def throttling_query(ns: str) -> str:
    """The share of CFS periods in which each container of the namespace was throttled."""
    sel = f'{{namespace="{ns}"}}'
    return (
        f"sum by (container) (rate(container_cpu_cfs_throttled_periods_total{sel}[5m]))"
        f" / sum by (container) (rate(container_cpu_cfs_periods_total{sel}[5m]))"
    )


def _throttling_answers(inv: Investigation, ns: str) -> list[Observation]:
    """The metric answers of the throttling query for this namespace."""
    return [
        obs
        for obs in inv.observations
        if obs.tool == QUERY_METRIC
        and obs.is_ok
        and "cfs_throttled" in (promql := str(obs.arguments.get("promql") or ""))
        and f'namespace="{ns}"' in promql
    ]


def _shares(obs: Observation) -> list[tuple[str, float]]:
    """Per container, the mean throttled share of its last five samples."""
    out: list[tuple[str, float]] = []
    for series in as_list(as_dict(obs.result).get("series")):
        labels = as_dict(as_dict(series).get("metric"))
        values = [
            float(v[1])
            for v in as_list(as_dict(series).get("values"))
            if isinstance(v, list) and len(v) == 2 and _number(v[1])
        ]
        container = str(labels.get("container") or "")
        if container and values:
            recent = values[-5:]
            out.append((container, sum(recent) / len(recent)))
    return out


def throttled(inv: Investigation, cluster: Cluster, ns: str) -> list[Finding]:
    """A container throttled in a large share of its CFS periods is starved of CPU by its limit."""
    out: list[Finding] = []
    for obs in _throttling_answers(inv, ns):
        for container, share in _shares(obs):
            if share >= THROTTLED_SHARE:
                out.append(_finding(cluster, ns, obs, container, share))
    return out


def _finding(
    cluster: Cluster, ns: str, obs: Observation, container: str, share: float
) -> Finding:
    workload = _workload_of_container(cluster, ns, container)
    f = Finding(
        "performance",
        "cpu_throttling",
        workload,
        layers.APPLICATION,
        f"{workload} is CPU-throttled in {share:.0%} of its CFS periods (container {container}): "
        "its CPU limit starves it, requests slow down and probes time out",
        ns,
    )
    f.cite(
        obs,
        f"query_metric container_cpu_cfs_throttled_periods_total / container_cpu_cfs_periods_total: "
        f"{container} throttled {share:.0%} of periods",
    )
    limits = [
        (o, read_containers(o.text).limits_cpu)
        for (kind, space, name), o in cluster.describes.items()
        if space == ns
        and kind in ("deployments", "pods")
        and name.startswith(workload.split("/", 1)[1])
    ]
    for o, limit in limits[:2]:
        if limit:
            f.cite(o, f"describe: Limits cpu {limit}")
    f.keywords = ["cpu", "throttling", "limits", container]
    f.chain = [f"{workload} answers slowly", f.statement]
    return f


def _number(value: object) -> bool:
    try:
        return float(str(value)) == float(str(value))  # not NaN
    except ValueError:
        return False


def _workload_of_container(cluster: Cluster, ns: str, container: str) -> str:
    """The workload named like the container, else the only one running a container so named."""
    named: list[str] = []
    holding: list[str] = []
    for kind in ("deployments", "statefulsets", "daemonsets"):
        table = cluster.table(kind, ns)
        for row in table.rows if table else ():
            workload = f"{kind[:-1]}/{row['NAME']}"
            if row.get("NAME") == container:
                named.append(workload)
            elif container in row.get("CONTAINERS", "").split(","):
                holding.append(workload)
    if named:
        return named[0]
    return holding[0] if len(holding) == 1 else f"deployment/{container}"
