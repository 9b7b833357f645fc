"""Autoscalers that oscillate: a HorizontalPodAutoscaler rescaling its target up and down, again and again.

Rule: an autoscaler whose `SuccessfulRescale` events in the namespace go both ways (a new size
above target, then a smaller one "below target"), each way at least twice and at least `FLAPS`
times in all (kubectl's
`(xN over …)` counts), is flapping: each scale-up starts cold pods that are not ready yet, each
scale-down kills pods in the middle of their requests. The autoscaler (its behaviour: a scale-down
stabilization window of 0 seconds, a target too low) is the fault (`HPAFlapping`); its target
workload's failures and those of the callers of the services in front of it are its victims.
The flapping autoscaler is described for its behaviour (`reads`).
"""

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from reasoning import layers
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.kubectl import ref, table_rows
from reasoning.layered.kubernetes.path import Path
from reasoning.observations import Observation, PlannedCall
from reasoning.tools import DESCRIBE, GET_RESOURCES

# Rescales (both ways together) that make an oscillation rather than one answer to a load change.
FLAPS = 4
_SIZE = re.compile(r"New size:\s*(\d+)", re.IGNORECASE)
_COUNT = re.compile(r"\(x(\d+)\b")
_DOWN = re.compile(r"below target", re.IGNORECASE)
_NO_WINDOW = re.compile(
    r"Scale Down:\s*\n\s*Stabilization Window:\s*0 seconds", re.IGNORECASE
)

Call = Callable[[str, dict[str, Any], str], PlannedCall | None]


@dataclass(frozen=True)
class Rescale:
    obs: Observation
    line: str
    size: int
    count: int
    down: bool


def rescales(cluster: Cluster, ns: str) -> dict[str, list[Rescale]]:
    """Per autoscaler, the SuccessfulRescale lines of the namespace's events."""
    obs = cluster.events_obs.get(ns)
    out: dict[str, list[Rescale]] = {}
    if obs is None:
        return out
    for row in table_rows(obs):
        kind, _, name = (row.get("OBJECT") or "").partition("/")
        size = _SIZE.search(row.get("MESSAGE", ""))
        if (
            row.get("REASON") != "SuccessfulRescale"
            or kind.lower() != "horizontalpodautoscaler"
            or size is None
        ):
            continue
        count = _COUNT.search(row.get("LAST SEEN", ""))
        out.setdefault(name, []).append(
            Rescale(
                obs,
                f"{row.get('LAST SEEN', '')} {row.get('REASON')} {kind}/{name}: "
                f"{row.get('MESSAGE', '')}",
                int(size.group(1)),
                int(count.group(1)) if count else 1,
                bool(_DOWN.search(row.get("MESSAGE", ""))),
            )
        )
    return out


def flapping(cluster: Cluster, ns: str) -> dict[str, list[Rescale]]:
    """The autoscalers whose rescales go both ways, each at least twice, at least `FLAPS` in all."""
    out: dict[str, list[Rescale]] = {}
    for name, lines in rescales(cluster, ns).items():
        sizes = {r.size for r in lines}
        ups = sum(r.count for r in lines if not r.down)
        downs = sum(r.count for r in lines if r.down)
        if len(sizes) > 1 and min(ups, downs) >= 2 and ups + downs >= FLAPS:
            out[name] = lines
    return out


def reads(cluster: Cluster, ns: str, call: Call) -> list[PlannedCall | None]:
    """A flapping autoscaler: the autoscalers listed (what it scales) and its behaviour described."""
    calls: list[PlannedCall | None] = []
    for name in list(flapping(cluster, ns))[:1]:
        if cluster.wants_list("horizontalpodautoscalers", ns, wide=False):
            calls.append(
                call(
                    GET_RESOURCES,
                    {"kind": "horizontalpodautoscalers", "namespace": ns},
                    f"autoscaler {name} rescales up and down: what it scales",
                )
            )
        calls.append(
            call(
                DESCRIBE,
                {"kind": "horizontalpodautoscaler", "name": name, "namespace": ns},
                f"autoscaler {name} rescales up and down again and again: its target and "
                "behaviour (stabilization windows)",
            )
        )
    return calls


def _target(cluster: Cluster, ns: str, name: str) -> str:
    table = cluster.table("horizontalpodautoscalers", ns)
    row = table.row(name) if table is not None else None
    described = cluster.describe("horizontalpodautoscalers", ns, name)
    reference = (row or {}).get("REFERENCE", "")
    if not reference and described is not None:
        found = re.search(r"^Reference:\s*(\S+)", described.text, re.MULTILINE)
        reference = found.group(1) if found else ""
    kind, _, target = reference.partition("/")
    return ref(kind, target) if target else f"deployment/{name}"


def flapping_faults(cluster: Cluster, ns: str, path: Path) -> list[Finding]:
    """An autoscaler rescaling its target up and down again and again (both ways at least twice) kills pods mid-request and starts cold ones: it is the fault, its target's failures its victims."""
    out: list[Finding] = []
    table = cluster.table("horizontalpodautoscalers", ns)
    for name, lines in flapping(cluster, ns).items():
        target = _target(cluster, ns, name)
        ups = sum(r.count for r in lines if not r.down)
        downs = sum(r.count for r in lines if r.down)
        sizes = sorted({r.size for r in lines})
        f = Finding(
            "performance",
            "HPAFlapping",
            f"horizontalpodautoscaler/{name}",
            layers.PLATFORM,
            f"autoscaler {name} flaps {target} between {sizes[0]} and {sizes[-1]} replicas "
            f"({ups} scale-ups, {downs} scale-downs): each scale-down kills pods mid-request, "
            "each scale-up starts cold pods",
            ns,
        )
        for r in sorted(lines, key=lambda r: not r.down):
            f.cite(r.obs, r.line)
        if table is not None and table.row(name) is not None:
            f.cite(table.obs, f"get horizontalpodautoscalers: {table.line(name)}")
        described = cluster.describe("horizontalpodautoscalers", ns, name)
        if described is not None and _NO_WINDOW.search(described.text):
            f.statement += "; its scale-down stabilization window is 0 seconds"
            f.cite(
                described,
                f"describe horizontalpodautoscaler {name}: Scale Down: Stabilization "
                "Window: 0 seconds",
            )
        f.explains = [target] + [
            e.caller
            for e in path.edges
            if e.service is not None
            and target in cluster.service_workloads(ns, e.service)
            and e.caller != target
        ]
        f.keywords = ["hpa", "flapping", "SuccessfulRescale", name]
        f.chain = [
            f"{target}'s pods come and go: cold pods not ready, pods killed mid-request",
            f.statement,
        ]
        out.append(f)
    return out
