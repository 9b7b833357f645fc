"""Writes the sixteenth held-out scenario set, bench/heldout16: `python bench/heldout16/_build.py`.

New incidents, none of them in the bundled set or in bench/heldout … bench/heldout15, all around data
stores, messaging and storage. As there, everything that matters is written by hand below
(incident, expected answer, runbooks, kubectl answers, the log lines that carry the fault and the red
herrings); the bulk (background request lines, 2 h of metric points thinned to one every 30 s, a
namespace's tables, describe layouts) comes from bench/heldout15/_build.py's helpers (and through
them heldout14's and the earlier builders'), each scenario with a fixed seed (449-464). The author
read neither the planner (`reasoning/`) nor the engine (`diagnosis/engine/`, `docs/engine.md`), nor
their tests, nor any score file. Stdlib only.
"""

from __future__ import annotations

import importlib.util
from datetime import timedelta
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
when = base.when
app = h15.app
pod_name = h15.pod_name
namespace = h15.namespace
ev = h15.ev
bg = h15.bg
incident = h15.incident
expected = h15.expected
simple = h15.simple
container_text = h15.container_text
describe_pod = h15.describe_pod
podlog = h15.podlog
running = h15.running
crashloop = h15.crashloop
node_describe = h15.node_describe
pending_pod = h15.pending_pod
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

NOW = base.CAPTURED

SCENARIOS: dict[str, Any] = {}


def scenario(slug: str):
    def register(fn):
        SCENARIOS[slug] = fn
        return fn

    return register


def sts_table(rows: list[tuple[str, str, str, str, str]]) -> str:
    """`kubectl get statefulsets -o wide`: (name, ready, age, containers, images)."""
    return table([["NAME", "READY", "AGE", "CONTAINERS", "IMAGES"], *rows])


def pvc_table(rows: list[tuple[str, str, str, str, str]]) -> str:
    """`kubectl get persistentvolumeclaims`: (name, volume, capacity, storage class, age), all Bound RWO."""
    return table(
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
            *[
                [n, "Bound", v, c, "RWO", sc, "<unset>", age]
                for n, v, c, sc, age in rows
            ],
        ]
    )


def sts_describe(
    name: str,
    ns: str,
    *,
    replicas: str,
    status: str,
    containers: str,
    claims: str,
    rows: list[tuple[str, str, str, str, str]],
    created: float = -31536000,
    extra: str = "",
) -> str:
    """`kubectl describe statefulsets` of one StatefulSet, with its Events table."""
    head = (
        f"Name:               {name}\nNamespace:          {ns}\n"
        f"CreationTimestamp:  {when(created)}\n"
        f"Selector:           app={name}\nLabels:             app={name}\n"
        "Annotations:        <none>\n"
        f"Replicas:           {replicas}\n"
        "Update Strategy:    RollingUpdate\n  Partition:        0\n"
        f"Pods Status:        {status}\n"
        f"Pod Template:\n  Labels:           app={name}\n  Service Account:  {name}\n"
        f"  Containers:\n{containers}\n{extra}"
        f"Volume Claims:\n{claims}\n"
    )
    return describe_block(head, rows)


def rts(offset: float) -> str:
    """RabbitMQ's own log timestamp for a moment relative to the scenarios' now."""
    moment = NOW + timedelta(seconds=offset)
    return (
        moment.strftime("%Y-%m-%d %H:%M:%S.")
        + f"{int(offset * 7919) % 1000000:06d}+00:00"
    )


# =================================================================================================
# 1. Admission: the platform baseline (Kyverno generate policy, last week) added a LimitRange
#    `pvc-bounds` to every namespace: PersistentVolumeClaims at most 100Gi. The search team scaled
#    the Elasticsearch data StatefulSet from 3 to 2 yesterday for a cost review (whenScaled: Delete
#    removed data-es-data-2); this morning the two remaining nodes hit the disk watermarks and they
#    scaled back to 3. The StatefulSet controller cannot create the 400Gi claim, es-data-2 is never
#    created, the orders index goes read-only at the flood stage. The incident says "back-office".
# =================================================================================================


@scenario("limitrange-pvc-max-blocks-es-data-claim")
def limitrange_pvc_max_blocks_es_data_claim() -> dict[str, Any]:
    start = -2400
    ns = "search"
    es = app(
        "es-data",
        image="docker.elastic.co/elasticsearch/elasticsearch:8.15.3",
        port=9200,
        rs="",
        kind="StatefulSet",
        cluster_ip="None",
        desired=3,
        pods=[
            ("0", "1/1", "Running", "0", "12d", 0),
            ("1", "1/1", "Running", "0", "12d", 1),
        ],
    )
    ix = app(
        "order-indexer",
        image="ghcr.io/brightcart/order-indexer:3.8.0",
        port=8080,
        rs="6f9c8d7b5",
        cluster_ip="10.100.40.12",
        pods=[
            ("h4wzp", "1/1", "Running", "0", "6h", 0),
            ("q8rnd", "1/1", "Running", "0", "6h", 2),
        ],
    )
    bo = app(
        "backoffice-api",
        image="ghcr.io/brightcart/backoffice-api:21.3.2",
        port=8080,
        rs="7c5d9f8b6",
        cluster_ip="10.100.40.30",
        pods=[
            ("k2mfx", "1/1", "Running", "0", "3h", 1),
            ("v7tcl", "1/1", "Running", "0", "3h", 2),
        ],
    )
    sig = (
        "maximum storage usage per PersistentVolumeClaim is 100Gi, but request is 400Gi"
    )
    forbidden = f'persistentvolumeclaims "data-es-data-2" is forbidden: {sig}'
    k8s = namespace(
        ns,
        NODES_DUB,
        [es, ix, bo],
        seed=449,
        statefulsets=sts_table(
            [
                (
                    "es-data",
                    "2/3",
                    "410d",
                    "elasticsearch",
                    "docker.elastic.co/elasticsearch/elasticsearch:8.15.3",
                )
            ]
        ),
    )
    k8s[f"kubectl get persistentvolumeclaims -n {ns}"] = pvc_table(
        [
            (
                "data-es-data-0",
                "pvc-1c7e4a9d-2b3f-4e81-9a6d-5f0c2e8b7d14",
                "400Gi",
                "gp3",
                "410d",
            ),
            (
                "data-es-data-1",
                "pvc-8a2d6f13-c94e-47b0-b1e5-3d7a9c0f6e28",
                "400Gi",
                "gp3",
                "410d",
            ),
        ]
    )
    k8s[f"kubectl get limitranges -n {ns}"] = table(
        [["NAME", "CREATED AT"], ["pvc-bounds", "2026-11-27T09:14:02Z"]]
    )
    k8s[f"kubectl describe limitranges pvc-bounds -n {ns}"] = (
        f"Name:                  pvc-bounds\nNamespace:             {ns}\n"
        "Type                   Resource  Min  Max    Default Request  Default Limit  Max Limit/Request Ratio\n"
        "----                   --------  ---  ---    ---------------  -------------  -----------------------\n"
        "PersistentVolumeClaim  storage   1Gi  100Gi  -                -              -\n"
    )
    cont = container_text(
        "elasticsearch",
        es["image"],
        9200,
        env={
            "ES_JAVA_OPTS": "-Xms16g -Xmx16g",
            "node.roles": "data,ingest",
            "discovery.seed_hosts": "es-master-headless",
        },
        limits="memory:  32Gi",
        requests="cpu:      4\n  memory:   32Gi",
    )
    k8s[f"kubectl describe statefulsets es-data -n {ns}"] = sts_describe(
        "es-data",
        ns,
        replicas="3 desired | 2 total",
        status="2 Running / 0 Waiting / 0 Succeeded / 0 Failed",
        containers=cont,
        claims="  Name:          data\n  StorageClass:  gp3\n  Labels:        <none>\n  Annotations:   <none>\n  Capacity:      400Gi\n  Access Modes:  [ReadWriteOnce]",
        created=-35424000,
        rows=[
            (
                "Normal",
                "SuccessfulDelete",
                "19h",
                "statefulset-controller",
                "delete Pod es-data-2 in StatefulSet es-data successful",
            ),
            (
                "Normal",
                "SuccessfulDelete",
                "19h",
                "statefulset-controller",
                "delete Claim data-es-data-2 Pod es-data-2 in StatefulSet es-data success",
            ),
            (
                "Warning",
                "FailedCreate",
                "25s (x19 over 39m)",
                "statefulset-controller",
                f"create Claim data-es-data-2 for Pod es-data-2 in StatefulSet es-data failed error: {forbidden}",
            ),
        ],
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "39m",
                "Warning",
                "FailedCreate",
                "StatefulSet/es-data",
                f"create Claim data-es-data-2 for Pod es-data-2 in StatefulSet es-data failed error: {forbidden}",
            ),
            (
                "25s",
                "Warning",
                "FailedCreate",
                "StatefulSet/es-data",
                f"create Claim data-es-data-2 for Pod es-data-2 in StatefulSet es-data failed error: {forbidden}",
            ),
        ]
    )
    esp = pods_of(es)
    evs = [
        ev(
            "kyverno",
            "info",
            'policy platform-baseline/generate-pvc-bounds: generated LimitRange pvc-bounds in namespace search (rule "default-pvc-bounds")',
            at=-7100,
        ),
        ev(
            "gitops",
            "info",
            "argocd app search-es synced: statefulset es-data replicas 2 -> 3 (MR search!412 'scale back, disk watermark'), health Progressing",
            at=start - 60,
        ),
        ev(
            "es-data",
            "warn",
            '{"@timestamp":"2026-12-05T13:{ms}:00.000Z","log.level":"WARN","message":"high disk watermark [90%] exceeded on [Zk3d9QxGT4q2yq0Fh1nJwA][es-data-0][/usr/share/elasticsearch/data] free: 31.2gb[7.8%], shards will be relocated away from this node; currently relocating away shards totalling [0] bytes; the node is expected to continue to exceed the high disk watermark when these relocations are complete","ecs.version":"1.2.0","service.name":"ES_ECS","event.dataset":"elasticsearch.server","log.logger":"org.elasticsearch.cluster.routing.allocation.DiskThresholdMonitor"}',
            **every(start - 1200, -60, 120),
            pods=esp,
        ),
        ev(
            "es-data",
            "warn",
            '{"@timestamp":"2026-12-05T13:{ms}:30.000Z","log.level":"WARN","message":"flood stage disk watermark [95%] exceeded on [Zk3d9QxGT4q2yq0Fh1nJwA][es-data-0][/usr/share/elasticsearch/data] free: 19.6gb[4.9%], all indices on this node will be marked read-only","ecs.version":"1.2.0","service.name":"ES_ECS","log.logger":"org.elasticsearch.cluster.routing.allocation.DiskThresholdMonitor"}',
            **every(start + 300, -30, 120),
            pods=esp,
        ),
        ev(
            "order-indexer",
            "error",
            'bulk index failed for 500 docs: {"type":"cluster_block_exception","reason":"index [orders-v7] blocked by: [TOO_MANY_REQUESTS/12/disk usage exceeded flood-stage watermark, index has read-only-allow-delete block];"}',
            **every(start + 320, -1, 5),
            pods=pods_of(ix),
        ),
        ev(
            "backoffice-api",
            "warn",
            "order search: newest indexed order is {n}s old (orders-v7)",
            **every(start + 600, -10, 60),
            pods=pods_of(bo),
        ),
        ev(
            "backoffice-api",
            "info",
            "backoffice-api 21.3.2 started (refund reasons dropdown)",
            at=-10400,
            pods=pods_of(bo),
        ),
        ev(
            "order-indexer",
            "error",
            "es_rejected_execution_exception: rejected execution of coordinating operation [coordinating_and_primary_bytes=0, replica_bytes=0, all_bytes=0, coordinating_operation_bytes=52428800, max_coordinating_and_primary_bytes=858993459]",
            **every(-9600, -9300, 60),
            pods=pods_of(ix),
        ),
    ]
    return kube_case(
        seed=449,
        start=start,
        inc=incident(
            "New orders missing from back-office search", "back-office", start
        ),
        exp=expected(
            "platform",
            [
                "limitrange/pvc-bounds",
                "pvc-bounds",
                "statefulset/es-data",
                "es-data",
                "data-es-data-2",
                "es-data-2",
            ],
            sig,
            "The platform baseline added a LimitRange pvc-bounds to the search namespace last week (PersistentVolumeClaims at most 100Gi). es-data was scaled 3 -> 2 yesterday, which deleted data-es-data-2; scaled back to 3 this morning, the StatefulSet controller cannot create the 400Gi claim (admission: maximum storage usage per PersistentVolumeClaim is 100Gi), so es-data-2 never starts. The two remaining data nodes pass the flood-stage watermark and orders-v7 becomes read-only; order-indexer's bulk requests fail and back-office search stops showing new orders. The watermark and cluster_block errors are the symptom, the scale-up the trigger; backoffice-api's release and the old rejected-execution errors are not the cause.",
            [
                f"StatefulSet es-data FailedCreate: {forbidden}",
                "LimitRange pvc-bounds: PersistentVolumeClaim storage max 100Gi",
                "es-data 2/3, flood stage watermark on es-data-0 / es-data-1",
            ],
            "Exempt the search namespace from pvc-bounds (or raise its max to 500Gi) so the claim is created, wait for es-data-2 to join and relocate shards, then clear the read-only-allow-delete block on orders-v7 and reindex the missed orders.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "backoffice-api",
                pods_of(bo),
                ["GET /orders/search?q={n} 200 {ms}ms", "GET /orders/{n} 200 {ms}ms"],
                8,
            )
        ],
        evs=evs,
        services=[
            svc("backoffice-api", 18, {"500": (0.0005, 0.0007)}, (0.09, 0.1)),
            svc(
                "order-indexer",
                12,
                {"500": (0.0, 0.6)},
                (0.04, 0.03),
                change_at=start + 320,
            ),
        ],
        gauges=[
            {
                "name": "elasticsearch_filesystem_data_used_percent",
                "labels": {"cluster": "search", "node": "es-data-0"},
                "before": 88,
                "after": 95.3,
                "change_at": start + 300,
                "noise": 0.004,
            }
        ],
        books={
            "es-flood-stage.md": runbook(
                "Elasticsearch flood stage",
                "When an index is blocked by the flood-stage watermark, delete old indices (orders-v6, *-archive) or raise cluster.routing.allocation.disk.watermark.flood_stage to 97%, then remove the read-only-allow-delete block with PUT orders-v7/_settings.",
            )
        },
    )


# =================================================================================================
# 2. Scheduling: the database node group moved to a new launch template (ng-db-v2, new AMI) this
#    morning. The old template reserved 2Mi huge pages on the kernel command line; the new one does
#    not, so the new nodes offer hugepages-2Mi: 0. The CloudNativePG cluster orders-pg asks for
#    2Gi of hugepages-2Mi per instance. The rotation drained the two standbys; they stay Pending.
#    The primary (on the last old node, kept by its PDB) waits for a synchronous standby on every
#    commit: orders hang. The incident says "checkout".
# =================================================================================================

NODES_DB = [
    ("ip-10-61-1-24.us-east-1.compute.internal", "Ready", "10.61.1.24", "41d"),
    ("ip-10-61-2-118.us-east-1.compute.internal", "Ready", "10.61.2.118", "41d"),
    ("ip-10-61-1-90.us-east-1.compute.internal", "Ready", "10.61.1.90", "3h"),
    ("ip-10-61-2-45.us-east-1.compute.internal", "Ready", "10.61.2.45", "3h"),
    ("ip-10-61-3-162.us-east-1.compute.internal", "Ready", "10.61.3.162", "3h"),
    (
        "ip-10-61-3-31.us-east-1.compute.internal",
        "Ready,SchedulingDisabled",
        "10.61.3.31",
        "96d",
    ),
]


@scenario("cnpg-standbys-pending-hugepages-new-nodegroup")
def cnpg_standbys_pending_hugepages_new_nodegroup() -> dict[str, Any]:
    start = -1800
    ns = "orders"
    pg = app(
        "orders-pg",
        image="ghcr.io/cloudnative-pg/postgresql:16.4",
        port=5432,
        rs="",
        kind="StatefulSet",
        service=False,
        desired=3,
        labels="cnpg.io/cluster=orders-pg",
        pods=[
            ("1", "1/1", "Running", "0", "96d", 5),
            ("2", "0/1", "Pending", "0", "2h", -1),
            ("3", "0/1", "Pending", "0", "2h", -1),
        ],
    )
    co = app(
        "checkout-api",
        image="123456789012.dkr.ecr.us-east-1.amazonaws.com/checkout-api:2026.12.6",
        port=8080,
        rs="5b8d7c6f9",
        cluster_ip="172.20.31.14",
        pods=[
            ("f3kwd", "1/1", "Running", "0", "2h", 0),
            ("m9tqa", "1/1", "Running", "0", "2h", 1),
            ("x2vhn", "1/1", "Running", "0", "2h", 2),
        ],
    )
    k8s = namespace(ns, NODES_DB, [pg, co], seed=450)
    sig = "Insufficient hugepages-2Mi"
    msg = (
        "0/6 nodes are available: 1 node(s) were unschedulable, 2 node(s) didn't match Pod's node affinity/selector, "
        f"3 {sig}. preemption: 0/6 nodes are available: 3 No preemption victims found for incoming pod, 3 Preemption is not helpful for scheduling."
    )
    k8s[f"kubectl get services -n {ns} -o wide"] = table(
        [
            ["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE", "SELECTOR"],
            [
                "checkout-api",
                "ClusterIP",
                "172.20.31.14",
                "<none>",
                "8080/TCP",
                "300d",
                "app=checkout-api",
            ],
            [
                "orders-pg-r",
                "ClusterIP",
                "172.20.31.40",
                "<none>",
                "5432/TCP",
                "400d",
                "cnpg.io/cluster=orders-pg,cnpg.io/podRole=instance",
            ],
            [
                "orders-pg-ro",
                "ClusterIP",
                "172.20.31.41",
                "<none>",
                "5432/TCP",
                "400d",
                "cnpg.io/cluster=orders-pg,cnpg.io/instanceRole=replica",
            ],
            [
                "orders-pg-rw",
                "ClusterIP",
                "172.20.31.42",
                "<none>",
                "5432/TCP",
                "400d",
                "cnpg.io/cluster=orders-pg,cnpg.io/instanceRole=primary",
            ],
        ]
    )
    k8s[f"kubectl get poddisruptionbudgets -n {ns}"] = table(
        [
            ["NAME", "MIN AVAILABLE", "MAX UNAVAILABLE", "ALLOWED DISRUPTIONS", "AGE"],
            ["orders-pg", "1", "N/A", "0", "400d"],
            ["orders-pg-primary", "1", "N/A", "0", "400d"],
        ]
    )
    cont = container_text(
        "postgres",
        pg["image"],
        5432,
        limits="cpu:            4\n  hugepages-2Mi:  2Gi\n  memory:         16Gi",
        requests="cpu:            4\n  hugepages-2Mi:  2Gi\n  memory:         16Gi",
    ).replace(
        "    Port:       5432/TCP (http)\n    Host Port:  0/TCP (http)",
        "    Ports:      5432/TCP (postgresql), 9187/TCP (metrics), 8000/TCP (status)\n    Host Ports: 0/TCP (postgresql), 0/TCP (metrics), 0/TCP (status)",
    )
    for sfx in ("2", "3"):
        name = f"orders-pg-{sfx}"
        k8s[f"kubectl describe pods {name} -n {ns}"] = pending_pod(
            name,
            ns,
            owner="Cluster/orders-pg",
            labels=[
                "cnpg.io/cluster=orders-pg",
                f"cnpg.io/instanceName={name}",
                "cnpg.io/instanceRole=replica",
                "cnpg.io/podRole=instance",
            ],
            sa="orders-pg",
            containers=cont,
            events_rows=[
                (
                    "Warning",
                    "FailedScheduling",
                    "90s (x25 over 2h)",
                    "default-scheduler",
                    msg,
                ),
            ],
        ).replace(
            "QoS Class:                   Burstable",
            "QoS Class:                   Guaranteed\nNode-Selectors:              workload=database",
        )
    old = node_describe(
        NODES_DB[5][0],
        NODES_DB[5][2],
        unschedulable=True,
        taints="node.kubernetes.io/unschedulable:NoSchedule",
        capacity=("8", "65023364Ki", "58"),
        pods_rows=[
            (ns, "orders-pg-1"),
            ("kube-system", "aws-node-7qkzd"),
            ("kube-system", "kube-proxy-9wd2m"),
        ],
    )
    old = retype_node(
        old,
        "r6i.2xlarge",
        -8294400,
        "eks.amazonaws.com/nodegroup=ng-db-v1,workload=database",
    )
    k8s[f"kubectl describe nodes {NODES_DB[5][0]}"] = old.replace(
        "  memory:             65023364Ki\n",
        "  hugepages-2Mi:      4Gi\n  memory:             65023364Ki\n",
    )
    for n in NODES_DB[2:5]:
        new = node_describe(
            n[0],
            n[2],
            capacity=("8", "65023364Ki", "58"),
            pods_rows=[
                ("kube-system", "aws-node-2xk4c"),
                ("kube-system", "kube-proxy-h8m2t"),
            ],
        )
        new = retype_node(
            new,
            "r6i.2xlarge",
            -10800,
            "eks.amazonaws.com/nodegroup=ng-db-v2,workload=database",
        )
        k8s[f"kubectl describe nodes {n[0]}"] = new.replace(
            "  memory:             65023364Ki\n",
            "  hugepages-2Mi:      0\n  memory:             65023364Ki\n",
        )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "2h",
                "Normal",
                "Killing",
                "Pod/orders-pg-2",
                "Stopping container postgres",
            ),
            (
                "2h",
                "Normal",
                "Killing",
                "Pod/orders-pg-3",
                "Stopping container postgres",
            ),
            ("90s", "Warning", "FailedScheduling", "Pod/orders-pg-2", msg),
            ("80s", "Warning", "FailedScheduling", "Pod/orders-pg-3", msg),
        ]
    )
    evs = [
        ev(
            "eks",
            "info",
            "nodegroup ng-db-v2 ACTIVE: launch template lt-0c4f19ad2e7b81d35 version 7 (AMI amazon-eks-node-al2023-x86_64-standard-1.31-v20261201), desired 3; ng-db-v1 scaling to 0 (update strategy: drain, respect PDBs)",
            at=-7300,
        ),
        ev(
            "cloudnative-pg",
            "info",
            '{"level":"info","ts":"2026-12-05T12:{ms}:11Z","msg":"Waiting for the new instance to be scheduled","controller":"cluster","namespace":"orders","name":"orders-pg","instance":"orders-pg-{n}"}',
            **every(-7000, -60, 300),
        ),
        ev(
            "cloudnative-pg",
            "warn",
            '{"level":"info","ts":"2026-12-05T12:58:31Z","msg":"Cannot drain node: primary instance protected by PodDisruptionBudget","controller":"cluster","namespace":"orders","name":"orders-pg","pod":"orders-pg-1"}',
            at=-3800,
        ),
        ev(
            "orders-pg",
            "warn",
            '{"level":"info","ts":"2026-12-05T13:{ms}:02Z","logger":"postgres","msg":"record","logging_pod":"orders-pg-1","record":{"error_severity":"WARNING","sql_state_code":"01000","message":"canceling wait for synchronous replication due to user request","detail":"The transaction has already committed locally, but might not have been replicated to the standby.","backend_type":"client backend","application_name":"checkout-api"}}',
            **every(start, -1, 6),
            pod="orders-pg-1",
        ),
        ev(
            "checkout-api",
            "error",
            "POST /checkout/place-order 500 after 30002ms: psycopg.errors.QueryCanceled: canceling statement due to statement timeout",
            **every(start + 20, -1, 4),
            pods=pods_of(co),
        ),
        ev(
            "checkout-api",
            "info",
            "checkout-api 2026.12.6 started (gift wrap option)",
            at=-7400,
            pods=pods_of(co),
        ),
        ev(
            "checkout-api",
            "error",
            "psycopg.OperationalError: connection failed: server closed the connection unexpectedly",
            **every(-10100, -9900, 40),
            pods=pods_of(co),
        ),
    ]
    return kube_case(
        seed=450,
        start=start,
        inc=incident(
            "Checkout hangs on 'Place order'",
            "checkout",
            start,
            ["spinner then error after 30s"],
        ),
        exp=expected(
            "platform",
            [
                "orders-pg",
                "cluster/orders-pg",
                "orders-pg-2",
                "orders-pg-3",
                "ng-db-v2",
                "hugepages-2Mi",
                "lt-0c4f19ad2e7b81d35",
            ],
            sig,
            "The database node group was replaced by ng-db-v2 (new launch template / AMI) this morning. The old template reserved 2Mi huge pages at boot; the new nodes offer hugepages-2Mi: 0. The CloudNativePG cluster orders-pg requests 2Gi of hugepages-2Mi per instance, so the two standbys drained by the rotation cannot be scheduled (Insufficient hugepages-2Mi). The primary, left on the last cordoned old node by its PDB, runs synchronous replication and waits for a standby on every commit; checkout-api's statement timeout cancels the wait and orders fail. checkout-api's errors and release and the old connection error are not the cause.",
            [
                f"orders-pg-2 / orders-pg-3 Pending: {msg}",
                "ng-db-v2 nodes: hugepages-2Mi 0 (old node 4Gi)",
                "orders-pg-1: canceling wait for synchronous replication",
            ],
            "Reserve huge pages on ng-db-v2 (kernel argument / user data in the launch template) and roll the nodes, or temporarily drop the hugepages request and synchronous replication; keep ng-db-v1 until both standbys are streaming.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "checkout-api",
                pods_of(co),
                [
                    "GET /checkout/summary 200 {ms}ms",
                    "POST /checkout/address 200 {ms}ms",
                ],
                8,
            )
        ],
        evs=evs,
        services=[
            svc("checkout-api", 40, {"500": (0.0005, 0.25)}, (0.12, 2.5)),
        ],
        gauges=[
            {
                "name": "cnpg_pg_replication_streaming_replicas",
                "labels": {"cluster": "orders-pg", "pod": "orders-pg-1"},
                "before": 2,
                "after": 0,
                "change_at": -7000,
                "noise": 0.0,
            }
        ],
        books={
            "checkout-hangs.md": runbook(
                "Checkout hangs",
                "Hanging checkouts are nearly always the payment provider: check checkout-api's Stripe latency panel and, above 5 s, enable the queue-and-retry mode (flag checkout.async_payment).",
            )
        },
    )


# =================================================================================================
# 3. Startup: a Renovate PR merged yesterday bumped the reporting MongoDB image from mongo:5.0.28 to
#    mongo:7.0.14 (two major versions; featureCompatibilityVersion is still 5.0). The StatefulSet's
#    rolling update starts at the highest ordinal, mongo-2, the hidden analytics member: mongod 7.0
#    refuses the 5.0 FCV document and exits; the rollout stops there. reports-api reads with the
#    ANALYTICS tag only and its server selection times out. The incident says "sales reports".
# =================================================================================================


@scenario("mongo-7-image-skips-fcv-6")
def mongo_7_image_skips_fcv_6() -> dict[str, Any]:
    start = -2600
    ns = "reporting"
    mg = app(
        "mongo",
        image="mongo:7.0.14",
        port=27017,
        rs="",
        kind="StatefulSet",
        cluster_ip="None",
        pods=[
            ("0", "1/1", "Running", "0", "88d", 0),
            ("1", "1/1", "Running", "0", "88d", 1),
            ("2", "0/1", "CrashLoopBackOff", "9", "44m", 2),
        ],
    )
    ra = app(
        "reports-api",
        image="registry.gitlab.com/tallyho/reports-api:4.2.0",
        port=8080,
        rs="6d7c9b5f8",
        cluster_ip="10.43.60.21",
        pods=[
            ("c5rlm", "1/1", "Running", "0", "6d", 0),
            ("w8fzk", "1/1", "Running", "0", "6d", 1),
        ],
    )
    sa = app(
        "sales-ui",
        image="registry.gitlab.com/tallyho/sales-ui:9.14.1",
        port=3000,
        rs="58f6c7d9b",
        cluster_ip="10.43.60.40",
        pods=[
            ("b2nqs", "1/1", "Running", "0", "2h", 1),
            ("j6xtp", "1/1", "Running", "0", "2h", 2),
        ],
    )
    k8s = namespace(
        ns,
        NODES_FRA,
        [mg, ra, sa],
        seed=451,
        statefulsets=sts_table([("mongo", "2/3", "2y", "mongod", "mongo:7.0.14")]),
    )
    k8s[f"kubectl get persistentvolumeclaims -n {ns}"] = pvc_table(
        [
            (
                "datadir-mongo-0",
                "pvc-3e9b0d2c-7a41-4f6e-8c15-9d2b6a4e1f70",
                "200Gi",
                "gp3",
                "2y",
            ),
            (
                "datadir-mongo-1",
                "pvc-b7142c8e-5d0a-4e93-a6f2-0c8d3b9e5a41",
                "200Gi",
                "gp3",
                "2y",
            ),
            (
                "datadir-mongo-2",
                "pvc-52f8a1d6-e3b7-4c09-9f4a-7e6c1b2d8a93",
                "200Gi",
                "gp3",
                "2y",
            ),
        ]
    )
    sig = "Invalid feature compatibility version value '5.0'; expected '6.0' or '6.3' or '7.0'"
    fatal = (
        '{"t":{"$date":"2026-12-05T13:58:21.402+00:00"},"s":"F",  "c":"CONTROL",  "id":20573,   "ctx":"initandlisten","msg":"Wrong mongod version","attr":{"error":"UPGRADE PROBLEM: Found an invalid featureCompatibilityVersion document (ERROR: Location4926900: Invalid featureCompatibilityVersion document in admin.system.version: { _id: \\"featureCompatibilityVersion\\", version: \\"5.0\\" }. See https://docs.mongodb.com/master/release-notes/6.0-compatibility/#feature-compatibility. :: caused by :: '
        + sig
        + '. See https://docs.mongodb.com/master/release-notes/6.0-compatibility/#feature-compatibility.). If the current featureCompatibilityVersion is below 6.0, see the documentation on upgrading at https://docs.mongodb.com/master/release-notes/6.0/#upgrade-procedures."}}'
    )
    crash = [
        (
            -99,
            '{"t":{"$date":"2026-12-05T13:58:21.118+00:00"},"s":"I",  "c":"CONTROL",  "id":23285,   "ctx":"main","msg":"Automatically disabling TLS 1.0, to force-enable TLS 1.0 specify --sslDisabledProtocols \'none\'"}',
        ),
        (
            -99,
            '{"t":{"$date":"2026-12-05T13:58:21.130+00:00"},"s":"I",  "c":"CONTROL",  "id":21951,   "ctx":"initandlisten","msg":"Options set by command line","attr":{"options":{"net":{"bindIpAll":true},"replication":{"replSet":"rs-reporting"},"storage":{"dbPath":"/data/db"}}}}',
        ),
        (
            -99,
            '{"t":{"$date":"2026-12-05T13:58:21.133+00:00"},"s":"I",  "c":"STORAGE",  "id":22297,   "ctx":"initandlisten","msg":"Using the XFS filesystem is strongly recommended with the WiredTiger storage engine. See http://dochub.mongodb.org/core/prodnotes-filesystem"}',
        ),
        (-98, fatal),
        (
            -98,
            '{"t":{"$date":"2026-12-05T13:58:21.519+00:00"},"s":"I",  "c":"CONTROL",  "id":20565,   "ctx":"initandlisten","msg":"Now exiting"}',
        ),
        (
            -98,
            '{"t":{"$date":"2026-12-05T13:58:21.519+00:00"},"s":"I",  "c":"CONTROL",  "id":23138,   "ctx":"initandlisten","msg":"Shutting down","attr":{"exitCode":62}}',
        ),
    ]
    name = describe_pod(
        k8s,
        ns,
        mg,
        "2",
        NODES_FRA,
        state=crashloop(62, "Error", -99, -98),
        started=-2640,
        restarts=9,
        owner="StatefulSet/mongo",
        events_rows=[
            (
                "Normal",
                "Pulled",
                "99s (x10 over 44m)",
                "kubelet",
                'Container image "mongo:7.0.14" already present on machine',
            ),
            *backoff_rows(mg, ns, "2", "x190 over 43m"),
        ],
    )
    k8s[f"kubectl logs {name} -n {ns} --previous --tail=1000"] = podlog(crash)
    cont = container_text(
        "mongod",
        "mongo:7.0.14",
        27017,
        limits="memory:  8Gi",
        requests="cpu:      1\n  memory:   8Gi",
    )
    k8s[f"kubectl describe statefulsets mongo -n {ns}"] = sts_describe(
        "mongo",
        ns,
        replicas="3 desired | 3 total",
        status="2 Running / 1 Waiting / 0 Succeeded / 0 Failed",
        containers=cont,
        claims="  Name:          datadir\n  StorageClass:  gp3\n  Labels:        <none>\n  Annotations:   <none>\n  Capacity:      200Gi\n  Access Modes:  [ReadWriteOnce]",
        created=-63072000,
        rows=[
            (
                "Normal",
                "SuccessfulDelete",
                "44m",
                "statefulset-controller",
                "delete Pod mongo-2 in StatefulSet mongo successful",
            ),
            (
                "Normal",
                "SuccessfulCreate",
                "44m",
                "statefulset-controller",
                "create Pod mongo-2 in StatefulSet mongo successful",
            ),
        ],
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "44m",
                "Normal",
                "SuccessfulCreate",
                "StatefulSet/mongo",
                "create Pod mongo-2 in StatefulSet mongo successful",
            ),
            (
                "99s",
                "Normal",
                "Pulled",
                f"Pod/{name}",
                'Container image "mongo:7.0.14" already present on machine',
            ),
            (
                "20s",
                "Warning",
                "BackOff",
                f"Pod/{name}",
                "Back-off restarting failed container mongod in pod mongo-2_reporting(4c1e…)",
            ),
        ]
    )
    evs = [
        ev(
            "gitlab-ci",
            "info",
            "renovate: merged MR !318 'chore(deps): update mongo docker tag to v7.0.14' (infra/reporting-mongo), pipeline 90412 deploy ok",
            at=start - 120,
        ),
        ev("mongo", "error", fatal, **every(start + 60, -98, 300), pod="mongo-2"),
        ev(
            "mongo",
            "info",
            '{"t":{"$date":"2026-12-05T13:{ms}:00.000+00:00"},"s":"I",  "c":"REPL_HB",  "id":23974,   "ctx":"ReplCoord-{ms}","msg":"Heartbeat failed after max retries","attr":{"target":"mongo-2.mongo.reporting.svc.cluster.local:27017","maxHeartbeatRetries":2,"error":{"code":6,"codeName":"HostUnreachable","errmsg":"Error connecting to mongo-2.mongo.reporting.svc.cluster.local:27017 :: caused by :: Connection refused"}}}',
            **every(start + 30, -5, 120),
            pods=["mongo-0", "mongo-1"],
        ),
        ev(
            "reports-api",
            "error",
            'MongoServerSelectionError: Server selection timed out after 30000 ms (readPreference: secondary, tags: [{"nodeType":"ANALYTICS"}]) at Timeout._onTimeout (/app/node_modules/mongodb/lib/sdam/topology.js:278:38)',
            **every(start + 70, -1, 8),
            pods=pods_of(ra),
        ),
        ev(
            "sales-ui",
            "warn",
            "GET /api/reports/sales?range=mtd -> 504 from reports-api after 30.0s",
            **every(start + 80, -2, 10),
            pods=pods_of(sa),
        ),
        ev(
            "sales-ui",
            "info",
            "sales-ui 9.14.1 deployed (new chart colours)",
            at=-7000,
            pods=pods_of(sa),
        ),
        ev(
            "reports-api",
            "warn",
            "slow aggregation on orders_daily: {ms}00 ms (planSummary: COLLSCAN)",
            **every(-7000, -40, 600),
            pods=pods_of(ra),
        ),
        ev(
            "reports-api",
            "error",
            "MongoNetworkError: connection 14 to 10.70.2.61:27017 closed",
            **every(-9900, -9600, 60),
            pods=pods_of(ra),
        ),
    ]
    return kube_case(
        seed=451,
        start=start,
        inc=incident("Sales reports not loading", "sales reports", start),
        exp=expected(
            "application",
            [
                "statefulset/mongo",
                "mongo",
                "mongo-2",
                "mongo:7.0.14",
                "featureCompatibilityVersion",
            ],
            sig,
            "Renovate bumped the reporting MongoDB image from 5.0.28 to 7.0.14, skipping 6.0, while the replica set's featureCompatibilityVersion is still 5.0. The StatefulSet's rolling update started with mongo-2, the hidden ANALYTICS member: mongod 7.0 refuses the 5.0 FCV document (exit 62) and crash-loops, and the rollout stops there. reports-api reads only from the ANALYTICS-tagged secondary, so its server selection times out and sales reports fail. sales-ui's 504s and release, the COLLSCAN warning and the old connection-closed error are not the cause.",
            [
                f"mongo-2 previous log: Wrong mongod version: {sig}",
                "renovate MR !318: mongo 5.0.28 -> 7.0.14",
                "reports-api: server selection timed out (tags nodeType ANALYTICS)",
            ],
            "Roll mongo back to 5.0.28, then upgrade one major version at a time (6.0, setFeatureCompatibilityVersion 6.0, then 7.0) and pin Renovate to minor updates for mongo.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "reports-api",
                pods_of(ra),
                ["GET /api/reports/inventory 200 {ms}ms", "GET /healthz 200 {ms}ms"],
                9,
            )
        ],
        evs=evs,
        services=[
            svc(
                "reports-api", 6, {"504": (0.0, 0.7)}, (0.3, 9.0), change_at=start + 70
            ),
            svc("sales-ui", 10, {"504": (0.0, 0.5)}, (0.08, 6.0), change_at=start + 80),
        ],
        books={
            "reports-slow.md": runbook(
                "Reports slow or timing out",
                "Report timeouts come from unindexed aggregations: find the COLLSCAN in reports-api's log and add the index on orders_daily (date, region) with createIndex in the background.",
            )
        },
    )


# =================================================================================================
# 4. Runtime: two days ago a "tune for bigger nodes" change set
#    `vm_memory_high_watermark.absolute = 6GB` in the rabbitmq-config ConfigMap (was relative 0.4);
#    the pods' memory limit stayed 4Gi. RabbitMQ sizes against the host's 16 GB, so its memory
#    alarm (which would block publishers) never fires before the kernel kills it. Today the e-mail
#    provider slowed down, the notifications queue grew and the brokers are OOMKilled one after
#    another. The incident says "notifications".
# =================================================================================================


@scenario("rabbitmq-watermark-above-container-limit")
def rabbitmq_watermark_above_container_limit() -> dict[str, Any]:
    start = -1900
    ns = "messaging"
    rq = app(
        "rabbitmq",
        image="rabbitmq:3.13.7-management",
        port=5672,
        rs="",
        kind="StatefulSet",
        cluster_ip="172.20.70.5",
        pods=[
            ("0", "1/1", "Running", "5", "30d", 0),
            ("1", "1/1", "Running", "4", "30d", 1),
            ("2", "0/1", "Running", "6", "30d", 2),
        ],
    )
    ns_ = app(
        "notification-sender",
        image="ghcr.io/lumenbank/notification-sender:5.6.1",
        port=8080,
        rs="7d6b8f9c5",
        cluster_ip="172.20.70.20",
        pods=[
            ("a9wfx", "1/1", "Running", "0", "4h", 0),
            ("r3nkq", "1/1", "Running", "0", "4h", 1),
        ],
    )
    k8s = namespace(
        ns,
        NODES_PDX,
        [rq, ns_],
        seed=452,
        configmaps=[("rabbitmq-config", "2", "2d")],
        statefulsets=sts_table(
            [("rabbitmq", "2/3", "400d", "rabbitmq", "rabbitmq:3.13.7-management")]
        ),
    )
    sig = "Memory high watermark set to 5722 MiB (6000000000 bytes) of 15723 MiB (16487038976 bytes) total"
    k8s[f"kubectl get configmaps rabbitmq-config -n {ns} -o yaml"] = (
        "apiVersion: v1\ndata:\n  enabled_plugins: |\n    [rabbitmq_management,rabbitmq_peer_discovery_k8s,rabbitmq_prometheus].\n"
        "  rabbitmq.conf: |\n    cluster_formation.peer_discovery_backend = rabbit_peer_discovery_k8s\n"
        "    cluster_formation.k8s.host = kubernetes.default.svc.cluster.local\n"
        "    queue_master_locator = min-masters\n"
        "    ## PLAT-2291 tune for m6i.xlarge nodes\n"
        "    vm_memory_high_watermark.absolute = 6GB\n"
        "    disk_free_limit.absolute = 2GB\n"
        "kind: ConfigMap\nmetadata:\n  annotations:\n    argocd.argoproj.io/tracking-id: messaging:/ConfigMap:messaging/rabbitmq-config\n"
        f'  creationTimestamp: "2025-10-31T08:12:44Z"\n  name: rabbitmq-config\n  namespace: {ns}\n'
        '  resourceVersion: "918273645"\n  uid: 0c2d7e4b-91a6-4f35-8b27-d3e6a1f905c8\n'
    )
    boot = [
        (0, "[info] <0.229.0> Starting RabbitMQ 3.13.7 on Erlang 26.2.5.4 [jit]"),
        (1, f"[info] <0.229.0> {sig}"),
        (
            1,
            "[info] <0.231.0> Enabling free disk space monitoring (disk free space: 71620313088, total memory: 16487038976)",
        ),
        (2, "[info] <0.229.0> Ready to start client connection listeners"),
        (
            10,
            "[info] <0.1172.0> accepting AMQP connection <0.1172.0> (10.90.1.77:41822 -> 10.90.2.14:5672)",
        ),
    ]

    def rlog(at: float, text: str) -> tuple[float, str]:
        return (at, f"{rts(at)} {text}")

    cont = container_text(
        "rabbitmq",
        rq["image"],
        5672,
        limits="memory:  4Gi",
        requests="cpu:      1\n  memory:   4Gi",
    )
    for sfx, restarts, fin in (("0", 5, -420), ("1", 4, -700), ("2", 6, -175)):
        name = describe_pod(
            k8s,
            ns,
            rq,
            sfx,
            NODES_PDX,
            state=running(fin + 4)
            + f"\n    Last State:     Terminated\n      Reason:       OOMKilled\n      Exit Code:    137\n      Started:      {when(fin - 1300)}\n      Finished:     {when(fin)}",
            started=-2592000,
            ready=sfx != "2",
            restarts=restarts,
            owner="StatefulSet/rabbitmq",
            events_rows=[
                (
                    "Normal",
                    "Pulled",
                    f"{-fin // 60}m",
                    "kubelet",
                    'Container image "rabbitmq:3.13.7-management" already present on machine',
                ),
                (
                    "Warning",
                    "Unhealthy",
                    "40s",
                    "kubelet",
                    "Readiness probe failed: Error: unable to perform an operation on node 'rabbit@rabbitmq-2.rabbitmq-nodes.messaging'.",
                )
                if sfx == "2"
                else (
                    "Normal",
                    "Started",
                    f"{-fin // 60}m",
                    "kubelet",
                    "Started container rabbitmq",
                ),
            ],
        )
        k8s[f"kubectl logs {name} -n {ns} --previous --tail=1000"] = podlog(
            [rlog(fin - 1300 + d, line) for d, line in boot]
            + [
                rlog(
                    fin - 1280,
                    "[info] <0.1201.0> accepting AMQP connection <0.1201.0> (10.90.2.31:50114 -> 10.90.2.14:5672)",
                ),
                rlog(
                    fin - 1279,
                    "[info] <0.1201.0> connection <0.1201.0> (10.90.2.31:50114 -> 10.90.2.14:5672): user 'notification-sender' authenticated and granted access to vhost '/'",
                ),
            ]
        )
        k8s[f"kubectl logs {name} -n {ns} --tail=1000"] = podlog(
            [rlog(fin + 5 + d, line) for d, line in boot]
            + [
                rlog(
                    fin + 60,
                    '[warning] <0.811.0> Message store "628WB79CIFDYO9LJI6DKMI09L/msg_store_persistent": rebuilding indices from scratch',
                )
            ]
        )
    k8s[f"kubectl describe statefulsets rabbitmq -n {ns}"] = sts_describe(
        "rabbitmq",
        ns,
        replicas="3 desired | 3 total",
        status="3 Running / 0 Waiting / 0 Succeeded / 0 Failed",
        containers=cont,
        claims="  Name:          persistence\n  StorageClass:  gp3\n  Labels:        <none>\n  Annotations:   <none>\n  Capacity:      50Gi\n  Access Modes:  [ReadWriteOnce]",
        created=-34560000,
        rows=[],
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "12m",
                "Warning",
                "BackOff",
                "Pod/rabbitmq-1",
                "Back-off restarting failed container rabbitmq in pod rabbitmq-1_messaging(7be2…)",
            ),
            (
                "7m",
                "Normal",
                "Pulled",
                "Pod/rabbitmq-0",
                'Container image "rabbitmq:3.13.7-management" already present on machine',
            ),
            (
                "3m",
                "Normal",
                "Pulled",
                "Pod/rabbitmq-2",
                'Container image "rabbitmq:3.13.7-management" already present on machine',
            ),
            (
                "40s",
                "Warning",
                "Unhealthy",
                "Pod/rabbitmq-2",
                "Readiness probe failed: Error: unable to perform an operation on node 'rabbit@rabbitmq-2.rabbitmq-nodes.messaging'.",
            ),
        ]
    )
    evs = [
        *[
            ev(
                "rabbitmq",
                "info",
                f"{rts(fin + 6)} [info] <0.229.0> {sig}",
                at=fin + 6,
                pod=f"rabbitmq-{i}",
            )
            for i, fin in enumerate((-420, -700, -175))
        ],
        ev(
            "argocd",
            "info",
            "application messaging synced to 4e1a9c2 (PLAT-2291 'rabbitmq: tune for m6i.xlarge nodes'): ConfigMap rabbitmq-config configured",
            at=-7150,
        ),
        ev(
            "notification-sender",
            "warn",
            "postmark send slow: {ms}00 ms (HTTP 200), outbound rate limited to 50/s",
            **every(start - 1500, -10, 45),
            pods=pods_of(ns_),
        ),
        ev(
            "notification-sender",
            "error",
            "pika.exceptions.StreamLostError: Stream connection lost: ConnectionResetError(104, 'Connection reset by peer')",
            **every(start, -5, 60),
            pods=pods_of(ns_),
        ),
        ev(
            "order-service",
            "error",
            "org.springframework.amqp.AmqpConnectException: java.net.ConnectException: Connection refused; publish of OrderConfirmed {n} will be retried",
            **every(start + 10, -5, 30),
        ),
        ev(
            "kernel",
            "warn",
            "Memory cgroup out of memory: Killed process {n} (beam.smp) total-vm:6{n}kB, anon-rss:41{n}kB, file-rss:0kB, shmem-rss:0kB, UID:999 pgtables:9{ms}kB oom_score_adj:-997",
            **every(start + 200, -175, 300),
            labels={"host": "ip-10-90-2-203"},
        ),
        ev(
            "notification-sender",
            "info",
            "notification-sender 5.6.1 started (SMS fallback for OTP)",
            at=-14400,
            pods=pods_of(ns_),
        ),
        ev(
            "order-service",
            "warn",
            "CachingConnectionFactory: channel shutdown: connection error; protocol method: #method<connection.close>(reply-code=320, reply-text=CONNECTION_FORCED - broker forced connection closure with reason 'shutdown')",
            **every(-9800, -9600, 100),
        ),
    ]
    return kube_case(
        seed=452,
        start=start,
        inc=incident(
            "Order confirmation e-mails arriving late or not at all",
            "notifications",
            start,
        ),
        exp=expected(
            "application",
            [
                "statefulset/rabbitmq",
                "rabbitmq",
                "configmap/rabbitmq-config",
                "rabbitmq-config",
                "vm_memory_high_watermark",
                "PLAT-2291",
            ],
            sig,
            "PLAT-2291 set vm_memory_high_watermark.absolute = 6GB in the rabbitmq-config ConfigMap two days ago, while the pods' memory limit stayed 4Gi; RabbitMQ reads the host's 16 GB, so its memory alarm (which would block publishers) never fires below the cgroup limit. When the e-mail provider slowed down and notifications.email grew, each broker passed 4Gi and was OOMKilled (exit 137, 4-6 restarts), dropping connections and delaying or losing confirmations. Postmark's latency is the trigger; notification-sender's and order-service's connection errors and the sender's release are not the cause.",
            [
                f"rabbitmq log: {sig}",
                "rabbitmq-0/1/2 Last State: OOMKilled, limit memory 4Gi",
                "rabbitmq-config: vm_memory_high_watermark.absolute = 6GB (PLAT-2291)",
            ],
            "Set the watermark below the limit (vm_memory_high_watermark.relative = 0.6 with total_memory_available_override_value = 4GB, or an absolute 2.4GB), roll the brokers one at a time, and let the backlog drain under flow control.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "notification-sender",
                pods_of(ns_),
                [
                    "sent email template=order_confirmed id={n} in {ms}ms",
                    "sent sms template=otp id={n}",
                ],
                8,
            )
        ],
        evs=evs,
        services=[
            svc(
                "notification-sender",
                30,
                {"500": (0.0, 0.08)},
                (0.15, 1.1),
                change_at=start - 1500,
            ),
        ],
        gauges=[
            {
                "name": "rabbitmq_queue_messages_ready",
                "labels": {"queue": "notifications.email", "vhost": "/"},
                "before": 40,
                "after": 2100000,
                "change_at": start - 900,
                "noise": 0.1,
            },
            {
                "name": "container_memory_working_set_bytes",
                "labels": {"pod": "rabbitmq-2", "container": "rabbitmq"},
                "before": 1100000000,
                "after": 4100000000,
                "change_at": start,
                "noise": 0.05,
            },
        ],
        books={
            "notifications-delayed.md": runbook(
                "Notifications delayed",
                "Late e-mails mean Postmark is slow or rate limiting us: check the Postmark status page and notification-sender's send latency; raise the sender's outbound rate limit if Postmark is healthy.",
            )
        },
    )


# =================================================================================================
# 5. Node / infrastructure: the EBS volume behind one node's data disk (nvme1n1) is degraded on the
#    AWS side (Health event AWS_EBS_DEGRADED_EBS_VOLUME_PERFORMANCE). I/O on the node stalls: NVMe
#    timeouts, hung jbd2 tasks, node-problem-detector's TaskHung. cassandra-4, whose data is on
#    that disk, stays "Running" but answers reads and writes late, so coordinators time out at
#    LOCAL_QUORUM for every token range it replicates. The incident says "feed".
# =================================================================================================

NODES_CASS = [
    ("ip-10-61-1-24.us-east-1.compute.internal", "Ready", "10.61.1.24", "60d"),
    ("ip-10-61-2-118.us-east-1.compute.internal", "Ready", "10.61.2.118", "60d"),
    ("ip-10-61-3-205.us-east-1.compute.internal", "Ready", "10.61.3.205", "60d"),
    ("ip-10-61-1-77.us-east-1.compute.internal", "Ready", "10.61.1.77", "60d"),
    ("ip-10-61-2-9.us-east-1.compute.internal", "Ready", "10.61.2.9", "60d"),
    ("ip-10-61-3-140.us-east-1.compute.internal", "Ready", "10.61.3.140", "60d"),
]


@scenario("ebs-volume-degraded-stalls-cassandra-node")
def ebs_volume_degraded_stalls_cassandra_node() -> dict[str, Any]:
    start = -1500
    ns = "feeds"
    bad = NODES_CASS[5][0]
    ca = app(
        "cassandra",
        image="cassandra:4.1.7",
        port=9042,
        rs="",
        kind="StatefulSet",
        cluster_ip="None",
        pods=[(str(i), "1/1", "Running", "0", "60d", i) for i in range(6)],
    )
    fa = app(
        "feed-api",
        image="123456789012.dkr.ecr.us-east-1.amazonaws.com/feed-api:8.3.0",
        port=8080,
        rs="6c9f7b8d5",
        cluster_ip="172.20.44.10",
        pods=[
            ("d7wmk", "1/1", "Running", "0", "5h", 0),
            ("n2fqs", "1/1", "Running", "0", "5h", 2),
            ("t5lrx", "1/1", "Running", "0", "5h", 4),
        ],
    )
    k8s = namespace(
        ns,
        NODES_CASS,
        [ca, fa],
        seed=453,
        statefulsets=sts_table(
            [("cassandra", "6/6", "2y", "cassandra", "cassandra:4.1.7")]
        ),
    )
    sig = "blocked for more than 120 seconds"
    hung = f"kernel: INFO: task jbd2/nvme1n1-8:2841 {sig}."
    for i, n in enumerate(NODES_CASS):
        text = retype_node(
            node_describe(
                n[0],
                n[2],
                capacity=("16", "130451256Ki", "58"),
                pods_rows=[
                    (ns, f"cassandra-{i}"),
                    (
                        "kube-system",
                        "ebs-csi-node-" + "x7k2p9w4m8q3"[i * 2 : i * 2 + 5],
                    ),
                ],
            ),
            "r6i.4xlarge",
            -5184000,
            "eks.amazonaws.com/nodegroup=ng-cassandra,topology.kubernetes.io/zone=us-east-1"
            + "abcabc"[i],
        )
        if n[0] == bad:
            text = text.replace(
                "Events:\n  <none>\n",
                "Events:\n"
                "  Type     Reason    Age                From            Message\n"
                "  ----     ------    ----               ----            -------\n"
                f"  Warning  TaskHung  2m (x11 over 23m)  kernel-monitor  {hung}\n",
            )
            assert hung in text
        k8s[f"kubectl describe nodes {n[0]}"] = text
    describe_pod(
        k8s,
        ns,
        ca,
        "5",
        NODES_CASS,
        state=running(-5184000),
        started=-5184000,
        ready=True,
        owner="StatefulSet/cassandra",
        events_rows=[
            (
                "Warning",
                "Unhealthy",
                "3m (x6 over 21m)",
                "kubelet",
                'Readiness probe failed: command timed out: "/opt/ready-probe.sh" timed out after 10s',
            ),
        ],
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "21m",
                "Warning",
                "Unhealthy",
                "Pod/cassandra-5",
                'Readiness probe failed: command timed out: "/opt/ready-probe.sh" timed out after 10s',
            ),
            (
                "3m",
                "Warning",
                "Unhealthy",
                "Pod/cassandra-5",
                'Readiness probe failed: command timed out: "/opt/ready-probe.sh" timed out after 10s',
            ),
        ]
    )
    k8s["kubectl events -n default"] = events(
        [
            ("23m", "Warning", "TaskHung", f"Node/{bad}", hung),
            ("2m", "Warning", "TaskHung", f"Node/{bad}", hung),
        ]
    )
    k8s[f"kubectl get persistentvolumeclaims -n {ns}"] = pvc_table(
        [
            (
                f"data-cassandra-{i}",
                f"pvc-5d1e8a{i}c-2f4b-4c7e-9a31-7b0e6d2f4c8{i}",
                "1Ti",
                "gp3-data",
                "2y",
            )
            for i in range(6)
        ]
    )
    fp = pods_of(fa)
    evs = [
        ev(
            "aws-health",
            "warn",
            'AWS Health event AWS_EBS_DEGRADED_EBS_VOLUME_PERFORMANCE (us-east-1c): "Your volume vol-0e83a1f4c2d97b615 is experiencing degraded performance due to an issue with the underlying hardware" (attached to i-04b7d2e9a1c3f5086, /dev/xvdb)',
            at=start + 300,
        ),
        ev(
            "kernel",
            "error",
            "nvme nvme1: I/O {ms} QID 3 timeout, aborting",
            **every(start, -5, 20),
            labels={"host": "ip-10-61-3-140"},
        ),
        ev(
            "kernel",
            "error",
            hung,
            **every(start + 120, -60, 120),
            labels={"host": "ip-10-61-3-140"},
        ),
        ev(
            "cassandra",
            "warn",
            "WARN  [ScheduledTasks:1] 2026-12-05 13:{ms}:02,118 NoSpamLogger.java:108 - Some operations were slow, details available at debug level (debug.log)",
            **every(start + 30, -10, 60),
            pod="cassandra-5",
        ),
        ev(
            "cassandra",
            "info",
            "INFO  [GossipTasks:1] 2026-12-05 13:{ms}:40,310 Gossiper.java:1131 - InetAddress /10.61.3.{ms} is now DOWN",
            **every(-9300, -9100, 100),
            pods=["cassandra-0", "cassandra-2"],
        ),
        ev(
            "feed-api",
            "error",
            "com.datastax.oss.driver.api.core.servererrors.ReadTimeoutException: Cassandra timeout during read query at consistency LOCAL_QUORUM (2 responses were required but only 1 replica responded)",
            **every(start + 40, -1, 3),
            pods=fp,
        ),
        ev(
            "feed-api",
            "error",
            "com.datastax.oss.driver.api.core.servererrors.WriteTimeoutException: Cassandra timeout during SIMPLE write query at consistency LOCAL_QUORUM (2 replica were required but only 1 acknowledged the write)",
            **every(start + 50, -2, 11),
            pods=fp,
        ),
        ev(
            "feed-api",
            "info",
            "feed-api 8.3.0 started (ranking model v41)",
            at=-5600,
            pods=fp,
        ),
        ev(
            "ranker",
            "warn",
            "model v41 cold cache: p95 {ms}0 ms",
            **every(-5500, -20, 300),
        ),
    ]
    return kube_case(
        seed=453,
        start=start,
        inc=incident(
            "Feed not loading for some users",
            "feed",
            start,
            ["timeline spins, sometimes works on retry"],
        ),
        exp=expected(
            "platform",
            [
                f"node/{bad}",
                bad,
                "ip-10-61-3-140",
                "vol-0e83a1f4c2d97b615",
                "nvme1n1",
                "cassandra-5",
            ],
            sig,
            f"The EBS volume behind node {bad}'s data disk (vol-0e83a1f4c2d97b615, nvme1n1) is degraded on the AWS side. I/O on the node stalls: NVMe timeouts, jbd2 hung for more than 120 seconds, node-problem-detector's TaskHung. cassandra-5, whose data lives there, stays Running but answers late, so coordinators time out at LOCAL_QUORUM on every token range it replicates and part of the feed fails. feed-api's timeouts and its release, the ranker's cold cache and the old gossip flap are not the cause.",
            [
                f"Node {bad}: TaskHung {hung}",
                "kernel: nvme nvme1: I/O timeout, aborting",
                "AWS Health AWS_EBS_DEGRADED_EBS_VOLUME_PERFORMANCE vol-0e83a1f4c2d97b615",
            ],
            "Take cassandra-5 out (nodetool drain / stop it so the driver routes around it), cordon and replace the node, and rebuild the replica on a new volume (replace_address); run repair afterwards.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "feed-api",
                fp,
                ["GET /v2/feed?cursor={n} 200 {ms}ms", "GET /v2/posts/{n} 200 {ms}ms"],
                8,
            )
        ],
        evs=evs,
        services=[svc("feed-api", 220, {"500": (0.0005, 0.16)}, (0.04, 0.6))],
        gauges=[
            {
                "name": "node_disk_io_time_seconds_total_rate",
                "labels": {"instance": "ip-10-61-3-140", "device": "nvme1n1"},
                "before": 0.18,
                "after": 1.0,
                "change_at": start,
                "noise": 0.02,
                "cap": 1.0,
            },
            {
                "name": "cassandra_client_request_latency_p99_seconds",
                "labels": {"instance": "cassandra-5", "scope": "Read"},
                "before": 0.012,
                "after": 4.8,
                "change_at": start,
            },
        ],
        books={
            "feed-slow.md": runbook(
                "Feed slow",
                "Feed latency follows the ranker: if a new model version is warming up, pin the previous model (RANKER_MODEL=v40) and restart feed-api.",
            )
        },
    )


# =================================================================================================
# 6. Service routing: the session Redis moved from the Bitnami chart to the in-house `redis-ha`
#    chart 2.0.0 this afternoon. Its Service `session-redis` selects `app.kubernetes.io/name=session-redis`
#    (the old one also required `redis-role=master`, kept up to date by the Sentinel sidecar), so
#    it load-balances over the master and both replicas: two writes in three go to a replica and
#    fail with READONLY. The incident says "my account".
# =================================================================================================


@scenario("redis-service-selector-includes-replicas")
def redis_service_selector_includes_replicas() -> dict[str, Any]:
    start = -2700
    ns = "accounts"
    lab = (
        "app.kubernetes.io/instance=session-redis,app.kubernetes.io/name=session-redis"
    )
    master = app(
        "session-redis",
        image="redis:7.2.6",
        port=6379,
        rs="",
        kind="StatefulSet",
        cluster_ip="172.20.90.17",
        labels=lab + ",redis-role=master",
        pods=[("0", "2/2", "Running", "0", "47m", 0)],
    )
    replicas = app(
        "session-redis",
        image="redis:7.2.6",
        port=6379,
        rs="",
        kind="StatefulSet",
        service=False,
        labels=lab + ",redis-role=replica",
        pods=[
            ("1", "2/2", "Running", "0", "47m", 1),
            ("2", "2/2", "Running", "0", "47m", 2),
        ],
    )
    acc = app(
        "account-api",
        image="ghcr.io/orbitly/account-api:14.2.0",
        port=8000,
        rs="5c8f7d6b9",
        cluster_ip="172.20.90.30",
        pods=[
            ("g4xnw", "1/1", "Running", "0", "3d", 0),
            ("p9tdk", "1/1", "Running", "0", "3d", 1),
            ("z3mhr", "1/1", "Running", "0", "3d", 2),
        ],
    )
    k8s = namespace(
        ns,
        NODES_IAD,
        [master, replicas, acc],
        seed=454,
        statefulsets=sts_table(
            [
                (
                    "session-redis",
                    "3/3",
                    "47m",
                    "redis,sentinel",
                    "redis:7.2.6,redis:7.2.6",
                )
            ]
        ),
    )
    k8s[f"kubectl get services -n {ns} -o wide"] = table(
        [
            ["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE", "SELECTOR"],
            [
                "account-api",
                "ClusterIP",
                "172.20.90.30",
                "<none>",
                "8000/TCP",
                "2y",
                "app=account-api",
            ],
            [
                "session-redis",
                "ClusterIP",
                "172.20.90.17",
                "<none>",
                "6379/TCP",
                "47m",
                "app.kubernetes.io/instance=session-redis,app.kubernetes.io/name=session-redis",
            ],
            [
                "session-redis-headless",
                "ClusterIP",
                "None",
                "<none>",
                "6379/TCP,26379/TCP",
                "47m",
                "app.kubernetes.io/instance=session-redis,app.kubernetes.io/name=session-redis",
            ],
        ]
    )
    ips = {}
    for line in k8s[f"kubectl get pods -n {ns} -o wide --show-labels"].splitlines()[1:]:
        cells = line.split()
        ips[cells[0]] = cells[5]
    eps = ",".join(f"{ips[f'session-redis-{i}']}:6379" for i in range(3))
    k8s[f"kubectl get endpoints -n {ns}"] = table(
        [
            ["NAME", "ENDPOINTS", "AGE"],
            ["account-api", ",".join(f"{ips[p]}:8000" for p in pods_of(acc)), "2y"],
            ["session-redis", eps, "47m"],
            ["session-redis-headless", eps + " + 3 more...", "47m"],
        ]
    )
    k8s[f"kubectl describe services session-redis -n {ns}"] = (
        f"Name:                     session-redis\nNamespace:                {ns}\n"
        "Labels:                   app.kubernetes.io/instance=session-redis\n"
        "                          app.kubernetes.io/managed-by=Helm\n"
        "                          app.kubernetes.io/name=session-redis\n"
        "                          helm.sh/chart=redis-ha-2.0.0\n"
        "Annotations:              meta.helm.sh/release-name: session-redis\n"
        f"                          meta.helm.sh/release-namespace: {ns}\n"
        "Selector:                 app.kubernetes.io/instance=session-redis,app.kubernetes.io/name=session-redis\n"
        "Type:                     ClusterIP\nIP Family Policy:         SingleStack\nIP Families:              IPv4\n"
        "IP:                       172.20.90.17\nIPs:                      172.20.90.17\n"
        "Port:                     tcp-redis  6379/TCP\nTargetPort:               redis/TCP\n"
        f"Endpoints:                {eps}\n"
        "Session Affinity:         None\nInternal Traffic Policy:  Cluster\nEvents:                   <none>\n"
    )
    sig = "You can't write against a read only replica."
    ap = pods_of(acc)
    evs = [
        ev(
            "argocd",
            "info",
            "application session-redis synced: chart redis-ha 2.0.0 (was bitnami/redis 18.19.2), Service session-redis configured, StatefulSet session-redis created (ticket PLAT-1777 'own the redis chart')",
            at=start - 90,
        ),
        ev(
            "session-redis",
            "info",
            "1:X 05 Dec 2026 13:{ms}:10.118 # +monitor master mymaster 10.61.1.{ms} 6379 quorum 2",
            at=start - 60,
            pod="session-redis-0",
        ),
        ev(
            "account-api",
            "error",
            'Traceback (most recent call last):\n  File "/app/account/session.py", line 88, in save\n    self.redis.setex(key, ttl, payload)\n  File "/usr/local/lib/python3.12/site-packages/redis/commands/core.py", line 2330, in setex\n    return self.execute_command("SETEX", name, time, value)\nredis.exceptions.ReadOnlyError: '
            + sig,
            **every(start, -1, 4),
            pods=ap,
        ),
        ev(
            "account-api",
            "warn",
            "POST /account/profile 401: session {n} not found after login, asking user to sign in again",
            **every(start + 10, -1, 5),
            pods=ap,
        ),
        ev(
            "web-frontend",
            "error",
            "GET /account 302 -> /login (session expired) for user {n}",
            **every(start + 15, -1, 3),
        ),
        ev(
            "account-api",
            "info",
            "account-api 14.2.0 started (passkey enrolment)",
            at=-3300,
            pods=ap,
        ),
        ev(
            "session-redis",
            "warn",
            "1:M 05 Dec 2026 11:{ms}:22.004 # WARNING Memory overcommit must be enabled! Without it, a background save or replication may fail under low memory condition.",
            at=-10300,
            pod="session-redis-master-0",
        ),
    ]
    return kube_case(
        seed=454,
        start=start,
        inc=incident(
            "Users keep getting logged out of My Account", "my account", start
        ),
        exp=expected(
            "connect",
            [
                "service/session-redis",
                "session-redis",
                "redis-ha 2.0.0",
                "redis-ha-2.0.0",
                "redis-role=master",
            ],
            sig,
            "The session Redis moved to the in-house redis-ha 2.0.0 chart. Its Service session-redis selects app.kubernetes.io/name=session-redis only; the Bitnami Service also required redis-role=master, which the Sentinel sidecar keeps on the current master. Now the Service's endpoints are the master and both replicas, so about two writes in three land on a replica and fail with READONLY: sessions are not saved and users are sent back to the login page. account-api's 401s and release, web-frontend's redirects and the old overcommit warning are not the cause.",
            [
                f"account-api: redis.exceptions.ReadOnlyError: {sig}",
                "Service session-redis selector app.kubernetes.io/name=session-redis, 3 endpoints (master and 2 replicas)",
                "argocd: chart redis-ha 2.0.0 replaced bitnami/redis",
            ],
            "Add redis-role=master to the Service selector in redis-ha (or make the clients Sentinel-aware), then check that sessions persist.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "account-api",
                ap,
                ["GET /account/orders 200 {ms}ms", "GET /account/profile 200 {ms}ms"],
                8,
            )
        ],
        evs=evs,
        services=[
            svc(
                "account-api",
                45,
                {"401": (0.002, 0.3), "500": (0.0005, 0.3)},
                (0.03, 0.03),
            ),
        ],
        books={
            "logouts.md": runbook(
                "Users logged out",
                "Sudden logouts follow a rotated session signing key: check SESSION_SECRET in account-api's secret and roll account-api so every pod uses the same key.",
            )
        },
    )


# =================================================================================================
# 7. DNS: the on-prem cluster k8s-ber2 was built with clusterDomain ber2.local (so its names do not
#    clash in the federated DNS). Kafka moved there this morning with its hand-written manifests,
#    which advertise the client listener as <pod>.kafka-headless.streaming.svc.cluster.local.
#    Clients bootstrap through the Service and get that name back in the metadata; in this cluster
#    the name does not exist (NXDOMAIN from upstream), so producers and consumers cannot reach any
#    partition leader. The brokers talk to each other by IP and look healthy. The incident says
#    "order tracking".
# =================================================================================================

NODES_BER = [
    ("k8s-ber2-w01", "Ready", "10.44.8.21", "30d"),
    ("k8s-ber2-w02", "Ready", "10.44.8.22", "30d"),
    ("k8s-ber2-w03", "Ready", "10.44.8.23", "30d"),
]


@scenario("kafka-advertised-cluster-local-other-domain")
def kafka_advertised_cluster_local_other_domain() -> dict[str, Any]:
    start = -2100
    ns = "streaming"
    kf = app(
        "kafka",
        image="apache/kafka:3.8.1",
        port=9092,
        rs="",
        kind="StatefulSet",
        cluster_ip="None",
        service=False,
        pods=[(str(i), "1/1", "Running", "0", "2h", i) for i in range(3)],
    )
    te = app(
        "tracking-events",
        image="harbor.ber2.example/logistics/tracking-events:6.0.3",
        port=8080,
        rs="8d6f7c9b5",
        cluster_ip="10.96.41.12",
        pods=[
            ("c2pxl", "1/1", "Running", "0", "2h", 0),
            ("s7kwd", "1/1", "Running", "0", "2h", 1),
        ],
    )
    ta = app(
        "tracking-api",
        image="harbor.ber2.example/logistics/tracking-api:11.4.2",
        port=8080,
        rs="6b9d8f7c5",
        cluster_ip="10.96.41.30",
        pods=[
            ("f8rqm", "1/1", "Running", "0", "2h", 1),
            ("w3zvh", "1/1", "Running", "0", "2h", 2),
        ],
    )
    k8s = namespace(
        ns,
        NODES_BER,
        [kf, te, ta],
        seed=455,
        configmaps=[("kafka-config", "1", "2h")],
        statefulsets=sts_table([("kafka", "3/3", "2h", "kafka", "apache/kafka:3.8.1")]),
    )
    k8s["kubectl get nodes -o wide"] = table(
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
            ],
            *[
                [
                    n,
                    st,
                    "<none>",
                    age,
                    "v1.30.6",
                    ip,
                    "<none>",
                    "Ubuntu 24.04.1 LTS",
                    "6.8.0-49-generic",
                    "containerd://1.7.22",
                ]
                for n, st, ip, age in NODES_BER
            ],
        ]
    )
    k8s[f"kubectl get services -n {ns} -o wide"] = table(
        [
            ["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE", "SELECTOR"],
            [
                "kafka-bootstrap",
                "ClusterIP",
                "10.96.41.5",
                "<none>",
                "9092/TCP",
                "2h",
                "app=kafka",
            ],
            [
                "kafka-headless",
                "ClusterIP",
                "None",
                "<none>",
                "9092/TCP,9093/TCP,9094/TCP",
                "2h",
                "app=kafka",
            ],
            [
                "tracking-api",
                "ClusterIP",
                "10.96.41.30",
                "<none>",
                "8080/TCP",
                "2h",
                "app=tracking-api",
            ],
            [
                "tracking-events",
                "ClusterIP",
                "10.96.41.12",
                "<none>",
                "8080/TCP",
                "2h",
                "app=tracking-events",
            ],
        ]
    )
    k8s[f"kubectl get configmaps kafka-config -n {ns} -o yaml"] = (
        "apiVersion: v1\ndata:\n  server.properties.tpl: |\n    process.roles=broker,controller\n"
        "    node.id=${ORDINAL}\n"
        "    controller.quorum.voters=0@${POD_IP_0}:9093,1@${POD_IP_1}:9093,2@${POD_IP_2}:9093\n"
        "    listeners=CLIENT://:9092,CONTROLLER://:9093,INTERNAL://:9094\n"
        "    advertised.listeners=CLIENT://${POD_NAME}.kafka-headless.streaming.svc.cluster.local:9092,INTERNAL://${POD_IP}:9094\n"
        "    inter.broker.listener.name=INTERNAL\n"
        "    listener.security.protocol.map=CLIENT:PLAINTEXT,CONTROLLER:PLAINTEXT,INTERNAL:PLAINTEXT\n"
        "    log.dirs=/var/lib/kafka/data\n    default.replication.factor=3\n    min.insync.replicas=2\n"
        "kind: ConfigMap\nmetadata:\n  annotations:\n    kubectl.kubernetes.io/last-applied-configuration: '…'\n"
        f'  creationTimestamp: "2026-12-05T11:58:02Z"\n  name: kafka-config\n  namespace: {ns}\n'
        '  resourceVersion: "2210987"\n  uid: 5b0e2d7a-1c94-4f6b-a8e3-9d2f71c0b654\n'
    )
    k8s["kubectl get configmaps coredns -n kube-system -o yaml"] = (
        "apiVersion: v1\ndata:\n  Corefile: |\n    .:53 {\n        errors\n        health {\n           lameduck 5s\n        }\n        ready\n"
        "        kubernetes ber2.local in-addr.arpa ip6.arpa {\n           pods insecure\n           fallthrough in-addr.arpa ip6.arpa\n           ttl 30\n        }\n"
        "        prometheus :9153\n        forward . 10.44.0.53 10.44.0.54 {\n           max_concurrent 1000\n        }\n"
        "        cache 30\n        log\n        loop\n        reload\n        loadbalance\n    }\n"
        'kind: ConfigMap\nmetadata:\n  creationTimestamp: "2026-11-05T09:02:11Z"\n  name: coredns\n  namespace: kube-system\n'
        '  resourceVersion: "2214"\n  uid: 91c4e7d2-3a5f-4b08-8e61-c2d9f0a7b315\n'
    )
    sig = "java.net.UnknownHostException: kafka-1.kafka-headless.streaming.svc.cluster.local"
    brok = [
        (
            -7050,
            "[2026-12-05 12:02:30,112] INFO [KafkaRaftServer nodeId=1] Kafka Server started (kafka.server.KafkaRaftServer)",
        ),
        (
            -7040,
            "[2026-12-05 12:02:40,441] INFO [BrokerLifecycleManager id=1] The broker has been unfenced. Transitioning from RECOVERY to RUNNING. (kafka.server.BrokerLifecycleManager)",
        ),
        (
            -300,
            "[2026-12-05 13:55:00,004] INFO [GroupCoordinator 1]: Member tracking-api-7c1e… in group tracking-api has failed, removing it from the group (kafka.coordinator.group.GroupCoordinator)",
        ),
    ]
    k8s[f"kubectl logs kafka-1 -n {ns} --tail=1000"] = podlog(brok)
    evs = [
        ev(
            "argocd",
            "info",
            "application streaming (cluster k8s-ber2) synced: StatefulSet kafka, ConfigMap kafka-config, Services kafka-bootstrap / kafka-headless created (LOG-512 'move order tracking to Berlin 2')",
            at=-7200,
        ),
        ev(
            "tracking-events",
            "warn",
            "[kafka-producer-network-thread | tracking-events-1] WARN org.apache.kafka.clients.NetworkClient - [Producer clientId=tracking-events-1] Error connecting to node kafka-1.kafka-headless.streaming.svc.cluster.local:9092 (id: 1 rack: null)\n"
            + sig
            + ": Name or service not known\n\tat java.base/java.net.Inet6AddressImpl.lookupAllHostAddr(Native Method)\n\tat org.apache.kafka.clients.DefaultHostResolver.resolve(DefaultHostResolver.java:27)",
            **every(start, -1, 6),
            pods=pods_of(te),
        ),
        ev(
            "tracking-events",
            "error",
            "[http-nio-8080-exec-{ms}] ERROR c.l.t.StatusPublisher - send failed for shipment {n}: org.apache.kafka.common.errors.TimeoutException: Expiring 14 record(s) for shipment-status-4:120000 ms has passed since batch creation",
            **every(start + 120, -2, 5),
            pods=pods_of(te),
        ),
        ev(
            "coredns",
            "info",
            '[INFO] 10.244.1.{ms}:4{ms}1 - {n} "A IN kafka-{ms}.kafka-headless.streaming.svc.cluster.local. udp 79 false 1232" NXDOMAIN qr,rd,ra 172 0.00{ms}s',
            **every(start, -1, 5),
            labels={"namespace": "kube-system"},
        ),
        ev(
            "tracking-api",
            "warn",
            "consumer group tracking-api: no partitions assigned for {n} ms; shipment status may be stale",
            **every(start + 300, -10, 60),
            pods=pods_of(ta),
        ),
        ev(
            "coredns",
            "error",
            "[ERROR] plugin/errors: 2 metrics-push.ber2.example. AAAA: read udp 10.244.2.{ms}:5{ms}1->10.44.0.54:53: i/o timeout",
            **every(-6800, -100, 700),
            labels={"namespace": "kube-system"},
        ),
        ev(
            "tracking-api",
            "info",
            "tracking-api 11.4.2 started on k8s-ber2 (profile ber2)",
            at=-7000,
            pods=pods_of(ta),
        ),
        ev(
            "tracking-events",
            "error",
            "org.apache.kafka.common.errors.NotLeaderOrFollowerException: For requests intended only for the leader, this error indicates that the broker is not the current leader.",
            **every(-10000, -9800, 50),
            pods=pods_of(te),
        ),
    ]
    return kube_case(
        seed=455,
        start=start,
        inc=incident("Order tracking not updating", "order tracking", start),
        exp=expected(
            "dns",
            [
                "statefulset/kafka",
                "kafka",
                "configmap/kafka-config",
                "kafka-config",
                "advertised.listeners",
                "cluster.local",
                "ber2.local",
            ],
            sig,
            "The Kafka brokers moved to k8s-ber2 this morning, a cluster built with clusterDomain ber2.local. Their manifests advertise the client listener as <pod>.kafka-headless.streaming.svc.cluster.local, a name that does not exist there (CoreDNS is authoritative for ber2.local and forwards cluster.local upstream, which answers NXDOMAIN). Clients bootstrap through kafka-bootstrap, receive the advertised names in the metadata and cannot resolve any partition leader: producers expire their batches and the tracking consumer gets no partitions. The brokers replicate over the INTERNAL listener by IP and look healthy. tracking-events' timeouts, tracking-api's release, CoreDNS's unrelated upstream timeouts and the old NotLeaderOrFollower errors are not the cause.",
            [
                f"tracking-events: {sig}: Name or service not known",
                "kafka-config: advertised.listeners=CLIENT://${POD_NAME}.kafka-headless.streaming.svc.cluster.local:9092",
                "CoreDNS: kubernetes ber2.local; NXDOMAIN for kafka-*.kafka-headless.streaming.svc.cluster.local",
            ],
            "Advertise the cluster's own domain (…svc.ber2.local, or the short name kafka-1.kafka-headless.streaming.svc) in kafka-config and roll the brokers one at a time; replay the expired shipment updates.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "tracking-api",
                pods_of(ta),
                [
                    "GET /v1/shipments/{n} 200 {ms}ms",
                    "GET /v1/shipments/{n}/events 200 {ms}ms",
                ],
                8,
            )
        ],
        evs=evs,
        services=[
            svc("tracking-api", 50, {"500": (0.0004, 0.0005)}, (0.03, 0.03)),
            svc(
                "tracking-events",
                25,
                {"500": (0.0, 0.3)},
                (0.02, 2.0),
                change_at=start + 120,
            ),
        ],
        gauges=[
            {
                "name": "kafka_consumergroup_lag",
                "labels": {"group": "tracking-api", "topic": "shipment-status"},
                "before": 20,
                "after": 0,
                "change_at": start,
                "noise": 0.0,
            }
        ],
        books={
            "tracking-stale.md": runbook(
                "Order tracking stale",
                "Stale tracking means the carrier webhooks stopped: check the carrier-gateway's webhook error rate and ask DHL / UPS support to replay events.",
            )
        },
    )


# =================================================================================================
# 8. Network policy: the security baseline added NetworkPolicy `nats-client-access` to the
#    fulfilment namespace three hours ago: ingress to the NATS pods on 4222 (clients) and 8222
#    (monitoring) only. Established route connections survived (conntrack), so nothing happened;
#    the NATS 2.10.24 rollout 40 min ago (the trigger) restarted the pods, and their cluster routes
#    on 6222 can no longer be opened. JetStream loses its meta leader and stream quorum; publishes
#    of new orders time out. The incident says "warehouse".
# =================================================================================================


@scenario("nats-route-port-missing-from-netpol")
def nats_route_port_missing_from_netpol() -> dict[str, Any]:
    start = -2300
    ns = "fulfilment"
    nt = app(
        "nats",
        image="nats:2.10.24-alpine",
        port=4222,
        rs="",
        kind="StatefulSet",
        cluster_ip="None",
        pods=[(str(i), "2/2", "Running", "0", f"{36 + 2 * i}m", i) for i in range(3)],
    )
    ww = app(
        "warehouse-worker",
        image="ghcr.io/parcelpoint/warehouse-worker:3.21.0",
        port=8080,
        rs="7f8c6d9b5",
        cluster_ip="10.100.61.12",
        pods=[
            ("b5nwz", "1/1", "Running", "0", "1d", 0),
            ("k8qfr", "1/1", "Running", "0", "1d", 1),
        ],
    )
    orr = app(
        "order-router",
        image="ghcr.io/parcelpoint/order-router:12.0.4",
        port=8080,
        rs="5d9b7c8f6",
        cluster_ip="10.100.61.20",
        pods=[
            ("h3tmx", "1/1", "Running", "0", "5h", 1),
            ("r6wcp", "1/1", "Running", "0", "5h", 2),
        ],
    )
    k8s = namespace(
        ns,
        NODES_DUB,
        [nt, ww, orr],
        seed=456,
        statefulsets=sts_table(
            [
                (
                    "nats",
                    "3/3",
                    "1y",
                    "nats,reloader",
                    "nats:2.10.24-alpine,natsio/nats-server-config-reloader:0.16.0",
                )
            ]
        ),
    )
    k8s[f"kubectl get networkpolicies -n {ns}"] = table(
        [
            ["NAME", "POD-SELECTOR", "AGE"],
            ["default-deny-ingress", "<none>", "3h"],
            ["nats-client-access", "app.kubernetes.io/name=nats", "3h"],
            ["allow-ingress-controller", "app in (order-router)", "3h"],
        ]
    )
    k8s[f"kubectl describe networkpolicies nats-client-access -n {ns}"] = (
        f"Name:         nats-client-access\nNamespace:    {ns}\nCreated on:   2026-12-05 11:02:14 +0000 UTC\n"
        "Labels:       app.kubernetes.io/managed-by=kyverno\n               generate.kyverno.io/policy-name=baseline-netpol\n"
        "Annotations:  <none>\nSpec:\n  PodSelector:     app.kubernetes.io/name=nats\n  Allowing ingress traffic:\n"
        "    To Port: 4222/TCP\n    To Port: 8222/TCP\n    From:\n      NamespaceSelector: kubernetes.io/metadata.name=fulfilment\n"
        "    From:\n      NamespaceSelector: kubernetes.io/metadata.name=monitoring\n"
        "  Not affecting egress traffic\n  Policy Types: Ingress\n"
    )
    k8s[f"kubectl describe networkpolicies default-deny-ingress -n {ns}"] = (
        f"Name:         default-deny-ingress\nNamespace:    {ns}\nCreated on:   2026-12-05 11:02:13 +0000 UTC\n"
        "Labels:       app.kubernetes.io/managed-by=kyverno\nAnnotations:  <none>\nSpec:\n"
        "  PodSelector:     <none> (Allowing the specific traffic to all pods in this namespace)\n"
        "  Allowing ingress traffic:\n    <none> (Selected pods are isolated for ingress connectivity)\n"
        "  Not affecting egress traffic\n  Policy Types: Ingress\n"
    )
    ips = {}
    for line in k8s[f"kubectl get pods -n {ns} -o wide --show-labels"].splitlines()[1:]:
        cells = line.split()
        ips[cells[0]] = cells[5]
    sig = "Error trying to connect to route (attempt"
    nlog = [
        (-2290, "[1] 2026/12/05 13:22:11.401220 [INF] Starting nats-server"),
        (-2290, "[1] 2026/12/05 13:22:11.401291 [INF]   Version:  2.10.24"),
        (-2289, "[1] 2026/12/05 13:22:11.918004 [INF] Starting JetStream"),
        (
            -2288,
            "[1] 2026/12/05 13:22:12.301557 [INF] Listening for client connections on 0.0.0.0:4222",
        ),
        (-2288, "[1] 2026/12/05 13:22:12.301920 [INF] Cluster name is nats-fulfilment"),
        (
            -2288,
            "[1] 2026/12/05 13:22:12.302004 [INF] Listening for route connections on 0.0.0.0:6222",
        ),
        (
            -2286,
            f"[1] 2026/12/05 13:22:14.305118 [ERR] {ips['nats-0']}:6222 - rid:5 - {sig} 1): dial tcp {ips['nats-0']}:6222: i/o timeout",
        ),
        (
            -2280,
            "[1] 2026/12/05 13:22:20.118774 [WRN] JetStream has not established contact with a meta leader",
        ),
        (
            -60,
            f"[1] 2026/12/05 13:59:00.214410 [ERR] {ips['nats-2']}:6222 - rid:7 - {sig} 1131): dial tcp {ips['nats-2']}:6222: i/o timeout",
        ),
        (
            -31,
            '[1] 2026/12/05 13:59:29.020331 [WRN] Healthcheck failed: "JetStream has not established contact with a meta leader"',
        ),
    ]
    k8s[f"kubectl logs nats-1 -n {ns} -c nats --tail=1000"] = podlog(nlog)
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "40m",
                "Normal",
                "SuccessfulDelete",
                "StatefulSet/nats",
                "delete Pod nats-2 in StatefulSet nats successful",
            ),
            (
                "36m",
                "Normal",
                "SuccessfulCreate",
                "StatefulSet/nats",
                "create Pod nats-0 in StatefulSet nats successful",
            ),
            (
                "5m",
                "Warning",
                "Unhealthy",
                "Pod/nats-1",
                "Startup probe failed: HTTP probe failed with statuscode: 503",
            ),
        ]
    )
    evs = [
        ev(
            "kyverno",
            "info",
            "policy baseline-netpol: generated NetworkPolicy default-deny-ingress, nats-client-access, allow-ingress-controller in namespace fulfilment (SEC-404 zero-trust baseline, wave 3)",
            at=-10800,
        ),
        ev(
            "argocd",
            "info",
            "application fulfilment-nats synced: StatefulSet nats image nats:2.10.22-alpine -> nats:2.10.24-alpine (renovate), rollout started",
            at=start - 100,
        ),
        ev(
            "nats",
            "error",
            "[1] 2026/12/05 13:{ms}:04.118201 [ERR] 10.52.{ms}.{ms}:6222 - rid:{ms} - "
            + sig
            + " {ms}): dial tcp 10.52.{ms}.{ms}:6222: i/o timeout",
            **every(start + 10, -1, 6),
            pods=["nats-0", "nats-1", "nats-2"],
        ),
        ev(
            "nats",
            "warn",
            "[1] 2026/12/05 13:{ms}:30.551902 [WRN] JetStream cluster stream '$G > ORDERS' has NO quorum, stalled",
            **every(start + 60, -20, 60),
            pods=["nats-0", "nats-1", "nats-2"],
        ),
        ev(
            "order-router",
            "error",
            '{"level":"error","ts":"2026-12-05T13:{ms}:01Z","msg":"publish orders.created failed","order_id":"{n}","error":"nats: no response from stream"}',
            **every(start + 70, -1, 3),
            pods=pods_of(orr),
        ),
        ev(
            "warehouse-worker",
            "warn",
            '{"level":"warn","ts":"2026-12-05T13:{ms}:02Z","msg":"fetch from consumer pickers timed out","error":"nats: timeout"}',
            **every(start + 80, -1, 5),
            pods=pods_of(ww),
        ),
        ev(
            "warehouse-worker",
            "info",
            '{"level":"info","ts":"2026-12-05T13:00:00Z","msg":"warehouse-worker 3.21.0 started","feature":"batch picking"}',
            at=-5400,
            pods=pods_of(ww),
        ),
        ev(
            "label-printer",
            "error",
            "Zebra ZT411 at 10.52.200.{ms}: paper out",
            **every(-7000, -300, 900),
        ),
        ev(
            "nats",
            "warn",
            "[1] 2026/12/05 11:{ms}:09.331018 [WRN] 10.52.{ms}.{ms}:4222 - cid:{n} - Readloop processing time: 2.{ms}s",
            **every(-9800, -9500, 100),
            pods=["nats-0", "nats-1", "nats-2"],
        ),
    ]
    return kube_case(
        seed=456,
        start=start,
        inc=incident(
            "Warehouse isn't receiving new orders",
            "warehouse",
            start,
            ["pick lists empty since about 13:20"],
        ),
        exp=expected(
            "connect",
            [
                "networkpolicy/nats-client-access",
                "nats-client-access",
                "statefulset/nats",
                "nats",
                "6222",
                "baseline-netpol",
            ],
            sig,
            "The security baseline added NetworkPolicy nats-client-access to the fulfilment namespace three hours ago, admitting only 4222 (clients) and 8222 (monitoring) to the NATS pods, next to a default-deny. The open route connections survived, so nothing broke; the nats 2.10.24 rollout 40 minutes ago (the trigger) restarted every pod, and their cluster routes on 6222 cannot be opened again (i/o timeout). JetStream has no meta leader and the ORDERS stream no quorum, so order-router's publishes get no response and warehouse-worker fetches nothing. The rollout, order-router's and warehouse-worker's errors, the worker's release, the label printer and the old read-loop warning are not the cause.",
            [
                f"nats: [ERR] …:6222 - rid:5 - {sig} …): dial tcp …:6222: i/o timeout",
                "NetworkPolicy nats-client-access: ingress 4222/TCP, 8222/TCP only",
                "JetStream cluster stream '$G > ORDERS' has NO quorum, stalled",
            ],
            "Add 6222/TCP from the NATS pods themselves (podSelector app.kubernetes.io/name=nats) to nats-client-access (and to the baseline's NATS template); the routes reconnect and JetStream elects a leader; replay orders from order-router's outbox.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "order-router",
                pods_of(orr),
                ["POST /orders/route 202 {ms}ms", "GET /orders/{n}/route 200 {ms}ms"],
                8,
            )
        ],
        evs=evs,
        services=[
            svc(
                "order-router",
                20,
                {"503": (0.0, 0.9)},
                (0.02, 2.0),
                change_at=start + 70,
            ),
        ],
        gauges=[
            {
                "name": "nats_routes",
                "labels": {"server": "nats-1"},
                "before": 2,
                "after": 0,
                "change_at": start,
                "noise": 0.0,
            }
        ],
        books={
            "warehouse-no-orders.md": runbook(
                "Warehouse not receiving orders",
                "If pick lists stay empty, the warehouse-worker consumer is stuck: restart warehouse-worker; if that does not help, delete and recreate the JetStream consumer 'pickers' with nats consumer rm/add.",
            )
        },
    )


# =================================================================================================
# 9. Third-party limit: catalog-publisher writes every price change batch and then overwrites one
#    pointer object, gs://shop-catalog-feed/manifest/latest.json, which the apps poll. Google Cloud
#    Storage allows about one write per second to the same object name. Black-Friday repricing made
#    batches arrive several times a second: GCS answers 429 rateLimitExceeded for the manifest, the
#    publisher's retries pile up and the apps keep an old manifest. The incident says "app prices".
#    netcheck sees the 429 at the upload endpoint.
# =================================================================================================


@scenario("gcs-single-object-mutation-rate-limit")
def gcs_single_object_mutation_rate_limit() -> dict[str, Any]:
    start = -1700
    cp = ["catalog-publisher-6d8f-2xk", "catalog-publisher-6d8f-9qp"]
    mb = ["mobile-bff-7c9d-4hn", "mobile-bff-7c9d-m2w", "mobile-bff-7c9d-t8r"]
    sig = "exceeded the rate limit for object mutation operations"
    body = (
        '{"error": {"code": 429, "message": "The object shop-catalog-feed/manifest/latest.json '
        + sig
        + ' (create, update, and delete). Please reduce your request rate. See https://cloud.google.com/storage/docs/gcs429.", "errors": [{"message": "The object shop-catalog-feed/manifest/latest.json '
        + sig
        + ' (create, update, and delete). Please reduce your request rate. See https://cloud.google.com/storage/docs/gcs429.", "domain": "usageLimits", "reason": "rateLimitExceeded"}]}}'
    )
    evs = [
        ev(
            "pricing-engine",
            "info",
            "repricing campaign BF-2026 started: 180k SKUs, batches of 500 every 200 ms",
            at=start - 60,
        ),
        ev(
            "catalog-publisher",
            "info",
            "published batch {n} (500 prices) to gs://shop-catalog-feed/batches/, manifest/latest.json generation 17{n}",
            **every(-7000, start - 30, 60),
            pods=cp,
        ),
        ev(
            "catalog-publisher",
            "error",
            "google.api_core.exceptions.TooManyRequests: 429 PUT https://storage.googleapis.com/upload/storage/v1/b/shop-catalog-feed/o?uploadType=multipart&name=manifest%2Flatest.json: "
            + body,
            **every(start, -1, 2),
            pods=cp,
        ),
        ev(
            "catalog-publisher",
            "warn",
            "manifest write retry queue {n} deep, oldest unpublished batch {ms}0 s",
            **every(start + 60, -5, 30),
            pods=cp,
        ),
        ev(
            "mobile-bff",
            "warn",
            "price mismatch at checkout for sku {n}: cart 24.99 vs pricing 19.99, customer shown price updated",
            **every(start + 200, -1, 4),
            pods=mb,
        ),
        ev(
            "mobile-bff",
            "info",
            "mobile-bff 2026.49.1 started (Black Friday banner)",
            at=start - 1800,
            pods=mb,
        ),
        ev(
            "image-cdn",
            "warn",
            "origin fetch gs://shop-images/{n}.webp 3{ms} ms (cache miss storm)",
            **every(-6000, -40, 200),
        ),
        ev(
            "catalog-publisher",
            "error",
            "google.auth.exceptions.TransportError: HTTPSConnectionPool(host='oauth2.googleapis.com', port=443): Read timed out. (read timeout=120)",
            **every(-9900, -9700, 50),
            pods=cp,
        ),
    ]
    spec = simple(
        457,
        start,
        incident(
            "App shows old prices",
            "app prices",
            start,
            ["Black Friday prices not showing in the app"],
        ),
        expected(
            "http",
            [
                "storage.googleapis.com",
                "gcs",
                "shop-catalog-feed",
                "manifest/latest.json",
                "catalog-publisher",
                "rateLimitExceeded",
            ],
            sig,
            "catalog-publisher overwrites one pointer object, gs://shop-catalog-feed/manifest/latest.json, after every price batch, and Google Cloud Storage allows about one write per second to the same object name. The Black-Friday repricing campaign sends batches several times a second, so GCS answers 429 rateLimitExceeded for the manifest, retries pile up and the apps keep reading an old manifest with old prices. The campaign is the trigger; mobile-bff's price mismatches and release, the image CDN's cache misses and the old OAuth timeout are not the cause.",
            [
                f"catalog-publisher: 429 PUT …name=manifest%2Flatest.json: {sig}",
                "pricing-engine: campaign BF-2026, batches every 200 ms",
                "catalog-publisher: manifest write retry queue growing",
            ],
            "Write the manifest at most once a second (coalesce batches, or use a new object name per generation and a short-cached pointer), drain the retry queue, then let the apps fetch the latest generation.",
        ),
        [
            bg(
                "mobile-bff",
                mb,
                ["GET /v3/products/{n} 200 {ms}ms", "GET /v3/home 200 {ms}ms"],
                8,
            )
        ],
        evs,
        [
            svc("mobile-bff", 400, {"500": (0.0004, 0.0005)}, (0.06, 0.07)),
            svc("catalog-publisher", 3, {"429": (0.0, 0.85)}, (0.15, 0.4)),
        ],
        [
            {
                "name": "catalog_manifest_age_seconds",
                "labels": {"bucket": "shop-catalog-feed"},
                "before": 40,
                "after": 1500,
                "change_at": start + 60,
                "noise": 0.2,
            }
        ],
        {
            "prices-stale.md": runbook(
                "Prices stale in the app",
                "Stale prices in the app mean mobile-bff's price cache: flush it with POST /admin/cache/flush?name=prices on each mobile-bff pod.",
            )
        },
    )
    spec["targets"] = [
        {
            "name": "gcs-upload",
            "url": "https://storage.googleapis.com/upload/storage/v1/b/shop-catalog-feed/o",
            "fault": {
                "kind": "http_status",
                "status": 429,
                "body": body,
                "headers": {"Content-Type": "application/json; charset=UTF-8"},
            },
        },
        {
            "name": "mobile-bff-health",
            "url": "http://mobile-bff.internal.example/healthz",
            "fault": {"kind": "ok"},
        },
    ]
    spec["expected"]["root_cause_probe"] = "gcs-upload"
    spec["expected"]["netcheck"] = {
        "gcs-upload": {"failed_layer": "http", "reason": "http_429"},
        "mobile-bff-health": {"failed_layer": "none", "reason": None},
    }
    return spec


# =================================================================================================
# 10. Network delay: the data-centre team replaced a failed top-of-rack switch in rack B4 last night.
#     The ledger database host db-ledger-02 came back with its uplink renegotiated to 100 Mbps
#     (the e1000e driver logs "Link Speed was downgraded by SmartSpeed": a bad patch cable). At
#     the morning statement run the link saturates: every query round trip queues, replication to
#     the replica lags. Nothing errors in the database. The incident says "statements".
# =================================================================================================


@scenario("db-uplink-smartspeed-downgraded-100mbps")
def db_uplink_smartspeed_downgraded_100mbps() -> dict[str, Any]:
    start = -2000
    st = ["statement-svc-1", "statement-svc-2"]
    sig = "Link Speed was downgraded by SmartSpeed"
    evs = [
        ev(
            "netbox",
            "info",
            "change CHG-8812 completed: rack B4 top-of-rack switch tor-b4-1 replaced (RMA), 24 hosts re-patched",
            at=-6000,
        ),
        ev(
            "kernel",
            "warn",
            f"e1000e 0000:00:1f.6 eno1: {sig}",
            at=-5950,
            labels={"host": "db-ledger-02"},
        ),
        ev(
            "kernel",
            "info",
            "e1000e 0000:00:1f.6 eno1: NIC Link is Up 100 Mbps Full Duplex, Flow Control: None",
            at=-5949,
            labels={"host": "db-ledger-02"},
        ),
        ev(
            "kernel",
            "info",
            "e1000e 0000:00:1f.6 eno1: 10/100 speed: disabling TSO",
            at=-5949,
            labels={"host": "db-ledger-02"},
        ),
        ev(
            "postgres",
            "info",
            "2026-12-05 13:{ms}:11.204 UTC [2{n}] LOG:  duration: 1{n}.118 ms  execute <unnamed>: SELECT t.* FROM ledger.transactions t WHERE t.account_id = $1 AND t.booked_at >= $2 ORDER BY t.booked_at",
            **every(start + 60, -5, 40),
            labels={"host": "db-ledger-02"},
        ),
        ev(
            "postgres-replica",
            "warn",
            "replication lag on db-ledger-03: replay_lag {ms}.4 s, write_lag {ms}.1 s",
            **every(start + 120, -10, 120),
            labels={"host": "db-ledger-03"},
        ),
        ev(
            "statement-svc",
            "error",
            "ERROR [statement-batch-{ms}] c.b.s.StatementJob - statement for account {n} failed: org.springframework.dao.QueryTimeoutException: PreparedStatementCallback; SQL [SELECT t.* FROM ledger.transactions t WHERE …]; ERROR: canceling statement due to user request",
            **every(start + 300, -1, 6),
            pods=st,
        ),
        ev(
            "statement-svc",
            "warn",
            "WARN  [statement-batch-{ms}] c.z.h.p.HikariPool - ledger-pool - Thread starvation or clock leap detected (housekeeper delta=1m{ms}s).",
            **every(start + 200, -30, 400),
            pods=st,
        ),
        ev(
            "statement-svc",
            "info",
            "INFO  statement-svc 3.12.0 started (PDF/A-3 statements)",
            at=-6800,
            pods=st,
        ),
        ev(
            "backup",
            "info",
            "pgbackrest full backup of ledger started on db-ledger-03 (repo1, s3)",
            at=start - 200,
        ),
        ev(
            "node-exporter",
            "info",
            "db-ledger-02 eno1 speed_bytes=12500000 duplex=full rx_bytes_rate={n}{ms}00 tx_bytes_rate=12{n}00",
            **every(-5900, -60, 600),
        ),
        ev(
            "statement-svc",
            "error",
            "ERROR mail relay smtp.bank.internal:25 refused RCPT: 452 4.5.3 Too many recipients",
            **every(-10200, -9900, 60),
            pods=st,
        ),
    ]
    return simple(
        458,
        start,
        incident("Monthly statements stuck", "statements", start),
        expected(
            "connect",
            [
                "db-ledger-02",
                "eno1",
                "smartspeed",
                "100 Mbps",
                "tor-b4-1",
                "CHG-8812",
            ],
            sig,
            "Last night's switch replacement in rack B4 (CHG-8812) re-patched db-ledger-02; its uplink eno1 renegotiated to 100 Mbps (e1000e: Link Speed was downgraded by SmartSpeed, a faulty cable or port). At the morning statement run the link saturates at 12.5 MB/s: result sets and replication queue behind each other, queries that took 100 ms take seconds, statement-svc's jobs time out and the replica lags. No database error; statement-svc's errors and release, the backup on the replica and the old SMTP refusal are not the cause.",
            [
                f"kernel db-ledger-02: e1000e eno1: {sig}",
                "eno1: NIC Link is Up 100 Mbps Full Duplex",
                "node-exporter: eno1 speed 12.5 MB/s, tx saturated; replica lag",
            ],
            "Re-patch db-ledger-02 to a good port / cable (ethtool eno1 must show 1000Mb/s), or fail over to db-ledger-03 meanwhile; then rerun the failed statements.",
        ),
        [
            bg(
                "statement-svc",
                st,
                [
                    "INFO  statement {n} rendered in {ms}ms",
                    "INFO  GET /statements/{n} 200 {ms}ms",
                ],
                8,
            )
        ],
        evs,
        [
            svc(
                "statement-svc",
                15,
                {"500": (0.0005, 0.2)},
                (0.2, 4.0),
                change_at=start + 300,
            )
        ],
        [
            {
                "name": "node_network_transmit_bytes_rate",
                "labels": {"instance": "db-ledger-02", "device": "eno1"},
                "before": 4000000,
                "after": 12400000,
                "change_at": start,
                "noise": 0.01,
                "cap": 12500000,
            },
            {
                "name": "node_network_speed_bytes",
                "labels": {"instance": "db-ledger-02", "device": "eno1"},
                "before": 12500000,
                "after": 12500000,
                "noise": 0.0,
            },
        ],
        {
            "statements.md": runbook(
                "Statement run slow",
                "Slow statement runs come from missing statistics after the month-end load: run ANALYZE ledger.transactions on db-ledger-02 and restart the statement batch.",
            )
        },
    )


# =================================================================================================
# 11. Config change: platform moved the Kafka topics to a Terraform module (MR infra!1290). The
#     module's `max_message_bytes` default is 1048588; the contracts.signed topic was created by hand
#     with max.message.bytes 8388608, because signed contracts carry their PDF. terraform apply
#     "corrected" it this morning. Producers now get RecordTooLargeException for every contract
#     over 1 MB. The incident says "contracts".
# =================================================================================================


@scenario("kafka-topic-max-message-bytes-module-default")
def kafka_topic_max_message_bytes_module_default() -> dict[str, Any]:
    start = -2500
    sg = ["sign-service-0", "sign-service-1"]
    sig = "RecordTooLargeException"
    evs = [
        ev(
            "terraform",
            "info",
            '# module.kafka_topics["contracts.signed"].kafka_topic.this will be updated in-place\n  ~ resource "kafka_topic" "this" {\n      ~ config = {\n          ~ "max.message.bytes" = "8388608" -> "1048588"\n            "retention.ms"      = "2592000000"\n        }\n        name = "contracts.signed"\n    }\nPlan: 0 to add, 1 to change, 0 to destroy.',
            at=start - 400,
        ),
        ev(
            "terraform",
            "info",
            'module.kafka_topics["contracts.signed"].kafka_topic.this: Modifications complete after 2s [id=contracts.signed] (atlantis apply, MR infra!1290 "kafka topics as code")',
            at=start - 380,
        ),
        ev(
            "kafka",
            "info",
            "[2026-12-05 13:{ms}:40,204] INFO [Admin Manager on Broker 2]: Updating topic contracts.signed with new configuration : max.message.bytes -> 1048588 (kafka.server.ZkAdminManager)",
            at=start - 379,
        ),
        ev(
            "sign-service",
            "error",
            "2026-12-05T13:{ms}:02.118Z ERROR 1 --- [sign-service] [ad | producer-1] c.a.sign.ContractEvents : send failed for contract {n}: org.apache.kafka.common.errors."
            + sig
            + ": The request included a message larger than the max message size the server will accept.",
            **every(start, -1, 9),
            pods=sg,
        ),
        ev(
            "sign-service",
            "warn",
            "2026-12-05T13:{ms}:05.551Z  WARN 1 --- [sign-service] [nio-8080-exec-{ms}] c.a.sign.SignController : contract {n} signed but not archived, status PENDING_ARCHIVE",
            **every(start + 5, -1, 9),
            pods=sg,
        ),
        ev(
            "contract-archive",
            "warn",
            "no contracts.signed messages for {n} s (expected ~1/10 s)",
            **every(start + 600, -30, 300),
        ),
        ev(
            "crm",
            "error",
            "Salesforce sync: UNABLE_TO_LOCK_ROW on Opportunity {n}, retrying",
            **every(-7000, -100, 400),
        ),
        ev(
            "sign-service",
            "info",
            "2026-12-05T12:20:00.000Z  INFO 1 --- [sign-service] [main] c.a.sign.Application : Started Application in 9.8 seconds (sign-service 2.31.0: DocuSign envelope v2.1)",
            at=start - 1500,
            pods=sg,
        ),
        ev(
            "sign-service",
            "error",
            "2026-12-05T11:{ms}:00.000Z ERROR 1 --- [sign-service] [nio-8080-exec-3] c.a.sign.DocuSignClient : 401 AUTHORIZATION_INVALID_TOKEN, refreshing JWT grant",
            **every(-9900, -9700, 50),
            pods=sg,
        ),
    ]
    return simple(
        459,
        start,
        incident("Signed contracts not showing up", "contracts", start),
        expected(
            "application",
            [
                "contracts.signed",
                "max.message.bytes",
                "kafka_topic",
                "module.kafka_topics",
                "infra!1290",
                "terraform",
            ],
            sig,
            "MR infra!1290 moved the Kafka topics into a Terraform module whose max.message.bytes default is 1048588. contracts.signed had been created by hand with 8388608 because each message carries the signed PDF; this morning's apply reset it. Every contract over 1 MB is now refused by the broker (RecordTooLargeException): the contract is signed but never archived or shown. sign-service's errors and release, contract-archive's silence, the CRM lock errors and the old DocuSign token refresh are not the cause.",
            [
                f"sign-service: org.apache.kafka.common.errors.{sig}",
                'terraform: "max.message.bytes" = "8388608" -> "1048588" on contracts.signed',
                "kafka: Updating topic contracts.signed with new configuration : max.message.bytes -> 1048588",
            ],
            "Set max_message_bytes = 8388608 for contracts.signed in the module call and apply; resend the PENDING_ARCHIVE contracts (better: store PDFs in object storage and send references).",
        ),
        [
            bg(
                "sign-service",
                sg,
                [
                    "POST /contracts/{n}/sign 200 {ms}ms",
                    "GET /contracts/{n} 200 {ms}ms",
                ],
                9,
            )
        ],
        evs,
        [svc("sign-service", 6, {"500": (0.0005, 0.04)}, (0.3, 0.3))],
        [
            {
                "name": "kafka_topic_messages_in_rate",
                "labels": {"topic": "contracts.signed"},
                "before": 0.1,
                "after": 0.02,
                "change_at": start,
                "noise": 0.3,
            }
        ],
        {
            "contracts-missing.md": runbook(
                "Signed contracts missing",
                "If signed contracts do not appear, DocuSign's Connect webhook is failing: check the DocuSign admin console for failed deliveries and republish them.",
            )
        },
    )


# =================================================================================================
# 12. Quiet root cause, louder victims: the cache hosts were reinstalled on the new golden image
#     (Ubuntu 24.04) on Tuesday; its tuned profile leaves Transparent Huge Pages on "always". Redis
#     says so in one WARNING at start and nothing after; every BGSAVE fork now copies huge pages and
#     stalls the event loop for hundreds of milliseconds. The web tier's session and cart lookups
#     time out in bursts every few minutes. The incident says "website".
# =================================================================================================


@scenario("thp-always-redis-fork-latency-spikes")
def thp_always_redis_fork_latency_spikes() -> dict[str, Any]:
    start = -3000
    web = ["web-5c8d-2wq", "web-5c8d-7hz", "web-5c8d-kp4", "web-5c8d-x9m"]
    sig = (
        "WARNING you have Transparent Huge Pages (THP) support enabled in your kernel."
    )
    evs = [
        ev(
            "ansible",
            "info",
            "play 'cache-hosts reinstall' on cache-03: golden image ubuntu-24.04-2026.11 applied, tuned profile throughput-performance, redis-server 7.2.6 restarted",
            at=-7150,
        ),
        ev(
            "redis",
            "warn",
            f"1283:M 05 Dec 2026 12:01:12.558 # {sig} This will create latency and memory usage issues with Redis. To fix this issue run the command 'echo madvise > /sys/kernel/mm/transparent_hugepage/enabled' as root, and add it to your /etc/rc.local in order to retain the setting after a reboot. Redis must be restarted after THP is disabled (set to 'madvise' or 'never').",
            at=-7100,
            labels={"host": "cache-03"},
        ),
        ev(
            "redis",
            "info",
            "1283:M 05 Dec 2026 13:{ms}:00.004 * 10000 changes in 60 seconds. Saving...",
            **every(start - 300, -1, 180),
            labels={"host": "cache-03"},
        ),
        ev(
            "redis",
            "info",
            "1283:M 05 Dec 2026 13:{ms}:00.912 * Background saving started by pid {n}",
            **every(start - 299, -1, 180),
            labels={"host": "cache-03"},
        ),
        ev(
            "redis",
            "info",
            "{n}:C 05 Dec 2026 13:{ms}:14.220 * Fork CoW for RDB: current 3{ms}02 MB, peak 3{ms}02 MB, average 1{ms}1 MB",
            **every(start - 285, -1, 180),
            labels={"host": "cache-03"},
        ),
        ev(
            "web",
            "error",
            "Redis::TimeoutError: Connection timed out (redis://cache-03.internal:6379) in SessionStore#load",
            **every(start, -1, 3),
            pods=web,
        ),
        ev(
            "web",
            "error",
            "Completed 500 Internal Server Error in 1{ms}0ms (ActiveRecord: 4.1ms | Allocations: 2{n})\nRedis::TimeoutError (Connection timed out):\n  app/models/cart.rb:41:in `load_from_cache'",
            **every(start + 2, -1, 5),
            pods=web,
        ),
        ev(
            "haproxy",
            "warn",
            "web-backend/web-{ms} is DOWN, reason: Layer7 timeout, check duration: 2001ms. 3 active and 0 backup servers left.",
            **every(start + 30, -60, 360),
        ),
        ev(
            "web",
            "info",
            "web release 2026-12-05.2 deployed (new footer, rails 7.2.2)",
            at=start - 400,
            pods=web,
        ),
        ev(
            "search",
            "warn",
            "solr query time {ms}0 ms for q=christmas",
            **every(-6000, -20, 240),
        ),
        ev(
            "web",
            "error",
            "Redis::CannotConnectError: Error connecting to Redis on cache-03.internal:6379 (Errno::ECONNREFUSED)",
            **every(-7180, -7120, 10),
            pods=web,
        ),
    ]
    return simple(
        460,
        start,
        incident(
            "Website intermittently throwing errors",
            "website",
            start,
            ["errors come and go every few minutes"],
        ),
        expected(
            "application",
            [
                "cache-03",
                "redis",
                "transparent huge pages",
                "thp",
                "transparent_hugepage",
                "ubuntu-24.04-2026.11",
            ],
            sig,
            "cache-03 was reinstalled on the new golden image (ubuntu-24.04-2026.11) whose tuned profile leaves Transparent Huge Pages on always. Redis warned once at start and never again. Every BGSAVE (every 3 minutes under load) forks the 30 GB process; with THP the copy-on-write copies 2 MB pages and the main thread stalls for hundreds of ms, so the web tier's session and cart lookups time out in bursts and HAProxy marks web pods down. web's errors, HAProxy's checks and the web release are victims or unrelated; the Solr latency and the ECONNREFUSED during the reinstall are not the cause.",
            [
                f"redis on cache-03: {sig}",
                "redis: Background saving started / Fork CoW for RDB every 3 minutes",
                "web: Redis::TimeoutError in bursts",
            ],
            "Set transparent_hugepage to madvise (or never) on cache-03 in the golden image / tuned profile and restart Redis; consider moving RDB snapshots to the replica.",
        ),
        [
            bg(
                "web",
                web,
                [
                    "Completed 200 OK in {ms}ms (Views: 12.1ms | ActiveRecord: 3.2ms)",
                    'Started GET "/products/{n}" for 10.0.4.1',
                ],
                8,
            )
        ],
        evs,
        [svc("web", 180, {"500": (0.0005, 0.03)}, (0.09, 0.14))],
        [
            {
                "name": "redis_latest_fork_usec",
                "labels": {"instance": "cache-03"},
                "before": 9000,
                "after": 640000,
                "change_at": -7100,
                "noise": 0.2,
            }
        ],
        {
            "web-errors.md": runbook(
                "Website 500s",
                "Website 500s after a release are the release: roll web back to the previous tag with `deploy rollback web` and check the Rails error tracker.",
            )
        },
    )


# =================================================================================================
# 13. Shared back end: the analytics team started a new consumer group (analytics-backfill-v2,
#     deployed as clickstream-replayer) with auto.offset.reset=earliest on the 30-day clickstream
#     topic of the shared Kafka cluster. Reading a month of cold segments evicts the brokers' page
#     cache and saturates their disks; produce requests of every tenant wait behind the reads.
#     Payments' outbox producer times out first and loudest. The incident says "payments".
# =================================================================================================


@scenario("kafka-replay-group-saturates-shared-brokers")
def kafka_replay_group_saturates_shared_brokers() -> dict[str, Any]:
    start = -1900
    pay = ["payments-outbox-0", "payments-outbox-1"]
    rp = ["clickstream-replayer-0", "clickstream-replayer-1", "clickstream-replayer-2"]
    sig = "to position FetchPosition{offset=0"
    evs = [
        ev(
            "clickstream-replayer",
            "info",
            "INFO  [main] o.a.k.c.c.i.ConsumerCoordinator - [Consumer clientId=analytics-backfill-v2-{ms}, groupId=analytics-backfill-v2] Found no committed offset for partition clickstream-{ms}",
            **every(start - 20, start + 40, 4),
            pods=rp,
        ),
        ev(
            "clickstream-replayer",
            "info",
            "INFO  [main] o.a.k.c.c.i.SubscriptionState - [Consumer clientId=analytics-backfill-v2-{ms}, groupId=analytics-backfill-v2] Resetting offset for partition clickstream-{ms} "
            + sig
            + ", offsetEpoch=Optional.empty, currentLeader=LeaderAndEpoch{leader=Optional[kafka-shared-{ms}.internal:9092 (id: {ms} rack: euw1-az{ms})], epoch=41}}.",
            **every(start - 10, start + 50, 4),
            pods=rp,
        ),
        ev(
            "clickstream-replayer",
            "info",
            "INFO  replay progress: {n} records/s, lag {n}{n}",
            **every(start + 60, -10, 60),
            pods=rp,
        ),
        ev(
            "kafka-shared",
            "warn",
            "[2026-12-05 13:{ms}:11,882] WARN [ReplicaManager broker=2] Produce request to clickstream-{ms} took 4{ms}0 ms (LocalTime 3{ms}0 ms) (kafka.server.ReplicaManager)",
            **every(start + 60, -5, 45),
        ),
        ev(
            "node-exporter",
            "info",
            "kafka-shared-{ms} nvme0n1 util 99.{ms}% read {ms}0 MB/s, page cache hit ratio 0.{ms}",
            **every(start + 30, -30, 120),
        ),
        ev(
            "payments-outbox",
            "error",
            "ERROR [kafka-producer-network-thread | payments-outbox] o.a.k.c.p.i.Sender - [Producer clientId=payments-outbox, transactionalId=payments-outbox-1] Aborting producer batches due to fatal error\norg.apache.kafka.common.errors.TimeoutException: Expiring 38 record(s) for payment-events-3:30002 ms has passed since batch creation",
            **every(start + 90, -1, 5),
            pods=pay,
        ),
        ev(
            "payment-api",
            "error",
            "POST /v1/payments 503: outbox publish timeout for payment {n}, returning retryable error",
            **every(start + 100, -1, 3),
        ),
        ev(
            "search-indexer",
            "warn",
            "consumer lag on product-updates {n} (processing slow)",
            **every(start + 120, -20, 180),
        ),
        ev(
            "payment-api",
            "info",
            "payment-api 5.18.0 started (3DS2 exemptions)",
            at=start - 700,
        ),
        ev(
            "payments-outbox",
            "error",
            "ERROR o.a.k.c.NetworkClient - [Producer clientId=payments-outbox] Connection to node 3 (kafka-shared-3.internal/10.31.3.11:9092) could not be established. Node may not be available.",
            **every(-9800, -9500, 60),
            pods=pay,
        ),
    ]
    return simple(
        461,
        start,
        incident("Payments failing intermittently", "payments", start),
        expected(
            "application",
            [
                "kafka-shared",
                "clickstream-replayer",
                "analytics-backfill-v2",
                "clickstream",
                "auto.offset.reset",
            ],
            sig,
            "A new consumer group, analytics-backfill-v2 (clickstream-replayer), started with auto.offset.reset=earliest on the 30-day clickstream topic of the shared Kafka cluster and reset every partition to offset 0. Reading a month of cold segments evicts the brokers' page cache and saturates their disks, so produce requests of every tenant wait seconds: payments-outbox's transactional batches expire, payment-api answers 503 and search-indexer lags. The payments errors are the loudest victim; payment-api's release and the old connection error are not the cause.",
            [
                f"clickstream-replayer: Resetting offset for partition clickstream-* {sig}",
                "kafka-shared: Produce request took seconds; nvme0n1 util 99 %, page cache hit ratio low",
                "payments-outbox: TimeoutException: Expiring 38 record(s) for payment-events-3",
            ],
            "Stop or throttle clickstream-replayer (consumer quota on its client id, fewer fetchers), replay from tiered storage or a copy instead; then retry the failed payments from the outbox.",
        ),
        [
            bg(
                "payment-api",
                ["payment-api-1", "payment-api-2"],
                ["POST /v1/payments 201 {ms}ms", "GET /v1/payments/{n} 200 {ms}ms"],
                8,
            )
        ],
        evs,
        [
            svc(
                "payment-api",
                70,
                {"503": (0.0, 0.12)},
                (0.09, 0.8),
                change_at=start + 100,
            ),
        ],
        [
            {
                "name": "kafka_network_requestmetrics_totaltimems_p99",
                "labels": {"cluster": "kafka-shared", "request": "Produce"},
                "before": 12,
                "after": 4200,
                "change_at": start + 60,
                "noise": 0.2,
            },
            {
                "name": "kafka_server_brokertopicmetrics_bytesout_rate",
                "labels": {"cluster": "kafka-shared", "topic": "clickstream"},
                "before": 2000000,
                "after": 410000000,
                "change_at": start,
            },
        ],
        {
            "payments-failing.md": runbook(
                "Payments failing",
                "Payment failures are usually the card processor: check the processor's status page and payment-api's decline codes; if authorisations time out, switch to the backup processor.",
            )
        },
    )


# =================================================================================================
# 14. Performance: the reporting database moved from PostgreSQL 11 to 16 last night (RDS major
#     version upgrade, the new parameter group keeps defaults). Since PostgreSQL 12, jit = on; the
#     dashboard's big but fast queries cross jit_above_cost and each spends ~500 ms compiling
#     (inlining, optimisation, emission) before running for 40 ms. No errors; everything is slow.
#     The incident says "dashboard".
# =================================================================================================


@scenario("postgres-jit-after-major-upgrade")
def postgres_jit_after_major_upgrade() -> dict[str, Any]:
    start = -2800
    dash = ["dashboard-api-6f7c-2mq", "dashboard-api-6f7c-9wr"]
    sig = "Options: Inlining true, Optimization true, Expressions true, Deforming true"
    plan = (
        "2026-12-05 13:{ms}:02 UTC:10.20.3.{ms}(5{n}):dash@reporting:[{n}]:LOG:  duration: 6{ms}.412 ms  plan:\n"
        "\tQuery Text: SELECT date_trunc('hour', o.created_at) AS h, o.region, sum(o.total) FROM orders o JOIN order_lines l USING (order_id) WHERE o.created_at >= now() - interval '7 days' GROUP BY 1, 2\n"
        "\tHashAggregate  (cost=412877.10..418102.55 rows=209018 width=48) (actual time=598.114..611.027 rows=1512 loops=1)\n"
        "\t  ->  Hash Join  (cost=98211.00..401112.30 rows=1568640 width=24) (actual time=561.330..590.881 rows=1498202 loops=1)\n"
        "\tJIT:\n\t  Functions: 27\n\t  "
        + sig
        + "\n\t  Timing: Generation 3.902 ms, Inlining 211.377 ms, Optimization 241.005 ms, Emission 101.661 ms, Total 557.945 ms"
    )
    evs = [
        ev(
            "rds",
            "info",
            "RDS-EVENT-0007 reporting-db: Database instance upgraded from PostgreSQL 11.22 to 16.4 (parameter group default.postgres16 + reporting-pg16: shared_preload_libraries=auto_explain,pg_stat_statements)",
            at=-7000,
        ),
        ev(
            "postgres",
            "info",
            plan,
            **every(start, -1, 20),
            labels={"db": "reporting-db"},
        ),
        ev(
            "dashboard-api",
            "warn",
            'level=warn msg="slow panel query" panel=revenue_by_region duration={ms}0.{ms}ms db=reporting-db',
            **every(start, -1, 6),
            pods=dash,
        ),
        ev(
            "dashboard-ui",
            "warn",
            "GET /api/panels/revenue_by_region took 7.{ms}s (budget 2s)",
            **every(start + 30, -1, 10),
        ),
        ev(
            "dashboard-api",
            "info",
            'level=info msg="dashboard-api 2.7.0 started" change="dark mode"',
            at=start - 300,
            pods=dash,
        ),
        ev(
            "postgres",
            "info",
            '2026-12-05 13:{ms}:00 UTC::@:[{n}]:LOG:  automatic analyze of table "reporting.public.order_lines"',
            **every(-6500, -100, 900),
            labels={"db": "reporting-db"},
        ),
        ev(
            "etl",
            "warn",
            "nightly load orders -> reporting: {n} rows in 4{ms} s (slower than usual)",
            at=-6600,
        ),
        ev(
            "dashboard-api",
            "error",
            'level=error msg="query failed" err="pq: the database system is starting up" db=reporting-db',
            **every(-7100, -6950, 15),
            pods=dash,
        ),
    ]
    return simple(
        462,
        start,
        incident("Dashboard very slow", "dashboard", start),
        expected(
            "application",
            [
                "reporting-db",
                "jit",
                "postgresql 16",
                "jit_above_cost",
                "reporting-pg16",
            ],
            sig,
            "reporting-db was upgraded from PostgreSQL 11 to 16 last night with default parameters; since 12, jit is on. The dashboard's large but fast aggregate queries cross jit_above_cost and each now spends about 550 ms generating, inlining, optimising and emitting code before a 40-60 ms execution (auto_explain's JIT block). No errors: every panel is several times slower. dashboard-api's warnings and release, the nightly ETL, autovacuum's analyze and the errors during the upgrade restart are not the cause.",
            [
                f"auto_explain: JIT: Functions: 27, {sig}, Timing … Total 557.945 ms",
                "RDS-EVENT-0007: upgraded from PostgreSQL 11.22 to 16.4",
                "dashboard-api: slow panel query revenue_by_region",
            ],
            "Set jit = off (or raise jit_above_cost / jit_inline_above_cost) in reporting-pg16 and reload; keep it off for OLTP-style dashboard queries.",
        ),
        [
            bg(
                "dashboard-api",
                dash,
                [
                    'level=info msg="GET /api/panels/{n}" status=200 duration={ms}ms',
                    'level=info msg="GET /healthz" status=200',
                ],
                8,
            )
        ],
        evs,
        [
            svc(
                "dashboard-api",
                25,
                {"500": (0.0005, 0.0005)},
                (0.08, 0.65),
                change_at=-6800,
            )
        ],
        [
            {
                "name": "pg_stat_statements_mean_exec_time_ms",
                "labels": {"db": "reporting-db", "queryid": "revenue_by_region"},
                "before": 48,
                "after": 612,
                "change_at": -6800,
                "noise": 0.05,
            }
        ],
        {
            "dashboard-slow.md": runbook(
                "Dashboard slow",
                "Slow dashboards after the nightly ETL mean stale statistics: run VACUUM ANALYZE on orders and order_lines in reporting-db.",
            )
        },
    )


# =================================================================================================
# 15. Resource exhaustion: audit-writer creates one index per tenant per day (audit-<tenant>-<date>,
#     1 primary + 1 replica). The ILM policy that deleted them after 30 days was detached by an
#     index template rename in October, so indices accumulated. At midnight UTC the new day's
#     indices pushed the logging cluster to cluster.max_shards_per_node (1000 x 3 data nodes);
#     since then every index creation fails and today's audit events are refused. The incident
#     says "audit log".
# =================================================================================================


@scenario("es-shard-limit-reached-daily-tenant-indices")
def es_shard_limit_reached_daily_tenant_indices() -> dict[str, Any]:
    start = -2200
    aw = ["audit-writer-7d9c-4kp", "audit-writer-7d9c-w2n"]
    sig = "this action would add [2] shards, but this cluster currently has [3000]/[3000] maximum normal shards open"
    body = (
        '{"error":{"root_cause":[{"type":"validation_exception","reason":"Validation Failed: 1: '
        + sig
        + ';"}],"type":"validation_exception","reason":"Validation Failed: 1: '
        + sig
        + ';"},"status":400}'
    )
    evs = [
        ev(
            "gitops",
            "info",
            "es-logging: index template audit-v2 replaces audit (priority 200, pattern audit-*); index.lifecycle.name not set",
            at=-7100,
        ),
        ev(
            "audit-writer",
            "error",
            '{"level":50,"time":17{n},"pid":1,"hostname":"audit-writer","tenant":"t-{ms}","msg":"create index audit-t-{ms}-2026.12.05 failed: 400 '
            + body.replace('"', '\\"')
            + '"}',
            **every(start, -1, 7),
            pods=aw,
        ),
        ev(
            "audit-writer",
            "warn",
            '{"level":40,"time":17{n},"pid":1,"hostname":"audit-writer","msg":"spooling audit events to disk: {n} pending, /spool 7{ms}% full"}',
            **every(start + 60, -5, 60),
            pods=aw,
        ),
        ev(
            "es-logging",
            "warn",
            '{"@timestamp":"2026-12-05T13:{ms}:00.000Z","log.level":"WARN","message":"[es-logging-data-{ms}] cluster health status changed from [GREEN] to [YELLOW] (reason: [shards started [[audit-t-{ms}-2026.11.{ms}][0]]])","ecs.version":"1.2.0","service.name":"ES_ECS","log.logger":"org.elasticsearch.cluster.routing.allocation.AllocationService"}',
            **every(-7000, -500, 1500),
        ),
        ev(
            "admin-portal",
            "error",
            "GET /api/audit?tenant={n}&date=today 502: upstream audit-api returned no results (index_not_found_exception)",
            **every(start + 120, -1, 9),
        ),
        ev(
            "admin-portal",
            "info",
            "admin-portal 8.0.1 deployed (SSO group mapping)",
            at=start - 900,
        ),
        ev(
            "metricbeat",
            "warn",
            "elasticsearch/node_stats: es-logging-data-{ms} heap used 7{ms}%",
            **every(-6800, -60, 600),
        ),
        ev(
            "audit-writer",
            "error",
            '{"level":50,"time":17{n},"pid":1,"hostname":"audit-writer","msg":"bulk request failed: connect ECONNREFUSED 10.40.2.18:9200"}',
            **every(-10300, -10000, 60),
            pods=aw,
        ),
    ]
    spec = simple(
        463,
        start,
        incident("Audit log empty for today", "audit log", start),
        expected(
            "application",
            [
                "es-logging",
                "audit-writer",
                "max_shards_per_node",
                "cluster.max_shards_per_node",
                "audit-v2",
                "index.lifecycle.name",
            ],
            "maximum normal shards open",
            "audit-writer creates one index per tenant per day (1 primary + 1 replica). The index template audit-v2 that replaced audit in October does not set index.lifecycle.name, so the 30-day delete policy no longer applies and the indices accumulated. Today's first indices pushed es-logging to cluster.max_shards_per_node (3000 shards on 3 data nodes); every index creation now fails with validation_exception and audit-writer spools events instead of writing them. admin-portal's errors and release, the heap warnings, the routine health changes and the old ECONNREFUSED are not the cause.",
            [
                f"audit-writer: create index … 400 validation_exception: {sig}",
                "gitops: index template audit-v2, index.lifecycle.name not set",
                "audit-writer spooling events to disk",
            ],
            "Delete audit indices older than 30 days (or close them), attach the audit ILM policy to audit-v2 and the existing indices, then let audit-writer replay its spool; consider one index per day for all tenants.",
        ),
        [
            bg(
                "admin-portal",
                ["admin-portal-1", "admin-portal-2"],
                ["GET /api/users 200 {ms}ms", "GET /api/tenants/{n} 200 {ms}ms"],
                8,
            )
        ],
        evs,
        [svc("audit-api", 8, {"404": (0.0, 0.6)}, (0.05, 0.02), change_at=start + 120)],
        [
            {
                "name": "elasticsearch_cluster_health_active_shards",
                "labels": {"cluster": "es-logging"},
                "before": 2994,
                "after": 3000,
                "change_at": start,
                "noise": 0.0,
            }
        ],
        {
            "audit-missing.md": runbook(
                "Audit events missing",
                "Missing audit events mean audit-writer cannot reach Elasticsearch: check the es-logging load balancer and restart audit-writer so it reconnects.",
            )
        },
    )
    spec["targets"] = [
        {
            "name": "es-logging",
            "url": "http://es-logging.internal.example/audit-t-1042-2026.12.05",
            "fault": {
                "kind": "http_status",
                "status": 400,
                "body": body,
                "headers": {"Content-Type": "application/json"},
                "paths": {
                    "/_cluster/health": {
                        "status": 200,
                        "body": '{"cluster_name":"es-logging","status":"green","number_of_nodes":3,"number_of_data_nodes":3,"active_primary_shards":1500,"active_shards":3000}',
                    }
                },
            },
        },
    ]
    spec["expected"]["netcheck"] = {
        "es-logging": {"failed_layer": "http", "reason": "http_400"}
    }
    return spec


# =================================================================================================
# 16. Certificate rotation: the internal PKI moved to a new Vault mount (pki-2026, a new root). The
#     platform team switched minio's cert-manager Certificate to the ClusterIssuer vault-pki-2026
#     this morning; cert-manager reissued the serving certificate. scan-worker (Go) trusts the CA
#     bundle baked into its image, which holds only the old root, so every upload to MinIO fails
#     the TLS handshake. Document uploads stay "processing". The incident says "document upload".
#     netcheck sees the untrusted certificate at MinIO.
# =================================================================================================


@scenario("minio-cert-reissued-by-new-root-untrusted")
def minio_cert_reissued_by_new_root_untrusted() -> dict[str, Any]:
    start = -1600
    sw = ["scan-worker-5b7d-8kq", "scan-worker-5b7d-r3w"]
    up = ["upload-api-69c8-2hx", "upload-api-69c8-v7n"]
    sig = 'x509: certificate signed by unknown authority (possibly because of "crypto/rsa: verification error" while trying to verify candidate authority certificate "Corp Internal Root 2026")'
    evs = [
        ev(
            "argocd",
            "info",
            "application storage-minio synced: Certificate minio-tls issuerRef ClusterIssuer vault-pki-2024 -> vault-pki-2026 (PLAT-3014 'new PKI root')",
            at=start - 200,
        ),
        ev(
            "cert-manager",
            "info",
            'I1205 13:{ms}:11.201442       1 conditions.go:263] Setting lastTransitionTime for Certificate "minio-tls" condition "Ready" to 2026-12-05 13:33:11.201411 +0000 UTC m=+8812.1 (issuer vault-pki-2026, serial 3f:9a:…, notAfter 2027-03-05)',
            at=start - 150,
        ),
        ev(
            "minio",
            "info",
            "API: SYSTEM() Time: 13:{ms}:30 UTC 12/05/2026 DeploymentID: 6c1e… Automatically reloaded TLS certificate public.crt (Corp Internal Root 2026 / Issuing CA 2026)",
            at=start - 120,
        ),
        ev(
            "scan-worker",
            "error",
            'time=2026-12-05T13:{ms}:00Z level=ERROR msg="upload scan failed" object=scans/{n}.pdf err="Put \\"https://minio.storage.internal/scans/{n}.pdf\\": tls: failed to verify certificate: '
            + sig.replace('"', '\\"')
            + '"',
            **every(start, -1, 5),
            pods=sw,
        ),
        ev(
            "upload-api",
            "warn",
            "document {n} still in state PROCESSING after {ms}0 s",
            **every(start + 120, -3, 10),
            pods=up,
        ),
        ev(
            "upload-api",
            "info",
            "upload-api 4.9.0 started (HEIC support)",
            at=start - 2500,
            pods=up,
        ),
        ev(
            "clamav",
            "warn",
            "LibClamAV Warning: ************************************************** LibClamAV Warning: ***  This version of the ClamAV engine is outdated.     ***",
            **every(-7000, -100, 1200),
        ),
        ev(
            "minio",
            "warn",
            "API: PutObject(bucket=scans, object=tmp/{n}) Time: 11:{ms}:02 UTC 12/05/2026 Error: Storage resources are insufficient for the write operation .minio.sys/tmp (*errors.errorString)",
            **every(-10000, -9700, 60),
        ),
    ]
    spec = simple(
        464,
        start,
        incident("Document uploads stuck on 'processing'", "document upload", start),
        expected(
            "tls",
            [
                "minio",
                "minio.storage.internal",
                "minio-tls",
                "vault-pki-2026",
                "scan-worker",
                "Corp Internal Root 2026",
            ],
            "tls: failed to verify certificate: x509: certificate signed by unknown authority",
            "The internal PKI moved to a new root; this morning minio's Certificate minio-tls was switched to the ClusterIssuer vault-pki-2026 and cert-manager reissued it, MinIO reloading it at once. scan-worker (Go) trusts only the CA bundle baked into its image, which holds the old root, so every PUT to https://minio.storage.internal fails verification (certificate signed by unknown authority) and uploaded documents stay PROCESSING. upload-api's warnings and release, ClamAV's outdated-engine warning and MinIO's old storage error are not the cause.",
            [
                f"scan-worker: tls: failed to verify certificate: {sig}",
                "argocd: Certificate minio-tls issuer vault-pki-2024 -> vault-pki-2026",
                "minio: reloaded TLS certificate (Corp Internal Root 2026)",
            ],
            "Add the Corp Internal Root 2026 to scan-worker's trust bundle (mount the trust-manager bundle instead of baking it in) or reissue minio-tls from vault-pki-2024 until every client trusts both roots; then reprocess the stuck documents.",
        ),
        [
            bg(
                "upload-api",
                up,
                ["POST /v1/documents 202 {ms}ms", "GET /v1/documents/{n} 200 {ms}ms"],
                8,
            )
        ],
        evs,
        [
            svc("upload-api", 12, {"500": (0.0005, 0.0006)}, (0.1, 0.1)),
            svc("scan-worker", 4, {"500": (0.0, 0.95)}, (0.4, 0.05)),
        ],
        [
            {
                "name": "documents_processing",
                "labels": {"service": "upload-api"},
                "before": 4,
                "after": 320,
                "change_at": start + 300,
                "noise": 0.1,
            }
        ],
        {
            "uploads-stuck.md": runbook(
                "Uploads stuck in processing",
                "Documents stuck in PROCESSING mean ClamAV is behind: check clamav's queue, update its signatures (freshclam) and scale scan-worker up.",
            )
        },
    )
    spec["targets"] = [
        {
            "name": "minio",
            "url": "https://minio.storage.internal/minio/health/live",
            "fault": {"kind": "tls_wrong_chain"},
        },
        {
            "name": "upload-api-health",
            "url": "http://upload-api.internal.example/healthz",
            "fault": {"kind": "ok"},
        },
    ]
    spec["expected"]["root_cause_probe"] = "minio"
    spec["expected"]["netcheck"] = {
        "minio": {"failed_layer": "tls", "reason": "certificate_untrusted"},
        "upload-api-health": {"failed_layer": "none", "reason": None},
    }
    return spec


STAGES: dict[str, tuple[str, str]] = {
    "limitrange-pvc-max-blocks-es-data-claim": ("admission", "FailedCreate"),
    "cnpg-standbys-pending-hugepages-new-nodegroup": ("scheduling", "FailedScheduling"),
    "mongo-7-image-skips-fcv-6": ("startup", "CrashLoopBackOff"),
    "rabbitmq-watermark-above-container-limit": ("runtime", "OOMKilled"),
    "ebs-volume-degraded-stalls-cassandra-node": ("infrastructure", "VolumeIOStalled"),
    "redis-service-selector-includes-replicas": (
        "service_routing",
        "SelectorMatchesReplicas",
    ),
    "nats-route-port-missing-from-netpol": ("runtime", "NetworkPolicyDenied"),
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
