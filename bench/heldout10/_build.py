"""Writes the tenth held-out scenario set, bench/heldout10 (issue 21 item 7): `python bench/heldout10/_build.py`.

New incidents, none of them in the bundled set or in bench/heldout … bench/heldout9. As there,
everything that matters is written by hand below (incident, expected answer, runbooks, kubectl
answers, the log lines that carry the fault and the red herrings); the bulk (background request
lines, 2 h of metric points thinned to one every 30 s, a namespace's tables, describe layouts) comes
from bench/heldout9/_build.py's, bench/heldout8/_build.py's and bench/heldout7/_build.py's helpers,
each scenario with a fixed seed (261-276). The author read neither the planner (`reasoning/`) nor
the engine (`diagnosis/engine/`, `docs/engine.md`), nor any score file. Stdlib only.
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


h9 = _load("heldout9_build", HERE.parent / "heldout9" / "_build.py")
h8 = h9.h8
h7 = h9.h7
base = h9.base

table = base.table
events = base.events
runbook = base.runbook
when = base.when
app = h9.app
pod_name = h9.pod_name
namespace = h9.namespace
ev = h9.ev
bg = h9.bg
incident = h9.incident
expected = h9.expected
simple = h9.simple
container_text = h9.container_text
deployment_describe = h9.deployment_describe
describe_pod = h9.describe_pod
podlog = h9.podlog
running = h9.running
crashloop = h9.crashloop
waiting = h9.waiting
node_describe = h9.node_describe
replicaset_describe = h9.replicaset_describe
add_pods = h9.add_pods
pending_pod = h9.pending_pod
sched = h9.sched
kube_case = h9.kube_case
ds_row = h9.ds_row
DS_HEADER = h9.DS_HEADER
NOT_READY = h9.NOT_READY
NODES_FRA = h9.NODES_FRA
NODES_PDX = h9.NODES_PDX
NODES_SYD = h9.NODES_SYD
NODES_DUB = h9.NODES_DUB
NODES_IAD = h9.NODES_IAD
NODES_ARN = h9.NODES_ARN

SCENARIOS: dict[str, Any] = {}


def scenario(slug: str):
    def register(fn):
        SCENARIOS[slug] = fn
        return fn

    return register


def merge_ns(k8s: dict[str, str], other: dict[str, str]) -> None:
    """Adds a second namespace's tables (kube-system, linkerd …) without its namespace / node lists."""
    for key, value in other.items():
        if key not in ("kubectl get namespaces", "kubectl get nodes -o wide"):
            k8s[key] = value


def pods_of(a: dict[str, Any]) -> list[str]:
    return [pod_name(a, p[0]) for p in a["pods"]]


# =================================================================================================
# 1. Admission: a platform "sa-cleanup" CronJob deletes ServiceAccounts that made no Kubernetes API
#    call for 90 days. ledger-sync's ServiceAccount only carries an IAM role (IRSA) and never calls
#    the API server, so it was deleted at 03:00. Nothing showed until this morning's node rotation
#    (AMI drift) evicted two of its three pods: the ReplicaSet cannot create any pod without the
#    ServiceAccount. Transfers wait for a balance reservation. The incident says "transfers".
# =================================================================================================


@scenario("serviceaccount-deleted-by-janitor")
def serviceaccount_deleted_by_janitor() -> dict[str, Any]:
    start = -1680
    ns = "payments"
    img = "123456789012.dkr.ecr.eu-central-1.amazonaws.com/payments/ledger-sync:2.19.4"
    rs = "ledger-sync-7f9c6d5b8"
    ls = app(
        "ledger-sync",
        image=img,
        port=8080,
        rs="7f9c6d5b8",
        cluster_ip="10.100.61.14",
        desired=3,
        pods=[("q8lzt", "1/1", "Running", "0", "23d", 2)],
    )
    ta = app(
        "transfer-api",
        image="123456789012.dkr.ecr.eu-central-1.amazonaws.com/payments/transfer-api:6.3.1",
        port=8080,
        rs="64d9b7c8f",
        cluster_ip="10.100.61.30",
        pods=[
            ("m2kwp", "1/1", "Running", "0", "41m", 0),
            ("vz7rd", "1/1", "Running", "0", "41m", 1),
            ("c5hfn", "1/1", "Running", "0", "41m", 2),
        ],
    )
    fs = app(
        "fraud-score",
        image="123456789012.dkr.ecr.eu-central-1.amazonaws.com/risk/fraud-score:11.0.2",
        port=9000,
        rs="5b7c9d4f6",
        cluster_ip="10.100.61.52",
        pods=[
            ("t9bqx", "1/1", "Running", "0", "12d", 0),
            ("k4wjs", "1/1", "Running", "0", "12d", 1),
        ],
    )
    k8s = namespace(
        ns, NODES_FRA, [ls, ta, fs], seed=261, extra_namespaces=("platform-tools",)
    )
    k8s[f"kubectl get serviceaccounts -n {ns}"] = table(
        [
            ["NAME", "SECRETS", "AGE"],
            ["default", "0", "400d"],
            ["fraud-score", "0", "211d"],
            ["transfer-api", "0", "388d"],
        ]
    )
    msg = (
        f'Error creating: pods "{rs}-" is forbidden: error looking up service account '
        f'{ns}/ledger-sync: serviceaccount "ledger-sync" not found'
    )
    cont = container_text(
        "ledger-sync",
        img,
        8080,
        env={
            "AWS_ROLE_ARN": "arn:aws:iam::123456789012:role/payments-ledger-sync",
            "AWS_WEB_IDENTITY_TOKEN_FILE": "/var/run/secrets/eks.amazonaws.com/serviceaccount/token",
            "LEDGER_QUEUE_URL": "https://sqs.eu-central-1.amazonaws.com/123456789012/ledger-reservations",
        },
    )
    k8s[f"kubectl describe replicasets {rs} -n {ns}"] = replicaset_describe(
        rs,
        ns,
        deployment="ledger-sync",
        revision=31,
        desired=3,
        current=1,
        status="1 Running / 0 Waiting / 0 Succeeded / 0 Failed",
        containers=cont,
        failure=True,
        events_rows=[
            (
                "Warning",
                "FailedCreate",
                "38s (x19 over 27m)",
                "replicaset-controller",
                msg,
            )
        ],
    )
    k8s[f"kubectl describe deployments ledger-sync -n {ns}"] = deployment_describe(
        "ledger-sync",
        ns,
        replicas="3 desired | 1 updated | 1 total | 1 available | 2 unavailable",
        revision=31,
        containers=cont,
        conditions=[
            ("Progressing", "True", "NewReplicaSetAvailable"),
            ("Available", "False", "MinimumReplicasUnavailable"),
            ("ReplicaFailure", "True", "FailedCreate"),
        ],
        old_rs="<none>",
        new_rs=f"{rs} (1/3 replicas created)",
        labels="app=ledger-sync,team=payments-core",
    )
    describe_pod(
        k8s,
        ns,
        ls,
        "q8lzt",
        NODES_FRA,
        state=running(-1987200),
        started=-1987200,
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
                "41m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/transfer-api",
                "Scaled up replica set transfer-api-64d9b7c8f to 3",
            ),
            (
                "28m",
                "Normal",
                "Evicted",
                f"Pod/{rs}-x2d7m",
                "Evicted pod: Drifted (karpenter disruption of ip-10-70-1-52.eu-central-1.compute.internal, ami-0b6c1e29f1d4c1a7e -> ami-07f3d2a8c8e0b4d91)",
            ),
            (
                "27m",
                "Normal",
                "Evicted",
                f"Pod/{rs}-hh9c4",
                "Evicted pod: Drifted (karpenter disruption of ip-10-70-2-137.eu-central-1.compute.internal, ami-0b6c1e29f1d4c1a7e -> ami-07f3d2a8c8e0b4d91)",
            ),
            ("38s (x19 over 27m)", "Warning", "FailedCreate", f"ReplicaSet/{rs}", msg),
        ]
    )
    lsp, tap, fsp = pods_of(ls), pods_of(ta), pods_of(fs)
    evs = [
        ev(
            "sa-cleanup",
            "info",
            "platform-tools/sa-cleanup run 2026-12-05T03:00Z: 14 ServiceAccounts without API activity for 90d",
            at=-39600,
        ),
        ev(
            "sa-cleanup",
            "info",
            "deleted serviceaccount payments/ledger-sync (last API request: never; annotations: eks.amazonaws.com/role-arn)",
            at=-39590,
        ),
        ev(
            "ledger-sync",
            "warn",
            "reservation backlog {n} messages, oldest {ms}s",
            **{"from": start + 60, "to": -5, "every_s": 30},
            pods=lsp,
        ),
        ev(
            "transfer-api",
            "error",
            "POST /v2/transfers 503: balance reservation timed out after 10s (ledger-sync)",
            **{"from": start + 90, "to": -3, "every_s": 3},
            pods=tap,
        ),
        ev(
            "transfer-api",
            "info",
            "transfer-api 6.3.1 started (SEPA Instant cut-off handling)",
            at=-2460,
            pods=tap,
        ),
        ev(
            "fraud-score",
            "warn",
            "model feature 'device_age_days' missing for {n} requests, using default",
            **{"from": -3600, "to": -10, "every_s": 300},
            pods=fsp,
        ),
        ev(
            "transfer-api",
            "error",
            "SEPA gateway answered 503 Service Unavailable (maintenance window), retry scheduled",
            **{"from": -9000, "to": -8100, "every_s": 90},
            pods=tap,
        ),
    ]
    return kube_case(
        seed=261,
        start=start,
        inc=incident(
            "transfers stuck", "transfers", start, ["outgoing transfers stay pending"]
        ),
        exp=expected(
            "platform",
            [
                "deployment/ledger-sync",
                "ledger-sync",
                f"replicaset/{rs}",
                "serviceaccount/ledger-sync",
                "cronjob/sa-cleanup",
                "sa-cleanup",
            ],
            'serviceaccount "ledger-sync" not found',
            "The platform's sa-cleanup CronJob deleted ServiceAccounts without Kubernetes API activity for 90 days at 03:00; ledger-sync's ServiceAccount only carries an IAM role (IRSA) and never calls the API server, so it was deleted. The running pods kept working until a Karpenter drift rotation evicted two of the three: the ReplicaSet cannot create any pod (error looking up service account payments/ledger-sync: serviceaccount \"ledger-sync\" not found), one pod cannot keep up with balance reservations and transfer-api times out. transfer-api's 503s and its release, the node rotation (the trigger), fraud-score warnings and the old SEPA maintenance errors are not the cause.",
            [
                f'ReplicaSet {rs} FailedCreate: error looking up service account payments/ledger-sync: serviceaccount "ledger-sync" not found',
                "Deployment ledger-sync: 3 desired, 1 available, ReplicaFailure True",
                "sa-cleanup: deleted serviceaccount payments/ledger-sync at 03:00",
            ],
            "Recreate the ledger-sync ServiceAccount with its eks.amazonaws.com/role-arn annotation (from the chart) and exclude IRSA ServiceAccounts from sa-cleanup.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "transfer-api",
                tap,
                ["POST /v2/transfers 201 {ms}ms", "GET /v2/transfers/{n} 200 {ms}ms"],
                8,
            ),
            bg("ledger-sync", lsp, ["reserved balance for transfer {n} in {ms}ms"], 10),
        ],
        evs=evs,
        services=[
            {
                "name": "transfer-api",
                "rps": 22,
                "errors": {"503": (0.002, 0.31)},
                "latency": (0.09, 6.5),
            },
            {"name": "ledger-sync", "rps": 20, "rps_after": 7, "latency": (0.03, 0.04)},
            {"name": "fraud-score", "rps": 22, "latency": (0.02, 0.02)},
        ],
        gauges=[
            {
                "name": "ledger_reservation_backlog",
                "labels": {"service": "ledger-sync"},
                "before": 4,
                "after": 5200,
                "noise": 0.1,
            },
        ],
        books={
            "transfers-pending.md": runbook(
                "Transfers stuck in pending",
                "Pending transfers are almost always the SEPA gateway: check the bank's status page, then switch transfer-api to the backup rail (`TRANSFER_RAIL=target2`) and restart it.",
            )
        },
    )


# =================================================================================================
# 2. Scheduling: vector-indexer pins its pods with `nodeSelector: node.kubernetes.io/instance-type:
#    r5.2xlarge` (added years ago for a benchmark). The platform team moved the memory-optimized
#    Karpenter NodePool to r7i / r7a and drained the r5 nodes this morning; every vector-indexer pod
#    is Pending and Karpenter will not provision for it. The search index stops updating.
#    The incident says "site search".
# =================================================================================================

NODES_R7 = [
    ("ip-10-90-1-18.us-west-2.compute.internal", "Ready", "10.90.1.18", "2h"),
    ("ip-10-90-2-203.us-west-2.compute.internal", "Ready", "10.90.2.203", "2h"),
    ("ip-10-90-3-77.us-west-2.compute.internal", "Ready", "10.90.3.77", "2h"),
    ("ip-10-90-2-61.us-west-2.compute.internal", "Ready", "10.90.2.61", "2h"),
]


@scenario("nodeselector-retired-instance-type")
def nodeselector_retired_instance_type() -> dict[str, Any]:
    start = -1800
    ns = "search"
    img = "ghcr.io/larchmont/vector-indexer:5.4.0"
    vi = app(
        "vector-indexer",
        image=img,
        port=8081,
        rs="6c8d7f9b5",
        cluster_ip="10.110.12.40",
        pods=[
            ("b7xqd", "0/1", "Pending", "0", "2h", -1),
            ("n4tzw", "0/1", "Pending", "0", "2h", -1),
        ],
    )
    sa = app(
        "search-api",
        image="ghcr.io/larchmont/search-api:9.12.0",
        port=8080,
        rs="7d5f8c6b9",
        cluster_ip="10.110.12.10",
        pods=[
            ("fq2lm", "1/1", "Running", "0", "2h", 0),
            ("wd8rk", "1/1", "Running", "0", "2h", 1),
            ("p6hvs", "1/1", "Running", "0", "2h", 2),
        ],
    )
    em = app(
        "embedder",
        image="ghcr.io/larchmont/embedder:2.1.0",
        port=8000,
        rs="5f6b9c7d8",
        cluster_ip="10.110.12.22",
        pods=[
            ("r9gkc", "1/1", "Running", "0", "63m", 3),
            ("j2mzn", "1/1", "Running", "0", "63m", 1),
        ],
    )
    k8s = namespace(ns, NODES_R7, [vi, sa, em], seed=262)
    k8s["kubectl get nodes -o wide --show-labels"] = table(
        [["NAME", "STATUS", "ROLES", "AGE", "VERSION", "INTERNAL-IP", "LABELS"]]
        + [
            [
                n[0],
                "Ready",
                "<none>",
                "2h",
                "v1.31.3-eks-59bf375",
                n[2],
                f"karpenter.sh/nodepool=memory-optimized,node.kubernetes.io/instance-type={t},topology.kubernetes.io/zone=us-west-2{z}",
            ]
            for n, t, z in zip(
                NODES_R7,
                ["r7i.2xlarge", "r7a.2xlarge", "r7i.2xlarge", "r7i.xlarge"],
                "abcb",
                strict=True,
            )
        ]
    )
    fail = (
        "0/4 nodes are available: 4 node(s) didn't match Pod's node affinity/selector. "
        "preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling."
    )
    karp = (
        'Failed to schedule pod, incompatible with nodepool "memory-optimized", daemonset overhead={"cpu":"280m","memory":"420Mi","pods":"5"}, '
        "incompatible requirements, key node.kubernetes.io/instance-type, node.kubernetes.io/instance-type In [r5.2xlarge] "
        "not in node.kubernetes.io/instance-type In [r7a.2xlarge r7a.4xlarge r7a.xlarge r7i.2xlarge r7i.4xlarge r7i.xlarge]"
    )
    cont = container_text(
        "vector-indexer",
        img,
        8081,
        limits="memory:  48Gi",
        requests="cpu:      6\n  memory:   48Gi",
    )
    for sfx in ("b7xqd", "n4tzw"):
        name = pod_name(vi, sfx)
        k8s[f"kubectl describe pods {name} -n {ns}"] = pending_pod(
            name,
            ns,
            owner=f"ReplicaSet/{vi['name']}-{vi['rs']}",
            labels=["app=vector-indexer", f"pod-template-hash={vi['rs']}"],
            sa="vector-indexer",
            containers=cont
            + "\nNode-Selectors:              node.kubernetes.io/instance-type=r5.2xlarge",
            events_rows=[
                (
                    "Warning",
                    "FailedScheduling",
                    "2m (x31 over 2h)",
                    "default-scheduler",
                    fail,
                ),
                ("Normal", "Nominated", "2m (x24 over 2h)", "karpenter", karp),
            ],
        )
    k8s[f"kubectl describe deployments vector-indexer -n {ns}"] = deployment_describe(
        "vector-indexer",
        ns,
        replicas="2 desired | 2 updated | 2 total | 0 available | 2 unavailable",
        revision=57,
        containers=cont,
        conditions=[
            ("Available", "False", "MinimumReplicasUnavailable"),
            ("Progressing", "True", "NewReplicaSetAvailable"),
        ],
        old_rs="<none>",
        new_rs=f"vector-indexer-{vi['rs']} (2/2 replicas created)",
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "2h",
                "Normal",
                "Evicted",
                "Pod/vector-indexer-6c8d7f9b5-5ksgl",
                "Evicted pod: Drifted (karpenter disruption of ip-10-90-1-200.us-west-2.compute.internal: nodepool requirements changed)",
            ),
            (
                "2h",
                "Normal",
                "Evicted",
                "Pod/vector-indexer-6c8d7f9b5-z8fmq",
                "Evicted pod: Drifted (karpenter disruption of ip-10-90-3-41.us-west-2.compute.internal: nodepool requirements changed)",
            ),
            (
                "63m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/embedder",
                "Scaled up replica set embedder-5f6b9c7d8 to 2",
            ),
            (
                "2m (x31 over 2h)",
                "Warning",
                "FailedScheduling",
                "Pod/vector-indexer-6c8d7f9b5-b7xqd",
                fail,
            ),
            (
                "2m (x24 over 2h)",
                "Normal",
                "Nominated",
                "Pod/vector-indexer-6c8d7f9b5-n4tzw",
                karp,
            ),
        ]
    )
    sap, emp = pods_of(sa), pods_of(em)
    evs = [
        ev(
            "karpenter",
            "info",
            'nodepool memory-optimized updated: requirements node.kubernetes.io/instance-family In [r7i r7a] (was [r5 r6i]) (PR platform-karpenter#88 "move to 7th gen")',
            at=-7600,
        ),
        ev("karpenter", "warn", karp, **{"from": -7000, "to": -120, "every_s": 300}),
        ev(
            "search-api",
            "warn",
            "index freshness {n}s behind (SLO 5400s); serving stale product documents",
            **{"from": start, "to": -10, "every_s": 60},
            pods=sap,
        ),
        ev(
            "search-api",
            "error",
            "GET /search?q=... 503: vector index not ready (last commit {n}s ago)",
            **{"from": start + 300, "to": -4, "every_s": 6},
            pods=sap,
        ),
        ev(
            "embedder",
            "info",
            "embedder 2.1.0 loaded model e5-large-v2-q8 in {ms}s",
            at=-3780,
            pods=emp,
        ),
        ev(
            "clickstream",
            "warn",
            "consumer group clickstream-enricher lag {n} on partition 7",
            **{"from": -3600, "to": -30, "every_s": 240},
        ),
        ev(
            "vector-indexer",
            "error",
            "java.lang.OutOfMemoryError: Java heap space during segment merge",
            **{"from": -9500, "to": -9200, "every_s": 100},
        ),
    ]
    return kube_case(
        seed=262,
        start=start,
        inc=incident("new products don't show up in search", "site search", start),
        exp=expected(
            "platform",
            [
                "deployment/vector-indexer",
                "vector-indexer",
                "nodepool/memory-optimized",
                "memory-optimized",
            ],
            "didn't match Pod's node affinity/selector",
            "vector-indexer pins its pods with nodeSelector node.kubernetes.io/instance-type=r5.2xlarge. The memory-optimized Karpenter NodePool was moved to r7i/r7a this morning and the r5 nodes were drained: both vector-indexer pods are Pending (4 node(s) didn't match Pod's node affinity/selector) and Karpenter will not provision an r5 node (incompatible requirements). The index stops updating and search-api serves stale documents, then 503s. search-api's errors, the embedder release, the clickstream lag and the old heap error are not the cause.",
            [
                "vector-indexer pods Pending: 0/4 nodes are available: 4 node(s) didn't match Pod's node affinity/selector",
                "karpenter: incompatible requirements, node.kubernetes.io/instance-type In [r5.2xlarge]",
                "nodepool memory-optimized requirements moved to r7i / r7a",
            ],
            "Drop the instance-type nodeSelector from vector-indexer (or select on karpenter.sh/nodepool=memory-optimized) and roll it out.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "search-api",
                sap,
                ["GET /search?q=... 200 {ms}ms", "GET /healthz 200 1ms"],
                8,
            ),
            bg("embedder", emp, ["POST /embed 200 {ms}ms"], 12),
        ],
        evs=evs,
        services=[
            {
                "name": "search-api",
                "rps": 60,
                "errors": {"503": (0.0, 0.12)},
                "latency": (0.04, 0.05),
            },
            {"name": "vector-indexer", "rps": 9, "rps_after": 0, "change_at": -7100},
        ],
        gauges=[
            {
                "name": "search_index_freshness_seconds",
                "labels": {"service": "search-api"},
                "before": 45,
                "after": 7000,
                "noise": 0.05,
            },
        ],
        books={
            "search-stale.md": runbook(
                "Search results stale",
                "Stale results: the indexer is stuck on a merge. Restart it (`kubectl rollout restart deployment/vector-indexer -n search`) and, if it OOMs again, raise -Xmx.",
            )
        },
    )


# =================================================================================================
# 3. Startup: the Nexus chart upgrade (64.2 -> 71.0) added `securityContext.fsGroup: 200` without
#    `fsGroupChangePolicy: OnRootMismatch`. nexus-0's volume holds ~9 million blob files; kubelet
#    now changes the ownership of every file before starting the container, and the pod sits in
#    ContainerCreating for most of an hour. Every CI job that resolves dependencies fails.
#    The incident says "CI".
# =================================================================================================


@scenario("fsgroup-recursive-chown-startup")
def fsgroup_recursive_chown_startup() -> dict[str, Any]:
    start = -2340
    ns = "devtools"
    img = "sonatype/nexus3:3.75.1"
    nx = app(
        "nexus",
        image=img,
        port=8081,
        rs="",
        kind="StatefulSet",
        cluster_ip="10.96.140.8",
        pods=[("0", "0/1", "ContainerCreating", "0", "39m", 1)],
    )
    gr = app(
        "gitlab-runner",
        image="registry.gitlab.com/gitlab-org/gitlab-runner:alpine-v17.6.0",
        port=9252,
        rs="8b6d4c7f9",
        cluster_ip="10.96.140.30",
        pods=[
            ("h5rqz", "1/1", "Running", "0", "5h", 0),
            ("m8dkt", "1/1", "Running", "0", "5h", 2),
        ],
    )
    rn = app(
        "renovate",
        image="ghcr.io/renovatebot/renovate:39.42.0",
        port=8080,
        rs="6f9c8b7d5",
        cluster_ip="10.96.140.44",
        service=False,
        pods=[("v2lpq", "1/1", "Running", "0", "9d", 0)],
    )
    sts = table(
        [
            ["NAME", "READY", "AGE", "CONTAINERS", "IMAGES"],
            ["nexus", "0/1", "612d", "nexus", img],
        ]
    )
    pvcs = table(
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
                "nexus-data-nexus-0",
                "Bound",
                "pvc-3f1c9a2e-7b44-4d0e-9a61-2c5d8e0b7f13",
                "2Ti",
                "RWO",
                "gp3",
                "<unset>",
                "612d",
            ],
        ]
    )
    k8s = namespace(ns, NODES_DUB, [nx, gr, rn], seed=263, statefulsets=sts)
    k8s[f"kubectl get persistentvolumeclaims -n {ns}"] = pvcs
    vol = "/var/lib/kubelet/pods/0b7e4c2a-91d3-4f6e-8a25-7c1d9e3f5b60/volumes/kubernetes.io~csi/pvc-3f1c9a2e-7b44-4d0e-9a61-2c5d8e0b7f13/mount"
    slow = (
        f"Setting volume ownership for {vol} is taking longer than expected, consider using OnRootMismatch - "
        "https://kubernetes.io/docs/tasks/configure-pod-container/security-context/#configure-volume-permission-and-ownership-change-policy-for-pods"
    )
    timeout = (
        "Unable to attach or mount volumes: unmounted volumes=[nexus-data], unattached volumes=[], "
        "failed to process volumes=[]: timed out waiting for the condition"
    )
    node = NODES_DUB[1]
    k8s[f"kubectl describe pods nexus-0 -n {ns}"] = (
        f"Name:             nexus-0\nNamespace:        {ns}\nPriority:         0\nService Account:  nexus\n"
        f"Node:             {node[0]}/{node[2]}\nStart Time:       {when(-2340)}\n"
        "Labels:           app=nexus\n                  apps.kubernetes.io/pod-index=0\n"
        "                  controller-revision-hash=nexus-7c9d6f5b8\n                  statefulset.kubernetes.io/pod-name=nexus-0\n"
        "Annotations:      checksum/config: 9e1f0c…\nStatus:           Pending\nIP:               \n"
        "Controlled By:    StatefulSet/nexus\nContainers:\n"
        + container_text(
            "nexus",
            img,
            8081,
            limits="memory:  8Gi",
            requests="cpu:      2\n  memory:   8Gi",
            readiness="http-get http://:8081/service/rest/v1/status delay=30s timeout=5s period=10s #success=1 #failure=6",
        )
        + "\n      /nexus-data from nexus-data (rw)\n"
        "    State:          Waiting\n      Reason:       ContainerCreating\n    Ready:          False\n    Restart Count:  0\n"
        "Conditions:\n  Type                        Status\n  PodReadyToStartContainers   False \n  Initialized                 True \n"
        "  Ready                       False \n  ContainersReady             False \n  PodScheduled                True \n"
        "Volumes:\n  nexus-data:\n    Type:       PersistentVolumeClaim (a reference to a PersistentVolumeClaim in the same namespace)\n"
        "    ClaimName:  nexus-data-nexus-0\n    ReadOnly:   false\n"
        "Security Context:  fsGroup=200, runAsUser=200, runAsGroup=200\n"
        "QoS Class:         Burstable\n"
        + h7.event_block(
            [
                sched(ns, "nexus-0", node[0], "39m"),
                (
                    "Normal",
                    "SuccessfulAttachVolume",
                    "38m",
                    "attachdetach-controller",
                    'AttachVolume.Attach succeeded for volume "pvc-3f1c9a2e-7b44-4d0e-9a61-2c5d8e0b7f13"',
                ),
                ("Warning", "VolumePermissionChangeInProgress", "36m", "kubelet", slow),
                ("Warning", "FailedMount", "67s (x17 over 37m)", "kubelet", timeout),
            ]
        )
        + "\n"
    )
    k8s[f"kubectl get statefulsets nexus -n {ns} -o yaml"] = (
        "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: nexus\n  namespace: devtools\n"
        "  labels:\n    app.kubernetes.io/managed-by: Helm\n    helm.sh/chart: nexus-repository-manager-71.0.0\n"
        "spec:\n  replicas: 1\n  serviceName: nexus\n  selector:\n    matchLabels:\n      app: nexus\n"
        "  template:\n    metadata:\n      labels:\n        app: nexus\n    spec:\n      securityContext:\n"
        "        fsGroup: 200\n        runAsUser: 200\n        runAsGroup: 200\n      containers:\n      - name: nexus\n"
        f"        image: {img}\n        volumeMounts:\n        - name: nexus-data\n          mountPath: /nexus-data\n"
        "  volumeClaimTemplates:\n  - metadata:\n      name: nexus-data\n    spec:\n      accessModes: [ReadWriteOnce]\n"
        "      storageClassName: gp3\n      resources:\n        requests:\n          storage: 2Ti\n"
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "40m",
                "Normal",
                "SuccessfulDelete",
                "StatefulSet/nexus",
                "delete Pod nexus-0 in StatefulSet nexus successful",
            ),
            (
                "39m",
                "Normal",
                "SuccessfulCreate",
                "StatefulSet/nexus",
                "create Pod nexus-0 in StatefulSet nexus successful",
            ),
            ("36m", "Warning", "VolumePermissionChangeInProgress", "Pod/nexus-0", slow),
            ("67s (x17 over 37m)", "Warning", "FailedMount", "Pod/nexus-0", timeout),
        ]
    )
    grp = pods_of(gr)
    evs = [
        ev(
            "helm",
            "info",
            "release devtools/nexus upgraded: chart nexus-repository-manager 64.2.0 -> 71.0.0 (revision 23)",
            at=start - 60,
        ),
        ev("kubelet", "warn", slow, at=start + 180, labels={"node": node[0]}),
        ev(
            "gitlab-runner",
            "error",
            "job {n} failed: Could not transfer artifact org.springframework.boot:spring-boot-starter-parent:pom:3.4.0 from/to nexus (https://nexus.devtools.svc:8081/repository/maven-public/): status code: 503",
            **{"from": start + 60, "to": -5, "every_s": 15},
            pods=grp,
        ),
        ev(
            "gitlab-runner",
            "error",
            "job {n} failed: npm ERR! 503 Service Unavailable - GET https://nexus.devtools.svc:8081/repository/npm-group/react",
            **{"from": start + 90, "to": -8, "every_s": 25},
            pods=grp,
        ),
        ev(
            "gitlab-runner",
            "info",
            "gitlab-runner 17.6.0 registered runner k8s-large (concurrent 40)",
            at=-18000,
            pods=grp,
        ),
        ev(
            "renovate",
            "warn",
            "Repository has no renovate.json and onboarding is disabled: skipping {n}",
            **{"from": -3600, "to": -30, "every_s": 420},
        ),
        ev(
            "nexus",
            "warn",
            "Blob store default has 14% free space remaining",
            **{"from": -9800, "to": -9000, "every_s": 200},
        ),
    ]
    return kube_case(
        seed=263,
        start=start,
        inc=incident(
            "CI builds failing",
            "CI",
            start,
            ["dependency download fails in every pipeline"],
        ),
        exp=expected(
            "platform",
            ["statefulset/nexus", "nexus", "pod/nexus-0", "nexus-0"],
            "Setting volume ownership",
            "The Nexus chart upgrade (64.2 -> 71.0) added securityContext.fsGroup 200 without fsGroupChangePolicy OnRootMismatch. On restart kubelet recursively changes the group of every file of nexus-0's 2 TiB volume (~9 million blobs) before starting the container: the pod stays ContainerCreating for most of an hour (VolumePermissionChangeInProgress, then FailedMount timed out waiting for the condition). Every CI job fails to fetch dependencies with 503. The gitlab-runner errors and release, the FailedMount wording (the EBS volume attached fine), renovate noise and the old blob-store space warning are not the cause.",
            [
                "nexus-0 ContainerCreating 39 min; VolumePermissionChangeInProgress: Setting volume ownership … is taking longer than expected",
                "StatefulSet nexus: securityContext fsGroup 200, chart nexus-repository-manager-71.0.0",
                "AttachVolume.Attach succeeded: the volume is attached, only the ownership change is running",
            ],
            "Set fsGroupChangePolicy: OnRootMismatch in nexus's pod securityContext (or drop fsGroup) and let the pod start; the ownership is already right on most files.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "gitlab-runner",
                grp,
                ["job {n} succeeded in {ms}s", "Checking for jobs... received job {n}"],
                10,
            )
        ],
        evs=evs,
        services=[
            {
                "name": "nexus",
                "rps": 90,
                "errors": {"503": (0.0, 1.0)},
                "latency": (0.06, 0.001),
            },
            {
                "name": "gitlab-runner",
                "rps": 2,
                "errors": {"500": (0.01, 0.7)},
                "latency": (40.0, 12.0),
            },
        ],
        books={
            "nexus-failedmount.md": runbook(
                "Nexus FailedMount",
                "FailedMount on nexus-0 means the EBS volume is stuck attached to an old node: find the VolumeAttachment, force-detach it in the EC2 console and delete the pod.",
            )
        },
    )


# =================================================================================================
# 4. Runtime: the Istio 1.24 upgrade's values set the injected sidecar's memory limit to 128Mi
#    (`global.proxy.resources.limits.memory`, copied from the staging values). The `basket`
#    namespace has no Sidecar resource, so every proxy holds the whole mesh's configuration
#    (~4,000 endpoints) and grows past 128Mi: istio-proxy is OOMKilled every few minutes while the
#    cart-service container itself is fine. Each proxy restart drops in-flight calls.
#    The incident says "basket".
# =================================================================================================


@scenario("sidecar-proxy-oomkilled")
def sidecar_proxy_oomkilled() -> dict[str, Any]:
    start = -1500
    ns = "basket"
    img = "europe-docker.pkg.dev/fennel-prod/apps/cart-service:5.2.0"
    proxy_img = "docker.io/istio/proxyv2:1.24.2"
    cs = app(
        "cart-service",
        image=img,
        port=8080,
        rs="79c5d8f6b",
        cluster_ip="10.40.18.7",
        pods=[
            ("d4wkx", "1/2", "Running", "9 (3m ago)", "70m", 0),
            ("l7qpz", "2/2", "Running", "11 (41s ago)", "70m", 1),
            ("s2nvc", "1/2", "Running", "10 (2m ago)", "70m", 2),
        ],
    )
    bff = app(
        "storefront-bff",
        image="europe-docker.pkg.dev/fennel-prod/apps/storefront-bff:14.8.3",
        port=3000,
        rs="5c8f7b6d9",
        cluster_ip="10.40.18.2",
        pods=[
            ("g6tmr", "2/2", "Running", "7 (4m ago)", "2d", 0),
            ("y3bkw", "2/2", "Running", "8 (1m ago)", "2d", 2),
        ],
    )
    k8s = namespace(
        ns,
        NODES_SYD,
        [cs, bff],
        seed=264,
        extra_namespaces=("istio-system",),
        configmaps=[("cart-service-config", "4", "300d")],
    )
    cont_app = container_text(
        "cart-service",
        img,
        8080,
        limits="cpu:     1\n  memory:  1Gi",
        requests="cpu:      500m\n  memory:   1Gi",
    )
    for i, (sfx, r) in enumerate([("d4wkx", 9), ("l7qpz", 11), ("s2nvc", 10)]):
        name = pod_name(cs, sfx)
        node = NODES_SYD[i]
        k8s[f"kubectl describe pods {name} -n {ns}"] = (
            f"Name:             {name}\nNamespace:        {ns}\nPriority:         0\nService Account:  cart-service\n"
            f"Node:             {node[0]}/{node[2]}\nStart Time:       {when(-4200)}\n"
            f"Labels:           app=cart-service\n                  pod-template-hash={cs['rs']}\n"
            "                  security.istio.io/tlsMode=istio\n                  service.istio.io/canonical-name=cart-service\n"
            'Annotations:      istio.io/rev: 1-24-2\n                  sidecar.istio.io/status: {"initContainers":["istio-validation"],"containers":["istio-proxy"]}\n'
            f"Status:           Running\nIP:               10.64.{i + 1}.{40 + i * 17}\nControlled By:    ReplicaSet/cart-service-{cs['rs']}\n"
            "Containers:\n"
            + cont_app
            + f"\n    State:          Running\n      Started:      {when(-4190)}\n    Ready:          True\n    Restart Count:  0\n"
            f"   istio-proxy:\n    Image:      {proxy_img}\n    Port:       15090/TCP (http-envoy-prom)\n"
            "    Args:\n      proxy\n      sidecar\n      --domain\n      $(POD_NAMESPACE).svc.cluster.local\n"
            "    Limits:\n      cpu:     500m\n      memory:  128Mi\n    Requests:\n      cpu:      100m\n      memory:   128Mi\n"
            "    Readiness:  http-get http://:15021/healthz/ready delay=0s timeout=3s period=15s #success=1 #failure=4\n"
            + (
                "    State:          Running\n"
                if sfx == "l7qpz"
                else "    State:          Waiting\n      Reason:       CrashLoopBackOff\n"
            )
            + f"    Last State:     Terminated\n      Reason:       OOMKilled\n      Exit Code:    137\n"
            f"      Started:      {when(-420 + i * 60)}\n      Finished:     {when(-200 + i * 50)}\n"
            f"    Ready:          {'True' if sfx == 'l7qpz' else 'False'}\n    Restart Count:  {r}\n"
            "Conditions:\n  Type                        Status\n  PodReadyToStartContainers   True \n  Initialized                 True \n"
            f"  Ready                       {'True' if sfx == 'l7qpz' else 'False'} \n"
            f"  ContainersReady             {'True' if sfx == 'l7qpz' else 'False'} \n  PodScheduled                True \n"
            "QoS Class:                   Burstable\n"
            + h7.event_block(
                [
                    (
                        "Warning",
                        "BackOff",
                        f"{2 + i}m (x{20 + i} over 58m)",
                        "kubelet",
                        "Back-off restarting failed container istio-proxy in pod "
                        + f"{name}_{ns}(7a3e…)",
                    ),
                    (
                        "Warning",
                        "Unhealthy",
                        f"{3 + i}m (x{31 + i} over 60m)",
                        "kubelet",
                        'Readiness probe failed: Get "http://10.64.1.40:15021/healthz/ready": dial tcp 10.64.1.40:15021: connect: connection refused',
                    ),
                    (
                        "Normal",
                        "Pulled",
                        f"{3 + i}m (x{r} over 61m)",
                        "kubelet",
                        f'Container image "{proxy_img}" already present on machine',
                    ),
                ]
            )
            + "\n"
        )
    k8s[f"kubectl describe deployments cart-service -n {ns}"] = deployment_describe(
        "cart-service",
        ns,
        replicas="3 desired | 3 updated | 3 total | 1 available | 2 unavailable",
        revision=88,
        containers=cont_app,
        conditions=[
            ("Available", "False", "MinimumReplicasUnavailable"),
            ("Progressing", "True", "NewReplicaSetAvailable"),
        ],
        old_rs="cart-service-6b4d9c7f5 (0/0 replicas created)",
        new_rs=f"cart-service-{cs['rs']} (3/3 replicas created)",
        events_rows=[
            (
                "Normal",
                "ScalingReplicaSet",
                "70m",
                "deployment-controller",
                f"Scaled up replica set cart-service-{cs['rs']} to 3 from 0",
            )
        ],
    )
    k8s[
        "kubectl get configmaps istio-sidecar-injector-1-24-2 -n istio-system -o yaml"
    ] = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: istio-sidecar-injector-1-24-2\n  namespace: istio-system\n"
        "  labels:\n    istio.io/rev: 1-24-2\n    operator.istio.io/component: Pilot\ndata:\n  values: |-\n"
        '    {"global":{"proxy":{"resources":{"limits":{"cpu":"500m","memory":"128Mi"},"requests":{"cpu":"100m","memory":"128Mi"}}}}}\n'
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "70m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/cart-service",
                f"Scaled up replica set cart-service-{cs['rs']} to 3 from 0",
            ),
            (
                "41s",
                "Warning",
                "OOMKilling",
                "Node/ip-10-24-2-96.ap-southeast-2.compute.internal",
                "Memory cgroup out of memory: Killed process 40117 (envoy) total-vm:1804212kB, anon-rss:130244kB, file-rss:0kB, shmem-rss:0kB, UID:1337 pgtables:812kB oom_score_adj:-997",
            ),
            (
                "2m (x22 over 58m)",
                "Warning",
                "BackOff",
                f"Pod/{pod_name(cs, 'd4wkx')}",
                "Back-off restarting failed container istio-proxy",
            ),
            (
                "4m (x7 over 2d)",
                "Warning",
                "BackOff",
                f"Pod/{pod_name(bff, 'g6tmr')}",
                "Back-off restarting failed container istio-proxy",
            ),
        ]
    )
    csp, bffp = pods_of(cs), pods_of(bff)
    evs = [
        ev(
            "argocd",
            "info",
            "application istio-control-plane synced to revision 4f2c1ab: istiod 1.24.2, values global.proxy.resources.limits.memory=128Mi",
            at=-9000,
        ),
        ev(
            "istio-proxy",
            "warn",
            "Envoy proxy is NOT ready: config not received from XDS server (is Istiod running?): cds updates: 0 successful, 0 rejected; lds updates: 0 successful, 0 rejected",
            **{"from": start, "to": -10, "every_s": 40},
            pods=csp,
        ),
        ev(
            "storefront-bff",
            "error",
            "POST /api/basket/items 503: upstream connect error or disconnect/reset before headers. reset reason: connection termination (cart-service.basket.svc.cluster.local)",
            **{"from": start + 30, "to": -3, "every_s": 3},
            pods=bffp,
        ),
        ev(
            "cart-service",
            "info",
            "cart-service 5.2.0 started (gift-wrap option); Started CartServiceApplication in 7.9 seconds",
            at=-4190,
            pods=csp,
        ),
        ev(
            "cart-service",
            "warn",
            "Redis command GET cart:{n} took {ms}ms (slowlog threshold 50ms)",
            **{"from": -3600, "to": -20, "every_s": 300},
            pods=csp,
        ),
        ev(
            "cart-service",
            "error",
            "Unable to connect to Redis; nested exception is io.lettuce.core.RedisConnectionException: Connection refused",
            **{"from": -8400, "to": -8100, "every_s": 60},
            pods=csp,
        ),
    ]
    return kube_case(
        seed=264,
        start=start,
        inc=incident(
            "basket errors", "basket", start, ["adding to basket fails now and then"]
        ),
        exp=expected(
            "platform",
            [
                "deployment/cart-service",
                "cart-service",
                "istio-proxy",
                "configmap/istio-sidecar-injector-1-24-2",
                "istio-sidecar-injector-1-24-2",
                "istio-sidecar-injector",
            ],
            "OOMKilled",
            "The Istio 1.24 upgrade's values set the injected sidecar's memory limit to 128Mi. The basket namespace has no Sidecar resource, so each proxy holds the whole mesh's configuration and grows past it: cart-service's istio-proxy containers are OOMKilled (exit 137) every few minutes and back off, while the cart-service container itself runs with 0 restarts. Each proxy restart drops in-flight calls and leaves the pod unready; storefront-bff answers 503 (reset reason: connection termination). storefront-bff's errors (its own proxy restarts too), cart-service's release, the Redis slowlog and the old Redis connection error are not the cause.",
            [
                "cart-service pods 1/2: istio-proxy Last State Terminated OOMKilled, limit 128Mi, restarts 9-11; cart-service container 0 restarts",
                "node event: Memory cgroup out of memory: Killed process (envoy)",
                "istio-sidecar-injector values: global.proxy.resources.limits.memory 128Mi since the 1.24 upgrade",
            ],
            "Raise the sidecar memory limit (or annotate sidecar.istio.io/proxyMemoryLimit) and add a Sidecar resource to basket limiting egress hosts; restart the pods.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "cart-service",
                csp,
                ["POST /carts/{n}/items 200 {ms}ms", "GET /carts/{n} 200 {ms}ms"],
                8,
            ),
            bg("storefront-bff", bffp, ["GET /api/basket 200 {ms}ms"], 8),
        ],
        evs=evs,
        services=[
            {
                "name": "storefront-bff",
                "rps": 120,
                "errors": {"503": (0.001, 0.09)},
                "latency": (0.05, 0.09),
            },
            {
                "name": "cart-service",
                "rps": 80,
                "errors": {"503": (0.0, 0.08)},
                "latency": (0.02, 0.03),
            },
        ],
        gauges=[
            {
                "name": "container_memory_working_set_bytes",
                "labels": {"service": "cart-service", "container": "istio-proxy"},
                "before": 96000000,
                "after": 131000000,
                "noise": 0.04,
                "change_at": -9000,
            },
            {
                "name": "container_memory_working_set_bytes",
                "labels": {"service": "cart-service", "container": "cart-service"},
                "before": 610000000,
                "after": 640000000,
                "noise": 0.04,
            },
        ],
        books={
            "cart-service-oom.md": runbook(
                "cart-service OOM / restarts",
                "cart-service restarting means the JVM heap is too small for the gift-wrap catalogue: raise the container limit to 2Gi and -Xmx to 1536m in the chart values.",
            )
        },
    )


# =================================================================================================
# 5. Infrastructure / node: an AKS cluster on kubenet. A Terraform refactor moved the route table
#    rt-aks-prod-weu to the network resource group; the cluster identity's Network Contributor role
#    stayed on the old scope. Existing routes keep working, but the cloud route controller cannot
#    create routes for new nodes: the two nodes the autoscaler added for the lunch peak stay
#    NetworkUnavailable (tainted), the HPA's new order-api pods are Pending, the old ones are
#    saturated. The incident says "ordering".
# =================================================================================================

NODES_AKS = [
    ("aks-apps-38215796-vmss000004", "Ready", "10.224.0.8", "46d"),
    ("aks-apps-38215796-vmss000006", "Ready", "10.224.0.10", "46d"),
    ("aks-apps-38215796-vmss000009", "Ready", "10.224.0.13", "12d"),
    ("aks-apps-38215796-vmss00000k", "Ready", "10.224.0.31", "34m"),
    ("aks-apps-38215796-vmss00000l", "Ready", "10.224.0.32", "34m"),
]


@scenario("node-route-not-created")
def node_route_not_created() -> dict[str, Any]:
    start = -1980
    ns = "orders"
    img = "fennelacr.azurecr.io/orders/order-api:12.4.1"
    oa = app(
        "order-api",
        image=img,
        port=8080,
        rs="6d7c9f8b5",
        cluster_ip="10.0.92.15",
        desired=9,
        pods=[
            ("b2kfs", "1/1", "Running", "0", "6d", 0),
            ("h8wqn", "1/1", "Running", "0", "6d", 1),
            ("p5zrt", "1/1", "Running", "0", "6d", 2),
            ("c9dlm", "1/1", "Running", "0", "6d", 0),
            ("w3xvj", "0/1", "Pending", "0", "35m", -1),
            ("f6ngq", "0/1", "Pending", "0", "35m", -1),
            ("k1tbh", "0/1", "Pending", "0", "35m", -1),
            ("r4mzc", "0/1", "Pending", "0", "35m", -1),
            ("z7spd", "0/1", "Pending", "0", "35m", -1),
        ],
    )
    rg = app(
        "restaurant-gateway",
        image="fennelacr.azurecr.io/orders/restaurant-gateway:3.9.0",
        port=8080,
        rs="8f5b6c9d7",
        cluster_ip="10.0.92.40",
        pods=[
            ("t5vcm", "1/1", "Running", "0", "6d", 1),
            ("n2qkx", "1/1", "Running", "0", "6d", 2),
        ],
    )
    ms = app(
        "menu-service",
        image="fennelacr.azurecr.io/orders/menu-service:2.8.0",
        port=8080,
        rs="7b9d5c8f6",
        cluster_ip="10.0.92.51",
        pods=[
            ("j8fwz", "1/1", "Running", "0", "52m", 0),
            ("e3lpr", "1/1", "Running", "0", "52m", 2),
        ],
    )
    k8s = namespace(ns, NODES_AKS, [oa, rg, ms], seed=265)
    k8s["kubectl get horizontalpodautoscalers -n orders"] = table(
        [
            ["NAME", "REFERENCE", "TARGETS", "MINPODS", "MAXPODS", "REPLICAS", "AGE"],
            [
                "order-api",
                "Deployment/order-api",
                "cpu: 186%/60%",
                "4",
                "16",
                "9",
                "300d",
            ],
        ]
    )
    route_msg = "RouteController failed to create a route"
    taint = "node.kubernetes.io/network-unavailable:NoSchedule"
    fail = (
        "0/5 nodes are available: 2 node(s) had untolerated taint {node.kubernetes.io/network-unavailable: }, "
        "3 Insufficient cpu. preemption: 0/5 nodes are available: 2 Preemption is not helpful for scheduling, "
        "3 No preemption victims found for incoming pod."
    )
    cloud_err = (
        'Code="AuthorizationFailed" Message="The client \'5e0c2f1a-8d7b-4c3e-9f6a-1b2d3c4e5f60\' with object id '
        "'5e0c2f1a-8d7b-4c3e-9f6a-1b2d3c4e5f60' does not have authorization to perform action "
        "'Microsoft.Network/routeTables/routes/write' over scope '/subscriptions/3b9e…/resourceGroups/rg-network-prod-weu/"
        "providers/Microsoft.Network/routeTables/rt-aks-prod-weu/routes/aks-apps-38215796-vmss00000k' or the scope is invalid.\""
    )
    for n in NODES_AKS:
        new = n[0].endswith(("00000k", "00000l"))
        k8s[f"kubectl describe nodes {n[0]}"] = node_describe(
            n[0],
            n[2],
            conditions={
                "NetworkUnavailable": ("True", "-2040", "NoRouteCreated", route_msg)
                if new
                else (
                    "False",
                    "-3900000",
                    "RouteCreated",
                    "RouteController created a route",
                )
            },
            taints=taint if new else "<none>",
            pods_rows=[
                ("kube-system", f"azure-ip-masq-agent-{n[0][-2:]}"),
                ("kube-system", f"kube-proxy-{n[0][-3:]}"),
            ],
            events_text=(
                f"  Type     Reason                  Age                  From             Message\n"
                f"  ----     ------                  ----                 ----             -------\n"
                f"  Normal   RegisteredNode          34m                  node-controller  Node {n[0]} event: Registered Node {n[0]} in Controller\n"
                f"  Warning  FailedToCreateRoute     2m (x15 over 34m)    route_controller  Could not create route {n[0]} 10.244.{9 if n[0][-1] == 'k' else 10}.0/24 for node {n[0]} after 3.2s: {cloud_err}"
            )
            if new
            else "",
            capacity=("4", "16374452Ki", "110"),
        )
    cont = container_text(
        "order-api",
        img,
        8080,
        limits="cpu:     2\n  memory:  2Gi",
        requests="cpu:      1\n  memory:   2Gi",
    )
    for sfx in ("w3xvj", "f6ngq"):
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
                    "90s (x12 over 35m)",
                    "default-scheduler",
                    fail,
                ),
                (
                    "Normal",
                    "NotTriggerScaleUp",
                    "3m (x9 over 33m)",
                    "cluster-autoscaler",
                    "pod didn't trigger scale-up: 1 max node group size reached",
                ),
            ],
        )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "52m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/menu-service",
                "Scaled up replica set menu-service-7b9d5c8f6 to 2",
            ),
            (
                "36m",
                "Normal",
                "SuccessfulRescale",
                "HorizontalPodAutoscaler/order-api",
                "New size: 9; reason: cpu resource utilization (percentage of request) above target",
            ),
            (
                "35m",
                "Normal",
                "TriggeredScaleUp",
                f"Pod/{pod_name(oa, 'w3xvj')}",
                "pod triggered scale-up: [{aks-apps-38215796-vmss 3->5 (max: 5)}]",
            ),
            (
                "90s (x12 over 35m)",
                "Warning",
                "FailedScheduling",
                f"Pod/{pod_name(oa, 'w3xvj')}",
                fail,
            ),
        ]
    )
    oap = [pod_name(oa, s) for s in ("b2kfs", "h8wqn", "p5zrt", "c9dlm")]
    rgp, msp = pods_of(rg), pods_of(ms)
    evs = [
        ev(
            "terraform",
            "info",
            "apply network-prod: azurerm_route_table.aks moved to rg-network-prod-weu (moved block), 0 to add, 1 to change, 0 to destroy",
            at=-86400 + 3000,
        ),
        ev(
            "cloud-controller-manager",
            "error",
            f"Could not create route aks-apps-38215796-vmss00000k 10.244.9.0/24 for node aks-apps-38215796-vmss00000k: {cloud_err}",
            **{"from": start - 60, "to": -30, "every_s": 120},
        ),
        ev(
            "order-api",
            "warn",
            "request queue full ({n} waiting), rejecting with 503; worker threads busy 200/200",
            **{"from": start + 120, "to": -4, "every_s": 10},
            pods=oap,
        ),
        ev(
            "restaurant-gateway",
            "error",
            "POST /orders/{n}/dispatch 504 Gateway Timeout: order-api did not answer within 15s",
            **{"from": start + 180, "to": -2, "every_s": 2.5},
            pods=rgp,
        ),
        ev(
            "menu-service",
            "info",
            "menu-service 2.8.0 started: lunch specials cache warmed ({n} items)",
            at=-3120,
            pods=msp,
        ),
        ev(
            "menu-service",
            "warn",
            "image CDN answered 404 for menu photo {n}, using placeholder",
            **{"from": -3600, "to": -20, "every_s": 360},
            pods=msp,
        ),
        ev(
            "order-api",
            "error",
            "Stripe webhook signature verification failed for event evt_{n}",
            **{"from": -10200, "to": -9600, "every_s": 120},
            pods=oap,
        ),
    ]
    return kube_case(
        seed=265,
        start=start,
        inc=incident("orders slow at lunch", "ordering", start),
        exp=expected(
            "platform",
            [
                "rt-aks-prod-weu",
                "routetable/rt-aks-prod-weu",
                "node/aks-apps-38215796-vmss00000k",
                "aks-apps-38215796-vmss00000k",
                "node/aks-apps-38215796-vmss00000l",
                "aks-apps-38215796-vmss00000l",
                "cloud-controller-manager",
            ],
            route_msg,
            "The cluster uses kubenet: every node needs a route in rt-aks-prod-weu. Yesterday's Terraform refactor moved that route table to rg-network-prod-weu, and the cluster identity's Network Contributor role stayed on the old scope. Existing routes keep working, but the route controller cannot create routes for new nodes (AuthorizationFailed on routeTables/routes/write): the two nodes the autoscaler added for the lunch peak stay NetworkUnavailable (NoRouteCreated, tainted network-unavailable), five new order-api pods are Pending, four saturated pods reject work and restaurant-gateway times out. The gateway's 504s, order-api's CPU and queue, the lunch peak (the trigger), menu-service's release and noise and the old Stripe error are not the cause.",
            [
                "nodes vmss00000k / vmss00000l: NetworkUnavailable True, NoRouteCreated: RouteController failed to create a route; taint network-unavailable",
                "FailedToCreateRoute: AuthorizationFailed for Microsoft.Network/routeTables/routes/write on rt-aks-prod-weu",
                "order-api: 5 of 9 pods Pending (untolerated taint network-unavailable)",
            ],
            "Grant the cluster identity Network Contributor on rt-aks-prod-weu in its new resource group; the route controller then creates the routes and the taint is removed.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "order-api",
                oap,
                ["POST /orders 201 {ms}ms", "GET /orders/{n} 200 {ms}ms"],
                8,
            ),
            bg("restaurant-gateway", rgp, ["POST /orders/{n}/dispatch 200 {ms}ms"], 9),
        ],
        evs=evs,
        services=[
            {
                "name": "restaurant-gateway",
                "rps": 40,
                "errors": {"504": (0.0, 0.18)},
                "latency": (0.2, 8.0),
            },
            {
                "name": "order-api",
                "rps": 55,
                "rps_after": 95,
                "errors": {"503": (0.001, 0.22)},
                "latency": (0.08, 2.9),
            },
        ],
        gauges=[
            {
                "name": "container_cpu_usage_ratio",
                "labels": {"service": "order-api"},
                "before": 0.48,
                "after": 0.99,
                "noise": 0.02,
            },
        ],
        books={
            "lunch-peak.md": runbook(
                "Lunch peak: orders slow",
                "At lunch order-api runs hot. Raise the HPA (`maxReplicas` 16 -> 24) and the node pool's max count in the AKS portal; both recover within ten minutes.",
            )
        },
    )


# =================================================================================================
# 6. Service routing: to chase a bug in production an engineer applied profile-api-debug, a
#    one-replica Deployment built from a branch, with the labels copied from profile-api
#    (`app=profile-api`, plus `track=debug`). The profile-api Service selects `app=profile-api`, so
#    the debug pod joined its endpoints: about one request in four lands on it, and it validates
#    tokens against the staging JWKS (SPRING_PROFILES_ACTIVE=staging) and answers 401. The app
#    logs the user out. The incident says "my account".
# =================================================================================================


@scenario("service-selects-debug-pod")
def service_selects_debug_pod() -> dict[str, Any]:
    start = -1380
    ns = "accounts"
    img = "harbor.lumen.example/accounts/profile-api:8.14.2"
    dbg_img = "harbor.lumen.example/accounts-dev/profile-api:fix-address-npe-3c1f9e2"
    pa = app(
        "profile-api",
        image=img,
        port=8080,
        rs="5c7d9b8f4",
        cluster_ip="172.20.88.14",
        pods=[
            ("v9ptn", "1/1", "Running", "0", "3d", 0),
            ("c2hxl", "1/1", "Running", "0", "3d", 1),
            ("q6fkr", "1/1", "Running", "0", "3d", 2),
        ],
    )
    dbg = app(
        "profile-api-debug",
        image=dbg_img,
        port=8080,
        rs="7f6c8d5b9",
        service=False,
        labels="app=profile-api,track=debug",
        pods=[("m4zwq", "1/1", "Running", "0", "24m", 1)],
    )
    web = app(
        "account-web",
        image="harbor.lumen.example/accounts/account-web:22.3.0",
        port=3000,
        rs="9d4f6b7c8",
        cluster_ip="172.20.88.30",
        pods=[
            ("g7slw", "1/1", "Running", "0", "50m", 0),
            ("n5rbk", "1/1", "Running", "0", "50m", 2),
        ],
    )
    k8s = namespace(ns, NODES_IAD, [pa, dbg, web], seed=266)
    ips = h7.ips_of(k8s, ns)
    eps = [ips[pod_name(pa, s)] + ":8080" for s in ("v9ptn", "c2hxl", "q6fkr")] + [
        ips[pod_name(dbg, "m4zwq")] + ":8080"
    ]
    k8s[f"kubectl get endpoints -n {ns}"] = table(
        [
            ["NAME", "ENDPOINTS", "AGE"],
            ["account-web", ",".join(ips[p] + ":3000" for p in pods_of(web)), "300d"],
            ["profile-api", ",".join(eps[:3]) + " + 1 more...", "300d"],
        ]
    )
    k8s[f"kubectl describe services profile-api -n {ns}"] = (
        f"Name:                     profile-api\nNamespace:                {ns}\nLabels:                   app=profile-api\n"
        "Annotations:              meta.helm.sh/release-name: profile-api\nSelector:                 app=profile-api\n"
        "Type:                     ClusterIP\nIP Family Policy:         SingleStack\nIP Families:              IPv4\n"
        "IP:                       172.20.88.14\nIPs:                      172.20.88.14\nPort:                     http  80/TCP\n"
        f"TargetPort:               8080/TCP\nEndpoints:                {','.join(eps)}\n"
        "Session Affinity:         None\nInternal Traffic Policy:  Cluster\nEvents:                   <none>\n"
    )
    cont_dbg = container_text(
        "profile-api",
        dbg_img,
        8080,
        env={
            "SPRING_PROFILES_ACTIVE": "staging",
            "JAVA_TOOL_OPTIONS": "-agentlib:jdwp=transport=dt_socket,server=y,suspend=n,address=*:5005",
        },
    )
    k8s[f"kubectl describe deployments profile-api-debug -n {ns}"] = (
        deployment_describe(
            "profile-api-debug",
            ns,
            replicas="1 desired | 1 updated | 1 total | 1 available | 0 unavailable",
            revision=1,
            containers=cont_dbg,
            conditions=[
                ("Available", "True", "MinimumReplicasAvailable"),
                ("Progressing", "True", "NewReplicaSetAvailable"),
            ],
            old_rs="<none>",
            new_rs=f"profile-api-debug-{dbg['rs']} (1/1 replicas created)",
            events_rows=[
                (
                    "Normal",
                    "ScalingReplicaSet",
                    "24m",
                    "deployment-controller",
                    f"Scaled up replica set profile-api-debug-{dbg['rs']} to 1",
                )
            ],
            labels="app=profile-api,track=debug",
        )
    )
    dname = pod_name(dbg, "m4zwq")
    kid_msg = 'JWT validation failed: no key with kid "prod-2026-11" in JWKS https://id.staging.lumen.example/.well-known/jwks.json'
    k8s[f"kubectl logs {dname} -n {ns} --tail=1000"] = podlog(
        [
            (
                -1440,
                "INFO  o.s.b.StartupInfoLogger : Starting ProfileApiApplication v8.15.0-SNAPSHOT using Java 21.0.5",
            ),
            (
                -1439,
                'INFO  o.s.b.SpringApplication : The following 1 profile is active: "staging"',
            ),
            (
                -1420,
                "INFO  o.s.b.StartupInfoLogger : Started ProfileApiApplication in 18.4 seconds",
            ),
            *[
                (-1380 + i * 55, f"WARN  c.l.a.security.JwtFilter : {kid_msg}")
                for i in range(24)
            ],
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "50m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/account-web",
                "Scaled up replica set account-web-9d4f6b7c8 to 2",
            ),
            (
                "24m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/profile-api-debug",
                f"Scaled up replica set profile-api-debug-{dbg['rs']} to 1",
            ),
            (
                "24m",
                "Normal",
                "Pulled",
                f"Pod/{dname}",
                f'Successfully pulled image "{dbg_img}" in 6.1s',
            ),
        ]
    )
    pap, webp = pods_of(pa), pods_of(web)
    evs = [
        ev(
            "profile-api-debug",
            "warn",
            kid_msg,
            **{"from": start, "to": -3, "every_s": 4},
            pods=[dname],
        ),
        ev(
            "profile-api-debug",
            "info",
            "GET /v1/profile 401 {ms}ms",
            **{"from": start, "to": -2, "every_s": 4},
            pods=[dname],
        ),
        ev(
            "account-web",
            "error",
            "GET /api/profile -> 401 from profile-api; clearing session and redirecting to /login (user {n})",
            **{"from": start + 20, "to": -2, "every_s": 4},
            pods=webp,
        ),
        ev(
            "account-web",
            "info",
            "account-web 22.3.0 ready (new address form)",
            at=-3000,
            pods=webp,
        ),
        ev(
            "id-gateway",
            "warn",
            "rate limit near threshold for client mobile-ios: {n} req/min",
            **{"from": -3600, "to": -60, "every_s": 300},
        ),
        ev(
            "profile-api",
            "error",
            "NullPointerException in AddressMapper.toDto (address.line2 null) for user {n}",
            **{"from": -3600, "to": -60, "every_s": 420},
            pods=pap,
        ),
        ev(
            "profile-api",
            "error",
            "HikariPool-1 - Connection is not available, request timed out after 30000ms",
            **{"from": -9900, "to": -9300, "every_s": 60},
            pods=pap,
        ),
    ]
    return kube_case(
        seed=266,
        start=start,
        inc=incident(
            "users logged out randomly",
            "my account",
            start,
            ["customers get kicked back to the login page"],
        ),
        exp=expected(
            "connect",
            [
                "deployment/profile-api-debug",
                "profile-api-debug",
                f"pod/{dname}",
                dname,
            ],
            kid_msg,
            "An engineer applied profile-api-debug (one replica built from a branch, SPRING_PROFILES_ACTIVE=staging) to chase the address NPE in production, with labels copied from profile-api (app=profile-api, track=debug). The profile-api Service selects app=profile-api, so the debug pod joined its endpoints (4 instead of 3): about a quarter of the requests land on it, it validates tokens against the staging JWKS and answers 401, and account-web logs the user out. profile-api's own pods are healthy; account-web's release, the NPE the debug pod was meant to chase, id-gateway warnings and the old pool timeout are not the cause.",
            [
                "Service profile-api selector app=profile-api: 4 endpoints, one of them the profile-api-debug pod",
                f"profile-api-debug: {kid_msg}",
                "profile-api-debug: SPRING_PROFILES_ACTIVE=staging, image from branch fix-address-npe, created 24 min ago",
            ],
            "Delete profile-api-debug (or give it labels the Service does not select, e.g. app=profile-api-debug); debug in staging or with a separate Service.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "profile-api",
                pap,
                ["GET /v1/profile 200 {ms}ms", "PUT /v1/profile/address 200 {ms}ms"],
                8,
            ),
            bg("account-web", webp, ["GET /account 200 {ms}ms"], 8),
        ],
        evs=evs,
        services=[
            {
                "name": "account-web",
                "rps": 45,
                "errors": {"401": (0.002, 0.24)},
                "latency": (0.06, 0.06),
            },
            {
                "name": "profile-api",
                "rps": 60,
                "errors": {"401": (0.001, 0.25), "500": (0.003, 0.003)},
                "latency": (0.02, 0.02),
            },
        ],
        books={
            "users-logged-out.md": runbook(
                "Users logged out",
                "Mass log-outs follow a signing-key rotation at the identity provider: check id-gateway's key rollover, then restart profile-api so it refetches the JWKS.",
            )
        },
    )


# =================================================================================================
# 7. DNS: CoreDNS runs as the EKS add-on with a configuration value pinned a year ago (2 replicas,
#    cpu limit 100m) and no proportional autoscaler. The data platform moved its Spark jobs into
#    this cluster today: node count went 9 -> 31 and lookups tripled. Both CoreDNS pods sit at their
#    CPU limit, throttled; lookups from every namespace time out intermittently and card-api's calls
#    to its token vault and the acquirer fail. The incident says "card payments".
# =================================================================================================


@scenario("coredns-throttled-cluster-growth")
def coredns_throttled_cluster_growth() -> dict[str, Any]:
    start = -1560
    ns = "cards"
    ca = app(
        "card-api",
        image="781234509876.dkr.ecr.eu-west-1.amazonaws.com/cards/card-api:4.7.3",
        port=8443,
        rs="6b9f5d7c8",
        cluster_ip="172.20.41.9",
        pods=[
            ("x4kcz", "1/1", "Running", "0", "4d", 0),
            ("d8rpm", "1/1", "Running", "0", "4d", 1),
            ("w2fjs", "1/1", "Running", "0", "4d", 2),
        ],
    )
    tv = app(
        "token-vault",
        image="781234509876.dkr.ecr.eu-west-1.amazonaws.com/cards/token-vault:2.2.0",
        port=8200,
        rs="5d8c7b6f9",
        cluster_ip="172.20.41.20",
        pods=[
            ("h9ntq", "1/1", "Running", "0", "19d", 1),
            ("p3lwv", "1/1", "Running", "0", "19d", 2),
        ],
    )
    k8s = namespace(ns, NODES_DUB, [ca, tv], seed=267, extra_namespaces=("spark-jobs",))
    cd = app(
        "coredns",
        image="602401143452.dkr.ecr.eu-west-1.amazonaws.com/eks/coredns:v1.11.3-eksbuild.2",
        port=53,
        rs="7c6d9f8b4",
        cluster_ip="172.20.0.10",
        service_port="53/UDP,53/TCP,9153/TCP",
        labels="eks.amazonaws.com/component=coredns,k8s-app=kube-dns",
        pods=[
            ("9zq2m", "0/1", "Running", "0", "211d", 0),
            ("tl7xw", "1/1", "Running", "0", "211d", 2),
        ],
    )
    ks = namespace("kube-system", NODES_DUB, [cd], seed=267)
    ks["kubectl get services -n kube-system -o wide"] = table(
        [
            ["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE", "SELECTOR"],
            [
                "kube-dns",
                "ClusterIP",
                "172.20.0.10",
                "<none>",
                "53/UDP,53/TCP,9153/TCP",
                "600d",
                "k8s-app=kube-dns",
            ],
        ]
    )
    merge_ns(k8s, ks)
    cont = container_text(
        "coredns",
        cd["image"],
        53,
        limits="cpu:     100m\n  memory:  170Mi",
        requests="cpu:      100m\n  memory:   70Mi",
        liveness="http-get http://:8080/health delay=60s timeout=5s period=10s #success=1 #failure=5",
        readiness="http-get http://:8181/ready delay=0s timeout=1s period=10s #success=1 #failure=3",
    )
    k8s["kubectl describe deployments coredns -n kube-system"] = deployment_describe(
        "coredns",
        "kube-system",
        replicas="2 desired | 2 updated | 2 total | 1 available | 1 unavailable",
        revision=6,
        containers=cont,
        conditions=[
            ("Available", "True", "MinimumReplicasAvailable"),
            ("Progressing", "True", "NewReplicaSetAvailable"),
        ],
        old_rs="<none>",
        new_rs="coredns-7c6d9f8b4 (2/2 replicas created)",
        labels="eks.amazonaws.com/component=coredns,k8s-app=kube-dns",
    )
    health = 'plugin/health: Local health request to "http://:8080/health" took more than 1s: 2.318s'
    for i, sfx in enumerate(("9zq2m", "tl7xw")):
        name = pod_name(cd, sfx)
        describe_pod(
            k8s,
            "kube-system",
            cd,
            sfx,
            NODES_DUB,
            state=running(-18230400),
            started=-18230400,
            ready=(i == 1),
            conditions=None
            if i == 0
            else [
                ("Ready", "True"),
                ("ContainersReady", "True"),
                ("PodScheduled", "True"),
            ],
            events_rows=[
                (
                    "Warning",
                    "Unhealthy",
                    f"{40 + i * 30}s (x{57 - i * 20} over 25m)",
                    "kubelet",
                    'Readiness probe failed: Get "http://10.52.1.77:8181/ready": context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
                )
            ],
        )
        k8s[f"kubectl logs {name} -n kube-system --tail=1000"] = podlog(
            [
                *[(-1500 + j * 47, f"[WARNING] {health}") for j in range(30)],
                *[
                    (
                        -1490 + j * 61,
                        "[ERROR] plugin/errors: 2 sts.eu-west-1.amazonaws.com.spark-jobs.svc.cluster.local. AAAA: context canceled",
                    )
                    for j in range(20)
                ],
            ]
        )
    k8s["kubectl events -n kube-system"] = events(
        [
            (
                "2h",
                "Normal",
                "Scheduled",
                "Pod/aws-node-q8z2x",
                "Successfully assigned kube-system/aws-node-q8z2x to ip-10-52-7-190.eu-west-1.compute.internal",
            ),
            (
                "40s (x57 over 25m)",
                "Warning",
                "Unhealthy",
                f"Pod/{pod_name(cd, '9zq2m')}",
                'Readiness probe failed: Get "http://10.52.1.77:8181/ready": context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
            ),
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "4d",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/card-api",
                "Scaled up replica set card-api-6b9f5d7c8 to 3",
            )
        ]
    )
    cap, tvp = pods_of(ca), pods_of(tv)
    evs = [
        ev(
            "coredns",
            "warn",
            health,
            **{"from": start, "to": -5, "every_s": 25},
            pods=pods_of(cd),
        ),
        ev(
            "cluster-autoscaler",
            "info",
            "Scale-up: setting group eks-spark-r6i-2026120509 size to 22 instead of 0 (max: 40)",
            at=start - 240,
        ),
        ev(
            "spark-operator",
            "info",
            "SparkApplication spark-jobs/daily-settlement-etl submitted with 180 executors",
            at=start - 300,
        ),
        ev(
            "card-api",
            "error",
            "authorization {n} failed: dial tcp: lookup token-vault.cards.svc.cluster.local on 172.20.0.10:53: read udp 10.52.2.61:48213->172.20.0.10:53: i/o timeout",
            **{"from": start + 30, "to": -3, "every_s": 4},
            pods=cap,
        ),
        ev(
            "card-api",
            "error",
            'acquirer call failed: Post "https://api.acquirer-gw.example/v3/authorize": dial tcp: lookup api.acquirer-gw.example on 172.20.0.10:53: read udp 10.52.3.18:39044->172.20.0.10:53: i/o timeout',
            **{"from": start + 60, "to": -5, "every_s": 7},
            pods=cap,
        ),
        ev(
            "token-vault",
            "warn",
            "seal status check slow ({ms}ms); HSM session pool 18/20",
            **{"from": -3600, "to": -40, "every_s": 300},
            pods=tvp,
        ),
        ev(
            "card-api",
            "error",
            "acquirer returned 502 Bad Gateway (their incident INC-4471)",
            **{"from": -10500, "to": -9900, "every_s": 90},
            pods=cap,
        ),
    ]
    return kube_case(
        seed=267,
        start=start,
        inc=incident("card payments declining", "card payments", start),
        exp=expected(
            "dns",
            ["deployment/coredns", "coredns", "kube-dns"],
            "took more than 1s",
            "CoreDNS runs as the EKS add-on with configuration values pinned a year ago: 2 replicas, cpu limit 100m, no proportional autoscaler. The data platform's Spark jobs moved into the cluster today (nodes 9 -> 31, hundreds of executors resolving through the search path): both CoreDNS pods are throttled at their limit, health checks take over a second, one pod fails readiness, and lookups from every namespace time out (read udp …->172.20.0.10:53: i/o timeout). card-api cannot resolve token-vault or the acquirer and declines payments. card-api's errors, token-vault's HSM warnings, the Spark jobs (the trigger: load the DNS should carry) and the old acquirer 502s are not the cause.",
            [
                "card-api: lookup token-vault.cards.svc.cluster.local on 172.20.0.10:53: i/o timeout",
                "coredns: plugin/health: Local health request … took more than 1s; readiness failing on one pod",
                "coredns deployment: 2 replicas, cpu limit 100m; container_cpu_cfs_throttled ratio 0.8",
            ],
            "Scale CoreDNS (replicas proportional to nodes, e.g. the cluster-proportional-autoscaler) and remove its 100m CPU limit in the add-on's configuration values; consider NodeLocal DNSCache.",
        ),
        k8s=k8s,
        bgs=[
            bg("card-api", cap, ["POST /v1/authorizations 201 {ms}ms"], 8),
            bg(
                "token-vault",
                tvp,
                ["POST /v1/tokenize 200 {ms}ms", "POST /v1/detokenize 200 {ms}ms"],
                10,
            ),
        ],
        evs=evs,
        services=[
            {
                "name": "card-api",
                "rps": 70,
                "errors": {"502": (0.001, 0.14)},
                "latency": (0.18, 2.4),
            },
            {
                "name": "token-vault",
                "rps": 60,
                "rps_after": 48,
                "latency": (0.01, 0.01),
            },
        ],
        gauges=[
            {
                "name": "container_cpu_cfs_throttled_ratio",
                "labels": {"service": "coredns", "namespace": "kube-system"},
                "before": 0.02,
                "after": 0.81,
                "noise": 0.05,
            },
            {
                "name": "coredns_dns_requests_rate",
                "labels": {"service": "coredns"},
                "before": 2100,
                "after": 7400,
                "noise": 0.05,
            },
            {
                "name": "kube_node_count",
                "labels": {"cluster": "prod-euw1"},
                "before": 9,
                "after": 31,
                "noise": 0.0,
                "change_at": start - 240,
            },
        ],
        books={
            "card-declines.md": runbook(
                "Card declines spike",
                "A decline spike is almost always the acquirer: check its status page, and if INC is open switch ACQUIRER_ROUTE to the secondary acquirer in card-api's ConfigMap.",
            )
        },
    )


# =================================================================================================
# 8. TLS: Linkerd's identity issuer certificate (Secret linkerd-identity-issuer, made by hand with
#    step-cli a year ago, not by cert-manager) expired at 12:51. linkerd-identity, restarted by a node
#    rotation, now exits at start; proxies already running keep their 24 h certificates, but every
#    new pod's proxy cannot obtain an identity and never becomes ready. The morning scale-out of
#    booking-api adds pods that never serve; the old ones are overloaded. The incident says "booking".
# =================================================================================================


@scenario("linkerd-issuer-certificate-expired")
def linkerd_issuer_certificate_expired() -> dict[str, Any]:
    start = -1320
    ns = "booking"
    ba = app(
        "booking-api",
        image="registry.tidewater.example/booking/booking-api:3.31.0",
        port=8080,
        rs="8c5f7d9b6",
        cluster_ip="10.43.18.11",
        desired=6,
        pods=[
            ("f7kqp", "2/2", "Running", "0", "9h", 0),
            ("m3wzd", "2/2", "Running", "0", "9h", 1),
            ("a5rvt", "1/2", "Running", "0", "21m", 2),
            ("j9lcx", "1/2", "Running", "0", "21m", 0),
            ("u2hnb", "1/2", "Running", "0", "21m", 1),
            ("y6gtm", "1/2", "Running", "0", "21m", 2),
        ],
    )
    bw = app(
        "booking-web",
        image="registry.tidewater.example/booking/booking-web:18.2.1",
        port=3000,
        rs="6d9b8c7f5",
        cluster_ip="10.43.18.3",
        pods=[
            ("k4sxm", "2/2", "Running", "0", "48m", 0),
            ("q8vbn", "2/2", "Running", "0", "48m", 2),
        ],
    )
    k8s = namespace(ns, NODES_FRA, [ba, bw], seed=268, extra_namespaces=("linkerd",))
    li = app(
        "linkerd-identity",
        image="cr.l5d.io/linkerd/controller:edge-24.11.8",
        port=8080,
        rs="5f8c9d6b7",
        cluster_ip="10.43.0.41",
        labels="linkerd.io/control-plane-component=identity,linkerd.io/control-plane-ns=linkerd",
        pods=[("r2xnv", "1/2", "CrashLoopBackOff", "9 (2m ago)", "24m", 1)],
    )
    ld = app(
        "linkerd-destination",
        image="cr.l5d.io/linkerd/controller:edge-24.11.8",
        port=8086,
        rs="7b6d5c9f8",
        cluster_ip="10.43.0.42",
        labels="linkerd.io/control-plane-component=destination,linkerd.io/control-plane-ns=linkerd",
        pods=[("s9mfq", "4/4", "Running", "0", "17d", 0)],
    )
    lk = namespace(
        "linkerd",
        NODES_FRA,
        [li, ld],
        seed=268,
        secrets=[("linkerd-identity-issuer", "kubernetes.io/tls", "3", "366d")],
    )
    merge_ns(k8s, lk)
    expired = f"x509: certificate has expired or is not yet valid: current time {base.iso(-199)} is after 2026-12-05T12:51:00Z"
    fatal = f'time="{base.iso(-199)}" level=fatal msg="Failed to initialize identity service: failed to read CA from disk: {expired}"'
    iname = pod_name(li, "r2xnv")
    describe_pod(
        k8s,
        "linkerd",
        li,
        "r2xnv",
        NODES_FRA,
        state=crashloop(1, "Error", -200, -199),
        started=-1430,
        restarts=9,
        events_rows=[
            (
                "Warning",
                "BackOff",
                "2m (x98 over 23m)",
                "kubelet",
                f"Back-off restarting failed container identity in pod {iname}_linkerd",
            ),
        ],
    )
    k8s[f"kubectl logs {iname} -n linkerd --previous --tail=1000"] = podlog(
        [
            (
                -200,
                f'time="{base.iso(-200)}" level=info msg="running version edge-24.11.8"',
            ),
            (
                -200,
                f'time="{base.iso(-200)}" level=info msg="starting admin server on :9990"',
            ),
            (-199, fatal),
        ]
    )
    k8s["kubectl describe secrets linkerd-identity-issuer -n linkerd"] = (
        "Name:         linkerd-identity-issuer\nNamespace:    linkerd\nLabels:       <none>\n"
        "Annotations:  linkerd.io/identity-issuer-expiry: 2026-12-05T12:51:00Z\n\nType:  kubernetes.io/tls\n\nData\n====\n"
        "ca.crt:   579 bytes\ntls.crt:  623 bytes\ntls.key:  227 bytes\n"
    )
    proxy_warn = (
        "WARN ThreadId(01) identity:identity{server.addr=linkerd-identity-headless.linkerd.svc.cluster.local:8080}:"
        "controller{addr=linkerd-identity-headless.linkerd.svc.cluster.local:8080}: linkerd_app_core::control: "
        'Failed to resolve control-plane component error=no record found for Query { name: Name("linkerd-identity-headless.linkerd.svc.cluster.local."), query_type: SRV, query_class: IN }'
    )
    for sfx in ("a5rvt", "j9lcx"):
        name = pod_name(ba, sfx)
        describe_pod(
            k8s,
            ns,
            ba,
            sfx,
            NODES_FRA,
            state=running(-1260),
            started=-1260,
            events_rows=[
                (
                    "Warning",
                    "Unhealthy",
                    "30s (x80 over 20m)",
                    "kubelet",
                    "Readiness probe failed: HTTP probe failed with statuscode: 503",
                )
            ],
        )
        k8s[f"kubectl logs {name} -n {ns} -c linkerd-proxy --tail=1000"] = podlog(
            [
                (
                    -1262,
                    "INFO ThreadId(01) linkerd2_proxy: release 2.263.0 (…) by linkerd on 2024-11-27T14:00:00Z",
                ),
                (
                    -1262,
                    "INFO ThreadId(01) linkerd2_proxy: Local identity is booking-api.booking.serviceaccount.identity.linkerd.cluster.local",
                ),
                *[(-1250 + i * 60, proxy_warn) for i in range(20)],
                (
                    -1200,
                    "WARN ThreadId(01) linkerd_app: Waiting for identity to be initialized...",
                ),
            ]
        )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "48m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/booking-web",
                "Scaled up replica set booking-web-6d9b8c7f5 to 2",
            ),
            (
                "21m",
                "Normal",
                "SuccessfulRescale",
                "HorizontalPodAutoscaler/booking-api",
                "New size: 6; reason: cpu resource utilization (percentage of request) above target",
            ),
            (
                "30s (x80 over 20m)",
                "Warning",
                "Unhealthy",
                f"Pod/{pod_name(ba, 'a5rvt')}",
                "Readiness probe failed: HTTP probe failed with statuscode: 503",
            ),
        ]
    )
    k8s["kubectl events -n linkerd"] = events(
        [
            (
                "25m",
                "Normal",
                "Evicted",
                "Pod/linkerd-identity-5f8c9d6b7-wq4jz",
                "Evicted pod: Drifted (karpenter disruption of ip-10-70-3-9.eu-central-1.compute.internal)",
            ),
            (
                "2m (x98 over 23m)",
                "Warning",
                "BackOff",
                f"Pod/{iname}",
                "Back-off restarting failed container identity",
            ),
        ]
    )
    old = [pod_name(ba, s) for s in ("f7kqp", "m3wzd")]
    new = [pod_name(ba, s) for s in ("a5rvt", "j9lcx", "u2hnb", "y6gtm")]
    bwp = pods_of(bw)
    evs = [
        ev(
            "linkerd-identity",
            "error",
            'level=fatal msg="Failed to initialize identity service: failed to read CA from disk: x509: certificate has expired or is not yet valid"',
            **{"from": start - 60, "to": -100, "every_s": 150},
            pods=[iname],
        ),
        ev(
            "linkerd-proxy",
            "warn",
            proxy_warn,
            **{"from": start, "to": -5, "every_s": 30},
            pods=new,
        ),
        ev(
            "booking-api",
            "warn",
            "thread pool saturated: {n} requests queued, p99 {ms}00ms",
            **{"from": start + 60, "to": -5, "every_s": 15},
            pods=old,
        ),
        ev(
            "booking-web",
            "error",
            "POST /api/bookings 503 Service Unavailable from booking-api (l5d-proxy-error: service in fail-fast)",
            **{"from": start + 90, "to": -3, "every_s": 3},
            pods=bwp,
        ),
        ev(
            "booking-web",
            "info",
            "booking-web 18.2.1 started (seat map redesign)",
            at=-2880,
            pods=bwp,
        ),
        ev(
            "payment-link",
            "warn",
            "Adyen HPP session creation took {ms}00ms",
            **{"from": -3600, "to": -30, "every_s": 360},
        ),
        ev(
            "booking-api",
            "error",
            "OptimisticLockException on Booking {n}: row was updated by another transaction",
            **{"from": -9800, "to": -9200, "every_s": 120},
            pods=old,
        ),
    ]
    return kube_case(
        seed=268,
        start=start,
        inc=incident("booking errors", "booking", start),
        exp=expected(
            "tls",
            [
                "secret/linkerd-identity-issuer",
                "linkerd-identity-issuer",
                "deployment/linkerd-identity",
                "linkerd-identity",
            ],
            "x509: certificate has expired or is not yet valid",
            "Linkerd's identity issuer certificate (Secret linkerd-identity-issuer, created by hand a year ago, not rotated by cert-manager) expired at 12:51. linkerd-identity, evicted by a node drift rotation, exits at start (failed to read CA from disk: x509: certificate has expired or is not yet valid) and has no ready endpoint. Proxies running before keep their 24 h certificates, but each new pod's proxy waits for an identity and stays unready: the HPA's four new booking-api pods never serve, the two old ones saturate, booking-web gets 503s in fail-fast. booking-web's release and errors, the HPA scale-out and the node rotation (triggers), Adyen latency and the old optimistic-lock errors are not the cause.",
            [
                f"linkerd-identity CrashLoopBackOff: {fatal}",
                "linkerd-identity-issuer expiry 2026-12-05T12:51:00Z",
                "new booking-api pods 1/2: linkerd-proxy waiting for identity, readiness 503",
            ],
            "Issue a new issuer certificate from the trust anchor (step certificate create … --ca ca.crt) into linkerd-identity-issuer, restart linkerd-identity, and move the issuer to cert-manager.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "booking-api",
                old,
                ["POST /bookings 201 {ms}ms", "GET /availability 200 {ms}ms"],
                8,
            ),
            bg("booking-web", bwp, ["GET /book 200 {ms}ms"], 8),
        ],
        evs=evs,
        services=[
            {
                "name": "booking-web",
                "rps": 50,
                "errors": {"503": (0.001, 0.2)},
                "latency": (0.1, 1.6),
            },
            {
                "name": "booking-api",
                "rps": 45,
                "errors": {"503": (0.001, 0.18)},
                "latency": (0.05, 1.3),
            },
        ],
        books={
            "booking-503.md": runbook(
                "booking 503s",
                "503s from booking after a release: roll back booking-api (`kubectl rollout undo deployment/booking-api -n booking`) and check the seat map cache.",
            )
        },
    )


# =================================================================================================
# 9. Third-party rate limiting: a CRM migration's address-backfill job geocodes 1.9 million
#    customer addresses with the same Google Maps key as the store finder. The key's daily quota is
#    gone by mid-morning; the Geocoding API answers HTTP 200 with `"status": "OVER_QUERY_LIMIT"`,
#    so nothing is counted as an HTTP error anywhere. The incident says "store finder".
# =================================================================================================


@scenario("geocoding-quota-used-by-backfill")
def geocoding_quota_used_by_backfill() -> dict[str, Any]:
    start = -1740
    geo = ["geo-service-7d9c5b8f6-2kqwd", "geo-service-7d9c5b8f6-v8rtn"]
    sl = ["store-locator-5b6f9c7d8-hx4mz", "store-locator-5b6f9c7d8-p2wqs"]
    bf = ["address-backfill-29160540-8vkzn"]
    quota = "OVER_QUERY_LIMIT"
    evs = [
        ev(
            "address-backfill",
            "info",
            "job crm-migration/address-backfill started: 1,912,406 addresses to geocode (GOOGLE_MAPS_KEY from secret maps-api-key)",
            at=-14400,
            pods=bf,
        ),
        ev(
            "address-backfill",
            "info",
            "progress {n}/1912406 geocoded ({ms} req/s)",
            **{"from": -14300, "to": start, "every_s": 300},
            pods=bf,
        ),
        ev(
            "address-backfill",
            "warn",
            "geocode skipped for customer {n}: OVER_QUERY_LIMIT, will retry in next batch",
            **{"from": start, "to": -10, "every_s": 20},
            pods=bf,
        ),
        ev(
            "geo-service",
            "warn",
            f'geocode "{{n}} postcode" failed: status={quota} error_message="You have exceeded your daily request quota for this API." (maps.googleapis.com/maps/api/geocode/json)',
            **{"from": start, "to": -3, "every_s": 3},
            pods=geo,
        ),
        ev(
            "store-locator",
            "info",
            "GET /stores/near?postcode=... 200 0 results ({ms}ms)",
            **{"from": start, "to": -2, "every_s": 3},
            pods=sl,
        ),
        ev(
            "store-locator",
            "error",
            "GET /stores/near?postcode=... 504 upstream geo-service timeout",
            **{"from": -10200, "to": -9600, "every_s": 60},
            pods=sl,
        ),
        ev(
            "store-locator",
            "info",
            "store-locator 7.2.0 started (opening hours for bank holidays)",
            at=-2700,
            pods=sl,
        ),
        ev(
            "web-vitals",
            "warn",
            "LCP p75 {ms}00ms on /stores (threshold 2500ms)",
            **{"from": -3600, "to": -30, "every_s": 240},
        ),
        ev(
            "stock-feed",
            "error",
            "SFTP upload to supplier 3311 failed: Permission denied (publickey)",
            **{"from": -3600, "to": -60, "every_s": 600},
        ),
    ]
    return simple(
        269,
        start,
        incident(
            "store finder finds no stores",
            "store finder",
            start,
            ["postcode search returns nothing"],
        ),
        expected(
            "http",
            [
                "address-backfill",
                "maps.googleapis.com",
                "geocoding api",
                "maps-api-key",
            ],
            quota,
            "The CRM migration's address-backfill job has been geocoding 1.9 million customer addresses since 09:00 with the same Google Maps API key (secret maps-api-key) as the store finder. The key's daily Geocoding quota ran out: the API answers HTTP 200 with status OVER_QUERY_LIMIT (You have exceeded your daily request quota for this API.), geo-service cannot turn a postcode into coordinates and store-locator returns 0 results with 200. store-locator's release, web-vitals warnings, the stock-feed SFTP noise and the old 504s are not the cause.",
            [
                'geo-service: status=OVER_QUERY_LIMIT error_message="You have exceeded your daily request quota for this API."',
                "address-backfill: 1.9 M addresses geocoded with GOOGLE_MAPS_KEY since 09:00",
                "geocoding requests per second jumped with the backfill, store-locator results 0",
            ],
            "Stop or throttle address-backfill and give it its own key and quota (or a bulk geocoding source); ask Google for a quota increase for today.",
        ),
        [
            bg(
                "store-locator",
                sl,
                [
                    "GET /stores/near?postcode=... 200 {ms}ms",
                    "GET /stores/{n} 200 {ms}ms",
                ],
                8,
            ),
            bg(
                "geo-service",
                geo,
                ["geocode cache hit for postcode", "GET /geocode 200 {ms}ms"],
                9,
            ),
        ],
        evs,
        [
            {"name": "store-locator", "rps": 18, "latency": (0.09, 0.05)},
            {"name": "geo-service", "rps": 16, "latency": (0.08, 0.03)},
        ],
        [
            {
                "name": "store_locator_zero_result_ratio",
                "labels": {"service": "store-locator"},
                "before": 0.03,
                "after": 0.97,
                "noise": 0.02,
            },
            {
                "name": "maps_geocode_requests_rate",
                "labels": {"service": "address-backfill"},
                "before": 95,
                "after": 95,
                "noise": 0.08,
                "change_at": -14400,
            },
        ],
        {
            "store-finder-empty.md": runbook(
                "Store finder shows no stores",
                "An empty store finder means the stores index in Elasticsearch is empty after a failed nightly import: re-run the store-import job and check the index alias.",
            )
        },
    )


# =================================================================================================
# 10. Network delay: a disaster-recovery drill yesterday pointed catalog-api's reader pool
#     (DB_READER_HOST in its Consul KV) at the replica in us-east-1; the clean-up step restored the
#     writer but not the reader. catalog-api runs in eu-west-1 and makes ~40 sequential reads per
#     product page: each round trip is now ~75 ms instead of ~1 ms. No error, pages take seconds.
#     The incident says "product pages".
# =================================================================================================


@scenario("reader-pool-left-cross-region")
def reader_pool_left_cross_region() -> dict[str, Any]:
    start = -2400
    cat = [
        "catalog-api-6c9f8d7b5-4xlqm",
        "catalog-api-6c9f8d7b5-k7wzr",
        "catalog-api-6c9f8d7b5-t2nfd",
    ]
    fe = ["shop-frontend-8d7c6b5f9-9mwpq", "shop-frontend-8d7c6b5f9-z3hkc"]
    far = "catalog-replica-use1.cluster-ro-c9x2kq7t1m.us-east-1.rds.amazonaws.com"
    evs = [
        ev(
            "consul",
            "info",
            f"KV put config/catalog-api/DB_READER_HOST = {far} (by dr-drill-runbook, drill DR-2026-12)",
            at=-88000,
        ),
        ev(
            "consul",
            "info",
            "KV put config/catalog-api/DB_WRITER_HOST = catalog-primary.cluster-c4v8xk2m9p.eu-west-1.rds.amazonaws.com (by dr-drill-cleanup)",
            at=-80000,
        ),
        ev(
            "catalog-api",
            "info",
            f"HikariPool-reader - Added connection org.postgresql.jdbc.PgConnection@{{n}} to {far}:5432",
            **{"from": start - 60, "to": start + 60, "every_s": 20},
            pods=cat,
        ),
        ev(
            "catalog-api",
            "info",
            f"config reloaded from consul: DB_READER_HOST={far}; reader pool restarted",
            at=start - 90,
            pods=cat,
        ),
        ev(
            "catalog-api",
            "warn",
            "slow request GET /products/{n} took {n}ms (db: 41 queries, {n}ms)",
            **{"from": start, "to": -4, "every_s": 5},
            pods=cat,
        ),
        ev(
            "shop-frontend",
            "error",
            "GET /p/{n} 504 upstream catalog-api timed out after 5000ms",
            **{"from": start + 120, "to": -3, "every_s": 6},
            pods=fe,
        ),
        ev(
            "cdn",
            "warn",
            "cache hit ratio {n}% below 85% on /p/* (origin shield fra)",
            **{"from": start, "to": -20, "every_s": 240},
        ),
        ev(
            "recommendations",
            "info",
            "recommendations 4.0.2 deployed: new similar-items model",
            at=-3300,
        ),
        ev(
            "rds-events",
            "info",
            "catalog-primary: minor version upgrade to 16.4 completed in maintenance window",
            at=-30000,
        ),
        ev(
            "catalog-api",
            "error",
            "PSQLException: canceling statement due to conflict with recovery",
            **{"from": -10000, "to": -9400, "every_s": 100},
            pods=cat,
        ),
    ]
    return simple(
        270,
        start,
        incident("product pages very slow", "product pages", start),
        expected(
            "connect",
            ["DB_READER_HOST", "catalog-api", far, "catalog-replica-use1"],
            far,
            "Yesterday's disaster-recovery drill pointed catalog-api's reader pool (Consul KV config/catalog-api/DB_READER_HOST) at the us-east-1 replica; the clean-up put the writer back but not the reader. When catalog-api reloaded its config this morning the reader pool reconnected across the Atlantic: each of the ~40 sequential reads per product page now costs a ~75 ms round trip instead of ~1 ms, pages take 3-5 s and shop-frontend times out. No query is slow on the database; the CDN hit-ratio warnings, the recommendations release, the RDS minor upgrade and the old recovery-conflict errors are not the cause.",
            [
                f"catalog-api reader pool connected to {far}",
                "consul: DB_READER_HOST set by the DR drill, only the writer restored by the clean-up",
                "db client round-trip time 1 ms -> 76 ms at the reload; query count per page unchanged",
            ],
            "Set DB_READER_HOST back to the eu-west-1 reader endpoint and add the reader to the drill's clean-up checklist.",
        ),
        [
            bg(
                "catalog-api",
                cat,
                ["GET /products/{n} 200 {ms}ms", "GET /categories/{n} 200 {ms}ms"],
                8,
            ),
            bg("shop-frontend", fe, ["GET /p/{n} 200 {ms}ms"], 8),
        ],
        evs,
        [
            {
                "name": "shop-frontend",
                "rps": 80,
                "errors": {"504": (0.001, 0.11)},
                "latency": (0.25, 3.8),
            },
            {"name": "catalog-api", "rps": 85, "latency": (0.06, 3.2)},
        ],
        [
            {
                "name": "db_client_roundtrip_seconds",
                "labels": {"service": "catalog-api", "pool": "reader"},
                "before": 0.0011,
                "after": 0.076,
                "noise": 0.06,
            },
            {
                "name": "db_queries_per_request",
                "labels": {"service": "catalog-api"},
                "before": 41,
                "after": 41,
                "noise": 0.04,
            },
            {
                "name": "rds_cpu_utilization_ratio",
                "labels": {"db": "catalog-primary"},
                "before": 0.31,
                "after": 0.12,
                "noise": 0.05,
            },
        ],
        {
            "catalog-slow.md": runbook(
                "catalog-api slow",
                "Slow catalog pages are a CPU problem in catalog-api: scale it (`replicas: 6`) and check the JVM's GC pauses in the dashboard.",
            )
        },
    )


# =================================================================================================
# 11. TLS, protocol version: customs-gateway 3.0.0 moved from a Debian buster to a bookworm base
#     image (OpenSSL 3, system MinProtocol TLSv1.2). The customs authority's EDI endpoint still
#     speaks TLS 1.0 only; every handshake fails on our side before a request is sent. Export
#     declarations queue up. The incident says "exports".
# =================================================================================================


@scenario("tls-floor-raised-legacy-partner")
def tls_floor_raised_legacy_partner() -> dict[str, Any]:
    start = -2160
    cg = ["customs-gateway-5f7b9d6c8-mq2xk", "customs-gateway-5f7b9d6c8-w8ztn"]
    sh = ["shipment-service-84c7d9f6b-2jplr", "shipment-service-84c7d9f6b-r6kcm"]
    host = "edi.douane-portail.example"
    err = f"ssl.SSLError: [SSL: UNSUPPORTED_PROTOCOL] unsupported protocol (_ssl.c:1000) while connecting to {host}:443"
    evs = [
        ev(
            "customs-gateway",
            "info",
            "customs-gateway 3.0.0 starting (python 3.12.7, OpenSSL 3.0.15 3 Sep 2024, base debian:bookworm-slim)",
            at=start - 120,
            pods=cg,
        ),
        ev(
            "customs-gateway",
            "error",
            f"submit declaration EXP-{{n}} failed: {err}",
            **{"from": start, "to": -4, "every_s": 12},
            pods=cg,
        ),
        ev(
            "customs-gateway",
            "warn",
            "declaration queue depth {n} (oldest {ms} min)",
            **{"from": start + 300, "to": -10, "every_s": 60},
            pods=cg,
        ),
        ev(
            "shipment-service",
            "error",
            "shipment {n} held: export declaration not acknowledged after 30 min (customs-gateway)",
            **{"from": start + 1800, "to": -5, "every_s": 8},
            pods=sh,
        ),
        ev(
            "shipment-service",
            "error",
            "carrier booking {n} rejected: missing MRN for export shipment",
            **{"from": start + 1850, "to": -6, "every_s": 15},
            pods=sh,
        ),
        ev(
            "label-service",
            "warn",
            "DPD label API slow: {ms}00ms",
            **{"from": -3600, "to": -30, "every_s": 300},
        ),
        ev(
            "customs-gateway",
            "error",
            f"EDI endpoint {host} answered 503 Service Unavailable (planned maintenance 06:00-07:00)",
            **{"from": -10400, "to": -9400, "every_s": 120},
            pods=cg,
        ),
        ev(
            "customs-gateway",
            "info",
            f"certificate for {host} expires in 12 days (CN={host}, issuer Certigna Services CA)",
            at=-5400,
            pods=cg,
        ),
    ]
    return simple(
        271,
        start,
        incident(
            "export shipments held",
            "exports",
            start,
            ["customs declarations are not sent"],
        ),
        expected(
            "tls",
            ["customs-gateway", host, "customs-gateway 3.0.0", "debian:bookworm-slim"],
            "UNSUPPORTED_PROTOCOL",
            f"customs-gateway 3.0.0 moved to a debian:bookworm-slim base image (OpenSSL 3, system-wide MinProtocol TLSv1.2). The customs authority's EDI endpoint {host} still only speaks TLS 1.0, so every handshake fails on our side ([SSL: UNSUPPORTED_PROTOCOL] unsupported protocol) and no declaration is submitted; shipments without an MRN are held and carrier bookings rejected. shipment-service's errors are the loud victim; the certificate that expires in 12 days, DPD latency and the old 503 maintenance are not the cause.",
            [
                f"customs-gateway: {err}",
                "customs-gateway 3.0.0 started on OpenSSL 3.0.15 / bookworm just before the first failure",
                "shipment-service: export declaration not acknowledged, missing MRN",
            ],
            "Roll customs-gateway back to 2.x, or allow TLS 1.0 for this one connection (an SSLContext with minimum_version TLSv1 and SECLEVEL=0) while the authority upgrades.",
        ),
        [
            bg(
                "customs-gateway",
                cg,
                [
                    "GET /healthz 200 1ms",
                    "declaration EXP-{n} validated against schema in {ms}ms",
                ],
                10,
            ),
            bg("shipment-service", sh, ["POST /shipments 201 {ms}ms"], 8),
        ],
        evs,
        [
            {
                "name": "shipment-service",
                "rps": 6,
                "errors": {"409": (0.002, 0.3)},
                "latency": (0.12, 0.14),
            },
            {
                "name": "customs-gateway",
                "rps": 1.5,
                "errors": {"502": (0.0, 1.0)},
                "latency": (0.9, 0.02),
            },
        ],
        [
            {
                "name": "customs_declaration_queue_depth",
                "labels": {"service": "customs-gateway"},
                "before": 2,
                "after": 310,
                "noise": 0.1,
            },
        ],
        {
            "customs-edi-down.md": runbook(
                "Customs EDI unavailable",
                "When declarations fail the customs portal is usually in maintenance: check the authority's status page and wait; declarations are retried automatically for 24 h.",
            )
        },
    )


# =================================================================================================
# 12. Config change: ahead of the winter sale someone added a CloudFront cache behaviour for
#     `/api/*` (cache policy api-cache-60s, TTL 60 s) to take load off the origin. The policy's cache
#     key has neither the Cookie nor the Authorization header: the first user's `/api/me` answer is
#     served to everyone on that edge for a minute. No error anywhere; account-api's traffic drops.
#     The incident says "customer account".
# =================================================================================================


@scenario("cdn-caches-personalised-api")
def cdn_caches_personalised_api() -> dict[str, Any]:
    start = -1260
    acc = ["account-api-9b7c6d5f8-6lrhw", "account-api-9b7c6d5f8-q3vxm"]
    hit = "Hit from cloudfront"
    evs = [
        ev(
            "terraform",
            "info",
            'apply cdn-prod: aws_cloudfront_distribution.shop (E2K7Q4XN1VB3DL) ordered_cache_behavior "/api/*" added with cache_policy api-cache-60s (default_ttl 60, headers none, cookies none) - PR cdn#212 "winter sale: shield origin"',
            at=start - 180,
        ),
        ev(
            "cloudfront",
            "info",
            f"GET /api/me 200 x-cache: {hit} age={{ms}} pop=FRA56-P4 dist=E2K7Q4XN1VB3DL",
            **{"from": start, "to": -2, "every_s": 3},
        ),
        ev(
            "cloudfront",
            "info",
            f"GET /api/orders 200 x-cache: {hit} age={{ms}} pop=AMS58-P2 dist=E2K7Q4XN1VB3DL",
            **{"from": start, "to": -2, "every_s": 5},
        ),
        ev(
            "support-desk",
            "warn",
            "ticket {n}: customer reports seeing another person's name and address on My Account",
            **{"from": start + 400, "to": -30, "every_s": 90},
        ),
        ev(
            "login-service",
            "warn",
            "credential stuffing suspected: {n} failed logins from ASN 14061 in 5 min; WAF rate rule engaged",
            **{"from": -3000, "to": -10, "every_s": 60},
        ),
        ev(
            "login-service",
            "error",
            "POST /login 401 invalid credentials for user {n}",
            **{"from": -3000, "to": -5, "every_s": 4},
        ),
        ev(
            "account-api",
            "info",
            "account-api 11.3.0 started (saved cards page)",
            at=-3900,
            pods=acc,
        ),
        ev(
            "account-api",
            "error",
            "Redis session lookup failed: READONLY You can't write against a read only replica",
            **{"from": -10100, "to": -9700, "every_s": 60},
            pods=acc,
        ),
    ]
    return simple(
        272,
        start,
        incident("customers see someone else's account", "customer account", start),
        expected(
            "http",
            ["cloudfront", "E2K7Q4XN1VB3DL", "api-cache-60s", "/api/*"],
            hit,
            "Ahead of the winter sale a Terraform change (PR cdn#212) added a CloudFront cache behaviour for /api/* on distribution E2K7Q4XN1VB3DL with cache policy api-cache-60s (TTL 60 s, no headers or cookies in the cache key). Personalised answers such as /api/me are cached at the edge and served to every user of that edge for a minute (x-cache: Hit from cloudfront): customers see another person's name and address. Nothing errors; account-api's traffic drops because the edge answers. The credential-stuffing 401s are loud and unrelated; account-api's release and the old Redis READONLY error are not the cause.",
            [
                "cloudfront: GET /api/me 200 x-cache: Hit from cloudfront",
                "terraform: /api/* cache behaviour with api-cache-60s (no cookies, no headers) 24 min before",
                "account-api requests per second fell from ~300 to ~20 at the change",
            ],
            "Remove the /api/* behaviour (or use CachingDisabled for /api/*), invalidate /api/*, and review whether personal data was exposed.",
        ),
        [
            bg(
                "account-api",
                acc,
                ["GET /api/me 200 {ms}ms", "GET /api/orders 200 {ms}ms"],
                8,
                until=start,
            ),
            bg("account-api", acc, ["GET /api/me 200 {ms}ms"], 40, **{"from": start}),
            bg(
                "cloudfront",
                ["edge"],
                ["GET /static/app.{n}.js 200 x-cache: Hit from cloudfront"],
                10,
            ),
        ],
        evs,
        [
            {
                "name": "account-api",
                "rps": 300,
                "rps_after": 20,
                "latency": (0.03, 0.03),
            },
            {
                "name": "login-service",
                "rps": 40,
                "errors": {"401": (0.02, 0.35)},
                "latency": (0.1, 0.12),
                "change_at": -3000,
            },
        ],
        [
            {
                "name": "cloudfront_cache_hit_ratio",
                "labels": {"distribution": "E2K7Q4XN1VB3DL", "path": "/api/*"},
                "before": 0.0,
                "after": 0.93,
                "noise": 0.02,
            },
        ],
        {
            "account-mixup.md": runbook(
                "Customers see another account",
                "A session mix-up comes from the Redis session store after a failover: flush the sessions (`redis-cli -n 2 FLUSHDB`), which logs everyone out, and restart account-api.",
            )
        },
    )


# =================================================================================================
# 13. A quiet root cause: the audit.legacy queue on the shared RabbitMQ cluster lost its consumer
#     three weeks ago (the audit service was decommissioned; the queue, durable and without TTL,
#     stayed bound to the orders exchange). Its messages reached 38 GB on mq-2; the disk free limit
#     alarm blocked every publishing connection of the cluster. Publishers hang; order confirmations
#     stop. The incident says "orders".
# =================================================================================================


@scenario("rabbitmq-disk-alarm-orphan-queue")
def rabbitmq_disk_alarm_orphan_queue() -> dict[str, Any]:
    start = -1200
    osv = [
        "order-service-6f8d9c7b5-2mkwl",
        "order-service-6f8d9c7b5-s9xvq",
        "order-service-6f8d9c7b5-z4pjd",
    ]
    ck = ["checkout-web-7c5b8f9d6-h3qtn", "checkout-web-7c5b8f9d6-n8lrc"]
    alarm = "disk resource limit alarm set on node 'rabbit@mq-2'"
    evs = [
        ev(
            "rabbitmq",
            "warn",
            "Free disk space is insufficient. Free bytes: 1987343360. Limit: 2000000000",
            at=start - 5,
            labels={"node": "rabbit@mq-2"},
        ),
        ev("rabbitmq", "warn", alarm, at=start, labels={"node": "rabbit@mq-2"}),
        ev(
            "rabbitmq",
            "warn",
            "*** Publishers will be blocked until this alarm clears ***",
            at=start + 1,
            labels={"node": "rabbit@mq-2"},
        ),
        ev(
            "rabbitmq",
            "info",
            "queue 'audit.legacy' in vhost '/': messages 41210377, consumers 0, message bytes 38.2 GB",
            **{"from": -7200, "to": -60, "every_s": 900},
            labels={"node": "rabbit@mq-2"},
        ),
        ev(
            "order-service",
            "warn",
            "RabbitMQ connection blocked by broker: low on disk; publish of order.confirmed for order {n} waiting",
            **{"from": start + 5, "to": -5, "every_s": 10},
            pods=osv,
        ),
        ev(
            "order-service",
            "error",
            "POST /orders/{n}/confirm 504: publish to exchange 'orders' not confirmed within 10000ms",
            **{"from": start + 30, "to": -3, "every_s": 4},
            pods=osv,
        ),
        ev(
            "checkout-web",
            "error",
            "order confirmation polling timed out for order {n} after 60s",
            **{"from": start + 60, "to": -2, "every_s": 3},
            pods=ck,
        ),
        ev(
            "payments-api",
            "info",
            "payments-api 9.0.1 deployed (3DS2 exemptions)",
            at=-2400,
        ),
        ev(
            "warehouse-sync",
            "warn",
            "WMS batch {n} took {ms}s, above the 30s target",
            **{"from": -3600, "to": -20, "every_s": 300},
        ),
        ev(
            "order-service",
            "error",
            "AMQP channel error: PRECONDITION_FAILED - unknown delivery tag {n}",
            **{"from": -9600, "to": -9300, "every_s": 60},
            pods=osv,
        ),
    ]
    return simple(
        273,
        start,
        incident(
            "order confirmations stuck",
            "orders",
            start,
            ["order confirmation spinner never finishes"],
        ),
        expected(
            "app",
            ["audit.legacy", "rabbit@mq-2", "rabbitmq", "mq-2"],
            alarm,
            "The audit.legacy queue on the shared RabbitMQ cluster lost its only consumer when the audit service was decommissioned three weeks ago; durable, without TTL or max-length and still bound to the orders exchange, it grew to 41 M messages / 38 GB on mq-2. Free disk fell below the 2 GB limit: RabbitMQ set the disk alarm and blocked every publishing connection in the cluster. order-service's publishes hang (connection blocked: low on disk), confirmations time out and checkout-web polls forever. checkout-web's and order-service's errors are the loud victims; the payments-api release, warehouse-sync warnings and the old delivery-tag error are not the cause.",
            [
                "rabbitmq: disk resource limit alarm set on node 'rabbit@mq-2'; Free bytes 1987343360 below Limit 2000000000",
                "queue audit.legacy: 41 M messages, 38.2 GB, consumers 0",
                "order-service: RabbitMQ connection blocked by broker: low on disk",
            ],
            "Purge or delete audit.legacy (export first if audit needs it), add a max-length / TTL policy for queues without consumers, and alert on consumerless queues.",
        ),
        [
            bg(
                "order-service",
                osv,
                ["POST /orders 201 {ms}ms", "published order.created for order {n}"],
                8,
            ),
            bg("checkout-web", ck, ["GET /checkout 200 {ms}ms"], 8),
        ],
        evs,
        [
            {
                "name": "checkout-web",
                "rps": 30,
                "errors": {"504": (0.001, 0.4)},
                "latency": (0.2, 12.0),
            },
            {
                "name": "order-service",
                "rps": 25,
                "errors": {"504": (0.001, 0.5)},
                "latency": (0.05, 9.8),
            },
        ],
        [
            {
                "name": "rabbitmq_disk_space_available_bytes",
                "labels": {"node": "rabbit@mq-2"},
                "before": 2300000000,
                "after": 1980000000,
                "noise": 0.01,
            },
            {
                "name": "rabbitmq_queue_messages",
                "labels": {"queue": "audit.legacy", "node": "rabbit@mq-2"},
                "before": 40800000,
                "after": 41200000,
                "noise": 0.001,
            },
        ],
        {
            "rabbitmq-alarm.md": runbook(
                "RabbitMQ memory alarm",
                "A blocked publisher means the memory high watermark: restart the affected RabbitMQ node (`rabbitmqctl stop_app && rabbitmqctl start_app`) during low traffic.",
            )
        },
    )


# =================================================================================================
# 14. A shared back end: loyalty-service's deploy ran Flyway migration V88 on the shared core-db:
#     `ALTER TABLE customers ADD COLUMN tier ...`, without a lock_timeout. The ALTER waits for an
#     ACCESS EXCLUSIVE lock behind a 40-minute Metabase report; every statement on `customers` from
#     every service queues behind the waiting ALTER. Checkout, login and account pages hang.
#     The incident says "checkout".
# =================================================================================================


@scenario("migration-lock-queue-shared-db")
def migration_lock_queue_shared_db() -> dict[str, Any]:
    start = -900
    co = ["checkout-api-5d8f7c9b6-7kqwm", "checkout-api-5d8f7c9b6-c2ltx"]
    lo = ["loyalty-service-84d6c9f7b-m5vnz"]
    lw = "process 48213 still waiting for AccessExclusiveLock on relation 16547 of database 16401 after 1000.081 ms"
    evs = [
        ev(
            "loyalty-service",
            "info",
            "loyalty-service 2.14.0 starting; Flyway Community Edition 10.20.1 by Redgate",
            at=start - 20,
            pods=lo,
        ),
        ev(
            "loyalty-service",
            "info",
            'Migrating schema "public" to version "88 - add tier to customers"',
            at=start - 5,
            pods=lo,
        ),
        ev("core-db", "warn", lw, at=start - 4, labels={"db": "core-db"}),
        ev(
            "core-db",
            "info",
            "STATEMENT:  ALTER TABLE customers ADD COLUMN tier text NOT NULL DEFAULT 'basic'",
            at=start - 4,
            labels={"db": "core-db"},
        ),
        ev(
            "core-db",
            "info",
            "DETAIL:  Process holding the lock: 31877. Wait queue: 48213.",
            at=start - 4,
            labels={"db": "core-db"},
        ),
        ev(
            "core-db",
            "warn",
            "process {n} still waiting for AccessShareLock on relation 16547 of database 16401 after 1000.{n} ms",
            **{"from": start, "to": -2, "every_s": 2},
            labels={"db": "core-db"},
        ),
        ev(
            "core-db",
            "info",
            "DETAIL:  Process holding the lock: 31877. Wait queue: 48213, {n}, {n}, {n}.",
            **{"from": start, "to": -5, "every_s": 30},
            labels={"db": "core-db"},
        ),
        ev(
            "metabase",
            "info",
            "query 'Customer LTV by cohort (full history)' running {n}s for dashboard 57",
            **{"from": -2700, "to": -30, "every_s": 300},
        ),
        ev(
            "checkout-api",
            "error",
            "POST /checkout 504: HikariPool-1 - Connection is not available, request timed out after 30000ms",
            **{"from": start + 30, "to": -2, "every_s": 2},
            pods=co,
        ),
        ev(
            "auth-service",
            "error",
            "login failed for user {n}: query timeout on customers (statement_timeout 5s)",
            **{"from": start + 20, "to": -3, "every_s": 5},
        ),
        ev(
            "checkout-web",
            "info",
            "checkout-web 4.1.0 deployed (address autocomplete)",
            at=-3500,
        ),
        ev(
            "psp-adapter",
            "warn",
            "Adyen authorise p95 {ms}0ms above SLO",
            **{"from": -3600, "to": -60, "every_s": 400},
        ),
        ev(
            "core-db",
            "error",
            "deadlock detected; Process {n} waits for ShareLock on transaction {n}; blocked by process {n}.",
            **{"from": -9400, "to": -9000, "every_s": 100},
            labels={"db": "core-db"},
        ),
    ]
    return simple(
        274,
        start,
        incident("checkout hanging", "checkout", start),
        expected(
            "app",
            [
                "loyalty-service",
                "V88__add_tier_to_customers",
                "V88",
                "flyway migration 88",
            ],
            "still waiting for AccessExclusiveLock",
            "loyalty-service 2.14.0's deploy ran Flyway migration V88 (ALTER TABLE customers ADD COLUMN tier … DEFAULT 'basic') on the shared core-db without a lock_timeout. The ALTER needs an ACCESS EXCLUSIVE lock and waits behind a 40-minute Metabase report holding ACCESS SHARE; every later statement on customers, from every service, queues behind the waiting ALTER (still waiting for AccessShareLock). Checkout's pool is exhausted, logins time out. checkout-api's and auth-service's errors are the loud victims; the report is a long reader, not the fault by itself; checkout-web's release, Adyen latency and the old deadlock are not the cause.",
            [
                f"core-db: {lw}; STATEMENT: ALTER TABLE customers ADD COLUMN tier",
                "loyalty-service: Migrating schema public to version 88 - add tier to customers, 15 min ago",
                "core-db: dozens of sessions waiting for AccessShareLock on relation 16547 behind pid 48213",
            ],
            "Cancel the migration's backend (pg_cancel_backend(48213)); re-run V88 with SET lock_timeout = '3s' and retries, outside peak hours.",
        ),
        [
            bg(
                "checkout-api",
                co,
                ["POST /checkout 200 {ms}ms", "GET /cart 200 {ms}ms"],
                8,
                until=start,
            ),
            bg(
                "loyalty-service",
                lo,
                ["GET /points/{n} 200 {ms}ms"],
                15,
                until=start - 30,
            ),
        ],
        evs,
        [
            {
                "name": "checkout-api",
                "rps": 35,
                "errors": {"504": (0.001, 0.62)},
                "latency": (0.15, 28.0),
            },
            {
                "name": "auth-service",
                "rps": 20,
                "errors": {"500": (0.001, 0.35)},
                "latency": (0.04, 5.0),
            },
        ],
        [
            {
                "name": "pg_locks_waiting",
                "labels": {"db": "core-db"},
                "before": 0,
                "after": 214,
                "noise": 0.1,
            },
            {
                "name": "pg_stat_activity_max_tx_duration_seconds",
                "labels": {"db": "core-db"},
                "before": 2400,
                "after": 3300,
                "noise": 0.02,
            },
        ],
        {
            "checkout-timeouts.md": runbook(
                "Checkout timeouts",
                "Checkout timeouts come from the PSP: if Adyen's authorise latency is high, switch PSP_PRIMARY to the fallback provider in checkout-api's config.",
            )
        },
    )


# =================================================================================================
# 15. Performance: a security finding made the identity team raise BCRYPT_COST from 10 to 14 in
#     auth-service's config (16x the work per hash); on each successful login the stored hash is
#     also re-hashed at the new cost. At the Monday morning peak auth-service's CPUs are saturated by
#     hashing and logins take seconds; the mobile BFF times out. The incident says "sign in".
# =================================================================================================


@scenario("bcrypt-cost-raised-cpu")
def bcrypt_cost_raised_cpu() -> dict[str, Any]:
    start = -1620
    au = [
        "auth-service-7b8d6c5f9-4rmxq",
        "auth-service-7b8d6c5f9-9ktwz",
        "auth-service-7b8d6c5f9-ls2pv",
    ]
    bff = ["mobile-bff-6c9d7f5b8-hx8qn", "mobile-bff-6c9d7f5b8-w2jcm"]
    rehash = "rehashing password for user {n}: bcrypt cost 10 -> 14"
    evs = [
        ev(
            "config-server",
            "info",
            'auth-service: property BCRYPT_COST changed 10 -> 14 (commit 7e1a9c4 "SEC-1182: raise password hashing cost")',
            at=-6900,
        ),
        ev(
            "auth-service",
            "info",
            "refreshed configuration: BCRYPT_COST=14",
            at=-6880,
            pods=au,
        ),
        ev(
            "auth-service",
            "info",
            rehash,
            **{"from": -6800, "to": -3, "every_s": 6},
            pods=au,
        ),
        ev(
            "auth-service",
            "warn",
            "slow request POST /v1/login took {n}ms (password check {n}ms)",
            **{"from": start, "to": -3, "every_s": 4},
            pods=au,
        ),
        ev(
            "mobile-bff",
            "error",
            "POST /login 504: auth-service did not answer within 5000ms",
            **{"from": start + 60, "to": -2, "every_s": 3},
            pods=bff,
        ),
        ev(
            "mobile-bff",
            "info",
            "mobile-bff 31.0.0 started (biometric login flag)",
            at=-4300,
            pods=bff,
        ),
        ev(
            "okta-sync",
            "warn",
            "SCIM sync from Okta: {n} users skipped (missing employeeNumber)",
            **{"from": -3600, "to": -60, "every_s": 420},
        ),
        ev(
            "session-store",
            "warn",
            "redis latency spike {ms}ms on replica session-redis-2",
            **{"from": -3600, "to": -100, "every_s": 600},
        ),
        ev(
            "auth-service",
            "error",
            "JWKS publish to CDN failed: 403 AccessDenied (bucket policy)",
            **{"from": -10300, "to": -9800, "every_s": 100},
            pods=au,
        ),
    ]
    return simple(
        275,
        start,
        incident("sign in slow", "sign in", start, ["login spinner for ages"]),
        expected(
            "app",
            ["auth-service", "BCRYPT_COST"],
            "bcrypt cost 10 -> 14",
            "A security finding made the identity team raise auth-service's BCRYPT_COST from 10 to 14 through the config server two hours ago: each hash costs 16x the CPU, and each successful login also re-hashes the stored password at the new cost. Quiet while traffic was low; at the Monday morning peak auth-service's CPUs are saturated by hashing, logins take seconds and mobile-bff times out. mobile-bff's 504s and release, the session Redis latency, the Okta sync warnings and the old JWKS publish error are not the cause; the peak is the trigger.",
            [
                "config-server: auth-service BCRYPT_COST 10 -> 14 (SEC-1182)",
                "auth-service: rehashing password for user …: bcrypt cost 10 -> 14; slow POST /v1/login, password check > 1 s",
                "auth-service CPU at 100 % at the morning peak, request rate unchanged",
            ],
            "Set BCRYPT_COST back to 12 (the agreed compromise) and scale auth-service for the hashing cost, or move to argon2id with parameters sized for the login rate.",
        ),
        [
            bg(
                "auth-service",
                au,
                ["POST /v1/login 200 {ms}ms", "POST /v1/token/refresh 200 {ms}ms"],
                8,
            ),
            bg(
                "mobile-bff", bff, ["GET /home 200 {ms}ms", "POST /login 200 {ms}ms"], 8
            ),
        ],
        evs,
        [
            {
                "name": "mobile-bff",
                "rps": 90,
                "rps_after": 140,
                "errors": {"504": (0.001, 0.21)},
                "latency": (0.12, 3.9),
            },
            {
                "name": "auth-service",
                "rps": 60,
                "rps_after": 95,
                "latency": (0.09, 3.4),
            },
        ],
        [
            {
                "name": "process_cpu_usage_ratio",
                "labels": {"service": "auth-service"},
                "before": 0.71,
                "after": 0.995,
                "noise": 0.01,
            },
        ],
        {
            "login-slow.md": runbook(
                "Login slow",
                "Slow logins are the session Redis: check replica latency and fail over session-redis to the standby (`redis-cli -p 26379 SENTINEL failover sessions`).",
            )
        },
        ramps=[
            {
                "name": "process_cpu_usage_ratio",
                "labels": {"service": "auth-service", "phase": "hashing"},
                "before": 0.05,
                "after": 0.9,
                "from": -6880,
                "to": start,
                "noise": 0.03,
            },
        ],
    )


# =================================================================================================
# 16. DNS (netcheck): the network team created a Route 53 private hosted zone `northpeak.io` (for
#     a new internal vault.northpeak.io) and associated it with the production VPC. Inside the VPC
#     the private zone now answers for the whole domain: every public name it lacks, such as
#     auth.northpeak.io (the identity provider's custom domain), is NXDOMAIN. The API gateway cannot
#     refresh its JWKS and rejects every token. The incident says "public API".
# =================================================================================================


@scenario("private-zone-shadows-public-domain")
def private_zone_shadows_public_domain() -> dict[str, Any]:
    start = -1080
    gw = [
        "api-gateway-5c7f9d8b6-8qzlk",
        "api-gateway-5c7f9d8b6-f4mwx",
        "api-gateway-5c7f9d8b6-v7nrp",
    ]
    sig = "getaddrinfo ENOTFOUND auth.northpeak.io"
    evs = [
        ev(
            "terraform",
            "info",
            'apply network-prod: aws_route53_zone.vault_private "northpeak.io" created (Z0845612QX3VJ8T5LMN2A), vpc association vpc-0a7c3e91b5d2f4c68 (prod) - PR net#97 "private DNS for vault"',
            at=start - 600,
        ),
        ev(
            "api-gateway",
            "warn",
            f"JWKS refresh failed: {sig} (https://auth.northpeak.io/.well-known/jwks.json); keeping cached keys",
            **{"from": start - 540, "to": -5, "every_s": 60},
            pods=gw,
        ),
        ev(
            "api-gateway",
            "error",
            'JWT verification failed: no signing key found for kid "np-2026-12-05" (JWKS not refreshed)',
            **{"from": start, "to": -2, "every_s": 2},
            pods=gw,
        ),
        ev(
            "api-gateway",
            "info",
            "GET /v2/orders 401 {ms}ms",
            **{"from": start, "to": -2, "every_s": 3},
            pods=gw,
        ),
        ev(
            "identity",
            "info",
            "signing key rotated: new kid np-2026-12-05 published to JWKS, previous kid valid for verification 24h",
            at=start - 30,
        ),
        ev(
            "status-page",
            "info",
            "Auth0 status: degraded performance in AU-1 (our tenant: EU-2)",
            at=-2500,
        ),
        ev(
            "api-gateway",
            "info",
            "api-gateway 2.40.0 rolled out (request-id propagation)",
            at=-3300,
            pods=gw,
        ),
        ev(
            "partner-webhooks",
            "warn",
            "delivery to hooks.partner-{n}.example slow: {ms}00ms",
            **{"from": -3600, "to": -20, "every_s": 300},
        ),
        ev(
            "api-gateway",
            "error",
            "JWKS refresh slow: 2400ms (https://auth.northpeak.io/.well-known/jwks.json)",
            **{"from": -10000, "to": -9400, "every_s": 120},
            pods=gw,
        ),
    ]
    spec = simple(
        276,
        start,
        incident("API rejecting all requests with 401", "public API", start),
        expected(
            "dns",
            [
                "northpeak.io",
                "Z0845612QX3VJ8T5LMN2A",
                "aws_route53_zone.vault_private",
                "northpeak.io private hosted zone",
            ],
            sig,
            "A Terraform change (PR net#97) created a Route 53 private hosted zone for northpeak.io, meant only for vault.northpeak.io, and associated it with the production VPC. Inside the VPC that zone is now authoritative for the whole domain: every public name it lacks, among them auth.northpeak.io (the identity provider's custom domain), answers NXDOMAIN. The API gateway could not refresh its JWKS and kept its cached keys; when the identity provider's scheduled key rotation started signing with kid np-2026-12-05, every new token failed verification with 401. The rotation is the trigger, not the cause; the Auth0 status notice (another region), the gateway release, partner-webhook latency and the old slow JWKS refresh are not the cause.",
            [
                "api-gateway: JWKS refresh failed: getaddrinfo ENOTFOUND auth.northpeak.io",
                "terraform: private hosted zone northpeak.io associated with the prod VPC 28 min ago",
                "netcheck idp-jwks: dns nxdomain for auth.northpeak.io from the VPC resolver",
            ],
            "Add auth.northpeak.io (and the other public names) to the private zone, or better rename the private zone to a subdomain (vault.internal.northpeak.io) and disassociate northpeak.io from the VPC.",
        ),
        [
            bg(
                "api-gateway",
                gw,
                ["GET /v2/orders 200 {ms}ms", "GET /v2/products 200 {ms}ms"],
                8,
                until=start,
            )
        ],
        evs,
        [
            {
                "name": "api-gateway",
                "rps": 150,
                "errors": {"401": (0.01, 0.93)},
                "latency": (0.04, 0.01),
            }
        ],
        [],
        {
            "api-401-storm.md": runbook(
                "401 storm",
                "A 401 storm after a signing-key rotation: restart the API gateways (`kubectl rollout restart deployment/api-gateway -n edge`) so they fetch the new JWKS.",
            )
        },
    )
    spec["targets"] = [
        {
            "name": "idp-jwks",
            "url": "https://auth.northpeak.io/.well-known/jwks.json",
            "fault": {"kind": "dns_nxdomain"},
        },
        {
            "name": "vault",
            "url": "https://vault.northpeak.io/v1/sys/health",
            "fault": {"kind": "ok"},
        },
        {
            "name": "api-gateway",
            "url": "https://api.northpeak.io/healthz",
            "fault": {"kind": "ok"},
        },
    ]
    spec["expected"]["root_cause_probe"] = "idp-jwks"
    spec["expected"]["netcheck"] = {
        "idp-jwks": {"failed_layer": "dns", "reason": "nxdomain"},
        "vault": {"failed_layer": "none", "reason": None},
        "api-gateway": {"failed_layer": "none", "reason": None},
    }
    return spec


def main(root: Path = HERE) -> None:
    for slug, build in SCENARIOS.items():
        base.write(slug, build(), root)
        print(slug)


if __name__ == "__main__":
    main()
