"""Between two leads of the application layer, the one whose own log says why outranks the one that only reports a symptom.

A caller whose line says only what the user sees ("photos still processing after 600s", "paid but
the plan shows free") and the service whose line says why it fails ("PERMISSION_DENIED: not
authorized to publish", "secret is not set; cannot verify") often come out of the board as leads
of about the same weight, the louder caller first. A careful engineer starts from the line that
states a reason: when the leading hypothesis is an unconfirmed application lead whose log lines
state none, the best-ranked other application lead within `_NEAR` below it whose own lines do is
raised just above it. A confirmed hypothesis, or one of another layer, is never moved.

A lead whose reasoned line names the leading candidate is not raised over it: a caller that quotes
its callee's refusal ("org.example.broker…NotEnoughReplicasException: rejected", "upstream
ledger-db refused") relays the leader's reason, it does not have one of its own; the leader, the
origin, keeps its place (class 4: the relay is not the cause).

A line that names a typed error (`ZplEncodeError`, `NotEnoughReplicasException`) states what
failed too, whatever words follow it ("not encodable", "insufficient"): a leader whose own line
names one is not a symptom-only lead, and is not moved.
"""

import re
from typing import Final

from reasoning import layers
from reasoning.layered.candidates import Board, Candidate
from reasoning.layered.kind_prefix import bare_name
from reasoning.layered.strongest_lines import states_reason
from reasoning.tools import SEARCH_LOGS, TOP_ERRORS

_LEAD_CEILING: Final = 0.6  # above this the leading hypothesis is more than a lead
_NEAR: Final = 0.25  # how far below the leading lead a reasoned one may stand
_STEP: Final = 0.02
_MIN_NAME: Final = 3  # a shorter name is no evidence that a line names it
_READ_CHARS: Final = 4000
# A typed error in CamelCase: a class name that ends in Error, Exception or Fault.
_TYPED_ERROR: Final = re.compile(
    r"\b[A-Z][A-Za-z0-9]*[a-z0-9](?:Error|Exception|Fault)\b"
)


def _states_why(text: str) -> bool:
    """The line states a reason in words, or names the typed error that failed."""
    return states_reason(text) or bool(_TYPED_ERROR.search(text[:_READ_CHARS]))


def _reasoned(c: Candidate) -> bool:
    """One of the candidate's own log lines cited states a reason."""
    return any(
        e.tool in (TOP_ERRORS, SEARCH_LOGS) and _states_why(e.fact) for e in c.evidence
    )


def _relays(c: Candidate, leader: Candidate) -> bool:
    """One of the candidate's reasoned lines names the leader: it quotes its callee's refusal."""
    name = bare_name(leader.component).lower()
    if len(name) < _MIN_NAME:
        return False
    named = re.compile(rf"(?<![a-z0-9_-]){re.escape(name)}(?![a-z0-9_-])")
    return any(
        e.tool in (TOP_ERRORS, SEARCH_LOGS)
        and _states_why(e.fact)
        and named.search(e.fact[:_READ_CHARS].lower())
        for e in c.evidence
    )


def reasoned_leads(board: Board) -> None:
    """Between application leads, one whose own log line states why it fails (in words, or by a typed error's name) is raised just above a leading lead whose lines only report a symptom, unless that line names the leading lead (a caller quoting its callee's refusal)."""
    standing = sorted(
        (c for c in board.candidates.values() if c.status != "ruled_out"),
        key=lambda c: -c.confidence,
    )
    if not standing:
        return
    top = standing[0]
    if (
        top.layer != layers.APPLICATION
        or top.status == "confirmed"
        or top.confidence > _LEAD_CEILING
        or _reasoned(top)
    ):
        return
    for c in standing[1:]:
        if c.layer != layers.APPLICATION or top.confidence - c.confidence > _NEAR:
            continue
        if _reasoned(c) and not _relays(c, top):
            c.confidence = min(top.confidence + _STEP, _LEAD_CEILING + _STEP)
            return
