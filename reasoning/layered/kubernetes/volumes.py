"""Volumes: a claim whose volume cannot be attached or mapped keeps its workload's pods from starting.

Rule: a warning whose reason the event table blames on the volume (`FailedAttachVolume`, a
Multi-Attach error among them, or `FailedMapVolume`), on a pod of a workload that waits to start,
names the volume; the PersistentVolumeClaim bound to it (the claims' VOLUME column, or the
volumes' CLAIM) is the object to fix, not the pod that waits: its finding explains the workload's
(`explains`), and cites the warning, the waiting pod's describe, the claim's describe and rows.
When the claim's describe names another pod using it (`Used By`), that pod and its node (a node
not Ready among them) say where the volume is held: the statement names them and cites their rows.
"""

import re
from collections.abc import Iterator

from reasoning import layers
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.event_reasons import VOLUME, cause_of, reasons_at
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.kubectl import Event
from reasoning.layered.reading import short

_VOLUME = re.compile(r'volume "([^"]+)"')
_WAITING = frozenset({"ContainerCreating", "Pending", "Init:0/1"})
_USED_BY = re.compile(r"^Used By:[ \t]*(.*(?:\n[ \t]{8,}\S.*)*)", re.MULTILINE)


def claim_of(cluster: Cluster, ns: str, volume: str) -> str | None:
    """The claim in `ns` bound to `volume` (or named so), from the claims' or the volumes' list."""
    claims = cluster.table("persistentvolumeclaims", ns)
    for row in claims.rows if claims else ():
        if volume in (row.get("VOLUME"), row.get("NAME")):
            return row.get("NAME")
    volumes = cluster.table("persistentvolumes", "")
    bound = volumes.row(volume) if volumes else None
    claim_ns, _, claim = (bound or {}).get("CLAIM", "").partition("/")
    return claim if claim and claim_ns == ns else None


def users_of(cluster: Cluster, ns: str, claim: str) -> list[str]:
    """The pods the claim's describe says use it (`Used By`), when it was described."""
    described = cluster.describe("persistentvolumeclaims", ns, claim)
    used_by = _USED_BY.search(described.text) if described is not None else None
    return used_by.group(1).split() if used_by else []


def holder(cluster: Cluster, ns: str, claim: str, waiting: str) -> str:
    """Where the volume is held, in words: another pod using the claim, on its node, and that
    node's status when it is not Ready ("" when the claim's users are not known)."""
    pods = {p.name: p for p in cluster.pods(ns)}
    for name in users_of(cluster, ns, claim):
        pod = pods.get(name)
        if name == waiting or pod is None or not pod.node:
            continue
        nodes = cluster.table("nodes", ns)
        row = nodes.row(pod.node) if nodes else None
        status = (row or {}).get("STATUS", "")
        down = f" ({status})" if status and status != "Ready" else ""
        return f"held by pod {name} ({pod.status}) on node {pod.node}{down}"
    return ""


def _cite_claim(cluster: Cluster, ns: str, f: Finding, claim: str, volume: str) -> None:
    claims = cluster.table("persistentvolumeclaims", ns)
    if claims is not None and claims.row(claim) is not None:
        f.cite(claims.obs, f"get persistentvolumeclaims: {claims.line(claim)}")
    volumes = cluster.table("persistentvolumes", "")
    if volumes is not None and volumes.row(volume) is not None:
        f.cite(volumes.obs, f"get persistentvolumes: {volumes.line(volume)}")
    described = cluster.describe("persistentvolumeclaims", ns, claim)
    if described is not None:
        users = " ".join(users_of(cluster, ns, claim))
        f.cite(
            described,
            f"describe persistentvolumeclaim {claim}: volume {volume}"
            + (f", used by {users}" if users else ""),
        )


def _cite_holder(
    cluster: Cluster, ns: str, f: Finding, claim: str, waiting: str
) -> None:
    """The rows of the other pods using the claim and of their nodes: where the volume is held."""
    pods = cluster.table("pods", ns)
    nodes = cluster.table("nodes", ns)
    for name in users_of(cluster, ns, claim):
        pod = next((p for p in cluster.pods(ns) if p.name == name), None)
        if name == waiting or pod is None or pods is None:
            continue
        f.cite(pods.obs, f"get pods: {pod.line}")
        if nodes is not None and pod.node and nodes.row(pod.node) is not None:
            f.cite(nodes.obs, f"get nodes: {nodes.line(pod.node)}")


def _waiting(cluster: Cluster, ns: str, event: Event) -> str | None:
    """The workload of the warned pod, when one of its pods waits to start."""
    workload = cluster.owner(ns, event.kind, event.name)
    pods = cluster.pods_of(ns, workload)
    return workload if any(p.status in _WAITING for p in pods) else None


def _blocking(cluster: Cluster, ns: str) -> Iterator[tuple[Event, str, str, str]]:
    """Each volume warning (the event table's) on a waiting pod whose volume a claim is bound to:
    the warning, the volume, the claim, the waiting workload."""
    reasons = reasons_at("startup", (VOLUME,))
    for event in cluster.warnings(ns):
        named = _VOLUME.search(event.message)
        if event.reason not in reasons or event.kind != "pod" or named is None:
            continue
        workload = _waiting(cluster, ns, event)
        claim = claim_of(cluster, ns, named.group(1))
        if workload is not None and claim is not None:
            yield event, named.group(1), claim, workload


def blamed_claims(cluster: Cluster, ns: str) -> list[tuple[str, Event]]:
    """The claims whose volume a warning blames (the event table's) for a waiting pod, each with its first such warning."""
    out: dict[str, Event] = {}
    for event, _, claim, _ in _blocking(cluster, ns):
        out.setdefault(claim, event)
    return list(out.items())


def volume_faults(cluster: Cluster, ns: str) -> list[Finding]:
    """A volume that cannot be attached to (or mapped into) a waiting pod blames the claim bound to it, not the pod's workload."""
    out: dict[str, Finding] = {}
    for event, volume, claim, workload in _blocking(cluster, ns):
        component = f"persistentvolumeclaim/{claim}"
        f = out.get(component)
        if f is None:
            cause = cause_of(event.message)
            trouble = cause[1] if cause else "it cannot be attached"
            held = holder(cluster, ns, claim, event.name)
            if held:
                trouble += f", {held}"
            f = Finding(
                "startup",
                event.reason,
                component,
                layers.PLATFORM,
                f"claim {claim}'s volume {volume} keeps {workload}'s pods from "
                f"starting: {trouble} ({event.reason}: {short(event.message, 160)})",
                ns,
            )
            f.keywords = [event.reason, claim, volume, "volume"]
            if cause:
                f.keywords.append(cause[1])
            f.chain = [f"{workload}: pods wait to start", f.statement]
            _cite_claim(cluster, ns, f, claim, volume)
            _cite_holder(cluster, ns, f, claim, event.name)
            out[component] = f
        f.cite(event.obs, event.fact)
        described = cluster.describe("pods", ns, event.name)
        if described is not None:
            f.cite(described, f"describe pod {event.name}: {event.reason}")
        if workload not in f.explains:
            f.explains.append(workload)
    return list(out.values())
