"""Issue 21 class 5: a TLS failure's confidence follows its evidence, not the incident's words.

- A warning, new since the window started, that names the probed host and shows the same TLS
  failure (a client's failing calls to it, logged at warn level) corroborates the probe.
- A certificate found expired inside the incident's window, while the incident's service lost
  most of its traffic without errors, is confirmed by those metrics (`reasoning.layered.expiry`).
- Neither holds for a warning logged before the window, naming another host, or for a certificate
  that expired before the window, or a service whose traffic held or whose errors rose: the probe
  alone stays a lead.
"""

import pytest

from reasoning.layered.analysis import Analysis
from reasoning.layered.facts import Facts
from reasoning.observations import IncidentBrief, Investigation, Observation

HOST = "keystore.acme.lan"
URL = f"https://{HOST}:8443/v2/health"
X509 = (
    f'renew token failed: Post "https://{HOST}:8443/v2/renew": '
    "x509: certificate has expired or is not yet valid"
)


def brief(service="ledger"):
    return IncidentBrief(
        title="ledger stalls",
        service=service,
        severity="sev2",
        symptoms=("ledger entries stop being written",),
        window_start="2031-03-04T05:00:00Z",
        window_end="2031-03-04T06:00:00Z",
    )


def obs(n, server, tool, arguments, result):
    return Observation(
        span_id=f"t{n}",
        agent="test",
        server=server,
        tool=tool,
        arguments=arguments,
        is_ok=True,
        result=result,
    )


def expired_probe(not_after="2031-03-04T05:20:00+00:00"):
    return obs(
        1,
        "netcheck",
        "probe_url",
        {"url": URL},
        {
            "url": URL,
            "status": None,
            "failed_layer": "tls",
            "reason": "certificate_expired",
            "evidence": ["certificate expired: certificate has expired"],
            "certificate": {"not_after": not_after, "expires_in_days": -0.1},
        },
    )


def warned(service, message, before=0):
    group = {"signature": message, "count": 12, "sample": message, "before": before}
    return obs(
        2,
        "logs",
        "top_errors",
        {"service": service, "warnings": True, "baseline_s": 3600},
        {"service": service, "top": [], "warnings": [group]},
    )


def traffic(service, start, current, error_ratio=0.0):
    return obs(
        3,
        "metrics",
        "service_health",
        {"service": service},
        {
            "service": service,
            "verdict": "healthy",
            "summary": "healthy: all signals within thresholds",
            "findings": [],
            "signals": {
                "requests_per_s": {"start": start, "current": current},
                "error_ratio": {"start": 0.0, "current": error_ratio},
            },
            "thresholds": {"error_ratio": {"warning": 0.01, "critical": 0.05}},
        },
    )


def tls_hypothesis(*observations):
    inv = Investigation(incident=brief(), tools=[])
    inv.observations.extend(observations)
    analysis = Analysis(inv, Facts.read(inv.observations))
    return analysis.candidates[f"tls:{HOST}"]


@pytest.mark.rule("probe.corroborate")
def test_a_new_warning_naming_the_host_with_the_tls_failure_confirms_the_probe():
    c = tls_hypothesis(expired_probe(), warned("ledger-sync", X509))

    assert c.status == "confirmed" and c.confidence >= 0.9
    assert any("x509" in e.fact for e in c.evidence)
    assert any(line.startswith("ledger-sync warns:") for line in c.chain)


def test_a_warning_logged_before_the_window_too_does_not_confirm_it():
    c = tls_hypothesis(expired_probe(), warned("ledger-sync", X509, before=40))

    assert c.status == "likely" and c.confidence < 0.6


def test_a_tls_warning_about_another_host_does_not_confirm_it():
    other = X509.replace(HOST, "vault.acme.lan")
    c = tls_hypothesis(expired_probe(), warned("ledger-sync", other))

    assert c.status == "likely" and c.confidence < 0.6


@pytest.mark.rule("probe.certificate-expired")
def test_expiry_inside_the_window_as_the_service_loses_its_traffic_confirms_it():
    c = tls_hypothesis(expired_probe(), traffic("ledger", start=42.0, current=1.5))

    assert c.status == "confirmed" and c.confidence >= 0.9
    assert any(e.tool == "service_health" for e in c.evidence)
    assert any("traffic fell" in line for line in c.chain)


@pytest.mark.rule("probe.certificate-expired")
def test_expiry_before_the_window_gets_no_support_from_the_traffic():
    c = tls_hypothesis(
        expired_probe(not_after="2031-03-01T00:00:00+00:00"),
        traffic("ledger", start=42.0, current=1.5),
    )

    assert c.status == "likely" and c.confidence < 0.6


def test_traffic_that_held_or_errors_that_rose_give_no_support():
    held = tls_hypothesis(expired_probe(), traffic("ledger", start=42.0, current=40.0))
    failing = tls_hypothesis(
        expired_probe(), traffic("ledger", start=42.0, current=1.5, error_ratio=0.2)
    )

    assert held.status == "likely" and held.confidence < 0.6
    assert failing.status == "likely" and failing.confidence < 0.6
