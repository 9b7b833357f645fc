"""What shares a node or guards a drain (issue 21 item 1): a pod without a CPU limit that starves
the pods beside it, and a PodDisruptionBudget that allows no eviction while a node is drained."""

import json

import pytest

from reasoning import layers
from reasoning.layered import kubernetes
from reasoning.layered.analysis import Analysis
from reasoning.layered.facts import Facts
from reasoning.layered.kubernetes import disruptions
from reasoning.observations import (
    IncidentBrief,
    Investigation,
    Observation,
    PlannedCall,
)

from .answers import NS, answer, describe, events, listing

POD_HEADER = ("NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "LABELS")
TARIFF = "tariff-6b5a4c3d2"
CRUNCH = "ledger-crunch-28911440-zq7xv"


def call(tool, arguments, why):
    return PlannedCall("kubernetes", "kubernetes", tool, dict(arguments), why)


def asked(calls):
    return {
        (c.tool, c.arguments.get("kind"), c.arguments.get("name"))
        for c in calls
        if c is not None
    }


def investigation(service, *observations, title="slow answers"):
    incident = IncidentBrief(
        title=title,
        service=service,
        severity="sev3",
        symptoms=("p95 over two seconds",),
        window_start="2031-03-02T11:30:00Z",
        window_end="2031-03-02T12:00:00Z",
    )
    return Investigation(incident=incident, tools=[], observations=list(observations))


def found(inv):
    return {
        f.component: f for f in kubernetes.diagnose(inv, Facts.read(inv.observations))
    }


def pods(*rows):
    """Pods as (name, ready, status, age, node, labels)."""
    return listing(
        "pods",
        POD_HEADER,
        *(
            (name, ready, status, "0", age, f"10.7.0.{i}", node, labels)
            for i, (name, ready, status, age, node, labels) in enumerate(rows, 1)
        ),
    )


def neighbour_cluster(crunch_age="12m"):
    """tariff's two pods on worker-b time out on their probes, the one on worker-a serves; a
    batch job's pod started on worker-b 12 minutes ago."""
    return [
        answer(
            "get_resources",
            {"kind": "namespaces", "namespace": "default"},
            "NAME   STATUS   AGE\nshop   Active   90d\n",
        ),
        answer(
            "get_resources",
            {"kind": "nodes", "namespace": "default", "wide": True},
            "NAME       STATUS   ROLES    AGE   VERSION\n"
            "worker-a   Ready    <none>   90d   v1.30.6\n"
            "worker-b   Ready    <none>   90d   v1.30.6\n",
        ),
        pods(
            (f"{TARIFF}-a1b2c", "1/1", "Running", "9d", "worker-a", "app=tariff"),
            (f"{TARIFF}-d3e4f", "1/1", "Running", "9d", "worker-b", "app=tariff"),
            (f"{TARIFF}-g5h6i", "0/1", "Running", "9d", "worker-b", "app=tariff"),
            (
                CRUNCH,
                "1/1",
                "Running",
                crunch_age,
                "worker-b",
                "job-name=ledger-crunch-28911440",
            ),
        ),
        listing(
            "deployments",
            ("NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "SELECTOR"),
            ("tariff", "2/3", "3", "2", "90d", "app=tariff"),
        ),
        events(
            *(
                (
                    "Warning",
                    "Unhealthy",
                    f"Pod/{TARIFF}-{pod}",
                    f'Readiness probe failed: Get "http://10.7.0.{i}:8080/ready": '
                    "context deadline exceeded (Client.Timeout exceeded while awaiting headers)",
                )
                for i, pod in ((2, "d3e4f"), (3, "g5h6i"))
            )
        ),
    ]


BEST_EFFORT = f"""\
Name:         {CRUNCH}
Namespace:    {NS}
Node:         worker-b/10.7.1.2
Controlled By:  Job/ledger-crunch-28911440
Containers:
  crunch:
    Image:    registry.example/ledger-tools:2.0
    Command:  ledger-tools crunch --workers 24
    State:    Running
QoS Class:    BestEffort
"""
LIMITED = BEST_EFFORT.replace(
    "QoS Class:    BestEffort",
    "    Limits:\n      cpu:     500m\n      memory:  1Gi\nQoS Class:    Burstable",
)


def test_the_pods_beside_a_workload_timing_out_on_one_node_are_described():
    inv = investigation("tariff", *neighbour_cluster())
    calls = kubernetes.plan(inv, Facts.read(inv.observations), call)

    assert ("describe", "pod", CRUNCH) in asked(calls)
    assert ("describe", "node", "worker-b") in asked(calls)
    assert ("describe", "node", "worker-a") not in asked(calls)


@pytest.mark.rule("k8s.noisy-neighbour")
def test_a_pod_without_a_cpu_limit_started_beside_them_is_the_noisy_neighbour():
    inv = investigation(
        "tariff", *neighbour_cluster(), describe("pod", CRUNCH, BEST_EFFORT)
    )
    result = found(inv)

    noisy = result["cronjob/ledger-crunch"]
    assert (noisy.stage, noisy.reason, noisy.layer) == (
        "performance",
        "NoisyNeighbour",
        layers.PLATFORM,
    )
    assert noisy.explains == ["deployment/tariff"]
    assert noisy.is_relevant  # its victim is the incident's workload
    facts = [fact for _, fact in noisy.evidence]
    assert any("BestEffort" in f for f in facts)
    assert any("context deadline exceeded" in f for f in facts)
    assert result.get("deployment/tariff") is None or (
        result["deployment/tariff"].victim_of == "cronjob/ledger-crunch"
    )
    candidates = Analysis(inv, Facts.read(inv.observations)).candidates.values()
    top = max(candidates, key=lambda c: c.confidence)
    assert top.component == "cronjob/ledger-crunch" and top.status == "confirmed"


def test_a_neighbour_with_a_cpu_limit_is_not_blamed():
    inv = investigation(
        "tariff", *neighbour_cluster(), describe("pod", CRUNCH, LIMITED)
    )

    assert "cronjob/ledger-crunch" not in found(inv)


def test_a_neighbour_older_than_the_incident_is_not_blamed():
    inv = investigation(
        "tariff",
        *neighbour_cluster(crunch_age="3h"),
        describe("pod", CRUNCH, BEST_EFFORT),
    )

    assert "cronjob/ledger-crunch" not in found(inv)


# --- a disruption budget blocking a drain ------------------------------------------------------

VAULT = "keyvault-7f6e5d4c3"
PDB_HEADER = ("NAME", "MIN AVAILABLE", "MAX UNAVAILABLE", "ALLOWED DISRUPTIONS", "AGE")
BUDGET_DESCRIBE = """\
Name:           keyvault
Namespace:      shop
Min available:  3
Selector:       app=keyvault
Status:
    Allowed disruptions:  0
    Current:              3
    Desired:              3
    Total:                3
Events:                   <none>
"""


def drain_cluster():
    """worker-c is cordoned; keyvault's pod there cannot be evicted; an unrelated job crashes."""
    return [
        answer(
            "get_resources",
            {"kind": "namespaces", "namespace": "default"},
            "NAME   STATUS   AGE\nshop   Active   90d\n",
        ),
        answer(
            "get_resources",
            {"kind": "nodes", "namespace": "default", "wide": True},
            "NAME       STATUS                     ROLES    AGE   VERSION\n"
            "worker-c   Ready,SchedulingDisabled   <none>   90d   v1.30.6\n"
            "worker-d   Ready                      <none>   90d   v1.30.6\n",
        ),
        pods(
            (f"{VAULT}-p1q2r", "1/1", "Running", "40d", "worker-c", "app=keyvault"),
            (f"{VAULT}-s3t4u", "1/1", "Running", "40d", "worker-d", "app=keyvault"),
            (f"{VAULT}-v5w6x", "1/1", "Running", "40d", "worker-d", "app=keyvault"),
            (
                "mailer-5d4c3b2a1-k9j8h",
                "0/1",
                "CrashLoopBackOff",
                "30m",
                "worker-d",
                "app=mailer",
            ),
        ),
        listing(
            "deployments",
            ("NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "SELECTOR"),
            ("keyvault", "3/3", "3", "3", "90d", "app=keyvault"),
            ("mailer", "0/1", "1", "0", "90d", "app=mailer"),
        ),
        events(
            (
                "Warning",
                "EvictionBlocked",
                f"Pod/{VAULT}-p1q2r",
                "Cannot evict pod as it would violate the pod's disruption budget.",
            ),
            (
                "Warning",
                "BackOff",
                "Pod/mailer-5d4c3b2a1-k9j8h",
                "Back-off restarting failed container mailer",
            ),
        ),
    ]


def budgets():
    return listing(
        "poddisruptionbudgets",
        PDB_HEADER,
        ("keyvault", "3", "N/A", "0", "90d"),
        ("mailer", "N/A", "1", "1", "90d"),
    )


def test_a_refused_eviction_has_the_budgets_listed_and_the_exhausted_one_described():
    inv = investigation("fleet-rotation", *drain_cluster(), title="node drain stuck")
    calls = kubernetes.plan(inv, Facts.read(inv.observations), call)
    assert ("get_resources", "poddisruptionbudgets", None) in asked(calls)

    inv.observations.append(budgets())
    calls = kubernetes.plan(inv, Facts.read(inv.observations), call)
    assert ("describe", "poddisruptionbudget", "keyvault") in asked(calls)
    assert ("describe", "poddisruptionbudget", "mailer") not in asked(calls)


@pytest.mark.rule("k8s.disruption-budget")
def test_a_budget_allowing_no_disruption_over_the_refused_pod_blocks_the_drain():
    inv = investigation(
        "fleet-rotation",
        *drain_cluster(),
        budgets(),
        describe("poddisruptionbudget", "keyvault", BUDGET_DESCRIBE),
        title="node drain stuck for an hour",
    )
    result = found(inv)

    budget = result["poddisruptionbudget/keyvault"]
    assert (budget.stage, budget.reason, budget.layer) == (
        "infrastructure",
        "EvictionBlocked",
        layers.PLATFORM,
    )
    assert budget.is_relevant  # worker-c is cordoned; fleet-rotation is no workload
    assert "worker-c" in budget.statement
    facts = [fact for _, fact in budget.evidence]
    assert any("disruption budget" in f for f in facts)
    assert any("Allowed disruptions 0" in f for f in facts)
    assert any("SchedulingDisabled" in f for f in facts)
    assert "poddisruptionbudget/mailer" not in result
    candidates = Analysis(inv, Facts.read(inv.observations)).candidates.values()
    top = max(candidates, key=lambda c: c.confidence)
    assert top.component == "poddisruptionbudget/keyvault"


def test_a_budget_is_a_lead_when_the_incident_is_not_about_a_drain_nor_its_workload():
    inv = investigation("mailer", *drain_cluster(), budgets(), title="mails not sent")

    assert not found(inv)["poddisruptionbudget/keyvault"].is_relevant


def test_a_cordoned_node_makes_the_budget_relevant_whatever_the_incident_says():
    inv = investigation(
        "ops-window", *drain_cluster(), budgets(), title="pipeline red since 9:00"
    )

    assert found(inv)["poddisruptionbudget/keyvault"].is_relevant


def test_drain_words_without_a_cordoned_node_leave_the_budget_a_lead():
    observations = drain_cluster()
    observations[1] = answer(
        "get_resources",
        {"kind": "nodes", "namespace": "default", "wide": True},
        "NAME       STATUS   ROLES    AGE   VERSION\n"
        "worker-c   Ready    <none>   90d   v1.30.6\n"
        "worker-d   Ready    <none>   90d   v1.30.6\n",
    )
    inv = investigation(
        "ops-window",
        *observations,
        budgets(),
        title="node drain and upgrade stuck, cordoned node, evictions fail",
    )

    assert not found(inv)["poddisruptionbudget/keyvault"].is_relevant


def test_a_node_described_unschedulable_is_cordoned():
    observations = drain_cluster()
    observations[1] = answer(
        "get_resources",
        {"kind": "nodes", "namespace": "default", "wide": True},
        "NAME       STATUS   ROLES    AGE   VERSION\nworker-c   Ready    <none>   90d   v1.30.6\n",
    )
    node = answer(
        "describe",
        {"kind": "node", "name": "worker-c", "namespace": "default"},
        "Name:               worker-c\nUnschedulable:      true\n",
    )
    inv = investigation("ops-window", *observations, node, budgets(), title="red")

    assert found(inv)["poddisruptionbudget/keyvault"].is_relevant


def test_no_refused_eviction_no_budget_fault():
    observations = drain_cluster()
    observations[-1] = events(
        ("Warning", "BackOff", "Pod/mailer-5d4c3b2a1-k9j8h", "Back-off restarting")
    )
    inv = investigation("fleet-rotation", *observations, budgets(), title="drain stuck")

    assert "poddisruptionbudget/keyvault" not in found(inv)


def outside_drain_cluster():
    """worker-c is cordoned by a drain run from outside the cluster (no eviction event): keyvault's
    pod there is held by its budget, and ledger's new pods stay Pending for want of nodes."""
    observations = drain_cluster()
    observations[2] = pods(
        (f"{VAULT}-p1q2r", "1/1", "Running", "40d", "worker-c", "app=keyvault"),
        (f"{VAULT}-s3t4u", "1/1", "Running", "40d", "worker-d", "app=keyvault"),
        ("ledger-6c5b4a3f2-a1b2c", "1/1", "Running", "9d", "worker-d", "app=ledger"),
        ("ledger-6c5b4a3f2-d3e4f", "0/1", "Pending", "20m", "<none>", "app=ledger"),
    )
    observations[3] = listing(
        "deployments",
        ("NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "SELECTOR"),
        ("keyvault", "2/2", "2", "2", "90d", "app=keyvault"),
        ("ledger", "1/2", "2", "1", "90d", "app=ledger"),
    )
    observations[4] = events(
        (
            "Warning",
            "FailedScheduling",
            "Pod/ledger-6c5b4a3f2-d3e4f",
            "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) were unschedulable.",
        ),
    )
    return observations


def drainer_lines(*messages):
    result = {
        "lines": [
            {"service": "fleet-drainer", "level": "warn", "message": m}
            for m in messages
        ]
    }
    return Observation(
        span_id="drainer-search",
        agent="logs",
        server="logs",
        tool="search_logs",
        arguments={"query": disruptions.SEARCH, "regex": True, "limit": 20},
        is_ok=True,
        result=result,
        text=json.dumps(result),
    )


@pytest.mark.rule("k8s.disruption-budget")
def test_a_drainer_logging_the_refused_eviction_makes_the_budget_the_fault_of_pods_left_pending():
    inv = investigation(
        "ledger", *outside_drain_cluster(), budgets(), title="ledger slow"
    )
    calls = kubernetes.plan(inv, Facts.read(inv.observations), call)
    searches = [c for c in calls if c is not None and c.tool == "search_logs"]
    assert [c.arguments["query"] for c in searches] == [disruptions.SEARCH]
    assert "poddisruptionbudget/keyvault" not in found(inv)  # no refusal seen yet

    inv.observations.append(
        drainer_lines(
            f"evicting pod shop/{VAULT}-p1q2r: Cannot evict pod as it would violate the "
            "pod's disruption budget."
        )
    )
    result = found(inv)

    budget = result["poddisruptionbudget/keyvault"]
    assert budget.is_relevant  # ledger, on the path, waits for the cordoned node
    assert "deployment/ledger" in budget.explains
    assert result["deployment/ledger"].victim_of == "poddisruptionbudget/keyvault"
    facts = [fact for _, fact in budget.evidence]
    assert any("fleet-drainer logs: evicting pod" in f for f in facts)
    assert any("node(s) were unschedulable" in f for f in facts)


def test_a_drainer_line_about_another_pod_is_no_refusal():
    inv = investigation(
        "ledger",
        *outside_drain_cluster(),
        budgets(),
        drainer_lines(
            "evicting pod shop/other-0: Cannot evict pod as it would violate the pod's "
            "disruption budget."
        ),
        title="ledger slow",
    )

    assert "poddisruptionbudget/keyvault" not in found(inv)


@pytest.mark.timeout(60)
def test_hostile_drainer_lines_stay_fast():
    inv = investigation(
        "ledger",
        *outside_drain_cluster(),
        budgets(),
        drainer_lines("disruption budget " * 20_000, f"{VAULT}-p1q2r " * 20_000),
        title="ledger slow",
    )
    found(inv)


# --- a node-wide neighbour: a recent agent without limits beside a slow workload ---------------

SHIPPER = "log-shipper"


def shipper_cluster(shipper_age="15m"):
    """tariff (three pods, 9 days old, all ready) is slow; the log-shipper DaemonSet's pods in
    namespace telemetry started 15 minutes ago on the same nodes."""
    return [
        answer(
            "get_resources",
            {"kind": "namespaces", "namespace": "default"},
            "NAME        STATUS   AGE\nshop        Active   90d\ntelemetry   Active   90d\n",
        ),
        answer(
            "get_resources",
            {"kind": "nodes", "namespace": "default", "wide": True},
            "NAME       STATUS   ROLES    AGE   VERSION\n"
            "worker-a   Ready    <none>   90d   v1.30.6\n"
            "worker-b   Ready    <none>   90d   v1.30.6\n",
        ),
        pods(
            (f"{TARIFF}-a1b2c", "1/1", "Running", "9d", "worker-a", "app=tariff"),
            (f"{TARIFF}-d3e4f", "1/1", "Running", "9d", "worker-b", "app=tariff"),
        ),
        listing(
            "deployments",
            ("NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "SELECTOR"),
            ("tariff", "2/2", "2", "2", "90d", "app=tariff"),
        ),
        answer(
            "get_resources",
            {
                "kind": "pods",
                "namespace": "telemetry",
                "wide": True,
                "show_labels": True,
            },
            "NAME                READY   STATUS    RESTARTS   AGE   IP          NODE       LABELS\n"
            + "".join(
                f"{SHIPPER}-{s}   1/1     Running   0          {shipper_age}   10.7.9.{i}   "
                f"{node}   app={SHIPPER},controller-revision-hash=5c4b,pod-template-generation=7\n"
                for i, (s, node) in enumerate(
                    (("k2m4p", "worker-a"), ("q7r9t", "worker-b")), 1
                )
            ),
        ),
    ]


SHIPPER_DESCRIBE = f"""\
Name:         {SHIPPER}-k2m4p
Namespace:    telemetry
Node:         worker-a/10.7.1.1
Controlled By:  DaemonSet/{SHIPPER}
Containers:
  shipper:
    Image:    registry.example/shipper:4.1
    Limits:   <none>
    Requests: <none>
QoS Class:    BestEffort
"""


def shipper_answers(describe_text=SHIPPER_DESCRIBE):
    return [
        answer(
            "describe",
            {"kind": "pod", "name": f"{SHIPPER}-k2m4p", "namespace": "telemetry"},
            describe_text,
        ),
        answer(
            "pod_logs",
            {"pod": f"{SHIPPER}-k2m4p", "namespace": "telemetry", "tail": 200},
            "2031-03-02T11:40:00Z [ info] shipper started\n"
            "2031-03-02T11:41:00Z [ warn] parser backlog 90000 lines, re-reading chunk\n",
        ),
    ]


def test_a_recent_pod_beside_a_slow_workload_is_described_and_its_logs_read():
    inv = investigation("tariff", *shipper_cluster())
    calls = kubernetes.plan(inv, Facts.read(inv.observations), call)

    assert ("describe", "pod", f"{SHIPPER}-k2m4p") in asked(calls)
    assert ("pod_logs", None, None) in asked(calls)


@pytest.mark.rule("k8s.noisy-neighbour-node-wide")
def test_a_best_effort_agent_started_beside_a_slow_workload_is_the_noisy_neighbour():
    inv = investigation("tariff", *shipper_cluster(), *shipper_answers())
    result = found(inv)

    noisy = result[f"daemonset/{SHIPPER}"]
    assert (noisy.stage, noisy.reason, noisy.layer) == (
        "performance",
        "NoisyNeighbour",
        layers.PLATFORM,
    )
    assert noisy.explains == ["deployment/tariff"]
    assert noisy.is_relevant
    facts = [fact for _, fact in noisy.evidence]
    assert any("BestEffort" in f for f in facts)
    assert any("re-reading chunk" in f for f in facts)


def test_an_agent_with_a_cpu_limit_or_older_than_the_window_is_not_blamed():
    limited = SHIPPER_DESCRIBE.replace(
        "    Limits:   <none>\n", "    Limits:\n      cpu:     200m\n"
    ).replace("BestEffort", "Burstable")
    inv = investigation("tariff", *shipper_cluster(), *shipper_answers(limited))
    assert f"daemonset/{SHIPPER}" not in found(inv)

    old = investigation("tariff", *shipper_cluster("3d"), *shipper_answers())
    assert f"daemonset/{SHIPPER}" not in found(old)


def test_a_recent_agent_is_not_read_when_nothing_is_slow():
    inv = investigation("tariff", *shipper_cluster(), title="orders fail")
    inv.incident = IncidentBrief(
        title="orders fail",
        service="tariff",
        severity="sev3",
        symptoms=("errors on submit",),
        window_start="2031-03-02T11:30:00Z",
        window_end="2031-03-02T12:00:00Z",
    )
    calls = kubernetes.plan(inv, Facts.read(inv.observations), call)

    assert ("describe", "pod", f"{SHIPPER}-k2m4p") not in asked(calls)


# --- a job of the slow workload's own namespace, without a CPU limit, on its node ---------------

ROLLUP = "nightly-rollup-29001120-k8w2q"


def rollup_cluster(limit="0"):
    """tariff (9 days old, ready) is slow; a job's pod of the same namespace started 15 minutes
    ago on worker-a; only the node's describe tells its limits (its own describe is not there)."""
    return [
        answer(
            "get_resources",
            {"kind": "namespaces", "namespace": "default"},
            "NAME   STATUS   AGE\nshop   Active   90d\n",
        ),
        pods(
            (f"{TARIFF}-a1b2c", "1/1", "Running", "9d", "worker-a", "app=tariff"),
            (f"{TARIFF}-d3e4f", "1/1", "Running", "9d", "worker-b", "app=tariff"),
            (
                ROLLUP,
                "1/1",
                "Running",
                "15m",
                "worker-a",
                "batch.kubernetes.io/job-name=nightly-rollup-29001120",
            ),
        ),
        listing(
            "deployments",
            ("NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "SELECTOR"),
            ("tariff", "2/2", "2", "2", "90d", "app=tariff"),
        ),
        answer(
            "describe",
            {"kind": "node", "name": "worker-a", "namespace": NS},
            "Name:               worker-a\n"
            "Non-terminated Pods:          (2 in total)\n"
            "  Namespace   Name   CPU Requests   CPU Limits   Memory Requests   Memory Limits   Age\n"
            "  ---------   ----   ------------   ----------   ---------------   -------------   ---\n"
            f"  shop   {ROLLUP}   250m (3%)   {limit} (0%)   1Gi (1%)   0 (0%)   15m\n"
            f"  shop   {TARIFF}-a1b2c   2 (25%)   2 (25%)   2Gi (3%)   2Gi (3%)   9d\n",
        ),
    ]


@pytest.mark.rule("k8s.noisy-neighbour-node-wide")
def test_a_job_of_the_same_namespace_without_a_cpu_limit_is_the_noisy_neighbour():
    inv = investigation("tariff", *rollup_cluster())
    noisy = found(inv)["cronjob/nightly-rollup"]

    assert (noisy.reason, noisy.layer) == ("NoisyNeighbour", layers.PLATFORM)
    assert noisy.explains == ["deployment/tariff"]
    assert any(
        fact == "describe node worker-a: no CPU limit" for _, fact in noisy.evidence
    )
    assert any(ROLLUP in fact for _, fact in noisy.evidence)


def test_a_job_with_a_cpu_limit_or_a_service_of_the_namespace_is_no_neighbour():
    inv = investigation("tariff", *rollup_cluster(limit="2"))
    assert "cronjob/nightly-rollup" not in found(inv)


def test_a_jobs_pod_without_its_own_describe_has_its_node_described():
    inv = investigation("tariff", *rollup_cluster()[:3])
    calls = kubernetes.plan(inv, Facts.read(inv.observations), call)

    assert ("describe", "pod", ROLLUP) in asked(calls)
    assert ("describe", "node", "worker-a") in asked(calls)
