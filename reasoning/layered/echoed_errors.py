"""A caller that quotes a back end's own error word for word relays it: the back end's fault explains the caller's loud errors.

A service whose error line carries another program's message (a database's `ERROR:` or `HINT:` text, a
SQLSTATE, the exception its driver raises for the server's error) shows what its back end said, not a
fault of its own. When a resource exhaustion (`No space left on device`, a full disk or WAL, a lock
table `out of shared memory`) is quoted that way, every service's lines are searched for the same words
(`searches`); the service whose own lines say them without quoting anyone is the origin: its
application hypothesis is confirmed, and the caller's becomes its symptom. When several services say
them (other clients relay the words too), the one saying them in a server's own voice (its line opens
with its severity, `ERROR:`) is the origin.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from reasoning import layers
from reasoning.layered.candidates import Board, Candidate
from reasoning.layered.facts import ErrorGroup, Errors, Facts
from reasoning.layered.reading import arg, as_dict, as_list, short
from reasoning.observations import Investigation, Observation, PlannedCall
from reasoning.tools import SEARCH_LOGS

# A resource of the back end used up (its disk, its write-ahead log's volume), the plainest words first.
EXHAUSTED = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (
        r"no space left on device",
        r"ENOSPC",
        r"(?:disk|volume|filesystem|wal) (?:is )?full",
        r"could not (?:extend|write to) file",
        r"out of shared memory",
        r"exceeds the lock table size",
    )
)
# The marks of another program's message inside a caller's line: a database's own prefix, code or
# hint, or the exception its client driver raises for the server's error.
QUOTED = re.compile(
    r"\b(?:ERROR|FATAL|PANIC|HINT|DETAIL):\s|SQLSTATE|\bORA-\d{4,5}\b|\bERRCODE\b|"
    r"\b(?:psycopg2?\.errors|asyncpg\.exceptions|pymysql\.err|MySQLdb\.\w+|sqlalchemy\.exc)\.|"
    r"\bPSQLException\b|\bPG::\w+|\bpq:\s",
    re.IGNORECASE,
)
# A back end's own voice: its line opens with its severity (after at most a few stamp or pid words),
# where a relaying client's opens with its own words ("digest failed: out of ...").
OWN_VOICE = re.compile(r"^\s*(?:\S*[^\s:] ){0,4}?(?:ERROR|FATAL|PANIC|LOG|WARNING):\s")
_SEARCH_LIMIT = 20
_CONFIDENCE = 0.88  # the origin's own lines and its caller's quote agree


@dataclass(frozen=True)
class _Quote:
    errors: Errors
    group: ErrorGroup
    words: str  # the exhaustion words, as the caller quotes them


def quoted_exhaustion(errors: Errors) -> _Quote | None:
    """The caller's first error group quoting a back end's resource exhaustion, if any."""
    for group in errors.groups:
        text = group.sample or group.signature
        match = next((m for p in EXHAUSTED if (m := p.search(text))), None)
        if match is not None and QUOTED.search(text):
            return _Quote(errors, group, match.group(0))
    return None


def searches(
    facts: Facts,
    call: Callable[[str, dict[str, Any], str], PlannedCall | None],
    window: dict[str, str],
) -> list[PlannedCall | None]:
    """Every service's lines with the exhaustion words a caller quotes, to find whose own they are."""
    calls: list[PlannedCall | None] = []
    for errors in facts.errors.values():
        quote = quoted_exhaustion(errors)
        if quote is None:
            continue
        calls.append(
            call(
                SEARCH_LOGS,
                {"query": quote.words, **window, "limit": _SEARCH_LIMIT},
                f"{errors.service} quotes a back end's '{quote.words}': whose own lines say it",
            )
        )
    return calls


def _lines(inv: Investigation, words: str) -> list[tuple[Observation, dict[str, Any]]]:
    """Lines of searches over every service that hold `words`."""
    out: list[tuple[Observation, dict[str, Any]]] = []
    for obs in inv.observations:
        if obs.tool != SEARCH_LOGS or not obs.is_ok or arg(obs, "service"):
            continue
        for line in map(as_dict, as_list(as_dict(obs.result).get("lines"))):
            if words.lower() in str(line.get("message") or "").lower():
                out.append((obs, line))
    return out


def echoed_errors(board: Board) -> None:
    """A back end whose own lines say the resource exhaustion its caller quotes is the cause of the caller's errors; the caller is its symptom."""
    for errors in list(board.facts.errors.values()):
        quote = quoted_exhaustion(errors)
        if quote is None:
            continue
        origins: dict[str, list[tuple[Observation, str]]] = {}
        for obs, line in _lines(board.inv, quote.words):
            service = str(line.get("service") or "").lower()
            message = str(line.get("message") or "")
            if (
                not service
                or service == errors.service.lower()
                or QUOTED_CALL.search(message)
            ):
                continue
            origins.setdefault(service, []).append((obs, message))
        if len(origins) > 1:
            # Other clients relay the same words; the back end says them in its own voice.
            origins = {
                s: ls
                for s, ls in origins.items()
                if any(OWN_VOICE.search(m) for _, m in ls)
            }
        if len(origins) == 1:
            origin, lines = next(iter(origins.items()))
            _blame(board, quote, origin, lines)


# A line about a request that failed (a caller's), not the back end's own statement.
QUOTED_CALL = re.compile(r"\b(?:GET|POST|PUT|PATCH|DELETE)\s+/|\bHTTP/\d|\b[45]\d\d:\s")


def _blame(
    board: Board, quote: _Quote, origin: str, lines: list[tuple[Observation, str]]
) -> None:
    caller = quote.errors.service
    c = board.get(
        layers.APPLICATION,
        origin,
        f"{origin} itself fails: its own logs say {short(quote.words, 60)}, which {caller} relays",
    )
    obs, message = lines[0]
    c.cite(obs, short(f"search_logs(every service): {origin}: {message}", 300))
    c.cite(quote.errors.obs, quote.errors.fact(quote.group))
    health = board.facts.health.get(caller)
    if health is not None and health.verdict in ("degraded", "unhealthy"):
        c.cite(health.obs, health.fact)
    c.status, c.confidence = "confirmed", max(c.confidence, _CONFIDENCE)
    c.chain = [
        board.symptom(),
        f"{caller} relays {origin}'s own error: {short(quote.group.sample or quote.group.signature, 120)}",
        f"{origin} logs: {short(message, 120)}",
        c.statement,
    ]
    c.keywords = [origin, quote.words, "disk full", "resource exhausted"]
    own = board.candidates.get(f"{layers.APPLICATION}:{caller}")
    if own is not None and own.status != "ruled_out":
        _relays(own, c)


def _relays(victim: Candidate, cause: Candidate) -> None:
    """The caller's own hypothesis is the origin's symptom: a lead below it."""
    victim.status, victim.confidence = "likely", min(victim.confidence, 0.4)
    victim.statement += (
        f"; a symptom of {cause.id} (it relays {cause.component}'s own error)"
    )
