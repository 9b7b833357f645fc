"""The metrics this process records, and the hooks that record them (no Django import).

Web: HTTP requests (diagnosis.observability.http). Worker: MCP tool calls (the engine's
executor calls `tool_call_finished` once per finished call) and task timings (Celery signals,
diagnosis.observability.worker). Series the web answers at scrape time (SSE, tasks by state,
approvals) are in diagnosis.observability.collectors. Every label is bounded: routes are URL
patterns, states and layers are fixed sets, servers and tools come from the registry file and
are capped besides (MAX_TOOL_SERIES).
"""

import logging
import threading

from prometheus_client import Counter, Gauge, Histogram

# prometheus-client's multiprocess mode: the folder a prefork worker's processes write to.
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"

# A tool name is whatever a planner asked for; past this many (server, tool) pairs, new
# pairs share one series, so a runaway planner cannot blow up the scrape.
MAX_TOOL_SERIES = 500
OTHER = "(other)"
MAX_LABEL_CHARS = 100
BREAKER_STATES = ("closed", "half_open", "open")

HTTP_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})

HTTP_REQUESTS = Counter(
    "agentops_http_requests",
    "HTTP requests answered by Django, by URL pattern, method and status.",
    ["route", "method", "status"],
)
HTTP_DURATION = Histogram(
    "agentops_http_request_duration_seconds",
    "Time Django took to answer, by URL pattern and method.",
    ["route", "method"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
)

TOOL_CALLS = Counter(
    "agentops_mcp_tool_calls",
    "Finished MCP tool calls, by server, tool, outcome (the span state) and error layer.",
    ["server", "tool", "outcome", "error_layer"],
)
TOOL_DURATION = Histogram(
    "agentops_mcp_tool_call_duration_seconds",
    "Latency of MCP tool calls (retries included), by server, tool and outcome.",
    ["server", "tool", "outcome"],
    buckets=(0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0),
)
TOOL_RETRIES = Counter(
    "agentops_mcp_tool_call_retries",
    "Retries mcpclient made inside tool calls, by server and tool.",
    ["server", "tool"],
)
BREAKER = Gauge(
    "agentops_mcp_circuit_breaker_state",
    "1 for the state the server's circuit breaker was last seen in, 0 for the others.",
    ["server", "state"],
    multiprocess_mode="mostrecent",
)
POOL_SESSIONS = Gauge(
    "agentops_mcp_pool_sessions",
    "MCP sessions in the worker's pool, by server and state (starting, in_use, idle, dead).",
    ["server", "state"],
    multiprocess_mode="livesum",
)
POOL_BORROWS = Counter(
    "agentops_mcp_pool_borrows",
    "Sessions lent by the worker's pool, by server and result (hit: the session was up; "
    "miss: the borrower waited for it to start or be replaced).",
    ["server", "result"],
)
SERVER_START = Histogram(
    "agentops_mcp_server_start_seconds",
    "Time to start or connect an MCP server and list its tools, by server and transport.",
    ["server", "transport"],
    buckets=(0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0),
)

TASKS_FINISHED = Counter(
    "agentops_tasks_finished",
    "Diagnosis tasks a worker run brought to a terminal state, by that state.",
    ["state"],
)
TASK_DURATION = Histogram(
    "agentops_task_duration_seconds",
    "Wall time from a task's first start to its end (parked time included), by end state.",
    ["state"],
    buckets=(1.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0, 3600.0),
)
QUEUE_DELAY = Histogram(
    "agentops_task_queue_delay_seconds",
    "Time a task waited queued (created, re-queued or approved) before a worker claimed it.",
    buckets=(0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0),
)
FIRST_TOOL_CALL = Histogram(
    "agentops_task_time_to_first_tool_call_seconds",
    "Time from a task's first start to its first tool call, for tasks that called one.",
    buckets=(0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0),
)

logger = logging.getLogger(__name__)
_lock = threading.Lock()
_tool_pairs: set[tuple[str, str]] = set()


def _label(value: object) -> str:
    text = str(value) if value is not None else ""
    return text[:MAX_LABEL_CHARS] or "none"


def _tool_labels(server: str, tool: str) -> tuple[str, str]:
    pair = (_label(server), _label(tool))
    with _lock:
        if pair in _tool_pairs:
            return pair
        if len(_tool_pairs) < MAX_TOOL_SERIES:
            _tool_pairs.add(pair)
            return pair
    return pair[0], OTHER


def tool_call_finished(
    *,
    server: str,
    tool: str,
    state: str,
    error_layer: str,
    latency_ms: float | None,
    retries: int,
    breaker_state: str | None = None,
) -> None:
    """Record one finished MCP tool call (the executor's `_finish`, after the span is saved).

    `state` is the span state (ok, error, cancelled, unknown_outcome …), `error_layer` the
    span's layer ("" when it succeeded), `breaker_state` the session's circuit breaker state
    when the caller knows it. Never raises: metrics must not fail a diagnosis.
    """
    try:
        server_label, tool_label = _tool_labels(server, tool)
        outcome = _label(state)
        TOOL_CALLS.labels(server_label, tool_label, outcome, _label(error_layer)).inc()
        if latency_ms is not None and latency_ms >= 0:
            TOOL_DURATION.labels(server_label, tool_label, outcome).observe(
                latency_ms / 1000.0
            )
        if retries > 0:
            TOOL_RETRIES.labels(server_label, tool_label).inc(retries)
        if breaker_state is not None:
            circuit_breaker_seen(server=server, state=breaker_state)
    except Exception:
        # A metric is never worth a failed call.
        logger.debug("tool call metric not recorded", exc_info=True)


def circuit_breaker_seen(*, server: str, state: str) -> None:
    """Record the state a server's circuit breaker is in (closed, half_open or open)."""
    if state not in BREAKER_STATES:
        return
    server_label = _label(server)
    for name in BREAKER_STATES:
        BREAKER.labels(server_label, name).set(1 if name == state else 0)


def mcp_pool_sessions(counts: dict[tuple[str, str], int]) -> None:
    """The pool's sessions by (server, state); a pair with 0 clears its series' value."""
    try:
        for (server, state), n in counts.items():
            POOL_SESSIONS.labels(_label(server), _label(state)).set(n)
    except Exception:
        logger.debug("pool gauge not recorded", exc_info=True)


def mcp_pool_lent(*, server: str, hit: bool) -> None:
    """The pool lent a session: `hit` when it was up, else it was started for the borrower."""
    try:
        POOL_BORROWS.labels(_label(server), "hit" if hit else "miss").inc()
    except Exception:
        logger.debug("pool borrow not recorded", exc_info=True)


def mcp_server_started(*, server: str, transport: str, seconds: float) -> None:
    """An MCP server was started (stdio) or connected (HTTP) and listed in `seconds`."""
    try:
        SERVER_START.labels(_label(server), _label(transport)).observe(
            max(seconds, 0.0)
        )
    except Exception:
        logger.debug("server start not recorded", exc_info=True)


def http_request_finished(
    *, route: str, method: str, status: int, seconds: float
) -> None:
    """Record one answered HTTP request (route is the URL pattern, never the raw path)."""
    method = method if method in HTTP_METHODS else "other"
    HTTP_REQUESTS.labels(route, method, str(status)).inc()
    HTTP_DURATION.labels(route, method).observe(max(seconds, 0.0))


def task_claimed(*, queued_seconds: float) -> None:
    """A worker claimed a task that had waited `queued_seconds` in the queue."""
    QUEUE_DELAY.observe(max(queued_seconds, 0.0))


def task_ended(
    *,
    state: str,
    duration_seconds: float | None,
    first_tool_call_seconds: float | None,
) -> None:
    """A worker run brought a task to the terminal `state`."""
    TASKS_FINISHED.labels(_label(state)).inc()
    if duration_seconds is not None:
        TASK_DURATION.labels(_label(state)).observe(max(duration_seconds, 0.0))
    if first_tool_call_seconds is not None:
        FIRST_TOOL_CALL.observe(max(first_tool_call_seconds, 0.0))
