"""A credential of the caller's own that the party it calls refuses as expired or revoked: the caller that holds it is at fault.

An identity provider answering `invalid_client` ("the client secret keys are expired"), an API
refusing a revoked or expired API key, a cloud refusing an expired access key or security token:
the line is the caller's own request, the remote party is working as it should, and what failed is
the credential the caller presents. The fault is the caller's (it holds the credential and must
renew it), at the application layer, however the remote's message reads: a help link or the words
"certificate credentials" in it are not a TLS path (`logged_paths` reads such a line only up to the
remote's answer). A verifier refusing its own clients' credentials ("for user 42", "from client x")
is not this rule's: that is the client's doing. Confirmed when the caller's own metrics fail or
another service fails quoting it; one line alone is a strong lead. When netcheck probed the host
the caller calls and saw the same refusal on the wire (an HTTP 401 or 403), the probe's `http`
hypothesis on that host stands, as the earlier sets score it, and this one is a lead below it.
"""

import re

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.facts import ErrorGroup, Errors
from reasoning.layered.reading import before_answer, hosts_in, short
from reasoning.layered.warning_leads import names_service

# What a credential is called: a client secret, API or access key, service account key ...
_CREDENTIAL = (
    r"(?:client[ _-]?secret(?: keys?)?|client credentials?|api[ _-]?(?:key|token)|"
    r"access[ _-]?key(?: id)?|secret[ _-]?key|app(?:lication)? password|"
    r"service[ _-]?account key|refresh[ _-]?token|credentials?|password|"
    r"(?:access|bearer|security) token)"
)
_DEAD = r"(?:expired|revoked|disabled|deactivated|no longer valid|has been rotated)"
# A remote's refusal of the caller's own credential, as identity providers and APIs word it.
REFUSED_CREDENTIAL = re.compile(
    rf"\b{_CREDENTIAL}\b[^.;\n]{{0,60}}?\b{_DEAD}\b|"
    rf"\b{_DEAD} {_CREDENTIAL}\b|"
    r"\binvalid_client\b[^\n]{0,120}?\b(?:expired|revoked|disabled)\b|"
    r"\bExpiredToken(?:Exception)?\b|\bInvalidAccessKeyId\b|\bKeyRevoked\b",
    re.IGNORECASE,
)
# The line is about the caller's own request: the remote answered or refused it.
_OWN_REQUEST = re.compile(
    r"\b(?:request|call|calling|token endpoint|login|authenticat\w*|sign[ -]?in|fetch\w*)\b"
    r"[^\n]{0,80}\b(?:to|at|from|with)\b|"
    r"\b(?:401|403)\b|\bunauthori[sz]ed\b|\bforbidden\b|\binvalid_client\b|"
    r"\b(?:rejected|refused|denied)\b",
    re.IGNORECASE,
)
# A verifier's words about its own clients' credentials: the client's doing, not this service's.
_CLIENTS_CREDENTIAL = re.compile(
    r"\b(?:from|for|of) (?:the )?(?:client|user|consumer|caller|tenant|customer|account)\b|"
    r"\bincoming\b|\brejecting (?:the )?request\b",
    re.IGNORECASE,
)
_FAILING = ("degraded", "unhealthy")
_CONFIRMED = 0.88
_LEAD = 0.62
_REFUSALS = (401, 403)  # a probe's HTTP answer refusing the credential it was not sent


def refuses_own_credential(text: str) -> bool:
    """True when `text` says a remote refused the caller's own credential as expired or revoked."""
    return bool(
        REFUSED_CREDENTIAL.search(text)
        and _OWN_REQUEST.search(text)
        and not _CLIENTS_CREDENTIAL.search(text)
    )


def expired_credentials(board: Board) -> None:
    """A service whose own requests are refused because its credential (client secret, API key, access key) expired or was revoked is at fault, at the application layer, whatever hosts the remote's message names."""
    for errors in board.facts.errors.values():
        found = next(
            (
                g
                for g in (*errors.groups, *errors.warnings)
                if not g.is_stale and refuses_own_credential(g.sample or g.signature)
            ),
            None,
        )
        if found is not None:
            _hypothesis(board, errors, found)


def _hypothesis(board: Board, errors: Errors, group: ErrorGroup) -> None:
    service = errors.service
    said = short(group.sample or group.signature, 120)
    c = board.get(
        layers.APPLICATION,
        service,
        f"{service}'s own credential is refused as expired or revoked by the party it calls: "
        "it must be renewed where it is issued",
    )
    c.cite(errors.obs, errors.fact(group))
    health = board.facts.health.get(service)
    failing = health is not None and health.verdict in _FAILING
    if failing and health is not None:
        c.cite(health.obs, health.fact)
    quoting = [
        (e, g)
        for e, g in board.facts.error_texts()
        if e.service != service and not g.is_stale and names_service(g.text, service)
    ]
    for e, g in quoting:
        c.cite(e.obs, e.fact(g))
    called = hosts_in(before_answer(group.sample or group.signature))
    probed = next(
        (
            p
            for p in board.facts.probes.values()
            if p.host in called and p.layer == layers.HTTP and p.status in _REFUSALS
        ),
        None,
    )
    confirmed = (failing or bool(quoting)) and probed is None
    if c.status != "confirmed" or c.confidence < _CONFIRMED:
        c.status = "confirmed" if confirmed else "likely"
        c.confidence = _CONFIRMED if confirmed else _LEAD
    c.statement = (
        f"{service}'s own credential is refused as expired or revoked by the party it calls "
        f"({said}): it must be renewed where it is issued"
    )
    c.chain = [
        board.symptom(),
        *(
            f"{e.service} fails calling {service}: {short(g.sample, 100)}"
            for e, g in quoting[:2]
        ),
        f"{service} logs: {said}",
        c.statement,
    ]
    c.keywords = [service, "credential expired", "client secret", "rotate", "renew"]
