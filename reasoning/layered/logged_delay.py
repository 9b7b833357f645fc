"""Network delay from log lines (issue 21): a path whose logged round trip rose well above the baseline the line states, and the routing change just before it.

A path monitor (a ping mesh, a synthetic prober, a mesh's own stats line) logs a caller→callee round
trip with its usual value: `web -> db.internal:5432 tcp rtt p50 6.9ms (baseline p50 0.5ms)`,
`rtt to cache-3 4.1 ms, was 0.3 ms`. A round trip at least three times its baseline and at least
2 ms longer (as `network_delay` reads the metrics) is a slower path; nothing needs to err, and the
caller is slow only because it talks to the callee many times per request. The path got longer:
what changed the route is the cause. The planner searches every service's lines for routing words
(`ROUTE_SEARCH`) over the `LEAD` before the first such line; a line there naming a route, a
gateway, a peering or a firewall with a change (an arrow, `was`, applied, updated) is blamed, by the
first cloud resource id it names (`tgw-rtb-0a7c…`, `rtb-…`, `pcx-…`), else by the callee's path. A
rise with no such change is the path's lead only.
"""

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Final

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.facts import Facts, parse_time
from reasoning.layered.reading import arg, as_dict, as_list, iso, short
from reasoning.observations import Investigation, Observation
from reasoning.tools import SEARCH_LOGS

_NUMBER = r"(\d{1,9}(?:\.\d{1,6})?) ?(ms|us|µs|s)\b"
# `a -> b[:port] … rtt … 6.9ms … (baseline … 0.5ms)`: the path, its round trip now and before.
_RTT: Final = re.compile(
    r"(?P<src>[a-z][\w.-]{0,120}) (?:->|→|=>|to) (?P<dst>[a-z][\w.-]{0,200}?)(?::\d{1,5})?"
    r"[ ,;][^\n]{0,80}?\b(?:rtt|round[ -]?trip(?: time)?|ping)\b[^\n]{0,40}?"
    + _NUMBER
    + r"[^\n]{0,120}?"
    r"\b(?:baseline|was|usual(?:ly)?|normal(?:ly)?|before)\b[^\n]{0,30}?" + _NUMBER,
    re.IGNORECASE,
)
# A line about a route, a gateway, a peering or a firewall in the path (RE2, for the search).
ROUTE_SEARCH: Final = (
    r"(?i)(route|routing|transit.?gateway|peering|next.?hop|firewall|\bbgp\b|\bvpn\b)"
)
_ROUTE: Final = re.compile(ROUTE_SEARCH.removeprefix("(?i)"), re.IGNORECASE)
# … that says it changed.
_CHANGED: Final = re.compile(
    r"->|→|=>|\bwas\b|\b(?:chang|updat|appl|modifi|replac|add|delet|creat|switch)(?:e|ed|es|ing|ied|y)\b|"
    r"\bnow (?:via|through)\b",
    re.IGNORECASE,
)
# A cloud resource id (`tgw-rtb-0a7c3e91f2d4b6850`, `rtb-09f…`, `pcx-1a2b3c4d`).
_RESOURCE_ID: Final = re.compile(r"\b[a-z]{2,8}(?:-[a-z]{2,8}){0,2}-[0-9a-f]{8,17}\b")
_RISE_RATIO: Final = 3.0
_RISE_MIN_S: Final = 0.002
LEAD: Final = timedelta(
    minutes=30
)  # a route change this long before the first slower line
SLACK: Final = timedelta(minutes=2)  # … or just after it (log clocks)
SEARCH_LIMIT: Final = 40
_UNITS: Final = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6}


@dataclass(frozen=True)
class SlowLine:
    """A logged round trip of a path well above the baseline the line states."""

    service: str
    obs: Observation
    fact: str
    line: str
    at: datetime | None
    source: str
    dest: str
    now_s: float
    base_s: float


@dataclass(frozen=True)
class Change:
    service: str
    obs: Observation
    fact: str
    line: str
    at: datetime


def _seconds(value: str, unit: str) -> float:
    return float(value) * _UNITS.get(unit.lower(), 1e-3)


def rose(text: str) -> tuple[str, str, float, float] | None:
    """(source, dest, now, baseline) of a logged round trip well above its stated baseline."""
    match = _RTT.search(text[:2000])
    if match is None:
        return None
    now = _seconds(match.group(3), match.group(4))
    base = _seconds(match.group(5), match.group(6))
    if now < _RISE_RATIO * base or now - base < _RISE_MIN_S:
        return None
    return match.group("src").lower(), match.group("dst").lower(), now, base


def _lines(inv: Investigation) -> Iterator[tuple[Observation, str, str, str]]:
    """(observation, service, time, message) of every line of every answered search_logs."""
    for obs in inv.observations:
        if obs.tool != SEARCH_LOGS or not obs.is_ok:
            continue
        for line in map(as_dict, as_list(as_dict(obs.result).get("lines"))):
            service = str(line.get("service") or arg(obs, "service")).lower()
            yield (
                obs,
                service,
                str(line.get("time") or ""),
                str(line.get("message") or ""),
            )


def slow_lines(inv: Investigation, facts: Facts) -> list[SlowLine]:
    """Every logged round trip that rose above its baseline, earliest first."""
    found: list[SlowLine] = []
    for errors in facts.errors.values():
        for group in (*errors.groups, *errors.warnings):
            text = group.sample or group.signature
            if (path := rose(text)) is not None:
                found.append(
                    SlowLine(
                        errors.service,
                        errors.obs,
                        errors.fact(group),
                        text,
                        parse_time(group.first_seen),
                        *path,
                    )
                )
    for obs, service, time, text in _lines(inv):
        if service and (path := rose(text)) is not None:
            found.append(
                SlowLine(
                    service,
                    obs,
                    short(f"search_logs({service}): {text}", 300),
                    text,
                    parse_time(time),
                    *path,
                )
            )
    found.sort(key=lambda s: (s.at is None, s.at or datetime.min))
    return found


def route_search(inv: Investigation, facts: Facts) -> dict[str, str] | None:
    """The search of every service's lines about routes over the `LEAD` before the first slower
    round trip logged, when not made yet."""
    first = next((s.at for s in slow_lines(inv, facts) if s.at is not None), None)
    if first is None:
        return None
    if any(
        o.tool == SEARCH_LOGS
        and arg(o, "query") == ROUTE_SEARCH
        and not arg(o, "service")
        for o in inv.observations
    ):
        return None
    return {
        "query": ROUTE_SEARCH,
        "start": iso(first - LEAD),
        "end": iso(first + SLACK),
    }


def _change(inv: Investigation, first: datetime) -> Change | None:
    """The last line about a route that changed in the `LEAD` before `first` (or just after)."""
    near: list[Change] = []
    for obs, service, time, text in _lines(inv):
        at = parse_time(time)
        if (
            at is None
            or not first - LEAD <= at <= first + SLACK
            or rose(text) is not None
        ):
            continue
        if _ROUTE.search(text) and _CHANGED.search(text):
            fact = short(f"search_logs(every service): {service}: {text}", 300)
            near.append(Change(service, obs, fact, text, at))
    return max(near, key=lambda c: c.at) if near else None


def logged_delay(board: Board) -> None:
    """A path whose logged round trip rose well above the baseline the line states is slower on the network (connect layer); a routing change logged just before it is the cause, named by the resource it changed, and the caller is its victim."""
    found = slow_lines(board.inv, board.facts)
    if not found:
        return
    path = max(found, key=lambda s: s.now_s - s.base_s)
    first = next((s.at for s in found if s.at is not None), None)
    change = _change(board.inv, first) if first is not None else None
    rise = f"round trip {_ms(path.now_s)}, {_ms(path.base_s)} before"
    if change is not None:
        ids = _RESOURCE_ID.findall(change.line)
        component = ids[0] if ids else path.dest
        statement = (
            f"the route to {path.dest} changed just before its round trip from {path.source} "
            f"rose ({rise}): {short(change.line, 120)}"
        )
    else:
        component = path.dest
        statement = (
            f"the network path from {path.source} to {path.dest} is slower: {rise}"
        )
    c = board.get(layers.CONNECT, component, statement)
    c.cite(path.obs, path.fact)
    chain = [board.symptom(), f"{path.source} -> {path.dest} {rise}"]
    if change is not None:
        c.cite(change.obs, change.fact)
        chain.append(f"{change.service} logs: {short(change.line, 140)}")
    caller = board.facts.health.get(path.source)
    if caller is not None and caller.has("p99_latency_s"):
        c.cite(caller.obs, caller.fact)
    c.chain = [*chain, c.statement]
    if change is not None:
        c.status, c.confidence = "confirmed", max(c.confidence, 0.9)
    else:
        c.status, c.confidence = "likely", max(c.confidence, 0.6)
    c.keywords = [component, path.dest, path.source, "round trip", "network", "route"]
    if change is None:
        return
    for name in (path.source, path.dest):
        victim = board.candidates.get(f"{layers.APPLICATION}:{name}")
        if victim is not None:
            victim.explained_by(
                c, f"a victim of {c.id} (its path to {path.dest} got longer)"
            )


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"
