"""Faults under healthy-looking objects (issue 21): a node's kernel table filling up under every pod
on it while the node stays Ready, and a NetworkPolicy whose egress rules leave DNS out."""

import pytest

from reasoning import layers
from reasoning.layered import kubernetes
from reasoning.layered.facts import Facts
from reasoning.layered.kubernetes import kernel
from reasoning.layered.kubernetes.policies import blocks_dns
from reasoning.observations import Observation

from .answers import answer, table
from .test_infrastructure import (
    APP,
    POD_HEADER,
    asked,
    call,
    deployments,
    describe,
    diagnosed,
    events,
    investigation,
    listing,
    logs,
    namespaces,
    nodes,
)

TRACKER_A = "tracker-7d6c5b4a3-r2d2x"
TRACKER_B = "tracker-7d6c5b4a3-k9p4w"
SHIPPER = "trace-shipper-5b4c3d2e1-x8z7q"


def pods_with_ages(*rows):
    """Pods as (name, ready, status, restarts, age, node, labels)."""
    return answer(
        "get_resources",
        {"kind": "pods", "namespace": APP, "wide": True, "show_labels": True},
        table(
            POD_HEADER,
            *(
                (n, r, s, x, age, "10.9.0.7", node, lab)
                for n, r, s, x, age, node, lab in rows
            ),
        ),
    )


def node_cluster():
    return [
        namespaces(APP),
        nodes(("pool-c-3", "Ready"), ("pool-c-4", "Ready")),
        pods_with_ages(
            (
                TRACKER_A,
                "0/1",
                "Running",
                "5 (2m ago)",
                "4d",
                "pool-c-3",
                "app=tracker",
            ),
            (TRACKER_B, "1/1", "Running", "0", "4d", "pool-c-4", "app=tracker"),
            (SHIPPER, "1/1", "Running", "0", "31m", "pool-c-3", "app=trace-shipper"),
        ),
        deployments(APP, ("tracker", "1/2"), ("trace-shipper", "1/1")),
        events(
            APP,
            (
                "Warning",
                "Unhealthy",
                f"Pod/{TRACKER_A}",
                "Readiness probe failed: context deadline exceeded",
            ),
        ),
    ]


def kernel_search(message, labels):
    return Observation(
        span_id="k1",
        agent="logs",
        server="logs",
        tool="search_logs",
        arguments={"query": kernel.SEARCH, "regex": True, "limit": 20},
        is_ok=True,
        result={
            "lines": [
                {
                    "service": "journal",
                    "time": "2026-03-02T10:15:00Z",
                    "level": "warn",
                    "message": message,
                    "labels": labels,
                }
            ]
        },
        text="",
    )


def test_failures_that_follow_a_ready_node_have_its_kernel_searched_for_full_tables():
    inv = investigation(*node_cluster())
    calls = kubernetes.plan(inv, Facts.read(inv.observations), call)

    searches = [c for c in calls if c is not None and c.tool == "search_logs"]
    assert [c.arguments["query"] for c in searches] == [kernel.SEARCH]
    assert ("describe", "node", APP, "pool-c-3") in asked(calls)


@pytest.mark.rule("k8s.node-network-table-full", "k8s.node-victims")
def test_a_full_conntrack_table_blames_the_node_and_the_pod_that_started_there():
    line = kernel_search(
        "nf_conntrack: nf_conntrack: table full, dropping packet",
        {"hostname": "pool-c-3"},
    )
    found = diagnosed(*node_cluster(), line, service="tracker")

    node = found["node/pool-c-3"]
    assert (node.stage, node.reason, node.layer) == (
        "infrastructure",
        "ConntrackTableFull",
        layers.CONNECT,
    )
    assert "deployment/trace-shipper" in node.statement
    assert node.is_relevant  # the incident's workload has a pod there
    assert any("table full" in fact for _, fact in node.evidence)
    assert found["deployment/tracker"].victim_of == "node/pool-c-3"
    assert "node/pool-c-4" not in found


@pytest.mark.rule("k8s.node-network-table-full")
def test_a_neighbour_table_overflow_named_in_the_message_is_that_nodes_fault():
    line = kernel_search("kernel: [8812.4] pool-c-3 neighbour table overflow!", {})
    found = diagnosed(*node_cluster(), line, service="tracker")

    node = found["node/pool-c-3"]
    assert node.reason == "NeighbourTableOverflow"
    # The neighbour table is sized by the node's own settings: a platform fault of the node.
    assert node.layer == layers.PLATFORM


def _kernel_warnings(service, *messages):
    """A top-errors answer whose warning groups keep no labels (so no node)."""
    groups = [{"signature": m, "sample": m, "count": 40, "before": 0} for m in messages]
    return Observation(
        span_id=f"logs-{service}",
        agent="logs",
        server="logs",
        tool="top_errors",
        arguments={"service": service, "warnings": True, "baseline_s": 3600},
        is_ok=True,
        result={"service": service, "top": [], "warnings": groups},
    )


def _healthy_cluster():
    """Every pod ready: no node is worth a look from the pods list alone."""
    return [
        namespaces(APP),
        nodes(("pool-c-3", "Ready"), ("pool-c-4", "Ready")),
        pods_with_ages(
            (TRACKER_A, "1/1", "Running", "0", "4d", "pool-c-3", "app=tracker"),
            (TRACKER_B, "1/1", "Running", "0", "4d", "pool-c-4", "app=tracker"),
        ),
        deployments(APP, ("tracker", "2/2")),
    ]


@pytest.mark.parametrize(
    "message",
    [
        "[4417.20] neighbour: arp_cache: neighbor table overflow!",
        "nf_conntrack: nf_conntrack: table full, dropping packet",
        "IPv6: ndisc_cache: neighbour table overflow",
    ],
)
def test_a_kernel_table_line_read_without_its_node_has_every_services_lines_searched(
    message,
):
    inv = investigation(*_healthy_cluster(), _kernel_warnings("host-kmsg", message))
    calls = kubernetes.plan(inv, Facts.read(inv.observations), call)

    searches = [c for c in calls if c is not None and c.tool == "search_logs"]
    assert [c.arguments["query"] for c in searches] == [kernel.SEARCH]
    assert "without naming the node" in searches[0].why


def test_warnings_that_are_no_kernel_table_line_ask_no_node_search():
    inv = investigation(
        *_healthy_cluster(),
        _kernel_warnings("tracker", "slow table scan on orders: 812 ms"),
    )
    calls = kubernetes.plan(inv, Facts.read(inv.observations), call)

    assert not [c for c in calls if c is not None and c.tool == "search_logs"]


@pytest.mark.rule("k8s.node-network-table-full", "k8s.node-victims")
def test_a_neighbour_overflow_found_by_the_search_blames_the_nodes_it_labels():
    unplaced = _kernel_warnings(
        "host-kmsg", "[4417.20] neighbour: arp_cache: neighbor table overflow!"
    )
    line = kernel_search(
        "[4417.20] neighbour: arp_cache: neighbor table overflow!",
        {"node": "pool-c-4"},
    )
    found = diagnosed(*_healthy_cluster(), unplaced, line, service="tracker")

    node = found["node/pool-c-4"]
    assert (node.reason, node.layer) == ("NeighbourTableOverflow", layers.PLATFORM)
    assert node.is_relevant  # a pod of the incident's workload runs there
    assert "node/pool-c-3" not in found


def test_a_full_table_on_a_node_the_cluster_does_not_list_is_not_a_finding():
    line = kernel_search(
        "nf_conntrack: table full, dropping packet", {"hostname": "edge-9"}
    )
    found = diagnosed(*node_cluster(), line, service="tracker")

    assert not any(c.startswith("node/") for c in found)


MAILER = "mailer-6c5d4e3f2-q1w2e"
LOCKDOWN = """Name:         lockdown
Namespace:    parcels
Spec:
  PodSelector:     <none> (Allowing the specific traffic to all pods in this namespace)
  Allowing ingress traffic:
    <none> (Selected pods are isolated for ingress connectivity)
  Allowing egress traffic:
    To Port: 443/TCP
    To:
      IPBlock:
        CIDR: 0.0.0.0/0
        Except: 10.0.0.0/8
  Policy Types: Egress
"""


def policy_cluster(describe_text=None):
    observations = [
        namespaces(APP),
        nodes(("pool-c-3", "Ready")),
        pods_with_ages(
            (MAILER, "1/1", "Running", "0", "9d", "pool-c-3", "app=mailer"),
        ),
        deployments(APP, ("mailer", "1/1")),
        events(APP),
        listing(
            "networkpolicies",
            APP,
            ("NAME", "POD-SELECTOR", "AGE"),
            ("allow-web", "app=web", "300d"),
            ("lockdown", "<none>", "18m"),
        ),
        logs(
            APP,
            MAILER,
            "send failed: dial tcp: lookup mx.parcelpost.example on 10.100.0.10:53: "
            "i/o timeout\n",
            previous=False,
        ),
    ]
    if describe_text is not None:
        observations.append(describe("networkpolicy", APP, "lockdown", describe_text))
    return observations


def test_a_policy_over_pods_that_fail_lookups_is_described():
    inv = investigation(*policy_cluster(), service="mailer")
    calls = kubernetes.plan(inv, Facts.read(inv.observations), call)

    assert ("describe", "networkpolicy", APP, "lockdown") in asked(calls)
    assert ("describe", "networkpolicy", APP, "allow-web") not in asked(calls)


@pytest.mark.rule("k8s.network-policy-blocks-dns")
def test_an_egress_policy_without_port_53_is_the_cause_of_failed_lookups():
    found = diagnosed(*policy_cluster(LOCKDOWN), service="mailer")

    policy = found["networkpolicy/lockdown"]
    assert (policy.stage, policy.reason, policy.layer) == (
        "service_routing",
        "NetworkPolicy",
        layers.DNS,
    )
    assert policy.explains == ["deployment/mailer"]
    assert any("lookup mx.parcelpost.example" in fact for _, fact in policy.evidence)


def test_an_egress_policy_that_lets_dns_out_is_not_blamed():
    admitting = LOCKDOWN.replace(
        "  Policy Types: Egress",
        "    ----------\n    To Port: 53/UDP\n    To Port: 53/TCP\n  Policy Types: Egress",
    )
    found = diagnosed(*policy_cluster(admitting), service="mailer")

    assert blocks_dns(LOCKDOWN) and not blocks_dns(admitting)
    assert "networkpolicy/lockdown" not in found


# --- an ingress's TLS secret ---------------------------------------------------------------------

INGRESS = """Name:             catalogue
Namespace:        parcels
Ingress Class:    nginx
TLS:
  catalogue-cert terminates shop.parcelpost.example,parcelpost.example
Rules:
  Host                      Path  Backends
  ----                      ----  --------
  shop.parcelpost.example
                            /   catalogue:8080 (10.9.0.7:8080)
"""


def ingress_cluster(*secret_names):
    observations = [
        namespaces(APP),
        nodes(("pool-c-3", "Ready")),
        pods_with_ages(
            (
                "catalogue-7b6c5d4e3-m3n4b",
                "1/1",
                "Running",
                "0",
                "9d",
                "pool-c-3",
                "app=catalogue",
            ),
        ),
        deployments(APP, ("catalogue", "1/1")),
        events(APP),
        listing(
            "ingresses",
            APP,
            ("NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"),
            ("catalogue", "nginx", "shop.parcelpost.example", "lb-1", "80, 443", "90d"),
        ),
        listing(
            "services",
            APP,
            ("NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE", "SELECTOR"),
            (
                "catalogue",
                "ClusterIP",
                "10.100.4.2",
                "<none>",
                "8080/TCP",
                "90d",
                "app=catalogue",
            ),
        ),
        describe("ingress", APP, "catalogue", INGRESS),
    ]
    if secret_names:
        observations.append(
            answer(
                "get_resources",
                {"kind": "secrets", "namespace": APP},
                table(
                    ("NAME", "TYPE", "DATA", "AGE"),
                    *((n, "kubernetes.io/tls", "2", "9m") for n in secret_names),
                ),
            )
        )
    return observations


def test_an_ingress_terminating_tls_has_the_namespaces_secrets_listed():
    inv = investigation(*ingress_cluster(), service="catalogue")
    calls = kubernetes.plan(inv, Facts.read(inv.observations), call)

    assert ("get_resources", "secrets", APP, None) in asked(calls)


@pytest.mark.rule("k8s.ingress-tls-secret-missing")
def test_an_ingress_whose_tls_secret_is_not_held_is_the_fault():
    found = diagnosed(
        *ingress_cluster("shop-parcelpost-cert", "default-token"), service="catalogue"
    )

    ingress = found["ingress/catalogue"]
    assert (ingress.stage, ingress.reason, ingress.layer) == (
        "service_routing",
        "IngressTLSSecretMissing",
        layers.TLS,
    )
    assert "catalogue-cert" in ingress.statement
    assert any("no catalogue-cert" in fact for _, fact in ingress.evidence)


def test_an_ingress_whose_tls_secret_is_held_is_not_blamed():
    found = diagnosed(*ingress_cluster("catalogue-cert"), service="catalogue")

    assert "ingress/catalogue" not in found


@pytest.mark.rule("k8s.ingress-tls-secret-missing")
def test_the_controller_logging_the_secret_not_found_is_enough_without_the_secrets_list():
    warned = Observation(
        span_id="w1",
        agent="logs",
        server="logs",
        tool="top_errors",
        arguments={"service": "edge-controller"},
        is_ok=True,
        result={
            "top": [],
            "warnings": [
                {
                    "signature": "local SSL certificate <id> was not found",
                    "sample": 'Error getting SSL certificate "parcels/catalogue-cert": local '
                    "SSL certificate parcels/catalogue-cert was not found. Using default "
                    "certificate",
                    "count": 4,
                }
            ],
        },
        text="",
    )
    found = diagnosed(*ingress_cluster(), warned, service="catalogue")

    ingress = found["ingress/catalogue"]
    assert any("edge-controller" in fact for _, fact in ingress.evidence)


@pytest.mark.timeout(60)
def test_a_huge_unlabelled_warning_is_read_without_backtracking():
    hostile = "neighbour " * 20_000 + "table " * 5_000 + "overflo"
    inv = investigation(*_healthy_cluster(), _kernel_warnings("host-kmsg", hostile))

    assert kernel.unplaced(Facts.read(inv.observations)) == ""
