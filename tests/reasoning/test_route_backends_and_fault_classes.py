"""A route repointed at the wrong Service (`route_backends`) and the line that shows a resource
fault's class (`fault_class_lines`), with invented names and wordings.

A change that set a route rule's backend to another Service, which then answers 404 or no route,
makes the route the fault at the HTTP layer, not the backend that answers requests never meant
for it. The leading hypothesis of an OOMKilled workload cites the node kernel's OOM kill; of a
workload whose CPU limit was cut, its runtime's line sizing itself to the CPU quota.
"""

import pytest

from reasoning import layers
from reasoning.layered import fault_class_lines as fcl
from reasoning.layered import route_backends
from reasoning.layered.candidates import Board
from reasoning.layered.facts import Facts
from reasoning.observations import (
    IncidentBrief,
    Investigation,
    Observation,
    PlannedCall,
)

_SPAN = iter(range(1, 10_000))


def obs(tool, arguments, result):
    return Observation(
        span_id=f"{next(_SPAN):016x}",
        agent="logs",
        server="logs",
        tool=tool,
        arguments=arguments,
        is_ok=True,
        result=result,
    )


def search(query, *lines):
    return obs(
        "search_logs",
        {"query": query, "regex": True},
        {"lines": [dict(line) for line in lines]},
    )


def top_errors(service, *, errors=(), warnings=()):
    def group(text):
        return {
            "signature": text,
            "sample": text,
            "count": 120,
            "first_seen": "2030-01-01T10:05:00Z",
            "last_seen": "2030-01-01T10:30:00Z",
            "before": 0,
        }

    return obs(
        "top_errors",
        {"service": service},
        {
            "service": service,
            "top": [group(t) for t in errors],
            "warnings": [group(t) for t in warnings],
        },
    )


def board(*observations, service="orchard-gateway"):
    inv = Investigation(
        incident=IncidentBrief(
            title="partners get errors",
            service=service,
            severity="sev2",
            symptoms=("partner calls fail",),
            window_start="2030-01-01T10:00:00Z",
            window_end="2030-01-01T10:40:00Z",
        ),
        tools=[],
        observations=list(observations),
    )
    return Board(inv, Facts.read(inv.observations))


HTTPROUTE = (
    "sync app edge-routes (MR routes!41 'tidy'): HTTPRoute orchard/pear-api configured: "
    "rules[2].backendRefs[0].name pear-api-v3 -> pear-api-v2 ... Synced"
)
INGRESS = (
    "kubectl apply: Ingress pear-api: backend.service.name: pear-api-v3 -> pear-api-v2"
)
ACCESS = (
    '{"method":"POST","path":"/v3/orders","response_code":404,'
    '"upstream_cluster":"httproute/orchard/pear-api/rule/2/backend/0"}'
)


@pytest.mark.rule("board.route-backend")
@pytest.mark.parametrize("change", [HTTPROUTE, INGRESS])
def test_a_route_repointed_at_a_service_that_404s_is_the_routes_fault(change):
    b = board(
        search("(->|=>)", {"service": "argocd", "level": "info", "message": change}),
        top_errors("pear-api-v2", warnings=["WARN 404 no route for POST /v3/orders"]),
    )
    victim = b.get(layers.APPLICATION, "pear-api-v2", "pear-api-v2 itself fails")
    victim.status, victim.confidence = "confirmed", 0.88

    route_backends.route_backend(b)

    kind = "httproute" if "HTTPRoute" in change else "ingress"
    route = b.candidates[f"http:{kind}/pear-api"]
    assert route.status == "confirmed" and route.confidence > victim.confidence
    assert "pear-api-v2" in route.statement and "pear-api-v3" in route.statement
    assert victim.status == "likely"


@pytest.mark.rule("board.route-backend")
def test_the_gateways_access_line_for_the_route_is_searched_and_cited():
    change = search(
        "(->|=>)", {"service": "argocd", "level": "info", "message": HTTPROUTE}
    )
    calls = route_backends.searches(
        board(change).inv,
        lambda tool, arguments, why: PlannedCall("logs", "logs", tool, arguments, why),
        {},
    )
    assert [c.arguments["query"] for c in calls if c] == [
        r"httproute/orchard/pear\-api/"
    ]

    b = board(
        change,
        search(
            r"httproute/orchard/pear\-api/", {"service": "gateway", "message": ACCESS}
        ),
    )
    route_backends.route_backend(b)

    route = b.candidates["http:httproute/pear-api"]
    assert any("rule/2" in e.fact for e in route.evidence)


@pytest.mark.rule("board.route-backend")
def test_a_repointed_route_whose_new_backend_serves_or_an_unchanged_name_is_no_fault():
    serving = board(
        search("(->|=>)", {"service": "argocd", "level": "info", "message": HTTPROUTE}),
        top_errors("pear-api-v2"),
    )
    same = board(
        search(
            "(->|=>)",
            {
                "service": "argocd",
                "level": "info",
                "message": "HTTPRoute orchard/pear-api: backendRefs[0].name pear-api -> pear-api",
            },
        ),
        top_errors("pear-api", warnings=["WARN 404 no route for GET /x"]),
    )
    for b in (serving, same):
        route_backends.route_backend(b)
        assert not any(k.startswith("http:httproute/") for k in b.candidates)


@pytest.mark.timeout(60)
def test_a_huge_change_line_is_read_in_linear_time():
    hostile = "HTTPRoute " + "a/" * 100_000 + " backend " + "x-" * 100_000 + " -> y"
    b = board(
        search("(->|=>)", {"service": "ops", "level": "info", "message": hostile})
    )
    route_backends.route_backend(b)


# --- the line that shows a resource fault's class ---------------------------------------------------

OOM_LINE = (
    "[88120.4] Memory cgroup out of memory: Killed process 4411 (java) total-vm:3101000kB, "
    "anon-rss:1020000kB"
)
QUOTA_LINE = (
    "2030/01/01 09:58 maxprocs: Updating GOMAXPROCS=1: determined from CPU quota"
)


@pytest.mark.rule("board.fault-class-lines")
def test_an_oom_killed_workloads_hypothesis_cites_its_nodes_kernel_kill():
    b = board(
        search(
            fcl.OOM_SEARCH,
            {"service": "kernel", "message": OOM_LINE, "labels": {"node": "pool-e-1"}},
        ),
    )
    top = b.get(
        layers.APPLICATION,
        "deployment/plum-labeler",
        "deployment/plum-labeler's containers are killed for exceeding their memory limit (OOMKilled)",
    )
    top.status, top.confidence = "confirmed", 0.9
    # No cluster read: the line is the workload's only by its own service or pod label.
    fcl.fault_class_lines(b)
    assert not any("Killed process" in e.fact for e in top.evidence)

    b2 = board(
        search(
            fcl.OOM_SEARCH,
            {
                "service": "kernel",
                "message": OOM_LINE,
                "labels": {"pod": "plum-labeler-5d-k1"},
            },
        ),
    )
    top2 = b2.get(layers.APPLICATION, "deployment/plum-labeler", top.statement)
    top2.status, top2.confidence = "confirmed", 0.9
    fcl.fault_class_lines(b2)
    assert any("Memory cgroup out of memory" in e.fact for e in top2.evidence)


@pytest.mark.rule("board.fault-class-lines")
def test_a_cut_cpu_limits_hypothesis_cites_the_runtimes_quota_line_and_the_cut_asks_for_it():
    change = search(
        "(->|=>)",
        {
            "service": "argocd",
            "level": "info",
            "message": "app orchard/tile-baker synced: resources.limits.cpu 3 -> 500m",
        },
    )
    b = board(
        change, search(fcl.CPU_SEARCH, {"service": "tile-baker", "message": QUOTA_LINE})
    )
    top = b.get(
        layers.APPLICATION, "tile-baker", "tile-baker itself fails: render slow"
    )
    top.cite(change, "argocd logs a change: resources.limits.cpu 3 -> 500m")
    top.status, top.confidence = "likely", 0.55

    fcl.fault_class_lines(b)

    assert any("GOMAXPROCS=1" in e.fact for e in top.evidence)
    assert fcl.cpu_cut(b.inv)
    raised = search(
        "(->|=>)",
        {
            "service": "argocd",
            "level": "info",
            "message": "resources.limits.cpu 500m -> 2",
        },
    )
    assert not fcl.cpu_cut(board(raised).inv)
