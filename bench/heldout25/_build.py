"""Writes the twenty-fifth held-out scenario set, bench/heldout25: `python bench/heldout25/_build.py`.

New incidents, none of them in the bundled set or in bench/heldout … bench/heldout24. Theme: Kubernetes
platform operations as a platform team's on-call meets them: node-pool and cluster changes, autoscalers
(cluster-autoscaler, Karpenter consolidation), the service mesh (Istio revisions, outlier detection),
ingress controllers, CSI storage and full volumes, operators, GitOps drift, external secrets, resource
requests and the HPA, DNS inside the cluster, and a few managed-cloud cases around a cluster (IMDS on a
new node image, Cloud NAT ports, the aws-auth mapping). The culprit is a policy or config object, a
node, a controller, a workload or a platform component, rarely the loudest thing. As in the earlier
sets, everything that matters is written by hand below (incident, expected answer, runbooks, kubectl
answers, the log lines that carry the fault and the red herrings); the bulk (background request lines,
2 h of metric points thinned to one every 30 s, a namespace's tables, describe layouts) comes from
bench/heldout24/_build.py's helpers (and through them heldout22's and the earlier builders'), each
scenario with a fixed seed (593-608). The author read neither the planner (`reasoning/`) nor the engine
(`diagnosis/engine/`, `docs/engine.md`), nor their tests, nor any score file. Stdlib only.
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


h24 = _load("heldout24_build", HERE.parent / "heldout24" / "_build.py")
h22 = h24.h22
h20 = h22.h20
base = h24.base

table = base.table
events = base.events
runbook = base.runbook
when = base.when
app = h24.app
namespace = h24.namespace
ev = h24.ev
bg = h24.bg
incident = h24.incident
expected = h24.expected
simple = h24.simple
describe_pod = h24.describe_pod
podlog = h24.podlog
running = h24.running
crashloop = h24.crashloop
pods_of = h24.pods_of
kube_case = h24.kube_case
svc = h24.svc
every = h24.every
backoff_rows = h24.backoff_rows
gauge = h24.gauge
with_netcheck = h24.with_netcheck
tidy_clock_times = h24.tidy_clock_times
hpa_table = h24.hpa_table
pod_name = h20.pod_name
pending_pod = h20.pending_pod
container_text = h20.container_text
node_describe = h20.node_describe
sched = h20.sched
NODES_FRA = h24.NODES_FRA
NODES_IAD = h24.NODES_IAD
NODES_DUB = h24.NODES_DUB
NODES_PDX = h24.NODES_PDX

SCENARIOS: dict[str, Any] = {}


def scenario(slug: str):
    def register(fn):
        SCENARIOS[slug] = fn
        return fn

    return register


def alert(inc: dict[str, Any], labels: dict[str, str]) -> dict[str, Any]:
    """The incident as the alert that opened it: its labels."""
    return {**inc, "labels": labels}


def yaml_of(kind: str, name: str, ns: str | None, body: str, api: str = "v1") -> str:
    """`kubectl get KIND NAME -o yaml`: a header and the object's own fields (written by hand)."""
    meta = f"  name: {name}\n" + (f"  namespace: {ns}\n" if ns else "")
    return f"apiVersion: {api}\nkind: {kind}\nmetadata:\n{meta}{body.rstrip()}\n"


# =================================================================================================
# 1. Karpenter consolidation: PR platform#640 sets the NodePool `general` to
#    `consolidationPolicy: WhenEmptyOrUnderutilized`, `consolidateAfter: 0s` and drops its disruption
#    budget. Report jobs come and go all afternoon, so Karpenter replaces an underutilized node every
#    few minutes. settlement-engine runs one replica without a PDB and needs ~90 s to replay its
#    journal before it is ready; each eviction leaves payments-api answering 503. The incident is the
#    payments-api alert.
# =================================================================================================


@scenario("karpenter-consolidate-after-zero-evicts-singleton")
def karpenter_consolidate_after_zero_evicts_singleton() -> dict[str, Any]:
    start = -1800
    ns = "settlement"
    nodes = NODES_IAD
    se = app(
        "settlement-engine",
        image="118273645509.dkr.ecr.us-east-1.amazonaws.com/settlement-engine:12.4.1",
        port=8443,
        rs="6b9f7d5c48",
        cluster_ip="172.20.61.14",
        pods=[("q7nxd", "0/1", "Running", "0", "71s", 2)],
    )
    rj = app(
        "report-scheduler",
        image="118273645509.dkr.ecr.us-east-1.amazonaws.com/report-scheduler:3.2.0",
        port=8080,
        rs="7c5d8f9b6a",
        cluster_ip="172.20.61.30",
        pods=[("k2mzp", "1/1", "Running", "0", "9m", 0)],
    )
    k8s = namespace(ns, nodes, [se, rj], seed=593, extra_namespaces=("payments",))
    sig = "disrupting nodeclaim(s) via replace"
    name = describe_pod(
        k8s,
        ns,
        se,
        "q7nxd",
        nodes,
        state=running(-70),
        started=-70,
        ready=False,
        events_rows=[
            sched(ns, pod_name(se, "q7nxd"), nodes[2][0], "71s"),
            (
                "Normal",
                "Started",
                "68s",
                "kubelet",
                "Started container settlement-engine",
            ),
            (
                "Warning",
                "Unhealthy",
                "5s (x12 over 60s)",
                "kubelet",
                "Readiness probe failed: HTTP probe failed with statuscode: 503",
            ),
        ],
    )
    k8s[f"kubectl logs {name} -n {ns} --tail=1000"] = podlog(
        [
            (
                -68,
                "INFO  settlement-engine 12.4.1 starting, replaying journal from offset 88412001",
            ),
            (-40, "INFO  journal replay 41% (1.9M entries)"),
            (-8, "INFO  journal replay 87% (4.1M entries)"),
        ]
    )
    karp = "karpenter-5d7f6c8b9d-x4l2w"
    kline = (
        '{"level":"INFO","logger":"controller","message":"'
        + sig
        + ", terminating 1 nodes "
        "(6 pods) ip-10-61-{ms}-9.ec2.internal/m6i.2xlarge/on-demand and replacing with on-demand "
        'node from types m6i.xlarge, m5.xlarge","controller":"disruption","reason":"underutilized"}'
    )
    k8s[f"kubectl logs {karp} -n kube-system --tail=1000"] = podlog(
        [
            (
                -1650,
                '{"level":"INFO","logger":"controller","message":"'
                + sig
                + ', terminating 1 nodes (7 pods) ip-10-61-3-44.ec2.internal/m6i.2xlarge/on-demand and replacing with on-demand node from types m6i.xlarge, m5.xlarge","controller":"disruption","reason":"underutilized"}',
            ),
            (
                -980,
                '{"level":"INFO","logger":"controller","message":"'
                + sig
                + ', terminating 1 nodes (5 pods) ip-10-61-1-88.ec2.internal/m6i.xlarge/on-demand and replacing with on-demand node from types m6i.large, m5.large","controller":"disruption","reason":"underutilized"}',
            ),
            (
                -90,
                '{"level":"INFO","logger":"controller","message":"'
                + sig
                + ', terminating 1 nodes (6 pods) ip-10-61-2-57.ec2.internal/m6i.2xlarge/on-demand and replacing with on-demand node from types m6i.xlarge, m5.xlarge","controller":"disruption","reason":"underutilized"}',
            ),
        ]
    )
    k8s["kubectl get pods -n kube-system"] = table(
        [
            ["NAME", "READY", "STATUS", "RESTARTS", "AGE"],
            [karp, "1/1", "Running", "0", "12d"],
            ["karpenter-5d7f6c8b9d-r9cqs", "1/1", "Running", "0", "12d"],
            ["coredns-787cb67946-5tjkh", "1/1", "Running", "0", "12d"],
            ["coredns-787cb67946-b8h4m", "1/1", "Running", "0", "12d"],
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "29m",
                "Normal",
                "Evicted",
                "Pod/settlement-engine-6b9f7d5c48-d8kq2",
                "Evicted pod: Underutilized",
            ),
            (
                "16m",
                "Normal",
                "Evicted",
                "Pod/settlement-engine-6b9f7d5c48-w5tnb",
                "Evicted pod: Underutilized",
            ),
            (
                "91s",
                "Normal",
                "Evicted",
                "Pod/settlement-engine-6b9f7d5c48-h3rvl",
                "Evicted pod: Underutilized",
            ),
            (
                "91s",
                "Normal",
                "DisruptionTerminating",
                "Node/ip-10-61-2-57.ec2.internal",
                "Disrupting Node: Underutilized/Replace",
            ),
            (
                "71s",
                "Normal",
                "SuccessfulCreate",
                f"ReplicaSet/settlement-engine-{se['rs']}",
                f"Created pod: {name}",
            ),
            (
                "5s",
                "Warning",
                "Unhealthy",
                f"Pod/{name}",
                "Readiness probe failed: HTTP probe failed with statuscode: 503",
            ),
        ]
    )
    k8s[f"kubectl get poddisruptionbudgets -n {ns}"] = base.no_resources(ns)
    evs = [
        ev(
            "argocd",
            "info",
            "application platform-karpenter synced to platform@91ac3e2 (PR platform#640 'nodepool general: consolidate underutilized nodes, consolidateAfter 0s, drop budgets'): NodePool general configured",
            at=-6900,
        ),
        ev("karpenter", "info", kline, **every(start, -60, 420), pods=[karp]),
        ev(
            "karpenter",
            "info",
            '{"level":"INFO","logger":"controller","message":"created nodeclaim","NodePool":{"name":"batch"},"reason":"provisionable pods: report-job-{n}"}',
            **every(-7000, -60, 300),
            pods=[karp],
        ),
        ev(
            "payments-api",
            "error",
            "POST /v3/settlements -> 503 upstream settlement-engine unavailable (no ready endpoints)",
            **every(start, -3, 9),
        ),
        ev(
            "payments-api",
            "info",
            "payments-api 8.20.0 started (3DS2 challenge copy)",
            at=-7300,
        ),
        ev(
            "settlement-engine",
            "warn",
            "received SIGTERM, abandoning batch window {n} (in-flight 1{ms} settlements will be retried)",
            **every(start + 150, -80, 420),
            pods=pods_of(se),
        ),
        ev(
            "karpenter",
            "error",
            '{"level":"ERROR","logger":"controller","message":"could not launch nodeclaim, InsufficientInstanceCapacity for c6i.4xlarge spot in us-east-1b"}',
            **every(-10800, -10200, 120),
            pods=[karp],
        ),
        ev(
            "report-worker",
            "warn",
            "report {n} took {ms}s (over soft budget 60s)",
            **every(-7000, -30, 200),
        ),
    ]
    return kube_case(
        seed=593,
        start=start,
        inc=alert(
            incident("[FIRING] PaymentsApi5xxRate", "payments-api", start),
            {
                "alertname": "PaymentsApi5xxRate",
                "namespace": "payments",
                "service": "payments-api",
            },
        ),
        exp=expected(
            "platform",
            [
                "nodepool/general",
                "general",
                "karpenter",
                "consolidateAfter",
                "WhenEmptyOrUnderutilized",
                "PR platform#640",
                "deployment/settlement-engine",
                "settlement-engine",
            ],
            sig,
            "PR platform#640 changed the Karpenter NodePool general to consolidate underutilized nodes with consolidateAfter 0s and no disruption budget. With report jobs starting and finishing all afternoon, Karpenter replaces a node every few minutes; settlement-engine runs a single replica without a PodDisruptionBudget and replays its journal for ~90 s before it is ready, so every consolidation that touches its node leaves payments-api without a settlement backend (503). payments-api's errors are the victim; its release, the report jobs (the trigger), the old spot capacity error and the slow reports are not the cause.",
            [
                "karpenter: disrupting nodeclaim(s) via replace … reason underutilized, every ~7 minutes",
                "kubectl events: settlement-engine pods Evicted: Underutilized at 29m, 16m, 91s; no PDB in settlement",
                "argocd: PR platform#640 NodePool general configured 1h55m ago",
            ],
            "Give the NodePool a consolidateAfter of 30m and a disruption budget (or WhenEmpty); add a PDB (and a second replica or karpenter.sh/do-not-disrupt) for settlement-engine.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "payments-api",
                ["payments-api-5f8d7c6b9-a1b2c", "payments-api-5f8d7c6b9-d3e4f"],
                ["POST /v3/charges 201 {ms}ms", "GET /v3/charges/ch_{n} 200 {ms}ms"],
                8,
            )
        ],
        evs=evs,
        services=[
            svc("payments-api", 40, {"503": (0.0005, 0.06)}, (0.06, 0.08)),
            svc("settlement-engine", 6, {"503": (0.001, 0.3)}, (0.03, 0.05)),
        ],
        gauges=[
            gauge(
                "karpenter_nodeclaims_disrupted_total",
                {"nodepool": "general", "reason": "underutilized"},
                0,
                14,
                -6900,
            ),
            gauge(
                "kube_deployment_status_replicas_available",
                {"deployment": "settlement-engine", "namespace": ns},
                1,
                0.6,
                start,
            ),
        ],
        books={
            "payments-5xx.md": runbook(
                "PaymentsApi5xxRate",
                "A 5xx rate above 2 % on payments-api almost always follows a payments-api release. Check the last deploy in #payments-deploys and roll back with `argocd app rollback payments-api`.",
            )
        },
    )


sts_table = h22.sts_table
pvc_table = h22.pvc_table


# =================================================================================================
# 2. Mesh policy: PR mesh#233 "tune outlier detection" sets inventory's DestinationRule to
#    consecutive5xxErrors 1, baseEjectionTime 5m, maxEjectionPercent 100. inventory 3.9.2 rolls out
#    (innocent): each old pod answers one 503 while draining, so the product-page sidecars eject every
#    inventory endpoint, for longer each time. inventory is healthy and idle; product-page's sidecar
#    answers `UH no_healthy_upstream`. The incident is a human line about stock.
# =================================================================================================


@scenario("outlier-detection-one-5xx-ejects-every-endpoint")
def outlier_detection_one_5xx_ejects_every_endpoint() -> dict[str, Any]:
    start = -1200
    ns = "catalog"
    nodes = NODES_FRA
    inv = app(
        "inventory",
        image="harbor.cobalt.example/catalog/inventory:3.9.2",
        port=8080,
        rs="59d8c7b6f4",
        cluster_ip="10.96.44.21",
        pods=[
            ("b2kcn", "2/2", "Running", "0", "19m", 0),
            ("h7wqd", "2/2", "Running", "0", "19m", 1),
            ("t4pzs", "2/2", "Running", "0", "18m", 2),
            ("x9mrl", "2/2", "Running", "0", "18m", 0),
        ],
    )
    pp = app(
        "product-page",
        image="harbor.cobalt.example/catalog/product-page:22.1.0",
        port=3000,
        rs="7d6c9f8b5e",
        cluster_ip="10.96.44.5",
        pods=[
            ("c3vln", "2/2", "Running", "0", "3d", 0),
            ("m8rtk", "2/2", "Running", "0", "3d", 1),
            ("s5gqh", "2/2", "Running", "0", "3d", 2),
        ],
    )
    k8s = namespace(ns, nodes, [inv, pp], seed=594, extra_namespaces=("istio-system",))
    sig = "UH no_healthy_upstream"
    pps = pods_of(pp)
    access = (
        '[2026-12-07T14:{n}.{ms}Z] "GET /v1/stock/sku-{n} HTTP/1.1" 503 '
        + sig
        + ' - "-" 0 19 0 - "-" "product-page/22.1.0" "{n}-{ms}" "inventory.catalog.svc.cluster.local:8080" "-" outbound|8080||inventory.catalog.svc.cluster.local - 10.96.44.21:8080 10.94.1.{ms}:5{ms} - default'
    )
    k8s[f"kubectl logs {pps[0]} -n {ns} -c istio-proxy --tail=1000"] = podlog(
        [
            (
                -1290,
                '[2026-12-07T14:01:12.201Z] "GET /v1/stock/sku-40112 HTTP/1.1" 503 - upstream_reset_before_response_started{connection_termination} - "-" 0 95 2 - "-" "product-page/22.1.0" "8f1c-22" "inventory.catalog.svc.cluster.local:8080" "10.94.1.37:8080" outbound|8080||inventory.catalog.svc.cluster.local 10.94.2.81:41870 10.96.44.21:8080 10.94.2.81:55212 - default',
            ),
            *[
                (
                    t,
                    f'[2026-12-07T14:{10 + i:02d}:0{i % 10}.114Z] "GET /v1/stock/sku-{31000 + 97 * i} HTTP/1.1" 503 '
                    + sig
                    + f' - "-" 0 19 0 - "-" "product-page/22.1.0" "a3e-{i}" "inventory.catalog.svc.cluster.local:8080" "-" outbound|8080||inventory.catalog.svc.cluster.local - 10.96.44.21:8080 10.94.2.81:5{1200 + i} - default',
                )
                for i, t in enumerate(range(-1180, -10, 90))
            ],
        ]
    )
    k8s[f"kubectl logs {pod_name(inv, 'b2kcn')} -n {ns} -c inventory --tail=1000"] = (
        podlog(
            [
                (
                    -1140,
                    "INFO inventory 3.9.2 ready on :8080 (warehouse snapshot 2026-12-07T13:55Z)",
                ),
                (-600, "INFO GET /v1/stock/sku-88120 200 4ms"),
                (-60, "INFO GET /healthz 200 0ms"),
            ]
        )
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "20m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/inventory",
                "Scaled up replica set inventory-59d8c7b6f4 to 4",
            ),
            (
                "19m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/inventory",
                "Scaled down replica set inventory-6f4b8d9c7a to 0 from 1",
            ),
            (
                "19m",
                "Normal",
                "Killing",
                "Pod/inventory-6f4b8d9c7a-p2xkw",
                "Stopping container inventory",
            ),
        ]
    )
    evs = [
        ev(
            "argocd",
            "info",
            "application mesh-config synced to mesh-config@e7d201b (PR mesh#233 'tune outlier detection'): DestinationRule catalog/inventory configured (outlierDetection consecutive5xxErrors 5 -> 1, baseEjectionTime 30s -> 5m, maxEjectionPercent 100)",
            at=-9400,
        ),
        ev("istio-proxy", "warn", access, **every(start, -2, 4), pods=pps),
        ev(
            "product-page",
            "error",
            "stock lookup failed for sku-{n}: 503 no healthy upstream; rendering 'stock unknown'",
            **every(start, -2, 5),
            pods=pps,
        ),
        ev(
            "argocd",
            "info",
            "application inventory synced to inventory@3.9.2 (warehouse snapshot refresh)",
            at=-1250,
        ),
        ev(
            "inventory",
            "warn",
            "GET /v1/stock/sku-{n} 503 shutting down (draining)",
            **every(-1265, -1150, 20),
            pods=["inventory-6f4b8d9c7a-p2xkw", "inventory-6f4b8d9c7a-z7dfs"],
        ),
        ev(
            "recommendations",
            "warn",
            "model refresh skipped: feature store lag {ms}s",
            **every(-7200, -30, 240),
        ),
        ev(
            "product-page",
            "error",
            "price lookup failed: pricing timeout after 2000ms",
            **every(-10800, -10000, 120),
            pods=pps,
        ),
    ]
    return kube_case(
        seed=594,
        start=start,
        inc=incident(
            "product pages show 'stock unknown' for everything",
            "product pages",
            start,
            [
                "customers see 'stock unknown' on every product page since about 20 minutes"
            ],
        ),
        exp=expected(
            "connect",
            [
                "destinationrule/inventory",
                "inventory destinationrule",
                "outlierDetection",
                "maxEjectionPercent",
                "consecutive5xxErrors",
                "PR mesh#233",
                "inventory",
            ],
            sig,
            "PR mesh#233 set inventory's DestinationRule to eject an endpoint after one 5xx for 5 minutes with maxEjectionPercent 100. The inventory 3.9.2 rollout (innocent) made each draining pod answer a 503, so product-page's sidecars ejected every inventory endpoint and answer 503 UH no_healthy_upstream without sending a request; inventory's new pods are Ready and idle. product-page's 'stock unknown' errors are the victim; the inventory release is only the trigger; recommendations lag and the old pricing timeout are unrelated.",
            [
                f"{pps[0]} istio-proxy: 503 {sig} for outbound|8080||inventory.catalog.svc.cluster.local",
                "argocd: PR mesh#233 DestinationRule catalog/inventory consecutive5xxErrors 5 -> 1, maxEjectionPercent 100",
                "inventory pods 2/2 Ready, their logs show only health checks after the rollout",
            ],
            "Revert PR mesh#233 (consecutive5xxErrors 5, baseEjectionTime 30s, maxEjectionPercent 50); roll product-page's sidecars or wait out the ejection.",
        ),
        k8s=k8s,
        bgs=[bg("product-page", pps, ["GET /p/{n} 200 {ms}ms"], 8)],
        evs=evs,
        services=[
            svc("product-page", 55, {"500": (0.001, 0.002)}, (0.09, 0.05)),
            svc(
                "inventory", 160, {"503": (0.0002, 0.0002)}, (0.004, 0.004), rps_after=3
            ),
        ],
        gauges=[
            gauge(
                "envoy_cluster_outlier_detection_ejections_active",
                {
                    "pod": pps[0],
                    "cluster_name": "outbound|8080||inventory.catalog.svc.cluster.local",
                },
                0,
                4,
                start,
            )
        ],
        books={
            "stock-unknown.md": runbook(
                "Stock shows as unknown",
                "'stock unknown' means the warehouse snapshot is stale. Check the inventory service's snapshot age on its /healthz page and trigger `warehouse-export` if it is older than 30 minutes.",
            )
        },
    )


# =================================================================================================
# 3. Managed cloud around a cluster: PLAT-915 moves the EKS managed node group ng-general from AL2 to
#    AL2023 with a new launch template; IMDSv2 with a hop limit of 1. invoice-archiver (no IRSA,
#    still on the node role) cannot reach IMDS from a pod on the new nodes. As the rolling update
#    proceeds, more archiver pods fail to upload PDFs to S3. Logs and metrics only.
# =================================================================================================


@scenario("al2023-nodegroup-imds-hop-limit-node-role")
def al2023_nodegroup_imds_hop_limit_node_role() -> dict[str, Any]:
    start = -2400
    old = ["invoice-archiver-6c8d7f5b9-l4k2q", "invoice-archiver-6c8d7f5b9-w7n3c"]
    new = ["invoice-archiver-6c8d7f5b9-f8tzd", "invoice-archiver-6c8d7f5b9-r2hxm"]
    sig = "no EC2 IMDS role found"
    evs = [
        ev(
            "cloudtrail",
            "info",
            "UpdateNodegroupVersion cluster=prod-eu nodegroup=ng-general launchTemplate=lt-0a7c1e5d94b2f3c81 version 14 (PLAT-915 AL2023: MetadataOptions HttpTokens=required, HttpPutResponseHopLimit=1) by terraform-ci",
            at=-3000,
        ),
        ev(
            "eks",
            "info",
            "nodegroup ng-general update in progress: {n} of 9 nodes replaced (ami al2023-x86_64-standard-1.31)",
            **every(-2900, -100, 600),
        ),
        ev(
            "invoice-archiver",
            "error",
            "upload failed: operation error S3: PutObject, get identity: get credentials: failed to refresh cached credentials, "
            + sig
            + ", operation error ec2imds: GetMetadata, request canceled, context deadline exceeded",
            **every(start, -5, 15),
            pods=new,
        ),
        ev(
            "invoice-archiver",
            "info",
            "archived invoice INV-{n}.pdf to s3://acme-invoices-prod/2026/12/ ({ms} KB)",
            **every(-7000, -5, 40),
            pods=old,
        ),
        ev(
            "customer-portal",
            "error",
            "GET /invoices/INV-{n}/pdf -> 404 NoSuchKey (archive not found)",
            **every(start + 60, -4, 10),
        ),
        ev(
            "customer-portal",
            "info",
            "customer-portal 2026.49.1 deployed (new invoice list filters)",
            at=-5200,
        ),
        ev(
            "cloudtrail",
            "warn",
            "AccessDenied s3:GetObject arn:aws:s3:::acme-data-lake-raw by role/analytics-glue-crawler",
            **every(-7200, -60, 400),
        ),
        ev(
            "invoice-archiver",
            "warn",
            "S3 PutObject SlowDown: Please reduce your request rate (retrying)",
            **every(-10800, -10300, 90),
            pods=old,
        ),
        ev(
            "invoice-archiver",
            "info",
            "invoice-archiver 1.14.0 starting on node ip-10-70-{ms}-31.eu-central-1.compute.internal (no web identity token, using default credential chain)",
            **every(-2800, -200, 500),
            pods=new,
        ),
    ]
    return simple(
        595,
        start,
        incident(
            "invoice PDFs missing in customer portal",
            "customer portal",
            start,
            ["customers click 'download PDF' and get an error page"],
        ),
        expected(
            "platform",
            [
                "ng-general",
                "nodegroup ng-general",
                "lt-0a7c1e5d94b2f3c81",
                "HttpPutResponseHopLimit",
                "imds hop limit",
                "PLAT-915",
                "invoice-archiver",
            ],
            sig,
            "PLAT-915 rolled the managed node group ng-general to AL2023 with a launch template requiring IMDSv2 with HttpPutResponseHopLimit=1. invoice-archiver has no IRSA role and still takes the node role from IMDS; from a pod the IMDSv2 token response needs two hops, so on every replaced node the SDK fails with 'no EC2 IMDS role found' and PDFs are never written to S3. Archiver pods on old nodes still work, so the failure grows as the rolling update proceeds. The portal's 404s are the victim; the portal release, the Glue crawler's AccessDenied and the old S3 SlowDown are not the cause.",
            [
                f"invoice-archiver: failed to refresh cached credentials, {sig} (only pods on new nodes)",
                "cloudtrail: UpdateNodegroupVersion ng-general, HttpPutResponseHopLimit=1 (PLAT-915)",
                "invoice-archiver: 'no web identity token, using default credential chain'",
            ],
            "Set HttpPutResponseHopLimit=2 on ng-general's launch template (or give invoice-archiver an IRSA / Pod Identity role, the lasting fix).",
        ),
        [
            bg("invoice-archiver", old + new, ["poll: {ms} invoices queued"], 20),
            bg(
                "customer-portal",
                ["customer-portal-1", "customer-portal-2"],
                ["GET /invoices 200 {ms}ms"],
                8,
            ),
        ],
        evs,
        [svc("customer-portal", 30, {"404": (0.001, 0.04)}, (0.08, 0.08))],
        [
            gauge(
                "invoice_archiver_uploads_failed_total",
                {"service": "invoice-archiver"},
                0,
                380,
                start,
            ),
            gauge(
                "aws_eks_nodegroup_al2023_nodes",
                {"nodegroup": "ng-general"},
                0,
                6,
                -2800,
            ),
        ],
        {
            "invoice-pdf-missing.md": runbook(
                "Invoice PDF not found",
                "A missing invoice PDF is usually a bucket policy change on acme-invoices-prod. Check the bucket policy history in CloudTrail (PutBucketPolicy) and restore the last good policy from Terraform.",
            )
        },
    )


# =================================================================================================
# 4. A full PV: PR events#77 ("keep order events for replay") sets the JetStream stream ORDER_EVENTS
#    to max_age 0 (no limit) on a 10Gi volume that cannot grow (gp3 class without expansion). Tonight
#    the file store filled the PV; the NATS server stays Running, but every publish to the stream fails
#    and the mailer's consumer sees nothing new. The incident says "order confirmation emails".
# =================================================================================================


@scenario("jetstream-stream-without-max-age-fills-pv")
def jetstream_stream_without_max_age_fills_pv() -> dict[str, Any]:
    start = -2100
    ns = "messaging"
    nodes = NODES_DUB
    img = "nats:2.10.22-alpine"
    nats = app(
        "nats",
        image=img,
        port=4222,
        rs="",
        kind="StatefulSet",
        cluster_ip="None",
        pods=[
            ("0", "2/2", "Running", "0", "34d", 0),
            ("1", "2/2", "Running", "0", "34d", 1),
            ("2", "2/2", "Running", "0", "34d", 2),
        ],
    )
    mailer = app(
        "order-mailer",
        image="ghcr.io/fernway/order-mailer:5.3.0",
        port=8080,
        rs="84c9d6b7f5",
        cluster_ip="10.100.12.40",
        pods=[
            ("n2vjx", "1/1", "Running", "0", "6d", 0),
            ("z5kqb", "1/1", "Running", "0", "6d", 2),
        ],
    )
    sig = "no space left on device"
    k8s = namespace(
        ns,
        nodes,
        [nats, mailer],
        seed=596,
        statefulsets=sts_table(
            [
                [
                    "nats",
                    "3/3",
                    "34d",
                    "nats,reloader",
                    f"{img},natsio/nats-server-config-reloader:0.16.0",
                ]
            ]
        ),
    )
    k8s[f"kubectl get persistentvolumeclaims -n {ns}"] = pvc_table(
        [
            [
                f"nats-js-nats-{i}",
                "Bound",
                f"pvc-7c1e{i}d2a-4b1f-4e0c-9a51-2f6d8e{i}b3c71",
                "10Gi",
                "RWO",
                "gp3-retain",
                "<unset>",
                "34d",
            ]
            for i in range(3)
        ]
    )
    k8s["kubectl get storageclasses"] = table(
        [
            [
                "NAME",
                "PROVISIONER",
                "RECLAIMPOLICY",
                "VOLUMEBINDINGMODE",
                "ALLOWVOLUMEEXPANSION",
                "AGE",
            ],
            [
                "gp2",
                "kubernetes.io/aws-ebs",
                "Delete",
                "WaitForFirstConsumer",
                "false",
                "2y",
            ],
            [
                "gp3 (default)",
                "ebs.csi.aws.com",
                "Delete",
                "WaitForFirstConsumer",
                "true",
                "1y",
            ],
            [
                "gp3-retain",
                "ebs.csi.aws.com",
                "Retain",
                "WaitForFirstConsumer",
                "false",
                "1y",
            ],
        ]
    )
    store_err = (
        "[1] 2026/12/07 21:{n}.{ms} [ERR] JetStream failed to store a msg on stream '$G > ORDER_EVENTS': write /data/jetstream/$G/streams/ORDER_EVENTS/msgs/{n}.blk: "
        + sig
    )
    for i in range(3):
        k8s[f"kubectl logs nats-{i} -n {ns} -c nats --tail=1000"] = podlog(
            [
                (
                    -3000000 + 0.0,
                    "[1] 2026/11/03 09:12:40.118 [INF] Starting nats-server version 2.10.22",
                ),
                (
                    -2950,
                    "[1] 2026/12/07 20:35:01.402 [WRN] JetStream resource limits exceeded for server",
                ),
                (
                    -2150,
                    "[1] 2026/12/07 20:48:21.930 [WRN] Filestore [ORDER_EVENTS] filled its storage volume (9.8 GiB used of 9.8 GiB)",
                ),
                (
                    -2100,
                    "[1] 2026/12/07 20:49:11.551 [ERR] JetStream failed to store a msg on stream '$G > ORDER_EVENTS': write /data/jetstream/$G/streams/ORDER_EVENTS/msgs/4812.blk: "
                    + sig,
                ),
                (
                    -30,
                    "[1] 2026/12/07 21:23:47.009 [ERR] JetStream failed to store a msg on stream '$G > ORDER_EVENTS': write /data/jetstream/$G/streams/ORDER_EVENTS/msgs/4812.blk: "
                    + sig,
                ),
            ]
        )
    k8s[f"kubectl get configmaps jetstream-streams -n {ns} -o yaml"] = yaml_of(
        "ConfigMap",
        "jetstream-streams",
        ns,
        """  annotations:
    argocd.argoproj.io/tracking-id: messaging:/ConfigMap:messaging/jetstream-streams
    change: 'PR events#77 keep order events for replay'
data:
  ORDER_EVENTS.json: |
    {"name": "ORDER_EVENTS", "subjects": ["orders.>"], "retention": "limits", "storage": "file",
     "max_age": 0, "max_bytes": -1, "discard": "old", "num_replicas": 3}
  PAYMENT_EVENTS.json: |
    {"name": "PAYMENT_EVENTS", "subjects": ["payments.>"], "retention": "limits", "storage": "file",
     "max_age": 604800000000000, "max_bytes": 2147483648, "discard": "old", "num_replicas": 3}""",
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "35m",
                "Warning",
                "FreeDiskSpaceLow",
                "PersistentVolumeClaim/nats-js-nats-0",
                "volume usage 98% (9.8Gi of 10Gi)",
            ),
            (
                "4m",
                "Normal",
                "Pulled",
                f"Pod/{pod_name(mailer, 'n2vjx')}",
                "Container image already present on machine",
            ),
        ]
    )
    evs = [
        ev(
            "argocd",
            "info",
            "application messaging synced to events@0b4d9e1 (PR events#77 'keep order events for replay'): ConfigMap jetstream-streams configured; stream ORDER_EVENTS max_age 168h -> 0",
            at=-1900000 // 100,
        ),
        ev("nats", "error", store_err, **every(start, -5, 12), pods=pods_of(nats)),
        ev(
            "checkout-api",
            "error",
            "publish orders.confirmed failed: nats: insufficient resources (order ORD-{n} kept in outbox)",
            **every(start, -4, 10),
        ),
        ev(
            "order-mailer",
            "warn",
            "consumer mailer-confirmations: no new messages in 60s (pending 0)",
            **every(start + 60, -30, 60),
            pods=pods_of(mailer),
        ),
        ev(
            "checkout-api",
            "info",
            "checkout-api 14.2.0 started (apple pay express)",
            at=-4700,
        ),
        ev(
            "sendgrid-webhook",
            "warn",
            "bounce for {n}@example.net (mailbox full)",
            **every(-7000, -60, 300),
        ),
        ev(
            "order-mailer",
            "error",
            "SMTP relay timeout after 30s (smtp.sendgrid.net:587)",
            **every(-10800, -10400, 100),
            pods=pods_of(mailer),
        ),
        ev(
            "node-exporter",
            "warn",
            "PersistentVolume nats-js-nats-{ms} usage above 90%",
            **every(-5400, -2200, 900),
        ),
    ]
    return kube_case(
        seed=596,
        start=start,
        inc=incident(
            "order confirmation emails not going out",
            "order emails",
            start,
            [
                "support: several customers have no confirmation email for tonight's orders"
            ],
        ),
        exp=expected(
            "platform",
            [
                "pvc/nats-js-nats-0",
                "nats-js-nats-0",
                "statefulset/nats",
                "nats",
                "jetstream",
                "ORDER_EVENTS",
                "max_age",
                "PR events#77",
            ],
            sig,
            "PR events#77 set the JetStream stream ORDER_EVENTS to max_age 0 with no max_bytes, so it never discards; on 10Gi volumes of a storage class without expansion the file store filled the PVCs at 20:48. NATS stays Running, but every store fails with 'no space left on device', checkout's publishes are refused ('insufficient resources', kept in its outbox) and order-mailer's consumer receives nothing, so no confirmation email is sent. The mailer's quiet warnings and checkout's errors are victims; the checkout release, SendGrid bounces and the old SMTP timeout are not the cause.",
            [
                f"nats-0: JetStream failed to store a msg on stream ORDER_EVENTS: {sig}",
                "configmap jetstream-streams: ORDER_EVENTS max_age 0, max_bytes -1 (PR events#77)",
                "pvc nats-js-nats-0: volume usage 98%; gp3-retain ALLOWVOLUMEEXPANSION false",
            ],
            "Set ORDER_EVENTS max_age back to 168h (or a max_bytes), purge old messages to free the volume, then let checkout's outbox replay; move the stream to an expandable class.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "checkout-api",
                ["checkout-api-7b9c-1", "checkout-api-7b9c-2"],
                ["POST /v1/orders 201 {ms}ms"],
                8,
            )
        ],
        evs=evs,
        services=[svc("checkout-api", 14, {"500": (0.001, 0.001)}, (0.12, 0.13))],
        gauges=[
            gauge(
                "kubelet_volume_stats_used_bytes",
                {"persistentvolumeclaim": "nats-js-nats-0", "namespace": ns},
                8.9e9,
                10.5e9,
                start,
            ),
            gauge(
                "order_mailer_emails_sent_total_rate",
                {"service": "order-mailer"},
                0.2,
                0,
                start,
            ),
        ],
        books={
            "confirmation-emails.md": runbook(
                "Confirmation emails missing",
                "Missing confirmation emails are usually SendGrid: check the SendGrid status page and the relay timeout alarm; if the relay is slow, raise order-mailer's SMTP timeout.",
            )
        },
    )


# =================================================================================================
# 5. CSI: PR infra#2291 ("use the AWS managed policy") swaps the EBS CSI driver's IRSA role policy for
#    AmazonEBSCSIDriverPolicy, which has no kms:CreateGrant on the platform's customer-managed key.
#    Volumes already attached keep working; this morning's node-pool rotation moves a ClickHouse
#    replica to a new node and its encrypted volume never attaches. Dashboards time out.
# =================================================================================================


@scenario("ebs-csi-role-without-kms-grant-attach-detaching")
def ebs_csi_role_without_kms_grant_attach_detaching() -> dict[str, Any]:
    start = -1500
    ns = "analytics"
    nodes = NODES_PDX
    img = "clickhouse/clickhouse-server:24.8.6.70"
    ch = app(
        "clickhouse-shard1",
        image=img,
        port=8123,
        rs="",
        kind="StatefulSet",
        cluster_ip="None",
        pods=[
            ("0", "1/1", "Running", "0", "61d", 0),
            ("1", "0/1", "ContainerCreating", "0", "24m", 1),
        ],
    )
    api = app(
        "insights-api",
        image="ghcr.io/tallyho/insights-api:2.41.0",
        port=8080,
        rs="5c7d9b8f6e",
        cluster_ip="10.100.7.31",
        pods=[
            ("d4kxw", "1/1", "Running", "0", "2h", 0),
            ("p8mzc", "1/1", "Running", "0", "2h", 2),
        ],
    )
    k8s = namespace(
        ns,
        nodes,
        [ch, api],
        seed=597,
        statefulsets=sts_table(
            [["clickhouse-shard1", "1/2", "61d", "clickhouse", img]]
        ),
    )
    vol = "vol-0e4b7c19a2d8f6053"
    sig = "expected device to be attached but was detaching"
    attach = (
        f'AttachVolume.Attach failed for volume "pvc-3a9e1c7d-55b2-4f0e-8d21-6c4b9e7f1a20" : rpc error: code = Internal desc = Could not attach volume "{vol}" to node "i-0b6f2d8c41a7e9305": attachment of disk "{vol}" failed, '
        + sig
    )
    name = "clickhouse-shard1-1"
    k8s[f"kubectl describe pods {name} -n {ns}"] = pending_pod(
        name,
        ns,
        owner="StatefulSet/clickhouse-shard1",
        labels=[
            "app=clickhouse-shard1",
            "statefulset.kubernetes.io/pod-name=clickhouse-shard1-1",
        ],
        sa="clickhouse",
        containers=container_text(
            "clickhouse",
            img,
            8123,
            limits="cpu:     8\n  memory:  48Gi",
            requests="cpu:      6\n  memory:   48Gi",
        ),
        node=f"{nodes[1][0]}/{nodes[1][2]}",
        status="Pending",
        conditions=(
            ("PodScheduled", "True"),
            ("Initialized", "True"),
            ("Ready", "False"),
            ("ContainersReady", "False"),
        ),
        events_rows=[
            sched(ns, name, nodes[1][0], "24m"),
            (
                "Warning",
                "FailedAttachVolume",
                "2m (x19 over 24m)",
                "attachdetach-controller",
                attach,
            ),
            (
                "Warning",
                "FailedMount",
                "90s (x10 over 22m)",
                "kubelet",
                "Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[data], failed to process volumes=[]: timed out waiting for the condition",
            ),
        ],
    )
    k8s[f"kubectl get persistentvolumeclaims -n {ns}"] = pvc_table(
        [
            [
                "data-clickhouse-shard1-0",
                "Bound",
                "pvc-0d2f8a61-93c4-4b7e-a1f5-7e2c9d4b6a18",
                "2Ti",
                "RWO",
                "gp3-cmk",
                "<unset>",
                "61d",
            ],
            [
                "data-clickhouse-shard1-1",
                "Bound",
                "pvc-3a9e1c7d-55b2-4f0e-8d21-6c4b9e7f1a20",
                "2Ti",
                "RWO",
                "gp3-cmk",
                "<unset>",
                "61d",
            ],
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "25m",
                "Normal",
                "Killing",
                "Pod/clickhouse-shard1-1",
                "Stopping container clickhouse",
            ),
            (
                "24m",
                "Normal",
                "Scheduled",
                f"Pod/{name}",
                f"Successfully assigned {ns}/{name} to {nodes[1][0]}",
            ),
            ("2m", "Warning", "FailedAttachVolume", f"Pod/{name}", attach),
        ]
    )
    csi = "ebs-csi-controller-7f9c5d6b84-vq2hn"
    k8s[f"kubectl logs {csi} -n kube-system -c ebs-plugin --tail=1000"] = podlog(
        [
            (
                -1420,
                f'I1207 controller.go:415] "ControllerPublishVolume: attaching" volumeID="{vol}" nodeID="i-0b6f2d8c41a7e9305"',
            ),
            (
                -1405,
                f'E1207 driver.go:108] "GRPC error" err="rpc error: code = Internal desc = Could not attach volume \\"{vol}\\" to node \\"i-0b6f2d8c41a7e9305\\": attachment of disk \\"{vol}\\" failed, {sig}"',
            ),
            (
                -125,
                f'E1207 driver.go:108] "GRPC error" err="rpc error: code = Internal desc = Could not attach volume \\"{vol}\\" to node \\"i-0b6f2d8c41a7e9305\\": attachment of disk \\"{vol}\\" failed, {sig}"',
            ),
        ]
    )
    evs = [
        ev(
            "terraform-ci",
            "info",
            "apply infra-aws@6d1f0a3 (PR infra#2291 'ebs-csi: use the AWS managed policy'): aws_iam_role_policy_attachment.ebs_csi replaced (AmazonEBSCSIDriverPolicy), aws_iam_role_policy.ebs_csi_kms destroyed",
            at=-6400,
        ),
        ev(
            "eks",
            "info",
            "nodegroup ng-analytics update in progress: replacing node ip-10-90-2-{ms} (ami 1.31.2-20241203)",
            at=-1560,
        ),
        ev("kube-controller-manager", "warn", attach, **every(start, -60, 75)),
        ev(
            "cloudtrail",
            "error",
            "kms:CreateGrant AccessDenied key/3f1c9e2a-7b4d-4c8e-9a61-d0e5b2f7c843 by assumed-role/AmazonEKS_EBS_CSI_DriverRole/{n} (via ec2.us-west-2.amazonaws.com)",
            **every(start, -60, 75),
        ),
        ev(
            "insights-api",
            "error",
            "query dashboard_{n} failed: Code: 210. DB::NetException: Connection refused (clickhouse-shard1-1.clickhouse-shard1:9000); retrying on replica 0",
            **every(start, -5, 12),
            pods=pods_of(api),
        ),
        ev(
            "insights-api",
            "warn",
            "query dashboard_{n} took {ms}00ms (over 10000ms budget)",
            **every(start, -4, 9),
            pods=pods_of(api),
        ),
        ev(
            "insights-api",
            "info",
            "insights-api 2.41.0 started (cohort charts)",
            at=-7100,
            pods=pods_of(api),
        ),
        ev(
            "clickhouse",
            "warn",
            "MergeTreeBackgroundExecutor: too many parts ({n}) in events_local, merges are slower",
            **every(-7000, -60, 400),
            pods=["clickhouse-shard1-0"],
        ),
        ev(
            "insights-api",
            "error",
            "query dashboard_{n} failed: Code: 241. DB::Exception: Memory limit (for query) exceeded",
            **every(-10800, -10300, 100),
            pods=pods_of(api),
        ),
    ]
    return kube_case(
        seed=597,
        start=start,
        inc=incident("admin dashboards timing out", "analytics dashboards", start),
        exp=expected(
            "platform",
            [
                "ebs-csi-controller",
                "AmazonEKS_EBS_CSI_DriverRole",
                "ebs csi driver",
                "kms:CreateGrant",
                "PR infra#2291",
                "pvc/data-clickhouse-shard1-1",
                "clickhouse-shard1-1",
            ],
            sig,
            "PR infra#2291 replaced the EBS CSI driver role's policy with AmazonEBSCSIDriverPolicy and destroyed the inline policy granting kms:CreateGrant on the platform's customer-managed key. Volumes attached before keep working; when the node-pool rotation moved clickhouse-shard1-1 to a new node, its gp3-cmk volume must be attached again, EC2 cannot create the KMS grant and the attachment fails ('expected device to be attached but was detaching'). The pod stays ContainerCreating, every dashboard query falls on replica 0 and times out. insights-api's errors are the victim, the rotation the trigger; the insights-api release, ClickHouse's 'too many parts' warnings and the old memory-limit error are not the cause.",
            [
                f"{name}: FailedAttachVolume … {sig} (x19 over 24m)",
                "cloudtrail: kms:CreateGrant AccessDenied by AmazonEKS_EBS_CSI_DriverRole",
                "terraform: PR infra#2291 destroyed aws_iam_role_policy.ebs_csi_kms",
            ],
            "Restore kms:CreateGrant (and Decrypt / GenerateDataKeyWithoutPlaintext) on the key for the EBS CSI role; the attach retries by itself.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "insights-api",
                pods_of(api),
                ["GET /api/v2/dashboards/{n} 200 {ms}ms"],
                8,
            )
        ],
        evs=evs,
        services=[svc("insights-api", 9, {"504": (0.001, 0.2)}, (0.4, 6.5))],
        gauges=[
            gauge(
                "kube_statefulset_status_replicas_ready",
                {"statefulset": "clickhouse-shard1", "namespace": ns},
                2,
                1,
                start,
            )
        ],
        books={
            "dashboards-slow.md": runbook(
                "Dashboards slow",
                "Slow dashboards mean ClickHouse merges are behind. Check system.merges and 'too many parts'; pause the events backfill and raise background_pool_size.",
            )
        },
    )


# =================================================================================================
# 6. GitOps drift: PLAT-1033 moves Argo CD to a new management cluster; the app-of-apps for the
#    partner namespace is re-created from an old manifest with targetRevision release-2026.11. Argo CD
#    syncs that branch: the partner gateway's limits ConfigMap goes back to 60 requests a minute
#    (raised to 600 three weeks ago on main); reloader restarts the gateway and partners get 429.
# =================================================================================================


@scenario("argocd-app-recreated-on-old-branch-rate-limit")
def argocd_app_recreated_on_old_branch_rate_limit() -> dict[str, Any]:
    start = -1300
    ns = "partner-api"
    nodes = NODES_FRA
    gw = app(
        "partner-gateway",
        image="ghcr.io/quayline/partner-gateway:4.6.3",
        port=8080,
        rs="6f8b9c7d5a",
        cluster_ip="10.96.70.12",
        pods=[
            ("g2hwk", "1/1", "Running", "0", "22m", 0),
            ("r9xbn", "1/1", "Running", "0", "22m", 1),
            ("v4qtc", "1/1", "Running", "0", "21m", 2),
        ],
    )
    k8s = namespace(
        ns,
        nodes,
        [gw],
        seed=598,
        extra_namespaces=("argocd",),
        configmaps=[("partner-gateway-limits", "3", "1y")],
    )
    sig = "release-2026.11"
    k8s[f"kubectl get configmaps partner-gateway-limits -n {ns} -o yaml"] = yaml_of(
        "ConfigMap",
        "partner-gateway-limits",
        ns,
        f"""  annotations:
    argocd.argoproj.io/tracking-id: partner-api:/ConfigMap:partner-api/partner-gateway-limits
    configmap.reloader.stakater.com/last-reload: "true"
  labels:
    app.kubernetes.io/instance: partner-api
    config.quayline.io/revision: {sig}
data:
  RATE_LIMIT_PER_MINUTE: "60"
  RATE_LIMIT_BURST: "20"
  RATE_LIMIT_KEY: partner_id""",
    )
    k8s["kubectl events -n argocd"] = events(
        [
            (
                "23m",
                "Normal",
                "OperationStarted",
                "Application/partner-api",
                f"Initiated automated sync to '{sig}' (3f2a9c1)",
            ),
            (
                "22m",
                "Normal",
                "ResourceUpdated",
                "Application/partner-api",
                "Updated sync status:  -> Synced",
            ),
            (
                "22m",
                "Normal",
                "OperationCompleted",
                "Application/partner-api",
                f"Sync operation to {sig} (3f2a9c1) succeeded",
            ),
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "22m",
                "Normal",
                "Reloaded",
                "Deployment/partner-gateway",
                "Changes detected in configmap partner-gateway-limits; rolling restart",
            ),
            (
                "22m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/partner-gateway",
                "Scaled up replica set partner-gateway-6f8b9c7d5a to 3",
            ),
        ]
    )
    gps = pods_of(gw)
    k8s[f"kubectl logs {gps[0]} -n {ns} --tail=1000"] = podlog(
        [
            (
                -1310,
                f'level=info msg="config loaded" rate_limit_per_minute=60 burst=20 key=partner_id config_revision={sig}',
            ),
            (
                -900,
                'level=warn msg="rate limited" partner=p_2291 path=/v2/shipments limit=60/min',
            ),
            (
                -20,
                'level=warn msg="rate limited" partner=p_4410 path=/v2/rates limit=60/min',
            ),
        ]
    )
    evs = [
        ev(
            "argocd",
            "info",
            "PLAT-1033: app-of-apps bootstrap on mgmt-2 created Application partner-api from bootstrap/apps/partner-api.yaml",
            at=-1420,
        ),
        ev(
            "argocd",
            "info",
            f"application partner-api sync to {sig} (3f2a9c1) succeeded: ConfigMap partner-gateway-limits configured, Deployment partner-gateway unchanged",
            at=-1340,
        ),
        ev(
            "partner-gateway",
            "info",
            f"config loaded rate_limit_per_minute=60 burst=20 key=partner_id config_revision={sig}",
            at=-1310,
            pods=gps,
        ),
        ev(
            "partner-gateway",
            "warn",
            "rate limited partner=p_{n} path=/v2/shipments limit=60/min",
            **every(start, -2, 3),
            pods=gps,
        ),
        ev(
            "partner-portal",
            "error",
            "partner p_{n} webhook: our API answered 429 Too Many Requests ({ms} in the last minute)",
            **every(start + 60, -10, 30),
        ),
        ev(
            "argocd",
            "info",
            "application partner-api on mgmt-1 deleted (PLAT-1033 decommission)",
            at=-1500,
        ),
        ev(
            "shipments-api",
            "info",
            "shipments-api 9.3.0 started (customs declaration v2)",
            at=-4100,
        ),
        ev(
            "shipments-api",
            "warn",
            "carrier DHL rate quote slow ({ms}00ms)",
            **every(-7000, -60, 250),
        ),
        ev(
            "partner-gateway",
            "error",
            "upstream shipments-api connect timeout (10.96.70.40:8080)",
            **every(-10800, -10400, 90),
            pods=gps,
        ),
        ev(
            "git",
            "info",
            "main@a17e0c4 'partner-gateway: RATE_LIMIT_PER_MINUTE 60 -> 600 (PARTNER-88)' merged by j.brandt",
            at=-1810000,
        ),
    ]
    return kube_case(
        seed=598,
        start=start,
        inc=incident(
            "partners complaining about 429s",
            "partner API",
            start,
            [
                "two partners say our API rejects most of their calls with 429 since around 14:10"
            ],
        ),
        exp=expected(
            "application",
            [
                "application/partner-api",
                "partner-api argo cd application",
                "argocd",
                "targetRevision",
                sig,
                "configmap/partner-gateway-limits",
                "partner-gateway-limits",
                "RATE_LIMIT_PER_MINUTE",
                "PLAT-1033",
            ],
            sig,
            f"While moving Argo CD to a new management cluster (PLAT-1033) the partner-api Application was re-created from an old bootstrap manifest with targetRevision {sig}. Argo CD synced that branch, where partner-gateway-limits still has RATE_LIMIT_PER_MINUTE 60 (raised to 600 on main three weeks ago, PARTNER-88); reloader restarted the gateway and partners are rate limited at 60 a minute. The partner-portal webhook errors are victims; the shipments-api release, DHL slowness and the old connect timeout are not the cause.",
            [
                f"argocd: Sync operation to {sig} (3f2a9c1) succeeded, ConfigMap partner-gateway-limits configured",
                'configmap partner-gateway-limits: RATE_LIMIT_PER_MINUTE "60", revision label release-2026.11',
                "partner-gateway: rate limited … limit=60/min since the reload",
            ],
            "Point the partner-api Application back at main (targetRevision HEAD) and sync; fix the bootstrap manifest in the PLAT-1033 repo.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "partner-gateway",
                gps,
                [
                    "POST /v2/shipments 201 {ms}ms partner=p_{n}",
                    "GET /v2/rates 200 {ms}ms partner=p_{n}",
                ],
                8,
            )
        ],
        evs=evs,
        services=[svc("partner-gateway", 70, {"429": (0.001, 0.55)}, (0.05, 0.02))],
        gauges=[
            gauge(
                "partner_gateway_rate_limit_per_minute",
                {"service": "partner-gateway"},
                600,
                60,
                -1310,
            )
        ],
        books={
            "partner-429.md": runbook(
                "Partners report 429s",
                "429 means the partner exceeded its contract. Look the partner up in the partner-portal admin, confirm its plan, and if it is on Enterprise ask account management to raise its quota in the portal.",
            )
        },
    )


# =================================================================================================
# 7. External secrets: PR secrets#58 ("stop hammering Secrets Manager") sets the ExternalSecret
#    billing-db to refreshInterval 0 (sync once). Secrets Manager's 30-day rotation changed the
#    password at 04:00; the Kubernetes Secret still holds the old one. Old billing-api pods keep their
#    authenticated connections; the afternoon node-pool upgrade (the trigger) drains nodes and every
#    new pod fails to log in and crash-loops.
# =================================================================================================


@scenario("externalsecret-refresh-zero-misses-rotated-password")
def externalsecret_refresh_zero_misses_rotated_password() -> dict[str, Any]:
    start = -1700
    ns = "billing"
    nodes = NODES_IAD
    img = "412398701155.dkr.ecr.us-east-1.amazonaws.com/billing/billing-api:11.2.4"
    ba = app(
        "billing-api",
        image=img,
        port=8080,
        rs="7d9c6b5f84",
        cluster_ip="172.20.31.9",
        desired=4,
        pods=[
            ("c8pqt", "1/1", "Running", "0", "6d", 0),
            ("k3wzn", "0/1", "CrashLoopBackOff", "7", "27m", 1),
            ("s6mfd", "0/1", "CrashLoopBackOff", "6", "23m", 2),
            ("x2rvl", "1/1", "Running", "0", "6d", 0),
        ],
    )
    k8s = namespace(
        ns,
        nodes,
        [ba],
        seed=599,
        secrets=[
            ("billing-db", "Opaque", "3", "214d"),
            ("billing-stripe", "Opaque", "1", "1y"),
        ],
    )
    sig = 'password authentication failed for user "billing_app"'
    name = describe_pod(
        k8s,
        ns,
        ba,
        "k3wzn",
        nodes,
        state=crashloop(1, "Error", -80, -71),
        started=-1620,
        restarts=7,
        events_rows=backoff_rows(ba, ns, "k3wzn", "x96 over 26m"),
    )
    k8s[f"kubectl logs {name} -n {ns} --previous --tail=1000"] = podlog(
        [
            (
                -80,
                "2026-12-07T18:48:40.102Z INFO  billing-api 11.2.4 starting (profile prod)",
            ),
            (
                -72,
                "2026-12-07T18:48:48.640Z ERROR HikariPool-1 - Exception during pool initialization.",
            ),
            (-72, f"org.postgresql.util.PSQLException: FATAL: {sig}"),
            (-71, "2026-12-07T18:48:49.011Z ERROR Application run failed"),
        ]
    )
    k8s[f"kubectl get secrets billing-db -n {ns} -o yaml"] = yaml_of(
        "Secret",
        "billing-db",
        ns,
        """  creationTimestamp: "2026-05-07T10:02:11Z"
  labels:
    reconcile.external-secrets.io/created-by: 6e2c0f4b9a1d
  annotations:
    reconcile.external-secrets.io/data-hash: 1b7f3d2e9c44a0f8e6d5c3b2a1908f7e
  ownerReferences:
  - apiVersion: external-secrets.io/v1beta1
    kind: ExternalSecret
    name: billing-db
type: Opaque
data:
  DB_HOST: YmlsbGluZy1wcm9kLmNsdXN0ZXItYzl4Mi51cy1lYXN0LTEucmRzLmFtYXpvbmF3cy5jb20=
  DB_PASSWORD: <redacted>
  DB_USER: YmlsbGluZ19hcHA=""",
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "28m",
                "Normal",
                "Killing",
                "Pod/billing-api-7d9c6b5f84-m1vqs",
                "Stopping container billing-api",
            ),
            (
                "27m",
                "Normal",
                "Scheduled",
                f"Pod/{name}",
                f"Successfully assigned {ns}/{name} to {nodes[1][0]}",
            ),
            (
                "24m",
                "Normal",
                "Killing",
                "Pod/billing-api-7d9c6b5f84-j7tdw",
                "Stopping container billing-api",
            ),
            (
                "70s",
                "Warning",
                "BackOff",
                f"Pod/{name}",
                f"Back-off restarting failed container billing-api in pod {name}_{ns}",
            ),
        ]
    )
    crash = [name, pod_name(ba, "s6mfd")]
    evs = [
        ev(
            "argocd",
            "info",
            "application external-secrets-billing synced to secrets@5e8a2d1 (PR secrets#58 'stop hammering Secrets Manager: refreshInterval 1h -> 0'): ExternalSecret billing/billing-db configured",
            at=-1900000,
        ),
        ev(
            "secretsmanager",
            "info",
            "RotateSecret prod/billing/db: finishSecret succeeded, AWSCURRENT moved to version 7c2e… (scheduled rotation, every 30 days)",
            at=-53000,
        ),
        ev(
            "external-secrets",
            "info",
            "reconciled secret billing/billing-db (refreshInterval 0: will not refresh)",
            at=-1899000,
        ),
        ev(
            "billing-api",
            "error",
            f"org.postgresql.util.PSQLException: FATAL: {sig}",
            **every(start, -20, 40),
            pods=crash,
        ),
        ev(
            "rds",
            "warn",
            f"billing-prod: FATAL: {sig} (connection from 10.61.{{ms}}.12)",
            **every(start, -20, 40),
        ),
        ev(
            "eks",
            "info",
            "nodegroup ng-apps update to 1.31.2-20241203 in progress: draining ip-10-61-{ms}-12.ec2.internal",
            **every(-1800, -300, 300),
        ),
        ev(
            "invoice-web",
            "error",
            "GET /api/invoices -> 503 billing-api (no healthy upstream for 2s)",
            **every(start + 200, -5, 25),
        ),
        ev(
            "billing-api",
            "info",
            "billing-api 11.2.4 started (SEPA mandate reminders)",
            at=-518000,
            pods=pods_of(ba)[:1],
        ),
        ev(
            "stripe",
            "warn",
            "webhook invoice.payment_failed for cus_{n} (insufficient_funds)",
            **every(-7000, -60, 300),
        ),
        ev(
            "billing-api",
            "warn",
            "HikariPool-1 - Connection is not available, request timed out after 30000ms",
            **every(-10800, -10400, 80),
            pods=pods_of(ba)[:1],
        ),
    ]
    return kube_case(
        seed=599,
        start=start,
        inc=alert(
            incident(
                "[FIRING] KubeDeploymentReplicasMismatch billing/billing-api",
                "billing-api",
                start,
            ),
            {
                "alertname": "KubeDeploymentReplicasMismatch",
                "namespace": ns,
                "deployment": "billing-api",
                "severity": "warning",
            },
        ),
        exp=expected(
            "platform",
            [
                "externalsecret/billing-db",
                "billing-db externalsecret",
                "refreshInterval",
                "PR secrets#58",
                "secret/billing-db",
                "billing-db",
                "prod/billing/db",
            ],
            sig,
            "PR secrets#58 set the ExternalSecret billing-db to refreshInterval 0, so it synced once and never again. Secrets Manager's scheduled rotation changed the database password at 04:00; the Kubernetes Secret billing-db still holds the old one. The two old billing-api pods keep connections authenticated before the rotation; every pod started by this afternoon's node-group upgrade reads the stale Secret, fails to log in and crash-loops. The upgrade is the trigger, invoice-web's 503s the victim; the billing-api release (6 days old), Stripe payment failures and the old pool timeout are not the cause.",
            [
                f"{name} previous log: FATAL: {sig}",
                "secretsmanager: RotateSecret prod/billing/db finished at 04:00",
                "argocd: PR secrets#58 ExternalSecret billing-db refreshInterval 1h -> 0",
            ],
            "Set refreshInterval back to 1h (or force a sync with the force-sync annotation) so billing-db gets the current password, then restart the crash-looping pods.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "billing-api",
                [*pods_of(ba)[:1], pod_name(ba, "x2rvl")],
                ["GET /api/invoices?customer=c_{n} 200 {ms}ms"],
                8,
            )
        ],
        evs=evs,
        services=[svc("invoice-web", 25, {"503": (0.0005, 0.08)}, (0.09, 0.3))],
        gauges=[
            gauge(
                "kube_deployment_status_replicas_available",
                {"deployment": "billing-api", "namespace": ns},
                4,
                2,
                start,
            )
        ],
        books={
            "billing-replicas.md": runbook(
                "billing-api replicas mismatch",
                "During node-group upgrades billing-api pods can be slow to come back because of the PDB. Wait for the upgrade to finish; if pods crash-loop, check for an OOMKilled reason and raise the memory limit in the chart.",
            )
        },
    )


# =================================================================================================
# 8. Autoscaler: cluster-autoscaler runs with `--max-nodes-total=60`, set two years ago when 60 was
#    generous. The cluster has grown to 60 nodes; the evening HPA scale-out of search-api leaves new
#    pods Pending and the cluster-autoscaler refuses every scale-up. The node group max (ng-general 90)
#    looks fine. The incident says "search is slow".
# =================================================================================================


@scenario("cluster-autoscaler-max-nodes-total-reached")
def cluster_autoscaler_max_nodes_total_reached() -> dict[str, Any]:
    start = -1600
    ns = "search"
    nodes = NODES_PDX
    img = "ghcr.io/pinecove/search-api:6.12.1"
    sa = app(
        "search-api",
        image=img,
        port=8080,
        rs="5f7b8c9d6e",
        cluster_ip="10.100.40.8",
        desired=16,
        pods=[
            ("a1qzt", "1/1", "Running", "0", "3d", 0),
            ("b7mvc", "1/1", "Running", "0", "3d", 1),
            ("c2kxn", "1/1", "Running", "0", "3d", 2),
            ("d9hpw", "1/1", "Running", "0", "3d", 0),
            ("e4rtl", "0/1", "Pending", "0", "24m", -1),
            ("f6wgs", "0/1", "Pending", "0", "24m", -1),
            ("g3nbd", "0/1", "Pending", "0", "19m", -1),
        ],
    )
    k8s = namespace(ns, nodes, [sa], seed=600)
    k8s[f"kubectl get horizontalpodautoscalers -n {ns}"] = hpa_table(
        [
            [
                "search-api",
                "Deployment/search-api",
                "cpu: 142%/65%",
                "4",
                "24",
                "16",
                "2y",
            ]
        ]
    )
    sig = "Max total nodes in cluster reached: 60"
    pend = pod_name(sa, "e4rtl")
    k8s[f"kubectl describe pods {pend} -n {ns}"] = pending_pod(
        pend,
        ns,
        owner=f"ReplicaSet/search-api-{sa['rs']}",
        labels=["app=search-api", f"pod-template-hash={sa['rs']}"],
        sa="search-api",
        containers=container_text(
            "search-api",
            img,
            8080,
            limits="memory:  6Gi",
            requests="cpu:      3\n  memory:   6Gi",
        ),
        events_rows=[
            (
                "Warning",
                "FailedScheduling",
                "2m (x9 over 24m)",
                "default-scheduler",
                "0/60 nodes are available: 4 node(s) had untolerated taint {dedicated: gpu}, 56 Insufficient cpu. preemption: 0/60 nodes are available: 60 No preemption victims found for incoming pod.",
            ),
        ],
    )
    ca = "cluster-autoscaler-aws-6c9d8f7b5-tq4zm"
    k8s["kubectl get pods -n kube-system"] = table(
        [
            ["NAME", "READY", "STATUS", "RESTARTS", "AGE"],
            [ca, "1/1", "Running", "0", "41d"],
            ["coredns-787cb67946-8xk2p", "1/1", "Running", "0", "41d"],
            ["coredns-787cb67946-lq9wd", "1/1", "Running", "0", "41d"],
            ["metrics-server-5b9c7d6f84-2hjzx", "1/1", "Running", "0", "41d"],
        ]
    )
    k8s[f"kubectl logs {ca} -n kube-system --tail=1000"] = podlog(
        [
            (-1500, "I1207 static_autoscaler.go:604] No unschedulable pods"),
            (-1440, "I1207 filter_out_schedulable.go:66] Filtering out schedulables"),
            (-1440, f"W1207 scale_up.go:90] {sig}"),
            (-600, f"W1207 scale_up.go:90] {sig}"),
            (-40, f"W1207 scale_up.go:90] {sig}"),
            (
                -40,
                "I1207 static_autoscaler.go:612] Scale up not possible: 3 pods unschedulable in search",
            ),
        ]
    )
    k8s["kubectl describe deployments cluster-autoscaler-aws -n kube-system"] = (
        "Name:                   cluster-autoscaler-aws\nNamespace:              kube-system\n"
        "Annotations:            deployment.kubernetes.io/revision: 9\nReplicas:               1 desired | 1 updated | 1 total | 1 available | 0 unavailable\n"
        "Pod Template:\n  Containers:\n   aws-cluster-autoscaler:\n    Image:      registry.k8s.io/autoscaling/cluster-autoscaler:v1.31.0\n"
        "    Command:\n      ./cluster-autoscaler\n      --cloud-provider=aws\n      --namespace=kube-system\n"
        "      --node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/prod-usw2\n"
        "      --max-nodes-total=60\n      --expander=least-waste\n      --balance-similar-node-groups=true\n      --scale-down-utilization-threshold=0.6\n"
        "Conditions:\n  Type           Status  Reason\n  ----           ------  ------\n  Available      True    MinimumReplicasAvailable\n  Progressing    True    NewReplicaSetAvailable\nEvents:          <none>\n"
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "24m",
                "Normal",
                "SuccessfulRescale",
                "HorizontalPodAutoscaler/search-api",
                "New size: 12; reason: cpu resource utilization (percentage of request) above target",
            ),
            (
                "19m",
                "Normal",
                "SuccessfulRescale",
                "HorizontalPodAutoscaler/search-api",
                "New size: 16; reason: cpu resource utilization (percentage of request) above target",
            ),
            (
                "2m",
                "Warning",
                "FailedScheduling",
                f"Pod/{pend}",
                "0/60 nodes are available: 4 node(s) had untolerated taint {dedicated: gpu}, 56 Insufficient cpu.",
            ),
            (
                "2m",
                "Normal",
                "NotTriggerScaleUp",
                f"Pod/{pend}",
                "pod didn't trigger scale-up: max node total count already reached",
            ),
        ]
    )
    run = pods_of(sa)[:4]
    evs = [
        ev("cluster-autoscaler", "warn", sig, **every(start, -10, 60), pods=[ca]),
        ev(
            "cluster-autoscaler",
            "info",
            "Scale-up: setting group eks-ng-general-2ac9 size to {n} (max 90)",
            **every(-9000, -3600, 900),
            pods=[ca],
        ),
        ev(
            "search-api",
            "warn",
            "query queue depth {ms} (threads busy 64/64), p99 {n}ms",
            **every(start, -5, 15),
            pods=run,
        ),
        ev(
            "web-frontend",
            "error",
            "GET /search?q=… -> 504 search-api timeout after 3000ms",
            **every(start, -3, 6),
        ),
        ev(
            "search-api",
            "info",
            "search-api 6.12.1 started (synonyms for winter catalogue)",
            at=-5600,
            pods=run,
        ),
        ev(
            "opensearch",
            "warn",
            "[search-prod-data-{ms}] GC overhead, old gen collection took {n}ms",
            **every(-7000, -60, 350),
        ),
        ev(
            "karpenter-migration",
            "info",
            "PLAT-1290 dry-run: 41 pods would move to NodePool general (no action taken)",
            at=-20000,
        ),
        ev(
            "search-api",
            "error",
            "synonyms reload failed: s3 GetObject timeout",
            **every(-10800, -10400, 100),
            pods=run,
        ),
    ]
    return kube_case(
        seed=600,
        start=start,
        inc=incident("search is slow and sometimes errors", "search", start),
        exp=expected(
            "platform",
            [
                "cluster-autoscaler",
                "deployment/cluster-autoscaler-aws",
                "cluster-autoscaler-aws",
                "--max-nodes-total",
                "max-nodes-total",
            ],
            sig,
            "cluster-autoscaler runs with --max-nodes-total=60, a cap set when the cluster was small; the cluster has reached 60 nodes. When the HPA raised search-api from 4 to 16 replicas, 12 new pods needed nodes and the autoscaler refused every scale-up ('Max total nodes in cluster reached: 60') although ng-general's own maximum (90) has room. The four running pods saturate and web-frontend times out. The search-api release, OpenSearch GC, the Karpenter dry-run and the old synonyms error are not the cause.",
            [
                f"{ca}: {sig}",
                f"{pend}: FailedScheduling 56 Insufficient cpu; NotTriggerScaleUp max node total count already reached",
                "deployment cluster-autoscaler-aws: --max-nodes-total=60",
            ],
            "Raise --max-nodes-total (or remove it and rely on node-group maxima); the pending pods schedule within minutes.",
        ),
        k8s=k8s,
        bgs=[bg("search-api", run, ["GET /v1/search?q={n} 200 {ms}ms"], 8)],
        evs=evs,
        services=[
            svc("web-frontend", 90, {"504": (0.001, 0.07)}, (0.25, 2.1)),
            svc("search-api", 120, {"503": (0.0005, 0.02)}, (0.12, 1.8)),
        ],
        gauges=[
            gauge("cluster_autoscaler_nodes_count", {"state": "ready"}, 60, 60, start),
            gauge(
                "kube_deployment_status_replicas_unavailable",
                {"deployment": "search-api", "namespace": ns},
                0,
                12,
                start,
            ),
        ],
        books={
            "search-slow.md": runbook(
                "Search slow",
                "Slow search is almost always OpenSearch. Check the cluster health and GC logs of the data nodes; if old-gen GC is above 1 s, restart the worst data node.",
            )
        },
    )


# =================================================================================================
# 9. Resource requests: PR web#1502 ("give the BFF headroom for SSR") raises storefront-bff's CPU
#    request from 500m to 2. The BFF is a single Node.js process: it can use about one core, so its
#    utilisation as a share of the request never passes ~50 % and the HPA (target 70 %) stays at its
#    minimum of 6 while the evening peak saturates every event loop. Nothing crashes.
# =================================================================================================


@scenario("cpu-request-raised-single-thread-hpa-never-scales")
def cpu_request_raised_single_thread_hpa_never_scales() -> dict[str, Any]:
    start = -1800
    ns = "web"
    nodes = NODES_FRA
    img = "ghcr.io/quayline/storefront-bff:14.3.0"
    bff = app(
        "storefront-bff",
        image=img,
        port=3000,
        rs="6c9d8b7f45",
        cluster_ip="10.96.12.30",
        pods=[
            (s, "1/1", "Running", "0", "5h", i % 3)
            for i, s in enumerate(
                ["a7kqx", "c2wnv", "f9rtb", "h4mzs", "p6ldc", "w3xjg"]
            )
        ],
    )
    k8s = namespace(ns, nodes, [bff], seed=601)
    sig = "requests.cpu 500m -> 2"
    k8s[f"kubectl get horizontalpodautoscalers -n {ns}"] = hpa_table(
        [
            [
                "storefront-bff",
                "Deployment/storefront-bff",
                "cpu: 48%/70%",
                "6",
                "30",
                "6",
                "2y",
            ]
        ]
    )
    k8s[f"kubectl describe horizontalpodautoscalers storefront-bff -n {ns}"] = (
        f"Name:                                                  storefront-bff\nNamespace:                                             {ns}\n"
        "Reference:                                             Deployment/storefront-bff\nMetrics:                                               ( current / target )\n"
        "  resource cpu on pods  (as a percentage of request):  48% (962m) / 70%\nMin replicas:                                          6\nMax replicas:                                          30\n"
        "Deployment pods:                                       6 current / 6 desired\nConditions:\n  Type            Status  Reason              Message\n  ----            ------  ------              -------\n"
        "  AbleToScale     True    ReadyForNewScale    recommended size matches current size\n"
        "  ScalingActive   True    ValidMetricFound    the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)\n"
        "  ScalingLimited  True    TooFewReplicas      the desired replica count is less than the minimum replica count\nEvents:           <none>\n"
    )
    cont = container_text(
        "storefront-bff",
        img,
        3000,
        limits="memory:  1536Mi",
        requests="cpu:      2\n  memory:   1Gi",
        env={"NODE_OPTIONS": "--max-old-space-size=1024", "UV_THREADPOOL_SIZE": "4"},
    )
    k8s[f"kubectl describe deployments storefront-bff -n {ns}"] = (
        h20.deployment_describe(
            "storefront-bff",
            ns,
            replicas="6 desired | 6 updated | 6 total | 6 available | 0 unavailable",
            revision=31,
            containers=cont,
            conditions=[
                ("Available", "True", "MinimumReplicasAvailable"),
                ("Progressing", "True", "NewReplicaSetAvailable"),
            ],
            old_rs="<none>",
            new_rs=f"storefront-bff-{bff['rs']} (6/6 replicas created)",
        ).replace(
            "Annotations:            deployment.kubernetes.io/revision: 31",
            f"Annotations:            deployment.kubernetes.io/revision: 31\n                        kubernetes.io/change-cause: PR web#1502 {sig} (SSR headroom)",
        )
    )
    ps = pods_of(bff)
    k8s[f"kubectl logs {ps[0]} -n {ns} --tail=1000"] = podlog(
        [
            (
                -18000,
                "storefront-bff 14.3.0 listening on :3000 (1 process, cluster mode off)",
            ),
            (-1500, '{"level":"warn","msg":"event loop lag","lagMs":412}'),
            (-300, '{"level":"warn","msg":"event loop lag","lagMs":1380}'),
            (-20, '{"level":"warn","msg":"event loop lag","lagMs":1715}'),
        ]
    )
    evs = [
        ev(
            "argocd",
            "info",
            f"application storefront-bff synced to web@c41e7a2 (PR web#1502 'give the BFF headroom for SSR': {sig}): Deployment web/storefront-bff configured",
            at=-18200,
        ),
        ev(
            "storefront-bff",
            "warn",
            '{"level":"warn","msg":"event loop lag","lagMs":1{ms}0}',
            **every(start, -5, 12),
            pods=ps,
        ),
        ev(
            "cdn",
            "error",
            "origin storefront-bff: 504 Gateway Timeout on /p/{n} after 5s",
            **every(start + 30, -3, 6),
        ),
        ev(
            "kube-prometheus",
            "info",
            "KubeHpaMaxedOut not firing: storefront-bff 6/30 replicas",
            **every(-7000, -60, 1800),
        ),
        ev(
            "checkout-web",
            "info",
            "checkout-web 2026.12.7-1 deployed (new payment iframe)",
            at=-4300,
        ),
        ev(
            "redis-session",
            "warn",
            "slowlog: HGETALL sess:{n} took {ms}ms",
            **every(-7000, -60, 300),
        ),
        ev(
            "storefront-bff",
            "error",
            "GET /api/cms/home -> cms upstream 502",
            **every(-10800, -10400, 90),
            pods=ps,
        ),
    ]
    return kube_case(
        seed=601,
        start=start,
        inc=alert(
            incident("[ALERT] StorefrontLatencyHigh p95 > 1.5s", "storefront", start),
            {"alertname": "StorefrontLatencyHigh", "namespace": ns, "severity": "page"},
        ),
        exp=expected(
            "application",
            [
                "deployment/storefront-bff",
                "storefront-bff",
                "requests.cpu",
                "cpu request",
                "PR web#1502",
                "hpa/storefront-bff",
                "horizontalpodautoscaler/storefront-bff",
            ],
            sig,
            "PR web#1502 raised storefront-bff's CPU request from 500m to 2. The BFF is one Node.js process and can use about one core, so its CPU as a share of the request tops out near 50 %; the HPA (target 70 %) sees 48 % and stays at its minimum of 6 replicas while the evening peak saturates every event loop (lag above 1 s) and the CDN times out. The CDN 504s are the victim; the checkout-web release, Redis slowlog entries and the old CMS 502s are not the cause.",
            [
                f"deployment storefront-bff: kubernetes.io/change-cause PR web#1502 {sig}",
                "hpa storefront-bff: cpu 48% (962m) / 70%, 6 of 30 replicas, TooFewReplicas",
                "storefront-bff: event loop lag 1.4-1.7 s, 1 process",
            ],
            "Set the request back to 500m (or scale on event-loop lag / RPS instead of CPU share); scale the deployment by hand now.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "storefront-bff",
                ps,
                ["GET /p/{n} 200 {ms}0ms", "GET /api/cart 200 {ms}ms"],
                8,
            )
        ],
        evs=evs,
        services=[
            svc(
                "storefront-bff",
                260,
                {"504": (0.0005, 0.03)},
                (0.18, 1.6),
                rps_after=420,
            )
        ],
        gauges=[
            gauge(
                "nodejs_eventloop_lag_p99_seconds",
                {"service": "storefront-bff"},
                0.03,
                1.5,
                start,
            ),
            gauge(
                "kube_horizontalpodautoscaler_status_current_replicas",
                {"horizontalpodautoscaler": "storefront-bff"},
                6,
                6,
                start,
            ),
        ],
        books={
            "storefront-latency.md": runbook(
                "Storefront latency high",
                "p95 above 1.5 s is usually the session Redis. Check the redis-session slowlog; if HGETALL dominates, fail over to the replica.",
            )
        },
    )


# =================================================================================================
# 10. Ingress controller: PLAT-1402 upgrades ingress-nginx from 1.9 to 1.12; snippet annotations are
#     off by default and an Ingress using one is dropped ("risky annotation"). legacy-mobile-api's
#     Ingress rewrites an auth header with a configuration-snippet; its host now falls to the default
#     backend (404). Only old app versions use that host; the incident is a support line.
# =================================================================================================


@scenario("ingress-nginx-upgrade-drops-snippet-ingress")
def ingress_nginx_upgrade_drops_snippet_ingress() -> dict[str, Any]:
    start = -2000
    ns = "mobile"
    nodes = NODES_IAD
    lm = app(
        "legacy-mobile-api",
        image="412398701155.dkr.ecr.us-east-1.amazonaws.com/mobile/legacy-mobile-api:5.88.2",
        port=8080,
        rs="8d7c6b5f9a",
        cluster_ip="172.20.55.20",
        pods=[
            ("j3vbn", "1/1", "Running", "0", "40d", 0),
            ("q8zkl", "1/1", "Running", "0", "40d", 1),
        ],
    )
    ma = app(
        "mobile-api",
        image="412398701155.dkr.ecr.us-east-1.amazonaws.com/mobile/mobile-api:7.4.0",
        port=8080,
        rs="5b6c8d9e7f",
        cluster_ip="172.20.55.21",
        pods=[
            ("d2xrw", "1/1", "Running", "0", "1h", 0),
            ("t7nmc", "1/1", "Running", "0", "1h", 2),
        ],
    )
    k8s = namespace(ns, nodes, [lm, ma], seed=602, extra_namespaces=("ingress-nginx",))
    sig = "annotation group ConfigurationSnippet contains risky annotation based on ingress configuration"
    k8s[f"kubectl get ingresses -n {ns}"] = table(
        [
            ["NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"],
            ["legacy-mobile-api", "nginx", "m1.api.tidewell.app", "", "80, 443", "3y"],
            [
                "mobile-api",
                "nginx",
                "m.api.tidewell.app",
                "a81c3f0e2b9d4.elb.us-east-1.amazonaws.com",
                "80, 443",
                "1y",
            ],
        ]
    )
    k8s[f"kubectl describe ingresses legacy-mobile-api -n {ns}"] = (
        f"Name:             legacy-mobile-api\nLabels:           app=legacy-mobile-api\nNamespace:        {ns}\nAddress:          \n"
        "Ingress Class:    nginx\nDefault backend:  <default>\nTLS:\n  m1-api-tls terminates m1.api.tidewell.app\nRules:\n"
        "  Host                 Path  Backends\n  ----                 ----  --------\n  m1.api.tidewell.app\n"
        "                       /   legacy-mobile-api:8080 (10.102.1.44:8080,10.102.2.91:8080)\n"
        "Annotations:          nginx.ingress.kubernetes.io/configuration-snippet:\n"
        '                        more_set_input_headers "Authorization: Bearer $http_x_legacy_token";\n'
        "                      nginx.ingress.kubernetes.io/proxy-body-size: 8m\n"
        "Events:\n  Type    Reason  Age   From                      Message\n  ----    ------  ----  ----                      -------\n"
        "  Normal  Sync    40d   nginx-ingress-controller  Scheduled for sync\n"
    )
    ctl = "ingress-nginx-controller-7c9f5b6d84-m4kzq"
    k8s["kubectl get pods -n ingress-nginx"] = table(
        [
            ["NAME", "READY", "STATUS", "RESTARTS", "AGE"],
            [ctl, "1/1", "Running", "0", "36m"],
            ["ingress-nginx-controller-7c9f5b6d84-x8hwt", "1/1", "Running", "0", "35m"],
        ]
    )
    k8s[f"kubectl logs {ctl} -n ingress-nginx --tail=1000"] = podlog(
        [
            (
                -2150,
                "NGINX Ingress controller Release: v1.12.0 Build: ba1e8f3 nginx version: nginx/1.25.5",
            ),
            (-2140, f'E1207 store.go:935] "{sig}" ingress="{ns}/legacy-mobile-api"'),
            (
                -2139,
                f'W1207 store.go:432] "skipping ingress" ingress="{ns}/legacy-mobile-api" err="{sig}"',
            ),
            (-2120, 'I1207 controller.go:213] "Backend successfully reloaded"'),
            (-30, f'E1207 store.go:935] "{sig}" ingress="{ns}/legacy-mobile-api"'),
        ]
    )
    k8s["kubectl events -n ingress-nginx"] = events(
        [
            (
                "36m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/ingress-nginx-controller",
                "Scaled up replica set ingress-nginx-controller-7c9f5b6d84 to 2",
            ),
            (
                "36m",
                "Normal",
                "RELOAD",
                f"Pod/{ctl}",
                "NGINX reload triggered due to a change in configuration",
            ),
        ]
    )
    evs = [
        ev(
            "argocd",
            "info",
            "application ingress-nginx synced to platform@0f7b3e9 (PLAT-1402 'ingress-nginx chart 4.8.3 -> 4.12.0, controller v1.12.0'): Deployment ingress-nginx/ingress-nginx-controller configured",
            at=-2200,
        ),
        ev(
            "ingress-nginx",
            "error",
            f'"{sig}" ingress="{ns}/legacy-mobile-api"',
            **every(start, -30, 120),
            pods=[ctl],
        ),
        ev(
            "ingress-nginx",
            "info",
            'm1.api.tidewell.app "POST /v1/session HTTP/2.0" 404 146 "-" "Tidewell/5.{ms} (iOS)" upstream-default-backend',
            **every(start, -3, 6),
            pods=[ctl],
        ),
        ev(
            "support-desk",
            "warn",
            "ticket #{n}: 'app says login failed, reinstalled twice' (app version 5.{ms})",
            **every(start + 300, -60, 240),
        ),
        ev(
            "mobile-api",
            "info",
            "mobile-api 7.4.0 started (passkeys)",
            at=-3600,
            pods=pods_of(ma),
        ),
        ev(
            "auth-service",
            "warn",
            "login failed for user u_{n}: wrong password",
            **every(-7000, -30, 60),
        ),
        ev(
            "legacy-mobile-api",
            "error",
            "token introspection timeout (auth-service)",
            **every(-10800, -10400, 90),
            pods=pods_of(lm),
        ),
    ]
    return kube_case(
        seed=602,
        start=start,
        inc=incident(
            "users on older app versions can't log in",
            "mobile app login",
            start,
            ["support has a wave of 'login failed' tickets, all from app 5.x"],
        ),
        exp=expected(
            "connect",
            [
                "ingress/legacy-mobile-api",
                "legacy-mobile-api",
                "ingress-nginx",
                "ingress-nginx-controller",
                "configuration-snippet",
                "allow-snippet-annotations",
                "PLAT-1402",
            ],
            sig,
            "PLAT-1402 upgraded ingress-nginx to v1.12.0, where snippet annotations are disabled by default and an Ingress carrying one is skipped. legacy-mobile-api's Ingress rewrites the Authorization header with a configuration-snippet, so the controller dropped it and m1.api.tidewell.app now falls to the default backend: every call from app 5.x gets 404 and the app shows 'login failed'. The support tickets are the victim; legacy-mobile-api itself is healthy and idle; the mobile-api release, wrong-password failures and the old introspection timeout are not the cause.",
            [
                f"{ctl}: {sig} ingress=mobile/legacy-mobile-api; skipping ingress",
                "ingress-nginx: m1.api.tidewell.app POST /v1/session 404 upstream-default-backend",
                "argocd: PLAT-1402 ingress-nginx controller v1.12.0 36 minutes ago",
            ],
            "Move the header rewrite out of the snippet (or set allow-snippet-annotations true and annotations-risk-level Critical for now); the Ingress is picked up on the next sync.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "mobile-api",
                pods_of(ma),
                ["POST /v2/session 200 {ms}ms", "GET /v2/feed 200 {ms}ms"],
                8,
            )
        ],
        evs=evs,
        services=[
            svc("ingress-nginx", 300, {"404": (0.002, 0.06)}, (0.05, 0.05)),
            svc(
                "legacy-mobile-api",
                18,
                {"500": (0.001, 0.001)},
                (0.04, 0.04),
                rps_after=0.1,
            ),
        ],
        books={
            "login-failed.md": runbook(
                "Login failures",
                "A spike of login failures is usually auth-service or a credential-stuffing attack. Check auth-service errors and the WAF's bot rules; enable the login captcha if failures come from few IPs.",
            )
        },
    )


# =================================================================================================
# 11. DNS inside the cluster: the reporting stack moved to the new kubeadm cluster fra1-b (PLAT-1350),
#     built to the platform's naming standard with clusterDomain k8s.fra1.internal. Short names resolve
#     through the search path; reporting-worker's config holds the FQDN
#     ledger.finance.svc.cluster.local, which does not exist there (NXDOMAIN). Every export fails.
# =================================================================================================


@scenario("new-cluster-domain-breaks-hardcoded-cluster-local")
def new_cluster_domain_breaks_hardcoded_cluster_local() -> dict[str, Any]:
    start = -2600
    ns = "reporting"
    nodes = [
        ("fra1-b-worker-01", "Ready", "10.44.8.11", "6d"),
        ("fra1-b-worker-02", "Ready", "10.44.8.12", "6d"),
        ("fra1-b-worker-03", "Ready", "10.44.8.13", "6d"),
    ]
    rw = app(
        "reporting-worker",
        image="harbor.fra1.internal/reporting/reporting-worker:3.7.5",
        port=9090,
        rs="69f7c8d5b4",
        cluster_ip="10.43.21.7",
        pods=[
            ("b5nqk", "1/1", "Running", "0", "47m", 0),
            ("m7ztr", "1/1", "Running", "0", "47m", 1),
        ],
    )
    rui = app(
        "reporting-ui",
        image="harbor.fra1.internal/reporting/reporting-ui:2.19.0",
        port=8080,
        rs="7b8d9c6f5e",
        cluster_ip="10.43.21.9",
        pods=[("h2wxc", "1/1", "Running", "0", "47m", 2)],
    )
    k8s = namespace(
        ns,
        nodes,
        [rw, rui],
        seed=603,
        extra_namespaces=("finance",),
        configmaps=[("reporting-worker-config", "6", "47m")],
    )
    for key in ("kubectl get nodes -o wide",):
        k8s[key] = (
            k8s[key]
            .replace("v1.31.2-eks-94953ac", "v1.31.3")
            .replace("Amazon Linux 2023.6.20241121", "Ubuntu 24.04.1 LTS")
            .replace("6.1.115-126.197.amzn2023.x86_64", "6.8.0-49-generic")
        )
    sig = "lookup ledger.finance.svc.cluster.local on 10.43.0.10:53: no such host"
    k8s[f"kubectl get configmaps reporting-worker-config -n {ns} -o yaml"] = yaml_of(
        "ConfigMap",
        "reporting-worker-config",
        ns,
        """data:
  LEDGER_URL: http://ledger.finance.svc.cluster.local:8080
  WAREHOUSE_URL: http://warehouse-api.finance:8080
  EXPORT_BUCKET: s3://reports-fra1/exports
  SMTP_HOST: smtp.fra1.internal
  CONCURRENCY: "4"
  LOG_LEVEL: info""",
    )
    ps = pods_of(rw)
    k8s[f"kubectl logs {ps[0]} -n {ns} --tail=1000"] = podlog(
        [
            (
                -2800,
                'level=info msg="reporting-worker 3.7.5 started" ledger=http://ledger.finance.svc.cluster.local:8080',
            ),
            (
                -2550,
                f'level=error msg="export failed" report=monthly-ledger-{"{"}tenant{"}"} err="Get \\"http://ledger.finance.svc.cluster.local:8080/v1/entries\\": dial tcp: {sig}"'.replace(
                    "{tenant}", "t_4410"
                ),
            ),
            (
                -40,
                f'level=error msg="export failed" report=monthly-ledger-t_9021 err="Get \\"http://ledger.finance.svc.cluster.local:8080/v1/entries\\": dial tcp: {sig}"',
            ),
        ]
    )
    k8s["kubectl get configmaps coredns -n kube-system -o yaml"] = yaml_of(
        "ConfigMap",
        "coredns",
        "kube-system",
        """data:
  Corefile: |
    .:53 {
        errors
        log . {
           class denial
        }
        health { lameduck 5s }
        ready
        kubernetes k8s.fra1.internal in-addr.arpa ip6.arpa {
           pods insecure
           fallthrough in-addr.arpa ip6.arpa
           ttl 30
        }
        prometheus :9153
        forward . /etc/resolv.conf
        cache 30
        loop
        reload
        loadbalance
    }""",
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "47m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/reporting-worker",
                "Scaled up replica set reporting-worker-69f7c8d5b4 to 2",
            ),
            (
                "47m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/reporting-ui",
                "Scaled up replica set reporting-ui-7b8d9c6f5e to 1",
            ),
        ]
    )
    evs = [
        ev(
            "argocd",
            "info",
            "PLAT-1350: application reporting moved to cluster fra1-b (destination https://fra1-b.k8s.fra1.internal:6443); synced reporting@8e2c1d4",
            at=-2850,
        ),
        ev(
            "reporting-worker",
            "error",
            f'export failed report=monthly-ledger-t_{{n}} err="dial tcp: {sig}"',
            **every(start, -10, 30),
            pods=ps,
        ),
        ev(
            "reporting-ui",
            "error",
            "GET /api/exports/{n}/status -> export failed (worker error), showing 'report generation failed'",
            **every(start + 60, -8, 25),
            pods=pods_of(rui),
        ),
        ev(
            "coredns",
            "info",
            '[INFO] 10.42.{ms}.7:5{ms} - "A IN ledger.finance.svc.cluster.local. udp 50 false 512" NXDOMAIN qr,rd,ra 143 0.0004{ms}s',
            **every(start, -10, 30),
        ),
        ev(
            "warehouse-api",
            "warn",
            "slow query: monthly aggregates took {n}ms",
            **every(-7000, -60, 300),
        ),
        ev(
            "reporting-ui",
            "info",
            "reporting-ui 2.19.0 started (dark mode)",
            at=-2800,
            pods=pods_of(rui),
        ),
        ev(
            "coredns",
            "error",
            "[ERROR] plugin/errors: 2 api.github.com. AAAA: read udp 10.42.1.4:4{ms}->10.44.0.2:53: i/o timeout",
            **every(-10800, -10500, 60),
        ),
        ev(
            "reporting-worker",
            "error",
            "SMTP 421 too many connections from 10.44.{ms}.3 (smtp.fra1.internal)",
            **every(-10000, -9800, 40),
            pods=ps,
        ),
    ]
    return kube_case(
        seed=603,
        start=start,
        inc=incident(
            "reports: 'report generation failed' for every tenant since the migration",
            "reporting",
            start,
        ),
        exp=expected(
            "dns",
            [
                "reporting-worker",
                "configmap/reporting-worker-config",
                "reporting-worker-config",
                "LEDGER_URL",
                "ledger.finance.svc.cluster.local",
                "cluster.local",
                "clusterDomain",
                "PLAT-1350",
            ],
            sig,
            "PLAT-1350 moved the reporting stack to the new cluster fra1-b, whose cluster domain is k8s.fra1.internal (CoreDNS serves that zone, not cluster.local). reporting-worker's ConfigMap names the ledger by the fully qualified ledger.finance.svc.cluster.local, which bypasses the search path and gets NXDOMAIN; every export fails. Short names like warehouse-api.finance still work. reporting-ui's 'report generation failed' is the victim; the UI release, warehouse slow queries and the old upstream DNS timeout and SMTP errors are not the cause.",
            [
                f"reporting-worker: dial tcp: {sig}",
                "configmap reporting-worker-config: LEDGER_URL http://ledger.finance.svc.cluster.local:8080",
                "coredns Corefile: kubernetes k8s.fra1.internal; NXDOMAIN for ledger.finance.svc.cluster.local.",
            ],
            "Use the short name ledger.finance (or ledger.finance.svc) in LEDGER_URL; audit configs for hardcoded cluster.local before moving more apps.",
        ),
        k8s=k8s,
        bgs=[bg("reporting-worker", ps, ['level=info msg="poll" queued={ms}'], 20)],
        evs=evs,
        services=[svc("reporting-ui", 4, {"500": (0.001, 0.3)}, (0.1, 0.1))],
        gauges=[
            gauge(
                "coredns_dns_responses_total_rate",
                {"rcode": "NXDOMAIN"},
                0.2,
                2.1,
                start,
            )
        ],
        books={
            "report-failed.md": runbook(
                "Report generation failed",
                "Failed reports are almost always warehouse-api timeouts on large tenants. Raise the worker's WAREHOUSE_TIMEOUT and re-run the export from the admin page.",
            )
        },
    )


# =================================================================================================
# 12. Mesh control plane: the Istio canary upgrade PLAT-1377 (revision 1-21 -> 1-23) relabelled the
#     namespaces but the orders pods were never restarted; yesterday the old revision's istiod-1-21
#     was uninstalled. Their sidecars lost xDS and cannot renew their 24 h workload certificates; this
#     morning the certificates expired and every mTLS call into order-service fails. checkout is the
#     loud victim.
# =================================================================================================


@scenario("istio-old-revision-removed-sidecar-certs-expire")
def istio_old_revision_removed_sidecar_certs_expire() -> dict[str, Any]:
    start = -1400
    ns = "orders"
    nodes = NODES_DUB
    img = "ghcr.io/larkspur-hq/order-service:9.2.3"
    os_ = app(
        "order-service",
        image=img,
        port=8080,
        rs="5d9b7c8f6a",
        cluster_ip="10.100.50.11",
        pods=[
            ("c6tvk", "2/2", "Running", "0", "9d", 0),
            ("n3qwz", "2/2", "Running", "0", "9d", 1),
            ("r8hbm", "2/2", "Running", "0", "9d", 2),
        ],
    )
    k8s = namespace(
        ns, nodes, [os_], seed=604, extra_namespaces=("istio-system", "checkout")
    )
    sig = "istiod-1-21.istio-system.svc:15012"
    ps = pods_of(os_)
    k8s[f"kubectl describe pods {ps[0]} -n {ns}"] = (
        f"Name:             {ps[0]}\nNamespace:        {ns}\nNode:             {nodes[0][0]}/{nodes[0][2]}\n"
        f"Labels:           app=order-service\n                  istio.io/rev=1-21\n                  pod-template-hash={os_['rs']}\n"
        'Annotations:      sidecar.istio.io/status: {"initContainers":["istio-init"],"containers":["istio-proxy"],"revision":"1-21"}\n'
        "Status:           Running\nControlled By:    ReplicaSet/order-service-5d9b7c8f6a\nContainers:\n"
        f"  order-service:\n    Image:          {img}\n    State:          Running\n      Started:      {when(-777600)}\n    Ready:          True\n    Restart Count:  0\n"
        "  istio-proxy:\n    Image:          docker.io/istio/proxyv2:1.21.4\n    Args:\n      proxy\n      sidecar\n      --domain\n      $(POD_NAMESPACE).svc.cluster.local\n"
        f"    State:          Running\n      Started:      {when(-777600)}\n    Ready:          True\n    Restart Count:  0\n"
        "    Environment:\n"
        f"      CA_ADDR:        {sig}\n"
        f'      PROXY_CONFIG:   {{"discoveryAddress":"{sig}"}}\n'
        "      ISTIO_META_CLUSTER_ID:  Kubernetes\n"
        "Conditions:\n  Type              Status\n  Initialized       True \n  Ready             True \n  ContainersReady   True \n  PodScheduled      True \n"
        "Events:           <none>\n"
    )
    k8s[f"kubectl logs {ps[0]} -n {ns} -c istio-proxy --tail=1000"] = podlog(
        [
            (
                -80000,
                "2026-12-06T10:41:02.118Z\twarn\txds\tXDS client connection error: dial tcp: lookup istiod-1-21.istio-system.svc on 10.100.0.10:53: no such host",
            ),
            (
                -80000,
                f"2026-12-06T10:41:02.120Z\twarn\tads\tADS: discovery server {sig} unreachable, keeping last config",
            ),
            (
                -43200,
                f"2026-12-06T22:41:02.404Z\terror\tcache\tresource:default failed to sign: create certificate: rpc error: code = Unavailable desc = connection error: dial tcp: lookup istiod-1-21.istio-system.svc: no such host (CA {sig})",
            ),
            (
                -1500,
                "2026-12-07T10:36:12.009Z\twarn\tcache\tworkload certificate for spiffe://cluster.local/ns/orders/sa/order-service expired at 2026-12-07T10:36:11Z",
            ),
        ]
    )
    k8s["kubectl get namespaces orders -o yaml"] = yaml_of(
        "Namespace",
        "orders",
        None,
        """  labels:
    istio.io/rev: 1-23
    kubernetes.io/metadata.name: orders
  annotations:
    platform/upgrade: PLAT-1377 relabelled 2026-11-26
status:
  phase: Active""",
    )
    k8s["kubectl get pods -n istio-system"] = table(
        [
            ["NAME", "READY", "STATUS", "RESTARTS", "AGE"],
            ["istiod-1-23-6f7d9c8b54-9xkqv", "1/1", "Running", "0", "11d"],
            ["istiod-1-23-6f7d9c8b54-tw4mz", "1/1", "Running", "0", "11d"],
            ["istio-ingressgateway-7c8d5f9b6a-l2vrn", "1/1", "Running", "0", "11d"],
        ]
    )
    k8s["kubectl events -n istio-system"] = events(
        [
            (
                "23h",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/istiod-1-21",
                "Scaled down replica set istiod-1-21-84b6c7d9f5 to 0 from 2",
            ),
            (
                "23h",
                "Normal",
                "Killing",
                "Pod/istiod-1-21-84b6c7d9f5-h5kcd",
                "Stopping container discovery",
            ),
        ]
    )
    evs = [
        ev(
            "argocd",
            "info",
            "application istio-1-21 deleted (PLAT-1377 'remove old control plane after canary'): Deployment istio-system/istiod-1-21 deleted",
            at=-83000,
        ),
        ev(
            "istio-proxy",
            "warn",
            f"ADS: discovery server {sig} unreachable, keeping last config",
            **every(-82000, -60, 3600),
            pods=ps,
        ),
        ev(
            "istio-proxy",
            "error",
            f"resource:default failed to sign: create certificate: connection error: dial tcp: lookup istiod-1-21.istio-system.svc: no such host (CA {sig})",
            **every(-43200, -60, 1800),
            pods=ps,
        ),
        ev(
            "istio-proxy",
            "warn",
            "workload certificate for spiffe://cluster.local/ns/orders/sa/order-service expired at 2026-12-07T10:36:11Z",
            at=-1500,
            pods=ps,
        ),
        ev(
            "checkout-api",
            "error",
            "POST /v2/checkout -> 503 order-service: upstream connect error or disconnect/reset before headers. reset reason: connection failure, transport failure reason: TLS_error:|268435581:SSL routines:OPENSSL_internal:CERTIFICATE_VERIFY_FAILED",
            **every(start, -2, 4),
        ),
        ev(
            "checkout-api", "info", "checkout-api 31.0.2 started (gift cards)", at=-3900
        ),
        ev(
            "fraud-scorer",
            "warn",
            "model latency {n}us above 50ms budget",
            **every(-7000, -30, 200),
        ),
        ev(
            "checkout-api",
            "error",
            "POST /v2/checkout -> 502 payments: stream reset",
            **every(-10800, -10300, 120),
        ),
    ]
    return kube_case(
        seed=604,
        start=start,
        inc=alert(
            incident("[PagerDuty] CheckoutErrorBudgetBurn", "checkout", start),
            {
                "alertname": "CheckoutErrorBudgetBurn",
                "namespace": "checkout",
                "service": "checkout-api",
            },
        ),
        exp=expected(
            "tls",
            [
                "istiod-1-21",
                "istio revision 1-21",
                "istio-proxy",
                "PLAT-1377",
                "deployment/order-service",
                "order-service",
                "workload certificate",
            ],
            sig,
            "During the Istio canary upgrade PLAT-1377 the orders namespace was relabelled to revision 1-23 but its pods were never restarted, so their sidecars still use istiod-1-21. That control plane was removed yesterday: the proxies kept their last config but could not renew their 24 h workload certificates, which expired at 10:36. Since then every mTLS connection to order-service fails (callers see CERTIFICATE_VERIFY_FAILED) and checkout answers 503. checkout's errors are the victim; the checkout release, fraud-scorer latency and the old payments reset are not the cause.",
            [
                f"{ps[0]} istio-proxy: failed to sign: lookup istiod-1-21.istio-system.svc: no such host (CA {sig})",
                "istio-proxy: workload certificate … expired at 2026-12-07T10:36:11Z",
                "pods: istio.io/rev=1-21, proxyv2:1.21.4; namespace orders labelled 1-23; istiod-1-21 scaled to 0 23h ago",
            ],
            "Restart order-service (rollout restart) so the 1-23 injector gives it new sidecars; check every namespace for pods still on revision 1-21 before removing a control plane.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "order-service",
                ps,
                ["GET /internal/orders/{n} 200 {ms}ms (plaintext from local sidecar)"],
                30,
            )
        ],
        evs=evs,
        services=[svc("checkout-api", 35, {"503": (0.001, 0.4)}, (0.2, 0.08))],
        gauges=[
            gauge("istio_agent_cert_expiry_seconds", {"pod": ps[0]}, 40000, 0, -1500)
        ],
        books={
            "checkout-errors.md": runbook(
                "Checkout error budget burn",
                "Checkout errors mostly come from the payments provider. Check the payments dashboard and the provider status page; switch to the backup acquirer with the `payments.fallback` flag if the provider is degraded.",
            )
        },
    )


# =================================================================================================
# 13. A node: the analytics node group runs a custom AMI (PLAT-1011) whose containerd config keeps the
#     default sandbox image registry.k8s.io/pause:3.8; the nodes sit in private subnets with only ECR
#     and S3 endpoints. On ip-10-90-3-77 the image filesystem passed the GC threshold and kubelet
#     removed the unused pause image; since then no new pod on that node gets a sandbox. The rollout of
#     pick-router is stuck with some pods ContainerCreating. Other nodes are fine.
# =================================================================================================


@scenario("pause-image-garbage-collected-private-node")
def pause_image_garbage_collected_private_node() -> dict[str, Any]:
    start = -1500
    ns = "fulfilment"
    nodes = NODES_PDX
    img = "118273645509.dkr.ecr.us-west-2.amazonaws.com/fulfilment/pick-router:4.18.0"
    pr = app(
        "pick-router",
        image=img,
        port=8080,
        rs="7b5d8c9f6e",
        cluster_ip="10.100.61.20",
        desired=6,
        pods=[
            ("a4kzt", "1/1", "Running", "0", "24m", 0),
            ("c8nwp", "1/1", "Running", "0", "23m", 1),
            ("f2mqx", "0/1", "ContainerCreating", "0", "24m", 2),
            ("k9vrd", "0/1", "ContainerCreating", "0", "23m", 2),
        ],
        extra_rs=[
            (
                "pick-router-6c4f9b7d58",
                "3",
                "3",
                "3",
                "9d",
                "pick-router",
                img.replace("4.18.0", "4.17.2"),
                "app=pick-router,pod-template-hash=6c4f9b7d58",
            )
        ],
    )
    k8s = namespace(ns, nodes, [pr], seed=605)
    sig = 'failed to get sandbox image "registry.k8s.io/pause:3.8"'
    sandbox = (
        "Failed to create pod sandbox: rpc error: code = Unknown desc = "
        + sig
        + ': failed to pull image "registry.k8s.io/pause:3.8": failed to pull and unpack image "registry.k8s.io/pause:3.8": failed to resolve reference "registry.k8s.io/pause:3.8": failed to do request: Head "https://registry.k8s.io/v2/pause/manifests/3.8": dial tcp 34.96.108.209:443: i/o timeout'
    )
    stuck = pod_name(pr, "f2mqx")
    k8s[f"kubectl describe pods {stuck} -n {ns}"] = pending_pod(
        stuck,
        ns,
        owner=f"ReplicaSet/pick-router-{pr['rs']}",
        labels=["app=pick-router", f"pod-template-hash={pr['rs']}"],
        sa="pick-router",
        containers=container_text("pick-router", img, 8080),
        node=f"{nodes[2][0]}/{nodes[2][2]}",
        conditions=(
            ("PodReadyToStartContainers", "False"),
            ("Initialized", "True"),
            ("Ready", "False"),
            ("ContainersReady", "False"),
            ("PodScheduled", "True"),
        ),
        events_rows=[
            sched(ns, stuck, nodes[2][0], "24m"),
            (
                "Warning",
                "FailedCreatePodSandBox",
                "3m (x21 over 24m)",
                "kubelet",
                sandbox,
            ),
        ],
    )
    k8s[f"kubectl describe nodes {nodes[2][0]}"] = h20.retype_node(
        node_describe(
            nodes[2][0],
            nodes[2][2],
            pods_rows=[
                (ns, stuck),
                (ns, pod_name(pr, "k9vrd")),
                ("kube-system", "aws-node-8kq2w"),
                ("kube-system", "kube-proxy-x7c4n"),
            ],
            events_text=(
                "  Type     Reason                 Age                  From     Message\n"
                "  ----     ------                 ----                 ----     -------\n"
                "  Warning  ImageGCFailed          38m                  kubelet  Image garbage collection: freed 7.9GB, image filesystem was at 87% (threshold 85%)\n"
                "  Normal   FreeDiskSpaceFailed    38m                  kubelet  Failed to garbage collect required amount of images. Attempted to free 2147483648 bytes, but only found 0 bytes eligible to free.\n"
            ),
        ),
        "r6i.2xlarge",
        -1900000,
        "eks.amazonaws.com/nodegroup=ng-analytics,platform/ami=custom-al2023-plat1011",
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "24m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/pick-router",
                "Scaled up replica set pick-router-7b5d8c9f6e to 2",
            ),
            (
                "23m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/pick-router",
                "Scaled up replica set pick-router-7b5d8c9f6e to 4",
            ),
            ("3m", "Warning", "FailedCreatePodSandBox", f"Pod/{stuck}", sandbox),
            (
                "2m",
                "Warning",
                "FailedCreatePodSandBox",
                f"Pod/{pod_name(pr, 'k9vrd')}",
                sandbox,
            ),
        ]
    )
    evs = [
        ev(
            "kubelet",
            "warn",
            "Image garbage collection: freed 7.9GB (removed registry.k8s.io/pause:3.8, sha256:4873874c08ef…, unused 41d)",
            at=-2300,
            labels={"node": nodes[2][0]},
        ),
        ev(
            "kubelet",
            "error",
            f"RunPodSandbox from runtime service failed: {sig}: dial tcp 34.96.108.209:443: i/o timeout",
            **every(start, -30, 60),
            labels={"node": nodes[2][0]},
        ),
        ev(
            "packer",
            "info",
            'PLAT-1011 custom-al2023 AMI built: containerd 1.7.23, config from upstream defaults (sandbox_image = "registry.k8s.io/pause:3.8")',
            at=-3100000,
        ),
        ev(
            "argocd",
            "info",
            "application pick-router synced to fulfilment@4.18.0 (wave picking by zone)",
            at=-1460,
        ),
        ev(
            "pick-router",
            "info",
            "pick-router 4.18.0 ready (zone wave picking)",
            **every(-1420, -1380, 40),
            pods=pods_of(pr)[:2],
        ),
        ev(
            "wms-gateway",
            "error",
            "POST /picks/route -> 503 pick-router upstream overloaded (3 of 6 replicas)",
            **every(start + 300, -10, 30),
        ),
        ev(
            "argo-rollouts",
            "warn",
            "pick-router rollout stuck: 2/6 new pods not ready after 20m (ProgressDeadline 30m)",
            **every(-300, -30, 120),
        ),
        ev(
            "spark-history",
            "warn",
            "event log {n} too large, skipping",
            **every(-7000, -60, 300),
        ),
        ev(
            "kubelet",
            "warn",
            "eviction manager: attempting to reclaim ephemeral-storage",
            at=-10400,
            labels={"node": nodes[0][0]},
        ),
    ]
    return kube_case(
        seed=605,
        start=start,
        inc=incident(
            "pick-router deploy stuck, new pods never start", "pick-router", start
        ),
        exp=expected(
            "platform",
            [
                f"node/{nodes[2][0]}",
                nodes[2][0],
                "registry.k8s.io/pause:3.8",
                "pause image",
                "sandbox_image",
                "PLAT-1011",
                "ng-analytics",
            ],
            sig,
            f"ng-analytics runs the custom AMI from PLAT-1011 whose containerd keeps the upstream default sandbox image registry.k8s.io/pause:3.8; the nodes are in private subnets with only ECR and S3 endpoints. On {nodes[2][0]} the image filesystem passed the GC threshold 38 minutes ago and kubelet removed the (then unused) pause image; every new pod scheduled there fails in FailedCreatePodSandBox because the image cannot be pulled again (i/o timeout). The pick-router 4.18.0 rollout is the trigger and the victim, not the cause; the other nodes are fine; wms-gateway's 503s, Spark history warnings and the old eviction notice are not the cause.",
            [
                f"{stuck}: FailedCreatePodSandBox … {sig} … i/o timeout",
                f"kubelet on {nodes[2][0]}: image GC removed registry.k8s.io/pause:3.8",
                "packer: PLAT-1011 AMI sandbox_image = registry.k8s.io/pause:3.8",
            ],
            "Cordon and replace the node (or pre-pull/pin the pause image from ECR); set sandbox_image to the ECR pause image in the AMI and pin it so GC never removes it.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "pick-router",
                pods_of(pr)[:2],
                ["POST /v1/route 200 {ms}ms wave={n}"],
                8,
            )
        ],
        evs=evs,
        services=[svc("wms-gateway", 45, {"503": (0.0005, 0.05)}, (0.06, 0.4))],
        gauges=[
            gauge(
                "kube_pod_container_status_waiting",
                {"namespace": ns, "reason": "ContainerCreating"},
                0,
                2,
                start,
            )
        ],
        books={
            "rollout-stuck.md": runbook(
                "Rollout stuck",
                "A stuck rollout usually means the new version fails its readiness probe. Check the new pods' logs; if they crash, roll back with `argo rollouts undo`.",
            )
        },
    )


# =================================================================================================
# 14. Operator: PLAT-1420 upgrades the Zalando postgres-operator chart (1.12 -> 1.13) at 10:00. The new
#     operator's default Spilo image differs, lazy upgrade is off, so it starts a rolling update with a
#     switchover of every Postgres cluster in the fleet at once, in business hours. Each switchover
#     breaks writes for 10-30 s; many apps report DB errors at the same time. The incident is a vague
#     human line.
# =================================================================================================


@scenario("postgres-operator-upgrade-rolls-every-cluster")
def postgres_operator_upgrade_rolls_every_cluster() -> dict[str, Any]:
    start = -1100
    ns = "orders"
    nodes = NODES_FRA
    spilo_new = "ghcr.io/zalando/spilo-17:4.0-p2"
    db = app(
        "orders-db",
        image=spilo_new,
        port=5432,
        rs="",
        kind="StatefulSet",
        cluster_ip="10.96.80.5",
        pods=[
            ("0", "1/1", "Running", "0", "14m", 0),
            ("1", "1/1", "Running", "0", "9m", 1),
        ],
        labels="application=spilo,cluster-name=orders-db",
    )
    oa = app(
        "orders-api",
        image="harbor.cobalt.example/orders/orders-api:18.7.1",
        port=8080,
        rs="6e8c7d9b5f",
        cluster_ip="10.96.80.20",
        pods=[
            ("b3rkw", "1/1", "Running", "0", "8d", 0),
            ("p9tzn", "1/1", "Running", "0", "8d", 2),
        ],
    )
    k8s = namespace(
        ns,
        nodes,
        [db, oa],
        seed=606,
        extra_namespaces=("postgres-operator", "billing", "identity"),
        statefulsets=sts_table([["orders-db", "2/2", "412d", "postgres", spilo_new]]),
    )
    sig = "performing rolling update"
    op = "postgres-operator-7d8f9c6b5a-q2wxl"
    k8s["kubectl get pods -n postgres-operator"] = table(
        [
            ["NAME", "READY", "STATUS", "RESTARTS", "AGE"],
            [op, "1/1", "Running", "0", "19m"],
        ]
    )
    lines = []
    for i, cl in enumerate(
        [
            "identity/identity-db",
            "orders/orders-db",
            "billing/billing-db",
            "catalog/catalog-db",
            "notify/notify-db",
            "search/search-meta-db",
        ]
    ):
        t = -1130 + i * 120
        lines += [
            (
                t,
                f'time="2026-12-07T10:{1 + i * 2:02d}:10Z" level=info msg="statefulset pod template changed: spilo image ghcr.io/zalando/spilo-16:3.3-p1 -> {spilo_new}" cluster-name={cl}',
            ),
            (
                t + 1,
                f'time="2026-12-07T10:{1 + i * 2:02d}:11Z" level=info msg="{sig}" cluster-name={cl} pkg=cluster',
            ),
            (
                t + 60,
                f'time="2026-12-07T10:{2 + i * 2:02d}:11Z" level=info msg="switching over from \\"{cl.split("/")[1]}-0\\" to \\"{cl.split("/")[1]}-1\\"" cluster-name={cl} pkg=cluster',
            ),
        ]
    k8s[f"kubectl logs {op} -n postgres-operator --tail=1000"] = podlog(
        [
            (
                -1160,
                'time="2026-12-07T09:59:40Z" level=info msg="Spilo operator 1.13.0" pkg=controller',
            ),
            (
                -1158,
                'time="2026-12-07T09:59:42Z" level=info msg="config: enable_lazy_spilo_upgrade=false, docker_image=ghcr.io/zalando/spilo-17:4.0-p2, maintenance_windows=[]" pkg=controller',
            ),
            *lines,
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "16m",
                "Normal",
                "Update",
                "postgresql/orders-db",
                "Performing rolling update",
            ),
            (
                "15m",
                "Normal",
                "Switchover",
                "postgresql/orders-db",
                'Switching over from "orders-db-0" to "orders-db-1"',
            ),
            (
                "14m",
                "Normal",
                "Killing",
                "Pod/orders-db-0",
                "Stopping container postgres",
            ),
            (
                "9m",
                "Normal",
                "Killing",
                "Pod/orders-db-1",
                "Stopping container postgres",
            ),
        ]
    )
    evs = [
        ev(
            "argocd",
            "info",
            "application postgres-operator synced to platform@27c9e14 (PLAT-1420 'postgres-operator chart 1.12.2 -> 1.13.0'): Deployment postgres-operator configured, ConfigMap postgres-operator configured",
            at=-1190,
        ),
        *[
            ev(
                "postgres-operator",
                "info",
                f'level=info msg="{sig}" cluster-name={cl} pkg=cluster',
                at=-1129 + i * 120,
                pods=[op],
            )
            for i, cl in enumerate(
                [
                    "identity/identity-db",
                    "orders/orders-db",
                    "billing/billing-db",
                    "catalog/catalog-db",
                    "notify/notify-db",
                    "search/search-meta-db",
                ]
            )
        ],
        ev(
            "orders-api",
            "error",
            "org.postgresql.util.PSQLException: FATAL: terminating connection due to administrator command (orders-db)",
            **every(-1010, -990, 4),
            pods=pods_of(oa),
        ),
        ev(
            "orders-api",
            "error",
            "org.postgresql.util.PSQLException: ERROR: cannot execute UPDATE in a read-only transaction",
            **every(-985, -970, 5),
            pods=pods_of(oa),
        ),
        ev(
            "identity-api",
            "error",
            "sqlalchemy.exc.OperationalError: server closed the connection unexpectedly",
            **every(-1130, -1100, 5),
        ),
        ev(
            "billing-worker",
            "error",
            "pq: the database system is shutting down",
            **every(-890, -860, 5),
        ),
        ev(
            "catalog-api",
            "error",
            "connect ECONNREFUSED 10.96.82.5:5432",
            **every(-770, -740, 5),
        ),
        ev(
            "notify-api",
            "error",
            "psycopg.OperationalError: the database system is in recovery mode",
            **every(-650, -620, 5),
        ),
        ev(
            "pgbouncer",
            "warn",
            "server conn crashed? S-0x{ms}f: orders_app@10.96.80.{ms}:5432",
            **every(start, -300, 60),
        ),
        ev(
            "orders-api",
            "info",
            "orders-api 18.7.1 started (partial refunds)",
            at=-690000,
            pods=pods_of(oa),
        ),
        ev(
            "aws-health",
            "info",
            "AWS Health: increased API error rates for EC2 in eu-central-1 (resolved)",
            at=-2400,
        ),
        ev(
            "orders-api",
            "error",
            "HikariPool-1 - Connection is not available, request timed out after 30000ms",
            **every(-10800, -10500, 60),
            pods=pods_of(oa),
        ),
    ]
    return kube_case(
        seed=606,
        start=start,
        inc=incident(
            "lots of apps throwing database errors at once??",
            "databases",
            start,
            ["orders, billing, identity and catalog all alerted within 20 minutes"],
        ),
        exp=expected(
            "platform",
            [
                "postgres-operator",
                "deployment/postgres-operator",
                "PLAT-1420",
                "enable_lazy_spilo_upgrade",
                "spilo",
                "zalando postgres-operator",
            ],
            sig,
            "PLAT-1420 upgraded the Zalando postgres-operator to 1.13.0 in business hours. Its default Spilo image changed and enable_lazy_spilo_upgrade is false with no maintenance window, so the operator started a rolling update of every Postgres cluster one after another: each gets a switchover and pod restarts, breaking writes for 10-30 s (administrator command, read-only transaction, connection refused, recovery mode). The apps' errors are victims, one cluster after another; the orders-api release (8 days old), the resolved AWS EC2 notice, PgBouncer's crashed connections and the old pool timeout are not the cause.",
            [
                f"{op}: {sig} cluster-name=orders/orders-db (and five other clusters two minutes apart)",
                "postgres-operator 1.13.0 config: enable_lazy_spilo_upgrade=false, maintenance_windows=[]",
                "events: postgresql/orders-db Switching over from orders-db-0 to orders-db-1",
            ],
            "Let the rolling update finish (or pin docker_image back and set enable_lazy_spilo_upgrade true); schedule operator upgrades with maintenance_windows.",
        ),
        k8s=k8s,
        bgs=[bg("orders-api", pods_of(oa), ["GET /v1/orders/{n} 200 {ms}ms"], 8)],
        evs=evs,
        services=[
            svc("orders-api", 50, {"500": (0.0005, 0.015)}, (0.05, 0.06)),
            svc("identity-api", 80, {"500": (0.0005, 0.01)}, (0.03, 0.04)),
        ],
        gauges=[
            gauge(
                "pg_up_switchovers_total",
                {"operator": "postgres-operator"},
                0,
                6,
                start,
            )
        ],
        books={
            "db-errors-everywhere.md": runbook(
                "Database errors in many services",
                "Errors in many services at once point at the network or the cloud provider. Check the AWS Health dashboard and the VPC flow-log alarm; open a case with AWS if EC2 networking is degraded.",
            )
        },
    )


# =================================================================================================
# 15. Cluster access: PR infra#2310 upgrades the Terraform EKS module and lets it manage the aws-auth
#     ConfigMap; the rewritten map keeps the admin roles and the managed node groups (which also have
#     access entries) but drops KarpenterNodeRole-prod. Karpenter's nodes lose authentication: the
#     existing ones go NotReady, new ones never register. Pods pile up Pending and get evicted.
# =================================================================================================


@scenario("aws-auth-rewrite-drops-karpenter-node-role")
def aws_auth_rewrite_drops_karpenter_node_role() -> dict[str, Any]:
    start = -1300
    ns = "catalog"
    nodes = [
        ("ip-10-52-1-33.eu-west-1.compute.internal", "Ready", "10.52.1.33", "80d"),
        ("ip-10-52-2-140.eu-west-1.compute.internal", "Ready", "10.52.2.140", "80d"),
        ("ip-10-52-1-201.eu-west-1.compute.internal", "NotReady", "10.52.1.201", "6d"),
        ("ip-10-52-3-18.eu-west-1.compute.internal", "NotReady", "10.52.3.18", "4d"),
    ]
    ca = app(
        "catalog-api",
        image="ghcr.io/larkspur-hq/catalog-api:12.0.4",
        port=8080,
        rs="64d9b7c8f5",
        cluster_ip="10.100.20.4",
        desired=6,
        pods=[
            ("b8vqn", "1/1", "Running", "0", "3d", 0),
            ("h2kxt", "1/1", "Running", "0", "3d", 1),
            ("m4rwz", "1/1", "Terminating", "0", "4d", 2),
            ("s7pcd", "1/1", "Terminating", "0", "4d", 3),
            ("w3nlf", "0/1", "Pending", "0", "14m", -1),
            ("z6tgh", "0/1", "Pending", "0", "14m", -1),
        ],
    )
    k8s = namespace(ns, nodes, [ca], seed=607, extra_namespaces=("karpenter",))
    sig = "Kubelet stopped posting node status."
    reg = "Unable to register node with API server"
    k8s["kubectl get configmaps aws-auth -n kube-system -o yaml"] = yaml_of(
        "ConfigMap",
        "aws-auth",
        "kube-system",
        """  labels:
    app.kubernetes.io/managed-by: terraform
data:
  mapRoles: |
    - rolearn: arn:aws:iam::604517832210:role/platform-admin
      username: platform-admin
      groups:
      - system:masters
    - rolearn: arn:aws:iam::604517832210:role/ng-system-node
      username: system:node:{{EC2PrivateDNSName}}
      groups:
      - system:bootstrappers
      - system:nodes
  mapUsers: |
    []""",
    )
    bad = nodes[2]
    k8s[f"kubectl describe nodes {bad[0]}"] = h20.retype_node(
        node_describe(
            bad[0],
            bad[2],
            conditions={
                "MemoryPressure": (
                    "Unknown",
                    "-1250",
                    "NodeStatusUnknown",
                    "Kubelet stopped posting node status.",
                ),
                "DiskPressure": (
                    "Unknown",
                    "-1250",
                    "NodeStatusUnknown",
                    "Kubelet stopped posting node status.",
                ),
                "PIDPressure": (
                    "Unknown",
                    "-1250",
                    "NodeStatusUnknown",
                    "Kubelet stopped posting node status.",
                ),
                "Ready": (
                    "Unknown",
                    "-1250",
                    "NodeStatusUnknown",
                    "Kubelet stopped posting node status.",
                ),
            },
            taints="node.kubernetes.io/unreachable:NoExecute\n                    node.kubernetes.io/unreachable:NoSchedule",
            pods_rows=[(ns, pod_name(ca, "m4rwz")), ("kube-system", "aws-node-p4k7s")],
        ),
        "c6i.2xlarge",
        -518400,
        "karpenter.sh/nodepool=general,karpenter.sh/capacity-type=on-demand",
    )
    pend = pod_name(ca, "w3nlf")
    k8s[f"kubectl describe pods {pend} -n {ns}"] = pending_pod(
        pend,
        ns,
        owner=f"ReplicaSet/catalog-api-{ca['rs']}",
        labels=["app=catalog-api", f"pod-template-hash={ca['rs']}"],
        sa="catalog-api",
        containers=container_text(
            "catalog-api",
            ca["image"],
            8080,
            requests="cpu:      2\n  memory:   4Gi",
            limits="memory:  4Gi",
        ),
        events_rows=[
            (
                "Warning",
                "FailedScheduling",
                "60s (x15 over 14m)",
                "default-scheduler",
                "0/4 nodes are available: 2 Insufficient cpu, 2 node(s) had untolerated taint {node.kubernetes.io/unreachable: }. preemption: 0/4 nodes are available: 2 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.",
            ),
            (
                "Normal",
                "Nominated",
                "13m",
                "karpenter",
                "Pod should schedule on: nodeclaim/general-7x9kq",
            ),
        ],
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "20m",
                "Warning",
                "NodeNotReady",
                f"Pod/{pod_name(ca, 'm4rwz')}",
                "Node is not ready",
            ),
            (
                "15m",
                "Normal",
                "TaintManagerEviction",
                f"Pod/{pod_name(ca, 'm4rwz')}",
                "Marking for deletion Pod catalog/" + pod_name(ca, "m4rwz"),
            ),
            (
                "13m",
                "Normal",
                "Nominated",
                f"Pod/{pend}",
                "Pod should schedule on: nodeclaim/general-7x9kq",
            ),
            (
                "60s",
                "Warning",
                "FailedScheduling",
                f"Pod/{pend}",
                "0/4 nodes are available: 2 Insufficient cpu, 2 node(s) had untolerated taint {node.kubernetes.io/unreachable: }.",
            ),
        ]
    )
    evs = [
        ev(
            "terraform-ci",
            "info",
            "apply infra-eks@b2d7f41 (PR infra#2310 'terraform-aws-eks 19.21 -> 20.8, manage aws-auth in module'): kubernetes_config_map_v1_data.aws_auth updated (3 roles -> 2 roles)",
            at=-1450,
        ),
        ev(
            "kube-controller-manager",
            "warn",
            'node_lifecycle_controller.go:1158] "Node became not ready" node="ip-10-52-1-201.eu-west-1.compute.internal" reason="NodeStatusUnknown" message="'
            + sig
            + '"',
            **every(-1250, -1200, 50),
        ),
        ev(
            "kubelet",
            "error",
            f'"{reg}" err="Unauthorized" node="ip-10-52-3-{{ms}}.eu-west-1.compute.internal"',
            **every(-1100, -20, 60),
            labels={"nodepool": "general"},
        ),
        ev(
            "kubelet",
            "error",
            'Error updating node status, will retry: error getting node "ip-10-52-1-201.eu-west-1.compute.internal": Unauthorized',
            **every(-1380, -20, 40),
            labels={"node": "ip-10-52-1-201.eu-west-1.compute.internal"},
        ),
        ev(
            "karpenter",
            "warn",
            '{"level":"ERROR","message":"nodeclaim general-7x9kq did not register with the cluster (registration TTL 15m)","NodeClaim":"general-7x9kq"}',
            **every(-400, -20, 180),
        ),
        ev(
            "aws-iam-authenticator",
            "warn",
            "access denied: arn:aws:sts::604517832210:assumed-role/KarpenterNodeRole-prod/i-0{n}ab is not mapped",
            **every(-1380, -10, 30),
        ),
        ev(
            "catalog-web",
            "error",
            "GET /api/products?page={ms} -> 503 catalog-api (2 of 6 replicas)",
            **every(start, -3, 5),
        ),
        ev(
            "catalog-api",
            "warn",
            "request queue {ms} deep, shedding",
            **every(start, -5, 20),
            pods=pods_of(ca)[:2],
        ),
        ev(
            "catalog-api",
            "info",
            "catalog-api 12.0.4 started (faceted filters)",
            at=-259000,
            pods=pods_of(ca)[:2],
        ),
        ev(
            "datadog-agent",
            "warn",
            "check kubelet failed: 401 Unauthorized from 10.52.{ms}.201:10250",
            **every(-1300, -60, 300),
        ),
        ev(
            "catalog-api",
            "error",
            "Elasticsearch circuit_breaking_exception [parent] Data too large",
            **every(-10800, -10300, 90),
            pods=pods_of(ca)[:2],
        ),
    ]
    return kube_case(
        seed=607,
        start=start,
        inc=incident(
            "catalog pages erroring, half the catalog pods gone?", "catalog", start
        ),
        exp=expected(
            "platform",
            [
                "configmap/aws-auth",
                "aws-auth",
                "mapRoles",
                "KarpenterNodeRole-prod",
                "PR infra#2310",
                "terraform-aws-eks",
            ],
            sig,
            "PR infra#2310 upgraded the Terraform EKS module and let it manage the aws-auth ConfigMap; the rewritten mapRoles keeps the admin role and the system node group (which also has an access entry) but drops KarpenterNodeRole-prod. Every Karpenter node's kubelet is now Unauthorized: the existing ones stopped posting status (NotReady, their pods evicted) and replacement nodeclaims never register. Half of catalog-api is gone and the rest cannot schedule. catalog-web's 503s and catalog-api's shedding are victims; the catalog-api release, the Datadog 401s and the old Elasticsearch breaker are not the cause.",
            [
                f"node {bad[0]}: Ready Unknown, {sig}; kubelet: {reg} err=Unauthorized",
                "configmap aws-auth (managed-by terraform): no KarpenterNodeRole-prod in mapRoles",
                "aws-iam-authenticator: KarpenterNodeRole-prod is not mapped; terraform apply PR infra#2310 3 roles -> 2",
            ],
            "Add KarpenterNodeRole-prod back to aws-auth (system:bootstrappers, system:nodes) or create an EC2_LINUX access entry for it; nodes recover within a minute.",
        ),
        k8s=k8s,
        bgs=[
            bg("catalog-api", pods_of(ca)[:2], ["GET /v3/products/{n} 200 {ms}ms"], 8)
        ],
        evs=evs,
        services=[svc("catalog-web", 110, {"503": (0.0005, 0.12)}, (0.08, 0.9))],
        gauges=[
            gauge(
                "kube_node_status_condition",
                {"condition": "Ready", "status": "unknown"},
                0,
                2,
                -1250,
            )
        ],
        books={
            "catalog-5xx.md": runbook(
                "Catalog errors",
                "Catalog 5xx usually comes from Elasticsearch. Check the cluster's circuit breakers; if the parent breaker trips, restart the busiest data node and lower the facet size in catalog-api.",
            )
        },
    )


# =================================================================================================
# 16. Managed cloud around a cluster: PLAT-1188 switches the GKE cluster autoscaler to the
#     optimize-utilization profile; the cluster shrinks from 14 to 6 larger-packed nodes. Cloud NAT
#     nat-prod-euw1 allocates a static 64 ports per VM; with twice the pods per node, payouts-worker's
#     many connections to the bank's single API endpoint exhaust a node's ports and new connections
#     are dropped. Logs and metrics only (Cloud NAT logs, the app's timeouts).
# =================================================================================================


@scenario("cloud-nat-static-ports-after-node-bin-packing")
def cloud_nat_static_ports_after_node_bin_packing() -> dict[str, Any]:
    start = -2000
    pw = [
        "payouts-worker-7c9d8b6f5-2kqzn",
        "payouts-worker-7c9d8b6f5-8wmxt",
        "payouts-worker-7c9d8b6f5-d4rvc",
        "payouts-worker-7c9d8b6f5-t6hjl",
    ]
    sig = "allocation_status: DROPPED"
    evs = [
        ev(
            "gcloud-audit",
            "info",
            "container.clusters.update prod-euw1: autoscalingProfile BALANCED -> OPTIMIZE_UTILIZATION (PLAT-1188 'cut idle node spend') by terraform-ci@corvid-prod",
            at=-14000,
        ),
        ev(
            "gke-autoscaler",
            "info",
            "scale down: removing node gke-prod-euw1-pool-1-{n}-x{ms} (utilization 0.31)",
            **every(-13500, -3000, 900),
        ),
        ev(
            "cloud-nat",
            "warn",
            "nat-prod-euw1 (router-prod-euw1): "
            + sig
            + ", endpoint_type: ENDPOINT_TYPE_VM, vm_name: gke-prod-euw1-pool-1-9f3a2c-x{ms}, src 10.132.{ms}.14:3{ms} -> dest 203.0.113.40:443 (api.northbank.example), reason: OUT_OF_RESOURCES (min_ports_per_vm 64, all in use)",
            **every(start, -5, 10),
        ),
        ev(
            "cloud-nat",
            "info",
            "nat-prod-euw1 config: minPortsPerVm=64, enableDynamicPortAllocation=false, natIpAllocateOption=MANUAL_ONLY (2 IPs)",
            at=-30000000 // 1000,
        ),
        ev(
            "payouts-worker",
            "error",
            'payout po_{n} failed: Post "https://api.northbank.example/v2/transfers": dial tcp 203.0.113.40:443: i/o timeout (attempt {ms}/5)',
            **every(start, -4, 8),
            pods=pw,
        ),
        ev(
            "payouts-worker",
            "info",
            "payout po_{n} sent ({ms} ms)",
            **every(-7200, -10, 30),
            pods=pw,
        ),
        ev(
            "merchant-dashboard",
            "warn",
            "GET /api/payouts/status -> payouts delayed ({n} pending over 30 min)",
            **every(start + 300, -30, 90),
        ),
        ev(
            "payouts-worker",
            "info",
            "payouts-worker 3.14.0 started (new bank reference format)",
            at=-5200,
            pods=pw,
        ),
        ev(
            "northbank-status",
            "info",
            "api.northbank.example: all systems operational",
            **every(-7200, -60, 1800),
        ),
        ev(
            "fx-rates",
            "warn",
            "rate feed stale {ms}s, using cached rates",
            **every(-7000, -60, 400),
        ),
        ev(
            "payouts-worker",
            "error",
            "northbank 409 duplicate transfer reference, skipping",
            **every(-10800, -10400, 100),
            pods=pw,
        ),
    ]
    return simple(
        608,
        start,
        incident(
            "merchant payouts delayed",
            "payouts",
            start,
            ["merchants report payouts stuck in 'processing' for over an hour"],
        ),
        expected(
            "connect",
            [
                "nat-prod-euw1",
                "cloud nat",
                "router-prod-euw1",
                "minPortsPerVm",
                "min_ports_per_vm",
                "OPTIMIZE_UTILIZATION",
                "PLAT-1188",
            ],
            sig,
            "PLAT-1188 switched the GKE cluster autoscaler to OPTIMIZE_UTILIZATION, which packed the cluster onto fewer nodes (14 -> 6) with about twice the pods each. Cloud NAT nat-prod-euw1 gives each VM a static 64 ports (no dynamic allocation), and all payouts-worker connections from a node to the bank's single endpoint 203.0.113.40:443 share those ports; they run out and Cloud NAT drops new connections (OUT_OF_RESOURCES), so transfers time out and payouts pile up. The merchant dashboard is the victim; the payouts-worker release, the bank (operational), stale FX rates and the old duplicate-reference error are not the cause.",
            [
                f"cloud-nat: {sig} … reason OUT_OF_RESOURCES (min_ports_per_vm 64) to 203.0.113.40:443",
                "payouts-worker: dial tcp 203.0.113.40:443: i/o timeout",
                "gcloud audit: autoscalingProfile -> OPTIMIZE_UTILIZATION (PLAT-1188); scale-downs from 14 to 6 nodes",
            ],
            "Enable dynamic port allocation on nat-prod-euw1 (or raise minPortsPerVm to 1024 and add a NAT IP); reuse connections to the bank in payouts-worker.",
        ),
        [bg("payouts-worker", pw, ["poll: {ms} payouts queued"], 20)],
        evs,
        [svc("merchant-dashboard", 12, {"500": (0.001, 0.002)}, (0.1, 0.1))],
        [
            gauge(
                "nat_dropped_sent_packets_count",
                {"gateway_name": "nat-prod-euw1", "reason": "OUT_OF_RESOURCES"},
                0,
                240,
                start,
            ),
            gauge("gke_cluster_nodes", {"cluster": "prod-euw1"}, 14, 6, -9000),
            gauge("payouts_pending", {"service": "payouts-worker"}, 20, 610, start),
        ],
        {
            "payouts-delayed.md": runbook(
                "Payouts delayed",
                "Delayed payouts mean Northbank is slow or down. Check status.northbank.example and the bank's incident feed; if they are degraded, pause the payout scheduler and tell merchant support.",
            )
        },
    )


STAGES = {
    "karpenter-consolidate-after-zero-evicts-singleton": ("runtime", "Disrupted"),
    "outlier-detection-one-5xx-ejects-every-endpoint": (
        "service_routing",
        "no_healthy_upstream",
    ),
    "jetstream-stream-without-max-age-fills-pv": ("runtime", "NoSpaceLeft"),
    "ebs-csi-role-without-kms-grant-attach-detaching": (
        "startup",
        "FailedAttachVolume",
    ),
    "argocd-app-recreated-on-old-branch-rate-limit": ("runtime", "ConfigDrift"),
    "externalsecret-refresh-zero-misses-rotated-password": (
        "startup",
        "CrashLoopBackOff",
    ),
    "cluster-autoscaler-max-nodes-total-reached": ("scheduling", "FailedScheduling"),
    "cpu-request-raised-single-thread-hpa-never-scales": (
        "performance",
        "HPANotScaling",
    ),
    "ingress-nginx-upgrade-drops-snippet-ingress": (
        "service_routing",
        "IngressSkipped",
    ),
    "new-cluster-domain-breaks-hardcoded-cluster-local": ("runtime", "NXDOMAIN"),
    "istio-old-revision-removed-sidecar-certs-expire": (
        "runtime",
        "CertificateExpired",
    ),
    "pause-image-garbage-collected-private-node": ("startup", "FailedCreatePodSandBox"),
    "postgres-operator-upgrade-rolls-every-cluster": ("runtime", "Switchover"),
    "aws-auth-rewrite-drops-karpenter-node-role": ("infrastructure", "NodeNotReady"),
}


def main(root: Path = HERE) -> None:
    for slug, build in SCENARIOS.items():
        spec = build()
        tidy_clock_times(spec["logs"])
        if slug in STAGES:
            stage, reason = STAGES[slug]
            spec["expected"]["root_cause_stage"] = stage
            spec["expected"]["root_cause_reason"] = reason
        base.write(slug, spec, root)
        print(slug)


if __name__ == "__main__":
    main()
