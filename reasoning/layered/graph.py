"""The dependency graph: components, who depends on whom, and the faults each one shows.

Nodes are components (a service a log or metric names, a host, a Kubernetes object as `kind/name`,
a tool server, a tool's back end), each with its kind and its own fault events. Edges go from a
caller to its callee (a dependant to what it depends on), each with the span and the fact that
showed it. The graph is built from the evidence (`dependencies.build_graph`), never from the
incident's words, and answers "who depends on whom" for the rules that need it.

Blame (Groot's shape): a node with a fault of its own (a hypothesis) is a root when no node it
depends on (along the edges, any number of hops) has a fault too; a faulty node that does is
explained by the roots below it (a pass-through or a victim). A root's share is how much of the
observed failure depends on it: the nodes with any event (a fault, a symptom such as a failed
tool call or probe, a change) and the incident's own node, itself included.
"""

from collections import deque
from dataclasses import dataclass, field
from typing import Any

_CHAIN_LIMIT = 12  # nodes in a path the report shows


@dataclass(frozen=True)
class Edge:
    """A caller depends on a callee: `kind` says how (calls, routes, selects, runs_on, backs …)."""

    caller: str
    callee: str
    kind: str
    span_id: str
    fact: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "caller": self.caller,
            "callee": self.callee,
            "kind": self.kind,
            "span_id": self.span_id,
            "fact": self.fact,
        }


@dataclass(frozen=True)
class Fault:
    """A fault event on a node: the hypothesis that states it, how sure, the span that shows it."""

    hypothesis: (
        str  # layer:component; "" for an event that states none (a symptom, a change)
    )
    status: str  # confirmed | likely; symptom | change for an event
    confidence: float
    statement: str
    span_id: str
    fact: str
    at: str = ""  # RFC 3339 when the evidence dates it (a change, a first error line)

    def to_dict(self) -> dict[str, Any]:
        return {
            "hypothesis": self.hypothesis,
            "status": self.status,
            "confidence": round(self.confidence, 2),
            "statement": self.statement,
            "span_id": self.span_id,
            "fact": self.fact,
            "at": self.at,
        }


@dataclass
class Node:
    """A component, its kind (service, host, workload, pod, node, ingress, tool_server, backend …)
    and the faults it shows."""

    name: str
    kind: str
    faults: list[Fault] = field(default_factory=list)

    @property
    def is_faulty(self) -> bool:
        """A fault of its own: a hypothesis, not only a symptom, a change or a failed probe."""
        return any(f.hypothesis for f in self.faults)


@dataclass(frozen=True)
class Blame:
    """A root cause the graph shows: its node, the faulty nodes it explains, its share of them."""

    node: str
    explains: tuple[
        str, ...
    ]  # faulty dependants (and the incident's node), nearest first
    share: float  # of the observed failure: (explained + itself) / (faulty nodes + incident's)
    directness: float  # its strongest fault's confidence

    def to_dict(self) -> dict[str, Any]:
        return {
            "node": self.node,
            "explains": list(self.explains),
            "share": round(self.share, 2),
            "directness": round(self.directness, 2),
        }


@dataclass
class Graph:
    """Nodes by name and the edges between them (caller → callee), each edge once per kind."""

    nodes: dict[str, Node] = field(default_factory=dict)
    edges: list[Edge] = field(default_factory=list)
    focus: str = ""  # the incident's own node, once resolved onto the graph

    def node(self, name: str, kind: str) -> Node:
        """The node called `name`, made with `kind` the first time (a later, more specific kind wins
        over `service`)."""
        found = self.nodes.get(name)
        if found is None:
            found = self.nodes[name] = Node(name, kind)
        elif found.kind in ("service", "host") and kind not in ("service", "host"):
            found.kind = kind
        return found

    def link(
        self,
        caller: str,
        callee: str,
        kind: str,
        span_id: str,
        fact: str,
        *,
        caller_kind: str = "service",
        callee_kind: str = "service",
    ) -> None:
        """Add caller → callee (both made if new); a repeated (caller, callee, kind) keeps the first
        evidence; a node never depends on itself."""
        if not caller or not callee or caller == callee:
            return
        self.node(caller, caller_kind)
        self.node(callee, callee_kind)
        if any(
            e.caller == caller and e.callee == callee and e.kind == kind
            for e in self.edges
        ):
            return
        self.edges.append(Edge(caller, callee, kind, span_id, fact))

    def add_fault(self, name: str, kind: str, fault: Fault) -> None:
        node = self.node(name, kind)
        if not any(f.hypothesis == fault.hypothesis for f in node.faults):
            node.faults.append(fault)

    def callees(self, name: str) -> list[str]:
        return list(dict.fromkeys(e.callee for e in self.edges if e.caller == name))

    def callers(self, name: str) -> list[str]:
        return list(dict.fromkeys(e.caller for e in self.edges if e.callee == name))

    def depends_on(self, name: str) -> list[str]:
        """Every node `name` depends on, any number of hops down, nearest first."""
        return _reach(name, self.callees)

    def dependants(self, name: str) -> list[str]:
        """Every node that depends on `name`, any number of hops up, nearest first."""
        return _reach(name, self.callers)

    def path(self, source: str, target: str) -> list[Edge]:
        """The shortest chain of edges from `source` down to `target` ([] when none)."""
        if source not in self.nodes or target not in self.nodes or source == target:
            return []
        previous: dict[str, Edge] = {}
        queue = deque([source])
        seen = {source}
        while queue:
            current = queue.popleft()
            for edge in self.edges:
                if edge.caller != current or edge.callee in seen:
                    continue
                previous[edge.callee] = edge
                if edge.callee == target:
                    chain = [edge]
                    while chain[0].caller != source:
                        chain.insert(0, previous[chain[0].caller])
                    return chain
                seen.add(edge.callee)
                queue.append(edge.callee)
        return []

    def blame(self) -> list[Blame]:
        """The roots, most of the failure explained first, then the most direct evidence."""
        faulty = [n.name for n in self.nodes.values() if n.is_faulty]
        observed = {n.name for n in self.nodes.values() if n.faults}
        if self.focus in self.nodes:
            observed.add(self.focus)
        out: list[Blame] = []
        for name in faulty:
            if any(self.nodes[d].is_faulty for d in self.depends_on(name)):
                continue  # explained by a fault below it
            explains = tuple(d for d in self.dependants(name) if d in observed)
            out.append(
                Blame(
                    node=name,
                    explains=explains,
                    share=(len(explains) + 1) / max(len(observed), 1),
                    directness=max(
                        f.confidence for f in self.nodes[name].faults if f.hypothesis
                    ),
                )
            )
        return sorted(out, key=lambda b: (-b.share, -b.directness, b.node))

    def explained_by(self, name: str) -> list[str]:
        """The roots below a faulty node that explain it ([] for a root or a healthy node)."""
        return [b.node for b in self.blame() if name in b.explains]

    def to_dict(self) -> dict[str, Any]:
        """Nodes, edges, the roots and the path from the incident's node to the top root."""
        blame = self.blame()
        top = blame[0].node if blame else ""
        return {
            "focus": self.focus,
            "nodes": [
                {
                    "name": n.name,
                    "kind": n.kind,
                    "faults": [f.to_dict() for f in n.faults],
                }
                for n in self.nodes.values()
            ],
            "edges": [e.to_dict() for e in self.edges],
            "blame": [b.to_dict() for b in blame],
            "path": [
                e.to_dict()
                for e in (self.path(self.focus, top)[:_CHAIN_LIMIT] if top else [])
            ],
        }


def _reach(start: str, step: Any) -> list[str]:
    """Breadth first from `start` along `step` (callees or callers), `start` left out."""
    seen = {start}
    order: list[str] = []
    queue = deque([start])
    while queue:
        for nxt in step(queue.popleft()):
            if nxt not in seen:
                seen.add(nxt)
                order.append(nxt)
                queue.append(nxt)
    return order
