"""Writes the twenty-fourth held-out scenario set, bench/heldout24: `python bench/heldout24/_build.py`.

New incidents, none of them in the bundled set or in bench/heldout … bench/heldout22. Theme: ordinary
production incidents at SaaS companies as the on-call sees them in the first five minutes (a one-line
incident, an alert name, maybe one user complaint), with causes spread over everyday classes: an
application deploy (a missing index, N+1 calls, a memory leak, a pool too small, a retry storm), a
config or feature-flag change, a third-party outage or quota, an expired client certificate, DNS, a
firewall / security-group / network-policy change, capacity (disk, inodes, file descriptors,
connection limits) and a managed-database failover; four on Kubernetes, twelve on VMs and managed
services. As in the earlier sets, everything that matters is written by hand below (incident, expected
answer, runbooks, kubectl answers, the log lines that carry the fault and the red herrings); the bulk
(background request lines, 2 h of metric points thinned to one every 30 s, a namespace's tables,
describe layouts) comes from bench/heldout22/_build.py's helpers (and through them heldout20's and the
earlier builders'), each scenario with a fixed seed (577-592). The author read neither the planner
(`reasoning/`) nor the engine (`diagnosis/engine/`, `docs/engine.md`), nor their tests, nor any score
file. Stdlib only.
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


h22 = _load("heldout22_build", HERE.parent / "heldout22" / "_build.py")
base = h22.base

table = base.table
events = base.events
runbook = base.runbook
app = h22.app
namespace = h22.namespace
ev = h22.ev
bg = h22.bg
incident = h22.incident
expected = h22.expected
simple = h22.simple
describe_pod = h22.describe_pod
podlog = h22.podlog
running = h22.running
crashloop = h22.crashloop
pods_of = h22.pods_of
kube_case = h22.kube_case
svc = h22.svc
every = h22.every
backoff_rows = h22.backoff_rows
gauge = h22.gauge
with_netcheck = h22.with_netcheck
tidy_clock_times = h22.tidy_clock_times
NODES_FRA = h22.NODES_FRA
NODES_IAD = h22.NODES_IAD
NODES_DUB = h22.NODES_DUB
NODES_PDX = h22.NODES_PDX

SCENARIOS: dict[str, Any] = {}


def scenario(slug: str):
    def register(fn):
        SCENARIOS[slug] = fn
        return fn

    return register


def hpa_table(rows: list[list[str]]) -> str:
    return table(
        [
            ["NAME", "REFERENCE", "TARGETS", "MINPODS", "MAXPODS", "REPLICAS", "AGE"],
            *rows,
        ]
    )


# =================================================================================================
# 1. Memory leak: push-gateway 2.4.0 (PR #918, "presence indicators") adds a per-connection presence
#    subscription to an in-process map and never deletes it on disconnect. Mobile clients reconnect
#    every few minutes; the map grows until the container passes its 1Gi limit and is OOMKilled, about
#    every 40 minutes per pod, and every restart drops ~9k WebSockets that reconnect in a burst. The
#    incident says "notifications".
# =================================================================================================


@scenario("push-gateway-presence-map-leak-oomkilled")
def push_gateway_presence_map_leak_oomkilled() -> dict[str, Any]:
    start = -2700
    ns = "realtime"
    img = "ghcr.io/larkspur-hq/push-gateway:2.4.0"
    pg = app(
        "push-gateway",
        image=img,
        port=8080,
        rs="7f5c9d8b46",
        cluster_ip="10.100.31.12",
        pods=[
            ("b8xkq", "1/1", "Running", "3", "2h50m", 0),
            ("m2lzt", "0/1", "CrashLoopBackOff", "4", "2h50m", 1),
            ("r6vhn", "1/1", "Running", "3", "2h50m", 2),
        ],
    )
    nf = app(
        "notify-api",
        image="ghcr.io/larkspur-hq/notify-api:6.19.2",
        port=8000,
        rs="5b8d6c7f9a",
        cluster_ip="10.100.31.20",
        pods=[
            ("c4tpw", "1/1", "Running", "0", "4d", 0),
            ("h9snd", "1/1", "Running", "0", "4d", 2),
        ],
    )
    k8s = namespace(ns, NODES_DUB, [pg, nf], seed=577)
    sig = "OOMKilled"
    name = describe_pod(
        k8s,
        ns,
        pg,
        "m2lzt",
        NODES_DUB,
        state=crashloop(137, sig, -260, -75),
        started=-10200,
        restarts=4,
        events_rows=backoff_rows(pg, ns, "m2lzt", "x3 over 70s"),
    )
    k8s[f"kubectl logs {name} -n {ns} --previous --tail=1000"] = podlog(
        [
            (
                -2600,
                '{"level":30,"msg":"push-gateway 2.4.0 listening on :8080 (presence: on)"}',
            ),
            (
                -1800,
                '{"level":30,"msg":"stats","connections":9412,"presenceSubscriptions":188305,"heapUsedMB":402}',
            ),
            (
                -900,
                '{"level":30,"msg":"stats","connections":9388,"presenceSubscriptions":402117,"heapUsedMB":688}',
            ),
            (
                -300,
                '{"level":40,"msg":"stats","connections":9450,"presenceSubscriptions":561932,"heapUsedMB":941}',
            ),
            (-90, '{"level":40,"msg":"event loop lag 1840ms"}'),
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "2h51m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/push-gateway",
                "Scaled up replica set push-gateway-7f5c9d8b46 to 3",
            ),
            (
                "4m",
                "Warning",
                "BackOff",
                f"Pod/{name}",
                f"Back-off restarting failed container push-gateway in pod {name}_{ns}",
            ),
            (
                "77s",
                "Normal",
                "Killing",
                f"Pod/{name}",
                "Container push-gateway exceeded its memory limit (1Gi); OOMKilled",
            ),
        ]
    )
    evs = [
        ev(
            "kube-events",
            "warn",
            "Pod realtime/push-gateway-7f5c9d8b46-{ms}: container push-gateway terminated, reason "
            + sig
            + ", exit code 137, limit 1Gi",
            **every(-9800, -60, 2400),
        ),
        ev(
            "github-actions",
            "info",
            "deploy push-gateway 2.4.0 to prod-eu (PR #918 'presence indicators') by r.okafor: success",
            at=-10300,
        ),
        ev(
            "push-gateway",
            "warn",
            '{"level":40,"msg":"stats","connections":9{ms}2,"presenceSubscriptions":5{n}1,"heapUsedMB":9{ms}}',
            **every(start, -60, 240),
            pods=pods_of(pg),
        ),
        ev(
            "notify-api",
            "error",
            '{"level":"error","msg":"deliver failed: no live socket for user","user":"u_{n}","fallback":"apns"}',
            **every(start + 30, -5, 9),
            pods=pods_of(nf),
        ),
        ev(
            "apns-relay",
            "warn",
            "APNs response 410 Unregistered for device token …{ms}f (app uninstalled)",
            **every(-7000, -60, 300),
        ),
        ev(
            "notify-api",
            "info",
            '{"level":"info","msg":"notify-api 6.19.2 started (digest emails)"}',
            at=-5200,
            pods=pods_of(nf),
        ),
        ev(
            "ingress-nginx",
            "warn",
            'upstream prematurely closed connection while reading upstream, upstream: "http://10.100.31.12:8080/ws"',
            **every(start, -40, 120),
        ),
        ev(
            "apns-relay",
            "error",
            "TLS handshake to api.push.apple.com timed out after 10s",
            **every(-10800, -10300, 120),
        ),
    ]
    return kube_case(
        seed=577,
        start=start,
        inc=incident(
            "Notifications delayed / missing in the app", "notifications", start
        ),
        exp=expected(
            "application",
            [
                "deployment/push-gateway",
                "push-gateway",
                "push-gateway 2.4.0",
                "PR #918",
                "presenceSubscriptions",
                name,
            ],
            sig,
            "push-gateway 2.4.0 (PR #918, presence indicators) adds a presence subscription per connection to an in-process map and never removes it on disconnect. Clients reconnect every few minutes, so presenceSubscriptions grows without bound while connections stay flat; each pod passes its 1Gi memory limit and is OOMKilled about every 40 minutes, dropping its sockets. notify-api's 'no live socket' errors are the louder victim; the notify-api release, APNs 410s, ingress upstream closes and the old APNs handshake timeout are not the cause.",
            [
                f"push-gateway-{pg['rs']}-m2lzt: Last State Terminated, Reason {sig}, exit 137",
                "push-gateway stats: presenceSubscriptions 188k -> 562k with connections flat at ~9.4k",
                "github-actions: push-gateway 2.4.0 (PR #918) deployed 2h50m ago",
            ],
            "Roll back push-gateway to 2.3.x; fix the presence unsubscribe on socket close before re-enabling presence.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "push-gateway",
                pods_of(pg),
                [
                    '{"level":30,"msg":"ws open","user":"u_{n}","ua":"larkspur-ios/8.{ms}"}',
                    '{"level":30,"msg":"ws close","code":1001}',
                ],
                8,
            )
        ],
        evs=evs,
        services=[svc("notify-api", 60, {"500": (0.001, 0.02)}, (0.03, 0.04))],
        gauges=[
            gauge(
                "container_memory_working_set_bytes",
                {"pod": name, "container": "push-gateway"},
                210000000,
                1030000000,
                -400,
            ),
            gauge(
                "push_gateway_presence_subscriptions",
                {"pod": name},
                9000,
                561932,
                start,
            ),
        ],
        books={
            "notifications-delayed.md": runbook(
                "Push notifications delayed",
                "Delayed pushes are usually APNs or FCM. Check the apns-relay dashboard for 4xx/5xx from Apple, rotate the APNs auth key if it expired, and check Firebase status.",
            )
        },
    )


# =================================================================================================
# 2. Connection limit: PR infra#1207 raised feed-api's HPA maxReplicas from 24 to 60 for a TV ad
#    campaign. Each pod opens a 20-connection pool at start; RDS db.r6g.xlarge (max_connections 1700
#    with other clients) runs out of slots at about 60 pods' worth; new pods fail at start-up with
#    "remaining connection slots are reserved" and crash-loop while the old ones serve. The incident
#    is only an alert name.
# =================================================================================================


@scenario("hpa-max-raised-past-rds-connection-slots")
def hpa_max_raised_past_rds_connection_slots() -> dict[str, Any]:
    start = -1500
    ns = "feed"
    img = "412398701155.dkr.ecr.us-east-1.amazonaws.com/feed/feed-api:3.33.0"
    fa = app(
        "feed-api",
        image=img,
        port=8080,
        rs="86c5d9f7b4",
        cluster_ip="172.20.88.10",
        desired=60,
        pods=[
            ("a1k2m", "1/1", "Running", "0", "9d", 0),
            ("b3n4p", "1/1", "Running", "0", "9d", 1),
            ("c5q6r", "1/1", "Running", "0", "21m", 2),
            ("d7s8t", "0/1", "CrashLoopBackOff", "6", "19m", 0),
            ("e9u0v", "0/1", "CrashLoopBackOff", "6", "19m", 1),
            ("f2w3x", "0/1", "CrashLoopBackOff", "5", "18m", 2),
        ],
    )
    rk = app(
        "ranker",
        image="412398701155.dkr.ecr.us-east-1.amazonaws.com/feed/ranker:1.90.4",
        port=9000,
        rs="6d7c8b9a5f",
        cluster_ip="172.20.88.20",
        pods=[
            ("g4y5z", "1/1", "Running", "0", "1h", 0),
            ("h6a7b", "1/1", "Running", "0", "1h", 1),
        ],
    )
    k8s = namespace(ns, NODES_IAD, [fa, rk], seed=578)
    sig = "remaining connection slots are reserved for non-replication superuser and rds_superuser connections"
    k8s[f"kubectl get horizontalpodautoscalers -n {ns}"] = hpa_table(
        [
            ["feed-api", "Deployment/feed-api", "cpu: 93%/60%", "12", "60", "60", "1y"],
            ["ranker", "Deployment/ranker", "cpu: 41%/70%", "2", "10", "2", "1y"],
        ]
    )
    name = describe_pod(
        k8s,
        ns,
        fa,
        "d7s8t",
        NODES_IAD,
        state=crashloop(1, "Error", -95, -88),
        started=-1140,
        restarts=6,
        events_rows=backoff_rows(fa, ns, "d7s8t", "x41 over 18m"),
    )
    k8s[f"kubectl logs {name} -n {ns} --previous --tail=1000"] = podlog(
        [
            (
                -95,
                "2026-12-07 11:44:05.412 INFO  [main] feed-api 3.33.0 starting, HikariPool-1 minimumIdle=20 maximumPoolSize=20",
            ),
            (
                -89,
                "2026-12-07 11:44:11.903 ERROR [main] com.zaxxer.hikari.pool.HikariPool - HikariPool-1 - Exception during pool initialization.",
            ),
            (-89, f"org.postgresql.util.PSQLException: FATAL: {sig}"),
            (
                -88,
                "2026-12-07 11:44:12.020 ERROR [main] o.s.boot.SpringApplication - Application run failed",
            ),
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "22m",
                "Normal",
                "SuccessfulRescale",
                "HorizontalPodAutoscaler/feed-api",
                "New size: 60; reason: cpu resource utilization (percentage of request) above target",
            ),
            (
                "3m",
                "Warning",
                "BackOff",
                f"Pod/{name}",
                f"Back-off restarting failed container feed-api in pod {name}_{ns}",
            ),
            (
                "2m",
                "Warning",
                "Unhealthy",
                "Pod/ranker-6d7c8b9a5f-g4y5z",
                "Readiness probe failed: HTTP probe failed with statuscode: 503",
            ),
        ]
    )
    evs = [
        ev(
            "argocd",
            "info",
            "application feed synced to infra@4be11d0 (PR infra#1207 'feed-api: maxReplicas 24 -> 60 for the TV campaign'): HorizontalPodAutoscaler feed-api configured",
            at=-5400,
        ),
        ev(
            "feed-api",
            "error",
            f"org.postgresql.util.PSQLException: FATAL: {sig}",
            **every(start, -20, 40),
            pods=[name, "feed-api-86c5d9f7b4-e9u0v", "feed-api-86c5d9f7b4-f2w3x"],
        ),
        ev(
            "rds",
            "warn",
            "RDS-EVENT: DB instance feed-prod-db: DatabaseConnections 1688 of max_connections 1700",
            **every(start, -30, 300),
        ),
        ev(
            "feed-api",
            "warn",
            "2026-12-07 11:{n} WARN  [http-nio-8080-exec-{ms}] c.l.feed.RankerClient - ranker slow: 1{ms}0 ms, serving unranked feed",
            **every(start + 100, -10, 25),
            pods=["feed-api-86c5d9f7b4-a1k2m", "feed-api-86c5d9f7b4-b3n4p"],
        ),
        ev("ranker", "info", "ranker 1.90.4 started (model fy27-w49)", at=-3600),
        ev(
            "cloudfront",
            "warn",
            "5xxErrorRate 0.6% distribution E2FEEDCDN (origin feed-api)",
            **every(start, -60, 300),
        ),
        ev(
            "feed-api",
            "error",
            "2026-12-07 08:{n} ERROR [scheduler-1] c.l.feed.TrendingJob - Redis command timed out after 2 seconds",
            **every(-10700, -10300, 100),
            pods=["feed-api-86c5d9f7b4-a1k2m"],
        ),
    ]
    return kube_case(
        seed=578,
        start=start,
        inc=incident("[FIRING] FeedApiPodsNotReady", "feed-api", start),
        exp=expected(
            "application",
            [
                "hpa/feed-api",
                "horizontalpodautoscaler/feed-api",
                "feed-api",
                "max_connections",
                "feed-prod-db",
                "PR infra#1207",
                "maxReplicas",
            ],
            sig,
            "PR infra#1207 raised feed-api's HPA maxReplicas from 24 to 60 for a TV campaign. Each pod opens a 20-connection Hikari pool at start; the RDS instance feed-prod-db reaches max_connections, so the new pods fail pool initialization with 'remaining connection slots are reserved' and crash-loop, while the old pods are overloaded. The ranker's slowness and readiness failures, CloudFront 5xx and the old Redis timeout are victims or noise; the runbook's 'add replicas' makes it worse.",
            [
                f"{name}: FATAL: {sig}",
                "rds: DatabaseConnections 1688 of max_connections 1700",
                "argocd: PR infra#1207 maxReplicas 24 -> 60",
            ],
            "Lower maxReplicas back (or the pool size to 8) now; put RDS Proxy or PgBouncer in front of feed-prod-db before scaling out again.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "feed-api",
                ["feed-api-86c5d9f7b4-a1k2m", "feed-api-86c5d9f7b4-b3n4p"],
                ['{"method":"GET","path":"/v2/feed","status":200,"ms":{ms}}'],
                8,
            )
        ],
        evs=evs,
        services=[
            svc(
                "feed-api", 900, {"500": (0.002, 0.03), "503": (0.0, 0.08)}, (0.09, 0.7)
            )
        ],
        gauges=[
            gauge(
                "aws_rds_database_connections_average",
                {"dbinstance_identifier": "feed-prod-db"},
                640,
                1688,
                start - 200,
            )
        ],
        books={
            "feed-pods-not-ready.md": runbook(
                "FeedApiPodsNotReady",
                "Pods not ready usually means the ranker is slow and readiness times out. Scale ranker up (kubectl scale deploy/ranker --replicas=6) and raise feed-api's maxReplicas if CPU stays high.",
            )
        },
    )


# =================================================================================================
# 3. File descriptors: the node pool `general` rolled to the new AMI line (INFRA-2231, containerd
#    2.0). containerd 2.0 no longer sets LimitNOFILE=infinity, so containers start with a soft
#    RLIMIT_NOFILE of 1024 instead of 1048576. image-resizer (Python, aiohttp, one open upstream socket
#    plus a temp file per image) runs out of descriptors at the evening peak: `Too many open files`,
#    every request after that fails until the pod restarts. The incident says "product images".
# =================================================================================================


@scenario("containerd2-nofile-soft-limit-image-resizer")
def containerd2_nofile_soft_limit_image_resizer() -> dict[str, Any]:
    start = -2100
    ns = "media"
    img = "europe-docker.pkg.dev/brambleworks-prod/media/image-resizer:5.7.1"
    ir = app(
        "image-resizer",
        image=img,
        port=8080,
        rs="58d7c6b9f4",
        cluster_ip="10.96.14.40",
        pods=[
            ("j2kdm", "1/1", "Running", "2", "6h", 0),
            ("p8wqr", "1/1", "Running", "3", "6h", 1),
            ("t4vzx", "1/1", "Running", "2", "6h", 2),
        ],
    )
    cd = app(
        "cdn-origin",
        image="europe-docker.pkg.dev/brambleworks-prod/media/cdn-origin:1.12.0",
        port=8081,
        rs="6c9b8d7a5e",
        cluster_ip="10.96.14.41",
        pods=[
            ("w6ynb", "1/1", "Running", "0", "3d", 0),
            ("x3rfk", "1/1", "Running", "0", "3d", 2),
        ],
    )
    k8s = namespace(ns, NODES_FRA, [ir, cd], seed=579)
    sig = "OSError: [Errno 24] Too many open files"
    name = describe_pod(
        k8s,
        ns,
        ir,
        "p8wqr",
        NODES_FRA,
        state=running(-640),
        started=-21600,
        ready=True,
        restarts=3,
        events_rows=[
            (
                "Warning",
                "Unhealthy",
                "11m (x6 over 2h)",
                "kubelet",
                'Liveness probe failed: Get "http://10.79.2.31:8080/healthz": context deadline exceeded',
            ),
            (
                "Normal",
                "Killing",
                "11m (x3 over 2h)",
                "kubelet",
                "Container image-resizer failed liveness probe, will be restarted",
            ),
        ],
    )
    k8s[f"kubectl logs {name} -n {ns} --previous --tail=1000"] = podlog(
        [
            (
                -21590,
                "INFO:image_resizer:starting 5.7.1 workers=1 rlimit_nofile=(1024, 524288)",
            ),
            (-700, "ERROR:aiohttp.server:Error handling request"),
            (-700, sig),
            (
                -699,
                "ERROR:image_resizer:upstream fetch failed: [Errno 24] Too many open files: '/tmp/tmpq81x.webp'",
            ),
            (-660, "ERROR:asyncio:socket.accept() out of system resource"),
        ]
    )
    k8s["kubectl get nodes"] = table(
        [
            ["NAME", "STATUS", "ROLES", "AGE", "VERSION"],
            *[[n[0], "Ready", "<none>", "7h", "v1.31.4"] for n in NODES_FRA],
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "7h",
                "Normal",
                "NodeReady",
                f"Node/{NODES_FRA[0][0]}",
                "Node status is now: NodeReady (containerd://2.0.2)",
            ),
            (
                "11m",
                "Warning",
                "Unhealthy",
                f"Pod/{name}",
                "Liveness probe failed: context deadline exceeded",
            ),
        ]
    )
    evs = [
        ev(
            "gke",
            "info",
            "node pool general upgraded to cos-121-18867 (containerd 2.0.2) by surge upgrade; change INFRA-2231 'move to the 2026 node image'",
            at=-25000,
        ),
        ev("image-resizer", "error", sig, **every(start, -4, 8), pods=pods_of(ir)),
        ev(
            "image-resizer",
            "info",
            "INFO:image_resizer:starting 5.7.1 workers=1 rlimit_nofile=(1024, 524288)",
            **every(start, -300, 700),
            pods=pods_of(ir),
        ),
        ev(
            "cdn-origin",
            "error",
            '{"severity":"ERROR","msg":"resize upstream returned 502","path":"/p/{n}/w_640.webp"}',
            **every(start + 20, -3, 6),
            pods=pods_of(cd),
        ),
        ev(
            "cdn-origin",
            "info",
            '{"severity":"INFO","msg":"cdn-origin 1.12.0 started (AVIF negotiation)"}',
            at=-4600,
            pods=pods_of(cd),
        ),
        ev(
            "storefront",
            "warn",
            "LCP regression alert: p75 4.1s on /category/* (images)",
            **every(start + 60, -60, 600),
        ),
        ev(
            "image-resizer",
            "warn",
            "WARNING:image_resizer:source image 1{ms}00x9{ms}0 exceeds 40MP, downscaling in two passes",
            **every(-7000, -100, 450),
            pods=pods_of(ir),
        ),
        ev(
            "image-resizer",
            "error",
            "ERROR:image_resizer:GCS read timeout for bucket brambleworks-originals",
            **every(-10600, -10200, 90),
            pods=pods_of(ir),
        ),
    ]
    return kube_case(
        seed=579,
        start=start,
        inc=incident(
            "Product images broken on the site",
            "product images",
            start,
            ["grey boxes instead of photos on category pages"],
        ),
        exp=expected(
            "platform",
            [
                "containerd 2.0",
                "containerd",
                "LimitNOFILE",
                "node pool general",
                "INFRA-2231",
                "image-resizer",
                "deployment/image-resizer",
                "rlimit_nofile",
            ],
            sig,
            "The general node pool was upgraded to a node image with containerd 2.0 (INFRA-2231). containerd 2.0 no longer runs with LimitNOFILE=infinity, so containers now start with a soft open-files limit of 1024 (image-resizer logs rlimit_nofile=(1024, 524288)). image-resizer keeps a socket and a temp file per in-flight image and runs out of descriptors at the evening peak: every request fails with Too many open files until liveness restarts the pod. cdn-origin's 502s and the storefront LCP alert are victims; the cdn-origin release, the large-image warnings and the old GCS timeout are not the cause.",
            [
                f"image-resizer: {sig}",
                "image-resizer: rlimit_nofile=(1024, 524288) at start",
                "gke: node pool general upgraded to containerd 2.0.2 (INFRA-2231)",
            ],
            "Raise the soft limit (resource.setrlimit to the hard limit at start, or a containerd drop-in with LimitNOFILE) and roll image-resizer; audit other services for the same limit.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "image-resizer",
                pods_of(ir),
                [
                    'INFO:aiohttp.access:10.79.{ms}.{ms} "GET /r/w_640/p/{n}.webp HTTP/1.1" 200 {n} 0.{ms}'
                ],
                8,
            )
        ],
        evs=evs,
        services=[
            svc("image-resizer", 140, {"500": (0.001, 0.35)}, (0.12, 0.2)),
            svc("cdn-origin", 300, {"502": (0.0, 0.2)}, (0.03, 0.05)),
        ],
        gauges=[gauge("process_open_fds", {"pod": name}, 310, 1024, start)],
        books={
            "images-broken.md": runbook(
                "Product images not loading",
                "Broken images are usually oversized originals (> 40 MP) making the resizer run out of memory. Find the offending SKU in the resizer warnings, re-upload a smaller original and purge the CDN path.",
            )
        },
    )


# =================================================================================================
# 4. Network policy: SEC-880 ("zero-trust egress for PCI namespaces") adds `default-deny-egress` to
#    the payments namespace with allow rules for the PSP and Postgres, but none for DNS (UDP/TCP 53 to
#    kube-dns). Existing connections keep working; every new lookup times out. checkout-payments
#    reuses pooled HTTP connections to the PSP for a while, then `getaddrinfo EAI_AGAIN`. The incident
#    says "checkout".
# =================================================================================================


@scenario("egress-default-deny-without-dns-rule")
def egress_default_deny_without_dns_rule() -> dict[str, Any]:
    start = -1400
    ns = "payments"
    img = "registry.tidewater.example/payments/checkout-payments:12.4.0"
    cp = app(
        "checkout-payments",
        image=img,
        port=3000,
        rs="79b6d8c5f2",
        cluster_ip="10.43.50.10",
        pods=[
            ("k7dnv", "1/1", "Running", "0", "2d", 0),
            ("q2zmb", "1/1", "Running", "0", "2d", 1),
        ],
    )
    k8s = namespace(ns, NODES_PDX, [cp], seed=580)
    sig = "getaddrinfo EAI_AGAIN api.adyen.com"
    k8s[f"kubectl get networkpolicies -n {ns}"] = table(
        [
            ["NAME", "POD-SELECTOR", "AGE"],
            ["allow-ingress-from-checkout", "app=checkout-payments", "1y"],
            ["default-deny-egress", "<none>", "26m"],
            ["allow-egress-psp", "app=checkout-payments", "26m"],
            ["allow-egress-postgres", "app=checkout-payments", "26m"],
        ]
    )
    k8s[f"kubectl describe networkpolicies default-deny-egress -n {ns}"] = (
        f"Name:         default-deny-egress\nNamespace:    {ns}\nCreated on:   2026-12-07 11:33:10 +0000 UTC\n"
        "Labels:       change=SEC-880\nAnnotations:  <none>\nSpec:\n"
        "  PodSelector:     <none> (Allowing the specific traffic to all pods in this namespace)\n"
        "  Not affecting ingress traffic\n"
        "  Allowing egress traffic:\n    <none> (Selected pods are isolated for egress connectivity)\n"
        "  Policy Types: Egress\n"
    )
    k8s[f"kubectl describe networkpolicies allow-egress-psp -n {ns}"] = (
        f"Name:         allow-egress-psp\nNamespace:    {ns}\nCreated on:   2026-12-07 11:33:10 +0000 UTC\n"
        "Labels:       change=SEC-880\nAnnotations:  <none>\nSpec:\n"
        "  PodSelector:     app=checkout-payments\n"
        "  Not affecting ingress traffic\n"
        "  Allowing egress traffic:\n    To Port: 443/TCP\n    To:\n      IPBlock:\n        CIDR: 0.0.0.0/0\n        Except: 10.0.0.0/8\n"
        "  Policy Types: Egress\n"
    )
    name = describe_pod(
        k8s,
        ns,
        cp,
        "k7dnv",
        NODES_PDX,
        state=running(-172800),
        started=-172800,
        ready=True,
    )
    k8s[f"kubectl logs {name} -n {ns} --tail=1000"] = podlog(
        [
            (
                -900,
                '{"level":"error","msg":"authorise failed","err":"'
                + sig
                + '","attempt":1}',
            ),
            (
                -600,
                '{"level":"error","msg":"authorise failed","err":"'
                + sig
                + '","attempt":3}',
            ),
            (
                -120,
                '{"level":"warn","msg":"fraud-score lookup failed, continuing without score","err":"getaddrinfo EAI_AGAIN fraud-scorer.risk.svc.cluster.local"}',
            ),
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "26m",
                "Normal",
                "Created",
                "NetworkPolicy/default-deny-egress",
                "created by argocd (app pci-baseline, SEC-880)",
            )
        ]
    )
    evs = [
        ev(
            "argocd",
            "info",
            "application pci-baseline synced (SEC-880 'zero-trust egress for PCI namespaces'): NetworkPolicy default-deny-egress, allow-egress-psp, allow-egress-postgres created in payments",
            at=start - 200,
        ),
        ev(
            "checkout-payments",
            "error",
            '{"level":"error","msg":"authorise failed","err":"'
            + sig
            + '","attempt":{ms}}',
            **every(start, -3, 6),
            pods=pods_of(cp),
        ),
        ev(
            "checkout-web",
            "error",
            '{"level":"error","msg":"POST /api/pay -> 502 from checkout-payments","order":"T-{n}"}',
            **every(start + 10, -2, 4),
        ),
        ev(
            "checkout-web",
            "info",
            '{"level":"info","msg":"checkout-web 2026.49.2 deployed (new address form)"}',
            at=-3900,
        ),
        ev(
            "adyen-webhooks",
            "warn",
            "webhook retry queue: 3{ms} notifications pending delivery to https://pay.tidewater.example/adyen/notify",
            **every(start + 200, -60, 300),
        ),
        ev(
            "search",
            "warn",
            '{"level":"warn","msg":"slow query","ms":1{ms}0}',
            **every(-7000, -60, 180),
        ),
        ev(
            "checkout-payments",
            "error",
            '{"level":"error","msg":"authorise failed","err":"Adyen 422 Unable to decrypt data"}',
            **every(-10400, -10000, 90),
            pods=pods_of(cp),
        ),
    ]
    return kube_case(
        seed=580,
        start=start,
        inc=incident("Checkout broken - card payments failing", "checkout", start),
        exp=expected(
            "dns",
            [
                "networkpolicy/default-deny-egress",
                "default-deny-egress",
                "SEC-880",
                "kube-dns",
                "pci-baseline",
                "checkout-payments",
            ],
            sig,
            "SEC-880 added a default-deny egress NetworkPolicy to the payments namespace with allow rules for the PSP (443) and Postgres but none for DNS to kube-dns. Pooled connections kept working for a while; every new lookup from checkout-payments now times out with getaddrinfo EAI_AGAIN, so card authorisations fail. checkout-web's 502s are the louder victim; its release, Adyen webhook retries, the slow search and the old decrypt error are not the cause.",
            [
                f"checkout-payments: {sig}",
                "networkpolicy default-deny-egress created 26m ago (SEC-880), no rule for port 53",
                "checkout-payments: EAI_AGAIN for the in-cluster fraud-scorer name as well",
            ],
            "Add an allow-dns egress policy (UDP/TCP 53 to kube-system/kube-dns) to the pci-baseline app, or revert SEC-880 until it has one.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "checkout-payments",
                pods_of(cp),
                ['{"level":"info","msg":"GET /healthz 200","ms":1}'],
                8,
            )
        ],
        evs=evs,
        services=[svc("checkout-payments", 35, {"502": (0.0, 0.8)}, (0.4, 5.1))],
        gauges=[
            gauge(
                "coredns_dns_requests_total_rate", {"namespace": ns}, 41, 0, start - 200
            )
        ],
        books={
            "payments-failing.md": runbook(
                "Card payments failing",
                "Most card failures are Adyen-side. Check status.adyen.com and the Customer Area for the merchant account; if Adyen is degraded, switch the PSP flag to the fallback acquirer.",
            )
        },
    )


# =================================================================================================
# 5. Missing index: tracking-api 7.3.0 looks parcels up by the carrier's reference
#    (`WHERE carrier_ref = $1`) for the new "track by carrier number" box; there is no index on
#    carrier_ref, so each lookup is a sequential scan of 61M rows. The page is slow for everyone
#    because the scans saturate the database. The incident is one line.
# =================================================================================================


@scenario("tracking-lookup-by-carrier-ref-seq-scan")
def tracking_lookup_by_carrier_ref_seq_scan() -> dict[str, Any]:
    start = -2200
    sig = "Seq Scan on parcels"
    api = ["tracking-api-1", "tracking-api-2", "tracking-api-3"]
    evs = [
        ev(
            "deploy",
            "info",
            "capistrano: deployed tracking-api 7.3.0 (MR !655 'track by carrier number') to tracking-api-1..3",
            at=start - 240,
        ),
        ev(
            "postgres",
            "warn",
            "2026-12-07 11:{n}.{ms} UTC [{n}] tracking@parcels LOG:  duration: 4{ms}1.552 ms  plan:\n\tQuery Text: SELECT parcels.* FROM parcels WHERE parcels.carrier_ref = $1 LIMIT 1\n\tLimit  (cost=0.00..1512733.10 rows=1 width=412)\n\t  ->  "
            + sig
            + "  (cost=0.00..1512733.10 rows=1 width=412)\n\t        Filter: ((carrier_ref)::text = $1)",
            **every(start, -4, 10),
        ),
        ev(
            "tracking-api",
            "warn",
            "method=GET path=/t/lookup format=html controller=TrackingController action=lookup status=200 duration=4{ms}3.10 view=2.11 db=4{ms}0.75",
            **every(start, -3, 6),
            pods=api,
        ),
        ev(
            "web-frontend",
            "error",
            'upstream timed out (110: Connection timed out) while reading response header from upstream, request: "GET /t/lookup?q=JJD{n} HTTP/2.0"',
            **every(start + 60, -2, 5),
        ),
        ev(
            "postgres",
            "warn",
            "2026-12-07 11:{n}.{ms} UTC [{n}] LOG:  checkpoints are occurring too frequently (18 seconds apart)",
            **every(-7000, -100, 900),
        ),
        ev(
            "carrier-sync",
            "warn",
            "DHL webhook: duplicate event JJD{n} ignored",
            **every(-7000, -60, 240),
        ),
        ev(
            "tracking-api",
            "error",
            'E, [2026-12-07T08:{n}] ERROR -- : PG::ConnectionBad: could not translate host name "pg-primary.internal"',
            **every(-10500, -10100, 100),
            pods=api,
        ),
    ]
    return simple(
        581,
        start,
        incident("tracking page super slow", "parcel tracking", start),
        expected(
            "application",
            [
                "tracking-api",
                "tracking-api 7.3.0",
                "MR !655",
                "parcels",
                "carrier_ref",
                "missing index",
                "postgres",
            ],
            sig,
            "tracking-api 7.3.0 (MR !655, 'track by carrier number') looks parcels up by carrier_ref, which has no index; each lookup is a sequential scan of the 61M-row parcels table taking seconds, and the scans saturate the database so every tracking request is slow. The frontend's upstream timeouts are the louder victim; the checkpoint warnings, the carrier-sync duplicates and the old DNS error are not the cause.",
            [
                f"postgres auto_explain: {sig} ... Filter: carrier_ref = $1, 4 s",
                "tracking-api 7.3.0 deployed just before",
                "tracking-api: db= 4 s per lookup",
            ],
            "CREATE INDEX CONCURRENTLY index_parcels_on_carrier_ref ON parcels (carrier_ref); or roll back to 7.2.x until it exists.",
        ),
        [
            bg(
                "tracking-api",
                api,
                [
                    "method=GET path=/t/{n} format=html controller=TrackingController action=show status=200 duration={ms}.2 view=8.1 db=1.{ms}"
                ],
                8,
            )
        ],
        evs,
        [
            svc("tracking-api", 70, {"500": (0.001, 0.004)}, (0.06, 3.8)),
            svc("web-frontend", 150, {"504": (0.0, 0.12)}, (0.08, 3.9)),
        ],
        [gauge("node_cpu_utilisation", {"instance": "pg-primary"}, 0.22, 0.97, start)],
        {
            "slow-tracking.md": runbook(
                "Tracking page slow",
                "Slow tracking pages are usually carrier APIs: check carrier-sync's error rate and the DHL/UPS status pages, then add tracking-api instances behind the load balancer.",
            )
        },
    )


# =================================================================================================
# 6. N+1: catalog-gateway (GraphQL) 3.8.0 removed the DataLoader from the `price` field resolver in a
#    refactor (PR #2210); a category page of 240 products now makes 240 separate calls to pricing-svc
#    instead of one batch. pricing-svc saturates; the gateway answers slowly. The incident is an alert.
# =================================================================================================


@scenario("graphql-price-resolver-n-plus-one")
def graphql_price_resolver_n_plus_one() -> dict[str, Any]:
    start = -1900
    sig = "241 x GET pricing-svc /v1/prices/{sku}"
    gw = ["catalog-gateway-a", "catalog-gateway-b"]
    evs = [
        ev(
            "github-actions",
            "info",
            "ecs deploy catalog-gateway:3.8.0 (PR #2210 'resolver cleanup') to cluster shop-prod: steady state",
            at=start - 300,
        ),
        ev(
            "tempo",
            "info",
            "slow trace 4f1c{n}a: GET /graphql (CategoryPage) 3.{ms}s, 246 spans: "
            + sig
            + ", 4 x GET inventory-svc /v1/stock",
            at=start + 100,
        ),
        ev(
            "catalog-gateway",
            "warn",
            '{"level":"warn","msg":"slow operation","operation":"CategoryPage","ms":3{ms}1,"downstreamCalls":241}',
            **every(start, -3, 8),
            pods=gw,
        ),
        ev(
            "pricing-svc",
            "warn",
            '{"level":"warn","msg":"request queue depth high","depth":1{ms},"workers":32}',
            **every(start + 30, -20, 45),
        ),
        ev(
            "web-shop",
            "error",
            "[next] fetch /graphql failed: 504 Gateway Timeout (CategoryPage)",
            **every(start + 60, -3, 7),
        ),
        ev(
            "pricing-svc",
            "info",
            '{"level":"info","msg":"pricing-svc 4.4.0 started (promo stacking rules)"}',
            at=-5300,
        ),
        ev(
            "inventory-svc",
            "warn",
            '{"level":"warn","msg":"cache miss ratio 0.4{ms}"}',
            **every(-7000, -60, 400),
        ),
        ev(
            "catalog-gateway",
            "error",
            '{"level":"error","msg":"persisted query not found","hash":"9ac{n}"}',
            **every(-10600, -10200, 60),
            pods=gw,
        ),
    ]
    spec = simple(
        582,
        start,
        incident(
            "[ALERT] CatalogGatewayLatencyHigh p95 > 2s", "catalog-gateway", start
        ),
        expected(
            "application",
            [
                "catalog-gateway",
                "catalog-gateway 3.8.0",
                "PR #2210",
                "DataLoader",
                "price resolver",
                "n+1",
            ],
            sig,
            "catalog-gateway 3.8.0 (PR #2210) dropped the DataLoader from the price field resolver, so a category page with 240 products makes 241 calls to pricing-svc instead of one batch call. pricing-svc's worker queue fills and every GraphQL operation that touches prices gets slow. pricing-svc's queue warnings and the web-shop 504s are victims; the pricing-svc release, inventory cache misses and the old persisted-query errors are not the cause.",
            [
                f"tempo: trace of CategoryPage with {sig}",
                "catalog-gateway: downstreamCalls 241 per operation",
                "catalog-gateway 3.8.0 deployed just before",
            ],
            "Roll back catalog-gateway to 3.7.x; restore the batched DataLoader for price.",
        ),
        [
            bg(
                "catalog-gateway",
                gw,
                [
                    '{"level":"info","msg":"graphql","operation":"ProductPage","ms":{ms},"downstreamCalls":3}'
                ],
                8,
            )
        ],
        evs,
        [
            svc("catalog-gateway", 220, {"504": (0.0, 0.05)}, (0.12, 3.2)),
            svc("pricing-svc", 400, {"503": (0.0, 0.02)}, (0.01, 0.9)),
        ],
        [
            gauge(
                "pricing_svc_requests_per_second",
                {"service": "pricing-svc"},
                380,
                9100,
                start,
            )
        ],
        {
            "catalog-latency.md": runbook(
                "CatalogGatewayLatencyHigh",
                "High gateway latency usually comes from pricing-svc promo evaluation. Disable promo stacking (flag promo-stacking) and scale pricing-svc to 12 tasks.",
            )
        },
    )
    return spec


# =================================================================================================
# 7. Pool too small: a config refactor (PR config#311, "one application.yml per profile") moved
#    payroll-api's datasource settings under `spring.datasource.hikari.prod.*`, a prefix Spring ignores.
#    Hikari falls back to maximum-pool-size 10 (was 60). At the month-end payroll run every request
#    waits for a connection. The incident says "payroll".
# =================================================================================================


@scenario("hikari-pool-setting-under-ignored-prefix")
def hikari_pool_setting_under_ignored_prefix() -> dict[str, Any]:
    start = -2000
    sig = "(total=10, active=10, idle=0, waiting="
    hosts = ["payroll-api-01", "payroll-api-02"]
    evs = [
        ev(
            "jenkins",
            "info",
            "payroll-api #1182 deployed to prod: config-repo@8e1d0a2 (PR config#311 'one application.yml per profile')",
            at=-9000,
        ),
        ev(
            "payroll-api",
            "info",
            "2026-12-07 09:{n}.{ms} INFO  [main] com.zaxxer.hikari.HikariConfig : HikariPool-1 - maximumPoolSize................10",
            at=-8990,
            pods=hosts,
        ),
        ev(
            "config-repo",
            "info",
            "PR config#311 merged: payroll-api/application-prod.yml: - spring.datasource.hikari.maximum-pool-size: 60 + spring.datasource.hikari.prod.maximum-pool-size: 60",
            at=-9300,
        ),
        ev(
            "payroll-api",
            "error",
            "2026-12-07 11:{n}.{ms} ERROR [http-nio-8443-exec-{ms}] o.h.engine.jdbc.spi.SqlExceptionHelper : HikariPool-1 - Connection is not available, request timed out after 30000ms "
            + sig
            + "1{ms})",
            **every(start, -3, 5),
            pods=hosts,
        ),
        ev(
            "payroll-batch",
            "info",
            "month-end run M2026-12: computing 48{ms}0 payslips",
            at=start - 60,
        ),
        ev(
            "hr-portal",
            "error",
            "GET /api/payslips -> 503 (payroll-api) after 30.0s",
            **every(start + 30, -2, 4),
        ),
        ev(
            "mysql",
            "info",
            "2026-12-07T11:{n}Z 0 [Note] [MY-010914] Aborted connection {n} to db: 'reporting' user: 'bi' (Got timeout reading communication packets)",
            **every(-7000, -60, 300),
        ),
        ev(
            "payroll-api",
            "error",
            "2026-12-07 08:{n}.{ms} ERROR [scheduler-2] c.q.payroll.TaxTableSync : HMRC RTI endpoint 503",
            **every(-10500, -10100, 120),
            pods=hosts,
        ),
    ]
    return simple(
        583,
        start,
        incident(
            "payroll is down??",
            "payroll",
            start,
            ["HR says payslips page spins then errors"],
        ),
        expected(
            "application",
            [
                "payroll-api",
                "hikari",
                "HikariPool-1",
                "maximum-pool-size",
                "maximumPoolSize",
                "PR config#311",
                "spring.datasource.hikari.prod.maximum-pool-size",
            ],
            sig,
            "PR config#311 split payroll-api's configuration per profile and put the datasource settings under spring.datasource.hikari.prod.*, which Spring ignores, so HikariPool-1 runs with the default maximumPoolSize 10 instead of 60. Under the month-end payroll load every request waits 30 s for a connection and fails. hr-portal's 503s are the louder victim; the month-end run is the trigger, not the cause; the MySQL reporting aborts and the old HMRC 503 are unrelated.",
            [
                f"payroll-api: Connection is not available ... {sig}…)",
                "payroll-api: HikariPool-1 maximumPoolSize 10 at start; config-repo: the setting moved under spring.datasource.hikari.prod",
                "jenkins: PR config#311 deployed this morning",
            ],
            "Move the setting back to spring.datasource.hikari.maximum-pool-size: 60 and restart payroll-api.",
        ),
        [
            bg(
                "payroll-api",
                hosts,
                [
                    "2026-12-07 11:{n}.{ms} INFO  [http-nio-8443-exec-{ms}] c.q.payroll.web.Access : GET /api/health 200 {ms}ms"
                ],
                8,
            )
        ],
        evs,
        [svc("payroll-api", 40, {"503": (0.001, 0.45)}, (0.09, 28.0))],
        [
            gauge(
                "hikaricp_connections_pending", {"pool": "HikariPool-1"}, 0, 112, start
            )
        ],
        {
            "payroll-down.md": runbook(
                "Payroll unavailable",
                "If payroll is slow during the month-end run, MySQL is overloaded: kill the reporting user's long queries and pause the BI extracts until the run finishes.",
            )
        },
    )


# =================================================================================================
# 8. Retry storm: quote-service 5.1.0 (PR #1420, "make quotes resilient") wraps its call to
#    rates-engine in a retry of 8 attempts with no backoff and no jitter, and a 500 ms timeout. A
#    30-second GC pause on one rates-engine node makes every in-flight quote retry at once; the
#    retries keep rates-engine saturated long after the pause ended (8x the normal load). The incident
#    says "quotes".
# =================================================================================================


@scenario("quote-client-retries-without-backoff-storm")
def quote_client_retries_without_backoff_storm() -> dict[str, Any]:
    start = -1600
    sig = "retrying in 0ms (attempt 8/8)"
    qs = ["quote-service-1", "quote-service-2", "quote-service-3"]
    evs = [
        ev(
            "deploy",
            "info",
            "nomad: job quote-service updated to 5.1.0 (PR #1420 'make quotes resilient'), 3/3 allocations healthy",
            at=-6100,
        ),
        ev(
            "rates-engine",
            "warn",
            "[GC (Allocation Failure) [PSYoungGen: 3{ms}2K->1{ms}K] Full GC pause 28.4 secs] rates-engine-2",
            at=start - 40,
        ),
        ev(
            "quote-service",
            "warn",
            'level=warn msg="rates-engine call failed: context deadline exceeded (500ms); '
            + sig
            + '" quote_id=q_{n}',
            **every(start, -2, 3),
            pods=qs,
        ),
        ev(
            "rates-engine",
            "warn",
            'level=warn msg="request queue full, rejecting" queue=4096 inflight=40{ms}',
            **every(start + 20, -3, 6),
        ),
        ev(
            "broker-portal",
            "error",
            "POST /quotes -> 504 (quote-service) after 10.0s",
            **every(start + 30, -2, 5),
        ),
        ev(
            "rates-engine",
            "info",
            "rates-engine tariffs reloaded (2027 motor tariffs)",
            at=-3300,
        ),
        ev("docs-site", "error", "GET /api/changelog -> 500", **every(-7000, -60, 300)),
        ev(
            "quote-service",
            "error",
            'level=error msg="vault: permission denied renewing lease"',
            **every(-10500, -10000, 120),
            pods=qs,
        ),
    ]
    return simple(
        584,
        start,
        incident("Quotes timing out for brokers", "quotes", start),
        expected(
            "application",
            [
                "quote-service",
                "quote-service 5.1.0",
                "PR #1420",
                "retry",
                "retry storm",
                "backoff",
            ],
            sig,
            "quote-service 5.1.0 (PR #1420) retries rates-engine calls 8 times with no backoff or jitter and a 500 ms timeout. A 28 s full GC pause on rates-engine-2 made every in-flight quote retry at once; the retries multiply the load by eight and keep rates-engine's queue full long after the pause, so quotes time out. rates-engine's queue rejections and the broker-portal 504s are victims, the GC pause the trigger; the tariff reload, the docs-site 500s and the old Vault error are not the cause.",
            [
                f"quote-service: {sig}",
                "rates-engine request rate x8 since the GC pause",
                "quote-service 5.1.0 deployed this morning",
            ],
            "Roll back quote-service or set retries to 2 with exponential backoff and jitter behind a circuit breaker; shed load on rates-engine until the queue drains.",
        ),
        [
            bg(
                "quote-service",
                qs,
                ['level=info msg="quote issued" quote_id=q_{n} ms={ms}'],
                8,
            )
        ],
        evs,
        [
            svc("quote-service", 30, {"504": (0.0, 0.6)}, (0.3, 9.5)),
            svc("rates-engine", 30, {"503": (0.0, 0.7)}, (0.08, 0.5)),
        ],
        [
            gauge(
                "rates_engine_requests_per_second",
                {"service": "rates-engine"},
                31,
                260,
                start,
            )
        ],
        {
            "quotes-slow.md": runbook(
                "Quotes slow or failing",
                "Quote timeouts follow a tariff reload: rates-engine rebuilds its cache for about ten minutes. Wait, or restart rates-engine nodes one by one to rebuild it faster.",
            )
        },
    )


# =================================================================================================
# 9. Feature flag and a vendor quota: the flag `address-autocomplete-v2` was turned on for 100 % of
#    users (LaunchDarkly audit). v2 calls Loqate's Find API on every keystroke instead of after a
#    300 ms pause; the account's daily request limit is spent by noon and Loqate answers 429. Address
#    entry fails for everyone, so sign-ups stop. The incident is one user complaint.
# =================================================================================================


@scenario("address-autocomplete-flag-burns-vendor-quota")
def address_autocomplete_flag_burns_vendor_quota() -> dict[str, Any]:
    start = -1300
    sig = "Loqate Find API 429: daily request limit exceeded for key"
    hosts = ["signup-api-1", "signup-api-2"]
    evs = [
        ev(
            "launchdarkly",
            "info",
            "audit: flag address-autocomplete-v2 in production: rollout 10% -> 100% by j.mendes (comment: 'looks good, ship it')",
            at=-9800,
        ),
        ev(
            "signup-api",
            "info",
            '{"level":"info","msg":"loqate usage","requests_today":1{n},"limit":250000}',
            **every(-7000, start, 900),
            pods=hosts,
        ),
        ev(
            "signup-api",
            "error",
            '{"level":"error","msg":"'
            + sig
            + ' KX39-****","status":429,"path":"/Capture/Interactive/Find/v1.1"}',
            **every(start, -2, 3),
            pods=hosts,
        ),
        ev(
            "signup-web",
            "error",
            "[sentry] TypeError: Cannot read properties of undefined (reading 'Items') at AddressLookup.tsx:88",
            **every(start + 10, -4, 8),
        ),
        ev(
            "signup-web",
            "info",
            "signup-web 3.40.0 deployed (new plan picker)",
            at=-5400,
        ),
        ev(
            "stripe-webhooks",
            "warn",
            "customer.subscription.updated delivery retried (attempt 2)",
            **every(-7000, -60, 500),
        ),
        ev(
            "signup-api",
            "error",
            '{"level":"error","msg":"companies house lookup timed out"}',
            **every(-10500, -10100, 120),
            pods=hosts,
        ),
    ]
    return simple(
        585,
        start,
        incident(
            "customer says they can't finish sign up",
            "sign up",
            start,
            ["'the address box doesn't find my address'"],
        ),
        expected(
            "application",
            [
                "address-autocomplete-v2",
                "feature flag address-autocomplete-v2",
                "launchdarkly",
                "loqate",
                "signup-api",
                "daily request limit",
            ],
            sig,
            "The LaunchDarkly flag address-autocomplete-v2 was rolled out from 10 % to 100 % this morning. v2 calls Loqate's Find API on every keystroke instead of after a pause, so the account's daily request limit of 250k was spent by midday and Loqate now answers 429 to every lookup; the address step fails and sign-ups stop. signup-web's TypeErrors are the louder victim; the signup-web release, Stripe webhook retries and the old Companies House timeout are not the cause.",
            [
                f"signup-api: {sig}",
                "launchdarkly: address-autocomplete-v2 10% -> 100%",
                "signup-api: loqate requests_today climbing toward 250000",
            ],
            "Turn address-autocomplete-v2 back to 0 %; ask Loqate for a temporary limit increase and add debounce to v2 before re-enabling.",
        ),
        [
            bg(
                "signup-api",
                hosts,
                [
                    '{"level":"info","msg":"POST /v1/signup/step","step":"plan","ms":{ms}}'
                ],
                8,
            )
        ],
        evs,
        [svc("signup-api", 12, {"502": (0.0, 0.5)}, (0.1, 0.12))],
        [gauge("signup_completed_per_minute", {"env": "prod"}, 14, 0, start)],
        {
            "signup-broken.md": runbook(
                "Sign-up failing",
                "Sign-up failures are usually Stripe: check the webhook delivery dashboard and Stripe status, then replay failed customer.subscription events.",
            )
        },
    )


# =================================================================================================
# 10. Third-party outage (netcheck): the SMS provider Sinchro's messaging API answers 503 in the EU
#     region; one-time passcodes for login are never sent. The incident names the login. netcheck:
#     the vendor's endpoint http_503, our own auth endpoint healthy.
# =================================================================================================


@scenario("sms-vendor-503-login-otp-not-sent")
def sms_vendor_503_login_otp_not_sent() -> dict[str, Any]:
    start = -1500
    sig = (
        "POST https://eu.api.sinchro.example/sms/v1/batches -> 503 Service Unavailable"
    )
    hosts = ["auth-1", "auth-2"]
    evs = [
        ev(
            "auth",
            "error",
            "ERROR [otp] send failed: " + sig + " (request_id sx-{n})",
            **every(start, -3, 5),
            pods=hosts,
        ),
        ev(
            "auth",
            "warn",
            "WARN [otp] fallback voice call disabled (flag otp-voice-fallback off)",
            **every(start, -60, 300),
            pods=hosts,
        ),
        ev(
            "support-desk",
            "warn",
            "ticket spike: 4{ms} new tickets tagged 'login code' in 15 min",
            **every(start + 300, -60, 600),
        ),
        ev(
            "web-app",
            "error",
            "POST /auth/otp/verify -> 401 invalid or expired code",
            **every(start + 60, -2, 4),
        ),
        ev(
            "auth",
            "info",
            "INFO auth 11.2.0 started (passkeys beta)",
            at=-4400,
            pods=hosts,
        ),
        ev(
            "cloudflare",
            "warn",
            "WAF: 1{ms} requests challenged on /auth/login (bot score < 10)",
            **every(-7000, -60, 300),
        ),
        ev(
            "auth",
            "error",
            "ERROR [otp] send failed: POST https://eu.api.sinchro.example/sms/v1/batches -> 400 invalid destination +44{n}",
            **every(-10600, -10200, 150),
            pods=hosts,
        ),
    ]
    spec = simple(
        586,
        start,
        incident("Users not receiving login codes", "login", start),
        expected(
            "http",
            ["sinchro", "sms provider", "eu.api.sinchro.example", "sinchro sms api"],
            sig,
            "The SMS provider Sinchro's EU messaging API answers 503; auth cannot send one-time passcodes, so users never receive their login codes and verify attempts fail. The voice fallback is switched off. web-app's 401s and the support ticket spike are victims; the auth release (passkeys beta), Cloudflare bot challenges and the old 400 for an invalid number are not the cause.",
            [
                f"auth: {sig}",
                "netcheck: eu.api.sinchro.example answers 503, auth's own endpoint healthy",
                "support: ticket spike tagged 'login code'",
            ],
            "Fail over to the secondary SMS provider (or enable otp-voice-fallback) and follow Sinchro's status page.",
        ),
        [bg("auth", hosts, ["INFO [http] POST /auth/login 200 {ms}ms"], 8)],
        evs,
        [svc("auth", 25, {"500": (0.001, 0.3)}, (0.1, 0.6))],
        [gauge("otp_sms_sent_per_minute", {"provider": "sinchro"}, 180, 0, start)],
        {
            "login-codes.md": runbook(
                "Users not receiving login codes",
                "Missing codes are almost always carrier filtering of our sender ID. Ask the user to check spam SMS, then open a ticket with the mobile carrier.",
            )
        },
    )
    return with_netcheck(
        spec,
        [
            {
                "name": "sinchro-sms",
                "url": "https://eu.api.sinchro.example/sms/v1/batches",
                "fault": {
                    "kind": "http_status",
                    "status": 503,
                    "body": "Service Unavailable",
                },
            },
            {
                "name": "auth",
                "url": "https://auth.quillstone.example/healthz",
                "fault": {"kind": "ok"},
            },
        ],
        "sinchro-sms",
        {
            "sinchro-sms": {"failed_layer": "http", "reason": "http_503"},
            "auth": {"failed_layer": "none", "reason": None},
        },
    )


# =================================================================================================
# 11. Expired client certificate: payouts-service authenticates to the bank's payment API with an
#     mTLS client certificate (`payouts-mtls-2025`) kept on disk on the VMs, issued for one year and
#     never put into the renewal tracker. It expired at 11:00; the bank's gateway rejects the
#     handshake with alert 45 (certificate expired). Server certificates are all fine. The incident
#     says "payouts".
# =================================================================================================


@scenario("bank-mtls-client-cert-expired-payouts")
def bank_mtls_client_cert_expired_payouts() -> dict[str, Any]:
    start = -2400
    sig = "sslv3 alert certificate expired"
    hosts = ["payouts-01", "payouts-02"]
    evs = [
        ev(
            "payouts-service",
            "error",
            "ERROR payouts.bank: POST https://api.openbank.example/v3/payments failed: [SSL: SSLV3_ALERT_CERTIFICATE_EXPIRED] "
            + sig
            + " (_ssl.c:2580) client_cert=/etc/payouts/tls/payouts-mtls-2025.pem",
            **every(start, -5, 15),
            pods=hosts,
        ),
        ev(
            "payouts-service",
            "info",
            "INFO payouts.tls: client certificate CN=payouts.fernwood.example serial 3A:11:F0 notAfter=Dec  7 11:00:00 2026 GMT",
            at=-9000,
            pods=hosts,
        ),
        ev(
            "payouts-worker",
            "warn",
            "WARN celery: payouts.tasks.submit_batch retry 3/5 in 600s (bank unavailable)",
            **every(start + 60, -30, 120),
        ),
        ev(
            "merchant-dashboard",
            "error",
            "payout status stuck in 'processing' > 30 min for merchant M-{n}",
            **every(start + 300, -10, 40),
        ),
        ev(
            "certbot",
            "info",
            "Certificate not yet due for renewal: pay.fernwood.example (expires 2027-02-14)",
            **every(-7000, -60, 3600),
        ),
        ev(
            "payouts-service",
            "info",
            "INFO payouts-service 2.18.0 deployed (SEPA instant)",
            at=-6000,
            pods=hosts,
        ),
        ev(
            "ledger", "warn", "WARN reconciliation lag 4{ms}s", **every(-7000, -60, 600)
        ),
        ev(
            "payouts-service",
            "error",
            "ERROR payouts.bank: 409 duplicate end-to-end id E2E-{n}",
            **every(-10500, -10100, 150),
            pods=hosts,
        ),
    ]
    return simple(
        587,
        start,
        incident("Payouts stuck in processing", "payouts", start),
        expected(
            "tls",
            [
                "payouts-mtls-2025",
                "client certificate",
                "payouts-service",
                "api.openbank.example",
                "mtls",
                "payouts-mtls-2025.pem",
            ],
            sig,
            "payouts-service authenticates to the bank's payment API with the mTLS client certificate payouts-mtls-2025, which expired at 11:00 (notAfter Dec 7 11:00:00 2026) and was never tracked for renewal. The bank rejects every handshake with alert 45 (certificate expired), so payout batches stay 'processing'. The worker retries and the merchant dashboard are victims; our server certificates (certbot) are valid, and the payouts release, ledger lag and the old duplicate-id error are not the cause.",
            [
                f"payouts-service: SSLV3_ALERT_CERTIFICATE_EXPIRED {sig}",
                "payouts-service: client certificate notAfter Dec 7 11:00:00 2026",
                "certbot: server certificates valid",
            ],
            "Issue a new client certificate through the bank's portal, install it on payouts-01/02 and restart; add it to the certificate expiry monitor.",
        ),
        [
            bg(
                "payouts-service",
                hosts,
                ['INFO gunicorn.access: "GET /health HTTP/1.1" 200 {ms}'],
                8,
            )
        ],
        evs,
        [svc("payouts-service", 4, {"502": (0.0, 0.9)}, (0.5, 0.3))],
        [gauge("payouts_pending", {"rail": "sepa"}, 12, 1840, start)],
        {
            "payouts-stuck.md": runbook(
                "Payouts stuck",
                "Payouts stuck in processing mean the bank's cut-off passed or its API is in maintenance. Check the bank's status page; batches resubmit automatically after the window.",
            )
        },
    )


# =================================================================================================
# 12. DNS (netcheck): the reporting workers moved to a new VPC (vpc-reporting-2, NET-412). The
#     Route 53 private hosted zone `svc.corp.internal` was never associated with the new VPC, so
#     `warehouse-api.svc.corp.internal` does not resolve from there (NXDOMAIN); the old VPC still
#     resolves it. Scheduled reports fail. The incident says "reports".
# =================================================================================================


@scenario("private-zone-not-associated-new-vpc")
def private_zone_not_associated_new_vpc() -> dict[str, Any]:
    start = -1800
    sig = "NameResolutionError: Failed to resolve 'warehouse-api.svc.corp.internal'"
    workers = ["report-worker-ip-10-42-3-17", "report-worker-ip-10-42-4-90"]
    evs = [
        ev(
            "terraform",
            "info",
            "Apply complete! Resources: 14 added, 0 changed, 6 destroyed. (NET-412 'report workers to vpc-reporting-2'; module.report_workers)",
            at=start - 400,
        ),
        ev(
            "report-worker",
            "error",
            "ERROR report.run: export failed: HTTPSConnectionPool(host='warehouse-api.svc.corp.internal', port=443): Max retries exceeded (Caused by "
            + sig
            + " ([Errno -2] Name or service not known))",
            **every(start, -10, 30),
            pods=workers,
        ),
        ev(
            "route53-resolver",
            "info",
            "query warehouse-api.svc.corp.internal A from vpc-reporting-2: NXDOMAIN",
            **every(start, -20, 60),
        ),
        ev(
            "reports-web",
            "error",
            "scheduled report R-{n} failed (worker error), customer notified",
            **every(start + 60, -10, 25),
        ),
        ev(
            "warehouse-api",
            "info",
            "warehouse-api 8.0.3 started (columnar cache)",
            at=-4200,
        ),
        ev(
            "warehouse-api",
            "warn",
            "slow query 1{ms}.2s tenant=t_{n}",
            **every(-7000, -60, 240),
        ),
        ev(
            "report-worker",
            "error",
            "ERROR report.render: wkhtmltopdf exited 1 (font not found)",
            **every(-10500, -10000, 150),
            pods=workers,
        ),
    ]
    spec = simple(
        588,
        start,
        incident("scheduled reports failing", "reports", start),
        expected(
            "dns",
            [
                "svc.corp.internal",
                "private hosted zone",
                "vpc-reporting-2",
                "NET-412",
                "warehouse-api.svc.corp.internal",
                "route53",
            ],
            sig,
            "NET-412 moved the report workers to the new VPC vpc-reporting-2, but the Route 53 private hosted zone svc.corp.internal was never associated with it. From the new VPC warehouse-api.svc.corp.internal is NXDOMAIN, so every export fails name resolution. reports-web's failures are the victim; the warehouse-api release and slow queries and the old wkhtmltopdf font error are not the cause.",
            [
                f"report-worker: {sig}",
                "route53-resolver: NXDOMAIN from vpc-reporting-2",
                "terraform: NET-412 applied just before",
            ],
            "Associate the svc.corp.internal private hosted zone with vpc-reporting-2 (and add it to the module).",
        ),
        [
            bg(
                "report-worker",
                workers,
                ["INFO report.run: report R-{n} rendered in {ms}s"],
                8,
                until=start,
            )
        ],
        evs,
        [svc("reports-web", 6, {"500": (0.0, 0.4)}, (0.2, 0.2))],
        [gauge("reports_failed_per_minute", {"env": "prod"}, 0, 9, start)],
        {
            "reports-failing.md": runbook(
                "Scheduled reports failing",
                "Report failures are usually warehouse-api timeouts on large tenants. Raise the worker's read timeout and rerun from the admin page.",
            )
        },
    )
    return with_netcheck(
        spec,
        [
            {
                "name": "warehouse-api",
                "url": "https://warehouse-api.svc.corp.internal/healthz",
                "fault": {"kind": "dns_nxdomain"},
            },
            {
                "name": "reports-web",
                "url": "https://reports.quillstone.example/healthz",
                "fault": {"kind": "ok"},
            },
        ],
        "warehouse-api",
        {
            "warehouse-api": {"failed_layer": "dns", "reason": "nxdomain"},
            "reports-web": {"failed_layer": "none", "reason": None},
        },
    )


# =================================================================================================
# 13. Security group (netcheck): a Terraform clean-up of "unused" rules (PR infra-aws#512) removed
#     the ingress rule for TCP 8080 from sg-app-tier on tax-engine's security group. Storefront's
#     checkout calls tax-engine for VAT; new connections now hang (SYN dropped) and time out. netcheck:
#     tax-engine connect timeout, storefront healthy. The incident is an alert.
# =================================================================================================


@scenario("security-group-rule-pruned-tax-engine")
def security_group_rule_pruned_tax_engine() -> dict[str, Any]:
    start = -1200
    sig = "dial tcp 10.20.7.41:8080: i/o timeout"
    sf = ["storefront-1", "storefront-2", "storefront-3"]
    evs = [
        ev(
            "terraform",
            "info",
            "module.tax_engine.aws_security_group_rule.app_tier_8080: Destroying... [id=sgrule-2203918774] (PR infra-aws#512 'remove unused SG rules')",
            at=start - 90,
        ),
        ev(
            "cloudtrail",
            "info",
            '{"eventName":"RevokeSecurityGroupIngress","requestParameters":{"groupId":"sg-0c1d7e tax-engine","ipPermissions":{"items":[{"fromPort":8080,"toPort":8080,"groups":{"items":[{"groupId":"sg-app-tier"}]}}]}},"userIdentity":{"arn":"arn:aws:sts::3021:assumed-role/terraform-ci"}}',
            at=start - 88,
        ),
        ev(
            "storefront",
            "error",
            'level=error msg="tax quote failed" err="Post \\"http://tax-engine.internal:8080/v1/quote\\": '
            + sig
            + '" cart=c_{n}',
            **every(start, -2, 4),
            pods=sf,
        ),
        ev(
            "alb",
            "warn",
            "target group tg-storefront: 5XX count 1{ms} in 1 min",
            **every(start + 60, -60, 60),
        ),
        ev(
            "tax-engine",
            "info",
            "tax-engine 3.2.1 healthy; requests in last minute: 0",
            **every(start, -60, 120),
        ),
        ev(
            "tax-engine", "info", "tax-engine 3.2.1 started (2027 VAT tables)", at=-5000
        ),
        ev(
            "recommendations",
            "warn",
            'level=warn msg="model load slow" ms=4{ms}0',
            **every(-7000, -60, 300),
        ),
        ev(
            "storefront",
            "error",
            'level=error msg="tax quote failed" err="422 unknown country code XK"',
            **every(-10500, -10100, 120),
            pods=sf,
        ),
    ]
    spec = simple(
        589,
        start,
        incident("[PagerDuty] CheckoutErrorRateHigh", "checkout", start),
        expected(
            "connect",
            [
                "tax-engine",
                "sg-0c1d7e",
                "security group",
                "sg-app-tier",
                "PR infra-aws#512",
                "aws_security_group_rule.app_tier_8080",
            ],
            sig,
            "PR infra-aws#512 removed 'unused' security-group rules, including tax-engine's ingress rule for TCP 8080 from sg-app-tier. Storefront's connections to tax-engine are now dropped and time out, so every checkout that needs a VAT quote fails. The ALB 5xx alert is the louder symptom; tax-engine itself is healthy (it simply receives nothing); its release, the recommendations warnings and the old country-code error are not the cause.",
            [
                f"storefront: {sig}",
                "cloudtrail: RevokeSecurityGroupIngress port 8080 from sg-app-tier",
                "tax-engine: requests in last minute: 0",
            ],
            "Restore the ingress rule (revert PR infra-aws#512 for tax-engine) and mark it as used in the module.",
        ),
        [bg("storefront", sf, ['level=info msg="GET /cart" status=200 ms={ms}'], 8)],
        evs,
        [svc("storefront", 120, {"500": (0.002, 0.18)}, (0.1, 3.2))],
        [
            gauge(
                "tax_engine_requests_per_second",
                {"service": "tax-engine"},
                45,
                0,
                start,
            )
        ],
        {
            "checkout-errors.md": runbook(
                "CheckoutErrorRateHigh",
                "Checkout errors usually follow a tax table release: roll tax-engine back to the previous version and clear its rate cache.",
            )
        },
    )
    return with_netcheck(
        spec,
        [
            {
                "name": "tax-engine",
                "url": "http://tax-engine.internal/v1/health",
                "fault": {"kind": "connect_timeout"},
            },
            {
                "name": "storefront",
                "url": "https://shop.tidewater.example/healthz",
                "fault": {"kind": "ok"},
            },
        ],
        "tax-engine",
        {
            "tax-engine": {"failed_layer": "connect", "reason": "timeout"},
            "storefront": {"failed_layer": "none", "reason": None},
        },
    )


# =================================================================================================
# 14. Disk full: during yesterday's incident someone set LOG_LEVEL=DEBUG in billing-sync's
#     /etc/billing-sync/env on both VMs to trace a webhook, and never reverted it. DEBUG logs every
#     request and response body to /var/log/billing-sync; the root volume of billing-sync-01 fills
#     and the service cannot write its spool: invoices stop syncing to the accounting system. The
#     incident says "invoices".
# =================================================================================================


@scenario("debug-log-level-left-on-fills-root-volume")
def debug_log_level_left_on_fills_root_volume() -> dict[str, Any]:
    start = -1700
    sig = "No space left on device"
    hosts = ["billing-sync-01", "billing-sync-02"]
    evs = [
        ev(
            "sudo",
            "info",
            "sudo: k.nakamura : TTY=pts/0 ; PWD=/home/k.nakamura ; USER=root ; COMMAND=/usr/bin/sed -i s/LOG_LEVEL=INFO/LOG_LEVEL=DEBUG/ /etc/billing-sync/env (INC-3391 webhook trace)",
            at=-80000,
            pods=hosts,
        ),
        ev(
            "billing-sync",
            "info",
            'DEBUG billing_sync.http: response body from api.xero.example: {"Invoices":[{"InvoiceID":"{n}", ... 48 KB',
            **every(-7000, start, 30),
            pods=hosts,
        ),
        ev(
            "node-exporter",
            "warn",
            "alert DiskSpaceLow billing-sync-01 /: 3% free",
            at=start - 600,
        ),
        ev(
            "billing-sync",
            "error",
            "ERROR billing_sync.spool: could not write /var/spool/billing-sync/inv_{n}.json: [Errno 28] "
            + sig,
            **every(start, -10, 30),
            pods=["billing-sync-01"],
        ),
        ev(
            "systemd-journald",
            "warn",
            "billing-sync-01 systemd-journald[412]: Failed to write entry (22 items, 812 bytes), ignoring: "
            + sig,
            **every(start, -60, 300),
        ),
        ev(
            "accounts-app",
            "error",
            "invoice sync lag 2{ms} min (xero)",
            **every(start + 300, -30, 120),
        ),
        ev(
            "xero-api",
            "warn",
            "rate limit remaining 4{ms}/5000 (minute)",
            **every(-7000, -60, 600),
        ),
        ev(
            "billing-sync",
            "info",
            "INFO billing-sync 1.14.2 restarted by unattended-upgrades (python3.11 security update)",
            at=-5000,
            pods=hosts,
        ),
        ev(
            "billing-sync",
            "error",
            "ERROR billing_sync.http: xero 401 token expired, refreshing",
            **every(-10500, -10100, 150),
            pods=hosts,
        ),
    ]
    return simple(
        590,
        start,
        incident("invoices not showing up in accounting", "invoices", start),
        expected(
            "platform",
            [
                "billing-sync-01",
                "LOG_LEVEL=DEBUG",
                "/etc/billing-sync/env",
                "/var/log/billing-sync",
                "root volume",
                "disk full",
                "INC-3391",
            ],
            sig,
            "During yesterday's INC-3391 someone set LOG_LEVEL=DEBUG in /etc/billing-sync/env to trace a webhook and never reverted it. billing-sync now logs every Xero response body (about 48 KB a line) to /var/log/billing-sync; the root volume of billing-sync-01 is full and the service cannot write its spool files, so invoices stop syncing. The accounts-app lag is the victim; Xero rate-limit notices, the unattended-upgrades restart and the old 401 token refresh are not the cause.",
            [
                f"billing-sync-01: [Errno 28] {sig}",
                "node-exporter: DiskSpaceLow billing-sync-01 /: 3% free",
                "sudo: LOG_LEVEL=INFO -> DEBUG (INC-3391)",
            ],
            "Set LOG_LEVEL=INFO again, restart billing-sync, truncate and compress the debug logs, and add a size-based logrotate rule.",
        ),
        [
            bg(
                "billing-sync",
                hosts,
                ["INFO billing_sync.worker: invoice INV-{n} synced in {ms} ms"],
                8,
                until=start,
            )
        ],
        evs,
        [svc("billing-sync", 3, {"500": (0.0, 0.5)}, (0.2, 0.2))],
        [
            gauge(
                "node_filesystem_avail_bytes",
                {"instance": "billing-sync-01", "mountpoint": "/"},
                2100000000,
                0,
                start,
            )
        ],
        {
            "invoice-sync.md": runbook(
                "Invoices not syncing",
                "Invoice sync stops when the Xero OAuth token expires or Xero's rate limit is hit. Re-authorise the Xero connection from the admin page and wait for the next minute window.",
            )
        },
    )


# =================================================================================================
# 15. Inodes: the PHP app `clinic-portal` moved to php8.3-fpm with a custom session.save_path
#     (/srv/sessions) in its pool file. Debian's phpsessionclean cron only cleans the default
#     /var/lib/php/sessions, so session files are never garbage-collected; 4.1M small files exhaust
#     the inodes of the /srv filesystem with 38 % of its space free. New logins fail. The incident
#     is a user complaint.
# =================================================================================================


@scenario("php-session-files-exhaust-inodes")
def php_session_files_exhaust_inodes() -> dict[str, Any]:
    start = -1500
    sig = "O_RDWR) failed: No space left on device (28)"
    hosts = ["web-portal-01"]
    evs = [
        ev(
            "ansible",
            "info",
            "PLAY RECAP web-portal-01: ok=41 changed=6 (role php83-fpm: pool clinic-portal session.save_path=/srv/sessions) OPS-1904",
            at=-1900000,
        ),
        ev(
            "php-fpm",
            "warn",
            '[07-Dec-2026 11:{n}] WARNING: [pool clinic-portal] child {n} said into stderr: "PHP Warning:  session_start(): open(/srv/sessions/sess_{n}a9f, '
            + sig
            + ' in /srv/clinic-portal/src/Auth/Login.php on line 42"',
            **every(start, -3, 6),
            pods=hosts,
        ),
        ev(
            "node-exporter",
            "warn",
            "alert FilesystemInodesLow web-portal-01 /srv: 0% inodes free (disk 38% free)",
            at=start - 120,
        ),
        ev(
            "nginx",
            "error",
            '[error] 1811#1811: *{n} FastCGI sent in stderr: "PHP message: PHP Fatal error:  Uncaught RuntimeException: session could not be started" while reading response header from upstream, request: "POST /login HTTP/2.0"',
            **every(start + 5, -3, 6),
            pods=hosts,
        ),
        ev(
            "cron",
            "info",
            "CRON[{n}]: (root) CMD ([ -x /usr/lib/php/sessionclean ] && if [ ! -d /run/systemd/system ]; then /usr/lib/php/sessionclean; fi)",
            **every(-7000, -60, 1800),
            pods=hosts,
        ),
        ev(
            "appointments-api",
            "warn",
            "SMS reminder batch delayed 3{ms}s",
            **every(-7000, -60, 600),
        ),
        ev(
            "php-fpm",
            "info",
            "[07-Dec-2026 09:{n}] NOTICE: [pool clinic-portal] reloading: clinic-portal 4.9.0 deployed (video consult links)",
            at=-6400,
            pods=hosts,
        ),
        ev(
            "php-fpm",
            "warn",
            "[07-Dec-2026 08:{n}] WARNING: [pool clinic-portal] server reached pm.max_children setting (40), consider raising it",
            **every(-10500, -10100, 150),
            pods=hosts,
        ),
    ]
    return simple(
        591,
        start,
        incident(
            "patient portal login broken",
            "patient portal",
            start,
            ["'I type my password and it just goes back to the login page'"],
        ),
        expected(
            "platform",
            [
                "web-portal-01",
                "/srv/sessions",
                "inodes",
                "session.save_path",
                "sessionclean",
                "OPS-1904",
                "php-fpm",
            ],
            sig,
            "The move to php8.3-fpm (OPS-1904) set session.save_path to /srv/sessions, but Debian's sessionclean cron only cleans the default directory, so session files are never removed. 4.1M small files have used every inode of /srv while 38 % of its space is free; session_start() cannot create a file and logins fail. nginx's fatal errors are the louder victim; the clinic-portal release, SMS reminder delays and the old max_children warning are not the cause.",
            [
                f"php-fpm: session_start(): open(/srv/sessions/sess_…, {sig}",
                "node-exporter: /srv 0% inodes free, disk 38% free",
                "ansible: session.save_path=/srv/sessions (OPS-1904)",
            ],
            "Delete old session files (find /srv/sessions -mmin +1440 -delete), then enable session GC for the custom path (session.gc_probability or a cron for /srv/sessions).",
        ),
        [
            bg(
                "nginx",
                hosts,
                [
                    '10.0.{ms}.{ms} - - [07/Dec/2026:11:{n} +0000] "GET /appointments HTTP/2.0" 200 {n}'
                ],
                8,
            )
        ],
        evs,
        [svc("clinic-portal", 18, {"500": (0.001, 0.35)}, (0.15, 0.16))],
        [
            gauge(
                "node_filesystem_files_free",
                {"instance": "web-portal-01", "mountpoint": "/srv"},
                90000,
                0,
                start,
            )
        ],
        {
            "portal-login.md": runbook(
                "Portal login loops",
                "A login loop is a cookie problem: check SESSION_COOKIE_DOMAIN after a domain change and ask the patient to clear cookies.",
            )
        },
    )


# =================================================================================================
# 16. Managed database failover: Aurora applied a pending maintenance (engine patch) in its window
#     and failed the writer over to the other instance. subscriptions-api (JVM, on VMs) caches DNS
#     forever (`networkaddress.cache.ttl=-1` in its java.security, copied from a hardening guide), so
#     it keeps connecting to the old writer, now a reader: every write fails with "read-only
#     transaction"; reads work. The incident says "can't change plan".
# =================================================================================================


@scenario("aurora-failover-jvm-dns-cache-read-only")
def aurora_failover_jvm_dns_cache_read_only() -> dict[str, Any]:
    start = -1900
    sig = "cannot execute UPDATE in a read-only transaction"
    hosts = ["subscriptions-api-1", "subscriptions-api-2"]
    evs = [
        ev(
            "rds",
            "info",
            "RDS-EVENT-0071: A failover for the DB cluster subs-prod has completed. New writer: subs-prod-instance-2 (maintenance: Aurora PostgreSQL 15.8 patch)",
            at=start - 30,
        ),
        ev(
            "rds",
            "info",
            "RDS-EVENT-0049: Multi-AZ failover started for subs-prod (pending maintenance applied in the window Mon 11:00-11:30)",
            at=start - 70,
        ),
        ev(
            "subscriptions-api",
            "error",
            "2026-12-07 11:{n}.{ms} ERROR [http-{ms}] o.h.e.j.s.SqlExceptionHelper : ERROR: "
            + sig,
            **every(start, -3, 6),
            pods=hosts,
        ),
        ev(
            "subscriptions-api",
            "info",
            "2026-12-07 06:{n}.{ms} INFO  [main] c.w.subs.Boot : JVM security property networkaddress.cache.ttl=-1 (from /opt/java/conf/security/java.security)",
            at=-7100,
            pods=hosts,
        ),
        ev(
            "web-app",
            "error",
            "PUT /api/subscription/plan -> 500 (subscriptions-api)",
            **every(start + 10, -4, 8),
        ),
        ev(
            "stripe",
            "warn",
            "invoice.payment_failed for cus_{n} (card_declined)",
            **every(-7000, -60, 300),
        ),
        ev(
            "subscriptions-api",
            "info",
            "2026-12-07 06:{n}.{ms} INFO  [main] c.w.subs.Boot : subscriptions-api 7.7.0 started (annual plan discount)",
            at=-7000,
            pods=hosts,
        ),
        ev(
            "subscriptions-api",
            "error",
            "2026-12-07 08:{n}.{ms} ERROR [http-{ms}] c.w.subs.web : Stripe API timeout after 20000ms",
            **every(-10500, -10100, 150),
            pods=hosts,
        ),
    ]
    return simple(
        592,
        start,
        incident("customers can't change plan", "billing settings", start),
        expected(
            "application",
            [
                "subscriptions-api",
                "networkaddress.cache.ttl",
                "subs-prod",
                "aurora failover",
                "dns cache",
                "subs-prod-instance-2",
            ],
            sig,
            "Aurora applied pending maintenance to subs-prod and failed the writer over to subs-prod-instance-2. subscriptions-api's JVM caches DNS forever (networkaddress.cache.ttl=-1 in its java.security), so it still connects to the old writer, now a reader, and every write fails with 'read-only transaction' while reads work. web-app's 500s are the victim, the failover the trigger; the subscriptions-api release, Stripe card declines and the old Stripe timeout are not the cause.",
            [
                f"subscriptions-api: ERROR: {sig}",
                "rds: failover of subs-prod completed, new writer subs-prod-instance-2",
                "subscriptions-api: networkaddress.cache.ttl=-1",
            ],
            "Restart subscriptions-api now; set networkaddress.cache.ttl to 5 s (or use the AWS JDBC wrapper) so the next failover is followed.",
        ),
        [
            bg(
                "subscriptions-api",
                hosts,
                [
                    "2026-12-07 11:{n}.{ms} INFO  [http-{ms}] c.w.subs.web : GET /api/subscription 200 {ms}ms"
                ],
                8,
            )
        ],
        evs,
        [svc("subscriptions-api", 20, {"500": (0.001, 0.25)}, (0.05, 0.06))],
        [
            gauge(
                "aws_rds_writer_instance",
                {"cluster": "subs-prod", "instance": "subs-prod-instance-1"},
                1,
                0,
                start - 30,
            )
        ],
        {
            "plan-change.md": runbook(
                "Plan changes failing",
                "Plan changes fail when Stripe declines the proration invoice. Look up the customer in Stripe, retry the invoice, and ask the customer to update their card.",
            )
        },
    )


STAGES = {
    "push-gateway-presence-map-leak-oomkilled": ("runtime", "OOMKilled"),
    "hpa-max-raised-past-rds-connection-slots": ("startup", "CrashLoopBackOff"),
    "containerd2-nofile-soft-limit-image-resizer": ("runtime", "TooManyOpenFiles"),
    "egress-default-deny-without-dns-rule": ("runtime", "NetworkPolicyDenied"),
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
