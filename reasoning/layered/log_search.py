"""One regex search of every service's logs within the incident's window (from `lead` before its
start), asked once per pattern: node software lines, kernel kills, a runtime's start-up lines."""

from collections.abc import Callable
from datetime import timedelta
from typing import Any

from reasoning.layered.facts import parse_time
from reasoning.observations import Investigation, PlannedCall
from reasoning.tools import SEARCH_LOGS

Call = Callable[[str, dict[str, Any], str], PlannedCall | None]


def search_once(
    inv: Investigation,
    call: Call,
    query: str,
    *,
    limit: int,
    why: str,
    lead: timedelta = timedelta(0),
) -> list[PlannedCall | None]:
    """The regex search of `query` across every service in the incident's window (from `lead`
    before its start), unless asked."""
    if any(
        o.tool == SEARCH_LOGS and o.arguments.get("query") == query
        for o in inv.observations
    ):
        return []
    window: dict[str, str] = {}
    if inv.incident.window_start and inv.incident.window_end:
        window = {"start": inv.incident.window_start, "end": inv.incident.window_end}
        began = parse_time(inv.incident.window_start)
        if lead and began is not None:
            window["start"] = (began - lead).isoformat().replace("+00:00", "Z")
    return [
        call(
            SEARCH_LOGS, {"query": query, "regex": True, **window, "limit": limit}, why
        )
    ]
