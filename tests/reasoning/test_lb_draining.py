"""Issue 21 classes 1 and 4: a load balancer that cuts in-flight requests when its targets drain
(reasoning/layered/lb_draining.py). Its draining setting is the fault, not the back end nor the
callers that log the 502s.

Names are invented; the servers' shapes (top_errors' groups, search_logs over every service) are
their own.
"""

import pytest

from reasoning import layers
from reasoning.layered import lb_draining
from reasoning.layered.facts import Facts
from tests.reasoning.test_planner import World, health, incident
from tests.reasoning.test_warnings_and_changes import (
    FAILING,
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
CALLER = "claims-web"
BALANCER = "edge-lb"
CALLER_LINE = "upload 7781 failed: 502 Bad Gateway from api.claims.example"
CHANGE = "helm upgrade edge: backend claims-pool connection_draining_timeout 90 -> 3 (chart 2.1 default)"


def _world(balancer_line, change_lines=()):
    answers = {
        ("service_health", CALLER): health(CALLER, "degraded", FAILING),
        ("top_errors", CALLER): logged(CALLER, errors=[group(CALLER_LINE, count=80)]),
        ("service_health", BALANCER): health(BALANCER),
        ("top_errors", BALANCER): logged(
            BALANCER,
            errors=[
                group(balancer_line, count=120),
                group("GET /healthz 503 upstream=claims-pool", count=2, before=3),
            ],
        ),
        ("search_logs", ""): {
            "lines": [
                {
                    "service": "deployer",
                    "time": "2030-01-01T09:40:00Z",
                    "level": "info",
                    "message": line,
                    "labels": {},
                }
                for line in change_lines
            ]
        },
    }
    return World(answers)


def _report(world):
    return run_with_schemas(
        world,
        incident(CALLER, f"{BALANCER} answers 502 for some uploads"),
        names=NAMES,
    )


DRAIN_CUT = (
    "POST /v2/claims/upload 502 backend=claims-pool: connection closed by target while "
    "draining (draining_timeout 3s), request in flight 31.2s"
)


@pytest.mark.rule("board.lb-draining")
def test_a_balancer_cutting_requests_when_targets_drain_is_the_http_fault_of_its_pool():
    inv, _, report = _report(_world(DRAIN_CUT, [CHANGE]))

    top = report.top
    assert (top.layer, top.component) == (layers.HTTP, "claims-pool")
    assert report.conclusive and top.confidence >= 0.9
    facts = " ".join(e.fact for e in top.evidence)
    assert "draining" in facts and "90 -> 3" in facts
    assert top.remediation is not None and "draining" in top.remediation
    # The change was searched for over every service, before the window.
    assert any(
        tool == "search_logs" and arguments.get("query") == lb_draining.SEARCH
        for tool, arguments in inv_calls(inv)
    )


def inv_calls(inv):
    return [(o.tool, o.arguments) for o in inv.observations]


@pytest.mark.rule("board.lb-draining")
def test_without_the_change_line_the_drain_still_confirms_the_pool():
    _, _, report = _report(
        _world(
            "GET /export 504 upstream prematurely closed: target deregistered "
            "(deregistration in progress) tg=exports-tg"
        )
    )

    top = report.top
    assert (top.layer, top.component) == (layers.HTTP, "exports-tg")
    assert top.status == "confirmed" and 0.7 <= top.confidence < 0.9


@pytest.mark.rule("board.lb-draining")
def test_a_balancer_naming_no_pool_is_blamed_itself():
    _, _, report = _report(
        _world(
            "request aborted with 502: instance removed from target group during scale-in"
        )
    )

    assert (report.top.layer, report.top.component) == (layers.HTTP, BALANCER)


@pytest.mark.rule("board.lb-draining")
def test_502s_with_no_drain_are_not_blamed_on_draining():
    _, _, report = _report(
        _world("POST /v2/claims/upload 502 backend=claims-pool: upstream timed out")
    )

    assert not any(
        h.layer == layers.HTTP and h.component == "claims-pool"
        for h in report.hypotheses
    )


def test_drain_words_without_a_failed_request_are_not_a_cut():
    facts = Facts()
    assert lb_draining.drained(facts) == []
    assert not lb_draining.CUT.search("node pool-b-3 draining for upgrade")
    assert lb_draining.SETTING_CHANGE.search('deregistration_delay: "300" => "10"')
    assert not lb_draining.SETTING_CHANGE.search("deregistration_delay 5s")


@pytest.mark.rule("board.lb-draining")
def test_an_app_aborting_its_own_requests_on_shutdown_is_not_a_balancer_cut():
    _, _, report = _report(_world("SIGTERM: draining, 57 in-flight requests aborted"))

    assert not any(h.layer == layers.HTTP for h in report.hypotheses)
