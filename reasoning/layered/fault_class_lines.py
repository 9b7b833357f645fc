"""The line that shows a resource fault's class, for the hypothesis that names it.

Rule: a workload killed for its memory (OOMKilled) is shown by the node kernel's own line
(`Memory cgroup out of memory: Killed process …`, `oom-kill:`), and one whose CPU limit was cut by
its runtime's line sizing itself to the CPU quota (Go's `maxprocs: Updating GOMAXPROCS=1:
determined from CPU quota`, a JVM's or Node's processor count): once pods are seen OOMKilled, or a
change lowers a CPU limit, every service's lines are searched for those words, and the leading
hypothesis of that class (application layer, its workload named) cites the first such line of its
own pods or nodes (`fault_class_lines`). Citing changes no ranking.
"""

import re
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Final

from reasoning import layers
from reasoning.layered.candidates import Board, Candidate
from reasoning.layered.log_search import Call, search_once
from reasoning.layered.reading import short
from reasoning.observations import Investigation, Observation, PlannedCall
from reasoning.tools import SEARCH_LOGS

OOM_SEARCH: Final = r"Memory cgroup out of memory|oom-kill:|Out of memory: Killed process|invoked oom-killer"
CPU_SEARCH: Final = (
    r"GOMAXPROCS|maxprocs|CPU quota|cpu quota|availableProcessors|ActiveProcessorCount"
    r"|cpu_count|cpus? available"
)
_OOM: Final = re.compile(OOM_SEARCH, re.IGNORECASE)
_CPU: Final = re.compile(CPU_SEARCH, re.IGNORECASE)
_CPU_CUT: Final = re.compile(
    r"(?:limits?\.cpu|cpu[ _-]?limit|\bcpu)[\"']?\s*[:=]?\s*[\"']?(\d+(?:\.\d+)?)(m?)[\"']?\s*"
    r"(?:->|=>|→)\s*[\"']?(\d+(?:\.\d+)?)(m?)",
    re.IGNORECASE,
)
_OOM_CLASS: Final = re.compile(r"OOMKilled|out of memory|memory limit", re.IGNORECASE)
_CPU_CLASS: Final = re.compile(
    r"limits?\.cpu|cpu limit|throttl|CPU quota|GOMAXPROCS", re.IGNORECASE
)

if TYPE_CHECKING:  # the kubernetes package imports the rule table, which imports this
    from reasoning.layered.kubernetes.cluster import Cluster

_START_LEAD: Final = timedelta(hours=1)


def _millicores(number: str, milli: str) -> float:
    return float(number) if milli else float(number) * 1000


def cpu_cut(inv: Investigation) -> str:
    """The first change line that lowers a CPU limit; "" when none."""
    for obs in inv.observations:
        if obs.tool != SEARCH_LOGS or not obs.is_ok or not isinstance(obs.result, dict):
            continue
        for line in obs.result.get("lines") or []:
            if not isinstance(line, dict):
                continue
            if str(line.get("level") or "").lower() in ("error", "fatal", "critical"):
                continue
            message = str(line.get("message") or "")[:4000]
            for m in _CPU_CUT.finditer(message):
                if _millicores(m.group(3), m.group(4)) < _millicores(
                    m.group(1), m.group(2)
                ):
                    return message
    return ""


def oom_killed(cluster: "Cluster") -> bool:
    """A pod listed or described as OOMKilled."""
    if any(
        p.status == "OOMKilled"
        for ns in cluster.namespaces or []
        for p in cluster.pods(ns)
    ):
        return True
    return any(
        kind == "pods" and "OOMKilled" in obs.text
        for (kind, _, _), obs in cluster.describes.items()
    )


def searches(
    inv: Investigation, cluster: "Cluster", call: Call
) -> list[PlannedCall | None]:
    """Every service's lines that show an OOM kill's or a CPU quota's class, once each, when pods
    are OOMKilled or a change lowered a CPU limit."""
    calls: list[PlannedCall | None] = []
    if oom_killed(cluster):
        calls += search_once(
            inv,
            call,
            OOM_SEARCH,
            limit=10,
            why="pods are OOMKilled: the kernel's own line of the kill (which process, how much)",
        )
    if cpu_cut(inv):
        calls += search_once(
            inv,
            call,
            CPU_SEARCH,
            limit=10,
            why="a change lowered a CPU limit: does a runtime size itself to the new CPU quota",
            # A runtime says it at start: the pods restarted when the change rolled out.
            lead=_START_LEAD,
        )
    return calls


def _lines(inv: Investigation, query: str) -> list[tuple[Observation, dict[str, Any]]]:
    out: list[tuple[Observation, dict[str, Any]]] = []
    for obs in inv.observations:
        if (
            obs.tool != SEARCH_LOGS
            or not obs.is_ok
            or obs.arguments.get("query") != query
            or not isinstance(obs.result, dict)
        ):
            continue
        out += [
            (obs, ln) for ln in obs.result.get("lines") or [] if isinstance(ln, dict)
        ]
    return out


def _owns(line: dict[str, Any], name: str, nodes: set[str]) -> bool:
    """The line is the workload's own (its service or pod) or its pods' node's (the kernel)."""
    labels = line.get("labels") if isinstance(line.get("labels"), dict) else {}
    service = str(line.get("service") or "")
    pod = str(labels.get("pod") or "") if labels else ""
    node = str(labels.get("node") or labels.get("host") or "") if labels else ""
    return (
        service == name or pod.startswith(f"{name}-") or (bool(node) and node in nodes)
    )


def fault_class_lines(board: Board) -> None:
    """The leading hypothesis of a resource fault (an OOMKilled workload, a cut CPU limit) cites the line that shows its class: the node kernel's OOM kill of its process, its runtime sizing itself to the CPU quota."""
    ranked = sorted(
        (c for c in board.candidates.values() if c.status != "ruled_out"),
        key=lambda c: -c.confidence,
    )
    if not ranked or ranked[0].layer != layers.APPLICATION:
        return
    top = ranked[0]
    text = " ".join([top.statement, *(e.fact for e in top.evidence)])
    name = top.component.rpartition("/")[2]
    nodes = _nodes_of(board, name)
    if _OOM_CLASS.search(text):
        _cite_first(top, _lines(board.inv, OOM_SEARCH), _OOM, name, nodes)
    if _CPU_CLASS.search(text):
        _cite_first(top, _lines(board.inv, CPU_SEARCH), _CPU, name, nodes)


def _nodes_of(board: Board, name: str) -> set[str]:
    diagnosis = board.cluster
    if diagnosis is None:
        return set()
    cluster = diagnosis.cluster
    return {
        p.node
        for ns in cluster.namespaces or []
        for p in cluster.pods(ns)
        if p.name.startswith(f"{name}-") and p.node
    }


def _cite_first(
    top: Candidate,
    lines: list[tuple[Observation, dict[str, Any]]],
    words: re.Pattern[str],
    name: str,
    nodes: set[str],
) -> None:
    for obs, line in lines:
        message = str(line.get("message") or "")
        if words.search(message[:2000]) and _owns(line, name, nodes):
            who = str(line.get("service") or "")
            top.cite(obs, f"search_logs: {who} logs: {short(message, 240)}")
            return
