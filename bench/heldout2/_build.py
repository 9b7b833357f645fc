"""Writes the second held-out scenario set, bench/heldout2 (issue 21 item 7): `python bench/heldout2/_build.py`.

New incidents, none of them in bench/heldout or the bundled set. As there, everything that matters is
written by hand below (incident, expected answer, runbooks, kubectl answers, the log lines that carry
the fault and the red herrings); only the bulk comes from code: background request lines and 2 h of
metric points, made by bench/heldout/_build.py's `logs` and `metrics` with a fixed seed per scenario.
The author read neither the planner (`reasoning/`) nor the engine (`diagnosis/engine/`). Stdlib only.
"""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location(
    "heldout_build", HERE.parent / "heldout" / "_build.py"
)
assert _spec is not None and _spec.loader is not None
base = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(base)

when = base.when
table = base.table
events = base.events
runbook = base.runbook
metrics = base.metrics
logs = base.logs
TOLERATIONS = base.TOLERATIONS
EKS = "v1.31.2-eks-94953ac"

SCENARIOS: dict[str, Any] = {}


def scenario(slug: str):
    def register(fn):
        SCENARIOS[slug] = fn
        return fn

    return register


# --- a namespace from a compact description -------------------------------------------------------


def suffix(rng: random.Random, n: int = 5) -> str:
    return "".join(rng.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(n))


def app(
    name: str,
    *,
    image: str,
    port: int,
    pods: list[tuple[str, str, str, str, int]],
    rs: str,
    age: str = "300d",
    desired: int | None = None,
    kind: str = "Deployment",
    service: bool = True,
    service_port: str | None = None,
    cluster_ip: str = "172.20.0.10",
    extra_rs: list[tuple[str, ...]] = (),
    labels: str | None = None,
) -> dict[str, Any]:
    """pods: (suffix, ready, status, restarts, age, node index); rs: the pod-template-hash."""
    return {
        "name": name,
        "image": image,
        "port": port,
        "pods": pods,
        "rs": rs,
        "age": age,
        "desired": len(pods) if desired is None else desired,
        "kind": kind,
        "service": service,
        "service_port": service_port or f"{port}/TCP",
        "cluster_ip": cluster_ip,
        "extra_rs": list(extra_rs),
        "labels": labels or f"app={name}",
    }


def pod_name(a: dict[str, Any], sfx: str) -> str:
    return (
        f"{a['name']}-{a['rs']}-{sfx}"
        if a["kind"] == "Deployment"
        else f"{a['name']}-{sfx}"
    )


def namespace(
    ns: str,
    nodes: list[tuple[str, ...]],
    apps: list[dict[str, Any]],
    *,
    seed: int,
    extra_namespaces: tuple[str, ...] = (),
    configmaps: list[tuple[str, str, str]] = (),
    secrets: list[tuple[str, str, str, str]] = (),
    daemonsets: str | None = None,
    statefulsets: str | None = None,
) -> dict[str, str]:
    """nodes: (name, STATUS column, internal ip[, age]). The tables a capture takes of one namespace."""
    rng = random.Random(seed)
    pod_rows, deps, rss, svcs, eps = [], [], [], [], []
    for a in apps:
        ready_n = 0
        ips = []
        for sfx, ready, status, restarts, age, node_i in a["pods"]:
            ip = f"10.{seed % 200}.{node_i + 1}.{rng.randint(10, 250)}"
            node = nodes[node_i][0] if node_i >= 0 else "<none>"
            pip = ip if node_i >= 0 else "<none>"
            extra = f",pod-template-hash={a['rs']}" if a["kind"] == "Deployment" else ""
            pod_rows.append(
                (
                    pod_name(a, sfx),
                    ready,
                    status,
                    restarts,
                    age,
                    pip,
                    node,
                    a["labels"] + extra,
                )
            )
            if ready.split("/")[0] == ready.split("/")[1] and status == "Running":
                ready_n += 1
                ips.append(f"{ip}:{a['port']}")
        if a["kind"] == "Deployment":
            deps.append(
                (
                    a["name"],
                    f"{ready_n}/{a['desired']}",
                    str(a["desired"]),
                    str(ready_n),
                    a["age"],
                    a["name"],
                    a["image"],
                    a["labels"],
                )
            )
            rss.append(
                (
                    f"{a['name']}-{a['rs']}",
                    str(len(a["pods"])),
                    str(len(a["pods"])),
                    str(ready_n),
                    a["pods"][0][4] if a["pods"] else a["age"],
                    a["name"],
                    a["image"],
                    f"{a['labels']},pod-template-hash={a['rs']}",
                )
            )
            rss.extend(a["extra_rs"])
        if a["service"]:
            svcs.append(
                (
                    a["name"],
                    "ClusterIP",
                    a["cluster_ip"],
                    a["service_port"],
                    a["age"],
                    a["labels"],
                )
            )
            eps.append(
                (
                    a["name"],
                    ",".join(ips[:3])
                    + (f" + {len(ips) - 3} more..." if len(ips) > 3 else "")
                    or "<none>",
                    a["age"],
                )
            )
    out = base.cluster_basics(
        ns,
        configmaps=configmaps,
        secrets=secrets,
        extra_namespaces=extra_namespaces,
        daemonsets=daemonsets,
        statefulsets=statefulsets,
    )
    out[f"kubectl get pods -n {ns} -o wide --show-labels"] = base.pods(pod_rows)
    out[f"kubectl get deployments -n {ns} -o wide"] = (
        base.deployments(deps) if deps else base.no_resources(ns)
    )
    out[f"kubectl get replicasets -n {ns} -o wide"] = (
        base.replicasets(rss) if rss else base.no_resources(ns)
    )
    out[f"kubectl get services -n {ns} -o wide"] = (
        base.services(svcs) if svcs else base.no_resources(ns)
    )
    out[f"kubectl get endpoints -n {ns}"] = (
        base.endpoints(eps) if eps else base.no_resources(ns)
    )
    out["kubectl get nodes -o wide"] = base.nodes(
        [(n[0], n[1], n[3] if len(n) > 3 else "41d", EKS, n[2]) for n in nodes]
    )
    return out


def ips_of(k8s: dict[str, str], ns: str) -> dict[str, str]:
    """Pod name -> IP, read back from the generated `get pods` table."""
    lines = k8s[f"kubectl get pods -n {ns} -o wide --show-labels"].splitlines()[1:]
    return {line.split()[0]: line.split()[5] for line in lines}


def bg(
    service: str, pods: list[str], messages: list[str], every_s: float, **kw: Any
) -> dict[str, Any]:
    """Background lines of one service; at most one line every 3 s (keeps the folders small)."""
    return {
        "service": service,
        "pods": pods,
        "messages": messages,
        "every_s": max(every_s, 3.0),
        **kw,
    }


def ev(service: str, level: str, message: str, **kw: Any) -> dict[str, Any]:
    return {"service": service, "level": level, "message": message, **kw}


def node_describe(
    name: str,
    ip: str,
    *,
    conditions: dict[str, tuple[str, str, str, str]] | None = None,
    taints: str = "<none>",
    unschedulable: bool = False,
    pods_rows: list[tuple[str, str]] = (),
    events_text: str = "",
    capacity: tuple[str, str, str] = ("8", "32386260Ki", "110"),
) -> str:
    """conditions: type -> (status, transition offset_s as str, reason, message) overriding healthy ones."""
    healthy = {
        "MemoryPressure": (
            "False",
            "-3542400",
            "KubeletHasSufficientMemory",
            "kubelet has sufficient memory available",
        ),
        "DiskPressure": (
            "False",
            "-3542400",
            "KubeletHasNoDiskPressure",
            "kubelet has no disk pressure",
        ),
        "PIDPressure": (
            "False",
            "-3542400",
            "KubeletHasSufficientPID",
            "kubelet has sufficient PID available",
        ),
        "Ready": (
            "True",
            "-3542400",
            "KubeletReady",
            "kubelet is posting ready status",
        ),
    }
    healthy.update(conditions or {})
    rows = [
        [
            "Type",
            "Status",
            "LastHeartbeatTime",
            "LastTransitionTime",
            "Reason",
            "Message",
        ],
        [
            "----",
            "------",
            "-----------------",
            "------------------",
            "------",
            "-------",
        ],
    ]
    for t, (st, at, reason, msg) in healthy.items():
        rows.append([t, st, when(-20), when(float(at)), reason, msg])
    cond = "\n".join("  " + line for line in table(rows).rstrip("\n").split("\n"))
    prow = [
        [
            "Namespace",
            "Name",
            "CPU Requests",
            "CPU Limits",
            "Memory Requests",
            "Memory Limits",
            "Age",
        ],
        [
            "---------",
            "----",
            "------------",
            "----------",
            "---------------",
            "-------------",
            "---",
        ],
    ]
    for nsn, pn in pods_rows:
        prow.append([nsn, pn, "100m (1%)", "0 (0%)", "128Mi (0%)", "0 (0%)", "3h"])
    plist = "\n".join("  " + line for line in table(prow).rstrip("\n").split("\n"))
    cpu, mem, npods = capacity
    return f"""Name:               {name}
Roles:              <none>
Labels:             kubernetes.io/hostname={name}
                    node.kubernetes.io/instance-type=m6i.2xlarge
CreationTimestamp:  {when(-3542400)}
Taints:             {taints}
Unschedulable:      {"true" if unschedulable else "false"}
Conditions:
{cond}
Addresses:
  InternalIP:  {ip}
  Hostname:    {name}
Capacity:
  cpu:                {cpu}
  memory:             {mem}
  pods:               {npods}
Non-terminated Pods:          ({len(pods_rows)} in total)
{plist}
Events:
{events_text or "  <none>"}
"""


# =================================================================================================
# 1. Node MemoryPressure: a report renderer without limits fills one node; thumbnail-api pods are
#    evicted and cannot come back. The incident says "thumbnails".
# =================================================================================================


@scenario("node-memory-pressure")
def node_memory_pressure() -> dict[str, Any]:
    start = -1500
    ns = "imaging"
    nodes = [
        ("ip-10-31-1-12.eu-central-1.compute.internal", "Ready", "10.31.1.12"),
        ("ip-10-31-2-40.eu-central-1.compute.internal", "Ready", "10.31.2.40"),
        ("ip-10-31-3-77.eu-central-1.compute.internal", "Ready", "10.31.3.77"),
    ]
    bad = nodes[0][0]
    thumb = app(
        "thumbnail-api",
        image="ghcr.io/pixelpost/thumbnail-api:4.2.1",
        port=8080,
        rs="6c8d9f7b4",
        cluster_ip="172.20.41.12",
        desired=4,
        pods=[
            ("h8xkq", "0/1", "Evicted", "0", "9d", 0),
            ("p2mzv", "0/1", "Evicted", "0", "9d", 0),
            ("t7wqn", "1/1", "Running", "0", "9d", 1),
            ("z4rkd", "1/1", "Running", "0", "9d", 2),
            ("b9lfs", "0/1", "Pending", "0", "24m", -1),
            ("c3vxg", "0/1", "Pending", "0", "24m", -1),
        ],
    )
    renderer = app(
        "report-renderer",
        image="ghcr.io/pixelpost/report-renderer:1.19.0",
        port=9000,
        rs="7d5b8c9f6",
        cluster_ip="172.20.41.80",
        service=False,
        pods=[("q6jmx", "1/1", "Running", "0", "31m", 0)],
    )
    proxy = app(
        "image-proxy",
        image="ghcr.io/pixelpost/image-proxy:2.0.7",
        port=8080,
        rs="58f6d7c9b",
        cluster_ip="172.20.41.30",
        pods=[
            ("k2nwd", "1/1", "Running", "0", "12d", 1),
            ("r8hpt", "1/1", "Running", "0", "12d", 2),
        ],
    )
    exif = app(
        "exif-worker",
        image="ghcr.io/pixelpost/exif-worker:0.9.3",
        port=8080,
        rs="5b7c6d8f9",
        service=False,
        pods=[("w5gzn", "1/1", "Running", "1 (2h ago)", "20d", 2)],
    )
    tp = [pod_name(thumb, s[0]) for s in thumb["pods"]]
    rp = pod_name(renderer, "q6jmx")
    k8s = namespace(
        ns,
        nodes,
        [thumb, renderer, proxy, exif],
        seed=31,
        configmaps=[("thumbnail-sizes", "3", "300d")],
    )
    evict = "The node was low on resource: memory. Threshold quantity: 100Mi, available: 61204Ki. Container thumbnail-api was using 612Mi, request is 512Mi, has larger consumption of memory."
    sched = "0/3 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/memory-pressure: }, 2 Insufficient memory. preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod."
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "2h",
                "Warning",
                "OOMKilling",
                f"Pod/{pod_name(exif, 'w5gzn')}",
                "Memory cgroup out of memory: Killed process 4411 (exif-worker) total-vm:1204112kB",
            ),
            (
                "31m",
                "Normal",
                "SuccessfulCreate",
                "Job/report-renderer-monthly",
                f"Created pod: {rp}",
            ),
            (
                "31m",
                "Normal",
                "Scheduled",
                f"Pod/{rp}",
                f"Successfully assigned imaging/{rp} to {bad}",
            ),
            ("25m", "Warning", "Evicted", f"Pod/{tp[0]}", evict),
            (
                "25m",
                "Warning",
                "Evicted",
                f"Pod/{tp[1]}",
                evict.replace("612Mi", "598Mi"),
            ),
            (
                "25m",
                "Normal",
                "Killing",
                f"Pod/{tp[0]}",
                "Stopping container thumbnail-api",
            ),
            ("2m (x12 over 24m)", "Warning", "FailedScheduling", f"Pod/{tp[4]}", sched),
            ("2m (x12 over 24m)", "Warning", "FailedScheduling", f"Pod/{tp[5]}", sched),
        ]
    )
    k8s[f"kubectl describe nodes {bad}"] = node_describe(
        bad,
        "10.31.1.12",
        conditions={
            "MemoryPressure": (
                "True",
                str(start - 60),
                "KubeletHasInsufficientMemory",
                "kubelet has insufficient memory available",
            )
        },
        taints="node.kubernetes.io/memory-pressure:NoSchedule",
        pods_rows=[
            ("kube-system", "aws-node-6qz2k"),
            ("kube-system", "kube-proxy-r5t8m"),
            ("imaging", rp),
        ],
        events_text="""  Type     Reason                     Age                From     Message
  ----     ------                     ----               ----     -------
  Normal   NodeHasInsufficientMemory  26m                kubelet  Node status is now: NodeHasInsufficientMemory
  Warning  EvictionThresholdMet       25m (x3 over 26m)  kubelet  Attempting to reclaim memory""",
    )
    k8s[f"kubectl describe pods {rp} -n {ns}"] = f"""Name:             {rp}
Namespace:        {ns}
Node:             {bad}/10.31.1.12
Start Time:       {when(start - 360)}
Labels:           app=report-renderer
Status:           Running
Controlled By:    ReplicaSet/report-renderer-7d5b8c9f6
Containers:
  report-renderer:
    Image:          ghcr.io/pixelpost/report-renderer:1.19.0
    State:          Running
      Started:      {when(start - 350)}
    Ready:          True
    Restart Count:  0
    Environment:
      REPORT_MONTH:   2026-11
      RENDER_WORKERS: 24
QoS Class:                   BestEffort
{TOLERATIONS}
Events:
  Type    Reason     Age   From               Message
  ----    ------     ----  ----               -------
  Normal  Scheduled  31m   default-scheduler  Successfully assigned {ns}/{rp} to {bad}
  Normal  Started    31m   kubelet            Started container report-renderer
"""
    k8s[f"kubectl describe pods {tp[4]} -n {ns}"] = f"""Name:             {tp[4]}
Namespace:        {ns}
Node:             <none>
Labels:           app=thumbnail-api
Status:           Pending
Controlled By:    ReplicaSet/thumbnail-api-6c8d9f7b4
Containers:
  thumbnail-api:
    Image:      ghcr.io/pixelpost/thumbnail-api:4.2.1
    Requests:
      cpu:     250m
      memory:  512Mi
Conditions:
  Type           Status
  PodScheduled   False
QoS Class:       Burstable
Events:
  Type     Reason            Age                 From               Message
  ----     ------            ----                ----               -------
  Warning  FailedScheduling  2m (x12 over 24m)   default-scheduler  {sched}
"""
    thumb_pods = [tp[2], tp[3]]
    bgs = [
        bg(
            "thumbnail-api",
            tp[:4],
            ["GET /t/{n}/320x320.webp 200 {ms}ms", "GET /t/{n}/64x64.webp 200 {ms}ms"],
            2,
            until=start,
        ),
        bg(
            "thumbnail-api",
            thumb_pods,
            ["GET /t/{n}/320x320.webp 200 {ms}ms"],
            4,
            **{"from": start},
        ),
        bg(
            "image-proxy",
            [pod_name(proxy, "k2nwd"), pod_name(proxy, "r8hpt")],
            [
                "GET /img/{n} 200 {ms}ms (cache hit)",
                "GET /img/{n} 200 {ms}ms (cache miss)",
            ],
            1.5,
        ),
        bg(
            "report-renderer",
            [rp],
            [
                "rendered statement merchant={n} pages=14 in {ms}ms",
                "rendered statement merchant={n} pages=3 in {ms}ms",
            ],
            6,
            **{"from": start - 350},
        ),
    ]
    evs = [
        ev(
            "exif-worker",
            "error",
            "worker killed (OOM) while reading IFD of upload {n}; restarting",
            at=-7000,
            pod=pod_name(exif, "w5gzn"),
        ),
        ev(
            "image-proxy",
            "error",
            "upstream thumbnail-api.imaging.svc:8080 timed out after 2000ms for /t/{n}/320x320.webp; serving 502",
            **{"from": start + 60, "to": -5, "every_s": 8},
            pods=[pod_name(proxy, "k2nwd"), pod_name(proxy, "r8hpt")],
        ),
        ev(
            "thumbnail-api",
            "warn",
            "request queue depth {n} above 200, shedding load with 503",
            **{"from": start + 90, "to": -5, "every_s": 30},
            pods=thumb_pods,
        ),
        ev(
            "kubelet",
            "warn",
            "eviction manager: attempting to reclaim memory",
            at=start,
            labels={"node": bad},
        ),
        ev(
            "kubelet",
            "info",
            f"eviction manager: pods ranked for eviction: {tp[0]}, {tp[1]}, {rp}",
            at=start + 1,
            labels={"node": bad},
        ),
        ev(
            "kubelet",
            "info",
            f"eviction manager: pod {tp[0]} is evicted successfully",
            at=start + 5,
            labels={"node": bad},
        ),
        ev(
            "kubelet",
            "info",
            f"eviction manager: pod {tp[1]} is evicted successfully",
            at=start + 6,
            labels={"node": bad},
        ),
        ev(
            "kubelet",
            "warn",
            "eviction manager: thresholds still met: memory.available<100Mi (available 74Mi)",
            **{"from": start + 60, "to": -30, "every_s": 120},
            labels={"node": bad},
        ),
    ]
    return {
        "incident": {
            "title": "Thumbnails slow or broken on the site",
            "service": "thumbnails",
            "severity": "sev2",
            "symptoms": ["product grid shows grey boxes", "image-proxy 502s"],
            "description": "Reported by the merchandising team; the monthly report run started around the same time.",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "platform",
            "root_cause_stage": "infrastructure",
            "root_cause_reason": "MemoryPressure",
            "root_cause_component": [
                f"node/{bad}",
                bad,
                "report-renderer",
                "deployment/report-renderer",
                f"pod/{rp}",
            ],
            "root_cause_signal": "memory-pressure",
            "root_cause": f"report-renderer (BestEffort, no memory limit, 24 render workers) was scheduled on {bad} and filled its memory; the kubelet put the node in MemoryPressure and evicted the two thumbnail-api pods there (the renderer, BestEffort, ranked after pods over their request). The node is tainted memory-pressure and the other two nodes lack memory, so the replacements stay Pending: thumbnail-api runs on 2 of 4 pods, sheds load with 503 and image-proxy times out (502). exif-worker's OOM kill is two hours old.",
            "evidence": [
                f"kubectl describe node {bad}: MemoryPressure True, taint node.kubernetes.io/memory-pressure:NoSchedule, EvictionThresholdMet",
                "events: Evicted: The node was low on resource: memory (two thumbnail-api pods)",
                "FailedScheduling: untolerated taint memory-pressure, Insufficient memory",
                f"describe pod {rp}: QoS BestEffort on that node, started 6 minutes before the evictions",
            ],
            "remediation": "Stop or move report-renderer (give it memory requests and limits, a dedicated node), let thumbnail-api reschedule; raise thumbnail-api's PriorityClass.",
        },
        "logs": logs(seed=31, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "thumbnail-api",
                    "rps": 40,
                    "rps_after": 22,
                    "errors": {"503": (0.0, 0.18)},
                    "latency": (0.03, 0.6),
                },
                {
                    "name": "image-proxy",
                    "rps": 70,
                    "errors": {"502": (0.001, 0.24)},
                    "latency": (0.02, 1.1),
                },
            ],
            start=start,
            seed=31,
            gauges=[
                {
                    "name": "node_memory_MemAvailable_bytes",
                    "labels": {"node": bad},
                    "before": 1.1e10,
                    "after": 7.5e7,
                    "change_at": start - 300,
                },
                {
                    "name": "node_memory_MemAvailable_bytes",
                    "labels": {"node": nodes[1][0]},
                    "before": 2.1e9,
                    "after": 2.0e9,
                },
                {
                    "name": "container_memory_working_set_bytes",
                    "labels": {
                        "namespace": ns,
                        "pod": rp,
                        "container": "report-renderer",
                    },
                    "before": 0,
                    "after": 2.9e10,
                    "change_at": start - 350,
                },
            ],
        ),
        "kubernetes": k8s,
        "runbooks": {
            "thumbnail-api-oom.md": runbook(
                "thumbnail-api out of memory",
                "If thumbnail-api pods restart with OOMKilled, raise its memory limit in values-prod.yaml (limits.memory) and redeploy. Large source images (> 40 MP) are the usual trigger.",
            ),
        },
    }


# =================================================================================================
# 2. Node PIDPressure: pdf-export leaks zombie chromium processes; notifications-api on the same
#    node cannot start threads. The loud errors are notifications-api's.
# =================================================================================================


@scenario("node-pid-pressure")
def node_pid_pressure() -> dict[str, Any]:
    start = -1320
    ns = "messaging"
    nodes = [
        ("ip-10-44-1-9.us-east-1.compute.internal", "Ready", "10.44.1.9"),
        ("ip-10-44-2-51.us-east-1.compute.internal", "Ready", "10.44.2.51"),
    ]
    bad = nodes[1][0]
    notif = app(
        "notifications-api",
        image="123456789012.dkr.ecr.us-east-1.amazonaws.com/notifications-api:8.4.0",
        port=8080,
        rs="7b9c5d6f8",
        cluster_ip="172.20.88.4",
        pods=[
            ("fj2kd", "1/1", "Running", "0", "6d", 0),
            ("m8rqz", "0/1", "CrashLoopBackOff", "9 (1m ago)", "6d", 1),
            ("x4tvn", "0/1", "CrashLoopBackOff", "8 (3m ago)", "6d", 1),
        ],
    )
    pdf = app(
        "pdf-export",
        image="123456789012.dkr.ecr.us-east-1.amazonaws.com/pdf-export:2.3.0",
        port=3000,
        rs="6d4f8b7c9",
        cluster_ip="172.20.88.31",
        pods=[("s5wgl", "1/1", "Running", "0", "5h", 1)],
        extra_rs=[
            (
                "pdf-export-59c7d8b6f",
                "0",
                "0",
                "0",
                "40d",
                "pdf-export",
                "123456789012.dkr.ecr.us-east-1.amazonaws.com/pdf-export:2.2.4",
                "app=pdf-export,pod-template-hash=59c7d8b6f",
            )
        ],
    )
    sms = app(
        "sms-gateway",
        image="123456789012.dkr.ecr.us-east-1.amazonaws.com/sms-gateway:1.7.2",
        port=8080,
        rs="5c8b9d7f6",
        cluster_ip="172.20.88.60",
        pods=[("d7hnk", "1/1", "Running", "0", "30d", 0)],
    )
    np_ = [pod_name(notif, s[0]) for s in notif["pods"]]
    pp = pod_name(pdf, "s5wgl")
    k8s = namespace(ns, nodes, [notif, pdf, sms], seed=44)
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "5h",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/pdf-export",
                "Scaled up replica set pdf-export-6d4f8b7c9 to 1",
            ),
            (
                "23m",
                "Warning",
                "BackOff",
                f"Pod/{np_[1]}",
                "Back-off restarting failed container notifications-api in pod "
                + np_[1],
            ),
            (
                "3m (x9 over 22m)",
                "Warning",
                "BackOff",
                f"Pod/{np_[1]}",
                "Back-off restarting failed container notifications-api",
            ),
            (
                "2m (x8 over 21m)",
                "Warning",
                "BackOff",
                f"Pod/{np_[2]}",
                "Back-off restarting failed container notifications-api",
            ),
            (
                "1m (x4 over 20m)",
                "Warning",
                "Failed",
                f"Pod/{np_[2]}",
                "Error: failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: error during container init: fork/exec /proc/self/exe: resource temporarily unavailable: unknown",
            ),
        ]
    )
    k8s[f"kubectl describe nodes {bad}"] = node_describe(
        bad,
        "10.44.2.51",
        conditions={
            "PIDPressure": (
                "True",
                str(start - 30),
                "KubeletHasInsufficientPID",
                "kubelet has insufficient PID available",
            )
        },
        taints="node.kubernetes.io/pid-pressure:NoSchedule",
        pods_rows=[
            ("kube-system", "aws-node-p9x2c"),
            ("kube-system", "kube-proxy-h6w3s"),
            (ns, np_[1]),
            (ns, np_[2]),
            (ns, pp),
        ],
        events_text="""  Type     Reason                  Age                From     Message
  ----     ------                  ----               ----     -------
  Normal   NodeHasInsufficientPID  22m                kubelet  Node status is now: NodeHasInsufficientPID
  Warning  EvictionThresholdMet    22m                kubelet  Attempting to reclaim pids""",
    )
    k8s[f"kubectl describe pods {pp} -n {ns}"] = f"""Name:             {pp}
Namespace:        {ns}
Node:             {bad}/10.44.2.51
Start Time:       {when(-18000)}
Labels:           app=pdf-export
                  pod-template-hash=6d4f8b7c9
Status:           Running
Controlled By:    ReplicaSet/pdf-export-6d4f8b7c9
Containers:
  pdf-export:
    Image:          123456789012.dkr.ecr.us-east-1.amazonaws.com/pdf-export:2.3.0
    Command:        node server.js
    State:          Running
      Started:      {when(-17990)}
    Ready:          True
    Restart Count:  0
    Environment:
      CHROMIUM_FLAGS:  --no-zygote --single-process=false
QoS Class:                   Burstable
{TOLERATIONS}
Events:                      <none>
"""
    k8s[
        f"kubectl logs {np_[1]} -n {ns} -c notifications-api --previous --tail=1000"
    ] = (
        "2026-12-05T13:58:51Z INFO starting notifications-api 8.4.0 (workers=32)\n"
        "2026-12-05T13:58:52Z INFO connected to redis notifications-redis:6379\n"
        "2026-12-05T13:58:52Z ERROR runtime/cgo: pthread_create failed: Resource temporarily unavailable\n"
        "2026-12-05T13:58:52Z FATAL SIGABRT: abort\n"
    )
    bgs = [
        bg(
            "notifications-api",
            np_,
            ["POST /v1/push 202 {ms}ms", "POST /v1/email 202 {ms}ms"],
            2,
            until=start,
        ),
        bg(
            "notifications-api",
            [np_[0]],
            ["POST /v1/push 202 {ms}ms"],
            4,
            **{"from": start},
        ),
        bg("pdf-export", [pp], ["rendered invoice {n}.pdf in {ms}ms"], 12),
        bg(
            "sms-gateway",
            [pod_name(sms, "d7hnk")],
            ["delivered sms id={n} via twilio-eu"],
            20,
        ),
    ]
    evs = [
        ev(
            "notifications-api",
            "error",
            "runtime/cgo: pthread_create failed: Resource temporarily unavailable",
            **{"from": start + 30, "to": -30, "every_s": 150},
            pods=np_[1:],
        ),
        ev(
            "notifications-api",
            "error",
            "push backlog {n} messages; p99 enqueue 4.1s",
            **{"from": start + 120, "to": -5, "every_s": 45},
            pod=np_[0],
        ),
        ev(
            "pdf-export",
            "warn",
            "chromium child exited without wait(): pid={n} <defunct>",
            **{"from": -16000, "to": -10, "every_s": 300},
            pod=pp,
        ),
        ev(
            "pdf-export",
            "info",
            "deployed 2.3.0: switch to chromium multi-process mode for faster rendering",
            at=-18000,
            pod=pp,
        ),
        ev(
            "sms-gateway",
            "error",
            "twilio-eu: 503 Service Unavailable for sms id={n} (retry 1/3)",
            **{"from": -6800, "to": -6400, "every_s": 40},
            pod=pod_name(sms, "d7hnk"),
        ),
        ev(
            "kubelet",
            "warn",
            "eviction manager: attempting to reclaim pids",
            at=start - 30,
            labels={"node": bad},
        ),
        ev(
            "kubelet",
            "warn",
            "pids.available 312 below threshold 1024 (pid.max 32768)",
            **{"from": start, "to": -60, "every_s": 180},
            labels={"node": bad},
        ),
    ]
    return {
        "incident": {
            "title": "Push notifications delayed by minutes",
            "service": "notifications-api",
            "severity": "sev2",
            "symptoms": ["notifications-api pods restarting", "push backlog growing"],
            "description": "Two of three notifications-api pods crash-loop since ~20 min.",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "platform",
            "root_cause_stage": "infrastructure",
            "root_cause_reason": "PIDPressure",
            "root_cause_component": [
                f"node/{bad}",
                bad,
                "pdf-export",
                "deployment/pdf-export",
                f"pod/{pp}",
            ],
            "root_cause_signal": "pid-pressure",
            "root_cause": f"pdf-export 2.3.0 (5 h ago) runs chromium in multi-process mode without reaping its children: defunct processes pile up until {bad} runs out of PIDs (PIDPressure True). The two notifications-api pods on that node crash at start (pthread_create: Resource temporarily unavailable; runc fork/exec resource temporarily unavailable); the pod on the other node carries the load alone. sms-gateway's Twilio 503s are two hours old.",
            "evidence": [
                f"kubectl describe node {bad}: PIDPressure True, taint pid-pressure, Attempting to reclaim pids",
                "notifications-api previous logs: pthread_create failed: Resource temporarily unavailable, only on that node",
                "pdf-export: chromium child exited without wait() <defunct>, since its 2.3.0 deploy",
            ],
            "remediation": "Roll pdf-export back to 2.2.4 (or run it with an init such as tini / shareProcessNamespace) and set a pod PID limit; restart the node's pods once PIDs are free.",
        },
        "logs": logs(seed=44, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "notifications-api",
                    "rps": 55,
                    "rps_after": 30,
                    "errors": {"503": (0.001, 0.12)},
                    "latency": (0.02, 0.9),
                },
                {"name": "pdf-export", "rps": 0.2, "latency": (1.5, 1.5)},
            ],
            start=start,
            seed=44,
            gauges=[
                {
                    "name": "node_processes_pids",
                    "labels": {"node": bad},
                    "before": 900,
                    "after": 32400,
                    "change_at": start - 600,
                    "noise": 0.01,
                },
                {
                    "name": "node_processes_pids",
                    "labels": {"node": nodes[0][0]},
                    "before": 780,
                    "after": 790,
                },
            ],
        ),
        "kubernetes": k8s,
        "runbooks": {
            "notifications-crashloop.md": runbook(
                "notifications-api crash loop",
                "A crash loop of notifications-api is almost always Redis: check `notifications-redis` memory and evictions, flush the dead-letter list, then restart the deployment.",
            ),
        },
    }


# =================================================================================================
# 3. A taint with no toleration: the replacement node group carries the batch pool's taint; the
#    drained general nodes' pods stay Pending. The incident says "checkout".
# =================================================================================================


@scenario("taint-no-toleration")
def taint_no_toleration() -> dict[str, Any]:
    start = -2040
    ns = "shop"
    nodes = [
        (
            "ip-10-52-1-20.eu-west-1.compute.internal",
            "Ready,SchedulingDisabled",
            "10.52.1.20",
        ),
        (
            "ip-10-52-2-21.eu-west-1.compute.internal",
            "Ready,SchedulingDisabled",
            "10.52.2.21",
        ),
        ("ip-10-52-1-88.eu-west-1.compute.internal", "Ready", "10.52.1.88", "37m"),
        ("ip-10-52-2-93.eu-west-1.compute.internal", "Ready", "10.52.2.93", "37m"),
        ("ip-10-52-3-97.eu-west-1.compute.internal", "Ready", "10.52.3.97", "37m"),
    ]
    new = [n[0] for n in nodes[2:]]
    co = app(
        "checkout-api",
        image="registry.shopco.io/checkout-api:12.8.2",
        port=8080,
        rs="84d6c9b7f",
        cluster_ip="172.20.12.7",
        desired=4,
        pods=[
            ("a2kqd", "1/1", "Running", "0", "33m", 2),
            ("g7mzt", "0/1", "Pending", "0", "33m", -1),
            ("l4wxs", "0/1", "Pending", "0", "33m", -1),
            ("v9pnh", "0/1", "Pending", "0", "32m", -1),
        ],
    )
    cart = app(
        "cart-web",
        image="registry.shopco.io/cart-web:3.1.0",
        port=3000,
        rs="6f9b7c8d5",
        cluster_ip="172.20.12.40",
        pods=[
            ("c5rtw", "0/1", "Pending", "0", "33m", -1),
            ("n8dkz", "1/1", "Running", "0", "33m", 3),
        ],
    )
    co_p = [pod_name(co, s[0]) for s in co["pods"]]
    k8s = namespace(
        ns, nodes, [co, cart], seed=52, configmaps=[("checkout-flags", "12", "120d")]
    )
    sched = "0/5 nodes are available: 2 node(s) were unschedulable, 3 node(s) had untolerated taint {workload: batch}. preemption: 0/5 nodes are available: 5 Preemption is not helpful for scheduling."
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "34m",
                "Normal",
                "Killing",
                "Pod/checkout-api-84d6c9b7f-q2hbx",
                "Stopping container checkout-api",
            ),
            (
                "34m",
                "Normal",
                "Killing",
                "Pod/checkout-api-84d6c9b7f-w6lzr",
                "Stopping container checkout-api",
            ),
            (
                "34m",
                "Normal",
                "Killing",
                "Pod/checkout-api-84d6c9b7f-e3jfn",
                "Stopping container checkout-api",
            ),
            (
                "33m",
                "Normal",
                "Scheduled",
                f"Pod/{co_p[0]}",
                f"Successfully assigned shop/{co_p[0]} to {new[0]}",
            ),
            (
                "2m (x14 over 33m)",
                "Warning",
                "FailedScheduling",
                f"Pod/{co_p[1]}",
                sched,
            ),
            (
                "2m (x14 over 33m)",
                "Warning",
                "FailedScheduling",
                f"Pod/{co_p[2]}",
                sched,
            ),
            (
                "2m (x13 over 32m)",
                "Warning",
                "FailedScheduling",
                f"Pod/{co_p[3]}",
                sched,
            ),
            (
                "2m (x14 over 33m)",
                "Warning",
                "FailedScheduling",
                f"Pod/{pod_name(cart, 'c5rtw')}",
                sched,
            ),
        ]
    )
    for i, n in enumerate(new):
        k8s[f"kubectl describe nodes {n}"] = node_describe(
            n,
            nodes[i + 2][2],
            taints="workload=batch:NoSchedule",
            pods_rows=[("kube-system", f"kube-proxy-{['b8x2q', 'k4m7w', 'p2z9d'][i]}")]
            + ([(ns, co_p[0])] if i == 0 else [])
            + ([(ns, pod_name(cart, "n8dkz"))] if i == 1 else []),
            events_text="""  Type    Reason                   Age   From     Message
  ----    ------                   ----  ----     -------
  Normal  RegisteredNode           36m   node-controller  Node event: Registered Node in Controller""",
        ).replace(
            "                    node.kubernetes.io/instance-type=m6i.2xlarge",
            "                    eks.amazonaws.com/nodegroup=general-v2\n                    node.kubernetes.io/instance-type=m6i.2xlarge",
        )
    k8s[f"kubectl describe pods {co_p[1]} -n {ns}"] = f"""Name:             {co_p[1]}
Namespace:        {ns}
Node:             <none>
Labels:           app=checkout-api
                  pod-template-hash=84d6c9b7f
Status:           Pending
Controlled By:    ReplicaSet/checkout-api-84d6c9b7f
Containers:
  checkout-api:
    Image:      registry.shopco.io/checkout-api:12.8.2
    Requests:
      cpu:     500m
      memory:  768Mi
Conditions:
  Type           Status
  PodScheduled   False
QoS Class:       Burstable
Node-Selectors:  <none>
{TOLERATIONS}
Events:
  Type     Reason            Age                 From               Message
  ----     ------            ----                ----               -------
  Warning  FailedScheduling  2m (x14 over 33m)   default-scheduler  {sched}
"""
    k8s[f"kubectl describe pods {co_p[0]} -n {ns}"] = f"""Name:             {co_p[0]}
Namespace:        {ns}
Node:             {new[0]}/10.52.1.88
Labels:           app=checkout-api
                  pod-template-hash=84d6c9b7f
Annotations:      kubectl.kubernetes.io/patched-by: oncall-2026-09 (toleration for batch drain test)
Status:           Running
Controlled By:    ReplicaSet/checkout-api-84d6c9b7f
Containers:
  checkout-api:
    Image:      registry.shopco.io/checkout-api:12.8.2
    State:      Running
    Ready:      True
Conditions:
  Type           Status
  PodScheduled   True
  Ready          True
QoS Class:       Burstable
Tolerations:     workload=batch:NoSchedule
                 node.kubernetes.io/not-ready:NoExecute op=Exists for 300s
                 node.kubernetes.io/unreachable:NoExecute op=Exists for 300s
Events:
  Type    Reason     Age   From               Message
  ----    ------     ----  ----               -------
  Normal  Scheduled  33m   default-scheduler  Successfully assigned shop/{co_p[0]} to {new[0]}
"""
    bgs = [
        bg(
            "checkout-api",
            [
                "checkout-api-84d6c9b7f-q2hbx",
                "checkout-api-84d6c9b7f-w6lzr",
                "checkout-api-84d6c9b7f-e3jfn",
                co_p[0],
            ],
            ["POST /v2/checkout 200 {ms}ms", "GET /v2/checkout/{n} 200 {ms}ms"],
            1.5,
            until=start,
        ),
        bg(
            "checkout-api",
            [co_p[0]],
            ["POST /v2/checkout 200 {ms}ms"],
            3,
            **{"from": start},
        ),
        bg("cart-web", [pod_name(cart, "n8dkz")], ["GET /cart 200 {ms}ms"], 2),
    ]
    evs = [
        ev(
            "checkout-api",
            "warn",
            "request queue full (256), rejecting with 503",
            **{"from": start + 60, "to": -5, "every_s": 20},
            pod=co_p[0],
        ),
        ev(
            "cart-web",
            "error",
            "POST checkout-api.shop.svc:8080/v2/checkout -> 503 Service Unavailable",
            **{"from": start + 60, "to": -5, "every_s": 6},
            pod=pod_name(cart, "n8dkz"),
        ),
        ev(
            "checkout-api",
            "error",
            "payment provider adyen timeout after 8000ms (order {n})",
            **{"from": -6900, "to": -6300, "every_s": 60},
            pods=["checkout-api-84d6c9b7f-q2hbx", "checkout-api-84d6c9b7f-w6lzr"],
        ),
        ev(
            "platform-ci",
            "info",
            "terraform apply eks-prod: module.nodegroup_general_v2 created (copied from nodegroup_batch; taints = [{key=workload,value=batch,effect=NO_SCHEDULE}])",
            at=start - 300,
        ),
        ev(
            "platform-ci",
            "info",
            "node group general-v1 rollout: cordon+drain ip-10-52-1-20, ip-10-52-2-21",
            at=start - 10,
        ),
    ]
    return {
        "incident": {
            "title": "Checkout failing for many users",
            "service": "checkout",
            "severity": "sev1",
            "symptoms": ["503 on place order"],
            "description": "Platform is migrating node groups today.",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "platform",
            "root_cause_stage": "scheduling",
            "root_cause_reason": "FailedScheduling",
            "root_cause_component": [
                *(f"node/{n}" for n in new),
                *new,
                "nodegroup/general-v2",
                "general-v2",
                "deployment/checkout-api",
                "checkout-api",
            ],
            "root_cause_signal": "untolerated taint",
            "root_cause": "The replacement node group general-v2 was created from the batch node group's module and carries its taint workload=batch:NoSchedule. When general-v1's nodes were cordoned and drained, checkout-api's and cart-web's pods could go nowhere: 0/5 nodes available (2 unschedulable, 3 untolerated taint {workload: batch}). One checkout-api pod runs (it tolerates the taint from an old patch) and sheds load with 503. The adyen timeouts are from two hours ago.",
            "evidence": [
                "events: FailedScheduling … 3 node(s) had untolerated taint {workload: batch}",
                "describe node (general-v2): Taints workload=batch:NoSchedule",
                "kubectl get nodes: the two old nodes Ready,SchedulingDisabled",
                "terraform: nodegroup_general_v2 copied from nodegroup_batch with its taint",
            ],
            "remediation": "Remove the taint from general-v2 (kubectl taint nodes -l eks.amazonaws.com/nodegroup=general-v2 workload-, and in Terraform), or uncordon general-v1 until fixed.",
        },
        "logs": logs(seed=52, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "checkout-api",
                    "rps": 45,
                    "errors": {"503": (0.001, 0.62)},
                    "latency": (0.09, 0.4),
                },
                {
                    "name": "cart-web",
                    "rps": 80,
                    "errors": {"502": (0.0, 0.05), "503": (0.0, 0.3)},
                    "latency": (0.05, 0.2),
                },
            ],
            start=start,
            seed=52,
        ),
        "kubernetes": k8s,
        "runbooks": {
            "checkout-503.md": runbook(
                "checkout-api answering 503",
                "503 from checkout-api means its request queue is full. Scale it out: `kubectl scale deploy/checkout-api -n shop --replicas=8` and check the payment provider's status page (Adyen) for latency.",
            ),
        },
    }


# =================================================================================================
# 4. Scheduler down: a kubeadm upgrade to 1.31 left kube-scheduler's config at v1beta3 (removed);
#    the scheduler crash-loops, search-api's rollout pods stay Pending without any event.
#    The incident says "search" and blames the deploy.
# =================================================================================================


@scenario("scheduler-down")
def scheduler_down() -> dict[str, Any]:
    start = -1860
    ns = "search"
    nodes = [
        ("cp-1", "Ready", "10.60.0.11"),
        ("worker-1", "Ready", "10.60.1.21"),
        ("worker-2", "Ready", "10.60.1.22"),
        ("worker-3", "Ready", "10.60.1.23"),
    ]
    new_rs = "5f7d9c8b6"
    api = app(
        "search-api",
        image="harbor.findit.lan/search/search-api:7.3.0",
        port=8080,
        rs=new_rs,
        cluster_ip="10.96.40.8",
        desired=4,
        service=False,
        pods=[
            ("r2kxm", "0/1", "Pending", "0", "31m", -1),
            ("w8dnq", "0/1", "Pending", "0", "31m", -1),
        ],
    )
    old = app(
        "search-api",
        image="harbor.findit.lan/search/search-api:7.2.4",
        port=8080,
        rs="7c6b8d5f9",
        cluster_ip="10.96.40.8",
        pods=[
            ("b4tzl", "1/1", "Running", "0", "8d", 1),
            ("h9qvw", "1/1", "Running", "0", "8d", 2),
            ("s6jpc", "1/1", "Running", "0", "8d", 3),
        ],
    )
    idx = app(
        "search-indexer",
        image="harbor.findit.lan/search/indexer:3.0.2",
        port=8080,
        rs="6b9c7d8f5",
        cluster_ip="10.96.40.30",
        pods=[("k3mfx", "1/1", "Running", "2 (3h ago)", "12d", 2)],
    )
    k8s = namespace(
        ns,
        [(n, s, ip) for n, s, ip in nodes],
        [api, old, idx],
        seed=60,
        extra_namespaces=("kube-system",),
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
                    s,
                    "control-plane" if n == "cp-1" else "<none>",
                    "412d",
                    "v1.31.3",
                    ip,
                    "<none>",
                    "Ubuntu 22.04.5 LTS",
                    "5.15.0-126-generic",
                    "containerd://1.7.24",
                ]
                for n, s, ip in nodes
            ],
        ]
    )
    k8s[f"kubectl get deployments -n {ns} -o wide"] = base.deployments(
        [
            (
                "search-api",
                "3/4",
                "2",
                "3",
                "300d",
                "search-api",
                "harbor.findit.lan/search/search-api:7.3.0",
                "app=search-api",
            ),
            (
                "search-indexer",
                "1/1",
                "1",
                "1",
                "300d",
                "search-indexer",
                "harbor.findit.lan/search/indexer:3.0.2",
                "app=search-indexer",
            ),
        ]
    )
    np_ = [pod_name(api, "r2kxm"), pod_name(api, "w8dnq")]
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "3h",
                "Warning",
                "BackOff",
                f"Pod/{pod_name(idx, 'k3mfx')}",
                "Back-off restarting failed container indexer",
            ),
            (
                "31m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/search-api",
                f"Scaled up replica set search-api-{new_rs} to 1",
            ),
            (
                "31m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/search-api",
                "Scaled down replica set search-api-7c6b8d5f9 to 3 from 4",
            ),
            (
                "31m",
                "Normal",
                "SuccessfulCreate",
                f"ReplicaSet/search-api-{new_rs}",
                f"Created pod: {np_[0]}",
            ),
            (
                "31m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/search-api",
                f"Scaled up replica set search-api-{new_rs} to 2 from 1",
            ),
            (
                "31m",
                "Normal",
                "SuccessfulCreate",
                f"ReplicaSet/search-api-{new_rs}",
                f"Created pod: {np_[1]}",
            ),
        ]
    )
    k8s[f"kubectl describe pods {np_[0]} -n {ns}"] = f"""Name:             {np_[0]}
Namespace:        {ns}
Priority:         0
Node:             <none>
Labels:           app=search-api
                  pod-template-hash={new_rs}
Status:           Pending
IP:
Controlled By:    ReplicaSet/search-api-{new_rs}
Containers:
  search-api:
    Image:      harbor.findit.lan/search/search-api:7.3.0
    Port:       8080/TCP
    Requests:
      cpu:     500m
      memory:  1Gi
QoS Class:       Burstable
Node-Selectors:  <none>
{TOLERATIONS}
Events:          <none>
"""
    k8s["kubectl get pods -n kube-system -o wide --show-labels"] = base.pods(
        [
            (
                "coredns-7c65d6cfc9-8hvqz",
                "1/1",
                "Running",
                "0",
                "47d",
                "10.244.1.3",
                "worker-1",
                "k8s-app=kube-dns,pod-template-hash=7c65d6cfc9",
            ),
            (
                "coredns-7c65d6cfc9-t2mlw",
                "1/1",
                "Running",
                "0",
                "47d",
                "10.244.2.4",
                "worker-2",
                "k8s-app=kube-dns,pod-template-hash=7c65d6cfc9",
            ),
            (
                "etcd-cp-1",
                "1/1",
                "Running",
                "0",
                "47d",
                "10.60.0.11",
                "cp-1",
                "component=etcd,tier=control-plane",
            ),
            (
                "kube-apiserver-cp-1",
                "1/1",
                "Running",
                "1 (35m ago)",
                "47d",
                "10.60.0.11",
                "cp-1",
                "component=kube-apiserver,tier=control-plane",
            ),
            (
                "kube-controller-manager-cp-1",
                "1/1",
                "Running",
                "1 (35m ago)",
                "47d",
                "10.60.0.11",
                "cp-1",
                "component=kube-controller-manager,tier=control-plane",
            ),
            (
                "kube-proxy-5zq8r",
                "1/1",
                "Running",
                "0",
                "47d",
                "10.60.1.21",
                "worker-1",
                "controller-revision-hash=6d4b7f9c8,k8s-app=kube-proxy",
            ),
            (
                "kube-proxy-9wkt2",
                "1/1",
                "Running",
                "0",
                "47d",
                "10.60.1.22",
                "worker-2",
                "controller-revision-hash=6d4b7f9c8,k8s-app=kube-proxy",
            ),
            (
                "kube-proxy-mx4hd",
                "1/1",
                "Running",
                "0",
                "47d",
                "10.60.1.23",
                "worker-3",
                "controller-revision-hash=6d4b7f9c8,k8s-app=kube-proxy",
            ),
            (
                "kube-scheduler-cp-1",
                "0/1",
                "CrashLoopBackOff",
                "11 (2m ago)",
                "47d",
                "10.60.0.11",
                "cp-1",
                "component=kube-scheduler,tier=control-plane",
            ),
        ]
    )
    k8s["kubectl events -n kube-system"] = events(
        [
            (
                "35m",
                "Normal",
                "Pulled",
                "Pod/kube-scheduler-cp-1",
                'Container image "registry.k8s.io/kube-scheduler:v1.31.3" already present on machine',
            ),
            (
                "35m",
                "Normal",
                "Started",
                "Pod/kube-scheduler-cp-1",
                "Started container kube-scheduler",
            ),
            (
                "2m (x11 over 34m)",
                "Warning",
                "BackOff",
                "Pod/kube-scheduler-cp-1",
                "Back-off restarting failed container kube-scheduler in pod kube-scheduler-cp-1_kube-system",
            ),
        ]
    )
    k8s[
        "kubectl describe pods kube-scheduler-cp-1 -n kube-system"
    ] = f"""Name:                 kube-scheduler-cp-1
Namespace:            kube-system
Priority:             2000001000
Priority Class Name:  system-node-critical
Node:                 cp-1/10.60.0.11
Labels:               component=kube-scheduler
                      tier=control-plane
Annotations:          kubernetes.io/config.source: file
Status:               Running
Controlled By:        Node/cp-1
Containers:
  kube-scheduler:
    Image:         registry.k8s.io/kube-scheduler:v1.31.3
    Command:
      kube-scheduler
      --config=/etc/kubernetes/scheduler-config.yaml
      --kubeconfig=/etc/kubernetes/scheduler.conf
      --leader-elect=true
    State:          Waiting
      Reason:       CrashLoopBackOff
    Last State:     Terminated
      Reason:       Error
      Exit Code:    1
      Started:      {when(-150)}
      Finished:     {when(-149)}
    Ready:          False
    Restart Count:  11
Events:
  Type     Reason   Age                 From     Message
  ----     ------   ----                ----     -------
  Warning  BackOff  2m (x11 over 34m)   kubelet  Back-off restarting failed container kube-scheduler in pod kube-scheduler-cp-1_kube-system
"""
    sched_log = (
        "I1205 13:57:30.118240       1 serving.go:386] Generated self-signed cert in-memory\n"
        'E1205 13:57:30.412877       1 run.go:72] "command failed" err="no kind \\"KubeSchedulerConfiguration\\" is registered for version \\"kubescheduler.config.k8s.io/v1beta3\\" in scheme \\"pkg/scheduler/apis/config/scheme/scheme.go:30\\""\n'
    )
    k8s["kubectl logs kube-scheduler-cp-1 -n kube-system --tail=1000"] = sched_log
    k8s["kubectl logs kube-scheduler-cp-1 -n kube-system --previous --tail=1000"] = (
        sched_log
    )
    live = [pod_name(old, s[0]) for s in old["pods"]]
    bgs = [
        bg(
            "search-api",
            live,
            ["GET /v1/search?q=… 200 {ms}ms", "GET /v1/suggest 200 {ms}ms"],
            1,
        ),
        bg(
            "search-indexer",
            [pod_name(idx, "k3mfx")],
            ["indexed batch of {n} documents"],
            30,
        ),
    ]
    evs = [
        ev(
            "search-indexer",
            "error",
            "elasticsearch bulk rejected: es_rejected_execution_exception (queue 200)",
            **{"from": -11000, "to": -10500, "every_s": 60},
            pod=pod_name(idx, "k3mfx"),
        ),
        ev(
            "search-api",
            "warn",
            "worker pool busy: 58/64, p99 {ms}0ms",
            **{"from": start + 120, "to": -5, "every_s": 40},
            pods=live,
        ),
        ev(
            "kubeadm",
            "info",
            '[upgrade/successful] SUCCESS! Your cluster was upgraded to "v1.31.3". (scheduler config /etc/kubernetes/scheduler-config.yaml kept: apiVersion kubescheduler.config.k8s.io/v1beta3)',
            at=start - 240,
            labels={"node": "cp-1"},
        ),
        ev(
            "kube-scheduler",
            "error",
            'command failed err="no kind \\"KubeSchedulerConfiguration\\" is registered for version \\"kubescheduler.config.k8s.io/v1beta3\\""',
            **{"from": start - 200, "to": -150, "every_s": 300},
            labels={"node": "cp-1", "pod": "kube-scheduler-cp-1"},
        ),
        ev(
            "argocd",
            "info",
            "search/search-api synced: image search-api:7.2.4 -> 7.3.0",
            at=start,
        ),
    ]
    return {
        "incident": {
            "title": "search slow after today's deploy",
            "service": "search",
            "severity": "sev3",
            "symptoms": ["deploy of 7.3.0 never finished"],
            "description": "",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "platform",
            "root_cause_stage": "infrastructure",
            "root_cause_reason": "CrashLoopBackOff",
            "root_cause_component": [
                "pod/kube-scheduler-cp-1",
                "kube-scheduler-cp-1",
                "kube-scheduler",
            ],
            "root_cause_signal": "KubeSchedulerConfiguration",
            "root_cause": "kubeadm upgraded the control plane to 1.31.3 and kept /etc/kubernetes/scheduler-config.yaml at kubescheduler.config.k8s.io/v1beta3, which 1.29+ no longer serves: kube-scheduler exits at start and crash-loops. Nothing is scheduled: search-api 7.3.0's two new pods stay Pending with no events at all (no Scheduled, no FailedScheduling), the rollout has taken one of the four 7.2.4 pods away, and the three left are busy. The 7.3.0 image is not at fault; the indexer's rejections are three hours old.",
            "evidence": [
                "kube-system: kube-scheduler-cp-1 CrashLoopBackOff, 11 restarts",
                'kube-scheduler logs: no kind "KubeSchedulerConfiguration" is registered for version v1beta3',
                "search-api 7.3.0 pods Pending, Node <none>, Events <none>",
                "kubeadm: upgraded to v1.31.3 4 minutes before the rollout",
            ],
            "remediation": "Rewrite scheduler-config.yaml to kubescheduler.config.k8s.io/v1 on cp-1 (the kubelet restarts the static pod); the Pending pods are then scheduled.",
        },
        "logs": logs(seed=60, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "search-api",
                    "rps": 120,
                    "errors": {"503": (0.0, 0.02)},
                    "latency": (0.08, 0.35),
                }
            ],
            start=start,
            seed=60,
            gauges=[
                {
                    "name": "scheduler_pending_pods",
                    "labels": {"queue": "unschedulable"},
                    "before": 0,
                    "after": 0,
                },
                {
                    "name": "up",
                    "labels": {"job": "kube-scheduler", "instance": "10.60.0.11:10259"},
                    "before": 1,
                    "after": 0,
                    "change_at": start - 200,
                    "noise": 0,
                },
            ],
        ),
        "kubernetes": k8s,
        "runbooks": {
            "bad-deploy.md": runbook(
                "A deploy made a service slow",
                "If latency rose right after a deploy, roll it back first and investigate later: `kubectl rollout undo deployment/<name> -n <ns>`.",
            ),
        },
    }


# =================================================================================================
# 5. An init container waiting on a missing Secret: order-router's migrate init container reads the
#    DB password from a Secret that a Vault sync renamed. Init:CreateContainerConfigError.
# =================================================================================================


@scenario("init-missing-secret")
def init_missing_secret() -> dict[str, Any]:
    start = -1440
    ns = "orders"
    nodes = [
        ("ip-10-71-1-15.us-east-2.compute.internal", "Ready", "10.71.1.15"),
        ("ip-10-71-2-16.us-east-2.compute.internal", "Ready", "10.71.2.16"),
    ]
    new_rs = "69d8c7b5f"
    router = app(
        "order-router",
        image="quay.io/shipfast/order-router:5.0.0",
        port=8080,
        rs=new_rs,
        cluster_ip="172.20.71.5",
        desired=3,
        service=False,
        pods=[("f4gxk", "0/1", "Init:CreateContainerConfigError", "0", "24m", 0)],
    )
    old = app(
        "order-router",
        image="quay.io/shipfast/order-router:4.9.3",
        port=8080,
        rs="7b5c9d6f8",
        cluster_ip="172.20.71.5",
        pods=[
            ("j6ktm", "1/1", "Running", "0", "15d", 0),
            ("q2wzn", "1/1", "Running", "0", "15d", 1),
        ],
    )
    worker = app(
        "checkout-worker",
        image="quay.io/shipfast/checkout-worker:2.2.0",
        port=8080,
        rs="5d7f8b9c6",
        service=False,
        pods=[("n5lrp", "1/1", "Running", "0", "15d", 1)],
    )
    k8s = namespace(
        ns,
        nodes,
        [router, old, worker],
        seed=71,
        secrets=[
            ("order-router-db-v2", "Opaque", "2", "26m"),
            ("order-router-tls", "kubernetes.io/tls", "2", "200d"),
        ],
    )
    k8s[f"kubectl get deployments -n {ns} -o wide"] = base.deployments(
        [
            (
                "order-router",
                "2/3",
                "1",
                "2",
                "300d",
                "order-router",
                "quay.io/shipfast/order-router:5.0.0",
                "app=order-router",
            ),
            (
                "checkout-worker",
                "1/1",
                "1",
                "1",
                "300d",
                "checkout-worker",
                "quay.io/shipfast/checkout-worker:2.2.0",
                "app=checkout-worker",
            ),
        ]
    )
    pn = pod_name(router, "f4gxk")
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "24m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/order-router",
                f"Scaled up replica set order-router-{new_rs} to 1",
            ),
            (
                "24m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/order-router",
                "Scaled down replica set order-router-7b5c9d6f8 to 2 from 3",
            ),
            (
                "24m",
                "Normal",
                "Scheduled",
                f"Pod/{pn}",
                f"Successfully assigned orders/{pn} to {nodes[0][0]}",
            ),
            (
                "2m (x110 over 24m)",
                "Warning",
                "Failed",
                f"Pod/{pn}",
                'Error: secret "order-router-db" not found',
            ),
            (
                "2m (x110 over 24m)",
                "Normal",
                "Pulled",
                f"Pod/{pn}",
                'Container image "quay.io/shipfast/order-router:5.0.0" already present on machine',
            ),
        ]
    )
    k8s[f"kubectl describe pods {pn} -n {ns}"] = f"""Name:             {pn}
Namespace:        {ns}
Node:             {nodes[0][0]}/10.71.1.15
Start Time:       {when(start + 10)}
Labels:           app=order-router
                  pod-template-hash={new_rs}
Status:           Pending
Controlled By:    ReplicaSet/order-router-{new_rs}
Init Containers:
  migrate:
    Image:      quay.io/shipfast/order-router:5.0.0
    Command:    /app/bin/migrate --wait
    State:      Waiting
      Reason:   CreateContainerConfigError
    Ready:      False
    Restart Count:  0
    Environment:
      DB_HOST:      orders-db.orders.svc
      DB_PASSWORD:  <set to the key 'password' in secret 'order-router-db'>  Optional: false
Containers:
  order-router:
    Image:      quay.io/shipfast/order-router:5.0.0
    Port:       8080/TCP
    State:      Waiting
      Reason:   PodInitializing
    Ready:      False
Conditions:
  Type              Status
  Initialized       False
  Ready             False
  PodScheduled      True
Events:
  Type     Reason   Age                  From     Message
  ----     ------   ----                 ----     -------
  Normal   Pulled   2m (x110 over 24m)   kubelet  Container image "quay.io/shipfast/order-router:5.0.0" already present on machine
  Warning  Failed   2m (x110 over 24m)   kubelet  Error: secret "order-router-db" not found
"""
    live = [pod_name(old, "j6ktm"), pod_name(old, "q2wzn")]
    wp = pod_name(worker, "n5lrp")
    bgs = [
        bg(
            "order-router",
            live,
            [
                "POST /route order={n} carrier=dhl 200 {ms}ms",
                "POST /route order={n} carrier=ups 200 {ms}ms",
            ],
            1.2,
        ),
        bg("checkout-worker", [wp], ["consumed order.created {n}"], 3),
    ]
    evs = [
        ev(
            "checkout-worker",
            "warn",
            "routing lag {n} ms: order-router answered slowly, retrying",
            **{"from": start + 120, "to": -5, "every_s": 25},
            pod=wp,
        ),
        ev(
            "checkout-worker",
            "error",
            "order {n}: route request timed out after 5000ms",
            **{"from": start + 300, "to": -5, "every_s": 40},
            pod=wp,
        ),
        ev(
            "external-secrets",
            "info",
            "ExternalSecret orders/order-router-db-v2 synced from vault path kv/orders/router-db (renamed from order-router-db)",
            at=start - 120,
        ),
        ev(
            "external-secrets",
            "warn",
            "ExternalSecret payments/stripe-keys: SecretSyncedError: could not get secret data from provider",
            at=-8000,
        ),
        ev(
            "argocd",
            "info",
            "orders/order-router synced: 4.9.3 -> 5.0.0 (adds init container migrate)",
            at=start,
        ),
    ]
    return {
        "incident": {
            "title": "Order routing slow, deploy 5.0.0 stuck",
            "service": "order-router",
            "severity": "sev3",
            "symptoms": [
                "checkout-worker routing timeouts",
                "rollout of 5.0.0 not progressing after 20 minutes",
            ],
            "description": "Argo CD shows order-router Progressing.",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "platform",
            "root_cause_stage": "startup",
            "root_cause_reason": "CreateContainerConfigError",
            "root_cause_component": [
                "deployment/order-router",
                "order-router",
                f"pod/{pn}",
                "secret/order-router-db",
            ],
            "root_cause_signal": "CreateContainerConfigError",
            "root_cause": "order-router 5.0.0 adds an init container (migrate) whose DB_PASSWORD comes from Secret order-router-db; two minutes earlier the Vault sync was renamed and now writes order-router-db-v2, so the Secret the pod references does not exist. The new pod sits in Init:CreateContainerConfigError, the rolling update has removed one of three old pods and stops there; two pods carry the load and checkout-worker times out. The external-secrets error about stripe-keys is from two hours ago in another namespace.",
            "evidence": [
                "kubectl get pods: order-router-69d8c7b5f-f4gxk Init:CreateContainerConfigError",
                'events / describe: Error: secret "order-router-db" not found (init container migrate, DB_PASSWORD)',
                "kubectl get secrets: only order-router-db-v2",
                "external-secrets: order-router-db-v2 synced (renamed from order-router-db)",
            ],
            "remediation": "Point the init container at order-router-db-v2 (or restore the old Secret name in the ExternalSecret); the rollout then completes.",
        },
        "logs": logs(seed=71, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "order-router",
                    "rps": 30,
                    "errors": {"503": (0.0, 0.01)},
                    "latency": (0.06, 1.8),
                },
                {
                    "name": "checkout-worker",
                    "rps": 10,
                    "errors": {"500": (0.0, 0.06)},
                    "latency": (0.2, 2.5),
                },
            ],
            start=start,
            seed=71,
        ),
        "kubernetes": k8s,
        "runbooks": {
            "routing-lag.md": runbook(
                "Order routing lag",
                "Routing lag is usually the carriers' APIs (DHL, UPS). Check their status pages and scale checkout-worker to drain the queue faster: `kubectl scale deploy/checkout-worker -n orders --replicas=4`.",
            ),
        },
    }


# =================================================================================================
# 6. A ConfigMap edit just before the start: Reloader rolls points-api; the new pods crash on the
#    edited value, the rollout stalls with one old pod gone. The incident says "loyalty".
# =================================================================================================


@scenario("configmap-edit-rollout")
def configmap_edit_rollout() -> dict[str, Any]:
    start = -1200
    ns = "loyalty"
    nodes = [
        ("ip-10-83-1-30.eu-west-2.compute.internal", "Ready", "10.83.1.30"),
        ("ip-10-83-2-31.eu-west-2.compute.internal", "Ready", "10.83.2.31"),
        ("ip-10-83-3-32.eu-west-2.compute.internal", "Ready", "10.83.3.32"),
    ]
    new_rs = "8b6d5c7f9"
    new = app(
        "points-api",
        image="ghcr.io/loyalco/points-api:3.14.2",
        port=8000,
        rs=new_rs,
        desired=3,
        service=False,
        pods=[("t3wkq", "0/1", "CrashLoopBackOff", "8 (90s ago)", "19m", 0)],
    )
    old = app(
        "points-api",
        image="ghcr.io/loyalco/points-api:3.14.2",
        port=8000,
        rs="5c9f7b8d6",
        cluster_ip="172.20.83.9",
        pods=[
            ("g8mzx", "1/1", "Running", "0", "6d", 1),
            ("p5rvd", "1/1", "Running", "0", "6d", 2),
        ],
    )
    redis = app(
        "points-redis",
        image="redis:7.2.6",
        port=6379,
        rs="",
        kind="StatefulSet",
        cluster_ip="172.20.83.40",
        pods=[("0", "1/1", "Running", "0", "90d", 1)],
    )
    k8s = namespace(
        ns,
        nodes,
        [new, old, redis],
        seed=83,
        configmaps=[("points-api-config", "9", "200d")],
        statefulsets=table(
            [
                ["NAME", "READY", "AGE", "CONTAINERS", "IMAGES"],
                ["points-redis", "1/1", "90d", "redis", "redis:7.2.6"],
            ]
        ),
    )
    k8s[f"kubectl get deployments -n {ns} -o wide"] = base.deployments(
        [
            (
                "points-api",
                "2/3",
                "1",
                "2",
                "200d",
                "points-api",
                "ghcr.io/loyalco/points-api:3.14.2",
                "app=points-api",
            )
        ]
    )
    pn = pod_name(new, "t3wkq")
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "20m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/points-api",
                f"Scaled up replica set points-api-{new_rs} to 1",
            ),
            (
                "20m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/points-api",
                "Scaled down replica set points-api-5c9f7b8d6 to 2 from 3",
            ),
            ("19m", "Normal", "Started", f"Pod/{pn}", "Started container points-api"),
            (
                "90s (x8 over 19m)",
                "Warning",
                "BackOff",
                f"Pod/{pn}",
                "Back-off restarting failed container points-api in pod " + pn,
            ),
        ]
    )
    k8s[
        f"kubectl describe deployments points-api -n {ns}"
    ] = f"""Name:                   points-api
Namespace:              {ns}
CreationTimestamp:      {when(-200 * 86400)}
Labels:                 app=points-api
Annotations:            configmap.reloader.stakater.com/reload: points-api-config
                        deployment.kubernetes.io/revision: 58
Selector:               app=points-api
Replicas:               3 desired | 1 updated | 3 total | 2 available | 1 unavailable
StrategyType:           RollingUpdate
RollingUpdateStrategy:  1 max unavailable, 0 max surge
Pod Template:
  Labels:       app=points-api
  Annotations:  reloader.stakater.com/last-reloaded-from: {{"type":"CONFIGMAP","name":"points-api-config","hash":"4e1c0a"}}
  Containers:
   points-api:
    Image:      ghcr.io/loyalco/points-api:3.14.2
    Port:       8000/TCP
    Environment Variables from:
      points-api-config  ConfigMap  Optional: false
Conditions:
  Type           Status  Reason
  ----           ------  ------
  Available      True    MinimumReplicasAvailable
  Progressing    True    ReplicaSetUpdated
OldReplicaSets:  points-api-5c9f7b8d6 (2/2 replicas created)
NewReplicaSet:   points-api-{new_rs} (1/1 replicas created)
Events:
  Type    Reason             Age   From                   Message
  ----    ------             ----  ----                   -------
  Normal  ScalingReplicaSet  20m   deployment-controller  Scaled up replica set points-api-{new_rs} to 1
  Normal  ScalingReplicaSet  20m   deployment-controller  Scaled down replica set points-api-5c9f7b8d6 to 2 from 3
"""
    k8s[
        f"kubectl describe configmaps points-api-config -n {ns}"
    ] = """Name:         points-api-config
Namespace:    loyalty
Labels:       app=points-api
Annotations:  <none>

Data
====
LOG_LEVEL:
----
info
MAX_POINTS_PER_ORDER:
----
10k
POINTS_PER_EURO:
----
2
REDIS_URL:
----
redis://points-redis:6379/0
TIER_THRESHOLDS:
----
silver=1000,gold=5000,platinum=20000

BinaryData
====

Events:  <none>
"""
    k8s[f"kubectl logs {pn} -n {ns} -c points-api --previous --tail=1000"] = (
        "INFO:     Started server process [1]\n"
        "INFO:     Waiting for application startup.\n"
        "ERROR:    Traceback (most recent call last):\n"
        '  File "/app/points/settings.py", line 41, in load\n'
        '    max_points = int(os.environ["MAX_POINTS_PER_ORDER"])\n'
        "ValueError: invalid literal for int() with base 10: '10k'\n"
        "ERROR:    Application startup failed. Exiting.\n"
    )
    k8s[f"kubectl logs {pn} -n {ns} -c points-api --tail=1000"] = (
        "INFO:     Started server process [1]\nINFO:     Waiting for application startup.\n"
    )
    live = [pod_name(old, "g8mzx"), pod_name(old, "p5rvd")]
    bgs = [
        bg(
            "points-api",
            live,
            ["POST /v1/earn 200 {ms}ms", "GET /v1/balance 200 {ms}ms"],
            1.5,
        ),
        bg(
            "checkout-api",
            ["checkout-api-0", "checkout-api-1"],
            ["POST /orders 201 {ms}ms"],
            2,
        ),
    ]
    evs = [
        ev(
            "kubectl-audit",
            "info",
            "configmap loyalty/points-api-config updated by jane.doe@loyalco.io: MAX_POINTS_PER_ORDER 10000 -> 10k",
            at=start - 180,
        ),
        ev(
            "reloader",
            "info",
            "Changes detected in 'points-api-config' of type 'CONFIGMAP' in namespace 'loyalty'; updated 'points-api' of type 'Deployment'",
            at=start - 175,
        ),
        ev(
            "points-api",
            "warn",
            "redis latency {ms}ms above 50ms budget (points-redis)",
            **{"from": -6000, "to": -5, "every_s": 240},
            pods=live,
        ),
        ev(
            "points-api",
            "warn",
            "request queue 180/200, shedding",
            **{"from": start + 200, "to": -5, "every_s": 60},
            pods=live,
        ),
        ev(
            "checkout-api",
            "error",
            "loyalty earn call failed: 503 from points-api.loyalty.svc:8000 (order {n}); points not credited",
            **{"from": start + 200, "to": -5, "every_s": 15},
            pods=["checkout-api-0", "checkout-api-1"],
        ),
    ]
    return {
        "incident": {
            "title": "Loyalty points not credited on orders",
            "service": "loyalty",
            "severity": "sev3",
            "symptoms": [],
            "description": "Customer complaints: orders placed in the last 20 minutes show no points.",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "application",
            "root_cause_stage": "runtime",
            "root_cause_reason": "CrashLoopBackOff",
            "root_cause_component": [
                "configmap/points-api-config",
                "points-api-config",
                "deployment/points-api",
                "points-api",
            ],
            "root_cause_signal": "10k",
            "root_cause": "Three minutes before the start someone edited ConfigMap points-api-config: MAX_POINTS_PER_ORDER 10000 -> '10k'. Reloader restarted points-api; the new pod fails at startup (int('10k'): ValueError, only in its previous logs) and crash-loops. With 1 max unavailable and no surge the rollout took one of three pods away and stalls; the two old pods (still on the old environment) shed load, and checkout-api's earn calls get 503. The redis latency warnings predate the incident.",
            "evidence": [
                "kubectl describe configmap points-api-config: MAX_POINTS_PER_ORDER 10k",
                "previous logs of the new pod: ValueError: invalid literal for int() with base 10: '10k'",
                "audit: points-api-config updated (10000 -> 10k); reloader updated points-api",
                "deployment points-api: 1 updated, 2 available, 1 unavailable",
            ],
            "remediation": "Set MAX_POINTS_PER_ORDER back to 10000; Reloader rolls again and the pods start. Validate the ConfigMap in CI (schema) and give the rollout a surge.",
        },
        "logs": logs(seed=83, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "points-api",
                    "rps": 40,
                    "errors": {"503": (0.0, 0.27)},
                    "latency": (0.03, 0.3),
                },
                {
                    "name": "checkout-api",
                    "rps": 25,
                    "errors": {"500": (0.001, 0.001)},
                    "latency": (0.15, 0.2),
                },
            ],
            start=start,
            seed=83,
        ),
        "kubernetes": k8s,
        "runbooks": {
            "points-missing.md": runbook(
                "Points missing on orders",
                "Missing points are usually points-redis being slow or full: check redis latency and `INFO memory`, and replay the earn events from the orders topic once it recovers.",
            ),
        },
    }


# =================================================================================================
# 7. A readiness probe on the wrong port: the reviews-api chart moved health to the app port, the
#    probe still asks :8081. Pods Running 0/1, no restarts, the Service has no endpoints.
#    The incident says "reviews".
# =================================================================================================


@scenario("readiness-wrong-port")
def readiness_wrong_port() -> dict[str, Any]:
    start = -1620
    ns = "reviews"
    nodes = [
        ("gke-prod-pool-1-4a8c2f1e-7k2q", "Ready", "10.128.0.21"),
        ("gke-prod-pool-1-4a8c2f1e-m9zx", "Ready", "10.128.0.22"),
    ]
    rs = "7f8c6d9b5"
    rv = app(
        "reviews-api",
        image="europe-docker.pkg.dev/acme-prod/reviews/reviews-api:3.0.0",
        port=8080,
        rs=rs,
        cluster_ip="10.4.12.30",
        pods=[
            ("b7xkp", "0/1", "Running", "0", "27m", 0),
            ("j2qwn", "0/1", "Running", "0", "27m", 1),
            ("v5mtz", "0/1", "Running", "0", "27m", 0),
        ],
        extra_rs=[
            (
                "reviews-api-5d9b7c6f8",
                "0",
                "0",
                "0",
                "60d",
                "reviews-api",
                "europe-docker.pkg.dev/acme-prod/reviews/reviews-api:2.11.4",
                "app=reviews-api,pod-template-hash=5d9b7c6f8",
            )
        ],
    )
    pp = app(
        "product-page",
        image="europe-docker.pkg.dev/acme-prod/web/product-page:9.2.0",
        port=3000,
        rs="6c5d8b9f7",
        cluster_ip="10.4.12.10",
        pods=[
            ("c4lrt", "1/1", "Running", "0", "3d", 0),
            ("h8vns", "1/1", "Running", "0", "3d", 1),
        ],
    )
    k8s = namespace(ns, nodes, [rv, pp], seed=128)
    k8s["kubectl get nodes -o wide"] = k8s["kubectl get nodes -o wide"].replace(
        EKS, "v1.30.5-gke.1014001"
    )
    rp = [pod_name(rv, s[0]) for s in rv["pods"]]
    ip = ips_of(k8s, ns)

    def probe(p, ip):
        return f'Readiness probe failed: Get "http://{ip}:8081/ready": dial tcp {ip}:8081: connect: connection refused'

    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "28m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/reviews-api",
                "Scaled down replica set reviews-api-5d9b7c6f8 to 0 from 3",
            ),
            (
                "27m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/reviews-api",
                f"Scaled up replica set reviews-api-{rs} to 3",
            ),
            *[
                (
                    "1m (x160 over 27m)",
                    "Warning",
                    "Unhealthy",
                    f"Pod/{p}",
                    probe(p, ip[p]),
                )
                for p in rp
            ],
        ]
    )
    k8s[f"kubectl get endpoints -n {ns}"] = base.endpoints(
        [
            ("reviews-api", "<none>", "300d"),
            (
                "product-page",
                f"{ip[pod_name(pp, 'c4lrt')]}:3000,{ip[pod_name(pp, 'h8vns')]}:3000",
                "300d",
            ),
        ]
    )
    k8s[f"kubectl describe pods {rp[0]} -n {ns}"] = f"""Name:             {rp[0]}
Namespace:        {ns}
Node:             {nodes[0][0]}/10.128.0.21
Start Time:       {when(start)}
Labels:           app=reviews-api
                  pod-template-hash={rs}
Status:           Running
IP:               {ip[rp[0]]}
Controlled By:    ReplicaSet/reviews-api-{rs}
Containers:
  reviews-api:
    Image:          europe-docker.pkg.dev/acme-prod/reviews/reviews-api:3.0.0
    Port:           8080/TCP
    State:          Running
      Started:      {when(start + 8)}
    Ready:          False
    Restart Count:  0
    Liveness:       tcp-socket :8080 delay=10s timeout=1s period=10s #success=1 #failure=3
    Readiness:      http-get http://:8081/ready delay=5s timeout=1s period=10s #success=1 #failure=3
Conditions:
  Type              Status
  Initialized       True
  Ready             False
  ContainersReady   False
  PodScheduled      True
Events:
  Type     Reason     Age                  From     Message
  ----     ------     ----                 ----     -------
  Warning  Unhealthy  1m (x160 over 27m)   kubelet  {probe(rp[0], ip[rp[0]])}
"""
    k8s[
        f"kubectl describe services reviews-api -n {ns}"
    ] = f"""Name:                     reviews-api
Namespace:                {ns}
Labels:                   app=reviews-api
Selector:                 app=reviews-api
Type:                     ClusterIP
IP:                       10.4.12.30
Port:                     http  8080/TCP
TargetPort:               8080/TCP
Endpoints:
Session Affinity:         None
Events:                   <none>
"""
    k8s[f"kubectl logs {rp[0]} -n {ns} -c reviews-api --tail=1000"] = (
        "2026-12-05T13:33:10Z INFO reviews-api 3.0.0 listening on :8080 (health on the app port since 3.0: /ready, /live)\n"
        "2026-12-05T13:33:10Z INFO management server removed (was :8081)\n"
        "2026-12-05T13:33:11Z INFO connected to postgres reviews-db:5432\n"
    )
    pps = [pod_name(pp, "c4lrt"), pod_name(pp, "h8vns")]
    bgs = [
        bg(
            "reviews-api",
            [
                "reviews-api-5d9b7c6f8-2kdmw",
                "reviews-api-5d9b7c6f8-9xlqc",
                "reviews-api-5d9b7c6f8-tz6pn",
            ],
            ["GET /v1/products/{n}/reviews 200 {ms}ms"],
            1,
            until=start - 60,
        ),
        bg("product-page", pps, ["GET /p/{n} 200 {ms}ms"], 0.8),
    ]
    evs = [
        ev(
            "product-page",
            "error",
            "reviews fetch failed: connect ECONNREFUSED 10.4.12.30:8080 (reviews-api.reviews.svc); rendering without reviews",
            **{"from": start + 30, "to": -2, "every_s": 3},
            pods=pps,
        ),
        ev(
            "product-page",
            "warn",
            "elasticsearch suggest slow: {ms}0ms",
            **{"from": -7000, "to": -5500, "every_s": 120},
            pods=pps,
        ),
        ev(
            "reviews-api",
            "info",
            "reviews-api 3.0.0 listening on :8080 (health on the app port since 3.0: /ready, /live)",
            at=start + 8,
            pods=rp,
        ),
        ev(
            "helm",
            "info",
            "upgrade reviews-api chart 2.x -> 3.0.0 (values: probes.readiness.port 8081 kept from values-prod.yaml)",
            at=start - 30,
        ),
    ]
    return {
        "incident": {
            "title": "No reviews on product pages",
            "service": "reviews",
            "severity": "sev3",
            "symptoms": ["review widget empty on every product"],
            "description": "",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "application",
            "root_cause_stage": "runtime",
            "root_cause_reason": "Unhealthy",
            "root_cause_component": ["deployment/reviews-api", "reviews-api"],
            "root_cause_signal": ":8081/ready",
            "root_cause": "reviews-api 3.0.0 serves /ready on its app port 8080 and no longer runs the management server on 8081, but values-prod.yaml kept probes.readiness.port 8081. The readiness probe is refused on every pod, so all three stay Running 0/1 (no restarts: the liveness probe is a TCP check on 8080) and the Service has no endpoints; product-page's connections to the ClusterIP are refused and it renders without reviews. The 2.11.4 ReplicaSet is already at 0.",
            "evidence": [
                "kubectl get pods: reviews-api pods Running 0/1, 0 restarts",
                "events: Readiness probe failed: Get http://…:8081/ready: connect: connection refused",
                "kubectl get endpoints: reviews-api <none>",
                "reviews-api log: health on the app port since 3.0; management server removed (was :8081)",
            ],
            "remediation": "Set the readiness probe to port 8080 (/ready) in values-prod.yaml and roll out; endpoints fill at once.",
        },
        "logs": logs(seed=128, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "reviews-api",
                    "rps": 60,
                    "rps_after": 0,
                    "latency": (0.04, 0.04),
                },
                {
                    "name": "product-page",
                    "rps": 90,
                    "errors": {"500": (0.002, 0.002)},
                    "latency": (0.12, 0.15),
                },
            ],
            start=start,
            seed=128,
        ),
        "kubernetes": k8s,
        "runbooks": {
            "reviews-db.md": runbook(
                "reviews-api unavailable",
                "When reviews-api is unavailable, check reviews-db first: connection count, replication lag, and fail over to the replica with `make -C ops/db failover DB=reviews-db`.",
            ),
        },
    }


# =================================================================================================
# 8. A PodDisruptionBudget blocking a drain: geo-api's PDB allows 0 disruptions; the node group
#    upgrade cannot evict it and times out. The incident names the upgrade pipeline.
# =================================================================================================


@scenario("pdb-blocks-drain")
def pdb_blocks_drain() -> dict[str, Any]:
    start = -2700
    ns = "geo"
    nodes = [
        (
            "ip-10-95-1-40.ap-southeast-2.compute.internal",
            "Ready,SchedulingDisabled",
            "10.95.1.40",
            "88d",
        ),
        ("ip-10-95-2-41.ap-southeast-2.compute.internal", "Ready", "10.95.2.41", "88d"),
        ("ip-10-95-3-12.ap-southeast-2.compute.internal", "Ready", "10.95.3.12", "46m"),
    ]
    draining = nodes[0][0]
    geo = app(
        "geo-api",
        image="public.ecr.aws/mapsly/geo-api:6.1.0",
        port=8080,
        rs="6b8f9c7d5",
        cluster_ip="172.20.95.3",
        pods=[
            ("k7wqz", "1/1", "Running", "0", "61d", 0),
            ("t2hnm", "1/1", "Running", "0", "61d", 1),
        ],
    )
    tiles = app(
        "tile-cache",
        image="public.ecr.aws/mapsly/tile-cache:1.4.2",
        port=8080,
        rs="5f9d6c8b7",
        cluster_ip="172.20.95.20",
        pods=[
            ("a9xrd", "1/1", "Running", "0", "44m", 2),
            ("m3pkv", "1/1", "Running", "0", "20d", 1),
        ],
    )
    geocoder = app(
        "geocoder-sync",
        image="public.ecr.aws/mapsly/geocoder-sync:0.8.1",
        port=8080,
        rs="7c5b6d9f8",
        service=False,
        pods=[("q4zlm", "0/1", "CrashLoopBackOff", "14 (4m ago)", "44m", 2)],
    )
    k8s = namespace(ns, nodes, [geo, tiles, geocoder], seed=95)
    gp = [pod_name(geo, "k7wqz"), pod_name(geo, "t2hnm")]
    k8s[f"kubectl get poddisruptionbudgets -n {ns}"] = table(
        [
            ["NAME", "MIN AVAILABLE", "MAX UNAVAILABLE", "ALLOWED DISRUPTIONS", "AGE"],
            ["geo-api", "2", "N/A", "0", "61d"],
            ["tile-cache", "N/A", "1", "1", "200d"],
        ]
    )
    k8s[
        f"kubectl describe poddisruptionbudgets geo-api -n {ns}"
    ] = f"""Name:           geo-api
Namespace:      {ns}
Min available:  2
Selector:       app=geo-api
Status:
    Allowed disruptions:  0
    Current:              2
    Desired:              2
    Total:                2
Events:                   <none>
"""
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "46m",
                "Normal",
                "Killing",
                "Pod/tile-cache-5f9d6c8b7-e6fjw",
                "Stopping container tile-cache",
            ),
            (
                "44m",
                "Normal",
                "Scheduled",
                f"Pod/{pod_name(tiles, 'a9xrd')}",
                f"Successfully assigned geo/{pod_name(tiles, 'a9xrd')} to {nodes[2][0]}",
            ),
            (
                "44m",
                "Normal",
                "Scheduled",
                f"Pod/{pod_name(geocoder, 'q4zlm')}",
                f"Successfully assigned geo/{pod_name(geocoder, 'q4zlm')} to {nodes[2][0]}",
            ),
            (
                "4m (x14 over 44m)",
                "Warning",
                "BackOff",
                f"Pod/{pod_name(geocoder, 'q4zlm')}",
                "Back-off restarting failed container geocoder-sync",
            ),
            (
                "1m (x88 over 45m)",
                "Warning",
                "EvictionBlocked",
                f"Pod/{gp[0]}",
                "Cannot evict pod as it would violate the pod's disruption budget.",
            ),
        ]
    )
    k8s[f"kubectl describe nodes {draining}"] = node_describe(
        draining,
        "10.95.1.40",
        taints="node.kubernetes.io/unschedulable:NoSchedule",
        unschedulable=True,
        pods_rows=[
            ("kube-system", "aws-node-2xk9q"),
            ("kube-system", "kube-proxy-7wd4c"),
            (ns, gp[0]),
        ],
        events_text="""  Type    Reason              Age   From     Message
  ----    ------              ----  ----     -------
  Normal  NodeNotSchedulable  46m   kubelet  Node ip-10-95-1-40.ap-southeast-2.compute.internal status is now: NodeNotSchedulable""",
    )
    k8s[
        f"kubectl logs {pod_name(geocoder, 'q4zlm')} -n {ns} -c geocoder-sync --previous --tail=1000"
    ] = "geocoder-sync 0.8.1 starting\nfetching https://download.geonames.org/export/dump/allCountries.zip\nerror: HTTP 429 Too Many Requests from download.geonames.org\nexit 1\n"
    bgs = [
        bg(
            "geo-api",
            gp,
            ["GET /v2/reverse?lat=…&lon=… 200 {ms}ms", "GET /v2/route 200 {ms}ms"],
            1.5,
        ),
        bg(
            "tile-cache",
            [pod_name(tiles, "a9xrd"), pod_name(tiles, "m3pkv")],
            ["GET /tiles/{n}.pbf 200 {ms}ms"],
            1,
        ),
    ]
    evs = [
        ev(
            "nodegroup-upgrade",
            "info",
            "eks update-nodegroup-version general-1 to 1.31 AMI ami-0b3f9c1e2d (launch template v14): started",
            at=start - 120,
        ),
        ev("nodegroup-upgrade", "info", f"cordoned {draining}; draining", at=start),
        ev(
            "nodegroup-upgrade",
            "warn",
            f"evicting pod geo/{gp[0]}: Cannot evict pod as it would violate the pod's disruption budget. retrying in 5s",
            **{"from": start + 30, "to": -60, "every_s": 30},
        ),
        ev(
            "nodegroup-upgrade",
            "error",
            "update general-1 failed: PodEvictionFailure: Reached max retries while trying to evict pods from nodes in node group general-1",
            at=-240,
        ),
        ev(
            "geocoder-sync",
            "error",
            "HTTP 429 Too Many Requests from download.geonames.org",
            **{"from": start + 150, "to": -240, "every_s": 180},
            pod=pod_name(geocoder, "q4zlm"),
        ),
        ev(
            "tile-cache",
            "warn",
            "cold cache after restart: hit ratio 0.{n}",
            at=start + 200,
            pod=pod_name(tiles, "a9xrd"),
        ),
    ]
    return {
        "incident": {
            "title": "Node group upgrade failed: PodEvictionFailure",
            "service": "nodegroup-upgrade",
            "severity": "sev4",
            "symptoms": [
                "upgrade of general-1 to 1.31 stuck then failed",
                "one node left cordoned",
            ],
            "description": "Platform maintenance window; the pipeline gave up after 45 minutes.",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "platform",
            "root_cause_stage": "infrastructure",
            "root_cause_reason": "EvictionBlocked",
            "root_cause_component": ["poddisruptionbudget/geo-api", "geo-api"],
            "root_cause_signal": "disruption budget",
            "root_cause": "PodDisruptionBudget geo-api requires minAvailable 2 for a Deployment of 2 replicas, so it allows 0 disruptions: the drain of the cordoned node cannot evict geo-api's pod there, retries for 45 minutes and the managed node group upgrade fails with PodEvictionFailure. geocoder-sync's crash loop (geonames rate-limits it) and tile-cache's cold cache are unrelated noise on the new node.",
            "evidence": [
                "kubectl get pdb -n geo: geo-api MIN AVAILABLE 2, ALLOWED DISRUPTIONS 0",
                "events: Cannot evict pod as it would violate the pod's disruption budget (geo-api pod on the cordoned node)",
                "upgrade pipeline: PodEvictionFailure: Reached max retries",
            ],
            "remediation": "Set the PDB to maxUnavailable 1 (or scale geo-api to 3) and rerun the upgrade; uncordon the node meanwhile.",
        },
        "logs": logs(seed=95, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "geo-api",
                    "rps": 35,
                    "errors": {"500": (0.001, 0.001)},
                    "latency": (0.05, 0.05),
                },
                {"name": "tile-cache", "rps": 120, "latency": (0.01, 0.03)},
            ],
            start=start,
            seed=95,
        ),
        "kubernetes": k8s,
        "runbooks": {
            "nodegroup-upgrade.md": runbook(
                "Node group upgrade fails",
                "A failed node group upgrade is most often a bad AMI: nodes never join. Roll the launch template back to the previous version and open a ticket with AWS support.",
            ),
        },
    }


# =================================================================================================
# 9. A noisy neighbour: a backfill CronJob with no CPU limits lands on the node of two quote-api
#    pods; those two are slow, the others fine. No errors but latency. The incident says "quotes".
# =================================================================================================


@scenario("noisy-neighbour")
def noisy_neighbour() -> dict[str, Any]:
    start = -1380
    ns = "quotes"
    nodes = [
        ("ip-10-12-1-201.us-west-2.compute.internal", "Ready", "10.12.1.201"),
        ("ip-10-12-2-202.us-west-2.compute.internal", "Ready", "10.12.2.202"),
        ("ip-10-12-3-203.us-west-2.compute.internal", "Ready", "10.12.3.203"),
    ]
    hot = nodes[2][0]
    q = app(
        "quote-api",
        image="ghcr.io/insurely/quote-api:2024.11.3",
        port=8080,
        rs="79c8d6b5f",
        cluster_ip="172.20.12.80",
        pods=[
            ("b2lkx", "1/1", "Running", "0", "2d", 0),
            ("f6rnz", "1/1", "Running", "0", "2d", 1),
            ("m9tcq", "1/1", "Running", "0", "2d", 2),
            ("w3pdh", "1/1", "Running", "0", "2d", 2),
        ],
    )
    qp = [pod_name(q, s[0]) for s in q["pods"]]
    job_pod = "rate-backfill-29421780-v7qkc"
    k8s = namespace(ns, nodes, [q], seed=12)
    ip = ips_of(k8s, ns)
    k8s[f"kubectl get pods -n {ns} -o wide --show-labels"] = (
        k8s[f"kubectl get pods -n {ns} -o wide --show-labels"].rstrip("\n") + "\n"
    )
    rows = list(k8s[f"kubectl get pods -n {ns} -o wide --show-labels"].splitlines())
    k8s[f"kubectl get pods -n {ns} -o wide --show-labels"] = base.pods(
        [
            *[
                (
                    line.split()[0],
                    line.split()[1],
                    line.split()[2],
                    line.split()[3],
                    line.split()[4],
                    line.split()[5],
                    line.split()[6],
                    line.split()[9],
                )
                for line in rows[1:]
            ],
            (
                job_pod,
                "1/1",
                "Running",
                "0",
                "24m",
                "10.12.3.91",
                hot,
                "batch.kubernetes.io/controller-uid=7a1e9c4d-3b2f-4e8a-9d6c-5f0b1a2c3d4e,batch.kubernetes.io/job-name=rate-backfill-29421780,job-name=rate-backfill-29421780",
            ),
        ]
    )
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
            ["rate-backfill", "0 13 * * 6", "<none>", "False", "1", "24m", "3d"],
        ]
    )
    k8s[f"kubectl get jobs -n {ns}"] = table(
        [
            ["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"],
            ["rate-backfill-29421780", "Running", "0/1", "24m", "24m"],
        ]
    )
    k8s[f"kubectl describe pods {job_pod} -n {ns}"] = f"""Name:             {job_pod}
Namespace:        {ns}
Node:             {hot}/10.12.3.203
Start Time:       {when(start - 60)}
Labels:           job-name=rate-backfill-29421780
Status:           Running
IP:               10.12.3.91
Controlled By:    Job/rate-backfill-29421780
Containers:
  backfill:
    Image:          ghcr.io/insurely/rate-tools:0.3.0
    Command:        rate-tools backfill --since 2019-01-01 --parallel 32
    State:          Running
      Started:      {when(start - 55)}
    Ready:          True
    Restart Count:  0
QoS Class:                   BestEffort
{TOLERATIONS}
Events:
  Type    Reason     Age   From               Message
  ----    ------     ----  ----               -------
  Normal  Scheduled  24m   default-scheduler  Successfully assigned {ns}/{job_pod} to {hot}
  Normal  Started    24m   kubelet            Started container backfill
"""
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "24m",
                "Normal",
                "SuccessfulCreate",
                "CronJob/rate-backfill",
                "Created job rate-backfill-29421780",
            ),
            (
                "24m",
                "Normal",
                "Scheduled",
                f"Pod/{job_pod}",
                f"Successfully assigned {ns}/{job_pod} to {hot}",
            ),
            (
                "3m (x21 over 22m)",
                "Warning",
                "Unhealthy",
                f"Pod/{qp[2]}",
                f'Readiness probe failed: Get "http://{ip[qp[2]]}:8080/healthz": context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
            ),
            (
                "2m (x17 over 21m)",
                "Warning",
                "Unhealthy",
                f"Pod/{qp[3]}",
                f'Readiness probe failed: Get "http://{ip[qp[3]]}:8080/healthz": context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
            ),
        ]
    )
    k8s[
        f"kubectl describe deployments quote-api -n {ns}"
    ] = f"""Name:                   quote-api
Namespace:              {ns}
Labels:                 app=quote-api
Annotations:            deployment.kubernetes.io/revision: 212
Selector:               app=quote-api
Replicas:               4 desired | 4 updated | 4 total | 4 available | 0 unavailable
StrategyType:           RollingUpdate
Pod Template:
  Labels:  app=quote-api
  Containers:
   quote-api:
    Image:      ghcr.io/insurely/quote-api:2024.11.3
    Port:       8080/TCP
    Limits:
      cpu:     2
      memory:  2Gi
    Requests:
      cpu:     1
      memory:  2Gi
Conditions:
  Type           Status  Reason
  ----           ------  ------
  Available      True    MinimumReplicasAvailable
  Progressing    True    NewReplicaSetAvailable
Events:          <none>
"""
    bgs = [
        bg("quote-api", qp[:2], ["POST /v1/quote 200 {ms}ms"], 1),
        bg("quote-api", qp[2:], ["POST /v1/quote 200 {ms}ms"], 1, until=start),
        bg(
            "rate-backfill",
            [job_pod],
            ["backfilled rates for {n} policies (batch {n})"],
            20,
            **{"from": start - 55},
        ),
    ]
    evs = [
        ev(
            "quote-api",
            "warn",
            "slow request POST /v1/quote took {n}ms (pricing_ms {ms}0, cpu wait high)",
            **{"from": start + 30, "to": -2, "every_s": 4},
            pods=qp[2:],
        ),
        ev(
            "quote-api",
            "info",
            "POST /v1/quote 200 2{ms}0ms",
            **{"from": start + 30, "to": -2, "every_s": 2},
            pods=qp[2:],
        ),
        ev(
            "partner-gw",
            "error",
            "upstream quote-api timed out after 3000ms (partner=compare-it)",
            **{"from": start + 120, "to": -2, "every_s": 20},
            pods=["partner-gw-0"],
        ),
        ev(
            "quote-api", "info", "deployed 2024.11.3 (revision 212)", at=-10800, pods=qp
        ),
        ev(
            "quote-api",
            "error",
            "postgres connection reset by peer; reconnecting",
            **{"from": -6600, "to": -6400, "every_s": 50},
            pods=qp,
        ),
    ]
    return {
        "incident": {
            "title": "quotes slow for partners",
            "service": "quotes",
            "severity": "sev3",
            "symptoms": ["p99 over 3 s", "some partner timeouts"],
            "description": "",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "platform",
            "root_cause_stage": "performance",
            "root_cause_reason": "NoisyNeighbour",
            "root_cause_component": [
                "cronjob/rate-backfill",
                "rate-backfill",
                "job/rate-backfill-29421780",
                f"pod/{job_pod}",
                job_pod,
            ],
            "root_cause_signal": "rate-backfill",
            "root_cause": f"The weekly rate-backfill CronJob (new three days ago, BestEffort: no requests or limits, --parallel 32) started a minute before the incident on {hot}, where two of the four quote-api pods run, and takes every CPU the node has. Those two pods wait for CPU: 2-4 s per quote and readiness timeouts (they drop in and out of the endpoints); the two pods elsewhere stay fast. partner-gw's 3 s timeout turns the slow ones into partner errors. quote-api's own deploy is three hours old and the postgres resets are from 2 hours ago.",
            "evidence": [
                f"pods: rate-backfill-29421780 on {hot} with two quote-api pods; QoS BestEffort, --parallel 32",
                "metrics: node_cpu_utilisation 1.0 on that node only; container_cpu_usage_cores of the backfill 7.2, of the two quote-api pods there down to 0.25 (starved)",
                "events: readiness timeouts on the two pods of that node",
                "cronjob rate-backfill: created 3 days ago, first run 24 min ago",
            ],
            "remediation": "Suspend or stop the backfill, give it CPU requests and limits and a batch node pool (taint/toleration), then let quote-api settle.",
        },
        "logs": logs(seed=12, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "quote-api",
                    "rps": 40,
                    "errors": {"500": (0.001, 0.001)},
                    "latency": (0.12, 1.1),
                },
                {
                    "name": "partner-gw",
                    "rps": 30,
                    "errors": {"504": (0.0, 0.08)},
                    "latency": (0.15, 1.2),
                },
            ],
            start=start,
            seed=12,
            gauges=[
                {
                    "name": "node_cpu_utilisation",
                    "labels": {"node": hot},
                    "before": 0.35,
                    "after": 1.0,
                    "change_at": start - 55,
                    "cap": 1.0,
                },
                {
                    "name": "node_cpu_utilisation",
                    "labels": {"node": nodes[0][0]},
                    "before": 0.33,
                    "after": 0.34,
                },
                {
                    "name": "node_cpu_utilisation",
                    "labels": {"node": nodes[1][0]},
                    "before": 0.31,
                    "after": 0.33,
                },
                {
                    "name": "container_cpu_usage_cores",
                    "labels": {
                        "namespace": ns,
                        "pod": job_pod,
                        "container": "backfill",
                    },
                    "before": 0,
                    "after": 7.2,
                    "change_at": start - 55,
                },
                *[
                    {
                        "name": "container_cpu_usage_cores",
                        "labels": {"namespace": ns, "pod": p, "container": "quote-api"},
                        "before": 0.6,
                        "after": 0.6 if i < 2 else 0.25,
                    }
                    for i, p in enumerate(qp)
                ],
            ],
        ),
        "kubernetes": k8s,
        "runbooks": {
            "quote-api-throttling.md": runbook(
                "quote-api slow: CPU throttling",
                "quote-api is CPU-bound. If it is slow, raise its CPU limit (values-prod.yaml resources.limits.cpu) and redeploy; check container_cpu_cfs_throttled_periods_total first.",
            ),
        },
    }


# =================================================================================================
# 10. A third party timing out: the card processor answers after 30 s+; payments-api's own health is
#     fine, checkout is loud. The incident says "payments".
# =================================================================================================


@scenario("third-party-timeout")
def third_party_timeout() -> dict[str, Any]:
    start = -1140
    pay = ["payments-api-0", "payments-api-1"]
    co = ["checkout-web-0", "checkout-web-1", "checkout-web-2"]
    bgs = [
        bg(
            "payments-api",
            pay,
            [
                "POST /v1/charges 201 {ms}ms (paystream auth ok)",
                "POST /v1/refunds 201 {ms}ms",
            ],
            3,
            until=start,
        ),
        bg(
            "payments-api",
            pay,
            ["GET /v1/charges/{n} 200 {ms}ms", "GET /healthz 200 2ms"],
            6,
        ),
        bg(
            "checkout-web",
            co,
            ["GET /checkout 200 {ms}ms", "POST /checkout/address 200 {ms}ms"],
            2,
        ),
    ]
    evs = [
        ev(
            "payments-api",
            "error",
            "paystream: POST https://api.paystream.example/v2/authorizations timed out after 10000ms (charge {n}); returning 502 to caller",
            **{"from": start, "to": -3, "every_s": 6},
            pods=pay,
        ),
        ev(
            "payments-api",
            "warn",
            "circuit paystream half-open: 0/5 probes succeeded",
            **{"from": start + 240, "to": -3, "every_s": 60},
            pods=pay,
        ),
        ev(
            "checkout-web",
            "error",
            "payment failed: payments-api answered 502 Bad Gateway for order {n}",
            **{"from": start + 5, "to": -3, "every_s": 3},
            pods=co,
        ),
        ev(
            "payments-api",
            "error",
            "paystream webhook signature invalid (401) for event evt_{n}; dropped",
            **{"from": -7000, "to": -5800, "every_s": 120},
            pods=pay,
        ),
        ev(
            "payments-db",
            "warn",
            "autovacuum: table charges: 1{n} dead tuples",
            **{"from": -7200, "to": -5, "every_s": 600},
            pods=["payments-db-0"],
        ),
    ]
    return {
        "incident": {
            "title": "Card payments failing",
            "service": "payments",
            "severity": "sev1",
            "symptoms": ["checkout shows 'payment could not be processed'"],
            "description": "Alert CheckoutPaymentErrors: more than 30% of payment attempts failing for 15 minutes.",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "http",
            "root_cause_component": ["api.paystream.example", "paystream"],
            "root_cause_signal": "timeout",
            "root_cause": "The card processor PayStream stopped answering: its authorizations endpoint accepts connections and TLS but sends no response (netcheck: http/timeout), so payments-api times out after 10 s and answers 502; checkout-web shows the failure. payments-api's own health is 200; the webhook 401s are from this morning and the payments-db vacuum warnings are routine.",
            "evidence": [
                "probe paystream: http/timeout after the TLS handshake",
                "probe payments-api /healthz: 200",
                "payments-api: POST https://api.paystream.example/v2/authorizations timed out after 10000ms",
            ],
            "remediation": "Open an incident with PayStream and fail over to the secondary processor (payments-api PROCESSOR=adyen); keep the circuit breaker open meanwhile.",
            "root_cause_probe": "paystream",
            "netcheck": {
                "paystream": {"failed_layer": "http", "reason": "timeout"},
                "payments-api": {"failed_layer": "none", "reason": None},
            },
        },
        "logs": logs(seed=110, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "payments-api",
                    "rps": 12,
                    "errors": {"502": (0.001, 0.55)},
                    "latency": (0.25, 9.5),
                },
                {
                    "name": "checkout-web",
                    "rps": 40,
                    "errors": {"500": (0.001, 0.14)},
                    "latency": (0.1, 2.0),
                },
            ],
            start=start,
            seed=110,
        ),
        "targets": [
            {
                "name": "paystream",
                "url": "https://api.paystream.example/v2/authorizations",
                "fault": {
                    "kind": "slow_first_byte",
                    "delay_s": 600,
                    "status": 200,
                    "body": "{}",
                },
            },
            {
                "name": "payments-api",
                "url": "http://payments-api.pay.internal/healthz",
                "fault": {"kind": "ok", "body": '{"status":"ok","db":"ok"}'},
            },
        ],
        "runbooks": {
            "payments-db.md": runbook(
                "Payments failing",
                "When payments fail, check payments-db: long-running vacuum or lock waits on `charges`. Kill the blocking session and fail over if replication lag is under 10 s.",
            ),
        },
    }


# =================================================================================================
# 11. An external DNS name answering SERVFAIL: the address-validation vendor's zone broke (DNSSEC).
#     Signup fails at the address step. The incident says "signup".
# =================================================================================================


@scenario("external-dns-servfail")
def external_dns_servfail() -> dict[str, Any]:
    start = -2280
    av = ["address-check-6d8f-1", "address-check-6d8f-2"]
    su = ["signup-web-0", "signup-web-1"]
    bgs = [
        bg(
            "address-check",
            av,
            [
                "validated address country=DE in {ms}ms (addressly)",
                "validated address country=FR in {ms}ms (addressly)",
            ],
            4,
            until=start,
        ),
        bg(
            "signup-web",
            su,
            ["GET /signup 200 {ms}ms", "POST /signup/step1 200 {ms}ms"],
            2,
        ),
        bg(
            "coredns",
            ["coredns-1", "coredns-2"],
            ["[INFO] 10.0.{n} - 'A IN api.addressly.example. udp' NOERROR"],
            60,
            until=start,
        ),
    ]
    evs = [
        ev(
            "address-check",
            "error",
            "lookup api.addressly.example on 10.0.0.10:53: server misbehaving",
            **{"from": start, "to": -3, "every_s": 5},
            pods=av,
        ),
        ev(
            "coredns",
            "error",
            "[ERROR] plugin/errors: 2 api.addressly.example. A: read udp 10.0.3.4:41020->ns1.addressly.example:53: SERVFAIL (DNSSEC: RRSIG expired)",
            **{"from": start, "to": -3, "every_s": 45},
            pods=["coredns-1", "coredns-2"],
        ),
        ev(
            "signup-web",
            "error",
            "POST /signup/address 500: address validation unavailable",
            **{"from": start + 10, "to": -3, "every_s": 6},
            pods=su,
        ),
        ev(
            "coredns",
            "error",
            "[ERROR] plugin/errors: 2 metadata.google.internal. A: NXDOMAIN",
            **{"from": -7100, "to": -6000, "every_s": 90},
            pods=["coredns-1"],
        ),
        ev(
            "signup-web",
            "warn",
            "captcha provider slow: {ms}0ms",
            **{"from": -5000, "to": -4000, "every_s": 120},
            pods=su,
        ),
    ]
    return {
        "incident": {
            "title": "signup broken at address step",
            "service": "signup",
            "severity": "sev2",
            "symptoms": [],
            "description": "",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "dns",
            "root_cause_component": ["api.addressly.example", "addressly"],
            "root_cause_signal": "servfail",
            "root_cause": "The address-validation vendor Addressly's zone fails DNSSEC validation (expired RRSIG): resolvers answer SERVFAIL for api.addressly.example, address-check cannot resolve it (server misbehaving) and signup-web's address step answers 500. Our CoreDNS is healthy (its NXDOMAIN errors for metadata.google.internal are old and harmless); postcodes, another vendor, resolves fine.",
            "evidence": [
                "probe addressly: dns/servfail",
                "probe postcodes: none (resolution works for other external names)",
                "address-check: lookup api.addressly.example: server misbehaving",
                "coredns: SERVFAIL (DNSSEC: RRSIG expired) for api.addressly.example",
            ],
            "remediation": "Tell Addressly (their zone's signatures expired); meanwhile switch address-check to the fallback vendor (postcodes) or skip validation at signup.",
            "root_cause_probe": "addressly",
            "netcheck": {
                "addressly": {"failed_layer": "dns", "reason": "servfail"},
                "postcodes": {"failed_layer": "none", "reason": None},
            },
        },
        "logs": logs(seed=111, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "signup-web",
                    "rps": 8,
                    "errors": {"500": (0.002, 0.4)},
                    "latency": (0.09, 0.1),
                },
                {
                    "name": "address-check",
                    "rps": 5,
                    "errors": {"503": (0.0, 0.97)},
                    "latency": (0.12, 0.02),
                },
            ],
            start=start,
            seed=111,
        ),
        "targets": [
            {
                "name": "addressly",
                "url": "https://api.addressly.example/v1/validate",
                "fault": {"kind": "dns_servfail"},
            },
            {
                "name": "postcodes",
                "url": "https://api.postcodes.example/v2/lookup",
                "fault": {"kind": "ok", "body": '{"ok":true}'},
            },
        ],
        "runbooks": {
            "coredns.md": runbook(
                "DNS errors in the cluster",
                "If services log DNS failures, restart CoreDNS (`kubectl rollout restart deploy/coredns -n kube-system`) and check its memory; NXDOMAIN floods come from search-path expansion (ndots 5).",
            ),
        },
    }


# =================================================================================================
# 12. Network latency visible only in metrics: rates-cache failed over to another zone; every
#     pricing-api call to it now costs a cross-zone round trip. No error anywhere.
# =================================================================================================


@scenario("latency-metrics-only")
def latency_metrics_only() -> dict[str, Any]:
    start = -1980
    pr = ["pricing-api-0", "pricing-api-1", "pricing-api-2"]
    bff = ["storefront-bff-0", "storefront-bff-1"]
    bgs = [
        bg("pricing-api", pr, ["GET /v2/price sku={n} 200 {ms}ms"], 3, until=start),
        bg(
            "storefront-bff",
            bff,
            ["GET /api/product/{n} 200 {ms}ms", "GET /api/listing 200 {ms}ms"],
            2,
            until=start,
        ),
        bg("search-api", ["search-api-0"], ["GET /search 200 {ms}ms"], 5),
    ]
    evs = [
        ev(
            "pricing-api",
            "info",
            "GET /v2/price sku={n} 200 4{ms}ms",
            **{"from": start, "to": -2, "every_s": 3},
            pods=pr,
        ),
        ev(
            "storefront-bff",
            "info",
            "GET /api/product/{n} 200 1{ms}0ms",
            **{"from": start, "to": -2, "every_s": 2},
            pods=bff,
        ),
        ev(
            "cloud-events",
            "info",
            "ElastiCache rates-cache: automatic failover complete; primary is now rates-cache-002 in eu-west-1c (was rates-cache-001 in eu-west-1a)",
            at=start - 20,
        ),
        ev(
            "search-api",
            "error",
            "upstream catalog-db timeout after 2000ms",
            **{"from": -5600, "to": -5200, "every_s": 30},
            pods=["search-api-0"],
        ),
        ev(
            "storefront-bff",
            "info",
            "deployed storefront-bff 7.9.0",
            at=-7000,
            pods=bff,
        ),
    ]
    return {
        "incident": {
            "title": "Storefront pages slow",
            "service": "storefront-bff",
            "severity": "sev3",
            "symptoms": ["product pages take 2-3 s", "no errors"],
            "description": "",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "connect",
            "root_cause_component": ["rates-cache", "rates-cache.internal"],
            "root_cause_signal": "rates-cache",
            "root_cause": "ElastiCache failed rates-cache over to a replica in another zone (eu-west-1c); pricing-api's pods run in eu-west-1a and make ~40 cache calls per price, each now paying a cross-zone round trip (rtt 0.4 ms -> 9 ms). Nothing errors: pricing-api's p50 goes from 40 ms to 400 ms and storefront-bff, which calls pricing per product, takes 2-3 s. rates-cache's own command time is unchanged. storefront-bff's deploy is two hours old; search-api's timeouts are from 90 minutes ago.",
            "evidence": [
                "metrics: pricing-api and storefront-bff latency step at the start, error rates flat",
                "metrics: net_rtt_seconds{src=pricing-api,dst=rates-cache} 0.0004 -> 0.009; redis_command_duration_seconds of rates-cache flat",
                "cloud event: rates-cache failover to rates-cache-002 in eu-west-1c",
            ],
            "remediation": "Fail rates-cache back to the eu-west-1a node (or move pricing-api next to it); batch the per-price cache calls (MGET) so one round trip suffices.",
        },
        "logs": logs(seed=112, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "pricing-api",
                    "rps": 60,
                    "errors": {"500": (0.0005, 0.0005)},
                    "latency": (0.04, 0.4),
                },
                {
                    "name": "storefront-bff",
                    "rps": 45,
                    "errors": {"500": (0.001, 0.001)},
                    "latency": (0.3, 2.4),
                },
                {
                    "name": "search-api",
                    "rps": 20,
                    "errors": {"504": (0.0, 0.0)},
                    "latency": (0.06, 0.06),
                },
            ],
            start=start,
            seed=112,
            gauges=[
                {
                    "name": "net_rtt_seconds",
                    "labels": {"src": "pricing-api", "dst": "rates-cache"},
                    "before": 0.0004,
                    "after": 0.009,
                    "change_at": start - 20,
                },
                {
                    "name": "net_rtt_seconds",
                    "labels": {"src": "pricing-api", "dst": "pricing-db"},
                    "before": 0.0005,
                    "after": 0.0005,
                },
                {
                    "name": "redis_command_duration_seconds",
                    "labels": {"service": "rates-cache", "quantile": "0.99"},
                    "before": 0.0002,
                    "after": 0.0002,
                },
            ],
        ),
        "runbooks": {
            "storefront-slow.md": runbook(
                "Storefront slow",
                "If storefront pages are slow, scale storefront-bff (HPA min 4 -> 8) and check its last deploy; roll back if the slowdown started with it.",
            ),
        },
    }


# =================================================================================================
# 13. An internal TLS certificate expired: Vault's listener certificate (issued by hand a year ago)
#     expired; billing-worker cannot renew its DB lease and then fails DB auth (the loud, misleading
#     error). The incident says "billing".
# =================================================================================================


@scenario("internal-tls-expired")
def internal_tls_expired() -> dict[str, Any]:
    start = -1560
    bw = ["billing-worker-0", "billing-worker-1"]
    inv = ["invoice-api-0", "invoice-api-1"]
    bgs = [
        bg(
            "billing-worker",
            bw,
            ["generated invoice INV-{n} in {ms}ms", "charged subscription sub_{n}"],
            6,
            until=start + 400,
        ),
        bg("invoice-api", inv, ["GET /v1/invoices/{n} 200 {ms}ms"], 4),
        bg(
            "vault",
            ["vault-0"],
            [
                "auth: kubernetes login role=billing ok",
                "lease renewed database/creds/billing/{n}",
            ],
            90,
            until=start,
        ),
    ]
    evs = [
        ev(
            "billing-worker",
            "warn",
            'vault: lease renewal failed: Put "https://vault.corp.internal:8200/v1/sys/leases/renew": x509: certificate has expired or is not yet valid: current time 2026-12-05T13:{n} is after 2026-12-05T13:34:00Z',
            **{"from": start, "to": -3, "every_s": 60},
            pods=bw,
        ),
        ev(
            "billing-worker",
            "error",
            'postgres billing-db:5432: FATAL: password authentication failed for user "v-kubernetes-billing-8Hq2"',
            **{"from": start + 420, "to": -3, "every_s": 8},
            pods=bw,
        ),
        ev(
            "invoice-api",
            "warn",
            "no invoices generated in the last 10 minutes",
            **{"from": start + 900, "to": -3, "every_s": 300},
            pods=inv,
        ),
        ev(
            "billing-db",
            "error",
            'FATAL: password authentication failed for user "v-kubernetes-billing-8Hq2" (role expired)',
            **{"from": start + 420, "to": -3, "every_s": 8},
            pods=["billing-db-0"],
        ),
        ev(
            "billing-db",
            "error",
            'FATAL: password authentication failed for user "reporting_ro"',
            **{"from": -7000, "to": -6600, "every_s": 60},
            pods=["billing-db-0"],
        ),
        ev(
            "vault",
            "warn",
            "core: certificate for listener tcp 0.0.0.0:8200 expires in 0h (notAfter 2026-12-05T13:34:00Z)",
            at=start - 3600,
            pods=["vault-0"],
        ),
        ev(
            "vault",
            "info",
            "http: TLS handshake error from 10.2.{n}: remote error: tls: bad certificate",
            **{"from": start, "to": -3, "every_s": 30},
            pods=["vault-0"],
        ),
    ]
    return {
        "incident": {
            "title": "billing: invoices not generated, DB auth errors",
            "service": "billing",
            "severity": "sev2",
            "symptoms": ["billing-db rejects billing-worker's password"],
            "description": "DB team says nothing changed on billing-db.",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "tls",
            "root_cause_component": ["vault.corp.internal", "vault"],
            "root_cause_signal": "certificate_expired",
            "root_cause": "The certificate of Vault's listener (vault.corp.internal:8200), issued by hand and never renewed, expired 26 minutes ago. billing-worker's lease renewals fail the TLS handshake (x509: certificate has expired); seven minutes later its dynamic DB credentials expired, so billing-db rejects them (password authentication failed) and no invoices are generated. The DB errors are a consequence; the reporting_ro failures are from this morning.",
            "evidence": [
                "probe vault: tls/certificate_expired",
                "billing-worker: vault lease renewal failed: x509: certificate has expired",
                "vault: listener certificate notAfter 13:34Z; TLS handshake errors from clients",
                "billing-db auth failures start 7 minutes after the renewals fail (lease TTL)",
            ],
            "remediation": "Reissue Vault's listener certificate (and put it under cert-manager or Vault PKI auto-renewal), reload Vault, restart billing-worker to get fresh credentials.",
            "root_cause_probe": "vault",
            "netcheck": {
                "vault": {"failed_layer": "tls", "reason": "certificate_expired"},
                "billing-db-proxy": {"failed_layer": "none", "reason": None},
            },
        },
        "logs": logs(seed=113, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "invoice-api",
                    "rps": 6,
                    "errors": {"500": (0.001, 0.001)},
                    "latency": (0.05, 0.05),
                },
                {
                    "name": "billing-worker",
                    "rps": 2,
                    "errors": {"500": (0.0, 0.9)},
                    "latency": (0.3, 0.05),
                    "change_at": start + 420,
                },
            ],
            start=start,
            seed=113,
        ),
        "targets": [
            {
                "name": "vault",
                "url": "https://vault.corp.internal/v1/sys/health",
                "fault": {"kind": "tls_expired", "expired_s_ago": 1560},
            },
            {
                "name": "billing-db-proxy",
                "url": "http://billing-db-proxy.corp.internal/healthz",
                "fault": {"kind": "ok", "body": '{"pgbouncer":"up"}'},
            },
        ],
        "runbooks": {
            "db-password-rotation.md": runbook(
                "billing-db: password authentication failed",
                "If an application's DB password is rejected, the nightly rotation probably ran: rotate the password again (`make -C ops/db rotate DB=billing-db USER=billing`) and restart the application.",
            ),
        },
    }


# =================================================================================================
# 14. A gateway relaying an upstream timeout: api-edge answers 504 for /recommendations; the
#     recommendations service hangs (thread pool deadlocked) though its /healthz stays 200.
# =================================================================================================


@scenario("gateway-upstream-timeout")
def gateway_upstream_timeout() -> dict[str, Any]:
    start = -1080
    edge = ["api-edge-7f9-1", "api-edge-7f9-2"]
    recs = ["recommendations-0", "recommendations-1"]
    bgs = [
        bg(
            "api-edge",
            edge,
            [
                "GET /v1/products/{n} 200 upstream=catalog {ms}ms",
                "GET /v1/cart 200 upstream=cart {ms}ms",
            ],
            1.5,
        ),
        bg(
            "api-edge",
            edge,
            ["GET /v1/recommendations 200 upstream=recommendations {ms}ms"],
            3,
            until=start,
        ),
        bg(
            "recommendations",
            recs,
            ["served 12 recs for user {n} in {ms}ms"],
            3,
            until=start,
        ),
        bg("recommendations", recs, ["GET /healthz 200 1ms"], 15),
    ]
    evs = [
        ev(
            "api-edge",
            "error",
            "GET /v1/recommendations 504 upstream=recommendations upstream_status=- response_flags=UT duration=15000ms",
            **{"from": start + 15, "to": -2, "every_s": 3},
            pods=edge,
        ),
        ev(
            "recommendations",
            "warn",
            "worker pool saturated: 64/64 busy, queue {n}",
            **{"from": start + 30, "to": -2, "every_s": 30},
            pods=recs,
        ),
        ev(
            "recommendations",
            "warn",
            "possible deadlock: 64 threads BLOCKED on <0x00000007c2a1f3d8> (a com.shopco.recs.ModelCache) held by thread model-refresh-1, itself waiting for a pool thread",
            at=start + 60,
            pod=recs[0],
        ),
        ev(
            "recommendations",
            "warn",
            "possible deadlock: 64 threads BLOCKED on <0x00000007c1b09e20> (a com.shopco.recs.ModelCache) held by thread model-refresh-1, itself waiting for a pool thread",
            at=start + 75,
            pod=recs[1],
        ),
        ev(
            "recommendations",
            "info",
            "model refresh started (model v2026-12-05, sync=true)",
            at=start - 5,
            pods=recs,
        ),
        ev(
            "api-edge",
            "info",
            "config reloaded: routes v418 (added /v1/wishlist)",
            at=-3900,
            pods=edge,
        ),
        ev(
            "api-edge",
            "warn",
            "certificate for api.shopco.example expires in 21 days",
            at=-5000,
            pod=edge[0],
        ),
    ]
    return {
        "incident": {
            "title": "api-edge 504s on recommendations",
            "service": "api-edge",
            "severity": "sev3",
            "symptoms": ["home page 'recommended for you' empty", "api-edge 504"],
            "description": "",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "app",
            "root_cause_component": [
                "recommendations",
                "recommendations.shop.internal",
            ],
            "root_cause_signal": "deadlock",
            "root_cause": "recommendations' synchronous model refresh holds the ModelCache lock while waiting for a pool thread, and all 64 pool threads are blocked on that lock: the service accepts requests and never answers (its /healthz runs on a separate thread and stays 200). api-edge relays that as 504 after its 15 s route timeout (response flag UT). api-edge's route reload and certificate warning are unrelated.",
            "evidence": [
                "probe api-edge /v1/recommendations: http/http_504 (upstream request timeout)",
                "probe recommendations /v1/recommendations: http/timeout; /healthz 200",
                "recommendations: possible deadlock: 64 threads BLOCKED on ModelCache held by model-refresh-1",
            ],
            "remediation": "Restart recommendations (clears the deadlock), then make the model refresh asynchronous / not hold the cache lock while waiting on the pool.",
            "netcheck": {
                "api-edge": {"failed_layer": "http", "reason": "http_504"},
                "recommendations": {"failed_layer": "http", "reason": "timeout"},
                "recommendations-health": {"failed_layer": "none", "reason": None},
            },
        },
        "logs": logs(seed=114, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "api-edge",
                    "rps": 150,
                    "errors": {"504": (0.0, 0.11)},
                    "latency": (0.05, 0.09),
                },
                {
                    "name": "recommendations",
                    "rps": 18,
                    "rps_after": 0.4,
                    "latency": (0.06, 0.001),
                },
            ],
            start=start,
            seed=114,
            gauges=[
                {
                    "name": "jvm_threads_blocked",
                    "labels": {"service": "recommendations"},
                    "before": 0,
                    "after": 64,
                    "noise": 0,
                }
            ],
        ),
        "targets": [
            {
                "name": "api-edge",
                "url": "https://api-edge.shop.internal/v1/recommendations",
                "fault": {"kind": "gateway", "upstream": "recommendations"},
            },
            {
                "name": "recommendations",
                "url": "http://recommendations.shop.internal/v1/recommendations",
                "fault": {
                    "kind": "http_status",
                    "status": 200,
                    "delay_s": 600,
                    "paths": {"/healthz": 200},
                },
            },
            {
                "name": "recommendations-health",
                "url": "http://recommendations.shop.internal/healthz",
                "fault": {
                    "kind": "http_status",
                    "status": 200,
                    "delay_s": 600,
                    "paths": {"/healthz": 200},
                },
            },
        ],
        "runbooks": {
            "edge-504.md": runbook(
                "504 at api-edge",
                "504 from api-edge means a route timeout was hit. Raise the route's timeout in routes.yaml (timeout: 15s -> 30s) and reload the edge.",
            ),
        },
    }


# =================================================================================================
# 15. Connection pool exhaustion shown only in warn-level logs: orders-api 5.2.0's export endpoint
#     holds DB connections; mobile-bff (the victim) logs the errors. The incident says "mobile".
# =================================================================================================


@scenario("pool-exhaustion-warn")
def pool_exhaustion_warn() -> dict[str, Any]:
    start = -1500
    oa = ["orders-api-0", "orders-api-1", "orders-api-2"]
    mb = ["mobile-bff-0", "mobile-bff-1"]
    bgs = [
        bg(
            "orders-api",
            oa,
            ["GET /v3/orders?user={n} 200 {ms}ms", "GET /v3/orders/{n} 200 {ms}ms"],
            2,
            until=start,
        ),
        bg("orders-api", oa, ["GET /v3/orders/{n} 200 {ms}ms"], 8, **{"from": start}),
        bg("mobile-bff", mb, ["GET /m/home 200 {ms}ms", "GET /m/orders 200 {ms}ms"], 2),
        bg(
            "orders-db",
            ["orders-db-0"],
            ["LOG:  checkpoint complete: wrote {n} buffers"],
            300,
        ),
    ]
    evs = [
        ev(
            "orders-api",
            "info",
            "orders-api 5.2.0 started (new: GET /v3/exports/orders.csv)",
            at=start - 90,
            pods=oa,
        ),
        ev(
            "orders-api",
            "info",
            "GET /v3/exports/orders.csv?merchant={n} streaming started (transaction open)",
            **{"from": start, "to": -60, "every_s": 40},
            pods=oa,
        ),
        ev(
            "orders-api",
            "warn",
            "HikariPool-1 - Connection is not available, request timed out after 30000ms (total=20, active=20, idle=0, waiting={ms})",
            **{"from": start + 120, "to": -2, "every_s": 4},
            pods=oa,
        ),
        ev(
            "orders-api",
            "warn",
            "HikariPool-1 - Thread starvation or clock leap detected (housekeeper delta=1m2s)",
            **{"from": start + 300, "to": -2, "every_s": 240},
            pods=oa,
        ),
        ev(
            "mobile-bff",
            "error",
            "GET orders-api/v3/orders?user={n} failed: 504 Gateway Timeout after 10000ms",
            **{"from": start + 150, "to": -2, "every_s": 2},
            pods=mb,
        ),
        ev(
            "mobile-bff",
            "error",
            "render /m/orders failed: upstream orders unavailable",
            **{"from": start + 150, "to": -2, "every_s": 5},
            pods=mb,
        ),
        ev(
            "orders-db",
            "warn",
            "LOG:  checkpoints are occurring too frequently (24 seconds apart)",
            **{"from": -7000, "to": -3, "every_s": 900},
            pods=["orders-db-0"],
        ),
        ev(
            "mobile-bff",
            "error",
            "push token refresh failed: 401 from fcm",
            **{"from": -6500, "to": -6000, "every_s": 60},
            pods=mb,
        ),
    ]
    return {
        "incident": {
            "title": "Mobile app: orders screen spinning",
            "service": "mobile",
            "severity": "sev2",
            "symptoms": ["'My orders' never loads in the app"],
            "description": "",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "app",
            "root_cause_component": ["orders-api"],
            "root_cause_signal": "Connection is not available",
            "root_cause": "orders-api 5.2.0 added a CSV export that streams inside an open transaction and holds a pooled DB connection for minutes; a few merchants' exports take all 20 connections of HikariPool-1, so every other request waits 30 s for a connection (warn-level only: 'Connection is not available'). mobile-bff times out after 10 s and logs the errors. orders-db is healthy (its checkpoint warnings are routine), the FCM 401s are old.",
            "evidence": [
                "orders-api warn: HikariPool-1 - Connection is not available, request timed out after 30000ms (active=20, idle=0)",
                "orders-api 5.2.0 started 90 s before: new GET /v3/exports/orders.csv, transaction open while streaming",
                "mobile-bff: 504 after 10000ms from orders-api",
            ],
            "remediation": "Roll orders-api back to 5.1.x (or disable the export route), then stream exports from a replica outside a transaction with their own small pool.",
        },
        "logs": logs(seed=115, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "orders-api",
                    "rps": 35,
                    "rps_after": 9,
                    "errors": {"500": (0.001, 0.02)},
                    "latency": (0.04, 12.0),
                },
                {
                    "name": "mobile-bff",
                    "rps": 50,
                    "errors": {"504": (0.0, 0.35)},
                    "latency": (0.12, 4.0),
                },
            ],
            start=start,
            seed=115,
        ),
        "runbooks": {
            "orders-db-slow.md": runbook(
                "orders-db slow",
                "When orders are slow, look at orders-db first: frequent checkpoints mean write pressure. Raise max_wal_size and fail over to the replica if latency stays above 1 s.",
            ),
        },
    }


def main(root: Path = HERE) -> None:
    for slug, build in SCENARIOS.items():
        base.write(slug, build(), root)
        print(slug)


if __name__ == "__main__":
    main()
