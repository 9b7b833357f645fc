"""A headless Service that publishes no record of its pods while they are not ready: the pods of a
StatefulSet that need each other to get ready cannot resolve each other's per-pod names, and what
calls them fails too. The Service is the fault (dns), the pods and their callers its victims. Names
and wordings are invented for these tests."""

import pytest

from reasoning import layers
from reasoning.layered.candidates import Board, Candidate
from reasoning.layered.facts import Facts
from reasoning.layered.kubernetes.cluster import Cluster, service_of_host
from reasoning.layered.kubernetes.faults import Diagnosis
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.headless_records import (
    headless_record_faults,
    peer_service,
)
from reasoning.layered.kubernetes_findings import workload_victims
from reasoning.layered.reading import error_classes
from reasoning.observations import IncidentBrief, Investigation

from .answers import NS, answer, listing, pod_logs

SERVICES = listing(
    "services",
    ("NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE", "SELECTOR"),
    (
        "etcd-peers",
        "ClusterIP",
        "None",
        "<none>",
        "2379/TCP,2380/TCP",
        "90d",
        "app=etcd",
    ),
    ("etcd", "ClusterIP", "10.0.4.7", "<none>", "2379/TCP", "90d", "app=etcd"),
    ("ledger", "ClusterIP", "10.0.4.9", "<none>", "8080/TCP", "90d", "app=ledger"),
)
STATEFULSETS = listing(
    "statefulsets",
    ("NAME", "READY", "AGE", "SELECTOR"),
    ("etcd", "0/3", "90d", "app=etcd"),
)
DEPLOYMENTS = listing(
    "deployments",
    ("NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "SELECTOR"),
    ("ledger", "0/2", "2", "0", "90d", "app=ledger"),
)
PODS = listing(
    "pods",
    ("NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "LABELS"),
    ("etcd-0", "0/1", "Running", "0", "20m", "10.9.0.4", "w-1", "app=etcd"),
    ("etcd-1", "0/1", "Running", "0", "20m", "10.9.0.5", "w-2", "app=etcd"),
    (
        "ledger-7d9f6c5b8-abcde",
        "0/1",
        "CrashLoopBackOff",
        "6",
        "20m",
        "10.9.0.6",
        "w-1",
        "app=ledger,pod-template-hash=7d9f6c5b8",
    ),
)


def endpoints(cell: str) -> object:
    return listing(
        "endpoints",
        ("NAME", "ENDPOINTS", "AGE"),
        ("etcd-peers", cell, "90d"),
        ("etcd", cell, "90d"),
        ("ledger", "<none>", "90d"),
    )


PEER_LOG = pod_logs(
    "etcd-1",
    "starting member\n"
    "rafthttp: failed to dial etcd-0.etcd-peers.shop.svc.cluster.local:2380: "
    "dial tcp: lookup etcd-0.etcd-peers.shop.svc.cluster.local: no such host\n",
)
JAVA_PEER_LOG = pod_logs(
    "etcd-0",
    "election round 4\n"
    "java.net.UnknownHostException: etcd-1.etcd-peers.shop.svc.cluster.local\n",
)
CALLER_LOG = pod_logs(
    "ledger-7d9f6c5b8-abcde",
    "connecting to etcd.shop.svc.cluster.local:2379\n"
    "fatal: gave up waiting for the store after 90s\n",
    previous=True,
)


def cluster(*extra, cell="<none>"):
    return Cluster.read(
        [SERVICES, STATEFULSETS, DEPLOYMENTS, PODS, endpoints(cell), *extra]
    )


def test_a_pods_record_under_its_headless_service_means_that_service():
    services = ["etcd-peers", "etcd"]
    assert (
        service_of_host("etcd-0.etcd-peers.shop.svc.cluster.local", services, NS)
        == "etcd-peers"
    )
    assert service_of_host("etcd-0.etcd-peers.shop", services, NS) == "etcd-peers"
    assert service_of_host("etcd.shop.svc.cluster.local", services, NS) == "etcd"
    assert service_of_host("etcd-0.etcd-peers.elsewhere.example", services, NS) is None
    assert peer_service("etcd-2.etcd-peers", ["etcd-peers"], NS) == "etcd-peers"
    assert peer_service("etcd-2.other.example.com", ["etcd-peers"], NS) is None


def test_a_java_unknown_host_is_a_dns_failure():
    assert layers.DNS in error_classes("java.net.UnknownHostException: db-3.db-hl")
    assert layers.DNS in error_classes("Unknown host: cache-1.cache")


@pytest.mark.rule("k8s.headless-records-unpublished")
@pytest.mark.parametrize("log", [PEER_LOG, JAVA_PEER_LOG])
def test_peers_that_cannot_resolve_each_other_blame_the_headless_service(log):
    found = headless_record_faults(cluster(log, CALLER_LOG), NS)
    assert [f.component for f in found] == ["service/etcd-peers"]
    f = found[0]
    assert f.layer == layers.DNS
    assert "publishNotReadyAddresses" in f.statement
    assert any("etcd-peers" in fact for _, fact in f.evidence)
    # The StatefulSet behind it and the Deployment calling the service in front of the same pods.
    assert "statefulset/etcd" in f.explains
    assert "deployment/ledger" in f.explains


@pytest.mark.rule("k8s.headless-records-unpublished")
def test_a_service_that_publishes_not_ready_pods_or_lists_endpoints_is_not_blamed():
    publishing = answer(
        "get_yaml",
        {"kind": "services", "name": "etcd-peers", "namespace": NS},
        "kind: Service\nspec:\n  clusterIP: None\n  publishNotReadyAddresses: true\n",
    )
    assert headless_record_faults(cluster(PEER_LOG, publishing), NS) == []
    assert headless_record_faults(cluster(PEER_LOG, cell="10.9.0.4:2380"), NS) == []
    timeout = pod_logs(
        "etcd-1",
        "lookup etcd-0.etcd-peers.shop.svc.cluster.local: i/o timeout\n",
    )
    assert headless_record_faults(cluster(timeout), NS) == []


@pytest.mark.rule("board.workload-victims")
def test_a_service_whose_workload_is_a_victim_is_a_lead_below_the_cause():
    inv = Investigation(
        incident=IncidentBrief(
            title="statements late", service="statements", severity="sev2", symptoms=()
        ),
        tools=[],
    )
    board = Board(inv, Facts.read([]))
    cause = Finding(
        "service_routing", "x", "service/etcd-peers", layers.DNS, "cause", NS
    )
    victim = Finding(
        "runtime",
        "CrashLoopBackOff",
        "deployment/ledger",
        layers.APPLICATION,
        "crashes",
        NS,
    )
    victim.victim_of = cause.component
    board.cluster = Diagnosis(Cluster(), findings=[cause, victim])
    blamed = board.get(layers.DNS, "service/etcd-peers", "cause")
    blamed.status, blamed.confidence = "likely", 0.45
    own: Candidate = board.get(layers.APPLICATION, "ledger", "ledger itself fails")
    own.status, own.confidence = "confirmed", 0.8
    other = board.get(layers.APPLICATION, "billing", "billing itself fails")
    other.status, other.confidence = "confirmed", 0.8
    workload_victims(board)
    assert own.status == "likely" and own.confidence <= 0.4
    assert "service/etcd-peers" in own.statement
    assert other.confidence == 0.8


@pytest.mark.timeout(60)
def test_a_huge_log_of_unresolved_peer_names_is_read_in_one_pass():
    line = "java.net.UnknownHostException: etcd-1.etcd-peers.shop.svc.cluster.local\n"
    flood = pod_logs("etcd-0", line * 3000 + "x" * 200_000)
    found = headless_record_faults(cluster(flood), NS)
    assert [f.component for f in found] == ["service/etcd-peers"]
    assert len(found[0].evidence) <= 4
