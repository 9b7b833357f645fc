"""The tools the layered planner knows, by name: servers are found by tool, never by name."""

SERVICE_HEALTH = "service_health"
TOP_ERRORS = "top_errors"
SEARCH_LOGS = "search_logs"
LIST_TARGETS = "list_targets"
PROBE_URL = "probe_url"
SEARCH_RUNBOOKS = "search_runbooks"
QUERY_METRIC = "query_metric"
RESTART_WORKLOAD = "restart_workload"
# The kubernetes server (read-only kubectl).
GET_RESOURCES = "get_resources"
DESCRIBE = "describe"
POD_LOGS = "pod_logs"
EVENTS = "events"
GET_YAML = "get_yaml"
KUBERNETES_TOOLS = frozenset({GET_RESOURCES, DESCRIBE, POD_LOGS, EVENTS, GET_YAML})

WRITES = frozenset({RESTART_WORKLOAD, "scale_workload", "get_action_status"})
AGENTS = {
    SERVICE_HEALTH: "metrics",
    QUERY_METRIC: "metrics",
    TOP_ERRORS: "logs",
    SEARCH_LOGS: "logs",
    LIST_TARGETS: "network",
    PROBE_URL: "network",
    SEARCH_RUNBOOKS: "runbook",
    RESTART_WORKLOAD: "action",
    **dict.fromkeys(KUBERNETES_TOOLS, "kubernetes"),
}
# What a failing tool's back end serves, as the incident's words would say it.
TOOL_DOMAIN = {
    TOP_ERRORS: ("log",),
    SEARCH_LOGS: ("log",),
    SERVICE_HEALTH: ("metric", "dashboard"),
    "query_metric": ("metric", "dashboard"),
}
