"""Writes the ninth held-out scenario set, bench/heldout9 (issue 21 item 7): `python bench/heldout9/_build.py`.

New incidents, none of them in the bundled set or in bench/heldout … bench/heldout8. As there,
everything that matters is written by hand below (incident, expected answer, runbooks, kubectl
answers, the log lines that carry the fault and the red herrings); the bulk (background request
lines, 2 h of metric points thinned to one every 30 s, a namespace's tables, describe layouts) comes
from bench/heldout8/_build.py's and bench/heldout7/_build.py's helpers, each scenario with a fixed
seed (241-256). The author read neither the planner (`reasoning/`) nor the engine
(`diagnosis/engine/`, `docs/engine.md`), nor any score file. Stdlib only.
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


h8 = _load("heldout8_build", HERE.parent / "heldout8" / "_build.py")
h7 = h8.h7
base = h7.base

table = base.table
events = base.events
runbook = base.runbook
when = base.when
app = h7.app
pod_name = h7.pod_name
namespace = h7.namespace
ev = h7.ev
bg = h7.bg
logs = h7.logs
metrics = h7.metrics
incident = h7.incident
expected = h7.expected
simple = h7.simple
container_text = h7.container_text
deployment_describe = h7.deployment_describe
describe_pod = h7.describe_pod
podlog = h7.podlog
running = h7.running
crashloop = h7.crashloop
waiting = h7.waiting
node_describe = h7.node_describe
replicaset_describe = h8.replicaset_describe
add_pods = h8.add_pods
pending_pod = h8.pending_pod
ds_row = h7.ds_row
DS_HEADER = h7.DS_HEADER
NOT_READY = h7.NOT_READY
NODES_FRA = h7.NODES_FRA
NODES_PDX = h7.NODES_PDX
NODES_SYD = h7.NODES_SYD
NODES_DUB = h7.NODES_DUB
NODES_IAD = h8.NODES_IAD

NODES_ARN = [
    ("ip-10-33-1-87.eu-north-1.compute.internal", "Ready", "10.33.1.87"),
    ("ip-10-33-2-14.eu-north-1.compute.internal", "Ready", "10.33.2.14"),
    ("ip-10-33-3-162.eu-north-1.compute.internal", "Ready", "10.33.3.162"),
]

SCENARIOS: dict[str, Any] = {}


def scenario(slug: str):
    def register(fn):
        SCENARIOS[slug] = fn
        return fn

    return register


def sched(ns: str, pod: str, node: str, age: str) -> tuple[str, str, str, str, str]:
    """A pod's Scheduled event row (describe layout)."""
    return (
        "Normal",
        "Scheduled",
        age,
        "default-scheduler",
        f"Successfully assigned {ns}/{pod} to {node}",
    )


def kube_case(
    *,
    seed: int,
    start: int,
    inc: dict[str, Any],
    exp: dict[str, Any],
    k8s: dict[str, str],
    bgs: list[dict[str, Any]],
    evs: list[dict[str, Any]],
    services: list[dict[str, Any]],
    gauges: list[dict[str, Any]] = (),
    books: dict[str, str],
) -> dict[str, Any]:
    return {
        "incident": inc,
        "expected": exp,
        "kubernetes": k8s,
        "logs": logs(seed=seed, background=bgs, events=evs),
        "metrics": metrics(services, start=start, seed=seed, gauges=gauges),
        "runbooks": books,
    }


# =================================================================================================
# 1. Admission: a Gatekeeper constraint (K8sRequiredLabels `require-cost-center`) moved from dryrun
#    to deny two days ago; invoice-renderer's pod template has no cost-center label. Its running pods
#    were admitted long ago; once the month-end run makes the HPA scale out (and a node consolidation
#    evicts one pod), the ReplicaSet cannot create a single new pod. The incident says "billing".
# =================================================================================================


@scenario("gatekeeper-label-denies-scaleout")
def gatekeeper_label_denies_scaleout() -> dict[str, Any]:
    start = -1500
    ns = "billing"
    img = "registry.kestrel.example/billing/invoice-renderer:4.12.2"
    rs = "invoice-renderer-5d8b7c9f6"
    ir = app(
        "invoice-renderer",
        image=img,
        port=8080,
        rs="5d8b7c9f6",
        cluster_ip="10.110.40.22",
        desired=8,
        pods=[
            ("h2qmz", "1/1", "Running", "0", "19d", 0),
            ("x7kvd", "1/1", "Running", "0", "19d", 2),
        ],
    )
    portal = app(
        "billing-portal",
        image="registry.kestrel.example/billing/billing-portal:7.4.0",
        port=3000,
        rs="8c6f9d7b4",
        cluster_ip="10.110.40.5",
        pods=[
            ("b4tnl", "1/1", "Running", "0", "47m", 0),
            ("r8wcs", "1/1", "Running", "0", "47m", 1),
        ],
    )
    k8s = namespace(ns, NODES_ARN, [ir, portal], seed=241)
    msg = (
        'Error creating: admission webhook "validation.gatekeeper.sh" denied the request: '
        '[require-cost-center] you must provide labels: {"cost-center"}'
    )
    cont = container_text(
        "invoice-renderer",
        img,
        8080,
        limits="cpu:     2\n  memory:  2Gi",
        requests="cpu:      1\n  memory:   2Gi",
    )
    k8s[f"kubectl describe replicasets {rs} -n {ns}"] = replicaset_describe(
        rs,
        ns,
        deployment="invoice-renderer",
        revision=44,
        desired=8,
        current=2,
        status="2 Running / 0 Waiting / 0 Succeeded / 0 Failed",
        containers=cont,
        failure=True,
        events_rows=[
            (
                "Warning",
                "FailedCreate",
                "52s (x23 over 24m)",
                "replicaset-controller",
                msg,
            )
        ],
    )
    k8s[f"kubectl describe deployments invoice-renderer -n {ns}"] = deployment_describe(
        "invoice-renderer",
        ns,
        replicas="8 desired | 2 updated | 2 total | 2 available | 6 unavailable",
        revision=44,
        containers=cont,
        conditions=[
            ("Progressing", "True", "NewReplicaSetAvailable"),
            ("Available", "False", "MinimumReplicasUnavailable"),
            ("ReplicaFailure", "True", "FailedCreate"),
        ],
        old_rs="<none>",
        new_rs=f"{rs} (2/8 replicas created)",
        events_rows=[
            (
                "Normal",
                "ScalingReplicaSet",
                "25m",
                "deployment-controller",
                f"Scaled up replica set {rs} to 8 from 3",
            )
        ],
        labels="app=invoice-renderer,team=billing",
    )
    for sfx in ("h2qmz", "x7kvd"):
        describe_pod(
            k8s,
            ns,
            ir,
            sfx,
            NODES_ARN,
            state=running(-1641600),
            started=-1641600,
            ready=True,
            conditions=[
                ("Ready", "True"),
                ("ContainersReady", "True"),
                ("PodScheduled", "True"),
            ],
        )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "47m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/billing-portal",
                "Scaled up replica set billing-portal-8c6f9d7b4 to 2",
            ),
            (
                "26m",
                "Normal",
                "Evicted",
                "Pod/invoice-renderer-5d8b7c9f6-n5pjr",
                "Evicted pod: Underutilized (karpenter disruption of ip-10-33-4-201.eu-north-1.compute.internal)",
            ),
            (
                "25m",
                "Normal",
                "SuccessfulRescale",
                "HorizontalPodAutoscaler/invoice-renderer",
                "New size: 8; reason: cpu resource utilization (percentage of request) above target",
            ),
            (
                "25m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/invoice-renderer",
                f"Scaled up replica set {rs} to 8 from 3",
            ),
            ("52s (x23 over 24m)", "Warning", "FailedCreate", f"ReplicaSet/{rs}", msg),
        ]
    )
    irp = [pod_name(ir, s[0]) for s in ir["pods"]]
    pp = [pod_name(portal, s[0]) for s in portal["pods"]]
    evs = [
        ev(
            "gatekeeper-audit",
            "info",
            'constraint k8srequiredlabels/require-cost-center enforcementAction changed dryrun -> deny (PR platform-policies#412 "enforce FinOps labels")',
            at=-176000,
        ),
        ev(
            "gatekeeper-audit",
            "warn",
            'audit: 37 violations of require-cost-center (enforcementAction=deny); first: Deployment billing/invoice-renderer: you must provide labels: {"cost-center"}',
            **{"from": -7200, "to": -60, "every_s": 600},
        ),
        ev(
            "billing-batch",
            "info",
            "month-end run 2026-11 started: {n} invoices queued",
            at=start - 120,
        ),
        ev(
            "invoice-renderer",
            "warn",
            "render queue depth {n}, oldest job waited {ms}s",
            **{"from": start, "to": -2, "every_s": 20},
            pods=irp,
        ),
        ev(
            "billing-portal",
            "error",
            "GET /invoices/{n}/pdf 504 Gateway Timeout: upstream invoice-renderer did not answer within 30s",
            **{"from": start + 60, "to": -2, "every_s": 2.5},
            pods=pp,
        ),
        ev(
            "billing-portal",
            "info",
            "billing-portal 7.4.0 started (new dunning e-mail templates)",
            at=-2820,
            pods=pp,
        ),
        ev(
            "tax-service",
            "warn",
            "VAT rate table for NO cached for {ms}s beyond refresh interval",
            **{"from": -3600, "to": -5, "every_s": 420},
        ),
        ev(
            "invoice-renderer",
            "error",
            "chromium exited with signal 11 while rendering invoice {n}; retrying",
            **{"from": -9600, "to": -9300, "every_s": 60},
            pods=irp,
        ),
    ]
    return kube_case(
        seed=241,
        start=start,
        inc=incident(
            "invoice PDFs time out",
            "billing",
            start,
            ["customers can't download invoices"],
        ),
        exp=expected(
            "platform",
            [
                "deployment/invoice-renderer",
                "invoice-renderer",
                f"replicaset/{rs}",
                "k8srequiredlabels/require-cost-center",
                "require-cost-center",
            ],
            'you must provide labels: {"cost-center"}',
            "Two days ago the Gatekeeper constraint require-cost-center (K8sRequiredLabels) was switched from dryrun to deny; invoice-renderer's pod template has no cost-center label. Its running pods predate the change, so nothing showed until the month-end run made the HPA ask for 8 replicas and a Karpenter consolidation evicted one pod: every pod creation is denied at admission (validation.gatekeeper.sh: you must provide labels: {\"cost-center\"}), two pods carry the month-end load, the render queue grows and billing-portal times out. billing-portal's 504s are the loud victim; its release, the month-end run (the trigger), tax-service warnings and the old chromium crashes are not the cause.",
            [
                'ReplicaSet invoice-renderer-5d8b7c9f6 FailedCreate: admission webhook "validation.gatekeeper.sh" denied the request: [require-cost-center] you must provide labels: {"cost-center"}',
                "Deployment invoice-renderer: 8 desired, 2 available, ReplicaFailure True",
                "gatekeeper-audit: require-cost-center enforcementAction dryrun -> deny two days ago",
            ],
            "Add the cost-center label to invoice-renderer's pod template (or exempt the namespace while the labels are rolled out); the ReplicaSet then creates the missing pods.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "invoice-renderer",
                irp,
                ["POST /render 200 {ms}ms", "GET /healthz 200 1ms"],
                8,
            ),
            bg("billing-portal", pp, ["GET /invoices 200 {ms}ms"], 8),
        ],
        evs=evs,
        services=[
            {
                "name": "billing-portal",
                "rps": 35,
                "errors": {"504": (0.0, 0.22)},
                "latency": (0.12, 9.5),
            },
            {"name": "invoice-renderer", "rps": 14, "latency": (0.8, 24.0)},
        ],
        gauges=[
            {
                "name": "container_cpu_usage_ratio",
                "labels": {"service": "invoice-renderer"},
                "before": 0.45,
                "after": 0.98,
                "noise": 0.03,
            },
            {
                "name": "render_queue_depth",
                "labels": {"service": "invoice-renderer"},
                "before": 3,
                "after": 1900,
                "noise": 0.1,
            },
        ],
        books={
            "invoice-pdf-slow.md": runbook(
                "Invoice PDFs slow",
                'Slow invoice PDFs mean invoice-renderer is CPU-bound: raise the HPA\'s maxReplicas (`kubectl patch hpa invoice-renderer -n billing -p \'{"spec":{"maxReplicas":12}}\'`) and wait for the new pods.',
            )
        },
    )


# =================================================================================================
# 2. Scheduling: image-tagger needs one GPU per pod; the GPU node group's max size was lowered from
#    6 to 2 in a cost clean-up. The morning upload peak makes the HPA ask for 5 pods: 3 stay Pending
#    and the cluster autoscaler will not add a node (max node group size reached). New photos wait
#    hours to be tagged. The incident says "photo search".
# =================================================================================================

NODES_GPU = [
    *NODES_PDX,
    ("ip-10-90-2-45.us-west-2.compute.internal", "Ready", "10.90.2.45", "3d"),
    ("ip-10-90-3-188.us-west-2.compute.internal", "Ready", "10.90.3.188", "3d"),
]


@scenario("gpu-nodegroup-max-reached")
def gpu_nodegroup_max_reached() -> dict[str, Any]:
    start = -2400
    ns = "media-ml"
    img = "ghcr.io/lumengrid/image-tagger:2.3.0"
    it = app(
        "image-tagger",
        image=img,
        port=8000,
        rs="7c5d9b8f6",
        cluster_ip="10.100.50.31",
        desired=5,
        pods=[
            ("k9pzs", "1/1", "Running", "0", "3h", 3),
            ("t4wqn", "1/1", "Running", "0", "3h", 4),
            ("b8rlm", "0/1", "Pending", "0", "39m", -1),
            ("f2hvx", "0/1", "Pending", "0", "39m", -1),
            ("z6nck", "0/1", "Pending", "0", "39m", -1),
        ],
    )
    idx = app(
        "search-indexer",
        image="ghcr.io/lumengrid/search-indexer:9.1.4",
        port=8080,
        rs="5b9f7c6d8",
        cluster_ip="10.100.50.12",
        pods=[
            ("m3xqt", "1/1", "Running", "0", "6d", 0),
            ("p7vgd", "1/1", "Running", "0", "6d", 1),
        ],
    )
    k8s = namespace(ns, NODES_GPU, [it, idx], seed=242)
    msg = "0/5 nodes are available: 2 Insufficient nvidia.com/gpu, 3 node(s) didn't match Pod's node affinity/selector. preemption: 0/5 nodes are available: 2 No preemption victims found for incoming pod, 3 Preemption is not helpful for scheduling."
    ca = "pod didn't trigger scale-up: 1 max node group size reached, 1 node(s) didn't match Pod's node affinity/selector"
    cont = (
        "  image-tagger:\n    Image:      "
        + img
        + "\n    Port:       8000/TCP\n    Limits:\n      nvidia.com/gpu:  1\n    Requests:\n      cpu:             3\n      memory:          14Gi\n      nvidia.com/gpu:  1"
    )
    for sfx in ("b8rlm", "f2hvx", "z6nck"):
        name = pod_name(it, sfx)
        k8s[f"kubectl describe pods {name} -n {ns}"] = pending_pod(
            name,
            ns,
            owner="ReplicaSet/image-tagger-7c5d9b8f6",
            labels=["app=image-tagger", "pod-template-hash=7c5d9b8f6"],
            sa="image-tagger",
            containers=cont,
            events_rows=[
                (
                    "Warning",
                    "FailedScheduling",
                    "3m (x12 over 39m)",
                    "default-scheduler",
                    msg,
                ),
                (
                    "Normal",
                    "NotTriggerScaleUp",
                    "2m (x230 over 39m)",
                    "cluster-autoscaler",
                    ca,
                ),
            ],
        ).replace(
            "QoS Class:                   Burstable\n",
            "QoS Class:                   Burstable\nNode-Selectors:              karpenter.sh/nodepool=gpu-g5\nTolerations:                 nvidia.com/gpu:NoSchedule op=Exists\n",
        )
    k8s[f"kubectl describe deployments image-tagger -n {ns}"] = deployment_describe(
        "image-tagger",
        ns,
        replicas="5 desired | 5 updated | 5 total | 2 available | 3 unavailable",
        revision=19,
        containers=cont.replace("  image-tagger:", "   image-tagger:"),
        conditions=[
            ("Progressing", "True", "NewReplicaSetAvailable"),
            ("Available", "False", "MinimumReplicasUnavailable"),
        ],
        old_rs="<none>",
        new_rs="image-tagger-7c5d9b8f6 (5/5 replicas created)",
        events_rows=[
            (
                "Normal",
                "ScalingReplicaSet",
                "39m",
                "deployment-controller",
                "Scaled up replica set image-tagger-7c5d9b8f6 to 5 from 2",
            )
        ],
    ).replace(
        "  Node-Selectors:            <none>\n",
        "  Node-Selectors:            karpenter.sh/nodepool=gpu-g5\n",
    )
    pend = [pod_name(it, s) for s in ("b8rlm", "f2hvx", "z6nck")]
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "39m",
                "Normal",
                "SuccessfulRescale",
                "HorizontalPodAutoscaler/image-tagger",
                "New size: 5; reason: external metric tagging_queue_depth(nil) above target",
            ),
            (
                "39m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/image-tagger",
                "Scaled up replica set image-tagger-7c5d9b8f6 to 5 from 2",
            ),
            *[
                ("3m (x12 over 39m)", "Warning", "FailedScheduling", f"Pod/{p}", msg)
                for p in pend
            ],
            *[
                ("2m (x230 over 39m)", "Normal", "NotTriggerScaleUp", f"Pod/{p}", ca)
                for p in pend
            ],
        ]
    )
    for i, n in enumerate(NODES_GPU[3:]):
        k8s[f"kubectl describe nodes {n[0]}"] = node_describe(
            n[0],
            n[2],
            capacity=("8", "32386260Ki", "58"),
            pods_rows=[
                (ns, pod_name(it, ("k9pzs", "t4wqn")[i])),
                (
                    "kube-system",
                    f"nvidia-device-plugin-daemonset-{('8xk2p', 'q4mzn')[i]}",
                ),
            ],
        ).replace(
            "Taints:             <none>",
            "Taints:             nvidia.com/gpu=true:NoSchedule",
        )
    itp = [pod_name(it, s) for s in ("k9pzs", "t4wqn")]
    ip = [pod_name(idx, s[0]) for s in idx["pods"]]
    evs = [
        ev(
            "terraform",
            "info",
            'module.eks.module.nodegroups["gpu-g5"]: Modifications complete after 41s [scaling_config.max_size: 6 -> 2] (PR infra#1187 "trim idle GPU capacity")',
            at=-262000,
        ),
        ev(
            "cluster-autoscaler",
            "warn",
            f"Pod {ns}/{{n}} is unschedulable; {ca}",
            **{"from": start + 20, "to": -2, "every_s": 30},
        ),
        ev(
            "cluster-autoscaler",
            "info",
            "Skipping node group eks-gpu-g5-2026110412 - max size reached (current: 2, max: 2)",
            **{"from": start + 15, "to": -2, "every_s": 60},
        ),
        ev(
            "image-tagger",
            "warn",
            "tagging queue depth {n} (lag {ms}s), batch size 32",
            **{"from": start, "to": -2, "every_s": 30},
            pods=itp,
        ),
        ev(
            "search-indexer",
            "error",
            "photo {n} indexed without labels: tagging result not available after 900s, search by content will miss it",
            **{"from": start + 900, "to": -2, "every_s": 4},
            pods=ip,
        ),
        ev(
            "search-api",
            "error",
            "GET /v2/search?q={n} 200 but 0 hits for uploads newer than 35m (index freshness SLO breached)",
            **{"from": start + 1200, "to": -2, "every_s": 6},
        ),
        ev(
            "argocd",
            "info",
            "application media-ml/image-tagger synced to 2.3.0 (ViT-L model, better food labels)",
            at=-10800,
        ),
        ev(
            "dcgm-exporter",
            "warn",
            "GPU 0 XID 63 (row remap pending) on {n}; no action required",
            **{"from": -3600, "to": -10, "every_s": 700},
        ),
        ev(
            "image-tagger",
            "error",
            "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB (GPU 0; 22.19 GiB total capacity)",
            **{"from": -8600, "to": -8300, "every_s": 60},
            pods=itp,
        ),
    ]
    return kube_case(
        seed=242,
        start=start,
        inc=incident("new photos not searchable", "photo search", start),
        exp=expected(
            "platform",
            [
                "gpu-g5",
                "nodegroup/gpu-g5",
                "eks-gpu-g5-2026110412",
                "deployment/image-tagger",
                "image-tagger",
            ],
            "max node group size reached",
            "image-tagger needs one GPU per pod and only runs on the gpu-g5 node group, whose max size a Terraform cost clean-up lowered from 6 to 2 three days ago. At the morning upload peak the HPA asked for 5 pods: 2 run on the two GPU nodes, 3 stay Pending (2 Insufficient nvidia.com/gpu) and the cluster autoscaler will not add a node (max node group size reached). The tagging queue grows and new photos are indexed without labels. search-indexer and search-api complaints are the louder victim; the 2.3.0 model release, the DCGM XID warnings and the old CUDA OOM are not the cause.",
            [
                "image-tagger pods Pending: 2 Insufficient nvidia.com/gpu",
                "cluster-autoscaler NotTriggerScaleUp: 1 max node group size reached (current: 2, max: 2)",
                "terraform: gpu-g5 scaling_config.max_size 6 -> 2 three days ago",
            ],
            "Raise gpu-g5's max size back (6) so the autoscaler adds GPU nodes; alert on NotTriggerScaleUp.",
        ),
        k8s=k8s,
        bgs=[
            bg("image-tagger", itp, ["POST /v1/tag 200 {ms}ms batch=32"], 8),
            bg("search-indexer", ip, ["indexed photo {n} in {ms}ms"], 8),
        ],
        evs=evs,
        services=[
            {"name": "search-api", "rps": 40, "latency": (0.09, 0.1)},
            {"name": "image-tagger", "rps": 6, "latency": (0.6, 0.62)},
        ],
        gauges=[
            {
                "name": "tagging_queue_depth",
                "labels": {"service": "image-tagger"},
                "before": 120,
                "after": 48000,
                "noise": 0.05,
            }
        ],
        books={
            "tagging-lag.md": runbook(
                "Photo tagging lag",
                "Tagging lag usually comes from CUDA out-of-memory restarts: lower TAGGER_BATCH_SIZE to 16 in image-tagger's ConfigMap and restart the Deployment.",
            )
        },
    )


# =================================================================================================
# 3. Startup: the cluster moved to a new node group whose nodes carry a `dedicated=apps:NoSchedule`
#    taint. The apps tolerate it; the EFS CSI node DaemonSet (chart defaults) does not, so no new node
#    runs the CSI node plugin. doc-store's pods, drained onto the new nodes, stay ContainerCreating:
#    the EFS volume cannot be mounted. The incident says "document uploads".
# =================================================================================================


@scenario("csi-node-plugin-missing-tainted-nodes")
def csi_node_plugin_missing_tainted_nodes() -> dict[str, Any]:
    start = -1740
    ns = "documents"
    img = "ghcr.io/parcelbyte/doc-store:3.9.1"
    ds_app = app(
        "doc-store",
        image=img,
        port=8080,
        rs="6b9d8c7f5",
        cluster_ip="10.100.30.40",
        pods=[
            ("c7lqp", "0/1", "ContainerCreating", "0", "29m", 0),
            ("j4wzs", "0/1", "ContainerCreating", "0", "29m", 1),
            ("v9mtk", "0/1", "ContainerCreating", "0", "29m", 2),
        ],
    )
    web = app(
        "docs-web",
        image="ghcr.io/parcelbyte/docs-web:15.0.3",
        port=3000,
        rs="9f6c7d8b5",
        cluster_ip="10.100.30.4",
        pods=[
            ("g5hnr", "1/1", "Running", "0", "29m", 0),
            ("s2kxd", "1/1", "Running", "0", "29m", 2),
        ],
    )
    nodes = [(n[0], n[1], n[2], "35m") for n in NODES_SYD]
    k8s = namespace(ns, nodes, [ds_app, web], seed=243)
    h7.h5.no_sandbox_ips(k8s, ns)
    fail = 'MountVolume.MountDevice failed for volume "pvc-5c2e8a41-7d3b-4f19-9a6e-0b8d2c4e7f13" : kubernetes.io/csi: attacher.MountDevice failed to create newCsiDriverClient: driver name efs.csi.aws.com not found in the list of registered CSI drivers'
    for i, sfx in enumerate(("c7lqp", "j4wzs", "v9mtk")):
        p = pod_name(ds_app, sfx)
        describe_pod(
            k8s,
            ns,
            ds_app,
            sfx,
            nodes,
            state=waiting("ContainerCreating"),
            started=-1740,
            status="Pending",
            conditions=h7.h5.NO_SANDBOX,
            extra="    Mounts:\n      /srv/documents from documents (rw)\n",
            events_rows=[
                sched(ns, p, nodes[i][0], "29m"),
                ("Warning", "FailedMount", "90s (x22 over 29m)", "kubelet", fail),
                (
                    "Warning",
                    "FailedMount",
                    "4m (x6 over 27m)",
                    "kubelet",
                    "Unable to attach or mount volumes: unmounted volumes=[documents], unattached volumes=[], failed to process volumes=[]: timed out waiting for the condition",
                ),
            ],
        )
    for sfx in ("c7lqp", "j4wzs", "v9mtk"):
        key = f"kubectl describe pods {pod_name(ds_app, sfx)} -n {ns}"
        k8s[key] = k8s[key].replace(
            "Tolerations:                 node.kubernetes.io/not-ready",
            "Tolerations:                 dedicated=apps:NoSchedule op=Exists\n                             node.kubernetes.io/not-ready",
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
                "AGE",
            ],
            [
                "documents",
                "Bound",
                "pvc-5c2e8a41-7d3b-4f19-9a6e-0b8d2c4e7f13",
                "5Ti",
                "RWX",
                "efs-sc",
                "612d",
            ],
        ]
    )
    k8s["kubectl get daemonsets -n kube-system -o wide"] = table(
        [
            DS_HEADER,
            ds_row(
                "aws-node",
                3,
                3,
                "612d",
                "aws-node,aws-eks-nodeagent",
                "602401143452.dkr.ecr.ap-southeast-2.amazonaws.com/amazon-k8s-cni:v1.19.0-eksbuild.1",
                "k8s-app=aws-node",
            ),
            ds_row(
                "ebs-csi-node",
                3,
                3,
                "612d",
                "ebs-plugin,node-driver-registrar,liveness-probe",
                "602401143452.dkr.ecr.ap-southeast-2.amazonaws.com/eks/aws-ebs-csi-driver:v1.37.0",
                "app=ebs-csi-node",
            ),
            ds_row(
                "efs-csi-node",
                0,
                0,
                "498d",
                "efs-plugin,csi-driver-registrar,liveness-probe",
                "602401143452.dkr.ecr.ap-southeast-2.amazonaws.com/eks/aws-efs-csi-driver:v2.1.0",
                "app=efs-csi-node",
            ),
            ds_row(
                "kube-proxy",
                3,
                3,
                "612d",
                "kube-proxy",
                "602401143452.dkr.ecr.ap-southeast-2.amazonaws.com/eks/kube-proxy:v1.31.2-minimal-eksbuild.3",
                "k8s-app=kube-proxy",
            ),
        ]
    )
    k8s["kubectl describe daemonsets efs-csi-node -n kube-system"] = (
        "Name:           efs-csi-node\nSelector:       app=efs-csi-node\nNode-Selector:  kubernetes.io/os=linux\nLabels:         app.kubernetes.io/instance=aws-efs-csi-driver\n                app.kubernetes.io/managed-by=Helm\n"
        "Desired Number of Nodes Scheduled: 0\nCurrent Number of Nodes Scheduled: 0\nNumber of Nodes Scheduled with Up-to-date Pods: 0\nNumber of Nodes Scheduled with Available Pods: 0\nNumber of Nodes Misscheduled: 0\n"
        "Pods Status:  0 Running / 0 Waiting / 0 Succeeded / 0 Failed\nPod Template:\n  Labels:           app=efs-csi-node\n  Service Account:  efs-csi-node-sa\n  Containers:\n   efs-plugin:\n    Image:      602401143452.dkr.ecr.ap-southeast-2.amazonaws.com/eks/aws-efs-csi-driver:v2.1.0\n"
        "  Priority Class Name:  system-node-critical\n  Tolerations:          CriticalAddonsOnly op=Exists\nEvents:\n  Type    Reason            Age   From                  Message\n  ----    ------            ----  ----                  -------\n"
        "  Normal  SuccessfulDelete  41m   daemonset-controller  Deleted pod: efs-csi-node-7xq2m\n  Normal  SuccessfulDelete  38m   daemonset-controller  Deleted pod: efs-csi-node-l9vbt\n  Normal  SuccessfulDelete  35m   daemonset-controller  Deleted pod: efs-csi-node-c4np8\n"
    )
    sfx_ds = [("q7m2x", "d8w4n"), ("l3k9v", "t5p2c"), ("z6r8f", "h2x7m")]
    for i, n in enumerate(nodes):
        on_node = [pod_name(ds_app, s[0]) for s in ds_app["pods"] if s[5] == i]
        on_node += [pod_name(web, s[0]) for s in web["pods"] if s[5] == i]
        k8s[f"kubectl describe nodes {n[0]}"] = (
            node_describe(
                n[0],
                n[2],
                pods_rows=[
                    *[(ns, p) for p in on_node],
                    ("kube-system", f"aws-node-{sfx_ds[i][0]}"),
                    ("kube-system", f"ebs-csi-node-{sfx_ds[i][1]}"),
                    ("kube-system", f"kube-proxy-{sfx_ds[i][1][::-1]}"),
                ],
            )
            .replace(
                "Taints:             <none>",
                "Taints:             dedicated=apps:NoSchedule",
            )
            .replace("          3h\n", "          29m\n")
            .replace(when(-3542400), when(-2100))
        )
    dsp = [pod_name(ds_app, s[0]) for s in ds_app["pods"]]
    k8s[f"kubectl events -n {ns}"] = events(
        [
            *[
                (
                    "29m",
                    "Normal",
                    "Scheduled",
                    f"Pod/{p}",
                    f"Successfully assigned {ns}/{p} to {nodes[i][0]}",
                )
                for i, p in enumerate(dsp)
            ],
            *[
                ("90s (x22 over 29m)", "Warning", "FailedMount", f"Pod/{p}", fail)
                for p in dsp
            ],
        ]
    )
    wp = [pod_name(web, s[0]) for s in web["pods"]]
    evs = [
        ev(
            "eks",
            "info",
            "nodegroup ng-apps-v3 (taint dedicated=apps:NoSchedule) created; ng-apps-v2 drained and deleted (migration CHG-5532)",
            at=start - 360,
        ),
        ev(
            "docs-web",
            "error",
            "POST /api/upload 503: doc-store unavailable (no healthy upstream)",
            **{"from": start + 30, "to": -2, "every_s": 2},
            pods=wp,
        ),
        ev(
            "docs-web",
            "error",
            "GET /api/documents/{n} 503: doc-store unavailable (no healthy upstream)",
            **{"from": start + 30, "to": -2, "every_s": 3},
            pods=wp,
        ),
        ev(
            "docs-web",
            "info",
            "docs-web 15.0.3 started (drag and drop for folders)",
            at=start - 200,
            pods=wp,
        ),
        ev(
            "virus-scan",
            "warn",
            "clamd signature database is {n} hours old",
            **{"from": -3600, "to": -5, "every_s": 600},
        ),
        ev(
            "thumbnailer",
            "warn",
            "unsupported color profile in {n}.tiff, using sRGB",
            **{"from": -3600, "to": -5, "every_s": 240},
        ),
        ev(
            "doc-store",
            "error",
            "write /srv/documents/tmp/{n}.part: no space left on device (quota docs-tmp)",
            **{"from": -9800, "to": -9500, "every_s": 45},
            pods=["doc-store-54c8d9f7b-old2q"],
        ),
    ]
    return kube_case(
        seed=243,
        start=start,
        inc=incident(
            "uploads broken",
            "document uploads",
            start,
            ["uploading a document fails with 503"],
        ),
        exp=expected(
            "platform",
            [
                "daemonset/efs-csi-node",
                "efs-csi-node",
                "efs.csi.aws.com",
                "aws-efs-csi-driver",
            ],
            "driver name efs.csi.aws.com not found in the list of registered CSI drivers",
            "The apps were moved to node group ng-apps-v3, whose nodes carry the taint dedicated=apps:NoSchedule. doc-store tolerates it, but the EFS CSI node DaemonSet (Helm chart defaults: only CriticalAddonsOnly) does not, so it runs on no node (0 desired) since the old nodes were drained. doc-store's pods, recreated on the new nodes, cannot mount their EFS volume (driver name efs.csi.aws.com not found in the list of registered CSI drivers) and stay ContainerCreating; uploads and downloads fail. docs-web's 503s are the loud victim; its release, the node-group migration (the trigger), the scanner and thumbnail noise and the old quota error are not the cause.",
            [
                "doc-store pods ContainerCreating: FailedMount driver name efs.csi.aws.com not found in the list of registered CSI drivers",
                "DaemonSet efs-csi-node: 0 desired, tolerations CriticalAddonsOnly only",
                "new nodes tainted dedicated=apps:NoSchedule",
            ],
            "Give efs-csi-node a toleration for the nodes' taint (or `operator: Exists`) so the node plugin runs on every node; doc-store's pods then mount their volume.",
        ),
        k8s=k8s,
        bgs=[bg("docs-web", wp, ["GET /app 200 {ms}ms", "GET /healthz 200 1ms"], 8)],
        evs=evs,
        services=[
            {
                "name": "docs-web",
                "rps": 25,
                "errors": {"503": (0.0, 0.4)},
                "latency": (0.1, 0.02),
            },
        ],
        books={
            "uploads-failing.md": runbook(
                "Uploads failing",
                "Failing uploads are almost always the virus scanner: restart clamd (`kubectl rollout restart deployment/virus-scan -n documents`) and check its signature update.",
            )
        },
    )


# =================================================================================================
# 4. Runtime: ticket-api's liveness probe calls /actuator/health, which includes the database check
#    (a refactor moved liveness from /actuator/health/liveness to the aggregate). Since a planned
#    Postgres switchover put the primary in another zone, the DB check sometimes exceeds the probe's
#    1 s timeout under load; kubelet kills healthy pods mid-purchase, all of them in turn.
#    The incident says "concert tickets".
# =================================================================================================


@scenario("liveness-includes-database-check")
def liveness_includes_database_check() -> dict[str, Any]:
    start = -2280
    ns = "ticketing"
    img = "ghcr.io/stagegate/ticket-api:11.4.0"
    ta = app(
        "ticket-api",
        image=img,
        port=8080,
        rs="8d6b9f7c5",
        cluster_ip="10.100.20.17",
        pods=[
            ("c2xwp", "1/1", "Running", "9 (3m12s ago)", "6d", 0),
            ("g7nqk", "0/1", "Running", "8 (41s ago)", "6d", 1),
            ("r5tbl", "1/1", "Running", "9 (6m2s ago)", "6d", 2),
            ("w3hzm", "1/1", "Running", "7 (2m30s ago)", "6d", 0),
        ],
    )
    shop = app(
        "ticket-shop",
        image="ghcr.io/stagegate/ticket-shop:5.20.1",
        port=3000,
        rs="6c8f7b9d4",
        cluster_ip="10.100.20.3",
        pods=[
            ("d9kfr", "1/1", "Running", "0", "3h", 1),
            ("m4plx", "1/1", "Running", "0", "3h", 2),
        ],
    )
    k8s = namespace(ns, NODES_FRA, [ta, shop], seed=244)
    live = "http-get http://:8080/actuator/health delay=30s timeout=1s period=5s #success=1 #failure=3"
    unhealthy = "Liveness probe failed: HTTP probe failed with statuscode: 503"
    tap = [pod_name(ta, s[0]) for s in ta["pods"]]
    for i, sfx in enumerate(("c2xwp", "g7nqk", "r5tbl", "w3hzm")):
        p = tap[i]
        describe_pod(
            k8s,
            ns,
            ta,
            sfx,
            NODES_FRA,
            state=running(-190 + i * 20)
            + "\n    Last State:     Terminated\n      Reason:       Error\n      Exit Code:    143\n"
            + f"      Started:      {when(-640 + i * 20)}\n      Finished:     {when(-192 + i * 20)}",
            started=-518400,
            ready=sfx != "g7nqk",
            restarts=(9, 8, 9, 7)[i],
            probes=f"    Liveness:     {live}\n    Readiness:    http-get http://:8080/actuator/health/readiness delay=10s timeout=1s period=5s #success=1 #failure=3\n",
            events_rows=[
                ("Warning", "Unhealthy", "3m (x41 over 37m)", "kubelet", unhealthy),
                (
                    "Warning",
                    "Unhealthy",
                    "5m (x12 over 37m)",
                    "kubelet",
                    'Liveness probe failed: Get "http://'
                    + h7.ips_of(k8s, ns)[p]
                    + ':8080/actuator/health": context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
                ),
                (
                    "Normal",
                    "Killing",
                    "3m (x9 over 37m)",
                    "kubelet",
                    "Container ticket-api failed liveness probe, will be restarted",
                ),
                (
                    "Normal",
                    "Pulled",
                    "3m (x9 over 37m)",
                    "kubelet",
                    f'Container image "{img}" already present on machine',
                ),
            ],
        )
        k8s[f"kubectl logs {p} -n {ns} --previous --tail=1000"] = podlog(
            [
                (
                    -700 + i * 20,
                    "INFO  o.s.b.w.e.tomcat.TomcatWebServer : Tomcat started on port 8080 (http) with context path '/'",
                ),
                (
                    -420 + i * 20,
                    "WARN  c.z.h.p.HikariPool : HikariPool-1 - Connection is not available, request timed out after 1000ms (total=20, active=20, idle=0, waiting=31)",
                ),
                (
                    -300 + i * 20,
                    "WARN  o.s.b.a.j.DataSourceHealthIndicator : DataSource health check failed: HikariPool-1 - Connection is not available, request timed out after 1000ms",
                ),
                (
                    -240 + i * 20,
                    'INFO  o.s.b.a.h.HealthEndpointWebExtension : GET /actuator/health 503 {"status":"DOWN","components":{"db":{"status":"DOWN"},"diskSpace":{"status":"UP"},"ping":{"status":"UP"}}}',
                ),
                (
                    -200 + i * 20,
                    "INFO  o.s.c.s.DefaultLifecycleProcessor : Commencing graceful shutdown. Waiting for active requests to complete",
                ),
                (
                    -193 + i * 20,
                    "WARN  c.s.t.PurchaseService : purchase 8841{n} aborted by shutdown after payment authorization; will be reconciled".replace(
                        "{n}", str(120 + i)
                    ),
                ),
            ]
        )
    k8s[f"kubectl describe deployments ticket-api -n {ns}"] = deployment_describe(
        "ticket-api",
        ns,
        replicas="4 desired | 4 updated | 4 total | 3 available | 1 unavailable",
        revision=88,
        containers=container_text(
            "ticket-api",
            img,
            8080,
            liveness=live,
            readiness="http-get http://:8080/actuator/health/readiness delay=10s timeout=1s period=5s #success=1 #failure=3",
            env={
                "SPRING_DATASOURCE_URL": "jdbc:postgresql://tickets-db-rw.db.svc:5432/tickets",
                "MANAGEMENT_ENDPOINT_HEALTH_PROBES_ENABLED": "false",
            },
        ),
        conditions=[
            ("Available", "True", "MinimumReplicasAvailable"),
            ("Progressing", "True", "NewReplicaSetAvailable"),
        ],
        old_rs="<none>",
        new_rs="ticket-api-8d6b9f7c5 (4/4 replicas created)",
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            *[
                ("3m (x41 over 37m)", "Warning", "Unhealthy", f"Pod/{p}", unhealthy)
                for p in tap
            ],
            *[
                (
                    "3m (x9 over 37m)",
                    "Normal",
                    "Killing",
                    f"Pod/{p}",
                    "Container ticket-api failed liveness probe, will be restarted",
                )
                for p in tap
            ],
        ]
    )
    sp = [pod_name(shop, s[0]) for s in shop["pods"]]
    evs = [
        ev(
            "patroni",
            "info",
            "switchover to tickets-db-1 (eu-central-1c) completed; tickets-db-0 is now a replica (maintenance CHG-7710)",
            at=start - 40,
        ),
        ev(
            "tickets-db",
            "warn",
            "app=ticket-api duration: {ms}4.112 ms  statement: SELECT 1",
            **{"from": start, "to": -5, "every_s": 45},
        ),
        ev(
            "ticket-api",
            "warn",
            "HikariPool-1 - Connection is not available, request timed out after 1000ms (total=20, active=20, idle=0, waiting={n})",
            **{"from": start + 30, "to": -3, "every_s": 12},
            pods=tap,
        ),
        ev(
            "ticket-api",
            "info",
            'GET /actuator/health 503 {"status":"DOWN","components":{"db":{"status":"DOWN"},"diskSpace":{"status":"UP"},"ping":{"status":"UP"}}}',
            **{"from": start + 40, "to": -3, "every_s": 20},
            pods=tap,
        ),
        ev(
            "ticket-api",
            "info",
            "Commencing graceful shutdown. Waiting for active requests to complete",
            **{"from": start + 120, "to": -30, "every_s": 95},
            pods=tap,
        ),
        ev(
            "ticket-shop",
            "error",
            "POST /checkout 502: upstream ticket-api connection reset (ECONNRESET)",
            **{"from": start + 120, "to": -2, "every_s": 3},
            pods=sp,
        ),
        ev(
            "ticket-shop",
            "error",
            "GET /events/{n}/seats 503: no healthy upstream",
            **{"from": start + 130, "to": -2, "every_s": 4},
            pods=sp,
        ),
        ev(
            "ticket-shop",
            "info",
            "ticket-shop 5.20.1 started (queue-it waiting room banner)",
            at=-10500,
            pods=sp,
        ),
        ev(
            "payment-gw",
            "warn",
            "3DS challenge timeout for card BIN {n}",
            **{"from": -3600, "to": -5, "every_s": 180},
        ),
        ev(
            "ticket-api",
            "error",
            "org.postgresql.util.PSQLException: ERROR: deadlock detected (seat_holds)",
            **{"from": -9000, "to": -8700, "every_s": 50},
            pods=tap,
        ),
    ]
    return kube_case(
        seed=244,
        start=start,
        inc=incident("ticket sales failing", "concert tickets", start),
        exp=expected(
            "application",
            ["deployment/ticket-api", "ticket-api", "replicaset/ticket-api-8d6b9f7c5"],
            "Liveness probe failed: HTTP probe failed with statuscode: 503",
            "ticket-api's liveness probe calls /actuator/health, the aggregate that includes the database check (liveness probes on the dedicated /actuator/health/liveness group are disabled), with a 1 s timeout. Since the planned Patroni switchover put the primary in another zone, the pool's DB check sometimes takes over 1 s under the on-sale load; the health answer becomes 503 (db DOWN) and kubelet kills healthy pods in turn (7-9 restarts each in 37 min), aborting purchases and resetting ticket-shop's connections. ticket-shop's 502/503 are the loud victim; the switchover is the trigger (the DB is up), its release, 3DS timeouts and the old deadlock are not the cause.",
            [
                "ticket-api Unhealthy: Liveness probe failed: HTTP probe failed with statuscode: 503; Killing: failed liveness probe, will be restarted",
                'GET /actuator/health 503 {"status":"DOWN","components":{"db":{"status":"DOWN"}}}',
                "liveness http-get /actuator/health timeout=1s; patroni switchover 38 min ago",
            ],
            "Point the liveness probe at /actuator/health/liveness (enable management.endpoint.health.probes) so it does not include the database; keep the DB check in readiness only.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "ticket-api",
                tap,
                ["GET /v3/events/{n}/seats 200 {ms}ms", "POST /v3/holds 201 {ms}ms"],
                8,
            ),
            bg("ticket-shop", sp, ["GET /events/{n} 200 {ms}ms"], 8),
        ],
        evs=evs,
        services=[
            {
                "name": "ticket-shop",
                "rps": 80,
                "errors": {"502": (0.0, 0.08), "503": (0.0, 0.06)},
                "latency": (0.15, 0.6),
            },
            {
                "name": "ticket-api",
                "rps": 60,
                "errors": {"500": (0.0, 0.03)},
                "latency": (0.05, 0.4),
            },
        ],
        gauges=[
            {
                "name": "kube_pod_container_status_restarts_rate",
                "labels": {"service": "ticket-api"},
                "before": 0,
                "after": 0.25,
                "noise": 0.2,
            }
        ],
        books={
            "db-failover.md": runbook(
                "After a database failover",
                "After a Patroni switchover, stale connections to the old primary make ticket-api fail: restart it (`kubectl rollout restart deployment/ticket-api -n ticketing`).",
            )
        },
    )


# =================================================================================================
# 5. Infrastructure / node: a node from a new hardened AMI (CIS baseline) joined the pool with
#    fs.inotify.max_user_instances=128. Every pod that watches files on it (catalog-api's config
#    watcher) exits at start: the node is Ready, the other nodes' pods are fine. The incident says
#    "product catalog".
# =================================================================================================


@scenario("inotify-instances-hardened-node")
def inotify_instances_hardened_node() -> dict[str, Any]:
    start = -1980
    ns = "catalog"
    img = "ghcr.io/brightcart/catalog-api:8.2.0"
    bad = "ip-10-90-4-131.us-west-2.compute.internal"
    nodes = [*NODES_PDX, (bad, "Ready", "10.90.4.131", "34m")]
    ca = app(
        "catalog-api",
        image=img,
        port=8080,
        rs="5f7d9c8b6",
        cluster_ip="10.100.14.9",
        pods=[
            ("b3nvq", "1/1", "Running", "0", "2h", 0),
            ("h8kzt", "1/1", "Running", "0", "2h", 1),
            ("p2wmc", "1/1", "Running", "0", "2h", 2),
            ("t6rdx", "0/1", "CrashLoopBackOff", "10 (2m5s ago)", "32m", 3),
            ("y9lfs", "0/1", "CrashLoopBackOff", "10 (1m20s ago)", "32m", 3),
        ],
    )
    sf = app(
        "storefront",
        image="ghcr.io/brightcart/storefront:31.7.2",
        port=3000,
        rs="7b6c8d9f4",
        cluster_ip="10.100.14.3",
        pods=[
            ("f5qxn", "1/1", "Running", "0", "5d", 0),
            ("k1vzr", "1/1", "Running", "0", "5d", 2),
        ],
    )
    k8s = namespace(ns, nodes, [ca, sf], seed=245)
    err = "F1206 main.go:88] watching /etc/catalog/config.yaml: failed to create fsnotify watcher: too many open files"
    for sfx in ("t6rdx", "y9lfs"):
        p = pod_name(ca, sfx)
        describe_pod(
            k8s,
            ns,
            ca,
            sfx,
            nodes,
            state=crashloop(255, "Error", -130, -129),
            started=-1920,
            restarts=10,
            events_rows=[
                sched(ns, p, bad, "32m"),
                (
                    "Normal",
                    "Pulled",
                    "2m (x11 over 32m)",
                    "kubelet",
                    f'Container image "{img}" already present on machine',
                ),
                (
                    "Warning",
                    "BackOff",
                    "30s (x145 over 31m)",
                    "kubelet",
                    f"Back-off restarting failed container catalog-api in pod {p}_{ns}",
                ),
            ],
        )
        k8s[f"kubectl logs {p} -n {ns} --previous --tail=1000"] = podlog(
            [
                (-130, "I1206 main.go:41] catalog-api 8.2.0 (go1.23.4) starting"),
                (
                    -130,
                    "I1206 main.go:63] loaded config from /etc/catalog/config.yaml (14 keys)",
                ),
                (-129, err),
            ]
        )
    k8s[f"kubectl describe nodes {bad}"] = (
        node_describe(
            bad,
            "10.90.4.131",
            pods_rows=[
                (ns, pod_name(ca, "t6rdx")),
                (ns, pod_name(ca, "y9lfs")),
                ("kube-system", "aws-node-7k2xq"),
                ("kube-system", "kube-proxy-q8n4d"),
                ("monitoring", "node-exporter-w5lrp"),
            ],
        )
        .replace(
            "                    node.kubernetes.io/instance-type=m6i.2xlarge\n",
            "                    node.kubernetes.io/instance-type=m6i.2xlarge\n                    eks.amazonaws.com/nodegroup=ng-hardened-v1\n                    brightcart.io/ami=ami-0c4e91d7a25f83b60-cis-l1\n",
        )
        .replace("          3h\n", "          32m\n")
        .replace(when(-3542400), when(-2020))
    )
    cp = [pod_name(ca, s[0]) for s in ca["pods"]]
    k8s[f"kubectl events -n {ns}"] = events(
        [
            *[
                (
                    "32m",
                    "Normal",
                    "Scheduled",
                    f"Pod/{p}",
                    f"Successfully assigned {ns}/{p} to {bad}",
                )
                for p in cp[3:]
            ],
            *[
                (
                    "30s (x145 over 31m)",
                    "Warning",
                    "BackOff",
                    f"Pod/{p}",
                    f"Back-off restarting failed container catalog-api in pod {p}_{ns}",
                )
                for p in cp[3:]
            ],
        ]
    )
    sp = [pod_name(sf, s[0]) for s in sf["pods"]]
    evs = [
        ev(
            "eks",
            "info",
            f"node {bad} joined nodegroup ng-hardened-v1 (launch template lt-0e7a brightcart-cis-l1 v3, ami-0c4e91d7a25f83b60)",
            at=start - 90,
        ),
        ev(
            "cluster-autoscaler",
            "info",
            "scale-up: setting group ng-hardened-v1 size to 1 (pods pending: catalog-api x2)",
            at=start - 200,
        ),
        ev(
            "kubelet",
            "warn",
            f"node {bad}: inotify_init: too many open files (fs.inotify.max_user_instances=128)",
            **{"from": start, "to": -10, "every_s": 300},
        ),
        ev(
            "catalog-api",
            "error",
            err,
            **{"from": start + 10, "to": -60, "every_s": 150},
            pods=cp[3:],
        ),
        ev(
            "storefront",
            "error",
            "GET /p/{n} 502: catalog-api upstream connect error or disconnect/reset before headers",
            **{"from": start + 30, "to": -2, "every_s": 4},
            pods=sp,
        ),
        ev(
            "storefront",
            "warn",
            "GET /p/{n} served from stale cache (catalog-api timeout 800ms)",
            **{"from": start, "to": -2, "every_s": 6},
            pods=sp,
        ),
        ev(
            "argocd",
            "info",
            "application catalog/catalog-api synced to 8.2.0 (faceted filters for size)",
            at=-7300,
        ),
        ev(
            "search-sync",
            "warn",
            "bulk request to opensearch took {ms}ms",
            **{"from": -3600, "to": -5, "every_s": 300},
        ),
        ev(
            "catalog-api",
            "error",
            "runtime: out of memory: cannot allocate 268435456-byte block",
            **{"from": -9900, "to": -9700, "every_s": 60},
            pods=["catalog-api-4c9b8d7f5-old8k"],
        ),
    ]
    return kube_case(
        seed=245,
        start=start,
        inc=incident(
            "product pages erroring",
            "product catalog",
            start,
            ["some product pages show 'something went wrong'"],
        ),
        exp=expected(
            "platform",
            [f"node/{bad}", bad, "ng-hardened-v1", "ami-0c4e91d7a25f83b60"],
            "failed to create fsnotify watcher: too many open files",
            "A node built from the new CIS-hardened AMI (ng-hardened-v1, ami-0c4e91d7a25f83b60) joined 33 min ago with fs.inotify.max_user_instances=128, which its system pods already use up. Every catalog-api pod scheduled there exits at start (failed to create fsnotify watcher: too many open files) and is in CrashLoopBackOff, while the same image runs fine on the other three nodes; the Service sends part of the traffic to pods that come and go. storefront's 502s and stale pages are the loud victim; the 8.2.0 release (same image works elsewhere), the scale-up (the trigger), search-sync noise and the old OOM are not the cause.",
            [
                "catalog-api pods on ip-10-90-4-131 only: failed to create fsnotify watcher: too many open files (CrashLoopBackOff)",
                "kubelet on that node: inotify_init: too many open files (fs.inotify.max_user_instances=128)",
                "node joined from ng-hardened-v1 / ami-0c4e91d7a25f83b60 33 min ago",
            ],
            "Cordon and drain the node, set fs.inotify.max_user_instances (e.g. 8192) and max_user_watches in the hardened AMI's sysctl baseline, and replace the node.",
        ),
        k8s=k8s,
        bgs=[
            bg("catalog-api", cp[:3], ["GET /v2/products/{n} 200 {ms}ms"], 8),
            bg("storefront", sp, ["GET /p/{n} 200 {ms}ms"], 8),
        ],
        evs=evs,
        services=[
            {
                "name": "storefront",
                "rps": 70,
                "errors": {"502": (0.0, 0.06)},
                "latency": (0.2, 0.35),
            },
            {"name": "catalog-api", "rps": 90, "latency": (0.03, 0.04)},
        ],
        books={
            "catalog-crashloop.md": runbook(
                "catalog-api in CrashLoopBackOff",
                "A crash-looping catalog-api after a release means the release is bad: roll back (`argocd app rollback catalog-api`).",
            )
        },
    )


# =================================================================================================
# 6. Service routing: a chart upgrade of recs-scorer set `internalTrafficPolicy: Local` on its
#    Service (copied from the node-local DaemonSet template). recs-scorer runs two pods on two of the
#    three nodes; callers on the third node have no local endpoint and kube-proxy drops their
#    connections: a third of the recommendation calls time out. The incident says "home page".
# =================================================================================================


@scenario("internal-traffic-policy-local")
def internal_traffic_policy_local() -> dict[str, Any]:
    start = -1380
    ns = "recs"
    rs_app = app(
        "recs-scorer",
        image="ghcr.io/tidalmart/recs-scorer:2.14.0",
        port=50051,
        rs="7d8c6b9f5",
        cluster_ip="10.100.61.44",
        pods=[
            ("k4mxp", "1/1", "Running", "0", "24m", 0),
            ("w2bzn", "1/1", "Running", "0", "24m", 1),
        ],
    )
    api = app(
        "recommendations-api",
        image="ghcr.io/tidalmart/recommendations-api:6.3.2",
        port=8080,
        rs="5c9f8d7b6",
        cluster_ip="10.100.61.10",
        pods=[
            ("a7rts", "1/1", "Running", "0", "4d", 0),
            ("g3lvw", "1/1", "Running", "0", "4d", 1),
            ("q8cnh", "1/1", "Running", "0", "4d", 2),
        ],
    )
    k8s = namespace(ns, NODES_DUB, [rs_app, api], seed=246)
    ips = h7.ips_of(k8s, ns)
    sp = [pod_name(rs_app, s[0]) for s in rs_app["pods"]]
    ap = [pod_name(api, s[0]) for s in api["pods"]]
    k8s[f"kubectl describe services recs-scorer -n {ns}"] = (
        f"Name:                     recs-scorer\nNamespace:                {ns}\nLabels:                   app=recs-scorer\n                          app.kubernetes.io/managed-by=Helm\n                          helm.sh/chart=tidalmart-service-5.0.0\n"
        "Annotations:              meta.helm.sh/release-name: recs-scorer\nSelector:                 app=recs-scorer\nType:                     ClusterIP\nIP Family Policy:         SingleStack\nIP Families:              IPv4\nIP:                       10.100.61.44\nIPs:                      10.100.61.44\n"
        f"Port:                     grpc  50051/TCP\nTargetPort:               50051/TCP\nEndpoints:                {ips[sp[0]]}:50051,{ips[sp[1]]}:50051\nSession Affinity:         None\nInternal Traffic Policy:  Local\nEvents:                   <none>\n"
    )
    k8s[f"kubectl get services recs-scorer -n {ns} -o yaml"] = (
        "apiVersion: v1\nkind: Service\nmetadata:\n  annotations:\n    meta.helm.sh/release-name: recs-scorer\n    meta.helm.sh/release-namespace: recs\n  labels:\n    app: recs-scorer\n    helm.sh/chart: tidalmart-service-5.0.0\n  name: recs-scorer\n  namespace: recs\n"
        "spec:\n  clusterIP: 10.100.61.44\n  clusterIPs:\n  - 10.100.61.44\n  internalTrafficPolicy: Local\n  ipFamilies:\n  - IPv4\n  ipFamilyPolicy: SingleStack\n  ports:\n  - name: grpc\n    port: 50051\n    protocol: TCP\n    targetPort: 50051\n  selector:\n    app: recs-scorer\n  sessionAffinity: None\n  type: ClusterIP\nstatus:\n  loadBalancer: {}\n"
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "24m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/recs-scorer",
                "Scaled up replica set recs-scorer-7d8c6b9f5 to 2",
            ),
            (
                "23m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/recs-scorer",
                "Scaled down replica set recs-scorer-6b7f9c8d4 to 0 from 2",
            ),
        ]
    )
    bad = [ap[2]]
    timeout = "rpc error: code = DeadlineExceeded desc = dial tcp 10.100.61.44:50051: i/o timeout (recs-scorer.recs.svc.cluster.local:50051)"
    evs = [
        ev(
            "helm",
            "info",
            'release recs-scorer upgraded to chart tidalmart-service-5.0.0 (values: service.internalTrafficPolicy: Local, "keep scorer traffic node-local")',
            at=start - 60,
        ),
        ev(
            "recommendations-api",
            "error",
            "GET /v1/home-rows user={n} 500: " + timeout,
            **{"from": start, "to": -2, "every_s": 2},
            pods=bad,
        ),
        ev(
            "recommendations-api",
            "warn",
            "grpc channel to recs-scorer.recs.svc.cluster.local:50051 TRANSIENT_FAILURE, reconnecting in {ms}ms",
            **{"from": start, "to": -2, "every_s": 20},
            pods=bad,
        ),
        ev(
            "home-web",
            "error",
            "GET / rendered without 'recommended for you' row: recommendations-api 500 after 3000ms",
            **{"from": start + 5, "to": -2, "every_s": 3},
        ),
        ev(
            "home-web",
            "info",
            "home-web 40.2.0 started (holiday banner carousel)",
            at=start - 1600,
        ),
        ev(
            "recs-scorer",
            "info",
            "recs-scorer 2.14.0 serving model als-2026-12-05 on :50051",
            at=start - 50,
            pods=sp,
        ),
        ev(
            "feature-store",
            "warn",
            "online store read p99 {ms}ms above 50ms budget",
            **{"from": -3600, "to": -5, "every_s": 240},
        ),
        ev(
            "recs-scorer",
            "error",
            "model als-2026-12-04 load failed: checksum mismatch, keeping previous model",
            **{"from": -8800, "to": -8600, "every_s": 60},
            pods=["recs-scorer-6b7f9c8d4-old4n"],
        ),
    ]
    return kube_case(
        seed=246,
        start=start,
        inc=incident("home page recommendations missing", "home page", start),
        exp=expected(
            "connect",
            ["service/recs-scorer", "recs-scorer"],
            "Internal Traffic Policy:  Local",
            "The recs-scorer chart upgrade 24 min ago (tidalmart-service 5.0.0) set internalTrafficPolicy: Local on its Service. recs-scorer has two pods, on two of the three nodes; recommendations-api's pod on the third node has no node-local endpoint, so kube-proxy drops its connections to 10.100.61.44:50051 (dial tcp … i/o timeout) and every home page it serves lacks the recommendations row. recs-scorer itself is healthy; home-web's errors are the loud victim; its release, the new model, feature-store latency and the old checksum error are not the cause.",
            [
                "Service recs-scorer: Internal Traffic Policy: Local, endpoints on 2 of 3 nodes",
                "recommendations-api pod on ip-10-52-3-71 only: dial tcp 10.100.61.44:50051: i/o timeout",
                "helm: recs-scorer upgraded with service.internalTrafficPolicy: Local",
            ],
            "Set internalTrafficPolicy back to Cluster on recs-scorer's Service (Local only fits a DaemonSet that runs on every node).",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "recommendations-api",
                ap[:2],
                ["GET /v1/home-rows user={n} 200 {ms}ms"],
                8,
            ),
            bg("recs-scorer", sp, ["Score items={n} took {ms}ms"], 8),
        ],
        evs=evs,
        services=[
            {
                "name": "home-web",
                "rps": 120,
                "errors": {"500": (0.0, 0.05)},
                "latency": (0.2, 0.9),
            },
            {
                "name": "recommendations-api",
                "rps": 110,
                "errors": {"500": (0.0, 0.33)},
                "latency": (0.04, 1.05),
            },
        ],
        books={
            "recs-empty.md": runbook(
                "Recommendations row empty",
                "An empty recommendations row means recs-scorer loaded a broken model: pin the previous model (`MODEL_VERSION`) and restart recs-scorer.",
            )
        },
    )


# =================================================================================================
# 7. DNS: CoreDNS forwards the corporate zone (corp.kestrel.internal) to the two on-prem domain
#    controllers 10.8.0.53/54 through a server block in its ConfigMap. The directory team retired
#    those controllers last night (new ones on 10.8.1.x; the VPN's DHCP options were updated, the
#    Corefile was not). Once the cached answers expired, every corporate name fails from the
#    cluster: LDAP logins to the HR portal fail. The incident says "HR portal".
# =================================================================================================


@scenario("coredns-forward-retired-dcs")
def coredns_forward_retired_dcs() -> dict[str, Any]:
    start = -1560
    ns = "people"
    hr = app(
        "hr-portal",
        image="registry.kestrel.example/people/hr-portal:3.3.0",
        port=3000,
        rs="9c7d6f8b5",
        cluster_ip="10.110.12.8",
        pods=[
            ("d4xkq", "1/1", "Running", "0", "3h", 0),
            ("n7fzp", "1/1", "Running", "0", "3h", 1),
        ],
    )
    ps = app(
        "payroll-sync",
        image="registry.kestrel.example/people/payroll-sync:1.18.2",
        port=8080,
        rs="6f9b8c7d5",
        cluster_ip="10.110.12.20",
        pods=[("h2mvt", "1/1", "Running", "0", "12d", 2)],
    )
    k8s = namespace(
        ns, NODES_ARN, [hr, ps], seed=247, extra_namespaces=("kube-system",)
    )
    dns_pods = ["coredns-7c8d9f6b5-4kqzx", "coredns-7c8d9f6b5-v8tnm"]
    k8s["kubectl get pods -n kube-system -o wide --show-labels"] = table(
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
                "LABELS",
            ],
            [
                dns_pods[0],
                "1/1",
                "Running",
                "0",
                "41d",
                "10.47.1.17",
                NODES_ARN[0][0],
                "<none>",
                "<none>",
                "k8s-app=kube-dns,pod-template-hash=7c8d9f6b5",
            ],
            [
                dns_pods[1],
                "1/1",
                "Running",
                "0",
                "41d",
                "10.47.2.93",
                NODES_ARN[1][0],
                "<none>",
                "<none>",
                "k8s-app=kube-dns,pod-template-hash=7c8d9f6b5",
            ],
        ]
    )
    k8s["kubectl get configmaps coredns -n kube-system -o yaml"] = (
        "apiVersion: v1\ndata:\n  Corefile: |\n    .:53 {\n        errors\n        health {\n            lameduck 5s\n        }\n        ready\n"
        "        kubernetes cluster.local in-addr.arpa ip6.arpa {\n            pods insecure\n            fallthrough in-addr.arpa ip6.arpa\n        }\n        prometheus :9153\n        forward . /etc/resolv.conf\n        cache 30\n        loop\n        reload\n        loadbalance\n    }\n"
        "    corp.kestrel.internal:53 {\n        errors\n        cache 3600\n        forward . 10.8.0.53 10.8.0.54\n    }\n"
        'kind: ConfigMap\nmetadata:\n  annotations:\n    kestrel.io/owner: platform-networking\n  creationTimestamp: "2025-03-02T10:14:09Z"\n  name: coredns\n  namespace: kube-system\n'
    )
    errs = []
    for i, t in enumerate(range(-1500, -10, 37)):
        name = (
            "ldap.corp.kestrel.internal.",
            "dc-lb.corp.kestrel.internal.",
            "smtp.corp.kestrel.internal.",
        )[i % 3]
        errs.append(
            (
                t,
                f"[ERROR] plugin/errors: 2 {name} A: read udp 10.47.1.17:{41000 + i * 7}->10.8.0.{53 + i % 2}:53: i/o timeout",
            )
        )
    k8s[f"kubectl logs {dns_pods[0]} -n kube-system --tail=1000"] = podlog(
        [
            (-3590, "[INFO] plugin/reload: Running configuration SHA512 = 6a1f0c4b"),
            (-3589, "CoreDNS-1.11.3"),
            *errs,
        ]
    )
    hp = [pod_name(hr, s[0]) for s in hr["pods"]]
    pp = [pod_name(ps, s[0]) for s in ps["pods"]]
    evs = [
        ev(
            "change-calendar",
            "info",
            "CHG-9120 completed: domain controllers DC01/DC02 (10.8.0.53, 10.8.0.54) decommissioned, DC05/DC06 on 10.8.1.53/10.8.1.54; VPN DHCP options updated",
            at=-30500,
        ),
        ev(
            "coredns",
            "error",
            "[ERROR] plugin/errors: 2 ldap.corp.kestrel.internal. A: read udp 10.47.1.17:{n}->10.8.0.53:53: i/o timeout",
            **{"from": start - 20, "to": -2, "every_s": 9},
            pods=dns_pods,
        ),
        ev(
            "hr-portal",
            "error",
            "POST /login 500: LDAP connect failed: getaddrinfo EAI_AGAIN ldap.corp.kestrel.internal",
            **{"from": start, "to": -2, "every_s": 2.5},
            pods=hp,
        ),
        ev(
            "hr-portal",
            "info",
            "hr-portal 3.3.0 started (parental leave form)",
            at=-10400,
            pods=hp,
        ),
        ev(
            "payroll-sync",
            "error",
            "sync employees from AD failed: dial tcp: lookup dc-lb.corp.kestrel.internal on 10.100.0.10:53: server misbehaving",
            **{"from": start + 60, "to": -2, "every_s": 60},
            pods=pp,
        ),
        ev(
            "payroll-sync",
            "error",
            "send report mail: dial tcp: lookup smtp.corp.kestrel.internal on 10.100.0.10:53: server misbehaving",
            **{"from": start + 300, "to": -2, "every_s": 300},
            pods=pp,
        ),
        ev(
            "leave-planner",
            "warn",
            "public holiday calendar for SE not updated since {n} days",
            **{"from": -3600, "to": -5, "every_s": 500},
        ),
        ev(
            "hr-portal",
            "error",
            "LDAP bind as svc-hrportal failed: 49 Invalid credentials (data 52e)",
            **{"from": -9200, "to": -9000, "every_s": 40},
            pods=hp,
        ),
    ]
    return kube_case(
        seed=247,
        start=start,
        inc=incident("HR portal login broken", "HR portal", start),
        exp=expected(
            "dns",
            ["configmap/coredns", "coredns", "corp.kestrel.internal"],
            "10.8.0.53:53: i/o timeout",
            "CoreDNS's Corefile forwards corp.kestrel.internal to the domain controllers 10.8.0.53/10.8.0.54 (cache 3600). The directory team retired those controllers last night (new ones on 10.8.1.x; the VPN's DHCP options were updated, the Corefile was not). When the cached answers expired 26 min ago, every corporate name looked up from the cluster started failing (read udp …->10.8.0.53:53: i/o timeout, SERVFAIL to clients): hr-portal cannot reach LDAP (EAI_AGAIN) and payroll-sync cannot reach AD or SMTP. The pods and CoreDNS are up; hr-portal's release, the leave-planner warning and the old bind failure are not the cause; the decommissioning is the trigger.",
            [
                "coredns: [ERROR] plugin/errors: 2 ldap.corp.kestrel.internal. A: read udp …->10.8.0.53:53: i/o timeout",
                "Corefile: corp.kestrel.internal:53 { forward . 10.8.0.53 10.8.0.54 }",
                "CHG-9120: 10.8.0.53/54 decommissioned, replaced by 10.8.1.53/54",
            ],
            "Point the corp.kestrel.internal block of the coredns ConfigMap at 10.8.1.53 and 10.8.1.54 (reload picks it up) and add the Corefile to the DC migration checklist.",
        ),
        k8s=k8s,
        bgs=[bg("hr-portal", hp, ["GET /me 200 {ms}ms", "GET /healthz 200 1ms"], 8)],
        evs=evs,
        services=[
            {
                "name": "hr-portal",
                "rps": 12,
                "errors": {"500": (0.0, 0.35)},
                "latency": (0.08, 5.1),
            }
        ],
        gauges=[
            {
                "name": "coredns_forward_responses_servfail_rate",
                "labels": {"service": "coredns", "zone": "corp.kestrel.internal."},
                "before": 0,
                "after": 2.4,
                "noise": 0.1,
            }
        ],
        books={
            "hr-login.md": runbook(
                "HR portal login failures",
                "Login failures with LDAP errors mean the bind account svc-hrportal's password expired: rotate it in the vault and restart hr-portal.",
            )
        },
    )


# =================================================================================================
# 8. TLS: a hardening PR set the `shipping` namespace's Istio PeerAuthentication to STRICT.
#    label-printer-bridge runs in that namespace without a sidecar (injection disabled: it talks to
#    USB printers on the host network) and calls shipping-labels in plaintext; the server's sidecar
#    now only accepts mutual TLS and resets the connections. The incident says "shipping labels".
# =================================================================================================


@scenario("mesh-strict-mtls-unmeshed-caller")
def mesh_strict_mtls_unmeshed_caller() -> dict[str, Any]:
    start = -1320
    ns = "shipping"
    sl = app(
        "shipping-labels",
        image="ghcr.io/northpack/shipping-labels:4.1.0",
        port=8080,
        rs="8b7c9d6f5",
        cluster_ip="10.100.90.21",
        pods=[
            ("c5lwq", "2/2", "Running", "0", "2h", 0),
            ("x8vnd", "2/2", "Running", "0", "2h", 1),
        ],
    )
    br = app(
        "label-printer-bridge",
        image="ghcr.io/northpack/label-printer-bridge:1.7.3",
        port=9100,
        rs="5d6f7b8c9",
        cluster_ip="10.100.90.33",
        pods=[("m2tzr", "1/1", "Running", "0", "40d", 2)],
    )
    k8s = namespace(ns, NODES_IAD, [sl, br], seed=248)
    ips = h7.ips_of(k8s, ns)
    slp = [pod_name(sl, s[0]) for s in sl["pods"]]
    bp = pod_name(br, "m2tzr")
    describe_pod(
        k8s,
        ns,
        br,
        "m2tzr",
        NODES_IAD,
        state=running(-3456000),
        started=-3456000,
        ready=True,
        conditions=[
            ("Ready", "True"),
            ("ContainersReady", "True"),
            ("PodScheduled", "True"),
        ],
        extra="    Environment:\n      LABELS_URL:  http://shipping-labels.shipping.svc.cluster.local:8080\n",
    )
    key = f"kubectl describe pods {bp} -n {ns}"
    k8s[key] = k8s[key].replace(
        "Status:", "Annotations:      sidecar.istio.io/inject: false\nStatus:", 1
    )
    nr = [
        (
            t,
            f'[{base.iso(t).replace("Z", ".412Z")}] "- - -" 0 NR filter_chain_not_found - "-" 0 0 0 - "-" "-" "-" "-" "-" - - {ips[slp[0]]}:8080 {ips[bp]}:{40000 + i * 13} - -',
        )
        for i, t in enumerate(range(-1300, -5, 23))
    ]
    k8s[f"kubectl logs {slp[0]} -n {ns} -c istio-proxy --tail=1000"] = podlog(
        [(-7000, "info\tEnvoy proxy is ready"), *nr]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "2h",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/shipping-labels",
                "Scaled up replica set shipping-labels-8b7c9d6f5 to 2",
            )
        ]
    )
    evs = [
        ev(
            "argocd",
            "info",
            'application mesh-policies synced: PeerAuthentication shipping/default mtls.mode PERMISSIVE -> STRICT (PR sec#318 "zero-trust phase 2: warehouse namespaces")',
            at=start - 45,
        ),
        ev(
            "istio-proxy",
            "info",
            f'"- - -" 0 NR filter_chain_not_found - "-" 0 0 0 - "-" "-" "-" "-" "-" - - {ips[slp[0]]}:8080 {ips[bp]}:'
            + "{n} - -",
            **{"from": start, "to": -2, "every_s": 8},
            pods=slp,
        ),
        ev(
            "label-printer-bridge",
            "error",
            f"POST http://shipping-labels.shipping.svc.cluster.local:8080/v1/labels failed: read tcp {ips[bp]}:"
            + "{n}->10.100.90.21:8080: read: connection reset by peer",
            **{"from": start, "to": -2, "every_s": 3},
            pods=[bp],
        ),
        ev(
            "pack-station-ui",
            "error",
            "station {n}: label job failed (bridge: upstream reset), parcel moved to manual lane",
            **{"from": start + 5, "to": -2, "every_s": 1.5},
        ),
        ev(
            "shipping-labels",
            "info",
            "shipping-labels 4.1.0 started (GLS label template v7)",
            at=-7100,
            pods=slp,
        ),
        ev(
            "carrier-gw",
            "warn",
            "DHL Parcel DE label API latency {ms}ms (p95 budget 800ms)",
            **{"from": -3600, "to": -5, "every_s": 200},
        ),
        ev(
            "shipping-labels",
            "error",
            "carrier DHL returned 503 Service Unavailable for shipment {n}, retry queued",
            **{"from": -9500, "to": -9200, "every_s": 40},
            pods=slp,
        ),
    ]
    return kube_case(
        seed=248,
        start=start,
        inc=incident(
            "packing stations can't print",
            "shipping labels",
            start,
            ["no labels print at the packing stations"],
        ),
        exp=expected(
            "tls",
            [
                "peerauthentication/default",
                "peerauthentication/shipping/default",
                "deployment/label-printer-bridge",
                "label-printer-bridge",
            ],
            "filter_chain_not_found",
            "A hardening PR synced 23 min ago set the shipping namespace's PeerAuthentication (default) to STRICT mutual TLS. label-printer-bridge runs in that namespace without an Istio sidecar (sidecar.istio.io/inject: false, it drives USB printers) and calls shipping-labels in plaintext; shipping-labels' sidecar now only accepts mTLS, finds no filter chain for plaintext (NR filter_chain_not_found) and resets every connection (connection reset by peer). shipping-labels itself is healthy; pack-station-ui's failures are the loud victim; its release, DHL latency and the old carrier 503s are not the cause.",
            [
                'shipping-labels istio-proxy: "- - -" 0 NR filter_chain_not_found from the bridge\'s address',
                "label-printer-bridge: read: connection reset by peer; pod annotated sidecar.istio.io/inject: false",
                "PeerAuthentication shipping/default PERMISSIVE -> STRICT 23 min ago",
            ],
            "Keep PERMISSIVE for shipping-labels' port (a workload-selector PeerAuthentication with portLevelMtls) or give the bridge a sidecar, then go STRICT.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "shipping-labels",
                slp,
                ["POST /v1/labels 201 {ms}ms carrier=ups", "GET /healthz 200 1ms"],
                8,
            )
        ],
        evs=evs,
        services=[
            {
                "name": "pack-station-ui",
                "rps": 8,
                "errors": {"500": (0.0, 0.9)},
                "latency": (0.3, 0.05),
            },
            {"name": "shipping-labels", "rps": 8, "errors": {}, "latency": (0.2, 0.2)},
        ],
        books={
            "labels-not-printing.md": runbook(
                "Labels not printing",
                "When labels stop printing, the Zebra printers dropped off the network: power-cycle the printers of the affected stations and re-pair them in pack-station-ui.",
            )
        },
    )


# =================================================================================================
# 9. Third-party rate limiting: marketing's promo-sender started a Black Friday SMS campaign on the
#    same Twilio account as the login one-time codes. The account's concurrency limit is shared:
#    Twilio answers 429 (error 20429) to auth-service's OTP sends. The incident says "app login".
# =================================================================================================


@scenario("sms-account-shared-with-campaign")
def sms_account_shared_with_campaign() -> dict[str, Any]:
    start = -1440
    auth = ["auth-service-1", "auth-service-2", "auth-service-3"]
    promo = ["promo-sender-0"]
    tw = '{"code": 20429, "message": "Too Many Requests", "more_info": "https://www.twilio.com/docs/errors/20429", "status": 429}'
    return simple(
        249,
        start,
        incident("users can't log in", "app login", start, ["SMS codes don't arrive"]),
        expected(
            "http",
            ["promo-sender", "api.twilio.com", "twilio", "campaign bf-2026-sms"],
            "20429",
            "promo-sender started the Black Friday SMS campaign (bf-2026-sms, 1.9 M recipients) 25 min ago on the same Twilio account (AC7e…) as auth-service's login codes. The campaign's parallel sends use up the account's API concurrency, and Twilio answers 429 Too Many Requests (error 20429) to most OTP sends; users never get a code and logins fail. mobile-bff's 401s and the support queue are the loud victim; auth-service's release, the Redis failover warning and the old SES bounce errors are not the cause.",
            [
                "auth-service: POST https://api.twilio.com/2010-04-01/Accounts/AC7e…/Messages.json 429 code 20429 Too Many Requests",
                "promo-sender: campaign bf-2026-sms started, concurrency 96, same account SID",
                "otp_send_failures jump at the campaign's start",
            ],
            "Pause or throttle the campaign, move marketing to its own Twilio subaccount (or Messaging Service) and keep a separate concurrency budget for OTP.",
        ),
        [
            bg(
                "auth-service",
                auth,
                ["POST /v1/token 200 {ms}ms", "GET /healthz 200 1ms"],
                8,
            ),
            bg(
                "promo-sender",
                promo,
                ["sent batch {n} (96 messages) in {ms}ms"],
                8,
                **{"from": start},
            ),
        ],
        [
            ev(
                "promo-sender",
                "info",
                "campaign bf-2026-sms started: 1,912,440 recipients, concurrency 96, account AC7e19c0d4b8f2a6e5d3c1b09f8a7e6d5c, sender pool +4930…",
                at=start - 20,
                pods=promo,
            ),
            ev(
                "auth-service",
                "error",
                "send OTP to +49******{n} failed: POST https://api.twilio.com/2010-04-01/Accounts/AC7e19c0d4b8f2a6e5d3c1b09f8a7e6d5c/Messages.json 429 "
                + tw,
                **{"from": start, "to": -2, "every_s": 3},
                pods=auth,
            ),
            ev(
                "promo-sender",
                "warn",
                "Twilio 429 (20429) on batch {n}, backing off 200ms",
                **{"from": start + 30, "to": -2, "every_s": 25},
                pods=promo,
            ),
            ev(
                "mobile-bff",
                "error",
                "POST /login/verify 401: otp_expired_or_missing for session {n}",
                **{"from": start + 60, "to": -2, "every_s": 2},
            ),
            ev(
                "support-desk",
                "warn",
                "ticket spike: {n} new tickets tagged 'login' in the last 5 min",
                **{"from": start + 300, "to": -2, "every_s": 300},
            ),
            ev(
                "auth-service",
                "info",
                "auth-service 12.7.0 started (passkey enrolment prompt)",
                at=start - 2400,
                pods=auth,
            ),
            ev(
                "session-redis",
                "warn",
                "sentinel: +switch-master sessions 10.30.1.14 6379 10.30.2.22 6379",
                at=start - 5200,
            ),
            ev(
                "auth-service",
                "error",
                "SES SendEmail to {n}@example.net bounced: 550 5.1.1 user unknown",
                **{"from": -9300, "to": -9000, "every_s": 40},
                pods=auth,
            ),
        ],
        [
            {
                "name": "mobile-bff",
                "rps": 60,
                "errors": {"401": (0.02, 0.4)},
                "latency": (0.1, 0.12),
            },
            {
                "name": "auth-service",
                "rps": 30,
                "errors": {"502": (0.0, 0.55)},
                "latency": (0.2, 0.9),
            },
        ],
        [
            {
                "name": "otp_send_failures_rate",
                "labels": {"service": "auth-service", "provider": "twilio"},
                "before": 0.01,
                "after": 11,
                "noise": 0.1,
            },
            {
                "name": "sms_sent_rate",
                "labels": {"service": "promo-sender"},
                "before": 0,
                "after": 470,
                "noise": 0.05,
            },
        ],
        {
            "login-codes.md": runbook(
                "SMS login codes not arriving",
                "Missing SMS codes usually mean carrier filtering in one country: switch auth-service's SMS route to the secondary sender ID (`OTP_SENDER=KESTREL`) and open a Twilio support case.",
            )
        },
    )


# =================================================================================================
# 10. Config change at the edge (netcheck): a WAF rule change added AWS's Bot Control rule group
#     with its default actions to the web ACL in front of the webhook host. Its CategoryHttpLibrary
#     rule blocks every request whose User-Agent is an HTTP library: the marketplace's webhooks
#     (Go-http-client) get 403 and no marketplace order arrives. The incident says "marketplace orders".
# =================================================================================================


@scenario("waf-bot-control-blocks-webhooks")
def waf_bot_control_blocks_webhooks() -> dict[str, Any]:
    start = -2040
    ing = ["orders-ingest-1", "orders-ingest-2"]
    block = "action=BLOCK webAclId=edge-acl terminatingRuleId=AWS-AWSManagedRulesBotControlRuleSet ruleMatch=CategoryHttpLibrary httpRequest.uri=/webhooks/marketplace clientIp=34.107.{n}.12 ua=Go-http-client/2.0"
    spec = simple(
        250,
        start,
        incident("marketplace orders missing", "marketplace orders", start),
        expected(
            "http",
            [
                "edge-acl",
                "AWSManagedRulesBotControlRuleSet",
                "CategoryHttpLibrary",
                "hooks.vireo.example",
            ],
            "CategoryHttpLibrary",
            "A WAF change applied 35 min ago added AWS's Bot Control managed rule group (AWSManagedRulesBotControlRuleSet) with its default actions to edge-acl, the web ACL in front of hooks.vireo.example. Its CategoryHttpLibrary rule blocks requests whose User-Agent is an HTTP library; the marketplace's order webhooks come from Go-http-client and get 403, so no marketplace order reaches orders-ingest (which is healthy and idle). The marketplace's retry alerts and the sales dashboard are the loud victim; orders-ingest's release, the ERP export warnings and the old signature errors are not the cause.",
            [
                "netcheck marketplace-webhook: http_403 at hooks.vireo.example, /healthz fine",
                "waf: action=BLOCK terminatingRuleId=AWS-AWSManagedRulesBotControlRuleSet ruleMatch=CategoryHttpLibrary",
                "terraform: edge-acl gained AWSManagedRulesBotControlRuleSet (default actions) 35 min ago",
            ],
            "Override CategoryHttpLibrary to Count (or add a scope-down statement excluding /webhooks/*) in edge-acl, then ask the marketplace to redeliver the failed webhooks.",
        ),
        [
            bg(
                "orders-ingest",
                ing,
                ["POST /webhooks/marketplace 202 {ms}ms"],
                8,
                until=start,
            ),
            bg(
                "orders-ingest",
                ing,
                ["GET /healthz 200 1ms", "POST /webhooks/webshop 202 {ms}ms"],
                12,
            ),
        ],
        [
            ev(
                "terraform",
                "info",
                'aws_wafv2_web_acl.edge_acl: Modifications complete after 7s [rule "AWS-AWSManagedRulesBotControlRuleSet" added, override_action none] (PR edge#77 "block scrapers")',
                at=start - 60,
            ),
            ev("waf", "info", block, **{"from": start, "to": -2, "every_s": 5}),
            ev(
                "waf",
                "info",
                "action=BLOCK webAclId=edge-acl terminatingRuleId=AWS-AWSManagedRulesBotControlRuleSet ruleMatch=CategoryHttpLibrary httpRequest.uri=/products/{n} ua=python-requests/2.31.0",
                **{"from": start, "to": -2, "every_s": 40},
            ),
            ev(
                "marketplace-connector",
                "error",
                "marketplace alert: webhook deliveries to https://hooks.vireo.example/webhooks/marketplace failing (403 Forbidden), {n} orders pending redelivery",
                **{"from": start + 600, "to": -2, "every_s": 120},
            ),
            ev(
                "sales-dashboard",
                "warn",
                "marketplace channel: 0 orders in the last 15 min (expected ~{n})",
                **{"from": start + 900, "to": -2, "every_s": 300},
            ),
            ev(
                "orders-ingest",
                "info",
                "orders-ingest 2.9.0 started (VAT id validation)",
                at=start - 4300,
                pods=ing,
            ),
            ev(
                "erp-export",
                "warn",
                "export batch {n} waiting for ERP lock {ms}s",
                **{"from": -3600, "to": -5, "every_s": 400},
            ),
            ev(
                "orders-ingest",
                "error",
                "POST /webhooks/marketplace 401: signature mismatch (X-MP-Signature) for delivery {n}",
                **{"from": -9600, "to": -9350, "every_s": 40},
                pods=ing,
            ),
        ],
        [
            {"name": "orders-ingest", "rps": 4, "latency": (0.05, 0.05)},
            {
                "name": "edge-acl",
                "rps": 200,
                "errors": {"403": (0.01, 0.04)},
                "latency": (0.002, 0.002),
            },
        ],
        [
            {
                "name": "marketplace_orders_ingested_rate",
                "labels": {"service": "orders-ingest"},
                "before": 1.8,
                "after": 0,
                "noise": 0.1,
            }
        ],
        {
            "marketplace-orders.md": runbook(
                "Marketplace orders missing",
                "Missing marketplace orders mean the webhook secret was rotated on the marketplace side: fetch the new secret from the seller console and update MP_WEBHOOK_SECRET in orders-ingest.",
            )
        },
    )
    spec["targets"] = [
        {
            "name": "marketplace-webhook",
            "url": "https://hooks.vireo.example/webhooks/marketplace",
            "fault": {
                "kind": "http_status",
                "status": 403,
                "body": "<html><head><title>403 Forbidden</title></head><body><center><h1>403 Forbidden</h1></center></body></html>",
                "paths": {"/healthz": 200},
            },
        },
        {
            "name": "orders-ingest",
            "url": "https://orders-ingest.vireo.internal/healthz",
            "fault": {"kind": "ok"},
        },
    ]
    spec["expected"]["root_cause_probe"] = "marketplace-webhook"
    spec["expected"]["netcheck"] = {
        "marketplace-webhook": {"failed_layer": "http", "reason": "http_403"},
        "orders-ingest": {"failed_layer": "none", "reason": None},
    }
    return spec


# =================================================================================================
# 11. Network delay: the site-to-site VPN to the on-prem ERP has two tunnels used together (ECMP).
#     Tunnel 1 went down during the provider's endpoint maintenance and did not come back (its
#     pre-shared key was rotated on one side only). All traffic now goes over tunnel 2, capped at
#     1.25 Gbps: at the morning till sync it saturates, packets drop, ERP calls take seconds and time
#     out. The incident says "store tills".
# =================================================================================================


@scenario("vpn-tunnel-down-halves-bandwidth")
def vpn_tunnel_down_halves_bandwidth() -> dict[str, Any]:
    start = -2160
    pos = ["pos-sync-1", "pos-sync-2", "pos-sync-3"]
    erp = ["erp-connector-1", "erp-connector-2"]
    vpn = "vpn-0c9e4b1a7d2f35e86"
    return simple(
        251,
        start,
        incident(
            "tills can't sync",
            "store tills",
            start,
            ["tills show 'offline, sales queued'"],
        ),
        expected(
            "connect",
            [vpn, "vpn-onprem-erp", f"{vpn} tunnel 1", "tunnel 1"],
            "IPSEC IS DOWN",
            f"The site-to-site VPN to the on-prem ERP ({vpn}, vpn-onprem-erp) runs two tunnels with ECMP. During the provider's endpoint maintenance last night tunnel 1 went down and never came back (IKE negotiation fails: the pre-shared key was rotated on the AWS side only); everything runs over tunnel 2, capped at 1.25 Gbps. Since the morning till sync started, tunnel 2 is saturated: packets drop, TCP retransmits, ERP calls take seconds and time out (erp-connector read timeouts, pos-sync queues). pos-sync's errors are the loud victim; the ERP itself answers fast on-prem; the erp-connector release, the SAP GUI complaints and the old IDoc error are not the cause.",
            [
                f"vpn-monitor: {vpn} tunnel 1 (35.157.22.14) DOWN: IPSEC IS DOWN since 02:10",
                "tunnel 2 egress at 1.24 Gbps (cap 1.25 Gbps), packet drops",
                "erp-connector: read timed out after 30000 ms; on-prem ERP response time normal",
            ],
            "Fix the tunnel 1 pre-shared key on the on-prem firewall so both tunnels carry traffic again; alert on a tunnel down for more than 5 min.",
        ),
        [
            bg(
                "erp-connector",
                erp,
                ["POST /sap/bc/srt/rfc/sap/zpos_sales 200 {ms}ms"],
                8,
            ),
            bg("pos-sync", pos, ["store {n}: synced {ms} receipts"], 8),
        ],
        [
            ev(
                "vpn-monitor",
                "warn",
                f"{vpn} tunnel 1 (35.157.22.14) DOWN: IPSEC IS DOWN since 02:10 UTC; tunnel 2 (3.121.88.202) UP",
                **{"from": -7200, "to": -5, "every_s": 300},
            ),
            ev(
                "onprem-fw",
                "warn",
                "IKEv2 SA_INIT from 35.157.22.14 rejected: AUTHENTICATION_FAILED (pre-shared key mismatch) peer=aws-vpn-tun1",
                **{"from": -7200, "to": -5, "every_s": 60},
            ),
            ev(
                "aws-health",
                "info",
                f"scheduled maintenance completed: VPN endpoint replacement for {vpn} tunnel 1",
                at=-36000,
            ),
            ev(
                "erp-connector",
                "error",
                "POST /sap/bc/srt/rfc/sap/zpos_sales failed: java.net.SocketTimeoutException: Read timed out after 30000 ms (erp.onprem.lumo.example:8443)",
                **{"from": start, "to": -2, "every_s": 3},
                pods=erp,
            ),
            ev(
                "pos-sync",
                "error",
                "store {n}: ERP upload failed (erp-connector 504), {ms} receipts queued on the till",
                **{"from": start + 20, "to": -2, "every_s": 3},
                pods=pos,
            ),
            ev(
                "sap-basis",
                "info",
                "dialog response time {ms}ms (normal)",
                **{"from": -3600, "to": -5, "every_s": 300},
            ),
            ev(
                "helpdesk",
                "warn",
                "users report SAP GUI slow at {n} stores",
                **{"from": start + 600, "to": -5, "every_s": 400},
            ),
            ev(
                "erp-connector",
                "info",
                "erp-connector 3.4.1 started (retry jitter)",
                at=start - 5000,
                pods=erp,
            ),
            ev(
                "erp-connector",
                "error",
                "IDoc ORDERS05 {n} rejected: status 51 (application document not posted)",
                **{"from": -9800, "to": -9500, "every_s": 50},
                pods=erp,
            ),
        ],
        [
            {
                "name": "pos-sync",
                "rps": 40,
                "errors": {"504": (0.0, 0.3)},
                "latency": (0.4, 12.0),
            },
            {
                "name": "erp-connector",
                "rps": 30,
                "errors": {"504": (0.0, 0.25)},
                "latency": (0.3, 9.0),
            },
        ],
        [
            {
                "name": "vpn_tunnel_up",
                "labels": {"vpn": vpn, "tunnel": "1"},
                "before": 0,
                "after": 0,
                "noise": 0,
            },
            {
                "name": "vpn_tunnel_up",
                "labels": {"vpn": vpn, "tunnel": "2"},
                "before": 1,
                "after": 1,
                "noise": 0,
            },
            {
                "name": "vpn_tunnel_egress_gbps",
                "labels": {"vpn": vpn, "tunnel": "2"},
                "before": 0.7,
                "after": 1.24,
                "noise": 0.01,
            },
            {
                "name": "node_netstat_tcp_retrans_segs_rate",
                "labels": {"service": "erp-connector"},
                "before": 3,
                "after": 640,
                "noise": 0.1,
            },
        ],
        {
            "tills-offline.md": runbook(
                "Tills offline",
                "When tills queue sales, the ERP application server is overloaded: ask SAP basis to restart the dialog instance and clear the update queue (SM13).",
            )
        },
    )


# =================================================================================================
# 12. Performance, a quiet culprit: admin-dashboard's new "cache inspector" page runs `KEYS session:*`
#     on the shared Redis (11 M keys). Each call blocks Redis's single thread for ~3 s; every service
#     using Redis stalls while it runs. The incident says "website".
# =================================================================================================


@scenario("redis-keys-blocks-shared-cache")
def redis_keys_blocks_shared_cache() -> dict[str, Any]:
    start = -1200
    web = ["web-api-1", "web-api-2", "web-api-3", "web-api-4"]
    adm = ["admin-dashboard-1"]
    return simple(
        252,
        start,
        incident("website freezing", "website", start),
        expected(
            "app",
            ["admin-dashboard", "cache inspector", "admin-dashboard cache-inspector"],
            "KEYS session:*",
            "admin-dashboard 5.8.0 (released 21 min ago) added a cache inspector page that runs KEYS session:* on the shared Redis (11 M keys) on each load and every 30 s while open. Each KEYS blocks Redis's single thread for about 3 s (slowlog); every command from every client waits behind it, so web-api's session reads time out in waves and pages freeze. web-api's 504s and Redis timeouts are the loud victim; Redis is not short of memory or CPU; web-api's own release, the CDN warnings and the old eviction burst are not the cause.",
            [
                "redis slowlog: KEYS session:* 2.9-3.2 s from client name=admin-dashboard",
                "web-api: Redis command timed out (Command timed out after 2 second(s)) in waves every ~30 s",
                "admin-dashboard 5.8.0: cache inspector page",
            ],
            "Remove the KEYS call (use SCAN with a count, on a replica) from the cache inspector, or rename KEYS in the shared Redis config; roll back admin-dashboard meanwhile.",
        ),
        [
            bg(
                "web-api",
                web,
                ["GET /api/session 200 {ms}ms", "GET /api/products/{n} 200 {ms}ms"],
                8,
            ),
            bg("admin-dashboard", adm, ["GET /admin/orders 200 {ms}ms"], 20),
        ],
        [
            ev(
                "admin-dashboard",
                "info",
                "admin-dashboard 5.8.0 started (cache inspector: browse sessions and carts)",
                at=start - 60,
                pods=adm,
            ),
            ev(
                "redis",
                "warn",
                "slowlog id={n} duration=3104221us cmd=KEYS session:* client=10.40.7.19:{ms} name=admin-dashboard",
                **{"from": start, "to": -2, "every_s": 30},
            ),
            ev(
                "admin-dashboard",
                "info",
                "GET /admin/cache-inspector 200 {ms}00ms (keys=11203447)",
                **{"from": start + 1, "to": -2, "every_s": 30},
                pods=adm,
            ),
            ev(
                "web-api",
                "error",
                "GET /api/session 504: RedisCommandTimeoutException: Command timed out after 2 second(s)",
                **{"from": start + 2, "to": -2, "every_s": 2},
                pods=web,
            ),
            ev(
                "web-api",
                "warn",
                "redis connection pool exhausted (64/64 in use), waiting",
                **{"from": start + 3, "to": -2, "every_s": 15},
                pods=web,
            ),
            ev(
                "web-api",
                "info",
                "web-api 22.3.1 started (wishlist sharing)",
                at=start - 3100,
                pods=web,
            ),
            ev(
                "cdn",
                "warn",
                "origin shield hit ratio {ms}% below 90% target",
                **{"from": -3600, "to": -5, "every_s": 300},
            ),
            ev(
                "redis",
                "warn",
                "evicted {n} keys (maxmemory-policy allkeys-lru)",
                **{"from": -9200, "to": -9000, "every_s": 30},
            ),
        ],
        [
            {
                "name": "web-api",
                "rps": 150,
                "errors": {"504": (0.0, 0.1)},
                "latency": (0.03, 1.4),
            },
            {"name": "admin-dashboard", "rps": 1, "latency": (0.2, 3.1)},
        ],
        [
            {
                "name": "redis_blocked_clients",
                "labels": {"service": "redis"},
                "before": 0,
                "after": 140,
                "noise": 0.5,
            },
            {
                "name": "redis_memory_used_ratio",
                "labels": {"service": "redis"},
                "before": 0.61,
                "after": 0.61,
                "noise": 0.01,
            },
            {
                "name": "redis_cpu_ratio",
                "labels": {"service": "redis"},
                "before": 0.18,
                "after": 0.32,
                "noise": 0.05,
            },
        ],
        {
            "redis-timeouts.md": runbook(
                "Redis timeouts",
                "Redis command timeouts mean the instance is too small: move session-redis to the next node size (cache.r7g.xlarge) in a maintenance window and raise the client timeout to 5 s meanwhile.",
            )
        },
    )


# =================================================================================================
# 13. Config change: marketing moved the shop to a new domain last week and the new origin was added
#     to the API gateway's CORS allow-list by hand. Today's Terraform apply reverted that drift: the
#     browser's preflight for https://www.vireo.example is refused and every API call from the shop's
#     pages fails. The incident says "web shop".
# =================================================================================================


@scenario("cors-allowlist-drift-reverted")
def cors_allowlist_drift_reverted() -> dict[str, Any]:
    start = -1620
    gw = ["api-gateway-1", "api-gateway-2"]
    deny = "OPTIONS /v1/cart 403: CORS preflight rejected: origin https://www.vireo.example not allowed (allowed: https://shop.vireo-old.example, https://admin.vireo.example)"
    return simple(
        253,
        start,
        incident(
            "can't add to cart", "web shop", start, ["'add to cart' does nothing"]
        ),
        expected(
            "http",
            ["api-gateway", "cors_allowed_origins", "CORS_ALLOWED_ORIGINS"],
            "origin https://www.vireo.example not allowed",
            "The shop moved to https://www.vireo.example last week and the new origin was added to api-gateway's CORS allow-list by hand. Terraform's apply 28 min ago (a routine change to rate limits) reverted that drift: cors_allowed_origins is again the code's list without the new domain. Browsers' preflight requests from the shop are refused (CORS preflight rejected: origin https://www.vireo.example not allowed) and no API call from the pages runs: no cart, no login. Server-side traffic (apps, partners) is fine; the front-end's JS errors are the loud victim; the frontend release, the payment provider warning and the old 429s are not the cause.",
            [
                "api-gateway: OPTIONS … 403 CORS preflight rejected: origin https://www.vireo.example not allowed",
                "terraform apply 28 min ago: cors_allowed_origins changed (drift on www.vireo.example reverted)",
                "browser-errors: Access to fetch … has been blocked by CORS policy",
            ],
            "Add https://www.vireo.example to cors_allowed_origins in the Terraform code and apply; forbid manual edits of the gateway's settings.",
        ),
        [
            bg(
                "api-gateway",
                gw,
                [
                    "GET /v1/products/{n} 200 {ms}ms ua=VireoApp/7.2",
                    "POST /v1/partner/stock 204 {ms}ms",
                ],
                8,
            ),
        ],
        [
            ev(
                "terraform",
                "info",
                'module.api_gateway.aws_ssm_parameter.cors_allowed_origins: Modifications complete (value changed) — apply of PR infra#902 "raise partner rate limit to 50 rps"',
                at=start - 30,
            ),
            ev(
                "api-gateway",
                "info",
                "config reloaded: cors_allowed_origins=[https://shop.vireo-old.example https://admin.vireo.example], partner_rate_limit=50",
                at=start - 10,
                pods=gw,
            ),
            ev(
                "api-gateway",
                "warn",
                deny,
                **{"from": start, "to": -2, "every_s": 2.5},
                pods=gw,
            ),
            ev(
                "api-gateway",
                "warn",
                "OPTIONS /v1/session 403: CORS preflight rejected: origin https://www.vireo.example not allowed",
                **{"from": start, "to": -2, "every_s": 3},
                pods=gw,
            ),
            ev(
                "browser-errors",
                "error",
                "Access to fetch at 'https://api.vireo.example/v1/cart' from origin 'https://www.vireo.example' has been blocked by CORS policy: Response to preflight request doesn't pass access control check: No 'Access-Control-Allow-Origin' header is present on the requested resource.",
                **{"from": start + 5, "to": -2, "every_s": 4},
            ),
            ev(
                "browser-errors",
                "error",
                "TypeError: Failed to fetch at CartButton.onClick (main.8f3c2a.js:1:48213)",
                **{"from": start + 5, "to": -2, "every_s": 5},
            ),
            ev(
                "shop-frontend",
                "info",
                "deployed shop-frontend build 8f3c2a (new product gallery)",
                at=start - 2000,
            ),
            ev(
                "payments-psp",
                "warn",
                "Adyen notification delayed {ms}s",
                **{"from": -3600, "to": -5, "every_s": 400},
            ),
            ev(
                "api-gateway",
                "warn",
                "POST /v1/partner/stock 429: partner rate limit 20 rps exceeded for key partner-{n}",
                **{"from": -9400, "to": -9100, "every_s": 20},
                pods=gw,
            ),
        ],
        [
            {
                "name": "api-gateway",
                "rps": 90,
                "errors": {"403": (0.0, 0.35)},
                "latency": (0.02, 0.01),
            },
            {"name": "checkout", "rps": 6, "latency": (0.3, 0.3)},
        ],
        [
            {
                "name": "cart_add_rate",
                "labels": {"service": "shop-frontend"},
                "before": 14,
                "after": 0.2,
                "noise": 0.1,
            }
        ],
        {
            "add-to-cart.md": runbook(
                "Add to cart broken",
                "If 'add to cart' stops working after a frontend deploy, the JS bundle is broken: roll back shop-frontend to the previous build in the CDN console.",
            )
        },
    )


# =================================================================================================
# 14. A quiet culprit: outbox-relay publishes the order service's outbox to Kafka, one active
#     instance holding a lease. outbox-relay-a's publisher thread hangs on a half-open connection to
#     a broker (no socket timeout) while its lease thread keeps renewing: nothing is published,
#     outbox-relay-b politely stands by. Every consumer complains loudly. The incident says
#     "order emails".
# =================================================================================================


@scenario("outbox-relay-hung-leader")
def outbox_relay_hung_leader() -> dict[str, Any]:
    start = -2520
    ra, rb = ["outbox-relay-a"], ["outbox-relay-b"]
    return simple(
        254,
        start,
        incident(
            "no order confirmation emails",
            "order emails",
            start,
            ["customers get no confirmation email"],
        ),
        expected(
            "app",
            ["outbox-relay", "outbox-relay-a"],
            "lease held by outbox-relay-a",
            "outbox-relay publishes the orders database's outbox table to Kafka; one instance holds the lease. 42 min ago outbox-relay-a's publisher thread blocked on a half-open connection to broker kafka-2 (no socket or delivery timeout set) while its lease thread kept renewing. Since then nothing is published: the outbox grows by ~40 rows a second, and outbox-relay-b only logs that the lease is held by outbox-relay-a. notification-service, search-indexer and loyalty are the loud victims (no events: no emails, stale search, no points); Kafka is healthy (other topics flow); the orders-api release, the mail provider warning and the old broker rolling restart are not the cause.",
            [
                "outbox-relay-b: lease held by outbox-relay-a (renewed …), standing by",
                "outbox-relay-a: last 'published batch' 42 min ago; lease renewals continue",
                "outbox_pending_rows climbing from ~20 to 100k+",
            ],
            "Restart outbox-relay-a (outbox-relay-b takes the lease and drains the outbox); set request.timeout.ms/delivery.timeout.ms and tie lease renewal to publishing progress.",
        ),
        [
            bg(
                "orders-api",
                ["orders-api-1", "orders-api-2"],
                ["POST /v1/orders 201 {ms}ms"],
                8,
            ),
            bg(
                "outbox-relay",
                ra,
                ["published batch of {n} events to orders.events in {ms}ms"],
                8,
                until=start,
            ),
        ],
        [
            ev(
                "outbox-relay",
                "info",
                "lease outbox-orders renewed by outbox-relay-a (ttl 15s)",
                **{"from": -7200, "to": -2, "every_s": 60},
                pods=ra,
            ),
            ev(
                "outbox-relay",
                "info",
                "lease held by outbox-relay-a (outbox-orders, renewed {n}ms ago), standing by",
                **{"from": -7200, "to": -2, "every_s": 30},
                pods=rb,
            ),
            ev(
                "outbox-relay",
                "warn",
                "kafka-2.kafka.internal:9092: connection idle {n}s, waiting for produce response (in-flight 5)",
                at=start + 20,
                pods=ra,
            ),
            ev(
                "kafka",
                "info",
                "broker 2: rolling restart finished, leader election for {n} partitions complete",
                at=start - 30,
            ),
            ev(
                "notification-service",
                "error",
                "order confirmation SLA breached: {n} orders without OrderPlaced event after 10 min",
                **{"from": start + 600, "to": -2, "every_s": 5},
            ),
            ev(
                "search-indexer",
                "warn",
                "orders.events consumer lag 0, no messages for {n}s (other topics flowing)",
                **{"from": start + 300, "to": -2, "every_s": 60},
            ),
            ev(
                "loyalty",
                "error",
                "points not credited: order {n} not found in events, customer escalation",
                **{"from": start + 900, "to": -2, "every_s": 8},
            ),
            ev(
                "orders-api",
                "info",
                "orders-api 19.0.2 started (gift wrapping option)",
                at=start - 700,
                pods=["orders-api-1", "orders-api-2"],
            ),
            ev(
                "mail-provider",
                "warn",
                "SendGrid deferred {n} messages to outlook.com (421 4.7.0 try again later)",
                **{"from": -3600, "to": -5, "every_s": 500},
            ),
            ev(
                "kafka",
                "error",
                "broker 3: ISR shrink for orders.events-4 from 1,2,3 to 1,2",
                **{"from": -9300, "to": -9200, "every_s": 30},
            ),
        ],
        [
            {"name": "orders-api", "rps": 40, "latency": (0.08, 0.08)},
            {
                "name": "notification-service",
                "rps": 12,
                "errors": {"500": (0.0, 0.02)},
                "latency": (0.05, 0.05),
            },
        ],
        [
            {
                "name": "kafka_topic_messages_in_rate",
                "labels": {"topic": "payments.events"},
                "before": 25,
                "after": 25,
                "noise": 0.1,
            }
        ],
        {
            "order-emails-missing.md": runbook(
                "Order confirmation emails missing",
                "Missing confirmation emails are a SendGrid delivery problem: check the SendGrid activity feed and, if deferred, switch notification-service to the SES fallback (`MAIL_PROVIDER=ses`).",
            )
        },
        ramps=[
            {
                "name": "outbox_pending_rows",
                "labels": {"service": "outbox-relay"},
                "from": start,
                "to": 0,
                "before": 20,
                "after": 101000,
                "noise": 0.01,
            }
        ],
    )


# =================================================================================================
# 15. DNS (netcheck): the ledger's new hostname was announced in a release before its record
#     existed. The release's smoke test asked for it first: the VPC resolver cached NXDOMAIN for the
#     zone's negative TTL (SOA minimum 3600 s). The record was created 6 min later, but callers keep
#     getting NXDOMAIN for an hour. The incident says "accounting".
# =================================================================================================


@scenario("nxdomain-cached-before-record")
def nxdomain_cached_before_record() -> dict[str, Any]:
    start = -1740
    ac = ["accounting-api-1", "accounting-api-2"]
    host = "ledger-v2.fin.northwind.example"
    spec = simple(
        255,
        start,
        incident("invoices won't post", "accounting", start),
        expected(
            "dns",
            [host, "fin.northwind.example", "ledger-v2"],
            f"getaddrinfo ENOTFOUND {host}",
            f"accounting-api 7.0.0 (29 min ago) switched the ledger client to {host}. The release's smoke test resolved it before the record existed (the record was created 6 min later): the VPC resolver cached NXDOMAIN for the zone's negative TTL (SOA minimum 3600 s), so every lookup from the VPC still gets NXDOMAIN and no invoice can be posted, although the record is now correct at the authoritative servers. ledger-v2 itself is up; accounting-web's errors are the loud victim; the tax report warnings and the old ledger timeouts are not the cause.",
            [
                f"netcheck ledger-v2: dns nxdomain for {host}",
                f"accounting-api: getaddrinfo ENOTFOUND {host}",
                "route53: record created 23 min ago; zone SOA minimum (negative TTL) 3600 s",
            ],
            "Point accounting-api back at the old hostname until the negative cache expires (or flush the resolver cache), and lower the zone's SOA minimum; create records before releases use them.",
        ),
        [
            bg(
                "accounting-api",
                ac,
                ["GET /v1/invoices/{n} 200 {ms}ms", "GET /healthz 200 1ms"],
                8,
            ),
            bg(
                "ledger-v2",
                ["ledger-v2-1", "ledger-v2-2"],
                ["GET /healthz 200 2ms"],
                30,
            ),
        ],
        [
            ev(
                "deploy",
                "info",
                f"accounting-api 7.0.0 rolled out (LEDGER_URL=https://{host}); smoke test: POST /v1/journal -> getaddrinfo ENOTFOUND (ignored, non-blocking)",
                at=start - 10,
            ),
            ev(
                "route53",
                "info",
                f"ChangeResourceRecordSets: CREATE {host}. A 10.62.8.40 in zone fin.northwind.example (Z07414952K3X9T2QH1) INSYNC; SOA MINIMUM 3600",
                at=start + 350,
            ),
            ev(
                "accounting-api",
                "error",
                f"POST /v1/invoices/{{n}}/post 502: ledger request failed: getaddrinfo ENOTFOUND {host}",
                **{"from": start, "to": -2, "every_s": 2.5},
                pods=ac,
            ),
            ev(
                "accounting-web",
                "error",
                "invoice {n}: posting failed (accounting-api 502), left in draft",
                **{"from": start + 5, "to": -2, "every_s": 1.4},
            ),
            ev(
                "tax-report",
                "warn",
                "VAT return draft for 2026-11 has {n} unposted invoices",
                **{"from": -3600, "to": -5, "every_s": 600},
            ),
            ev(
                "ledger-v2",
                "info",
                "ledger-v2 listening on :443 (journal API v2)",
                at=-86000,
                pods=["ledger-v2-1", "ledger-v2-2"],
            ),
            ev(
                "accounting-api",
                "error",
                "POST https://ledger.fin.northwind.example/journal timed out after 10s",
                **{"from": -9700, "to": -9500, "every_s": 40},
                pods=ac,
            ),
        ],
        [
            {
                "name": "accounting-web",
                "rps": 9,
                "errors": {"500": (0.0, 0.45)},
                "latency": (0.1, 0.1),
            },
            {
                "name": "accounting-api",
                "rps": 12,
                "errors": {"502": (0.0, 0.5)},
                "latency": (0.05, 0.01),
            },
        ],
        [],
        {
            "posting-fails.md": runbook(
                "Invoices fail to post",
                "Posting failures mean the ledger's period is closed: ask finance to reopen the period in the ledger admin UI.",
            )
        },
    )
    spec["targets"] = [
        {
            "name": "ledger-v2",
            "url": f"https://{host}/healthz",
            "fault": {"kind": "dns_nxdomain"},
        },
        {
            "name": "ledger",
            "url": "https://ledger.fin.northwind.example/healthz",
            "fault": {"kind": "ok"},
        },
    ]
    spec["expected"]["root_cause_probe"] = "ledger-v2"
    spec["expected"]["netcheck"] = {
        "ledger-v2": {"failed_layer": "dns", "reason": "nxdomain"},
        "ledger": {"failed_layer": "none", "reason": None},
    }
    return spec


# =================================================================================================
# 16. TLS, the client's side: payout-gateway authenticates to the bank's payment API with a client
#     certificate (mutual TLS). That certificate expired at 12:00; the bank's server refuses the
#     handshake with a certificate_expired alert. Our own server certificate was renewed yesterday,
#     which everyone remembers. The incident says "payouts".
# =================================================================================================


@scenario("mtls-client-cert-expired")
def mtls_client_cert_expired() -> dict[str, Any]:
    start = -1800
    pg = ["payout-gateway-1", "payout-gateway-2"]
    alert = (
        "javax.net.ssl.SSLHandshakeException: Received fatal alert: certificate_expired"
    )
    return simple(
        256,
        start,
        incident("merchant payouts stuck", "payouts", start),
        expected(
            "tls",
            [
                "payout-gateway",
                "CN=payouts.harborpay.example",
                "payout-gateway client certificate",
            ],
            "Received fatal alert: certificate_expired",
            "payout-gateway authenticates to the bank's payment API (api.nordbank-corporate.example) with a client certificate (CN=payouts.harborpay.example) that expired 30 min ago; it was issued by the bank's CA for one year and is not in cert-manager. The bank's server refuses every handshake with a certificate_expired alert, so no payout can be submitted. The bank API is up (its status page is green, other calls with our new server certificate are unrelated); payout-scheduler's backlog is the loud victim; our server certificate renewal yesterday, the FX warnings and the old 503 maintenance errors are not the cause.",
            [
                "payout-gateway: SSLHandshakeException: Received fatal alert: certificate_expired (api.nordbank-corporate.example:443)",
                "keystore: CN=payouts.harborpay.example notAfter 12:00 UTC today",
                "cert-manager renewed api.harborpay.example (server) yesterday: a different certificate",
            ],
            "Request a new client certificate from the bank's portal (CSR for CN=payouts.harborpay.example), install it in payout-gateway's keystore and restart; track its expiry.",
        ),
        [
            bg(
                "payout-gateway",
                pg,
                ["GET /healthz 200 1ms", "GET /v1/payouts/{n} 200 {ms}ms"],
                8,
            )
        ],
        [
            ev(
                "payout-gateway",
                "warn",
                "keystore entry 'nordbank-client' (CN=payouts.harborpay.example) expires in 7 days",
                at=-604000,
                pods=pg,
            ),
            ev(
                "cert-manager",
                "info",
                "certificate payments/api-harborpay-tls renewed (CN=api.harborpay.example, notAfter 2027-03-05)",
                at=-82000,
            ),
            ev(
                "payout-gateway",
                "error",
                f"POST https://api.nordbank-corporate.example/payments/v3/credit-transfers failed: {alert}",
                **{"from": start, "to": -2, "every_s": 3},
                pods=pg,
            ),
            ev(
                "payout-gateway",
                "warn",
                "keystore entry 'nordbank-client' (CN=payouts.harborpay.example) notAfter 2026-12-05T12:00:00Z is in the past",
                **{"from": start, "to": -2, "every_s": 600},
                pods=pg,
            ),
            ev(
                "payout-scheduler",
                "error",
                "payout batch {n}: submission failed (gateway 502), {ms} payouts back to pending",
                **{"from": start + 30, "to": -2, "every_s": 5},
            ),
            ev(
                "merchant-portal",
                "warn",
                "merchant {n} opened a ticket: payout overdue",
                **{"from": start + 900, "to": -2, "every_s": 45},
            ),
            ev(
                "fx-service",
                "warn",
                "EUR/SEK rate older than {n}s",
                **{"from": -3600, "to": -5, "every_s": 350},
            ),
            ev(
                "payout-gateway",
                "error",
                "POST https://api.nordbank-corporate.example/payments/v3/credit-transfers 503 Service Unavailable (planned maintenance)",
                **{"from": -9600, "to": -9300, "every_s": 30},
                pods=pg,
            ),
        ],
        [
            {
                "name": "payout-scheduler",
                "rps": 2,
                "errors": {"502": (0.0, 0.9)},
                "latency": (0.5, 0.3),
            },
            {
                "name": "payout-gateway",
                "rps": 3,
                "errors": {"502": (0.0, 0.95)},
                "latency": (0.4, 0.05),
            },
        ],
        [
            {
                "name": "payouts_pending",
                "labels": {"service": "payout-scheduler"},
                "before": 40,
                "after": 5200,
                "noise": 0.05,
            }
        ],
        {
            "payouts-pending.md": runbook(
                "Payouts stuck in pending",
                "Pending payouts usually mean the bank API is in maintenance: check the bank's status page and let payout-scheduler retry; escalate to the bank after 2 hours.",
            )
        },
    )


def main(root: Path = HERE) -> None:
    for slug, build in SCENARIOS.items():
        base.write(slug, build(), root)
        print(slug)


if __name__ == "__main__":
    main()
