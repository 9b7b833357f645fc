"""Lines that say data went quietly wrong (issue 21 classes 1 and 4): a replica behind its primary, a consumer that skipped records, a traffic split that changed.

None of them is an error: a replica's replay lag is a database's warning, a consumer resetting an
offset that is out of range (its records were deleted by the topic's retention) logs at info, a
router's new weights are a configuration reload. The loud errors are elsewhere: the readers that
miss recent writes, the reports that do not add up, the callers of a canary. When nothing read so
far explains the incident, or a replica's lag gauge climbs (`backend_gauges`), the planner searches
every service's lines for them in the window (`SEARCH`, `wanted`); the rules here read the answer.
"""

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Final

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.facts import FACT_CHARS, Facts, parse_time
from reasoning.layered.reading import arg, as_dict, as_list, short
from reasoning.observations import Investigation, Observation
from reasoning.tools import SEARCH_LOGS

# The same words, as a RE2 pattern for the logs' search of every service (case-insensitive).
SEARCH: Final = (
    r"(replay|replication|replica|standby) lag|conflict with recovery|replay (is )?paused|"
    r"out of range for partition|offset out of range|OffsetOutOfRange|"
    r"weight ?[=:] ?[0-9]+"
)
LIMIT: Final = 100
BEFORE: Final = timedelta(minutes=30)  # how far before the window the search reaches
LAG: Final = re.compile(
    r"(?:replay|replication|replica|standby) lag|conflict with recovery|replay (?:is )?paused",
    re.IGNORECASE,
)
# A replica a lag line names: "replica <name>", else a name with "replica" in it.
REPLICA_NAME: Final = re.compile(
    r"\b(?:replica|standby)\s+([a-z][a-z0-9_.-]*[a-z0-9])|\b([a-z][a-z0-9_.-]*(?:replica|standby)[a-z0-9_.-]*[a-z0-9])",
    re.IGNORECASE,
)
OUT_OF_RANGE: Final = re.compile(
    r"out of range for partition|offset out of range|OffsetOutOfRange", re.IGNORECASE
)
# "<server> weight=95": a weighted route's share, as a router's configuration states it.
WEIGHT: Final = re.compile(
    r"\b([a-z][a-z0-9_.-]*[a-z0-9])\s+weight\s?[=:]\s?(\d+)", re.IGNORECASE
)
MIN_RESETS: Final = 2
SPLIT_LEAD: Final = timedelta(minutes=30)
_RESET_CONFIDENCE = 0.84
_SPLIT_CONFIDENCE = 0.84


@dataclass(frozen=True)
class Line:
    """One line the search found: its answer, service, time and message."""

    obs: Observation
    service: str
    at: datetime | None
    message: str

    @property
    def fact(self) -> str:
        return short(
            f"search_logs(every service): {self.service}: {self.message}", FACT_CHARS
        )


def arguments(window: dict[str, str]) -> dict[str, object] | None:
    """The search of every service's lines for the quiet words, from a little before the window."""
    start = parse_time(window["start"])
    if start is None:
        return None
    since = (start - BEFORE).isoformat(timespec="seconds").replace("+00:00", "Z")
    return {
        "query": SEARCH,
        "regex": True,
        "start": since,
        "end": window["end"],
        "limit": LIMIT,
    }


def lines(inv: Investigation) -> list[Line]:
    """The lines the search of every service found (its first answer)."""
    for obs in inv.observations:
        if obs.tool != SEARCH_LOGS or not obs.is_ok or arg(obs, "service"):
            continue
        if obs.arguments.get("query") != SEARCH:
            continue
        found = []
        for line in map(as_dict, as_list(as_dict(obs.result).get("lines"))):
            service = str(line.get("service") or "").lower()
            message = str(line.get("message") or "")
            if service and message:
                at = parse_time(str(line.get("time") or ""))
                found.append(Line(obs, service, at, message))
        return found
    return []


def replica_of(line: Line) -> str:
    """The replica a lag line names, else the service that logged it."""
    match = REPLICA_NAME.search(line.message)
    if match is None:
        return line.service
    return (match.group(1) or match.group(2)).lower()


def lag_lines(inv: Investigation, replica: str | None = None) -> list[Line]:
    """The lines that say a replica lags (of `replica`, when given)."""
    return [
        line
        for line in lines(inv)
        if LAG.search(line.message) and (replica is None or replica_of(line) == replica)
    ]


def _failing(facts: Facts) -> list[tuple[Observation, str]]:
    """New error or warning lines anywhere: what shows the data's gap."""
    shown = []
    for errors in facts.errors.values():
        new = [g for g in (*errors.groups, *errors.warnings) if g.is_new]
        if new:
            shown.append((errors.obs, errors.fact(max(new, key=lambda g: g.count))))
    return shown


def offset_reset(board: Board) -> None:
    """A consumer that logs its fetch offsets out of range and resets them (the topic's retention deleted its records before it read them) silently skipped data: it is the fault behind reports that do not add up, not the services that complain."""
    by_consumer: dict[str, list[Line]] = {}
    for line in lines(board.inv):
        if OUT_OF_RANGE.search(line.message):
            by_consumer.setdefault(line.service, []).append(line)
    for consumer, resets in by_consumer.items():
        if len(resets) < MIN_RESETS:
            continue
        c = board.get(
            layers.APPLICATION,
            consumer,
            f"{consumer}'s committed offsets were out of range (deleted by the topic's "
            "retention) and reset: it skipped the records in between",
        )
        if c.stage is not None:
            continue
        c.cite(resets[0].obs, resets[0].fact)
        shown = _failing(board.facts)
        for obs, fact in shown[:2]:
            c.cite(obs, fact, is_support=False)
        if shown:
            c.status, c.confidence = "confirmed", max(c.confidence, _RESET_CONFIDENCE)
        elif c.status != "confirmed":
            c.status, c.confidence = "likely", max(c.confidence, 0.5)
        c.chain = [
            board.symptom(),
            f"{consumer} logs {len(resets)} resets: {short(resets[0].message, 120)}",
            c.statement,
        ]
        c.keywords = [consumer, "offset reset", "retention.ms", *c.keywords]


def traffic_split(board: Board) -> None:
    """A router's weights that give a service its share of traffic, set just before that service's own new errors began, are the change that exposed them: cited with its errors, it confirms the service as the fault."""
    for line in lines(board.inv):
        for match in WEIGHT.finditer(line.message):
            service, weight = match.group(1).lower(), int(match.group(2))
            errors = board.facts.errors.get(service)
            new = [g for g in errors.groups if g.is_new] if errors else []
            times = [t for g in new if (t := parse_time(g.first_seen)) is not None]
            if errors is None or weight <= 0 or not times or line.at is None:
                continue
            if not min(times) - SPLIT_LEAD <= line.at <= min(times):
                continue
            group = max(new, key=lambda g: g.count)
            c = board.get(
                layers.APPLICATION,
                service,
                f"{service} fails on its own: {short(group.sample or group.signature, 100)}",
            )
            if c.stage is not None:
                continue
            c.cite(errors.obs, errors.fact(group))
            c.cite(line.obs, line.fact)
            said = f"a traffic split gave it weight={weight} just before"
            if said not in c.statement:
                c.statement += f"; {said}"
            c.status, c.confidence = "confirmed", max(c.confidence, _SPLIT_CONFIDENCE)
            c.chain = [
                board.symptom(),
                f"{line.service} logs: {short(line.message, 120)}",
                c.statement,
            ]
            c.keywords = [service, "weight", "canary", *c.keywords]
