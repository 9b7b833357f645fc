"""A signed artifact whose lifetime its issuer shortened: the consumers refuse it as expired, the issuer's setting is the cause.

A presigned URL, a signed cookie or link, a token the application issues carries a lifetime its
issuer sets. When the issuer lowers that setting below how long the artifact is used (a link sent by
email and opened an hour later, a token kept for a session), the side that checks it (object
storage, a CDN, a verifier) refuses it as expired: its "Request has expired" lines are loud, yet it
works as it should. The cause is the issuer's setting, which a change line names (`NAME old -> new`,
`ttl from 3600 to 60`): the hypothesis is the issuer's, at the application layer, citing the
setting and the refusals, confirmed when the refusals began after the change (and stronger when
they quote the new lifetime). The planner searches every service's lines for such a setting once
expired refusals show (`SETTING_QUERY`).
"""

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.facts import Change, ErrorGroup, Errors, Facts, parse_time
from reasoning.layered.reading import short

# The checking side's words for a signed artifact past its lifetime.
EXPIRED_SIGNED = re.compile(
    r"\brequest has expired\b|\bsignature (?:has )?expired\b|"
    r"\b(?:pre-?)?signed (?:url|link|request|cookie|token)s?\b[^\n]{0,40}?\bexpired\b|"
    r"\b(?:url|link|download link|share link)s? (?:has |have |is )?expired\b|"
    r"\bexpired (?:pre-?)?signed\b|\bjwt (?:has )?expired\b",
    re.IGNORECASE,
)
_LIFETIME_WORDS = (
    r"(?:ttl|expir\w*|lifetime|validity|valid[_-]?for|max[_-]?age|duration)"
)
# A lifetime setting changed from one value to another: `PRESIGNED_TTL 86400 -> 300`,
# `link.max_age: 3600 => 60`, `token lifetime changed from 3600 to 60`.
LOWERED = re.compile(
    # A setting's name is short: bounded, the scan stays linear on a long dotted token.
    rf"\b(?P<name>(?:[A-Za-z][\w.-]{{0,60}}?)?{_LIFETIME_WORDS}[\w.-]{{0,60}})"
    r"(?:[ =:]+|[^\n]{0,30}?\bfrom )(?P<old>\d+)[a-z]* ?(?:->|=>|→| to ) ?(?P<new>\d+)",
    re.IGNORECASE,
)
# The logs server's search (RE2, case-insensitive) for such lines in every service.
SETTING_QUERY = (
    r"(ttl|expir|lifetime|validity|valid.for|max.?age|duration)[a-z0-9_.-]*"
    r"([ =:]+|.{0,30}from )[0-9]+[a-z]* ?(->|=>| to ) ?[0-9]+"
)
LEAD = timedelta(
    minutes=30
)  # how long before the first refusal the setting is searched
_AFTER = timedelta(
    hours=2
)  # refusals beginning this long after the change are not its doing
_CONFIRMED = 0.86
_LEAD_CONFIDENCE = 0.6


@dataclass(frozen=True)
class Lowered:
    change: Change
    name: str
    old: int
    new: int


def refusals(facts: Facts) -> list[tuple[Errors, ErrorGroup]]:
    """Error and warning groups, not logged before the window, saying a signed artifact expired."""
    return [
        (errors, g)
        for errors in facts.errors.values()
        for g in (*errors.groups, *errors.warnings)
        if not g.is_stale and EXPIRED_SIGNED.search(g.text)
    ]


def first_refusal(facts: Facts) -> datetime | None:
    times = [t for _, g in refusals(facts) if (t := parse_time(g.first_seen))]
    return min(times) if times else None


def lowered(change: Change) -> Lowered | None:
    """The lifetime setting `change` lowers, else None."""
    match = LOWERED.search(change.message)
    if match is None:
        return None
    old, new = int(match.group("old")), int(match.group("new"))
    return Lowered(change, match.group("name"), old, new) if new < old else None


def signed_lifetime(board: Board) -> None:
    """Consumers refusing signed links or tokens as expired, after their issuer lowered the lifetime setting, blame the issuer's setting, not the side that checks them."""
    found = refusals(board.facts)
    if not found:
        return
    first = first_refusal(board.facts)
    settings = [x for c in board.facts.changes if (x := lowered(c)) is not None]
    for setting in settings:
        at = setting.change.at
        if first is None or at is None:
            _hypothesis(board, setting, found, timed=False)
        elif at <= first <= at + _AFTER:
            _hypothesis(board, setting, found, timed=True)
        # else: the refusals began before the change, or long after it


def _hypothesis(
    board: Board,
    setting: Lowered,
    found: list[tuple[Errors, ErrorGroup]],
    *,
    timed: bool,
) -> None:
    issuer = setting.change.service
    c = board.get(
        layers.APPLICATION,
        issuer,
        f"{issuer} lowered the lifetime of what it signs ({setting.name} {setting.old} -> "
        f"{setting.new}): the links or tokens it issues expire before they are used, so "
        f"{', '.join(dict.fromkeys(e.service for e, _ in found[:3]))} refuse them as expired",
    )
    c.cite(setting.change.obs, setting.change.fact)
    for errors, group in found:
        c.cite(errors.obs, errors.fact(group))
    quoted = any(
        re.search(rf"expires?\w*[=: <>]+{setting.new}\b", g.text, re.IGNORECASE)
        for _, g in found
    )
    earned = _CONFIRMED + 0.04 * quoted if timed else _LEAD_CONFIDENCE
    if c.status != "confirmed" or c.confidence < earned:
        c.status = "confirmed" if timed else "likely"
        c.confidence = earned
    errors, group = found[0]
    c.chain = [
        board.symptom(),
        f"{errors.service} logs: {short(group.sample or group.signature, 120)}",
        f"{issuer} logs a change: {short(setting.change.message, 120)}",
        c.statement,
    ]
    c.keywords = [issuer, setting.name, "expired", "lifetime"]
    for other in board.candidates.values():
        if other is c or other.status == "ruled_out":
            continue
        if other.layer == layers.APPLICATION and other.component in {
            e.service for e, _ in found
        }:
            other.status, other.confidence = "likely", min(other.confidence, 0.3)
            other.statement += f"; it refuses what {issuer} signed as expired ({c.id})"
