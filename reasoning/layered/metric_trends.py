"""Each service's own metrics against their baseline (issue 21 class 2): a gauge that climbs from before the window, a fault count whose rate jumped.

service_health judges requests, errors, latency and a pool; the other series a service exports
(goroutines, heap, rebalances, evictions …) say nothing unless read. The planner reads every series
that carries a service label, the request metrics and histograms aside (`QUERY`), over the window
and the hour before it (`read`), in the first round. Two shapes then name the service whose series
it is:

- a leak: a gauge of something a process holds (goroutines, threads, heap, open files, connections)
  that rises at nearly every step from the hour before the window to its end, to at least twice its
  first value, already rising before the window began;
- a jump: a count of faults (rebalances, evictions, retries, restarts, timeouts, rejections) whose
  rate in the window's second half is at least `JUMP` times its rate in the hour before.

Either is that service's own fault: confirmed when the service also fails by another source (its
health, new lines of its own logs), a lead otherwise. A third shape, a client's connections or
pool stepping up at the start (`stepped_up`), is no fault by itself; `shared_capacity` cites it
for the client a full back end names.
"""

import itertools
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from statistics import median
from typing import Final

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.facts import FACT_CHARS, Facts, parse_time
from reasoning.layered.reading import as_dict, as_list, short
from reasoning.observations import Investigation, Observation
from reasoning.tools import QUERY_METRIC

# Every series with a service label but the request metrics service_health already judges.
QUERY: Final = '{service=~".+", __name__!~"http_.*|.*_bucket|.*_count|.*_sum|kube_.*"}'
BASELINE: Final = timedelta(hours=1)
POINTS: Final = 60  # points a series, as service_health reads
JUMP: Final = 10.0  # the window's rate over the baseline's
MIN_EVENTS: Final = 5.0  # fewer faults in the window's second half are noise
LEAK_GROWTH: Final = 2.0  # the last value over the first
LEAK_STEADY: Final = 0.8  # the share of steps that rise
STEP: Final = 2.0  # a demand gauge's level after the start over the one before
# What a client holds of a back end: its connections, its pool.
DEMAND: Final = re.compile(r"pool|connection|client", re.IGNORECASE)
# What a process holds and may leak, as metric names spell it.
HELD: Final = re.compile(
    r"goroutine|thread|heap|memory|fds?\b|file_?descriptor|open_?files|connection|socket|handle",
    re.IGNORECASE,
)
# What a count of faults is called.
FAULTS: Final = re.compile(
    r"rebalanc|evict|retr(?:y|ies)|restart|reconnect|timeout|timed_?out|reject|dropped|"
    r"fail|error|abort|oom|kill|expire|discard|dead_?letter|shed",
    re.IGNORECASE,
)
_FAILING = ("degraded", "unhealthy")
_SAID: Final = {
    "leak": "climbs steadily from before the window (a leak)",
    "jump": "rate jumped at the start",
}
_KEYWORD: Final = {"leak": "leak", "jump": "rate jump"}
_LEAK_CONFIDENCE = 0.86
_JUMP_CONFIDENCE = 0.84


@dataclass(frozen=True)
class Trend:
    """One service's series whose shape names it: a leak or a jump."""

    obs: Observation
    service: str
    metric: str
    kind: str  # "leak", "jump" or "step"
    words: str  # what it did, for the statement and the fact

    @property
    def fact(self) -> str:
        return short(
            f"query_metric {self.metric}{{service={self.service}}}: {self.words}",
            FACT_CHARS,
        )


def read(window: dict[str, str]) -> dict[str, str] | None:
    """The arguments of the one query that reads every service's own series with its baseline."""
    start, end = parse_time(window["start"]), parse_time(window["end"])
    if start is None:
        return None
    since = start - BASELINE
    # About `POINTS` points a series whatever the window, never finer than a minute.
    seconds = (end - since).total_seconds() if end is not None else 0.0
    step = max(60, math.ceil(seconds / POINTS))
    return {
        "promql": QUERY,
        "start": since.isoformat(timespec="seconds").replace("+00:00", "Z"),
        "end": window["end"],
        "step": f"{step}s",
    }


def answered_series(
    inv: Investigation, query: str
) -> Iterator[tuple[Observation, str, dict[str, object], list[tuple[float, float]]]]:
    """(answer, metric, labels, points) of each series of at least four points that the first
    answered range query `query` holds."""
    for obs in inv.observations:
        if obs.tool != QUERY_METRIC or not obs.is_ok:
            continue
        if obs.arguments.get("promql") != query:
            continue
        for series in map(as_dict, as_list(as_dict(obs.result).get("series"))):
            labels = as_dict(series.get("metric"))
            name = str(labels.get("__name__") or "")
            points = series_points(series)
            if name and len(points) >= 4:
                yield obs, name, labels, points
        return


def _answered(
    inv: Investigation,
) -> Iterator[tuple[Observation, str, str, list[tuple[float, float]]]]:
    """(answer, metric, service, points) of each series of a service the answered `QUERY` holds."""
    for obs, name, labels, points in answered_series(inv, QUERY):
        service = str(labels.get("service") or "").lower()
        if service:
            yield obs, name, service, points


def trends(inv: Investigation) -> list[Trend]:
    """The leaks and jumps the answered query shows, one per service and metric."""
    start = parse_time(inv.incident.window_start or "")
    found: list[Trend] = []
    for obs, name, service, points in _answered(inv):
        leak = _leak(name, points, start)
        if leak is not None:
            found.append(Trend(obs, service, name, "leak", leak))
            continue
        jump = _jump(name, points, start)
        if jump is not None:
            found.append(Trend(obs, service, name, "jump", jump))
    return found


def stepped_up(inv: Investigation) -> list[Trend]:
    """Gauges of what a service holds of a back end (connections, a pool, clients) whose level in
    the window's second half is at least `STEP` times the hour before's: its demand rose."""
    start = parse_time(inv.incident.window_start or "")
    found: list[Trend] = []
    if start is None:
        return found
    for obs, name, service, points in _answered(inv):
        if not DEMAND.search(name) or name.endswith("_total"):
            continue
        medians = before_and_recent(points, start)
        if medians is None:
            continue
        was, now = medians
        if was > 0 and now >= STEP * was:
            words = f"rose from {number_text(was)} the hour before the window to {number_text(now)}"
            found.append(Trend(obs, service, name, "step", words))
    return found


def flagged(inv: Investigation) -> list[str]:
    """The services whose own series show a leak or a jump: their health and logs are read next."""
    return list(dict.fromkeys(t.service for t in trends(inv)))


def before_and_recent(
    points: list[tuple[float, float]], start: datetime
) -> tuple[float, float] | None:
    """A series' median before the window and over the window's second half (None when either
    has no point): what it was, and what it has settled at."""
    before = [v for t, v in points if t < start.timestamp()]
    after = [v for t, v in points if t >= start.timestamp()]
    if not before or not after:
        return None
    return median(before), median(after[len(after) // 2 :])


def series_points(series: dict[str, object]) -> list[tuple[float, float]]:
    """A range query's series as (time, value) pairs, the unreadable ones left out."""
    points: list[tuple[float, float]] = []
    for pair in as_list(series.get("values")):
        try:
            value = float(pair[0]), float(pair[1])
        except (TypeError, ValueError, IndexError):
            continue
        if value[1] == value[1]:  # not NaN
            points.append(value)
    return points


def _leak(
    name: str, points: list[tuple[float, float]], start: datetime | None
) -> str | None:
    """A held resource rising at nearly every step, before the window too, to twice its first value."""
    if start is None or not HELD.search(name) or name.endswith("_total"):
        return None
    values = [v for _, v in points]
    before = [v for t, v in points if t < start.timestamp()]
    steps = list(itertools.pairwise(values))
    rising = sum(1 for a, b in steps if b > a) / len(steps)
    if (
        len(before) < 2
        or before[-1] <= before[0]
        or values[0] <= 0
        or values[-1] < LEAK_GROWTH * values[0]
        or rising < LEAK_STEADY
    ):
        return None
    return (
        f"rose at {rising:.0%} of its steps from {number_text(values[0])} an hour before the window "
        f"to {number_text(values[-1])}, without levelling off"
    )


def _jump(
    name: str, points: list[tuple[float, float]], start: datetime | None
) -> str | None:
    """A count of faults whose rate in the window's second half is `JUMP` times the hour before's."""
    if start is None or not FAULTS.search(name):
        return None
    at = start.timestamp()
    before = [(t, v) for t, v in points if t < at]
    after = [(t, v) for t, v in points if t >= at]
    recent = after[len(after) // 2 :]
    if len(before) < 2 or len(recent) < 2:
        return None
    if name.endswith("_total"):
        base, now = _rate(before), _rate(recent)
    elif re.search(r"per_?s(?:ec(?:ond)?)?$|_rate$", name):
        base = sum(v for _, v in before) / len(before)
        now = sum(v for _, v in recent) / len(recent)
    else:
        return None
    if now * (recent[-1][0] - recent[0][0]) < MIN_EVENTS or now < JUMP * base:
        return None
    times = f"{now / base:.0f} times" if base > 0 else "from none"
    return f"its rate jumped {times} the hour before the window: {now * 60:.3g}/min against {base * 60:.3g}/min"


def _rate(points: list[tuple[float, float]]) -> float:
    """A counter's increase per second over the points, resets counted as restarts from zero."""
    increase = 0.0
    for (_, a), (_, b) in itertools.pairwise(points):
        increase += b - a if b >= a else b
    seconds = points[-1][0] - points[0][0]
    return increase / seconds if seconds > 0 else 0.0


def number_text(value: float) -> str:
    """A gauge's value as a statement writes it (four significant digits)."""
    return f"{value:.4g}" if abs(value) < 1e6 else f"{value:.3g}"


def metric_trends(board: Board) -> None:
    """A service's own gauge of a held resource rising steadily from before the window, or its own count of faults whose rate jumped at the start, is that service's fault, confirmed when its health or new lines of its own logs show it failing."""
    for trend in trends(board.inv):
        _hypothesis(board, trend)


def _fails(facts: Facts, service: str) -> list[tuple[Observation, str]]:
    """What else shows the service failing: its health, new lines of its own logs."""
    shown: list[tuple[Observation, str]] = []
    health = facts.health.get(service)
    if health is not None and health.verdict in _FAILING:
        shown.append((health.obs, health.fact))
    errors = facts.errors.get(service)
    if errors is not None:
        new = [g for g in (*errors.groups, *errors.warnings) if g.is_new]
        if new:
            shown.append((errors.obs, errors.fact(max(new, key=lambda g: g.count))))
    return shown


def _hypothesis(board: Board, trend: Trend) -> None:
    service = trend.service
    said = f"its {trend.metric} {_SAID[trend.kind]}"
    c = board.get(layers.APPLICATION, service, f"{service} itself fails: {said}")
    if c.stage is not None:
        return  # a Kubernetes finding's own: its stage rules grade it
    if said not in c.statement:
        c.statement += f"; {said}"
    c.cite(trend.obs, trend.fact)
    shown = _fails(board.facts, service)
    for obs, fact in shown:
        c.cite(obs, fact)
    confidence = _LEAK_CONFIDENCE if trend.kind == "leak" else _JUMP_CONFIDENCE
    if shown:
        if c.status != "confirmed" or c.confidence < confidence:
            c.status, c.confidence = "confirmed", confidence
    elif c.status != "confirmed":
        c.status, c.confidence = "likely", max(c.confidence, 0.5)
    line = f"{service}: {trend.fact}"
    if line not in c.chain:
        c.chain = [board.symptom(), *(f for _, f in shown[:2]), line, c.statement]
    c.keywords = [service, trend.metric, _KEYWORD[trend.kind], *c.keywords]
