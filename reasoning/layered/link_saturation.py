"""A shared network link saturated by a bulk transfer (issue 21 classes 1 and 4): the link at its ceiling is the fault on the path (connect layer), the bulk job that filled it its trigger, the slow callers its victims.

A private link several services share (a Direct Connect or ExpressRoute circuit, a VPN tunnel, a
peering or transit attachment, a NAT gateway, an interface) shows its throughput in an exporter's
series labelled by the link, not by a service. When that throughput steps up at the start to its
ceiling (a utilisation series at 90 % or more, a line naming the link at 90 % or more of its
capacity, or a flat plateau), calls across it queue: round trips rise and callers time out while the
far end serves in milliseconds, and nothing errs at first. A line naming the link (a monitor's alarm)
corroborates it; a service's own line saying it started something (a backup seed, a copy, a sync)
just before the step says what filled it (`shared_backend.starts`, searched by the planner around
the step: `search_window`). A throughput that rose but stays far below its ceiling, or a saturated
link while nothing is slow, is not this.
"""

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from statistics import median
from typing import Final

from reasoning import layers
from reasoning.layered import backend_gauges, metric_trends, network_delay
from reasoning.layered.candidates import Board, Candidate
from reasoning.layered.facts import FACT_CHARS, Facts, parse_time
from reasoning.layered.reading import arg, as_dict, as_list, iso, short
from reasoning.layered.shared_backend import START_SEARCH, Start, starts
from reasoning.observations import Investigation, Observation
from reasoning.tools import SEARCH_LOGS

# The labels by which an exporter names a link (cloud interconnects, tunnels, interfaces).
LINK_LABELS: Final = (
    "connection",
    "connection_id",
    "link",
    "circuit",
    "circuit_id",
    "tunnel",
    "tunnel_id",
    "vpn",
    "vpn_connection",
    "peering",
    "attachment",
    "transit_gateway_attachment",
    "nat_gateway",
    "interface",
    "ifname",
    "vif",
)
# A series of what crosses a link: bits or bytes per second, throughput, utilisation.
_THROUGHPUT: Final = re.compile(
    r"bps|bits|bytes|octets|throughput|bandwidth|utili[sz]ation|traffic", re.IGNORECASE
)
_UTILISATION: Final = re.compile(
    r"utili[sz]ation|util\b|_ratio$|percent|_pct$", re.IGNORECASE
)
# "99.7% of 1 Gbps", "at 98 %": a line's utilisation figure.
_PERCENT: Final = re.compile(r"(\d{1,3}(?:\.\d+)?)\s?%")
_STEP: Final = 2.5  # the window's settled throughput over the hour before's
_PLATEAU: Final = 0.05  # the settled part varies less than this around its median
_CEILING: Final = 0.9
LEAD: Final = timedelta(minutes=15)  # a bulk job started this long before the step
SLACK: Final = timedelta(minutes=2)
# A search for a link's name opens with this (case-insensitive, RE2), so its answers are told apart.
_LINK_QUERY: Final = "(?i)"
_CONFIRMED = 0.9
_LIKELY = 0.7


@dataclass(frozen=True)
class Saturated:
    """A link whose throughput stepped up to its ceiling in the window."""

    obs: Observation
    metric: str
    link: str
    was: float
    now: float
    step_at: datetime | None
    ceiling: str  # how the ceiling shows: a utilisation, a line's figure, a plateau

    @property
    def fact(self) -> str:
        return short(
            f"query_metric {self.metric}{{{self.link}}}: "
            f"{metric_trends.number_text(self.was)} the hour before the window, "
            f"{metric_trends.number_text(self.now)} now ({self.ceiling})",
            FACT_CHARS,
        )


def _link(labels: dict[str, object]) -> str | None:
    if labels.get("service"):
        return None  # a service's own series, not a shared link's
    return next((str(labels[k]) for k in LINK_LABELS if labels.get(k)), None)


def _step_at(
    points: list[tuple[float, float]], start: float, was: float, now: float
) -> datetime | None:
    """When the throughput first reached halfway from what it was to what it settled at."""
    half = was + (now - was) / 2
    moment = next((t for t, v in points if t >= start and v >= half), None)
    return None if moment is None else datetime.fromtimestamp(moment, UTC)


@dataclass(frozen=True)
class Said:
    """A line naming a link: a group of a service's errors or warnings, or a searched line."""

    obs: Observation
    service: str
    text: str
    fact: str


def saturated_links(
    inv: Investigation, lines: list[Said] | None = None
) -> list[Saturated]:
    """The links whose throughput stepped up at the start to a ceiling, the largest step first.

    `lines` are lines that may name a link with its utilisation figure.
    """
    start = parse_time(inv.incident.window_start or "")
    if start is None:
        return []
    found: list[Saturated] = []
    for obs, name, labels, points in metric_trends.answered_series(
        inv, backend_gauges.QUERY
    ):
        link = _link(labels)
        if link is None or not _THROUGHPUT.search(name) or name.endswith("_total"):
            continue  # a counter's growth is no step (its rate is another query)
        medians = metric_trends.before_and_recent(points, start)
        if medians is None:
            continue
        was, now = medians
        if now <= 0 or now < _STEP * max(was, 0.0):
            continue
        ceiling = _ceiling(name, link, points, start, now, lines or [])
        if ceiling is None:
            continue
        at = _step_at(points, start.timestamp(), was, now)
        found.append(Saturated(obs, name, link, was, now, at, ceiling))
    found.sort(key=lambda s: -(s.now / max(s.was, 1e-9)))
    return found


def _ceiling(
    name: str,
    link: str,
    points: list[tuple[float, float]],
    start: datetime,
    now: float,
    lines: list[Said],
) -> str | None:
    """How the series shows it is at its ceiling, or None."""
    if _UTILISATION.search(name):
        share = now if now <= 1.0 else now / 100
        return f"{share:.0%} utilised" if share >= _CEILING else None
    for said in naming(link, lines):
        figures = [float(m.group(1)) for m in _PERCENT.finditer(said.text)]
        if any(_CEILING * 100 <= f <= 100 for f in figures):
            return f"{max(figures):g}% of its capacity"
    after = [v for t, v in points if t >= start.timestamp()]
    settled = after[len(after) // 2 :]
    mid = median(settled)
    if mid > 0 and (max(settled) - min(settled)) / mid <= 2 * _PLATEAU:
        return "flat at a plateau"
    return None


def naming(link: str, lines: list[Said]) -> list[Said]:
    """The lines that name `link`."""
    word = re.compile(rf"(?<![\w-]){re.escape(link)}(?![\w-])", re.IGNORECASE)
    return [said for said in lines if word.search(said.text)]


def _lines(inv: Investigation, facts: Facts) -> list[Said]:
    """Current error and warning groups, and the lines of every search naming a link."""
    found = [
        Said(errors.obs, errors.service, group.text, errors.fact(group))
        for errors in facts.errors.values()
        for group in (*errors.groups, *errors.warnings)
        if not group.is_stale
    ]
    for obs in inv.observations:
        if obs.tool != SEARCH_LOGS or not obs.is_ok or arg(obs, "service"):
            continue
        if str(arg(obs, "query") or "").startswith(_LINK_QUERY):
            for line in map(as_dict, as_list(as_dict(obs.result).get("lines"))):
                service = str(line.get("service") or "").lower()
                text = str(line.get("message") or "")
                fact = short(f"search_logs(every service): {service}: {text}", 300)
                found.append(Said(obs, service, text, fact))
    return found


def link_search(inv: Investigation, facts: Facts) -> dict[str, str] | None:
    """The search of every service's lines naming a saturated link (a monitor's alarm, its
    utilisation figure), over the window, when not made yet."""
    found = saturated_links(inv, _lines(inv, facts))
    if not found or inv.incident.window_start is None:
        return None
    query = _LINK_QUERY + re.escape(found[0].link)
    if any(
        o.tool == SEARCH_LOGS and arg(o, "query") == query for o in inv.observations
    ):
        return None
    return {
        "query": query,
        "start": inv.incident.window_start,
        "end": inv.incident.window_end or "now",
    }


def search_window(inv: Investigation, facts: Facts) -> dict[str, str] | None:
    """Where to search every service's lines about starting something: the `LEAD` before a
    saturated link's step, when no such search was made yet."""
    if any(
        o.tool == SEARCH_LOGS and arg(o, "query") == START_SEARCH
        for o in inv.observations
    ):
        return None
    found = [s for s in saturated_links(inv, _lines(inv, facts)) if s.step_at]
    if not found or found[0].step_at is None:
        return None
    at = found[0].step_at
    return {"start": iso(at - LEAD), "end": iso(at + SLACK)}


def _trigger(inv: Investigation, at: datetime | None, slow: set[str]) -> Start | None:
    """The last start of a service that is not slow itself in the `LEAD` before the step."""
    if at is None:
        return None
    near = [
        s
        for s in starts(inv)
        if s.service not in slow and at - LEAD <= s.at <= at + SLACK
    ]
    return max(near, key=lambda s: s.at) if near else None


def link_saturated(board: Board) -> None:
    """A shared link whose throughput stepped up at the start to its ceiling while calls across it slowed (round trips rose, callers slow with no error of their own) is the fault on the path (connect layer); the bulk job that started just before filled it, and the slow callers are its victims."""
    lines = _lines(board.inv, board.facts)
    paths = network_delay.slow_paths(board.inv)
    slow_callers = [
        h for h in board.facts.health.values() if h.has("p99_latency_s") and h.service
    ]
    if not paths and not slow_callers:
        return
    for link in saturated_links(board.inv, lines)[:1]:
        ends = {p.source for p in paths} | {p.dest for p in paths}
        slow = ends | {h.service for h in slow_callers}
        trigger = _trigger(board.inv, link.step_at, slow)
        said = naming(link.link, lines)
        c = board.get(
            layers.CONNECT,
            link.link,
            f"the shared link {link.link} is saturated: its throughput stepped up to its "
            f"ceiling ({link.ceiling}) and calls across it queue"
            + (
                f"; {trigger.service} started a bulk transfer just before"
                if trigger
                else ""
            ),
        )
        c.cite(link.obs, link.fact)
        for line in said[:2]:
            c.cite(line.obs, line.fact)
        if trigger is not None:
            c.cite(trigger.obs, trigger.fact)
        for path in paths[:1]:
            c.cite(path.obs, path.fact)
        for health in slow_callers[:1]:
            c.cite(health.obs, health.fact)
        # A figure or a utilisation shows the ceiling; a plateau alone, or no word of the link
        # and no job, leaves it a lead.
        shown = link.ceiling != "flat at a plateau" or bool(said) or trigger is not None
        if shown:
            c.status, c.confidence = "confirmed", max(c.confidence, _CONFIRMED)
        elif c.status != "confirmed":
            c.status, c.confidence = "likely", max(c.confidence, _LIKELY)
        c.chain = [
            board.symptom(),
            *(
                f"{p.source} -> {p.dest} round trip {p.trend.words()}"
                for p in paths[:1]
            ),
            f"{link.link}: {link.fact}",
            *(f"{x.service} logs: {short(x.text, 120)}" for x in said[:1]),
            *(
                [f"{trigger.service} logs: {short(trigger.line, 120)}"]
                if trigger
                else []
            ),
            c.statement,
        ]
        c.keywords = [
            link.link,
            layers.CONNECT,
            "link saturated",
            "bandwidth",
            "throughput",
            *([trigger.service] if trigger else []),
        ]
        if not shown:
            continue
        victims = {
            *slow,
            *(x.service for x in said),
            *([trigger.service] if trigger else []),
        }
        for victim in list(board.candidates.values()):
            if victim is not c and victim.component in victims:
                _victim(victim, c)


def _victim(victim: Candidate, cause: Candidate) -> None:
    victim.explained_by(
        cause, f"a symptom of {cause.id} (the saturated link its calls cross)"
    )
