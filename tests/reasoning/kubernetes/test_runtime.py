"""Runtime: containers that start, then crash, run out of memory, or fail their probes."""

import pytest

from reasoning import layers
from reasoning.layered.kubernetes.stages.runtime import runtime

from .answers import cited, deployments, describe, events, pod_logs, pods, view

POD = "cartservice-6d8f7b9c54-k2xq8"


def describe_pod(last_reason: str) -> str:
    return f"""\
Name:             {POD}
Namespace:        shop
Node:             worker-1/10.0.0.11
Containers:
  server:
    Port:           7070/TCP
    State:          Waiting
      Reason:       CrashLoopBackOff
    Last State:     Terminated
      Reason:       {last_reason}
      Exit Code:    137
    Ready:          False
"""


def cart(status: str, ready: str, restarts: str, *answers, warnings=()):
    return view(
        "deployment/cartservice",
        deployments(("cartservice", ready)),
        pods((POD, ready, status, restarts)),
        events(
            *(
                ("Warning", reason, f"Pod/{POD}", message)
                for reason, message in warnings
            )
        ),
        *answers,
    )


@pytest.mark.rule("k8s.runtime")
def test_a_container_killed_for_its_memory_is_oomkilled():
    described = describe("pod", POD, describe_pod("OOMKilled"))
    f = runtime(cart("CrashLoopBackOff", "0/1", "7", described))
    assert f is not None
    assert (f.stage, f.reason, f.component, f.layer) == (
        "runtime",
        "OOMKilled",
        "deployment/cartservice",
        layers.APPLICATION,
    )
    assert "describe: Last State Terminated, Reason: OOMKilled" in cited(
        f.evidence, described
    )


def test_an_oomkilling_warning_is_enough():
    f = runtime(
        cart(
            "CrashLoopBackOff",
            "0/1",
            "3",
            warnings=[
                ("OOMKilling", "Memory cgroup out of memory: Killed process 4242")
            ],
        )
    )
    assert f is not None and f.reason == "OOMKilled"


def test_a_failing_liveness_probe_beats_the_crash_loop():
    f = runtime(
        cart(
            "CrashLoopBackOff",
            "0/1",
            "5",
            warnings=[
                (
                    "Unhealthy",
                    "Liveness probe failed: HTTP probe failed with statuscode: 500",
                )
            ],
        )
    )
    assert f is not None and (f.stage, f.reason) == ("runtime", "Unhealthy")
    assert "Liveness probe failed" in f.statement


def test_a_readiness_probe_on_a_crash_loop_is_the_crash_loop():
    f = runtime(
        cart(
            "CrashLoopBackOff",
            "0/1",
            "5",
            warnings=[("Unhealthy", "Readiness probe failed: connection refused")],
        )
    )
    assert f is not None and f.reason == "CrashLoopBackOff"


def test_a_crash_loop_with_credentials_refused_says_so():
    logs = pod_logs(
        POD,
        'starting\nFATAL: password authentication failed for user "cart"\n',
        previous=True,
    )
    f = runtime(cart("CrashLoopBackOff", "0/1", "7", logs))
    assert f is not None and f.reason == "CrashLoopBackOff"
    assert "a back end refuses its credentials" in f.statement
    assert cited(f.evidence, logs) == [
        f'logs {POD}: FATAL: password authentication failed for user "cart"'
    ]


def test_an_unready_pod_failing_its_readiness_probe_is_unhealthy():
    f = runtime(
        cart(
            "Running",
            "0/1",
            "0",
            warnings=[
                (
                    "Unhealthy",
                    "Readiness probe failed: HTTP probe failed with statuscode: 503",
                )
            ],
        )
    )
    assert f is not None and (f.stage, f.reason) == ("runtime", "Unhealthy")


def test_an_unready_pod_with_no_probe_event_is_not_ready():
    f = runtime(cart("Running", "0/1", "0"))
    assert f is not None and (f.stage, f.reason) == ("runtime", "NotReady")


def test_a_pod_running_again_after_restarts_shows_what_ended_its_run():
    f = runtime(
        cart("Running", "1/1", "3", describe("pod", POD, describe_pod("Error")))
    )
    assert f is not None and (f.stage, f.reason) == ("runtime", "Error")


def test_a_probe_that_failed_while_starting_is_no_fault():
    f = runtime(
        cart(
            "Running",
            "1/1",
            "0",
            warnings=[("Unhealthy", "Readiness probe failed: connection refused")],
        )
    )
    assert f is None


EVICTED_DESCRIBE = f"""\
Name:             {POD}
Namespace:        shop
Node:             worker-1/10.0.0.11
Status:           Failed
Reason:           Evicted
Message:          Pod ephemeral local storage usage exceeds the total limit of containers 1Gi.
Containers:
  server:
    State:          Terminated
      Reason:       ContainerStatusUnknown
      Exit Code:    137
    Ready:          False
"""
OVER_LIMIT = (
    "Pod ephemeral local storage usage exceeds the total limit of containers 1Gi."
)


@pytest.mark.rule("k8s.runtime")
def test_an_evicted_pod_is_evicted_with_the_kubelets_message_cited():
    described = describe("pod", POD, EVICTED_DESCRIBE)
    f = runtime(
        cart("Error", "0/1", "0", described, warnings=[("Evicted", OVER_LIMIT)])
    )
    assert f is not None
    assert (f.stage, f.reason, f.layer) == ("runtime", "Evicted", layers.APPLICATION)
    assert OVER_LIMIT[:40] in f.statement
    assert "use more than their own limit" in f.statement
    assert any(
        "Reason: Evicted, Message: Pod ephemeral local storage" in fact
        for fact in cited(f.evidence, described)
    )
    assert any("Warning Evicted" in fact for _, fact in f.evidence)


@pytest.mark.rule("k8s.runtime")
def test_a_pod_listed_evicted_is_evicted_while_its_eviction_is_recent():
    f = runtime(cart("Evicted", "0/1", "0", warnings=[("Evicted", OVER_LIMIT)]))
    assert f is not None and f.reason == "Evicted"


def test_a_pod_listed_evicted_long_ago_is_no_fault_now():
    assert runtime(cart("Evicted", "0/1", "0")) is None


def test_a_node_short_of_memory_is_not_the_pods_own_limit():
    low = "The node was low on resource: memory. Threshold quantity: 100Mi."
    f = runtime(cart("Error", "0/1", "0", warnings=[("Evicted", low)]))
    assert f is not None and f.reason == "Evicted"
    assert "low on resource: memory" in f.statement
    assert "own limit" not in f.statement
