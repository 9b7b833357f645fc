"""Whose certificate a TLS failure line is about: the party that presents it, read from who logs the line and how.

A TLS failure is logged by both ends, but the certificate at fault is one party's, and the loud
side is often the other:

- an alert *received* from the peer (`Received fatal alert: certificate_expired`, Go's
  `remote error: tls: bad certificate`, OpenSSL's `sslv3 alert certificate expired`, `SSL alert
  number 45`) means the peer verified the logging service's own certificate and refused it: a
  client's certificate when a client logs it (mutual TLS), a server's when a server logs it. The
  peer works; the fault is the certificate the logging service presents (`refused_own_certificate`);
- a service failing *at start* because its own CA, issuer or key pair does not verify (`failed to
  read CA from disk: x509: certificate has expired`) is its own certificate's fault; when it issues
  identities (a mesh's identity service, an internal CA), every workload that asks it for an identity
  fails after it, and they are its victims, not causes (`issuer_failed_at_start`);
- a client verifying the server's chain (`x509: certificate has expired`, `certificate verify
  failed`) is about the server's certificate: the host's path, as `logged_paths` and the probes
  read it;
- except when the client cannot build a path to a root it trusts (Java's `PKIX path building
  failed`, Go's `x509: certificate signed by unknown authority`, Python's `CERTIFICATE_VERIFY_FAILED
  … unable to get local issuer certificate`, Node's `UNABLE_TO_GET_ISSUER_CERT_LOCALLY`) while a
  probe of the same host verifies its chain: the server's chain is good for a current trust store,
  so the client's own trust store (an old runtime's CA bundle, a pinned `cacerts`) lacks the root
  (`trust_store_lacks_root`).
"""

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from reasoning import layers
from reasoning.layered.candidates import Board, Candidate
from reasoning.layered.facts import ErrorGroup, Errors, Facts
from reasoning.layered.reading import arg, belongs, hosts_in, short
from reasoning.layered.warning_leads import names_service
from reasoning.observations import Observation
from reasoning.tools import POD_LOGS

# What a verifier's alert says about the certificate it was shown (RFC 8446 names, and the words
# Go, Java, OpenSSL, BoringSSL and Python use for them).
_ALERTS = (
    r"certificate[_ ]expired|expired[_ ]certificate|bad[_ ]certificate|certificate[_ ]revoked|"
    r"revoked[_ ]certificate|certificate[_ ]unknown|unknown[_ ]certificate(?: authority)?|"
    r"unknown[_ ]ca|certificate[_ ]required|unsupported[_ ]certificate"
)
# An alert the peer sent: the logging side's own certificate was refused.
ALERT_RECEIVED: Final = re.compile(
    rf"\b(?:received|got|peer sent|remote sent)\b[^\n]{{0,30}}?\balert\b[^\n]{{0,20}}?(?:{_ALERTS})|"
    rf"\bremote error: tls: (?:{_ALERTS})|"
    rf"\b(?:sslv3|tlsv1\d?)[_ ]alert[_ ](?:{_ALERTS})|"
    r"\bSSL alert number (?:4[2-689]|116)\b|"
    rf"\bhandshake failed\W{{1,3}}(?:[a-z ]{{0,20}}: )?tls: (?:{_ALERTS})|"
    r"\bpeer (?:rejected|refused|did not accept) (?:our|the client|my) certificate",
    re.IGNORECASE,
)
# A certificate that does not verify (expired, not yet valid, unknown issuer).
_INVALID: Final = re.compile(
    r"x509: certificate has expired|certificate has expired|not yet valid|"
    r"certificate (?:is )?expired|expired certificate|CERT_HAS_EXPIRED|"
    r"signed by unknown authority|unable to get (?:local )?issuer certificate|"
    r"x509: [^\n]{0,60}?(?:expired|invalid|unknown authority)",
    re.IGNORECASE,
)
# Loading the service's own CA, issuer, signing certificate or key pair: a start-up read.
_OWN_MATERIAL: Final = re.compile(
    r"\b(?:failed to|unable to|could not|cannot|can't|error) "
    r"(?:read|load|parse|initiali[sz]e|start|create|use)\b[^\n]{0,60}?"
    r"\b(?:CA|issuer|trust anchor|root (?:CA|certificate)|intermediate|signing (?:certificate|cert|key)|"
    r"certificate authority|identity|key ?pair|keystore|certificate|cert)\b",
    re.IGNORECASE,
)
# The line is about a call to a remote (a URL, a dial, a handshake with a host): not its own material.
_REMOTE: Final = re.compile(
    r"https?://|\bdial(?:ing)? tcp\b|\bconnect(?:ing)? to\b|\bhandshake\b|\bverify(?:ing)? (?:the )?(?:server|peer)\b",
    re.IGNORECASE,
)
# The process gave up: it exits at start rather than serve.
_FATAL: Final = re.compile(
    r"\bfatal\b|\bpanic\b|\bexit(?:ed|ing)?\b|\bfailed to (?:initiali[sz]e|start)\b|"
    r"\bshutting down\b|\baborting\b",
    re.IGNORECASE,
)
# What an identity issuer is called: it signs others' certificates.
_ISSUER_WORDS: Final = re.compile(
    r"\b(?:identity|issuer|CA|certificate authority|trust anchor|signing|spiffe|svid|"
    r"citadel|istiod|step-ca|vault pki|cert-manager)\b",
    re.IGNORECASE,
)
# A dependent's line about its identity: it waits for, cannot get or renew a certificate.
_WAITS_FOR_IDENTITY: Final = re.compile(
    r"\bidentity\b|\bcertificate signing request\b|\bCSR\b|\bsvid\b|"
    r"\b(?:fetch|get|obtain|renew|request)\w* (?:a |its |the )?(?:workload )?(?:certificate|cert|identity)\b",
    re.IGNORECASE,
)
# A line naming a certificate of the service's own: its subject, its keystore, its expiry.
_OWN_CERT_LINE: Final = re.compile(
    r"\bCN=[^\s,;)]{1,100}|\bkeystore\b|\bclient certificate\b|\bnotAfter\b|"
    r"\bcertificate\b[^\n]{0,60}?\b(?:expire[sd]?|expiring|in the past)\b",
    re.IGNORECASE,
)
# A verifier that found no path to a root it trusts (an issuer it does not know), in the words of
# Java (PKIX), Go, OpenSSL / Python / curl, Node, .NET; not an expired or mismatched certificate.
UNKNOWN_ISSUER: Final = re.compile(
    r"PKIX path (?:building|validation) failed|unable to find valid certification path|"
    r"SunCertPathBuilderException|signed by unknown authority|"
    r"unable to get (?:local )?issuer certificate|UNABLE_TO_GET_ISSUER_CERT(?:_LOCALLY)?|"
    r"self[- _]signed certificate in (?:the )?certificate chain|SELF_SIGNED_CERT_IN_CHAIN|"
    r"unable to verify the first certificate|UNABLE_TO_VERIFY_LEAF_SIGNATURE|"
    r"certificate chain (?:was )?issued by an authority that is not trusted|UntrustedRoot|"
    r"trust anchor for certification path not found",
    re.IGNORECASE,
)
# A line naming the client's own trust store or the runtime that ships it.
_TRUST_STORE_LINE: Final = re.compile(
    r"\bcacerts\b|trust ?store|ca-certificates|ca[_-]bundle|\bcertifi\b|SSL_CERT_(?:FILE|DIR)|"
    r"NODE_EXTRA_CA_CERTS|REQUESTS_CA_BUNDLE|java\.(?:runtime\.)?version|\bjre\b|\bjdk\b",
    re.IGNORECASE,
)
_CN: Final = re.compile(r"\bCN=([^\s,;)'\"]{1,100})")
_FAILING = ("degraded", "unhealthy")


def received_alert(text: str) -> bool:
    """True when `text` reports a TLS alert the peer sent about the logging side's own certificate."""
    return ALERT_RECEIVED.search(text) is not None


def own_material_invalid(text: str) -> bool:
    """True when `text` says the service failed at start because its own CA, issuer or certificate does not verify."""
    return (
        _INVALID.search(text) is not None
        and _OWN_MATERIAL.search(text) is not None
        and _FATAL.search(text) is not None
        and _REMOTE.search(text) is None
    )


@dataclass(frozen=True)
class _Line:
    errors: Errors
    group: ErrorGroup

    @property
    def said(self) -> str:
        return self.group.sample or self.group.signature


def _first(board: Board, test: Callable[[str], bool]) -> dict[str, _Line]:
    """Per service, its first current (not stale) error or warning group `test` accepts."""
    found: dict[str, _Line] = {}
    for errors in board.facts.errors.values():
        for g in (*errors.groups, *errors.warnings):
            if g.is_stale or errors.service in found:
                continue
            if test(g.sample or g.signature):
                found[errors.service] = _Line(errors, g)
    return found


def _own_cert_lines(board: Board, service: str, skip: ErrorGroup) -> list[_Line]:
    """The service's other lines naming a certificate of its own (subject, keystore, expiry)."""
    errors = board.facts.errors.get(service)
    if errors is None:
        return []
    return [
        _Line(errors, g)
        for g in (*errors.groups, *errors.warnings)
        if g is not skip and _OWN_CERT_LINE.search(g.sample or g.signature)
    ]


def refused_own_certificate(board: Board) -> None:
    """A service that receives a TLS alert refusing its certificate (expired, bad, revoked, unknown CA) presents the faulty certificate: a TLS fault of that service, not of the peer that refused it."""
    for service, line in _first(board, received_alert).items():
        peers = hosts_in(line.said)
        owned = _own_cert_lines(board, service, line.group)
        subject = next(
            (m.group(1) for x in owned if (m := _CN.search(x.said)) is not None), None
        )
        what = f"its certificate{f' (CN={subject})' if subject else ''}"
        peer = peers[0] if peers else "its peer"
        c = board.get(
            layers.TLS,
            service,
            f"{peer} refuses {service}'s own certificate in the TLS handshake: {what} must be "
            "renewed or replaced where it is issued; the peer works",
        )
        c.cite(line.errors.obs, line.errors.fact(line.group))
        for x in owned[:2]:
            c.cite(x.errors.obs, x.errors.fact(x.group))
        health = board.facts.health.get(service)
        failing = health is not None and health.verdict in _FAILING
        if failing and health is not None:
            c.cite(health.obs, health.fact)
        # The wire agrees with the peer's side: a probe of it failing TLS on its own certificate.
        server_fault = any(
            p.host in peers and p.layer == layers.TLS
            for p in board.facts.probes.values()
        )
        confirmed = (failing or bool(owned)) and not server_fault
        c.status = "confirmed" if confirmed else "likely"
        c.confidence = max(c.confidence, 0.9 if confirmed else 0.6)
        c.chain = [
            board.symptom(),
            f"{service} logs: {short(line.said, 120)}",
            *(f"{service} logs: {short(x.said, 120)}" for x in owned[:1]),
            "the alert is the peer's answer: it verified the certificate "
            f"{service} presented and refused it",
            c.statement,
        ]
        c.keywords = [layers.TLS, service, "client certificate", "expired", "renew"]
        if server_fault:
            continue
        for host in peers:
            _explained(board.candidates.get(f"{layers.TLS}:{host}"), c)


def _explained(victim: Candidate | None, cause: Candidate) -> None:
    """`victim` fails because of `cause`: a symptom, kept as a lead below it."""
    if victim is None or victim is cause or victim.status == "ruled_out":
        return
    victim.status, victim.confidence = "likely", min(victim.confidence, 0.4)
    victim.statement += f"; a symptom of {cause.id}: {cause.statement}"


def issuer_failed_at_start(board: Board) -> None:
    """A service that exits at start because its own CA, issuer or certificate is expired or does not verify is a TLS fault of that certificate; when it issues identities, the workloads waiting for one are its victims."""
    for service, line in _first(board, own_material_invalid).items():
        issuer = bool(_ISSUER_WORDS.search(line.said) or _ISSUER_WORDS.search(service))
        dependents = _dependents(board, service) if issuer else {}
        c = board.get(
            layers.TLS,
            service,
            f"{service} cannot start: its own "
            f"{'issuer (CA) ' if issuer else ''}certificate is expired or does not verify; "
            + (
                "every workload that needs an identity from it fails after it"
                if issuer
                else "it must be renewed where it is issued"
            ),
        )
        c.cite(line.errors.obs, line.errors.fact(line.group))
        for obs, fact in list(dependents.values())[:3]:
            c.cite(obs, fact)
        health = board.facts.health.get(service)
        if health is not None and health.verdict in _FAILING:
            c.cite(health.obs, health.fact)
        confirmed = len(c.sources) >= 2 or len(dependents) >= 1
        c.status = "confirmed" if confirmed else "likely"
        c.confidence = max(c.confidence, 0.96 if confirmed else 0.7)
        c.chain = [
            board.symptom(),
            f"{service} logs at start: {short(line.said, 140)}",
            *(
                f"{name} waits for an identity from {service}: {short(fact, 100)}"
                for name, (_, fact) in list(dependents.items())[:2]
            ),
            c.statement,
        ]
        c.keywords = [layers.TLS, service, "issuer", "certificate expired", "rotate"]
        for name in dependents:
            for victim in list(board.candidates.values()):
                if victim is not c and _is(victim.component, name):
                    _explained(victim, c)


def _is(component: str, name: str) -> bool:
    """True when a candidate's component (`kind/name` or a name) is the workload `name`."""
    return component.rsplit("/", 1)[-1] == name


def _dependents(board: Board, service: str) -> dict[str, tuple[Observation, str]]:
    """Workloads whose lines say they wait for an identity from `service`: name → (observation, fact)."""

    def names(text: str) -> bool:
        return names_service(text, service) or any(
            belongs(h, service) for h in hosts_in(text)
        )

    found: dict[str, tuple[Observation, str]] = {}
    for errors in board.facts.errors.values():
        for group in (*errors.groups, *errors.warnings):
            if errors.service == service or group.is_stale:
                continue
            text = group.sample or group.signature
            if names(text) and _WAITS_FOR_IDENTITY.search(text):
                found.setdefault(errors.service, (errors.obs, errors.fact(group)))
    for obs in board.inv.observations:
        pod = arg(obs, "pod")
        if obs.tool != POD_LOGS or not obs.is_ok or not pod:
            continue
        for text in (obs.text or "").splitlines():
            if names(text) and _WAITS_FOR_IDENTITY.search(text):
                workload = _workload_of(pod)
                found.setdefault(
                    workload, (obs, short(f"pod_logs({pod}): {text.strip()}", 300))
                )
                break
    return found


_POD_SUFFIX: Final = re.compile(r"(?:-[a-z0-9]{6,10})?-[a-z0-9]{5}$")


def _workload_of(pod: str) -> str:
    """The workload a pod belongs to: its name without the ReplicaSet hash and pod suffix."""
    return _POD_SUFFIX.sub("", pod) or pod


# A workload failing to get a certificate from the service it names (a sidecar's SDS fetch, a
# proxy's identity client), or a line naming an identity component it fails to reach.
_FETCH_FAILS: Final = re.compile(
    r"\b(?:fail\w*|error|unable|cannot|could not|refused|timed? ?out|not ready|waiting|retry\w*)\b",
    re.IGNORECASE,
)
_ISSUER_LABEL: Final = re.compile(
    r"identity|issuer|istiod|citadel|spire|\bca\b|-ca\b|\bca-|cert", re.IGNORECASE
)
_SERVICE_SUFFIX: Final = re.compile(r"-(?:headless|svc|service|internal)$")
_MAX_ISSUERS = 2


def issuers_waited_on(facts: Facts) -> list[str]:
    """Services that workloads' lines say they fail to get an identity or certificate from: their own logs are what to read next."""
    found: list[str] = []
    for errors in facts.errors.values():
        for g in (*errors.groups, *errors.warnings):
            text = g.sample or g.signature
            if g.is_stale or not _WAITS_FOR_IDENTITY.search(text):
                continue
            if not _FETCH_FAILS.search(text):
                continue
            for host in hosts_in(text):
                name = _SERVICE_SUFFIX.sub("", host.split(".")[0])
                if not _ISSUER_LABEL.search(name):
                    continue  # a host named on the line that does not look like an issuer
                if (
                    name != errors.service
                    and name not in facts.errors
                    and name not in found
                ):
                    found.append(name)
    return found[:_MAX_ISSUERS]


def lacks_root(text: str) -> bool:
    """True when `text` is a client's verification failing for want of a trusted root (an unknown issuer), not a peer's alert."""
    return UNKNOWN_ISSUER.search(text) is not None and not received_alert(text)


def trust_store_lacks_root(board: Board) -> None:
    """A client that cannot build a path to a trusted root for a host (PKIX path building failed, signed by unknown authority, unable to get local issuer certificate) while a probe of that host verifies its chain lacks the root in its own trust store: a TLS fault of that client, not of the host."""
    for service, line in _first(board, lacks_root).items():
        hosts = hosts_in(line.said)
        verified = [
            p
            for p in board.facts.probes.values()
            if p.host in hosts and p.layer is None
        ]
        if not verified:
            continue  # no probe, or the host's chain fails for the probe too: its path
        probe = verified[0]
        store = [
            x
            for x in _own_lines(board, service, line.group)
            if _TRUST_STORE_LINE.search(x.said)
        ]
        c = board.get(
            layers.TLS,
            service,
            f"{service}'s trust store lacks the root that {probe.host}'s certificate chains "
            f"to: {service} cannot verify it, while a probe with a current trust store does; "
            "update its CA bundle or runtime, the host works",
        )
        c.cite(line.errors.obs, line.errors.fact(line.group))
        c.cite(probe.obs, probe.fact)
        for x in store[:1]:
            c.cite(x.errors.obs, x.errors.fact(x.group))
        c.status, c.confidence = "confirmed", max(c.confidence, 0.9)
        c.chain = [
            board.symptom(),
            f"{service} logs: {short(line.said, 140)}",
            f"probe of {probe.host}: every layer passes (its chain verifies)",
            *(f"{service} logs: {short(x.said, 120)}" for x in store[:1]),
            c.statement,
        ]
        c.keywords = [
            layers.TLS,
            service,
            probe.host,
            "trust store",
            "root CA",
            "cacerts",
        ]
        for victim in list(board.candidates.values()):
            if victim is not c and victim.component in (service, probe.host):
                _explained(victim, c)


def _own_lines(board: Board, service: str, skip: ErrorGroup) -> list[_Line]:
    """The service's other error and warning lines."""
    errors = board.facts.errors.get(service)
    if errors is None:
        return []
    return [
        _Line(errors, g) for g in (*errors.groups, *errors.warnings) if g is not skip
    ]
