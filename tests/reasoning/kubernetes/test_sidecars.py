"""A crash-looping pod of several containers: each failed container's previous logs are read by
name, and the line that says what failed is cited (issue 21: the evidence carries the signal)."""

import pytest

from reasoning.layered import kubernetes
from reasoning.layered.facts import Facts
from reasoning.layered.kubernetes.kubectl import pod_containers
from reasoning.layered.kubernetes.stages.runtime import runtime, telling_line
from reasoning.observations import IncidentBrief, Investigation, PlannedCall

from .answers import (
    NS,
    answer,
    cited,
    deployments,
    describe,
    events,
    pod_logs,
    pods,
    table,
    view,
)

POD = "invoicer-7c6d5e4f3-q2w3e"


def described(app_last: str = "Error", proxy_last: str = "Completed") -> str:
    return f"""\
Name:             {POD}
Namespace:        shop
Node:             worker-1/10.0.0.11
Containers:
  invoicer:
    Image:          registry.example/invoicer:4.1.0
    State:          Waiting
      Reason:       CrashLoopBackOff
    Last State:     Terminated
      Reason:       {app_last}
      Exit Code:    1
    Ready:          False
    Restart Count:  5
  mysql-proxy:
    Image:          registry.example/mysql-proxy:1.2.0
    Args:
      --listen=127.0.0.1:3306
    State:          Running
    Last State:     Terminated
      Reason:       {proxy_last}
      Exit Code:    0
    Ready:          True
    Restart Count:  5
Conditions:
  Type              Status
  Ready             False
Events:           <none>
"""


APP_LOG = (
    "INFO booting invoicer 4.1.0\n"
    "WARN dial tcp 127.0.0.1:3306: connect: connection refused\n"
    "FATAL cannot open the database pool, exiting\n"
)


def call(tool, arguments, why):
    return PlannedCall("kubernetes", "kubernetes", tool, dict(arguments), why)


def test_the_describe_lists_each_container_with_its_restarts_and_last_end():
    found = pod_containers(described())
    assert [(c.name, c.restarts, c.last, c.has_failed) for c in found] == [
        ("invoicer", 5, "Error", True),
        ("mysql-proxy", 5, "Completed", False),
    ]


def test_each_failed_container_of_a_described_pod_has_its_previous_logs_read_by_name():
    inv = Investigation(
        incident=IncidentBrief(
            title="invoices fail",
            service="invoicer",
            severity="sev2",
            symptoms=(),
            window_start="2031-03-02T11:30:00Z",
            window_end="2031-03-02T12:00:00Z",
        ),
        tools=[],
        observations=[
            answer(
                "get_resources",
                {"kind": "namespaces", "namespace": "default"},
                table(("NAME", "STATUS", "AGE"), (NS, "Active", "90d")),
            ),
            deployments(("invoicer", "0/1")),
            pods((POD, "1/2", "CrashLoopBackOff", "5")),
            describe("pod", POD, described()),
        ],
    )
    calls = [c for c in kubernetes.plan(inv, Facts.read(inv.observations), call) if c]
    by_container = [
        c.arguments.get("container")
        for c in calls
        if c.tool == "pod_logs" and c.arguments.get("previous")
    ]
    assert "invoicer" in by_container
    assert "mysql-proxy" not in by_container  # it exited cleanly: another stopped it


def test_the_telling_line_names_what_failed_not_the_last_words():
    assert telling_line(APP_LOG) == (
        "WARN dial tcp 127.0.0.1:3306: connect: connection refused"
    )
    assert telling_line("ERROR boom\nFATAL exiting\n") == "FATAL exiting"
    assert telling_line("INFO fine\n") is None


@pytest.mark.rule("k8s.runtime")
def test_a_connection_refused_on_loopback_in_a_pod_of_several_containers_is_start_order():
    logs = pod_logs(POD, APP_LOG, previous=True)
    logs.arguments["container"] = "invoicer"
    f = runtime(
        view(
            "deployment/invoicer",
            deployments(("invoicer", "0/1")),
            pods((POD, "1/2", "CrashLoopBackOff", "5")),
            events(("Warning", "BackOff", f"Pod/{POD}", "Back-off restarting")),
            describe("pod", POD, described()),
            logs,
        )
    )
    assert f is not None and f.reason == "CrashLoopBackOff"
    assert cited(f.evidence, logs) == [
        f"logs {POD} -c invoicer: WARN dial tcp 127.0.0.1:3306: connect: connection refused"
    ]
    assert "cannot connect to 127.0.0.1:3306 inside its own pod" in f.statement
    assert "mysql-proxy should listen" in f.statement
    assert "start order" in f.statement


def test_a_loopback_refusal_in_a_pod_of_one_container_is_no_sidecar():
    logs = pod_logs(POD, APP_LOG, previous=True)
    single = described().split("  mysql-proxy:")[0] + "Conditions:\n"
    f = runtime(
        view(
            "deployment/invoicer",
            deployments(("invoicer", "0/1")),
            pods((POD, "0/1", "CrashLoopBackOff", "5")),
            describe("pod", POD, single),
            logs,
        )
    )
    assert f is not None and "start order" not in f.statement
