"""Scheduling: a FailedScheduling warning means no node takes the workload's pods."""

import pytest

from reasoning import layers
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.stages.scheduling import scheduling
from reasoning.layered.kubernetes.workloads import workload_fault

from .answers import NS, cited, deployments, describe, events, pods, view

POD = "search-5f6c7d8b9-q2w3e"


@pytest.mark.rule("k8s.scheduling")
def test_too_little_cpu_blocks_the_workload_at_scheduling():
    listed = pods((POD, "0/1", "Pending", "0"))
    f = scheduling(
        view(
            "deployment/search",
            deployments(("search", "0/1")),
            listed,
            events(
                (
                    "Warning",
                    "FailedScheduling",
                    f"Pod/{POD}",
                    "0/3 nodes are available: 3 Insufficient memory.",
                ),
                (
                    "Warning",
                    "FailedScheduling",
                    f"Pod/{POD}",
                    "0/3 nodes are available: 3 Insufficient cpu.",
                ),
            ),
        )
    )
    assert f is not None
    assert (f.stage, f.reason, f.component, f.layer) == (
        "scheduling",
        "FailedScheduling",
        "deployment/search",
        layers.PLATFORM,
    )
    # The last message says why now.
    assert (
        "Insufficient cpu" in f.statement and "Insufficient memory" not in f.statement
    )
    assert "Insufficient cpu" in f.keywords
    assert any(
        fact.startswith(f"get pods: {POD}") for fact in cited(f.evidence, listed)
    )


def test_an_unbound_claim_is_cited():
    claim = describe(
        "persistentvolumeclaim",
        "data-search-0",
        "Name: data-search-0\nStatus: Pending\n",
    )
    f = scheduling(
        view(
            "deployment/search",
            deployments(("search", "0/1")),
            pods((POD, "0/1", "Pending", "0")),
            events(
                (
                    "Warning",
                    "FailedScheduling",
                    f"Pod/{POD}",
                    "0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims.",
                )
            ),
            claim,
        )
    )
    assert f is not None and f.stage == "scheduling"
    assert {"PersistentVolumeClaim", "unbound"} <= set(f.keywords)
    assert cited(f.evidence, claim) == [
        "describe persistentvolumeclaim data-search-0: not bound"
    ]


def test_a_taint_is_a_keyword():
    message = (
        "0/2 nodes are available: 2 node(s) had untolerated taint {dedicated: batch}."
    )
    f = scheduling(
        view(
            "deployment/search",
            pods((POD, "0/1", "Pending", "0")),
            events(("Warning", "FailedScheduling", f"Pod/{POD}", message)),
        )
    )
    assert f is not None and "taint" in f.keywords


def test_a_pending_pod_with_no_failed_scheduling_passes():
    f = scheduling(
        view(
            "deployment/search",
            deployments(("search", "0/1")),
            pods((POD, "0/1", "Pending", "0")),
        )
    )
    assert f is None


def test_scheduling_comes_before_startup():
    cluster = Cluster.read(
        [
            deployments(("search", "0/1")),
            pods((POD, "0/1", "Pending", "0")),
            events(
                (
                    "Warning",
                    "FailedScheduling",
                    f"Pod/{POD}",
                    "0/3 nodes are available: 3 Insufficient cpu.",
                ),
                (
                    "Warning",
                    "FailedMount",
                    f"Pod/{POD}",
                    'MountVolume.SetUp failed for volume "config"',
                ),
            ),
        ]
    )
    f = workload_fault(cluster, NS, "deployment/search")
    assert f is not None and f.stage == "scheduling"


def _operator_pods(*, described: bool = True):
    """A database operator's instances (no Deployment or StatefulSet of their own) beside a
    Deployment: two standbys Pending, one described as controlled by the operator's object."""
    observations = [
        deployments(("ledger-web", "2/2")),
        pods(
            ("ledger-db-1", "1/1", "Running", "0"),
            ("ledger-db-2", "0/1", "Pending", "0"),
            ("ledger-db-3", "0/1", "Pending", "0"),
        ),
        events(
            (
                "Warning",
                "FailedScheduling",
                "Pod/ledger-db-2",
                "0/4 nodes are available: 4 Insufficient hugepages-1Gi.",
            ),
            (
                "Warning",
                "FailedScheduling",
                "Pod/ledger-db-3",
                "0/4 nodes are available: 4 Insufficient hugepages-1Gi.",
            ),
        ),
    ]
    if described:
        observations.append(
            describe(
                "pods",
                "ledger-db-2",
                "Name:             ledger-db-2\nNamespace:        shop\n"
                "Status:           Pending\nControlled By:    PostgresCluster/ledger-db\n",
            )
        )
    return observations


@pytest.mark.rule("k8s.scheduling")
def test_pods_of_an_operator_object_are_its_workload_not_each_a_pod_of_its_own():
    cluster = Cluster.read(_operator_pods())
    owners = {cluster.owner(NS, "pod", f"ledger-db-{n}") for n in (1, 2, 3)}
    assert owners == {"postgrescluster/ledger-db"}  # the undescribed siblings too
    f = workload_fault(cluster, NS, "postgrescluster/ledger-db")
    assert f is not None
    assert (f.stage, f.component) == ("scheduling", "postgrescluster/ledger-db")
    assert "Insufficient hugepages-1Gi" in f.statement


def test_without_a_describe_naming_the_controller_a_lone_pod_stays_a_pod():
    cluster = Cluster.read(_operator_pods(described=False))
    assert cluster.owner(NS, "pod", "ledger-db-2") == "pod/ledger-db-2"
