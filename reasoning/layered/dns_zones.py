"""A zone created just before a name under it stopped resolving: the zone, not the name, is at fault.

A resolver answers a name from the most specific zone it knows for it. When someone creates a zone
for a parent domain inside a network (a Route 53 private hosted zone, a Cloud DNS or Azure private
zone, a CoreDNS stub or a conditional forwarder, a split-horizon view), that zone becomes
authoritative there for every name under the parent: the names it lacks answer NXDOMAIN (or the
wrong address) inside, while they still resolve from outside. The caller's error names the leaf
(`getaddrinfo ENOTFOUND auth.example.io`), a probe from inside sees `dns/nxdomain` on it, but the
leaf's record never changed: the fault is the zone and the change that made it. When a name fails to
resolve, the planner searches every service's lines for a zone of one of its parent domains in the
half hour before (`searches`); a line creating or associating such a zone before the first failure
makes the zone the hypothesis and the leaf its symptom (`shadowing_zone`). A zone removed or
replaced is not this rule's: the names under it then go to the next resolver, and the leaf's
failure stays the leaf's.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.facts import Facts, parse_time
from reasoning.layered.reading import (
    arg,
    as_dict,
    as_list,
    error_classes,
    hosts_in,
    short,
)
from reasoning.observations import Investigation, Observation, PlannedCall
from reasoning.tools import SEARCH_LOGS

LEAD: Final = timedelta(minutes=30)
# What a zone is called where it shadows a parent domain, as a RE2 pattern (the logs server's).
ZONE_WORDS: Final = (
    r"(zone|stub.?domain|stub|forward|conditional forwarder|split.?horizon|delegat|"
    r"private dns|resolver rule)"
)
_ZONE: Final = re.compile(ZONE_WORDS, re.IGNORECASE)
# The line records a zone being made or put in force for a network (not a zone removed or replaced:
# names under a removed zone go to the next resolver, a fault of theirs, not of a zone).
_CREATED: Final = re.compile(
    r"\b(?:creat(?:e|ed|ing)|associat(?:e|ed|ing)|add(?:ed|ing)?|new|enabl(?:e|ed|ing)|"
    r"attach(?:ed|ing)?|authori[sz](?:e|ed|ing)|link(?:ed|ing)|introduc(?:e|ed|ing)|"
    r"now (?:serves|answers|authoritative))\b",
    re.IGNORECASE,
)
_REMOVED: Final = re.compile(
    r"\b(?:replac\w*|remov\w*|delet\w*|drop\w*|disassociat\w*|detach\w*|no longer|"
    r"destroy\w*|unlink\w*)\b",
    re.IGNORECASE,
)
_NOT_CHANGE_LEVELS: Final = ("error", "fatal", "critical")
# A zone's id or its resource address, when the line names one (Route 53, Terraform, gcloud).
_ZONE_ID: Final = re.compile(
    r"\b(Z[0-9A-Z]{8,32}|[a-z0-9_]{1,40}_zone\.[a-z0-9_-]{1,60}|"
    r"managed-zones?/[a-z0-9-]{1,63})\b"
)
_MAX_PARENTS: Final = 4  # the parent domains of one name searched for
_MAX_NAMES: Final = 3  # the failing names searched for


@dataclass(frozen=True)
class ZoneChange:
    obs: Observation
    service: str
    at: datetime | None
    message: str
    zone: str  # the parent domain the zone is for

    @property
    def fact(self) -> str:
        return short(
            f"search_logs: {self.service} logs a zone change: {self.message}", 300
        )

    @property
    def zone_id(self) -> str | None:
        """The zone's ids and resource addresses the line names, joined (None without one)."""
        found = list(dict.fromkeys(_ZONE_ID.findall(self.message)))[:3]
        return ", ".join(found) or None


def parents(name: str) -> list[str]:
    """The parent domains of `name`, nearest first, down to two labels (`a.b.example.io` → `b.example.io`, `example.io`); the widest four of a longer name."""
    labels = name.lower().rstrip(".").split(".")
    # The widest few only: a zone shadows from the apex side, and a hostile name stays linear.
    first = max(1, len(labels) - 1 - _MAX_PARENTS)
    return [".".join(labels[i:]) for i in range(first, len(labels) - 1)]


def failing_names(facts: Facts) -> dict[str, datetime | None]:
    """Names that fail to resolve (a probe's dns layer, an error line's DNS failure), each with its first failure."""
    found: dict[str, datetime | None] = {}
    for probe in facts.probes.values():
        if probe.layer == layers.DNS:
            found.setdefault(probe.host, None)
    for group in (g for e in facts.errors.values() for g in (*e.groups, *e.warnings)):
        if layers.DNS not in error_classes(group.text):
            continue
        first = parse_time(group.first_seen)
        for host in hosts_in(group.text):
            if len(host.split(".")) < 3:
                continue  # an apex has no parent zone to shadow it
            was = found.get(host)
            found[host] = first if was is None or (first and first < was) else was
    return {h: t for h, t in found.items() if parents(h)}


def search_pattern(names: list[str]) -> str:
    """A regex for lines naming a zone word and one of the parent domains of `names`, in either order."""
    domains: list[str] = []
    for name in names:
        for parent in parents(name):
            if parent not in domains:
                domains.append(parent)
    alternatives = "|".join(re.escape(d) for d in domains)
    return f"{ZONE_WORDS}.*({alternatives})|({alternatives}).*{ZONE_WORDS}"


def searches(
    facts: Facts,
    call: Callable[[str, dict[str, Any], str], PlannedCall | None],
    window: dict[str, str],
) -> list[PlannedCall | None]:
    """When names fail to resolve: every service's lines naming a zone of one of their parent domains, from half an hour before the window."""
    names = sorted(failing_names(facts))[:_MAX_NAMES]
    if not names:
        return []
    start = parse_time(window.get("start", ""))
    arguments: dict[str, Any] = {
        "query": search_pattern(names),
        "regex": True,
        **window,
        "limit": 20,
    }
    if start is not None:
        arguments["start"] = (start - LEAD).isoformat().replace("+00:00", "Z")
    return [
        call(
            SEARCH_LOGS,
            arguments,
            f"{', '.join(names)} do not resolve: was a zone of a parent domain created or "
            "put in force just before (a private zone, a stub or forwarder shadowing it)",
        )
    ]


def zone_changes(inv: Investigation, facts: Facts) -> list[ZoneChange]:
    """Lines (any search answer, not errors) creating or associating a zone for a parent domain of a failing name."""
    wanted = {p for name in failing_names(facts) for p in parents(name)}
    found: list[ZoneChange] = []
    for obs in inv.observations:
        if obs.tool != SEARCH_LOGS or not obs.is_ok:
            continue
        for line in map(as_dict, as_list(as_dict(obs.result).get("lines"))):
            message = str(line.get("message") or "")
            level = str(line.get("level") or "").lower()
            if level in _NOT_CHANGE_LEVELS or not _ZONE.search(message):
                continue
            if not _CREATED.search(message) or _REMOVED.search(message):
                continue
            named = [h for h in hosts_in(message) if h in wanted]
            if not named:
                continue
            change = ZoneChange(
                obs=obs,
                service=str(line.get("service") or arg(obs, "service") or "?"),
                at=parse_time(str(line.get("time") or "")),
                message=message,
                # The widest parent it names: the zone's apex (a leaf it names is inside it).
                zone=min(named, key=lambda h: h.count(".")),
            )
            if all(c.message != change.message for c in found):
                found.append(change)
    return found


def shadowing_zone(board: Board) -> None:
    """A name that fails to resolve just after a zone for one of its parent domains was created or associated with the network is a DNS fault of that zone (it shadows the name), not of the name's record."""
    names = failing_names(board.facts)
    if not names:
        return
    for change in zone_changes(board.inv, board.facts):
        for name, first in names.items():
            if change.zone not in parents(name):
                continue
            if change.at is not None and first is not None and change.at > first:
                continue  # made after the name began failing: not its cause
            _hypothesis(board, change, name)


def _hypothesis(board: Board, change: ZoneChange, name: str) -> None:
    zone = change.zone
    ident = change.zone_id
    leaf = board.candidates.get(f"{layers.DNS}:{name}")
    c = board.get(
        layers.DNS,
        zone,
        f"a zone for {zone}{f' ({ident})' if ident else ''} was created just before "
        f"{name} stopped resolving: where it applies it answers for every name under {zone} "
        f"and lacks {name}, shadowing its public record",
    )
    c.cite(change.obs, change.fact)
    if leaf is not None:
        for e in leaf.evidence:
            if not any(x.span_id == e.span_id and x.fact == e.fact for x in c.evidence):
                c.evidence.append(e)
                c.sources.add(e.server)
    confirmed = leaf is not None and leaf.status == "confirmed"
    c.status = "confirmed" if confirmed else "likely"
    base = leaf.confidence if leaf is not None else 0.6
    c.confidence = max(
        c.confidence, min(max(base, 0.9) + 0.03, 0.97) if confirmed else 0.7
    )
    c.chain = [
        *(leaf.chain[:-1] if leaf is not None else [board.symptom()]),
        f"{change.service} logs: {short(change.message, 140)}",
        c.statement,
    ]
    c.keywords = [layers.DNS, zone, "private zone", "split horizon", "nxdomain"]
    if ident:
        c.keywords.append(ident)
    if leaf is not None and leaf.status != "ruled_out":
        leaf.status, leaf.confidence = "likely", min(leaf.confidence, 0.4)
        leaf.statement += (
            f"; a symptom of {c.id} (a zone of its parent was created just before)"
        )
