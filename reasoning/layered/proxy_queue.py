"""A proxy that answers 5xx from its own queue or connection limit while its servers are not slow: an HTTP-layer fault of that proxy (issue 21: a load balancer's own setting).

A load balancer logs its answers as access lines at info level, so its top errors are empty even
while its metrics show a 5xx ratio. Its own line says why it answered: HAProxy's termination state
(`sQ--`: the server side timed out while the request waited in the queue; `PR`, `RC`: the proxy
or a resource limit refused it), Envoy's response flag `UO` (upstream overflow: a circuit
breaker's pending or connection limit), or the words of a queue or connection limit (`queue
full`, `maxconn`, `max pending requests`). A request refused or timed out there never reached a
server: the limit is the proxy's, set on the proxy (often by a config change), and the callers
quoting 503s are its victims. The planner reads such a service's 5xx lines (`reads`); the rule
(`proxy_queue`) concludes at the HTTP layer of the proxy, confirmed when its own metrics show the
error ratio too, and only a lead when another service read is slow (a slow server fills a queue
as well).
"""

import re
from collections.abc import Callable
from typing import Any, Final

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.facts import Facts
from reasoning.layered.reading import arg, as_dict, as_list, short
from reasoning.observations import Investigation, Observation, PlannedCall
from reasoning.tools import SEARCH_LOGS

# A line carrying an HTTP 5xx status (the logs server searches by regular expression, RE2).
STATUS_5XX_QUERY: Final = r"(^|[^0-9.:/])5[0-9][0-9]([^0-9]|$)"
_STATUS_5XX: Final = re.compile(r"(?:^|[^0-9.:/])5\d\d(?:[^0-9]|$)")
# The proxy's own reason for the answer: a queue or a connection limit of its own.
_QUEUE_STATE: Final = re.compile(
    r"(?:^|\s)(?:[sScC]Q|[PR][CQR])[-A-Za-z]{2}(?:\s|$)|"  # HAProxy termination state
    r"(?:^|\s)UO(?:\s|$)|"  # Envoy response flag: upstream overflow
    r"(?i:\bqueue (?:full|timeout|timed out)\b|\btimeout queue\b|\bmaxconn\b|"
    r"\bmax(?:imum)? (?:pending|connections|conns)\b|\bpending requests? overflow\b|"
    r"\btoo many (?:pending|queued)\b)"
)
_LIMIT: Final = 40
_CONFIRMED: Final = 0.88
_LEAD: Final = 0.5


def _errors_ratio(facts: Facts, service: str) -> bool:
    health = facts.health.get(service)
    return health is not None and health.has("error_ratio")


def reads(
    facts: Facts,
    call: Callable[[str, dict[str, Any], str], PlannedCall | None],
    window: dict[str, str],
) -> list[PlannedCall | None]:
    """The 5xx lines of each service whose metrics show an error ratio while its logs hold no
    error or warning line: it logs its answers at info level, as a proxy does."""
    calls: list[PlannedCall | None] = []
    for service, errors in facts.errors.items():
        if errors.groups or errors.warnings or not _errors_ratio(facts, service):
            continue
        calls.append(
            call(
                SEARCH_LOGS,
                {
                    "service": service,
                    "query": STATUS_5XX_QUERY,
                    "regex": True,
                    **window,
                    "limit": _LIMIT,
                },
                f"{service}'s metrics show 5xx but its logs no error: the lines of its 5xx answers",
            )
        )
    return calls


def queued_lines(inv: Investigation, service: str) -> list[tuple[Observation, str]]:
    """`service`'s own lines answering 5xx from its queue or connection limit."""
    found: list[tuple[Observation, str]] = []
    for obs in inv.observations:
        if not obs.is_ok or obs.tool != SEARCH_LOGS:
            continue
        result = obs.result if isinstance(obs.result, dict) else {}
        for line in as_list(result.get("lines")):
            row = as_dict(line)
            message = str(row.get("message") or "")
            if (
                str(row.get("service") or arg(obs, "service")) == service
                and len(message) <= 4000
                and _STATUS_5XX.search(message)
                and _QUEUE_STATE.search(message)
            ):
                found.append((obs, message))
    return found


def proxy_queue(board: Board) -> None:
    """A service whose own 5xx lines say it answered from its queue or connection limit (HAProxy `sQ--`, Envoy `UO`, `queue full`) is a proxy refusing work its servers never saw: an HTTP-layer fault of that proxy, confirmed with its own metrics' error ratio unless another service read is slow."""
    facts = board.facts
    for service in list(facts.log_lines):
        lines = queued_lines(board.inv, service)
        if not lines:
            continue
        obs, first = lines[0]
        said = short(first, 240)
        c = board.get(
            layers.HTTP,
            service,
            f"{service} answers 5xx from its own queue or connection limit "
            f"({len(lines)} such lines read): its servers never see those requests, "
            "its limit is set too low",
        )
        c.cite(obs, f"{service}: {said}")
        health = facts.health.get(service)
        slow = [
            h.service
            for h in facts.health.values()
            if h.service != service and h.has("p99_latency_s")
        ]
        agreed = health is not None and health.has("error_ratio")
        if agreed and health is not None:
            c.cite(health.obs, health.fact)
        c.status, c.confidence = (
            ("confirmed", _CONFIRMED) if agreed and not slow else ("likely", _LEAD)
        )
        c.chain = [
            board.symptom(),
            f"{service} answers 5xx itself: {short(first, 120)}",
            c.statement,
        ]
        c.keywords = [layers.HTTP, "queue", "maxconn", "503", service]
        if c.status != "confirmed":
            continue
        app = board.candidates.get(f"{layers.APPLICATION}:{service}")
        if app is not None and app.status != "ruled_out":
            app.explained_by(c, f"explained by {c.id}: its own queue limit")
