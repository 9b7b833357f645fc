"""Between two leads of the application layer, the one whose own log says why outranks the one that only reports a symptom.

A caller whose line says only what the user sees ("photos still processing after 600s", "paid but
the plan shows free") and the service whose line says why it fails ("PERMISSION_DENIED: not
authorized to publish", "secret is not set; cannot verify") often come out of the board as leads
of about the same weight, the louder caller first. A careful engineer starts from the line that
states a reason: when the leading hypothesis is an unconfirmed application lead whose log lines
state none, the best-ranked other application lead within `_NEAR` below it whose own lines do is
raised just above it. A confirmed hypothesis, or one of another layer, is never moved.
"""

from typing import Final

from reasoning import layers
from reasoning.layered.candidates import Board, Candidate
from reasoning.layered.strongest_lines import states_reason
from reasoning.tools import SEARCH_LOGS, TOP_ERRORS

_LEAD_CEILING: Final = 0.6  # above this the leading hypothesis is more than a lead
_NEAR: Final = 0.25  # how far below the leading lead a reasoned one may stand
_STEP: Final = 0.02


def _reasoned(c: Candidate) -> bool:
    """One of the candidate's own log lines cited states a reason."""
    return any(
        e.tool in (TOP_ERRORS, SEARCH_LOGS) and states_reason(e.fact)
        for e in c.evidence
    )


def reasoned_leads(board: Board) -> None:
    """Between application leads, one whose own log line states why it fails is raised just above a leading lead whose lines only report a symptom."""
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
        if _reasoned(c):
            c.confidence = min(top.confidence + _STEP, _LEAD_CEILING + _STEP)
            return
