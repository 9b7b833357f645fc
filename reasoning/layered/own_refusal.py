"""A back end that states in its own voice that it refuses work, while its callers quote that refusal, is the cause of their errors (issue 21: a system's own statement of its state).

A database that stops taking writes says so in its own log (`ERROR: database is not accepting
commands …`, `ORA-01033: ORACLE initialization or shutdown in progress`, `The MySQL server is
running with the --read-only option so it cannot execute this statement`). Its callers' errors
carry the same words inside their own context (`POST /pay 500: PSQLException: ERROR: …`,
`failed to store: …`). The service whose own error line opens with the refusal is the origin: its
application hypothesis is confirmed on its line and a caller's quote, and each quoting caller's
own hypothesis becomes its symptom.
"""

import re
from typing import Final

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.echoed_errors import QUOTED_CALL
from reasoning.layered.facts import ErrorGroup, Errors
from reasoning.layered.reading import short

# A system's statement that it refuses work because of its own state.
REFUSAL: Final = re.compile(
    r"(?i)\bnot accepting (?:commands|connections|writes|requests|new)\b|"
    r"\b(?:running with|in) (?:the )?[\w -]{0,20}read[- ]only\b|"
    r"\bread[- ]only (?:mode|access|option)\b|\bcannot execute (?:this )?\w+ in a read-only\b|"
    r"\b(?:rejecting|refusing) (?:all )?(?:writes|commands|connections|requests|new)\b|"
    r"\b(?:initialization|shutdown|startup) in progress\b|"
    r"\bsystem is (?:shutting down|starting up|in recovery mode)\b"
)
# Words before the refusal that show someone else's context: a request, an exception class, a
# failed step of the caller's own.
_CALLER_CONTEXT: Final = re.compile(
    r"(?i)\w(?:Exception|Error)\b|\bfailed\b|\berror from\b|\bupstream\b|\bcaused by\b"
)
_OWN_PREFIX: Final = (
    80  # characters an own line may carry before its refusal (prefix, code, pid)
)
_QUOTE_WORDS: Final = 48  # characters of the refusal a caller's line must repeat
_CONFIDENCE: Final = 0.86  # the origin's own line and a caller's quote agree


def _words(text: str) -> str:
    return " ".join(text.split()).lower()


def own_refusal(errors: Errors) -> tuple[ErrorGroup, str] | None:
    """The service's first error group that opens with its own refusal, and the refusal's words."""
    for group in errors.groups:
        text = (group.sample or group.signature)[:4000]
        match = REFUSAL.search(text)
        if match is None or match.start() > _OWN_PREFIX:
            continue
        before = text[: match.start()]
        if QUOTED_CALL.search(before) or _CALLER_CONTEXT.search(before):
            continue
        # From the refusal's sentence start: the words a caller repeats when it quotes the line.
        start = max(before.rfind(":"), before.rfind("]")) + 1
        return group, _words(text[start:])[:_QUOTE_WORDS]
    return None


def _quotes(errors: Errors, words: str) -> ErrorGroup | None:
    for group in errors.groups:
        text = _words((group.sample or group.signature)[:4000])
        at = text.find(words)
        if (
            at > 0
            and own_refusal(Errors(errors.obs, errors.service, (group,), ())) is None
        ):
            return group
    return None


def refusals_quoted(board: Board) -> None:
    """A service whose own error line states that it refuses work (not accepting commands, read-only, shutting down), quoted by another service's errors, is the cause; the quoting callers are its symptoms."""
    for origin in list(board.facts.errors.values()):
        found = own_refusal(origin)
        if found is None:
            continue
        group, words = found
        callers = [
            (errors, quote)
            for errors in board.facts.errors.values()
            if errors.service.lower() != origin.service.lower()
            and (quote := _quotes(errors, words)) is not None
        ]
        if not callers:
            continue
        service = origin.service
        c = board.get(
            layers.APPLICATION,
            service,
            f"{service} itself refuses work: its own log says {short(words, 60)}",
        )
        if c.status == "ruled_out":
            continue
        c.cite(origin.obs, origin.fact(group))
        first, quote = callers[0]
        c.cite(first.obs, first.fact(quote))
        c.status, c.confidence = "confirmed", max(c.confidence, _CONFIDENCE)
        c.chain = [
            board.symptom(),
            f"{first.service} quotes {service}: {short(quote.sample or quote.signature, 120)}",
            f"{service} logs: {short(group.sample or group.signature, 120)}",
            c.statement,
        ]
        c.keywords = [service, words, "refuses", "read-only"]
        for errors, _ in callers:
            victim = board.candidates.get(f"{layers.APPLICATION}:{errors.service}")
            if victim is not None and victim is not c:
                victim.explained_by(c, f"a symptom of {c.id} (it quotes its refusal)")
