"""Refusals whose cause is a filter, an allow-list or a mesh policy, not the service that seems to fail.

A 403 answered by a WAF or ACL in front of a host, a browser's cross-origin call refused by a
gateway's CORS allow-list, a plaintext caller reset by a mesh that went mutual-TLS-only: each is
read from the refusing party's own line (the filter's block line, the refusal warning, the
sidecar's "no filter chain") and, when one is in view, the change that began it.
"""

import pytest

from reasoning.layered import cors, edge_filters, mesh_mtls
from reasoning.observations import Observation
from tests.reasoning.test_planner import World, health, incident, probe, targets
from tests.reasoning.test_warnings_and_changes import (
    FAILING,
    group,
    lines,
    logged,
    run_with_schemas,
)

FEED = "https://feeds.lumen.example:9443"
FEED_ERROR = "push to https://feeds.lumen.example/api/feeds/ingest failed: 403 Forbidden, 120 batches queued"
DENIED = (
    "verdict action=DENY acl=perimeter-fw rule_id=geo-block-eu label=CountryEU "
    "uri=/api/feeds/ingest src=52.1.2.3"
)


class SearchWorld(World):
    """A World whose every-service log searches are answered by their query."""

    def __init__(self, answers, searches):
        super().__init__(answers)
        self.searches = searches

    def answer(self, call, span_id):
        query = call.arguments.get("query")
        if call.tool == "search_logs" and not call.arguments.get("service"):
            self.asked.append((call.tool, query))
            return Observation(
                span_id=span_id,
                agent=call.agent,
                server=call.server,
                tool=call.tool,
                arguments=call.arguments,
                is_ok=True,
                result=self.searches.get(query, lines()),
            )
        return super().answer(call, span_id)


def _filter_world(blocks, changes=()):
    return SearchWorld(
        {
            ("service_health", "feed-pusher"): health(
                "feed-pusher", "unhealthy", FAILING
            ),
            ("top_errors", "feed-pusher"): logged(
                "feed-pusher", errors=[group(FEED_ERROR, count=80)]
            ),
            ("list_targets", ""): targets(FEED),
            ("probe_url", FEED): probe(
                FEED,
                "http",
                "http_403",
                ["HTTP 403 Forbidden"],
                status=403,
                body="denied",
            ),
        },
        {
            edge_filters.BLOCK_QUERY: lines(*blocks),
            edge_filters.change_pattern("geo-block-eu"): lines(*changes),
        },
    )


@pytest.mark.rule("board.edge-filters")
def test_a_403_whose_filter_logs_the_block_blames_the_filter_and_cites_its_rule():
    world = _filter_world(
        [("edge-firewall", "2030-01-01T10:40:00Z", DENIED)],
        [
            (
                "infra-deployer",
                "2030-01-01T09:58:00Z",
                "perimeter-fw: rule geo-block-eu enabled (change 4411)",
            )
        ],
    )
    _, _, report = run_with_schemas(world, incident("feed-pusher", "feeds stopped"))

    assert report.top.id == "http:perimeter-fw"
    assert report.top.status == "confirmed" and report.conclusive
    cited = " ".join(e.fact for e in report.top.evidence)
    assert "CountryEU" in cited and "enabled" in cited
    host = next(h for h in report.hypotheses if h.id == "http:feeds.lumen.example")
    assert host.status == "ruled_out"


@pytest.mark.rule("board.edge-filters")
def test_a_block_line_on_another_path_or_without_a_rule_blames_no_filter():
    world = _filter_world(
        [
            (
                "edge-firewall",
                "2030-01-01T10:40:00Z",
                DENIED.replace("/api/feeds", "/admin"),
            ),
            ("auth-proxy", "2030-01-01T10:41:00Z", "login denied for user 77"),
        ]
    )
    _, _, report = run_with_schemas(world, incident("feed-pusher", "feeds stopped"))

    assert not any(h.id == "http:perimeter-fw" for h in report.hypotheses)


SHOP_REFUSAL = "preflight OPTIONS /v2/basket refused: Origin https://m.lumen.example is not in the allow list"


def _cors_world(changes):
    return SearchWorld(
        {
            ("service_health", "edge-api"): health("edge-api", "degraded", FAILING),
            ("list_targets", ""): targets(),
            ("top_errors", "edge-api"): logged(
                "edge-api", warnings=[group(SHOP_REFUSAL, count=900)]
            ),
        },
        {cors.QUERY: lines(*changes)},
    )


@pytest.mark.rule("board.cors")
def test_a_cors_refusal_after_its_allow_list_changed_is_a_conclusive_http_fault():
    world = _cors_world(
        [
            (
                "edge-api",
                "2030-01-01T10:14:00Z",
                "settings reloaded: CORS allow-list set to [https://lumen.example]",
            )
        ]
    )
    _, _, report = run_with_schemas(
        world, incident("edge-api", "basket button does nothing")
    )

    assert report.top.id == "http:edge-api"
    assert report.top.status == "confirmed" and report.conclusive
    cited = " ".join(e.fact for e in report.top.evidence)
    assert "not in the allow list" in cited and "reloaded" in cited


@pytest.mark.rule("board.cors")
def test_a_cors_refusal_without_a_change_in_view_stays_a_lead():
    _, _, report = run_with_schemas(
        _cors_world([]), incident("edge-api", "basket button does nothing")
    )

    c = next(h for h in report.hypotheses if h.id == "http:edge-api")
    assert c.status == "likely"


LEDGER_RESET = (
    "GET http://ledger-core.fin.svc.cluster.local:7000/v1/balance failed: "
    "read tcp 10.2.0.9:5512->10.3.0.4:7000: read: connection reset by peer"
)
NR = '[2030-01-01T10:30:01.101Z] "- - -" 0 NR filter_chain_not_found - "-" 0 0 0 - "-" 10.3.0.4:7000 10.2.0.9:5512'


def _mesh_world(policy):
    return SearchWorld(
        {
            ("service_health", "kiosk-sync"): health(
                "kiosk-sync", "unhealthy", FAILING
            ),
            ("list_targets", ""): targets(),
            ("top_errors", "kiosk-sync"): logged(
                "kiosk-sync", errors=[group(LEDGER_RESET, count=300)]
            ),
        },
        {
            mesh_mtls.REFUSAL_QUERY: lines(
                ("envoy-sidecar", "2030-01-01T10:30:01Z", NR)
            ),
            mesh_mtls.POLICY_QUERY: lines(*policy),
        },
    )


@pytest.mark.rule("board.mesh-mtls")
def test_resets_refused_by_a_sidecar_after_a_policy_went_strict_blame_the_policy():
    world = _mesh_world(
        [
            (
                "gitops",
                "2030-01-01T10:12:00Z",
                "applied PeerAuthentication fin/mesh-lockdown: spec.mtls.mode=STRICT",
            )
        ]
    )
    _, _, report = run_with_schemas(world, incident("kiosk-sync", "kiosks can't sync"))

    assert report.top.id == "tls:peerauthentication/fin/mesh-lockdown"
    assert report.top.status == "confirmed" and report.conclusive
    cited = " ".join(e.fact for e in report.top.evidence)
    assert "filter_chain_not_found" in cited and "reset by peer" in cited
    assert not any(
        h.id == "connect:ledger-core.fin.svc.cluster.local" and h.status != "ruled_out"
        for h in report.hypotheses
    )


@pytest.mark.rule("board.mesh-mtls")
def test_without_a_policy_change_in_view_the_unmeshed_caller_is_the_lead():
    _, _, report = run_with_schemas(
        _mesh_world([]), incident("kiosk-sync", "kiosks can't sync")
    )

    c = next(h for h in report.hypotheses if h.id == "tls:kiosk-sync")
    assert c.status == "likely"
