"""A Ready node whose host holds its CPU back (hypervisor steal time, a burstable instance's CPU
credits spent, held at its baseline): a monitor's alarm or an exporter's line naming the node
blames the node at platform, and the slow pods there are its victims, not the monitor that says so
(reasoning/layered/kubernetes/kernel.py's `cpu_starved_faults`). Names are invented."""

import pytest

from reasoning import layers
from reasoning.layered.reading import hosts_in

from .test_infrastructure import diagnosed
from .test_node_network_adapter import _warning_groups
from .test_node_tables_and_dns_policies import kernel_search, node_cluster


@pytest.mark.rule("k8s.node-cpu-starved", "k8s.node-victims")
@pytest.mark.parametrize(
    "message",
    [
        "alert BurstBalanceLow firing: CPU credit balance 0 on pool-c-3 (m-burst.large), "
        "held at 30% baseline",
        "pool-c-3: cpu steal 41% over 10m",
        "vm pool-c-3 CPUCreditBalance=0.00, CPUSurplusCreditsCharged rising",
    ],
)
def test_a_monitors_line_that_a_nodes_cpu_is_held_back_blames_the_ready_node(message):
    found = diagnosed(
        *node_cluster(), _warning_groups("fleet-alarms", message), service="tracker"
    )

    node = found["node/pool-c-3"]
    assert (node.stage, node.reason, node.layer) == (
        "infrastructure",
        "NodeCPUStarved",
        layers.PLATFORM,
    )
    assert node.is_relevant  # the incident's workload has a pod there
    assert "node/pool-c-4" not in found


@pytest.mark.rule("k8s.node-cpu-starved")
@pytest.mark.parametrize(
    "message",
    [
        "edge-9: cpu steal 41%",  # not a listed node
        "pool-c-3: cpu usage 91%",  # busy, not held back
        "pool-c-3: baseline of request latency updated",  # no CPU held back
    ],
)
def test_no_cpu_held_back_on_a_listed_node_is_no_node_fault(message):
    found = diagnosed(*node_cluster(), kernel_search(message, {}), service="tracker")

    assert not any(f.reason == "NodeCPUStarved" for f in found.values())


def test_an_api_method_named_after_the_word_api_is_no_host():
    assert hosts_in("Ads API campaigns.mutate failed: 429 RESOURCE_EXHAUSTED") == []
    assert hosts_in("rpc=ledger.postings.append timed out") == []
    assert hosts_in("Payments API api.paycorp.com answered 429") == ["api.paycorp.com"]
    assert hosts_in("dial orders.billing failed") == ["orders.billing"]


@pytest.mark.timeout(60)
def test_a_huge_line_of_api_words_and_dotted_names_is_read_in_one_pass():
    text = "API orders.list method=users.get " * 20_000
    assert hosts_in(text) == []


def test_a_service_named_like_an_api_does_not_hide_the_host_after_it():
    assert hosts_in("billing-api: dial ledger.payments.internal failed") == [
        "ledger.payments.internal"
    ]
    assert hosts_in("orders-api: cache.shop timed out") == ["cache.shop"]
