"""A limit lowered by a change just before a client is refused for exceeding one (issue 21 classes 1 and 4): the changed object is the cause, the refused client its victim.

A producer refused with `RecordTooLargeException`, an upload answered `413 Request Entity Too
Large`, a bulk request `Limit of total fields [500] has been exceeded`: the client logs the error
and is the loudest service, but what moved is the limit on the other side. A change lowered it a
few minutes before (a Terraform apply resetting a topic's `max.message.bytes` to its default, a
proxy's `client_max_body_size 10m -> 1m`, an index template's field limit cut), and the client's
requests, the same size as yesterday, now cross it. The planner's change search (`quiet_changes`)
finds such lines; it is asked whenever a client's new errors say a limit refused it (`refusals`).
The change that sets a limit (its setting names a max, limit or size) or lowers a number (`old ->
new`, new the smaller) in the `LEAD` before the refusals began is the cause: the object it changed,
named in later lines when possible, at the application layer. A rate limit or a quota is another
class (a neighbour spending a shared allowance), and so are a clock's skew, retries given up and a
stale value's age: those refusals are not read here.
"""

import re
from datetime import timedelta
from typing import Final

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.facts import ErrorGroup, Errors, Facts, parse_time
from reasoning.layered.quiet_changes import (
    ChangeLine,
    change_lines,
    follow_query,
    spelling,
    terms,
)
from reasoning.layered.reading import every_service_lines, short

# A request refused for its size or a count over a configured maximum.
_EXCEEDED: Final = re.compile(
    r"(?i)\btoo large\b|TooLarge|\blarger than (?:the )?(?:max|maximum|limit|allowed|configured)|"
    r"\bexceed(?:s|ed|ing)? (?:the )?(?:max|maximum|limit|allowed|configured)\b|"
    r"\b(?:max|maximum|limit) of [^\n]{0,60}\bexceeded\b|\bover the (?:max|maximum|size limit)\b|"
    r"\bPayload Too Large\b|\bEntity Too Large\b"
)
# A rate limit or a quota refuses by how often or how much in all, not by one request's size.
_RATE: Final = re.compile(
    r"(?i)\brate\b|\bper (?:second|minute|hour|day)\b|throttl|\bquota\b|\b429\b|too many requests|"
    # Nor are a clock's skew (`the request time … is too large`), retries given up or an age.
    r"\btime\b[^\n]{0,40}too large|\bskew|\battempts\b|\bretries\b|\bage\b"
)
# A setting that is a limit: its name says max, limit or size.
_LIMIT_NAME: Final = re.compile(r"(?i)max|limit|size|bytes")
# `old -> new` with numbers (quotes and units aside): the second smaller is a lowered value.
_NUMBERS: Final = re.compile(
    r"[\"']?(\d{1,15}(?:\.\d{1,6})?)[\"']? ?[a-zA-Z]{0,3}[\"']? ?(?:->|=>|→) ?[\"']?(\d{1,15}(?:\.\d{1,6})?)"
)
_ARROW_VALUE: Final = re.compile(r"(?:->|=>|→) ?[\"']?\d")
LEAD: Final = timedelta(hours=2)
_CONFIDENCE: Final = 0.86
_VICTIM: Final = 0.45


def refusals(facts: Facts) -> list[tuple[Errors, ErrorGroup]]:
    """The new error groups that say a request was refused for exceeding a size or count limit."""
    return [
        (e, g)
        for e, g in facts.error_texts()
        if not g.is_stale
        and _EXCEEDED.search(g.text[:2000])
        and not _RATE.search(g.text[:2000])
    ]


def sets_limit(message: str) -> bool:
    """The change lowers a number, or sets a number on a setting named as a limit."""
    lowered = any(
        float(new) < float(old) for old, new in _NUMBERS.findall(message[:2000])
    )
    named = _ARROW_VALUE.search(message[:2000]) is not None and any(
        _LIMIT_NAME.search(t) for t in terms(message)
    )
    return lowered or named


def _subject(board: Board, change: ChangeLine) -> str:
    """What the change set the limit on: an identifier it names that later lines name too, else its
    first identifier that is not the setting itself, else its first term, else who logged it."""
    found = terms(change.message)
    query = follow_query(board.inv)
    later = [
        str(line.get("message") or "")
        for _, line in (every_service_lines(board.inv, query) if query else ())
        if (at := parse_time(str(line.get("time") or ""))) is None
        or change.at is None
        or at > change.at
    ]
    identifiers = [t for t in found if " " not in t]
    objects = [t for t in identifiers if not _LIMIT_NAME.search(t)]
    for term in [*objects, *identifiers]:
        pattern = re.compile(spelling(term), re.IGNORECASE)
        if any(pattern.search(line) and line != change.message for line in later):
            return term
    return (objects or identifiers or found or [change.service])[0]


def lowered_limit(board: Board) -> None:
    """A client whose new errors say a request exceeded a size or count limit, after a change lowered or set that limit in the two hours before, is refused by the changed object's new limit: that object is the cause (application), the client its victim."""
    refused = refusals(board.facts)
    if not refused:
        return
    firsts = [t for _, g in refused if (t := parse_time(g.first_seen)) is not None]
    if not firsts:
        return
    first = min(firsts)
    changes = [
        c
        for c in change_lines(board.inv)
        if c.at is not None and first - LEAD <= c.at <= first and sets_limit(c.message)
    ]
    if not changes:
        return
    change = max(changes, key=lambda c: c.at or first)  # the last change before
    component = _subject(board, change)
    errors, group = refused[0]
    c = board.get(
        layers.APPLICATION,
        component,
        f"a change lowered the limit of {component} before {errors.service}'s requests were "
        f"refused for exceeding it: {short(change.message, 140)}",
    )
    if c.status == "ruled_out":
        return
    c.cite(change.obs, change.fact)
    c.cite(errors.obs, errors.fact(group))
    c.status, c.confidence = "confirmed", max(c.confidence, _CONFIDENCE)
    c.chain = [
        board.symptom(),
        f"{errors.service} is refused for exceeding a limit: {short(group.sample or group.signature, 120)}",
        f"{change.service} logs a change just before: {short(change.message, 140)}",
        c.statement,
    ]
    c.keywords = [component, "limit", "config change"]
    for e, _ in refused:
        victim = board.candidates.get(f"{layers.APPLICATION}:{e.service}")
        if victim is None or victim is c or victim.status == "ruled_out":
            continue
        victim.status = "likely"
        victim.confidence = min(victim.confidence, _VICTIM)
        victim.statement += f"; refused by {c.id}'s lowered limit"
