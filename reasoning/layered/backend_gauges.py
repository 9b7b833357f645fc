"""The gauges of what no service label names (issue 21 classes 1 and 4): a back end's resource running out, a replica falling behind.

`metric_trends` reads the series a service exports; a database's disk, a volume's burst credits, a
replica's replay lag are exported by an exporter and labelled by the instance or volume they
measure. The planner reads those series too, with the hour before the window (`QUERY`, `read`), in
the first round. Two shapes name their owner (`owner`: the instance, host or volume label, as the
service the logs or metrics know when it is one):

- a depleting resource: a gauge of a balance, credits or what is free, available or left (burst
  balance, CPU credits, free inodes, free connections) that falls, step after step, from its peak to
  almost nothing (`DEPLETED` of it) by the window's end: once it is spent the back end is held to
  its baseline and its callers wait (`depleted_resource`);
- replication lag: a replica's lag or delay gauge that climbs in the window to `LAG_GROWTH` times
  its level the hour before and to `LAG_SECONDS` seconds or more: reads served by the replica miss
  recent writes (`replica_lag`, with `silent_lines` for what the database logs about it).
"""

import itertools
import re
from dataclasses import dataclass
from statistics import median
from typing import Final

from reasoning import layers
from reasoning.layered import metric_trends, silent_lines
from reasoning.layered.candidates import Board, Candidate
from reasoning.layered.facts import FACT_CHARS, Facts, parse_time
from reasoning.layered.reading import short
from reasoning.observations import Investigation, Observation

# Every series without a service label (an exporter's), the request metrics aside.
QUERY: Final = '{__name__=~".+", __name__!~"http_.*|.*_bucket|.*_count|.*_sum|kube_.*|up", service=""}'
# The labels that name what an exporter's series measures, most specific owner first.
OWNER_LABELS: Final = (
    "instance",
    "dbinstance",
    "db_instance",
    "host",
    "hostname",
    "node",
    "database",
    "cluster",
    "volume_id",
    "volume",
)
# A resource that runs out: a balance, credits, what is free, available or left.
RESOURCE: Final = re.compile(
    r"balance|credit|free|avail|remaining|left\b|headroom", re.IGNORECASE
)
# A replica's lag: replication, replay, a standby or follower behind its primary.
REPLICA: Final = re.compile(
    r"replic|replay|standby|slave|follower|\bwal\b|_wal_", re.IGNORECASE
)
LAGGING: Final = re.compile(r"lag|delay|behind", re.IGNORECASE)
DEPLETED: Final = 0.05  # the window's last value over the series' peak
FALLING: Final = 0.6  # the share of steps from the peak to the bottom that fall
LAG_GROWTH: Final = 10.0  # the window's peak lag over the hour before's
LAG_SECONDS: Final = 10.0
MIN_LAG_LINES: Final = 3  # a replica's lag logged once is a blip
_FAILING = ("degraded", "unhealthy")
_DEPLETED_CONFIDENCE = 0.84
_LAG_CONFIDENCE = 0.84


@dataclass(frozen=True)
class Gauge:
    """An exporter's series whose shape names its owner: depleted or lagging."""

    obs: Observation
    owner: str
    metric: str
    kind: str  # "depleted" or "lagging"
    words: str

    @property
    def fact(self) -> str:
        return short(
            f"query_metric {self.metric}{{{self.owner}}}: {self.words}", FACT_CHARS
        )


def read(window: dict[str, str]) -> dict[str, str] | None:
    """The arguments of the one query that reads every unlabelled series with its baseline."""
    arguments = metric_trends.read(window)
    return None if arguments is None else {**arguments, "promql": QUERY}


def owner(labels: dict[str, object], known: set[str]) -> str | None:
    """What the series measures: its instance (or host, volume …) label, without a port, as the
    service read when the name is that service's with a host or pod number."""
    for label in OWNER_LABELS:
        value = str(labels.get(label) or "").strip().lower()
        if not value:
            continue
        value = re.sub(r":\d+$", "", value)
        if value in known:
            return value
        base = re.sub(r"-\d+$", "", value)
        return base if base in known else value
    return None


def gauges(inv: Investigation, facts: Facts) -> list[Gauge]:
    """The depleted resources and lagging replicas the answered query shows."""
    start = parse_time(inv.incident.window_start or "")
    if start is None:
        return []
    known = {*facts.errors, *facts.health}  # the services read
    found: list[Gauge] = []
    for obs, name, labels, points in metric_trends.answered_series(inv, QUERY):
        if name.endswith("_total"):
            continue
        who = owner(labels, known)
        if who is None:
            continue
        if RESOURCE.search(name):
            words = _depleted(points)
            if words is not None:
                found.append(Gauge(obs, who, name, "depleted", words))
        elif REPLICA.search(name) and LAGGING.search(name):
            words = _lagging(name, points, start.timestamp())
            if words is not None:
                found.append(Gauge(obs, who, name, "lagging", words))
    return found


def _depleted(points: list[tuple[float, float]]) -> str | None:
    """Fell step after step from its peak to almost nothing by the end."""
    values = [v for _, v in points]
    peak_at = max(range(len(values)), key=values.__getitem__)
    peak = values[peak_at]
    if peak <= 0 or values[-1] > DEPLETED * peak:
        return None
    bottom_at = next(
        i for i in range(peak_at, len(values)) if values[i] <= DEPLETED * peak
    )
    steps = [(a, b) for a, b in itertools.pairwise(values[peak_at : bottom_at + 1])]
    moving = [(a, b) for a, b in steps if a != b]
    if len(moving) < 3 or sum(1 for a, b in moving if b < a) / len(moving) < FALLING:
        return None
    return (
        f"fell from {metric_trends.number_text(peak)} to {metric_trends.number_text(values[-1])}: "
        "the resource is spent"
    )


def _lagging(name: str, points: list[tuple[float, float]], start: float) -> str | None:
    """Climbed in the window to `LAG_GROWTH` times the hour before's level and `LAG_SECONDS`."""
    before = [v for t, v in points if t < start]
    after = [v for t, v in points if t >= start]
    if len(before) < 2 or not after:
        return None
    was, peak = median(before), max(after)
    scale = 1000.0 if re.search(r"_ms\b|millis", name) else 1.0
    if peak < LAG_SECONDS * scale or peak < LAG_GROWTH * max(was, 1e-9):
        return None
    return (
        f"rose from {metric_trends.number_text(was)} the hour before the window to "
        f"{metric_trends.number_text(peak)}: the replica lags its primary"
    )


def _failing(facts: Facts, but: str) -> list[tuple[Observation, str]]:
    """What shows a service other than `but` failing: its health, new error lines of its own."""
    shown: list[tuple[Observation, str]] = []
    for service, health in facts.health.items():
        if service != but and health.verdict in _FAILING:
            shown.append((health.obs, health.fact))
    for service, errors in facts.errors.items():
        new = [g for g in errors.groups if g.is_new]
        if service != but and new:
            shown.append((errors.obs, errors.fact(max(new, key=lambda g: g.count))))
    return shown


def _blame(board: Board, gauge: Gauge, statement: str, confidence: float) -> Candidate:
    c = board.get(layers.APPLICATION, gauge.owner, statement)
    if c.stage is not None:
        return c
    c.cite(gauge.obs, gauge.fact)
    victims = _failing(board.facts, gauge.owner)
    for obs, fact in victims[:2]:
        c.cite(obs, fact, is_support=False)
    if victims:
        if c.status != "confirmed" or c.confidence < confidence:
            c.status, c.confidence = "confirmed", max(c.confidence, confidence)
        c.chain = [
            board.symptom(),
            f"{gauge.owner}: {gauge.fact}",
            c.statement,
        ]
    elif c.status != "confirmed":
        c.status, c.confidence = "likely", max(c.confidence, 0.5)
    c.keywords = [gauge.owner, gauge.metric, *c.keywords]
    return c


def depleted_resource(board: Board) -> None:
    """A back end's gauge of a balance, credits or what is free falling step by step to almost nothing (burst balance, CPU credits, free inodes or connections) is that back end's fault, confirmed when its callers fail: once spent, it is held to its baseline and every caller waits."""
    for gauge in gauges(board.inv, board.facts):
        if gauge.kind == "depleted":
            _blame(
                board,
                gauge,
                f"{gauge.owner} ran out of {gauge.metric}: spent, it is held to its "
                "baseline and its callers wait on it",
                _DEPLETED_CONFIDENCE,
            )


def replica_lag(board: Board) -> None:
    """A replica whose lag gauge climbs in the window far above the hour before, or whose database logs its replay lag again and again, is the fault when its readers fail: reads it serves miss recent writes (a 404 right after a 201, stale versions)."""
    blamed: set[str] = set()
    for gauge in gauges(board.inv, board.facts):
        if gauge.kind != "lagging":
            continue
        c = _blame(
            board,
            gauge,
            f"{gauge.owner} lags its primary ({gauge.metric}): reads it serves miss "
            "recent writes",
            _LAG_CONFIDENCE,
        )
        blamed.add(gauge.owner)
        for line in silent_lines.lag_lines(board.inv, gauge.owner)[:1]:
            c.cite(line.obs, line.fact)
    logged: dict[str, list[silent_lines.Line]] = {}
    for line in silent_lines.lag_lines(board.inv):
        logged.setdefault(silent_lines.replica_of(line), []).append(line)
    for replica, said in logged.items():
        if replica in blamed or len(said) < MIN_LAG_LINES:
            continue
        c = board.get(
            layers.APPLICATION,
            replica,
            f"{replica} lags its primary (its database logs it): reads it serves miss "
            "recent writes",
        )
        if c.stage is not None:
            continue
        c.cite(said[0].obs, said[0].fact)
        victims = _failing(board.facts, replica)
        for obs, fact in victims[:2]:
            c.cite(obs, fact, is_support=False)
        if victims:
            c.status, c.confidence = "confirmed", max(c.confidence, _LAG_CONFIDENCE)
        elif c.status != "confirmed":
            c.status, c.confidence = "likely", max(c.confidence, 0.5)
        c.chain = [
            board.symptom(),
            f"{said[0].service} logs: {short(said[0].message, 120)}",
            c.statement,
        ]
        c.keywords = [replica, "replication lag", *c.keywords]
