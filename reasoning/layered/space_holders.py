"""A back end out of space because something keeps data for a reader that stopped reading: the warning naming that holder, logged for hours before, is the evidence (issue 21 class 4).

When a database's, broker's or store's own lines say its disk, volume or log is full (`No space
left on device`), the write that failed last (a nightly import, a burst of traffic) is the trigger.
What used the space up is often something kept for a consumer that no longer consumes it: an
inactive replication slot retaining the write-ahead log, a subscription or consumer group nobody
reads, a standby that stopped replaying, an orphaned snapshot. A monitor or the back end itself
says so at warn level for hours or days before, naming the back end and what is retained or
inactive, and nobody reads it: it is not an error and it falls before the window. When a service's
own lines say its space is exhausted, the planner searches every service's lines over the hours
before the window for lines naming that service and words of retention or inactivity
(`searches`); the newest such line is cited on the service's hypothesis as what filled it
(`space_holders`). The exhaustion line itself and a request's failure are not holders.
"""

import re
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any, Final

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.echoed_errors import EXHAUSTED, QUOTED_CALL
from reasoning.layered.facts import Facts
from reasoning.layered.reading import arg, as_dict, as_list, short
from reasoning.observations import Investigation, Observation, PlannedCall
from reasoning.tools import SEARCH_LOGS

# Words of something kept and not released: retained, held, inactive, orphaned, unconsumed.
HOLDER_QUERY: Final = (
    r"(retain|retention|\bheld\b|holding|inactive|active ?[=:] ?(false|no|f\b|0\b)|"
    r"orphan|abandon|unconsumed|not consumed|unused|stale|pinned|backlog)"
)
HOLDER: Final = re.compile(HOLDER_QUERY, re.IGNORECASE)
LOOKBACK: Final = timedelta(hours=6) - timedelta(
    minutes=1
)  # within the logs server's 6 h
_SEARCH_LIMIT: Final = 20
_CONFIDENCE: Final = (
    0.9  # the back end's own exhaustion and a line naming what held its space
)


def exhausted_services(facts: Facts) -> list[str]:
    """Services whose own error lines (not a request's failure they relay) say their space is used up."""
    out: list[str] = []
    for errors in facts.errors.values():
        for group in errors.groups:
            text = group.sample or group.signature
            if any(p.search(text) for p in EXHAUSTED) and not QUOTED_CALL.search(text):
                out.append(errors.service)
                break
    return out


def _parse(value: str) -> datetime | None:
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def lookback(window: dict[str, str]) -> dict[str, str]:
    """The window stretched back to `LOOKBACK` before its end (a holder warns long before)."""
    end = _parse(window.get("end", ""))
    start = _parse(window.get("start", ""))
    if end is None or start is None or end - start >= LOOKBACK:
        return dict(window)
    begin = (end - LOOKBACK).isoformat(timespec="seconds").replace("+00:00", "Z")
    return {"start": begin, "end": window["end"]}


def searches(
    facts: Facts,
    call: Callable[[str, dict[str, Any], str], PlannedCall | None],
    window: dict[str, str],
) -> list[PlannedCall | None]:
    """Every service's lines naming a back end out of space and what it retains, over the hours before."""
    calls: list[PlannedCall | None] = []
    for service in exhausted_services(facts)[:2]:
        name = re.escape(service)
        calls.append(
            call(
                SEARCH_LOGS,
                {
                    "query": f"(?i){name}.*{HOLDER_QUERY}|{HOLDER_QUERY}.*{name}",
                    "regex": True,
                    **lookback(window),
                    "limit": _SEARCH_LIMIT,
                },
                f"{service} is out of space: lines naming what it retains for a reader "
                "that stopped (hours before the window)",
            )
        )
    return calls


def holder_lines(
    inv: Investigation, service: str
) -> list[tuple[Observation, str, str, str]]:
    """(observation, logging service, time, message) of lines naming `service` and something it
    retains or holds inactive, newest first; the exhaustion and requests' failures left out."""
    found: list[tuple[Observation, str, str, str]] = []
    for obs in inv.observations:
        if obs.tool != SEARCH_LOGS or not obs.is_ok or arg(obs, "service"):
            continue
        for line in map(as_dict, as_list(as_dict(obs.result).get("lines"))):
            message = str(line.get("message") or "")[:4000]
            if (
                service.lower() not in message.lower()
                or not HOLDER.search(message)
                or any(p.search(message) for p in EXHAUSTED)
                or QUOTED_CALL.search(message)
            ):
                continue
            found.append(
                (
                    obs,
                    str(line.get("service") or ""),
                    str(line.get("time") or ""),
                    message,
                )
            )
    found.sort(key=lambda f: f[2], reverse=True)
    return found


def space_holders(board: Board) -> None:
    """A back end whose own lines say its space is used up cites the newest line naming it and what it retains for a reader that stopped (an inactive slot, an unread subscription): what filled it, not the write that failed last."""
    for service in exhausted_services(board.facts):
        c = board.candidates.get(f"{layers.APPLICATION}:{service}")
        if c is None or c.status == "ruled_out":
            continue
        held = holder_lines(board.inv, service)
        if not held:
            continue
        obs, logger, _, message = held[0]
        fact = short(
            f"search_logs(every service): {logger or service}: {message}"
            + (f" (and {len(held) - 1} more such lines)" if len(held) > 1 else ""),
            300,
        )
        c.cite(obs, fact)
        c.statement += f"; its space is held: {short(message, 120)}"
        c.chain.append(f"{logger or service} warned before: {short(message, 120)}")
        c.keywords = [*c.keywords, "retained", "space held"]
        c.confidence = max(c.confidence, _CONFIDENCE)
