"""A quiet producer that stopped producing (issue 21 class 4): its backlog climbs while the services that wait for its output starve and are louder.

A relay, a publisher or a sender keeps a backlog of what it still has to pass on (pending rows, an
outbox, a send queue) and exports its size. When it stops passing anything on (a thread blocked on a
half-open connection, a leader that holds its lease but does nothing) it logs little or nothing: its
heartbeats go on. What shows it is that backlog climbing step after step from the window's start,
from a level that was flat before, while the services downstream log that what they wait for does
not arrive. They are the loud victims; the quiet owner of the growing backlog is the fault
(application layer), unless its own logs say it fails because of someone else.
"""

import itertools
import re
from dataclasses import dataclass
from datetime import datetime
from statistics import median
from typing import Final

from reasoning import layers
from reasoning.layered import metric_trends, named_lines
from reasoning.layered.candidates import Board
from reasoning.layered.facts import FACT_CHARS, Facts, parse_time
from reasoning.layered.reading import short
from reasoning.layered.warning_leads import names_service
from reasoning.observations import Investigation, Observation

# A gauge of what a service still has to pass on.
BACKLOG: Final = re.compile(
    r"pending|backlog|outbox|unsent|unpublished|undelivered|unprocessed|"
    r"queue_?(?:depth|size|length)|queued",
    re.IGNORECASE,
)
# Downstream words for input that does not come.
STARVED: Final = re.compile(
    r"no (?:new )?(?:messages|events|records|data|updates|input)|not found in (?:the )?"
    r"(?:events|stream|topic|queue)|without (?:an? )?\w+ (?:event|message)|"
    r"nothing (?:to consume|received|arrived)|no \w+ (?:event|message)s? (?:received|arrived)|"
    r"(?:event|message)s? (?:missing|not received)|stopped receiving",
    re.IGNORECASE,
)
GROWTH: Final = 10.0  # the window's last value over the hour before's level
STEADY: Final = 0.8  # the share of the window's steps that rise
FLAT: Final = 2.0  # the hour before: its last value within this many times its median
_FAILING = ("degraded", "unhealthy")
_CONFIRMED = 0.82
_LEAD = 0.55


@dataclass(frozen=True)
class Backlog:
    obs: Observation
    service: str
    metric: str
    was: float
    now: float

    @property
    def fact(self) -> str:
        return short(
            f"query_metric {self.metric}{{service={self.service}}}: "
            f"{metric_trends.number_text(self.was)} before the window, climbing step after "
            f"step to {metric_trends.number_text(self.now)}",
            FACT_CHARS,
        )


def backlogs(inv: Investigation, start: datetime) -> list[Backlog]:
    """The services' backlog gauges that were flat before the window and climb steadily in it."""
    found: list[Backlog] = []
    at = start.timestamp()
    for obs, name, labels, points in metric_trends.answered_series(
        inv, metric_trends.QUERY
    ):
        service = str(labels.get("service") or "").lower()
        if not service or not BACKLOG.search(name):
            continue
        if name.endswith(("_total", "_rate", "_ratio", "_seconds")):
            continue
        before = [v for t, v in points if t < at]
        after = [v for t, v in points if t >= at]
        if len(before) < 2 or len(after) < 4:
            continue
        was = median(before)
        steps = list(itertools.pairwise(after))
        rising = sum(1 for a, b in steps if b > a) / len(steps)
        if (
            before[-1] > FLAT * max(was, 1.0)
            or after[-1] < GROWTH * max(was, 1.0)
            or rising < STEADY
        ):
            continue
        found.append(Backlog(obs, service, name, was, after[-1]))
    return found


def owners(inv: Investigation) -> list[str]:
    """The services whose backlog climbs: their health and logs are read next."""
    start = parse_time(inv.incident.window_start or "")
    if start is None:
        return []
    return list(dict.fromkeys(b.service for b in backlogs(inv, start)))


def searches(inv: Investigation, facts: Facts) -> list[str]:
    """The quiet services whose backlog climbs: their own lease and heartbeat lines are read next."""
    start = parse_time(inv.incident.window_start or "")
    if start is None:
        return []
    names = [*facts.errors, *facts.health]
    return [
        b.service
        for b in backlogs(inv, start)
        if not _loud_itself(facts, b.service, names)
    ]


def _loud_itself(facts: Facts, service: str, names: list[str]) -> bool:
    """Its health fails, or its own new error lines name another service it waits on."""
    health = facts.health.get(service)
    if health is not None and health.verdict in _FAILING:
        return True
    errors = facts.errors.get(service)
    if errors is None:
        return False
    others = [n for n in names if n and n != service]
    return any(
        group.is_new and any(names_service(group.text, o) for o in others)
        for group in errors.groups
    )


def _starved(facts: Facts, service: str) -> list[tuple[Observation, str]]:
    """Other services' new lines that say what they wait for does not arrive."""
    shown: list[tuple[Observation, str]] = []
    for other, errors in facts.errors.items():
        if not other or other == service:
            continue
        for group in (*errors.groups, *errors.warnings):
            if group.is_new and STARVED.search(group.text):
                shown.append((errors.obs, errors.fact(group)))
                break
    return shown


def stalled_output(board: Board) -> None:
    """A service's backlog gauge that was flat before the window and climbs step after step in it, while the service itself is quiet, is that service's fault (it stopped passing work on), confirmed when downstream services log that their input does not arrive."""
    start = parse_time(board.inv.incident.window_start or "")
    if start is None:
        return
    names = [*board.facts.errors, *board.facts.health]
    heard = named_lines.said(board.inv)
    for backlog in backlogs(board.inv, start):
        if _loud_itself(board.facts, backlog.service, names):
            continue
        starved = _starved(board.facts, backlog.service)
        said = f"its {backlog.metric} climbs from the window's start: it stopped passing work on"
        c = board.get(
            layers.APPLICATION,
            backlog.service,
            f"{backlog.service} stopped producing: {said}",
        )
        if c.stage is not None:
            continue
        if said not in c.statement:
            c.statement += f"; {said}"
        c.cite(backlog.obs, backlog.fact)
        for obs, fact in starved[:3]:
            c.cite(obs, fact)
        lines = heard.get(backlog.service, [])
        for obs, fact in lines[:3]:
            c.cite(obs, fact)
        c.chain = [
            board.symptom(),
            *(fact for _, fact in starved[:2]),
            backlog.fact,
            *(fact for _, fact in lines[:2]),
            c.statement,
        ]
        if starved:
            c.status, c.confidence = "confirmed", max(c.confidence, _CONFIRMED)
        elif c.status != "confirmed":
            c.status, c.confidence = "likely", max(c.confidence, _LEAD)
        c.keywords = [backlog.service, backlog.metric, "backlog", *c.keywords]
