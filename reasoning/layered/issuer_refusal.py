"""A certificate authority refusing to issue (a rate limit, a quota): the component that requests the certificates is the TLS fault, not the host names that lack one.

An edge proxy or ingress that obtains its sites' certificates itself (ACME clients such as Caddy,
Traefik, cert-manager, a load balancer's managed certificates) asks the issuer for each new name.
When the issuer refuses (too many orders, a per-account or per-domain rate limit, a quota), the
names onboarded since have no certificate: the proxy serves a default or stale one, and a probe of
such a name fails TLS (a name mismatch, an expired certificate). The probe names the site, and the
site's own services log certificate errors about it, yet neither is at fault; the proxy's own line
saying the issuer refused is. Those lines rarely name the probed host (other new names are the ones
refused at the moment), so the planner searches every service's lines for an issuer's refusal once
a probe fails at TLS (`searches`); a line there naming a certificate and a refusal
(`refused_issuance`) makes the TLS fault the logging service's, citing that line, and folds the
host names' TLS findings into it as symptoms.
"""

import re
from collections.abc import Callable
from typing import Any, Final

from reasoning import layers
from reasoning.layered.candidates import Board, Candidate
from reasoning.layered.facts import Facts
from reasoning.layered.reading import arg, as_dict, as_list, short
from reasoning.observations import Observation, PlannedCall
from reasoning.tools import SEARCH_LOGS

_LIMIT: Final = 20
_MAX_LINE: Final = 4000
# What the issuance side of a certificate is called in its client's or its issuer's words.
_CERT: Final = r"certificat|\bcert\b|\bacme\b|\bissuer\b|\bCA\b|\bCSR\b|tls\.obtain"
# An issuer's refusal: a rate limit, a quota, too many requests or orders.
_REFUSAL: Final = (
    r"rate.?limit|too many (?:new |failed |duplicate )?(?:orders|certificates|requests|"
    r"registrations|authori[sz]ations)|\b429\b|quota (?:exceeded|reached)|"
    r"limit (?:exceeded|reached)"
)
_REFUSED_ISSUANCE: Final = re.compile(
    rf"(?:{_CERT})[^\n]{{0,300}}?(?:{_REFUSAL})|(?:{_REFUSAL})[^\n]{{0,300}}?(?:{_CERT})",
    re.IGNORECASE,
)
# The same, as the logs server's regular expression (RE2, case-insensitive there).
QUERY: Final = (
    r"(certificat|acme|issuer|tls\.obtain).{0,300}(rate.?limit|too many|\b429\b|quota|"
    r"limit exceeded)|(rate.?limit|too many|\b429\b|quota|limit exceeded).{0,300}"
    r"(certificat|acme|issuer|tls\.obtain)"
)


def refused_issuance(text: str) -> bool:
    """Whether `text` says a certificate issuer refused a request for a rate limit or a quota."""
    return _REFUSED_ISSUANCE.search(text[:_MAX_LINE]) is not None


def _tls_failures(facts: Facts) -> list[str]:
    """Hosts whose probe failed at TLS, in the probes' order."""
    return list(
        dict.fromkeys(p.host for p in facts.probes.values() if p.layer == layers.TLS)
    )


def searches(
    facts: Facts,
    call: Callable[[str, dict[str, Any], str], PlannedCall | None],
    window: dict[str, str],
) -> list[PlannedCall | None]:
    """One search of every service's lines for an issuer refusing certificates, once a probe failed at TLS."""
    hosts = _tls_failures(facts)
    if not hosts:
        return []
    return [
        call(
            SEARCH_LOGS,
            {"query": QUERY, "regex": True, **window, "limit": _LIMIT},
            f"{hosts[0]} fails TLS: does a certificate issuer refuse the component that "
            "requests its certificates (a rate limit, a quota)",
        )
    ]


def _refusals(board: Board) -> dict[str, tuple[Observation, str, int]]:
    """Per service, its first line saying an issuer refused a certificate, and how many such lines it logged."""
    found: dict[str, tuple[Observation, str, int]] = {}
    for obs in board.inv.observations:
        if obs.tool != SEARCH_LOGS or not obs.is_ok or arg(obs, "query") != QUERY:
            continue
        for line in map(as_dict, as_list(as_dict(obs.result).get("lines"))):
            service = str(line.get("service") or "")
            message = str(line.get("message") or "")
            if not service or not refused_issuance(message):
                continue
            first = found.get(service)
            found[service] = (
                (obs, message, 1) if first is None else (*first[:2], first[2] + 1)
            )
    return found


def _fold(victim: Candidate, cause: Candidate) -> None:
    """`victim` (a host name's TLS finding) is a symptom of `cause`: its evidence joins the cause's."""
    for e in victim.evidence:
        if not any(x.span_id == e.span_id for x in cause.evidence):
            cause.evidence.append(e)
            cause.sources.add(e.server)
    victim.explained_by(
        cause, f"a symptom of {cause.id} (its issuer refuses new certificates)"
    )


def issuer_refused(board: Board) -> None:
    """A service whose own line says the certificate issuer refused its requests (a rate limit, a quota) is the TLS fault when a probe fails at TLS: the names it could not get certificates for are its victims."""
    hosts = _tls_failures(board.facts)
    if not hosts:
        return
    refusals = _refusals(board)
    if not refusals:
        return
    service, (obs, message, count) = max(refusals.items(), key=lambda kv: kv[1][2])
    c = board.get(
        layers.TLS,
        service,
        f"the certificate issuer refuses {service}'s requests for new certificates (a rate "
        f"limit or quota): the names it could not get one for, {hosts[0]} among them, are "
        "served without a valid certificate",
    )
    c.cite(obs, short(f"search_logs(every service): {service}: {message}", 300))
    for victim in list(board.candidates.values()):
        if (
            victim is not c
            and victim.layer == layers.TLS
            and victim.status != "ruled_out"
            and "." in victim.component
        ):
            _fold(victim, c)
    c.status = "confirmed"
    c.confidence = max(c.confidence, 0.92)
    c.chain = [
        board.symptom(),
        f"probe of {hosts[0]}: TLS fails",
        f"{service} logs ({count} such line{'s' if count > 1 else ''}): "
        f"{short(message, 160)}",
        c.statement,
    ]
    c.keywords = [layers.TLS, service, "certificate issuer", "rate limit", "issuance"]
