"""Writes the seventeenth held-out scenario set, bench/heldout17: `python bench/heldout17/_build.py`.

New incidents at the edge, identity and platform (admission webhooks, volume limits, registries,
bound service-account tokens, node clocks, ingress back-end protocols, CoreDNS placement, load
balancer client IPs, SaaS and cloud limits, mesh locality, CDN header forwarding, policy engines,
JWT key rotation), none of them in the bundled set or in bench/heldout … bench/heldout15. As there,
everything that matters is written by hand below (incident, expected answer, runbooks, kubectl
answers, the log lines that carry the fault and the red herrings); the bulk (background request
lines, 2 h of metric points thinned to one every 30 s, a namespace's tables, describe layouts) comes
from bench/heldout15/_build.py's helpers (and through them the earlier builders'), each scenario with
a fixed seed (465-480). The author read neither the planner (`reasoning/`) nor the engine
(`diagnosis/engine/`, `docs/engine.md`), nor their tests, nor any score file. Stdlib only.
"""

from __future__ import annotations

import importlib.util
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


h15 = _load("heldout15_build", HERE.parent / "heldout15" / "_build.py")
base = h15.base

table = base.table
events = base.events
runbook = base.runbook
app = h15.app
pod_name = h15.pod_name
namespace = h15.namespace
ev = h15.ev
bg = h15.bg
incident = h15.incident
expected = h15.expected
simple = h15.simple
container_text = h15.container_text
deployment_describe = h15.deployment_describe
describe_pod = h15.describe_pod
podlog = h15.podlog
running = h15.running
crashloop = h15.crashloop
node_describe = h15.node_describe
pending_pod = h15.pending_pod
replicaset_describe = h15.replicaset_describe
sched = h15.sched
kube_case = h15.kube_case
pods_of = h15.pods_of
svc = h15.svc
every = h15.every
describe_block = h15.describe_block
retype_node = h15.retype_node
backoff_rows = h15.backoff_rows
NODES_FRA = h15.NODES_FRA
NODES_IAD = h15.NODES_IAD
NODES_DUB = h15.NODES_DUB
NODES_PDX = h15.NODES_PDX

SCENARIOS: dict[str, Any] = {}


def scenario(slug: str):
    def register(fn):
        SCENARIOS[slug] = fn
        return fn

    return register


def only_ns(k8s: dict[str, str], ns: str) -> dict[str, str]:
    """The answers of one namespace's own tables (to add a second namespace to a capture)."""
    return {
        k: v for k, v in k8s.items() if k.endswith(f" -n {ns}") or f" -n {ns} " in k
    }


# =================================================================================================
# 1. Admission: a Terraform PR upgraded the EKS module and set
#    `node_security_group_enable_recommended_rules = false` to quiet a security scanner; the rule
#    letting the control plane reach the nodes on 9443 went with it. The AWS Load Balancer
#    Controller's pod-mutating webhook (`mpod.elbv2.k8s.aws`, failurePolicy Fail, for namespaces
#    with readiness-gate injection) answers on 9443. Running pods are untouched; at the lunchtime
#    peak the HPA scales checkout-api 3 -> 6 and the ReplicaSet cannot create one pod: the API
#    server's call to the webhook times out. The incident says "checkout".
# =================================================================================================


@scenario("lbc-pod-webhook-blocked-by-node-security-group")
def lbc_pod_webhook_blocked_by_node_security_group() -> dict[str, Any]:
    start = -1500
    ns = "checkout"
    rs = "6f9c8d7b5"
    api = app(
        "checkout-api",
        image="604211873390.dkr.ecr.eu-west-1.amazonaws.com/checkout/checkout-api:14.2.0",
        port=8080,
        rs=rs,
        cluster_ip="172.20.91.14",
        desired=6,
        pods=[
            ("b2kxq", "1/1", "Running", "0", "2h", 0),
            ("h7wmz", "1/1", "Running", "0", "2h", 1),
            ("r4tnc", "1/1", "Running", "0", "2h", 2),
        ],
    )
    web = app(
        "checkout-web",
        image="604211873390.dkr.ecr.eu-west-1.amazonaws.com/checkout/checkout-web:2026.12.3",
        port=3000,
        rs="7d5b9c6f8",
        cluster_ip="172.20.91.30",
        pods=[
            ("d8qpl", "1/1", "Running", "0", "6d", 0),
            ("m3vzs", "1/1", "Running", "0", "6d", 2),
        ],
    )
    k8s = namespace(ns, NODES_DUB, [api, web], seed=465)
    sig = 'failed calling webhook "mpod.elbv2.k8s.aws"'
    full = (
        'Internal error occurred: failed calling webhook "mpod.elbv2.k8s.aws": failed to call webhook: '
        'Post "https://aws-load-balancer-webhook-service.kube-system.svc:443/mutate-v1-pod?timeout=10s": '
        "context deadline exceeded"
    )
    k8s[f"kubectl get horizontalpodautoscalers -n {ns}"] = table(
        [
            ["NAME", "REFERENCE", "TARGETS", "MINPODS", "MAXPODS", "REPLICAS", "AGE"],
            [
                "checkout-api",
                "Deployment/checkout-api",
                "cpu: 171%/60%",
                "3",
                "12",
                "6",
                "214d",
            ],
        ]
    )
    k8s[f"kubectl describe horizontalpodautoscalers checkout-api -n {ns}"] = (
        describe_block(
            f"Name:                                                  checkout-api\nNamespace:                                             {ns}\n"
            "Reference:                                             Deployment/checkout-api\n"
            "Metrics:                                               ( current / target )\n"
            "  resource cpu on pods  (as a percentage of request):  171% (1712m) / 60%\n"
            "Min replicas:                                          3\nMax replicas:                                          12\n"
            "Deployment pods:                                       6 current / 6 desired\n"
            "Conditions:\n  Type            Status  Reason            Message\n"
            "  ----            ------  ------            -------\n"
            "  AbleToScale     True    ReadyForNewScale  recommended size matches current size\n"
            "  ScalingActive   True    ValidMetricFound  the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)\n"
            "  ScalingLimited  False   DesiredWithinRange  the desired count is within the acceptable range\n",
            [
                (
                    "Normal",
                    "SuccessfulRescale",
                    "23m",
                    "horizontal-pod-autoscaler",
                    "New size: 6; reason: cpu resource utilization (percentage of request) above target",
                )
            ],
        )
    )
    k8s[f"kubectl describe replicasets checkout-api-{rs} -n {ns}"] = (
        replicaset_describe(
            f"checkout-api-{rs}",
            ns,
            deployment="checkout-api",
            revision=57,
            desired=6,
            current=3,
            status="3 Running / 0 Waiting / 0 Succeeded / 0 Failed",
            containers=container_text("checkout-api", api["image"], 8080),
            failure=True,
            events_rows=[
                (
                    "Warning",
                    "FailedCreate",
                    "52s (x19 over 23m)",
                    "replicaset-controller",
                    f"Error creating: {full}",
                ),
            ],
        )
    )
    k8s[f"kubectl describe deployments checkout-api -n {ns}"] = deployment_describe(
        "checkout-api",
        ns,
        replicas="6 desired | 3 updated | 3 total | 3 available | 0 unavailable",
        revision=57,
        containers=container_text("checkout-api", api["image"], 8080),
        conditions=[
            ("Progressing", "True", "NewReplicaSetAvailable"),
            ("Available", "True", "MinimumReplicasAvailable"),
            ("ReplicaFailure", "True", "FailedCreate"),
        ],
        old_rs="<none>",
        new_rs=f"checkout-api-{rs} (3/6 replicas created)",
        events_rows=[
            (
                "Normal",
                "ScalingReplicaSet",
                "23m",
                "deployment-controller",
                f"Scaled up replica set checkout-api-{rs} from 3 to 6",
            ),
        ],
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "23m",
                "Normal",
                "SuccessfulRescale",
                "HorizontalPodAutoscaler/checkout-api",
                "New size: 6; reason: cpu resource utilization (percentage of request) above target",
            ),
            (
                "23m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/checkout-api",
                f"Scaled up replica set checkout-api-{rs} from 3 to 6",
            ),
            (
                "52s",
                "Warning",
                "FailedCreate",
                f"ReplicaSet/checkout-api-{rs}",
                f"Error creating: {full}",
            ),
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
                "aws-load-balancer-controller-5d9f7c8b6-kq2xv",
                "1/1",
                "Running",
                "0",
                "12d",
                "10.70.1.88",
                NODES_DUB[0][0],
                "<none>",
                "<none>",
            ],
            [
                "aws-load-balancer-controller-5d9f7c8b6-w8rzt",
                "1/1",
                "Running",
                "0",
                "12d",
                "10.70.3.41",
                NODES_DUB[2][0],
                "<none>",
                "<none>",
            ],
            [
                "aws-node-4xk2p",
                "2/2",
                "Running",
                "0",
                "41d",
                NODES_DUB[0][2],
                NODES_DUB[0][0],
                "<none>",
                "<none>",
            ],
            [
                "aws-node-9qlmt",
                "2/2",
                "Running",
                "0",
                "41d",
                NODES_DUB[1][2],
                NODES_DUB[1][0],
                "<none>",
                "<none>",
            ],
            [
                "aws-node-tz7wd",
                "2/2",
                "Running",
                "0",
                "41d",
                NODES_DUB[2][2],
                NODES_DUB[2][0],
                "<none>",
                "<none>",
            ],
            [
                "coredns-7c9f5b8d6-2hxqm",
                "1/1",
                "Running",
                "0",
                "41d",
                "10.70.2.15",
                NODES_DUB[1][0],
                "<none>",
                "<none>",
            ],
            [
                "coredns-7c9f5b8d6-vn4ks",
                "1/1",
                "Running",
                "0",
                "41d",
                "10.70.3.27",
                NODES_DUB[2][0],
                "<none>",
                "<none>",
            ],
        ]
    )
    k8s["kubectl get endpoints -n kube-system"] = table(
        [
            ["NAME", "ENDPOINTS", "AGE"],
            [
                "aws-load-balancer-webhook-service",
                "10.70.1.88:9443,10.70.3.41:9443",
                "300d",
            ],
            [
                "kube-dns",
                "10.70.2.15:53,10.70.3.27:53,10.70.2.15:53 + 3 more...",
                "300d",
            ],
        ]
    )
    pods = pods_of(api)
    evs = [
        ev(
            "terraform",
            "info",
            'module.eks.aws_security_group_rule.node["ingress_cluster_9443_webhook"]: Destruction complete after 1s (PR platform-infra#1183: eks module 19.21.0 -> 20.8.4, node_security_group_enable_recommended_rules = false per scanner finding SG-0042)',
            at=-26100,
        ),
        ev(
            "kube-apiserver",
            "warn",
            f"W1205 dispatcher.go:217] Failed calling webhook, failing closed mpod.elbv2.k8s.aws: {full[len('Internal error occurred: ') :]}",
            **every(start + 60, -30, 75),
        ),
        ev(
            "kube-controller-manager",
            "error",
            f'E1205 replica_set.go:560] "Unhandled Error" err="sync \\"{ns}/checkout-api-{rs}\\" failed with {full}" logger="UnhandledError"',
            **every(start + 70, -40, 90),
        ),
        ev(
            "aws-load-balancer-controller",
            "info",
            '{"level":"info","logger":"controllers.ingress","msg":"successfully deployed model","ingressGroup":"checkout/public"}',
            **every(-7000, -60, 600),
        ),
        ev(
            "checkout-api",
            "warn",
            "request queue {n} ms over budget on POST /v1/orders (worker pool 64/64 busy)",
            **every(start + 300, -5, 20),
            pods=pods,
        ),
        ev(
            "checkout-web",
            "error",
            "upstream checkout-api responded 504 for POST /api/checkout/place-order after 10000 ms",
            **every(start + 420, -3, 8),
            pods=pods_of(web),
        ),
        ev(
            "checkout-api",
            "info",
            "checkout-api 14.2.0 started (gift-card split tender)",
            at=-7300,
            pods=pods,
        ),
        ev(
            "checkout-api",
            "error",
            "redis: connection pool timeout (addr=checkout-cache.x7e2aq.ng.0001.euw1.cache.amazonaws.com:6379)",
            **every(-9900, -9500, 40),
            pods=pods,
        ),
        ev(
            "recommendations",
            "warn",
            "model feature store lag {n} ms, serving cached vectors",
            **every(-7000, -20, 240),
        ),
    ]
    return kube_case(
        seed=465,
        start=start,
        inc=incident("Checkout really slow since lunch", "checkout", start),
        exp=expected(
            "platform",
            [
                "mpod.elbv2.k8s.aws",
                "aws-load-balancer-controller",
                "aws-load-balancer-webhook-service",
                "ingress_cluster_9443_webhook",
                "node security group",
                "platform-infra#1183",
            ],
            sig,
            "A Terraform change (EKS module 20, node_security_group_enable_recommended_rules = false) removed the node security group rule that lets the EKS control plane reach the nodes on 9443. The AWS Load Balancer Controller's pod-mutating webhook mpod.elbv2.k8s.aws (failurePolicy Fail, readiness-gate injection in the checkout namespace) listens there, so every pod creation in checkout times out at admission. The running pods are untouched; when the HPA scaled checkout-api from 3 to 6 at the lunchtime peak, the ReplicaSet could not create a pod and three pods carry double load. checkout-web's 504s, checkout-api's release, the old Redis pool timeouts and the recommendations lag are not the cause.",
            [
                f"ReplicaSet checkout-api-{rs}: FailedCreate: {full}",
                "kube-apiserver: Failed calling webhook, failing closed mpod.elbv2.k8s.aws",
                'terraform: aws_security_group_rule.node["ingress_cluster_9443_webhook"] destroyed',
            ],
            "Restore the cluster-to-node 9443 rule (node_security_group_additional_rules), confirm the ReplicaSet creates its pods; consider failurePolicy Ignore for readiness-gate injection.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "checkout-api",
                pods,
                ["POST /v1/orders 201 {ms}ms", "GET /v1/carts/{n} 200 {ms}ms"],
                8,
            )
        ],
        evs=evs,
        services=[
            svc(
                "checkout-api",
                60,
                {"500": (0.0005, 0.004)},
                (0.09, 0.9),
                rps_after=120,
                change_at=start + 120,
            ),
            svc(
                "checkout-web",
                45,
                {"504": (0.0002, 0.05)},
                (0.15, 1.2),
                change_at=start + 300,
            ),
        ],
        gauges=[
            {
                "name": "kube_deployment_status_replicas_available",
                "labels": {"deployment": "checkout-api", "namespace": ns},
                "before": 3,
                "after": 3,
                "change_at": start,
            },
            {
                "name": "kube_deployment_spec_replicas",
                "labels": {"deployment": "checkout-api", "namespace": ns},
                "before": 3,
                "after": 6,
                "change_at": start,
            },
        ],
        books={
            "checkout-slow.md": runbook(
                "Checkout slow",
                "Slow checkout is nearly always Redis or the payment provider: check checkout-cache CPU and evictions, then the PSP latency panel; fail over the Redis replica group if its CPU is above 90 %.",
            )
        },
    )


# =================================================================================================
# 2. Scheduling: transcoder 7.0 replaced its emptyDir scratch space with a generic ephemeral volume
#    (a 100 Gi gp3 EBS volume per pod) because the media nodes' root disks kept filling. The EBS CSI
#    driver's Helm values have carried `node.volumeAttachLimit: 10` since an ENI shortage two years
#    ago, and each media node already has one volume (the media-cache StatefulSet). At 9 transcoders
#    a node the scheduler stops: KEDA scales to 45 on the morning upload queue, 18 pods stay Pending
#    with "exceed max volume count" while CPU is free. The incident says "videos".
# =================================================================================================

NODES_MEDIA = [
    ("ip-10-90-1-141.us-west-2.compute.internal", "Ready", "10.90.1.141", "96d"),
    ("ip-10-90-2-56.us-west-2.compute.internal", "Ready", "10.90.2.56", "96d"),
    ("ip-10-90-3-212.us-west-2.compute.internal", "Ready", "10.90.3.212", "96d"),
]


@scenario("ebs-attach-limit-per-pod-ephemeral-volume")
def ebs_attach_limit_per_pod_ephemeral_volume() -> dict[str, Any]:
    start = -2400
    ns = "media"
    nodes = [(*n, "300d") for n in NODES_PDX] + NODES_MEDIA
    rs = "5c8d9f7b6"
    img = "ghcr.io/reelworks/transcoder:7.0.0"
    letters = "bcdfghjklmnpqrstvwxz"
    running_pods = [
        (
            f"{letters[i % 20]}{letters[(i * 7) % 20]}{i:02d}q",
            "1/1",
            "Running",
            "0",
            "14h" if i < 8 else "31m",
            3 + i % 3,
        )
        for i in range(27)
    ]
    pending_pods = [
        (
            f"{letters[(i * 3) % 20]}{letters[(i * 11) % 20]}{i:02d}p",
            "0/1",
            "Pending",
            "0",
            "29m",
            -1,
        )
        for i in range(18)
    ]
    tc = app(
        "transcoder",
        image=img,
        port=9000,
        rs=rs,
        cluster_ip="10.100.60.12",
        desired=45,
        pods=running_pods + pending_pods,
    )
    up = app(
        "upload-api",
        image="ghcr.io/reelworks/upload-api:3.19.1",
        port=8080,
        rs="6d7f8c9b5",
        cluster_ip="10.100.60.20",
        pods=[
            ("k2mwq", "1/1", "Running", "0", "3h", 0),
            ("t8zxn", "1/1", "Running", "0", "3h", 1),
        ],
    )
    k8s = namespace(
        ns,
        nodes,
        [tc, up],
        seed=466,
        statefulsets=table(
            [
                ["NAME", "READY", "AGE", "CONTAINERS", "IMAGES"],
                ["media-cache", "3/3", "300d", "varnish", "varnish:7.6.1"],
            ]
        ),
    )
    msg = (
        "0/6 nodes are available: 3 node(s) didn't match Pod's node affinity/selector, 3 node(s) exceed max volume count. "
        "preemption: 0/6 nodes are available: 3 No preemption victims found for incoming pod, 3 Preemption is not helpful for scheduling."
    )
    sig = "3 node(s) exceed max volume count"
    cont = container_text(
        "transcoder",
        img,
        9000,
        limits="memory:  3Gi",
        requests="cpu:      1\n  memory:   2Gi",
        env={
            "SCRATCH_DIR": "/scratch",
            "QUEUE_URL": "https://sqs.us-west-2.amazonaws.com/771203984512/uploads-transcode",
        },
    ).replace(
        "      /var/run/secrets/kubernetes.io/serviceaccount from kube-api-access (ro)",
        "      /scratch from scratch (rw)\n      /var/run/secrets/kubernetes.io/serviceaccount from kube-api-access (ro)",
    )
    vols = (
        "Volumes:\n  scratch:\n    Type:          EphemeralVolume (an inline specification for a volume that gets created and deleted with the pod)\n"
        "    StorageClass:  gp3-scratch\n    Volume:        \n    Labels:            <none>\n    Annotations:       <none>\n"
        "    Capacity:      \n    Access Modes:  \n    VolumeMode:    Filesystem\n"
    )
    pending_names = []
    for sfx, *_ in pending_pods[:2]:
        name = pod_name(tc, sfx)
        pending_names.append(name)
        k8s[f"kubectl describe pods {name} -n {ns}"] = pending_pod(
            name,
            ns,
            owner=f"ReplicaSet/transcoder-{rs}",
            labels=["app=transcoder", f"pod-template-hash={rs}"],
            sa="transcoder",
            containers=cont + "\n" + vols,
            events_rows=[
                (
                    "Warning",
                    "FailedScheduling",
                    "2m (x9 over 29m)",
                    "default-scheduler",
                    msg,
                ),
                (
                    "Normal",
                    "NotTriggerScaleUp",
                    "3m (x12 over 29m)",
                    "cluster-autoscaler",
                    "pod didn't trigger scale-up: 1 max node group size reached, 2 node(s) didn't match Pod's node affinity/selector",
                ),
            ],
        )
    pvc_rows = [
        [
            "NAME",
            "STATUS",
            "VOLUME",
            "CAPACITY",
            "ACCESS MODES",
            "STORAGECLASS",
            "VOLUMEATTRIBUTESCLASS",
            "AGE",
        ]
    ]
    for i in range(3):
        pvc_rows.append(
            [
                f"cache-media-cache-{i}",
                "Bound",
                f"pvc-0c{i}1d2e3f-4a5b-46c7-8d9e-0f1a2b3c4d{i}e",
                "200Gi",
                "RWO",
                "gp3",
                "<unset>",
                "300d",
            ]
        )
    for sfx, *_ in running_pods[:6]:
        pvc_rows.append(
            [
                f"{pod_name(tc, sfx)}-scratch",
                "Bound",
                f"pvc-7{sfx}-91ab-4c2d-8e3f-5a6b7c8d9e0f",
                "100Gi",
                "RWO",
                "gp3-scratch",
                "<unset>",
                "31m",
            ]
        )
    for sfx, *_ in pending_pods[:4]:
        pvc_rows.append(
            [
                f"{pod_name(tc, sfx)}-scratch",
                "Pending",
                "",
                "",
                "",
                "gp3-scratch",
                "<unset>",
                "29m",
            ]
        )
    k8s[f"kubectl get persistentvolumeclaims -n {ns}"] = table(pvc_rows)
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
                "2y",
            ],
            [
                "gp3-scratch",
                "ebs.csi.aws.com",
                "Delete",
                "WaitForFirstConsumer",
                "false",
                "16h",
            ],
        ]
    )
    for i, (name, _, ip, _age) in enumerate(NODES_MEDIA):
        rows = [("media", f"media-cache-{i}")] + [
            ("media", pod_name(tc, p[0])) for p in running_pods if p[5] == 3 + i
        ]
        text = node_describe(
            name,
            ip,
            pods_rows=rows,
            taints="dedicated=media:NoSchedule",
            capacity=("16", "32120164Ki", "234"),
        )
        text = retype_node(
            text,
            "c6i.4xlarge",
            -8294400,
            "eks.amazonaws.com/nodegroup=media-ri,workload=media",
        )
        k8s[f"kubectl describe nodes {name}"] = text
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "31m",
                "Normal",
                "SuccessfulRescale",
                "HorizontalPodAutoscaler/keda-hpa-transcoder",
                "New size: 45; reason: external metric s0-aws-sqs-queue-uploads-transcode(&LabelSelector{MatchLabels:map[string]string{scaledobject.keda.sh/name: transcoder,},MatchExpressions:[]LabelSelectorRequirement{},}) above target",
            ),
            (
                "31m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/transcoder",
                f"Scaled up replica set transcoder-{rs} from 8 to 45",
            ),
            ("2m", "Warning", "FailedScheduling", f"Pod/{pending_names[0]}", msg),
            ("2m", "Warning", "FailedScheduling", f"Pod/{pending_names[1]}", msg),
            (
                "90s",
                "Normal",
                "WaitForFirstConsumer",
                f"PersistentVolumeClaim/{pending_names[0]}-scratch",
                "waiting for first consumer to be created before binding",
            ),
        ]
    )
    evs = [
        ev(
            "argocd",
            "info",
            "app media-transcoder synced to 7.0.0 (scratch: emptyDir -> generic ephemeral volume gp3-scratch 100Gi, fixes root disk DiskPressure on media nodes)",
            at=-57600,
        ),
        ev(
            "argocd",
            "info",
            "app aws-ebs-csi-driver synced, no diff (values: controller.replicaCount 2, node.volumeAttachLimit 10, node.tolerateAllTaints true)",
            at=-7000,
        ),
        ev(
            "keda-operator",
            "info",
            '"Successfully updated ScaleTarget" ScaledObject="media/transcoder" Original Replicas Count=8 New Replicas Count=45',
            at=start + 540,
        ),
        ev(
            "default-scheduler",
            "warn",
            f'I1205 schedule_one.go:1055] "Unable to schedule pod; no fit; waiting" pod="media/transcoder-{rs}-{"{sfx}"}" err="{msg}"',
            **every(start + 560, -30, 90),
        ),
        ev(
            "cluster-autoscaler",
            "info",
            f"I1205 orchestrator.go:582] Pod media/transcoder-{rs}-{{sfx}} can't be scheduled on eks-media-ri-6ec7a1b2-..., predicate checking error: node(s) exceed max volume count; predicateName=NodeVolumeLimits; reasons: node(s) exceed max volume count",
            **every(start + 600, -40, 120),
        ),
        ev(
            "upload-api",
            "warn",
            "transcode queue depth {n} (oldest message 2{ms} s), uploads waiting for renditions",
            **every(start + 700, -10, 45),
            pods=pods_of(up),
        ),
        ev(
            "transcoder",
            "warn",
            "[libx264 @ 0x55d{n}] VBV underflow (frame {n}, -{ms} bits)",
            **every(-7000, -5, 25),
            pods=[pod_name(tc, p[0]) for p in running_pods[:8]],
        ),
        ev(
            "upload-api",
            "info",
            "upload-api 3.19.1 ready (resumable uploads v2)",
            at=-9000,
            pods=pods_of(up),
        ),
        ev(
            "transcoder",
            "error",
            "botocore.exceptions.ClientError: An error occurred (SlowDown) when calling the PutObject operation (reached max retries: 4): Please reduce your request rate.",
            **every(-10000, -9600, 50),
            pods=[pod_name(tc, p[0]) for p in running_pods[:8]],
        ),
    ]
    return kube_case(
        seed=466,
        start=start,
        inc=incident(
            "Videos stuck in processing",
            "videos",
            start,
            ["uploads finish but never get past 'processing'"],
        ),
        exp=expected(
            "platform",
            [
                "deployment/transcoder",
                "transcoder",
                "transcoder 7.0.0",
                "gp3-scratch",
                "volumeAttachLimit",
                "aws-ebs-csi-driver",
                "max volume count",
            ],
            sig,
            "transcoder 7.0.0 gives every pod its own EBS volume (generic ephemeral volume, StorageClass gp3-scratch) instead of emptyDir. The EBS CSI driver has been installed with node.volumeAttachLimit 10, and each media node already holds one volume (media-cache), so at 9 transcoders a node the scheduler's volume-limit check fails. KEDA scaled transcoder from 8 to 45 on the morning queue; 27 pods run and 18 stay Pending (exceed max volume count) although the nodes have free CPU, so the upload queue grows. upload-api's queue warnings and release, the autoscaler's max-size message (the fixed reserved node group), the x264 warnings and the old S3 SlowDown errors are not the cause.",
            [
                f"FailedScheduling: {msg}",
                "argocd: transcoder 7.0.0 scratch -> generic ephemeral volume gp3-scratch",
                "aws-ebs-csi-driver values: node.volumeAttachLimit 10",
            ],
            "Go back to emptyDir scratch (with an ephemeral-storage limit or a larger root volume) or raise/remove node.volumeAttachLimit on the media nodes; then let KEDA place the pending pods.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "upload-api",
                pods_of(up),
                [
                    "POST /v1/uploads 201 {ms}ms",
                    "PUT /v1/uploads/{n}/parts/3 200 {ms}ms",
                    "GET /v1/videos/{n} 200 {ms}ms",
                ],
                8,
            )
        ],
        evs=evs,
        services=[
            svc("upload-api", 30, {"500": (0.0005, 0.0006)}, (0.08, 0.08)),
        ],
        gauges=[
            {
                "name": "aws_sqs_approximate_number_of_messages_visible",
                "labels": {"queue_name": "uploads-transcode"},
                "before": 40,
                "after": 6900,
                "change_at": start + 300,
            },
            {
                "name": "kube_deployment_status_replicas_available",
                "labels": {"deployment": "transcoder", "namespace": ns},
                "before": 8,
                "after": 27,
                "change_at": start + 600,
            },
        ],
        books={
            "videos-stuck.md": runbook(
                "Videos stuck in processing",
                "Stuck videos usually mean poison messages: check the uploads-transcode DLQ, purge messages older than 6 h and restart the transcoder pods.",
            )
        },
    )


# =================================================================================================
# 3. Startup: the ML images live in a central ECR in the shared-artifacts account. This morning the
#    security team tightened every repository policy to `aws:PrincipalOrgPaths` of the production
#    OU; the search account sits in the data OU. Nodes that had the ranker image cached kept
#    running it. This morning Karpenter's drift replaced two nodes for the new AMI; the ranker pods
#    moved there cannot pull (403 on the manifest) and the PDB stops further drift. Two ranker pods
#    of four serve all queries. The incident says "search".
# =================================================================================================

NODES_SEARCH = [
    ("ip-10-44-1-57.eu-west-1.compute.internal", "Ready", "10.44.1.57", "19d"),
    ("ip-10-44-2-190.eu-west-1.compute.internal", "Ready", "10.44.2.190", "19d"),
    ("ip-10-44-1-233.eu-west-1.compute.internal", "Ready", "10.44.1.233", "47m"),
    ("ip-10-44-3-18.eu-west-1.compute.internal", "Ready", "10.44.3.18", "38m"),
]


@scenario("ecr-repo-policy-org-path-after-node-drift")
def ecr_repo_policy_org_path_after_node_drift() -> dict[str, Any]:
    start = -2500
    ns = "search"
    img = "318472650193.dkr.ecr.eu-west-1.amazonaws.com/ml/ranker:2026.11.28"
    rk = app(
        "ranker",
        image=img,
        port=8501,
        rs="79c6d8f5b",
        cluster_ip="10.100.33.9",
        desired=4,
        pods=[
            ("f4kzq", "1/1", "Running", "0", "6d", 0),
            ("p9wxm", "1/1", "Running", "0", "6d", 1),
            ("c2hvn", "0/1", "ImagePullBackOff", "0", "44m", 2),
            ("s7rjt", "0/1", "ImagePullBackOff", "0", "36m", 3),
        ],
    )
    sa_ = app(
        "search-api",
        image="604211873390.dkr.ecr.eu-west-1.amazonaws.com/search/search-api:8.14.0",
        port=8080,
        rs="5b8f6c7d9",
        cluster_ip="10.100.33.4",
        pods=[
            ("g3nqd", "1/1", "Running", "0", "2h", 0),
            ("w8lxk", "1/1", "Running", "0", "2h", 2),
            ("z5mpt", "1/1", "Running", "0", "2h", 3),
        ],
    )
    k8s = namespace(ns, NODES_SEARCH, [rk, sa_], seed=467)
    sig = "unexpected status from HEAD request to https://318472650193.dkr.ecr.eu-west-1.amazonaws.com/v2/ml/ranker/manifests/2026.11.28: 403 Forbidden"
    pull = f'Failed to pull image "{img}": failed to pull and unpack image "{img}": failed to resolve reference "{img}": {sig}'
    names = []
    for sfx, age in (("c2hvn", "44m"), ("s7rjt", "36m")):
        node_i = 2 if sfx == "c2hvn" else 3
        name = describe_pod(
            k8s,
            ns,
            rk,
            sfx,
            NODES_SEARCH,
            state="    State:          Waiting\n      Reason:       ImagePullBackOff",
            started=-2600,
            events_rows=[
                sched(ns, pod_name(rk, sfx), NODES_SEARCH[node_i][0], age),
                (
                    "Normal",
                    "Pulling",
                    f"{int(age[:-1]) - 2}m (x4 over {age})",
                    "kubelet",
                    f'Pulling image "{img}"',
                ),
                (
                    "Warning",
                    "Failed",
                    f"{int(age[:-1]) - 2}m (x4 over {age})",
                    "kubelet",
                    pull,
                ),
                (
                    "Warning",
                    "Failed",
                    f"{int(age[:-1]) - 2}m (x4 over {age})",
                    "kubelet",
                    "Error: ErrImagePull",
                ),
                (
                    "Normal",
                    "BackOff",
                    "2m (x160 over 43m)",
                    "kubelet",
                    f'Back-off pulling image "{img}"',
                ),
                (
                    "Warning",
                    "Failed",
                    "2m (x160 over 43m)",
                    "kubelet",
                    "Error: ImagePullBackOff",
                ),
            ],
        )
        names.append(name)
    k8s[f"kubectl get poddisruptionbudgets -n {ns}"] = table(
        [
            ["NAME", "MIN AVAILABLE", "MAX UNAVAILABLE", "ALLOWED DISRUPTIONS", "AGE"],
            ["ranker", "2", "N/A", "0", "1y"],
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "45m",
                "Normal",
                "Evicted",
                "Pod/ranker-79c6d8f5b-m6tdx",
                "Evicted pod: Karpenter drift (nodeclaim default-8kq2v, AMI ami-0a91c3e57b2d4f680 -> ami-07d5e1f9a3c2b8461)",
            ),
            (
                "44m",
                "Normal",
                "Scheduled",
                f"Pod/{names[0]}",
                f"Successfully assigned {ns}/{names[0]} to {NODES_SEARCH[2][0]}",
            ),
            (
                "36m",
                "Normal",
                "Scheduled",
                f"Pod/{names[1]}",
                f"Successfully assigned {ns}/{names[1]} to {NODES_SEARCH[3][0]}",
            ),
            (
                "30m",
                "Normal",
                "DisruptionBlocked",
                "Node/ip-10-44-1-57.eu-west-1.compute.internal",
                'Cannot disrupt Node: pdb "search/ranker" prevents pod evictions',
            ),
            ("2m", "Warning", "Failed", f"Pod/{names[0]}", pull),
            ("1m", "Warning", "Failed", f"Pod/{names[1]}", pull),
        ]
    )
    evs = [
        ev(
            "terraform",
            "info",
            'aws_ecr_repository_policy.ml["ranker"]: Modifications complete after 1s [id=ml/ranker] (shared-artifacts, SEC-2291: Condition StringLike aws:PrincipalOrgPaths ["o-7qv2x9k1zq/r-4f1c/ou-4f1c-prod9z2k/*"] replaces aws:PrincipalOrgID)',
            at=-7100,
        ),
        ev(
            "karpenter",
            "info",
            '{"level":"INFO","logger":"controller","message":"disrupting node(s)","commit":"62a726c","controller":"disruption","reason":"drifted","decision":"replace","disrupted-node-count":1,"replacement-node-count":1,"pod-count":9,"disrupted-nodes":[{"Node":{"name":"ip-10-44-2-61.eu-west-1.compute.internal"}}]}',
            at=start - 160,
        ),
        ev(
            "karpenter",
            "info",
            '{"level":"INFO","logger":"controller","message":"disrupting node(s)","commit":"62a726c","controller":"disruption","reason":"drifted","decision":"replace","disrupted-node-count":1,"replacement-node-count":1,"pod-count":7,"disrupted-nodes":[{"Node":{"name":"ip-10-44-3-144.eu-west-1.compute.internal"}}]}',
            at=start + 320,
        ),
        ev(
            "cloudtrail",
            "warn",
            "ecr.amazonaws.com GetDownloadUrlForLayer/BatchGetImage AccessDenied: User: arn:aws:sts::604211873390:assumed-role/KarpenterNodeRole-search-prod/i-0{n}4be is not authorized to perform: ecr:BatchGetImage on resource: arn:aws:ecr:eu-west-1:318472650193:repository/ml/ranker because no resource-based policy allows the ecr:BatchGetImage action",
            **every(start, -60, 300),
        ),
        ev(
            "kubelet",
            "error",
            f'E1205 log.go:32] "PullImage from image service failed" err="rpc error: code = Unknown desc = failed to pull and unpack image \\"{img}\\": failed to resolve reference \\"{img}\\": {sig}" image="{img}"',
            **every(start + 30, -50, 240),
            labels={"node": NODES_SEARCH[2][0]},
        ),
        ev(
            "search-api",
            "warn",
            "ranker call timed out after 250 ms, falling back to BM25 order (query {n})",
            **every(start + 200, -2, 5),
            pods=pods_of(sa_),
        ),
        ev(
            "search-api",
            "error",
            "circuit breaker 'ranker' OPEN: 52% of calls failed in the last 30 s",
            **every(start + 600, -60, 180),
            pods=pods_of(sa_),
        ),
        ev(
            "ranker",
            "warn",
            "feature store lookup slow ({ms}0 ms) for query embedding cache miss",
            **every(-7000, -20, 150),
            pods=[pod_name(rk, "f4kzq"), pod_name(rk, "p9wxm")],
        ),
        ev(
            "search-api",
            "info",
            "search-api 8.14.0 ready (synonyms for brand names)",
            at=-7400,
            pods=pods_of(sa_),
        ),
        ev(
            "search-api",
            "error",
            "opensearch: [search-os-2] 429 es_rejected_execution_exception (search thread pool queue 1000 full)",
            **every(-10100, -9700, 60),
            pods=pods_of(sa_),
        ),
    ]
    return kube_case(
        seed=467,
        start=start,
        inc=incident("Search results are bad and slow", "search", start),
        exp=expected(
            "platform",
            [
                "ml/ranker",
                "aws_ecr_repository_policy",
                "repository policy",
                "aws:PrincipalOrgPaths",
                "SEC-2291",
                "318472650193.dkr.ecr.eu-west-1.amazonaws.com/ml/ranker",
                "deployment/ranker",
                "ranker",
            ],
            sig,
            "This morning the shared-artifacts account's ECR repository policy for ml/ranker was narrowed to aws:PrincipalOrgPaths of the production OU (SEC-2291); the search account's node role is in another OU, so pulls get 403. Nodes that had the image cached kept running it. Karpenter's drift replacement this morning moved two ranker pods to new nodes, which cannot pull the image (ImagePullBackOff), and the ranker PDB blocks further drift; two of four ranker pods carry all queries, so search-api times out and falls back to BM25. search-api's timeouts and breaker, its release, the feature-store warnings and the old OpenSearch rejections are not the cause; the drift is only the trigger.",
            [
                f"kubelet: {pull}",
                "cloudtrail: not authorized to perform ecr:BatchGetImage ... because no resource-based policy allows",
                "terraform: aws_ecr_repository_policy ml/ranker aws:PrincipalOrgPaths prod OU",
            ],
            "Add the search account (or the data OU path) to the ml/ranker repository policy, let the two pods pull, then re-check the other repositories changed under SEC-2291 before the next drift.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "search-api",
                pods_of(sa_),
                [
                    "GET /v2/search?q={n} 200 {ms}ms",
                    "GET /v2/autocomplete?q={n} 200 {ms}ms",
                ],
                8,
            )
        ],
        evs=evs,
        services=[
            svc(
                "search-api",
                180,
                {"500": (0.0004, 0.0009)},
                (0.06, 0.31),
                change_at=start + 200,
            ),
            svc(
                "ranker",
                170,
                {"503": (0.0002, 0.02)},
                (0.03, 0.2),
                change_at=start + 200,
            ),
        ],
        gauges=[],
        books={
            "search-quality.md": runbook(
                "Search slow or irrelevant",
                "If ranker latency is high the model is too large for the pods: raise the ranker HPA's maxReplicas and its memory limit, and check the feature store hit rate.",
            )
        },
    )


# =================================================================================================
# 4. Runtime: a CIS hardening run of the control-plane role last night set
#    `--service-account-extend-token-expiration=false` on kube-apiserver. Projected service-account
#    tokens now really expire after an hour. workspace-operator uses fabric8 kubernetes-client 4.13,
#    which reads the token file once; an hour after each start every call gets 401, its informers
#    stop, its /healthz goes 503 and the kubelet restarts it: a restart an hour, and workspaces stay
#    in Provisioning for most of each hour. The incident says "workspaces".
# =================================================================================================


@scenario("bound-token-expiry-client-reads-token-once")
def bound_token_expiry_client_reads_token_once() -> dict[str, Any]:
    start = -2700
    ns = "workspaces"
    nodes = [
        ("k8s-w-01", "Ready", "192.168.40.21", "402d"),
        ("k8s-w-02", "Ready", "192.168.40.22", "402d"),
        ("k8s-w-03", "Ready", "192.168.40.23", "402d"),
    ]
    op = app(
        "workspace-operator",
        image="harbor.corp.lan/platform/workspace-operator:2.8.4",
        port=8080,
        rs="6d8c5f9b7",
        cluster_ip="10.96.120.31",
        pods=[
            ("k8vzr", "1/1", "Running", "9 (14m ago)", "11d", 0),
            ("q2ndx", "1/1", "Running", "9 (41m ago)", "11d", 2),
        ],
    )
    wa = app(
        "workspace-api",
        image="harbor.corp.lan/platform/workspace-api:5.3.0",
        port=8000,
        rs="7f9b6c8d5",
        cluster_ip="10.96.120.12",
        pods=[
            ("b3mwk", "1/1", "Running", "0", "3h", 0),
            ("t6xqp", "1/1", "Running", "0", "3h", 1),
        ],
    )
    k8s = namespace(ns, nodes, [op, wa], seed=468)
    sig = "Unauthorized! Token may have expired! Please log-in again."
    fail = f"io.fabric8.kubernetes.client.KubernetesClientException: Failure executing: GET at: https://10.96.0.1/apis/platform.corp.lan/v1/namespaces/workspaces/workspaces?resourceVersion=88412931. Message: {sig} Unauthorized."
    log = [
        (
            -4520,
            "2026-12-05 12:44:40.114  INFO 1 --- [           main] c.c.w.WorkspaceOperatorApplication       : Started WorkspaceOperatorApplication in 7.811 seconds (JVM running for 8.602)",
        ),
        (
            -4519,
            "2026-12-05 12:44:41.020  INFO 1 --- [           main] c.c.w.controller.WorkspaceController     : informers synced (workspaces 1184, namespaces 1201), leader=true",
        ),
        (
            -2000,
            "2026-12-05 13:26:40.402  INFO 1 --- [pool-2-thread-4] c.c.w.controller.WorkspaceController     : workspace ws-88124 Ready (namespace ws-88124, quota small)",
        ),
        (
            -919,
            "2026-12-05 13:44:41.877  WARN 1 --- [-1-thread-1] i.f.k.c.d.internal.WatcherWebSocketListener : Exec Failure: HTTP 401, Status: 401 - Unauthorized",
        ),
        (
            -918,
            f"2026-12-05 13:44:42.113 ERROR 1 --- [pool-2-thread-1] c.c.w.controller.WorkspaceController     : reconcile ws-88131 failed\n{fail}\n\tat io.fabric8.kubernetes.client.dsl.base.OperationSupport.requestFailure(OperationSupport.java:589)\n\tat io.fabric8.kubernetes.client.dsl.base.OperationSupport.assertResponseCode(OperationSupport.java:526)\n\tat io.fabric8.kubernetes.client.dsl.base.OperationSupport.handleResponse(OperationSupport.java:492)",
        ),
        (
            -855,
            "2026-12-05 13:45:45.640  WARN 1 --- [       health-1] c.c.w.health.InformerHealthIndicator     : informer workspaces not watching for 78 s -> DOWN",
        ),
    ]
    name = describe_pod(
        k8s,
        ns,
        op,
        "k8vzr",
        nodes,
        state="    State:          Running\n      Started:      Sat, 05 Dec 2026 13:46:02 +0000\n    Last State:     Terminated\n      Reason:       Error\n      Exit Code:    143\n      Started:      Sat, 05 Dec 2026 12:44:40 +0000\n      Finished:     Sat, 05 Dec 2026 13:46:01 +0000",
        started=-950400,
        ready=True,
        restarts=9,
        probes="    Liveness:       http-get http://:8080/actuator/health/liveness delay=30s timeout=3s period=10s #success=1 #failure=6\n    Readiness:      http-get http://:8080/actuator/health/readiness delay=10s timeout=3s period=10s #success=1 #failure=3\n",
        events_rows=[
            (
                "Warning",
                "Unhealthy",
                "15m (x54 over 9h)",
                "kubelet",
                "Liveness probe failed: HTTP probe failed with statuscode: 503",
            ),
            (
                "Normal",
                "Killing",
                "15m (x9 over 9h)",
                "kubelet",
                "Container workspace-operator failed liveness probe, will be restarted",
            ),
            (
                "Normal",
                "Pulled",
                "14m (x10 over 11d)",
                "kubelet",
                'Container image "harbor.corp.lan/platform/workspace-operator:2.8.4" already present on machine',
            ),
        ],
    )
    k8s[f"kubectl logs {name} -n {ns} --previous --tail=1000"] = podlog(log)
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "41m",
                "Normal",
                "Killing",
                f"Pod/{pod_name(op, 'q2ndx')}",
                "Container workspace-operator failed liveness probe, will be restarted",
            ),
            (
                "15m",
                "Warning",
                "Unhealthy",
                f"Pod/{name}",
                "Liveness probe failed: HTTP probe failed with statuscode: 503",
            ),
            (
                "15m",
                "Normal",
                "Killing",
                f"Pod/{name}",
                "Container workspace-operator failed liveness probe, will be restarted",
            ),
        ]
    )
    opods = pods_of(op)
    evs = [
        ev(
            "ansible",
            "info",
            "TASK [kube_control_plane_hardening : kube-apiserver: set --service-account-extend-token-expiration=false (CIS 1.2.x, CHG-7710)] changed: [cp-01] changed: [cp-02] changed: [cp-03]",
            at=-41400,
        ),
        ev(
            "kube-apiserver",
            "error",
            'E1205 authentication.go:73] "Unable to authenticate the request" err="[invalid bearer token, service account token has expired]"',
            **every(-39000, -30, 120),
        ),
        ev("workspace-operator", "error", fail, **every(-37800, -40, 110), pods=opods),
        ev(
            "workspace-operator",
            "warn",
            "Exec Failure: HTTP 401, Status: 401 - Unauthorized",
            **every(-37800, -60, 600),
            pods=opods,
        ),
        ev(
            "workspace-operator",
            "info",
            "Started WorkspaceOperatorApplication in 7.{ms} seconds (JVM running for 8.{ms})",
            **every(-36000, -840, 3600),
            pods=opods,
        ),
        ev(
            "workspace-api",
            "error",
            "workspace ws-{n} still Provisioning after 600 s (no status from operator), returning 504 to portal",
            **every(start + 120, -5, 25),
            pods=pods_of(wa),
        ),
        ev(
            "workspace-api",
            "info",
            "workspace-api 5.3.0 ready (GPU quota presets)",
            at=-10400,
            pods=pods_of(wa),
        ),
        ev(
            "etcd",
            "warn",
            '{"level":"warn","msg":"apply request took too long","took":"212.{ms}ms","expected-duration":"100ms"}',
            **every(-10500, -9900, 90),
        ),
        ev(
            "billing-sync",
            "warn",
            "usage export: {n} rows skipped (cost centre missing)",
            **every(-7000, -100, 900),
        ),
    ]
    return kube_case(
        seed=468,
        start=start,
        inc=incident("New workspaces stuck on Provisioning", "workspaces", start),
        exp=expected(
            "application",
            [
                "deployment/workspace-operator",
                "workspace-operator",
                "fabric8",
                "kubernetes-client 4.13",
                "service-account-extend-token-expiration",
                "kube-apiserver",
                "CHG-7710",
            ],
            sig,
            "Last night's CIS hardening (CHG-7710) set --service-account-extend-token-expiration=false on kube-apiserver, so projected service-account tokens expire after one hour instead of being extended. workspace-operator's fabric8 kubernetes-client 4.13 reads the token file once at start and never reloads it: an hour after each start every API call gets 401 (Unauthorized! Token may have expired!), the informers stop, the liveness check fails and the kubelet restarts the container, which then works for another hour. New workspaces sit in Provisioning for most of each hour. workspace-api's 504s and release, etcd's slow-apply warnings and billing-sync are not the cause.",
            [
                f"workspace-operator: {fail}",
                'kube-apiserver: "Unable to authenticate the request" err="[invalid bearer token, service account token has expired]"',
                "ansible: --service-account-extend-token-expiration=false (CHG-7710)",
            ],
            "Upgrade workspace-operator to a client that reloads the projected token (fabric8 5.x+ / 6.x), and until then restore token extension on kube-apiserver; restart the operator and reconcile pending workspaces.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "workspace-api",
                pods_of(wa),
                [
                    "GET /api/workspaces/{n} 200 {ms}ms",
                    "GET /api/workspaces?owner={n} 200 {ms}ms",
                ],
                8,
            )
        ],
        evs=evs,
        services=[
            svc(
                "workspace-api",
                12,
                {"504": (0.0005, 0.06)},
                (0.07, 0.09),
                change_at=start + 120,
            )
        ],
        gauges=[
            {
                "name": "workspaces_provisioning",
                "labels": {"service": "workspace-api"},
                "before": 2,
                "after": 37,
                "change_at": start + 300,
            }
        ],
        books={
            "workspaces-stuck.md": runbook(
                "Workspaces stuck in Provisioning",
                "Provisioning stalls when the tenant namespace quota template is missing or etcd is slow: check etcd apply latency, then the quota-templates ConfigMap, then restart workspace-api.",
            )
        },
    )


# =================================================================================================
# 5. Infrastructure / node: bare-metal node k8s-bm-04 was re-imaged during this morning's BIOS
#    firmware work with the vendor's default image, whose chrony.conf uses an internet NTP pool the
#    data-centre firewall blocks. Its hardware clock came up 17 minutes behind and chrony cannot
#    correct it. The node is Ready; the pods on it sign every S3 request with a time 17 minutes
#    old and S3 answers RequestTimeTooSkewed. One media-api pod of three fails every upload, and
#    the invoice archiver there fails too. The incident says "photos".
# =================================================================================================

NODES_BM = [
    ("k8s-bm-01", "Ready", "10.20.8.11", "610d"),
    ("k8s-bm-02", "Ready", "10.20.8.12", "610d"),
    ("k8s-bm-03", "Ready", "10.20.8.13", "610d"),
    ("k8s-bm-04", "Ready", "10.20.8.14", "3h"),
    ("k8s-bm-05", "Ready", "10.20.8.15", "610d"),
]


@scenario("bare-metal-node-clock-behind-s3-skew")
def bare_metal_node_clock_behind_s3_skew() -> dict[str, Any]:
    start = -2300
    ns = "media"
    ma = app(
        "media-api",
        image="harbor.dc1.lan/media/media-api:6.2.1",
        port=8080,
        rs="84c7d9b6f",
        cluster_ip="10.96.44.10",
        pods=[
            ("d4kqx", "1/1", "Running", "0", "3h", 3),
            ("m7wzr", "1/1", "Running", "0", "9d", 0),
            ("v2npl", "1/1", "Running", "0", "9d", 4),
        ],
    )
    ia = app(
        "invoice-archiver",
        image="harbor.dc1.lan/finance/invoice-archiver:1.9.0",
        port=8000,
        rs="5f6b8c7d9",
        cluster_ip="10.96.44.30",
        pods=[("h8xrt", "1/1", "Running", "0", "3h", 3)],
    )
    uw = app(
        "upload-web",
        image="harbor.dc1.lan/media/upload-web:2026.12.5",
        port=3000,
        rs="6c9d7f8b5",
        cluster_ip="10.96.44.5",
        pods=[
            ("b9qzm", "1/1", "Running", "0", "2h", 1),
            ("s3kvn", "1/1", "Running", "0", "2h", 2),
        ],
    )
    k8s = namespace(ns, NODES_BM, [ma, ia, uw], seed=469)
    sig = "Can't synchronise: no selectable sources"
    skew = "botocore.exceptions.ClientError: An error occurred (RequestTimeTooSkewed) when calling the PutObject operation: The difference between the request time and the current time is too large."
    bad = pod_name(ma, "d4kqx")
    for i, (name, _, ip, _age) in enumerate(NODES_BM):
        rows = [
            ("media", pod_name(a, p[0]))
            for a in (ma, ia, uw)
            for p in a["pods"]
            if p[5] == i
        ]
        text = node_describe(
            name, ip, pods_rows=rows, capacity=("48", "394849348Ki", "110")
        )
        text = retype_node(
            text,
            "bare-metal",
            -10800 if i == 3 else -52704000,
            f"topology.kubernetes.io/zone=dc1-row{i // 2 + 1}",
        )
        text = text.replace(
            "node.kubernetes.io/instance-type=bare-metal",
            "node.kubernetes.io/instance-type=r650",
        )
        if i == 3:
            text = text.replace(
                "Sat, 05 Dec 2026 13:59:40 +0000", "Sat, 05 Dec 2026 13:42:21 +0000"
            )
        k8s[f"kubectl describe nodes {name}"] = text
    k8s[f"kubectl logs {bad} -n {ns} --tail=1000"] = podlog(
        [
            (
                -600,
                '{"time":"2026-12-05T13:32:41.208Z","level":"ERROR","logger":"media.storage","msg":"upload failed","key":"u/88412/IMG_2231.HEIC","error":"'
                + skew
                + '"}',
            ),
            (
                -300,
                '{"time":"2026-12-05T13:37:40.977Z","level":"ERROR","logger":"media.storage","msg":"upload failed","key":"u/10233/IMG_0045.JPG","error":"'
                + skew
                + '"}',
            ),
            (
                -20,
                '{"time":"2026-12-05T13:42:21.540Z","level":"INFO","logger":"uvicorn.access","msg":"10.66.2.18:51233 - \\"GET /healthz HTTP/1.1\\" 200"}',
            ),
        ]
    )
    k8s[f"kubectl logs {pod_name(ma, 'm7wzr')} -n {ns} --tail=1000"] = podlog(
        [
            (
                -300,
                '{"time":"2026-12-05T13:55:00.412Z","level":"INFO","logger":"media.storage","msg":"stored","key":"u/55120/IMG_7781.JPG","bytes":2841120}',
            ),
            (
                -20,
                '{"time":"2026-12-05T13:59:40.101Z","level":"INFO","logger":"uvicorn.access","msg":"10.66.1.9:40122 - \\"GET /healthz HTTP/1.1\\" 200"}',
            ),
        ]
    )
    evs = [
        ev(
            "ipmi",
            "info",
            "k8s-bm-04: BIOS 1.14.2 -> 1.16.1 applied via iDRAC job JID_338812, host re-imaged with vendor base image r650-rocky9-2026.10 (ticket DCOPS-5120)",
            at=start - 1900,
        ),
        ev(
            "chronyd",
            "warn",
            f"chronyd[1187]: {sig}",
            **every(start - 1500, -60, 300),
            labels={"node": "k8s-bm-04"},
        ),
        ev(
            "chronyd",
            "info",
            "chronyd[1187]: Source 2.rocky.pool.ntp.org offline (no response)",
            **every(start - 1500, -120, 900),
            labels={"node": "k8s-bm-04"},
        ),
        ev(
            "kernel",
            "info",
            "[    0.000000] rtc_cmos 00:01: setting system clock to 2026-12-05T12:33:01 UTC (1796473981)",
            at=start - 1880,
            labels={"node": "k8s-bm-04"},
        ),
        ev("media-api", "error", skew, **every(start, -3, 9), pods=[bad]),
        ev(
            "invoice-archiver",
            "error",
            "archive batch failed: "
            + skew.replace("PutObject", "CreateMultipartUpload"),
            **every(start + 60, -30, 120),
            pods=pods_of(ia),
        ),
        ev(
            "upload-web",
            "error",
            "POST /api/photos -> media-api 502: storage error (request {n})",
            **every(start + 10, -2, 6),
            pods=pods_of(uw),
        ),
        ev(
            "upload-web",
            "info",
            "upload-web 2026.12.5 deployed (HEIC preview)",
            at=-5400,
            pods=pods_of(uw),
        ),
        ev(
            "thumbnailer",
            "warn",
            "libvips: unsupported colour profile in {n}.heic, falling back to sRGB",
            **every(-7000, -40, 300),
        ),
        ev(
            "media-api",
            "error",
            "botocore.exceptions.ClientError: An error occurred (SlowDown) when calling the PutObject operation: Please reduce your request rate.",
            **every(-10300, -9900, 45),
            pods=[pod_name(ma, "m7wzr"), pod_name(ma, "v2npl")],
        ),
    ]
    return kube_case(
        seed=469,
        start=start,
        inc=incident(
            "Photo uploads failing for some users",
            "photos",
            start,
            ["about a third of uploads fail"],
        ),
        exp=expected(
            "platform",
            [
                "node/k8s-bm-04",
                "k8s-bm-04",
                "chrony",
                "chronyd",
                "ntp",
                "clock",
                "DCOPS-5120",
            ],
            sig,
            "Node k8s-bm-04 was re-imaged during this morning's BIOS update (DCOPS-5120) with a vendor image whose chrony uses an internet NTP pool the data-centre firewall blocks; its hardware clock started 17 minutes behind and chrony cannot correct it (no selectable sources). The node stays Ready, but every pod on it signs S3 requests with a stale time and S3 answers RequestTimeTooSkewed: the media-api replica there fails every upload (about a third of them) and invoice-archiver fails too. upload-web's 502s and release, the thumbnailer's warnings and the old S3 SlowDown errors are not the cause.",
            [
                f"chronyd on k8s-bm-04: {sig}",
                f"media-api {bad} (only this replica): RequestTimeTooSkewed",
                "ipmi: k8s-bm-04 re-imaged with vendor base image (DCOPS-5120)",
            ],
            "Point k8s-bm-04's chrony at the data-centre NTP servers (or cordon and drain it), step the clock (chronyc makestep), then uncordon; fix the vendor image used for re-imaging.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "media-api",
                [pod_name(ma, "m7wzr"), pod_name(ma, "v2npl")],
                ["PUT /v1/photos/{n} 201 {ms}ms", "GET /v1/photos/{n} 200 {ms}ms"],
                8,
            )
        ],
        evs=evs,
        services=[
            svc("media-api", 25, {"502": (0.0005, 0.33)}, (0.2, 0.2)),
            svc("upload-web", 22, {"502": (0.0005, 0.32)}, (0.3, 0.3)),
        ],
        gauges=[],
        books={
            "s3-errors.md": runbook(
                "Uploads failing with S3 errors",
                "S3 client errors on upload usually mean the media IAM access key was rotated: check the secret media-s3-credentials against Vault and restart media-api.",
            )
        },
    )


# =================================================================================================
# 6. Service routing: catalog-api 9.0.0's chart turned on in-pod TLS (cert-manager certificate,
#    container port 8443 named https, Service port 443). Internal callers use https:// and work. The
#    public Ingress (ingress-nginx) was updated to port 443 by the same chart but has no
#    `backend-protocol: HTTPS` annotation: nginx sends plain HTTP to a TLS port, the Go server
#    answers 400 and logs a TLS handshake error. Product pages that load through /api/catalog on the
#    public host fail. The incident says "product pages".
# =================================================================================================


@scenario("ingress-plain-http-to-tls-backend")
def ingress_plain_http_to_tls_backend() -> dict[str, Any]:
    start = -1700
    ns = "storefront"
    ca = app(
        "catalog-api",
        image="registry.gitlab.com/lumenhouse/catalog-api:9.0.0",
        port=8443,
        rs="58d7c9f6b",
        cluster_ip="10.43.12.77",
        service_port="443/TCP",
        pods=[
            ("c6vkz", "1/1", "Running", "0", "31m", 0),
            ("j2xqw", "1/1", "Running", "0", "31m", 1),
            ("r9hnd", "1/1", "Running", "0", "30m", 2),
        ],
    )
    sw = app(
        "storefront-web",
        image="registry.gitlab.com/lumenhouse/storefront-web:2026.12.5",
        port=3000,
        rs="7b6c8f9d5",
        cluster_ip="10.43.12.20",
        pods=[
            ("f7mxs", "1/1", "Running", "0", "2h", 0),
            ("n4qzk", "1/1", "Running", "0", "2h", 2),
        ],
    )
    co = app(
        "checkout",
        image="registry.gitlab.com/lumenhouse/checkout:3.7.2",
        port=8080,
        rs="6f8d9c7b5",
        cluster_ip="10.43.12.40",
        pods=[("h5lwt", "1/1", "Running", "0", "5d", 1)],
    )
    k8s = namespace(ns, NODES_FRA, [ca, sw, co], seed=470)
    sig = "tls: first record does not look like a TLS handshake"
    k8s[f"kubectl get ingresses -n {ns}"] = table(
        [
            ["NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"],
            [
                "shop",
                "nginx",
                "shop.lumenhouse.example",
                "k8s-ingressn-ingressn-5e0f7c1d2a-3b8c9d0e1f2a3b4c.elb.eu-central-1.amazonaws.com",
                "80, 443",
                "2y",
            ],
        ]
    )
    k8s[f"kubectl describe ingresses shop -n {ns}"] = describe_block(
        f"Name:             shop\nLabels:           app.kubernetes.io/managed-by=Helm\nNamespace:        {ns}\n"
        "Address:          k8s-ingressn-ingressn-5e0f7c1d2a-3b8c9d0e1f2a3b4c.elb.eu-central-1.amazonaws.com\n"
        "Ingress Class:    nginx\nDefault backend:  <default>\nTLS:\n  shop-lumenhouse-tls terminates shop.lumenhouse.example\nRules:\n"
        "  Host                     Path  Backends\n  ----                     ----  --------\n"
        "  shop.lumenhouse.example  \n"
        f"                           /api/catalog   catalog-api:443 ({ca and '10.70.1.35:8443,10.70.2.151:8443,10.70.3.98:8443'})\n"
        "                           /              storefront-web:3000 (10.70.1.120:3000,10.70.3.44:3000)\n"
        "Annotations:              cert-manager.io/cluster-issuer: letsencrypt-prod\n"
        "                          meta.helm.sh/release-name: catalog-api\n"
        "                          nginx.ingress.kubernetes.io/proxy-body-size: 2m\n"
        "                          nginx.ingress.kubernetes.io/proxy-read-timeout: 30\n",
        [
            (
                "Normal",
                "Sync",
                "31m (x3 over 2y)",
                "nginx-ingress-controller",
                "Scheduled for sync",
            )
        ],
    )
    k8s[f"kubectl describe services catalog-api -n {ns}"] = (
        f"Name:                     catalog-api\nNamespace:                {ns}\nLabels:                   app=catalog-api\n"
        "Annotations:              meta.helm.sh/release-name: catalog-api\nSelector:                 app=catalog-api\nType:                     ClusterIP\n"
        "IP Family Policy:         SingleStack\nIP Families:              IPv4\nIP:                       10.43.12.77\nIPs:                      10.43.12.77\n"
        "Port:                     https  443/TCP\nTargetPort:               https/TCP\nEndpoints:                10.70.1.35:8443,10.70.2.151:8443,10.70.3.98:8443\n"
        "Session Affinity:         None\nInternal Traffic Policy:  Cluster\nEvents:                   <none>\n"
    )
    ips = [
        r.split()[5]
        for r in k8s[f"kubectl get pods -n {ns} -o wide --show-labels"].splitlines()[1:]
        if r.startswith("catalog-api")
    ]
    fixed = ",".join(f"{ip}:8443" for ip in ips)
    for key in (
        f"kubectl describe ingresses shop -n {ns}",
        f"kubectl describe services catalog-api -n {ns}",
    ):
        k8s[key] = k8s[key].replace(
            "10.70.1.35:8443,10.70.2.151:8443,10.70.3.98:8443", fixed
        )
    sw_ips = [
        r.split()[5]
        for r in k8s[f"kubectl get pods -n {ns} -o wide --show-labels"].splitlines()[1:]
        if r.startswith("storefront-web")
    ]
    k8s[f"kubectl describe ingresses shop -n {ns}"] = k8s[
        f"kubectl describe ingresses shop -n {ns}"
    ].replace(
        "10.70.1.120:3000,10.70.3.44:3000", ",".join(f"{ip}:3000" for ip in sw_ips)
    )
    cont = container_text(
        "catalog-api",
        ca["image"],
        8443,
        env={
            "TLS_CERT_FILE": "/tls/tls.crt",
            "TLS_KEY_FILE": "/tls/tls.key",
            "DATABASE_URL": "postgres://catalog@catalog-pg:5432/catalog",
        },
    ).replace("8443/TCP (http)", "8443/TCP (https)")
    k8s[f"kubectl describe deployments catalog-api -n {ns}"] = deployment_describe(
        "catalog-api",
        ns,
        replicas="3 desired | 3 updated | 3 total | 3 available | 0 unavailable",
        revision=88,
        containers=cont,
        conditions=[
            ("Available", "True", "MinimumReplicasAvailable"),
            ("Progressing", "True", "NewReplicaSetAvailable"),
        ],
        old_rs="catalog-api-7c9b5d8f6 (0/0 replicas created)",
        new_rs=f"catalog-api-{ca['rs']} (3/3 replicas created)",
    )
    ing = ips[0]
    evs = [
        ev(
            "gitlab-ci",
            "info",
            "pipeline 40211 catalog-api 9.0.0: helm upgrade ok (values: server.tls.enabled=true via cert-manager Certificate catalog-api-tls, service port 80 -> 443 / targetPort https, ingress.servicePort 443)",
            at=start - 200,
        ),
        ev(
            "catalog-api",
            "warn",
            "http: TLS handshake error from 10.70.{oct}.{oct}:{port}: " + sig,
            **every(start, -1, 6),
            pods=pods_of(ca),
        ),
        ev(
            "ingress-nginx",
            "info",
            '203.0.113.{oct} - - [{clf}] "GET /api/catalog/v3/products/{n} HTTP/2.0" 400 48 "https://shop.lumenhouse.example/p/{n}" "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X)" 71 0.002 [storefront-catalog-api-443] [] '
            + f"{ing}:8443 48 0.002 400 "
            + "{n}a9c1f",
            **every(start, -1, 8),
        ),
        ev(
            "storefront-web",
            "error",
            'catalog request failed: GET https://shop.lumenhouse.example/api/catalog/v3/products/{n} -> 400 "Client sent an HTTP request to an HTTPS server."',
            **every(start + 30, -2, 7),
            pods=pods_of(sw),
        ),
        ev(
            "storefront-web",
            "info",
            "storefront-web 2026.12.5 deployed (gift wrap option)",
            at=-4500,
            pods=pods_of(sw),
        ),
        ev(
            "checkout",
            "info",
            "GET https://catalog-api.storefront.svc/api/catalog/v3/prices?ids={n} 200 {ms}ms",
            **every(-3600, -10, 60),
            pods=pods_of(co),
        ),
        ev(
            "recommendations",
            "warn",
            "similar-items model stale ({n} s), serving popular items",
            **every(-7000, -20, 300),
        ),
        ev(
            "catalog-api",
            "error",
            "pgx: failed to acquire connection: context deadline exceeded (pool catalog max_conns=20)",
            **every(-10200, -9800, 40),
            pods=pods_of(ca),
        ),
    ]
    return kube_case(
        seed=470,
        start=start,
        inc=incident("Product pages broken", "product pages", start),
        exp=expected(
            "connect",
            [
                "ingress/shop",
                "shop",
                "backend-protocol",
                "service/catalog-api",
                "catalog-api",
                "catalog-api 9.0.0",
            ],
            sig,
            "catalog-api 9.0.0 serves TLS inside the pod (port 8443 named https, Service port 443), and its chart pointed the public Ingress shop at port 443 without nginx.ingress.kubernetes.io/backend-protocol: HTTPS. ingress-nginx therefore speaks plain HTTP to a TLS port: the Go server logs a TLS handshake error and answers 400 (Client sent an HTTP request to an HTTPS server), so every /api/catalog request from the public host fails and product pages break. Internal callers (checkout) use https:// and work. storefront-web's errors and release, the recommendations warnings and the old pgx pool timeouts are not the cause.",
            [
                f"catalog-api: http: TLS handshake error ...: {sig}",
                "ingress-nginx: [storefront-catalog-api-443] ... 400 upstream 400",
                "Ingress shop: /api/catalog -> catalog-api:443, no backend-protocol annotation",
            ],
            "Add nginx.ingress.kubernetes.io/backend-protocol: HTTPS (and proxy-ssl-verify with the cert-manager CA) to the Ingress shop, or roll catalog-api's chart back to plain HTTP behind the ingress.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "storefront-web",
                pods_of(sw),
                [
                    "GET / 200 {ms}ms",
                    "GET /c/lamps 200 {ms}ms",
                    "GET /static/app.{n}.js 200 {ms}ms",
                ],
                8,
            )
        ],
        evs=evs,
        services=[
            svc("storefront-web", 70, {"500": (0.0005, 0.35)}, (0.12, 0.12)),
            svc("catalog-api", 60, {"400": (0.001, 0.62)}, (0.02, 0.002)),
        ],
        gauges=[],
        books={
            "product-pages.md": runbook(
                "Product pages failing",
                "Product page errors mostly come from the catalog database: check catalog-pg replication lag and connection count, and fail over to the replica if the primary is saturated.",
            )
        },
    )


# =================================================================================================
# 7. DNS: CoreDNS runs from a self-managed Helm release whose values override the add-on's pod
#    anti-affinity with `affinity: {}`. A Karpenter consolidation this afternoon put both CoreDNS
#    replicas on one node, so all of the cluster's forwarded queries leave through one ENI to the
#    VPC resolver, which allows 1024 packets per second per ENI to link-local services. At the
#    afternoon peak the allowance is exceeded; forwarded lookups time out and payments-api's calls
#    to the card processor fail intermittently. The incident says "payments".
# =================================================================================================


@scenario("coredns-replicas-one-node-linklocal-allowance")
def coredns_replicas_one_node_linklocal_allowance() -> dict[str, Any]:
    start = -1400
    ns = "payments"
    nodes = [(*n, "12d") for n in NODES_IAD] + [
        ("ip-10-61-2-77.us-east-1.compute.internal", "Ready", "10.61.2.77", "3h")
    ]
    hot = nodes[3][0]
    pa = app(
        "payments-api",
        image="604211873390.dkr.ecr.us-east-1.amazonaws.com/payments/payments-api:22.3.1",
        port=8080,
        rs="7c8f6d9b5",
        cluster_ip="172.20.40.11",
        pods=[
            ("d2kzn", "1/1", "Running", "0", "4h", 0),
            ("k7vqx", "1/1", "Running", "0", "4h", 1),
            ("t4mwr", "1/1", "Running", "0", "4h", 2),
        ],
    )
    ld = app(
        "ledger",
        image="604211873390.dkr.ecr.us-east-1.amazonaws.com/payments/ledger:9.1.0",
        port=8080,
        rs="5d9c7b8f6",
        cluster_ip="172.20.40.25",
        pods=[
            ("h6pqs", "1/1", "Running", "0", "9d", 0),
            ("x3ncl", "1/1", "Running", "0", "9d", 3),
        ],
    )
    k8s = namespace(ns, nodes, [pa, ld], seed=471)
    cd = app(
        "coredns",
        image="registry.k8s.io/coredns/coredns:v1.11.3",
        port=53,
        rs="6b9d8c7f5",
        cluster_ip="172.20.0.10",
        service=False,
        labels="k8s-app=kube-dns",
        pods=[
            ("mq4zt", "1/1", "Running", "0", "3h", 3),
            ("w9lkx", "1/1", "Running", "0", "2h", 3),
        ],
    )
    ks = namespace("kube-system", nodes, [cd], seed=471)
    k8s.update(only_ns(ks, "kube-system"))
    k8s["kubectl get services -n kube-system -o wide"] = table(
        [
            ["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE", "SELECTOR"],
            [
                "kube-dns",
                "ClusterIP",
                "172.20.0.10",
                "<none>",
                "53/UDP,53/TCP,9153/TCP",
                "2y",
                "k8s-app=kube-dns",
            ],
        ]
    )
    cips = [
        r.split()[5]
        for r in k8s[
            "kubectl get pods -n kube-system -o wide --show-labels"
        ].splitlines()[1:]
    ]
    k8s["kubectl get endpoints -n kube-system"] = table(
        [
            ["NAME", "ENDPOINTS", "AGE"],
            ["kube-dns", f"{cips[0]}:53,{cips[1]}:53,{cips[0]}:53 + 3 more...", "2y"],
        ]
    )
    cont = container_text(
        "coredns",
        cd["image"],
        53,
        limits="memory:  170Mi",
        requests="cpu:      100m\n  memory:   70Mi",
    ).replace("53/TCP (http)", "53/UDP (dns)")
    k8s["kubectl describe deployments coredns -n kube-system"] = deployment_describe(
        "coredns",
        "kube-system",
        replicas="2 desired | 2 updated | 2 total | 2 available | 0 unavailable",
        revision=14,
        containers=cont,
        conditions=[
            ("Available", "True", "MinimumReplicasAvailable"),
            ("Progressing", "True", "NewReplicaSetAvailable"),
        ],
        old_rs="coredns-5f8c9b7d6 (0/0 replicas created)",
        new_rs="coredns-6b9d8c7f5 (2/2 replicas created)",
        labels="app.kubernetes.io/instance=coredns\n                        app.kubernetes.io/managed-by=Helm\n                        helm.sh/chart=coredns-1.36.1\n                        k8s-app=kube-dns",
    )
    k8s["kubectl describe configmaps coredns -n kube-system"] = (
        "Name:         coredns\nNamespace:    kube-system\nLabels:       app.kubernetes.io/managed-by=Helm\n\nData\n====\nCorefile:\n----\n"
        ".:53 {\n    errors\n    health {\n        lameduck 5s\n    }\n    ready\n    kubernetes cluster.local in-addr.arpa ip6.arpa {\n        pods insecure\n        fallthrough in-addr.arpa ip6.arpa\n    }\n"
        "    prometheus :9153\n    forward . /etc/resolv.conf\n    cache 30\n    loop\n    reload\n    loadbalance\n    import custom/*.override\n}\nimport custom/*.server\n\n\nBinaryData\n====\n\nEvents:  <none>\n"
    )
    k8s["kubectl events -n kube-system"] = events(
        [
            (
                "3h",
                "Normal",
                "Killing",
                "Pod/coredns-6b9d8c7f5-4hfxv",
                "Stopping container coredns",
            ),
            (
                "3h",
                "Normal",
                "Scheduled",
                "Pod/coredns-6b9d8c7f5-mq4zt",
                f"Successfully assigned kube-system/coredns-6b9d8c7f5-mq4zt to {hot}",
            ),
            (
                "2h",
                "Normal",
                "Killing",
                "Pod/coredns-6b9d8c7f5-8rn2c",
                "Stopping container coredns",
            ),
            (
                "2h",
                "Normal",
                "Scheduled",
                "Pod/coredns-6b9d8c7f5-w9lkx",
                f"Successfully assigned kube-system/coredns-6b9d8c7f5-w9lkx to {hot}",
            ),
        ]
    )
    sig = "linklocal_allowance_exceeded"
    ppods = pods_of(pa)
    evs = [
        ev(
            "argocd",
            "info",
            "app coredns synced (helm chart coredns 1.36.1, values: replicaCount 2, affinity: {}, autoscaler disabled) - revision a81f2c0",
            at=-26000,
        ),
        ev(
            "karpenter",
            "info",
            '{"level":"INFO","logger":"controller","message":"disrupting node(s)","controller":"disruption","reason":"underutilized","decision":"delete","disrupted-node-count":1,"pod-count":11,"disrupted-nodes":[{"Node":{"name":"ip-10-61-3-58.us-east-1.compute.internal"}}]}',
            at=-10900,
        ),
        ev(
            "karpenter",
            "info",
            '{"level":"INFO","logger":"controller","message":"disrupting node(s)","controller":"disruption","reason":"underutilized","decision":"delete","disrupted-node-count":1,"pod-count":8,"disrupted-nodes":[{"Node":{"name":"ip-10-61-1-140.us-east-1.compute.internal"}}]}',
            at=-7300,
        ),
        ev(
            "ena-stats",
            "warn",
            f"eth0: {sig} +{'{n}'} in 60s (total {'{n}'}), pps_allowance_exceeded 0, conntrack_allowance_exceeded 0",
            **every(start - 200, -30, 60),
            labels={"node": hot},
        ),
        ev(
            "coredns",
            "error",
            f"[ERROR] plugin/errors: 2 api.cardproc.example. A: read udp {cips[0]}:{{port}}->10.61.0.2:53: i/o timeout",
            **every(start, -2, 12),
            pods=[f"coredns-6b9d8c7f5-{s}" for s in ("mq4zt", "w9lkx")],
        ),
        ev(
            "coredns",
            "error",
            f"[ERROR] plugin/errors: 2 sqs.us-east-1.amazonaws.com. AAAA: read udp {cips[0]}:{{port}}->10.61.0.2:53: i/o timeout",
            **every(start + 7, -4, 15),
            pods=[f"coredns-6b9d8c7f5-{s}" for s in ("mq4zt", "w9lkx")],
        ),
        ev(
            "coredns",
            "warn",
            "[WARNING] No files matching import glob pattern: custom/*.override",
            **every(-7100, -20, 300),
            pods=[f"coredns-6b9d8c7f5-{s}" for s in ("mq4zt", "w9lkx")],
        ),
        ev(
            "payments-api",
            "error",
            '{"level":"error","ts":"{iso}","msg":"authorize failed","psp":"cardproc","err":"Post \\"https://api.cardproc.example/v2/authorizations\\": dial tcp: lookup api.cardproc.example on 172.20.0.10:53: read udp 10.71.{oct}.{oct}:{port}->172.20.0.10:53: i/o timeout"}',
            **every(start + 20, -1, 8),
            pods=ppods,
        ),
        ev(
            "ledger",
            "warn",
            "sqs receive failed, retrying: operation error SQS: ReceiveMessage, https response error StatusCode: 0, exceeded maximum number of attempts, 3, lookup sqs.us-east-1.amazonaws.com: i/o timeout",
            **every(start + 60, -10, 40),
            pods=pods_of(ld),
        ),
        ev(
            "payments-api",
            "info",
            "payments-api 22.3.1 started (3DS exemption flags)",
            at=-14400,
            pods=ppods,
        ),
        ev(
            "payments-api",
            "error",
            '{"level":"error","msg":"authorize failed","psp":"cardproc","err":"cardproc 503: SERVFAIL upstream maintenance"}',
            **every(-10000, -9700, 30),
            pods=ppods,
        ),
    ]
    return kube_case(
        seed=471,
        start=start,
        inc=incident("Payments failing on and off", "payments", start),
        exp=expected(
            "dns",
            [
                "deployment/coredns",
                "coredns",
                f"node/{hot}",
                hot,
                sig,
                "affinity: {}",
                "vpc resolver",
            ],
            sig,
            "The CoreDNS Helm values override the pod anti-affinity with affinity: {}, and this afternoon's Karpenter consolidations put both replicas on one node. Every forwarded query in the cluster now leaves through that node's ENI to the VPC resolver (10.61.0.2), which accepts 1024 packets per second per ENI; at the afternoon peak the link-local allowance is exceeded (linklocal_allowance_exceeded climbs), forwarded lookups time out, and payments-api cannot resolve the card processor intermittently (ledger's SQS lookups too). payments-api's errors and release, the import-glob warning and the old cardproc SERVFAIL are not the cause; the consolidation is the trigger.",
            [
                f"ena-stats on {hot}: eth0 {sig} climbing",
                "kube-system: both coredns pods on " + hot,
                "coredns: read udp ...->10.61.0.2:53: i/o timeout",
            ],
            "Spread CoreDNS (restore the anti-affinity / topology spread, delete one pod so it lands elsewhere), then add NodeLocal DNSCache or more replicas so no single ENI carries the cluster's lookups.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "payments-api",
                ppods,
                [
                    "POST /v1/authorizations 201 {ms}ms",
                    "POST /v1/captures 200 {ms}ms",
                    "GET /v1/payments/{n} 200 {ms}ms",
                ],
                8,
            )
        ],
        evs=evs,
        services=[
            svc(
                "payments-api",
                80,
                {"502": (0.0005, 0.12)},
                (0.18, 0.9),
                change_at=start + 20,
            ),
            svc("ledger", 30, {"500": (0.0003, 0.0004)}, (0.04, 0.05)),
        ],
        gauges=[
            {
                "name": "node_net_ethtool_linklocal_allowance_exceeded_rate",
                "labels": {"node": hot, "device": "eth0"},
                "before": 0,
                "after": 2200,
                "change_at": start - 200,
            },
            {
                "name": "coredns_forward_requests_total_rate",
                "labels": {"to": "10.61.0.2:53"},
                "before": 640,
                "after": 1350,
                "change_at": start - 600,
            },
        ],
        books={
            "payments-failing.md": runbook(
                "Payment authorisations failing",
                "Intermittent authorisation failures are usually the card processor: check status.cardproc.example and, if degraded, switch the PSP routing flag to the backup acquirer.",
            )
        },
    )


# =================================================================================================
# 8. Network policy: the edge team enabled client IP preservation on public-api's NLB (annotation
#    `aws-load-balancer-target-group-attributes: preserve_client_ip.enabled=true`, IP targets) so
#    its new per-client rate limiter sees real addresses. public-api's NetworkPolicy admits 8443
#    only from the VPC CIDR. The NLB's health checks come from its private addresses and pass, but
#    real clients now arrive with their internet addresses and are dropped at the pod. Partners on
#    the VPN (10.x) still work. The incident says "mobile app".
# =================================================================================================


@scenario("nlb-client-ip-preservation-vs-vpc-only-netpol")
def nlb_client_ip_preservation_vs_vpc_only_netpol() -> dict[str, Any]:
    start = -1300
    ns = "edge"
    nodes = [
        ("ip-10-40-1-36.ap-southeast-1.compute.internal", "Ready", "10.40.1.36", "33d"),
        (
            "ip-10-40-2-149.ap-southeast-1.compute.internal",
            "Ready",
            "10.40.2.149",
            "33d",
        ),
        ("ip-10-40-3-88.ap-southeast-1.compute.internal", "Ready", "10.40.3.88", "33d"),
    ]
    pa = app(
        "public-api",
        image="ghcr.io/kitepay/public-api:11.4.2",
        port=8443,
        rs="6c7d9b8f5",
        cluster_ip="10.100.7.40",
        service_port="443:31877/TCP",
        pods=[
            ("b5nqx", "1/1", "Running", "0", "3h", 0),
            ("l2wzk", "1/1", "Running", "0", "3h", 1),
            ("v8rmt", "1/1", "Running", "0", "3h", 2),
        ],
    )
    ps = app(
        "partner-sync",
        image="ghcr.io/kitepay/partner-sync:2.2.0",
        port=8080,
        rs="5b8c6d7f9",
        cluster_ip="10.100.7.61",
        pods=[("q4hxd", "1/1", "Running", "0", "20d", 1)],
    )
    k8s = namespace(ns, nodes, [pa, ps], seed=472)
    rows = [
        r.split() for r in k8s[f"kubectl get services -n {ns} -o wide"].splitlines()
    ]
    for r in rows:
        if r[0] == "public-api":
            r[1] = "LoadBalancer"
            r[3] = (
                "k8s-edge-publicap-2f9e1c7a4b-8d3c1e5f7a9b0c2d.elb.ap-southeast-1.amazonaws.com"
            )
    k8s[f"kubectl get services -n {ns} -o wide"] = table(rows)
    k8s[f"kubectl get networkpolicies -n {ns}"] = table(
        [
            ["NAME", "POD-SELECTOR", "AGE"],
            ["default-deny", "<none>", "1y"],
            ["public-api-ingress", "app=public-api", "1y"],
            ["partner-sync-egress", "app=partner-sync", "1y"],
        ]
    )
    k8s[f"kubectl describe networkpolicies public-api-ingress -n {ns}"] = (
        f"Name:         public-api-ingress\nNamespace:    {ns}\nCreated on:   2025-11-20 09:14:02 +0000 UTC\nLabels:       app.kubernetes.io/part-of=edge\n"
        "Annotations:  <none>\nSpec:\n  PodSelector:     app=public-api\n  Allowing ingress traffic:\n    To Port: 8443/TCP\n    From:\n"
        "      IPBlock:\n        CIDR: 10.40.0.0/16\n        Except: \n    From:\n      NamespaceSelector: kubernetes.io/metadata.name=monitoring\n"
        "  Not affecting egress traffic\n  Policy Types: Ingress\n"
    )
    k8s[f"kubectl describe services public-api -n {ns}"] = (
        f"Name:                     public-api\nNamespace:                {ns}\nLabels:                   app=public-api\n"
        "Annotations:              service.beta.kubernetes.io/aws-load-balancer-nlb-target-type: ip\n"
        "                          service.beta.kubernetes.io/aws-load-balancer-scheme: internet-facing\n"
        "                          service.beta.kubernetes.io/aws-load-balancer-ssl-cert: arn:aws:acm:ap-southeast-1:552104938271:certificate/7b1e2c3d-4f5a-46b7-8c9d-0e1f2a3b4c5d\n"
        "                          service.beta.kubernetes.io/aws-load-balancer-ssl-ports: 443\n"
        "                          service.beta.kubernetes.io/aws-load-balancer-target-group-attributes: preserve_client_ip.enabled=true\n"
        "                          service.beta.kubernetes.io/aws-load-balancer-type: external\n"
        "Selector:                 app=public-api\nType:                     LoadBalancer\nIP Family Policy:         SingleStack\nIP Families:              IPv4\n"
        "IP:                       10.100.7.40\nIPs:                      10.100.7.40\n"
        "LoadBalancer Ingress:     k8s-edge-publicap-2f9e1c7a4b-8d3c1e5f7a9b0c2d.elb.ap-southeast-1.amazonaws.com\n"
        "Port:                     https  443/TCP\nTargetPort:               8443/TCP\nNodePort:                 https  31877/TCP\n"
        "Endpoints:                EPS\nSession Affinity:         None\nExternal Traffic Policy:  Cluster\nInternal Traffic Policy:  Cluster\n"
        "Events:\n  Type    Reason                  Age   From     Message\n  ----    ------                  ----  ----     -------\n"
        "  Normal  SuccessfullyReconciled  22m   service  Successfully reconciled\n"
    )
    ips = [
        r.split()[5]
        for r in k8s[f"kubectl get pods -n {ns} -o wide --show-labels"].splitlines()[1:]
        if r.startswith("public-api")
    ]
    k8s[f"kubectl describe services public-api -n {ns}"] = k8s[
        f"kubectl describe services public-api -n {ns}"
    ].replace("EPS", ",".join(f"{ip}:8443" for ip in ips))
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "22m",
                "Normal",
                "SuccessfullyReconciled",
                "Service/public-api",
                "Successfully reconciled",
            )
        ]
    )
    sig = '"Verdict":"DENY"'
    evs = [
        ev(
            "argocd",
            "info",
            "app edge-public-api synced (PR edge#318: NLB target group attributes preserve_client_ip.enabled=true so the per-client rate limiter sees real IPs)",
            at=start - 90,
        ),
        ev(
            "aws-load-balancer-controller",
            "info",
            '{"level":"info","ts":"2026-12-05T13:38:12Z","logger":"controllers.service","msg":"modifying targetGroup attributes","arn":"arn:aws:elasticloadbalancing:ap-southeast-1:552104938271:targetgroup/k8s-edge-publicap-1c2d3e4f5a/7a8b9c0d1e2f3a4b","change":{"preserve_client_ip.enabled":"true"}}',
            at=start - 60,
        ),
        ev(
            "aws-network-policy-agent",
            "info",
            '{"level":"info","ts":"{iso}","logger":"ebpf-client","caller":"events/events.go:193","msg":"Flow Info: ","Src IP":"'
            + "{pub}"
            + '","Src Port":{port},"Dest IP":"'
            + ips[0]
            + '","Dest Port":8443,"Proto":"TCP","Verdict":"DENY"}',
            **every(start, -1, 6),
            labels={"node": nodes[0][0]},
        ),
        ev(
            "aws-network-policy-agent",
            "info",
            '{"level":"info","ts":"{iso}","logger":"ebpf-client","caller":"events/events.go:193","msg":"Flow Info: ","Src IP":"10.40.{oct}.{oct}","Src Port":{port},"Dest IP":"'
            + ips[1]
            + '","Dest Port":8443,"Proto":"TCP","Verdict":"ACCEPT"}',
            **every(-3600, -5, 30),
            labels={"node": nodes[1][0]},
        ),
        ev(
            "synthetics",
            "error",
            'check "api-login" from ap-southeast-1 and eu-west-1 FAILED: connect ETIMEDOUT api.kitepay.example:443 after 10000 ms',
            **every(start + 60, -30, 60),
        ),
        ev(
            "cloudwatch",
            "warn",
            "ALARM: NLB k8s-edge-publicap ProcessedBytes dropped 94% vs last week; HealthyHostCount 3, UnHealthyHostCount 0, TCP_Target_Reset_Count 0",
            at=start + 600,
        ),
        ev(
            "public-api",
            "info",
            "public-api 11.4.2 started (per-client rate limiter, bucket 120/min keyed by client IP)",
            at=-10500,
            pods=pods_of(pa),
        ),
        ev(
            "partner-sync",
            "info",
            "POST https://api.kitepay.example/v3/settlements 200 {ms}ms (via VPN, 10.40.250.{ms})",
            **every(-3600, -30, 120),
            pods=pods_of(ps),
        ),
        ev(
            "public-api",
            "error",
            "redis ratelimit store: dial tcp 10.40.9.31:6379: i/o timeout",
            **every(-10200, -9800, 45),
            pods=pods_of(pa),
        ),
        ev(
            "push-notifier",
            "warn",
            "APNs 410 Unregistered for {n} device tokens, pruning",
            **every(-7000, -50, 400),
        ),
    ]
    return kube_case(
        seed=472,
        start=start,
        inc=incident(
            "Mobile app can't connect",
            "mobile app",
            start,
            ["spinner forever, then 'check your connection'"],
        ),
        exp=expected(
            "connect",
            [
                "networkpolicy/public-api-ingress",
                "public-api-ingress",
                "preserve_client_ip",
                "service/public-api",
                "10.40.0.0/16",
                "edge#318",
            ],
            sig,
            "public-api's NetworkPolicy public-api-ingress admits port 8443 only from the VPC CIDR 10.40.0.0/16 (and monitoring). Until today the NLB (IP targets) connected from its own private addresses; PR edge#318 enabled preserve_client_ip so the new rate limiter sees real client IPs, and now internet clients arrive with their public addresses and the network policy agent drops them (Verdict DENY). The NLB's health checks still come from inside the VPC and pass, and partners on the VPN still work, so only the public path (the mobile app, synthetics) times out. The synthetic check failures, public-api's release, the old Redis timeouts and the APNs pruning are not the cause.",
            [
                'aws-network-policy-agent: Flow Info: Src IP <public>, Dest Port 8443, "Verdict":"DENY"',
                "NetworkPolicy public-api-ingress: from IPBlock 10.40.0.0/16 only",
                "Service public-api: preserve_client_ip.enabled=true (edge#318)",
            ],
            "Turn preserve_client_ip off again (use proxy protocol v2 for client IPs), or allow 0.0.0.0/0 on 8443 in public-api-ingress for the NLB path; then confirm synthetics recover.",
        ),
        k8s=k8s,
        bgs=[bg("public-api", pods_of(pa), ["GET /healthz 200 {ms}ms"], 10)],
        evs=evs,
        services=[
            svc(
                "public-api",
                140,
                {"500": (0.0005, 0.0005)},
                (0.05, 0.05),
                rps_after=6,
                change_at=start,
            )
        ],
        gauges=[
            {
                "name": "aws_nlb_healthy_host_count",
                "labels": {"load_balancer": "k8s-edge-publicap"},
                "before": 3,
                "after": 3,
                "change_at": start,
            }
        ],
        books={
            "mobile-cannot-connect.md": runbook(
                "Mobile app cannot connect",
                "Connection failures from the app are usually the TLS certificate on the NLB listener: check the ACM certificate's expiry and the listener's security policy, and re-import if needed.",
            )
        },
    )


# =================================================================================================
# 9. Third party rate-limits us: crm-sync 1.0.0 (deployed yesterday) mirrors CRM segments into Okta
#    custom attributes with a full pass over /api/v1/users every ten minutes. Okta's rate limit on
#    /api/v1/users is per org; account-service calls GET /api/v1/users/{login} on every sign-in to
#    read the loyalty attributes. At each pass the org's bucket is empty and sign-ins get 429
#    E0000047. netcheck sees the 429 at Okta and a healthy account-service. The incident says
#    "login".
# =================================================================================================


@scenario("okta-users-api-limit-spent-by-crm-sync")
def okta_users_api_limit_spent_by_crm_sync() -> dict[str, Any]:
    start = -1800
    acc = ["account-service-6b7d-4kq", "account-service-6b7d-9zx"]
    web = ["web-login-58c9-2mf", "web-login-58c9-7tw"]
    body = '{"errorCode":"E0000047","errorSummary":"API call exceeded rate limit due to too many requests.","errorLink":"E0000047","errorId":"oae8Xk2{n}","errorCauses":[]}'
    sig = "E0000047"
    evs = [
        ev(
            "crm-sync",
            "info",
            "crm-sync 1.0.0 started: schedule */10 * * * *, mode=full, source=salesforce segments, target=okta custom attributes (loyaltyTier, segment)",
            at=-86400 + 7200,
        ),
        ev(
            "crm-sync",
            "info",
            "pass {n}: listed 41{ms}00 users (GET /api/v1/users?limit=200, 2{ms} pages), updating 3{ms}0 profiles",
            **every(-7200, -60, 600),
        ),
        ev(
            "crm-sync",
            "warn",
            "okta 429 on POST /api/v1/users/00u{n}, X-Rate-Limit-Reset in {ms} s, backing off",
            **every(start, -30, 45),
        ),
        ev(
            "okta-syslog",
            "warn",
            'system.org.rate_limit.violation: "Rate limit violation" endpoint=/api/v1/users limit=600/min client=crm-sync (0oa9f2k{n})',
            **every(start, -20, 120),
        ),
        ev(
            "account-service",
            "error",
            "okta GET /api/v1/users/{n}%40mail.example -> 429 "
            + body
            + " X-Rate-Limit-Limit: 600, X-Rate-Limit-Remaining: 0",
            **every(start + 20, -1, 8),
            pods=acc,
        ),
        ev(
            "web-login",
            "error",
            "POST /session 500 upstream account-service: profile lookup failed (okta 429)",
            **every(start + 25, -1, 6),
            pods=web,
        ),
        ev(
            "web-login",
            "info",
            "web-login 2026.12.5 deployed (passkey prompt A/B)",
            at=-5200,
            pods=web,
        ),
        ev(
            "newsletter",
            "warn",
            "mailgun: 421 4.7.0 try again later for {n} recipients (gmail.com)",
            **every(-7000, -100, 300),
        ),
        ev(
            "account-service",
            "error",
            'okta GET /api/v1/users/{n} -> 500 {"errorCode":"E0000009","errorSummary":"Internal Server Error"}',
            **every(-10100, -9800, 40),
            pods=acc,
        ),
    ]
    spec = simple(
        473,
        start,
        incident("Customers can't log in", "login", start),
        expected(
            "http",
            [
                "okta",
                "crm-sync",
                "crm-sync 1.0.0",
                "/api/v1/users",
                "E0000047",
                "rate limit",
            ],
            sig,
            "crm-sync 1.0.0, deployed yesterday, does a full pass over Okta's /api/v1/users every ten minutes and updates hundreds of profiles. Okta's /api/v1/users rate limit is per org, so each pass empties the bucket that account-service also needs: its per-login GET /api/v1/users/{login} gets 429 E0000047 and web-login answers 500. web-login's 500s and release, the Mailgun deferrals and the old Okta 500s are not the cause.",
            [
                f"account-service: okta GET /api/v1/users/... -> 429 {sig}, X-Rate-Limit-Remaining: 0",
                "okta-syslog: system.org.rate_limit.violation endpoint=/api/v1/users client=crm-sync",
                "crm-sync 1.0.0: full pass every 10 min",
            ],
            "Pause crm-sync (or move it to incremental updates at a low rate limit share), ask Okta for the client-based rate limit split, and cache the loyalty attributes in account-service instead of reading Okta per login.",
        ),
        [
            bg(
                "account-service",
                acc,
                ["GET /v1/accounts/{n} 200 {ms}ms", "POST /v1/login 200 {ms}ms"],
                8,
            )
        ],
        evs,
        [
            svc(
                "web-login",
                40,
                {"500": (0.0005, 0.38)},
                (0.2, 0.25),
                change_at=start + 25,
            ),
            svc(
                "account-service",
                40,
                {"502": (0.0003, 0.37)},
                (0.09, 0.1),
                change_at=start + 20,
            ),
        ],
        [
            {
                "name": "okta_rate_limit_remaining",
                "labels": {"endpoint": "/api/v1/users"},
                "before": 480,
                "after": 0,
                "change_at": start,
            }
        ],
        {
            "login-failures.md": runbook(
                "Login failures",
                "Login failures at scale mean Okta is degraded: check status.okta.com, post on the status page and enable the 'login maintenance' banner flag until Okta recovers.",
            )
        },
    )
    spec["targets"] = [
        {
            "name": "okta-users",
            "url": "https://kitepay.okta.example/api/v1/users/me",
            "fault": {
                "kind": "http_status",
                "status": 429,
                "body": '{"errorCode":"E0000047","errorSummary":"API call exceeded rate limit due to too many requests.","errorLink":"E0000047","errorId":"oae8Xk2a1","errorCauses":[]}',
                "headers": {
                    "Content-Type": "application/json",
                    "X-Rate-Limit-Limit": "600",
                    "X-Rate-Limit-Remaining": "0",
                },
            },
        },
        {
            "name": "account-service-health",
            "url": "http://account-service.internal.example/healthz",
            "fault": {"kind": "ok"},
        },
    ]
    spec["expected"]["root_cause_probe"] = "okta-users"
    spec["expected"]["netcheck"] = {
        "okta-users": {"failed_layer": "http", "reason": "http_429"},
        "account-service-health": {"failed_layer": "none", "reason": None},
    }
    return spec


# =================================================================================================
# 10. Network delay: the shop runs one Istio mesh over two clusters (eu-west-1, us-east-1). After
#     false ejections last week, PR mesh-config#412 removed outlierDetection from inventory's
#     DestinationRule. Istio only applies locality load balancing when outlier detection is set, so
#     EU callers now spread inventory calls evenly over both regions: half cross the Atlantic
#     (+80 ms), and product-page, which makes about twenty sequential inventory calls, goes from
#     0.3 s to 2 s at the European peak. Nothing errors at first. The incident says "shop".
# =================================================================================================


@scenario("mesh-locality-lb-off-without-outlier-detection")
def mesh_locality_lb_off_without_outlier_detection() -> dict[str, Any]:
    start = -2100
    pp = ["product-page-7d9c-4xq", "product-page-7d9c-8mz", "product-page-7d9c-k2w"]
    sig = "drop outlierDetection"
    envoy = (
        '[{iso}] "GET /v1/stock/{n} HTTP/1.1" 200 - via_upstream - "-" 0 64 %s %s "-" "product-page/5.4.1" "{n}-a1f2" '
        '"inventory.shop.svc.cluster.local:8080" "%s:8080" outbound|8080||inventory.shop.svc.cluster.local 10.1.3.{oct}:{port} 10.96.12.40:8080 10.1.3.{oct}:{port} - default'
    )
    evs = [
        ev(
            "argocd",
            "info",
            f"app mesh-config synced: DestinationRule shop/inventory (PR mesh-config#412: {sig} after false ejections on 2026-11-27; trafficPolicy.loadBalancer.localityLbSetting enabled: true kept)",
            at=start - 700,
        ),
        ev(
            "istio-proxy",
            "info",
            envoy % ("84", "83", "10.2.14.33"),
            **every(-3600, -1, 10),
            pods=pp,
        ),
        ev(
            "istio-proxy",
            "info",
            envoy % ("79", "78", "10.2.15.201"),
            **every(start - 690, -2, 12),
            pods=pp,
        ),
        ev(
            "istio-proxy",
            "info",
            envoy % ("4", "3", "10.1.2.87"),
            **every(-7000, -1, 16),
            pods=pp,
        ),
        ev(
            "product-page",
            "warn",
            "render /p/{n} took 1{ms}0 ms (budget 800 ms): inventory 21 calls, 1{ms}0 ms",
            **every(start, -2, 8),
            pods=pp,
        ),
        ev(
            "storefront-edge",
            "warn",
            "origin shop-eu slow: p95 2.{ms} s over the last minute",
            **every(start + 300, -30, 120),
        ),
        ev(
            "product-page",
            "info",
            "product-page 5.4.1 deployed (size guide widget)",
            at=-6000,
            pods=pp,
        ),
        ev(
            "recommendations",
            "warn",
            "recs p99 6{ms} ms > 500 ms budget, serving fallback",
            **every(-7000, -10, 200),
        ),
        ev(
            "inventory",
            "error",
            "pq: the database system is in recovery mode (failover of inventory-db-eu)",
            **every(-10200, -9900, 30),
        ),
    ]
    return simple(
        474,
        start,
        incident(
            "Shop is really slow",
            "shop",
            start,
            ["product pages take seconds to load in Europe"],
        ),
        expected(
            "connect",
            [
                "destinationrule/inventory",
                "inventory",
                "outlierDetection",
                "localityLbSetting",
                "mesh-config#412",
                "locality load balancing",
            ],
            sig,
            "PR mesh-config#412 removed outlierDetection from inventory's DestinationRule. Istio applies locality load balancing only when outlier detection is configured, so the EU sidecars now spread inventory calls over the EU and US clusters' endpoints (10.2.x, us-east-1): half the calls cross the Atlantic and take about 80 ms instead of 4 ms. product-page makes about twenty sequential inventory calls per render, so pages take 1-2 s at the European peak. product-page's warnings and release, the edge's slow-origin alerts, the recommendations fallback and the old inventory-db failover are not the cause.",
            [
                "argocd: DestinationRule shop/inventory: drop outlierDetection (mesh-config#412)",
                'istio-proxy: inventory calls to "10.2.x.x:8080" (us-east-1) at ~80 ms, to 10.1.x.x at ~4 ms',
                "product-page: inventory 21 calls, 1.x s",
            ],
            "Restore outlierDetection (with gentler thresholds) on inventory's DestinationRule so locality load balancing applies again; verify EU calls stay in eu-west-1.",
        ),
        [
            bg(
                "product-page",
                pp,
                ["GET /p/{n} 200 {ms}0ms", "GET /c/shoes 200 {ms}0ms"],
                8,
            )
        ],
        evs,
        [
            svc(
                "product-page",
                90,
                {"504": (0.0002, 0.004)},
                (0.3, 1.9),
                change_at=start,
            ),
            svc("inventory", 1800, {"500": (0.0001, 0.0001)}, (0.003, 0.003)),
        ],
        [
            {
                "name": "istio_requests_total_rate",
                "labels": {
                    "destination_service": "inventory.shop.svc.cluster.local",
                    "destination_cluster": "shop-us-east-1",
                    "source_cluster": "shop-eu-west-1",
                },
                "before": 3,
                "after": 880,
                "change_at": start - 690,
            }
        ],
        {
            "shop-slow.md": runbook(
                "Shop slow",
                "Slow product pages are usually inventory's Postgres: check inventory-db-eu for slow queries and replication lag, and fail over to the standby if the primary's CPU is saturated.",
            )
        },
    )


# =================================================================================================
# 11. Config change: a Terraform refactor of the CDN module moved api.fernhill.example's cache
#     behaviour from legacy forwarded_values (Authorization, Accept-Language forwarded) to the
#     managed policies CachingDisabled + AllViewerExceptHostHeader. An origin request policy cannot
#     carry Authorization, so CloudFront now strips it from GET requests: every authenticated GET
#     through the CDN reaches account-api without a token and gets 401; POSTs and the direct origin
#     path work. netcheck sees 401 through the CDN and a healthy origin. The incident says "app".
# =================================================================================================


@scenario("cloudfront-policy-migration-drops-authorization")
def cloudfront_policy_migration_drops_authorization() -> dict[str, Any]:
    start = -1500
    aa = ["account-api-7f8b-2qd", "account-api-7f8b-6wn", "account-api-7f8b-t9k"]
    sig = "no Authorization header"
    evs = [
        ev(
            "terraform",
            "info",
            'module.cdn.aws_cloudfront_distribution.api: Modifications complete after 4m12s [id=E2QWRUHAPOMQZL] (PR cdn#77: migrate legacy forwarded_values to cache_policy_id "Managed-CachingDisabled" + origin_request_policy_id "Managed-AllViewerExceptHostHeader")',
            at=start - 80,
        ),
        ev(
            "account-api",
            "warn",
            '{"level":40,"pid":1,"hostname":"account-api","req":{"method":"GET","url":"/v1/me/{n}","headers":{"via":"2.0 3b9a{n}.cloudfront.net (CloudFront)","x-amz-cf-id":"Qm{n}=="}},"msg":"401 '
            + sig
            + '"}',
            **every(start, -1, 6),
            pods=aa,
        ),
        ev(
            "account-api",
            "info",
            '{"level":30,"req":{"method":"POST","url":"/v1/orders","headers":{"via":"2.0 3b9a{n}.cloudfront.net (CloudFront)"}},"res":{"statusCode":201},"responseTime":{ms},"msg":"request completed"}',
            **every(-3600, -5, 20),
            pods=aa,
        ),
        ev(
            "web-app",
            "error",
            "session check failed: GET /v1/me 401, redirecting to /login (user {n})",
            **every(start + 10, -1, 6),
        ),
        ev(
            "auth",
            "info",
            "token issued client=web-app grant=refresh_token sub={n}",
            **every(-3600, -2, 10),
        ),
        ev(
            "account-api",
            "info",
            "account-api 5.2.0 started (address autocomplete)",
            at=-6200,
            pods=aa,
        ),
        ev(
            "image-proxy",
            "warn",
            "upstream s3 fetch {n}.webp took {ms}00 ms",
            **every(-7000, -30, 200),
        ),
        ev(
            "auth",
            "error",
            "POST /oauth/token 503: upstream user-db timeout",
            **every(-10000, -9700, 30),
        ),
    ]
    spec = simple(
        475,
        start,
        incident("Everyone is being logged out of the app", "app", start),
        expected(
            "http",
            [
                "cloudfront",
                "cdn",
                "E2QWRUHAPOMQZL",
                "AllViewerExceptHostHeader",
                "CachingDisabled",
                "module.cdn",
                "cdn#77",
                "origin request policy",
            ],
            sig,
            "PR cdn#77 moved the API distribution E2QWRUHAPOMQZL from legacy forwarded_values (which forwarded Authorization) to the managed CachingDisabled cache policy and AllViewerExceptHostHeader origin request policy. An origin request policy cannot forward Authorization, so CloudFront now strips it from GET requests: every authenticated GET through the CDN reaches account-api without a token and gets 401, the web app treats that as an expired session and logs users out. POSTs and the direct origin still work. The web app's redirects, account-api's release, image-proxy latency and the old token-endpoint 503s are not the cause.",
            [
                f"account-api: GET via CloudFront -> 401 {sig}",
                "terraform: module.cdn ... AllViewerExceptHostHeader (cdn#77)",
                "POST via CloudFront 201 (Authorization forwarded)",
            ],
            "Use a cache policy that includes the Authorization header (or revert to forwarded_values) on the API behaviour, invalidate nothing, and confirm GET /v1/me works through the CDN.",
        ),
        [bg("account-api", aa, ["GET /healthz 200 {ms}ms"], 15)],
        evs,
        [
            svc(
                "account-api", 120, {"401": (0.004, 0.6)}, (0.04, 0.01), change_at=start
            ),
            svc("web-app", 90, {"302": (0.01, 0.4)}, (0.1, 0.1), change_at=start + 10),
        ],
        [],
        {
            "logouts.md": runbook(
                "Users logged out / 401 everywhere",
                "Mass 401s mean the auth signing key rotated and the API has an old JWKS cached: restart account-api to refetch https://auth.fernhill.example/.well-known/jwks.json.",
            )
        },
    )
    spec["targets"] = [
        {
            "name": "api-via-cdn",
            "url": "https://api.fernhill.example/v1/me",
            "fault": {
                "kind": "http_status",
                "status": 401,
                "body": '{"error":"unauthorized","message":"no Authorization header"}',
                "headers": {
                    "Content-Type": "application/json",
                    "Via": "1.1 3b9a0c1d2e.cloudfront.net (CloudFront)",
                    "X-Cache": "Error from cloudfront",
                },
            },
        },
        {
            "name": "account-api-origin",
            "url": "http://origin-api.internal.fernhill.example/healthz",
            "fault": {"kind": "ok"},
        },
    ]
    spec["expected"]["root_cause_probe"] = "api-via-cdn"
    spec["expected"]["netcheck"] = {
        "api-via-cdn": {"failed_layer": "http", "reason": "http_401"},
        "account-api-origin": {"failed_layer": "none", "reason": None},
    }
    return spec


# =================================================================================================
# 12. Quiet root cause, louder victims: the web tier's Auto Scaling group (c6i.2xlarge) cannot
#     scale out for the afternoon TV-spot peak. The account's Running On-Demand Standard vCPU quota (512) is
#     spent: the data team's EMR backfill cluster (24 x r6i.4xlarge) started this afternoon in the
#     same account and region. The ASG logs failed launches nobody watches; twelve web servers
#     saturate, nginx answers 502/504, the database sees connection storms. The incident says
#     "website".
# =================================================================================================


@scenario("ec2-vcpu-quota-spent-blocks-web-scale-out")
def ec2_vcpu_quota_spent_blocks_web_scale_out() -> dict[str, Any]:
    start = -1600
    web = [f"web-{i:02d}" for i in range(1, 13)]
    sig = "You have requested more vCPU capacity than your current vCPU limit of 512 allows"
    evs = [
        ev(
            "emr",
            "info",
            'cluster j-2AXL7Q0GAPLF "feature-backfill-2026q4" RUNNING: master 1 x m6i.xlarge, core 24 x r6i.4xlarge (on-demand), owner data-science',
            at=-9000,
        ),
        ev(
            "autoscaling",
            "warn",
            f"web-prod-asg: Launching a new EC2 instance. Status Reason: {sig} for the instance bucket that the specified instance type belongs to. Please visit http://aws.amazon.com/contact-us/ec2-request to request an adjustment to this limit. Launching EC2 instance failed.",
            **every(start, -60, 300),
        ),
        ev(
            "autoscaling",
            "info",
            "web-prod-asg: Executing policy cpu-target-60: changing the desired capacity from 12 to 20",
            at=start - 30,
        ),
        ev(
            "nginx",
            "error",
            '{n}#0: *{n} upstream timed out (110: Connection timed out) while reading response header from upstream, client: 10.0.{oct}.{oct}, server: www.fernhill.example, request: "GET /c/{n} HTTP/1.1", upstream: "http://127.0.0.1:9000/index.php"',
            **every(start + 60, -1, 4),
            pods=web,
        ),
        ev(
            "php-fpm",
            "warn",
            "[pool www] server reached pm.max_children setting (64), consider raising it",
            **every(start + 30, -5, 12),
            pods=web,
        ),
        ev(
            "alb",
            "warn",
            'h2 {iso} app/web-prod/8f2c 198.51.100.{oct}:{port} 10.0.2.{oct}:80 0.001 -1 -1 502 - 712 293 "GET https://www.fernhill.example:443/cart HTTP/2.0"',
            **every(start + 90, -2, 10),
        ),
        ev(
            "mysql",
            "warn",
            "Aborted connection {n} to db: 'shop' user: 'web' host: '10.0.2.{ms}' (Got timeout reading communication packets)",
            **every(start + 200, -10, 30),
        ),
        ev(
            "marketing",
            "info",
            "TV spot 'winter-sale' aired 14:30 CET, expected traffic x2.5 for 45 min",
            at=start - 200,
        ),
        ev(
            "deploy",
            "info",
            "web 2026.49.2 rolled out to web-prod-asg (launch template v88: PHP 8.3.14)",
            at=-7200,
        ),
        ev(
            "mailer",
            "warn",
            "bounce rate {ms}0 bp on campaign winter-sale (hard bounces {n})",
            **every(-6000, -100, 400),
        ),
        ev(
            "redis",
            "error",
            "MASTER <-> REPLICA sync: Timeout connecting to the MASTER...",
            **every(-10200, -9900, 30),
        ),
    ]
    return simple(
        476,
        start,
        incident("Website down / super slow", "website", start),
        expected(
            "platform",
            [
                "web-prod-asg",
                "vcpu limit",
                "VcpuLimitExceeded",
                "L-1216C47A",
                "Running On-Demand Standard",
                "j-2AXL7Q0GAPLF",
                "feature-backfill-2026q4",
            ],
            sig,
            "At the afternoon peak (the TV spot) web-prod-asg tried to go from 12 to 20 c6i.2xlarge instances, but every launch fails: the account's Running On-Demand Standard instances vCPU quota (512, L-1216C47A) is used up since the data team's EMR cluster feature-backfill-2026q4 (24 x r6i.4xlarge on demand) started in the same account and region this afternoon. Twelve web servers carry 2.5 x the traffic: php-fpm hits pm.max_children, nginx and the ALB answer 502/504, MySQL sees aborted connections. Those are victims; the TV spot is the trigger, the web release and the old Redis sync errors are not the cause.",
            [
                f"autoscaling: web-prod-asg: {sig}",
                "emr: j-2AXL7Q0GAPLF 24 x r6i.4xlarge on demand",
                "autoscaling: desired 12 -> 20, still 12 in service",
            ],
            "Stop or shrink the EMR cluster (or move it to another account / spot), request a vCPU quota increase, and let the ASG reach its desired capacity.",
        ),
        [
            bg(
                "nginx",
                web,
                [
                    '10.0.{oct}.{oct} - - [{clf}] "GET /c/{n} HTTP/1.1" 200 {n} {ms}ms',
                    '10.0.{oct}.{oct} - - [{clf}] "GET /p/{n} HTTP/1.1" 200 {n} {ms}ms',
                ],
                8,
            )
        ],
        evs,
        [
            svc(
                "web",
                300,
                {"502": (0.0005, 0.09), "504": (0.0002, 0.06)},
                (0.18, 2.4),
                rps_after=700,
                change_at=start,
            )
        ],
        [
            {
                "name": "aws_autoscaling_group_desired_capacity",
                "labels": {"asg": "web-prod-asg"},
                "before": 12,
                "after": 20,
                "change_at": start,
            },
            {
                "name": "aws_autoscaling_group_in_service_instances",
                "labels": {"asg": "web-prod-asg"},
                "before": 12,
                "after": 12,
                "change_at": start,
            },
            {
                "name": "node_cpu_busy_ratio",
                "labels": {"group": "web-prod-asg"},
                "before": 0.48,
                "after": 0.99,
                "change_at": start,
            },
        ],
        {
            "site-slow.md": runbook(
                "Website slow at peak",
                "At peaks, raise web-prod-asg's max size in the console and raise php-fpm pm.max_children to 96; if MySQL aborts connections, raise max_connections.",
            )
        },
    )


# =================================================================================================
# 13. Shared back end: the help centre (WordPress), media-proxy and pdf-export share one EFS file
#     system in bursting mode (180 GiB stored: about 9 MiB/s baseline). log-archiver 1.0, started
#     two days ago on the batch host, tars and copies every host's logs onto the same EFS each hour.
#     This morning the burst credits reached zero; throughput is capped at the baseline and every NFS
#     read waits. php-fpm fills, nginx 504s, media-proxy times out. The incident says "help centre".
# =================================================================================================


@scenario("efs-burst-credits-spent-by-log-archiver")
def efs_burst_credits_spent_by_log_archiver() -> dict[str, Any]:
    start = -2000
    cms = ["cms-1", "cms-2", "cms-3"]
    fs = "fs-0c1d2e3f4a5b6c7d8"
    sig = f'ALARM: "efs-{fs}-BurstCreditBalance" in EU (Ireland)'
    evs = [
        ev(
            "log-archiver",
            "info",
            f"log-archiver 1.0.0: hourly run started, source /var/log/hosts/* (212 hosts), target /mnt/shared/archive on {fs} (tar.gz, no rate limit)",
            **every(-7000, -100, 3600),
        ),
        ev(
            "log-archiver",
            "info",
            "copied {n} MiB in {ms}0 s to /mnt/shared/archive/2026/12/05/",
            **every(-6800, -100, 3600),
        ),
        ev(
            "cloudwatch",
            "warn",
            sig
            + ": Threshold Crossed: 1 datapoint [0.0 (05/12/26 13:27:00)] was less than the threshold (1000000000.0).",
            at=start + 60,
        ),
        ev(
            "kernel",
            "warn",
            f"nfs: server {fs}.efs.eu-west-1.amazonaws.com not responding, still trying",
            **every(start + 120, -20, 90),
            labels={"host": "cms-2"},
        ),
        ev(
            "kernel",
            "info",
            f"nfs: server {fs}.efs.eu-west-1.amazonaws.com OK",
            **every(start + 160, -40, 180),
            labels={"host": "cms-2"},
        ),
        ev(
            "php-fpm",
            "warn",
            "[pool www] server reached pm.max_children setting (40), consider raising it",
            **every(start + 100, -3, 10),
            pods=cms,
        ),
        ev(
            "nginx",
            "error",
            '{n}#0: *{n} upstream timed out (110: Connection timed out) while reading response header from upstream, client: 10.0.{oct}.{oct}, server: help.fernhill.example, request: "GET /articles/{n} HTTP/1.1", upstream: "fastcgi://unix:/run/php/php8.2-fpm.sock"',
            **every(start + 120, -1, 6),
            pods=cms,
        ),
        ev(
            "media-proxy",
            "error",
            "open /mnt/shared/uploads/2026/11/{n}.png: read timeout after 10s (nfs)",
            **every(start + 150, -4, 12),
        ),
        ev(
            "pdf-export",
            "warn",
            "render of article {n} waited {ms}00 ms for /mnt/shared/fonts",
            **every(start + 200, -30, 120),
        ),
        ev(
            "wordpress",
            "info",
            "plugin update: yoast-seo 23.9 -> 24.0 (auto-update)",
            at=-5600,
            pods=cms,
        ),
        ev(
            "search-indexer",
            "warn",
            "elasticsearch bulk: {ms} docs rejected (mapper_parsing_exception on field 'tags')",
            **every(-7000, -60, 600),
        ),
        ev(
            "mysql",
            "error",
            "Too many connections (max_connections 300) from user 'wp'",
            **every(-10000, -9700, 30),
        ),
    ]
    return simple(
        477,
        start,
        incident("Help centre pages timing out", "help centre", start),
        expected(
            "application",
            [
                fs,
                "efs",
                "shared efs",
                "BurstCreditBalance",
                "log-archiver",
                "log-archiver 1.0.0",
                "burst credits",
            ],
            "BurstCreditBalance",
            f"The help centre, media-proxy and pdf-export share EFS {fs} in bursting mode (about 9 MiB/s baseline for 180 GiB). log-archiver 1.0.0, started two days ago, copies every host's logs onto the same file system each hour without a rate limit; this morning the burst credits reached zero (BurstCreditBalance alarm) and throughput is capped at the baseline. Every NFS read waits: php-fpm fills to pm.max_children, nginx answers 504, media-proxy and pdf-export time out. Those are victims; the Yoast update, the Elasticsearch rejections and the old MySQL connection errors are not the cause.",
            [
                f"cloudwatch: {sig}: BurstCreditBalance 0.0",
                f"log-archiver 1.0.0: hourly copy to /mnt/shared/archive on {fs}",
                f"kernel on cms-2: nfs: server {fs}... not responding",
            ],
            "Stop log-archiver (or send it to S3), switch the file system to elastic or provisioned throughput for now, and keep shared EFS for the web tier only.",
        ),
        [
            bg(
                "nginx",
                cms,
                [
                    '10.0.{oct}.{oct} - - [{clf}] "GET /articles/{n} HTTP/1.1" 200 {n} "-" "Mozilla/5.0"',
                    '10.0.{oct}.{oct} - - [{clf}] "GET /search?q={n} HTTP/1.1" 200 {n} "-" "Mozilla/5.0"',
                ],
                8,
            )
        ],
        evs,
        [
            svc(
                "help-centre",
                35,
                {"504": (0.0005, 0.3)},
                (0.25, 4.0),
                change_at=start + 120,
            ),
            svc(
                "media-proxy",
                50,
                {"504": (0.0002, 0.2)},
                (0.05, 2.5),
                change_at=start + 150,
            ),
        ],
        [
            {
                "name": "aws_efs_burst_credit_balance",
                "labels": {"file_system_id": fs},
                "before": 2.1e12,
                "after": 0.0,
                "change_at": start,
            },
            {
                "name": "aws_efs_metered_iobytes_rate",
                "labels": {"file_system_id": fs},
                "before": 3.1e7,
                "after": 9.4e6,
                "change_at": start,
            },
        ],
        {
            "help-centre-slow.md": runbook(
                "Help centre slow / 504",
                "Help centre 504s: php-fpm is out of workers. Raise pm.max_children to 80 on all cms hosts and restart php-fpm; if MySQL shows too many connections, raise max_connections.",
            )
        },
    )


# =================================================================================================
# 14. Performance: the entitlements policy served by OPA (Envoy ext_authz in front of the partner
#     portal's API) was rewritten to iterate over data.grants, and the bundle builder now ships all
#     1.2 million grants in the bundle. Every decision scans the list: 1.6 s per decision instead
#     of 2 ms; requests queue at the gateway and some hit the 2 s ext_authz timeout (403 UAEX). The
#     incident says "partner portal".
# =================================================================================================


@scenario("opa-bundle-grants-linear-scan")
def opa_bundle_grants_linear_scan() -> dict[str, Any]:
    start = -1900
    opa = ["opa-0", "opa-1", "opa-2"]
    rev = "authz-2026.12.05.1"
    sig = "data.grants: 1204117 entries"
    evs = [
        ev(
            "opa-bundle-builder",
            "info",
            f"bundle {rev} built: policy entitlements.rego (allow: some g in data.grants; g.subject == input.subject; g.resource == input.resource), {sig}, 51.3 MB, pushed to s3://fernhill-opa-bundles/authz.tar.gz (MR policy!96)",
            at=start - 240,
        ),
        ev(
            "opa",
            "info",
            '{"level":"info","msg":"Bundle loaded and activated successfully. Etag updated to \\"'
            + rev
            + '\\".","name":"authz","plugin":"bundle","time":"2026-12-05T13:25:20Z"}',
            at=start - 180,
            pods=opa,
        ),
        ev(
            "opa",
            "info",
            '{"decision_id":"{n}-9f1c","labels":{"app":"opa"},"path":"envoy/authz/allow","result":true,"metrics":{"timer_rego_query_eval_ns":1612004311,"timer_server_handler_ns":1615104311},"bundles":{"authz":{"revision":"'
            + rev
            + '"}},"msg":"Decision Log","level":"info"}',
            **every(start - 170, -1, 24),
            pods=opa,
        ),
        ev(
            "opa",
            "info",
            '{"decision_id":"{n}-9f1c","labels":{"app":"opa"},"path":"envoy/authz/allow","result":true,"metrics":{"timer_rego_query_eval_ns":1684230977,"timer_server_handler_ns":1687330977},"bundles":{"authz":{"revision":"'
            + rev
            + '"}},"msg":"Decision Log","level":"info"}',
            **every(start - 170 + 4, -1, 24),
            pods=opa,
        ),
        ev(
            "opa",
            "info",
            '{"decision_id":"{n}-9f1c","labels":{"app":"opa"},"path":"envoy/authz/allow","result":true,"metrics":{"timer_rego_query_eval_ns":1733918402,"timer_server_handler_ns":1737018402},"bundles":{"authz":{"revision":"'
            + rev
            + '"}},"msg":"Decision Log","level":"info"}',
            **every(start - 170 + 8, -1, 24),
            pods=opa,
        ),
        ev(
            "opa",
            "info",
            '{"decision_id":"{n}-2b7e","labels":{"app":"opa"},"path":"envoy/authz/allow","result":true,"metrics":{"timer_rego_query_eval_ns":2{n}0,"timer_server_handler_ns":3{n}0},"bundles":{"authz":{"revision":"authz-2026.12.04.3"}},"msg":"Decision Log","level":"info"}',
            **every(-3600, start - 190, 5),
            pods=opa,
        ),
        ev(
            "api-gateway",
            "info",
            '[{iso}] "GET /v1/partner/orders?page={ms} HTTP/1.1" 200 - via_upstream - "-" 0 {n} 1790 41 "-" "partner-portal-bff/4.2.0" "{n}-77aa" "api.partners.fernhill.example" "10.4.2.{ms}:8080"',
            **every(start, -1, 8),
        ),
        ev(
            "api-gateway",
            "warn",
            '[{iso}] "GET /v1/partner/invoices HTTP/1.1" 403 UAEX ext_authz_error - "-" 0 0 2001 - "-" "partner-portal-bff/4.2.0" "{n}-91cd" "api.partners.fernhill.example" "-"',
            **every(start + 100, -2, 15),
        ),
        ev(
            "partner-portal-bff",
            "error",
            "GET /v1/partner/invoices failed: 403 from api-gateway after 2003 ms (request {n})",
            **every(start + 100, -2, 15),
        ),
        ev(
            "partner-portal-bff",
            "warn",
            "slow page /orders: 3{ms}0 ms (api 1{ms}0 ms)",
            **every(start + 30, -3, 10),
        ),
        ev(
            "partner-portal-bff",
            "info",
            "partner-portal-bff 4.2.0 deployed (CSV export)",
            at=-6400,
        ),
        ev(
            "pdf-service",
            "warn",
            "wkhtmltopdf exited 1 for invoice {n}: QXcbConnection: Could not connect to display",
            **every(-7000, -60, 500),
        ),
        ev(
            "opa",
            "error",
            '{"level":"error","msg":"Bundle load failed: request failed: Get \\"https://fernhill-opa-bundles.s3.eu-west-1.amazonaws.com/authz.tar.gz\\": dial tcp: i/o timeout","name":"authz","plugin":"bundle"}',
            **every(-10100, -9800, 60),
            pods=opa,
        ),
    ]
    return simple(
        478,
        start,
        incident(
            "Partner portal very slow",
            "partner portal",
            start,
            ["some pages show 'access denied'"],
        ),
        expected(
            "application",
            [
                "opa",
                "entitlements.rego",
                rev,
                "data.grants",
                "opa-bundle-builder",
                "ext_authz",
                "policy!96",
            ],
            sig,
            f"Bundle {rev} (MR policy!96) rewrote the entitlements policy to iterate over data.grants and ships all 1,204,117 grants in the bundle. Every ext_authz decision now scans the list: timer_rego_query_eval_ns went from about 0.2 ms to 1-2 s. Requests through the API gateway wait for OPA, and those past the 2 s ext_authz timeout are refused (403 UAEX), so the portal is slow and sometimes says access denied. partner-portal-bff's errors and release, the PDF service and the old bundle download timeouts are not the cause.",
            [
                f"opa-bundle-builder: bundle {rev}: {sig}, iterates data.grants",
                "opa decision log: timer_rego_query_eval_ns ~1.x s since the bundle activation",
                "api-gateway: 403 UAEX ext_authz_error after 2001 ms",
            ],
            "Roll the bundle back to authz-2026.12.04.3, then index grants by subject (data.grants_by_subject[input.subject]) or look them up at query time instead of shipping them all.",
        ),
        [bg("api-gateway", opa, ["GET /health?bundles 200 {ms}ms"], 15)],
        evs,
        [
            svc(
                "api-gateway", 60, {"403": (0.002, 0.06)}, (0.05, 1.8), change_at=start
            ),
            svc("opa", 60, {}, (0.002, 1.6), change_at=start - 170),
        ],
        [
            {
                "name": "opa_bundle_data_bytes",
                "labels": {"bundle": "authz"},
                "before": 1.9e5,
                "after": 5.13e7,
                "change_at": start - 180,
            }
        ],
        {
            "portal-slow.md": runbook(
                "Partner portal slow",
                "A slow portal is usually orders-db: check slow queries on the orders replica and partner-portal-bff's connection pool; restart the BFF if its pool is exhausted.",
            )
        },
    )


# =================================================================================================
# 15. Resource exhaustion: the media team started an S3 Batch Operations job invoking the
#     thumbnail-backfill Lambda for 2.3 million objects. The function has no reserved concurrency and
#     takes nearly all of the account's 1,000 concurrent executions in the region; every other
#     function is throttled. order-service invokes order-confirmation synchronously and gets
#     TooManyRequestsException; the Stripe webhook function behind API Gateway is throttled and Stripe
#     retries. Orders stay "payment pending". The incident says "orders".
# =================================================================================================


@scenario("lambda-account-concurrency-spent-by-backfill")
def lambda_account_concurrency_spent_by_backfill() -> dict[str, Any]:
    start = -1700
    osvc = ["order-service-5c7d-1kq", "order-service-5c7d-8rt"]
    sig = "ConcurrentInvocationLimitExceeded"
    evs = [
        ev(
            "s3-batch-operations",
            "info",
            'job 7f3c0e2a-91b4-4d6e-8a5f-2c1d0e9b8a7f "thumbnail-backfill-2026-12": operation LambdaInvoke (thumbnail-backfill), 2,314,882 tasks, priority 10, status Active (requested by media-team)',
            at=start - 120,
        ),
        ev(
            "thumbnail-backfill",
            "info",
            "REPORT RequestId: {n}-4c1f Duration: 2{n}.12 ms Billed Duration: 2{n} ms Memory Size: 1024 MB Max Memory Used: 4{ms}1 MB",
            **every(start - 100, -1, 6),
        ),
        ev(
            "order-service",
            "error",
            'TooManyRequestsException: Rate Exceeded. {"name":"TooManyRequestsException","$fault":"client","$metadata":{"httpStatusCode":429,"requestId":"{n}-aa1b","attempts":3},"Reason":"'
            + sig
            + '","Type":"User","message":"Rate Exceeded."} (invoke order-confirmation for order {n})',
            **every(start, -2, 12),
            pods=osvc,
        ),
        ev(
            "apigateway",
            "error",
            '{"requestId":"{n}-c2d3","ip":"54.187.174.{ms}","httpMethod":"POST","resourcePath":"/stripe/webhook","status":"500","integrationStatus":"429","integrationErrorMessage":"Rate Exceeded.","responseLatency":"{ms}"}',
            **every(start + 10, -3, 8),
        ),
        ev(
            "cloudwatch",
            "warn",
            'ALARM: "lambda-account-ConcurrentExecutions-high": ConcurrentExecutions 998 >= 900 for 3 datapoints; Throttles (all functions) 1{n}/min',
            at=start + 240,
        ),
        ev(
            "order-service",
            "warn",
            "order {n} still PAYMENT_PENDING after 600 s, no payment_intent.succeeded webhook received",
            **every(start + 600, -5, 20),
            pods=osvc,
        ),
        ev(
            "stripe-events",
            "warn",
            "Stripe dashboard: webhook endpoint https://hooks.fernhill.example/stripe/webhook failing, {ms}% of deliveries in the last hour returned 500; retries scheduled",
            **every(start + 900, -60, 300),
        ),
        ev(
            "order-service",
            "info",
            "order-service 12.8.0 started (split shipments)",
            at=-5800,
            pods=osvc,
        ),
        ev(
            "search-sync",
            "warn",
            "algolia batch {n}: 3 records too large (> 10 kB), skipped",
            **every(-7000, -80, 400),
        ),
        ev(
            "order-service",
            "error",
            "stripe.error.APIConnectionError: Request to Stripe timed out",
            **every(-10100, -9800, 45),
            pods=osvc,
        ),
    ]
    return simple(
        479,
        start,
        incident("Orders stuck on payment pending", "orders", start),
        expected(
            "http",
            [
                "lambda",
                "thumbnail-backfill",
                "account concurrency",
                sig,
                "7f3c0e2a-91b4-4d6e-8a5f-2c1d0e9b8a7f",
                "thumbnail-backfill-2026-12",
                "reserved concurrency",
            ],
            sig,
            "An S3 Batch Operations job (thumbnail-backfill-2026-12, 2.3 M objects) invokes the thumbnail-backfill Lambda, which has no reserved concurrency and takes nearly all of the region's 1,000 concurrent executions for the account. Every other function is throttled: order-service's synchronous invoke of order-confirmation gets 429 TooManyRequestsException (ConcurrentInvocationLimitExceeded) and the Stripe webhook function behind API Gateway is throttled, so payment_intent.succeeded never lands and orders stay PAYMENT_PENDING while Stripe retries. order-service's warnings and release, Stripe's failing-endpoint notice, the Algolia skips and the old Stripe timeout are not the cause.",
            [
                f"order-service: TooManyRequestsException: Rate Exceeded. Reason {sig}",
                "cloudwatch: ConcurrentExecutions 998 (account limit 1000)",
                "s3-batch-operations: job thumbnail-backfill-2026-12 invoking thumbnail-backfill",
            ],
            "Pause the batch job (or give thumbnail-backfill a reserved concurrency of ~100), reserve concurrency for the webhook and confirmation functions, and replay the pending Stripe events.",
        ),
        [
            bg(
                "order-service",
                osvc,
                ["POST /v1/orders 201 {ms}ms", "GET /v1/orders/{n} 200 {ms}ms"],
                8,
            )
        ],
        evs,
        [
            svc(
                "order-service",
                35,
                {"500": (0.0005, 0.02)},
                (0.12, 0.4),
                change_at=start,
            ),
            svc(
                "stripe-webhook",
                8,
                {"500": (0.0, 0.85)},
                (0.08, 0.02),
                change_at=start + 10,
            ),
        ],
        [
            {
                "name": "aws_lambda_concurrent_executions",
                "labels": {"scope": "account", "region": "eu-west-1"},
                "before": 120,
                "after": 998,
                "change_at": start - 100,
            },
            {
                "name": "aws_lambda_throttles_rate",
                "labels": {"function_name": "stripe-webhook"},
                "before": 0,
                "after": 40,
                "change_at": start + 10,
            },
        ],
        {
            "payment-pending.md": runbook(
                "Orders stuck in payment pending",
                "Pending payments usually mean the Stripe webhook signing secret was rotated: compare STRIPE_WEBHOOK_SECRET with the dashboard's endpoint secret and redeploy stripe-webhook.",
            )
        },
    )


# =================================================================================================
# 16. Credential rotation: the security team rotated the Auth0 tenant's signing key (scheduled
#     rotation: the next key became current). The Envoy edge gateway validates JWTs with
#     `jwt_authn` and an inline `local_jwks` that someone pasted two years ago "to avoid a network
#     call". Tokens issued before the rotation still pass until they expire (1 h); tokens signed with
#     the new key fail, so the share of 401s climbs over an hour and mobile users are logged out as
#     their tokens refresh. netcheck sees 401 at the gateway and a healthy JWKS endpoint. The
#     incident says "mobile app".
# =================================================================================================


@scenario("edge-jwt-local-jwks-after-signing-key-rotation")
def edge_jwt_local_jwks_after_signing_key_rotation() -> dict[str, Any]:
    start = -3000
    gw = ["edge-gw-0", "edge-gw-1"]
    sig = "jwt_authn_access_denied{Jwks_doesn't_have_key_to_match_kid_or_alg_from_Jwt}"
    line = '[{iso}] "GET /v2/%s HTTP/2" %s - %s - "-" 0 %s %s %s "10.8.{oct}.{oct}" "Fernhill/7.12 (iPhone; iOS 18.1)" "{n}-5e6f" "api.fernhill.example" "%s"'
    evs = [
        ev(
            "auth0",
            "info",
            'tenant fernhill-prod: signing key rotated by security@fernhill.example: key "Qk2nA7tVbX" is now current, previous key "Mz8fR1pLcW" moved to previous (still published in JWKS)',
            at=start - 60,
        ),
        ev(
            "edge-gw",
            "warn",
            line % ("orders", "401", sig, "51", "1", "-", "-"),
            **every(start + 60, -1, 6),
            pods=gw,
        ),
        ev(
            "edge-gw",
            "warn",
            line % ("me", "401", sig, "51", "0", "-", "-"),
            **every(start + 61, -2, 12),
            pods=gw,
        ),
        ev(
            "edge-gw",
            "info",
            line
            % (
                "orders",
                "200",
                "via_upstream",
                "{n}",
                "{ms}",
                "{ms}",
                "10.8.3.21:8080",
            ),
            **every(-3600, -1, 10),
            pods=gw,
        ),
        ev(
            "mobile-bff",
            "info",
            "token refresh ok for user {n} (auth0, new access token kid=Qk2nA7tVbX)",
            **every(start, -5, 15),
        ),
        ev(
            "support-desk",
            "warn",
            "ticket spike: {ms} new tickets tagged 'logged out' in the last 15 min",
            **every(start + 900, -60, 600),
        ),
        ev(
            "mobile-bff",
            "info",
            "mobile-bff 3.40.0 deployed (order tracking map)",
            at=-6800,
        ),
        ev(
            "crash-reporter",
            "warn",
            "iOS 7.12: EXC_BAD_ACCESS in MapKit overlay (occurrences {ms})",
            **every(-7000, -100, 500),
        ),
        ev(
            "mobile-bff",
            "error",
            "auth0 /oauth/token 429 Too Many Requests (rate limit)",
            **every(-10300, -10000, 40),
        ),
    ]
    spec = simple(
        480,
        start,
        incident("People getting logged out of the mobile app", "mobile app", start),
        expected(
            "application",
            [
                "edge-gw",
                "envoy",
                "jwt_authn",
                "local_jwks",
                "Qk2nA7tVbX",
                "auth0 signing key",
                "signing key rotation",
            ],
            sig,
            "The security team rotated the Auth0 signing key: tokens are now signed with kid Qk2nA7tVbX. The Envoy edge gateway's jwt_authn filter uses an inline local_jwks pasted two years ago, which has only the old key; tokens issued before the rotation pass until they expire (1 h), every token signed with the new key is refused (Jwks doesn't have key to match kid), so the share of 401s climbs as apps refresh their tokens and users are logged out. Auth0's JWKS endpoint publishes both keys and is healthy. The support-ticket spike, mobile-bff's release, the crash reports and the old Auth0 429s are not the cause.",
            [
                f"edge-gw: {sig} (kid Qk2nA7tVbX, local_jwks)",
                "auth0: signing key rotated, Qk2nA7tVbX current",
                "edge-gw: 401 share rising since the rotation",
            ],
            "Switch jwt_authn to remote_jwks (https://fernhill.eu.auth0.com/.well-known/jwks.json with a cache duration) or add the new key to local_jwks now; ask security to announce key rotations to the edge team.",
        ),
        [
            bg(
                "mobile-bff",
                ["mobile-bff-6f8c-2kq", "mobile-bff-6f8c-9zw"],
                ["GET /v2/orders 200 {ms}ms", "GET /v2/me 200 {ms}ms"],
                8,
            )
        ],
        evs,
        [
            svc(
                "edge-gw",
                150,
                {"401": (0.003, 0.55)},
                (0.06, 0.05),
                change_at=start + 900,
            )
        ],
        [],
        {
            "logged-out.md": runbook(
                "Users logged out",
                "Unexpected logouts are usually clock skew on the gateway hosts (tokens 'not yet valid'): check chrony on edge-gw-* and restart it; then check Auth0's refresh-token rotation settings.",
            )
        },
    )
    spec["targets"] = [
        {
            "name": "edge-gw",
            "url": "https://api.fernhill.example/v2/me",
            "fault": {
                "kind": "http_status",
                "status": 401,
                "body": "Jwks doesn't have key to match kid or alg from Jwt",
                "headers": {
                    "Content-Type": "text/plain",
                    "Server": "envoy",
                    "WWW-Authenticate": 'Bearer realm="https://api.fernhill.example/v2/me", error="invalid_token"',
                },
            },
        },
        {
            "name": "auth0-jwks",
            "url": "https://fernhill.eu.auth0.example/.well-known/jwks.json",
            "fault": {
                "kind": "ok",
                "body": '{"keys":[{"kid":"Qk2nA7tVbX","kty":"RSA","use":"sig"},{"kid":"Mz8fR1pLcW","kty":"RSA","use":"sig"}]}',
            },
        },
    ]
    spec["expected"]["root_cause_probe"] = None
    spec["expected"]["netcheck"] = {
        "edge-gw": {"failed_layer": "http", "reason": "http_401"},
        "auth0-jwks": {"failed_layer": "none", "reason": None},
    }
    return spec


STAGES: dict[str, tuple[str, str]] = {
    "lbc-pod-webhook-blocked-by-node-security-group": ("admission", "FailedCreate"),
    "ebs-attach-limit-per-pod-ephemeral-volume": ("scheduling", "FailedScheduling"),
    "ecr-repo-policy-org-path-after-node-drift": ("startup", "ImagePullBackOff"),
    "bound-token-expiry-client-reads-token-once": ("runtime", "Unhealthy"),
    "bare-metal-node-clock-behind-s3-skew": ("infrastructure", "NodeClockSkew"),
    "ingress-plain-http-to-tls-backend": ("service_routing", "IngressBackendProtocol"),
    "nlb-client-ip-preservation-vs-vpc-only-netpol": ("runtime", "NetworkPolicyDenied"),
}


NOW = datetime(2026, 12, 5, 14, 0, 0, tzinfo=UTC)
SUFFIX = "bcdfghjklmnpqrstvwxz2456789"


def stamp(lines: list[dict[str, Any]], seed: int) -> None:
    """Fills this set's own placeholders, each occurrence on its own: {iso} / {clf} (the line's time,
    ISO 8601 or nginx's), {oct} (an address octet), {pub} (a public client address), {port} (an
    ephemeral port), {sfx} (a pod-name suffix)."""
    rng = random.Random(seed)

    def public() -> str:
        first = rng.choice((49, 58, 81, 101, 112, 118, 124, 175, 180, 203))
        return (
            f"{first}.{rng.randint(1, 254)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}"
        )

    for line in lines:
        at = NOW + timedelta(seconds=line["offset_s"], milliseconds=rng.randint(0, 999))
        fills = {
            "{iso}": lambda at=at: (
                at.strftime("%Y-%m-%dT%H:%M:%S.") + f"{at.microsecond // 1000:03d}Z"
            ),
            "{clf}": lambda at=at: at.strftime("%d/%b/%Y:%H:%M:%S +0000"),
            "{oct}": lambda: str(rng.randint(2, 253)),
            "{pub}": public,
            "{port}": lambda: str(rng.randint(32768, 60999)),
            "{sfx}": lambda: "".join(rng.choice(SUFFIX) for _ in range(5)),
        }
        text = line["message"]
        for token, fill in fills.items():
            while token in text:
                text = text.replace(token, fill(), 1)
        line["message"] = text


def main(root: Path = HERE) -> None:
    for i, (slug, build) in enumerate(SCENARIOS.items()):
        spec = build()
        stamp(spec["logs"], 465 + i)
        if slug in STAGES:
            stage, reason = STAGES[slug]
            spec["expected"]["root_cause_stage"] = stage
            spec["expected"]["root_cause_reason"] = reason
        base.write(slug, spec, root)
        print(slug)


if __name__ == "__main__":
    main()
