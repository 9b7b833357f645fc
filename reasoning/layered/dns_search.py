"""A name answered from a resolver search domain: the search domain's record (a wildcard), not the name's owner, is at fault.

A resolver with `ndots` above the dots of a name (Kubernetes pods have ndots:5) tries the name with
every search suffix before the name as it is: `api.vendor.com` is first asked as
`api.vendor.com.<suffix>`. Those lookups normally answer NXDOMAIN and cost only time. When one
suffix's zone gains a wildcard record (`* A 10.0.0.5`, `*.corp.example`), the suffixed lookup
answers, and the caller connects to that address: its TLS check names the wrong host, its requests
reach the wrong service, while the real name and its owner are fine. When callers fail on a name,
the planner searches every service's lines for the name with a suffix appended (a resolver's query
log, `api.vendor.com.corp.example.`) and for wildcard records added (`searches`). A suffixed lookup
that was answered (not NXDOMAIN) makes the suffix's zone the DNS hypothesis, named by its wildcard
when a line adds one (`search_domain_capture`); the caller's failure on the name is its symptom.
A suffixed lookup answered NXDOMAIN, or a cluster suffix (`svc.cluster.local`) answering a
cluster-local name, is the search path working, not this rule's.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Final

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.facts import Facts, parse_time
from reasoning.layered.reading import (
    error_classes,
    every_service_lines,
    hosts_in,
    short,
)
from reasoning.observations import Observation, PlannedCall
from reasoning.tools import SEARCH_LOGS

# A wildcard record, as an RE2 pattern (case-insensitive there): `*.zone`, `record * A`, `wildcard`.
WILDCARD_WORDS: Final = r"(wildcard|\*\.[a-z0-9-]+\.[a-z]|\* +(in +)?(a|aaaa|cname)\b)"
_WILDCARD: Final = re.compile(WILDCARD_WORDS, re.IGNORECASE)
_WILDCARD_NAME: Final = re.compile(r"\*\.((?:[a-z0-9-]{1,63}\.){1,8}[a-z]{2,63})\b")
_NXDOMAIN: Final = re.compile(
    r"NXDOMAIN|no such (?:host|domain)|not found", re.IGNORECASE
)
# Suffixes a cluster's own search path adds: answered there, a cluster-local name resolved.
_CLUSTER_SUFFIX: Final = re.compile(
    r"(?:^|\.)(?:svc|cluster\.local|local|internal|localdomain)$"
)
_FAILING_CLASSES: Final = frozenset(
    {layers.DNS, layers.CONNECT, layers.TLS, layers.HTTP}
)
_MAX_NAMES: Final = 3
_LIMIT: Final = 20
LEAD: Final = timedelta(hours=2)  # a record added before the window


@dataclass(frozen=True)
class Capture:
    obs: Observation
    service: str  # the resolver whose line it is
    message: str
    name: str  # the name the caller asked for
    suffix: str  # the search domain that answered

    @property
    def fact(self) -> str:
        return short(
            f"search_logs: {self.service} answers {self.name}.{self.suffix} "
            f"(the search domain {self.suffix} appended): {self.message}",
            300,
        )


def caller_names(facts: Facts) -> list[str]:
    """Outside names (two labels or more, not cluster-local) that failing lines of callers name."""
    found: list[str] = []
    for _, group in facts.error_texts():
        if not error_classes(group.text) & _FAILING_CLASSES:
            continue
        for host in hosts_in(group.text):
            if not _CLUSTER_SUFFIX.search(host) and host not in found:
                found.append(host)
    return found[:_MAX_NAMES]


def capture_pattern(names: list[str]) -> str:
    """A regex for lines naming one of `names` with a further domain appended."""
    alternatives = "|".join(re.escape(n) for n in names)
    return rf"({alternatives})\.[a-z0-9-]+\.[a-z]"


def searches(
    facts: Facts,
    call: Callable[[str, dict[str, Any], str], PlannedCall | None],
    window: dict[str, str],
) -> list[PlannedCall | None]:
    """When callers fail on outside names: every service's lines asking them with a suffix appended, and lines adding wildcard records."""
    names = caller_names(facts)
    if not names:
        return []
    base: dict[str, Any] = {"regex": True, **window, "limit": _LIMIT}
    earlier = dict(base)
    start = parse_time(window.get("start", ""))
    if start is not None:
        earlier["start"] = (start - LEAD).isoformat().replace("+00:00", "Z")
    listed = ", ".join(names)
    return [
        call(
            SEARCH_LOGS,
            {"query": capture_pattern(names), **base},
            f"callers fail on {listed}: were they resolved with a search domain appended",
        ),
        call(
            SEARCH_LOGS,
            {"query": WILDCARD_WORDS, **earlier},
            f"callers fail on {listed}: was a wildcard record added to a search domain",
        ),
    ]


def captures(board: Board) -> list[Capture]:
    """Answered lookups (not NXDOMAIN) of a caller's name with a non-cluster suffix appended, one per name and suffix."""
    names = caller_names(board.facts)
    if not names:
        return []
    found: list[Capture] = []
    for obs, line in every_service_lines(board.inv, capture_pattern(names)):
        message = str(line.get("message") or "")
        if _NXDOMAIN.search(message):
            continue
        for host in hosts_in(message):
            for name in names:
                if not host.startswith(name + "."):
                    continue
                suffix = host[len(name) + 1 :]
                if suffix.count(".") < 1 or _CLUSTER_SUFFIX.search(suffix):
                    continue
                if any(c.name == name and c.suffix == suffix for c in found):
                    continue
                found.append(
                    Capture(obs, str(line.get("service") or "?"), message, name, suffix)
                )
    return found


def _wildcard_line(board: Board, suffix: str) -> tuple[Observation, str, str] | None:
    """(answer, service, message) of a line adding a wildcard record to the zone `suffix`."""
    for obs, line in every_service_lines(board.inv, WILDCARD_WORDS):
        message = str(line.get("message") or "")
        level = str(line.get("level") or "").lower()
        if level in ("error", "fatal", "critical") or not _WILDCARD.search(message):
            continue
        zones = set(_WILDCARD_NAME.findall(message.lower())) | set(hosts_in(message))
        if suffix in zones:
            return obs, str(line.get("service") or "?"), message
    return None


def search_domain_capture(board: Board) -> None:
    """A name callers fail on that a resolver answered with a search domain appended (not NXDOMAIN) is a DNS fault of that search domain's zone (a wildcard record capturing the lookup), not of the name's owner."""
    for capture in captures(board)[:2]:
        _hypothesis(board, capture)


def _hypothesis(board: Board, capture: Capture) -> None:
    suffix = capture.suffix
    wildcard = _wildcard_line(board, suffix)
    component = f"*.{suffix}" if wildcard else suffix
    c = board.get(
        layers.DNS,
        component,
        f"lookups of {capture.name} are answered as {capture.name}.{suffix}: the search "
        f"domain {suffix} is tried first (ndots) and "
        + (
            f"its wildcard record *.{suffix} answers every name"
            if wildcard
            else "its zone answers the suffixed name"
        )
        + f", so callers reach the wrong address instead of {capture.name}",
    )
    c.cite(capture.obs, capture.fact)
    if wildcard is not None:
        c.cite(
            wildcard[0],
            short(
                f"search_logs: {wildcard[1]} logs a wildcard record: {wildcard[2]}", 300
            ),
        )
    c.status = "confirmed" if wildcard else "likely"
    c.confidence = max(c.confidence, 0.93 if wildcard else 0.8)
    c.chain = [
        board.symptom(),
        f"{capture.service} logs: {short(capture.message, 140)}",
        *([f"{wildcard[1]} logs: {short(wildcard[2], 140)}"] if wildcard else []),
        c.statement,
    ]
    c.keywords = [layers.DNS, suffix, "search domain", "ndots", "wildcard"]
    for other in board.candidates.values():
        if other is c or other.status == "ruled_out":
            continue
        if other.component == capture.name and other.confidence >= c.confidence - 0.1:
            other.status, other.confidence = "likely", min(other.confidence, 0.45)
            other.statement += f"; a symptom of {c.id} (answered from a search domain)"
