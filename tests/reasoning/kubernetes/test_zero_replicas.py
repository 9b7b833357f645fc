"""Zero replicas: a deployment or stateful set scaled to zero has no pod to serve it."""

import pytest

from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.stages.zero_replicas import zero_replicas
from reasoning.layered.kubernetes.workloads import workload_fault

from .answers import NS, cited, deployments, listing, view


@pytest.mark.rule("k8s.zero-replicas")
def test_a_deployment_scaled_to_zero_is_a_fault():
    listed = deployments(("search", "0/0"), ("frontend", "1/1"))
    f = zero_replicas(view("deployment/search", listed))
    assert f is not None
    assert (f.stage, f.reason, f.component) == (
        "runtime",
        "zero_replicas",
        "deployment/search",
    )
    assert "scaled to 0 replicas" in f.statement
    assert cited(f.evidence, listed)[0].startswith("get deployments: search 0/0")


def test_a_stateful_set_scaled_to_zero_is_a_fault():
    listed = listing("statefulsets", ("NAME", "READY", "AGE"), ("redis", "0/0", "38d"))
    f = zero_replicas(view("statefulset/redis", listed))
    assert f is not None and (f.reason, f.component) == (
        "zero_replicas",
        "statefulset/redis",
    )


def test_a_deployment_with_replicas_is_not():
    listed = deployments(("search", "0/2"), ("frontend", "1/1"))
    assert zero_replicas(view("deployment/search", listed)) is None
    assert zero_replicas(view("deployment/frontend", listed)) is None


def test_a_workload_not_listed_is_not():
    assert (
        zero_replicas(view("deployment/search", deployments(("frontend", "1/1"))))
        is None
    )


def test_zero_replicas_is_the_last_stage():
    cluster = Cluster.read([deployments(("search", "0/0"))])
    f = workload_fault(cluster, NS, "deployment/search")
    assert f is not None and f.reason == "zero_replicas"
