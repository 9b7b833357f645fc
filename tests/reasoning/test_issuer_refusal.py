"""A certificate issuer refusing to issue (`issuer_refusal`), with invented names: the proxy that
requests the certificates is the TLS fault, not the host name a probe finds without one.
"""

import pytest

from reasoning.layered.issuer_refusal import QUERY, refused_issuance
from tests.reasoning.test_planner import World, health, incident, probe, targets
from tests.reasoning.test_warnings_and_changes import run_with_schemas

SITE = "https://tienda.granja-azul.example"
OLD_SITE = "https://www.molino-viejo.example"
REFUSAL = (
    'time=2030-01-01T10:12:07Z level=error component=certmgr msg="order failed" '
    "domain=kiosk.luna-tejidos.example ca=https://pki.vellum-trust.example/acme/dir "
    'error="status 429: too many certificates already issued for this account this week"'
)


def _world(*entries):
    return World(
        {
            ("service_health", "storefronts"): health("storefronts", "healthy"),
            ("list_targets", ""): targets(SITE, OLD_SITE),
            ("probe_url", SITE): probe(
                SITE,
                "tls",
                "certificate_name_mismatch",
                ["certificate is not valid for 'tienda.granja-azul.example'"],
            ),
            ("probe_url", OLD_SITE): probe(OLD_SITE, status=200),
            ("search_logs", ""): {
                "lines": [
                    {
                        "service": s,
                        "time": "2030-01-01T10:12:07Z",
                        "level": "error",
                        "message": m,
                        "labels": {},
                    }
                    for s, m in entries
                ]
            },
        }
    )


@pytest.mark.rule("board.issuer-refused")
def test_a_proxy_whose_issuer_rate_limits_it_is_the_tls_fault_not_the_site():
    world = _world(("gatekeeper", REFUSAL), ("gatekeeper", REFUSAL))

    _, _, report = run_with_schemas(
        world, incident("storefronts", "certificate warning on new stores")
    )

    assert any(
        t == "search_logs" and a.get("query") == QUERY for t, a in world.arguments
    )
    assert report.top.id == "tls:gatekeeper"
    assert report.top.status == "confirmed"
    facts = " ".join(e.fact for e in report.top.evidence)
    assert "too many certificates already issued" in facts
    site = next(
        h for h in report.hypotheses if h.id == "tls:tienda.granja-azul.example"
    )
    assert site.confidence <= 0.4


@pytest.mark.rule("board.issuer-refused")
def test_without_a_refusal_the_site_keeps_its_tls_finding():
    world = _world(
        ("gatekeeper", "certificate obtained for kiosk.luna-tejidos.example"),
        ("billing", "429 too many requests from tenant 7731"),
    )

    _, _, report = run_with_schemas(
        world, incident("storefronts", "certificate warning on new stores")
    )

    assert report.top.id == "tls:tienda.granja-azul.example"
    assert all(h.id != "tls:gatekeeper" for h in report.hypotheses)


def test_refused_issuance_reads_an_issuers_words_not_any_limit():
    assert refused_issuance(REFUSAL)
    assert refused_issuance(
        '{"logger":"tls.obtain","error":"HTTP 429 urn:ietf:params:acme:error:rateLimited"}'
    )
    assert refused_issuance(
        "ManagedCertificate quota exceeded: cannot provision certificate for shop-9"
    )
    assert not refused_issuance("429 too many requests from tenant 7731")
    assert not refused_issuance("certificate obtained for kiosk.luna-tejidos.example")
    assert not refused_issuance("rate limit reached for /api/carts")


@pytest.mark.timeout(60)
def test_hostile_lines_are_read_quickly():
    for hostile in (
        "certificate " + "a" * 300_000 + " rate limit",
        "too many " * 50_000,
        "acme " * 60_000 + "429",
        "x" * 1_000_000,
    ):
        refused_issuance(hostile)
    assert len(QUERY) <= 500
