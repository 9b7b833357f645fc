"""The one tool table: each tool the planners know, by name → its agent and what its back end serves.

Both planners read it: the layered planner finds a tool's server by the tool's name (never by the
server's name) and labels its calls with the table's agent; the LLM planner labels what the model
asks with `agent_for`, which falls back to a guess from the names only for a tool the table does not
know. The readers of a known tool's result live next to what they fill (`reasoning.layered.facts`'s
`READERS`, the kubernetes tools' in `reasoning.layered.kubernetes.cluster`), keyed by these same names: the table
cannot import them without a cycle (they import its names).

A name two servers offer is keyed by (server, tool) in each entry; resolving such a name without its
server raises `AmbiguousTool` instead of guessing, as the MCP Python SDK's ClientSessionGroup refuses
a tool name two of its sessions offer.
"""

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Final

SERVICE_HEALTH: Final = "service_health"
QUERY_METRIC: Final = "query_metric"
TOP_ERRORS: Final = "top_errors"
SEARCH_LOGS: Final = "search_logs"
LIST_TARGETS: Final = "list_targets"
PROBE_URL: Final = "probe_url"
SEARCH_RUNBOOKS: Final = "search_runbooks"
RESTART_WORKLOAD: Final = "restart_workload"
SCALE_WORKLOAD: Final = "scale_workload"
GET_ACTION_STATUS: Final = "get_action_status"
# The kubernetes server (read-only kubectl).
GET_RESOURCES: Final = "get_resources"
DESCRIBE: Final = "describe"
POD_LOGS: Final = "pod_logs"
EVENTS: Final = "events"
GET_YAML: Final = "get_yaml"

# The agents a call may belong to (DESIGN §10): a round's calls are grouped and run by agent.
METRICS: Final = "metrics"
LOGS: Final = "logs"
NETWORK: Final = "network"
RUNBOOK: Final = "runbook"
KUBERNETES: Final = "kubernetes"
ACTION: Final = "action"


class AmbiguousTool(LookupError):
    """A bare tool name that more than one server offers: say which server."""

    def __init__(self, name: str, servers: Iterable[str]) -> None:
        self.name, self.servers = name, tuple(sorted(servers))
        super().__init__(
            f"tool {name!r} is offered by {', '.join(self.servers)}: name the server"
        )


@dataclass(frozen=True)
class ToolSpec:
    name: str
    agent: str
    # What the tool's back end serves, in the words an incident would use ("log", "metric" …):
    # a failing tool is evidence about that back end, and these words tie it to the incident.
    domain: tuple[str, ...] = ()
    # An action or its status: the engine reports it (report.actions), it is no evidence.
    is_action: bool = False
    # Set only when another server offers a tool of the same name: then the key is (server, name).
    server: str | None = None


class ToolTable(Mapping[str | tuple[str, str], ToolSpec]):
    """ToolSpecs keyed by name, or by (server, name) for a name that more than one server offers."""

    def __init__(self, specs: Iterable[ToolSpec]) -> None:
        self._specs: dict[str | tuple[str, str], ToolSpec] = {}
        self._by_name: dict[str, list[ToolSpec]] = {}
        for spec in specs:
            key: str | tuple[str, str] = (
                spec.name if spec.server is None else (spec.server, spec.name)
            )
            same = self._by_name.setdefault(spec.name, [])
            if key in self._specs or (
                same and (spec.server is None or any(s.server is None for s in same))
            ):
                raise ValueError(
                    f"tool {spec.name!r} twice: a name two servers offer is keyed by (server, tool) in each entry"
                )
            self._specs[key] = spec
            same.append(spec)

    def __getitem__(self, key: str | tuple[str, str]) -> ToolSpec:
        if isinstance(key, tuple):
            return self._specs[key]
        spec = self.resolve(key)
        if spec is None:
            raise KeyError(key)
        return spec

    def __iter__(self) -> Iterator[str | tuple[str, str]]:
        return iter(self._specs)

    def __len__(self) -> int:
        return len(self._specs)

    def resolve(self, name: str, server: str | None = None) -> ToolSpec | None:
        """The spec of `name` (on `server` when given); None for a tool the table does not know.

        Raises:
            AmbiguousTool: `server` is None and more than one server offers `name`.
        """
        same = self._by_name.get(name, [])
        if server is not None:
            return self._specs.get((server, name)) or next(
                (s for s in same if s.server is None), None
            )
        if len(same) > 1:
            raise AmbiguousTool(name, (s.server or "" for s in same))
        return same[0] if same else None

    def names(self) -> frozenset[str]:
        return frozenset(self._by_name)


TOOLS: Final = ToolTable(
    [
        ToolSpec(SERVICE_HEALTH, METRICS, domain=("metric", "dashboard")),
        ToolSpec(QUERY_METRIC, METRICS, domain=("metric", "dashboard")),
        ToolSpec(TOP_ERRORS, LOGS, domain=("log",)),
        ToolSpec(SEARCH_LOGS, LOGS, domain=("log",)),
        ToolSpec(LIST_TARGETS, NETWORK),
        ToolSpec(PROBE_URL, NETWORK),
        ToolSpec(SEARCH_RUNBOOKS, RUNBOOK),
        ToolSpec(RESTART_WORKLOAD, ACTION, is_action=True),
        ToolSpec(SCALE_WORKLOAD, ACTION, is_action=True),
        ToolSpec(GET_ACTION_STATUS, ACTION, is_action=True),
        ToolSpec(GET_RESOURCES, KUBERNETES),
        ToolSpec(DESCRIBE, KUBERNETES),
        ToolSpec(POD_LOGS, KUBERNETES),
        ToolSpec(EVENTS, KUBERNETES),
        ToolSpec(GET_YAML, KUBERNETES),
    ]
)

KUBERNETES_TOOLS: Final = frozenset(
    spec.name for spec in TOOLS.values() if spec.agent == KUBERNETES
)
WRITES: Final = frozenset(spec.name for spec in TOOLS.values() if spec.is_action)

# A tool the table does not know (another server's, or one the LLM was not offered): its agent
# guessed from the server's or the tool's name, first hint first; else metrics.
_AGENT_HINTS: Final = (
    ("log", LOGS),
    ("metric", METRICS),
    ("net", NETWORK),
    ("probe", NETWORK),
    ("runbook", RUNBOOK),
    ("kube", KUBERNETES),
    ("k8s", KUBERNETES),
)


def agent_for(server: str, tool: str, table: ToolTable = TOOLS) -> str:
    """The agent a call of `tool` on `server` belongs to: the table's, else a guess from the names."""
    spec = table.resolve(tool, server)
    if spec is not None:
        return spec.agent
    for hint, agent in _AGENT_HINTS:
        if hint in server.lower() or hint in tool.lower():
            return agent
    return METRICS


def domain(server: str, tool: str, table: ToolTable = TOOLS) -> tuple[str, ...]:
    """What `tool`'s back end on `server` serves, in an incident's words; () when the table has no word."""
    spec = table.resolve(tool, server)
    return spec.domain if spec is not None else ()
