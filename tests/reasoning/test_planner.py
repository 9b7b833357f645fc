"""LayeredPlanner: recorded runs of the real servers replayed round by round, and synthetic cases.

The fixtures are what the real bundled servers answered to exactly the calls this planner asked
(tests/reasoning/record.py); a replay fails if the planner now asks something else, which
means: re-record. The synthetic cases are not the bundled scenarios, to show the rules generalise.
"""

import asyncio
import json
from pathlib import Path

import pytest

from reasoning import layers
from reasoning.layered import LayeredPlanner, backend_gauges, metric_trends
from reasoning.observations import (
    IncidentBrief,
    Investigation,
    Observation,
    PlannedCall,
    ToolInfo,
)
from reasoning.report import Report
from reasoning.tools import AmbiguousTool

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SCENARIOS = Path(__file__).resolve().parents[2] / "mcpservers" / "scenarios"
# The scenarios with a recorded run (the others are run by `evaluate` and test_kubernetes_agent.py).
SCENARIO_SLUGS = sorted(
    p.stem
    for p in FIXTURES.glob("*.json")
    if (SCENARIOS / p.stem / "expected.json").is_file()
)
RERECORD = "re-record: .venv/bin/python -m tests.reasoning.record {}"


def key(tool, arguments):
    return tool, json.dumps(arguments, sort_keys=True)


def load(name):
    return json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))


def brief(data):
    incident = dict(data["incident"])
    incident["symptoms"] = tuple(incident["symptoms"])
    return IncidentBrief(**incident)


def tools(data):
    return [ToolInfo(**t) for t in data["tools"]]


def replay(name, planner=None):
    """Drive the planner through a fixture; every call it asks must be one the fixture recorded."""
    data = load(name)
    planner = planner or LayeredPlanner()
    inv = Investigation(incident=brief(data), tools=tools(data))
    reports = []
    for n, recorded in enumerate(data["rounds"], 1):
        calls = asyncio.run(planner.next_round(inv))
        asked = sorted(key(c.tool, dict(c.arguments)) for c in calls)
        expected = sorted(key(c["tool"], c["arguments"]) for c in recorded["calls"])
        assert asked == expected, f"round {n} differs: {RERECORD.format(name)}"
        inv.observations.extend(Observation(**o) for o in recorded["observations"])
        inv.round = n
        reports.append(asyncio.run(planner.conclude(inv)))
    assert asyncio.run(planner.next_round(inv)) == [], (
        f"planner asks more: {RERECORD.format(name)}"
    )
    return data, inv, planner, reports


def expected(slug):
    return json.loads((SCENARIOS / slug / "expected.json").read_text(encoding="utf-8"))


def span_text(inv, span_id):
    obs = next(o for o in inv.observations if o.span_id == span_id)
    return json.dumps(obs.result) + obs.text + (obs.error_message or "")


# --- the recorded scenarios --------------------------------------------------------------------


@pytest.mark.parametrize("slug", SCENARIO_SLUGS)
def test_top_hypothesis_has_the_expected_layer_component_and_signal(slug):
    _, inv, _, reports = replay(slug)
    want = expected(slug)
    top = reports[-1].top

    assert top is not None
    assert top.layer == layers.normalize(want["root_cause_layer"])
    assert top.component in want["root_cause_component"]
    assert top.status == "confirmed" and reports[-1].conclusive
    assert any(
        want["root_cause_signal"] in span_text(inv, e.span_id) for e in top.evidence
    )


@pytest.mark.parametrize("slug", SCENARIO_SLUGS)
def test_expected_json_names_components_and_a_signal(slug):
    want = expected(slug)

    assert (
        isinstance(want["root_cause_component"], list) and want["root_cause_component"]
    )
    assert all(isinstance(c, str) and c for c in want["root_cause_component"])
    assert isinstance(want["root_cause_signal"], str) and want["root_cause_signal"]


def test_default_environment_payment_incident_is_honestly_inconclusive():
    _, _, _, reports = replay("default")
    report = reports[-1]

    assert not report.conclusive
    assert report.summary.startswith("no decisive evidence")
    assert all(h.status != "confirmed" for h in report.hypotheses)
    assert all(h.confidence < 0.5 for h in report.hypotheses)
    questions = " ".join(report.open_questions)
    assert "top_errors(payment)" in questions
    assert "no URL target" in questions
    # The name is unknown to every source: the planner surveyed every service and says so.
    assert "service 'payment' is unknown to every data source read" in questions
    assert "the survey of every service found none unhealthy" in questions
    # "no logs for service" is the caller's question being wrong, not the back end failing.
    assert not any(h.layer == layers.TOOL_BACKEND for h in report.hypotheses)


@pytest.mark.parametrize("name", [*SCENARIO_SLUGS, "default"])
def test_round_one_asks_health_errors_targets_and_runbooks_of_the_incident(name):
    data = load(name)
    inv = Investigation(incident=brief(data), tools=tools(data))

    calls = asyncio.run(LayeredPlanner().next_round(inv))

    service = inv.incident.service
    window = {"start": inv.incident.window_start, "end": inv.incident.window_end}
    # Warnings apart and the hour before as a baseline, where the logs server offers them.
    offered = inv.find_tool("top_errors").input_schema.get("properties", {})
    logs = {
        **({"warnings": True} if "warnings" in offered else {}),
        **({"baseline_s": 3600} if "baseline_s" in offered else {}),
    }
    assert {(c.tool, json.dumps(dict(c.arguments), sort_keys=True)) for c in calls} == {
        key("service_health", {"service": service, **window}),
        key("top_errors", {"service": service, **window, **logs}),
        key("list_targets", {}),
        key(
            "search_runbooks", {"symptoms": " ".join(inv.incident.symptoms), "limit": 3}
        ),
        # Every service's own series against the hour before (metric_trends), and every
        # exporter's without a service label (backend_gauges).
        key("query_metric", metric_trends.read(window)),
        key("query_metric", backend_gauges.read(window)),
    }
    servers = {t.name: t.server for t in inv.tools}
    assert all(c.server == servers[c.tool] for c in calls)


@pytest.mark.parametrize("name", [*SCENARIO_SLUGS, "default"])
def test_every_cited_span_exists_and_the_report_serialises(name):
    _, inv, _, reports = replay(name)
    spans = {o.span_id for o in inv.observations}

    for h in reports[-1].hypotheses:
        assert {e.span_id for e in h.evidence} <= spans
        assert h.evidence or h.status == "ruled_out"
    json.dumps(reports[-1].to_dict())


@pytest.mark.rule("probe.gateway-pass-through")
def test_tls_follows_the_upstream_and_rules_out_the_gateway_502():
    data, _, _, reports = replay("tls-expired")
    report = reports[-1]
    round2 = {
        (c["tool"], c["arguments"].get("service")) for c in data["rounds"][1]["calls"]
    }
    gateway = next(h for h in report.hypotheses if h.id == "http:payments-gw.internal")

    # upstream=payments-gw in checkout's errors (and the symptoms) is followed.
    assert {("service_health", "payments-gw"), ("top_errors", "payments-gw")} <= round2
    assert gateway.status == "ruled_out"
    assert gateway.reason_ruled_out.startswith("explained by tls:api.payments.internal")
    chain = report.top.causal_chain
    assert chain[0].startswith("checkout") and "502" in chain[0]
    assert any("payments-gw.internal answers HTTP 502" in step for step in chain)
    assert "certificate_expired" in chain[-1]
    # Confirmed by another source than the probe: payments-gw's own logs.
    assert {e.server for e in report.top.evidence} >= {"netcheck", "logs"}


def test_findings_are_searched_in_the_runbooks_and_cited_as_next_steps():
    data, _, _, reports = replay("tls-expired")
    last = data["rounds"][-1]["calls"]
    report = reports[-1]

    assert [c["tool"] for c in last] == ["search_runbooks"]
    query = last[0]["arguments"]["symptoms"]
    assert {"tls", "certificate_expired", "api.payments.internal"} <= set(query.split())
    runbooks = [s for s in report.next_steps if s.runbook_uri]
    assert runbooks and "findings" in runbooks[0].text
    assert "certificate" in runbooks[0].runbook_title.lower()


def test_dns_names_the_host_from_the_logs_and_a_path_by_address_that_works():
    _, _, _, reports = replay("dns-nxdomain")
    report = reports[-1]
    facts = " ".join(e.fact for e in report.top.evidence)

    # (The scenario's by-address target has its own listener since targets.json, so the recording
    # no longer shows the same port: test_a_working_path_on_the_same_port_narrows_a_dns_failure.)
    assert "no such host" in facts
    by_ip = next(h for h in report.hypotheses if h.component == "127.0.0.1")
    assert (
        by_ip.status == "ruled_out" and "passed every layer" in by_ip.reason_ruled_out
    )
    payments_api = next(h for h in report.hypotheses if h.component == "payments-api")
    assert payments_api.status == "ruled_out"


def test_a_working_path_on_the_same_port_narrows_a_dns_failure():
    named, by_ip = "https://ledger.bank.internal:8443", "https://127.0.0.1:8443"
    world = World(
        {
            ("service_health", "tellers"): health(
                "tellers", "unhealthy", [("error_ratio", "critical", "errors")]
            ),
            ("top_errors", "tellers"): errors(
                "tellers",
                "post failed: dial tcp: lookup ledger.bank.internal: no such host",
            ),
            ("list_targets", ""): targets(named, by_ip),
            ("probe_url", named): probe(named, "dns", "nxdomain", ["NXDOMAIN"]),
            ("probe_url", by_ip): probe(by_ip, status=200),
        }
    )

    _, _, report = run(world, incident("tellers", "postings fail"))

    assert report.top.id == "dns:ledger.bank.internal"
    assert any("same port" in e.fact for e in report.top.evidence)


def test_streams_in_the_symptoms_make_probes_watch_the_stream():
    data, _, _, reports = replay("proxy-idle-timeout")
    probes = [c for r in data["rounds"] for c in r["calls"] if c["tool"] == "probe_url"]

    assert probes and all(c["arguments"]["stream_s"] == 6.0 for c in probes)
    evidence = reports[-1].top.evidence
    # edge-proxy's errors (named in the symptoms) name the host the stream is cut on.
    assert any(
        e.tool == "top_errors" and "events.shop.internal" in e.fact for e in evidence
    )


def test_stream_watch_length_is_a_constructor_parameter():
    data = load("proxy-idle-timeout")
    inv = Investigation(incident=brief(data), tools=tools(data))
    inv.observations.extend(Observation(**o) for o in data["rounds"][0]["observations"])
    inv.round = 1

    calls = asyncio.run(LayeredPlanner(stream_watch_s=2.5).next_round(inv))

    probes = [c for c in calls if c.tool == "probe_url"]
    assert probes and all(c.arguments["stream_s"] == 2.5 for c in probes)


@pytest.mark.rule("board.tool-failures", "board.backend-support")
def test_log_backend_timeout_is_about_the_tool_not_the_service():
    data, _, _, reports = replay("log-backend-timeout")
    report = reports[-1]
    ranked = [h for h in report.ranked() if h.status != "ruled_out"]

    assert ranked[0].id == "tool_backend:loki"
    # loki's own metrics alone (its logs cannot be read) make an application lead, not a finding.
    app = next(h for h in report.hypotheses if h.id == "application:loki")
    assert app.status == "likely" and app.confidence < ranked[0].confidence
    # The loki readers' probe failures support it instead of ranking above it.
    probes = [e for e in ranked[0].evidence if e.tool == "probe_url"]
    assert len(probes) == 2
    assert not any("loki.internal" in h.component for h in report.hypotheses)
    # Logs are not asked again while their back end is down.
    logs_calls = [
        c for r in data["rounds"] for c in r["calls"] if c["tool"] == "top_errors"
    ]
    assert len(logs_calls) == 1
    assert any("logs of checkout were not read" in q for q in report.open_questions)


def test_pool_exhaustion_proposes_a_restart_and_verifies_it():
    data, inv, planner, reports = replay("pool-exhaustion")
    report = reports[-1]
    top = report.top

    assert top.id == "application:checkout"
    assert {e.server for e in top.evidence} >= {"metrics", "logs", "netcheck"}
    probe = next(
        h for h in report.hypotheses if h.component == "checkout.shop.internal"
    )
    assert (
        probe.status == "ruled_out" and "application:checkout" in probe.reason_ruled_out
    )

    actions = asyncio.run(planner.actions(inv, report))
    assert [(a.tool, dict(a.arguments)) for a in actions] == [
        ("restart_workload", {"namespace": "default", "name": "checkout"})
    ]
    assert "application:checkout" in actions[0].why
    recorded = data["actions"][0]
    assert recorded["observation"]["is_ok"]

    checks = asyncio.run(planner.verify(inv, actions[0]))
    assert [
        (c.tool, c.arguments.get("service") or c.arguments.get("url")) for c in checks
    ] == [
        ("service_health", "checkout"),
        (
            "probe_url",
            next(t for t in inv.observations if t.tool == "probe_url").arguments["url"],
        ),
    ]
    assert [c["tool"] for c in recorded["verify_calls"]] == [c.tool for c in checks]
    inv.observations.append(Observation(**recorded["observation"]))
    inv.observations.extend(Observation(**o) for o in recorded["verify_observations"])
    effect = planner.effect(inv, actions[0])
    assert (
        effect.startswith("checkout ")
        and "probe http://checkout.shop.internal" in effect
    )


@pytest.mark.parametrize(
    "name", [s for s in SCENARIO_SLUGS if s != "pool-exhaustion"] + ["default"]
)
def test_no_action_without_a_confirmed_leak(name):
    _, inv, planner, reports = replay(name)

    assert asyncio.run(planner.actions(inv, reports[-1])) == []


def test_report_is_partial_until_the_planner_has_nothing_more_to_ask():
    _, _, _, reports = replay("tls-expired")

    # Round 1 also reads every service's and every exporter's own series; round 3 searches the logs for a change to
    # the failing host and for every line naming each failing host; round 4 the runbooks.
    assert [r.partial for r in reports] == [True, True, True, False]
    # Round 3 also asks for the lines about the failing host's certificate issuance (cited_lines),
    # and a round the changes recorded about the leading service (cited_lines.change_reads), and
    # every service's lines saying a certificate issuer refused (issuer_refusal).
    assert reports[0].tool_calls == 6 and reports[-1].tool_calls == 17


# --- synthetic cases: a small world of tool answers --------------------------------------------

SERVERS = {
    "service_health": "prom-mcp",
    "query_metric": "prom-mcp",
    "top_errors": "logs-mcp",
    "search_logs": "logs-mcp",
    "list_targets": "net-mcp",
    "probe_url": "net-mcp",
    "search_runbooks": "kb-mcp",
    "restart_workload": "ops-mcp",
}


def tool_infos(names=tuple(SERVERS)):
    return [
        ToolInfo(
            server=SERVERS[n],
            name=n,
            description="",
            input_schema={"type": "object"},
            is_read_only=n != "restart_workload",
            is_destructive=n == "restart_workload",
            is_idempotent=True,
        )
        for n in names
    ]


def health(service, verdict="healthy", findings=()):
    return {
        "service": service,
        "verdict": verdict,
        "summary": f"{verdict}: "
        + ("; ".join(d for _, _, d in findings) or "all signals within thresholds"),
        "findings": [
            {"signal": s, "severity": sev, "detail": d} for s, sev, d in findings
        ],
        "signals": {},
    }


def errors(service, *messages):
    return {
        "service": service,
        "error_lines": 10 * len(messages),
        "patterns": len(messages),
        "top": [
            {"signature": m, "count": 10, "sample": m, "levels": {"error": 10}}
            for m in messages
        ],
    }


def probe(url, layer="none", reason=None, evidence=(), status=None, body=None):
    return {
        "url": url,
        "status": status,
        "failed_layer": layer,
        "reason": reason,
        "evidence": list(evidence),
        "http": None if status is None else {"status": status, "body_excerpt": body},
    }


class World:
    """Answers calls from tables: (tool, subject) → structured result, or a failure."""

    def __init__(self, answers, failures=None):
        self.answers = answers
        self.failures = failures or {}
        self.asked = []
        self.arguments = []  # every call's arguments, in the order asked

    def answer(self, call, span_id):
        subject = (
            call.arguments.get("service")
            or call.arguments.get("url")
            or call.arguments.get("promql")
            or ""
        )
        self.asked.append((call.tool, subject))
        self.arguments.append((call.tool, dict(call.arguments)))
        base = {
            "span_id": span_id,
            "agent": call.agent,
            "server": call.server,
            "tool": call.tool,
            "arguments": call.arguments,
        }
        if (call.tool, subject) in self.failures:
            layer, code, message = self.failures[(call.tool, subject)]
            return Observation(
                **base,
                is_ok=False,
                error_layer=layer,
                error_code=code,
                error_message=message,
                text=message,
            )
        if (call.tool, subject) in self.answers:
            return Observation(
                **base, is_ok=True, result=self.answers[(call.tool, subject)]
            )
        if call.tool == "search_runbooks":
            return Observation(**base, is_ok=True, result={"results": []})
        if call.tool in ("top_errors", "search_logs"):
            message = f"no logs for service {subject!r}; known services: a, b"
            return Observation(
                **base,
                is_ok=False,
                error_layer="tool_backend",
                error_code="tool_error",
                error_message=message,
            )
        if call.tool == "service_health":
            return Observation(**base, is_ok=True, result=health(subject, "unknown"))
        if call.tool == "query_metric":  # a metrics server with no series for the query
            return Observation(**base, is_ok=True, result={"series": []})
        raise AssertionError(f"unexpected call {call.tool}({subject})")


def run(world, incident, planner=None, names=tuple(SERVERS)):
    planner = planner or LayeredPlanner()
    inv = Investigation(incident=incident, tools=tool_infos(names))
    while calls := asyncio.run(planner.next_round(inv)):
        n = inv.round + 1
        inv.observations.extend(
            world.answer(c, f"s{n}-{i}") for i, c in enumerate(calls, 1)
        )
        inv.round = n
    return inv, planner, asyncio.run(planner.conclude(inv))


def incident(service, *symptoms, title="synthetic incident"):
    return IncidentBrief(
        title=title,
        service=service,
        severity="sev2",
        symptoms=symptoms,
        window_start="2030-01-01T10:00:00Z",
        window_end="2030-01-01T11:00:00Z",
    )


def targets(*allow):
    return {"allow": list(allow), "allow_net": [], "resolve": {}, "dns_server": None}


@pytest.mark.rule("board.network", "probe.corroborate")
def test_connect_refused_on_a_dependency_with_healthy_metrics():
    url = "http://inventory.internal:8080"
    world = World(
        {
            ("service_health", "cart"): health(
                "cart", "unhealthy", [("error_ratio", "critical", "error ratio 30%")]
            ),
            ("top_errors", "cart"): errors(
                "cart",
                "GET /cart 500 upstream=inventory: dial tcp 10.0.0.5:8080: connect: connection refused",
            ),
            ("list_targets", ""): targets(url, "http://cart.internal:80"),
            ("service_health", "inventory"): health("inventory"),
            ("top_errors", "inventory"): errors("inventory"),
            ("probe_url", url): probe(
                url, "connect", "refused", ["connection refused by 10.0.0.5:8080 (RST)"]
            ),
            ("probe_url", "http://cart.internal:80"): probe(
                "http://cart.internal:80", status=200
            ),
        }
    )

    _, _, report = run(world, incident("cart", "cart answers 500 on every request"))

    # upstream=inventory was followed before anything said the word in the incident.
    assert ("service_health", "inventory") in world.asked
    assert report.top.id == "connect:inventory"  # the host named as its service
    assert report.top.status == "confirmed" and report.conclusive
    assert any(
        "connection refused" in e.fact
        for e in report.top.evidence
        if e.tool == "top_errors"
    )
    inventory = next(h for h in report.hypotheses if h.id == "application:inventory")
    assert inventory.status == "ruled_out"
    assert (
        next(h for h in report.hypotheses if h.component == "cart.internal").status
        == "ruled_out"
    )


def test_servfail_from_the_resolver_is_a_dns_failure():
    url = "https://es.search.internal:9200"
    world = World(
        {
            ("service_health", "search"): health(
                "search", "degraded", [("error_ratio", "warning", "error ratio 3%")]
            ),
            ("top_errors", "search"): errors(
                "search",
                "query failed: dial tcp: lookup es.search.internal on 10.96.0.10:53: server misbehaving",
            ),
            ("list_targets", ""): targets(url),
            ("probe_url", url): probe(
                url,
                "dns",
                "servfail",
                ["SERVFAIL from 10.96.0.10:53 for es.search.internal"],
            ),
        }
    )

    _, _, report = run(
        world, incident("search", "search is slow and fails now and then")
    )

    assert report.top.id == "dns:es.search.internal"
    assert report.top.status == "confirmed"
    assert "servfail" in report.top.statement
    assert report.top.causal_chain[-1] == report.top.statement


@pytest.mark.rule("board.tool-failures")
def test_an_mcp_layer_failure_is_about_our_hop_never_the_service():
    world = World(
        {
            ("service_health", "billing"): health("billing"),
            ("list_targets", ""): targets(),
        },
        failures={
            ("top_errors", "billing"): (
                "mcp",
                "ConnectionLost",
                "connection to the server was lost",
            )
        },
    )

    _, _, report = run(world, incident("billing", "invoices are late"))

    mcp = next(h for h in report.hypotheses if h.layer == layers.MCP)
    assert (
        mcp.component == "logs-mcp" and mcp.status == "likely" and mcp.confidence <= 0.3
    )
    assert not any(
        h.component == "billing" and h.status != "ruled_out" for h in report.hypotheses
    )
    assert not report.conclusive and report.summary.startswith("no decisive evidence")
    assert any("top_errors(billing)" in q for q in report.open_questions)


@pytest.mark.rule("probe.gateway-pass-through")
def test_a_gateway_502_naming_an_unprobed_upstream_points_below_itself():
    url = "http://edge.internal:8080"
    body = "502 Bad Gateway: upstream connect error: dial tcp ledger.db.internal:5432: connect: connection refused"
    world = World(
        {
            ("service_health", "api"): health(
                "api", "unhealthy", [("error_ratio", "critical", "error ratio 40%")]
            ),
            ("top_errors", "api"): errors("api", "POST /pay 502 from edge"),
            ("list_targets", ""): targets(url),
            ("probe_url", url): probe(
                url, "http", "http_502", ["HTTP 502 Bad Gateway"], status=502, body=body
            ),
        }
    )

    _, _, report = run(world, incident("api", "payments answer 502"))

    assert report.top.id == "connect:ledger.db.internal"
    assert report.top.status == "likely"
    edge = next(h for h in report.hypotheses if h.component == "edge.internal")
    assert edge.confidence < report.top.confidence
    assert any(
        "ledger.db.internal is not a netcheck target" in q
        for q in report.open_questions
    )


@pytest.mark.rule("board.backend-support", "board.network")
def test_a_failing_log_back_end_unrelated_to_the_incident_does_not_outrank_the_network():
    url = "https://pay.internal:443"
    world = World(
        {
            ("service_health", "shop"): health(
                "shop", "unhealthy", [("error_ratio", "critical", "error ratio 12%")]
            ),
            ("list_targets", ""): targets(url),
            ("probe_url", url): probe(
                url, "tls", "certificate_expired", ["certificate expired"]
            ),
        },
        failures={
            ("top_errors", "shop"): (
                "tool_backend",
                "tool_error",
                "cannot reach Elasticsearch at http://es:9200: ConnectError: refused",
            )
        },
    )

    _, _, report = run(
        world, incident("shop", "checkout fails with certificate errors")
    )

    backend = next(h for h in report.hypotheses if h.layer == layers.TOOL_BACKEND)
    assert backend.component == "elasticsearch"
    assert backend.status == "likely" and backend.confidence <= 0.35
    assert report.top.id == "tls:pay.internal"


def test_probes_are_bounded_and_the_dependencies_named_go_first():
    allow = [f"http://svc{i}.internal:80" for i in range(12)] + [
        "bare.host",
        "http://payments-gw.internal:80",
    ]
    answers = {
        ("service_health", "web"): health(
            "web", "unhealthy", [("error_ratio", "critical", "errors")]
        ),
        ("top_errors", "web"): errors("web", "charge failed upstream=payments-gw: 502"),
        ("list_targets", ""): targets(*allow),
        ("service_health", "payments-gw"): health("payments-gw"),
        ("top_errors", "payments-gw"): errors("payments-gw"),
    }
    for url in allow:
        if "://" in url:
            answers[("probe_url", url)] = probe(url, status=200)
    world = World(answers)

    run(world, incident("web", "web fails"), LayeredPlanner(max_probes=5))

    probed = [s for t, s in world.asked if t == "probe_url"]
    assert len(probed) == 5
    assert probed[0] == "http://payments-gw.internal:80"
    assert "bare.host" not in probed


def test_the_call_budget_and_the_round_limit_hold():
    world = World(
        {
            ("service_health", "web"): health(
                "web", "unhealthy", [("error_ratio", "critical", "errors")]
            ),
            ("top_errors", "web"): errors(
                "web", "x upstream=alpha-svc: 502", "y upstream=beta-svc: 503"
            ),
            ("list_targets", ""): targets(),
        }
    )

    inv, _, _ = run(world, incident("web", "web fails"), LayeredPlanner(max_calls=6))
    assert len(inv.observations) == 6

    world.asked.clear()
    inv, _, _ = run(world, incident("web", "web fails"), LayeredPlanner(max_rounds=1))
    # Health, errors, targets, runbooks, every service's own series and every exporter's.
    assert inv.round == 1 and len(world.asked) == 6


def test_absent_tools_are_not_planned_and_the_gap_is_an_open_question():
    world = World(
        {("service_health", "web"): health("web"), ("top_errors", "web"): errors("web")}
    )

    inv, _, report = run(
        world,
        incident("web", "slow pages"),
        names=("service_health", "top_errors", "search_runbooks"),
    )

    assert {o.tool for o in inv.observations} <= {
        "service_health",
        "top_errors",
        "search_runbooks",
    }
    assert any("no netcheck probe tool" in q for q in report.open_questions)
    assert report.summary.startswith("no decisive evidence")


def test_a_restart_goes_to_the_namespace_the_logs_show():
    message = (
        "sqlalchemy.exc.TimeoutError: QueuePool limit of size 10 overflow 0 reached"
    )
    url = "http://orders.shop.internal:80"
    world = World(
        {
            ("service_health", "orders"): health(
                "orders",
                "unhealthy",
                [
                    ("db_pool_utilization", "critical", "DB pool 100% in use"),
                    (
                        "tcp_close_wait",
                        "warning",
                        "CLOSE_WAIT sockets grew from 1 to 60",
                    ),
                ],
            ),
            ("top_errors", "orders"): errors("orders", message),
            ("search_logs", "orders"): {
                "lines": [
                    {
                        "message": message,
                        "labels": {"namespace": "shop", "pod": "orders-1"},
                    }
                ]
            },
            ("list_targets", ""): targets(url),
            ("probe_url", url): probe(
                url, "http", "http_503", ["HTTP 503"], status=503, body=message
            ),
        }
    )

    inv, planner, report = run(world, incident("orders", "orders slow"))

    assert report.top.id == "application:orders" and report.top.status == "confirmed"
    search = next(o for o in inv.observations if o.tool == "search_logs")
    assert search.arguments["query"] == "QueuePool limit of size"
    [action] = asyncio.run(planner.actions(inv, report))
    assert (action.server, action.tool, dict(action.arguments)) == (
        "ops-mcp",
        "restart_workload",
        {"namespace": "shop", "name": "orders"},
    )


def test_an_application_failure_without_a_leak_gets_no_restart():
    url = "http://img.internal:80"
    world = World(
        {
            ("service_health", "img"): health(
                "img", "unhealthy", [("error_ratio", "critical", "error ratio 50%")]
            ),
            ("top_errors", "img"): errors(
                "img", "worker OOMKilled: exceeded memory limit 2Gi"
            ),
            ("search_logs", "img"): {"lines": []},
            ("list_targets", ""): targets(url),
            ("probe_url", url): probe(
                url, "http", "http_503", ["HTTP 503"], status=503, body="out of workers"
            ),
        }
    )

    inv, planner, report = run(world, incident("img", "thumbnails fail"))

    assert report.top.id == "application:img" and report.top.status == "confirmed"
    assert asyncio.run(planner.actions(inv, report)) == []


def test_a_report_that_is_not_confirmed_proposes_nothing():
    report = Report()
    inv = Investigation(incident=incident("x", "y"), tools=tool_infos())

    assert asyncio.run(LayeredPlanner().actions(inv, report)) == []


def test_calls_already_observed_or_refused_are_not_asked_again():
    inv = Investigation(incident=incident("web", "web fails"), tools=tool_infos())
    planner = LayeredPlanner()
    first = asyncio.run(planner.next_round(inv))
    inv.observations.extend(
        Observation(
            span_id=f"p{i}",
            agent=c.agent,
            server=c.server,
            tool=c.tool,
            arguments=c.arguments,
            is_ok=False,
            refused=True,
            error_layer="policy",
            error_message="refused by policy: scope",
        )
        for i, c in enumerate(first)
    )
    inv.round = 1

    assert asyncio.run(planner.next_round(inv)) == []
    report = asyncio.run(planner.conclude(inv))
    assert report.hypotheses == [] and report.tool_calls == 0
    assert all("not run" in q for q in report.open_questions)


def test_planned_calls_name_the_server_that_lists_the_tool():
    inv = Investigation(incident=incident("web", "web fails"), tools=tool_infos())

    calls = asyncio.run(LayeredPlanner().next_round(inv))

    assert all(
        isinstance(c, PlannedCall) and c.server == SERVERS[c.tool] for c in calls
    )
    assert {c.agent for c in calls} == {"metrics", "logs", "network", "runbook"}


def test_a_bare_name_two_servers_offer_is_refused_not_guessed():
    second = ToolInfo(
        server="logs-b",
        name="top_errors",
        description="",
        input_schema={"type": "object"},
        is_read_only=True,
        is_destructive=False,
        is_idempotent=True,
    )
    inv = Investigation(
        incident=incident("web", "web fails"), tools=[*tool_infos(), second]
    )

    with pytest.raises(AmbiguousTool, match="logs-b, logs-mcp"):
        inv.find_tool("top_errors")
    assert inv.find_tool("service_health").server == "prom-mcp"
    assert inv.find_tool("no_such_tool") is None

    calls = asyncio.run(LayeredPlanner().next_round(inv))
    assert "top_errors" not in {c.tool for c in calls}
    assert {"service_health", "list_targets"} <= {c.tool for c in calls}
    report = asyncio.run(LayeredPlanner().conclude(inv))
    assert any(
        "top_errors is offered by logs-b, logs-mcp: not called" in q
        for q in report.open_questions
    )


def test_a_long_incident_window_is_cut_to_the_tools_limit():
    inv = Investigation(
        incident=IncidentBrief(
            title="t",
            service="web",
            severity="sev3",
            symptoms=("s",),
            window_start="2030-01-01T00:00:00Z",
            window_end="2030-01-02T00:00:00Z",
        ),
        tools=tool_infos(),
    )

    health_call = next(
        c
        for c in asyncio.run(LayeredPlanner().next_round(inv))
        if c.tool == "service_health"
    )

    assert health_call.arguments["start"] == "2030-01-01T18:00:00Z"
    assert health_call.arguments["end"] == "2030-01-02T00:00:00Z"


@pytest.mark.rule("probe.mcp-endpoint")
def test_an_mcp_endpoint_answering_json_rpc_errors_is_an_mcp_layer_fault():
    url = "http://orders-mcp.tools.internal/mcp"
    world = World(
        {
            ("service_health", "support-assistant"): health("support-assistant"),
            ("top_errors", "support-assistant"): errors(
                "support-assistant",
                "mcp client: orders-mcp tools/call failed: JSON-RPC error -32603: Internal error",
            ),
            ("service_health", "orders-mcp"): health("orders-mcp"),
            ("top_errors", "orders-mcp"): errors(
                "orders-mcp",
                "request id=42 method=tools/call: Internal error: tool registry failed to load",
            ),
            ("list_targets", ""): {
                **targets(url, "http://orders-api.shop.internal/healthz"),
                "mcp_endpoints": [url],
            },
            ("probe_url", url): probe(
                url,
                "mcp",
                "jsonrpc_error",
                ["initialize answered JSON-RPC error -32603 inside HTTP 200"],
                status=200,
            ),
            ("probe_url", "http://orders-api.shop.internal/healthz"): probe(
                "http://orders-api.shop.internal/healthz", status=200
            ),
        }
    )

    _, _, report = run(
        world,
        incident(
            "support-assistant", "support-assistant logs tool errors from orders-mcp"
        ),
    )

    assert report.top.id == "mcp:orders-mcp.tools.internal"
    assert report.top.status == "confirmed"
    assert {e.tool for e in report.top.evidence} >= {"probe_url", "top_errors"}
    # netcheck listed it as an MCP endpoint: probed up to JSON-RPC, the other target as HTTP.
    probes = {a["url"]: a for t, a in world.arguments if t == "probe_url"}
    assert probes[url]["protocol"] == "mcp" and "stream_s" not in probes[url]
    assert "protocol" not in probes["http://orders-api.shop.internal/healthz"]


@pytest.mark.rule("probe.mcp-endpoint")
def test_a_405_to_get_on_an_mcp_endpoint_is_its_normal_answer_and_the_logs_tell_the_fault():
    url = "http://orders-mcp.tools.internal/mcp"
    answers = {
        ("service_health", "support-assistant"): health("support-assistant"),
        ("top_errors", "support-assistant"): errors(
            "support-assistant",
            "mcp client: orders-mcp initialize failed: JSON-RPC error -32603: Internal error",
        ),
        ("service_health", "orders-mcp"): health("orders-mcp"),
        ("top_errors", "orders-mcp"): errors(
            "orders-mcp",
            "request id=42 method=tools/call: Internal error: tool registry failed to load",
        ),
        ("list_targets", ""): targets(url),
        ("probe_url", url): probe(url, "http", "http_405", status=405, body=""),
    }
    symptom = "support-assistant logs tool errors from orders-mcp"

    _, _, report = run(World(answers), incident("support-assistant", symptom))

    assert report.top.id == "mcp:orders-mcp.tools.internal"
    assert report.top.status == "confirmed"
    assert not any(h.id == "http:orders-mcp.tools.internal" for h in report.hypotheses)
    # Without a JSON-RPC error in any log, the 405 explains nothing.
    answers[("top_errors", "support-assistant")] = errors(
        "support-assistant", "fallback answer"
    )
    answers[("top_errors", "orders-mcp")] = errors("orders-mcp")
    _, _, quiet = run(World(answers), incident("support-assistant", symptom))
    mcp = next(h for h in quiet.hypotheses if h.id == "mcp:orders-mcp.tools.internal")
    assert mcp.status == "ruled_out"
