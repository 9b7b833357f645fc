"""A tool's own failure (rule 4): evidence about its back end or about our MCP hop, not the service.

A tool that answers isError names a back end (Prometheus, Loki, the Kubernetes API …) failing; a
call that fails below the tool is the MCP hop. A second server agreeing (a probe of the back end's
host, its own metrics) confirms the back end; one the incident's service is not shown to depend on
(the dependency graph) limits the diagnosis without explaining it, unless the service shows no
failure of its own.
"""

from reasoning import layers
from reasoning.layered.candidates import Board, spans
from reasoning.layered.dependencies import build_graph
from reasoning.layered.facts import FACT_CHARS, ToolFailure
from reasoning.layered.network import network_statement
from reasoning.layered.reading import short
from reasoning.tools import PROBE_URL, SERVICE_HEALTH, domain


def tool_failures(board: Board) -> None:
    """A failing tool is evidence about its back end (tool_backend) or the MCP hop (mcp), not about the service it was asked about."""
    for failure in board.facts.failures:
        if failure.kind == "backend" and failure.backend:
            _backend(board, failure)
        elif failure.kind == "mcp":
            c = board.get(
                layers.MCP,
                failure.obs.server,
                f"the MCP hop to the {failure.obs.server} server fails ({failure.obs.error_code or 'error'})",
            )
            c.cite(
                failure.obs,
                short(
                    f"{failure.call}: {failure.obs.error_layer}/{failure.obs.error_code}: {failure.message}",
                    FACT_CHARS,
                ),
            )
            c.confidence, c.status = 0.25, "likely"
            c.chain = [f"{failure.call} fails before its tool runs", c.statement]
            c.keywords = ["mcp", failure.obs.error_code or "", "transport"]


def _backend(board: Board, failure: ToolFailure) -> None:
    assert failure.backend is not None
    backend = failure.backend
    c = board.get(
        layers.TOOL_BACKEND,
        backend,
        f"the {backend} back end of {failure.obs.tool} is failing (the tool, not the service)",
    )
    c.cite(failure.obs, failure.fact)
    c.keywords = [
        backend,
        *domain(failure.obs.server, failure.obs.tool),
        "back end",
        *(
            w
            for w in ("timeout", "refused", "unavailable")
            if w in failure.message.lower()
        ),
    ]
    if not c.chain:
        c.chain = [
            f"{failure.call} fails: {short(failure.message, 100)}",
            f"the {backend} back end does not answer",
        ]


def backend_support(board: Board) -> None:
    """A failing back end is confirmed when a second server agrees (a probe of its host, its own metrics)."""
    for c in board.candidates.values():
        if c.layer != layers.TOOL_BACKEND:
            continue
        passing = 0
        for probe in board.facts.probes.values():
            if c.component not in probe.host:
                continue
            if probe.layer is None:
                c.cite(probe.obs, probe.fact, is_support=False)
                passing += 1
            else:
                c.cite(probe.obs, probe.fact)
                c.chain.insert(-1, network_statement(probe))
        health = board.facts.health.get(c.component)
        if health is not None and health.verdict in ("degraded", "unhealthy"):
            c.cite(health.obs, health.fact)
        direct = len(
            {e.span_id for e in c.evidence if e.tool not in (PROBE_URL, SERVICE_HEALTH)}
        )
        corroborating = c.sources - {
            e.server for e in c.evidence if e.tool not in (PROBE_URL, SERVICE_HEALTH)
        }
        if corroborating:
            c.status = "confirmed"
            c.confidence = min(0.9 + 0.03 * (spans(c) - 2), 0.97)
        else:
            c.status = "likely"
            c.confidence = 0.6 + 0.05 * min(direct - 1, 2)
        c.confidence -= 0.1 * passing


def backend_relevance(board: Board) -> None:
    """A failing tool back end explains the incident only when it is the incident's service, the dependency graph shows the service depending on it, or the service shows no failure of its own; else it only limits the diagnosis.

    The incident's words decide nothing: what the tool call itself showed does.
    """
    backends = [
        c
        for c in board.candidates.values()
        if c.layer == layers.TOOL_BACKEND and c.component != board.service.lower()
    ]
    if not backends:
        return
    graph = build_graph(board, board.cluster)
    for c in backends:
        if c.component in graph.depends_on(graph.focus) or (
            _tool_failed_on(board, c.component)
            and _service_observed(board)
            and not _service_fails(board)
        ):
            continue
        # Proven to fail, but not shown to be what the incident is about: it limits this
        # diagnosis, it does not explain it.
        c.status, c.confidence = "likely", min(c.confidence, 0.35)
        c.statement += (
            "; it limits this diagnosis and is not shown to cause the incident"
        )


def _tool_failed_on(board: Board, backend: str) -> bool:
    """A tool call of this diagnosis failed because of this back end (its own failure)."""
    return any(
        f.kind == "backend" and f.backend == backend for f in board.facts.failures
    )


def _service_observed(board: Board) -> bool:
    """Another source answered about the incident's service (its health or its log lines): "no
    failure of its own" is then seen, not merely unread because the broken tool was its only source."""
    health = board.facts.health.get(board.service)
    return (
        health is not None and health.verdict != "unknown"
    ) or board.service in board.facts.errors


def _service_fails(board: Board) -> bool:
    """The incident's service shows a failure of its own: failing metrics, or a hypothesis
    outside the tools (its own or on what it depends on)."""
    health = board.facts.health.get(board.service)
    if health is not None and health.verdict in ("degraded", "unhealthy"):
        return True
    return any(
        c.status != "ruled_out" and c.layer not in (layers.TOOL_BACKEND, layers.MCP)
        for c in board.candidates.values()
    )
