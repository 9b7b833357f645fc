"""Writes the thirteenth held-out scenario set, bench/heldout13: `python bench/heldout13/_build.py`.

New incidents, none of them in the bundled set or in bench/heldout … bench/heldout12. As there,
everything that matters is written by hand below (incident, expected answer, runbooks, kubectl
answers, the log lines that carry the fault and the red herrings); the bulk (background request
lines, 2 h of metric points thinned to one every 30 s, a namespace's tables, describe layouts) comes
from bench/heldout12/_build.py's helpers (and through them heldout11's and the earlier builders'),
each scenario with a fixed seed (401-416). The author read neither the planner (`reasoning/`) nor
the engine (`diagnosis/engine/`, `docs/engine.md`), nor their tests, nor any score file. Stdlib only.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


h12 = _load("heldout12_build", HERE.parent / "heldout12" / "_build.py")
h10 = h12.h10
base = h12.base

table = base.table
events = base.events
runbook = base.runbook
app = h12.app
pod_name = h12.pod_name
namespace = h12.namespace
ev = h12.ev
bg = h12.bg
incident = h12.incident
expected = h12.expected
simple = h12.simple
container_text = h12.container_text
deployment_describe = h12.deployment_describe
describe_pod = h12.describe_pod
podlog = h12.podlog
running = h12.running
crashloop = h12.crashloop
node_describe = h12.node_describe
pending_pod = h12.pending_pod
sched = h12.sched
kube_case = h12.kube_case
pods_of = h12.pods_of
svc = h12.svc
ramp = h12.ramp
every = h12.every
NODES_FRA = h12.NODES_FRA
NODES_IAD = h12.NODES_IAD
NODES_DUB = h12.NODES_DUB
NODES_PDX = h12.NODES_PDX

SCENARIOS: dict[str, Any] = {}


def scenario(slug: str):
    def register(fn):
        SCENARIOS[slug] = fn
        return fn

    return register


def retype_node(
    text: str, instance_type: str, created: float, extra_labels: str = ""
) -> str:
    """A node describe of the shared layout, with this node's instance type, labels and creation time."""
    text = text.replace(
        "node.kubernetes.io/instance-type=m6i.2xlarge",
        f"node.kubernetes.io/instance-type={instance_type}"
        + "".join(f"\n                    {x}" for x in extra_labels.split(",") if x),
    )
    return text.replace(base.when(-3542400), base.when(created))


def describe_block(head: str, rows: list[tuple[str, str, str, str, str]]) -> str:
    """A describe output's own header lines followed by its Events table (type, reason, age, from, message)."""
    if not rows:
        return head + "Events:  <none>\n"
    w = [max(len(r[i]) for r in rows) for i in range(4)]
    w = [max(a, b) for a, b in zip(w, (4, 6, 3, 4), strict=True)]
    lines = [
        "  "
        + "  ".join(
            c.ljust(w[i]) for i, c in enumerate(("Type", "Reason", "Age", "From"))
        )
        + "  Message",
        "  "
        + "  ".join(
            c.ljust(w[i]) for i, c in enumerate(("----", "------", "---", "----"))
        )
        + "  -------",
    ]
    for r in rows:
        lines.append("  " + "  ".join(r[i].ljust(w[i]) for i in range(4)) + "  " + r[4])
    return head + "Events:\n" + "\n".join(lines) + "\n"


# =================================================================================================
# 1. Admission: a Kyverno ClusterPolicy `require-requests-limits` has enforced CPU and memory limits
#    on every container for a year. The shopping-feed-export CronJob's chart 2.0 adds an init
#    container `wait-for-catalog` without resources; since then every hourly Job's pod is denied at
#    admission and no feed reaches Google Merchant Center. The incident says "shopping ads".
# =================================================================================================


@scenario("kyverno-denies-cronjob-init-container")
def kyverno_denies_cronjob_init_container() -> dict[str, Any]:
    start = -2700
    ns = "merchandising"
    cat = app(
        "catalog-api",
        image="eu.gcr.io/plover-retail/catalog-api:14.2.0",
        port=8080,
        rs="6b9d7f8c5",
        cluster_ip="10.96.52.11",
        pods=[
            ("d8kqw", "1/1", "Running", "0", "52m", 0),
            ("m4tzx", "1/1", "Running", "0", "52m", 1),
            ("v7hnc", "1/1", "Running", "0", "52m", 2),
        ],
    )
    mc = app(
        "merchant-center-sync",
        image="eu.gcr.io/plover-retail/merchant-center-sync:1.9.4",
        port=8080,
        rs="7c5f6d9b8",
        cluster_ip="10.96.52.40",
        pods=[("p2wlr", "1/1", "Running", "0", "16d", 1)],
    )
    k8s = namespace(ns, NODES_FRA, [cat, mc], seed=401)
    job = "shopping-feed-export-29419860"
    sig = "validate-resources: 'validation error: CPU and memory resource requests and limits are required. rule validate-resources failed at path /spec/initContainers/0/resources/limits/'"
    deny = (
        'Error creating: admission webhook "validate.kyverno.svc-fail" denied the request: \n\n'
        f"resource Pod/{ns}/{job}-xk2pd was blocked due to the following policies \n\n"
        f"require-requests-limits:\n  {sig}"
    )
    k8s[f"kubectl get cronjobs -n {ns}"] = table(
        [
            [
                "NAME",
                "SCHEDULE",
                "TIMEZONE",
                "SUSPEND",
                "ACTIVE",
                "LAST SCHEDULE",
                "AGE",
            ],
            [
                "shopping-feed-export",
                "0 * * * *",
                "<none>",
                "False",
                "1",
                "44m",
                "310d",
            ],
            [
                "stale-price-report",
                "30 6 * * *",
                "<none>",
                "False",
                "0",
                "7h30m",
                "310d",
            ],
        ]
    )
    k8s[f"kubectl get jobs -n {ns}"] = table(
        [
            ["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"],
            ["shopping-feed-export-29419740", "Complete", "1/1", "6m12s", "2h44m"],
            ["shopping-feed-export-29419800", "Complete", "1/1", "6m40s", "104m"],
            [job, "Running", "0/1", "44m", "44m"],
        ]
    )
    k8s[f"kubectl describe jobs {job} -n {ns}"] = describe_block(
        f"Name:             {job}\nNamespace:        {ns}\nSelector:         batch.kubernetes.io/controller-uid=4f1c0a7e-2b8d-4e55-9a61-0d3c7e9b1f24\n"
        "Labels:           app=shopping-feed-export\nAnnotations:      batch.kubernetes.io/job-tracking: \n"
        "Controlled By:    CronJob/shopping-feed-export\nParallelism:      1\nCompletions:      1\n"
        f"Completion Mode:  NonIndexed\nStart Time:       {base.when(-2640)}\nActive Deadline Seconds:  3300s\n"
        "Pods Statuses:    0 Active (0 Ready) / 0 Succeeded / 0 Failed\nPod Template:\n"
        "  Labels:  app=shopping-feed-export\n  Init Containers:\n   wait-for-catalog:\n"
        "    Image:      busybox:1.36\n    Command:\n      sh\n      -c\n"
        "      until wget -qO- http://catalog-api:8080/healthz; do sleep 2; done\n"
        "    Environment:  <none>\n  Containers:\n   feed-export:\n"
        "    Image:      eu.gcr.io/plover-retail/shopping-feed-export:2.0.0\n"
        "    Limits:\n      cpu:     1\n      memory:  1Gi\n    Requests:\n      cpu:     500m\n      memory:  1Gi\n"
        "    Environment:\n      FEED_BUCKET:  gs://plover-merchant-feeds/de\n",
        [("Warning", "FailedCreate", "3m (x19 over 44m)", "job-controller", deny)],
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "104m",
                "Normal",
                "SuccessfulCreate",
                "Job/shopping-feed-export-29419800",
                "Created pod: shopping-feed-export-29419800-6qv9s",
            ),
            (
                "98m",
                "Normal",
                "Completed",
                "Job/shopping-feed-export-29419800",
                "Job completed",
            ),
            (
                "52m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/catalog-api",
                "Scaled up replica set catalog-api-6b9d7f8c5 to 3",
            ),
            (
                "44m",
                "Normal",
                "SuccessfulCreate",
                "CronJob/shopping-feed-export",
                f"Created job {job}",
            ),
            ("3m", "Warning", "FailedCreate", f"Job/{job}", deny.replace("\n", " ")),
        ]
    )
    evs = [
        ev(
            "gitops",
            "info",
            "argocd: app shopping-feed-export synced to chart 2.0.0 (adds initContainers[0] wait-for-catalog busybox:1.36, PR merch#231 'do not export while catalog-api restarts')",
            at=start - 60,
        ),
        ev(
            "kyverno",
            "info",
            f"admission webhook denied: policy require-requests-limits rule validate-resources, resource Pod/{ns}/{job}-*, {sig}",
            **every(start + 60, -180, 300),
        ),
        ev(
            "merchant-center-sync",
            "warn",
            "Merchant Center account 118274903: {n} items disapproved, issue 'Mismatched value (page crawl) [price]', feed de_DE last fetched 2h41m ago",
            **every(start + 600, -60, 240),
            pods=pods_of(mc),
        ),
        ev(
            "merchant-center-sync",
            "error",
            "Content API products.custombatch failed: 429 quotaExceeded: Quota exceeded for quota metric 'Queries per minute'",
            **every(-1500, -400, 180),
            pods=pods_of(mc),
        ),
        ev(
            "kyverno",
            "warn",
            "background scan: policy disallow-default-namespace rule validate-namespace failed for Pod/default/debug-shell-7d6f (audit)",
            **every(-7000, -30, 600),
        ),
        ev(
            "catalog-api",
            "info",
            "catalog-api 14.2.0 started: facet cache warm in {ms}0ms",
            at=-3120,
            pods=pods_of(cat),
        ),
        ev(
            "shopping-feed-export",
            "error",
            "upload gs://plover-merchant-feeds/de/products.xml failed: 503 Backend Error, retrying in 8s",
            **every(-9600, -9300, 60),
        ),
    ]
    return kube_case(
        seed=401,
        start=start,
        inc=incident(
            "Shopping ads disapproved: wrong prices",
            "shopping ads",
            start,
            ["Google says our prices don't match the site"],
        ),
        exp=expected(
            "platform",
            [
                "cronjob/shopping-feed-export",
                "shopping-feed-export",
                f"job/{job}",
                "wait-for-catalog",
                "require-requests-limits",
                "clusterpolicy/require-requests-limits",
            ],
            sig,
            "shopping-feed-export's chart 2.0.0 added an init container wait-for-catalog without resources. The Kyverno ClusterPolicy require-requests-limits (Enforce for a year) requires requests and limits on every container, init containers included, so the hourly Job's pod is denied at admission; no feed has been exported since, Merchant Center's prices go stale and items are disapproved. The Content API quota errors, the Kyverno background audit warnings, catalog-api's release and the old GCS 503 are not the cause.",
            [
                f"Job {job}: FailedCreate: require-requests-limits: {sig}",
                "argocd: shopping-feed-export 2.0.0 adds initContainers[0] wait-for-catalog",
                "last complete feed Job 104 min ago",
            ],
            "Give wait-for-catalog requests and limits in the chart (or revert 2.0.0) and trigger the CronJob once by hand.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "catalog-api",
                pods_of(cat),
                [
                    "GET /v3/products/{n} 200 {ms}ms",
                    "GET /v3/prices?sku={n} 200 {ms}ms",
                ],
                8,
            )
        ],
        evs=evs,
        services=[svc("catalog-api", 60, {"500": (0.0005, 0.0005)}, (0.03, 0.03))],
        books={
            "merchant-center-disapprovals.md": runbook(
                "Merchant Center price disapprovals",
                "Price mismatch disapprovals come from Content API quota: when products.custombatch returns 429, lower MC_SYNC_BATCH and ask for a quota increase; then re-run merchant-center-sync.",
            )
        },
    )


# =================================================================================================
# 2. Scheduling: to cut cost the `apps` node group moved from m6i.2xlarge to c6i.large (VPC CNI:
#    29 pods per node) with the same maximum of 12 nodes. Eight DaemonSet pods per node leave 21; at
#    the lunch peak the HPAs scale out and new pods stay Pending with `Too many pods`; the cluster
#    autoscaler cannot add a node. The incident says "food orders".
# =================================================================================================

NODES_C6I = [
    (
        f"ip-10-61-{i % 3 + 1}-{40 + 7 * i}.us-east-1.compute.internal",
        "Ready",
        f"10.61.{i % 3 + 1}.{40 + 7 * i}",
        "3d",
    )
    for i in range(12)
]


@scenario("max-pods-smaller-instance-type")
def max_pods_smaller_instance_type() -> dict[str, Any]:
    start = -1560
    ns = "ordering"
    oa = app(
        "order-api",
        image="123456789012.dkr.ecr.us-east-1.amazonaws.com/order-api:31.4.0",
        port=8080,
        rs="5d8c7b9f6",
        cluster_ip="172.20.61.10",
        desired=14,
        pods=[
            (s, "1/1", "Running", "0", "3d", i)
            for i, s in enumerate(
                ("a1kzq", "b4wrt", "c7mxp", "d2nvl", "f5qhs", "g8tcw")
            )
        ]
        + [
            (s, "0/1", "Pending", "0", "24m", -1)
            for s in (
                "h3lbk",
                "j6zdr",
                "k9vfm",
                "l2xpt",
                "m5cqn",
                "n8wgh",
                "p4sjz",
                "q7dkv",
            )
        ],
    )
    ds = app(
        "dispatch-svc",
        image="123456789012.dkr.ecr.us-east-1.amazonaws.com/dispatch-svc:8.0.2",
        port=8080,
        rs="7f6b9c8d5",
        cluster_ip="172.20.61.30",
        pods=[
            ("r3ntw", "1/1", "Running", "0", "41m", 3),
            ("s6ylc", "1/1", "Running", "0", "41m", 7),
        ],
    )
    k8s = namespace(ns, NODES_C6I, [oa, ds], seed=402)
    sig = "Too many pods"
    fail = f"0/12 nodes are available: 12 {sig}. preemption: 0/12 nodes are available: 12 No preemption victims found for incoming pod."
    cont = container_text(
        "order-api",
        oa["image"],
        8080,
        requests="cpu:      250m\n  memory:   384Mi",
        limits="memory:  384Mi",
    )
    for sfx in ("h3lbk", "j6zdr"):
        name = pod_name(oa, sfx)
        k8s[f"kubectl describe pods {name} -n {ns}"] = pending_pod(
            name,
            ns,
            owner=f"ReplicaSet/order-api-{oa['rs']}",
            labels=["app=order-api", f"pod-template-hash={oa['rs']}"],
            sa="order-api",
            containers=cont,
            events_rows=[
                (
                    "Warning",
                    "FailedScheduling",
                    "90s (x12 over 24m)",
                    "default-scheduler",
                    fail,
                ),
                (
                    "Normal",
                    "NotTriggerScaleUp",
                    "2m (x140 over 24m)",
                    "cluster-autoscaler",
                    "pod didn't trigger scale-up: 1 max node group size reached",
                ),
            ],
        )
    node = NODES_C6I[4]
    k8s[f"kubectl describe nodes {node[0]}"] = (
        retype_node(
            node_describe(
                node[0],
                node[2],
                capacity=("2", "3843236Ki", "29"),
                pods_rows=[(ns, pod_name(oa, "f5qhs"))]
                + [
                    ("kube-system", p)
                    for p in (
                        "aws-node-7k2dp",
                        "kube-proxy-q9w4s",
                        "ebs-csi-node-x2b8m",
                        "node-local-dns-8gk5t",
                        "eks-pod-identity-agent-r8f2l",
                    )
                ]
                + [
                    ("observability", p)
                    for p in (
                        "fluent-bit-c4m2n",
                        "datadog-agent-v7q9z",
                        "node-exporter-h5rkl",
                    )
                ]
                + [
                    ("payments", f"payments-api-6c9d7b8f5-{s}")
                    for s in ("t2kqw", "w9mzr")
                ]
                + [
                    ("search", f"search-api-8b7d6c5f9-{s}")
                    for s in ("b3xqn", "f6lwp", "k2trz")
                ]
                + [
                    ("web", f"storefront-ssr-5f8c9d7b6-{s}")
                    for s in ("c8pnv", "h4wqs", "n7rzd", "q2mxk")
                ]
                + [
                    ("ordering", f"menu-cache-6d5c8b9f7-{s}")
                    for s in ("d5vjt", "g3bnx")
                ]
                + [
                    ("growth", f"promo-engine-7b9f8c6d5-{s}")
                    for s in ("j9khs", "m4rtp", "s8wcx", "x1dfv", "b7nqd")
                ]
                + [
                    ("search", "search-api-8b7d6c5f9-p5mzc"),
                    ("web", "storefront-ssr-5f8c9d7b6-t6vbn"),
                    ("payments", "payments-api-6c9d7b8f5-z4hcm"),
                    ("ordering", "menu-cache-6d5c8b9f7-w2ktq"),
                ],
            ),
            "c6i.large",
            -259200,
            "eks.amazonaws.com/nodegroup=apps",
        )
        .replace("100m (1%)", "100m (5%)")
        .replace("128Mi (0%)", "128Mi (3%)")
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "41m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/dispatch-svc",
                "Scaled up replica set dispatch-svc-7f6b9c8d5 to 2",
            ),
            (
                "24m",
                "Normal",
                "SuccessfulRescale",
                "HorizontalPodAutoscaler/order-api",
                "New size: 14; reason: cpu resource utilization (percentage of request) above target",
            ),
            (
                "90s",
                "Warning",
                "FailedScheduling",
                f"Pod/{pod_name(oa, 'h3lbk')}",
                fail,
            ),
            (
                "2m",
                "Normal",
                "NotTriggerScaleUp",
                f"Pod/{pod_name(oa, 'h3lbk')}",
                "pod didn't trigger scale-up: 1 max node group size reached",
            ),
        ]
    )
    op = pods_of(oa)[:6]
    evs = [
        ev(
            "terraform",
            "info",
            'apply eks-prod: module.eks.aws_eks_node_group.apps: instance_types ["m6i.2xlarge"] -> ["c6i.large"], scaling_config max_size 12 (unchanged) (PR infra#1187 \'rightsize apps nodes\')',
            at=-262800,
        ),
        ev(
            "cluster-autoscaler",
            "info",
            f"Pod {ns}/{pod_name(oa, 'h3lbk')} is unschedulable; Skipping node group eks-apps-20261202 - max size reached (12)",
            **every(start + 30, -20, 60),
        ),
        ev(
            "order-api",
            "warn",
            "request queue wait {ms}0ms (workers busy 64/64), POST /v1/orders",
            **every(start + 200, -3, 10),
            pods=op,
        ),
        ev(
            "web-gateway",
            "error",
            'upstream request timeout: "POST /api/orders HTTP/1.1" 504 UT 0 24 15001 - "order-api.ordering.svc.cluster.local:8080"',
            **every(start + 300, -2, 5),
        ),
        ev(
            "dispatch-svc",
            "info",
            "dispatch-svc 8.0.2 started: courier matching radius 4.5 km",
            at=-2470,
            pods=pods_of(ds),
        ),
        ev(
            "dispatch-svc",
            "warn",
            "courier location feed lag {n}ms from Kafka topic courier.positions",
            **every(-3500, -100, 420),
            pods=pods_of(ds),
        ),
        ev(
            "order-api",
            "error",
            "POST /v1/orders 500: redis: connection pool timeout",
            **every(-8900, -8500, 60),
            pods=op,
        ),
    ]
    return kube_case(
        seed=402,
        start=start,
        inc=incident("Food orders failing at lunch", "food orders", start),
        exp=expected(
            "platform",
            [
                "eks-apps-20261202",
                "node group apps",
                "c6i.large",
                "deployment/order-api",
                "order-api",
            ],
            sig,
            "Three days ago the apps node group was moved from m6i.2xlarge to c6i.large with the same maximum of 12 nodes. With the VPC CNI a c6i.large takes 29 pods, eight of them DaemonSet pods, so the cluster tops out by pod count long before CPU. At the lunch peak order-api's HPA asks for 14 pods; eight stay Pending (Too many pods) and the autoscaler cannot add a node (max size reached). Six pods carry the peak, queue and time out at the gateway. The dispatch release, the courier feed lag and the old Redis pool timeouts are not the cause.",
            [
                f"order-api pods Pending: FailedScheduling: 0/12 nodes are available: 12 {sig}",
                "cluster-autoscaler: max node group size reached (12)",
                "terraform: apps instance_types m6i.2xlarge -> c6i.large 3 days ago; node capacity pods 29",
            ],
            "Move the node group back to larger instances (or raise max_size / enable prefix delegation for more pods per node), then let the HPA's pods schedule.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "order-api",
                op,
                ["POST /v1/orders 201 {ms}ms", "GET /v1/orders/{n} 200 {ms}ms"],
                8,
            )
        ],
        evs=evs,
        services=[
            svc("order-api", 150, {"503": (0.0, 0.04)}, (0.09, 1.4)),
            svc("web-gateway", 400, {"504": (0.0002, 0.06)}, (0.05, 0.6)),
        ],
        books={
            "orders-slow.md": runbook(
                "Orders slow or failing",
                "Slow order placement is usually Redis: check the order-api Redis pool (redis: connection pool timeout) and raise REDIS_POOL_SIZE, or fail over the Redis primary.",
            )
        },
    )


# =================================================================================================
# 3. Startup: the identity team moved keycloak-db (a Postgres StatefulSet) to a new gp3
#    StorageClass by re-creating it from a new chart; the chart mounts the fresh volume directly at
#    PGDATA, whose root holds ext4's lost+found, so initdb refuses to run and the pod crash-loops.
#    Keycloak cannot reach its database and the restore Job fails loudly. The incident says
#    "admin login".
# =================================================================================================


@scenario("postgres-initdb-lost-found-mount")
def postgres_initdb_lost_found_mount() -> dict[str, Any]:
    start = -1980
    ns = "identity"
    db = app(
        "keycloak-db",
        image="postgres:16.4-bookworm",
        port=5432,
        rs="",
        kind="StatefulSet",
        cluster_ip="172.20.14.50",
        pods=[("0", "0/1", "CrashLoopBackOff", "9", "34m", 1)],
    )
    kc = app(
        "keycloak",
        image="quay.io/keycloak/keycloak:25.0.6",
        port=8080,
        rs="84b6d9c7f",
        cluster_ip="172.20.14.20",
        pods=[
            ("g2pxv", "0/1", "Running", "6", "3d", 0),
            ("t8kdm", "0/1", "Running", "6", "3d", 2),
        ],
    )
    k8s = namespace(
        ns,
        NODES_DUB,
        [db, kc],
        seed=403,
        statefulsets=table(
            [
                ["NAME", "READY", "AGE", "CONTAINERS", "IMAGES"],
                ["keycloak-db", "0/1", "34m", "postgres", "postgres:16.4-bookworm"],
            ]
        ),
    )
    k8s[f"kubectl get persistentvolumeclaims -n {ns}"] = table(
        [
            [
                "NAME",
                "STATUS",
                "VOLUME",
                "CAPACITY",
                "ACCESS MODES",
                "STORAGECLASS",
                "VOLUMEATTRIBUTESCLASS",
                "AGE",
            ],
            [
                "data-keycloak-db-0",
                "Bound",
                "pvc-6f2a9c1e-83d4-4b7a-9e25-1c7d0b8f4a63",
                "50Gi",
                "RWO",
                "gp3-encrypted",
                "<unset>",
                "34m",
            ],
            [
                "pgdata-keycloak-postgres-0",
                "Bound",
                "pvc-0b4e7d21-9a6c-4f38-b152-e8c3a7d9f610",
                "20Gi",
                "RWO",
                "gp2",
                "<unset>",
                "611d",
            ],
        ]
    )
    sig = "It contains a lost+found directory, perhaps due to it being a mount point."
    name = describe_pod(
        k8s,
        ns,
        db,
        "0",
        NODES_DUB,
        state=crashloop(1, "Error", -130, -129),
        started=-2040,
        restarts=9,
        owner="StatefulSet/keycloak-db",
        labels="app=keycloak-db,apps.kubernetes.io/pod-index=0,statefulset.kubernetes.io/pod-name=keycloak-db-0",
        extra="    Mounts:\n      /var/lib/postgresql/data from data (rw)\nVolumes:\n  data:\n    Type:       PersistentVolumeClaim (a reference to a PersistentVolumeClaim in the same namespace)\n    ClaimName:  data-keycloak-db-0\n    ReadOnly:   false\n",
        events_rows=[
            (
                "Normal",
                "SuccessfulAttachVolume",
                "34m",
                "attachdetach-controller",
                'AttachVolume.Attach succeeded for volume "pvc-6f2a9c1e-83d4-4b7a-9e25-1c7d0b8f4a63"',
            ),
            (
                "Warning",
                "BackOff",
                "2m (x150 over 33m)",
                "kubelet",
                f"Back-off restarting failed container keycloak-db in pod {ns}/keycloak-db-0",
            ),
        ],
    )
    k8s[f"kubectl logs {name} -n {ns} --previous --tail=1000"] = podlog(
        [
            (
                -130,
                'The files belonging to this database system will be owned by user "postgres".',
            ),
            (-130, "This user must also own the server process."),
            (-130, ""),
            (
                -130,
                'The database cluster will be initialized with locale "en_US.utf8".',
            ),
            (-130, 'The default database encoding has accordingly been set to "UTF8".'),
            (-130, 'The default text search configuration will be set to "english".'),
            (-130, ""),
            (-130, "Data page checksums are disabled."),
            (-130, ""),
            (
                -129,
                'initdb: error: directory "/var/lib/postgresql/data" exists but is not empty',
            ),
            (-129, f"initdb: detail: {sig}"),
            (
                -129,
                "initdb: hint: Using a mount point directly as the data directory is not recommended.",
            ),
            (-129, "Create a subdirectory under the mount point."),
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "36m",
                "Normal",
                "SuccessfulDelete",
                "StatefulSet/keycloak-postgres",
                "delete Pod keycloak-postgres-0 in StatefulSet keycloak-postgres successful",
            ),
            (
                "34m",
                "Normal",
                "SuccessfulCreate",
                "StatefulSet/keycloak-db",
                "create Claim data-keycloak-db-0 Pod keycloak-db-0 in StatefulSet keycloak-db success",
            ),
            (
                "30m",
                "Warning",
                "BackoffLimitExceeded",
                "Job/keycloak-db-restore",
                "Job has reached the specified backoff limit",
            ),
            (
                "2m",
                "Warning",
                "BackOff",
                "Pod/keycloak-db-0",
                "Back-off restarting failed container keycloak-db in pod keycloak-db-0_identity(9e1d2c4b-…)",
            ),
            (
                "40s",
                "Warning",
                "Unhealthy",
                f"Pod/{pod_name(kc, 'g2pxv')}",
                "Readiness probe failed: HTTP probe failed with statuscode: 503",
            ),
        ]
    )
    kp = pods_of(kc)
    evs = [
        ev(
            "gitops",
            "info",
            "argocd: app keycloak-db synced: StatefulSet keycloak-postgres pruned, StatefulSet keycloak-db created (chart identity-postgres 1.0.0, storageClassName gp3-encrypted, PR identity#64 'move keycloak DB to gp3')",
            at=start - 90,
        ),
        ev(
            "keycloak-db",
            "error",
            f'initdb: error: directory "/var/lib/postgresql/data" exists but is not empty; initdb: detail: {sig}',
            **every(start + 60, -130, 300),
        ),
        ev(
            "keycloak",
            "error",
            "ERROR [org.hibernate.engine.jdbc.spi.SqlExceptionHelper] (executor-thread-{n}) Acquisition timeout while waiting for new connection: Connection to keycloak-db:5432 refused. Check that the hostname and port are correct and that the postmaster is accepting TCP/IP connections.",
            **every(start + 90, -2, 6),
            pods=kp,
        ),
        ev(
            "keycloak-db-restore",
            "error",
            'pg_restore: error: connection to server at "keycloak-db" (172.20.14.50), port 5432 failed: Connection refused',
            **every(start + 120, start + 420, 60),
        ),
        ev(
            "ingress-nginx",
            "error",
            '10.52.0.9 - - "POST /realms/staff/login-actions/authenticate HTTP/2.0" 503 190 "-" "Mozilla/5.0" 512 0.003 [identity-keycloak-8080] [] - - - - {n}',
            **every(start + 150, -3, 8),
        ),
        ev(
            "admin-portal",
            "info",
            "admin-portal 2.31.0 deployed (new order search filters)",
            at=-2900,
        ),
        ev(
            "keycloak",
            "warn",
            "WARN  [org.keycloak.storage.ldap.LDAPStorageProviderFactory] Sync of users from LDAP to local store failed: javax.naming.CommunicationException: ldap.corp.internal:636",
            **every(-9500, -9000, 120),
            pods=kp,
        ),
    ]
    return kube_case(
        seed=403,
        start=start,
        inc=incident("Staff can't log in to the admin portal", "admin login", start),
        exp=expected(
            "application",
            [
                "statefulset/keycloak-db",
                "keycloak-db",
                "keycloak-db-0",
                "pod/keycloak-db-0",
                "identity-postgres 1.0.0",
                "data-keycloak-db-0",
            ],
            sig,
            "The keycloak database was moved to a new StatefulSet, keycloak-db, with a fresh gp3 volume mounted straight at /var/lib/postgresql/data. The new ext4 volume's root holds lost+found, so the Postgres entrypoint's initdb refuses a non-empty directory and the container exits 1 on every start. Keycloak cannot connect, fails readiness and staff logins get 503; the restore Job fails for the same reason. The admin-portal release and the old LDAP sync error are not the cause.",
            [
                f"keycloak-db-0 previous log: initdb: detail: {sig}",
                "argocd: keycloak-postgres pruned, keycloak-db created 34 min ago",
                "keycloak: Connection to keycloak-db:5432 refused",
            ],
            "Set PGDATA to a subdirectory of the mount (e.g. /var/lib/postgresql/data/pgdata) in the chart, let the pod initialise, then re-run the restore Job.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "keycloak",
                kp,
                ["GET /realms/staff/protocol/openid-connect/certs 200 {ms}ms"],
                10,
                until=start,
            )
        ],
        evs=evs,
        services=[svc("keycloak", 12, {"503": (0.0, 0.9)}, (0.04, 0.01))],
        books={
            "keycloak-logins.md": runbook(
                "Keycloak login failures",
                "When staff cannot log in, the LDAP federation is usually unreachable: check ldap.corp.internal:636, then clear the realm cache and restart keycloak.",
            )
        },
    )


# =================================================================================================
# 4. Runtime: web-bff 5.4.0 (Node 20) caches rendered product pages in process (PAGE_CACHE=memory)
#    with no bound. The V8 heap (max-old-space-size 1536) fills in ~25 minutes under load and the
#    process aborts (exit 134, not an OOM kill: the container limit is 2Gi). The pods crash in turn;
#    the edge proxy answers 503. The incident says "shop app".
# =================================================================================================


@scenario("node-heap-limit-unbounded-page-cache")
def node_heap_limit_unbounded_page_cache() -> dict[str, Any]:
    start = -3000
    ns = "web"
    bff = app(
        "web-bff",
        image="ghcr.io/fernbrook/web-bff:5.4.0",
        port=3000,
        rs="6c8f7d9b4",
        cluster_ip="172.20.3.31",
        pods=[
            ("b7qxk", "1/1", "Running", "3", "58m", 0),
            ("h2vzn", "0/1", "CrashLoopBackOff", "3", "58m", 1),
            ("r9mtp", "1/1", "Running", "2", "58m", 2),
        ],
    )
    pr = app(
        "product-api",
        image="ghcr.io/fernbrook/product-api:22.1.3",
        port=8080,
        rs="59c7b8d6f",
        cluster_ip="172.20.3.40",
        pods=[
            ("d4kwn", "1/1", "Running", "0", "9d", 0),
            ("s6pjl", "1/1", "Running", "0", "9d", 2),
        ],
    )
    k8s = namespace(ns, NODES_PDX, [bff, pr], seed=404)
    sig = "FATAL ERROR: Ineffective mark-compacts near heap limit Allocation failed - JavaScript heap out of memory"
    cont = container_text(
        "web-bff",
        bff["image"],
        3000,
        env={
            "NODE_OPTIONS": "--max-old-space-size=1536",
            "PAGE_CACHE": "memory",
            "PRODUCT_API_URL": "http://product-api:8080",
        },
        limits="memory:  2Gi",
        requests="cpu:      500m\n  memory:   2Gi",
    )
    name = describe_pod(
        k8s,
        ns,
        bff,
        "h2vzn",
        NODES_PDX,
        state=crashloop(134, "Error", -1620, -105),
        started=-3480,
        restarts=3,
        events_rows=[
            (
                "Warning",
                "BackOff",
                "60s (x4 over 2m)",
                "kubelet",
                f"Back-off restarting failed container web-bff in pod {pod_name(bff, 'h2vzn')}_{ns}(b2c7…)",
            ),
        ],
    )
    k8s[f"kubectl logs {name} -n {ns} --previous --tail=1000"] = podlog(
        [
            (
                -1620,
                '{"level":30,"msg":"web-bff 5.4.0 listening on :3000","pageCache":"memory","nodeVersion":"v20.17.0"}',
            ),
            (
                -900,
                '{"level":30,"msg":"page cache stats","entries":31842,"approxBytes":612441088}',
            ),
            (
                -300,
                '{"level":30,"msg":"page cache stats","entries":74410,"approxBytes":1398207315}',
            ),
            (-108, ""),
            (-108, "<--- Last few GCs --->"),
            (-108, ""),
            (
                -108,
                "[1:0x6a8c040]  1508113 ms: Mark-Compact 1531.2 (1563.9) -> 1529.8 (1564.1) MB, pooled: 0 MB, 1874.22 / 0.00 ms  (average mu = 0.112, current mu = 0.021) allocation failure; scavenge might not succeed",
            ),
            (-107, ""),
            (-107, "<--- JS stacktrace --->"),
            (-107, ""),
            (-107, sig),
            (-107, "----- Native stack trace -----"),
            (
                -107,
                " 1: 0xb8d0a3 node::OOMErrorHandler(char const*, v8::OOMDetails const&) [node]",
            ),
            (
                -107,
                " 2: 0xf06460 v8::Utils::ReportOOMFailure(v8::internal::Isolate*, char const*, v8::OOMDetails const&) [node]",
            ),
        ]
    )
    k8s[f"kubectl describe deployments web-bff -n {ns}"] = deployment_describe(
        "web-bff",
        ns,
        replicas="3 desired | 3 updated | 3 total | 2 available | 1 unavailable",
        revision=88,
        containers=cont,
        conditions=[
            ("Available", "True", "MinimumReplicasAvailable"),
            ("Progressing", "True", "NewReplicaSetAvailable"),
        ],
        old_rs="web-bff-7d9b6c5f8 (0/0 replicas created)",
        new_rs=f"web-bff-{bff['rs']} (3/3 replicas created)",
        created=-50000000,
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "58m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/web-bff",
                f"Scaled up replica set web-bff-{bff['rs']} to 3",
            ),
            (
                "58m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/web-bff",
                "Scaled down replica set web-bff-7d9b6c5f8 to 0 from 3",
            ),
            (
                "26m",
                "Warning",
                "BackOff",
                f"Pod/{pod_name(bff, 'b7qxk')}",
                "Back-off restarting failed container web-bff",
            ),
            (
                "60s",
                "Warning",
                "BackOff",
                f"Pod/{name}",
                "Back-off restarting failed container web-bff",
            ),
        ]
    )
    bp = pods_of(bff)
    evs = [
        ev(
            "gitops",
            "info",
            "argocd: app web-bff synced to 5.4.0 (PAGE_CACHE=memory, PR web#1402 'cache rendered PDP fragments')",
            at=-3500,
        ),
        ev("web-bff", "error", sig, **every(start + 80, -105, 520), pods=bp),
        ev(
            "web-bff",
            "warn",
            '{"level":40,"msg":"event loop lag","lagMs":{ms}0,"heapUsedMB":1490}',
            **every(start, -40, 45),
            pods=bp,
        ),
        ev(
            "edge-envoy",
            "error",
            '[2026-12-05T13:40:02.114Z] "GET /p/{n} HTTP/2" 503 UC 0 95 2 - "-" "FernbrookApp/4.12 (Android 14)" "web-bff.web.svc.cluster.local:3000" upstream connect error or disconnect/reset before headers. reset reason: connection termination',
            **every(start + 100, -2, 5),
        ),
        ev(
            "growth",
            "info",
            "push campaign 'winter-drop' sent to 412k devices",
            at=start - 300,
        ),
        ev(
            "product-api",
            "warn",
            "redis: evicted_keys rose to {n} in the last minute (maxmemory-policy allkeys-lru)",
            **every(-5000, -100, 400),
            pods=pods_of(pr),
        ),
        ev(
            "web-bff",
            "error",
            "GET /p/{n} 502: request to http://product-api:8080/v2/products failed, reason: socket hang up (ECONNRESET)",
            **every(-9000, -8600, 50),
            pods=bp,
        ),
    ]
    return kube_case(
        seed=404,
        start=start,
        inc=incident(
            "Shop app blank screens",
            "shop app",
            start,
            ["app shows an empty page, then works on retry"],
        ),
        exp=expected(
            "application",
            [
                "deployment/web-bff",
                "web-bff",
                "web-bff 5.4.0",
                "PAGE_CACHE",
                "page cache",
            ],
            sig,
            "web-bff 5.4.0 caches rendered product pages in process (PAGE_CACHE=memory) with no size bound. Under load the cache fills the V8 old space (max-old-space-size 1536) in about 25 minutes, the process aborts with 'JavaScript heap out of memory' (exit 134, not an OOM kill: the container limit is 2Gi) and each pod restarts in turn; the edge proxy answers 503 for requests on the dying pod. The push campaign (the trigger of the load), product-api's Redis evictions and the old ECONNRESET are not the cause.",
            [
                f"web-bff previous log: {sig}",
                "page cache stats entries 74410, approxBytes 1.4 GB before the crash",
                "argocd: web-bff 5.4.0 PAGE_CACHE=memory 58 min ago",
            ],
            "Set PAGE_CACHE back to redis (or bound the in-process cache by bytes) and roll 5.4.x; roll back to the previous revision until then.",
        ),
        k8s=k8s,
        bgs=[bg("web-bff", bp, ["GET /p/{n} 200 {ms}ms", "GET /c/{n} 200 {ms}ms"], 8)],
        evs=evs,
        services=[
            svc("edge-envoy", 300, {"503": (0.0003, 0.05)}, (0.06, 0.08)),
            svc("web-bff", 280, {"500": (0.0005, 0.002)}, (0.05, 0.07)),
        ],
        books={
            "bff-503.md": runbook(
                "web-bff 503s at the edge",
                "503s with 'upstream connect error' from edge-envoy mean web-bff has too few pods for the traffic: raise the HPA's minReplicas to 6 during campaigns.",
            )
        },
    )


# =================================================================================================
# 5. Node: a spot node group added for batch work launches t3.2xlarge with credit specification
#    `standard`; the cluster autoscaler also used it for a pricing-engine rollout. A T3 in standard
#    mode has no launch credits: it is held at its 40 % baseline, steal time is high, the two pricing pods on it
#    are slow while the node stays Ready with no pressure. The incident says "product pages".
# =================================================================================================

NODES_PDX4 = [
    *h12.NODES_PDX,
    ("ip-10-90-3-214.us-west-2.compute.internal", "Ready", "10.90.3.214", "50m"),
]


@scenario("t3-standard-credits-exhausted-node")
def t3_standard_credits_exhausted_node() -> dict[str, Any]:
    start = -2820
    ns = "pricing"
    bad = NODES_PDX4[3]
    pe = app(
        "pricing-engine",
        image="ghcr.io/tallowmart/pricing-engine:3.1.2",
        port=8080,
        rs="75c9d8b6f",
        cluster_ip="172.20.28.9",
        pods=[
            ("c3mxw", "1/1", "Running", "0", "49m", 0),
            ("f8qtz", "1/1", "Running", "0", "49m", 3),
            ("k2vnd", "1/1", "Running", "0", "49m", 1),
            ("w6hbr", "1/1", "Running", "0", "49m", 3),
        ],
    )
    k8s = namespace(ns, NODES_PDX4, [pe], seed=405)
    k8s["kubectl get nodes -o wide --show-labels"] = table(
        [
            [
                "NAME",
                "STATUS",
                "ROLES",
                "AGE",
                "VERSION",
                "INTERNAL-IP",
                "EXTERNAL-IP",
                "OS-IMAGE",
                "KERNEL-VERSION",
                "CONTAINER-RUNTIME",
                "LABELS",
            ],
            *[
                [
                    n[0],
                    "Ready",
                    "<none>",
                    n[3] if len(n) > 3 else "41d",
                    "v1.31.2-eks-7f9249a",
                    n[2],
                    "<none>",
                    "Amazon Linux 2023.6.20241121",
                    "6.1.115-126.197.amzn2023.x86_64",
                    "containerd://1.7.23",
                    f"eks.amazonaws.com/nodegroup={'apps-m6i' if i < 3 else 'batch-spot'},node.kubernetes.io/instance-type={'m6i.2xlarge' if i < 3 else 't3.2xlarge'},eks.amazonaws.com/capacityType={'ON_DEMAND' if i < 3 else 'SPOT'}",
                ]
                for i, n in enumerate(NODES_PDX4)
            ],
        ]
    )
    k8s[f"kubectl describe nodes {bad[0]}"] = retype_node(
        node_describe(
            bad[0],
            bad[2],
            pods_rows=[
                (ns, pod_name(pe, "f8qtz")),
                (ns, pod_name(pe, "w6hbr")),
                ("batch", "nightly-ledger-export-29419200-x7kq2"),
                ("kube-system", "aws-node-z9r4t"),
                ("kube-system", "kube-proxy-m2c8w"),
            ],
        ),
        "t3.2xlarge",
        -3000,
        "eks.amazonaws.com/nodegroup=batch-spot,eks.amazonaws.com/capacityType=SPOT",
    )
    sig = "CPUCreditBalance = 0.0"
    evs = [
        ev(
            "terraform",
            "info",
            "apply eks-prod: module.batch_spot.aws_launch_template.this: instance_type t3.2xlarge, credit_specification { cpu_credits = \"standard\" } (PR infra#1210 'spot pool for nightly exports')",
            at=-180000,
        ),
        ev(
            "gitops",
            "info",
            "argocd: app pricing-engine synced to 3.1.2 (rules cache TTL 300s -> 600s)",
            at=-2960,
        ),
        ev(
            "cluster-autoscaler",
            "info",
            f"Scale-up: setting group eks-batch-spot-20261203 size to 1 (pods pricing/{pod_name(pe, 'f8qtz')}, pricing/{pod_name(pe, 'w6hbr')})",
            at=-2990,
        ),
        ev(
            "cloudwatch",
            "warn",
            f'alarm "ec2-cpu-credit-balance-low" ALARM: {sig} for i-0b7e4c2a91d3f5e68 ({bad[0]}, t3.2xlarge, CpuCredits standard), CPUUtilization flat at 40.1% (baseline)',
            **every(start - 60, -60, 600),
        ),
        ev(
            "node-exporter",
            "info",
            f"{bad[0]}: node_cpu_seconds_total mode=steal rate 5m = 58% of 8 cpus",
            **every(start, -30, 300),
        ),
        ev(
            "pricing-engine",
            "warn",
            "price rule evaluation for basket {n} took {ms}00ms (budget 150ms)",
            **every(start + 30, -4, 9),
            pods=[pod_name(pe, "f8qtz"), pod_name(pe, "w6hbr")],
        ),
        ev(
            "storefront",
            "error",
            'GET /p/{n} 504 upstream timed out (110: Connection timed out) while reading response header from upstream, upstream: "http://172.20.28.9:8080/v1/price"',
            **every(start + 100, -2, 6),
        ),
        ev(
            "pricing-engine",
            "info",
            "rules cache refresh: {n} rules loaded in {ms}ms",
            **every(-7000, -100, 600),
            pods=pods_of(pe),
        ),
        ev(
            "kubelet",
            "warn",
            f"{NODES_PDX4[0][0]}: PLEG is not healthy: pleg was last seen active 3m12.5s ago; threshold is 3m0s",
            **every(-9800, -9400, 100),
        ),
    ]
    return kube_case(
        seed=405,
        start=start,
        inc=incident("Product pages slow, some time out", "product pages", start),
        exp=expected(
            "platform",
            [
                f"node/{bad[0]}",
                bad[0],
                "i-0b7e4c2a91d3f5e68",
                "batch-spot",
                "eks-batch-spot-20261203",
                "t3.2xlarge",
            ],
            sig,
            "The batch-spot node group launches t3.2xlarge with CPU credits in standard mode. When pricing-engine 3.1.2 rolled out, the autoscaler placed two of its four pods on such a node; a T3 in standard mode gets no launch credits, so as soon as the pods' load passed the baseline the instance was held at 40% with heavy steal time. The node stays Ready with no pressure condition, but those two pods take seconds per price and the storefront times out on about half of its price calls. The release itself, the rules cache refresh lines and the old PLEG warning on another node are not the cause.",
            [
                f"cloudwatch: {sig} for i-0b7e4c2a91d3f5e68, CPUUtilization flat at 40.1%",
                "node-exporter: steal 58% on the t3 node",
                "only the pricing-engine pods on that node are slow",
            ],
            "Cordon and drain the t3 node, give the batch-spot launch template cpu_credits unlimited (or a non-burstable type) and keep serving pods off it with a taint.",
        ),
        k8s=k8s,
        bgs=[bg("pricing-engine", pods_of(pe), ["POST /v1/price 200 {ms}ms"], 8)],
        evs=evs,
        services=[
            svc("pricing-engine", 220, {"500": (0.0, 0.0)}, (0.02, 0.6)),
            svc("storefront", 180, {"504": (0.0001, 0.08)}, (0.12, 1.1)),
        ],
        books={
            "pricing-slow.md": runbook(
                "Slow pricing",
                "Pricing latency follows the rules cache: if the TTL was changed recently, flush the cache with POST /admin/rules/reload on every pod and watch p99.",
            )
        },
    )


# =================================================================================================
# 6. Routing: marketing created an Ingress `spring-campaign` in its own namespace for the shop's
#    host with path `/checkout` (a landing page for a campaign called "checkout the spring look").
#    ingress-nginx merges rules across namespaces for one host, so /checkout/* now goes to the
#    campaign's static nginx, which answers 405 to POSTs. The incident says "checkout".
# =================================================================================================


@scenario("ingress-host-path-claimed-by-campaign")
def ingress_host_path_claimed_by_campaign() -> dict[str, Any]:
    start = -1320
    ns = "shop"
    co = app(
        "checkout-api",
        image="ghcr.io/larkhome/checkout-api:18.0.1",
        port=8080,
        rs="6f8c5d9b7",
        cluster_ip="172.20.5.21",
        pods=[
            ("b9xqz", "1/1", "Running", "0", "20h", 0),
            ("m2wkt", "1/1", "Running", "0", "20h", 1),
            ("v5cnh", "1/1", "Running", "0", "20h", 2),
        ],
    )
    web = app(
        "shop-web",
        image="ghcr.io/larkhome/shop-web:7.12.4",
        port=3000,
        rs="8b6d7c9f5",
        cluster_ip="172.20.5.40",
        pods=[
            ("g4kqd", "1/1", "Running", "0", "6d", 0),
            ("s7tzv", "1/1", "Running", "0", "6d", 2),
        ],
    )
    k8s = namespace(ns, NODES_IAD, [co, web], seed=406, extra_namespaces=("marketing",))
    sig = "[marketing-spring-campaign-80]"
    k8s[f"kubectl get ingresses -n {ns}"] = table(
        [
            ["NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"],
            [
                "shop",
                "nginx",
                "www.larkhome.com",
                "k8s-ingressn-ingressn-4c1e9a7b2d-8f31c6a05e7d92b4.elb.us-east-1.amazonaws.com",
                "80, 443",
                "702d",
            ],
        ]
    )
    k8s["kubectl get ingresses -n marketing"] = table(
        [
            ["NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"],
            [
                "spring-campaign",
                "nginx",
                "www.larkhome.com",
                "k8s-ingressn-ingressn-4c1e9a7b2d-8f31c6a05e7d92b4.elb.us-east-1.amazonaws.com",
                "80, 443",
                "23m",
            ],
        ]
    )
    k8s["kubectl describe ingresses spring-campaign -n marketing"] = (
        "Name:             spring-campaign\nLabels:           team=marketing\nNamespace:        marketing\n"
        "Address:          k8s-ingressn-ingressn-4c1e9a7b2d-8f31c6a05e7d92b4.elb.us-east-1.amazonaws.com\nIngress Class:    nginx\n"
        "Default backend:  <default>\nTLS:\n  www-larkhome-com-tls terminates www.larkhome.com\nRules:\n"
        "  Host              Path  Backends\n  ----              ----  --------\n  www.larkhome.com  \n"
        "                    /checkout   spring-campaign:80 (10.42.2.77:80)\n"
        "                    /spring     spring-campaign:80 (10.42.2.77:80)\n"
        "Annotations:      <none>\n"
        "Events:\n  Type    Reason  Age   From                      Message\n  ----    ------  ----  ----                      -------\n"
        "  Normal  Sync    22m   nginx-ingress-controller  Scheduled for sync\n"
    )
    k8s[f"kubectl describe ingresses shop -n {ns}"] = (
        f"Name:             shop\nLabels:           app.kubernetes.io/instance=shop\nNamespace:        {ns}\n"
        "Address:          k8s-ingressn-ingressn-4c1e9a7b2d-8f31c6a05e7d92b4.elb.us-east-1.amazonaws.com\nIngress Class:    nginx\n"
        "Default backend:  <default>\nTLS:\n  www-larkhome-com-tls terminates www.larkhome.com\nRules:\n"
        "  Host              Path  Backends\n  ----              ----  --------\n  www.larkhome.com  \n"
        "                    /api/checkout   checkout-api:8080 (10.156.1.31:8080,10.156.2.44:8080,10.156.3.12:8080)\n"
        "                    /               shop-web:3000 (10.156.1.90:3000,10.156.3.61:3000)\n"
        "Annotations:      nginx.ingress.kubernetes.io/proxy-body-size: 4m\n"
        "Events:           <none>\n"
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "20h",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/checkout-api",
                f"Scaled up replica set checkout-api-{co['rs']} to 3",
            )
        ]
    )
    wp = pods_of(web)
    evs = [
        ev(
            "gitops",
            "info",
            "argocd: app marketing-landing-pages synced: Ingress marketing/spring-campaign created (hosts www.larkhome.com paths /spring, /checkout; PR mkt#77 'checkout the spring look')",
            at=start - 40,
        ),
        ev(
            "ingress-nginx",
            "info",
            f'10.42.0.12 - - "POST /checkout/session HTTP/2.0" 405 157 "https://www.larkhome.com/cart" "Mozilla/5.0" 688 0.001 {sig} [] 10.42.2.77:80 157 0.001 405 {{n}}',
            **every(start, -2, 4),
        ),
        ev(
            "ingress-nginx",
            "info",
            '10.42.0.12 - - "GET /api/checkout/summary HTTP/2.0" 200 1840 "-" "Mozilla/5.0" 402 0.041 [shop-checkout-api-8080] [] 10.156.1.31:8080 1840 0.041 200 {n}',
            **every(-3600, -5, 20),
        ),
        ev(
            "web-rum",
            "error",
            "SyntaxError: Unexpected token '<', \"<html>\r\n<h\"... is not valid JSON at checkout.4f9a1c.js:1:20331 (route /cart)",
            **every(start + 10, -1, 3),
        ),
        ev(
            "checkout-api",
            "info",
            "checkout-api 18.0.1 started (Klarna pay-later for NL)",
            at=-72000,
            pods=pods_of(co),
        ),
        ev(
            "checkout-api",
            "warn",
            "Adyen /payments latency {ms}0ms above 1s, pspReference pending",
            **every(-5000, -200, 500),
            pods=pods_of(co),
        ),
        ev(
            "checkout-api",
            "error",
            "POST /api/checkout/session 500: org.hibernate.StaleObjectStateException: Row was updated or deleted by another transaction",
            **every(-9300, -8900, 80),
            pods=pods_of(co),
        ),
    ]
    return kube_case(
        seed=406,
        start=start,
        inc=incident("Checkout button gives an error", "checkout", start),
        exp=expected(
            "connect",
            [
                "ingress/spring-campaign",
                "spring-campaign",
                "marketing/spring-campaign",
                "marketing-landing-pages",
            ],
            sig,
            "Marketing's new Ingress spring-campaign, in the marketing namespace, claims path /checkout on the shop's host www.larkhome.com. ingress-nginx merges the rules of every Ingress for a host, and the longer prefix /checkout wins over the shop's /, so POST /checkout/session now reaches the campaign's static nginx, which answers 405; the browser cannot parse the HTML and the checkout button fails. checkout-api is healthy (its own /api/checkout paths still route), its release yesterday, the Adyen latency and the old StaleObjectStateException are not the cause.",
            [
                f"ingress-nginx: POST /checkout/session 405 routed to {sig}",
                "argocd: Ingress marketing/spring-campaign created 23 min ago with paths /spring, /checkout",
                "checkout-api answers 200 on its own paths",
            ],
            "Remove /checkout from marketing/spring-campaign (use /spring only) and add an admission rule that one host belongs to one namespace.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "shop-web",
                wp,
                [
                    "GET / 200 {ms}ms",
                    "GET /cart 200 {ms}ms",
                    "POST /checkout/session 200 {ms}ms",
                ],
                8,
                until=start,
            )
        ],
        evs=evs,
        services=[
            svc("shop-web", 90, {"405": (0.0, 0.04)}, (0.05, 0.05)),
            svc("checkout-api", 30, {"500": (0.001, 0.001)}, (0.12, 0.12)),
        ],
        books={
            "checkout-failures.md": runbook(
                "Checkout failures",
                "If checkout fails after a checkout-api release, roll it back with `argocd app rollback checkout-api` and check Adyen's status page.",
            )
        },
    )


# =================================================================================================
# 7. DNS: the zookeeper chart's 13.x upgrade rewrote the headless Service zk-headless without
#    `publishNotReadyAddresses: true`. ZooKeeper pods are only Ready with a quorum (readiness runs
#    `zkServer.sh status`), and a node AMI rotation restarted all three: no pod is Ready, so none has
#    a DNS record, so no peer can resolve another and no quorum forms. Kafka brokers cannot start
#    without ZooKeeper and crash-loop loudly. The incident says "order emails".
# =================================================================================================


@scenario("zookeeper-headless-publish-not-ready-dropped")
def zookeeper_headless_publish_not_ready_dropped() -> dict[str, Any]:
    start = -2400
    ns = "messaging"
    zk = app(
        "zk",
        image="docker.io/bitnami/zookeeper:3.9.3-debian-12-r0",
        port=2181,
        rs="",
        kind="StatefulSet",
        service=False,
        pods=[(str(i), "0/1", "Running", "0", "41m", i) for i in range(3)],
    )
    kf = app(
        "kafka",
        image="docker.io/bitnami/kafka:3.7.1-debian-12-r4",
        port=9092,
        rs="",
        kind="StatefulSet",
        service=False,
        pods=[
            (str(i), "0/1", "CrashLoopBackOff", str(7 + i % 2), "39m", i)
            for i in range(3)
        ],
    )
    k8s = namespace(
        ns,
        NODES_FRA,
        [zk, kf],
        seed=407,
        statefulsets=table(
            [
                ["NAME", "READY", "AGE", "CONTAINERS", "IMAGES"],
                ["kafka", "0/3", "512d", "kafka", kf["image"]],
                ["zk", "0/3", "512d", "zookeeper", zk["image"]],
            ]
        ),
    )
    k8s[f"kubectl get services -n {ns} -o wide"] = table(
        [
            ["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE", "SELECTOR"],
            [
                "kafka",
                "ClusterIP",
                "172.20.77.12",
                "<none>",
                "9092/TCP",
                "512d",
                "app=kafka",
            ],
            [
                "kafka-headless",
                "ClusterIP",
                "None",
                "<none>",
                "9092/TCP,9093/TCP",
                "512d",
                "app=kafka",
            ],
            ["zk", "ClusterIP", "172.20.77.30", "<none>", "2181/TCP", "512d", "app=zk"],
            [
                "zk-headless",
                "ClusterIP",
                "None",
                "<none>",
                "2181/TCP,2888/TCP,3888/TCP",
                "512d",
                "app=zk",
            ],
        ]
    )
    k8s[f"kubectl get endpoints -n {ns}"] = table(
        [
            ["NAME", "ENDPOINTS", "AGE"],
            ["kafka", "<none>", "512d"],
            ["kafka-headless", "<none>", "512d"],
            ["zk", "<none>", "512d"],
            ["zk-headless", "<none>", "512d"],
        ]
    )
    k8s[f"kubectl get services zk-headless -n {ns} -o yaml"] = (
        "apiVersion: v1\nkind: Service\nmetadata:\n  annotations:\n    meta.helm.sh/release-name: zk\n"
        "  labels:\n    app: zk\n    helm.sh/chart: zookeeper-13.6.0\n  name: zk-headless\n"
        f'  namespace: {ns}\n  resourceVersion: "918273645"\nspec:\n  clusterIP: None\n  clusterIPs:\n  - None\n'
        "  internalTrafficPolicy: Cluster\n  ports:\n  - name: tcp-client\n    port: 2181\n    targetPort: client\n"
        "  - name: tcp-follower\n    port: 2888\n    targetPort: follower\n  - name: tcp-election\n    port: 3888\n    targetPort: election\n"
        "  selector:\n    app: zk\n  sessionAffinity: None\n  type: ClusterIP\nstatus:\n  loadBalancer: {}\n"
    )
    sig = "java.net.UnknownHostException: zk-1.zk-headless.messaging.svc.cluster.local"
    name = describe_pod(
        k8s,
        ns,
        zk,
        "0",
        NODES_FRA,
        state=running(-2460),
        started=-2460,
        owner="StatefulSet/zk",
        labels="app=zk,apps.kubernetes.io/pod-index=0,statefulset.kubernetes.io/pod-name=zk-0",
        probes="    Readiness:      exec [/bin/bash -c /opt/bitnami/zookeeper/bin/zkServer.sh status] delay=5s timeout=5s period=10s #success=1 #failure=6\n",
        events_rows=[
            sched(ns, "zk-0", NODES_FRA[0][0], "41m"),
            (
                "Warning",
                "Unhealthy",
                "20s (x240 over 40m)",
                "kubelet",
                "Readiness probe failed: /opt/bitnami/java/bin/java\nClient port found: 2181. Client address: localhost. Client SSL: false.\nError contacting service. It is probably not running.",
            ),
        ],
    )
    k8s[f"kubectl logs {name} -n {ns} --tail=1000"] = podlog(
        [
            (
                -2450,
                "INFO  [main:o.a.z.s.q.QuorumPeerConfig@177] - Reading configuration from: /opt/bitnami/zookeeper/conf/zoo.cfg",
            ),
            (-2448, "INFO  [main:o.a.z.s.q.QuorumPeer@2013] - Local sessions disabled"),
            (
                -2447,
                "INFO  [QuorumPeer[myid=1](plain=[0:0:0:0:0:0:0:0]:2181)(secure=disabled):o.a.z.s.q.QuorumPeer@1453] - LOOKING",
            ),
            (
                -95,
                "WARN  [QuorumConnectionThread-[myid=1]-4:o.a.z.s.q.QuorumCnxManager@401] - Cannot open channel to 2 at election address zk-1.zk-headless.messaging.svc.cluster.local:3888",
            ),
            (-95, sig),
            (
                -95,
                "\tat java.base/java.net.InetAddress$CachedLookup.get(InetAddress.java:988)",
            ),
            (
                -95,
                "WARN  [QuorumConnectionThread-[myid=1]-5:o.a.z.s.q.QuorumCnxManager@401] - Cannot open channel to 3 at election address zk-2.zk-headless.messaging.svc.cluster.local:3888",
            ),
            (
                -95,
                "java.net.UnknownHostException: zk-2.zk-headless.messaging.svc.cluster.local",
            ),
            (
                -94,
                "INFO  [QuorumPeer[myid=1](plain=[0:0:0:0:0:0:0:0]:2181)(secure=disabled):o.a.z.s.q.FastLeaderElection@1067] - Notification time out: 60000 ms",
            ),
        ]
    )
    kname = describe_pod(
        k8s,
        ns,
        kf,
        "0",
        NODES_FRA,
        state=crashloop(1, "Error", -200, -80),
        started=-2340,
        restarts=7,
        owner="StatefulSet/kafka",
        labels="app=kafka,apps.kubernetes.io/pod-index=0,statefulset.kubernetes.io/pod-name=kafka-0",
        events_rows=[
            (
                "Warning",
                "BackOff",
                "60s (x110 over 38m)",
                "kubelet",
                "Back-off restarting failed container kafka in pod kafka-0_messaging(5c7e…)",
            )
        ],
    )
    k8s[f"kubectl logs {kname} -n {ns} --previous --tail=1000"] = podlog(
        [
            (
                -198,
                "[2026-12-05 13:56:42,011] INFO [ZooKeeperClient Kafka server] Initializing a new session to zk.messaging.svc.cluster.local:2181. (kafka.zookeeper.ZooKeeperClient)",
            ),
            (
                -197,
                "[2026-12-05 13:56:43,220] INFO [ZooKeeperClient Kafka server] Waiting until connected. (kafka.zookeeper.ZooKeeperClient)",
            ),
            (
                -81,
                "[2026-12-05 13:58:41,901] ERROR Fatal error during KafkaServer startup. Prepare to shutdown (kafka.server.KafkaServer)",
            ),
            (
                -81,
                "kafka.zookeeper.ZooKeeperClientTimeoutException: Timed out waiting for connection while in state: CONNECTING",
            ),
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "44m",
                "Normal",
                "SuccessfulDelete",
                "StatefulSet/zk",
                "delete Pod zk-2 in StatefulSet zk successful",
            ),
            (
                "41m",
                "Normal",
                "SuccessfulCreate",
                "StatefulSet/zk",
                "create Pod zk-0 in StatefulSet zk successful",
            ),
            (
                "20s",
                "Warning",
                "Unhealthy",
                "Pod/zk-0",
                "Readiness probe failed: Error contacting service. It is probably not running.",
            ),
            (
                "60s",
                "Warning",
                "BackOff",
                "Pod/kafka-0",
                "Back-off restarting failed container kafka in pod kafka-0_messaging(5c7e…)",
            ),
        ]
    )
    evs = [
        ev(
            "gitops",
            "info",
            "argocd: app zk synced to chart zookeeper 13.6.0 (from 11.4.11; values migrated by renovate PR infra#1533, service.headless.publishNotReadyAddresses not set)",
            at=-20500,
        ),
        ev(
            "karpenter",
            "info",
            'disrupting node(s) via replace: "drift" (AMI amazon-eks-node-al2023-x86_64-standard-1.31-v20261202), nodes '
            + ", ".join(n[0] for n in NODES_FRA),
            at=-2760,
        ),
        ev(
            "zookeeper",
            "warn",
            f"Cannot open channel to 2 at election address zk-1.zk-headless.messaging.svc.cluster.local:3888 {sig}",
            **every(start, -30, 60),
            pods=["zk-0"],
        ),
        ev(
            "kafka",
            "error",
            "Fatal error during KafkaServer startup. kafka.zookeeper.ZooKeeperClientTimeoutException: Timed out waiting for connection while in state: CONNECTING",
            **every(start + 60, -80, 120),
            pods=["kafka-0", "kafka-1", "kafka-2"],
        ),
        ev(
            "order-service",
            "error",
            "failed to publish OrderPlaced {n}: org.apache.kafka.common.errors.TimeoutException: Topic order-events not present in metadata after 60000 ms.",
            **every(start + 120, -2, 5),
        ),
        ev(
            "notification-service",
            "warn",
            "consumer group notification-mailer: Bootstrap broker kafka.messaging.svc.cluster.local:9092 (id: -1 rack: null) disconnected",
            **every(start + 60, -5, 15),
        ),
        ev(
            "notification-service",
            "info",
            "notification-service 4.2.0 started (MJML templates for order emails)",
            at=-3300,
        ),
        ev(
            "coredns",
            "info",
            "[INFO] plugin/reload: Running configuration SHA512 = 8c2f1a…",
            at=-2500,
        ),
        ev(
            "kafka",
            "warn",
            "[Partition order-events-3 broker=1] Shrinking ISR from 1,2,3 to 1. Leader: (highWatermark: {n}, endOffset: {n}). Out of sync replicas: (brokerId: 2), (brokerId: 3)",
            **every(-9500, -9100, 90),
            pods=["kafka-0"],
        ),
    ]
    return kube_case(
        seed=407,
        start=start,
        inc=incident(
            "Order confirmation emails not sent",
            "order emails",
            start,
            ["customers get no email after ordering"],
        ),
        exp=expected(
            "dns",
            [
                "service/zk-headless",
                "zk-headless",
                "publishNotReadyAddresses",
                "statefulset/zk",
                "zk",
                "zookeeper 13.6.0",
            ],
            sig,
            "The zookeeper chart upgrade to 13.6.0 rewrote the headless Service zk-headless without publishNotReadyAddresses: true. ZooKeeper pods only become Ready with a quorum, and DNS now publishes only Ready pods, so when Karpenter's AMI drift replacement restarted all three pods none had a DNS record: each peer gets UnknownHostException for the others' election addresses and no quorum forms. Kafka cannot connect to ZooKeeper and crash-loops, order-service cannot publish and the mailer gets nothing. The node rotation (the trigger), CoreDNS's reload, the mailer's release and the old ISR shrink are not the cause.",
            [
                f"zk-0 log: Cannot open channel to 2 at election address …: {sig}",
                "zk-headless: no publishNotReadyAddresses; endpoints <none>; chart zookeeper 13.6.0",
                "karpenter replaced all three nodes 46 min ago",
            ],
            "Set publishNotReadyAddresses: true on zk-headless (service.headless.publishNotReadyAddresses in the chart), wait for the quorum, then let Kafka start.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "order-service",
                ["order-service-7b9c8d6f5-k2vqz", "order-service-7b9c8d6f5-x8mtd"],
                ["POST /orders 201 {ms}ms"],
                8,
            )
        ],
        evs=evs,
        services=[svc("order-service", 35, {"500": (0.0005, 0.0008)}, (0.08, 0.09))],
        books={
            "kafka-broker-down.md": runbook(
                "Kafka broker down",
                "If a broker crash-loops, check the disk of its PVC and the under-replicated partitions; restart brokers one at a time with `kubectl delete pod kafka-N` and wait for ISR to recover.",
            )
        },
    )


# =================================================================================================
# 8. TLS: cert-manager renewed ledger-grpc's certificate a month ago and updated the Secret, but
#    the Go gRPC server reads its key pair only at start; its pods have run for 89 days, so they
#    still serve the old certificate, which expired 35 minutes ago. cert-manager shows everything
#    Ready. The incident says "payments".
# =================================================================================================


@scenario("grpc-server-keeps-expired-cert-after-renewal")
def grpc_server_keeps_expired_cert_after_renewal() -> dict[str, Any]:
    start = -2100
    ns = "ledger"
    lg = app(
        "ledger-grpc",
        image="ghcr.io/coinwell/ledger-grpc:2.19.0",
        port=9443,
        rs="6d7b9c8f4",
        cluster_ip="172.20.9.15",
        age="701d",
        pods=[
            ("c4nqz", "1/1", "Running", "0", "89d", 0),
            ("j8wrx", "1/1", "Running", "0", "89d", 1),
            ("t2kmd", "1/1", "Running", "0", "89d", 2),
        ],
    )
    k8s = namespace(
        ns,
        NODES_DUB,
        [lg],
        seed=408,
        secrets=[
            ("ledger-grpc-tls", "kubernetes.io/tls", "3", "701d"),
            ("ledger-db", "Opaque", "2", "701d"),
        ],
    )
    k8s[f"kubectl describe secrets ledger-grpc-tls -n {ns}"] = (
        f"Name:         ledger-grpc-tls\nNamespace:    {ns}\nLabels:       controller.cert-manager.io/fao=true\n"
        "Annotations:  cert-manager.io/alt-names: ledger-grpc.ledger.svc,ledger-grpc.ledger.svc.cluster.local\n"
        "              cert-manager.io/certificate-name: ledger-grpc\n"
        "              cert-manager.io/common-name: ledger-grpc.ledger.svc\n"
        "              cert-manager.io/issuer-kind: ClusterIssuer\n"
        "              cert-manager.io/issuer-name: internal-ca\n\n"
        "Type:  kubernetes.io/tls\n\nData\n====\nca.crt:   1159 bytes\ntls.crt:  1468 bytes\ntls.key:  1675 bytes\n"
    )
    cont = container_text(
        "ledger-grpc",
        lg["image"],
        9443,
        env={
            "TLS_CERT_FILE": "/etc/ledger/tls/tls.crt",
            "TLS_KEY_FILE": "/etc/ledger/tls/tls.key",
        },
    ).replace(
        "from kube-api-access (ro)",
        "from kube-api-access (ro)\n      /etc/ledger/tls from tls (ro)",
    )
    k8s[f"kubectl describe deployments ledger-grpc -n {ns}"] = deployment_describe(
        "ledger-grpc",
        ns,
        replicas="3 desired | 3 updated | 3 total | 3 available | 0 unavailable",
        revision=57,
        containers=cont,
        conditions=[
            ("Available", "True", "MinimumReplicasAvailable"),
            ("Progressing", "True", "NewReplicaSetAvailable"),
        ],
        old_rs="ledger-grpc-5b8d6c7f9 (0/0 replicas created)",
        new_rs=f"ledger-grpc-{lg['rs']} (3/3 replicas created)",
        created=-60566400,
    )
    k8s[f"kubectl events -n {ns}"] = f"No events found in {ns} namespace.\n"
    sig = "remote error: tls: expired certificate"
    lp = pods_of(lg)
    evs = [
        ev(
            "cert-manager",
            "info",
            'I1105 13:25:02.118231       1 conditions.go:192] "certificates-issuing: issued certificate" resource_name="ledger-grpc" resource_namespace="ledger" secret="ledger-grpc-tls" notAfter="2027-02-03T13:25:00Z"',
            at=-2592000,
        ),
        ev(
            "cert-manager",
            "info",
            '"certificates-readiness: Certificate is ready" resource_name="{n}-tls" resource_namespace="web" renewal in 21d',
            **every(-7000, -300, 900),
        ),
        ev(
            "ledger-grpc",
            "warn",
            'grpc: Server.Serve failed to complete security handshake from "10.88.2.41:51234": '
            + sig,
            **every(start, -2, 4),
            pods=lp,
        ),
        ev(
            "payment-api",
            "error",
            'ledger.Reserve: rpc error: code = Unavailable desc = connection error: desc = "transport: authentication handshake failed: tls: failed to verify certificate: x509: certificate has expired or is not yet valid: current time 2026-12-05T13:41:07Z is after 2026-12-05T13:25:00Z"',
            **every(start + 5, -1, 3),
        ),
        ev(
            "payment-api",
            "error",
            "POST /v1/card-payments 503 ledger unavailable, authorisation declined",
            **every(start + 5, -1, 3),
        ),
        ev(
            "payment-api",
            "info",
            "payment-api 11.2.0 ready (3DS2 frictionless for UK issuers)",
            at=-3900,
        ),
        ev(
            "payment-api",
            "error",
            "ledger.Reserve: rpc error: code = DeadlineExceeded desc = context deadline exceeded",
            **every(-9600, -9200, 70),
        ),
    ]
    return kube_case(
        seed=408,
        start=start,
        inc=incident("Card payments declining", "payments", start),
        exp=expected(
            "tls",
            [
                "deployment/ledger-grpc",
                "ledger-grpc",
                "ledger-grpc.ledger.svc",
                "ledger-grpc-tls",
            ],
            sig,
            "ledger-grpc's certificate from cert-manager (90 days, renewed 30 days before expiry) was renewed on 5 November and the Secret ledger-grpc-tls updated, but the Go gRPC server loads its key pair only at start. Its pods have run for 89 days, so they still serve the first certificate, which expired at 13:25. payment-api's TLS verification fails (x509: certificate has expired) and card payments are declined. cert-manager is healthy and the Certificate is Ready; payment-api's release and the old deadline errors are not the cause.",
            [
                f"ledger-grpc: Server.Serve failed to complete security handshake: {sig}",
                "payment-api: x509: certificate has expired … is after 2026-12-05T13:25:00Z",
                "cert-manager issued the renewal 30 days ago; ledger-grpc pods are 89 days old",
            ],
            "Restart ledger-grpc (kubectl rollout restart) to load the renewed certificate; then make it reload on change (watch the files or use a reloader annotation).",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "ledger-grpc",
                lp,
                [
                    "/ledger.v1.Ledger/Reserve OK {ms}ms",
                    "/ledger.v1.Ledger/Commit OK {ms}ms",
                ],
                8,
                until=start,
            )
        ],
        evs=evs,
        services=[svc("payment-api", 70, {"503": (0.0005, 0.62)}, (0.15, 0.02))],
        books={
            "tls-errors.md": runbook(
                "TLS certificate errors between services",
                "x509 expiry errors mean cert-manager failed to renew: check `kubectl get certificate -A` for Ready=False and renew with `cmctl renew <name>`.",
            )
        },
    )


# =================================================================================================
# 9. Third-party limit (a cloud API quota): a new data-lake compaction backfill reads millions of
#    small SSE-KMS objects without S3 Bucket Keys; every GET is a KMS Decrypt, and the account's
#    shared KMS request quota in us-east-1 is spent. Every other KMS caller is throttled, among them
#    the upload API's PutObject with SSE-KMS. The incident says "uploads".
# =================================================================================================


@scenario("kms-quota-spent-by-compaction-backfill")
def kms_quota_spent_by_compaction_backfill() -> dict[str, Any]:
    start = -1860
    up = [
        "upload-api-7c9d8b6f5-2kxwq",
        "upload-api-7c9d8b6f5-h8vzm",
        "upload-api-7c9d8b6f5-q4tnc",
    ]
    lc = ["lake-compactor-driver-0"]
    sig = "You have exceeded the rate at which you may call KMS. Reduce the frequency of your calls."
    evs = [
        ev(
            "airflow",
            "info",
            "DAG lake_compaction_backfill triggered manually by j.okafor: lake-compactor 1.0.0, source s3://harbor-datalake-raw/events/ (2019-2026, ~310M objects), parallelism 400",
            at=start - 240,
        ),
        ev(
            "lake-compactor",
            "info",
            "compaction progress: {n} objects read from s3://harbor-datalake-raw/events/ (SSE-KMS, BucketKeyEnabled=false), 400 tasks running",
            **every(start - 200, -30, 120),
            pods=lc,
        ),
        ev(
            "lake-compactor",
            "warn",
            f"S3AInputStream: retrying GET after com.amazonaws.services.s3.model.AmazonS3Exception: {sig} (Service: Amazon S3; Status Code: 503; Error Code: ThrottlingException)",
            **every(start + 60, -20, 90),
            pods=lc,
        ),
        ev(
            "cloudwatch",
            "warn",
            'alarm "kms-shared-quota-us-east-1" ALARM: AWS/Usage CallCount (Service KMS, Resource CryptographicOperationsSymmetric) 9,870/s of quota 10,000/s; top caller arn:aws:sts::318274650911:assumed-role/lake-compactor-emr/…',
            **every(start, -60, 300),
        ),
        ev(
            "upload-api",
            "error",
            f"PUT s3://harbor-docs-prod/{{n}}.pdf failed: botocore.exceptions.ClientError: An error occurred (ThrottlingException) when calling the PutObject operation (reached max retries: 4): {sig}",
            **every(start + 20, -2, 4),
            pods=up,
        ),
        ev(
            "mobile-gateway",
            "error",
            "POST /api/documents 502 upstream upload-api returned 500 after {ms}00ms",
            **every(start + 25, -1, 2),
        ),
        ev(
            "upload-api",
            "info",
            "upload-api 3.8.0 started (HEIC to PDF conversion)",
            at=-3400,
            pods=up,
        ),
        ev(
            "av-scanner",
            "warn",
            "clamd: LibClamAV Warning: cli_scanxz: decompress file size exceeds limits - only scanning {n} bytes",
            **every(-6800, -60, 400),
        ),
        ev(
            "upload-api",
            "error",
            "PUT s3://harbor-docs-prod/{n}.pdf failed: An error occurred (SlowDown) when calling the PutObject operation: Please reduce your request rate.",
            **every(-9600, -9300, 60),
            pods=up,
        ),
    ]
    return simple(
        409,
        start,
        incident(
            "Uploads failing in the app",
            "uploads",
            start,
            ["'could not upload your document, try again'"],
        ),
        expected(
            "http",
            [
                "lake-compactor",
                "lake-compactor 1.0.0",
                "lake_compaction_backfill",
                "KMS request quota",
                "kms",
            ],
            sig,
            "A manually triggered lake_compaction_backfill (lake-compactor 1.0.0, 400 parallel tasks) reads hundreds of millions of small objects encrypted with SSE-KMS in a bucket without S3 Bucket Keys, so every GET is a KMS Decrypt. That spends the account's shared KMS cryptographic-operations quota in us-east-1 (9,870 of 10,000 per second), and every other KMS caller is throttled: upload-api's PutObject with SSE-KMS fails with ThrottlingException after its retries and document uploads fail. upload-api's release, the antivirus warnings and the old S3 SlowDown are not the cause.",
            [
                f"upload-api: PutObject ThrottlingException: {sig}",
                "cloudwatch: KMS CryptographicOperationsSymmetric 9,870/s of 10,000/s, top caller lake-compactor-emr",
                "airflow: lake_compaction_backfill started 35 min ago",
            ],
            "Pause the backfill; enable S3 Bucket Keys on harbor-datalake-raw (and re-encrypt or run with low parallelism); ask for a higher KMS quota if the backfill must run.",
        ),
        [
            bg(
                "upload-api",
                up,
                ["POST /v2/documents 201 {ms}ms", "GET /v2/documents/{n} 200 {ms}ms"],
                8,
            )
        ],
        evs,
        [
            svc("upload-api", 25, {"500": (0.0005, 0.7)}, (0.3, 2.4)),
            svc("mobile-gateway", 260, {"502": (0.0001, 0.05)}, (0.06, 0.2)),
        ],
        [],
        {
            "s3-throttling.md": runbook(
                "S3 throttling on uploads",
                "S3 SlowDown / throttling on PutObject means too many requests on one prefix: spread keys with a hash prefix (UPLOAD_KEY_SHARDING=true) and lower upload-api's concurrency.",
            )
        },
    )


# =================================================================================================
# 10. Network delay: the network team's Transit Gateway change sends traffic between the app VPC
#     and the data VPC through the new inspection VPC (AWS Network Firewall). Round trips to the
#     orders database went from 0.5 ms to ~7 ms; the database is as fast as ever, but the order
#     history endpoint's 150 sequential queries now take a second more. The incident says
#     "my orders page".
# =================================================================================================


@scenario("transit-gateway-route-via-inspection-vpc")
def transit_gateway_route_via_inspection_vpc() -> dict[str, Any]:
    start = -2520
    oh = ["order-history-5f7c9d8b6-4qwzn", "order-history-5f7c9d8b6-k7rxt"]
    sig = "order-history -> orders-db.data.internal:5432 tcp rtt p50 6.9ms p99 11.4ms (baseline p50 0.5ms)"
    evs = [
        ev(
            "terraform",
            "info",
            "apply network-prod: aws_ec2_transit_gateway_route.app_to_data: tgw-rtb-0a7c3e91f2d4b6850 10.40.0.0/16 -> tgw-attach-0c4e8a1b7d2f93651 (inspection-vpc) (was tgw-attach-09b2d6e4a1c7f8350 data-vpc), PR net#418 'east-west inspection phase 2'",
            at=start - 30,
        ),
        ev(
            "pingmesh",
            "info",
            "order-history -> orders-db.data.internal:5432 tcp rtt p50 0.5ms p99 0.9ms",
            **every(-7000, start - 60, 300),
        ),
        ev("pingmesh", "warn", sig, **every(start + 30, -30, 300)),
        ev(
            "order-history",
            "warn",
            "GET /v1/customers/{n}/orders slow: 1{ms}0ms total, 152 SQL statements, db time 61ms",
            **every(start + 40, -4, 9),
            pods=oh,
        ),
        ev(
            "web-bff",
            "error",
            "GET /account/orders 504 upstream order-history timed out after 2000ms",
            **every(start + 300, -2, 7),
        ),
        ev(
            "orders-db",
            "info",
            'LOG:  automatic vacuum of table "orders.public.order_lines": index scans: 1 pages: 0 removed, {n} remain',
            **every(-6000, -100, 700),
        ),
        ev(
            "order-history",
            "info",
            "order-history 12.4.0 started (returns tab)",
            at=-4100,
            pods=oh,
        ),
        ev(
            "network-firewall",
            "info",
            '{"firewall_name":"east-west-fw","availability_zone":"us-east-1a","event":{"event_type":"netflow","src_ip":"10.20.4.77","dest_ip":"10.40.3.18","dest_port":5432,"proto":"TCP","app_proto":"postgresql"}}',
            **every(start, -5, 60),
        ),
        ev(
            "order-history",
            "error",
            "GET /v1/customers/{n}/orders 500: org.postgresql.util.PSQLException: ERROR: canceling statement due to statement timeout",
            **every(-9800, -9400, 80),
            pods=oh,
        ),
    ]
    return simple(
        410,
        start,
        incident("My orders page very slow", "my orders page", start),
        expected(
            "connect",
            [
                "tgw-rtb-0a7c3e91f2d4b6850",
                "transit gateway route",
                "inspection-vpc",
                "east-west-fw",
                "tgw-attach-0c4e8a1b7d2f93651",
            ],
            sig,
            "A Transit Gateway route change (net#418) sends app-VPC traffic for the data VPC through the inspection VPC's Network Firewall. Each round trip to orders-db went from 0.5 ms to about 7 ms. The database's own time is unchanged (61 ms of db time per request), but the order history endpoint runs about 150 sequential statements, so each request takes about a second longer and the BFF's 2 s timeout starts to hit. order-history's release, the autovacuum lines and the old statement timeouts are not the cause.",
            [
                f"pingmesh: {sig}",
                "terraform: tgw-rtb-0a7c3e91f2d4b6850 10.40.0.0/16 -> inspection-vpc 42 min ago",
                "order-history: 152 SQL statements, db time 61ms, total > 1 s",
            ],
            "Route the data VPC directly again (or exempt the app-data flow from inspection) and batch order-history's queries.",
        ),
        [
            bg(
                "order-history",
                oh,
                ["GET /v1/customers/{n}/orders 200 {ms}ms"],
                8,
                until=start,
            )
        ],
        evs,
        [
            svc("order-history", 45, {"500": (0.0005, 0.0008)}, (0.18, 1.25)),
            svc("web-bff", 300, {"504": (0.0001, 0.012)}, (0.07, 0.11)),
        ],
        [],
        {
            "orders-db-slow.md": runbook(
                "orders-db slow",
                "If order pages are slow, the orders database is usually bloated: check autovacuum on order_lines, run VACUUM ANALYZE and look for missing indexes with pg_stat_statements.",
            )
        },
        ramps=[
            ramp(
                "network_tcp_rtt_seconds",
                {"src": "order-history", "dst": "orders-db"},
                0.0005,
                0.0069,
                start - 20,
                start + 10,
            )
        ],
    )


# =================================================================================================
# 11. Config change: the load balancers' Ansible role 3.0 moved `maxconn` from the defaults
#     section to the server template and wrote the per-server value, 32, where it meant the
#     frontend's. With 4 servers HAProxy admits 128 requests to the API at a time; at the noon peak
#     requests queue, wait out `timeout queue 10s` and get 503 (`sQ`). The API servers are idle.
#     The incident says "the API".
# =================================================================================================


@scenario("haproxy-server-maxconn-from-template")
def haproxy_server_maxconn_from_template() -> dict[str, Any]:
    start = -1500
    api = ["api-1", "api-2", "api-3", "api-4"]
    sig = "sQ--"
    evs = [
        ev(
            "ansible",
            "info",
            "PLAY RECAP lb-1.prod.otterbox.io : ok=41 changed=2 (role haproxy 3.0.0: haproxy.cfg: 'defaults maxconn 2000' removed, 'server-template api 4 _api._tcp.prod.otterbox.io resolvers consul check maxconn 32' added); haproxy reloaded",
            at=-6900,
        ),
        ev(
            "haproxy",
            "info",
            'lb-1 haproxy[2211]: 10.0.3.14:51544 [05/Dec/2026:13:40:01.112] fe_https~ be_api/api2 0/10001/-1/-1/10001 503 217 - - sQ-- 812/790/128/32/0 0/96 "POST /v2/orders HTTP/1.1"',
            **every(start, -1, 2),
        ),
        ev(
            "haproxy",
            "info",
            'lb-1 haproxy[2211]: 10.0.3.17:40211 [05/Dec/2026:13:40:02.310] fe_https~ be_api/api3 0/3120/0/41/3161 200 1822 - - ---- 814/792/128/32/0 0/71 "GET /v2/catalogue HTTP/1.1"',
            **every(start, -3, 6),
        ),
        ev(
            "api",
            "info",
            "gunicorn: {n} requests/min, 32 in flight of 128 worker threads, p99 {ms}ms",
            **every(-7000, -30, 120),
            pods=api,
        ),
        ev(
            "api",
            "info",
            "api 2026.12.4 deployed (order notes field)",
            at=-2800,
            pods=api,
        ),
        ev(
            "mobile-bff",
            "error",
            "POST /orders failed: upstream https://api.otterbox.io/v2/orders 503 Service Unavailable after 10.0s",
            **every(start + 10, -1, 2),
        ),
        ev(
            "marketing",
            "info",
            "campaign 'twelve days' email sent to 880k subscribers at 12:30",
            at=start - 600,
        ),
        ev(
            "api-db",
            "warn",
            "LOG:  checkpoints are occurring too frequently (19 seconds apart)",
            **every(-5000, -200, 900),
        ),
        ev(
            "api",
            "error",
            "POST /v2/orders 500: psycopg.errors.SerializationFailure: could not serialize access due to concurrent update",
            **every(-9700, -9400, 60),
            pods=api,
        ),
    ]
    spec = simple(
        411,
        start,
        incident(
            "API returning 503s",
            "the API",
            start,
            ["orders fail in the app with 'service unavailable'"],
        ),
        expected(
            "http",
            ["haproxy", "lb-1", "be_api", "haproxy maxconn", "role haproxy 3.0.0"],
            sig,
            "The load balancers' Ansible role 3.0.0 removed 'maxconn 2000' from HAProxy's defaults and put 'maxconn 32' on the API server template: HAProxy now sends at most 32 concurrent requests to each of the four API servers. At the noon peak (the campaign email) more requests arrive; they wait in HAProxy's queue, hit 'timeout queue 10s' and get a 503 with termination state sQ, while the API servers run 32 of their 128 threads. The API's release, the database checkpoints and the old serialization failure are not the cause.",
            [
                f"haproxy: be_api 503 after 10001 ms in queue, termination {sig}, 32 sessions per server",
                "ansible: role haproxy 3.0.0 'server-template … maxconn 32', defaults maxconn removed",
                "api: 32 in flight of 128 threads",
            ],
            "Set the server maxconn back (e.g. 128 per server, or none) and restore the defaults' maxconn; reload HAProxy.",
        ),
        [
            bg(
                "api",
                api,
                ["GET /v2/catalogue 200 {ms}ms", "POST /v2/orders 201 {ms}ms"],
                8,
            )
        ],
        evs,
        [
            svc("haproxy", 520, {"503": (0.0, 0.18)}, (0.05, 3.5)),
            svc("api", 430, {"500": (0.0005, 0.0005)}, (0.04, 0.045)),
        ],
        [
            {
                "name": "haproxy_backend_current_queue",
                "labels": {"proxy": "be_api"},
                "before": 0,
                "after": 640,
                "change_at": start,
            }
        ],
        {
            "api-503.md": runbook(
                "API 503s",
                "503s from the API mean the API servers are overloaded: add servers to the consul service (scale the api ASG to 8) and check the database's checkpoints.",
            )
        },
    )
    spec["targets"] = [
        {
            "name": "api",
            "url": "https://api.otterbox.io/v2/orders",
            "fault": {
                "kind": "http_status",
                "status": 503,
                "body": "<html><body><h1>503 Service Unavailable</h1>\nNo server is available to handle this request.\n</body></html>\n",
                "headers": {"Content-Type": "text/html", "Cache-Control": "no-cache"},
                "delay_s": 10,
            },
            "timeout_s": 15,
        },
        {
            "name": "api-2-direct",
            "url": "http://api-2.prod.otterbox.io/v2/health",
            "fault": {"kind": "ok"},
        },
    ]
    spec["expected"]["root_cause_probe"] = "api"
    spec["expected"]["netcheck"] = {
        "api": {"failed_layer": "http", "reason": "http_503"},
        "api-2-direct": {"failed_layer": "none", "reason": None},
    }
    return spec


# =================================================================================================
# 12. Quiet root cause, louder victims: two days ago transfer-service crashed between PREPARE and
#     COMMIT of a two-phase commit. The prepared transaction was never resolved; it holds row locks
#     on the accounts of a few large merchants. Nothing used those rows until today's settlement
#     run, which now waits on them; payouts stall and pile up. The only direct sign is a monitoring
#     check's warning. The incident says "payouts".
# =================================================================================================


@scenario("orphaned-prepared-transaction-holds-locks")
def orphaned_prepared_transaction_holds_locks() -> dict[str, Any]:
    start = -2580
    ps = ["payout-service-6c8d9b7f5-2wqkx", "payout-service-6c8d9b7f5-n5vhz"]
    sig = "prepared transaction gid '131077_dHJhbnNmZXItc3ZjLTE3MzMx' (transaction 918274411) prepared 2026-12-03 02:14:09+00"
    evs = [
        ev(
            "pg-monitor",
            "warn",
            f"check_postgres prepared_txns WARNING: ledger-pg: {sig}, owner transfer_svc, database ledger, age 2 days 11:45:51",
            **every(-7100, -60, 900),
        ),
        ev(
            "ledger-pg",
            "info",
            'LOG:  process {n} still waiting for ShareLock on transaction 918274411 after 1000.061 ms\nCONTEXT:  while updating tuple (1042,7) in relation "accounts"\nSTATEMENT:  UPDATE accounts SET balance = balance - $1, updated_at = now() WHERE merchant_id = $2',
            **every(start + 20, -10, 30),
        ),
        ev(
            "payout-service",
            "error",
            "settlement batch {n}: merchant payout failed: org.postgresql.util.PSQLException: ERROR: canceling statement due to lock timeout (UPDATE accounts … WHERE merchant_id = $2)",
            **every(start + 30, -2, 5),
            pods=ps,
        ),
        ev(
            "payout-service",
            "warn",
            "settlement queue depth {n} (oldest 3{ms}s), retrying failed payouts",
            **every(start + 60, -20, 60),
            pods=ps,
        ),
        ev(
            "scheduler",
            "info",
            "cron: daily-settlement started (batch 2026-12-05, 41,208 merchants)",
            at=start - 30,
        ),
        ev(
            "payout-service",
            "info",
            "payout-service 6.3.0 started (SEPA Instant for NL)",
            at=-3900,
            pods=ps,
        ),
        ev(
            "pgbouncer",
            "warn",
            "C-0x55d0c8: ledger/payout_svc@10.30.2.19:50122 closing because: client_idle_timeout (age=600s)",
            **every(-6500, -100, 500),
        ),
        ev(
            "analytics-replica",
            "warn",
            "replication lag 3{ms}s on ledger-pg-replica-2 (hot_standby_feedback on)",
            **every(-5000, -300, 600),
        ),
        ev(
            "payout-service",
            "error",
            "bank API POST /sepa/credit-transfers failed: java.net.SocketException: Connection reset",
            **every(-9600, -9100, 90),
            pods=ps,
        ),
    ]
    return simple(
        412,
        start,
        incident("Merchant payouts late", "payouts", start),
        expected(
            "application",
            [
                "ledger-pg",
                "pg_prepared_xacts",
                "131077_dHJhbnNmZXItc3ZjLTE3MzMx",
                "transaction 918274411",
                "transfer-service",
                "prepared transaction",
            ],
            sig,
            "Two days ago transfer-service crashed between PREPARE TRANSACTION and COMMIT PREPARED; the prepared transaction 918274411 was never resolved and still holds row locks on a few large merchants' accounts rows. Nothing touched those rows until today's daily settlement, whose UPDATEs on accounts now wait for that transaction and hit the lock timeout; payouts fail and the queue grows. Only the monitoring check names the prepared transaction. The settlement run (the trigger), payout-service's release, PgBouncer's idle timeouts, replica lag and the old bank connection reset are not the cause.",
            [
                f"pg-monitor: {sig}",
                "ledger-pg: still waiting for ShareLock on transaction 918274411 while updating accounts",
                "payout-service: lock timeout on UPDATE accounts since the settlement started",
            ],
            "After checking with the transfer team, resolve the orphan: ROLLBACK PREPARED '131077_dHJhbnNmZXItc3ZjLTE3MzMx' (or COMMIT PREPARED if the transfer completed); set up transaction recovery for transfer-service's coordinator.",
        ),
        [bg("payout-service", ps, ["payout {n} sent {ms}ms"], 8, until=start)],
        evs,
        [svc("payout-service", 18, {"500": (0.001, 0.35)}, (0.09, 4.5))],
        [
            {
                "name": "pg_locks_waiting",
                "labels": {"instance": "ledger-pg"},
                "before": 0,
                "after": 38,
                "change_at": start,
            }
        ],
        {
            "payouts-stuck.md": runbook(
                "Payouts stuck",
                "If payouts stall, restart the payout-service workers (they can lose their bank session) and re-queue the failed batch from the admin UI.",
            )
        },
    )


# =================================================================================================
# 13. Shared back end: the growth team's new loyalty-insights job runs an aggregation on the shared
#     MongoDB replica set's customers collection with a $match on a field that has no index. Each
#     run scans 42 M documents on the primary and holds WiredTiger read tickets; every service
#     sharing rs-shop sees reads queue and time out. The incident says "my account".
# =================================================================================================


@scenario("mongo-collscan-aggregation-shared-replica-set")
def mongo_collscan_aggregation_shared_replica_set() -> dict[str, Any]:
    start = -1740
    pa = ["profile-api-7d8f9c6b5-2kqwz", "profile-api-7d8f9c6b5-m9tvx"]
    li = ["loyalty-insights-29419815-8xk2c"]
    sig = '"appName":"loyalty-insights","planSummary":"COLLSCAN","keysExamined":0,"docsExamined":41877102'
    slow = (
        '{"t":{"$date":"2026-12-05T13:{n}Z"},"s":"I","c":"COMMAND","id":51803,"ctx":"conn48211","msg":"Slow query",'
        '"attr":{"type":"command","ns":"shop.customers",'
        + sig
        + ',"command":{"aggregate":"customers","pipeline":[{"$match":{"lastPurchaseAt":{"$gte":{"$date":"2026-06-05T00:00:00Z"}},"tier":{"$in":["gold","platinum"]}}},{"$group":{"_id":"$region","n":{"$sum":1}}}],"allowDiskUse":true},'
        '"cursorExhausted":true,"numYields":327104,"readConcern":{"level":"majority"},"durationMillis":184220}}'
    )
    evs = [
        ev(
            "gitops",
            "info",
            "argocd: app loyalty-insights synced 1.0.0 (CronJob loyalty-insights */15 * * * *, MONGO_URI mongodb://rs-shop-0,rs-shop-1,rs-shop-2/shop?readPreference=primary, PR growth#12 'tier churn dashboard')",
            at=start - 150,
        ),
        ev("rs-shop", "info", slow.replace("13:{n}Z", "13:32:04.118Z"), at=start + 200),
        ev("rs-shop", "info", slow.replace("13:{n}Z", "13:47:11.902Z"), at=-780),
        ev(
            "rs-shop",
            "warn",
            "serverStatus rs-shop-0 (PRIMARY): wiredTiger.concurrentTransactions.read out 128 available 0, globalLock.currentQueue.readers {n}",
            **every(start + 60, -30, 120),
        ),
        ev(
            "loyalty-insights",
            "info",
            "aggregating tier churn over shop.customers ...",
            **every(start, -60, 900),
            pods=li,
        ),
        ev(
            "profile-api",
            "error",
            "GET /v1/me 500: MongoServerError: Executor error during find command :: caused by :: operation exceeded time limit (code 50 MaxTimeMSExpired)",
            **every(start + 30, -2, 4),
            pods=pa,
        ),
        ev(
            "auth-service",
            "error",
            "login failed for session lookup: MongoServerError: operation exceeded time limit (maxTimeMS 1500) on shop.sessions",
            **every(start + 40, -1, 3),
        ),
        ev(
            "profile-api",
            "info",
            "profile-api 9.1.0 started (address autocomplete)",
            at=-3000,
            pods=pa,
        ),
        ev(
            "search-indexer",
            "warn",
            "Elasticsearch bulk request took {ms}00ms, 0 errors, {n} docs",
            **every(-6500, -50, 240),
        ),
        ev(
            "profile-api",
            "error",
            "GET /v1/me 500: MongoNetworkError: connection 14 to rs-shop-1:27017 closed",
            **every(-9800, -9500, 60),
            pods=pa,
        ),
    ]
    return simple(
        413,
        start,
        incident("My account pages and login timing out", "my account", start),
        expected(
            "application",
            [
                "loyalty-insights",
                "loyalty-insights 1.0.0",
                "cronjob/loyalty-insights",
                "shop.customers",
                "rs-shop",
            ],
            sig,
            "loyalty-insights 1.0.0, a new CronJob every 15 minutes, runs an aggregation on the shared rs-shop primary whose $match on lastPurchaseAt and tier has no index: each run is a COLLSCAN of 42 M customer documents that lasts three minutes and yields over 300k times while holding read tickets. The primary runs out of WiredTiger read tickets (0 of 128 available), reads of every service sharing rs-shop queue and hit their maxTimeMS: profile-api and auth-service fail. profile-api's release, the Elasticsearch bulk timings and the old network error are not the cause.",
            [
                f"rs-shop slow query: {sig}, durationMillis 184220",
                "rs-shop primary: wiredTiger read tickets available 0",
                "argocd: loyalty-insights 1.0.0 with readPreference=primary 32 min ago",
            ],
            "Suspend the loyalty-insights CronJob; run it against a secondary / analytics node with an index on {tier, lastPurchaseAt}.",
        ),
        [
            bg(
                "profile-api",
                pa,
                ["GET /v1/me 200 {ms}ms", "GET /v1/me/addresses 200 {ms}ms"],
                8,
            )
        ],
        evs,
        [
            svc("profile-api", 140, {"500": (0.0005, 0.3)}, (0.02, 1.2)),
            svc("auth-service", 60, {"500": (0.0002, 0.25)}, (0.03, 1.4)),
        ],
        [
            {
                "name": "mongodb_wiredtiger_concurrent_transactions_available_tickets",
                "labels": {"instance": "rs-shop-0", "type": "read"},
                "before": 126,
                "after": 0,
                "change_at": start,
            }
        ],
        {
            "mongo-timeouts.md": runbook(
                "MongoDB timeouts in profile-api",
                "MaxTimeMSExpired in profile-api means its connection pool is too small for the traffic: raise MONGO_MAX_POOL_SIZE to 200 and restart profile-api.",
            )
        },
    )


# =================================================================================================
# 14. Performance: quote-engine's rates-client 3.0.0 replaced its Netty transport with a blocking
#     socket that writes each request's header and body in two writes without TCP_NODELAY. Nagle
#     holds the body until the server's delayed ACK (40 ms) each time: every rates lookup takes
#     ~41 ms instead of under 1 ms, and a quote makes 14 lookups in a row. No error at first; then
#     the partner API's 2 s timeout. The incident says "comparison sites".
# =================================================================================================


@scenario("nagle-delayed-ack-rates-client")
def nagle_delayed_ack_rates_client() -> dict[str, Any]:
    start = -2220
    qe = [
        "quote-engine-58c7d9f6b-4kzqt",
        "quote-engine-58c7d9f6b-9wvxm",
        "quote-engine-58c7d9f6b-r2hdn",
    ]
    sig = "rates-client 3.0.0 transport=blocking-socket tcpNoDelay=false soTimeout=2000"
    evs = [
        ev(
            "quote-engine",
            "info",
            f"quote-engine 7.0.0 started: {sig}",
            at=start - 40,
            pods=qe,
        ),
        ev(
            "quote-engine",
            "info",
            "quote {n} priced: 14 rates lookups, rates time 578ms (rates-engine server time 6ms), total 6{ms}ms",
            **every(start + 20, -5, 12),
            pods=qe,
        ),
        ev(
            "rates-engine",
            "info",
            "lookup tariff=motor-2026Q4 served in 0.4ms, cache hit",
            **every(-7000, -10, 60),
        ),
        ev(
            "rates-engine",
            "info",
            "tariff upload motor-2026Q4 revision 18 loaded: {n} cells, reindex 2.1s",
            at=start - 20,
        ),
        ev(
            "partner-api",
            "error",
            "POST /comparison/v3/quotes 504: quote-engine did not answer within 2000ms (partner=comparefox)",
            **every(start + 600, -2, 8),
        ),
        ev(
            "quote-engine",
            "info",
            "[gc] GC(4182) Pause Young (Normal) (G1 Evacuation Pause) 412M->96M(1024M) 11.8ms",
            **every(-7000, -20, 90),
            pods=qe,
        ),
        ev(
            "rates-engine",
            "error",
            "client 10.12.3.41:51772 connection reset by peer",
            **every(-9600, -9200, 80),
        ),
    ]
    return simple(
        414,
        start,
        incident(
            "Car insurance quotes slow",
            "comparison sites",
            start,
            ["comparison sites show us as unavailable"],
        ),
        expected(
            "application",
            [
                "quote-engine",
                "rates-client 3.0.0",
                "rates-client",
                "quote-engine 7.0.0",
                "tcpNoDelay",
            ],
            sig,
            "quote-engine 7.0.0 ships rates-client 3.0.0, which replaced Netty with a blocking socket: each lookup is written as a header and a body in two writes with TCP_NODELAY off. Nagle's algorithm holds the second write until the rates-engine's delayed ACK, 40 ms later, so every lookup takes about 41 ms although the server answers in under a millisecond; a quote makes 14 lookups in a row, about 0.6 s more, and at the evening peak the partner API's 2 s timeout starts to hit. The tariff upload at the same time (looks like the trigger), the GC pauses and the old connection reset are not the cause.",
            [
                f"quote-engine start: {sig}",
                "quote-engine: 14 rates lookups, rates time 578ms, server time 6ms",
                "rates-engine serves lookups in 0.4 ms",
            ],
            "Set TCP_NODELAY on the rates-client socket (or write header and body in one buffer) and release 7.0.1; roll back to 6.x until then.",
        ),
        [bg("quote-engine", qe, ["POST /quotes 200 {ms}ms"], 8, until=start - 40)],
        evs,
        [
            svc("quote-engine", 30, {"500": (0.0005, 0.0005)}, (0.09, 0.68)),
            svc("partner-api", 22, {"504": (0.0, 0.04)}, (0.2, 0.9)),
        ],
        [],
        {
            "quotes-slow.md": runbook(
                "Quotes slow",
                "Slow quotes follow tariff uploads: the rates-engine reindexes and its cache is cold; scale rates-engine to 6 replicas until the cache is warm.",
            )
        },
    )


# =================================================================================================
# 15. Resource exhaustion: invoice-api 8.2.0 creates a fixed thread pool of 4 per PDF request and
#     never shuts it down. On its VMs the systemd unit's default TasksMax (4915) caps the process's
#     threads; when the month-start invoice run pushes the thread count there, every new thread is
#     refused: `unable to create native thread` in Java, `fork rejected by pids controller` in the
#     kernel. The heap is fine. The incident says "billing portal".
# =================================================================================================


@scenario("systemd-tasksmax-thread-leak")
def systemd_tasksmax_thread_leak() -> dict[str, Any]:
    start = -1620
    hosts = ["inv-app-01", "inv-app-02"]
    sig = (
        "cgroup: fork rejected by pids controller in /system.slice/invoice-api.service"
    )
    evs = [
        ev(
            "deploy",
            "info",
            "invoice-api 8.2.0 rolled out to inv-app-01, inv-app-02 (PDF rendering in parallel per page)",
            at=-6600,
        ),
        ev(
            "kernel", "warn", sig, **every(start, -5, 20), labels={"host": "inv-app-01"}
        ),
        ev(
            "kernel",
            "warn",
            sig,
            **every(start + 300, -8, 25),
            labels={"host": "inv-app-02"},
        ),
        ev(
            "invoice-api",
            "error",
            "GET /invoices/{n}/pdf 500: java.lang.OutOfMemoryError: unable to create native thread: possibly out of memory or process/resource limits reached",
            **every(start + 5, -2, 4),
            pods=hosts,
        ),
        ev(
            "invoice-api",
            "warn",
            '[warning][os,thread] Failed to start thread "Unknown thread" - pthread_create failed (EAGAIN) for attributes: stacksize: 1024k, guardsize: 0k, detached.',
            **every(start, -10, 30),
            pods=hosts,
        ),
        ev(
            "invoice-api",
            "info",
            "jvm: threads live {n}, heap used 612M of 2048M",
            **every(-7000, -60, 600),
            pods=hosts,
        ),
        ev(
            "billing-portal",
            "error",
            'upstream prematurely closed connection while reading response header from upstream, request: "GET /account/invoices/{n}.pdf HTTP/2.0", upstream: "http://10.8.2.14:8080/invoices/{n}/pdf"',
            **every(start + 10, -1, 3),
        ),
        ev(
            "billing-portal",
            "info",
            "billing-portal 3.14.0 deployed (dark mode)",
            at=-2700,
        ),
        ev(
            "scheduler",
            "info",
            "cron: monthly-invoice-run started (December, 218,440 accounts)",
            at=start - 400,
        ),
        ev(
            "logrotate",
            "info",
            "logrotate: rotating /var/log/invoice-api/*.log, compressing {n} bytes",
            **every(-7100, -100, 1800),
        ),
        ev(
            "invoice-api",
            "error",
            "upload s3://kite-invoices/{n}.pdf failed: SdkClientException: Unable to execute HTTP request: Read timed out",
            **every(-9500, -9200, 70),
            pods=hosts,
        ),
    ]
    return simple(
        415,
        start,
        incident("Customers can't download invoices", "billing portal", start),
        expected(
            "application",
            [
                "invoice-api",
                "invoice-api 8.2.0",
                "invoice-api.service",
                "TasksMax",
                "inv-app-01",
            ],
            sig,
            "invoice-api 8.2.0 renders PDFs with a new fixed thread pool of four threads per request and never shuts the pools down, so the JVM's thread count only grows. The systemd unit runs with the default TasksMax of 4915; when the month-start invoice run pushed the thread count there, the pids controller refuses every new thread (kernel: fork rejected by pids controller) and Java reports 'unable to create native thread' (an OutOfMemoryError, though the heap is at 612 MB of 2 GB). PDF downloads fail with 500/502. The invoice run (the trigger), billing-portal's release, logrotate and the old S3 timeout are not the cause.",
            [
                f"kernel: {sig}",
                "invoice-api: OutOfMemoryError: unable to create native thread; heap 612M of 2048M",
                "jvm threads live rising since the 8.2.0 rollout",
            ],
            "Restart invoice-api to free the threads now; roll back to 8.1.x (or reuse one shared executor) and only then consider raising TasksMax.",
        ),
        [
            bg(
                "invoice-api",
                hosts,
                ["GET /invoices/{n}/pdf 200 {ms}ms"],
                8,
                until=start,
            )
        ],
        evs,
        [
            svc("invoice-api", 12, {"500": (0.0005, 0.55)}, (0.4, 0.2)),
            svc("billing-portal", 40, {"502": (0.0, 0.12)}, (0.1, 0.1)),
        ],
        [],
        {
            "invoice-api-oom.md": runbook(
                "invoice-api OutOfMemoryError",
                "OutOfMemoryError in invoice-api means the heap is too small for large invoices: raise -Xmx to 3g in /etc/default/invoice-api and restart the service.",
            )
        },
        ramps=[
            ramp(
                "jvm_threads_live_threads",
                {"service": "invoice-api", "host": "inv-app-01"},
                240,
                4915,
                -6600,
                start,
            ),
            ramp(
                "jvm_threads_live_threads",
                {"service": "invoice-api", "host": "inv-app-02"},
                240,
                4915,
                -6600,
                start + 300,
            ),
        ],
    )


# =================================================================================================
# 16. Health check: payments-api 9.0.0 moved its auth middleware in front of every route, /healthz
#     included. Route 53's health check of the primary region (which has no token) gets 401, marks
#     the primary unhealthy and the failover record api.fjordpay.com answers the standby region,
#     which is read-only: writes get 503. The ALB's own health check uses another path and stays
#     green. The incident says "app checkout".
# =================================================================================================


@scenario("route53-failover-healthcheck-gets-401")
def route53_failover_healthcheck_gets_401() -> dict[str, Any]:
    start = -1440
    pri = ["payments-api-euw1-6f9c8d7b5-2kqwx", "payments-api-euw1-6f9c8d7b5-t7mzn"]
    sby = ["payments-api-eun1-5b8d7c6f9-h4xvr"]
    sig = "Health check 9c1f4e2a-7b3d-4e8a-b6c5-0d2f1a9e8b74 (https://api-euw1.fjordpay.com:443/healthz) status Unhealthy: HTTP status code 401"
    evs = [
        ev(
            "deploy",
            "info",
            "payments-api 9.0.0 deployed to eu-west-1 (auth middleware registered globally; PR pay#2210 'secure by default')",
            at=start - 240,
            pods=pri,
        ),
        ev(
            "route53",
            "warn",
            sig
            + " from 16 of 16 checkers; failover record api.fjordpay.com A -> SECONDARY (eu-north-1)",
            **every(start, -120, 300),
        ),
        ev(
            "payments-api",
            "info",
            'GET /healthz 401 {"error":"missing bearer token"} from Amazon-Route53-Health-Check-Service (ref 9c1f4e2a-7b3d-4e8a-b6c5-0d2f1a9e8b74)',
            **every(start - 200, -2, 10),
            pods=pri,
        ),
        ev(
            "alb",
            "info",
            "target group payments-api-euw1: 2 healthy targets (health check GET /internal/health 200)",
            **every(-7000, -60, 600),
        ),
        ev(
            "payments-api-standby",
            "error",
            "POST /v1/payments 503 read-only: writes are disabled in standby region eu-north-1",
            **every(start + 40, -1, 2),
            pods=sby,
        ),
        ev(
            "mobile-app",
            "error",
            "PaymentSheet: HTTP 503 from https://api.fjordpay.com/v1/payments (x-region: eu-north-1)",
            **every(start + 60, -1, 3),
        ),
        ev(
            "web-checkout",
            "info",
            "web-checkout 2.77.0 deployed (Apple Pay button style)",
            at=-3300,
        ),
        ev(
            "fraud-vendor",
            "warn",
            "Sift score latency {ms}0ms above 500ms",
            **every(-5000, -60, 400),
        ),
        ev(
            "payments-api",
            "error",
            "POST /v1/payments 502: acquirer timeout (Worldline) after 8000ms",
            **every(-9800, -9400, 60),
            pods=pri,
        ),
    ]
    spec = simple(
        416,
        start,
        incident("Payments failing in the app", "app checkout", start),
        expected(
            "http",
            [
                "payments-api",
                "payments-api 9.0.0",
                "/healthz",
                "9c1f4e2a-7b3d-4e8a-b6c5-0d2f1a9e8b74",
                "route53 health check",
                "api-euw1.fjordpay.com",
            ],
            sig,
            "payments-api 9.0.0 registers its auth middleware globally, so /healthz now answers 401 without a bearer token. Route 53's health check of the primary region (https://api-euw1.fjordpay.com/healthz) has no token: all checkers see 401, the primary is marked unhealthy and the failover record api.fjordpay.com answers the standby region eu-north-1, which is read-only and refuses payments with 503. The primary itself is healthy (the ALB checks /internal/health and stays green). web-checkout's release, Sift latency and the old acquirer timeout are not the cause.",
            [
                f"route53: {sig}; failover to SECONDARY",
                "payments-api: GET /healthz 401 from Amazon-Route53-Health-Check-Service since 9.0.0",
                "standby: 503 read-only in eu-north-1",
            ],
            "Exempt /healthz from the auth middleware (hotfix 9.0.1) so the health check passes and Route 53 fails back; until then, point the health check at /internal/health.",
        ),
        [
            bg(
                "payments-api",
                pri,
                ["POST /v1/payments 201 {ms}ms", "GET /v1/payments/{n} 200 {ms}ms"],
                8,
                until=start,
            )
        ],
        evs,
        [
            svc("payments-api-standby", 55, {"503": (0.0, 0.93)}, (0.02, 0.01)),
            svc("payments-api", 55, {"500": (0.001, 0.0)}, (0.12, 0.12), rps_after=0.2),
        ],
        [],
        {
            "region-failover.md": runbook(
                "Traffic on the standby region",
                "If api.fjordpay.com resolves to eu-north-1, the primary region is down: check the AWS Health Dashboard for eu-west-1 and open a support case; do not fail back by hand.",
            )
        },
    )
    spec["targets"] = [
        {
            "name": "api",
            "url": "https://api.fjordpay.com/v1/payments",
            "fault": {
                "kind": "http_status",
                "status": 503,
                "body": '{"error":"read-only: writes are disabled in standby region eu-north-1"}',
                "headers": {
                    "Content-Type": "application/json",
                    "x-region": "eu-north-1",
                },
            },
        },
        {
            "name": "api-euw1-healthz",
            "url": "https://api-euw1.fjordpay.com/healthz",
            "fault": {
                "kind": "http_status",
                "status": 401,
                "body": '{"error":"missing bearer token"}',
                "headers": {
                    "Content-Type": "application/json",
                    "WWW-Authenticate": 'Bearer realm="payments-api"',
                },
                "paths": {"/internal/health": 200},
            },
        },
    ]
    spec["expected"]["root_cause_probe"] = "api-euw1-healthz"
    spec["expected"]["netcheck"] = {
        "api": {"failed_layer": "http", "reason": "http_503"},
        "api-euw1-healthz": {"failed_layer": "http", "reason": "http_401"},
    }
    return spec


# The Kubernetes lifecycle stage and reason of the Kubernetes cases whose fault has one (as the
# bundled k8s-* scenarios' expected.json); the DNS and TLS cases have none.
STAGES: dict[str, tuple[str, str]] = {
    "kyverno-denies-cronjob-init-container": ("admission", "FailedCreate"),
    "max-pods-smaller-instance-type": ("scheduling", "FailedScheduling"),
    "postgres-initdb-lost-found-mount": ("startup", "CrashLoopBackOff"),
    "node-heap-limit-unbounded-page-cache": ("runtime", "CrashLoopBackOff"),
    "t3-standard-credits-exhausted-node": ("infrastructure", "NodeCPUCreditsExhausted"),
    "ingress-host-path-claimed-by-campaign": (
        "service_routing",
        "IngressHostPathCollision",
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
