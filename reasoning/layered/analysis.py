"""Facts → ranked hypotheses: every rule of the board, in the rules table's order, then what stays open.

Each hypothesis cites the spans that showed it. The rules themselves live in their own modules and
are listed, in the order they run, by `reasoning.layered.rules` (stage "board"); this module runs
them, asks the open questions and builds the dependency graph of the evidence
(`dependencies.build_graph`) that the report carries.
"""

from reasoning.layered import rules
from reasoning.layered.candidates import Board, dependency_services
from reasoning.layered.dependencies import attach_faults, build_graph
from reasoning.layered.facts import Facts
from reasoning.layered.reading import host_of, short
from reasoning.observations import Investigation, ambiguous_tools, only_tool
from reasoning.tools import (
    GET_RESOURCES,
    LIST_TARGETS,
    PROBE_URL,
    SEARCH_LOGS,
    SEARCH_RUNBOOKS,
    SERVICE_HEALTH,
    TOP_ERRORS,
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
    """Hypotheses from the facts (the board's rules of the rules table, in order), and the open questions."""

    def __init__(self, investigation: Investigation, facts: Facts) -> None:
        super().__init__(investigation, facts)
        for rule in rules.at_stage(rules.BOARD):
            rule.function(self)
        self._questions()
        self._ambiguous_tools()
        # The dependency graph of the evidence, with every hypothesis still standing as its faults.
        self.graph = build_graph(self, self.cluster)
        attach_faults(self.graph, self)

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
