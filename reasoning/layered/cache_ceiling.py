"""A cache at its connection ceiling behind a database at its own (issue 21 class 4): the quieter ceiling, hit first, is the cause.

A cache in front of a database refuses new clients once its own connection limit is spent
(memcached's `maxconns`, Redis's `max number of clients reached`). The clients it refuses do not
fail: they miss the cache and ask the database, which then runs out of connections and CPU and is
what pages (`Too many connections`, `max_connections`). Both ceilings are in the logs, and the
database's is the louder and the one an alert names; the cache's came first. When a database's
connection ceiling shows in a group read, the planner searches every service's lines for a cache's
ceiling (`searches`); a cache whose ceiling lines start no later than the database's first refusal
is the application fault, and the database's hypotheses are explained by it. A cache that hit its
ceiling only after the database did is a victim of the same load, not its cause.
"""

import re
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any, Final

from reasoning import layers
from reasoning.layered import unread_services
from reasoning.layered.candidates import Board
from reasoning.layered.facts import FACT_CHARS, Facts, parse_time
from reasoning.layered.reading import as_dict, every_service_lines, iso, short
from reasoning.observations import Investigation, Observation
from reasoning.tools import SEARCH_LOGS

# A database refusing connections at its ceiling.
DATABASE_CEILING: Final = re.compile(
    r"\btoo many connections\b|\bmax_connections\b|remaining connection slots are reserved|"
    r"\bsorry, too many clients already\b|\bconnection limit exceeded\b",
    re.IGNORECASE,
)
# A cache refusing connections at its ceiling.
CACHE_CEILING: Final = re.compile(
    r"\bmaxconns\b|\bmax number of clients reached\b|\bmaxclients\b[^\n]{0,40}\breached\b",
    re.IGNORECASE,
)
SEARCH: Final = (
    r"(?i)maxconns|max number of clients reached|maxclients[^\n]{0,40}reached"
)
SEARCH_LIMIT: Final = 20
SLACK: Final = timedelta(minutes=1)  # lines a minute apart are the same moment
_LABELS: Final = ("host", "hostname", "instance", "node", "pod")
_CONFIDENCE: Final = 0.93


def _database_refusals(
    inv: Investigation, facts: Facts
) -> list[tuple[str, datetime | None]]:
    """(service, first refusal) of each group read that shows a database's connection ceiling."""
    found: list[tuple[str, datetime | None]] = []
    for service, errors in unread_services.every_service_errors(inv, facts):
        for group in (*errors.groups, *errors.warnings):
            text = (group.sample or group.signature)[:2000]
            if DATABASE_CEILING.search(text) and not CACHE_CEILING.search(text):
                found.append((service, parse_time(group.first_seen)))
    return found


def _first(refusals: list[tuple[str, datetime | None]]) -> datetime | None:
    return min((at for _, at in refusals if at is not None), default=None)


def searches(
    inv: Investigation,
    facts: Facts,
    call: Callable[[str, dict[str, Any], str], Any],
    window: dict[str, str],
) -> list[Any]:
    """When a database refuses at its connection ceiling: every service's lines of a cache at its own."""
    refusals = _database_refusals(inv, facts)
    if not refusals:
        return []
    # Up to the database's first refusal: the search answers the newest lines first.
    bounded = dict(window)
    first = _first(refusals)
    if first is not None:
        bounded["end"] = iso(first + SLACK)
    return [
        call(
            SEARCH_LOGS,
            {"query": SEARCH, "regex": True, **bounded, "limit": SEARCH_LIMIT},
            "a database refuses at its connection ceiling: did a cache in front of it reach "
            "its own first (its refused clients fall through to the database)",
        )
    ]


def _label(labels: dict[str, Any]) -> str:
    for key in _LABELS:
        value = str(labels.get(key) or "").strip()
        if value:
            return value[:253]
    return ""


def cache_ceiling(board: Board) -> None:
    """A cache refusing clients at its connection ceiling (memcached `maxconns`, Redis `max number of clients reached`) no later than a database behind it refuses at its own is the application fault: its refused clients fall through to the database, which is a victim."""
    refusals = _database_refusals(board.inv, board.facts)
    if not refusals:
        return
    first_refusal = _first(refusals)
    lines: list[tuple[Observation, str, str, datetime | None, str]] = []
    for obs, line in every_service_lines(board.inv, SEARCH):
        message = str(line.get("message") or "")[:2000]
        service = str(line.get("service") or "")
        if not service or not CACHE_CEILING.search(message):
            continue
        at = parse_time(str(line.get("time") or ""))
        lines.append((obs, service, message, at, _label(as_dict(line.get("labels")))))
    if not lines:
        return
    earliest = min(
        (line for line in lines if line[3] is not None),
        key=lambda line: line[3] or datetime.max,
        default=lines[0],
    )
    obs, service, message, at, host = earliest
    if first_refusal is not None and at is not None and at > first_refusal + SLACK:
        return  # the cache reached its ceiling after the database: the same load's victim
    component = host or service
    databases = {s for s, _ in refusals}
    c = board.get(
        layers.APPLICATION,
        component,
        f"{component} refuses clients at its connection ceiling ({short(message, 100)}): "
        f"they miss the cache and fall through to {', '.join(sorted(databases))}, "
        "which runs out of connections in turn",
    )
    c.cite(
        obs,
        short(f"search_logs(every service): {service}: {message}", FACT_CHARS),
    )
    if c.confidence < _CONFIDENCE:
        c.status, c.confidence = "confirmed", _CONFIDENCE
    c.chain = [board.symptom(), short(message, 160), c.statement]
    c.keywords += [
        k for k in (component, "maxconns", "connection limit") if k not in c.keywords
    ]
    for other in board.candidates.values():
        if other is c or other.layer != layers.APPLICATION:
            continue
        if other.component in databases or DATABASE_CEILING.search(other.statement):
            other.explained_by(
                c, f"its clients fell through a cache at its ceiling ({c.id})"
            )
