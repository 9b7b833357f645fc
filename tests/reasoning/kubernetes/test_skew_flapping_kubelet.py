"""Causes behind a loud workload (issue 21 items 1 and 4): a Service's session affinity pinning its
callers to one hot pod, an autoscaler flapping its target up and down, and a node that is not
ready explained by its kubelet's own lines."""

import pytest

from reasoning import layers
from reasoning.layered import kubernetes
from reasoning.layered.facts import Facts
from reasoning.layered.kubernetes import node_logs
from reasoning.observations import (
    IncidentBrief,
    Investigation,
    Observation,
    PlannedCall,
    ToolInfo,
)
from reasoning.tools import SEARCH_LOGS

from .answers import NS, answer, describe, listing, table

POD_HEADER = ("NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "LABELS")
SCORER = "fare-scorer-6c5b4a3d2"


def call(tool, arguments, why):
    return PlannedCall("kubernetes", "kubernetes", tool, dict(arguments), why)


def asked(calls):
    return {
        (c.tool, c.arguments.get("kind"), c.arguments.get("name"))
        for c in calls
        if c is not None
    }


def investigation(service, *observations):
    incident = IncidentBrief(
        title="answers time out",
        service=service,
        severity="sev2",
        symptoms=(),
        window_start="2031-05-04T09:00:00Z",
        window_end="2031-05-04T09:40:00Z",
    )
    return Investigation(incident=incident, tools=[], observations=list(observations))


def found(inv):
    return {
        f.component: f for f in kubernetes.diagnose(inv, Facts.read(inv.observations))
    }


def pods(*rows):
    """Pods as (name, ready, status, restarts, node, labels)."""
    return listing(
        "pods",
        POD_HEADER,
        *(
            (name, ready, status, restarts, "5d", f"10.9.0.{i}", node, labels)
            for i, (name, ready, status, restarts, node, labels) in enumerate(rows, 1)
        ),
    )


def namespaces():
    return answer(
        "get_resources",
        {"kind": "namespaces", "namespace": "default"},
        "NAME   STATUS   AGE\nshop   Active   90d\n",
    )


def nodes(*rows):
    return answer(
        "get_resources",
        {"kind": "nodes", "namespace": "default", "wide": True},
        table(("NAME", "STATUS", "ROLES", "AGE", "VERSION"), *rows),
    )


# --- session affinity: one hot pod, its siblings idle ------------------------------------------


def pinned_cluster():
    """fare-scorer's pod -k1x2z restarted and is unready, four siblings serve; fare-relay (one
    replica) calls it."""
    scorer = "app=fare-scorer"
    return [
        namespaces(),
        nodes(("node-1", "Ready", "<none>", "90d", "v1.31.0")),
        pods(
            (f"{SCORER}-k1x2z", "0/1", "Running", "1 (4m ago)", "node-1", scorer),
            *(
                (f"{SCORER}-{s}", "1/1", "Running", "0", "node-1", scorer)
                for s in ("m2w4v", "n3t6r", "p4q8s", "q5z9b")
            ),
            (
                "fare-relay-5d4c3b2a1-r1c7d",
                "1/1",
                "Running",
                "0",
                "node-1",
                "app=fare-relay",
            ),
        ),
        listing(
            "deployments",
            ("NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "SELECTOR"),
            ("fare-scorer", "4/5", "5", "4", "90d", "app=fare-scorer"),
            ("fare-relay", "1/1", "1", "1", "90d", "app=fare-relay"),
        ),
        listing(
            "services",
            ("NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE", "SELECTOR"),
            (
                "fare-scorer",
                "ClusterIP",
                "10.96.1.2",
                "<none>",
                "8080/TCP",
                "90d",
                "app=fare-scorer",
            ),
            (
                "fare-relay",
                "ClusterIP",
                "10.96.1.3",
                "<none>",
                "8000/TCP",
                "90d",
                "app=fare-relay",
            ),
        ),
    ]


def service_text(affinity):
    return (
        "Name:              fare-scorer\n"
        "Namespace:         shop\n"
        "Selector:          app=fare-scorer\n"
        "Type:              ClusterIP\n"
        "Port:              http  80/TCP\n"
        "TargetPort:        8080/TCP\n"
        f"Session Affinity:  {affinity}\n"
        + (
            "Session Affinity Config:  ClientIP timeoutSeconds 10800\n"
            if affinity == "ClientIP"
            else ""
        )
        + "Events:            <none>\n"
    )


def test_a_workload_with_one_hot_pod_has_its_service_described():
    inv = investigation("fare-scorer", *pinned_cluster())
    calls = kubernetes.plan(inv, Facts.read(inv.observations), call)

    assert ("describe", "service", "fare-scorer") in asked(calls)


@pytest.mark.rule("k8s.session-affinity")
def test_a_service_pinning_client_addresses_is_the_fault_of_its_hot_pod():
    inv = investigation(
        "fare-scorer",
        *pinned_cluster(),
        describe("service", "fare-scorer", service_text("ClientIP")),
    )
    result = found(inv)

    pinned = result["service/fare-scorer"]
    assert (pinned.stage, pinned.reason, pinned.layer) == (
        "service_routing",
        "SessionAffinity",
        layers.CONNECT,
    )
    assert "deployment/fare-scorer" in pinned.explains
    assert any("ClientIP" in fact for _, fact in pinned.evidence)
    assert pinned.is_relevant
    victim = result.get("deployment/fare-scorer")
    assert victim is None or victim.victim_of == "service/fare-scorer"


def test_a_service_without_affinity_is_not_blamed_for_one_failing_pod():
    inv = investigation(
        "fare-scorer",
        *pinned_cluster(),
        describe("service", "fare-scorer", service_text("None")),
    )

    assert "service/fare-scorer" not in found(inv)


# --- a virtual IP in front of long-lived multiplexed connections ----------------------------------


def grpc_service_text(port="grpc-api  9090/TCP", ip="10.96.1.2"):
    return (
        "Name:              fare-scorer\n"
        "Namespace:         shop\n"
        "Selector:          app=fare-scorer\n"
        "Type:              ClusterIP\n"
        f"IP:                {ip}\n"
        f"Port:              {port}\n"
        "TargetPort:        9090/TCP\n"
        "Session Affinity:  None\n"
        "Events:            <none>\n"
    )


def scorer_warnings(*messages):
    groups = [{"signature": m, "sample": m, "count": 60, "before": 0} for m in messages]
    return Observation(
        span_id="logs-fare-scorer",
        agent="logs",
        server="logs",
        tool="top_errors",
        arguments={"service": "fare-scorer", "warnings": True, "baseline_s": 3600},
        is_ok=True,
        result={"service": "fare-scorer", "top": [], "warnings": groups},
    )


SATURATED = (
    "stream limit hit on conn 7: max_concurrent_streams=250 in use, refusing new"
)


@pytest.mark.rule("k8s.connection-pinning")
def test_a_clusterip_in_front_of_grpc_pins_callers_to_the_pods_they_first_reached():
    inv = investigation(
        "fare-scorer",
        *pinned_cluster(),
        describe("service", "fare-scorer", grpc_service_text()),
        scorer_warnings(SATURATED),
    )
    result = found(inv)

    pinned = result["service/fare-scorer"]
    assert (pinned.stage, pinned.reason, pinned.layer) == (
        "service_routing",
        "ConnectionPinning",
        layers.CONNECT,
    )
    assert "not headless" in pinned.statement
    assert "deployment/fare-scorer" in pinned.explains
    facts = " ".join(fact for _, fact in pinned.evidence)
    assert "Type: ClusterIP" in facts and "grpc-api 9090/TCP" in facts
    assert SATURATED in facts  # the hot pods' own lines
    victim = result.get("deployment/fare-scorer")
    assert victim is None or victim.victim_of == "service/fare-scorer"


@pytest.mark.rule("k8s.connection-pinning")
def test_http2_words_in_the_workloads_own_lines_say_its_connections_are_multiplexed():
    inv = investigation(
        "fare-scorer",
        *pinned_cluster(),
        describe("service", "fare-scorer", grpc_service_text("web  8080/TCP")),
        scorer_warnings("h2 conn 4: sent GOAWAY after 1000 streams, ENHANCE_YOUR_CALM"),
    )

    assert result_reason(inv) == "ConnectionPinning"


def result_reason(inv):
    f = found(inv).get("service/fare-scorer")
    return f.reason if f is not None else None


def test_a_headless_service_gives_callers_every_pod_and_is_not_blamed():
    inv = investigation(
        "fare-scorer",
        *pinned_cluster(),
        describe("service", "fare-scorer", grpc_service_text(ip="None")),
        scorer_warnings(SATURATED),
    )

    assert result_reason(inv) is None


def test_a_clusterip_of_plain_requests_is_not_blamed_for_one_hot_pod():
    inv = investigation(
        "fare-scorer",
        *pinned_cluster(),
        describe("service", "fare-scorer", grpc_service_text("web  8080/TCP")),
        scorer_warnings("slow scoring model: p99 1200 ms"),
    )

    assert result_reason(inv) is None


@pytest.mark.timeout(60)
def test_a_huge_warning_is_read_for_its_protocol_in_linear_time():
    hostile = "h" * 100_000 + " http" * 20_000 + "/3"
    inv = investigation(
        "fare-scorer",
        *pinned_cluster(),
        describe("service", "fare-scorer", grpc_service_text("web  8080/TCP")),
        scorer_warnings(hostile),
    )

    assert result_reason(inv) is None


# --- an autoscaler flapping --------------------------------------------------------------------


def flapping_cluster(down="2m (x9 over 30m)"):
    """quote-cache's autoscaler scaled it to 12 and back to 3 again and again."""
    return [
        namespaces(),
        nodes(("node-1", "Ready", "<none>", "90d", "v1.31.0")),
        pods(
            *(
                (
                    f"quote-cache-7a6b5c4d3-{s}",
                    "1/1",
                    "Running",
                    "0",
                    "node-1",
                    "app=quote-cache",
                )
                for s in ("a1b2c", "b2c3d", "c3d4e")
            ),
            (
                "quote-cache-7a6b5c4d3-d4e5f",
                "0/1",
                "Running",
                "0",
                "node-1",
                "app=quote-cache",
            ),
        ),
        listing(
            "deployments",
            ("NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "SELECTOR"),
            ("quote-cache", "3/4", "4", "3", "90d", "app=quote-cache"),
        ),
        listing(
            "horizontalpodautoscalers",
            ("NAME", "REFERENCE", "TARGETS", "MINPODS", "MAXPODS", "REPLICAS", "AGE"),
            (
                "quote-cache",
                "Deployment/quote-cache",
                "cpu: 9%/20%",
                "3",
                "12",
                "4",
                "90d",
            ),
        ),
        answer(
            "events",
            {"namespace": NS},
            table(
                ("LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"),
                (
                    "4m (x9 over 30m)",
                    "Normal",
                    "SuccessfulRescale",
                    "HorizontalPodAutoscaler/quote-cache",
                    "New size: 12; reason: cpu resource utilization (percentage of request) "
                    "above target",
                ),
                (
                    down,
                    "Normal",
                    "SuccessfulRescale",
                    "HorizontalPodAutoscaler/quote-cache",
                    "New size: 3; reason: All metrics below target",
                ),
            ),
        ),
    ]


HPA_TEXT = """\
Name:                       quote-cache
Namespace:                  shop
Reference:                  Deployment/quote-cache
Min replicas:               3
Max replicas:               12
Behavior:
  Scale Up:
    Stabilization Window: 0 seconds
  Scale Down:
    Stabilization Window: 0 seconds
Events:                     <none>
"""


def test_a_flapping_autoscaler_is_described():
    inv = investigation("quote-cache", *flapping_cluster())
    calls = kubernetes.plan(inv, Facts.read(inv.observations), call)

    assert ("describe", "horizontalpodautoscaler", "quote-cache") in asked(calls)


@pytest.mark.rule("k8s.autoscaler-flapping")
def test_an_autoscaler_rescaling_both_ways_again_and_again_is_the_fault():
    inv = investigation(
        "quote-cache",
        *flapping_cluster(),
        describe("horizontalpodautoscaler", "quote-cache", HPA_TEXT),
    )
    result = found(inv)

    hpa = result["horizontalpodautoscaler/quote-cache"]
    assert (hpa.stage, hpa.reason, hpa.layer) == (
        "performance",
        "HPAFlapping",
        layers.PLATFORM,
    )
    assert hpa.explains[0] == "deployment/quote-cache"
    facts = [fact for _, fact in hpa.evidence]
    assert any("below target" in f for f in facts)
    assert any("Stabilization Window: 0 seconds" in f for f in facts)
    assert hpa.is_relevant


def test_one_scale_down_after_a_scale_up_is_no_flapping():
    inv = investigation("quote-cache", *flapping_cluster(down="2m"))

    assert "horizontalpodautoscaler/quote-cache" not in found(inv)


# --- a node not ready, in its kubelet's words ----------------------------------------------------


def kubelet_lines(*lines):
    return Observation(
        span_id="kubelet-1",
        agent="kubernetes",
        server="logs",
        tool=SEARCH_LOGS,
        arguments={"query": node_logs.SEARCH, "regex": True, "limit": 40},
        is_ok=True,
        result={
            "lines": [
                {
                    "time": "2031-05-04T09:20:00Z",
                    "service": "kubelet",
                    "level": "error",
                    "message": message,
                    "labels": {"node": node},
                }
                for node, message in lines
            ]
        },
    )


def not_ready_cluster():
    return [
        namespaces(),
        nodes(
            ("node-a", "Ready", "<none>", "90d", "v1.31.0"),
            ("node-c", "NotReady", "<none>", "90d", "v1.31.0"),
        ),
        pods(
            ("cart-store-0", "1/1", "Running", "0", "node-a", "app=cart-store"),
            ("cart-store-1", "1/1", "Unknown", "0", "node-c", "app=cart-store"),
        ),
    ]


def test_a_node_not_ready_has_its_kubelet_lines_searched():
    inv = investigation("cart-store", *not_ready_cluster())
    calls = kubernetes.plan(inv, Facts.read(inv.observations), call)

    assert any(
        c is not None
        and c.tool == SEARCH_LOGS
        and c.arguments["query"] == node_logs.SEARCH
        for c in calls
    )


@pytest.mark.rule("k8s.node-kubelet-logs")
def test_a_node_not_ready_cites_what_its_kubelet_says():
    inv = investigation(
        "cart-store",
        *not_ready_cluster(),
        kubelet_lines(
            (
                "node-c",
                'controller.go:145] "Failed to ensure lease exists" err="Unauthorized"',
            ),
            (
                "node-c",
                'kubelet_node_status.go:535] "Error updating node status" err="tls: failed to '
                'verify certificate: x509: certificate has expired or is not yet valid"',
            ),
            (
                "node-a",
                "kubelet_node_status.go:535] Error updating node status, will retry",
            ),
        ),
    )
    node = found(inv)["node/node-c"]

    facts = [fact for _, fact in node.evidence]
    assert any("x509: certificate has expired" in f for f in facts)
    assert not any("node-a kubelet" in f for f in facts)
    assert "x509" in node.statement


def fare_relay_errors(*messages):
    groups = [{"signature": m, "sample": m, "count": 80, "before": 0} for m in messages]
    return Observation(
        span_id="logs-fare-relay",
        agent="logs",
        server="logs",
        tool="top_errors",
        arguments={"service": "fare-relay", "warnings": True, "baseline_s": 3600},
        is_ok=True,
        result={"service": "fare-relay", "top": groups, "warnings": []},
    )


@pytest.mark.rule("k8s.connection-pinning")
def test_the_paths_grpc_clients_whose_errors_name_no_host_are_the_pinned_services_callers():
    inv = investigation(
        "fare-relay",
        *pinned_cluster(),
        describe("service", "fare-scorer", grpc_service_text()),
        scorer_warnings(SATURATED),
        fare_relay_errors("io.grpc.StatusRuntimeException: UNAVAILABLE: io exception"),
    )
    pinned = found(inv)["service/fare-scorer"]

    assert "deployment/fare-relay" in pinned.explains
    assert pinned.is_relevant  # it explains the incident's own workload


def test_a_skewed_workload_behind_a_virtual_ip_has_its_own_top_errors_read():
    logs_tool = ToolInfo(
        "logs",
        "top_errors",
        "",
        {"properties": {"service": {}, "warnings": {}, "baseline_s": {}}},
        True,
        False,
        True,
    )
    inv = investigation(
        "fare-relay",
        *pinned_cluster(),
        describe("service", "fare-scorer", grpc_service_text()),
    )
    inv.tools.append(logs_tool)
    calls = kubernetes.plan(inv, Facts.read(inv.observations), call)

    asked_errors = [
        c.arguments for c in calls if c is not None and c.tool == "top_errors"
    ]
    assert {"service": "fare-scorer"}.items() <= asked_errors[0].items()
    assert asked_errors[0]["warnings"] is True
