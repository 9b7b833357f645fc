"""What a planner sees: the incident, the tools it may call, and the results so far. No ORM.

A planner never sees the scenario, the environment's name or `expected.json`: only these.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from reasoning.tools import AmbiguousTool


@dataclass(frozen=True)
class IncidentBrief:
    title: str
    service: str
    severity: str
    symptoms: tuple[str, ...]
    window_start: str | None = None  # RFC 3339, UTC
    window_end: str | None = None
    # The alert's labels (service, job, app, namespace …): the incident's own (an alert's common
    # labels, or what its author gave) and those all the alerts that opened it share.
    labels: tuple[tuple[str, str], ...] = ()
    # What the alert (or the person) said beyond the title: read like the symptoms where a rule
    # reads the incident's words (reasoning.layered.resolution reads its `key=value` pairs).
    description: str = ""
    # Services the diagnosis starts from besides `service`: when the incident's name resolves to
    # nothing, every service the survey found unhealthy (reasoning.layered.survey).
    starting_services: tuple[str, ...] = ()
    # Steering context people added while it ran (diagnosis.steering): read like symptoms.
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class ToolInfo:
    server: str
    name: str
    description: str
    input_schema: Mapping[str, Any]
    is_read_only: bool
    is_destructive: bool
    is_idempotent: bool


@dataclass(frozen=True)
class PlannedCall:
    agent: str  # metrics | logs | network | runbook | kubernetes | action
    server: str
    tool: str
    arguments: Mapping[str, Any]
    why: str = ""


@dataclass(frozen=True)
class Observation:
    """One finished call: what the tool answered, or how it failed (layer in our vocabulary)."""

    span_id: str  # the call's OpenTelemetry span id (16 hex), what the report cites
    agent: str
    server: str
    tool: str
    arguments: Mapping[str, Any]
    is_ok: bool  # the call returned and the tool did not answer isError
    result: Any = None  # structuredContent (redacted), else None
    text: str = ""  # the text blocks (redacted, bounded)
    error_layer: str | None = None  # reasoning.layers
    error_code: str | None = None
    error_message: str | None = None
    refused: bool = False  # by policy or a person: never sent
    approval_id: str | None = None  # the Approval that allowed or refused the call
    # A write was sent and no answer came (span unknown_outcome): it may have happened.
    outcome_unknown: bool = False
    # The get_action_status call that asked about it afterwards (the last try), if any.
    status_check: "Observation | None" = None


@dataclass
class Investigation:
    incident: IncidentBrief
    tools: Sequence[ToolInfo]
    observations: list[Observation] = field(default_factory=list)
    round: int = 0
    # Hypothesis ids ("layer:component") a person marked wrong: ruled out, whatever they show.
    excluded: frozenset[str] = frozenset()

    def tool(self, server: str, name: str) -> ToolInfo | None:
        for info in self.tools:
            if info.server == server and info.name == name:
                return info
        return None

    def tools_named(self, name: str) -> list[ToolInfo]:
        """Every server's tool called `name`, in the catalogue's order."""
        return [info for info in self.tools if info.name == name]

    def find_tool(self, name: str) -> ToolInfo | None:
        """The one tool called `name`; None when no server offers it.

        Raises:
            AmbiguousTool: more than one server offers `name` (never the first one found).
        """
        found = self.tools_named(name)
        if len(found) > 1:
            raise AmbiguousTool(name, (info.server for info in found))
        return found[0] if found else None


def only_tool(investigation: Investigation, name: str) -> ToolInfo | None:
    """The tool called `name` when exactly one server offers it; None when none or several do.

    For planners that call well-known tools by their bare name: they do not guess a server (the
    layered analysis names the ambiguity as an open question).
    """
    try:
        return investigation.find_tool(name)
    except AmbiguousTool:
        return None


def ambiguous_tools(
    investigation: Investigation, names: Sequence[str]
) -> list[AmbiguousTool]:
    """Of `names`, those more than one server offers, each with its servers."""
    found = []
    for name in names:
        servers = [info.server for info in investigation.tools_named(name)]
        if len(servers) > 1:
            found.append(AmbiguousTool(name, servers))
    return found
