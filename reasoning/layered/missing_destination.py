"""A service whose own errors say a topic, queue or table it uses does not exist (issue 21 class 4): a lead of its own fault above the services that only warn after it.

A consumer that parks what it cannot process on a dead-letter topic, a producer writing to a
topic created by hand, a job reading a table a migration renamed: when the resource is missing the
service's own error names it (`Topic payment-events.DLT not present in metadata`, `queue 'x' does
not exist`, `NoSuchBucket`), and the work behind it stops (a partition stuck on one record).
Services that read its output only warn later that their data is stale. The service that names
the missing resource is the better lead (`_LEAD`): its hypothesis rises to it and cites the error,
unless a finding is confirmed already (a broker that is down makes its clients say a topic is not
present in metadata too).
"""

import re
from typing import Final

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.reading import short

# A named resource said to be missing, in a client library's or a server's words.
MISSING: Final = re.compile(
    r"\b(?:topic|queue|exchange|stream|bucket|table|relation|collection|subscription)\b"
    r"[\s:='\"`]{0,3}[\w./-]{1,120}['\"`]?\s(?:is\s)?(?:not present in metadata|does not exist|"
    r"doesn't exist|not found)|UnknownTopicOrPartition|NoSuchBucket|"
    r"NOT_FOUND - no (?:queue|exchange)",
    re.IGNORECASE,
)
_LEAD = 0.55
_TEXT_CHARS: Final = 4000


def missing_destination(board: Board) -> None:
    """A service whose new errors say a topic, queue, bucket or table it uses does not exist is a lead of its own fault (application), above services that only warn, while nothing is confirmed (a broker down makes its clients name topics missing too)."""
    if any(c.status == "confirmed" for c in board.candidates.values()):
        return  # another finding explains the failures (a broker down names topics missing too)
    for errors in board.facts.errors.values():
        if not errors.service:
            continue
        group = next(
            (
                g
                for g in errors.groups
                if g.is_new and MISSING.search((g.sample or g.signature)[:_TEXT_CHARS])
            ),
            None,
        )
        if group is None:
            continue
        text = group.sample or group.signature
        match = MISSING.search(text[:_TEXT_CHARS])
        what = match.group(0) if match else "a resource it uses is missing"
        c = board.get(
            layers.APPLICATION,
            errors.service,
            f"{errors.service} fails on a resource it uses that does not exist: {short(what, 120)}",
        )
        if c.status == "ruled_out" or c.stage is not None:
            continue
        c.cite(errors.obs, errors.fact(group))
        if c.confidence < _LEAD:
            c.confidence = _LEAD
            c.statement = (
                f"{errors.service} fails on a resource it uses that does not exist: "
                f"{short(what, 120)}"
            )
            c.keywords = list(
                dict.fromkeys([*c.keywords, errors.service, "missing resource"])
            )
