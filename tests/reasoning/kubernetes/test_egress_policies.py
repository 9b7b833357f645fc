"""An egress NetworkPolicy whose IP blocks miss the address a remote host now has (issue 21 class 4),
with invented names: the policy is the fault, not the remote host nor the workload that cannot
connect (`kubernetes.egress_policies`)."""

import pytest

from reasoning import layers
from reasoning.layered import kubernetes
from reasoning.layered.facts import Facts
from reasoning.layered.kubernetes.egress_policies import egress_rules

from .test_infrastructure import (
    APP,
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
from .test_node_tables_and_dns_policies import pods_with_ages

BOOKER = "slot-booker-5d4c3b2a1-m3n4b"
PINHOLE = """Name:         booker-to-store
Namespace:    parcels
Spec:
  PodSelector:     app=slot-booker
  Not affecting ingress traffic
  Allowing egress traffic:
    To Port: 3306/TCP
    To:
      IPBlock:
        CIDR: 172.30.8.0/22
        Except:
  Policy Types: Egress
"""
FAILING = (
    "2030-01-01T10:20:00Z ERROR pool: cannot open connection: dial tcp "
    "slots-store.cluster-ro-x1.example-cloud.net:3306: i/o timeout\n"
    "2030-01-01T10:21:00Z WARN health: store unreachable (resolved slots-store -> {address})\n"
)


def egress_cluster(address="172.30.20.9", describe_text=PINHOLE):
    observations = [
        namespaces(APP),
        nodes(("pool-c-3", "Ready")),
        pods_with_ages(
            (BOOKER, "0/1", "Running", "4", "9d", "pool-c-3", "app=slot-booker"),
        ),
        deployments(APP, ("slot-booker", "0/1")),
        events(APP),
        listing(
            "networkpolicies",
            APP,
            ("NAME", "POD-SELECTOR", "AGE"),
            ("deny-everything", "<none>", "300d"),
            ("booker-to-store", "app=slot-booker", "200d"),
        ),
        logs(APP, BOOKER, FAILING.format(address=address), previous=False),
    ]
    if describe_text is not None:
        observations.append(
            describe("networkpolicy", APP, "booker-to-store", describe_text)
        )
    return observations


def test_the_policy_selecting_pods_that_fail_to_connect_out_is_described():
    inv = investigation(*egress_cluster(describe_text=None), service="slot-booker")
    calls = kubernetes.plan(inv, Facts.read(inv.observations), call)

    assert ("describe", "networkpolicy", APP, "booker-to-store") in asked(calls)
    assert ("describe", "networkpolicy", APP, "deny-everything") not in asked(calls)


@pytest.mark.rule("k8s.network-policy-egress-block")
def test_an_ip_block_that_misses_the_hosts_new_address_is_the_fault():
    found = diagnosed(*egress_cluster(), service="slot-booker")

    policy = found["networkpolicy/booker-to-store"]
    assert policy.layer == layers.CONNECT
    assert policy.explains == ["deployment/slot-booker"]
    assert "172.30.20.9" in policy.statement
    assert any("i/o timeout" in fact for _, fact in policy.evidence)


@pytest.mark.rule("k8s.network-policy-egress-block")
def test_an_address_inside_the_block_or_a_rule_to_any_destination_is_not_blamed():
    inside = diagnosed(*egress_cluster(address="172.30.9.14"), service="slot-booker")
    assert "networkpolicy/booker-to-store" not in inside

    open_rule = PINHOLE.replace(
        "  Policy Types: Egress",
        "    ----------\n    To Port: 3306/TCP\n    To: <any> (traffic not restricted by "
        "destination)\n  Policy Types: Egress",
    )
    opened = diagnosed(*egress_cluster(describe_text=open_rule), service="slot-booker")
    assert "networkpolicy/booker-to-store" not in opened


def test_egress_rules_are_read_from_the_describe():
    rules = egress_rules(PINHOLE)
    assert rules is not None and len(rules) == 1
    assert rules[0].ports == {"3306"} and rules[0].cidrs == [("172.30.8.0/22", [])]
    assert (
        egress_rules(PINHOLE.replace("Policy Types: Egress", "Policy Types: Ingress"))
        is None
    )


@pytest.mark.rule("k8s.network-policy-egress-block")
@pytest.mark.timeout(60)
def test_hostile_logs_and_policies_stay_fast():
    noisy = (
        "dial tcp a.example-cloud.net:3306: i/o timeout resolved a -> 1.2.3.4 " * 2500
    )[:200_000]
    text = PINHOLE + "        CIDR: 10.0.0.0/8\n" * 5000
    observations = egress_cluster(describe_text=text)
    observations[-2] = logs(APP, BOOKER, noisy, previous=False)
    found = diagnosed(*observations, service="slot-booker")
    assert "networkpolicy/booker-to-store" in found
