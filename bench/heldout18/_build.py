"""Writes the eighteenth held-out scenario set, bench/heldout18: `python bench/heldout18/_build.py`.

New incidents, none of them in the bundled set or in bench/heldout … bench/heldout17. As there,
everything that matters is written by hand below (incident, expected answer, runbooks, kubectl
answers, the log lines that carry the fault and the red herrings); the bulk (background request
lines, 2 h of metric points thinned to one every 30 s, a namespace's tables, describe layouts) comes
from bench/heldout15/_build.py's helpers (and through them heldout14's and the earlier builders'),
each scenario with a fixed seed (481-496). The author read neither the planner (`reasoning/`) nor
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


h15 = _load("heldout15_build", HERE.parent / "heldout15" / "_build.py")
h14 = h15.h14
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


def gauge(
    name: str, labels: dict[str, str], before: float, after: float, at: int
) -> dict[str, Any]:
    """A gauge that steps from `before` to `after` at `at` (the shape simple / kube_case expect)."""
    return {
        "name": name,
        "labels": labels,
        "before": before,
        "after": after,
        "change_at": at,
    }


def with_netcheck(
    spec: dict[str, Any], targets: list[dict[str, Any]], probe: str | None, want: dict
) -> dict:
    spec["targets"] = targets
    spec["expected"]["root_cause_probe"] = probe
    spec["expected"]["netcheck"] = want
    return spec


# =================================================================================================
# 1. Admission: after postmortem PM-212 the media team gave thumbnail-worker (Celery) the
#    PriorityClass `business-critical`. The platform team caps that class per namespace with a
#    ResourceQuota scoped by PriorityClass (`critical-pods`, pods: 4). The four running pods were
#    replaced within the cap this morning; at the evening upload peak the HPA asks for 10 and the
#    ReplicaSet cannot create the six new pods. Uploads stay "processing". The incident says "photo
#    uploads".
# =================================================================================================


@scenario("priorityclass-scoped-quota-blocks-worker-scaleout")
def priorityclass_scoped_quota_blocks_worker_scaleout() -> dict[str, Any]:
    start = -2400
    ns = "media"
    rs = "6c9f7d8b54"
    tw = app(
        "thumbnail-worker",
        image="ghcr.io/pixmerge/thumbnail-worker:2.8.0",
        port=8000,
        rs=rs,
        cluster_ip="10.96.40.12",
        desired=10,
        service=False,
        pods=[
            ("b7kfp", "1/1", "Running", "0", "6h", 0),
            ("h2xqd", "1/1", "Running", "0", "6h", 1),
            ("q9lmt", "1/1", "Running", "0", "6h", 2),
            ("w4nzc", "1/1", "Running", "0", "6h", 0),
        ],
    )
    up = app(
        "upload-api",
        image="ghcr.io/pixmerge/upload-api:14.2.0",
        port=8080,
        rs="7f8d9c6b5",
        cluster_ip="10.96.40.30",
        pods=[
            ("c3vbn", "1/1", "Running", "0", "3h", 1),
            ("k8pzs", "1/1", "Running", "0", "3h", 2),
            ("t6rwy", "1/1", "Running", "0", "3h", 0),
        ],
    )
    k8s = namespace(ns, NODES_FRA, [tw, up], seed=481)
    sig = "exceeded quota: critical-pods, requested: pods=1, used: pods=4, limited: pods=4"
    k8s[f"kubectl get resourcequotas -n {ns}"] = table(
        [
            ["NAME", "AGE", "REQUEST", "LIMIT"],
            ["critical-pods", "412d", "pods: 4/4", ""],
            [
                "compute",
                "412d",
                "requests.cpu: 6500m/40, requests.memory: 13Gi/80Gi",
                "limits.memory: 16Gi/96Gi",
            ],
        ]
    )
    k8s[f"kubectl describe resourcequotas critical-pods -n {ns}"] = (
        f"Name:       critical-pods\nNamespace:  {ns}\n"
        "Scopes:     PriorityClass\n"
        " * Matches all pods that have at least one of the following PriorityClasses: business-critical\n"
        "Resource    Used  Hard\n"
        "--------    ----  ----\n"
        "pods        4     4\n"
    )
    k8s[f"kubectl get horizontalpodautoscalers -n {ns}"] = table(
        [
            ["NAME", "REFERENCE", "TARGETS", "MINPODS", "MAXPODS", "REPLICAS", "AGE"],
            [
                "thumbnail-worker",
                "Deployment/thumbnail-worker",
                "celery_queue_length: 3812/50",
                "4",
                "24",
                "4",
                "2y",
            ],
        ]
    )
    cont = container_text(
        "thumbnail-worker",
        tw["image"],
        8000,
        env={
            "CELERY_BROKER_URL": "redis://media-redis.media.svc:6379/0",
            "CELERY_CONCURRENCY": "8",
        },
        limits="memory:  1Gi",
        requests="cpu:      500m\n  memory:   768Mi",
    )
    rows = [
        (
            "Warning",
            "FailedCreate",
            f"{m}m",
            "replicaset-controller",
            f'Error creating: pods "thumbnail-worker-{rs}-{s}" is forbidden: {sig}',
        )
        for m, s in ((38, "x8kzp"), (31, "r5jdw"), (17, "m2hcq"), (2, "f9ltb"))
    ]
    k8s[f"kubectl describe replicasets thumbnail-worker-{rs} -n {ns}"] = (
        replicaset_describe(
            f"thumbnail-worker-{rs}",
            ns,
            deployment="thumbnail-worker",
            revision=57,
            desired=10,
            current=4,
            status="4 Running / 0 Waiting / 0 Succeeded / 0 Failed",
            containers=cont.replace("  thumbnail-worker:", "  thumbnail-worker:", 1),
            failure=True,
            events_rows=rows,
        )
    )
    k8s[f"kubectl describe deployments thumbnail-worker -n {ns}"] = deployment_describe(
        "thumbnail-worker",
        ns,
        replicas="10 desired | 4 updated | 4 total | 4 available | 6 unavailable",
        revision=57,
        containers=cont,
        conditions=[
            ("Progressing", "True", "NewReplicaSetAvailable"),
            ("Available", "False", "MinimumReplicasUnavailable"),
            ("ReplicaFailure", "True", "FailedCreate"),
        ],
        old_rs="thumbnail-worker-59d7c8f4b6 (0/0 replicas created)",
        new_rs=f"thumbnail-worker-{rs} (4/10 replicas created)",
    ).replace(
        "Pod Template:\n",
        "Pod Template:\n  Priority Class Name:  business-critical\n",
        1,
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "39m",
                "Normal",
                "SuccessfulRescale",
                "HorizontalPodAutoscaler/thumbnail-worker",
                "New size: 10; reason: external metric celery_queue_length(nil) above target",
            ),
            (
                "39m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/thumbnail-worker",
                f"Scaled up replica set thumbnail-worker-{rs} to 10 from 4",
            ),
            (
                "38m",
                "Warning",
                "FailedCreate",
                f"ReplicaSet/thumbnail-worker-{rs}",
                f'Error creating: pods "thumbnail-worker-{rs}-x8kzp" is forbidden: {sig}',
            ),
            (
                "2m",
                "Warning",
                "FailedCreate",
                f"ReplicaSet/thumbnail-worker-{rs}",
                f'Error creating: pods "thumbnail-worker-{rs}-f9ltb" is forbidden: {sig}',
            ),
        ]
    )
    evs = [
        ev(
            "argocd",
            "info",
            "application thumbnail-worker synced to 2.8.0: spec.template.spec.priorityClassName business-critical (PM-212 follow-up: 'workers must not be preempted by batch'), health Healthy",
            at=-21600,
        ),
        ev(
            "kube-controller-manager",
            "warn",
            f'E1207 replica_set.go:587] "Unhandled Error" err="pods \\"thumbnail-worker-{rs}-{{n}}\\" is forbidden: {sig}" logger="UnhandledError"',
            **every(start + 60, -30, 240),
        ),
        ev(
            "thumbnail-worker",
            "info",
            "[2026-12-07 17:{n}:02,114: INFO/ForkPoolWorker-3] Task thumbs.render[{n}] succeeded in 2.{ms}s",
            **every(-7000, -5, 45),
            pods=pods_of(tw),
        ),
        ev(
            "upload-api",
            "warn",
            '{"level":"warn","msg":"photo still processing after 120s","upload_id":"up_{n}","queue":"thumbs","depth":3{n}}',
            **every(start + 300, -3, 20),
            pods=pods_of(up),
        ),
        ev(
            "upload-api",
            "info",
            '{"level":"info","msg":"upload-api 14.2.0 started (HEIC support)"}',
            at=-10600,
            pods=pods_of(up),
        ),
        ev(
            "image-cdn",
            "error",
            "purge request for /p/{n}/* failed: 409 purge already queued",
            **every(-7100, -60, 400),
        ),
        ev(
            "thumbnail-worker",
            "error",
            "botocore.exceptions.ClientError: An error occurred (SlowDown) when calling the PutObject operation (reached max retries: 4): Please reduce your request rate.",
            **every(-10500, -9900, 90),
            pods=pods_of(tw),
        ),
    ]
    return kube_case(
        seed=481,
        start=start,
        inc=incident(
            "Photos stuck on 'processing' after upload", "photo uploads", start
        ),
        exp=expected(
            "platform",
            [
                "resourcequota/critical-pods",
                "critical-pods",
                "deployment/thumbnail-worker",
                "thumbnail-worker",
                "business-critical",
                "priorityclass",
            ],
            sig,
            "thumbnail-worker 2.8.0 runs with PriorityClass business-critical; the media namespace's ResourceQuota critical-pods, scoped to that class, allows 4 pods. At the evening upload peak the HPA scaled the Deployment to 10, but the ReplicaSet cannot create the six new pods (admission: exceeded quota), so the Celery queue grows and photos stay 'processing'. upload-api's warnings and release, the CDN purge conflicts and the old S3 SlowDown are not the cause.",
            [
                f"ReplicaSet thumbnail-worker-{rs}: FailedCreate: {sig}",
                "critical-pods Scopes: PriorityClass business-critical, pods 4/4",
                "HPA thumbnail-worker wants 10",
            ],
            "Raise critical-pods (or drop the PriorityClass for the worker's surge capacity), then let the HPA scale and drain the thumbs queue.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "upload-api",
                pods_of(up),
                ["POST /v1/photos 202 {ms}ms", "GET /v1/photos/{n} 200 {ms}ms"],
                8,
            )
        ],
        evs=evs,
        services=[
            svc("upload-api", 60, {"500": (0.0005, 0.0007)}, (0.09, 0.1)),
        ],
        gauges=[
            gauge("celery_queue_length", {"queue": "thumbs"}, 12, 3812, start + 120)
        ],
        books={
            "uploads-stuck.md": runbook(
                "Uploads stuck in processing",
                "If photos stay 'processing', the Celery workers are wedged on a bad HEIC file: restart thumbnail-worker (kubectl rollout restart) and, if the queue keeps growing, purge the thumbs queue.",
            )
        },
    )


# =================================================================================================
# 2. Scheduling: a week ago cluster-autoscaler got `--skip-nodes-with-local-storage=false` (PR
#    platform#311, "let CA reclaim nodes with emptyDir scratch"). meilisearch runs as a one-replica
#    StatefulSet on the `local-path` storage class. 45 minutes ago CA scaled the node it lived on down;
#    the PV keeps its node affinity to the deleted node, so meilisearch-0 stays Pending: "volume node
#    affinity conflict". The incident says "site search".
# =================================================================================================


@scenario("local-pv-node-removed-by-autoscaler")
def local_pv_node_removed_by_autoscaler() -> dict[str, Any]:
    start = -2700
    ns = "search"
    gone = "ip-10-90-3-77.us-west-2.compute.internal"
    ms = app(
        "meilisearch",
        image="getmeili/meilisearch:v1.11.3",
        port=7700,
        rs="5d8c7f9b6",
        kind="StatefulSet",
        desired=1,
        cluster_ip="10.100.71.20",
        pods=[("0", "0/1", "Pending", "0", "44m", 0)],
    )
    ix = app(
        "search-sync",
        image="ghcr.io/tallow/search-sync:1.9.4",
        port=8080,
        rs="8b6d5c7f9",
        cluster_ip="10.100.71.44",
        pods=[("g5tqm", "1/1", "Running", "3", "6d", 1)],
    )
    k8s = namespace(
        ns,
        NODES_PDX,
        [ms, ix],
        seed=482,
        statefulsets=table(
            [
                ["NAME", "READY", "AGE", "CONTAINERS", "IMAGES"],
                [
                    "meilisearch",
                    "0/1",
                    "1y",
                    "meilisearch",
                    "getmeili/meilisearch:v1.11.3",
                ],
            ]
        ),
    )
    sig = "volume node affinity conflict"
    msg = "0/4 nodes are available: 4 node(s) had volume node affinity conflict. preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling."
    pvname = "pvc-3f1e9a2c-71d4-4c8b-9e0f-5a6b7c8d9e01"
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
                "data-meilisearch-0",
                "Bound",
                pvname,
                "50Gi",
                "RWO",
                "local-path",
                "<unset>",
                "1y",
            ],
        ]
    )
    k8s[f"kubectl describe persistentvolumes {pvname}"] = (
        f"Name:              {pvname}\n"
        "Labels:            <none>\n"
        "Annotations:       local.path.provisioner/selected-node: " + gone + "\n"
        "                   pv.kubernetes.io/provisioned-by: rancher.io/local-path\n"
        "Finalizers:        [kubernetes.io/pv-protection]\n"
        "StorageClass:      local-path\n"
        "Status:            Bound\n"
        f"Claim:             {ns}/data-meilisearch-0\n"
        "Reclaim Policy:    Retain\n"
        "Access Modes:      RWO\n"
        "VolumeMode:        Filesystem\n"
        "Capacity:          50Gi\n"
        "Node Affinity:     \n"
        "  Required Terms:  \n"
        f"    Term 0:        kubernetes.io/hostname in [{gone}]\n"
        "Message:           \n"
        "Source:\n"
        "    Type:          HostPath (bare host directory volume)\n"
        f"    Path:          /opt/local-path-provisioner/{pvname}_{ns}_data-meilisearch-0\n"
        "    HostPathType:  DirectoryOrCreate\n"
        "Events:            <none>\n"
    )
    cont = container_text(
        "meilisearch",
        ms["image"],
        7700,
        env={"MEILI_ENV": "production", "MEILI_DB_PATH": "/meili_data"},
        limits="memory:  4Gi",
        requests="cpu:      1\n  memory:   4Gi",
    )
    k8s[f"kubectl describe pods meilisearch-0 -n {ns}"] = pending_pod(
        "meilisearch-0",
        ns,
        owner="StatefulSet/meilisearch",
        labels=[
            "app=meilisearch",
            "apps.kubernetes.io/pod-index=0",
            "statefulset.kubernetes.io/pod-name=meilisearch-0",
        ],
        sa="default",
        containers=cont,
        events_rows=[
            (
                "Warning",
                "FailedScheduling",
                "3m (x9 over 44m)",
                "default-scheduler",
                msg,
            )
        ],
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "45m",
                "Normal",
                "Killing",
                "Pod/meilisearch-0",
                "Stopping container meilisearch",
            ),
            (
                "45m",
                "Normal",
                "ScaleDown",
                "Pod/meilisearch-0",
                "deleting pod for node scale down",
            ),
            (
                "44m",
                "Normal",
                "SuccessfulCreate",
                "StatefulSet/meilisearch",
                "create Pod meilisearch-0 in StatefulSet meilisearch successful",
            ),
            ("3m", "Warning", "FailedScheduling", "Pod/meilisearch-0", msg),
        ]
    )
    k8s["kubectl get events -n kube-system"] = events(
        [
            (
                "46m",
                "Normal",
                "ScaleDown",
                f"Node/{gone}",
                "marked the node as toBeDeleted/unschedulable",
            ),
            (
                "44m",
                "Normal",
                "ScaleDown",
                f"Node/{gone}",
                "node removed by cluster autoscaler",
            ),
        ]
    )
    evs = [
        ev(
            "argocd",
            "info",
            "application cluster-autoscaler synced: extraArgs skip-nodes-with-local-storage: \"false\" (PR platform#311 merged 2026-11-30, 'let CA reclaim nodes with emptyDir scratch')",
            at=-7100,
        ),
        ev(
            "cluster-autoscaler",
            "info",
            f"I1207 07:58:11.204118       1 scale_down.go:1001] Scale-down: removing node {gone}, utilization: {{0.21 0.38 0 memory 0.38}}, pods to reschedule: search/meilisearch-0",
            at=start - 60,
        ),
        ev(
            "cluster-autoscaler",
            "info",
            f"I1207 07:59:40.881902       1 delete.go:193] Successfully deleted node {gone}",
            at=start + 20,
        ),
        ev(
            "cluster-autoscaler",
            "info",
            "I1207 08:{n}:11.004417       1 orchestrator.go:566] Pod search/meilisearch-0 can't be scheduled on pdx-general, predicate checking error: node(s) had volume node affinity conflict; predicateName=VolumeBinding; reasons: node(s) had volume node affinity conflict; debugInfo=",
            **every(start + 60, -40, 300),
        ),
        ev(
            "storefront",
            "error",
            "MeiliSearchRequestError: request to http://meilisearch.search.svc:7700/indexes/products/search failed, reason: connect ECONNREFUSED 10.100.71.20:7700\n    at /app/node_modules/meilisearch/dist/bundles/meilisearch.cjs:1:4873",
            **every(start + 20, -2, 6),
            pods=["storefront-7c5d9-2xkq", "storefront-7c5d9-8mrw"],
        ),
        ev(
            "search-sync",
            "warn",
            'level=warn msg="push batch failed, will retry" index=products docs=500 err="dial tcp 10.100.71.20:7700: connect: connection refused"',
            **every(start + 60, -20, 60),
            pods=pods_of(ix),
        ),
        ev(
            "storefront",
            "info",
            "storefront 2026.49.2 deployed (gift wrap option)",
            at=-5200,
            pods=["storefront-7c5d9-2xkq", "storefront-7c5d9-8mrw"],
        ),
        ev(
            "recommendations",
            "warn",
            "model refresh skipped: feature store lag {n}s",
            **every(-7000, -100, 600),
        ),
        ev(
            "search-sync",
            "error",
            'level=error msg="meilisearch task failed" task=88{n} err="index_primary_key_multiple_candidates_found"',
            **every(-10300, -9800, 120),
            pods=pods_of(ix),
        ),
    ]
    return kube_case(
        seed=482,
        start=start,
        inc=incident(
            "Search on the site returns an error page",
            "site search",
            start,
            ["search box shows 'something went wrong'"],
        ),
        exp=expected(
            "platform",
            [
                "statefulset/meilisearch",
                "meilisearch",
                "pvc/data-meilisearch-0",
                "data-meilisearch-0",
                pvname,
                "local-path",
                "cluster-autoscaler",
            ],
            sig,
            "meilisearch's only replica keeps its data on a local-path PersistentVolume pinned to node ip-10-90-3-77. Since PR platform#311 cluster-autoscaler may remove nodes with local storage; 45 minutes ago it scaled that node down and deleted it. The PV's node affinity names a node that no longer exists, so meilisearch-0 cannot be scheduled (volume node affinity conflict) and the Service has no endpoint: the storefront's search calls are refused. The storefront's errors and release, search-sync's retries, the recommendations lag and the old index task error are not the cause.",
            [
                f"meilisearch-0 FailedScheduling: {msg}",
                f"PV {pvname} Node Affinity kubernetes.io/hostname in [{gone}]",
                f"cluster-autoscaler: Scale-down: removing node {gone}, pods to reschedule: search/meilisearch-0",
            ],
            "Delete the orphaned PV/PVC and let meilisearch-0 start on a new volume, re-index from search-sync; keep skip-nodes-with-local-storage true (or annotate meilisearch safe-to-evict=false) and move it to a network volume.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "storefront",
                ["storefront-7c5d9-2xkq", "storefront-7c5d9-8mrw"],
                ["GET /p/{n} 200 {ms}ms", "GET / 200 {ms}ms"],
                8,
            )
        ],
        evs=evs,
        services=[
            svc(
                "storefront",
                90,
                {"500": (0.0004, 0.09)},
                (0.12, 0.12),
                change_at=start + 20,
            )
        ],
        gauges=[
            gauge(
                "kube_statefulset_status_replicas_ready",
                {"namespace": ns, "statefulset": "meilisearch"},
                1,
                0,
                start,
            )
        ],
        books={
            "search-down.md": runbook(
                "Site search failing",
                "Search errors usually mean a corrupted Meilisearch index after an upgrade: delete the products index and trigger a full re-index from search-sync (POST /admin/reindex).",
            )
        },
    )


# =================================================================================================
# 3. Startup: eta-calculator (Go, one replica, Recreate: it owns the ETA Kafka partitions) 3.2.0
#    added a SQLite-backed road-closure cache (mattn/go-sqlite3, so CGO_ENABLED=1) and, in the same
#    MR, moved its runtime image to gcr.io/distroless/static-debian12, which has no libc or dynamic
#    loader. The binary cannot be exec'd: "exec /usr/local/bin/eta-calculator: no such file or
#    directory". No ETAs are computed; the incident says "delivery tracking".
# =================================================================================================


@scenario("cgo-binary-on-distroless-static")
def cgo_binary_on_distroless_static() -> dict[str, Any]:
    start = -1900
    ns = "delivery"
    eta = app(
        "eta-calculator",
        image="europe-docker.pkg.dev/rydeo-prod/apps/eta-calculator:3.2.0",
        port=8080,
        rs="75f8d6c9b",
        cluster_ip="10.12.9.40",
        desired=1,
        pods=[("n4xwq", "0/1", "CrashLoopBackOff", "9", "31m", 1)],
    )
    trk = app(
        "tracking-api",
        image="europe-docker.pkg.dev/rydeo-prod/apps/tracking-api:8.11.0",
        port=8080,
        rs="6b9c8d7f5",
        cluster_ip="10.12.9.12",
        pods=[
            ("d2kqh", "1/1", "Running", "0", "2d", 0),
            ("p8zvm", "1/1", "Running", "0", "2d", 2),
        ],
    )
    k8s = namespace(ns, NODES_DUB, [eta, trk], seed=483)
    sig = "exec /usr/local/bin/eta-calculator: no such file or directory"
    cont = container_text(
        "eta-calculator",
        eta["image"],
        8080,
        env={
            "KAFKA_BROKERS": "kafka-0.kafka.delivery.svc:9092",
            "ROADCACHE_PATH": "/data/roads.db",
        },
    )
    name = pod_name(eta, "n4xwq")
    describe_pod(
        k8s,
        ns,
        eta,
        "n4xwq",
        NODES_DUB,
        state=crashloop(1, "Error", -61, -61),
        started=-1860,
        restarts=9,
        events_rows=backoff_rows(eta, ns, "n4xwq", "x132 over 30m"),
    )
    k8s[f"kubectl logs {name} -n {ns} --previous --tail=1000"] = podlog([(-61, sig)])
    k8s[f"kubectl logs {name} -n {ns} --tail=1000"] = podlog([(-61, sig)])
    k8s[f"kubectl describe deployments eta-calculator -n {ns}"] = deployment_describe(
        "eta-calculator",
        ns,
        replicas="1 desired | 1 updated | 1 total | 0 available | 1 unavailable",
        revision=88,
        containers=cont,
        strategy="Recreate",
        conditions=[
            ("Available", "False", "MinimumReplicasUnavailable"),
            ("Progressing", "False", "ProgressDeadlineExceeded"),
        ],
        old_rs="eta-calculator-6f7c9b8d4 (0/0 replicas created)",
        new_rs=f"eta-calculator-{eta['rs']} (1/1 replicas created)",
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "32m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/eta-calculator",
                "Scaled down replica set eta-calculator-6f7c9b8d4 to 0 from 1",
            ),
            (
                "31m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/eta-calculator",
                f"Scaled up replica set eta-calculator-{eta['rs']} to 1",
            ),
            (
                "21m",
                "Warning",
                "ProgressDeadlineExceeded",
                "Deployment/eta-calculator",
                f'ReplicaSet "eta-calculator-{eta["rs"]}" has timed out progressing.',
            ),
            (
                "40s",
                "Warning",
                "BackOff",
                f"Pod/{name}",
                "Back-off restarting failed container eta-calculator in pod "
                + name
                + "_delivery(4c1b…)",
            ),
        ]
    )
    evs = [
        ev(
            "cloudbuild",
            "info",
            "build 7d1e2f: eta-calculator 3.2.0 (MR !412 'road closures in SQLite cache; slim runtime image'): go build CGO_ENABLED=1 on golang:1.23-bookworm, runtime FROM gcr.io/distroless/static-debian12:nonroot, image 96 MB -> 31 MB, SUCCESS",
            at=start - 240,
        ),
        ev("eta-calculator", "error", sig, **every(start + 40, -61, 300), pods=[name]),
        ev(
            "tracking-api",
            "warn",
            '{"severity":"WARNING","message":"eta missing for shipment, showing window","shipment":"SH{n}","eta_age_s":{ms}}',
            **every(start + 200, -4, 12),
            pods=pods_of(trk),
        ),
        ev(
            "tracking-api",
            "error",
            '{"severity":"ERROR","message":"kafka: client has run out of available brokers to talk to: dial tcp 10.12.9.77:9092: i/o timeout"}',
            **every(-9800, -9200, 90),
            pods=pods_of(trk),
        ),
        ev(
            "tracking-api",
            "info",
            '{"severity":"INFO","message":"tracking-api 8.11.0 ready (driver photo on delivery)"}',
            at=-4100,
            pods=pods_of(trk),
        ),
        ev(
            "kafka",
            "warn",
            "[2026-12-07 09:{n}:12,004] WARN [GroupCoordinator 1]: Group eta-calculator with generation {n} is now empty (__consumer_offsets-17) (kafka.coordinator.group.GroupCoordinator)",
            at=start + 30,
        ),
        ev(
            "routing-engine",
            "warn",
            "OSRM table request {ms}0 ms over budget (matrix 120x120)",
            **every(-7000, -50, 350),
        ),
    ]
    return kube_case(
        seed=483,
        start=start,
        inc=incident(
            "Tracking page shows no delivery time", "delivery tracking", start
        ),
        exp=expected(
            "application",
            [
                "deployment/eta-calculator",
                "eta-calculator",
                "eta-calculator 3.2.0",
                "distroless/static-debian12",
                "cgo_enabled=1",
                "go-sqlite3",
            ],
            sig,
            "eta-calculator 3.2.0 is built with CGO_ENABLED=1 (the new go-sqlite3 road-closure cache links libc dynamically) but its runtime image moved to distroless/static, which has no glibc and no dynamic loader. The kernel cannot find the ELF interpreter, so exec fails with 'no such file or directory' and the container crash-loops; with the Recreate strategy the old pod was stopped first and no ETA is computed. tracking-api's warnings and release, the old Kafka broker timeout and OSRM latency are not the cause.",
            [
                f"eta-calculator previous log: {sig}",
                "cloudbuild: CGO_ENABLED=1, runtime FROM gcr.io/distroless/static-debian12",
                "ProgressDeadlineExceeded, CrashLoopBackOff",
            ],
            "Roll back to 3.1.x; build with CGO_ENABLED=0 (a pure-Go SQLite such as modernc.org/sqlite) or use distroless/base (glibc) for the runtime stage.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "tracking-api",
                pods_of(trk),
                [
                    "GET /v1/shipments/SH{n} 200 {ms}ms",
                    "GET /v1/shipments/SH{n}/events 200 {ms}ms",
                ],
                8,
            )
        ],
        evs=evs,
        services=[svc("tracking-api", 45, {"500": (0.0003, 0.0004)}, (0.05, 0.05))],
        gauges=[
            gauge(
                "kafka_consumergroup_lag",
                {"group": "eta-calculator", "topic": "driver.positions"},
                40,
                91200,
                start + 60,
            )
        ],
        books={
            "eta-missing.md": runbook(
                "ETAs missing on tracking page",
                "Missing ETAs are almost always the routing engine (OSRM) timing out on big matrices: scale routing-engine and lower ETA_MATRIX_SIZE in tracking-api.",
            )
        },
    )


# =================================================================================================
# 4. Runtime: catalog-api 7.4.0 (ASP.NET Core 8) added `app.UseRateLimiter()` with a global
#    fixed-window limiter (400 permits / s per pod) to protect the database. `/health` (liveness and
#    readiness) is not exempt. At the lunchtime peak the limiter answers 429 to the kubelet's probes
#    too; pods are restarted, the survivors get more traffic and hit the limit sooner. The incident
#    says "shop".
# =================================================================================================


@scenario("aspnet-rate-limiter-throttles-liveness")
def aspnet_rate_limiter_throttles_liveness() -> dict[str, Any]:
    start = -1600
    ns = "catalog"
    ca = app(
        "catalog-api",
        image="acrnorthwind.azurecr.io/catalog-api:7.4.0",
        port=8080,
        rs="58d9c7b6f",
        cluster_ip="10.0.148.20",
        pods=[
            ("b2rxk", "0/1", "Running", "6", "3h", 0),
            ("h7wqm", "1/1", "Running", "5", "3h", 1),
            ("m4tzc", "0/1", "Running", "7", "3h", 2),
            ("v9pns", "1/1", "Running", "4", "3h", 0),
        ],
    )
    web = app(
        "shop-web",
        image="acrnorthwind.azurecr.io/shop-web:5.30.1",
        port=3000,
        rs="7c6f8d5b9",
        cluster_ip="10.0.148.44",
        pods=[
            ("c5jvl", "1/1", "Running", "0", "1d", 1),
            ("s1kdx", "1/1", "Running", "0", "1d", 2),
        ],
    )
    nodes = [
        ("aks-user-31874622-vmss000000", "Ready", "10.224.0.4"),
        ("aks-user-31874622-vmss000001", "Ready", "10.224.0.5"),
        ("aks-user-31874622-vmss000002", "Ready", "10.224.0.6"),
    ]
    k8s = namespace(ns, nodes, [ca, web], seed=484)
    sig = "Liveness probe failed: HTTP probe failed with statuscode: 429"
    probes = "    Liveness:     http-get http://:8080/health delay=10s timeout=2s period=10s #success=1 #failure=3\n    Readiness:    http-get http://:8080/health delay=5s timeout=2s period=5s #success=1 #failure=2\n"
    for sfx, restarts, ready in (
        ("b2rxk", 6, False),
        ("m4tzc", 7, False),
        ("h7wqm", 5, True),
    ):
        n = describe_pod(
            k8s,
            ns,
            ca,
            sfx,
            nodes,
            state=running(-40 if not ready else -300),
            started=-10800,
            ready=ready,
            restarts=restarts,
            probes=probes,
            events_rows=[
                (
                    "Warning",
                    "Unhealthy",
                    f"{30 if ready else 8}s (x{14 + restarts} over 24m)",
                    "kubelet",
                    sig,
                ),
                (
                    "Warning",
                    "Unhealthy",
                    f"{30 if ready else 6}s (x{31 + restarts} over 24m)",
                    "kubelet",
                    "Readiness probe failed: HTTP probe failed with statuscode: 429",
                ),
                (
                    "Normal",
                    "Killing",
                    "1m" if not ready else "6m",
                    "kubelet",
                    "Container catalog-api failed liveness probe, will be restarted",
                ),
            ],
        )
        k8s[f"kubectl logs {n} -n {ns} --previous --tail=1000"] = podlog(
            [
                (
                    -700,
                    "info: Microsoft.Hosting.Lifetime[14]\n      Now listening on: http://[::]:8080",
                ),
                (
                    -690,
                    "info: Microsoft.AspNetCore.Hosting.Diagnostics[2]\n      Request finished HTTP/1.1 GET http://10.244.1.37:8080/api/products?category=shoes - 200 18211 application/json 41.2210ms",
                ),
                (
                    -75,
                    "info: Microsoft.AspNetCore.Hosting.Diagnostics[2]\n      Request finished HTTP/1.1 GET http://10.244.1.37:8080/health - 429 0 - 0.2114ms",
                ),
                (
                    -70,
                    "info: Microsoft.AspNetCore.Hosting.Diagnostics[2]\n      Request finished HTTP/1.1 GET http://10.244.1.37:8080/health - 429 0 - 0.1873ms",
                ),
                (
                    -61,
                    "info: Microsoft.Hosting.Lifetime[0]\n      Application is shutting down...",
                ),
            ]
        )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            ("24m", "Warning", "Unhealthy", f"Pod/{pod_name(ca, 'm4tzc')}", sig),
            (
                "23m",
                "Normal",
                "Killing",
                f"Pod/{pod_name(ca, 'm4tzc')}",
                "Container catalog-api failed liveness probe, will be restarted",
            ),
            ("1m", "Warning", "Unhealthy", f"Pod/{pod_name(ca, 'b2rxk')}", sig),
            (
                "1m",
                "Normal",
                "Killing",
                f"Pod/{pod_name(ca, 'b2rxk')}",
                "Container catalog-api failed liveness probe, will be restarted",
            ),
        ]
    )
    cpods = pods_of(ca)
    evs = [
        ev(
            "azure-pipelines",
            "info",
            "Release-311 catalog-api 7.4.0 to prod: succeeded (PR 1893 'add rate limiting: FixedWindowLimiter PermitLimit=400, Window=1s, QueueLimit=0, GlobalLimiter')",
            at=-10900,
        ),
        ev(
            "catalog-api",
            "info",
            "info: Microsoft.AspNetCore.Hosting.Diagnostics[2]\n      Request finished HTTP/1.1 GET http://10.244.1.37:8080/health - 429 0 - 0.{ms}ms",
            **every(start, -3, 9),
            pods=cpods,
        ),
        ev(
            "catalog-api",
            "warn",
            "warn: Catalog.Api.RateLimiting[0]\n      Global limiter rejected {n} requests in the last 10s (PermitLimit 400)",
            **every(start, -5, 10),
            pods=cpods,
        ),
        ev(
            "shop-web",
            "error",
            "[next] Error: catalog-api GET /api/products failed: 503 Service Unavailable\n    at fetchProducts (/app/.next/server/chunks/612.js:1:20431)",
            **every(start + 60, -2, 5),
            pods=pods_of(web),
        ),
        ev(
            "shop-web",
            "info",
            "shop-web 5.30.1 deployed (new header)",
            at=-3300,
            pods=pods_of(web),
        ),
        ev(
            "catalog-api",
            "error",
            "fail: Microsoft.EntityFrameworkCore.Database.Connection[20004]\n      An error occurred using the connection to database 'catalog' on server 'sql-northwind-prod.database.windows.net'.",
            **every(-9800, -9500, 60),
            pods=cpods,
        ),
        ev(
            "marketing-mailer",
            "info",
            "campaign 'winter-sale-lunch' sent to 412{n} recipients",
            at=start - 300,
        ),
        ev(
            "search-indexer",
            "warn",
            "Azure AI Search throttled indexing batch (503), retry in {n}s",
            **every(-7000, -100, 400),
        ),
    ]
    return kube_case(
        seed=484,
        start=start,
        inc=incident("Shop product pages intermittently down", "shop", start),
        exp=expected(
            "application",
            [
                "deployment/catalog-api",
                "catalog-api",
                "catalog-api 7.4.0",
                "rate limiter",
                "UseRateLimiter",
                "/health",
            ],
            sig,
            "catalog-api 7.4.0 added a global fixed-window rate limiter (400 requests/s per pod, no queue) in front of every endpoint, including /health, which is both the liveness and the readiness probe. At the lunchtime peak (after the winter-sale mail) the limiter rejects the kubelet's probes with 429, so pods are marked unready and restarted, the remaining pods receive more traffic and reject sooner. shop-web's 503 errors and release, the old database connection error and the search indexer's throttling are not the cause; the campaign is only the trigger.",
            [
                f"catalog-api pods: {sig}",
                "catalog-api log: GET /health - 429",
                "Release-311: FixedWindowLimiter PermitLimit=400 GlobalLimiter",
            ],
            "Exempt health endpoints from the limiter (DisableRateLimiting on MapHealthChecks) or partition it per client, and roll back to 7.3.x until then.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "shop-web",
                pods_of(web),
                ["GET /products/{n} 200 {ms}ms", "GET / 200 {ms}ms"],
                8,
            )
        ],
        evs=evs,
        services=[
            svc(
                "catalog-api",
                1300,
                {"429": (0.0, 0.22), "503": (0.0, 0.04)},
                (0.04, 0.05),
                change_at=start,
            ),
            svc(
                "shop-web",
                220,
                {"500": (0.0005, 0.0005), "503": (0.0, 0.08)},
                (0.15, 0.2),
                change_at=start + 60,
            ),
        ],
        gauges=[
            gauge(
                "kube_pod_container_status_restarts_total",
                {"namespace": ns, "container": "catalog-api"},
                0,
                22,
                start + 300,
            )
        ],
        books={
            "catalog-503.md": runbook(
                "catalog-api returning 503 / restarting",
                "catalog-api restarts under load are caused by Azure SQL DTU exhaustion: check the DTU chart, scale the database to the next tier and restart catalog-api.",
            )
        },
    )


# =================================================================================================
# 5. Infrastructure / node: change CHG-8812 powered off the old NetApp filer `filer-old`
#    (10.61.40.12) after "all shares migrated". report-export still mounts /exports from it (hard
#    NFS mount). On the node running both report-export pods, processes stuck in D state on the
#    mount make the container runtime's status calls hang: PLEG is not healthy, the node flaps
#    NotReady, and everything on it (a backoffice-api replica too) is evicted; the replacement
#    report-export pods hang in ContainerCreating on the same mount. The incident says "backoffice".
# =================================================================================================


@scenario("nfs-filer-retired-pleg-unhealthy-node")
def nfs_filer_retired_pleg_unhealthy_node() -> dict[str, Any]:
    start = -1500
    ns = "backoffice"
    bad = NODES_IAD[2][0]
    nodes = [
        tuple(n) if i != 2 else (n[0], "NotReady", n[2])
        for i, n in enumerate(NODES_IAD)
    ]
    rx = app(
        "report-export",
        image="registry.internal.example/backoffice/report-export:4.3.1",
        port=8080,
        rs="69c8b7d5f",
        cluster_ip="10.100.30.18",
        pods=[
            ("j2wfn", "1/1", "Terminating", "0", "3d", 2),
            ("r8kqt", "1/1", "Terminating", "0", "3d", 2),
            ("c4mzx", "0/1", "ContainerCreating", "0", "19m", 0),
            ("x7dlp", "0/1", "ContainerCreating", "0", "19m", 1),
        ],
        desired=2,
    )
    api = app(
        "backoffice-api",
        image="registry.internal.example/backoffice/backoffice-api:19.0.2",
        port=8080,
        rs="5b7d9c8f6",
        cluster_ip="10.100.30.10",
        pods=[
            ("a3vgh", "1/1", "Running", "0", "1d", 0),
            ("f6nps", "1/1", "Running", "0", "1d", 1),
            ("q1tyr", "1/1", "Terminating", "0", "1d", 2),
            ("z5ckw", "1/1", "Running", "0", "19m", 0),
        ],
        desired=3,
    )
    k8s = namespace(ns, nodes, [rx, api], seed=485)
    sig = "PLEG is not healthy"
    pleg = "PLEG is not healthy: pleg was last seen active 3m24.187s ago; threshold is 3m0s"
    k8s[f"kubectl describe nodes {bad}"] = node_describe(
        bad,
        NODES_IAD[2][2],
        conditions={"Ready": ("False", "-1200", "KubeletNotReady", pleg)},
        taints="node.kubernetes.io/not-ready:NoExecute",
        pods_rows=[
            (ns, pod_name(rx, "j2wfn")),
            (ns, pod_name(rx, "r8kqt")),
            (ns, pod_name(api, "q1tyr")),
        ],
        events_text=(
            "  Type     Reason        Age                 From     Message\n"
            "  ----     ------        ----                ----     -------\n"
            "  Normal   NodeNotReady  20m (x4 over 24m)   kubelet  Node "
            + bad
            + " status is now: NodeNotReady\n"
            "  Normal   NodeReady     22m (x3 over 24m)   kubelet  Node "
            + bad
            + " status is now: NodeReady\n"
        ),
    )
    mount = 'MountVolume.SetUp failed for volume "exports" : mount failed: exit status 32\nMounting command: mount\nMounting arguments: -t nfs -o hard,nfsvers=3 10.61.40.12:/vol/exports /var/lib/kubelet/pods/7d1c…/volumes/kubernetes.io~nfs/exports\nOutput: mount.nfs: Connection timed out'
    for sfx in ("c4mzx", "x7dlp"):
        describe_pod(
            k8s,
            ns,
            rx,
            sfx,
            nodes,
            state="    State:          Waiting\n      Reason:       ContainerCreating\n",
            started=-1140,
            status="Pending",
            events_rows=[
                sched(
                    ns, pod_name(rx, sfx), nodes[0 if sfx == "c4mzx" else 1][0], "19m"
                ),
                ("Warning", "FailedMount", "2m (x8 over 17m)", "kubelet", mount),
            ],
        )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "24m",
                "Normal",
                "NodeNotReady",
                f"Pod/{pod_name(rx, 'j2wfn')}",
                "Node is not ready",
            ),
            (
                "19m",
                "Normal",
                "TaintManagerEviction",
                f"Pod/{pod_name(api, 'q1tyr')}",
                "Marking for deletion Pod backoffice/" + pod_name(api, "q1tyr"),
            ),
            (
                "19m",
                "Normal",
                "SuccessfulCreate",
                f"ReplicaSet/report-export-{rx['rs']}",
                f"Created pod: {pod_name(rx, 'c4mzx')}",
            ),
            (
                "2m",
                "Warning",
                "FailedMount",
                f"Pod/{pod_name(rx, 'x7dlp')}",
                mount.split("\n")[0],
            ),
        ]
    )
    evs = [
        ev(
            "servicenow",
            "info",
            "CHG-8812 'decommission filer-old (10.61.40.12) - all shares migrated to fsx-prod' state Implemented, filer powered off",
            at=start - 400,
        ),
        ev(
            "kernel",
            "warn",
            "nfs: server 10.61.40.12 not responding, still trying",
            **every(start - 360, -30, 120),
            labels={"host": bad},
        ),
        ev(
            "kernel",
            "error",
            'INFO: task report-export:48213 blocked for more than 122 seconds.\n      Not tainted 6.1.112-124.190.amzn2023.x86_64 #1\n"echo 0 > /proc/sys/kernel/hung_task_timeout_secs" disables this message.',
            **every(start - 200, -60, 240),
            labels={"host": bad},
        ),
        ev(
            "kubelet",
            "warn",
            f'I1207 09:{{n}}:04.118203    3411 kubelet.go:2431] "Skipping pod synchronization" err="{pleg}"',
            **every(start, -20, 60),
            labels={"host": bad},
        ),
        ev(
            "kubelet",
            "warn",
            'E1207 09:{n}:41.902211    3411 remote_runtime.go:633] "Status from runtime service failed" err="rpc error: code = DeadlineExceeded desc = context deadline exceeded"',
            **every(start, -40, 90),
            labels={"host": bad},
        ),
        ev(
            "backoffice-web",
            "error",
            '10.61.2.15 - - [07/Dec/2026:09:{n}:11 +0000] "GET /api/reports/monthly HTTP/1.1" 502 157 "-" "Mozilla/5.0" upstream_response_time=60.001',
            **every(start + 60, -3, 8),
        ),
        ev(
            "backoffice-api",
            "error",
            "2026-12-07 09:{n}:14.221 ERROR 1 --- [nio-8080-exec-{n}] c.e.b.reports.ExportClient : export request failed: java.net.SocketTimeoutException: Read timed out (report-export.backoffice.svc:8080)",
            **every(start + 30, -5, 15),
            pods=[pod_name(api, s) for s in ("a3vgh", "f6nps", "z5ckw")],
        ),
        ev(
            "backoffice-api",
            "info",
            "backoffice-api 19.0.2 deployed (CSV column order)",
            at=-4400,
            pods=[pod_name(api, s) for s in ("a3vgh", "f6nps")],
        ),
        ev(
            "fsx-prod",
            "warn",
            "FSx for ONTAP fsx-prod: SSD usage 81% of capacity",
            **every(-7000, -300, 1800),
        ),
        ev(
            "backoffice-api",
            "error",
            "HikariPool-1 - Connection is not available, request timed out after 30000ms.",
            **every(-10400, -10000, 60),
            pods=[pod_name(api, s) for s in ("a3vgh", "f6nps")],
        ),
    ]
    return kube_case(
        seed=485,
        start=start,
        inc=incident("Backoffice reports page errors", "backoffice", start),
        exp=expected(
            "platform",
            [
                f"node/{bad}",
                bad,
                "filer-old",
                "10.61.40.12",
                "nfs",
                "report-export",
                "CHG-8812",
            ],
            sig,
            f"CHG-8812 powered off the old filer 10.61.40.12 although report-export still mounts /exports from it (hard NFS mount). On {bad}, which ran both report-export pods, processes hang in D state on the mount, the container runtime's status calls time out and the kubelet reports PLEG is not healthy: the node flaps NotReady, its pods (a backoffice-api replica too) are evicted, and the replacement report-export pods hang mounting the same share. backoffice-web's 502s and backoffice-api's timeouts and release, the FSx capacity warning and the old Hikari timeout are not the cause.",
            [
                f"node {bad}: Ready False KubeletNotReady {pleg}",
                "kernel: nfs: server 10.61.40.12 not responding, still trying",
                "CHG-8812 filer-old powered off",
                "report-export FailedMount: mount.nfs: Connection timed out",
            ],
            "Point report-export's volume at the migrated share on fsx-prod (or power the filer back on), then reboot the node to clear the hung processes.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "backoffice-api",
                [pod_name(api, s) for s in ("a3vgh", "f6nps")],
                [
                    "GET /api/orders/{n} 200 {ms}ms",
                    "GET /api/customers?page={n} 200 {ms}ms",
                ],
                8,
            )
        ],
        evs=evs,
        services=[
            svc(
                "backoffice-api",
                25,
                {"500": (0.001, 0.12)},
                (0.09, 0.4),
                change_at=start + 30,
            ),
            svc("report-export", 2, {"504": (0.0, 0.6)}, (1.2, 30.0), change_at=start),
        ],
        gauges=[
            gauge(
                "kube_node_status_condition",
                {"node": bad, "condition": "Ready", "status": "true"},
                1,
                0,
                start,
            )
        ],
        books={
            "reports-502.md": runbook(
                "Backoffice reports failing",
                "Report 502s come from backoffice-api's database pool: check HikariCP active connections and raise maximumPoolSize, then restart backoffice-api.",
            )
        },
    )


# =================================================================================================
# 6. Service routing: the mesh routes rates through a VirtualService to DestinationRule subset `v2`
#    (`version: v2`). The rates chart 2.0 took the `version` label from appVersion, so the new pods
#    are labelled `version=2.0.0`; when the canary was promoted (VirtualService 100 % to v2) the
#    subset had no endpoints and every sidecar answers 503 UH. Istio objects are not in the
#    kubernetes server: their traces are Envoy access logs, istiod and Argo CD lines and pod labels.
#    The incident says "prices".
# =================================================================================================


@scenario("mesh-subset-label-from-app-version")
def mesh_subset_label_from_app_version() -> dict[str, Any]:
    start = -1300
    ns = "fx"
    rates = app(
        "rates",
        image="ghcr.io/brightpay/rates:2.0.0",
        port=8080,
        rs="7d5c9b8f6",
        cluster_ip="10.100.55.31",
        labels="app=rates,pod-template-hash=7d5c9b8f6,security.istio.io/tlsMode=istio,service.istio.io/canonical-name=rates,version=2.0.0",
        pods=[
            ("c6tqv", "2/2", "Running", "0", "52m", 0),
            ("k1rzw", "2/2", "Running", "0", "52m", 1),
            ("p9mhx", "2/2", "Running", "0", "52m", 2),
        ],
    )
    pw = app(
        "pricing-web",
        image="ghcr.io/brightpay/pricing-web:11.3.0",
        port=8080,
        rs="5f8b6c7d9",
        cluster_ip="10.100.55.12",
        labels="app=pricing-web,pod-template-hash=5f8b6c7d9,security.istio.io/tlsMode=istio,version=v11",
        pods=[
            ("d4wln", "2/2", "Running", "0", "2d", 1),
            ("s2kbf", "2/2", "Running", "0", "2d", 2),
        ],
    )
    k8s = namespace(ns, NODES_FRA, [rates, pw], seed=486)
    sig = "outbound|8080|v2|rates.fx.svc.cluster.local"
    k8s[f"kubectl get endpoints -n {ns}"] = table(
        [
            ["NAME", "ENDPOINTS", "AGE"],
            ["pricing-web", "10.70.2.41:8080,10.70.3.19:8080", "2y"],
            ["rates", "10.70.1.88:8080,10.70.2.90:8080,10.70.3.57:8080", "2y"],
        ]
    )
    line = (
        '[2026-12-07T09:{n}:10.{ms}Z] "GET /v2/rates?base=EUR&quote=USD HTTP/1.1" 503 UH no_healthy_upstream - "-" 0 19 0 - "-" '
        '"Go-http-client/1.1" "4b8e{n}-77c1-4f0e-9b1a-2f5d8c{ms}" "rates.fx.svc.cluster.local:8080" "-" '
        + sig
        + " - 10.100.55.31:8080 10.70.2.41:{n} - -"
    )
    evs = [
        ev(
            "argocd",
            "info",
            "application rates synced to chart 2.0.0: Deployment rates (labels: version={{ .Chart.AppVersion }}), Health Healthy",
            at=-3200,
        ),
        ev(
            "argocd",
            "info",
            "application fx-routing synced: VirtualService rates route weights v1 0 / v2 100 (promote canary, MR !77), DestinationRule rates unchanged (subsets v1: version=v1, v2: version=v2)",
            at=start - 30,
        ),
        ev("istio-proxy", "warn", line, **every(start, -1, 3), pods=pods_of(pw)),
        ev(
            "istiod",
            "info",
            "2026-12-07T09:{n}:02.114Z\tinfo\tads\tCDS: PUSH request for node pricing-web-5f8b6c7d9-d4wln.fx resources:{n} size:1{ms}kB cached:{n}/{n}",
            **every(start, -30, 120),
        ),
        ev(
            "istiod",
            "warn",
            "2026-12-07T09:{n}:02.118Z\twarn\tads\tcluster outbound|8080|v2|rates.fx.svc.cluster.local has 0 endpoints (subset selector version=v2)",
            **every(start, -60, 300),
        ),
        ev(
            "pricing-web",
            "error",
            '{"level":"error","ts":"2026-12-07T09:{n}:10Z","msg":"rates lookup failed","err":"GET http://rates.fx.svc.cluster.local:8080/v2/rates: 503 Service Unavailable: no healthy upstream"}',
            **every(start + 2, -1, 3),
            pods=pods_of(pw),
        ),
        ev(
            "pricing-web",
            "info",
            '{"level":"info","msg":"pricing-web 11.3.0 started (bulk quote export)"}',
            at=-6000,
            pods=pods_of(pw),
        ),
        ev(
            "rates",
            "info",
            '{"level":"info","msg":"refreshed 168 currency pairs from ECB","took_ms":{ms}}',
            **every(-3100, -10, 300),
            pods=pods_of(rates),
        ),
        ev(
            "istio-proxy",
            "warn",
            '[2026-12-07T06:{n}:02.001Z] "POST /v1/quotes HTTP/2" 504 UT response_timeout - "-" 412 24 15000 - "-" "grpc-go/1.66" "-" "quotes.fx:9090" "10.70.1.22:9090" outbound|9090||quotes.fx.svc.cluster.local',
            **every(-10300, -9900, 60),
        ),
        ev(
            "ledger-sync",
            "warn",
            'level=warn msg="kafka consumer lag {n}" topic=ledger.entries',
            **every(-7000, -40, 400),
        ),
    ]
    return kube_case(
        seed=486,
        start=start,
        inc=incident(
            "Prices not loading",
            "prices",
            start,
            ["app shows 'price unavailable' for every product"],
        ),
        exp=expected(
            "connect",
            [
                "destinationrule/rates",
                "virtualservice/rates",
                "rates",
                "service/rates",
                "subset v2",
                "version=2.0.0",
            ],
            sig,
            "The fx mesh routes rates through a VirtualService to DestinationRule subset v2, which selects pods labelled version=v2. The rates chart 2.0 sets the version label from appVersion (version=2.0.0), so when the canary was promoted (100 % to v2) the subset matched no pod: the cluster outbound|8080|v2|rates has no endpoints and every sidecar answers 503 UH no_healthy_upstream, although the Service has three healthy endpoints. pricing-web's errors and release, the old quotes timeouts and the ledger lag are not the cause.",
            [
                f"pricing-web sidecar: 503 UH no_healthy_upstream {sig}",
                "istiod: cluster outbound|8080|v2|rates has 0 endpoints (subset selector version=v2)",
                "rates pods labelled version=2.0.0",
            ],
            "Route the VirtualService back to a subset that matches (or relabel the pods version=v2 / change the DestinationRule subset to version=2.0.0); add an istioctl analyze step to the chart pipeline.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "pricing-web",
                pods_of(pw),
                ["GET /api/products/{n}/price 200 {ms}ms", "GET /healthz 200 {ms}ms"],
                8,
            )
        ],
        evs=evs,
        services=[
            svc(
                "pricing-web",
                140,
                {"500": (0.0003, 0.0003), "503": (0.0, 0.93)},
                (0.03, 0.01),
                change_at=start,
            ),
            svc("rates", 150, {"500": (0.0002, 0.0002)}, (0.01, 0.01)),
        ],
        gauges=[
            gauge(
                "envoy_cluster_membership_healthy", {"cluster_name": sig}, 3, 0, start
            )
        ],
        books={
            "prices-missing.md": runbook(
                "Prices unavailable",
                "'price unavailable' means the ECB feed is stale: check rates' refresh log and, if ECB is down, switch RATES_SOURCE to the backup provider.",
            )
        },
    )


# =================================================================================================
# 7. DNS: orders-api moved this morning to the new cluster prod-euw1-b (its own VPC,
#    vpc-0b7e41c2d9a3f5e18); traffic is split 50/50 between the clusters by weighted records. The
#    Route 53 private hosted zone db.internal.example (the databases' names) is associated with the
#    old cluster's VPC only, so from the new VPC the resolver answers NXDOMAIN for
#    orders-db.db.internal.example: the new pods never become ready and half the requests fail. The
#    incident says "orders".
# =================================================================================================


@scenario("private-zone-not-associated-new-cluster-vpc")
def private_zone_not_associated_new_cluster_vpc() -> dict[str, Any]:
    start = -2100
    ns = "orders"
    oa = app(
        "orders-api",
        image="123456789012.dkr.ecr.eu-west-1.amazonaws.com/orders-api:31.2.0",
        port=8000,
        rs="64b9d8c7f",
        cluster_ip="172.20.91.14",
        pods=[
            ("b1mzq", "0/1", "Running", "0", "38m", 0),
            ("g8xtw", "0/1", "Running", "0", "38m", 1),
            ("r3kvn", "0/1", "Running", "0", "38m", 2),
        ],
    )
    k8s = namespace(ns, NODES_DUB, [oa], seed=487)
    sig = 'could not translate host name "orders-db.db.internal.example" to address: Name or service not known'
    for sfx in ("b1mzq", "g8xtw"):
        n = describe_pod(
            k8s,
            ns,
            oa,
            sfx,
            NODES_DUB,
            state=running(-2280),
            started=-2280,
            probes="    Readiness:    http-get http://:8000/ready delay=5s timeout=2s period=10s #success=1 #failure=3\n",
            events_rows=[
                (
                    "Warning",
                    "Unhealthy",
                    "20s (x212 over 37m)",
                    "kubelet",
                    "Readiness probe failed: HTTP probe failed with statuscode: 503",
                )
            ],
        )
        k8s[f"kubectl logs {n} -n {ns} --tail=1000"] = podlog(
            [
                (
                    -2270,
                    "[2026-12-07 08:53:12 +0000] [1] [INFO] Starting gunicorn 23.0.0",
                ),
                (
                    -2269,
                    "[2026-12-07 08:53:13 +0000] [7] [INFO] Booting worker with pid: 7",
                ),
                (-60, "ERROR orders.health readiness: database check failed"),
                (-60, "psycopg2.OperationalError: " + sig),
                (-30, "psycopg2.OperationalError: " + sig),
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
                "coredns-7c9f8d6b5-hx2lq",
                "1/1",
                "Running",
                "0",
                "6h",
                "10.52.1.14",
                NODES_DUB[0][0],
                "<none>",
                "<none>",
            ],
            [
                "coredns-7c9f8d6b5-w9kmd",
                "1/1",
                "Running",
                "0",
                "6h",
                "10.52.2.22",
                NODES_DUB[1][0],
                "<none>",
                "<none>",
            ],
        ]
    )
    evs = [
        ev(
            "terraform",
            "info",
            "module.eks_prod_euw1_b: Apply complete! Resources: 61 added, 0 changed, 0 destroyed. (vpc-0b7e41c2d9a3f5e18 10.52.0.0/16; route53 zones unchanged)",
            at=-7000,
        ),
        ev(
            "route53",
            "info",
            "ChangeResourceRecordSets api.shop.example weighted: prod-euw1-a 50, prod-euw1-b 50 (CHG-5120 cluster migration wave 3: orders)",
            at=start,
        ),
        ev(
            "coredns",
            "info",
            '[INFO] 10.52.{n}.19:4{n} - {n} "A IN orders-db.db.internal.example. udp 58 false 1232" NXDOMAIN qr,rd,ra 148 0.00{n}s',
            **every(start - 200, -2, 10),
        ),
        ev(
            "coredns",
            "info",
            '[INFO] 10.52.{n}.19:4{n} - {n} "A IN sqs.eu-west-1.amazonaws.com. udp 56 false 1232" NOERROR qr,rd,ra 116 0.0013s',
            **every(start - 200, -4, 40),
        ),
        ev(
            "orders-api",
            "error",
            "psycopg2.OperationalError: " + sig,
            **every(start - 200, -3, 10),
            pods=pods_of(oa),
            labels={"cluster": "prod-euw1-b"},
        ),
        ev(
            "api-edge",
            "error",
            '{"level":"error","route":"orders","cluster":"prod-euw1-b","status":503,"body":"no healthy upstream","path":"/v3/orders/{n}"}',
            **every(start, -1, 3),
        ),
        ev(
            "orders-api",
            "info",
            "GET /v3/orders/{n} 200 {ms}ms",
            **every(-7000, -2, 12),
            labels={"cluster": "prod-euw1-a"},
        ),
        ev(
            "orders-api",
            "info",
            "orders-api 31.2.0 released (invoice address edit)",
            at=-5400,
            labels={"cluster": "prod-euw1-a"},
        ),
        ev(
            "payments-gw",
            "error",
            "Adyen /authorise timeout after 10000 ms (pspReference none)",
            **every(-10200, -9800, 60),
        ),
        ev(
            "search-api",
            "warn",
            "OpenSearch slow query {ms}0 ms index=orders-history",
            **every(-7000, -100, 500),
        ),
    ]
    return kube_case(
        seed=487,
        start=start,
        inc=incident("Orders pages erroring for some customers", "orders", start),
        exp=expected(
            "dns",
            [
                "db.internal.example",
                "private hosted zone",
                "vpc-0b7e41c2d9a3f5e18",
                "orders-db.db.internal.example",
                "prod-euw1-b",
                "route53",
            ],
            sig,
            "orders-api now runs half its traffic on the new cluster prod-euw1-b in VPC vpc-0b7e41c2d9a3f5e18. The Route 53 private hosted zone db.internal.example is associated only with the old cluster's VPC, so from the new VPC orders-db.db.internal.example does not exist (CoreDNS forwards to the VPC resolver and gets NXDOMAIN): the new pods cannot reach the database, never become ready, and the edge answers 503 for the half of requests weighted to prod-euw1-b. orders-api's release, the old Adyen timeout and the search latency are not the cause.",
            [
                f"orders-api (prod-euw1-b): psycopg2.OperationalError: {sig}",
                'CoreDNS: "A IN orders-db.db.internal.example." NXDOMAIN',
                "Route 53 weighted 50/50 to prod-euw1-b (CHG-5120)",
            ],
            "Set the weight of prod-euw1-b to 0, associate the private hosted zone db.internal.example with vpc-0b7e41c2d9a3f5e18, then shift traffic back.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "api-edge",
                ["api-edge-0", "api-edge-1"],
                ["route=orders cluster=prod-euw1-a GET /v3/orders/{n} 200 {ms}ms"],
                8,
            )
        ],
        evs=evs,
        services=[
            svc("api-edge", 200, {"503": (0.0002, 0.48)}, (0.06, 0.05), change_at=start)
        ],
        gauges=[
            gauge(
                "coredns_dns_responses_total_nxdomain_rate",
                {"server": "dns://:53", "cluster": "prod-euw1-b"},
                0.2,
                11.0,
                start - 200,
            )
        ],
        books={
            "orders-503.md": runbook(
                "orders 503 at the edge",
                "Edge 503s on orders mean orders-api pods are failing readiness because of database connection exhaustion: check RDS connections and restart orders-api pods one at a time.",
            )
        },
    )


# =================================================================================================
# 8. Network policy: PR platform#402 ("zero-trust egress for controllers") gave the
#    external-secrets namespace a default-deny egress policy plus `allow-controller-egress`, which
#    admits 443 to the kubernetes Service address 10.100.0.1/32. The CNI enforces policy after the
#    Service is translated to the API server's real endpoints, so the controller's calls to the API
#    time out; it keeps running but syncs nothing. At 09:00 Secrets Manager rotated the payments
#    database password (the trigger); the Kubernetes Secret is never updated, and payments-api's new
#    connections fail. The incident says "payments".
# =================================================================================================


@scenario("netpol-apiserver-service-ip-blocks-secret-sync")
def netpol_apiserver_service_ip_blocks_secret_sync() -> dict[str, Any]:
    start = -1800
    ns = "external-secrets"
    es = app(
        "external-secrets",
        image="ghcr.io/external-secrets/external-secrets:v0.10.4",
        port=8080,
        rs="6d8f7c9b5",
        service=False,
        pods=[("q4nwx", "1/1", "Running", "0", "20h", 1)],
    )
    k8s = namespace(ns, NODES_IAD, [es], seed=488)
    sig = "dial tcp 10.100.0.1:443: i/o timeout"
    k8s[f"kubectl get networkpolicies -n {ns}"] = table(
        [
            ["NAME", "POD-SELECTOR", "AGE"],
            ["allow-controller-egress", "<none>", "2h"],
            ["default-deny-egress", "<none>", "2h"],
        ]
    )
    k8s[f"kubectl describe networkpolicies allow-controller-egress -n {ns}"] = (
        "Name:         allow-controller-egress\n"
        f"Namespace:    {ns}\n"
        "Labels:       app.kubernetes.io/managed-by=argocd\n"
        "Annotations:  <none>\n"
        "Spec:\n"
        "  PodSelector:     <none> (Allowing the specific traffic to all pods in this namespace)\n"
        "  Not affecting ingress traffic\n"
        "  Allowing egress traffic:\n"
        "    To Port: 443/TCP\n"
        "    To:\n"
        "      IPBlock:\n"
        "        CIDR: 10.100.0.1/32\n"
        "        Except: \n"
        "    To:\n"
        "      IPBlock:\n"
        "        CIDR: 0.0.0.0/0\n"
        "        Except: 10.0.0.0/8\n"
        "    ----------\n"
        "    To Port: 53/UDP\n"
        "    To Port: 53/TCP\n"
        "    To:\n"
        "      NamespaceSelector: kubernetes.io/metadata.name=kube-system\n"
        "      PodSelector: k8s-app=kube-dns\n"
        "  Policy Types: Egress\n"
    )
    k8s["kubectl get endpoints -n default"] = table(
        [
            ["NAME", "ENDPOINTS", "AGE"],
            ["kubernetes", "10.61.20.14:443,10.61.44.201:443", "3y"],
        ]
    )
    n = pod_name(es, "q4nwx")
    reflector = (
        'E1207 09:{n}:31.220417       1 reflector.go:158] "Unhandled Error" err="k8s.io/client-go@v0.31.1/tools/cache/reflector.go:243: '
        'Failed to watch *v1beta1.ExternalSecret: failed to list *v1beta1.ExternalSecret: Get \\"https://10.100.0.1:443/apis/external-secrets.io/v1beta1/externalsecrets?limit=500&resourceVersion=0\\": '
        + sig
        + '" logger="UnhandledError"'
    )
    k8s[f"kubectl logs {n} -n {ns} --tail=1000"] = podlog(
        [
            (-600, reflector.replace("{n}", "41")),
            (-300, reflector.replace("{n}", "46")),
            (-20, reflector.replace("{n}", "51")),
        ]
    )
    pay = [
        "payments-api-7f9c-4kq2p",
        "payments-api-7f9c-9wz8d",
        "payments-api-7f9c-h3mtx",
    ]
    evs = [
        ev(
            "argocd",
            "info",
            "application platform-netpol synced (PR platform#402 'zero-trust egress for controllers'): NetworkPolicy external-secrets/default-deny-egress created, external-secrets/allow-controller-egress created",
            at=-7200,
        ),
        ev("external-secrets", "error", reflector, **every(-7100, -20, 300), pods=[n]),
        ev(
            "secretsmanager",
            "info",
            '{"eventName":"RotationSucceeded","secretId":"prod/payments/db","versionStage":"AWSCURRENT","rotationLambda":"SecretsManagerPostgresRotationSingleUser"}',
            at=start,
        ),
        ev(
            "payments-api",
            "error",
            'E, [2026-12-07T09:{n}:03.112 #1] ERROR -- : ActiveRecord::ConnectionNotEstablished (connection to server at "10.61.33.8", port 5432 failed: FATAL:  password authentication failed for user "payments_app")',
            **every(start + 120, -2, 6),
            pods=pay,
        ),
        ev(
            "postgres",
            "error",
            '2026-12-07 09:{n}:03.101 UTC [{n}] FATAL:  password authentication failed for user "payments_app"\n2026-12-07 09:{n}:03.101 UTC [{n}] DETAIL:  Connection matched file "/rdsdbdata/config/pg_hba.conf" line 13: "host all all 0.0.0.0/0 md5"',
            **every(start + 120, -2, 6),
        ),
        ev(
            "payments-api",
            "info",
            "I, [2026-12-07T08:{n}:11.001 #1]  INFO -- : payments-api 6.18.0 booted (Puma 6.4.3, 5 threads)",
            at=-5100,
            pods=pay,
        ),
        ev(
            "checkout",
            "error",
            "payment step failed: payments-api 500 (request_id {n})",
            **every(start + 150, -1, 4),
        ),
        ev(
            "payments-api",
            "error",
            "Stripe::APIConnectionError: Unexpected error communicating with Stripe. (Net::ReadTimeout)",
            **every(-10100, -9700, 60),
            pods=pay,
        ),
        ev(
            "karpenter",
            "info",
            '{"level":"INFO","message":"disrupting nodeclaim(s) via delete, terminating 1 nodes (2 pods) ip-10-61-3-140","reason":"underutilized"}',
            at=start + 60,
        ),
    ]
    return kube_case(
        seed=488,
        start=start,
        inc=incident("Payments failing", "payments", start),
        exp=expected(
            "connect",
            [
                "networkpolicy/allow-controller-egress",
                "allow-controller-egress",
                "default-deny-egress",
                "external-secrets",
                "deployment/external-secrets",
                "10.100.0.1/32",
            ],
            sig,
            "PR platform#402 gave the external-secrets namespace a default-deny egress policy; allow-controller-egress admits 443 only to the kubernetes Service address 10.100.0.1/32. The CNI applies policy after the Service is translated to the API server's real endpoints (10.61.20.14, 10.61.44.201), so every call of the controller to the API times out and no ExternalSecret has been synced since. Secrets Manager rotated the payments database password 30 minutes ago (the trigger, a routine rotation); the Kubernetes Secret still has the old one and payments-api's new connections are refused. payments-api's and checkout's errors, payments-api's release, karpenter's consolidation and the old Stripe timeout are not the cause.",
            [
                f"external-secrets: Failed to watch *v1beta1.ExternalSecret … {sig}",
                "allow-controller-egress: 443/TCP to IPBlock 10.100.0.1/32 only",
                "postgres: password authentication failed for user payments_app after RotationSucceeded",
            ],
            "Allow egress to the API server's endpoint addresses (or drop the egress policy for the controller), force-sync the payments ExternalSecret and restart payments-api.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "payments-api",
                pay,
                [
                    "I, [2026-12-07T09:00:00.000 #1]  INFO -- : Completed 200 OK in {ms}ms (ActiveRecord: 3.{n}ms) POST /v1/charges"
                ],
                8,
            )
        ],
        evs=evs,
        services=[
            svc(
                "payments-api",
                30,
                {"500": (0.0005, 0.35)},
                (0.18, 0.2),
                change_at=start + 120,
            )
        ],
        gauges=[
            gauge(
                "externalsecret_sync_calls_error",
                {"name": "payments-db", "namespace": "payments"},
                0,
                1,
                -7100,
            )
        ],
        books={
            "payments-db-auth.md": runbook(
                "payments-api: password authentication failed",
                "After a manual password change, run the rotation Lambda again and restart payments-api; if it persists, the RDS proxy cached the old secret: reboot the proxy.",
            )
        },
    )


# =================================================================================================
# 9. Third party limits us: merchandising started price-bulk-updater, a Python script that re-prices
#    the winter range through the Shopify Admin REST API with the same private-app token as
#    inventory-sync. Shopify's leaky bucket (40 requests, 2 / s per app and store) is now always
#    full: inventory-sync's stock updates get 429 "Exceeded 2 calls per second for api client" and
#    give up after their retries; the web shop oversells. netcheck sees 429 at the store's API.
#    The incident says "web shop".
# =================================================================================================


@scenario("shopify-bucket-shared-with-bulk-price-job")
def shopify_bucket_shared_with_bulk_price_job() -> dict[str, Any]:
    start = -2300
    sig = "Exceeded 2 calls per second for api client"
    inv = ["inventory-sync-0", "inventory-sync-1"]
    body = (
        '{"errors":"'
        + sig
        + '. Reduce request rates to resume uninterrupted service."}'
    )
    evs = [
        ev(
            "price-bulk-updater",
            "info",
            "2026-12-07 09:{n}:01,114 INFO price_bulk: starting run 'winter-26 markdown' 18,412 variants, token=shpat_****a91c, concurrency=4",
            at=start - 30,
        ),
        ev(
            "price-bulk-updater",
            "info",
            "2026-12-07 09:{n}:0{n},2{ms} INFO price_bulk: PUT /admin/api/2024-10/variants/4{n}.json 200 (X-Shopify-Shop-Api-Call-Limit: 40/40)",
            **every(start, -1, 4),
        ),
        ev(
            "inventory-sync",
            "error",
            '{"level":50,"time":17335{n},"pid":1,"msg":"shopify POST /admin/api/2024-10/inventory_levels/set.json failed after 5 retries","status":429,"retryAfter":"2.0","body":'
            + body
            + "}",
            **every(start + 20, -2, 7),
            pods=inv,
        ),
        ev(
            "inventory-sync",
            "warn",
            '{"level":40,"time":17335{n},"pid":1,"msg":"stock push backlog","pending":{n}}',
            **every(start + 300, -10, 60),
            pods=inv,
        ),
        ev(
            "storefront",
            "error",
            "OrderOversold: variant 4{n} sold with available=0 at warehouse WH-2 (order #{n})",
            **every(start + 900, -30, 120),
        ),
        ev(
            "storefront",
            "info",
            "storefront theme 'Dawn-custom' v88 published (snowfall banner)",
            at=-4200,
        ),
        ev(
            "erp-connector",
            "warn",
            "NAV webservice SOAP fault: timeout after 30s (ItemLedgerEntries)",
            **every(-7000, -200, 500),
        ),
        ev(
            "inventory-sync",
            "error",
            '{"level":50,"msg":"shopify POST /admin/api/2024-10/inventory_levels/set.json failed","status":502,"body":"Bad Gateway"}',
            **every(-10000, -9800, 60),
            pods=inv,
        ),
    ]
    spec = simple(
        489,
        start,
        incident("Web shop shows items in stock that we don't have", "web shop", start),
        expected(
            "http",
            [
                "shopify",
                "myshopify",
                "price-bulk-updater",
                "inventory-sync",
                "api call limit",
                "shpat_****a91c",
            ],
            sig,
            "price-bulk-updater, started by merchandising, re-prices 18,000 variants through the Shopify Admin API with the same app token as inventory-sync. Shopify's leaky bucket (40 requests, refilled at 2 a second per app and store) stays full, so inventory-sync's stock updates are answered 429 'Exceeded 2 calls per second for api client' and dropped after five retries; the shop keeps selling stock that is gone. The oversell errors, the theme publish, the ERP timeouts and the old 502 are not the cause.",
            [
                f"inventory-sync: 429 {sig}",
                "price-bulk-updater: X-Shopify-Shop-Api-Call-Limit: 40/40, same token shpat_****a91c",
                "storefront: OrderOversold",
            ],
            "Pause price-bulk-updater (or give it its own app / use the GraphQL bulk operation), then re-push stock levels from inventory-sync.",
        ),
        [
            bg(
                "storefront",
                ["storefront-web-1", "storefront-web-2"],
                ["GET /products/{n} 200 {ms}ms", "POST /cart/add 200 {ms}ms"],
                8,
            )
        ],
        evs,
        [svc("inventory-sync", 3, {"429": (0.0, 0.7)}, (0.3, 2.5), change_at=start)],
        [
            gauge(
                "shopify_api_bucket_used",
                {"store": "northwind-outfitters"},
                6,
                40,
                start,
            )
        ],
        {
            "stock-wrong.md": runbook(
                "Stock levels wrong on the shop",
                "Stock mismatches come from the ERP: if the NAV web service times out, restart erp-connector and run a full stock export.",
            )
        },
    )
    return with_netcheck(
        spec,
        [
            {
                "name": "shopify-admin",
                "url": "https://northwind-outfitters.myshopify.example/admin/api/2024-10/inventory_levels/set.json",
                "fault": {
                    "kind": "http_status",
                    "status": 429,
                    "body": body,
                    "headers": {
                        "Content-Type": "application/json",
                        "Retry-After": "2.0",
                        "X-Shopify-Shop-Api-Call-Limit": "40/40",
                    },
                },
            },
            {
                "name": "inventory-sync-health",
                "url": "http://inventory-sync.internal.example/healthz",
                "fault": {"kind": "ok"},
            },
        ],
        "shopify-admin",
        {
            "shopify-admin": {"failed_layer": "http", "reason": "http_429"},
            "inventory-sync-health": {"failed_layer": "none", "reason": None},
        },
    )


# =================================================================================================
# 10. Network delay: a Terraform refactor of the Fastly images service moved its `shield` to the
#     module's default, iad-va-us (was frankfurt-de). Every European cache miss now crosses the
#     Atlantic twice (FRA edge -> IAD shield -> Frankfurt origin): miss times 90 ms -> 420 ms, and the
#     app's 1.5 s image budget is blown for cold thumbnails. The origin is fast. The incident says
#     "mobile app".
# =================================================================================================


@scenario("cdn-shield-pop-moved-across-atlantic")
def cdn_shield_pop_moved_across_atlantic() -> dict[str, Any]:
    start = -2500
    sig = 'shield: "frankfurt-de" => "iad-va-us"'
    evs = [
        ev(
            "terraform",
            "info",
            '# fastly_service_vcl.images will be updated in-place\n  ~ resource "fastly_service_vcl" "images" {\n      ~ backend {\n          ~ '
            + sig
            + "\n        }\n    }\nApply complete! Resources: 0 added, 1 changed, 0 destroyed. (MR infra!611 'fastly: move services to module cdn/v3')",
            at=start - 120,
        ),
        ev(
            "fastly",
            "info",
            '{"timestamp":"2026-12-07T09:{n}:1{n}Z","pop":"FRA","shield":"IAD","cache_status":"MISS","url":"/i/p/{n}/w_480.webp","status":200,"origin_ms":3{ms},"time_elapsed_ms":4{ms}}',
            **every(start, -1, 10),
        ),
        ev(
            "fastly",
            "info",
            '{"timestamp":"2026-12-07T07:{n}:1{n}Z","pop":"FRA","shield":"FRA","cache_status":"MISS","url":"/i/p/{n}/w_480.webp","status":200,"origin_ms":4{n},"time_elapsed_ms":9{n}}',
            **every(-7000, start - 10, 30),
        ),
        ev(
            "fastly",
            "info",
            '{"timestamp":"2026-12-07T09:{n}:1{n}Z","pop":"FRA","shield":"IAD","cache_status":"HIT","url":"/i/p/{n}/w_160.webp","status":200,"time_elapsed_ms":1}',
            **every(-7000, -1, 40),
        ),
        ev(
            "image-origin",
            "info",
            '172.16.{n}.4 - - [07/Dec/2026:09:{n}:22 +0000] "GET /p/{n}/w_480.webp HTTP/1.1" 200 38{n} "-" "Fastly" rt=0.0{n}',
            **every(-7000, -1, 30),
        ),
        ev(
            "mobile-bff",
            "warn",
            "image prefetch budget exceeded: {n} of 40 thumbnails over 1500 ms (p95 {ms}0 ms)",
            **every(start + 300, -5, 30),
        ),
        ev(
            "mobile-bff", "info", "mobile-bff 3.44.0 deployed (wishlist sync)", at=-3600
        ),
        ev(
            "mobile-app",
            "error",
            'CrashlyticsNonFatal: SDWebImageErrorDomain Code=-1001 "The request timed out." url=https://img.cdn.example/i/p/{n}/w_480.webp',
            **every(start + 400, -3, 15),
        ),
        ev(
            "recs",
            "warn",
            "feature store read {ms}0 ms over SLO",
            **every(-7000, -60, 400),
        ),
        ev(
            "image-origin",
            "error",
            "vips: VipsJpeg: Premature end of JPEG file (/p/{n}/orig.jpg)",
            **every(-10300, -9900, 90),
        ),
    ]
    return simple(
        490,
        start,
        incident(
            "App slow, product photos take ages",
            "mobile app",
            start,
            ["Android and iOS both"],
        ),
        expected(
            "connect",
            [
                "fastly",
                "fastly_service_vcl.images",
                "shield",
                "iad-va-us",
                "img.cdn.example",
                "infra!611",
            ],
            "iad-va-us",
            "MR infra!611 moved the Fastly images service into the cdn/v3 module, whose default shield is iad-va-us; the service shielded at frankfurt-de before. European cache misses now go from the Frankfurt edge to the Ashburn shield and back to the Frankfurt origin: miss times rose from about 90 ms to over 400 ms, blowing the app's 1.5 s image budget for cold thumbnails. The origin still answers in tens of milliseconds; mobile-bff's warnings and release, the app's timeouts, the recommender and the old JPEG errors are not the cause.",
            [
                f"terraform: fastly_service_vcl.images {sig}",
                'fastly: "pop":"FRA","shield":"IAD","cache_status":"MISS" time_elapsed_ms 4xx',
                "image-origin rt 0.0x s",
            ],
            "Set shield back to frankfurt-de for the images service (pin it in the module call) and warm the popular thumbnails.",
        ),
        [
            bg(
                "mobile-bff",
                ["mobile-bff-6d9-a1", "mobile-bff-6d9-b2"],
                ["GET /v2/home 200 {ms}ms", "GET /v2/products/{n} 200 {ms}ms"],
                8,
            )
        ],
        evs,
        [
            svc("image-origin", 60, {"500": (0.0002, 0.0002)}, (0.03, 0.03)),
            svc("mobile-bff", 180, {"500": (0.0004, 0.0004)}, (0.12, 0.13)),
        ],
        [
            gauge(
                "fastly_miss_latency_ms_p95",
                {"service": "images", "pop": "FRA"},
                95,
                430,
                start,
            )
        ],
        {
            "images-slow.md": runbook(
                "Images slow in the app",
                "Slow images mean the image origin is resizing on the fly: check image-origin CPU, scale it out and pre-generate the w_480 rendition.",
            )
        },
    )


# =================================================================================================
# 11. Config change: to drain a backlog, the mail worker's SIDEKIQ_CONCURRENCY was raised from 5 to
#     25 in the Heroku-style config (CHG via `kamal env push`), but database.yml sizes the pool from
#     RAILS_MAX_THREADS (5). 25 threads share 5 connections: jobs wait 5 s and fail with
#     ActiveRecord::ConnectionTimeoutError, retries pile up, order confirmations are hours late.
#     The incident says "order emails".
# =================================================================================================


@scenario("sidekiq-concurrency-above-db-pool")
def sidekiq_concurrency_above_db_pool() -> dict[str, Any]:
    start = -2600
    sig = (
        "could not obtain a connection from the pool within 5.000 seconds (waited 5.00"
    )
    wk = ["shop-sidekiq-mail-1", "shop-sidekiq-mail-2"]
    evs = [
        ev(
            "kamal",
            "info",
            "kamal env push -r mail_worker: SIDEKIQ_CONCURRENCY=25 (was 5; 'drain the confirmations backlog faster', ops ticket OPS-2291); rebooted 2 containers",
            at=start - 60,
        ),
        ev(
            "shop-sidekiq",
            "info",
            "2026-12-07T09:{n}:00.201Z pid=7 tid=2pw INFO: Booted Rails 7.2.2 application in production environment\n2026-12-07T09:{n}:00.203Z pid=7 tid=2pw INFO: Running in ruby 3.3.6 (2024-11-05 revision 75015d4c1f) +YJIT [x86_64-linux]\n2026-12-07T09:{n}:00.203Z pid=7 tid=2pw INFO: Starting processing, hit Ctrl-C to stop (concurrency: 25, queues: mailers, default)",
            at=start - 50,
            pods=wk,
        ),
        ev(
            "shop-sidekiq",
            "error",
            "2026-12-07T09:{n}:1{n}.{ms}Z pid=7 tid=4{n} class=OrderMailer::ConfirmationJob jid=a{n}f elapsed=5.0{n} WARN: ActiveRecord::ConnectionTimeoutError: "
            + sig
            + "2 seconds); all pooled connections were in use",
            **every(start, -2, 5),
            pods=wk,
        ),
        ev(
            "shop-sidekiq",
            "info",
            "2026-12-07T09:{n}:1{n}.{ms}Z pid=7 tid=4{n} class=OrderMailer::ConfirmationJob jid=b{n}c elapsed=0.{ms} INFO: done",
            **every(-7000, -3, 20),
            pods=wk,
        ),
        ev(
            "shop-sidekiq",
            "warn",
            "retry set size {n} (mailers); oldest enqueued 4{n} s ago",
            **every(start + 300, -20, 120),
            pods=wk,
        ),
        ev(
            "postgres",
            "info",
            "2026-12-07 09:{n}:00 UTC LOG:  checkpoint complete: wrote {n} buffers (1.2%); 0 WAL file(s) added, 0 removed, 1 recycled; write=26.9 s, sync=0.004 s, total=26.9 s",
            **every(-7000, -30, 300),
        ),
        ev(
            "shop-web",
            "info",
            "shop-web 2026.12.07-1 deployed (checkout copy changes)",
            at=-4800,
        ),
        ev(
            "postmark",
            "warn",
            "Postmark API: 422 InactiveRecipient for {n}@example.com (bounced)",
            **every(-7000, -100, 450),
        ),
        ev(
            "shop-sidekiq",
            "error",
            "Net::ReadTimeout with #<TCPSocket:(closed)> (Postmark::TimeoutError) class=OrderMailer::ConfirmationJob",
            **every(-10400, -10000, 60),
            pods=wk,
        ),
    ]
    return simple(
        491,
        start,
        incident(
            "Order confirmation emails arriving hours late", "order emails", start
        ),
        expected(
            "application",
            [
                "shop-sidekiq",
                "sidekiq",
                "SIDEKIQ_CONCURRENCY",
                "RAILS_MAX_THREADS",
                "database.yml pool",
                "OPS-2291",
            ],
            sig,
            "The mail worker's SIDEKIQ_CONCURRENCY was raised from 5 to 25 (OPS-2291) while database.yml still sizes ActiveRecord's pool from RAILS_MAX_THREADS, 5. Twenty-five job threads share five connections: most jobs wait 5 s for a connection and fail with ActiveRecord::ConnectionTimeoutError, retries pile up and confirmation mails are sent hours late. Postgres is healthy; shop-web's release, Postmark's bounces and the old Postmark timeouts are not the cause.",
            [
                f"shop-sidekiq: ActiveRecord::ConnectionTimeoutError: {sig}",
                "kamal env push: SIDEKIQ_CONCURRENCY=25 (was 5)",
                "Sidekiq: concurrency: 25",
            ],
            "Set SIDEKIQ_CONCURRENCY back to 5 (or raise the pool to match: pool = SIDEKIQ_CONCURRENCY) and let the retry set drain.",
        ),
        [
            bg(
                "shop-web",
                ["shop-web-1", "shop-web-2"],
                [
                    "method=POST path=/checkout status=302 duration={ms}.1 view=0.00 db=4.{n}",
                    "method=GET path=/orders/{n} status=200 duration={ms}.3 view=12.1 db=3.{n}",
                ],
                8,
            )
        ],
        evs,
        [svc("shop-web", 40, {"500": (0.0004, 0.0004)}, (0.11, 0.11))],
        [
            gauge("sidekiq_retry_set_size", {"queue": "mailers"}, 3, 6400, start + 60),
            gauge(
                "sidekiq_queue_latency_seconds",
                {"queue": "mailers"},
                1,
                5200,
                start + 120,
            ),
        ],
        {
            "emails-late.md": runbook(
                "Transactional emails late",
                "Late emails are nearly always Postmark: check status.postmarkapp.com; if degraded, switch MAIL_PROVIDER to ses and restart the mail workers.",
            )
        },
    )


# =================================================================================================
# 12. Quiet root cause, louder victims: GPO 'Server Baseline 2026' was linked to the SQL servers' OU
#     and replaced their Microsoft Defender exclusions (data and log folders) with the baseline's,
#     including a weekly full scan on Monday 09:00. The scan reads every .mdf/.ldf on sql-wh-01;
#     SQL Server reports I/O requests over 15 s, and the .NET warehouse services time out. The
#     Defender lines are two Windows events among hundreds of SqlExceptions. The incident says
#     "warehouse app".
# =================================================================================================


@scenario("defender-full-scan-sql-host-exclusions-lost")
def defender_full_scan_sql_host_exclusions_lost() -> dict[str, Any]:
    start = -2000
    sig = "Scan Parameters: Full Scan"
    host = {"host": "sql-wh-01"}
    wh = ["warehouse-api-01", "warehouse-api-02"]
    evs = [
        ev(
            "gpo",
            "info",
            "Group Policy 'Server Baseline 2026' linked to OU=SQL,OU=Servers,DC=corp,DC=example by CORP\\adm-jkoval (CHG-7714 'CIS baseline rollout wave 2'): Defender ExclusionPath replaced, ScheduleDay=Monday ScanType=FullScan ScheduleTime=09:00",
            at=-6800,
        ),
        ev(
            "windows-defender",
            "info",
            "Event ID 1000: Microsoft Defender Antivirus scan has started.\n Scan ID: {8E2A1C54-0F3B-4C7E-9D61-A5B2C3D4E5F6}\n Scan Type: Antimalware\n "
            + sig
            + "\n User: NT AUTHORITY\\SYSTEM",
            at=start - 30,
            labels=host,
        ),
        ev(
            "mssql",
            "warn",
            "2026-12-07 09:{n}:41.22 spid{n}s     SQL Server has encountered {n} occurrence(s) of I/O requests taking longer than 15 seconds to complete on file [E:\\MSSQL\\Data\\Warehouse.mdf] in database id 7.  The OS file handle is 0x0000000000000F1C.  The offset of the latest long I/O is: 0x0000{n}e5c0000.  The duration of the long I/O is: 1{n} ms.",
            **every(start + 120, -60, 300),
            labels=host,
        ),
        ev(
            "mssql",
            "warn",
            "2026-12-07 09:{n}:12.08 spid{n}s     SQL Server has encountered {n} occurrence(s) of I/O requests taking longer than 15 seconds to complete on file [F:\\MSSQL\\Log\\Warehouse_log.ldf] in database id 7.",
            **every(start + 400, -200, 600),
            labels=host,
        ),
        ev(
            "warehouse-api",
            "error",
            "fail: Warehouse.Api.Picking.PickListEndpoint[0]\n      Microsoft.Data.SqlClient.SqlException (0x80131904): Execution Timeout Expired.  The timeout period elapsed prior to completion of the operation or the server is not responding.\n       ---> System.ComponentModel.Win32Exception (258): The wait operation timed out.",
            **every(start + 100, -1, 4),
            pods=wh,
        ),
        ev(
            "scanner-gateway",
            "error",
            "2026-12-07 09:{n}:02 [WARN] RF gun {n}: request /pick/confirm timed out after 30 s, user shown 'try again'",
            **every(start + 120, -1, 3),
        ),
        ev(
            "warehouse-api",
            "info",
            "info: Microsoft.Hosting.Lifetime[0]\n      warehouse-api 9.7.1 started (batch picking for small parcels)",
            at=-4300,
            pods=wh,
        ),
        ev(
            "windows-update",
            "info",
            "Installation Successful: Windows successfully installed the following update: 2026-11 Cumulative Update for Windows Server 2022 (KB5046{n})",
            at=-9000,
            labels=host,
        ),
        ev(
            "print-spooler",
            "error",
            "The document Label_{n}.zpl owned by svc-labels failed to print on printer ZEBRA-DOCK-3. Win32 error code returned by the print processor: 1722.",
            **every(-7000, -30, 500),
        ),
        ev(
            "warehouse-api",
            "error",
            "fail: Microsoft.EntityFrameworkCore.Update[10000]\n      An exception occurred in the database while saving changes for context type 'WarehouseContext'. Transaction (Process ID 71) was deadlocked on lock resources with another process",
            **every(-10500, -10100, 90),
            pods=wh,
        ),
    ]
    return simple(
        492,
        start,
        incident(
            "Warehouse scanners freezing",
            "warehouse app",
            start,
            ["pickers get 'try again' on every confirm"],
        ),
        expected(
            "application",
            [
                "sql-wh-01",
                "microsoft defender",
                "windows-defender",
                "full scan",
                "Server Baseline 2026",
                "CHG-7714",
            ],
            sig,
            "GPO 'Server Baseline 2026' (CHG-7714) was linked to the SQL servers' OU: it replaced the Defender exclusions for the SQL data and log folders and schedules a full scan on Monday at 09:00. The scan on sql-wh-01 reads every database file, SQL Server reports I/O requests taking longer than 15 s on Warehouse.mdf and its log, and warehouse-api's queries hit their 30 s command timeout; the scanners' 'try again' follows. The SqlExceptions and scanner timeouts, warehouse-api's release, the Windows update, the label printer and the old deadlock are not the cause.",
            [
                f"sql-wh-01 Defender event 1000: scan started, {sig}",
                "mssql: I/O requests taking longer than 15 seconds on Warehouse.mdf",
                "GPO Server Baseline 2026 linked to OU=SQL: ExclusionPath replaced",
            ],
            "Stop the scan (Stop-MpScan / Set-MpPreference) on sql-wh-01, restore the SQL exclusions in the GPO for the SQL OU and move the full scan out of working hours.",
        ),
        [
            bg(
                "warehouse-api",
                wh,
                [
                    "info: Microsoft.AspNetCore.Hosting.Diagnostics[2]\n      Request finished HTTP/1.1 GET http://warehouse-api/pick/{n} - 200 - application/json {ms}.4102ms"
                ],
                8,
            )
        ],
        evs,
        [
            svc(
                "warehouse-api",
                30,
                {"500": (0.0005, 0.3)},
                (0.08, 9.0),
                change_at=start + 100,
            )
        ],
        [
            gauge(
                "windows_logical_disk_avg_read_seconds",
                {"host": "sql-wh-01", "volume": "E:"},
                0.004,
                0.9,
                start,
            ),
            gauge(
                "windows_cpu_time_percent",
                {"host": "sql-wh-01", "process": "MsMpEng"},
                1,
                88,
                start,
            ),
        ],
        {
            "scanner-timeouts.md": runbook(
                "Scanner timeouts in the warehouse",
                "RF gun timeouts are Wi-Fi roaming problems: check the access points in the affected aisles (UniFi controller) and power-cycle the dock APs.",
            )
        },
    )


# =================================================================================================
# 13. Shared back end: finance connected Metabase to the shop database through the shared PgBouncer
#     (transaction pooling, default_pool_size 20) with the shop_app login, and set the new "Weekly
#     margin" dashboard to refresh every minute. Its eleven long queries hold server connections for
#     minutes; checkout's and the other services' queries wait in PgBouncer and are dropped with
#     query_wait_timeout. The database itself is idle-ish. The incident says "checkout".
# =================================================================================================


@scenario("metabase-on-shared-pgbouncer-pool")
def metabase_on_shared_pgbouncer_pool() -> dict[str, Any]:
    start = -1700
    sig = "closing because: query_wait_timeout (age=120s)"
    co = ["checkout-6f8d-2kq", "checkout-6f8d-7wn", "checkout-6f8d-x4r"]
    evs = [
        ev(
            "metabase",
            "info",
            "2026-12-07 08:{n}:14,221 INFO api.database :: Added database 'shop (prod)' engine postgres host pgbouncer.db.internal port 6432 dbname shop user shop_app (by finance-analytics@example.com)",
            at=-6100,
        ),
        ev(
            "metabase",
            "info",
            "2026-12-07 09:{n}:00,004 INFO task.refresh-dashboards :: Dashboard 'Weekly margin' (id 88) auto-refresh 60s: running 11 cards",
            **every(start - 60, -10, 60),
        ),
        ev(
            "metabase",
            "warn",
            "2026-12-07 09:{n}:33,871 WARN middleware.log :: POST /api/card/4{n}/query 202 [ASYNC: completed] 1{ms}.3 s (11 DB calls) App DB connections: 3/15 Jetty threads: 4/50",
            **every(start, -10, 45),
        ),
        ev(
            "pgbouncer",
            "warn",
            "2026-12-07 09:{n}:07.118 UTC [1] LOG C-0x55d5c8a2{n}: shop/shop_app@10.20.4.{n}:5{n} "
            + sig,
            **every(start + 120, -2, 5),
        ),
        ev(
            "pgbouncer",
            "info",
            "2026-12-07 09:{n}:00.000 UTC [1] LOG stats: {n} xacts/s, {n} queries/s, {n} client parses/s, 0 server parses/s, 0 binds/s, in 1{n} B/s, out 9{n} B/s, xact 2{n}{ms} us, query 1{n}{ms} us, wait 4{n}{ms}{ms} us",
            **every(-7000, -5, 60),
        ),
        ev(
            "checkout",
            "error",
            "2026-12-07 09:{n}:11.402 ERROR 1 --- [nio-8080-exec-{n}] o.h.engine.jdbc.spi.SqlExceptionHelper   : ERROR: query_wait_timeout\n2026-12-07 09:{n}:11.403 ERROR 1 --- [nio-8080-exec-{n}] c.e.checkout.api.ErrorHandler           : POST /api/checkout failed: org.springframework.dao.DataAccessResourceFailureException: could not execute statement; SQL [n/a]",
            **every(start + 125, -1, 3),
            pods=co,
        ),
        ev(
            "cart",
            "error",
            'level=error msg="load cart" err="ERROR: query_wait_timeout (SQLSTATE 08P01)"',
            **every(start + 130, -3, 9),
        ),
        ev(
            "checkout",
            "info",
            "2026-12-07 08:{n}:00.000  INFO 1 --- [main] c.e.checkout.CheckoutApplication : Started CheckoutApplication in 14.2 seconds (checkout 5.12.0, gift cards)",
            at=-4600,
            pods=co,
        ),
        ev(
            "postgres",
            "info",
            "2026-12-07 09:{n}:00 UTC [{n}] LOG:  duration: 1{n}.{ms} ms  statement: SELECT date_trunc('week', o.created_at), sum(l.price - l.cost) FROM order_lines l JOIN orders o ON ...",
            **every(start, -10, 45),
        ),
        ev(
            "search",
            "warn",
            "elasticsearch: took {ms}0ms for query on products (slow log)",
            **every(-7000, -80, 450),
        ),
        ev(
            "checkout",
            "error",
            "com.zaxxer.hikari.pool.HikariPool : HikariPool-1 - Connection is not available, request timed out after 30000ms.",
            **every(-10300, -9900, 60),
            pods=co,
        ),
    ]
    return simple(
        493,
        start,
        incident("Checkout timing out", "checkout", start),
        expected(
            "application",
            [
                "pgbouncer",
                "pgbouncer.db.internal",
                "metabase",
                "weekly margin",
                "shop_app",
                "default_pool_size",
            ],
            sig,
            "Finance added the shop database to Metabase through the shared PgBouncer (transaction pooling, 20 server connections per database/user) with the shop_app login that every service uses, and the 'Weekly margin' dashboard refreshes its eleven long queries every minute. They hold the pool's server connections for tens of seconds each; checkout's and cart's short queries queue in PgBouncer and are dropped after 120 s (query_wait_timeout). Postgres itself is not loaded. checkout's and cart's errors, checkout's release, the search slow log and the old Hikari timeout are not the cause.",
            [
                f"pgbouncer: shop/shop_app@… {sig}",
                "metabase: database 'shop (prod)' via pgbouncer.db.internal:6432 user shop_app; dashboard 'Weekly margin' auto-refresh 60s",
                "checkout: ERROR: query_wait_timeout",
            ],
            "Turn off the dashboard's auto-refresh and point Metabase at a read replica with its own login (and a PgBouncer pool of its own); consider reserve_pool_size for the services.",
        ),
        [
            bg(
                "checkout",
                co,
                [
                    "POST /api/checkout 200 {ms}ms",
                    "GET /api/checkout/summary 200 {ms}ms",
                ],
                8,
            )
        ],
        evs,
        [
            svc(
                "checkout",
                50,
                {"500": (0.0005, 0.28)},
                (0.14, 6.0),
                change_at=start + 120,
            ),
            svc(
                "cart", 120, {"500": (0.0003, 0.1)}, (0.02, 1.8), change_at=start + 130
            ),
        ],
        [
            gauge(
                "pgbouncer_pools_client_waiting_connections",
                {"database": "shop", "user": "shop_app"},
                0,
                140,
                start,
            ),
            gauge(
                "pgbouncer_pools_server_active_connections",
                {"database": "shop", "user": "shop_app"},
                6,
                20,
                start,
            ),
        ],
        {
            "checkout-timeouts.md": runbook(
                "Checkout timeouts",
                "Checkout timeouts mean the Hikari pool is too small for the traffic: raise spring.datasource.hikari.maximum-pool-size to 40 and restart checkout.",
            )
        },
    )


# =================================================================================================
# 14. Performance: offers-service 3.9.0 replaced its HTTP client bean (a PoolingHttpClientConnectionManager
#     with 200 total / 100 per route) by `HttpClients.createDefault()` in a "simplify config" MR.
#     Apache HttpClient 4's default pool allows 2 connections per route: every call to
#     inventory-service queues behind two; latency climbs with traffic, a few requests give up
#     after the 10 s connection-request timeout. inventory-service is fast and idle. The incident
#     says "product pages".
# =================================================================================================


@scenario("httpclient-default-two-connections-per-route")
def httpclient_default_two_connections_per_route() -> dict[str, Any]:
    start = -3100
    sig = "Timeout waiting for connection from pool"
    of = ["offers-service-5c7-1", "offers-service-5c7-2", "offers-service-5c7-3"]
    evs = [
        ev(
            "jenkins",
            "info",
            "offers-service #612 deployed 3.9.0 to prod (MR !288 'simplify config: drop custom HttpClientConfig, use HttpClients.createDefault()')",
            at=start - 60,
        ),
        ev(
            "offers-service",
            "info",
            '{"@timestamp":"2026-12-07T09:{n}:02.114Z","level":"INFO","logger_name":"c.s.offers.http.PoolStats","message":"route {s->http://inventory-service:8080}[leased: 2; pending: 1{n}; available: 0; max: 2]"}',
            **every(start + 30, -5, 30),
            pods=of,
        ),
        ev(
            "offers-service",
            "error",
            '{"@timestamp":"2026-12-07T09:{n}:11.480Z","level":"ERROR","logger_name":"c.s.offers.InventoryClient","message":"stock lookup failed","stack_trace":"org.apache.http.conn.ConnectionPoolTimeoutException: '
            + sig
            + '\\n\\tat org.apache.http.impl.conn.PoolingHttpClientConnectionManager.leaseConnection(PoolingHttpClientConnectionManager.java:316)\\n\\tat org.apache.http.impl.execchain.MainClientExec.execute(MainClientExec.java:191)"}',
            **every(start + 600, -2, 20),
            pods=of,
        ),
        ev(
            "offers-service",
            "warn",
            '{"@timestamp":"2026-12-07T09:{n}:09.001Z","level":"WARN","logger_name":"c.s.offers.api","message":"slow request GET /offers/{n} took {n} ms"}',
            **every(start + 120, -1, 6),
            pods=of,
        ),
        ev(
            "inventory-service",
            "info",
            "2026-12-07T09:{n}:1{n}Z INFO  GET /stock/{n} 200 4ms (active_requests=2)",
            **every(-7000, -1, 20),
        ),
        ev(
            "pdp-bff",
            "warn",
            "upstream offers-service p95 {ms}0 ms > budget 800 ms (degrading to no-offer view)",
            **every(start + 300, -5, 20),
        ),
        ev(
            "pdp-bff",
            "info",
            "pdp-bff 14.1.0 deployed (new image carousel)",
            at=start + 200,
        ),
        ev(
            "reviews",
            "error",
            "Trustpilot API 503, serving cached reviews",
            **every(-7000, -60, 350),
        ),
        ev(
            "offers-service",
            "error",
            '{"level":"ERROR","message":"Redis command timed out after 1 second(s)"}',
            **every(-10200, -9900, 60),
            pods=of,
        ),
    ]
    return simple(
        494,
        start,
        incident("Product pages slow", "product pages", start, ["pages take 5-10 s"]),
        expected(
            "application",
            [
                "offers-service",
                "offers-service 3.9.0",
                "HttpClients.createDefault",
                "connection pool",
                "max: 2",
                "MR !288",
            ],
            sig,
            "offers-service 3.9.0 (MR !288) replaced its configured pooling HTTP client with HttpClients.createDefault(), whose connection manager allows 2 connections per route. Every stock lookup to inventory-service now waits for one of two connections (leased 2, pending over a hundred): latency grows with traffic, some lookups fail after the connection-request timeout, and the product page BFF degrades. inventory-service answers in milliseconds. pdp-bff's warnings and its carousel release, the reviews 503s and the old Redis timeout are not the cause.",
            [
                f"offers-service: ConnectionPoolTimeoutException: {sig}",
                "PoolStats: route inventory-service:8080 leased 2, pending 1xx, max 2",
                "jenkins: 3.9.0 'use HttpClients.createDefault()'",
            ],
            "Roll back to 3.8.x or restore the pooled client (setMaxConnPerRoute / setMaxConnTotal) in 3.9.1.",
        ),
        [bg("pdp-bff", ["pdp-bff-1", "pdp-bff-2"], ["GET /pdp/{n} 200 {ms}ms"], 8)],
        evs,
        [
            svc(
                "offers-service",
                160,
                {"500": (0.0004, 0.03)},
                (0.06, 4.5),
                change_at=start + 30,
            ),
            svc("inventory-service", 300, {"500": (0.0002, 0.0002)}, (0.005, 0.005)),
        ],
        [
            gauge(
                "httpclient_pool_pending",
                {"service": "offers-service", "route": "inventory-service:8080"},
                0,
                130,
                start + 30,
            )
        ],
        {
            "pdp-slow.md": runbook(
                "Product pages slow",
                "Slow product pages: check the new image carousel in pdp-bff (large images) and roll back pdp-bff if p95 is above 800 ms.",
            )
        },
    )


# =================================================================================================
# 15. Resource exhaustion (cloud limit): custom domains of the storefront platform are served by
#     one ALB listener with one ACM certificate per customer domain (SNI). The listener has reached
#     the ALB limit of 25 certificates; domain-onboarder's AddListenerCertificates fails with
#     TooManyCertificates and marks the domain live anyway. The new customer's shop is served the
#     default *.storefronts.example certificate. netcheck sees the name mismatch. The incident says
#     "customer shops".
# =================================================================================================


@scenario("alb-certificate-limit-new-custom-domain")
def alb_certificate_limit_new_custom_domain() -> dict[str, Any]:
    start = -2900
    sig = "TooManyCertificates"
    evs = [
        ev(
            "domain-onboarder",
            "info",
            'time=2026-12-07T08:{n}:02Z level=INFO msg="acm certificate issued" domain=shop.lindqvist-ceramics.example arn=arn:aws:acm:eu-north-1:210987654321:certificate/5e1c7a3b-{n}',
            at=start - 300,
        ),
        ev(
            "domain-onboarder",
            "error",
            'time=2026-12-07T08:{n}:04Z level=ERROR msg="attach certificate to listener failed" domain=shop.lindqvist-ceramics.example listener=arn:aws:elasticloadbalancing:eu-north-1:210987654321:listener/app/storefronts-alb/8c1d2e3f4a5b6c7d/9e8f7a6b5c4d3e2f err="operation error Elastic Load Balancing v2: AddListenerCertificates, https response error StatusCode: 400, RequestID: 7f0c{n}, '
            + sig
            + ": You've reached the limit on the number of certificates per load balancer\"",
            at=start - 290,
        ),
        ev(
            "domain-onboarder",
            "warn",
            'time=2026-12-07T08:{n}:04Z level=WARN msg="continuing: marking domain live, certificate attach will be retried by reconciler" domain=shop.lindqvist-ceramics.example',
            at=start - 289,
        ),
        ev(
            "domain-onboarder",
            "error",
            'time=2026-12-07T09:{n}:04Z level=ERROR msg="reconcile certificate attach failed" domain=shop.lindqvist-ceramics.example err="'
            + sig
            + ": You've reached the limit on the number of certificates per load balancer\"",
            **every(start, -60, 900),
        ),
        ev(
            "storefront-router",
            "info",
            '10.30.{n}.8 - - [07/Dec/2026:09:{n}:10 +0000] "GET / HTTP/1.1" 200 5{n} "-" "Mozilla/5.0" host=shop.aalto-knits.example',
            **every(-7000, -1, 10),
        ),
        ev(
            "support-desk",
            "warn",
            "ticket #{n} from lindqvist-ceramics: 'customers see \"Your connection is not private\" NET::ERR_CERT_COMMON_NAME_INVALID'",
            **every(start + 600, -300, 900),
        ),
        ev(
            "storefront-router",
            "info",
            "storefront-router 2.31.0 deployed (cache headers for product JSON)",
            at=-4000,
        ),
        ev(
            "storefront-router",
            "error",
            "upstream theme-renderer timed out (110: Connection timed out) while reading response header from upstream",
            **every(-7000, -100, 600),
        ),
        ev(
            "domain-onboarder",
            "error",
            'level=ERROR msg="route53 ChangeResourceRecordSets throttled" err="Throttling: Rate exceeded"',
            **every(-10200, -9900, 60),
        ),
    ]
    spec = simple(
        495,
        start,
        incident(
            "New customer's shop shows a security warning", "customer shops", start
        ),
        expected(
            "tls",
            [
                "storefronts-alb",
                "alb listener",
                "TooManyCertificates",
                "domain-onboarder",
                "shop.lindqvist-ceramics.example",
                "acm",
            ],
            sig,
            "All custom shop domains terminate on one ALB listener (storefronts-alb) with one ACM certificate each; the listener holds the ALB maximum of 25 certificates. Attaching the new customer's certificate failed with TooManyCertificates, domain-onboarder marked the domain live anyway, and the ALB serves shop.lindqvist-ceramics.example with the default *.storefronts.example certificate: browsers reject the name. The router's release and theme timeouts, the support tickets and the old Route 53 throttling are not the cause.",
            [
                f"domain-onboarder: AddListenerCertificates {sig}",
                "netcheck: certificate name mismatch at shop.lindqvist-ceramics.example",
                "support tickets: NET::ERR_CERT_COMMON_NAME_INVALID",
            ],
            "Add a second listener / ALB (or move custom domains to CloudFront / SAN certificates), attach the certificate, and make domain-onboarder fail the onboarding when the attach fails.",
        ),
        [
            bg(
                "storefront-router",
                ["storefront-router-1", "storefront-router-2"],
                ['10.30.{n}.8 - - "GET /products/{n} HTTP/1.1" 200 {n} rt={ms}'],
                8,
            )
        ],
        evs,
        [svc("storefront-router", 90, {"502": (0.0005, 0.0005)}, (0.08, 0.08))],
        [
            gauge(
                "alb_listener_certificates",
                {"load_balancer": "storefronts-alb"},
                25,
                25,
                start,
            )
        ],
        {
            "cert-warning.md": runbook(
                "Shop shows a certificate warning",
                "A certificate warning on a custom domain means the customer's DNS still points at their old host: ask them to update the CNAME to edge.storefronts.example.",
            )
        },
    )
    return with_netcheck(
        spec,
        [
            {
                "name": "lindqvist-shop",
                "url": "https://shop.lindqvist-ceramics.example/",
                "fault": {
                    "kind": "tls_wrong_host",
                    "cert_names": ["*.storefronts.example", "storefronts.example"],
                },
            },
            {
                "name": "aalto-shop",
                "url": "https://shop.aalto-knits.example/",
                "fault": {"kind": "ok"},
            },
        ],
        "lindqvist-shop",
        {
            "lindqvist-shop": {
                "failed_layer": "tls",
                "reason": "certificate_name_mismatch",
            },
            "aalto-shop": {"failed_layer": "none", "reason": None},
        },
    )


# =================================================================================================
# 16. Credential expiry: push-gateway 5.0.0 (Node) rewrote its APNs client and now signs the
#     token-based provider JWT once at start-up. APNs rejects provider tokens older than an hour:
#     sixty minutes after the release every iOS push gets 403 ExpiredProviderToken; Android (FCM)
#     is fine. The incident says "delivery notifications".
# =================================================================================================


@scenario("apns-provider-token-never-refreshed")
def apns_provider_token_never_refreshed() -> dict[str, Any]:
    start = -1400
    sig = "ExpiredProviderToken"
    pg = ["push-gateway-7b9-kx2", "push-gateway-7b9-t4q"]
    evs = [
        ev(
            "github-actions",
            "info",
            "deploy push-gateway 5.0.0 to production: success (PR #231 'replace node-apn with a fetch-based HTTP/2 client; sign provider token at startup')",
            at=start - 3620,
        ),
        ev(
            "push-gateway",
            "info",
            '{"level":30,"time":17335{n},"pid":1,"hostname":"push-gateway","msg":"apns provider token signed","keyId":"9QX4K2M7PB","teamId":"7HJ3L2W9QZ"}',
            at=start - 3600,
            pods=pg,
        ),
        ev(
            "push-gateway",
            "error",
            '{"level":50,"time":17335{n},"pid":1,"hostname":"push-gateway","msg":"apns send failed","status":403,"apnsId":"{n}-4c1e-9b0d-{n}","reason":"'
            + sig
            + '","topic":"com.parcelly.app"}',
            **every(start, -1, 6),
            pods=pg,
        ),
        ev(
            "push-gateway",
            "info",
            '{"level":30,"time":17335{n},"pid":1,"msg":"fcm send ok","platform":"android","messageId":"projects/parcelly/messages/0:{n}"}',
            **every(-7000, -1, 25),
            pods=pg,
        ),
        ev(
            "push-gateway",
            "info",
            '{"level":30,"time":17335{n},"pid":1,"msg":"apns send ok","status":200,"topic":"com.parcelly.app"}',
            **every(start - 3600, start - 5, 25),
            pods=pg,
        ),
        ev(
            "notification-svc",
            "warn",
            "delivery notification for parcel PX{n} not confirmed by push-gateway (ios), queued for SMS fallback",
            **every(start + 60, -3, 8),
        ),
        ev(
            "sms-fallback",
            "warn",
            "Twilio 429 Too Many Requests on Messaging Service MG{n}, backing off",
            **every(start + 600, -20, 40),
        ),
        ev("tracking-web", "info", "tracking-web 4.2.0 deployed (dark mode)", at=-3000),
        ev(
            "push-gateway",
            "error",
            '{"level":50,"msg":"apns send failed","status":410,"reason":"Unregistered","topic":"com.parcelly.app"}',
            **every(-7000, -30, 600),
            pods=pg,
        ),
        ev(
            "push-gateway",
            "error",
            '{"level":50,"msg":"apns connection error","err":"ERR_HTTP2_GOAWAY_SESSION"}',
            **every(-10400, -10100, 60),
            pods=pg,
        ),
    ]
    return simple(
        496,
        start,
        incident(
            "iPhone customers not getting delivery notifications",
            "delivery notifications",
            start,
        ),
        expected(
            "application",
            [
                "push-gateway",
                "push-gateway 5.0.0",
                "apns",
                "provider token",
                sig,
                "PR #231",
            ],
            sig,
            "push-gateway 5.0.0 (PR #231) signs the APNs token-based provider JWT once at start-up and never refreshes it. APNs refuses provider tokens older than one hour, so an hour after the release every iOS push is answered 403 ExpiredProviderToken; Android pushes through FCM still work. notification-svc's SMS fallback warnings and Twilio's 429s are consequences; tracking-web's release, the routine 410 Unregistered answers and the old GOAWAY errors are not the cause.",
            [
                f"push-gateway: apns 403 {sig}",
                "push-gateway: apns provider token signed (once, at start)",
                "github-actions: push-gateway 5.0.0 'sign provider token at startup'",
            ],
            "Restart push-gateway for relief, then roll back to 4.x or re-sign the provider token every 20-50 minutes.",
        ),
        [
            bg(
                "notification-svc",
                ["notification-svc-1", "notification-svc-2"],
                ["event parcel.out_for_delivery PX{n} fan-out 2 channels in {ms}ms"],
                8,
            )
        ],
        evs,
        [
            svc(
                "push-gateway",
                25,
                {"500": (0.0002, 0.55)},
                (0.04, 0.04),
                change_at=start,
            )
        ],
        [gauge("push_apns_failures_per_second", {"reason": sig}, 0, 6.5, start)],
        {
            "push-missing.md": runbook(
                "Push notifications not arriving",
                "Missing pushes are usually Twilio/SMS fallback limits or users with notifications off; check Twilio's console and the opt-in rate before escalating.",
            )
        },
    )


STAGES: dict[str, tuple[str, str]] = {
    "priorityclass-scoped-quota-blocks-worker-scaleout": ("admission", "FailedCreate"),
    "local-pv-node-removed-by-autoscaler": ("scheduling", "FailedScheduling"),
    "cgo-binary-on-distroless-static": ("startup", "CrashLoopBackOff"),
    "aspnet-rate-limiter-throttles-liveness": ("runtime", "Unhealthy"),
    "nfs-filer-retired-pleg-unhealthy-node": ("infrastructure", "NodeNotReady"),
    "mesh-subset-label-from-app-version": ("service_routing", "SubsetNoEndpoints"),
    "netpol-apiserver-service-ip-blocks-secret-sync": (
        "runtime",
        "NetworkPolicyDenied",
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
