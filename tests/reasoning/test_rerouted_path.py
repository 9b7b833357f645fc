"""A hop rerouted somewhere far (`rerouted_path`) and a provider named as people name it
(`shared_limits`), with invented names and wordings.

A CDN's or proxy's hop latency that steps up right after a change set where its traffic goes is a
delay on the path (connect) of the intermediary, named by its series' prefix; its clients' budget
warnings are its symptoms. A provider a structured log's request line names (`"msg":"zendesk PUT
…"`) is the one whose tenant host (`acme.zendesk.test`) a probe met refusing.
"""

from datetime import UTC, datetime, timedelta

import pytest

from reasoning.layered import metric_trends, quiet_changes, rerouted_path
from reasoning.layered.analysis import Analysis
from reasoning.layered.facts import Facts
from reasoning.layered.shared_limits import _provider_host, _provider_named
from reasoning.observations import Investigation, Observation
from tests.reasoning.test_planner import World, health, incident, probe
from tests.reasoning.test_warnings_and_changes import (
    group,
    logged,
    run_with_schemas,
)

NAMES = (
    "service_health",
    "query_metric",
    "top_errors",
    "search_logs",
    "search_runbooks",
)
_BASE = datetime(2030, 1, 1, 9, 0, tzinfo=UTC)  # an hour before the incident's window


def _series(name, labels, values):
    points = [
        [(_BASE + timedelta(minutes=i)).timestamp(), str(v)]
        for i, v in enumerate(values)
    ]
    return {"metric": {"__name__": name, **labels}, "values": points}


def _step(before, after, at=75):
    return [before if i < at else after for i in range(121)]


BUDGET = "tile prefetch budget exceeded: 31 of 40 tiles over 1200 ms"
REROUTE = (
    "apply: edgecast_route.tiles will be updated in-place: origin_pop: "
    '"ams-nl" => "sin-sg" (MR ops!77)'
)
OTHER = (
    'apply: edgecast_route.tiles will be updated in-place: default_ttl: "60" => "300"'
)


def _world(*, change=REROUTE, at="2030-01-01T10:10:00Z", gauge=None):
    return World(
        {
            ("query_metric", metric_trends.QUERY): {
                "series": [
                    _series(
                        "edgecast_origin_fetch_ms_p95",
                        {"service": "tiles", "pop": "AMS"},
                        gauge or _step(80, 420),
                    )
                ]
            },
            ("service_health", "map-bff"): health("map-bff", "healthy", []),
            ("top_errors", "map-bff"): logged(
                "map-bff",
                warnings=[group(BUDGET, count=90, first_seen="2030-01-01T10:20:00Z")],
            ),
            ("search_logs", ""): {
                "lines": [
                    {
                        "service": "terraform",
                        "time": at,
                        "level": "info",
                        "message": change,
                        "labels": {},
                    }
                ]
            },
        }
    )


@pytest.mark.rule("board.rerouted-path")
def test_a_hop_stepping_up_after_its_route_moved_is_a_connect_fault_of_the_intermediary():
    world = _world()
    _, _, report = run_with_schemas(
        world, incident("map-bff", "maps slow"), names=NAMES
    )

    top = report.top
    assert top.id == "connect:edgecast" and report.conclusive
    facts = " ".join(e.fact for e in top.evidence)
    assert '"sin-sg"' in facts and "edgecast_origin_fetch_ms_p95" in facts
    assert any(
        tool == "search_logs" and args.get("query") == quiet_changes.SEARCH
        for tool, args in world.arguments
    )
    bff = next(h for h in report.hypotheses if h.id == "application:map-bff")
    assert bff.status == "likely" and bff.confidence <= 0.4


@pytest.mark.rule("board.rerouted-path")
def test_no_route_change_a_change_long_before_or_no_step_is_not_this():
    for world in (
        _world(change=OTHER),
        _world(at="2030-01-01T08:20:00Z"),
        _world(gauge=_step(80, 95)),
    ):
        _, _, report = run_with_schemas(
            world, incident("map-bff", "maps slow"), names=NAMES
        )
        assert not any(h.id == "connect:edgecast" for h in report.hypotheses)


@pytest.mark.rule("board.rerouted-path")
def test_a_service_own_latency_or_a_generic_prefix_names_no_intermediary():
    own = _world()
    own.answers[("query_metric", metric_trends.QUERY)] = {
        "series": [
            _series("app_request_latency_ms", {"service": "tiles"}, _step(80, 420))
        ]
    }
    _, _, report = run_with_schemas(own, incident("map-bff", "maps slow"), names=NAMES)
    assert not any(h.layer == "connect" for h in report.hypotheses)


@pytest.mark.rule("board.rerouted-path")
@pytest.mark.timeout(60)
def test_hostile_series_and_change_lines_stay_fast():
    huge = "origin " * 40000 + "x" * 200000
    inv = Investigation(incident=incident("map-bff"), tools=[])
    inv.observations += [
        Observation(
            span_id="m1",
            agent="metrics",
            server="metrics",
            tool="query_metric",
            arguments={"promql": metric_trends.QUERY},
            is_ok=True,
            result={
                "series": [
                    _series(
                        "edgecast_origin_fetch_ms_" + "x" * 5000,
                        {"service": "tiles", **{f"l{i}": "v" for i in range(300)}},
                        _step(80, 420),
                    )
                ]
            },
        ),
        Observation(
            span_id="c1",
            agent="logs",
            server="logs",
            tool="search_logs",
            arguments={"query": quiet_changes.SEARCH, "regex": True},
            is_ok=True,
            result={
                "lines": [
                    {
                        "service": "terraform",
                        "time": "2030-01-01T10:10:00Z",
                        "level": "info",
                        "message": "a -> b " + huge,
                        "labels": {},
                    }
                ]
            },
        ),
    ]
    assert len(rerouted_path.steps(inv)) == 1
    Analysis(inv, Facts.read(inv.observations))


# --- a provider named by a structured log's request line ----------------------------------------

THROTTLED = (
    '{"level":50,"msg":"zendesk PUT /api/v2/tickets/88.json failed after 4 retries",'
    '"status":429,"body":{"error":"APIRateLimitExceeded"}}'
)


@pytest.mark.rule("board.shared-rate-limit")
def test_a_provider_leading_a_structured_request_line_takes_in_its_tenant_host_probe():
    url = "https://acme-support.zendesk.test/api/v2/tickets"
    inv = Investigation(incident=incident("ticket-sync", "tickets stale"), tools=[])
    inv.observations += [
        Observation(
            span_id="e1",
            agent="logs",
            server="logs",
            tool="top_errors",
            arguments={"service": "ticket-sync", "warnings": True, "baseline_s": 3600},
            is_ok=True,
            result=logged("ticket-sync", errors=[group(THROTTLED, count=200)]),
        ),
        Observation(
            span_id="p1",
            agent="network",
            server="net",
            tool="probe_url",
            arguments={"url": url},
            is_ok=True,
            result=probe(url, "http", "http_429", status=429),
        ),
    ]
    a = Analysis(inv, Facts.read(inv.observations))

    provider = a.candidates["http:zendesk"]
    assert provider.status == "confirmed" and provider.confidence >= 0.9
    assert any(e.tool == "probe_url" for e in provider.evidence)
    assert a.candidates["http:acme-support.zendesk.test"].confidence <= 0.4


@pytest.mark.rule("board.shared-rate-limit")
def test_tenant_hosts_and_quoted_request_lines():
    assert _provider_named(THROTTLED, set()) == "zendesk"
    assert _provider_named("msg='hubspot PATCH /crm/v3/x 429'", set()) == "hubspot"
    assert _provider_host("zendesk", "acme-support.zendesk.test")
    assert _provider_host("shopify", "shop-7.myshopify.test")
    assert not _provider_host(
        "zendesk", "zendesk-mirror-cache"
    )  # no domain: a bare label
    assert not _provider_host(
        "kms", "kms-proxy.internal.test"
    )  # a short word holds nothing


@pytest.mark.rule("board.shared-rate-limit")
@pytest.mark.timeout(60)
def test_huge_quoted_request_lines_stay_linear():
    _provider_named('"' + "a" * 39 + " GET " + '"x' * 100000, set())
    _provider_host("zendesk", "a." * 50000 + "test")
