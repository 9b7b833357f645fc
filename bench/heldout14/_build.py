"""Writes the fourteenth held-out scenario set, bench/heldout14: `python bench/heldout14/_build.py`.

New incidents, none of them in the bundled set or in bench/heldout … bench/heldout13. As there,
everything that matters is written by hand below (incident, expected answer, runbooks, kubectl
answers, the log lines that carry the fault and the red herrings); the bulk (background request
lines, 2 h of metric points thinned to one every 30 s, a namespace's tables, describe layouts) comes
from bench/heldout13/_build.py's helpers (and through them heldout12's and the earlier builders'),
each scenario with a fixed seed (417-432). The author read neither the planner (`reasoning/`) nor
the engine (`diagnosis/engine/`, `docs/engine.md`), nor their tests, nor any score file. Stdlib only.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


h13 = _load("heldout13_build", HERE.parent / "heldout13" / "_build.py")
h12 = h13.h12
base = h13.base

table = base.table
events = base.events
runbook = base.runbook
app = h13.app
pod_name = h13.pod_name
namespace = h13.namespace
ev = h13.ev
bg = h13.bg
incident = h13.incident
expected = h13.expected
simple = h13.simple
container_text = h13.container_text
deployment_describe = h13.deployment_describe
describe_pod = h13.describe_pod
podlog = h13.podlog
running = h13.running
crashloop = h13.crashloop
node_describe = h13.node_describe
pending_pod = h13.pending_pod
replicaset_describe = h12.replicaset_describe
sched = h13.sched
kube_case = h13.kube_case
pods_of = h13.pods_of
svc = h13.svc
ramp = h13.ramp
every = h13.every
describe_block = h13.describe_block
retype_node = h13.retype_node
NODES_FRA = h13.NODES_FRA
NODES_IAD = h13.NODES_IAD
NODES_DUB = h13.NODES_DUB
NODES_PDX = h13.NODES_PDX

SCENARIOS: dict[str, Any] = {}


def scenario(slug: str):
    def register(fn):
        SCENARIOS[slug] = fn
        return fn

    return register


def fix_rollout(
    k8s: dict[str, str], ns: str, name: str, was: str, now: str, old: dict[str, Any]
) -> None:
    """A rollout half done: the Deployment row counts the old pods, the Service's endpoints are theirs."""
    key = f"kubectl get deployments -n {ns} -o wide"
    k8s[key] = k8s[key].replace(f"{name}   {was}", f"{name}   {now}", 1)
    rows = [
        r.split()
        for r in k8s[f"kubectl get pods -n {ns} -o wide --show-labels"].splitlines()
    ]
    ips = [
        f"{r[5]}:{old['port']}"
        for r in rows[1:]
        if r[0].startswith(old["name"]) and r[2] == "Running"
    ]
    key = f"kubectl get endpoints -n {ns}"
    eps = [r.split() for r in k8s[key].splitlines()]
    k8s[key] = table(
        [eps[0]] + [[r[0], ",".join(ips), r[2]] if r[0] == name else r for r in eps[1:]]
    )


# =================================================================================================
# 1. Admission: a platform clean-up PR deleted PriorityClasses that its audit script found unused
#    (it only looked at the platform namespaces). search-api's pods carry
#    `priorityClassName: search-critical`. The running pods were admitted long ago; a Karpenter
#    consolidation (the trigger) evicts two of four and the ReplicaSet cannot create new ones: the
#    Priority admission plugin rejects them. Two pods carry all of search. The incident says "search".
# =================================================================================================


@scenario("priorityclass-deleted-blocks-new-pods")
def priorityclass_deleted_blocks_new_pods() -> dict[str, Any]:
    start = -2100
    ns = "search"
    rs = "7f6c9d8b5"
    sa = app(
        "search-api",
        image="registry.wrenfield.io/search-api:31.4.2",
        port=8080,
        rs=rs,
        cluster_ip="172.20.14.20",
        desired=4,
        pods=[
            ("c2kzt", "1/1", "Running", "0", "6d", 0),
            ("w8pqn", "1/1", "Running", "0", "6d", 2),
        ],
    )
    q = app(
        "query-suggest",
        image="registry.wrenfield.io/query-suggest:2.2.0",
        port=8080,
        rs="5d9c7b6f4",
        cluster_ip="172.20.14.31",
        pods=[
            ("h4mvx", "1/1", "Running", "0", "33m", 1),
            ("k7trb", "1/1", "Running", "0", "33m", 2),
        ],
    )
    k8s = namespace(ns, NODES_IAD, [sa, q], seed=417)
    sig = "no PriorityClass with name search-critical was found"
    deny = f'Error creating: pods "search-api-{rs}-" is forbidden: {sig}'
    cont = container_text(
        "search-api",
        sa["image"],
        8080,
        env={"ES_URL": "https://es-search.search.svc:9200", "JAVA_OPTS": "-Xmx3g"},
        limits="memory:  4Gi",
        requests="cpu:      2\n  memory:   4Gi",
        readiness="http-get http://:8080/ready delay=10s timeout=2s period=5s #success=1 #failure=3",
    )
    k8s[f"kubectl describe deployments search-api -n {ns}"] = deployment_describe(
        "search-api",
        ns,
        replicas="4 desired | 2 updated | 2 total | 2 available | 2 unavailable",
        revision=57,
        containers=cont,
        conditions=[
            ("Progressing", "True", "NewReplicaSetAvailable"),
            ("Available", "False", "MinimumReplicasUnavailable"),
            ("ReplicaFailure", "True", "FailedCreate"),
        ],
        old_rs="<none>",
        new_rs=f"search-api-{rs} (2/4 replicas created)",
        created=-40000000,
    ).replace(
        "  Service Account:  search-api\n",
        "  Service Account:  search-api\n  Priority Class Name:  search-critical\n",
    )
    k8s[f"kubectl describe replicasets search-api-{rs} -n {ns}"] = replicaset_describe(
        f"search-api-{rs}",
        ns,
        deployment="search-api",
        revision=57,
        desired=4,
        current=2,
        status="2 Running / 0 Waiting / 0 Succeeded / 0 Failed",
        containers=cont,
        failure=True,
        events_rows=[
            (
                "Warning",
                "FailedCreate",
                "2m (x17 over 33m)",
                "replicaset-controller",
                deny,
            )
        ],
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "34m",
                "Normal",
                "Evicted",
                f"Pod/search-api-{rs}-9xq4d",
                "Evicted pod: Disrupting node ip-10-61-2-77.us-east-1.compute.internal (Underutilized)",
            ),
            (
                "34m",
                "Normal",
                "Evicted",
                f"Pod/search-api-{rs}-t2ljw",
                "Evicted pod: Disrupting node ip-10-61-2-77.us-east-1.compute.internal (Underutilized)",
            ),
            (
                "33m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/query-suggest",
                "Scaled up replica set query-suggest-5d9c7b6f4 to 2",
            ),
            ("2m", "Warning", "FailedCreate", f"ReplicaSet/search-api-{rs}", deny),
        ]
    )
    sp = pods_of(sa)
    evs = [
        ev(
            "gitops",
            "info",
            "argocd: app platform-priorityclasses synced (PR plat#612 'remove unused PriorityClasses': deleted search-critical, batch-low, legacy-high)",
            at=start - 1500,
        ),
        ev(
            "karpenter",
            "info",
            'disrupting nodeclaim(s) via delete, terminating 1 nodes (2 pods) ip-10-61-2-77.us-east-1.compute.internal/m6i.4xlarge/on-demand {"reason":"underutilized"}',
            at=start - 60,
        ),
        ev(
            "kube-controller-manager",
            "warn",
            f'"Unhandled Error" err="replicaset-controller: {deny}" logger="UnhandledError" ReplicaSet="{ns}/search-api-{rs}"',
            **every(start, -120, 240),
        ),
        ev(
            "search-gateway",
            "error",
            'upstream timed out (110: Connection timed out) while reading response header from upstream, request: "GET /v2/search?q={n} HTTP/1.1", upstream: "http://search-api.search.svc:8080/v2/search"',
            **every(start + 60, -1, 3),
        ),
        ev(
            "search-api",
            "warn",
            "request queue depth {n}: 200 worker threads busy, p99 {ms}00ms",
            **every(start + 90, -20, 40),
            pods=sp,
        ),
        ev(
            "es-search",
            "warn",
            "[gc][young][{n}] overhead, spent [{ms}0ms] collecting in the last [1s]",
            **every(-7000, -60, 420),
        ),
        ev(
            "query-suggest",
            "info",
            "query-suggest 2.2.0 started: model suggest-2026-12 loaded in {ms}0ms",
            at=-1980,
            pods=pods_of(q),
        ),
        ev(
            "search-api",
            "error",
            "[parent] Data too large, data for [<http_request>] would be [3.1gb/3.1gb], which is larger than the limit of [3gb] (circuit_breaking_exception)",
            **every(-9800, -9400, 60),
            pods=sp,
        ),
    ]
    return kube_case(
        seed=417,
        start=start,
        inc=incident("Search very slow", "search", start),
        exp=expected(
            "platform",
            [
                "priorityclass/search-critical",
                "search-critical",
                "deployment/search-api",
                "search-api",
                f"replicaset/search-api-{rs}",
                "platform-priorityclasses",
            ],
            sig,
            "A platform clean-up (PR plat#612) deleted the PriorityClass search-critical, which search-api's pod template names. Running pods were not affected, but when Karpenter consolidated a node and evicted two of the four search-api pods, the ReplicaSet could not create replacements: the Priority admission plugin rejects every new pod. Two pods carry all search traffic, queue and time out at the search gateway. The gateway timeouts, Elasticsearch's GC lines, the consolidation (the trigger), query-suggest's release and the old circuit-breaker error are not the cause.",
            [
                f"ReplicaSet search-api-{rs}: FailedCreate: {sig}",
                "argocd: platform-priorityclasses deleted search-critical",
                "search-api 2/4 available since Karpenter evicted two pods 34 min ago",
            ],
            "Re-create the PriorityClass search-critical (and exclude it from the clean-up script), then let the ReplicaSet create its pods.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "search-api",
                sp,
                [
                    "GET /v2/search?q={n} 200 {ms}ms",
                    "GET /v2/facets?cat={n} 200 {ms}ms",
                ],
                8,
            )
        ],
        evs=evs,
        services=[
            svc("search-gateway", 240, {"504": (0.0002, 0.09)}, (0.09, 2.4)),
            svc("search-api", 230, {"500": (0.0005, 0.004)}, (0.08, 1.9)),
        ],
        books={
            "search-slow.md": runbook(
                "Search latency",
                "Slow search is almost always Elasticsearch: check the es-search data nodes' heap and GC overhead, and add a data node if old GC runs more than once a minute.",
            )
        },
    )


# =================================================================================================
# 2. Scheduling: the weekly OS patching pipeline (Jenkins `node-os-patching`) drains, patches and
#    reboots the on-prem workers one by one, then uncordons them. This week the uncordon stage
#    failed (its kubeconfig's client certificate had expired) after three nodes; the job was marked
#    UNSTABLE and nobody looked. At the morning peak the HPA scales tracking-api out and the new pods
#    stay Pending: three nodes are cordoned, the other two are full. The incident says "tracking page".
# =================================================================================================

NODES_DC2 = [
    (f"k8s-w0{i}.dc2.corvid.local", st, f"10.12.8.{20 + i}", "412d")
    for i, st in enumerate(
        [
            "Ready,SchedulingDisabled",
            "Ready,SchedulingDisabled",
            "Ready,SchedulingDisabled",
            "Ready",
            "Ready",
        ],
        start=1,
    )
]


def on_prem(k8s: dict[str, str]) -> None:
    """The shared node layouts describe EKS nodes; these are Rocky Linux VMs on vSphere."""
    swaps = (
        ("v1.31.2-eks-94953ac", "v1.31.2"),
        ("Amazon Linux 2023.6.20241121", "Rocky Linux 9.5 (Blue Onyx)"),
        ("6.1.115-126.197.amzn2023.x86_64", "5.14.0-503.16.1.el9_5.x86_64"),
        ("\n                    node.kubernetes.io/instance-type=m6i.2xlarge", ""),
    )
    for key, text in k8s.items():
        if key.startswith("kubectl describe nodes"):
            for a, b in swaps:
                text = text.replace(a, b)
            k8s[key] = text
    key = "kubectl get nodes -o wide"
    lines = k8s[key].splitlines()
    rows = [re.split(r"\s{2,}", line.strip()) for line in lines]
    for a, b in swaps[:3]:
        rows = [[b if c == a else c for c in r] for r in rows]
    k8s[key] = table(rows)


@scenario("nodes-left-cordoned-after-patching")
def nodes_left_cordoned_after_patching() -> dict[str, Any]:
    start = -1800
    ns = "tracking"
    rs = "6d8b9f7c4"
    tr = app(
        "tracking-api",
        image="harbor.corvid.local/logistics/tracking-api:5.12.1",
        port=8080,
        rs=rs,
        cluster_ip="10.233.40.12",
        desired=9,
        pods=[
            ("b5kqz", "1/1", "Running", "0", "2d", 3),
            ("f9wxm", "1/1", "Running", "0", "2d", 4),
            ("j2pld", "1/1", "Running", "0", "2d", 3),
            ("n6ctv", "1/1", "Running", "0", "2d", 4),
            ("q8rzs", "0/1", "Pending", "0", "29m", -1),
            ("t3hyb", "0/1", "Pending", "0", "29m", -1),
            ("v7kgm", "0/1", "Pending", "0", "29m", -1),
            ("x4nfw", "0/1", "Pending", "0", "29m", -1),
            ("z1dpe", "0/1", "Pending", "0", "29m", -1),
        ],
    )
    web = app(
        "tracking-web",
        image="harbor.corvid.local/logistics/tracking-web:3.40.0",
        port=3000,
        rs="58f6c9d7b",
        cluster_ip="10.233.40.30",
        pods=[
            ("d3vkt", "1/1", "Running", "0", "47m", 3),
            ("m8qzx", "1/1", "Running", "0", "47m", 4),
        ],
    )
    k8s = namespace(ns, NODES_DC2, [tr, web], seed=418)
    sig = "3 node(s) were unschedulable"
    msg = f"0/5 nodes are available: 2 Insufficient cpu, {sig}. preemption: 0/5 nodes are available: 2 No preemption victims found for incoming pod, 3 Preemption is not helpful for scheduling."
    cont = container_text(
        "tracking-api",
        tr["image"],
        8080,
        env={
            "CARRIER_API": "https://api.parcelhub.eu/v3",
            "REDIS_URL": "redis://tracking-redis:6379",
        },
        limits="memory:  1Gi",
        requests="cpu:      1500m\n  memory:   1Gi",
    )
    for sfx in ("q8rzs", "t3hyb", "v7kgm", "x4nfw", "z1dpe"):
        k8s[f"kubectl describe pods {pod_name(tr, sfx)} -n {ns}"] = pending_pod(
            pod_name(tr, sfx),
            ns,
            owner=f"ReplicaSet/tracking-api-{rs}",
            labels=["app=tracking-api", f"pod-template-hash={rs}"],
            sa="tracking-api",
            containers=cont,
            events_rows=[
                (
                    "Warning",
                    "FailedScheduling",
                    "3m (x7 over 29m)",
                    "default-scheduler",
                    msg,
                )
            ],
        )
    for i, (name, st, ip, _age) in enumerate(NODES_DC2):
        cordoned = st != "Ready"
        text = node_describe(
            name,
            ip,
            taints="node.kubernetes.io/unschedulable:NoSchedule"
            if cordoned
            else "<none>",
            unschedulable=cordoned,
            pods_rows=[(ns, pod_name(tr, p[0])) for p in tr["pods"] if p[5] == i]
            + [(ns, pod_name(web, p[0])) for p in web["pods"] if p[5] == i],
            events_text=(
                f"  Normal   NodeNotSchedulable  {14 - 3 * i}h   kubelet  Node {name} status is now: NodeNotSchedulable\n"
                f"  Normal   Starting            {13 - 3 * i}h   kubelet  Starting kubelet.\n"
                if cordoned
                else ""
            ),
        )
        k8s[f"kubectl describe nodes {name}"] = text
    on_prem(k8s)
    k8s[f"kubectl get horizontalpodautoscalers -n {ns}"] = table(
        [
            ["NAME", "REFERENCE", "TARGETS", "MINPODS", "MAXPODS", "REPLICAS", "AGE"],
            [
                "tracking-api",
                "Deployment/tracking-api",
                "cpu: 171%/60%",
                "4",
                "12",
                "9",
                "380d",
            ],
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "47m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/tracking-web",
                "Scaled up replica set tracking-web-58f6c9d7b to 2",
            ),
            (
                "29m",
                "Normal",
                "SuccessfulRescale",
                "HorizontalPodAutoscaler/tracking-api",
                "New size: 9; reason: cpu resource utilization (percentage of request) above target",
            ),
            ("3m", "Warning", "FailedScheduling", f"Pod/{pod_name(tr, 'q8rzs')}", msg),
        ]
    )
    tp = [
        p
        for p in pods_of(tr)
        if not p.endswith(("q8rzs", "t3hyb", "v7kgm", "x4nfw", "z1dpe"))
    ]
    evs = [
        ev(
            "jenkins",
            "warn",
            "node-os-patching #52 finished: UNSTABLE (stage 'uncordon' failed for k8s-w01, k8s-w02, k8s-w03: error: You must be logged in to the server (Unauthorized); kubeconfig client certificate expired 2026-12-04)",
            at=-43000,
        ),
        ev(
            "jenkins",
            "info",
            "node-os-patching #52: k8s-w03.dc2.corvid.local drained, patched (kernel 5.14.0-503.16.1), rebooted, Ready",
            at=-44000,
        ),
        ev(
            "tracking-web",
            "error",
            "GET /track/{n} 504 upstream tracking-api timed out after 5000ms",
            **every(start + 30, -1, 3),
            pods=pods_of(web),
        ),
        ev(
            "tracking-api",
            "warn",
            "carrier parcelhub GET /v3/shipments/{n}/events took {ms}00ms (slow)",
            **every(-6500, -20, 90),
            pods=tp,
        ),
        ev(
            "tracking-web",
            "info",
            "tracking-web 3.40.0 started (new map tiles)",
            at=-2820,
            pods=pods_of(web),
        ),
        ev(
            "tracking-api",
            "error",
            "redis: i/o timeout reading from tracking-redis:6379 (pool 64/64 in use)",
            **every(-9500, -9100, 40),
            pods=tp,
        ),
    ]
    return kube_case(
        seed=418,
        start=start,
        inc=incident("Tracking page timing out", "tracking page", start),
        exp=expected(
            "platform",
            [
                "k8s-w01.dc2.corvid.local",
                "k8s-w02.dc2.corvid.local",
                "k8s-w03.dc2.corvid.local",
                "node-os-patching",
                "cordoned nodes",
                "deployment/tracking-api",
                "tracking-api",
            ],
            sig,
            "The weekly node-os-patching run drained and patched k8s-w01 to k8s-w03 but its uncordon stage failed (its kubeconfig's client certificate had expired), so three of the five workers are still cordoned. At the morning peak the HPA scales tracking-api from 4 to 9 and the new pods stay Pending: the cordoned nodes are unschedulable and the two others are full. Four pods carry the peak and tracking-web times out. The carrier API's slow calls, tracking-web's release and the old Redis timeouts are not the cause.",
            [
                f"FailedScheduling: {msg}",
                "node-os-patching #52 UNSTABLE: stage 'uncordon' failed (Unauthorized)",
                "kubectl get nodes: k8s-w01..w03 Ready,SchedulingDisabled",
            ],
            "Uncordon k8s-w01, k8s-w02 and k8s-w03 (kubectl uncordon), renew the pipeline's kubeconfig and make an uncordon failure fail the job.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "tracking-api",
                tp,
                [
                    "GET /v1/shipments/{n} 200 {ms}ms",
                    "GET /v1/shipments/{n}/events 200 {ms}ms",
                ],
                8,
            )
        ],
        evs=evs,
        services=[
            svc("tracking-web", 150, {"504": (0.0002, 0.07)}, (0.08, 1.6)),
            svc("tracking-api", 140, {"500": (0.0005, 0.002)}, (0.06, 1.4)),
        ],
        gauges=[
            {
                "name": "kube_node_spec_unschedulable",
                "labels": {"node": n[0]},
                "before": 1 if n[1] != "Ready" else 0,
                "after": 1 if n[1] != "Ready" else 0,
            }
            for n in NODES_DC2
        ],
        books={
            "tracking-timeouts.md": runbook(
                "Tracking page timeouts",
                "Tracking timeouts come from the carrier API: when parcelhub is slow, switch CARRIER_MODE to cached in the tracking-api ConfigMap and tell the carrier desk.",
            )
        },
    )


# =================================================================================================
# 3. Startup: Renovate bumped pricing-service's base image from eclipse-temurin:11-jre to 21-jre
#    (release 4.8.0). The shared ConfigMap `jvm-flags` still sets JAVA_TOOL_OPTIONS with
#    -XX:+UseConcMarkSweepGC, removed in JDK 14: the JVM refuses to start. The rollout is stuck with
#    one new pod crash-looping and two old pods left, which basket-api overloads. The incident says
#    "basket".
# =================================================================================================


@scenario("jvm-option-removed-base-image-jdk21")
def jvm_option_removed_base_image_jdk21() -> dict[str, Any]:
    start = -1500
    ns = "commerce"
    new_rs, old_rs = "84c7d9f5b", "6f9b8c7d5"
    pr = app(
        "pricing-service",
        image="ghcr.io/quillmart/pricing-service:4.8.0",
        port=8080,
        rs=new_rs,
        cluster_ip="172.20.9.44",
        desired=3,
        pods=[("g7tkq", "0/1", "CrashLoopBackOff", "8", "26m", 1)],
        extra_rs=[
            (
                f"pricing-service-{old_rs}",
                "2",
                "2",
                "2",
                "19d",
                "pricing-service",
                "ghcr.io/quillmart/pricing-service:4.7.3",
                f"app=pricing-service,pod-template-hash={old_rs}",
            )
        ],
    )
    old = app(
        f"pricing-service-{old_rs}",
        image="ghcr.io/quillmart/pricing-service:4.7.3",
        port=8080,
        rs=old_rs,
        kind="ReplicaSet",
        labels=f"app=pricing-service,pod-template-hash={old_rs}",
        service=False,
        pods=[
            ("b2wmn", "1/1", "Running", "0", "19d", 0),
            ("r5xpj", "1/1", "Running", "0", "19d", 2),
        ],
    )
    bk = app(
        "basket-api",
        image="ghcr.io/quillmart/basket-api:12.0.4",
        port=8080,
        rs="7b5d6c8f9",
        cluster_ip="172.20.9.20",
        pods=[
            ("a4rkn", "1/1", "Running", "0", "3d", 0),
            ("e6pvw", "1/1", "Running", "0", "3d", 1),
            ("s9qzc", "1/1", "Running", "0", "3d", 2),
        ],
    )
    k8s = namespace(
        ns,
        NODES_DUB,
        [pr, old, bk],
        seed=419,
        configmaps=[("jvm-flags", "2", "611d")],
    )
    fix_rollout(
        k8s,
        ns,
        "pricing-service",
        "0/3     3            0",
        "2/3     1            2",
        old,
    )
    sig = "Unrecognized VM option 'UseConcMarkSweepGC'"
    cont = container_text(
        "pricing-service",
        pr["image"],
        8080,
        env={
            "JAVA_TOOL_OPTIONS": "<set to the key 'JAVA_TOOL_OPTIONS' of config map 'jvm-flags'>  Optional: false",
            "PRICE_RULES_URL": "http://rules-store:8080",
        },
        limits="memory:  2Gi",
        requests="cpu:      1\n  memory:   2Gi",
    )
    name = describe_pod(
        k8s,
        ns,
        pr,
        "g7tkq",
        NODES_DUB,
        state=crashloop(1, "Error", -95, -94),
        started=-1560,
        restarts=8,
        events_rows=[
            sched(ns, pod_name(pr, "g7tkq"), NODES_DUB[1][0], "26m"),
            (
                "Normal",
                "Pulled",
                "26m",
                "kubelet",
                f'Successfully pulled image "{pr["image"]}" in 3.2s (3.2s including waiting). Image size: 201337412 bytes.',
            ),
            (
                "Warning",
                "BackOff",
                "90s (x112 over 26m)",
                "kubelet",
                "Back-off restarting failed container pricing-service in pod "
                + pod_name(pr, "g7tkq")
                + f"_{ns}(7d1e…)",
            ),
        ],
    )
    boot = [
        (
            -95,
            "Picked up JAVA_TOOL_OPTIONS: -XX:+UseConcMarkSweepGC -XX:CMSInitiatingOccupancyFraction=70 -Xms1g -Xmx1536m",
        ),
        (-95, sig),
        (-95, "Error: Could not create the Java Virtual Machine."),
        (-95, "Error: A fatal exception has occurred. Program will exit."),
    ]
    k8s[f"kubectl logs {name} -n {ns} --previous --tail=1000"] = podlog(boot)
    k8s[f"kubectl logs {name} -n {ns} --tail=200"] = podlog(boot)
    k8s[f"kubectl describe configmaps jvm-flags -n {ns}"] = (
        f"Name:         jvm-flags\nNamespace:    {ns}\nLabels:       team=platform-java\nAnnotations:  <none>\n\nData\n====\n"
        "JAVA_TOOL_OPTIONS:\n----\n-XX:+UseConcMarkSweepGC -XX:CMSInitiatingOccupancyFraction=70 -Xms1g -Xmx1536m\n"
        "GC_LOG:\n----\n-Xlog:gc*:stdout\n\nBinaryData\n====\n\nEvents:  <none>\n"
    )
    k8s[f"kubectl describe deployments pricing-service -n {ns}"] = deployment_describe(
        "pricing-service",
        ns,
        replicas="3 desired | 1 updated | 3 total | 2 available | 1 unavailable",
        revision=44,
        containers=cont,
        conditions=[
            ("Available", "True", "MinimumReplicasAvailable"),
            ("Progressing", "True", "ReplicaSetUpdated"),
        ],
        old_rs=f"pricing-service-{old_rs} (2/2 replicas created)",
        new_rs=f"pricing-service-{new_rs} (1/1 replicas created)",
        created=-60000000,
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "26m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/pricing-service",
                f"Scaled up replica set pricing-service-{new_rs} to 1",
            ),
            (
                "26m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/pricing-service",
                f"Scaled down replica set pricing-service-{old_rs} to 2 from 3",
            ),
            (
                "90s",
                "Warning",
                "BackOff",
                f"Pod/{name}",
                "Back-off restarting failed container pricing-service in pod " + name,
            ),
        ]
    )
    bp = pods_of(bk)
    evs = [
        ev(
            "github",
            "info",
            "renovate: merged PR quillmart/pricing-service#388 'chore(deps): update eclipse-temurin docker tag to v21' -> release 4.8.0",
            at=start - 200,
        ),
        ev(
            "gitops",
            "info",
            "argocd: app pricing-service synced to 4.8.0",
            at=start - 60,
        ),
        ev("pricing-service", "error", sig, **every(start + 30, -95, 180), pods=[name]),
        ev(
            "basket-api",
            "error",
            "GET /basket/{n} 503: pricing-service call timed out after 800ms (circuit half-open)",
            **every(start + 120, -1, 4),
            pods=bp,
        ),
        ev(
            "pricing-service",
            "warn",
            "thread pool 'price-calc' saturated: {n} tasks queued",
            **every(start + 120, -15, 30),
            pods=pods_of(old),
        ),
        ev(
            "github",
            "info",
            "renovate: merged PR quillmart/basket-api#901 'chore(deps): update dependency jackson-databind to v2.18.2'",
            at=-5200,
        ),
        ev(
            "pricing-service",
            "warn",
            "[gc] Pause Young (Allocation Failure) {ms}0ms",
            **every(-9900, -9500, 80),
            pods=pods_of(old),
        ),
    ]
    return kube_case(
        seed=419,
        start=start,
        inc=incident(
            "Basket slow and failing",
            "basket",
            start,
            ["items take ages to add to basket"],
        ),
        exp=expected(
            "application",
            [
                "deployment/pricing-service",
                "pricing-service",
                "pricing-service 4.8.0",
                "UseConcMarkSweepGC",
                "configmap/jvm-flags",
                "jvm-flags",
                "eclipse-temurin:21",
            ],
            sig,
            "pricing-service 4.8.0 (a Renovate base-image bump from eclipse-temurin 11 to 21) starts with JAVA_TOOL_OPTIONS from the shared ConfigMap jvm-flags, which still sets -XX:+UseConcMarkSweepGC. The CMS collector was removed in JDK 14, so the JVM refuses to start (exit 1). The rollout stopped with one new pod crash-looping and one old pod removed; the two remaining 4.7.3 pods saturate and basket-api's calls time out. basket-api's errors, its dependency bump and the old GC pauses are not the cause.",
            [
                f"pricing-service previous log: {sig}, 'Could not create the Java Virtual Machine.'",
                "ConfigMap jvm-flags: JAVA_TOOL_OPTIONS -XX:+UseConcMarkSweepGC",
                "renovate: eclipse-temurin v21 -> pricing-service 4.8.0",
            ],
            "Roll pricing-service back to 4.7.3, then drop the CMS flags from jvm-flags (or give the JDK 21 image its own flags) before rolling 4.8.0 again.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "basket-api",
                bp,
                ["POST /basket/{n}/items 200 {ms}ms", "GET /basket/{n} 200 {ms}ms"],
                8,
            )
        ],
        evs=evs,
        services=[
            svc("basket-api", 180, {"503": (0.0003, 0.06)}, (0.07, 0.9)),
            svc("pricing-service", 170, {"500": (0.0003, 0.0005)}, (0.02, 0.6)),
        ],
        books={
            "basket-503.md": runbook(
                "basket-api 503s",
                "503s from basket-api with 'circuit half-open' mean the basket Redis is slow: check redis latency and failover the basket Redis if p99 is above 20 ms.",
            )
        },
    )


# =================================================================================================
# 4. Runtime: notification-api 3.0.0 moved its base image from node:14 to node:20. Since Node 15 an
#    unhandled promise rejection ends the process. sendPush() fires APNs requests without a catch;
#    APNs answers BadDeviceToken for stale tokens every few minutes (it always did), and each such
#    answer now kills a pod. Pods restart all the time, two are in CrashLoopBackOff; order
#    notifications are lost. The incident says "notifications".
# =================================================================================================


@scenario("node20-unhandled-rejection-crashes")
def node20_unhandled_rejection_crashes() -> dict[str, Any]:
    start = -2400
    ns = "messaging"
    na = app(
        "notification-api",
        image="eu.gcr.io/brindle-prod/notification-api:3.0.0",
        port=3000,
        rs="5c9d8f7b6",
        cluster_ip="10.96.71.14",
        pods=[
            ("d2vqk", "1/1", "Running", "11", "47m", 0),
            ("k8rxn", "0/1", "CrashLoopBackOff", "13", "47m", 1),
            ("p4mzt", "0/1", "CrashLoopBackOff", "12", "47m", 2),
        ],
    )
    osv = app(
        "order-service",
        image="eu.gcr.io/brindle-prod/order-service:18.3.0",
        port=8080,
        rs="6b7c9d5f8",
        cluster_ip="10.96.71.30",
        pods=[
            ("f6jwp", "1/1", "Running", "0", "36m", 0),
            ("t1xkb", "1/1", "Running", "0", "36m", 2),
        ],
    )
    k8s = namespace(ns, NODES_FRA, [na, osv], seed=420)
    sig = "code: 'ERR_UNHANDLED_REJECTION'"
    cont = container_text(
        "notification-api",
        na["image"],
        3000,
        env={
            "APNS_TOPIC": "com.brindle.app",
            "FCM_PROJECT": "brindle-prod",
            "NODE_ENV": "production",
        },
        limits="memory:  512Mi",
        requests="cpu:      250m\n  memory:   512Mi",
    )
    crash = [
        (
            -130,
            '{"level":"info","msg":"notification-api 3.0.0 listening","port":3000,"node":"v20.11.1"}',
        ),
        (-70, '{"level":"info","msg":"push sent","provider":"apns","count":118}'),
        (
            -41,
            '{"level":"warn","msg":"apns rejected","reason":"BadDeviceToken","status":400}',
        ),
        (-41, "node:internal/process/promises:289"),
        (-41, "            triggerUncaughtException(err, true /* fromPromise */);"),
        (-41, "            ^"),
        (-41, ""),
        (
            -41,
            '[UnhandledPromiseRejection: This error originated either by throwing inside of an async function without a catch block, or by rejecting a promise which was not handled with .catch(). The promise rejected with the reason "BadDeviceToken".] {',
        ),
        (-41, "  " + sig),
        (-41, "}"),
        (-41, ""),
        (-41, "Node.js v20.11.1"),
    ]
    names = []
    for sfx, restarts in (("k8rxn", 13), ("p4mzt", 12), ("d2vqk", 11)):
        n = describe_pod(
            k8s,
            ns,
            na,
            sfx,
            NODES_FRA,
            state=crashloop(1, "Error", -130, -41) if sfx != "d2vqk" else running(-210),
            started=-2820,
            restarts=restarts,
            ready=sfx == "d2vqk",
            events_rows=[
                (
                    "Warning",
                    "BackOff",
                    "40s (x31 over 40m)",
                    "kubelet",
                    f"Back-off restarting failed container notification-api in pod {pod_name(na, sfx)}_{ns}(c41f…)",
                )
            ],
        )
        k8s[f"kubectl logs {n} -n {ns} --previous --tail=1000"] = podlog(crash)
        names.append(n)
    k8s[f"kubectl describe deployments notification-api -n {ns}"] = deployment_describe(
        "notification-api",
        ns,
        replicas="3 desired | 3 updated | 3 total | 1 available | 2 unavailable",
        revision=29,
        containers=cont,
        conditions=[
            ("Available", "False", "MinimumReplicasUnavailable"),
            ("Progressing", "True", "NewReplicaSetAvailable"),
        ],
        old_rs="notification-api-7d4b9c6f5 (0/0 replicas created)",
        new_rs=f"notification-api-{na['rs']} (3/3 replicas created)",
        created=-45000000,
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "47m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/notification-api",
                f"Scaled up replica set notification-api-{na['rs']} to 3",
            ),
            (
                "36m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/order-service",
                "Scaled up replica set order-service-6b7c9d5f8 to 2",
            ),
            (
                "40s",
                "Warning",
                "BackOff",
                f"Pod/{names[0]}",
                "Back-off restarting failed container notification-api",
            ),
            (
                "35s",
                "Warning",
                "BackOff",
                f"Pod/{names[1]}",
                "Back-off restarting failed container notification-api",
            ),
        ]
    )
    npods = pods_of(na)
    evs = [
        ev(
            "gitops",
            "info",
            "argocd: app notification-api synced to 3.0.0 (Dockerfile FROM node:20-alpine, was node:14-alpine; PR msg#77 'node 14 is EOL')",
            at=start - 420,
        ),
        ev(
            "notification-api",
            "warn",
            '{"level":"warn","msg":"apns rejected","reason":"BadDeviceToken","status":400}',
            **every(-7100, -20, 150),
            pods=npods,
        ),
        ev(
            "notification-api",
            "error",
            '[UnhandledPromiseRejection: This error originated either by throwing inside of an async function without a catch block, or by rejecting a promise which was not handled with .catch(). The promise rejected with the reason "BadDeviceToken".] { '
            + sig
            + " }",
            **every(start + 100, -41, 150),
            pods=npods,
        ),
        ev(
            "order-service",
            "error",
            "POST http://notification-api:3000/v1/notify failed: connect ECONNREFUSED 10.96.71.14:3000 (attempt 3/3), order {n} notification dropped",
            **every(start + 120, -2, 6),
            pods=pods_of(osv),
        ),
        ev(
            "order-service",
            "info",
            "order-service 18.3.0 started (gift wrap option)",
            at=-2160,
            pods=pods_of(osv),
        ),
        ev(
            "notification-api",
            "error",
            "fcm send failed: 503 Service Unavailable (The service is currently unavailable.)",
            **every(-9600, -9200, 60),
            pods=npods,
        ),
    ]
    return kube_case(
        seed=420,
        start=start,
        inc=incident(
            "Customers not getting order notifications", "notifications", start
        ),
        exp=expected(
            "application",
            [
                "deployment/notification-api",
                "notification-api",
                "notification-api 3.0.0",
                "node:20-alpine",
                "unhandled promise rejection",
            ],
            sig,
            "notification-api 3.0.0 moved from node:14 to node:20. Since Node 15 an unhandled promise rejection terminates the process; sendPush() does not catch APNs rejections, so every BadDeviceToken answer (a stale device token, as APNs has always sent a few times an hour) now kills the process with ERR_UNHANDLED_REJECTION, exit 1. Pods restart constantly, two are in CrashLoopBackOff, and order-service's notify calls are refused and dropped. The BadDeviceToken answers are the trigger, not the cause; order-service's errors and release and the old FCM 503 are not the cause.",
            [
                f'notification-api previous log: UnhandledPromiseRejection … reason "BadDeviceToken" {sig}, Node.js v20.11.1',
                "argocd: notification-api 3.0.0 FROM node:20-alpine (was node:14-alpine)",
                "restarts 11-13 in 47 min",
            ],
            "Roll notification-api back to the node:14 build (or run with --unhandled-rejections=warn for now) and catch the APNs promise in sendPush().",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "order-service",
                pods_of(osv),
                ["POST /v1/orders 201 {ms}ms", "GET /v1/orders/{n} 200 {ms}ms"],
                8,
            )
        ],
        evs=evs,
        services=[
            svc("order-service", 90, {"500": (0.0005, 0.0008)}, (0.06, 0.07)),
            svc("notification-api", 40, {"503": (0.0005, 0.3)}, (0.02, 0.02)),
        ],
        books={
            "apns.md": runbook(
                "Push notifications not delivered",
                "If iOS pushes fail with APNs errors, the APNs auth key (p8) or its team id is wrong or revoked: check the apns-key Secret and rotate the key in the Apple developer console.",
            )
        },
    )


# =================================================================================================
# 5. Node / infrastructure: the `general` node group rolled to a new AMI release an hour ago. Two
#    of its nodes (the only ones replaced so far) hit a kernel regression: soft lockups freeze CPUs
#    for 20 s at a time, PLEG goes unhealthy and the nodes flap NotReady/Ready. The two cart-api pods
#    on them stall; the other four are fine. cart-api's own release 40 minutes ago looks guilty. The
#    incident says "cart".
# =================================================================================================

NODES_GEN = [
    *NODES_IAD,
    ("ip-10-61-1-188.us-east-1.compute.internal", "Ready", "10.61.1.188", "63m"),
    ("ip-10-61-2-57.us-east-1.compute.internal", "Ready", "10.61.2.57", "61m"),
]


@scenario("kernel-soft-lockup-new-ami")
def kernel_soft_lockup_new_ami() -> dict[str, Any]:
    start = -3000
    ns = "cart"
    ca = app(
        "cart-api",
        image="123456789012.dkr.ecr.us-east-1.amazonaws.com/cart-api:9.14.0",
        port=8080,
        rs="7d5c8b9f6",
        cluster_ip="172.20.22.10",
        pods=[
            ("b6mkq", "1/1", "Running", "0", "40m", 0),
            ("c9xwz", "1/1", "Running", "0", "40m", 1),
            ("h2ptn", "1/1", "Running", "0", "40m", 2),
            ("l5rjv", "1/1", "Running", "0", "40m", 0),
            ("q7dkc", "0/1", "Running", "2", "40m", 3),
            ("w3gzs", "1/1", "Running", "1", "40m", 4),
        ],
    )
    k8s = namespace(ns, NODES_GEN, [ca], seed=421)
    key = "kubectl get nodes -o wide"
    rows = [re.split(r"\s{2,}", line.strip()) for line in k8s[key].splitlines()]
    for r in rows:
        if r[0] in (NODES_GEN[3][0], NODES_GEN[4][0]):
            r[7:9] = ["Amazon Linux 2023.6.20261201", "6.1.119-129.201.amzn2023.x86_64"]
    k8s[key] = table(rows)
    sig = "watchdog: BUG: soft lockup - CPU#3 stuck for 23s!"
    ami = "ami-0c5e1f7a9d3b24e86"
    for idx, node in ((3, NODES_GEN[3]), (4, NODES_GEN[4])):
        text = node_describe(
            node[0],
            node[2],
            conditions={
                "Ready": (
                    "True",
                    "-240",
                    "KubeletReady",
                    "kubelet is posting ready status",
                )
            },
            pods_rows=[(ns, pod_name(ca, p[0])) for p in ca["pods"] if p[5] == idx],
            events_text=(
                "  Warning  ContainerGCFailed  12m (x3 over 48m)  kubelet          rpc error: code = DeadlineExceeded desc = context deadline exceeded\n"
                f"  Normal   NodeNotReady       9m (x4 over 52m)   node-controller  Node {node[0]} status is now: NodeNotReady\n"
                f"  Normal   NodeReady          4m (x4 over 51m)   kubelet          Node {node[0]} status is now: NodeReady\n"
            ),
        )
        k8s[f"kubectl describe nodes {node[0]}"] = retype_node(
            text,
            "m6i.2xlarge",
            -3780 if idx == 3 else -3660,
            f"eks.amazonaws.com/nodegroup=general,eks.amazonaws.com/nodegroup-image={ami}",
        ).replace(
            "Non-terminated Pods:",
            "System Info:\n  Kernel Version:             6.1.119-129.201.amzn2023.x86_64\n"
            "  OS Image:                   Amazon Linux 2023.6.20261201\n"
            "  Container Runtime Version:  containerd://1.7.23\n"
            "  Kubelet Version:            v1.31.2-eks-94953ac\n"
            "Non-terminated Pods:",
            1,
        )
    for idx in (0, 1, 2):
        node = NODES_GEN[idx]
        k8s[f"kubectl describe nodes {node[0]}"] = node_describe(
            node[0],
            node[2],
            pods_rows=[(ns, pod_name(ca, p[0])) for p in ca["pods"] if p[5] == idx],
        )
    slow = [pod_name(ca, "q7dkc"), pod_name(ca, "w3gzs")]
    name = describe_pod(
        k8s,
        ns,
        ca,
        "q7dkc",
        NODES_GEN,
        state=running(-700),
        started=-2400,
        restarts=2,
        events_rows=[
            (
                "Warning",
                "Unhealthy",
                "3m (x22 over 38m)",
                "kubelet",
                'Readiness probe failed: Get "http://10.61.1.201:8080/ready": context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
            ),
            ("Warning", "NodeNotReady", "9m", "node-controller", "Node is not ready"),
        ],
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "40m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/cart-api",
                f"Scaled up replica set cart-api-{ca['rs']} to 6",
            ),
            ("9m", "Warning", "NodeNotReady", f"Pod/{name}", "Node is not ready"),
            (
                "3m",
                "Warning",
                "Unhealthy",
                f"Pod/{name}",
                "Readiness probe failed: context deadline exceeded",
            ),
        ]
    )
    k8s["kubectl get events -n default"] = events(
        [
            (
                "9m",
                "Normal",
                "NodeNotReady",
                f"Node/{NODES_GEN[3][0]}",
                f"Node {NODES_GEN[3][0]} status is now: NodeNotReady",
            ),
            (
                "6m",
                "Normal",
                "NodeNotReady",
                f"Node/{NODES_GEN[4][0]}",
                f"Node {NODES_GEN[4][0]} status is now: NodeNotReady",
            ),
            (
                "4m",
                "Normal",
                "NodeReady",
                f"Node/{NODES_GEN[3][0]}",
                f"Node {NODES_GEN[3][0]} status is now: NodeReady",
            ),
        ]
    )
    good = [p for p in pods_of(ca) if p not in slow]
    evs = [
        ev(
            "terraform",
            "info",
            f"aws_eks_node_group.general: update in progress: release_version 1.31.2-20261118 -> 1.31.2-20261201 ({ami}, kernel 6.1.119-129.201.amzn2023), rolling 2 of 6 nodes",
            at=-3800,
        ),
        ev(
            "kernel",
            "error",
            f"kernel: {sig} [kworker/3:2:18412]",
            **every(start, -30, 200),
            labels={"host": NODES_GEN[3][0]},
        ),
        ev(
            "kernel",
            "error",
            "kernel: watchdog: BUG: soft lockup - CPU#6 stuck for 22s! [containerd-shim:9321]",
            **every(start + 100, -60, 260),
            labels={"host": NODES_GEN[4][0]},
        ),
        ev(
            "kubelet",
            "warn",
            '"Skipping pod synchronization" err="PLEG is not healthy: pleg was last seen active 3m4.118s ago; threshold is 3m0s"',
            **every(start + 200, -100, 420),
            labels={"host": NODES_GEN[3][0]},
        ),
        ev(
            "cart-api",
            "error",
            "POST /v1/cart/{n}/items 500: redis GET cart:{n} timed out after 2000ms",
            **every(start + 30, -1, 4),
            pods=slow,
        ),
        ev(
            "web-shop",
            "error",
            "GET /api/cart 502 from cart-api after 10s (upstream: cart-api.cart.svc:8080)",
            **every(start + 40, -1, 3),
        ),
        ev(
            "gitops",
            "info",
            "argocd: app cart-api synced to 9.14.0 (bundle discounts)",
            at=-2450,
            pods=good,
        ),
        ev(
            "kubelet",
            "warn",
            '"Error syncing pod, skipping" err="network is not ready: container runtime network not ready"',
            **every(-10500, -9900, 120),
            labels={"host": "ip-10-61-3-90.us-east-1.compute.internal"},
        ),
    ]
    return kube_case(
        seed=421,
        start=start,
        inc=incident("Cart errors", "cart", start, ["adding to cart fails sometimes"]),
        exp=expected(
            "platform",
            [
                f"node/{NODES_GEN[3][0]}",
                NODES_GEN[3][0],
                f"node/{NODES_GEN[4][0]}",
                NODES_GEN[4][0],
                ami,
                "1.31.2-20261201",
                "node group general",
            ],
            sig,
            f"The general node group is rolling to AMI release 1.31.2-20261201 ({ami}, kernel 6.1.119); the two nodes replaced so far hit kernel soft lockups (CPUs stuck for over 20 s), PLEG goes unhealthy and the nodes flap NotReady/Ready. The two cart-api pods on them stall (Redis calls time out, readiness fails) while the four on old nodes are fine, so adding to the cart fails sometimes. cart-api's release 9.14.0, web-shop's 502s and the old CNI error on another node are not the cause.",
            [
                f"kernel on {NODES_GEN[3][0]}: {sig}",
                "kubelet: PLEG is not healthy: pleg was last seen active 3m4s ago",
                "only cart-api pods on the two new-AMI nodes fail",
            ],
            "Stop the node group update, cordon and drain the two new nodes and roll back to release 1.31.2-20261118 until a fixed AMI is out.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "cart-api",
                good,
                ["GET /v1/cart/{n} 200 {ms}ms", "POST /v1/cart/{n}/items 200 {ms}ms"],
                8,
            )
        ],
        evs=evs,
        services=[
            svc("web-shop", 320, {"502": (0.0003, 0.02)}, (0.08, 0.3)),
            svc("cart-api", 300, {"500": (0.0005, 0.03)}, (0.02, 0.4)),
        ],
        gauges=[
            {
                "name": "node_cpu_seconds_total:steal_ratio",
                "labels": {"node": NODES_GEN[3][0]},
                "before": 0.01,
                "after": 0.01,
            },
            {
                "name": "kubelet_pleg_relist_duration_seconds:p99",
                "labels": {"node": NODES_GEN[3][0]},
                "before": 0.02,
                "after": 180.0,
            },
            {
                "name": "kubelet_pleg_relist_duration_seconds:p99",
                "labels": {"node": NODES_GEN[1][0]},
                "before": 0.02,
                "after": 0.02,
            },
        ],
        books={
            "cart-errors.md": runbook(
                "cart-api 5xx",
                "cart-api 500s with Redis timeouts: roll cart-api back to the previous release if it went out in the last hour; otherwise restart the cart-redis primary.",
            )
        },
    )


# =================================================================================================
# 6. Service routing: FinOps annotated the checkout-api Service with
#    `service.kubernetes.io/topology-mode: Auto` yesterday to cut cross-AZ traffic. The EndpointSlice
#    controller gives every endpoint a zone hint and kube-proxy on each node routes only to its own
#    zone. All ingress-nginx pods run in us-east-1a (the public node group lives in one subnet), so
#    the two checkout-api pods in 1a take all traffic at the Saturday peak while the four in 1b and
#    1c idle; the HPA's average CPU stays under target. The incident says "checkout".
# =================================================================================================


@scenario("topology-hints-follow-ingress-zone")
def topology_hints_follow_ingress_zone() -> dict[str, Any]:
    start = -2100
    ns = "shop"
    nodes = [
        *[(n, s, ip, "88d") for n, s, ip in NODES_IAD],
        ("ip-10-61-1-250.us-east-1.compute.internal", "Ready", "10.61.1.250", "88d"),
    ]
    ing = app(
        "ingress-nginx-controller",
        image="registry.k8s.io/ingress-nginx/controller:v1.11.3",
        port=443,
        rs="74d9c6b8f",
        cluster_ip="172.20.0.80",
        labels="app.kubernetes.io/name=ingress-nginx",
        pods=[
            ("5tq2k", "1/1", "Running", "0", "21d", 3),
            ("8mvwr", "1/1", "Running", "0", "21d", 3),
            ("gx4pn", "1/1", "Running", "0", "21d", 0),
        ],
    )
    co = app(
        "checkout-api",
        image="ghcr.io/petalcart/checkout-api:21.7.0",
        port=8080,
        rs="6f8d7c9b5",
        cluster_ip="172.20.31.15",
        pods=[
            ("a7nqw", "1/1", "Running", "3", "5d", 0),
            ("k2zxt", "0/1", "Running", "4", "5d", 0),
            ("d9rmc", "1/1", "Running", "0", "5d", 1),
            ("p5hvj", "1/1", "Running", "0", "5d", 1),
            ("s3bwk", "1/1", "Running", "0", "5d", 2),
            ("y6lfe", "1/1", "Running", "0", "5d", 2),
        ],
    )
    cart = app(
        "cart-api",
        image="ghcr.io/petalcart/cart-api:8.2.1",
        port=8080,
        rs="59b7c8d6f",
        cluster_ip="172.20.31.22",
        pods=[
            ("f4kpz", "1/1", "Running", "0", "3d", 0),
            ("m8wqc", "1/1", "Running", "0", "3d", 1),
            ("t1vhd", "1/1", "Running", "0", "3d", 2),
        ],
    )
    k8s = namespace("ingress-nginx", nodes, [ing], seed=422)
    k8s.update(
        namespace(ns, nodes, [co, cart], seed=422, extra_namespaces=("ingress-nginx",))
    )
    sig = "service.kubernetes.io/topology-mode: Auto"
    zone = {0: "us-east-1a", 1: "us-east-1b", 2: "us-east-1c"}
    ips = {}
    for row in k8s[f"kubectl get pods -n {ns} -o wide --show-labels"].splitlines()[1:]:
        c = row.split()
        ips[c[0]] = c[5]
    k8s[f"kubectl describe services checkout-api -n {ns}"] = (
        f"Name:                     checkout-api\nNamespace:                {ns}\nLabels:                   app=checkout-api\n"
        f"Annotations:              {sig}\nSelector:                 app=checkout-api\nType:                     ClusterIP\n"
        "IP Family Policy:         SingleStack\nIP Families:              IPv4\nIP:                       172.20.31.15\nIPs:                      172.20.31.15\n"
        "Port:                     http  8080/TCP\nTargetPort:               8080/TCP\n"
        "Endpoints:                "
        + ",".join(
            [ips[pod_name(co, p[0])] + ":8080" for p in co["pods"] if p[1] == "1/1"][:3]
        )
        + " + 2 more...\n"
        "Session Affinity:         None\nInternal Traffic Policy:  Cluster\nEvents:                   <none>\n"
    )
    for i, (nname, _st, nip, _age) in enumerate(nodes):
        on_node = [
            (ns, pod_name(a, p[0])) for a in (co, cart) for p in a["pods"] if p[5] == i
        ]
        on_node += [
            ("ingress-nginx", pod_name(ing, p[0])) for p in ing["pods"] if p[5] == i
        ]
        k8s[f"kubectl describe nodes {nname}"] = retype_node(
            node_describe(nname, nip, pods_rows=on_node),
            "m6i.2xlarge" if i < 3 else "c6in.xlarge",
            -7603200,
            f"topology.kubernetes.io/zone={zone[i % 3]}"
            + (",node-group=public-ingress" if i == 3 else ""),
        )
    hot = [pod_name(co, "a7nqw"), pod_name(co, "k2zxt")]
    eps_rows = []
    for sfx, ready, *_rest, node_i in co["pods"]:
        pn = pod_name(co, sfx)
        eps_rows.append(
            f"  - Addresses:  {ips[pn]}\n    Conditions:\n      Ready:    {'true' if ready == '1/1' else 'false'}\n"
            f"    Hostname:   <unset>\n    TargetRef:  Pod/{pn}\n    NodeName:   {nodes[node_i][0]}\n    Zone:       {zone[node_i]}\n"
            f"    Hints:\n      ForZones:  {zone[node_i]}"
        )
    k8s[f"kubectl get endpointslices -n {ns}"] = table(
        [
            ["NAME", "ADDRESSTYPE", "PORTS", "ENDPOINTS", "AGE"],
            [
                "checkout-api-x7k2p",
                "IPv4",
                "8080",
                ",".join(ips[pod_name(co, p[0])] for p in co["pods"][:3])
                + " + 3 more...",
                "311d",
            ],
            [
                "cart-api-m4q9d",
                "IPv4",
                "8080",
                ",".join(ips[pod_name(cart, p[0])] for p in cart["pods"]),
                "311d",
            ],
        ]
    )
    k8s[f"kubectl describe endpointslices checkout-api-x7k2p -n {ns}"] = (
        f"Name:         checkout-api-x7k2p\nNamespace:    {ns}\nLabels:       endpointslice.kubernetes.io/managed-by=endpointslice-controller.k8s.io\n"
        "              kubernetes.io/service-name=checkout-api\nAnnotations:  endpoints.kubernetes.io/last-change-trigger-time: 2026-12-04T17:12:40Z\n"
        "AddressType:  IPv4\nPorts:\n  Name  Port  Protocol\n  ----  ----  --------\n  http  8080  TCP\nEndpoints:\n"
        + "\n".join(eps_rows)
        + "\nEvents:  <none>\n"
    )
    k8s[f"kubectl get horizontalpodautoscalers -n {ns}"] = table(
        [
            ["NAME", "REFERENCE", "TARGETS", "MINPODS", "MAXPODS", "REPLICAS", "AGE"],
            [
                "checkout-api",
                "Deployment/checkout-api",
                "cpu: 41%/70%",
                "6",
                "20",
                "6",
                "300d",
            ],
        ]
    )
    name = describe_pod(
        k8s,
        ns,
        co,
        "k2zxt",
        nodes,
        state=running(-400),
        started=-432000,
        restarts=4,
        events_rows=[
            (
                "Warning",
                "Unhealthy",
                "2m (x41 over 34m)",
                "kubelet",
                f'Liveness probe failed: Get "http://{ips[hot[1]]}:8080/health": context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
            ),
            (
                "Normal",
                "Killing",
                "7m",
                "kubelet",
                "Container checkout-api failed liveness probe, will be restarted",
            ),
        ],
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            ("19h", "Normal", "Updated", "Service/checkout-api", "annotations changed"),
            (
                "7m",
                "Normal",
                "Killing",
                f"Pod/{name}",
                "Container checkout-api failed liveness probe, will be restarted",
            ),
            (
                "2m",
                "Warning",
                "Unhealthy",
                f"Pod/{name}",
                "Liveness probe failed: context deadline exceeded",
            ),
        ]
    )
    cold = [p for p in pods_of(co) if p not in hot]
    evs = [
        ev(
            "gitops",
            "info",
            f"argocd: app checkout-api synced (PR finops#41 'enable topology aware routing on chatty services': annotation {sig})",
            at=-68400,
        ),
        ev(
            "checkout-api",
            "warn",
            "worker pool busy: 64/64 in use, {n} requests queued, cpu throttled {ms}%",
            **every(start, -10, 20),
            pods=hot,
        ),
        ev(
            "ingress-nginx",
            "error",
            'upstream timed out (110: Operation timed out) while reading response header from upstream, request: "POST /api/checkout HTTP/2.0", upstream: "http://'
            + ips[hot[0]]
            + ':8080/api/checkout", host: "www.petalcart.com"',
            **every(start + 20, -1, 3),
            pods=pods_of(ing),
        ),
        ev(
            "checkout-api",
            "warn",
            "payment provider adyen /payments took {ms}0ms",
            **every(-6800, -40, 120),
            pods=pods_of(co),
        ),
        ev(
            "cart-api", "info", "cart-api 8.2.1 started", at=-259200, pods=pods_of(cart)
        ),
        ev(
            "checkout-api",
            "error",
            "POST /api/checkout 500: deadlock detected (SQLSTATE 40P01) on orders",
            **every(-9700, -9300, 80),
            pods=pods_of(co),
        ),
    ]
    return kube_case(
        seed=422,
        start=start,
        inc=incident("Checkout slow / timing out", "checkout", start),
        exp=expected(
            "connect",
            [
                "service/checkout-api",
                "checkout-api",
                "topology-mode",
                sig,
                "topology aware routing",
                "endpointslice/checkout-api-x7k2p",
            ],
            sig,
            "Yesterday FinOps set service.kubernetes.io/topology-mode: Auto on the checkout-api Service. Every endpoint got a zone hint and kube-proxy routes each node's traffic only to its own zone. The only callers are the ingress-nginx pods, and all of them run in us-east-1a, so the two checkout-api pods in 1a take the whole Saturday peak (queued, CPU-throttled, liveness restarts) while the four in 1b and 1c idle; the HPA's average CPU stays under target and never scales. The ingress timeouts, Adyen's latency, cart-api and the old deadlock are not the cause.",
            [
                f"Service checkout-api: {sig}; EndpointSlice hints ForZones per pod's zone",
                "ingress-nginx pods all on us-east-1a nodes; only the two 1a pods busy, restarted by liveness",
                "argocd: finops#41 enabled topology aware routing 19 h ago",
            ],
            "Remove the topology-mode annotation from checkout-api (or spread ingress-nginx across zones first).",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "checkout-api",
                cold,
                ["POST /api/checkout 200 {ms}ms", "GET /api/checkout/{n} 200 {ms}ms"],
                8,
            )
        ],
        evs=evs,
        services=[
            svc("ingress-nginx", 420, {"504": (0.0002, 0.06)}, (0.1, 1.2)),
            svc("checkout-api", 400, {"500": (0.0008, 0.001)}, (0.09, 0.9)),
        ],
        gauges=[
            {
                "name": "container_cpu_usage_ratio",
                "labels": {"pod": hot[0], "zone": "us-east-1a"},
                "before": 0.55,
                "after": 1.0,
            },
            {
                "name": "container_cpu_usage_ratio",
                "labels": {"pod": cold[0], "zone": "us-east-1b"},
                "before": 0.55,
                "after": 0.08,
            },
        ],
        books={
            "checkout-latency.md": runbook(
                "Checkout latency",
                "When checkout is slow, look at the payment provider first (adyen /payments timings); if Adyen is fine, raise checkout-api's HPA minReplicas to 10 for the peak.",
            )
        },
    )


# =================================================================================================
# 7. DNS: media-proxy 2.3.0 runs with `hostNetwork: true` (to skip the CNI for video segments) but
#    keeps the default dnsPolicy ClusterFirst, which for a host-network pod means the node's
#    resolv.conf: the VPC resolver, which knows nothing of cluster.local. media-proxy cannot resolve
#    media-origin's Service name; players get 502s. CoreDNS is healthy (and noisy about something
#    else). The incident says "video".
# =================================================================================================


@scenario("hostnetwork-without-clusterfirstwithhostnet")
def hostnetwork_without_clusterfirstwithhostnet() -> dict[str, Any]:
    start = -1200
    ns = "media"
    nodes = [(n, s, ip.replace("10.52.", "10.40."), "140d") for n, s, ip in NODES_DUB]
    nodes = [(n.replace("10-52-", "10-40-"), s, ip, a) for n, s, ip, a in nodes]
    mp = app(
        "media-proxy",
        image="quay.io/vellum/media-proxy:2.3.0",
        port=8443,
        rs="68c9f7d4b",
        cluster_ip="172.20.50.8",
        pods=[
            ("b3qkx", "1/1", "Running", "0", "21m", 0),
            ("j8wtn", "1/1", "Running", "0", "21m", 1),
            ("r4mzv", "1/1", "Running", "0", "21m", 2),
        ],
    )
    mo = app(
        "media-origin",
        image="quay.io/vellum/media-origin:7.0.2",
        port=8080,
        rs="5b7d8c6f9",
        cluster_ip="172.20.50.21",
        pods=[
            ("c6nfp", "1/1", "Running", "0", "50m", 0),
            ("x2dlq", "1/1", "Running", "0", "50m", 2),
        ],
    )
    k8s = namespace(ns, nodes, [mp, mo], seed=423)
    # host-network pods carry the node's address
    pkey = f"kubectl get pods -n {ns} -o wide --show-labels"
    rows = [r.split() for r in k8s[pkey].splitlines()]
    rows[0] = re.split(r"\s{2,}", k8s[pkey].splitlines()[0].strip())
    swap = {}
    for r in rows[1:]:
        if r[0].startswith("media-proxy-"):
            swap[r[5]] = next(ip for n, _s, ip, _a in nodes if n == r[6])
            r[5] = swap[r[5]]
    k8s[pkey] = table(rows)
    ekey = f"kubectl get endpoints -n {ns}"
    erows = [r.split() for r in k8s[ekey].splitlines()]
    for r in erows[1:]:
        r[1] = ",".join(
            swap.get(x.split(":")[0], x.split(":")[0]) + ":" + x.split(":")[1]
            for x in r[1].split(",")
        )
    k8s[ekey] = table(erows)
    sig = "lookup media-origin.media.svc.cluster.local on 10.40.0.2:53: no such host"
    cont = container_text(
        "media-proxy",
        mp["image"],
        8443,
        env={
            "ORIGIN_URL": "http://media-origin.media.svc.cluster.local:8080",
            "CACHE_DIR": "/cache",
        },
        limits="memory:  2Gi",
        requests="cpu:      2\n  memory:   2Gi",
    )
    k8s[f"kubectl describe deployments media-proxy -n {ns}"] = deployment_describe(
        "media-proxy",
        ns,
        replicas="3 desired | 3 updated | 3 total | 3 available | 0 unavailable",
        revision=18,
        containers=cont,
        conditions=[
            ("Available", "True", "MinimumReplicasAvailable"),
            ("Progressing", "True", "NewReplicaSetAvailable"),
        ],
        old_rs="media-proxy-7c4f9b8d6 (0/0 replicas created)",
        new_rs=f"media-proxy-{mp['rs']} (3/3 replicas created)",
        created=-30000000,
    ).replace(
        "  Service Account:  media-proxy\n",
        "  Service Account:  media-proxy\n  Host Network:     true\n  DNS Policy:       ClusterFirst\n",
    )
    name = describe_pod(
        k8s,
        ns,
        mp,
        "b3qkx",
        nodes,
        state=running(-1260),
        started=-1270,
        ready=True,
        events_rows=[sched(ns, pod_name(mp, "b3qkx"), nodes[0][0], "21m")],
    )
    k8s[f"kubectl logs {name} -n {ns} --tail=200"] = podlog(
        [
            (-1255, "media-proxy 2.3.0 listening on :8443 (hostNetwork)"),
            (
                -1250,
                "resolv.conf: nameserver 10.40.0.2, search eu-west-1.compute.internal",
            ),
            *[
                (-1100 + 60 * i, f"GET /v/{40811 + i}/seg-{i}.m4s 502: dial tcp: {sig}")
                for i in range(18)
            ],
        ]
    )
    k8s["kubectl get pods -n kube-system -o wide"] = table(
        [
            [
                "NAME",
                "READY",
                "STATUS",
                "RESTARTS",
                "AGE",
                "IP",
                "NODE",
                "NOMINATED NODE",
                "READINESS GATES",
            ],
            [
                "coredns-5d8f7b6c9d-4hx2q",
                "1/1",
                "Running",
                "0",
                "32d",
                "10.23.1.54",
                nodes[0][0],
                "<none>",
                "<none>",
            ],
            [
                "coredns-5d8f7b6c9d-zq7mt",
                "1/1",
                "Running",
                "0",
                "32d",
                "10.23.3.19",
                nodes[2][0],
                "<none>",
                "<none>",
            ],
            [
                "kube-proxy-8fk2l",
                "1/1",
                "Running",
                "0",
                "140d",
                nodes[0][2],
                nodes[0][0],
                "<none>",
                "<none>",
            ],
            [
                "kube-proxy-ns5vx",
                "1/1",
                "Running",
                "0",
                "140d",
                nodes[1][2],
                nodes[1][0],
                "<none>",
                "<none>",
            ],
            [
                "kube-proxy-wt9cd",
                "1/1",
                "Running",
                "0",
                "140d",
                nodes[2][2],
                nodes[2][0],
                "<none>",
                "<none>",
            ],
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "50m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/media-origin",
                "Scaled up replica set media-origin-5b7d8c6f9 to 2",
            ),
            (
                "21m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/media-proxy",
                f"Scaled up replica set media-proxy-{mp['rs']} to 3",
            ),
            (
                "20m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/media-proxy",
                "Scaled down replica set media-proxy-7c4f9b8d6 to 0 from 3",
            ),
        ]
    )
    mpp = pods_of(mp)
    evs = [
        ev(
            "gitops",
            "info",
            "argocd: app media-proxy synced to 2.3.0 (hostNetwork: true, ports 8443; PR media#219 'bypass CNI for segment traffic')",
            at=start - 60,
        ),
        ev(
            "media-proxy",
            "error",
            f"GET /v/{{n}}/seg-{{n}}.m4s 502: dial tcp: {sig}",
            **every(start + 10, -1, 4),
            pods=mpp,
        ),
        ev(
            "player-telemetry",
            "error",
            "playback failed: HTTP 502 for segment https://cdn.vellum.tv/v/{n}/seg-{n}.m4s (player 4.2.1, code MEDIA_ERR_NETWORK)",
            **every(start + 20, -1, 4),
        ),
        ev(
            "cdn",
            "warn",
            "origin fetch error 502 from media-proxy.vellum.tv for /v/{n}/ (served stale: no)",
            **every(start + 20, -1, 3),
        ),
        ev(
            "coredns",
            "error",
            "[ERROR] plugin/errors: 2 api.segment.io. AAAA: read udp 10.23.1.54:52114->10.40.0.2:53: i/o timeout",
            **every(-7000, -30, 180),
        ),
        ev(
            "media-origin",
            "info",
            "media-origin 7.0.2 started (HEVC ladder)",
            at=-3000,
            pods=pods_of(mo),
        ),
        ev(
            "media-origin",
            "error",
            "s3 GetObject vellum-masters/{n}.mp4: RequestTimeout after 20s",
            **every(-9800, -9500, 60),
            pods=pods_of(mo),
        ),
    ]
    return kube_case(
        seed=423,
        start=start,
        inc=incident(
            "Videos not playing", "video", start, ["spinner then 'playback error'"]
        ),
        exp=expected(
            "dns",
            [
                "deployment/media-proxy",
                "media-proxy",
                "media-proxy 2.3.0",
                "hostNetwork",
                "dnsPolicy",
                "ClusterFirstWithHostNet",
            ],
            sig,
            "media-proxy 2.3.0 runs with hostNetwork: true but its dnsPolicy is still ClusterFirst, which for a host-network pod falls back to the node's resolv.conf (the VPC resolver 10.40.0.2). That resolver has no cluster.local zone, so media-proxy cannot resolve media-origin.media.svc.cluster.local and answers 502 for every segment; the CDN and the players pass the 502 on. CoreDNS is healthy (its api.segment.io timeouts are unrelated), media-origin's release and the old S3 timeout are not the cause.",
            [
                f"media-proxy: {sig}",
                "Deployment media-proxy: Host Network true, DNS Policy ClusterFirst",
                "argocd: media-proxy 2.3.0 hostNetwork: true 21 min ago",
            ],
            "Set dnsPolicy: ClusterFirstWithHostNet on media-proxy (or roll back to 2.2.x without hostNetwork).",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "media-origin",
                pods_of(mo),
                [
                    "GET /masters/{n}/manifest.mpd 200 {ms}ms",
                    "GET /masters/{n}/seg 200 {ms}ms",
                ],
                8,
            )
        ],
        evs=evs,
        services=[
            svc(
                "media-proxy",
                260,
                {"502": (0.0002, 0.92)},
                (0.04, 0.004),
                change_at=start,
            ),
            svc(
                "media-origin",
                200,
                {"500": (0.0005, 0.0005)},
                (0.05, 0.05),
                rps_after=3,
            ),
        ],
        books={
            "dns-no-such-host.md": runbook(
                "'no such host' inside the cluster",
                "'no such host' for *.svc.cluster.local means CoreDNS is failing: check the coredns pods' logs for errors and restart the coredns Deployment (kubectl -n kube-system rollout restart deployment coredns).",
            )
        },
    )


# =================================================================================================
# 8. TLS: the Android app (6.14) pins the SPKI of Let's Encrypt's intermediate R10 for
#    api.plumly.app, with no backup pin. cert-manager renewed api-tls 80 minutes ago, as every 60
#    days; this time Let's Encrypt chained the leaf to R11. The certificate is valid and browsers and
#    the iOS app (no pinning) are fine; every Android request fails the pin check before it leaves
#    the phone. The incident says "app login".
# =================================================================================================


@scenario("android-pin-on-rotated-intermediate")
def android_pin_on_rotated_intermediate() -> dict[str, Any]:
    start = -4500
    ns = "edge"
    auth = app(
        "auth-service",
        image="ghcr.io/plumly/auth-service:12.1.0",
        port=8080,
        rs="79c5d8b6f",
        cluster_ip="10.100.12.40",
        pods=[
            ("g2kzp", "1/1", "Running", "0", "38m", 0),
            ("s8nwq", "1/1", "Running", "0", "38m", 1),
            ("v5xjr", "1/1", "Running", "0", "38m", 2),
        ],
    )
    api = app(
        "mobile-api",
        image="ghcr.io/plumly/mobile-api:40.2.0",
        port=8080,
        rs="6d9b7c5f8",
        cluster_ip="10.100.12.10",
        pods=[
            ("c4mtv", "1/1", "Running", "0", "6d", 0),
            ("h7pqd", "1/1", "Running", "0", "6d", 1),
            ("w1zkb", "1/1", "Running", "0", "6d", 2),
        ],
    )
    k8s = namespace(
        ns,
        NODES_PDX,
        [auth, api],
        seed=424,
        secrets=[
            ("api-tls", "kubernetes.io/tls", "2", "421d"),
            ("auth-db", "Opaque", "2", "600d"),
        ],
    )
    sig = "javax.net.ssl.SSLPeerUnverifiedException: Certificate pinning failure!"
    k8s[f"kubectl describe secrets api-tls -n {ns}"] = (
        f"Name:         api-tls\nNamespace:    {ns}\nLabels:       controller.cert-manager.io/fao=true\n"
        "Annotations:  cert-manager.io/alt-names: api.plumly.app,auth.plumly.app\n"
        "              cert-manager.io/certificate-name: api-tls\n"
        "              cert-manager.io/common-name: api.plumly.app\n"
        "              cert-manager.io/ip-sans: \n"
        "              cert-manager.io/issuer-group: cert-manager.io\n"
        "              cert-manager.io/issuer-kind: ClusterIssuer\n"
        "              cert-manager.io/issuer-name: letsencrypt-prod\n"
        "              cert-manager.io/uri-sans: \n\n"
        "Type:  kubernetes.io/tls\n\nData\n====\ntls.crt:  3578 bytes\ntls.key:  1675 bytes\n"
    )
    k8s[f"kubectl get ingresses -n {ns}"] = table(
        [
            ["NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"],
            [
                "mobile-api",
                "nginx",
                "api.plumly.app,auth.plumly.app",
                "a1f3c9e2b7d84e56.elb.us-west-2.amazonaws.com",
                "80, 443",
                "421d",
            ],
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "81m",
                "Normal",
                "Issuing",
                "Certificate/api-tls",
                "Renewing certificate as renewal was scheduled at 2026-12-05 12:39:02 +0000 UTC",
            ),
            (
                "80m",
                "Normal",
                "Issuing",
                "Certificate/api-tls",
                "The certificate has been successfully issued",
            ),
            (
                "38m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/auth-service",
                f"Scaled up replica set auth-service-{auth['rs']} to 3",
            ),
        ]
    )
    evs = [
        ev(
            "cert-manager",
            "info",
            'cert-manager/certificates-issuing "msg"="issued certificate" "key"="edge/api-tls" "issuer"="CN=R11,O=Let\'s Encrypt,C=US" "notAfter"="2027-03-05T12:39:40Z"',
            at=start - 300,
        ),
        ev(
            "mobile-telemetry",
            "error",
            f"android 6.14.2 (Pixel 8; Android 15) LoginRepository.login: {sig} Peer certificate chain: sha256/Vq2hC4kR6Qd0u3H0mU7tUaGlK8cS1mT9yq4sY0Lp2Xc=: CN=api.plumly.app sha256/kZwN96eHtZftBWrOZUsd6cA4es80n3NzSk/XtYz2EqQ=: CN=R11,O=Let's Encrypt,C=US Pinned certificates for api.plumly.app: sha256/K7rZOrXHknnsEhUH8nLL4MZkejquUuIvOIr6tCa0rbo=",
            **every(start, -1, 8),
        ),
        ev(
            "mobile-telemetry",
            "warn",
            "android login success rate {n} per-mille below 7-day baseline (ios: normal, web: normal)",
            **every(start + 300, -60, 300),
        ),
        ev(
            "auth-service",
            "error",
            "POST /oauth/token 401 invalid_grant: bad credentials for user {n} (ip 185.220.101.{ms}, 14 attempts/min)",
            **every(-7200, -1, 20),
            pods=pods_of(auth),
        ),
        ev(
            "auth-service",
            "info",
            "auth-service 12.1.0 started (passkey enrolment behind flag)",
            at=-2280,
            pods=pods_of(auth),
        ),
        ev(
            "ingress-nginx",
            "error",
            'connect() failed (111: Connection refused) while connecting to upstream, upstream: "http://10.24.2.61:8080/oauth/token", host: "auth.plumly.app"',
            **every(-10200, -9900, 30),
        ),
    ]
    return kube_case(
        seed=424,
        start=start,
        inc=incident("Users can't log in on the app", "app login", start),
        exp=expected(
            "tls",
            [
                "android app 6.14",
                "mobile-app",
                "certificate pin",
                "api-tls",
                "secret/api-tls",
                "R11",
                "letsencrypt-prod",
            ],
            sig,
            "The Android app pins only the SPKI of Let's Encrypt's intermediate R10 for api.plumly.app. cert-manager renewed api-tls 80 minutes ago as scheduled and Let's Encrypt chained the new leaf to R11, so every Android request fails OkHttp's pin check on the phone (Certificate pinning failure!) and never reaches the servers; browsers and the iOS app, which do not pin, are fine. auth-service's invalid_grant errors (a credential-stuffing source), its release and the old ingress connect error are not the cause.",
            [
                f"mobile-telemetry: {sig} … CN=R11 … Pinned certificates for api.plumly.app",
                "cert-manager: api-tls issued by CN=R11 80 min ago",
                "android login rate down, iOS and web normal",
            ],
            "Ship an app build pinning the Let's Encrypt root (ISRG Root X1) or several intermediates; until then serve api.plumly.app with a certificate from a CA whose chain matches the pin, or remote-disable pinning via the config flag.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "mobile-api",
                pods_of(api),
                [
                    "GET /v2/feed 200 {ms}ms ua=ios/6.14.0",
                    "GET /v2/feed 200 {ms}ms ua=web",
                ],
                8,
            ),
            bg(
                "auth-service",
                pods_of(auth),
                [
                    "POST /oauth/token 200 {ms}ms client=ios",
                    "POST /oauth/token 200 {ms}ms client=web",
                ],
                10,
            ),
        ],
        evs=evs,
        services=[
            svc("auth-service", 60, {"401": (0.08, 0.08)}, (0.09, 0.09), rps_after=38),
            svc(
                "mobile-api",
                300,
                {"500": (0.0004, 0.0004)},
                (0.05, 0.05),
                rps_after=160,
            ),
        ],
        books={
            "login-failures.md": runbook(
                "Login failures",
                "A drop in logins is usually auth-service: check its 401 rate and the auth-db connection pool; if invalid_grant spikes, enable the bot rule in the WAF.",
            )
        },
    )


# =================================================================================================
# 9. Third-party limit: marketing imported a five-year-old list (410k addresses) into the newsletter
#    tool, which sends through the same Amazon SES account as the product. The bounce rate jumped to
#    11 %; AWS paused sending for the whole account. Password-reset and sign-in code emails fail with
#    MessageRejected. The incident says "login".
# =================================================================================================


@scenario("ses-account-paused-by-list-import")
def ses_account_paused_by_list_import() -> dict[str, Any]:
    start = -2700
    mail = ["mail-worker-1", "mail-worker-2"]
    idp = ["identity-api-7c9d-2kq", "identity-api-7c9d-8wz", "identity-api-7c9d-p4m"]
    sig = "MessageRejected: Sending paused for this account. For more information, please check the AWS Personal Health Dashboard."
    evs = [
        ev(
            "newsletter",
            "info",
            "import 'reactivation-2019.csv' finished: 410,233 contacts added to list 'reactivation' (source: legacy CRM export); campaign 'We miss you' scheduled now",
            at=start - 3000,
        ),
        ev(
            "newsletter",
            "info",
            "campaign 'We miss you': {n} sent via SES (configuration set marketing)",
            **every(start - 2900, start - 300, 120),
        ),
        ev(
            "ses",
            "warn",
            "SES account 4471-0982-1123 eu-west-1: Bounce rate 11.2% (threshold for review 5%, pause 10%)",
            at=start - 600,
        ),
        ev(
            "ses",
            "error",
            "SES account 4471-0982-1123 eu-west-1: sending status changed to PAUSED (reason: bounce rate)",
            at=start - 30,
        ),
        ev(
            "mail-worker",
            "error",
            f"send template=password_reset to=<redacted> failed: {sig}",
            **every(start, -1, 12),
            pods=mail,
        ),
        ev(
            "mail-worker",
            "error",
            f"send template=signin_code to=<redacted> failed: {sig}",
            **every(start + 3, -1, 18),
            pods=mail,
        ),
        ev(
            "identity-api",
            "warn",
            "password reset requested again for user {n} within 5 min (3rd time)",
            **every(start + 300, -1, 10),
            pods=idp,
        ),
        ev(
            "identity-api",
            "error",
            "POST /v1/signin/code 500: email delivery not confirmed within 30s for user {n}",
            **every(start + 200, -1, 8),
            pods=idp,
        ),
        ev(
            "identity-api",
            "info",
            "identity-api 3.22.0 deployed (captcha on sign-up)",
            at=-3300,
            pods=idp,
        ),
        ev(
            "recommendations",
            "error",
            "feature store timeout after 200ms (model reco-v41), serving fallback",
            **every(-7000, -5, 20),
        ),
        ev(
            "mail-worker",
            "error",
            "smtp connect email-smtp.eu-west-1.amazonaws.com:587 timed out after 10s",
            **every(-9900, -9600, 60),
            pods=mail,
        ),
    ]
    return simple(
        425,
        start,
        incident(
            "Password reset emails not arriving",
            "login",
            start,
            ["users say the reset email never comes"],
        ),
        expected(
            "http",
            [
                "ses",
                "amazon ses",
                "ses account 4471-0982-1123",
                "newsletter",
                "reactivation-2019.csv",
                "bounce rate",
            ],
            sig,
            "Marketing imported a five-year-old contact list (reactivation-2019.csv, 410k addresses) into the newsletter tool, which sends through the product's Amazon SES account. The campaign bounced at 11 %, above SES's 10 % pause threshold, and AWS paused sending for the whole account, so password-reset and sign-in code emails are rejected (MessageRejected: Sending paused). identity-api's errors, its release, recommendations' timeouts and the old SMTP timeout are not the cause.",
            [
                f"mail-worker: {sig}",
                "ses: bounce rate 11.2 %, sending status PAUSED",
                "newsletter: import reactivation-2019.csv 410,233 contacts, campaign sent",
            ],
            "Stop the campaign, ask AWS to lift the pause with a remediation plan, move marketing to its own SES account / configuration set; meanwhile send transactional mail through the backup provider.",
        ),
        [
            bg(
                "identity-api",
                idp,
                ["POST /v1/signin 200 {ms}ms", "GET /v1/session 200 {ms}ms"],
                8,
            ),
            bg(
                "mail-worker",
                mail,
                ["send template=order_confirmation queued id {n}"],
                20,
                until=start,
            ),
        ],
        evs,
        [
            svc("identity-api", 80, {"500": (0.0004, 0.03)}, (0.06, 0.07)),
            svc("mail-worker", 6, {"500": (0.0, 1.0)}, (0.12, 0.05)),
        ],
        [
            {
                "name": "aws_ses_reputation_bounce_rate",
                "labels": {"account": "4471-0982-1123"},
                "before": 0.012,
                "after": 0.112,
                "change_at": start - 600,
            },
            {
                "name": "aws_ses_sending_enabled",
                "labels": {"account": "4471-0982-1123"},
                "before": 1,
                "after": 0,
                "change_at": start - 30,
            },
        ],
        {
            "reset-email.md": runbook(
                "Reset emails not arriving",
                "When users do not get reset emails, the mail-worker queue is stuck: check the mail-jobs queue depth and restart mail-worker-1 and mail-worker-2.",
            )
        },
    )


# =================================================================================================
# 10. Network delay: a Puppet change meant for CI agents (`profile::proxy`, HTTPS_PROXY pointing at
#     the squid proxy in the other data centre) was applied to the `base` role. After their nightly
#     restart the checkout VMs send every call to the card processor through squid in dc1: +180 ms
#     per call, four calls per order, then squid's own connection limit. No error at first. The
#     incident says "checkout".
# =================================================================================================


@scenario("egress-proxy-env-applied-fleetwide")
def egress_proxy_env_applied_fleetwide() -> dict[str, Any]:
    start = -3300
    co = ["checkout-svc-01.dc2", "checkout-svc-02.dc2", "checkout-svc-03.dc2"]
    sig = "TCP_TUNNEL/200"
    evs = [
        ev(
            "puppet",
            "info",
            "Applied catalog in 41.2 seconds: Class[Profile::Proxy] (HTTPS_PROXY=http://proxy.dc1.kestrel.net:3128 in /etc/environment) now included by role::base (commit 8c41e2a 'proxy for build agents')",
            at=-26000,
            labels={"host": "checkout-svc-01.dc2"},
        ),
        ev(
            "systemd",
            "info",
            "checkout-svc.service: Scheduled restart (nightly) — Started Checkout service.",
            at=start - 200,
            pods=co,
        ),
        ev(
            "squid",
            "info",
            "1733407{n}.112 {ms}4 10.42.8.21 TCP_TUNNEL/200 6120 CONNECT api.paystream.com:443 - HIER_DIRECT/52.17.88.4 -",
            **every(start, -1, 5),
            labels={"host": "proxy.dc1.kestrel.net"},
        ),
        ev(
            "checkout-svc",
            "info",
            "order {n}: paystream authorize 3 calls, 742ms total (p50 was 190ms)",
            **every(start + 60, -5, 10),
            pods=co,
        ),
        ev(
            "squid",
            "warn",
            "WARNING! Your cache is running out of filedescriptors (max_filedescriptors 4096 in use 4061)",
            **every(start + 1800, -30, 240),
            labels={"host": "proxy.dc1.kestrel.net"},
        ),
        ev(
            "checkout-svc",
            "error",
            "paystream authorize failed: java.net.SocketTimeoutException: Read timed out (via proxy.dc1.kestrel.net:3128) after 3000ms",
            **every(start + 1900, -2, 8),
            pods=co,
        ),
        ev(
            "web-frontend",
            "error",
            "POST /checkout/confirm 504 Gateway Timeout from checkout-svc after 10s",
            **every(start + 1950, -1, 3),
        ),
        ev(
            "paystream-status",
            "warn",
            "Paystream status: 'Elevated latency for 3-D Secure in APAC' (investigating)",
            **every(-5400, -60, 900),
        ),
        ev(
            "checkout-svc",
            "info",
            "checkout-svc 2026.49.1 released (gift card balance check)",
            at=-6000,
            pods=co,
        ),
        ev(
            "checkout-svc",
            "error",
            "ERROR: deadlock detected — Process 8812 waits for ShareLock on transaction 77120921",
            **every(-10100, -9800, 90),
            pods=co,
        ),
    ]
    return simple(
        426,
        start,
        incident("Checkout slow, some timeouts", "checkout", start),
        expected(
            "connect",
            [
                "profile::proxy",
                "HTTPS_PROXY",
                "proxy.dc1.kestrel.net",
                "squid",
                "puppet",
                "role::base",
            ],
            sig,
            "A Puppet change meant for CI agents put HTTPS_PROXY=http://proxy.dc1.kestrel.net:3128 into /etc/environment of every host in role::base. After the nightly restart checkout-svc picked it up and sends every call to Paystream through squid in the other data centre: about +180 ms per call and three calls per order, then squid runs out of file descriptors and calls time out. Paystream's APAC 3-D Secure notice, web-frontend's 504s, checkout-svc's release and the old deadlock are not the cause.",
            [
                f"squid in dc1: {sig} CONNECT api.paystream.com:443 from the checkout hosts",
                "puppet: Profile::Proxy included by role::base (commit 8c41e2a)",
                "checkout: paystream authorize 742 ms total, was 190 ms",
            ],
            "Revert commit 8c41e2a (include profile::proxy only in role::ci_agent), remove HTTPS_PROXY from the checkout hosts and restart checkout-svc.",
        ),
        [
            bg(
                "checkout-svc",
                co,
                ["POST /orders/{n}/confirm 200 {ms}ms", "GET /orders/{n} 200 {ms}ms"],
                8,
            )
        ],
        evs,
        [
            svc("web-frontend", 120, {"504": (0.0002, 0.03)}, (0.35, 1.6)),
            svc("checkout-svc", 110, {"500": (0.0004, 0.02)}, (0.3, 1.4)),
        ],
        [
            {
                "name": "squid_client_http_requests",
                "labels": {"host": "proxy.dc1.kestrel.net"},
                "before": 40,
                "after": 410,
            },
            {
                "name": "paystream_request_duration_seconds:p50",
                "labels": {"service": "checkout-svc"},
                "before": 0.06,
                "after": 0.245,
            },
        ],
        {
            "checkout-slow.md": runbook(
                "Checkout slow",
                "Slow checkout is usually the card processor: check status.paystream.com and, during a Paystream incident, switch PSP_PRIMARY to adyen in the checkout config.",
            )
        },
    )


# =================================================================================================
# 11. Config change: a refactor of the edge nginx config moved `real_ip_header CF-Connecting-IP` and
#     the Cloudflare `set_real_ip_from` ranges into cloudflare.conf, which nothing includes. Behind
#     Cloudflare, $binary_remote_addr is now a Cloudflare edge address, shared by thousands of
#     visitors, and the per-IP limit (20 r/s) answers 429 to many real users. The incident says
#     "website". netcheck sees the 429.
# =================================================================================================


@scenario("real-ip-include-dropped-per-ip-limit")
def real_ip_include_dropped_per_ip_limit() -> dict[str, Any]:
    start = -1800
    edge = ["edge-nginx-1", "edge-nginx-2"]
    sig = "limiting requests, excess: 20."
    evs = [
        ev(
            "deploy",
            "info",
            "edge-nginx config v88 rolled to edge-nginx-1, edge-nginx-2 (MR web-edge!412 'split nginx.conf into conf.d snippets'; nginx -t ok; reload)",
            at=start - 90,
        ),
        ev(
            "edge-nginx",
            "error",
            '2026/12/05 13:30:{n} [error] 3314#3314: *{n} limiting requests, excess: 20.{ms}0 by zone "per_ip", client: 172.70.{ms}.{ms}, server: www.tallowshop.com, request: "GET /collections/{n} HTTP/2.0", host: "www.tallowshop.com"',
            **every(start + 5, -1, 4),
            pods=edge,
        ),
        ev(
            "edge-nginx",
            "info",
            '172.70.{ms}.{ms} - - "GET /products/{n} HTTP/2.0" 429 169 "-" "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X)" cf_connecting_ip=81.{ms}.{ms}.{ms}',
            **every(start + 5, -1, 8),
            pods=edge,
        ),
        ev(
            "storefront",
            "info",
            "storefront 9.3.0 deployed (new product card)",
            at=-2900,
        ),
        ev(
            "waf",
            "info",
            "Cloudflare WAF: blocked {n} requests from AhrefsBot (rule 100015, bot management)",
            **every(-7000, -60, 300),
        ),
        ev(
            "storefront",
            "warn",
            "upstream cart-api slow: {ms}0ms",
            **every(-6000, -30, 200),
        ),
        ev(
            "edge-nginx",
            "error",
            '[error] 3314#3314: *{n} connect() failed (111: Connection refused) while connecting to upstream, upstream: "http://10.8.2.14:3000/"',
            **every(-9900, -9700, 40),
            pods=edge,
        ),
    ]
    spec = simple(
        427,
        start,
        incident(
            "Website errors", "website", start, ["customers see 'too many requests'"]
        ),
        expected(
            "http",
            [
                "edge-nginx",
                "per_ip",
                "real_ip_header",
                "set_real_ip_from",
                "cloudflare.conf",
                "edge-nginx config v88",
            ],
            sig,
            "The edge nginx config v88 split nginx.conf into snippets and left real_ip_header CF-Connecting-IP and the Cloudflare set_real_ip_from ranges in cloudflare.conf, which nothing includes. Behind Cloudflare, $binary_remote_addr is now the Cloudflare edge address, shared by many visitors, so the per_ip limit (20 r/s) answers 429 to real users. The storefront release, the WAF's bot blocks, cart-api's latency and the old connection refused are not the cause.",
            [
                f'edge-nginx: {sig}… by zone "per_ip", client: 172.70.x.x (a Cloudflare address)',
                "deploy: edge-nginx config v88 'split nginx.conf into conf.d snippets'",
                "access log: 429 with a different cf_connecting_ip per line",
            ],
            "Include cloudflare.conf again (real_ip_header CF-Connecting-IP, set_real_ip_from the Cloudflare ranges) and reload, or roll back to v87.",
        ),
        [
            bg(
                "storefront",
                ["storefront-a", "storefront-b"],
                ["GET /products/{n} 200 {ms}ms", "GET /collections/{n} 200 {ms}ms"],
                8,
            )
        ],
        evs,
        [
            svc("edge-nginx", 900, {"429": (0.0005, 0.34)}, (0.04, 0.03)),
            svc(
                "storefront",
                880,
                {"500": (0.0005, 0.0005)},
                (0.05, 0.05),
                rps_after=590,
            ),
        ],
        [],
        {
            "429s.md": runbook(
                "429 Too Many Requests",
                "A burst of 429s at the edge means a bot or scraping attack: turn on Cloudflare 'Under Attack' mode for www.tallowshop.com and add the offending ASN to the WAF block list.",
            )
        },
    )
    spec["targets"] = [
        {
            "name": "www",
            "url": "https://www.tallowshop.com/collections/winter",
            "fault": {
                "kind": "http_status",
                "status": 429,
                "body": "<html>\r\n<head><title>429 Too Many Requests</title></head>\r\n<body>\r\n<center><h1>429 Too Many Requests</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n",
                "headers": {
                    "Content-Type": "text/html",
                    "Server": "cloudflare",
                    "CF-RAY": "8ec1f2a37b5d41e2-FRA",
                },
            },
        },
        {
            "name": "storefront-direct",
            "url": "http://storefront-a.internal.tallowshop.com/healthz",
            "fault": {"kind": "ok"},
        },
    ]
    spec["expected"]["root_cause_probe"] = "www"
    spec["expected"]["netcheck"] = {
        "www": {"failed_layer": "http", "reason": "http_429"},
        "storefront-direct": {"failed_layer": "none", "reason": None},
    }
    return spec


# =================================================================================================
# 12. Quiet root cause, louder victims: the orders CDC pipeline (Debezium, connector orders-cdc) was
#     decommissioned nine days ago; Kafka Connect's connector was deleted but its logical
#     replication slot on orders-pg was not. The slot pins all WAL since then. Only a daily
#     monitoring warning says so. Tonight's price import (a big write, the trigger) pushes the WAL
#     volume to 100 %; the primary PANICs and restarts in a loop. The incident says "orders".
# =================================================================================================


@scenario("abandoned-replication-slot-fills-wal")
def abandoned_replication_slot_fills_wal() -> dict[str, Any]:
    start = -1500
    oa = ["order-api-5f7c-4kq", "order-api-5f7c-9mz", "order-api-5f7c-x2w"]
    sig = "slot debezium_orders (logical, pgoutput) active=false"
    evs = [
        ev(
            "kafka-connect",
            "info",
            "DELETE /connectors/orders-cdc 204 (ticket DATA-1182 'decommission orders CDC, replaced by outbox')",
            at=-777600,
        ),
        ev(
            "pg-monitor",
            "warn",
            f"check_pg_replication_slots orders-pg: {sig}, retained WAL {{n}} MB (warn > 50 GB)",
            **every(-86400 * 1 + 3600, -300, 3600),
        ),
        ev(
            "price-import",
            "info",
            "nightly price import: {n} rows upserted into catalog.prices (batch 50000)",
            **every(start - 1800, start, 120),
        ),
        ev(
            "orders-pg",
            "warn",
            "LOG:  checkpoints are occurring too frequently (11 seconds apart)",
            **every(start - 1700, start, 300),
        ),
        ev(
            "orders-pg",
            "error",
            'PANIC:  could not write to file "pg_wal/xlogtemp.51217": No space left on device',
            **every(start, -60, 240),
        ),
        ev(
            "orders-pg",
            "info",
            "LOG:  database system was interrupted; last known up at 2026-12-05 13:35:02 UTC — redo starts at 3A1/4C000028",
            **every(start + 20, -40, 240),
        ),
        ev(
            "order-api",
            "error",
            "POST /orders 500: org.postgresql.util.PSQLException: FATAL: the database system is in recovery mode",
            **every(start + 25, -1, 5),
            pods=oa,
        ),
        ev(
            "checkout-web",
            "error",
            "place order failed: order-api 500 (x-request-id {n})",
            **every(start + 30, -1, 6),
        ),
        ev(
            "orders-pg",
            "info",
            'LOG:  automatic vacuum of table "orders.public.order_lines": index scans: 1',
            **every(-7000, -200, 600),
        ),
        ev(
            "order-api",
            "info",
            "order-api 6.40.0 deployed (delivery slot picker)",
            at=-3000,
            pods=oa,
        ),
        ev(
            "order-api",
            "error",
            "HikariPool-1 - Connection is not available, request timed out after 30000ms",
            **every(-10000, -9700, 60),
            pods=oa,
        ),
    ]
    return simple(
        428,
        start,
        incident("Orders failing", "orders", start),
        expected(
            "application",
            [
                "orders-pg",
                "debezium_orders",
                "replication slot",
                "orders-cdc",
                "pg_wal",
            ],
            sig,
            "The orders CDC connector (orders-cdc) was deleted nine days ago, but its logical replication slot debezium_orders on orders-pg was left behind, inactive. An inactive slot keeps all WAL since its last confirmed position, so pg_wal grew for nine days (a daily monitoring warning said so). Tonight's price import wrote the last gigabytes: the WAL volume is full, the primary PANICs (No space left on device), recovers and fails again, and order-api's writes fail. The price import is the trigger, not the cause; order-api's errors and release, checkpoint and autovacuum lines and the old Hikari timeout are not the cause.",
            [
                f"pg-monitor: {sig}, retained WAL growing daily",
                'orders-pg: PANIC: could not write to file "pg_wal/xlogtemp…": No space left on device',
                "kafka-connect: connector orders-cdc deleted 9 days ago",
            ],
            "Drop the slot (SELECT pg_drop_replication_slot('debezium_orders')), let a checkpoint recycle WAL (grow the volume first if the server cannot start), and alert on inactive slots.",
        ),
        [
            bg(
                "order-api",
                oa,
                ["GET /orders/{n} 200 {ms}ms", "POST /orders 201 {ms}ms"],
                8,
                until=start,
            )
        ],
        evs,
        [
            svc("checkout-web", 70, {"500": (0.0005, 0.6)}, (0.2, 0.1)),
            svc("order-api", 65, {"500": (0.0005, 0.9)}, (0.05, 0.02)),
        ],
        [
            {
                "name": "node_filesystem_avail_bytes",
                "labels": {
                    "host": "orders-pg-1",
                    "mountpoint": "/var/lib/postgresql/wal",
                },
                "before": 2.1e10,
                "after": 0,
                "change_at": start,
            },
            {
                "name": "pg_replication_slots_retained_wal_bytes",
                "labels": {"slot": "debezium_orders", "active": "false"},
                "before": 4.7e11,
                "after": 4.9e11,
                "change_at": start - 1800,
            },
        ],
        {
            "db-disk-full.md": runbook(
                "Database disk full",
                "When a Postgres volume fills up, delete old server logs in /var/log/postgresql and old base backups, then extend the EBS volume and the filesystem.",
            )
        },
    )


# =================================================================================================
# 13. Shared back end: analytics published a Grafana dashboard 'Seller GMV live' on the shared
#     Elasticsearch cluster es-shared, with a terms aggregation over seller_id (size 50000) across
#     30 daily indices, refreshing every 10 s for each open browser. The search thread pools fill
#     and reject; product search (same cluster) gets 429 / 503. The incident says "search".
# =================================================================================================


@scenario("grafana-dashboard-saturates-shared-es")
def grafana_dashboard_saturates_shared_es() -> dict[str, Any]:
    start = -2000
    sa = ["search-api-6c8d-1kx", "search-api-6c8d-7pw", "search-api-6c8d-zq3"]
    sig = '"terms":{"field":"seller_id","size":50000}'
    evs = [
        ev(
            "grafana",
            "info",
            "dashboard 'Seller GMV live' (uid seller-gmv-live) saved by analytics-team, refresh 10s, datasource es-shared",
            at=start - 400,
        ),
        ev(
            "grafana",
            "info",
            "dashboard seller-gmv-live viewed by {n} (open sessions now 14)",
            **every(start - 300, -60, 240),
        ),
        ev(
            "es-shared",
            "warn",
            '[index.search.slowlog.query] [es-shared-data-2] [orders-2026.12.04][2] took[14.2s], took_millis[14213], total_hits[9834120], search_type[QUERY_THEN_FETCH], total_shards[90], source[{"size":0,"aggs":{"by_seller":{'
            + sig
            + ',"aggs":{"gmv":{"sum":{"field":"amount"}}}}}}], id[grafana-seller-gmv-live]',
            **every(start, -5, 10),
        ),
        ev(
            "es-shared",
            "error",
            "rejected execution of org.elasticsearch.action.search.SearchTransportService on EsThreadPoolExecutor[name = es-shared-data-2/search, queue capacity = 1000, active threads = 13, queued tasks = 1000]",
            **every(start + 60, -1, 3),
        ),
        ev(
            "search-api",
            "error",
            "GET /v1/search?q={n} 503: es_rejected_execution_exception: rejected execution of ... on EsThreadPoolExecutor[name = es-shared-data-2/search, queue capacity = 1000]",
            **every(start + 60, -1, 5),
            pods=sa,
        ),
        ev(
            "search-api",
            "warn",
            "es query products took {ms}00ms (timeout 2s)",
            **every(start, -2, 6),
            pods=sa,
        ),
        ev(
            "log-ingest",
            "warn",
            "bulk to es-shared: {n} docs, 3 retries (429 Too Many Requests)",
            **every(start + 200, -10, 60),
        ),
        ev(
            "search-api",
            "info",
            "search-api 4.11.0 deployed (synonyms for 'hoodie')",
            at=-2700,
            pods=sa,
        ),
        ev(
            "es-shared",
            "warn",
            "[es-shared-master-1] node-left {es-shared-data-3}, reason: disconnected; node-join after 41s",
            at=-9800,
        ),
    ]
    return simple(
        429,
        start,
        incident("Search broken", "search", start, ["search results page errors"]),
        expected(
            "application",
            [
                "grafana",
                "seller-gmv-live",
                "Seller GMV live",
                "es-shared",
                "seller_id aggregation",
            ],
            sig,
            "Analytics published the Grafana dashboard 'Seller GMV live' on the shared Elasticsearch cluster es-shared: a terms aggregation over seller_id with size 50000 across 30 daily order indices, refreshed every 10 s by each of 14 open sessions. Each query takes about 14 s and holds search threads; the data nodes' search queues fill and reject, so product search (same cluster) gets es_rejected_execution_exception and answers 503, and log ingestion is throttled. search-api's errors and release, log-ingest's retries and the old node disconnect are not the cause.",
            [
                f"es-shared slowlog: took[14.xs] source[… {sig} …] id[grafana-seller-gmv-live]",
                "es-shared: rejected execution … search, queue capacity = 1000",
                "grafana: dashboard seller-gmv-live saved with refresh 10s shortly before",
            ],
            "Disable the dashboard's auto-refresh (or delete the panel), cancel the running tasks, and move analytics dashboards to a replica cluster or a rolled-up index.",
        ),
        [
            bg(
                "search-api",
                sa,
                ["GET /v1/search?q={n} 200 {ms}ms", "GET /v1/suggest?q={n} 200 {ms}ms"],
                8,
            )
        ],
        evs,
        [
            svc("search-api", 210, {"503": (0.0002, 0.31)}, (0.06, 1.8)),
            svc("es-shared", 600, {"429": (0.0, 0.22)}, (0.02, 0.9)),
        ],
        [
            {
                "name": "elasticsearch_thread_pool_queue_count",
                "labels": {"node": "es-shared-data-2", "type": "search"},
                "before": 2,
                "after": 1000,
            },
            {
                "name": "elasticsearch_thread_pool_rejected_count",
                "labels": {"node": "es-shared-data-2", "type": "search"},
                "before": 0,
                "after": 38000,
            },
        ],
        {
            "search-503.md": runbook(
                "Search 503",
                "search-api 503s with es_rejected_execution_exception mean the product index needs more replicas: raise number_of_replicas of products to 3 and restart search-api.",
            )
        },
    )


# =================================================================================================
# 14. Performance: the new hardened golden image (CIS, golden-rhel9-2026.12) sets
#     securerandom.source=file:/dev/random in the JRE's java.security. account-portal's Tomcat seeds
#     its session id generator from it at the first login on each new VM; on freshly booted VMs with
#     little entropy that blocks for tens of seconds. The morning scale-out (the trigger) launches
#     three new instances from the new image; logins hitting them hang. The incident says "my account".
# =================================================================================================


@scenario("securerandom-blocking-golden-image")
def securerandom_blocking_golden_image() -> dict[str, Any]:
    start = -2400
    old = ["acct-portal-i-0a1f", "acct-portal-i-0b7c"]
    new = ["acct-portal-i-0e42", "acct-portal-i-0f19", "acct-portal-i-0c88"]
    sig = "Creation of SecureRandom instance for session ID generation using [SHA1PRNG] took"
    evs = [
        ev(
            "packer",
            "info",
            "golden-rhel9-2026.12 (ami-07d2c4e9f1a5b3c86) published: CIS level 2 hardening, java-17-openjdk 17.0.13, java.security securerandom.source=file:/dev/random",
            at=-190000,
        ),
        ev(
            "terraform",
            "info",
            "aws_launch_template.account_portal: image_id -> ami-07d2c4e9f1a5b3c86 (golden-rhel9-2026.12); existing instances unchanged",
            at=-100000,
        ),
        ev(
            "autoscaling",
            "info",
            "account-portal-asg: Launching 3 new EC2 instances (scheduled action 'morning-peak', desired 2 -> 5)",
            at=start - 180,
        ),
        ev(
            "account-portal",
            "warn",
            f"org.apache.catalina.util.SessionIdGeneratorBase.createSecureRandom {sig} [4{{ms}},{{ms}}1] milliseconds.",
            **every(start + 60, -30, 90),
            pods=new,
        ),
        ev(
            "account-portal",
            "info",
            "POST /login 302 4{ms}13ms session=new",
            **every(start + 60, -2, 8),
            pods=new,
        ),
        ev(
            "alb",
            "error",
            'elb_status_code=504 target_status_code=- request="POST https://account.corbel.bank:443/login HTTP/2.0" target_processing_time=-1 (target acct-portal-i-0e42)',
            **every(start + 90, -1, 4),
        ),
        ev(
            "account-portal",
            "info",
            "kernel: random: crng init done (after 74 s)",
            at=start - 60,
            pods=new,
        ),
        ev(
            "ldap",
            "warn",
            'conn={n} op=2 BIND dn="uid={n},ou=people,dc=corbel" etime=0.{ms}1 (slow bind)',
            **every(-7000, -20, 120),
        ),
        ev(
            "account-portal",
            "info",
            "account-portal-web 2.14.0 deployed to CloudFront (new statements page)",
            at=-3200,
        ),
        ev(
            "account-portal",
            "error",
            "java.net.SocketTimeoutException: Read timed out calling statements-svc/v2/statements",
            **every(-9900, -9500, 90),
            pods=old,
        ),
    ]
    return simple(
        430,
        start,
        incident(
            "My account login very slow",
            "my account",
            start,
            ["login spins for a minute"],
        ),
        expected(
            "application",
            [
                "account-portal",
                "golden-rhel9-2026.12",
                "ami-07d2c4e9f1a5b3c86",
                "securerandom.source",
                "/dev/random",
                "java.security",
            ],
            sig,
            "The new golden image golden-rhel9-2026.12 sets securerandom.source=file:/dev/random in java.security. account-portal's Tomcat seeds its session id generator at the first session on each JVM, and on freshly booted VMs /dev/random blocks until enough entropy is gathered: 40-odd seconds. The morning scale-out launched three instances from the new image (the old two are fine); logins routed to them hang and the ALB times out. The scale-out is the trigger, not the cause; LDAP's slow binds, the web front-end release and the old statements timeout are not the cause.",
            [
                f"account-portal on the new instances: {sig} [4x,xxx] milliseconds",
                "packer: golden-rhel9-2026.12 java.security securerandom.source=file:/dev/random",
                "only the three instances launched this morning are slow",
            ],
            "Set securerandom.source=file:/dev/urandom (or -Djava.security.egd=file:/dev/urandom) in the image and relaunch the new instances; roll the launch template back meanwhile.",
        ),
        [
            bg(
                "account-portal",
                old + new,
                [
                    "GET /account/overview 200 {ms}ms",
                    "GET /account/statements 200 {ms}ms",
                ],
                8,
            )
        ],
        evs,
        [
            svc("alb", 150, {"504": (0.0001, 0.05)}, (0.12, 2.5)),
            svc("account-portal", 140, {"500": (0.0003, 0.0005)}, (0.1, 2.2)),
        ],
        [
            {
                "name": "node_entropy_available_bits",
                "labels": {"instance": "acct-portal-i-0e42"},
                "before": 3200,
                "after": 20,
            }
        ],
        {
            "login-slow.md": runbook(
                "Slow logins",
                "Slow logins are LDAP: check bind etime on the ldap servers and fail over to ldap-2 if binds take more than 200 ms.",
            )
        },
    )


# =================================================================================================
# 15. Resource exhaustion: three weeks ago a DBA changed pg_partman's part_config for
#     activity.events from monthly to hourly partitions (to make retention drops cheaper). The table
#     now has over 14,000 partitions. Queries without a time predicate (the activity feed's "older
#     items" page, and the weekly digest job that starts at 14:00, the trigger) lock every partition
#     and run out of the shared lock table. The incident says "activity feed".
# =================================================================================================


@scenario("hourly-partitions-exhaust-lock-table")
def hourly_partitions_exhaust_lock_table() -> dict[str, Any]:
    start = -1200
    fa = ["feed-api-78c9-2hd", "feed-api-78c9-6kw", "feed-api-78c9-t5q"]
    sig = "ERROR:  out of shared memory"
    evs = [
        ev(
            "dba-changes",
            "info",
            "UPDATE partman.part_config SET partition_interval = '1 hour', premake = 168 WHERE parent_table = 'activity.events' (CHG-7731 'cheaper retention drops'; by dba oksana)",
            at=-1814400,
        ),
        ev(
            "events-db",
            "info",
            "partman: run_maintenance created {n} partitions for activity.events (total 14{ms}2)",
            **every(-7000, -60, 3600),
        ),
        ev(
            "digest-job",
            "info",
            "weekly digest started: 2.1M users, 16 workers",
            at=start - 30,
        ),
        ev(
            "events-db",
            "error",
            f"{sig}\nHINT:  You might need to increase max_locks_per_transaction.\nSTATEMENT:  SELECT * FROM activity.events WHERE user_id = $1 ORDER BY created_at DESC OFFSET 50 LIMIT 50",
            **every(start, -1, 3),
        ),
        ev(
            "feed-api",
            "error",
            "GET /v2/feed?before={n} 500: psycopg.errors.OutOfMemory: out of shared memory HINT: You might need to increase max_locks_per_transaction.",
            **every(start + 5, -1, 5),
            pods=fa,
        ),
        ev(
            "digest-job",
            "error",
            "worker {ms}: user {n} digest failed: out of shared memory, retrying in 30s",
            **every(start + 10, -5, 8),
        ),
        ev(
            "mobile-gateway",
            "error",
            "GET /feed 502 from feed-api (upstream returned 500)",
            **every(start + 10, -1, 6),
        ),
        ev(
            "events-db",
            "warn",
            'LOG:  temporary file: path "base/pgsql_tmp/pgsql_tmp1182.4", size 1073741824',
            **every(-6500, -100, 700),
        ),
        ev(
            "feed-api",
            "info",
            "feed-api 15.2.0 deployed (reactions on comments)",
            at=-2600,
            pods=fa,
        ),
        ev(
            "feed-api",
            "error",
            "redis: connection pool timeout after 1s (feed-cache)",
            **every(-10000, -9700, 45),
            pods=fa,
        ),
    ]
    return simple(
        431,
        start,
        incident("Activity feed not loading", "activity feed", start),
        expected(
            "application",
            [
                "events-db",
                "activity.events",
                "part_config",
                "pg_partman",
                "max_locks_per_transaction",
                "CHG-7731",
            ],
            sig,
            "Three weeks ago pg_partman's part_config for activity.events was changed from monthly to hourly partitions (CHG-7731); the table now has over 14,000 partitions. A query without a created_at predicate (the feed's older-items page, and the weekly digest job that started at 14:00, the trigger) opens and locks every partition, and the shared lock table (max_locks_per_transaction times max_connections) runs out: 'out of shared memory'. feed-api's and mobile-gateway's errors, feed-api's release, temp files and the old Redis pool timeout are not the cause.",
            [
                f"events-db: {sig} HINT: You might need to increase max_locks_per_transaction.",
                "dba-changes: part_config activity.events partition_interval '1 hour' three weeks ago",
                "partman: 14,000+ partitions",
            ],
            "Pause the digest job; add a created_at bound to the feed's query; merge back to daily or monthly partitions (and raise max_locks_per_transaction for the time being).",
        ),
        [
            bg(
                "feed-api",
                fa,
                ["GET /v2/feed 200 {ms}ms", "GET /v2/feed?before={n} 200 {ms}ms"],
                8,
            )
        ],
        evs,
        [
            svc("mobile-gateway", 260, {"502": (0.0003, 0.2)}, (0.07, 0.09)),
            svc("feed-api", 250, {"500": (0.0005, 0.21)}, (0.05, 0.08)),
        ],
        [
            {
                "name": "pg_locks_count",
                "labels": {"instance": "events-db", "mode": "AccessShareLock"},
                "before": 900,
                "after": 64000,
            },
            {
                "name": "pg_partman_partition_count",
                "labels": {"parent_table": "activity.events"},
                "before": 14180,
                "after": 14182,
            },
        ],
        {
            "feed-500.md": runbook(
                "Feed 500s",
                "feed-api 500s usually mean the feed cache (Redis) is down or full: check feed-cache memory and flush the feed:* keys if evictions are high.",
            )
        },
    )


# =================================================================================================
# 16. Health check / failover: the Ansible firewall role 2.4.0 moved the load balancers to nftables
#     with a default-drop input chain that allows 22, 80 and 443 only. VRRP (IP protocol 112) is
#     dropped, so lb-2 stops hearing lb-1's adverts and also becomes MASTER for the VIP. Both answer
#     ARP for 10.30.0.10; the switch flips between them and connections established through one are
#     reset by the other. The incident says "bookings". netcheck sees the resets.
# =================================================================================================


@scenario("vrrp-dropped-both-lbs-master")
def vrrp_dropped_both_lbs_master() -> dict[str, Any]:
    start = -2000
    sig = "flip flop 10.30.0.10"
    bw = ["booking-web-1", "booking-web-2", "booking-web-3"]
    evs = [
        ev(
            "ansible",
            "info",
            "PLAY RECAP lb-1.dc3 : ok=28 changed=3 ; lb-2.dc3 : ok=28 changed=3 (role firewall 2.4.0: iptables -> nftables, chain input policy drop, allow tcp 22,80,443)",
            at=start - 120,
        ),
        ev(
            "keepalived",
            "info",
            "Keepalived_vrrp[1187]: (VI_1) Entering MASTER STATE",
            at=start - 20,
            labels={"host": "lb-2.dc3"},
        ),
        ev(
            "keepalived",
            "info",
            "Keepalived_vrrp[1187]: (VI_1) Receive advertisement timeout",
            at=start - 23,
            labels={"host": "lb-2.dc3"},
        ),
        ev(
            "keepalived",
            "info",
            "Keepalived_vrrp[1203]: (VI_1) Entering MASTER STATE",
            at=-860000,
            labels={"host": "lb-1.dc3"},
        ),
        ev(
            "arpwatch",
            "warn",
            f"{sig} 0:50:56:8a:3c:91 (0:50:56:8a:12:4f) eth0",
            **every(start, -2, 15),
            labels={"host": "mon-1.dc3"},
        ),
        ev(
            "haproxy",
            "info",
            'lb-2 haproxy[944]: 10.30.4.{ms}:5{n} [05/Dec/2026:13:31:02.118] fe_https be_booking/web2 0/0/1/{ms}/+{ms} 200 +512 - - CD-- 41/40/3/1/0 0/0 "GET /api/availability HTTP/1.1"',
            **every(start, -1, 3),
            labels={"host": "lb-2.dc3"},
        ),
        ev(
            "booking-web",
            "error",
            "upstream sent no valid HTTP response: read ECONNRESET (client 10.30.4.{ms})",
            **every(start + 10, -1, 4),
            pods=bw,
        ),
        ev(
            "booking-app",
            "error",
            "fetch https://bookings.dc3.linden.travel/api/availability failed: net::ERR_CONNECTION_RESET",
            **every(start + 5, -1, 4),
        ),
        ev(
            "mysql",
            "warn",
            "Replica SQL for channel '': Seconds_Behind_Source 41",
            **every(-7000, -100, 500),
        ),
        ev(
            "booking-web",
            "info",
            "booking-web 2026.12.2 deployed (seat map colours)",
            at=-3100,
            pods=bw,
        ),
        ev(
            "booking-web",
            "error",
            "payment gateway 502 (worldpay) for booking {n}",
            **every(-9900, -9600, 60),
            pods=bw,
        ),
    ]
    spec = simple(
        432,
        start,
        incident(
            "Bookings failing intermittently",
            "bookings",
            start,
            ["connection reset errors in the app"],
        ),
        expected(
            "connect",
            [
                "keepalived",
                "VI_1",
                "lb-1",
                "lb-2",
                "role firewall 2.4.0",
                "nftables",
                "vrrp",
            ],
            sig,
            "The Ansible firewall role 2.4.0 moved lb-1 and lb-2 to nftables with a default-drop input chain allowing only TCP 22, 80 and 443. VRRP (IP protocol 112) is dropped, so lb-2 no longer receives lb-1's advertisements and also became MASTER of VI_1. Both load balancers now answer ARP for the VIP 10.30.0.10 (arpwatch: flip flop), the switch sends clients alternately to each, and connections established through one are reset by the other. booking-web's ECONNRESET lines, its release, the replica lag and the old Worldpay 502 are not the cause.",
            [
                f"arpwatch: {sig} between the two load balancers' MACs",
                "keepalived on lb-2: (VI_1) Receive advertisement timeout, Entering MASTER STATE while lb-1 is MASTER",
                "ansible: role firewall 2.4.0 nftables input policy drop, allow tcp 22,80,443",
            ],
            "Allow VRRP (ip protocol vrrp, or to 224.0.0.18) in the role's input chain on both LBs and reload; lb-2 returns to BACKUP.",
        ),
        [
            bg(
                "booking-web",
                bw,
                ["GET /api/availability 200 {ms}ms", "POST /api/bookings 201 {ms}ms"],
                8,
            )
        ],
        evs,
        [
            svc("haproxy", 300, {"503": (0.0002, 0.0004)}, (0.05, 0.05), rps_after=210),
            svc(
                "booking-web",
                290,
                {"500": (0.0005, 0.0006)},
                (0.05, 0.05),
                rps_after=200,
            ),
        ],
        [
            {
                "name": "keepalived_vrrp_state",
                "labels": {"host": "lb-1.dc3", "iname": "VI_1"},
                "before": 2,
                "after": 2,
            },
            {
                "name": "keepalived_vrrp_state",
                "labels": {"host": "lb-2.dc3", "iname": "VI_1"},
                "before": 1,
                "after": 2,
                "change_at": start - 20,
            },
        ],
        {
            "connection-resets.md": runbook(
                "Connection resets",
                "ECONNRESET from booking-web means HAProxy is reloading too often or running out of maxconn: check the haproxy stats page and restart haproxy on the active load balancer.",
            )
        },
    )
    spec["targets"] = [
        {
            "name": "bookings-vip",
            "url": "https://bookings.dc3.linden.travel/api/availability",
            "fault": {"kind": "reset_mid_body", "status": 200, "after_bytes": 512},
        },
        {
            "name": "lb-1-direct",
            "url": "https://lb-1.dc3.linden.travel/healthz",
            "fault": {"kind": "ok"},
        },
    ]
    spec["expected"]["root_cause_probe"] = "bookings-vip"
    spec["expected"]["netcheck"] = {
        "bookings-vip": {"failed_layer": "http", "reason": "connection_reset"},
        "lb-1-direct": {"failed_layer": "none", "reason": None},
    }
    return spec


STAGES: dict[str, tuple[str, str]] = {
    "priorityclass-deleted-blocks-new-pods": ("admission", "FailedCreate"),
    "nodes-left-cordoned-after-patching": ("scheduling", "FailedScheduling"),
    "jvm-option-removed-base-image-jdk21": ("startup", "CrashLoopBackOff"),
    "node20-unhandled-rejection-crashes": ("runtime", "CrashLoopBackOff"),
    "kernel-soft-lockup-new-ami": ("infrastructure", "NodeKernelSoftLockup"),
    "topology-hints-follow-ingress-zone": (
        "service_routing",
        "TopologyAwareRoutingImbalance",
    ),
}


def main(root: Path = HERE) -> None:
    for slug, build in SCENARIOS.items():
        spec = build()
        if slug in STAGES:
            stage, reason = STAGES[slug]
            spec["expected"]["root_cause_stage"] = stage
            spec["expected"]["root_cause_reason"] = reason
        base.write(slug, spec, root)
        print(slug)


if __name__ == "__main__":
    main()
