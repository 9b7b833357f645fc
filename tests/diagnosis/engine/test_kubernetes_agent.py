"""The Kubernetes agent of the layered planner: kubectl's text read into facts, the stage and reason
each fault gets, victims ranked below their cause, and the plan when only some servers exist.

The texts are kubectl's own formats (tables as tabwriter aligns them, describe sections, events);
the folder cases run the real kubernetes and logs servers in memory (kubeworld).
"""

import asyncio
from pathlib import Path

import pytest

from reasoning import layers
from reasoning.layered import LayeredPlanner, kubernetes
from reasoning.layered.facts import Facts
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.kubectl import (
    describe_events,
    parse_rows,
    read_containers,
)
from reasoning.observations import (
    IncidentBrief,
    Investigation,
    Observation,
    ToolInfo,
)
from tests.diagnosis.engine import kubeworld

FOLDERS = Path(__file__).resolve().parent / "kubernetes_scenarios"

NAMESPACES = """\
NAME              STATUS   AGE
default           Active   41d
kube-node-lease   Active   41d
kube-public       Active   41d
kube-system       Active   41d
monitoring        Active   40d
shop              Active   38d
"""
PODS = """\
NAME                           READY   STATUS                       RESTARTS      AGE   IP            NODE       NOMINATED NODE   READINESS GATES   LABELS
frontend-6d9f8b7c5-7xk2p       1/1     Running                      0             3d    10.244.1.23   worker-1   <none>           <none>            app=frontend,pod-template-hash=6d9f8b7c5
checkout-84c6d9f7b5-m2n8q      0/1     ImagePullBackOff             0             12m   10.244.2.31   worker-2   <none>           <none>            app=checkout,pod-template-hash=84c6d9f7b5
payments-5b7c8d9f6-x7w2k       0/1     CreateContainerConfigError   0             9m    10.244.3.12   worker-3   <none>           <none>            app=payments,pod-template-hash=5b7c8d9f6
cartservice-6d8f7b9c54-k2xq8   0/1     CrashLoopBackOff             7 (41s ago)   15m   10.244.1.40   worker-1   <none>           <none>            app=cartservice,pod-template-hash=6d8f7b9c54
"""
DEPLOYMENTS = """\
NAME          READY   UP-TO-DATE   AVAILABLE   AGE   CONTAINERS   IMAGES                                          SELECTOR
cartservice   0/1     1            0           38d   server       registry.example.com/shop/cartservice:v2.5.0    app=cartservice
checkout      0/1     1            0           38d   server       registry.exmaple.com/shop/checkout:v3.1.0       app=checkout
frontend      1/1     1            1           38d   server       registry.example.com/shop/frontend:v2.1.0       app=frontend
payments      0/1     1            0           38d   server       registry.example.com/shop/payments:v1.2.0       app=payments
search        0/0     0            0           38d   server       registry.example.com/shop/search:v1.0.3         app=search
ledger        0/2     0            0           38d   server       registry.example.com/shop/ledger:v3.0.0         app=ledger
"""
SERVICES = """\
NAME          TYPE        CLUSTER-IP      EXTERNAL-IP   PORT(S)    AGE   SELECTOR
cartservice   ClusterIP   10.96.112.40    <none>        7070/TCP   38d   app=cartservice
catalog       ClusterIP   10.96.14.2      <none>        8080/TCP   38d   app=catalogue
frontend      ClusterIP   10.96.45.201    <none>        80/TCP     38d   app=frontend
"""
ENDPOINTS = """\
NAME          ENDPOINTS          AGE
cartservice   <none>             38d
catalog       <none>             38d
frontend      10.244.1.23:8080   38d
"""
NODES = """\
NAME       STATUS     ROLES    AGE   VERSION   INTERNAL-IP   EXTERNAL-IP   OS-IMAGE             KERNEL-VERSION   CONTAINER-RUNTIME
worker-1   Ready      <none>   41d   v1.31.4   10.0.0.11     <none>        Ubuntu 22.04.4 LTS   6.8.0-1019-gcp   containerd://1.7.24
worker-2   NotReady   <none>   41d   v1.31.4   10.0.0.12     <none>        Ubuntu 22.04.4 LTS   6.8.0-1019-gcp   containerd://1.7.24
"""
# kubectl events: the OBJECT column is Kind/name; a message may hold double spaces of its own.
EVENTS = """\
LAST SEEN            TYPE      REASON              OBJECT                             MESSAGE
12m                  Normal    Scheduled           Pod/checkout-84c6d9f7b5-m2n8q      Successfully assigned shop/checkout-84c6d9f7b5-m2n8q to worker-2
11m (x4 over 12m)    Warning   Failed              Pod/checkout-84c6d9f7b5-m2n8q      Failed to pull image "registry.exmaple.com/shop/checkout:v3.1.0": failed to resolve reference "registry.exmaple.com/shop/checkout:v3.1.0": dial tcp: lookup registry.exmaple.com on 10.96.0.10:53: no such host
2m (x44 over 12m)    Normal    BackOff             Pod/checkout-84c6d9f7b5-m2n8q      Back-off pulling image "registry.exmaple.com/shop/checkout:v3.1.0"
9m (x41 over 9m)     Warning   Failed              Pod/payments-5b7c8d9f6-x7w2k       Error: secret "payments-db" not found
8m (x17 over 9m)     Warning   FailedCreate        ReplicaSet/ledger-7d9c8b6f4        Error creating: pods "ledger-7d9c8b6f4-9xk2p" is forbidden: exceeded quota: compute-quota, requested: requests.cpu=1, used: requests.cpu=3800m, limited: requests.cpu=4
41s (x70 over 15m)   Warning   BackOff             Pod/cartservice-6d8f7b9c54-k2xq8   Back-off restarting failed container server in pod cartservice-6d8f7b9c54-k2xq8_shop(0c9a1e57-3b4d)
"""
DESCRIBE_CART = """\
Name:             cartservice-6d8f7b9c54-k2xq8
Namespace:        shop
Priority:         0
Service Account:  default
Node:             worker-1/10.0.0.11
Status:           Running
IP:               10.244.1.40
Controlled By:    ReplicaSet/cartservice-6d8f7b9c54
Containers:
  server:
    Image:          registry.example.com/shop/cartservice:v2.5.0
    Port:           7070/TCP
    Host Port:      0/TCP
    State:          Waiting
      Reason:       CrashLoopBackOff
    Last State:     Terminated
      Reason:       OOMKilled
      Exit Code:    137
      Started:      Tue, 01 Dec 2026 15:10:02 +0000
      Finished:     Tue, 01 Dec 2026 15:10:31 +0000
    Ready:          False
    Restart Count:  7
    Limits:
      cpu:     500m
      memory:  256Mi
    Liveness:       http-get http://:7070/healthz delay=10s timeout=1s period=10s #success=1 #failure=3
    Environment:
      REDIS_ADDR:  redis-cart:6379
    Mounts:
      /var/run/secrets/kubernetes.io/serviceaccount from kube-api-access-8xq2w (ro)
Events:
  Type     Reason     Age                 From               Message
  ----     ------     ----                ----               -------
  Normal   Pulled     2m (x8 over 15m)    kubelet            Container image "registry.example.com/shop/cartservice:v2.5.0" already present on machine
  Warning  BackOff    41s (x70 over 15m)  kubelet            Back-off restarting failed container server in pod cartservice-6d8f7b9c54-k2xq8_shop(0c9a1e57-3b4d)
"""


def obs(span, tool, arguments, text, *, rows=None):
    """An answer of the kubernetes server: rows structured only when given (else read from the text)."""
    result = {"command": "kubectl", "found": True, "source": "snapshot"}
    if rows is not None:
        result["rows"] = rows
    return Observation(
        span_id=str(span),
        agent="kubernetes",
        server="kubernetes",
        tool=tool,
        arguments=arguments,
        is_ok=True,
        result=result,
        text=text,
    )


def get(span, kind, text, ns="shop"):
    return obs(
        span, "get_resources", {"kind": kind, "namespace": ns, "wide": True}, text
    )


def shop_observations():
    return [
        get(1, "namespaces", NAMESPACES, ns="default"),
        obs(
            2,
            "get_resources",
            {"kind": "pods", "namespace": "shop", "wide": True, "show_labels": True},
            PODS,
        ),
        get(3, "deployments", DEPLOYMENTS),
        get(4, "services", SERVICES),
        get(5, "endpoints", ENDPOINTS),
        get(6, "nodes", NODES),
        obs(7, "events", {"namespace": "shop"}, EVENTS),
        obs(
            8,
            "describe",
            {
                "kind": "pod",
                "name": "cartservice-6d8f7b9c54-k2xq8",
                "namespace": "shop",
            },
            DESCRIBE_CART,
        ),
    ]


def investigation(
    observations, service="frontend", symptoms=("frontend answers 500",), tools=None
):
    return Investigation(
        incident=IncidentBrief(
            title="synthetic",
            service=service,
            severity="sev2",
            symptoms=tuple(symptoms),
        ),
        tools=tools if tools is not None else kubernetes_tools(),
        observations=list(observations),
    )


def kubernetes_tools(server="kubernetes"):
    return [
        ToolInfo(server, name, "", {}, True, False, False)
        for name in ("get_resources", "describe", "pod_logs", "events", "get_yaml")
    ]


def findings(observations, **kwargs):
    inv = investigation(observations, **kwargs)
    return {
        f.component: f for f in kubernetes.diagnose(inv, Facts.read(inv.observations))
    }


# --- reading kubectl's text ------------------------------------------------------------------------


def test_a_table_is_read_by_its_header_columns_even_with_spaces_in_cells():
    rows = parse_rows(PODS)

    assert [r["NAME"] for r in rows][:2] == [
        "frontend-6d9f8b7c5-7xk2p",
        "checkout-84c6d9f7b5-m2n8q",
    ]
    assert rows[3]["RESTARTS"] == "7 (41s ago)"
    assert rows[3]["NOMINATED NODE"] == "<none>"
    assert rows[1]["STATUS"] == "ImagePullBackOff"
    events = parse_rows(EVENTS)
    assert events[1]["LAST SEEN"] == "11m (x4 over 12m)"
    assert events[1]["MESSAGE"].endswith("no such host")


def test_a_hand_aligned_table_is_read_by_its_gaps():
    rows = parse_rows(
        "NAME  READY  STATUS\nweb-1  1/1  Running\nredis-0  0/1  Pending\n"
    )

    assert rows[1] == {"NAME": "redis-0", "READY": "0/1", "STATUS": "Pending"}


def test_describe_gives_its_events_and_the_containers_last_state():
    events = describe_events(obs(1, "describe", {}, DESCRIBE_CART), "pod", "x")
    containers = read_containers(DESCRIBE_CART)

    assert [(e.type, e.reason) for e in events] == [
        ("Normal", "Pulled"),
        ("Warning", "BackOff"),
    ]
    assert events[1].name == "cartservice-6d8f7b9c54-k2xq8"
    assert containers.waiting == ["CrashLoopBackOff"]
    assert containers.terminated == ["OOMKilled"]
    assert containers.exit_codes == ["137"]
    assert containers.ports == ["7070/TCP"]
    assert containers.env == {"REDIS_ADDR": "redis-cart:6379"}
    assert containers.limits_cpu == "500m"


def test_owners_of_pods_replica_sets_and_claims():
    cluster = Cluster.read(
        [
            *shop_observations(),
            get(
                9,
                "statefulsets",
                "NAME    READY   AGE   CONTAINERS   IMAGES\nredis   0/1     38d   redis        redis:7.2\n",
            ),
        ]
    )

    assert (
        cluster.owner("shop", "pod", "cartservice-6d8f7b9c54-k2xq8")
        == "deployment/cartservice"
    )
    assert (
        cluster.owner("shop", "replicaset", "ledger-7d9c8b6f4") == "deployment/ledger"
    )
    assert cluster.owner("shop", "pod", "redis-0") == "statefulset/redis"
    assert (
        cluster.owner("shop", "persistentvolumeclaim", "data-redis-0")
        == "statefulset/redis"
    )
    assert cluster.owner("shop", "node", "worker-2") == "node/worker-2"


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("cart errors in namespace shop since 14:00", ["shop"]),
        ("the payments namespace is degraded", ["payments"]),
        ("kubectl get pods -n ledger shows restarts", ["ledger"]),
        ("checkout is slow", []),
    ],
)
def test_the_namespace_an_incident_names(text, named):
    assert kubernetes.named_namespaces(text) == named


# --- stages and reasons --------------------------------------------------------------------------


def test_each_workload_gets_the_earliest_stage_that_blocks_it():
    found = findings(shop_observations())

    admission = found["deployment/ledger"]
    assert (admission.stage, admission.reason, admission.layer) == (
        "admission",
        "FailedCreate",
        layers.PLATFORM,
    )
    assert "exceeded quota" in admission.statement
    pull = found["deployment/checkout"]
    assert (pull.stage, pull.reason, pull.layer) == (
        "startup",
        "ImagePullBackOff",
        layers.PLATFORM,
    )
    assert "no such host" in pull.statement  # the registry name does not resolve
    config = found["deployment/payments"]
    assert (config.stage, config.reason) == ("startup", "CreateContainerConfigError")
    assert "payments-db" in config.statement
    oom = found["deployment/cartservice"]
    assert (oom.stage, oom.reason, oom.layer) == (
        "runtime",
        "OOMKilled",
        layers.APPLICATION,
    )
    assert any(o.span_id == "8" and "OOMKilled" in o.text for o, _ in oom.evidence)
    zero = found["deployment/search"]
    assert (zero.stage, zero.reason) == ("runtime", "zero_replicas")
    node = found["node/worker-2"]
    assert (node.stage, node.reason, node.layer) == (
        "infrastructure",
        "NodeNotReady",
        layers.PLATFORM,
    )
    assert any("NotReady" in o.text for o, _ in node.evidence)


@pytest.mark.rule("k8s.routing")
def test_a_service_whose_selector_matches_no_pod_is_a_routing_fault_and_one_whose_workload_fails_is_not():
    found = findings(shop_observations())

    routing = found["service/catalog"]
    assert (routing.stage, routing.reason, routing.layer) == (
        "service_routing",
        "no_endpoints",
        layers.CONNECT,
    )
    assert "app=catalogue" in routing.statement
    # cartservice has no endpoints too, but its pods exist and crash: that is cartservice's fault.
    assert "service/cartservice" not in found


def test_a_scheduling_failure_names_the_workload_and_cites_the_event():
    events = EVENTS + (
        "2m (x115 over 29m)   Warning   FailedScheduling    Pod/ledger-7d9c8b6f4-2b9xq         "
        "0/3 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/unreachable: }, 2 Insufficient cpu.\n"
    )
    observations = shop_observations()
    observations[6] = obs(7, "events", {"namespace": "shop"}, events)
    found = findings(observations)

    # Admission is earlier than scheduling: the replica set cannot even create the rest.
    assert found["deployment/ledger"].stage == "admission"
    observations[6] = obs(
        7,
        "events",
        {"namespace": "shop"},
        events.replace("FailedCreate", "SuccessfulCreate").replace(
            "Warning   SuccessfulCreate", "Normal    SuccessfulCreate"
        ),
    )
    ledger = findings(observations)["deployment/ledger"]
    assert (ledger.stage, ledger.reason) == ("scheduling", "FailedScheduling")
    assert any(
        "0/3 nodes are available" in o.text and "Insufficient cpu" in f
        for o, f in ledger.evidence
    )


@pytest.mark.rule("k8s.routing")
def test_a_target_port_nobody_listens_on():
    describe_service = """\
Name:              cartservice
Namespace:         shop
Selector:          app=cartservice
Type:              ClusterIP
IP:                10.96.112.40
Port:              grpc  7070/TCP
TargetPort:        8080/TCP
Endpoints:         10.244.1.40:8080
Events:            <none>
"""
    observations = [o for o in shop_observations() if o.tool != "events"]
    observations[1] = obs(
        2,
        "get_resources",
        {"kind": "pods", "namespace": "shop", "wide": True, "show_labels": True},
        PODS.replace("CrashLoopBackOff", "Running         ")
        .replace("7 (41s ago)", "0          ")
        .replace("0/1     Running         ", "1/1     Running         "),
    )
    observations[4] = get(
        5,
        "endpoints",
        ENDPOINTS.replace(
            "cartservice   <none>          ", "cartservice   10.244.1.40:8080"
        ),
    )
    observations.append(
        obs(
            9,
            "describe",
            {"kind": "service", "name": "cartservice", "namespace": "shop"},
            describe_service,
        )
    )
    found = findings(observations)

    port = found["service/cartservice"]
    assert (port.stage, port.reason, port.layer) == (
        "service_routing",
        "target_port_mismatch",
        layers.CONNECT,
    )
    assert "8080" in port.statement and "7070" in port.statement


@pytest.mark.rule("k8s.routing")
def test_a_dns_name_no_service_has_is_the_callers_routing_fault():
    logs = "2026-12-01T15:19:41.508Z ERROR POST /cart 500: dial tcp: lookup cart-service on 10.96.0.10:53: no such host\n"
    observations = [
        *shop_observations(),
        obs(
            9,
            "pod_logs",
            {"pod": "frontend-6d9f8b7c5-7xk2p", "namespace": "shop", "tail": 200},
            logs,
        ),
    ]
    found = findings(observations)

    dns = found["deployment/frontend"]
    assert (dns.stage, dns.reason, dns.layer) == (
        "service_routing",
        "wrong_service_name",
        layers.DNS,
    )
    assert dns.is_relevant and "cart-service" in dns.statement


# --- the folder: root cause above its victims ---------------------------------------------------


@pytest.mark.rule("k8s.on-path", "k8s.caller-victims", "board.kubernetes")
def test_a_crash_loop_caused_by_an_unschedulable_dependency_ranks_below_it():
    inv, report = kubeworld.run(FOLDERS / "cart-store-unschedulable")
    ranked = [h for h in report.ranked() if h.status != "ruled_out"]
    top = ranked[0]

    assert (top.layer, top.component, top.stage, top.reason) == (
        layers.PLATFORM,
        "statefulset/redis",
        "scheduling",
        "FailedScheduling",
    )
    assert top.status == "confirmed" and report.conclusive
    assert any(
        "Insufficient memory" in kubeworld.span_text(inv, e.span_id)
        for e in top.evidence
    )
    # The path was followed: frontend's logs name cartservice's address, cartservice's previous logs redis.
    assert any(
        "connection refused" in kubeworld.span_text(inv, e.span_id)
        for e in top.evidence
    )
    victim = next(h for h in ranked if h.component == "deployment/cartservice")
    assert (
        victim.reason == "CrashLoopBackOff"
        and "symptom of statefulset/redis" in victim.statement
    )
    # The noisy service with old restarts is not on frontend's path.
    noisy = next(h for h in ranked if h.component == "deployment/recommendationservice")
    assert noisy.status == "likely" and noisy.confidence < top.confidence
    assert "not shown to be on frontend's path" in noisy.statement
    asked = {(o.tool, o.arguments.get("kind")) for o in inv.observations}
    assert ("get_resources", "namespaces") in asked and ("events", None) in asked
    assert any(
        o.tool == "pod_logs" and o.arguments.get("previous") for o in inv.observations
    )


def test_only_the_tools_the_environment_has_are_planned():
    folder = FOLDERS / "cart-store-unschedulable"
    planner = LayeredPlanner()
    inv = investigation([], service="frontend", tools=kubernetes_tools(server="k8s"))
    first = asyncio.run(planner.next_round(inv))

    assert {c.server for c in first} == {"k8s"}
    assert {c.agent for c in first} == {"kubernetes"}
    assert [c.arguments["kind"] for c in first if c.tool == "get_resources"] == [
        "namespaces",
        "nodes",
    ]
    # No kubernetes server: no kubectl call, whatever the incident says.
    plain = investigation(
        [], tools=[ToolInfo("logs", "top_errors", "", {}, True, False, False)]
    )
    assert [c.tool for c in asyncio.run(planner.next_round(plain))] == ["top_errors"]
    assert folder.is_dir()


def test_the_namespace_named_by_the_incident_is_read_at_once():
    planner = LayeredPlanner()
    inv = investigation([], symptoms=("cart errors in namespace shop",))
    first = asyncio.run(planner.next_round(inv))

    assert ("get_resources", "pods", "shop") in {
        (c.tool, c.arguments.get("kind"), c.arguments.get("namespace")) for c in first
    }


def test_application_namespaces_are_searched_before_the_platforms_own():
    namespaces = NAMESPACES.replace(
        "monitoring        Active   40d\n",
        "cert-manager      Active   40d\ningress-nginx     Active   40d\nmonitoring        Active   40d\n",
    )
    inv = investigation([get(1, "namespaces", namespaces, ns="default")])
    cluster = Cluster.read(inv.observations)

    assert kubernetes.scanned_namespaces(inv, cluster)[0] == "shop"


def test_a_probe_that_failed_while_starting_and_passes_now_is_no_fault():
    events = EVENTS + (
        "29m                  Warning   Unhealthy           Pod/frontend-6d9f8b7c5-7xk2p       "
        'Readiness probe failed: Get "http://10.244.1.23:8080/ready": dial tcp 10.244.1.23:8080: connect: connection refused\n'
    )
    observations = shop_observations()
    observations[6] = obs(7, "events", {"namespace": "shop"}, events)

    assert "deployment/frontend" not in findings(observations)


@pytest.mark.rule("k8s.cpu-throttling")
def test_cpu_throttling_from_the_metrics_explains_probes_that_time_out():
    pods = PODS.replace(
        "frontend-6d9f8b7c5-7xk2p       1/1     Running   ",
        "frontend-6d9f8b7c5-7xk2p       0/1     Running   ",
    )
    events = EVENTS + (
        "1m (x40 over 30m)    Warning   Unhealthy           Pod/frontend-6d9f8b7c5-7xk2p       "
        'Readiness probe failed: Get "http://10.244.1.23:8080/ready": context deadline exceeded\n'
    )
    observations = shop_observations()
    observations[1] = obs(
        2,
        "get_resources",
        {"kind": "pods", "namespace": "shop", "wide": True, "show_labels": True},
        pods,
    )
    observations[6] = obs(7, "events", {"namespace": "shop"}, events)
    planned = asyncio.run(
        LayeredPlanner().next_round(
            investigation(
                observations,
                tools=[
                    *kubernetes_tools(),
                    ToolInfo("metrics", "query_metric", "", {}, True, False, False),
                ],
            )
        )
    )
    query = next(c for c in planned if c.tool == "query_metric")
    assert (
        'container_cpu_cfs_throttled_periods_total{namespace="shop"}'
        in query.arguments["promql"]
    )
    throttled = Observation(
        span_id="20",
        agent="metrics",
        server="metrics",
        tool="query_metric",
        arguments=dict(query.arguments),
        is_ok=True,
        result={
            "promql": query.arguments["promql"],
            "series": [
                {
                    "metric": {"container": "server"},
                    "values": [[1, "0.02"], [2, "0.86"], [3, "0.85"]],
                },
            ],
        },
    )
    # The CONTAINERS column names the container "server" for several deployments: by name first.
    throttled.result["series"][0]["metric"]["container"] = "frontend"
    found = findings([*observations, throttled])

    perf = found["deployment/frontend"]
    assert (perf.stage, perf.reason, perf.layer) == (
        "performance",
        "cpu_throttling",
        layers.APPLICATION,
    )
    assert any(o.span_id == "20" for o, _ in perf.evidence)


INGRESS = """\
Name:             shop
Labels:           <none>
Namespace:        shop
Address:          203.0.113.10
Ingress Class:    nginx
Default backend:  <default>
Rules:
  Host              Path  Backends
  ----              ----  --------
  shop.example.com
                    /              frontend:80 (10.244.1.23:8080)
                    /cartservice   frontend:80 (10.244.1.23:8080)
Annotations:        nginx.ingress.kubernetes.io/rewrite-target: /
Events:             <none>
"""


@pytest.mark.rule("k8s.routing")
def test_an_ingress_routing_a_failing_path_to_another_service_is_a_connect_routing_fault():
    observations = [
        *shop_observations(),
        get(
            9,
            "ingresses",
            "NAME   CLASS   HOSTS              ADDRESS        PORTS   AGE\nshop   nginx   shop.example.com   203.0.113.10   80      38d\n",
        ),
        obs(
            10,
            "describe",
            {"kind": "ingress", "name": "shop", "namespace": "shop"},
            INGRESS,
        ),
    ]
    quiet = findings(observations)
    failing = findings(
        observations,
        symptoms=("POST /cartservice/items answers 404 from shop.example.com",),
    )

    # Serving a path from the frontend is no fault by itself; with that path failing it is.
    assert "ingress/shop" not in quiet
    routing = failing["ingress/shop"]
    # Service routing sends traffic to the wrong place: layer connect, as for services.
    assert (routing.stage, routing.reason, routing.layer) == (
        "service_routing",
        "wrong_service",
        layers.CONNECT,
    )
    assert routing.is_relevant and "cartservice" in routing.statement


@pytest.mark.rule("k8s.node-not-ready", "k8s.control-plane")
def test_a_control_plane_pod_on_a_node_that_is_down_is_that_nodes_victim():
    kube_system = """\
NAME                      READY   STATUS    RESTARTS   AGE   IP          NODE       NOMINATED NODE   READINESS GATES
kube-proxy-7xk2p          0/1     Unknown   0          41d   10.0.0.12   worker-2   <none>           <none>
kube-scheduler-control    1/1     Running   0          41d   10.0.0.10   control    <none>           <none>
"""
    found = findings(
        [*shop_observations(), get(9, "pods", kube_system, ns="kube-system")]
    )

    # A node agent's pod is named by its DaemonSet (`nodes.agent_owner`), the kube-proxy list unread.
    proxy = found["daemonset/kube-proxy"]
    assert proxy.stage == "infrastructure" and proxy.victim_of == "node/worker-2"
    assert "pod/kube-proxy-7xk2p" not in found
    assert "pod/kube-scheduler-control" not in found


PRESSURE_NODES = """\
NAME       STATUS   ROLES    AGE   VERSION   INTERNAL-IP   EXTERNAL-IP   OS-IMAGE             KERNEL-VERSION   CONTAINER-RUNTIME
worker-1   Ready    <none>   41d   v1.31.4   10.0.0.11     <none>        Ubuntu 22.04.4 LTS   6.8.0-1019-gcp   containerd://1.7.24
worker-3   Ready    <none>   41d   v1.31.4   10.0.0.13     <none>        Ubuntu 22.04.4 LTS   6.8.0-1019-gcp   containerd://1.7.24
"""
PRESSURE_PODS = """\
NAME                        READY   STATUS    RESTARTS   AGE   IP           NODE       NOMINATED NODE   READINESS GATES   LABELS
orders-7f9b8c6d5-a1b2c      0/1     Evicted   0          14m   <none>       worker-3   <none>           <none>            app=orders,pod-template-hash=7f9b8c6d5
orders-7f9b8c6d5-d4e5f      1/1     Running   0          14m   10.244.1.7   worker-1   <none>           <none>            app=orders,pod-template-hash=7f9b8c6d5
"""
PRESSURE_EVENTS = """\
LAST SEEN           TYPE      REASON                 OBJECT                       MESSAGE
14m (x3 over 15m)   Warning   EvictionThresholdMet   Node/worker-3                Attempting to reclaim ephemeral-storage
14m                 Warning   Evicted                Pod/orders-7f9b8c6d5-a1b2c   The node was low on resource: ephemeral-storage. Threshold quantity: 1Gi, available: 512Mi.
"""
DESCRIBE_WORKER_3 = """\
Name:               worker-3
Roles:              <none>
Conditions:
  Type             Status  LastHeartbeatTime                 LastTransitionTime                Reason                       Message
  ----             ------  -----------------                 ------------------                ------                       -------
  MemoryPressure   False   Sun, 06 Dec 2026 01:20:11 +0000   Sun, 01 Nov 2026 09:00:00 +0000   KubeletHasSufficientMemory   kubelet has sufficient memory available
  DiskPressure     True    Sun, 06 Dec 2026 01:20:11 +0000   Sun, 06 Dec 2026 01:05:40 +0000   KubeletHasDiskPressure       kubelet has disk pressure
  PIDPressure      False   Sun, 06 Dec 2026 01:20:11 +0000   Sun, 01 Nov 2026 09:00:00 +0000   KubeletHasSufficientPID      kubelet has sufficient PID available
  Ready            True    Sun, 06 Dec 2026 01:20:11 +0000   Sun, 01 Nov 2026 09:00:00 +0000   KubeletReady                 kubelet is posting ready status
Taints:             node.kubernetes.io/disk-pressure:NoSchedule
"""


def pressure_observations(describe=True):
    out = [
        get(0, "namespaces", NAMESPACES, ns="default"),
        obs(
            1,
            "get_resources",
            {"kind": "pods", "namespace": "shop", "wide": True, "show_labels": True},
            PRESSURE_PODS,
        ),
        get(2, "nodes", PRESSURE_NODES),
        obs(3, "events", {"namespace": "shop"}, PRESSURE_EVENTS),
    ]
    if describe:
        out.append(
            obs(
                4,
                "describe",
                {"kind": "node", "name": "worker-3", "namespace": "shop"},
                DESCRIBE_WORKER_3,
            )
        )
    return out


@pytest.mark.rule("k8s.node-pressure")
def test_a_ready_node_under_disk_pressure_is_the_fault_behind_its_evictions():
    found = findings(pressure_observations(), service="orders")

    node = found["node/worker-3"]
    assert (node.stage, node.reason, node.layer) == (
        "infrastructure",
        "NodePressure",
        layers.PLATFORM,
    )
    assert "DiskPressure" in node.statement
    assert any(o.span_id == "4" for o, _ in node.evidence)
    assert any("EvictionThresholdMet" in f for _, f in node.evidence)
    assert "node/worker-1" not in found  # a Ready node without pressure is not a fault


def test_the_kubelets_eviction_event_alone_names_the_node_under_pressure():
    found = findings(pressure_observations(describe=False), service="orders")

    node = found["node/worker-3"]
    assert node.reason == "NodePressure"
    assert all(o.span_id == "3" for o, _ in node.evidence)
