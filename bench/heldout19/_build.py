"""Writes the nineteenth held-out scenario set, bench/heldout19: `python bench/heldout19/_build.py`.

The issue's own catalogue of classes, one case per class, as they happen in fintech, media, SaaS and
retail companies; none of them repeats a situation of the bundled set or of bench/heldout …
bench/heldout18. As there, everything that matters is written by hand below (incident, expected
answer, runbooks, kubectl answers, the log lines that carry the fault and the red herrings); the bulk
comes from bench/heldout18/_build.py's shorthands and, through it, heldout15's and the earlier
builders' helpers, each scenario with a fixed seed (497-512). The author read neither the planner
(`reasoning/`) nor the engine (`diagnosis/engine/`, `docs/engine.md`), nor their tests, nor any
score file. Stdlib only.
"""

from __future__ import annotations

import importlib.util
import re
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


h18 = _load("heldout18_build", HERE.parent / "heldout18" / "_build.py")
h15 = h18.h15
base = h18.base

table = base.table
events = base.events
runbook = base.runbook
app = h18.app
pod_name = h18.pod_name
namespace = h18.namespace
ev = h18.ev
bg = h18.bg
incident = h18.incident
expected = h18.expected
simple = h18.simple
container_text = h18.container_text
deployment_describe = h18.deployment_describe
describe_pod = h18.describe_pod
podlog = h18.podlog
running = h18.running
crashloop = h18.crashloop
node_describe = h18.node_describe
pending_pod = h18.pending_pod
sched = h18.sched
kube_case = h18.kube_case
pods_of = h18.pods_of
svc = h18.svc
every = h18.every
gauge = h18.gauge
with_netcheck = h18.with_netcheck
NODES_FRA = h18.NODES_FRA
NODES_IAD = h18.NODES_IAD
NODES_DUB = h18.NODES_DUB
NODES_PDX = h18.NODES_PDX

SCENARIOS: dict[str, Any] = {}


def scenario(slug: str):
    def register(fn):
        SCENARIOS[slug] = fn
        return fn

    return register


def hpa_row(name: str, targets: str, lo: int, hi: int, n: int, age: str) -> list[str]:
    return [name, f"Deployment/{name}", targets, str(lo), str(hi), str(n), age]


HPA_HEAD = ["NAME", "REFERENCE", "TARGETS", "MINPODS", "MAXPODS", "REPLICAS", "AGE"]


# =================================================================================================
# 1. HPA at maxReplicas under a load that is not the cause (fintech): card-auth 8.2.0 validates
#    every authorisation request against a JSON schema it compiles per request (PR #1187, "strict
#    ISO 8583 field checks"). CPU per request triples; the HPA climbs to its maximum of 12 and
#    reports ScalingLimited while the traffic is the same as last Friday's. Authorisations queue and
#    time out at the card network. The incident says "card payments declined".
# =================================================================================================


@scenario("card-auth-schema-compiled-per-request-hpa-max")
def card_auth_schema_compiled_per_request_hpa_max() -> dict[str, Any]:
    start = -2100
    ns = "cards"
    rs = "7b9c5d8f64"
    img = "123456789012.dkr.ecr.eu-west-1.amazonaws.com/cards/card-auth:8.2.0"
    pods = [
        (s, "1/1", "Running", "0", age, i % 3)
        for i, (s, age) in enumerate(
            [
                ("b4kzt", "52m"),
                ("c8mqd", "52m"),
                ("d2xlp", "51m"),
                ("f7vnw", "34m"),
                ("g5rtc", "34m"),
                ("h9pqs", "33m"),
                ("j3wky", "33m"),
                ("k6dzn", "30m"),
                ("m1tbf", "30m"),
                ("n8cxv", "29m"),
                ("p4hgl", "29m"),
                ("q7sjr", "29m"),
            ]
        )
    ]
    ca = app(
        "card-auth", image=img, port=8443, rs=rs, cluster_ip="172.20.61.10", pods=pods
    )
    gw = app(
        "issuer-gateway",
        image="123456789012.dkr.ecr.eu-west-1.amazonaws.com/cards/issuer-gateway:3.11.4",
        port=8080,
        rs="5f6d8c7b9",
        cluster_ip="172.20.61.22",
        pods=[
            (s, "1/1", "Running", "0", "9d", i)
            for i, s in enumerate(["r2mzq", "t5kvx", "w8jnd"])
        ],
    )
    k8s = namespace(ns, NODES_DUB, [ca, gw], seed=497)
    sig = "the desired replica count is more than the maximum replica count"
    k8s[f"kubectl get horizontalpodautoscalers -n {ns}"] = table(
        [
            HPA_HEAD,
            hpa_row("card-auth", "cpu: 188%/60%", 4, 12, 12, "2y"),
            hpa_row("issuer-gateway", "cpu: 31%/70%", 3, 10, 3, "2y"),
        ]
    )
    k8s[f"kubectl describe horizontalpodautoscalers card-auth -n {ns}"] = (
        f"Name:                                                  card-auth\n"
        f"Namespace:                                             {ns}\n"
        "Reference:                                             Deployment/card-auth\n"
        "Metrics:                                               ( current / target )\n"
        "  resource cpu on pods  (as a percentage of request):  188% (1881m) / 60%\n"
        "Min replicas:                                          4\n"
        "Max replicas:                                          12\n"
        "Deployment pods:                                       12 current / 12 desired\n"
        "Conditions:\n"
        "  Type            Status  Reason               Message\n"
        "  ----            ------  ------               -------\n"
        "  AbleToScale     True    ReadyForNewScale     recommended size matches current size\n"
        "  ScalingActive   True    ValidMetricFound     the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)\n"
        f"  ScalingLimited  True    TooManyReplicas      {sig}\n"
        "Events:\n"
        "  Type    Reason             Age   From                       Message\n"
        "  ----    ------             ----  ----                       -------\n"
        "  Normal  SuccessfulRescale  34m   horizontal-pod-autoscaler  New size: 7; reason: cpu resource utilization (percentage of request) above target\n"
        "  Normal  SuccessfulRescale  30m   horizontal-pod-autoscaler  New size: 12; reason: cpu resource utilization (percentage of request) above target\n"
    )
    cont = container_text(
        "card-auth",
        img,
        8443,
        env={"SCHEMA_VALIDATION": "strict", "ISO8583_PROFILE": "visa-base1"},
        limits="cpu:     2\n  memory:  1Gi",
        requests="cpu:      1\n  memory:   1Gi",
    )
    k8s[f"kubectl describe deployments card-auth -n {ns}"] = deployment_describe(
        "card-auth",
        ns,
        replicas="12 desired | 12 updated | 12 total | 12 available | 0 unavailable",
        revision=212,
        containers=cont,
        conditions=[
            ("Available", "True", "MinimumReplicasAvailable"),
            ("Progressing", "True", "NewReplicaSetAvailable"),
        ],
        old_rs="card-auth-6d8f7c9b55 (0/0 replicas created)",
        new_rs=f"card-auth-{rs} (12/12 replicas created)",
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "53m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/card-auth",
                f"Scaled up replica set card-auth-{rs} to 1",
            ),
            (
                "51m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/card-auth",
                "Scaled down replica set card-auth-6d8f7c9b55 to 0 from 1",
            ),
            (
                "34m",
                "Normal",
                "SuccessfulRescale",
                "HorizontalPodAutoscaler/card-auth",
                "New size: 7; reason: cpu resource utilization (percentage of request) above target",
            ),
            (
                "30m",
                "Normal",
                "SuccessfulRescale",
                "HorizontalPodAutoscaler/card-auth",
                "New size: 12; reason: cpu resource utilization (percentage of request) above target",
            ),
        ]
    )
    evs = [
        ev(
            "argocd",
            "info",
            "application cards-prod/card-auth synced to 8.2.0 (PR #1187 'strict ISO 8583 field checks: validate every request against auth-request.schema.json'), health Healthy",
            at=-3190,
        ),
        ev(
            "card-auth",
            "warn",
            'time={iso} level=WARN msg="slow authorisation" stan={n} validate_ms=1{ms} total_ms=2{ms} schema=auth-request.schema.json compiled=true',
            **every(start + 60, -5, 9),
            pods=pods_of(ca),
        ),
        ev(
            "card-auth",
            "info",
            'time={iso} level=INFO msg="card-auth 8.2.0 starting" schema_validation=strict schema_cache=disabled',
            at=-3150,
            pods=pods_of(ca),
        ),
        ev(
            "issuer-gateway",
            "error",
            '{"@timestamp":"{iso}","level":"ERROR","logger":"c.n.issuer.AuthRelay","message":"card-auth did not answer within 1500 ms, stand-in decline 91 (issuer unavailable)","stan":"{n}"}',
            **every(start + 240, -3, 6),
            pods=pods_of(gw),
        ),
        ev(
            "payday-banner",
            "info",
            "campaign 'Friday payday' started: push sent to 1.2M customers",
            at=start - 300,
        ),
        ev(
            "fraud-stream",
            "warn",
            "kafka consumer lag on card-events partition 7: 1{n} records",
            **every(-6900, -40, 300),
        ),
        ev(
            "card-auth",
            "error",
            'time={iso} level=ERROR msg="HSM session reset" hsm=hsm-b error="connection reset by peer"',
            **every(-10400, -9800, 120),
            pods=pods_of(ca),
        ),
    ]
    return kube_case(
        seed=497,
        start=start,
        inc=incident(
            "Card payments declined, lots of 'issuer unavailable'",
            "card payments",
            start,
        ),
        exp=expected(
            "application",
            [
                "deployment/card-auth",
                "card-auth",
                "card-auth 8.2.0",
                "schema validation",
                "auth-request.schema.json",
                "PR #1187",
            ],
            sig,
            "card-auth 8.2.0 (PR #1187) compiles the auth-request JSON schema on every request; CPU per authorisation triples, so at an ordinary Friday load the HPA runs at its maximum of 12 (ScalingLimited: TooManyReplicas) and still cannot keep up. issuer-gateway's stand-in declines are the victim, the payday push is not the cause (traffic is as last week), the HSM resets are old.",
            [
                "HPA card-auth ScalingLimited True TooManyReplicas at 12/12, cpu 188%/60%",
                "card-auth slow authorisation validate_ms ~1 s, schema_cache=disabled",
                "argocd synced card-auth 8.2.0 53 min ago",
            ],
            "Roll back card-auth to 8.1.x (or cache the compiled schema), then let the HPA scale back down.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "issuer-gateway",
                pods_of(gw),
                [
                    '{"level":"INFO","logger":"c.n.issuer.AuthRelay","message":"approved","rc":"00","ms":{ms}}'
                ],
                8,
            )
        ],
        evs=evs,
        services=[
            svc("card-auth", 420, {"503": (0.0002, 0.03)}, (0.045, 1.4)),
            svc("issuer-gateway", 420, {"502": (0.0005, 0.11)}, (0.06, 1.5)),
        ],
        gauges=[
            gauge(
                "kube_horizontalpodautoscaler_status_current_replicas",
                {"horizontalpodautoscaler": "card-auth"},
                4,
                12,
                start + 300,
            )
        ],
        books={
            "card-declines.md": runbook(
                "Spike of card declines",
                "A spike of stand-in declines usually follows a payday campaign: raise card-auth's HPA maxReplicas to 24 and ask the marketing team to stagger the push.",
            )
        },
    )


# =================================================================================================
# 2. NetworkPolicy that stops admitting one caller (media): the transcoding team split its namespace;
#    `transcode` became `transcode-gpu` for the new GPU workers (INFRA-940). The asset-store's ingress
#    policy `allow-from-transcode` admits pods from namespace `transcode` only, so the new workers'
#    uploads of renditions time out. Other callers (cms, player-api) still work. The incident says
#    "videos stuck".
# =================================================================================================


@scenario("netpol-namespace-split-drops-gpu-transcoders")
def netpol_namespace_split_drops_gpu_transcoders() -> dict[str, Any]:
    start = -2700
    ns = "media-storage"
    st = app(
        "asset-store",
        image="registry.gitlab.example/media/asset-store:5.6.1",
        port=9000,
        rs="6c7d8f9b5",
        cluster_ip="10.100.12.40",
        pods=[
            (s, "1/1", "Running", "0", "11d", i)
            for i, s in enumerate(["k2vzq", "m8wtd", "x4pln"])
        ],
    )
    k8s = namespace(
        ns,
        [
            *NODES_FRA,
            (
                "ip-10-70-4-18.eu-central-1.compute.internal",
                "Ready",
                "10.70.4.18",
                "47m",
            ),
        ],
        [st],
        seed=498,
        extra_namespaces=("transcode", "transcode-gpu", "cms", "player"),
    )
    sig = "dial tcp 10.100.12.40:9000: i/o timeout"
    k8s[f"kubectl get networkpolicies -n {ns}"] = table(
        [
            ["NAME", "POD-SELECTOR", "AGE"],
            ["default-deny-ingress", "<none>", "1y"],
            ["allow-from-cms-and-player", "app=asset-store", "1y"],
            ["allow-from-transcode", "app=asset-store", "1y"],
            ["allow-prometheus", "app=asset-store", "1y"],
        ]
    )
    k8s[f"kubectl describe networkpolicies allow-from-transcode -n {ns}"] = (
        f"Name:         allow-from-transcode\nNamespace:    {ns}\nCreated on:   2025-11-03 09:12:44 +0000 UTC\n"
        "Labels:       app.kubernetes.io/managed-by=argocd\nAnnotations:  <none>\nSpec:\n"
        "  PodSelector:     app=asset-store\n  Allowing ingress traffic:\n    To Port: 9000/TCP\n    From:\n"
        "      NamespaceSelector: kubernetes.io/metadata.name=transcode\n      PodSelector: app=transcode-worker\n"
        "  Not affecting egress traffic\n  Policy Types: Ingress\n"
    )
    k8s["kubectl get pods -n transcode-gpu -o wide --show-labels"] = table(
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
                "transcode-worker-gpu-7d9f8c6b5-2kqzt",
                "1/1",
                "Running",
                "0",
                "47m",
                "10.98.4.31",
                "ip-10-70-4-18.eu-central-1.compute.internal",
                "<none>",
                "<none>",
                "app=transcode-worker,pod-template-hash=7d9f8c6b5",
            ],
            [
                "transcode-worker-gpu-7d9f8c6b5-9vmxd",
                "1/1",
                "Running",
                "0",
                "47m",
                "10.98.4.77",
                "ip-10-70-4-18.eu-central-1.compute.internal",
                "<none>",
                "<none>",
                "app=transcode-worker,pod-template-hash=7d9f8c6b5",
            ],
        ]
    )
    wk = [
        "transcode-worker-gpu-7d9f8c6b5-2kqzt",
        "transcode-worker-gpu-7d9f8c6b5-9vmxd",
    ]
    k8s[
        "kubectl logs transcode-worker-gpu-7d9f8c6b5-2kqzt -n transcode-gpu --tail=1000"
    ] = podlog(
        [
            (
                start + 60 * i,
                f'ERRO[0{i}] upload rendition failed job=vid_{8800 + i} rendition=1080p err="Put \\"http://asset-store.media-storage.svc:9000/renditions/vid_{8800 + i}/1080p.mp4\\": {sig}"',
            )
            for i in range(1, 40)
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "11d",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/asset-store",
                "Scaled up replica set asset-store-6c7d8f9b5 to 3",
            )
        ]
    )
    evs = [
        ev(
            "argocd",
            "info",
            "application transcode-gpu created and synced (INFRA-940: move GPU transcoders to namespace transcode-gpu), health Healthy",
            at=start - 120,
        ),
        ev(
            "argocd",
            "info",
            "application transcode (legacy CPU workers) scaled to 0 replicas (INFRA-940)",
            at=start - 60,
        ),
        ev(
            "transcode-worker",
            "error",
            f'level=error msg="upload rendition failed" job=vid_{{n}} rendition=720p err="Put \\"http://asset-store.media-storage.svc:9000/renditions/vid_{{n}}/720p.mp4\\": {sig}"',
            **every(start + 30, -5, 40),
            pods=wk,
        ),
        ev(
            "video-api",
            "warn",
            '{"level":"warn","msg":"video still processing","video_id":"vid_{n}","age_s":1{n}}',
            **every(start + 600, -3, 15),
        ),
        ev(
            "video-api",
            "info",
            '{"level":"info","msg":"video-api 2.30.0 started (chapters editor)"}',
            at=-5400,
        ),
        ev(
            "asset-store",
            "warn",
            "WARN: disk /data 81% used (threshold 80%)",
            **every(-7000, -60, 600),
            pods=pods_of(st),
        ),
        ev(
            "player-api",
            "error",
            "upstream cdn-signer returned 500 (key rotation in progress)",
            **every(-10600, -9800, 100),
        ),
    ]
    return kube_case(
        seed=498,
        start=start,
        inc=incident("Uploaded videos stuck in processing", "videos", start),
        exp=expected(
            "connect",
            [
                "networkpolicy/allow-from-transcode",
                "allow-from-transcode",
                "asset-store",
                "transcode-gpu",
                "default-deny-ingress",
                "INFRA-940",
            ],
            sig,
            "INFRA-940 moved the GPU transcode workers to the new namespace transcode-gpu; asset-store's NetworkPolicy allow-from-transcode still admits only namespace transcode under default-deny-ingress, so every rendition upload from the new workers times out and videos stay processing. video-api's warnings and release, the disk warning and the old cdn-signer errors are not the cause.",
            [
                "allow-from-transcode: NamespaceSelector kubernetes.io/metadata.name=transcode",
                f"transcode-worker-gpu: {sig}",
                "argocd: transcode-gpu created (INFRA-940)",
            ],
            "Add namespace transcode-gpu to allow-from-transcode (or select by a team label), then retry the queued jobs.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "asset-store",
                pods_of(st),
                [
                    '{"level":"INFO","msg":"GET /renditions/vid_{n}/480p.mp4 200","ms":{ms},"caller":"player-api"}',
                    '{"level":"INFO","msg":"PUT /masters/vid_{n}.mov 200","ms":{ms},"caller":"cms"}',
                ],
                8,
            )
        ],
        evs=evs,
        services=[
            svc("asset-store", 45, {"500": (0.0005, 0.0006)}, (0.03, 0.03)),
            svc("video-api", 30, {"500": (0.001, 0.001)}, (0.05, 0.05)),
        ],
        gauges=[
            gauge(
                "transcode_jobs_pending", {"queue": "renditions"}, 14, 1260, start + 300
            )
        ],
        books={
            "videos-stuck.md": runbook(
                "Videos stuck in processing",
                "Usually the GPU nodes are out of capacity: check the nvidia device plugin and scale the gpu node group.",
            )
        },
    )


# =================================================================================================
# 3. Node condition other than Ready (retail): a GitLab runner chart upgrade dropped the nodeSelector
#    of the `buildkitd` DaemonSet, so it now also runs on the general node pool and fills the root
#    volume with its layer cache under /var/lib/buildkit. Two nodes report DiskPressure, get the
#    disk-pressure taint, and kubelet evicts checkout pods. The incident says "checkout errors".
# =================================================================================================


@scenario("buildkit-cache-disk-pressure-evicts-checkout")
def buildkit_cache_disk_pressure_evicts_checkout() -> dict[str, Any]:
    start = -1800
    ns = "shop"
    n1, n2, _n3 = NODES_IAD[0][0], NODES_IAD[1][0], NODES_IAD[2][0]
    co = app(
        "checkout",
        image="ghcr.io/corner-store/checkout:12.4.2",
        port=8080,
        rs="58c9d7f6b",
        cluster_ip="172.20.30.14",
        desired=4,
        pods=[
            ("a7kqm", "0/1", "Evicted", "0", "3d", 0),
            ("c2wzr", "0/1", "Evicted", "0", "3d", 1),
            ("h5ptx", "1/1", "Running", "0", "3d", 2),
            ("r9mvd", "0/1", "Pending", "0", "22m", -1),
            ("t3nbs", "0/1", "Pending", "0", "21m", -1),
        ],
    )
    k8s = namespace(
        ns,
        [(n1, "Ready", NODES_IAD[0][2]), (n2, "Ready", NODES_IAD[1][2]), NODES_IAD[2]],
        [co],
        seed=499,
        daemonsets=table(
            [
                [
                    "NAME",
                    "DESIRED",
                    "CURRENT",
                    "READY",
                    "UP-TO-DATE",
                    "AVAILABLE",
                    "NODE SELECTOR",
                    "AGE",
                    "CONTAINERS",
                    "IMAGES",
                    "SELECTOR",
                ],
                [
                    "buildkitd",
                    "3",
                    "3",
                    "3",
                    "3",
                    "3",
                    "<none>",
                    "2d",
                    "buildkitd",
                    "moby/buildkit:v0.17.2",
                    "app=buildkitd",
                ],
            ]
        ),
    )
    sig = "The node was low on resource: ephemeral-storage. Threshold quantity: 10%, available: 4180672Ki."
    k8s[f"kubectl describe nodes {n1}"] = node_describe(
        n1,
        NODES_IAD[0][2],
        conditions={
            "DiskPressure": (
                "True",
                "-1500",
                "KubeletHasDiskPressure",
                "kubelet has disk pressure",
            )
        },
        taints="node.kubernetes.io/disk-pressure:NoSchedule",
        pods_rows=[
            ("gitlab-runner", "buildkitd-7xq2m"),
            ("kube-system", "aws-node-9kd2p"),
        ],
        events_text=(
            "  Warning  EvictionThresholdMet  25m   kubelet  Attempting to reclaim ephemeral-storage\n"
            "  Normal   NodeHasDiskPressure   25m   kubelet  Node status is now: NodeHasDiskPressure\n"
            "  Warning  FreeDiskSpaceFailed   24m   kubelet  Failed to garbage collect required amount of images. Attempted to free 21474836480 bytes, but only found 0 bytes eligible to free.\n"
        ),
    )
    k8s[f"kubectl describe nodes {n2}"] = node_describe(
        n2,
        NODES_IAD[1][2],
        conditions={
            "DiskPressure": (
                "True",
                "-1380",
                "KubeletHasDiskPressure",
                "kubelet has disk pressure",
            )
        },
        taints="node.kubernetes.io/disk-pressure:NoSchedule",
        pods_rows=[
            ("gitlab-runner", "buildkitd-p4vtn"),
            ("kube-system", "aws-node-2mtw8"),
        ],
        events_text="  Warning  EvictionThresholdMet  23m   kubelet  Attempting to reclaim ephemeral-storage\n",
    )
    describe_pod(
        k8s,
        ns,
        co,
        "a7kqm",
        NODES_IAD,
        state="    State:          Terminated\n      Reason:       Evicted",
        started=-259200,
        status="Failed",
        extra=f"Reason:       Evicted\nMessage:      {sig} Container checkout was using 212Ki, request is 0, has larger consumption of ephemeral-storage.\n",
        events_rows=[("Warning", "Evicted", "24m", "kubelet", sig)],
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            ("24m", "Warning", "Evicted", "Pod/checkout-58c9d7f6b-a7kqm", sig),
            (
                "22m",
                "Warning",
                "Evicted",
                "Pod/checkout-58c9d7f6b-c2wzr",
                "The node was low on resource: ephemeral-storage. Threshold quantity: 10%, available: 3950112Ki.",
            ),
            (
                "22m",
                "Warning",
                "FailedScheduling",
                "Pod/checkout-58c9d7f6b-r9mvd",
                "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint {node.kubernetes.io/disk-pressure: }. preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.",
            ),
        ]
    )
    evs = [
        ev(
            "kubelet",
            "warn",
            f'I{{klog}}       1 event.go:389] "Event occurred" object="shop/checkout-58c9d7f6b-a7kqm" fieldPath="" kind="Pod" apiVersion="v1" type="Warning" reason="Evicted" message="{sig} Container checkout was using 212Ki, request is 0, has larger consumption of ephemeral-storage. "',
            at=start + 306,
        ),
        ev(
            "argocd",
            "info",
            "application gitlab-runner synced to chart 0.71.0 (buildkitd DaemonSet: values key nodeSelector renamed to buildkitd.nodeSelector), health Healthy",
            at=-172800 + 3600 * 40,
        ),
        ev(
            "kubelet",
            "warn",
            f'I{{klog}}       1 eviction_manager.go:366] "Eviction manager: attempting to reclaim" resourceName="ephemeral-storage" node="{n1}"',
            at=start + 300,
        ),
        ev(
            "kubelet",
            "warn",
            'I{klog}       1 eviction_manager.go:384] "Eviction manager: must evict pod(s) to reclaim" resourceName="ephemeral-storage"',
            at=start + 302,
        ),
        ev(
            "kubelet",
            "warn",
            'I{klog}       1 eviction_manager.go:616] "Eviction manager: pod is evicted successfully" pod="shop/checkout-58c9d7f6b-a7kqm"',
            at=start + 305,
        ),
        ev(
            "buildkitd",
            "info",
            'time="{iso}" level=info msg="exported cache" ref=registry.gitlab.example/ci/cache:{n} size=2.{ms}GB dir=/var/lib/buildkit',
            **every(-7000, -120, 240),
        ),
        ev(
            "node-exporter",
            "warn",
            f"filesystem / on {n1} {{n}} bytes free (9% of 100G)",
            **every(start, -60, 120),
        ),
        ev(
            "storefront",
            "error",
            '{"level":"error","msg":"checkout call failed","status":503,"err":"upstream connect error or disconnect/reset before headers"}',
            **every(start + 320, -3, 7),
        ),
        ev(
            "storefront",
            "info",
            '{"level":"info","msg":"storefront 41.2.0 deployed (holiday theme)"}',
            at=-4200,
        ),
        ev(
            "recommendations",
            "warn",
            "model refresh took 38s (> 30s budget)",
            **every(-7100, -100, 600),
        ),
        ev(
            "checkout",
            "error",
            "redis: connection pool timeout (addr=cart-redis:6379)",
            **every(-10200, -9700, 60),
            pods=pods_of(co),
        ),
    ]
    return kube_case(
        seed=499,
        start=start,
        inc=incident(
            "Checkout errors for customers", "checkout", start, ["503 from checkout"]
        ),
        exp=expected(
            "platform",
            [
                f"node/{n1}",
                n1,
                f"node/{n2}",
                n2,
                "daemonset/buildkitd",
                "buildkitd",
                "/var/lib/buildkit",
                "diskpressure",
            ],
            sig,
            "The gitlab-runner chart 0.71.0 renamed the buildkitd DaemonSet's nodeSelector key, so buildkitd now runs on the general nodes and fills their root volumes with its layer cache; two nodes report DiskPressure, carry the disk-pressure taint and evict the checkout pods, whose replacements cannot be scheduled. storefront's 503s and release, the recommendations warnings and the old Redis timeouts are not the cause.",
            [
                f"node {n1}: DiskPressure True, taint node.kubernetes.io/disk-pressure",
                f"checkout pods Evicted: {sig}",
                "buildkitd DaemonSet NODE SELECTOR <none>",
            ],
            "Restore buildkitd's nodeSelector (build nodes only), prune /var/lib/buildkit on the two nodes, then let checkout reschedule.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "checkout",
                [pod_name(co, "h5ptx")],
                [
                    "method=POST path=/v1/checkout status=200 duration={ms}ms",
                    "method=GET path=/v1/cart status=200 duration={ms}ms",
                ],
                8,
            )
        ],
        evs=evs,
        services=[
            svc("checkout", 35, {"503": (0.0003, 0.21)}, (0.12, 0.4)),
            svc("storefront", 140, {"503": (0.0005, 0.05)}, (0.09, 0.11)),
        ],
        gauges=[
            gauge(
                "node_filesystem_avail_bytes",
                {"node": n1, "mountpoint": "/"},
                41e9,
                4.2e9,
                start - 600,
            )
        ],
        books={
            "checkout-errors.md": runbook(
                "Checkout 503s",
                "Checkout 503s are almost always cart-redis: flush the cart cache and restart checkout.",
            )
        },
    )


# =================================================================================================
# 4. Ingress routing a path to the wrong Service (SaaS): a chart refactor (MR !512) moved the
#    exports API into its own Service and templated the Ingress; the `/api/v1/exports` rule now
#    points at `exports-metrics` (the worker's Prometheus port 9102) instead of `exports-api`.
#    Customers downloading CSV exports get "404 page not found". The incident says "reports".
# =================================================================================================


@scenario("ingress-exports-path-to-metrics-service")
def ingress_exports_path_to_metrics_service() -> dict[str, Any]:
    start = -1500
    ns = "reporting"
    ea = app(
        "exports-api",
        image="ghcr.io/tallyhq/exports-api:3.2.0",
        port=8080,
        rs="6f8b7d9c5",
        cluster_ip="10.96.88.21",
        pods=[
            (s, "1/1", "Running", "0", "31m", i)
            for i, s in enumerate(["d5kqz", "l8wpm"])
        ],
    )
    em = app(
        "exports-metrics",
        image="ghcr.io/tallyhq/exports-api:3.2.0",
        port=9102,
        rs="6f8b7d9c5",
        cluster_ip="10.96.88.35",
        pods=[],
        labels="app=exports-api",
    )
    ra = app(
        "reports-web",
        image="ghcr.io/tallyhq/reports-web:8.14.1",
        port=3000,
        rs="9c7b6d5f8",
        cluster_ip="10.96.88.10",
        pods=[
            (s, "1/1", "Running", "0", "5h", i)
            for i, s in enumerate(["b2ntr", "q6vhx"])
        ],
    )
    k8s = namespace(ns, NODES_PDX, [ea, ra, em], seed=500)
    ips = [
        line.split()[5]
        for line in k8s[f"kubectl get pods -n {ns} -o wide --show-labels"].splitlines()
        if line.startswith("exports-api-")
    ]
    mips = ",".join(f"{ip}:9102" for ip in ips)
    rips = ",".join(
        line.split()[5] + ":3000"
        for line in k8s[f"kubectl get pods -n {ns} -o wide --show-labels"].splitlines()
        if line.startswith("reports-web-")
    )
    k8s[f"kubectl get endpoints -n {ns}"] = k8s[
        f"kubectl get endpoints -n {ns}"
    ].replace("<none>" + " " * (len(mips) - 6) if len(mips) > 6 else "<none>", mips, 1)
    sig = "/api/v1/exports   exports-metrics:9102"
    k8s[f"kubectl get ingresses -n {ns}"] = table(
        [
            ["NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"],
            [
                "reports",
                "nginx",
                "app.tallyhq.example",
                "k8s-ingressn-ingressn-4f1c2a9e7b-1d2e3f.elb.us-west-2.amazonaws.com",
                "80, 443",
                "2y",
            ],
        ]
    )
    k8s[f"kubectl describe ingresses reports -n {ns}"] = (
        f"Name:             reports\nLabels:           app.kubernetes.io/managed-by=Helm\nNamespace:        {ns}\n"
        "Address:          k8s-ingressn-ingressn-4f1c2a9e7b-1d2e3f.elb.us-west-2.amazonaws.com\nIngress Class:    nginx\n"
        "Default backend:  <default>\nTLS:\n  reports-tls terminates app.tallyhq.example\nRules:\n"
        "  Host                 Path  Backends\n  ----                 ----  --------\n  app.tallyhq.example\n"
        f"                       {sig} ({mips})\n"
        f"                       /api/v1/reports   reports-web:3000 ({rips})\n"
        f"                       /                 reports-web:3000 ({rips})\n"
        "Annotations:      meta.helm.sh/release-name: reports\n                  nginx.ingress.kubernetes.io/proxy-body-size: 50m\n"
        "Events:\n  Type    Reason  Age   From                      Message\n  ----    ------  ----  ----                      -------\n"
        "  Normal  Sync    31m   nginx-ingress-controller  Scheduled for sync\n"
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "31m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/exports-api",
                "Scaled up replica set exports-api-6f8b7d9c5 to 2",
            ),
            ("31m", "Normal", "Sync", "Ingress/reports", "Scheduled for sync"),
        ]
    )
    evs = [
        ev(
            "helm",
            "info",
            "release reports upgraded to chart 4.0.0 (MR !512: split exports-api into its own Service, template ingress paths from .Values.routes)",
            at=start - 360,
        ),
        ev(
            "ingress-nginx",
            "warn",
            '203.0.113.{ms} - - [{nginx}] "GET /api/v1/exports/exp_{n}/download HTTP/2.0" 404 19 "https://app.tallyhq.example/reports" "Mozilla/5.0" 64 0.002 [reporting-exports-metrics-9102] [] '
            + ips[0]
            + ":9102 19 0.002 404",
            **every(start + 20, -3, 11),
        ),
        ev(
            "reports-web",
            "error",
            '{"level":50,"msg":"export download failed","status":404,"body":"404 page not found\\n","export_id":"exp_{n}"}',
            **every(start + 40, -5, 19),
            pods=pods_of(ra),
        ),
        ev(
            "exports-api",
            "info",
            '{"level":"info","msg":"export exp_{n} ready","rows":{n},"ms":{ms}}',
            **every(start + 60, -10, 45),
            pods=pods_of(ea),
        ),
        ev(
            "reports-web",
            "info",
            '{"level":30,"msg":"reports-web 8.14.1 started (new chart widgets)"}',
            at=-18000,
            pods=pods_of(ra),
        ),
        ev(
            "billing-sync",
            "error",
            "stripe webhook signature mismatch for evt_{n}",
            **every(-7000, -200, 500),
        ),
        ev(
            "exports-api",
            "error",
            '{"level":"error","msg":"S3 PutObject RequestTimeout","bucket":"tally-exports"}',
            **every(-10300, -9700, 120),
            pods=pods_of(ea),
        ),
    ]
    return kube_case(
        seed=500,
        start=start,
        inc=incident("Customers can't download reports", "reports", start),
        exp=expected(
            "connect",
            [
                "ingress/reports",
                "reports",
                "exports-metrics",
                "service/exports-metrics",
                "/api/v1/exports",
                "MR !512",
            ],
            sig,
            "Chart 4.0.0 (MR !512) templated the reports Ingress and routed /api/v1/exports to the exports-metrics Service (the worker's Prometheus port 9102) instead of exports-api; every export download gets the metrics server's '404 page not found'. exports-api is healthy and produces exports; reports-web's errors and old release, billing-sync noise and old S3 timeouts are not the cause.",
            [
                f"Ingress reports: {sig}",
                "ingress-nginx: GET /api/v1/exports/... 404 [reporting-exports-metrics-9102]",
                "helm: reports upgraded to chart 4.0.0",
            ],
            "Point the /api/v1/exports rule back at exports-api:8080 (fix .Values.routes) and redeploy the chart.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "ingress-nginx",
                ["ingress-nginx-controller-7d9c8b6f5-4kq2m"],
                [
                    '198.51.100.{ms} - - [{nginx}] "GET /api/v1/reports/{n} HTTP/2.0" 200 {n} "-" "Mozilla/5.0" 71 0.0{ms} [reporting-reports-web-3000] [] 10.90.1.54:3000 {n} 0.0{ms} 200'
                ],
                8,
            )
        ],
        evs=evs,
        services=[
            svc("reports-web", 50, {"500": (0.001, 0.001)}, (0.07, 0.07)),
            svc("exports-api", 4, {"500": (0.001, 0.001)}, (0.4, 0.4)),
        ],
        gauges=[
            gauge(
                "nginx_ingress_controller_requests_4xx",
                {"ingress": "reports", "path": "/api/v1/exports"},
                0.1,
                6.2,
                start,
            )
        ],
        books={
            "report-downloads.md": runbook(
                "Report downloads failing",
                "Failed downloads mean the S3 presigned URL expired or the bucket policy changed: check tally-exports' bucket policy and regenerate the export.",
            )
        },
    )


# =================================================================================================
# 5. Init container crash (fintech): risk-scoring's init container `geoipupdate` downloads the MaxMind
#    GeoIP2 database at start. Finance closed the "unused" MaxMind account keyed by the old licence
#    (FIN-331) yesterday; the running pods were fine until this morning's node rotation replaced two
#    of three. The new pods sit in Init:CrashLoopBackOff (401 Invalid license key); the one left takes
#    all traffic and times out. The incident says "transfers slow".
# =================================================================================================


@scenario("geoipupdate-init-licence-revoked")
def geoipupdate_init_licence_revoked() -> dict[str, Any]:
    start = -2000
    ns = "risk"
    rs = "84c6d9f7b"
    img = "registry.finlo.example/risk/risk-scoring:6.8.3"
    rk = app(
        "risk-scoring",
        image=img,
        port=8080,
        rs=rs,
        cluster_ip="10.43.20.11",
        pods=[
            ("f2kxn", "0/1", "Init:CrashLoopBackOff", "7 (2m ago)", "31m", 0),
            ("p9qwz", "0/1", "Init:CrashLoopBackOff", "7 (3m ago)", "30m", 1),
            ("v4mtd", "1/1", "Running", "0", "9d", 2),
        ],
    )
    k8s = namespace(ns, NODES_FRA, [rk], seed=501)
    sig = "received HTTP status code: 401: Invalid license key"
    pod = pod_name(rk, "f2kxn")
    k8s[f"kubectl logs {pod} -n {ns} -c geoipupdate --tail=1000"] = podlog(
        [
            (-140, "geoipupdate version 7.1.0"),
            (-139, "Using config file /etc/GeoIP.conf"),
            (
                -138,
                f"error retrieving updates: error updating GeoIP2-City: validating edition: unexpected HTTP status code: {sig}",
            ),
        ]
    )
    k8s[f"kubectl logs {pod} -n {ns} --tail=1000"] = (
        f'Error from server (BadRequest): container "risk-scoring" in pod "{pod}" is waiting to start: PodInitializing\n'
    )
    gip = next(
        re.split(r"\s{2,}", line)[5]
        for line in k8s[f"kubectl get pods -n {ns} -o wide --show-labels"].splitlines()
        if line.startswith(pod)
    )
    k8s[f"kubectl describe pods {pod} -n {ns}"] = pending_pod(
        pod,
        ns,
        owner=f"ReplicaSet/risk-scoring-{rs}",
        labels=["app=risk-scoring", f"pod-template-hash={rs}"],
        sa="risk-scoring",
        node=f"{NODES_FRA[0][0]}/{NODES_FRA[0][2]}",
        ip=gip,
        init=(
            "Init Containers:\n  geoipupdate:\n    Image:          ghcr.io/maxmind/geoipupdate:v7.1.0\n"
            "    State:          Waiting\n      Reason:       CrashLoopBackOff\n    Last State:     Terminated\n"
            "      Reason:       Error\n      Exit Code:    1\n    Ready:          False\n    Restart Count:  7\n"
            "    Environment:\n      GEOIPUPDATE_ACCOUNT_ID:   <set to the key 'account-id' in secret 'maxmind'>\n"
            "      GEOIPUPDATE_LICENSE_KEY:  <set to the key 'license-key' in secret 'maxmind'>\n"
            "      GEOIPUPDATE_EDITION_IDS:  GeoIP2-City GeoIP2-Anonymous-IP\n"
        ),
        containers=container_text("risk-scoring", img, 8080).replace(
            "    Image:",
            "    State:          Waiting\n      Reason:       PodInitializing\n    Image:",
            1,
        ),
        conditions=[
            ("PodReadyToStartContainers", "True"),
            ("Initialized", "False"),
            ("Ready", "False"),
            ("ContainersReady", "False"),
            ("PodScheduled", "True"),
        ],
        events_rows=[
            sched(ns, pod, NODES_FRA[0][0], "31m"),
            (
                "Normal",
                "Pulled",
                "3m (x8 over 31m)",
                "kubelet",
                'Container image "ghcr.io/maxmind/geoipupdate:v7.1.0" already present on machine',
            ),
            (
                "Warning",
                "BackOff",
                "2m (x131 over 30m)",
                "kubelet",
                f"Back-off restarting failed container geoipupdate in pod {pod}_{ns}(6c1e0f2a-7d3b-4e8f-9a51-2b6c7d8e9f01)",
            ),
        ],
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "32m",
                "Normal",
                "Killing",
                f"Pod/{pod_name(rk, 'c7ttr')}",
                "Stopping container risk-scoring",
            ),
            (
                "31m",
                "Normal",
                "SuccessfulCreate",
                f"ReplicaSet/risk-scoring-{rs}",
                f"Created pod: {pod}",
            ),
            (
                "2m",
                "Warning",
                "BackOff",
                f"Pod/{pod}",
                f"Back-off restarting failed container geoipupdate in pod {pod}_{ns}(6c1e0f2a-7d3b-4e8f-9a51-2b6c7d8e9f01)",
            ),
        ]
    )
    evs = [
        ev(
            "jira",
            "info",
            "FIN-331 resolved: closed MaxMind account 418223 (legacy, 'no longer used'); licence keys deactivated",
            at=-70000,
        ),
        ev(
            "karpenter",
            "info",
            '{"level":"INFO","message":"disrupting nodeclaim(s) via replace, terminating 2 nodes (drift: AMI)","NodePool":"general"}',
            at=start - 200,
        ),
        ev(
            "transfer-api",
            "error",
            '{"ts":"{iso}","level":"error","msg":"risk check timeout","transfer_id":"tr_{n}","timeout_ms":800}',
            **every(start + 200, -3, 6),
        ),
        ev(
            "transfer-api",
            "info",
            '{"level":"info","msg":"transfer-api 19.3.0 started (SEPA Instant limits)"}',
            at=-9000,
        ),
        ev(
            "risk-scoring",
            "warn",
            'level=warn msg="scoring queue saturated" inflight=64 p99_ms=2{ms}',
            **every(start + 120, -5, 30),
            pods=[pod_name(rk, "v4mtd")],
        ),
        ev(
            "ledger",
            "warn",
            "pg: slow query 1.{ms}s: SELECT ... FROM postings WHERE account_id = $1",
            **every(-7000, -300, 700),
        ),
        ev(
            "risk-scoring",
            "error",
            'level=error msg="feature store read failed" err="context deadline exceeded"',
            **every(-10500, -9900, 150),
            pods=[pod_name(rk, "v4mtd")],
        ),
    ]
    return kube_case(
        seed=501,
        start=start,
        inc=incident("Transfers slow / failing risk checks", "transfers", start),
        exp=expected(
            "application",
            [
                "deployment/risk-scoring",
                "risk-scoring",
                "geoipupdate",
                "maxmind",
                "license key",
                "FIN-331",
            ],
            sig,
            "risk-scoring's init container geoipupdate downloads the MaxMind database with an account that FIN-331 closed yesterday; since the Karpenter drift replacement this morning two of three pods are in Init:CrashLoopBackOff (401 Invalid license key) and the last pod cannot keep up, so transfer-api's risk checks time out. transfer-api's errors and release, the node replacement (trigger), ledger slow queries and old feature-store timeouts are not the cause.",
            [
                f"geoipupdate: {sig}",
                "risk-scoring pods Init:CrashLoopBackOff 2/3",
                "FIN-331 closed the MaxMind account",
            ],
            "Put a valid MaxMind licence in secret maxmind (or reopen the account), then let the init containers finish; consider baking a fallback database into the image.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "risk-scoring",
                [pod_name(rk, "v4mtd")],
                ['level=info msg="scored" transfer_id=tr_{n} score=0.0{ms} ms={ms}'],
                8,
            )
        ],
        evs=evs,
        services=[
            svc("risk-scoring", 90, {"503": (0.0005, 0.08)}, (0.03, 0.9)),
            svc("transfer-api", 60, {"504": (0.0005, 0.12)}, (0.15, 1.1)),
        ],
        gauges=[
            gauge(
                "kube_deployment_status_replicas_available",
                {"deployment": "risk-scoring"},
                3,
                1,
                start,
            )
        ],
        books={
            "transfers-slow.md": runbook(
                "Transfers slow",
                "Slow transfers come from the ledger database: check pg_stat_activity for long queries and fail over to the replica if needed.",
            )
        },
    )


# =================================================================================================
# 6. ConfigMap value that crashes the app (retail): a config-repo change (MR !77, "give consumers more
#    time to drain") set SHUTDOWN_GRACE to "45" instead of "45s" in the order-events consumer's
#    ConfigMap. Reloader restarted the pods; Go's time.ParseDuration panics at start. The panic is in
#    the previous container's log only. The incident says "order confirmations".
# =================================================================================================


@scenario("configmap-duration-without-unit-crashes-consumer")
def configmap_duration_without_unit_crashes_consumer() -> dict[str, Any]:
    start = -1400
    ns = "orders"
    rs = "5b8d6f7c9"
    img = "eu.gcr.io/bricks-retail/order-events-consumer:2.19.0"
    oc = app(
        "order-events-consumer",
        image=img,
        port=9090,
        rs=rs,
        cluster_ip="10.52.14.40",
        pods=[
            (s, "0/1", "CrashLoopBackOff", f"{r} (1m ago)", "22m", i)
            for i, (s, r) in enumerate([("c4qzt", 9), ("k7wnm", 9), ("x2vpr", 8)])
        ],
    )
    om = app(
        "order-mailer",
        image="eu.gcr.io/bricks-retail/order-mailer:4.1.2",
        port=8080,
        rs="7c9d8b6f5",
        cluster_ip="10.52.14.52",
        pods=[
            (s, "1/1", "Running", "0", "6d", i)
            for i, s in enumerate(["h3mzk", "t8bqw"])
        ],
    )
    k8s = namespace(
        ns,
        NODES_FRA,
        [oc, om],
        seed=502,
        configmaps=[
            ("order-events-consumer-config", "7", "2y"),
            ("order-mailer-config", "4", "1y"),
        ],
    )
    sig = 'panic: time: missing unit in duration "45"'
    pod = pod_name(oc, "c4qzt")
    k8s[f"kubectl logs {pod} -n {ns} --tail=1000"] = ""
    k8s[f"kubectl logs {pod} -n {ns} --previous --tail=1000"] = podlog(
        [
            (
                -75,
                '{"level":"info","ts":"2026-12-05T13:58:45Z","msg":"order-events-consumer 2.19.0 starting","brokers":"kafka-0.kafka:9092"}',
            ),
            (-75, f"{sig}"),
            (-75, ""),
            (-75, "goroutine 1 [running]:"),
            (-75, "main.mustDuration({0xc00001c0a8, 0x2})"),
            (-75, "\t/src/cmd/consumer/config.go:58 +0x9c"),
            (-75, "main.loadConfig()"),
            (-75, "\t/src/cmd/consumer/config.go:31 +0x1f4"),
        ]
    )
    cm = (
        "apiVersion: v1\ndata:\n  CONSUMER_GROUP: order-events\n  KAFKA_BROKERS: kafka-0.kafka:9092,kafka-1.kafka:9092\n"
        '  MAX_POLL_RECORDS: "500"\n  SHUTDOWN_GRACE: "45"\n  TOPIC: orders.placed.v2\nkind: ConfigMap\nmetadata:\n'
        "  annotations:\n    config.example/source: configs!77\n  name: order-events-consumer-config\n  namespace: orders\n"
    )
    k8s[f"kubectl get configmaps order-events-consumer-config -n {ns} -o yaml"] = cm
    describe_pod(
        k8s,
        ns,
        oc,
        "c4qzt",
        NODES_FRA,
        state=crashloop(2, "Error", -76, -75),
        started=-76,
        restarts=9,
        events_rows=[
            (
                "Warning",
                "BackOff",
                "1m (x93 over 21m)",
                "kubelet",
                f"Back-off restarting failed container order-events-consumer in pod {pod}_{ns}(0b7e1f4c-2d9a-4c3e-8f61-7a5b3c2d1e09)",
            )
        ],
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "22m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/order-events-consumer",
                f"Scaled up replica set order-events-consumer-{rs} to 3",
            ),
            (
                "1m",
                "Warning",
                "BackOff",
                f"Pod/{pod}",
                f"Back-off restarting failed container order-events-consumer in pod {pod}_{ns}(0b7e1f4c-2d9a-4c3e-8f61-7a5b3c2d1e09)",
            ),
        ]
    )
    evs = [
        ev(
            "argocd",
            "info",
            "application orders-config synced (configs!77 'give consumers more time to drain': order-events-consumer-config SHUTDOWN_GRACE 15s -> 45)",
            at=start - 100,
        ),
        ev(
            "reloader",
            "info",
            "time=\"{iso}\" level=info msg=\"Changes detected in 'order-events-consumer-config' of type 'CONFIGMAP' in namespace 'orders'; updated 'order-events-consumer' of type 'Deployment' in namespace 'orders'\"",
            at=start - 90,
        ),
        ev(
            "order-mailer",
            "warn",
            "WARN  no order events received for 600s (last offset 88{n})",
            **every(start + 600, -60, 120),
            pods=pods_of(om),
        ),
        ev(
            "kafka-exporter",
            "warn",
            "consumergroup=order-events topic=orders.placed.v2 lag=1{n}",
            **every(start + 120, -30, 60),
        ),
        ev(
            "order-mailer",
            "info",
            "order-mailer 4.1.2 started (new Christmas template)",
            at=-5000,
            pods=pods_of(om),
        ),
        ev(
            "sendgrid-relay",
            "error",
            "550 5.1.1 mailbox unavailable for <{n}@example.org>",
            **every(-7000, -60, 200),
        ),
        ev(
            "order-events-consumer",
            "error",
            '{"level":"error","msg":"commit failed","err":"kafka: REBALANCE_IN_PROGRESS"}',
            **every(-10400, -9800, 90),
            pods=pods_of(oc),
        ),
    ]
    return kube_case(
        seed=502,
        start=start,
        inc=incident(
            "Customers not getting order confirmations", "order confirmations", start
        ),
        exp=expected(
            "application",
            [
                "configmap/order-events-consumer-config",
                "order-events-consumer-config",
                "order-events-consumer",
                "deployment/order-events-consumer",
                "SHUTDOWN_GRACE",
                "configs!77",
            ],
            sig,
            "configs!77 set SHUTDOWN_GRACE to \"45\" (no unit) in order-events-consumer-config; Reloader restarted the consumer and Go's duration parsing panics at start, so every pod crash-loops (the panic is only in the previous container's log) and no order events reach order-mailer. order-mailer's warnings and release, sendgrid bounces and old rebalance errors are not the cause.",
            [
                f"previous log: {sig}",
                "order-events-consumer 3/3 CrashLoopBackOff",
                "argocd: SHUTDOWN_GRACE 15s -> 45",
            ],
            'Set SHUTDOWN_GRACE to "45s" (and validate durations in CI); the consumer then catches up on the lag.',
        ),
        k8s=k8s,
        bgs=[
            bg(
                "order-mailer",
                pods_of(om),
                ["INFO  health ok", "INFO  templates cached: 14"],
                20,
            )
        ],
        evs=evs,
        services=[svc("order-mailer", 5, {"500": (0.001, 0.001)}, (0.05, 0.05))],
        gauges=[
            gauge(
                "kafka_consumergroup_lag",
                {"consumergroup": "order-events"},
                20,
                14800,
                start + 60,
            )
        ],
        books={
            "no-confirmations.md": runbook(
                "Order confirmation emails missing",
                "Missing confirmations are usually SendGrid: check the bounce dashboard and switch order-mailer to the backup SMTP relay.",
            )
        },
    )


# =================================================================================================
# 7. CronJob failure that breaks something downstream (fintech): the nightly CronJob
#    `sanctions-list-sync` loads the consolidated sanctions list into the screening database. The list
#    grew (new designations) and the job now runs past activeDeadlineSeconds: 900, so it has failed
#    for two nights. payouts screen fail-closed once the list is older than 36 h, so this morning
#    every payout is held. The incident says "payouts".
# =================================================================================================


@scenario("sanctions-sync-cronjob-deadline-holds-payouts")
def sanctions_sync_cronjob_deadline_holds_payouts() -> dict[str, Any]:
    start = -2400
    ns = "compliance"
    sc = app(
        "screening-api",
        image="registry.finlo.example/compliance/screening-api:3.4.1",
        port=8080,
        rs="6d9b7c8f5",
        cluster_ip="10.43.31.12",
        pods=[
            (s, "1/1", "Running", "0", "12d", i)
            for i, s in enumerate(["b8kqz", "n3tvx"])
        ],
    )
    k8s = namespace(ns, NODES_FRA, [sc], seed=503)
    sig = "Job was active longer than specified deadline"
    k8s[f"kubectl get cronjobs -n {ns}"] = table(
        [
            [
                "NAME",
                "SCHEDULE",
                "TIMEZONE",
                "SUSPEND",
                "ACTIVE",
                "LAST SCHEDULE",
                "AGE",
            ],
            [
                "sanctions-list-sync",
                "30 1 * * *",
                "Europe/Berlin",
                "False",
                "0",
                "9h",
                "2y",
            ],
        ]
    )
    k8s[f"kubectl get jobs -n {ns}"] = table(
        [
            ["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"],
            ["sanctions-list-sync-29421090", "Complete", "1/1", "11m", "57h"],
            ["sanctions-list-sync-29422530", "Failed", "0/1", "15m", "33h"],
            ["sanctions-list-sync-29423970", "Failed", "0/1", "15m", "9h"],
        ]
    )
    k8s[f"kubectl describe jobs sanctions-list-sync-29423970 -n {ns}"] = (
        f"Name:             sanctions-list-sync-29423970\nNamespace:        {ns}\nControlled By:    CronJob/sanctions-list-sync\n"
        "Parallelism:      1\nCompletions:      1\nBackoff Limit:    2\nActive Deadline Seconds:  900s\n"
        "Pods Statuses:    0 Active (0 Ready) / 0 Succeeded / 1 Failed\n"
        "Conditions:\n  Type     Status  Reason\n  ----     ------  ------\n  Failed   True    DeadlineExceeded\n"
        "Events:\n  Type     Reason            Age   From            Message\n  ----     ------            ----  ----            -------\n"
        "  Normal   SuccessfulCreate  9h    job-controller  Created pod: sanctions-list-sync-29423970-7kq2t\n"
        "  Normal   SuccessfulDelete  9h    job-controller  Deleted pod: sanctions-list-sync-29423970-7kq2t\n"
        f"  Warning  DeadlineExceeded  9h    job-controller  {sig}\n"
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "9h",
                "Warning",
                "DeadlineExceeded",
                "Job/sanctions-list-sync-29423970",
                sig,
            ),
            (
                "33h",
                "Warning",
                "DeadlineExceeded",
                "Job/sanctions-list-sync-29422530",
                sig,
            ),
        ]
    )
    evs = [
        ev(
            "kube-controller-manager",
            "warn",
            f'I{{klog}}       1 event.go:389] "Event occurred" object="compliance/sanctions-list-sync-29423970" fieldPath="" kind="Job" apiVersion="batch/v1" type="Warning" reason="DeadlineExceeded" message="{sig}"',
            at=-32390,
        ),
        ev(
            "sanctions-list-sync",
            "info",
            "{date} {hms} INFO  sync: downloading consolidated list (EU FSF + OFAC SDN), 41.2 MB",
            at=-34200,
        ),
        ev(
            "sanctions-list-sync",
            "info",
            "{date} {hms} INFO  sync: upserted 31000/48612 entities (aliases expanded: 412880)",
            at=-33320,
        ),
        ev(
            "screening-api",
            "warn",
            'level=warn msg="sanctions list stale" list_version=2026-12-03T23:44Z age_h=38 max_age_h=36 mode=fail_closed',
            **every(start, -5, 30),
            pods=pods_of(sc),
        ),
        ev(
            "payouts",
            "error",
            '{"level":"error","msg":"payout held: screening unavailable","payout_id":"po_{n}","reason":"SCREENING_LIST_STALE"}',
            **every(start + 30, -3, 8),
        ),
        ev(
            "payouts",
            "info",
            '{"level":"info","msg":"payouts 11.0.2 deployed (batch file v3)"}',
            at=-6500,
        ),
        ev(
            "bank-connector",
            "warn",
            "SFTP upload to bank: retry 1/3 (connection reset)",
            **every(-7000, -100, 900),
        ),
        ev(
            "payouts",
            "error",
            '{"level":"error","msg":"FX rate fetch failed","provider":"ecb","status":503}',
            **every(-10200, -9600, 120),
        ),
    ]
    return kube_case(
        seed=503,
        start=start,
        inc=incident("All payouts on hold since this morning", "payouts", start),
        exp=expected(
            "application",
            [
                "cronjob/sanctions-list-sync",
                "sanctions-list-sync",
                "job/sanctions-list-sync-29423970",
                "activedeadlineseconds",
                "screening-api",
            ],
            sig,
            "The nightly CronJob sanctions-list-sync has failed two nights in a row (DeadlineExceeded: the grown list no longer loads within activeDeadlineSeconds 900); screening-api's list is now older than 36 h, it fails closed, and every payout is held. payouts' errors and release, the bank SFTP retries and old ECB errors are not the cause.",
            [
                f"job sanctions-list-sync-29423970: {sig}",
                "screening-api: sanctions list stale age_h>36 mode=fail_closed",
                "payouts: SCREENING_LIST_STALE",
            ],
            "Run the sync once by hand with a longer activeDeadlineSeconds (and raise it in the CronJob), then release held payouts.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "screening-api",
                pods_of(sc),
                ['level=info msg="screened" subject_type=person hits=0 ms={ms}'],
                10,
            )
        ],
        evs=evs,
        services=[
            svc("payouts", 12, {"409": (0.001, 0.96)}, (0.1, 0.1)),
            svc("screening-api", 20, {"503": (0.0, 0.95)}, (0.02, 0.01)),
        ],
        gauges=[
            gauge("screening_list_age_hours", {"list": "consolidated"}, 30, 36.2, start)
        ],
        books={
            "payouts-held.md": runbook(
                "Payouts on hold",
                "Held payouts usually mean the bank connector could not upload the batch file: check the SFTP connection to the bank and resend the file.",
            )
        },
    )


# =================================================================================================
# 8. PodDisruptionBudget blocking a node drain (SaaS): the EKS managed node group upgrade to 1.31
#    cordons the old nodes and drains them one by one; session-redis's PDB says maxUnavailable 0, so
#    eviction of its pod is refused for an hour, the upgrade stays stuck with old nodes cordoned and
#    only one surge node added, and the API's HPA scale-out has nowhere to go. The incident says
#    "app slow".
# =================================================================================================


@scenario("pdb-max-unavailable-zero-stalls-nodegroup-upgrade")
def pdb_max_unavailable_zero_stalls_nodegroup_upgrade() -> dict[str, Any]:
    start = -3000
    ns = "app"
    nodes = [
        (NODES_PDX[0][0], "Ready,SchedulingDisabled", NODES_PDX[0][2]),
        (NODES_PDX[1][0], "Ready,SchedulingDisabled", NODES_PDX[1][2]),
        (NODES_PDX[2][0], "Ready,SchedulingDisabled", NODES_PDX[2][2]),
        ("ip-10-90-1-231.us-west-2.compute.internal", "Ready", "10.90.1.231", "58m"),
    ]
    api = app(
        "public-api",
        image="ghcr.io/notely/public-api:22.7.0",
        port=8080,
        rs="7f5c8d9b6",
        cluster_ip="10.100.5.20",
        desired=9,
        pods=[
            *[
                (s, "1/1", "Running", "0", "2d", i % 3)
                for i, s in enumerate(["a1kzq", "b6wmt", "c3pxn", "d8rvl"])
            ],
            ("e5tqw", "1/1", "Running", "0", "57m", 3),
            *[
                (s, "0/1", "Pending", "0", "41m", -1)
                for s in ["f2nzk", "g7hxd", "j4mcs", "k9bvt"]
            ],
        ],
    )
    rd = app(
        "session-redis",
        image="redis:7.2.5",
        port=6379,
        rs="0",
        kind="StatefulSet",
        cluster_ip="10.100.5.40",
        pods=[("0", "1/1", "Running", "0", "44d", 0)],
    )
    k8s = namespace(
        ns,
        nodes,
        [api, rd],
        seed=504,
        statefulsets=table(
            [
                ["NAME", "READY", "AGE", "CONTAINERS", "IMAGES"],
                ["session-redis", "1/1", "1y", "redis", "redis:7.2.5"],
            ]
        ),
    )
    k8s["kubectl get nodes -o wide"] = "".join(
        line.replace("v1.31.2-eks-94953ac", "v1.30.6-eks-7f9249a")
        if "SchedulingDisabled" in line
        else line
        for line in k8s["kubectl get nodes -o wide"].splitlines(keepends=True)
    )
    sig = "Cannot evict pod as it would violate the pod's disruption budget."
    k8s[f"kubectl get poddisruptionbudgets -n {ns}"] = table(
        [
            ["NAME", "MIN AVAILABLE", "MAX UNAVAILABLE", "ALLOWED DISRUPTIONS", "AGE"],
            ["public-api", "N/A", "25%", "1", "2y"],
            ["session-redis", "N/A", "0", "0", "1y"],
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "41m",
                "Normal",
                "SuccessfulRescale",
                "HorizontalPodAutoscaler/public-api",
                "New size: 9; reason: cpu resource utilization (percentage of request) above target",
            ),
            (
                "40m",
                "Warning",
                "FailedScheduling",
                f"Pod/{pod_name(api, 'f2nzk')}",
                "0/4 nodes are available: 1 Insufficient cpu, 3 node(s) were unschedulable. preemption: 0/4 nodes are available: 1 No preemption victims found for incoming pod, 3 Preemption is not helpful for scheduling.",
            ),
            (
                "2m",
                "Warning",
                "FailedScheduling",
                f"Pod/{pod_name(api, 'k9bvt')}",
                "0/4 nodes are available: 1 Insufficient cpu, 3 node(s) were unschedulable. preemption: 0/4 nodes are available: 1 No preemption victims found for incoming pod, 3 Preemption is not helpful for scheduling.",
            ),
        ]
    )
    k8s[f"kubectl describe nodes {nodes[0][0]}"] = node_describe(
        nodes[0][0],
        nodes[0][2],
        taints="node.kubernetes.io/unschedulable:NoSchedule",
        unschedulable=True,
        pods_rows=[(ns, "session-redis-0"), (ns, pod_name(api, "a1kzq"))],
        events_text="  Normal  NodeNotSchedulable  58m   kubelet  Node "
        + nodes[0][0]
        + " status is now: NodeNotSchedulable\n",
    )
    evs = [
        ev(
            "eks",
            "info",
            "UpdateNodegroupVersion started: nodegroup general-2025 1.30 -> 1.31 (maxUnavailable 1, launch template v14)",
            at=-3600,
        ),
        ev(
            "eks",
            "warn",
            f"PodEvictionFailure: Reached max retries while trying to evict pods from nodes in node group general-2025: {sig} (pod app/session-redis-0)",
            **every(-3300, -60, 300),
        ),
        ev(
            "eks-node-drain",
            "warn",
            f'evicting pod app/session-redis-0: error when evicting pods/"session-redis-0" -n "app" (will retry after 5s): {sig}',
            **every(-3500, -5, 30),
        ),
        ev(
            "public-api",
            "warn",
            '{"level":"warn","msg":"request slow","route":"/v2/notes","ms":1{ms}{ms}}',
            **every(start + 300, -3, 9),
            pods=pods_of(api)[:5],
        ),
        ev(
            "web-app",
            "error",
            "TypeError: Failed to fetch (GET https://api.notely.example/v2/notes) after 10000ms",
            **every(start + 400, -5, 20),
        ),
        ev(
            "public-api",
            "info",
            '{"level":"info","msg":"public-api 22.7.0 started (note templates)"}',
            at=-172000,
            pods=pods_of(api)[:4],
        ),
        ev(
            "search-indexer",
            "warn",
            "opensearch bulk rejected 12 docs: es_rejected_execution_exception",
            **every(-7000, -100, 500),
        ),
        ev(
            "public-api",
            "error",
            '{"level":"error","msg":"redis: i/o timeout","addr":"session-redis:6379"}',
            **every(-10300, -9800, 100),
            pods=pods_of(api)[:4],
        ),
    ]
    return kube_case(
        seed=504,
        start=start,
        inc=incident("App really slow, timeouts when opening notes", "app", start),
        exp=expected(
            "platform",
            [
                "poddisruptionbudget/session-redis",
                "session-redis",
                "pdb",
                "maxunavailable 0",
                "general-2025",
                "nodegroup upgrade",
            ],
            sig,
            "The managed node group general-2025 upgrade cordoned all three old nodes and cannot drain the first one: session-redis's PodDisruptionBudget (maxUnavailable 0, allowed disruptions 0) refuses the eviction of session-redis-0. With three nodes unschedulable and only one surge node, public-api's HPA scale-out leaves four pods Pending and the app is slow. public-api's and web-app's errors, search rejections and old Redis timeouts are not the cause.",
            [
                f"eks: PodEvictionFailure ... {sig} (session-redis-0)",
                "PDB session-redis MAX UNAVAILABLE 0, ALLOWED DISRUPTIONS 0",
                "3 node(s) were unschedulable",
            ],
            "Allow one disruption for session-redis (maxUnavailable 1 during a window, or run it with a replica) so the drain proceeds; uncordon the old nodes meanwhile if capacity is needed.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "public-api",
                pods_of(api)[:5],
                ['{"level":"info","msg":"GET /v2/notes 200","ms":{ms}}'],
                8,
            )
        ],
        evs=evs,
        services=[svc("public-api", 220, {"504": (0.0005, 0.04)}, (0.08, 0.9))],
        gauges=[
            gauge(
                "kube_node_spec_unschedulable",
                {"nodegroup": "general-2025"},
                0,
                3,
                -3500,
            )
        ],
        books={
            "app-slow.md": runbook(
                "App slow",
                "Slowness is usually the notes database: check RDS Performance Insights for the top query and add a read replica.",
            )
        },
    )


def kube_system(k8s: dict[str, str], nodes, apps, seed: int) -> None:
    """Adds kube-system's tables (pods, deployments, services, endpoints …) to a capture."""
    ks = namespace("kube-system", nodes, apps, seed=seed)
    k8s.update({k: v for k, v in ks.items() if " -n kube-system" in k})


# =================================================================================================
# 9. CoreDNS down (media): the self-managed node pool was rebuilt on a new Ubuntu 24.04 image
#    (PLAT-77); its kubelet config template lost `resolvConf: /run/systemd/resolve/resolv.conf`, so
#    pods with dnsPolicy Default get the systemd-resolved stub 127.0.0.53. CoreDNS forwards to it,
#    which in its own network namespace is CoreDNS itself: the loop plugin aborts it at start. As the
#    CoreDNS pods moved to rebuilt nodes, both crash-loop; lookups fail cluster-wide. The incident
#    says "live streams buffering".
# =================================================================================================


@scenario("coredns-loop-systemd-resolved-stub-new-image")
def coredns_loop_systemd_resolved_stub_new_image() -> dict[str, Any]:
    start = -1500
    ns = "streaming"
    nodes = [
        ("k8s-w-ub24-01", "Ready", "10.20.8.11", "2h"),
        ("k8s-w-ub24-02", "Ready", "10.20.8.12", "2h"),
        ("k8s-w-ub22-03", "Ready", "10.20.8.13", "310d"),
    ]
    pa = app(
        "playback-api",
        image="harbor.streamhaus.example/live/playback-api:9.2.1",
        port=8080,
        rs="6f9d8c7b5",
        cluster_ip="10.233.14.20",
        pods=[(s, "1/1", "Running", "0", "4d", 2) for s in ["c4rzq", "h8vkm", "p2ntx"]],
    )
    k8s = namespace(ns, nodes, [pa], seed=505)
    cd = app(
        "coredns",
        image="registry.k8s.io/coredns/coredns:v1.11.3",
        port=53,
        rs="7c8d9f6b5",
        cluster_ip="10.233.0.3",
        labels="k8s-app=kube-dns",
        service_port="53/UDP,53/TCP,9153/TCP",
        pods=[
            ("4kq2m", "0/1", "CrashLoopBackOff", "8 (40s ago)", "21m", 0),
            ("x7wpd", "0/1", "CrashLoopBackOff", "8 (1m ago)", "19m", 1),
        ],
    )
    kube_system(k8s, nodes, [cd], seed=1505)
    rows = [
        re.split(r"\s{2,}", line.strip())
        for line in k8s["kubectl get nodes -o wide"].splitlines()
    ]
    for r in rows[1:]:
        ub24 = "ub24" in r[0]
        r[4] = "v1.30.6"
        r[7] = "Ubuntu 24.04.1 LTS" if ub24 else "Ubuntu 22.04.5 LTS"
        r[8] = "6.8.0-49-generic" if ub24 else "5.15.0-126-generic"
    k8s["kubectl get nodes -o wide"] = table(rows)
    for key in (
        "kubectl get services -n kube-system -o wide",
        "kubectl get endpoints -n kube-system",
    ):
        rows = [re.split(r"\s{2,}", line.strip()) for line in k8s[key].splitlines()]
        k8s[key] = table(
            [["kube-dns", *r[1:]] if r[0] == "coredns" else r for r in rows]
        )
    sig = '[FATAL] plugin/loop: Loop (127.0.0.1:46313 -> :53) detected for zone ".", see https://coredns.io/plugins/loop#troubleshooting. Query: "HINFO 5127368926421541170.8235113096473910377."'
    pod = pod_name(cd, "4kq2m")
    k8s[f"kubectl logs {pod} -n kube-system --tail=1000"] = ""
    k8s[f"kubectl logs {pod} -n kube-system --previous --tail=1000"] = podlog(
        [
            (-41, ".:53"),
            (-41, "[INFO] plugin/reload: Running configuration SHA512 = 8a3f0c..."),
            (-41, "CoreDNS-1.11.3"),
            (-41, "linux/amd64, go1.21.11, a6338e9"),
            (-40, sig),
        ]
    )
    k8s["kubectl get configmaps coredns -n kube-system -o yaml"] = (
        "apiVersion: v1\ndata:\n  Corefile: |\n    .:53 {\n        errors\n        health {\n           lameduck 5s\n        }\n        ready\n"
        "        kubernetes cluster.local in-addr.arpa ip6.arpa {\n           pods insecure\n           fallthrough in-addr.arpa ip6.arpa\n           ttl 30\n        }\n"
        "        prometheus :9153\n        forward . /etc/resolv.conf {\n           max_concurrent 1000\n        }\n        cache 30\n        loop\n        reload\n        loadbalance\n    }\n"
        "kind: ConfigMap\nmetadata:\n  name: coredns\n  namespace: kube-system\n"
    )
    describe_pod(
        k8s,
        "kube-system",
        cd,
        "4kq2m",
        nodes,
        state=crashloop(1, "Error", -41, -40),
        started=-41,
        restarts=8,
        labels="k8s-app=kube-dns,pod-template-hash=7c8d9f6b5",
        events_rows=[
            sched("kube-system", pod, nodes[0][0], "21m"),
            (
                "Warning",
                "Unhealthy",
                "20m",
                "kubelet",
                "Readiness probe failed: HTTP probe failed with statuscode: 503",
            ),
            (
                "Warning",
                "BackOff",
                "40s (x88 over 20m)",
                "kubelet",
                f"Back-off restarting failed container coredns in pod {pod}_kube-system(3a9c1e7f-5b2d-4f8e-a6c1-9d0e2f3b4a57)",
            ),
        ],
    )
    k8s["kubectl events -n kube-system"] = events(
        [
            (
                "22m",
                "Normal",
                "Killing",
                "Pod/coredns-7c8d9f6b5-m3tzs",
                "Stopping container coredns",
            ),
            (
                "21m",
                "Normal",
                "SuccessfulCreate",
                "ReplicaSet/coredns-7c8d9f6b5",
                f"Created pod: {pod}",
            ),
            (
                "40s",
                "Warning",
                "BackOff",
                f"Pod/{pod}",
                f"Back-off restarting failed container coredns in pod {pod}_kube-system(3a9c1e7f-5b2d-4f8e-a6c1-9d0e2f3b4a57)",
            ),
        ]
    )
    evs = [
        ev(
            "ansible",
            "info",
            "PLAY RECAP k8s-w-ub24-01 : ok=57 changed=41 failed=0 (PLAT-77 rebuild workers on ubuntu-24.04, kubelet-config.yaml.j2 v3)",
            at=-7300,
        ),
        ev(
            "ansible",
            "info",
            "PLAY RECAP k8s-w-ub24-02 : ok=57 changed=41 failed=0 (PLAT-77 rebuild workers on ubuntu-24.04, kubelet-config.yaml.j2 v3)",
            at=-7000,
        ),
        ev(
            "kubectl-drain",
            "info",
            "node/k8s-w-ub22-02 drained (PLAT-77); evicting pod kube-system/coredns-7c8d9f6b5-m3tzs",
            at=start - 60,
        ),
        ev(
            "playback-api",
            "error",
            'level=error msg="token service call failed" err="dial tcp: lookup entitlements.auth.svc.cluster.local on 10.233.0.3:53: read udp 10.105.3.{ms}:41873->10.233.0.3:53: i/o timeout"',
            **every(start + 30, -3, 6),
            pods=pods_of(pa),
        ),
        ev(
            "hls-packager",
            "error",
            "[hls @ 0x55d{n}] Failed to open segment upload 'http://origin-store.streaming.svc:8080/live/ch{n}/seg.ts': Name or service not known",
            **every(start + 45, -5, 12),
        ),
        ev(
            "player-web",
            "warn",
            '{"level":"warn","msg":"manifest fetch retry","status":503,"channel":"ch{n}"}',
            **every(start + 90, -3, 8),
        ),
        ev(
            "playback-api",
            "info",
            'level=info msg="playback-api 9.2.1 started (low-latency HLS flag)"',
            at=-345600,
            pods=pods_of(pa),
        ),
        ev(
            "cdn-log-shipper",
            "warn",
            "S3 upload throttled, retrying batch {n}",
            **every(-7100, -120, 500),
        ),
        ev(
            "playback-api",
            "error",
            'level=error msg="redis: connection pool timeout"',
            **every(-10300, -9900, 80),
            pods=pods_of(pa),
        ),
    ]
    return kube_case(
        seed=505,
        start=start,
        inc=incident("Live streams buffering / not starting", "live streams", start),
        exp=expected(
            "dns",
            [
                "deployment/coredns",
                "coredns",
                "kube-dns",
                "plugin/loop",
                "resolvConf",
                "127.0.0.53",
                "systemd-resolved",
                "PLAT-77",
            ],
            sig,
            "The worker rebuild on Ubuntu 24.04 (PLAT-77) dropped kubelet's resolvConf override, so CoreDNS (dnsPolicy Default) inherits the systemd-resolved stub 127.0.0.53 and forwards to itself; the loop plugin aborts it at start. Both CoreDNS pods, rescheduled onto rebuilt nodes, crash-loop and every in-cluster lookup times out. playback-api's, hls-packager's and player-web's errors are victims; the drain is the trigger; the S3 throttling and old Redis timeouts are not the cause.",
            [
                f"coredns previous log: {sig}",
                "coredns 0/2 CrashLoopBackOff on k8s-w-ub24-01/02",
                "lookup ... on 10.233.0.3:53: i/o timeout",
            ],
            "Set kubelet resolvConf to /run/systemd/resolve/resolv.conf on the rebuilt nodes (or forward CoreDNS to the upstream resolvers explicitly) and restart CoreDNS.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "playback-api",
                pods_of(pa),
                ['level=info msg="GET /v1/play/ch{n}" status=200 ms={ms}'],
                8,
            )
        ],
        evs=evs,
        services=[svc("playback-api", 300, {"502": (0.0005, 0.35)}, (0.04, 2.1))],
        gauges=[
            gauge(
                "coredns_dns_requests_total_rate",
                {"server": "dns://:53"},
                2400,
                0,
                start + 20,
            )
        ],
        books={
            "buffering.md": runbook(
                "Live streams buffering",
                "Buffering is almost always the CDN: purge the live manifests and, if it persists, fail over to the secondary CDN.",
            )
        },
    )


# =================================================================================================
# 10. Scheduler down (media): the render farm's pods use the secondary scheduler `scheduler-plugins`
#     (coscheduling, gang scheduling). A Renovate PR bumped its image to v0.30.6 with the cluster
#     upgrade; its KubeSchedulerConfiguration is still `kubescheduler.config.k8s.io/v1beta3`, which
#     the new scheduler no longer knows, so it crash-loops. Render pods stay Pending with no events at
#     all. The incident says "renders not starting".
# =================================================================================================


@scenario("secondary-scheduler-config-version-removed")
def secondary_scheduler_config_version_removed() -> dict[str, Any]:
    start = -2400
    ns = "render"
    rw = app(
        "render-worker",
        image="harbor.frameworks.example/render/render-worker:14.3.0",
        port=8080,
        rs="7d6c9b8f5",
        cluster_ip="10.96.50.11",
        desired=6,
        service=False,
        pods=[
            (s, "0/1", "Pending", "0", "38m", -1)
            for s in ["b3kqz", "d8wmt", "g2pxn", "k5rvl", "q7tzc", "w4nhd"]
        ],
    )
    k8s = namespace(
        ns, NODES_IAD, [rw], seed=506, extra_namespaces=("scheduler-plugins",)
    )
    sp = app(
        "scheduler-plugins-scheduler",
        image="registry.k8s.io/scheduler-plugins/kube-scheduler:v0.30.6",
        port=10259,
        rs="5c9f8d7b6",
        service=False,
        pods=[("m2xkq", "0/1", "CrashLoopBackOff", "12 (2m ago)", "40m", 1)],
    )
    sys_ns = namespace("scheduler-plugins", NODES_IAD, [sp], seed=1506)
    k8s.update({k: v for k, v in sys_ns.items() if " -n scheduler-plugins" in k})
    sig = 'no kind "KubeSchedulerConfiguration" is registered for version "kubescheduler.config.k8s.io/v1beta3" in scheme "pkg/runtime/scheme.go:100"'
    spod = pod_name(sp, "m2xkq")
    k8s[f"kubectl logs {spod} -n scheduler-plugins --previous --tail=1000"] = podlog(
        [
            (
                -130,
                "I1205 13:57:50.114261       1 serving.go:386] Generated self-signed cert in-memory",
            ),
            (
                -130,
                f'E1205 13:57:50.114902       1 run.go:72] "command failed" err="couldn\'t decode as KubeSchedulerConfiguration, got &TypeMeta{{Kind:,APIVersion:,}}: {sig}"',
            ),
        ]
    )
    k8s[f"kubectl logs {spod} -n scheduler-plugins --tail=1000"] = ""
    describe_pod(
        k8s,
        "scheduler-plugins",
        sp,
        "m2xkq",
        NODES_IAD,
        state=crashloop(1, "Error", -131, -130),
        started=-131,
        restarts=12,
        events_rows=[
            (
                "Warning",
                "BackOff",
                "2m (x170 over 39m)",
                "kubelet",
                f"Back-off restarting failed container scheduler-plugins-scheduler in pod {spod}_scheduler-plugins(8e2d4c1a-6f3b-4a9e-b7d5-1c0f2e3a4b68)",
            )
        ],
    )
    rpod = pod_name(rw, "b3kqz")
    k8s[f"kubectl describe pods {rpod} -n {ns}"] = pending_pod(
        rpod,
        ns,
        owner=f"ReplicaSet/render-worker-{rw['rs']}",
        labels=[
            "app=render-worker",
            f"pod-template-hash={rw['rs']}",
            "scheduling.x-k8s.io/pod-group=render-job-88412",
        ],
        sa="render-worker",
        containers=container_text(
            "render-worker",
            rw["image"],
            8080,
            limits="cpu:     8\n  nvidia.com/gpu:  1\n  memory:  30Gi",
            requests="cpu:      8\n  nvidia.com/gpu:  1\n  memory:   30Gi",
        ),
        events_rows=[],
    )
    k8s[f"kubectl get pods {rpod} -n {ns} -o yaml"] = (
        f"apiVersion: v1\nkind: Pod\nmetadata:\n  labels:\n    app: render-worker\n    pod-template-hash: {rw['rs']}\n"
        "    scheduling.x-k8s.io/pod-group: render-job-88412\n"
        f"  name: {rpod}\n  namespace: {ns}\n  ownerReferences:\n  - apiVersion: apps/v1\n    controller: true\n"
        f"    kind: ReplicaSet\n    name: render-worker-{rw['rs']}\nspec:\n  containers:\n  - image: {rw['image']}\n"
        '    name: render-worker\n    resources:\n      limits:\n        nvidia.com/gpu: "1"\n  priority: 0\n'
        "  schedulerName: scheduler-plugins-scheduler\n  serviceAccountName: render-worker\nstatus:\n  phase: Pending\n  qosClass: Burstable\n"
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "38m",
                "Normal",
                "SuccessfulCreate",
                f"ReplicaSet/render-worker-{rw['rs']}",
                f"Created pod: {rpod}",
            ),
            (
                "38m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/render-worker",
                f"Scaled up replica set render-worker-{rw['rs']} to 6 from 0",
            ),
        ]
    )
    k8s["kubectl events -n scheduler-plugins"] = events(
        [
            (
                "40m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/scheduler-plugins-scheduler",
                f"Scaled up replica set scheduler-plugins-scheduler-{sp['rs']} to 1",
            ),
            (
                "2m",
                "Warning",
                "BackOff",
                f"Pod/{spod}",
                f"Back-off restarting failed container scheduler-plugins-scheduler in pod {spod}_scheduler-plugins(8e2d4c1a-6f3b-4a9e-b7d5-1c0f2e3a4b68)",
            ),
        ]
    )
    evs = [
        ev(
            "argocd",
            "info",
            "application scheduler-plugins synced: image kube-scheduler v0.28.9 -> v0.30.6 (renovate PR #2214 'align with cluster 1.30'), health Degraded",
            at=-2450,
        ),
        ev("eks", "info", "UpdateClusterVersion 1.29 -> 1.30 Successful", at=-9000),
        ev(
            "render-queue",
            "warn",
            '{"level":"warn","msg":"job waiting for workers","job":"render-job-{n}","waiting_s":1{n}}',
            **every(start + 120, -10, 30),
        ),
        ev(
            "studio-web",
            "error",
            "POST /api/renders 504 Gateway Timeout (render-queue)",
            **every(start + 600, -5, 60),
        ),
        ev(
            "keda",
            "info",
            "scaledobject render/render-worker: scaling to 6 replicas (queue length 312)",
            at=start - 20,
        ),
        ev(
            "asset-sync",
            "error",
            "rsync: connection unexpectedly closed (nas-03)",
            **every(-7000, -300, 900),
        ),
        ev(
            "render-queue",
            "error",
            '{"level":"error","msg":"license server flexlm timeout"}',
            **every(-10200, -9800, 100),
        ),
    ]
    return kube_case(
        seed=506,
        start=start,
        inc=incident("Renders not starting, queue stuck", "renders", start),
        exp=expected(
            "platform",
            [
                "deployment/scheduler-plugins-scheduler",
                "scheduler-plugins-scheduler",
                "scheduler-plugins",
                "kubeschedulerconfiguration",
                "v1beta3",
                "renovate PR #2214",
            ],
            sig,
            "render-worker pods name the secondary scheduler scheduler-plugins-scheduler; Renovate PR #2214 bumped it to v0.30.6 while its KubeSchedulerConfiguration stays at v1beta3, which the new binary cannot decode, so it crash-loops and nothing schedules the render pods (Pending, no events). The cluster upgrade, KEDA's scale-up, studio-web's 504s, rsync and old licence timeouts are not the cause.",
            [
                f"scheduler-plugins-scheduler: {sig}",
                "render-worker pods Pending with no scheduling events, Scheduler Name scheduler-plugins-scheduler",
                "argocd: v0.28.9 -> v0.30.6",
            ],
            "Move the scheduler's config to kubescheduler.config.k8s.io/v1 (or roll the image back); the render pods then get scheduled.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "render-queue",
                ["render-queue-0"],
                [
                    '{"level":"info","msg":"enqueued","job":"render-job-{n}","frames":{n}}'
                ],
                20,
            )
        ],
        evs=evs,
        services=[svc("studio-web", 15, {"504": (0.0, 0.05)}, (0.1, 0.3))],
        gauges=[gauge("render_queue_length", {"queue": "default"}, 8, 312, start)],
        books={
            "renders-stuck.md": runbook(
                "Renders stuck",
                "A stuck render queue is usually the licence server: restart flexlm on lic-01 and requeue the jobs.",
            )
        },
    )


# =================================================================================================
# 11. Image tag that does not exist (retail): an ECR lifecycle rule added by the platform team
#     ("keep the last 25 tagged images", PLAT-402) expired promo-service:3.8.4, which production still
#     pins while staging built forty images since. Existing pods run from the node cache; after a spot
#     interruption the replacements cannot pull. The incident says "discount codes".
# =================================================================================================


@scenario("ecr-lifecycle-expired-pinned-prod-tag")
def ecr_lifecycle_expired_pinned_prod_tag() -> dict[str, Any]:
    start = -1600
    ns = "promotions"
    img = "523118904471.dkr.ecr.eu-central-1.amazonaws.com/retail/promo-service:3.8.4"
    ps = app(
        "promo-service",
        image=img,
        port=8080,
        rs="6b8c7d9f5",
        cluster_ip="172.20.77.31",
        pods=[
            ("f4kzq", "1/1", "Running", "0", "18d", 2),
            ("m9wtr", "0/1", "ImagePullBackOff", "0", "24m", 0),
            ("t2hxv", "0/1", "ErrImagePull", "0", "24m", 1),
        ],
    )
    k8s = namespace(ns, NODES_FRA, [ps], seed=507)
    sig = f'failed to resolve reference "{img}": {img}: not found'
    pod = pod_name(ps, "m9wtr")
    describe_pod(
        k8s,
        ns,
        ps,
        "m9wtr",
        NODES_FRA,
        state="    State:          Waiting\n      Reason:       ImagePullBackOff",
        started=-1440,
        status="Pending",
        events_rows=[
            sched(ns, pod, NODES_FRA[0][0], "24m"),
            (
                "Normal",
                "Pulling",
                "21m (x5 over 24m)",
                "kubelet",
                f'Pulling image "{img}"',
            ),
            (
                "Warning",
                "Failed",
                "21m (x5 over 24m)",
                "kubelet",
                f'Failed to pull image "{img}": rpc error: code = NotFound desc = failed to pull and unpack image "{img}": {sig}',
            ),
            (
                "Warning",
                "Failed",
                "21m (x5 over 24m)",
                "kubelet",
                "Error: ErrImagePull",
            ),
            (
                "Normal",
                "BackOff",
                "3m (x98 over 24m)",
                "kubelet",
                f'Back-off pulling image "{img}"',
            ),
        ],
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "25m",
                "Normal",
                "Killing",
                "Pod/promo-service-6b8c7d9f5-c1mpq",
                "Stopping container promo-service",
            ),
            (
                "24m",
                "Normal",
                "SuccessfulCreate",
                "ReplicaSet/promo-service-6b8c7d9f5",
                f"Created pod: {pod}",
            ),
            (
                "21m",
                "Warning",
                "Failed",
                f"Pod/{pod}",
                f'Failed to pull image "{img}": rpc error: code = NotFound desc = failed to pull and unpack image "{img}": {sig}',
            ),
        ]
    )
    evs = [
        ev(
            "kubelet",
            "error",
            f'E{{klog}}       1 pod_workers.go:1301] "Error syncing pod, skipping" err="failed to \\"StartContainer\\" for \\"promo-service\\" with ErrImagePull: \\"rpc error: code = NotFound desc = failed to pull and unpack image \\\\\\"{img}\\\\\\": {sig}\\"" pod="promotions/promo-service-6b8c7d9f5-{{n}}"',
            **every(start + 60, -30, 150),
        ),
        ev(
            "terraform",
            "info",
            'aws_ecr_lifecycle_policy.retail["promo-service"]: Creation complete (PLAT-402: rule 1 "keep last 25 tagged images", tagStatus=tagged, countType=imageCountMoreThan)',
            at=-180000,
        ),
        ev(
            "ecr",
            "info",
            "Lifecycle policy expired 41 images from retail/promo-service (oldest tag 3.8.4, pushed 2026-10-02)",
            at=-90000,
        ),
        ev(
            "aws-node-termination-handler",
            "info",
            "Spot ITN received for i-0c7f2a91e4b6d3580 (ip-10-70-1-52): draining node",
            at=start - 120,
        ),
        ev(
            "checkout-bff",
            "error",
            '{"level":"error","msg":"promo validation failed","code":"SPRING24","status":503,"upstream":"promo-service"}',
            **every(start + 60, -3, 7),
        ),
        ev(
            "promo-service",
            "warn",
            "{date} {hms}.412  WARN 1 --- [nio-8080-exec-{ms}] o.a.tomcat.util.threads.ThreadPoolExecutor : pool busy: active=200",
            **every(start + 100, -10, 40),
            pods=[pod_name(ps, "f4kzq")],
        ),
        ev(
            "github-actions",
            "info",
            "workflow 'build promo-service' #1942 on branch main: pushed retail/promo-service:3.9.0-rc.40 (staging)",
            at=-3000,
        ),
        ev(
            "checkout-bff",
            "info",
            '{"level":"info","msg":"checkout-bff 5.1.0 deployed (Apple Pay express)"}',
            at=-4800,
        ),
        ev(
            "loyalty-api",
            "warn",
            "points ledger reconciliation lagging by 4{n}s",
            **every(-7000, -200, 600),
        ),
        ev(
            "promo-service",
            "error",
            "HikariPool-1 - Connection is not available, request timed out after 30000ms.",
            **every(-10100, -9700, 90),
            pods=[pod_name(ps, "f4kzq")],
        ),
    ]
    return kube_case(
        seed=507,
        start=start,
        inc=incident(
            "Discount codes failing at checkout",
            "discount codes",
            start,
            ["promo code rejected"],
        ),
        exp=expected(
            "platform",
            [
                "deployment/promo-service",
                "promo-service",
                "promo-service:3.8.4",
                "ecr lifecycle policy",
                "PLAT-402",
                "retail/promo-service",
            ],
            sig,
            "PLAT-402's ECR lifecycle rule (keep last 25 tagged images) expired promo-service:3.8.4, the tag production still pins; after a spot interruption the two replacement pods cannot pull it (NotFound, ImagePullBackOff) and the last pod is overloaded, so promo validation fails. checkout-bff's errors and release, the spot interruption (trigger), the staging builds and old Hikari timeouts are not the cause.",
            [
                f"kubelet: {sig}",
                "promo-service 1/3 available, 2 ImagePullBackOff",
                "ECR lifecycle expired tag 3.8.4",
            ],
            "Push 3.8.4 again from the build cache (or deploy a current tag) and exclude production tags from the lifecycle rule.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "promo-service",
                [pod_name(ps, "f4kzq")],
                [
                    "{date} {hms}.118  INFO 1 --- [nio-8080-exec-{ms}] c.r.promo.ValidateController : code validated in {ms}ms"
                ],
                8,
            )
        ],
        evs=evs,
        services=[
            svc("promo-service", 80, {"503": (0.0005, 0.3)}, (0.03, 0.6)),
            svc("checkout-bff", 60, {"500": (0.001, 0.12)}, (0.2, 0.5)),
        ],
        gauges=[
            gauge(
                "kube_deployment_status_replicas_available",
                {"deployment": "promo-service"},
                3,
                1,
                start,
            )
        ],
        books={
            "promo-codes.md": runbook(
                "Promo codes rejected",
                "Rejected codes usually mean the campaign table was not published: ask marketing to republish the campaign in the promo admin.",
            )
        },
    )


# =================================================================================================
# 12. cert-manager renewal failing (SaaS): a Cloudflare WAF custom rule (SEC-118, "block countries
#     without customers") also blocks the US, where Let's Encrypt validates HTTP-01 challenges from.
#     cert-manager's renewals of portal.brightdesk.example have failed with 403 for weeks; the
#     certificate expired two hours ago. The incident says "customer portal", symptom "not secure".
# =================================================================================================


@scenario("waf-geo-rule-blocks-acme-http01-renewal")
def waf_geo_rule_blocks_acme_http01_renewal() -> dict[str, Any]:
    start = -6900
    sig = "wrong status code '403', expected '200'"
    evs = [
        ev(
            "cloudflare",
            "info",
            'ruleset http_request_firewall_custom: rule "SEC-118 block countries without customers" deployed: (ip.geoip.country in {"CN" "RU" "US" "BR" "IN"}) and not cf.client.bot -> block',
            at=-2592000 + 86400 * 29,
        ),
        ev(
            "cert-manager",
            "warn",
            f'E{{klog}}       1 sync.go:190] "propagation check failed" err="failed to perform self check GET request \'http://portal.brightdesk.example/.well-known/acme-challenge/{{n}}\': {sig}" logger="cert-manager.challenges" resource_name="portal-tls-1-3917420118-0" resource_namespace="portal" dnsName="portal.brightdesk.example" type="HTTP-01"',
            **every(-10800, -20, 600),
        ),
        ev(
            "cert-manager",
            "warn",
            'I{klog}       1 conditions.go:192] "Found status change for Certificate condition" logger="cert-manager.certificates-readiness" condition="Ready" oldStatus="True" status="False" reason="Expired" message="Certificate expired on Sat, 05 Dec 2026 12:05:00 UTC"',
            at=start,
        ),
        ev(
            "cloudflare",
            "info",
            '{"ClientCountry":"us","ClientRequestPath":"/.well-known/acme-challenge/{n}","EdgeResponseStatus":403,"SecurityAction":"block","SecurityRuleDescription":"SEC-118 block countries without customers","ClientRequestUserAgent":"Mozilla/5.0 (compatible; Let\'s Encrypt validation server; +https://www.letsencrypt.org)"}',
            **every(-10700, -60, 1200),
        ),
        ev(
            "portal-web",
            "warn",
            '{"level":"warn","msg":"client aborted: TLS handshake failed","ip":"198.51.100.{ms}"}',
            **every(start + 60, -10, 45),
        ),
        ev(
            "support-desk",
            "info",
            "ticket #{n} created: 'portal says your connection is not private'",
            **every(start + 600, -60, 420),
        ),
        ev(
            "portal-web",
            "info",
            '{"level":"info","msg":"portal-web 18.0.1 deployed (dark mode)"}',
            at=-9000,
        ),
        ev(
            "api",
            "error",
            '{"level":"error","msg":"webhook delivery failed","status":502,"target":"hooks.customer-{n}.example"}',
            **every(-7100, -100, 400),
        ),
        ev(
            "portal-web",
            "error",
            '{"level":"error","msg":"session store: ECONNRESET"}',
            **every(-10300, -9800, 120),
        ),
    ]
    spec = simple(
        seed=508,
        start=start,
        inc=incident(
            "Customer portal shows security warning",
            "customer portal",
            start,
            ["browser says not secure"],
        ),
        exp=expected(
            "tls",
            [
                "portal.brightdesk.example",
                "certificate/portal-tls",
                "portal-tls",
                "cert-manager",
                "SEC-118",
                "cloudflare waf",
                "acme-challenge",
            ],
            sig,
            "Cloudflare WAF rule SEC-118 blocks US clients, including Let's Encrypt's HTTP-01 validation; cert-manager's renewals of portal-tls have failed with 403 for weeks and the certificate for portal.brightdesk.example expired at 12:05 UTC, so browsers reject the portal. portal-web's handshake warnings and release, the support tickets, webhook 502s and old session errors are not the cause.",
            [
                f"cert-manager: propagation check failed: {sig}",
                "Cloudflare: /.well-known/acme-challenge 403 SEC-118 (Let's Encrypt validation server)",
                "Certificate condition Ready False reason Expired",
            ],
            "Exempt /.well-known/acme-challenge/ (or Let's Encrypt) from SEC-118, or switch to DNS-01, and renew now.",
        ),
        bgs=[
            bg(
                "portal-web",
                ["portal-web-1", "portal-web-2"],
                ['{"level":"info","msg":"GET /dashboard 200","ms":{ms}}'],
                8,
            )
        ],
        evs=evs,
        services=[
            svc("portal-web", 30, {"500": (0.001, 0.001)}, (0.08, 0.08), rps_after=9)
        ],
        gauges=[
            gauge(
                "certmanager_certificate_ready_status",
                {"name": "portal-tls", "condition": "True"},
                1,
                0,
                start,
            )
        ],
        books={
            "portal-not-secure.md": runbook(
                "Portal shows a security warning",
                "Security warnings come from customers' corporate proxies doing TLS inspection: ask the customer to whitelist portal.brightdesk.example.",
            )
        },
    )
    return with_netcheck(
        spec,
        [
            {
                "name": "portal",
                "url": "https://portal.brightdesk.example/",
                "fault": {"kind": "tls_expired", "expired_s_ago": 7000},
            },
            {
                "name": "api",
                "url": "https://api.brightdesk.example/health",
                "fault": {"kind": "ok"},
            },
        ],
        "portal",
        {
            "portal": {"failed_layer": "tls", "reason": "certificate_expired"},
            "api": {"failed_layer": "none", "reason": None},
        },
    )


# =================================================================================================
# 13. DNS record pointing at a wrong address (retail): during the warehouse network move (NET-5531)
#     the Infoblox A record wms-api.warehouse.example was changed to 10.40.12.71 instead of
#     10.40.21.71 (digits swapped). store-pos-sync, which pushes till sales to the warehouse system,
#     cannot connect; shop stock levels drift and click-and-collect orders fail. The incident says
#     "stock levels wrong".
# =================================================================================================


@scenario("wms-record-digits-swapped-network-move")
def wms_record_digits_swapped_network_move() -> dict[str, Any]:
    start = -3300
    sig = "Connect to wms-api.warehouse.example:8443 [wms-api.warehouse.example/10.40.12.71] failed: Connection refused"
    evs = [
        ev(
            "infoblox",
            "info",
            "audit: user n.okafor modified A record wms-api.warehouse.example: 10.30.21.71 -> 10.40.12.71 (NET-5531 warehouse network move)",
            at=start - 240,
        ),
        ev(
            "infoblox",
            "info",
            "audit: user n.okafor modified A record wms-db.warehouse.example: 10.30.21.72 -> 10.40.21.72 (NET-5531 warehouse network move)",
            at=start - 200,
        ),
        ev(
            "store-pos-sync",
            "error",
            f"{{date}} {{hms}} ERROR [sync-worker-{{n}}] c.b.pos.WmsClient - push of sales batch {{n}} failed: org.apache.hc.client5.http.HttpHostConnectException: {sig}",
            **every(start + 30, -5, 20),
        ),
        ev(
            "store-pos-sync",
            "warn",
            "{date} {hms} WARN  [scheduler] c.b.pos.Backlog - unsent sales batches: {n}",
            **every(start + 300, -30, 120),
        ),
        ev(
            "click-collect",
            "error",
            '{"level":"error","msg":"reservation failed","store":"S{n}","reason":"stock mismatch"}',
            **every(start + 900, -5, 25),
        ),
        ev(
            "click-collect",
            "info",
            '{"level":"info","msg":"click-collect 7.3.0 deployed (reserve for 48h)"}',
            at=-6000,
        ),
        ev(
            "storefront",
            "warn",
            "slow upstream: pricing-api p95 820ms",
            **every(-7000, -100, 500),
        ),
        ev(
            "store-pos-sync",
            "error",
            "{date} {hms} ERROR [sync-worker-2] c.b.pos.WmsClient - 401 Unauthorized (token expired, refreshing)",
            **every(-10500, -9900, 150),
        ),
    ]
    spec = simple(
        seed=509,
        start=start,
        inc=incident("Stock levels on the website are wrong", "stock levels", start),
        exp=expected(
            "dns",
            [
                "wms-api.warehouse.example",
                "10.40.12.71",
                "infoblox",
                "NET-5531",
                "a record",
            ],
            sig,
            "NET-5531 changed the Infoblox A record wms-api.warehouse.example to 10.40.12.71 (digits swapped; the host is 10.40.21.71); store-pos-sync cannot reach the warehouse API, till sales pile up unsent and stock levels drift, so click-and-collect reservations fail. click-collect's errors and release, pricing-api latency and the old token refresh errors are not the cause.",
            [
                f"store-pos-sync: {sig}",
                "Infoblox audit: wms-api 10.30.21.71 -> 10.40.12.71 (wms-db -> 10.40.21.72)",
                "unsent sales batches growing",
            ],
            "Fix the A record to 10.40.21.71 (and lower its TTL during moves); store-pos-sync then drains its backlog.",
        ),
        bgs=[
            bg(
                "store-pos-sync",
                ["pos-sync-01"],
                [
                    "{date} {hms} INFO  [http] c.b.pos.TillController - received sales batch {n} from till S{n}-0{ms}"
                ],
                8,
            )
        ],
        evs=evs,
        services=[svc("click-collect", 12, {"409": (0.002, 0.18)}, (0.12, 0.12))],
        gauges=[
            gauge(
                "pos_sync_unsent_batches",
                {"service": "store-pos-sync"},
                0,
                2140,
                start + 60,
            )
        ],
        books={
            "stock-wrong.md": runbook(
                "Stock levels wrong",
                "Wrong stock usually means the nightly ERP stock import failed: rerun the ERP import job.",
            )
        },
    )
    return with_netcheck(
        spec,
        [
            {
                "name": "wms-api",
                "url": "https://wms-api.warehouse.example/health",
                "fault": {"kind": "dns_wrong_address", "address": "127.0.0.2"},
            },
            {
                "name": "pos-sync",
                "url": "http://pos-sync.retail.example/health",
                "fault": {"kind": "ok"},
            },
        ],
        None,
        {
            "wms-api": {"failed_layer": "connect", "reason": "refused"},
            "pos-sync": {"failed_layer": "none", "reason": None},
        },
    )


# =================================================================================================
# 14. One replica of several failing (media): feed-api runs on four VMs, each reading from a local
#     Redis replica of the article cache. Last night's Redis master failover (CHG-3320) moved the
#     master to 10.30.1.27; the Ansible run that repoints the replicas failed on feed-api-03 (apt
#     lock), so its local replica still follows the old master and serves a frozen copy: new articles
#     404 on one request in four. The incident says "new articles missing sometimes".
# =================================================================================================


@scenario("one-vm-local-redis-replica-follows-old-master")
def one_vm_local_redis_replica_follows_old_master() -> dict[str, Any]:
    start = -2600
    sig = "Error condition on socket for SYNC: Connection refused"
    evs = [
        ev(
            "redis-sentinel",
            "warn",
            "+switch-master articles 10.30.1.15 6379 10.30.1.27 6379",
            at=-30000,
        ),
        ev(
            "ansible",
            "info",
            "PLAY RECAP feed-api-01 : ok=12 changed=1 failed=0 (CHG-3320 repoint local replicas)",
            at=-29000,
        ),
        ev(
            "ansible",
            "info",
            "PLAY RECAP feed-api-02 : ok=12 changed=1 failed=0 (CHG-3320 repoint local replicas)",
            at=-29000,
        ),
        ev(
            "ansible",
            "error",
            'fatal: [feed-api-03]: FAILED! => {"msg": "Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 2213 (unattended-upgr)"} (CHG-3320 repoint local replicas)',
            at=-28990,
        ),
        ev(
            "ansible",
            "info",
            "PLAY RECAP feed-api-04 : ok=12 changed=1 failed=0 (CHG-3320 repoint local replicas)",
            at=-28980,
        ),
        ev(
            "redis",
            "warn",
            f"1187:S {{redis}}.112 # {sig}",
            **every(-28000, -10, 300),
            labels={"host": "feed-api-03"},
        ),
        ev(
            "redis",
            "info",
            "1187:S {redis}.113 * Connecting to MASTER 10.30.1.15:6379",
            **every(-28000, -10, 300),
            labels={"host": "feed-api-03"},
        ),
        ev(
            "feed-api",
            "warn",
            '{"level":"warn","host":"feed-api-03","msg":"article not in cache","slug":"{n}-live-updates","status":404}',
            **every(start, -3, 11),
        ),
        ev(
            "cms",
            "info",
            '{"level":"info","msg":"article published","id":{n}}',
            **every(-7000, -60, 240),
        ),
        ev(
            "web-frontend",
            "error",
            '{"level":"error","msg":"article fetch 404","upstream":"feed-api","path":"/articles/{n}"}',
            **every(start + 30, -3, 12),
        ),
        ev(
            "feed-api",
            "info",
            '{"level":"info","msg":"feed-api 3.12.0 deployed to 4 hosts (AMP markup)"}',
            at=-5000,
        ),
        ev(
            "ad-server",
            "warn",
            "prebid timeout after 800ms (bidder appnexus)",
            **every(-7000, -40, 300),
        ),
        ev(
            "feed-api",
            "error",
            '{"level":"error","host":"feed-api-01","msg":"redis: READONLY You can\'t write against a read only replica."}',
            **every(-30200, -29800, 60),
        ),
    ]
    spec = simple(
        seed=510,
        start=start,
        inc=incident("New articles missing sometimes (404)", "new articles", start),
        exp=expected(
            "application",
            [
                "feed-api-03",
                "redis on feed-api-03",
                "redis replica",
                "replicaof",
                "CHG-3320",
                "10.30.1.15",
            ],
            sig,
            "After the Redis master failover (CHG-3320) the Ansible run that repoints the local replicas failed on feed-api-03 (dpkg lock); its local replica still follows the old master 10.30.1.15, cannot sync and serves a frozen article cache, so one request in four (the ones that land on feed-api-03) gets 404 for new articles. web-frontend's errors, feed-api's release, ad-server timeouts and the failover-time READONLY errors are not the cause.",
            [
                f"redis on feed-api-03: {sig} (MASTER 10.30.1.15)",
                "ansible: feed-api-03 FAILED (dpkg lock)",
                "404s only from host feed-api-03",
            ],
            "Point feed-api-03's local replica at 10.30.1.27 (rerun the playbook) or take feed-api-03 out of the pool until it has synced.",
        ),
        bgs=[
            bg(
                "feed-api",
                ["feed-api-01", "feed-api-02", "feed-api-03", "feed-api-04"],
                ['{"level":"info","msg":"GET /articles/{n} 200","ms":{ms}}'],
                8,
            )
        ],
        evs=evs,
        services=[svc("feed-api", 180, {"404": (0.004, 0.06)}, (0.02, 0.02))],
        gauges=[gauge("redis_master_link_up", {"host": "feed-api-03"}, 1, 0, -28990)],
        books={
            "articles-404.md": runbook(
                "Articles 404",
                "A new article that 404s was not purged from the CDN: purge its URL in Fastly and republish it from the CMS.",
            )
        },
    )
    return spec


# =================================================================================================
# 15. Third party rate-limiting us (fintech SaaS): support-console 6.0 (PR #904) added a "customer
#     360" panel that calls Stripe's /v1/customers/search on every page view. Stripe's Search API
#     has its own low per-account limit; at the morning support peak it answers 429 and the
#     subscription signup flow, which searches for an existing customer first, fails. The incident
#     says "signups failing".
# =================================================================================================


@scenario("stripe-search-limit-spent-by-support-console")
def stripe_search_limit_spent_by_support_console() -> dict[str, Any]:
    start = -1900
    sig = "Request rate limit exceeded for search API"
    evs = [
        ev(
            "github-actions",
            "info",
            "deploy support-console 6.0.0 to production (PR #904 'customer 360 panel: live Stripe data')",
            at=start - 1500,
        ),
        ev(
            "support-console",
            "info",
            '{"level":"info","msg":"customer360: stripe.customers.search","query":"email:\'{n}@example.com\'","ms":{ms}}',
            **every(start - 1400, -5, 9),
        ),
        ev(
            "subscription-api",
            "error",
            f'{{"level":"error","msg":"stripe error","type":"StripeRateLimitError","http_status":429,"code":"rate_limit","message":"{sig}. Please try again later.","request_id":"req_{{n}}","endpoint":"/v1/customers/search"}}',
            **every(start, -3, 8),
        ),
        ev(
            "signup-web",
            "error",
            '{"level":"error","msg":"signup failed","step":"create_customer","status":502}',
            **every(start + 20, -4, 10),
        ),
        ev(
            "signup-web",
            "info",
            '{"level":"info","msg":"signup-web 12.4.0 deployed (annual plan toggle)"}',
            at=-7200,
        ),
        ev(
            "billing-worker",
            "warn",
            "invoice.payment_failed webhook for in_{n}: card_declined",
            **every(-7000, -50, 400),
        ),
        ev(
            "subscription-api",
            "error",
            '{"level":"error","msg":"stripe error","type":"APIConnectionError","message":"Connection reset by peer"}',
            **every(-10400, -9900, 100),
        ),
    ]
    spec = simple(
        seed=511,
        start=start,
        inc=incident("Signups failing at payment step", "signups", start),
        exp=expected(
            "http",
            [
                "stripe",
                "api.stripe.example",
                "customers/search",
                "support-console",
                "support-console 6.0.0",
                "PR #904",
            ],
            sig,
            "support-console 6.0.0 (PR #904) calls Stripe's customers/search on every page view; at the support peak it spends the account's Search API rate limit, Stripe answers 429 and subscription-api's customer lookup at signup fails. signup-web's errors and release, payment_failed webhooks and old connection resets are not the cause.",
            [
                f"subscription-api: 429 rate_limit: {sig} on /v1/customers/search",
                "support-console customer360 stripe.customers.search every page view since 6.0.0",
                "signup-web: create_customer failed",
            ],
            "Cache or debounce the customer 360 search (or use customers.list by email) in support-console; retry signups with backoff.",
        ),
        bgs=[
            bg(
                "subscription-api",
                ["subscription-api-1", "subscription-api-2"],
                ['{"level":"info","msg":"POST /v1/subscriptions 201","ms":{ms}}'],
                10,
            )
        ],
        evs=evs,
        services=[
            svc("subscription-api", 8, {"502": (0.001, 0.45)}, (0.3, 0.35)),
            svc("support-console", 20, {"500": (0.002, 0.03)}, (0.2, 0.25)),
        ],
        gauges=[
            gauge(
                "stripe_requests_per_second",
                {"endpoint": "/v1/customers/search"},
                2,
                31,
                start - 1400,
            )
        ],
        books={
            "signup-failing.md": runbook(
                "Signups failing",
                "Signup failures at payment are usually 3-D Secure: check Stripe's Radar rules and the 3DS challenge rate.",
            )
        },
    )
    return with_netcheck(
        spec,
        [
            {
                "name": "stripe-search",
                "url": "https://api.stripe.example/v1/customers/search",
                "fault": {
                    "kind": "http_status",
                    "status": 429,
                    "body": '{"error": {"code": "rate_limit", "message": "'
                    + sig
                    + '. Please try again later.", "type": "invalid_request_error"}}',
                    "headers": {"Content-Type": "application/json", "Retry-After": "1"},
                },
            },
            {
                "name": "subscription-api-health",
                "url": "http://subscription-api.internal.example/healthz",
                "fault": {"kind": "ok"},
            },
        ],
        "stripe-search",
        {
            "stripe-search": {"failed_layer": "http", "reason": "http_429"},
            "subscription-api-health": {"failed_layer": "none", "reason": None},
        },
    )


# =================================================================================================
# 16. Network delay visible from metrics (retail): an RDS Multi-AZ failover (host replacement, AWS
#     maintenance) moved shop-db's primary from eu-west-1a to eu-west-1b; every basket-api pod is in
#     eu-west-1a. A basket page runs ~60 short queries, each now paying a cross-AZ round trip: query
#     time 0.3 -> 1.1 ms, page p95 150 -> 480 ms. Nothing errors. The incident says "basket slow".
# =================================================================================================


@scenario("rds-failover-primary-other-az-chatty-basket")
def rds_failover_primary_other_az_chatty_basket() -> dict[str, Any]:
    start = -2500
    sig = "Multi-AZ instance failover completed"
    evs = [
        ev(
            "rds-events",
            "info",
            "shop-db: Multi-AZ instance failover started. (reason: the primary host is being replaced for maintenance)",
            at=start - 90,
        ),
        ev(
            "rds-events",
            "info",
            f"shop-db: {sig}. Primary is now in eu-west-1b.",
            at=start - 40,
        ),
        ev(
            "basket-api",
            "warn",
            'at=warn msg="slow request" path=/basket queries=62 total_ms=4{ms} az=eu-west-1a',
            **every(start + 60, -5, 25),
        ),
        ev(
            "basket-api",
            "info",
            'at=info msg="basket-api 15.2.0 started" change="free-shipping banner"',
            at=-8000,
        ),
        ev(
            "web",
            "warn",
            "upstream basket-api slow: p95 over the 300ms budget ({n} slow requests)",
            **every(start + 300, -60, 180),
        ),
        ev(
            "search",
            "error",
            "opensearch: circuit_breaking_exception [parent] Data too large",
            **every(-7000, -100, 600),
        ),
        ev(
            "basket-api",
            "error",
            'at=error msg="pq: canceling statement due to statement timeout"',
            **every(-10300, -9900, 90),
        ),
    ]
    return simple(
        seed=512,
        start=start,
        inc=incident("Basket page slow", "basket", start),
        exp=expected(
            "connect",
            [
                "shop-db",
                "rds",
                "multi-az failover",
                "eu-west-1b",
                "cross-az",
                "availability zone",
            ],
            sig,
            "An RDS Multi-AZ failover moved shop-db's primary to eu-west-1b while all basket-api pods run in eu-west-1a; each of the ~60 queries per basket page now crosses AZs (0.3 -> 1.1 ms), so the page p95 triples with no errors. basket-api's release, the web warnings, OpenSearch circuit breakers and old statement timeouts are not the cause.",
            [
                f"RDS event: shop-db {sig}, primary now in eu-west-1b",
                "db round trip 0.3 -> 1.1 ms at the failover",
                "basket-api slow requests with ~60 queries, az=eu-west-1a",
            ],
            "Fail shop-db back to eu-west-1a (reboot with failover) or spread basket-api across AZs, and reduce the queries per page.",
        ),
        bgs=[
            bg(
                "basket-api",
                ["basket-api-1a-1", "basket-api-1a-2", "basket-api-1a-3"],
                ['at=info msg="request" path=/basket status=200 total_ms={ms}'],
                8,
            )
        ],
        evs=evs,
        services=[svc("basket-api", 150, {"500": (0.0005, 0.0006)}, (0.12, 0.42))],
        gauges=[
            gauge(
                "db_client_roundtrip_ms",
                {"db": "shop-db", "client_az": "eu-west-1a"},
                0.3,
                1.1,
                start - 40,
            )
        ],
        books={
            "basket-slow.md": runbook(
                "Basket slow",
                "A slow basket is nearly always a bad query plan: run ANALYZE on basket_items and check pg_stat_statements for a new top query.",
            )
        },
    )


STAGES: dict[str, tuple[str, str]] = {
    "card-auth-schema-compiled-per-request-hpa-max": ("runtime", "ScalingLimited"),
    "netpol-namespace-split-drops-gpu-transcoders": ("runtime", "NetworkPolicyDenied"),
    "buildkit-cache-disk-pressure-evicts-checkout": ("infrastructure", "Evicted"),
    "ingress-exports-path-to-metrics-service": (
        "service_routing",
        "IngressWrongBackend",
    ),
    "geoipupdate-init-licence-revoked": ("startup", "Init:CrashLoopBackOff"),
    "configmap-duration-without-unit-crashes-consumer": ("startup", "CrashLoopBackOff"),
    "sanctions-sync-cronjob-deadline-holds-payouts": ("runtime", "DeadlineExceeded"),
    "pdb-max-unavailable-zero-stalls-nodegroup-upgrade": (
        "infrastructure",
        "PodEvictionFailure",
    ),
    "coredns-loop-systemd-resolved-stub-new-image": (
        "infrastructure",
        "CrashLoopBackOff",
    ),
    "secondary-scheduler-config-version-removed": (
        "infrastructure",
        "CrashLoopBackOff",
    ),
    "ecr-lifecycle-expired-pinned-prod-tag": ("startup", "ImagePullBackOff"),
}


TOKENS = {
    "{iso}": "%Y-%m-%dT%H:%M:%S.%fZ",
    "{date}": "%Y-%m-%d",
    "{hms}": "%H:%M:%S",
    "{klog}": "%m%d %H:%M:%S.%f",
    "{redis}": "%d %b %Y %H:%M:%S",
    "{nginx}": "%d/%b/%Y:%H:%M:%S +0000",
}


def stamp_logs(spec: dict[str, Any]) -> None:
    """Fills the clock tokens of log messages from each line's own offset (the capture's clock)."""
    for line in spec["logs"]:
        if "{" not in line["message"]:
            continue
        at = base.CAPTURED + timedelta(seconds=line["offset_s"])
        for token, fmt in TOKENS.items():
            line["message"] = line["message"].replace(token, at.strftime(fmt))


def main(root: Path = HERE) -> None:
    for slug, build in SCENARIOS.items():
        spec = build()
        if slug in STAGES:
            stage, reason = STAGES[slug]
            spec["expected"]["root_cause_stage"] = stage
            spec["expected"]["root_cause_reason"] = reason
        stamp_logs(spec)
        base.write(slug, spec, root)
        print(slug)


if __name__ == "__main__":
    main()
