"""Infrastructure under the workloads (issue 21): the cluster-wide reads from round one, node
conditions other than Ready, and the cluster's own DNS and kube-proxy in kube-system."""

import pytest

from reasoning import layers
from reasoning.layered import kubernetes
from reasoning.layered.facts import Facts
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.observations import IncidentBrief, Investigation, PlannedCall

from .answers import answer, table

APP = "parcels"
NODE_HEADER = ("NAME", "STATUS", "ROLES", "AGE", "VERSION")
POD_HEADER = ("NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "LABELS")


def call(tool, arguments, why):
    return PlannedCall("kubernetes", "kubernetes", tool, dict(arguments), why)


def investigation(*observations, service="tracker"):
    incident = IncidentBrief(
        title="parcel tracking pages fail",
        service=service,
        severity="sev2",
        symptoms=("tracking lookups fail for many customers",),
    )
    return Investigation(incident=incident, tools=[], observations=list(observations))


def asked(calls):
    return {
        (
            c.tool,
            c.arguments.get("kind"),
            c.arguments.get("namespace"),
            c.arguments.get("name") or c.arguments.get("pod"),
        )
        for c in calls
        if c is not None
    }


def namespaces(*names):
    return answer(
        "get_resources",
        {"kind": "namespaces", "namespace": "default"},
        table(("NAME", "STATUS", "AGE"), *((n, "Active", "90d") for n in names)),
    )


def nodes(*rows):
    return answer(
        "get_resources",
        {"kind": "nodes", "namespace": "default", "wide": True},
        table(NODE_HEADER, *((n, s, "<none>", "90d", "v1.30.6") for n, s in rows)),
    )


def pods(ns, *rows):
    """Pods as (name, ready, status, restarts, node, labels)."""
    return answer(
        "get_resources",
        {"kind": "pods", "namespace": ns, "wide": True, "show_labels": True},
        table(
            POD_HEADER,
            *(
                (n, r, s, x, "3d", "10.9.0.7", node, lab)
                for n, r, s, x, node, lab in rows
            ),
        ),
    )


def listing(kind, ns, header, *rows):
    return answer(
        "get_resources",
        {"kind": kind, "namespace": ns, "wide": True},
        table(header, *rows),
    )


def deployments(ns, *names_ready):
    return listing(
        "deployments",
        ns,
        ("NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "SELECTOR"),
        *((n, r, "2", "0", "90d", f"app={n}") for n, r in names_ready),
    )


def events(ns, *rows):
    return answer(
        "events",
        {"namespace": ns},
        table(
            ("LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"),
            *(("4m", *row) for row in rows),
        ),
    )


def logs(ns, pod, text, *, previous=True):
    arguments = {"pod": pod, "namespace": ns, "tail": 200}
    if previous:
        arguments["previous"] = True
    return answer("pod_logs", arguments, text)


def describe(kind, ns, name, text):
    return answer("describe", {"kind": kind, "name": name, "namespace": ns}, text)


def diagnosed(*observations, service="tracker"):
    inv = investigation(*observations, service=service)
    return {
        f.component: f for f in kubernetes.diagnose(inv, Facts.read(inv.observations))
    }


# --- rule 1: the cluster-wide reads start in round one -------------------------------------------


def test_round_one_reads_the_nodes_beside_the_namespaces():
    inv = investigation()
    calls = kubernetes.plan(inv, Facts.read([]), call)

    assert asked(calls) == {
        ("get_resources", "namespaces", "default", None),
        ("get_resources", "nodes", "default", None),
    }


def test_the_system_namespace_pods_are_read_as_soon_as_the_namespaces_are_known():
    inv = investigation(namespaces(APP, "kube-system"), nodes(("pool-a-1", "Ready")))
    calls = kubernetes.plan(inv, Facts.read(inv.observations), call)

    assert ("get_resources", "pods", "kube-system", None) in asked(calls)
    assert ("get_resources", "pods", APP, None) in asked(calls)
    # The nodes were listed in round one: no namespace asks them again.
    assert not any(c.arguments.get("kind") == "nodes" for c in calls if c)


def test_a_failing_system_pod_is_described_and_its_logs_read():
    inv = investigation(
        namespaces(APP, "kube-system"),
        nodes(("pool-a-1", "Ready")),
        pods(
            "kube-system",
            (
                "kube-dns-6f4d8b9c7-p2k4m",
                "0/1",
                "CrashLoopBackOff",
                "5",
                "pool-a-1",
                "k8s-app=kube-dns",
            ),
            (
                "metrics-agent-x9q2w",
                "1/1",
                "Running",
                "0",
                "pool-a-1",
                "app=metrics-agent",
            ),
        ),
    )
    calls = kubernetes.plan(inv, Facts.read(inv.observations), call)

    got = asked(calls)
    assert ("describe", "pod", "kube-system", "kube-dns-6f4d8b9c7-p2k4m") in got
    assert ("pod_logs", None, "kube-system", "kube-dns-6f4d8b9c7-p2k4m") in got
    # Its name tells its deployment: no list is needed; a healthy system pod is not read.
    assert not any(
        c.arguments.get("namespace") == "kube-system" and c.tool == "get_resources"
        for c in calls
        if c
    )
    assert not any("metrics-agent" in str(c.arguments) for c in calls if c)


def test_a_failing_daemon_set_pod_has_the_daemon_sets_listed_to_name_its_owner():
    inv = investigation(
        namespaces(APP, "kube-system"),
        nodes(("pool-a-1", "Ready")),
        pods(
            "kube-system",
            ("kube-proxy-q8w2e", "0/1", "Error", "3", "pool-a-1", "k8s-app=kube-proxy"),
        ),
    )
    calls = kubernetes.plan(inv, Facts.read(inv.observations), call)

    assert ("get_resources", "daemonsets", "kube-system", None) in asked(calls)


# --- rule 2: node conditions other than Ready ---------------------------------------------------

ARCHIVER = "archiver-5c8d7f6b4"
PRESSURE_DESCRIBE = """\
Name:               pool-b-7
Taints:             node.kubernetes.io/memory-pressure:NoSchedule
Conditions:
  Type             Status  Reason                       Message
  ----             ------  ------                       -------
  MemoryPressure   True    KubeletHasInsufficientMemory kubelet has insufficient memory available
  DiskPressure     False   KubeletHasNoDiskPressure     kubelet has no disk pressure
  PIDPressure      False   KubeletHasSufficientPID      kubelet has sufficient PID available
  Ready            True    KubeletReady                 kubelet is posting ready status
"""


def pressure_cluster():
    return [
        namespaces(APP, "kube-system"),
        nodes(("pool-b-7", "Ready"), ("pool-b-8", "Ready")),
        pods(
            APP,
            (f"{ARCHIVER}-h7k2q", "0/1", "Error", "0", "pool-b-7", "app=archiver"),
            (f"{ARCHIVER}-w3n8z", "0/1", "Pending", "0", "<none>", "app=archiver"),
            (
                "tracker-7d6c5b4a3-r2d2x",
                "1/1",
                "Running",
                "0",
                "pool-b-8",
                "app=tracker",
            ),
        ),
        deployments(APP, ("archiver", "0/2"), ("tracker", "1/1")),
        events(
            APP,
            (
                "Warning",
                "Evicted",
                f"Pod/{ARCHIVER}-h7k2q",
                "The node was low on resource: memory. Container archiver was using 7Gi.",
            ),
            (
                "Warning",
                "FailedScheduling",
                f"Pod/{ARCHIVER}-w3n8z",
                "0/2 nodes are available: 1 Insufficient memory, 1 node(s) had untolerated "
                "taint {node.kubernetes.io/memory-pressure: }.",
            ),
        ),
    ]


def test_the_node_a_pod_was_evicted_from_is_described_though_it_is_ready():
    inv = investigation(*pressure_cluster())
    calls = kubernetes.plan(inv, Facts.read(inv.observations), call)

    assert ("describe", "node", APP, "pool-b-7") in asked(calls)
    assert ("describe", "node", APP, "pool-b-8") not in asked(calls)


@pytest.mark.rule("k8s.node-pressure", "k8s.node-victims")
def test_a_node_condition_is_the_cause_and_the_evicted_and_pending_pods_its_victims():
    described = describe("node", APP, "pool-b-7", PRESSURE_DESCRIBE)
    found = diagnosed(*pressure_cluster(), described, service="archiver")

    node = found["node/pool-b-7"]
    assert (node.stage, node.layer) == ("infrastructure", layers.PLATFORM)
    assert "MemoryPressure" in node.statement
    assert node.is_relevant  # the incident's workload had a pod there
    facts = [fact for _, fact in node.evidence]
    assert any("memory-pressure:NoSchedule" in f for f in facts)
    assert any("Evicted" in f for f in facts)
    assert any("untolerated taint" in f for f in facts)
    assert found["deployment/archiver"].victim_of == "node/pool-b-7"
    assert "node/pool-b-8" not in found


def test_network_unavailable_is_a_node_condition_too():
    text = PRESSURE_DESCRIBE.replace(
        "MemoryPressure   True", "MemoryPressure   False"
    ).replace(
        "  Ready ",
        "  NetworkUnavailable   True    NoRouteCreated   route not created\n  Ready ",
    )
    found = diagnosed(
        *pressure_cluster(), describe("node", APP, "pool-b-7", text), service="archiver"
    )

    node = found["node/pool-b-7"]
    assert "NetworkUnavailable" in node.statement
    assert "pod network is not set up" in node.statement


# --- rule 3: cluster DNS and kube-proxy --------------------------------------------------------

RESOLVER_LOG = (
    "starting tracker 4.1\n"
    "ERROR cannot open store: dial tcp: lookup parcels-db.parcels.svc.cluster.local on "
    "10.100.0.10:53: read udp 10.9.0.7:40112->10.100.0.10:53: i/o timeout\n"
    "FATAL giving up\n"
)
DNS_POD = "kube-dns-6f4d8b9c7-p2k4m"


def dns_cluster():
    return [
        namespaces(APP, "kube-system"),
        nodes(("pool-a-1", "Ready")),
        pods(
            "kube-system",
            (DNS_POD, "0/1", "CrashLoopBackOff", "9", "pool-a-1", "k8s-app=kube-dns"),
            # A second replica, whose logs were not read: one finding for both.
            (
                "kube-dns-6f4d8b9c7-v5j6n",
                "0/1",
                "CrashLoopBackOff",
                "9",
                "pool-a-1",
                "k8s-app=kube-dns",
            ),
        ),
        deployments("kube-system", ("kube-dns", "0/2")),
        logs(
            "kube-system", DNS_POD, '[FATAL] plugin/loop: Loop detected for zone "."\n'
        ),
        pods(
            APP,
            (
                "tracker-7d6c5b4a3-r2d2x",
                "0/1",
                "CrashLoopBackOff",
                "6",
                "pool-a-1",
                "app=tracker",
            ),
        ),
        deployments(APP, ("tracker", "0/1")),
        events(APP),
        logs(APP, "tracker-7d6c5b4a3-r2d2x", RESOLVER_LOG),
    ]


@pytest.mark.rule("k8s.control-plane", "k8s.cluster-dns-victims")
def test_cluster_dns_down_is_a_dns_fault_and_the_pods_failing_lookups_its_victims():
    found = diagnosed(*dns_cluster())

    dns = found["deployment/kube-dns"]
    assert (dns.layer, dns.stage) == (layers.DNS, "infrastructure")
    assert dns.is_relevant
    assert any("plugin/loop" in fact for _, fact in dns.evidence)
    assert any("10.100.0.10:53" in fact for _, fact in dns.context)
    assert found["deployment/tracker"].victim_of == "deployment/kube-dns"


def test_cluster_dns_down_is_not_blamed_for_a_crash_that_is_not_a_lookup():
    observations = [
        o
        if o.tool != "pod_logs" or o.arguments["namespace"] != APP
        else logs(
            APP, "tracker-7d6c5b4a3-r2d2x", "FATAL config key 'store.url' missing\n"
        )
        for o in dns_cluster()
    ]
    found = diagnosed(*observations)

    assert found["deployment/tracker"].victim_of is None
    assert not found["deployment/kube-dns"].is_relevant


def proxy_cluster(node_of_tracker, agent="kube-proxy"):
    return [
        namespaces(APP, "kube-system"),
        nodes(("pool-c-1", "Ready"), ("pool-c-2", "Ready")),
        pods(
            "kube-system",
            (
                f"{agent}-m4x7t",
                "0/1",
                "CrashLoopBackOff",
                "12",
                "pool-c-2",
                f"k8s-app={agent}",
            ),
            (
                f"{agent}-z8b3n",
                "1/1",
                "Running",
                "0",
                "pool-c-1",
                f"k8s-app={agent}",
            ),
        ),
        listing(
            "daemonsets",
            "kube-system",
            ("NAME", "DESIRED", "CURRENT", "READY", "SELECTOR"),
            (agent, "2", "2", "1", f"k8s-app={agent}"),
        ),
        logs(
            "kube-system",
            f"{agent}-m4x7t",
            'E0101 10:00:00.1 1 proxier.go:1500] "Failed to execute iptables-restore"\n',
        ),
        pods(
            APP,
            (
                "tracker-7d6c5b4a3-r2d2x",
                "1/1",
                "Running",
                "0",
                node_of_tracker,
                "app=tracker",
            ),
            (
                "tracker-7d6c5b4a3-k9s1p",
                "1/1",
                "Running",
                "0",
                "pool-c-1",
                "app=tracker",
            ),
        ),
        deployments(APP, ("tracker", "2/2")),
        events(APP),
    ]


@pytest.mark.rule("k8s.control-plane", "k8s.kube-proxy-victims")
def test_kube_proxy_down_on_the_node_of_the_incidents_pod_is_the_platform_fault():
    found = diagnosed(*proxy_cluster("pool-c-2"))

    proxy = found["daemonset/kube-proxy"]
    assert (proxy.layer, proxy.stage) == (layers.PLATFORM, "infrastructure")
    assert proxy.is_relevant
    assert any("iptables-restore" in fact for _, fact in proxy.evidence)


def test_kube_proxy_down_on_a_node_the_incident_does_not_run_on_stays_a_lead():
    found = diagnosed(*proxy_cluster("pool-c-1"))

    assert not found["daemonset/kube-proxy"].is_relevant


@pytest.mark.rule("k8s.control-plane", "k8s.kube-proxy-victims")
@pytest.mark.parametrize(
    ("agent", "layer"),
    [("calico-node", layers.PLATFORM), ("nodelocaldns", layers.DNS)],
)
def test_any_node_agent_down_on_the_node_of_the_incidents_pod_is_the_fault_at_its_layer(
    agent, layer
):
    found = diagnosed(*proxy_cluster("pool-c-2", agent))

    daemon = found[f"daemonset/{agent}"]
    assert (daemon.layer, daemon.stage) == (layer, "infrastructure")
    assert daemon.is_relevant


def test_a_node_agent_down_on_a_node_the_incident_does_not_run_on_stays_a_lead():
    found = diagnosed(*proxy_cluster("pool-c-1", "calico-node"))

    assert not found["daemonset/calico-node"].is_relevant


# --- a static pod is named after its node -------------------------------------------------------


def test_a_static_pod_on_a_node_ending_in_digits_is_not_read_as_a_stateful_sets_replica():
    observations = [
        namespaces(APP, "kube-system"),
        nodes(("ctl-3", "Ready"), ("pool-c-1", "Ready")),
        pods(
            "kube-system",
            (
                "kube-controller-manager-ctl-3",
                "0/1",
                "CrashLoopBackOff",
                "9 (40s ago)",
                "ctl-3",
                "component=kube-controller-manager,tier=control-plane",
            ),
            ("etcd-ctl-3", "1/1", "Running", "0", "ctl-3", "component=etcd"),
            ("zk-2", "0/1", "CrashLoopBackOff", "4 (1m ago)", "pool-c-1", "app=zk"),
        ),
        pods(
            APP,
            (
                "tracker-7d6c5b4a3-r2d2x",
                "1/1",
                "Running",
                "0",
                "pool-c-1",
                "app=tracker",
            ),
        ),
        deployments(APP, ("tracker", "1/1")),
        events(APP),
    ]
    found = diagnosed(*observations)
    cluster = Cluster.read(observations)

    assert "pod/kube-controller-manager-ctl-3" in found
    assert not any(c.startswith("statefulset/kube-controller") for c in found)
    # A replica's ordinal is still read as one where no node has that name.
    assert cluster.owner("kube-system", "pod", "zk-2") == "statefulset/zk"


# --- rule 2b: a failure that follows a node has the node described ------------------------------

SORTER = "sorter-5c4b3a2d1"
PID_DESCRIBE = (
    PRESSURE_DESCRIBE.replace("MemoryPressure   True", "MemoryPressure   False")
    .replace(
        "PIDPressure      False   KubeletHasSufficientPID      kubelet has sufficient PID available",
        "PIDPressure      True    KubeletHasInsufficientPID    kubelet has insufficient PID available",
    )
    .replace("memory-pressure:NoSchedule", "pid-pressure:NoSchedule")
)


def node_bound_cluster():
    """Two sorter pods crash on pool-c-3, the third serves on pool-c-4: no eviction, no node event."""
    return [
        namespaces(APP, "kube-system"),
        nodes(("pool-c-3", "Ready"), ("pool-c-4", "Ready")),
        pods(
            APP,
            (
                f"{SORTER}-aa1bb",
                "0/1",
                "CrashLoopBackOff",
                "6",
                "pool-c-3",
                "app=sorter",
            ),
            (
                f"{SORTER}-cc2dd",
                "0/1",
                "CrashLoopBackOff",
                "5",
                "pool-c-3",
                "app=sorter",
            ),
            (f"{SORTER}-ee3ff", "1/1", "Running", "0", "pool-c-4", "app=sorter"),
        ),
        deployments(APP, ("sorter", "1/3")),
        events(
            APP,
            (
                "Warning",
                "BackOff",
                f"Pod/{SORTER}-aa1bb",
                "Back-off restarting failed container sorter",
            ),
        ),
    ]


def test_the_node_a_workloads_failures_follow_is_described_though_it_is_ready():
    inv = investigation(*node_bound_cluster(), service="sorter")
    calls = kubernetes.plan(inv, Facts.read(inv.observations), call)

    assert ("describe", "node", APP, "pool-c-3") in asked(calls)
    assert ("describe", "node", APP, "pool-c-4") not in asked(calls)


def test_failures_on_every_node_do_not_point_at_one():
    observations = node_bound_cluster()
    observations[2] = pods(
        APP,
        (f"{SORTER}-aa1bb", "0/1", "CrashLoopBackOff", "6", "pool-c-3", "app=sorter"),
        (f"{SORTER}-cc2dd", "0/1", "CrashLoopBackOff", "5", "pool-c-4", "app=sorter"),
        (f"{SORTER}-ee3ff", "1/1", "Running", "0", "pool-c-4", "app=sorter"),
    )
    inv = investigation(*observations, service="sorter")
    calls = kubernetes.plan(inv, Facts.read(inv.observations), call)

    assert not {k for k in asked(calls) if k[:2] == ("describe", "node")}


def test_pid_pressure_on_the_node_is_the_cause_of_the_crashes_there():
    found = diagnosed(
        *node_bound_cluster(),
        describe("node", APP, "pool-c-3", PID_DESCRIBE),
        service="sorter",
    )

    node = found["node/pool-c-3"]
    assert (node.stage, node.reason, node.layer) == (
        "infrastructure",
        "NodePressure",
        layers.PLATFORM,
    )
    assert "PIDPressure" in node.statement
    assert node.is_relevant
    assert any("pid-pressure:NoSchedule" in fact for _, fact in node.evidence)
    assert found["deployment/sorter"].victim_of == "node/pool-c-3"


# --- a node agent's victims: the events that show its failure -----------------------------------

AGENT_DESCRIBE = """\
Name:             calico-node-m4x7t
Namespace:        kube-system
Node:             pool-c-2/10.9.0.2
Controlled By:    DaemonSet/calico-node
Containers:
  calico-node:
    State:          Waiting
      Reason:       CrashLoopBackOff
    Last State:     Terminated
      Reason:       OOMKilled
      Exit Code:    137
    Ready:          False
    Restart Count:  12
    Limits:
      cpu:     250m
      memory:  300Mi
"""
SANDBOX = (
    'Failed to create pod sandbox: plugin type="calico" failed (add): stat '
    "/var/lib/calico/nodename: no such file or directory: check that the calico/node "
    "container is running"
)


def agent_with_victims():
    cluster = proxy_cluster("pool-c-2", "calico-node")
    cluster[5] = pods(
        APP,
        (
            "tracker-7d6c5b4a3-r2d2x",
            "0/1",
            "ContainerCreating",
            "0",
            "pool-c-2",
            "app=tracker",
        ),
        ("tracker-7d6c5b4a3-k9s1p", "1/1", "Running", "0", "pool-c-1", "app=tracker"),
    )
    victim = events(
        APP,
        ("Warning", "FailedCreatePodSandBox", "Pod/tracker-7d6c5b4a3-r2d2x", SANDBOX),
        ("Warning", "BackOff", "Pod/tracker-7d6c5b4a3-k9s1p", "Back-off pulling image"),
    )
    cluster[7] = victim
    described = describe("pod", "kube-system", "calico-node-m4x7t", AGENT_DESCRIBE)
    return [*cluster, described], victim, described


@pytest.mark.rule("k8s.control-plane", "k8s.kube-proxy-victims")
def test_a_node_agent_cites_the_victims_events_that_name_its_failure_and_its_oom_kill():
    observations, victim, described = agent_with_victims()
    found = diagnosed(*observations)

    agent = found["daemonset/calico-node"]
    assert agent.reason == "OOMKilled"
    assert "OOMKilled, memory limit 300Mi" in agent.statement
    facts = [fact for o, fact in agent.evidence if o.span_id == victim.span_id]
    assert len(facts) == 1 and "FailedCreatePodSandBox" in facts[0]
    assert "tracker-7d6c5b4a3-r2d2x" in facts[0]
    assert any(
        "Reason: OOMKilled" in fact
        for o, fact in agent.evidence
        if o.span_id == described.span_id
    )
    assert found["deployment/tracker"].victim_of == "daemonset/calico-node"
