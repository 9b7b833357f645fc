"""A caller whose calls go via an egress proxy a proxy setting put in its path (`egress_proxy`), with
invented names and wordings."""

import pytest

from reasoning.layered.egress_proxy import HOP, SETTING, TUNNEL
from tests.reasoning.test_planner import World, health, incident
from tests.reasoning.test_warnings_and_changes import (
    FAILING,
    NO_NETCHECK,
    group,
    logged,
    run_with_schemas,
)

CALLER_ERROR = (
    "settlement call failed: requests.exceptions.ReadTimeout "
    "(through proxy fwd-a.corp.example:8080) after 5000ms"
)
SETTING_LINE = (
    'ansible: TASK [env] changed: wrote http_proxy="http://fwd-a.corp.example:8080" '
    "to /etc/profile.d/egress.sh on group all"
)
TUNNEL_LINE = "CONNECT bank.example.org:443 HTTP/1.1 200 tunnel established 2211ms"


def test_a_hop_a_setting_and_a_tunnel_line_are_read():
    match = HOP.search(CALLER_ERROR)
    assert match and match.group(1) == "fwd-a.corp.example"
    assert HOP.search("timeout (via egress-2.dc4.example:3128)").group(1) == (
        "egress-2.dc4.example"
    )
    assert SETTING.search(SETTING_LINE).group(1) == "fwd-a.corp.example"
    assert SETTING.search("HTTPS_PROXY=http://user@sq1.example:3128").group(1) == (
        "sq1.example"
    )
    assert TUNNEL.search(TUNNEL_LINE)
    assert TUNNEL.search(
        "1700000000.1 12 10.0.0.4 TCP_TUNNEL/200 512 CONNECT a.example:443"
    )
    assert not TUNNEL.search("could not connect to db.example:5432")


@pytest.mark.timeout(60)
def test_the_proxy_readers_stay_linear_on_hostile_lines():
    for text in ("via " * 50_000, "via a" + "a." * 100_000, "http_proxy=" * 20_000):
        HOP.search(text)
        list(SETTING.finditer(text))
        TUNNEL.search(text)


def _line(service, message, **labels):
    return {
        "service": service,
        "time": "2030-01-01T10:19:00Z",
        "level": "info",
        "message": message,
        "labels": labels,
    }


def _world(search_lines):
    return World(
        {
            ("service_health", "ledger-sync"): health(
                "ledger-sync", "unhealthy", FAILING
            ),
            ("top_errors", "ledger-sync"): logged(
                "ledger-sync", errors=[group(CALLER_ERROR, count=120)]
            ),
            ("search_logs", ""): {"lines": search_lines},
        }
    )


@pytest.mark.rule("board.egress-proxy")
def test_a_proxy_hop_a_setting_put_in_the_path_is_the_connect_cause():
    world = _world(
        [
            _line("tinyproxy", TUNNEL_LINE, host="fwd-a.corp.example"),
            _line("ansible", SETTING_LINE),
        ]
    )

    _, _, report = run_with_schemas(
        world, incident("ledger-sync", title="settlements slow"), names=NO_NETCHECK
    )

    searched = [
        a for t, a in world.arguments if t == "search_logs" and not a.get("service")
    ]
    assert any("_proxy" in a["query"] for a in searched)
    assert report.top.id == "connect:fwd-a.corp.example"
    assert report.top.status == "confirmed" and report.conclusive
    assert any(
        "TUNNEL" in e.fact or "CONNECT bank" in e.fact for e in report.top.evidence
    )
    caller = next(h for h in report.hypotheses if h.id == "application:ledger-sync")
    assert caller.status == "likely"


@pytest.mark.rule("board.egress-proxy")
def test_a_hop_without_a_setting_naming_it_is_only_a_lead():
    world = _world(
        [
            _line("tinyproxy", TUNNEL_LINE, host="fwd-a.corp.example"),
            _line("ansible", 'wrote http_proxy="http://other-proxy.example:8080"'),
        ]
    )

    _, _, report = run_with_schemas(
        world, incident("ledger-sync", title="settlements slow"), names=NO_NETCHECK
    )

    proxy = next(h for h in report.hypotheses if h.id == "connect:fwd-a.corp.example")
    assert proxy.status == "likely" and not proxy.conclusive
    assert not report.conclusive


def test_a_proxy_setting_names_its_host_after_credentials_and_a_scheme():
    line = 'HTTPS_PROXY="http://svc:secret@squid-2.corp.example:3128"'
    assert SETTING.search(line).group(1) == "squid-2.corp.example"
