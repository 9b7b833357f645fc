"""Topology-aware routing sending a Service's traffic to one zone's pods (issue 21 items 1 and 4):
the pods in the callers' zone restart while the others idle; the Service's setting is the fault, the
workload its victim (reasoning/layered/kubernetes/topology_routing.py). Names invented."""

import pytest

from reasoning import layers

from .test_infrastructure import (
    APP,
    deployments,
    describe,
    diagnosed,
    events,
    namespaces,
    nodes,
)
from .test_node_tables_and_dns_policies import pods_with_ages
from .test_spec_references import services

HINTED = """Name:              quote-svc
Namespace:         {ns}
Annotations:       {annotation}
Selector:          app=quote-svc
Type:              ClusterIP
"""


def _node(name, zone):
    return describe(
        "node",
        "",
        name,
        f"Name: {name}\nLabels: kubernetes.io/hostname={name}\n"
        f"                    topology.kubernetes.io/zone={zone}\n",
    )


def _cluster(annotation, restarts_elsewhere="0"):
    return [
        namespaces(APP),
        nodes(("n-west-1", "Ready"), ("n-east-1", "Ready"), ("n-east-2", "Ready")),
        pods_with_ages(
            (
                "quote-svc-7b6c5d4e3-aa111",
                "0/1",
                "Running",
                "5 (1m ago)",
                "6d",
                "n-west-1",
                "app=quote-svc",
            ),
            (
                "quote-svc-7b6c5d4e3-bb222",
                "1/1",
                "Running",
                "3 (4m ago)",
                "6d",
                "n-west-1",
                "app=quote-svc",
            ),
            (
                "quote-svc-7b6c5d4e3-cc333",
                "1/1",
                "Running",
                restarts_elsewhere,
                "6d",
                "n-east-1",
                "app=quote-svc",
            ),
            (
                "quote-svc-7b6c5d4e3-dd444",
                "1/1",
                "Running",
                restarts_elsewhere,
                "6d",
                "n-east-2",
                "app=quote-svc",
            ),
        ),
        deployments(APP, ("quote-svc", "3/4")),
        services("quote-svc"),
        events(
            APP,
            (
                "Warning",
                "Unhealthy",
                "Pod/quote-svc-7b6c5d4e3-aa111",
                "Liveness probe failed: context deadline exceeded",
            ),
        ),
        describe(
            "service", APP, "quote-svc", HINTED.format(ns=APP, annotation=annotation)
        ),
        _node("n-west-1", "eu-west-9a"),
        _node("n-east-1", "eu-west-9b"),
        _node("n-east-2", "eu-west-9c"),
    ]


@pytest.mark.rule("k8s.topology-aware-routing")
@pytest.mark.parametrize(
    "annotation",
    [
        "service.kubernetes.io/topology-mode: Auto",
        "service.kubernetes.io/topology-aware-hints: auto",
    ],
)
def test_pods_failing_in_one_zone_behind_topology_routing_blame_the_service(annotation):
    found = diagnosed(*_cluster(annotation), service="quote-svc")

    f = found["service/quote-svc"]
    assert (f.stage, f.reason, f.layer) == (
        "service_routing",
        "TopologyAwareRoutingImbalance",
        layers.CONNECT,
    )
    assert "eu-west-9a" in f.statement
    assert any(annotation in fact for _, fact in f.evidence)
    assert found["deployment/quote-svc"].victim_of == "service/quote-svc"


@pytest.mark.rule("k8s.topology-aware-routing")
def test_without_topology_routing_or_with_strain_everywhere_the_service_is_not_blamed():
    plain = diagnosed(*_cluster("team: pricing"), service="quote-svc")
    assert "service/quote-svc" not in plain

    everywhere = diagnosed(
        *_cluster("service.kubernetes.io/topology-mode: Auto", restarts_elsewhere="2"),
        service="quote-svc",
    )
    assert not any(
        f.reason == "TopologyAwareRoutingImbalance" for f in everywhere.values()
    )
