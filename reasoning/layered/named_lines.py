"""The lines read for a quiet fault's own words: every service's lines naming a path element, a producer's liveness lines.

A fault that logs little (a tunnel down, a producer that stopped) is found in the metrics
(`path_elements`, `stalled_output`); what it says in words is read next, so the hypothesis cites it:
every service's lines naming the element that is down (a monitor, a firewall), the producer's own
lines of its lease, leadership or heartbeat (a standby waiting on a leader that holds the lease).
"""

import re
from typing import Final

from reasoning.layered.facts import FACT_CHARS
from reasoning.layered.reading import as_dict, as_list, short
from reasoning.observations import Investigation, Observation
from reasoning.tools import SEARCH_LOGS

# A producer's words about who may produce: its lease, its leadership, its heartbeat.
LIVENESS: Final = (
    r"lease|leader|heartbeat|standby|standing by|held by|renew|elected|fenc"
)
LIMIT: Final = 10


def element_search(element: str, window: dict[str, str]) -> dict[str, object]:
    """search_logs' arguments for every service's lines naming `element` in the window."""
    return {"query": element, **window, "limit": LIMIT}


def liveness_search(service: str, window: dict[str, str]) -> dict[str, object]:
    """search_logs' arguments for `service`'s own lines of its lease, leadership or heartbeat."""
    return {
        "service": service,
        "query": LIVENESS,
        "regex": True,
        **window,
        "limit": LIMIT,
    }


def said(inv: Investigation) -> dict[str, list[tuple[Observation, str]]]:
    """What the searches above answered: the element's or the producer's name → (answer, fact) a line."""
    found: dict[str, list[tuple[Observation, str]]] = {}
    for obs in inv.observations:
        if obs.tool != SEARCH_LOGS or not obs.is_ok:
            continue
        query = str(obs.arguments.get("query") or "")
        service = str(obs.arguments.get("service") or "")
        if query == LIVENESS and service:
            subject = service.lower()
        elif not service and query and not obs.arguments.get("regex"):
            subject = query.lower()
        else:
            continue
        seen: set[str] = set()
        for line in map(as_dict, as_list(as_dict(obs.result).get("lines"))):
            message = str(line.get("message") or "")
            shape = re.sub(r"\d+", "<n>", message)
            if not message or shape in seen:
                continue
            seen.add(shape)
            who = str(line.get("service") or service or "?")
            fact = short(f"search_logs({who}): {message}", FACT_CHARS)
            found.setdefault(subject, []).append((obs, fact))
    return found
