"""Warnings that name a cause (issue 21 class 2): a slow query plan or an exhausted pool is often logged at warn level.

A service's warning pattern that is new since the window started (absent from the baseline before it)
and names a cause of failure (not a symptom such as a timeout, and not an upstream's failure) is a
lead for that service. Its callers' failures naming it, or its own metrics failing, confirm it.
"""

import re
from dataclasses import dataclass

from reasoning import layers
from reasoning.layered.candidates import Board, Candidate
from reasoning.layered.facts import ErrorGroup, Errors
from reasoning.layered.reading import (
    NAMES_UPSTREAM,
    POOL_EXHAUSTED,
    error_classes,
    short,
    upstreams,
)

# What a warning says when it names a cause of failure, not its symptom.
CAUSE = re.compile(
    r"slow quer(?:y|ies)|query plan|seq(?:uential)? scan|full (?:table )?scan|"
    r"lock wait|deadlock|pool (?:exhausted|limit|timeout)|no (?:idle|free) connection|"
    + POOL_EXHAUSTED
    + r"|"
    r"retries exhausted|giving up|throttl\w*|rate[ -]?limit\w*|too many requests|"
    r"disk (?:full|space|usage|pressure)|no space left|memory (?:limit|pressure)|"
    r"out of memory|heap (?:usage|space|exhausted)|gc pause",
    re.IGNORECASE,
)
_CALLER_FAILS = re.compile(
    r"time(?:d)? ?out|deadline exceeded|\b5\d\d\b|failed|error|refused|reset|unavailable",
    re.IGNORECASE,
)
_FAILING = ("degraded", "unhealthy")


@dataclass(frozen=True)
class _Lead:
    errors: Errors
    group: ErrorGroup
    cause: str


def warning_leads(board: Board) -> None:
    """A new warning naming a cause is a lead for its service, confirmed when its callers' failures name it or its metrics fail."""
    for errors in board.facts.errors.values():
        lead = _lead(errors)
        if lead is not None:
            _hypothesis(board, lead)


def _lead(errors: Errors) -> _Lead | None:
    """The service's most frequent new warning that names a cause of its own."""
    for group in errors.warnings:
        if not group.is_new:
            continue  # logged before the incident too, or no baseline to tell
        match = CAUSE.search(group.sample) or CAUSE.search(group.signature)
        if (
            match is None
            or NAMES_UPSTREAM.search(group.text)
            or error_classes(group.text) & {layers.DNS, layers.CONNECT, layers.TLS}
        ):
            continue
        return _Lead(errors, group, match.group(0))
    return None


def names_service(text: str, service: str) -> bool:
    """True when `text` names `service` as a whole word (a URL host, an upstream, a word of the line)."""
    if service.lower() in upstreams(text):
        return True
    pattern = rf"(?<![\w.-]){re.escape(service.lower())}(?![\w-])"
    return re.search(pattern, text.lower()) is not None


def callers_naming(board: Board, c: Candidate, service: str) -> list[str]:
    """The other services whose failing error lines name `service`, each line cited on `c`."""
    callers: list[str] = []
    for errors, group in board.facts.error_texts():
        if errors.service == service or not _CALLER_FAILS.search(group.text):
            continue
        if names_service(group.text, service):
            c.cite(errors.obs, errors.fact(group))
            if errors.service not in callers:
                callers.append(errors.service)
    return callers


def _hypothesis(board: Board, lead: _Lead) -> None:
    service = lead.errors.service
    facts = board.facts
    c = board.get(
        layers.APPLICATION,
        service,
        f"{service} itself fails: its logs warn of {short(lead.cause, 60)}, new since the window started",
    )
    if lead.cause not in c.statement:
        c.statement += (
            f"; its logs warn of {short(lead.cause, 60)}, new since the window started"
        )
    c.cite(lead.errors.obs, lead.errors.fact(lead.group))
    callers = callers_naming(board, c, service)
    health = facts.health.get(service)
    metrics_fail = health is not None and health.verdict in _FAILING
    if health is not None and metrics_fail:
        c.cite(health.obs, health.fact)
    if callers or metrics_fail:
        confidence = 0.82 + 0.05 * (bool(callers) and metrics_fail)
        if c.status != "confirmed" or c.confidence < confidence:
            c.status, c.confidence = "confirmed", confidence
    elif c.status != "confirmed":
        c.status, c.confidence = "likely", max(c.confidence, 0.5)
    line = f"{service} logs (warn, new): {short(lead.group.sample or lead.group.signature, 120)}"
    if line not in c.chain:
        head = board.symptom()
        called = [f"{caller} fails calling {service}" for caller in callers[:2]]
        c.chain = [head, *called, line, c.statement]
    c.keywords = [service, lead.cause, *(k for k in c.keywords if k != service)]
