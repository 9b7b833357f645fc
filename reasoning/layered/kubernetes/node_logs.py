"""Why a node is not ready, in its kubelet's own words: the logs server's lines about that node.

Rule: a node listed NotReady or Unknown says little by itself (describe's conditions often only say
"Kubelet stopped posting node status"): the kubelet's lines say why — its client certificate
expired (`x509: certificate has expired`), the API server refuses it (`Unauthorized`), the
container runtime or the network plugin is down, PLEG is unhealthy. Once a node is not ready, every
service's lines of the window that say such a thing are searched once (the kubelet is a service of
the logs server where its journal is shipped), and the lines labelled with (or naming) that node
are cited on the node's finding, the ones that name a cause first.
"""

import re
from collections.abc import Callable
from typing import Any

from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.log_search import search_once
from reasoning.layered.reading import as_dict, as_list, short
from reasoning.observations import Investigation, Observation, PlannedCall
from reasoning.tools import SEARCH_LOGS

# What a kubelet logs when it cannot keep its node ready (one regex for the search).
SEARCH = (
    r"x509|certificate|Unauthorized|PLEG is not healthy|container runtime|"
    r"runtime network not ready|NetworkPluginNotReady|node status|unable to register node|"
    r"ensure lease|kubelet"
)
_SEARCH = re.compile(SEARCH, re.IGNORECASE)
# A line that names why (rather than only that the status could not be posted).
_CAUSE = re.compile(
    r"x509|certificate (?:has )?expired|not yet valid|PLEG is not healthy|"
    r"container runtime (?:is )?(?:down|not ready)|runtime network not ready|"
    r"NetworkPluginNotReady|no space left|out of memory",
    re.IGNORECASE,
)
_NODE_LABELS = ("node", "nodename", "node_name", "host", "hostname", "instance")
# Distinct lines cited per node.
MOST_LINES = 2


def not_ready_nodes(cluster: Cluster, ns: str) -> list[str]:
    """The listed nodes whose status is NotReady or Unknown."""
    table = cluster.table("nodes", ns)
    return [
        row["NAME"]
        for row in (table.rows if table else ())
        if row.get("NAME")
        and ("NotReady" in row.get("STATUS", "") or "Unknown" in row.get("STATUS", ""))
    ]


def searches(
    inv: Investigation,
    call: Callable[[str, dict[str, Any], str], PlannedCall | None],
    nodes: list[str],
) -> list[PlannedCall | None]:
    """Once a node is not ready: the lines of every service (its kubelet's among them) that say why a node cannot stay ready."""
    if not nodes:
        return []
    return search_once(
        inv,
        call,
        SEARCH,
        limit=40,
        why=f"node {nodes[0]} is not ready: what its kubelet logs (certificate, runtime, "
        "network plugin)",
    )


def node_lines(
    inv: Investigation, nodes: set[str]
) -> dict[str, list[tuple[Observation, str]]]:
    """Per node, the lines searched that are labelled with it (or name it), those naming a cause first."""
    out: dict[str, list[tuple[Observation, str]]] = {}
    for obs in inv.observations:
        if (
            obs.tool != SEARCH_LOGS
            or not obs.is_ok
            or obs.arguments.get("query") != SEARCH
        ):
            continue
        for line in map(as_dict, as_list(as_dict(obs.result).get("lines"))):
            message = str(line.get("message") or "")
            node = _node_of(line, message, nodes)
            if node is not None and _SEARCH.search(message):
                out.setdefault(node, []).append((obs, message))
    for lines in out.values():
        lines.sort(key=lambda pair: _CAUSE.search(pair[1]) is None)
    return out


def _node_of(line: dict[str, Any], message: str, nodes: set[str]) -> str | None:
    labels = as_dict(line.get("labels"))
    for key in _NODE_LABELS:
        value = labels.get(key)
        if isinstance(value, str) and value in nodes:
            return value
    return next((n for n in sorted(nodes) if n in message), None)


def kubelet_reasons(
    inv: Investigation, cluster: Cluster, findings: list[Finding]
) -> None:
    """A node that is not ready is explained by its kubelet's own lines (an expired certificate, a runtime or network plugin down), cited on its finding, a cause first."""
    down = {
        f.component.removeprefix("node/"): f
        for f in findings
        if f.reason == "NodeNotReady" and f.component.startswith("node/")
    }
    if not down:
        return
    for node, lines in node_lines(inv, set(down)).items():
        f = down[node]
        cited: list[str] = []
        for obs, message in lines:
            signature = re.sub(r"\d+", "#", message)[:80]
            if signature in cited:
                continue
            cited.append(signature)
            f.cite(obs, f"{node} kubelet: {message}")
            if len(cited) >= MOST_LINES:
                break
        first = lines[0][1]
        cause = _CAUSE.search(first)
        if cause is not None:
            f.statement += f"; its kubelet logs {short(first[cause.start() :], 120)}"
            f.keywords.append(cause.group(0))
        f.chain.append(f"{node} kubelet: {short(first, 160)}")
