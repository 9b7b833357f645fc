"""A node whose kernel finds its CPUs or tasks stuck (issue 21 items 1 and 4): soft and hard
lockups, RCU stalls and hung tasks blame the node at platform (it flaps NotReady and Ready, its pods
stall), and a pod's own `NodeNotReady` event makes its node worth a look though the node is Ready
again (reasoning/layered/kubernetes/kernel.py's `lockup_faults`, nodes.py's `condition_nodes`).
Names and wordings are invented."""

import pytest

from reasoning import layers
from reasoning.layered import kubernetes
from reasoning.layered.facts import Facts
from reasoning.layered.kubernetes import kernel

from .test_infrastructure import (
    APP,
    asked,
    call,
    deployments,
    diagnosed,
    events,
    investigation,
    namespaces,
    nodes,
)
from .test_node_tables_and_dns_policies import kernel_search, pods_with_ages

FEED_A = "feeder-6c5b4a3d2-qq7rt"
FEED_B = "feeder-6c5b4a3d2-mm2ka"


def _cluster(*extra_events):
    return [
        namespaces(APP),
        nodes(("wk-new-1", "Ready"), ("wk-old-2", "Ready")),
        pods_with_ages(
            (FEED_A, "0/1", "Running", "3 (1m ago)", "50m", "wk-new-1", "app=feeder"),
            (FEED_B, "1/1", "Running", "0", "9d", "wk-old-2", "app=feeder"),
        ),
        deployments(APP, ("feeder", "1/2")),
        events(
            APP,
            (
                "Warning",
                "Unhealthy",
                f"Pod/{FEED_A}",
                "Liveness probe failed: context deadline exceeded",
            ),
            *extra_events,
        ),
    ]


@pytest.mark.rule("k8s.node-kernel-lockup", "k8s.node-victims")
@pytest.mark.parametrize(
    "message",
    [
        "kernel: watchdog: BUG: soft lockup - CPU#11 stuck for 27s! [java:4411]",
        "kernel: NMI watchdog: Watchdog detected hard LOCKUP on cpu 2",
        "kernel: rcu: INFO: rcu_preempt self-detected stall on CPU",
        "kernel: INFO: task jbd2/nvme0n1p1:301 blocked for more than 122 seconds.",
    ],
)
def test_a_kernel_lockup_blames_the_node_and_its_pods_are_victims(message):
    found = diagnosed(
        *_cluster(), kernel_search(message, {"host": "wk-new-1"}), service="feeder"
    )

    node = found["node/wk-new-1"]
    assert (node.stage, node.reason, node.layer) == (
        "infrastructure",
        kernel.LOCKUP_REASON,
        layers.PLATFORM,
    )
    assert any(message.split("kernel: ")[1][:20] in fact for _, fact in node.evidence)
    assert found["deployment/feeder"].victim_of == "node/wk-new-1"
    assert "node/wk-old-2" not in found


@pytest.mark.rule("k8s.node-kernel-lockup")
@pytest.mark.parametrize(
    "message,labels",
    [
        (
            "kernel: watchdog: BUG: soft lockup - CPU#1 stuck for 30s!",
            {"host": "edge-x"},
        ),
        (
            "feeder: request blocked for more than budget, retrying",
            {"host": "wk-new-1"},
        ),
        ("kernel: EXT4-fs (nvme0n1p1): mounted filesystem", {"host": "wk-new-1"}),
    ],
)
def test_no_lockup_of_a_listed_node_is_no_lockup_fault(message, labels):
    found = diagnosed(*_cluster(), kernel_search(message, labels), service="feeder")

    assert not any(f.reason == kernel.LOCKUP_REASON for f in found.values())


def test_a_pods_node_not_ready_event_has_its_ready_node_described_and_its_kernel_searched():
    inv = investigation(
        *_cluster(
            ("Warning", "NodeNotReady", f"Pod/{FEED_A}", "Node is not ready"),
        ),
        service="feeder",
    )
    calls = kubernetes.plan(inv, Facts.read(inv.observations), call)

    assert ("describe", "node", APP, "wk-new-1") in asked(calls)
    assert any(
        c is not None and c.arguments.get("query") == kernel.SEARCH for c in calls
    )


@pytest.mark.timeout(60)
def test_a_hostile_kernel_line_is_read_in_bounded_time():
    line = "kernel: " + "blocked for more than " * 20_000 + "x"

    found = diagnosed(
        *_cluster(), kernel_search(line, {"host": "wk-new-1"}), service="feeder"
    )

    assert not any(f.reason == kernel.LOCKUP_REASON for f in found.values())
