"""Writes the sixth held-out scenario set, bench/heldout6 (issue 21 item 7): `python bench/heldout6/_build.py`.

New incidents, none of them in the bundled set or in bench/heldout … bench/heldout5. As there,
everything that matters is written by hand below (incident, expected answer, runbooks, kubectl
answers, the log lines that carry the fault and the red herrings); only the bulk comes from code:
background request lines and 2 h of metric points (bench/heldout/_build.py's `logs` and `metrics`),
a namespace's tables (bench/heldout2/_build.py's `namespace`), describe layouts
(bench/heldout3/_build.py) and the pod helpers of bench/heldout5/_build.py, each with a fixed seed per
scenario (181-196). The author read neither the planner (`reasoning/`) nor the engine
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


h5 = _load("heldout5_build", HERE.parent / "heldout5" / "_build.py")
base = h5.base

table = base.table
events = base.events
runbook = base.runbook
metrics = base.metrics
logs = base.logs
when = base.when
app = h5.app
pod_name = h5.pod_name
namespace = h5.namespace
bg = h5.bg
ev = h5.ev
container_text = h5.container_text
deployment_describe = h5.deployment_describe
describe_pod = h5.describe_pod
podlog = h5.podlog
running = h5.running
crashloop = h5.crashloop
waiting = h5.waiting
no_sandbox_ips = h5.no_sandbox_ips
NOT_READY = h5.NOT_READY
NODES_FRA = h5.NODES_FRA
NODES_PDX = h5.NODES_PDX
NODES_SYD = h5.NODES_SYD

SCENARIOS: dict[str, Any] = {}


def scenario(slug: str):
    def register(fn):
        SCENARIOS[slug] = fn
        return fn

    return register


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


# =================================================================================================
# 1. A registry's pull rate limit: fraud-scorer has imagePullPolicy: Always and pulls anonymously
#    from Docker Hub. A node-group rotation rescheduled its pods; every pull is refused with 429
#    toomanyrequests. The incident says "card payments".
# =================================================================================================


@scenario("registry-pull-rate-limit")
def registry_pull_rate_limit() -> dict[str, Any]:
    start = -1320
    ns = "payments"
    img = "docker.io/riskline/fraud-scorer:4.2.1"
    fs = app(
        "fraud-scorer",
        image=img,
        port=8080,
        rs="7c9d5b8f4",
        cluster_ip="10.100.12.40",
        pods=[
            ("h2kqz", "0/1", "ImagePullBackOff", "0", "22m", 0),
            ("p7wxm", "0/1", "ErrImagePull", "0", "22m", 1),
            ("v4tnc", "0/1", "ImagePullBackOff", "0", "21m", 2),
        ],
    )
    pa = app(
        "payments-api",
        image="123456789012.dkr.ecr.eu-central-1.amazonaws.com/payments-api:18.3.0",
        port=8080,
        rs="5b8f7c6d9",
        cluster_ip="10.100.12.8",
        pods=[
            ("a8rwd", "1/1", "Running", "0", "48m", 0),
            ("k3mzs", "1/1", "Running", "0", "48m", 1),
        ],
    )
    lg = app(
        "ledger-sync",
        image="123456789012.dkr.ecr.eu-central-1.amazonaws.com/ledger-sync:2.9.4",
        port=8080,
        rs="6d4c8b9f7",
        cluster_ip="10.100.12.77",
        pods=[("q9lnx", "1/1", "Running", "0", "23m", 2)],
    )
    k8s = namespace(ns, NODES_FRA, [fs, pa, lg], seed=181)
    no_sandbox_ips(k8s, ns)
    fp = [pod_name(fs, s[0]) for s in fs["pods"]]
    pull = (
        f'Failed to pull image "{img}": failed to pull and unpack image "{img}": failed to copy: '
        "httpReadSeeker: failed open: unexpected status code https://registry-1.docker.io/v2/riskline/"
        "fraud-scorer/manifests/sha256:9f1c…: 429 Too Many Requests - Server message: toomanyrequests: "
        "You have reached your unauthenticated pull rate limit. https://www.docker.com/increase-rate-limit"
    )
    for i, p in enumerate(fs["pods"]):
        describe_pod(
            k8s,
            ns,
            fs,
            p[0],
            NODES_FRA,
            status="Pending",
            state=waiting("ImagePullBackOff"),
            started=-1310,
            conditions=NOT_READY,
            extra="    Image Pull Policy:  Always\n",
            events_rows=[
                (
                    "Normal",
                    "Scheduled",
                    "22m",
                    "default-scheduler",
                    f"Successfully assigned {ns}/{fp[i]} to {NODES_FRA[i][0]}",
                ),
                (
                    "Normal",
                    "Pulling",
                    "3m (x8 over 22m)",
                    "kubelet",
                    f'Pulling image "{img}"',
                ),
                ("Warning", "Failed", "3m (x8 over 22m)", "kubelet", pull),
                (
                    "Warning",
                    "Failed",
                    "3m (x8 over 22m)",
                    "kubelet",
                    "Error: ErrImagePull",
                ),
                (
                    "Normal",
                    "BackOff",
                    "40s (x80 over 22m)",
                    "kubelet",
                    f'Back-off pulling image "{img}"',
                ),
            ],
        )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "23m",
                "Normal",
                "Killing",
                f"Pod/fraud-scorer-7c9d5b8f4-{s}",
                "Stopping container fraud-scorer (node drained by eks-nodegroup upgrade)",
            )
            for s in ("b1xqw", "d5mzt", "n8rkc")
        ]
        + [("3m (x8 over 22m)", "Warning", "Failed", f"Pod/{p}", pull) for p in fp]
    )
    k8s[f"kubectl logs {pod_name(pa, 'a8rwd')} -n {ns} --tail=1000"] = podlog(
        [
            (
                -60 - 7 * i,
                "ERROR fraud check failed: dial tcp 10.100.12.40:80: connect: connection refused; declining card auth (fail-closed)",
            )
            for i in range(8)
        ]
    )
    pap = [pod_name(pa, s[0]) for s in pa["pods"]]
    bgs = [
        bg(
            "payments-api",
            pap,
            ["POST /v2/authorizations 201 {ms}ms", "GET /v2/payments/{n} 200 {ms}ms"],
            3,
        ),
        bg(
            "ledger-sync",
            [pod_name(lg, "q9lnx")],
            ["synced {n} entries to ledger in {ms}ms"],
            20,
        ),
    ]
    evs = [
        ev(
            "eks-nodegroups",
            "info",
            "nodegroup apps-v3 update started: rolling 3 nodes to AMI 1.31.2-20261201",
            at=start - 240,
        ),
        ev(
            "payments-api",
            "info",
            "payments-api 18.3.0 started (3DS2 challenge copy update)",
            at=start - 2900,
            pods=pap,
        ),
        ev(
            "payments-api",
            "error",
            "POST /v2/authorizations 503: fraud check unavailable (fraud-scorer connection refused), declined fail-closed",
            **{"from": start + 30, "to": -2, "every_s": 1.2},
            pods=pap,
        ),
        ev(
            "ledger-sync",
            "warn",
            "ledger batch {n} retried: optimistic lock conflict on account {n}",
            **{"from": -7000, "to": -30, "every_s": 240},
            pods=[pod_name(lg, "q9lnx")],
        ),
        ev(
            "fraud-scorer",
            "error",
            "model reload failed: s3://riskline-models/fraud/2026-12-06.onnx not found, keeping 2026-12-05",
            **{"from": -9000, "to": -8700, "every_s": 60},
            pods=["fraud-scorer-7c9d5b8f4-b1xqw"],
        ),
    ]
    return {
        "incident": incident(
            "card payments declined",
            "card payments",
            start,
            ["cards declined at checkout"],
        ),
        "expected": expected(
            "platform",
            [
                "deployment/fraud-scorer",
                "fraud-scorer",
                "replicaset/fraud-scorer-7c9d5b8f4",
                "docker.io/riskline/fraud-scorer:4.2.1",
            ],
            "toomanyrequests",
            "The node-group upgrade 26 min ago drained fraud-scorer's pods. Its image is pulled anonymously from Docker Hub with imagePullPolicy: Always, and the cluster's NAT address has hit Docker Hub's unauthenticated pull rate limit: every pull fails with 429 Too Many Requests (toomanyrequests), the new pods stay ImagePullBackOff and fraud-scorer has no endpoints. payments-api declines cards fail-closed (the loud victim); its release, the ledger lock warnings and the old model reload error are unrelated.",
            [
                "fraud-scorer pods ImagePullBackOff: 429 Too Many Requests - toomanyrequests: You have reached your unauthenticated pull rate limit",
                "Image Pull Policy: Always; image on docker.io, no imagePullSecrets",
                "payments-api: fraud check unavailable (connection refused), declined fail-closed",
            ],
            "Mirror the image into ECR (or add Docker Hub credentials as an imagePullSecret) and set imagePullPolicy: IfNotPresent; meanwhile pull once with credentials onto the nodes.",
        ),
        "kubernetes": k8s,
        "logs": logs(seed=181, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "payments-api",
                    "rps": 60,
                    "errors": {"503": (0.001, 0.42)},
                    "latency": (0.12, 0.09),
                },
                {"name": "ledger-sync", "rps": 5, "latency": (0.05, 0.05)},
            ],
            start=start,
            seed=181,
        ),
        "runbooks": {
            "card-declines.md": runbook(
                "Card declines spike",
                "A spike of declines is usually the acquirer: check the acquirer status page, then switch payments-api to the secondary acquirer (`ACQUIRER=adyen-b`).",
            )
        },
    }


# =================================================================================================
# 2. A topologySpreadConstraint that cannot be met: search-api 12.0 adds a zone spread with
#    whenUnsatisfiable: DoNotSchedule and maxSkew 1, but zone c has a single small node. The HPA's
#    scale-out leaves the new pods Pending. The incident says "product finder".
# =================================================================================================


@scenario("topology-spread-unsatisfiable")
def topology_spread_unsatisfiable() -> dict[str, Any]:
    start = -1500
    ns = "discovery"
    img = "ghcr.io/nordmart/search-api:12.0.1"
    sa = app(
        "search-api",
        image=img,
        port=8080,
        rs="6f9c7d8b5",
        cluster_ip="10.100.30.21",
        desired=9,
        pods=[
            ("b5kqt", "1/1", "Running", "0", "96m", 0),
            ("c8wzn", "1/1", "Running", "0", "96m", 1),
            ("f2lrx", "1/1", "Running", "0", "95m", 2),
            ("j7vmp", "0/1", "Pending", "0", "24m", -1),
            ("m3xqd", "0/1", "Pending", "0", "24m", -1),
            ("r9tkb", "0/1", "Pending", "0", "24m", -1),
            ("w4nzs", "0/1", "Pending", "0", "24m", -1),
            ("x6hpl", "0/1", "Pending", "0", "24m", -1),
            ("z1cfg", "0/1", "Pending", "0", "24m", -1),
        ],
    )
    fe = app(
        "shop-web",
        image="ghcr.io/nordmart/shop-web:88.2.0",
        port=3000,
        rs="5d7b9c8f6",
        cluster_ip="10.100.30.5",
        pods=[
            ("g6tqm", "1/1", "Running", "0", "33m", 0),
            ("s2kzw", "1/1", "Running", "0", "33m", 1),
        ],
    )
    k8s = namespace(ns, NODES_PDX, [sa, fe], seed=182)
    msg = "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't match pod topology spread constraints. preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling."
    sp = [pod_name(sa, s[0]) for s in sa["pods"]]
    k8s[f"kubectl describe pods {sp[3]} -n {ns}"] = (
        f"Name:             {sp[3]}\nNamespace:        {ns}\nPriority:         0\nService Account:  search-api\n"
        f"Node:             <none>\nLabels:           app=search-api\n                  pod-template-hash=6f9c7d8b5\n"
        f"Status:           Pending\nIP:               \nControlled By:    ReplicaSet/search-api-6f9c7d8b5\n"
        f"Containers:\n  search-api:\n    Image:      {img}\n    Port:       8080/TCP\n    Requests:\n      cpu:     2\n      memory:  4Gi\n"
        "Conditions:\n  Type           Status\n  PodScheduled   False \n"
        "Topology Spread Constraints:  topology.kubernetes.io/zone:DoNotSchedule when max skew 1 is exceeded for selector app=search-api\n"
        "Events:\n  Type     Reason            Age                 From               Message\n"
        "  ----     ------            ----                ----               -------\n"
        f"  Warning  FailedScheduling  2m (x25 over 24m)   default-scheduler  {msg}\n"
    )
    k8s[f"kubectl get horizontalpodautoscalers -n {ns}"] = table(
        [
            ["NAME", "REFERENCE", "TARGETS", "MINPODS", "MAXPODS", "REPLICAS", "AGE"],
            [
                "search-api",
                "Deployment/search-api",
                "cpu: 188%/60%",
                "3",
                "12",
                "9",
                "410d",
            ],
        ]
    )
    k8s["kubectl get nodes -o wide --show-labels"] = table(
        [
            ["NAME", "STATUS", "ROLES", "AGE", "VERSION", "INTERNAL-IP", "LABELS"],
            [
                NODES_PDX[0][0],
                "Ready",
                "<none>",
                "41d",
                "v1.31.2-eks-94953ac",
                NODES_PDX[0][2],
                "node.kubernetes.io/instance-type=c6i.4xlarge,topology.kubernetes.io/zone=us-west-2a",
            ],
            [
                NODES_PDX[1][0],
                "Ready",
                "<none>",
                "41d",
                "v1.31.2-eks-94953ac",
                NODES_PDX[1][2],
                "node.kubernetes.io/instance-type=c6i.4xlarge,topology.kubernetes.io/zone=us-west-2b",
            ],
            [
                NODES_PDX[2][0],
                "Ready",
                "<none>",
                "41d",
                "v1.31.2-eks-94953ac",
                NODES_PDX[2][2],
                "node.kubernetes.io/instance-type=c6i.large,topology.kubernetes.io/zone=us-west-2c",
            ],
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "96m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/search-api",
                "Scaled up replica set search-api-6f9c7d8b5 to 3",
            ),
            (
                "24m",
                "Normal",
                "SuccessfulRescale",
                "HorizontalPodAutoscaler/search-api",
                "New size: 9; reason: cpu resource utilization (percentage of request) above target",
            ),
            *[
                ("2m (x25 over 24m)", "Warning", "FailedScheduling", f"Pod/{p}", msg)
                for p in sp[3:]
            ],
        ]
    )
    sap = sp[:3]
    fep = [pod_name(fe, s[0]) for s in fe["pods"]]
    bgs = [
        bg(
            "search-api",
            sap,
            ["GET /v4/search?q=… 200 {ms}ms", "GET /v4/suggest 200 {ms}ms"],
            3,
        ),
        bg("shop-web", fep, ["GET /search 200 {ms}ms", "GET /healthz 200 1ms"], 3),
    ]
    evs = [
        ev(
            "argocd",
            "info",
            "application discovery/search-api synced to 12.0.1 (chart search-api-12.0.1: add topologySpreadConstraints zone maxSkew=1 DoNotSchedule)",
            at=start - 4300,
        ),
        ev(
            "search-api",
            "warn",
            "request queue depth {n} over 200; worker utilisation 100%",
            **{"from": start, "to": -5, "every_s": 6},
            pods=sap,
        ),
        ev(
            "shop-web",
            "info",
            "shop-web 88.2.0 started (new facet chips)",
            at=start - 1100,
            pods=fep,
        ),
        ev(
            "shop-web",
            "error",
            "GET /search 504: search-api timed out after 2500ms",
            **{"from": start + 20, "to": -2, "every_s": 1.1},
            pods=fep,
        ),
        ev(
            "recommendations",
            "warn",
            "feature store lag {n}ms above 500ms",
            **{"from": -7000, "to": -20, "every_s": 180},
        ),
        ev(
            "search-api",
            "error",
            "opensearch: circuit_breaking_exception [parent] Data too large",
            **{"from": -9600, "to": -9200, "every_s": 40},
            pods=["search-api-6b8d9c7f5-old1x"],
        ),
    ]
    return {
        "incident": incident(
            "product finder slow and timing out", "product finder", start
        ),
        "expected": expected(
            "platform",
            ["deployment/search-api", "search-api", "replicaset/search-api-6f9c7d8b5"],
            "didn't match pod topology spread constraints",
            "search-api 12.0.1 (synced 97 min ago) added a zone topologySpreadConstraint with maxSkew 1 and whenUnsatisfiable: DoNotSchedule. When the evening load made the HPA scale 3 -> 9, the only node in us-west-2c is a c6i.large with no room for a 2-CPU pod, so the skew rule forbids the other zones too: six pods stay Pending (didn't match pod topology spread constraints), the three running ones saturate and shop-web times out. shop-web's 504s and release, recommendations' lag and the old OpenSearch breaker errors are not the cause.",
            [
                "FailedScheduling: 1 Insufficient cpu, 2 node(s) didn't match pod topology spread constraints",
                "HPA search-api wants 9 replicas, 3 running; Topology Spread Constraints zone DoNotSchedule maxSkew 1",
                "zone us-west-2c has one c6i.large node",
            ],
            "Set whenUnsatisfiable: ScheduleAnyway (or add capacity in us-west-2c); a temporary patch of the Deployment unblocks the Pending pods.",
        ),
        "kubernetes": k8s,
        "logs": logs(seed=182, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "search-api",
                    "rps": 120,
                    "rps_after": 190,
                    "latency": (0.04, 1.9),
                },
                {
                    "name": "shop-web",
                    "rps": 100,
                    "rps_after": 160,
                    "errors": {"504": (0.001, 0.31)},
                    "latency": (0.09, 2.1),
                },
            ],
            start=start,
            seed=182,
        ),
        "runbooks": {
            "search-slow.md": runbook(
                "Search slow",
                "Slow search is almost always OpenSearch: check `_cluster/health` and the circuit breakers, and clear the fielddata cache if the parent breaker trips.",
            )
        },
    }


def k8s_case(
    ns: str,
    nodes: list[tuple[str, str, str]],
    apps: list[dict[str, Any]],
    seed: int,
    **kw: Any,
) -> dict[str, str]:
    return namespace(ns, nodes, apps, seed=seed, **kw)


# =================================================================================================
# 3. A Secret rotated, pods not restarted: Vault rotated the CRM database password and
#    external-secrets refreshed the Secret, but contact-api reads it from an env var at start. Its
#    pool recycles connections every 30 min; each new one fails authentication. The incident says
#    "customer records".
# =================================================================================================


@scenario("secret-rotated-stale-env")
def secret_rotated_stale_env() -> dict[str, Any]:
    start = -1140
    ns = "crm"
    img = "registry.gitlab.com/fjordbank/crm/contact-api:7.14.2"
    ca = app(
        "contact-api",
        image=img,
        port=8080,
        rs="58c7d9f6b",
        cluster_ip="10.100.44.12",
        age="700d",
        pods=[
            ("d4kxz", "1/1", "Running", "0", "9d", 0),
            ("n7qwt", "1/1", "Running", "0", "9d", 1),
            ("t2bvm", "1/1", "Running", "0", "9d", 2),
        ],
    )
    cw = app(
        "crm-web",
        image="registry.gitlab.com/fjordbank/crm/crm-web:30.1.0",
        port=3000,
        rs="7f5b8c9d6",
        cluster_ip="10.100.44.3",
        pods=[
            ("h8rzq", "1/1", "Running", "0", "41m", 0),
            ("w5lcs", "1/1", "Running", "0", "41m", 2),
        ],
    )
    k8s = k8s_case(
        ns,
        NODES_SYD,
        [ca, cw],
        182 + 1,
        secrets=[
            ("crm-db-credentials", "Opaque", "2", "700d"),
            ("crm-web-session", "Opaque", "1", "700d"),
        ],
    )
    cp = [pod_name(ca, s[0]) for s in ca["pods"]]
    cont = container_text(
        "contact-api",
        img,
        8080,
        env={
            "DB_HOST": "crm-db.crm.svc.cluster.local",
            "DB_USER": "crm_app",
            "DB_PASSWORD": "<set to the key 'password' in secret 'crm-db-credentials'>  Optional: false",
            "DB_POOL_MAX_LIFETIME": "30m",
        },
    )
    k8s[f"kubectl describe deployments contact-api -n {ns}"] = deployment_describe(
        "contact-api",
        ns,
        replicas="3 desired | 3 updated | 3 total | 3 available | 0 unavailable",
        revision=41,
        containers=cont,
        conditions=[
            ("Available", "True", "MinimumReplicasAvailable"),
            ("Progressing", "True", "NewReplicaSetAvailable"),
        ],
        old_rs="<none>",
        new_rs="contact-api-58c7d9f6b (3/3 replicas created)",
    )
    k8s[f"kubectl describe secrets crm-db-credentials -n {ns}"] = (
        "Name:         crm-db-credentials\nNamespace:    crm\n"
        "Labels:       reconcile.external-secrets.io/managed=true\n"
        f"Annotations:  reconcile.external-secrets.io/data-hash: 6b1f0c2e9d…\n              external-secrets.io/last-refresh: {base.iso(start - 300)}\n\n"
        "Type:  Opaque\n\nData\n====\npassword:  32 bytes\nusername:  7 bytes\n"
    )
    auth = 'FATAL: password authentication failed for user "crm_app"'
    k8s[f"kubectl logs {cp[0]} -n {ns} --tail=1000"] = podlog(
        [
            (
                start - 700,
                "HikariPool-1 - connection recycled (maxLifetime 30m), 10 active",
            )
        ]
        + [
            (
                start + 40 * i,
                f"ERROR HikariPool-1 - Failed to create/setup connection: {auth}",
            )
            for i in range(25)
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                f"{(-start + 300) // 60}m",
                "Normal",
                "Updated",
                "ExternalSecret/crm-db-credentials",
                "Updated Secret",
            )
        ]
    )
    cwp = [pod_name(cw, s[0]) for s in cw["pods"]]
    bgs = [
        bg(
            "contact-api",
            cp,
            ["GET /v1/contacts/{n} 200 {ms}ms", "PATCH /v1/contacts/{n} 200 {ms}ms"],
            3,
        ),
        bg("crm-web", cwp, ["GET /customers/{n} 200 {ms}ms"], 3),
        bg(
            "crm-db",
            ["crm-db-0"],
            ["LOG:  connection authorized: user=crm_app database=crm"],
            60,
            until=start,
        ),
    ]
    evs = [
        ev(
            "vault",
            "info",
            "rotated static role database/static-roles/crm_app (rotation_period=720h)",
            at=start - 320,
        ),
        ev(
            "external-secrets",
            "info",
            "ExternalSecret crm/crm-db-credentials: secret synced (refreshInterval 1h)",
            at=start - 300,
        ),
        ev(
            "crm-db",
            "error",
            f'{auth}; DETAIL: Connection matched pg_hba.conf line 9: "hostssl all all 10.0.0.0/8 scram-sha-256"',
            **{"from": start, "to": -3, "every_s": 12},
            pods=["crm-db-0"],
        ),
        ev(
            "contact-api",
            "error",
            f"HikariPool-1 - Failed to create/setup connection: {auth}",
            **{"from": start, "to": -3, "every_s": 12},
            pods=cp,
        ),
        ev(
            "contact-api",
            "warn",
            "HikariPool-1 - Connection is not available, request timed out after 30000ms (total={n}, active=…)",
            **{"from": start + 500, "to": -3, "every_s": 8},
            pods=cp,
        ),
        ev(
            "crm-web",
            "info",
            "crm-web 30.1.0 started (new notes editor)",
            at=start - 1300,
            pods=cwp,
        ),
        ev(
            "crm-web",
            "error",
            "GET /customers/{n} 500: contact-api returned 500 (db pool timeout)",
            **{"from": start + 500, "to": -2, "every_s": 1.3},
            pods=cwp,
        ),
        ev(
            "mail-sync",
            "warn",
            "IMAP IDLE dropped by outlook.office365.com, reconnecting",
            **{"from": -7000, "to": -30, "every_s": 300},
        ),
        ev(
            "contact-api",
            "error",
            "GET /v1/contacts/search 500: statement timeout (canceling statement due to statement timeout)",
            **{"from": -9200, "to": -8800, "every_s": 50},
            pods=cp,
        ),
    ]
    return {
        "incident": incident("customer records not loading", "customer records", start),
        "expected": expected(
            "application",
            [
                "secret/crm-db-credentials",
                "crm-db-credentials",
                "deployment/contact-api",
                "contact-api",
            ],
            "password authentication failed",
            "Vault rotated crm_app's database password 24 min ago and external-secrets updated the Secret crm-db-credentials, but contact-api reads DB_PASSWORD from an env var at start and its pods are 9 days old: they still hold the old password. As Hikari recycles connections (maxLifetime 30m) each new one is refused (password authentication failed for user crm_app), the pool drains and requests time out. crm-web's 500s and release, mail-sync's IMAP drops and the old statement timeouts are not the cause.",
            [
                'contact-api and crm-db: FATAL: password authentication failed for user "crm_app"',
                "vault rotated database/static-roles/crm_app; ExternalSecret crm-db-credentials synced 24 min ago",
                "contact-api pods 9d old, DB_PASSWORD from secretKeyRef (env, read at start)",
            ],
            "Restart contact-api (kubectl rollout restart) to pick up the new password; add a Reloader annotation or mount the Secret as a file the pool re-reads.",
        ),
        "kubernetes": k8s,
        "logs": logs(seed=183, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "contact-api",
                    "rps": 45,
                    "errors": {"500": (0.001, 0.38)},
                    "latency": (0.03, 2.6),
                    "change_at": start + 500,
                },
                {
                    "name": "crm-web",
                    "rps": 30,
                    "errors": {"500": (0.001, 0.36)},
                    "latency": (0.1, 2.9),
                    "change_at": start + 500,
                },
            ],
            start=start,
            seed=183,
            gauges=[
                {
                    "name": "hikaricp_connections_active",
                    "labels": {"service": "contact-api", "pool": "HikariPool-1"},
                    "before": 6,
                    "after": 1,
                    "change_at": start + 300,
                },
                {
                    "name": "hikaricp_connections_creation_failures_total:rate5m",
                    "labels": {"service": "contact-api"},
                    "before": 0.0,
                    "after": 0.09,
                },
            ],
        ),
        "runbooks": {
            "crm-db-pool.md": runbook(
                "contact-api pool timeouts",
                "Pool timeouts mean crm-db is slow: look for long-running queries in pg_stat_activity and kill the offenders; raise DB_POOL_MAX to 20 if the DB is healthy.",
            )
        },
    }


# =================================================================================================
# 4. A schema migration that did not run: orders-api 31.0 reads a new column; its migration Job
#    (an Argo CD sync-wave, not a blocking hook) hit a lock timeout and failed, but the Deployment
#    rolled anyway. The incident says "order history".
# =================================================================================================


@scenario("migration-job-failed")
def migration_job_failed() -> dict[str, Any]:
    start = -960
    ns = "orders"
    img = "ghcr.io/parcelo/orders-api:31.0.0"
    oa = app(
        "orders-api",
        image=img,
        port=8000,
        rs="6b4d9f7c8",
        cluster_ip="10.100.51.10",
        pods=[
            ("c2xvh", "1/1", "Running", "0", "16m", 0),
            ("k9mwr", "1/1", "Running", "0", "16m", 1),
            ("p5tzd", "1/1", "Running", "0", "15m", 2),
        ],
    )
    tw = app(
        "tracking-web",
        image="ghcr.io/parcelo/tracking-web:12.4.0",
        port=3000,
        rs="5f8b7c6d9",
        cluster_ip="10.100.51.4",
        pods=[
            ("b7nql", "1/1", "Running", "0", "3h", 0),
            ("r3kzx", "1/1", "Running", "0", "3h", 2),
        ],
    )
    k8s = k8s_case(ns, NODES_FRA, [oa, tw], 184)
    k8s[f"kubectl get jobs -n {ns} -o wide"] = table(
        [
            [
                "NAME",
                "STATUS",
                "COMPLETIONS",
                "DURATION",
                "AGE",
                "CONTAINERS",
                "IMAGES",
                "SELECTOR",
            ],
            [
                "orders-api-migrate-31-0-0",
                "Failed",
                "0/1",
                "17m",
                "17m",
                "migrate",
                img,
                "batch.kubernetes.io/controller-uid=4c1e…",
            ],
            [
                "orders-api-migrate-30-7-2",
                "Complete",
                "1/1",
                "41s",
                "6d",
                "migrate",
                "ghcr.io/parcelo/orders-api:30.7.2",
                "batch.kubernetes.io/controller-uid=9ad2…",
            ],
        ]
    )
    lock = 'psycopg.errors.LockNotAvailable: canceling statement due to lock timeout\nCONTEXT:  while executing: ALTER TABLE "orders" ADD COLUMN "delivery_window_id" bigint NULL'
    k8s[f"kubectl logs orders-api-migrate-31-0-0-6xq2d -n {ns} --tail=1000"] = podlog(
        [
            (start - 60, "Operations to perform: Apply all migrations: orders"),
            (start - 60, "Running migrations:"),
            (
                start - 58,
                "  Applying orders.0142_delivery_window... (SET lock_timeout = '5s')",
            ),
            (start - 53, lock),
            (
                start - 53,
                "django.db.utils.OperationalError: canceling statement due to lock timeout",
            ),
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "17m",
                "Normal",
                "SuccessfulCreate",
                "Job/orders-api-migrate-31-0-0",
                "Created pod: orders-api-migrate-31-0-0-6xq2d",
            ),
            (
                "16m",
                "Warning",
                "BackoffLimitExceeded",
                "Job/orders-api-migrate-31-0-0",
                "Job has reached the specified backoff limit",
            ),
            (
                "16m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/orders-api",
                "Scaled up replica set orders-api-6b4d9f7c8 to 3",
            ),
            (
                "15m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/orders-api",
                "Scaled down replica set orders-api-7d8c5b9f4 to 0 from 3",
            ),
        ]
    )
    op = [pod_name(oa, s[0]) for s in oa["pods"]]
    col = 'psycopg.errors.UndefinedColumn: column orders.delivery_window_id does not exist LINE 1: ...orders"."status", "orders"."delivery_window_id" FROM "orders" ...'
    k8s[f"kubectl logs {op[0]} -n {ns} --tail=1000"] = podlog(
        [
            (
                start + 20 * i,
                f"ERROR django.request: Internal Server Error: /api/v2/orders/ {col}",
            )
            for i in range(40)
        ]
    )
    twp = [pod_name(tw, s[0]) for s in tw["pods"]]
    bgs = [
        bg(
            "orders-api",
            op,
            ["POST /api/v2/orders/ 201 {ms}ms", "GET /api/v2/healthz 200 2ms"],
            4,
        ),
        bg("tracking-web", twp, ["GET /track/{n} 200 {ms}ms"], 3),
        bg(
            "orders-db",
            ["orders-db-0"],
            ["LOG:  checkpoint complete: wrote {n} buffers"],
            300,
        ),
    ]
    evs = [
        ev(
            "argocd",
            "info",
            "application orders/orders-api sync to 31.0.0: wave 0 Job orders-api-migrate-31-0-0, wave 0 Deployment orders-api (hook: none)",
            at=start - 61,
        ),
        ev(
            "orders-db",
            "warn",
            "LOG:  process 48213 still waiting for AccessExclusiveLock on relation 16412 of database 16384 after 1000.112 ms; blocking process 39110 (autovacuum: VACUUM public.orders (to prevent wraparound))",
            at=start - 55,
            pods=["orders-db-0"],
        ),
        ev(
            "orders-db",
            "error",
            "ERROR:  column orders.delivery_window_id does not exist at character 212",
            **{"from": start, "to": -2, "every_s": 2},
            pods=["orders-db-0"],
        ),
        ev(
            "orders-api",
            "error",
            f"Internal Server Error: /api/v2/orders/ {col}",
            **{"from": start, "to": -2, "every_s": 2},
            pods=op,
        ),
        ev(
            "tracking-web",
            "error",
            "GET /account/orders 502: orders-api answered 500",
            **{"from": start + 5, "to": -1, "every_s": 0.8},
            pods=twp,
        ),
        ev(
            "tracking-web",
            "info",
            "tracking-web 12.4.0 started (map tiles provider switch)",
            at=-10800,
            pods=twp,
        ),
        ev(
            "carrier-webhooks",
            "warn",
            "DHL webhook signature mismatch for shipment {n}, dropped",
            **{"from": -7000, "to": -10, "every_s": 200},
        ),
        ev(
            "orders-api",
            "error",
            "redis.exceptions.ConnectionError: Error 111 connecting to orders-cache:6379. Connection refused.",
            **{"from": -8400, "to": -8000, "every_s": 30},
            pods=["orders-api-7d8c5b9f4-a1b2c"],
        ),
    ]
    return {
        "incident": incident(
            "order history page errors",
            "order history",
            start,
            ["my orders shows an error"],
        ),
        "expected": expected(
            "application",
            [
                "job/orders-api-migrate-31-0-0",
                "orders-api-migrate-31-0-0",
                "deployment/orders-api",
                "orders-api",
            ],
            "does not exist",
            "orders-api 31.0.0 reads orders.delivery_window_id. Its migration Job ran in the same Argo CD wave as the Deployment (no blocking hook), waited on an autovacuum (to prevent wraparound) holding the orders table, hit its 5 s lock_timeout and failed (BackoffLimitExceeded). The Deployment rolled anyway, so every order query fails with column orders.delivery_window_id does not exist. tracking-web's 502s are the victim's; the DHL webhook warnings and the old Redis refusals are unrelated.",
            [
                "orders-api: UndefinedColumn: column orders.delivery_window_id does not exist",
                "Job orders-api-migrate-31-0-0 Failed (BackoffLimitExceeded): canceling statement due to lock timeout on ALTER TABLE orders",
                "orders-db: waiting for AccessExclusiveLock; blocking process autovacuum (to prevent wraparound)",
            ],
            "Roll orders-api back to 30.7.2, re-run the migration when the vacuum ends (or with a longer lock_timeout), and make the migration a PreSync hook so a failure blocks the rollout.",
        ),
        "kubernetes": k8s,
        "logs": logs(seed=184, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "orders-api",
                    "rps": 70,
                    "errors": {"500": (0.001, 0.55)},
                    "latency": (0.04, 0.03),
                },
                {
                    "name": "tracking-web",
                    "rps": 90,
                    "errors": {"502": (0.001, 0.41)},
                    "latency": (0.1, 0.08),
                },
            ],
            start=start,
            seed=184,
        ),
        "runbooks": {
            "orders-500.md": runbook(
                "orders-api 500s",
                "500s from orders-api after connection errors mean orders-cache is down: restart the orders-cache StatefulSet and flush the stale keys.",
            )
        },
    }


# =================================================================================================
# 5. Ephemeral-storage limit evictions: image-resizer 5.3 writes decoded frames to /tmp (an
#    emptyDir without sizeLimit) and no longer deletes them; pods pass their 2Gi ephemeral-storage
#    limit and the kubelet evicts them one after another. The node is fine. The incident says "photos".
# =================================================================================================


@scenario("ephemeral-storage-limit")
def ephemeral_storage_limit() -> dict[str, Any]:
    start = -1680
    ns = "media"
    img = "quay.io/snapfolk/image-resizer:5.3.0"
    ir = app(
        "image-resizer",
        image=img,
        port=8080,
        rs="9c6d7f8b5",
        cluster_ip="10.100.61.33",
        pods=[
            ("b3mvx", "0/1", "Error", "0", "31m", 0),
            ("f6kqz", "0/1", "Error", "0", "24m", 1),
            ("h1wnr", "0/1", "Error", "0", "17m", 2),
            ("l8ptc", "1/1", "Running", "0", "9m", 0),
            ("s5zdk", "1/1", "Running", "0", "4m", 1),
        ],
        desired=3,
    )
    ga = app(
        "gallery-api",
        image="quay.io/snapfolk/gallery-api:22.8.1",
        port=8080,
        rs="6d8c9b7f5",
        cluster_ip="10.100.61.9",
        pods=[
            ("c9qrt", "1/1", "Running", "0", "2d", 0),
            ("x4lmw", "1/1", "Running", "0", "2d", 2),
        ],
    )
    k8s = k8s_case(ns, NODES_FRA, [ir, ga], 185)
    evict = (
        "Pod ephemeral local storage usage exceeds the total limit of containers 2Gi. "
    )
    ip = [pod_name(ir, s[0]) for s in ir["pods"]]
    describe_pod(
        k8s,
        ns,
        ir,
        "h1wnr",
        NODES_FRA,
        status="Failed",
        state="    State:          Terminated\n      Reason:       ContainerStatusUnknown\n      Exit Code:    137",
        started=-1020,
        conditions=NOT_READY,
        extra=f"Reason:           Evicted\nMessage:          {evict}\n    Limits:\n      ephemeral-storage:  2Gi\n      memory:             1Gi\n",
        events_rows=[
            ("Warning", "Evicted", "3m", "kubelet", evict),
            ("Normal", "Killing", "3m", "kubelet", "Stopping container image-resizer"),
        ],
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                f"{(-start - 60 * i * 7) // 60}m",
                "Warning",
                "Evicted",
                f"Pod/{p}",
                evict,
            )
            for i, p in enumerate(ip[:3])
        ]
        + [
            (
                "9m",
                "Normal",
                "SuccessfulCreate",
                "ReplicaSet/image-resizer-9c6d7f8b5",
                f"Created pod: {ip[3]}",
            )
        ]
    )
    k8s[f"kubectl describe nodes {NODES_FRA[0][0]}"] = h5.node_describe(
        NODES_FRA[0][0], NODES_FRA[0][2]
    )
    gp = [pod_name(ga, s[0]) for s in ga["pods"]]
    bgs = [
        bg("image-resizer", ip[3:], ["POST /resize 200 {ms}ms (1080w webp)"], 3),
        bg("gallery-api", gp, ["GET /v1/albums/{n} 200 {ms}ms"], 3),
    ]
    evs = [
        ev(
            "image-resizer",
            "info",
            "image-resizer 5.3.0 started (libvips 8.16, frame cache in /tmp/frames)",
            at=start - 3000,
            pods=ip[:3],
        ),
        ev(
            "image-resizer",
            "warn",
            "tmp usage /tmp/frames {n} files, 1.{ms} GiB",
            **{"from": start - 1800, "to": -20, "every_s": 120},
            pods=ip,
        ),
        ev(
            "gallery-api",
            "error",
            "GET /v1/photos/{n}/thumb 502: image-resizer connection reset by peer",
            **{"from": start, "to": -2, "every_s": 1.4},
            pods=gp,
        ),
        ev(
            "gallery-api",
            "info",
            "gallery-api 22.8.1 config reload: cdn.ttl=3600",
            at=start - 900,
            pods=gp,
        ),
        ev(
            "face-tagger",
            "warn",
            "GPU queue wait {ms}0ms above 1s",
            **{"from": -7000, "to": -30, "every_s": 200},
        ),
        ev(
            "image-resizer",
            "error",
            "S3 GetObject snapfolk-originals: SlowDown (503)",
            **{"from": -9000, "to": -8700, "every_s": 40},
            pods=["image-resizer-7b5c8d9f6-old2q"],
        ),
    ]
    return {
        "incident": incident(
            "photos not loading", "photos", start, ["thumbnails broken"]
        ),
        "expected": expected(
            "application",
            [
                "deployment/image-resizer",
                "image-resizer",
                "replicaset/image-resizer-9c6d7f8b5",
            ],
            "ephemeral local storage usage exceeds",
            "image-resizer 5.3.0 caches decoded frames under /tmp/frames and never deletes them; each pod fills its writable layer past the container's 2Gi ephemeral-storage limit within ~7 minutes of load, and the kubelet evicts it (Pod ephemeral local storage usage exceeds the total limit of containers 2Gi), dropping in-flight resizes. The nodes have no DiskPressure. gallery-api's 502s are the victim's; its config reload, face-tagger's GPU waits and the old S3 SlowDown errors are unrelated.",
            [
                "Evicted: Pod ephemeral local storage usage exceeds the total limit of containers 2Gi",
                "image-resizer: tmp usage /tmp/frames growing since 5.3.0",
                "node conditions: no DiskPressure",
            ],
            "Roll image-resizer back to 5.2.x (or clean /tmp/frames after each job and mount an emptyDir with sizeLimit).",
        ),
        "kubernetes": k8s,
        "logs": logs(seed=185, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "image-resizer",
                    "rps": 25,
                    "errors": {"503": (0.001, 0.2)},
                    "latency": (0.2, 0.25),
                },
                {
                    "name": "gallery-api",
                    "rps": 80,
                    "errors": {"502": (0.001, 0.22)},
                    "latency": (0.05, 0.06),
                },
            ],
            start=start,
            seed=185,
            gauges=[
                {
                    "name": "container_fs_usage_bytes",
                    "labels": {
                        "service": "image-resizer",
                        "container": "image-resizer",
                    },
                    "before": 3e8,
                    "after": 2.1e9,
                    "cap": 2.15e9,
                    "change_at": start - 1800,
                },
            ],
        ),
        "runbooks": {
            "node-disk.md": runbook(
                "Node disk full",
                "Evictions for storage mean the node's disk is full: cordon the node, prune images with `crictl rmi --prune`, and uncordon.",
            )
        },
    }


# =================================================================================================
# 6. A hardening change breaks a writer: a security PR set readOnlyRootFilesystem: true on
#    pdf-renderer; fontconfig writes its cache under /app/.cache at start and the container exits
#    (EROFS). The incident says "statements".
# =================================================================================================


@scenario("readonly-rootfs-erofs")
def readonly_rootfs_erofs() -> dict[str, Any]:
    start = -1380
    ns = "documents"
    img = "ghcr.io/kontora/pdf-renderer:3.9.0"
    pr = app(
        "pdf-renderer",
        image=img,
        port=8080,
        rs="7d6f9c8b4",
        cluster_ip="10.100.70.15",
        pods=[
            ("g5trw", "0/1", "CrashLoopBackOff", "7 (2m ago)", "23m", 0),
            ("m8zqk", "0/1", "CrashLoopBackOff", "7 (1m ago)", "23m", 1),
        ],
        extra_rs=[
            (
                "pdf-renderer-5b8c7d6f9",
                "0",
                "0",
                "0",
                "60d",
                "pdf-renderer",
                "ghcr.io/kontora/pdf-renderer:3.9.0",
                "app=pdf-renderer,pod-template-hash=5b8c7d6f9",
            )
        ],
    )
    sa = app(
        "statement-api",
        image="ghcr.io/kontora/statement-api:14.2.3",
        port=8080,
        rs="6c9b7d5f8",
        cluster_ip="10.100.70.4",
        pods=[
            ("d2hxn", "1/1", "Running", "0", "3h", 0),
            ("v6kpl", "1/1", "Running", "0", "3h", 2),
        ],
    )
    k8s = k8s_case(ns, NODES_PDX, [pr, sa], 186)
    pp = [pod_name(pr, s[0]) for s in pr["pods"]]
    describe_pod(
        k8s,
        ns,
        pr,
        "g5trw",
        NODES_PDX,
        state=crashloop(1, "Error", -140, -138),
        started=-1370,
        restarts=7,
        conditions=NOT_READY,
        extra="    Security Context:\n      readOnlyRootFilesystem:  true\n      runAsNonRoot:            true\n",
        events_rows=[
            (
                "Warning",
                "BackOff",
                "1m (x95 over 22m)",
                "kubelet",
                "Back-off restarting failed container pdf-renderer in pod " + pp[0],
            )
        ],
    )
    k8s[f"kubectl logs {pp[0]} -n {ns} --previous --tail=1000"] = podlog(
        [
            (-139, "renderer 3.9.0 starting (chromium 131, fontconfig)"),
            (-139, "Fontconfig error: No writable cache directories"),
            (
                -138,
                "Error: EROFS: read-only file system, mkdir '/app/.cache/puppeteer'",
            ),
            (-138, "    at Object.mkdirSync (node:fs:1372:26)"),
            (-138, "process exited with code 1"),
        ]
    )
    k8s[f"kubectl describe deployments pdf-renderer -n {ns}"] = deployment_describe(
        "pdf-renderer",
        ns,
        replicas="2 desired | 2 updated | 2 total | 0 available | 2 unavailable",
        revision=12,
        containers=container_text("pdf-renderer", img, 8080, limits="memory:  1Gi")
        + "\n    Security Context:\n      readOnlyRootFilesystem:  true\n      runAsNonRoot:            true",
        conditions=[
            ("Available", "False", "MinimumReplicasUnavailable"),
            ("Progressing", "True", "ReplicaSetUpdated"),
        ],
        old_rs="pdf-renderer-5b8c7d6f9 (0/0 replicas created)",
        new_rs="pdf-renderer-7d6f9c8b4 (2/2 replicas created)",
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "23m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/pdf-renderer",
                "Scaled up replica set pdf-renderer-7d6f9c8b4 to 2",
            ),
            *[
                (
                    "1m (x95 over 22m)",
                    "Warning",
                    "BackOff",
                    f"Pod/{p}",
                    f"Back-off restarting failed container pdf-renderer in pod {p}",
                )
                for p in pp
            ],
        ]
    )
    sp = [pod_name(sa, s[0]) for s in sa["pods"]]
    bgs = [bg("statement-api", sp, ["GET /v1/accounts/{n}/statements 200 {ms}ms"], 3)]
    evs = [
        ev(
            "argocd",
            "info",
            "documents/pdf-renderer synced: commit 71c0e3a 'security: set readOnlyRootFilesystem on all workloads (SEC-412)'",
            at=start - 10,
        ),
        ev(
            "statement-api",
            "error",
            "GET /v1/statements/{n}.pdf 503: pdf-renderer unavailable (no healthy upstream)",
            **{"from": start + 40, "to": -2, "every_s": 1.5},
            pods=sp,
        ),
        ev(
            "statement-api",
            "warn",
            "render queue depth {n} (consumer pdf-renderer not acking)",
            **{"from": start + 60, "to": -5, "every_s": 20},
            pods=sp,
        ),
        ev(
            "statement-api",
            "info",
            "statement-api 14.2.3 started (IBAN masking)",
            at=start - 2500,
            pods=sp,
        ),
        ev(
            "ledger-export",
            "warn",
            "export batch {n} took {ms}s, above 60s SLO",
            **{"from": -7000, "to": -20, "every_s": 400},
        ),
        ev(
            "pdf-renderer",
            "error",
            "TimeoutError: Navigation timeout of 30000 ms exceeded (template statement-v4)",
            **{"from": -9100, "to": -8700, "every_s": 40},
            pods=["pdf-renderer-5b8c7d6f9-q1x8z"],
        ),
    ]
    return {
        "incident": incident("statements download failing", "statements", start),
        "expected": expected(
            "application",
            [
                "deployment/pdf-renderer",
                "pdf-renderer",
                "replicaset/pdf-renderer-7d6f9c8b4",
            ],
            "read-only file system",
            "A hardening commit (SEC-412, synced 23 min ago) set readOnlyRootFilesystem: true on pdf-renderer. At start it creates its browser and font caches under /app/.cache, which is now read-only, and exits (EROFS: read-only file system, mkdir '/app/.cache/puppeteer'); both pods crash-loop and statement-api answers 503. The image did not change; statement-api's 503s, queue warnings and release, ledger-export's slowness and the old navigation timeouts are not the cause.",
            [
                "pdf-renderer previous log: EROFS: read-only file system, mkdir '/app/.cache/puppeteer'",
                "Security Context readOnlyRootFilesystem: true since commit 71c0e3a",
                "statement-api: pdf-renderer unavailable (no healthy upstream)",
            ],
            "Mount an emptyDir at /app/.cache (and /tmp) for pdf-renderer, or revert the flag for it until it does; then roll out.",
        ),
        "kubernetes": k8s,
        "logs": logs(seed=186, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "statement-api",
                    "rps": 20,
                    "errors": {"503": (0.001, 0.6)},
                    "latency": (0.4, 0.05),
                }
            ],
            start=start,
            seed=186,
        ),
        "runbooks": {
            "pdf-timeouts.md": runbook(
                "Statement PDFs failing",
                "PDF failures are template timeouts: raise RENDER_TIMEOUT_MS on pdf-renderer to 60000 and purge the template cache.",
            )
        },
    }


# =================================================================================================
# 7. An Ingress no controller serves: the partner portal's Ingress was migrated from the
#    kubernetes.io/ingress.class annotation to spec.ingressClassName with a typo ("ngnix-public");
#    the controller ignores it, and the host falls through to the default backend's 404.
#    The incident says "partner login".
# =================================================================================================


@scenario("ingress-class-typo")
def ingress_class_typo() -> dict[str, Any]:
    start = -900
    ns = "partners"
    pp_ = app(
        "partner-portal",
        image="ghcr.io/tradewind/partner-portal:9.1.0",
        port=8080,
        rs="5c7d8b9f6",
        cluster_ip="10.100.80.20",
        pods=[
            ("b8wkq", "1/1", "Running", "0", "6d", 0),
            ("t3mzx", "1/1", "Running", "0", "6d", 1),
        ],
    )
    pa = app(
        "partner-api",
        image="ghcr.io/tradewind/partner-api:17.0.4",
        port=8080,
        rs="7b6c9d8f5",
        cluster_ip="10.100.80.31",
        pods=[
            ("f4nrl", "1/1", "Running", "0", "16m", 1),
            ("w9cqd", "1/1", "Running", "0", "16m", 2),
        ],
    )
    k8s = k8s_case(ns, NODES_FRA, [pp_, pa], 187)
    k8s[f"kubectl get ingresses -n {ns}"] = table(
        [
            ["NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"],
            [
                "partner-api",
                "nginx-public",
                "api.partners.tradewind.example",
                "k8s-ingress-7f1c2a9e.elb.eu-central-1.amazonaws.com",
                "80, 443",
                "420d",
            ],
            [
                "partner-portal",
                "ngnix-public",
                "partners.tradewind.example",
                "",
                "80, 443",
                "420d",
            ],
        ]
    )
    k8s[f"kubectl describe ingresses partner-portal -n {ns}"] = (
        "Name:             partner-portal\nLabels:           app=partner-portal\nNamespace:        partners\nAddress:          \n"
        "Ingress Class:    ngnix-public\nDefault backend:  <default>\nTLS:\n  partners-tls terminates partners.tradewind.example\nRules:\n"
        "  Host                        Path  Backends\n  ----                        ----  --------\n"
        "  partners.tradewind.example  \n                              /   partner-portal:8080 (10.187.1.44:8080,10.187.2.90:8080)\n"
        "Annotations:      argocd.argoproj.io/tracking-id: partners:networking.k8s.io/Ingress:partners/partner-portal\n"
        "Events:           <none>\n"
    )
    ign = 'Ignoring ingress because of error while validating ingress class" ingress="partners/partner-portal" error="no object matching key \\"ngnix-public\\" in local store"'
    k8s[
        "kubectl logs ingress-nginx-controller-6f8d9c7b5-x2kqv -n ingress-nginx --tail=1000"
    ] = podlog(
        [(start - 30, 'I1206 store.go:436] "' + ign)]
        + [
            (
                start + 60 * i,
                '"GET / HTTP/2.0" 404 146 "-" host=partners.tradewind.example upstream=default-backend',
            )
            for i in range(12)
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "16m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/partner-api",
                "Scaled up replica set partner-api-7b6c9d8f5 to 2",
            )
        ]
    )
    ppp = [pod_name(pp_, s[0]) for s in pp_["pods"]]
    pap = [pod_name(pa, s[0]) for s in pa["pods"]]
    bgs = [
        bg(
            "partner-api",
            pap,
            ["GET /v2/shipments 200 {ms}ms", "POST /v2/quotes 201 {ms}ms"],
            3,
        ),
        bg(
            "partner-portal",
            ppp,
            ["GET /dashboard 200 {ms}ms", "GET /login 200 {ms}ms"],
            4,
            until=start,
        ),
        bg(
            "ingress-nginx",
            ["ingress-nginx-controller-6f8d9c7b5-x2kqv"],
            ['"GET /v2/shipments HTTP/2.0" 200 host=api.partners.tradewind.example'],
            3,
        ),
    ]
    evs = [
        ev(
            "argocd",
            "info",
            "partners/partner-portal synced: commit 2be94d1 'migrate ingress.class annotations to ingressClassName'",
            at=start - 40,
        ),
        ev(
            "ingress-nginx",
            "info",
            ign,
            at=start - 30,
            pods=["ingress-nginx-controller-6f8d9c7b5-x2kqv"],
        ),
        ev(
            "ingress-nginx",
            "warn",
            '"GET /login HTTP/2.0" 404 146 host=partners.tradewind.example upstream=default-backend',
            **{"from": start, "to": -2, "every_s": 2},
            pods=["ingress-nginx-controller-6f8d9c7b5-x2kqv"],
        ),
        ev(
            "partner-api",
            "info",
            "partner-api 17.0.4 started (quote API v2.3)",
            at=start - 60,
            pods=pap,
        ),
        ev(
            "partner-api",
            "error",
            "POST /v2/quotes 422: invalid incoterm 'DPP' for partner {n}",
            **{"from": -7000, "to": -10, "every_s": 45},
            pods=pap,
        ),
        ev(
            "sso-bridge",
            "error",
            "SAML assertion from partner idp-{n} expired (NotOnOrAfter)",
            **{"from": start, "to": -5, "every_s": 30},
        ),
        ev(
            "partner-portal",
            "error",
            "session store redis timeout after 200ms",
            **{"from": -9500, "to": -9100, "every_s": 40},
            pods=ppp,
        ),
    ]
    return {
        "incident": incident("partner login page 404", "partner login", start),
        "expected": expected(
            "connect",
            ["ingress/partner-portal", "partner-portal"],
            "ngnix-public",
            "Commit 2be94d1 (synced 16 min ago) moved the partner-portal Ingress from the ingress.class annotation to spec.ingressClassName, spelled ngnix-public. No IngressClass has that name, so ingress-nginx ignores the Ingress (no ADDRESS; 'Ignoring ingress because of error while validating ingress class') and partners.tradewind.example falls through to the default backend: every page 404. partner-portal's pods are healthy; partner-api's release and 422s, sso-bridge's SAML expiries and the old Redis timeouts are not the cause.",
            [
                "kubectl get ingresses: partner-portal CLASS ngnix-public, no ADDRESS",
                'ingress-nginx: Ignoring ingress partners/partner-portal: no object matching key "ngnix-public"',
                "ingress-nginx: host partners.tradewind.example → default-backend 404",
            ],
            "Fix spec.ingressClassName to nginx-public and sync; add a policy that rejects Ingresses naming an unknown class.",
        ),
        "kubernetes": k8s,
        "logs": logs(seed=187, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "partner-portal",
                    "rps": 15,
                    "rps_after": 0.01,
                    "latency": (0.06, 0.06),
                },
                {
                    "name": "partner-api",
                    "rps": 40,
                    "errors": {"422": (0.02, 0.02)},
                    "latency": (0.05, 0.05),
                },
            ],
            start=start,
            seed=187,
        ),
        "runbooks": {
            "partner-login.md": runbook(
                "Partner login broken",
                "Partner login problems are SAML: check sso-bridge for expired assertions and ask the partner to re-sync the IdP clock and metadata.",
            )
        },
    }


# =================================================================================================
# 8. A VerticalPodAutoscaler in Auto mode shrinks a limit: over a quiet weekend quote-engine's VPA
#    recommended 300Mi and evicted the pods to apply it; Monday's price-list load needs ~700Mi and
#    the pods are OOMKilled. The incident says "quotes".
# =================================================================================================


@scenario("vpa-shrinks-memory")
def vpa_shrinks_memory() -> dict[str, Any]:
    start = -1200
    ns = "pricing"
    img = "ghcr.io/haulmark/quote-engine:6.4.2"
    qe = app(
        "quote-engine",
        image=img,
        port=8080,
        rs="6f8b9c7d5",
        cluster_ip="10.100.90.12",
        pods=[
            ("c5xqn", "0/1", "CrashLoopBackOff", "6 (1m ago)", "5h", 0),
            ("k2wzr", "0/1", "CrashLoopBackOff", "5 (3m ago)", "5h", 1),
            ("r7mtp", "1/1", "Running", "6 (40s ago)", "5h", 2),
        ],
    )
    qw = app(
        "quote-web",
        image="ghcr.io/haulmark/quote-web:40.0.2",
        port=3000,
        rs="5d9c8b7f6",
        cluster_ip="10.100.90.3",
        pods=[
            ("h3lwz", "1/1", "Running", "0", "35m", 0),
            ("p8kvs", "1/1", "Running", "0", "35m", 1),
        ],
    )
    k8s = k8s_case(ns, NODES_SYD, [qe, qw], 188)
    qp = [pod_name(qe, s[0]) for s in qe["pods"]]
    describe_pod(
        k8s,
        ns,
        qe,
        "c5xqn",
        NODES_SYD,
        state=crashloop(137, "OOMKilled", -150, -61),
        started=-18000,
        restarts=6,
        conditions=NOT_READY,
        extra=(
            "Annotations:      vpaObservedContainers: quote-engine\n"
            "                  vpaUpdates: Pod resources updated by quote-engine: container 0: cpu request, memory request, memory limit\n"
            "    Limits:\n      memory:  300Mi\n    Requests:\n      cpu:     120m\n      memory:  300Mi\n"
        ),
        events_rows=[
            (
                "Warning",
                "BackOff",
                "1m (x30 over 20m)",
                "kubelet",
                f"Back-off restarting failed container quote-engine in pod {qp[0]}",
            )
        ],
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "5h",
                "Normal",
                "EvictedByVPA",
                f"Pod/quote-engine-6f8b9c7d5-{s}",
                "Pod was evicted by VPA Updater to apply resource recommendation.",
            )
            for s in ("a1qzx", "d4wnm", "g7lpt")
        ]
        + [
            (
                "1m (x30 over 20m)",
                "Warning",
                "BackOff",
                f"Pod/{p}",
                f"Back-off restarting failed container quote-engine in pod {p}",
            )
            for p in qp[:2]
        ]
    )
    qwp = [pod_name(qw, s[0]) for s in qw["pods"]]
    bgs = [
        bg("quote-engine", qp, ["POST /v1/quotes 200 {ms}ms"], 4),
        bg("quote-web", qwp, ["GET /quote 200 {ms}ms"], 3),
    ]
    evs = [
        ev(
            "vpa-updater",
            "info",
            "evicting pod pricing/quote-engine-6f8b9c7d5-a1qzx to apply recommendation memory 300Mi (was 1Gi), cpu 120m",
            at=-18100,
        ),
        ev(
            "quote-engine",
            "info",
            "loaded price list 2026-W49: {n} lanes, heap {ms}0MB",
            at=start - 60,
            pods=qp,
        ),
        ev(
            "kernel",
            "warn",
            "Memory cgroup out of memory: Killed process {n} (java) total-vm:3.1GB, anon-rss:306MB, constraint=CONSTRAINT_MEMCG",
            **{"from": start, "to": -10, "every_s": 70},
            labels={"node": NODES_SYD[0][0]},
        ),
        ev(
            "quote-web",
            "error",
            "POST /quote 502: quote-engine connection reset by peer",
            **{"from": start + 10, "to": -2, "every_s": 1.2},
            pods=qwp,
        ),
        ev(
            "quote-web",
            "info",
            "quote-web 40.0.2 started (currency switcher)",
            at=start - 1000,
            pods=qwp,
        ),
        ev(
            "fx-rates",
            "warn",
            "ECB feed stale by {n}s, serving cached rates",
            **{"from": -7000, "to": -20, "every_s": 300},
        ),
        ev(
            "quote-engine",
            "error",
            "lane lookup failed: carrier-db statement timeout",
            **{"from": -9000, "to": -8600, "every_s": 60},
            pods=qp,
        ),
    ]
    return {
        "incident": incident(
            "quotes failing", "quotes", start, ["customers can't get a price"]
        ),
        "expected": expected(
            "platform",
            [
                "verticalpodautoscaler/quote-engine",
                "quote-engine",
                "deployment/quote-engine",
            ],
            "300Mi",
            "quote-engine's VerticalPodAutoscaler runs in Auto mode. After a quiet weekend it recommended 300Mi and, 5 h ago, evicted the pods to apply it (memory limit 1Gi -> 300Mi, vpaUpdates annotation). Loading Monday's price list needs ~700Mi, so the pods are OOMKilled (exit 137) and crash-loop. quote-web's 502s and release, the stale ECB feed and the old carrier-db timeouts are not the cause.",
            [
                "quote-engine Last State OOMKilled, exit 137, Limits memory 300Mi; vpaUpdates: Pod resources updated by quote-engine",
                "VPA quote-engine mode Auto, MEM 300Mi; EvictedByVPA 5h ago",
                "kernel: Memory cgroup out of memory: Killed process (java) anon-rss:306MB",
            ],
            "Set the VPA's updateMode to Off/Initial (or a minAllowed memory of 1Gi) and restart quote-engine with a 1Gi limit.",
        ),
        "kubernetes": k8s,
        "logs": logs(seed=188, background=bgs, events=evs),
        "metrics": metrics(
            [
                {
                    "name": "quote-engine",
                    "rps": 30,
                    "errors": {"503": (0.001, 0.45)},
                    "latency": (0.15, 0.2),
                },
                {
                    "name": "quote-web",
                    "rps": 35,
                    "errors": {"502": (0.001, 0.47)},
                    "latency": (0.2, 0.3),
                },
            ],
            start=start,
            seed=188,
            gauges=[
                {
                    "name": "kube_pod_container_resource_limits",
                    "labels": {"service": "quote-engine", "resource": "memory"},
                    "before": 1073741824,
                    "after": 314572800,
                    "noise": 0.0,
                    "change_at": -18100,
                },
            ],
        ),
        "runbooks": {
            "quote-errors.md": runbook(
                "Quote errors",
                "Quote failures follow FX feed problems: if fx-rates serves stale rates, restart fx-rates and clear the quote cache.",
            )
        },
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
) -> dict[str, Any]:
    return {
        "incident": inc,
        "expected": exp,
        "logs": logs(seed=seed, background=bgs, events=evs),
        "metrics": metrics(services, start=start, seed=seed, gauges=gauges),
        "runbooks": books,
    }


# =================================================================================================
# 9. A full log volume on one host: notify-api runs on three VMs; on ntf-03 /var/log filled up
#    (logrotate's postrotate failed for days) and the app's synchronous file logger fails every
#    request there. One host in three errors. The incident says "push notifications".
# =================================================================================================


@scenario("log-volume-full-one-host")
def log_volume_full_one_host() -> dict[str, Any]:
    start = -1560
    hosts = ["ntf-01", "ntf-02", "ntf-03"]
    enospc = "OSError: [Errno 28] No space left on device: '/var/log/notify-api/access.log' (host ntf-03, /var/log 100% used)"
    return simple(
        189,
        start,
        incident("push notifications not arriving", "push notifications", start),
        expected(
            "app",
            ["notify-api", "ntf-03"],
            "No space left on device",
            "On host ntf-03 the /var/log volume is full: logrotate's postrotate has failed for days (stale pid file), so access.log was never rotated, and since 26 min ago notify-api's synchronous file logger raises No space left on device on every request there. The load balancer keeps sending a third of the traffic to ntf-03, which answers 500. ntf-01/02 are fine; mobile-gateway's errors are the victim's; apns-relay's release, the FCM quota warnings and the old APNs TLS errors are not the cause.",
            [
                "notify-api on ntf-03: [Errno 28] No space left on device: '/var/log/notify-api/access.log'",
                "node_filesystem_avail_bytes{host=ntf-03,mountpoint=/var/log} = 0",
                "logrotate on ntf-03: error running postrotate script (days)",
            ],
            "Free /var/log on ntf-03 (truncate/rotate access.log), fix logrotate's postrotate, and take ntf-03 out of the pool until it is healthy.",
        ),
        [
            bg("notify-api", hosts, ["POST /v1/push 202 {ms}ms"], 3, until=start),
            bg(
                "notify-api",
                hosts[:2],
                ["POST /v1/push 202 {ms}ms"],
                3,
                **{"from": start},
            ),
            bg("mobile-gateway", ["mgw-1", "mgw-2"], ["POST /notify 202 {ms}ms"], 3),
        ],
        [
            ev(
                "logrotate",
                "error",
                "error: error running shared postrotate script for '/var/log/notify-api/*.log' (kill: (1873): No such process)",
                **{"from": -7200, "to": -100, "every_s": 3600},
                labels={"host": "ntf-03"},
            ),
            ev(
                "notify-api",
                "warn",
                "log volume /var/log 9{n}% used",
                **{"from": start - 1800, "to": start, "every_s": 300},
                pods=["ntf-03"],
            ),
            ev(
                "notify-api",
                "error",
                f"POST /v1/push 500: {enospc}",
                **{"from": start, "to": -2, "every_s": 2.5},
                pods=["ntf-03"],
            ),
            ev(
                "mobile-gateway",
                "error",
                "POST /notify 502: notify-api answered 500 (upstream 10.12.4.33:8080)",
                **{"from": start + 5, "to": -1, "every_s": 2.2},
                pods=["mgw-1", "mgw-2"],
            ),
            ev(
                "apns-relay",
                "info",
                "apns-relay 3.2.0 started (HTTP/2 keep-alive 60s)",
                at=start - 1400,
            ),
            ev(
                "notify-api",
                "warn",
                "FCM quota at 8{ms}% of daily project limit",
                **{"from": -7000, "to": -30, "every_s": 600},
                pods=hosts,
            ),
            ev(
                "apns-relay",
                "error",
                "APNs TLS handshake failed: certificate verify failed (api.push.apple.com)",
                **{"from": -9800, "to": -9400, "every_s": 40},
            ),
        ],
        [
            {
                "name": "notify-api",
                "rps": 60,
                "errors": {"500": (0.001, 0.33)},
                "latency": (0.02, 0.02),
            },
            {
                "name": "mobile-gateway",
                "rps": 60,
                "errors": {"502": (0.001, 0.33)},
                "latency": (0.04, 0.04),
            },
        ],
        [
            {
                "name": "node_filesystem_avail_bytes",
                "labels": {"host": "ntf-03", "mountpoint": "/var/log"},
                "before": 9e8,
                "after": 0,
                "noise": 0.0,
            },
            {
                "name": "node_filesystem_avail_bytes",
                "labels": {"host": "ntf-01", "mountpoint": "/var/log"},
                "before": 1.6e10,
                "after": 1.6e10,
            },
        ],
        {
            "push.md": runbook(
                "Push notifications delayed",
                "Push delays are APNs or FCM: check apns-relay for TLS errors and the FCM quota; restart apns-relay if its HTTP/2 connections are stuck.",
            )
        },
    )


# =================================================================================================
# 10. A regular expression that backtracks: profile-api 9.4 validates display names with
#     ^([\w .'-]+)*$; names with a trailing emoji make it backtrack for seconds and block the event
#     loop. CPU is pinned, everything on the service slows. The incident says "sign-up".
# =================================================================================================


@scenario("regex-backtracking-cpu")
def regex_backtracking_cpu() -> dict[str, Any]:
    start = -1020
    pods = ["profile-api-1", "profile-api-2", "profile-api-3"]
    return simple(
        190,
        start,
        incident(
            "sign-up very slow", "sign-up", start, ["registration spinner never ends"]
        ),
        expected(
            "app",
            ["profile-api"],
            "event loop blocked",
            "profile-api 9.4.0 (deployed 40 min ago) validates display names with the pattern ^([\\w .'-]+)*$, whose nested quantifier backtracks exponentially when a name ends in a character outside the class (an emoji). Such names now arrive from the new onboarding flow, each match blocks the Node event loop for seconds (event loop blocked … in validateDisplayName), CPU sits at 100% and every request on the instance queues. account-web's 504s are the victim's; auth-db's autovacuum warnings and the old SendGrid 429s are unrelated.",
            [
                "profile-api: event loop blocked for 2-4 s in validateDisplayName (regex)",
                "process_cpu_seconds rate of profile-api at 1.0 per instance since 9.4.0 traffic",
                "account-web: profile-api timed out after 5000ms",
            ],
            "Roll profile-api back to 9.3.x (or replace the pattern with a linear one / use RE2) and add a length limit before the match.",
        ),
        [
            bg(
                "profile-api",
                pods,
                ["POST /v1/profiles 201 {ms}ms", "GET /v1/profiles/{n} 200 {ms}ms"],
                3,
            ),
            bg(
                "account-web",
                ["account-web-a", "account-web-b"],
                ["GET /signup 200 {ms}ms"],
                3,
            ),
        ],
        [
            ev(
                "profile-api",
                "info",
                "profile-api 9.4.0 started (display name validation: /^([\\w .'-]+)*$/u)",
                at=start - 1400,
                pods=pods,
            ),
            ev(
                "profile-api",
                "warn",
                "event loop blocked for 3{ms}0ms in validateDisplayName (RegExp.test, input length 4{n})",
                **{"from": start, "to": -3, "every_s": 4},
                pods=pods,
            ),
            ev(
                "account-web",
                "error",
                "POST /signup 504: profile-api timed out after 5000ms",
                **{"from": start + 10, "to": -1, "every_s": 1.1},
                pods=["account-web-a", "account-web-b"],
            ),
            ev(
                "onboarding-web",
                "info",
                "onboarding-web 2.0.0 released: display name now prefilled from social profile",
                at=start - 300,
            ),
            ev(
                "auth-db",
                "warn",
                'LOG:  automatic vacuum of table "auth.sessions": index scans: 1, elapsed {ms} s',
                **{"from": -7000, "to": -60, "every_s": 600},
            ),
            ev(
                "profile-api",
                "error",
                "sendgrid 429 Too Many Requests (welcome mail), retry in 60s",
                **{"from": -9000, "to": -8600, "every_s": 40},
                pods=pods,
            ),
        ],
        [
            {
                "name": "profile-api",
                "rps": 40,
                "rps_after": 25,
                "errors": {"503": (0.001, 0.1)},
                "latency": (0.02, 3.2),
            },
            {
                "name": "account-web",
                "rps": 40,
                "errors": {"504": (0.001, 0.35)},
                "latency": (0.06, 3.5),
            },
        ],
        [
            {
                "name": "process_cpu_seconds_total:rate1m",
                "labels": {"service": "profile-api"},
                "before": 0.18,
                "after": 0.99,
                "cap": 1.0,
            },
            {
                "name": "nodejs_eventloop_lag_p99_seconds",
                "labels": {"service": "profile-api"},
                "before": 0.004,
                "after": 3.4,
            },
        ],
        {
            "signup-slow.md": runbook(
                "Sign-up slow",
                "Sign-up slowness is auth-db: check for vacuum and lock waits on auth.sessions and run a manual VACUUM ANALYZE if autovacuum lags.",
            )
        },
    )


# =================================================================================================
# 11. An N+1 query after a release: order-history 15.2 lazy-loads each order's lines, so the list
#     endpoint runs hundreds of queries per request (warn-level). The database gets busy and is the
#     loud one. The incident says "my purchases".
# =================================================================================================


@scenario("n-plus-one-release")
def n_plus_one_release() -> dict[str, Any]:
    start = -1800
    pods = ["order-history-7b9c-1", "order-history-7b9c-2"]
    return simple(
        191,
        start,
        incident("my purchases slow", "my purchases", start),
        expected(
            "app",
            ["order-history"],
            "SQL queries",
            "order-history 15.2.0 (deployed 34 min ago) dropped the joined fetch of order lines: GET /v2/orders now lazy-loads each order's lines and items, 300-600 SQL queries per request (warned by the query counter, never an error). Each query is fast, but the request takes seconds and the query rate on purchases-db rose ~40x, so the database's CPU and connection count look like the problem. purchases-db's warnings are the load's effect; web-bff's 504s, reviews-api's release and the old replica lag are not the cause.",
            [
                "order-history: GET /v2/orders executed 4xx SQL queries (threshold 50)",
                "pg_stat_statements calls rate on purchases-db ~40x since 15.2.0; mean exec time ~1 ms",
                "web-bff: order-history timed out",
            ],
            "Roll order-history back to 15.1.x (or restore the select_related/prefetch on order lines).",
        ),
        [
            bg("order-history", pods, ["GET /v2/orders/{n} 200 {ms}ms"], 3),
            bg(
                "web-bff",
                ["web-bff-1", "web-bff-2"],
                ["GET /account/purchases 200 {ms}ms"],
                3,
            ),
            bg(
                "purchases-db",
                ["purchases-db-primary"],
                [
                    "LOG:  duration: 0.{ms} ms  execute S_7: SELECT … FROM order_lines WHERE order_id = $1"
                ],
                5,
            ),
        ],
        [
            ev(
                "order-history",
                "info",
                "order-history 15.2.0 started (OrderSerializer v3: lines via property)",
                at=start - 240,
                pods=pods,
            ),
            ev(
                "order-history",
                "warn",
                "GET /v2/orders executed 4{ms} SQL queries (threshold 50), {n}ms",
                **{"from": start, "to": -3, "every_s": 2},
                pods=pods,
            ),
            ev(
                "purchases-db",
                "warn",
                "LOG:  connection count 1{ms} of 200 (80% warning)",
                **{"from": start + 60, "to": -10, "every_s": 30},
                pods=["purchases-db-primary"],
            ),
            ev(
                "purchases-db",
                "warn",
                "LOG:  CPU 9{ms}% on db.r6g.xlarge; top query: SELECT … FROM order_lines WHERE order_id = $1 (calls {n}/s)",
                **{"from": start + 120, "to": -10, "every_s": 60},
                pods=["purchases-db-primary"],
            ),
            ev(
                "web-bff",
                "error",
                "GET /account/purchases 504: order-history timed out after 4000ms",
                **{"from": start + 30, "to": -1, "every_s": 1.3},
                pods=["web-bff-1", "web-bff-2"],
            ),
            ev("reviews-api", "info", "reviews-api 4.8.0 started", at=start - 600),
            ev(
                "purchases-db",
                "error",
                "replica purchases-db-replica-1 lag 48s exceeds 30s",
                **{"from": -9400, "to": -9000, "every_s": 40},
                pods=["purchases-db-primary"],
            ),
        ],
        [
            {
                "name": "order-history",
                "rps": 35,
                "errors": {"503": (0.001, 0.05)},
                "latency": (0.06, 3.1),
                "change_at": start - 240,
            },
            {
                "name": "web-bff",
                "rps": 80,
                "errors": {"504": (0.001, 0.2)},
                "latency": (0.1, 3.3),
            },
        ],
        [
            {
                "name": "pg_stat_statements_calls:rate1m",
                "labels": {
                    "service": "purchases-db",
                    "query": "SELECT … FROM order_lines WHERE order_id = $1",
                },
                "before": 40,
                "after": 1700,
                "change_at": start - 240,
            },
            {
                "name": "pg_stat_statements_mean_exec_time_ms",
                "labels": {"service": "purchases-db"},
                "before": 1.1,
                "after": 1.3,
            },
            {
                "name": "db_cpu_utilization",
                "labels": {"service": "purchases-db"},
                "before": 0.22,
                "after": 0.93,
            },
        ],
        {
            "db-cpu.md": runbook(
                "purchases-db CPU high",
                "High CPU on purchases-db: scale the instance up one size (db.r6g.2xlarge) and fail over to the replica during the change.",
            )
        },
    )


# =================================================================================================
# 12. A circuit breaker that never closes: a config push set checkout-svc's inventory breaker
#     permittedNumberOfCallsInHalfOpenState to 0; a 20 s inventory blip opened it and it cannot
#     recover. inventory is healthy. The incident says "add to basket".
# =================================================================================================


@scenario("circuit-breaker-stuck-open")
def circuit_breaker_stuck_open() -> dict[str, Any]:
    start = -1440
    pods = ["checkout-svc-1", "checkout-svc-2", "checkout-svc-3"]
    return simple(
        192,
        start,
        incident("can't add to basket", "add to basket", start),
        expected(
            "app",
            ["checkout-svc", "resilience4j.circuitbreaker.instances.inventory"],
            "does not permit further calls",
            "A config push 3 h ago set checkout-svc's inventory breaker to permittedNumberOfCallsInHalfOpenState=0 (a typo for 10). When inventory restarted for 20 s at the start, the breaker opened; in half-open it may try no call, so it goes straight back to OPEN and every stock check fails fast with CallNotPermittedException (CircuitBreaker 'inventory' is OPEN and does not permit further calls). inventory itself answers 200 to everyone else. The inventory restart was the trigger; shop-web's errors are the victim's; the loyalty warnings and old Kafka errors are unrelated.",
            [
                "checkout-svc: CircuitBreaker 'inventory' is OPEN and does not permit further calls",
                "config-server: permittedNumberOfCallsInHalfOpenState 10 -> 0 for checkout-svc",
                "inventory: 200s to other callers; its restart lasted 20 s",
            ],
            "Restore permittedNumberOfCallsInHalfOpenState=10 and refresh checkout-svc (or force the breaker closed via the actuator).",
        ),
        [
            bg("checkout-svc", pods, ["GET /basket/{n} 200 {ms}ms"], 3),
            bg(
                "inventory",
                ["inventory-a", "inventory-b"],
                [
                    "GET /v1/stock/{n} 200 {ms}ms (caller=fulfilment)",
                    "GET /v1/stock/{n} 200 {ms}ms (caller=search)",
                ],
                3,
            ),
            bg(
                "inventory",
                ["inventory-a", "inventory-b"],
                ["GET /v1/stock/{n} 200 {ms}ms (caller=checkout-svc)"],
                3,
                until=start,
            ),
        ],
        [
            ev(
                "config-server",
                "info",
                "checkout-svc prod: resilience4j.circuitbreaker.instances.inventory.permittedNumberOfCallsInHalfOpenState 10 -> 0 (commit c81d0fa 'tune breakers')",
                at=start - 10800,
            ),
            ev(
                "inventory",
                "info",
                "inventory 8.1.3 restarting (JVM flags change); ready in 20s",
                at=start - 25,
                pods=["inventory-a"],
            ),
            ev(
                "checkout-svc",
                "warn",
                "CircuitBreaker 'inventory' changed state from CLOSED to OPEN (failure rate 64.0%)",
                at=start,
                pods=pods,
            ),
            ev(
                "checkout-svc",
                "warn",
                "CircuitBreaker 'inventory' changed state from OPEN to HALF_OPEN; permitted calls 0; changed state from HALF_OPEN to OPEN",
                **{"from": start + 60, "to": -10, "every_s": 60},
                pods=pods,
            ),
            ev(
                "checkout-svc",
                "error",
                "POST /basket/items 503: io.github.resilience4j.circuitbreaker.CallNotPermittedException: CircuitBreaker 'inventory' is OPEN and does not permit further calls",
                **{"from": start + 1, "to": -2, "every_s": 2},
                pods=pods,
            ),
            ev(
                "shop-web",
                "error",
                "add to basket failed: checkout-svc 503",
                **{"from": start + 2, "to": -1, "every_s": 1.0},
            ),
            ev(
                "shop-web",
                "info",
                "shop-web 51.0.0 started (basket drawer)",
                at=start - 500,
            ),
            ev(
                "loyalty",
                "warn",
                "points ledger reconcile lag {n}s",
                **{"from": -7000, "to": -30, "every_s": 400},
            ),
            ev(
                "checkout-svc",
                "error",
                "kafka producer: NOT_ENOUGH_REPLICAS for topic basket-events",
                **{"from": -9300, "to": -9000, "every_s": 30},
                pods=pods,
            ),
        ],
        [
            {
                "name": "checkout-svc",
                "rps": 70,
                "errors": {"503": (0.001, 0.58)},
                "latency": (0.05, 0.004),
            },
            {"name": "inventory", "rps": 150, "rps_after": 90, "latency": (0.01, 0.01)},
        ],
        [
            {
                "name": "resilience4j_circuitbreaker_state",
                "labels": {
                    "service": "checkout-svc",
                    "name": "inventory",
                    "state": "open",
                },
                "before": 0,
                "after": 1,
                "noise": 0.0,
            },
            {
                "name": "resilience4j_circuitbreaker_not_permitted_calls:rate1m",
                "labels": {"service": "checkout-svc", "name": "inventory"},
                "before": 0,
                "after": 41,
            },
        ],
        {
            "basket.md": runbook(
                "Add to basket failing",
                "Basket failures mean inventory is down: check the inventory pods, restart them, and scale inventory to 4 replicas.",
            )
        },
    )


# =================================================================================================
# 13. A producer's incompatible schema change: order-service 5.0 registered version 7 of subject
#     orders-value with amount_minor changed from long to string, after someone set the subject's
#     compatibility to NONE. The consumer fails on every new message. The incident says "warehouse
#     picking".
# =================================================================================================


@scenario("schema-change-breaks-consumer")
def schema_change_breaks_consumer() -> dict[str, Any]:
    start = -1260
    cons = ["fulfilment-router-0", "fulfilment-router-1"]
    prod = ["order-service-1", "order-service-2"]
    return simple(
        193,
        start,
        incident(
            "warehouse picking stalled",
            "warehouse picking",
            start,
            ["no new pick lists"],
        ),
        expected(
            "app",
            ["order-service", "orders-value", "fulfilment-router"],
            "schema id 7",
            "order-service 5.0.0 (deployed at the start) publishes orders with schema version 7 of subject orders-value, in which amount_minor changed from long to string; the subject's compatibility had been set to NONE the day before, so the registry accepted it. fulfilment-router, still on version 6's reader schema, fails to deserialize every new message (schema id 7: Found string, expecting long), stops at the first one in each partition and consumer lag grows, so no pick lists are made. fulfilment-router's errors and lag are the loud symptom, not the cause; pick-ui's release, the label printer warnings and the old broker leader election are unrelated.",
            [
                "fulfilment-router: SerializationException: Error deserializing Avro message for schema id 7: Found string, expecting long (amount_minor)",
                "schema-registry: subject orders-value compatibility NONE; registered version 7 (id 7) by order-service",
                "kafka_consumergroup_lag for fulfilment-router rising since order-service 5.0.0",
            ],
            "Roll order-service back to 4.x (or publish amount_minor as a new field), restore BACKWARD compatibility on orders-value, then let the consumer continue.",
        ),
        [
            bg(
                "order-service",
                prod,
                ["POST /orders 201 {ms}ms; produced orders/{n}"],
                3,
            ),
            bg(
                "fulfilment-router",
                cons,
                ["routed order {n} to DC-2 (schema id 6)"],
                3,
                until=start,
            ),
        ],
        [
            ev(
                "schema-registry",
                "info",
                'PUT /config/orders-value {"compatibility": "NONE"} by user svc-order-service-ci',
                at=start - 80000,
            ),
            ev(
                "schema-registry",
                "info",
                "registered schema orders-value version 7 (id 7) by svc-order-service-ci",
                at=start - 20,
            ),
            ev(
                "order-service",
                "info",
                "order-service 5.0.0 started (amounts as decimal strings)",
                at=start - 15,
                pods=prod,
            ),
            ev(
                "fulfilment-router",
                "error",
                "org.apache.kafka.common.errors.SerializationException: Error deserializing Avro message for schema id 7: org.apache.avro.AvroTypeException: Found string, expecting long (field amount_minor) at topic orders partition {ms} offset {n}",
                **{"from": start + 3, "to": -2, "every_s": 2.5},
                pods=cons,
            ),
            ev(
                "fulfilment-router",
                "warn",
                "consumer lag orders {n} messages, no progress for {ms}s",
                **{"from": start + 120, "to": -5, "every_s": 30},
                pods=cons,
            ),
            ev("pick-ui", "info", "pick-ui 7.7.0 started (dark mode)", at=start - 700),
            ev(
                "label-printer",
                "warn",
                "printer ZT410-{ms} paper low",
                **{"from": -7000, "to": -20, "every_s": 500},
            ),
            ev(
                "fulfilment-router",
                "error",
                "NOT_LEADER_OR_FOLLOWER for orders-3, refreshing metadata",
                **{"from": -9100, "to": -9000, "every_s": 10},
                pods=cons,
            ),
        ],
        [
            {"name": "order-service", "rps": 20, "latency": (0.03, 0.03)},
            {
                "name": "fulfilment-router",
                "rps": 20,
                "rps_after": 0.01,
                "latency": (0.01, 0.01),
            },
        ],
        [
            {
                "name": "kafka_consumergroup_lag",
                "labels": {
                    "service": "fulfilment-router",
                    "group": "fulfilment-router",
                    "topic": "orders",
                },
                "before": 12,
                "after": 24000,
            },
        ],
        {
            "picking.md": runbook(
                "Picking stalled",
                "When picking stalls, fulfilment-router is stuck: restart its pods, and if lag keeps growing reset the consumer group offsets to latest.",
            )
        },
    )


# =================================================================================================
# 14. A load balancer health check that now 404s: rates-api 3.0 moved its health endpoint from
#     /healthz to /health/live; the ALB target group still checks /healthz, marks every target
#     unhealthy and answers 503 itself. The app is fine. The incident says "shipping calculator".
# =================================================================================================


@scenario("lb-health-check-404")
def lb_health_check_404() -> dict[str, Any]:
    start = -840
    pods = ["rates-api-i-0a1", "rates-api-i-0b2", "rates-api-i-0c3"]
    return simple(
        194,
        start,
        incident(
            "shipping calculator down",
            "shipping calculator",
            start,
            ["503 on the calculator page"],
        ),
        expected(
            "app",
            ["rates-api", "rates-api-tg"],
            "GET /healthz 404",
            "rates-api 3.0.0 (deployed at the start) moved its health endpoint from /healthz to /health/live. The ALB target group rates-api-tg still checks /healthz, gets 404 from every instance (ELB-HealthChecker/2.0 GET /healthz 404), marks all targets unhealthy and answers 503 to clients without forwarding. The app's real endpoints still work. web-store's 503s are the victim's; the carrier API warnings and the old DynamoDB throttling are not the cause.",
            [
                'rates-api: "GET /healthz 404" from ELB-HealthChecker/2.0 on every instance since 3.0.0',
                "aws_alb_healthy_host_count{target_group=rates-api-tg} 3 -> 0",
                "alb: 503 with no target",
            ],
            "Point the target group's health check at /health/live (or keep /healthz as an alias in rates-api) .",
        ),
        [
            bg(
                "rates-api",
                pods,
                [
                    "GET /healthz 200 1ms ua=ELB-HealthChecker/2.0",
                    "POST /v1/rates 200 {ms}ms",
                ],
                3,
                until=start,
            ),
            bg(
                "web-store",
                ["web-store-1", "web-store-2"],
                ["GET /shipping 200 {ms}ms"],
                3,
                until=start,
            ),
        ],
        [
            ev(
                "codedeploy",
                "info",
                "deployment d-7KQ2 rates-api 3.0.0 succeeded on 3 instances (Spring Boot 3: actuator health at /health/live)",
                at=start - 30,
            ),
            ev(
                "rates-api",
                "warn",
                '"GET /healthz 404" 0ms ua=ELB-HealthChecker/2.0',
                **{"from": start - 25, "to": -2, "every_s": 3},
                pods=pods,
            ),
            ev(
                "alb",
                "error",
                "target group rates-api-tg: 0 healthy targets; returning 503 (elb_status_code=503, target_status_code=-)",
                **{"from": start + 30, "to": -1, "every_s": 1.5},
            ),
            ev(
                "web-store",
                "error",
                "GET /shipping 503: rates.internal.example answered 503 Service Temporarily Unavailable",
                **{"from": start + 30, "to": -1, "every_s": 1.2},
                pods=["web-store-1", "web-store-2"],
            ),
            ev(
                "rates-api",
                "warn",
                "carrier UPS rating API slow: {ms}0ms",
                **{"from": -7000, "to": start, "every_s": 200},
                pods=pods,
            ),
            ev(
                "rates-api",
                "error",
                "DynamoDB ProvisionedThroughputExceededException on table rate-cards",
                **{"from": -9000, "to": -8700, "every_s": 30},
                pods=pods,
            ),
        ],
        [
            {
                "name": "web-store",
                "rps": 40,
                "errors": {"503": (0.001, 0.3)},
                "latency": (0.1, 0.05),
            },
            {
                "name": "rates-api",
                "rps": 30,
                "rps_after": 0.01,
                "latency": (0.08, 0.08),
            },
        ],
        [
            {
                "name": "aws_alb_healthy_host_count",
                "labels": {"target_group": "rates-api-tg"},
                "before": 3,
                "after": 0,
                "noise": 0.0,
                "change_at": start - 10,
            },
            {
                "name": "aws_alb_httpcode_elb_5xx_count:rate1m",
                "labels": {"target_group": "rates-api-tg"},
                "before": 0,
                "after": 30,
            },
        ],
        {
            "rates.md": runbook(
                "Shipping calculator errors",
                "Calculator errors come from a carrier API: check the carrier status pages and enable the flat-rate fallback (`FLAT_RATE=true`) in rates-api.",
            )
        },
    )


# =================================================================================================
# 15. A TTL read in the wrong unit: session-service upgraded its cache library, whose ttl is now
#     milliseconds; TOKEN_CACHE_TTL=300 means 0.3 s, every request misses and introspects at the
#     IdP, which rate-limits. The IdP is the loud one. The incident says "logins".
# =================================================================================================


@scenario("cache-ttl-wrong-unit")
def cache_ttl_wrong_unit() -> dict[str, Any]:
    start = -1140
    pods = ["session-service-1", "session-service-2"]
    return simple(
        195,
        start,
        incident("logins failing randomly", "logins", start),
        expected(
            "app",
            ["session-service", "TOKEN_CACHE_TTL"],
            "ttl=300ms",
            "session-service 2.6.0 (deployed at the start) upgraded its cache library to 4.x, whose ttl is in milliseconds; TOKEN_CACHE_TTL=300 now means 300 ms (token cache configured: ttl=300ms). The token cache hit ratio fell from ~0.97 to ~0, every request introspects its token at the IdP, introspection traffic rose ~30x and the IdP rate-limits (429), so sessions fail at random. The IdP's 429s and latency are the loud effect; web-app's release, the LDAP sync warnings and the old JWKS fetch error are not the cause.",
            [
                "session-service: token cache configured: ttl=300ms (TOKEN_CACHE_TTL=300)",
                "token_cache_hit_ratio of session-service 0.97 -> 0.0; idp introspection rate 30x",
                "idp: 429 rate limit for client session-service",
            ],
            "Set TOKEN_CACHE_TTL=300000 (or roll session-service back to 2.5.x).",
        ),
        [
            bg("session-service", pods, ["GET /session 200 {ms}ms"], 3),
            bg(
                "idp",
                ["idp-1"],
                ["POST /oauth2/introspect 200 {ms}ms client=session-service"],
                20,
                until=start,
            ),
            bg(
                "idp",
                ["idp-1"],
                ["POST /oauth2/introspect 200 {ms}ms client=session-service"],
                3,
                **{"from": start},
            ),
        ],
        [
            ev(
                "session-service",
                "info",
                "session-service 2.6.0 started (cache-kit 4.0.1); token cache configured: ttl=300ms (TOKEN_CACHE_TTL=300), max=50000",
                at=start - 20,
                pods=pods,
            ),
            ev(
                "idp",
                "error",
                "POST /oauth2/introspect 429: rate limit 200/s exceeded for client session-service",
                **{"from": start + 30, "to": -2, "every_s": 1.0},
                pods=["idp-1"],
            ),
            ev(
                "session-service",
                "error",
                "GET /session 401: token introspection failed (idp 429)",
                **{"from": start + 30, "to": -2, "every_s": 2},
                pods=pods,
            ),
            ev(
                "web-app",
                "info",
                "web-app 63.0.0 released (new login page copy)",
                at=start - 600,
            ),
            ev(
                "idp",
                "warn",
                "LDAP sync: {n} users skipped (missing mail attribute)",
                **{"from": -7000, "to": -20, "every_s": 900},
                pods=["idp-1"],
            ),
            ev(
                "session-service",
                "error",
                "JWKS fetch failed: timeout after 2000ms (https://idp.internal/.well-known/jwks.json)",
                **{"from": -9000, "to": -8900, "every_s": 30},
                pods=pods,
            ),
        ],
        [
            {
                "name": "session-service",
                "rps": 120,
                "errors": {"401": (0.002, 0.22)},
                "latency": (0.004, 0.09),
            },
            {
                "name": "idp",
                "rps": 4,
                "rps_after": 200,
                "errors": {"429": (0.0, 0.4)},
                "latency": (0.02, 0.09),
            },
        ],
        [
            {
                "name": "token_cache_hit_ratio",
                "labels": {"service": "session-service"},
                "before": 0.97,
                "after": 0.0,
                "change_at": start - 20,
            },
        ],
        {
            "login-failures.md": runbook(
                "Login failures",
                "Random login failures mean the IdP is overloaded: scale idp to 4 instances and raise its per-client rate limit.",
            )
        },
    )


# =================================================================================================
# 16. An id sequence at the end of int4: payouts.id is an integer; the sequence reached
#     2147483647 and every insert fails. Nothing was deployed. The incident says "seller payouts".
# =================================================================================================


@scenario("int4-sequence-exhausted")
def int4_sequence_exhausted() -> dict[str, Any]:
    start = -1320
    pods = ["payout-writer-1", "payout-writer-2"]
    return simple(
        196,
        start,
        incident(
            "seller payouts failing",
            "seller payouts",
            start,
            ["sellers not paid today"],
        ),
        expected(
            "app",
            ["payouts_id_seq", "payouts", "payout-writer", "payouts-db"],
            "reached maximum value of sequence",
            "The payouts table's id is an int4 and its sequence payouts_id_seq has reached 2147483647: every INSERT fails with nextval: reached maximum value of sequence \"payouts_id_seq\" (2147483647). Nothing was deployed; the sequence warning had fired for weeks. payout-writer's errors and the scheduler's retries are effects; seller-portal's release, the bank file warnings and the old deadlock are not the cause.",
            [
                'payouts-db: ERROR: nextval: reached maximum value of sequence "payouts_id_seq" (2147483647)',
                "pg_sequence_last_value{sequence=payouts_id_seq} = 2147483647",
                "payout-writer: INSERT INTO payouts failed",
            ],
            "ALTER the column and sequence to bigint (ALTER SEQUENCE payouts_id_seq AS bigint MAXVALUE …), then replay the failed payouts.",
        ),
        [
            bg("payout-writer", pods, ["payout {n} written in {ms}ms"], 3, until=start),
            bg("seller-portal", ["seller-portal-1"], ["GET /payouts 200 {ms}ms"], 4),
        ],
        [
            ev(
                "payouts-db",
                "warn",
                "sequence payouts_id_seq at 99.{ms}% of int4 range",
                **{"from": -7200, "to": start, "every_s": 1800},
                pods=["payouts-db-primary"],
            ),
            ev(
                "payouts-db",
                "error",
                'ERROR:  nextval: reached maximum value of sequence "payouts_id_seq" (2147483647) STATEMENT: INSERT INTO payouts (seller_id, amount_minor, currency) VALUES ($1,$2,$3)',
                **{"from": start, "to": -2, "every_s": 2},
                pods=["payouts-db-primary"],
            ),
            ev(
                "payout-writer",
                "error",
                "INSERT INTO payouts failed for seller {n}: DataError",
                **{"from": start, "to": -2, "every_s": 2},
                pods=pods,
            ),
            ev(
                "payout-scheduler",
                "error",
                "batch {n}: 100% of payouts failed, retrying in 60s",
                **{"from": start + 60, "to": -5, "every_s": 60},
            ),
            ev(
                "seller-portal",
                "info",
                "seller-portal 19.0.0 started (payout history export)",
                at=start - 900,
                pods=["seller-portal-1"],
            ),
            ev(
                "bank-connector",
                "warn",
                "SEPA file {n} acknowledged late by bank ({ms}s)",
                **{"from": -7000, "to": -30, "every_s": 600},
            ),
            ev(
                "payout-writer",
                "error",
                "deadlock detected while updating seller_balances",
                **{"from": -9200, "to": -9100, "every_s": 30},
                pods=pods,
            ),
        ],
        [
            {
                "name": "payout-writer",
                "rps": 15,
                "errors": {"500": (0.0, 0.99)},
                "latency": (0.02, 0.01),
            },
            {"name": "seller-portal", "rps": 10, "latency": (0.05, 0.05)},
        ],
        [
            {
                "name": "pg_sequence_last_value",
                "labels": {"service": "payouts-db", "sequence": "payouts_id_seq"},
                "before": 2147400000,
                "after": 2147483647,
                "noise": 0.0,
            },
        ],
        {
            "payouts.md": runbook(
                "Payouts failing",
                "Payout failures usually come from the bank connector: check the SEPA acknowledgements and re-send the last file.",
            )
        },
    )


def main(root: Path = HERE) -> None:
    for slug, build in SCENARIOS.items():
        base.write(slug, build(), root)
        print(slug)


if __name__ == "__main__":
    main()
