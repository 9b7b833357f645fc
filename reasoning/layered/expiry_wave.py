"""Cache keys that all expire at once (issue 21 class 4): the writer that gave them one TTL without spread is the cause, the miss flood and the overwhelmed database its effects.

A cache warmer, importer or batch writes a great many keys in a few minutes with the same time to
live (`EX 86400 jitter=0`). One TTL later they expire together; every read misses at once, the
callers reload from the database together and the database chokes (too many connections, slow
queries). The callers' new warnings say they miss the cache (`cache miss product:42, loading
from db`); the database and the callers are loud, the writer logged one line at info a TTL
before. When a service's new lines say it misses the cache, the planner searches every service's
lines for a TTL (`SEARCH`) over the last hours, then, when no writer is there, around a day before
the first miss (a daily TTL). A writer is the
cause when its own line, not at error level, says it wrote, set or warmed keys with a TTL, it does
not fail itself, it wrote before the first miss, and either its line says the TTL has no spread
(`jitter=0`, `no jitter`) or a cache's line says keys expired en masse before the misses
(`expired_keys`, a key count falling).
"""

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.facts import ErrorGroup, Errors, Facts, parse_time
from reasoning.layered.reading import every_service_lines, iso, short
from reasoning.observations import Investigation, Observation, PlannedCall
from reasoning.tools import SEARCH_LOGS

# A key's time to live in a writer's or a cache's words (RE2 for the logs server).
SEARCH: Final = r"(?i)(\bex \d|\bttl\b|\bexpir|\bjitter)"
SEARCH_LIMIT: Final = 40
# Within the logs server's longest search (6 h).
SPAN: Final = timedelta(hours=5, minutes=58)
DAY: Final = timedelta(days=1)  # the commonest TTL: a writer a day before the misses
# A caller's words for a read that missed the cache and went to the database.
MISS: Final = re.compile(
    r"\bcache[ _-]?miss(?:es|ed)?\b|\bmissed (?:the )?cache\b|\bnot (?:found )?in (?:the )?cache\b",
    re.IGNORECASE,
)
# A writer saying it wrote keys with a TTL.
_WROTE: Final = re.compile(
    r"\b(?:wrote|written|writing|set|stored|cached|warmed|loaded|refreshed|populated|primed)\b",
    re.IGNORECASE,
)
_TTL: Final = re.compile(r"\bEX \d{1,9}\b|\bttl\b|\bexpir\w{0,10}\b", re.IGNORECASE)
# The TTL given without spread: `jitter=0`, `no jitter`, `without jitter`.
_NO_JITTER: Final = re.compile(
    r"\bjitter[\s:=]{1,3}(?:0(?:\.0+)?|none|off|false|disabled)\b|\b(?:no|without) jitter\b",
    re.IGNORECASE,
)
# A cache saying keys expired en masse: an expired-keys count, a key count falling.
_EXPIRED: Final = re.compile(
    r"\bexpired[_ ]keys\b|\bkeys expired\b|\bmass expir\w{0,6}\b", re.IGNORECASE
)
_NOT_WRITER_LEVELS: Final = frozenset(
    {"error", "err", "fatal", "critical", "crit", "panic"}
)
_TEXT_CHARS: Final = 4000
_CONFIDENCE = 0.88


@dataclass(frozen=True)
class _Line:
    service: str
    obs: Observation
    text: str
    level: str
    at: datetime | None

    @property
    def fact(self) -> str:
        return short(f"search_logs(every service): {self.service}: {self.text}", 300)


def _misses(facts: Facts) -> list[tuple[Errors, ErrorGroup]]:
    """Each service's first new error or warning saying it missed the cache."""
    found = []
    for errors in facts.errors.values():
        group = next(
            (
                g
                for g in (*errors.warnings, *errors.groups)
                if g.is_new and MISS.search((g.sample or g.signature)[:_TEXT_CHARS])
            ),
            None,
        )
        if errors.service and group is not None:
            found.append((errors, group))
    return found


def searches(
    inv: Investigation,
    facts: Facts,
    call: Callable[[str, dict[str, Any], str], PlannedCall | None],
    window: dict[str, str],
) -> list[PlannedCall | None]:
    """Every service's lines naming a TTL, once a service's new lines say it misses the cache: the
    last `SPAN` first, then, when no writer was in it, the `SPAN` around a day before the first miss
    (a daily TTL)."""
    end = parse_time(window.get("end", ""))
    misses = _misses(facts)
    first = _first_miss(misses)
    if end is None or first is None:
        return []
    asked = [
        o
        for o in inv.observations
        if o.tool == SEARCH_LOGS and o.arguments.get("query") == SEARCH
    ]
    if not asked:
        span = (end - SPAN, end)
        why = "reads miss the cache at once: which writer gave the keys one TTL"
    elif len(asked) == 1 and not _writers(inv):
        span = (first - DAY - SPAN / 2, first - DAY + SPAN / 2)
        why = "no TTL writer in the last hours: a day before the misses (a daily TTL)"
    else:
        return []
    arguments = {
        "query": SEARCH,
        "regex": True,
        "start": iso(span[0]),
        "end": iso(span[1]),
        "limit": SEARCH_LIMIT,
    }
    return [call(SEARCH_LOGS, arguments, why)]


def _first_miss(misses: list[tuple[Errors, ErrorGroup]]) -> datetime | None:
    return min(
        (t for _, g in misses if (t := parse_time(g.first_seen)) is not None),
        default=None,
    )


def _writers(inv: Investigation) -> list["_Line"]:
    """Lines, not at error level, saying keys were written with a TTL."""
    return [
        x
        for x in _lines(inv)
        if x.level not in _NOT_WRITER_LEVELS
        and _WROTE.search(x.text)
        and _TTL.search(x.text)
        and not _EXPIRED.search(x.text)
    ]


def _lines(inv: Investigation) -> list[_Line]:
    found = []
    for obs, entry in every_service_lines(inv, SEARCH):
        service = str(entry.get("service") or "").lower()
        text = str(entry.get("message") or "")[:_TEXT_CHARS]
        if service and text:
            found.append(
                _Line(
                    service,
                    obs,
                    text,
                    str(entry.get("level") or "").lower(),
                    parse_time(str(entry.get("time") or "")),
                )
            )
    found.sort(key=lambda x: (x.at is None, x.at or datetime.min))
    return found


def _fails(facts: Facts, service: str) -> bool:
    errors = facts.errors.get(service)
    return errors is not None and any(g.is_new for g in errors.groups)


def expiry_wave(board: Board) -> None:
    """Services whose new lines miss the cache, after a writer's own line set many keys one TTL without spread (or before a cache logged keys expiring en masse), blame that writer (application); the missing callers and the database they flood are its victims."""
    misses = _misses(board.facts)
    if not misses:
        return
    first_miss = _first_miss(misses)
    lines = _lines(board.inv)
    expired = next(
        (
            x
            for x in lines
            if _EXPIRED.search(x.text)
            and (
                first_miss is None
                or x.at is None
                or x.at <= first_miss + timedelta(minutes=2)
            )
        ),
        None,
    )
    writers = [
        x
        for x in _writers(board.inv)
        if x.at is not None
        and (first_miss is None or x.at < first_miss)
        and not _fails(board.facts, x.service)
        and x.service not in {e.service for e, _ in misses}
    ]
    writer = next((x for x in writers if _NO_JITTER.search(x.text)), None)
    if writer is None and expired is not None:
        writer = next(
            (
                x
                for x in reversed(writers)
                if expired.at is None or x.at is None or x.at < expired.at
            ),
            None,
        )
    if writer is None:
        return
    who = ", ".join(e.service for e, _ in misses[:3])
    statement = (
        f"{writer.service} wrote the cache's keys with one TTL ({short(writer.text, 100)}): "
        f"they expire together and {who} miss the cache at once"
    )
    c = board.get(layers.APPLICATION, writer.service, statement)
    if c.stage is not None:
        return
    c.statement = statement
    c.cite(writer.obs, writer.fact)
    if expired is not None:
        c.cite(expired.obs, expired.fact)
    for errors, group in misses[:2]:
        c.cite(errors.obs, errors.fact(group))
    c.status, c.confidence = "confirmed", max(c.confidence, _CONFIDENCE)
    c.chain = [
        board.symptom(),
        *(
            f"{e.service} logs: {short(g.sample or g.signature, 100)}"
            for e, g in misses[:2]
        ),
        *([f"{expired.service} logs: {short(expired.text, 120)}"] if expired else []),
        f"{writer.service} logs: {short(writer.text, 140)}",
        statement,
    ]
    c.keywords = list(
        dict.fromkeys([writer.service, "ttl", "jitter", "cache stampede"])
    )
    why = f"a victim of {c.id} (its keys expired together)"
    since = first_miss - timedelta(minutes=2) if first_miss else None
    for errors in board.facts.errors.values():
        if errors.service == writer.service:
            continue
        if not any(
            g.is_new
            and (since is None or (t := parse_time(g.first_seen)) is None or t >= since)
            for g in (*errors.groups, *errors.warnings)
        ):
            continue
        victim = board.candidates.get(f"{layers.APPLICATION}:{errors.service}")
        if victim is not None and victim is not c:
            victim.explained_by(c, why)
