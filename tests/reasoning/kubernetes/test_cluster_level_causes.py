"""Cluster-level objects behind a workload's failure (issue 21): a node whose pods alone fail, a CSI
node plugin that does not run where the pods are, a Service whose traffic policy keeps connections
node-local, and the cluster DNS forwarding a zone to servers that do not answer. The names here are
invented."""

import pytest

from reasoning import layers
from reasoning.layered import kubernetes
from reasoning.layered.facts import Facts
from reasoning.layered.kubernetes import dns_upstream

from .test_infrastructure import (
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
    pods,
)

NS = "ledgers"
POSTER = "ledger-poster-6c8d7b9f4"


def poster_pods(*rows):
    return pods(
        NS,
        *(
            (
                f"{POSTER}-{sfx}",
                r,
                s,
                x,
                node,
                "app=ledger-poster,pod-template-hash=6c8d7b9f4",
            )
            for sfx, r, s, x, node in rows
        ),
    )


# --- failures confined to one node ---------------------------------------------------------------


def node_cluster(*rows):
    return [
        namespaces(NS, "kube-system"),
        nodes(("pool-a-1", "Ready"), ("pool-a-2", "Ready"), ("pool-x-9", "Ready")),
        poster_pods(*rows),
        deployments(NS, ("ledger-poster", "2/4")),
        events(NS),
        logs(
            NS,
            f"{POSTER}-q1w2e",
            "posting batch 4411\nFATAL runtime: failed to create new OS thread: "
            "resource temporarily unavailable (pids.max reached)\n",
        ),
    ]


CONFINED = (
    ("a1b2c", "1/1", "Running", "0", "pool-a-1"),
    ("d3e4f", "1/1", "Running", "0", "pool-a-2"),
    ("q1w2e", "0/1", "CrashLoopBackOff", "7", "pool-x-9"),
    ("r5t6y", "0/1", "CrashLoopBackOff", "6", "pool-x-9"),
)


@pytest.mark.rule("k8s.node-confined-failure", "k8s.node-victims")
def test_a_template_failing_only_on_one_node_makes_that_node_the_fault():
    found = diagnosed(*node_cluster(*CONFINED), service="ledger-poster")

    node = found["node/pool-x-9"]
    assert (node.stage, node.reason, node.layer) == (
        "infrastructure",
        "NodeLocalFailure",
        layers.PLATFORM,
    )
    assert node.is_relevant
    assert "pids.max" in node.statement
    assert found["deployment/ledger-poster"].victim_of == "node/pool-x-9"


@pytest.mark.rule("k8s.node-confined-failure")
def test_one_pod_failing_alone_or_failures_on_several_nodes_do_not_blame_a_node():
    alone = diagnosed(*node_cluster(*CONFINED[:3]), service="ledger-poster")
    spread = diagnosed(
        *node_cluster(
            ("a1b2c", "1/1", "Running", "0", "pool-a-1"),
            ("d3e4f", "0/1", "CrashLoopBackOff", "4", "pool-a-2"),
            ("q1w2e", "0/1", "CrashLoopBackOff", "7", "pool-x-9"),
        ),
        service="ledger-poster",
    )

    assert not any(c.startswith("node/") for c in alone)
    assert not any(c.startswith("node/") for c in spread)


@pytest.mark.rule("k8s.node-confined-failure")
def test_a_new_template_crashing_on_one_node_beside_the_old_one_is_not_the_nodes_fault():
    observations = node_cluster()
    observations[2] = pods(
        NS,
        (
            "ledger-poster-5b7c6a8d3-a1b2c",
            "1/1",
            "Running",
            "0",
            "pool-a-1",
            "app=ledger-poster,pod-template-hash=5b7c6a8d3",
        ),
        (
            "ledger-poster-5b7c6a8d3-d3e4f",
            "1/1",
            "Running",
            "0",
            "pool-a-2",
            "app=ledger-poster,pod-template-hash=5b7c6a8d3",
        ),
        (
            f"{POSTER}-q1w2e",
            "0/1",
            "CrashLoopBackOff",
            "7",
            "pool-x-9",
            "app=ledger-poster,pod-template-hash=6c8d7b9f4",
        ),
        (
            f"{POSTER}-r5t6y",
            "0/1",
            "CrashLoopBackOff",
            "6",
            "pool-x-9",
            "app=ledger-poster,pod-template-hash=6c8d7b9f4",
        ),
    )
    found = diagnosed(*observations, service="ledger-poster")

    assert "node/pool-x-9" not in found


SANDBOX_FAIL = (
    "Failed to create pod sandbox: rpc error: code = Unknown desc = failed to get sandbox image "
    '"mirror.example.test/infra/pause:9.1": dial tcp 198.51.100.7:443: i/o timeout'
)
CREATING = (
    ("a1b2c", "1/1", "Running", "0", "pool-a-1"),
    ("d3e4f", "1/1", "Running", "0", "pool-a-2"),
    ("q1w2e", "0/1", "ContainerCreating", "0", "pool-x-9"),
    ("r5t6y", "0/1", "ContainerCreating", "0", "pool-x-9"),
)


def sandbox_cluster(rows, *event_rows):
    observations = node_cluster(*rows)
    observations[4] = events(NS, *event_rows)
    return observations


@pytest.mark.rule("k8s.node-confined-failure", "k8s.node-victims")
def test_pods_whose_sandbox_cannot_be_built_on_one_node_make_that_node_the_fault():
    found = diagnosed(
        *sandbox_cluster(
            CREATING,
            ("Warning", "FailedCreatePodSandBox", f"Pod/{POSTER}-q1w2e", SANDBOX_FAIL),
        ),
        service="ledger-poster",
    )

    node = found["node/pool-x-9"]
    assert (node.reason, node.layer) == ("NodeLocalFailure", layers.PLATFORM)
    assert any("failed to get sandbox image" in fact for _, fact in node.evidence)
    assert found["deployment/ledger-poster"].victim_of == "node/pool-x-9"


@pytest.mark.rule("k8s.node-confined-failure")
def test_pods_still_creating_without_a_sandbox_failure_do_not_blame_the_node():
    quiet = diagnosed(*sandbox_cluster(CREATING), service="ledger-poster")
    mounting = diagnosed(
        *sandbox_cluster(
            CREATING,
            ("Warning", "FailedMount", f"Pod/{POSTER}-q1w2e", "timed out waiting"),
        ),
        service="ledger-poster",
    )

    assert "node/pool-x-9" not in quiet
    assert "node/pool-x-9" not in mounting


@pytest.mark.timeout(60)
@pytest.mark.rule("k8s.node-confined-failure")
def test_a_huge_sandbox_event_is_read_in_bounded_time():
    found = diagnosed(
        *sandbox_cluster(
            CREATING,
            (
                "Warning",
                "FailedCreatePodSandBox",
                f"Pod/{POSTER}-r5t6y",
                SANDBOX_FAIL + " x" * 200_000,
            ),
        ),
        service="ledger-poster",
    )

    assert "node/pool-x-9" in found


# --- a CSI driver not registered on the pods' nodes ----------------------------------------------

DS_HEADER = (
    "NAME",
    "DESIRED",
    "CURRENT",
    "READY",
    "UP-TO-DATE",
    "AVAILABLE",
    "NODE SELECTOR",
    "AGE",
    "CONTAINERS",
    "IMAGES",
)
VAULT_FAIL = (
    'MountVolume.SetUp failed for volume "vault-creds" : kubernetes.io/csi: mounter.SetUpAt failed '
    "to get CSI client: driver name secrets-store.csi.k8s.io not found in the list of registered CSI drivers"
)


def csi_cluster(*, with_daemonsets=True):
    observations = [
        namespaces(NS, "kube-system"),
        nodes(("pool-a-1", "Ready"), ("pool-a-2", "Ready")),
        poster_pods(
            ("a1b2c", "0/1", "ContainerCreating", "0", "pool-a-1"),
            ("d3e4f", "0/1", "ContainerCreating", "0", "pool-a-2"),
        ),
        deployments(NS, ("ledger-poster", "0/2")),
        events(NS, ("Warning", "FailedMount", f"Pod/{POSTER}-a1b2c", VAULT_FAIL)),
    ]
    if with_daemonsets:
        observations.append(
            listing(
                "daemonsets",
                "kube-system",
                DS_HEADER,
                (
                    "fluent-bit",
                    "2",
                    "2",
                    "2",
                    "2",
                    "2",
                    "<none>",
                    "300d",
                    "fluent-bit",
                    "cr.fluentbit.io/fluent/fluent-bit:3.1",
                ),
                (
                    "csi-secrets-store",
                    "0",
                    "0",
                    "0",
                    "0",
                    "0",
                    "kubernetes.io/os=linux",
                    "300d",
                    "node-driver-registrar,secrets-store",
                    "registry.k8s.io/csi-secrets-store/driver:v1.4.6",
                ),
            )
        )
    return observations


@pytest.mark.rule("k8s.csi-driver-not-registered")
def test_a_csi_driver_not_registered_blames_its_node_plugin_daemon_set():
    found = diagnosed(*csi_cluster(), service="ledger-poster")

    plugin = found["daemonset/csi-secrets-store"]
    assert (plugin.stage, plugin.reason, plugin.layer) == (
        "startup",
        "CSIDriverNotRegistered",
        layers.PLATFORM,
    )
    assert plugin.is_relevant
    assert "desired 0" in plugin.statement
    assert any(
        "not found in the list of registered CSI drivers" in f
        for _, f in plugin.evidence
    )
    assert found["deployment/ledger-poster"].victim_of == "daemonset/csi-secrets-store"


@pytest.mark.rule("k8s.csi-driver-not-registered")
def test_without_the_daemon_sets_the_driver_is_named_and_they_are_listed():
    found = diagnosed(*csi_cluster(with_daemonsets=False), service="ledger-poster")
    inv = investigation(*csi_cluster(with_daemonsets=False), service="ledger-poster")
    calls = kubernetes.plan(inv, Facts.read(inv.observations), call)

    assert "csidriver/secrets-store.csi.k8s.io" in found
    assert ("get_resources", "daemonsets", "kube-system", None) in asked(calls)


# --- a Service whose traffic policy keeps connections on the caller's node ----------------------

QUOTE_DESCRIBE = """\
Name:                     quote-engine
Namespace:                ledgers
Selector:                 app=quote-engine
Type:                     {type}
IP:                       10.96.40.12
Port:                     http  9000/TCP
Endpoints:                10.9.1.4:9000,10.9.2.4:9000
Session Affinity:         None
{which} Traffic Policy:  Local
Events:                   <none>
"""
CALLER_LOG = "GET /quote 502: upstream quote-engine.ledgers.svc.cluster.local:9000 connect timeout after 2000ms\n"


def policy_cluster(which="Internal", kind="ClusterIP", caller_log=CALLER_LOG):
    return [
        namespaces(NS, "kube-system"),
        nodes(("pool-a-1", "Ready"), ("pool-a-2", "Ready"), ("pool-a-3", "Ready")),
        pods(
            NS,
            (
                "quote-engine-7d9c8b6f5-aa111",
                "1/1",
                "Running",
                "0",
                "pool-a-1",
                "app=quote-engine",
            ),
            (
                "quote-engine-7d9c8b6f5-bb222",
                "1/1",
                "Running",
                "0",
                "pool-a-2",
                "app=quote-engine",
            ),
            (
                "pricing-web-5f6d7c8b9-cc333",
                "1/1",
                "Running",
                "0",
                "pool-a-3",
                "app=pricing-web",
            ),
        ),
        deployments(NS, ("quote-engine", "2/2"), ("pricing-web", "1/1")),
        listing(
            "services",
            NS,
            ("NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE", "SELECTOR"),
            (
                "quote-engine",
                kind,
                "10.96.40.12",
                "<none>",
                "9000/TCP",
                "90d",
                "app=quote-engine",
            ),
        ),
        events(NS),
        logs(NS, "pricing-web-5f6d7c8b9-cc333", caller_log, previous=False),
        describe(
            "service", NS, "quote-engine", QUOTE_DESCRIBE.format(type=kind, which=which)
        ),
    ]


@pytest.mark.rule("k8s.traffic-policy-local")
@pytest.mark.parametrize(
    ("which", "kind"), [("Internal", "ClusterIP"), ("External", "NodePort")]
)
def test_a_node_local_traffic_policy_with_pods_on_some_nodes_drops_the_other_callers(
    which, kind
):
    found = diagnosed(*policy_cluster(which, kind), service="pricing-web")

    service = found["service/quote-engine"]
    assert (service.reason, service.layer) == ("TrafficPolicyLocal", layers.CONNECT)
    assert "2 of 3 nodes" in service.statement
    assert service.is_relevant
    assert any("Traffic Policy" in f and "Local" in f for _, f in service.evidence)


@pytest.mark.rule("k8s.traffic-policy-local")
def test_a_node_local_policy_without_failing_callers_is_no_fault_and_a_named_service_is_described():
    quiet = diagnosed(
        *policy_cluster(caller_log="GET /quote 200 14ms\n"), service="pricing-web"
    )
    observations = policy_cluster()[:-1]
    inv = investigation(*observations, service="pricing-web")
    calls = kubernetes.plan(inv, Facts.read(inv.observations), call)

    assert "service/quote-engine" not in quiet
    assert ("describe", "service", NS, "quote-engine") in asked(calls)


# --- the cluster DNS forwarding a zone to servers that do not answer ------------------------------

STUB_LOG = "".join(
    f"[ERROR] plugin/errors: 2 {host}.lab.northwind-intra.net. AAAA: read udp "
    f"10.9.0.31:5{i}211->172.20.4.{10 + i % 2}:53: i/o timeout\n"
    for i, host in enumerate(("vault", "git", "vault", "artifacts"))
)
LOOKUP_LOG = (
    "fetch secret: Get https://vault.lab.northwind-intra.net/v1/kv: dial tcp: lookup "
    "vault.lab.northwind-intra.net on 10.96.0.10:53: server misbehaving\n"
)


def dns_cluster(dns="coredns", dns_log=STUB_LOG):
    pod = f"{dns}-5d7f9c6b8-k2m4p"
    return [
        namespaces(NS, "kube-system"),
        nodes(("pool-a-1", "Ready")),
        pods(
            "kube-system", (pod, "1/1", "Running", "0", "pool-a-1", "k8s-app=kube-dns")
        ),
        logs("kube-system", pod, dns_log, previous=False),
        poster_pods(("a1b2c", "1/1", "Running", "0", "pool-a-1")),
        deployments(NS, ("ledger-poster", "1/1")),
        events(NS),
        logs(NS, f"{POSTER}-a1b2c", LOOKUP_LOG, previous=False),
    ]


@pytest.mark.rule("k8s.cluster-dns-upstream")
@pytest.mark.parametrize("dns", ["coredns", "kube-dns"])
def test_the_cluster_dns_timing_out_upstream_blames_its_configmaps_forwarding(dns):
    found = diagnosed(*dns_cluster(dns), service="ledger-poster")

    config = found[f"configmap/{dns}"]
    assert (config.reason, config.layer) == ("UpstreamDNSUnreachable", layers.DNS)
    assert "lab.northwind-intra.net" in config.statement
    assert "172.20.4.10" in config.statement
    assert config.is_relevant
    assert "deployment/ledger-poster" in config.explains


OTHER_ZONE_LOG = (
    "[ERROR] plugin/errors: 2 tracing-sink.telemetry.svc.cluster.local. A: read udp "
    "10.9.0.31:50211->10.0.0.2:53: i/o timeout\n"
    '[INFO] 10.9.3.7:41000 - 41000 "A IN vault.lab.northwind-intra.net. udp 41 false 512" '
    "NOERROR qr,rd,ra,tc 530 0.004s\n"
)


@pytest.mark.rule("k8s.cluster-dns-upstream")
def test_upstream_failures_for_other_names_do_not_explain_the_failing_lookups():
    found = diagnosed(*dns_cluster(dns_log=OTHER_ZONE_LOG), service="ledger-poster")

    assert "configmap/coredns" not in found


@pytest.mark.rule("k8s.cluster-dns-upstream")
def test_upstream_failures_naming_no_query_still_blame_the_forwarding():
    log = "[ERROR] plugin/forward: no healthy upstream for zone .\n"
    found = diagnosed(*dns_cluster(dns_log=log), service="ledger-poster")

    assert found["configmap/coredns"].reason == "UpstreamDNSUnreachable"


@pytest.mark.timeout(60)
def test_a_huge_lookup_line_is_matched_against_the_upstream_names_in_linear_time():
    hostile = (
        "lookup " + "a." * 100_000 + "example on 10.96.0.10:53: server misbehaving"
    )
    assert not dns_upstream._concerns(
        ["tracing-sink.telemetry.svc.cluster.local"], "", [hostile]
    )


@pytest.mark.rule("k8s.cluster-dns-upstream")
def test_a_cluster_dns_that_answers_is_not_blamed_and_its_logs_are_read_when_lookups_fail():
    quiet = diagnosed(
        *dns_cluster(dns_log="[INFO] plugin/reload: Running configuration\n"),
        service="ledger-poster",
    )
    observations = [
        o
        for o in dns_cluster()
        if o.arguments.get("namespace") != "kube-system" or o.tool != "pod_logs"
    ]
    inv = investigation(*observations, service="ledger-poster")
    calls = kubernetes.plan(inv, Facts.read(inv.observations), call)

    assert "configmap/coredns" not in quiet
    assert ("pod_logs", None, "kube-system", "coredns-5d7f9c6b8-k2m4p") in asked(calls)
    assert ("get_yaml", "configmap", "kube-system", "coredns") in asked(calls)
