"""When no hypothesis stands, the strongest fault line the logs hold, of any service, is the lead.

The board's rules each look for a class of fault; a case none of them anticipates ends with every
candidate ruled out, or none, although the survey read a line that says what failed: a client
quoting the remote's refusal of its expired credential, a warning that a lookup found no row since
a migration, a proxy's own error log saying why it answers 502. A careful engineer who found
nothing else would start from that line. So, only when no candidate stands, every error and
warning group read (each service's own top_errors and the every-service survey) is scored: a line
that states a reason (refused, expired, denied, not found, too big, …) over one that only reports
a state; error level over warning; a message new since the window started over a steady one; and a
line that only repeats the incident's own words (the alert's name, a ticket quoting the user) is
a report of the symptom, not its cause, and is skipped. The best group's service becomes a lead
(`LEAD` confidence, never conclusive) citing that line, at the HTTP layer when the line is a
proxy's own error about its upstream's response, else at the application layer.
"""

import re
from dataclasses import dataclass
from typing import Final

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.facts import ErrorGroup, Errors
from reasoning.layered.reading import incident_text, short
from reasoning.layered.unread_services import every_service_errors

LEAD: Final = 0.45
# Words that say why something failed, not only that it did.
_REASON: Final = re.compile(
    r"\b(?:expired?|expiry|revoked|denied|refused|rejected|forbidden|unauthori[sz]ed|"
    r"not authori[sz]ed|authenticat\w* ?failed|failed to authenticate|AuthenticationFailed|invalid|"
    r"too (?:big|large|long|many)|exceeded|exhausted|not found|no such|missing|"
    r"no (?:user|row|record|match|entry|route|space)\w*|mismatch\w*|cannot|can't|unable to|"
    r"permission|not allowed|blocked|timed? ?out|out of)\b",
    re.IGNORECASE,
)
# A proxy's own error about its upstream's answer (headers, body, buffer): an HTTP-layer fault.
_PROXY_UPSTREAM: Final = re.compile(
    r"\bupstream\b[^\n]{0,200}?\b(?:header|response|body|buffer)s?\b|"
    r"\b(?:header|response|body|buffer)s?\b[^\n]{0,200}?\bupstream\b",
    re.IGNORECASE,
)
_WORD: Final = re.compile(r"[a-z0-9]+")
_MIN_WORD: Final = 4
# A line repeating this share of the incident's words (and at least `_ECHO_WORDS` of them) reports it.
_ECHO_SHARE: Final = 0.3
_ECHO_WORDS: Final = 2
# The most characters of a line the scoring reads: a multi-megabyte line says no more.
_READ_CHARS: Final = 4000


@dataclass(frozen=True)
class _Line:
    score: tuple[int, int, int, int]
    service: str
    errors: Errors
    group: ErrorGroup


def states_reason(text: str) -> bool:
    """The text says why something failed (refused, expired, not found, too big …), not only that it did."""
    # Constants join their words with underscores (PERMISSION_DENIED): read them as words.
    return bool(_REASON.search(text[:_READ_CHARS].replace("_", " ")))


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) >= _MIN_WORD}


def echoes(line: str, incident: set[str]) -> bool:
    """The line repeats enough of the incident's own words to be a report of the symptom."""
    if not incident:
        return False
    shared = len(_words(line) & incident)
    return shared >= _ECHO_WORDS and shared / len(incident) >= _ECHO_SHARE


def layer_of(line: str) -> str:
    """HTTP when the line is a proxy's own error about its upstream's answer, else the application."""
    return (
        layers.HTTP
        if _PROXY_UPSTREAM.search(line[:_READ_CHARS])
        else layers.APPLICATION
    )


def _score(errors: Errors, group: ErrorGroup) -> tuple[int, int, int, int]:
    text = group.text[:_READ_CHARS]
    is_error = group not in errors.warnings
    return (
        int(states_reason(text)),
        int(is_error),
        int(group.is_new),
        group.count,
    )


def strongest_line(board: Board) -> tuple[str, Errors, ErrorGroup] | None:
    """The strongest fault line read of any service, skipping those that echo the incident; None
    when no line states a reason or is at error level."""
    incident = _words(incident_text(board.inv))
    best: _Line | None = None
    for service, errors in every_service_errors(board.inv, board.facts):
        for group in (*errors.groups, *errors.warnings):
            if group.count <= 0 or echoes(group.text[:_READ_CHARS], incident):
                continue
            layer = layer_of(group.sample or group.signature)
            if f"{layer}:{service}" in board.inv.excluded:
                continue  # the user marked it wrong: never revived
            score = _score(errors, group)
            if not (score[0] or score[1]):
                continue
            if best is None or score > best.score:
                best = _Line(score, service, errors, group)
    return None if best is None else (best.service, best.errors, best.group)


def strongest_lines(board: Board) -> None:
    """When no hypothesis stands, the service whose log holds the strongest fault line read (a stated reason, error level, new since the start, not an echo of the incident's words) is a lead citing it."""
    if any(c.status != "ruled_out" for c in board.candidates.values()):
        return
    found = strongest_line(board)
    if found is None:
        return
    service, errors, group = found
    sample = group.sample or group.signature
    layer = layer_of(sample)
    c = board.get(
        layer,
        service,
        f"{service} fails: its own log says why ({short(sample, 160)})",
    )
    c.status, c.confidence, c.reason_ruled_out = "likely", LEAD, None
    c.cite(errors.obs, errors.fact(group))
    c.chain = [f"{service}: {short(sample, 120)}", board.symptom()]
