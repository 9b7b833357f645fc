"""Network delay from metrics (issue 21): a path that slowed down while nothing errs and the callee is not slower itself.

When a service is slow and nothing read explains it, the planner asks the metrics for the round trips
they record between callers and callees (`ROUND_TRIPS`), then, for a pair whose round trip rose from its
baseline (the hour before the window), the caller's health and the callee's own server-side latency.
A round trip that rose while the callee's own latency stayed flat puts the delay on the path between them
(the connect layer), not in either end; the metrics of both ends confirm it.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from statistics import median
from typing import Any, Final

from reasoning import layers
from reasoning.layered.candidates import Board, Candidate
from reasoning.layered.facts import FACT_CHARS, Facts, parse_time
from reasoning.layered.reading import arg, as_dict, as_list, iso, short
from reasoning.layered.warning_leads import names_service
from reasoning.observations import Investigation, Observation, PlannedCall
from reasoning.tools import QUERY_METRIC, SEARCH_LOGS, SERVICE_HEALTH

Call = Callable[[str, dict[str, Any], str], PlannedCall | None]

# Every series whose name says it is a network round trip (rtt, round trip), with its labels.
ROUND_TRIPS: Final = '{__name__=~".*(rtt|round_?trip).*"}'
# How a round-trip series names its two ends (Prometheus exporters, service meshes).
# `service` last: a caller's own series labelled with the peer it measures (`peer`, `target` …).
_SOURCE_LABELS: Final = (
    "src",
    "source",
    "source_service",
    "source_workload",
    "client",
    "service",
)
_DEST_LABELS: Final = (
    "dst",
    "destination",
    "destination_service",
    "destination_workload",
    "server",
    "target",
    "peer",
)
BASELINE: Final = timedelta(
    hours=1
)  # the hour before the window, as top_errors' baseline
_RISE_RATIO: Final = 3.0  # a round trip at least this many times its baseline …
_RISE_MIN_S: Final = (
    0.002  # … and at least 2 ms longer: noise of a fast path stays below
)
_FLAT_RATIO: Final = 1.5  # a callee's own latency below this many times its baseline …
_FLAT_SLACK_S: Final = 0.001  # … (or within 1 ms of it) did not rise
_MAX_PAIRS: Final = 3
# What injects or shapes delay on a path on purpose: a chaos tool (Chaos Mesh's NetworkChaos,
# Litmus, Gremlin, Toxiproxy's toxics), the kernel's traffic control (`tc qdisc … netem delay`), a
# mesh's fault injection. RE2 for the logs server, case-insensitive there.
ACTOR_WORDS: Final = (
    r"inject|netem|qdisc|\btc (?:qdisc|filter)|toxic|chaos|gremlin|litmus|"
    r"fault[ _-]?injection|traffic[ _-]?shap"
)
_ACTOR: Final = re.compile(ACTOR_WORDS, re.IGNORECASE)
ACTOR_LEAD: Final = timedelta(
    hours=2
)  # how far before the window an injection is looked for
ACTOR_LIMIT: Final = 20
_ACTOR_CONFIDENCE: Final = 0.88  # above a caller's own slow-call warnings (0.78)


def own_latency(service: str) -> str:
    """The callee's own server-side latency: its duration or latency gauges (quantiles), not histogram buckets."""
    return f'{{__name__=~".*(duration|latency)(_seconds)?",service="{service}"}}'


@dataclass(frozen=True)
class Trend:
    """A series' median before the window (baseline) and over the window's last half (recent)."""

    baseline: float
    recent: float

    @property
    def rose(self) -> bool:
        return (
            self.recent >= _RISE_RATIO * self.baseline
            and self.recent - self.baseline >= _RISE_MIN_S
        )

    @property
    def flat(self) -> bool:
        return (
            self.recent <= _FLAT_RATIO * self.baseline
            or self.recent - self.baseline <= _FLAT_SLACK_S
        )

    def words(self) -> str:
        return f"{_ms(self.baseline)} before the window, {_ms(self.recent)} now"


@dataclass(frozen=True)
class SlowPath:
    obs: Observation
    metric: str
    source: str
    dest: str
    trend: Trend

    @property
    def fact(self) -> str:
        return short(
            f"query_metric {self.metric}{{{self.source} -> {self.dest}}}: round trip "
            f"{self.trend.words()}",
            FACT_CHARS,
        )


def reads(inv: Investigation, facts: Facts, call: Call) -> list[PlannedCall | None]:
    """A slow service nothing explains: the round trips the metrics record, then both ends of each path that slowed."""
    if not any(h.has("p99_latency_s") for h in facts.health.values()):
        return []
    window = _query_window(inv)
    if window is None:
        return []
    calls: list[PlannedCall | None] = [
        call(
            QUERY_METRIC,
            {"promql": ROUND_TRIPS, **window, "step": "60s"},
            "a slow service and nothing that explains it: the network round trips "
            "between callers and callees, against the hour before",
        )
    ]
    for path in slow_paths(inv)[:_MAX_PAIRS]:
        calls.append(
            call(
                QUERY_METRIC,
                {"promql": own_latency(path.dest), **window, "step": "60s"},
                f"the round trip {path.source} -> {path.dest} rose: is {path.dest} itself slower",
            )
        )
        calls.append(
            call(
                SERVICE_HEALTH,
                {
                    "service": path.source,
                    "start": inv.incident.window_start or "now-1h",
                    "end": inv.incident.window_end or "now",
                },
                f"the round trip {path.source} -> {path.dest} rose: is {path.source} slower",
            )
        )
    return calls


def actor_query(dest: str) -> str:
    """Lines naming `dest` with a word of what injects or shapes delay, either order (RE2)."""
    name = re.escape(dest)
    return f"(?i)(?:{ACTOR_WORDS}).{{0,300}}\\b{name}\\b|\\b{name}\\b.{{0,300}}(?:{ACTOR_WORDS})"


def actor_searches(inv: Investigation, call: Call) -> list[PlannedCall | None]:
    """A path that slowed: every service's lines naming its callee with a word of what injects or shapes delay, from `ACTOR_LEAD` before the window."""
    start = parse_time(inv.incident.window_start or "")
    if start is None:
        return []
    calls: list[PlannedCall | None] = []
    for path in slow_paths(inv)[:1]:
        query = actor_query(path.dest)
        if any(
            o.tool == SEARCH_LOGS and arg(o, "query") == query for o in inv.observations
        ):
            continue
        calls.append(
            call(
                SEARCH_LOGS,
                {
                    "query": query,
                    "regex": True,
                    "start": iso(start - ACTOR_LEAD),
                    "end": inv.incident.window_end or "now",
                    "limit": ACTOR_LIMIT,
                },
                f"the round trip {path.source} -> {path.dest} rose: did something inject "
                f"delay on {path.dest} (a chaos experiment, traffic control)",
            )
        )
    return calls


def _actor_line(
    inv: Investigation, path: SlowPath
) -> tuple[Observation, str, str] | None:
    """The first line, by a service other than the path's ends, that names the callee and injects or shapes delay: (span, service, message)."""
    query = actor_query(path.dest)
    found: list[tuple[str, Observation, str, str]] = []
    for obs in inv.observations:
        if obs.tool != SEARCH_LOGS or not obs.is_ok or arg(obs, "query") != query:
            continue
        for line in map(as_dict, as_list(as_dict(obs.result).get("lines"))):
            service = str(line.get("service") or "")
            message = str(line.get("message") or "")[:4000]
            level = str(line.get("level") or "").lower()
            if service in (path.source, path.dest) or level in ("error", "fatal"):
                continue
            if _ACTOR.search(message) and names_service(message, path.dest):
                found.append((str(line.get("time") or ""), obs, service, message))
    if not found:
        return None
    _, obs, service, message = min(found, key=lambda f: f[0])
    return obs, service, message


def slow_paths(inv: Investigation) -> list[SlowPath]:
    """The caller→callee round trips that rose from their baseline, the largest rise first."""
    start = parse_time(inv.incident.window_start or "")
    found: list[SlowPath] = []
    for obs, labels, points in _series(inv, ROUND_TRIPS):
        source = next((labels[k] for k in _SOURCE_LABELS if labels.get(k)), "")
        dest = next((labels[k] for k in _DEST_LABELS if labels.get(k)), "")
        trend = _trend(points, start)
        if not source or not dest or trend is None or not trend.rose:
            continue
        metric = labels.get("__name__", "round trip")
        found.append(SlowPath(obs, metric, source, dest, trend))
    found.sort(key=lambda p: p.trend.baseline - p.trend.recent)
    return found


def network_delay(board: Board) -> None:
    """A round trip that rose while the callee's own latency stayed flat is a delay on the path between them (connect layer)."""
    start = parse_time(board.inv.incident.window_start or "")
    for path in slow_paths(board.inv)[:_MAX_PAIRS]:
        own = [
            (obs, labels, trend)
            for obs, labels, points in _series(board.inv, own_latency(path.dest))
            if (trend := _trend(points, start)) is not None
        ]
        if any(not trend.flat for _, _, trend in own):
            continue  # the callee itself is slower: its own fault, not the path's
        c = board.get(
            layers.CONNECT,
            path.dest,
            f"the network path from {path.source} to {path.dest} is slow: round trip "
            f"{path.trend.words()}, while nothing errs",
        )
        c.cite(path.obs, path.fact)
        chain = [board.symptom()]
        caller = board.facts.health.get(path.source)
        caller_slow = caller is not None and caller.has("p99_latency_s")
        if caller is not None and caller_slow:
            c.cite(caller.obs, caller.fact)
            chain.append(f"{path.source} is slower: {short(caller.summary, 100)}")
        chain.append(f"{path.source} -> {path.dest} round trip {path.trend.words()}")
        if own:
            obs, labels, trend = own[0]
            name = labels.get("__name__", "latency")
            c.cite(
                obs,
                short(
                    f"query_metric {name}{{service={path.dest}}}: {path.dest}'s own latency "
                    f"stays flat ({trend.words()})",
                    FACT_CHARS,
                ),
            )
            chain.append(
                f"{path.dest}'s own latency stays flat: the time is spent between them"
            )
            c.statement += f"; {path.dest}'s own latency stays flat"
        c.chain = [*chain, c.statement]
        if own and caller_slow:
            c.status, c.confidence = "confirmed", 0.85
        else:
            c.status, c.confidence = "likely", 0.6 if own or caller_slow else 0.5
        c.keywords = [
            path.dest,
            path.source,
            "latency",
            "round trip",
            "network",
            layers.CONNECT,
        ]


def injected_delay(board: Board) -> None:
    """A path that slowed whose callee another service's line names while injecting or shaping delay (a chaos experiment, traffic control, a mesh's fault injection) is slowed on purpose: that line is the cause, the path's callee the component, the caller that logs its slow calls a victim."""
    for path in slow_paths(board.inv)[:_MAX_PAIRS]:
        c = board.candidates.get(f"{layers.CONNECT}:{path.dest}")
        if c is None or c.status == "ruled_out":
            continue  # `network_delay` found the callee itself slower
        actor = _actor_line(board.inv, path)
        if actor is not None:
            _injected(board, c, path, *actor)


def _injected(
    board: Board,
    c: Candidate,
    path: SlowPath,
    obs: Observation,
    service: str,
    message: str,
) -> None:
    c.cite(obs, short(f"search_logs: {service} acts on {path.dest}: {message}", 300))
    c.statement += f"; {service} injects or shapes delay on it: {short(message, 160)}"
    c.chain = [*c.chain[:-1], f"{service} logs: {short(message, 140)}", c.statement]
    c.status, c.confidence = "confirmed", max(c.confidence, _ACTOR_CONFIDENCE)
    c.keywords = [*c.keywords, service, "delay injected"]
    caller = board.candidates.get(f"{layers.APPLICATION}:{path.source}")
    if caller is not None and names_service(caller.statement, path.dest):
        caller.explained_by(
            c, f"a victim of {c.id} (its calls to {path.dest} are delayed on purpose)"
        )


def _query_window(inv: Investigation) -> dict[str, str] | None:
    """The incident's window with the hour before it (the baseline); None without a window start."""
    start = parse_time(inv.incident.window_start or "")
    if start is None:
        return None
    return {
        "start": iso(start - BASELINE),
        "end": inv.incident.window_end or "now",
    }


def _series(
    inv: Investigation, promql: str
) -> list[tuple[Observation, dict[str, str], list[tuple[float, float]]]]:
    """The series of the first answered query_metric of `promql`: (observation, labels, points)."""
    for obs in inv.observations:
        if obs.tool != QUERY_METRIC or not obs.is_ok:
            continue
        if obs.arguments.get("promql") != promql:
            continue
        out = []
        for series in map(as_dict, as_list(as_dict(obs.result).get("series"))):
            labels = {str(k): str(v) for k, v in as_dict(series.get("metric")).items()}
            points: list[tuple[float, float]] = []
            for pair in as_list(series.get("values")):
                try:
                    points.append((float(pair[0]), float(pair[1])))
                except (TypeError, ValueError, IndexError):
                    continue
            out.append((obs, labels, points))
        return out
    return []


def _trend(points: list[tuple[float, float]], start: datetime | None) -> Trend | None:
    """Median before `start` against the median of the last half after it; None when either is empty."""
    if start is None:
        return None
    at = start.timestamp()
    before = [v for t, v in points if t < at and v == v]
    after = [(t, v) for t, v in points if t >= at and v == v]
    recent = [v for _, v in after[len(after) // 2 :]]
    if not before or not recent:
        return None
    return Trend(median(before), median(recent))


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"
