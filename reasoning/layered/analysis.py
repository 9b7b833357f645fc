"""Facts → ranked hypotheses: which layer fails first where, what explains what, what stays open.

Each hypothesis cites the spans that showed it (the rules of seed 000 §1.2, in order). The rules of the
application layer, the network path, gateways, warnings and changes live in `application`, `network`,
`gateway`, `network_delay`, `logged_paths`, `warning_leads`, `http_symptoms` and `changes`; this module holds Kubernetes, the tools' own
failures and the open questions, and runs them all in order.
"""

import re

from reasoning import layers
from reasoning.layered import kubernetes
from reasoning.layered.application import applications, healthy_services
from reasoning.layered.candidates import Board, dependency_services, spans
from reasoning.layered.changes import changes
from reasoning.layered.cut_bodies import cut_bodies
from reasoning.layered.echoed_errors import echoed_errors
from reasoning.layered.facts import FACT_CHARS, Facts, ToolFailure
from reasoning.layered.http_symptoms import http_symptoms
from reasoning.layered.local_exhaustion import local_exhaustion
from reasoning.layered.logged_paths import logged_paths
from reasoning.layered.network import network, network_statement
from reasoning.layered.network_delay import network_delay
from reasoning.layered.reading import host_of, short
from reasoning.layered.retry_storms import retry_storms
from reasoning.layered.token_clock import token_clock
from reasoning.layered.warning_leads import warning_leads
from reasoning.observations import Investigation, ambiguous_tools, only_tool
from reasoning.report import EXCLUDED_REASON
from reasoning.tools import (
    GET_RESOURCES,
    KUBERNETES_TOOLS,
    LIST_TARGETS,
    PROBE_URL,
    SEARCH_LOGS,
    SEARCH_RUNBOOKS,
    SERVICE_HEALTH,
    TOP_ERRORS,
    domain,
)

# The tools the layered planner calls by their bare name.
PLANNED_TOOLS = (
    SERVICE_HEALTH,
    TOP_ERRORS,
    SEARCH_LOGS,
    LIST_TARGETS,
    PROBE_URL,
    SEARCH_RUNBOOKS,
    GET_RESOURCES,
)


class Analysis(Board):
    """Hypotheses from the facts (the rules of the module docstring, in order)."""

    def __init__(self, investigation: Investigation, facts: Facts) -> None:
        super().__init__(investigation, facts)
        self._kubernetes()
        self._tool_failures()
        applications(self)
        self._backend_support()
        network(self)
        network_delay(self)
        cut_bodies(self)
        logged_paths(self)
        warning_leads(self)
        local_exhaustion(self)
        token_clock(self)
        echoed_errors(self)
        retry_storms(self)
        http_symptoms(self)
        changes(self)
        healthy_services(self)
        self._questions()
        self._ambiguous_tools()
        self._excluded()

    def _excluded(self) -> None:
        """A hypothesis a person marked wrong is ruled out, whatever its evidence (issue 20 item 9)."""
        for c in self.candidates.values():
            if c.id in self.inv.excluded:
                c.status = "ruled_out"
                c.reason_ruled_out = EXCLUDED_REASON

    # Kubernetes: the stage where each object fails; the root of the incident's path first.
    def _kubernetes(self) -> None:
        if not any(o.tool in KUBERNETES_TOOLS for o in self.inv.observations):
            return
        findings = kubernetes.diagnose(self.inv, self.facts)
        by_component = {f.component: f for f in findings}
        for f in findings:
            c = self.get(f.layer, f.component, f.statement)
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
            elif f.is_stale:
                # Over before the incident's window: what happened, not what fails now.
                c.status, c.confidence = "likely", 0.3
                c.statement += (
                    "; over before the incident's window (its pods run ready now)"
                )
                c.chain = list(f.chain)
            elif f.is_relevant:
                c.status = "confirmed"
                c.confidence = min(
                    0.88 + 0.02 * min(spans - 1, 3) + 0.01 * min(f.depth, 3), 0.97
                )
                c.chain = [self.symptom(), *f.chain]
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
                c = self.get(
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
        c = self.get(
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
                    c.chain.insert(-1, network_statement(probe))
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
                c.confidence = min(0.9 + 0.03 * (spans(c) - 2), 0.97)
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

    def _ambiguous_tools(self) -> None:
        """A tool the planner would call that two servers offer is not called: it does not guess."""
        for ambiguous in ambiguous_tools(self.inv, PLANNED_TOOLS):
            self.open_questions.append(
                f"{ambiguous.name} is offered by {', '.join(ambiguous.servers)}: "
                "not called (the planner does not guess which server)"
            )

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
        if not self.inv.tools_named(PROBE_URL):
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
        logs = only_tool(self.inv, TOP_ERRORS)
        if logs is not None and self.facts.is_backend_down(logs.server):
            for dep in dependency_services(self.inv, self.facts):
                if dep not in self.facts.errors:
                    self.open_questions.append(
                        f"the logs of {dep} were not read: the logs back end is failing"
                    )
        probed = {p.host for p in self.facts.probes.values()}
        for host in self.named_hosts():
            if host not in probed and not any(
                host_of(t) == host for t in self.facts.targets
            ):
                self.open_questions.append(
                    f"{host} is named in the errors but is not a netcheck target"
                )
