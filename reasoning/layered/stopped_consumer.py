"""A consumer the broker cut off (issue 21 class 3): it says its channel or subscription ended and its work stops, while its health stays green.

A queue consumer keeps its process, its pods Ready and its `/healthz` 200 after the broker closes
its channel or cancels its subscription (an acknowledgement timeout, a `basic.cancel`, a consumer
removed); unless it re-subscribes it consumes nothing more, and the services waiting for its output
log their own, louder errors. Its own line saying the channel was closed or the consumer stopped,
new in the window, is the fault at the application layer, above the loud services downstream; the
broker's own line about that consumer (a timeout, a cancel) is its corroboration, not a second
culprit. A health check that passes does not clear it: the check does not consume.
"""

import re
from typing import Final

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.facts import ErrorGroup, Errors
from reasoning.layered.reading import short

# A consumer's own words that its channel or subscription ended and it consumes no more.
STOPPED: Final = re.compile(
    r"\bconsumer (?:was )?(?:stopped|cancell?ed|removed|closed)\b|"
    r"\bchannel (?:was )?closed by (?:the )?(?:server|broker)\b|"
    r"\bdelivery acknowledge?ment on channel \d{1,6} timed out\b|"
    r"\b(?:stopped|no longer|not) consuming\b|\bbasic\.cancel\b|"
    r"\bsubscription (?:was )?(?:cancell?ed|closed|ended|terminated)\b",
    re.IGNORECASE,
)
# The broker's side of it: a consumer timed out or cancelled, in its own words.
BROKER: Final = re.compile(
    r"\bconsumer [^\n]{0,80}\b(?:has )?timed out waiting for [^\n]{0,30}acknowledge?ment|"
    r"\bconsumer_timeout\b|\bcancell?ing consumer\b|\bconsumer [^\n]{0,80}\bcancell?ed\b",
    re.IGNORECASE,
)
_CONFIDENCE: Final = (
    0.86  # its own line that it stopped, new; the broker's line agrees or not
)
_CORROBORATED: Final = 0.89


def _stopped(errors: Errors) -> list[ErrorGroup]:
    return [
        g
        for g in (*errors.groups, *errors.warnings)
        if g.is_new and STOPPED.search(g.text[:4000])
    ]


def stopped_consumer(board: Board) -> None:
    """A service whose own new lines say the broker closed its channel or its consumer stopped has stopped doing its work, whatever its health check says: it is the fault at the application layer, above the louder services waiting for its output, and the broker's line about the consumer corroborates it."""
    found = [(e, gs) for e in board.facts.errors.values() if (gs := _stopped(e))]
    if len(found) != 1:
        return  # none, or several consumers cut off at once: the broker's own fault, not theirs
    errors, groups = found[0]
    c = board.get(
        layers.APPLICATION,
        errors.service,
        f"{errors.service} stopped consuming: {short(groups[0].sample or groups[0].signature, 160)}",
    )
    if c.status == "ruled_out":
        return
    for group in groups[:2]:
        c.cite(errors.obs, errors.fact(group))
    brokers = [
        (other, g)
        for other in board.facts.errors.values()
        if other is not errors
        for g in (*other.groups, *other.warnings)
        if not g.is_stale and BROKER.search(g.text[:4000])
    ]
    for other, g in brokers[:1]:
        c.cite(other.obs, other.fact(g))
        own = board.candidates.get(f"{layers.APPLICATION}:{other.service}")
        if own is not None and own is not c:
            own.explained_by(c, f"it reports the consumer of {c.id} cut off")
    c.statement = (
        f"{errors.service} stopped consuming: the broker ended its channel or subscription "
        f"({short(groups[0].sample or groups[0].signature, 140)}) and it consumes nothing "
        "more, whatever its health check says"
    )
    c.status = "confirmed"
    c.confidence = max(c.confidence, _CORROBORATED if brokers else _CONFIDENCE)
    c.keywords = [errors.service, "consumer", "channel", "broker"]
    c.chain = [
        board.symptom(),
        *(
            f"{o.service} logs: {short(g.sample or g.signature, 120)}"
            for o, g in brokers[:1]
        ),
        f"{errors.service} logs (new): {short(groups[0].sample or groups[0].signature, 120)}",
        c.statement,
    ]
