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


# A caller whose failing calls are its own doing (issue 21 item 4): the callee shows no fault.
BREAKER = (
    "POST /till 503: tallykit.BreakerOpenError: breaker for http://ledger-core/v1 "
    "is open; call not permitted"
)
LIMITED = "POST /v1/quote 429: rate limit 50/s exceeded for client fare-web"
QUOTE_FAILS = "GET /fare 502: quote lookup failed: POST http://tariff-hub/v1/quote 429"
FIVE_XX = [("error_ratio", "critical", "error ratio 31% since 10:15")]


def _till_world(callee_health="healthy", line=BREAKER, caller_health=FIVE_XX):
    return World(
        {
            ("service_health", "till-api"): health(
                "till-api", "unhealthy", caller_health
            ),
            ("top_errors", "till-api"): logged(
                "till-api", errors=[group(line, count=300)]
            ),
            ("service_health", "ledger-core"): health(
                "ledger-core", callee_health, () if callee_health == "healthy" else SLOW
            ),
            ("top_errors", "ledger-core"): logged("ledger-core"),
            ("search_logs", ""): lines(),
        }
    )


@pytest.mark.rule("board.new-messages")
def test_a_caller_failing_its_calls_to_a_quiet_healthy_callee_is_the_root_cause():
    _, _, report = run_with_schemas(
        _till_world(), incident("till-api", "tills failing"), names=NO_NETCHECK
    )

    assert report.top.id == "application:till-api"
    assert report.top.status == "confirmed" and report.conclusive
    cited = " ".join(e.fact for e in report.top.evidence)
    assert "call not permitted" in cited and "service_health(ledger-core)" in cited
    assert not any(
        h.id == "application:ledger-core" and h.status != "ruled_out"
        for h in report.hypotheses
    )


@pytest.mark.rule("board.new-messages")
def test_a_timeout_to_a_quiet_callee_is_only_a_lead_on_the_caller():
    world = _till_world(
        line="POST /till 504: http://ledger-core/v1/post read timeout after 800ms"
    )

    _, _, report = run_with_schemas(
        world, incident("till-api", "tills failing"), names=NO_NETCHECK
    )

    assert report.top.id == "application:till-api"
    assert report.top.status == "likely" and not report.conclusive


@pytest.mark.rule("board.new-messages")
def test_a_callee_that_fails_by_its_metrics_is_no_quiet_callee():
    world = _till_world(callee_health="degraded")

    _, _, report = run_with_schemas(
        world, incident("till-api", "tills failing"), names=NO_NETCHECK
    )

    assert report.top is None or not (
        report.top.id == "application:till-api" and report.top.status == "confirmed"
    )


def _fare_world(change_lines=()):
    limited = health("tariff-hub")
    limited["signals"] = {"requests_per_s": {"start": 4.0, "current": 120.0}}
    return World(
        {
            ("service_health", "fare-web"): health("fare-web", "degraded", SLOW),
            ("top_errors", "fare-web"): logged(
                "fare-web", errors=[group(QUOTE_FAILS, count=500)]
            ),
            ("service_health", "tariff-hub"): limited,
            ("top_errors", "tariff-hub"): logged(
                "tariff-hub", errors=[group(LIMITED, count=900)]
            ),
            ("search_logs", ""): lines(*change_lines),
        }
    )


@pytest.mark.rule("board.new-messages", "board.changes")
def test_a_callee_limiting_its_client_whose_load_rose_blames_the_client_and_its_change():
    change = (
        "fare-web",
        "2030-01-01T10:10:00Z",
        "fare-web 3.1.0 started; quote cache configured: ttl=30ms",
    )

    _, _, report = run_with_schemas(
        _fare_world([change]), incident("fare-web", "fares failing"), names=NO_NETCHECK
    )

    assert report.top.id == "application:fare-web"
    assert report.top.status == "confirmed" and report.conclusive
    cited = " ".join(e.fact for e in report.top.evidence)
    assert "for client fare-web" in cited and "ttl=30ms" in cited


@pytest.mark.rule("board.new-messages")
def test_a_rate_limit_naming_the_client_is_no_fault_of_the_callee():
    _, _, report = run_with_schemas(
        _fare_world(), incident("fare-web", "fares failing"), names=NO_NETCHECK
    )

    assert report.top.id == "application:fare-web"
    assert not any(
        h.id == "application:tariff-hub" and h.status != "ruled_out"
        for h in report.hypotheses
    )


@pytest.mark.rule("board.new-messages", "board.warning-leads")
def test_a_standing_hypothesis_on_a_victim_yields_to_the_root_it_relays():
    world = _oven_world()
    world.answers[("top_errors", "plate-web")] = logged(
        "plate-web",
        errors=[group(CALLER_TIMEOUT, count=400)],
        warnings=[group("http client pool exhausted: 40/40 busy", count=50)],
    )

    _, _, report = run_with_schemas(
        world, incident("plate-web", "plates slow"), names=NO_NETCHECK
    )

    assert report.top.id == "application:oven-api"
    assert report.top.status == "confirmed"
    plate = next(h for h in report.hypotheses if h.id == "application:plate-web")
    assert plate.confidence < report.top.confidence
