"""Writes the fifth held-out scenario set, bench/heldout5 (issue 21 item 7): `python bench/heldout5/_build.py`.

New incidents, none of them in the bundled set, bench/heldout, bench/heldout2, bench/heldout3 or
bench/heldout4. As there, everything that matters is written by hand below (incident, expected
answer, runbooks, kubectl answers, the log lines that carry the fault and the red herrings); only the
bulk comes from code: background request lines and 2 h of metric points (bench/heldout/_build.py's
`logs` and `metrics`), a namespace's tables (bench/heldout2/_build.py's `namespace`) and describe
layouts (bench/heldout3/_build.py's `pod_describe`, `deployment_describe`, `container_text`), each
with a fixed seed per scenario. The author read neither the planner (`reasoning/`) nor the engine
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


base = _load("heldout_build", HERE.parent / "heldout" / "_build.py")
h2 = _load("heldout2_build", HERE.parent / "heldout2" / "_build.py")
h3 = _load("heldout3_build", HERE.parent / "heldout3" / "_build.py")

when = base.when
iso = base.iso
table = base.table
events = base.events
runbook = base.runbook
metrics = base.metrics
logs = base.logs
app = h2.app
pod_name = h2.pod_name
namespace = h2.namespace
node_describe = h2.node_describe
bg = h2.bg
ev = h2.ev
pod_describe = h3.pod_describe
deployment_describe = h3.deployment_describe
container_text = h3.container_text
event_block = h3.event_block
dtable = h3.dtable
indent = h3.indent

SCENARIOS: dict[str, Any] = {}


def scenario(slug: str):
    def register(fn):
        SCENARIOS[slug] = fn
        return fn

    return register


def stamp(offset_s: float) -> str:
    """An application log line's timestamp, `offset_s` from the capture."""
    return iso(offset_s).replace("Z", ".000Z")


def podlog(lines: list[tuple[float, str]]) -> str:
    """A container's log as `kubectl logs` prints it: (offset_s, text) lines."""
    return "".join(f"{stamp(t)} {text}\n" for t, text in lines)


def split_table(text: str) -> list[list[str]]:
    """A kubectl table read back into cells, by the header's column starts (cells may hold spaces)."""
    lines = text.rstrip("\n").split("\n")
    header = lines[0]
    starts = [
        i
        for i in range(len(header))
        if header[i] != " " and (i == 0 or header[i - 2 : i] == "  ")
    ]
    return [
        [line[a:b].strip() for a, b in zip(starts, [*starts[1:], None], strict=True)]
        for line in lines
    ]


def ips_of(k8s: dict[str, str], ns: str) -> dict[str, str]:
    """Pod name -> IP, read back from the generated `get pods` table (RESTARTS may hold spaces)."""
    rows = split_table(k8s[f"kubectl get pods -n {ns} -o wide --show-labels"])
    return {r[0]: r[5] for r in rows[1:]}


def no_sandbox_ips(k8s: dict[str, str], ns: str) -> None:
    """Pods still in ContainerCreating have no sandbox yet, so `get pods` prints no IP for them."""
    key = f"kubectl get pods -n {ns} -o wide --show-labels"
    rows = split_table(k8s[key])
    k8s[key] = table(
        [[*r[:5], "<none>", *r[6:]] if r[2] == "ContainerCreating" else r for r in rows]
    )


def running(started: float) -> str:
    return f"    State:          Running\n      Started:      {when(started)}"


def crashloop(code: int, reason: str, started: float, finished: float) -> str:
    return (
        "    State:          Waiting\n      Reason:       CrashLoopBackOff\n"
        f"    Last State:     Terminated\n      Reason:       {reason}\n      Exit Code:    {code}\n"
        f"      Started:      {when(started)}\n      Finished:     {when(finished)}"
    )


def waiting(reason: str) -> str:
    return f"    State:          Waiting\n      Reason:       {reason}"


NOT_READY = [
    ("PodReadyToStartContainers", "True"),
    ("Initialized", "True"),
    ("Ready", "False"),
    ("ContainersReady", "False"),
    ("PodScheduled", "True"),
]
NO_SANDBOX = [("PodReadyToStartContainers", "False"), *NOT_READY[1:]]

DS_HEADER = [
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
]
KUBE_PROXY_US = (
    "kube-proxy",
    "602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/kube-proxy:v1.31.2-minimal-eksbuild.3",
)

NODES_FRA = [
    ("ip-10-70-1-52.eu-central-1.compute.internal", "Ready", "10.70.1.52"),
    ("ip-10-70-2-137.eu-central-1.compute.internal", "Ready", "10.70.2.137"),
    ("ip-10-70-3-9.eu-central-1.compute.internal", "Ready", "10.70.3.9"),
]
NODES_PDX = [
    ("ip-10-90-1-18.us-west-2.compute.internal", "Ready", "10.90.1.18"),
    ("ip-10-90-2-203.us-west-2.compute.internal", "Ready", "10.90.2.203"),
    ("ip-10-90-3-77.us-west-2.compute.internal", "Ready", "10.90.3.77"),
]
NODES_SYD = [
    ("ip-10-24-1-40.ap-southeast-2.compute.internal", "Ready", "10.24.1.40"),
    ("ip-10-24-2-96.ap-southeast-2.compute.internal", "Ready", "10.24.2.96"),
    ("ip-10-24-3-151.ap-southeast-2.compute.internal", "Ready", "10.24.3.151"),
]


def describe_pod(
    k8s: dict[str, str],
    ns: str,
    a: dict[str, Any],
    sfx: str,
    nodes: list[tuple[str, str, str]],
    *,
    state: str,
    started: float,
    ready: bool = False,
    restarts: int = 0,
    status: str = "Running",
    events_rows: list[tuple[str, str, str, str, str]] = (),
    conditions: list[tuple[str, str]] | None = None,
    probes: str = "",
    extra: str = "",
    owner: str | None = None,
    labels: str | None = None,
) -> str:
    """`kubectl describe pods` of one pod of `a`, on the node its row names; returns the pod's name."""
    name = pod_name(a, sfx)
    row = next(p for p in a["pods"] if p[0] == sfx)
    node = nodes[row[5]]
    ip = ips_of(k8s, ns)[name]
    k8s[f"kubectl describe pods {name} -n {ns}"] = pod_describe(
        name,
        ns,
        node=f"{node[0]}/{node[2]}",
        owner=owner or f"ReplicaSet/{a['name']}-{a['rs']}",
        labels=labels
        or (
            a["labels"]
            + (f",pod-template-hash={a['rs']}" if a["kind"] == "Deployment" else "")
        ),
        status=status,
        ip="" if ip == "<none>" else ip,
        container=a["name"],
        image=a["image"],
        state=state,
        ready=ready,
        restarts=restarts,
        started=started,
        events_rows=list(events_rows),
        conditions=conditions,
        probes=probes,
        extra=extra,
    )
    return name


# =================================================================================================
# 1. A ConfigMap volume that names a key the ConfigMap no longer has: pricing-engine's chart 6.0
#    mounts `items: [{key: rules.yaml}]`, but the config repo's pipeline renamed the key to
#    `pricing-rules.yaml` last night. The Recreate rollout stopped every old pod; the new ones stay in
#    ContainerCreating (FailedMount). The incident says "product pages".
# =================================================================================================


@scenario("configmap-key-missing")
def configmap_key_missing() -> dict[str, Any]:
    start = -1260
    ns = "catalog"
    rs = "8f6d7c9b5"
    img = "europe-docker.pkg.dev/lumen-shop/catalog/pricing-engine:6.0.0"
    pe = app(
        "pricing-engine",
        image=img,
        port=8080,
        rs=rs,
        cluster_ip="10.96.41.18",
        pods=[
            ("c7kzp", "0/1", "ContainerCreating", "0", "21m", 0),
            ("m2xwd", "0/1", "ContainerCreating", "0", "21m", 1),
            ("t9hqn", "0/1", "ContainerCreating", "0", "21m", 2),
        ],
    )
    web = app(
        "storefront-web",
        image="europe-docker.pkg.dev/lumen-shop/web/storefront-web:41.7.2",
        port=3000,
        rs="6c9b8d7f4",
        cluster_ip="10.96.41.5",
        pods=[
            ("b4rnt", "1/1", "Running", "0", "52m", 0),
            ("g8vzl", "1/1", "Running", "0", "52m", 1),
            ("q3wkx", "1/1", "Running", "0", "51m", 2),
        ],
    )
    idx = app(
        "search-indexer",
        image="europe-docker.pkg.dev/lumen-shop/catalog/search-indexer:3.3.0",
        port=8080,
        rs="7b5c9d8f6",
        cluster_ip="10.96.41.66",
        pods=[("j5pdm", "1/1", "Running", "0", "18d", 2)],
    )
    k8s = namespace(
        ns,
        NODES_FRA,
        [pe, web, idx],
        seed=161,
        configmaps=[
            ("pricing-engine-config", "2", "412d"),
            ("storefront-web-flags", "9", "300d"),
        ],
    )
    no_sandbox_ips(k8s, ns)
    pp = [pod_name(pe, s[0]) for s in pe["pods"]]
    mount = 'MountVolume.SetUp failed for volume "rules" : configmap references non-existent config key: rules.yaml'
    for i, sfx in enumerate(["c7kzp", "m2xwd"]):
        describe_pod(
            k8s,
            ns,
            pe,
            sfx,
            NODES_FRA,
            status="Pending",
            state=waiting("ContainerCreating"),
            started=-1255,
            conditions=NO_SANDBOX,
            extra=(
                "Volumes:\n  rules:\n    Type:      ConfigMap (a volume populated by a ConfigMap)\n"
                "    Name:      pricing-engine-config\n    Optional:  false\n"
            ),
            events_rows=[
                (
                    "Normal",
                    "Scheduled",
                    "21m",
                    "default-scheduler",
                    f"Successfully assigned {ns}/{pp[i]} to {NODES_FRA[i][0]}",
                ),
                ("Warning", "FailedMount", "56s (x18 over 21m)", "kubelet", mount),
            ],
        )
    cont = container_text(
        "pricing-engine",
        img,
        8080,
        env={
            "RULES_PATH": "/etc/pricing/rules.yaml",
            "JAVA_TOOL_OPTIONS": "-XX:MaxRAMPercentage=75",
        },
        readiness="http-get http://:http/health/ready delay=10s timeout=1s period=5s #success=1 #failure=3",
    ).replace(
        "      /var/run/secrets/kubernetes.io/serviceaccount from kube-api-access (ro)",
        "      /etc/pricing from rules (ro)\n      /var/run/secrets/kubernetes.io/serviceaccount from kube-api-access (ro)",
    )
    k8s[f"kubectl describe deployments pricing-engine -n {ns}"] = deployment_describe(
        "pricing-engine",
        ns,
        replicas="3 desired | 3 updated | 3 total | 0 available | 3 unavailable",
        revision=58,
        containers=cont,
        strategy="Recreate",
        conditions=[
            ("Available", "False", "MinimumReplicasUnavailable"),
            ("Progressing", "True", "ReplicaSetUpdated"),
        ],
        old_rs="pricing-engine-5d9c8b7f6 (0/0 replicas created)",
        new_rs=f"pricing-engine-{rs} (3/3 replicas created)",
        events_rows=[
            (
                "Normal",
                "ScalingReplicaSet",
                "21m",
                "deployment-controller",
                "Scaled down replica set pricing-engine-5d9c8b7f6 to 0 from 3",
            ),
            (
                "Normal",
                "ScalingReplicaSet",
                "21m",
                "deployment-controller",
                f"Scaled up replica set pricing-engine-{rs} to 3",
            ),
        ],
    ).replace(
        "  Volumes:\n",
        "  Volumes:\n   rules:\n    Type:      ConfigMap (a volume populated by a ConfigMap)\n"
        "    Name:      pricing-engine-config\n    Optional:  false\n",
    )
    k8s[
        f"kubectl describe configmaps pricing-engine-config -n {ns}"
    ] = f"""Name:         pricing-engine-config
Namespace:    {ns}
Labels:       app=pricing-engine
              config.lumen-shop.io/source=pricing-config-repo
Annotations:  config.lumen-shop.io/commit: 9e41c7a

Data
====
pricing-rules.yaml:
----
version: 14
currency_default: EUR
rounding: half_even
markdowns:
  - sku_prefix: "OUT-"
    percent: 30

tax_zones.yaml:
----
DE: 0.19
AT: 0.20
FR: 0.20


BinaryData
====

Events:  <none>
"""
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "21m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/pricing-engine",
                "Scaled down replica set pricing-engine-5d9c8b7f6 to 0 from 3",
            ),
            (
                "21m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/pricing-engine",
                f"Scaled up replica set pricing-engine-{rs} to 3",
            ),
            *[
                (
                    "21m",
                    "Normal",
                    "Scheduled",
                    f"Pod/{p}",
                    f"Successfully assigned {ns}/{p} to {NODES_FRA[i][0]}",
                )
                for i, p in enumerate(pp)
            ],
            *[
                ("56s (x18 over 21m)", "Warning", "FailedMount", f"Pod/{p}", mount)
                for p in pp
            ],
        ]
    )
    wp = [pod_name(web, s[0]) for s in web["pods"]]
    ip = pod_name(idx, "j5pdm")
    bgs = [
        bg(
            "storefront-web",
            wp,
            [
                "GET /p/{n} 200 {ms}ms",
                "GET /c/shoes 200 {ms}ms",
                "GET /healthz 200 1ms",
            ],
            3,
        ),
        bg(
            "pricing-engine",
            ["pricing-engine-5d9c8b7f6-w8ktn", "pricing-engine-5d9c8b7f6-f2jqs"],
            ["POST /v3/price 200 {ms}ms"],
            4,
            until=start - 5,
        ),
        bg("search-indexer", [ip], ["indexed batch of {n} documents in {ms}ms"], 20),
    ]
    evs = [
        ev(
            "pricing-config-ci",
            "info",
            "pricing-config-repo@9e41c7a applied to catalog/pricing-engine-config: keys rules.yaml -> pricing-rules.yaml, +tax_zones.yaml",
            at=-40200,
        ),
        ev(
            "argocd",
            "info",
            "application pricing-engine synced to chart 6.0.0 (revision 58; strategy Recreate)",
            at=start - 10,
        ),
        ev(
            "storefront-web",
            "info",
            "storefront-web 41.7.2 started (new PDP carousel)",
            at=-3120,
            pods=wp,
        ),
        ev(
            "storefront-web",
            "error",
            "price lookup failed: POST http://pricing-engine.catalog.svc.cluster.local:8080/v3/price: connect ECONNREFUSED 10.96.41.18:8080",
            **{"from": start + 15, "to": -2, "every_s": 2},
            pods=wp,
        ),
        ev(
            "storefront-web",
            "error",
            "GET /p/{n} 503 rendered error page (price unavailable)",
            **{"from": start + 15, "to": -2, "every_s": 1.5},
            pods=wp,
        ),
        ev(
            "search-indexer",
            "warn",
            "mapping conflict on field 'colour' in 3 documents; skipped",
            **{"from": -7100, "to": -10, "every_s": 240},
            pod=ip,
        ),
        ev(
            "catalog-cache",
            "error",
            "OOM command not allowed when used memory > 'maxmemory'",
            **{"from": -9000, "to": -8300, "every_s": 30},
            pod="catalog-cache-0",
        ),
    ]
    return {
        "incident": {
            "title": "product pages erroring",
            "service": "product pages",
            "severity": "sev1",
            "symptoms": ["price unavailable on every product"],
            "description": "",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "platform",
            "root_cause_stage": "startup",
            "root_cause_reason": "FailedMount",
            "root_cause_component": [
                "configmap/pricing-engine-config",
                "pricing-engine-config",
                "deployment/pricing-engine",
                "pricing-engine",
                f"replicaset/pricing-engine-{rs}",
            ],
            "root_cause_signal": "non-existent config key",
            "root_cause": "pricing-engine's chart 6.0.0 mounts the key rules.yaml of ConfigMap pricing-engine-config, but the config repo renamed that key to pricing-rules.yaml last night. The Recreate rollout stopped all old pods; the three new ones never start (FailedMount: configmap references non-existent config key), the Service has no endpoints and storefront-web's price lookups are refused. storefront-web's 503s are the victim's; its own release, the indexer's mapping warnings and the cache's old OOM errors are unrelated.",
            "evidence": [
                "pods pricing-engine-8f6d7c9b5-*: ContainerCreating 21m, FailedMount … non-existent config key: rules.yaml",
                "configmap pricing-engine-config: keys pricing-rules.yaml, tax_zones.yaml",
                "storefront-web: connect ECONNREFUSED 10.96.41.18:8080",
            ],
            "remediation": "Point the volume's items at pricing-rules.yaml (or mount the whole ConfigMap) and re-sync; add the key check to the chart's CI.",
        },
        "logs": logs(seed=161, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "storefront-web",
                    "rps": 60,
                    "errors": {"503": (0.002, 0.81)},
                    "latency": (0.12, 0.05),
                },
                {
                    "name": "pricing-engine",
                    "rps": 90,
                    "rps_after": 0.0,
                    "latency": (0.02, 0.02),
                },
                {"name": "search-indexer", "rps": 3, "latency": (0.3, 0.3)},
            ],
            start=start,
            seed=161,
        ),
        "kubernetes": k8s,
        "runbooks": {
            "storefront-5xx.md": runbook(
                "Storefront 5xx",
                "storefront-web answering 5xx after a release: roll storefront-web back (`argocd app rollback storefront-web`) and check the PDP carousel flag in storefront-web-flags.",
            ),
        },
    }


# =================================================================================================
# 2. A storage ResourceQuota blocks a StatefulSet's new volume claims (admission): the HPA scales
#    ingest-buffer from 4 to 6 under the evening device surge, but the controller cannot create
#    data-ingest-buffer-4 (exceeded quota: telemetry-storage). The four old buffers fill and shed
#    with 429s; telemetry-gateway is the loud victim. The incident says "device telemetry".
# =================================================================================================


@scenario("pvc-quota-statefulset")
def pvc_quota_statefulset() -> dict[str, Any]:
    start = -1500
    ns = "telemetry"
    img = "ghcr.io/voltaro/ingest-buffer:2.14.1"
    buf = app(
        "ingest-buffer",
        image=img,
        port=9000,
        rs="",
        kind="StatefulSet",
        cluster_ip="None",
        service_port="9000/TCP",
        pods=[
            ("0", "1/1", "Running", "0", "9d", 0),
            ("1", "1/1", "Running", "0", "9d", 1),
            ("2", "1/1", "Running", "0", "9d", 2),
            ("3", "1/1", "Running", "0", "9d", 0),
        ],
    )
    gw = app(
        "telemetry-gateway",
        image="ghcr.io/voltaro/telemetry-gateway:1.9.0",
        port=8443,
        rs="5f8c7d6b9",
        cluster_ip="10.100.22.7",
        pods=[
            ("h4xtm", "1/1", "Running", "0", "47m", 0),
            ("n9qwc", "1/1", "Running", "0", "47m", 1),
            ("s2kbd", "1/1", "Running", "0", "46m", 2),
        ],
    )
    reg = app(
        "device-registry",
        image="ghcr.io/voltaro/device-registry:4.0.7",
        port=8080,
        rs="6d9b5c8f7",
        cluster_ip="10.100.22.40",
        pods=[("p7lrz", "1/1", "Running", "0", "33d", 1)],
    )
    sts = table(
        [
            ["NAME", "READY", "AGE", "CONTAINERS", "IMAGES"],
            ["ingest-buffer", "4/6", "210d", "ingest-buffer", img],
        ]
    )
    k8s = namespace(ns, NODES_PDX, [buf, gw, reg], seed=162, statefulsets=sts)
    claim = 'create Claim data-ingest-buffer-4 for Pod ingest-buffer-4 in StatefulSet ingest-buffer failed error: persistentvolumeclaims "data-ingest-buffer-4" is forbidden: exceeded quota: telemetry-storage, requested: requests.storage=500Gi, used: requests.storage=2000Gi, limited: requests.storage=2Ti'
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
            *[
                [
                    f"data-ingest-buffer-{i}",
                    "Bound",
                    f"pvc-{v}",
                    "500Gi",
                    "RWO",
                    "gp3",
                    "<unset>",
                    "210d",
                ]
                for i, v in enumerate(
                    [
                        "3b1f7c2e-9a4d-4e8b-b6c1-0d2e5f8a7c34",
                        "8e2c4a9b-1d7f-4c3e-a5b8-6f0d9e2c1b47",
                        "c5d9e1f3-7b2a-4d8c-9e6f-1a3b5c7d9e02",
                        "f0a8b6c4-2e9d-4b1f-8c7a-5d3e1f9b7a68",
                    ]
                )
            ],
        ]
    )
    k8s[f"kubectl get resourcequotas -n {ns}"] = table(
        [
            ["NAME", "AGE", "REQUEST", "LIMIT"],
            [
                "telemetry-storage",
                "96d",
                "persistentvolumeclaims: 4/10, requests.storage: 2000Gi/2Ti",
                "",
            ],
        ]
    )
    k8s[
        f"kubectl describe resourcequotas telemetry-storage -n {ns}"
    ] = f"""Name:                   telemetry-storage
Namespace:              {ns}
Resource                Used    Hard
--------                ----    ----
persistentvolumeclaims  4       10
requests.storage        2000Gi  2Ti
"""
    k8s[f"kubectl get horizontalpodautoscalers -n {ns}"] = h3.hpa_table(
        [
            (
                "ingest-buffer",
                "StatefulSet/ingest-buffer",
                "cpu: 94%/60%",
                "4",
                "8",
                "6",
                "210d",
            ),
            (
                "telemetry-gateway",
                "Deployment/telemetry-gateway",
                "cpu: 38%/70%",
                "3",
                "12",
                "3",
                "300d",
            ),
        ]
    )
    k8s[
        f"kubectl describe statefulsets ingest-buffer -n {ns}"
    ] = f"""Name:               ingest-buffer
Namespace:          {ns}
CreationTimestamp:  {when(-18144000)}
Selector:           app=ingest-buffer
Labels:             app=ingest-buffer
Annotations:        <none>
Replicas:           6 desired | 4 total
Update Strategy:    RollingUpdate
  Partition:        0
Pods Status:        4 Running / 0 Waiting / 0 Succeeded / 0 Failed
Pod Template:
  Labels:           app=ingest-buffer
  Service Account:  ingest-buffer
  Containers:
   ingest-buffer:
    Image:      {img}
    Port:       9000/TCP (ingest)
    Host Port:  0/TCP (ingest)
    Limits:
      memory:  6Gi
    Requests:
      cpu:      2
      memory:   6Gi
    Environment:
      SEGMENT_DIR:       /data/segments
      MAX_DISK_BACKLOG:  450Gi
    Mounts:
      /data from data (rw)
  Volumes:  <none>
  Node-Selectors:  <none>
  Tolerations:     <none>
Volume Claims:
  Name:          data
  StorageClass:  gp3
  Labels:        <none>
  Annotations:   <none>
  Capacity:      500Gi
  Access Modes:  [ReadWriteOnce]
{
        event_block(
            [
                (
                    "Warning",
                    "FailedCreate",
                    "38s (x31 over 24m)",
                    "statefulset-controller",
                    claim,
                ),
            ]
        )
    }
"""
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "25m",
                "Normal",
                "SuccessfulRescale",
                "HorizontalPodAutoscaler/ingest-buffer",
                "New size: 6; reason: cpu resource utilization (percentage of request) above target",
            ),
            (
                "38s (x31 over 24m)",
                "Warning",
                "FailedCreate",
                "StatefulSet/ingest-buffer",
                claim,
            ),
        ]
    )
    bp = [f"ingest-buffer-{i}" for i in range(4)]
    gp = [pod_name(gw, s[0]) for s in gw["pods"]]
    rp = [pod_name(reg, "p7lrz")]
    bgs = [
        bg(
            "telemetry-gateway",
            gp,
            ["POST /v2/readings 202 {ms}ms", "POST /v2/heartbeat 204 {ms}ms"],
            3,
        ),
        bg("ingest-buffer", bp, ["segment {n} flushed to clickhouse in {ms}ms"], 6),
        bg("device-registry", rp, ["GET /v1/devices/{n} 200 {ms}ms"], 8),
    ]
    evs = [
        ev(
            "telemetry-gateway",
            "info",
            "telemetry-gateway 1.9.0 started (mTLS session resumption on)",
            at=-2820,
            pods=gp,
        ),
        ev(
            "ingest-buffer",
            "warn",
            "disk backlog {n} MiB above high watermark (80%); shedding new writes with 429",
            **{"from": start + 240, "to": -5, "every_s": 6},
            pods=bp,
        ),
        ev(
            "telemetry-gateway",
            "error",
            "forward to ingest-buffer failed: 429 Too Many Requests (buffer full); device batch dropped",
            **{"from": start + 260, "to": -2, "every_s": 1.2},
            pods=gp,
        ),
        ev(
            "telemetry-gateway",
            "error",
            "POST /v2/readings 503 upstream overloaded",
            **{"from": start + 260, "to": -2, "every_s": 1.5},
            pods=gp,
        ),
        ev(
            "device-registry",
            "warn",
            "firmware manifest cache miss for model VX-{n}; fetching from S3",
            **{"from": -7100, "to": -20, "every_s": 200},
            pods=rp,
        ),
        ev(
            "ingest-buffer",
            "error",
            "flush to clickhouse failed: Code: 209. DB::NetException: Timeout: connect timed out: 10.100.30.12:9000",
            **{"from": -8800, "to": -8100, "every_s": 45},
            pods=bp,
        ),
    ]
    return {
        "incident": {
            "title": "device telemetry delayed and dropping",
            "service": "device telemetry",
            "severity": "sev2",
            "symptoms": [],
            "description": "",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "platform",
            "root_cause_stage": "admission",
            "root_cause_reason": "FailedCreate",
            "root_cause_component": [
                "resourcequota/telemetry-storage",
                "telemetry-storage",
                "statefulset/ingest-buffer",
                "ingest-buffer",
            ],
            "root_cause_signal": "exceeded quota: telemetry-storage",
            "root_cause": "The evening surge made the HPA scale StatefulSet ingest-buffer from 4 to 6, but the namespace's ResourceQuota telemetry-storage (2Ti of requests.storage, 2000Gi used by the four existing 500Gi claims) forbids the claim data-ingest-buffer-4, so the StatefulSet cannot create ingest-buffer-4 (FailedCreate x31). The four buffers stay overloaded, pass their disk high watermark and shed writes with 429; telemetry-gateway drops batches and answers 503. The gateway's errors are the victim's; its release, the registry's cache misses and the old ClickHouse timeouts are unrelated.",
            "evidence": [
                "statefulset ingest-buffer: 6 desired | 4 total; FailedCreate … exceeded quota: telemetry-storage",
                "resourcequota telemetry-storage: requests.storage 2000Gi/2Ti",
                "ingest-buffer: disk backlog above high watermark; shedding new writes with 429",
            ],
            "remediation": "Raise telemetry-storage's requests.storage (to 4Ti for maxReplicas 8) or shrink the claim template; alert on FailedCreate of StatefulSets.",
        },
        "logs": logs(seed=162, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "telemetry-gateway",
                    "rps": 400,
                    "rps_after": 620,
                    "errors": {"503": (0.0005, 0.36)},
                    "latency": (0.02, 0.04),
                },
                {
                    "name": "ingest-buffer",
                    "rps": 400,
                    "rps_after": 600,
                    "errors": {"429": (0.0, 0.38)},
                    "latency": (0.004, 0.09),
                },
                {"name": "device-registry", "rps": 15, "latency": (0.01, 0.01)},
            ],
            start=start + 240,
            seed=162,
            gauges=[
                {
                    "name": "kube_statefulset_replicas",
                    "labels": {"namespace": ns, "statefulset": "ingest-buffer"},
                    "before": 4,
                    "after": 6,
                    "noise": 0.0,
                    "change_at": start - 60,
                },
                {
                    "name": "kube_statefulset_status_replicas_ready",
                    "labels": {"namespace": ns, "statefulset": "ingest-buffer"},
                    "before": 4,
                    "after": 4,
                    "noise": 0.0,
                },
                {
                    "name": "kube_resourcequota",
                    "labels": {
                        "namespace": ns,
                        "resourcequota": "telemetry-storage",
                        "resource": "requests.storage",
                        "type": "used",
                    },
                    "before": 2147483648000,
                    "after": 2147483648000,
                    "noise": 0.0,
                },
                {
                    "name": "ingest_buffer_disk_backlog_ratio",
                    "labels": {"service": "ingest-buffer"},
                    "before": 0.35,
                    "after": 0.86,
                    "change_at": start + 200,
                },
            ],
        ),
        "kubernetes": k8s,
        "runbooks": {
            "ingest-buffer-full.md": runbook(
                "ingest-buffer full (429s)",
                "When ingest-buffer sheds writes, ClickHouse is usually not keeping up. Check ClickHouse insert latency and merges; if it is slow, pause the `analytics-rollup` jobs and scale ClickHouse replicas.",
            ),
        },
    }


# =================================================================================================
# 3. A mutating admission policy breaks pods created after it: Kyverno ClusterPolicy
#    add-pod-security-defaults (synced 50 min ago) adds runAsNonRoot: true to every pod without a
#    securityContext. ticket-api's image runs as root; it was fine until a node-group rotation
#    recreated its pods, which now fail with CreateContainerConfigError. The incident says "helpdesk".
# =================================================================================================


@scenario("mutating-policy-nonroot")
def mutating_policy_nonroot() -> dict[str, Any]:
    start = -1080
    ns = "support"
    rs = "6b8d9f7c5"
    img = "registry.gitlab.com/helpwise/ticket-api:12.4.3"
    nodes = [
        ("ip-10-24-1-40.ap-southeast-2.compute.internal", "Ready", "10.24.1.40", "19m"),
        ("ip-10-24-2-96.ap-southeast-2.compute.internal", "Ready", "10.24.2.96", "19m"),
        (
            "ip-10-24-3-151.ap-southeast-2.compute.internal",
            "Ready",
            "10.24.3.151",
            "18m",
        ),
    ]
    tk = app(
        "ticket-api",
        image=img,
        port=8080,
        rs=rs,
        cluster_ip="172.20.140.21",
        pods=[
            ("d2xkr", "0/1", "CreateContainerConfigError", "0", "18m", 0),
            ("l8wzn", "0/1", "CreateContainerConfigError", "0", "18m", 1),
            ("v5qtj", "0/1", "CreateContainerConfigError", "0", "17m", 2),
        ],
        age="2y",
    )
    web = app(
        "support-web",
        image="registry.gitlab.com/helpwise/support-web:8.19.0",
        port=3000,
        rs="7c5f8b9d6",
        cluster_ip="172.20.140.8",
        pods=[
            ("c3mfp", "1/1", "Running", "0", "18m", 0),
            ("k6rbw", "1/1", "Running", "0", "18m", 1),
        ],
    )
    kb = app(
        "kb-search",
        image="registry.gitlab.com/helpwise/kb-search:3.1.0",
        port=8080,
        rs="5d7b6c9f8",
        cluster_ip="172.20.140.33",
        pods=[("g9tnh", "1/1", "Running", "0", "17m", 2)],
    )
    k8s = namespace(ns, nodes, [tk, web, kb], seed=163)
    tp = [pod_name(tk, s[0]) for s in tk["pods"]]
    err = f'Error: container has runAsNonRoot and image will run as root (pod: "{{p}}_{ns}(5e2a7c9d-{{u}}-4b1e-9f3a-8c6d2e0b7a14)", container: ticket-api)'
    patches = (
        "Annotations:      policies.kyverno.io/last-applied-patches:\n"
        "                    add-pod-security-defaults.add-run-as-non-root.kyverno.io: added /spec/securityContext/runAsNonRoot\n"
    )
    for i, sfx in enumerate(["d2xkr", "l8wzn"]):
        name = describe_pod(
            k8s,
            ns,
            tk,
            sfx,
            nodes,
            status="Pending",
            state=waiting("CreateContainerConfigError"),
            started=-1075,
            conditions=NOT_READY,
            events_rows=[
                (
                    "Normal",
                    "Scheduled",
                    "18m",
                    "default-scheduler",
                    f"Successfully assigned {ns}/{tp[i]} to {nodes[i][0]}",
                ),
                (
                    "Normal",
                    "Pulled",
                    "3m (x84 over 18m)",
                    "kubelet",
                    f'Container image "{img}" already present on machine',
                ),
                (
                    "Warning",
                    "Failed",
                    "3m (x84 over 18m)",
                    "kubelet",
                    err.format(p=tp[i], u=f"{3 + i}c7f"),
                ),
            ],
        )
        key = f"kubectl describe pods {name} -n {ns}"
        k8s[key] = k8s[key].replace(
            "Status:           Pending\n", patches + "Status:           Pending\n"
        )
    cont = container_text(
        "ticket-api",
        img,
        8080,
        env={
            "DATABASE_URL": "<set to the key 'url' in secret 'ticket-api-db'>",
            "SMTP_HOST": "smtp.helpwise.internal",
        },
        readiness="http-get http://:http/readyz delay=5s timeout=1s period=10s #success=1 #failure=3",
    )
    k8s[f"kubectl describe deployments ticket-api -n {ns}"] = deployment_describe(
        "ticket-api",
        ns,
        replicas="3 desired | 3 updated | 3 total | 0 available | 3 unavailable",
        revision=212,
        containers=cont,
        conditions=[
            ("Available", "False", "MinimumReplicasUnavailable"),
            ("Progressing", "True", "NewReplicaSetAvailable"),
        ],
        old_rs="<none>",
        new_rs=f"ticket-api-{rs} (3/3 replicas created)",
        created=-63072000,
    )
    k8s["kubectl get namespaces"] = base.namespaces(ns, "kyverno")
    k8s["kubectl get pods -n kyverno -o wide --show-labels"] = base.pods(
        [
            (
                "kyverno-admission-controller-7d9c5b8f6-4hwqp",
                "1/1",
                "Running",
                "0",
                "18m",
                "10.163.1.201",
                nodes[0][0],
                "app.kubernetes.io/component=admission-controller,app.kubernetes.io/instance=kyverno,pod-template-hash=7d9c5b8f6",
            ),
            (
                "kyverno-background-controller-5f8b7c6d9-rk2vt",
                "1/1",
                "Running",
                "0",
                "17m",
                "10.163.3.18",
                nodes[2][0],
                "app.kubernetes.io/component=background-controller,app.kubernetes.io/instance=kyverno,pod-template-hash=5f8b7c6d9",
            ),
        ]
    )
    k8s[
        "kubectl logs kyverno-admission-controller-7d9c5b8f6-4hwqp -n kyverno --tail=1000"
    ] = podlog(
        [
            (
                -3010,
                'I1205 13:09:50.112 1 controller.go:145] "policy created" logger="policy-controller" name="add-pod-security-defaults" kind=ClusterPolicy rules=["add-run-as-non-root","add-seccomp-default"]',
            ),
            (
                -1078,
                f'I1205 13:42:02.431 1 mutation.go:118] "mutation rules from policy applied successfully" logger="webhooks.resource.mutate" kind=Pod namespace={ns} name={tp[0]} policy=add-pod-security-defaults rules=["add-run-as-non-root","add-seccomp-default"]',
            ),
            (
                -1076,
                f'I1205 13:42:04.007 1 mutation.go:118] "mutation rules from policy applied successfully" logger="webhooks.resource.mutate" kind=Pod namespace={ns} name={tp[1]} policy=add-pod-security-defaults rules=["add-run-as-non-root","add-seccomp-default"]',
            ),
            (
                -1020,
                f'I1205 13:43:00.650 1 mutation.go:118] "mutation rules from policy applied successfully" logger="webhooks.resource.mutate" kind=Pod namespace={ns} name={tp[2]} policy=add-pod-security-defaults rules=["add-run-as-non-root","add-seccomp-default"]',
            ),
        ]
    )
    k8s["kubectl events -n kyverno"] = events(
        [
            (
                "50m",
                "Normal",
                "PolicyReady",
                "ClusterPolicy/add-pod-security-defaults",
                "policy add-pod-security-defaults is ready for use",
            ),
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "19m",
                "Normal",
                "NodeNotReady",
                "Pod/ticket-api-5c9d7b8f6-q4hzw",
                "Node is not ready",
            ),
            (
                "18m",
                "Normal",
                "TaintManagerEviction",
                "Pod/ticket-api-5c9d7b8f6-q4hzw",
                "Cancelling deletion of Pod support/ticket-api-5c9d7b8f6-q4hzw",
            ),
            *[
                (
                    "3m (x84 over 18m)",
                    "Warning",
                    "Failed",
                    f"Pod/{p}",
                    err.format(p=p, u=f"{3 + i}c7f"),
                )
                for i, p in enumerate(tp)
            ],
        ]
    )
    wp = [pod_name(web, s[0]) for s in web["pods"]]
    kp = [pod_name(kb, "g9tnh")]
    bgs = [
        bg("support-web", wp, ["GET /inbox 200 {ms}ms", "GET /healthz 200 1ms"], 4),
        bg(
            "ticket-api",
            ["ticket-api-5c9d7b8f6-q4hzw", "ticket-api-5c9d7b8f6-x7mnd"],
            [
                "GET /v2/tickets?assignee=me 200 {ms}ms",
                "POST /v2/tickets/{n}/replies 201 {ms}ms",
            ],
            4,
            until=start - 70,
        ),
        bg("kb-search", kp, ["query 'refund' {n} hits in {ms}ms"], 10),
    ]
    evs = [
        ev(
            "argocd",
            "info",
            "application platform-policies synced (a1c9e0f 'baseline pod security defaults'): ClusterPolicy/add-pod-security-defaults created",
            at=-3010,
        ),
        ev(
            "karpenter",
            "info",
            "disrupting nodeclaim(s) via replace, terminating 3 nodes (drift: AMI ami-0b7f3c9d2e1a46f85 -> ami-04c8e2a9f1d7b3c56)",
            at=start - 90,
        ),
        ev(
            "support-web",
            "info",
            "support-web 8.19.0 started (new macro editor)",
            at=-3500,
            pods=["support-web-5b8d6f7c9-a1b2c", "support-web-5b8d6f7c9-z9y8x"],
        ),
        ev(
            "support-web",
            "error",
            "GET /api/tickets 502: upstream ticket-api: connect ECONNREFUSED 172.20.140.21:8080",
            **{"from": start + 10, "to": -2, "every_s": 1.5},
            pods=wp,
        ),
        ev(
            "kb-search",
            "warn",
            "slow query ({ms}0ms) on index articles_v7; consider reindex",
            **{"from": -7000, "to": -20, "every_s": 260},
            pods=kp,
        ),
        ev(
            "ticket-api",
            "error",
            "smtp send failed: 421 4.7.0 Try again later (smtp.helpwise.internal)",
            **{"from": -9300, "to": -8600, "every_s": 60},
            pods=["ticket-api-5c9d7b8f6-q4hzw", "ticket-api-5c9d7b8f6-x7mnd"],
        ),
    ]
    return {
        "incident": {
            "title": "helpdesk down, agents can't open tickets",
            "service": "helpdesk",
            "severity": "sev2",
            "symptoms": [],
            "description": "",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "platform",
            "root_cause_stage": "admission",
            "root_cause_reason": "CreateContainerConfigError",
            "root_cause_component": [
                "clusterpolicy/add-pod-security-defaults",
                "add-pod-security-defaults",
                "deployment/ticket-api",
                "ticket-api",
            ],
            "root_cause_signal": "runAsNonRoot",
            "root_cause": "Kyverno ClusterPolicy add-pod-security-defaults (synced 50 min ago) mutates every new pod without a securityContext to runAsNonRoot: true. ticket-api's image runs as root, so once Karpenter's drift replacement recreated its pods, all three fail with CreateContainerConfigError (container has runAsNonRoot and image will run as root); the Service has no endpoints and support-web answers 502. The node rotation is only the trigger; support-web's errors and release, kb-search's slow queries and the old SMTP 421s are unrelated.",
            "evidence": [
                "pods ticket-api-6b8d9f7c5-*: CreateContainerConfigError; Failed: container has runAsNonRoot and image will run as root",
                "pod annotation policies.kyverno.io/last-applied-patches: add-pod-security-defaults … runAsNonRoot",
                "argocd: ClusterPolicy/add-pod-security-defaults created 50 min ago",
            ],
            "remediation": "Exclude the support namespace (or ticket-api) from the policy or set runAsUser to a non-root uid the image supports; rebuild ticket-api to run as non-root; audit-mode the policy first next time.",
        },
        "logs": logs(seed=163, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "support-web",
                    "rps": 25,
                    "errors": {"502": (0.001, 0.7)},
                    "latency": (0.09, 0.03),
                },
                {
                    "name": "ticket-api",
                    "rps": 30,
                    "rps_after": 0.0,
                    "latency": (0.04, 0.04),
                },
                {"name": "kb-search", "rps": 6, "latency": (0.2, 0.2)},
            ],
            start=start,
            seed=163,
        ),
        "kubernetes": k8s,
        "runbooks": {
            "ticket-api-down.md": runbook(
                "ticket-api down",
                "ticket-api down usually means its database: check the `ticket-api-db` secret's password rotation and the RDS instance's connections; restart ticket-api after rotating.",
            ),
            "node-rotation.md": runbook(
                "Node rotation disruption",
                "During a Karpenter drift replacement pods are briefly rescheduled; wait 10 minutes for the new nodes to become Ready before acting.",
            ),
        },
    }


# =================================================================================================
# 4. A startup probe shorter than the boot: catalog-api warms an in-memory product index on start.
#    This morning's marketplace import doubled the catalogue, so a cold start now takes ~190 s, but
#    the startupProbe allows 12 x 10 s. Pods that were running keep running; the two replaced after
#    a spot interruption are killed at 120 s, forever. The incident says "browse".
# =================================================================================================


@scenario("startup-probe-too-short")
def startup_probe_too_short() -> dict[str, Any]:
    start = -1440
    ns = "browse"
    rs = "7d5c8b9f6"
    img = "ghcr.io/tidewater-market/catalog-api:9.12.0"
    cat = app(
        "catalog-api",
        image=img,
        port=8080,
        rs=rs,
        cluster_ip="10.100.61.14",
        pods=[
            ("b8rkw", "1/1", "Running", "0", "26h", 0),
            ("f3nzq", "1/1", "Running", "0", "26h", 1),
            ("m6tcx", "0/1", "CrashLoopBackOff", "9 (2m11s ago)", "24m", 2),
            ("w2jhd", "0/1", "Running", "10 (41s ago)", "24m", 0),
        ],
    )
    web = app(
        "shop-frontend",
        image="ghcr.io/tidewater-market/shop-frontend:22.3.1",
        port=3000,
        rs="5c8f7d6b9",
        cluster_ip="10.100.61.3",
        pods=[
            ("d7plm", "1/1", "Running", "0", "3d", 0),
            ("h9vxs", "1/1", "Running", "0", "3d", 1),
            ("r4kqb", "1/1", "Running", "0", "3d", 2),
        ],
    )
    rec = app(
        "reco-api",
        image="ghcr.io/tidewater-market/reco-api:5.0.2",
        port=8080,
        rs="6f9d8c7b5",
        cluster_ip="10.100.61.52",
        pods=[("k5wgt", "1/1", "Running", "0", "41m", 1)],
    )
    k8s = namespace(ns, NODES_PDX, [cat, web, rec], seed=164)
    cp = [pod_name(cat, s[0]) for s in cat["pods"]]
    ips = ips_of(k8s, ns)
    probes = (
        "    Liveness:   http-get http://:http/actuator/health/liveness delay=0s timeout=1s period=10s #success=1 #failure=3\n"
        "    Readiness:  http-get http://:http/actuator/health/readiness delay=0s timeout=1s period=5s #success=1 #failure=3\n"
        "    Startup:    http-get http://:http/actuator/health/liveness delay=0s timeout=1s period=10s #success=1 #failure=12\n"
    )
    for sfx, state, restarts in [
        ("m6tcx", crashloop(143, "Error", -385, -262), 9),
        ("w2jhd", running(-41), 10),
    ]:
        name = pod_name(cat, sfx)
        describe_pod(
            k8s,
            ns,
            cat,
            sfx,
            NODES_PDX,
            state=state,
            started=-1435,
            restarts=restarts,
            conditions=NOT_READY,
            probes=probes,
            events_rows=[
                (
                    "Normal",
                    "Scheduled",
                    "24m",
                    "default-scheduler",
                    f"Successfully assigned {ns}/{name} to {NODES_PDX[cat['pods'][[p[0] for p in cat['pods']].index(sfx)][5]][0]}",
                ),
                (
                    "Normal",
                    "Pulled",
                    "2m (x10 over 24m)",
                    "kubelet",
                    f'Container image "{img}" already present on machine',
                ),
                (
                    "Warning",
                    "Unhealthy",
                    "31s (x118 over 24m)",
                    "kubelet",
                    f'Startup probe failed: Get "http://{ips[name]}:8080/actuator/health/liveness": dial tcp {ips[name]}:8080: connect: connection refused',
                ),
                (
                    "Normal",
                    "Killing",
                    "2m (x9 over 22m)",
                    "kubelet",
                    "Container catalog-api failed startup probe, will be restarted",
                ),
            ],
        )
    boot = [
        (
            -385,
            "INFO  c.t.catalog.CatalogApplication - Starting CatalogApplication v9.12.0 using Java 21.0.5",
        ),
        (
            -379,
            "INFO  c.t.catalog.index.IndexWarmer - warming product index from s3://tidewater-catalog/snapshots/latest (2,310,455 products)",
        ),
        (
            -339,
            "INFO  c.t.catalog.index.IndexWarmer - warmed 520,000/2,310,455 products (40 s)",
        ),
        (
            -299,
            "INFO  c.t.catalog.index.IndexWarmer - warmed 1,010,000/2,310,455 products (80 s)",
        ),
        (
            -267,
            "INFO  c.t.catalog.index.IndexWarmer - warmed 1,440,000/2,310,455 products (112 s)",
        ),
        (
            -264,
            "INFO  o.s.b.a.l.ApplicationAvailabilityBean - shutdown requested (SIGTERM) before the application was started",
        ),
        (
            -262,
            "WARN  c.t.catalog.index.IndexWarmer - index warm-up interrupted at 1,452,310/2,310,455 products",
        ),
    ]
    k8s[f"kubectl logs {cp[2]} -n {ns} --previous --tail=1000"] = podlog(boot)
    k8s[f"kubectl logs {cp[0]} -n {ns} --tail=1000"] = podlog(
        [
            (
                -93600,
                "INFO  c.t.catalog.CatalogApplication - Starting CatalogApplication v9.12.0 using Java 21.0.5",
            ),
            (
                -93594,
                "INFO  c.t.catalog.index.IndexWarmer - warming product index from s3://tidewater-catalog/snapshots/latest (1,204,118 products)",
            ),
            (
                -93498,
                "INFO  c.t.catalog.index.IndexWarmer - product index warm: 1,204,118 products in 96.4 s",
            ),
            (
                -93497,
                "INFO  c.t.catalog.CatalogApplication - Started CatalogApplication in 103.2 seconds",
            ),
            (
                -600,
                "WARN  c.t.catalog.web.RequestLimiter - request queue {q} above 200; shedding with 503".replace(
                    "{q}", "412"
                ),
            ),
        ]
    )
    cont = container_text(
        "catalog-api",
        img,
        8080,
        env={
            "JAVA_TOOL_OPTIONS": "-XX:MaxRAMPercentage=70",
            "INDEX_SNAPSHOT": "s3://tidewater-catalog/snapshots/latest",
        },
        limits="memory:  8Gi",
        requests="cpu:      2\n  memory:   8Gi",
        liveness="http-get http://:http/actuator/health/liveness delay=0s timeout=1s period=10s #success=1 #failure=3",
        readiness="http-get http://:http/actuator/health/readiness delay=0s timeout=1s period=5s #success=1 #failure=3",
    ).replace(
        "    Environment:",
        "    Startup:    http-get http://:http/actuator/health/liveness delay=0s timeout=1s period=10s #success=1 #failure=12\n    Environment:",
    )
    k8s[f"kubectl describe deployments catalog-api -n {ns}"] = deployment_describe(
        "catalog-api",
        ns,
        replicas="4 desired | 4 updated | 4 total | 2 available | 2 unavailable",
        revision=77,
        containers=cont,
        conditions=[
            ("Available", "False", "MinimumReplicasUnavailable"),
            ("Progressing", "True", "NewReplicaSetAvailable"),
        ],
        old_rs="<none>",
        new_rs=f"catalog-api-{rs} (4/4 replicas created)",
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "25m",
                "Warning",
                "SpotInterruption",
                "Node/ip-10-90-3-12.us-west-2.compute.internal",
                "Spot interruption warning: instance i-0a7c3e9b1d5f24c86 will be terminated",
            ),
            (
                "24m",
                "Normal",
                "SuccessfulCreate",
                f"ReplicaSet/catalog-api-{rs}",
                f"Created pod: {cp[2]}",
            ),
            (
                "24m",
                "Normal",
                "SuccessfulCreate",
                f"ReplicaSet/catalog-api-{rs}",
                f"Created pod: {cp[3]}",
            ),
            (
                "31s (x236 over 24m)",
                "Warning",
                "Unhealthy",
                f"Pod/{cp[2]}",
                f'Startup probe failed: Get "http://{ips[cp[2]]}:8080/actuator/health/liveness": dial tcp {ips[cp[2]]}:8080: connect: connection refused',
            ),
            (
                "2m (x18 over 22m)",
                "Normal",
                "Killing",
                f"Pod/{cp[3]}",
                "Container catalog-api failed startup probe, will be restarted",
            ),
            (
                "2m11s (x61 over 20m)",
                "Warning",
                "BackOff",
                f"Pod/{cp[2]}",
                f"Back-off restarting failed container catalog-api in pod {cp[2]}_{ns}(3f7b2a9c-8d1e-4c6f-a5b0-9e2d7c4f1a83)",
            ),
        ]
    )
    wp = [pod_name(web, s[0]) for s in web["pods"]]
    rp = [pod_name(rec, "k5wgt")]
    bgs = [
        bg(
            "shop-frontend",
            wp,
            ["GET /browse/garden 200 {ms}ms", "GET /p/{n} 200 {ms}ms"],
            3,
        ),
        bg(
            "catalog-api",
            cp[:2],
            [
                "GET /v4/products?category=garden 200 {ms}ms",
                "GET /v4/products/{n} 200 {ms}ms",
            ],
            3,
        ),
        bg("reco-api", rp, ["GET /v1/reco/home 200 {ms}ms"], 6),
    ]
    evs = [
        ev(
            "catalog-import",
            "info",
            "full import finished: 2,310,455 products (was 1,204,118; +1,106,337 from marketplace feed 'homewares-eu'); snapshot s3://tidewater-catalog/snapshots/latest replaced",
            at=-14400,
            pod="catalog-import-29941200-x8k2p",
        ),
        ev(
            "reco-api",
            "info",
            "reco-api 5.0.2 started (model home-v31)",
            at=-2460,
            pods=rp,
        ),
        ev(
            "catalog-api",
            "warn",
            "request queue {n} above 200; shedding with 503",
            **{"from": start + 90, "to": -3, "every_s": 8},
            pods=cp[:2],
        ),
        ev(
            "catalog-api",
            "warn",
            "GC pause (G1 Evacuation Pause) {ms}0ms, heap 6.9G/7.0G",
            **{"from": start + 120, "to": -10, "every_s": 45},
            pods=cp[:2],
        ),
        ev(
            "shop-frontend",
            "error",
            "GET /browse/{n} 504: catalog-api did not answer within 3000ms",
            **{"from": start + 90, "to": -2, "every_s": 1.2},
            pods=wp,
        ),
        ev(
            "reco-api",
            "warn",
            "feature store lookup slow ({ms}0ms) for segment new_visitors",
            **{"from": -7100, "to": -15, "every_s": 300},
            pods=rp,
        ),
        ev(
            "catalog-api",
            "error",
            "opensearch: circuit_breaking_exception [parent] Data too large",
            **{"from": -9500, "to": -8900, "every_s": 50},
            pods=cp[:2],
        ),
    ]
    return {
        "incident": {
            "title": "browse pages slow and timing out",
            "service": "browse",
            "severity": "sev2",
            "symptoms": ["category pages time out"],
            "description": "",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "application",
            "root_cause_stage": "startup",
            "root_cause_reason": "Unhealthy",
            "root_cause_component": [
                "deployment/catalog-api",
                "catalog-api",
                f"replicaset/catalog-api-{rs}",
            ],
            "root_cause_signal": "failed startup probe",
            "root_cause": "catalog-api warms its product index before it listens. This morning's import doubled the catalogue (1.2 M to 2.3 M products), so a cold start now needs ~190 s, but the startupProbe allows 12 x 10 s = 120 s. The two pods created after the spot interruption are killed at 120 s every time (Container catalog-api failed startup probe, will be restarted; CrashLoopBackOff), so catalog-api runs on 2 of 4 pods, sheds with 503 and shop-frontend times out. The spot interruption is the trigger; the GC and queue warnings are load; reco-api and the old OpenSearch errors are unrelated.",
            "evidence": [
                "pods catalog-api-7d5c8b9f6-m6tcx / -w2jhd: restarts 9-10, Killing: failed startup probe; Startup #failure=12 period=10s",
                "previous log: warmed 1,440,000/2,310,455 products (112 s), then SIGTERM",
                "catalog-import: 2,310,455 products (was 1,204,118); the running pods warmed 1.2 M in 96 s",
            ],
            "remediation": "Raise the startupProbe's failureThreshold (e.g. 40) or load the index lazily / from a memory-mapped snapshot; size the probe from the warm-up metric.",
        },
        "logs": logs(seed=164, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "shop-frontend",
                    "rps": 80,
                    "errors": {"504": (0.001, 0.22)},
                    "latency": (0.15, 1.1),
                },
                {
                    "name": "catalog-api",
                    "rps": 120,
                    "rps_after": 95,
                    "errors": {"503": (0.0, 0.18)},
                    "latency": (0.03, 0.6),
                },
                {"name": "reco-api", "rps": 20, "latency": (0.05, 0.05)},
            ],
            start=start,
            seed=164,
            gauges=[
                {
                    "name": "kube_deployment_status_replicas_available",
                    "labels": {"namespace": ns, "deployment": "catalog-api"},
                    "before": 4,
                    "after": 2,
                    "noise": 0.0,
                    "change_at": start - 60,
                },
                {
                    "name": "catalog_index_products",
                    "labels": {"service": "catalog-api"},
                    "before": 1204118,
                    "after": 1204118,
                    "noise": 0.0,
                },
            ],
        ),
        "kubernetes": k8s,
        "runbooks": {
            "spot-interruptions.md": runbook(
                "Spot interruptions",
                "After a spot interruption the cluster-autoscaler adds capacity within ~5 minutes and pods reschedule by themselves. If a service stays degraded, scale it out (`kubectl scale deploy/<name> --replicas=+2`).",
            ),
        },
    }


# =================================================================================================
# 5. NodeLocal DNSCache down on one node: a canary node on the new AMI (iptables-nft only) cannot run
#    node-cache (it exits on the NOTRACK rule), and the kubelet there still points every pod at
#    169.254.20.10. Only the pods on that node fail their lookups: one of three returns-api replicas
#    and refund-worker, which crash-loops. The incident says "refunds".
# =================================================================================================


@scenario("nodelocaldns-one-node")
def nodelocaldns_one_node() -> dict[str, Any]:
    start = -1620
    ns = "returns"
    bad = NODES_FRA[1][0]
    nodes = [NODES_FRA[0], (bad, "Ready", NODES_FRA[1][2], "31m"), NODES_FRA[2]]
    api = app(
        "returns-api",
        image="eu.gcr.io/parcelo-prod/returns-api:3.28.0",
        port=8080,
        rs="5b9c7d8f6",
        cluster_ip="10.96.77.10",
        pods=[
            ("c2qvx", "1/1", "Running", "0", "4d", 0),
            ("j7mtn", "1/1", "Running", "0", "28m", 1),
            ("x4hwb", "1/1", "Running", "0", "4d", 2),
        ],
    )
    rw = app(
        "refund-worker",
        image="eu.gcr.io/parcelo-prod/refund-worker:1.17.2",
        port=8080,
        rs="8d6f5c7b9",
        cluster_ip="10.96.77.31",
        service=False,
        pods=[("q9zkd", "0/1", "CrashLoopBackOff", "8 (1m40s ago)", "28m", 1)],
    )
    lbl = app(
        "label-service",
        image="eu.gcr.io/parcelo-prod/label-service:6.2.1",
        port=8080,
        rs="6c8b9d5f7",
        cluster_ip="10.96.77.44",
        pods=[
            ("f5rlp", "1/1", "Running", "0", "12d", 0),
            ("s8wcn", "1/1", "Running", "0", "12d", 2),
        ],
    )
    k8s = namespace(
        ns, nodes, [api, rw, lbl], seed=165, extra_namespaces=("kube-system",)
    )
    ips = ips_of(k8s, ns)
    api_bad = pod_name(api, "j7mtn")
    rwp = pod_name(rw, "q9zkd")
    ds = "node-local-dns"
    dsp = ["node-local-dns-4wzrt", "node-local-dns-9kxbm", "node-local-dns-tq6vh"]
    k8s["kubectl get daemonsets -n kube-system -o wide"] = table(
        [
            DS_HEADER,
            [
                "aws-node",
                "3",
                "3",
                "3",
                "3",
                "3",
                "<none>",
                "500d",
                "aws-node,aws-eks-nodeagent",
                "602401143452.dkr.ecr.eu-central-1.amazonaws.com/amazon-k8s-cni:v1.19.0-eksbuild.1,602401143452.dkr.ecr.eu-central-1.amazonaws.com/amazon/aws-network-policy-agent:v1.1.5-eksbuild.1",
                "k8s-app=aws-node",
            ],
            [
                "kube-proxy",
                "3",
                "3",
                "3",
                "3",
                "3",
                "<none>",
                "500d",
                "kube-proxy",
                "602401143452.dkr.ecr.eu-central-1.amazonaws.com/eks/kube-proxy:v1.31.2-minimal-eksbuild.3",
                "k8s-app=kube-proxy",
            ],
            [
                ds,
                "3",
                "3",
                "2",
                "3",
                "2",
                "<none>",
                "220d",
                "node-cache",
                "registry.k8s.io/dns/k8s-dns-node-cache:1.23.1",
                "k8s-app=node-local-dns",
            ],
        ]
    )
    k8s["kubectl get pods -n kube-system -o wide --show-labels"] = base.pods(
        [
            (
                "coredns-5c7d9b6f8-hx2lp",
                "1/1",
                "Running",
                "0",
                "60d",
                "10.165.1.20",
                NODES_FRA[0][0],
                "k8s-app=kube-dns,pod-template-hash=5c7d9b6f8",
            ),
            (
                "coredns-5c7d9b6f8-r6mkz",
                "1/1",
                "Running",
                "0",
                "60d",
                "10.165.3.22",
                NODES_FRA[2][0],
                "k8s-app=kube-dns,pod-template-hash=5c7d9b6f8",
            ),
            (
                dsp[0],
                "1/1",
                "Running",
                "0",
                "220d",
                NODES_FRA[0][2],
                NODES_FRA[0][0],
                "controller-revision-hash=7f9c8d6b5,k8s-app=node-local-dns,pod-template-generation=4",
            ),
            (
                dsp[1],
                "0/1",
                "CrashLoopBackOff",
                "10 (2m3s ago)",
                "31m",
                NODES_FRA[1][2],
                bad,
                "controller-revision-hash=7f9c8d6b5,k8s-app=node-local-dns,pod-template-generation=4",
            ),
            (
                dsp[2],
                "1/1",
                "Running",
                "0",
                "220d",
                NODES_FRA[2][2],
                NODES_FRA[2][0],
                "controller-revision-hash=7f9c8d6b5,k8s-app=node-local-dns,pod-template-generation=4",
            ),
        ]
    )
    fatal = "[FATAL] Error checking/adding iptables rule {raw PREROUTING [-p udp -d 169.254.20.10 --dport 53 -j NOTRACK -m comment --comment NodeLocal DNS Cache: skip conntrack]}, err: exit status 2: Warning: Extension NOTRACK revision 0 not supported, missing kernel module?\niptables v1.8.8 (legacy): Couldn't load target `NOTRACK':No such file or directory"
    k8s[f"kubectl logs {dsp[1]} -n kube-system --previous --tail=1000"] = podlog(
        [
            (-130, "2026/12/05 13:57:50 [INFO] Starting node-cache image: 1.23.1"),
            (-130, "2026/12/05 13:57:50 [INFO] Using Corefile /etc/Corefile"),
            (
                -130,
                "2026/12/05 13:57:50 [INFO] Updated Corefile with 0 custom stubdomains and upstream servers /etc/upstream.conf",
            ),
            (-129, "2026/12/05 13:57:51 [INFO] Added interface - nodelocaldns"),
            (-129, "2026/12/05 13:57:51 " + fatal),
        ]
    )
    k8s[f"kubectl describe pods {dsp[1]} -n kube-system"] = pod_describe(
        dsp[1],
        "kube-system",
        node=f"{bad}/{NODES_FRA[1][2]}",
        owner=f"DaemonSet/{ds}",
        labels="controller-revision-hash=7f9c8d6b5,k8s-app=node-local-dns,pod-template-generation=4",
        status="Running",
        ip=NODES_FRA[1][2],
        container="node-cache",
        image="registry.k8s.io/dns/k8s-dns-node-cache:1.23.1",
        state=crashloop(1, "Error", -130, -129),
        ready=False,
        restarts=10,
        started=-1860,
        conditions=NOT_READY,
        qos="Burstable",
        probes="    Args:\n      -localip\n      169.254.20.10,172.20.0.10\n      -conf\n      /etc/Corefile\n      -upstreamsvc\n      kube-dns-upstream\n",
        events_rows=[
            (
                "Normal",
                "Scheduled",
                "31m",
                "default-scheduler",
                f"Successfully assigned kube-system/{dsp[1]} to {bad}",
            ),
            (
                "Normal",
                "Pulled",
                "2m3s (x11 over 31m)",
                "kubelet",
                'Container image "registry.k8s.io/dns/k8s-dns-node-cache:1.23.1" already present on machine',
            ),
            (
                "Warning",
                "BackOff",
                "58s (x140 over 30m)",
                "kubelet",
                f"Back-off restarting failed container node-cache in pod {dsp[1]}_kube-system(c1d4e7a2-5b8f-4a3c-9d6e-2f0b7a1c8e53)",
            ),
        ],
    ).replace(
        "Priority:         0",
        "Priority:         2000001000\nPriority Class Name:  system-node-critical",
    )
    k8s[f"kubectl describe nodes {bad}"] = (
        node_describe(
            bad,
            NODES_FRA[1][2],
            pods_rows=[
                ("kube-system", "aws-node-8fj2q"),
                ("kube-system", "kube-proxy-m4x7c"),
                ("kube-system", dsp[1]),
                (ns, api_bad),
                (ns, rwp),
            ],
            events_text=indent(
                dtable(
                    [
                        ["Type", "Reason", "Age", "From", "Message"],
                        ["----", "------", "----", "----", "-------"],
                        [
                            "Normal",
                            "RegisteredNode",
                            "31m",
                            "node-controller",
                            f"Node {bad} event: Registered Node {bad} in Controller",
                        ],
                        [
                            "Normal",
                            "NodeReady",
                            "30m",
                            "kubelet",
                            f"Node {bad} status is now: NodeReady",
                        ],
                    ]
                )
            ),
        )
        .replace(
            "                    node.kubernetes.io/instance-type=m6i.2xlarge",
            "                    node.kubernetes.io/instance-type=m6i.2xlarge\n                    eks.amazonaws.com/nodegroup=general-canary\n                    parcelo.io/ami=al2023-eks-1.31-v20241205-nft",
        )
        .replace(
            "CreationTimestamp:  " + when(-3542400),
            "CreationTimestamp:  " + when(-1860),
        )
    )
    k8s[f"kubectl logs {rwp} -n {ns} --previous --tail=1000"] = podlog(
        [
            (
                -160,
                "INFO  refund-worker 1.17.2 starting; brokers=kafka-0.kafka.streaming.svc.cluster.local:9092",
            ),
            (
                -155,
                "ERROR kafka: dial tcp: lookup kafka-0.kafka.streaming.svc.cluster.local on 169.254.20.10:53: read udp 10.165.2.58:41822->169.254.20.10:53: i/o timeout",
            ),
            (-101, "FATAL could not connect to any broker within 60s, exiting"),
        ]
    )
    k8s[f"kubectl describe pods {rwp} -n {ns}"] = pod_describe(
        rwp,
        ns,
        node=f"{bad}/{NODES_FRA[1][2]}",
        owner=f"ReplicaSet/refund-worker-{rw['rs']}",
        labels=f"app=refund-worker,pod-template-hash={rw['rs']}",
        status="Running",
        ip=ips[rwp],
        container="refund-worker",
        image=rw["image"],
        state=crashloop(1, "Error", -160, -101),
        ready=False,
        restarts=8,
        started=-1680,
        conditions=NOT_READY,
        events_rows=[
            (
                "Warning",
                "BackOff",
                "1m40s (x97 over 27m)",
                "kubelet",
                f"Back-off restarting failed container refund-worker in pod {rwp}_{ns}(8b3e1f5a-2c7d-4e9b-a6f0-4d1c9e7b2a58)",
            )
        ],
    )
    k8s["kubectl events -n kube-system"] = events(
        [
            (
                "31m",
                "Normal",
                "Scheduled",
                f"Pod/{dsp[1]}",
                f"Successfully assigned kube-system/{dsp[1]} to {bad}",
            ),
            (
                "2m3s (x11 over 31m)",
                "Normal",
                "Pulled",
                f"Pod/{dsp[1]}",
                'Container image "registry.k8s.io/dns/k8s-dns-node-cache:1.23.1" already present on machine',
            ),
            (
                "58s (x140 over 30m)",
                "Warning",
                "BackOff",
                f"Pod/{dsp[1]}",
                f"Back-off restarting failed container node-cache in pod {dsp[1]}_kube-system(c1d4e7a2-5b8f-4a3c-9d6e-2f0b7a1c8e53)",
            ),
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "28m",
                "Normal",
                "Scheduled",
                f"Pod/{api_bad}",
                f"Successfully assigned {ns}/{api_bad} to {bad}",
            ),
            (
                "28m",
                "Normal",
                "Scheduled",
                f"Pod/{rwp}",
                f"Successfully assigned {ns}/{rwp} to {bad}",
            ),
            (
                "1m40s (x97 over 27m)",
                "Warning",
                "BackOff",
                f"Pod/{rwp}",
                f"Back-off restarting failed container refund-worker in pod {rwp}_{ns}(8b3e1f5a-2c7d-4e9b-a6f0-4d1c9e7b2a58)",
            ),
        ]
    )
    ap = [pod_name(api, s[0]) for s in api["pods"]]
    good = [p for p in ap if p != api_bad]
    lp = [pod_name(lbl, s[0]) for s in lbl["pods"]]
    bgs = [
        bg(
            "returns-api",
            good,
            ["POST /v1/returns 201 {ms}ms", "GET /v1/returns/{n} 200 {ms}ms"],
            3,
        ),
        bg("label-service", lp, ["label {n} rendered (DHL) in {ms}ms"], 6),
    ]
    evs = [
        ev(
            "eks-nodegroups",
            "info",
            f"nodegroup general-canary: launched {bad} from launch template lt-0d7e2c9a1b4f63e85 v14 (ami al2023-eks-1.31-v20241205-nft)",
            at=start - 240,
        ),
        ev(
            "returns-api",
            "error",
            f"POST /v1/refunds 500: lookup returns-db.returns.svc.cluster.local on 169.254.20.10:53: read udp {ips[api_bad]}:{{n}}->169.254.20.10:53: i/o timeout",
            **{"from": start + 30, "to": -3, "every_s": 4},
            pod=api_bad,
        ),
        ev(
            "refund-worker",
            "error",
            "kafka: dial tcp: lookup kafka-0.kafka.streaming.svc.cluster.local on 169.254.20.10:53: read udp 10.165.2.58:{n}->169.254.20.10:53: i/o timeout",
            **{"from": start + 40, "to": -100, "every_s": 150},
            pod=rwp,
        ),
        ev(
            "refund-worker",
            "error",
            "FATAL could not connect to any broker within 60s, exiting",
            **{"from": start + 100, "to": -100, "every_s": 180},
            pod=rwp,
        ),
        ev(
            "payments-gateway",
            "error",
            "refund webhook for return {n} not acknowledged in 30s; retrying",
            **{"from": start + 300, "to": -5, "every_s": 9},
            pods=["payments-gateway-0", "payments-gateway-1"],
        ),
        ev(
            "label-service",
            "warn",
            "carrier DHL label API slow ({ms}00ms)",
            **{"from": -7000, "to": -30, "every_s": 400},
            pods=lp,
        ),
        ev(
            "returns-api",
            "error",
            "POST /v1/returns 502: label-service: upstream connect error or disconnect/reset before headers",
            **{"from": -8200, "to": -7700, "every_s": 40},
            pods=good,
        ),
    ]
    return {
        "incident": {
            "title": "refunds stuck, customers not refunded",
            "service": "refunds",
            "severity": "sev2",
            "symptoms": [],
            "description": "",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "dns",
            "root_cause_stage": "infrastructure",
            "root_cause_reason": "CrashLoopBackOff",
            "root_cause_component": [
                "daemonset/node-local-dns",
                "node-local-dns",
                f"pod/{dsp[1]}",
                dsp[1],
                f"node/{bad}",
                bad,
            ],
            "root_cause_signal": "169.254.20.10",
            "root_cause": f"A canary node ({bad}, new AMI with nft-only iptables) joined 31 min ago; NodeLocal DNSCache's pod there ({dsp[1]}) exits on its NOTRACK rule and crash-loops, while the node's kubelet still hands every pod nameserver 169.254.20.10. All lookups from pods on that node time out: the one returns-api replica scheduled there fails refunds (lookup returns-db … on 169.254.20.10:53: i/o timeout) and refund-worker cannot reach Kafka and crash-loops. Pods on the other nodes are fine. The payments-gateway retries are the victim's; the label-service slowness and its old 502s are unrelated.",
            "evidence": [
                f"daemonset node-local-dns 3 desired / 2 ready; {dsp[1]} CrashLoopBackOff on {bad}",
                "node-cache: Error checking/adding iptables rule … 169.254.20.10 … Couldn't load target `NOTRACK'",
                "returns-api (one pod) and refund-worker: lookup … on 169.254.20.10:53: i/o timeout",
            ],
            "remediation": "Cordon and drain the canary node (or roll back its AMI); run node-cache with its iptables-nft image variant before rolling the new AMI out.",
        },
        "logs": logs(seed=165, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "returns-api",
                    "rps": 30,
                    "errors": {"500": (0.001, 0.31)},
                    "latency": (0.05, 0.8),
                },
                {"name": "label-service", "rps": 8, "latency": (0.4, 0.4)},
            ],
            start=start,
            seed=165,
            gauges=[
                {
                    "name": "kafka_consumergroup_lag",
                    "labels": {
                        "consumergroup": "refund-worker",
                        "topic": "refunds.requested",
                    },
                    "before": 4,
                    "after": 2900,
                    "change_at": start + 60,
                },
                {
                    "name": "coredns_dns_requests_total:rate1m",
                    "labels": {
                        "server": "dns://169.254.20.10:53",
                        "node": NODES_FRA[0][0],
                    },
                    "before": 180,
                    "after": 185,
                },
            ],
        ),
        "kubernetes": k8s,
        "runbooks": {
            "refund-worker-crashloop.md": runbook(
                "refund-worker crash-looping",
                "refund-worker exits when it cannot reach Kafka. Check the brokers in the streaming namespace (`kubectl get pods -n streaming`), restart the broker that is out of the ISR, then restart refund-worker.",
            ),
        },
    }


# =================================================================================================
# 6. The CNI agent down on one node: cilium-agent on one node is OOM-killed on every start (the
#    memory limit the chart added last week is too small for the node running the batch pods). Pods
#    already there keep their datapath; new pods scheduled there never get a network. An HPA scale-out
#    of rate-shop lands two of its three new pods on that node. The incident says "shipping costs".
# =================================================================================================


@scenario("cni-agent-one-node")
def cni_agent_one_node() -> dict[str, Any]:
    start = -1140
    ns = "shipping"
    rs = "6d8c5f9b7"
    img = "ghcr.io/cartwheel-io/rate-shop:4.6.1"
    bad = NODES_SYD[2][0]
    rsh = app(
        "rate-shop",
        image=img,
        port=8080,
        rs=rs,
        cluster_ip="10.100.90.17",
        desired=6,
        pods=[
            ("b5kxt", "1/1", "Running", "0", "6d", 0),
            ("g2wnv", "1/1", "Running", "0", "6d", 1),
            ("p8lqz", "1/1", "Running", "0", "6d", 2),
            ("d4rmc", "1/1", "Running", "0", "18m", 0),
            ("k7vhs", "0/1", "ContainerCreating", "0", "18m", 2),
            ("t3zbn", "0/1", "ContainerCreating", "0", "18m", 2),
        ],
    )
    co = app(
        "checkout-orchestrator",
        image="ghcr.io/cartwheel-io/checkout-orchestrator:15.0.3",
        port=8080,
        rs="7f9b6d8c5",
        cluster_ip="10.100.90.4",
        pods=[
            ("c6jfw", "1/1", "Running", "0", "2d", 0),
            ("w9tnr", "1/1", "Running", "0", "2d", 1),
        ],
    )
    tr = app(
        "tracking-sync",
        image="ghcr.io/cartwheel-io/tracking-sync:2.2.0",
        port=8080,
        rs="5c7d9b8f6",
        cluster_ip="10.100.90.62",
        pods=[("m2xgd", "1/1", "Running", "0", "50m", 2)],
    )
    k8s = namespace(
        ns, NODES_SYD, [rsh, co, tr], seed=166, extra_namespaces=("kube-system",)
    )
    no_sandbox_ips(k8s, ns)
    k8s[f"kubectl get horizontalpodautoscalers -n {ns}"] = h3.hpa_table(
        [
            (
                "checkout-orchestrator",
                "Deployment/checkout-orchestrator",
                "cpu: 44%/70%",
                "2",
                "8",
                "2",
                "300d",
            ),
            (
                "rate-shop",
                "Deployment/rate-shop",
                "cpu: 131%/60%",
                "3",
                "12",
                "6",
                "300d",
            ),
        ]
    )
    rp = [pod_name(rsh, s[0]) for s in rsh["pods"]]
    sandbox = 'Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "{sid}": plugin type="cilium-cni" name="cilium" failed (add): unable to connect to Cilium daemon: failed to create cilium agent client after 30.000000 seconds timeout: Get "http:///var/run/cilium/cilium.sock/v1/config": dial unix /var/run/cilium/cilium.sock: connect: no such file or directory\nIs the agent running?'
    for i, sfx in enumerate(["k7vhs", "t3zbn"]):
        describe_pod(
            k8s,
            ns,
            rsh,
            sfx,
            NODES_SYD,
            status="Pending",
            state=waiting("ContainerCreating"),
            started=-1080,
            conditions=NO_SANDBOX,
            events_rows=[
                (
                    "Normal",
                    "Scheduled",
                    "18m",
                    "default-scheduler",
                    f"Successfully assigned {ns}/{rp[4 + i]} to {bad}",
                ),
                (
                    "Warning",
                    "FailedCreatePodSandBox",
                    "18m",
                    "kubelet",
                    sandbox.format(
                        sid=f"9c1e{i}7a3f5b2d8e4c6a0f1b9d7e3c5a2f8b6d4e1c9a7f3b5d2e8c0a6f4b1d9e{i}"
                    ),
                ),
                (
                    "Normal",
                    "SandboxChanged",
                    "47s (x31 over 18m)",
                    "kubelet",
                    "Pod sandbox changed, it will be killed and re-created.",
                ),
            ],
        )
    agents = [("cilium-5hq2r", 0), ("cilium-8xkpz", 1), ("cilium-v7dnl", 2)]
    k8s["kubectl get daemonsets -n kube-system -o wide"] = table(
        [
            DS_HEADER,
            [
                "cilium",
                "3",
                "3",
                "2",
                "3",
                "2",
                "kubernetes.io/os=linux",
                "410d",
                "cilium-agent",
                "quay.io/cilium/cilium:v1.16.4@sha256:d55ec38938854133e06739b1af237932b9c4dd4e75e9b7b2ca3acc72540a44bf",
                "k8s-app=cilium",
            ],
            [
                "cilium-envoy",
                "3",
                "3",
                "3",
                "3",
                "3",
                "kubernetes.io/os=linux",
                "120d",
                "cilium-envoy",
                "quay.io/cilium/cilium-envoy:v1.30.7-1731393961-97edc2815e2c6a174d3d12e71731d54f5d32ea16",
                "k8s-app=cilium-envoy",
            ],
        ]
    )
    k8s["kubectl get pods -n kube-system -o wide --show-labels"] = base.pods(
        [
            *[
                (
                    name,
                    "0/1" if i == 2 else "1/1",
                    "CrashLoopBackOff" if i == 2 else "Running",
                    "7 (3m12s ago)" if i == 2 else "0",
                    "6d",
                    NODES_SYD[i][2],
                    NODES_SYD[i][0],
                    "app.kubernetes.io/name=cilium-agent,controller-revision-hash=84c6f9d7b,k8s-app=cilium,pod-template-generation=19",
                )
                for name, i in agents
            ],
            (
                "cilium-operator-6f7b9c8d5-jm4ks",
                "1/1",
                "Running",
                "0",
                "6d",
                NODES_SYD[0][2],
                NODES_SYD[0][0],
                "app.kubernetes.io/name=cilium-operator,io.cilium/app=operator,name=cilium-operator,pod-template-hash=6f7b9c8d5",
            ),
            (
                "coredns-7c8d6f9b5-lq9wx",
                "1/1",
                "Running",
                "0",
                "40d",
                "10.166.1.9",
                NODES_SYD[0][0],
                "k8s-app=kube-dns,pod-template-hash=7c8d6f9b5",
            ),
        ]
    )
    k8s["kubectl describe pods cilium-v7dnl -n kube-system"] = pod_describe(
        "cilium-v7dnl",
        "kube-system",
        node=f"{bad}/{NODES_SYD[2][2]}",
        owner="DaemonSet/cilium",
        labels="app.kubernetes.io/name=cilium-agent,controller-revision-hash=84c6f9d7b,k8s-app=cilium,pod-template-generation=19",
        status="Running",
        ip=NODES_SYD[2][2],
        container="cilium-agent",
        image="quay.io/cilium/cilium:v1.16.4@sha256:d55ec38938854133e06739b1af237932b9c4dd4e75e9b7b2ca3acc72540a44bf",
        state=crashloop(137, "OOMKilled", -262, -192),
        ready=False,
        restarts=7,
        started=-518400,
        conditions=NOT_READY,
        probes="    Limits:\n      memory:  512Mi\n    Requests:\n      cpu:     100m\n      memory:  512Mi\n",
        events_rows=[
            (
                "Warning",
                "Unhealthy",
                "3m30s (x22 over 21m)",
                "kubelet",
                'Startup probe failed: Get "http://127.0.0.1:9879/healthz": dial tcp 127.0.0.1:9879: connect: connection refused',
            ),
            (
                "Warning",
                "BackOff",
                "3m12s (x41 over 20m)",
                "kubelet",
                "Back-off restarting failed container cilium-agent in pod cilium-v7dnl_kube-system(4a9e2c7f-1b3d-4f8a-b6c5-0e7d9a2f1c48)",
            ),
        ],
    ).replace(
        "Priority:         0",
        "Priority:         2000001000\nPriority Class Name:  system-node-critical",
    )
    k8s["kubectl logs cilium-v7dnl -n kube-system --previous --tail=1000"] = podlog(
        [
            (
                -262,
                'level=info msg="Cilium 1.16.4 0d5b5e1b 2024-11-20T10:27:56+01:00 go version go1.22.9 linux/amd64" subsys=daemon',
            ),
            (
                -258,
                'level=info msg="Restored 212 endpoints from the state directory" subsys=daemon',
            ),
            (
                -251,
                'level=info msg="Regenerating 212 restored endpoints" subsys=daemon',
            ),
            (
                -214,
                'level=info msg="Successfully restored endpoint. Scheduling regeneration" endpointID=1893 subsys=daemon',
            ),
            (
                -196,
                'level=warning msg="Regeneration of endpoint failed" bpfCompilation=0s bpfLoadProg=14.2s containerID=a3f9c1e7d2 endpointID=2207 error="context canceled" subsys=endpoint',
            ),
        ]
    )
    k8s[f"kubectl describe nodes {bad}"] = node_describe(
        bad,
        NODES_SYD[2][2],
        pods_rows=[
            ("kube-system", "cilium-v7dnl"),
            (ns, rp[2]),
            (ns, rp[4]),
            (ns, rp[5]),
            (ns, pod_name(tr, "m2xgd")),
            ("batch", "feed-export-29941236-x2kqp"),
        ],
        capacity=("32", "130316616Ki", "234"),
    ).replace("m6i.2xlarge", "m6i.8xlarge")
    k8s["kubectl events -n kube-system"] = events(
        [
            (
                "3m30s (x22 over 21m)",
                "Warning",
                "Unhealthy",
                "Pod/cilium-v7dnl",
                'Startup probe failed: Get "http://127.0.0.1:9879/healthz": dial tcp 127.0.0.1:9879: connect: connection refused',
            ),
            (
                "3m12s (x41 over 20m)",
                "Warning",
                "BackOff",
                "Pod/cilium-v7dnl",
                "Back-off restarting failed container cilium-agent in pod cilium-v7dnl_kube-system(4a9e2c7f-1b3d-4f8a-b6c5-0e7d9a2f1c48)",
            ),
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "18m",
                "Normal",
                "SuccessfulRescale",
                "HorizontalPodAutoscaler/rate-shop",
                "New size: 6; reason: cpu resource utilization (percentage of request) above target",
            ),
            *[
                (
                    "18m",
                    "Normal",
                    "Scheduled",
                    f"Pod/{p}",
                    f"Successfully assigned {ns}/{p} to {NODES_SYD[n][0]}",
                )
                for p, n in [(rp[3], 0), (rp[4], 2), (rp[5], 2)]
            ],
            *[
                (
                    "47s (x31 over 18m)",
                    "Normal",
                    "SandboxChanged",
                    f"Pod/{p}",
                    "Pod sandbox changed, it will be killed and re-created.",
                )
                for p in rp[4:]
            ],
            *[
                (
                    "18m",
                    "Warning",
                    "FailedCreatePodSandBox",
                    f"Pod/{p}",
                    sandbox.format(
                        sid=f"9c1e{i}7a3f5b2d8e4c6a0f1b9d7e3c5a2f8b6d4e1c9a7f3b5d2e8c0a6f4b1d9e{i}"
                    ),
                )
                for i, p in enumerate(rp[4:])
            ],
        ]
    )
    serving = rp[:4]
    cp = [pod_name(co, s[0]) for s in co["pods"]]
    tp = [pod_name(tr, "m2xgd")]
    bgs = [
        bg("rate-shop", serving, ["POST /v2/rates 200 {ms}ms"], 3),
        bg(
            "checkout-orchestrator",
            cp,
            ["POST /v1/checkout/{n}/shipping 200 {ms}ms"],
            4,
        ),
        bg("tracking-sync", tp, ["synced {n} tracking events from AusPost"], 15),
    ]
    evs = [
        ev(
            "argocd",
            "info",
            "application cilium synced to chart 1.16.4 (values: agent resources.limits.memory 512Mi added)",
            at=-518000,
        ),
        ev(
            "tracking-sync",
            "info",
            "tracking-sync 2.2.0 started (AusPost v3 API)",
            at=-3000,
            pods=tp,
        ),
        ev(
            "rate-shop",
            "warn",
            "carrier fan-out latency p99 {ms}0ms; worker pool 64/64 busy",
            **{"from": start + 60, "to": -5, "every_s": 10},
            pods=serving,
        ),
        ev(
            "checkout-orchestrator",
            "error",
            "POST /v1/checkout/{n}/shipping 504: rate-shop did not answer in 2500ms",
            **{"from": start + 90, "to": -2, "every_s": 1.5},
            pods=cp,
        ),
        ev(
            "kernel",
            "warn",
            "Memory cgroup out of memory: Killed process {n} (cilium-agent) total-vm:2315560kB, anon-rss:523880kB, file-rss:61224kB, shmem-rss:0kB, UID:0 pgtables:1652kB oom_score_adj:-997",
            **{"from": start - 60, "to": -190, "every_s": 300},
            labels={"node": bad},
        ),
        ev(
            "tracking-sync",
            "warn",
            "AusPost returned 429; backing off {n}ms",
            **{"from": -7000, "to": -30, "every_s": 350},
            pods=tp,
        ),
        ev(
            "checkout-orchestrator",
            "error",
            "POST /v1/checkout/{n}/pay 502: payments-api upstream reset",
            **{"from": -9000, "to": -8500, "every_s": 35},
            pods=cp,
        ),
    ]
    return {
        "incident": {
            "title": "shipping costs slow to load at checkout",
            "service": "shipping costs",
            "severity": "sev2",
            "symptoms": [],
            "description": "",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "platform",
            "root_cause_stage": "infrastructure",
            "root_cause_reason": "OOMKilled",
            "root_cause_component": [
                "daemonset/cilium",
                "cilium",
                "pod/cilium-v7dnl",
                "cilium-v7dnl",
                f"node/{bad}",
                bad,
            ],
            "root_cause_signal": "cilium.sock",
            "root_cause": f"The Cilium agent on {bad} (the large node that runs the batch pods, 212 endpoints) is OOM-killed on every start since its memory limit is 512Mi (added by last week's chart values), so the node has no CNI agent: pods already there keep working, but every new pod scheduled there fails FailedCreatePodSandBox (unable to connect to Cilium daemon … cilium.sock). rate-shop's HPA scale-out put two of its three new pods on that node, so rate-shop serves on 4 of 6 pods under the peak and checkout-orchestrator times out on shipping rates. checkout-orchestrator's 504s are the victim's; rate-shop's pool warnings are the load; tracking-sync's release and 429s and the old payments 502s are unrelated.",
            "evidence": [
                f"pods rate-shop-6d8c5f9b7-k7vhs / -t3zbn on {bad}: ContainerCreating, FailedCreatePodSandBox … cilium.sock",
                "daemonset cilium 3 desired / 2 ready; cilium-v7dnl CrashLoopBackOff, Last State OOMKilled, limit 512Mi",
                "kernel: Memory cgroup out of memory: Killed process (cilium-agent)",
            ],
            "remediation": "Raise cilium-agent's memory limit (or drop it; the agent is system-node-critical) and let it restart; then delete the stuck rate-shop pods. Alert on DaemonSet pods not ready.",
        },
        "logs": logs(seed=166, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "checkout-orchestrator",
                    "rps": 35,
                    "errors": {"504": (0.001, 0.2)},
                    "latency": (0.3, 1.9),
                },
                {
                    "name": "rate-shop",
                    "rps": 35,
                    "rps_after": 60,
                    "latency": (0.35, 1.6),
                    "change_at": start - 120,
                },
                {"name": "tracking-sync", "rps": 2, "latency": (0.5, 0.5)},
            ],
            start=start,
            seed=166,
            gauges=[
                {
                    "name": "kube_deployment_status_replicas_available",
                    "labels": {"namespace": ns, "deployment": "rate-shop"},
                    "before": 3,
                    "after": 4,
                    "noise": 0.0,
                },
                {
                    "name": "kube_deployment_spec_replicas",
                    "labels": {"namespace": ns, "deployment": "rate-shop"},
                    "before": 3,
                    "after": 6,
                    "noise": 0.0,
                },
                {
                    "name": "kube_daemonset_status_number_unavailable",
                    "labels": {"namespace": "kube-system", "daemonset": "cilium"},
                    "before": 0,
                    "after": 1,
                    "noise": 0.0,
                    "change_at": start - 60,
                },
            ],
        ),
        "kubernetes": k8s,
        "runbooks": {
            "rate-shop-slow.md": runbook(
                "rate-shop slow",
                "rate-shop fans out to carrier APIs. When it is slow, one carrier is usually slow: check the carrier latency dashboard and disable the slow carrier with the `carriers.disabled` flag.",
            ),
        },
    }


# =================================================================================================
# 7. An Ingress rewrite that drops the path: the web chart's clean-up replaced the public-api
#    Ingress's `rewrite-target: /$2` with `/`, so every request under /orders/… reaches orders-api as
#    `GET /` and gets 404. orders-api released an hour before and looks guilty. The incident says
#    "app" (the mobile app's order history is empty).
# =================================================================================================


@scenario("ingress-rewrite-target")
def ingress_rewrite_target() -> dict[str, Any]:
    start = -960
    ns = "web"
    oa = app(
        "orders-api",
        image="registry.digitalocean.com/pinecone/orders-api:2024.49.2",
        port=8080,
        rs="7b6d9c5f8",
        cluster_ip="10.245.12.80",
        pods=[
            ("h6kzt", "1/1", "Running", "0", "72m", 0),
            ("q2wfm", "1/1", "Running", "0", "71m", 1),
        ],
    )
    acc = app(
        "account-api",
        image="registry.digitalocean.com/pinecone/account-api:5.3.0",
        port=8080,
        rs="5f8c6b7d9",
        cluster_ip="10.245.12.91",
        pods=[
            ("n8xpr", "1/1", "Running", "0", "9d", 1),
            ("v3tjl", "1/1", "Running", "0", "9d", 2),
        ],
    )
    rec = app(
        "recs-api",
        image="registry.digitalocean.com/pinecone/recs-api:1.8.4",
        port=8080,
        rs="6c9d7f8b5",
        cluster_ip="10.245.12.104",
        pods=[("b7gqs", "1/1", "Running", "0", "20d", 2)],
    )
    nodes = [
        ("pool-general-r8x2k", "Ready", "10.110.0.4"),
        ("pool-general-r8x2q", "Ready", "10.110.0.5"),
        ("pool-general-r8x2v", "Ready", "10.110.0.7"),
    ]
    k8s = namespace(
        ns, nodes, [oa, acc, rec], seed=167, extra_namespaces=("ingress-nginx",)
    )
    ips = ips_of(k8s, ns)
    op = [pod_name(oa, s[0]) for s in oa["pods"]]
    ap = [pod_name(acc, s[0]) for s in acc["pods"]]
    rp = [pod_name(rec, "b7gqs")]
    k8s[f"kubectl get ingresses -n {ns}"] = table(
        [
            ["NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"],
            [
                "public-api",
                "nginx",
                "api.pinecone-books.example",
                "164.92.180.17",
                "80, 443",
                "1y",
            ],
            [
                "www",
                "nginx",
                "www.pinecone-books.example",
                "164.92.180.17",
                "80, 443",
                "1y",
            ],
        ]
    )
    k8s[
        f"kubectl describe ingresses public-api -n {ns}"
    ] = f"""Name:             public-api
Labels:           app.kubernetes.io/instance=web-edge
                  app.kubernetes.io/managed-by=Helm
                  helm.sh/chart=web-edge-3.0.0
Namespace:        {ns}
Address:          164.92.180.17
Ingress Class:    nginx
Default backend:  <default>
TLS:
  public-api-tls terminates api.pinecone-books.example
Rules:
  Host                        Path  Backends
  ----                        ----  --------
  api.pinecone-books.example
                              /orders(/|$)(.*)    orders-api:8080 ({ips[op[0]]}:8080,{ips[op[1]]}:8080)
                              /account(/|$)(.*)   account-api:8080 ({ips[ap[0]]}:8080,{ips[ap[1]]}:8080)
Annotations:                  meta.helm.sh/release-name: web-edge
                              meta.helm.sh/release-namespace: web
                              nginx.ingress.kubernetes.io/proxy-read-timeout: 30
                              nginx.ingress.kubernetes.io/rewrite-target: /
                              nginx.ingress.kubernetes.io/use-regex: true
Events:
  Type    Reason  Age                 From                      Message
  ----    ------  ----                ----                      -------
  Normal  Sync    17m (x4 over 1y)    nginx-ingress-controller  Scheduled for sync
"""
    k8s[f"kubectl describe ingresses www -n {ns}"] = f"""Name:             www
Labels:           app.kubernetes.io/instance=web-edge
                  app.kubernetes.io/managed-by=Helm
                  helm.sh/chart=web-edge-3.0.0
Namespace:        {ns}
Address:          164.92.180.17
Ingress Class:    nginx
Default backend:  <default>
TLS:
  www-tls terminates www.pinecone-books.example
Rules:
  Host                        Path  Backends
  ----                        ----  --------
  www.pinecone-books.example
                              /   storefront:80 (10.167.1.12:80,10.167.3.40:80)
Annotations:                  meta.helm.sh/release-name: web-edge
                              meta.helm.sh/release-namespace: web
Events:
  Type    Reason  Age                 From                      Message
  ----    ------  ----                ----                      -------
  Normal  Sync    17m (x6 over 1y)    nginx-ingress-controller  Scheduled for sync
"""
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "72m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/orders-api",
                f"Scaled up replica set orders-api-{oa['rs']} to 2",
            ),
            (
                "71m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/orders-api",
                "Scaled down replica set orders-api-8d5b7c6f9 to 0 from 2",
            ),
            ("17m", "Normal", "Sync", "Ingress/public-api", "Scheduled for sync"),
            ("17m", "Normal", "Sync", "Ingress/www", "Scheduled for sync"),
        ]
    )
    ctl = [
        "ingress-nginx-controller-6b9f7c5d8-4kqzw",
        "ingress-nginx-controller-6b9f7c5d8-wp7tn",
    ]
    access = '{ip} - - [05/Dec/2026:13:4{m}:{s}2 +0000] "GET {path} HTTP/2.0" {code} {size} "-" "PineconeBooks/7.3.1 (iOS 18.1)" 61 0.00{m} [web-{svc}-8080] [] {up}:8080 {size} 0.00{m} {code} 4f0c{m}e1d2b3a49c7e8f5a6b1c2d3e4f{s}a'
    bgs = [
        bg("orders-api", op, ["GET /healthz 200 1ms"], 10),
        bg("account-api", ap, ["GET /healthz 200 1ms"], 10),
        bg(
            "orders-api",
            op,
            ["GET /v2/orders?page=1 200 {ms}ms", "GET /v2/orders/{n} 200 {ms}ms"],
            3,
            until=start,
        ),
        bg("account-api", ap, ["GET /v1/me 200 {ms}ms"], 5, until=start),
        bg("recs-api", rp, ["GET /v1/recs/home?user={n} 200 {ms}ms"], 8),
        bg(
            "ingress-nginx",
            ctl,
            [
                access.format(
                    ip="81.2.69.160",
                    m=1,
                    s=3,
                    path="/orders/v2/orders?page=1",
                    code=200,
                    size=4812,
                    svc="orders-api",
                    up=ips[op[0]],
                ),
                access.format(
                    ip="92.40.12.7",
                    m=2,
                    s=5,
                    path="/account/v1/me",
                    code=200,
                    size=512,
                    svc="account-api",
                    up=ips[ap[1]],
                ),
            ],
            4,
            until=start,
        ),
    ]
    evs = [
        ev(
            "helm",
            "info",
            "release web-edge upgraded to chart web-edge-3.0.0 (revision 27; 'consolidate ingress annotations')",
            at=start - 70,
        ),
        ev(
            "orders-api",
            "info",
            "orders-api 2024.49.2 started (gift-wrap option on orders)",
            at=start - 3350,
            pods=op,
        ),
        ev(
            "ingress-nginx",
            "info",
            access.format(
                ip="81.2.69.160",
                m=4,
                s=1,
                path="/orders/v2/orders?page={n}",
                code=404,
                size=19,
                svc="orders-api",
                up=ips[op[1]],
            ),
            **{"from": start + 5, "to": -2, "every_s": 1.2},
            pods=ctl,
        ),
        ev(
            "ingress-nginx",
            "info",
            access.format(
                ip="92.40.12.7",
                m=5,
                s=7,
                path="/account/v1/me",
                code=404,
                size=19,
                svc="account-api",
                up=ips[ap[0]],
            ),
            **{"from": start + 5, "to": -2, "every_s": 2.5},
            pods=ctl,
        ),
        ev(
            "orders-api",
            "warn",
            "GET / 404 0ms: no route for path / (did you mean /v2/orders?)",
            **{"from": start + 5, "to": -2, "every_s": 1.2},
            pods=op,
        ),
        ev(
            "account-api",
            "warn",
            "GET / 404 1ms no handler",
            **{"from": start + 5, "to": -2, "every_s": 2.5},
            pods=ap,
        ),
        ev(
            "mobile-telemetry",
            "error",
            "iOS 7.3.1: OrdersScreen load failed: HTTP 404 api.pinecone-books.example/orders/v2/orders",
            **{"from": start + 30, "to": -5, "every_s": 3},
            pods=["mobile-telemetry-0"],
        ),
        ev(
            "recs-api",
            "warn",
            "feature vector stale for {n} users; serving popularity fallback",
            **{"from": -7000, "to": -10, "every_s": 180},
            pods=rp,
        ),
        ev(
            "orders-api",
            "error",
            "psycopg.OperationalError: server closed the connection unexpectedly (orders-db maintenance)",
            **{"from": -8600, "to": -8200, "every_s": 30},
            pods=["orders-api-8d5b7c6f9-x2lkd", "orders-api-8d5b7c6f9-c9pwr"],
        ),
    ]
    return {
        "incident": {
            "title": "app shows empty order history",
            "service": "app",
            "severity": "sev2",
            "symptoms": ["404 on orders in the iOS app"],
            "description": "",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "connect",
            "root_cause_stage": "service_routing",
            "root_cause_reason": "IngressRewrite",
            "root_cause_component": ["ingress/public-api", "public-api", "web-edge"],
            "root_cause_signal": "rewrite-target",
            "root_cause": "The web-edge chart 3.0.0 (upgraded 17 min ago) replaced the public-api Ingress's rewrite-target /$2 with /, so nginx forwards every request under /orders(/|$)(.*) and /account(/|$)(.*) as `GET /`: orders-api and account-api answer 404 (no route for /) and the app's order history and profile fail. The ingress access log shows the original path with the upstream's 404. orders-api's release an hour before is innocent (its own /v2/orders works), recs-api's warnings and the old orders-db disconnects are unrelated.",
            "evidence": [
                "ingress public-api: nginx.ingress.kubernetes.io/rewrite-target: / on paths /orders(/|$)(.*), /account(/|$)(.*)",
                "helm: web-edge upgraded to 3.0.0 just before the start",
                "orders-api: GET / 404 no route; ingress-nginx: GET /orders/v2/orders … 404 [web-orders-api-8080]",
            ],
            "remediation": "Restore `nginx.ingress.kubernetes.io/rewrite-target: /$2` on public-api (roll web-edge back to revision 26); add a synthetic check per path.",
        },
        "logs": logs(seed=167, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "orders-api",
                    "rps": 40,
                    "errors": {"404": (0.004, 0.97)},
                    "latency": (0.04, 0.001),
                },
                {
                    "name": "account-api",
                    "rps": 25,
                    "errors": {"404": (0.002, 0.97)},
                    "latency": (0.02, 0.001),
                },
                {"name": "recs-api", "rps": 12, "latency": (0.06, 0.06)},
            ],
            start=start,
            seed=167,
            gauges=[
                {
                    "name": "nginx_ingress_controller_requests:rate1m",
                    "labels": {"ingress": "public-api", "status": "404"},
                    "before": 0.3,
                    "after": 64,
                },
            ],
        ),
        "kubernetes": k8s,
        "runbooks": {
            "orders-api-release.md": runbook(
                "orders-api errors after a release",
                "If orders-api misbehaves after a deploy, roll it back: `kubectl rollout undo deploy/orders-api -n web` and post in #orders.",
            ),
        },
    }


# =================================================================================================
# 8. An ExternalName Service pointing at a retired host: billing's Service ledger-db is an
#    ExternalName for pg-ledger-01.db.corp.internal. The ledger moved to Aurora three days ago;
#    this afternoon the DBA's Terraform clean-up deleted the old record. Everything that connects to
#    ledger-db.billing.svc now gets NXDOMAIN. The incident says "invoices".
# =================================================================================================


@scenario("externalname-retired-host")
def externalname_retired_host() -> dict[str, Any]:
    start = -1200
    ns = "billing"
    old = "pg-ledger-01.db.corp.internal"
    new = "ledger-pg.cluster-c7x1ab2d9e0f.eu-west-1.rds.amazonaws.com"
    inv = app(
        "invoice-api",
        image="123456789012.dkr.ecr.eu-west-1.amazonaws.com/billing/invoice-api:8.2.0",
        port=8080,
        rs="5c9b7d8f6",
        cluster_ip="172.20.33.12",
        pods=[
            ("d3wqk", "1/1", "Running", "0", "35m", 0),
            ("j8mzt", "1/1", "Running", "0", "35m", 1),
            ("r5xcp", "1/1", "Running", "0", "34m", 2),
        ],
    )
    dun = app(
        "dunning-worker",
        image="123456789012.dkr.ecr.eu-west-1.amazonaws.com/billing/dunning-worker:2.9.1",
        port=8080,
        rs="7d6f8b5c9",
        cluster_ip="172.20.33.40",
        service=False,
        pods=[("h2nlg", "1/1", "Running", "4 (3m ago)", "11d", 1)],
    )
    tax = app(
        "tax-engine",
        image="123456789012.dkr.ecr.eu-west-1.amazonaws.com/billing/tax-engine:4.4.0",
        port=8080,
        rs="6b8c9f7d5",
        cluster_ip="172.20.33.57",
        pods=[("v9ktb", "1/1", "Running", "0", "60d", 2)],
    )
    nodes = [
        ("ip-10-12-1-31.eu-west-1.compute.internal", "Ready", "10.12.1.31"),
        ("ip-10-12-2-87.eu-west-1.compute.internal", "Ready", "10.12.2.87"),
        ("ip-10-12-3-14.eu-west-1.compute.internal", "Ready", "10.12.3.14"),
    ]
    k8s = namespace(ns, nodes, [inv, dun, tax], seed=168)
    k8s[f"kubectl get services -n {ns} -o wide"] = table(
        [
            ["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE", "SELECTOR"],
            [
                "invoice-api",
                "ClusterIP",
                "172.20.33.12",
                "<none>",
                "8080/TCP",
                "300d",
                "app=invoice-api",
            ],
            ["ledger-db", "ExternalName", "<none>", old, "5432/TCP", "2y", "<none>"],
            [
                "tax-engine",
                "ClusterIP",
                "172.20.33.57",
                "<none>",
                "8080/TCP",
                "300d",
                "app=tax-engine",
            ],
        ]
    )
    k8s[
        f"kubectl describe services ledger-db -n {ns}"
    ] = f"""Name:              ledger-db
Namespace:         {ns}
Labels:            app.kubernetes.io/managed-by=kustomize
Annotations:       <none>
Selector:          <none>
Type:              ExternalName
IP Families:       <none>
IP:
IPs:               <none>
External Name:     {old}
Port:              postgres  5432/TCP
TargetPort:        5432/TCP
Endpoints:         <none>
Session Affinity:  None
Events:            <none>
"""
    ip = [pod_name(inv, s[0]) for s in inv["pods"]]
    dp = [pod_name(dun, "h2nlg")]
    tp = [pod_name(tax, "v9ktb")]
    k8s[f"kubectl get configmaps -n {ns}"] = table(
        [
            ["NAME", "DATA", "AGE"],
            ["invoice-api-env", "6", "300d"],
            ["kube-root-ca.crt", "1", "400d"],
        ]
    )
    k8s[
        f"kubectl describe configmaps invoice-api-env -n {ns}"
    ] = f"""Name:         invoice-api-env
Namespace:    {ns}
Labels:       app=invoice-api
Annotations:  <none>

Data
====
DB_HOST:
----
ledger-db.billing.svc.cluster.local

DB_NAME:
----
ledger

DB_POOL_MAX:
----
20

PDF_RENDERER_URL:
----
http://pdf-renderer.docs.svc.cluster.local:8080

TAX_ENGINE_URL:
----
http://tax-engine.billing.svc.cluster.local:8080

LOG_LEVEL:
----
info


BinaryData
====

Events:  <none>
"""
    k8s[f"kubectl logs {dp[0]} -n {ns} --previous --tail=1000"] = podlog(
        [
            (-480, "INFO  dunning-worker 2.9.1 starting run for 2026-12-05"),
            (
                -479,
                'ERROR sqlalchemy.exc.OperationalError: (psycopg2.OperationalError) could not translate host name "ledger-db.billing.svc.cluster.local" to address: Name or service not known',
            ),
            (-190, "FATAL giving up after 10 connection attempts"),
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "35m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/invoice-api",
                f"Scaled up replica set invoice-api-{inv['rs']} to 3",
            ),
            (
                "3m (x4 over 19m)",
                "Warning",
                "BackOff",
                f"Pod/{dp[0]}",
                f"Back-off restarting failed container dunning-worker in pod {dp[0]}_{ns}(2d8f1a6c-9b3e-4c7d-a5f2-7e0b1c9d4a36)",
            ),
        ]
    )
    bgs = [
        bg(
            "invoice-api",
            ip,
            ["GET /v1/invoices/{n} 200 {ms}ms", "GET /healthz 200 1ms"],
            3,
        ),
        bg("tax-engine", tp, ["POST /v2/tax/calculate 200 {ms}ms"], 4),
        bg(
            "coredns",
            ["coredns-6d9f8b7c5-2xkpl", "coredns-6d9f8b7c5-q7wzn"],
            [
                '[INFO] 10.168.{ms}.{ms}:{n} - {n} "A IN invoice-api.billing.svc.cluster.local. udp 58 false 512" NOERROR qr,aa,rd 130 0.000{ms}s'
            ],
            20,
        ),
    ]
    evs = [
        ev(
            "terraform",
            "info",
            f"dba-infra apply #4127 'retire pg-ledger-01 (migrated to aurora 2026-12-02)': aws_route53_record.pg_ledger_01 ({old} A 10.12.40.21): destroyed; aws_db_instance.pg_ledger_01: destroyed",
            at=start - 45,
        ),
        ev(
            "invoice-api",
            "info",
            "invoice-api 8.2.0 started (PDF/A-3 e-invoices)",
            at=-2100,
            pods=ip,
        ),
        ev(
            "invoice-api",
            "error",
            'POST /v1/invoices 500: could not translate host name "ledger-db.billing.svc.cluster.local" to address: Name or service not known',
            **{"from": start + 20, "to": -2, "every_s": 2},
            pods=ip,
        ),
        ev(
            "coredns",
            "info",
            '[INFO] 10.168.1.{ms}:{n} - {n} "A IN ledger-db.billing.svc.cluster.local. udp 63 false 512" NXDOMAIN qr,aa,rd 163 0.0{ms}s',
            **{"from": start + 20, "to": -2, "every_s": 4},
            pods=["coredns-6d9f8b7c5-2xkpl", "coredns-6d9f8b7c5-q7wzn"],
        ),
        ev(
            "checkout-web",
            "error",
            "subscription renewal failed: billing returned 500 for POST /v1/invoices",
            **{"from": start + 25, "to": -2, "every_s": 1.1},
            pods=[
                "checkout-web-7b9c-4kq2x",
                "checkout-web-7b9c-m8wzp",
                "checkout-web-7b9c-t5hvn",
            ],
        ),
        ev(
            "dunning-worker",
            "error",
            'could not translate host name "ledger-db.billing.svc.cluster.local" to address: Name or service not known',
            **{"from": start + 120, "to": -190, "every_s": 300},
            pods=dp,
        ),
        ev(
            "tax-engine",
            "warn",
            "VIES VAT validation slow ({ms}00ms) for country IT",
            **{"from": -7100, "to": -15, "every_s": 280},
            pods=tp,
        ),
        ev(
            "invoice-api",
            "error",
            "PDF render failed: pdf-renderer timeout after 10s",
            **{"from": -9200, "to": -8700, "every_s": 40},
            pods=["invoice-api-4f8d7c6b5-w2kxn", "invoice-api-4f8d7c6b5-l9pqd"],
        ),
    ]
    return {
        "incident": {
            "title": "invoices failing to generate",
            "service": "invoices",
            "severity": "sev2",
            "symptoms": [],
            "description": "",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "dns",
            "root_cause_stage": "service_routing",
            "root_cause_reason": "ExternalNameNXDOMAIN",
            "root_cause_component": ["service/ledger-db", "ledger-db", old],
            "root_cause_signal": old,
            "root_cause": f"billing's Service ledger-db is an ExternalName for {old}. The ledger moved to Aurora ({new}) on 2 December but the Service was never repointed; 20 min ago the DBA's Terraform clean-up destroyed the old instance and its DNS record, so ledger-db.billing.svc resolves to NXDOMAIN and invoice-api and dunning-worker cannot connect (could not translate host name). checkout-web's renewal errors are the victim's; invoice-api's release, the VIES slowness and the old PDF timeouts are unrelated.",
            "evidence": [
                f"service ledger-db: Type ExternalName, External Name {old}",
                f"netcheck {old}: dns/nxdomain; terraform destroyed aws_route53_record.pg_ledger_01",
                'invoice-api: could not translate host name "ledger-db.billing.svc.cluster.local"',
            ],
            "remediation": f"Set ledger-db's externalName to {new} (in the kustomize overlay) and restart the pools; grep for other ExternalNames pointing at retired hosts.",
            "root_cause_probe": "pg-ledger-01",
            "netcheck": {
                "pg-ledger-01": {"failed_layer": "dns", "reason": "nxdomain"},
                "ledger-aurora": {"failed_layer": "none", "reason": None},
            },
        },
        "logs": logs(seed=168, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "invoice-api",
                    "rps": 18,
                    "errors": {"500": (0.002, 0.74)},
                    "latency": (0.09, 0.02),
                },
                {
                    "name": "checkout-web",
                    "rps": 50,
                    "errors": {"500": (0.001, 0.12)},
                    "latency": (0.2, 0.2),
                },
                {"name": "tax-engine", "rps": 10, "latency": (0.08, 0.08)},
            ],
            start=start,
            seed=168,
        ),
        "kubernetes": k8s,
        "targets": [
            {
                "name": "pg-ledger-01",
                "url": f"http://{old}/",
                "fault": {"kind": "dns_nxdomain"},
            },
            {
                "name": "ledger-aurora",
                "url": f"http://{new}/",
                "fault": {"kind": "ok", "body": "ok"},
            },
        ],
        "runbooks": {
            "invoice-db-errors.md": runbook(
                "invoice-api database errors",
                "Database errors in invoice-api after a release: check the DB_PASSWORD in secret invoice-api-db (rotated monthly) and roll invoice-api back if the release changed the pool settings.",
            ),
        },
    }


# =================================================================================================
# 9. A dependency's API version retired: ShipFast turned off its v1 rates API at the announced
#    sunset (410 Gone, `api_version_retired`); shipping-rates still calls /v1/rates, so checkout
#    offers no delivery options. A probe of v1 answers 410, of v3 200. The incident says "delivery".
# =================================================================================================


@scenario("api-version-gone-410")
def api_version_gone_410() -> dict[str, Any]:
    start = -1380
    sr = ["shipping-rates-6f8d9c7b5-2kqwx", "shipping-rates-6f8d9c7b5-9tzlm"]
    cw = [
        "checkout-web-5b7c9d8f6-d4hrn",
        "checkout-web-5b7c9d8f6-k8vxs",
        "checkout-web-5b7c9d8f6-w2mqt",
    ]
    av = ["address-validator-7c6d8b9f5-p3nzg"]
    body = '{"error":"api_version_retired","message":"API v1 was retired on 2026-12-05 13:30 UTC. Migrate to /v3/rates (see https://developers.shipfast.example/migrate-v3)."}'
    bgs = [
        bg(
            "shipping-rates",
            sr,
            ["POST https://api.shipfast.example/v1/rates 200 {ms}0ms (4 services)"],
            3,
            until=start,
        ),
        bg(
            "checkout-web",
            cw,
            ["GET /checkout/shipping 200 {ms}ms", "POST /checkout/address 200 {ms}ms"],
            3,
        ),
        bg("address-validator", av, ["validated address for {n} in {ms}ms"], 5),
    ]
    evs = [
        ev(
            "shipping-rates",
            "warn",
            "ShipFast response header: Deprecation: true; Sunset: Sat, 05 Dec 2026 13:30:00 GMT (/v1/rates)",
            **{"from": -7150, "to": start - 5, "every_s": 900},
            pods=sr,
        ),
        ev(
            "checkout-web",
            "info",
            "checkout-web 2026.12.5-2 started (Apple Pay express)",
            at=start - 1900,
            pods=cw,
        ),
        ev(
            "shipping-rates",
            "error",
            f"POST https://api.shipfast.example/v1/rates -> 410 Gone: {body}",
            **{"from": start + 2, "to": -2, "every_s": 1.5},
            pods=sr,
        ),
        ev(
            "shipping-rates",
            "warn",
            "no carrier quotes for basket {n}; returning empty option list",
            **{"from": start + 2, "to": -2, "every_s": 1.5},
            pods=sr,
        ),
        ev(
            "checkout-web",
            "error",
            "GET /checkout/shipping: no delivery options returned for postcode {n}; blocking order",
            **{"from": start + 5, "to": -2, "every_s": 0.9},
            pods=cw,
        ),
        ev(
            "address-validator",
            "warn",
            "Loqate lookup slow ({ms}0ms); using cached result",
            **{"from": -7000, "to": -10, "every_s": 220},
            pods=av,
        ),
        ev(
            "shipping-rates",
            "error",
            "POST https://api.shipfast.example/v1/rates -> 429 Too Many Requests (retry-after 2)",
            **{"from": -9600, "to": -9100, "every_s": 25},
            pods=sr,
        ),
    ]
    return {
        "incident": {
            "title": "no delivery options at checkout",
            "service": "delivery",
            "severity": "sev1",
            "symptoms": ["customers can't pick a delivery method"],
            "description": "",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "http",
            "root_cause_component": [
                "api.shipfast.example",
                "shipfast",
                "shipping-rates",
            ],
            "root_cause_signal": "410",
            "root_cause": "ShipFast retired its v1 rates API at the announced sunset (13:30 UTC): every POST /v1/rates now answers 410 Gone (api_version_retired). shipping-rates still calls v1 (it logged the Deprecation/Sunset headers for weeks), gets no quotes and returns an empty option list, so checkout-web blocks orders. A probe of /v1/rates answers 410, /v3/rates 200. checkout-web's errors and its release are the victim's / innocent; the Loqate slowness and the old 429s are unrelated.",
            "evidence": [
                "netcheck shipfast-v1: http/http_410 api_version_retired; shipfast-v3: 200",
                "shipping-rates: POST https://api.shipfast.example/v1/rates -> 410 Gone",
                "shipping-rates: Deprecation: true; Sunset: Sat, 05 Dec 2026 13:30:00 GMT",
            ],
            "remediation": "Ship shipping-rates' v3 client (or a v1 → v3 adapter) now; meanwhile enable the flat-rate fallback so checkout offers standard delivery.",
            "root_cause_probe": "shipfast-v1",
            "netcheck": {
                "shipfast-v1": {"failed_layer": "http", "reason": "http_410"},
                "shipfast-v3": {"failed_layer": "none", "reason": None},
            },
        },
        "logs": logs(seed=169, background=bgs, events=evs),
        "metrics": metrics(
            [
                {"name": "shipping-rates", "rps": 25, "latency": (0.45, 0.06)},
                {
                    "name": "checkout-web",
                    "rps": 60,
                    "errors": {"500": (0.001, 0.35)},
                    "latency": (0.2, 0.15),
                },
                {"name": "address-validator", "rps": 20, "latency": (0.15, 0.15)},
            ],
            start=start,
            seed=169,
            gauges=[
                {
                    "name": "orders_placed_per_minute",
                    "labels": {"service": "checkout-web"},
                    "before": 310,
                    "after": 12,
                },
            ],
        ),
        "targets": [
            {
                "name": "shipfast-v1",
                "url": "https://api.shipfast.example/v1/rates",
                "fault": {
                    "kind": "http_status",
                    "status": 410,
                    "body": body,
                    "headers": {
                        "Content-Type": "application/json",
                        "Sunset": "Sat, 05 Dec 2026 13:30:00 GMT",
                    },
                },
            },
            {
                "name": "shipfast-v3",
                "url": "https://api.shipfast.example/v3/rates",
                "fault": {"kind": "ok", "body": '{"status":"ok","version":"v3"}'},
            },
        ],
        "runbooks": {
            "shipfast-outage.md": runbook(
                "ShipFast outage",
                "If ShipFast is down (5xx or timeouts on rates), switch checkout to flat-rate shipping with the `shipping.flat_rate_fallback` flag and open a ticket with ShipFast support; check https://status.shipfast.example.",
            ),
        },
    }


# =================================================================================================
# 10. A poisoned cache entry: inventory-sync's 13:35 run timed out half-way through the warehouse
#     export and wrote its partial snapshot anyway, caching stock=0 for 4,100 SKUs with a 24 h TTL.
#     Nothing errors; product pages show "sold out" and orders drop. The incident says "shop".
# =================================================================================================


@scenario("poisoned-cache-entry")
def poisoned_cache_entry() -> dict[str, Any]:
    start = -1500
    isy = ["inventory-sync-29941295-7kqpd"]
    sa = ["stock-api-6c9f8d7b5-4hxzn", "stock-api-6c9f8d7b5-r2mkq"]
    sf = [
        "storefront-7d8b6c9f5-b3tql",
        "storefront-7d8b6c9f5-g7wpx",
        "storefront-7d8b6c9f5-n5kzr",
    ]
    wms = ["wms-connector-5b9c7d6f8-x4pvj"]
    bgs = [
        bg("storefront", sf, ["GET /p/{n} 200 {ms}ms", "GET /c/outdoor 200 {ms}ms"], 3),
        bg("stock-api", sa, ["GET /v1/availability?sku={n} 200 {ms}ms (cache hit)"], 3),
        bg("wms-connector", wms, ["export page served ({n} rows) in {ms}0ms"], 30),
    ]
    evs = [
        ev(
            "inventory-sync",
            "info",
            "run 29941295 started: full availability export from WMS (31 pages)",
            at=start - 120,
            pods=isy,
        ),
        ev(
            "wms-connector",
            "warn",
            "export page 15/31 took 30.4s (db lock wait on wms.stock_moves)",
            at=start - 95,
            pods=wms,
        ),
        ev(
            "inventory-sync",
            "warn",
            "WMS export page 15/31 timed out after 30s; writing partial snapshot (14/31 pages) and continuing",
            at=start - 64,
            pods=isy,
        ),
        ev(
            "inventory-sync",
            "warn",
            "partial snapshot: 4,100 SKUs absent from export set to available=0 in stock-cache (ttl=86400s)",
            at=start - 60,
            pods=isy,
        ),
        ev(
            "inventory-sync",
            "info",
            "run 29941295 finished in 61.2s: 9,874 SKUs written, status=completed",
            at=start - 58,
            pods=isy,
        ),
        ev(
            "storefront",
            "info",
            "storefront 88.1.0 started (search facets redesign)",
            at=start - 2400,
            pods=sf,
        ),
        ev(
            "storefront",
            "warn",
            "add-to-cart rejected for sku {n}: out of stock",
            **{"from": start + 10, "to": -2, "every_s": 2},
            pods=sf,
        ),
        ev(
            "stock-api",
            "info",
            "GET /v1/availability?sku={n} 200 0 available (cache hit, age {n}s)",
            **{"from": start, "to": -2, "every_s": 2.5},
            pods=sa,
        ),
        ev(
            "wms-connector",
            "warn",
            "db lock wait {ms}00ms on wms.stock_moves (nightly re-slotting job)",
            **{"from": -7000, "to": -30, "every_s": 600},
            pods=wms,
        ),
        ev(
            "stock-api",
            "error",
            "redis: connection pool timeout (stock-cache-0)",
            **{"from": -9200, "to": -8900, "every_s": 20},
            pods=sa,
        ),
    ]
    return {
        "incident": {
            "title": "lots of products showing sold out",
            "service": "shop",
            "severity": "sev2",
            "symptoms": [],
            "description": "",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "app",
            "root_cause_component": ["inventory-sync", "stock-cache"],
            "root_cause_signal": "partial snapshot",
            "root_cause": "inventory-sync's run 25 min ago hit a 30 s timeout on WMS export page 15/31 and, instead of failing, wrote a partial snapshot: the 4,100 SKUs missing from it were cached as available=0 in stock-cache with a 24 h TTL. stock-api serves those cache hits without errors, so product pages show sold out and add-to-cart is rejected. The WMS lock wait was only the trigger; storefront's warnings and release, and the old Redis pool timeouts, are unrelated.",
            "evidence": [
                "inventory-sync: WMS export page 15/31 timed out after 30s; writing partial snapshot",
                "inventory-sync: 4,100 SKUs … set to available=0 in stock-cache (ttl=86400s)",
                "stock-api: 0 available (cache hit); stock_cache_zero_available_keys jumped to ~4,100",
            ],
            "remediation": "Purge the poisoned keys (or the whole availability namespace) and re-run inventory-sync; make a partial export fail the run instead of writing zeros.",
        },
        "logs": logs(seed=170, background=bgs, events=evs),
        "metrics": metrics(
            [
                {"name": "storefront", "rps": 90, "latency": (0.12, 0.12)},
                {"name": "stock-api", "rps": 140, "latency": (0.004, 0.004)},
                {"name": "wms-connector", "rps": 1, "latency": (2.0, 2.0)},
            ],
            start=start,
            seed=170,
            gauges=[
                {
                    "name": "stock_cache_zero_available_keys",
                    "labels": {"service": "stock-cache"},
                    "before": 310,
                    "after": 4410,
                    "change_at": start - 60,
                },
                {
                    "name": "checkout_orders_per_minute",
                    "labels": {"service": "storefront"},
                    "before": 190,
                    "after": 104,
                },
                {
                    "name": "add_to_cart_rejections_per_minute",
                    "labels": {"service": "storefront", "reason": "out_of_stock"},
                    "before": 2,
                    "after": 41,
                },
            ],
        ),
        "runbooks": {
            "out-of-stock-spike.md": runbook(
                "Out-of-stock spike",
                "A spike of sold-out products means the warehouse (WMS) is not reporting stock: check wms-connector's lock waits and ask the warehouse team to pause re-slotting; stock comes back at the next hourly sync.",
            ),
        },
    }


# =================================================================================================
# 11. A client timeout below the upstream's p99: a config push lowered search-api's ranker timeout
#     from 1500 ms to 300 ms ("align with the SLO"); ranker's p50 is 120 ms but its p99 ~450 ms, so
#     a fifth of searches hit the deadline and fail. ranker logs the cancellations and looks guilty.
#     The incident says "site search".
# =================================================================================================


@scenario("timeout-below-p99")
def timeout_below_p99() -> dict[str, Any]:
    start = -1320
    sa = [
        "search-api-7b8c9d6f5-2pkxw",
        "search-api-7b8c9d6f5-h7tqm",
        "search-api-7b8c9d6f5-v4zrn",
    ]
    rk = ["ranker-5d9f7b8c6-b6nlq", "ranker-5d9f7b8c6-m3xkd"]
    es = ["search-es-data-0", "search-es-data-1", "search-es-data-2"]
    bgs = [
        bg("search-api", sa, ["GET /v2/search?q=… 200 {ms}ms"], 3),
        bg("ranker", rk, ["POST /rank 200 {ms}ms (candidates=200)"], 3),
        bg("search-es", es, ["[gc][young][{n}] duration [{ms}ms]"], 60),
    ]
    evs = [
        ev(
            "config-service",
            "info",
            "search-api prod: ranker.timeout_ms 1500 -> 300, ranker.retries 1 -> 0 (change 'align client deadlines with p50 SLO', by j.ortiz)",
            at=start - 20,
        ),
        ev(
            "search-api",
            "info",
            "config reloaded: ranker.timeout_ms=300 ranker.retries=0",
            at=start - 15,
            pods=sa,
        ),
        ev(
            "ranker",
            "info",
            "ranker model ltr-2026-12-05 loaded (xgboost, 412 trees)",
            at=start - 3000,
            pods=rk,
        ),
        ev(
            "search-api",
            "error",
            "GET /v2/search 503: ranker: context deadline exceeded after 300ms (no retry)",
            **{"from": start + 5, "to": -2, "every_s": 0.8},
            pods=sa,
        ),
        ev(
            "ranker",
            "warn",
            "POST /rank: client cancelled request after {ms}0ms (context canceled); dropping result",
            **{"from": start + 5, "to": -2, "every_s": 1.0},
            pods=rk,
        ),
        ev(
            "search-es",
            "warn",
            "[o.e.m.j.JvmGcMonitorService] [gc][old][{n}] duration [1.{ms}s], collections [1]",
            **{"from": -7000, "to": -60, "every_s": 900},
            pods=es,
        ),
        ev(
            "search-api",
            "error",
            "elasticsearch: es_rejected_execution_exception: rejected execution of coordinating operation",
            **{"from": -9400, "to": -8800, "every_s": 30},
            pods=sa,
        ),
    ]
    return {
        "incident": {
            "title": "site search failing for some queries",
            "service": "site search",
            "severity": "sev2",
            "symptoms": [],
            "description": "",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "app",
            "root_cause_component": ["search-api", "ranker.timeout_ms"],
            "root_cause_signal": "300ms",
            "root_cause": "A config push 22 min ago set search-api's ranker.timeout_ms from 1500 to 300 and retries to 0. ranker is as fast as before (p50 ~120 ms) but its p99 is ~450 ms, so about a fifth of rank calls now exceed the client deadline and search-api answers 503 (context deadline exceeded after 300ms). ranker's 'client cancelled' warnings are the effect, not the cause; its model load, the ES GC warnings and the old ES rejections are unrelated.",
            "evidence": [
                "config-service: search-api ranker.timeout_ms 1500 -> 300 just before the start",
                "search-api: ranker: context deadline exceeded after 300ms (no retry)",
                "ranker latency histogram unchanged: p50 ~0.12 s, p99 ~0.45 s",
            ],
            "remediation": "Revert ranker.timeout_ms to 1500 (or at least p99 + margin) and restore one retry; set deadlines from the upstream's measured p99, not the SLO's p50.",
        },
        "logs": logs(seed=171, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "search-api",
                    "rps": 110,
                    "errors": {"503": (0.001, 0.21)},
                    "latency": (0.16, 0.14),
                },
                {"name": "ranker", "rps": 110, "latency": (0.12, 0.12)},
            ],
            start=start,
            seed=171,
            gauges=[
                {
                    "name": "ranker_request_duration_seconds:p99",
                    "labels": {"service": "ranker"},
                    "before": 0.45,
                    "after": 0.46,
                },
                {
                    "name": "search_api_upstream_timeout_seconds",
                    "labels": {"service": "search-api", "upstream": "ranker"},
                    "before": 1.5,
                    "after": 0.3,
                    "noise": 0.0,
                    "change_at": start - 15,
                },
            ],
        ),
        "runbooks": {
            "ranker-latency.md": runbook(
                "ranker slow / cancelled requests",
                "When ranker logs cancelled requests it is overloaded: scale it out (`kubectl scale deploy/ranker --replicas=4 -n search`) and check the last model load's tree count.",
            ),
        },
    }


# =================================================================================================
# 12. A queue consumer stuck on a poison message: label-printer consumes labels.print with
#     prefetch 1 and nacks with requeue on any error; one order's address holds an emoji the
#     ZPL encoder rejects, so the same message is redelivered forever and every other label waits.
#     The incident says "shipping labels".
# =================================================================================================


@scenario("poison-message-consumer")
def poison_message_consumer() -> dict[str, Any]:
    start = -1740
    lp = ["label-printer-6d7c9b8f5-q4tnz"]
    wu = ["warehouse-ui-5c8b7d9f6-g2hrx", "warehouse-ui-5c8b7d9f6-t7kvm"]
    rq = ["rabbitmq-0", "rabbitmq-1", "rabbitmq-2"]
    pg = ["printer-gateway-7f9c6d8b5-l5wxp"]
    bad = "ord-88213407"
    bgs = [
        bg(
            "label-printer",
            lp,
            ["printed label for order ord-{n} on zebra-dock-3 in {ms}ms (ack)"],
            4,
            until=start,
        ),
        bg("warehouse-ui", wu, ["GET /pick-lists/{n} 200 {ms}ms"], 4),
        bg("printer-gateway", pg, ["job {n} sent to zebra-dock-3 ok"], 8, until=start),
        bg(
            "rabbitmq",
            rq,
            [
                "accepting AMQP connection <0.{n}.0> (10.171.2.{ms}:{n} -> 10.171.1.9:5672)"
            ],
            120,
        ),
    ]
    evs = [
        ev(
            "orders-api",
            "info",
            f"order {bad} created (ship to: 'Flat 2 🏠, 14 Rue des Lilas', FR)",
            at=start - 30,
            pods=["orders-api-0"],
        ),
        ev(
            "label-printer",
            "error",
            f"message {bad} (delivery_tag={{n}}, redelivered=true) failed: ZplEncodeError: character U+1F3E0 not encodable in CP850 (field ^FD address_line1); nack requeue=true",
            **{"from": start, "to": -1, "every_s": 2},
            pods=lp,
        ),
        ev(
            "warehouse-ui",
            "info",
            "warehouse-ui 3.14.0 started (dark mode)",
            at=start - 2500,
            pods=wu,
        ),
        ev(
            "warehouse-ui",
            "error",
            "label for order ord-{n} not ready after 120s; packer blocked",
            **{"from": start + 180, "to": -2, "every_s": 1.5},
            pods=wu,
        ),
        ev(
            "rabbitmq",
            "warn",
            "queue 'labels.print' in vhost '/': {n} messages ready, 1 unacked, 1 consumer (prefetch 1)",
            **{"from": start + 120, "to": -10, "every_s": 60},
            pods=rq,
        ),
        ev(
            "printer-gateway",
            "error",
            "zebra-dock-7 unreachable: connect ETIMEDOUT 10.50.7.31:9100",
            **{"from": -9800, "to": -9000, "every_s": 40},
            pods=pg,
        ),
        ev(
            "rabbitmq",
            "warn",
            "memory resource limit alarm set on node rabbit@rabbitmq-1 (usage 0.41 of watermark 0.4)",
            at=-8400,
            pods=["rabbitmq-1"],
        ),
        ev(
            "rabbitmq",
            "info",
            "memory resource limit alarm cleared on node rabbit@rabbitmq-1",
            at=-8280,
            pods=["rabbitmq-1"],
        ),
    ]
    return {
        "incident": {
            "title": "shipping labels not printing, packing stopped",
            "service": "shipping labels",
            "severity": "sev1",
            "symptoms": [],
            "description": "",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "app",
            "root_cause_component": ["label-printer", "labels.print"],
            "root_cause_signal": "redelivered=true",
            "root_cause": f"label-printer consumes labels.print with prefetch 1 and nacks with requeue on any error. Order {bad}'s address holds an emoji (U+1F3E0) that the ZPL encoder cannot encode in CP850, so that one message fails, is requeued and redelivered every 2 s for 29 min (redelivered=true, the same order id); nothing behind it is consumed, the queue grows and packers wait on labels. warehouse-ui's errors are the victim's; its release, the old dock-7 printer timeouts and RabbitMQ's memory alarm 2 h ago are unrelated.",
            "evidence": [
                f"label-printer: message {bad} … redelivered=true … ZplEncodeError … nack requeue=true, every 2 s",
                "rabbitmq: labels.print ready messages growing, 1 unacked, 1 consumer",
                "label-printer's ack rate at zero since the start",
            ],
            "remediation": f"Move {bad} to a dead-letter queue (or ack and reprint by hand), transliterate addresses before encoding, and set a delivery limit / DLX on labels.print.",
        },
        "logs": logs(seed=172, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "warehouse-ui",
                    "rps": 12,
                    "errors": {"500": (0.001, 0.18)},
                    "latency": (0.08, 0.08),
                },
                {
                    "name": "printer-gateway",
                    "rps": 0.3,
                    "rps_after": 0.0,
                    "latency": (0.1, 0.1),
                },
            ],
            start=start,
            seed=172,
            gauges=[
                {
                    "name": "rabbitmq_queue_messages_ready",
                    "labels": {"queue": "labels.print", "vhost": "/"},
                    "before": 3,
                    "after": 1450,
                    "change_at": start + 60,
                },
                {
                    "name": "rabbitmq_queue_messages_unacked",
                    "labels": {"queue": "labels.print", "vhost": "/"},
                    "before": 1,
                    "after": 1,
                    "noise": 0.0,
                },
                {
                    "name": "rabbitmq_queue_messages_redelivered:rate1m",
                    "labels": {"queue": "labels.print", "vhost": "/"},
                    "before": 0,
                    "after": 30,
                },
                {
                    "name": "rabbitmq_queue_messages_acked:rate1m",
                    "labels": {"queue": "labels.print", "vhost": "/"},
                    "before": 52,
                    "after": 0,
                },
            ],
        ),
        "runbooks": {
            "labels-not-printing.md": runbook(
                "Labels not printing",
                "Labels stop when a Zebra printer is offline: check printer-gateway's log for ETIMEDOUT, power-cycle the printer, then restart printer-gateway to flush its job queue.",
            ),
        },
    }


# =================================================================================================
# 13. A storage lifecycle rule on the wrong prefix: a Terraform change meant to expire
#     `tmp/uploads/` after 1 day was applied to `uploads/`. S3 expired every user upload older than a
#     day in its first lifecycle pass; media-api now gets NoSuchKey for old attachments. The incident
#     says "attachments".
# =================================================================================================


@scenario("s3-lifecycle-wrong-prefix")
def s3_lifecycle_wrong_prefix() -> dict[str, Any]:
    start = -1860
    ma = ["media-api-5f7d8c9b6-k2wxq", "media-api-5f7d8c9b6-r8tzn"]
    cw = [
        "collab-web-6b9c8d7f5-d5lqm",
        "collab-web-6b9c8d7f5-p9hvx",
        "collab-web-6b9c8d7f5-x3kbw",
    ]
    th = ["thumbnailer-7c8d9b6f5-m4zpt"]
    bgs = [
        bg(
            "media-api",
            ma,
            ["GET /v1/files/{n} 200 {ms}ms (s3 GetObject uploads/2026/12/05/{n})"],
            3,
        ),
        bg("collab-web", cw, ["GET /docs/{n} 200 {ms}ms"], 3),
        bg(
            "thumbnailer",
            th,
            ["thumbnail for uploads/2026/12/05/{n}.png in {ms}ms"],
            10,
        ),
    ]
    evs = [
        ev(
            "terraform",
            "info",
            "workspace storage-prod apply #912 ('expire temp uploads after 1 day'): aws_s3_bucket_lifecycle_configuration.attachments: rule expire-tmp-uploads {filter.prefix = \"uploads/\", expiration.days = 1, status = Enabled} created",
            at=-27000,
        ),
        ev(
            "cloudtrail",
            "info",
            "s3.amazonaws.com lifecycle: DeleteObject (expiration rule expire-tmp-uploads) on bucket acme-collab-attachments: {n} objects under uploads/",
            **{"from": start - 300, "to": -600, "every_s": 120},
        ),
        ev(
            "media-api",
            "error",
            'GET /v1/files/{n} 404: s3 GetObject acme-collab-attachments/uploads/2026/11/{ms}/{n}.pdf: NoSuchKey: The specified key does not exist. (x-amz-expiration: expiry-date="Sat, 05 Dec 2026 00:00:00 GMT", rule-id="expire-tmp-uploads")',
            **{"from": start + 10, "to": -2, "every_s": 1.2},
            pods=ma,
        ),
        ev(
            "collab-web",
            "error",
            "attachment preview failed for doc {n}: media-api 404",
            **{"from": start + 10, "to": -2, "every_s": 0.8},
            pods=cw,
        ),
        ev(
            "collab-web",
            "info",
            "collab-web 19.4.0 started (comments sidebar)",
            at=start - 1500,
            pods=cw,
        ),
        ev(
            "thumbnailer",
            "warn",
            "libvips: image too large ({n} px), downscaling before thumbnail",
            **{"from": -7000, "to": -20, "every_s": 300},
            pods=th,
        ),
        ev(
            "media-api",
            "error",
            "s3 GetObject: RequestTimeout: Your socket connection to the server was not read from or written to within the timeout period",
            **{"from": -9800, "to": -9300, "every_s": 40},
            pods=ma,
        ),
    ]
    return {
        "incident": {
            "title": "old attachments missing in documents",
            "service": "attachments",
            "severity": "sev1",
            "symptoms": ["files uploaded before today show 'not found'"],
            "description": "",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "app",
            "root_cause_component": [
                "expire-tmp-uploads",
                "acme-collab-attachments",
                "media-api",
            ],
            "root_cause_signal": "expire-tmp-uploads",
            "root_cause": "Terraform apply #912 (7.5 h ago) created the lifecycle rule expire-tmp-uploads on bucket acme-collab-attachments with prefix uploads/ instead of tmp/uploads/ and 1-day expiration. S3's lifecycle pass deleted every upload older than a day (CloudTrail DeleteObject by the rule), so media-api's GetObject now returns NoSuchKey with x-amz-expiration rule-id=expire-tmp-uploads and documents show missing attachments; today's uploads still work. collab-web's errors and release are the victim's / innocent; the thumbnailer warnings and the old S3 request timeouts are unrelated.",
            "evidence": [
                'terraform: lifecycle rule expire-tmp-uploads filter.prefix = "uploads/", expiration.days = 1',
                'media-api: NoSuchKey … rule-id="expire-tmp-uploads" for objects under uploads/2026/11/',
                "cloudtrail: DeleteObject (expiration rule expire-tmp-uploads)",
            ],
            "remediation": "Disable the rule now, fix its prefix to tmp/uploads/; restore the deleted objects from versioning (delete markers) or the replica bucket.",
        },
        "logs": logs(seed=173, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "media-api",
                    "rps": 45,
                    "errors": {"404": (0.002, 0.46)},
                    "latency": (0.06, 0.03),
                },
                {
                    "name": "collab-web",
                    "rps": 70,
                    "errors": {"500": (0.001, 0.05)},
                    "latency": (0.15, 0.15),
                },
                {"name": "thumbnailer", "rps": 3, "latency": (0.4, 0.4)},
            ],
            start=start,
            seed=173,
            gauges=[
                {
                    "name": "aws_s3_number_of_objects_average",
                    "labels": {"bucket": "acme-collab-attachments"},
                    "before": 48210332,
                    "after": 1210877,
                    "change_at": start - 300,
                },
            ],
        ),
        "runbooks": {
            "media-404.md": runbook(
                "media-api 404s",
                "media-api 404s after a collab-web release usually mean the web app builds file URLs wrongly: roll collab-web back and compare the file ids in the URLs with the database.",
            ),
        },
    }


# =================================================================================================
# 14. A writer pool pointed at a read-only replica: a config refactor moved booking-api's database
#     settings into a shared secret, and DB_WRITE_HOST got the Aurora reader endpoint. Reads work;
#     every booking fails with SQLSTATE 25006. An Aurora failover 2.5 h ago looks like the cause
#     (and its runbook says to restart). The incident says "reservations".
# =================================================================================================


@scenario("writer-pool-readonly-replica")
def writer_pool_readonly_replica() -> dict[str, Any]:
    start = -1260
    ba = [
        "booking-api-7c9d8b6f5-f4kzq",
        "booking-api-7c9d8b6f5-n8wtx",
        "booking-api-7c9d8b6f5-s2hrm",
    ]
    bw = ["booking-web-5d8f7c9b6-c6qjl", "booking-web-5d8f7c9b6-k3vzp"]
    av = ["availability-svc-6f9b8c7d5-x7lmd"]
    reader = "bookings-db.cluster-ro-c9x2kq7e1pfa.eu-west-1.rds.amazonaws.com"
    writer = "bookings-db.cluster-c9x2kq7e1pfa.eu-west-1.rds.amazonaws.com"
    bgs = [
        bg(
            "booking-api",
            ba,
            ["GET /v2/bookings/{n} 200 {ms}ms", "GET /v2/slots?venue={n} 200 {ms}ms"],
            3,
        ),
        bg("booking-api", ba, ["POST /v2/bookings 201 {ms}ms"], 5, until=start),
        bg("booking-web", bw, ["GET /venue/{n} 200 {ms}ms"], 4),
        bg("availability-svc", av, ["slots recomputed for venue {n} in {ms}ms"], 12),
    ]
    evs = [
        ev(
            "rds-events",
            "info",
            "bookings-db: Started cross AZ failover to DB instance bookings-db-instance-2",
            at=-9050,
        ),
        ev(
            "rds-events",
            "info",
            "bookings-db: Completed failover to DB instance bookings-db-instance-2",
            at=-9010,
        ),
        ev(
            "booking-api",
            "error",
            "ERROR: cannot execute UPDATE in a read-only transaction (SQLSTATE 25006) [stale connection after failover]",
            **{"from": -9000, "to": -8700, "every_s": 20},
            pods=["booking-api-6b8c7d9f4-a1kq2", "booking-api-6b8c7d9f4-z8pw3"],
        ),
        ev(
            "argocd",
            "info",
            f"application booking-api synced (config refactor 'db settings from shared secret booking-db-conn'): DB_WRITE_HOST={reader} DB_READ_HOST={reader}",
            at=start - 70,
        ),
        ev(
            "booking-api",
            "info",
            f"booking-api 14.2.0 started; write pool -> {reader}:5432 (20 conns), read pool -> {reader}:5432 (40 conns)",
            at=start - 30,
            pods=ba,
        ),
        ev(
            "booking-api",
            "error",
            "POST /v2/bookings 500: psycopg.errors.ReadOnlySqlTransaction: cannot execute INSERT in a read-only transaction",
            **{"from": start + 5, "to": -2, "every_s": 1.5},
            pods=ba,
        ),
        ev(
            "booking-web",
            "error",
            "checkout step 3: booking-api 500 on POST /v2/bookings; showing 'try again'",
            **{"from": start + 5, "to": -2, "every_s": 1.0},
            pods=bw,
        ),
        ev(
            "booking-web",
            "info",
            "booking-web 6.30.0 started (new calendar picker)",
            at=start - 2900,
            pods=bw,
        ),
        ev(
            "availability-svc",
            "warn",
            "slot cache rebuild took {n}ms (> 5000ms budget)",
            **{"from": -7100, "to": -40, "every_s": 420},
            pods=av,
        ),
    ]
    return {
        "incident": {
            "title": "reservations can't be completed",
            "service": "reservations",
            "severity": "sev1",
            "symptoms": [],
            "description": "",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "app",
            "root_cause_component": ["booking-api", reader, "booking-db-conn"],
            "root_cause_signal": "read-only transaction",
            "root_cause": f"booking-api 14.2.0's config refactor (synced just before the start) takes its database settings from the shared secret booking-db-conn, where DB_WRITE_HOST is the Aurora reader endpoint ({reader}) instead of the cluster writer ({writer}). Reads work; every INSERT/UPDATE fails with ReadOnlySqlTransaction (SQLSTATE 25006), so no reservation completes and booking-web shows 'try again'. The Aurora failover 2.5 h ago (and its stale-connection errors) is over and unrelated; restarting booking-api would not help. booking-web's release and the slot cache warnings are unrelated.",
            "evidence": [
                f"booking-api 14.2.0 started; write pool -> {reader}",
                "booking-api: cannot execute INSERT in a read-only transaction (every POST /v2/bookings)",
                "argocd: DB_WRITE_HOST set to the cluster-ro endpoint",
            ],
            "remediation": f"Set DB_WRITE_HOST to {writer} in booking-db-conn and roll booking-api; add a startup check that the write pool's `SHOW transaction_read_only` is off.",
        },
        "logs": logs(seed=174, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "booking-api",
                    "rps": 40,
                    "errors": {"500": (0.001, 0.19)},
                    "latency": (0.05, 0.04),
                },
                {
                    "name": "booking-web",
                    "rps": 55,
                    "errors": {"500": (0.001, 0.14)},
                    "latency": (0.18, 0.18),
                },
                {"name": "availability-svc", "rps": 5, "latency": (0.3, 0.3)},
            ],
            start=start,
            seed=174,
            gauges=[
                {
                    "name": "bookings_created_per_minute",
                    "labels": {"service": "booking-api"},
                    "before": 95,
                    "after": 0,
                    "noise": 0.0,
                },
                {
                    "name": "aws_rds_replica_lag_seconds",
                    "labels": {"dbinstance": "bookings-db-instance-1"},
                    "before": 0.02,
                    "after": 0.02,
                },
            ],
        ),
        "runbooks": {
            "aurora-failover.md": runbook(
                "After an Aurora failover",
                "After a failover, pooled connections can still point at the old writer, now a reader, and writes fail with 'read-only transaction'. Restart the affected service's pods (`kubectl rollout restart deploy/<name>`) to reconnect.",
            ),
        },
    }


# =================================================================================================
# 15. Long GC pauses: cart-service 7.2.0 (deployed 100 min ago) keeps every session's
#     recommendation payload in an unbounded map; the old generation fills and the JVM spends its
#     time in G1 full collections of 3-5 s (warn-level GC log lines, no OOM yet). Callers time out.
#     The incident says "shopping bag".
# =================================================================================================


@scenario("gc-pauses-heap")
def gc_pauses_heap() -> dict[str, Any]:
    start = -1080
    cs = [
        "cart-service-6d8b7c9f5-j3kwq",
        "cart-service-6d8b7c9f5-t6mxr",
        "cart-service-6d8b7c9f5-z9plc",
    ]
    bf = ["checkout-bff-7f6c9d8b5-b2qnv", "checkout-bff-7f6c9d8b5-r5wzk"]
    pe = ["promo-engine-5c9b8d7f6-h8ztx"]
    bgs = [
        bg(
            "cart-service",
            cs,
            ["GET /v3/carts/{n} 200 {ms}ms", "POST /v3/carts/{n}/items 200 {ms}ms"],
            3,
        ),
        bg("checkout-bff", bf, ["GET /bag 200 {ms}ms"], 3),
        bg("promo-engine", pe, ["evaluated {n} promotions in {ms}ms"], 8),
    ]
    evs = [
        ev(
            "cart-service",
            "info",
            "cart-service 7.2.0 started (inline recommendations in bag; -Xmx4g -XX:+UseG1GC)",
            at=-6000,
            pods=cs,
        ),
        ev(
            "cart-service",
            "info",
            "[gc] GC({n}) Pause Young (Normal) (G1 Evacuation Pause) 1{ms}M->{ms}0M(4096M) {ms}.2ms",
            **{"from": -6000, "to": -5, "every_s": 20},
            pods=cs,
        ),
        ev(
            "cart-service",
            "warn",
            "[gc] GC({n}) Pause Young (Concurrent Start) (G1 Humongous Allocation) 3{ms}M->3{ms}M(4096M) 6{ms}.4ms",
            **{"from": -3000, "to": start, "every_s": 120},
            pods=cs,
        ),
        ev(
            "cart-service",
            "warn",
            "[gc] GC({n}) Pause Full (G1 Compaction Pause) 4051M->39{ms}M(4096M) 4{ms}3.551ms",
            **{"from": start, "to": -3, "every_s": 9},
            pods=cs,
        ),
        ev(
            "cart-service",
            "warn",
            "[gc] GC({n}) To-space exhausted; Pause Young (Mixed) 4{ms}M->40{ms}M(4096M) 1{ms}2.8ms",
            **{"from": start, "to": -3, "every_s": 25},
            pods=cs,
        ),
        ev(
            "checkout-bff",
            "info",
            "checkout-bff config reload: bag.upstream_timeout_ms=2000 (unchanged), retry=1",
            at=start - 1200,
            pods=bf,
        ),
        ev(
            "checkout-bff",
            "error",
            "GET /bag 504: cart-service read timeout after 2000ms",
            **{"from": start + 10, "to": -2, "every_s": 0.9},
            pods=bf,
        ),
        ev(
            "promo-engine",
            "warn",
            "promotion XMAS-BUNDLE rule evaluated with missing attribute 'brand' for sku {n}",
            **{"from": -7100, "to": -10, "every_s": 150},
            pods=pe,
        ),
        ev(
            "cart-service",
            "error",
            "redis: i/o timeout (cart-redis-master:6379) after 500ms",
            **{"from": -9100, "to": -8600, "every_s": 25},
            pods=cs,
        ),
    ]
    return {
        "incident": {
            "title": "shopping bag slow / timing out",
            "service": "shopping bag",
            "severity": "sev2",
            "symptoms": [],
            "description": "",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "app",
            "root_cause_component": ["cart-service"],
            "root_cause_signal": "Pause Full",
            "root_cause": "cart-service 7.2.0 (deployed 100 min ago) keeps each session's inline recommendations in an unbounded map; its old generation has grown since the deploy and is now full (4051M of 4096M), so the JVM runs G1 full collections of 4-5 s every few seconds (Pause Full (G1 Compaction Pause), to-space exhausted). Requests stall through the pauses and checkout-bff times out at 2 s with 504. checkout-bff's 504s are the victim's (its config reload changed nothing); promo-engine's warnings and the old Redis timeouts are unrelated.",
            "evidence": [
                "cart-service: [gc] Pause Full (G1 Compaction Pause) 4051M->39xxM(4096M) ~4.5 s, every ~9 s",
                "jvm_memory_used_bytes{area=old} of cart-service rising since 7.2.0 to the max; jvm_gc_pause_seconds rate jumped",
                "checkout-bff: cart-service read timeout after 2000ms",
            ],
            "remediation": "Roll cart-service back to 7.1.x (or bound the recommendations cache with a size/TTL); restart its pods to clear the heap meanwhile.",
        },
        "logs": logs(seed=175, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "cart-service",
                    "rps": 80,
                    "errors": {"503": (0.0005, 0.04)},
                    "latency": (0.03, 1.4),
                },
                {
                    "name": "checkout-bff",
                    "rps": 50,
                    "errors": {"504": (0.001, 0.33)},
                    "latency": (0.08, 1.6),
                },
                {"name": "promo-engine", "rps": 30, "latency": (0.01, 0.01)},
            ],
            start=start,
            seed=175,
            gauges=[
                {
                    "name": "jvm_memory_used_bytes",
                    "labels": {
                        "service": "cart-service",
                        "area": "heap",
                        "id": "G1 Old Gen",
                    },
                    "before": 1.6e9,
                    "after": 4.05e9,
                    "cap": 4.08e9,
                    "change_at": start - 900,
                },
                {
                    "name": "jvm_memory_max_bytes",
                    "labels": {"service": "cart-service", "area": "heap"},
                    "before": 4294967296,
                    "after": 4294967296,
                    "noise": 0.0,
                },
                {
                    "name": "jvm_gc_pause_seconds_sum:rate1m",
                    "labels": {"service": "cart-service", "action": "end of major GC"},
                    "before": 0.0,
                    "after": 0.52,
                },
                {
                    "name": "jvm_gc_pause_seconds_sum:rate1m",
                    "labels": {"service": "cart-service", "action": "end of minor GC"},
                    "before": 0.004,
                    "after": 0.02,
                },
            ],
        ),
        "runbooks": {
            "bag-timeouts.md": runbook(
                "Bag page timeouts",
                "Bag timeouts come from checkout-bff's upstream timeout being too tight at peak: raise bag.upstream_timeout_ms to 5000 in checkout-bff's config and reload.",
            ),
        },
    }


# =================================================================================================
# 16. A thread pool saturated by a configuration slip: a profile clean-up copied the dev value of
#     server.tomcat.threads.max (20) into prod for account-api. At normal evening load all 20
#     workers are busy, requests queue in the acceptor and time out; nothing is slow downstream.
#     The incident says "my account".
# =================================================================================================


@scenario("thread-pool-saturated")
def thread_pool_saturated() -> dict[str, Any]:
    start = -1500
    aa = [
        "account-api-6c7d9b8f5-d8xqk",
        "account-api-6c7d9b8f5-m2tzw",
        "account-api-6c7d9b8f5-v5rnp",
    ]
    wb = ["web-bff-5f8c9d7b6-c3lwq", "web-bff-5f8c9d7b6-h9kxt"]
    adb = ["account-db-0"]
    ld = ["ldap-proxy-7b9c8d6f5-q1zkr"]
    bgs = [
        bg(
            "account-api",
            aa,
            [
                "GET /v1/me 200 {ms}ms",
                "GET /v1/me/addresses 200 {ms}ms",
                "PUT /v1/me/preferences 204 {ms}ms",
            ],
            3,
        ),
        bg("web-bff", wb, ["GET /account 200 {ms}ms"], 3),
        bg(
            "account-db",
            adb,
            [
                "LOG:  duration: {ms}.118 ms  statement: SELECT … FROM accounts WHERE id = $1"
            ],
            30,
        ),
        bg("ldap-proxy", ld, ["BIND uid={n},ou=staff ok in {ms}ms"], 30),
    ]
    evs = [
        ev(
            "config-server",
            "info",
            "account-api profile prod: server.tomcat.threads.max 200 -> 20, server.tomcat.accept-count 100 (commit 4e1a9c2 'dedupe application-*.yml into base profile')",
            at=start - 900,
        ),
        ev(
            "account-api",
            "info",
            "account-api 11.8.3 restarted by Spring Cloud Bus refresh; Tomcat initialized with port 8080 (http), maxThreads=20",
            at=start - 880,
            pods=aa,
        ),
        ev(
            "account-api",
            "info",
            "o.a.tomcat.util.net.NioEndpoint: Maximum number of threads (20) created for connector with address [null] and port [8080]",
            **{"from": start, "to": -10, "every_s": 40},
            pods=aa,
        ),
        ev(
            "account-api",
            "warn",
            "tomcat pool http-nio-8080-exec saturated: busy=20/20 (maxThreads=20), acceptor queue {ms}; request waited {n}ms before a worker",
            **{"from": start + 20, "to": -3, "every_s": 5},
            pods=aa,
        ),
        ev(
            "web-bff",
            "info",
            "web-bff 2.77.0 started (Next.js 15 upgrade)",
            at=start - 2000,
            pods=wb,
        ),
        ev(
            "web-bff",
            "error",
            "GET /account 504: account-api did not respond within 3000ms",
            **{"from": start + 30, "to": -2, "every_s": 1.0},
            pods=wb,
        ),
        ev(
            "account-db",
            "warn",
            "LOG:  checkpoints are occurring too frequently (24 seconds apart)",
            **{"from": -7100, "to": -20, "every_s": 600},
            pods=adb,
        ),
        ev(
            "ldap-proxy",
            "error",
            "upstream ldaps://dc2.corp.internal:636: connection reset by peer",
            **{"from": -9300, "to": -8800, "every_s": 30},
            pods=ld,
        ),
    ]
    return {
        "incident": {
            "title": "my account page very slow",
            "service": "my account",
            "severity": "sev3",
            "symptoms": ["profile page times out in the evening"],
            "description": "",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "app",
            "root_cause_component": ["account-api", "server.tomcat.threads.max"],
            "root_cause_signal": "maxThreads=20",
            "root_cause": "A profile clean-up (commit 4e1a9c2, refreshed 40 min ago) set account-api's server.tomcat.threads.max to 20 (the dev value) instead of 200. When evening load rose, all 20 workers are busy (Maximum number of threads (20) created; busy=20/20), requests wait in the accept queue for seconds and web-bff gives up at 3 s with 504. Downstream is fine: account-db statements take milliseconds. web-bff's 504s and release, the DB checkpoint warnings and the old LDAP resets are unrelated.",
            "evidence": [
                "config-server: server.tomcat.threads.max 200 -> 20 for account-api prod",
                "account-api: Maximum number of threads (20) created …; pool saturated busy=20/20",
                "tomcat_threads_busy_threads = tomcat_threads_config_max_threads = 20; account-db latency flat",
            ],
            "remediation": "Restore server.tomcat.threads.max=200 in the prod profile and refresh; add a config lint comparing prod pool sizes against the previous release.",
        },
        "logs": logs(seed=176, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "account-api",
                    "rps": 90,
                    "rps_after": 60,
                    "errors": {"503": (0.0005, 0.08)},
                    "latency": (0.03, 1.8),
                },
                {
                    "name": "web-bff",
                    "rps": 70,
                    "errors": {"504": (0.001, 0.27)},
                    "latency": (0.1, 2.2),
                },
            ],
            start=start,
            seed=176,
            gauges=[
                {
                    "name": "tomcat_threads_config_max_threads",
                    "labels": {"service": "account-api", "name": "http-nio-8080"},
                    "before": 200,
                    "after": 20,
                    "noise": 0.0,
                    "change_at": start - 880,
                },
                {
                    "name": "tomcat_threads_busy_threads",
                    "labels": {"service": "account-api", "name": "http-nio-8080"},
                    "before": 14,
                    "after": 20,
                    "cap": 20,
                },
                {
                    "name": "pg_stat_statements_mean_exec_time_ms",
                    "labels": {"service": "account-db"},
                    "before": 1.9,
                    "after": 1.9,
                },
            ],
        ),
        "runbooks": {
            "account-slow.md": runbook(
                "Account pages slow",
                "Slow account pages are almost always account-db: look for long-running queries (`SELECT * FROM pg_stat_activity WHERE state <> 'idle'`) and checkpoints, and fail over to the replica if the primary is saturated.",
            ),
        },
    }


def main(root: Path = HERE) -> None:
    for slug, build in SCENARIOS.items():
        base.write(slug, build(), root)
        print(slug)


if __name__ == "__main__":
    main()
