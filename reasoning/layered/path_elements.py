"""Network delay from metrics, the path's own element (issue 21): a tunnel, link or gateway that reports itself down explains its users' timeouts.

A path between a service and what it calls often runs over elements of its own: the tunnels of a
site-to-site VPN, a leased link, a NAT gateway, an interconnect. Their exporters label their series by
the element, not by a service, so the planner already reads them with the other unlabelled gauges
(`backend_gauges.QUERY`). An element whose state gauge (`…_up`, `…_status`, `…_state`) reads 0 in the
window is down; when a service meanwhile fails with transport symptoms (timeouts, retransmits,
resets), the remaining path is the bottleneck: the element is the fault, at the connect layer. A
sibling of the same element whose throughput rose, or a retransmit or drop count that jumped,
confirms it.
"""

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Final

from reasoning import layers
from reasoning.layered import backend_gauges, metric_trends, named_lines
from reasoning.layered.candidates import Board
from reasoning.layered.facts import FACT_CHARS, Facts, parse_time
from reasoning.layered.reading import short
from reasoning.observations import Investigation, Observation

# What a network path element is called in its metric's name.
ELEMENT: Final = re.compile(
    r"tunnel|vpn|ipsec|uplink|interconnect|direct_?connect|circuit|peering|bgp|"
    r"nat_?gateway|transit|wan_|_link_|^link_",
    re.IGNORECASE,
)
# A gauge of its state: 1 up, 0 down.
STATE: Final = re.compile(r"_(?:up|status|state|available|established)$", re.IGNORECASE)
# How a state series names its element, most specific first; a number is a part of it (tunnel 1).
_ELEMENT_LABELS: Final = (
    "vpn",
    "vpn_id",
    "vpn_connection",
    "connection",
    "tunnel_id",
    "link",
    "circuit",
    "gateway",
    "nat_gateway",
    "interconnect",
    "peer",
    "name",
    "id",
    "instance",
)
# A caller's words for a path that drops or stalls its packets.
TRANSPORT: Final = re.compile(
    r"timed? ?out|timeout|retransmi|connection reset|broken pipe|packet loss|"
    r"unreachable|no route to host",
    re.IGNORECASE,
)
# A count of what the path loses.
LOSS: Final = re.compile(r"retrans|drop|loss|discard", re.IGNORECASE)
_RISE: Final = (
    1.3  # a sibling's throughput over its baseline: it carries the element's share
)
_CONFIRMED = 0.88
_LIKELY = 0.7


@dataclass(frozen=True)
class Down:
    """A path element whose state gauge reads 0 in the window."""

    obs: Observation
    metric: str
    element: str
    part: str  # the labels that say which part of it (tunnel 1), "" when none
    labels: dict[str, str]

    @property
    def name(self) -> str:
        return f"{self.element} {self.part}".strip()

    @property
    def fact(self) -> str:
        return short(
            f"query_metric {self.metric}{{{_labels(self.labels)}}}: 0 in the window (down)",
            FACT_CHARS,
        )


def elements_down(
    inv_series: list[
        tuple[Observation, str, dict[str, str], list[tuple[float, float]]]
    ],
    start: datetime,
) -> list[Down]:
    """The path elements whose state gauge is 0 over the window's second half."""
    found: list[Down] = []
    for obs, name, labels, points in inv_series:
        if not (ELEMENT.search(name) and STATE.search(name)):
            continue
        after = [v for t, v in points if t >= start.timestamp()]
        recent = after[len(after) // 2 :]
        if not recent or any(v != 0 for v in recent):
            continue
        element = _element(name, labels)
        if element is None:
            continue
        part = " ".join(
            f"{k} {v}"
            for k, v in labels.items()
            if k != "__name__" and v != element and v.isdigit()
        )
        found.append(Down(obs, name, element, part, labels))
    return found


def searches(inv: Investigation, facts: Facts) -> list[str]:
    """The elements down while a service times out: every service's lines naming each are read next."""
    start = parse_time(inv.incident.window_start or "")
    if start is None or not _transport_symptoms(facts):
        return []
    return list(
        dict.fromkeys(d.element for d in elements_down(_all_series(inv), start))
    )


def path_elements(board: Board) -> None:
    """A network path element (a tunnel, link or gateway) whose state gauge reads 0 while a service fails with timeouts or retransmits is the fault on that path (connect layer), confirmed when a sibling's throughput rose or a retransmit or drop count jumped."""
    start = parse_time(board.inv.incident.window_start or "")
    if start is None:
        return
    series = _all_series(board.inv)
    downs = elements_down(series, start)
    if not downs:
        return
    symptoms = _transport_symptoms(board.facts)
    if not symptoms:
        return
    said = named_lines.said(board.inv)
    for down in downs:
        c = board.get(
            layers.CONNECT,
            down.element,
            f"{down.name} is down ({down.metric} = 0): the path to what it carries runs on "
            "what is left of it, and its users time out",
        )
        c.cite(down.obs, down.fact)
        for obs, fact in symptoms[:2]:
            c.cite(obs, fact)
        more = _confirmation(series, down, start)
        for obs, fact in more:
            c.cite(obs, fact)
        lines = said.get(down.element, [])
        for obs, fact in lines[:2]:
            c.cite(obs, fact)
        c.chain = [
            board.symptom(),
            *(fact for _, fact in symptoms[:1]),
            down.fact,
            *(fact for _, fact in more[:2]),
            *(fact for _, fact in lines[:1]),
            c.statement,
        ]
        if more:
            c.status, c.confidence = "confirmed", max(c.confidence, _CONFIRMED)
        elif c.status != "confirmed":
            c.status, c.confidence = "likely", max(c.confidence, _LIKELY)
        c.keywords = [down.element, down.metric, "network", "down", layers.CONNECT]


def _all_series(
    inv: Investigation,
) -> list[tuple[Observation, str, dict[str, str], list[tuple[float, float]]]]:
    out = []
    for query in (backend_gauges.QUERY, metric_trends.QUERY):
        for obs, name, labels, points in metric_trends.answered_series(inv, query):
            out.append((obs, name, {str(k): str(v) for k, v in labels.items()}, points))
    return out


def _element(name: str, labels: dict[str, str]) -> str | None:
    """The element a state series measures: its most specific label that is not a bare number."""
    for label in _ELEMENT_LABELS:
        value = labels.get(label, "").strip()
        if value and not value.isdigit():
            return value.lower()
    return next(
        (
            v.lower()
            for k, v in labels.items()
            if k not in ("__name__", "service", "job") and v and not v.isdigit()
        ),
        None,
    )


def _transport_symptoms(facts: Facts) -> list[tuple[Observation, str]]:
    """New error lines of a service that say its calls time out or lose packets."""
    shown: list[tuple[Observation, str]] = []
    for errors in facts.errors.values():
        for group in errors.groups:
            if group.is_new and TRANSPORT.search(group.text):
                shown.append((errors.obs, errors.fact(group)))
                break
    return shown


def _confirmation(
    series: list[tuple[Observation, str, dict[str, str], list[tuple[float, float]]]],
    down: Down,
    start: datetime,
) -> list[tuple[Observation, str]]:
    """A sibling of the element whose throughput rose, a retransmit or drop count that jumped."""
    shown: list[tuple[Observation, str]] = []
    for obs, name, labels, points in series:
        if name == down.metric or STATE.search(name):
            continue
        sibling = down.element in {v.lower() for v in labels.values()}
        if not sibling and not LOSS.search(name):
            continue
        medians = metric_trends.before_and_recent(points, start)
        if medians is None:
            continue
        was, now = medians
        factor = _RISE if sibling else metric_trends.JUMP
        if now > 0 and now >= factor * max(was, 1e-9):
            shown.append(
                (
                    obs,
                    short(
                        f"query_metric {name}{{{_labels(labels)}}}: "
                        f"{metric_trends.number_text(was)} before the window, "
                        f"{metric_trends.number_text(now)} now",
                        FACT_CHARS,
                    ),
                )
            )
    return shown


def _labels(labels: dict[str, str]) -> str:
    return ",".join(f"{k}={v}" for k, v in labels.items() if k != "__name__")
