"""A shared back end at its capacity limit (issue 21 class 4): the client it names as holding it is the cause, not the callers that fail.

A database, cache or broker that refuses new clients (`too many clients`, `remaining connection
slots`, `max_connections`, `maxclients`, `maxmemory`, a quota) fails every client alike; the loudest
of them is only the one that calls most. The back end's own lines (not a request line that quotes
them) say it is full, and often whose connections or keys fill it (`application_name=…`, a client
the logs know). When a caller's error quotes such words, the planner searches every service's lines
for them (`SEARCH`) to find the back end, reads its logs, then the client it names
(`to_read`). The named client is the cause, its demand stepping up at the start (its own pool or
connection gauge, `metric_trends.stepped_up`) corroborating it; the callers are its victims. When
the back end names none, a client whose connections stepped up at the start and that does not fail
itself is the cause (a failing caller's pool fills because the back end is slow: its symptom). A
back end full with neither is a lead only: a full back end is as often a victim of what sends it
more work.
"""

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

from reasoning import layers
from reasoning.layered import metric_trends
from reasoning.layered.candidates import Board, Candidate
from reasoning.layered.facts import ErrorGroup, Errors, Facts
from reasoning.layered.reading import arg, as_dict, as_list, short
from reasoning.layered.resolution import known_names
from reasoning.observations import Investigation, Observation
from reasoning.tools import SEARCH_LOGS

# A back end's words for refusing a client because it is full.
CAPACITY: Final = re.compile(
    r"too many (?:clients|connections)|remaining connection slots|max_?connections|maxclients|"
    r"max(?:imum)? number of clients|maxmemory|connection limit|out of connection slots|"
    r"quota exceeded",
    re.IGNORECASE,
)
# The same, as a RE2 pattern for the logs' search of every service.
SEARCH: Final = (
    r"too many (clients|connections)|remaining connection slots|max_?connections|maxclients|"
    r"max(imum)? number of clients|maxmemory|connection limit|quota exceeded"
)
# A line about a request that failed (a caller's), not the back end's own statement: a method and
# path, a status, or a call that `failed: 429` / `returned 503` (the remote's answer it quotes).
REQUEST_LINE: Final = re.compile(
    r"\b(?:GET|POST|PUT|PATCH|DELETE)\s+/|\bHTTP/\d|\b[45]\d\d:\s|could not acquire|"
    r"failed to (?:connect|acquire)|"
    r"\b(?:failed|returned|answered|responded|status(?: code)?)[ =:]+[45]\d\d\b",
    re.IGNORECASE,
)
# How a back end names a client in its own lines: a client label, or words that name any service.
CLIENT: Final = re.compile(
    r"\b(?:application_?name|app_?name|program_?name|client_?name|client_?id)[\"']?[=: ]+[\"']?"
    r"([a-z][a-z0-9_.-]*[a-z0-9])",
    re.IGNORECASE,
)
SEARCH_LIMIT: Final = 50
_CONFIDENCE = 0.88
_STEPPED_CONFIDENCE = 0.86


@dataclass(frozen=True)
class Full:
    """A back end's own line saying it is full, and the client it names (if any)."""

    backend: str
    obs: Observation
    fact: str
    line: str
    client: str | None


def quoting(facts: Facts) -> list[tuple[Errors, ErrorGroup]]:
    """Callers' error lines about a failed request that quote a back end's capacity words."""
    found = []
    for errors in facts.errors.values():
        for group in errors.groups:
            text = group.sample or group.signature
            if CAPACITY.search(text) and REQUEST_LINE.search(text):
                found.append((errors, group))
                break
    return found


def needs_search(inv: Investigation, facts: Facts) -> bool:
    """A caller quotes a full back end and no read shows whose own words they are yet."""
    return bool(quoting(facts)) and not any(_fulls(inv, facts))


def to_read(inv: Investigation, facts: Facts) -> list[str]:
    """The full back ends the search found and the clients they name, not yet read."""
    names: list[str] = []
    for full in _fulls(inv, facts):
        for name in (full.backend, full.client):
            if name and name not in facts.errors and name not in names:
                names.append(name)
    return names


def known_services(facts: Facts, inv: Investigation) -> set[str]:
    """The services the logs know by name."""
    return {
        name
        for name, sources in known_names(inv, facts).services.items()
        if "logs" in sources
    }


def client_named(text: str, backend: str, known: set[str]) -> str | None:
    """The client a back end's own line names: by a client label, or a service the logs know."""
    for match in CLIENT.finditer(text):
        name = match.group(1).lower()
        if name != backend:
            return name
    lowered = text.lower()
    named = [
        n for n in known if n != backend and re.search(rf"\b{re.escape(n)}\b", lowered)
    ]
    return max(named, key=len) if named else None


def _fulls(inv: Investigation, facts: Facts) -> Iterator[Full]:
    """Every back end's own line saying it is full: from its logs read, then from searches."""
    known = known_services(facts, inv)
    for errors in facts.errors.values():
        for group in (*errors.groups, *errors.warnings):
            text = group.sample or group.signature
            if group.is_stale or not CAPACITY.search(text) or REQUEST_LINE.search(text):
                continue
            yield Full(
                errors.service,
                errors.obs,
                errors.fact(group),
                text,
                client_named(text, errors.service, known),
            )
    for obs in inv.observations:
        if obs.tool != SEARCH_LOGS or not obs.is_ok or arg(obs, "service"):
            continue
        for line in map(as_dict, as_list(as_dict(obs.result).get("lines"))):
            service = str(line.get("service") or "").lower()
            text = str(line.get("message") or "")
            if not service or not CAPACITY.search(text) or REQUEST_LINE.search(text):
                continue
            yield Full(
                service,
                obs,
                short(f"search_logs(every service): {service}: {text}", 300),
                text,
                client_named(text, service, known),
            )


def shared_capacity(board: Board) -> None:
    """A shared back end whose own lines say it is full is filled by the client it names, else by a client that does not fail itself whose connections stepped up at the start: that client is the cause and the callers that fail are its victims; a full back end with neither is a lead."""
    fulls = list(_fulls(board.inv, board.facts))
    named = next((f for f in fulls if f.client is not None), None)
    if named is not None and named.client is not None:
        _blame(board, named.client, named, fulls)
        return
    changed = _changed(board, fulls)
    if changed is not None:
        _blame(board, changed.service, fulls[0], fulls)
        return
    for full in fulls:
        if full.backend in board.facts.errors:
            _lead(board, full)


def _changed(board: Board, fulls: list[Full]) -> metric_trends.Trend | None:
    """A client whose connections or pool stepped up at the start and that does not fail itself
    (a failing caller's pool fills because the back end is slow: that is its symptom)."""
    if not fulls:
        return None
    backends = {f.backend for f in fulls}
    callers = {e.service for e, _ in quoting(board.facts)}
    for trend in metric_trends.stepped_up(board.inv):
        if trend.service in backends or trend.service in callers:
            continue
        if not _fails(board.facts, trend.service):
            return trend
    return None


def _fails(facts: Facts, service: str) -> bool:
    health = facts.health.get(service)
    errors = facts.errors.get(service)
    return (health is not None and health.verdict in ("degraded", "unhealthy")) or (
        errors is not None and any(not g.is_stale for g in errors.groups)
    )


def _lead(board: Board, full: Full) -> None:
    c = board.get(
        layers.APPLICATION,
        full.backend,
        f"{full.backend} is at its capacity limit: {short(full.line, 100)}",
    )
    if c.stage is not None:
        return
    c.cite(full.obs, full.fact)
    if c.status != "confirmed":
        c.status, c.confidence = "likely", max(c.confidence, 0.5)


def _blame(board: Board, client: str, full: Full, fulls: list[Full]) -> None:
    how = (
        f"names {client}'s connections or keys"
        if full.client == client
        else f"{client}'s connections to it stepped up at the start"
    )
    c = board.get(
        layers.APPLICATION,
        client,
        f"{client} fills the shared {full.backend}: {full.backend} is at its capacity limit and {how}",
    )
    c.cite(full.obs, full.fact)
    for other in fulls:
        if other is not full and other.backend == full.backend and other.client is None:
            c.cite(other.obs, other.fact)
            break
    stepped = next(
        (t for t in metric_trends.stepped_up(board.inv) if t.service == client), None
    )
    if stepped is not None:
        c.cite(stepped.obs, stepped.fact)
    victims = [(e, g) for e, g in quoting(board.facts) if e.service != client]
    for errors, group in victims[:2]:
        c.cite(errors.obs, errors.fact(group))
    # Named by the back end (and its demand stepped up too), or shown only by its own metrics.
    confidence = (
        _CONFIDENCE + 0.04 * (stepped is not None)
        if full.client == client
        else _STEPPED_CONFIDENCE
    )
    c.status, c.confidence = "confirmed", max(c.confidence, confidence)
    c.chain = [
        board.symptom(),
        *(
            f"{e.service} fails on the full back end: {short(g.sample or g.signature, 100)}"
            for e, g in victims[:2]
        ),
        f"{full.backend} logs: {short(full.line, 120)}",
        *([f"{client}: {stepped.words}"] if stepped else []),
        c.statement,
    ]
    c.keywords = [
        client,
        full.backend,
        "max_connections",
        "connection limit",
        "pool size",
    ]
    for errors, _ in victims:
        _victim(board.candidates.get(f"{layers.APPLICATION}:{errors.service}"), c)
    _victim(board.candidates.get(f"{layers.APPLICATION}:{full.backend}"), c)


def _victim(victim: Candidate | None, cause: Candidate) -> None:
    if victim is not None:
        victim.explained_by(
            cause, f"a symptom of {cause.id} (it fills the shared back end)"
        )
