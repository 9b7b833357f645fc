"""One search of every service's logs for what a node's own software says (its kernel, its
kubelet): asked once per pattern, within the incident's window."""

from collections.abc import Callable
from typing import Any

from reasoning.observations import Investigation, PlannedCall
from reasoning.tools import SEARCH_LOGS


def search_once(
    inv: Investigation,
    call: Callable[[str, dict[str, Any], str], PlannedCall | None],
    query: str,
    *,
    limit: int,
    why: str,
) -> list[PlannedCall | None]:
    """The regex search of `query` across every service, unless it was already asked."""
    if any(
        o.tool == SEARCH_LOGS and o.arguments.get("query") == query
        for o in inv.observations
    ):
        return []
    window: dict[str, str] = {}
    if inv.incident.window_start and inv.incident.window_end:
        window = {"start": inv.incident.window_start, "end": inv.incident.window_end}
    return [
        call(
            SEARCH_LOGS, {"query": query, "regex": True, **window, "limit": limit}, why
        )
    ]
