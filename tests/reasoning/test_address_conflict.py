"""An address claimed by two hosts while a failover daemon took it over (`address_conflict`), with
invented names and wordings."""

import pytest

from reasoning.layered.address_conflict import CONFLICT, TAKEOVER
from tests.reasoning.test_planner import World, health, incident
from tests.reasoning.test_warnings_and_changes import (
    FAILING,
    NO_NETCHECK,
    group,
    logged,
    run_with_schemas,
)

RESET = "POST /v1/quotes failed: read tcp 10.9.0.4:5121->192.0.2.40:443: connection reset by peer"
DUPLICATE = (
    "kernel: IPv4: duplicate address detected for 192.0.2.40 from 52:54:00:aa:bb:0c"
)
SWITCHED = "ucarp[812]: [INFO] Switching to state: MASTER"


def test_conflict_and_takeover_words_are_read():
    assert CONFLICT.search(DUPLICATE)
    assert CONFLICT.search("flip flop 198.51.100.7 0:1:2:3:4:5 (0:1:2:3:4:6) eth1")
    assert not CONFLICT.search("ARP entry added for 192.0.2.40")
    assert TAKEOVER.search(SWITCHED)
    assert TAKEOVER.search("Keepalived_vrrp[55]: (VIP_9) Entering MASTER STATE")
    assert not TAKEOVER.search("Keepalived_vrrp[55]: (VIP_9) Entering BACKUP STATE")


@pytest.mark.timeout(60)
def test_the_conflict_readers_stay_linear_on_hostile_lines():
    for text in (
        "flip flop " * 20_000,
        "address conflict " + "x" * 200_000,
        "1." * 100_000,
    ):
        CONFLICT.search(text)
        TAKEOVER.search(text)


def _line(service, message, **labels):
    return {
        "service": service,
        "time": "2030-01-01T10:19:00Z",
        "level": "warn",
        "message": message,
        "labels": labels,
    }


def _world(search_lines):
    return World(
        {
            ("service_health", "quote-api"): health("quote-api", "unhealthy", FAILING),
            ("top_errors", "quote-api"): logged(
                "quote-api", errors=[group(RESET, count=200)]
            ),
            ("search_logs", ""): {"lines": search_lines},
        }
    )


@pytest.mark.rule("board.address-conflict")
def test_a_second_master_on_an_address_claimed_twice_is_the_connect_cause():
    world = _world(
        [
            _line("netmon", DUPLICATE, host="mon-7"),
            _line("netmon", DUPLICATE, host="mon-7"),
            _line("ucarp", SWITCHED, host="edge-b.site9"),
        ]
    )

    _, _, report = run_with_schemas(
        world,
        incident("quote-api", title="quotes fail now and then"),
        names=NO_NETCHECK,
    )

    assert report.top.id == "connect:ucarp"
    assert report.top.status == "confirmed" and report.conclusive
    assert any("duplicate address" in e.fact for e in report.top.evidence)


@pytest.mark.rule("board.address-conflict")
def test_a_conflict_without_a_takeover_is_a_lead_on_the_address():
    world = _world(
        [
            _line("netmon", DUPLICATE, host="mon-7"),
            _line("netmon", DUPLICATE, host="mon-7"),
        ]
    )

    _, _, report = run_with_schemas(
        world,
        incident("quote-api", title="quotes fail now and then"),
        names=NO_NETCHECK,
    )

    lead = next(h for h in report.hypotheses if h.id == "connect:192.0.2.40")
    assert lead.status == "likely" and not lead.conclusive
