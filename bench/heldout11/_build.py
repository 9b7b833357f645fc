"""Writes the eleventh held-out scenario set, bench/heldout11: `python bench/heldout11/_build.py`.

New incidents, none of them in the bundled set or in bench/heldout … bench/heldout10. As there,
everything that matters is written by hand below (incident, expected answer, runbooks, kubectl
answers, the log lines that carry the fault and the red herrings); the bulk (background request
lines, 2 h of metric points thinned to one every 30 s, a namespace's tables, describe layouts) comes
from bench/heldout10/_build.py's helpers (and through them heldout9's and the earlier builders'),
each scenario with a fixed seed (281-296). The author read neither the planner (`reasoning/`) nor
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


h10 = _load("heldout10_build", HERE.parent / "heldout10" / "_build.py")
h9 = h10.h9
h7 = h10.h7
base = h10.base

table = base.table
events = base.events
runbook = base.runbook
app = h10.app
pod_name = h10.pod_name
namespace = h10.namespace
ev = h10.ev
bg = h10.bg
incident = h10.incident
expected = h10.expected
simple = h10.simple
container_text = h10.container_text
deployment_describe = h10.deployment_describe
describe_pod = h10.describe_pod
podlog = h10.podlog
running = h10.running
crashloop = h10.crashloop
waiting = h10.waiting
node_describe = h10.node_describe
replicaset_describe = h10.replicaset_describe
sched = h10.sched
kube_case = h10.kube_case
merge_ns = h10.merge_ns
pods_of = h10.pods_of
NODES_FRA = h10.NODES_FRA
NODES_IAD = h10.NODES_IAD
NODES_DUB = h10.NODES_DUB
NODES_PDX = h10.NODES_PDX

SCENARIOS: dict[str, Any] = {}


def scenario(slug: str):
    def register(fn):
        SCENARIOS[slug] = fn
        return fn

    return register


def svc(
    name: str,
    rps: float,
    errors: dict[str, tuple[float, float]],
    latency: tuple[float, float],
    **kw: Any,
) -> dict[str, Any]:
    return {"name": name, "rps": rps, "errors": errors, "latency": latency, **kw}


def ramp(
    name: str, labels: dict[str, str], before: float, after: float, frm: int, to: int
) -> dict[str, Any]:
    return {
        "name": name,
        "labels": labels,
        "before": before,
        "after": after,
        "from": frm,
        "to": to,
    }


# =================================================================================================
# 1. Admission: the security team rotated the cosign key of the Sigstore policy-controller's
#    ClusterImagePolicy `prod-signed` and replaced the old public key instead of adding the new one.
#    Images signed before the rotation still run, but a node drain (the trigger) evicts two of the
#    three payout-worker pods and the ReplicaSet cannot create new ones. The incident says "payouts".
# =================================================================================================


@scenario("image-signature-policy-key-rotated")
def image_signature_policy_key_rotated() -> dict[str, Any]:
    start = -1500
    ns = "payouts"
    img = "registry.brightbank.example/payouts/payout-worker:4.1.7@sha256:7d1c0e5a9b3f42e8c6a1d0b9e8f7a6c5b4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9"
    pw = app(
        "payout-worker",
        image=img,
        port=8080,
        rs="58d9c7b6f4",
        cluster_ip="172.20.41.17",
        desired=3,
        pods=[("x7kqp", "1/1", "Running", "0", "9d", 2)],
    )
    pa = app(
        "payout-api",
        image="registry.brightbank.example/payouts/payout-api:2.22.0",
        port=8080,
        rs="6b8f5d9c7",
        cluster_ip="172.20.41.9",
        pods=[
            ("q2vln", "1/1", "Running", "0", "47m", 1),
            ("d8rtc", "1/1", "Running", "0", "47m", 2),
        ],
    )
    nodes = [
        (NODES_IAD[0][0], "Ready,SchedulingDisabled", NODES_IAD[0][2]),
        *NODES_IAD[1:],
    ]
    k8s = namespace(ns, nodes, [pw, pa], seed=281)
    deny = (
        'admission webhook "policy.sigstore.dev" denied the request: validation failed: failed policy: prod-signed: '
        f"spec.containers[0].image\n{img} signature key validation failed for authority authority-0 for "
        f"{img.split('@')[0]}: no matching signatures"
    )
    rs = f"payout-worker-{pw['rs']}"
    cont = container_text(
        "payout-worker",
        img,
        8080,
        env={"QUEUE": "payouts.outbound", "BANK_RAIL": "sepa-instant"},
    )
    k8s[f"kubectl describe replicasets {rs} -n {ns}"] = replicaset_describe(
        rs,
        ns,
        deployment="payout-worker",
        revision=14,
        desired=3,
        current=1,
        status="1 Running / 0 Waiting / 0 Succeeded / 0 Failed",
        containers=cont,
        failure=True,
        events_rows=[
            (
                "Warning",
                "FailedCreate",
                "2m (x19 over 24m)",
                "replicaset-controller",
                f"Error creating: {deny}",
            )
        ],
    )
    k8s[f"kubectl describe deployments payout-worker -n {ns}"] = deployment_describe(
        "payout-worker",
        ns,
        replicas="3 desired | 1 updated | 1 total | 1 available | 2 unavailable",
        revision=14,
        containers=cont,
        conditions=[
            ("Available", "False", "MinimumReplicasUnavailable"),
            ("ReplicaFailure", "True", "FailedCreate"),
            ("Progressing", "True", "NewReplicaSetAvailable"),
        ],
        old_rs="<none>",
        new_rs=f"{rs} (1/3 replicas created)",
        created=-777600,
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "47m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/payout-api",
                "Scaled up replica set payout-api-6b8f5d9c7 to 2",
            ),
            (
                "25m",
                "Normal",
                "Killing",
                "Pod/payout-worker-58d9c7b6f4-m4hzs",
                "Stopping container payout-worker",
            ),
            (
                "25m",
                "Normal",
                "Killing",
                "Pod/payout-worker-58d9c7b6f4-t9wbd",
                "Stopping container payout-worker",
            ),
            (
                "2m",
                "Warning",
                "FailedCreate",
                f"ReplicaSet/{rs}",
                f"Error creating: {deny}",
            ),
        ]
    )
    sig = 'admission webhook "policy.sigstore.dev" denied the request'
    evs = [
        ev(
            "gitops",
            "info",
            "argocd: synced app cluster-policies to rev 9e41c2a: ClusterImagePolicy prod-signed configured (authorities[0].key.data replaced, PR sec#212 'rotate cosign signing key')",
            at=-7200,
        ),
        ev(
            "kube-controller-manager",
            "warn",
            f"replicaset-controller: Error creating pod for {ns}/{rs}: {deny.splitlines()[0]}",
            **{"from": start, "to": -20, "every_s": 75},
        ),
        ev(
            "node-maintenance",
            "info",
            f"draining {NODES_IAD[0][0]} for AMI update ami-0c4e2b7a91d5f3e60 (evicted 14 pods)",
            at=start - 20,
        ),
        ev(
            "payout-worker",
            "warn",
            "queue payouts.outbound depth {n}00; consumer lag rising",
            **{"from": start + 60, "to": -10, "every_s": 120},
            pods=pods_of(pw),
        ),
        ev(
            "payout-api",
            "error",
            "POST /v1/payouts 503 upstream queue saturated (payouts.outbound depth > 5000) after {ms}ms",
            **{"from": start + 300, "to": -2, "every_s": 5},
            pods=pods_of(pa),
        ),
        ev(
            "payout-api",
            "info",
            "payout-api 2.22.0 started (idempotency keys now 48h)",
            at=-2820,
            pods=pods_of(pa),
        ),
        ev(
            "fx-rates",
            "warn",
            "ECB reference rate feed late by {n} s, using previous fixing",
            **{"from": -3600, "to": -100, "every_s": 600},
        ),
        ev(
            "payout-worker",
            "error",
            "SFTP upload to bank gateway failed: Connection reset by peer (retry 1/5)",
            **{"from": -9600, "to": -9000, "every_s": 90},
            pods=pods_of(pw),
        ),
    ]
    return kube_case(
        seed=281,
        start=start,
        inc=incident("Merchant payouts delayed", "payouts", start),
        exp=expected(
            "platform",
            [
                "deployment/payout-worker",
                "payout-worker",
                f"replicaset/{rs}",
                "clusterimagepolicy/prod-signed",
                "prod-signed",
                "policy.sigstore.dev",
            ],
            sig,
            "Two hours ago the security team rotated the cosign key of the ClusterImagePolicy prod-signed and replaced the old public key instead of adding the new one. payout-worker 4.1.7 was signed with the old key; its running pod was admitted earlier, but the node drain evicted two pods and the Sigstore policy-controller's admission webhook rejects every new one (no matching signatures). With one worker of three the outbound queue grows and payout-api answers 503. The drain is the trigger, not the cause; payout-api's release, the FX feed and the old SFTP reset are not the cause.",
            [
                f"ReplicaSet {rs}: FailedCreate: {sig}",
                "argocd: ClusterImagePolicy prod-signed authorities[0].key.data replaced 2 h ago",
                "payout-worker 1/3 available since the node drain",
            ],
            "Add the old public key back to prod-signed as a second authority (or re-sign payout-worker 4.1.7 with the new key), then let the ReplicaSet recreate the pods.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "payout-api",
                pods_of(pa),
                ["POST /v1/payouts 202 {ms}ms", "GET /v1/payouts/{n} 200 {ms}ms"],
                8,
            )
        ],
        evs=evs,
        services=[svc("payout-api", 30, {"503": (0.001, 0.38)}, (0.05, 0.4))],
        books={
            "payout-backlog.md": runbook(
                "Payout backlog",
                "If payouts.outbound grows, scale the worker: `kubectl scale deployment/payout-worker -n payouts --replicas=6`, then check the bank gateway's SFTP.",
            )
        },
    )


# =================================================================================================
# 2. Scheduling: quote-engine requires (required..., topologyKey zone) to run in the zone of a
#    rates-cache pod. rates-cache was moved yesterday to a small dedicated node group in eu-central-1c
#    only. Running pods stay (IgnoredDuringExecution), but today's quote-engine rollout cannot place its
#    new pods anywhere but the full 1c nodes. The incident says "car insurance quotes".
# =================================================================================================


@scenario("pod-affinity-follows-moved-cache")
def pod_affinity_follows_moved_cache() -> dict[str, Any]:
    start = -1260
    ns = "quotes"
    new_img = "ghcr.io/velocover/quote-engine:7.3.0"
    new_rs = "7c4d8b9f6"
    qe = app(
        "quote-engine",
        image="ghcr.io/velocover/quote-engine:7.2.4",
        port=8080,
        rs="5f9b6c7d8",
        cluster_ip="172.20.12.40",
        desired=6,
        age="400d",
        pods=[
            ("h4sfw", "1/1", "Running", "0", "12d", 0),
            ("m9cql", "1/1", "Running", "0", "12d", 1),
            ("r3tkz", "1/1", "Running", "0", "12d", 0),
            ("w6bpy", "1/1", "Running", "0", "12d", 1),
        ],
        extra_rs=[
            (
                f"quote-engine-{new_rs}",
                "2",
                "2",
                "0",
                "21m",
                "quote-engine",
                new_img,
                f"app=quote-engine,pod-template-hash={new_rs}",
            )
        ],
    )
    rc = app(
        "rates-cache",
        image="redis:7.2.5",
        port=6379,
        rs="",
        kind="StatefulSet",
        cluster_ip="None",
        pods=[
            ("0", "1/1", "Running", "0", "19h", 2),
            ("1", "1/1", "Running", "0", "19h", 2),
        ],
    )
    qw = app(
        "quote-web",
        image="ghcr.io/velocover/quote-web:3.14.1",
        port=3000,
        rs="8d6f7b5c9",
        cluster_ip="172.20.12.7",
        pods=[
            ("v5lzn", "1/1", "Running", "0", "5d", 0),
            ("j8ghq", "1/1", "Running", "0", "5d", 1),
        ],
    )
    k8s = namespace(ns, NODES_FRA, [qe, rc, qw], seed=282)
    pending = [f"quote-engine-{new_rs}-k2mrx", f"quote-engine-{new_rs}-p7vdn"]
    h10.h8.add_pods(
        k8s,
        ns,
        [
            (
                p,
                "0/1",
                "Pending",
                "0",
                "21m",
                "<none>",
                "<none>",
                f"app=quote-engine,pod-template-hash={new_rs}",
            )
            for p in pending
        ],
    )
    fail = (
        "0/9 nodes are available: 3 Insufficient cpu, 6 node(s) didn't match pod affinity rules. preemption: 0/9 nodes are "
        "available: 3 No preemption victims found for incoming pod, 6 Preemption is not helpful for scheduling."
    )
    aff = "  Affinity:\n    Pod Affinity:\n      Required: topologyKey=topology.kubernetes.io/zone, labelSelector app=rates-cache\n"
    cont = container_text(
        "quote-engine",
        new_img,
        8080,
        requests="cpu:      1500m\n  memory:   2Gi",
        limits="memory:  2Gi",
    )
    for name in pending:
        k8s[f"kubectl describe pods {name} -n {ns}"] = h10.pending_pod(
            name,
            ns,
            owner=f"ReplicaSet/quote-engine-{new_rs}",
            labels=["app=quote-engine", f"pod-template-hash={new_rs}"],
            sa="quote-engine",
            containers=cont + aff,
            events_rows=[
                (
                    "Warning",
                    "FailedScheduling",
                    "96s (x12 over 21m)",
                    "default-scheduler",
                    fail,
                )
            ],
        )
    k8s[f"kubectl describe deployments quote-engine -n {ns}"] = deployment_describe(
        "quote-engine",
        ns,
        replicas="6 desired | 2 updated | 6 total | 4 available | 2 unavailable",
        revision=31,
        containers=cont + aff,
        conditions=[
            ("Available", "True", "MinimumReplicasAvailable"),
            ("Progressing", "True", "ReplicaSetUpdated"),
        ],
        old_rs="quote-engine-5f9b6c7d8 (4/4 replicas created)",
        new_rs=f"quote-engine-{new_rs} (2/2 replicas created)",
        events_rows=[
            (
                "Normal",
                "ScalingReplicaSet",
                "21m",
                "deployment-controller",
                f"Scaled up replica set quote-engine-{new_rs} to 2",
            ),
            (
                "Normal",
                "ScalingReplicaSet",
                "21m",
                "deployment-controller",
                "Scaled down replica set quote-engine-5f9b6c7d8 to 4 from 6",
            ),
        ],
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "19h",
                "Normal",
                "Scheduled",
                "Pod/rates-cache-0",
                f"Successfully assigned {ns}/rates-cache-0 to {NODES_FRA[2][0]}",
            ),
            (
                "21m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/quote-engine",
                "Scaled down replica set quote-engine-5f9b6c7d8 to 4 from 6",
            ),
            ("96s", "Warning", "FailedScheduling", f"Pod/{pending[0]}", fail),
            ("96s", "Warning", "FailedScheduling", f"Pod/{pending[1]}", fail),
        ]
    )
    sig = "didn't match pod affinity rules"
    oldp, webp = pods_of(qe), pods_of(qw)
    evs = [
        ev(
            "gitops",
            "info",
            "flux: kustomization data-stores applied: statefulset/rates-cache nodeSelector node-group=cache-c (eu-central-1c), PR infra#388 'dedicated cache nodes'",
            at=-68400,
        ),
        ev(
            "kube-scheduler",
            "warn",
            f'"Unable to schedule pod; no fit; waiting" pod="{ns}/{pending[0]}" err="{fail}"',
            **{"from": start + 30, "to": -30, "every_s": 120},
        ),
        ev(
            "quote-engine",
            "warn",
            "pricing request queue wait {ms}ms (workers busy 64/64)",
            **{"from": start + 120, "to": -5, "every_s": 6},
            pods=oldp,
        ),
        ev(
            "quote-web",
            "error",
            "POST /api/quote 504 after 8000ms (quote-engine)",
            **{"from": start + 240, "to": -3, "every_s": 5},
            pods=webp,
        ),
        ev(
            "quote-web",
            "info",
            "quote-web 3.14.1 ready (new vehicle picker)",
            at=-4300,
            pods=webp,
        ),
        ev(
            "rates-cache",
            "warn",
            "WARNING Memory overcommit must be enabled! Without it, a background save or replication may fail under low memory condition.",
            at=-68000,
        ),
        ev(
            "partner-feed",
            "warn",
            "DVLA vehicle lookup slow: {ms}0ms",
            **{"from": -3600, "to": -60, "every_s": 400},
        ),
        ev(
            "quote-engine",
            "error",
            "RatesCacheClient: READONLY You can't write against a read only replica.",
            **{"from": -10200, "to": -9600, "every_s": 100},
            pods=oldp,
        ),
    ]
    return kube_case(
        seed=282,
        start=start,
        inc=incident(
            "Quote page timing out",
            "car insurance quotes",
            start,
            ["quotes take forever then fail"],
        ),
        exp=expected(
            "platform",
            [
                "deployment/quote-engine",
                "quote-engine",
                "statefulset/rates-cache",
                "rates-cache",
            ],
            sig,
            "quote-engine has a required pod affinity (topologyKey zone) to rates-cache. Yesterday rates-cache was moved to dedicated nodes in eu-central-1c only; the running quote-engine pods were not evicted, but today's 7.3.0 rollout scaled the old ReplicaSet down to 4 and the 2 new pods can only go to the 1c nodes, which lack CPU: FailedScheduling (6 nodes didn't match pod affinity rules, 3 Insufficient cpu). With 4 of 6 workers quote-engine queues and quote-web times out. The rollout is the trigger; the new code, quote-web's release, the DVLA lookups and the old READONLY error are not the cause.",
            [
                f"{pending[0]}: FailedScheduling: {sig}",
                "quote-engine: required pod affinity to app=rates-cache by zone",
                "flux: rates-cache pinned to eu-central-1c 19 h ago",
            ],
            "Make the affinity preferred (or drop it) and let the rollout finish; or roll back with maxUnavailable 0; spread rates-cache over the zones again.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "quote-web",
                webp,
                ["POST /api/quote 200 {ms}ms", "GET /quote/{n} 200 {ms}ms"],
                8,
            ),
            bg("quote-engine", oldp, ["priced quote {n} in {ms}ms"], 10),
        ],
        evs=evs,
        services=[
            svc("quote-web", 25, {"504": (0.002, 0.21)}, (0.4, 3.1)),
            svc("quote-engine", 25, {"500": (0.001, 0.002)}, (0.35, 2.9)),
        ],
        books={
            "quote-latency.md": runbook(
                "Quote latency",
                "Slow quotes usually come from the DVLA partner lookup: switch `VEHICLE_LOOKUP=cache-only` in quote-engine's ConfigMap and restart it.",
            )
        },
    )


# =================================================================================================
# 3. Startup: transcoder 5.0.0 moved its Dockerfile to a multi-stage build; `COPY --from=build
#    /src/entrypoint.sh /app/` lost the exec bit. runc cannot exec the entrypoint: the new pods fail
#    with StartError (exit 128) and back off; the rollout stalls with one old pod left of three.
#    The incident says "video uploads".
# =================================================================================================


@scenario("entrypoint-lost-exec-bit")
def entrypoint_lost_exec_bit() -> dict[str, Any]:
    start = -1740
    ns = "media"
    new_img = "quay.io/clipwise/transcoder:5.0.0"
    new_rs = "6f8b9d7c5"
    tc = app(
        "transcoder",
        image="quay.io/clipwise/transcoder:4.9.3",
        port=9000,
        rs="84c6d5f9b",
        cluster_ip="172.20.77.31",
        desired=3,
        pods=[("s8nlq", "1/1", "Running", "0", "16d", 1)],
        extra_rs=[
            (
                f"transcoder-{new_rs}",
                "2",
                "2",
                "0",
                "29m",
                "transcoder",
                new_img,
                f"app=transcoder,pod-template-hash={new_rs}",
            )
        ],
    )
    up = app(
        "upload-api",
        image="quay.io/clipwise/upload-api:11.2.0",
        port=8080,
        rs="5d7c8b6f9",
        cluster_ip="172.20.77.12",
        pods=[
            ("c4pxz", "1/1", "Running", "0", "3d", 0),
            ("n9kwd", "1/1", "Running", "0", "3d", 2),
        ],
    )
    k8s = namespace(ns, NODES_PDX, [tc, up], seed=283)
    newpods = [f"transcoder-{new_rs}-g5hvt", f"transcoder-{new_rs}-l2rqm"]
    h10.h8.add_pods(
        k8s,
        ns,
        [
            (
                p,
                "0/1",
                "CrashLoopBackOff",
                "10 (2m ago)",
                "29m",
                f"10.83.{i + 1}.{61 + i * 40}",
                NODES_PDX[i * 2][0],
                f"app=transcoder,pod-template-hash={new_rs}",
            )
            for i, p in enumerate(newpods)
        ],
    )
    err = (
        "failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: "
        'unable to start container process: exec: "/app/entrypoint.sh": permission denied: unknown'
    )
    sig = 'exec: "/app/entrypoint.sh": permission denied'
    state = (
        "    State:          Waiting\n      Reason:       CrashLoopBackOff\n    Last State:     Terminated\n"
        f"      Reason:       StartError\n      Message:      {err}\n      Exit Code:    128\n"
    )
    for i, p in enumerate(newpods):
        k8s[f"kubectl describe pods {p} -n {ns}"] = h10.pending_pod(
            p,
            ns,
            owner=f"ReplicaSet/transcoder-{new_rs}",
            labels=["app=transcoder", f"pod-template-hash={new_rs}"],
            sa="transcoder",
            node=f"{NODES_PDX[i * 2][0]}/{NODES_PDX[i * 2][2]}",
            status="Running",
            ip=f"10.83.{i + 1}.{61 + i * 40}",
            containers=f"  transcoder:\n    Image:          {new_img}\n    Port:           9000/TCP\n{state}    Ready:          False\n    Restart Count:  10\n",
            conditions=(
                ("Initialized", "True"),
                ("Ready", "False"),
                ("ContainersReady", "False"),
                ("PodScheduled", "True"),
            ),
            events_rows=[
                (
                    "Normal",
                    "Pulled",
                    "2m (x11 over 29m)",
                    "kubelet",
                    f'Container image "{new_img}" already present on machine',
                ),
                ("Warning", "Failed", "2m (x11 over 29m)", "kubelet", f"Error: {err}"),
                (
                    "Warning",
                    "BackOff",
                    "40s (x130 over 29m)",
                    "kubelet",
                    "Back-off restarting failed container transcoder in pod "
                    + f"{p}_{ns}(3f1c…)",
                ),
            ],
        )
    k8s[f"kubectl logs {newpods[0]} -n {ns} --tail=1000"] = ""
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "29m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/transcoder",
                f"Scaled up replica set transcoder-{new_rs} to 2",
            ),
            (
                "29m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/transcoder",
                "Scaled down replica set transcoder-84c6d5f9b to 1 from 3",
            ),
            ("2m", "Warning", "Failed", f"Pod/{newpods[0]}", f"Error: {err}"),
            ("2m", "Warning", "Failed", f"Pod/{newpods[1]}", f"Error: {err}"),
        ]
    )
    tcp, upp = pods_of(tc), pods_of(up)
    evs = [
        ev(
            "ci",
            "info",
            "pipeline #48211 transcoder: built quay.io/clipwise/transcoder:5.0.0 (multi-stage Dockerfile, ffmpeg 7.1, image 412MB -> 188MB)",
            at=start - 900,
        ),
        ev(
            "argo-rollouts",
            "info",
            "transcoder: rollout to 5.0.0 started (maxUnavailable 2, maxSurge 0)",
            at=start - 10,
        ),
        ev(
            "kubelet",
            "warn",
            f'Error syncing pod, skipping: failed to "StartContainer" for "transcoder" with RunContainerError: "{err}"',
            **{"from": start + 60, "to": -60, "every_s": 180},
        ),
        ev(
            "transcoder",
            "warn",
            "job backlog {n}0 renditions; worker slots 4/4 busy",
            **{"from": start + 120, "to": -10, "every_s": 60},
            pods=tcp,
        ),
        ev(
            "upload-api",
            "error",
            "GET /v2/videos/{n}/status: processing for more than 900s, reporting 'stuck' to client",
            **{"from": start + 600, "to": -3, "every_s": 6},
            pods=upp,
        ),
        ev(
            "upload-api",
            "warn",
            "multipart upload part {n} retried: S3 RequestTimeout",
            **{"from": -3600, "to": -60, "every_s": 500},
            pods=upp,
        ),
        ev(
            "cdn-purge",
            "info",
            "purged {n} objects for tenant 42",
            **{"from": -3600, "to": -100, "every_s": 700},
        ),
        ev(
            "transcoder",
            "error",
            "ffmpeg exited 234: Invalid data found when processing input (upload {n})",
            **{"from": -9000, "to": -8400, "every_s": 120},
            pods=tcp,
        ),
    ]
    return kube_case(
        seed=283,
        start=start,
        inc=incident("Video uploads stuck in processing", "video uploads", start),
        exp=expected(
            "application",
            [
                "deployment/transcoder",
                "transcoder",
                f"replicaset/transcoder-{new_rs}",
                "quay.io/clipwise/transcoder:5.0.0",
                "transcoder 5.0.0",
            ],
            sig,
            "transcoder 5.0.0 moved to a multi-stage Dockerfile whose final COPY of entrypoint.sh lost the executable bit. runc cannot exec it: both new pods fail with StartError (exit 128) and back off, while the rollout (maxUnavailable 2) already scaled the old ReplicaSet to one pod. One worker of three cannot keep up; uploads stay in processing and upload-api reports them stuck. upload-api's S3 retries, CDN purges and the old ffmpeg input error are not the cause.",
            [
                f"{newpods[0]}: Last State Terminated, StartError, exit 128: {sig}",
                "rollout to 5.0.0 (multi-stage build) 29 min ago; old ReplicaSet scaled to 1",
                "upload-api: videos processing > 900 s",
            ],
            "Roll back to 4.9.3 (`kubectl rollout undo deployment/transcoder -n media`); fix the image with `COPY --chmod=0755` (or chmod in the build stage) and use maxSurge instead of maxUnavailable.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "upload-api",
                upp,
                ["POST /v2/videos 201 {ms}ms", "GET /v2/videos/{n}/status 200 {ms}ms"],
                8,
            ),
            bg("transcoder", tcp, ["rendition {n} 720p done in {ms}ms"], 12),
        ],
        evs=evs,
        services=[svc("upload-api", 18, {"500": (0.002, 0.004)}, (0.08, 0.09))],
        books={
            "uploads-stuck.md": runbook(
                "Uploads stuck in processing",
                "Stuck uploads are almost always S3 multipart timeouts: abort incomplete multipart uploads (`aws s3api list-multipart-uploads`) and ask the user to retry.",
            )
        },
    )


# =================================================================================================
# 4. Runtime: risk-scorer moved from a StatefulSet to a Deployment; the chart's new values set
#    GROUP_INSTANCE_ID to the literal "risk-scorer" (it was the pod name). Kafka static membership:
#    every replica registers the same group.instance.id and fences the others, which exit 1 and
#    back off. Card authorisations fall back to manual review. The incident says "card payments".
# =================================================================================================


@scenario("kafka-static-member-id-shared")
def kafka_static_member_id_shared() -> dict[str, Any]:
    start = -2100
    ns = "fraud"
    img = "harbor.tollgate.example/fraud/risk-scorer:3.0.1"
    rsc = app(
        "risk-scorer",
        image=img,
        port=8080,
        rs="7d9f6c8b5",
        cluster_ip="172.20.9.88",
        pods=[
            ("b7xqn", "0/1", "CrashLoopBackOff", "9 (41s ago)", "36m", 0),
            ("f2lmz", "1/1", "Running", "8 (4m ago)", "36m", 1),
            ("t6pcw", "0/1", "CrashLoopBackOff", "9 (2m ago)", "36m", 2),
        ],
    )
    ca = app(
        "card-authoriser",
        image="harbor.tollgate.example/payments/card-authoriser:8.4.2",
        port=8080,
        rs="9c5b7d8f6",
        cluster_ip="172.20.9.20",
        pods=[
            ("r8vkd", "1/1", "Running", "0", "6d", 0),
            ("h3ntw", "1/1", "Running", "0", "6d", 2),
        ],
    )
    k8s = namespace(ns, NODES_DUB, [rsc, ca], seed=284)
    fenced = (
        "org.apache.kafka.common.errors.FencedInstanceIdException: The broker rejected this static consumer since another "
        "consumer with the same group.instance.id has registered with a different member.id."
    )
    sig = "FencedInstanceIdException"
    cont = container_text(
        "risk-scorer",
        img,
        8080,
        env={
            "KAFKA_BOOTSTRAP": "kafka-0.kafka:9092,kafka-1.kafka:9092",
            "GROUP_ID": "risk-scorer",
            "GROUP_INSTANCE_ID": "risk-scorer",
            "SESSION_TIMEOUT_MS": "45000",
        },
    )
    k8s[f"kubectl describe deployments risk-scorer -n {ns}"] = deployment_describe(
        "risk-scorer",
        ns,
        replicas="3 desired | 3 updated | 3 total | 1 available | 2 unavailable",
        revision=1,
        containers=cont,
        conditions=[
            ("Available", "False", "MinimumReplicasUnavailable"),
            ("Progressing", "True", "NewReplicaSetAvailable"),
        ],
        old_rs="<none>",
        new_rs=f"risk-scorer-{rsc['rs']} (3/3 replicas created)",
        created=-2200,
        events_rows=[
            (
                "Normal",
                "ScalingReplicaSet",
                "36m",
                "deployment-controller",
                f"Scaled up replica set risk-scorer-{rsc['rs']} to 3",
            )
        ],
    )
    name = describe_pod(
        k8s,
        ns,
        rsc,
        "b7xqn",
        NODES_DUB,
        state=crashloop(1, "Error", -170, -41),
        started=-2160,
        restarts=9,
        events_rows=[
            (
                "Warning",
                "BackOff",
                "41s (x140 over 35m)",
                "kubelet",
                "Back-off restarting failed container risk-scorer in pod risk-scorer-7d9f6c8b5-b7xqn_fraud(9e2d…)",
            )
        ],
    )
    k8s[f"kubectl logs {name} -n {ns} --previous --tail=1000"] = podlog(
        [
            (
                -170,
                "INFO  RiskScorerApp - Starting RiskScorerApp 3.0.1 on risk-scorer-7d9f6c8b5-b7xqn",
            ),
            (
                -160,
                "INFO  o.a.k.c.c.internals.ConsumerCoordinator - [Consumer instanceId=risk-scorer, clientId=risk-scorer-1, groupId=risk-scorer] Successfully joined group with generation Generation{generationId=212, memberId='risk-scorer-1-5c0e…', protocol='range'}",
            ),
            (
                -100,
                "ERROR o.a.k.c.c.internals.ConsumerCoordinator - [Consumer instanceId=risk-scorer, clientId=risk-scorer-1, groupId=risk-scorer] Received fatal exception: group.instance.id gets fenced",
            ),
            (-99, f"ERROR RiskScorerApp - consumer loop died: {fenced}"),
            (-41, "INFO  RiskScorerApp - shutting down (exit 1)"),
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "36m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/risk-scorer",
                f"Scaled up replica set risk-scorer-{rsc['rs']} to 3",
            ),
            (
                "34m",
                "Normal",
                "SuccessfulDelete",
                "StatefulSet/risk-scorer",
                "delete Pod risk-scorer-2 in StatefulSet risk-scorer successful",
            ),
            (
                "41s",
                "Warning",
                "BackOff",
                f"Pod/{name}",
                "Back-off restarting failed container risk-scorer in pod risk-scorer-7d9f6c8b5-b7xqn_fraud(9e2d…)",
            ),
        ]
    )
    rp, cap = pods_of(rsc), pods_of(ca)
    evs = [
        ev(
            "gitops",
            "info",
            "argocd: app risk-scorer synced to chart 3.0.0 (StatefulSet -> Deployment, PR fraud#141 'drop StatefulSet, no state')",
            at=start - 60,
        ),
        ev(
            "risk-scorer",
            "error",
            f"consumer loop died: {fenced}",
            **{"from": start + 90, "to": -40, "every_s": 45},
            pods=rp,
        ),
        ev(
            "kafka",
            "info",
            "[GroupCoordinator 1]: Static member with groupInstanceId=risk-scorer and unknown member id joins group risk-scorer in Stable state. Replacing previously mapped member risk-scorer-1-{n} with this groupInstanceId.",
            **{"from": start + 80, "to": -40, "every_s": 50},
        ),
        ev(
            "card-authoriser",
            "error",
            "risk score not received within 800ms for auth {n}; routing to manual review",
            **{"from": start + 120, "to": -2, "every_s": 3},
            pods=cap,
        ),
        ev(
            "card-authoriser",
            "warn",
            "manual review queue length {n}",
            **{"from": start + 300, "to": -10, "every_s": 90},
            pods=cap,
        ),
        ev(
            "card-authoriser",
            "info",
            "card-authoriser 8.4.2 ready (3DS2 exemptions)",
            at=-5400,
            pods=cap,
        ),
        ev(
            "kafka",
            "warn",
            "[Broker id=2] Leader imbalance ratio for broker 2 is 0.11 (> 0.10)",
            **{"from": -3600, "to": -300, "every_s": 900},
        ),
        ev(
            "risk-scorer",
            "error",
            "model registry unreachable: GET http://mlflow:5000/api/2.0/mlflow/registered-models/get timed out, using cached model v57",
            **{"from": -8400, "to": -7800, "every_s": 120},
        ),
    ]
    return kube_case(
        seed=284,
        start=start,
        inc=incident(
            "Card payments pending",
            "card payments",
            start,
            ["most card payments go to manual review"],
        ),
        exp=expected(
            "application",
            ["deployment/risk-scorer", "risk-scorer", "GROUP_INSTANCE_ID"],
            sig,
            "risk-scorer moved from a StatefulSet to a Deployment 36 minutes ago; the new values set GROUP_INSTANCE_ID to the fixed string 'risk-scorer' instead of the pod name. With Kafka static membership the three replicas register the same group.instance.id and fence each other: the fenced consumer throws FencedInstanceIdException, the app exits 1 and the pods crash-loop in turn. Risk scores stop, and card-authoriser sends most authorisations to manual review. card-authoriser's release, the broker's leader imbalance and the old MLflow timeout are not the cause.",
            [
                f"{name}: {sig} (previous log), exit 1, 9 restarts",
                "risk-scorer env GROUP_INSTANCE_ID=risk-scorer on all replicas",
                "kafka: static member risk-scorer replaced repeatedly",
            ],
            "Set GROUP_INSTANCE_ID from the pod name (fieldRef metadata.name) or drop static membership, and roll risk-scorer; the manual review queue drains afterwards.",
        ),
        k8s=k8s,
        bgs=[bg("card-authoriser", cap, ["POST /v1/authorisations 200 {ms}ms"], 8)],
        evs=evs,
        services=[svc("card-authoriser", 55, {"500": (0.001, 0.002)}, (0.12, 0.9))],
        books={
            "manual-review-spike.md": runbook(
                "Manual review spike",
                "A spike of manual reviews means the fraud model is drifting: pin risk-scorer to the previous model (`MODEL_VERSION=56`) and tell the fraud team.",
            )
        },
    )


# =================================================================================================
# 5. Node: EXT4 errors on one node's root volume; the kernel remounted it read-only. The node stays
#    Ready (node-problem-detector only sets ReadonlyFilesystem); pods there fail every write to
#    emptyDir / tmp and new containers cannot be created on it. A third of invoice renders fail.
#    The incident says "invoices".
# =================================================================================================


@scenario("node-root-remounted-readonly")
def node_root_remounted_readonly() -> dict[str, Any]:
    start = -2280
    ns = "billing"
    bad = NODES_FRA[1]
    ir = app(
        "invoice-renderer",
        image="ghcr.io/ledgerly/invoice-renderer:2.7.0",
        port=8000,
        rs="5b9c7f8d6",
        cluster_ip="172.20.5.61",
        pods=[
            ("k4pwn", "1/1", "Running", "0", "8d", 0),
            ("q8rxz", "1/1", "Running", "0", "8d", 1),
            ("v2mhs", "1/1", "Running", "0", "8d", 2),
        ],
    )
    bapi = app(
        "billing-api",
        image="ghcr.io/ledgerly/billing-api:15.1.0",
        port=8080,
        rs="6c8d9b7f5",
        cluster_ip="172.20.5.10",
        pods=[
            ("d6tqf", "1/1", "Running", "0", "55m", 0),
            ("j1lwc", "1/1", "Running", "0", "55m", 2),
            ("z9bnk", "0/1", "CreateContainerError", "0", "55m", 1),
        ],
    )
    k8s = namespace(ns, NODES_FRA, [ir, bapi], seed=285)
    sig = "Remounting filesystem read-only"
    kmsg = "EXT4-fs error (device nvme0n1p1): ext4_journal_check_start:83: Detected aborted journal; EXT4-fs (nvme0n1p1): Remounting filesystem read-only"
    k8s[f"kubectl describe nodes {bad[0]}"] = node_describe(
        bad[0],
        bad[2],
        conditions={
            "ReadonlyFilesystem": (
                "True",
                str(start),
                "FilesystemIsReadOnly",
                f"Kernel: {kmsg}",
            )
        },
        pods_rows=[
            (ns, pod_name(ir, "q8rxz")),
            (ns, pod_name(bapi, "z9bnk")),
            ("kube-system", "aws-node-7kq2d"),
        ],
        events_text=f'  Type     Reason                Age   From             Message\n  ----     ------                ----  ----             -------\n  Warning  FilesystemIsReadOnly  38m   kernel-monitor   Node condition ReadonlyFilesystem is now: True, reason: FilesystemIsReadOnly, message: "Kernel: {sig}"\n',
    )
    cce = "Error: failed to create containerd container: mkdir /var/lib/containerd/io.containerd.snapshotter.v1.overlayfs/snapshots/9121: read-only file system"
    describe_pod(
        k8s,
        ns,
        bapi,
        "z9bnk",
        NODES_FRA,
        state=waiting("CreateContainerError"),
        started=-3300,
        status="Pending",
        events_rows=[
            sched(ns, pod_name(bapi, "z9bnk"), bad[0], "55m"),
            ("Warning", "Failed", "3m (x160 over 37m)", "kubelet", cce),
        ],
    )
    k8s[f"kubectl logs {pod_name(ir, 'q8rxz')} -n {ns} --tail=1000"] = podlog(
        [
            (
                -2200 + i * 90,
                f"ERROR render failed for invoice INV-2026-{88120 + i}: OSError: [Errno 30] Read-only file system: '/tmp/wkhtmltopdf-{i}x.html'",
            )
            for i in range(24)
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "55m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/billing-api",
                "Scaled up replica set billing-api-6c8d9b7f5 to 3",
            ),
            (
                "38m",
                "Warning",
                "FilesystemIsReadOnly",
                f"Node/{bad[0]}",
                f'Node condition ReadonlyFilesystem is now: True, reason: FilesystemIsReadOnly, message: "Kernel: {sig}"',
            ),
            ("3m", "Warning", "Failed", f"Pod/{pod_name(bapi, 'z9bnk')}", cce),
        ]
    )
    irp, bp = pods_of(ir), pods_of(bapi)
    evs = [
        ev(
            "node-problem-detector",
            "warn",
            f"{bad[0]}: kernel-monitor: {kmsg}",
            at=start,
        ),
        ev(
            "invoice-renderer",
            "error",
            "render failed for invoice INV-2026-{n}: OSError: [Errno 30] Read-only file system: '/tmp/wkhtmltopdf-{n}.html'",
            **{"from": start + 20, "to": -5, "every_s": 9},
            pods=[pod_name(ir, "q8rxz")],
        ),
        ev(
            "billing-api",
            "error",
            "GET /v1/invoices/{n}/pdf 502 from invoice-renderer after {ms}ms",
            **{"from": start + 30, "to": -3, "every_s": 6},
            pods=bp[:2],
        ),
        ev(
            "billing-api",
            "info",
            "billing-api 15.1.0 started (VAT OSS report)",
            at=-3300,
            pods=bp[:2],
        ),
        ev(
            "invoice-renderer",
            "warn",
            "wkhtmltopdf: QFont::setPixelSize: Pixel size <= 0 (0)",
            **{"from": -3600, "to": -30, "every_s": 200},
            pods=irp,
        ),
        ev(
            "stripe-webhooks",
            "warn",
            "webhook invoice.paid delivered twice (idempotent skip) id evt_{n}",
            **{"from": -3600, "to": -50, "every_s": 400},
        ),
        ev(
            "invoice-renderer",
            "error",
            "S3 PutObject invoices-archive failed: RequestTimeTooSkewed",
            **{"from": -9600, "to": -9100, "every_s": 100},
            pods=irp,
        ),
    ]
    return kube_case(
        seed=285,
        start=start,
        inc=incident("Invoice PDFs fail to download", "invoices", start),
        exp=expected(
            "platform",
            [f"node/{bad[0]}", bad[0], "nvme0n1p1"],
            sig,
            f"The root volume of node {bad[0]} hit an EXT4 journal error 38 minutes ago and the kernel remounted it read-only. The node stays Ready (node-problem-detector sets ReadonlyFilesystem, nothing taints it): the invoice-renderer pod there fails every write to /tmp with Errno 30, and the billing-api pod placed on it cannot even create its container. A third of PDF renders fail and billing-api answers 502. billing-api's release, the wkhtmltopdf font warnings, Stripe's duplicate webhooks and the old clock-skew error are not the cause.",
            [
                f"node {bad[0]}: ReadonlyFilesystem True: {sig}",
                "invoice-renderer pod on that node: OSError [Errno 30] Read-only file system",
                "billing-api pod on that node: CreateContainerError read-only file system",
            ],
            f"Cordon and drain {bad[0]}, replace the instance (and its volume), and add a taint on ReadonlyFilesystem (or an NPD remedy) so such nodes are removed automatically.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "billing-api",
                bp[:2],
                [
                    "GET /v1/invoices/{n} 200 {ms}ms",
                    "GET /v1/invoices/{n}/pdf 200 {ms}ms",
                ],
                8,
            ),
            bg("invoice-renderer", irp, ["rendered INV-2026-{n} in {ms}ms"], 10),
        ],
        evs=evs,
        services=[svc("billing-api", 20, {"502": (0.001, 0.31)}, (0.3, 0.35))],
        books={
            "invoice-pdf-errors.md": runbook(
                "Invoice PDF errors",
                "PDF errors come from wkhtmltopdf fonts after an image update: roll invoice-renderer back to the previous tag.",
            )
        },
    )


# =================================================================================================
# 6. Service routing: erp-bridge is a selector-less Service with hand-written Endpoints pointing at
#    two VMs. Last night the VMs were migrated to a new subnet; DNS was updated, the Endpoints object
#    was not. Every call from warehouse-sync to the Service goes to the old addresses: no route to
#    host. The incident says "fulfilment".
# =================================================================================================


@scenario("selectorless-service-stale-endpoints")
def selectorless_service_stale_endpoints() -> dict[str, Any]:
    start = -2460
    ns = "fulfilment"
    ws = app(
        "warehouse-sync",
        image="registry.gitlab.com/parcelo/warehouse-sync:6.3.2",
        port=8080,
        rs="7b5d9c6f8",
        cluster_ip="172.20.63.14",
        pods=[
            ("c1mnx", "1/1", "Running", "0", "4d", 0),
            ("p8jhd", "1/1", "Running", "0", "4d", 2),
        ],
    )
    om = app(
        "order-manager",
        image="registry.gitlab.com/parcelo/order-manager:19.0.4",
        port=8080,
        rs="8f6c9d5b7",
        cluster_ip="172.20.63.5",
        pods=[
            ("g2wsk", "1/1", "Running", "0", "62m", 1),
            ("x5qtr", "1/1", "Running", "0", "62m", 2),
        ],
    )
    k8s = namespace(ns, NODES_IAD, [ws, om], seed=286)
    old_eps = "10.40.7.21:8080,10.40.7.22:8080"
    k8s[f"kubectl get services -n {ns} -o wide"] = (
        k8s[f"kubectl get services -n {ns} -o wide"].rstrip("\n")
        + "\nerp-bridge       ClusterIP   172.20.63.90   <none>        8080/TCP   2y     <none>\n"
    )
    have = k8s[f"kubectl get endpoints -n {ns}"].rstrip("\n")
    k8s[f"kubectl get endpoints -n {ns}"] = (
        have + f"\nerp-bridge       {old_eps}   2y\n"
    )
    k8s[f"kubectl describe services erp-bridge -n {ns}"] = (
        f"Name:                     erp-bridge\nNamespace:                {ns}\nLabels:                   team=integration\n"
        "Annotations:              owner: integration-team (VMs erp-bridge-01/02)\nSelector:                 <none>\n"
        "Type:                     ClusterIP\nIP Family Policy:         SingleStack\nIP Families:              IPv4\n"
        "IP:                       172.20.63.90\nIPs:                      172.20.63.90\nPort:                     http  8080/TCP\n"
        f"TargetPort:               8080/TCP\nEndpoints:                {old_eps}\n"
        "Session Affinity:         None\nInternal Traffic Policy:  Cluster\nEvents:                   <none>\n"
    )
    k8s[f"kubectl describe endpoints erp-bridge -n {ns}"] = (
        f"Name:         erp-bridge\nNamespace:    {ns}\nLabels:       team=integration\n"
        "Annotations:  kubectl.kubernetes.io/last-applied-configuration: {…}\nSubsets:\n"
        "  Addresses:          10.40.7.21,10.40.7.22\n  NotReadyAddresses:  <none>\n  Ports:\n    Name  Port  Protocol\n"
        "    ----  ----  --------\n    http  8080  TCP\n\nEvents:  <none>\n"
    )
    sig = "No route to host"
    err = "java.net.NoRouteToHostException: No route to host (Host unreachable) calling http://erp-bridge.fulfilment.svc.cluster.local:8080/api/deliveries"
    k8s[f"kubectl logs {pod_name(ws, 'c1mnx')} -n {ns} --tail=1000"] = podlog(
        [
            (
                -2400 + i * 100,
                f"ERROR c.p.w.ErpClient - push of delivery batch {7710 + i} failed: {err}",
            )
            for i in range(24)
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "62m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/order-manager",
                "Scaled up replica set order-manager-8f6c9d5b7 to 2",
            )
        ]
    )
    wsp, omp = pods_of(ws), pods_of(om)
    evs = [
        ev(
            "vmware",
            "info",
            "vMotion + re-IP complete: erp-bridge-01 10.40.7.21 -> 10.40.9.31, erp-bridge-02 10.40.7.22 -> 10.40.9.32 (CHG-20931 'retire VLAN 407')",
            at=start - 1500,
        ),
        ev(
            "infoblox",
            "info",
            "A record erp-bridge.corp.parcelo.net updated: 10.40.7.21,10.40.7.22 -> 10.40.9.31,10.40.9.32",
            at=start - 1400,
        ),
        ev(
            "network",
            "info",
            "VLAN 407 (10.40.7.0/24) removed from core switches cs-1, cs-2",
            at=start - 10,
        ),
        ev(
            "warehouse-sync",
            "error",
            f"push of delivery batch {{n}} failed: {err}",
            **{"from": start + 20, "to": -4, "every_s": 15},
            pods=wsp,
        ),
        ev(
            "order-manager",
            "warn",
            "order {n} not acknowledged by warehouse after 30 min; status stays 'released'",
            **{"from": start + 1800, "to": -5, "every_s": 12},
            pods=omp,
        ),
        ev(
            "order-manager",
            "info",
            "order-manager 19.0.4 started (split shipments)",
            at=-3720,
            pods=omp,
        ),
        ev(
            "carrier-api",
            "warn",
            "DHL label API slow: {ms}0ms",
            **{"from": -3600, "to": -20, "every_s": 300},
        ),
        ev(
            "warehouse-sync",
            "error",
            "push of delivery batch {n} failed: HTTP 500 from ERP: SAP RFC_ERROR_SYSTEM_FAILURE",
            **{"from": -10000, "to": -9500, "every_s": 100},
            pods=wsp,
        ),
    ]
    return kube_case(
        seed=286,
        start=start,
        inc=incident(
            "Orders not reaching the warehouse",
            "fulfilment",
            start,
            ["released orders are never picked"],
        ),
        exp=expected(
            "connect",
            ["service/erp-bridge", "erp-bridge", "endpoints/erp-bridge"],
            sig,
            "erp-bridge is a Service without a selector whose Endpoints were written by hand for two VMs (10.40.7.21/22). Last night the VMs were re-addressed to 10.40.9.31/32 and DNS was updated, but not the Endpoints object; when VLAN 407 was removed 41 minutes ago the old addresses became unreachable. Every call from warehouse-sync through the Service fails with No route to host, deliveries are not pushed to the ERP and order-manager's orders are never acknowledged. order-manager's release, DHL latency and the old SAP RFC error are not the cause.",
            [
                f"warehouse-sync: {err}",
                f"Service erp-bridge: Selector <none>, Endpoints {old_eps}",
                "vmware: erp-bridge VMs re-IPed to 10.40.9.31/32",
            ],
            "Update the erp-bridge Endpoints (or EndpointSlice) to 10.40.9.31/32, or replace the Service with an ExternalName to erp-bridge.corp.parcelo.net; replay the failed delivery batches.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "order-manager",
                omp,
                [
                    "POST /v1/orders/{n}/release 200 {ms}ms",
                    "GET /v1/orders/{n} 200 {ms}ms",
                ],
                8,
            )
        ],
        evs=evs,
        services=[
            svc("order-manager", 12, {"500": (0.002, 0.002)}, (0.05, 0.05)),
            svc("warehouse-sync", 3, {"500": (0.01, 1.0)}, (0.2, 3.0)),
        ],
        books={
            "orders-not-picked.md": runbook(
                "Orders not picked",
                "When released orders are not picked, the SAP RFC gateway is usually down: ask the ERP on-call to restart the RFC gateway, then replay from warehouse-sync.",
            )
        },
    )


# =================================================================================================
# 7. DNS: the nodes' DHCP options add the search domain ops.globex.net, which pods inherit after the
#    cluster suffixes. IT created a wildcard *.ops.globex.net -> the intranet portal. With ndots:5,
#    api.parcelhub.com is tried with every suffix first and now answers NOERROR as
#    api.parcelhub.com.ops.globex.net: label calls reach the portal and fail TLS.
#    The incident says "shipping labels".
# =================================================================================================


@scenario("search-domain-wildcard-captures-lookups")
def search_domain_wildcard_captures_lookups() -> dict[str, Any]:
    start = -1920
    ns = "shipping"
    ls = app(
        "label-service",
        image="ghcr.io/globex/label-service:4.12.0",
        port=8080,
        rs="6d9b8c7f5",
        cluster_ip="172.20.31.40",
        pods=[
            ("w2kqd", "1/1", "Running", "0", "2d", 0),
            ("m7rzp", "1/1", "Running", "0", "2d", 1),
        ],
    )
    pk = app(
        "packing-station",
        image="ghcr.io/globex/packing-station:1.30.2",
        port=3000,
        rs="5c8f7d9b6",
        cluster_ip="172.20.31.9",
        pods=[
            ("t4hvn", "1/1", "Running", "0", "70m", 2),
            ("b9xcl", "1/1", "Running", "0", "70m", 0),
        ],
    )
    k8s = namespace(ns, NODES_IAD, [ls, pk], seed=287)
    k8s["kubectl get configmaps coredns -n kube-system -o yaml"] = (
        "apiVersion: v1\ndata:\n  Corefile: |\n    .:53 {\n        errors\n        log\n        health\n        kubernetes cluster.local in-addr.arpa ip6.arpa {\n"
        "          pods insecure\n          fallthrough in-addr.arpa ip6.arpa\n        }\n        prometheus :9153\n        forward . /etc/resolv.conf\n"
        "        cache 30\n        loop\n        reload\n        loadbalance\n    }\nkind: ConfigMap\nmetadata:\n  name: coredns\n  namespace: kube-system\n"
    )
    cq = '"A IN api.parcelhub.com.ops.globex.net. udp 62 false 512" NOERROR qr,rd,ra 112 0.0031s'
    sig = "api.parcelhub.com.ops.globex.net"
    lsp = pods_of(ls)
    k8s["kubectl logs coredns-5d78c9869d-7xkq2 -n kube-system --tail=1000"] = podlog(
        [
            t
            for i in range(20)
            for t in (
                (
                    -1900 + i * 90,
                    f'[INFO] 10.61.1.{140 + i % 3}:{40000 + i * 7} - {1000 + i} "A IN api.parcelhub.com.shipping.svc.cluster.local. udp 75 false 512" NXDOMAIN qr,aa,rd 168 0.0001s',
                ),
                (
                    -1900 + i * 90,
                    f'[INFO] 10.61.1.{140 + i % 3}:{40000 + i * 7} - {2000 + i} "A IN api.parcelhub.com.svc.cluster.local. udp 66 false 512" NXDOMAIN qr,aa,rd 159 0.0001s',
                ),
                (
                    -1900 + i * 90,
                    f'[INFO] 10.61.1.{140 + i % 3}:{40000 + i * 7} - {3000 + i} "A IN api.parcelhub.com.cluster.local. udp 62 false 512" NXDOMAIN qr,aa,rd 155 0.0001s',
                ),
                (
                    -1900 + i * 90 + 1,
                    f"[INFO] 10.61.1.{140 + i % 3}:{40000 + i * 7} - {4000 + i} {cq}",
                ),
            )
        ]
    )
    tls_err = 'Post "https://api.parcelhub.com/v3/labels": tls: failed to verify certificate: x509: certificate is valid for portal.ops.globex.net, intranet.ops.globex.net, not api.parcelhub.com'
    k8s[f"kubectl logs {lsp[0]} -n {ns} --tail=1000"] = podlog(
        [
            (
                -1880 + i * 80,
                f'level=error msg="label request failed" carrier=parcelhub err="{tls_err}"',
            )
            for i in range(23)
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "70m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/packing-station",
                "Scaled up replica set packing-station-5c8f7d9b6 to 2",
            )
        ]
    )
    evs = [
        ev(
            "it-dns",
            "info",
            "Windows DNS: zone ops.globex.net: added record * A 10.8.0.15 (req RITM0048812 'catch-all for intranet short links')",
            at=start - 40,
        ),
        ev(
            "coredns",
            "info",
            f"[INFO] 10.61.1.141:5{{n}} - {{n}} {cq}",
            **{"from": start, "to": -5, "every_s": 20},
        ),
        ev(
            "label-service",
            "error",
            f'label request failed carrier=parcelhub err="{tls_err}"',
            **{"from": start + 10, "to": -3, "every_s": 7},
            pods=lsp,
        ),
        ev(
            "packing-station",
            "error",
            "print job {n}: no label returned (label-service 502), parcel set aside",
            **{"from": start + 30, "to": -2, "every_s": 9},
            pods=pods_of(pk),
        ),
        ev(
            "packing-station",
            "info",
            "packing-station 1.30.2 started (scale integration)",
            at=-4200,
            pods=pods_of(pk),
        ),
        ev(
            "label-service",
            "warn",
            "carrier=royalmail label latency {ms}0ms",
            **{"from": -3600, "to": -10, "every_s": 300},
            pods=lsp,
        ),
        ev("status-page", "info", "ParcelHub status: all systems operational", at=-900),
        ev(
            "label-service",
            "error",
            'label request failed carrier=parcelhub err="HTTP 429 Too Many Requests"',
            **{"from": -9000, "to": -8600, "every_s": 60},
            pods=lsp,
        ),
    ]
    return kube_case(
        seed=287,
        start=start,
        inc=incident(
            "Labels not printing at packing stations",
            "shipping labels",
            start,
            ["parcels piling up without labels"],
        ),
        exp=expected(
            "dns",
            [
                "*.ops.globex.net",
                "ops.globex.net",
                "wildcard record *.ops.globex.net",
                "10.8.0.15",
            ],
            sig,
            "Pods inherit the node's search domain ops.globex.net after the cluster suffixes, and with ndots:5 the name api.parcelhub.com is tried with every suffix before as-is. 32 minutes ago IT added a wildcard record * A 10.8.0.15 to ops.globex.net: the lookup of api.parcelhub.com.ops.globex.net now answers NOERROR, so label-service connects to the intranet portal and TLS fails (certificate for portal.ops.globex.net). The TLS error is a consequence; ParcelHub is up, packing-station's release, Royal Mail latency and the old 429s are not the cause.",
            [
                f"coredns: {cq}",
                f"label-service: {tls_err}",
                "it-dns: wildcard * A 10.8.0.15 added to ops.globex.net",
            ],
            "Remove the wildcard from ops.globex.net (or drop ops.globex.net from the nodes' search list); short term, call api.parcelhub.com. with a trailing dot or set ndots:2 on label-service.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "packing-station",
                pods_of(pk),
                ["print job {n}: label printed in {ms}ms"],
                8,
            )
        ],
        evs=evs,
        services=[svc("label-service", 15, {"502": (0.003, 0.62)}, (0.3, 0.08))],
        books={
            "labels-failing.md": runbook(
                "Carrier labels failing",
                "If a carrier's label API fails, switch that carrier's parcels to the backup carrier in packing-station's admin and open a ticket with the carrier.",
            )
        },
    )


# =================================================================================================
# 8. TLS: a DestinationRule `ledger-api` with trafficPolicy.tls.mode SIMPLE (copied from an egress
#    template) was applied to the in-mesh ledger-api. Callers' sidecars now originate plain TLS to a
#    sidecar expecting Istio mTLS; the handshake fails (WRONG_VERSION_NUMBER). wallet-api's top-ups
#    fail with 503 UF. The incident says "wallet".
# =================================================================================================


@scenario("destinationrule-simple-tls-in-mesh")
def destinationrule_simple_tls_in_mesh() -> dict[str, Any]:
    start = -1140
    ns = "ledger"
    la = app(
        "ledger-api",
        image="eu.gcr.io/kitepay/ledger-api:9.8.1",
        port=8080,
        rs="7f5c9b8d6",
        cluster_ip="172.20.44.21",
        pods=[
            ("n3vqk", "2/2", "Running", "0", "6d", 0),
            ("h8dtw", "2/2", "Running", "0", "6d", 1),
            ("c5jmx", "2/2", "Running", "0", "6d", 2),
        ],
    )
    wa = app(
        "wallet-api",
        image="eu.gcr.io/kitepay/wallet-api:5.2.0",
        port=8080,
        rs="9b6d8f7c5",
        cluster_ip="172.20.44.50",
        pods=[
            ("s1rgk", "2/2", "Running", "0", "33m", 0),
            ("y7pfz", "2/2", "Running", "0", "33m", 1),
        ],
    )
    k8s = namespace(ns, NODES_DUB, [la, wa], seed=288)
    tls_err = "upstream connect error or disconnect/reset before headers. retried and the latest reset reason: remote connection failure, transport failure reason: TLS_error:|268435703:SSL routines:OPENSSL_internal:WRONG_VERSION_NUMBER:TLS_error_end"
    sig = "WRONG_VERSION_NUMBER"
    wap = pods_of(wa)
    k8s[f"kubectl logs {wap[0]} -n {ns} -c istio-proxy --tail=1000"] = podlog(
        [
            (
                -1100 + i * 45,
                f'"POST /v1/entries HTTP/1.1" 503 UF,URX upstream_reset_before_response_started{{remote_connection_failure|TLS_error:|268435703:SSL_routines:OPENSSL_internal:WRONG_VERSION_NUMBER:TLS_error_end}} - "-" 0 190 41 - "-" "wallet-api/5.2.0" "{4000 + i}" "ledger-api.ledger.svc.cluster.local:8080" "10.88.2.{30 + i % 3}:8080" outbound|8080||ledger-api.ledger.svc.cluster.local',
            )
            for i in range(24)
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "33m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/wallet-api",
                "Scaled up replica set wallet-api-9b6d8f7c5 to 2",
            )
        ]
    )
    evs = [
        ev(
            "gitops",
            "info",
            "argocd: app ledger-mesh synced rev 3c7a0e1: DestinationRule ledger/ledger-api created (trafficPolicy.connectionPool.http.maxRequestsPerConnection: 100, trafficPolicy.tls.mode: SIMPLE) PR plat#512 'connection pool limits for ledger'",
            at=start - 25,
        ),
        ev(
            "istiod",
            "info",
            "Push debounce stable: 3 configs updated (DestinationRule ledger/ledger-api), full push to 212 proxies",
            at=start - 20,
        ),
        ev(
            "wallet-api",
            "error",
            f"POST http://ledger-api.ledger:8080/v1/entries failed: 503 {tls_err}",
            **{"from": start, "to": -2, "every_s": 4},
            pods=wap,
        ),
        ev(
            "wallet-api",
            "error",
            "top-up {n} failed: ledger unavailable, card refund issued",
            **{"from": start + 5, "to": -3, "every_s": 6},
            pods=wap,
        ),
        ev(
            "wallet-api",
            "info",
            "wallet-api 5.2.0 ready (Apple Pay top-ups)",
            at=-1980,
            pods=wap,
        ),
        ev(
            "ledger-api",
            "info",
            "GET /v1/balances 200 {ms}ms",
            **{"from": -3600, "to": -2, "every_s": 8},
            pods=pods_of(la),
        ),
        ev(
            "kyc-service",
            "warn",
            "Onfido webhook signature mismatch for applicant {n}",
            **{"from": -3600, "to": -60, "every_s": 400},
        ),
        ev(
            "ledger-api",
            "error",
            "could not serialize access due to concurrent update (entry {n}), retrying",
            **{"from": -8600, "to": -8000, "every_s": 90},
            pods=pods_of(la),
        ),
    ]
    return kube_case(
        seed=288,
        start=start,
        inc=incident("Wallet top-ups failing", "wallet", start),
        exp=expected(
            "tls",
            [
                "destinationrule/ledger-api",
                "ledger-api DestinationRule",
                "DestinationRule ledger/ledger-api",
            ],
            sig,
            "19 minutes ago a DestinationRule for ledger-api was applied to add connection-pool limits; copied from an egress template, it also sets trafficPolicy.tls.mode SIMPLE. Inside the mesh the callers' sidecars now originate plain TLS instead of Istio mutual TLS to ledger-api's sidecar, and the handshake fails with WRONG_VERSION_NUMBER: every write from wallet-api gets 503 UF and the top-up is refunded. ledger-api itself is healthy (reads from clients that go direct keep answering 200). wallet-api's release, Onfido webhook noise and the old serialization retries are not the cause.",
            [
                f"wallet-api istio-proxy: 503 UF {sig}",
                "argocd: DestinationRule ledger/ledger-api with tls.mode SIMPLE created 19 min ago",
                "ledger-api pods Ready, 0 restarts",
            ],
            "Set tls.mode ISTIO_MUTUAL in the DestinationRule (or remove the tls block) and let istiod push; replay the refunded top-ups if the product wants.",
        ),
        k8s=k8s,
        bgs=[bg("wallet-api", wap, ["GET /v1/wallet 200 {ms}ms"], 8)],
        evs=evs,
        services=[
            svc("wallet-api", 22, {"503": (0.001, 0.45)}, (0.06, 0.06)),
            svc("ledger-api", 40, {"500": (0.002, 0.002)}, (0.02, 0.02), rps_after=28),
        ],
        books={
            "wallet-topups.md": runbook(
                "Wallet top-up failures",
                "Top-up failures follow card acquirer outages: check the acquirer status page and switch wallet-api to the secondary acquirer.",
            )
        },
    )


# =================================================================================================
# 9. Third-party rate limiting: the network team consolidated egress of three VPCs behind one NAT
#    gateway (one public IP). The address-lookup vendor limits per source IP (600 req/min); checkout,
#    CRM imports and the marketing enricher now share that budget. The incident says "checkout".
# =================================================================================================


@scenario("egress-nat-consolidation-vendor-ip-limit")
def egress_nat_consolidation_vendor_ip_limit() -> dict[str, Any]:
    start = -1620
    co = ["checkout-api-6d8f9c7b5-2kqlm", "checkout-api-6d8f9c7b5-9vxtr"]
    sig = "X-RateLimit-Scope: ip"
    evs = [
        ev(
            "netops",
            "info",
            "terraform apply egress-hub: vpc-crm and vpc-marketing default routes -> tgw-0b7e1c93d5a2f4e61 -> nat-0f3c9a1e7d52b6a48 (EIP 52.29.14.201); nat-crm and nat-mkt deleted (CHG-7714 'egress hub, save 2 NAT gateways')",
            at=start - 120,
        ),
        ev(
            "checkout-api",
            "warn",
            f"address lookup failed: POST https://api.addressly.io/v2/verify -> 429 Too Many Requests (X-RateLimit-Limit: 600, X-RateLimit-Remaining: 0, {sig}, Retry-After: 41)",
            **{"from": start, "to": -3, "every_s": 5},
            pods=co,
        ),
        ev(
            "checkout-api",
            "error",
            "POST /api/checkout/address 422 address could not be verified (session {n})",
            **{"from": start + 5, "to": -2, "every_s": 6},
            pods=co,
        ),
        ev(
            "crm-import",
            "info",
            "nightly-delta: verified {n}00 addresses via addressly",
            **{"from": start - 60, "to": -30, "every_s": 240},
        ),
        ev(
            "lead-enricher",
            "warn",
            "addressly 429, backing off 30s",
            **{"from": start + 60, "to": -20, "every_s": 180},
        ),
        ev(
            "checkout-web",
            "error",
            "Uncaught TypeError: Cannot read properties of undefined (reading 'postcode') at AddressForm.tsx:118",
            **{"from": -3600, "to": -10, "every_s": 240},
        ),
        ev(
            "checkout-api",
            "info",
            "checkout-api 31.4.0 ready (gift wrapping)",
            at=-2900,
            pods=co,
        ),
        ev(
            "checkout-api",
            "error",
            "address lookup failed: POST https://api.addressly.io/v2/verify -> 503 Service Unavailable",
            **{"from": -9300, "to": -8900, "every_s": 90},
            pods=co,
        ),
    ]
    spec = simple(
        289,
        start,
        incident(
            "Customers can't get past the address step",
            "checkout",
            start,
            ["address not recognised errors"],
        ),
        expected(
            "http",
            [
                "api.addressly.io",
                "addressly",
                "nat-0f3c9a1e7d52b6a48",
                "52.29.14.201",
                "egress-hub",
            ],
            sig,
            "The address vendor Addressly limits requests per source IP (600 per minute). 29 minutes ago the network team moved the CRM and marketing VPCs' egress behind the same NAT gateway as production (EIP 52.29.14.201). The CRM import and the lead enricher now spend the same per-IP budget as checkout; the vendor answers 429 (X-RateLimit-Scope: ip) and checkout cannot verify addresses (422). The front-end TypeError, checkout-api's release and the old 503 are not the cause.",
            [
                f"checkout-api: 429 from api.addressly.io, {sig}",
                "netops: three VPCs behind nat-0f3c9a1e7d52b6a48 since 29 min",
                "netcheck addressly: http 429",
            ],
            "Give checkout its own egress IP again (or ask Addressly to raise the limit / key-based limits); throttle crm-import and lead-enricher meanwhile.",
        ),
        [
            bg(
                "checkout-api",
                co,
                [
                    "POST /api/checkout/address 200 {ms}ms",
                    "POST /api/checkout/pay 200 {ms}ms",
                ],
                8,
            )
        ],
        evs,
        [svc("checkout-api", 35, {"422": (0.01, 0.36)}, (0.15, 0.12))],
        [],
        {
            "checkout-address-errors.md": runbook(
                "Address step errors",
                "Address-step errors usually come from a broken front-end bundle: roll back checkout-web to the previous release and purge the CDN.",
            )
        },
    )
    spec["targets"] = [
        {
            "name": "addressly",
            "url": "https://api.addressly.io/v2/verify",
            "fault": {
                "kind": "http_status",
                "status": 429,
                "body": '{"error":"rate_limited","scope":"ip","limit":600}',
                "headers": {
                    "X-RateLimit-Limit": "600",
                    "X-RateLimit-Remaining": "0",
                    "X-RateLimit-Scope": "ip",
                    "Retry-After": "41",
                },
            },
        },
        {
            "name": "checkout-api",
            "url": "https://checkout-api.shop.internal/healthz",
            "fault": {"kind": "ok"},
        },
    ]
    spec["expected"]["root_cause_probe"] = "addressly"
    spec["expected"]["netcheck"] = {
        "addressly": {"failed_layer": "http", "reason": "http_429"},
        "checkout-api": {"failed_layer": "none", "reason": None},
    }
    return spec


# =================================================================================================
# 10. Network delay: a Chaos Mesh NetworkChaos from this afternoon's game day (250 ms delay on the
#     ledger pods) was created without a duration; the game day "ended" in chat but the experiment
#     was never deleted. No errors at first, every call to ledger 250 ms slower; payments p99 and
#     then gateway timeouts. The incident says "payments".
# =================================================================================================


@scenario("chaos-delay-left-after-gameday")
def chaos_delay_left_after_gameday() -> dict[str, Any]:
    start = -3300
    pay = [
        "payments-api-7b9c5d8f6-4hnqx",
        "payments-api-7b9c5d8f6-k8wzt",
        "payments-api-7b9c5d8f6-r2mvc",
    ]
    led = ["ledger-5f8d7c9b6-bq4lx", "ledger-5f8d7c9b6-t7npj"]
    sig = "delay latency=250ms"
    evs = [
        ev(
            "chaos-controller-manager",
            "info",
            f"NetworkChaos payments/gameday-ledger-latency: injected {sig} jitter=25ms correlation=50 direction=to, selector app=ledger (2 pods), duration=<unset>",
            at=start,
        ),
        ev(
            "chat-ops",
            "info",
            "#gameday: 'latency drill done, thanks all, closing the game day' (by @r.sato)",
            at=start + 1500,
        ),
        ev(
            "ledger",
            "info",
            "POST /v1/postings 201 {ms}ms",
            **{"from": -3600, "to": -2, "every_s": 8},
            pods=led,
        ),
        ev(
            "payments-api",
            "warn",
            "slow call: ledger POST /v1/postings took {n}12ms (budget 400ms)",
            **{"from": start + 5, "to": -3, "every_s": 6},
            pods=pay,
        ),
        ev(
            "payments-api",
            "error",
            "GET /v2/payments/{n} 504 upstream request timeout (api-gateway 3s)",
            **{"from": -1500, "to": -2, "every_s": 9},
            pods=pay,
        ),
        ev(
            "api-gateway",
            "error",
            "upstream timeout route=payments cluster=payments-api after 3000ms",
            **{"from": -1500, "to": -2, "every_s": 7},
        ),
        ev(
            "payments-api",
            "info",
            "payments-api 12.0.3 ready (SEPA mandate reminders)",
            at=-4000,
            pods=pay,
        ),
        ev(
            "fraud-gw",
            "warn",
            "Sift score call slow: {ms}0ms",
            **{"from": -3600, "to": -30, "every_s": 350},
        ),
        ev(
            "ledger",
            "error",
            "pq: canceling statement due to statement timeout (reconciliation batch {n})",
            **{"from": -10200, "to": -9700, "every_s": 100},
            pods=led,
        ),
    ]
    return simple(
        290,
        start,
        incident("Payments slow since this afternoon", "payments", start),
        expected(
            "connect",
            [
                "networkchaos/gameday-ledger-latency",
                "gameday-ledger-latency",
                "chaos-mesh",
                "ledger",
            ],
            sig,
            "55 minutes ago Chaos Mesh injected a 250 ms delay (jitter 25 ms) on the ledger pods for the latency game day, with no duration. The game day was declared over in chat 30 minutes later but the NetworkChaos was never deleted: every packet to ledger still waits 250 ms. ledger itself answers as fast as before; payments-api, which makes several sequential ledger calls, is slow, and under the evening load the gateway's 3 s timeout cuts the slowest requests (504). payments-api's release, Sift latency and the old reconciliation statement timeout are not the cause.",
            [
                f"chaos-controller-manager: NetworkChaos gameday-ledger-latency {sig}, duration unset",
                "payments-api: ledger calls take 250 ms more since 55 min; ledger's own timings unchanged",
                "chat-ops: game day closed, no deletion logged",
            ],
            "Delete the NetworkChaos (`kubectl delete networkchaos gameday-ledger-latency -n payments`); require a duration on chaos experiments (admission policy).",
        ),
        [
            bg(
                "payments-api",
                pay,
                ["POST /v2/payments 201 {ms}ms", "GET /v2/payments/{n} 200 {ms}ms"],
                8,
            )
        ],
        evs,
        [
            svc("payments-api", 40, {"504": (0.0005, 0.03)}, (0.09, 0.85)),
            svc("ledger", 80, {"500": (0.001, 0.001)}, (0.012, 0.012)),
        ],
        [],
        {
            "payments-latency.md": runbook(
                "Payments latency",
                "Payments latency is usually database load: check ledger's Postgres for long-running queries and cancel the reconciliation batch if it runs.",
            )
        },
        ramps=[
            ramp(
                "tcp_rtt_seconds",
                {"service": "payments-api", "peer": "ledger"},
                0.0008,
                0.252,
                start,
                start + 60,
            )
        ],
    )


# =================================================================================================
# 11. Config change: a "hardening" PR raised min.insync.replicas of topic orders.events from 2 to 3
#     (replication factor 3). Harmless while all three brokers are in sync; this evening's rolling
#     patch of the brokers (the trigger) leaves the ISR at 2 and every acks=all write fails.
#     The incident says "order placement".
# =================================================================================================


@scenario("min-insync-replicas-equals-replication")
def min_insync_replicas_equals_replication() -> dict[str, Any]:
    start = -1380
    osvc = [
        "order-service-5c9d7b8f6-6xkpm",
        "order-service-5c9d7b8f6-qb2wn",
        "order-service-5c9d7b8f6-z4rtl",
    ]
    sig = "insufficient to satisfy the min.isr requirement of 3"
    evs = [
        ev(
            "kafka-ops",
            "info",
            "julie-ops apply topics.yaml: topic orders.events config min.insync.replicas 2 -> 3 (replication.factor 3) PR streaming#66 'durability hardening'",
            at=-9600,
        ),
        ev(
            "kafka-ops",
            "info",
            "rolling restart kafka-2 for 3.7.2 patch (controlled shutdown, 1/3)",
            at=start - 20,
        ),
        ev(
            "kafka",
            "error",
            f"[ReplicaManager broker=0] Error processing append operation on partition orders.events-{{n}} (kafka.server.ReplicaManager) org.apache.kafka.common.errors.NotEnoughReplicasException: The size of the current ISR Set(0, 1) is {sig} for partition orders.events-4",
            **{"from": start, "to": -4, "every_s": 10},
        ),
        ev(
            "kafka",
            "info",
            "[Partition orders.events-4 broker=0] Shrinking ISR from 0,1,2 to 0,1. Leader: (highWatermark: 8812210, endOffset: 8812214). Out of sync replicas: (brokerId: 2, endOffset: 8812201)",
            at=start - 5,
        ),
        ev(
            "kafka",
            "warn",
            "[KafkaServer id=2] kafka-2 log recovery: 1834 segments, 41% done",
            **{"from": start + 60, "to": -60, "every_s": 120},
        ),
        ev(
            "order-service",
            "error",
            "Failed to publish OrderPlaced for order {n}: org.apache.kafka.common.errors.NotEnoughReplicasException: Messages are rejected since there are fewer in-sync replicas than required.",
            **{"from": start + 2, "to": -2, "every_s": 4},
            pods=osvc,
        ),
        ev(
            "order-service",
            "error",
            "POST /v1/orders 500 transaction rolled back (outbox publish failed)",
            **{"from": start + 3, "to": -2, "every_s": 4},
            pods=osvc,
        ),
        ev(
            "order-service",
            "info",
            "order-service 44.1.0 ready (promo code stacking)",
            at=-3000,
            pods=osvc,
        ),
        ev(
            "inventory",
            "warn",
            "reservation {n} held > 10 min",
            **{"from": -3600, "to": -20, "every_s": 300},
        ),
        ev(
            "order-service",
            "error",
            "Failed to publish OrderPlaced for order {n}: org.apache.kafka.common.errors.TimeoutException: Expiring 3 record(s) for orders.events-1: 120003 ms has passed since batch creation",
            **{"from": -9800, "to": -9400, "every_s": 80},
            pods=osvc,
        ),
    ]
    return simple(
        291,
        start,
        incident(
            "Orders failing to place",
            "order placement",
            start,
            ["customers see 'something went wrong' on place order"],
        ),
        expected(
            "application",
            ["orders.events", "topic orders.events", "min.insync.replicas", "kafka"],
            sig,
            "Earlier today a topic-config PR raised min.insync.replicas of orders.events from 2 to 3 with a replication factor of 3, which leaves no room for a single broker being down. 23 minutes ago the rolling patch restarted kafka-2, which is still recovering its logs: the ISR of every partition is 2, below the new minimum, and the brokers reject every acks=all write (NotEnoughReplicasException). order-service cannot publish OrderPlaced and rolls the order back (500). The restart is the trigger; order-service's release, inventory holds and the old producer timeout are not the cause.",
            [
                f"kafka: ISR Set(0, 1) is {sig}",
                "kafka-ops: orders.events min.insync.replicas 2 -> 3 (RF 3)",
                "order-service: NotEnoughReplicasException on every publish since kafka-2 restarted",
            ],
            "Set min.insync.replicas of orders.events back to 2 (kafka-configs --alter), then finish the broker patch; keep min.insync.replicas below the replication factor.",
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
        [svc("order-service", 30, {"500": (0.002, 0.93)}, (0.12, 0.05))],
        [],
        {
            "kafka-broker-restart.md": runbook(
                "Kafka broker restart",
                "Producer errors during a rolling restart are expected and transient: wait for the broker to rejoin; if it takes more than 10 minutes, restart it again.",
            )
        },
    )


# =================================================================================================
# 12. Quiet root cause, louder victims: debug logging turned on for checkout six days ago ships
#     ~40 GB a day into the shared Elasticsearch cluster (app-debug-* indices, no ILM). Data node
#     es-data-2 passes the flood-stage watermark; every index with a shard there gets a
#     read-only-allow-delete block. The catalogue indexer and the order search fail loudly.
#     The incident says "catalog".
# =================================================================================================


@scenario("debug-index-flood-stage-readonly")
def debug_index_flood_stage_readonly() -> dict[str, Any]:
    start = -2040
    idx = ["catalog-indexer-6c7b9d8f5-jr2wx"]
    sig = "flood stage disk watermark [95%] exceeded"
    block = "cluster_block_exception: index [products-v12] blocked by: [TOO_MANY_REQUESTS/12/disk usage exceeded flood-stage watermark, index has read-only-allow-delete block]"
    evs = [
        ev(
            "config-server",
            "info",
            "config audit: active overrides in prod: checkout-service logging.level.root=DEBUG (since 2026-11-30 by j.doe, 'investigate 3DS callbacks')",
            at=-9000,
        ),
        ev(
            "elasticsearch",
            "warn",
            "[es-data-2] high disk watermark [90%] exceeded on [Vt4sKj8pQ2m1][es-data-2][/usr/share/elasticsearch/data] free: 41.2gb[9.8%], shards will be relocated away from this node",
            at=start - 2400,
        ),
        ev(
            "elasticsearch",
            "warn",
            f"[es-data-2] {sig} on [Vt4sKj8pQ2m1][es-data-2][/usr/share/elasticsearch/data] free: 20.4gb[4.9%], all indices on this node will be marked read-only",
            **{"from": start, "to": -10, "every_s": 60},
        ),
        ev(
            "elasticsearch",
            "info",
            "[es-master-0] [app-debug-2026.12.06] update_mapping [_doc]; index size 38.7gb, 0 replicas",
            **{"from": -3600, "to": -60, "every_s": 600},
        ),
        ev(
            "catalog-indexer",
            "error",
            f"bulk request failed for 500 docs: {block}",
            **{"from": start + 10, "to": -3, "every_s": 6},
            pods=idx,
        ),
        ev(
            "order-search",
            "error",
            "index order-history-2026.12 write rejected: cluster_block_exception [TOO_MANY_REQUESTS/12/disk usage exceeded flood-stage watermark, index has read-only-allow-delete block]",
            **{"from": start + 20, "to": -4, "every_s": 8},
        ),
        ev(
            "storefront",
            "warn",
            "product {n}: price shown differs from cart price (stale search document)",
            **{"from": start + 300, "to": -5, "every_s": 15},
        ),
        ev(
            "catalog-api",
            "info",
            "catalog-api 18.2.0 ready (bulk price import)",
            at=-2700,
        ),
        ev(
            "kibana",
            "warn",
            "Task Manager health: 'capacity estimation' warning",
            **{"from": -3600, "to": -100, "every_s": 600},
        ),
        ev(
            "catalog-indexer",
            "error",
            "bulk request failed: es_rejected_execution_exception: rejected execution (queue capacity 200) on write",
            **{"from": -10500, "to": -10000, "every_s": 100},
            pods=idx,
        ),
    ]
    return simple(
        292,
        start,
        incident("Price changes not showing on the website", "catalog", start),
        expected(
            "application",
            [
                "es-data-2",
                "elasticsearch",
                "app-debug-*",
                "app-debug-2026.12.06",
                "checkout-service debug logging",
            ],
            sig,
            "Six days ago checkout-service's log level was set to DEBUG in production through the config server. Its logs go to the shared Elasticsearch cluster into app-debug-* indices with no ILM policy (~40 GB a day, 0 replicas); their shards filled data node es-data-2, which passed the high watermark and 34 minutes ago the 95 % flood stage: Elasticsearch puts a read-only-allow-delete block on every index with a shard there. The catalogue indexer and order-search now fail every write, so new prices never reach the site. catalog-api's release (the bulk price import), Kibana's health warning and the old write-queue rejection are not the cause.",
            [
                f"elasticsearch: es-data-2 {sig}",
                f"catalog-indexer: {block}",
                "config-server: checkout-service DEBUG since 6 days; app-debug index 38.7 GB",
            ],
            'Delete (or snapshot and delete) the old app-debug-* indices, set checkout-service back to INFO, add ILM to app-debug-*, then clear the block (`PUT _all/_settings {"index.blocks.read_only_allow_delete": null}`) and re-run the catalogue indexing.',
        ),
        [bg("catalog-indexer", idx, ["indexed 500 product docs in {ms}ms"], 12)],
        evs,
        [svc("catalog-indexer", 5, {"429": (0.0, 0.98)}, (0.3, 0.02))],
        [],
        {
            "stale-prices.md": runbook(
                "Stale prices on site",
                "Stale prices come from the CDN: purge /products/* in the CDN console and wait 5 minutes.",
            )
        },
        ramps=[
            ramp(
                "elasticsearch_filesystem_data_used_percent",
                {"node": "es-data-2"},
                84.0,
                95.1,
                -7200,
                start,
            )
        ],
    )


# =================================================================================================
# 13. Shared back end: a new thumbnail backfill job re-reads every original in s3://pixo-media-prod
#     under one prefix (originals/) at several thousand GET/s. S3 answers 503 SlowDown for that
#     prefix to every client, the mobile upload path included. The incident says "mobile app".
# =================================================================================================


@scenario("s3-prefix-slowdown-backfill")
def s3_prefix_slowdown_backfill() -> dict[str, Any]:
    start = -1860
    up = ["media-upload-8c6f7d9b5-p2xkn", "media-upload-8c6f7d9b5-w7lqd"]
    bf = ["thumb-backfill-29371840-6t8zq"]
    sig = "Error Code: SlowDown"
    slow = f"com.amazonaws.services.s3.model.AmazonS3Exception: Please reduce your request rate. (Service: Amazon S3; Status Code: 503; {sig}; Request ID: 7Q2K{{n}}X; S3 Extended Request ID: …)"
    evs = [
        ev(
            "thumb-backfill",
            "info",
            "starting backfill: bucket=pixo-media-prod prefix=originals/ objects=41,882,114 concurrency=512 (ticket MEDIA-902 'webp thumbnails for all')",
            at=start - 60,
            pods=bf,
        ),
        ev(
            "thumb-backfill",
            "info",
            "progress {n}000 objects, 3{n}00 GET/s",
            **{"from": start, "to": -30, "every_s": 60},
            pods=bf,
        ),
        ev(
            "thumb-backfill",
            "warn",
            "GET originals/{n}.jpg throttled (SlowDown), retry with backoff",
            **{"from": start + 30, "to": -20, "every_s": 20},
            pods=bf,
        ),
        ev(
            "media-upload",
            "error",
            f"PUT originals/u{{n}}.jpg failed after 3 retries: {slow}",
            **{"from": start + 40, "to": -3, "every_s": 5},
            pods=up,
        ),
        ev(
            "media-upload",
            "error",
            "POST /v1/photos 503 {ms}ms",
            **{"from": start + 40, "to": -3, "every_s": 5},
            pods=up,
        ),
        ev(
            "mobile-bff",
            "error",
            "upload photo failed for user {n}: media-upload 503",
            **{"from": start + 45, "to": -2, "every_s": 4},
        ),
        ev("mobile-bff", "info", "mobile-bff 9.12.0 ready (new onboarding)", at=-3300),
        ev(
            "push-service",
            "warn",
            "APNs feedback: {n} invalid device tokens",
            **{"from": -3600, "to": -40, "every_s": 500},
        ),
        ev(
            "media-upload",
            "error",
            "PUT originals/u{n}.jpg failed: RequestTimeTooSkewed",
            **{"from": -9900, "to": -9500, "every_s": 90},
            pods=up,
        ),
    ]
    return simple(
        293,
        start,
        incident(
            "Photo uploads failing in the app",
            "mobile app",
            start,
            ["uploads spin then say 'try again later'"],
        ),
        expected(
            "application",
            [
                "thumb-backfill",
                "cronjob/thumb-backfill",
                "pixo-media-prod",
                "s3://pixo-media-prod/originals/",
            ],
            sig,
            "31 minutes ago the new thumb-backfill job started re-reading 42 million originals under the single prefix originals/ of s3://pixo-media-prod with 512 parallel workers. S3 scales request rates per prefix; at several thousand GET/s it throttles the prefix and answers 503 SlowDown to every client, including media-upload's PUTs of new photos. The mobile BFF reports the uploads as failed. mobile-bff's release, APNs token noise and the old clock-skew error are not the cause.",
            [
                f"media-upload: PUT originals/… {sig} (Status Code 503)",
                "thumb-backfill: 512 workers on prefix originals/ since 31 min",
                "thumb-backfill itself throttled (SlowDown)",
            ],
            "Stop or throttle thumb-backfill (concurrency 32, read from a spread of prefixes or from an S3 Inventory/Batch Operations job) and let the prefix recover; separate upload and backfill prefixes.",
        ),
        [bg("media-upload", up, ["POST /v1/photos 201 {ms}ms"], 8)],
        evs,
        [svc("media-upload", 20, {"503": (0.001, 0.58)}, (0.4, 1.8))],
        [],
        {
            "upload-failures.md": runbook(
                "Upload failures",
                "Upload failures right after a mobile release come from the new client: ask mobile to turn off the `new_uploader` remote flag.",
            )
        },
    )


# =================================================================================================
# 14. Performance: the storefront's server-side renderer polls its feature flags every 15 s. The
#     growth team added a toggle with a userIds strategy holding 180 000 ids; the payload went from
#     300 KB to 41 MB, and each poll's JSON.parse blocks the Node.js event loop for ~1.5 s.
#     Latency rises in waves, no errors at first. The incident says "website".
# =================================================================================================


@scenario("flag-payload-blocks-event-loop")
def flag_payload_blocks_event_loop() -> dict[str, Any]:
    start = -2520
    ssr = [
        "storefront-ssr-6f9d8c7b5-2pkzm",
        "storefront-ssr-6f9d8c7b5-8hxqw",
        "storefront-ssr-6f9d8c7b5-mr4vt",
    ]
    sig = "41.3 MB"
    evs = [
        ev(
            "unleash",
            "info",
            "toggle 'upsell-bundle-test' updated by growth-team: strategy userWithId, 180000 userIds (CSV import)",
            at=start - 30,
        ),
        ev(
            "storefront-ssr",
            "info",
            f"[unleash] fetched /api/client/features: 212 toggles, {sig}",
            **{"from": start, "to": -5, "every_s": 15},
            pods=ssr,
        ),
        ev(
            "storefront-ssr",
            "warn",
            "event loop blocked for {n}4ms (threshold 200ms)",
            **{"from": start + 5, "to": -5, "every_s": 15},
            pods=ssr,
        ),
        ev(
            "storefront-ssr",
            "info",
            "[unleash] fetched /api/client/features: 211 toggles, 0.3 MB",
            **{"from": -3600, "to": start - 15, "every_s": 60},
            pods=ssr,
        ),
        ev(
            "storefront-ssr",
            "info",
            "GET /p/{n} 200 {ms}0ms",
            **{"from": start, "to": -2, "every_s": 8},
            pods=ssr,
        ),
        ev(
            "alb",
            "warn",
            "target storefront-ssr 10.0.{n}.12:3000 health check timed out (2s)",
            **{"from": start + 600, "to": -30, "every_s": 120},
        ),
        ev("search-api", "info", "search-api 6.0.0 ready (semantic ranking)", at=-3200),
        ev(
            "search-api",
            "warn",
            "vector store query {ms}ms",
            **{"from": -3600, "to": -10, "every_s": 120},
        ),
        ev(
            "storefront-ssr",
            "error",
            "FATAL ERROR: Ineffective mark-compacts near heap limit Allocation failed - JavaScript heap out of memory",
            at=-9200,
            pods=ssr[:1],
        ),
    ]
    return simple(
        294,
        start,
        incident("Website slow", "website", start),
        expected(
            "application",
            ["upsell-bundle-test", "unleash", "storefront-ssr", "feature flag payload"],
            sig,
            "42 minutes ago the growth team gave the Unleash toggle upsell-bundle-test a userWithId strategy with 180 000 user ids. Every storefront-ssr pod polls all toggles every 15 s; the payload went from 0.3 MB to 41.3 MB and its JSON.parse blocks the Node.js event loop for one to two seconds per poll, stalling every request the pod is serving: page latency rises in waves and the load balancer's health checks time out now and then. search-api's release and vector-store latency and the old heap OOM are not the cause.",
            [
                f"storefront-ssr: [unleash] fetched features: 212 toggles, {sig} (0.3 MB before)",
                "storefront-ssr: event loop blocked for ~1.5 s every 15 s",
                "unleash: upsell-bundle-test updated with 180000 userIds",
            ],
            "Replace the id list by a segment / percentage rollout (or move the targeting to the server-side Unleash proxy), and parse flags off the request path; raise the poll interval meanwhile.",
        ),
        [bg("storefront-ssr", ssr, ["GET / 200 {ms}ms", "GET /c/{n} 200 {ms}ms"], 8)],
        evs,
        [svc("storefront-ssr", 90, {"502": (0.0005, 0.006)}, (0.18, 0.95))],
        [],
        {
            "website-slow.md": runbook(
                "Website slow",
                "A slow website is usually search: check search-api's p99 and fail over to the keyword index (`SEARCH_MODE=keyword`).",
            )
        },
        ramps=[
            ramp(
                "nodejs_eventloop_lag_p99_seconds",
                {"service": "storefront-ssr"},
                0.012,
                1.6,
                start,
                start + 30,
            )
        ],
    )


# =================================================================================================
# 15. DNS: the freight partner's DNS signer stopped re-signing; the RRSIGs of trans-kargo.de expired
#     at midnight UTC+1 plus TTLs. Our validating resolvers (Unbound) now answer SERVFAIL for
#     api.trans-kargo.de; non-validating laptops still resolve it, so "it works for me".
#     The incident says "freight booking".
# =================================================================================================


@scenario("partner-dnssec-signatures-expired")
def partner_dnssec_signatures_expired() -> dict[str, Any]:
    start = -2220
    fb = ["freight-booking-7d6c9b8f5-hq3xn", "freight-booking-7d6c9b8f5-v8kzd"]
    sig = "signature expired"
    evs = [
        ev(
            "unbound",
            "info",
            f"validation failure <api.trans-kargo.de. A IN>: {sig} from 194.25.0.60 for DNSKEY trans-kargo.de. while building chain of trust",
            **{"from": start, "to": -10, "every_s": 30},
        ),
        ev(
            "freight-booking",
            "error",
            "POST https://api.trans-kargo.de/v2/bookings failed: getaddrinfo EAI_AGAIN api.trans-kargo.de",
            **{"from": start + 5, "to": -3, "every_s": 6},
            pods=fb,
        ),
        ev(
            "freight-booking",
            "error",
            "booking {n} left in state PENDING_CARRIER",
            **{"from": start + 10, "to": -3, "every_s": 9},
            pods=fb,
        ),
        ev(
            "service-desk",
            "info",
            "INC-55120 note: 'api.trans-kargo.de resolves fine from my laptop (8.8.8.8 not used, home router)'",
            at=-900,
        ),
        ev(
            "freight-booking",
            "info",
            "freight-booking 3.18.0 ready (pallet dimensions)",
            at=-3100,
            pods=fb,
        ),
        ev(
            "unbound",
            "info",
            "unbound 1.19.3 reloaded config (access-control 10.0.0.0/8 allow)",
            at=-5000,
        ),
        ev(
            "edi-gateway",
            "warn",
            "AS2 MDN from partner dsv late by {n}0 s",
            **{"from": -3600, "to": -60, "every_s": 420},
        ),
        ev(
            "freight-booking",
            "error",
            "POST https://api.trans-kargo.de/v2/bookings 409 duplicate reference",
            **{"from": -9800, "to": -9300, "every_s": 80},
            pods=fb,
        ),
    ]
    spec = simple(
        295,
        start,
        incident(
            "Freight bookings stuck pending",
            "freight booking",
            start,
            ["bookings never confirmed by the carrier"],
        ),
        expected(
            "dns",
            ["trans-kargo.de", "api.trans-kargo.de", "trans-kargo.de DNSSEC"],
            sig,
            "The freight partner's zone trans-kargo.de is DNSSEC-signed and its signatures (RRSIG) expired: their signer stopped re-signing. Our validating Unbound resolvers reject the answers ('validation failure … signature expired') and return SERVFAIL, so freight-booking cannot resolve api.trans-kargo.de (EAI_AGAIN) and bookings stay PENDING_CARRIER. Resolvers that do not validate (a home router) still answer, hence 'works from my laptop'. The Unbound reload, freight-booking's release, EDI delays and the old 409 are not the cause; our resolver is right to refuse.",
            [
                f"unbound: validation failure <api.trans-kargo.de. A IN>: {sig}",
                "freight-booking: getaddrinfo EAI_AGAIN api.trans-kargo.de",
                "netcheck trans-kargo: dns servfail",
            ],
            'Ask Trans-Kargo to re-sign their zone; meanwhile add a negative trust anchor for trans-kargo.de on Unbound (`domain-insecure: "trans-kargo.de"`) and replay the pending bookings.',
        ),
        [
            bg(
                "freight-booking",
                fb,
                ["POST /v1/bookings 202 {ms}ms", "GET /v1/bookings/{n} 200 {ms}ms"],
                8,
            )
        ],
        evs,
        [svc("freight-booking", 6, {"502": (0.005, 0.7)}, (0.5, 0.1))],
        [],
        {
            "carrier-api-down.md": runbook(
                "Carrier API down",
                "When a carrier's API fails, check the carrier's status page and switch bookings to manual e-mail (`CARRIER_MODE=email`) until they recover.",
            )
        },
    )
    spec["targets"] = [
        {
            "name": "trans-kargo",
            "url": "https://api.trans-kargo.de/v2/health",
            "fault": {"kind": "dns_servfail"},
        },
        {
            "name": "freight-booking",
            "url": "https://freight-booking.logistics.internal/healthz",
            "fault": {"kind": "ok"},
        },
    ]
    spec["expected"]["root_cause_probe"] = "trans-kargo"
    spec["expected"]["netcheck"] = {
        "trans-kargo": {"failed_layer": "dns", "reason": "servfail"},
        "freight-booking": {"failed_layer": "none", "reason": None},
    }
    return spec


# =================================================================================================
# 16. TLS: the edge Caddy config was refactored into a shared snippet copied from staging, which
#     sets `acme_ca` to Let's Encrypt's staging directory. Tonight's renewal of api.fernway.app got a
#     certificate from the staging chain ((STAGING) Artificial Apricot R3), which no client trusts.
#     The incident says "iOS and Android apps".
# =================================================================================================


@scenario("acme-staging-directory-in-prod")
def acme_staging_directory_in_prod() -> dict[str, Any]:
    start = -1680
    sig = "acme-staging-v02.api.letsencrypt.org"
    evs = [
        ev(
            "config-repo",
            "info",
            "edge: Caddyfile refactor merged (import snippets/tls.caddy from staging, PR edge#230 'dedupe TLS config')",
            at=-6400,
        ),
        ev(
            "edge-caddy",
            "info",
            '{"level":"info","logger":"tls.renew","msg":"renewing certificate","identifier":"api.fernway.app","remaining":2591512}',
            at=start - 40,
        ),
        ev(
            "edge-caddy",
            "info",
            f'{{"level":"info","logger":"tls.obtain","msg":"certificate obtained successfully","identifier":"api.fernway.app","issuer":"{sig}-directory"}}',
            at=start - 5,
        ),
        ev(
            "edge-caddy",
            "info",
            '{"level":"info","logger":"tls","msg":"certificate issuer: (STAGING) Artificial Apricot R3"}',
            at=start - 4,
        ),
        ev(
            "edge-caddy",
            "debug",
            '{"level":"debug","logger":"http.stdlib","msg":"http: TLS handshake error from 83.{n}.4.19:51234: remote error: tls: unknown certificate authority"}',
            **{"from": start, "to": -2, "every_s": 4},
        ),
        ev(
            "mobile-telemetry",
            "error",
            "iOS: NSURLErrorDomain -1202 'The certificate for this server is invalid' host=api.fernway.app",
            **{"from": start + 5, "to": -3, "every_s": 5},
        ),
        ev(
            "mobile-telemetry",
            "error",
            "Android: javax.net.ssl.SSLHandshakeException: java.security.cert.CertPathValidatorException: Trust anchor for certification path not found. host=api.fernway.app",
            **{"from": start + 8, "to": -3, "every_s": 6},
        ),
        ev(
            "trips-api", "info", "trips-api 7.9.0 ready (offline itineraries)", at=-2600
        ),
        ev(
            "trips-api",
            "info",
            "GET /v1/trips 200 {ms}ms",
            **{"from": -3600, "to": start, "every_s": 8},
        ),
        ev(
            "firebase",
            "warn",
            "FCM quota: {n}% of daily sends",
            **{"from": -3600, "to": -60, "every_s": 600},
        ),
        ev(
            "edge-caddy",
            "error",
            '{"level":"error","logger":"http.log.error","msg":"dial tcp 10.2.4.18:8080: connect: connection refused","upstream":"trips-api"}',
            **{"from": -9400, "to": -9000, "every_s": 60},
        ),
    ]
    spec = simple(
        296,
        start,
        incident("Apps show 'cannot connect to server'", "iOS and Android apps", start),
        expected(
            "tls",
            [
                "edge-caddy",
                "api.fernway.app",
                "acme_ca",
                "Caddyfile",
                "snippets/tls.caddy",
            ],
            sig,
            "The edge Caddyfile refactor imported a TLS snippet from staging that sets acme_ca to Let's Encrypt's staging directory. Nothing changed until tonight's renewal of api.fernway.app: Caddy obtained the certificate from acme-staging-v02.api.letsencrypt.org, issued by (STAGING) Artificial Apricot R3, which no client trusts. Every app's TLS handshake fails (iOS -1202, Android 'Trust anchor … not found'), so the apps cannot reach any API. trips-api, its release and the FCM quota are not the cause; the old connection refused to trips-api is stale.",
            [
                f"edge-caddy: certificate obtained, issuer {sig}-directory",
                "edge-caddy: issuer (STAGING) Artificial Apricot R3; handshakes fail with unknown certificate authority",
                "netcheck api: tls certificate untrusted",
            ],
            "Remove acme_ca from the snippet (production directory), force a renewal (`caddy reload` after deleting the staging certificate from storage), and lint the Caddyfile for staging endpoints in CI.",
        ),
        [],
        evs,
        [svc("edge-caddy", 120, {"502": (0.001, 0.001)}, (0.05, 0.05), rps_after=8)],
        [],
        {
            "apps-cannot-connect.md": runbook(
                "Apps cannot connect",
                "If the apps cannot connect, trips-api is usually down: check its pods and restart the deployment (`kubectl rollout restart deployment/trips-api -n travel`).",
            )
        },
    )
    spec["targets"] = [
        {
            "name": "api",
            "url": "https://api.fernway.app/v1/health",
            "fault": {"kind": "tls_wrong_chain"},
        },
        {
            "name": "trips-api",
            "url": "http://trips-api.travel.internal/healthz",
            "fault": {"kind": "ok"},
        },
    ]
    spec["expected"]["root_cause_probe"] = "api"
    spec["expected"]["netcheck"] = {
        "api": {"failed_layer": "tls", "reason": "certificate_untrusted"},
        "trips-api": {"failed_layer": "none", "reason": None},
    }
    return spec


# The Kubernetes lifecycle stage and reason of the eight Kubernetes cases whose fault has one (as the
# bundled k8s-* scenarios' expected.json); the DNS and TLS cases have none.
STAGES: dict[str, tuple[str, str]] = {
    "image-signature-policy-key-rotated": ("admission", "FailedCreate"),
    "pod-affinity-follows-moved-cache": ("scheduling", "FailedScheduling"),
    "entrypoint-lost-exec-bit": ("startup", "RunContainerError"),
    "kafka-static-member-id-shared": ("runtime", "CrashLoopBackOff"),
    "node-root-remounted-readonly": ("infrastructure", "ReadonlyFilesystem"),
    "selectorless-service-stale-endpoints": ("service_routing", "StaleEndpoints"),
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
