"""A name whose DNS record was edited to a new address just before its callers failed to connect there: the record, not the host, is at fault.

Records are edited by hand or by a pipeline (an IPAM's audit trail, a cloud DNS change set, a
network move's ticket): a typo, two digits swapped, an address of the wrong environment or of a
host not yet moved. The name then resolves, but to an address where nothing listens (connection
refused) or nothing answers (timed out). Callers log `Connect to <name>:<port> [<name>/<address>]
failed: Connection refused`, and a probe of the name fails at connect; the connect hypothesis of
the name is the symptom, not the cause: the host the name is meant for is not where the record
points. When a name fails at connect, the planner searches every service's lines for a record
change naming it (`searches`); a line (not an error) that changes the name's record from one
address to another (`A record <name>: <old> -> <new>`), at or before the first connect failure,
whose new address is the one the failures name (or, when the failures name no address, within two
hours before them) makes the name a DNS hypothesis, citing the change and the failures
(`repointed_records`). A change of a name nothing fails to connect to, a change to an address
other than the one failing, or one after the failures began is not this rule's.
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
    error_classes,
    every_service_lines,
    hosts_in,
    short,
)
from reasoning.observations import Observation, PlannedCall
from reasoning.tools import SEARCH_LOGS

# A line about a DNS record (RE2 for the logs server, case-insensitive there).
RECORD_WORDS: Final = r"(record|rrset|resource.?record|dns)"
_RECORD: Final = re.compile(
    r"\b(?:A|AAAA|CNAME)\b|\b(?:records?|rrsets?|record.?sets?|resource.?record\w*|dns)\b",
    re.IGNORECASE,
)
_IPV4: Final = r"\d{1,3}(?:\.\d{1,3}){3}"
# An address changed: `10.0.0.1 -> 10.0.0.2`, `from 10.0.0.1 to 10.0.0.2`, `old=… new=…`.
_CHANGE: Final = re.compile(
    rf"\b({_IPV4})\b\s*(?:->|→|=>|\bto\b)\s*({_IPV4})\b"
    rf"|\bold\w*\s*[=:]\s*({_IPV4})\b.{{0,40}}?\bnew\w*\s*[=:]\s*({_IPV4})\b",
    re.IGNORECASE,
)
_ADDRESS: Final = re.compile(rf"(?<![\d.]){_IPV4}(?![\d.])")
_NOT_CHANGE_LEVELS: Final = ("error", "err", "fatal", "critical")
_MAX_NAMES: Final = 3
_LIMIT: Final = 20
# How long before the first failure an edit may be and still be read as its cause, when the
# failures name no address to compare.
LEAD: Final = timedelta(hours=2)


@dataclass(frozen=True)
class Failing:
    first: datetime | None  # the first connect failure seen
    addresses: frozenset[str]  # the addresses the failures name


@dataclass(frozen=True)
class Edit:
    obs: Observation
    service: str  # whose line it is (the IPAM, the DNS pipeline)
    at: datetime | None
    message: str
    name: str
    old: str
    new: str

    @property
    def fact(self) -> str:
        return short(
            f"search_logs: {self.service} changes the record of {self.name} from "
            f"{self.old} to {self.new}: {self.message}",
            300,
        )


def connect_failures(facts: Facts) -> dict[str, Failing]:
    """DNS names that fail at connect (a probe's connect layer, an error or warning line's connect failure), each with its first failure and the addresses the failures name."""
    first: dict[str, datetime | None] = {}
    addresses: dict[str, set[str]] = {}
    for probe in facts.probes.values():
        if probe.layer == layers.CONNECT and "." in probe.host:
            host = probe.host.lower()
            first.setdefault(host, None)
            addresses.setdefault(host, set()).update(
                _ADDRESS.findall(" ".join(probe.evidence))
            )
    for group in (g for e in facts.errors.values() for g in (*e.groups, *e.warnings)):
        if layers.CONNECT not in error_classes(group.text):
            continue
        seen = parse_time(group.first_seen)
        named = set(_ADDRESS.findall(group.text))
        for host in hosts_in(group.text):
            host = host.lower().rstrip(".")
            if "." not in host or _ADDRESS.fullmatch(host):
                continue
            was = first.get(host)
            first[host] = seen if was is None or (seen and seen < was) else was
            addresses.setdefault(host, set()).update(named)
    # Probed names first, then in the order the error groups name them.
    return {h: Failing(first[h], frozenset(addresses.get(h, ()))) for h in first}


def _names(facts: Facts) -> list[str]:
    return list(connect_failures(facts))[:_MAX_NAMES]


def search_pattern(names: list[str]) -> str:
    """A regex for lines naming a record and one of `names`, in either order."""
    alternatives = "|".join(re.escape(n) for n in names)
    return f"{RECORD_WORDS}.*({alternatives})|({alternatives}).*{RECORD_WORDS}"


def searches(
    facts: Facts,
    call: Callable[[str, dict[str, Any], str], PlannedCall | None],
    window: dict[str, str],
) -> list[PlannedCall | None]:
    """When names fail at connect: every service's lines changing a DNS record of one of them, from two hours before the window."""
    names = _names(facts)
    if not names:
        return []
    arguments: dict[str, Any] = {"regex": True, **window, "limit": _LIMIT}
    start = parse_time(window.get("start", ""))
    if start is not None:
        arguments["start"] = (start - LEAD).isoformat().replace("+00:00", "Z")
    return [
        call(
            SEARCH_LOGS,
            {"query": search_pattern(names), **arguments},
            f"{', '.join(names)} refuse or time out on connect: was a DNS record of theirs "
            "edited to point elsewhere",
        )
    ]


def parse_edit(message: str, names: list[str]) -> tuple[str, str, str] | None:
    """(name, old address, new address) when `message` changes the DNS record of one of `names`."""
    if not _RECORD.search(message):
        return None
    change = _CHANGE.search(message)
    if change is None:
        return None
    old = change.group(1) or change.group(3)
    new = change.group(2) or change.group(4)
    if old == new:
        return None
    hosts = {h.lower().rstrip(".") for h in hosts_in(message[: change.start()])}
    name = next((n for n in names if n in hosts), None)
    return (name, old, new) if name is not None else None


def edits(board: Board) -> list[Edit]:
    """Lines of the record search that change the record of a name failing at connect, one per name (the latest)."""
    failing = connect_failures(board.facts)
    if not failing:
        return []
    names = list(failing)
    found: dict[str, Edit] = {}
    for obs, line in every_service_lines(
        board.inv, search_pattern(_names(board.facts))
    ):
        message = str(line.get("message") or "")
        level = str(line.get("level") or "").lower()
        if level in _NOT_CHANGE_LEVELS:
            continue
        parsed = parse_edit(message, names)
        if parsed is None:
            continue
        name, old, new = parsed
        edit = Edit(
            obs,
            str(line.get("service") or ""),
            parse_time(str(line.get("time") or "")),
            message,
            name,
            old,
            new,
        )
        if _explains(edit, failing[name]):
            was = found.get(name)
            if was is None or (edit.at and was.at and edit.at > was.at):
                found[name] = edit
    return list(found.values())


def _explains(edit: Edit, failing: Failing) -> bool:
    """The edit comes before the failures and points where they fail."""
    if edit.at is not None and failing.first is not None and edit.at > failing.first:
        return False
    if failing.addresses:
        return edit.new in failing.addresses and edit.old not in failing.addresses
    return (
        edit.at is not None
        and failing.first is not None
        and failing.first - edit.at <= LEAD
    )


def repointed_records(board: Board) -> None:
    """A name whose DNS record a line changes to the address its callers then fail to connect to is a DNS fault of that record, not a connect fault of the host."""
    for edit in edits(board):
        _hypothesis(board, edit)


def _hypothesis(board: Board, edit: Edit) -> None:
    name = edit.name
    c = board.get(
        layers.DNS,
        name,
        f"the DNS record of {name} was changed from {edit.old} to {edit.new}, where its "
        f"callers' connections now fail: the record points at the wrong address",
    )
    c.cite(edit.obs, edit.fact)
    leaf = board.candidates.get(f"{layers.CONNECT}:{name}")
    if leaf is not None:
        for e in leaf.evidence:
            if not any(x.span_id == e.span_id and x.fact == e.fact for x in c.evidence):
                c.evidence.append(e)
                c.sources.add(e.server)
    c.status = "confirmed"
    base = leaf.confidence if leaf is not None else 0.6
    c.confidence = max(c.confidence, min(max(base, 0.9) + 0.04, 0.97))
    c.chain = [
        *(leaf.chain[:-1] if leaf is not None else [board.symptom()]),
        f"{edit.service} logs: {short(edit.message, 140)}",
        c.statement,
    ]
    c.keywords = [layers.DNS, name, edit.new, "record changed", edit.service]
    if leaf is not None and leaf.status != "ruled_out":
        leaf.status, leaf.confidence = "likely", min(leaf.confidence, 0.4)
        leaf.statement += f"; a symptom of {c.id} (its record points at {edit.new})"
