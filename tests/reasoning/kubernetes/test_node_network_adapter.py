"""A Ready node whose network adapter keeps resetting (issue 21 items 1 and 4): its kernel's driver
lines, read from a search, a service's warning groups or the node's describe events, blame the node
at platform and make the failures of the pods there its victims
(reasoning/layered/kubernetes/kernel.py's `nic_faults`)."""

import pytest

from reasoning import layers
from reasoning.observations import Observation

from .test_infrastructure import APP, describe, diagnosed
from .test_node_tables_and_dns_policies import kernel_search, node_cluster

NODE_DESCRIBE = """Name:               pool-c-3
Roles:              <none>
Conditions:
  Type             Status  Reason                       Message
  ----             ------  ------                       -------
  Ready            True    KubeletReady                 kubelet is posting ready status
Events:
  Type     Reason         Age                From            Message
  ----     ------         ----               ----            -------
  Warning  KernelMessage  3m (x9 over 30m)   kernel-monitor  {message}
"""


def _warning_groups(service: str, *messages: str) -> Observation:
    groups = [{"signature": m, "sample": m, "count": 12, "before": 0} for m in messages]
    return Observation(
        span_id=f"logs-{service}",
        agent="logs",
        server="logs",
        tool="top_errors",
        arguments={"service": service, "warnings": True, "baseline_s": 3600},
        is_ok=True,
        result={"service": service, "top": [], "warnings": groups},
    )


@pytest.mark.rule("k8s.node-network-adapter-resets", "k8s.node-victims")
def test_an_adapter_watchdog_in_a_services_warnings_blames_the_ready_node():
    kernel = _warning_groups(
        "node-journal",
        "pool-c-3 kernel: ixgbe 0000:3b:00.0 eth1: Detected Tx Unit Hang, Reset adapter",
        "pool-c-3 kernel: NETDEV WATCHDOG: eth1 (ixgbe): transmit queue 3 timed out",
    )
    found = diagnosed(*node_cluster(), kernel, service="tracker")

    node = found["node/pool-c-3"]
    assert (node.stage, node.reason, node.layer) == (
        "infrastructure",
        "NodeNetworkDegraded",
        layers.PLATFORM,
    )
    assert node.is_relevant  # the incident's workload has a pod there
    facts = [fact for _, fact in node.evidence]
    assert any("transmit queue 3 timed out" in fact for fact in facts)
    assert found["deployment/tracker"].victim_of == "node/pool-c-3"
    assert "node/pool-c-4" not in found


@pytest.mark.rule("k8s.node-network-adapter-resets")
def test_a_node_problem_detectors_event_of_a_driver_reset_blames_the_node():
    described = describe(
        "node",
        APP,
        "pool-c-3",
        NODE_DESCRIBE.format(
            message="kernel: mlx5_core 0000:81:00.0 ens5: TX timeout detected, resetting"
        ),
    )
    found = diagnosed(*node_cluster(), described, service="tracker")

    assert found["node/pool-c-3"].reason == "NodeNetworkDegraded"


@pytest.mark.rule("k8s.node-network-adapter-resets")
@pytest.mark.parametrize(
    "message",
    [
        "edge-9 kernel: ena 0000:00:06.0 eth0: Keep alive watchdog timeout.",  # not a listed node
        "pool-c-3 kernel: sd 2:0:0:0: [sda] Device reset",  # a disk, not a network adapter
        "pool-c-3 kernel: ena 0000:00:06.0 eth0: link speed 25000 Mbps",  # no reset
        "pool-c-3 ena-proxy: upstream connection reset by peer",  # a service, not a driver
    ],
)
def test_no_adapter_reset_of_a_listed_node_is_no_node_fault(message):
    found = diagnosed(*node_cluster(), kernel_search(message, {}), service="tracker")

    assert not any(f.reason == "NodeNetworkDegraded" for f in found.values())


@pytest.mark.timeout(60)
def test_a_hostile_kernel_line_is_read_in_bounded_time():
    line = "pool-c-3 kernel: " + "ena " * 50_000 + "eth0 up"

    found = diagnosed(*node_cluster(), kernel_search(line, {}), service="tracker")

    assert not any(f.reason == "NodeNetworkDegraded" for f in found.values())
