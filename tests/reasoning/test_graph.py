"""Issue 21 item 3-4: one dependency graph built from the evidence, and blame propagated through it.

- The graph's edges come from what the spans showed (error lines naming upstreams, a tool's failed
  call naming its back end, the cluster's routing and pods), each with its span and fact.
- A faulty node is a root when nothing it depends on has a fault of its own; a pass-through over
  a faulty upstream is explained by it; roots rank by the share of the failure they explain.
- The report carries the graph, and the path from the incident's node to the top root.
"""

import pytest

from reasoning.layered.analysis import Analysis
from reasoning.layered.facts import Facts
from reasoning.layered.graph import Fault, Graph
from reasoning.observations import Investigation, Observation
from tests.reasoning.kubernetes.answers import answer, describe, listing
from tests.reasoning.test_planner import (
    World,
    errors,
    health,
    incident,
    probe,
    run,
    targets,
)

FAILING = [("error_ratio", "critical", "error ratio 31% since 10:05")]
NO_NETCHECK = ("service_health", "top_errors", "search_runbooks", "query_metric")


def fault(name, confidence=0.9, status="confirmed"):
    return Fault(f"application:{name}", status, confidence, f"{name} fails", "s1", "x")


def chain_graph():
    """kiosk → relay → vault-core → disk-a; relay and vault-core faulty, kiosk the incident's."""
    graph = Graph()
    graph.link("kiosk", "relay", "calls", "s1", "kiosk logs: upstream relay 502")
    graph.link("relay", "vault-core", "calls", "s2", "relay logs: upstream vault-core")
    graph.link("vault-core", "disk-a", "runs_on", "s3", "get pods: vault-core-0 disk-a")
    graph.add_fault("relay", "service", fault("relay", 0.6, "likely"))
    graph.add_fault("vault-core", "service", fault("vault-core", 0.9))
    graph.focus = "kiosk"
    return graph


def test_the_deepest_fault_is_the_root_and_the_pass_through_is_explained():
    graph = chain_graph()

    blame = graph.blame()

    assert [b.node for b in blame] == ["vault-core"]
    assert blame[0].explains == ("relay", "kiosk")
    assert blame[0].share == 1.0  # relay, kiosk and itself: all of the observed failure
    assert graph.explained_by("relay") == ["vault-core"]
    assert graph.explained_by("vault-core") == []


def test_a_root_that_explains_more_ranks_above_one_more_direct():
    graph = chain_graph()
    graph.link("kiosk", "tiles", "calls", "s4", "kiosk logs: GET http://tiles/ 500")
    graph.add_fault("tiles", "service", fault("tiles", 0.95))

    assert [b.node for b in graph.blame()] == ["vault-core", "tiles"]


def test_events_are_observed_but_not_faults():
    graph = Graph()
    graph.link("server/logbook", "lumberyard", "backed_by", "s1", "search fails")
    graph.add_fault(
        "server/logbook",
        "tool_server",
        Fault("", "symptom", 0.0, "search fails", "s1", "timeout"),
    )
    assert graph.blame() == []  # a symptom alone blames nothing

    graph.add_fault("lumberyard", "backend", fault("lumberyard", 0.7))

    (root,) = graph.blame()
    assert (root.node, root.explains) == ("lumberyard", ("server/logbook",))


def test_the_path_from_the_incident_to_the_root_carries_each_edges_evidence():
    graph = chain_graph()

    path = graph.to_dict()["path"]

    assert [(e["caller"], e["callee"]) for e in path] == [
        ("kiosk", "relay"),
        ("relay", "vault-core"),
    ]
    assert path[0]["span_id"] == "s1" and "502" in path[0]["fact"]


def test_a_cycle_does_not_loop_and_blames_nothing_it_cannot_order():
    graph = Graph()
    graph.link("ping", "pong", "calls", "s1", "x")
    graph.link("pong", "ping", "calls", "s2", "y")
    graph.add_fault("ping", "service", fault("ping"))

    assert graph.dependants("ping") == ["pong"]
    assert graph.blame()[0].node == "ping"


def test_a_node_never_depends_on_itself_and_an_edge_is_kept_once():
    graph = Graph()
    graph.link("solo", "solo", "calls", "s1", "x")
    graph.link("solo", "duo", "calls", "s1", "x")
    graph.link("solo", "duo", "calls", "s2", "again")

    assert [(e.caller, e.callee, e.span_id) for e in graph.edges] == [
        ("solo", "duo", "s1")
    ]


def test_the_report_graph_follows_an_upstream_the_logs_name_to_its_own_fault():
    world = World(
        {
            ("service_health", "ticketing-web"): health(
                "ticketing-web", "unhealthy", FAILING
            ),
            ("top_errors", "ticketing-web"): errors(
                "ticketing-web", "upstream seatmap-core answered 503 for GET /seats"
            ),
            ("service_health", "seatmap-core"): health(
                "seatmap-core", "unhealthy", FAILING
            ),
            ("top_errors", "seatmap-core"): errors(
                "seatmap-core", "Traceback (most recent call last): KeyError: 'row'"
            ),
        }
    )

    inv, _, report = run(
        world, incident("ticketing-web", "seats do not load"), names=NO_NETCHECK
    )

    graph = report.to_dict()["graph"]
    edge = next(e for e in graph["edges"] if e["callee"] == "seatmap-core")
    assert edge["caller"] == "ticketing-web" and edge["kind"] == "calls"
    cited = {o.span_id for o in inv.observations if o.tool == "top_errors"}
    assert edge["span_id"] in cited and "seatmap-core" in edge["fact"]
    assert graph["focus"] == "ticketing-web"
    assert graph["blame"][0]["node"] == "seatmap-core"
    assert "ticketing-web" in graph["blame"][0]["explains"]
    assert [e["callee"] for e in graph["path"]] == ["seatmap-core"]
    nodes = {n["name"]: n for n in graph["nodes"]}
    assert any(
        f["hypothesis"] == "application:seatmap-core"
        for f in nodes["seatmap-core"]["faults"]
    )


def test_a_tool_server_depends_on_the_back_end_its_failed_call_names():
    obs = Observation(
        span_id="t1",
        agent="logs",
        server="logbook",
        tool="top_errors",
        arguments={"service": "kiosk"},
        is_ok=False,
        error_layer="tool_backend",
        error_code="tool_error",
        error_message="Lumberyard at http://lumberyard.internal:3100 did not answer within 2s",
    )
    inv = Investigation(incident=incident("kiosk", "kiosk is slow"), tools=[])
    inv.observations.append(obs)

    graph = Analysis(inv, Facts.read(inv.observations)).graph

    (edge,) = [e for e in graph.edges if e.kind == "backed_by"]
    assert (edge.caller, edge.callee, edge.span_id) == (
        "server/logbook",
        "lumberyard",
        "t1",
    )
    assert graph.nodes["lumberyard"].kind == "backend"
    assert graph.blame()[0].node == "lumberyard"
    assert graph.blame()[0].explains == ("server/logbook",)


def test_the_cluster_routes_ingress_to_service_to_workload_to_node():
    observations = [
        answer(
            "get_resources",
            {"kind": "namespaces", "namespace": "default"},
            "NAME   STATUS   AGE\nshop   Active   9d\n",
        ),
        listing(
            "pods",
            ("NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "LABELS"),
            (
                "quill-5c4b3a2d1-abcde",
                "1/1",
                "Running",
                "0",
                "2d",
                "10.9.0.4",
                "rack-7",
                "app=quill",
            ),
        ),
        listing(
            "deployments",
            ("NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "SELECTOR"),
            ("quill", "1/1", "1", "1", "9d", "app=quill"),
        ),
        listing(
            "services",
            ("NAME", "TYPE", "CLUSTER-IP", "PORT(S)", "AGE", "SELECTOR"),
            ("quill", "ClusterIP", "10.96.0.7", "80/TCP", "9d", "app=quill"),
        ),
        listing(
            "ingresses",
            ("NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"),
            ("front", "nginx", "quill.example", "10.0.0.1", "80", "9d"),
        ),
        describe(
            "ingress",
            "front",
            "Name:   front\nRules:\n  Host           Path  Backends\n"
            "  ----           ----  --------\n"
            "  quill.example  /     quill:80 (10.9.0.4:8080)\n",
        ),
    ]
    inv = Investigation(incident=incident("quill", "pages fail"), tools=[])
    inv.observations.extend(observations)

    graph = Analysis(inv, Facts.read(inv.observations)).graph

    hops = {(e.caller, e.callee, e.kind) for e in graph.edges}
    assert ("ingress/front", "service/quill", "routes") in hops
    assert ("service/quill", "deployment/quill", "selects") in hops
    assert ("deployment/quill", "node/rack-7", "runs_on") in hops
    assert graph.focus == "service/quill"
    assert graph.nodes["node/rack-7"].kind == "node"


# --- a tool's back end: relevant by the tool's own failure, not by the incident's words ----------

QUICKWIT_DOWN = (
    "tool_backend",
    "tool_error",
    "cannot reach Quickwit at http://qw.internal:7280: ReadTimeout: timed out",
)


@pytest.mark.rule("board.backend-relevance")
def test_a_failing_back_end_explains_an_incident_whose_service_shows_no_failure():
    world = World(
        {
            ("service_health", "rostering"): health("rostering", "healthy"),
            ("list_targets", ""): targets(),
        },
        failures={("top_errors", "rostering"): QUICKWIT_DOWN},
    )

    _, _, report = run(world, incident("rostering", "the staff page is odd"))

    backend = next(h for h in report.hypotheses if h.layer == "tool_backend")
    assert backend.component == "quickwit"
    assert "limits this diagnosis" not in backend.statement
    assert backend.confidence >= 0.6
    assert report.top.id == "tool_backend:quickwit"


@pytest.mark.rule("board.backend-relevance")
def test_a_back_end_the_incident_names_stays_a_lead_when_the_service_fails_itself():
    world = World(
        {
            ("service_health", "rostering"): health("rostering", "unhealthy", FAILING),
            ("list_targets", ""): targets(),
        },
        failures={("top_errors", "rostering"): QUICKWIT_DOWN},
    )

    _, _, report = run(
        world,
        incident("rostering", "quickwit log searches fail, rostering errors up"),
    )

    backend = next(h for h in report.hypotheses if h.layer == "tool_backend")
    assert backend.status == "likely" and backend.confidence <= 0.35
    assert "limits this diagnosis" in backend.statement


def test_a_probed_host_belongs_to_its_service_and_relays_to_the_host_its_answer_names():
    url = "http://turnstile.internal:8080/pay"
    answer_502 = Observation(
        span_id="p1",
        agent="network",
        server="netcheck",
        tool="probe_url",
        arguments={"url": url},
        is_ok=True,
        result=probe(
            url,
            "http",
            "http_502",
            status=502,
            body="bad gateway: upstream fares.internal: TLS handshake failed",
        ),
    )
    inv = Investigation(incident=incident("turnstile", "gates reject cards"), tools=[])
    inv.observations.append(answer_502)

    graph = Analysis(inv, Facts.read(inv.observations)).graph

    hops = {(e.caller, e.callee, e.kind, e.span_id) for e in graph.edges}
    assert ("turnstile", "turnstile.internal", "served_at", "p1") in hops
    assert ("turnstile.internal", "fares.internal", "relays", "p1") in hops
    assert graph.focus == "turnstile"
    assert [e.callee for e in graph.path("turnstile", "fares.internal")] == [
        "turnstile.internal",
        "fares.internal",
    ]
