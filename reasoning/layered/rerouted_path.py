"""A path rerouted through somewhere far (issue 21 classes 1 and 4): an intermediary's fetch time stepped up right after a change moved where its traffic goes.

A CDN, proxy or mesh measures the time of the hop it makes for its clients: a CDN's cache misses
(fetched through its shield from the origin), a proxy's or sidecar's upstream time. When a change
moves that hop somewhere far (a CDN's shield POP to another continent, an upstream cluster to
another region, a peering or egress route), the hop's time steps up at once while the origin's own
answers stay fast and nothing errs: only its clients' budgets and timeouts complain, louder and in
their own words. The series says when, the change line says why. A latency series of such a hop
(`PATH_WORDS` in its name: miss, origin, upstream, fetch, shield …) whose level in the window's last
half is at least `STEP` times the hour before's, and stepped (every late point above the old
level), with a change line (`quiet_changes.SEARCH`) logged in the `LEAD` before its first high point
that names the series' owner (the first word of its name, `fastly_…`, or one of its label values)
and sets where traffic goes (a key it sets is a `WHERE` word: a shield, POP, region, upstream, host …), is a delay on
the path at the connect layer, of the intermediary named as people name it (the word its series
are prefixed with, else the label value the change names), cited by the change line and the step.
The planner runs the change search when such a step is in view (`needs_change_search`).
"""

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from statistics import median
from typing import Final

from reasoning import layers
from reasoning.layered import backend_gauges, metric_trends, quiet_changes
from reasoning.layered.candidates import Board
from reasoning.layered.facts import FACT_CHARS, parse_time
from reasoning.layered.reading import short
from reasoning.observations import Investigation, Observation

# A series of time spent (a latency, duration, elapsed time or round trip).
_TIME: Final = re.compile(
    r"latency|duration|elapsed|rtt|round_?trip|response_?time|_time(?:_|$)|_ms(?:_|$)",
    re.IGNORECASE,
)
# … of a hop an intermediary makes for its clients (a cache miss's fetch, an upstream call).
PATH_WORDS: Final = re.compile(
    r"miss|origin|upstream|fetch|shield|backend|forward|proxy|hop|egress|peer",
    re.IGNORECASE,
)
# A setting that says where traffic goes (also as a word of a snake-case key: `origin_pop`).
WHERE: Final = re.compile(
    r"(?<![a-z0-9])(?:shield|pop|region|zone|datacenter|data_center|location|origin|upstream|"
    r"backend|host|endpoint|route|peering|egress|gateway|cluster)s?(?![a-z0-9])",
    re.IGNORECASE,
)
# First words of a series' name that say nothing of whose it is.
_NOT_OWNERS: Final = frozenset(
    {
        "app",
        "api",
        "http",
        "https",
        "service",
        "svc",
        "request",
        "node",
        "process",
        "job",
    }
)
# The settings a change line sets: the key before an old value and an arrow (`shield: "a" => "b"`,
# `upstream a -> b`), or the name a verb sets (`set origin_host to …`, `upstream switched to …`).
_SET_KEYS: Final = re.compile(
    r"([A-Za-z][\w.-]{0,60})[\"']?[ \t]{0,3}[:=]?[ \t]{0,3}[\"']?[^\s\"']{0,80}[\"']?[ \t]{0,3}"
    r"(?:->|=>|→)|"
    r"\b(?:set|moved|switched|pointed|changed) ([A-Za-z][\w.-]{0,60}) (?:to|from)\b|"
    r"([A-Za-z][\w.-]{0,60}) (?:changed|switched|moved|set|repointed) (?:from \S{1,60} )?to\b",
    re.IGNORECASE,
)
STEP: Final = 3.0  # the window's last half over the hour before
LEAD: Final = timedelta(minutes=30)  # a change this long before the first high point
SLACK: Final = timedelta(
    minutes=2
)  # a change logged a little after it (clocks, buffering)
_CONFIDENCE: Final = 0.9


@dataclass(frozen=True)
class Step:
    """A hop's latency series that stepped up: what it was, what it is, when it first rose."""

    obs: Observation
    metric: str
    labels: dict[str, str]
    was: float
    now: float
    at: datetime

    @property
    def owner(self) -> str:
        """The word the series' name begins with: the exporter or product it comes from."""
        return self.metric.split("_", 1)[0].lower()

    @property
    def fact(self) -> str:
        labels = ",".join(f"{k}={v}" for k, v in self.labels.items())
        return short(
            f"query_metric {self.metric}{{{labels}}}: "
            f"{metric_trends.number_text(self.was)} the hour before the window, "
            f"{metric_trends.number_text(self.now)} in its last half, stepped up at "
            f"{self.at.isoformat()}",
            FACT_CHARS,
        )


def steps(inv: Investigation) -> list[Step]:
    """The hop latency series, of a service or an exporter's, that stepped up from the hour before."""
    start = parse_time(inv.incident.window_start or "")
    if start is None:
        return []
    found: list[Step] = []
    for query in (metric_trends.QUERY, backend_gauges.QUERY):
        for obs, name, labels, points in metric_trends.answered_series(inv, query):
            if not _TIME.search(name) or not PATH_WORDS.search(name):
                continue
            step = _stepped(obs, name, labels, points, start)
            if step is not None:
                found.append(step)
    return found


def _stepped(
    obs: Observation,
    name: str,
    labels: dict[str, object],
    points: list[tuple[float, float]],
    start: datetime,
) -> Step | None:
    before = [v for t, v in points if t < start.timestamp()]
    inside = [(t, v) for t, v in points if t >= start.timestamp()]
    if len(before) < 3 or len(inside) < 4:
        return None
    was = median(before)
    late = [v for _, v in inside[len(inside) // 2 :]]
    now = median(late)
    if was <= 0 or now < STEP * was or min(late) <= max(before):
        return None
    # The first point of the run that stays high to the end: when the hop changed.
    high = len(points)
    while high > 0 and points[high - 1][1] > max(before):
        high -= 1
    if high >= len(points):
        return None
    return Step(
        obs,
        name,
        {str(k): str(v) for k, v in labels.items() if k != "__name__"},
        was,
        now,
        datetime.fromtimestamp(points[high][0], tz=UTC),
    )


def needs_change_search(inv: Investigation) -> bool:
    """A hop's latency stepped up and no change search was answered yet."""
    return bool(steps(inv)) and not quiet_changes.change_lines(inv)


def _sets_where(text: str) -> bool:
    """The change sets where traffic goes: one of the keys it sets is a place (`WHERE`)."""
    return any(
        WHERE.search(key)
        for match in _SET_KEYS.finditer(text)
        for key in match.groups()
        if key
    )


def _names(text: str, word: str) -> bool:
    return (
        len(word) >= 3
        and re.search(rf"(?<![a-z0-9]){re.escape(word)}(?![a-z0-9])", text.lower())
        is not None
    )


def rerouted_path(board: Board) -> None:
    """A hop's latency series (a CDN's misses, a proxy's upstream time) that stepped up to several times its level right after a change line naming its owner set where its traffic goes (a shield, region, upstream, host) is a delay on the path at the connect layer, of the intermediary as people name it, cited by the change and the step."""
    found = steps(board.inv)
    if not found:
        return
    changes = quiet_changes.change_lines(board.inv)
    for step in found:
        for change in changes:
            if change.at is None or not (
                step.at - LEAD <= change.at <= step.at + SLACK
            ):
                continue
            head = change.message[:4000]
            if not _sets_where(head):
                continue
            owners = [step.owner] if step.owner not in _NOT_OWNERS else []
            named = [
                w for w in (*owners, *step.labels.values()) if _names(head, w.lower())
            ]
            if not named:
                continue
            _blame(board, named[0].lower(), step, change)
            return


def _blame(
    board: Board, component: str, step: Step, change: quiet_changes.ChangeLine
) -> None:
    c = board.get(
        layers.CONNECT,
        component,
        f"a change moved where {component}'s traffic goes and its hop got longer: "
        f"{step.metric} went from {metric_trends.number_text(step.was)} to "
        f"{metric_trends.number_text(step.now)} right after {change.service} logged "
        f"{short(change.message, 120)}",
    )
    if c.status == "ruled_out":
        return
    c.cite(change.obs, change.fact)
    c.cite(step.obs, step.fact)
    c.status, c.confidence = "confirmed", max(c.confidence, _CONFIDENCE)
    c.chain = [
        board.symptom(),
        step.fact,
        f"{change.service} logs a change: {short(change.message, 140)}",
        c.statement,
    ]
    c.keywords = [component, step.metric, "network delay", "path change"]
    for other in board.candidates.values():
        if other.layer != layers.APPLICATION or other.status == "ruled_out":
            continue
        if other.status == "confirmed" and other.confidence >= _CONFIDENCE:
            continue
        errors = board.facts.errors.get(other.component)
        began = (
            [
                parse_time(g.first_seen)
                for g in (*errors.groups, *errors.warnings)
                if g.is_new
            ]
            if errors
            else []
        )
        if any(b is not None and b >= step.at - SLACK for b in began):
            other.explained_by(
                c, f"a symptom of {c.id} (its clients wait on the longer path)"
            )
