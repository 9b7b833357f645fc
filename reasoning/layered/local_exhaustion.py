"""A service's own host out of a local resource (issue 21 class 2): the operating system's own words, often at warn level.

`cannot assign requested address` (EADDRNOTAVAIL: no ephemeral port left), `too many open files`
(EMFILE) are said by the kernel of the host that logs them, about that host, whatever address the
failing connect was meant for: the path and the callee are not at fault, the service that runs out
is. A pattern new since the window started is direct evidence (the kernel's own errno), so it is
confirmed by itself; one logged before the window too is a lead at most.
"""

import re
from dataclasses import dataclass

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.facts import ErrorGroup, Errors
from reasoning.layered.reading import short

# The kernel's words for a local resource used up on the host that logs them.
LOCAL_EXHAUSTION = re.compile(
    r"cannot assign requested address|EADDRNOTAVAIL|"
    r"(?:no|out of) (?:free |available )?ephemeral ports?|ephemeral ports? (?:exhausted|range)|"
    r"too many open files|EMFILE",
    re.IGNORECASE,
)
_CONFIDENCE = 0.84  # the kernel's own errno, new since the start: direct evidence


@dataclass(frozen=True)
class _Exhausted:
    errors: Errors
    group: ErrorGroup
    words: str


def local_exhaustion(board: Board) -> None:
    """A new log pattern (error or warning) in which a service's own kernel says a local resource is used up is that service's own application fault."""
    for errors in board.facts.errors.values():
        found = _exhausted(errors)
        if found is not None:
            _hypothesis(board, found)


def _exhausted(errors: Errors) -> _Exhausted | None:
    """The service's most frequent pattern, new since the window started, naming a local exhaustion."""
    groups = sorted(
        (g for g in (*errors.groups, *errors.warnings) if g.is_new),
        key=lambda g: -g.count,
    )
    for group in groups:
        match = LOCAL_EXHAUSTION.search(group.text)
        if match is not None:
            return _Exhausted(errors, group, match.group(0))
    return None


def _hypothesis(board: Board, found: _Exhausted) -> None:
    service = found.errors.service
    c = board.get(
        layers.APPLICATION,
        service,
        f"{service} itself fails: its host runs out of a local resource ({short(found.words, 60)}), "
        "new since the window started",
    )
    if found.words not in c.statement:
        c.statement += (
            f"; its host runs out of a local resource ({short(found.words, 60)})"
        )
    c.cite(found.errors.obs, found.errors.fact(found.group))
    if c.status != "confirmed" or c.confidence < _CONFIDENCE:
        c.status, c.confidence = "confirmed", _CONFIDENCE
    line = f"{service} logs (new): {short(found.group.sample or found.group.signature, 120)}"
    c.chain = [board.symptom(), line, c.statement]
    c.keywords = [service, found.words, "ephemeral ports", "local resource"]
