"""The deterministic planner: a layered differential diagnosis over an Investigation (seed 000 §1.2).

Round 1 asks the incident's service for health and errors, lists netcheck's targets and searches the
runbooks by the symptoms. Later rounds follow what the answers name (`upstream=NAME`, hosts in error
lines, services in the symptoms), probe the allowed targets layer by layer, and search the runbooks
again with the findings. `conclude` reads which layer fails first where, and ranks hypotheses that
each cite the spans that showed them. Stateless: everything is read from the observations, so a
re-queued diagnosis plans the same calls. Pure Python: no ORM, no I/O, no mcpservers.
"""

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

from diagnosis.engine import layers
from diagnosis.engine.observations import Investigation, Observation, PlannedCall
from diagnosis.engine.report import Evidence, Hypothesis, NextStep, Report, Status

__all__ = ["LayeredPlanner"]

# Tool names this planner knows (servers are found by tool, never by name).
SERVICE_HEALTH = "service_health"
TOP_ERRORS = "top_errors"
SEARCH_LOGS = "search_logs"
LIST_TARGETS = "list_targets"
PROBE_URL = "probe_url"
SEARCH_RUNBOOKS = "search_runbooks"
RESTART_WORKLOAD = "restart_workload"

_WRITES = frozenset({RESTART_WORKLOAD, "scale_workload", "get_action_status"})
_AGENTS = {
    SERVICE_HEALTH: "metrics",
    TOP_ERRORS: "logs",
    SEARCH_LOGS: "logs",
    LIST_TARGETS: "network",
    PROBE_URL: "network",
    SEARCH_RUNBOOKS: "runbook",
    RESTART_WORKLOAD: "action",
}
# What a failing tool's back end serves, as the incident's words would say it.
_TOOL_DOMAIN = {
    TOP_ERRORS: ("log",),
    SEARCH_LOGS: ("log",),
    SERVICE_HEALTH: ("metric", "dashboard"),
    "query_metric": ("metric", "dashboard"),
}

_FACT_CHARS = 300
_RUNBOOK_QUERY_CHARS = 500

# --- reading text -----------------------------------------------------------------------------

_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
_LABEL = re.compile(r"^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_NOT_TLDS = _words(
    "py js ts go rs rb java class json yaml yml toml txt log md html css sh exe"
    " so dll jar gz zip tar pem crt key conf cfg ini xml csv lock"
)
_SERVICE_NAME = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)+$")
# Hyphenated words that are not services.
_NOT_SERVICES = _words(
    "re-run follow-up long-poll so-called built-in up-to-date read-only opt-in"
    " opt-out non-zero e-mail x-request-id rate-limit time-out roll-out sign-in log-in"
)
# First labels of host names too generic to name a service.
_GENERIC_LABELS = _words("api www app web gw gateway internal svc local cluster")
_UPSTREAM = re.compile(
    r"\bupstream[=:]\s*\"?(?![a-z][a-z0-9+.-]*://)([A-Za-z0-9][A-Za-z0-9_.-]*)"
)
_STREAMY = re.compile(
    r"\b(stream|streams|streaming|sse|eventsource|event-stream|server-sent|reconnect\w*|websockets?|long-poll\w*)\b",
    re.IGNORECASE,
)
# Which layer an error text talks about (a text may talk about several).
_CLASS_PATTERNS = {
    layers.DNS: re.compile(
        r"no such host|nxdomain|servfail|server misbehaving|name or service not known|"
        r"temporary failure in name resolution|could not resolve|name resolution|getaddrinfo|\blookup\b",
        re.IGNORECASE,
    ),
    layers.CONNECT: re.compile(
        r"connection refused|econnrefused|connect: |no route to host|network is unreachable|"
        r"connection reset|connect timeout",
        re.IGNORECASE,
    ),
    layers.TLS: re.compile(r"certificate|x509|\btls|\bssl|handshake", re.IGNORECASE),
    layers.HTTP: re.compile(
        r"\b50[234]\b|bad gateway|gateway timeout|service unavailable|upstream timed out|"
        r"idle timeout|stream (?:cut|closed)|reconnect",
        re.IGNORECASE,
    ),
}
# A service failing by itself (not because of what it calls).
_APP_ERROR = re.compile(
    r"QueuePool limit[^,;]*|pool limit|pool exhausted|pool timeout|too many connections|"
    r"too many open files|out of memory|OOMKilled|OutOfMemory\w*|MemoryError|panic:|deadlock|"
    r"Traceback|NullPointerException|segmentation fault|exceeded memory limit|no space left",
    re.IGNORECASE,
)
_NAMES_UPSTREAM = re.compile(r"upstream|gateway|proxy", re.IGNORECASE)
_SATURATION_SIGNALS = frozenset(
    {"db_pool_utilization", "tcp_close_wait", "open_connections"}
)
_SYMPTOM_SIGNALS = frozenset({"error_ratio", "p99_latency_s", "requests_per_s"})
# A tool error that is the caller's (unknown service, bad argument), not its back end failing.
_ARGUMENT_ERROR = re.compile(
    r"no logs for service|no metrics for|known services|not a valid|unknown service|"
    r"not on the allowlist|is not allowed|must be|at most \d+|invalid",
    re.IGNORECASE,
)
_BACKEND_FAILURE = re.compile(
    r"timeout|timed out|did not answer|deadline exceeded|cannot reach|refused|unavailable|"
    r"unreachable|connection reset|answered HTTP 5\d\d|\b50[234]\b|reported failure",
    re.IGNORECASE,
)
_BACKEND_NAME = re.compile(r"\b([A-Z][A-Za-z0-9_-]+) at [a-z][a-z0-9+.-]*://")
_NAMESPACE_LABELS = (
    "namespace",
    "k8s_namespace",
    "kubernetes_namespace",
    "k8s.namespace.name",
)


def _short(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _hosts_in(text: str) -> list[str]:
    """Host names (lowercase DNS names with a word as last label) that `text` mentions."""
    found: list[str] = []
    for token in _TOKEN.findall(text):
        name = token.rstrip(".-_")
        if "." not in name or name != name.lower() or "_" in name:
            continue
        labels = name.split(".")
        last = labels[-1]
        if (
            len(labels) < 2
            or not all(_LABEL.match(label) for label in labels)
            or not last.isalpha()
            or len(last) < 2
            or last in _NOT_TLDS
        ):
            continue
        if name not in found:
            found.append(name)
    return found


def _classes(text: str) -> set[str]:
    return {layer for layer, pattern in _CLASS_PATTERNS.items() if pattern.search(text)}


def _host_of(url: str) -> str | None:
    try:
        host = urlsplit(url).hostname
    except ValueError:
        return None
    return host.lower() if host else None


def _belongs(host: str, name: str) -> bool:
    """True when `host` is `name`'s (a label is the name, or the name is a whole-word part of it)."""
    name = name.lower()
    if not name:
        return False
    return any(
        label == name or label.startswith(f"{name}-") for label in host.split(".")
    )


def _as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _call_key(tool: str, arguments: Mapping[str, Any]) -> str:
    return tool + json.dumps(arguments, sort_keys=True, default=str)


def _failure_text(obs: Observation) -> str:
    return obs.error_message or obs.text or ""


def _args(obs: Observation, name: str) -> str:
    value = obs.arguments.get(name)
    return value if isinstance(value, str) else ""


# --- what the observations say --------------------------------------------------------------------


@dataclass(frozen=True)
class _Probe:
    obs: Observation
    url: str
    host: str
    layer: str | None  # the first failing layer; None: every layer passed
    reason: str | None
    evidence: tuple[str, ...]
    status: int | None
    body: str

    @property
    def fact(self) -> str:
        text = f"probe_url {self.url}: failed_layer={self.layer or 'none'} reason={self.reason}"
        if self.evidence:
            text += f"; {self.evidence[0]}"
        return _short(text, _FACT_CHARS)

    @property
    def is_server_error(self) -> bool:
        return (
            self.layer == layers.HTTP and self.status is not None and self.status >= 500
        )

    @property
    def body_classes(self) -> set[str]:
        return _classes(self.body) - {layers.HTTP}


@dataclass(frozen=True)
class _Health:
    obs: Observation
    service: str
    verdict: str
    summary: str
    findings: tuple[tuple[str, str, str], ...]  # signal, severity, detail

    @property
    def fact(self) -> str:
        return _short(
            f"service_health({self.service}): {self.summary or self.verdict}",
            _FACT_CHARS,
        )

    @property
    def saturation(self) -> list[tuple[str, str, str]]:
        return [f for f in self.findings if f[0] in _SATURATION_SIGNALS]

    def has(self, signal: str) -> bool:
        return any(f[0] == signal for f in self.findings)


@dataclass(frozen=True)
class _ErrorGroup:
    signature: str
    sample: str
    count: int

    @property
    def text(self) -> str:
        return f"{self.signature}\n{self.sample}"


@dataclass(frozen=True)
class _Errors:
    obs: Observation
    service: str
    groups: tuple[_ErrorGroup, ...]

    def fact(self, group: _ErrorGroup) -> str:
        return _short(
            f"top_errors({self.service}): {group.count} line{'' if group.count == 1 else 's'}: "
            f"{group.sample or group.signature}",
            _FACT_CHARS,
        )


@dataclass(frozen=True)
class _ToolFailure:
    obs: Observation
    kind: str  # backend | mcp | argument | refused | other
    message: str
    backend: str | None = None  # tool_backend: the back end's name

    @property
    def call(self) -> str:
        subject = _args(self.obs, "service") or _args(self.obs, "url")
        return f"{self.obs.tool}({subject})" if subject else self.obs.tool

    @property
    def fact(self) -> str:
        return _short(f"{self.call}: isError: {self.message}", _FACT_CHARS)


@dataclass
class _Facts:
    """The observations, read once: first answer per question wins (later ones are verifications)."""

    health: dict[str, _Health] = field(default_factory=dict)
    errors: dict[str, _Errors] = field(default_factory=dict)
    log_lines: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    failures: list[_ToolFailure] = field(default_factory=list)
    targets_listed: bool = False
    targets: list[str] = field(default_factory=list)  # URL entries of the allowlist
    bare_targets: list[str] = field(default_factory=list)  # host entries: not probed
    probes: dict[str, _Probe] = field(default_factory=dict)
    runbooks: list[tuple[str, dict[str, Any]]] = field(
        default_factory=list
    )  # (query, hit)

    @classmethod
    def read(cls, observations: Iterable[Observation]) -> "_Facts":
        facts = cls()
        for obs in observations:
            facts._add(obs)
        return facts

    def _add(self, obs: Observation) -> None:
        if obs.tool in _WRITES:
            return  # actions are the engine's to report (report.actions), not evidence
        if obs.refused:
            self.failures.append(
                _ToolFailure(obs, "refused", obs.error_message or "refused")
            )
            return
        if not obs.is_ok:
            self.failures.append(_classify_failure(obs))
            return
        result = _as_dict(obs.result)
        service = _args(obs, "service")
        if obs.tool == SERVICE_HEALTH and service and service not in self.health:
            self.health[service] = _Health(
                obs=obs,
                service=service,
                verdict=str(result.get("verdict") or "unknown"),
                summary=str(result.get("summary") or ""),
                findings=tuple(
                    (
                        str(f.get("signal", "")),
                        str(f.get("severity", "")),
                        str(f.get("detail", "")),
                    )
                    for f in map(_as_dict, _as_list(result.get("findings")))
                ),
            )
        elif obs.tool == TOP_ERRORS and service and service not in self.errors:
            groups = tuple(
                _ErrorGroup(
                    signature=str(g.get("signature") or ""),
                    sample=str(g.get("sample") or ""),
                    count=g["count"] if isinstance(g.get("count"), int) else 0,
                )
                for g in map(_as_dict, _as_list(result.get("top")))
            )
            self.errors[service] = _Errors(obs=obs, service=service, groups=groups)
        elif obs.tool == SEARCH_LOGS and service:
            self.log_lines.setdefault(service, []).extend(
                map(_as_dict, _as_list(result.get("lines")))
            )
        elif obs.tool == LIST_TARGETS and not self.targets_listed:
            self.targets_listed = True
            for entry in _as_list(result.get("allow")):
                text = str(entry)
                if "://" in text and _host_of(text):
                    self.targets.append(text)
                else:
                    self.bare_targets.append(text)
        elif obs.tool == PROBE_URL:
            url = _args(obs, "url") or str(result.get("url") or "")
            host = _host_of(url)
            if host and url not in self.probes:
                http = _as_dict(result.get("http"))
                status = result.get("status")
                self.probes[url] = _Probe(
                    obs=obs,
                    url=url,
                    host=host,
                    layer=layers.normalize(str(result.get("failed_layer") or "none")),
                    reason=str(result["reason"]) if result.get("reason") else None,
                    evidence=tuple(str(e) for e in _as_list(result.get("evidence"))),
                    status=status if isinstance(status, int) else None,
                    body=str(http.get("body_excerpt") or ""),
                )
        elif obs.tool == SEARCH_RUNBOOKS:
            query = _args(obs, "symptoms")
            for hit in map(_as_dict, _as_list(result.get("results"))):
                if hit.get("uri"):
                    self.runbooks.append((query, hit))

    # Questions about the facts.

    def backend_failures(self) -> list[_ToolFailure]:
        return [f for f in self.failures if f.kind == "backend"]

    def is_backend_down(self, server: str | None) -> bool:
        """True when a call to `server` already failed in its back end: asking it again costs time."""
        return server is not None and any(
            f.obs.server == server for f in self.backend_failures()
        )

    def error_texts(self) -> list[tuple[_Errors, _ErrorGroup]]:
        return [(e, g) for e in self.errors.values() for g in e.groups]

    def namespace_of(self, service: str) -> str | None:
        for line in self.log_lines.get(service, []):
            labels = _as_dict(line.get("labels"))
            for key in _NAMESPACE_LABELS:
                value = labels.get(key)
                if isinstance(value, str) and value:
                    return value
        return None


def _classify_failure(obs: Observation) -> _ToolFailure:
    message = _failure_text(obs)
    layer = obs.error_layer or layers.TOOL_BACKEND
    if layer == layers.MCP:
        return _ToolFailure(obs, "mcp", message or (obs.error_code or "MCP error"))
    if layer == layers.POLICY:
        return _ToolFailure(obs, "refused", message or "refused by policy")
    if _ARGUMENT_ERROR.search(message) and not _BACKEND_NAME.search(message):
        return _ToolFailure(obs, "argument", message)
    if _BACKEND_FAILURE.search(message):
        match = _BACKEND_NAME.search(message)
        backend = match.group(1).lower() if match else f"{obs.server} back end"
        return _ToolFailure(obs, "backend", message, backend=backend)
    return _ToolFailure(obs, "other", message)


# --- the hypotheses ----------------------------------------------------------------------------


_STATUSES: dict[str, Status] = {
    "confirmed": "confirmed",
    "likely": "likely",
    "ruled_out": "ruled_out",
}


@dataclass
class _Candidate:
    """A hypothesis being built: its evidence, which servers agree, words for the runbook search."""

    layer: str
    component: str
    statement: str
    confidence: float = 0.0
    status: str = "likely"
    evidence: list[Evidence] = field(default_factory=list)
    sources: set[str] = field(default_factory=set)  # servers whose answers support it
    chain: list[str] = field(default_factory=list)
    reason_ruled_out: str | None = None
    keywords: list[str] = field(default_factory=list)

    def cite(self, obs: Observation, fact: str, *, is_support: bool = True) -> None:
        if any(e.span_id == obs.span_id and e.fact == fact for e in self.evidence):
            return
        self.evidence.append(Evidence(obs.span_id, obs.server, obs.tool, fact))
        if is_support:
            self.sources.add(obs.server)

    @property
    def id(self) -> str:
        return f"{self.layer}:{self.component}"

    def hypothesis(self) -> Hypothesis:
        status = _STATUSES.get(self.status, "likely")
        return Hypothesis(
            layer=self.layer,
            component=self.component,
            statement=self.statement,
            confidence=round(min(max(self.confidence, 0.0), 1.0), 2),
            status=status,
            evidence=list(self.evidence),
            causal_chain=list(self.chain),
            reason_ruled_out=self.reason_ruled_out,
        )


def _network_statement(probe: _Probe) -> str:
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


class _Analysis:
    """Hypotheses from the facts (the rules of the module docstring, in order)."""

    def __init__(self, investigation: Investigation, facts: _Facts) -> None:
        self.inv = investigation
        self.facts = facts
        self.service = investigation.incident.service
        self.words = _incident_text(investigation).lower()
        self.candidates: dict[str, _Candidate] = {}
        self.open_questions: list[str] = []
        self.leaks: set[str] = set()  # services whose metrics show a connection leak
        self._run()

    def _get(self, layer: str, component: str, statement: str) -> _Candidate:
        key = f"{layer}:{component}"
        if key not in self.candidates:
            self.candidates[key] = _Candidate(layer, component, statement)
        return self.candidates[key]

    def _run(self) -> None:
        self._tool_failures()
        self._applications()
        self._backend_support()
        self._network()
        self._healthy_services()
        self._questions()

    # Rule 4: a failing tool is evidence about its back end (or our MCP hop), not the service.
    def _tool_failures(self) -> None:
        for failure in self.facts.failures:
            if failure.kind == "backend" and failure.backend:
                self._backend(failure)
            elif failure.kind == "mcp":
                c = self._get(
                    layers.MCP,
                    failure.obs.server,
                    f"the MCP hop to the {failure.obs.server} server fails ({failure.obs.error_code or 'error'})",
                )
                c.cite(
                    failure.obs,
                    _short(
                        f"{failure.call}: {failure.obs.error_layer}/{failure.obs.error_code}: {failure.message}",
                        _FACT_CHARS,
                    ),
                )
                c.confidence, c.status = 0.25, "likely"
                c.chain = [f"{failure.call} fails before its tool runs", c.statement]
                c.keywords = ["mcp", failure.obs.error_code or "", "transport"]

    def _backend(self, failure: _ToolFailure) -> None:
        assert failure.backend is not None
        backend = failure.backend
        c = self._get(
            layers.TOOL_BACKEND,
            backend,
            f"the {backend} back end of {failure.obs.tool} is failing (the tool, not the service)",
        )
        c.cite(failure.obs, failure.fact)
        c.keywords = [
            backend,
            *_TOOL_DOMAIN.get(failure.obs.tool, ()),
            "back end",
            *(
                w
                for w in ("timeout", "refused", "unavailable")
                if w in failure.message.lower()
            ),
        ]
        if not c.chain:
            c.chain = [
                f"{failure.call} fails: {_short(failure.message, 100)}",
                f"the {backend} back end does not answer",
            ]

    def _backend_support(self) -> None:
        """Probes of the back end's hosts and its own metrics support the tool_backend hypotheses."""
        for c in self.candidates.values():
            if c.layer != layers.TOOL_BACKEND:
                continue
            passing = 0
            for probe in self.facts.probes.values():
                if c.component not in probe.host:
                    continue
                if probe.layer is None:
                    c.cite(probe.obs, probe.fact, is_support=False)
                    passing += 1
                else:
                    c.cite(probe.obs, probe.fact)
                    c.chain.insert(-1, _network_statement(probe))
            health = self.facts.health.get(c.component)
            if health is not None and health.verdict in ("degraded", "unhealthy"):
                c.cite(health.obs, health.fact)
            direct = len(
                {
                    e.span_id
                    for e in c.evidence
                    if e.tool not in (PROBE_URL, SERVICE_HEALTH)
                }
            )
            corroborating = c.sources - {
                e.server
                for e in c.evidence
                if e.tool not in (PROBE_URL, SERVICE_HEALTH)
            }
            is_relevant = (
                c.component == self.service.lower()
                or re.search(rf"\b{re.escape(c.component)}\b", self.words) is not None
                or any(
                    re.search(rf"\b{word}s?\b", self.words)
                    for e in c.evidence
                    for word in _TOOL_DOMAIN.get(e.tool, ())
                )
            )
            if corroborating:
                c.status = "confirmed"
                c.confidence = min(0.9 + 0.03 * (_spans(c) - 2), 0.97)
            else:
                c.status = "likely"
                c.confidence = 0.6 + 0.05 * min(direct - 1, 2)
            c.confidence -= 0.1 * passing
            if not is_relevant:
                # Proven to fail, but not shown to be what the incident is about: it limits this
                # diagnosis, it does not explain it.
                c.status, c.confidence = "likely", min(c.confidence, 0.35)
                c.statement += (
                    "; it limits this diagnosis and is not shown to cause the incident"
                )

    # Rule 5: the service fails by itself (saturation, leak, its own errors, its own 5xx).
    def _applications(self) -> None:
        services = [self.service, *(s for s in self.facts.health if s != self.service)]
        services += [s for s in self.facts.errors if s not in services]
        for service in services:
            self._application(service)

    def _application(self, service: str) -> None:
        health = self.facts.health.get(service)
        errors = self.facts.errors.get(service)
        parts: list[str] = []
        support: list[tuple[Observation, str]] = []
        # Symptom first, cause last: its endpoint's answer, its own error, its saturation.
        answer: list[str] = []
        logged: list[str] = []
        saturated: list[str] = []
        keywords: list[str] = [service]
        for probe in self.facts.probes.values():
            if not (_belongs(probe.host, service) and probe.is_server_error):
                continue
            if (
                probe.status in (502, 504)
                or probe.body_classes
                or _NAMES_UPSTREAM.search(probe.body)
            ):
                continue  # a gateway's answer about what lies behind it
            support.append((probe.obs, probe.fact))
            answer.append(
                f"{probe.host} answers HTTP {probe.status} from {service} itself"
            )
            parts.append(f"its endpoint answers HTTP {probe.status} itself")
            keywords.append(f"http_{probe.status}")
        own_error: str | None = None
        for group in errors.groups if errors is not None else ():
            match = _APP_ERROR.search(group.sample) or _APP_ERROR.search(
                group.signature
            )
            if (
                match is None
                or _NAMES_UPSTREAM.search(group.text)
                or _classes(group.text) & {layers.DNS, layers.TLS}
            ):
                continue
            assert errors is not None
            own_error = match.group(0)
            support.append((errors.obs, errors.fact(group)))
            logged.append(
                f"{service} logs: {_short(group.sample or group.signature, 120)}"
            )
            parts.append(f"its logs show {_short(own_error, 60)}")
            keywords.append(own_error)
            break
        if health is not None and health.saturation:
            details = "; ".join(f[2] for f in health.saturation)
            support.append(
                (
                    health.obs,
                    _short(f"service_health({service}): {details}", _FACT_CHARS),
                )
            )
            saturated.append(f"{service} saturates: {_short(details, 140)}")
            parts.append("its own metrics show saturation")
            keywords += [f[0] for f in health.saturation]
            if health.has("tcp_close_wait") and (
                health.has("db_pool_utilization") or health.has("open_connections")
            ):
                self.leaks.add(service)
                keywords += ["connection leak", "CLOSE_WAIT"]
        if not support:
            return
        c = self._get(
            layers.APPLICATION, service, f"{service} itself fails: " + ", ".join(parts)
        )
        for obs, fact in support:
            c.cite(obs, fact)
        symptoms = (
            [f for f in health.findings if f[0] in _SYMPTOM_SIGNALS] if health else []
        )
        if health is not None and symptoms:
            context = f"service_health({service}): " + "; ".join(f[2] for f in symptoms)
            c.cite(health.obs, _short(context, _FACT_CHARS), is_support=False)
        agreeing = len(c.sources)
        if agreeing >= 2:
            c.status = "confirmed"
            c.confidence = min(
                0.8 + 0.05 * (agreeing - 2) + 0.05 * (own_error is not None), 0.95
            )
        else:
            c.status = "likely"
            c.confidence = 0.45 if health is not None and health.saturation else 0.4
        head = (
            f"{service}: " + "; ".join(f[2] for f in symptoms)
            if symptoms
            else self._symptom()
        )
        c.chain = [_short(head, 160), *answer[:1], *logged, *saturated]
        c.keywords = keywords

    # Rules 2-3: which layer fails first per target; lower failures explain higher ones.
    def _network(self) -> None:
        backends = [
            c for c in self.candidates.values() if c.layer == layers.TOOL_BACKEND
        ]
        apps = {
            c.component: c
            for c in self.candidates.values()
            if c.layer == layers.APPLICATION
        }
        direct: list[tuple[_Probe, _Candidate]] = []
        gateways: list[_Probe] = []
        for probe in self.facts.probes.values():
            if any(b.component in probe.host for b in backends):
                continue  # cited by the tool_backend hypothesis (rule 4)
            if probe.layer is None:
                c = self._get(
                    layers.HTTP,
                    probe.host,
                    f"the network path to {probe.host} (dns, connect, tls, http) works",
                )
                c.cite(probe.obs, probe.fact, is_support=False)
                c.status, c.confidence = "ruled_out", 0.05
                c.reason_ruled_out = f"probe_url {probe.url} passed every layer"
                continue
            owner = next(
                (
                    s
                    for s, a in apps.items()
                    if _belongs(probe.host, s)
                    and any(e.span_id == probe.obs.span_id for e in a.evidence)
                ),
                None,
            )
            if owner is not None:
                c = self._get(layers.HTTP, probe.host, _network_statement(probe))
                c.cite(probe.obs, probe.fact, is_support=False)
                c.status, c.confidence = "ruled_out", 0.1
                c.reason_ruled_out = f"explained by application:{owner} (the {probe.status} comes from {owner} itself)"
                continue
            if (
                probe.is_server_error
                and (probe.body_classes or probe.status in (502, 504))
                and probe.reason != "stream_cut"
            ):
                gateways.append(probe)
                continue
            c = self._get(
                probe.layer or layers.HTTP, probe.host, _network_statement(probe)
            )
            c.cite(probe.obs, probe.fact)
            direct.append((probe, c))
        for probe, c in direct:
            self._corroborate(probe, c)
        for probe in gateways:
            self._gateway(probe, [c for _, c in direct])

    def _corroborate(self, probe: _Probe, c: _Candidate) -> None:
        """Logs that name the host or show the same failure class, from any service, agree."""
        layer = probe.layer or layers.HTTP
        specific = layer in (layers.DNS, layers.CONNECT, layers.TLS)
        chain_mid: dict[
            str, str
        ] = {}  # one line per service, the incident's own in the head
        for errors, group in self.facts.error_texts():
            text = group.text
            classes = _classes(text)
            names_host = probe.host in text.lower() or any(
                _belongs(probe.host, name)
                for name in _upstreams(text)
                if "." not in name
            )
            if not (
                (names_host and (layer in classes or not classes))
                or (specific and layer in classes)
            ):
                continue
            c.cite(errors.obs, errors.fact(group))
            if errors.service != self.service:
                chain_mid.setdefault(
                    errors.service,
                    f"{errors.service} logs: {_short(group.sample or group.signature, 120)}",
                )
                health = self.facts.health.get(errors.service)
                if health is not None and health.verdict in ("degraded", "unhealthy"):
                    c.cite(health.obs, health.fact, is_support=False)
        for other in self.facts.probes.values():
            if other is probe:
                continue
            if other.layer is None:
                if (
                    _port(other.url) == _port(probe.url)
                    and _port(probe.url) is not None
                ):
                    # The same endpoint reached another way works: the failure is this path's.
                    fact = (
                        f"{other.fact} (same port as {probe.host}: that endpoint works)"
                    )
                    c.cite(other.obs, _short(fact, _FACT_CHARS), is_support=False)
                continue
            if layer in other.body_classes and (
                probe.host in other.body.lower() or specific
            ):
                c.cite(other.obs, other.fact)
        independent = c.sources - {probe.obs.server}
        if independent:
            c.status = "confirmed"
            c.confidence = min(0.9 + 0.02 * (_spans(c) - 2), 0.97)
        else:
            c.status = "likely"
            c.confidence = 0.65 if self._is_dependency(probe.host) else 0.55
        c.chain = [self._symptom(), *list(chain_mid.values())[:2], c.statement]
        statuses = sorted(
            {
                str(o.status)
                for o in self.facts.probes.values()
                if o.status and o.status >= 500
            }
        )
        c.keywords = [layer, probe.reason or "", probe.host, *statuses]

    def _gateway(self, probe: _Probe, direct: list[_Candidate]) -> None:
        """An HTTP 5xx from a hop: explained by a lower failure if one shows, else a weaker lead."""
        hop = f"{probe.host} answers HTTP {probe.status}" + (
            f" naming a {'/'.join(sorted(probe.body_classes))} failure behind it"
            if probe.body_classes
            else ""
        )
        named = [h for h in _hosts_in(probe.body) if h != probe.host]
        cause = next((c for c in direct if c.component in named), None) or next(
            (
                c
                for c in sorted(direct, key=lambda c: layers.rank(c.layer))
                if c.layer in probe.body_classes
            ),
            None,
        )
        c = self._get(layers.HTTP, probe.host, hop)
        c.cite(probe.obs, probe.fact, is_support=False)
        for errors, group in self.facts.error_texts():
            if _belongs(probe.host, errors.service) or any(
                _belongs(probe.host, u) for u in _upstreams(group.text)
            ):
                c.cite(errors.obs, errors.fact(group), is_support=False)
        if cause is not None:
            cause.cite(probe.obs, probe.fact, is_support=False)
            if len(cause.chain) >= 2 and hop not in cause.chain:
                cause.chain.insert(len(cause.chain) - 1, hop)
            c.status, c.confidence = "ruled_out", 0.2
            c.reason_ruled_out = f"explained by {cause.id}: {cause.statement}"
            c.chain = [self._symptom(), hop, cause.statement]
            return
        if probe.body_classes:
            # The hop names a lower failure we could not probe: that failure is the lead.
            layer = min(probe.body_classes, key=layers.rank)
            component = named[0] if named else f"upstream of {probe.host}"
            inferred = self._get(
                layer,
                component,
                f"{layer} failure between {probe.host} and {component}, as {probe.host}'s answer says",
            )
            inferred.cite(probe.obs, probe.fact)
            for errors, group in self.facts.error_texts():
                if layer in _classes(group.text):
                    inferred.cite(errors.obs, errors.fact(group))
            inferred.status = "likely"
            inferred.confidence = 0.7 if len(inferred.sources) >= 2 else 0.55
            inferred.chain = [self._symptom(), hop, inferred.statement]
            inferred.keywords = [
                layer,
                probe.reason or "",
                component,
                str(probe.status),
            ]
            c.status, c.confidence = "likely", 0.35
            c.chain = [self._symptom(), hop, inferred.statement]
            self.open_questions.append(
                f"{component} is not a netcheck target: the {layer} failure {probe.host} reports could not be probed directly"
            )
        else:
            c.status, c.confidence = (
                "likely",
                0.5 if self._is_dependency(probe.host) else 0.4,
            )
            c.chain = [self._symptom(), hop]
        c.keywords = [layers.HTTP, probe.reason or "", probe.host]

    def _healthy_services(self) -> None:
        for service, health in self.facts.health.items():
            if (
                health.verdict != "healthy"
                or f"{layers.APPLICATION}:{service}" in self.candidates
            ):
                continue
            errors = self.facts.errors.get(service)
            if errors is not None and errors.groups:
                continue
            c = self._get(layers.APPLICATION, service, f"{service} itself fails")
            c.cite(health.obs, health.fact, is_support=False)
            reason = f"service_health({service}) is healthy"
            if errors is not None:
                c.cite(
                    errors.obs,
                    f"top_errors({service}): no error lines",
                    is_support=False,
                )
                reason += " and its logs show no errors"
            c.status, c.confidence, c.reason_ruled_out = "ruled_out", 0.05, reason

    def _questions(self) -> None:
        for failure in self.facts.failures:
            if failure.kind == "backend":
                text = f"{failure.call} could not be checked: its back end failed ({_short(failure.message, 160)})"
            elif failure.kind == "argument":
                text = f"{failure.call} answered nothing usable: {_short(failure.message, 160)}"
            elif failure.kind == "refused":
                text = f"{failure.call} was not run: {_short(failure.message, 160)}"
            else:
                text = f"{failure.call} failed ({failure.obs.error_layer or 'error'}): {_short(failure.message, 160)}"
            self.open_questions.append(text)
        for service, health in self.facts.health.items():
            if health.verdict == "unknown":
                self.open_questions.append(
                    f"service_health({service}) has no verdict: {_short(health.summary or 'no metrics for it', 160)}"
                )
        if not self.inv.find_tool(PROBE_URL):
            self.open_questions.append(
                "no netcheck probe tool: no network path was checked"
            )
        elif self.facts.targets_listed and not self.facts.targets:
            extra = (
                f" (host entries only: {', '.join(self.facts.bare_targets)})"
                if self.facts.bare_targets
                else ""
            )
            self.open_questions.append(
                f"netcheck lists no URL target{extra}: no network path was probed"
            )
        logs = self.inv.find_tool(TOP_ERRORS)
        if logs is not None and self.facts.is_backend_down(logs.server):
            for dep in _dependency_services(self.inv, self.facts):
                if dep not in self.facts.errors:
                    self.open_questions.append(
                        f"the logs of {dep} were not read: the logs back end is failing"
                    )
        probed = {p.host for p in self.facts.probes.values()}
        for host in self._named_hosts():
            if host not in probed and not any(
                _host_of(t) == host for t in self.facts.targets
            ):
                self.open_questions.append(
                    f"{host} is named in the errors but is not a netcheck target"
                )

    # Helpers.

    def _symptom(self) -> str:
        errors = self.facts.errors.get(self.service)
        if errors is not None and errors.groups:
            group = errors.groups[0]
            return f"{self.service}: {_short(group.sample or group.signature, 120)}"
        health = self.facts.health.get(self.service)
        if health is not None and health.verdict in ("degraded", "unhealthy"):
            return f"{self.service}: {_short(health.summary, 120)}"
        symptoms = self.inv.incident.symptoms
        return (
            _short(symptoms[0], 120)
            if symptoms
            else _short(self.inv.incident.title, 120)
        )

    def _named_hosts(self) -> list[str]:
        hosts: list[str] = []
        for _, group in self.facts.error_texts():
            hosts += [h for h in _hosts_in(group.text) if h not in hosts]
        return hosts

    def _is_dependency(self, host: str) -> bool:
        if host in self.words or host in self._named_hosts():
            return True
        return any(
            _belongs(host, s) for s in _dependency_services(self.inv, self.facts)
        )

    def ranked(self) -> list[Hypothesis]:
        return Report(
            hypotheses=[c.hypothesis() for c in self.candidates.values()]
        ).ranked()


def _port(url: str) -> int | None:
    try:
        parts = urlsplit(url)
        return parts.port or {"http": 80, "https": 443}.get(parts.scheme)
    except ValueError:
        return None


def _spans(c: "_Candidate") -> int:
    return len({e.span_id for e in c.evidence})


def _upstreams(text: str) -> list[str]:
    names = []
    for raw in _UPSTREAM.findall(text):
        name = raw.rstrip(".:-")
        if name and not re.fullmatch(r"[\d.]+", name) and name not in names:
            names.append(name.lower())
    return names


def _incident_text(inv: Investigation) -> str:
    return " ".join([inv.incident.title, *inv.incident.symptoms])


def _dependency_services(inv: Investigation, facts: _Facts) -> list[str]:
    """Services the incident depends on, in the order they came up: symptoms, then logs (rule 2)."""
    service = inv.incident.service.lower()
    found: list[str] = []

    def add(name: str) -> None:
        name = name.lower()
        if name != service and name not in found and name not in _NOT_SERVICES:
            found.append(name)

    words: list[str] = []
    for symptom in inv.incident.symptoms:
        for raw in symptom.split():
            word = raw.strip("'\"()[]{},;:!?`")
            if word and "/" not in word and "." not in word and "=" not in word:
                words.append(word)
    for word in words:
        if _SERVICE_NAME.match(word):
            add(word)
    lowered = {w.lower() for w in words}
    for url in facts.targets:
        label = (_host_of(url) or "").split(".")[0]
        if label and label not in _GENERIC_LABELS and label in lowered:
            add(label)
    for name in [service, *found]:
        errors = facts.errors.get(name)
        if errors is None:
            continue
        for group in errors.groups:
            for upstream in _upstreams(group.text):
                if "." not in upstream:
                    add(upstream)
    return found


# --- the planner ---------------------------------------------------------------------------------


class LayeredPlanner:
    """Plans rounds of read-only calls and builds the report from what they showed (the `Planner`)."""

    def __init__(
        self,
        *,
        max_rounds: int = 6,
        max_calls: int = 40,
        max_probes: int = 8,
        max_dependencies: int = 4,
        stream_watch_s: float = 6.0,
        probe_timeout_s: float | None = None,
        max_window: timedelta = timedelta(hours=6),
        runbook_limit: int = 3,
    ) -> None:
        self.max_rounds = max_rounds
        self.max_calls = max_calls
        self.max_probes = max_probes
        self.max_dependencies = max_dependencies
        self.stream_watch_s = stream_watch_s
        self.probe_timeout_s = probe_timeout_s
        self.max_window = max_window
        self.runbook_limit = runbook_limit

    # Rounds.

    def next_round(self, investigation: Investigation) -> list[PlannedCall]:
        """The calls worth asking now that were not asked yet; [] when nothing new is worth it.

        `investigation.round` is the number of rounds already run.
        """
        inv = investigation
        budget = self.max_calls - len(inv.observations)
        if inv.round >= self.max_rounds or budget <= 0:
            return []
        facts = _Facts.read(inv.observations)
        asked = {_call_key(o.tool, o.arguments) for o in inv.observations}
        calls = self._fresh(self._wanted(inv, facts), asked)
        if not calls:
            calls = self._fresh(self._findings_search(inv, facts), asked)
        return calls[:budget]

    def _fresh(
        self, calls: Iterable[PlannedCall | None], asked: set[str]
    ) -> list[PlannedCall]:
        out: list[PlannedCall] = []
        for call in calls:
            if call is None:
                continue
            key = _call_key(call.tool, call.arguments)
            if key not in asked:
                asked.add(key)
                out.append(call)
        return out

    def _call(
        self, inv: Investigation, tool: str, arguments: dict[str, Any], why: str
    ) -> PlannedCall | None:
        info = inv.find_tool(tool)
        if info is None:
            return None
        return PlannedCall(
            agent=_AGENTS.get(tool, "metrics"),
            server=info.server,
            tool=tool,
            arguments=arguments,
            why=why,
        )

    def _window(self, inv: Investigation) -> dict[str, str]:
        start = inv.incident.window_start or "now-1h"
        end = inv.incident.window_end or "now"
        parsed_start, parsed_end = _parse_time(start), _parse_time(end)
        if parsed_start and parsed_end and parsed_end - parsed_start > self.max_window:
            start = (parsed_end - self.max_window).isoformat().replace("+00:00", "Z")
        return {"start": start, "end": end}

    def _wanted(self, inv: Investigation, facts: _Facts) -> list[PlannedCall | None]:
        service = inv.incident.service
        window = self._window(inv)
        symptoms = _short(" ".join(inv.incident.symptoms) or inv.incident.title, 3000)
        calls: list[PlannedCall | None] = [
            self._call(
                inv,
                SERVICE_HEALTH,
                {"service": service, **window},
                f"health of {service}, the incident's service",
            ),
            self._call(
                inv,
                TOP_ERRORS,
                {"service": service, **window},
                f"what {service} logs as errors",
            ),
            self._call(inv, LIST_TARGETS, {}, "which network paths netcheck may probe"),
            self._call(
                inv,
                SEARCH_RUNBOOKS,
                {"symptoms": symptoms, "limit": self.runbook_limit},
                "runbooks for the symptoms",
            ),
        ]
        if not inv.observations:
            return calls
        logs = inv.find_tool(TOP_ERRORS)
        logs_down = facts.is_backend_down(logs.server if logs else None)
        for dep in _dependency_services(inv, facts)[: self.max_dependencies]:
            why = f"{dep} is named by the incident or {service}'s errors"
            calls.append(
                self._call(inv, SERVICE_HEALTH, {"service": dep, **window}, why)
            )
            if not logs_down:
                calls.append(
                    self._call(inv, TOP_ERRORS, {"service": dep, **window}, why)
                )
        calls += self._probes(inv, facts)
        analysis = _Analysis(inv, facts)
        for c in analysis.candidates.values():
            if (
                c.layer != layers.APPLICATION
                or c.status == "ruled_out"
                or c.component in facts.log_lines
            ):
                continue
            errors = facts.errors.get(c.component)
            own = next(
                (
                    m
                    for g in (errors.groups if errors else ())
                    if (m := _APP_ERROR.search(g.sample or g.signature))
                ),
                None,
            )
            search = inv.find_tool(SEARCH_LOGS)
            # The error's words up to its first number: the lines' numbers vary, the words do not.
            query = re.split(r"\d", own.group(0))[0].strip(" :=,") if own else ""
            if (
                query
                and search is not None
                and not facts.is_backend_down(search.server)
            ):
                calls.append(
                    self._call(
                        inv,
                        SEARCH_LOGS,
                        {
                            "service": c.component,
                            "query": query[:100],
                            **window,
                            "limit": 5,
                        },
                        f"lines of {c.component}'s own error, for their labels (pod, namespace)",
                    )
                )
        return calls

    def _probes(self, inv: Investigation, facts: _Facts) -> list[PlannedCall | None]:
        asked = sum(1 for o in inv.observations if o.tool == PROBE_URL)
        room = self.max_probes - asked
        if room <= 0 or not facts.targets:
            return []
        deps = _dependency_services(inv, facts)
        named = set(_hosts_in(_incident_text(inv)))
        for _, group in facts.error_texts():
            named.update(_hosts_in(group.text))

        def priority(url: str) -> int:
            host = _host_of(url) or ""
            if host in named:
                return 0
            if any(_belongs(host, d) for d in deps):
                return 1
            if _belongs(host, inv.incident.service):
                return 2
            return 3

        arguments: dict[str, Any] = {}
        if self.probe_timeout_s is not None:
            arguments["timeout_s"] = self.probe_timeout_s
        if _STREAMY.search(_incident_text(inv)):
            arguments["stream_s"] = self.stream_watch_s
        ordered = sorted(
            (u for u in facts.targets if u not in facts.probes), key=priority
        )
        return [
            self._call(
                inv,
                PROBE_URL,
                {"url": url, **arguments},
                f"which layer fails first on the way to {_host_of(url)}",
            )
            for url in ordered[:room]
        ]

    def _findings_search(
        self, inv: Investigation, facts: _Facts
    ) -> list[PlannedCall | None]:
        """Rule 7: once the evidence stops growing, search the runbooks with what it showed."""
        query = self._findings_query(_Analysis(inv, facts))
        if not query:
            return []
        return [
            self._call(
                inv,
                SEARCH_RUNBOOKS,
                {"symptoms": query, "limit": self.runbook_limit},
                "runbooks for the findings, not only the symptoms",
            )
        ]

    def _findings_query(self, analysis: _Analysis) -> str:
        words: list[str] = []
        leads = [c for c in analysis.candidates.values() if c.status != "ruled_out"]
        leads.sort(
            key=lambda c: (c.status != "confirmed", -c.confidence, layers.rank(c.layer))
        )
        # A confirmed lead speaks for itself; otherwise the two strongest share the query.
        for c in leads[: 1 if leads and leads[0].status == "confirmed" else 2]:
            for word in c.keywords:
                if word and word not in words:
                    words.append(word)
        return _short(" ".join(words), _RUNBOOK_QUERY_CHARS)

    # The report.

    def conclude(self, investigation: Investigation) -> Report:
        """The report the observations support, ranked; honest when nothing is decisive (rule 8)."""
        inv = investigation
        facts = _Facts.read(inv.observations)
        analysis = _Analysis(inv, facts)
        report = Report(
            hypotheses=analysis.ranked(),
            open_questions=list(dict.fromkeys(analysis.open_questions)),
            tool_calls=sum(1 for o in inv.observations if not o.refused),
        )
        report.next_steps = _next_steps(
            facts, analysis, report.top, runbooks=self.runbook_limit
        )
        report.partial = bool(self.next_round(inv))
        report.summary = _summary(report, inv)
        return report

    def actions(
        self, investigation: Investigation, report: Report
    ) -> list[PlannedCall]:
        """A restart, as a stop-gap, of a workload a confirmed application hypothesis shows leaking (rule 9)."""
        inv = investigation
        facts = _Facts.read(inv.observations)
        analysis = _Analysis(inv, facts)
        calls: list[PlannedCall] = []
        for h in report.hypotheses:
            if (
                h.layer != layers.APPLICATION
                or h.status != "confirmed"
                or h.component not in analysis.leaks
            ):
                continue
            call = self._call(
                inv,
                RESTART_WORKLOAD,
                {
                    "namespace": facts.namespace_of(h.component) or "default",
                    "name": h.component,
                },
                f"stop-gap for {h.id} ({h.statement}): a restart releases the leaked connections until the leak is fixed",
            )
            if call is not None:
                calls.append(call)
        return calls

    def verify(
        self, investigation: Investigation, action: PlannedCall
    ) -> list[PlannedCall]:
        """After an action: the workload's health over the last minutes and a probe of its endpoint."""
        inv = investigation
        name = str(action.arguments.get("name") or inv.incident.service)
        facts = _Facts.read(inv.observations)
        calls: list[PlannedCall | None] = [
            self._call(
                inv,
                SERVICE_HEALTH,
                {"service": name, "start": "now-10m", "end": "now"},
                f"is {name} healthy again after {action.tool}",
            )
        ]
        for url in facts.targets:
            host = _host_of(url) or ""
            if _belongs(host, name):
                calls.append(
                    self._call(
                        inv,
                        PROBE_URL,
                        {"url": url},
                        f"does {host} answer again after {action.tool}",
                    )
                )
                break
        return [c for c in calls if c is not None]

    def effect(self, investigation: Investigation, action: PlannedCall) -> str | None:
        """What the verification calls showed (the latest health and probe of the action's target)."""
        name = str(action.arguments.get("name") or investigation.incident.service)
        parts: list[str] = []
        for obs in reversed(investigation.observations):
            result = _as_dict(obs.result)
            if (
                obs.tool == SERVICE_HEALTH
                and _args(obs, "service") == name
                and obs.is_ok
            ):
                parts.append(
                    f"{name} {result.get('verdict', 'unknown')}: {_short(str(result.get('summary') or ''), 120)}"
                )
                break
        for obs in reversed(investigation.observations):
            if (
                obs.tool == PROBE_URL
                and obs.is_ok
                and _belongs(_host_of(_args(obs, "url")) or "", name)
            ):
                result = _as_dict(obs.result)
                parts.append(
                    f"probe {_args(obs, 'url')}: failed_layer={result.get('failed_layer')} reason={result.get('reason')}"
                )
                break
        return "; ".join(parts) or None


def _parse_time(value: str) -> datetime | None:
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _next_steps(
    facts: _Facts, analysis: _Analysis, top: Hypothesis | None, *, runbooks: int
) -> list[NextStep]:
    """How to check the fix of the top hypothesis, then runbook hits: the findings' first."""
    steps: list[NextStep] = []
    if top is not None:
        steps.append(NextStep(text=_check_step(facts, top)))
    symptom_query = _short(
        " ".join(analysis.inv.incident.symptoms) or analysis.inv.incident.title, 3000
    )
    # Findings first (sorted is stable, so each search keeps its own ranking).
    hits = sorted(facts.runbooks, key=lambda qh: qh[0] == symptom_query)
    seen: set[str] = set()
    for query, hit in hits:
        uri = str(hit["uri"])
        if uri in seen or len(seen) >= runbooks:
            continue
        seen.add(uri)
        title = str(hit.get("title") or uri)
        basis = "the symptoms" if query == symptom_query else "the findings"
        steps.append(
            NextStep(
                text=f"Read the runbook '{title}' (matched {basis})",
                runbook_uri=uri,
                runbook_title=title,
            )
        )
    return steps


def _check_step(facts: _Facts, top: Hypothesis) -> str:
    if top.layer in layers.NETWORK_LAYERS:
        url = next(
            (p.url for p in facts.probes.values() if p.host == top.component), None
        )
        where = url or top.component
        return f"After the fix, probe {where} again: the {top.layer} layer must pass"
    if top.layer == layers.APPLICATION:
        return f"Watch service_health({top.component}) return to healthy; a restart only buys time until the cause is fixed"
    if top.layer == layers.TOOL_BACKEND:
        return f"When {top.component} answers again, repeat the failed tool calls: what they were to show is still unknown"
    return f"Check the {top.component} MCP server itself (process, endpoint, version) before reading anything into its silence"


def _summary(report: Report, inv: Investigation) -> str:
    top = report.top
    calls = f"{report.tool_calls} tool call{'s' if report.tool_calls != 1 else ''}"
    if top is not None and top.conclusive:
        return f"{top.layer} failure at {top.component}: {top.statement} (confirmed by {len({e.span_id for e in top.evidence})} observations; {calls})"
    if top is not None:
        return (
            f"no decisive evidence after {calls}; the strongest lead is {top.id} "
            f"({top.statement}), {top.status} at confidence {top.confidence:.2f}"
        )
    checked = [h for h in report.hypotheses if h.status == "ruled_out"]
    tail = f"; ruled out: {', '.join(h.id for h in checked)}" if checked else ""
    return f"no decisive evidence after {calls}: nothing observed explains the incident on {inv.incident.service}{tail}"
