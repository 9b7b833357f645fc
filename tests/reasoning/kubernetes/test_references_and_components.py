"""Causes that sit in a spec reference or a cluster component, not in the loud workload (issue 21):
a Service selecting a second workload's pods, a node condition's reason naming what is at fault,
an injected sidecar failing beside a healthy app container, cluster DNS timing out for callers
whose pods' logs were never read. Invented names and wordings throughout."""

import pytest

from reasoning import layers
from reasoning.layered import kubernetes
from reasoning.layered.facts import Facts
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.kubectl import pod_containers
from reasoning.layered.kubernetes.nodes import condition_reasons, tainted_suspects
from reasoning.layered.kubernetes.stages.runtime import injected
from reasoning.observations import IncidentBrief, Investigation, Observation

from .answers import answer, table
from .test_infrastructure import (
    call,
    deployments,
    describe,
    events,
    listing,
    logs,
    namespaces,
)

NS = "fares"
POD_HEADER = ("NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "LABELS")


def inv_of(*observations, service, title="fare quotes fail", symptoms=()):
    incident = IncidentBrief(
        title=title, service=service, severity="sev2", symptoms=tuple(symptoms)
    )
    return Investigation(incident=incident, tools=[], observations=list(observations))


def diagnosed(*observations, service):
    inv = inv_of(*observations, service=service)
    return {
        f.component: f for f in kubernetes.diagnose(inv, Facts.read(inv.observations))
    }


def pods(ns, *rows, labelled=True):
    """Pods as (name, ready, status, restarts, ip, node, labels)."""
    header = POD_HEADER if labelled else POD_HEADER[:-1]
    body = [
        (n, r, s, x, "2d", ip, node, lab)[: len(header)]
        for n, r, s, x, ip, node, lab in rows
    ]
    arguments = {"kind": "pods", "namespace": ns, "wide": True}
    if labelled:
        arguments["show_labels"] = True
    return answer("get_resources", arguments, table(header, *body))


def nodes(*rows):
    """Nodes as (name, age)."""
    return answer(
        "get_resources",
        {"kind": "nodes", "namespace": "default", "wide": True},
        table(
            ("NAME", "STATUS", "ROLES", "AGE", "VERSION"),
            *((n, "Ready", "<none>", age, "v1.31.1") for n, age in rows),
        ),
    )


def error_groups(service, *samples):
    """The logs server's top_errors answer for `service`: one group per sample."""
    return Observation(
        span_id=f"errors-{service}",
        agent="logs",
        server="logs",
        tool="top_errors",
        arguments={"service": service},
        is_ok=True,
        result={
            "service": service,
            "top": [
                {"signature": s, "sample": s, "count": 120, "before": 0}
                for s in samples
            ],
        },
        text="",
    )


# --- a Service selecting a second workload's pods ------------------------------------------------

QUOTE = "quote-engine-5b7c9d8f6"
CANARY = "quote-engine-canary-7d8e9f6a5"


def overlap_cluster(canary_log, *, labelled=True):
    return [
        namespaces(NS),
        nodes(("w-1", "90d")),
        pods(
            NS,
            (
                f"{QUOTE}-a1b2c",
                "1/1",
                "Running",
                "0",
                "10.7.0.11",
                "w-1",
                "app=quote-engine",
            ),
            (
                f"{QUOTE}-d3e4f",
                "1/1",
                "Running",
                "0",
                "10.7.0.12",
                "w-1",
                "app=quote-engine",
            ),
            (
                f"{CANARY}-g5h6j",
                "1/1",
                "Running",
                "0",
                "10.7.0.40",
                "w-1",
                "app=quote-engine,track=canary",
            ),
            (
                "fare-web-6c5d4e3f2-k7l8m",
                "1/1",
                "Running",
                "0",
                "10.7.0.60",
                "w-1",
                "app=fare-web",
            ),
            labelled=labelled,
        ),
        listing(
            "deployments",
            NS,
            ("NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "SELECTOR"),
            ("quote-engine", "2/2", "2", "2", "200d", "app=quote-engine"),
            (
                "quote-engine-canary",
                "1/1",
                "1",
                "1",
                "15m",
                "app=quote-engine,track=canary",
            ),
            ("fare-web", "1/1", "1", "1", "200d", "app=fare-web"),
        ),
        listing(
            "services",
            NS,
            ("NAME", "TYPE", "CLUSTER-IP", "PORT(S)", "SELECTOR"),
            ("quote-engine", "ClusterIP", "10.96.40.2", "80/TCP", "app=quote-engine"),
            ("fare-web", "ClusterIP", "10.96.40.3", "80/TCP", "app=fare-web"),
        ),
        listing(
            "endpoints",
            NS,
            ("NAME", "ENDPOINTS"),
            ("quote-engine", "10.7.0.11:8080,10.7.0.12:8080,10.7.0.40:8080"),
            ("fare-web", "10.7.0.60:3000"),
        ),
        events(NS),
        logs(NS, f"{CANARY}-g5h6j", canary_log, previous=False),
        logs(
            NS,
            "fare-web-6c5d4e3f2-k7l8m",
            "POST /quote -> 500 from quote-engine; showing the fallback fare\n",
            previous=False,
        ),
    ]


CANARY_LOG = (
    "booting quote-engine 9.0.0-rc1\n"
    "ERROR pricing table 'fares_v9' does not exist; answering 500\n"
)


@pytest.mark.rule("k8s.service-selector-overlap")
def test_a_service_selecting_a_canarys_failing_pods_blames_the_canary():
    found = diagnosed(*overlap_cluster(CANARY_LOG), service="fare-web")

    canary = found["deployment/quote-engine-canary"]
    assert (canary.stage, canary.reason, canary.layer) == (
        "service_routing",
        "SelectorOverlap",
        layers.CONNECT,
    )
    assert canary.is_relevant  # fare-web fails calling quote-engine
    assert "quote-engine" in canary.statement
    facts = [fact for _, fact in canary.evidence]
    assert any("fares_v9" in f for f in facts)
    assert any("get endpoints" in f for f in facts)
    assert "deployment/quote-engine" not in found  # its own pods serve


@pytest.mark.rule("k8s.service-selector-overlap")
def test_the_endpoints_name_the_intruder_when_the_pods_labels_were_not_listed():
    found = diagnosed(
        *overlap_cluster(
            "WARN  token audience 'staging' rejected: 403 for caller\n", labelled=False
        ),
        service="fare-web",
    )

    assert found["deployment/quote-engine-canary"].reason == "SelectorOverlap"


def test_a_second_workload_serving_without_failing_is_no_fault():
    found = diagnosed(
        *overlap_cluster("INFO  serving quote for route LIS-OPO in 12ms\n"),
        service="fare-web",
    )

    assert "deployment/quote-engine-canary" not in found


# --- a node condition's reason names what is at fault --------------------------------------------

DISK_DESCRIBE = """\
Name:               edge-pool-33
Taints:             node.kubernetes.io/disk-pressure:NoSchedule
Conditions:
  Type             Status   LastHeartbeatTime                 Reason                     Message
  ----             ------   -----------------                 ------                     -------
  MemoryPressure   False    Tue, 01 Dec 2026 10:00:00 +0000   KubeletHasSufficientMemory   kubelet has sufficient memory available
  DiskPressure     True     Tue, 01 Dec 2026 10:00:00 +0000   KubeletHasDiskPressure     kubelet has disk pressure: imagefs 91% used by image cache
  Ready            True     Tue, 01 Dec 2026 10:00:00 +0000   KubeletReady               kubelet is posting ready status
Events:
  Type     Reason                 Age   From     Message
  ----     ------                 ----  ----     -------
  Warning  ImageGCFailed          3m    kubelet  failed to garbage collect required amount of images. Attempted to free 9 GB, but only found 0 bytes eligible to free
"""


def disk_cluster():
    return [
        namespaces(NS),
        nodes(
            ("edge-pool-01", "120d"), ("edge-pool-02", "120d"), ("edge-pool-33", "20m")
        ),
        pods(
            NS,
            (
                "ticketer-8a7b6c5d4-q1w2e",
                "1/1",
                "Running",
                "0",
                "10.7.1.4",
                "edge-pool-01",
                "app=ticketer",
            ),
            (
                "ticketer-8a7b6c5d4-r3t4y",
                "0/1",
                "Pending",
                "0",
                "<none>",
                "<none>",
                "app=ticketer",
            ),
        ),
        deployments(NS, ("ticketer", "1/2")),
        events(
            NS,
            (
                "Warning",
                "FailedScheduling",
                "Pod/ticketer-8a7b6c5d4-r3t4y",
                "0/3 nodes are available: 1 node(s) had untolerated taint "
                "{node.kubernetes.io/disk-pressure: }, 2 Insufficient cpu.",
            ),
        ),
    ]


def test_the_nodes_a_condition_taint_keeps_pods_off_are_the_unused_youngest():
    cluster = Cluster.read(disk_cluster())

    assert tainted_suspects(cluster, NS) == ["edge-pool-33"]
    inv = inv_of(*disk_cluster(), service="ticketer")
    calls = kubernetes.plan(inv, Facts.read(inv.observations), call)
    described = {
        c.arguments.get("name")
        for c in calls
        if c is not None and c.tool == "describe" and c.arguments.get("kind") == "node"
    }
    assert described == {"edge-pool-33"}


@pytest.mark.rule("k8s.node-pressure", "k8s.node-victims")
def test_a_condition_keeping_the_paths_pods_pending_is_relevant_and_says_its_reason():
    found = diagnosed(
        *disk_cluster(),
        describe("node", NS, "edge-pool-33", DISK_DESCRIBE),
        service="ticketer",
    )

    node = found["node/edge-pool-33"]
    assert node.is_relevant
    assert "KubeletHasDiskPressure" in node.statement
    assert any("ImageGCFailed" in fact for _, fact in node.evidence)
    assert found["deployment/ticketer"].victim_of == "node/edge-pool-33"


def test_condition_reasons_read_either_layout():
    assert condition_reasons(DISK_DESCRIBE) == [
        "DiskPressure: KubeletHasDiskPressure (kubelet has disk pressure: imagefs 91% used by image cache)"
    ]
    one_space = "  PIDPressure   True    KubeletHasInsufficientPID kubelet has insufficient PID\n"
    assert condition_reasons(one_space) == [
        "PIDPressure: KubeletHasInsufficientPID (kubelet has insufficient PID)"
    ]


# --- an injected sidecar failing beside a healthy app container ----------------------------------

LEDGER = "ledger-api-6f5e4d3c2-z9x8c"


def sidecar_describe(sidecar, annotations):
    # The container names indented by three spaces, as some writers lay them out.
    return f"""\
Name:             {LEDGER}
Namespace:        {NS}
Annotations:      {annotations}
Status:           Running
Containers:
   ledger-api:
    Image:          registry.example/ledger-api:3.3.0
    State:          Running
    Ready:          True
    Restart Count:  0
   {sidecar}:
    Image:          registry.example/{sidecar}:2.1
    Limits:
      cpu:     200m
      memory:  64Mi
    State:          Waiting
      Reason:       CrashLoopBackOff
    Last State:     Terminated
      Reason:       OOMKilled
      Exit Code:    137
    Ready:          False
    Restart Count:  14
Events:           <none>
"""


def sidecar_cluster(sidecar, annotations):
    return [
        namespaces(NS),
        nodes(("w-1", "90d")),
        pods(
            NS,
            (
                LEDGER,
                "1/2",
                "Running",
                "14 (2m ago)",
                "10.7.2.2",
                "w-1",
                "app=ledger-api",
            ),
        ),
        deployments(NS, ("ledger-api", "0/1")),
        events(NS),
        describe("pod", NS, LEDGER, sidecar_describe(sidecar, annotations)),
    ]


@pytest.mark.rule("k8s.runtime")
def test_an_injected_mesh_proxy_oomkilled_beside_a_healthy_app_is_a_platform_fault():
    found = diagnosed(
        *sidecar_cluster("linkerd-proxy", "linkerd.io/proxy-version: edge-24.11.8"),
        service="ledger-api",
    )

    f = found["deployment/ledger-api"]
    assert (f.reason, f.layer) == ("OOMKilled", layers.PLATFORM)
    assert "linkerd-proxy" in f.statement and "64Mi" in f.statement
    assert "injected" in f.statement


@pytest.mark.rule("k8s.runtime")
def test_an_agent_named_after_an_annotations_domain_is_injected_too():
    assert injected(
        sidecar_describe(
            "vault-agent-sidecar", "vault.hashicorp.com/agent-inject: true"
        ),
        "vault-agent-sidecar",
    )
    assert not injected(
        sidecar_describe("log-shipper", "team.example/owner: ledger"), "log-shipper"
    )


def test_a_sidecar_of_the_workloads_own_spec_failing_stays_the_applications():
    found = diagnosed(
        *sidecar_cluster("log-shipper", "team.example/owner: ledger"),
        service="ledger-api",
    )

    f = found["deployment/ledger-api"]
    assert f.layer == layers.APPLICATION
    assert "log-shipper" in f.statement  # named, not blamed on the platform


def test_containers_indented_by_three_spaces_are_read_apart():
    names = [c.name for c in pod_containers(sidecar_describe("linkerd-proxy", "x: y"))]
    assert names == ["ledger-api", "linkerd-proxy"]


# --- cluster DNS timing out for callers whose pods' logs were not read ---------------------------

DNS_POD = "coredns-5d6c7b8a9-k2j3h"
TIMEOUT = (
    "settle {n} failed: lookup clearing-house.{ns}.svc.cluster.local on 10.32.0.10:53: "
    "read udp 10.8.0.9:51515->10.32.0.10:53: i/o timeout"
)


def dns_cluster(resolver="10.32.0.10"):
    line = TIMEOUT.replace("10.32.0.10", resolver).replace("{ns}", NS)
    return [
        namespaces(NS, "kube-system"),
        nodes(("w-1", "90d")),
        pods(
            "kube-system",
            (DNS_POD, "0/1", "Running", "0", "10.8.0.2", "w-1", "k8s-app=kube-dns"),
        ),
        listing(
            "services",
            "kube-system",
            ("NAME", "TYPE", "CLUSTER-IP", "PORT(S)", "SELECTOR"),
            (
                "kube-dns",
                "ClusterIP",
                "10.32.0.10",
                "53/UDP,53/TCP",
                "k8s-app=kube-dns",
            ),
        ),
        deployments("kube-system", ("coredns", "0/1")),
        events(
            "kube-system",
            (
                "Warning",
                "Unhealthy",
                f"Pod/{DNS_POD}",
                'Readiness probe failed: Get "http://10.8.0.2:8181/ready": context deadline exceeded',
            ),
        ),
        pods(
            NS,
            (
                "settler-4c3b2a1d9-p0o9i",
                "1/1",
                "Running",
                "0",
                "10.8.0.9",
                "w-1",
                "app=settler",
            ),
        ),
        deployments(NS, ("settler", "1/1")),
        events(NS),
        error_groups("settler", line),
    ]


@pytest.mark.rule("k8s.control-plane", "k8s.cluster-dns-victims")
def test_lookups_timing_out_in_error_groups_make_an_unready_cluster_dns_the_cause():
    found = diagnosed(*dns_cluster(), service="settler")

    dns = found["deployment/coredns"]
    assert (dns.layer, dns.reason) == (layers.DNS, "NotReady")
    assert dns.is_relevant
    assert "not ready" in dns.statement
    assert any("context deadline exceeded" in fact for _, fact in dns.evidence)
    assert any("10.32.0.10:53" in fact for _, fact in dns.context)


@pytest.mark.rule("k8s.cluster-dns-victims")
def test_lookups_asked_of_another_resolver_are_not_the_cluster_dns():
    found = diagnosed(*dns_cluster(resolver="192.168.50.53"), service="settler")

    assert not found["deployment/coredns"].is_relevant


def strained_dns_cluster(dns_log):
    return [
        namespaces(NS, "kube-system"),
        nodes(("w-1", "90d")),
        pods(
            "kube-system",
            (DNS_POD, "1/1", "Running", "0", "10.8.0.2", "w-1", "k8s-app=kube-dns"),
            (
                "coredns-5d6c7b8a9-m4n5b",
                "1/1",
                "Running",
                "0",
                "10.8.0.3",
                "w-1",
                "k8s-app=kube-dns",
            ),
        ),
        listing(
            "services",
            "kube-system",
            ("NAME", "TYPE", "CLUSTER-IP", "PORT(S)", "SELECTOR"),
            ("kube-dns", "ClusterIP", "10.32.0.10", "53/UDP", "k8s-app=kube-dns"),
        ),
        deployments("kube-system", ("coredns", "2/2")),
        logs("kube-system", DNS_POD, dns_log, previous=False),
        pods(
            NS,
            (
                "settler-4c3b2a1d9-p0o9i",
                "1/1",
                "Running",
                "0",
                "10.8.0.9",
                "w-1",
                "app=settler",
            ),
        ),
        deployments(NS, ("settler", "1/1")),
        events(NS),
        error_groups(
            "settler",
            "payout lookup failed: getaddrinfo EAI_AGAIN ledger.fares.svc.cluster.local",
        ),
    ]


@pytest.mark.rule("k8s.cluster-dns-slow", "k8s.cluster-dns-victims")
def test_cluster_dns_too_strained_for_its_load_is_the_cause_though_its_pods_run():
    found = diagnosed(
        *strained_dns_cluster(
            "[WARNING] plugin/forward: concurrent queries exceeded maximum 1000\n"
        ),
        service="settler",
    )

    dns = found["deployment/coredns"]
    assert (dns.layer, dns.reason) == (layers.DNS, "LookupTimeouts")
    assert dns.is_relevant
    assert "concurrent queries exceeded" in dns.statement
    # A lookup that got no answer in time says nothing of the name: no wrong-name finding.
    assert "deployment/settler" not in found


@pytest.mark.rule("k8s.cluster-dns-slow")
def test_cluster_dns_saying_nothing_of_strain_is_not_blamed_for_lookups():
    found = diagnosed(
        *strained_dns_cluster("[INFO] plugin/reload: Running configuration SHA512\n"),
        service="settler",
    )

    assert "deployment/coredns" not in found


@pytest.mark.timeout(60)
def test_the_new_readers_take_linear_time_on_hostile_tokens():

    from reasoning.layered.kubernetes.logs import FAILING, line_targets
    from reasoning.layered.kubernetes.routing import _ENDPOINT_IP, _FAILED_LINE

    # Ten times the size a quadratic read already takes seconds on (minutes here); bounded by the
    # timeout (linear takes ~15 s at load 30), not by a wall-clock assertion that flakes.
    token = "a" * 200_000
    dotted = "a." * 100_000
    digits = "1." * 100_000
    lines = [
        f"getaddrinfo EAI_AGAIN {dotted}",
        f"UnknownHostException: {token}",
        f"lookup {dotted} on {digits}:53",
        f"  DiskPressure   True   {token}",
        f"Annotations:  {token}/{token}: x\n   {dotted}/y: z\n",
        f"-> {digits}",
    ]
    for line in lines:
        line_targets(line, ["svc"])
        condition_reasons(line)
        injected(line, "vault-agent")
        FAILING.search(line)
        _FAILED_LINE.search(line)
        _ENDPOINT_IP.findall(line)
