"""Writes the twenty-second held-out scenario set, bench/heldout22: `python bench/heldout22/_build.py`.

New incidents, none of them in the bundled set or in bench/heldout … bench/heldout20. Theme: data-layer
and asynchronous incidents (relational databases, caches, queues and streams, search clusters, object
storage, scheduled jobs and ETL) where the incident names the user-facing feature, never the data
component at fault. As in the earlier sets, everything that matters is written by hand below
(incident, expected answer, runbooks, kubectl answers, the log lines that carry the fault and the red
herrings); the bulk (background request lines, 2 h of metric points thinned to one every 30 s, a
namespace's tables, describe layouts) comes from bench/heldout20/_build.py's helpers (and through
them heldout15's and the earlier builders'), each scenario with a fixed seed (545-560). The author
read neither the planner (`reasoning/`) nor the engine (`diagnosis/engine/`, `docs/engine.md`), nor
their tests, nor any score file. Stdlib only.
"""

from __future__ import annotations

import importlib.util
from datetime import date, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


h20 = _load("heldout20_build", HERE.parent / "heldout20" / "_build.py")
h16 = _load("heldout16_build", HERE.parent / "heldout16" / "_build.py")
base = h20.base

table = base.table
events = base.events
runbook = base.runbook
app = h20.app
pod_name = h20.pod_name
namespace = h20.namespace
ev = h20.ev
bg = h20.bg
incident = h20.incident
expected = h20.expected
simple = h20.simple
container_text = h20.container_text
describe_pod = h20.describe_pod
podlog = h20.podlog
running = h20.running
crashloop = h20.crashloop
pending_pod = h20.pending_pod
pods_of = h20.pods_of
kube_case = h20.kube_case
svc = h20.svc
every = h20.every
backoff_rows = h20.backoff_rows
gauge = h20.gauge
with_netcheck = h20.with_netcheck
tidy_clock_times = h20.tidy_clock_times
sts_describe = h16.sts_describe
NODES_FRA = h20.NODES_FRA
NODES_IAD = h20.NODES_IAD
NODES_DUB = h20.NODES_DUB
NODES_PDX = h20.NODES_PDX

SCENARIOS: dict[str, Any] = {}


def scenario(slug: str):
    def register(fn):
        SCENARIOS[slug] = fn
        return fn

    return register


def sts_table(rows: list[list[str]]) -> str:
    return table([["NAME", "READY", "AGE", "CONTAINERS", "IMAGES"], *rows])


def pvc_table(rows: list[list[str]]) -> str:
    head = [
        "NAME",
        "STATUS",
        "VOLUME",
        "CAPACITY",
        "ACCESS MODES",
        "STORAGECLASS",
        "VOLUMEATTRIBUTESCLASS",
        "AGE",
    ]
    return table([head, *rows])


# =================================================================================================
# 1. CloudNativePG: a values refactor of the orders-db chart (PR db-charts#77, "flatten values")
#    dropped `serviceAccountTemplate.metadata.annotations` with the IRSA role. barman-cloud-wal-archive
#    has had no credentials since; WAL segments pile up on the 20Gi volume until the primary PANICs
#    on `No space left on device` and crash-loops. The nightly invoice batch (more WAL) is the
#    trigger. The incident says "order history".
# =================================================================================================


@scenario("cnpg-wal-archive-irsa-annotation-dropped")
def cnpg_wal_archive_irsa_annotation_dropped() -> dict[str, Any]:
    start = -1800
    ns = "orders"
    img = "ghcr.io/cloudnative-pg/postgresql:16.4"
    db = app(
        "orders-db",
        image=img,
        port=5432,
        rs="cnpg",
        kind="StatefulSet",
        cluster_ip="172.20.40.11",
        desired=3,
        pods=[
            ("1", "0/1", "CrashLoopBackOff", "7", "212d", 0),
            ("2", "1/1", "Running", "0", "212d", 1),
            ("3", "1/1", "Running", "0", "212d", 2),
        ],
    )
    oh = app(
        "order-history-api",
        image="4471203988.dkr.ecr.eu-central-1.amazonaws.com/orders/order-history-api:5.12.0",
        port=8080,
        rs="6b9d7c5f4",
        cluster_ip="172.20.40.30",
        pods=[
            ("k2pqz", "1/1", "Running", "0", "3h", 0),
            ("w7mtd", "1/1", "Running", "0", "3h", 1),
        ],
    )
    k8s = namespace(ns, NODES_FRA, [db, oh], seed=545)
    sig = "Unable to locate credentials"
    k8s[f"kubectl get persistentvolumeclaims -n {ns}"] = pvc_table(
        [
            [
                f"orders-db-{i}",
                "Bound",
                f"pvc-5e1c{i}a7d-93b2-4f0e-8c6a-1d2e3f4a5b6{i}",
                "20Gi",
                "RWO",
                "gp3",
                "<unset>",
                "212d",
            ]
            for i in (1, 2, 3)
        ]
    )
    k8s[f"kubectl get serviceaccounts -n {ns}"] = table(
        [
            ["NAME", "SECRETS", "AGE"],
            ["default", "0", "2y"],
            ["orders-db", "0", "212d"],
            ["order-history-api", "0", "2y"],
        ]
    )
    trace = [
        '{"level":"info","ts":"2026-12-07T11:28:40Z","logger":"postgres","msg":"record","record":{"error_severity":"LOG","message":"database system was interrupted; last known up at 2026-12-07 11:21:02 UTC"}}',
        '{"level":"info","ts":"2026-12-07T11:28:41Z","logger":"postgres","msg":"record","record":{"error_severity":"LOG","message":"redo starts at 3A/7F000028"}}',
        '{"level":"error","ts":"2026-12-07T11:28:44Z","logger":"wal-archive","msg":"failed to run wal-archive command","error":"unexpected failure invoking barman-cloud-wal-archive: exit status 4"}',
        '{"level":"info","ts":"2026-12-07T11:28:44Z","logger":"barman-cloud-wal-archive","msg":"2026-12-07 11:28:44,512 [412] ERROR: Barman cloud WAL archiver exception: '
        + sig
        + '"}',
        '{"level":"info","ts":"2026-12-07T11:28:46Z","logger":"postgres","msg":"record","record":{"error_severity":"PANIC","message":"could not write to file \\"pg_wal/xlogtemp.88\\": No space left on device"}}',
        '{"level":"info","ts":"2026-12-07T11:28:46Z","logger":"postgres","msg":"record","record":{"error_severity":"LOG","message":"startup process (PID 88) was terminated by signal 6: Aborted"}}',
    ]
    name = describe_pod(
        k8s,
        ns,
        db,
        "1",
        NODES_FRA,
        state=crashloop(1, "Error", -90, -84),
        started=-18300000,
        restarts=7,
        owner="Cluster/orders-db",
        labels="cnpg.io/cluster=orders-db,cnpg.io/instanceName=orders-db-1,cnpg.io/instanceRole=primary,role=primary",
        events_rows=backoff_rows(db, ns, "1", "x31 over 24m"),
    )
    k8s[f"kubectl logs {name} -n {ns} --previous --tail=1000"] = podlog(
        [(-88 + i * 0.8, line) for i, line in enumerate(trace)]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "3d",
                "Normal",
                "Updated",
                "Cluster/orders-db",
                "serviceAccount orders-db updated (annotations: {})",
            ),
            (
                "26m",
                "Warning",
                "BackOff",
                f"Pod/{name}",
                f"Back-off restarting failed container postgres in pod {name}_{ns}",
            ),
            (
                "25m",
                "Warning",
                "FailoverPending",
                "Cluster/orders-db",
                "current primary orders-db-1 is unhealthy; waiting for the failover delay (failoverDelay: 1800s)",
            ),
        ]
    )
    evs = [
        ev(
            "argocd",
            "info",
            "application orders-db: last sync 2026-12-04 16:02 to db-charts@4f2a91c (PR db-charts#77 'flatten values'): ServiceAccount orders-db configured, Cluster orders-db configured; Healthy",
            at=-7100,
        ),
        ev(
            "cnpg-orders-db",
            "error",
            '{"level":"error","ts":"2026-12-07T10:{n}Z","logger":"wal-archive","msg":"failed to run wal-archive command","logging_pod":"orders-db-1","walName":"pg_wal/0000000100000039000000{ms}","error":"unexpected failure invoking barman-cloud-wal-archive: exit status 4"}',
            **every(-7000, start, 120),
            pods=["orders-db-1"],
        ),
        ev(
            "cnpg-orders-db",
            "error",
            '{"level":"info","ts":"2026-12-07T10:{n}Z","logger":"barman-cloud-wal-archive","msg":"ERROR: Barman cloud WAL archiver exception: '
            + sig
            + '","logging_pod":"orders-db-1"}',
            **every(-7000, -60, 120),
            pods=["orders-db-1"],
        ),
        ev(
            "cnpg-orders-db",
            "error",
            '{"level":"info","ts":"2026-12-07T11:{n}Z","logger":"postgres","msg":"record","logging_pod":"orders-db-1","record":{"error_severity":"PANIC","message":"could not write to file \\"pg_wal/xlogtemp.{n}\\": No space left on device"}}',
            **every(start, -60, 180),
            pods=["orders-db-1"],
        ),
        ev(
            "invoice-batch",
            "info",
            "2026-12-07 11:{n} INFO  InvoiceRun - nightly catch-up run started: 412 311 invoices to write (delayed by the ERP import)",
            at=start - 400,
        ),
        ev(
            "order-history-api",
            "error",
            '{"@timestamp":"2026-12-07T11:{n}Z","level":"ERROR","logger":"com.zaxxer.hikari.pool.HikariPool","message":"HikariPool-1 - Connection is not available, request timed out after 30000ms.","cause":"org.postgresql.util.PSQLException: Connection to orders-db-rw:5432 refused."}',
            **every(start + 20, -3, 6),
            pods=pods_of(oh),
        ),
        ev(
            "order-history-api",
            "info",
            '{"@timestamp":"2026-12-07T08:{n}Z","level":"INFO","message":"order-history-api 5.12.0 started (returns tab)"}',
            at=-9000,
            pods=pods_of(oh),
        ),
        ev(
            "s3",
            "warn",
            "PUT s3://fernhill-pg-backups/orders-db/base/20261207T020000 503 SlowDown: Please reduce your request rate.",
            **every(-10600, -10100, 120),
        ),
        ev(
            "grafana",
            "warn",
            'logger=alerting.scheduler rule_uid=pg-disk msg="alert state changed" state=Alerting labels="persistentvolumeclaim=orders-db-1" value=98.9',
            at=start - 300,
        ),
    ]
    return kube_case(
        seed=545,
        start=start,
        inc=incident(
            "Order history page errors for everyone",
            "order history",
            start,
            ["a disk-usage alert fired on the database about half an hour earlier"],
        ),
        exp=expected(
            "application",
            [
                "cluster/orders-db",
                "orders-db",
                "orders-db-1",
                "serviceaccount/orders-db",
                "barman-cloud-wal-archive",
                "eks.amazonaws.com/role-arn",
                "PR db-charts#77",
            ],
            sig,
            "PR db-charts#77 flattened the orders-db chart's values and dropped the ServiceAccount's IRSA annotation, so CloudNativePG's barman-cloud-wal-archive has had no AWS credentials for three days. Every WAL segment failed to archive and stayed on the 20Gi volume; tonight's invoice catch-up filled it, the primary orders-db-1 PANICs on 'No space left on device' and crash-loops, and the failover waits for its delay. order-history-api's Hikari errors are the louder victim; its release, the disk alert and the stale S3 SlowDown are not the cause.",
            [
                f"orders-db-1: Barman cloud WAL archiver exception: {sig} (for days)",
                "orders-db-1: PANIC could not write to file pg_wal/...: No space left on device",
                "argocd: PR db-charts#77 configured ServiceAccount orders-db (annotations: {})",
            ],
            "Restore the eks.amazonaws.com/role-arn annotation on the orders-db ServiceAccount, let the archiver drain pg_wal (expand the volume first to get the primary up), then check backups.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "order-history-api",
                pods_of(oh),
                [
                    '{"level":"INFO","logger":"o.s.web","message":"GET /v2/orders?page={n} 200","ms":{ms}}'
                ],
                8,
            )
        ],
        evs=evs,
        services=[
            svc("order-history-api", 40, {"500": (0.001, 0.7)}, (0.06, 0.9)),
        ],
        gauges=[
            gauge(
                "kubelet_volume_stats_used_bytes_ratio",
                {"persistentvolumeclaim": "orders-db-1", "namespace": ns},
                0.93,
                1.0,
                start - 120,
            ),
            gauge(
                "cnpg_pg_stat_archiver_failed_count_delta",
                {"cluster": "orders-db", "pod": "orders-db-1"},
                30,
                30,
                start,
            ),
        ],
        books={
            "pg-disk-full.md": runbook(
                "Postgres volume full",
                "When a Postgres volume is full, expand the PVC (storage class gp3 allows expansion) and delete old log files in /controller/log. The cluster recovers by itself.",
            )
        },
    )


# =================================================================================================
# 2. Redis persistence on new nodes: the cart Redis StatefulSet moved to the Bottlerocket node group
#    `general-br` (Karpenter drift after the NodePool change INFRA-913). The old AL2 user data set
#    `vm.overcommit_memory=1`; the new nodes keep 0. BGSAVE's fork of the 9 GB instance fails
#    (`fork: Cannot allocate memory`), and with stop-writes-on-bgsave-error Redis refuses every
#    write: MISCONF. The incident says "basket".
# =================================================================================================


@scenario("redis-bgsave-fork-fails-overcommit-new-nodes")
def redis_bgsave_fork_fails_overcommit_new_nodes() -> dict[str, Any]:
    start = -2100
    ns = "cart"
    nodes = [
        ("ip-10-70-4-18.eu-central-1.compute.internal", "Ready", "10.70.4.18", "5h"),
        ("ip-10-70-5-201.eu-central-1.compute.internal", "Ready", "10.70.5.201", "5h"),
        ("ip-10-70-6-77.eu-central-1.compute.internal", "Ready", "10.70.6.77", "5h"),
    ]
    rd = app(
        "cart-redis",
        image="redis:7.2.6",
        port=6379,
        rs="r",
        kind="StatefulSet",
        desired=1,
        cluster_ip="172.20.61.9",
        pods=[("0", "1/1", "Running", "0", "5h", 0)],
    )
    api = app(
        "basket-api",
        image="4471203988.dkr.ecr.eu-central-1.amazonaws.com/shop/basket-api:8.3.0",
        port=3000,
        rs="7d8c6b5f9",
        cluster_ip="172.20.61.20",
        pods=[
            ("f4kzp", "1/1", "Running", "0", "90m", 1),
            ("q8wvn", "1/1", "Running", "0", "90m", 2),
        ],
    )
    k8s = namespace(
        ns,
        nodes,
        [rd, api],
        seed=546,
        statefulsets=sts_table([["cart-redis", "1/1", "3y", "redis", "redis:7.2.6"]]),
    )
    sig = "fork: Cannot allocate memory"
    misconf = "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk. Commands that may modify the data set are disabled, because this instance is configured to report errors during writes if RDB snapshotting fails (stop-writes-on-bgsave-error option). Please check the Redis logs for details about the RDB error."
    describe_pod(
        k8s,
        ns,
        rd,
        "0",
        nodes,
        state=running(-18000),
        started=-18000,
        ready=True,
        owner="StatefulSet/cart-redis",
        labels="app=cart-redis,apps.kubernetes.io/pod-index=0,statefulset.kubernetes.io/pod-name=cart-redis-0",
        extra="Node-Selectors:  karpenter.sh/nodepool=general\n",
    )
    k8s[f"kubectl logs cart-redis-0 -n {ns} --tail=1000"] = podlog(
        [
            (
                -18000,
                "1:C 07 Dec 2026 06:20:02.114 # WARNING Memory overcommit must be enabled! Without it, a background save or replication may fail under low memory condition. To fix this issue add 'vm.overcommit_memory = 1' to /etc/sysctl.conf and then reboot or run the command 'sysctl vm.overcommit_memory=1' for this to take effect.",
            ),
            (
                -17990,
                "1:M 07 Dec 2026 06:20:12.901 * DB loaded from disk: 9.812 seconds",
            ),
            (
                -17000,
                "1:M 07 Dec 2026 06:36:44.002 * 10000 changes in 60 seconds. Saving...",
            ),
            (
                -16990,
                "1:M 07 Dec 2026 06:36:44.003 * Background saving started by pid 211",
            ),
            *[
                (
                    float(t),
                    f"1:M 07 Dec 2026 11:{(t // 60) % 60:02d}:0{i % 10}.{i:03d} # Can't save in background: {sig}",
                )
                for i, t in enumerate(range(start - 60, 0, 120))
            ],
        ]
    )
    k8s[f"kubectl describe statefulsets cart-redis -n {ns}"] = sts_describe(
        "cart-redis",
        ns,
        replicas="1 desired | 1 total",
        status="1 Running / 0 Waiting / 0 Succeeded / 0 Failed",
        containers=container_text(
            "redis",
            "redis:7.2.6",
            6379,
            limits="memory:  20Gi",
            requests="cpu:      2\n  memory:   12Gi",
        ),
        claims="  Name:          data\n  StorageClass:  gp3\n  Capacity:      40Gi\n  Access Modes:  [ReadWriteOnce]",
        rows=[],
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "5h",
                "Normal",
                "DisruptionBlocked",
                "Node/ip-10-70-1-52.eu-central-1.compute.internal",
                "Drifted: NodePool general amiFamily AL2 -> Bottlerocket (INFRA-913)",
            ),
            (
                "5h",
                "Normal",
                "Scheduled",
                "Pod/cart-redis-0",
                f"Successfully assigned {ns}/cart-redis-0 to {nodes[0][0]}",
            ),
        ]
    )
    evs = [
        ev(
            "karpenter",
            "info",
            '{"level":"INFO","time":"2026-12-07T06:{n}Z","logger":"controller","message":"disrupting nodeclaim(s) via replace","reason":"drifted","nodepool":"general","decision":"replace","replacement-nodes":[{"instance-type":"r7i.2xlarge","ami":"bottlerocket-aws-k8s-1.31-x86_64-v1.27.1"}]}',
            at=-18500,
        ),
        ev(
            "cart-redis",
            "warn",
            "1:M 07 Dec 2026 11:{n}.{ms} # Can't save in background: " + sig,
            **every(start - 60, -30, 120),
            pods=["cart-redis-0"],
        ),
        ev(
            "cart-redis",
            "warn",
            "1:M 07 Dec 2026 11:{n}.{ms} * 10000 changes in 60 seconds. Saving...",
            **every(start - 61, -31, 120),
            pods=["cart-redis-0"],
        ),
        ev(
            "basket-api",
            "error",
            '{"level":50,"time":"2026-12-07T11:{n}Z","msg":"add to basket failed","err":{"type":"ReplyError","message":"'
            + misconf
            + '","command":"HSET"}}',
            **every(start, -3, 5),
            pods=pods_of(api),
        ),
        ev(
            "basket-api",
            "info",
            '{"level":30,"msg":"basket-api 8.3.0 listening on :3000 (saved-for-later list)"}',
            at=-5400,
            pods=pods_of(api),
        ),
        ev(
            "recommendations",
            "warn",
            '{"level":40,"msg":"upstream personalize GetRecommendations slow","ms":{ms}00}',
            **every(-7000, -100, 400),
        ),
        ev(
            "basket-api",
            "error",
            '{"level":50,"msg":"redis error: LOADING Redis is loading the dataset in memory"}',
            **every(-18000, -17980, 5),
            pods=pods_of(api),
        ),
    ]
    return kube_case(
        seed=546,
        start=start,
        inc=incident("Can't add items to basket, error toast", "basket", start),
        exp=expected(
            "application",
            [
                "statefulset/cart-redis",
                "cart-redis",
                "cart-redis-0",
                "vm.overcommit_memory",
                "bottlerocket",
                "nodepool general",
                "INFRA-913",
            ],
            sig,
            "Karpenter replaced the general NodePool's nodes with Bottlerocket (INFRA-913); the old AL2 user data set vm.overcommit_memory=1 and the new nodes keep 0. cart-redis-0 came up there (Redis warned 'Memory overcommit must be enabled!'); once its dataset grew, every BGSAVE fork fails with 'Cannot allocate memory' and, with stop-writes-on-bgsave-error, Redis refuses writes with MISCONF. basket-api's MISCONF errors are the louder victim; its release, recommendations latency and the morning LOADING errors are not the cause.",
            [
                f"cart-redis-0: Can't save in background: {sig}",
                "cart-redis-0 at start: WARNING Memory overcommit must be enabled!",
                "basket-api: MISCONF Redis is configured to save RDB snapshots ...",
            ],
            "Set vm.overcommit_memory=1 on the node group (Bottlerocket settings.kernel.sysctl), or give Redis a node that has it; meanwhile CONFIG SET stop-writes-on-bgsave-error no.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "basket-api",
                pods_of(api),
                [
                    '{"level":30,"msg":"GET /basket 200","responseTime":{ms}}',
                    '{"level":30,"msg":"GET /basket/count 200","responseTime":{ms}}',
                ],
                8,
            )
        ],
        evs=evs,
        services=[svc("basket-api", 70, {"500": (0.001, 0.35)}, (0.02, 0.03))],
        gauges=[
            gauge(
                "redis_rdb_last_bgsave_status",
                {"instance": "cart-redis-0"},
                1,
                0,
                start - 60,
            ),
            gauge(
                "redis_rdb_changes_since_last_save",
                {"instance": "cart-redis-0"},
                4000,
                2900000,
                start,
            ),
        ],
        books={
            "redis-memory.md": runbook(
                "Redis errors in basket-api",
                "Redis write errors usually mean maxmemory was reached. Check used_memory against maxmemory and raise maxmemory or FLUSHDB the expired-baskets database (db 3).",
            )
        },
    )


# =================================================================================================
# 3. Storage provisioning: for the winter sale the search team scaled the OpenSearch data StatefulSet
#    from 3 to 5. Its StorageClass gp3-encrypted uses a customer-managed KMS key that security's
#    "unused keys" cleanup (SEC-1442) scheduled for deletion last week: the attached volumes keep
#    working, but every new volume fails with `InvalidKMSKey.InvalidState`. The two new data pods stay
#    Pending and the three old ones are overloaded. The incident says "product search".
# =================================================================================================


@scenario("opensearch-scaleout-pvc-kms-key-pending-deletion")
def opensearch_scaleout_pvc_kms_key_pending_deletion() -> dict[str, Any]:
    start = -2400
    ns = "search"
    img = "opensearchproject/opensearch:2.17.1"
    os_ = app(
        "opensearch-data",
        image=img,
        port=9200,
        rs="os",
        kind="StatefulSet",
        desired=5,
        cluster_ip="10.100.90.12",
        pods=[
            ("0", "1/1", "Running", "0", "61d", 0),
            ("1", "1/1", "Running", "0", "61d", 1),
            ("2", "1/1", "Running", "0", "61d", 2),
            ("3", "0/1", "Pending", "0", "40m", -1),
            ("4", "0/1", "Pending", "0", "40m", -1),
        ],
    )
    sa = app(
        "search-api",
        image="ghcr.io/nordlys/search-api:4.8.2",
        port=8080,
        rs="5c7b9d8f6",
        cluster_ip="10.100.90.40",
        pods=[
            ("h2kdv", "1/1", "Running", "0", "2h", 0),
            ("p9qxm", "1/1", "Running", "0", "2h", 1),
            ("t4wzl", "1/1", "Running", "0", "2h", 2),
        ],
    )
    key = "arn:aws:kms:us-east-1:4471203988:key/7c1e2f3a-9b8d-4e6f-a1b2-c3d4e5f60718"
    k8s = namespace(
        ns,
        NODES_IAD,
        [os_, sa],
        seed=547,
        statefulsets=sts_table([["opensearch-data", "3/5", "61d", "opensearch", img]]),
    )
    sig = "InvalidKMSKey.InvalidState"
    prov = (
        'failed to provision volume with StorageClass "gp3-encrypted": rpc error: code = Internal desc = '
        'Could not create volume "pvc-{v}": could not create volume in EC2: operation error EC2: CreateVolume, '
        f"https response error StatusCode: 400, RequestID: 6f0e2b1c-4d3a-4c59-9e7b-2a1f0c9d8e7f, api error {sig}: "
        f"The KMS key provided is in an incorrect state ({key} is pending deletion)"
    )
    rows = []
    for i in range(5):
        pv = f"pvc-9a{i}4c1d2-6e7f-4a8b-9c0d-1e2f3a4b5c6{i}"
        rows.append(
            [
                f"data-opensearch-data-{i}",
                "Bound",
                pv,
                "200Gi",
                "RWO",
                "gp3-encrypted",
                "<unset>",
                "61d",
            ]
            if i < 3
            else [
                f"data-opensearch-data-{i}",
                "Pending",
                "",
                "",
                "",
                "gp3-encrypted",
                "<unset>",
                "40m",
            ]
        )
    k8s[f"kubectl get persistentvolumeclaims -n {ns}"] = pvc_table(rows)
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
                "gp3-encrypted",
                "ebs.csi.aws.com",
                "Delete",
                "WaitForFirstConsumer",
                "true",
                "1y",
            ],
        ]
    )
    k8s["kubectl describe storageclasses gp3-encrypted"] = (
        "Name:            gp3-encrypted\n"
        "IsDefaultClass:  No\n"
        "Annotations:     <none>\n"
        "Provisioner:           ebs.csi.aws.com\n"
        f"Parameters:            encrypted=true,kmsKeyId={key},type=gp3\n"
        "AllowVolumeExpansion:  True\n"
        "MountOptions:          <none>\n"
        "ReclaimPolicy:         Delete\n"
        "VolumeBindingMode:     WaitForFirstConsumer\n"
        "Events:                <none>\n"
    )
    for i in (3, 4):
        claim = f"data-opensearch-data-{i}"
        k8s[f"kubectl describe persistentvolumeclaims {claim} -n {ns}"] = (
            f"Name:          {claim}\nNamespace:     {ns}\nStorageClass:  gp3-encrypted\nStatus:        Pending\n"
            "Volume:        \nLabels:        app=opensearch-data\n"
            f"Annotations:   volume.beta.kubernetes.io/storage-provisioner: ebs.csi.aws.com\n"
            f"               volume.kubernetes.io/selected-node: {NODES_IAD[i - 2][0]}\n"
            "Finalizers:    [kubernetes.io/pvc-protection]\nCapacity:      \nAccess Modes:  \nVolumeMode:    Filesystem\n"
            f"Used By:       opensearch-data-{i}\n"
            "Events:\n  Type     Reason                Age                 From                                                                                       Message\n"
            "  ----     ------                ----                ----                                                                                       -------\n"
            "  Normal   WaitForFirstConsumer  40m                 persistentvolume-controller                                                                waiting for first consumer to be created before binding\n"
            f"  Warning  ProvisioningFailed    2m (x19 over 40m)   ebs.csi.aws.com_ebs-csi-controller-6d9f8b7c5-x2kqp_1c2d3e4f  {prov.format(v=f'{i}d8e-77a1')}\n"
            "  Normal   ExternalProvisioning  40s (x162 over 40m) persistentvolume-controller                                                                Waiting for a volume to be created either by the external provisioner 'ebs.csi.aws.com' or manually by the system administrator. If volume creation fails, please check the provisioner's logs.\n"
        )
        k8s[f"kubectl describe pods opensearch-data-{i} -n {ns}"] = pending_pod(
            f"opensearch-data-{i}",
            ns,
            owner="StatefulSet/opensearch-data",
            labels=[
                "app=opensearch-data",
                f"statefulset.kubernetes.io/pod-name=opensearch-data-{i}",
            ],
            sa="opensearch",
            containers=container_text(
                "opensearch",
                img,
                9200,
                limits="memory:  16Gi",
                requests="cpu:      4\n  memory:   16Gi",
            ),
            events_rows=[
                (
                    "Warning",
                    "FailedScheduling",
                    "2m (x8 over 40m)",
                    "default-scheduler",
                    'running PreBind plugin "VolumeBinding": binding volumes: provisioning failed for PVC "'
                    + claim
                    + '"',
                )
            ],
        )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "41m",
                "Normal",
                "SuccessfulCreate",
                "StatefulSet/opensearch-data",
                "create Claim data-opensearch-data-3 Pod opensearch-data-3 in StatefulSet opensearch-data success",
            ),
            (
                "41m",
                "Normal",
                "SuccessfulCreate",
                "StatefulSet/opensearch-data",
                "create Pod opensearch-data-3 in StatefulSet opensearch-data successful",
            ),
            (
                "2m",
                "Warning",
                "ProvisioningFailed",
                "PersistentVolumeClaim/data-opensearch-data-3",
                prov.format(v="3d8e-77a1"),
            ),
            (
                "2m",
                "Warning",
                "ProvisioningFailed",
                "PersistentVolumeClaim/data-opensearch-data-4",
                prov.format(v="4d8e-77a1"),
            ),
        ]
    )
    evs = [
        ev(
            "ebs-csi-controller",
            "error",
            'E1207 11:{n}.{ms}       1 driver.go:108] "GRPC error" err="rpc error: code = Internal desc = Could not create volume \\"pvc-3d8e-77a1\\": could not create volume in EC2: operation error EC2: CreateVolume, https response error StatusCode: 400, api error '
            + sig
            + ': The KMS key provided is in an incorrect state"',
            **every(start + 10, -10, 120),
        ),
        ev(
            "cloudtrail",
            "info",
            f'{{"eventSource":"kms.amazonaws.com","eventName":"ScheduleKeyDeletion","userIdentity":{{"arn":"arn:aws:sts::4471203988:assumed-role/sec-automation/key-janitor"}},"requestParameters":{{"keyId":"{key}","pendingWindowInDays":30}},"tags":{{"ticket":"SEC-1442","reason":"no Decrypt calls in 90 days"}}}}',
            at=-7150,
        ),
        ev(
            "argocd",
            "info",
            "application opensearch synced: StatefulSet opensearch-data replicas 3 -> 5 (PR search-infra#58 'winter sale capacity')",
            at=start - 30,
        ),
        ev(
            "opensearch-data",
            "warn",
            "[2026-12-07T11:{n},{ms}][WARN ][o.o.i.s.IndexingPressure] [opensearch-data-1] rejecting search on [products][2]: search thread pool queue [1000] full",
            **every(start + 600, -10, 45),
            pods=["opensearch-data-0", "opensearch-data-1", "opensearch-data-2"],
        ),
        ev(
            "search-api",
            "error",
            'time=2026-12-07T11:{n}Z level=ERROR msg="search failed" q="{n}" err="opensearch: 429 es_rejected_execution_exception" took={ms}00ms',
            **every(start + 600, -4, 9),
            pods=pods_of(sa),
        ),
        ev(
            "search-api",
            "info",
            'time=2026-12-07T09:{n}Z level=INFO msg="search-api 4.8.2 started" feature="did-you-mean"',
            at=-7300,
            pods=pods_of(sa),
        ),
        ev(
            "opensearch-data",
            "warn",
            "[2026-12-07T08:{n},{ms}][WARN ][o.o.i.i.ManagedIndexRunner] [opensearch-data-0] Failed to rollover index [logs-search-000114]: rollover target alias missing",
            **every(-10400, -10000, 60),
            pods=["opensearch-data-0"],
        ),
    ]
    return kube_case(
        seed=547,
        start=start,
        inc=incident(
            "Search super slow / timing out on the site", "product search", start
        ),
        exp=expected(
            "platform",
            [
                "storageclass/gp3-encrypted",
                "gp3-encrypted",
                key,
                "kms key",
                "SEC-1442",
                "statefulset/opensearch-data",
                "data-opensearch-data-3",
            ],
            sig,
            "The sale capacity change scaled the OpenSearch data StatefulSet from 3 to 5, but the StorageClass gp3-encrypted encrypts with a customer-managed KMS key that the key janitor scheduled for deletion (SEC-1442). Volumes already attached keep working; every new volume fails with InvalidKMSKey.InvalidState, so data-opensearch-data-3/-4 stay Pending and their pods never schedule. The three old data nodes take the sale traffic alone and reject searches. search-api's 429s are the louder victim; its release and the old ISM rollover warning are not the cause.",
            [
                f"PVC data-opensearch-data-3: ProvisioningFailed ... {sig}",
                "cloudtrail: ScheduleKeyDeletion on the storage class's key (SEC-1442)",
                "opensearch-data-3/-4 Pending: provisioning failed",
            ],
            "Cancel the key deletion (CancelKeyDeletion + EnableKey), let the claims provision, and tag keys used by storage classes so the janitor skips them.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "search-api",
                pods_of(sa),
                [
                    'time=2026-12-07T11:{n}Z level=INFO msg="GET /v1/search" status=200 took={ms}ms'
                ],
                8,
            )
        ],
        evs=evs,
        services=[
            svc(
                "search-api", 140, {"429": (0.0, 0.18), "504": (0.0, 0.05)}, (0.09, 1.8)
            )
        ],
        gauges=[
            gauge(
                "opensearch_threadpool_search_queue",
                {"node": "opensearch-data-1"},
                12,
                1000,
                start + 500,
            ),
            gauge(
                "kube_statefulset_status_replicas_ready",
                {"statefulset": "opensearch-data", "namespace": ns},
                3,
                3,
                start,
            ),
        ],
        books={
            "search-slow.md": runbook(
                "Search slow",
                "Slow search is usually a cold query cache after a deploy. Clear the request cache (POST /products/_cache/clear) and restart search-api pods one at a time.",
            )
        },
    )


# =================================================================================================
# 4. Redis Cluster: a "remove unused objects" PR (platform#430) deleted the session-redis
#    PodDisruptionBudget. Today's node group upgrade drained the node holding session-redis-2 (master
#    of slots 10923-16383) and the node of its replica session-redis-5 at once. Both came back with
#    new IPs; the home-grown image has no step that updates nodes.conf, so the cluster still gossips
#    to the old IPs and reports cluster_state:fail. Clients get CLUSTERDOWN. The incident says "login".
# =================================================================================================


@scenario("redis-cluster-pdb-deleted-drain-takes-slot-owner")
def redis_cluster_pdb_deleted_drain_takes_slot_owner() -> dict[str, Any]:
    start = -1500
    ns = "identity"
    img = "4471203988.dkr.ecr.eu-west-1.amazonaws.com/platform/redis-cluster:7.0.15-r3"
    rc = app(
        "session-redis",
        image=img,
        port=6379,
        rs="sr",
        kind="StatefulSet",
        desired=6,
        cluster_ip="None",
        pods=[
            ("0", "1/1", "Running", "0", "88d", 0),
            ("1", "1/1", "Running", "0", "88d", 1),
            ("2", "0/1", "Running", "0", "27m", 2),
            ("3", "1/1", "Running", "0", "88d", 0),
            ("4", "1/1", "Running", "0", "88d", 1),
            ("5", "0/1", "Running", "0", "27m", 2),
        ],
    )
    auth = app(
        "auth-service",
        image="4471203988.dkr.ecr.eu-west-1.amazonaws.com/identity/auth-service:12.4.1",
        port=8080,
        rs="8f7d6c5b4",
        cluster_ip="172.20.12.40",
        pods=[
            ("b7nqx", "1/1", "Running", "0", "4h", 0),
            ("m3tzc", "1/1", "Running", "0", "4h", 1),
        ],
    )
    k8s = namespace(
        ns,
        NODES_DUB,
        [rc, auth],
        seed=548,
        statefulsets=sts_table([["session-redis", "4/6", "2y", "redis", img]]),
    )
    sig = "CLUSTERDOWN The cluster is down"
    k8s[f"kubectl get poddisruptionbudgets -n {ns}"] = table(
        [
            ["NAME", "MIN AVAILABLE", "MAX UNAVAILABLE", "ALLOWED DISRUPTIONS", "AGE"],
            ["auth-service", "1", "N/A", "1", "2y"],
        ]
    )
    for sfx in ("2", "5"):
        describe_pod(
            k8s,
            ns,
            rc,
            sfx,
            NODES_DUB,
            state=running(-1620),
            started=-1620,
            owner="StatefulSet/session-redis",
            labels=f"app=session-redis,statefulset.kubernetes.io/pod-name=session-redis-{sfx}",
            conditions=[
                ("Initialized", "True"),
                ("Ready", "False"),
                ("ContainersReady", "False"),
                ("PodScheduled", "True"),
            ],
            events_rows=[
                (
                    "Warning",
                    "Unhealthy",
                    "20s (x160 over 26m)",
                    "kubelet",
                    "Readiness probe failed: cluster_state:fail",
                ),
            ],
        )
    k8s[f"kubectl logs session-redis-2 -n {ns} --tail=1000"] = podlog(
        [
            (
                -1618,
                "1:M 07 Dec 2026 11:10:42.118 * Node configuration loaded, I'm 5b1e9c0d7a2f4e63b8a1c2d3e4f5a6b7c8d9e0f1",
            ),
            (-1617, "1:M 07 Dec 2026 11:10:42.120 * Ready to accept connections tcp"),
            (-1600, "1:M 07 Dec 2026 11:11:00.002 # Cluster state changed: fail"),
            (
                -1590,
                "1:M 07 Dec 2026 11:11:10.403 * Connecting to MASTER 10.81.3.144:6379 (stale address in nodes.conf)",
            ),
            (
                -900,
                "1:M 07 Dec 2026 11:22:50.771 # Error condition on socket for SYNC: Connection timed out",
            ),
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "28m",
                "Normal",
                "Killing",
                "Pod/session-redis-2",
                "Stopping container redis",
            ),
            (
                "28m",
                "Normal",
                "Killing",
                "Pod/session-redis-5",
                "Stopping container redis",
            ),
            (
                "27m",
                "Normal",
                "SuccessfulCreate",
                "StatefulSet/session-redis",
                "create Pod session-redis-2 in StatefulSet session-redis successful",
            ),
            (
                "27m",
                "Normal",
                "SuccessfulCreate",
                "StatefulSet/session-redis",
                "create Pod session-redis-5 in StatefulSet session-redis successful",
            ),
            (
                "20s",
                "Warning",
                "Unhealthy",
                "Pod/session-redis-2",
                "Readiness probe failed: cluster_state:fail",
            ),
        ]
    )
    evs = [
        ev(
            "argocd",
            "info",
            "application identity-platform synced (PR platform#430 'remove unused objects'): poddisruptionbudget.policy/session-redis pruned",
            at=-7000,
        ),
        ev(
            "eks",
            "info",
            "UpdateNodegroupVersion identity-ng-b 1.30 -> 1.31: draining ip-10-81-3-144.eu-west-1.compute.internal, ip-10-81-3-201.eu-west-1.compute.internal (maxUnavailable 2)",
            at=start - 260,
        ),
        ev(
            "session-redis",
            "error",
            "1:M 07 Dec 2026 11:{n}.{ms} # Cluster state changed: fail",
            at=start - 200,
            pods=["session-redis-0"],
        ),
        ev(
            "session-redis",
            "warn",
            "1:M 07 Dec 2026 11:{n}.{ms} * FAIL message received from 8d2c about 5b1e9c0d (10.81.3.144:6379@16379) - slots 10923-16383 have no reachable master",
            **every(start - 190, -60, 300),
            pods=["session-redis-0", "session-redis-1"],
        ),
        ev(
            "auth-service",
            "error",
            '{"@timestamp":"2026-12-07T11:{n}Z","level":"ERROR","logger":"o.s.s.w.a.AbstractAuthenticationProcessingFilter","message":"An internal error occurred while trying to authenticate the user.","stack_trace":"org.springframework.data.redis.RedisSystemException: Error in execution; nested exception is io.lettuce.core.RedisCommandExecutionException: '
            + sig
            + '"}',
            **every(start, -2, 4),
            pods=pods_of(auth),
        ),
        ev(
            "auth-service",
            "info",
            '{"@timestamp":"2026-12-07T09:{n}Z","level":"INFO","message":"auth-service 12.4.1 started (passkeys beta)"}',
            at=-7400,
            pods=pods_of(auth),
        ),
        ev(
            "okta-sync",
            "warn",
            "WARN  okta user import: 429 rate limit, sleeping 60s",
            **every(-7000, -100, 600),
        ),
        ev(
            "auth-service",
            "error",
            '{"@timestamp":"2026-12-07T08:{n}Z","level":"ERROR","message":"JWKS refresh failed: connect timed out (login.partner-idp.example)"}',
            **every(-10500, -10000, 90),
            pods=pods_of(auth),
        ),
    ]
    return kube_case(
        seed=548,
        start=start,
        inc=incident("Nobody can log in, 'something went wrong'", "login", start),
        exp=expected(
            "application",
            [
                "statefulset/session-redis",
                "session-redis",
                "session-redis-2",
                "session-redis-5",
                "poddisruptionbudget/session-redis",
                "nodes.conf",
                "PR platform#430",
            ],
            sig,
            "PR platform#430 pruned the session-redis PodDisruptionBudget. The node group upgrade then drained two nodes at once, taking session-redis-2 (master of slots 10923-16383) and its replica session-redis-5. Both restarted with new IPs, but the image never rewrites nodes.conf, so the cluster still looks for them at the old addresses: the slot range has no reachable master, cluster_state is fail and every command answers CLUSTERDOWN. auth-service's errors are the louder victim; its release, Okta sync throttling and the old JWKS timeout are not the cause.",
            [
                f"auth-service: RedisCommandExecutionException: {sig}",
                "session-redis: slots 10923-16383 have no reachable master; Cluster state changed: fail",
                "argocd: poddisruptionbudget session-redis pruned (PR platform#430)",
            ],
            "CLUSTER MEET the restarted pods at their new IPs (or fix the startup script to rewrite nodes.conf), restore the PodDisruptionBudget (maxUnavailable 1).",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "auth-service",
                pods_of(auth),
                [
                    '{"level":"INFO","logger":"o.s.web","message":"GET /oauth2/jwks 200","ms":{ms}}'
                ],
                8,
            )
        ],
        evs=evs,
        services=[svc("auth-service", 50, {"500": (0.001, 0.8)}, (0.04, 0.05))],
        gauges=[
            gauge(
                "redis_cluster_state",
                {"instance": "session-redis-0"},
                1,
                0,
                start - 200,
            ),
            gauge(
                "redis_cluster_slots_fail",
                {"instance": "session-redis-0"},
                0,
                5461,
                start - 200,
            ),
        ],
        books={
            "login-failing.md": runbook(
                "Login failing",
                "Login failures usually come from the partner IdP: check JWKS reachability and the signing key rotation calendar, then restart auth-service to refresh keys.",
            )
        },
    )


# =================================================================================================
# 5. CDC: a topic-janitor CronJob ("delete topics with no produce for 30 days", PR data-platform#212)
#    deleted the Kafka Connect offsets topic `cdc.connect-offsets` (offsets are only written when
#    they change; the orders table was quiet over a freeze). Kafka Connect recreated it empty; the
#    Debezium connector found no previous offsets and, with snapshot.mode=initial, started a full
#    snapshot of a 180M-row table, and the Connect worker is OOMKilled over and over. Search stops
#    following the orders database. The incident says "product search" (stock shown wrong).
# =================================================================================================


@scenario("debezium-offsets-topic-deleted-resnapshot-oom")
def debezium_offsets_topic_deleted_resnapshot_oom() -> dict[str, Any]:
    start = -2700
    ns = "cdc"
    cc = app(
        "cdc-connect-connect",
        image="4471203988.dkr.ecr.eu-central-1.amazonaws.com/data/cdc-connect:2.7.3",
        port=8083,
        rs="c",
        kind="StatefulSet",
        desired=1,
        cluster_ip="172.20.77.8",
        pods=[("0", "0/1", "CrashLoopBackOff", "6", "140d", 1)],
    )
    ix = app(
        "search-indexer",
        image="4471203988.dkr.ecr.eu-central-1.amazonaws.com/data/search-indexer:3.1.0",
        port=8080,
        rs="6d5c8b7f9",
        cluster_ip="172.20.77.30",
        pods=[("x8rkd", "1/1", "Running", "0", "9d", 0)],
    )
    k8s = namespace(ns, NODES_FRA, [cc, ix], seed=549)
    sig = "No previous offsets found"
    name = describe_pod(
        k8s,
        ns,
        cc,
        "0",
        NODES_FRA,
        state=crashloop(137, "OOMKilled", -300, -95),
        started=-12096000,
        restarts=6,
        owner="StrimziPodSet/cdc-connect-connect",
        labels="strimzi.io/cluster=cdc-connect,strimzi.io/kind=KafkaConnect,strimzi.io/name=cdc-connect-connect",
        events_rows=backoff_rows(cc, ns, "0", "x14 over 41m"),
    )
    trace = [
        "2026-12-07 11:{n},101 INFO [orders-connector|task-0] Starting PostgresConnectorTask with configuration: snapshot.mode = initial, table.include.list = public.orders,public.order_lines (io.debezium.connector.common.BaseSourceTask)",
        f"2026-12-07 11:{{n}},388 INFO [orders-connector|task-0] {sig} (io.debezium.connector.common.BaseSourceTask)",
        "2026-12-07 11:{n},412 INFO [orders-connector|task-0] According to the connector configuration both schema and data will be snapshot. (io.debezium.relational.RelationalSnapshotChangeEventSource)",
        "2026-12-07 11:{n},906 INFO [orders-connector|task-0] Exporting data from table 'public.order_lines' (184 221 904 rows) (io.debezium.relational.RelationalSnapshotChangeEventSource)",
        "2026-12-07 11:{n},551 WARN [Producer clientId=connector-producer-orders-connector-0] buffer.memory exhausted, blocking send (org.apache.kafka.clients.producer.KafkaProducer)",
        "java.lang.OutOfMemoryError: Java heap space",
    ]
    k8s[f"kubectl logs {name} -n {ns} --previous --tail=1000"] = podlog(
        [
            (-290 + i * 30, line.replace("{n}", f"{53 + i}:1{i}"))
            for i, line in enumerate(trace)
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "3h",
                "Normal",
                "SuccessfulCreate",
                "CronJob/topic-janitor",
                "Created job topic-janitor-29421840",
            ),
            (
                "3h",
                "Normal",
                "Completed",
                "Job/topic-janitor-29421840",
                "Job completed",
            ),
            (
                "2m",
                "Warning",
                "BackOff",
                f"Pod/{name}",
                f"Back-off restarting failed container cdc-connect-connect in pod {name}_{ns}",
            ),
        ]
    )
    evs = [
        ev(
            "topic-janitor",
            "info",
            '{"level":"info","msg":"deleting idle topic","topic":"cdc.connect-offsets","last_produce":"2026-11-05T16:02:11Z","rule":"idle>30d","pr":"data-platform#212"}',
            at=-10600,
        ),
        ev(
            "topic-janitor",
            "info",
            '{"level":"info","msg":"deleting idle topic","topic":"tmp.replay-20261020","last_produce":"2026-10-20T09:10:00Z","rule":"idle>30d"}',
            at=-10610,
        ),
        ev(
            "kafka",
            "info",
            "[2026-12-07 08:{n},772] INFO [Controller id=2] Deleted topic cdc.connect-offsets (kafka.controller.KafkaController)",
            at=-10590,
        ),
        ev(
            "kafka",
            "info",
            "[2026-12-07 10:{n},120] INFO [Controller id=2] New topics: [Set(cdc.connect-offsets)], auto-created by connect cluster cdc-connect (kafka.controller.KafkaController)",
            at=start - 30,
        ),
        ev(
            "cdc-connect",
            "info",
            f"2026-12-07 11:{{n}},388 INFO [orders-connector|task-0] {sig} (io.debezium.connector.common.BaseSourceTask)",
            **every(start, -60, 360),
            pods=[name],
        ),
        ev(
            "cdc-connect",
            "error",
            "2026-12-07 11:{n},004 ERROR [orders-connector|task-0] WorkerSourceTask{id=orders-connector-0} Task threw an uncaught and unrecoverable exception: java.lang.OutOfMemoryError: Java heap space",
            **every(start + 330, -60, 360),
            pods=[name],
        ),
        ev(
            "search-indexer",
            "warn",
            'level=warn msg="no change events for 45m, index may be stale" topic=cdc.public.order_lines lag_seconds={n}',
            **every(start + 900, -30, 120),
            pods=pods_of(ix),
        ),
        ev(
            "storefront",
            "error",
            '{"level":"error","msg":"add to cart rejected: item out of stock","sku":"SKU-{n}","shown_in_search_as":"in stock"}',
            **every(start + 1200, -5, 25),
        ),
        ev(
            "storefront",
            "info",
            '{"level":"info","msg":"storefront 2026.49.3 deployed (new filters panel)"}',
            at=-5000,
        ),
        ev(
            "postgres-orders",
            "warn",
            '2026-12-07 11:{n}.{ms} UTC [{n}] LOG:  duration: 1{ms}12.311 ms  statement: SELECT * FROM "public"."order_lines"',
            **every(start + 40, -60, 400),
        ),
        ev(
            "search-indexer",
            "error",
            'level=error msg="bulk request failed" err="opensearch: 503 cluster_block_exception" ',
            **every(-10300, -9900, 60),
            pods=pods_of(ix),
        ),
    ]
    return kube_case(
        seed=549,
        start=start,
        inc=incident(
            "Search shows items in stock that aren't, stock never updates",
            "product search",
            start,
        ),
        exp=expected(
            "application",
            [
                "topic-janitor",
                "cdc.connect-offsets",
                "cdc-connect",
                "kafkaconnect/cdc-connect",
                "orders-connector",
                "debezium",
                "data-platform#212",
            ],
            sig,
            "The topic-janitor CronJob (PR data-platform#212) deleted the idle-looking Kafka Connect offsets topic cdc.connect-offsets. Connect recreated it empty; the Debezium orders-connector found no previous offsets and, with snapshot.mode=initial, began a full snapshot of order_lines (184M rows), and the Connect worker runs out of heap and is OOMKilled in a loop. No change events reach search-indexer, so stock in search is frozen. The storefront's out-of-stock rejections and search-indexer's staleness warnings are victims; the storefront release, the snapshot SELECT in Postgres' slow log and the old cluster_block error are not the cause.",
            [
                f"cdc-connect: {sig}, full snapshot of public.order_lines, OutOfMemoryError",
                "topic-janitor: deleting idle topic cdc.connect-offsets",
                "cdc-connect-connect-0 OOMKilled, CrashLoopBackOff",
            ],
            "Exclude Connect's internal topics from the janitor, restore the connector's offsets (the LSN from the replication slot) with snapshot.mode=never or no_data, then restart the task.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "storefront",
                ["storefront-7c9d-2kq", "storefront-7c9d-8wm"],
                ['{"level":"info","msg":"GET /search?q={n} 200","ms":{ms}}'],
                8,
            )
        ],
        evs=evs,
        services=[svc("storefront", 90, {"409": (0.001, 0.04)}, (0.1, 0.1))],
        gauges=[
            gauge(
                "kafka_consumergroup_lag_seconds",
                {"group": "search-indexer", "topic": "cdc.public.order_lines"},
                2,
                2700,
                start,
            ),
            gauge(
                "container_memory_working_set_bytes",
                {"pod": name, "namespace": ns},
                1.6e9,
                4.29e9,
                start,
            ),
        ],
        books={
            "search-stale.md": runbook(
                "Search results stale",
                "Stale search results mean the indexer fell behind. Scale search-indexer to 4 replicas and run the full reindex job (reindex-products) if lag stays above 10 minutes.",
            )
        },
    )


# =================================================================================================
# 6. Chart major bump: Renovate's PR loyalty#301 bumped the bitnami/postgresql chart 12.12 -> 16.2
#    ("chore(deps): update helm chart postgresql to v16"), automerged after CI, and Argo CD synced
#    it. The new chart's image is PostgreSQL 17 on the same volume initialised by 15: the server
#    refuses the data directory and crash-loops. The loyalty app shows 0 points. The incident says
#    "loyalty points".
# =================================================================================================


@scenario("postgres-chart-bump-major-version-data-dir")
def postgres_chart_bump_major_version_data_dir() -> dict[str, Any]:
    start = -1300
    ns = "loyalty"
    img = "docker.io/bitnami/postgresql:17.2.0-debian-12-r3"
    pg = app(
        "loyalty-postgresql",
        image=img,
        port=5432,
        rs="pg",
        kind="StatefulSet",
        desired=1,
        cluster_ip="10.43.20.15",
        pods=[("0", "0/1", "CrashLoopBackOff", "8", "22m", 1)],
    )
    la = app(
        "loyalty-api",
        image="registry.gitlab.com/fernhill/loyalty/loyalty-api:2.30.1",
        port=8000,
        rs="9c8b7d6f5",
        cluster_ip="10.43.20.30",
        pods=[
            ("d6mqs", "1/1", "Running", "0", "6h", 0),
            ("z2kfw", "1/1", "Running", "0", "6h", 2),
        ],
    )
    k8s = namespace(
        ns,
        NODES_FRA,
        [pg, la],
        seed=550,
        statefulsets=sts_table(
            [["loyalty-postgresql", "0/1", "2y", "postgresql", img]]
        ),
    )
    sig = "database files are incompatible with server"
    name = describe_pod(
        k8s,
        ns,
        pg,
        "0",
        NODES_FRA,
        state=crashloop(1, "Error", -70, -68),
        started=-1320,
        restarts=8,
        owner="StatefulSet/loyalty-postgresql",
        labels="app.kubernetes.io/name=postgresql,app.kubernetes.io/instance=loyalty,helm.sh/chart=postgresql-16.2.5",
        events_rows=backoff_rows(pg, ns, "0", "x92 over 22m"),
    )
    k8s[f"kubectl logs {name} -n {ns} --previous --tail=1000"] = podlog(
        [
            (-70, "postgresql 11:44:10.21 INFO  ==> ** Starting PostgreSQL setup **"),
            (
                -69.6,
                "postgresql 11:44:10.48 INFO  ==> Deploying PostgreSQL with persisted data...",
            ),
            (-69.2, "postgresql 11:44:10.66 INFO  ==> ** Starting PostgreSQL **"),
            (-69.0, f"2026-12-07 11:44:10.702 GMT [1] FATAL:  {sig}"),
            (
                -69.0,
                "2026-12-07 11:44:10.702 GMT [1] DETAIL:  The data directory was initialized by PostgreSQL version 15, which is not compatible with this version 17.2.",
            ),
        ]
    )
    k8s[f"kubectl describe statefulsets loyalty-postgresql -n {ns}"] = sts_describe(
        "loyalty-postgresql",
        ns,
        replicas="1 desired | 1 total",
        status="1 Running / 0 Waiting / 0 Succeeded / 0 Failed",
        containers=container_text("postgresql", img, 5432, limits="memory:  2Gi"),
        claims="  Name:          data\n  StorageClass:  local-path\n  Capacity:      30Gi\n  Access Modes:  [ReadWriteOnce]",
        rows=[
            (
                "Normal",
                "SuccessfulDelete",
                "22m",
                "statefulset-controller",
                f"delete Pod {name} in StatefulSet loyalty-postgresql successful",
            ),
            (
                "Normal",
                "SuccessfulCreate",
                "22m",
                "statefulset-controller",
                f"create Pod {name} in StatefulSet loyalty-postgresql successful",
            ),
        ],
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "22m",
                "Normal",
                "Pulled",
                f"Pod/{name}",
                f'Successfully pulled image "{img}" in 6.2s',
            ),
            (
                "2m",
                "Warning",
                "BackOff",
                f"Pod/{name}",
                f"Back-off restarting failed container postgresql in pod {name}_{ns}",
            ),
        ]
    )
    evs = [
        ev(
            "renovate",
            "info",
            'INFO: PR automerged (repository=fernhill/loyalty-deploy, pr=301, title="chore(deps): update helm chart postgresql to v16", from=12.12.10, to=16.2.5)',
            at=start - 140,
        ),
        ev(
            "argocd",
            "info",
            "application loyalty synced to loyalty-deploy@b71c0e9: StatefulSet loyalty-postgresql configured (image bitnami/postgresql:15.4.0-debian-11-r45 -> "
            + img
            + ")",
            at=start - 60,
        ),
        ev(
            "loyalty-postgresql",
            "error",
            f"2026-12-07 11:{{n}}.{{ms}} GMT [1] FATAL:  {sig}",
            **every(start, -60, 150),
            pods=[name],
        ),
        ev(
            "loyalty-api",
            "error",
            '[2026-12-07 11:{n} +0000] [{ms}] [ERROR] django.db.utils.OperationalError: connection to server at "loyalty-postgresql" (10.43.20.15), port 5432 failed: Connection refused',
            **every(start + 10, -3, 5),
            pods=pods_of(la),
        ),
        ev(
            "loyalty-api",
            "info",
            "[2026-12-07 06:{n} +0000] [1] [INFO] loyalty-api 2.30.1 booting (double points weekend)",
            at=-7000,
            pods=pods_of(la),
        ),
        ev(
            "braze",
            "warn",
            "campaign 'double points weekend' send: 7% hard bounces",
            **every(-6000, -500, 900),
        ),
        ev(
            "loyalty-api",
            "error",
            "[2026-12-07 08:{n} +0000] [{ms}] [ERROR] celery: Task loyalty.tasks.expire_points timed out after 300s",
            **every(-10300, -9900, 100),
            pods=pods_of(la),
        ),
    ]
    return kube_case(
        seed=550,
        start=start,
        inc=incident(
            "Loyalty points show 0 / app loyalty tab errors", "loyalty points", start
        ),
        exp=expected(
            "application",
            [
                "statefulset/loyalty-postgresql",
                "loyalty-postgresql",
                "loyalty-postgresql-0",
                "postgresql 17",
                "bitnami/postgresql",
                "renovate",
                "pr 301",
            ],
            sig,
            "Renovate automerged a major bump of the bitnami/postgresql chart (12.12 -> 16.2, PR 301), which changed the image from PostgreSQL 15 to 17 on the same volume. Postgres refuses a data directory initialised by another major version and exits, so loyalty-postgresql-0 crash-loops and loyalty-api cannot connect. loyalty-api's connection errors are the louder victim; its release, the Braze bounces and the old Celery timeout are not the cause.",
            [
                f"loyalty-postgresql-0: FATAL: {sig} (initialized by PostgreSQL version 15 ... this version 17.2)",
                "renovate: PR 301 update helm chart postgresql to v16 automerged",
                "argocd: image bitnami/postgresql 15.4.0 -> 17.2.0",
            ],
            "Revert the chart bump (pin image.tag to 15), then upgrade with pg_upgrade or a dump/restore; stop Renovate from automerging major chart updates.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "loyalty-api",
                pods_of(la),
                [
                    '10.42.{ms}.{ms} - - [07/Dec/2026:11:{n} +0000] "GET /healthz HTTP/1.1" 200 2 "-" "kube-probe/1.31"'
                ],
                8,
            )
        ],
        evs=evs,
        services=[svc("loyalty-api", 25, {"500": (0.001, 0.9)}, (0.05, 0.02))],
        gauges=[
            gauge("pg_up", {"instance": "loyalty-postgresql-0"}, 1, 0, start - 40),
        ],
        books={
            "loyalty-zero.md": runbook(
                "Loyalty balances show zero",
                "Zero balances appear when the expire_points Celery task runs twice. Stop the celery beat, check the points_ledger for duplicate expiry rows and restore them.",
            )
        },
    )


# =================================================================================================
# 7. Autovacuum left off: three days ago a bulk import (OPS-3310) ran
#    `ALTER TABLE good_jobs SET (autovacuum_enabled = false)` to speed itself up and never turned it
#    back. The GoodJob queue table churns millions of rows a day; dead tuples pile up, the
#    `FOR UPDATE SKIP LOCKED` dequeue query now scans them and takes seconds, the workers fall behind.
#    Password-reset mails arrive 40 minutes late. The incident says "password reset".
# =================================================================================================


@scenario("queue-table-autovacuum-left-disabled-after-import")
def queue_table_autovacuum_left_disabled_after_import() -> dict[str, Any]:
    start = -2400
    sig = "autovacuum_enabled = false"
    workers = ["worker-i-0d1e", "worker-i-0f3a"]
    evs = [
        ev(
            "postgres",
            "info",
            "2026-12-04 22:{n}.{ms} UTC [{n}] import@app LOG:  statement: ALTER TABLE good_jobs SET ("
            + sig
            + ");  -- OPS-3310 speed up bulk import of legacy notifications",
            at=-7150,
        ),
        ev(
            "postgres",
            "info",
            '2026-12-07 09:{n}.{ms} UTC [{n}] LOG:  automatic vacuum of table "app.public.sessions": index scans: 1, pages: 0 removed, 18220 remain; tuples: 40211 removed, 911002 remain',
            **every(-7000, -60, 900),
        ),
        ev(
            "postgres",
            "warn",
            '2026-12-07 11:{n}.{ms} UTC [{n}] app@app LOG:  duration: 3{ms}7.118 ms  execute <unnamed>: SELECT "good_jobs".* FROM "good_jobs" WHERE "good_jobs"."finished_at" IS NULL AND ("good_jobs"."scheduled_at" <= now()) ORDER BY priority DESC NULLS LAST, created_at ASC LIMIT 1 FOR UPDATE SKIP LOCKED',
            **every(start, -5, 15),
        ),
        ev(
            "good_job",
            "warn",
            "W, [2026-12-07T11:{n} #{ms}]  WARN -- : [GoodJob] Queue default: latency 2{ms}s, 18{ms} jobs enqueued, executing 10/10 threads",
            **every(start + 300, -30, 60),
            pods=workers,
        ),
        ev(
            "good_job",
            "info",
            "I, [2026-12-07T11:{n} #{ms}]  INFO -- : [ActiveJob] [ActionMailer::MailDeliveryJob] Performed ActionMailer::MailDeliveryJob (Job ID: {n}) from GoodJob(default) in 2{ms}.4ms",
            **every(start - 3000, -8, 20),
            pods=workers,
        ),
        ev(
            "web",
            "info",
            "I, [2026-12-07T10:{n} #{ms}]  INFO -- : [web] deployed release v512 (remember-me checkbox)",
            at=-4700,
        ),
        ev(
            "postmark",
            "warn",
            "Bounce webhook: HardBounce for {n}@hotmail.example (ISP: Microsoft), stream outbound",
            **every(-7000, -100, 300),
        ),
        ev(
            "good_job",
            "error",
            "E, [2026-12-07T08:{n} #{ms}] ERROR -- : [GoodJob] Net::ReadTimeout with #<TCPSocket:(closed)> (Postmark API)",
            **every(-10500, -10000, 120),
            pods=workers,
        ),
    ]
    return simple(
        551,
        start,
        incident(
            "Password reset emails not arriving (or 40 min late)",
            "password reset",
            start,
        ),
        expected(
            "application",
            [
                "good_jobs",
                "postgres",
                "autovacuum",
                "autovacuum_enabled",
                "OPS-3310",
                "good_job",
            ],
            sig,
            "For a bulk import (OPS-3310) someone ran ALTER TABLE good_jobs SET (autovacuum_enabled = false) and never turned it back on. The queue table churns millions of rows a day; its dead tuples are never vacuumed, and GoodJob's FOR UPDATE SKIP LOCKED dequeue query now scans them and takes seconds. Workers fall behind and password-reset mails wait 40 minutes in the queue. The queue-latency warnings are the louder symptom; the web release, Postmark bounces and the old Postmark timeout are not the cause.",
            [
                f"postgres: ALTER TABLE good_jobs SET ({sig}) -- OPS-3310",
                "postgres: duration of seconds on the good_jobs dequeue query",
                "pg_stat_user_tables n_dead_tup(good_jobs) 38M, last_autovacuum three days ago",
            ],
            "ALTER TABLE good_jobs RESET (autovacuum_enabled); run VACUUM (VERBOSE) good_jobs now, and make bulk-import runbooks restore table settings.",
        ),
        [
            bg(
                "web",
                ["web-i-0a21", "web-i-0b42"],
                [
                    "I, [2026-12-07T11:{n} #{ms}]  INFO -- : Completed 200 OK in {ms}ms (Views: 1{ms}.2ms | ActiveRecord: 3.1ms | Allocations: 4{ms})",
                    'I, [2026-12-07T11:{n} #{ms}]  INFO -- : Started POST "/users/password" for 81.2.{ms}.{ms}',
                ],
                8,
            )
        ],
        evs,
        [svc("web", 45, {"500": (0.001, 0.001)}, (0.08, 0.09))],
        [
            gauge(
                "pg_stat_user_tables_n_dead_tup",
                {"relname": "good_jobs"},
                21000000,
                38000000,
                start - 3000,
            ),
            gauge(
                "good_job_queue_latency_seconds",
                {"queue": "default"},
                1,
                2400,
                start,
            ),
        ],
        {
            "mail-delays.md": runbook(
                "Emails delayed",
                "Delayed emails are almost always Postmark: check status.postmarkapp.com and the message stream's bounce rate; pause the marketing stream if it shares the server token.",
            )
        },
    )


# =================================================================================================
# 8. Hot key: flags-sdk 4.0.0 (upgraded in every Node service by a monorepo dependency bump, PR #1804)
#    dropped the in-process cache and reads the whole ruleset `ff:ruleset:v2` from Redis Cluster on
#    every request. One key means one slot means one shard: redis-shard-3 sits at 100 % CPU while the
#    other shards idle; every service that shares the cluster times out. The incident says
#    "storefront".
# =================================================================================================


@scenario("flags-sdk-drops-local-cache-redis-hot-key")
def flags_sdk_drops_local_cache_redis_hot_key() -> dict[str, Any]:
    start = -2000
    sig = "ff:ruleset:v2"
    sf = ["storefront-1", "storefront-2", "storefront-3"]
    evs = [
        ev(
            "github-actions",
            "info",
            "deploy-all: storefront, checkout-bff, account-bff released with @acme/flags-sdk 4.0.0 (PR #1804 'bump internal packages')",
            at=start - 90,
        ),
        ev(
            "redis-cli",
            "info",
            "[hotkeys] hot key found with counter: 255\tkeyname: " + sig,
            at=start + 900,
        ),
        ev(
            "redis-shard-3",
            "warn",
            "1:M 07 Dec 2026 11:{n}.{ms} # slowlog: id={n} 1{ms}0 us GET "
            + sig
            + " (client 10.0.{ms}.{ms}:{n} storefront)",
            **every(start + 30, -10, 30),
        ),
        ev(
            "storefront",
            "error",
            '{"level":"error","time":"2026-12-07T11:{n}Z","msg":"render failed","err":"Command timed out","command":"get","args":["'
            + sig
            + '"],"redis":"redis-shard-3.cache.internal:6379"}',
            **every(start + 40, -2, 4),
            pods=sf,
        ),
        ev(
            "checkout-bff",
            "error",
            '{"level":"error","msg":"session lookup failed: Command timed out","redis":"redis-shard-3.cache.internal:6379"}',
            **every(start + 60, -4, 9),
        ),
        ev(
            "cdn",
            "warn",
            "edge 504 for /c/{n} (origin storefront ttfb {ms}00ms)",
            **every(start + 80, -6, 12),
        ),
        ev(
            "search-api",
            "info",
            '{"level":"info","msg":"search-api 6.2.0 deployed (synonyms v3)"}',
            at=start - 1500,
        ),
        ev(
            "storefront",
            "error",
            '{"level":"error","msg":"contentful: 429 Too Many Requests"}',
            **every(-10300, -9900, 60),
            pods=sf,
        ),
    ]
    return simple(
        552,
        start,
        incident("Storefront extremely slow, lots of timeouts", "storefront", start),
        expected(
            "application",
            [
                "@acme/flags-sdk",
                "flags-sdk",
                "flags-sdk 4.0.0",
                sig,
                "redis-shard-3",
                "hot key",
                "PR #1804",
            ],
            sig,
            "PR #1804 bumped @acme/flags-sdk to 4.0.0 in every Node service; the new version dropped its in-process cache and reads the ruleset key ff:ruleset:v2 from Redis on each request. One key lives on one shard: redis-shard-3 is saturated (100 % CPU, slowlog full of GET ff:ruleset:v2) while the others idle, and everything on that shard (pages, sessions) times out. The storefront and checkout-bff timeouts and the CDN 504s are victims; search-api's release and the old Contentful 429s are not the cause.",
            [
                f"redis --hotkeys: hot key {sig}",
                "redis-shard-3: slowlog GET ff:ruleset:v2, CPU 100 % (other shards 10 %)",
                "github-actions: flags-sdk 4.0.0 rolled out (PR #1804)",
            ],
            "Roll back to flags-sdk 3.x (or restore the local TTL cache), then spread reads (client-side caching / replicas).",
        ),
        [
            bg(
                "storefront",
                sf,
                ['{"level":"info","msg":"GET /p/{n} 200","ms":{ms}}'],
                8,
            )
        ],
        evs,
        [
            svc("storefront", 160, {"500": (0.002, 0.12)}, (0.12, 1.6)),
            svc("checkout-bff", 30, {"500": (0.001, 0.08)}, (0.05, 0.6)),
        ],
        [
            gauge(
                "redis_cpu_utilization_ratio",
                {"node": "redis-shard-3"},
                0.12,
                1.0,
                start,
            ),
            gauge(
                "redis_cpu_utilization_ratio",
                {"node": "redis-shard-1"},
                0.10,
                0.11,
                start,
            ),
            gauge(
                "redis_commands_processed_per_second",
                {"node": "redis-shard-3"},
                9000,
                142000,
                start,
            ),
        ],
        {
            "storefront-slow.md": runbook(
                "Storefront slow",
                "Storefront slowness is usually search. Check search-api p95 and roll back the latest search-api release if it rose after the deploy.",
            )
        },
    )


# =================================================================================================
# 9. TTL stampede: the product cache warmer's schedule moved from 03:00 to 09:00 yesterday (PR
#    catalog#640, "warm after the ERP import") and its rewrite dropped the TTL jitter: 1.4M product
#    keys were written between 09:00 and 09:08 with EX 86400. Today at 09:00 they all expire together,
#    every page view misses and the MySQL catalog database collapses under the refill. The incident
#    says "product pages".
# =================================================================================================


@scenario("cache-warmer-ttl-without-jitter-expires-at-peak")
def cache_warmer_ttl_without_jitter_expires_at_peak() -> dict[str, Any]:
    start = -1700
    sig = "jitter=0"
    api = ["catalog-api-1", "catalog-api-2", "catalog-api-3"]
    evs = [
        ev(
            "cache-warmer",
            "info",
            "2026-12-06 09:{n} INFO warm-products: wrote 1 412 880 keys product:* with EX 86400 "
            + sig
            + " in 471s (schedule '0 9 * * *', PR catalog#640)",
            at=-7150,
        ),
        ev(
            "redis",
            "info",
            "expired_keys/s 2{ms}0 (keyspace db0 keys 1 4{ms} 880 -> 1{ms} 000)",
            **every(start, start + 480, 30),
        ),
        ev(
            "catalog-api",
            "warn",
            '{"level":"WARN","logger":"ProductCache","message":"cache miss product:{n}, loading from db","ms":{ms}}',
            **every(start, -2, 3),
            pods=api,
        ),
        ev(
            "mysql",
            "error",
            "2026-12-07T09:{n}.{ms}Z {n} [Warning] [MY-010909] [Server] Too many connections (max_connections=1000) from 10.20.{ms}.{ms}, user catalog",
            **every(start + 60, -10, 25),
        ),
        ev(
            "mysql",
            "warn",
            "# Query_time: 1{ms}.2  Lock_time: 0.0001 Rows_sent: 1  Rows_examined: 9{ms}00\nSELECT p.*, GROUP_CONCAT(a.value) FROM products p JOIN attributes a ON a.product_id = p.id WHERE p.id = {n} GROUP BY p.id;",
            **every(start + 30, -8, 15),
        ),
        ev(
            "catalog-api",
            "error",
            '{"level":"ERROR","logger":"com.zaxxer.hikari.pool.HikariPool","message":"HikariPool-1 - Connection is not available, request timed out after 30000ms."}',
            **every(start + 120, -4, 8),
            pods=api,
        ),
        ev(
            "catalog-api",
            "info",
            '{"level":"INFO","message":"catalog-api 19.4.0 started (size guide)"}',
            at=start - 2600,
            pods=api,
        ),
        ev(
            "erp-import",
            "warn",
            "WARN erp-import: 312 SKUs skipped (missing EAN)",
            at=start - 600,
        ),
        ev(
            "mysql",
            "error",
            "2026-12-07T06:{n}Z 0 [ERROR] [MY-013183] [InnoDB] Assertion failure: ibuf0ibuf.cc (backup replica, ignored)",
            at=-10400,
        ),
    ]
    return simple(
        553,
        start,
        incident("Product pages very slow, some 500s since 9", "product pages", start),
        expected(
            "application",
            [
                "cache-warmer",
                "warm-products",
                "PR catalog#640",
                "ttl",
                "product:*",
                "jitter",
            ],
            sig,
            "PR catalog#640 moved the product cache warmer from 03:00 to 09:00 and dropped the TTL jitter: yesterday it wrote 1.4M product keys between 09:00 and 09:08 with the same EX 86400. They all expire together at today's morning peak; every product view misses at once and the refill overwhelms the MySQL catalog database (too many connections, slow joins). catalog-api's Hikari errors and MySQL's slow log are the louder victims; catalog-api's release, the ERP warnings and the old backup-replica assertion are not the cause.",
            [
                f"cache-warmer: wrote 1 412 880 keys with EX 86400 {sig} (PR catalog#640)",
                "redis: expired_keys spike at 09:00",
                "catalog-api: cache miss flood, Hikari timeouts",
            ],
            "Re-add TTL jitter (e.g. 20-28 h) and request coalescing on miss; for now re-run the warmer in slices and cap catalog-api's DB concurrency.",
        ),
        [
            bg(
                "catalog-api",
                api,
                ['{"level":"INFO","message":"GET /products/{n} 200","ms":{ms}}'],
                8,
            )
        ],
        evs,
        [svc("catalog-api", 120, {"500": (0.001, 0.15)}, (0.03, 2.2))],
        [
            gauge("redis_keyspace_hits_ratio", {"db": "db0"}, 0.97, 0.21, start),
            gauge(
                "mysql_global_status_threads_connected",
                {"instance": "catalog-db"},
                140,
                1000,
                start + 60,
            ),
        ],
        {
            "mysql-overload.md": runbook(
                "Catalog database overloaded",
                "When the catalog database is overloaded, find long queries in the slow log and kill them (pt-kill), then add a read replica for catalog-api.",
            )
        },
    )


# =================================================================================================
# 10. RabbitMQ policy scope: the telemetry team added a policy `telemetry-cap` (max-length 10000,
#     overflow drop-head) with the pattern `.*` instead of `^telemetry\.`, priority 10, in the shared
#     vhost. Tonight the invoice PDF queue backed up behind a slow renderer and RabbitMQ silently
#     dropped the oldest messages: invoices that were never generated. The incident says "invoices".
# =================================================================================================


@scenario("rabbitmq-policy-pattern-drops-invoice-messages")
def rabbitmq_policy_pattern_drops_invoice_messages() -> dict[str, Any]:
    start = -2900
    sig = "telemetry-cap"
    evs = [
        ev(
            "rabbitmq",
            "info",
            "2026-12-07 09:{n}.{ms}+00:00 [info] <0.{n}.0> Successfully set policy '"
            + sig
            + "' matching queues names in virtual host '/' using pattern '.*' (definition: {\"max-length\":10000,\"overflow\":\"drop-head\"}, priority 10, applied by user 'telemetry-admin')",
            at=-7000,
        ),
        ev(
            "rabbitmq",
            "info",
            "2026-12-07 11:{n}.{ms}+00:00 [info] <0.{n}.0> queue 'billing.invoice-pdf' in vhost '/': policy '"
            + sig
            + "' in effect, length 10000 (max-length reached, dropping from head)",
            **every(start + 600, -60, 300),
        ),
        ev(
            "invoice-renderer",
            "warn",
            "2026-12-07 11:{n} WARN  [pdf-worker-{ms}] rendering invoice INV-{n} took 1{ms}ms (wkhtmltopdf)",
            **every(start, -6, 12),
        ),
        ev(
            "billing",
            "error",
            "2026-12-07 11:{n} ERROR [InvoiceReconciler] invoice INV-{n} published at 2026-12-07 10:{n} but no PDF after 30 min",
            **every(start + 1800, -30, 60),
        ),
        ev(
            "billing",
            "info",
            "2026-12-07 10:{n} INFO  [Main] billing 2026.12.2 started (SEPA mandate reminder)",
            at=-5800,
        ),
        ev(
            "telemetry-collector",
            "warn",
            "telemetry.device-events backlog 10000 (capped), consumers 2",
            **every(-7000, -200, 300),
        ),
        ev(
            "invoice-renderer",
            "error",
            "2026-12-07 08:{n} ERROR [pdf-worker-2] font cache rebuild failed: /var/cache/fontconfig read-only",
            **every(-10400, -10000, 80),
        ),
    ]
    return simple(
        554,
        start,
        incident(
            "Some customers never got their invoice",
            "invoices",
            start,
            ["no errors in the billing service itself"],
        ),
        expected(
            "application",
            [
                sig,
                "rabbitmq policy",
                "billing.invoice-pdf",
                "max-length",
                "drop-head",
                "telemetry-admin",
            ],
            sig,
            "The telemetry team set a RabbitMQ policy telemetry-cap (max-length 10000, overflow drop-head, priority 10) with the pattern '.*' instead of '^telemetry\\.', so it applies to every queue in the shared vhost. When the invoice renderer fell behind tonight, billing.invoice-pdf reached 10000 messages and RabbitMQ dropped the oldest ones silently: those invoices were never rendered or sent. The renderer's slowness is the trigger, billing's reconciler errors are the symptom; billing's release and the old font-cache error are not the cause.",
            [
                f"rabbitmq: Successfully set policy '{sig}' ... using pattern '.*'",
                "rabbitmq: billing.invoice-pdf length 10000, dropping from head",
                "billing: invoice published but no PDF after 30 min",
            ],
            "Narrow the policy's pattern to ^telemetry\\. (and apply-to queues), re-publish the dropped invoices from billing's outbox, and give critical queues their own policy with overflow reject-publish.",
        ),
        [
            bg(
                "billing",
                ["billing-1", "billing-2"],
                ["2026-12-07 11:{n} INFO  [http] GET /api/invoices/{n} 200 {ms}ms"],
                8,
            )
        ],
        evs,
        [svc("billing", 20, {"500": (0.001, 0.001)}, (0.05, 0.05))],
        [
            gauge(
                "rabbitmq_queue_messages",
                {"queue": "billing.invoice-pdf"},
                40,
                10000,
                start + 600,
            ),
            gauge(
                "rabbitmq_queue_messages_dropped_total_rate",
                {"queue": "billing.invoice-pdf"},
                0,
                3.1,
                start + 600,
            ),
        ],
        {
            "invoice-missing.md": runbook(
                "Invoice missing",
                "Missing invoices are caused by wkhtmltopdf crashes. Check the renderer's font cache and restart invoice-renderer; invoices are retried automatically.",
            )
        },
    )


# =================================================================================================
# 11. Kafka DLT: the ledger-service consumer uses Spring Kafka's DeadLetterPublishingRecoverer to
#     `payment-events.DLT`. After the move to the new MSK cluster (auto.create.topics.enable=false,
#     topics created from a list that missed the DLTs) a malformed refund event from a partner (schema
#     v3) cannot be dead-lettered: the publish fails, the record is retried forever, partition 7 is
#     stuck behind it. Refunds land on other partitions fine. The incident says "account balance".
# =================================================================================================


@scenario("kafka-dlt-topic-missing-blocks-partition")
def kafka_dlt_topic_missing_blocks_partition() -> dict[str, Any]:
    start = -2300
    sig = "Topic payment-events.DLT not present in metadata after 60000 ms"
    led = ["ledger-service-0", "ledger-service-1", "ledger-service-2"]
    evs = [
        ev(
            "ledger-service",
            "error",
            '{"@timestamp":"2026-12-07T11:{n}Z","level":"ERROR","logger":"o.s.k.l.DeadLetterPublishingRecoverer","message":"Dead-letter publication to payment-events.DLT failed for: payment-events-7@8812033","stack_trace":"org.springframework.kafka.KafkaException: Send failed; nested exception is org.apache.kafka.common.errors.TimeoutException: '
            + sig
            + '."}',
            **every(start, -60, 70),
            pods=["ledger-service-1"],
        ),
        ev(
            "ledger-service",
            "warn",
            '{"@timestamp":"2026-12-07T11:{n}Z","level":"WARN","logger":"o.s.k.l.DefaultErrorHandler","message":"Backoff FixedBackOff{interval=1000, currentAttempts=10, maxAttempts=9} exhausted for payment-events-7@8812033","cause":"DeserializationException: unknown field refund_reason_v3"}',
            **every(start - 5, -65, 70),
            pods=["ledger-service-1"],
        ),
        ev(
            "terraform",
            "info",
            "msk-prod-v2 apply: aws_msk_configuration auto.create.topics.enable=false; kafka_topic payment-events (24 partitions), ledger-events, refunds ... 31 topics created from topics.yaml (DLT topics not listed)",
            at=-7150,
        ),
        ev(
            "partner-gateway",
            "info",
            '{"level":"info","msg":"partner acme-pay switched webhook schema to v3","events":"refund.created"}',
            at=start - 200,
        ),
        ev(
            "account-api",
            "warn",
            '{"level":"warn","msg":"balance stale: last ledger update {n}s ago","account":"AC-{n}"}',
            **every(start + 600, -10, 40),
        ),
        ev(
            "account-api",
            "info",
            '{"level":"info","msg":"account-api 4.19.0 started (statement filters)"}',
            at=-4300,
        ),
        ev(
            "fraud-scorer",
            "warn",
            "WARN model v17 p99 latency 180ms over budget",
            **every(-7000, -100, 500),
        ),
        ev(
            "ledger-service",
            "error",
            '{"@timestamp":"2026-12-07T08:{n}Z","level":"ERROR","message":"Consumer rebalance during MSK migration: CommitFailedException"}',
            **every(-10500, -10100, 60),
            pods=led,
        ),
    ]
    return simple(
        555,
        start,
        incident(
            "Refunds not showing up in some customers' account balance",
            "account balance",
            start,
            ["only some customers are affected; other refunds show up normally"],
        ),
        expected(
            "application",
            [
                "payment-events.DLT",
                "ledger-service",
                "payment-events",
                "partition 7",
                "auto.create.topics.enable",
                "msk-prod-v2",
                "DeadLetterPublishingRecoverer",
            ],
            sig,
            "After the move to msk-prod-v2 (auto.create.topics.enable=false, topics created from a list without the DLTs), ledger-service cannot dead-letter anything. A partner's v3 refund event fails deserialization; DeadLetterPublishingRecoverer's publish to payment-events.DLT times out because the topic does not exist, so the record is never skipped and partition 7 is stuck at offset 8812033 while the other partitions flow. account-api's staleness warnings are the victim; the partner's schema switch is the trigger; account-api's release, fraud-scorer latency and the old migration rebalance are not the cause.",
            [
                f"ledger-service: Dead-letter publication failed: {sig}",
                "ledger-service: backoff exhausted for payment-events-7@8812033",
                "terraform: auto.create.topics.enable=false, DLT topics not listed",
            ],
            "Create payment-events.DLT (and the other DLTs) on msk-prod-v2, restart the stuck consumer so the record is dead-lettered, then handle schema v3.",
        ),
        [
            bg(
                "ledger-service",
                led,
                [
                    '{"level":"INFO","logger":"c.f.ledger.PaymentListener","message":"applied payment-events-{ms}@{n}"}'
                ],
                8,
            )
        ],
        evs,
        [svc("account-api", 35, {"500": (0.001, 0.001)}, (0.04, 0.04))],
        [
            gauge(
                "kafka_consumergroup_lag",
                {
                    "group": "ledger-service",
                    "topic": "payment-events",
                    "partition": "7",
                },
                0,
                41200,
                start,
            ),
            gauge(
                "kafka_consumergroup_lag",
                {
                    "group": "ledger-service",
                    "topic": "payment-events",
                    "partition": "3",
                },
                2,
                3,
                start,
            ),
        ],
        {
            "balance-stale.md": runbook(
                "Balances not updating",
                "Stale balances mean the account-api read cache is stuck. Flush the balance cache (redis db 4) and restart account-api.",
            )
        },
    )


# =================================================================================================
# 12. Search circuit breaker (netcheck): search-api 2.14.0 (MR !412) added "facets" to category
#     pages: a terms aggregation on the keyword field `sku` with size 65535 on every request. The
#     OpenSearch nodes' parent circuit breaker trips and the cluster answers 429
#     circuit_breaking_exception. Netcheck: the cluster's _search endpoint answers 429, its health
#     endpoint is fine. The incident says "category pages".
# =================================================================================================


@scenario("facets-terms-agg-trips-search-parent-breaker")
def facets_terms_agg_trips_search_parent_breaker() -> dict[str, Any]:
    start = -1900
    sig = "[parent] Data too large"
    body = (
        '{"error":{"root_cause":[{"type":"circuit_breaking_exception","reason":"'
        + sig
        + ', data for [<http_request>] would be [4127891234/3.8gb], which is larger than the limit of [4080218931/3.7gb], real usage: [4127890000/3.8gb], new bytes reserved: [1234/1.2kb]","bytes_wanted":4127891234,"bytes_limit":4080218931,"durability":"TRANSIENT"}],"type":"circuit_breaking_exception"},"status":429}'
    )
    api = ["search-api-7f9c-1", "search-api-7f9c-2"]
    evs = [
        ev(
            "gitlab-ci",
            "info",
            "deploy search-api 2.14.0 to production (MR !412 'facets on category pages': terms agg sku size 65535)",
            at=start - 120,
        ),
        ev(
            "opensearch",
            "warn",
            "[2026-12-07T11:{n},{ms}][WARN ][o.o.i.b.HierarchyCircuitBreakerService] [os-node-{ms}] "
            + sig
            + ", data for [<http_request>] would be [4.{ms}gb], which is larger than the limit of [3.7gb]",
            **every(start + 60, -5, 12),
        ),
        ev(
            "opensearch",
            "warn",
            "[2026-12-07T11:{n},{ms}][INFO ][o.o.m.j.JvmGcMonitorService] [os-node-2] [gc][{n}] overhead, spent [1.{ms}s] collecting in the last [2s]",
            **every(start + 100, -30, 60),
        ),
        ev(
            "search-api",
            "error",
            'time=2026-12-07T11:{n}Z level=ERROR msg="category facets" category=c{n} err="opensearch 429: circuit_breaking_exception: '
            + sig
            + '"',
            **every(start + 60, -3, 5),
            pods=api,
        ),
        ev(
            "web",
            "error",
            '172.16.{ms}.{ms} - - [07/Dec/2026:11:{n} +0000] "GET /c/{n} HTTP/1.1" 502 157 "-" "Mozilla/5.0" upstream=search-api',
            **every(start + 70, -3, 6),
        ),
        ev(
            "recommendations",
            "info",
            '{"level":"info","msg":"recommendations 8.0.1 deployed"}',
            at=start - 400,
        ),
        ev(
            "log-shipper",
            "warn",
            "fluent-bit: [output:opensearch:logs] HTTP status=429 URI=/_bulk (logging cluster, retrying)",
            **every(-7000, -60, 300),
        ),
        ev(
            "search-api",
            "error",
            'time=2026-12-07T08:{n}Z level=ERROR msg="opensearch unreachable" err="dial tcp 10.30.4.11:9200: i/o timeout"',
            **every(-10300, -9900, 60),
            pods=api,
        ),
    ]
    spec = simple(
        556,
        start,
        incident(
            "Category pages broken / filters not loading", "category pages", start
        ),
        expected(
            "http",
            [
                "search-api",
                "search-api 2.14.0",
                "MR !412",
                "facets",
                "terms aggregation",
                "opensearch",
                "parent circuit breaker",
            ],
            sig,
            "search-api 2.14.0 (MR !412) added facets to category pages: a terms aggregation on sku with size 65535 on every request. The aggregation's memory trips the OpenSearch parent circuit breaker and the cluster answers 429 circuit_breaking_exception to most searches, so category pages fail. The web tier's 502s are the louder victim; the recommendations release, the logging cluster's 429s (another cluster) and the old connect timeout are not the cause.",
            [
                f"opensearch: HierarchyCircuitBreakerService {sig}",
                "search-api: opensearch 429 circuit_breaking_exception on category facets",
                "netcheck: the cluster's _search answers 429, health 200",
            ],
            "Roll search-api back to 2.13 (or cap the terms size, use a composite aggregation), then watch the breaker stats.",
        ),
        [
            bg(
                "search-api",
                api,
                [
                    'time=2026-12-07T11:{n}Z level=INFO msg="GET /v1/search" status=200 took={ms}ms'
                ],
                8,
            )
        ],
        evs,
        [
            svc("search-api", 80, {"500": (0.0, 0.6)}, (0.05, 0.4)),
            svc("web", 150, {"502": (0.0, 0.3)}, (0.1, 0.5)),
        ],
        [
            gauge(
                "opensearch_breakers_parent_tripped_rate",
                {"cluster": "catalog-search"},
                0,
                14,
                start + 60,
            ),
            gauge(
                "opensearch_jvm_mem_heap_used_percent",
                {"node": "os-node-2"},
                61,
                96,
                start + 60,
            ),
        ],
        {
            "category-broken.md": runbook(
                "Category pages broken",
                "Broken category pages are usually the CDN serving an old bundle. Purge the CDN for /c/* and /static/* and check the web release.",
            )
        },
    )
    return with_netcheck(
        spec,
        [
            {
                "name": "catalog-search",
                "url": "https://catalog-search.internal.example/products/_search",
                "fault": {
                    "kind": "http_status",
                    "status": 429,
                    "body": body,
                    "headers": {"Content-Type": "application/json; charset=UTF-8"},
                    "paths": {"/_cluster/health": 200},
                },
            },
            {
                "name": "catalog-search-health",
                "url": "https://catalog-search.internal.example/_cluster/health",
                "fault": {
                    "kind": "http_status",
                    "status": 429,
                    "body": body,
                    "headers": {"Content-Type": "application/json; charset=UTF-8"},
                    "paths": {"/_cluster/health": 200},
                },
            },
        ],
        "catalog-search",
        {
            "catalog-search": {"failed_layer": "http", "reason": "http_429"},
            "catalog-search-health": {"failed_layer": "none", "reason": None},
        },
    )


# =================================================================================================
# 13. Object storage TLS (netcheck): the on-prem Ceph RGW's certificate was reissued by the new
#     internal PKI (CHG-5521) with the single name s3.ceph.internal.example; the old one also had
#     *.s3.ceph.internal.example. The CMS's S3 SDK uses virtual-hosted-style addressing
#     (media-prod.s3.ceph.internal.example), which now fails the hostname check; path-style clients
#     (backups) still work. The incident says "CMS" (image uploads).
# =================================================================================================


@scenario("rgw-cert-reissued-without-wildcard-virtual-host")
def rgw_cert_reissued_without_wildcard_virtual_host() -> dict[str, Any]:
    start = -2600
    sig = "Hostname/IP does not match certificate's altnames"
    cms = ["cms-01", "cms-02"]
    evs = [
        ev(
            "pki",
            "info",
            "step-ca: issued certificate serial 4f:9a:12 for CN=s3.ceph.internal.example SANs=[s3.ceph.internal.example] (CHG-5521 'move RGW to the new internal CA'), requested by ops-ansible",
            at=start - 300,
        ),
        ev(
            "ceph-rgw",
            "info",
            "2026-12-07T10:{n}.{ms}+0000 7f3c2a1b4640  0 framework: beast; frontend: ssl_certificate=/etc/ceph/rgw-2026.pem port=443; restarting",
            at=start - 200,
        ),
        ev(
            "cms",
            "error",
            "[2026-12-07T11:{n}.{ms}Z] ERROR (strapi): upload failed: Error [ERR_TLS_CERT_ALTNAME_INVALID]: "
            + sig
            + ": Host: media-prod.s3.ceph.internal.example. is not in the cert's altnames: DNS:s3.ceph.internal.example",
            **every(start, -8, 25),
            pods=cms,
        ),
        ev(
            "cms",
            "warn",
            "[2026-12-07T11:{n}.{ms}Z] WARN (strapi): media library thumbnails failed to load (S3 getObject)",
            **every(start + 30, -10, 40),
            pods=cms,
        ),
        ev(
            "backup",
            "info",
            "restic: snapshot {n} saved to s3:https://s3.ceph.internal.example/backups-prod (path-style)",
            **every(-7000, -100, 1800),
        ),
        ev(
            "editor-web",
            "error",
            '{"level":"error","msg":"image upload widget: 500 from /api/upload"}',
            **every(start + 20, -5, 15),
        ),
        ev(
            "cms",
            "info",
            "[2026-12-07T09:{n}.{ms}Z] INFO (strapi): cms 5.4.0 started (rich text tables)",
            at=-6800,
            pods=cms,
        ),
        ev(
            "ceph-mgr",
            "warn",
            "HEALTH_WARN 1 pool(s) have no replicas configured (pool 'scratch')",
            **every(-7000, -100, 900),
        ),
        ev(
            "cms",
            "error",
            "[2026-12-07T08:{n}.{ms}Z] ERROR (strapi): sharp: Input buffer contains unsupported image format (HEIC)",
            **every(-10500, -10000, 120),
            pods=cms,
        ),
    ]
    spec = simple(
        557,
        start,
        incident("Editors can't upload images in the CMS", "cms", start),
        expected(
            "tls",
            [
                "ceph-rgw",
                "rgw",
                "s3.ceph.internal.example",
                "*.s3.ceph.internal.example",
                "media-prod.s3.ceph.internal.example",
                "CHG-5521",
                "certificate",
            ],
            sig,
            "CHG-5521 reissued the Ceph RGW certificate from the new internal CA with only s3.ceph.internal.example; the old certificate also had *.s3.ceph.internal.example. The CMS's S3 client uses virtual-hosted-style URLs (media-prod.s3.ceph.internal.example), so every upload and read fails the hostname check, while path-style clients such as the backups keep working. The editor widget's 500s are the louder victim; the CMS release, the Ceph pool warning and the old HEIC errors are not the cause.",
            [
                f"cms: ERR_TLS_CERT_ALTNAME_INVALID: {sig}",
                "pki: certificate for CN=s3.ceph.internal.example without the wildcard (CHG-5521)",
                "netcheck: media-prod.s3.ceph.internal.example certificate name mismatch",
            ],
            "Reissue the RGW certificate with *.s3.ceph.internal.example as a SAN (or set forcePathStyle in the CMS's S3 client).",
        ),
        [
            bg(
                "cms",
                cms,
                [
                    "[2026-12-07T11:{n}.{ms}Z] INFO (strapi): GET /admin/content-manager/{n} (12 ms) 200"
                ],
                8,
            )
        ],
        evs,
        [svc("cms", 6, {"500": (0.0, 0.3)}, (0.05, 0.05))],
        [gauge("ceph_rgw_req_failed_rate", {"instance": "rgw-1"}, 0.0, 0.0, start)],
        {
            "uploads.md": runbook(
                "CMS uploads failing",
                "Upload failures come from images above Strapi's size limit or HEIC files. Ask editors to convert to JPEG and raise the body limit in config/middlewares.",
            )
        },
    )
    return with_netcheck(
        spec,
        [
            {
                "name": "media-bucket",
                "url": "https://media-prod.s3.ceph.internal.example/uploads/probe.jpg",
                "fault": {
                    "kind": "tls_wrong_host",
                    "cert_names": ["s3.ceph.internal.example"],
                },
            },
            {
                "name": "rgw-path-style",
                "url": "https://s3.ceph.internal.example/backups-prod/",
                "fault": {"kind": "ok"},
            },
        ],
        "media-bucket",
        {
            "media-bucket": {
                "failed_layer": "tls",
                "reason": "certificate_name_mismatch",
            },
            "rgw-path-style": {"failed_layer": "none", "reason": None},
        },
    )


# =================================================================================================
# 14. Kafka authorizer (netcheck): a rolling broker parameter change (KAFKA-OPS-77) switched on the
#     StandardAuthorizer with allow.everyone.if.no.acl.found=false. ACLs were written for the
#     services but not for the schema-registry principal. Schema Registry (VM, systemd) can no longer
#     read `_schemas`, fails at start and restarts in a loop; its port refuses connections. Producers
#     that serialize with Avro cannot register or fetch schemas; tracking events stop. Netcheck:
#     schema-registry connect refused; the tracking API is fine. The incident says "order tracking".
# =================================================================================================


@scenario("kafka-authorizer-enabled-schema-registry-no-acl")
def kafka_authorizer_enabled_schema_registry_no_acl() -> dict[str, Any]:
    start = -2200
    sig = "Not authorized to access topics: [_schemas]"
    evs = [
        ev(
            "kafka",
            "info",
            "[2026-12-07 10:{n},{ms}] INFO [KafkaServer id=1] rolling restart for KAFKA-OPS-77: authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer, allow.everyone.if.no.acl.found=false (kafka.server.KafkaServer)",
            at=start - 240,
        ),
        ev(
            "kafka",
            "info",
            "[2026-12-07 11:{n},{ms}] INFO Principal = User:schema-registry is Denied operation = DESCRIBE from host = 10.40.7.21 on resource = Topic:LITERAL:_schemas for request = Metadata with resourceRefCount = 1 based on rule DefaultDeny (kafka.authorizer.logger)",
            **every(start, -20, 40),
        ),
        ev(
            "schema-registry",
            "error",
            "[2026-12-07 11:{n},{ms}] ERROR Error starting the schema registry (io.confluent.kafka.schemaregistry.rest.SchemaRegistryRestApplication)\nio.confluent.kafka.schemaregistry.exceptions.SchemaRegistryInitializationException: Error initializing kafka store while initializing schema registry\nCaused by: org.apache.kafka.common.errors.TopicAuthorizationException: "
            + sig,
            **every(start, -20, 40),
        ),
        ev(
            "systemd",
            "warn",
            "schema-registry.service: Main process exited, code=exited, status=1/FAILURE; Scheduled restart job, restart counter is at {n}.",
            **every(start + 5, -15, 40),
        ),
        ev(
            "tracking-producer",
            "error",
            '{"level":"ERROR","logger":"o.a.k.c.p.KafkaProducer","message":"Failed to serialize ShipmentEvent","error":"org.apache.kafka.common.errors.SerializationException: Error retrieving Avro schema: io.confluent.kafka.schemaregistry.client.rest.exceptions.RestClientException: Connect to schema-registry.internal.example:8081 failed: Connection refused"}',
            **every(start + 30, -4, 8),
        ),
        ev(
            "tracking-api",
            "warn",
            '{"level":"WARN","message":"no events for shipment {n} in 40m, showing last known status"}',
            **every(start + 1500, -20, 60),
        ),
        ev(
            "tracking-api",
            "info",
            '{"level":"INFO","message":"tracking-api 3.7.0 started (map view)"}',
            at=-5600,
        ),
        ev(
            "kafka",
            "warn",
            "[2026-12-07 11:{n},{ms}] WARN [ReplicaFetcher replicaId=3, leaderId=1, fetcherId=0] Connection to node 1 was disconnected during rolling restart (org.apache.kafka.clients.NetworkClient)",
            **every(start - 230, start - 100, 30),
        ),
        ev(
            "tracking-producer",
            "error",
            '{"level":"ERROR","message":"carrier API DPD 503, retrying"}',
            **every(-10400, -10000, 60),
        ),
    ]
    spec = simple(
        558,
        start,
        incident(
            "Order tracking stuck, no updates on shipments", "order tracking", start
        ),
        expected(
            "connect",
            [
                "schema-registry",
                "_schemas",
                "kafka acl",
                "allow.everyone.if.no.acl.found",
                "KAFKA-OPS-77",
                "StandardAuthorizer",
                "User:schema-registry",
            ],
            sig,
            "KAFKA-OPS-77 enabled the StandardAuthorizer on the brokers with allow.everyone.if.no.acl.found=false, but no ACL was written for the schema-registry principal. Schema Registry cannot read its _schemas topic, fails to initialise and is restarted by systemd in a loop, so its port refuses connections. The tracking producer cannot fetch Avro schemas and stops publishing shipment events. The producer's serialization errors and tracking-api's staleness are victims; the broker restart warnings, tracking-api's release and the old DPD 503s are not the cause.",
            [
                f"schema-registry: TopicAuthorizationException: {sig}",
                "kafka.authorizer.logger: User:schema-registry Denied DESCRIBE on Topic:_schemas (DefaultDeny)",
                "netcheck: schema-registry connection refused",
            ],
            "Add ACLs for User:schema-registry on _schemas (read/write/describe) and its consumer group, then restart Schema Registry.",
        ),
        [
            bg(
                "tracking-api",
                ["tracking-api-1", "tracking-api-2"],
                ['{"level":"INFO","message":"GET /v1/shipments/{n} 200","ms":{ms}}'],
                8,
            )
        ],
        evs,
        [svc("tracking-api", 30, {"500": (0.001, 0.001)}, (0.04, 0.04))],
        [
            gauge(
                "kafka_topic_messages_in_rate",
                {"topic": "shipment-events"},
                120,
                0,
                start + 30,
            ),
            gauge(
                "node_systemd_unit_restarts",
                {"unit": "schema-registry.service", "instance": "schema-registry-01"},
                0,
                55,
                start,
            ),
        ],
        {
            "tracking-stuck.md": runbook(
                "Tracking not updating",
                "Tracking stops when a carrier API is down. Check DPD/DHL status pages and switch the carrier poller to webhook mode.",
            )
        },
    )
    return with_netcheck(
        spec,
        [
            {
                "name": "schema-registry",
                "url": "http://schema-registry.internal.example/subjects",
                "fault": {"kind": "connect_refused"},
            },
            {
                "name": "tracking-api",
                "url": "http://tracking-api.internal.example/healthz",
                "fault": {"kind": "ok"},
            },
        ],
        "schema-registry",
        {
            "schema-registry": {"failed_layer": "connect", "reason": "refused"},
            "tracking-api": {"failed_layer": "none", "reason": None},
        },
    )


# =================================================================================================
# 15. Airflow catch-up: PR analytics#377 moved the `sales_rollup` DAG's start_date a year back
#     ("so new hires can backfill last year") without `catchup=False`. The scheduler creates 365 runs
#     and, with max_active_runs=16, keeps the Redshift cluster's WLM queue full; the BI dashboards'
#     queries wait and time out. The incident says "sales dashboards".
# =================================================================================================


@scenario("airflow-start-date-moved-back-catchup-floods-warehouse")
def airflow_start_date_moved_back_catchup_floods_warehouse() -> dict[str, Any]:
    start = -2800
    sig = "catchup=True"
    first = date(2025, 12, 1)
    backfill_days = [(first + timedelta(days=i)).isoformat() for i in range(110)]
    evs = [
        ev(
            "airflow-dag-processor",
            "info",
            "[2026-12-07T10:{n}.{ms}+0000] {processor.py:157} INFO - DAG sales_rollup: start_date=2025-12-01T00:00:00+00:00 schedule=@daily "
            + sig
            + " max_active_runs=16 (dags/sales_rollup.py @ a9e3f01, PR analytics#377)",
            at=start - 60,
        ),
        *[
            ev(
                "airflow-scheduler",
                "info",
                f"[2026-12-07T11:{{n}}:0{i % 10}.{i:03d}+0000] {{scheduler_job_runner.py:1412}} INFO - Created <DagRun sales_rollup @ {day}T00:00:00+00:00: scheduled__{day}T00:00:00+00:00, state:queued, queued_at: 2026-12-07 11:{{n}}+00:00. externally triggered: False>",
                at=start + i * 25,
            )
            for i, day in enumerate(backfill_days)
        ],
        *[
            ev(
                "airflow-worker",
                "info",
                f"[2026-12-07T11:{{n}}:1{i % 10}.{i:03d}+0000] {{redshift_sql.py:88}} INFO - Running statement: INSERT INTO mart.sales_daily SELECT ... FROM raw.order_lines WHERE order_date = '{day}', parameters: None",
                at=start + 40 + i * 25,
            )
            for i, day in enumerate(backfill_days[:-2])
        ],
        ev(
            "redshift",
            "warn",
            "WLM queue 'etl' (concurrency 5) full; queue 'bi' waiting: 4{ms} queries, max wait 1{ms}s (service class 7)",
            **every(start + 300, -30, 60),
        ),
        ev(
            "metabase",
            "error",
            "2026-12-07 11:{n},{ms} ERROR middleware.catch-exceptions :: Error processing query: ERROR: Query (1{n}) cancelled on user's request / statement_timeout 120000 (dashboard 'Sales daily')",
            **every(start + 600, -5, 15),
        ),
        ev(
            "metabase",
            "info",
            "2026-12-07 09:{n},{ms} INFO metabase.core :: Metabase v0.51.4 upgraded (new dashboard filters)",
            at=-6900,
        ),
        ev(
            "fivetran",
            "warn",
            "connector salesforce_prod: sync delayed, API limit 85% used",
            **every(-7000, -200, 1200),
        ),
        ev(
            "airflow-worker",
            "error",
            "[2026-12-07T08:{n}.{ms}+0000] {taskinstance.py:3310} ERROR - Task failed: marketing_attribution.load_ga4: 403 quota exceeded",
            **every(-10500, -10000, 120),
        ),
    ]
    return simple(
        559,
        start,
        incident(
            "Sales dashboards won't load, queries time out", "sales dashboards", start
        ),
        expected(
            "application",
            [
                "sales_rollup",
                "dag sales_rollup",
                "airflow",
                "start_date",
                "catchup",
                "PR analytics#377",
                "redshift wlm",
            ],
            sig,
            "PR analytics#377 moved the sales_rollup DAG's start_date a year back without catchup=False. The scheduler created a run for every missed day and, with max_active_runs=16, keeps the Redshift ETL queue full of full-day rollup inserts; the BI queue waits behind it, and Metabase's dashboard queries hit their timeout. Metabase's errors are the louder victim; its upgrade, the Fivetran API usage and the old GA4 quota error are not the cause.",
            [
                f"airflow dag processor: sales_rollup start_date=2025-12-01 {sig} max_active_runs=16",
                "airflow scheduler: Created DagRun sales_rollup scheduled__2026-0x... (hundreds)",
                "redshift: WLM queue etl full, bi queries waiting",
            ],
            "Pause sales_rollup, mark the backfill runs as skipped (or set catchup=False), and run the backfill off-hours with max_active_runs=2.",
        ),
        [
            bg(
                "metabase",
                ["metabase-1"],
                [
                    "2026-12-07 11:{n},{ms} DEBUG middleware.log :: GET /api/user/current 200 {ms}.0 ms (2 DB calls)"
                ],
                8,
            )
        ],
        evs,
        [svc("metabase", 8, {"500": (0.0, 0.4)}, (0.3, 60.0))],
        [
            gauge("airflow_dag_running_runs", {"dag_id": "sales_rollup"}, 0, 16, start),
            gauge(
                "aws_redshift_wlm_queue_length_average",
                {"service_class": "bi"},
                0,
                46,
                start + 300,
            ),
        ],
        {
            "dashboards-slow.md": runbook(
                "Dashboards slow",
                "Slow dashboards follow a Metabase upgrade or a cold cache. Re-enable query caching (Admin > Caching) and restart Metabase.",
            )
        },
    )


# =================================================================================================
# 16. DNS of a deleted database: the statements cluster moved to a new MongoDB Atlas cluster two weeks
#     ago (live migration). The API got the new connection string; statement-pdf, which only runs
#     when customers download monthly statements, kept the old `mongodb+srv://` URI in its SSM
#     parameter. It kept working against the old cluster until today's cleanup (CHG-6024) deleted
#     it: the SRV record is gone, every download fails with querySrv ENOTFOUND. The incident says
#     "statements".
# =================================================================================================


@scenario("mongo-srv-of-deleted-cluster-in-stale-parameter")
def mongo_srv_of_deleted_cluster_in_stale_parameter() -> dict[str, Any]:
    start = -2500
    sig = "querySrv ENOTFOUND _mongodb._tcp.statements-prod.q7x2d.mongodb.net"
    evs = [
        ev(
            "atlas",
            "info",
            'Atlas activity: cluster "statements-prod" deleted by ops@fernhill.example (CHG-6024 "remove migrated clusters"); project "banking-prod"',
            at=start - 150,
        ),
        ev(
            "statement-pdf",
            "error",
            '2026-12-07T11:{n}.{ms}Z\t{n}-7f2a\tERROR\tInvoke Error\t{"errorType":"Error","errorMessage":"'
            + sig
            + '","code":"ENOTFOUND","hostname":"_mongodb._tcp.statements-prod.q7x2d.mongodb.net"}',
            **every(start, -5, 12),
        ),
        ev(
            "statement-pdf",
            "info",
            "2026-12-07T09:{n}.{ms}Z\t{n}-7f2a\tINFO\tconfig loaded from ssm /banking/statement-pdf/MONGODB_URI (version 3, last modified 2025-06-14)",
            at=-7100,
        ),
        ev(
            "statements-api",
            "error",
            '{"level":"error","msg":"download failed","status":502,"upstream":"statement-pdf","customer":"C-{n}"}',
            **every(start + 10, -4, 10),
        ),
        ev(
            "statements-api",
            "info",
            '{"level":"info","msg":"mongodb connected","uri":"mongodb+srv://statements-v2.k3p9z.mongodb.net","db":"statements"}',
            at=-7000,
        ),
        ev(
            "statements-api",
            "info",
            '{"level":"info","msg":"statements-api 9.1.0 started (CSV export)"}',
            at=-6200,
        ),
        ev(
            "app-gateway",
            "warn",
            "rate limit 429 for client mobile-ios 8.{ms} (burst)",
            **every(-7000, -100, 600),
        ),
        ev(
            "statement-pdf",
            "error",
            "2026-12-07T08:{n}.{ms}Z\t{n}-7f2a\tERROR\tTask timed out after 30.03 seconds (chromium cold start)",
            **every(-10300, -9900, 100),
        ),
    ]
    return simple(
        560,
        start,
        incident(
            "Customers can't download monthly statements",
            "statements",
            start,
            ["viewing statements in the app works, only the PDF download fails"],
        ),
        expected(
            "dns",
            [
                "statement-pdf",
                "statements-prod",
                "_mongodb._tcp.statements-prod.q7x2d.mongodb.net",
                "MONGODB_URI",
                "/banking/statement-pdf/MONGODB_URI",
                "CHG-6024",
                "atlas",
            ],
            sig,
            "statement-pdf still reads the old Atlas cluster's mongodb+srv URI from its SSM parameter; the migration two weeks ago only updated statements-api. Today's cleanup CHG-6024 deleted the old cluster statements-prod, so its SRV record no longer exists and every statement download fails with querySrv ENOTFOUND. statements-api's 502s are the louder victim; its release, gateway rate limits and the old cold-start timeouts are not the cause.",
            [
                f"statement-pdf: {sig}",
                "atlas: cluster statements-prod deleted (CHG-6024)",
                "statement-pdf: MONGODB_URI from SSM last modified 2025-06-14",
            ],
            "Point /banking/statement-pdf/MONGODB_URI at statements-v2.k3p9z.mongodb.net and redeploy statement-pdf; check other consumers of the old URI.",
        ),
        [
            bg(
                "statements-api",
                ["statements-api-1", "statements-api-2"],
                ['{"level":"info","msg":"GET /v1/statements 200","ms":{ms}}'],
                8,
            )
        ],
        evs,
        [
            svc("statements-api", 12, {"502": (0.0, 0.2)}, (0.06, 0.06)),
            svc("statement-pdf", 1.5, {"500": (0.0, 1.0)}, (2.4, 0.05)),
        ],
        [],
        {
            "statements.md": runbook(
                "Statement downloads failing",
                "Statement downloads fail when statement-pdf's Chromium layer times out. Raise the Lambda timeout to 60 s and its memory to 2048 MB.",
            )
        },
    )


STAGES = {
    "cnpg-wal-archive-irsa-annotation-dropped": ("runtime", "CrashLoopBackOff"),
    "redis-bgsave-fork-fails-overcommit-new-nodes": ("runtime", "MISCONF"),
    "opensearch-scaleout-pvc-kms-key-pending-deletion": (
        "scheduling",
        "ProvisioningFailed",
    ),
    "redis-cluster-pdb-deleted-drain-takes-slot-owner": ("runtime", "ClusterDown"),
    "debezium-offsets-topic-deleted-resnapshot-oom": ("runtime", "OOMKilled"),
    "postgres-chart-bump-major-version-data-dir": ("startup", "CrashLoopBackOff"),
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
