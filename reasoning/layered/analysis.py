"""Facts → ranked hypotheses: which layer fails first where, what explains what, what stays open.

Each hypothesis cites the spans that showed it (the rules of seed 000 §1.2, in order).
"""

import re
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from reasoning import layers
from reasoning.layered import kubernetes
from reasoning.layered.facts import FACT_CHARS, Facts, Probe, ToolFailure
from reasoning.layered.reading import (
    APP_ERROR,
    GENERIC_LABELS,
    NAMES_UPSTREAM,
    NOT_SERVICES,
    SERVICE_NAME,
    belongs,
    error_classes,
    host_of,
    hosts_in,
    incident_text,
    short,
    upstreams,
)
from reasoning.observations import Investigation, Observation
from reasoning.report import Evidence, Hypothesis, Report, Status
from reasoning.tools import (
    KUBERNETES_TOOLS,
    PROBE_URL,
    SERVICE_HEALTH,
    TOP_ERRORS,
    domain,
)

_SYMPTOM_SIGNALS = frozenset({"error_ratio", "p99_latency_s", "requests_per_s"})

_STATUSES: dict[str, Status] = {
    "confirmed": "confirmed",
    "likely": "likely",
    "ruled_out": "ruled_out",
}


@dataclass
class Candidate:
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
    stage: str | None = None  # Kubernetes: the lifecycle stage and Kubernetes' reason
    reason: str | None = None

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
            stage=self.stage,
            reason=self.reason,
        )


def _network_statement(probe: Probe) -> str:
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


class Analysis:
    """Hypotheses from the facts (the rules of the module docstring, in order)."""

    def __init__(self, investigation: Investigation, facts: Facts) -> None:
        self.inv = investigation
        self.facts = facts
        self.service = investigation.incident.service
        self.words = incident_text(investigation).lower()
        self.candidates: dict[str, Candidate] = {}
        self.open_questions: list[str] = []
        self.leaks: set[str] = set()  # services whose metrics show a connection leak
        self._run()

    def _get(self, layer: str, component: str, statement: str) -> Candidate:
        key = f"{layer}:{component}"
        if key not in self.candidates:
            self.candidates[key] = Candidate(layer, component, statement)
        return self.candidates[key]

    def _run(self) -> None:
        self._kubernetes()
        self._tool_failures()
        self._applications()
        self._backend_support()
        self._network()
        self._healthy_services()
        self._questions()

    # Kubernetes: the stage where each object fails; the root of the incident's path first.
    def _kubernetes(self) -> None:
        if not any(o.tool in KUBERNETES_TOOLS for o in self.inv.observations):
            return
        findings = kubernetes.diagnose(self.inv, self.facts)
        by_component = {f.component: f for f in findings}
        for f in findings:
            c = self._get(f.layer, f.component, f.statement)
            c.stage, c.reason = f.stage, f.reason
            for obs, fact in f.evidence:
                c.cite(obs, fact)
            c.keywords = [k for k in f.keywords if k]
            cause = by_component.get(f.victim_of or "")
            spans = len({e.span_id for e in c.evidence})
            if cause is not None:
                c.status, c.confidence = "likely", 0.4
                c.statement += (
                    f"; a symptom of {cause.component} ({cause.stage}: {cause.reason})"
                )
                c.chain = [f.statement, *cause.chain[-1:]]
            elif f.is_relevant:
                c.status = "confirmed"
                c.confidence = min(
                    0.88 + 0.02 * min(spans - 1, 3) + 0.01 * min(f.depth, 3), 0.97
                )
                c.chain = [self._symptom(), *f.chain]
            else:
                # A fault the incident's path is not shown to touch: a lead, not the explanation.
                c.status, c.confidence = "likely", 0.5 if spans > 1 else 0.45
                c.statement += f"; not shown to be on {self.service}'s path"
                c.chain = list(f.chain)

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
                    short(
                        f"{failure.call}: {failure.obs.error_layer}/{failure.obs.error_code}: {failure.message}",
                        FACT_CHARS,
                    ),
                )
                c.confidence, c.status = 0.25, "likely"
                c.chain = [f"{failure.call} fails before its tool runs", c.statement]
                c.keywords = ["mcp", failure.obs.error_code or "", "transport"]

    def _backend(self, failure: ToolFailure) -> None:
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
                    for word in domain(e.server, e.tool)
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
            if not (belongs(probe.host, service) and probe.is_server_error):
                continue
            if (
                probe.status in (502, 504)
                or probe.body_classes
                or NAMES_UPSTREAM.search(probe.body)
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
            match = APP_ERROR.search(group.sample) or APP_ERROR.search(group.signature)
            if (
                match is None
                or NAMES_UPSTREAM.search(group.text)
                or error_classes(group.text) & {layers.DNS, layers.TLS}
            ):
                continue
            assert errors is not None
            own_error = match.group(0)
            support.append((errors.obs, errors.fact(group)))
            logged.append(
                f"{service} logs: {short(group.sample or group.signature, 120)}"
            )
            parts.append(f"its logs show {short(own_error, 60)}")
            keywords.append(own_error)
            break
        if health is not None and health.saturation:
            details = "; ".join(f[2] for f in health.saturation)
            support.append(
                (
                    health.obs,
                    short(f"service_health({service}): {details}", FACT_CHARS),
                )
            )
            saturated.append(f"{service} saturates: {short(details, 140)}")
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
            c.cite(health.obs, short(context, FACT_CHARS), is_support=False)
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
        c.chain = [short(head, 160), *answer[:1], *logged, *saturated]
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
        direct: list[tuple[Probe, Candidate]] = []
        gateways: list[Probe] = []
        for probe in self.facts.probes.values():
            if any(b.component in probe.host for b in backends):
                continue  # cited by the tool_backend hypothesis (rule 4)
            if (
                probe.layer == layers.HTTP
                and probe.status == 405
                and _is_mcp_url(probe.url)
            ):
                self._mcp_endpoint(probe)
                continue
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
                    if belongs(probe.host, s)
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

    def _mcp_endpoint(self, probe: Probe) -> None:
        """GET on an MCP (Streamable HTTP) endpoint answers 405: its HTTP works; the logs say whether its JSON-RPC does."""
        c = self._get(
            layers.MCP,
            probe.host,
            f"the MCP endpoint at {probe.host} answers JSON-RPC errors (its HTTP layer works: "
            "GET gets 405, as Streamable HTTP answers)",
        )
        c.cite(probe.obs, probe.fact, is_support=False)
        services: list[str] = []
        for errors, group in self.facts.error_texts():
            if layers.MCP not in error_classes(group.text):
                continue
            if belongs(probe.host, errors.service) or _names_label(
                group.text, probe.host
            ):
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
            self._symptom(),
            *(f"{s} logs JSON-RPC errors about {probe.host}" for s in services[:2]),
            c.statement,
        ]
        c.keywords = ["mcp", "json-rpc", probe.host]

    def _corroborate(self, probe: Probe, c: Candidate) -> None:
        """Logs that name the host or show the same failure class, from any service, agree."""
        layer = probe.layer or layers.HTTP
        specific = layer in (layers.DNS, layers.CONNECT, layers.TLS)
        chain_mid: dict[
            str, str
        ] = {}  # one line per service, the incident's own in the head
        for errors, group in self.facts.error_texts():
            text = group.text
            classes = error_classes(text)
            names_host = (
                probe.host in text.lower()
                or any(
                    belongs(probe.host, name)
                    for name in upstreams(text)
                    if "." not in name
                )
                # The host's own service, or a line naming it, shows the failure the probe met.
                or (
                    layer in classes
                    and (
                        belongs(probe.host, errors.service)
                        or _names_label(text, probe.host)
                    )
                )
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
                    f"{errors.service} logs: {short(group.sample or group.signature, 120)}",
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
                    c.cite(other.obs, short(fact, FACT_CHARS), is_support=False)
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

    def _gateway(self, probe: Probe, direct: list[Candidate]) -> None:
        """An HTTP 5xx from a hop: explained by a lower failure if one shows, else a weaker lead."""
        hop = f"{probe.host} answers HTTP {probe.status}" + (
            f" naming a {'/'.join(sorted(probe.body_classes))} failure behind it"
            if probe.body_classes
            else ""
        )
        named = [h for h in hosts_in(probe.body) if h != probe.host]
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
            if belongs(probe.host, errors.service) or any(
                belongs(probe.host, u) for u in upstreams(group.text)
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
                if layer in error_classes(group.text):
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
                text = f"{failure.call} could not be checked: its back end failed ({short(failure.message, 160)})"
            elif failure.kind == "argument":
                text = f"{failure.call} answered nothing usable: {short(failure.message, 160)}"
            elif failure.kind == "refused":
                text = f"{failure.call} was not run: {short(failure.message, 160)}"
            else:
                text = f"{failure.call} failed ({failure.obs.error_layer or 'error'}): {short(failure.message, 160)}"
            self.open_questions.append(text)
        for service, health in self.facts.health.items():
            if health.verdict == "unknown":
                self.open_questions.append(
                    f"service_health({service}) has no verdict: {short(health.summary or 'no metrics for it', 160)}"
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
            for dep in dependency_services(self.inv, self.facts):
                if dep not in self.facts.errors:
                    self.open_questions.append(
                        f"the logs of {dep} were not read: the logs back end is failing"
                    )
        probed = {p.host for p in self.facts.probes.values()}
        for host in self._named_hosts():
            if host not in probed and not any(
                host_of(t) == host for t in self.facts.targets
            ):
                self.open_questions.append(
                    f"{host} is named in the errors but is not a netcheck target"
                )

    # Helpers.

    def _symptom(self) -> str:
        errors = self.facts.errors.get(self.service)
        if errors is not None and errors.groups:
            group = errors.groups[0]
            return f"{self.service}: {short(group.sample or group.signature, 120)}"
        health = self.facts.health.get(self.service)
        if health is not None and health.verdict in ("degraded", "unhealthy"):
            return f"{self.service}: {short(health.summary, 120)}"
        symptoms = self.inv.incident.symptoms
        return (
            short(symptoms[0], 120) if symptoms else short(self.inv.incident.title, 120)
        )

    def _named_hosts(self) -> list[str]:
        hosts: list[str] = []
        for _, group in self.facts.error_texts():
            hosts += [h for h in hosts_in(group.text) if h not in hosts]
        return hosts

    def _is_dependency(self, host: str) -> bool:
        if host in self.words or host in self._named_hosts():
            return True
        return any(belongs(host, s) for s in dependency_services(self.inv, self.facts))

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


def _spans(c: "Candidate") -> int:
    return len({e.span_id for e in c.evidence})


def dependency_services(inv: Investigation, facts: Facts) -> list[str]:
    """Services the incident depends on, in the order they came up: symptoms, then logs (rule 2)."""
    service = inv.incident.service.lower()
    found: list[str] = []

    def add(name: str) -> None:
        name = name.lower()
        if name != service and name not in found and name not in NOT_SERVICES:
            found.append(name)

    words: list[str] = []
    for symptom in inv.incident.symptoms:
        for raw in symptom.split():
            word = raw.strip("'\"()[]{},;:!?`")
            if word and "/" not in word and "." not in word and "=" not in word:
                words.append(word)
    for word in words:
        if SERVICE_NAME.match(word):
            add(word)
    lowered = {w.lower() for w in words}
    for url in facts.targets:
        label = (host_of(url) or "").split(".")[0]
        if label and label not in GENERIC_LABELS and label in lowered:
            add(label)
    for name in [service, *found]:
        errors = facts.errors.get(name)
        if errors is None:
            continue
        for group in errors.groups:
            for upstream in upstreams(group.text):
                if "." not in upstream:
                    add(upstream)
    return found
