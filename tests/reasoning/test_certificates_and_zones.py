"""Identity and naming infrastructure at fault while the loud symptom is on callers (issue 21 classes 1 and 4), with invented names:

- a TLS alert received from the peer refuses the logging service's own certificate: the service
  presenting it is at fault, not the peer (`certificates.refused_own_certificate`); a client
  verifying the server's chain stays the server host's path;
- a service exiting at start because its own CA or issuer certificate expired is the root, and the
  workloads waiting for an identity from it are its victims (`certificates.issuer_failed_at_start`);
- a name that stops resolving just after a zone for one of its parent domains was created (a
  private zone, a stub domain) is the zone's fault, not the name's (`dns_zones.shadowing_zone`).
"""

import pytest

from reasoning.layered.certificates import own_material_invalid, received_alert
from reasoning.layered.dns_zones import ZoneChange, parents, search_pattern
from tests.reasoning.test_planner import World, health, incident
from tests.reasoning.test_warnings_and_changes import (
    FAILING,
    NO_NETCHECK,
    group,
    lines,
    logged,
    run_with_schemas,
)


def _standing(report):
    return [h for h in report.hypotheses if h.status != "ruled_out"]


def _by_id(report, key):
    return next(h for h in report.hypotheses if h.id == key)


# --- an alert refusing the logging side's own certificate ----------------------------------------


def test_alerts_the_peer_sent_are_told_from_the_callers_own_verification():
    # The peer refused our certificate: Go/gRPC, Java, OpenSSL, Python, BoringSSL (Envoy), Node.
    assert received_alert(
        'rpc error: code = Unavailable desc = connection error: desc = "transport: '
        'authentication handshake failed: remote error: tls: bad certificate"'
    )
    assert received_alert(
        "SSLHandshakeException: Received fatal alert: bad_certificate"
    )
    assert received_alert(
        "[SSL: SSLV3_ALERT_CERTIFICATE_EXPIRED] sslv3 alert certificate expired (_ssl.c:2580)"
    )
    assert received_alert(
        "TLS error: 268436501:SSL routines:OPENSSL_internal:SSLV3_ALERT_CERTIFICATE_EXPIRED"
    )
    assert received_alert("write EPROTO ... SSL alert number 42")
    assert received_alert(
        "transport: authentication handshake failed: tls: unknown certificate authority"
    )
    # Verifying the server's certificate ourselves is about the server's certificate.
    assert not received_alert(
        "GET https://ledger.example/v1: x509: certificate has expired or is not yet valid"
    )
    assert not received_alert(
        "certificate verify failed: unable to get local issuer certificate"
    )


GRPC_REFUSED = (
    "settle batch 4411 failed: rpc error: code = Unavailable desc = connection error: desc = "
    '"transport: authentication handshake failed: remote error: tls: bad certificate" '
    "(target clearing.fabrikam-rails.example:443)"
)


@pytest.mark.rule("board.own-certificate-refused")
def test_a_grpc_client_refused_with_bad_certificate_is_its_own_certificate():
    world = World(
        {
            ("service_health", "settlement"): health(
                "settlement", "unhealthy", FAILING
            ),
            ("top_errors", "settlement"): logged(
                "settlement",
                errors=[group(GRPC_REFUSED, count=240)],
                warnings=[
                    group(
                        "mTLS client certificate CN=settlement.contoso-pay.example "
                        "notAfter 2030-01-01T10:10:00Z is in the past"
                    )
                ],
            ),
            ("search_logs", ""): lines(),
        }
    )

    _, _, report = run_with_schemas(
        world, incident("settlement", "settlements stuck"), names=NO_NETCHECK
    )

    assert report.top.id == "tls:settlement"
    assert report.top.status == "confirmed" and report.conclusive
    assert "CN=settlement.contoso-pay.example" in report.top.statement
    assert "bad certificate" in " ".join(e.fact for e in report.top.evidence)
    peer = _by_id(report, "tls:clearing.fabrikam-rails.example")
    assert peer.status == "likely" and peer.confidence <= 0.4


@pytest.mark.rule("board.own-certificate-refused")
def test_an_openssl_expired_alert_with_no_certificate_line_is_confirmed_by_failing_metrics():
    refused = (
        "upload to https://files.partner-depot.example/inbox failed: "
        "[SSL: SSLV3_ALERT_CERTIFICATE_EXPIRED] sslv3 alert certificate expired (_ssl.c:2580)"
    )
    world = World(
        {
            ("service_health", "edi-push"): health("edi-push", "degraded", FAILING),
            ("top_errors", "edi-push"): logged("edi-push", errors=[group(refused)]),
            ("search_logs", ""): lines(),
        }
    )

    _, _, report = run_with_schemas(
        world, incident("edi-push", "partner files missing"), names=NO_NETCHECK
    )

    assert report.top.id == "tls:edi-push" and report.top.status == "confirmed"


def test_a_client_that_cannot_verify_the_server_blames_the_servers_host():
    failing = (
        "GET https://rates.vendor-q.example/v2/fx failed: x509: certificate has expired "
        "or is not yet valid"
    )
    world = World(
        {
            ("service_health", "fx-quotes"): health("fx-quotes", "unhealthy", FAILING),
            ("top_errors", "fx-quotes"): logged("fx-quotes", errors=[group(failing)]),
            ("search_logs", ""): lines(),
        }
    )

    _, _, report = run_with_schemas(
        world, incident("fx-quotes", "quotes fail"), names=NO_NETCHECK
    )

    assert report.top.id == "tls:rates.vendor-q.example"
    assert all(h.id != "tls:fx-quotes" for h in report.hypotheses)


# --- an identity issuer that cannot start --------------------------------------------------------


def test_a_start_failure_on_the_services_own_ca_is_told_from_a_call_to_a_remote():
    assert own_material_invalid(
        'level=fatal msg="failed to load CA keypair from /etc/cacerts: x509: certificate '
        'has expired or is not yet valid"'
    )
    assert own_material_invalid(
        "[ERROR] agent.server.connect: failed to initialize CA provider: "
        "x509: certificate signed by unknown authority; exiting"
    )
    # A client's call to a remote that fails verification at start is the remote's certificate.
    assert not own_material_invalid(
        "fatal: failed to start: dial tcp db.prod.example:5432: x509: certificate has expired"
    )
    assert not own_material_invalid(
        "x509: certificate has expired"
    )  # nothing of its own


ISTIOD_FATAL = (
    "fatal\tfailed to create CA: failed to load signing key pair from /etc/cacerts "
    "(cert-manager issuer mesh-ca): x509: certificate has expired or is not yet valid"
)
SDS_WAIT = (
    "warning envoy: failed to fetch workload certificate from istiod.istio-system.svc:15012: "
    "connection refused; identity not ready, retrying"
)


@pytest.mark.rule("board.issuer-failed-at-start")
def test_an_expired_mesh_ca_makes_the_identity_service_the_root_not_the_waiting_workloads():
    world = World(
        {
            ("service_health", "checkout"): health("checkout", "unhealthy", FAILING),
            ("top_errors", "checkout"): logged(
                "checkout",
                errors=[
                    group(
                        "POST /pay 503: upstream connect error (istio-proxy not ready)"
                    )
                ],
                warnings=[group(SDS_WAIT, count=60)],
            ),
            ("top_errors", "istiod"): logged(
                "istiod", errors=[group(ISTIOD_FATAL, count=12)]
            ),
            ("search_logs", ""): lines(),
        }
    )

    _, _, report = run_with_schemas(
        world, incident("checkout", "checkout fails"), names=NO_NETCHECK
    )

    # The workload's line names the issuer it waits for: its logs are read.
    assert ("top_errors", "istiod") in world.asked
    assert report.top.id == "tls:istiod"
    assert report.top.status == "confirmed" and report.conclusive
    cited = " ".join(e.fact for e in report.top.evidence)
    assert "x509: certificate has expired" in cited and "workload certificate" in cited
    assert all(h.confidence <= 0.5 for h in report.hypotheses if "checkout" in h.id)


@pytest.mark.rule("board.issuer-failed-at-start")
def test_a_connect_ca_that_cannot_start_alone_is_a_lead():
    fatal = (
        "[ERROR] agent.server.connect: failed to initialize CA provider: "
        "x509: certificate has expired; exiting"
    )
    world = World(
        {
            ("top_errors", "orders"): logged(
                "orders", errors=[group("GET /orders 500: upstream reset (consul-ca)")]
            ),
            ("top_errors", "consul-ca"): logged("consul-ca", errors=[group(fatal)]),
            ("search_logs", ""): lines(),
        }
    )

    _, _, report = run_with_schemas(
        world, incident("orders", "orders fail", "consul-ca down"), names=NO_NETCHECK
    )

    ca = _by_id(report, "tls:consul-ca")
    assert ca.status == "likely" and 0.5 <= ca.confidence < 0.9


# --- a zone of a parent domain shadowing a name ---------------------------------------------------


def test_parents_and_the_search_pattern():
    assert parents("sso.acme-corp.com") == ["acme-corp.com"]
    assert parents("a.b.corp.example.io.") == [
        "b.corp.example.io",
        "corp.example.io",
        "example.io",
    ]
    assert parents("example.io") == []
    assert parents("x.a.b.c.d.e.example.io")[-1] == "example.io"  # the widest kept
    pattern = search_pattern(["sso.acme-corp.com"])
    assert "acme\\-corp\\.com" in pattern or "acme-corp\\.com" in pattern


SSO_FAILS = (
    "token exchange failed: Get https://sso.acme-corp.com/oauth/keys: "
    "dial tcp: lookup sso.acme-corp.com on 169.254.169.254:53: no such host"
)


def _zone_world(zone_line, at="2030-01-01T10:05:00Z"):
    return World(
        {
            ("service_health", "portal"): health("portal", "unhealthy", FAILING),
            ("top_errors", "portal"): logged(
                "portal",
                errors=[group(SSO_FAILS, count=80, first_seen="2030-01-01T10:12:00Z")],
            ),
            ("search_logs", ""): lines(("cloud-audit", at, zone_line)),
        }
    )


@pytest.mark.rule("board.shadowing-zone")
def test_a_private_cloud_dns_zone_created_for_the_apex_shadows_a_public_name():
    world = _zone_world(
        "gcloud dns managed-zones create corp-private --dns-name=acme-corp.com. "
        "--visibility=private --networks=prod-vpc: created"
    )

    _, _, report = run_with_schemas(
        world, incident("portal", "nobody can log in"), names=NO_NETCHECK
    )

    zone_search = [
        a for t, a in world.arguments if t == "search_logs" and "stub" in a["query"]
    ]
    assert zone_search and zone_search[0]["regex"] is True
    assert report.top.id == "dns:acme-corp.com"
    assert report.top.status == "confirmed" and report.conclusive
    assert "managed-zones/" not in report.top.statement  # only ids the line names
    leaf = _by_id(report, "dns:sso.acme-corp.com")
    assert leaf.status == "likely" and leaf.confidence <= 0.4


@pytest.mark.rule("board.shadowing-zone")
def test_a_coredns_stub_domain_added_for_a_parent_shadows_the_name():
    world = _zone_world(
        "configmap/coredns edited by ci-bot: new stub domain acme-corp.com -> 10.40.0.53 "
        "(CHG-2231)"
    )

    _, _, report = run_with_schemas(
        world, incident("portal", "nobody can log in"), names=NO_NETCHECK
    )

    assert report.top.id == "dns:acme-corp.com"
    assert "CHG-2231" in " ".join(e.fact for e in report.top.evidence)


def test_a_zone_removed_or_created_after_the_failures_began_leaves_the_name():
    removed = _zone_world(
        "configmap/coredns configured: forward . /etc/resolv.conf replaces the stub zone "
        "for acme-corp.com"
    )
    late = _zone_world(
        "route53: private hosted zone acme-corp.com created and associated with vpc-77",
        at="2030-01-01T10:30:00Z",
    )

    for world in (removed, late):
        _, _, report = run_with_schemas(
            world, incident("portal", "nobody can log in"), names=NO_NETCHECK
        )
        assert report.top.id == "dns:sso.acme-corp.com"
        assert all(h.id != "dns:acme-corp.com" for h in report.hypotheses)


# --- hostile input --------------------------------------------------------------------------------


@pytest.mark.timeout(60)
def test_hostile_lines_are_read_in_linear_time():
    # Ten times the size a quadratic read already takes seconds on; bounded by the timeout, not by
    # a wall-clock assertion that flakes on a loaded machine.
    for hostile in (
        "received " + "alert " * 200_000,
        "remote error: tls: " + "a" * 200_000,
        "failed to read " + "ca " * 70_000 + "x509: " + "e" * 200_000,
        "fatal " + "x509: " * 40_000,
        "zone created " + "a_" * 200_000 + "zone." + "b" * 200_000,
    ):
        received_alert(hostile)
        own_material_invalid(hostile)
        ZoneChange(None, "x", None, hostile, "example.io").zone_id  # noqa: B018
    assert parents("a." * 100_000 + "io")[-1] == "a.io"
