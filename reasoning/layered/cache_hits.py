"""A cache whose hit ratio collapsed: the cache's own configuration is the fault, not the CDN in front nor the origin behind it.

A caching proxy (Varnish, nginx's proxy_cache, Squid, a CDN's edge, an application cache) that
suddenly stops answering from cache sends every request to its origin: the origin saturates, its
workers back up and it is the slow, loud one, while the CDN in front sees the latency. The cause is
most often a change to the cache's own rules (a `Vary: Cookie`, cookies no longer stripped, a TTL
cut, a cache key widened, a purge policy): nothing errs, only the hit ratio falls. A gauge named for
hits (`*_hit_ratio`, `*_hit_rate`) whose level over the window's second half is at most half its
level the hour before (`collapsed`) names the cache (the gauge's product prefix, when the logs know
a service of that name, else the host it is labelled with); the planner reads that cache's own
lines naming its rules (`searches`), and a line among them logged before the ratio fell cites
what changed.
"""

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Final

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.facts import ErrorGroup, Errors, Facts, parse_time
from reasoning.layered.metric_trends import (
    before_and_recent,
    number_text,
    series_points,
)
from reasoning.layered.reading import (
    POOL_EXHAUSTED,
    arg,
    as_dict,
    as_list,
    iso,
    short,
)
from reasoning.observations import Investigation, Observation, PlannedCall
from reasoning.tools import QUERY_METRIC, SEARCH_LOGS

_HIT: Final = re.compile(r"(?:^|_)hits?_(?:ratio|rate)$|(?:^|_)hit_?ratio(?:_|$)")
_FALL: Final = 0.5  # the window's level at most this share of the hour before's
_MIN_BEFORE: Final = 0.2  # a ratio that was a real share of hits before
LEAD: Final = timedelta(hours=1)
# An origin out of connections: what every miss reaching it at once does (Postgres' reserved
# slots, MySQL's too many connections, a pool with nothing to lend).
_SWAMPED: Final = re.compile(
    r"remaining connection slots|too many (?:connections|clients)|max_connections|"
    r"connections? (?:limit|exhausted)|" + POOL_EXHAUSTED,
    re.IGNORECASE,
)
# A cache's own words for its rules: what it keys on, keeps, strips or how long it keeps it.
QUERY: Final = (
    r"vary|vcl|cache[-_ ]?(control|key|rule|policy)|ttl|max-age|cookie|reload|"
    r"config(uration)? (loaded|changed|applied|reloaded)|purge|\bban\b"
)
_RULE_LINE: Final = re.compile(QUERY, re.IGNORECASE)
_MAX_LINE: Final = 4000


@dataclass(frozen=True)
class Collapse:
    obs: Observation
    metric: str
    cache: str
    was: float
    now: float

    @property
    def fact(self) -> str:
        return (
            f"query_metric {self.metric}: fell from {number_text(self.was)} the hour "
            f"before the window to {number_text(self.now)}"
        )


def _series(
    inv: Investigation,
) -> Iterator[tuple[Observation, str, dict[str, object], list[tuple[float, float]]]]:
    for obs in inv.observations:
        if obs.tool != QUERY_METRIC or not obs.is_ok:
            continue
        for series in map(as_dict, as_list(as_dict(obs.result).get("series"))):
            labels = as_dict(series.get("metric"))
            name = str(labels.get("__name__") or "")
            if name and _HIT.search(name.lower()):
                yield obs, name, labels, series_points(series)


def collapsed(inv: Investigation, facts: Facts) -> list[Collapse]:
    """Hit-ratio gauges whose window level is at most half the hour before's, one per cache."""
    start = parse_time(inv.incident.window_start or "")
    if start is None:
        return []
    known = {*facts.errors, *facts.health, *facts.log_lines}
    found: dict[str, Collapse] = {}
    for obs, name, labels, points in _series(inv):
        medians = before_and_recent(points, start)
        if medians is None:
            continue
        was, now = medians
        if was < _MIN_BEFORE or now > _FALL * was:
            continue
        product = name.lower().split("_", 1)[0]
        service = str(labels.get("service") or "")
        host = str(labels.get("host") or labels.get("instance") or "")
        cache = service or (product if product in known else host or product)
        found.setdefault(cache, Collapse(obs, name, cache, was, now))
    return list(found.values())


def searches(
    inv: Investigation,
    facts: Facts,
    call: Callable[[str, dict[str, Any], str], PlannedCall | None],
    window: dict[str, str],
) -> list[PlannedCall | None]:
    """For each cache whose hit ratio collapsed, its own lines naming its rules, from an hour before the window."""
    start = parse_time(window.get("start", ""))
    if start is None:
        return []
    return [
        call(
            SEARCH_LOGS,
            {
                "service": c.cache,
                "query": QUERY,
                "regex": True,
                "start": iso(start - LEAD),
                "end": window.get("end") or "now",
                "limit": 20,
            },
            f"{c.cache}'s hit ratio collapsed: its own lines naming its rules (vary, cookies, ttl)",
        )
        for c in collapsed(inv, facts)[:2]
    ]


def _rule_lines(board: Board, cache: str) -> list[tuple[Observation, str, str]]:
    """(answer, time, message) of the cache's own lines naming its rules, oldest first."""
    out: list[tuple[Observation, str, str]] = []
    for obs in board.inv.observations:
        if obs.tool != SEARCH_LOGS or not obs.is_ok or arg(obs, "query") != QUERY:
            continue
        if arg(obs, "service") != cache:
            continue
        for line in map(as_dict, as_list(as_dict(obs.result).get("lines"))):
            message = str(line.get("message") or "")
            if _RULE_LINE.search(message[:_MAX_LINE]):
                out.append((obs, str(line.get("time") or ""), message))
    return sorted(out, key=lambda x: x[1])


def _swamped_origins(facts: Facts, cache: str) -> list[tuple[Errors, ErrorGroup]]:
    """Other services' lines, new since the window started, saying they ran out of connections:
    the origin every miss now reaches, most logged first."""
    found = [
        (errors, group)
        for errors in facts.errors.values()
        if errors.service != cache
        for group in (*errors.groups, *errors.warnings)
        if group.is_new and _SWAMPED.search(group.text[:_MAX_LINE])
    ]
    return sorted(found, key=lambda x: -x[1].count)


def cache_hits_collapsed(board: Board) -> None:
    """A cache whose hit ratio fell to at most half its level of the hour before is the application fault, its own line naming its rules (a Vary, cookies kept, a TTL) cited: the origin it now sends every request to (its new line that it ran out of connections cited too) and the CDN in front are its victims."""
    for collapse in collapsed(board.inv, board.facts):
        cache = collapse.cache
        c = board.get(
            layers.APPLICATION,
            cache,
            f"{cache}'s cache hit ratio collapsed ({number_text(collapse.was)} to "
            f"{number_text(collapse.now)}): almost every request now goes to the origin; "
            "a change to its own rules (what it varies on, keeps or strips) is the cause",
        )
        c.cite(collapse.obs, collapse.fact)
        lines = _rule_lines(board, cache)
        # The line naming what it varies on first, then the others in time order.
        lines.sort(key=lambda x: "vary" not in x[2][:_MAX_LINE].lower())
        for obs, _, message in lines[:2]:
            c.cite(obs, short(f"search_logs({cache}): {message}", 300))
        for errors, group in _swamped_origins(board.facts, cache)[:1]:
            c.cite(errors.obs, errors.fact(group), is_support=False)
        c.status = "confirmed" if lines else "likely"
        c.confidence = max(c.confidence, 0.9 if lines else 0.7)
        c.chain = [
            board.symptom(),
            collapse.fact,
            *(f"{cache} logs: {short(m, 140)}" for _, _, m in lines[:1]),
            c.statement,
        ]
        c.keywords = [layers.APPLICATION, cache, "cache hit ratio", "vary", "cookie"]
