"""A client whose trust store lacks a server's root (issue 21 classes 1 and 4), with invented names.

A client that cannot build a path to a trusted root for a host (Java's PKIX, Go's unknown
authority, Python's and Node's missing local issuer) while a probe of the same host verifies its
chain is a TLS fault of the client's own trust store (`certificates.trust_store_lacks_root`), not of
the host and not of the client's application code. Without such a probe, with a probe that fails
at TLS too, for an expired certificate or for an alert the peer sent, it does not apply.
"""

import pytest

from reasoning.layered.analysis import Analysis
from reasoning.layered.certificates import lacks_root
from reasoning.layered.facts import Facts
from reasoning.observations import IncidentBrief, Investigation, Observation

HOST = "api.levy-engine.example"
URL = f"https://{HOST}/v3/levies"


def _brief():
    return IncidentBrief(
        title="basket totals missing",
        service="basket",
        severity="sev2",
        symptoms=(),
        window_start="2031-06-01T10:00:00Z",
        window_end="2031-06-01T11:00:00Z",
    )


def _obs(n, server, tool, arguments, result):
    return Observation(
        span_id=f"t{n}",
        agent="test",
        server=server,
        tool=tool,
        arguments=arguments,
        is_ok=True,
        result=result,
    )


def _probe(failed_layer="none", reason=None):
    return _obs(
        1,
        "netcheck",
        "probe_url",
        {"url": URL},
        {
            "url": URL,
            "status": 200 if failed_layer == "none" else None,
            "failed_layer": failed_layer,
            "reason": reason,
            "evidence": [],
        },
    )


def _errors(n, service, *messages, warnings=()):
    def group(message):
        return {"signature": message, "count": 40, "sample": message, "before": 0}

    return _obs(
        n,
        "logs",
        "top_errors",
        {"service": service, "warnings": True, "baseline_s": 3600},
        {
            "service": service,
            "top": [group(m) for m in messages],
            "warnings": [group(m) for m in warnings],
        },
    )


def _analysis(*observations):
    inv = Investigation(incident=_brief(), tools=[])
    inv.observations.extend(observations)
    return Analysis(inv, Facts.read(inv.observations))


GO_UNKNOWN = (
    f'levy lookup failed: Post "{URL}": tls: failed to verify certificate: '
    "x509: certificate signed by unknown authority"
)
PYTHON_ISSUER = (
    f"HTTPSConnectionPool(host='{HOST}', port=443): Max retries exceeded with url: /v3/levies "
    "(Caused by SSLError(SSLCertVerificationError(1, '[SSL: CERTIFICATE_VERIFY_FAILED] "
    "certificate verify failed: unable to get local issuer certificate (_ssl.c:1006)')))"
)
NODE_ISSUER = (
    f"request to {URL} failed, reason: unable to get local issuer certificate "
    "(code UNABLE_TO_GET_ISSUER_CERT_LOCALLY)"
)
JAVA_PKIX = (
    f"POST {URL} failed: javax.net.ssl.SSLHandshakeException: PKIX path building failed: "
    "sun.security.provider.certpath.SunCertPathBuilderException: unable to find valid "
    "certification path to requested target"
)


def test_an_unknown_issuer_is_told_from_expiry_and_from_an_alert_the_peer_sent():
    for text in (GO_UNKNOWN, PYTHON_ISSUER, NODE_ISSUER, JAVA_PKIX):
        assert lacks_root(text)
    assert not lacks_root(
        f"GET {URL}: x509: certificate has expired or is not yet valid"
    )
    assert not lacks_root(
        "transport: authentication handshake failed: remote error: tls: "
        "unknown certificate authority"
    )
    assert not lacks_root(f"GET {URL}: 503 Service Unavailable")


@pytest.mark.rule("board.trust-store-lacks-root")
@pytest.mark.parametrize("line", [GO_UNKNOWN, PYTHON_ISSUER, NODE_ISSUER])
def test_a_client_that_finds_no_trusted_root_while_the_probe_verifies_is_its_trust_store(
    line,
):
    a = _analysis(_probe(), _errors(2, "levy-client", line))

    c = a.candidates["tls:levy-client"]
    assert c.status == "confirmed" and c.confidence >= 0.9
    assert "trust store" in c.statement
    assert {e.tool for e in c.evidence} >= {"probe_url", "top_errors"}
    assert a.ranked()[0].component == "levy-client"


@pytest.mark.rule("board.trust-store-lacks-root")
def test_the_runtime_line_naming_the_trust_store_is_cited_and_the_app_fault_is_a_symptom():
    runtime = (
        "levy-client 2.1 on java.runtime.version=1.8.0_121 trustStore=<default cacerts>"
    )
    a = _analysis(_probe(), _errors(2, "levy-client", JAVA_PKIX, warnings=[runtime]))

    c = a.candidates["tls:levy-client"]
    assert any("cacerts" in e.fact for e in c.evidence)
    app = a.candidates.get("application:levy-client")
    assert app is None or app.confidence <= 0.4


def test_a_probe_that_fails_tls_too_leaves_it_on_the_hosts_path():
    a = _analysis(_probe("tls", "unknown_ca"), _errors(2, "levy-client", GO_UNKNOWN))

    assert "tls:levy-client" not in a.candidates


def test_without_a_probe_of_that_host_or_for_an_expired_certificate_it_does_not_apply():
    alone = _analysis(_errors(2, "levy-client", GO_UNKNOWN))
    expired = _analysis(
        _probe(),
        _errors(2, "levy-client", f"GET {URL}: x509: certificate has expired"),
    )
    other = _analysis(
        _probe(),
        _errors(2, "levy-client", GO_UNKNOWN.replace(HOST, "vault.other.example")),
    )

    for a in (alone, expired, other):
        assert "tls:levy-client" not in a.candidates


@pytest.mark.timeout(60)
def test_a_huge_line_is_read_in_bounded_time():
    line = "PKIX " * 40_000 + JAVA_PKIX + " x509" * 10_000
    assert lacks_root(line)
    _analysis(_probe(), _errors(2, "levy-client", line))
