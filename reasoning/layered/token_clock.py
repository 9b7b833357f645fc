"""Tokens rejected as not yet valid point at the clock of whoever issued them, not at the services that reject them.

A verifier that says a token was "used before issued" (its `iat` or `nbf` in the future) compares the
issuer's clock with its own: when it is one issuing host among several, that host's clock runs ahead.
The fault is the issuer's (the host a line names, else the issuer's host), at the application layer;
several verifiers saying it agree, one alone is a lead.
"""

import re
from dataclasses import dataclass, field

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.facts import ErrorGroup, Errors
from reasoning.layered.reading import host_of, short

# A token refused because its issue or not-before time lies ahead of the verifier's clock.
NOT_YET_VALID = re.compile(
    r"used before (?:it was )?issued|(?:iat|nbf|issued at|not before)\b[^;,)]{0,20}\bin the future|"
    r"token (?:is )?not (?:yet )?valid (?:yet|before)|immature signature|clock skew",
    re.IGNORECASE,
)
# The issuing host a line names: `host idp-3`, `host=auth-b.example`, `instance: sts-1`.
_ISSUING_HOST = re.compile(
    r"\b(?:host|instance|node|issued by)[ =:]+([a-z0-9][a-z0-9.-]*[a-z0-9])",
    re.IGNORECASE,
)
# A host's own words for a clock that is off.
CLOCK_OFF = re.compile(
    r"\bclock\b[^;.]{0,40}\b(?:ahead|behind|skew\w*|offset|drift\w*|not synchroni[sz]ed)|"
    r"\b(?:chronyd?|ntpd?|timesyncd)\b[^;.]{0,60}\b(?:masked|stopped|failed|inactive|unsynchroni[sz]ed)",
    re.IGNORECASE,
)
_ISSUER_URL = re.compile(r"\b(?:issuer|iss)[ =:]+(https?://\S+?)[\s,;)]", re.IGNORECASE)


@dataclass
class _Issuer:
    verifiers: list[tuple[Errors, ErrorGroup]] = field(default_factory=list)


def token_clock(board: Board) -> None:
    """Verifiers rejecting tokens as issued in the future blame the issuing host's clock; two or more verifiers agreeing confirm it."""
    issuers: dict[str, _Issuer] = {}
    for errors, group in _texts(board):
        if not NOT_YET_VALID.search(group.text):
            continue
        issuer = _issuer(group.sample or group.signature)
        if issuer is None or issuer == errors.service.lower():
            continue
        issuers.setdefault(issuer, _Issuer()).verifiers.append((errors, group))
    for issuer, found in issuers.items():
        _hypothesis(board, issuer, found)


def _texts(board: Board) -> list[tuple[Errors, ErrorGroup]]:
    out: list[tuple[Errors, ErrorGroup]] = []
    for errors in board.facts.errors.values():
        out += [
            (errors, g) for g in (*errors.groups, *errors.warnings) if not g.is_stale
        ]
    return out


def _issuer(text: str) -> str | None:
    """The issuing host a rejection names, else the host of its issuer URL."""
    host = _ISSUING_HOST.search(text)
    if host is not None:
        return host.group(1).lower()
    url = _ISSUER_URL.search(f"{text} ")
    return host_of(url.group(1)) if url else None


def _hypothesis(board: Board, issuer: str, found: _Issuer) -> None:
    services = list(dict.fromkeys(errors.service for errors, _ in found.verifiers))
    c = board.get(
        layers.APPLICATION,
        issuer,
        f"{issuer}'s clock runs ahead: the tokens it issues are rejected as issued in the future "
        f"by {', '.join(services[:3])}",
    )
    for errors, group in found.verifiers:
        c.cite(errors.obs, errors.fact(group))
    clocks = _clock_warnings(board, services)
    for errors, group in clocks:
        c.cite(errors.obs, errors.fact(group))
    agree = len(services)
    c.status = "confirmed" if agree >= 2 else "likely"
    c.confidence = min(0.8 + 0.03 * (agree - 2), 0.9) if agree >= 2 else 0.55
    c.confidence += 0.04 * bool(clocks)
    sample = found.verifiers[0][1]
    c.chain = [
        f"{services[0]} logs: {short(sample.sample or sample.signature, 120)}",
        *(f"{s} rejects {issuer}'s tokens too" for s in services[1:3]),
        c.statement,
    ]
    c.chain[-1:-1] = [
        f"{errors.service} logs: {short(group.sample or group.signature, 120)}"
        for errors, group in clocks[:1]
    ]
    c.keywords = [issuer, "clock skew", "token used before issued", "ntp"]


def _clock_warnings(
    board: Board, verifiers: list[str]
) -> list[tuple[Errors, ErrorGroup]]:
    """New lines of services other than the verifiers saying a clock is off: the issuing side's own account."""
    return [
        (errors, group)
        for errors, group in _texts(board)
        if errors.service not in verifiers
        and group.is_new
        and CLOCK_OFF.search(group.text)
    ]
