"""Issue 21 items 3 and 4, blame on the graph of what is new: when no rule explains the incident, the
deepest service whose own log messages are new since the window started (and relay no callee's
fault) is the root cause, the callers quoting it its victims (reasoning/layered/new_messages.py).

Names are invented; the logs server's shape (top_errors with warnings and a baseline) is its own.
"""

import pytest

from reasoning.layered.facts import ErrorGroup
from reasoning.layered.new_messages import is_direct
from tests.reasoning.test_planner import World, health, incident
from tests.reasoning.test_warnings_and_changes import (
    NO_NETCHECK,
    SLOW,
    group,
    lines,
    logged,
    run_with_schemas,
)

CALLER_TIMEOUT = "GET /plate 504: http://oven-api/v2/bake/41 read timeout after 1500ms"
OWN_WARNING = "worker queue oven-exec full: busy=12/12, backlog 310; job waited 41200ms"
DEADLINE = (
    "GET /menu 503: http://chef-rank/v1/order: deadline exceeded after 120ms (no retry)"
)
GAVE_UP = (
    "POST /v1/order: client cancelled request after 120ms (context canceled); dropping"
)


def _oven_world(*, before=0, callee_warning=OWN_WARNING):
    return World(
        {
            ("service_health", "plate-web"): health("plate-web", "degraded", SLOW),
            ("top_errors", "plate-web"): logged(
                "plate-web", errors=[group(CALLER_TIMEOUT, count=400)]
            ),
            ("service_health", "oven-api"): health("oven-api", "degraded", SLOW),
            ("top_errors", "oven-api"): logged(
                "oven-api",
                warnings=[group(callee_warning, count=90, before=before)],
            ),
            ("search_logs", ""): lines(),
        }
    )


@pytest.mark.rule("board.new-messages")
def test_the_callee_whose_own_new_warning_its_callers_relay_is_the_root_cause():
    world = _oven_world()

    _, _, report = run_with_schemas(
        world, incident("plate-web", "plates slow"), names=NO_NETCHECK
    )

    assert report.top.id == "application:oven-api"
    assert report.top.status == "confirmed" and report.conclusive
    cited = " ".join(e.fact for e in report.top.evidence)
    assert (
        "busy=12/12" in cited and "read timeout" in cited
    )  # its own line and its victim's
    assert "plate-web" in report.top.statement  # what it explains
    assert not any(h.id == "application:plate-web" for h in report.hypotheses)


@pytest.mark.rule("board.new-messages")
def test_a_warning_logged_before_the_window_too_is_no_root_cause():
    world = _oven_world(before=80)

    _, _, report = run_with_schemas(
        world, incident("plate-web", "plates slow"), names=NO_NETCHECK
    )

    assert not any(h.id == "application:oven-api" for h in report.hypotheses)


@pytest.mark.rule("board.new-messages", "board.warning-leads")
def test_a_specific_rule_standing_leaves_the_graph_rule_silent():
    world = _oven_world(
        callee_warning="slow query 3.10s: loaves by tray; plan: Seq Scan"
    )

    _, _, report = run_with_schemas(
        world, incident("plate-web", "plates slow"), names=NO_NETCHECK
    )

    assert report.top.id == "application:oven-api"
    assert "own log messages, new since" not in report.top.statement
    assert "warn of" in report.top.statement


@pytest.mark.rule("board.new-messages")
def test_a_callee_saying_its_client_gave_up_puts_the_deadline_on_the_caller():
    world = World(
        {
            ("service_health", "menu-web"): health("menu-web", "degraded", SLOW),
            ("top_errors", "menu-web"): logged(
                "menu-web", errors=[group(DEADLINE, count=500)]
            ),
            ("service_health", "chef-rank"): health("chef-rank", "healthy"),
            ("top_errors", "chef-rank"): logged(
                "chef-rank", warnings=[group(GAVE_UP, count=450)]
            ),
            ("search_logs", ""): lines(),
        }
    )

    _, _, report = run_with_schemas(
        world, incident("menu-web", "menu slow"), names=NO_NETCHECK
    )

    assert report.top.id == "application:menu-web"
    assert report.top.status == "likely" and not report.conclusive
    cited = " ".join(e.fact for e in report.top.evidence)
    assert "120ms" in cited and "client cancelled" in cited


@pytest.mark.rule("board.new-messages")
def test_a_message_of_waiting_alone_is_no_direct_evidence():
    def g(text):
        return ErrorGroup(signature=text, sample=text, count=5, before=0)

    assert not is_direct(g("order 77 not ready after 90s; line blocked"))
    assert is_direct(g("write failed: LedgerSealedError: ledger 7 is sealed"))
    assert is_direct(g("queue 'trays' holds 9000 messages, 1 consumer"))
    # A 5xx answered beside the exception that caused it (a module's errors class) is direct.
    assert is_direct(
        g("POST /v1/trays 500: tinydb.errors.SealedLedger: ledger 7 is sealed")
    )
    assert not is_direct(g("POST /v1/trays 500: internal error"))
