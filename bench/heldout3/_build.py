"""Writes the third held-out scenario set, bench/heldout3 (issue 21 item 7): `python bench/heldout3/_build.py`.

New incidents, none of them in the bundled set, bench/heldout or bench/heldout2. As there, everything
that matters is written by hand below (incident, expected answer, runbooks, kubectl answers, the log
lines that carry the fault and the red herrings); only the bulk comes from code: background request
lines and 2 h of metric points, made by bench/heldout/_build.py's `logs` and `metrics`, and a
namespace's tables by bench/heldout2/_build.py's `namespace`, each with a fixed seed per scenario.
The author read neither the planner (`reasoning/`) nor the engine (`diagnosis/engine/`). Stdlib only.
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

when = base.when
iso = base.iso
table = base.table
events = base.events
runbook = base.runbook
metrics = base.metrics
logs = base.logs
TOLERATIONS = base.TOLERATIONS
app = h2.app
pod_name = h2.pod_name
namespace = h2.namespace
node_describe = h2.node_describe
bg = h2.bg
ev = h2.ev

SCENARIOS: dict[str, Any] = {}


def scenario(slug: str):
    def register(fn):
        SCENARIOS[slug] = fn
        return fn

    return register


# --- describe text ----------------------------------------------------------------------------------


def indent(text: str, n: int = 2) -> str:
    return "\n".join(" " * n + line for line in text.rstrip("\n").split("\n"))


def dtable(rows: list[list[str]] | list[tuple[str, ...]]) -> str:
    """kubectl describe's tabwriter: every column but the last padded to its longest cell + 2."""
    widths = [max(len(str(r[i])) for r in rows) + 2 for i in range(len(rows[0]) - 1)]
    return (
        "\n".join(
            (
                "".join(str(c).ljust(w) for c, w in zip(r[:-1], widths, strict=False))
                + str(r[-1])
            ).rstrip()
            for r in rows
        )
        + "\n"
    )


def event_block(rows: list[tuple[str, str, str, str, str]]) -> str:
    """rows: (type, reason, age, from, message), as a describe's Events section."""
    if not rows:
        return "Events:  <none>"
    return "Events:\n" + indent(
        dtable(
            [
                ["Type", "Reason", "Age", "From", "Message"],
                ["----", "------", "----", "----", "-------"],
                *rows,
            ]
        )
    )


def container_text(
    name: str,
    image: str,
    port: int,
    *,
    env: dict[str, str] | None = None,
    limits: str = "memory:  512Mi",
    requests: str = "cpu:      250m\n  memory:   512Mi",
    readiness: str | None = None,
    liveness: str | None = None,
) -> str:
    lines = [
        f"   {name}:",
        f"    Image:      {image}",
        f"    Port:       {port}/TCP (http)",
        "    Host Port:  0/TCP (http)",
        "    Limits:",
        *["      " + x.strip() for x in limits.split("\n")],
        "    Requests:",
        *["      " + x.strip() for x in requests.split("\n")],
    ]
    if liveness:
        lines.append(f"    Liveness:   {liveness}")
    if readiness:
        lines.append(f"    Readiness:  {readiness}")
    lines.append("    Environment:" + ("" if env else "  <none>"))
    width = max((len(k) for k in env or {}), default=0) + 3
    for k, v in (env or {}).items():
        lines.append(f"      {(k + ':').ljust(width)}{v}")
    lines.append(
        "    Mounts:\n      /var/run/secrets/kubernetes.io/serviceaccount from kube-api-access (ro)"
    )
    return "\n".join(lines)


def deployment_describe(
    name: str,
    ns: str,
    *,
    replicas: str,
    revision: int,
    containers: str,
    conditions: list[tuple[str, str, str]],
    old_rs: str,
    new_rs: str,
    strategy: str = "RollingUpdate",
    events_rows: list[tuple[str, str, str, str, str]] = (),
    created: float = -25920000,
    labels: str | None = None,
) -> str:
    cond = indent(
        dtable(
            [["Type ", "Status", "Reason"], ["---- ", "------", "------"]]
            + [[t + " ", st, r] for t, st, r in conditions]
        )
    )
    strat = (
        "RollingUpdateStrategy:  25% max unavailable, 25% max surge\n"
        if strategy == "RollingUpdate"
        else ""
    )
    return f"""Name:                   {name}
Namespace:              {ns}
CreationTimestamp:      {when(created)}
Labels:                 {labels or "app=" + name}
Annotations:            deployment.kubernetes.io/revision: {revision}
Selector:               app={name}
Replicas:               {replicas}
StrategyType:           {strategy}
MinReadySeconds:        0
{strat}Pod Template:
  Labels:           app={name}
  Service Account:  {name}
  Containers:
{containers}
  Volumes:
   kube-api-access:
    Type:                    Projected (a volume that contains injected data from multiple sources)
    TokenExpirationSeconds:  3607
    ConfigMapName:           kube-root-ca.crt
    Optional:                false
    DownwardAPI:             true
  Node-Selectors:            <none>
  Tolerations:               node.kubernetes.io/not-ready:NoExecute op=Exists for 300s
                             node.kubernetes.io/unreachable:NoExecute op=Exists for 300s
Conditions:
{cond}
OldReplicaSets:    {old_rs}
NewReplicaSet:     {new_rs}
{event_block(list(events_rows))}
"""


def replicaset_describe(
    name: str,
    ns: str,
    *,
    deployment: str,
    revision: int,
    desired: int,
    current: int,
    status: str,
    containers: str,
    failure: bool,
    events_rows: list[tuple[str, str, str, str, str]] = (),
) -> str:
    h = name.rsplit("-", 1)[1]
    cond = (
        "Conditions:\n  Type             Status  Reason\n  ----             ------  ------\n  ReplicaFailure   True    FailedCreate\n"
        if failure
        else ""
    )
    return f"""Name:           {name}
Namespace:      {ns}
Selector:       app={deployment},pod-template-hash={h}
Labels:         app={deployment}
                pod-template-hash={h}
Annotations:    deployment.kubernetes.io/desired-replicas: {desired}
                deployment.kubernetes.io/max-replicas: {desired + max(1, desired // 4)}
                deployment.kubernetes.io/revision: {revision}
Controlled By:  Deployment/{deployment}
Replicas:       {current} current / {desired} desired
Pods Status:    {status}
Pod Template:
  Labels:           app={deployment}
                    pod-template-hash={h}
  Service Account:  {deployment}
  Containers:
{containers}
  Node-Selectors:            <none>
  Tolerations:               node.kubernetes.io/not-ready:NoExecute op=Exists for 300s
                             node.kubernetes.io/unreachable:NoExecute op=Exists for 300s
{cond}{event_block(list(events_rows))}
"""


def pod_describe(
    name: str,
    ns: str,
    *,
    node: str,
    owner: str,
    labels: str,
    status: str,
    ip: str,
    container: str,
    image: str,
    state: str,
    ready: bool,
    restarts: int,
    started: float,
    events_rows: list[tuple[str, str, str, str, str]] = (),
    extra: str = "",
    conditions: list[tuple[str, str]] | None = None,
    qos: str = "Burstable",
    probes: str = "",
) -> str:
    conds = conditions or [
        ("PodReadyToStartContainers", "True"),
        ("Initialized", "True"),
        ("Ready", "True" if ready else "False"),
        ("ContainersReady", "True" if ready else "False"),
        ("PodScheduled", "True"),
    ]
    label_lines = labels.split(",")
    label_text = label_lines[0] + "".join(
        "\n                  " + x for x in label_lines[1:]
    )
    return f"""Name:             {name}
Namespace:        {ns}
Priority:         0
Service Account:  {owner.split("/")[1].rsplit("-", 1)[0] if owner.startswith("ReplicaSet") else owner.split("/")[1]}
Node:             {node}
Start Time:       {when(started)}
Labels:           {label_text}
Status:           {status}
IP:               {ip}
Controlled By:    {owner}
Containers:
  {container}:
    Image:          {image}
{state}
    Ready:          {"True" if ready else "False"}
    Restart Count:  {restarts}
{probes}{extra}Conditions:
{indent(dtable([["Type ", "Status"], *[(t + " ", st) for t, st in conds]]))}
QoS Class:                   {qos}
Node-Selectors:              <none>
{TOLERATIONS}
{event_block(list(events_rows))}
"""


def hpa_table(rows: list[tuple[str, ...]]) -> str:
    """rows: (name, reference, targets, min, max, replicas, age)."""
    return table(
        [
            ["NAME", "REFERENCE", "TARGETS", "MINPODS", "MAXPODS", "REPLICAS", "AGE"],
            *rows,
        ]
    )


# =================================================================================================
# 1. A LimitRange added yesterday rejects the pods an HPA scale-out asks for (admission). The old
#    pods predate it and keep running, overloaded. The incident says "invoicing".
# =================================================================================================


@scenario("limitrange-rejects-pods")
def limitrange_rejects_pods() -> dict[str, Any]:
    start = -1680
    ns = "billing"
    nodes = [
        ("ip-10-12-1-31.eu-west-1.compute.internal", "Ready", "10.12.1.31"),
        ("ip-10-12-2-87.eu-west-1.compute.internal", "Ready", "10.12.2.87"),
        ("ip-10-12-3-14.eu-west-1.compute.internal", "Ready", "10.12.3.14"),
    ]
    rs = "7d9f8c6b5"
    img = "123456789012.dkr.ecr.eu-west-1.amazonaws.com/billing/invoice-renderer:5.6.2"
    rend = app(
        "invoice-renderer",
        image=img,
        port=8080,
        rs=rs,
        cluster_ip="172.20.61.40",
        desired=6,
        pods=[
            ("b2kzq", "1/1", "Running", "0", "12d", 0),
            ("n7xwp", "1/1", "Running", "0", "12d", 2),
        ],
    )
    api = app(
        "billing-api",
        image="123456789012.dkr.ecr.eu-west-1.amazonaws.com/billing/billing-api:2.31.0",
        port=8080,
        rs="5b8c7d9f4",
        cluster_ip="172.20.61.12",
        pods=[
            ("d4hmt", "1/1", "Running", "0", "3h", 0),
            ("k8vrc", "1/1", "Running", "0", "3h", 1),
            ("s2pgl", "1/1", "Running", "0", "3h", 2),
        ],
    )
    mailer = app(
        "invoice-mailer",
        image="123456789012.dkr.ecr.eu-west-1.amazonaws.com/billing/invoice-mailer:1.4.0",
        port=8080,
        rs="6f5d8b7c9",
        cluster_ip="172.20.61.77",
        pods=[("w9fjd", "1/1", "Running", "0", "30d", 1)],
    )
    k8s = namespace(
        ns,
        nodes,
        [rend, api, mailer],
        seed=121,
        configmaps=[("invoice-renderer-fonts", "12", "200d")],
    )
    k8s[f"kubectl get deployments -n {ns} -o wide"] = base.deployments(
        [
            (
                "billing-api",
                "3/3",
                "3",
                "3",
                "300d",
                "billing-api",
                api["image"],
                "app=billing-api",
            ),
            (
                "invoice-mailer",
                "1/1",
                "1",
                "1",
                "300d",
                "invoice-mailer",
                mailer["image"],
                "app=invoice-mailer",
            ),
            (
                "invoice-renderer",
                "2/6",
                "2",
                "2",
                "300d",
                "invoice-renderer",
                img,
                "app=invoice-renderer",
            ),
        ]
    )
    k8s[f"kubectl get replicasets -n {ns} -o wide"] = base.replicasets(
        [
            (
                "billing-api-5b8c7d9f4",
                "3",
                "3",
                "3",
                "3h",
                "billing-api",
                api["image"],
                "app=billing-api,pod-template-hash=5b8c7d9f4",
            ),
            (
                "invoice-mailer-6f5d8b7c9",
                "1",
                "1",
                "1",
                "30d",
                "invoice-mailer",
                mailer["image"],
                "app=invoice-mailer,pod-template-hash=6f5d8b7c9",
            ),
            (
                f"invoice-renderer-{rs}",
                "6",
                "2",
                "2",
                "12d",
                "invoice-renderer",
                img,
                f"app=invoice-renderer,pod-template-hash={rs}",
            ),
        ]
    )
    k8s[f"kubectl get horizontalpodautoscalers -n {ns}"] = hpa_table(
        [
            (
                "billing-api",
                "Deployment/billing-api",
                "cpu: 31%/70%",
                "3",
                "10",
                "3",
                "300d",
            ),
            (
                "invoice-renderer",
                "Deployment/invoice-renderer",
                "cpu: 188%/60%",
                "2",
                "12",
                "6",
                "300d",
            ),
        ]
    )
    k8s[f"kubectl get limitranges -n {ns}"] = table(
        [["NAME", "CREATED AT"], ["billing-limits", iso(-72000)]]
    )
    k8s[
        f"kubectl describe limitranges billing-limits -n {ns}"
    ] = f"""Name:       billing-limits
Namespace:  {ns}
Type        Resource  Min  Max  Default Request  Default Limit  Max Limit/Request Ratio
----        --------  ---  ---  ---------------  -------------  -----------------------
Container   cpu       -    2    100m             500m           -
Container   memory    -    1Gi  128Mi            512Mi          -
"""
    forbidden = 'Error creating: pods "invoice-renderer-7d9f8c6b5-{}" is forbidden: maximum memory usage per Container is 1Gi, but limit is 2Gi'
    fc = [
        ("Warning", "FailedCreate", a, "replicaset-controller", forbidden.format(s))
        for a, s in (
            ("27m", "q4m2x"),
            ("27m", "h8t5v"),
            ("27m", "c2lzr"),
            ("26m", "x7bnw"),
        )
    ]
    fc.append(
        (
            "Warning",
            "FailedCreate",
            "40s (x17 over 26m)",
            "replicaset-controller",
            "(combined from similar events): " + forbidden.format("v6rk9"),
        )
    )
    cont = container_text(
        "invoice-renderer",
        img,
        8080,
        env={"RENDER_WORKERS": "8", "FONT_DIR": "/fonts"},
        limits="cpu:     2\nmemory:  2Gi",
        requests="cpu:      1\nmemory:   1536Mi",
        readiness="http-get http://:http/ready delay=5s timeout=1s period=10s #success=1 #failure=3",
    )
    k8s[f"kubectl describe replicasets invoice-renderer-{rs} -n {ns}"] = (
        replicaset_describe(
            f"invoice-renderer-{rs}",
            ns,
            deployment="invoice-renderer",
            revision=14,
            desired=6,
            current=2,
            status="2 Running / 0 Waiting / 0 Succeeded / 0 Failed",
            containers=cont,
            failure=True,
            events_rows=fc,
        )
    )
    k8s[f"kubectl describe deployments invoice-renderer -n {ns}"] = deployment_describe(
        "invoice-renderer",
        ns,
        replicas="6 desired | 2 updated | 2 total | 2 available | 4 unavailable",
        revision=14,
        containers=cont,
        conditions=[
            ("Progressing", "True", "NewReplicaSetAvailable"),
            ("Available", "False", "MinimumReplicasUnavailable"),
            ("ReplicaFailure", "True", "FailedCreate"),
        ],
        old_rs="<none>",
        new_rs=f"invoice-renderer-{rs} (2/6 replicas created)",
        events_rows=[
            (
                "Normal",
                "ScalingReplicaSet",
                "27m",
                "deployment-controller",
                f"Scaled up replica set invoice-renderer-{rs} to 6 from 2",
            )
        ],
    )
    k8s[
        f"kubectl describe horizontalpodautoscalers invoice-renderer -n {ns}"
    ] = f"""Name:                                                  invoice-renderer
Namespace:                                             {ns}
Labels:                                                app=invoice-renderer
CreationTimestamp:                                     {when(-25920000)}
Reference:                                             Deployment/invoice-renderer
Metrics:                                               ( current / target )
  resource cpu on pods  (as a percentage of request):  188% (1880m) / 60%
Min replicas:                                          2
Max replicas:                                          12
Deployment pods:                                       2 current / 6 desired
Conditions:
  Type            Status  Reason              Message
  ----            ------  ------              -------
  AbleToScale     True    SucceededRescale    the HPA controller was able to update the target scale to 6
  ScalingActive   True    ValidMetricFound    the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)
  ScalingLimited  False   DesiredWithinRange  the desired count is within the acceptable range
Events:
  Type    Reason             Age   From                       Message
  ----    ------             ----  ----                       -------
  Normal  SuccessfulRescale  27m   horizontal-pod-autoscaler  New size: 6; reason: cpu resource utilization (percentage of request) above target
"""
    rp = [pod_name(rend, "b2kzq"), pod_name(rend, "n7xwp")]
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "3h",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/billing-api",
                "Scaled up replica set billing-api-5b8c7d9f4 to 3",
            ),
            (
                "27m",
                "Normal",
                "SuccessfulRescale",
                "HorizontalPodAutoscaler/invoice-renderer",
                "New size: 6; reason: cpu resource utilization (percentage of request) above target",
            ),
            (
                "27m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/invoice-renderer",
                f"Scaled up replica set invoice-renderer-{rs} to 6 from 2",
            ),
            *[
                (r[2], r[0], r[1], f"ReplicaSet/invoice-renderer-{rs}", r[4])
                for r in fc
            ],
        ]
    )
    ap = [pod_name(api, s[0]) for s in api["pods"]]
    bgs = [
        bg(
            "billing-api",
            ap,
            ["GET /v2/invoices/{n} 200 {ms}ms", "POST /v2/invoices 201 {ms}ms"],
            2,
        ),
        bg("invoice-renderer", rp, ["rendered invoice {n} (3 pages) in {ms}0ms"], 3),
        bg(
            "invoice-mailer",
            [pod_name(mailer, "w9fjd")],
            ["sent invoice {n} to customer"],
            20,
        ),
    ]
    evs = [
        ev(
            "platform-policy",
            "info",
            "namespace-baseline synced to billing: created LimitRange billing-limits (container max cpu 2, memory 1Gi)",
            at=-72000,
        ),
        ev(
            "invoice-renderer",
            "warn",
            "render queue depth {n} (workers 8/8 busy)",
            **{"from": start + 60, "to": -5, "every_s": 30},
            pods=rp,
        ),
        ev(
            "billing-api",
            "error",
            "POST /v2/invoices/{n}/pdf 504: invoice-renderer.billing.svc:8080 did not answer within 30000ms",
            **{"from": start + 200, "to": -3, "every_s": 4},
            pods=ap,
        ),
        ev(
            "billing-api",
            "info",
            "billing-api 2.31.0 started (feature: EU VAT rounding)",
            at=-10800,
            pods=ap,
        ),
        ev(
            "invoice-renderer",
            "error",
            "font cache rebuild failed: /fonts/NotoSansCJK-Regular.ttc truncated",
            **{"from": -9000, "to": -8400, "every_s": 120},
            pods=rp,
        ),
        ev(
            "invoice-mailer",
            "warn",
            "SES send rate 14/s close to quota 15/s",
            **{"from": start, "to": -5, "every_s": 180},
            pod=pod_name(mailer, "w9fjd"),
        ),
    ]
    return {
        "incident": {
            "title": "Month-end invoices stuck",
            "service": "invoicing",
            "severity": "sev2",
            "symptoms": ["invoice PDFs time out"],
            "description": "Finance: month-end run started at 13:30, PDFs not generating.",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "platform",
            "root_cause_stage": "admission",
            "root_cause_reason": "FailedCreate",
            "root_cause_component": [
                "limitrange/billing-limits",
                "billing-limits",
                "deployment/invoice-renderer",
                "invoice-renderer",
                f"replicaset/invoice-renderer-{rs}",
            ],
            "root_cause_signal": "maximum memory usage per Container",
            "root_cause": "A LimitRange billing-limits synced into the namespace yesterday caps a container's memory at 1Gi. invoice-renderer's pods ask for a 2Gi limit; the two running pods predate the LimitRange, but when the HPA scaled it to 6 for the month-end run every new pod was refused at admission (FailedCreate: maximum memory usage per Container is 1Gi, but limit is 2Gi). Two pods carry a load sized for six: the render queue grows and billing-api's PDF calls time out (504). billing-api's deploy 3 h ago and the font-cache errors of 2.5 h ago are unrelated.",
            "evidence": [
                "ReplicaSet invoice-renderer-7d9f8c6b5: FailedCreate ... forbidden: maximum memory usage per Container is 1Gi, but limit is 2Gi",
                "deployment invoice-renderer 2/6, ReplicaFailure True FailedCreate",
                "limitrange billing-limits: Container memory Max 1Gi, created 20 h ago",
                "HPA invoice-renderer: 2 current / 6 desired",
            ],
            "remediation": "Raise the LimitRange's container max to 2Gi for billing (or lower invoice-renderer's limit to 1Gi with fewer workers); the ReplicaSet then creates the pods by itself.",
        },
        "logs": logs(seed=121, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "billing-api",
                    "rps": 25,
                    "errors": {"504": (0.0, 0.09)},
                    "latency": (0.06, 0.4),
                },
                {
                    "name": "invoice-renderer",
                    "rps": 3,
                    "rps_after": 9,
                    "errors": {"503": (0.0, 0.02)},
                    "latency": (0.8, 24.0),
                },
            ],
            start=start,
            seed=121,
        ),
        "kubernetes": k8s,
        "runbooks": {
            "invoice-renderer-slow.md": runbook(
                "Invoice PDFs slow",
                "At month end invoice-renderer is CPU-bound. If PDFs time out, scale it by hand: `kubectl scale deploy/invoice-renderer -n billing --replicas=8`, and raise billing-api's PDF timeout to 60 s.",
            ),
        },
    }


# =================================================================================================
# 2. An admission webhook whose service has no endpoints: the kyverno admission controller
#    crash-loops after a chart upgrade; with failurePolicy Fail no pod can be created, so a spot
#    interruption's lost cart-api pods never come back. The incident says "cart".
# =================================================================================================


@scenario("webhook-no-endpoints")
def webhook_no_endpoints() -> dict[str, Any]:
    start = -1320
    ns = "storefront"
    nodes = [
        ("ip-10-20-1-15.us-east-2.compute.internal", "Ready", "10.20.1.15"),
        ("ip-10-20-2-62.us-east-2.compute.internal", "Ready", "10.20.2.62"),
        ("ip-10-20-3-9.us-east-2.compute.internal", "Ready", "10.20.3.9", "21m"),
    ]
    rs = "64c9b8d7f"
    img = "ghcr.io/trailgear/cart-api:3.12.4"
    cart = app(
        "cart-api",
        image=img,
        port=8080,
        rs=rs,
        cluster_ip="172.20.14.21",
        desired=3,
        pods=[("m3xkt", "1/1", "Running", "0", "6d", 0)],
    )
    web = app(
        "storefront-web",
        image="ghcr.io/trailgear/storefront-web:9.1.0",
        port=3000,
        rs="7b6d5c8f9",
        cluster_ip="172.20.14.5",
        pods=[
            ("a5rnv", "1/1", "Running", "0", "2d", 0),
            ("g8wqs", "1/1", "Running", "0", "2d", 1),
            ("p3dzm", "1/1", "Running", "0", "21m", 2),
        ],
    )
    reco = app(
        "reco-api",
        image="ghcr.io/trailgear/reco-api:0.8.1",
        port=8080,
        rs="5d7f6c9b8",
        cluster_ip="172.20.14.60",
        pods=[("t6hjl", "1/1", "Running", "4 (3h ago)", "9d", 1)],
    )
    k8s = namespace(
        ns, nodes, [cart, web, reco], seed=122, extra_namespaces=("kyverno",)
    )
    k8s[f"kubectl get deployments -n {ns} -o wide"] = base.deployments(
        [
            ("cart-api", "1/3", "1", "1", "400d", "cart-api", img, "app=cart-api"),
            (
                "reco-api",
                "1/1",
                "1",
                "1",
                "90d",
                "reco-api",
                reco["image"],
                "app=reco-api",
            ),
            (
                "storefront-web",
                "3/3",
                "3",
                "3",
                "400d",
                "storefront-web",
                web["image"],
                "app=storefront-web",
            ),
        ]
    )
    k8s[f"kubectl get replicasets -n {ns} -o wide"] = base.replicasets(
        [
            (
                f"cart-api-{rs}",
                "3",
                "1",
                "1",
                "6d",
                "cart-api",
                img,
                f"app=cart-api,pod-template-hash={rs}",
            ),
            (
                "reco-api-5d7f6c9b8",
                "1",
                "1",
                "1",
                "9d",
                "reco-api",
                reco["image"],
                "app=reco-api,pod-template-hash=5d7f6c9b8",
            ),
            (
                "storefront-web-7b6d5c8f9",
                "3",
                "3",
                "3",
                "2d",
                "storefront-web",
                web["image"],
                "app=storefront-web,pod-template-hash=7b6d5c8f9",
            ),
        ]
    )
    wh = 'Error creating: Internal error occurred: failed calling webhook "validate.kyverno.svc-fail": failed to call webhook: Post "https://kyverno-svc.kyverno.svc:443/validate/fail?timeout=10s": no endpoints available for service "kyverno-svc"'
    fc = [
        ("Warning", "FailedCreate", "22m", "replicaset-controller", wh),
        ("Warning", "FailedCreate", "22m", "replicaset-controller", wh),
        (
            "Warning",
            "FailedCreate",
            "50s (x19 over 21m)",
            "replicaset-controller",
            "(combined from similar events): " + wh,
        ),
    ]
    cont = container_text(
        "cart-api",
        img,
        8080,
        env={
            "REDIS_ADDR": "cart-redis:6379",
            "PRICING_URL": "http://pricing.catalog.svc:8080",
        },
        readiness="http-get http://:http/ready delay=0s timeout=1s period=10s #success=1 #failure=3",
    )
    k8s[f"kubectl describe replicasets cart-api-{rs} -n {ns}"] = replicaset_describe(
        f"cart-api-{rs}",
        ns,
        deployment="cart-api",
        revision=31,
        desired=3,
        current=1,
        status="1 Running / 0 Waiting / 0 Succeeded / 0 Failed",
        containers=cont,
        failure=True,
        events_rows=fc,
    )
    k8s[f"kubectl describe deployments cart-api -n {ns}"] = deployment_describe(
        "cart-api",
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
        new_rs=f"cart-api-{rs} (1/3 replicas created)",
    )
    lost = "ip-10-20-3-201.us-east-2.compute.internal"
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "3h",
                "Warning",
                "BackOff",
                f"Pod/{pod_name(reco, 't6hjl')}",
                "Back-off restarting failed container reco-api in pod "
                + pod_name(reco, "t6hjl"),
            ),
            (
                "23m",
                "Normal",
                "NodeNotReady",
                f"Pod/cart-api-{rs}-f2vbn",
                "Node is not ready",
            ),
            (
                "23m",
                "Normal",
                "NodeNotReady",
                f"Pod/cart-api-{rs}-z9kcq",
                "Node is not ready",
            ),
            (
                "22m",
                "Normal",
                "TaintManagerEviction",
                f"Pod/cart-api-{rs}-f2vbn",
                "Marking for deletion Pod storefront/cart-api-" + rs + "-f2vbn",
            ),
            (
                "22m",
                "Normal",
                "TaintManagerEviction",
                f"Pod/cart-api-{rs}-z9kcq",
                "Marking for deletion Pod storefront/cart-api-" + rs + "-z9kcq",
            ),
            *[(r[2], r[0], r[1], f"ReplicaSet/cart-api-{rs}", r[4]) for r in fc],
            (
                "21m",
                "Normal",
                "Scheduled",
                f"Pod/{pod_name(web, 'p3dzm')}",
                f"Successfully assigned storefront/{pod_name(web, 'p3dzm')} to {nodes[2][0]}",
            ),
        ]
    )
    # kyverno namespace
    kv = "kyverno-admission-controller"
    kvp = f"{kv}-6f8b7d9c5-rq2xw"
    k8s["kubectl get pods -n kyverno -o wide --show-labels"] = base.pods(
        [
            (
                kvp,
                "0/1",
                "CrashLoopBackOff",
                "9 (2m ago)",
                "41m",
                "10.122.2.44",
                nodes[1][0],
                "app.kubernetes.io/component=admission-controller,app.kubernetes.io/instance=kyverno,pod-template-hash=6f8b7d9c5",
            ),
            (
                "kyverno-background-controller-7c5d9b8f6-l4mzd",
                "1/1",
                "Running",
                "0",
                "41m",
                "10.122.1.29",
                nodes[0][0],
                "app.kubernetes.io/component=background-controller,app.kubernetes.io/instance=kyverno,pod-template-hash=7c5d9b8f6",
            ),
            (
                "kyverno-cleanup-controller-5b9c8d7f4-x8hqp",
                "1/1",
                "Running",
                "0",
                "41m",
                "10.122.1.30",
                nodes[0][0],
                "app.kubernetes.io/component=cleanup-controller,app.kubernetes.io/instance=kyverno,pod-template-hash=5b9c8d7f4",
            ),
        ]
    )
    k8s["kubectl get deployments -n kyverno -o wide"] = base.deployments(
        [
            (
                kv,
                "0/1",
                "1",
                "0",
                "210d",
                "kyverno",
                "ghcr.io/kyverno/kyverno:v1.13.0",
                "app.kubernetes.io/component=admission-controller,app.kubernetes.io/instance=kyverno,app.kubernetes.io/part-of=kyverno",
            ),
            (
                "kyverno-background-controller",
                "1/1",
                "1",
                "1",
                "210d",
                "controller",
                "ghcr.io/kyverno/background-controller:v1.13.0",
                "app.kubernetes.io/component=background-controller,app.kubernetes.io/instance=kyverno,app.kubernetes.io/part-of=kyverno",
            ),
            (
                "kyverno-cleanup-controller",
                "1/1",
                "1",
                "1",
                "210d",
                "controller",
                "ghcr.io/kyverno/cleanup-controller:v1.13.0",
                "app.kubernetes.io/component=cleanup-controller,app.kubernetes.io/instance=kyverno,app.kubernetes.io/part-of=kyverno",
            ),
        ]
    )
    k8s["kubectl get services -n kyverno -o wide"] = base.services(
        [
            (
                "kyverno-svc",
                "ClusterIP",
                "172.20.200.14",
                "443/TCP",
                "210d",
                "app.kubernetes.io/component=admission-controller,app.kubernetes.io/instance=kyverno,app.kubernetes.io/part-of=kyverno",
            ),
            (
                "kyverno-svc-metrics",
                "ClusterIP",
                "172.20.200.15",
                "8000/TCP",
                "210d",
                "app.kubernetes.io/component=admission-controller,app.kubernetes.io/instance=kyverno,app.kubernetes.io/part-of=kyverno",
            ),
        ]
    )
    k8s["kubectl get endpoints -n kyverno"] = table(
        [
            ["NAME", "ENDPOINTS", "AGE"],
            ["kyverno-svc", "<none>", "210d"],
            ["kyverno-svc-metrics", "<none>", "210d"],
        ]
    )
    kvlog = (
        '2026-12-05T13:57:41Z\tINFO\tsetup\tversion\t{"version": "v1.13.0"}\n'
        '2026-12-05T13:57:42Z\tERROR\tsetup\tfailed to initialize TLS\t{"error": "secrets \\"kyverno-svc.kyverno.svc.kyverno-tls-ca\\" is forbidden: User \\"system:serviceaccount:kyverno:kyverno-admission-controller\\" cannot get resource \\"secrets\\" in API group \\"\\" in the namespace \\"kyverno\\""}\n'
    )
    k8s[f"kubectl logs {kvp} -n kyverno --tail=1000"] = kvlog
    k8s[f"kubectl logs {kvp} -n kyverno --previous --tail=1000"] = kvlog
    k8s["kubectl events -n kyverno"] = events(
        [
            (
                "41m",
                "Normal",
                "ScalingReplicaSet",
                f"Deployment/{kv}",
                f"Scaled up replica set {kv}-6f8b7d9c5 to 1",
            ),
            (
                "40m",
                "Normal",
                "ScalingReplicaSet",
                f"Deployment/{kv}",
                f"Scaled down replica set {kv}-58d6c7b9f to 0 from 1",
            ),
            (
                "2m (x9 over 40m)",
                "Warning",
                "BackOff",
                f"Pod/{kvp}",
                f"Back-off restarting failed container kyverno in pod {kvp}_kyverno(0b1f2e7a-95c1-4a8e-b0a4-7c2f61d9e3b1)",
            ),
        ]
    )
    k8s[f"kubectl describe pods {kvp} -n kyverno"] = pod_describe(
        kvp,
        "kyverno",
        node=f"{nodes[1][0]}/10.20.2.62",
        owner=f"ReplicaSet/{kv}-6f8b7d9c5",
        labels="app.kubernetes.io/component=admission-controller,app.kubernetes.io/instance=kyverno,pod-template-hash=6f8b7d9c5",
        status="Running",
        ip="10.122.2.44",
        container="kyverno",
        image="ghcr.io/kyverno/kyverno:v1.13.0",
        state=f"    State:          Waiting\n      Reason:       CrashLoopBackOff\n    Last State:     Terminated\n      Reason:       Error\n      Exit Code:    1\n      Started:      {when(-140)}\n      Finished:     {when(-139)}",
        ready=False,
        restarts=9,
        started=-2460,
        events_rows=[
            (
                "Normal",
                "Scheduled",
                "41m",
                "default-scheduler",
                f"Successfully assigned kyverno/{kvp} to {nodes[1][0]}",
            ),
            (
                "Warning",
                "BackOff",
                "2m (x9 over 40m)",
                "kubelet",
                "Back-off restarting failed container kyverno in pod "
                + kvp
                + "_kyverno(0b1f2e7a-95c1-4a8e-b0a4-7c2f61d9e3b1)",
            ),
        ],
    )
    cp = pod_name(cart, "m3xkt")
    wp = [pod_name(web, s[0]) for s in web["pods"]]
    bgs = [
        bg("storefront-web", wp, ["GET / 200 {ms}ms", "GET /p/{n} 200 {ms}ms"], 1.5),
        bg(
            "cart-api",
            [cp, f"cart-api-{rs}-f2vbn", f"cart-api-{rs}-z9kcq"],
            ["POST /v1/cart/items 200 {ms}ms", "GET /v1/cart 200 {ms}ms"],
            2,
            until=start - 100,
        ),
        bg("cart-api", [cp], ["GET /v1/cart 200 {ms}ms"], 3, **{"from": start - 100}),
    ]
    evs = [
        ev(
            "helm",
            "info",
            "release kyverno upgraded: chart kyverno-3.2.6 -> kyverno-3.3.0 (app v1.12.5 -> v1.13.0), values: rbac.create=false (managed by platform-rbac)",
            at=-2470,
        ),
        ev(
            "kyverno",
            "error",
            'failed to initialize TLS: secrets "kyverno-svc.kyverno.svc.kyverno-tls-ca" is forbidden: User "system:serviceaccount:kyverno:kyverno-admission-controller" cannot get resource "secrets"',
            **{"from": -2440, "to": -120, "every_s": 300},
            labels={"namespace": "kyverno", "pod": kvp},
        ),
        ev(
            "cloud-events",
            "warn",
            f"EC2 Spot Instance interruption warning for i-0c4e8a1f2b7d93e60 ({lost}): terminating in 2 minutes",
            at=start - 240,
        ),
        ev(
            "cart-api",
            "warn",
            "in-flight requests {n}, p99 {ms}0ms: running hot",
            **{"from": start + 60, "to": -5, "every_s": 20},
            pod=cp,
        ),
        ev(
            "storefront-web",
            "error",
            "POST /cart/add failed: cart-api.storefront.svc:8080 503 upstream overloaded (request {n})",
            **{"from": start + 30, "to": -2, "every_s": 3},
            pods=wp,
        ),
        ev(
            "reco-api",
            "error",
            "model load failed: s3://trailgear-ml/reco/latest.onnx AccessDenied",
            **{"from": -11500, "to": -10600, "every_s": 150},
            pod=pod_name(reco, "t6hjl"),
        ),
    ]
    return {
        "incident": {
            "title": "add to cart failing",
            "service": "cart",
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
                f"deployment/{kv}",
                kv,
                "service/kyverno-svc",
                "kyverno-svc",
                "kyverno",
                f"pod/{kvp}",
            ],
            "root_cause_signal": "failed calling webhook",
            "root_cause": "The kyverno chart upgrade 41 min ago (rbac.create=false) left the admission controller's service account unable to read its TLS secret: kyverno-admission-controller crash-loops and kyverno-svc has no endpoints. Its validating webhook has failurePolicy Fail, so every pod create in the cluster is refused ('failed calling webhook ... no endpoints available for service kyverno-svc'). When a spot interruption took the node with two of cart-api's three pods, the ReplicaSet could not replace them: one pod serves all cart traffic and storefront-web's add-to-cart gets 503. The spot interruption is the trigger, not the cause; reco-api's AccessDenied is 3 h old.",
            "evidence": [
                "ReplicaSet cart-api-64c9b8d7f: FailedCreate: failed calling webhook validate.kyverno.svc-fail: no endpoints available for service kyverno-svc",
                "kyverno: kyverno-admission-controller 0/1 CrashLoopBackOff, endpoints kyverno-svc <none>",
                "kyverno logs: failed to initialize TLS: secrets ... is forbidden",
                "helm: kyverno upgraded 3.2.6 -> 3.3.0 with rbac.create=false",
            ],
            "remediation": "Restore kyverno's RBAC (rbac.create=true or grant the secret read), or temporarily set the webhook's failurePolicy to Ignore; the ReplicaSet then recreates cart-api's pods.",
        },
        "logs": logs(seed=122, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "storefront-web",
                    "rps": 80,
                    "errors": {"503": (0.0, 0.07)},
                    "latency": (0.05, 0.3),
                },
                {
                    "name": "cart-api",
                    "rps": 30,
                    "errors": {"503": (0.0, 0.31)},
                    "latency": (0.02, 1.6),
                    "change_at": start + 30,
                },
            ],
            start=start,
            seed=122,
        ),
        "kubernetes": k8s,
        "runbooks": {
            "spot-interruption.md": runbook(
                "Spot interruption took pods down",
                "After a spot interruption, Karpenter replaces the node within minutes. If pods stay missing, cordon and drain the replacement node and let the scheduler try again; check the node group has on-demand fallback.",
            ),
        },
    }


# =================================================================================================
# 3. A rollout stuck past its progress deadline: profile-api 4.11.0's pods never become ready (they
#    wait for a schema migration that was never run); the old ReplicaSet keeps serving on 3 of 4
#    pods and runs hot. The incident says "accounts".
# =================================================================================================


@scenario("rollout-progress-deadline")
def rollout_progress_deadline() -> dict[str, Any]:
    start = -2100
    ns = "accounts"
    nodes = [
        ("aks-apps-31415926-vmss000000", "Ready", "10.224.0.4"),
        ("aks-apps-31415926-vmss000001", "Ready", "10.224.0.5"),
        ("aks-apps-31415926-vmss000002", "Ready", "10.224.0.6"),
    ]
    new, old = "6b8d4c7f9", "5f9c7b6d8"
    img_new = "contosoacr.azurecr.io/accounts/profile-api:4.11.0"
    img_old = "contosoacr.azurecr.io/accounts/profile-api:4.10.3"
    newp = app(
        "profile-api",
        image=img_new,
        port=8080,
        rs=new,
        cluster_ip="10.0.118.40",
        service=False,
        pods=[
            ("c7vtk", "0/1", "Running", "0", "35m", 0),
            ("j2xqm", "0/1", "Running", "0", "35m", 2),
        ],
    )
    oldp = app(
        "profile-api",
        image=img_old,
        port=8080,
        rs=old,
        cluster_ip="10.0.118.40",
        pods=[
            ("h4wzr", "1/1", "Running", "0", "16d", 0),
            ("n6pfd", "1/1", "Running", "0", "16d", 1),
            ("x8bls", "1/1", "Running", "0", "16d", 2),
        ],
    )
    avatar = app(
        "avatar-svc",
        image="contosoacr.azurecr.io/accounts/avatar-svc:1.2.0",
        port=8080,
        rs="7c5b9d8f6",
        cluster_ip="10.0.118.70",
        pods=[("q3mhn", "1/1", "Running", "0", "40d", 1)],
    )
    k8s = namespace(ns, nodes, [newp, oldp, avatar], seed=123)
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
                    "<none>",
                    "63d",
                    "v1.30.6",
                    ip,
                    "<none>",
                    "Ubuntu 22.04.5 LTS",
                    "5.15.0-1075-azure",
                    "containerd://1.7.23-1",
                ]
                for n, s, ip in nodes
            ],
        ]
    )
    k8s[f"kubectl get deployments -n {ns} -o wide"] = base.deployments(
        [
            (
                "avatar-svc",
                "1/1",
                "1",
                "1",
                "40d",
                "avatar-svc",
                avatar["image"],
                "app=avatar-svc",
            ),
            (
                "profile-api",
                "3/4",
                "2",
                "3",
                "500d",
                "profile-api",
                img_new,
                "app=profile-api",
            ),
        ]
    )
    k8s[f"kubectl get replicasets -n {ns} -o wide"] = base.replicasets(
        [
            (
                "avatar-svc-7c5b9d8f6",
                "1",
                "1",
                "1",
                "40d",
                "avatar-svc",
                avatar["image"],
                "app=avatar-svc,pod-template-hash=7c5b9d8f6",
            ),
            (
                f"profile-api-{old}",
                "3",
                "3",
                "3",
                "16d",
                "profile-api",
                img_old,
                f"app=profile-api,pod-template-hash={old}",
            ),
            (
                f"profile-api-{new}",
                "2",
                "2",
                "0",
                "35m",
                "profile-api",
                img_new,
                f"app=profile-api,pod-template-hash={new}",
            ),
        ]
    )
    probe = "http-get http://:http/readyz delay=5s timeout=2s period=10s #success=1 #failure=3"
    cont = container_text(
        "profile-api",
        img_new,
        8080,
        env={
            "DB_HOST": "accounts-pg.postgres.database.azure.com",
            "SCHEMA_VERSION_REQUIRED": "58",
        },
        readiness=probe,
        liveness="http-get http://:http/livez delay=10s timeout=2s period=20s #success=1 #failure=3",
    )
    k8s[f"kubectl describe deployments profile-api -n {ns}"] = deployment_describe(
        "profile-api",
        ns,
        replicas="4 desired | 2 updated | 5 total | 3 available | 2 unavailable",
        revision=47,
        containers=cont,
        conditions=[
            ("Available", "True", "MinimumReplicasAvailable"),
            ("Progressing", "False", "ProgressDeadlineExceeded"),
        ],
        old_rs=f"profile-api-{old} (3/3 replicas created)",
        new_rs=f"profile-api-{new} (2/2 replicas created)",
        events_rows=[
            (
                "Normal",
                "ScalingReplicaSet",
                "35m",
                "deployment-controller",
                f"Scaled up replica set profile-api-{new} to 1",
            ),
            (
                "Normal",
                "ScalingReplicaSet",
                "35m",
                "deployment-controller",
                f"Scaled down replica set profile-api-{old} to 3 from 4",
            ),
            (
                "Normal",
                "ScalingReplicaSet",
                "35m",
                "deployment-controller",
                f"Scaled up replica set profile-api-{new} to 2 from 1",
            ),
        ],
    )
    np_ = [pod_name(newp, "c7vtk"), pod_name(newp, "j2xqm")]
    ips = h2.ips_of(k8s, ns)
    unready = [
        (
            "Warning",
            "Unhealthy",
            "30s (x206 over 35m)",
            "kubelet",
            "Readiness probe failed: HTTP probe failed with statuscode: 503",
        )
    ]
    for i, p in enumerate(np_):
        k8s[f"kubectl describe pods {p} -n {ns}"] = pod_describe(
            p,
            ns,
            node=f"{nodes[2 * i][0]}/{nodes[2 * i][2]}",
            owner=f"ReplicaSet/profile-api-{new}",
            labels=f"app=profile-api,pod-template-hash={new}",
            status="Running",
            ip=ips[p],
            container="profile-api",
            image=img_new,
            state=f"    State:          Running\n      Started:      {when(start + 40)}",
            ready=False,
            restarts=0,
            started=start + 30,
            probes=f"    Readiness:      {probe}\n",
            events_rows=[
                (
                    "Normal",
                    "Scheduled",
                    "35m",
                    "default-scheduler",
                    f"Successfully assigned {ns}/{p} to {nodes[2 * i][0]}",
                ),
                (
                    "Normal",
                    "Started",
                    "35m",
                    "kubelet",
                    "Started container profile-api",
                ),
                *unready,
            ],
        )
        k8s[f"kubectl logs {p} -n {ns} --tail=1000"] = (
            f"{iso(start + 41)} INFO  profile-api 4.11.0 starting (build 8f3e2a1)\n"
            f"{iso(start + 42)} INFO  connected to accounts-pg.postgres.database.azure.com/accounts\n"
            f"{iso(start + 42)} WARN  schema version 57 found, 58 required (migration 0058_profile_pronouns not applied); serving /readyz 503 until it is\n"
            f"{iso(-15)} WARN  schema version 57 found, 58 required; still waiting (readyz 503)\n"
        )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "35m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/profile-api",
                f"Scaled up replica set profile-api-{new} to 1",
            ),
            (
                "35m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/profile-api",
                f"Scaled down replica set profile-api-{old} to 3 from 4",
            ),
            (
                "35m",
                "Normal",
                "SuccessfulDelete",
                f"ReplicaSet/profile-api-{old}",
                f"Deleted pod: profile-api-{old}-t5kcw",
            ),
            (
                "35m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/profile-api",
                f"Scaled up replica set profile-api-{new} to 2 from 1",
            ),
            (
                "30s (x206 over 35m)",
                "Warning",
                "Unhealthy",
                f"Pod/{np_[0]}",
                "Readiness probe failed: HTTP probe failed with statuscode: 503",
            ),
            (
                "28s (x205 over 35m)",
                "Warning",
                "Unhealthy",
                f"Pod/{np_[1]}",
                "Readiness probe failed: HTTP probe failed with statuscode: 503",
            ),
            (
                "25m",
                "Warning",
                "ProgressDeadlineExceeded",
                "Deployment/profile-api",
                f'ReplicaSet "profile-api-{new}" has timed out progressing.',
            ),
        ]
    )
    op = [pod_name(oldp, s[0]) for s in oldp["pods"]]
    bgs = [
        bg(
            "profile-api",
            [*op, f"profile-api-{old}-t5kcw"],
            ["GET /v2/profile/{n} 200 {ms}ms", "PATCH /v2/profile/{n} 200 {ms}ms"],
            1,
            until=start,
        ),
        bg(
            "profile-api",
            op,
            ["GET /v2/profile/{n} 200 {ms}0ms"],
            1.2,
            **{"from": start},
        ),
        bg(
            "avatar-svc",
            [pod_name(avatar, "q3mhn")],
            ["GET /avatars/{n}.png 200 {ms}ms"],
            3,
        ),
    ]
    evs = [
        ev(
            "argocd",
            "info",
            "accounts/profile-api synced to 4.11.0 (app-of-apps rev 9c1e7f0); hook PreSync/profile-api-migrate skipped: hook disabled in values-prod.yaml",
            at=start,
        ),
        ev(
            "profile-api",
            "warn",
            "schema version 57 found, 58 required (migration 0058_profile_pronouns not applied); serving /readyz 503 until it is",
            **{"from": start + 40, "to": -15, "every_s": 300},
            pods=np_,
        ),
        ev(
            "profile-api",
            "warn",
            "request queue {n} deep, worker saturation 96%",
            **{"from": start + 300, "to": -5, "every_s": 45},
            pods=op,
        ),
        ev(
            "profile-api",
            "error",
            "GET /v2/profile/{n} 503: request timed out in queue after 5000ms",
            **{"from": start + 600, "to": -3, "every_s": 15},
            pods=op,
        ),
        ev(
            "accounts-pg",
            "warn",
            "LOG:  duration: 1{ms}.2 ms  statement: SELECT ... FROM sessions WHERE expires_at < now()",
            **{"from": -8000, "to": -6500, "every_s": 200},
            pods=["accounts-pg"],
        ),
        ev(
            "avatar-svc",
            "error",
            "CDN purge failed for avatars/{n}.png: 429",
            **{"from": -9500, "to": -9000, "every_s": 100},
            pod=pod_name(avatar, "q3mhn"),
        ),
    ]
    return {
        "incident": {
            "title": "accounts slow",
            "service": "accounts",
            "severity": "sev3",
            "symptoms": ["profile page takes 5+ seconds"],
            "description": "",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "application",
            "root_cause_stage": "startup",
            "root_cause_reason": "ProgressDeadlineExceeded",
            "root_cause_component": [
                "deployment/profile-api",
                "profile-api",
                f"replicaset/profile-api-{new}",
            ],
            "root_cause_signal": "ProgressDeadlineExceeded",
            "root_cause": "profile-api 4.11.0 requires schema version 58, but Argo CD skipped the PreSync migration hook (disabled in values-prod.yaml): the new pods run and answer /readyz 503 forever. The rollout took one of the four 4.10.3 pods away (25% max unavailable) and stopped past its progress deadline (Progressing False, ProgressDeadlineExceeded); three old pods carry the full load, queue and time out. The database is healthy (its slow-statement lines are hours old).",
            "evidence": [
                "deployment profile-api: Progressing False ProgressDeadlineExceeded; 3/4 ready, 2 updated",
                "new pods 0/1 Running: Readiness probe failed with statuscode 503",
                "new pod logs: schema version 57 found, 58 required",
                "argocd: PreSync/profile-api-migrate skipped",
            ],
            "remediation": "Roll profile-api back to 4.10.3 (`kubectl rollout undo`), run migration 0058, then roll forward; keep the migration hook enabled.",
        },
        "logs": logs(seed=123, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "profile-api",
                    "rps": 60,
                    "errors": {"503": (0.0, 0.03)},
                    "latency": (0.04, 1.8),
                }
            ],
            start=start,
            seed=123,
        ),
        "kubernetes": k8s,
        "runbooks": {
            "accounts-db-slow.md": runbook(
                "Profile pages slow",
                "Profile latency follows accounts-pg. Check slow statements on accounts-pg; the sessions cleanup query is the usual culprit. Run `VACUUM ANALYZE sessions` and scale profile-api up if CPU stays high.",
            ),
        },
    }


# =================================================================================================
# 4. A StatefulSet pod Pending on a volume node affinity conflict: the node group lost zone
#    us-east-1c, kafka-2's EBS volume lives there. Partitions led by kafka-2 are offline.
#    The incident says "order events".
# =================================================================================================


@scenario("statefulset-volume-zone")
def statefulset_volume_zone() -> dict[str, Any]:
    start = -2460
    ns = "streaming"
    nodes = [
        ("ip-10-40-11-20.ec2.internal", "Ready", "10.40.11.20"),
        ("ip-10-40-12-33.ec2.internal", "Ready", "10.40.12.33"),
        ("ip-10-40-11-71.ec2.internal", "Ready", "10.40.11.71", "39m"),
        ("ip-10-40-12-8.ec2.internal", "Ready", "10.40.12.8", "39m"),
    ]
    kafka = app(
        "kafka",
        image="docker.io/bitnami/kafka:3.8.1",
        port=9092,
        rs="",
        kind="StatefulSet",
        cluster_ip="None",
        pods=[
            ("0", "1/1", "Running", "0", "60d", 0),
            ("1", "1/1", "Running", "0", "60d", 1),
            ("2", "0/1", "Pending", "0", "41m", -1),
        ],
        service_port="9092/TCP",
        labels="app.kubernetes.io/name=kafka",
    )
    cons = app(
        "order-events-consumer",
        image="registry.acme.dev/orders/order-events-consumer:2.7.0",
        port=8080,
        rs="84d9c6f7b",
        cluster_ip="172.20.90.14",
        service=False,
        pods=[
            ("f6tql", "1/1", "Running", "0", "8d", 0),
            ("r2zwk", "1/1", "Running", "0", "8d", 1),
        ],
    )
    notif = app(
        "order-notifier",
        image="registry.acme.dev/orders/order-notifier:1.15.2",
        port=8080,
        rs="6c7b8d5f9",
        cluster_ip="172.20.90.30",
        service=False,
        pods=[("b8mvx", "1/1", "Running", "2 (35m ago)", "8d", 1)],
    )
    k8s = namespace(
        ns,
        nodes,
        [kafka, cons, notif],
        seed=124,
        statefulsets=table(
            [
                ["NAME", "READY", "AGE", "CONTAINERS", "IMAGES"],
                ["kafka", "2/3", "400d", "kafka", "docker.io/bitnami/kafka:3.8.1"],
            ]
        ),
    )
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
                "data-kafka-0",
                "Bound",
                "pvc-0b6e2d4a-1c5f-4e7b-9a3d-6f2e8c1b4a70",
                "500Gi",
                "RWO",
                "gp3",
                "<unset>",
                "400d",
            ],
            [
                "data-kafka-1",
                "Bound",
                "pvc-5d9a7f13-8e2c-4b6a-b1f0-3c7e9d2a5b81",
                "500Gi",
                "RWO",
                "gp3",
                "<unset>",
                "400d",
            ],
            [
                "data-kafka-2",
                "Bound",
                "pvc-9f3c1e7b-2a4d-4c8e-8b5f-1d6a3e9c7f92",
                "500Gi",
                "RWO",
                "gp3",
                "<unset>",
                "400d",
            ],
        ]
    )
    pv = "pvc-9f3c1e7b-2a4d-4c8e-8b5f-1d6a3e9c7f92"
    k8s[f"kubectl describe persistentvolumes {pv}"] = f"""Name:              {pv}
Labels:            <none>
Annotations:       pv.kubernetes.io/provisioned-by: ebs.csi.aws.com
                   volume.kubernetes.io/provisioner-deletion-secret-name:
                   volume.kubernetes.io/provisioner-deletion-secret-namespace:
Finalizers:        [external-provisioner.volume.kubernetes.io/finalizer kubernetes.io/pv-protection external-attacher/ebs-csi-aws-com]
StorageClass:      gp3
Status:            Bound
Claim:             streaming/data-kafka-2
Reclaim Policy:    Retain
Access Modes:      RWO
VolumeMode:        Filesystem
Capacity:          500Gi
Node Affinity:
  Required Terms:
    Term 0:        topology.kubernetes.io/zone in [us-east-1c]
Message:
Source:
    Type:              CSI (a Container Storage Interface (CSI) volume source)
    Driver:            ebs.csi.aws.com
    FSType:            ext4
    VolumeHandle:      vol-0a7c3e9f1b2d4e6f8
    ReadOnly:          false
    VolumeAttributes:      storage.kubernetes.io/csiProvisionerIdentity=1701234567890-8081-ebs.csi.aws.com
Events:                <none>
"""
    sched = "0/4 nodes are available: 4 node(s) had volume node affinity conflict. preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling."
    k8s[f"kubectl describe pods kafka-2 -n {ns}"] = f"""Name:             kafka-2
Namespace:        {ns}
Priority:         0
Service Account:  kafka
Node:             <none>
Labels:           app.kubernetes.io/name=kafka
                  apps.kubernetes.io/pod-index=2
                  controller-revision-hash=kafka-7b9f6c8d5
                  statefulset.kubernetes.io/pod-name=kafka-2
Status:           Pending
IP:
IPs:              <none>
Controlled By:    StatefulSet/kafka
Containers:
  kafka:
    Image:       docker.io/bitnami/kafka:3.8.1
    Ports:       9092/TCP, 9093/TCP
    Host Ports:  0/TCP, 0/TCP
    Requests:
      cpu:     2
      memory:  8Gi
    Environment:
      KAFKA_CFG_NODE_ID:  2
    Mounts:
      /bitnami/kafka from data (rw)
Conditions:
  Type           Status
  PodScheduled   False
Volumes:
  data:
    Type:       PersistentVolumeClaim (a reference to a PersistentVolumeClaim in the same namespace)
    ClaimName:  data-kafka-2
    ReadOnly:   false
QoS Class:       Burstable
Node-Selectors:  <none>
{TOLERATIONS}
Events:
  Type     Reason            Age                 From               Message
  ----     ------            ----                ----               -------
  Warning  FailedScheduling  41m                 default-scheduler  0/3 nodes are available: 3 node(s) had volume node affinity conflict. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.
  Warning  FailedScheduling  90s (x9 over 39m)   default-scheduler  {sched}
"""
    old_node = "ip-10-40-13-54.ec2.internal"
    k8s[f"kubectl events -n {ns}"] = events(
        [
            ("41m", "Normal", "Killing", "Pod/kafka-2", "Stopping container kafka"),
            (
                "41m",
                "Normal",
                "SuccessfulCreate",
                "StatefulSet/kafka",
                "create Pod kafka-2 in StatefulSet kafka successful",
            ),
            (
                "41m",
                "Warning",
                "FailedScheduling",
                "Pod/kafka-2",
                "0/3 nodes are available: 3 node(s) had volume node affinity conflict. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
            ),
            ("90s (x9 over 39m)", "Warning", "FailedScheduling", "Pod/kafka-2", sched),
            (
                "35m",
                "Warning",
                "BackOff",
                f"Pod/{pod_name(notif, 'b8mvx')}",
                "Back-off restarting failed container order-notifier",
            ),
        ]
    )
    k8s["kubectl get nodes -o wide --show-labels"] = table(
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
                "LABELS",
            ],
            *[
                [
                    n[0],
                    n[1],
                    "<none>",
                    n[3] if len(n) > 3 else "41d",
                    h2.EKS,
                    n[2],
                    "<none>",
                    "Amazon Linux 2023.6.20241121",
                    "6.1.115-126.197.amzn2023.x86_64",
                    "containerd://1.7.23",
                    f"eks.amazonaws.com/nodegroup=streaming-ng,kubernetes.io/hostname={n[0]},topology.kubernetes.io/zone=us-east-1{'a' if '-11-' in n[0] else 'b'}",
                ]
                for n in nodes
            ],
        ]
    )
    cp = [pod_name(cons, "f6tql"), pod_name(cons, "r2zwk")]
    npd = pod_name(notif, "b8mvx")
    bgs = [
        bg(
            "order-events-consumer",
            cp,
            ["consumed batch of {n} events from order-events (lag 0)"],
            5,
        ),
        bg(
            "kafka",
            ["kafka-0", "kafka-1"],
            ["[ReplicaManager broker=0] Fetch request handled in {ms}ms"],
            30,
        ),
        bg(
            "order-notifier",
            [npd],
            ["sent confirmation email for order {n}"],
            4,
            until=start,
        ),
    ]
    evs = [
        ev(
            "terraform",
            "info",
            "apply complete: module.eks.aws_eks_node_group.streaming_ng subnet_ids = [subnet-0a1 (us-east-1a), subnet-0b2 (us-east-1b)] (removed subnet-0c3 us-east-1c: IP exhaustion)",
            at=start - 300,
        ),
        ev(
            "cloud-events",
            "info",
            f"Auto Scaling: terminating {old_node} (us-east-1c): instance not in a configured subnet; launching in us-east-1a, us-east-1b",
            at=start - 60,
        ),
        ev(
            "kafka",
            "warn",
            "[Controller id=0] Broker 2 is offline; partitions order-events-2, order-events-5, order-events-8 have no leader (replication.factor=2, unclean.leader.election disabled)",
            at=start + 20,
            pod="kafka-0",
        ),
        ev(
            "order-events-consumer",
            "warn",
            "partitions [2, 5, 8] of order-events: LEADER_NOT_AVAILABLE, retrying",
            **{"from": start + 30, "to": -10, "every_s": 60},
            pods=cp,
        ),
        ev(
            "checkout-api",
            "error",
            "produce to order-events partition {ms} failed: Broker: Leader not available (order {n}); message kept in outbox",
            **{"from": start + 30, "to": -2, "every_s": 4},
            pods=["checkout-api-5c9d7-2xkq", "checkout-api-5c9d7-8mnw"],
        ),
        ev(
            "order-notifier",
            "error",
            "SMTP 421 4.7.0 Try again later from smtp.sendgrid.net; restarting sender",
            at=start + 380,
            pod=npd,
        ),
        ev(
            "order-notifier",
            "warn",
            "no events for 600s on order-events partitions [2,5,8]",
            **{"from": start + 600, "to": -30, "every_s": 600},
            pod=npd,
        ),
        ev(
            "kafka",
            "warn",
            "[GroupCoordinator 1]: Member consumer-order-analytics-1 in group order-analytics has failed, removing it from the group",
            **{"from": -9000, "to": -8500, "every_s": 100},
            pod="kafka-1",
        ),
    ]
    return {
        "incident": {
            "title": "order confirmation emails delayed",
            "service": "order events",
            "severity": "sev3",
            "symptoms": [
                "some customers get no confirmation email",
                "consumer lag alert on order-events",
            ],
            "description": "",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "platform",
            "root_cause_stage": "scheduling",
            "root_cause_reason": "FailedScheduling",
            "root_cause_component": [
                "pod/kafka-2",
                "kafka-2",
                "statefulset/kafka",
                "kafka",
                "persistentvolumeclaim/data-kafka-2",
                f"persistentvolume/{pv}",
                "streaming-ng",
            ],
            "root_cause_signal": "volume node affinity conflict",
            "root_cause": "A Terraform change removed us-east-1c's subnet from the streaming node group; the ASG terminated the node there and launched replacements in 1a/1b. kafka-2 was on that node and its EBS volume (PV for data-kafka-2) is pinned to us-east-1c, so the pod cannot be scheduled anywhere (FailedScheduling: volume node affinity conflict). order-events has replication factor 2: the three partitions led by broker 2 with their follower gone have no leader, producers keep those orders in the outbox and the notifier sends no confirmations for them. The SMTP 421 restart and the old consumer-group churn are unrelated.",
            "evidence": [
                "kafka-2 Pending: FailedScheduling 4 node(s) had volume node affinity conflict",
                "PV of data-kafka-2: Node Affinity topology.kubernetes.io/zone in [us-east-1c]",
                "nodes: all in us-east-1a / us-east-1b",
                "terraform: streaming_ng subnet us-east-1c removed; kafka controller: partitions 2,5,8 have no leader",
            ],
            "remediation": "Put a node of the streaming group back in us-east-1c (or restore the subnet); longer term, a node group per zone for stateful sets and replication factor 3.",
        },
        "logs": logs(seed=124, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "checkout-api",
                    "rps": 20,
                    "errors": {"500": (0.001, 0.001)},
                    "latency": (0.09, 0.11),
                },
                {
                    "name": "order-notifier",
                    "rps": 4,
                    "rps_after": 2.7,
                    "latency": (0.3, 0.3),
                },
            ],
            start=start,
            seed=124,
            gauges=[
                {
                    "name": "kafka_consumergroup_lag",
                    "labels": {
                        "consumergroup": "order-notifier",
                        "topic": "order-events",
                    },
                    "before": 3,
                    "after": 1800,
                    "noise": 0.3,
                },
                {
                    "name": "kafka_topic_partition_under_replicated_partition",
                    "labels": {"topic": "order-events"},
                    "before": 0,
                    "after": 9,
                    "noise": 0,
                },
            ],
        ),
        "kubernetes": k8s,
        "runbooks": {
            "consumer-lag.md": runbook(
                "Consumer lag on order-events",
                "Lag on order-events means the consumers cannot keep up. Scale order-events-consumer and order-notifier (`kubectl scale --replicas=6`) and check they are not crash-looping.",
            ),
        },
    }


# =================================================================================================
# 5. An egress NetworkPolicy that forgot DNS: a "lock down egress" policy admits SMTP and the
#    namespace's Redis but not kube-dns, so every lookup from the comms namespace times out.
#    notify-api crash-loops (its Redis check fails on the lookup) and is the louder victim.
#    The incident says "email".
# =================================================================================================


@scenario("egress-policy-blocks-dns")
def egress_policy_blocks_dns() -> dict[str, Any]:
    start = -1500
    ns = "comms"
    nodes = [
        ("gke-prod-pool-2-8f1c2a3b-4xkq", "Ready", "10.128.0.21"),
        ("gke-prod-pool-2-8f1c2a3b-9wzm", "Ready", "10.128.0.22"),
        ("gke-prod-pool-2-8f1c2a3b-k7pd", "Ready", "10.128.0.23"),
    ]
    mailer = app(
        "mail-sender",
        image="europe-docker.pkg.dev/acme-prod/comms/mail-sender:6.0.4",
        port=8080,
        rs="5c8f7b9d6",
        cluster_ip="10.52.14.30",
        pods=[
            ("d2kfm", "1/1", "Running", "0", "11d", 0),
            ("v8nqx", "1/1", "Running", "0", "11d", 2),
        ],
    )
    notify = app(
        "notify-api",
        image="europe-docker.pkg.dev/acme-prod/comms/notify-api:3.3.1",
        port=8080,
        rs="7f6d9c8b5",
        cluster_ip="10.52.14.11",
        pods=[
            ("b6rtw", "0/1", "CrashLoopBackOff", "7 (2m ago)", "11d", 0),
            ("h3zlc", "0/1", "CrashLoopBackOff", "7 (4m ago)", "11d", 1),
        ],
    )
    redis = app(
        "notify-redis",
        image="docker.io/library/redis:7.2.6",
        port=6379,
        rs="",
        kind="StatefulSet",
        cluster_ip="10.52.14.50",
        pods=[("0", "1/1", "Running", "0", "90d", 1)],
    )
    k8s = namespace(
        ns,
        nodes,
        [mailer, notify, redis],
        seed=125,
        statefulsets=table(
            [
                ["NAME", "READY", "AGE", "CONTAINERS", "IMAGES"],
                [
                    "notify-redis",
                    "1/1",
                    "400d",
                    "redis",
                    "docker.io/library/redis:7.2.6",
                ],
            ]
        ),
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
                    "<none>",
                    "22d",
                    "v1.31.1-gke.1846000",
                    ip,
                    "<none>",
                    "Container-Optimized OS from Google",
                    "6.1.100+",
                    "containerd://1.7.22",
                ]
                for n, s, ip in nodes
            ],
        ]
    )
    k8s[f"kubectl get networkpolicies -n {ns}"] = table(
        [
            ["NAME", "POD-SELECTOR", "AGE"],
            ["allow-ingress-from-gateway", "app in (mail-sender,notify-api)", "200d"],
            ["egress-lockdown", "<none>", "26m"],
            ["notify-redis-ingress", "app=notify-redis", "200d"],
        ]
    )
    k8s[
        f"kubectl describe networkpolicies egress-lockdown -n {ns}"
    ] = f"""Name:         egress-lockdown
Namespace:    {ns}
Created on:   {iso(start - 60).replace("T", " ").replace("Z", " +0000 UTC")}
Labels:       app.kubernetes.io/managed-by=security-baseline
Annotations:  security.acme.io/ticket: SEC-4411
Spec:
  PodSelector:     <none> (Allowing the specific traffic to all pods in this namespace)
  Allowing ingress traffic:
    <none> (Selected pods are isolated for ingress connectivity)
  Allowing egress traffic:
    To Port: 587/TCP
    To Port: 443/TCP
    To:
      IPBlock:
        CIDR: 0.0.0.0/0
        Except: 10.0.0.0/8, 169.254.169.254/32
    ----------
    To Port: 6379/TCP
    To:
      PodSelector: app=notify-redis
  Policy Types: Egress
"""
    k8s[
        f"kubectl describe networkpolicies allow-ingress-from-gateway -n {ns}"
    ] = f"""Name:         allow-ingress-from-gateway
Namespace:    {ns}
Created on:   {iso(-17280000).replace("T", " ").replace("Z", " +0000 UTC")}
Labels:       <none>
Annotations:  <none>
Spec:
  PodSelector:     app in (mail-sender,notify-api)
  Allowing ingress traffic:
    To Port: 8080/TCP
    From:
      NamespaceSelector: kubernetes.io/metadata.name=gateway
  Not affecting egress traffic
  Policy Types: Ingress
"""
    npods = [pod_name(notify, "b6rtw"), pod_name(notify, "h3zlc")]
    mp = [pod_name(mailer, "d2kfm"), pod_name(mailer, "v8nqx")]
    prev = (
        f"{iso(-250)} INFO notify-api 3.3.1 starting\n"
        f"{iso(-245)} ERROR startup check failed: redis notify-redis.comms.svc.cluster.local:6379: dial tcp: lookup notify-redis.comms.svc.cluster.local on 10.52.0.10:53: read udp 10.125.1.37:51122->10.52.0.10:53: i/o timeout\n"
        f"{iso(-245)} FATAL exiting: dependencies not ready\n"
    )
    for p in npods:
        k8s[f"kubectl logs {p} -n {ns} --previous --tail=1000"] = prev
    k8s[f"kubectl describe pods {npods[0]} -n {ns}"] = pod_describe(
        npods[0],
        ns,
        node=f"{nodes[0][0]}/{nodes[0][2]}",
        owner="ReplicaSet/notify-api-7f6d9c8b5",
        labels="app=notify-api,pod-template-hash=7f6d9c8b5",
        status="Running",
        ip=h2.ips_of(k8s, ns)[npods[0]],
        container="notify-api",
        image=notify["image"],
        state=f"    State:          Waiting\n      Reason:       CrashLoopBackOff\n    Last State:     Terminated\n      Reason:       Error\n      Exit Code:    1\n      Started:      {when(-250)}\n      Finished:     {when(-245)}",
        ready=False,
        restarts=7,
        started=-950400,
        events_rows=[
            (
                "Warning",
                "BackOff",
                "2m (x21 over 24m)",
                "kubelet",
                "Back-off restarting failed container notify-api in pod "
                + npods[0]
                + "_comms(7d1c2e9a-3b4f-4a6c-8e0d-2f5b9a1c7e63)",
            )
        ],
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "24m",
                "Warning",
                "BackOff",
                f"Pod/{npods[0]}",
                "Back-off restarting failed container notify-api",
            ),
            (
                "2m (x21 over 24m)",
                "Warning",
                "BackOff",
                f"Pod/{npods[0]}",
                "Back-off restarting failed container notify-api",
            ),
            (
                "4m (x20 over 23m)",
                "Warning",
                "BackOff",
                f"Pod/{npods[1]}",
                "Back-off restarting failed container notify-api",
            ),
        ]
    )
    k8s["kubectl get pods -n kube-system -o wide --show-labels"] = base.pods(
        [
            (
                "kube-dns-5f7b8d9c6-2hxqv",
                "5/5",
                "Running",
                "0",
                "22d",
                "10.125.0.7",
                nodes[0][0],
                "k8s-app=kube-dns,pod-template-hash=5f7b8d9c6",
            ),
            (
                "kube-dns-5f7b8d9c6-p9wzt",
                "5/5",
                "Running",
                "0",
                "22d",
                "10.125.2.9",
                nodes[2][0],
                "k8s-app=kube-dns,pod-template-hash=5f7b8d9c6",
            ),
            (
                "kube-proxy-gke-prod-pool-2-8f1c2a3b-4xkq",
                "1/1",
                "Running",
                "0",
                "22d",
                "10.128.0.21",
                nodes[0][0],
                "component=kube-proxy,tier=node",
            ),
        ]
    )
    k8s["kubectl get deployments -n kube-system -o wide"] = base.deployments(
        [
            (
                "kube-dns",
                "2/2",
                "2",
                "2",
                "400d",
                "kubedns,dnsmasq,sidecar,prometheus-to-sd,kube-dns-nanny",
                "gke.gcr.io/k8s-dns-kube-dns:1.23.0-gke.9,gke.gcr.io/k8s-dns-dnsmasq-nanny:1.23.0-gke.9,gke.gcr.io/k8s-dns-sidecar:1.23.0-gke.9,gke.gcr.io/prometheus-to-sd:v0.11.12-gke.11,gke.gcr.io/cpvpa:v0.8.9-gke.5",
                "k8s-app=kube-dns",
            )
        ]
    )
    k8s["kubectl get services -n kube-system -o wide"] = base.services(
        [
            (
                "kube-dns",
                "ClusterIP",
                "10.52.0.10",
                "53/UDP,53/TCP",
                "400d",
                "k8s-app=kube-dns",
            )
        ]
    )
    k8s["kubectl events -n kube-system"] = "No events found in kube-system namespace.\n"
    bgs = [
        bg(
            "mail-sender",
            mp,
            ["dequeued message {n} (template order_shipped)"],
            4,
            until=start,
        ),
        bg("mail-sender", mp, ["GET /healthz 200 1ms"], 15),
        bg(
            "kube-dns",
            ["kube-dns-5f7b8d9c6-2hxqv", "kube-dns-5f7b8d9c6-p9wzt"],
            [
                "[INFO] 10.125.{ms}.4:4{n} - A IN orders-api.shop.svc.cluster.local. udp NOERROR qr,aa,rd {ms}ms"
            ],
            20,
        ),
        bg("notify-api", npods, ["POST /v1/notify 202 {ms}ms"], 3, until=start),
    ]
    evs = [
        ev(
            "kubectl-audit",
            "info",
            "user=ci-security-baseline verb=create networkpolicies/egress-lockdown namespace=comms (SEC-4411: restrict egress to SMTP, HTTPS and notify-redis)",
            at=start - 60,
        ),
        ev(
            "mail-sender",
            "error",
            "send message {n} failed: dial tcp: lookup smtp.sendgrid.net on 10.52.0.10:53: read udp 10.125.{ms}.12:4{n}->10.52.0.10:53: i/o timeout",
            **{"from": start, "to": -3, "every_s": 5},
            pods=mp,
        ),
        ev(
            "notify-api",
            "error",
            "startup check failed: redis notify-redis.comms.svc.cluster.local:6379: dial tcp: lookup notify-redis.comms.svc.cluster.local on 10.52.0.10:53: i/o timeout",
            **{"from": start + 40, "to": -120, "every_s": 75},
            pods=npods,
        ),
        ev(
            "orders-api",
            "error",
            "POST http://notify-api.comms.svc.cluster.local:8080/v1/notify failed: connect: connection refused (order {n}); notification dropped",
            **{"from": start + 60, "to": -2, "every_s": 2},
            pods=["orders-api-6b9f-1", "orders-api-6b9f-2", "orders-api-6b9f-3"],
        ),
        ev(
            "mail-sender",
            "warn",
            "sendgrid: 4 bounces in the last hour for domain example-corp.de (reputation)",
            **{"from": -9000, "to": -6000, "every_s": 900},
            pods=mp,
        ),
        ev(
            "kube-dns",
            "error",
            "[ERROR] plugin/errors: 2 metadata.google.internal.comms.svc.cluster.local. A: read udp: i/o timeout",
            **{"from": -8600, "to": -8300, "every_s": 60},
            pods=["kube-dns-5f7b8d9c6-2hxqv"],
        ),
    ]
    return {
        "incident": {
            "title": "Customers not getting emails",
            "service": "email",
            "severity": "sev2",
            "symptoms": [],
            "description": "",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "dns",
            "root_cause_stage": "service_routing",
            "root_cause_reason": "NetworkPolicy",
            "root_cause_component": [
                "networkpolicy/egress-lockdown",
                "egress-lockdown",
            ],
            "root_cause_signal": "egress-lockdown",
            "root_cause": "The security baseline created the NetworkPolicy egress-lockdown in comms 26 min ago: it selects every pod and allows egress only to 587/443 outside 10.0.0.0/8 and to notify-redis on 6379. DNS (kube-dns, UDP/TCP 53, inside 10.0.0.0/8) is not admitted, so every name lookup from the namespace times out: mail-sender cannot resolve smtp.sendgrid.net and notify-api fails its start-up Redis check and crash-loops (orders-api's connection refused is the louder victim). kube-dns is healthy; its errors and the SendGrid bounce warnings are old.",
            "evidence": [
                "networkpolicy egress-lockdown: PodSelector <none>, Policy Types Egress, no rule to port 53",
                "mail-sender: lookup smtp.sendgrid.net on 10.52.0.10:53: i/o timeout",
                "notify-api previous logs: lookup notify-redis.comms.svc.cluster.local ... i/o timeout",
                "kube-dns pods Running and answering other namespaces",
            ],
            "remediation": "Add an egress rule to kube-dns (namespace kube-system, k8s-app=kube-dns, UDP and TCP 53) to egress-lockdown, or delete it until it does.",
        },
        "logs": logs(seed=125, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "orders-api",
                    "rps": 40,
                    "errors": {"500": (0.001, 0.002)},
                    "latency": (0.05, 0.06),
                },
                {
                    "name": "notify-api",
                    "rps": 9,
                    "rps_after": 0.0,
                    "latency": (0.01, 0.01),
                },
            ],
            start=start,
            seed=125,
            gauges=[
                {
                    "name": "mail_queue_depth",
                    "labels": {"service": "mail-sender"},
                    "before": 12,
                    "after": 4200,
                    "noise": 0.3,
                }
            ],
        ),
        "kubernetes": k8s,
        "runbooks": {
            "dns-failures.md": runbook(
                "DNS lookups timing out",
                "i/o timeout on lookups against the cluster DNS means kube-dns is overloaded. Restart it (`kubectl rollout restart deploy/kube-dns -n kube-system`) and scale the kube-dns autoscaler's min replicas.",
            ),
        },
    }


# =================================================================================================
# 6. An Ingress whose TLS secret is gone: a chart upgrade renamed the Certificate's secret, the
#    Ingress still names the old one and ingress-nginx serves its default (fake, self-signed)
#    certificate for www. The incident says "website".
# =================================================================================================


@scenario("ingress-tls-secret-missing")
def ingress_tls_secret_missing() -> dict[str, Any]:
    start = -1260
    ns = "web"
    nodes = [
        ("ip-10-5-1-44.ap-southeast-2.compute.internal", "Ready", "10.5.1.44"),
        ("ip-10-5-2-18.ap-southeast-2.compute.internal", "Ready", "10.5.2.18"),
    ]
    site = app(
        "storefront",
        image="ghcr.io/outback-gear/storefront:2026.12.5",
        port=3000,
        rs="6d9b7c5f8",
        cluster_ip="172.20.33.10",
        pods=[
            ("k2wqz", "1/1", "Running", "0", "22m", 0),
            ("m7vtn", "1/1", "Running", "0", "22m", 1),
        ],
    )
    api = app(
        "shop-api",
        image="ghcr.io/outback-gear/shop-api:8.2.0",
        port=8080,
        rs="5f8c6d9b7",
        cluster_ip="172.20.33.20",
        pods=[
            ("p4hxd", "1/1", "Running", "0", "9d", 0),
            ("s9ljc", "1/1", "Running", "0", "9d", 1),
        ],
    )
    k8s = namespace(
        ns,
        nodes,
        [site, api],
        seed=126,
        extra_namespaces=("ingress-nginx", "cert-manager"),
        secrets=[
            ("api-outback-gear-tls", "kubernetes.io/tls", "2", "300d"),
            ("www-outback-gear-tls", "kubernetes.io/tls", "2", "22m"),
        ],
    )
    k8s[f"kubectl get ingresses -n {ns}"] = table(
        [
            ["NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"],
            [
                "shop-api",
                "nginx",
                "api.outback-gear.example",
                "k8s-ingressn-ingressn-7f3a9c2e1b-5d8e4f6a2c1b3d7e.elb.ap-southeast-2.amazonaws.com",
                "80, 443",
                "300d",
            ],
            [
                "storefront",
                "nginx",
                "www.outback-gear.example,outback-gear.example",
                "k8s-ingressn-ingressn-7f3a9c2e1b-5d8e4f6a2c1b3d7e.elb.ap-southeast-2.amazonaws.com",
                "80, 443",
                "300d",
            ],
        ]
    )
    k8s[
        f"kubectl describe ingresses storefront -n {ns}"
    ] = f"""Name:             storefront
Labels:           app.kubernetes.io/instance=storefront
                  app.kubernetes.io/managed-by=Helm
                  helm.sh/chart=storefront-5.0.0
Namespace:        {ns}
Address:          k8s-ingressn-ingressn-7f3a9c2e1b-5d8e4f6a2c1b3d7e.elb.ap-southeast-2.amazonaws.com
Ingress Class:    nginx
Default backend:  <default>
TLS:
  storefront-tls terminates www.outback-gear.example,outback-gear.example
Rules:
  Host                      Path  Backends
  ----                      ----  --------
  www.outback-gear.example
                            /   storefront:3000 ({h2.ips_of(k8s, ns)[pod_name(site, "k2wqz")]}:3000,{h2.ips_of(k8s, ns)[pod_name(site, "m7vtn")]}:3000)
  outback-gear.example
                            /   storefront:3000 ({h2.ips_of(k8s, ns)[pod_name(site, "k2wqz")]}:3000,{h2.ips_of(k8s, ns)[pod_name(site, "m7vtn")]}:3000)
Annotations:                cert-manager.io/cluster-issuer: letsencrypt-prod
                            meta.helm.sh/release-name: storefront
                            meta.helm.sh/release-namespace: web
                            nginx.ingress.kubernetes.io/ssl-redirect: true
{event_block([("Normal", "Sync", "22m (x3 over 300d)", "nginx-ingress-controller", "Scheduled for sync")])}
"""
    k8s[f"kubectl describe ingresses shop-api -n {ns}"] = f"""Name:             shop-api
Labels:           app.kubernetes.io/instance=shop-api
Namespace:        {ns}
Address:          k8s-ingressn-ingressn-7f3a9c2e1b-5d8e4f6a2c1b3d7e.elb.ap-southeast-2.amazonaws.com
Ingress Class:    nginx
Default backend:  <default>
TLS:
  api-outback-gear-tls terminates api.outback-gear.example
Rules:
  Host                      Path  Backends
  ----                      ----  --------
  api.outback-gear.example
                            /   shop-api:8080 ({h2.ips_of(k8s, ns)[pod_name(api, "p4hxd")]}:8080,{h2.ips_of(k8s, ns)[pod_name(api, "s9ljc")]}:8080)
Annotations:                cert-manager.io/cluster-issuer: letsencrypt-prod
Events:                     <none>
"""
    k8s[f"kubectl describe secrets storefront-tls -n {ns}"] = (
        'Error from server (NotFound): secrets "storefront-tls" not found\n'
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "22m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/storefront",
                "Scaled up replica set storefront-6d9b7c5f8 to 2",
            ),
            ("22m", "Normal", "Sync", "Ingress/storefront", "Scheduled for sync"),
            (
                "22m",
                "Normal",
                "Issuing",
                "Certificate/www-outback-gear",
                "Issuing certificate as Secret does not exist",
            ),
            (
                "21m",
                "Normal",
                "Issuing",
                "Certificate/www-outback-gear",
                "The certificate has been successfully issued",
            ),
        ]
    )
    ctrl = "ingress-nginx-controller-7c9d8b6f5-jx4kp"
    k8s["kubectl get pods -n ingress-nginx -o wide --show-labels"] = base.pods(
        [
            (
                ctrl,
                "1/1",
                "Running",
                "0",
                "30d",
                "10.126.1.12",
                nodes[0][0],
                "app.kubernetes.io/component=controller,app.kubernetes.io/name=ingress-nginx,pod-template-hash=7c9d8b6f5",
            )
        ]
    )
    k8s[f"kubectl logs {ctrl} -n ingress-nginx --tail=1000"] = (
        'I1205 13:38:02.114920       7 event.go:377] Event(v1.ObjectReference{Kind:"Ingress", Namespace:"web", Name:"storefront", UID:"5b1e7c3a-9d2f-4e8b-a6c0-3f7d1e9b2a54", APIVersion:"networking.k8s.io/v1", ResourceVersion:"98127745", FieldPath:""}): type: \'Normal\' reason: \'Sync\' Scheduled for sync\n'
        'W1205 13:38:02.215733       7 backend_ssl.go:47] Error obtaining X.509 certificate: no object matching key "web/storefront-tls" in local store\n'
        'W1205 13:38:02.215802       7 controller.go:1400] Error getting SSL certificate "web/storefront-tls": local SSL certificate web/storefront-tls was not found. Using default certificate\n'
        'I1205 13:38:02.301455       7 controller.go:213] "Backend successfully reloaded"\n'
    )
    k8s["kubectl get deployments -n ingress-nginx -o wide"] = base.deployments(
        [
            (
                "ingress-nginx-controller",
                "1/1",
                "1",
                "1",
                "300d",
                "controller",
                "registry.k8s.io/ingress-nginx/controller:v1.11.3",
                "app.kubernetes.io/component=controller,app.kubernetes.io/instance=ingress-nginx,app.kubernetes.io/name=ingress-nginx",
            )
        ]
    )
    k8s["kubectl get services -n ingress-nginx -o wide"] = base.services(
        [
            (
                "ingress-nginx-controller",
                "LoadBalancer",
                "172.20.250.9",
                "80:31080/TCP,443:31443/TCP",
                "300d",
                "app.kubernetes.io/component=controller,app.kubernetes.io/instance=ingress-nginx,app.kubernetes.io/name=ingress-nginx",
            )
        ]
    )
    k8s["kubectl events -n ingress-nginx"] = events(
        [
            (
                "22m",
                "Normal",
                "RELOAD",
                f"Pod/{ctrl}",
                "NGINX reload triggered due to a change in configuration",
            )
        ]
    )
    sp = [pod_name(site, "k2wqz"), pod_name(site, "m7vtn")]
    bgs = [
        bg(
            "storefront",
            sp,
            ["GET / 200 {ms}ms", "GET /c/tents 200 {ms}ms"],
            2,
            until=start,
        ),
        bg("storefront", sp, ["GET / 200 {ms}ms"], 12, **{"from": start}),
        bg(
            "shop-api",
            [pod_name(api, "p4hxd"), pod_name(api, "s9ljc")],
            ["GET /v1/products/{n} 200 {ms}ms", "POST /v1/cart 200 {ms}ms"],
            2,
        ),
    ]
    evs = [
        ev(
            "helm",
            "info",
            "release storefront upgraded: chart storefront-4.9.2 -> storefront-5.0.0 (Certificate www-outback-gear secretName storefront-tls -> www-outback-gear-tls)",
            at=start - 60,
        ),
        ev(
            "cert-manager",
            "info",
            'Certificate web/www-outback-gear: issued, stored in Secret "www-outback-gear-tls" (not after 2027-03-05)',
            at=start - 10,
        ),
        ev(
            "cert-manager",
            "info",
            "Secret web/storefront-tls deleted (owner Certificate web/www-outback-gear no longer references it)",
            at=start - 40,
        ),
        ev(
            "ingress-nginx",
            "warn",
            'Error getting SSL certificate "web/storefront-tls": local SSL certificate web/storefront-tls was not found. Using default certificate',
            **{"from": start - 38, "to": -60, "every_s": 600},
            pod=ctrl,
        ),
        ev(
            "ingress-nginx",
            "info",
            "GET / HTTP/2.0 200 host=api.outback-gear.example upstream=web-shop-api-8080 {ms}ms",
            **{"from": -7200, "to": 0, "every_s": 30},
            pod=ctrl,
        ),
        ev(
            "ingress-nginx",
            "warn",
            "SSL_do_handshake() failed (SSL: error:0A000412:SSL routines::sslv3 alert bad certificate:SSL alert number 42) while SSL handshaking, client: 203.0.113.{ms}, server: 0.0.0.0:443",
            **{"from": start + 5, "to": -5, "every_s": 10},
            pod=ctrl,
        ),
        ev(
            "storefront",
            "error",
            "render /c/boots failed: shop-api 500 (request {n})",
            **{"from": -9000, "to": -8000, "every_s": 200},
            pods=sp,
        ),
        ev(
            "cert-manager",
            "warn",
            "Certificate monitoring/grafana: renewal in 9 days",
            at=-6000,
        ),
    ]
    return {
        "incident": {
            "title": "website shows 'your connection is not private'",
            "service": "website",
            "severity": "sev1",
            "symptoms": ["browsers refuse www", "mobile app (api.) still works"],
            "description": "",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "tls",
            "root_cause_stage": "service_routing",
            "root_cause_reason": "IngressTLSSecretMissing",
            "root_cause_component": [
                "ingress/storefront",
                "secret/storefront-tls",
                "storefront-tls",
                "www.outback-gear.example",
            ],
            "root_cause_signal": "storefront-tls",
            "root_cause": "storefront chart 5.0.0 renamed the Certificate's secret to www-outback-gear-tls, and cert-manager deleted the old secret storefront-tls; the Ingress storefront still terminates TLS with storefront-tls. ingress-nginx cannot find it and serves its default self-signed 'Fake Certificate' for www.outback-gear.example, which browsers reject. api.outback-gear.example has its own secret and works. cert-manager shows a fresh, valid certificate (for the new secret name), the grafana renewal warning and the old shop-api 500s are unrelated.",
            "evidence": [
                "probe www: tls/certificate_untrusted (self-signed); probe api: none",
                "describe ingress storefront: TLS storefront-tls terminates www.outback-gear.example",
                "ingress-nginx: local SSL certificate web/storefront-tls was not found. Using default certificate",
                "secrets: storefront-tls absent, www-outback-gear-tls 22 m old; helm: secretName changed",
            ],
            "remediation": "Point the Ingress's tls.secretName at www-outback-gear-tls (fix the chart template), or set the Certificate's secretName back to storefront-tls.",
            "root_cause_probe": "www",
            "netcheck": {
                "www": {"failed_layer": "tls", "reason": "certificate_untrusted"},
                "api": {"failed_layer": "none", "reason": None},
            },
        },
        "logs": logs(seed=126, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "storefront",
                    "rps": 45,
                    "rps_after": 4,
                    "latency": (0.12, 0.12),
                },
                {
                    "name": "shop-api",
                    "rps": 60,
                    "errors": {"500": (0.002, 0.002)},
                    "latency": (0.04, 0.04),
                },
            ],
            start=start,
            seed=126,
        ),
        "kubernetes": k8s,
        "targets": [
            {
                "name": "www",
                "url": "https://www.outback-gear.example/",
                "fault": {"kind": "tls_self_signed"},
            },
            {
                "name": "api",
                "url": "https://api.outback-gear.example/v1/health",
                "fault": {"kind": "ok", "body": '{"status":"ok"}'},
            },
        ],
        "runbooks": {
            "certificate-expired.md": runbook(
                "Browser certificate warning",
                "A certificate warning on our sites means a certificate expired. Check cert-manager: `kubectl get certificate -A`, and force a renewal with `cmctl renew`. If Let's Encrypt rate-limits us, switch the issuer to letsencrypt-backup.",
            ),
        },
    }


# =================================================================================================
# 7. metrics-server down: its new flags make it reject the kubelets' certificates, the resource
#    metrics API is unavailable and checkout-api's HPA cannot compute a replica count; it stays at
#    its minimum through the evening peak. The incident says "shop".
# =================================================================================================


@scenario("hpa-no-metrics")
def hpa_no_metrics() -> dict[str, Any]:
    start = -1620
    ns = "shop"
    nodes = [
        ("ip-10-70-1-12.eu-north-1.compute.internal", "Ready", "10.70.1.12"),
        ("ip-10-70-2-34.eu-north-1.compute.internal", "Ready", "10.70.2.34"),
        ("ip-10-70-3-56.eu-north-1.compute.internal", "Ready", "10.70.3.56"),
    ]
    co = app(
        "checkout-api",
        image="123456789012.dkr.ecr.eu-north-1.amazonaws.com/shop/checkout-api:11.4.2",
        port=8080,
        rs="6f7c9b8d5",
        cluster_ip="172.20.9.40",
        pods=[
            ("c4xnb", "1/1", "Running", "0", "5d", 0),
            ("l7qwh", "1/1", "Running", "0", "5d", 1),
            ("t2zkm", "1/1", "Running", "0", "5d", 2),
        ],
    )
    cat = app(
        "catalog-api",
        image="123456789012.dkr.ecr.eu-north-1.amazonaws.com/shop/catalog-api:7.0.9",
        port=8080,
        rs="58d7b6c9f",
        cluster_ip="172.20.9.20",
        pods=[
            ("a8mzp", "1/1", "Running", "0", "12d", 0),
            ("f3rvk", "1/1", "Running", "0", "12d", 1),
            ("w6dgs", "1/1", "Running", "0", "12d", 2),
            ("x9tjn", "1/1", "Running", "0", "12d", 0),
        ],
    )
    k8s = namespace(ns, nodes, [co, cat], seed=127, extra_namespaces=("kube-system",))
    k8s[f"kubectl get horizontalpodautoscalers -n {ns}"] = hpa_table(
        [
            (
                "catalog-api",
                "Deployment/catalog-api",
                "cpu: <unknown>/65%",
                "4",
                "16",
                "4",
                "400d",
            ),
            (
                "checkout-api",
                "Deployment/checkout-api",
                "cpu: <unknown>/70%",
                "3",
                "24",
                "3",
                "400d",
            ),
        ]
    )
    fail = "failed to get cpu utilization: unable to get metrics for resource cpu: unable to fetch metrics from resource metrics API: the server is currently unable to handle the request (get pods.metrics.k8s.io)"
    k8s[
        f"kubectl describe horizontalpodautoscalers checkout-api -n {ns}"
    ] = f"""Name:                                                  checkout-api
Namespace:                                             {ns}
Labels:                                                app=checkout-api
Annotations:                                           <none>
CreationTimestamp:                                     {when(-34560000)}
Reference:                                             Deployment/checkout-api
Metrics:                                               ( current / target )
  resource cpu on pods  (as a percentage of request):  <unknown> / 70%
Min replicas:                                          3
Max replicas:                                          24
Deployment pods:                                       3 current / 3 desired
Conditions:
  Type           Status  Reason                   Message
  ----           ------  ------                   -------
  AbleToScale    True    SucceededGetScale        the HPA controller was able to get the target's current scale
  ScalingActive  False   FailedGetResourceMetric  the HPA was unable to compute the replica count: {fail}
Events:
  Type     Reason                        Age                 From                       Message
  ----     ------                        ----                ----                       -------
  Warning  FailedGetResourceMetric       30s (x112 over 29m)  horizontal-pod-autoscaler  {fail}
  Warning  FailedComputeMetricsReplicas  30s (x112 over 29m)  horizontal-pod-autoscaler  invalid metrics (1 invalid out of 1), first error is: failed to get cpu resource metric value: {fail}
"""
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "30s (x112 over 29m)",
                "Warning",
                "FailedGetResourceMetric",
                "HorizontalPodAutoscaler/checkout-api",
                fail,
            ),
            (
                "30s (x112 over 29m)",
                "Warning",
                "FailedComputeMetricsReplicas",
                "HorizontalPodAutoscaler/checkout-api",
                "invalid metrics (1 invalid out of 1), first error is: failed to get cpu resource metric value: "
                + fail,
            ),
            (
                "31s (x112 over 29m)",
                "Warning",
                "FailedGetResourceMetric",
                "HorizontalPodAutoscaler/catalog-api",
                fail,
            ),
        ]
    )
    ms = "metrics-server-7d8c9b6f5-vq4lt"
    k8s["kubectl get pods -n kube-system -o wide --show-labels"] = base.pods(
        [
            (
                "aws-node-4kz8q",
                "2/2",
                "Running",
                "0",
                "30d",
                "10.70.1.12",
                nodes[0][0],
                "app.kubernetes.io/name=aws-node,controller-revision-hash=5c8d7f9b6,k8s-app=aws-node",
            ),
            (
                "coredns-6b9d8c7f5-2mxqz",
                "1/1",
                "Running",
                "0",
                "30d",
                "10.127.1.9",
                nodes[0][0],
                "eks.amazonaws.com/component=coredns,k8s-app=kube-dns,pod-template-hash=6b9d8c7f5",
            ),
            (
                "coredns-6b9d8c7f5-h8wtp",
                "1/1",
                "Running",
                "0",
                "30d",
                "10.127.2.14",
                nodes[1][0],
                "eks.amazonaws.com/component=coredns,k8s-app=kube-dns,pod-template-hash=6b9d8c7f5",
            ),
            (
                ms,
                "0/1",
                "Running",
                "0",
                "31m",
                "10.127.3.30",
                nodes[2][0],
                "app.kubernetes.io/instance=metrics-server,app.kubernetes.io/name=metrics-server,pod-template-hash=7d8c9b6f5",
            ),
        ]
    )
    k8s["kubectl get deployments -n kube-system -o wide"] = base.deployments(
        [
            (
                "coredns",
                "2/2",
                "2",
                "2",
                "400d",
                "coredns",
                "602401143452.dkr.ecr.eu-north-1.amazonaws.com/eks/coredns:v1.11.3-eksbuild.2",
                "eks.amazonaws.com/component=coredns,k8s-app=kube-dns",
            ),
            (
                "metrics-server",
                "0/1",
                "1",
                "0",
                "31m",
                "metrics-server",
                "registry.k8s.io/metrics-server/metrics-server:v0.7.2",
                "app.kubernetes.io/instance=metrics-server,app.kubernetes.io/name=metrics-server",
            ),
        ]
    )
    k8s["kubectl get services -n kube-system -o wide"] = base.services(
        [
            (
                "kube-dns",
                "ClusterIP",
                "172.20.0.10",
                "53/UDP,53/TCP,9153/TCP",
                "400d",
                "k8s-app=kube-dns",
            ),
            (
                "metrics-server",
                "ClusterIP",
                "172.20.140.77",
                "443/TCP",
                "400d",
                "app.kubernetes.io/instance=metrics-server,app.kubernetes.io/name=metrics-server",
            ),
        ]
    )
    k8s["kubectl get endpoints -n kube-system"] = table(
        [
            ["NAME", "ENDPOINTS", "AGE"],
            [
                "kube-dns",
                "10.127.1.9:53,10.127.2.14:53,10.127.1.9:53 + 3 more...",
                "400d",
            ],
            ["metrics-server", "<none>", "400d"],
        ]
    )
    k8s["kubectl events -n kube-system"] = events(
        [
            (
                "31m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/metrics-server",
                "Scaled up replica set metrics-server-7d8c9b6f5 to 1",
            ),
            (
                "30s (x180 over 30m)",
                "Warning",
                "Unhealthy",
                f"Pod/{ms}",
                "Readiness probe failed: HTTP probe failed with statuscode: 500",
            ),
        ]
    )
    mslog = (
        "I1205 13:33:12.402118       1 serving.go:374] Generated self-signed cert (/tmp/apiserver.crt, /tmp/apiserver.key)\n"
        "I1205 13:33:12.905631       1 secure_serving.go:213] Serving securely on [::]:10250\n"
        'E1205 13:33:27.911245       1 scraper.go:149] "Failed to scrape node" err="Get \\"https://10.70.1.12:10250/metrics/resource\\": tls: failed to verify certificate: x509: cannot validate certificate for 10.70.1.12 because it doesn\'t contain any IP SANs" node="ip-10-70-1-12.eu-north-1.compute.internal"\n'
        'E1205 13:33:27.913880       1 scraper.go:149] "Failed to scrape node" err="Get \\"https://10.70.2.34:10250/metrics/resource\\": tls: failed to verify certificate: x509: cannot validate certificate for 10.70.2.34 because it doesn\'t contain any IP SANs" node="ip-10-70-2-34.eu-north-1.compute.internal"\n'
        'I1205 13:33:35.118027       1 server.go:191] "Failed probe" probe="metric-storage-ready" err="no metrics to serve"\n'
    )
    k8s[f"kubectl logs {ms} -n kube-system --tail=1000"] = mslog
    k8s[f"kubectl describe pods {ms} -n kube-system"] = pod_describe(
        ms,
        "kube-system",
        node=f"{nodes[2][0]}/10.70.3.56",
        owner="ReplicaSet/metrics-server-7d8c9b6f5",
        labels="app.kubernetes.io/instance=metrics-server,app.kubernetes.io/name=metrics-server,pod-template-hash=7d8c9b6f5",
        status="Running",
        ip="10.127.3.30",
        container="metrics-server",
        image="registry.k8s.io/metrics-server/metrics-server:v0.7.2",
        state=f"    Args:\n      --cert-dir=/tmp\n      --secure-port=10250\n      --kubelet-preferred-address-types=InternalIP\n      --metric-resolution=15s\n    State:          Running\n      Started:      {when(-1850)}",
        ready=False,
        restarts=0,
        started=-1860,
        events_rows=[
            ("Normal", "Started", "31m", "kubelet", "Started container metrics-server"),
            (
                "Warning",
                "Unhealthy",
                "30s (x180 over 30m)",
                "kubelet",
                "Readiness probe failed: HTTP probe failed with statuscode: 500",
            ),
        ],
    )
    cp = [pod_name(co, s[0]) for s in co["pods"]]
    bgs = [
        bg(
            "checkout-api",
            cp,
            ["POST /v2/checkout 200 {ms}0ms", "GET /v2/checkout/{n} 200 {ms}ms"],
            1,
        ),
        bg(
            "catalog-api",
            [pod_name(cat, s[0]) for s in cat["pods"]],
            ["GET /v1/products/{n} 200 {ms}ms"],
            1.5,
        ),
    ]
    evs = [
        ev(
            "helm",
            "info",
            "release metrics-server upgraded with --force (resources replaced): chart 3.12.1 -> 3.12.2, values: removed --kubelet-insecure-tls (security review SR-118)",
            at=-1870,
        ),
        ev(
            "metrics-server",
            "error",
            'Failed to scrape node err="Get \\"https://10.70.{ms}.12:10250/metrics/resource\\": tls: failed to verify certificate: x509: cannot validate certificate for 10.70.1.12 because it doesn\'t contain any IP SANs"',
            **{"from": -1840, "to": -5, "every_s": 60},
            labels={"namespace": "kube-system", "pod": ms},
        ),
        ev(
            "kube-controller-manager",
            "warn",
            "horizontal-pod-autoscaler: shop/checkout-api: FailedGetResourceMetric: unable to fetch metrics from resource metrics API: the server is currently unable to handle the request (get pods.metrics.k8s.io)",
            **{"from": -1780, "to": -10, "every_s": 120},
        ),
        ev(
            "checkout-api",
            "warn",
            "cpu throttled {n} periods in last 60s (limit 1000m)",
            **{"from": start, "to": -5, "every_s": 60},
            pods=cp,
        ),
        ev(
            "checkout-api",
            "error",
            "POST /v2/checkout 503: worker pool exhausted (48/48), request {n} rejected",
            **{"from": start + 120, "to": -2, "every_s": 4},
            pods=cp,
        ),
        ev(
            "checkout-api",
            "error",
            "klarna: POST /payments/v1/sessions timed out after 8000ms",
            **{"from": -9500, "to": -9000, "every_s": 90},
            pods=cp,
        ),
    ]
    return {
        "incident": {
            "title": "Shop slow at evening peak",
            "service": "shop",
            "severity": "sev2",
            "symptoms": ["checkout p99 over 6 s", "some 503 on place order"],
            "description": "",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "platform",
            "root_cause_stage": "performance",
            "root_cause_reason": "FailedGetResourceMetric",
            "root_cause_component": [
                "deployment/metrics-server",
                "metrics-server",
                f"pod/{ms}",
                "horizontalpodautoscaler/checkout-api",
            ],
            "root_cause_signal": "FailedGetResourceMetric",
            "root_cause": "metrics-server's chart upgrade 31 min ago (helm --force, so the Deployment and its old pod were replaced, not rolled) dropped --kubelet-insecure-tls; the kubelets' serving certificates have no IP SANs, so metrics-server cannot scrape any node, never becomes ready and the resource metrics API (pods.metrics.k8s.io) is unavailable. Every HPA reports ScalingActive False / FailedGetResourceMetric and holds its replica count: checkout-api stays at its minimum 3 as the evening traffic doubles, its worker pools saturate (503, p99 > 6 s). The CPU throttling warnings are a symptom; the Klarna timeouts are 2.5 h old.",
            "evidence": [
                "HPA checkout-api: TARGETS cpu <unknown>/70%, ScalingActive False FailedGetResourceMetric, 3 current / 3 desired",
                "kube-system: metrics-server 0/1 Running, readiness 500",
                "metrics-server logs: x509: cannot validate certificate for 10.70.1.12 because it doesn't contain any IP SANs",
                "helm: metrics-server values removed --kubelet-insecure-tls",
            ],
            "remediation": "Restore --kubelet-insecure-tls (or enable kubelet serving certificates with IP SANs and serverTLSBootstrap), then scale checkout-api by hand until the HPA recovers.",
        },
        "logs": logs(seed=127, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "checkout-api",
                    "rps": 40,
                    "rps_after": 85,
                    "errors": {"503": (0.0, 0.06)},
                    "latency": (0.2, 2.6),
                },
                {
                    "name": "catalog-api",
                    "rps": 120,
                    "rps_after": 220,
                    "errors": {"500": (0.001, 0.001)},
                    "latency": (0.03, 0.07),
                },
            ],
            start=start,
            seed=127,
            gauges=[
                {
                    "name": "kube_horizontalpodautoscaler_status_current_replicas",
                    "labels": {
                        "namespace": ns,
                        "horizontalpodautoscaler": "checkout-api",
                    },
                    "before": 3,
                    "after": 3,
                    "noise": 0,
                },
                {
                    "name": "up",
                    "labels": {"job": "metrics-server"},
                    "before": 1,
                    "after": 0,
                    "change_at": -1850,
                    "noise": 0,
                },
            ],
        ),
        "kubernetes": k8s,
        "runbooks": {
            "cpu-throttling.md": runbook(
                "checkout-api slow: CPU throttling",
                "If checkout-api logs 'cpu throttled', its CPU limit is too low for the load. Raise limits.cpu to 2000m in values-prod.yaml and redeploy; do not touch the HPA.",
            ),
        },
    }


# =================================================================================================
# 8. A readiness probe that checks a dependency: session-redis restarted on a drained node and is
#    loading a 14 GB dataset (LOADING) for half an hour; auth-api's readiness pings Redis, so every
#    auth-api pod is unready and its Service has no endpoints. The incident says "login".
# =================================================================================================


@scenario("redis-loading-readiness")
def redis_loading_readiness() -> dict[str, Any]:
    start = -1380
    ns = "identity"
    nodes = [
        ("ip-10-90-1-21.ca-central-1.compute.internal", "Ready", "10.90.1.21"),
        ("ip-10-90-2-45.ca-central-1.compute.internal", "Ready", "10.90.2.45"),
        ("ip-10-90-3-67.ca-central-1.compute.internal", "Ready", "10.90.3.67", "25m"),
    ]
    auth = app(
        "auth-api",
        image="ghcr.io/mapleid/auth-api:12.0.3",
        port=8080,
        rs="79c8d6b5f",
        cluster_ip="172.20.7.10",
        pods=[
            ("g5kqw", "0/1", "Running", "0", "20d", 0),
            ("n2xvd", "0/1", "Running", "0", "20d", 1),
            ("r8zlm", "0/1", "Running", "0", "20d", 1),
        ],
    )
    redis = app(
        "session-redis",
        image="docker.io/library/redis:7.4.1",
        port=6379,
        rs="",
        kind="StatefulSet",
        cluster_ip="172.20.7.30",
        pods=[("0", "1/1", "Running", "0", "24m", 2)],
    )
    web = app(
        "login-web",
        image="ghcr.io/mapleid/login-web:5.8.0",
        port=3000,
        rs="6b7d9c5f8",
        cluster_ip="172.20.7.5",
        pods=[
            ("d3tqp", "1/1", "Running", "0", "3h", 0),
            ("k9wmx", "1/1", "Running", "0", "3h", 1),
        ],
    )
    k8s = namespace(
        ns,
        nodes,
        [auth, redis, web],
        seed=128,
        statefulsets=table(
            [
                ["NAME", "READY", "AGE", "CONTAINERS", "IMAGES"],
                [
                    "session-redis",
                    "1/1",
                    "500d",
                    "redis",
                    "docker.io/library/redis:7.4.1",
                ],
            ]
        ),
    )
    ap = [pod_name(auth, s[0]) for s in auth["pods"]]
    ips = h2.ips_of(k8s, ns)
    unready = "Readiness probe failed: HTTP probe failed with statuscode: 503"
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "3h",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/login-web",
                "Scaled up replica set login-web-6b7d9c5f8 to 2",
            ),
            (
                "25m",
                "Normal",
                "Killing",
                "Pod/session-redis-0",
                "Stopping container redis",
            ),
            (
                "24m",
                "Normal",
                "Scheduled",
                "Pod/session-redis-0",
                f"Successfully assigned identity/session-redis-0 to {nodes[2][0]}",
            ),
            (
                "24m",
                "Normal",
                "SuccessfulAttachVolume",
                "Pod/session-redis-0",
                'AttachVolume.Attach succeeded for volume "pvc-3e9a1c7d-5b2f-4d8e-9c6a-1f7b3e5d9a20"',
            ),
            (
                "23m",
                "Normal",
                "Started",
                "Pod/session-redis-0",
                "Started container redis",
            ),
            *[
                ("20s (x130 over 23m)", "Warning", "Unhealthy", f"Pod/{p}", unready)
                for p in ap
            ],
        ]
    )
    for p in ap[:1]:
        k8s[f"kubectl describe pods {p} -n {ns}"] = pod_describe(
            p,
            ns,
            node=f"{nodes[0][0]}/10.90.1.21",
            owner="ReplicaSet/auth-api-79c8d6b5f",
            labels="app=auth-api,pod-template-hash=79c8d6b5f",
            status="Running",
            ip=ips[p],
            container="auth-api",
            image=auth["image"],
            state=f"    State:          Running\n      Started:      {when(-1728000)}",
            probes="    Readiness:      http-get http://:8080/health/ready delay=0s timeout=2s period=10s #success=1 #failure=3\n",
            ready=False,
            restarts=0,
            started=-1728000,
            events_rows=[
                ("Warning", "Unhealthy", "20s (x130 over 23m)", "kubelet", unready)
            ],
        )
        k8s[f"kubectl logs {p} -n {ns} --tail=1000"] = "".join(
            f"{iso(t)} WARN readiness: redis session-redis:6379 PING failed: LOADING Redis is loading the dataset in memory\n"
            for t in range(-1380, 0, 120)
        )
    k8s[f"kubectl describe pods session-redis-0 -n {ns}"] = pod_describe(
        "session-redis-0",
        ns,
        node=f"{nodes[2][0]}/10.90.3.67",
        owner="StatefulSet/session-redis",
        labels="app=session-redis,apps.kubernetes.io/pod-index=0,statefulset.kubernetes.io/pod-name=session-redis-0",
        status="Running",
        ip=ips["session-redis-0"],
        container="redis",
        image="docker.io/library/redis:7.4.1",
        state=f"    Args:\n      --appendonly no\n      --save 3600 1\n      --maxmemory 16gb\n    State:          Running\n      Started:      {when(-1390)}",
        probes="    Readiness:      tcp-socket :6379 delay=5s timeout=1s period=10s #success=1 #failure=3\n",
        ready=True,
        restarts=0,
        started=-1440,
        events_rows=[
            (
                "Normal",
                "Scheduled",
                "24m",
                "default-scheduler",
                f"Successfully assigned identity/session-redis-0 to {nodes[2][0]}",
            ),
            ("Normal", "Started", "23m", "kubelet", "Started container redis"),
        ],
    )
    k8s[f"kubectl logs session-redis-0 -n {ns} --tail=1000"] = (
        "1:C 05 Dec 2026 13:36:50.112 * oO0OoO0OoO0Oo Redis is starting oO0OoO0OoO0Oo\n"
        "1:M 05 Dec 2026 13:36:50.115 * Server initialized\n"
        "1:M 05 Dec 2026 13:36:50.116 * Loading RDB produced by version 7.4.1\n"
        "1:M 05 Dec 2026 13:36:50.116 * RDB age 1502 seconds\n"
        "1:M 05 Dec 2026 13:36:50.116 * RDB memory usage when created 14021.77 Mb\n"
        "1:M 05 Dec 2026 13:46:51.430 * Loading: 31.20%\n"
        "1:M 05 Dec 2026 13:56:52.880 * Loading: 63.85%\n"
    )
    k8s[f"kubectl describe nodes {nodes[2][0]}"] = node_describe(
        nodes[2][0], "10.90.3.67", pods_rows=[("identity", "session-redis-0")]
    )
    wp = [pod_name(web, "d3tqp"), pod_name(web, "k9wmx")]
    bgs = [
        bg(
            "auth-api",
            ap,
            ["POST /oauth/token 200 {ms}ms", "GET /userinfo 200 {ms}ms"],
            1,
            until=start,
        ),
        bg("login-web", wp, ["GET /login 200 {ms}ms"], 2),
    ]
    evs = [
        ev(
            "cloud-events",
            "info",
            "managed node group identity-ng update: draining ip-10-90-3-12.ca-central-1.compute.internal (AMI 1.31.2-20241121)",
            at=start - 120,
        ),
        ev(
            "session-redis",
            "info",
            "Loading RDB produced by version 7.4.1; RDB memory usage when created 14021.77 Mb",
            at=start - 30,
            pod="session-redis-0",
        ),
        ev(
            "session-redis",
            "warn",
            "Loading: {ms}% done (volume throughput throttled)",
            **{"from": start + 570, "to": -60, "every_s": 600},
            pod="session-redis-0",
        ),
        ev(
            "auth-api",
            "warn",
            "readiness: redis session-redis:6379 PING failed: LOADING Redis is loading the dataset in memory",
            **{"from": start + 10, "to": -5, "every_s": 20},
            pods=ap,
        ),
        ev(
            "login-web",
            "error",
            "POST /login failed: auth-api.identity.svc:8080 503 no healthy upstream (request {n})",
            **{"from": start + 40, "to": -2, "every_s": 2},
            pods=wp,
        ),
        ev(
            "login-web",
            "info",
            "login-web 5.8.0 started (new: passkey button)",
            at=-10800,
            pods=wp,
        ),
        ev(
            "auth-api",
            "error",
            "LDAP bind to ldaps://corp-dc1.mapleid.local failed: timeout",
            **{"from": -8800, "to": -8000, "every_s": 120},
            pods=ap,
        ),
    ]
    return {
        "incident": {
            "title": "Nobody can log in",
            "service": "login",
            "severity": "sev1",
            "symptoms": ["login page: 'something went wrong'"],
            "description": "",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "application",
            "root_cause_stage": "runtime",
            "root_cause_reason": "RedisLoading",
            "root_cause_component": [
                "statefulset/session-redis",
                "session-redis",
                "pod/session-redis-0",
                "session-redis-0",
            ],
            "root_cause_signal": "LOADING",
            "root_cause": "The node group update drained session-redis-0's node; the pod restarted on a new node and is loading its 14 GB RDB from a throughput-limited gp3 volume (about 30 min; Redis answers LOADING to every command meanwhile, its own TCP readiness passes). auth-api's readiness probe PINGs Redis, so all three auth-api pods turned unready at once and the auth-api Service has no endpoints: login-web gets 503 'no healthy upstream'. auth-api is healthy otherwise (no restarts); login-web's release 3 h ago and the LDAP timeouts earlier are unrelated.",
            "evidence": [
                "auth-api pods 0/1 Running, endpoints auth-api <none>; Readiness probe failed 503",
                "auth-api: readiness: redis PING failed: LOADING Redis is loading the dataset in memory",
                "session-redis-0 restarted 24 min ago on a new node; logs: Loading RDB ... 14021.77 Mb, 63.85%",
            ],
            "remediation": "Wait for the load to finish or start session-redis empty (sessions are re-creatable); make auth-api's readiness independent of Redis, and give Redis a faster volume / replica.",
        },
        "logs": logs(seed=128, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "login-web",
                    "rps": 30,
                    "errors": {"503": (0.0, 0.62)},
                    "latency": (0.08, 0.02),
                },
                {
                    "name": "auth-api",
                    "rps": 70,
                    "rps_after": 0.5,
                    "latency": (0.02, 0.02),
                },
            ],
            start=start,
            seed=128,
            gauges=[
                {
                    "name": "redis_loading_dump_file",
                    "labels": {"service": "session-redis"},
                    "before": 0,
                    "after": 1,
                    "noise": 0,
                },
                {
                    "name": "kube_endpoint_address_available",
                    "labels": {"namespace": ns, "endpoint": "auth-api"},
                    "before": 3,
                    "after": 0,
                    "change_at": start + 20,
                    "noise": 0,
                },
            ],
        ),
        "kubernetes": k8s,
        "runbooks": {
            "auth-api-unready.md": runbook(
                "auth-api 503 / pods not ready",
                "If auth-api pods are not ready, the JVM is usually stuck in GC. Restart the deployment (`kubectl rollout restart deploy/auth-api -n identity`) and raise -Xmx if it repeats.",
            ),
        },
    }


# =================================================================================================
# 9. Registry credentials expired: the GitLab deploy token behind the imagePullSecret expired this
#    morning; pods that land on the new nodes of an AMI rollout cannot pull (401), pods on old
#    nodes kept their cached image. The incident says "analytics".
# =================================================================================================


@scenario("pull-secret-expired")
def pull_secret_expired() -> dict[str, Any]:
    start = -1740
    ns = "analytics"
    nodes = [
        ("ip-10-66-1-101.us-west-2.compute.internal", "Ready", "10.66.1.101", "31m"),
        ("ip-10-66-2-102.us-west-2.compute.internal", "Ready", "10.66.2.102", "30m"),
        ("ip-10-66-3-19.us-west-2.compute.internal", "Ready", "10.66.3.19", "52d"),
    ]
    rs = "5d6c8b7f9"
    img = "registry.gitlab.acme-data.io/data/events-collector:3.4.2"
    coll = app(
        "events-collector",
        image=img,
        port=8080,
        rs=rs,
        cluster_ip="172.20.50.11",
        desired=4,
        pods=[
            ("b7wkd", "1/1", "Running", "0", "19d", 2),
            ("f4ncz", "0/1", "ImagePullBackOff", "0", "31m", 0),
            ("j8rtq", "0/1", "ImagePullBackOff", "0", "31m", 0),
            ("s2vhm", "0/1", "ErrImagePull", "0", "30m", 1),
        ],
    )
    dash = app(
        "dash-api",
        image="registry.gitlab.acme-data.io/data/dash-api:1.22.0",
        port=8080,
        rs="7f9b6d8c5",
        cluster_ip="172.20.50.30",
        pods=[("m3qxp", "1/1", "Running", "0", "19d", 2)],
    )
    k8s = namespace(
        ns,
        nodes,
        [coll, dash],
        seed=129,
        secrets=[
            ("gitlab-registry", "kubernetes.io/dockerconfigjson", "1", "365d"),
            ("clickhouse-credentials", "Opaque", "2", "365d"),
        ],
    )
    cp = [pod_name(coll, s[0]) for s in coll["pods"]]
    ips = h2.ips_of(k8s, ns)
    pull = f'Failed to pull image "{img}": failed to pull and unpack image "{img}": failed to resolve reference "{img}": failed to authorize: failed to fetch oauth token: unexpected status from GET request to https://gitlab.acme-data.io/jwt/auth?scope=repository%3Adata%2Fevents-collector%3Apull&service=container_registry: 401 Unauthorized'
    k8s[f"kubectl describe pods {cp[1]} -n {ns}"] = pod_describe(
        cp[1],
        ns,
        node=f"{nodes[0][0]}/10.66.1.101",
        owner=f"ReplicaSet/events-collector-{rs}",
        labels=f"app=events-collector,pod-template-hash={rs}",
        status="Pending",
        ip=ips[cp[1]],
        container="events-collector",
        image=img,
        state="    State:          Waiting\n      Reason:       ImagePullBackOff",
        ready=False,
        restarts=0,
        started=-1860,
        extra="",
        events_rows=[
            (
                "Normal",
                "Scheduled",
                "31m",
                "default-scheduler",
                f"Successfully assigned {ns}/{cp[1]} to {nodes[0][0]}",
            ),
            (
                "Normal",
                "Pulling",
                "28m (x5 over 31m)",
                "kubelet",
                f'Pulling image "{img}"',
            ),
            ("Warning", "Failed", "28m (x5 over 31m)", "kubelet", pull),
            (
                "Warning",
                "Failed",
                "28m (x5 over 31m)",
                "kubelet",
                "Error: ErrImagePull",
            ),
            (
                "Normal",
                "BackOff",
                "60s (x131 over 31m)",
                "kubelet",
                f'Back-off pulling image "{img}"',
            ),
            (
                "Warning",
                "Failed",
                "60s (x131 over 31m)",
                "kubelet",
                "Error: ImagePullBackOff",
            ),
        ],
        conditions=[
            ("PodReadyToStartContainers", "True"),
            ("Initialized", "True"),
            ("Ready", "False"),
            ("ContainersReady", "False"),
            ("PodScheduled", "True"),
        ],
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "33m",
                "Normal",
                "TaintManagerEviction",
                f"Pod/events-collector-{rs}-x5lgn",
                f"Cancelling deletion of Pod analytics/events-collector-{rs}-x5lgn",
            ),
            (
                "32m",
                "Normal",
                "Killing",
                f"Pod/events-collector-{rs}-x5lgn",
                "Stopping container events-collector",
            ),
            (
                "32m",
                "Normal",
                "Killing",
                f"Pod/events-collector-{rs}-q9mdr",
                "Stopping container events-collector",
            ),
            (
                "31m",
                "Normal",
                "SuccessfulCreate",
                f"ReplicaSet/events-collector-{rs}",
                f"Created pod: {cp[1]}",
            ),
            (
                "31m",
                "Normal",
                "SuccessfulCreate",
                f"ReplicaSet/events-collector-{rs}",
                f"Created pod: {cp[2]}",
            ),
            (
                "30m",
                "Normal",
                "SuccessfulCreate",
                f"ReplicaSet/events-collector-{rs}",
                f"Created pod: {cp[3]}",
            ),
            ("28m (x5 over 31m)", "Warning", "Failed", f"Pod/{cp[1]}", pull),
            ("27m (x5 over 30m)", "Warning", "Failed", f"Pod/{cp[3]}", pull),
            (
                "60s (x131 over 31m)",
                "Normal",
                "BackOff",
                f"Pod/{cp[1]}",
                f'Back-off pulling image "{img}"',
            ),
            (
                "58s (x129 over 31m)",
                "Normal",
                "BackOff",
                f"Pod/{cp[2]}",
                f'Back-off pulling image "{img}"',
            ),
            (
                "55s (x125 over 30m)",
                "Normal",
                "BackOff",
                f"Pod/{cp[3]}",
                f'Back-off pulling image "{img}"',
            ),
        ]
    )
    k8s[
        f"kubectl describe secrets gitlab-registry -n {ns}"
    ] = f"""Name:         gitlab-registry
Namespace:    {ns}
Labels:       app.kubernetes.io/managed-by=terraform
Annotations:  acme.io/token-name: k8s-pull-analytics
              acme.io/token-expires: {iso(-30000)[:10]}

Type:  kubernetes.io/dockerconfigjson

Data
====
.dockerconfigjson:  236 bytes
"""
    bgs = [
        bg(
            "events-collector",
            [cp[0], f"events-collector-{rs}-x5lgn", f"events-collector-{rs}-q9mdr"],
            ["POST /v1/batch 202 {ms}ms ({n} events)"],
            1,
            until=start,
        ),
        bg(
            "events-collector",
            [cp[0]],
            ["POST /v1/batch 202 {ms}0ms ({n} events)"],
            2,
            **{"from": start},
        ),
        bg(
            "dash-api",
            [pod_name(dash, "m3qxp")],
            ["GET /v1/dashboards/{n} 200 {ms}ms"],
            5,
        ),
    ]
    evs = [
        ev(
            "gitlab",
            "info",
            "deploy token k8s-pull-analytics (project data/events-collector) expired",
            at=-30000,
        ),
        ev(
            "cloud-events",
            "info",
            "managed node group analytics-ng: update to AMI al2023-ami-1.31.2-20241121 started (rolling, maxUnavailable 1)",
            at=start - 240,
        ),
        ev(
            "events-collector",
            "warn",
            "ingest buffer {n}/50000 full, rejecting with 429",
            **{"from": start + 120, "to": -5, "every_s": 10},
            pod=cp[0],
        ),
        ev(
            "web-tracker",
            "error",
            "POST https://collect.acme-data.io/v1/batch 429 Too Many Requests; dropping {n} events",
            **{"from": start + 130, "to": -2, "every_s": 3},
            pods=["web-tracker-edge-1", "web-tracker-edge-2"],
        ),
        ev(
            "dash-api",
            "warn",
            "dashboard {n}: newest event is 27 min old (clickhouse ingest lag)",
            **{"from": start + 600, "to": -30, "every_s": 120},
            pod=pod_name(dash, "m3qxp"),
        ),
        ev(
            "clickhouse",
            "warn",
            "Too many parts (312). Merges are processing significantly slower than inserts",
            **{"from": -9000, "to": -7800, "every_s": 300},
            pods=["chi-events-0-0-0"],
        ),
    ]
    return {
        "incident": {
            "title": "[FIRING:1] DashboardFreshness analytics (newest event older than 20m)",
            "service": "analytics",
            "severity": "sev3",
            "symptoms": [],
            "description": "Alert DashboardFreshness fired: newest event older than 20 minutes.",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "platform",
            "root_cause_stage": "startup",
            "root_cause_reason": "ImagePullBackOff",
            "root_cause_component": [
                "secret/gitlab-registry",
                "gitlab-registry",
                "deployment/events-collector",
                "events-collector",
                f"replicaset/events-collector-{rs}",
            ],
            "root_cause_signal": "401 Unauthorized",
            "root_cause": "The GitLab deploy token behind the imagePullSecret gitlab-registry expired this morning. Pods that kept running on old nodes had the image cached, so nothing failed until the node group's AMI rollout drained two nodes: the three replacement events-collector pods on the new nodes cannot pull (401 Unauthorized from the registry's token endpoint) and sit in ImagePullBackOff. One collector is left, rejects with 429, the trackers drop events and the dashboards go stale. The image tag exists; ClickHouse's too-many-parts warnings are 2 h old.",
            "evidence": [
                "events-collector 1/4; three pods ImagePullBackOff on the new nodes",
                "Failed to pull image ... failed to fetch oauth token ... 401 Unauthorized",
                "secret gitlab-registry: token k8s-pull-analytics, expires today; gitlab: deploy token expired",
            ],
            "remediation": "Issue a new deploy token and update secret gitlab-registry (and set a rotation before expiry); the pods pull on their next back-off.",
        },
        "logs": logs(seed=129, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "events-collector",
                    "rps": 300,
                    "errors": {"429": (0.0, 0.55)},
                    "latency": (0.01, 0.09),
                },
                {
                    "name": "dash-api",
                    "rps": 6,
                    "errors": {"500": (0.0, 0.0)},
                    "latency": (0.2, 0.2),
                },
            ],
            start=start,
            seed=129,
        ),
        "kubernetes": k8s,
        "runbooks": {
            "image-pull-backoff.md": runbook(
                "ImagePullBackOff after a release",
                "ImagePullBackOff after a release nearly always means the tag was never pushed. Check the CI pipeline of the service, re-run its publish job and roll back the deployment to the previous tag meanwhile.",
            ),
        },
    }


# =================================================================================================
# 10. PodSecurity admission: a GitOps sync raised the payments namespace to enforce=restricted; the
#     next rollout of fraud-scorer (strategy Recreate) took the old pods down and the new ones are
#     forbidden. payments-api fails closed and declines cards. The incident says "fraud".
# =================================================================================================


@scenario("pod-security-restricted")
def pod_security_restricted() -> dict[str, Any]:
    start = -1200
    ns = "payments"
    nodes = [
        ("ip-10-81-1-7.eu-west-3.compute.internal", "Ready", "10.81.1.7"),
        ("ip-10-81-2-9.eu-west-3.compute.internal", "Ready", "10.81.2.9"),
    ]
    new = "7c9f5b8d6"
    img = "987654321098.dkr.ecr.eu-west-3.amazonaws.com/risk/fraud-scorer:2.18.0"
    fs = app(
        "fraud-scorer",
        image=img,
        port=9000,
        rs=new,
        cluster_ip="172.20.66.40",
        desired=2,
        pods=[],
    )
    pay = app(
        "payments-api",
        image="987654321098.dkr.ecr.eu-west-3.amazonaws.com/payments/payments-api:14.2.1",
        port=8080,
        rs="5b7d8c6f9",
        cluster_ip="172.20.66.10",
        pods=[
            ("c6twm", "1/1", "Running", "0", "4d", 0),
            ("k2hzr", "1/1", "Running", "0", "4d", 1),
        ],
    )
    k8s = namespace(
        ns, nodes, [fs, pay], seed=130, configmaps=[("fraud-scorer-config", "4", "19m")]
    )
    k8s["kubectl get namespaces --show-labels"] = table(
        [
            ["NAME", "STATUS", "AGE", "LABELS"],
            ["default", "Active", "400d", "kubernetes.io/metadata.name=default"],
            [
                "kube-node-lease",
                "Active",
                "400d",
                "kubernetes.io/metadata.name=kube-node-lease",
            ],
            [
                "kube-public",
                "Active",
                "400d",
                "kubernetes.io/metadata.name=kube-public",
            ],
            [
                "kube-system",
                "Active",
                "400d",
                "kubernetes.io/metadata.name=kube-system",
            ],
            [
                "monitoring",
                "Active",
                "400d",
                "kubernetes.io/metadata.name=monitoring,pod-security.kubernetes.io/enforce=privileged",
            ],
            [
                "payments",
                "Active",
                "400d",
                "kubernetes.io/metadata.name=payments,pod-security.kubernetes.io/audit=restricted,pod-security.kubernetes.io/enforce=restricted,pod-security.kubernetes.io/warn=restricted",
            ],
        ]
    )
    k8s[f"kubectl get deployments -n {ns} -o wide"] = base.deployments(
        [
            (
                "fraud-scorer",
                "0/2",
                "0",
                "0",
                "300d",
                "fraud-scorer",
                img,
                "app=fraud-scorer",
            ),
            (
                "payments-api",
                "2/2",
                "2",
                "2",
                "400d",
                "payments-api",
                pay["image"],
                "app=payments-api",
            ),
        ]
    )
    k8s[f"kubectl get replicasets -n {ns} -o wide"] = base.replicasets(
        [
            (
                "fraud-scorer-6b8d7c5f4",
                "0",
                "0",
                "0",
                "30d",
                "fraud-scorer",
                img,
                "app=fraud-scorer,pod-template-hash=6b8d7c5f4",
            ),
            (
                f"fraud-scorer-{new}",
                "2",
                "0",
                "0",
                "19m",
                "fraud-scorer",
                img,
                f"app=fraud-scorer,pod-template-hash={new}",
            ),
            (
                "payments-api-5b7d8c6f9",
                "2",
                "2",
                "2",
                "4d",
                "payments-api",
                pay["image"],
                "app=payments-api,pod-template-hash=5b7d8c6f9",
            ),
        ]
    )
    psa = 'Error creating: pods "fraud-scorer-7c9f5b8d6-{}" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "fraud-scorer" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "fraud-scorer" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "fraud-scorer" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "fraud-scorer" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")'
    fc = [
        (
            "Warning",
            "FailedCreate",
            "19m",
            "replicaset-controller",
            psa.format("x4kqn"),
        ),
        (
            "Warning",
            "FailedCreate",
            "19m",
            "replicaset-controller",
            psa.format("w9bzt"),
        ),
        (
            "Warning",
            "FailedCreate",
            "70s (x16 over 19m)",
            "replicaset-controller",
            "(combined from similar events): " + psa.format("g2mvl"),
        ),
    ]
    cont = container_text(
        "fraud-scorer",
        img,
        9000,
        env={"MODEL_PATH": "/models/gbm-2026-11.bin", "SCORE_THRESHOLD": "0.82"},
        limits="memory:  3Gi",
        requests="cpu:      1\nmemory:   3Gi",
    )
    k8s[f"kubectl describe replicasets fraud-scorer-{new} -n {ns}"] = (
        replicaset_describe(
            f"fraud-scorer-{new}",
            ns,
            deployment="fraud-scorer",
            revision=22,
            desired=2,
            current=0,
            status="0 Running / 0 Waiting / 0 Succeeded / 0 Failed",
            containers=cont,
            failure=True,
            events_rows=fc,
        )
    )
    k8s[f"kubectl describe deployments fraud-scorer -n {ns}"] = deployment_describe(
        "fraud-scorer",
        ns,
        replicas="2 desired | 0 updated | 0 total | 0 available | 2 unavailable",
        revision=22,
        containers=cont,
        strategy="Recreate",
        conditions=[
            ("Available", "False", "MinimumReplicasUnavailable"),
            ("ReplicaFailure", "True", "FailedCreate"),
            ("Progressing", "True", "ReplicaSetUpdated"),
        ],
        old_rs="fraud-scorer-6b8d7c5f4 (0/0 replicas created)",
        new_rs=f"fraud-scorer-{new} (0/2 replicas created)",
        events_rows=[
            (
                "Normal",
                "ScalingReplicaSet",
                "19m",
                "deployment-controller",
                "Scaled down replica set fraud-scorer-6b8d7c5f4 to 0 from 2",
            ),
            (
                "Normal",
                "ScalingReplicaSet",
                "19m",
                "deployment-controller",
                f"Scaled up replica set fraud-scorer-{new} to 2",
            ),
        ],
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "19m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/fraud-scorer",
                "Scaled down replica set fraud-scorer-6b8d7c5f4 to 0 from 2",
            ),
            (
                "19m",
                "Normal",
                "Killing",
                "Pod/fraud-scorer-6b8d7c5f4-r7dnp",
                "Stopping container fraud-scorer",
            ),
            (
                "19m",
                "Normal",
                "Killing",
                "Pod/fraud-scorer-6b8d7c5f4-z3jwc",
                "Stopping container fraud-scorer",
            ),
            (
                "19m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/fraud-scorer",
                f"Scaled up replica set fraud-scorer-{new} to 2",
            ),
            *[(r[2], r[0], r[1], f"ReplicaSet/fraud-scorer-{new}", r[4]) for r in fc],
        ]
    )
    pp = [pod_name(pay, "c6twm"), pod_name(pay, "k2hzr")]
    bgs = [
        bg(
            "payments-api",
            pp,
            [
                "POST /v1/authorize 200 {ms}ms (score 0.1{ms})",
                "GET /v1/payments/{n} 200 {ms}ms",
            ],
            1.5,
            until=start,
        ),
        bg(
            "payments-api",
            pp,
            ["GET /v1/payments/{n} 200 {ms}ms"],
            4,
            **{"from": start},
        ),
        bg(
            "fraud-scorer",
            ["fraud-scorer-6b8d7c5f4-r7dnp", "fraud-scorer-6b8d7c5f4-z3jwc"],
            ["scored txn {n} in {ms}ms"],
            2,
            until=start - 20,
        ),
    ]
    evs = [
        ev(
            "argocd",
            "info",
            "platform/namespaces synced (rev 41be9f2): Namespace payments labels pod-security.kubernetes.io/enforce baseline -> restricted",
            at=-3000,
        ),
        ev(
            "kube-apiserver",
            "warn",
            'Warning: would violate PodSecurity "restricted:latest" on existing pods of namespace "payments": fraud-scorer-6b8d7c5f4-r7dnp, fraud-scorer-6b8d7c5f4-z3jwc',
            at=-2998,
        ),
        ev(
            "argocd",
            "info",
            "payments/fraud-scorer synced (rev 8a7d3c1): ConfigMap fraud-scorer-config SCORE_THRESHOLD 0.85 -> 0.82; Deployment restarted (config hash)",
            at=start - 30,
        ),
        ev(
            "payments-api",
            "error",
            "fraud check unavailable: POST http://fraud-scorer.payments.svc:9000/score: dial tcp 172.20.66.40:9000: connect: connection refused; declining txn {n} (fail-closed)",
            **{"from": start, "to": -2, "every_s": 2},
            pods=pp,
        ),
        ev(
            "checkout-web",
            "error",
            "payment declined for order {n}: DECLINED_RISK",
            **{"from": start + 3, "to": -2, "every_s": 3},
            pods=["checkout-web-1", "checkout-web-2"],
        ),
        ev(
            "fraud-scorer",
            "warn",
            "model load took 41s (heap 2.7Gi of 3Gi)",
            at=-9000,
            pod="fraud-scorer-6b8d7c5f4-r7dnp",
        ),
    ]
    return {
        "incident": {
            "title": "fraud declining everything",
            "service": "fraud",
            "severity": "sev1",
            "symptoms": [],
            "description": "",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "platform",
            "root_cause_stage": "admission",
            "root_cause_reason": "FailedCreate",
            "root_cause_component": [
                "namespace/payments",
                "deployment/fraud-scorer",
                "fraud-scorer",
                f"replicaset/fraud-scorer-{new}",
            ],
            "root_cause_signal": "violates PodSecurity",
            "root_cause": "An Argo CD sync raised the payments namespace's Pod Security level to enforce=restricted 50 min ago; running pods are not re-checked (the API server only warned). fraud-scorer's pods run as root without a securityContext. Its config change 20 min ago restarted it with strategy Recreate: the old pods were stopped and every new pod is refused at admission (violates PodSecurity \"restricted:latest\"). With no fraud-scorer, payments-api fails closed and declines every card. The threshold change itself is harmless.",
            "evidence": [
                'ReplicaSet fraud-scorer-7c9f5b8d6: FailedCreate ... violates PodSecurity "restricted:latest"',
                "namespace payments: pod-security.kubernetes.io/enforce=restricted (argocd: baseline -> restricted)",
                "deployment fraud-scorer 0/2, StrategyType Recreate",
                "payments-api: fraud check unavailable ... connection refused; declining (fail-closed)",
            ],
            "remediation": "Set enforce back to baseline for payments (keep warn=restricted), then give fraud-scorer a restricted-compliant securityContext (runAsNonRoot, drop ALL, seccomp RuntimeDefault, no privilege escalation).",
        },
        "logs": logs(seed=130, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "payments-api",
                    "rps": 25,
                    "errors": {"402": (0.02, 0.97)},
                    "latency": (0.12, 0.01),
                },
                {
                    "name": "fraud-scorer",
                    "rps": 25,
                    "rps_after": 0.0,
                    "latency": (0.03, 0.03),
                },
            ],
            start=start,
            seed=130,
        ),
        "kubernetes": k8s,
        "runbooks": {
            "fraud-scorer-oom.md": runbook(
                "fraud-scorer down",
                "fraud-scorer loads a 2.5 GB model at start; when it is down it is almost always OOMKilled during model load. Raise its memory limit to 4Gi and restart it.",
            ),
        },
    }


# =================================================================================================
# 11. A retry storm: checkout-api 5.1.0 retries inventory calls six times with no backoff; a short
#     inventory-api GC pause turned into a self-sustaining 5x request rate. The errors are
#     inventory-api's; the incident names "inventory" (the victim).
# =================================================================================================


@scenario("retry-storm")
def retry_storm() -> dict[str, Any]:
    start = -1560
    co = ["checkout-api-0", "checkout-api-1", "checkout-api-2"]
    inv = ["inventory-api-0", "inventory-api-1", "inventory-api-2", "inventory-api-3"]
    bgs = [
        bg(
            "checkout-api",
            co,
            ["POST /v3/checkout 200 {ms}ms", "GET /v3/checkout/{n} 200 {ms}ms"],
            1.5,
        ),
        bg(
            "inventory-api",
            inv,
            ["GET /v2/stock/{n} 200 {ms}ms", "POST /v2/reservations 201 {ms}ms"],
            1,
            until=start,
        ),
        bg(
            "inventory-api",
            inv,
            ["POST /v2/reservations 201 {ms}0ms"],
            2,
            **{"from": start},
        ),
        bg(
            "inventory-db",
            ["inventory-db-0"],
            ["LOG:  checkpoint complete: wrote {n} buffers"],
            300,
        ),
    ]
    evs = [
        ev(
            "checkout-api",
            "info",
            "checkout-api 5.1.0 started; inventory client: retry policy max_attempts=6 backoff=none timeout=800ms (was max_attempts=2 backoff=exp(200ms))",
            at=start - 1500,
            pods=co,
        ),
        ev(
            "inventory-api",
            "warn",
            "GC pause 2.9s (G1 Evacuation Pause, to-space exhausted)",
            at=start,
            pod=inv[1],
        ),
        ev(
            "checkout-api",
            "warn",
            "inventory POST /v2/reservations attempt {ms}/6 failed: timeout after 800ms; retrying immediately",
            **{"from": start + 5, "to": -2, "every_s": 3},
            pods=co,
        ),
        ev(
            "inventory-api",
            "error",
            "shedding load: 503 for POST /v2/reservations, in-flight {n} > 400",
            **{"from": start + 10, "to": -2, "every_s": 1.5},
            pods=inv,
        ),
        ev(
            "inventory-api",
            "warn",
            "request rate 1{ms}0/s is 5x the 1h average (top caller: checkout-api, 86%)",
            **{"from": start + 60, "to": -5, "every_s": 120},
            pods=inv,
        ),
        ev(
            "checkout-api",
            "error",
            "POST /v3/checkout 502: reservation failed after 6 attempts (order {n})",
            **{"from": start + 20, "to": -2, "every_s": 5},
            pods=co,
        ),
        ev(
            "inventory-db",
            "warn",
            "LOG:  duration: 2{ms}.1 ms  statement: UPDATE stock SET reserved = reserved + 1 WHERE sku = $1",
            **{"from": start + 30, "to": -5, "every_s": 30},
            pods=["inventory-db-0"],
        ),
        ev(
            "inventory-api",
            "error",
            "reindex job failed: elasticsearch cluster_block_exception (read-only)",
            **{"from": -8200, "to": -7600, "every_s": 120},
            pods=inv,
        ),
    ]
    return {
        "incident": {
            "title": "inventory overloaded",
            "service": "inventory-api",
            "severity": "sev2",
            "symptoms": ["checkout failing at reservation", "inventory 503"],
            "description": "",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "app",
            "root_cause_component": ["checkout-api"],
            "root_cause_signal": "max_attempts",
            "root_cause": "checkout-api 5.1.0 (deployed 25 min before) retries every inventory reservation up to 6 times immediately, with an 800 ms timeout. A 2.9 s GC pause on one inventory-api pod made the first calls time out; the immediate retries multiplied checkout-api's calls about five-fold (inventory-api's request rate jumped from ~70/s to ~350/s while checkout traffic stayed flat), inventory-api sheds load with 503 and the retries keep the storm going. inventory-api is the victim; the slow UPDATE warnings of inventory-db follow the load; the reindex error is 2 h old.",
            "evidence": [
                "metrics: inventory-api request rate x5 at the start, checkout-api's rate flat",
                "checkout-api 5.1.0: retry policy max_attempts=6 backoff=none",
                "checkout-api: attempt n/6 failed: timeout after 800ms; retrying immediately",
                "inventory-api: top caller checkout-api 86%",
            ],
            "remediation": "Roll checkout-api back to 5.0.x (or set max_attempts=2 with exponential backoff and jitter, a retry budget); inventory-api recovers once the retries stop.",
        },
        "logs": logs(seed=131, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "checkout-api",
                    "rps": 24,
                    "errors": {"502": (0.0, 0.21)},
                    "latency": (0.18, 4.2),
                },
                {
                    "name": "inventory-api",
                    "rps": 70,
                    "rps_after": 350,
                    "errors": {"503": (0.0, 0.44)},
                    "latency": (0.02, 0.7),
                },
            ],
            start=start,
            seed=131,
            gauges=[
                {
                    "name": "process_open_connections",
                    "labels": {"service": "inventory-api"},
                    "before": 60,
                    "after": 400,
                    "noise": 0.1,
                }
            ],
        ),
        "runbooks": {
            "inventory-503.md": runbook(
                "inventory-api answering 503",
                "inventory-api sheds load when in-flight requests exceed 400. Scale it out (`kubectl scale deploy/inventory-api --replicas=8`) and check inventory-db for slow UPDATEs on stock.",
            ),
        },
    }


# =================================================================================================
# 12. Ephemeral port exhaustion, warn level only: feed-ingest 2.4.0 turned HTTP keep-alive off, every
#     image fetch opens a new connection, TIME_WAIT sockets fill the port range. The errors are
#     catalog-sync's. The incident says "feeds".
# =================================================================================================


@scenario("ephemeral-port-exhaustion")
def ephemeral_port_exhaustion() -> dict[str, Any]:
    start = -1920
    fi = ["feed-ingest-1", "feed-ingest-2"]
    cs = ["catalog-sync-1"]
    bgs = [
        bg(
            "feed-ingest",
            fi,
            [
                "fetched image https://media.partner-{ms}.example/p/{n}.jpg 200 {ms}ms",
                "parsed feed chunk {n} (500 items)",
            ],
            1,
            until=start,
        ),
        bg(
            "feed-ingest",
            fi,
            ["parsed feed chunk {n} (500 items)"],
            6,
            **{"from": start},
        ),
        bg("catalog-sync", cs, ["applied {n} product updates"], 20, until=start),
        bg(
            "media-store",
            ["media-store-1", "media-store-2"],
            ["PUT /objects/{n}.jpg 201 {ms}ms"],
            2,
            until=start,
        ),
    ]
    evs = [
        ev(
            "feed-ingest",
            "info",
            "feed-ingest 2.4.0 started: http client keep_alive=false (DISABLE_KEEPALIVE=true, workaround for partner-17 stale connections), workers=64",
            at=start - 900,
            pods=fi,
        ),
        ev(
            "feed-ingest",
            "warn",
            "image fetch https://media.partner-{ms}.example/p/{n}.jpg: dial tcp 203.0.113.{ms}:443: connect: cannot assign requested address; will retry",
            **{"from": start, "to": -2, "every_s": 1.5},
            pods=fi,
        ),
        ev(
            "feed-ingest",
            "warn",
            "upload to media-store: dial tcp 10.44.8.21:9000: connect: cannot assign requested address; will retry",
            **{"from": start + 30, "to": -2, "every_s": 4},
            pods=fi,
        ),
        ev(
            "feed-ingest",
            "warn",
            "batch {n} incomplete: 412/500 images missing, requeued",
            **{"from": start + 60, "to": -5, "every_s": 30},
            pods=fi,
        ),
        ev(
            "catalog-sync",
            "error",
            "feed batch {n} rejected: images missing for 412 products",
            **{"from": start + 90, "to": -5, "every_s": 30},
            pods=cs,
        ),
        ev(
            "catalog-sync",
            "error",
            "no complete feed batch for 1800s; storefront prices may be stale",
            **{"from": start + 1800, "to": -5, "every_s": 60},
            pods=cs,
        ),
        ev(
            "feed-ingest",
            "warn",
            "partner-17 feed slow: {ms}00ms for first byte",
            **{"from": -7000, "to": -5000, "every_s": 300},
            pods=fi,
        ),
        ev(
            "media-store",
            "error",
            "disk /data 81% used, rebalancing",
            **{"from": -9000, "to": -8000, "every_s": 300},
            pods=["media-store-2"],
        ),
    ]
    return {
        "incident": {
            "title": "feeds stale",
            "service": "feeds",
            "severity": "sev3",
            "symptoms": [],
            "description": "",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "app",
            "root_cause_component": ["feed-ingest"],
            "root_cause_signal": "cannot assign requested address",
            "root_cause": "feed-ingest 2.4.0 turned HTTP keep-alive off: each of 64 workers opens a new TCP connection per image and closes it, leaving it in TIME_WAIT for 60 s. Within 15 minutes the sockets in TIME_WAIT reached the ephemeral port range (~28k) and new connections fail locally with 'cannot assign requested address' (EADDRNOTAVAIL), logged only at warn level with retries. Batches lose their images and catalog-sync, which logs the errors, rejects them. The partners and media-store are fine (their warnings are old).",
            "evidence": [
                "feed-ingest warn (new since the start): connect: cannot assign requested address",
                "feed-ingest 2.4.0: keep_alive=false, 64 workers",
                "tcp TIME_WAIT on feed-ingest hosts at ~28k (net.ipv4.ip_local_port_range 32768-60999)",
                "catalog-sync: feed batch rejected: images missing",
            ],
            "remediation": "Re-enable keep-alive in feed-ingest (fix partner-17's stale connections with an idle timeout instead), or roll back to 2.3.x; widen ip_local_port_range only as a stopgap.",
        },
        "logs": logs(seed=132, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "media-store",
                    "rps": 40,
                    "rps_after": 6,
                    "errors": {"500": (0.001, 0.001)},
                    "latency": (0.03, 0.03),
                },
                {
                    "name": "catalog-sync",
                    "rps": 1,
                    "errors": {"500": (0.0, 0.0)},
                    "latency": (0.5, 0.5),
                },
            ],
            start=start,
            seed=132,
            gauges=[
                {
                    "name": "node_sockstat_TCP_tw",
                    "labels": {"instance": "feed-ingest-1"},
                    "before": 300,
                    "after": 28100,
                    "change_at": start - 600,
                    "noise": 0.02,
                },
                {
                    "name": "node_sockstat_TCP_tw",
                    "labels": {"instance": "feed-ingest-2"},
                    "before": 280,
                    "after": 28150,
                    "change_at": start - 600,
                    "noise": 0.02,
                },
                {
                    "name": "process_open_connections",
                    "labels": {"service": "feed-ingest"},
                    "before": 70,
                    "after": 60,
                    "noise": 0.1,
                },
            ],
        ),
        "runbooks": {
            "partner-feed-slow.md": runbook(
                "Partner feeds slow or failing",
                "When feed batches come in incomplete, a partner's image CDN is usually slow. Check the partner's status page and lower feed-ingest workers to 16 to stay under their rate limit.",
            ),
        },
    }


# =================================================================================================
# 13. A vendor API key expired: the SMS provider answers 401 to every send; the voice fallback
#     works. netcheck sees http/http_401. The incident says "2fa".
# =================================================================================================


@scenario("vendor-key-expired")
def vendor_key_expired() -> dict[str, Any]:
    start = -1380
    otp = ["otp-service-0", "otp-service-1"]
    gw = ["auth-gateway-0", "auth-gateway-1", "auth-gateway-2"]
    bgs = [
        bg(
            "otp-service",
            otp,
            ["sent sms code to +44******{ms} via smsrelay in {ms}ms"],
            3,
            until=start,
        ),
        bg("otp-service", otp, ["verified code for user {n}"], 6, until=start),
        bg(
            "auth-gateway",
            gw,
            ["POST /login 200 {ms}ms", "POST /login/mfa 200 {ms}ms"],
            1.5,
            until=start,
        ),
        bg("auth-gateway", gw, ["POST /login 200 {ms}ms"], 2, **{"from": start}),
    ]
    evs = [
        ev(
            "otp-service",
            "error",
            'smsrelay POST https://api.smsrelay.example/v3/messages -> 401 Unauthorized {"error":"api_key_expired","message":"API key ak_live_****7f2 expired on 2026-12-05T13:37:00Z"}',
            **{"from": start, "to": -2, "every_s": 4},
            pods=otp,
        ),
        ev(
            "otp-service",
            "warn",
            "sms channel failed for user {n}; voice fallback only for users who enabled it",
            **{"from": start + 2, "to": -2, "every_s": 20},
            pods=otp,
        ),
        ev(
            "auth-gateway",
            "error",
            "POST /login/mfa 502: otp-service could not deliver a code (user {n})",
            **{"from": start + 5, "to": -2, "every_s": 3},
            pods=gw,
        ),
        ev(
            "otp-service",
            "warn",
            "redis otp-cache latency {ms}ms above 50ms",
            **{"from": -6000, "to": -3, "every_s": 600},
            pods=otp,
        ),
        ev(
            "otp-service",
            "error",
            "smsrelay POST https://api.smsrelay.example/v3/messages -> 429 Too Many Requests (retry-after 2s)",
            **{"from": -8400, "to": -8000, "every_s": 40},
            pods=otp,
        ),
        ev(
            "auth-gateway",
            "info",
            "auth-gateway 4.2.0 started (new: device fingerprint header)",
            at=start - 1800,
            pods=gw,
        ),
    ]
    return {
        "incident": {
            "title": "2FA codes not arriving",
            "service": "2fa",
            "severity": "sev1",
            "symptoms": ["users stuck at 'enter the code we sent you'"],
            "description": "",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "http",
            "root_cause_component": ["api.smsrelay.example", "smsrelay"],
            "root_cause_signal": "401",
            "root_cause": "The live API key for the SMS provider SmsRelay expired at 13:37 (provider time): every send gets 401 api_key_expired, so no SMS codes go out and MFA logins fail at auth-gateway (502). The voice provider works. otp-service and auth-gateway are healthy otherwise; the 429s are from this morning, the Redis latency warnings are routine and auth-gateway's 4.2.0 release is unrelated.",
            "evidence": [
                "probe smsrelay: http/http_401 (api_key_expired)",
                "probe voicerelay: none",
                "otp-service: smsrelay ... 401 Unauthorized api_key_expired",
            ],
            "remediation": "Rotate the SmsRelay key (new key in the secret store, restart otp-service), and add an expiry alert; meanwhile route codes via voice or e-mail.",
            "root_cause_probe": "smsrelay",
            "netcheck": {
                "smsrelay": {"failed_layer": "http", "reason": "http_401"},
                "voicerelay": {"failed_layer": "none", "reason": None},
            },
        },
        "logs": logs(seed=133, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "auth-gateway",
                    "rps": 50,
                    "errors": {"502": (0.0, 0.18)},
                    "latency": (0.09, 0.1),
                },
                {
                    "name": "otp-service",
                    "rps": 8,
                    "errors": {"502": (0.001, 0.9)},
                    "latency": (0.3, 0.15),
                },
            ],
            start=start,
            seed=133,
        ),
        "targets": [
            {
                "name": "smsrelay",
                "url": "https://api.smsrelay.example/v3/messages",
                "fault": {
                    "kind": "http_status",
                    "status": 401,
                    "body": '{"error":"api_key_expired","message":"API key expired on 2026-12-05T13:37:00Z"}',
                    "headers": {
                        "Content-Type": "application/json",
                        "WWW-Authenticate": 'Bearer realm="smsrelay", error="invalid_token", error_description="api key expired"',
                    },
                },
            },
            {
                "name": "voicerelay",
                "url": "https://api.voicerelay.example/v1/health",
                "fault": {"kind": "ok", "body": '{"status":"up"}'},
            },
        ],
        "runbooks": {
            "sms-delays.md": runbook(
                "SMS codes delayed",
                "SMS delivery delays are usually carrier congestion on the provider's side. Check SmsRelay's status page, tell support to advise users to wait 5 minutes, and do not raise our send rate (they answer 429).",
            ),
        },
    }


# =================================================================================================
# 14. Disk full on the database host: an inactive replication slot (the CDC connector failed at
#     dawn) retained WAL until the data volume filled. orders-api is the loud one. "orders".
# =================================================================================================


@scenario("db-disk-full")
def db_disk_full() -> dict[str, Any]:
    start = -1080
    oa = ["orders-api-1", "orders-api-2", "orders-api-3"]
    bgs = [
        bg(
            "orders-api",
            oa,
            ["POST /v1/orders 201 {ms}ms", "GET /v1/orders/{n} 200 {ms}ms"],
            1,
            until=start,
        ),
        bg("orders-api", oa, ["GET /v1/orders/{n} 200 {ms}ms"], 2, **{"from": start}),
        bg(
            "orders-db",
            ["orders-db-1"],
            [
                "LOG:  checkpoint complete: wrote {n} buffers (0.9%); 0 WAL file(s) added, 0 removed, 0 recycled"
            ],
            300,
        ),
    ]
    evs = [
        ev(
            "kafka-connect",
            "error",
            "WorkerSourceTask{id=orders-cdc-0} Task threw an uncaught and unrecoverable exception; connector orders-cdc is FAILED",
            at=-21000,
            pods=["kafka-connect-0"],
        ),
        ev(
            "orders-db",
            "warn",
            'LOG:  replication slot "debezium_orders" is inactive; retaining {n} MB of WAL (pg_wal on /var/lib/postgresql, 93% used)',
            **{"from": -6000, "to": start, "every_s": 900},
            pods=["orders-db-1"],
        ),
        ev(
            "orders-db",
            "error",
            'ERROR:  could not extend file "base/16384/24601.12": No space left on device',
            **{"from": start, "to": -2, "every_s": 5},
            pods=["orders-db-1"],
        ),
        ev(
            "orders-db",
            "error",
            'PANIC:  could not write to file "pg_wal/xlogtemp.2291": No space left on device',
            at=start + 300,
            pods=["orders-db-1"],
        ),
        ev(
            "orders-db",
            "info",
            "LOG:  database system is ready to accept connections",
            at=start + 340,
            pods=["orders-db-1"],
        ),
        ev(
            "orders-api",
            "error",
            'POST /v1/orders 500: ERROR: could not extend file "base/16384/24601.12": No space left on device (SQLSTATE 53100)',
            **{"from": start + 2, "to": -2, "every_s": 1.5},
            pods=oa,
        ),
        ev(
            "orders-api",
            "error",
            "db connection lost: FATAL: the database system is in recovery mode",
            **{"from": start + 300, "to": start + 340, "every_s": 5},
            pods=oa,
        ),
        ev(
            "orders-api",
            "info",
            "orders-api 3.9.1 started (fix: currency rounding on refunds)",
            at=start - 2400,
            pods=oa,
        ),
        ev(
            "storefront",
            "error",
            "place order failed: orders-api 500 (cart {n})",
            **{"from": start + 4, "to": -2, "every_s": 2},
            pods=["storefront-1", "storefront-2"],
        ),
    ]
    return {
        "incident": {
            "title": "[FIRING:3] HighErrorRate orders (5xx > 20% for 5m)",
            "service": "orders",
            "severity": "sev1",
            "symptoms": [],
            "description": "",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "app",
            "root_cause_component": ["orders-db", "debezium_orders"],
            "root_cause_signal": "No space left on device",
            "root_cause": "The CDC connector orders-cdc failed about six hours ago; its replication slot debezium_orders on orders-db went inactive and Postgres kept every WAL segment for it until the data volume filled. Inserts now fail with 'could not extend file: No space left on device' (once a PANIC on a WAL write restarted the server), so orders-api answers 500 on every new order while reads work. orders-api's deploy 40 min before is not the cause.",
            "evidence": [
                "orders-db: ERROR could not extend file ... No space left on device; PANIC could not write pg_wal",
                "orders-db: replication slot debezium_orders inactive; retaining WAL, volume 93% an hour before",
                "node_filesystem_avail_bytes on orders-db's data volume reached 0",
                "kafka-connect: connector orders-cdc FAILED 6 h ago",
            ],
            "remediation": "Free space now (grow the volume, or drop the slot debezium_orders if the CDC can be re-snapshotted), then restart orders-cdc and alert on slot lag / retained WAL.",
        },
        "logs": logs(seed=134, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "orders-api",
                    "rps": 30,
                    "errors": {"500": (0.001, 0.38)},
                    "latency": (0.05, 0.06),
                },
                {
                    "name": "storefront",
                    "rps": 120,
                    "errors": {"500": (0.001, 0.05)},
                    "latency": (0.1, 0.1),
                },
            ],
            start=start,
            seed=134,
            gauges=[
                {
                    "name": "node_filesystem_avail_bytes",
                    "labels": {
                        "instance": "orders-db-1",
                        "mountpoint": "/var/lib/postgresql",
                    },
                    "before": 3.1e10,
                    "after": 0,
                    "noise": 0.02,
                },
                {
                    "name": "pg_replication_slots_pg_wal_lsn_diff",
                    "labels": {
                        "instance": "orders-db-1",
                        "slot_name": "debezium_orders",
                    },
                    "before": 4.1e11,
                    "after": 4.6e11,
                    "change_at": -4000,
                    "noise": 0.01,
                },
            ],
        ),
        "runbooks": {
            "orders-500-after-deploy.md": runbook(
                "orders-api 500s",
                "If orders-api starts answering 500 after a release, roll back first: `deploy rollback orders-api`. Look at the refund and rounding code paths, which change most often.",
            ),
        },
    }


# =================================================================================================
# 15. A Redis maxmemory eviction storm: recs-builder started writing large keys without TTL into the
#     shared catalog-cache; it hit maxmemory and evicts product entries, the hit ratio collapsed and
#     catalog-db (the loud one) is slow. The incident says "catalog".
# =================================================================================================


@scenario("cache-eviction-storm")
def cache_eviction_storm() -> dict[str, Any]:
    start = -1440
    ca = ["catalog-api-1", "catalog-api-2", "catalog-api-3"]
    bgs = [
        bg(
            "catalog-api",
            ca,
            [
                "GET /v1/products/{n} 200 {ms}ms (cache hit)",
                "GET /v1/categories/{n} 200 {ms}ms (cache hit)",
            ],
            1,
            until=start,
        ),
        bg(
            "catalog-api",
            ca,
            ["GET /v1/products/{n} 200 {ms}0ms (cache miss)"],
            1,
            **{"from": start},
        ),
        bg(
            "recs-builder",
            ["recs-builder-1"],
            ["wrote recs:user:{n} ({ms}4 KB)"],
            5,
            **{"from": start - 600},
        ),
    ]
    evs = [
        ev(
            "recs-builder",
            "info",
            "recs-builder 0.3.0 started: precomputing per-user recommendations into redis catalog-cache:6379 (no TTL)",
            at=start - 600,
            pod="recs-builder-1",
        ),
        ev(
            "catalog-cache",
            "warn",
            "used_memory 8.00G reached maxmemory 8gb (policy allkeys-lru): evicting keys, evicted_keys +{n} in the last 60s",
            **{"from": start, "to": -5, "every_s": 60},
            pods=["catalog-cache-0"],
        ),
        ev(
            "catalog-db",
            "warn",
            "LOG:  duration: {ms}12.4 ms  statement: SELECT p.*, array_agg(v.*) FROM products p JOIN variants v ON ... WHERE p.id = $1",
            **{"from": start + 30, "to": -2, "every_s": 2},
            pods=["catalog-db-0"],
        ),
        ev(
            "catalog-db",
            "warn",
            "LOG:  connection count 480 of max_connections 500",
            **{"from": start + 120, "to": -5, "every_s": 60},
            pods=["catalog-db-0"],
        ),
        ev(
            "catalog-api",
            "error",
            "GET /v1/products/{n} 504: db query exceeded 3000ms",
            **{"from": start + 90, "to": -2, "every_s": 4},
            pods=ca,
        ),
        ev(
            "catalog-db",
            "warn",
            "LOG:  automatic vacuum of table catalog.public.variants: index scans: 1",
            **{"from": -9000, "to": -3, "every_s": 1200},
            pods=["catalog-db-0"],
        ),
        ev(
            "catalog-api",
            "error",
            "price feed import failed: upstream pricing-sftp unreachable",
            **{"from": -8500, "to": -8000, "every_s": 100},
            pods=ca,
        ),
    ]
    return {
        "incident": {
            "title": "Product pages slow",
            "service": "catalog",
            "severity": "sev2",
            "symptoms": ["catalog p99 > 3 s", "catalog-db CPU 95%"],
            "description": "",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "app",
            "root_cause_component": ["catalog-cache", "recs-builder"],
            "root_cause_signal": "maxmemory",
            "root_cause": "recs-builder 0.3.0 started 34 min ago writing large per-user recommendation keys without a TTL into catalog-cache, the Redis that catalog-api uses for product entries. catalog-cache reached maxmemory (8gb, allkeys-lru) and evicts product keys as fast as they are written: the hit ratio fell from ~97% to ~30%, every miss becomes a heavy query on catalog-db, which saturates (slow-statement warnings, connections near max) and catalog-api times out. catalog-db is the loud victim; the vacuum lines are routine and the pricing-sftp error is old.",
            "evidence": [
                "catalog-cache warn (new): used_memory reached maxmemory 8gb, evicting keys",
                "redis hit ratio 0.97 -> 0.3, evicted keys rising, memory at the limit",
                "recs-builder 0.3.0: writing recs:user:* to catalog-cache with no TTL, 10 min before",
                "catalog-db: slow product SELECTs and connections 480/500 after the start",
            ],
            "remediation": "Stop recs-builder and delete recs:user:* (or give them a TTL in their own Redis); catalog-cache refills and catalog-db's load drops.",
        },
        "logs": logs(seed=135, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "catalog-api",
                    "rps": 150,
                    "errors": {"504": (0.0, 0.07)},
                    "latency": (0.015, 1.4),
                },
            ],
            start=start,
            seed=135,
            gauges=[
                {
                    "name": "redis_memory_used_bytes",
                    "labels": {"service": "catalog-cache"},
                    "before": 5.2e9,
                    "after": 8.59e9,
                    "change_at": start - 300,
                    "noise": 0.01,
                    "cap": 8.59e9,
                },
                {
                    "name": "redis_memory_max_bytes",
                    "labels": {"service": "catalog-cache"},
                    "before": 8.59e9,
                    "after": 8.59e9,
                    "noise": 0,
                },
                {
                    "name": "redis_keyspace_hit_ratio",
                    "labels": {"service": "catalog-cache"},
                    "before": 0.97,
                    "after": 0.3,
                    "noise": 0.03,
                },
                {
                    "name": "redis_evicted_keys_per_second",
                    "labels": {"service": "catalog-cache"},
                    "before": 0,
                    "after": 2400,
                    "noise": 0.2,
                },
                {
                    "name": "db_pool_in_use",
                    "labels": {"service": "catalog-api"},
                    "before": 6,
                    "after": 40,
                    "noise": 0.05,
                },
                {
                    "name": "db_pool_max",
                    "labels": {"service": "catalog-api"},
                    "before": 40,
                    "after": 40,
                    "noise": 0,
                },
            ],
        ),
        "runbooks": {
            "catalog-db-slow.md": runbook(
                "catalog-db slow",
                "When catalog-db CPU is above 90%, look for a missing index: run EXPLAIN on the top statement in pg_stat_statements, add the index CONCURRENTLY, and fail over to the replica if the primary stays saturated.",
            ),
        },
    }


# =================================================================================================
# 16. Clock skew breaks JWT validation: idp-2 came back from a reboot without chronyd and runs four
#     minutes fast; tokens it issues are "used before issued" for every verifier. Half the logins
#     fail at random. The incident says "sso".
# =================================================================================================


@scenario("clock-skew-jwt")
def clock_skew_jwt() -> dict[str, Any]:
    start = -1980
    idp = ["idp-1", "idp-2"]
    apis = {
        "orders-api": ["orders-api-1", "orders-api-2"],
        "profile-api": ["profile-api-1", "profile-api-2"],
        "cart-api": ["cart-api-1", "cart-api-2"],
    }
    bgs = [
        bg(
            "identity-svc",
            idp,
            ["issued access token for client web (kid 2026-12-a) in {ms}ms"],
            2,
        ),
        *[
            bg(svc, pods, [f"GET /v1/{svc.split('-')[0]}/{{n}} 200 {{ms}}ms"], 2)
            for svc, pods in apis.items()
        ],
    ]
    evs = [
        ev(
            "systemd",
            "info",
            "Reboot for kernel update 6.8.0-49 (patch window)",
            at=start - 420,
            labels={"host": "idp-2"},
        ),
        ev(
            "systemd",
            "warn",
            "chronyd.service: masked by image idp-base-2026.12 (ntp role removed); system clock not synchronised",
            at=start - 360,
            labels={"host": "idp-2"},
        ),
        ev(
            "identity-svc",
            "warn",
            "clock check: local clock 241s ahead of upstream Date header (https://login.partner-sso.example)",
            **{"from": start - 300, "to": -5, "every_s": 600},
            pod="idp-2",
        ),
        ev(
            "identity-svc",
            "info",
            "JWKS rotated: new signing key kid 2026-12-a published, 2026-11-b kept for verification",
            at=-7000,
            pods=idp,
        ),
        *[
            ev(
                svc,
                "error",
                "401 for GET /v1/{n}: invalid token: Token used before issued (iat in the future; issuer https://sso.acme.example, host idp-2)",
                **{"from": start, "to": -2, "every_s": 2.5},
                pods=pods,
            )
            for svc, pods in apis.items()
        ],
        ev(
            "web-frontend",
            "error",
            "session refresh failed: 401 from orders-api; logging user out",
            **{"from": start + 10, "to": -2, "every_s": 3},
            pods=["web-frontend-1", "web-frontend-2"],
        ),
        ev(
            "orders-api",
            "error",
            "JWKS fetch from https://sso.acme.example/.well-known/jwks.json timed out after 2000ms",
            **{"from": -8000, "to": -7600, "every_s": 60},
            pods=apis["orders-api"],
        ),
    ]
    return {
        "incident": {
            "title": "users randomly logged out",
            "service": "sso",
            "severity": "sev2",
            "symptoms": [],
            "description": "",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "app",
            "root_cause_component": ["idp-2", "identity-svc"],
            "root_cause_signal": "clock",
            "root_cause": "idp-2 rebooted in the patch window on image idp-base-2026.12, which masks chronyd; its clock runs 241 s fast. Tokens it issues carry an iat four minutes in the future and every verifier (orders-api, profile-api, cart-api) rejects them as 'Token used before issued' beyond its 60 s leeway; the load balancer sends about half the logins to idp-2, so users are logged out at random. idp-1 is fine. The JWKS rotation two hours ago and the old JWKS timeout are unrelated.",
            "evidence": [
                "verifiers: invalid token: Token used before issued (host idp-2)",
                "identity-svc on idp-2: local clock 241s ahead of upstream Date",
                "systemd on idp-2: chronyd masked after the reboot; node_timex_offset_seconds 241 on idp-2 only",
            ],
            "remediation": "Unmask and start chronyd on idp-2 (chronyc makestep), take idp-2 out of the pool until synchronised; fix the base image's ntp role.",
        },
        "logs": logs(seed=136, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "orders-api",
                    "rps": 40,
                    "errors": {"401": (0.002, 0.45)},
                    "latency": (0.05, 0.05),
                },
                {
                    "name": "profile-api",
                    "rps": 25,
                    "errors": {"401": (0.002, 0.47)},
                    "latency": (0.04, 0.04),
                },
                {
                    "name": "cart-api",
                    "rps": 35,
                    "errors": {"401": (0.002, 0.46)},
                    "latency": (0.03, 0.03),
                },
                {
                    "name": "identity-svc",
                    "rps": 20,
                    "errors": {"500": (0.0, 0.0)},
                    "latency": (0.02, 0.02),
                },
            ],
            start=start,
            seed=136,
            gauges=[
                {
                    "name": "node_timex_offset_seconds",
                    "labels": {"instance": "idp-1"},
                    "before": 0.0004,
                    "after": 0.0004,
                    "noise": 0.5,
                },
                {
                    "name": "node_timex_offset_seconds",
                    "labels": {"instance": "idp-2"},
                    "before": 0.0005,
                    "after": 241.3,
                    "change_at": start - 360,
                    "noise": 0.001,
                },
                {
                    "name": "node_timex_sync_status",
                    "labels": {"instance": "idp-2"},
                    "before": 1,
                    "after": 0,
                    "change_at": start - 360,
                    "noise": 0,
                },
            ],
        ),
        "runbooks": {
            "jwt-invalid.md": runbook(
                "Invalid JWT errors",
                "Bursts of invalid-token 401s follow a signing-key rotation: verifiers cache the JWKS for 24 h. Restart the verifying services (orders-api, profile-api, cart-api) to refresh their JWKS cache.",
            ),
        },
    }


# =================================================================================================
# 17. An MTU black hole: the new IPsec tunnel to the bank has a smaller MTU and the firewall drops
#     ICMP "fragmentation needed"; small answers pass, statement downloads die mid-body. The
#     incident says "reconciliation".
# =================================================================================================


@scenario("mtu-large-responses")
def mtu_large_responses() -> dict[str, Any]:
    start = -2040
    rw = ["recon-worker-1", "recon-worker-2"]
    bgs = [
        bg(
            "recon-worker",
            rw,
            [
                "GET https://reports.northbank.example/v1/ping 200 {ms}ms",
                "GET https://reports.northbank.example/v1/accounts 200 {ms}ms (1.1 KB)",
            ],
            10,
        ),
        bg(
            "recon-worker",
            rw,
            ["downloaded statement {n} (2.{ms} MB) in {ms}0ms"],
            8,
            until=start,
        ),
        bg(
            "ledger-api",
            ["ledger-api-1", "ledger-api-2"],
            ["POST /v1/entries 201 {ms}ms"],
            2,
        ),
    ]
    evs = [
        ev(
            "netops",
            "info",
            "change CHG-7781 done: northbank traffic moved from MPLS to IPsec tunnel vpn-northbank (tunnel MTU 1400; firewall policy fw-edge-2 default: drop ICMP)",
            at=start - 120,
        ),
        ev(
            "recon-worker",
            "error",
            "GET https://reports.northbank.example/v1/statements/{n}: connection reset by peer after 1348 of 2{ms}0512 bytes",
            **{"from": start, "to": -2, "every_s": 9},
            pods=rw,
        ),
        ev(
            "recon-worker",
            "warn",
            "statement download retry {ms}/5 (read timeout / reset mid-body)",
            **{"from": start + 4, "to": -2, "every_s": 18},
            pods=rw,
        ),
        ev(
            "ledger-api",
            "error",
            "reconciliation run {n} incomplete: 0 statements imported",
            **{"from": start + 600, "to": -5, "every_s": 600},
            pods=["ledger-api-1"],
        ),
        ev(
            "recon-worker",
            "info",
            "recon-worker 1.8.0 started (parser: CAMT.053 v8)",
            at=start - 3600,
            pods=rw,
        ),
        ev(
            "recon-worker",
            "warn",
            "northbank maintenance window 02:00-03:00 UTC: 503 expected",
            **{"from": -9000, "to": -8700, "every_s": 100},
            pods=rw,
        ),
    ]
    return {
        "incident": {
            "title": "bank reconciliation not importing",
            "service": "reconciliation",
            "severity": "sev3",
            "symptoms": ["no statements since 13:26"],
            "description": "",
            "started_offset_s": start,
        },
        "expected": {
            "root_cause_layer": "http",
            "root_cause_component": [
                "reports.northbank.example",
                "vpn-northbank",
                "northbank",
            ],
            "root_cause_signal": "connection_reset",
            "root_cause": "Change CHG-7781 moved traffic to NorthBank onto the IPsec tunnel vpn-northbank (MTU 1400) behind a firewall that drops ICMP, so path MTU discovery cannot work: small answers (ping, account list) pass, but full-size packets of a statement download are dropped and the transfer dies after the first segment (reset mid-body). recon-worker imports nothing and ledger-api's runs are incomplete. recon-worker 1.8.0 (an hour earlier) and the bank's old maintenance notice are unrelated.",
            "evidence": [
                "probe northbank-statements: http/connection_reset after ~1.3 KB of the body",
                "probe northbank-ping: none (small answers pass)",
                "recon-worker: connection reset by peer after 1348 of ~2 MB",
                "netops: CHG-7781 IPsec tunnel MTU 1400, ICMP dropped",
            ],
            "remediation": "Allow ICMP type 3 code 4 on fw-edge-2 (or clamp TCP MSS to 1360 on the tunnel); revert CHG-7781 to MPLS meanwhile.",
            "root_cause_probe": "northbank-statements",
            "netcheck": {
                "northbank-statements": {
                    "failed_layer": "http",
                    "reason": "connection_reset",
                },
                "northbank-ping": {"failed_layer": "none", "reason": None},
            },
        },
        "logs": logs(seed=137, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "ledger-api",
                    "rps": 20,
                    "errors": {"500": (0.001, 0.001)},
                    "latency": (0.04, 0.04),
                },
            ],
            start=start,
            seed=137,
            gauges=[
                {
                    "name": "recon_statements_imported_total",
                    "labels": {"bank": "northbank"},
                    "before": 412,
                    "after": 412,
                    "noise": 0,
                },
                {
                    "name": "node_netstat_Tcp_RetransSegs_rate",
                    "labels": {"instance": "recon-worker-1"},
                    "before": 2,
                    "after": 140,
                    "noise": 0.2,
                },
            ],
        ),
        "targets": [
            {
                "name": "northbank-statements",
                "url": "https://reports.northbank.example/v1/statements/latest",
                "fault": {
                    "kind": "reset_mid_body",
                    "status": 200,
                    "after_bytes": 1348,
                    "paths": {"/v1/ping": {"status": 200, "body": '{"pong":true}'}},
                },
            },
            {
                "name": "northbank-ping",
                "url": "https://reports.northbank.example/v1/ping",
                "fault": {
                    "kind": "reset_mid_body",
                    "status": 200,
                    "after_bytes": 1348,
                    "paths": {"/v1/ping": {"status": 200, "body": '{"pong":true}'}},
                },
            },
        ],
        "runbooks": {
            "bank-api-down.md": runbook(
                "Bank API failing",
                "When NorthBank downloads fail, the bank is usually in maintenance. Check their status page and re-run reconciliation after their window; recon-worker retries five times on its own.",
            ),
        },
    }


def main(root: Path = HERE) -> None:
    for slug, build in SCENARIOS.items():
        base.write(slug, build(), root)
        print(slug)


if __name__ == "__main__":
    main()
