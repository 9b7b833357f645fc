"""Issue 21 class 2 and item 4: warnings, a baseline before the window, and changes just before the start.

- Where the logs server offers it, top_errors is asked for warnings apart from errors and for a
  baseline (the hour before the window); a new warning naming a cause is a lead for its service,
  confirmed by its callers' failures naming it or by its own failing metrics.
- An error that was logged before the window too is stale: a lead at most, never confirmed by itself.
- A change (deploy, DNS record edit) found in any service's logs just before a component's failures
  began strengthens that component; a DNS record change re-layers the host's failing connects as dns.
"""

import asyncio

import pytest

from reasoning.layered import LayeredPlanner
from reasoning.layered.facts import Facts
from reasoning.observations import Investigation, Observation, ToolInfo
from tests.reasoning.test_planner import (
    SERVERS,
    World,
    health,
    incident,
    probe,
    targets,
)

FAILING = [("error_ratio", "critical", "error ratio 31% since 10:20")]
SLOW = [("p99_latency_s", "critical", "p99 latency 3.9 s since 10:18")]
# What the logs server offers beyond the bare tools (mcpservers/logs): warnings, baseline, regex.
SCHEMAS = {
    "top_errors": {
        "type": "object",
        "properties": {
            "service": {"type": "string"},
            "warnings": {"type": "boolean"},
            "baseline_s": {"type": "integer"},
        },
        "required": ["service"],
    },
    "search_logs": {
        "type": "object",
        "properties": {
            "service": {"type": "string"},
            "query": {"type": "string"},
            "regex": {"type": "boolean"},
        },
    },
}


def tool_infos(names=tuple(SERVERS)):
    return [
        ToolInfo(
            server=SERVERS[n],
            name=n,
            description="",
            input_schema=SCHEMAS.get(n, {"type": "object"}),
            is_read_only=n != "restart_workload",
            is_destructive=n == "restart_workload",
            is_idempotent=True,
        )
        for n in names
    ]


def group(message, *, count=10, before=0, first_seen="2030-01-01T10:15:00Z"):
    return {
        "signature": message,
        "count": count,
        "sample": message,
        "first_seen": first_seen,
        "before": before,
    }


def logged(service, errors=(), warnings=()):
    return {
        "service": service,
        "top": list(errors),
        "warnings": list(warnings),
        "baseline": {"start": "2030-01-01T09:00:00Z", "end": "2030-01-01T10:00:00Z"},
    }


def lines(*entries):
    return {
        "lines": [
            {"service": s, "time": t, "level": "info", "message": m, "labels": {}}
            for s, t, m in entries
        ]
    }


def run_with_schemas(world, brief, names=tuple(SERVERS)):
    """test_planner.run, with the tools described as the logs server describes them."""
    planner = LayeredPlanner()
    inv = Investigation(incident=brief, tools=tool_infos(names))
    while calls := asyncio.run(planner.next_round(inv)):
        n = inv.round + 1
        inv.observations.extend(
            world.answer(c, f"s{n}-{i}") for i, c in enumerate(calls, 1)
        )
        inv.round = n
    return inv, planner, asyncio.run(planner.conclude(inv))


NO_NETCHECK = ("service_health", "top_errors", "search_logs", "search_runbooks")
CALLER_TIMEOUT = (
    "price lookup failed: GET http://tariff-svc/v3/prices/881 timed out after 1500ms"
)


def _caller_world(warning_before):
    return World(
        {
            ("service_health", "basket-web"): health("basket-web", "degraded", SLOW),
            ("top_errors", "basket-web"): logged(
                "basket-web", errors=[group(CALLER_TIMEOUT, count=240)]
            ),
            ("service_health", "tariff-svc"): health("tariff-svc", "degraded", SLOW),
            ("top_errors", "tariff-svc"): logged(
                "tariff-svc",
                warnings=[
                    group(
                        "slow query 3.80s: prices by sku; plan: Seq Scan on tariffs",
                        before=warning_before,
                    )
                ],
            ),
            ("search_logs", ""): lines(),
        }
    )


@pytest.mark.rule("board.warning-leads")
def test_a_new_warning_naming_a_cause_is_confirmed_by_its_callers_timeouts():
    world = _caller_world(warning_before=0)

    _, _, report = run_with_schemas(
        world, incident("basket-web", "basket pages slow"), names=NO_NETCHECK
    )

    asked = dict(world.arguments)
    assert asked["top_errors"]["warnings"] is True
    assert asked["top_errors"]["baseline_s"] == 3600
    # The callee is read because the caller's error calls it by URL.
    assert ("top_errors", "tariff-svc") in world.asked
    assert report.top.id == "application:tariff-svc"
    assert report.top.status == "confirmed" and report.conclusive
    cited = " ".join(e.fact for e in report.top.evidence)
    assert "Seq Scan" in cited and "timed out" in cited


@pytest.mark.rule("board.warning-leads")
def test_a_pool_with_no_connection_to_lend_at_warn_level_is_its_services_cause():
    """Pool libraries word exhaustion as a connection that is not available (HikariCP) or cannot
    be acquired: at warn level in the callee, it is the callee's own cause, not a symptom."""
    waiting = (
        "JdbcPool-3 - Connection is not available, request timed out after 20000ms "
        "(total=12, active=12, idle=0, waiting=40)"
    )
    world = World(
        {
            ("service_health", "cart-edge"): health("cart-edge", "unhealthy", FAILING),
            ("top_errors", "cart-edge"): logged(
                "cart-edge",
                errors=[
                    group(
                        "GET http://ledger-svc/v2/lines failed: 504 after 8000ms",
                        count=300,
                    )
                ],
            ),
            ("service_health", "ledger-svc"): health("ledger-svc", "degraded", SLOW),
            ("top_errors", "ledger-svc"): logged(
                "ledger-svc", warnings=[group(waiting, count=120)]
            ),
            ("search_logs", ""): lines(),
        }
    )

    _, _, report = run_with_schemas(
        world, incident("cart-edge", "cart never loads"), names=NO_NETCHECK
    )

    assert report.top.id == "application:ledger-svc"
    assert report.top.status == "confirmed" and report.conclusive
    cited = " ".join(e.fact for e in report.top.evidence)
    assert "Connection is not available" in cited and "504" in cited


@pytest.mark.rule("board.application")
def test_a_pool_with_no_connection_to_lend_at_error_level_is_an_own_error():
    """The same wording at error level is the service's own application error (not an upstream's)."""
    world = World(
        {
            ("service_health", "stock-svc"): health("stock-svc", "unhealthy", FAILING),
            ("top_errors", "stock-svc"): logged(
                "stock-svc",
                errors=[
                    group(
                        "GET /v4/levels/77 503: unable to acquire a pooled connection "
                        "within 4000ms (in use 40/40)",
                        count=90,
                    )
                ],
            ),
            ("search_logs", ""): lines(),
        }
    )

    _, _, report = run_with_schemas(
        world, incident("stock-svc", "stock levels fail"), names=NO_NETCHECK
    )

    assert report.top.id == "application:stock-svc"
    assert report.top.status == "confirmed"
    assert "unable to acquire a pooled connection" in report.top.statement


def test_a_warning_logged_before_the_window_too_is_no_lead():
    world = _caller_world(warning_before=55)

    _, _, report = run_with_schemas(
        world, incident("basket-web", "basket pages slow"), names=NO_NETCHECK
    )

    lead = next(
        (h for h in report.hypotheses if h.id == "application:tariff-svc"), None
    )
    assert lead is None or lead.status != "confirmed"


@pytest.mark.rule("board.application")
def test_a_stale_error_stays_a_lead_below_a_new_one():
    world = World(
        {
            ("service_health", "ledger-api"): health(
                "ledger-api", "unhealthy", FAILING
            ),
            ("top_errors", "ledger-api"): logged(
                "ledger-api",
                errors=[group("deadlock detected on table entries", before=40)],
            ),
        }
    )
    _, _, stale = run_with_schemas(
        world, incident("ledger-api", "postings fail"), names=NO_NETCHECK
    )
    world.answers[("top_errors", "ledger-api")]["top"][0]["before"] = 0
    _, _, new = run_with_schemas(
        World(world.answers), incident("ledger-api", "postings fail"), names=NO_NETCHECK
    )

    old = next(h for h in stale.hypotheses if h.id == "application:ledger-api")
    assert old.status == "likely" and old.confidence <= 0.3
    assert not stale.conclusive
    assert new.top.id == "application:ledger-api" and new.top.status == "confirmed"


VAULT = "https://vault.ops.example/v1/sys/health"
REFUSED = 'sign 77 failed: Post "https://vault.ops.example/v1/sign": dial tcp 10.9.1.4:443: connect: connection refused'


def _refused_world(change_time):
    return World(
        {
            ("service_health", "signer"): health("signer", "unhealthy", FAILING),
            ("top_errors", "signer"): logged(
                "signer", errors=[group(REFUSED, first_seen="2030-01-01T10:20:00Z")]
            ),
            ("list_targets", ""): targets(VAULT),
            ("probe_url", VAULT): probe(
                VAULT, "connect", "refused", ["connect 10.9.1.4:443: refused"]
            ),
            ("search_logs", ""): lines(
                (
                    "zone-audit",
                    change_time,
                    "change 7QX2 applied: UPSERT A vault.ops.example 10.9.1.4 (was 10.9.7.7)",
                )
            ),
        }
    )


@pytest.mark.rule("board.changes")
def test_a_dns_record_changed_just_before_connects_fail_is_the_dns_layer():
    world = _refused_world("2030-01-01T10:12:00Z")

    _, _, report = run_with_schemas(world, incident("signer", "signatures fail"))

    search = next(a for t, a in world.arguments if t == "search_logs")
    assert search["regex"] is True and "service" not in search
    assert search["end"] == "2030-01-01T10:20:00Z"
    assert report.top.id == "dns:vault.ops.example"
    assert report.top.status == "confirmed" and report.conclusive
    assert any("UPSERT A vault.ops.example" in e.fact for e in report.top.evidence)
    connect = next(h for h in report.hypotheses if h.id == "connect:vault.ops.example")
    assert connect.status == "likely" and connect.confidence <= 0.4


def test_a_dns_record_changed_after_the_failures_began_changes_nothing():
    world = _refused_world("2030-01-01T10:40:00Z")

    _, _, report = run_with_schemas(world, incident("signer", "signatures fail"))

    assert report.top.id == "connect:vault.ops.example"
    assert all(h.layer != "dns" for h in report.hypotheses)


@pytest.mark.rule("board.changes")
def test_a_deploy_of_the_failing_service_just_before_strengthens_it():
    def world(deploy_lines):
        return World(
            {
                ("service_health", "quote-api"): health(
                    "quote-api", "unhealthy", FAILING
                ),
                ("top_errors", "quote-api"): logged(
                    "quote-api",
                    errors=[
                        group(
                            "Traceback (most recent call last): KeyError: 'vat_zone'",
                            first_seen="2030-01-01T10:20:00Z",
                        )
                    ],
                ),
                ("search_logs", ""): deploy_lines,
            }
        )

    quiet = world(lines())
    _, _, plain = run_with_schemas(
        quiet, incident("quote-api", "quotes fail"), names=NO_NETCHECK
    )
    deployed = world(
        lines(
            (
                "release-bot",
                "2030-01-01T10:17:30Z",
                "quote-api deployed: image quote-api:4.12.0 rolled out",
            )
        )
    )
    _, _, strengthened = run_with_schemas(
        deployed, incident("quote-api", "quotes fail"), names=NO_NETCHECK
    )

    assert ("search_logs", "") in deployed.asked
    assert strengthened.top.id == plain.top.id == "application:quote-api"
    assert strengthened.top.confidence > plain.top.confidence
    assert any("rolled out" in e.fact for e in strengthened.top.evidence)


def test_facts_keep_warnings_apart_and_read_only_non_error_change_lines():
    def obs(span, tool, arguments, result):
        return Observation(
            span_id=span,
            agent="logs",
            server="logs-mcp",
            tool=tool,
            arguments=arguments,
            is_ok=True,
            result=result,
        )

    facts = Facts.read(
        [
            obs(
                "a",
                "top_errors",
                {"service": "tariff-svc"},
                logged(
                    "tariff-svc",
                    errors=[group("KeyError: 'sku'", before=3)],
                    warnings=[group("lock wait 900ms on prices")],
                ),
            ),
            obs(
                "b",
                "search_logs",
                {"query": "x", "regex": True},
                {
                    "lines": [
                        {
                            "service": "zone-audit",
                            "time": "2030-01-01T10:05:00Z",
                            "level": "info",
                            "message": "UPSERT CNAME shop.acme.test -> edge-2.acme.test",
                        },
                        {
                            "service": "ci",
                            "time": "2030-01-01T10:06:00Z",
                            "level": "info",
                            "message": "tariff-svc deployed (helm upgrade rev 31)",
                        },
                        {
                            "service": "tariff-svc",
                            "time": "2030-01-01T10:07:00Z",
                            "level": "error",
                            "message": "deploy hook failed: config missing",
                        },
                    ]
                },
            ),
        ]
    )

    errors = facts.errors["tariff-svc"]
    assert [g.sample for g in errors.groups] == ["KeyError: 'sku'"]
    assert errors.groups[0].is_stale and not errors.groups[0].is_new
    assert [g.sample for g in errors.warnings] == ["lock wait 900ms on prices"]
    assert errors.warnings[0].is_new
    assert [g.sample for _, g in facts.error_texts()] == ["KeyError: 'sku'"]
    assert [(c.service, c.is_dns_record) for c in facts.changes] == [
        ("zone-audit", True),
        ("ci", False),
    ]


def test_a_path_failure_logged_before_the_window_too_is_a_lead_only():
    def world(before):
        return World(
            {
                ("service_health", "invoicer"): health(
                    "invoicer", "unhealthy", FAILING
                ),
                ("top_errors", "invoicer"): logged(
                    "invoicer",
                    errors=[
                        group(
                            "render 12 failed: dial tcp: lookup pdf.tools.example: no such host",
                            before=before,
                        )
                    ],
                ),
                ("search_logs", ""): lines(),
            }
        )

    _, _, stale = run_with_schemas(
        world(30), incident("invoicer", "invoices fail"), names=NO_NETCHECK
    )
    _, _, new = run_with_schemas(
        world(0), incident("invoicer", "invoices fail"), names=NO_NETCHECK
    )

    assert new.top.id == "dns:pdf.tools.example" and new.top.status == "confirmed"
    old = next(h for h in stale.hypotheses if h.id == "dns:pdf.tools.example")
    assert old.status == "likely" and old.confidence <= 0.3


@pytest.mark.timeout(60)
def test_a_hostile_change_search_line_is_read_in_linear_time():
    # A dotted run with no value after it, and a version run with no "started": the change pattern
    # backtracked over the whole line from every start (a 40,000-character line took 11 s).
    hostile = ["a." * 50_000, "x.y = " + "a." * 50_000, "1." * 50_000]
    facts = Facts.read(
        [
            Observation(
                span_id="h",
                agent="logs",
                server="logs-mcp",
                tool="search_logs",
                arguments={"query": "x", "regex": True},
                is_ok=True,
                result={
                    "lines": [
                        {"service": "s", "time": "t", "level": "info", "message": m}
                        for m in hostile * 20
                    ]
                    + [
                        {
                            "service": "flags",
                            "time": "2030-01-01T10:05:00Z",
                            "level": "info",
                            "message": "checkout.fraud_v3: 5 -> 100",
                        }
                    ]
                },
            )
        ]
    )

    assert [c.service for c in facts.changes] == ["flags"]
