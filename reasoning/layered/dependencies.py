"""The dependency graph of one investigation, built from the evidence (never the incident's words).

Edges, each with the span that showed it:
- a service calls the upstreams, URL services and hosts its error lines name (logs);
- the cluster's edges (`kubernetes.topology`): Ingress → Service → workloads → nodes, a
  workload's failing calls and its environment's hosts, a finding's victims → their cause;
- a database's lock-wait line: the waiting client calls the database, and the database is
  `held_by` the session holding the lock (`lock_holders`);
- a tool server depends on the back end its failed call names (a logs or metrics tool failing
  because its back end is down);
- a service is served at the netcheck targets on its hosts (a probe of `payments.example`
  belongs to `payments`), and a probed host relays to the hosts its answer names (a gateway's
  502 naming the upstream whose TLS failed).
Faults: every hypothesis not ruled out is a fault of its component's node, dated by the first
error line when the logs date it; a failed tool call, a change a log records and a failing probe
are events of their node (observed, not faults).

The incident's own node (`Graph.focus`) is its service resolved onto the graph: the Kubernetes
Service of that name, else its workload, else the bare name when the logs or metrics know it.
"""

from typing import TYPE_CHECKING

from reasoning.layered import lock_holders
from reasoning.layered.candidates import Board, Candidate
from reasoning.layered.graph import Fault, Graph
from reasoning.layered.kubernetes.topology import add_cluster, kind_of
from reasoning.layered.reading import belongs, hosts_in, upstreams, url_services

if TYPE_CHECKING:
    # Typing only: faults imports the rules table, which imports the graph builders.
    from reasoning.layered.kubernetes.faults import Diagnosis

_WORKLOAD_KINDS = ("deployment", "statefulset", "daemonset", "cronjob", "job")


def build_graph(board: Board, diagnosis: "Diagnosis | None" = None) -> Graph:
    """The graph of `board`'s evidence (and of the cluster's, when Kubernetes was read)."""
    graph = Graph()
    if diagnosis is not None:
        add_cluster(graph, diagnosis)
    _logged_calls(graph, board)
    _tool_backends(graph, board)
    _served_at(graph, board)
    _lock_waits(graph, board)
    attach_faults(graph, board)
    for change in board.facts.changes:
        graph.add_fault(
            canonical(graph, change.service),
            "service",
            Fault(
                "",
                "change",
                0.0,
                change.message,
                change.obs.span_id,
                change.fact,
                change.at.isoformat() if change.at else "",
            ),
        )
    graph.focus = canonical(graph, board.service.lower())
    if graph.focus not in graph.nodes:
        graph.focus = ""
    return graph


def attach_faults(graph: Graph, board: Board) -> None:
    """Every hypothesis not ruled out as a fault of its node (those attached before replaced)."""
    for node in graph.nodes.values():
        node.faults = [f for f in node.faults if not f.hypothesis]
    for c in board.candidates.values():
        if c.status != "ruled_out":
            _fault(graph, board, c)


def canonical(graph: Graph, name: str) -> str:
    """The node a bare service name means: its Kubernetes Service, else its workload, else itself."""
    if not name or "/" in name:
        return name
    for kind in ("service", *_WORKLOAD_KINDS):
        if f"{kind}/{name}" in graph.nodes:
            return f"{kind}/{name}"
    return name


def _logged_calls(graph: Graph, board: Board) -> None:
    """A service calls what its error lines name: upstreams, URL services, hosts."""
    for errors, group in board.facts.error_texts():
        caller = canonical(graph, errors.service)
        fact = errors.fact(group)
        named = [*upstreams(group.text), *url_services(group.text)]
        for callee in dict.fromkeys(n.lower() for n in named):
            target = canonical(graph, callee)
            graph.link(
                caller,
                target,
                "calls",
                errors.obs.span_id,
                fact,
                caller_kind=kind_of(caller),
                callee_kind=kind_of(target),
            )
        for host in hosts_in(group.text):
            if any(belongs(host, n) for n in named):
                continue  # the upstream's own host: already its edge
            graph.link(
                caller,
                host,
                "calls",
                errors.obs.span_id,
                fact,
                caller_kind=kind_of(caller),
                callee_kind="host",
            )


def _tool_backends(graph: Graph, board: Board) -> None:
    """A tool server depends on the back end its failed call names; the failure is its event."""
    for failure in board.facts.failures:
        server = failure.obs.server
        if failure.kind == "backend" and failure.backend:
            graph.link(
                f"server/{server}",
                failure.backend,
                "backed_by",
                failure.obs.span_id,
                failure.fact,
                caller_kind="tool_server",
                callee_kind="backend",
            )
        if failure.kind in ("backend", "mcp"):
            graph.add_fault(
                f"server/{server}",
                "tool_server",
                Fault(
                    "",
                    "symptom",
                    0.0,
                    f"{failure.call} fails",
                    failure.obs.span_id,
                    failure.fact,
                ),
            )


def _lock_waits(graph: Graph, board: Board) -> None:
    """A database's lock-wait line: the waiting client calls the database, whose locks are
    held by the holder it names (`lock_holders`), so the holder's fault explains both."""
    for wait in lock_holders.waits(board.inv, board.facts):
        backend = canonical(graph, wait.backend)
        if wait.waiter is not None:
            waiter = canonical(graph, wait.waiter)
            graph.link(
                waiter,
                backend,
                "calls",
                wait.obs.span_id,
                wait.fact,
                caller_kind=kind_of(waiter),
                callee_kind=kind_of(backend),
            )
        if wait.holder is not None:
            holder = canonical(graph, wait.holder)
            graph.link(
                backend,
                holder,
                "held_by",
                wait.obs.span_id,
                wait.fact,
                caller_kind=kind_of(backend),
                callee_kind=kind_of(holder),
            )


def _served_at(graph: Graph, board: Board) -> None:
    """A service is served at the probed hosts that belong to it; a host relays to the hosts its
    answer names (a gateway's 502 naming the upstream that failed); a failing probe is the host's
    event."""
    services = {
        *(n for n in graph.nodes if kind_of(n) in ("service", *_WORKLOAD_KINDS)),
        *(canonical(graph, s) for s in board.facts.health),
        *(canonical(graph, s) for s in board.facts.errors),
        canonical(graph, board.service.lower()),
    }
    for probe in board.facts.probes.values():
        graph.node(probe.host, "host")
        for name in sorted(services):
            bare = name.rpartition("/")[2]
            if bare and bare != probe.host and belongs(probe.host, bare):
                graph.link(
                    name,
                    probe.host,
                    "served_at",
                    probe.obs.span_id,
                    probe.fact,
                    caller_kind=kind_of(name),
                    callee_kind="host",
                )
        for host in hosts_in(probe.body):
            graph.link(
                probe.host,
                host,
                "relays",
                probe.obs.span_id,
                probe.fact,
                caller_kind="host",
                callee_kind="host",
            )
        if probe.layer is not None:
            graph.add_fault(
                probe.host,
                "host",
                Fault("", "symptom", 0.0, probe.fact, probe.obs.span_id, probe.fact),
            )


def _fault(graph: Graph, board: Board, c: Candidate) -> None:
    """The candidate's fault on its component's node, with its first evidence and date."""
    if not c.evidence:
        return
    name = canonical(graph, c.component)
    kind = "backend" if c.layer == "tool_backend" else kind_of(name)
    if c.layer == "mcp":
        name, kind = f"server/{c.component}", "tool_server"
    errors = board.facts.errors.get(c.component)
    at = (
        next((g.first_seen for g in errors.groups if g.first_seen), "")
        if errors
        else ""
    )
    first = c.evidence[0]
    graph.add_fault(
        name,
        kind,
        Fault(c.id, c.status, c.confidence, c.statement, first.span_id, first.fact, at),
    )
