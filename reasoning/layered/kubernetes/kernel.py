"""Node-level network faults the kernel logs: tables of the node that fill up under every pod on it.

Rules:
- a node's kernel logging that a network table is full (connection tracking: `nf_conntrack: table
  full, dropping packet`; the neighbour (ARP) table: `neighbour table overflow`; the local ports
  of outbound connections: `ephemeral port exhaustion`, `cannot assign requested address` logged
  by the node) drops or refuses new connections of every pod on that node, whatever the node's
  Ready condition says: the node is the fault (`infrastructure`, at the connect layer), and the
  failures of the pods there are its victims (`links.node_victims`);
- the workload whose pod started on that node shortly before the kernel's first such line is what
  filled the table: the finding names it beside the node.

The kernel's lines are read from the logs server (any service: `kernel`, `journal`, `dmesg`,
a node agent), searched across every service once a node is worth a look (`searches`).
"""

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from reasoning import layers
from reasoning.layered.facts import parse_time
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.node_search import search_once
from reasoning.layered.reading import as_dict, as_list, short
from reasoning.observations import Investigation, Observation, PlannedCall
from reasoning.tools import SEARCH_LOGS

# Each table the kernel reports full, with the finding's reason; one regex for the search.
TABLES: tuple[tuple[str, str, str], ...] = (
    (r"nf_conntrack: table full", "ConntrackTableFull", "connection-tracking"),
    (r"neighbou?r table overflow", "NeighbourTableOverflow", "neighbour (ARP)"),
    (
        r"ephemeral port(?:s| range)? exhaust|cannot assign requested address",
        "EphemeralPortsExhausted",
        "ephemeral port",
    ),
)
SEARCH = "|".join(pattern for pattern, _, _ in TABLES)
_MATCHERS = tuple(
    (re.compile(pattern, re.IGNORECASE), reason, table)
    for pattern, reason, table in TABLES
)
_NODE_LABELS = ("node", "nodename", "node_name", "host", "hostname", "instance")
# A pod that started at most this long before the kernel's first line may have filled the table.
FILLER_LEAD_S = 3600.0


@dataclass(frozen=True)
class KernelLine:
    obs: Observation
    node: str
    reason: str
    table: str
    message: str
    at: datetime | None


def searches(
    inv: Investigation,
    call: Callable[[str, dict[str, Any], str], PlannedCall | None],
    nodes: list[str],
) -> list[PlannedCall | None]:
    """Once a node is worth a look: every service's lines (the node's kernel among them) that say a network table of a node is full."""
    if not nodes:
        return []
    return search_once(
        inv,
        call,
        SEARCH,
        limit=20,
        why=f"failures follow node {nodes[0]}: does a node's kernel log a full network "
        "table (conntrack, neighbour, ephemeral ports)",
    )


def kernel_lines(inv: Investigation, cluster: Cluster) -> list[KernelLine]:
    """The lines of any log read that say a listed node's network table is full, oldest first."""
    nodes = set(cluster.names("nodes", ""))
    found: list[KernelLine] = []
    for obs in inv.observations:
        if obs.tool != SEARCH_LOGS or not obs.is_ok:
            continue
        for line in map(as_dict, as_list(as_dict(obs.result).get("lines"))):
            message = str(line.get("message") or "")
            match = next(
                ((r, t) for m, r, t in _MATCHERS if m.search(message)),
                None,
            )
            node = _node_of(line, message, nodes)
            if match is None or node is None:
                continue
            found.append(
                KernelLine(
                    obs,
                    node,
                    match[0],
                    match[1],
                    message,
                    parse_time(str(line.get("time") or "")),
                )
            )
    return sorted(found, key=lambda k: (k.at is None, k.at or datetime.min))


def _node_of(line: dict[str, Any], message: str, nodes: set[str]) -> str | None:
    labels = as_dict(line.get("labels"))
    for key in _NODE_LABELS:
        value = labels.get(key)
        if isinstance(value, str) and value in nodes:
            return value
    return next((n for n in sorted(nodes) if n in message), None)


def kernel_faults(inv: Investigation, cluster: Cluster, ns: str) -> list[Finding]:
    """A node whose kernel logs a full network table (conntrack, neighbour, ephemeral ports) drops the new connections of every pod on it, and the pod that started there just before filled it."""
    out: dict[str, Finding] = {}
    table = cluster.table("pods", ns)
    for line in kernel_lines(inv, cluster):
        f = out.get(line.node)
        if f is None:
            f = out[line.node] = Finding(
                "infrastructure",
                line.reason,
                f"node/{line.node}",
                layers.CONNECT,
                f"node {line.node}'s {line.table} table is full: its kernel drops the new "
                "connections of every pod on it (the node may still be Ready)",
                ns,
            )
            f.keywords = ["node", line.node, line.reason, short(line.message, 60)]
            f.chain = [f"{line.node} kernel: {short(line.message, 120)}"]
            filler = _filler(cluster, ns, line.node)
            if filler is not None:
                owner = cluster.owner(ns, "pod", filler)
                f.statement += f"; {owner} started there just before and filled it"
                f.keywords.append(owner.partition("/")[2])
                f.chain.append(f"{owner} started on {line.node} just before")
                if table is not None:
                    f.cite(table.obs, f"get pods: {table.line(filler)}")
        f.cite(line.obs, f"{line.node} kernel: {line.message}")
    return list(out.values())


def _filler(cluster: Cluster, ns: str, node: str) -> str | None:
    """The youngest healthy pod on `node`, when it started within the lead before now's failures."""
    young = [
        p
        for p in cluster.pods(ns)
        if p.node == node
        and p.is_healthy
        and p.age_s is not None
        and p.age_s <= FILLER_LEAD_S
    ]
    return min(young, key=lambda p: p.age_s or 0.0).name if young else None
