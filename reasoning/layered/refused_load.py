"""A caller's change that makes a back end refuse its requests over HTTP for their weight (issue 21 class 4): the caller is the cause, at the http layer of the refusal.

A release changes what a service asks of a shared back end (an aggregation over a huge field, a
page size of thousands, a body past the limit); the back end protects itself and answers 429 or
413 with its guard's words (`circuit_breaking_exception`, `Data too large`,
`rejected_execution`, `Request Entity Too Large`). The caller's new errors quote that answer, and
a change line names the caller in the `LEAD` before its first such error. What the back end
refuses is the request the caller now makes, at the http layer (as a search cluster answering
429 to every query is an http fault), and the caller's change is why: the caller's http
hypothesis takes the application one's evidence and the change, and the application one becomes
its lead.
"""

import re
from datetime import timedelta
from typing import Final

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.facts import ErrorGroup, parse_time
from reasoning.layered.reading import short
from reasoning.layered.warning_leads import names_service

# A back end's HTTP refusal of a request for its weight, as the caller quotes it.
REFUSED: Final = re.compile(
    r"\b(?:429|413)\b[^\n]{0,120}?(?:circuit_?breaking|data too large|rejected_execution|"
    r"request entity too large|payload too large|too_long_frame|too many buckets)",
    re.IGNORECASE,
)
LEAD: Final = timedelta(minutes=30)
_TEXT_CHARS: Final = 4000


def _refusal(groups: tuple[ErrorGroup, ...]) -> ErrorGroup | None:
    return next(
        (
            g
            for g in groups
            if g.is_new and REFUSED.search((g.sample or g.signature)[:_TEXT_CHARS])
        ),
        None,
    )


def refused_load(board: Board) -> None:
    """A service whose new errors quote a back end refusing its requests over HTTP for their weight (429 with a breaker's words, 413), and that a change line names just before, is the cause at the http layer; its application hypothesis becomes the lead."""
    for c in list(board.candidates.values()):
        if c.layer != layers.APPLICATION or c.status == "ruled_out" or c.stage:
            continue
        errors = board.facts.errors.get(c.component)
        group = _refusal(errors.groups) if errors else None
        first = parse_time(group.first_seen) if group else None
        if errors is None or group is None or first is None:
            continue
        change = next(
            (
                ch
                for ch in board.facts.changes
                if ch.at is not None
                and first - LEAD <= ch.at <= first
                and names_service(ch.message, c.component)
            ),
            None,
        )
        if change is None:
            continue
        statement = (
            f"{c.component}'s change ({short(change.message, 100)}) makes requests its back end "
            f"refuses over HTTP: {short(group.sample or group.signature, 120)}"
        )
        h = board.get(layers.HTTP, c.component, statement)
        if h.stage is not None or h.status == "ruled_out":
            continue
        h.statement = statement
        h.cite(errors.obs, errors.fact(group))
        h.cite(change.obs, change.fact)
        for e in c.evidence:
            if not any(x.span_id == e.span_id and x.fact == e.fact for x in h.evidence):
                h.evidence.append(e)
                h.sources.add(e.server)
        h.status = "confirmed"
        h.confidence = min(max(h.confidence, c.confidence, 0.85) + 0.02, 0.97)
        h.chain = [
            board.symptom(),
            f"{c.component} fails: {short(group.sample or group.signature, 120)}",
            f"{change.service} logs: {short(change.message, 120)}",
            statement,
        ]
        h.keywords = list(dict.fromkeys([*c.keywords, c.component, "http", "refused"]))
        c.explained_by(
            h, f"a symptom of {h.id} (its back end refuses what it now asks)"
        )
