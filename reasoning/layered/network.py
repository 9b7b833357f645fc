"""The network path (rules 2-3): which layer fails first per probed target, and which logs and probes agree.

Each probe is sorted once: a back end's host (rule 4 cites it), an MCP endpoint, a path that works, a 5xx the
service answers itself, a gateway's 5xx (`gateway`), or a direct failure at its first failing layer.
"""

import re
from urllib.parse import urlsplit

from reasoning import layers
from reasoning.layered import host_lines
from reasoning.layered.candidates import Board, Candidate, spans
from reasoning.layered.expiry import expired_while_traffic_fell
from reasoning.layered.facts import FACT_CHARS, ErrorGroup, Errors, Probe
from reasoning.layered.gateway import gateway
from reasoning.layered.reading import (
    GENERIC_LABELS,
    belongs,
    error_classes,
    short,
    upstreams,
)


def network_statement(probe: Probe) -> str:
    """What a failing probe says, in the words of its first failing layer."""
    reason = probe.reason or "failed"
    host = probe.host
    if probe.layer == layers.DNS:
        return f"DNS resolution of {host} fails: {reason}"
    if probe.layer == layers.CONNECT:
        return f"TCP connect to {host} fails: {reason}"
    if probe.layer == layers.TLS:
        return f"TLS handshake with {host} fails: {reason}"
    if reason == "stream_cut":
        return f"the event stream from {host} is cut mid-stream (stream_cut): an idle timeout in the path"
    if probe.status is not None:
        return f"{host} answers HTTP {probe.status} ({reason})"
    return f"HTTP exchange with {host} fails: {reason}"


def network(board: Board) -> None:
    """Each probe's first failing layer is a hypothesis about its host, and lower failures explain the gateways above them."""
    backends = [c for c in board.candidates.values() if c.layer == layers.TOOL_BACKEND]
    apps = {
        c.component: c
        for c in board.candidates.values()
        if c.layer == layers.APPLICATION
    }
    direct: list[tuple[Probe, Candidate]] = []
    gateways: list[Probe] = []
    for probe in board.facts.probes.values():
        if any(b.component in probe.host for b in backends):
            continue  # cited by the tool_backend hypothesis (rule 4)
        if _is_mcp_answer(probe):
            mcp_endpoint(board, probe)
            continue
        if probe.layer is None:
            _passed(board, probe)
            continue
        owner = _owner(apps, probe)
        if owner is not None:
            _answered_by(board, probe, owner)
            continue
        if _is_gateway_answer(probe):
            gateways.append(probe)
            continue
        c = board.get(probe.layer or layers.HTTP, probe.host, network_statement(probe))
        c.cite(probe.obs, probe.fact)
        direct.append((probe, c))
    for probe, c in direct:
        corroborate(board, probe, c)
    for probe in gateways:
        gateway(board, probe, [c for _, c in direct])


def _is_mcp_answer(probe: Probe) -> bool:
    """GET on an MCP (Streamable HTTP) endpoint answers 405: the endpoint's HTTP layer works."""
    return probe.layer == layers.HTTP and probe.status == 405 and _is_mcp_url(probe.url)


def _is_gateway_answer(probe: Probe) -> bool:
    """A 5xx that is a 502/504 or names a lower failure is a hop's answer about what lies behind it."""
    return (
        probe.is_server_error
        and (bool(probe.body_classes) or probe.status in (502, 504))
        and probe.reason != "stream_cut"
    )


def _passed(board: Board, probe: Probe) -> None:
    """A probe that passes every layer rules out the network path to its host."""
    c = board.get(
        layers.HTTP,
        probe.host,
        f"the network path to {probe.host} (dns, connect, tls, http) works",
    )
    c.cite(probe.obs, probe.fact, is_support=False)
    c.status, c.confidence = "ruled_out", 0.05
    c.reason_ruled_out = f"probe_url {probe.url} passed every layer"


def _owner(apps: dict[str, Candidate], probe: Probe) -> str | None:
    """The service whose own-failure hypothesis already cites this probe as its own answer."""
    return next(
        (
            s
            for s, a in apps.items()
            if belongs(probe.host, s)
            and any(e.span_id == probe.obs.span_id for e in a.evidence)
        ),
        None,
    )


def _answered_by(board: Board, probe: Probe, owner: str) -> None:
    """A 5xx the service answers itself is its application failure, not the network's."""
    c = board.get(layers.HTTP, probe.host, network_statement(probe))
    c.cite(probe.obs, probe.fact, is_support=False)
    c.status, c.confidence = "ruled_out", 0.1
    c.reason_ruled_out = f"explained by application:{owner} (the {probe.status} comes from {owner} itself)"


def mcp_endpoint(board: Board, probe: Probe) -> None:
    """An MCP endpoint answering GET with 405 has a working HTTP layer, and it fails at the MCP layer only when logs show JSON-RPC errors from it."""
    c = board.get(
        layers.MCP,
        probe.host,
        f"the MCP endpoint at {probe.host} answers JSON-RPC errors (its HTTP layer works: "
        "GET gets 405, as Streamable HTTP answers)",
    )
    c.cite(probe.obs, probe.fact, is_support=False)
    services: list[str] = []
    for errors, group in board.facts.error_texts():
        if layers.MCP not in error_classes(group.text):
            continue
        if belongs(probe.host, errors.service) or _names_label(group.text, probe.host):
            c.cite(errors.obs, errors.fact(group))
            if errors.service not in services:
                services.append(errors.service)
    if not services:
        c.status, c.confidence = "ruled_out", 0.1
        c.reason_ruled_out = f"{probe.host} answers 405 to GET, as an MCP endpoint does, and no log shows a JSON-RPC error from it"
        return
    c.status = "confirmed" if len(services) >= 2 else "likely"
    c.confidence = 0.85 if len(services) >= 2 else 0.6
    c.chain = [
        board.symptom(),
        *(f"{s} logs JSON-RPC errors about {probe.host}" for s in services[:2]),
        c.statement,
    ]
    c.keywords = ["mcp", "json-rpc", probe.host]


def corroborate(board: Board, probe: Probe, c: Candidate) -> None:
    """A probe's failure is confirmed by another server agreeing: logs naming the host or showing the same failure class (any service's lines a search for the host found, a change to it just before included), or the incident's metrics as its certificate expired (`expiry`)."""
    layer = probe.layer or layers.HTTP
    chain_mid = _cite_logs(board, probe, c, layer)
    _cite_probes(board, probe, c, layer)
    for obs, fact, line in host_lines.agreeing(board.inv, board.facts, probe, layer):
        c.cite(obs, fact)
        chain_mid.append(line)
    fell = expired_while_traffic_fell(board, probe)
    if fell is not None:
        c.cite(fell.health.obs, fell.fact)
        chain_mid.insert(0, fell.line)
    if c.sources - {probe.obs.server}:
        c.status = "confirmed"
        c.confidence = min(0.9 + 0.02 * (spans(c) - 2), 0.97)
    else:
        c.status = "likely"
        c.confidence = 0.65 if board.is_dependency(probe.host) else 0.55
    c.chain = [board.symptom(), *chain_mid[:2], c.statement]
    statuses = sorted(
        {
            str(o.status)
            for o in board.facts.probes.values()
            if o.status and o.status >= 500
        }
    )
    c.keywords = [layer, probe.reason or "", probe.host, *statuses]


def _is_specific(layer: str) -> bool:
    """DNS, connect and TLS failures are specific: the same class in any log agrees, named host or not."""
    return layer in (layers.DNS, layers.CONNECT, layers.TLS)


def _log_agrees(probe: Probe, layer: str, errors: Errors, group: ErrorGroup) -> bool:
    """A log line agrees when it names the host without another failure class, or shows the same specific class."""
    text = group.text
    classes = error_classes(text)
    if _is_specific(layer) and layer in classes:
        return True
    names_host = (
        probe.host in text.lower()
        or host_lines.names_host(probe.host, text)
        or any(belongs(probe.host, name) for name in upstreams(text) if "." not in name)
        # The host's own service, or a line naming it, shows the failure the probe met.
        or (
            layer in classes
            and (belongs(probe.host, errors.service) or _names_label(text, probe.host))
        )
    )
    return names_host and (layer in classes or not classes)


def _cite_logs(board: Board, probe: Probe, c: Candidate, layer: str) -> list[str]:
    """Cite the agreeing log lines; return one chain line per other service that logs them, in order."""
    chain_mid: dict[
        str, str
    ] = {}  # one line per service, the incident's own in the head
    for errors, group in board.facts.error_texts():
        if not _log_agrees(probe, layer, errors, group):
            continue
        c.cite(errors.obs, errors.fact(group))
        if errors.service == board.service:
            continue
        chain_mid.setdefault(
            errors.service,
            f"{errors.service} logs: {short(group.sample or group.signature, 120)}",
        )
        health = board.facts.health.get(errors.service)
        if health is not None and health.verdict in ("degraded", "unhealthy"):
            c.cite(health.obs, health.fact, is_support=False)
    for errors in board.facts.errors.values():
        for group in errors.warnings:
            if not _warning_agrees(probe, layer, group):
                continue
            c.cite(errors.obs, errors.fact(group))
            if errors.service != board.service:
                chain_mid.setdefault(
                    errors.service,
                    f"{errors.service} warns: {short(group.sample or group.signature, 120)}",
                )
    return list(chain_mid.values())


def _warning_agrees(probe: Probe, layer: str, group: ErrorGroup) -> bool:
    """A warning agrees when it is new since the window started, names the probe's host and shows
    its specific failure class (a client's failing calls to it, logged at warn level)."""
    text = group.text
    return (
        group.is_new
        and _is_specific(layer)
        and layer in error_classes(text)
        and (probe.host in text.lower() or _names_label(text, probe.host))
    )


def _cite_probes(board: Board, probe: Probe, c: Candidate, layer: str) -> None:
    """Other probes: a working endpoint on the same port narrows the failure to this path; a hop naming it agrees."""
    for other in board.facts.probes.values():
        if other is probe:
            continue
        if other.layer is None:
            if _port(other.url) == _port(probe.url) and _port(probe.url) is not None:
                # The same endpoint reached another way works: the failure is this path's.
                fact = f"{other.fact} (same port as {probe.host}: that endpoint works)"
                c.cite(other.obs, short(fact, FACT_CHARS), is_support=False)
            continue
        if layer in other.body_classes and (
            probe.host in other.body.lower() or _is_specific(layer)
        ):
            c.cite(other.obs, other.fact)


def _port(url: str) -> int | None:
    try:
        parts = urlsplit(url)
        return parts.port or {"http": 80, "https": 443}.get(parts.scheme)
    except ValueError:
        return None


def _is_mcp_url(url: str) -> bool:
    try:
        path = urlsplit(url).path
    except ValueError:
        return False
    return re.search(r"/mcp(?:/|$)|/sse$|/messages/?$", path) is not None


def _names_label(text: str, host: str) -> bool:
    """True when `text` says the host's first label as a word (orders-mcp for orders-mcp.tools.internal)."""
    label = host.split(".")[0]
    if label in GENERIC_LABELS or "-" not in label:
        return False
    return (
        re.search(rf"(?<![\w.-]){re.escape(label)}(?![\w-])", text.lower()) is not None
    )
