"""An admission webhook the API server does not trust (issue 21 items 1 and 4): a create refused
because the call to the webhook failed its TLS handshake blames the webhook at tls, not its back end
at admission (reasoning/layered/kubernetes/webhook_tls.py)."""

import pytest

from reasoning import layers
from reasoning.layered.facts import Facts
from reasoning.layered.kubernetes.webhook_tls import tls_failure
from reasoning.observations import Observation

from .test_quiet_backends import (
    POD_COLUMNS,
    deployments,
    elsewhere,
    events,
    found,
    investigation,
    pods,
    services,
)

UNKNOWN_CA = (
    'Error creating: Internal error occurred: failed calling webhook "inject.meshcorp.example": '
    'failed to call webhook: Post "https://sidecar-inject-svc.mesh-sys.svc:443/inject?timeout=10s": '
    "tls: failed to verify certificate: x509: certificate signed by unknown authority"
)
EXPIRED = (
    'Error creating: admission webhook "validate.quotas.example" failed: Internal error occurred: '
    'failed calling webhook "validate.quotas.example": failed to call webhook: Post '
    '"https://quota-guard.guard-ns.svc:8443/validate?timeout=5s": x509: certificate has expired '
    "or is not yet valid: current time 2031-03-02T11:40:02Z is after 2031-03-01T00:00:00Z"
)
NO_ENDPOINTS = (
    'Error creating: Internal error occurred: failed calling webhook "inject.meshcorp.example": '
    'failed to call webhook: Post "https://sidecar-inject-svc.mesh-sys.svc:443/inject?timeout=10s": '
    'no endpoints available for service "sidecar-inject-svc"'
)


def _cluster(message: str, owner: str = "Job/nightly-payout-2931") -> list:
    return [
        pods(
            (
                "ledger-api-6d8f9c7b5-aaaaa",
                "1/1",
                "Running",
                "0",
                "4d",
                "app=ledger-api",
            )
        ),
        deployments(("ledger-api", "1/1")),
        services("ledger-api"),
        events(("Warning", "FailedCreate", owner, message)),
        elsewhere(
            "pods",
            "mesh-sys",
            POD_COLUMNS,
            (
                "sidecar-inject-7c9d8b6f5-qqqqq",
                "1/1",
                "Running",
                "0",
                "30d",
                "10.1.0.9",
                "node-b",
                "app=sidecar-inject",
            ),
        ),
    ]


def _backend_logs(service: str, message: str) -> Observation:
    group = {"signature": message, "sample": message, "count": 25, "before": 0}
    return Observation(
        span_id=f"logs-{service}",
        agent="logs",
        server="logs",
        tool="top_errors",
        arguments={"service": service, "warnings": True, "baseline_s": 3600},
        is_ok=True,
        result={"service": service, "top": [group], "warnings": []},
    )


@pytest.mark.rule("k8s.admission-webhook-tls")
def test_a_webhook_whose_certificate_has_an_unknown_authority_is_the_fault_at_tls():
    handshake = _backend_logs(
        "sidecar-inject",
        "http: TLS handshake error from 10.0.0.12:5511: remote error: tls: bad certificate",
    )
    inv = investigation("ledger-api", *_cluster(UNKNOWN_CA), handshake)

    faults = found(inv)

    hook = faults["inject.meshcorp.example"]
    assert (hook.stage, hook.reason, hook.layer) == (
        "admission",
        "WebhookCertificate",
        layers.TLS,
    )
    assert "caBundle" in hook.statement
    facts = [fact for _, fact in hook.evidence]
    assert any("x509: certificate signed by unknown authority" in f for f in facts)
    assert any("TLS handshake error" in f for f in facts)  # the back end's side
    assert "job/nightly-payout-2931" in hook.explains
    # The back end answers: it is not blamed at admission for the refusal.
    assert not any(
        f.reason == "FailedCreate" and "sidecar-inject" in c for c, f in faults.items()
    )


@pytest.mark.rule("k8s.admission-webhook-tls")
def test_a_validating_webhook_whose_certificate_expired_is_the_fault_at_platform():
    # Its renewal failed: the webhook cannot serve at all, like a back end that is down; a trust
    # that does not match (an unknown authority, another name) stays at tls.
    inv = investigation(
        "ledger-api", *_cluster(EXPIRED, "ReplicaSet/ledger-api-6d8f9c7b5")
    )

    hook = found(inv)["validate.quotas.example"]

    assert hook.layer == layers.PLATFORM
    assert "expired" in hook.statement
    assert "quota-guard" in hook.statement


@pytest.mark.rule("k8s.admission-webhook-tls")
def test_a_webhook_without_endpoints_is_no_certificate_fault():
    faults = found(investigation("ledger-api", *_cluster(NO_ENDPOINTS)))

    assert "inject.meshcorp.example" not in faults
    assert all(f.layer != layers.TLS for f in faults.values())


def test_the_handshake_failures_a_webhook_call_names():
    assert tls_failure(UNKNOWN_CA)[0].startswith("the serving certificate is signed")
    assert "expired" in tls_failure(EXPIRED)[0]
    assert tls_failure(
        "x509: certificate is valid for quota-guard.default.svc, not quota-guard.guard-ns.svc"
    ) == (
        "the serving certificate is issued for another name",
        "its back end serves a certificate issued for another name than its service's",
    )
    assert tls_failure(NO_ENDPOINTS) is None
    assert (
        tls_failure('admission webhook "x" denied the request: image unsigned') is None
    )
    assert Facts.read([]).errors == {}


@pytest.mark.rule("k8s.admission-webhook-tls")
def test_a_webhook_called_by_url_outside_the_cluster_is_named_by_itself():
    outside = (
        'Error creating: Internal error occurred: failed calling webhook "scan.imagetrust.example": '
        'failed to call webhook: Post "https://hooks.imagetrust.example/scan": tls: failed to '
        "verify certificate: x509: certificate has expired or is not yet valid"
    )
    hook = found(investigation("ledger-api", *_cluster(outside)))[
        "scan.imagetrust.example"
    ]

    assert hook.layer == layers.PLATFORM  # expired: its renewal failed
    assert "called by URL" in hook.statement
