"""The loud caller and the remote its errors point at (issue 21 class 4), with invented names.

An egress element (a NAT, a firewall's interface) whose own lines count drops or an exceeded
allowance is the connect-layer fault behind callers that log their remote calls as slow
(`egress_allowance.egress_allowance`). A provider probed at its API host (`api.…`) while the
callers name it by its own domain is searched by that domain, and a provider quoted for its limit
takes in that probe (`host_lines.provider_domain`, `shared_limits.shared_limits`).
"""

from datetime import UTC, datetime, timedelta

import pytest

from reasoning.layered import egress_allowance, host_lines, quiet_changes
from reasoning.layered.analysis import Analysis
from reasoning.layered.facts import Facts
from reasoning.observations import Investigation, Observation
from tests.reasoning.test_planner import health, incident, probe
from tests.reasoning.test_warnings_and_changes import FAILING, SLOW, group, logged

START = datetime(2030, 1, 1, 10, 0, tzinfo=UTC)


def _obs(span, tool, arguments, result):
    return Observation(
        span_id=span,
        agent="test",
        server="data" if tool != "probe_url" else "net",
        tool=tool,
        arguments=arguments,
        is_ok=True,
        result=result,
    )


def _errors(span, service, *, errors=(), warnings=()):
    return _obs(
        span,
        "top_errors",
        {"service": service, "warnings": True, "baseline_s": 3600},
        logged(service, errors=errors, warnings=warnings),
    )


def _changes(*entries):
    return _obs(
        "ch",
        "search_logs",
        {"query": quiet_changes.SEARCH, "regex": True},
        {
            "lines": [
                {"service": s, "time": t, "level": "info", "message": m, "labels": {}}
                for s, t, m in entries
            ]
        },
    )


def _analysis(service, *observations):
    inv = Investigation(incident=incident(service, "slow"), tools=[])
    inv.observations.extend(observations)
    return Analysis(inv, Facts.read(inv.observations))


# --- an egress element over its allowance ------------------------------------------------------

SNAT = "outbound rule ob-shop: SNAT port exhaustion, 0 of 1024 ports free (dropped 311 flows)"
TICKETS_SLOW = (
    "ticket vendor call slow: vendor=seatmaster duration=8200ms threshold=1000ms"
)
KIOSK_TIMEOUT = "upstream ticketing timed out after 4000 ms: POST /v1/hold (basket 88)"
SEATS = "https://api.seatmaster.test/v2/hold"


def _egress_world(*extra, counters=SNAT):
    first = (START + timedelta(minutes=20)).isoformat()
    return (
        _errors(
            "e1",
            "edge-egress-fw",
            warnings=[group(counters, count=30, first_seen=first)],
        ),
        _errors("e2", "ticketing", warnings=[group(TICKETS_SLOW, count=120)]),
        _errors("e3", "kiosk-bff", errors=[group(KIOSK_TIMEOUT, count=200)]),
        _obs(
            "h1",
            "service_health",
            {"service": "ticketing"},
            health("ticketing", "unhealthy", SLOW),
        ),
        *extra,
    )


@pytest.mark.rule("board.egress-over-allowance")
def test_an_egress_element_out_of_snat_ports_is_the_fault_behind_its_slow_callers():
    a = _analysis("kiosk-bff", *_egress_world())

    c = a.candidates["connect:edge-egress-fw"]
    assert c.status == "confirmed" and c.confidence >= 0.85
    top = max(a.candidates.values(), key=lambda x: x.confidence)
    assert top is c
    assert a.candidates["application:ticketing"].confidence <= 0.4
    assert any("SNAT port exhaustion" in e.fact for e in c.evidence)


@pytest.mark.rule("board.egress-over-allowance")
def test_an_instance_over_its_packet_allowance_with_the_change_that_put_it_there():
    counters = "ethtool -S eth0: pps_allowance_exceeded: 9120 (+2210 in 60s)"
    change = (
        "terraform",
        (START - timedelta(minutes=30)).isoformat(),
        "apply: module.egress replaced aws_nat_gateway.a with module.edge_egress_fw "
        "(instance c6gn.medium) -> route 0.0.0.0/0",
    )
    a = _analysis(
        "kiosk-bff",
        *_egress_world(_changes(change), counters=counters),
    )

    c = a.candidates["connect:edge-egress-fw"]
    assert c.status == "confirmed" and c.confidence >= 0.9
    assert any("terraform" in e.fact for e in c.evidence)


@pytest.mark.rule("board.egress-over-allowance")
def test_a_remote_probe_timing_out_confirms_the_element_with_one_slow_caller():
    a = _analysis(
        "ticketing",
        _errors(
            "e1",
            "edge-egress-fw",
            warnings=[
                group("Cloud NAT drop: reason=OUT_OF_RESOURCES vm=egress-1", count=9)
            ],
        ),
        _errors("e2", "ticketing", warnings=[group(TICKETS_SLOW, count=120)]),
        _obs("p1", "probe_url", {"url": SEATS}, probe(SEATS, "http", "timeout")),
    )

    c = a.candidates["connect:edge-egress-fw"]
    assert c.status == "confirmed"
    assert a.candidates["http:api.seatmaster.test"].confidence <= 0.4


@pytest.mark.rule("board.egress-over-allowance")
def test_no_slow_caller_or_only_a_counter_of_zero_is_not_this():
    quiet = _analysis(
        "kiosk-bff",
        _errors("e1", "edge-egress-fw", warnings=[group(SNAT, count=30)]),
    )
    assert "connect:edge-egress-fw" not in quiet.candidates

    zero = _analysis(
        "kiosk-bff",
        *_egress_world(counters="eth0 stats: rx_dropped: 0 tx_dropped: 0"),
    )
    assert "connect:edge-egress-fw" not in zero.candidates


@pytest.mark.rule("board.egress-over-allowance")
@pytest.mark.timeout(60)
def test_hostile_counters_and_callers_stay_fast():
    big = "bw_out_allowance_exceeded: 7 " + "tx_dropped " * 20000
    slow = "slow " * 40000
    a = _analysis(
        "kiosk-bff",
        _errors("e1", "edge-egress-fw", warnings=[group(big, count=3)]),
        _errors("e2", "ticketing", warnings=[group(slow, count=3)]),
    )
    assert "connect:edge-egress-fw" in a.candidates
    assert egress_allowance.OVER_ALLOWANCE.search("a" * 200_000) is None


# --- a provider probed at its API host, named by its domain ------------------------------------

RATES = "https://api.quotebank.test/v2/spot"
QUOTA = (
    'quotebank.test GET /v2/spot?pair=NOK -> 429 {"code": "quota_exceeded", '
    '"detail": "plan allowance used up"}'
)


def test_a_front_host_is_named_by_its_providers_domain():
    assert host_lines.provider_domain("api.quotebank.test") == "quotebank.test"
    assert host_lines.provider_domain("eu-api.quotebank.test") == "quotebank.test"
    assert host_lines.provider_domain("www2.shop.example.org") == "shop.example.org"
    # a host that is itself the provider's, or a bare two-label domain, stays itself
    assert (
        host_lines.provider_domain("ledger.quotebank.test") == "ledger.quotebank.test"
    )
    assert host_lines.provider_domain("api.test") == "api.test"
    assert host_lines.names_host("api.quotebank.test", QUOTA)
    assert not host_lines.names_host("api.quotebank.test", "quotebank.testing.io down")


@pytest.mark.rule("board.shared-rate-limit", "probe.corroborate")
def test_a_provider_quoted_for_its_quota_takes_in_the_probe_of_its_api_host():
    a = _analysis(
        "pricing-svc",
        _errors("e1", "spot-rates", errors=[group(QUOTA, count=90)]),
        _obs(
            "h1",
            "service_health",
            {"service": "spot-rates"},
            health("spot-rates", "unhealthy", FAILING),
        ),
        _obs(
            "p1",
            "probe_url",
            {"url": RATES},
            probe(
                RATES, "http", "http_429", status=429, body='{"code": "quota_exceeded"}'
            ),
        ),
        _obs(
            "s1",
            "search_logs",
            {"query": "quotebank.test", "limit": 20},
            {
                "lines": [
                    {
                        "service": "spot-rates",
                        "time": START.isoformat(),
                        "level": "error",
                        "message": QUOTA,
                        "labels": {},
                    }
                ]
            },
        ),
    )

    provider = a.candidates["http:quotebank.test"]
    assert provider.status == "confirmed" and provider.confidence >= 0.9
    assert any(e.tool == "probe_url" for e in provider.evidence)
    assert a.candidates["http:api.quotebank.test"].confidence <= 0.4
