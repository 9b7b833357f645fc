"""A shared link saturated by a bulk transfer (issue 21 classes 1 and 4), with invented names.

A link's throughput (an exporter's series labelled by the link, not a service) that steps up at
the start to its ceiling while calls across it slow is the fault on the path, at the connect layer
(`link_saturation.link_saturated`); a job that started just before is what filled it, and the slow
callers are its victims. A rise far below the ceiling, a saturated link while nothing is slow, or
a service's own series are not this.
"""

from datetime import UTC, datetime, timedelta

import pytest

from reasoning.layered import backend_gauges, link_saturation, network_delay
from reasoning.layered.analysis import Analysis
from reasoning.layered.facts import Facts
from reasoning.layered.shared_backend import START_SEARCH
from reasoning.observations import Investigation, Observation
from tests.reasoning.test_planner import health, incident
from tests.reasoning.test_warnings_and_changes import SLOW, group, logged

START = datetime(2030, 1, 1, 10, 0, tzinfo=UTC)
STEP = START + timedelta(minutes=10)


def _obs(span, tool, arguments, result):
    return Observation(
        span_id=span,
        agent="test",
        server="data",
        tool=tool,
        arguments=arguments,
        is_ok=True,
        result=result,
    )


def _points(before, after, *, wobble=0.0):
    """A point a minute from an hour before the window to its end: `before` until the step."""
    out = []
    moment = START - timedelta(hours=1)
    i = 0
    while moment <= START + timedelta(hours=1):
        value = before if moment < STEP else after
        value *= 1 + wobble * ((i % 5) - 2) / 2
        out.append([moment.timestamp(), str(value)])
        moment += timedelta(minutes=1)
        i += 1
    return out


def _gauges(*series):
    return _obs(
        "g1",
        "query_metric",
        {"promql": backend_gauges.QUERY},
        {"series": [{"metric": m, "values": v} for m, v in series]},
    )


def _rtt(source, dest, before, after):
    return _obs(
        "r1",
        "query_metric",
        {"promql": network_delay.ROUND_TRIPS},
        {
            "series": [
                {
                    "metric": {
                        "__name__": "probe_rtt_seconds",
                        "src": source,
                        "dst": dest,
                    },
                    "values": _points(before, after),
                }
            ]
        },
    )


def _errors(span, service, *, errors=(), warnings=()):
    return _obs(
        span,
        "top_errors",
        {"service": service, "warnings": True, "baseline_s": 3600},
        logged(service, errors=errors, warnings=warnings),
    )


def _starts(*entries):
    return _obs(
        "st",
        "search_logs",
        {"query": START_SEARCH, "regex": True},
        {
            "lines": [
                {"service": s, "time": t, "level": "info", "message": m, "labels": {}}
                for s, t, m in entries
            ]
        },
    )


def _health(service):
    return _obs(
        "h1", "service_health", {"service": service}, health(service, "degraded", SLOW)
    )


def _analysis(*observations):
    inv = Investigation(incident=incident("parcel-api", "slow"), tools=[])
    inv.observations.extend(observations)
    return Analysis(inv, Facts.read(inv.observations))


VPN = {"__name__": "vpn_tunnel_bits_out_per_second", "tunnel": "tun-ams-hq-2"}
ALARM = "threshold breached: tun-ams-hq-2 egress 487 Mbit/s (97.4% of 500 Mbit/s) for 10 min"


@pytest.mark.rule("board.link-saturated")
def test_a_vpn_tunnel_at_its_stated_capacity_while_round_trips_rise_is_the_fault():
    a = _analysis(
        _gauges((VPN, _points(9.0e7, 4.87e8, wobble=0.04))),
        _rtt("parcel-api", "label-printer-db", 0.004, 0.180),
        _errors("m1", "netmon", warnings=[group(ALARM, count=6)]),
        _starts(
            (
                "nightly-sync",
                (STEP - timedelta(minutes=4)).isoformat(),
                "rsync of /archive to hq-nas started (2.1 TB)",
            )
        ),
    )

    c = a.candidates["connect:tun-ams-hq-2"]
    assert c.status == "confirmed" and c.confidence >= 0.9
    facts = " ".join(e.fact for e in c.evidence)
    assert "97.4% of 500" in facts and "rsync of /archive" in facts
    assert a.ranked()[0].component == "tun-ams-hq-2"
    path = a.candidates.get("connect:label-printer-db")
    assert path is None or path.confidence <= 0.4


@pytest.mark.rule("board.link-saturated")
def test_a_nat_gateway_utilisation_at_its_ceiling_with_slow_callers_is_the_fault():
    nat = {"__name__": "natgw_bandwidth_utilization_ratio", "nat_gateway": "nat-0f3c"}
    a = _analysis(
        _gauges((nat, _points(0.21, 0.985))),
        _obs(
            "h1",
            "service_health",
            {"service": "parcel-api"},
            health("parcel-api", "degraded", SLOW),
        ),
    )

    c = a.candidates["connect:nat-0f3c"]
    assert c.status == "confirmed" and "98% utilised" in c.statement


def test_a_throughput_that_rose_far_below_any_ceiling_is_not_saturation():
    wobbly = _points(9.0e7, 3.0e8, wobble=0.3)
    a = _analysis(
        _gauges((VPN, wobbly)), _rtt("parcel-api", "label-printer-db", 0.004, 0.18)
    )

    assert "connect:tun-ams-hq-2" not in a.candidates


def test_a_saturated_link_while_nothing_is_slow_blames_nothing():
    a = _analysis(
        _gauges((VPN, _points(9.0e7, 4.87e8))),
        _errors("m1", "netmon", warnings=[group(ALARM, count=6)]),
    )

    assert "connect:tun-ams-hq-2" not in a.candidates


def test_a_services_own_throughput_series_is_not_a_shared_link():
    own = {**VPN, "service": "parcel-api"}
    a = _analysis(_gauges((own, _points(9.0e7, 4.87e8))), _health("parcel-api"))

    assert "connect:tun-ams-hq-2" not in a.candidates


def test_the_planner_searches_the_links_name_and_the_jobs_started_before_its_step():
    inv = Investigation(incident=incident("parcel-api", "slow"), tools=[])
    inv.observations.append(_gauges((VPN, _points(9.0e7, 4.87e8))))
    facts = Facts.read(inv.observations)

    named = link_saturation.link_search(inv, facts)
    window = link_saturation.search_window(inv, facts)

    assert named is not None and "tun\\-ams\\-hq\\-2" in named["query"]
    assert window is not None and window["start"] < STEP.isoformat() < window["end"]


@pytest.mark.timeout(60)
def test_a_huge_alarm_line_is_read_in_bounded_time():
    huge = "tun-ams-hq-2 " * 10_000 + "9" * 50_000 + "% of " * 20_000
    inv = Investigation(incident=incident("parcel-api", "slow"), tools=[])
    inv.observations.append(_gauges((VPN, _points(9.0e7, 4.87e8, wobble=0.3))))
    said = link_saturation.Said(inv.observations[0], "netmon", huge, "fact")

    assert link_saturation.saturated_links(inv, [said]) == []
