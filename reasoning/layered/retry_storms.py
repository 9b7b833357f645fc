"""A callee whose request rate jumped, with most of it from one caller that retries: the caller's retries are the cause, the callee their victim.

A service that says its request rate is several times its average and names its top caller points at
that caller (`callers`, read next); the caller's own new lines retrying its calls to the callee
(`attempt 3/6 … retrying`) show it multiplies its requests. The caller is then the cause at the
application layer, the loud callee shedding load its victim. This module holds only what a retry
storm needs; a general "rate that jumped" lead may live elsewhere.
"""

import re
from dataclasses import dataclass

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.facts import ErrorGroup, Errors, Facts
from reasoning.layered.reading import short

# A service's own words for a request rate far above its usual one, with the caller sending most of it.
RATE_JUMP = re.compile(
    r"(?:request|call|traffic)s? rate\b[^;]{0,60}\b(?:\d+(?:\.\d+)?x|times)\b[^;]{0,40}"
    r"\btop caller[:=\s]+([a-z0-9][a-z0-9_.-]*[a-z0-9])",
    re.IGNORECASE,
)
# A caller's words for calling again at once after a failure.
RETRYING = re.compile(
    r"\battempt \d+ ?/ ?\d+\b|\bretry(?:ing)? (?:immediately|now|#?\d+)|\bretrying\b",
    re.IGNORECASE,
)
# A client's retry settings, as a start-up or config line states them (a RE2 pattern for the logs' search).
RETRY_SETTINGS = r"retr(?:y|ies).{0,40}(?:max_?attempts|policy|backoff)"
_CONFIDENCE = 0.86


@dataclass(frozen=True)
class _Jump:
    callee: Errors
    group: ErrorGroup
    caller: str


def _jumps(facts: Facts) -> list[_Jump]:
    """Each callee's new line saying its rate jumped, with the caller it names."""
    found: list[_Jump] = []
    for errors in facts.errors.values():
        for group in (*errors.groups, *errors.warnings):
            match = RATE_JUMP.search(group.sample or group.signature)
            if match is None or group.is_stale:
                continue
            caller = match.group(1).lower()
            if caller != errors.service.lower():
                found.append(_Jump(errors, group, caller))
                break
    return found


def callers(facts: Facts) -> list[str]:
    """The callers a jumped request rate names, not yet read: their own lines say whether they retry."""
    return [j.caller for j in _jumps(facts) if j.caller not in facts.errors]


def settings_searches(facts: Facts) -> list[str]:
    """The callers that retry a callee's jumped rate: their logs are searched for their retry settings."""
    return [
        j.caller
        for j in _jumps(facts)
        if (caller := facts.errors.get(j.caller)) is not None
        and _retries(caller, j.callee.service) is not None
    ]


def _settings(facts: Facts, caller: str) -> str | None:
    """The caller's line stating its retry settings, found by `settings_searches`."""
    pattern = re.compile(RETRY_SETTINGS, re.IGNORECASE)
    for line in facts.log_lines.get(caller, []):
        message = str(line.get("message") or "")
        if pattern.search(message):
            return message
    return None


def retry_storms(board: Board) -> None:
    """A caller that sends most of a callee's jumped request rate and logs retrying its calls is the cause; the callee is its victim."""
    for jump in _jumps(board.facts):
        caller = board.facts.errors.get(jump.caller)
        retries = _retries(caller, jump.callee.service) if caller else None
        if caller is None or retries is None:
            continue
        _blame(board, jump, caller, retries)


def _retries(caller: Errors, callee: str) -> ErrorGroup | None:
    """The caller's new line retrying a call, naming the callee or not (a client names what it calls its own way)."""
    for group in (*caller.warnings, *caller.groups):
        if not group.is_stale and RETRYING.search(group.sample or group.signature):
            return group
    return None


def _blame(board: Board, jump: _Jump, caller: Errors, retries: ErrorGroup) -> None:
    callee = jump.callee.service
    c = board.get(
        layers.APPLICATION,
        jump.caller,
        f"{jump.caller} retries its calls to {callee} and multiplies them: {callee}'s request "
        "rate jumped, most of it from it",
    )
    c.cite(jump.callee.obs, jump.callee.fact(jump.group))
    c.cite(caller.obs, caller.fact(retries))
    health = board.facts.health.get(callee)
    if health is not None and health.verdict in ("degraded", "unhealthy"):
        c.cite(health.obs, health.fact)
    settings = _settings(board.facts, jump.caller)
    searched = next(
        (
            o
            for o, text in board.facts.searched.get(jump.caller, [])
            if settings and settings in text
        ),
        None,
    )
    if settings is not None and searched is not None:
        c.cite(searched, short(f"search_logs({jump.caller}): {settings}", 300))
    c.status = "confirmed"
    c.confidence = max(c.confidence, _CONFIDENCE + 0.04 * (settings is not None))
    c.chain = [
        board.symptom(),
        f"{callee} logs: {short(jump.group.sample or jump.group.signature, 120)}",
        f"{jump.caller} logs: {short(retries.sample or retries.signature, 120)}",
        *([f"{jump.caller} logs: {short(settings, 120)}"] if settings else []),
        c.statement,
    ]
    c.keywords = [jump.caller, "retry storm", "retries", "backoff"]
    victim = board.candidates.get(f"{layers.APPLICATION}:{callee}")
    if victim is not None and victim.status != "ruled_out":
        victim.status, victim.confidence = "likely", min(victim.confidence, 0.4)
        victim.statement += f"; a symptom of {c.id} (its retries multiply the load)"
