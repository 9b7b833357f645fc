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
            ("Normal", "Started", "68s", "kubelet", "Started container settlement-engine"),
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
            (-68, "INFO  settlement-engine 12.4.1 starting, replaying journal from offset 88412001"),
            (-40, "INFO  journal replay 41% (1.9M entries)"),
            (-8, "INFO  journal replay 87% (4.1M entries)"),
        ]
    )
    karp = "karpenter-5d7f6c8b9d-x4l2w"
    kline = (
        '{"level":"INFO","logger":"controller","message":"' + sig + ", terminating 1 nodes "
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
    k8s[f"kubectl get pods -n kube-system"] = table(
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
            ("29m", "Normal", "Evicted", "Pod/settlement-engine-6b9f7d5c48-d8kq2", "Evicted pod: Underutilized"),
            ("16m", "Normal", "Evicted", "Pod/settlement-engine-6b9f7d5c48-w5tnb", "Evicted pod: Underutilized"),
            ("91s", "Normal", "Evicted", "Pod/settlement-engine-6b9f7d5c48-h3rvl", "Evicted pod: Underutilized"),
            ("91s", "Normal", "DisruptionTerminating", "Node/ip-10-61-2-57.ec2.internal", "Disrupting Node: Underutilized/Replace"),
            ("71s", "Normal", "SuccessfulCreate", f"ReplicaSet/settlement-engine-{se['rs']}", f"Created pod: {name}"),
            ("5s", "Warning", "Unhealthy", f"Pod/{name}", "Readiness probe failed: HTTP probe failed with statuscode: 503"),
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
            {"alertname": "PaymentsApi5xxRate", "namespace": "payments", "service": "payments-api"},
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
            gauge("karpenter_nodeclaims_disrupted_total", {"nodepool": "general", "reason": "underutilized"}, 0, 14, -6900),
            gauge("kube_deployment_status_replicas_available", {"deployment": "settlement-engine", "namespace": ns}, 1, 0.6, start),
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
        + ' - "-" 0 19 0 - "-" "product-page/22.1.0" "{n}-{ms}" "inventory.catalog.svc.cluster.local:8080" "-" outbound|8080||inventory.catalog.svc.cluster.local - 10.96.44.21:8080 10.94.1.{ms}:5{n} - default'
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
                    + ' - "-" 0 19 0 - "-" "product-page/22.1.0" "a3e-%d" "inventory.catalog.svc.cluster.local:8080" "-" outbound|8080||inventory.catalog.svc.cluster.local - 10.96.44.21:8080 10.94.2.81:5%d - default'
                    % (i, 1200 + i),
                )
                for i, t in enumerate(range(-1180, -10, 90))
            ],
        ]
    )
    k8s[f"kubectl logs {pod_name(inv, 'b2kcn')} -n {ns} -c inventory --tail=1000"] = podlog(
        [
            (-1140, "INFO inventory 3.9.2 ready on :8080 (warehouse snapshot 2026-12-07T13:55Z)"),
            (-600, "INFO GET /v1/stock/sku-88120 200 4ms"),
            (-60, "INFO GET /healthz 200 0ms"),
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            ("20m", "Normal", "ScalingReplicaSet", "Deployment/inventory", "Scaled up replica set inventory-59d8c7b6f4 to 4"),
            ("19m", "Normal", "ScalingReplicaSet", "Deployment/inventory", "Scaled down replica set inventory-6f4b8d9c7a to 0 from 1"),
            ("19m", "Normal", "Killing", "Pod/inventory-6f4b8d9c7a-p2xkw", "Stopping container inventory"),
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
        ev("argocd", "info", "application inventory synced to inventory@3.9.2 (warehouse snapshot refresh)", at=-1250),
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
            ["customers see 'stock unknown' on every product page since about 20 minutes"],
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
            svc("inventory", 160, {"503": (0.0002, 0.0002)}, (0.004, 0.004), rps_after=3),
        ],
        gauges=[
            gauge(
                "envoy_cluster_outlier_detection_ejections_active",
                {"pod": pps[0], "cluster_name": "outbound|8080||inventory.catalog.svc.cluster.local"},
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
            'upload failed: operation error S3: PutObject, get identity: get credentials: failed to refresh cached credentials, '
            + sig
            + ', operation error ec2imds: GetMetadata, request canceled, context deadline exceeded',
            **every(start, -5, 15),
            pods=new,
        ),
        ev("invoice-archiver", "info", "archived invoice INV-{n}.pdf to s3://acme-invoices-prod/2026/12/ ({ms} KB)", **every(-7000, -5, 40), pods=old),
        ev(
            "customer-portal",
            "error",
            "GET /invoices/INV-{n}/pdf -> 404 NoSuchKey (archive not found)",
            **every(start + 60, -4, 10),
        ),
        ev("customer-portal", "info", "customer-portal 2026.49.1 deployed (new invoice list filters)", at=-5200),
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
        ev("invoice-archiver", "info", "invoice-archiver 1.14.0 starting on node ip-10-70-{ms}-31.eu-central-1.compute.internal (no web identity token, using default credential chain)", **every(-2800, -200, 500), pods=new),
    ]
    return simple(
        595,
        start,
        incident("invoice PDFs missing in customer portal", "customer portal", start, ["customers click 'download PDF' and get an error page"]),
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
        [bg("invoice-archiver", old + new, ["poll: {ms} invoices queued"], 20), bg("customer-portal", ["customer-portal-1", "customer-portal-2"], ["GET /invoices 200 {ms}ms"], 8)],
        evs,
        [svc("customer-portal", 30, {"404": (0.001, 0.04)}, (0.08, 0.08))],
        [
            gauge("invoice_archiver_uploads_failed_total", {"service": "invoice-archiver"}, 0, 380, start),
            gauge("aws_eks_nodegroup_al2023_nodes", {"nodegroup": "ng-general"}, 0, 6, -2800),
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
        pods=[("n2vjx", "1/1", "Running", "0", "6d", 0), ("z5kqb", "1/1", "Running", "0", "6d", 2)],
    )
    sig = "no space left on device"
    k8s = namespace(
        ns,
        nodes,
        [nats, mailer],
        seed=596,
        statefulsets=sts_table([["nats", "3/3", "34d", "nats,reloader", f"{img},natsio/nats-server-config-reloader:0.16.0"]]),
    )
    k8s[f"kubectl get persistentvolumeclaims -n {ns}"] = pvc_table(
        [
            [f"nats-js-nats-{i}", "Bound", f"pvc-7c1e{i}d2a-4b1f-4e0c-9a51-2f6d8e{i}b3c71", "10Gi", "RWO", "gp3-retain", "<unset>", "34d"]
            for i in range(3)
        ]
    )
    k8s["kubectl get storageclasses"] = table(
        [
            ["NAME", "PROVISIONER", "RECLAIMPOLICY", "VOLUMEBINDINGMODE", "ALLOWVOLUMEEXPANSION", "AGE"],
            ["gp2", "kubernetes.io/aws-ebs", "Delete", "WaitForFirstConsumer", "false", "2y"],
            ["gp3 (default)", "ebs.csi.aws.com", "Delete", "WaitForFirstConsumer", "true", "1y"],
            ["gp3-retain", "ebs.csi.aws.com", "Retain", "WaitForFirstConsumer", "false", "1y"],
        ]
    )
    store_err = (
        "[1] 2026/12/07 21:{n}.{ms} [ERR] JetStream failed to store a msg on stream '$G > ORDER_EVENTS': write /data/jetstream/$G/streams/ORDER_EVENTS/msgs/{n}.blk: "
        + sig
    )
    for i in range(3):
        k8s[f"kubectl logs nats-{i} -n {ns} -c nats --tail=1000"] = podlog(
            [
                (-3000000 + 0.0, "[1] 2026/11/03 09:12:40.118 [INF] Starting nats-server version 2.10.22"),
                (-2950, "[1] 2026/12/07 20:35:01.402 [WRN] JetStream resource limits exceeded for server"),
                (-2150, "[1] 2026/12/07 20:48:21.930 [WRN] Filestore [ORDER_EVENTS] filled its storage volume (9.8 GiB used of 9.8 GiB)"),
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
            ("35m", "Warning", "FreeDiskSpaceLow", "PersistentVolumeClaim/nats-js-nats-0", "volume usage 98% (9.8Gi of 10Gi)"),
            ("4m", "Normal", "Pulled", f"Pod/{pod_name(mailer, 'n2vjx')}", "Container image already present on machine"),
        ]
    )
    evs = [
        ev("argocd", "info", "application messaging synced to events@0b4d9e1 (PR events#77 'keep order events for replay'): ConfigMap jetstream-streams configured; stream ORDER_EVENTS max_age 168h -> 0", at=-1900000 // 100),
        ev("nats", "error", store_err, **every(start, -5, 12), pods=pods_of(nats)),
        ev(
            "checkout-api",
            "error",
            "publish orders.confirmed failed: nats: insufficient resources (order ORD-{n} kept in outbox)",
            **every(start, -4, 10),
        ),
        ev("order-mailer", "warn", "consumer mailer-confirmations: no new messages in 60s (pending 0)", **every(start + 60, -30, 60), pods=pods_of(mailer)),
        ev("checkout-api", "info", "checkout-api 14.2.0 started (apple pay express)", at=-4700),
        ev("sendgrid-webhook", "warn", "bounce for {n}@example.net (mailbox full)", **every(-7000, -60, 300)),
        ev("order-mailer", "error", "SMTP relay timeout after 30s (smtp.sendgrid.net:587)", **every(-10800, -10400, 100), pods=pods_of(mailer)),
        ev("node-exporter", "warn", "PersistentVolume nats-js-nats-{ms} usage above 90%", **every(-5400, -2200, 900)),
    ]
    return kube_case(
        seed=596,
        start=start,
        inc=incident("order confirmation emails not going out", "order emails", start, ["support: several customers have no confirmation email for tonight's orders"]),
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
        bgs=[bg("checkout-api", ["checkout-api-7b9c-1", "checkout-api-7b9c-2"], ["POST /v1/orders 201 {ms}ms"], 8)],
        evs=evs,
        services=[svc("checkout-api", 14, {"500": (0.001, 0.001)}, (0.12, 0.13))],
        gauges=[
            gauge("kubelet_volume_stats_used_bytes", {"persistentvolumeclaim": "nats-js-nats-0", "namespace": ns}, 8.9e9, 10.5e9, start),
            gauge("order_mailer_emails_sent_total_rate", {"service": "order-mailer"}, 0.2, 0, start),
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
        pods=[("d4kxw", "1/1", "Running", "0", "2h", 0), ("p8mzc", "1/1", "Running", "0", "2h", 2)],
    )
    k8s = namespace(
        ns,
        nodes,
        [ch, api],
        seed=597,
        statefulsets=sts_table([["clickhouse-shard1", "1/2", "61d", "clickhouse", img]]),
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
        labels=["app=clickhouse-shard1", "statefulset.kubernetes.io/pod-name=clickhouse-shard1-1"],
        sa="clickhouse",
        containers=container_text("clickhouse", img, 8123, limits="cpu:     8\n  memory:  48Gi", requests="cpu:      6\n  memory:   48Gi"),
        node=f"{nodes[1][0]}/{nodes[1][2]}",
        status="Pending",
        conditions=(("PodScheduled", "True"), ("Initialized", "True"), ("Ready", "False"), ("ContainersReady", "False")),
        events_rows=[
            sched(ns, name, nodes[1][0], "24m"),
            ("Warning", "FailedAttachVolume", "2m (x19 over 24m)", "attachdetach-controller", attach),
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
            ["data-clickhouse-shard1-0", "Bound", "pvc-0d2f8a61-93c4-4b7e-a1f5-7e2c9d4b6a18", "2Ti", "RWO", "gp3-cmk", "<unset>", "61d"],
            ["data-clickhouse-shard1-1", "Bound", "pvc-3a9e1c7d-55b2-4f0e-8d21-6c4b9e7f1a20", "2Ti", "RWO", "gp3-cmk", "<unset>", "61d"],
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            ("25m", "Normal", "Killing", "Pod/clickhouse-shard1-1", "Stopping container clickhouse"),
            ("24m", "Normal", "Scheduled", f"Pod/{name}", f"Successfully assigned {ns}/{name} to {nodes[1][0]}"),
            ("2m", "Warning", "FailedAttachVolume", f"Pod/{name}", attach),
        ]
    )
    csi = "ebs-csi-controller-7f9c5d6b84-vq2hn"
    k8s[f"kubectl logs {csi} -n kube-system -c ebs-plugin --tail=1000"] = podlog(
        [
            (-1420, f'I1207 controller.go:415] "ControllerPublishVolume: attaching" volumeID="{vol}" nodeID="i-0b6f2d8c41a7e9305"'),
            (-1405, f'E1207 driver.go:108] "GRPC error" err="rpc error: code = Internal desc = Could not attach volume \\"{vol}\\" to node \\"i-0b6f2d8c41a7e9305\\": attachment of disk \\"{vol}\\" failed, {sig}"'),
            (-125, f'E1207 driver.go:108] "GRPC error" err="rpc error: code = Internal desc = Could not attach volume \\"{vol}\\" to node \\"i-0b6f2d8c41a7e9305\\": attachment of disk \\"{vol}\\" failed, {sig}"'),
        ]
    )
    evs = [
        ev(
            "terraform-ci",
            "info",
            "apply infra-aws@6d1f0a3 (PR infra#2291 'ebs-csi: use the AWS managed policy'): aws_iam_role_policy_attachment.ebs_csi replaced (AmazonEBSCSIDriverPolicy), aws_iam_role_policy.ebs_csi_kms destroyed",
            at=-6400,
        ),
        ev("eks", "info", "nodegroup ng-analytics update in progress: replacing node ip-10-90-2-{ms} (ami 1.31.2-20241203)", at=-1560),
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
        ev("insights-api", "warn", "query dashboard_{n} took {ms}00ms (over 10000ms budget)", **every(start, -4, 9), pods=pods_of(api)),
        ev("insights-api", "info", "insights-api 2.41.0 started (cohort charts)", at=-7100, pods=pods_of(api)),
        ev("clickhouse", "warn", "MergeTreeBackgroundExecutor: too many parts ({n}) in events_local, merges are slower", **every(-7000, -60, 400), pods=["clickhouse-shard1-0"]),
        ev("insights-api", "error", "query dashboard_{n} failed: Code: 241. DB::Exception: Memory limit (for query) exceeded", **every(-10800, -10300, 100), pods=pods_of(api)),
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
        bgs=[bg("insights-api", pods_of(api), ["GET /api/v2/dashboards/{n} 200 {ms}ms"], 8)],
        evs=evs,
        services=[svc("insights-api", 9, {"504": (0.001, 0.2)}, (0.4, 6.5))],
        gauges=[gauge("kube_statefulset_status_replicas_ready", {"statefulset": "clickhouse-shard1", "namespace": ns}, 2, 1, start)],
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
        pods=[("g2hwk", "1/1", "Running", "0", "22m", 0), ("r9xbn", "1/1", "Running", "0", "22m", 1), ("v4qtc", "1/1", "Running", "0", "21m", 2)],
    )
    k8s = namespace(ns, nodes, [gw], seed=598, extra_namespaces=("argocd",), configmaps=[("partner-gateway-limits", "3", "1y")])
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
            ("23m", "Normal", "OperationStarted", "Application/partner-api", f"Initiated automated sync to '{sig}' (3f2a9c1)"),
            ("22m", "Normal", "ResourceUpdated", "Application/partner-api", "Updated sync status:  -> Synced"),
            ("22m", "Normal", "OperationCompleted", "Application/partner-api", f"Sync operation to {sig} (3f2a9c1) succeeded"),
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            ("22m", "Normal", "Reloaded", "Deployment/partner-gateway", "Changes detected in configmap partner-gateway-limits; rolling restart"),
            ("22m", "Normal", "ScalingReplicaSet", "Deployment/partner-gateway", "Scaled up replica set partner-gateway-6f8b9c7d5a to 3"),
        ]
    )
    gps = pods_of(gw)
    k8s[f"kubectl logs {gps[0]} -n {ns} --tail=1000"] = podlog(
        [
            (-1310, f"level=info msg=\"config loaded\" rate_limit_per_minute=60 burst=20 key=partner_id config_revision={sig}"),
            (-900, 'level=warn msg="rate limited" partner=p_2291 path=/v2/shipments limit=60/min'),
            (-20, 'level=warn msg="rate limited" partner=p_4410 path=/v2/rates limit=60/min'),
        ]
    )
    evs = [
        ev("argocd", "info", "PLAT-1033: app-of-apps bootstrap on mgmt-2 created Application partner-api from bootstrap/apps/partner-api.yaml", at=-1420),
        ev("argocd", "info", f"application partner-api sync to {sig} (3f2a9c1) succeeded: ConfigMap partner-gateway-limits configured, Deployment partner-gateway unchanged", at=-1340),
        ev("partner-gateway", "info", f"config loaded rate_limit_per_minute=60 burst=20 key=partner_id config_revision={sig}", at=-1310, pods=gps),
        ev("partner-gateway", "warn", "rate limited partner=p_{n} path=/v2/shipments limit=60/min", **every(start, -2, 3), pods=gps),
        ev("partner-portal", "error", "partner p_{n} webhook: our API answered 429 Too Many Requests ({ms} in the last minute)", **every(start + 60, -10, 30)),
        ev("argocd", "info", "application partner-api on mgmt-1 deleted (PLAT-1033 decommission)", at=-1500),
        ev("shipments-api", "info", "shipments-api 9.3.0 started (customs declaration v2)", at=-4100),
        ev("shipments-api", "warn", "carrier DHL rate quote slow ({ms}00ms)", **every(-7000, -60, 250)),
        ev("partner-gateway", "error", "upstream shipments-api connect timeout (10.96.70.40:8080)", **every(-10800, -10400, 90), pods=gps),
        ev("git", "info", "main@a17e0c4 'partner-gateway: RATE_LIMIT_PER_MINUTE 60 -> 600 (PARTNER-88)' merged by j.brandt", at=-1810000),
    ]
    return kube_case(
        seed=598,
        start=start,
        inc=incident("partners complaining about 429s", "partner API", start, ["two partners say our API rejects most of their calls with 429 since around 14:10"]),
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
                "configmap partner-gateway-limits: RATE_LIMIT_PER_MINUTE \"60\", revision label release-2026.11",
                "partner-gateway: rate limited … limit=60/min since the reload",
            ],
            "Point the partner-api Application back at main (targetRevision HEAD) and sync; fix the bootstrap manifest in the PLAT-1033 repo.",
        ),
        k8s=k8s,
        bgs=[bg("partner-gateway", gps, ["POST /v2/shipments 201 {ms}ms partner=p_{n}", "GET /v2/rates 200 {ms}ms partner=p_{n}"], 8)],
        evs=evs,
        services=[svc("partner-gateway", 70, {"429": (0.001, 0.55)}, (0.05, 0.02))],
        gauges=[gauge("partner_gateway_rate_limit_per_minute", {"service": "partner-gateway"}, 600, 60, -1310)],
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
        secrets=[("billing-db", "Opaque", "3", "214d"), ("billing-stripe", "Opaque", "1", "1y")],
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
            (-80, "2026-12-07T18:48:40.102Z INFO  billing-api 11.2.4 starting (profile prod)"),
            (-72, "2026-12-07T18:48:48.640Z ERROR HikariPool-1 - Exception during pool initialization."),
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
            ("28m", "Normal", "Killing", "Pod/billing-api-7d9c6b5f84-m1vqs", "Stopping container billing-api"),
            ("27m", "Normal", "Scheduled", f"Pod/{name}", f"Successfully assigned {ns}/{name} to {nodes[1][0]}"),
            ("24m", "Normal", "Killing", "Pod/billing-api-7d9c6b5f84-j7tdw", "Stopping container billing-api"),
            ("70s", "Warning", "BackOff", f"Pod/{name}", f"Back-off restarting failed container billing-api in pod {name}_{ns}"),
        ]
    )
    crash = [name, pod_name(ba, "s6mfd")]
    evs = [
        ev("argocd", "info", "application external-secrets-billing synced to secrets@5e8a2d1 (PR secrets#58 'stop hammering Secrets Manager: refreshInterval 1h -> 0'): ExternalSecret billing/billing-db configured", at=-1900000),
        ev("secretsmanager", "info", "RotateSecret prod/billing/db: finishSecret succeeded, AWSCURRENT moved to version 7c2e… (scheduled rotation, every 30 days)", at=-53000),
        ev("external-secrets", "info", "reconciled secret billing/billing-db (refreshInterval 0: will not refresh)", at=-1899000),
        ev("billing-api", "error", f"org.postgresql.util.PSQLException: FATAL: {sig}", **every(start, -20, 40), pods=crash),
        ev("rds", "warn", f"billing-prod: FATAL: {sig} (connection from 10.61.{{ms}}.12)", **every(start, -20, 40)),
        ev("eks", "info", "nodegroup ng-apps update to 1.31.2-20241203 in progress: draining ip-10-61-{ms}-12.ec2.internal", **every(-1800, -300, 300)),
        ev("invoice-web", "error", "GET /api/invoices -> 503 billing-api (no healthy upstream for 2s)", **every(start + 200, -5, 25)),
        ev("billing-api", "info", "billing-api 11.2.4 started (SEPA mandate reminders)", at=-518000, pods=pods_of(ba)[:1]),
        ev("stripe", "warn", "webhook invoice.payment_failed for cus_{n} (insufficient_funds)", **every(-7000, -60, 300)),
        ev("billing-api", "warn", "HikariPool-1 - Connection is not available, request timed out after 30000ms", **every(-10800, -10400, 80), pods=pods_of(ba)[:1]),
    ]
    return kube_case(
        seed=599,
        start=start,
        inc=alert(
            incident("[FIRING] KubeDeploymentReplicasMismatch billing/billing-api", "billing-api", start),
            {"alertname": "KubeDeploymentReplicasMismatch", "namespace": ns, "deployment": "billing-api", "severity": "warning"},
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
        bgs=[bg("billing-api", pods_of(ba)[:1] + [pod_name(ba, "x2rvl")], ["GET /api/invoices?customer=c_{n} 200 {ms}ms"], 8)],
        evs=evs,
        services=[svc("invoice-web", 25, {"503": (0.0005, 0.08)}, (0.09, 0.3))],
        gauges=[gauge("kube_deployment_status_replicas_available", {"deployment": "billing-api", "namespace": ns}, 4, 2, start)],
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
        [["search-api", "Deployment/search-api", "cpu: 142%/65%", "4", "24", "16", "2y"]]
    )
    sig = "Max total nodes in cluster reached: 60"
    pend = pod_name(sa, "e4rtl")
    k8s[f"kubectl describe pods {pend} -n {ns}"] = pending_pod(
        pend,
        ns,
        owner=f"ReplicaSet/search-api-{sa['rs']}",
        labels=["app=search-api", f"pod-template-hash={sa['rs']}"],
        sa="search-api",
        containers=container_text("search-api", img, 8080, limits="memory:  6Gi", requests="cpu:      3\n  memory:   6Gi"),
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
            (-40, "I1207 static_autoscaler.go:612] Scale up not possible: 3 pods unschedulable in search"),
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
            ("24m", "Normal", "SuccessfulRescale", "HorizontalPodAutoscaler/search-api", "New size: 12; reason: cpu resource utilization (percentage of request) above target"),
            ("19m", "Normal", "SuccessfulRescale", "HorizontalPodAutoscaler/search-api", "New size: 16; reason: cpu resource utilization (percentage of request) above target"),
            ("2m", "Warning", "FailedScheduling", f"Pod/{pend}", "0/60 nodes are available: 4 node(s) had untolerated taint {dedicated: gpu}, 56 Insufficient cpu."),
            ("2m", "Normal", "NotTriggerScaleUp", f"Pod/{pend}", "pod didn't trigger scale-up: max node total count already reached"),
        ]
    )
    run = pods_of(sa)[:4]
    evs = [
        ev("cluster-autoscaler", "warn", sig, **every(start, -10, 60), pods=[ca]),
        ev("cluster-autoscaler", "info", "Scale-up: setting group eks-ng-general-2ac9 size to {n} (max 90)", **every(-9000, -3600, 900), pods=[ca]),
        ev("search-api", "warn", "query queue depth {ms} (threads busy 64/64), p99 {n}ms", **every(start, -5, 15), pods=run),
        ev("web-frontend", "error", "GET /search?q=… -> 504 search-api timeout after 3000ms", **every(start, -3, 6)),
        ev("search-api", "info", "search-api 6.12.1 started (synonyms for winter catalogue)", at=-5600, pods=run),
        ev("opensearch", "warn", "[search-prod-data-{ms}] GC overhead, old gen collection took {n}ms", **every(-7000, -60, 350)),
        ev("karpenter-migration", "info", "PLAT-1290 dry-run: 41 pods would move to NodePool general (no action taken)", at=-20000),
        ev("search-api", "error", "synonyms reload failed: s3 GetObject timeout", **every(-10800, -10400, 100), pods=run),
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
        services=[svc("web-frontend", 90, {"504": (0.001, 0.07)}, (0.25, 2.1)), svc("search-api", 120, {"503": (0.0005, 0.02)}, (0.12, 1.8))],
        gauges=[
            gauge("cluster_autoscaler_nodes_count", {"state": "ready"}, 60, 60, start),
            gauge("kube_deployment_status_replicas_unavailable", {"deployment": "search-api", "namespace": ns}, 0, 12, start),
        ],
        books={
            "search-slow.md": runbook(
                "Search slow",
                "Slow search is almost always OpenSearch. Check the cluster health and GC logs of the data nodes; if old-gen GC is above 1 s, restart the worst data node.",
            )
        },
    )
