"""Writes the seventh held-out scenario set, bench/heldout7 (issue 21 item 7): `python bench/heldout7/_build.py`.

New incidents, none of them in the bundled set or in bench/heldout … bench/heldout6. As there,
everything that matters is written by hand below (incident, expected answer, runbooks, kubectl
answers, the log lines that carry the fault and the red herrings); only the bulk comes from code:
background request lines and 2 h of metric points (bench/heldout/_build.py's `logs` and `metrics`,
thinned to one point every 30 s and one background line every 8 s or more to keep the set small),
a namespace's tables (bench/heldout2/_build.py's `namespace`), describe layouts
(bench/heldout3/_build.py) and the pod helpers of bench/heldout5/_build.py, each with a fixed seed per
scenario (201-216). The author read neither the planner (`reasoning/`) nor the engine
(`diagnosis/engine/`, `docs/engine.md`), nor any score file. Stdlib only.
"""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


h5 = _load("heldout5_build", HERE.parent / "heldout5" / "_build.py")
base = h5.base
h2 = h5.h2
h3 = h5.h3

table = base.table
events = base.events
runbook = base.runbook
when = base.when
app = h5.app
pod_name = h5.pod_name
namespace = h5.namespace
ev = h5.ev
container_text = h5.container_text
deployment_describe = h5.deployment_describe
describe_pod = h5.describe_pod
podlog = h5.podlog
running = h5.running
crashloop = h5.crashloop
waiting = h5.waiting
ips_of = h5.ips_of
node_describe = h5.node_describe
event_block = h5.event_block
hpa_table = h3.hpa_table
NOT_READY = h5.NOT_READY
DS_HEADER = h5.DS_HEADER
NODES_FRA = h5.NODES_FRA
NODES_PDX = h5.NODES_PDX
NODES_SYD = h5.NODES_SYD

NODES_DUB = [
    ("ip-10-52-1-33.eu-west-1.compute.internal", "Ready", "10.52.1.33"),
    ("ip-10-52-2-140.eu-west-1.compute.internal", "Ready", "10.52.2.140"),
    ("ip-10-52-3-71.eu-west-1.compute.internal", "Ready", "10.52.3.71"),
]

STEP_S = (
    30  # metric points kept: one every 30 s (the shared generator makes one every 15 s)
)

SCENARIOS: dict[str, Any] = {}


def scenario(slug: str):
    def register(fn):
        SCENARIOS[slug] = fn
        return fn

    return register


def bg(
    service: str, pods: list[str], messages: list[str], every_s: float, **kw: Any
) -> dict[str, Any]:
    """Background lines of one service over the last hour, at most one every 8 s."""
    return {
        "service": service,
        "pods": pods,
        "messages": messages,
        "every_s": max(every_s, 8.0),
        "from": kw.pop("from", -3600),
        **kw,
    }


def logs(
    *, seed: int, background: list[dict[str, Any]], events: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    return base.logs(seed=seed, background=background, events=events)


def metrics(
    services: list[dict[str, Any]],
    *,
    start: int,
    seed: int,
    gauges: list[dict[str, Any]] = (),
    ramps: list[dict[str, Any]] = (),
) -> dict[str, Any]:
    """The shared generator's series thinned to one point every STEP_S, plus `ramps`: gauges that
    move linearly from `before` to `after` between `from` and `to` (noise as a share, seeded)."""
    out = base.metrics(services, start=start, seed=seed, gauges=gauges)
    for s in out["series"]:
        s["points"] = [p for p in s["points"] if int(p[0]) % STEP_S == 0]
    rng = random.Random(seed + 1000)
    for r in ramps:
        pts = []
        for off in range(-base.HISTORY_S, 1, STEP_S):
            if off <= r["from"]:
                v = r["before"]
            elif off >= r["to"]:
                v = r["after"]
            else:
                share = (off - r["from"]) / (r["to"] - r["from"])
                v = r["before"] + (r["after"] - r["before"]) * share
            noise = r.get("noise", 0.02)
            v = v * rng.uniform(1 - noise, 1 + noise) if v else 0.0
            if "cap" in r:
                v = min(v, r["cap"])
            pts.append([off, round(v, 3)])
        out["series"].append(
            {"name": r["name"], "labels": r["labels"], "type": "gauge", "points": pts}
        )
    return {"step_s": STEP_S, "series": out["series"]}


def incident(
    title: str, service: str, start: int, symptoms: list[str] = ()
) -> dict[str, Any]:
    return {
        "title": title,
        "service": service,
        "severity": "sev2",
        "symptoms": list(symptoms),
        "description": "",
        "started_offset_s": start,
    }


def expected(
    layer: str,
    components: list[str],
    signal: str,
    cause: str,
    evidence: list[str],
    fix: str,
) -> dict[str, Any]:
    return {
        "root_cause_layer": layer,
        "root_cause_component": components,
        "root_cause_signal": signal,
        "root_cause": cause,
        "evidence": evidence,
        "remediation": fix,
    }


def simple(
    seed: int,
    start: int,
    inc: dict[str, Any],
    exp: dict[str, Any],
    bgs: list[dict[str, Any]],
    evs: list[dict[str, Any]],
    services: list[dict[str, Any]],
    gauges: list[dict[str, Any]],
    books: dict[str, str],
    ramps: list[dict[str, Any]] = (),
) -> dict[str, Any]:
    return {
        "incident": inc,
        "expected": exp,
        "logs": logs(seed=seed, background=bgs, events=evs),
        "metrics": metrics(
            services, start=start, seed=seed, gauges=gauges, ramps=ramps
        ),
        "runbooks": books,
    }


def ds_row(
    name: str,
    n: int,
    ready: int,
    age: str,
    container: str,
    image: str,
    selector: str,
) -> list[str]:
    return [
        name,
        str(n),
        str(n),
        str(ready),
        str(n),
        str(ready),
        "<none>",
        age,
        container,
        image,
        selector,
    ]


def deploy_text(
    a: dict[str, Any],
    ns: str,
    *,
    ready: int,
    revision: int,
    container: str,
    old_rs: str = "<none>",
    strategy: str = "RollingUpdate",
    events_rows: list[tuple[str, str, str, str, str]] = (),
    conditions: list[tuple[str, str, str]] | None = None,
) -> str:
    n = a["desired"]
    return deployment_describe(
        a["name"],
        ns,
        replicas=f"{n} desired | {n} updated | {n} total | {ready} available | {n - ready} unavailable",
        revision=revision,
        containers=container,
        conditions=conditions
        or [
            (
                "Available",
                "True" if ready else "False",
                "MinimumReplicasAvailable" if ready else "MinimumReplicasUnavailable",
            ),
            (
                "Progressing",
                "True",
                "NewReplicaSetAvailable" if ready == n else "ReplicaSetUpdated",
            ),
        ],
        old_rs=old_rs,
        new_rs=f"{a['name']}-{a['rs']} ({n}/{n} replicas created)",
        strategy=strategy,
        events_rows=events_rows,
    )


# =================================================================================================
# 1. A liveness probe with a 1 s timeout on a JVM whose young-GC pauses grew with month-end load:
#    kubelet kills healthy account-history pods mid-request. The incident says "banking app".
# =================================================================================================


@scenario("liveness-timeout-gc-pauses")
def liveness_timeout_gc_pauses() -> dict[str, Any]:
    start = -1380
    ns = "retail-banking"
    img = "registry.gitlab.com/northbank/account-history:9.14.2"
    ah = app(
        "account-history",
        image=img,
        port=8080,
        rs="6c8d7f9b5",
        cluster_ip="10.100.44.18",
        pods=[
            ("d4kxw", "0/1", "Running", "7 (48s ago)", "5d", 0),
            ("h9tqm", "1/1", "Running", "6 (3m12s ago)", "5d", 1),
            ("p2vzn", "0/1", "Running", "8 (21s ago)", "5d", 2),
            ("w7lcs", "1/1", "Running", "5 (5m40s ago)", "5d", 0),
        ],
    )
    bff = app(
        "mobile-bff",
        image="registry.gitlab.com/northbank/mobile-bff:40.1.0",
        port=3000,
        rs="58f6c9d7b",
        cluster_ip="10.100.44.3",
        pods=[
            ("b3nrx", "1/1", "Running", "0", "52m", 1),
            ("k8zqf", "1/1", "Running", "0", "52m", 2),
        ],
    )
    k8s = namespace(ns, NODES_DUB, [ah, bff], seed=201)
    probe = (
        "    Liveness:       http-get http://:8080/actuator/health/liveness delay=30s timeout=1s period=5s #success=1 #failure=3\n"
        "    Readiness:      http-get http://:8080/actuator/health/readiness delay=10s timeout=1s period=5s #success=1 #failure=3\n"
    )
    ips = ips_of(k8s, ns)
    for sfx, _, _, restarts, _, _ in ah["pods"]:
        name = pod_name(ah, sfx)
        n = int(restarts.split()[0])
        describe_pod(
            k8s,
            ns,
            ah,
            sfx,
            NODES_DUB,
            state=(
                "    State:          Running\n      Started:      "
                + when(-48 if sfx == "d4kxw" else -200)
                + "\n    Last State:     Terminated\n      Reason:       Error\n      Exit Code:    143\n"
                + f"      Started:      {when(-520)}\n      Finished:     {when(-50)}"
            ),
            started=-432000,
            ready=sfx in ("h9tqm", "w7lcs"),
            restarts=n,
            probes=probe,
            extra="    Limits:\n      memory:  4Gi\n    Requests:\n      cpu:     1\n      memory:  4Gi\n    Environment:\n      JAVA_TOOL_OPTIONS:  -XX:+UseG1GC -XX:MaxRAMPercentage=80\n",
            events_rows=[
                (
                    "Warning",
                    "Unhealthy",
                    f"50s (x{3 * n + 9} over 22m)",
                    "kubelet",
                    f'Liveness probe failed: Get "http://{ips[name]}:8080/actuator/health/liveness": context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
                ),
                (
                    "Normal",
                    "Killing",
                    f"50s (x{n} over 22m)",
                    "kubelet",
                    "Container account-history failed liveness probe, will be restarted",
                ),
                (
                    "Warning",
                    "Unhealthy",
                    f"45s (x{2 * n + 4} over 22m)",
                    "kubelet",
                    f'Readiness probe failed: Get "http://{ips[name]}:8080/actuator/health/readiness": context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
                ),
                (
                    "Normal",
                    "Pulled",
                    f"48s (x{n} over 22m)",
                    "kubelet",
                    f'Container image "{img}" already present on machine',
                ),
            ],
        )
    ahp = [pod_name(ah, s[0]) for s in ah["pods"]]
    k8s[f"kubectl describe deployments account-history -n {ns}"] = deploy_text(
        ah,
        ns,
        ready=2,
        revision=31,
        container=container_text(
            "account-history",
            img,
            8080,
            limits="memory:  4Gi",
            requests="cpu:      1\n  memory:   4Gi",
            liveness="http-get http://:8080/actuator/health/liveness delay=30s timeout=1s period=5s #success=1 #failure=3",
            readiness="http-get http://:8080/actuator/health/readiness delay=10s timeout=1s period=5s #success=1 #failure=3",
            env={"JAVA_TOOL_OPTIONS": "-XX:+UseG1GC -XX:MaxRAMPercentage=80"},
        ),
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "52m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/mobile-bff",
                "Scaled up replica set mobile-bff-58f6c9d7b to 2",
            ),
            *[
                (
                    "50s (x14 over 22m)",
                    "Warning",
                    "Unhealthy",
                    f"Pod/{p}",
                    f'Liveness probe failed: Get "http://{ips[p]}:8080/actuator/health/liveness": context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
                )
                for p in ahp
            ],
            *[
                (
                    "48s (x6 over 22m)",
                    "Normal",
                    "Killing",
                    f"Pod/{p}",
                    "Container account-history failed liveness probe, will be restarted",
                )
                for p in ahp
            ],
        ]
    )
    k8s[f"kubectl logs {ahp[0]} -n {ns} --previous --tail=1000"] = podlog(
        [
            (
                -520,
                "INFO  o.s.b.StartupInfoLogger : Started AccountHistoryApplication in 24.8 seconds",
            ),
            (
                -400,
                "INFO  [gc] GC(212) Pause Young (Normal) (G1 Evacuation Pause) 3102M->1181M(3276M) 1412.7ms",
            ),
            (
                -300,
                "INFO  statement export for 18231 accounts, month-end batch 2026-11",
            ),
            (
                -170,
                "INFO  [gc] GC(219) Pause Young (Normal) (G1 Evacuation Pause) 3188M->1240M(3276M) 2876.3ms",
            ),
            (
                -95,
                "INFO  [gc] GC(223) Pause Young (Concurrent Start) (G1 Humongous Allocation) 3240M->1302M(3276M) 3411.9ms",
            ),
            (
                -52,
                "INFO  o.s.b.a.l.ApplicationShutdown : Received SIGTERM, commencing graceful shutdown",
            ),
            (
                -51,
                "WARN  o.a.c.c.StandardService : 38 requests still in flight at shutdown, aborting",
            ),
        ]
    )
    bffp = [pod_name(bff, s[0]) for s in bff["pods"]]
    evs = [
        ev(
            "account-history",
            "info",
            "[gc] GC({n}) Pause Young (Normal) (G1 Evacuation Pause) 3{ms}M->1{ms}M(3276M) 2{ms}.4ms",
            **{"from": start - 300, "to": -5, "every_s": 45},
            pods=ahp,
        ),
        ev(
            "account-history",
            "info",
            "[gc] GC({n}) Pause Young (Normal) (G1 Evacuation Pause) 2{ms}M->9{ms}M(3276M) 3{ms}.1ms",
            **{"from": -3600, "to": start - 300, "every_s": 60},
            pods=ahp,
        ),
        ev(
            "account-history",
            "warn",
            "Received SIGTERM, commencing graceful shutdown; {ms} requests still in flight",
            **{"from": start + 60, "to": -40, "every_s": 90},
            pods=ahp,
        ),
        ev(
            "mobile-bff",
            "error",
            "GET /v3/accounts/{n}/transactions 502: upstream account-history reset connection (ECONNRESET)",
            **{"from": start + 30, "to": -2, "every_s": 2.5},
            pods=bffp,
        ),
        ev(
            "mobile-bff",
            "info",
            "mobile-bff 40.1.0 started (biometric login banner)",
            at=start - 1700,
            pods=bffp,
        ),
        ev(
            "statement-batch",
            "info",
            "month-end statement run 2026-11 started: 1.8M accounts, 24 workers reading account-history",
            at=start - 420,
        ),
        ev(
            "card-controls",
            "warn",
            "issuer callback slow: {ms}0ms for card status update",
            **{"from": -3500, "to": -10, "every_s": 240},
        ),
        ev(
            "account-history",
            "error",
            "HikariPool-1 - Connection is not available, request timed out after 30000ms",
            **{"from": -6900, "to": -6600, "every_s": 40},
            pods=["account-history-5b9d8c7f4-old2q"],
        ),
    ]
    return {
        "incident": incident(
            "account balance screen failing in the app", "banking app", start
        ),
        "expected": expected(
            "application",
            [
                "deployment/account-history",
                "account-history",
                "replicaset/account-history-6c8d7f9b5",
            ],
            "Liveness probe failed",
            "account-history's liveness probe has a 1 s timeout (period 5 s, 3 failures). The month-end statement batch raised its allocation rate and G1 young pauses grew to 2-3.5 s, so the probe times out during pauses and the kubelet kills healthy pods mid-request (exit 143 after SIGTERM, 5-8 restarts each in 22 min); the restarts drop readiness and mobile-bff gets connection resets. The pods are not out of memory and not crashing; mobile-bff's 502s and release, the statement batch (a trigger), the card-controls warnings and the old Hikari timeout are not the cause.",
            [
                "Liveness probe failed: context deadline exceeded (Client.Timeout exceeded while awaiting headers); Container account-history failed liveness probe, will be restarted",
                "Liveness: timeout=1s period=5s #failure=3",
                "[gc] Pause Young (G1 Evacuation Pause) 2876.3ms / 3411.9ms",
            ],
            "Give the liveness probe a realistic timeout and failure threshold (timeoutSeconds 5, failureThreshold 6) or a dedicated lightweight port; tune the heap/GC for the month-end load.",
        ),
        "kubernetes": k8s,
        "logs": logs(
            seed=201,
            background=[
                bg(
                    "account-history",
                    ahp,
                    [
                        "GET /v2/accounts/{n}/history 200 {ms}ms",
                        "GET /actuator/health/liveness 200 2ms",
                    ],
                    8,
                ),
                bg(
                    "mobile-bff",
                    bffp,
                    ["GET /v3/accounts/{n}/transactions 200 {ms}ms"],
                    8,
                ),
            ],
            events=evs,
        ),
        "metrics": metrics(
            [
                {
                    "name": "mobile-bff",
                    "rps": 90,
                    "errors": {"502": (0.001, 0.18)},
                    "latency": (0.09, 0.4),
                },
                {
                    "name": "account-history",
                    "rps": 140,
                    "rps_after": 260,
                    "errors": {"503": (0.0, 0.05)},
                    "latency": (0.03, 0.6),
                    "change_at": start - 420,
                },
            ],
            start=start,
            seed=201,
            gauges=[
                {
                    "name": "jvm_gc_pause_seconds_max",
                    "labels": {
                        "service": "account-history",
                        "gc": "G1 Young Generation",
                    },
                    "before": 0.04,
                    "after": 3.1,
                    "change_at": start - 300,
                },
                {
                    "name": "jvm_memory_used_bytes",
                    "labels": {"service": "account-history", "area": "heap"},
                    "before": 2.1e9,
                    "after": 2.6e9,
                },
            ],
        ),
        "runbooks": {
            "account-history-restarts.md": runbook(
                "account-history pods restarting",
                "Restarts of account-history are almost always memory: check for OOMKilled and raise the memory limit to 6Gi (and MaxRAMPercentage accordingly).",
            )
        },
    }


# =================================================================================================
# 2. A log agent DaemonSet eating the nodes' CPU: a fluent-bit config change adds a multiline
#    parser that re-scans its buffer; fluent-bit has no CPU limit and takes ~3.7 cores per node.
#    Checkout pods are starved. The incident says "checkout".
# =================================================================================================


@scenario("log-agent-daemonset-cpu")
def log_agent_daemonset_cpu() -> dict[str, Any]:
    start = -1140
    ns = "shop"
    co = app(
        "checkout-api",
        image="ghcr.io/lindqvist/checkout-api:27.4.0",
        port=8080,
        rs="7b5d9c6f8",
        cluster_ip="10.100.61.12",
        desired=6,
        pods=[
            ("c2fwn", "1/1", "Running", "0", "3h", 0),
            ("f6lqr", "1/1", "Running", "0", "3h", 1),
            ("j4xzt", "1/1", "Running", "0", "3h", 2),
            ("n8kbd", "1/1", "Running", "0", "14m", 0),
            ("r3vmp", "1/1", "Running", "0", "14m", 1),
            ("t5hgc", "1/1", "Running", "0", "14m", 2),
        ],
    )
    pay = app(
        "payment-gateway",
        image="ghcr.io/lindqvist/payment-gateway:11.0.3",
        port=8080,
        rs="6f9c8b7d5",
        cluster_ip="10.100.61.30",
        pods=[
            ("g5tnq", "1/1", "Running", "0", "9d", 0),
            ("x9wrk", "1/1", "Running", "0", "9d", 2),
        ],
    )
    k8s = namespace(ns, NODES_FRA, [co, pay], seed=202, extra_namespaces=("logging",))
    fb_img = "cr.fluentbit.io/fluent/fluent-bit:3.1.9"
    fbp = ["fluent-bit-5kq2x", "fluent-bit-9vhtl", "fluent-bit-zr7mc"]
    k8s["kubectl get daemonsets -n logging -o wide"] = table(
        [
            DS_HEADER,
            ds_row(
                "fluent-bit",
                3,
                3,
                "610d",
                "fluent-bit",
                fb_img,
                "app.kubernetes.io/name=fluent-bit",
            ),
        ]
    )
    k8s["kubectl get pods -n logging -o wide --show-labels"] = base.pods(
        [
            (
                p,
                "1/1",
                "Running",
                "0",
                "21m",
                NODES_FRA[i][2],
                NODES_FRA[i][0],
                "app.kubernetes.io/name=fluent-bit,controller-revision-hash=84c6f7d9b,pod-template-generation=23",
            )
            for i, p in enumerate(fbp)
        ]
    )
    k8s["kubectl get configmaps -n logging"] = table(
        [
            ["NAME", "DATA", "AGE"],
            ["fluent-bit", "3", "610d"],
            ["kube-root-ca.crt", "1", "610d"],
        ]
    )
    k8s[
        "kubectl describe configmaps fluent-bit -n logging"
    ] = """Name:         fluent-bit
Namespace:    logging
Labels:       app.kubernetes.io/name=fluent-bit
Annotations:  meta.helm.sh/release-name: fluent-bit

Data
====
custom_parsers.conf:
----
[MULTILINE_PARSER]
    name          java_multiline
    type          regex
    flush_timeout 60000
    rule      "start_state"   "/^(\\d{4}-\\d{2}-\\d{2}.*)(.*)$/"  "cont"
    rule      "cont"          "/^(\\s+at\\s.*|\\s*Caused by:.*|.*)$/" "cont"

fluent-bit.conf:
----
[SERVICE]
    Flush         1
    Log_Level     info
[INPUT]
    Name              tail
    Path              /var/log/containers/*.log
    multiline.parser  docker, cri, java_multiline
    Buffer_Max_Size   32MB
[OUTPUT]
    Name   opensearch
    Match  kube.*
    Host   logs.opensearch.internal

BinaryData
====

Events:  <none>
"""
    for i, p in enumerate(fbp):
        k8s[f"kubectl describe pods {p} -n logging"] = h3.pod_describe(
            p,
            "logging",
            node=f"{NODES_FRA[i][0]}/{NODES_FRA[i][2]}",
            owner="DaemonSet/fluent-bit",
            labels="app.kubernetes.io/name=fluent-bit,controller-revision-hash=84c6f7d9b,pod-template-generation=23",
            status="Running",
            ip=NODES_FRA[i][2],
            container="fluent-bit",
            image=fb_img,
            state=running(-1260),
            ready=True,
            restarts=0,
            started=-1262,
            qos="BestEffort",
            extra="    Limits:         <none>\n    Requests:       <none>\n",
            events_rows=[
                (
                    "Normal",
                    "Scheduled",
                    "21m",
                    "default-scheduler",
                    f"Successfully assigned logging/{p} to {NODES_FRA[i][0]}",
                ),
                ("Normal", "Started", "21m", "kubelet", "Started container fluent-bit"),
            ],
        )
    k8s["kubectl logs fluent-bit-5kq2x -n logging --tail=1000"] = podlog(
        [
            (
                -1258,
                "[2026/12/05 13:39:02] [ info] [fluent bit] version=3.1.9, commit=431fa79ae2, pid=1",
            ),
            (
                -1257,
                "[2026/12/05 13:39:03] [ info] [input:tail:tail.0] multiline core started",
            ),
            *[
                (
                    -1200 + 90 * k,
                    f"[2026/12/05 13:{40 + k * 90 // 60:02d}:{(k * 30) % 60:02d}] [ warn] [input:tail:tail.0] multiline flush backlog {41000 + 913 * k} lines, parser java_multiline re-scanning buffer (32MB)",
                )
                for k in range(13)
            ],
            (
                -60,
                "[2026/12/05 13:59:00] [ warn] [engine] failed to flush chunk '1-1764943140.482.flb', retry in 9 seconds: task_id=12, input=tail.0 > output=opensearch.0",
            ),
        ]
    )
    for i, node in enumerate(NODES_FRA):
        k8s[f"kubectl describe nodes {node[0]}"] = node_describe(
            node[0],
            node[2],
            pods_rows=[
                ("logging", fbp[i]),
                *[(ns, pod_name(co, s[0])) for s in co["pods"] if s[5] == i],
            ],
            capacity=("4", "16203612Ki", "58"),
        )
    k8s[f"kubectl get horizontalpodautoscalers -n {ns}"] = hpa_table(
        [
            (
                "checkout-api",
                "Deployment/checkout-api",
                "cpu: 92%/70%",
                "3",
                "12",
                "6",
                "300d",
            )
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "14m",
                "Normal",
                "SuccessfulRescale",
                "HorizontalPodAutoscaler/checkout-api",
                "New size: 6; reason: cpu resource utilization (percentage of request) above target",
            ),
            (
                "14m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/checkout-api",
                "Scaled up replica set checkout-api-7b5d9c6f8 to 6 from 3",
            ),
        ]
    )
    cop = [pod_name(co, s[0]) for s in co["pods"]]
    pp = [pod_name(pay, s[0]) for s in pay["pods"]]
    evs = [
        ev(
            "argocd",
            "info",
            "application logging/fluent-bit synced to chart 0.47.10 (values: add java_multiline parser for stack traces)",
            at=start - 160,
        ),
        ev(
            "fluent-bit",
            "warn",
            "[input:tail:tail.0] multiline flush backlog {n} lines, parser java_multiline re-scanning buffer (32MB)",
            **{"from": start - 100, "to": -3, "every_s": 20},
            pods=fbp,
        ),
        ev(
            "checkout-api",
            "warn",
            "POST /v2/checkout slow: {ms}00ms (cpu throttled {ms}% of periods)",
            **{"from": start + 10, "to": -2, "every_s": 6},
            pods=cop,
        ),
        ev(
            "checkout-api",
            "error",
            "POST /v2/checkout 504: payment-gateway call exceeded deadline 3000ms",
            **{"from": start + 60, "to": -2, "every_s": 5},
            pods=cop,
        ),
        ev(
            "payment-gateway",
            "error",
            "authorise call cancelled by client after {ms}00ms (context canceled)",
            **{"from": start + 60, "to": -2, "every_s": 4},
            pods=pp,
        ),
        ev(
            "checkout-api",
            "info",
            "checkout-api 27.4.0 started (gift-card split payments)",
            at=start - 2300,
            pods=cop[:3],
        ),
        ev(
            "recommendations",
            "warn",
            "model cache miss ratio {ms}% above 30%",
            **{"from": -3500, "to": -10, "every_s": 200},
        ),
        ev(
            "checkout-api",
            "error",
            "redis: i/o timeout reading from cart-redis:6379",
            **{"from": -7000, "to": -6800, "every_s": 25},
            pods=["checkout-api-6d8c7b5f9-old1k"],
        ),
    ]
    return {
        "incident": incident(
            "checkout really slow",
            "checkout",
            start,
            ["pages take 10+ seconds to load"],
        ),
        "expected": expected(
            "platform",
            ["daemonset/fluent-bit", "fluent-bit", "configmap/fluent-bit"],
            "re-scanning buffer",
            "A fluent-bit chart change 21 min ago added a java_multiline parser with a catch-all continuation rule and a 60 s flush timeout: on every node the agent keeps re-scanning its 32MB buffer and, having no CPU limit or request (BestEffort), takes most of the 4-core nodes. checkout-api and payment-gateway pods are starved of CPU: checkout is slow and times out, and the HPA's scale-out to 6 (a trigger, not the cause) cannot help. checkout-api's release, the recommendations warnings and the old Redis timeouts are unrelated.",
            [
                "fluent-bit: multiline flush backlog … parser java_multiline re-scanning buffer (32MB)",
                "fluent-bit pods: Limits <none>, Requests <none> (BestEffort), restarted with the new config 21 min ago",
                "container_cpu_usage_cores fluent-bit 0.05 -> 3.6 per node; checkout-api cpu throttled",
            ],
            "Roll back the fluent-bit values (or fix the continuation rule), then give the DaemonSet CPU requests and a limit.",
        ),
        "kubernetes": k8s,
        "logs": logs(
            seed=202,
            background=[
                bg(
                    "checkout-api",
                    cop,
                    ["POST /v2/checkout 200 {ms}ms", "GET /v2/cart/{n} 200 {ms}ms"],
                    8,
                ),
                bg("payment-gateway", pp, ["authorise {n} ok in {ms}ms"], 10),
            ],
            events=evs,
        ),
        "metrics": metrics(
            [
                {
                    "name": "checkout-api",
                    "rps": 45,
                    "errors": {"504": (0.001, 0.12)},
                    "latency": (0.18, 4.5),
                },
                {
                    "name": "payment-gateway",
                    "rps": 40,
                    "errors": {"499": (0.0, 0.1)},
                    "latency": (0.2, 1.4),
                },
            ],
            start=start,
            seed=202,
            gauges=[
                *[
                    {
                        "name": "container_cpu_usage_cores",
                        "labels": {
                            "namespace": "logging",
                            "pod": p,
                            "container": "fluent-bit",
                        },
                        "before": 0.05,
                        "after": 3.6,
                        "change_at": start - 120,
                    }
                    for p in fbp
                ],
                {
                    "name": "container_cpu_cfs_throttled_ratio",
                    "labels": {"namespace": ns, "container": "checkout-api"},
                    "before": 0.02,
                    "after": 0.71,
                    "change_at": start - 60,
                },
            ],
        ),
        "runbooks": {
            "checkout-slow.md": runbook(
                "Checkout slow",
                "If checkout p95 is above 2 s, the checkout-api HPA is not keeping up: raise maxReplicas to 20 and check payment-gateway's acquirer latency dashboard.",
            )
        },
    }


# =================================================================================================
# 3. A Service with sessionAffinity: ClientIP behind an in-cluster router: every request reaches the
#    premium-engine pod the router's single IP hashes to, which saturates while five others idle.
#    The incident says "premium calculator".
# =================================================================================================


@scenario("session-affinity-one-pod")
def session_affinity_one_pod() -> dict[str, Any]:
    start = -1260
    ns = "underwriting"
    img = "quay.io/helvetia-labs/premium-engine:5.2.0"
    pe = app(
        "premium-engine",
        image=img,
        port=8080,
        rs="5f8c6d9b7",
        cluster_ip="10.100.73.40",
        desired=6,
        pods=[
            ("b7qkm", "1/1", "Running", "0", "6d", 0),
            ("f3wzr", "1/1", "Running", "0", "6d", 1),
            ("h8nct", "1/1", "Running", "0", "6d", 2),
            ("m2xpl", "0/1", "Running", "1 (6m ago)", "6d", 0),
            ("s5vdj", "1/1", "Running", "0", "6d", 1),
            ("z9gtb", "1/1", "Running", "0", "6d", 2),
        ],
    )
    rt = app(
        "quote-router",
        image="quay.io/helvetia-labs/quote-router:2.8.1",
        port=8000,
        rs="7c4b9f6d8",
        cluster_ip="10.100.73.9",
        pods=[("k6rwf", "1/1", "Running", "0", "11h", 1)],
    )
    portal = app(
        "broker-portal",
        image="quay.io/helvetia-labs/broker-portal:63.0.2",
        port=3000,
        rs="6b9d7c5f8",
        cluster_ip="10.100.73.2",
        pods=[
            ("a4hzn", "1/1", "Running", "0", "47m", 0),
            ("q2lbv", "1/1", "Running", "0", "47m", 2),
        ],
    )
    k8s = namespace(ns, NODES_SYD, [pe, rt, portal], seed=203)
    ips = ips_of(k8s, ns)
    pep = [pod_name(pe, s[0]) for s in pe["pods"]]
    hot = pep[3]
    rtp = pod_name(rt, "k6rwf")
    k8s[
        f"kubectl describe services premium-engine -n {ns}"
    ] = f"""Name:                     premium-engine
Namespace:                {ns}
Labels:                   app=premium-engine
Annotations:              meta.helm.sh/release-name: premium-engine
Selector:                 app=premium-engine
Type:                     ClusterIP
IP Family Policy:         SingleStack
IP Families:              IPv4
IP:                       10.100.73.40
IPs:                      10.100.73.40
Port:                     http  80/TCP
TargetPort:               8080/TCP
Endpoints:                {ips[pep[0]]}:8080,{ips[pep[1]]}:8080,{ips[pep[2]]}:8080 + 2 more...
Session Affinity:         ClientIP
Session Affinity Config:  ClientIP timeoutSeconds 10800
Events:                   <none>
"""
    describe_pod(
        k8s,
        ns,
        pe,
        "m2xpl",
        NODES_SYD,
        state=(
            "    State:          Running\n      Started:      "
            + when(-360)
            + "\n    Last State:     Terminated\n      Reason:       OOMKilled\n      Exit Code:    137\n"
            + f"      Started:      {when(-518400)}\n      Finished:     {when(-362)}"
        ),
        started=-518400,
        restarts=1,
        probes="    Readiness:      http-get http://:8080/ready delay=5s timeout=2s period=10s #success=1 #failure=3\n",
        events_rows=[
            (
                "Warning",
                "Unhealthy",
                "20s (x31 over 19m)",
                "kubelet",
                f'Readiness probe failed: Get "http://{ips[hot]}:8080/ready": context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
            ),
        ],
    )
    describe_pod(
        k8s,
        ns,
        pe,
        "b7qkm",
        NODES_SYD,
        state=running(-518400),
        started=-518400,
        ready=True,
        probes="    Readiness:      http-get http://:8080/ready delay=5s timeout=2s period=10s #success=1 #failure=3\n",
    )
    k8s[f"kubectl logs {hot} -n {ns} --tail=1000"] = podlog(
        [
            (
                -1200 + 60 * k,
                f"WARN  rating pool saturated: 32/32 workers busy, queue {400 + 37 * k}, oldest waiting {2 + k // 3}.{k % 10}s",
            )
            for k in range(20)
        ]
    )
    k8s[f"kubectl logs {pep[0]} -n {ns} --tail=1000"] = podlog(
        [
            (
                -1200 + 120 * k,
                "INFO  rating pool: 0/32 workers busy, 0 queued (last 60s: 0 requests)",
            )
            for k in range(10)
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "47m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/broker-portal",
                "Scaled up replica set broker-portal-6b9d7c5f8 to 2",
            ),
            (
                "11h",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/quote-router",
                "Scaled down replica set quote-router-7c4b9f6d8 to 1 from 3",
            ),
            (
                "6m",
                "Warning",
                "BackOff",
                f"Pod/{hot}",
                "Back-off restarting failed container premium-engine in pod " + hot,
            ),
            (
                "20s (x31 over 19m)",
                "Warning",
                "Unhealthy",
                f"Pod/{hot}",
                f'Readiness probe failed: Get "http://{ips[hot]}:8080/ready": context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
            ),
        ]
    )
    portp = [pod_name(portal, s[0]) for s in portal["pods"]]
    evs = [
        ev(
            "premium-engine",
            "warn",
            "rating pool saturated: 32/32 workers busy, queue {n}",
            **{"from": start, "to": -3, "every_s": 15},
            pods=[hot],
        ),
        ev(
            "premium-engine",
            "info",
            "rating pool: 0/32 workers busy, 0 queued",
            **{"from": start, "to": -3, "every_s": 60},
            pods=[pep[0], pep[1], pep[2], pep[4], pep[5]],
        ),
        ev(
            "quote-router",
            "error",
            "POST /quotes 504: upstream premium-engine.underwriting.svc (10.100.73.40:80) timed out after 8000ms",
            **{"from": start + 30, "to": -2, "every_s": 2.2},
            pods=[rtp],
        ),
        ev(
            "broker-portal",
            "error",
            "quote request failed: 504 from quote-router",
            **{"from": start + 40, "to": -2, "every_s": 3},
            pods=portp,
        ),
        ev(
            "broker-portal",
            "info",
            "broker-portal 63.0.2 started (new motor-insurance form)",
            at=start - 1600,
            pods=portp,
        ),
        ev(
            "premium-engine",
            "warn",
            "JVM heap 91% after GC on rating cache warm-up",
            at=-380,
            pods=[hot],
        ),
        ev(
            "policy-docs",
            "warn",
            "PDF template cache miss for product {n}",
            **{"from": -3500, "to": -10, "every_s": 300},
        ),
        ev(
            "premium-engine",
            "error",
            "rate table reload failed: s3://uw-rates/motor/2026-12.parquet: 403 AccessDenied",
            **{"from": -6500, "to": -6300, "every_s": 50},
            pods=[pep[1]],
        ),
    ]
    return {
        "incident": incident(
            "premium calculator timing out for brokers", "premium calculator", start
        ),
        "expected": expected(
            "connect",
            ["service/premium-engine", "premium-engine"],
            "ClientIP",
            "The premium-engine Service has Session Affinity: ClientIP (timeout 3 h). Since quote-router was scaled down to one replica last night, every request comes from one client IP, so kube-proxy sends all of it to the single premium-engine pod that IP is pinned to (m2xpl): its rating pool is saturated (queue hundreds deep), it fails readiness and was OOM-killed once, while five other pods are idle. quote-router and broker-portal time out. broker-portal's release, the heap warning on the hot pod, the policy-docs warnings and the old rate table error are not the cause.",
            [
                "Service premium-engine: Session Affinity: ClientIP, timeoutSeconds 10800",
                "premium-engine-…-m2xpl: rating pool saturated, 32/32 busy; other pods: 0/32 busy",
                "quote-router: one replica (scaled 3 -> 1), 504 from premium-engine",
            ],
            "Set sessionAffinity: None on the premium-engine Service (the rating is stateless); scaling quote-router back to several replicas only spreads the pinning.",
        ),
        "kubernetes": k8s,
        "logs": logs(
            seed=203,
            background=[
                bg("quote-router", [rtp], ["POST /quotes 200 {ms}ms"], 8, until=start),
                bg(
                    "broker-portal",
                    portp,
                    ["GET /motor/form 200 {ms}ms", "GET /healthz 200 1ms"],
                    10,
                ),
            ],
            events=evs,
        ),
        "metrics": metrics(
            [
                {
                    "name": "quote-router",
                    "rps": 30,
                    "errors": {"504": (0.0, 0.46)},
                    "latency": (0.3, 6.5),
                },
                {
                    "name": "broker-portal",
                    "rps": 20,
                    "errors": {"502": (0.0, 0.3)},
                    "latency": (0.1, 4.0),
                },
            ],
            start=start,
            seed=203,
            gauges=[
                {
                    "name": "premium_engine_busy_workers",
                    "labels": {"service": "premium-engine", "pod": p},
                    "before": 5.0 if p != hot else 6.0,
                    "after": 32.0 if p == hot else 0.0,
                    "cap": 32,
                    "change_at": start - 200,
                }
                for p in pep
            ],
        ),
        "runbooks": {
            "premium-engine-slow.md": runbook(
                "premium-engine slow",
                "premium-engine slowness is JVM memory: when a pod shows heap above 90% or an OOMKill, raise the memory limit to 3Gi and add two replicas.",
            )
        },
    }


# =================================================================================================
# 4. imagePullPolicy: Never: tile-renderer's image is baked into the old nodes' AMI; the cluster
#    autoscaler adds nodes from a new launch template without it, and the pods placed there fail
#    with ErrImageNeverPull. The incident says "maps".
# =================================================================================================


@scenario("image-never-pull-new-node")
def image_never_pull_new_node() -> dict[str, Any]:
    start = -1500
    ns = "geo"
    nodes = [
        *NODES_PDX,
        ("ip-10-90-1-214.us-west-2.compute.internal", "Ready", "10.90.1.214", "27m"),
        ("ip-10-90-3-162.us-west-2.compute.internal", "Ready", "10.90.3.162", "27m"),
    ]
    img = "tile-renderer:3.9.0"
    tr = app(
        "tile-renderer",
        image=img,
        port=8080,
        rs="7d9f5c8b6",
        cluster_ip="10.100.88.14",
        desired=8,
        pods=[
            ("b2mxk", "1/1", "Running", "0", "12d", 0),
            ("d7qlw", "1/1", "Running", "0", "12d", 1),
            ("g4zrt", "1/1", "Running", "0", "12d", 2),
            ("k9vnp", "0/1", "ErrImageNeverPull", "0", "25m", 3),
            ("p3hcs", "0/1", "ErrImageNeverPull", "0", "25m", 3),
            ("t6wbf", "0/1", "ErrImageNeverPull", "0", "25m", 4),
            ("w8jkq", "0/1", "ErrImageNeverPull", "0", "25m", 4),
            ("x5rgd", "0/1", "ErrImageNeverPull", "0", "25m", 4),
        ],
    )
    mw = app(
        "maps-web",
        image="123456789012.dkr.ecr.us-west-2.amazonaws.com/maps-web:15.6.0",
        port=3000,
        rs="5c7b8d9f6",
        cluster_ip="10.100.88.3",
        pods=[
            ("a3ktz", "1/1", "Running", "0", "38m", 0),
            ("r7nfw", "1/1", "Running", "0", "38m", 1),
        ],
    )
    k8s = namespace(ns, nodes, [tr, mw], seed=204)
    trp = [pod_name(tr, s[0]) for s in tr["pods"]]
    msg = f'Container image "{img}" is not present with pull policy of Never'
    for sfx, _, status, _, _, _ in tr["pods"]:
        if status != "ErrImageNeverPull":
            continue
        name = pod_name(tr, sfx)
        node = nodes[next(p[5] for p in tr["pods"] if p[0] == sfx)][0]
        describe_pod(
            k8s,
            ns,
            tr,
            sfx,
            nodes,
            status="Pending",
            state=waiting("ErrImageNeverPull"),
            started=-1490,
            conditions=NOT_READY,
            extra="    Image Pull Policy:  Never\n",
            events_rows=[
                (
                    "Normal",
                    "Scheduled",
                    "25m",
                    "default-scheduler",
                    f"Successfully assigned {ns}/{name} to {node}",
                ),
                ("Warning", "ErrImageNeverPull", "30s (x120 over 25m)", "kubelet", msg),
                (
                    "Warning",
                    "Failed",
                    "30s (x120 over 25m)",
                    "kubelet",
                    "Error: ErrImageNeverPull",
                ),
            ],
        )
    describe_pod(
        k8s,
        ns,
        tr,
        "b2mxk",
        nodes,
        state=running(-1036800),
        started=-1036800,
        ready=True,
        extra="    Image Pull Policy:  Never\n",
    )
    k8s[f"kubectl describe deployments tile-renderer -n {ns}"] = deploy_text(
        tr,
        ns,
        ready=3,
        revision=12,
        container=container_text(
            "tile-renderer", img, 8080, env={"TILE_CACHE": "/var/cache/tiles"}
        ).replace(
            f"    Image:      {img}",
            f"    Image:      {img}\n    Image Pull Policy:  Never",
        ),
    )
    k8s["kubectl describe nodes ip-10-90-1-214.us-west-2.compute.internal"] = (
        node_describe(
            nodes[3][0],
            nodes[3][2],
            pods_rows=[(ns, trp[3]), (ns, trp[4])],
            events_text="  Type    Reason                   Age   From             Message\n  ----    ------                   ----  ----             -------\n  Normal  RegisteredNode           27m   node-controller  Node ip-10-90-1-214.us-west-2.compute.internal event: Registered Node ip-10-90-1-214.us-west-2.compute.internal in Controller\n  Normal  NodeReady                26m   kubelet          Node ip-10-90-1-214.us-west-2.compute.internal status is now: NodeReady",
        )
    )
    k8s[f"kubectl get horizontalpodautoscalers -n {ns}"] = hpa_table(
        [
            (
                "tile-renderer",
                "Deployment/tile-renderer",
                "cpu: 138%/60%",
                "3",
                "10",
                "8",
                "400d",
            )
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "25m",
                "Normal",
                "SuccessfulRescale",
                "HorizontalPodAutoscaler/tile-renderer",
                "New size: 8; reason: cpu resource utilization (percentage of request) above target",
            ),
            (
                "25m",
                "Normal",
                "TriggeredScaleUp",
                f"Pod/{trp[3]}",
                "pod triggered scale-up: [{eks-apps-lt-v7-2cc9f1e4 3->5 (max: 10)}]",
            ),
            *[
                ("30s (x120 over 25m)", "Warning", "ErrImageNeverPull", f"Pod/{p}", msg)
                for p in trp[3:]
            ],
        ]
    )
    mwp = [pod_name(mw, s[0]) for s in mw["pods"]]
    evs = [
        ev(
            "cluster-autoscaler",
            "info",
            "Scale-up: setting group eks-apps-lt-v7-2cc9f1e4 size to 5 instead of 3 (max: 10)",
            at=start - 120,
        ),
        ev(
            "cluster-autoscaler",
            "info",
            "node group eks-apps-lt-v7-2cc9f1e4 uses launch template lt-0d41c6 version 7 (AMI al2023-eks-1.31-20261128)",
            at=start - 118,
        ),
        ev(
            "tile-renderer",
            "warn",
            "render queue {n} tiles behind; cpu 100%",
            **{"from": start - 200, "to": -4, "every_s": 12},
            pods=trp[:3],
        ),
        ev(
            "maps-web",
            "error",
            "GET /tiles/14/{n}/{n}.png 502: upstream tile-renderer timed out",
            **{"from": start + 20, "to": -2, "every_s": 1.6},
            pods=mwp,
        ),
        ev(
            "maps-web",
            "info",
            "maps-web 15.6.0 started (dark mode basemap)",
            at=start - 800,
            pods=mwp,
        ),
        ev(
            "cdn-edge",
            "warn",
            "origin shield hit ratio {ms}% below 80% for maps.tiles.example",
            **{"from": start, "to": -10, "every_s": 120},
        ),
        ev(
            "geocoder",
            "warn",
            "PostGIS statement timeout on reverse geocode, retrying",
            **{"from": -3500, "to": -20, "every_s": 400},
        ),
        ev(
            "tile-renderer",
            "error",
            "mapnik: failed to load style osm-bright-v4.xml: font 'Noto Sans Bold' not found",
            **{"from": -8000, "to": -7800, "every_s": 40},
            pods=[trp[1]],
        ),
    ]
    return {
        "incident": incident(
            "maps not loading", "maps", start, ["grey squares instead of map tiles"]
        ),
        "expected": expected(
            "platform",
            [
                "deployment/tile-renderer",
                "tile-renderer",
                "replicaset/tile-renderer-7d9f5c8b6",
            ],
            "ErrImageNeverPull",
            "tile-renderer runs with imagePullPolicy: Never and an image name without a registry (tile-renderer:3.9.0): the image exists only because the old node group's AMI bakes it in. The evening load made the HPA ask for 8 pods; the cluster autoscaler added two nodes from launch template v7, whose AMI does not have the image, and the five pods placed there fail with ErrImageNeverPull (Container image is not present with pull policy of Never). Three pods carry the whole load and maps-web times out. maps-web's release, the CDN hit-ratio warnings, geocoder timeouts and the old font error are not the cause; the scale-up is the trigger.",
            [
                'tile-renderer pods on the new nodes: ErrImageNeverPull: Container image "tile-renderer:3.9.0" is not present with pull policy of Never',
                "Image Pull Policy: Never; nodes ip-10-90-1-214 / ip-10-90-3-162 registered 27 min ago",
                "HPA tile-renderer 8 wanted, 3 available; maps-web 502s",
            ],
            "Push the image to ECR and reference it with a registry and imagePullPolicy: IfNotPresent; until then cordon the new nodes or bake the image into launch template v7.",
        ),
        "kubernetes": k8s,
        "logs": logs(
            seed=204,
            background=[
                bg("tile-renderer", trp[:3], ["rendered tile 14/{n}/{n} in {ms}ms"], 8),
                bg("maps-web", mwp, ["GET /tiles/14/{n}/{n}.png 200 {ms}ms"], 8),
            ],
            events=evs,
        ),
        "metrics": metrics(
            [
                {
                    "name": "maps-web",
                    "rps": 200,
                    "rps_after": 320,
                    "errors": {"502": (0.001, 0.35)},
                    "latency": (0.05, 2.8),
                    "change_at": start,
                },
                {
                    "name": "tile-renderer",
                    "rps": 60,
                    "rps_after": 95,
                    "latency": (0.08, 1.9),
                    "change_at": start - 200,
                },
            ],
            start=start,
            seed=204,
            gauges=[
                {
                    "name": "kube_deployment_status_replicas_available",
                    "labels": {"namespace": ns, "deployment": "tile-renderer"},
                    "before": 3,
                    "after": 3,
                    "noise": 0.0,
                }
            ],
        ),
        "runbooks": {
            "maps-grey-tiles.md": runbook(
                "Grey tiles on maps",
                "Grey tiles mean the CDN serves stale or missing objects: purge maps.tiles.example in the CDN console and check the origin shield hit ratio.",
            )
        },
    }


# =================================================================================================
# 5. An HPA flapping: a tuning PR set typeahead's CPU target to 25% and scale-down stabilisation to
#    0 s; it scales 4 <-> 16 every few minutes and kills pods mid-request, each new pod cold. The
#    incident says "search box".
# =================================================================================================


@scenario("hpa-flapping-zero-stabilization")
def hpa_flapping_zero_stabilization() -> dict[str, Any]:
    start = -1680
    ns = "search"
    img = "europe-docker.pkg.dev/kauppa-prod/apps/typeahead:8.3.1"
    ta = app(
        "typeahead",
        image=img,
        port=8080,
        rs="6d8b5f9c7",
        cluster_ip="10.100.52.27",
        desired=16,
        pods=[
            ("c5kwz", "1/1", "Running", "0", "4h", 0),
            ("g2rtm", "1/1", "Running", "0", "4h", 1),
            ("l8vqd", "1/1", "Running", "0", "4h", 2),
            ("n4zxb", "1/1", "Running", "0", "4h", 0),
            *[
                (s, "0/1", "Running", "0", "52s", i % 3)
                for i, s in enumerate(
                    (
                        "b9hcm",
                        "d3wrx",
                        "f6nkq",
                        "h8tlz",
                        "j2pvg",
                        "k7mbs",
                        "q4xdn",
                        "r9cwt",
                        "t5fkh",
                        "v3zql",
                        "w6gnr",
                        "z8bjp",
                    )
                )
            ],
        ],
    )
    sw = app(
        "storefront-bff",
        image="europe-docker.pkg.dev/kauppa-prod/apps/storefront-bff:122.0.0",
        port=3000,
        rs="7f5c9d6b8",
        cluster_ip="10.100.52.4",
        pods=[
            ("m5ktr", "1/1", "Running", "0", "35m", 1),
            ("x2hqw", "1/1", "Running", "0", "35m", 2),
        ],
    )
    k8s = namespace(ns, NODES_FRA, [ta, sw], seed=205)
    k8s[f"kubectl get horizontalpodautoscalers -n {ns}"] = hpa_table(
        [("typeahead", "Deployment/typeahead", "cpu: 12%/25%", "4", "16", "16", "500d")]
    )
    k8s[
        f"kubectl describe horizontalpodautoscalers typeahead -n {ns}"
    ] = f"""Name:                                                  typeahead
Namespace:                                             {ns}
Labels:                                                app=typeahead
Annotations:                                           <none>
CreationTimestamp:                                     {when(-43200000)}
Reference:                                             Deployment/typeahead
Metrics:                                               ( current / target )
  resource cpu on pods  (as a percentage of request):  12% (60m) / 25%
Min replicas:                                          4
Max replicas:                                          16
Behavior:
  Scale Up:
    Stabilization Window: 0 seconds
    Select Policy: Max
    Policies:
      - Type: Percent  Value: 100  Period: 15 seconds
      - Type: Pods     Value: 4    Period: 15 seconds
  Scale Down:
    Stabilization Window: 0 seconds
    Select Policy: Max
    Policies:
      - Type: Percent  Value: 100  Period: 15 seconds
Deployment pods:       16 current / 4 desired
Conditions:
  Type            Status  Reason              Message
  ----            ------  ------              -------
  AbleToScale     True    SucceededRescale    the HPA controller was able to update the target scale to 4
  ScalingActive   True    ValidMetricFound    the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)
  ScalingLimited  False   DesiredWithinRange  the desired count is within the acceptable range
Events:
  Type    Reason             Age                  From                       Message
  ----    ------             ----                 ----                       -------
  Normal  SuccessfulRescale  2m (x14 over 28m)    horizontal-pod-autoscaler  New size: 16; reason: cpu resource utilization (percentage of request) above target
  Normal  SuccessfulRescale  10s (x14 over 28m)   horizontal-pod-autoscaler  New size: 4; reason: All metrics below target
"""
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "35m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/storefront-bff",
                "Scaled up replica set storefront-bff-7f5c9d6b8 to 2",
            ),
            (
                "2m (x14 over 28m)",
                "Normal",
                "SuccessfulRescale",
                "HorizontalPodAutoscaler/typeahead",
                "New size: 16; reason: cpu resource utilization (percentage of request) above target",
            ),
            (
                "10s (x14 over 28m)",
                "Normal",
                "SuccessfulRescale",
                "HorizontalPodAutoscaler/typeahead",
                "New size: 4; reason: All metrics below target",
            ),
            (
                "10s (x14 over 28m)",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/typeahead",
                "Scaled down replica set typeahead-6d8b5f9c7 to 4 from 16",
            ),
            (
                "2m (x14 over 28m)",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/typeahead",
                "Scaled up replica set typeahead-6d8b5f9c7 to 16 from 4",
            ),
        ]
    )
    tap = [pod_name(ta, s[0]) for s in ta["pods"]]
    describe_pod(
        k8s,
        ns,
        ta,
        "b9hcm",
        NODES_FRA,
        state=running(-50),
        started=-52,
        probes="    Readiness:      http-get http://:8080/ready delay=0s timeout=1s period=5s #success=1 #failure=3\n",
        events_rows=[
            (
                "Normal",
                "Scheduled",
                "52s",
                "default-scheduler",
                f"Successfully assigned {ns}/{tap[4]} to {NODES_FRA[0][0]}",
            ),
            (
                "Normal",
                "Pulled",
                "51s",
                "kubelet",
                f'Container image "{img}" already present on machine',
            ),
            (
                "Warning",
                "Unhealthy",
                "20s (x6 over 45s)",
                "kubelet",
                "Readiness probe failed: HTTP probe failed with statuscode: 503",
            ),
        ],
    )
    swp = [pod_name(sw, s[0]) for s in sw["pods"]]
    evs = [
        ev(
            "github-actions",
            "info",
            'deploy infra/hpa-tuning #4412 applied: typeahead HPA target cpu 70% -> 25%, behavior.scaleDown.stabilizationWindowSeconds 300 -> 0 ("react faster to lunch peak")',
            at=start - 90,
        ),
        ev(
            "typeahead",
            "warn",
            "prefix index warming: {n}/2400000 terms loaded, answering 503 until ready",
            **{"from": start, "to": -3, "every_s": 20},
            pods=tap[4:],
        ),
        ev(
            "typeahead",
            "warn",
            "SIGTERM: draining, {ms} in-flight requests aborted",
            **{"from": start + 100, "to": -10, "every_s": 120},
            pods=tap[4:],
        ),
        ev(
            "storefront-bff",
            "error",
            "GET /api/suggest?q=… 502: upstream typeahead connection reset",
            **{"from": start + 60, "to": -2, "every_s": 2.5},
            pods=swp,
        ),
        ev(
            "storefront-bff",
            "info",
            "storefront-bff 122.0.0 started (recently viewed carousel)",
            at=start - 500,
            pods=swp,
        ),
        ev(
            "elasticsearch",
            "warn",
            "[gc][young] duration [1.1s], collections [1]/[1.8s]",
            **{"from": -3500, "to": -20, "every_s": 300},
        ),
        ev(
            "typeahead",
            "error",
            "failed to fetch synonyms from search-config: 500",
            **{"from": -6800, "to": -6600, "every_s": 40},
            pods=tap[:2],
        ),
    ]
    return {
        "incident": incident(
            "search box suggestions flaky",
            "search box",
            start,
            ["suggestions appear and disappear"],
        ),
        "expected": expected(
            "platform",
            ["horizontalpodautoscaler/typeahead", "typeahead", "deployment/typeahead"],
            "All metrics below target",
            "An HPA tuning change 29 min ago set typeahead's CPU target to 25% and the scale-down stabilisation window to 0 s. Every cold pod's index warm-up pushes CPU above target (scale to 16), then the average falls below it and the HPA at once scales to 4 (All metrics below target): 14 flaps in 28 min. Pods are killed mid-request and the new ones answer 503 while warming, so storefront-bff's suggestion calls fail. storefront-bff's release, the Elasticsearch GC warnings and the old synonyms error are not the cause.",
            [
                "HPA typeahead: New size: 16 … / New size: 4; reason: All metrics below target (x14 over 28m)",
                "Behavior: Scale Down Stabilization Window: 0 seconds; target cpu 25%",
                "typeahead: prefix index warming, answering 503; SIGTERM in-flight requests aborted",
            ],
            "Revert the HPA tuning (stabilizationWindowSeconds 300, a realistic target such as 70%) and exclude warm-up from the CPU signal (startup probe / readiness).",
        ),
        "kubernetes": k8s,
        "logs": logs(
            seed=205,
            background=[
                bg("typeahead", tap[:4], ["GET /suggest?q=… 200 {ms}ms"], 8),
                bg(
                    "storefront-bff",
                    swp,
                    [
                        "GET /api/suggest?q=… 200 {ms}ms",
                        "GET /api/product/{n} 200 {ms}ms",
                    ],
                    8,
                ),
            ],
            events=evs,
        ),
        "metrics": metrics(
            [
                {
                    "name": "storefront-bff",
                    "rps": 150,
                    "errors": {"502": (0.001, 0.14)},
                    "latency": (0.04, 0.2),
                },
                {
                    "name": "typeahead",
                    "rps": 130,
                    "errors": {"503": (0.0, 0.11)},
                    "latency": (0.012, 0.05),
                },
            ],
            start=start,
            seed=205,
            gauges=[
                {
                    "name": "kube_horizontalpodautoscaler_status_desired_replicas",
                    "labels": {"namespace": ns, "horizontalpodautoscaler": "typeahead"},
                    "before": 6,
                    "after": 10,
                    "noise": 0.6,
                    "cap": 16,
                }
            ],
        ),
        "runbooks": {
            "suggestions-failing.md": runbook(
                "Search suggestions failing",
                "Suggestion failures come from Elasticsearch: check the cluster's GC and heap; if young GC exceeds 1 s, restart the hottest data node.",
            )
        },
    }


# =================================================================================================
# 6. A hostPort that collides with node-exporter: ws-gateway's chart 4.0 exposes its metrics port
#    as hostPort 9100, which node-exporter's DaemonSet already holds on every node. The Recreate
#    rollout removed the old pods; the new ones cannot be scheduled. The incident says "support chat".
# =================================================================================================


@scenario("hostport-conflict-pending")
def hostport_conflict_pending() -> dict[str, Any]:
    start = -1020
    ns = "support"
    img = "ghcr.io/tellus-support/ws-gateway:4.0.0"
    wg = app(
        "ws-gateway",
        image=img,
        port=8443,
        rs="84d6c9f7b",
        cluster_ip="10.100.19.61",
        desired=3,
        pods=[
            ("c7xqn", "0/1", "Pending", "0", "17m", -1),
            ("h4kmt", "0/1", "Pending", "0", "17m", -1),
            ("s9wlb", "0/1", "Pending", "0", "17m", -1),
        ],
        extra_rs=[
            (
                "ws-gateway-6b9f7d5c8",
                "0",
                "0",
                "0",
                "120d",
                "ws-gateway",
                "ghcr.io/tellus-support/ws-gateway:3.12.4",
                "app=ws-gateway,pod-template-hash=6b9f7d5c8",
            )
        ],
    )
    ca = app(
        "chat-api",
        image="ghcr.io/tellus-support/chat-api:19.2.0",
        port=8080,
        rs="5d8f6b9c7",
        cluster_ip="10.100.19.20",
        pods=[
            ("f2pzr", "1/1", "Running", "0", "26d", 0),
            ("r8ncw", "1/1", "Running", "0", "26d", 1),
        ],
    )
    web = app(
        "chat-web",
        image="ghcr.io/tellus-support/chat-web:7.7.0",
        port=3000,
        rs="7c6d9f8b5",
        cluster_ip="10.100.19.5",
        pods=[("k3tvd", "1/1", "Running", "0", "44m", 2)],
    )
    k8s = namespace(
        ns, NODES_DUB, [wg, ca, web], seed=206, extra_namespaces=("monitoring",)
    )
    msg = "0/3 nodes are available: 3 node(s) didn't have free ports for the requested pod ports. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod."
    wgp = [pod_name(wg, s[0]) for s in wg["pods"]]
    k8s[f"kubectl describe pods {wgp[0]} -n {ns}"] = (
        f"Name:             {wgp[0]}\nNamespace:        {ns}\nPriority:         0\nService Account:  ws-gateway\n"
        f"Node:             <none>\nLabels:           app=ws-gateway\n                  pod-template-hash=84d6c9f7b\n"
        f"Status:           Pending\nIP:               \nControlled By:    ReplicaSet/ws-gateway-84d6c9f7b\n"
        f"Containers:\n  ws-gateway:\n    Image:       {img}\n    Ports:       8443/TCP, 9100/TCP\n    Host Ports:  0/TCP, 9100/TCP\n"
        "    Requests:\n      cpu:     500m\n      memory:  512Mi\n"
        "Conditions:\n  Type           Status\n  PodScheduled   False \n"
        "Events:\n  Type     Reason            Age                From               Message\n"
        "  ----     ------            ----               ----               -------\n"
        f"  Warning  FailedScheduling  90s (x18 over 17m)  default-scheduler  {msg}\n"
    )
    k8s[f"kubectl describe deployments ws-gateway -n {ns}"] = deployment_describe(
        "ws-gateway",
        ns,
        replicas="3 desired | 3 updated | 3 total | 0 available | 3 unavailable",
        revision=22,
        containers=f"   ws-gateway:\n    Image:       {img}\n    Ports:       8443/TCP, 9100/TCP\n    Host Ports:  0/TCP, 9100/TCP\n    Environment:  <none>\n    Mounts:       <none>",
        conditions=[
            ("Available", "False", "MinimumReplicasUnavailable"),
            ("Progressing", "True", "ReplicaSetUpdated"),
        ],
        old_rs="ws-gateway-6b9f7d5c8 (0/0 replicas created)",
        new_rs="ws-gateway-84d6c9f7b (3/3 replicas created)",
        strategy="Recreate",
        events_rows=[
            (
                "Normal",
                "ScalingReplicaSet",
                "17m",
                "deployment-controller",
                "Scaled down replica set ws-gateway-6b9f7d5c8 to 0 from 3",
            ),
            (
                "Normal",
                "ScalingReplicaSet",
                "17m",
                "deployment-controller",
                "Scaled up replica set ws-gateway-84d6c9f7b to 3",
            ),
        ],
    )
    nep = ["node-exporter-4hvbt", "node-exporter-8mqzk", "node-exporter-tx6fd"]
    k8s["kubectl get daemonsets -n monitoring -o wide"] = table(
        [
            DS_HEADER,
            ds_row(
                "node-exporter",
                3,
                3,
                "700d",
                "node-exporter",
                "quay.io/prometheus/node-exporter:v1.8.2",
                "app.kubernetes.io/name=node-exporter",
            ),
        ]
    )
    k8s["kubectl get pods -n monitoring -o wide --show-labels"] = base.pods(
        [
            (
                p,
                "1/1",
                "Running",
                "0",
                "92d",
                NODES_DUB[i][2],
                NODES_DUB[i][0],
                "app.kubernetes.io/name=node-exporter,controller-revision-hash=6c9d8b7f5,pod-template-generation=9",
            )
            for i, p in enumerate(nep)
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "44m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/chat-web",
                "Scaled up replica set chat-web-7c6d9f8b5 to 1",
            ),
            (
                "17m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/ws-gateway",
                "Scaled down replica set ws-gateway-6b9f7d5c8 to 0 from 3",
            ),
            (
                "17m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/ws-gateway",
                "Scaled up replica set ws-gateway-84d6c9f7b to 3",
            ),
            *[
                ("90s (x18 over 17m)", "Warning", "FailedScheduling", f"Pod/{p}", msg)
                for p in wgp
            ],
        ]
    )
    cap = [pod_name(ca, s[0]) for s in ca["pods"]]
    webp = [pod_name(web, "k3tvd")]
    evs = [
        ev(
            "argocd",
            "info",
            "application support/ws-gateway synced to 4.0.0 (chart: expose metrics port 9100 as hostPort for the node-level scraper)",
            at=start - 30,
        ),
        ev(
            "chat-api",
            "error",
            "push to agent session {n} failed: ws-gateway.support.svc:8443 no endpoints available",
            **{"from": start + 20, "to": -2, "every_s": 2},
            pods=cap,
        ),
        ev(
            "chat-api",
            "warn",
            "agent presence heartbeat missed for {n} agents (websocket gone)",
            **{"from": start + 30, "to": -2, "every_s": 10},
            pods=cap,
        ),
        ev(
            "chat-web",
            "error",
            "WebSocket connection to 'wss://chat.tellus.example/ws' failed: 503",
            **{"from": start + 20, "to": -2, "every_s": 4},
            pods=webp,
        ),
        ev(
            "chat-web",
            "info",
            "chat-web 7.7.0 started (emoji picker)",
            at=start - 1600,
            pods=webp,
        ),
        ev(
            "node-exporter",
            "warn",
            "collector textfile: failed to read /host/textfile/raid.prom: permission denied",
            **{"from": -3500, "to": -10, "every_s": 300},
            pods=nep,
        ),
        ev(
            "translation-svc",
            "warn",
            "DeepL quota at {ms}% of monthly characters",
            **{"from": -3600, "to": -20, "every_s": 600},
        ),
        ev(
            "chat-api",
            "error",
            "kafka: leader not available for topic chat.transcripts partition 3",
            **{"from": -8200, "to": -8000, "every_s": 30},
            pods=cap,
        ),
    ]
    return {
        "incident": incident(
            "live chat disconnected for all agents", "support chat", start
        ),
        "expected": expected(
            "platform",
            ["deployment/ws-gateway", "ws-gateway", "replicaset/ws-gateway-84d6c9f7b"],
            "didn't have free ports for the requested pod ports",
            "ws-gateway 4.0.0 (synced 18 min ago) exposes its metrics port as hostPort 9100, which node-exporter's DaemonSet already binds on every node. The Recreate rollout scaled the old ReplicaSet to 0 first; the three new pods cannot be placed anywhere (3 node(s) didn't have free ports for the requested pod ports) and stay Pending, so the websocket gateway has no endpoints: chat-api cannot push to agents and chat-web's websockets fail. chat-api's errors are the loud victim; chat-web's release, node-exporter's textfile warning, the translation quota and the old Kafka leader error are not the cause.",
            [
                "FailedScheduling: 0/3 nodes are available: 3 node(s) didn't have free ports for the requested pod ports",
                "ws-gateway pod Host Ports: 0/TCP, 9100/TCP; node-exporter DaemonSet on all 3 nodes",
                "chat-api: ws-gateway.support.svc:8443 no endpoints available",
            ],
            "Drop the hostPort from the chart (scrape the pod port through the Service/PodMonitor) and re-sync; set the strategy to RollingUpdate so a bad rollout keeps the old pods.",
        ),
        "kubernetes": k8s,
        "logs": logs(
            seed=206,
            background=[
                bg(
                    "chat-api",
                    cap,
                    [
                        "POST /v1/conversations/{n}/messages 201 {ms}ms",
                        "GET /healthz 200 1ms",
                    ],
                    8,
                ),
                bg(
                    "ws-gateway",
                    ["ws-gateway-6b9f7d5c8-l5vrm", "ws-gateway-6b9f7d5c8-q8tnz"],
                    ["ws frame relayed to agent {n} in {ms}ms"],
                    8,
                    until=start - 40,
                ),
            ],
            events=evs,
        ),
        "metrics": metrics(
            [
                {
                    "name": "chat-api",
                    "rps": 25,
                    "errors": {"503": (0.0, 0.4)},
                    "latency": (0.03, 0.05),
                },
                {
                    "name": "chat-web",
                    "rps": 12,
                    "errors": {"503": (0.0, 0.6)},
                    "latency": (0.02, 0.02),
                },
            ],
            start=start,
            seed=206,
            gauges=[
                {
                    "name": "ws_gateway_open_connections",
                    "labels": {"service": "ws-gateway"},
                    "before": 1850,
                    "after": 0,
                    "change_at": start - 40,
                }
            ],
        ),
        "runbooks": {
            "chat-disconnects.md": runbook(
                "Agents disconnected from chat",
                "Mass disconnects are chat-api losing Kafka: check the chat.transcripts partitions' leaders, then restart chat-api pods one by one.",
            )
        },
    }


# =================================================================================================
# 7. A kubelet whose client certificate expired: on one node certificate rotation has failed since
#    a CSR approver was removed; the node goes NotReady and redis-basket-1 (a StatefulSet pod) stays
#    there, Terminating is never reached. The incident says "basket".
# =================================================================================================


@scenario("kubelet-cert-expired-node")
def kubelet_cert_expired_node() -> dict[str, Any]:
    start = -1560
    ns = "basket"
    bad = NODES_PDX[1]
    nodes = [NODES_PDX[0], (bad[0], "NotReady", bad[2]), NODES_PDX[2]]
    rb = app(
        "redis-basket",
        image="docker.io/bitnami/redis-cluster:7.4.1",
        port=6379,
        rs="",
        kind="StatefulSet",
        cluster_ip="None",
        pods=[
            ("0", "1/1", "Running", "0", "33d", 0),
            ("1", "1/1", "Terminating", "0", "33d", 1),
            ("2", "1/1", "Running", "0", "33d", 2),
        ],
    )
    ba = app(
        "basket-api",
        image="123456789012.dkr.ecr.us-west-2.amazonaws.com/basket-api:33.1.0",
        port=8080,
        rs="6c9f8d7b5",
        cluster_ip="10.100.40.31",
        desired=3,
        pods=[
            ("d5nkw", "1/1", "Running", "0", "20m", 0),
            ("j8qzt", "1/1", "Running", "0", "45m", 2),
            ("t2vhm", "1/1", "Running", "0", "45m", 0),
            ("x4rcb", "1/1", "Terminating", "0", "45m", 1),
        ],
    )
    k8s = namespace(
        ns,
        nodes,
        [rb, ba],
        seed=207,
        statefulsets=table(
            [
                ["NAME", "READY", "AGE", "CONTAINERS", "IMAGES"],
                [
                    "redis-basket",
                    "3/3",
                    "400d",
                    "redis-basket",
                    "docker.io/bitnami/redis-cluster:7.4.1",
                ],
            ]
        ),
    )
    ready_unknown = (
        "Unknown",
        "-1500",
        "NodeStatusUnknown",
        "Kubelet stopped posting node status.",
    )
    k8s[f"kubectl describe nodes {bad[0]}"] = node_describe(
        bad[0],
        bad[2],
        conditions={
            "MemoryPressure": ready_unknown,
            "DiskPressure": ready_unknown,
            "PIDPressure": ready_unknown,
            "Ready": ready_unknown,
        },
        taints="node.kubernetes.io/unreachable:NoExecute\n                    node.kubernetes.io/unreachable:NoSchedule",
        pods_rows=[
            (ns, "redis-basket-1"),
            (ns, pod_name(ba, "x4rcb")),
            ("kube-system", "aws-node-k2xwp"),
            ("kube-system", "kube-proxy-9zqvd"),
        ],
        events_text=f"  Type    Reason        Age   From             Message\n  ----    ------        ----  ----             -------\n  Normal  NodeNotReady  25m   node-controller  Node {bad[0]} status is now: NodeNotReady",
    )
    k8s[f"kubectl describe pods redis-basket-1 -n {ns}"] = h3.pod_describe(
        "redis-basket-1",
        ns,
        node=f"{bad[0]}/{bad[2]}",
        owner="StatefulSet/redis-basket",
        labels="app=redis-basket,apps.kubernetes.io/pod-index=1,statefulset.kubernetes.io/pod-name=redis-basket-1",
        status="Running",
        ip=ips_of(k8s, ns)["redis-basket-1"],
        container="redis-basket",
        image=rb["image"],
        state=running(-2851200),
        ready=False,
        restarts=0,
        started=-2851200,
        conditions=[
            ("PodReadyToStartContainers", "True"),
            ("Initialized", "True"),
            ("Ready", "False"),
            ("ContainersReady", "True"),
            ("PodScheduled", "True"),
        ],
        events_rows=[
            ("Warning", "NodeNotReady", "25m", "node-controller", "Node is not ready"),
            (
                "Normal",
                "TaintManagerEviction",
                "20m",
                "taint-eviction-controller",
                "Marking for deletion Pod basket/redis-basket-1",
            ),
        ],
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "45m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/basket-api",
                "Scaled up replica set basket-api-6c9f8d7b5 to 3",
            ),
            (
                "25m",
                "Warning",
                "NodeNotReady",
                "Pod/redis-basket-1",
                "Node is not ready",
            ),
            (
                "25m",
                "Warning",
                "NodeNotReady",
                "Pod/basket-api-6c9f8d7b5-x4rcb",
                "Node is not ready",
            ),
            (
                "20m",
                "Normal",
                "TaintManagerEviction",
                "Pod/redis-basket-1",
                "Marking for deletion Pod basket/redis-basket-1",
            ),
            (
                "20m",
                "Normal",
                "SuccessfulCreate",
                "ReplicaSet/basket-api-6c9f8d7b5",
                "Created pod: basket-api-6c9f8d7b5-d5nkw",
            ),
        ]
    )
    k8s["kubectl get pods -n kube-system -o wide --show-labels"] = base.pods(
        [
            (
                "aws-node-k2xwp",
                "1/1",
                "Running",
                "0",
                "200d",
                bad[2],
                bad[0],
                "k8s-app=aws-node",
            ),
            (
                "kube-proxy-9zqvd",
                "1/1",
                "Running",
                "0",
                "200d",
                bad[2],
                bad[0],
                "k8s-app=kube-proxy",
            ),
            (
                "kubelet-csr-approver-5d8c6f9b7-q2wnl",
                "0/1",
                "Terminating",
                "0",
                "400d",
                "10.207.1.88",
                NODES_PDX[0][0],
                "app=kubelet-csr-approver",
            ),
        ]
    )
    bap = [pod_name(ba, s[0]) for s in ba["pods"]][:3]
    kube_labels = {"node": bad[0], "unit": "kubelet.service"}
    evs = [
        ev(
            "kubelet",
            "error",
            'certificate_manager.go:596] "Certificate request was not signed" err="timed out waiting for the condition"',
            **{"from": -7200, "to": start - 120, "every_s": 900},
            labels=kube_labels,
        ),
        ev(
            "kubelet",
            "error",
            f'kubelet_node_status.go:535] "Error updating node status, will retry" err="error getting node \\"{bad[0]}\\": Get \\"https://A81C.gr7.us-west-2.eks.amazonaws.com/api/v1/nodes/{bad[0]}?timeout=10s\\": tls: failed to verify certificate: x509: certificate has expired or is not yet valid: current time 2026-12-05T13:34:02Z is after 2026-12-05T13:33:51Z"',
            **{"from": start, "to": -5, "every_s": 10},
            labels=kube_labels,
        ),
        ev(
            "kubelet",
            "error",
            'controller.go:145] "Failed to ensure lease exists, will retry" err="Unauthorized" interval="7s"',
            **{"from": start, "to": -5, "every_s": 30},
            labels=kube_labels,
        ),
        ev(
            "gitops",
            "info",
            "removed kube-system/kubelet-csr-approver (replaced by EKS-managed approval, PLAT-1192)",
            at=-7100,
        ),
        ev(
            "basket-api",
            "error",
            "GET /basket/{n} 500: CLUSTERDOWN The cluster is down (slot {n} served by redis-basket-1 10.207.2.57:6379 unreachable)",
            **{"from": start + 40, "to": -2, "every_s": 2},
            pods=bap,
        ),
        ev(
            "redis-basket",
            "warn",
            "Cluster state changed: fail; node 3f1c… (redis-basket-1) marked as FAIL",
            **{"from": start + 20, "to": -30, "every_s": 120},
            pods=["redis-basket-0", "redis-basket-2"],
        ),
        ev(
            "basket-api",
            "info",
            "basket-api 33.1.0 started (save-for-later list)",
            at=start - 1100,
            pods=bap,
        ),
        ev(
            "promo-engine",
            "warn",
            "coupon cache refresh took {ms}00ms",
            **{"from": -3500, "to": -10, "every_s": 240},
        ),
        ev(
            "basket-api",
            "error",
            "redis: connection pool timeout (pool size 50)",
            **{"from": -6600, "to": -6400, "every_s": 30},
            pods=["basket-api-5b7d9c8f6-old1w"],
        ),
    ]
    return {
        "incident": incident(
            "basket empties for some customers",
            "basket",
            start,
            ["items disappear from basket"],
        ),
        "expected": expected(
            "platform",
            [f"node/{bad[0]}", bad[0]],
            "x509: certificate has expired",
            f"The kubelet on {bad[0]} could not renew its client certificate: its CSRs were never approved after the kubelet-csr-approver was removed, and the certificate expired 26 min ago. The kubelet's calls to the API server fail (x509: certificate has expired or is not yet valid / Unauthorized), the node stops posting status and is NotReady/Unknown. redis-basket-1, a StatefulSet pod on that node, is neither running nor replaced, so a third of the Redis cluster's slots are unavailable: basket-api answers CLUSTERDOWN for those baskets. basket-api's errors and release, the promo-engine warnings and the old pool timeout are not the cause.",
            [
                "kubelet: x509: certificate has expired or is not yet valid; Failed to ensure lease exists: Unauthorized",
                f"node {bad[0]}: Ready Unknown, Kubelet stopped posting node status",
                "redis-basket-1 on the NotReady node; basket-api CLUSTERDOWN",
            ],
            "Approve the pending kubelet CSRs (or replace the node), then restore automatic approval of kubelet serving/client CSRs; force-delete redis-basket-1 only once the node is gone.",
        ),
        "kubernetes": k8s,
        "logs": logs(
            seed=207,
            background=[
                bg(
                    "basket-api",
                    bap,
                    ["GET /basket/{n} 200 {ms}ms", "POST /basket/{n}/items 201 {ms}ms"],
                    8,
                ),
                bg(
                    "redis-basket",
                    ["redis-basket-0", "redis-basket-2"],
                    ["{n} changes in 300 seconds. Saving..."],
                    60,
                ),
            ],
            events=evs,
        ),
        "metrics": metrics(
            [
                {
                    "name": "basket-api",
                    "rps": 80,
                    "errors": {"500": (0.001, 0.33)},
                    "latency": (0.01, 0.03),
                }
            ],
            start=start,
            seed=207,
            gauges=[
                {
                    "name": "kube_node_status_condition",
                    "labels": {"node": bad[0], "condition": "Ready", "status": "true"},
                    "before": 1,
                    "after": 0,
                    "noise": 0.0,
                }
            ],
        ),
        "runbooks": {
            "redis-basket-failover.md": runbook(
                "redis-basket cluster down",
                "When the basket Redis cluster reports CLUSTERDOWN, run `redis-cli --cluster fix` against redis-basket-0 and, if a master is lost, promote its replica with CLUSTER FAILOVER TAKEOVER.",
            )
        },
    }


# =================================================================================================
# 8. An emptyDir on tmpfs: report-exporter's chart moved its scratch directory to
#    `emptyDir: {medium: Memory}`; files written there count against the container's 1Gi memory
#    limit, so large exports are OOM-killed while the JVM heap is half empty. The incident says
#    "finance exports".
# =================================================================================================


@scenario("emptydir-memory-oom")
def emptydir_memory_oom() -> dict[str, Any]:
    start = -1800
    ns = "finance"
    img = "harbor.corp.internal/finance/report-exporter:6.1.0"
    rex = app(
        "report-exporter",
        image=img,
        port=8080,
        rs="7f9d6c5b8",
        cluster_ip="10.100.90.15",
        pods=[
            ("g3wkp", "0/1", "CrashLoopBackOff", "6 (1m ago)", "34m", 0),
            ("m7tzr", "0/1", "CrashLoopBackOff", "5 (3m ago)", "34m", 1),
        ],
        extra_rs=[
            (
                "report-exporter-58c7d9b6f",
                "0",
                "0",
                "0",
                "90d",
                "report-exporter",
                "harbor.corp.internal/finance/report-exporter:6.0.4",
                "app=report-exporter,pod-template-hash=58c7d9b6f",
            )
        ],
    )
    ea = app(
        "export-api",
        image="harbor.corp.internal/finance/export-api:12.3.0",
        port=8080,
        rs="6b8c5d7f9",
        cluster_ip="10.100.90.4",
        pods=[
            ("c2qnl", "1/1", "Running", "0", "20d", 0),
            ("v6hxd", "1/1", "Running", "0", "20d", 2),
        ],
    )
    k8s = namespace(ns, NODES_FRA, [rex, ea], seed=208)
    rp = [pod_name(rex, s[0]) for s in rex["pods"]]
    vols = (
        "Volumes:\n  scratch:\n    Type:       EmptyDir (a temporary directory that shares a pod's lifetime)\n"
        "    Medium:     Memory\n    SizeLimit:  <unset>\n"
    )
    for sfx, _, _, restarts, _, _ in rex["pods"]:
        describe_pod(
            k8s,
            ns,
            rex,
            sfx,
            NODES_FRA,
            state=crashloop(137, "OOMKilled", -140, -65),
            started=-2040,
            restarts=int(restarts.split()[0]),
            extra="    Limits:\n      memory:  1Gi\n    Requests:\n      cpu:     500m\n      memory:  1Gi\n    Environment:\n      JAVA_TOOL_OPTIONS:  -Xmx512m\n      EXPORT_SCRATCH_DIR: /scratch\n    Mounts:\n      /scratch from scratch (rw)\n"
            + vols,
            events_rows=[
                (
                    "Normal",
                    "Pulled",
                    "1m (x7 over 34m)",
                    "kubelet",
                    f'Container image "{img}" already present on machine',
                ),
                (
                    "Warning",
                    "BackOff",
                    "20s (x60 over 30m)",
                    "kubelet",
                    "Back-off restarting failed container report-exporter in pod "
                    + pod_name(rex, sfx),
                ),
            ],
        )
    k8s[f"kubectl describe deployments report-exporter -n {ns}"] = deploy_text(
        rex,
        ns,
        ready=0,
        revision=17,
        container=container_text(
            "report-exporter",
            img,
            8080,
            limits="memory:  1Gi",
            requests="cpu:      500m\n  memory:   1Gi",
            env={"JAVA_TOOL_OPTIONS": "-Xmx512m", "EXPORT_SCRATCH_DIR": "/scratch"},
        ).replace(
            "    Mounts:\n      /var/run/secrets/kubernetes.io/serviceaccount from kube-api-access (ro)",
            "    Mounts:\n      /scratch from scratch (rw)",
        ),
        old_rs="report-exporter-58c7d9b6f (0/0 replicas created)",
    ).replace(
        "  Volumes:\n",
        "  Volumes:\n   scratch:\n    Type:       EmptyDir (a temporary directory that shares a pod's lifetime)\n    Medium:     Memory\n    SizeLimit:  <unset>\n",
    )
    k8s[f"kubectl logs {rp[0]} -n {ns} --previous --tail=1000"] = podlog(
        [
            (-140, "INFO  ReportExporterApplication started in 6.2s (heap max 512m)"),
            (
                -130,
                "INFO  export job 88213 (GL detail 2026-11, all entities) started: streaming rows to /scratch/88213.csv.part",
            ),
            (
                -110,
                "INFO  export job 88213: 1.2M rows written, /scratch/88213.csv.part 310MB; heap used 188MB",
            ),
            (
                -90,
                "INFO  export job 88213: 2.6M rows written, /scratch/88213.csv.part 660MB; heap used 201MB",
            ),
            (
                -70,
                "INFO  export job 88213: 3.4M rows written, /scratch/88213.csv.part 840MB; heap used 196MB",
            ),
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "34m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/report-exporter",
                "Scaled up replica set report-exporter-7f9d6c5b8 to 2",
            ),
            (
                "33m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/report-exporter",
                "Scaled down replica set report-exporter-58c7d9b6f to 0 from 2",
            ),
            *[
                (
                    "1m (x6 over 30m)",
                    "Warning",
                    "BackOff",
                    f"Pod/{p}",
                    "Back-off restarting failed container report-exporter in pod " + p,
                )
                for p in rp
            ],
        ]
    )
    eap = [pod_name(ea, s[0]) for s in ea["pods"]]
    evs = [
        ev(
            "argocd",
            "info",
            "application finance/report-exporter synced to 6.1.0 (chart: scratch volume emptyDir medium Memory for faster CSV assembly)",
            at=start - 240,
        ),
        ev(
            "report-exporter",
            "info",
            "export job {n}: {n} rows written to /scratch; heap used 1{ms}MB",
            **{"from": start, "to": -30, "every_s": 60},
            pods=rp,
        ),
        ev(
            "export-api",
            "error",
            "POST /exports 502: report-exporter connection refused; job {n} requeued",
            **{"from": start + 60, "to": -2, "every_s": 4},
            pods=eap,
        ),
        ev(
            "export-api",
            "warn",
            "export queue depth {n} (oldest 2{ms}s)",
            **{"from": start + 120, "to": -2, "every_s": 30},
            pods=eap,
        ),
        ev(
            "export-ui",
            "info",
            "export-ui 4.9.0 released (new date picker)",
            at=start - 900,
        ),
        ev(
            "gl-db",
            "warn",
            "checkpoints are occurring too frequently (24 seconds apart)",
            **{"from": -3500, "to": -20, "every_s": 600},
        ),
        ev(
            "report-exporter",
            "error",
            "SMB share \\\\fs01\\exports unreachable: STATUS_IO_TIMEOUT",
            **{"from": -8400, "to": -8200, "every_s": 40},
            pods=["report-exporter-58c7d9b6f-old7k"],
        ),
    ]
    return {
        "incident": incident("finance exports failing", "finance exports", start),
        "expected": expected(
            "application",
            [
                "deployment/report-exporter",
                "report-exporter",
                "replicaset/report-exporter-7f9d6c5b8",
            ],
            "OOMKilled",
            "report-exporter 6.1.0 (synced 34 min ago) moved its scratch directory to an emptyDir with medium: Memory (tmpfs). Files written there are charged to the container's memory cgroup, so a month-end GL export of ~850MB plus the 512MB heap passes the 1Gi limit and the container is OOMKilled (exit 137), though heap use is only ~200MB. Both pods crash-loop, export-api's jobs fail and queue. export-api's 502s, export-ui's release, the gl-db checkpoint warnings and the old SMB timeout are not the cause.",
            [
                "report-exporter pods: Last State Terminated, Reason OOMKilled, Exit Code 137; limit memory 1Gi",
                "Volumes: scratch EmptyDir, Medium: Memory, SizeLimit <unset>",
                "previous log: /scratch/88213.csv.part 840MB; heap used 196MB",
            ],
            "Put the scratch emptyDir back on disk (drop medium: Memory) or give it a sizeLimit and raise the memory limit accordingly; roll back to 6.0.4 meanwhile.",
        ),
        "kubernetes": k8s,
        "logs": logs(
            seed=208,
            background=[
                bg(
                    "export-api",
                    eap,
                    ["GET /exports/{n} 200 {ms}ms", "GET /healthz 200 1ms"],
                    10,
                )
            ],
            events=evs,
        ),
        "metrics": metrics(
            [
                {
                    "name": "export-api",
                    "rps": 3,
                    "errors": {"502": (0.0, 0.7)},
                    "latency": (0.1, 0.1),
                }
            ],
            start=start,
            seed=208,
            gauges=[
                {
                    "name": "jvm_memory_used_bytes",
                    "labels": {"service": "report-exporter", "area": "heap"},
                    "before": 2.3e8,
                    "after": 2.0e8,
                },
                {
                    "name": "container_memory_working_set_bytes",
                    "labels": {"namespace": ns, "container": "report-exporter"},
                    "before": 4.1e8,
                    "after": 1.02e9,
                    "cap": 1073741824,
                },
            ],
        ),
        "runbooks": {
            "report-exporter-oom.md": runbook(
                "report-exporter out of memory",
                "OOM kills of report-exporter are heap exhaustion on big exports: raise -Xmx to 768m and the memory limit to 1.5Gi, then re-run the failed jobs.",
            )
        },
    }


# =================================================================================================
# 9. A connection pool whose connections outlive the network's idle timeout: orders-api 3.4 keeps
#    40 idle connections with maxLifetime 60 min; the NLB in front of the database drops flows idle
#    for 350 s, so pooled connections are dead when reused (warn level, retried). The incident says
#    "my orders".
# =================================================================================================


@scenario("pool-lifetime-over-idle-timeout")
def pool_lifetime_over_idle_timeout() -> dict[str, Any]:
    start = -2100
    pods = ["orders-api-1", "orders-api-2", "orders-api-3"]
    return simple(
        209,
        start,
        incident(
            "order history slow sometimes",
            "my orders",
            start,
            ["order history takes 5-10 seconds"],
        ),
        expected(
            "app",
            ["orders-api", "spring.datasource.hikari.max-lifetime", "orders-db-nlb"],
            "Possibly consider using a shorter maxLifetime value",
            "orders-api 3.4.0 raised the pool's minimum-idle to 40 with max-lifetime 60 min and no keepalive. The database is reached through an NLB that silently drops TCP flows idle for 350 s; most pooled connections now sit idle longer than that, so when one is reused the first query fails (Connection reset by peer / This connection has been closed) and Hikari retries on another after a validation timeout: a third of requests take 5-10 s. No error reaches the user. orders-db itself is healthy; orders-web's release, the inventory-sync warnings and the old deadlock are not the cause.",
            [
                "orders-api WARN HikariPool-1 - Failed to validate connection … (This connection has been closed.). Possibly consider using a shorter maxLifetime value.",
                "orders-api WARN SQLState 08006 Connection reset by peer",
                "orders-db-nlb idle timeout 350 s; pool idle connections 40",
            ],
            "Set max-lifetime (and keepalive-time) below the NLB's 350 s idle timeout, e.g. 300 s / 120 s, or lower minimum-idle.",
        ),
        [
            bg(
                "orders-api",
                pods,
                [
                    "GET /v1/orders?customer={n} 200 {ms}ms",
                    "GET /v1/orders/{n} 200 {ms}ms",
                ],
                8,
            ),
            bg(
                "orders-web",
                ["orders-web-1", "orders-web-2"],
                ["GET /account/orders 200 {ms}ms"],
                10,
            ),
        ],
        [
            ev(
                "orders-api",
                "info",
                "orders-api 3.4.0 started; HikariPool-1 config: maximumPoolSize=60, minimumIdle=40, maxLifetime=3600000, idleTimeout=0, keepaliveTime=0",
                at=start - 200,
                pods=pods,
            ),
            ev(
                "orders-api",
                "warn",
                "HikariPool-1 - Failed to validate connection org.postgresql.jdbc.PgConnection@{n} (This connection has been closed.). Possibly consider using a shorter maxLifetime value.",
                **{"from": start, "to": -3, "every_s": 9},
                pods=pods,
            ),
            ev(
                "orders-api",
                "warn",
                "SQL Error: 0, SQLState: 08006 - An I/O error occurred while sending to the backend: Connection reset by peer; retrying on a new connection",
                **{"from": start, "to": -3, "every_s": 14},
                pods=pods,
            ),
            ev(
                "orders-api",
                "warn",
                "GET /v1/orders?customer={n} 200 {ms}00ms (slow)",
                **{"from": start, "to": -3, "every_s": 5},
                pods=pods,
            ),
            ev(
                "orders-web",
                "info",
                "orders-web 88.0.0 released (reorder button)",
                at=start - 1200,
                pods=["orders-web-1"],
            ),
            ev(
                "inventory-sync",
                "warn",
                "supplier feed {n}: {ms} SKUs skipped (unknown EAN)",
                **{"from": -3500, "to": -20, "every_s": 240},
            ),
            ev(
                "orders-db",
                "info",
                "checkpoint complete: wrote {n} buffers (1.{ms}%)",
                **{"from": -3600, "to": -10, "every_s": 300},
                pods=["orders-db-0"],
            ),
            ev(
                "orders-api",
                "error",
                "ERROR: deadlock detected; Process {n} waits for ShareLock on transaction {n}",
                **{"from": -7000, "to": -6900, "every_s": 30},
                pods=pods,
            ),
            ev(
                "aws-nlb",
                "info",
                "orders-db-nlb: target group tg-orders-db attribute tcp.idle_timeout.seconds=350 (default)",
                at=-7100,
            ),
        ],
        [
            {
                "name": "orders-api",
                "rps": 70,
                "latency": (0.03, 0.9),
                "change_at": start,
            },
            {
                "name": "orders-web",
                "rps": 40,
                "latency": (0.08, 1.1),
                "change_at": start,
            },
        ],
        [
            {
                "name": "hikaricp_connections_idle",
                "labels": {"service": "orders-api", "pool": "HikariPool-1"},
                "before": 6,
                "after": 38,
                "change_at": start - 200,
            },
            {
                "name": "pg_stat_activity_count",
                "labels": {"service": "orders-db", "state": "active"},
                "before": 9,
                "after": 8,
            },
            {
                "name": "aws_networkelb_tcp_elb_reset_count_sum",
                "labels": {"load_balancer": "orders-db-nlb"},
                "before": 0.1,
                "after": 24.0,
                "change_at": start,
            },
        ],
        {
            "orders-slow.md": runbook(
                "Order history slow",
                "Slow order history means orders-db is missing an index or has bloat: check pg_stat_statements for the orders-by-customer query and run VACUUM ANALYZE orders.",
            )
        },
    )


# =================================================================================================
# 10. Read-your-writes broken by replica lag: a BI dashboard's long query on profiles-db's replica
#     holds WAL replay (max_standby_streaming_delay = -1); profile-service reads from the replica right
#     after writing to the primary and sees old data or 404. The incident says "my account".
# =================================================================================================


@scenario("replica-lag-read-after-write")
def replica_lag_read_after_write() -> dict[str, Any]:
    start = -1500
    pods = ["profile-service-1", "profile-service-2"]
    return simple(
        210,
        start,
        incident("address change doesn't save", "my account", start),
        expected(
            "app",
            ["profiles-db-replica-1", "profiles-db", "bi-reports"],
            "replay lag",
            "profile-service writes to the profiles-db primary and reads back from the replica profiles-db-replica-1. Since 25 min ago a BI report's hour-long query runs on that replica, and with max_standby_streaming_delay = -1 WAL replay waits for it: replay lag grows to ~90 s. A customer who saves an address reloads the page and gets the old one (or 404 for a new one). Nothing is lost on the primary. profile-service's 404s look like data loss; profile-web's release, email-worker's bounces and the old connection-limit error are not the cause.",
            [
                "patroni: profiles-db-replica-1 replay lag 84.2s, WAL replay paused by conflicting query from bi-reports",
                "pg_replication_lag_seconds{instance=profiles-db-replica-1} 0.2 -> 90",
                "profile-service: GET /v1/addresses/{id} 404 right after POST 201",
            ],
            "Cancel the BI query and move reporting to a dedicated replica (or set max_standby_streaming_delay to 30 s); read a customer's own writes from the primary.",
        ),
        [
            bg(
                "profile-service",
                pods,
                ["GET /v1/profile/{n} 200 {ms}ms", "PUT /v1/profile/{n} 200 {ms}ms"],
                8,
            ),
            bg("profile-web", ["profile-web-1"], ["GET /account 200 {ms}ms"], 10),
        ],
        [
            ev(
                "bi-reports",
                "info",
                "scheduled report 'customer-cohorts-2026' started on profiles-db-replica-1 (query pid 41877)",
                at=start - 60,
            ),
            ev(
                "patroni",
                "warn",
                "replica profiles-db-replica-1 replay lag {ms}.2s exceeds 30s (WAL replay paused by conflicting query pid 41877 from bi-reports, max_standby_streaming_delay=-1)",
                **{"from": start + 60, "to": -10, "every_s": 60},
                pods=["profiles-db-replica-1"],
            ),
            ev(
                "profile-service",
                "warn",
                "GET /v1/addresses/{n} 404 address not found (created 4s ago by this session)",
                **{"from": start + 60, "to": -2, "every_s": 6},
                pods=pods,
            ),
            ev(
                "profile-service",
                "error",
                "PUT /v1/profile/{n} 409 version conflict: expected v{ms}, read v{ms} (stale read)",
                **{"from": start + 100, "to": -2, "every_s": 15},
                pods=pods,
            ),
            ev(
                "profile-web",
                "info",
                "profile-web 21.5.0 released (address autocomplete)",
                at=start - 700,
                pods=["profile-web-1"],
            ),
            ev(
                "email-worker",
                "warn",
                "bounce from {n}@gmail.com: 550 5.1.1 user unknown",
                **{"from": -3600, "to": -5, "every_s": 90},
            ),
            ev(
                "profile-service",
                "error",
                "FATAL: sorry, too many clients already (profiles-db primary)",
                **{"from": -7100, "to": -6950, "every_s": 30},
                pods=pods,
            ),
        ],
        [
            {
                "name": "profile-service",
                "rps": 50,
                "errors": {"404": (0.01, 0.07), "409": (0.0, 0.02)},
                "latency": (0.015, 0.016),
            },
            {"name": "profile-web", "rps": 30, "latency": (0.06, 0.06)},
        ],
        [
            {
                "name": "pg_replication_lag_seconds",
                "labels": {"instance": "profiles-db-replica-1"},
                "before": 0.2,
                "after": 84.0,
                "change_at": start + 30,
                "noise": 0.15,
            },
            {
                "name": "pg_replication_lag_seconds",
                "labels": {"instance": "profiles-db-replica-2"},
                "before": 0.2,
                "after": 0.2,
                "noise": 0.3,
            },
            {
                "name": "pg_stat_activity_max_tx_duration",
                "labels": {"instance": "profiles-db-replica-1"},
                "before": 2,
                "after": 1500,
                "change_at": start - 60,
            },
        ],
        {
            "profile-cache.md": runbook(
                "Profile changes not visible",
                "If customers see old profile data, the profile cache is stale: flush `profile:*` keys in profile-redis and restart profile-service.",
            )
        },
    )


# =================================================================================================
# 11. EBS burst credits exhausted (metrics only): catalog-db's gp2 volume spends its burst balance
#     during a re-index and drops to its 300 IOPS baseline; queries queue on the disk. The fault is
#     only in the metrics. The incident says "online shop".
# =================================================================================================


@scenario("ebs-burst-balance-exhausted")
def ebs_burst_balance_exhausted() -> dict[str, Any]:
    start = -1440
    pods = ["catalog-api-1", "catalog-api-2", "catalog-api-3"]
    vol = "vol-0c41e7a9b2d6f3a58"
    return simple(
        211,
        start,
        incident("online shop slow", "online shop", start, ["product pages take ages"]),
        expected(
            "app",
            ["catalog-db", vol],
            "burst_balance",
            f"catalog-db's data volume {vol} is a 100 GiB gp2 volume (300 IOPS baseline). The nightly search re-index, started late today, read it hard for 90 min and spent the whole burst balance; at 0% the volume is held to 300 IOPS, read latency jumps from ~1 ms to ~180 ms and every query waits on the disk. CPU and connections on catalog-db are normal. catalog-api's timeouts are the victim's; its release, the image CDN warnings and the old replication slot error are not the cause; the re-index is the trigger.",
            [
                f"aws_ebs_burst_balance_average{{volume_id={vol}}} 100 -> 0",
                "node_disk_read_await_ms{instance=catalog-db} 1 -> 180; volume_queue_length 40",
                "catalog-db slow query log: duration 2-4 s on primary-key lookups",
            ],
            "Move the volume to gp3 with provisioned IOPS (or io2), and schedule the re-index off-peak / against a replica.",
        ),
        [
            bg(
                "catalog-api",
                pods,
                [
                    "GET /v2/products/{n} 200 {ms}ms",
                    "GET /v2/categories/{n}/products 200 {ms}ms",
                ],
                8,
            ),
            bg(
                "storefront",
                ["storefront-1", "storefront-2"],
                ["GET /p/{n} 200 {ms}ms"],
                10,
            ),
        ],
        [
            ev(
                "search-indexer",
                "info",
                "full re-index of catalog started (12.4M documents, source catalog-db)",
                at=start - 5400,
            ),
            ev(
                "search-indexer",
                "info",
                "re-index progress {ms}% ({n} docs/s)",
                **{"from": start - 5300, "to": -60, "every_s": 600},
            ),
            ev(
                "catalog-db",
                "warn",
                "duration: 3{ms}4.112 ms  statement: SELECT * FROM products WHERE id = $1",
                **{"from": start, "to": -3, "every_s": 12},
                pods=["catalog-db-0"],
            ),
            ev(
                "catalog-api",
                "error",
                "GET /v2/products/{n} 504: query timeout after 3000ms",
                **{"from": start + 40, "to": -2, "every_s": 3},
                pods=pods,
            ),
            ev(
                "storefront",
                "error",
                "GET /p/{n} 502: catalog-api timed out",
                **{"from": start + 60, "to": -2, "every_s": 2},
                pods=["storefront-1", "storefront-2"],
            ),
            ev(
                "catalog-api",
                "info",
                "catalog-api 17.2.0 started (bundle pricing)",
                at=start - 3000,
                pods=pods,
            ),
            ev(
                "image-cdn",
                "warn",
                "origin fetch for /img/{n}.webp slow: {ms}00ms",
                **{"from": -3600, "to": -10, "every_s": 180},
            ),
            ev(
                "catalog-db",
                "error",
                'replication slot "debezium_catalog" is inactive; WAL retained {ms}GB',
                **{"from": -7000, "to": -6900, "every_s": 50},
                pods=["catalog-db-0"],
            ),
        ],
        [
            {
                "name": "catalog-api",
                "rps": 110,
                "errors": {"504": (0.001, 0.22)},
                "latency": (0.02, 2.4),
            },
            {
                "name": "storefront",
                "rps": 90,
                "errors": {"502": (0.001, 0.24)},
                "latency": (0.1, 2.9),
            },
        ],
        [
            {
                "name": "node_disk_read_await_ms",
                "labels": {"instance": "catalog-db", "device": "nvme1n1"},
                "before": 1.1,
                "after": 180,
                "change_at": start - 60,
            },
            {
                "name": "aws_ebs_volume_queue_length_average",
                "labels": {"volume_id": vol},
                "before": 0.6,
                "after": 41,
                "change_at": start - 60,
            },
            {
                "name": "node_cpu_utilisation",
                "labels": {"instance": "catalog-db"},
                "before": 0.31,
                "after": 0.24,
            },
            {
                "name": "pg_stat_activity_count",
                "labels": {"instance": "catalog-db", "state": "active"},
                "before": 12,
                "after": 58,
                "change_at": start,
            },
        ],
        {
            "shop-slow.md": runbook(
                "Shop slow",
                "Slow product pages are usually catalog-api's cache: check the hit ratio of catalog-cache and scale catalog-api to 6 replicas; if catalog-db CPU is above 80%, kill the longest query.",
            )
        },
        ramps=[
            {
                "name": "aws_ebs_burst_balance_average",
                "labels": {"volume_id": vol, "instance": "catalog-db"},
                "before": 100.0,
                "after": 0.0,
                "from": start - 5400,
                "to": start - 60,
                "noise": 0.0,
            },
            {
                "name": "aws_ebs_volume_read_ops_average",
                "labels": {"volume_id": vol},
                "before": 2900.0,
                "after": 2950.0,
                "from": start - 5400,
                "to": start - 60,
                "noise": 0.03,
            },
        ],
    )


# =================================================================================================
# 12. A file-descriptor leak after a release: media-proxy 7.2 never closes the upstream response
#     body on 304s; open fds climb for hours until accept() fails with EMFILE. The incident says
#     "mobile app".
# =================================================================================================


@scenario("fd-leak-too-many-open-files")
def fd_leak_too_many_open_files() -> dict[str, Any]:
    start = -1200
    pods = ["media-proxy-1", "media-proxy-2"]
    return simple(
        212,
        start,
        incident("images not loading in the app", "mobile app", start),
        expected(
            "app",
            ["media-proxy"],
            "too many open files",
            "media-proxy 7.2.0 (released 1 h 50 min ago) does not close the upstream response body when the origin answers 304 Not Modified, so every revalidation leaks a socket. Open file descriptors climbed from ~300 to the 65536 limit; since 20 min ago accept() fails (accept4: too many open files) and the proxy drops new connections, so cdn-edge gets 502s from its origin. cdn-edge's 502s are the loud victim; its config change, the thumbnailer's queue warnings and the old S3 throttling are not the cause.",
            [
                "media-proxy: http: Accept error: accept tcp [::]:8080: accept4: too many open files; retrying in 1s",
                "process_open_fds{service=media-proxy} rising since the 7.2.0 release to 65536 (process_max_fds)",
                "cdn-edge: origin media-proxy 502",
            ],
            "Restart media-proxy to release the descriptors now and roll back to 7.1.x; fix the missing resp.Body.Close() on 304 responses.",
        ),
        [
            bg(
                "media-proxy",
                pods,
                ["GET /m/{n}.jpg 200 {ms}ms", "GET /m/{n}.jpg 304 {ms}ms"],
                8,
                until=start,
            ),
            bg(
                "cdn-edge",
                ["edge-fra-1", "edge-ams-2"],
                ["GET /m/{n}.jpg HIT 200 {ms}ms"],
                8,
            ),
        ],
        [
            ev(
                "media-proxy",
                "info",
                "media-proxy 7.2.0 started (conditional revalidation against origin with If-None-Match)",
                at=-6600,
                pods=pods,
            ),
            ev(
                "media-proxy",
                "error",
                "http: Accept error: accept tcp [::]:8080: accept4: too many open files; retrying in 1s",
                **{"from": start, "to": -2, "every_s": 3},
                pods=pods,
            ),
            ev(
                "media-proxy",
                "warn",
                "origin fetch failed: dial tcp 10.12.4.20:443: socket: too many open files",
                **{"from": start + 30, "to": -3, "every_s": 11},
                pods=pods,
            ),
            ev(
                "cdn-edge",
                "error",
                "GET /m/{n}.jpg MISS 502: origin media-proxy.internal connection reset",
                **{"from": start + 10, "to": -2, "every_s": 1.2},
                pods=["edge-fra-1", "edge-ams-2"],
            ),
            ev(
                "cdn-edge",
                "info",
                "config v4410 deployed: Cache-Control max-age for /m/* lowered 86400 -> 3600",
                at=start - 2600,
            ),
            ev(
                "thumbnailer",
                "warn",
                "thumbnail queue {n} jobs behind",
                **{"from": -3500, "to": -10, "every_s": 200},
            ),
            ev(
                "media-proxy",
                "error",
                "origin s3: SlowDown: Please reduce your request rate",
                **{"from": -7000, "to": -6900, "every_s": 25},
                pods=pods,
            ),
        ],
        [
            {
                "name": "cdn-edge",
                "rps": 400,
                "errors": {"502": (0.001, 0.3)},
                "latency": (0.02, 0.3),
            },
            {
                "name": "media-proxy",
                "rps": 120,
                "rps_after": 20,
                "errors": {"502": (0.0, 0.1)},
                "latency": (0.05, 0.05),
            },
        ],
        [
            {
                "name": "process_max_fds",
                "labels": {"service": "media-proxy"},
                "before": 65536,
                "after": 65536,
                "noise": 0.0,
            }
        ],
        {
            "images-broken.md": runbook(
                "Images broken in the app",
                "Broken images after a CDN change: roll back the last cdn-edge config and purge /m/* so clients refetch.",
            )
        },
        ramps=[
            {
                "name": "process_open_fds",
                "labels": {"service": "media-proxy", "instance": p},
                "before": 310.0,
                "after": 65536.0,
                "from": -6600,
                "to": start,
                "cap": 65536,
                "noise": 0.01,
            }
            for p in pods
        ],
    )


# =================================================================================================
# 13. A topic's retention cut below a consumer's pause: a clean-up script set retention.ms to 1 h on
#     payments.settlements; the reconciler was stopped for 2 h of maintenance and on restart its
#     offsets are gone; auto.offset.reset=latest skips 2 h of settlements silently. The incident
#     says "merchant dashboard".
# =================================================================================================


@scenario("kafka-retention-offset-reset")
def kafka_retention_offset_reset() -> dict[str, Any]:
    start = -1320
    pods = ["settlement-reconciler-0", "settlement-reconciler-1"]
    return simple(
        213,
        start,
        incident(
            "merchant payout totals don't match",
            "merchant dashboard",
            start,
            ["yesterday's totals are too low"],
        ),
        expected(
            "app",
            ["payments.settlements", "settlement-reconciler", "retention.ms"],
            "is out of range for partition",
            "kafka-housekeeping lowered retention.ms on payments.settlements to 3600000 (1 h) in a clean-up of 'dev-like' topics. settlement-reconciler was stopped for 2 h for a database maintenance; when it resumed 22 min ago its committed offsets were already deleted (Fetch position … is out of range for partition), and with auto.offset.reset=latest it jumped to the end, silently skipping ~2 h of settlements: merchants' totals are too low. The reconciler's 'unmatched' errors and the dashboard's complaints are effects; merchant-dashboard's release, the broker's old ISR shrink and the runbook's re-run are not the fix.",
            [
                "settlement-reconciler: Fetch position FetchPosition{offset=…} is out of range for partition payments.settlements-N, resetting offset",
                "kafka-housekeeping: payments.settlements retention.ms 604800000 -> 3600000",
                "kafka_consumergroup_lag fell to 0 at restart although 2 h were unprocessed",
            ],
            "Restore retention.ms to 7 days, set auto.offset.reset=earliest (or fail) for the reconciler, and replay the gap from the payments ledger / the producer's outbox.",
        ),
        [
            bg(
                "settlement-reconciler",
                pods,
                ["settlement {n} matched to payout batch {n}"],
                8,
                **{"from": start},
            ),
            bg(
                "merchant-dashboard",
                ["merchant-dashboard-1"],
                ["GET /payouts/summary 200 {ms}ms"],
                10,
            ),
        ],
        [
            ev(
                "kafka-housekeeping",
                "info",
                "topic payments.settlements: retention.ms 604800000 -> 3600000 (cleanup PLAT-2207: topics without an owner tag)",
                at=-7150,
            ),
            ev(
                "settlement-reconciler",
                "info",
                "shutting down for maintenance window (ledger-db vacuum full)",
                at=-7100,
                pods=pods,
            ),
            ev(
                "settlement-reconciler",
                "info",
                "started; consumer group settlement-reconciler, auto.offset.reset=latest",
                at=start - 30,
                pods=pods,
            ),
            ev(
                "settlement-reconciler",
                "info",
                "[Consumer clientId=reconciler-{ms}, groupId=settlement-reconciler] Fetch position FetchPosition{offset={n}, offsetEpoch=Optional[41]} is out of range for partition payments.settlements-{ms}, resetting offset",
                **{"from": start - 25, "to": start - 5, "every_s": 2.5},
                pods=pods,
            ),
            ev(
                "settlement-reconciler",
                "info",
                "[Consumer clientId=reconciler-{ms}, groupId=settlement-reconciler] Resetting offset for partition payments.settlements-{ms} to position FetchPosition{offset={n}}",
                **{"from": start - 24, "to": start - 4, "every_s": 2.5},
                pods=pods,
            ),
            ev(
                "settlement-reconciler",
                "error",
                "payout batch {n}: 1{ms} settlements unmatched (expected from acquirer file, not seen on topic)",
                **{"from": start + 60, "to": -5, "every_s": 40},
                pods=pods,
            ),
            ev(
                "merchant-dashboard",
                "warn",
                "payout summary for merchant {n} differs from acquirer statement by {ms}.{ms}%",
                **{"from": start + 120, "to": -5, "every_s": 20},
                pods=["merchant-dashboard-1"],
            ),
            ev(
                "merchant-dashboard",
                "info",
                "merchant-dashboard 30.2.0 released (CSV export of fees)",
                at=start - 600,
                pods=["merchant-dashboard-1"],
            ),
            ev(
                "kafka",
                "warn",
                "[Partition payments.settlements-3 broker=2] Shrinking ISR from 1,2,3 to 2,3",
                **{"from": -6000, "to": -5950, "every_s": 20},
                pods=["kafka-2"],
            ),
            ev(
                "fx-rates",
                "warn",
                "ECB reference rate for {ms} missing, using previous day",
                **{"from": -3500, "to": -10, "every_s": 600},
            ),
        ],
        [
            {"name": "merchant-dashboard", "rps": 8, "latency": (0.07, 0.07)},
            {"name": "settlement-reconciler", "rps": 30, "latency": (0.01, 0.01)},
        ],
        [
            {
                "name": "kafka_consumergroup_lag",
                "labels": {
                    "consumergroup": "settlement-reconciler",
                    "topic": "payments.settlements",
                },
                "before": 12,
                "after": 3,
                "change_at": start,
            },
            {
                "name": "kafka_topic_config_retention_ms",
                "labels": {"topic": "payments.settlements"},
                "before": 604800000,
                "after": 3600000,
                "change_at": -7150,
                "noise": 0.0,
            },
            {
                "name": "reconciler_unmatched_settlements",
                "labels": {"service": "settlement-reconciler"},
                "before": 0,
                "after": 140,
                "change_at": start + 60,
            },
        ],
        {
            "reconciliation-mismatch.md": runbook(
                "Payout totals mismatch",
                "When payout totals differ from the acquirer statement, re-run the reconciliation job for the day (`reconcile --date`) and check the acquirer file for late records.",
            )
        },
    )


# =================================================================================================
# 14. A canary weight entered the wrong way round: the traffic split meant 95/5 stable/canary is
#     5/95, so nearly all pricing traffic goes to pricing-canary 4.0.0-rc2, which fails on EU VAT.
#     The incident says "checkout".
# =================================================================================================


@scenario("canary-weight-inverted")
def canary_weight_inverted() -> dict[str, Any]:
    start = -960
    stable = ["pricing-stable-1", "pricing-stable-2", "pricing-stable-3"]
    canary = ["pricing-canary-1"]
    return simple(
        214,
        start,
        incident("customers can't pay", "checkout", start),
        expected(
            "app",
            ["pricing-canary", "traefik", "pricing"],
            "weight=95",
            "A Traefik dynamic-config change 17 min ago meant to start pricing 4.0.0-rc2's canary at 5% entered the weights the wrong way round: pricing-stable weight=5, pricing-canary weight=95. The canary raises KeyError 'vat_rate' for EU countries without a reduced rate; with 95% of traffic on it, checkout's price calls fail. The 3 stable pods sit nearly idle. checkout-web's 502s are the loud victim; the promo-service release, the stale currency warnings and the old timeouts are not the cause; the runbook's rollback of pricing-stable would not help.",
            [
                "traefik: weighted service pricing: pricing-stable weight=5, pricing-canary weight=95",
                "pricing-canary: KeyError: 'vat_rate' for country DE/FR/…",
                "http_requests_total: pricing-canary 95% of pricing traffic",
            ],
            "Swap the weights back (stable 95 / canary 5, or 100/0), then fix the canary's VAT lookup before promoting it.",
        ),
        [
            bg("pricing-stable", stable, ["POST /v1/price 200 {ms}ms"], 8, until=start),
            bg(
                "pricing-stable",
                stable,
                ["POST /v1/price 200 {ms}ms"],
                60,
                **{"from": start},
            ),
            bg(
                "checkout-web",
                ["checkout-web-1", "checkout-web-2"],
                ["GET /checkout 200 {ms}ms"],
                8,
            ),
        ],
        [
            ev(
                "traefik",
                "info",
                'Configuration reload: file provider "dynamic/pricing.yml": weighted service pricing: pricing-stable weight=5, pricing-canary weight=95 (commit 4b1e9c2 "start pricing 4.0 canary")',
                at=start - 40,
            ),
            ev(
                "pricing-canary",
                "info",
                "pricing 4.0.0-rc2 started (tax engine rewrite)",
                at=start - 2000,
                pods=canary,
            ),
            ev(
                "pricing-canary",
                "error",
                "POST /v1/price 500: KeyError: 'vat_rate' (country={ms}, basket {n})",
                **{"from": start, "to": -2, "every_s": 1.1},
                pods=canary,
            ),
            ev(
                "checkout-web",
                "error",
                "POST /checkout/pay 502: pricing returned 500",
                **{"from": start + 10, "to": -2, "every_s": 0.9},
                pods=["checkout-web-1", "checkout-web-2"],
            ),
            ev(
                "promo-service",
                "info",
                "promo-service 12.1.0 released (advent calendar codes)",
                at=start - 420,
            ),
            ev(
                "currency-feed",
                "warn",
                "rate for HUF older than 6h",
                **{"from": -3500, "to": -10, "every_s": 500},
            ),
            ev(
                "pricing-stable",
                "error",
                "POST /v1/price 504: tax-rules service timed out",
                **{"from": -6700, "to": -6600, "every_s": 20},
                pods=stable,
            ),
        ],
        [
            {
                "name": "checkout-web",
                "rps": 60,
                "errors": {"502": (0.002, 0.41)},
                "latency": (0.15, 0.2),
            },
            {
                "name": "pricing-canary",
                "rps": 0.0,
                "rps_after": 57,
                "errors": {"500": (0.0, 0.43)},
                "latency": (0.02, 0.02),
                "change_at": start - 40,
            },
            {
                "name": "pricing-stable",
                "rps": 60,
                "rps_after": 3,
                "latency": (0.02, 0.02),
                "change_at": start - 40,
            },
        ],
        [
            {
                "name": "traefik_service_server_weight",
                "labels": {"service": "pricing@file", "server": "pricing-canary"},
                "before": 0,
                "after": 95,
                "change_at": start - 40,
                "noise": 0.0,
            },
            {
                "name": "traefik_service_server_weight",
                "labels": {"service": "pricing@file", "server": "pricing-stable"},
                "before": 100,
                "after": 5,
                "change_at": start - 40,
                "noise": 0.0,
            },
        ],
        {
            "pricing-errors.md": runbook(
                "Pricing errors at checkout",
                "If pricing answers 5xx, roll pricing-stable back to its previous release with `deployctl rollback pricing-stable` and check tax-rules latency.",
            )
        },
    )


# =================================================================================================
# 15. A full inode table: the forum's PHP session files are never cleaned since a config-management
#     change dropped the sessionclean timer; 9 days of sessions fill /var's inodes while df shows 41%
#     used. session_start() fails with ENOSPC. The incident says "community".
# =================================================================================================


@scenario("inode-exhaustion-sessions")
def inode_exhaustion_sessions() -> dict[str, Any]:
    start = -1140
    hosts = ["forum-web-01", "forum-web-02"]
    return simple(
        215,
        start,
        incident("can't log in to the community forum", "community", start),
        expected(
            "app",
            ["forum-web", "/var/lib/php/sessions", "phpsessionclean"],
            "No space left on device",
            "The forum's PHP session files in /var/lib/php/sessions are never deleted: Debian disables PHP's own session GC (session.gc_probability=0) and relies on the phpsessionclean timer, which a config-management change removed 9 days ago. 3.2M tiny files have used every inode of /var (df still shows 41% used), so since 19 min ago session_start() fails with No space left on device and nobody can log in or post. forum-db's slow queries, the theme release, the search indexer warnings and the stale disk-usage alert are not the cause.",
            [
                "forum-web: session_start(): open(/var/lib/php/sessions/sess_…, O_RDWR) failed: No space left on device (28)",
                "node_filesystem_files_free{mountpoint=/var} 0 while node_filesystem_avail_bytes ~ 59% free",
                "ansible: role php removed phpsessionclean.timer 9 days ago",
            ],
            "Delete expired session files (find /var/lib/php/sessions -mmin +1440 -delete), restore the phpsessionclean timer (or session.gc_probability=1), and alert on inodes.",
        ),
        [
            bg(
                "forum-web",
                hosts,
                ["GET /t/{n} 200 {ms}ms", "GET /latest 200 {ms}ms"],
                8,
            ),
            bg(
                "forum-db",
                ["forum-db-1"],
                ["checkpoint complete: wrote {n} buffers"],
                120,
            ),
        ],
        [
            ev(
                "forum-web",
                "error",
                "PHP Warning:  session_start(): open(/var/lib/php/sessions/sess_{n}, O_RDWR) failed: No space left on device (28) in /srv/forum/src/Auth/Session.php on line 41",
                **{"from": start, "to": -2, "every_s": 2},
                pods=hosts,
            ),
            ev(
                "forum-web",
                "error",
                "POST /login 500: session could not be started",
                **{"from": start + 5, "to": -2, "every_s": 4},
                pods=hosts,
            ),
            ev(
                "forum-db",
                "warn",
                "duration: 1{ms}2.4 ms  statement: SELECT … FROM posts WHERE topic_id = $1 ORDER BY created_at",
                **{"from": -3500, "to": -10, "every_s": 150},
                pods=["forum-db-1"],
            ),
            ev(
                "forum-web",
                "info",
                "theme 'winter-2026' deployed (snowfall header)",
                at=start - 1300,
                pods=hosts,
            ),
            ev(
                "search-indexer",
                "warn",
                "meilisearch task {n} enqueued for {ms}s",
                **{"from": -3600, "to": -30, "every_s": 400},
            ),
            ev(
                "node-exporter",
                "warn",
                "alert DiskUsageHigh resolved: /var 78% -> 41% after log cleanup",
                at=-8400,
                labels={"host": "forum-web-01"},
            ),
        ],
        [
            {
                "name": "forum-web",
                "rps": 35,
                "errors": {"500": (0.001, 0.45)},
                "latency": (0.06, 0.05),
            },
        ],
        [
            *[
                {
                    "name": "node_filesystem_avail_bytes",
                    "labels": {"instance": h, "mountpoint": "/var"},
                    "before": 3.02e10,
                    "after": 3.0e10,
                    "noise": 0.002,
                }
                for h in hosts
            ],
            *[
                {
                    "name": "node_filesystem_files_free",
                    "labels": {"instance": h, "mountpoint": "/var"},
                    "before": 1800,
                    "after": 0,
                    "change_at": start - 30,
                    "noise": 0.3,
                }
                for h in hosts
            ],
        ],
        {
            "disk-full.md": runbook(
                "No space left on device",
                "When a host reports no space left, check `df -h`; clean /var/log/journal (`journalctl --vacuum-size=500M`) and old releases under /srv/forum/releases.",
            )
        },
    )


# =================================================================================================
# 16. An upstream API changed a response field: ParcelHub moved `delivery_date` into an `estimate`
#     object; parcelhub-adapter's parser dereferences the old field and throws a NullPointerException
#     on every quote. The API itself answers 200. The incident says "delivery options".
# =================================================================================================


@scenario("upstream-field-renamed-npe")
def upstream_field_renamed_npe() -> dict[str, Any]:
    start = -1080
    pods = ["parcelhub-adapter-1", "parcelhub-adapter-2"]
    spec = simple(
        216,
        start,
        incident(
            "no delivery options at checkout",
            "delivery options",
            start,
            ["no delivery options shown"],
        ),
        expected(
            "app",
            ["parcelhub-adapter", "api.parcelhub.example", "parcelhub"],
            "NullPointerException",
            "ParcelHub shipped API 2026-12 on its v2 endpoint 18 min ago: the quote response's top-level delivery_date moved into estimate.delivery_window. parcelhub-adapter's parser reads the old field and throws a NullPointerException on every quote, so the delivery-options service gets no ParcelHub options and shows none. ParcelHub answers 200 quickly (netcheck healthy). checkout-web's errors are the victim's; the dhl-adapter release, the address-validation warnings and the old ParcelHub timeouts are not the cause; the runbook's 'carrier outage' fits the symptom, not this.",
            [
                'parcelhub-adapter: java.lang.NullPointerException: Cannot invoke "String.length()" because "quote.deliveryDate" is null at com.shop.carriers.parcelhub.QuoteParser.parse',
                "ParcelHub responses: HTTP 200, X-Api-Release: 2026-12, deprecation notice for delivery_date",
                "delivery-options: 0 options from parcelhub",
            ],
            "Pin the ParcelHub API version header to 2026-11 (or fall back to estimate.delivery_window in the parser) and redeploy parcelhub-adapter.",
        ),
        [
            bg("parcelhub-adapter", pods, ["POST /quotes 200 {ms}ms"], 8, until=start),
            bg(
                "delivery-options",
                ["delivery-options-1", "delivery-options-2"],
                ["GET /options?postcode={n} 200 {ms}ms"],
                8,
            ),
        ],
        [
            ev(
                "parcelhub-adapter",
                "warn",
                "ParcelHub response header Deprecation: delivery_date moves to estimate.delivery_window in API release 2026-12 (Sunset 2026-12-05)",
                **{"from": -7000, "to": start, "every_s": 900},
                pods=pods,
            ),
            ev(
                "parcelhub-adapter",
                "info",
                "ParcelHub answered 200 in {ms}ms (X-Api-Release: 2026-12)",
                **{"from": start, "to": -5, "every_s": 30},
                pods=pods,
            ),
            ev(
                "parcelhub-adapter",
                "error",
                'POST /quotes 500: java.lang.NullPointerException: Cannot invoke "String.length()" because "quote.deliveryDate" is null\n\tat com.shop.carriers.parcelhub.QuoteParser.parse(QuoteParser.java:88)',
                **{"from": start, "to": -2, "every_s": 1.5},
                pods=pods,
            ),
            ev(
                "delivery-options",
                "warn",
                "carrier parcelhub returned no options for postcode {n}: upstream 500",
                **{"from": start + 5, "to": -2, "every_s": 2},
                pods=["delivery-options-1", "delivery-options-2"],
            ),
            ev(
                "checkout-web",
                "error",
                "GET /checkout/delivery 502: no delivery options available",
                **{"from": start + 10, "to": -2, "every_s": 1.3},
                pods=["checkout-web-1", "checkout-web-2"],
            ),
            ev(
                "dhl-adapter",
                "info",
                "dhl-adapter 5.4.0 started (Packstation labels)",
                at=start - 500,
            ),
            ev(
                "address-validation",
                "warn",
                "postcode lookup fallback to cache for {n}",
                **{"from": -3500, "to": -10, "every_s": 300},
            ),
            ev(
                "parcelhub-adapter",
                "error",
                "ParcelHub POST /v2/quotes timed out after 5000ms",
                **{"from": -6500, "to": -6400, "every_s": 20},
                pods=pods,
            ),
        ],
        [
            {
                "name": "checkout-web",
                "rps": 40,
                "errors": {"502": (0.002, 0.5)},
                "latency": (0.12, 0.13),
            },
            {
                "name": "parcelhub-adapter",
                "rps": 30,
                "errors": {"500": (0.0, 0.99)},
                "latency": (0.18, 0.19),
            },
            {"name": "delivery-options", "rps": 30, "latency": (0.2, 0.2)},
        ],
        [],
        {
            "carrier-outage.md": runbook(
                "No delivery options",
                "Missing delivery options mean a carrier outage: check the carriers' status pages and enable the flat-rate fallback (`DELIVERY_FALLBACK=flat`) in delivery-options.",
            )
        },
    )
    spec["targets"] = [
        {
            "name": "parcelhub-api",
            "url": "https://api.parcelhub.example/v2/quotes",
            "fault": {
                "kind": "ok",
                "status": 200,
                "body": '{"quote_id":"q_81x","estimate":{"delivery_window":{"from":"2026-12-08","to":"2026-12-09"}},"price":{"amount":4.9,"currency":"EUR"}}',
                "headers": {
                    "X-Api-Release": "2026-12",
                    "Content-Type": "application/json",
                },
            },
        },
        {
            "name": "delivery-options",
            "url": "http://delivery-options.internal/healthz",
            "fault": {"kind": "ok"},
        },
    ]
    spec["expected"]["netcheck"] = {
        "parcelhub-api": {"failed_layer": "none", "reason": None},
        "delivery-options": {"failed_layer": "none", "reason": None},
    }
    return spec


def main(root: Path = HERE) -> None:
    for slug, build in SCENARIOS.items():
        base.write(slug, build(), root)
        print(slug)


if __name__ == "__main__":
    main()
