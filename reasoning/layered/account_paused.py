"""A provider that paused or suspended our account: the callers' refusals are the provider's http-layer fault, and the provider's own status line says so.

An email, SMS or payments provider pauses an account (a bounce or complaint rate over its limit, a
billing hold, an abuse review): every call on the account is refused at once (`MessageRejected:
Sending paused for this account`, `account suspended`), whatever the caller sends, so the loud
services that quote the refusal are not at fault, nor is their release. When a service's new error
lines quote such an account-level refusal and another service read (the provider's status feed, its
notifications, its own log) states, in a line of its own that reports no failed request, that an
account's sending or access was paused, suspended or disabled, that provider is the hypothesis at
the HTTP layer, citing both; the callers' own hypotheses become its symptoms.
"""

import re
from typing import TYPE_CHECKING, Final

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.reading import short

if TYPE_CHECKING:
    from reasoning.layered.facts import ErrorGroup, Errors

# An account-level refusal or status: sending, access or the account paused or suspended.
PAUSED: Final = re.compile(
    r"\b(?:sending|messaging|account|access|api key|service)\b[^\n]{0,60}?"
    r"\b(?:paused|suspended|disabled|deactivated|on hold)\b|"
    r"\b(?:paused|suspended|disabled|deactivated)\b[^\n]{0,30}?\bfor (?:this|the|your) account\b",
    re.IGNORECASE,
)
_ACCOUNT: Final = re.compile(r"\baccount\b", re.IGNORECASE)
# A line about a request that failed (a caller's), not the provider's statement of a status.
_FAILED: Final = re.compile(
    r"\bfail|\berror\b|\bexception\b|rejected|refused|denied|\b[45]\d\d\b",
    re.IGNORECASE,
)
_CONFIDENCE: Final = 0.9


def _about_account(text: str) -> bool:
    return bool(PAUSED.search(text[:4000]) and _ACCOUNT.search(text[:4000]))


def account_paused(board: Board) -> None:
    """A provider whose own line says an account's sending or access was paused or suspended, while services' new errors quote that account-level refusal, is the http-layer fault; the services that quote it are its symptoms."""
    callers: list[tuple[Errors, ErrorGroup]] = [
        (errors, g)
        for errors in board.facts.errors.values()
        for g in errors.groups
        if g.is_new and _about_account(g.text) and _FAILED.search(g.text[:4000])
    ]
    if not callers:
        return
    quoting = {e.service for e, _ in callers}
    statements = [
        (errors, g)
        for errors in board.facts.errors.values()
        if errors.service not in quoting
        for g in (*errors.groups, *errors.warnings)
        if not g.is_stale
        and _about_account(g.text)
        and not _FAILED.search(g.text[:4000])
    ]
    if len({e.service for e, _ in statements}) != 1:
        return
    errors, said = statements[0]
    provider = errors.service
    c = board.get(
        layers.HTTP,
        provider,
        f"{provider} paused the account its callers use ({short(said.text, 120)}): every call "
        "on it is refused, whatever the callers send",
    )
    c.cite(errors.obs, errors.fact(said))
    for e, g in callers:
        c.cite(e.obs, e.fact(g))
    c.status, c.confidence = "confirmed", max(c.confidence, _CONFIDENCE)
    c.chain = [
        board.symptom(),
        *(f"{e.service} is refused: {short(g.text, 100)}" for e, g in callers[:2]),
        f"{provider}: {short(said.text, 120)}",
        c.statement,
    ]
    c.keywords = [provider, "account paused", "suspended", layers.HTTP]
    for name in (*quoting, provider):
        own = board.candidates.get(f"{layers.APPLICATION}:{name}")
        if own is not None:
            own.explained_by(
                c, f"a symptom of {c.id} (the provider paused the account)"
            )
