"""What a pod spec refers to (issue 21, items 3 and 4): the resolvers its dnsConfig names, the
addresses its hostAliases pin, the host an init container waits for. When the workload's failures go
through that reference, the workload's spec is the fault, not the remote host nor the louder caller.
"""

import pytest

from reasoning import layers
from reasoning.layered import kubernetes
from reasoning.layered.facts import Facts
from reasoning.layered.graph import Graph
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.faults import diagnosis
from reasoning.layered.kubernetes.kubectl import init_containers
from reasoning.layered.kubernetes.pod_spec import pod_specs, read_spec
from reasoning.layered.kubernetes.stages.initialization import targets
from reasoning.layered.kubernetes.topology import add_cluster

from .answers import answer, table
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
    pods,
)

FETCHER = "rate-fetcher-6c5b4a39d-q7w2e"
WEB = "tariff-web-5d4c3b2a1-z9x8c"
SERVICE_HEADER = (
    "NAME",
    "TYPE",
    "CLUSTER-IP",
    "EXTERNAL-IP",
    "PORT(S)",
    "AGE",
    "SELECTOR",
)


def services(*names):
    return listing(
        "services",
        APP,
        SERVICE_HEADER,
        *(
            (n, "ClusterIP", f"10.110.7.{i}", "<none>", "8080/TCP", "90d", f"app={n}")
            for i, n in enumerate(names, start=10)
        ),
    )


def spec_yaml(name, pod_spec, kind="Deployment"):
    """`kubectl get deployment NAME -o yaml`, the pod spec's own lines given (six spaces in)."""
    return answer(
        "get_yaml",
        {"kind": kind.lower(), "name": name, "namespace": APP},
        f"""apiVersion: apps/v1
kind: {kind}
metadata:
  name: {name}
  namespace: {APP}
spec:
  replicas: 2
  template:
    metadata:
      labels:
        app: {name}
    spec:
      containers:
      - image: registry.example/{name}:3.2.0
        name: {name}
{pod_spec}      serviceAccountName: {name}
status:
  readyReplicas: 2
""",
    )


def fetcher_cluster(pod_spec, log_text, *extra):
    return [
        namespaces(APP),
        nodes(("pool-d-1", "Ready")),
        pods(
            APP,
            (FETCHER, "1/1", "Running", "0", "pool-d-1", "app=rate-fetcher"),
            (WEB, "1/1", "Running", "0", "pool-d-1", "app=tariff-web"),
        ),
        deployments(APP, ("rate-fetcher", "1/1"), ("tariff-web", "1/1")),
        services("rate-fetcher", "tariff-web"),
        events(APP),
        logs(APP, FETCHER, log_text, previous=False),
        spec_yaml("rate-fetcher", pod_spec),
        *extra,
    ]


OWN_RESOLVER = """      dnsConfig:
        nameservers:
        - 172.31.8.2
        searches:
        - corp.tariffs.internal
      dnsPolicy: None
"""
TIMEOUTS = """\
2026-03-02T09:14:00Z INFO  rates run 311 done
2026-03-02T09:40:02Z ERROR get https://api.fx-source.example/v1/rates: dial tcp: lookup api.fx-source.example on 172.31.8.2:53: read udp 10.9.0.7:40211->172.31.8.2:53: i/o timeout
2026-03-02T09:40:05Z ERROR cache rates: dial tcp: lookup cache.data.svc.cluster.local on 172.31.8.2:53: read udp 10.9.0.7:51122->172.31.8.2:53: i/o timeout
"""


@pytest.mark.rule("k8s.pod-spec-resolver")
def test_lookups_failing_on_the_resolver_a_pod_spec_names_blame_the_workload_not_the_host():
    found = diagnosed(*fetcher_cluster(OWN_RESOLVER, TIMEOUTS), service="rate-fetcher")

    f = found["deployment/rate-fetcher"]
    assert (f.stage, f.reason, f.layer) == ("service_routing", "dnsConfig", layers.DNS)
    assert "172.31.8.2" in f.statement and "dnsPolicy: None" in f.statement
    facts = [fact for _, fact in f.evidence]
    assert any("dnsConfig.nameservers: [172.31.8.2]" in fact for fact in facts)
    assert any("172.31.8.2:53" in fact for fact in facts)
    assert "172.31.8.2:53" in f.keywords
    assert f.is_relevant


@pytest.mark.rule("k8s.pod-spec-resolver")
def test_with_dns_policy_none_failing_lookups_of_several_names_blame_the_resolver_unnamed():
    java = """\
2026-03-02T09:40:02Z ERROR refresh failed: java.net.UnknownHostException: ledger.corp.example
2026-03-02T09:41:02Z ERROR publish failed: java.net.UnknownHostException: queue.corp.example
"""
    policy_none = OWN_RESOLVER.replace("172.31.8.2", "192.168.50.53")
    found = diagnosed(*fetcher_cluster(policy_none, java), service="rate-fetcher")

    f = found["deployment/rate-fetcher"]
    assert (f.reason, f.layer) == ("dnsConfig", layers.DNS)
    assert "192.168.50.53" in f.statement


@pytest.mark.rule("k8s.pod-spec-resolver")
def test_a_resolver_the_failures_do_not_name_or_the_cluster_dns_is_not_blamed():
    # dnsConfig adds a resolver (dnsPolicy stays ClusterFirst): lookups failing elsewhere are not its.
    added = """      dnsConfig:
        nameservers:
        - 172.31.8.2
"""
    elsewhere = TIMEOUTS.replace("172.31.8.2", "10.96.0.10")
    found = diagnosed(*fetcher_cluster(added, elsewhere), service="rate-fetcher")
    assert found.get("deployment/rate-fetcher") is None or (
        found["deployment/rate-fetcher"].reason != "dnsConfig"
    )
    # The cluster's own DNS Service named as the resolver: the cluster DNS rules' case.
    kube_dns = answer(
        "get_resources",
        {"kind": "services", "namespace": "kube-system", "wide": True},
        table(
            SERVICE_HEADER,
            (
                "kube-dns",
                "ClusterIP",
                "172.31.8.2",
                "<none>",
                "53/UDP",
                "90d",
                "k8s-app=kube-dns",
            ),
        ),
    )
    found = diagnosed(
        *fetcher_cluster(OWN_RESOLVER, TIMEOUTS, kube_dns), service="rate-fetcher"
    )
    assert found.get("deployment/rate-fetcher") is None or (
        found["deployment/rate-fetcher"].reason != "dnsConfig"
    )


PINNED = """      hostAliases:
      - hostnames:
        - db.partner-ledger.example
        - db-replica.partner-ledger.example
        ip: 198.18.7.21
      - ip: 198.18.9.4
        hostnames: [mq.partner-ledger.example]
"""
REFUSED = """\
2026-03-02T09:40:02Z ERROR sync batch 88: dial tcp 198.18.7.21:5432: connect: connection refused
2026-03-02T09:41:02Z WARN  retrying in 30s
"""


@pytest.mark.rule("k8s.pod-spec-host-alias")
def test_connections_failing_to_an_address_a_pod_spec_pins_blame_the_workloads_spec():
    found = diagnosed(*fetcher_cluster(PINNED, REFUSED), service="rate-fetcher")

    f = found["deployment/rate-fetcher"]
    assert (f.stage, f.reason, f.layer) == (
        "service_routing",
        "hostAliases",
        layers.CONNECT,
    )
    assert "198.18.7.21" in f.statement and "db.partner-ledger.example" in f.statement
    facts = [fact for _, fact in f.evidence]
    assert any("hostAliases:" in fact and "198.18.7.21" in fact for fact in facts)
    assert any("dial tcp 198.18.7.21:5432" in fact for fact in facts)


@pytest.mark.rule("k8s.pod-spec-host-alias")
def test_a_pinned_host_named_in_a_timeout_is_enough_and_other_hosts_failing_are_not_its():
    by_name = "2026-03-02T09:40:02Z ERROR publish to mq.partner-ledger.example:5671 timed out\n"
    found = diagnosed(*fetcher_cluster(PINNED, by_name), service="rate-fetcher")
    assert found["deployment/rate-fetcher"].reason == "hostAliases"
    assert "198.18.9.4" in found["deployment/rate-fetcher"].statement

    other = "2026-03-02T09:40:02Z ERROR dial tcp 203.0.113.99:443: i/o timeout\n"
    found = diagnosed(*fetcher_cluster(PINNED, other), service="rate-fetcher")
    assert found.get("deployment/rate-fetcher") is None or (
        found["deployment/rate-fetcher"].reason != "hostAliases"
    )


def test_a_pod_spec_is_read_for_its_resolvers_and_pinned_hosts():
    spec = read_spec(
        "deployment/rate-fetcher", spec_yaml("rate-fetcher", OWN_RESOLVER + PINNED)
    )

    assert spec.dns_policy == "None"
    assert spec.nameservers == ("172.31.8.2",)
    assert spec.searches == ("corp.tariffs.internal",)
    assert [(a.ip, a.hostnames) for a in spec.host_aliases] == [
        (
            "198.18.7.21",
            ("db.partner-ledger.example", "db-replica.partner-ledger.example"),
        ),
        ("198.18.9.4", ("mq.partner-ledger.example",)),
    ]
    # A ReplicaSet's spec is its Deployment's.
    cluster = Cluster.read(
        [
            *fetcher_cluster("", "")[:4],
            spec_yaml("rate-fetcher-6c5b4a39d", PINNED, kind="ReplicaSet"),
        ]
    )
    assert [s.workload for s in pod_specs(cluster, APP)] == ["deployment/rate-fetcher"]


def test_a_workload_failing_to_reach_an_outside_host_has_its_pod_spec_read():
    observations = fetcher_cluster(OWN_RESOLVER, TIMEOUTS)[:-1]
    inv = investigation(*observations, service="rate-fetcher")
    calls = kubernetes.plan(inv, Facts.read(inv.observations), call)
    assert ("get_yaml", "deployment", APP, "rate-fetcher") in asked(calls)

    quiet = fetcher_cluster(
        OWN_RESOLVER, "2026-03-02T09:14:00Z INFO rates run 311 done\n"
    )
    inv = investigation(*quiet[:-1], service="rate-fetcher")
    calls = kubernetes.plan(inv, Facts.read(inv.observations), call)
    assert not any(c is not None and c.tool == "get_yaml" for c in calls)


# --- an init container waiting for a Service that is not there ----------------------------------

PLANNER = "route-planner-7d6e5f4a3-h4j5k"
INIT_DESCRIBE = """Name:             {pod}
Namespace:        parcels
Node:             pool-d-1/10.4.1.9
Labels:           app=route-planner
Status:           Pending
Controlled By:    ReplicaSet/route-planner-7d6e5f4a3
Init Containers:
  await-cache:
    Image:      docker.io/library/busybox:1.36
    Command:
      sh
      -c
      {command}
    State:          Running
      Started:      Mon, 02 Mar 2026 09:30:00 +0000
    Ready:          False
    Restart Count:  0
Containers:
  route-planner:
    Image:          registry.example/route-planner:8.1.0
    State:          Waiting
      Reason:       PodInitializing
    Ready:          False
    Restart Count:  0
Events:           <none>
"""


def init_cluster(command, *extra, service_names=("route-planner", "geo-redis")):
    return [
        namespaces(APP),
        nodes(("pool-d-1", "Ready")),
        pods(
            APP,
            (PLANNER, "0/1", "Init:0/1", "0", "pool-d-1", "app=route-planner"),
            (WEB, "1/1", "Running", "0", "pool-d-1", "app=tariff-web"),
        ),
        deployments(APP, ("route-planner", "0/1"), ("tariff-web", "1/1")),
        services(*service_names),
        events(APP),
        describe(
            "pod", APP, PLANNER, INIT_DESCRIBE.format(pod=PLANNER, command=command)
        ),
        *extra,
    ]


@pytest.mark.rule("k8s.init-waits-missing-target")
def test_an_init_container_waiting_for_a_service_that_does_not_exist_is_the_workloads_fault():
    unresolved = answer(
        "pod_logs",
        {"pod": PLANNER, "namespace": APP, "container": "await-cache", "tail": 200},
        "** server can't find geo-cache.parcels.svc.cluster.local: NXDOMAIN\nwaiting for geo-cache\n",
    )
    found = diagnosed(
        *init_cluster(
            "until nslookup geo-cache; do echo waiting for geo-cache; sleep 2; done",
            unresolved,
        ),
        service="route-planner",
    )

    f = found["deployment/route-planner"]
    assert (f.stage, f.reason, f.layer) == ("startup", "Init:0/1", layers.APPLICATION)
    assert "await-cache" in f.statement and "geo-cache" in f.statement
    # The Service it was probably renamed to comes first among those that exist.
    assert "its Services: geo-redis" in f.statement
    facts = [fact for _, fact in f.evidence]
    assert any("until nslookup geo-cache" in fact for fact in facts)
    assert any("NXDOMAIN" in fact for fact in facts)


@pytest.mark.rule("k8s.init-waits-missing-target")
@pytest.mark.parametrize(
    "command",
    [
        "wait-for-it geo-cache:6379 -t 0 -- echo up",
        "until pg_isready -h geo-cache -p 5432; do sleep 1; done",
        "until nc -z -w 3 geo-cache.parcels.svc.cluster.local 6379; do sleep 2; done",
        "until wget -q -O- http://geo-cache:8080/healthz; do sleep 2; done",
    ],
)
def test_the_missing_target_is_read_from_any_usual_waiting_command(command):
    found = diagnosed(*init_cluster(command), service="route-planner")

    f = found["deployment/route-planner"]
    assert (f.reason, f.layer) == ("Init:0/1", layers.APPLICATION)
    assert "geo-cache" in f.keywords


def test_an_init_container_waiting_for_a_service_that_exists_is_not_blamed_for_it():
    found = diagnosed(
        *init_cluster("until nc -z geo-redis 6379; do sleep 2; done"),
        service="route-planner",
    )
    f = found.get("deployment/route-planner")
    assert f is None or "init container" not in f.statement


def test_init_containers_and_their_targets_are_read_from_the_describe():
    text = INIT_DESCRIBE.format(
        pod=PLANNER, command="until nc -z -w 2 geo-cache 6379; do sleep 2; done"
    )
    (init,) = init_containers(text)
    assert (init.name, init.state, init.restarts) == ("await-cache", "Running", 0)
    assert targets(init.command) == ["geo-cache"]
    assert targets("curl -H 'Accept: text/plain' http://stock-api:8080/ready") == [
        "stock-api"
    ]


def test_a_pod_held_in_its_init_container_has_that_containers_logs_read():
    inv = investigation(
        *init_cluster("until nslookup geo-cache; do sleep 2; done"),
        service="route-planner",
    )
    calls = kubernetes.plan(inv, Facts.read(inv.observations), call)
    init_logs = [
        c
        for c in calls
        if c is not None and c.tool == "pod_logs" and c.arguments.get("pod") == PLANNER
    ]
    assert [c.arguments.get("container") for c in init_logs] == ["await-cache"]
    assert not init_logs[0].arguments.get("previous")


def _edges(observations, service):
    inv = investigation(*observations, service=service)
    graph = Graph()
    add_cluster(graph, diagnosis(inv, Facts.read(inv.observations)))
    return {(e.caller, e.callee, e.kind) for e in graph.edges}


def test_the_dependency_graph_carries_what_pod_specs_refer_to():
    edges = _edges(fetcher_cluster(OWN_RESOLVER + PINNED, TIMEOUTS), "rate-fetcher")
    assert ("deployment/rate-fetcher", "172.31.8.2", "resolves_with") in edges
    assert ("deployment/rate-fetcher", "198.18.7.21", "pins") in edges
    assert ("deployment/rate-fetcher", "198.18.9.4", "pins") in edges

    # An init container's target: the Service when one is named so, else the host as written.
    edges = _edges(
        init_cluster(
            "until nc -z geo-redis 6379 && nslookup geo-cache; do sleep 2; done"
        ),
        "route-planner",
    )
    assert ("deployment/route-planner", "service/geo-redis", "waits_for") in edges
    assert ("deployment/route-planner", "geo-cache", "waits_for") in edges


@pytest.mark.timeout(60)
def test_a_hostile_init_command_is_read_in_linear_time():
    # A tool result is not ours to trust: one 200 000-character token (every position a possible
    # URL scheme start) took minutes before the scheme was anchored where a word starts.
    token = "a" * 200_000
    assert targets(token) == []
    assert targets(f"{token} until nc -z ledger-db 5432; do sleep 2; done") == [
        "ledger-db"
    ]
    assert targets("\ud800 wait-for-it billing-db:5432") == ["billing-db"]
