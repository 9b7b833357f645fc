"""Writes the eighth held-out scenario set, bench/heldout8 (issue 21 item 7): `python bench/heldout8/_build.py`.

New incidents, none of them in the bundled set or in bench/heldout … bench/heldout7. As there,
everything that matters is written by hand below (incident, expected answer, runbooks, kubectl
answers, the log lines that carry the fault and the red herrings); the bulk (background request
lines, 2 h of metric points thinned to one every 30 s, a namespace's tables, describe layouts) comes
from bench/heldout7/_build.py's helpers, each scenario with a fixed seed (221-236). The author read
neither the planner (`reasoning/`) nor the engine (`diagnosis/engine/`, `docs/engine.md`), nor any
score file. Stdlib only.
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


h7 = _load("heldout7_build", HERE.parent / "heldout7" / "_build.py")
base = h7.base
h3 = h7.h3

table = base.table
events = base.events
runbook = base.runbook
when = base.when
app = h7.app
pod_name = h7.pod_name
namespace = h7.namespace
ev = h7.ev
bg = h7.bg
logs = h7.logs
metrics = h7.metrics
incident = h7.incident
expected = h7.expected
simple = h7.simple
container_text = h7.container_text
deployment_describe = h7.deployment_describe
describe_pod = h7.describe_pod
podlog = h7.podlog
running = h7.running
crashloop = h7.crashloop
waiting = h7.waiting
ips_of = h7.ips_of
event_block = h7.event_block
replicaset_describe = h3.replicaset_describe
NODES_FRA = h7.NODES_FRA
NODES_PDX = h7.NODES_PDX
NODES_SYD = h7.NODES_SYD
NODES_DUB = h7.NODES_DUB

NODES_IAD = [
    ("ip-10-61-1-24.us-east-1.compute.internal", "Ready", "10.61.1.24"),
    ("ip-10-61-2-118.us-east-1.compute.internal", "Ready", "10.61.2.118"),
    ("ip-10-61-3-205.us-east-1.compute.internal", "Ready", "10.61.3.205"),
]

SCENARIOS: dict[str, Any] = {}


def scenario(slug: str):
    def register(fn):
        SCENARIOS[slug] = fn
        return fn

    return register


def add_pods(k8s: dict[str, str], ns: str, rows: list[tuple[str, ...]]) -> None:
    """Extra rows (name, ready, status, restarts, age, ip, node, labels) in the namespace's pod table."""
    key = f"kubectl get pods -n {ns} -o wide --show-labels"
    have = h7.h5.split_table(k8s[key])
    extra = [[*r[:7], "<none>", "<none>", r[7]] for r in rows]
    k8s[key] = table([have[0], *sorted(have[1:] + extra)])


def pending_pod(
    name: str,
    ns: str,
    *,
    owner: str,
    labels: list[str],
    sa: str,
    containers: str,
    events_rows: list[tuple[str, str, str, str, str]],
    node: str = "<none>",
    status: str = "Pending",
    ip: str = "",
    conditions: list[tuple[str, str]] = (("PodScheduled", "False"),),
    init: str = "",
) -> str:
    """`kubectl describe pods` of a pod that never started its main container."""
    label_text = labels[0] + "".join("\n                  " + x for x in labels[1:])
    cond = "".join(f"  {t.ljust(27)}{s} \n" for t, s in conditions)
    return (
        f"Name:             {name}\nNamespace:        {ns}\nPriority:         0\nService Account:  {sa}\n"
        f"Node:             {node}\nLabels:           {label_text}\n"
        f"Status:           {status}\nIP:               {ip}\nControlled By:    {owner}\n"
        f"{init}Containers:\n{containers}\n"
        f"Conditions:\n  Type                       Status\n{cond}"
        f"QoS Class:                   Burstable\n{event_block(events_rows)}\n"
    )


# =================================================================================================
# 1. A rolling update that cannot progress: ticket-search runs one pod per node (required pod
#    anti-affinity on the hostname) on a three-node pool, and its strategy is maxSurge 1 /
#    maxUnavailable 0. The surge pod of the hotfix has no node it may go to, so the old pods (with
#    the bug the hotfix fixes) keep serving. The incident says "helpdesk".
# =================================================================================================


@scenario("antiaffinity-surge-deadlock")
def antiaffinity_surge_deadlock() -> dict[str, Any]:
    start = -2100
    ns = "helpdesk"
    old_img = "ghcr.io/fernwood/ticket-search:3.8.0"
    new_img = "ghcr.io/fernwood/ticket-search:3.8.1"
    ts = app(
        "ticket-search",
        image=old_img,
        port=8080,
        rs="5f8c7d9b6",
        cluster_ip="10.100.72.14",
        desired=3,
        pods=[
            ("b6rkx", "1/1", "Running", "0", "3h", 0),
            ("m2tqz", "1/1", "Running", "0", "3h", 1),
            ("w9fnc", "1/1", "Running", "0", "3h", 2),
        ],
        extra_rs=[
            (
                "ticket-search-7b4d9f6c8",
                "1",
                "1",
                "0",
                "34m",
                "ticket-search",
                new_img,
                "app=ticket-search,pod-template-hash=7b4d9f6c8",
            )
        ],
    )
    web = app(
        "helpdesk-web",
        image="ghcr.io/fernwood/helpdesk-web:12.2.0",
        port=3000,
        rs="6d9c8f7b5",
        cluster_ip="10.100.72.3",
        pods=[
            ("h4nzt", "1/1", "Running", "0", "52m", 0),
            ("r7kxw", "1/1", "Running", "0", "52m", 2),
        ],
    )
    k8s = namespace(ns, NODES_IAD, [ts, web], seed=221)
    surge = "ticket-search-7b4d9f6c8-q5vld"
    add_pods(
        k8s,
        ns,
        [
            (
                surge,
                "0/1",
                "Pending",
                "0",
                "34m",
                "<none>",
                "<none>",
                "app=ticket-search,pod-template-hash=7b4d9f6c8",
            )
        ],
    )
    msg = "0/3 nodes are available: 3 node(s) didn't match pod anti-affinity rules. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod."
    k8s[f"kubectl describe pods {surge} -n {ns}"] = pending_pod(
        surge,
        ns,
        owner="ReplicaSet/ticket-search-7b4d9f6c8",
        labels=["app=ticket-search", "pod-template-hash=7b4d9f6c8"],
        sa="ticket-search",
        containers=f"  ticket-search:\n    Image:      {new_img}\n    Port:       8080/TCP\n    Requests:\n      cpu:     1\n      memory:  2Gi",
        events_rows=[
            (
                "Warning",
                "FailedScheduling",
                "2m (x9 over 34m)",
                "default-scheduler",
                msg,
            )
        ],
    )
    cont = container_text(
        "ticket-search",
        new_img,
        8080,
        limits="memory:  2Gi",
        requests="cpu:      1\n  memory:   2Gi",
    )
    desc = deployment_describe(
        "ticket-search",
        ns,
        replicas="3 desired | 1 updated | 4 total | 3 available | 1 unavailable",
        revision=58,
        containers=cont,
        conditions=[
            ("Available", "True", "MinimumReplicasAvailable"),
            ("Progressing", "True", "ReplicaSetUpdated"),
        ],
        old_rs="ticket-search-5f8c7d9b6 (3/3 replicas created)",
        new_rs="ticket-search-7b4d9f6c8 (1/1 replicas created)",
        events_rows=[
            (
                "Normal",
                "ScalingReplicaSet",
                "34m",
                "deployment-controller",
                "Scaled up replica set ticket-search-7b4d9f6c8 to 1",
            )
        ],
    )
    desc = desc.replace(
        "25% max unavailable, 25% max surge", "0 max unavailable, 1 max surge"
    ).replace(
        "  Node-Selectors:            <none>\n",
        "  Node-Selectors:            nodegroup=search\n",
    )
    k8s[f"kubectl describe deployments ticket-search -n {ns}"] = desc
    k8s[
        f"kubectl get deployments ticket-search -n {ns} -o yaml"
    ] = f"""apiVersion: apps/v1
kind: Deployment
metadata:
  annotations:
    deployment.kubernetes.io/revision: "58"
  name: ticket-search
  namespace: {ns}
spec:
  replicas: 3
  selector:
    matchLabels:
      app: ticket-search
  strategy:
    rollingUpdate:
      maxSurge: 1
      maxUnavailable: 0
    type: RollingUpdate
  template:
    metadata:
      labels:
        app: ticket-search
    spec:
      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - labelSelector:
              matchLabels:
                app: ticket-search
            topologyKey: kubernetes.io/hostname
      containers:
      - image: {new_img}
        name: ticket-search
        ports:
        - containerPort: 8080
        resources:
          limits:
            memory: 2Gi
          requests:
            cpu: "1"
            memory: 2Gi
      nodeSelector:
        nodegroup: search
      serviceAccountName: ticket-search
status:
  availableReplicas: 3
  conditions:
  - lastUpdateTime: "{base.iso(-2040)}"
    message: ReplicaSet "ticket-search-7b4d9f6c8" is progressing.
    reason: ReplicaSetUpdated
    status: "True"
    type: Progressing
  observedGeneration: 61
  readyReplicas: 3
  replicas: 4
  unavailableReplicas: 1
  updatedReplicas: 1
"""
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "52m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/helpdesk-web",
                "Scaled up replica set helpdesk-web-6d9c8f7b5 to 2",
            ),
            (
                "34m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/ticket-search",
                "Scaled up replica set ticket-search-7b4d9f6c8 to 1",
            ),
            ("2m (x9 over 34m)", "Warning", "FailedScheduling", f"Pod/{surge}", msg),
        ]
    )
    tsp = [pod_name(ts, s[0]) for s in ts["pods"]]
    webp = [pod_name(web, s[0]) for s in web["pods"]]
    evs = [
        ev(
            "argocd",
            "info",
            "application helpdesk/ticket-search synced to 3.8.1 (fix: tenant filter dropped for queries with non-ASCII terms)",
            at=-2060,
        ),
        ev(
            "ticket-search",
            "error",
            'POST /search 500: TermsQueryBuilder: [tenant_id] filter missing for analyzed query "{n}"; refusing cross-tenant result',
            **{"from": -7000, "to": -2, "every_s": 9},
            pods=tsp,
        ),
        ev(
            "helpdesk-web",
            "error",
            "GET /tickets/search 500: search backend failed (ticket-search 500)",
            **{"from": start, "to": -2, "every_s": 3},
            pods=webp,
        ),
        ev(
            "helpdesk-web",
            "info",
            "helpdesk-web 12.2.0 started (dark mode for agents)",
            at=start - 1000,
            pods=webp,
        ),
        ev(
            "ticket-search",
            "warn",
            "opensearch: search.max_buckets close to limit ({n} buckets) on index tickets-v9",
            **{"from": -3500, "to": -10, "every_s": 400},
            pods=tsp,
        ),
        ev(
            "mail-ingest",
            "warn",
            "IMAP IDLE reconnect to imap.fernwood.example after {ms}s",
            **{"from": -3600, "to": -5, "every_s": 300},
        ),
        ev(
            "ticket-search",
            "error",
            "opensearch: circuit_breaking_exception [parent] Data too large",
            **{"from": -9000, "to": -8800, "every_s": 40},
            pods=tsp,
        ),
    ]
    return {
        "incident": incident(
            "helpdesk search still broken after the hotfix",
            "helpdesk",
            start,
            [
                "agents still get errors when searching tickets, 30 min after 3.8.1 was released"
            ],
        ),
        "expected": expected(
            "platform",
            [
                "deployment/ticket-search",
                "ticket-search",
                "replicaset/ticket-search-7b4d9f6c8",
            ],
            "didn't match pod anti-affinity rules",
            "ticket-search runs one pod per node (required podAntiAffinity on kubernetes.io/hostname) on a three-node pool (nodegroup=search), with rolling-update maxSurge 1 and maxUnavailable 0. The 3.8.1 hotfix's surge pod has no node it may go to (3 node(s) didn't match pod anti-affinity rules) and stays Pending for 34 min; since no old pod may go first, the rollout never progresses and the three 3.8.0 pods keep answering 500 for non-ASCII searches. helpdesk-web's 500s are the victim; its release, the OpenSearch bucket warnings, the mail-ingest reconnects and the old circuit breaker are not the cause.",
            [
                "FailedScheduling: 0/3 nodes are available: 3 node(s) didn't match pod anti-affinity rules",
                "strategy maxSurge 1 / maxUnavailable 0; podAntiAffinity required on kubernetes.io/hostname; 3 nodes",
                "ticket-search 3.8.0 pods still serving the 500s",
            ],
            "Let the rollout replace a pod first (maxUnavailable 1, maxSurge 0) or make the anti-affinity preferred (or add a node to the pool); the hotfix then rolls out.",
        ),
        "kubernetes": k8s,
        "logs": logs(
            seed=221,
            background=[
                bg(
                    "ticket-search",
                    tsp,
                    ["POST /search 200 {ms}ms", "GET /healthz 200 1ms"],
                    8,
                ),
                bg("helpdesk-web", webp, ["GET /tickets/{n} 200 {ms}ms"], 8),
            ],
            events=evs,
        ),
        "metrics": metrics(
            [
                {
                    "name": "helpdesk-web",
                    "rps": 30,
                    "errors": {"500": (0.05, 0.07)},
                    "latency": (0.08, 0.09),
                },
                {
                    "name": "ticket-search",
                    "rps": 18,
                    "errors": {"500": (0.09, 0.1)},
                    "latency": (0.05, 0.05),
                },
            ],
            start=start,
            seed=221,
            gauges=[
                {
                    "name": "kube_deployment_status_replicas_unavailable",
                    "labels": {"namespace": ns, "deployment": "ticket-search"},
                    "before": 0,
                    "after": 1,
                    "change_at": -2040,
                    "noise": 0.0,
                }
            ],
        ),
        "runbooks": {
            "ticket-search-errors.md": runbook(
                "Ticket search errors",
                "Search 500s usually mean a corrupted tickets index: reindex tickets-v9 into a new index and switch the alias.",
            )
        },
    }


# =================================================================================================
# 2. A stale hostAliases entry: bank-file-sender pins sftp.hanseatic-bank.example to the bank's old
#    address (203.0.113.40) in its pod spec, added two years ago during a DNS outage. The bank moved
#    its SFTP endpoint last night; DNS has the new address, the pods never ask DNS. Connects time
#    out. The incident says "payroll".
# =================================================================================================


@scenario("hostaliases-stale-ip")
def hostaliases_stale_ip() -> dict[str, Any]:
    start = -1500
    ns = "payroll"
    img = "registry.internal.example/payroll/bank-file-sender:2.14.3"
    bfs = app(
        "bank-file-sender",
        image=img,
        port=8080,
        rs="6b7c9d8f5",
        cluster_ip="10.100.31.40",
        pods=[("t4kqz", "1/1", "Running", "0", "6d", 1)],
    )
    pr = app(
        "payroll-api",
        image="registry.internal.example/payroll/payroll-api:31.0.2",
        port=8080,
        rs="8f6d7c5b9",
        cluster_ip="10.100.31.12",
        pods=[
            ("c8wnr", "1/1", "Running", "0", "47m", 0),
            ("n5xdl", "1/1", "Running", "0", "47m", 2),
        ],
    )
    k8s = namespace(ns, NODES_FRA, [bfs, pr], seed=222)
    p = pod_name(bfs, "t4kqz")
    describe_pod(
        k8s,
        ns,
        bfs,
        "t4kqz",
        NODES_FRA,
        state=running(-518400),
        started=-518400,
        ready=True,
    )
    k8s[
        f"kubectl get deployments bank-file-sender -n {ns} -o yaml"
    ] = f"""apiVersion: apps/v1
kind: Deployment
metadata:
  annotations:
    deployment.kubernetes.io/revision: "19"
  name: bank-file-sender
  namespace: {ns}
spec:
  replicas: 1
  selector:
    matchLabels:
      app: bank-file-sender
  template:
    metadata:
      labels:
        app: bank-file-sender
    spec:
      containers:
      - env:
        - name: SFTP_HOST
          value: sftp.hanseatic-bank.example
        - name: SFTP_PORT
          value: "22"
        - name: SFTP_CONNECT_TIMEOUT
          value: 20s
        image: {img}
        name: bank-file-sender
        ports:
        - containerPort: 8080
      hostAliases:
      - hostnames:
        - sftp.hanseatic-bank.example
        ip: 203.0.113.40
      serviceAccountName: bank-file-sender
status:
  availableReplicas: 1
  readyReplicas: 1
  replicas: 1
"""
    k8s[f"kubectl logs {p} -n {ns} --tail=1000"] = podlog(
        [
            (
                -3000,
                "INFO  batch PAY-2026-12-05-A: 1840 payments, file pain.001 signed",
            ),
            (
                -2980,
                "INFO  sftp connect sftp.hanseatic-bank.example:22 ok, upload pain.001 (412 KB) done",
            ),
            (
                -1480,
                "INFO  batch PAY-2026-12-05-B: 2211 payments, file pain.001 signed",
            ),
            (
                -1460,
                "ERROR sftp connect sftp.hanseatic-bank.example:22 (203.0.113.40:22) failed: dial tcp 203.0.113.40:22: i/o timeout",
            ),
            (-1400, "WARN  retry 1/5 for batch PAY-2026-12-05-B in 60s"),
            (
                -1320,
                "ERROR sftp connect sftp.hanseatic-bank.example:22 (203.0.113.40:22) failed: dial tcp 203.0.113.40:22: i/o timeout",
            ),
            (
                -600,
                "ERROR batch PAY-2026-12-05-B: giving up after 5 attempts, marked FAILED",
            ),
            (
                -30,
                "ERROR sftp connect sftp.hanseatic-bank.example:22 (203.0.113.40:22) failed: dial tcp 203.0.113.40:22: i/o timeout",
            ),
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "47m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/payroll-api",
                "Scaled up replica set payroll-api-8f6d7c5b9 to 2",
            ),
        ]
    )
    prp = [pod_name(pr, s[0]) for s in pr["pods"]]
    evs = [
        ev(
            "bank-file-sender",
            "error",
            "sftp connect sftp.hanseatic-bank.example:22 (203.0.113.40:22) failed: dial tcp 203.0.113.40:22: i/o timeout",
            **{"from": start + 40, "to": -2, "every_s": 80},
            pods=[p],
        ),
        ev(
            "bank-file-sender",
            "error",
            "batch PAY-2026-12-05-{n} FAILED: bank upload not completed after 5 attempts",
            **{"from": start + 900, "to": -5, "every_s": 300},
            pods=[p],
        ),
        ev(
            "treasury-sync",
            "info",
            "sftp connect sftp.hanseatic-bank.example:22 (198.51.100.12:22) ok, downloaded camt.053 statements ({n} bytes)",
            **{"from": -3000, "to": -10, "every_s": 600},
        ),
        ev(
            "treasury-sync",
            "info",
            "bank notice: SFTP endpoint sftp.hanseatic-bank.example moves to new address 198.51.100.12 on 2026-12-05 06:00 UTC (DNS TTL 300)",
            at=-28000,
        ),
        ev(
            "payroll-api",
            "error",
            "POST /v1/payruns/{n}/release 502: payment status unknown (bank acknowledgement missing)",
            **{"from": start + 120, "to": -2, "every_s": 6},
            pods=prp,
        ),
        ev(
            "payroll-api",
            "info",
            "payroll-api 31.0.2 started (tax table 2027 preview)",
            at=start - 1300,
            pods=prp,
        ),
        ev(
            "payroll-api",
            "warn",
            "slow query: SELECT ... FROM employees_tax_profile took {ms}00ms",
            **{"from": -3600, "to": -5, "every_s": 240},
            pods=prp,
        ),
        ev(
            "hr-portal",
            "warn",
            "SAML assertion clock skew {ms}ms",
            **{"from": -3600, "to": -5, "every_s": 420},
        ),
        ev(
            "bank-file-sender",
            "error",
            "pain.001 validation failed: IBAN checksum for employee {n}",
            **{"from": -8400, "to": -8200, "every_s": 50},
            pods=[p],
        ),
    ]
    return {
        "incident": incident("salary payments not sent to the bank", "payroll", start),
        "expected": expected(
            "connect",
            [
                "deployment/bank-file-sender",
                "bank-file-sender",
                "sftp.hanseatic-bank.example",
                "203.0.113.40",
            ],
            "203.0.113.40",
            "bank-file-sender's pod spec pins sftp.hanseatic-bank.example to 203.0.113.40 with hostAliases (an old workaround), so the pods never ask DNS. The bank moved its SFTP endpoint to 198.51.100.12 this morning (treasury-sync, which resolves normally, connects fine); every upload from bank-file-sender times out dialling the old address and payroll batches fail after 5 attempts. payroll-api's 502s are the victim; its release, slow tax-profile queries, SAML skew warnings and the old IBAN validation error are not the cause.",
            [
                "bank-file-sender: dial tcp 203.0.113.40:22: i/o timeout",
                "Deployment bank-file-sender: hostAliases sftp.hanseatic-bank.example -> 203.0.113.40",
                "treasury-sync: sftp.hanseatic-bank.example (198.51.100.12:22) ok",
            ],
            "Remove the hostAliases entry (or set it to 198.51.100.12) and roll bank-file-sender; re-run batch PAY-2026-12-05-B.",
        ),
        "kubernetes": k8s,
        "logs": logs(
            seed=222,
            background=[
                bg(
                    "payroll-api",
                    prp,
                    ["GET /v1/payruns/{n} 200 {ms}ms", "GET /healthz 200 1ms"],
                    8,
                ),
                bg("bank-file-sender", [p], ["GET /healthz 200 1ms"], 30),
            ],
            events=evs,
        ),
        "metrics": metrics(
            [
                {
                    "name": "payroll-api",
                    "rps": 6,
                    "errors": {"502": (0.0, 0.2)},
                    "latency": (0.06, 0.07),
                },
                {"name": "bank-file-sender", "rps": 1, "latency": (0.002, 0.002)},
            ],
            start=start,
            seed=222,
            gauges=[
                {
                    "name": "bank_upload_failures_total",
                    "labels": {"service": "bank-file-sender"},
                    "before": 0,
                    "after": 3,
                    "noise": 0.0,
                }
            ],
        ),
        "runbooks": {
            "bank-upload-failed.md": runbook(
                "Bank upload failed",
                "A failed pain.001 upload is almost always a file the bank rejects: check the IBAN validation report, fix the employee record and re-sign the batch.",
            )
        },
    }


# =================================================================================================
# 3. A pod DNS configuration that bypasses the cluster: price-importer runs with `dnsPolicy: None`
#    and a dnsConfig naming the data-centre resolver 10.40.0.10 (for a supplier VPN, years ago). The
#    network team decommissioned that resolver 40 min ago; every lookup from price-importer times
#    out, nothing else in the cluster notices. The incident says "online shop".
# =================================================================================================


@scenario("dnsconfig-retired-resolver")
def dnsconfig_retired_resolver() -> dict[str, Any]:
    start = -2280
    ns = "catalog"
    img = "ghcr.io/kestrel-retail/price-importer:4.9.0"
    pi = app(
        "price-importer",
        image=img,
        port=8080,
        rs="7c9b6d8f4",
        cluster_ip="10.100.50.33",
        pods=[
            ("g2mxv", "1/1", "Running", "0", "9d", 0),
            ("s8ptk", "1/1", "Running", "0", "9d", 2),
        ],
    )
    ca = app(
        "catalog-api",
        image="ghcr.io/kestrel-retail/catalog-api:18.3.1",
        port=8080,
        rs="5d6f9c7b8",
        cluster_ip="10.100.50.10",
        pods=[
            ("b7rwq", "1/1", "Running", "0", "2h", 0),
            ("k3zdn", "1/1", "Running", "0", "2h", 1),
            ("x6vhl", "1/1", "Running", "0", "2h", 2),
        ],
    )
    k8s = namespace(ns, NODES_SYD, [pi, ca], seed=223)
    pip = [pod_name(pi, s[0]) for s in pi["pods"]]
    for sfx in ("g2mxv", "s8ptk"):
        describe_pod(
            k8s,
            ns,
            pi,
            sfx,
            NODES_SYD,
            state=running(-777600),
            started=-777600,
            ready=True,
        )
    k8s[
        f"kubectl get deployments price-importer -n {ns} -o yaml"
    ] = f"""apiVersion: apps/v1
kind: Deployment
metadata:
  annotations:
    deployment.kubernetes.io/revision: "44"
  name: price-importer
  namespace: {ns}
spec:
  replicas: 2
  selector:
    matchLabels:
      app: price-importer
  template:
    metadata:
      labels:
        app: price-importer
    spec:
      containers:
      - env:
        - name: SUPPLIER_FEEDS
          value: https://feeds.brightline-supply.example/v2/prices,https://api.oakmere-wholesale.example/prices
        image: {img}
        name: price-importer
        ports:
        - containerPort: 8080
      dnsConfig:
        nameservers:
        - 10.40.0.10
        searches:
        - corp.kestrel.internal
      dnsPolicy: None
      serviceAccountName: price-importer
status:
  availableReplicas: 2
  readyReplicas: 2
  replicas: 2
"""
    k8s[f"kubectl logs {pip[0]} -n {ns} --tail=1000"] = podlog(
        [
            (
                -2400,
                "INFO  import run 88412: 41210 prices from brightline-supply, 9120 from oakmere-wholesale",
            ),
            (
                -2250,
                "ERROR fetch https://feeds.brightline-supply.example/v2/prices: dial tcp: lookup feeds.brightline-supply.example on 10.40.0.10:53: read udp 10.23.1.88:41873->10.40.0.10:53: i/o timeout",
            ),
            (
                -2248,
                "ERROR publish prices: dial tcp: lookup kafka-0.kafka.data.svc.cluster.local on 10.40.0.10:53: read udp 10.23.1.88:52210->10.40.0.10:53: i/o timeout",
            ),
            (-2240, "WARN  import run 88413 aborted: 0 of 2 feeds fetched"),
            (
                -40,
                "ERROR fetch https://api.oakmere-wholesale.example/prices: dial tcp: lookup api.oakmere-wholesale.example on 10.40.0.10:53: read udp 10.23.1.88:38002->10.40.0.10:53: i/o timeout",
            ),
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "2h",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/catalog-api",
                "Scaled up replica set catalog-api-5d6f9c7b8 to 3",
            )
        ]
    )
    cap = [pod_name(ca, s[0]) for s in ca["pods"]]
    evs = [
        ev(
            "price-importer",
            "error",
            "fetch https://feeds.brightline-supply.example/v2/prices: dial tcp: lookup feeds.brightline-supply.example on 10.40.0.10:53: read udp 10.23.1.88:{n}->10.40.0.10:53: i/o timeout",
            **{"from": start + 30, "to": -2, "every_s": 60},
            pods=pip,
        ),
        ev(
            "price-importer",
            "warn",
            "import run {n} aborted: 0 of 2 feeds fetched",
            **{"from": start + 60, "to": -2, "every_s": 300},
            pods=pip,
        ),
        ev(
            "netops-change",
            "info",
            "CHG-20417 done: legacy resolvers dc1-dns-01/02 (10.40.0.10, 10.40.0.11) shut down; clients migrated to Route 53 Resolver",
            at=start - 60,
        ),
        ev(
            "catalog-api",
            "warn",
            "price for sku {n} is stale (last update {ms} min ago), serving cached value",
            **{"from": start + 600, "to": -2, "every_s": 2},
            pods=cap,
        ),
        ev(
            "catalog-api",
            "error",
            "GET /v1/products/{n} 409: price older than 30 min, checkout blocked for this item",
            **{"from": start + 1800, "to": -2, "every_s": 3},
            pods=cap,
        ),
        ev(
            "catalog-api",
            "info",
            "catalog-api 18.3.1 started (new badge: eco)",
            at=-7100,
            pods=cap,
        ),
        ev(
            "oakmere-wholesale",
            "warn",
            "supplier status page: scheduled maintenance on 2026-12-09 01:00-03:00 UTC",
            at=-3400,
        ),
        ev(
            "search-indexer",
            "warn",
            "bulk index took {n}ms for 500 docs",
            **{"from": -3600, "to": -5, "every_s": 300},
        ),
        ev(
            "price-importer",
            "error",
            "feed oakmere-wholesale: HTTP 503 Service Unavailable",
            **{"from": -9600, "to": -9300, "every_s": 60},
            pods=pip,
        ),
    ]
    return {
        "incident": incident(
            "prices on the website out of date",
            "online shop",
            start,
            [
                "no price updates since about 40 minutes ago; some products can't be bought"
            ],
        ),
        "expected": expected(
            "dns",
            ["deployment/price-importer", "price-importer", "10.40.0.10"],
            "10.40.0.10:53",
            "price-importer runs with dnsPolicy: None and a dnsConfig whose only nameserver is the data-centre resolver 10.40.0.10. That resolver was shut down 39 min ago (CHG-20417); every lookup from price-importer (the supplier feeds and even the in-cluster Kafka) times out on 10.40.0.10:53, so no prices are imported and catalog-api's prices go stale. The rest of the cluster uses CoreDNS and is fine. catalog-api's stale-price warnings and 409s are the victim; its release, the supplier maintenance notice, the indexer and the old supplier 503s are not the cause.",
            [
                "price-importer: lookup feeds.brightline-supply.example on 10.40.0.10:53: ... i/o timeout",
                "Deployment price-importer: dnsPolicy None, dnsConfig.nameservers [10.40.0.10]",
                "CHG-20417: legacy resolvers 10.40.0.10/11 shut down",
            ],
            "Set price-importer back to dnsPolicy ClusterFirst (a CoreDNS forward zone for corp.kestrel.internal if needed) and roll it; the next import run catches up.",
        ),
        "kubernetes": k8s,
        "logs": logs(
            seed=223,
            background=[
                bg("catalog-api", cap, ["GET /v1/products/{n} 200 {ms}ms"], 8),
                bg("price-importer", pip, ["GET /healthz 200 1ms"], 30),
            ],
            events=evs,
        ),
        "metrics": metrics(
            [
                {
                    "name": "catalog-api",
                    "rps": 60,
                    "errors": {"409": (0.0, 0.08)},
                    "latency": (0.04, 0.04),
                    "change_at": start + 1800,
                },
            ],
            start=start,
            seed=223,
            gauges=[
                {
                    "name": "price_import_last_success_age_seconds",
                    "labels": {"service": "price-importer"},
                    "before": 200,
                    "after": 2300,
                    "noise": 0.1,
                }
            ],
        ),
        "runbooks": {
            "stale-prices.md": runbook(
                "Prices stale on the website",
                "Stale prices mean a supplier feed is down: check the suppliers' status pages and switch the affected supplier to the last good file (`FEED_FALLBACK=last-good`).",
            )
        },
    }


# =================================================================================================
# 4. A service account token no longer mounted: a security baseline set
#    `automountServiceAccountToken: false` on every chart's ServiceAccount two days ago. report-runner
#    talks to the API server (it launches a Job per report); its pods only met the change when a
#    node rotation recreated them 31 min ago, and now crash at start. The incident says "scheduled emails".
# =================================================================================================


@scenario("sa-token-not-mounted")
def sa_token_not_mounted() -> dict[str, Any]:
    start = -1860
    ns = "reporting"
    img = "ghcr.io/quillon/report-runner:6.2.4"
    rr = app(
        "report-runner",
        image=img,
        port=8080,
        rs="6f8d5c9b7",
        cluster_ip="10.100.88.21",
        pods=[
            ("d5wqk", "0/1", "CrashLoopBackOff", "10 (2m40s ago)", "31m", 0),
            ("p9nxc", "0/1", "CrashLoopBackOff", "10 (1m55s ago)", "31m", 2),
        ],
    )
    api = app(
        "reports-api",
        image="ghcr.io/quillon/reports-api:22.0.1",
        port=8080,
        rs="7b9c6d5f8",
        cluster_ip="10.100.88.10",
        pods=[
            ("f3ktm", "1/1", "Running", "0", "31m", 1),
            ("v8hrz", "1/1", "Running", "0", "31m", 2),
        ],
    )
    k8s = namespace(ns, NODES_PDX, [rr, api], seed=224)
    rrp = [pod_name(rr, s[0]) for s in rr["pods"]]
    err = "F1205 panic: building in-cluster config: open /var/run/secrets/kubernetes.io/serviceaccount/token: no such file or directory"
    for sfx in ("d5wqk", "p9nxc"):
        describe_pod(
            k8s,
            ns,
            rr,
            sfx,
            NODES_PDX,
            state=crashloop(2, "Error", -170, -168),
            started=-1860,
            restarts=10,
            extra="    Environment:\n      RUNNER_NAMESPACE:  reporting-jobs\n    Mounts:\n      /etc/report-runner from config (ro)\n",
            events_rows=[
                (
                    "Normal",
                    "Scheduled",
                    "31m",
                    "default-scheduler",
                    f"Successfully assigned {ns}/{pod_name(rr, sfx)} to {NODES_PDX[0 if sfx == 'd5wqk' else 2][0]}",
                ),
                (
                    "Normal",
                    "Pulled",
                    "2m40s (x11 over 31m)",
                    "kubelet",
                    f'Container image "{img}" already present on machine',
                ),
                (
                    "Warning",
                    "BackOff",
                    "40s (x140 over 30m)",
                    "kubelet",
                    f"Back-off restarting failed container report-runner in pod {pod_name(rr, sfx)}_{ns}",
                ),
            ],
        )
    for p in rrp:
        k8s[f"kubectl logs {p} -n {ns} --previous --tail=1000"] = podlog(
            [
                (
                    -170,
                    "I1205 report-runner 6.2.4 starting, job namespace reporting-jobs",
                ),
                (
                    -169,
                    "I1205 loading kubeconfig: KUBECONFIG not set, using in-cluster configuration",
                ),
                (-168, err),
            ]
        )
    k8s[f"kubectl get serviceaccounts -n {ns}"] = table(
        [
            ["NAME", "SECRETS", "AGE"],
            ["default", "0", "400d"],
            ["report-runner", "0", "400d"],
            ["reports-api", "0", "400d"],
        ]
    )
    k8s[
        f"kubectl get serviceaccounts report-runner -n {ns} -o yaml"
    ] = f"""apiVersion: v1
automountServiceAccountToken: false
kind: ServiceAccount
metadata:
  annotations:
    meta.helm.sh/release-name: report-runner
    meta.helm.sh/release-namespace: {ns}
  creationTimestamp: "2025-10-31T09:12:44Z"
  labels:
    app.kubernetes.io/managed-by: Helm
    helm.sh/chart: quillon-common-3.0.0
  name: report-runner
  namespace: {ns}
"""
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "31m",
                "Normal",
                "Scheduled",
                f"Pod/{rrp[0]}",
                f"Successfully assigned {ns}/{rrp[0]} to {NODES_PDX[0][0]}",
            ),
            (
                "31m",
                "Normal",
                "Scheduled",
                f"Pod/{rrp[1]}",
                f"Successfully assigned {ns}/{rrp[1]} to {NODES_PDX[2][0]}",
            ),
            *[
                (
                    "40s (x140 over 30m)",
                    "Warning",
                    "BackOff",
                    f"Pod/{p}",
                    f"Back-off restarting failed container report-runner in pod {p}_{ns}",
                )
                for p in rrp
            ],
        ]
    )
    apip = [pod_name(api, s[0]) for s in api["pods"]]
    evs = [
        ev(
            "cluster-autoscaler",
            "info",
            "node group ng-general-v41 rotated: 3 nodes replaced (AMI ami-0b7f19c2d4e8a6f31)",
            at=start - 30,
        ),
        ev(
            "gitops",
            "info",
            "merged PR #2231 'security baseline: quillon-common 3.0.0 (automountServiceAccountToken: false by default)' into 14 charts",
            at=-172000,
        ),
        ev(
            "reports-api",
            "error",
            "POST /v2/reports/{n}/run 503: no report-runner accepted the job within 30s",
            **{"from": start + 60, "to": -2, "every_s": 4},
            pods=apip,
        ),
        ev(
            "reports-api",
            "warn",
            "scheduled report {n} missed its delivery window",
            **{"from": start + 300, "to": -2, "every_s": 30},
            pods=apip,
        ),
        ev(
            "reports-api",
            "warn",
            "S3 PutObject retry ({ms}ms) for export {n}",
            **{"from": -3500, "to": -10, "every_s": 350},
            pods=apip,
        ),
        ev(
            "report-runner",
            "error",
            "F1205 panic: building in-cluster config: open /var/run/secrets/kubernetes.io/serviceaccount/token: no such file or directory",
            **{"from": start + 5, "to": -60, "every_s": 160},
            pods=rrp,
        ),
        ev(
            "warehouse-db",
            "warn",
            "checkpoint complete: wrote {n} buffers ({ms}.2%)",
            **{"from": -3600, "to": -5, "every_s": 300},
        ),
        ev(
            "report-runner",
            "error",
            'jobs.batch "report-{n}" is forbidden: exceeded quota: reporting-jobs-quota, requested: count/jobs.batch=1',
            **{"from": -9000, "to": -8800, "every_s": 40},
            pods=["report-runner-5c8d7f6b9-old7m"],
        ),
    ]
    return {
        "incident": incident(
            "scheduled reports are not arriving", "scheduled emails", start
        ),
        "expected": expected(
            "application",
            [
                "deployment/report-runner",
                "report-runner",
                "serviceaccount/report-runner",
                "replicaset/report-runner-6f8d5c9b7",
            ],
            "serviceaccount/token: no such file or directory",
            "The security baseline chart (quillon-common 3.0.0, merged two days ago) set automountServiceAccountToken: false on report-runner's ServiceAccount. report-runner uses the in-cluster API credentials to launch a Job per report; its pods only picked the change up when the node-group rotation recreated them 31 min ago, and now exit at start (open /var/run/secrets/kubernetes.io/serviceaccount/token: no such file or directory) in CrashLoopBackOff. reports-api's 503s and missed deliveries are the victim; the node rotation is the trigger, not the cause; the S3 retries, warehouse-db checkpoints and the old job quota error are not the cause.",
            [
                "report-runner (previous): open /var/run/secrets/kubernetes.io/serviceaccount/token: no such file or directory",
                "ServiceAccount report-runner: automountServiceAccountToken: false (quillon-common 3.0.0)",
                "report-runner pods CrashLoopBackOff since the node rotation 31 min ago",
            ],
            "Set automountServiceAccountToken: true for report-runner (ServiceAccount or pod spec) and restart it; let the baseline opt in the charts that need API access.",
        ),
        "kubernetes": k8s,
        "logs": logs(
            seed=224,
            background=[
                bg(
                    "reports-api",
                    apip,
                    ["GET /v2/reports/{n} 200 {ms}ms", "GET /healthz 200 1ms"],
                    8,
                )
            ],
            events=evs,
        ),
        "metrics": metrics(
            [
                {
                    "name": "reports-api",
                    "rps": 9,
                    "errors": {"503": (0.0, 0.3)},
                    "latency": (0.05, 2.1),
                }
            ],
            start=start,
            seed=224,
            gauges=[
                {
                    "name": "report_queue_depth",
                    "labels": {"service": "reports-api"},
                    "before": 4,
                    "after": 310,
                    "noise": 0.1,
                }
            ],
        ),
        "runbooks": {
            "reports-late.md": runbook(
                "Reports late or missing",
                "Late reports mean the job quota in reporting-jobs is full: delete finished Jobs (`kubectl delete jobs -n reporting-jobs --field-selector status.successful=1`) or raise count/jobs.batch.",
            )
        },
    }


# =================================================================================================
# 5. A RuntimeClass that no longer exists: snippet-runner's pods ask for `runtimeClassName: gvisor`.
#    A platform clean-up removed the gVisor node pool and its RuntimeClass two hours ago (nothing
#    seemed to use it: the running pods predate it). A Recreate rollout 28 min ago stopped the old
#    pods; the new ReplicaSet cannot create a single pod. The incident says "playground".
# =================================================================================================


@scenario("runtimeclass-removed")
def runtimeclass_removed() -> dict[str, Any]:
    start = -1680
    ns = "playground"
    img = "ghcr.io/codeloft/snippet-runner:5.1.0"
    rs_new = "snippet-runner-6c9f7d8b4"
    sr = app(
        "snippet-runner",
        image=img,
        port=8080,
        rs="6c9f7d8b4",
        cluster_ip="10.100.64.25",
        desired=4,
        pods=[],
        extra_rs=[
            (
                "snippet-runner-58d7c6f9b",
                "0",
                "0",
                "0",
                "61d",
                "snippet-runner",
                "ghcr.io/codeloft/snippet-runner:5.0.7",
                "app=snippet-runner,pod-template-hash=58d7c6f9b",
            )
        ],
    )
    pg = app(
        "playground-api",
        image="ghcr.io/codeloft/playground-api:14.6.0",
        port=8080,
        rs="9d7b5c6f8",
        cluster_ip="10.100.64.11",
        pods=[
            ("j6tnw", "1/1", "Running", "0", "3d", 0),
            ("q2lfz", "1/1", "Running", "0", "3d", 1),
        ],
    )
    k8s = namespace(ns, NODES_DUB, [sr, pg], seed=225)
    msg = f'Error creating: pods "{rs_new}-" is forbidden: pod rejected: RuntimeClass "gvisor" not found'
    cont = container_text(
        "snippet-runner",
        img,
        8080,
        limits="cpu:     2\n  memory:  1Gi",
        requests="cpu:      500m\n  memory:   1Gi",
    )
    k8s[f"kubectl describe replicasets {rs_new} -n {ns}"] = replicaset_describe(
        rs_new,
        ns,
        deployment="snippet-runner",
        revision=37,
        desired=4,
        current=0,
        status="0 Running / 0 Waiting / 0 Succeeded / 0 Failed",
        containers=cont,
        failure=True,
        events_rows=[
            (
                "Warning",
                "FailedCreate",
                "3m (x17 over 28m)",
                "replicaset-controller",
                msg,
            )
        ],
    ).replace(
        "  Node-Selectors:            <none>\n",
        "  Runtime Class Name:        gvisor\n  Node-Selectors:            <none>\n",
    )
    k8s[f"kubectl describe deployments snippet-runner -n {ns}"] = deployment_describe(
        "snippet-runner",
        ns,
        replicas="4 desired | 0 updated | 0 total | 0 available | 4 unavailable",
        revision=37,
        containers=cont,
        conditions=[
            ("Available", "False", "MinimumReplicasUnavailable"),
            ("ReplicaFailure", "True", "FailedCreate"),
            ("Progressing", "True", "ReplicaSetUpdated"),
        ],
        old_rs="snippet-runner-58d7c6f9b (0/0 replicas created)",
        new_rs=f"{rs_new} (0/4 replicas created)",
        strategy="Recreate",
        events_rows=[
            (
                "Normal",
                "ScalingReplicaSet",
                "28m",
                "deployment-controller",
                "Scaled down replica set snippet-runner-58d7c6f9b to 0 from 4",
            ),
            (
                "Normal",
                "ScalingReplicaSet",
                "28m",
                "deployment-controller",
                f"Scaled up replica set {rs_new} to 4",
            ),
        ],
    ).replace(
        "  Node-Selectors:            <none>\n",
        "  Runtime Class Name:        gvisor\n  Node-Selectors:            <none>\n",
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "28m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/snippet-runner",
                "Scaled down replica set snippet-runner-58d7c6f9b to 0 from 4",
            ),
            (
                "28m",
                "Normal",
                "Killing",
                "Pod/snippet-runner-58d7c6f9b-4hxkc",
                "Stopping container snippet-runner",
            ),
            (
                "28m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/snippet-runner",
                f"Scaled up replica set {rs_new} to 4",
            ),
            (
                "3m (x17 over 28m)",
                "Warning",
                "FailedCreate",
                f"ReplicaSet/{rs_new}",
                msg,
            ),
        ]
    )
    pgp = [pod_name(pg, s[0]) for s in pg["pods"]]
    evs = [
        ev(
            "terraform",
            "info",
            'module.eks.aws_eks_node_group.gvisor: Destruction complete after 6m12s; kubernetes_manifest.runtimeclass_gvisor: Destruction complete (PR #988 "remove unused sandbox node pool")',
            at=-7300,
        ),
        ev(
            "argocd",
            "info",
            "application playground/snippet-runner synced to 5.1.0 (python 3.13 image)",
            at=start - 20,
        ),
        ev(
            "playground-api",
            "error",
            "POST /v1/run 503: runner pool empty (snippet-runner.playground.svc: no endpoints)",
            **{"from": start + 15, "to": -2, "every_s": 1.5},
            pods=pgp,
        ),
        ev(
            "playground-api",
            "warn",
            "execution queue {n} waiting, oldest {ms}s",
            **{"from": start + 60, "to": -2, "every_s": 20},
            pods=pgp,
        ),
        ev(
            "playground-api",
            "warn",
            "GitHub OAuth token refresh slow ({ms}0ms)",
            **{"from": -3600, "to": -5, "every_s": 400},
            pods=pgp,
        ),
        ev(
            "docs-site",
            "error",
            "GET /docs/snippets/{n} 404",
            **{"from": -3600, "to": -5, "every_s": 180},
        ),
        ev(
            "playground-api",
            "error",
            "POST /v1/run 504: snippet exceeded the 10s wall-clock limit",
            **{"from": -9500, "to": -9200, "every_s": 30},
            pods=pgp,
        ),
    ]
    return {
        "incident": incident(
            "code playground not running code",
            "playground",
            start,
            ["pressing Run spins and then says 'runner unavailable'"],
        ),
        "expected": expected(
            "platform",
            [
                "deployment/snippet-runner",
                "snippet-runner",
                f"replicaset/{rs_new}",
                "runtimeclass/gvisor",
                "gvisor",
            ],
            'RuntimeClass "gvisor" not found',
            'snippet-runner\'s pod template asks for runtimeClassName: gvisor. The RuntimeClass and the gVisor node pool were removed two hours ago as unused (the running pods predated the removal). The Recreate rollout of 5.1.0 28 min ago stopped all four old pods; the new ReplicaSet cannot create any (pods "snippet-runner-6c9f7d8b4-" is forbidden: pod rejected: RuntimeClass "gvisor" not found), so playground-api has no runners. playground-api\'s 503s are the victim; the 5.1.0 image itself, the OAuth and docs noise and the old 504s are not the cause.',
            [
                'FailedCreate: pod rejected: RuntimeClass "gvisor" not found',
                "Terraform: runtimeclass_gvisor and the gvisor node group destroyed 2 h ago",
                "snippet-runner: 0/4 replicas, Recreate strategy",
            ],
            "Recreate the gvisor RuntimeClass and its node pool (or drop runtimeClassName until then) and let the ReplicaSet create its pods.",
        ),
        "kubernetes": k8s,
        "logs": logs(
            seed=225,
            background=[
                bg(
                    "playground-api",
                    pgp,
                    ["GET /v1/snippets/{n} 200 {ms}ms", "GET /healthz 200 1ms"],
                    8,
                ),
                bg(
                    "snippet-runner",
                    [
                        "snippet-runner-58d7c6f9b-4hxkc",
                        "snippet-runner-58d7c6f9b-w8qzt",
                    ],
                    ["run {n} finished exit=0 in {ms}0ms"],
                    8,
                    until=start - 20,
                ),
            ],
            events=evs,
        ),
        "metrics": metrics(
            [
                {
                    "name": "playground-api",
                    "rps": 20,
                    "errors": {"503": (0.0, 0.6)},
                    "latency": (0.3, 0.02),
                }
            ],
            start=start,
            seed=225,
            gauges=[
                {
                    "name": "runner_pool_available",
                    "labels": {"service": "playground-api"},
                    "before": 4,
                    "after": 0,
                    "noise": 0.0,
                }
            ],
        ),
        "runbooks": {
            "runs-failing.md": runbook(
                "Code runs failing",
                "Failing runs usually follow a bad runner image: check the last snippet-runner release notes and roll back with `argocd app rollback playground/snippet-runner`.",
            )
        },
    }


# =================================================================================================
# 6. A namespace stuck in Terminating: tenant-operator re-provisions a tenant on a plan upgrade by
#    deleting its namespace and creating it again. The namespace controller cannot finish the
#    deletion because API discovery fails for metrics.k8s.io/v1beta1 (metrics-server was removed
#    last week, its APIService left behind). The namespace keeps its `kubernetes` finalizer; the
#    operator cannot recreate it. The incident says "workspaces".
# =================================================================================================


@scenario("namespace-stuck-terminating")
def namespace_stuck_terminating() -> dict[str, Any]:
    start = -2160
    ns = "tenant-system"
    tns = "tenant-brightwave"
    op = app(
        "tenant-operator",
        image="ghcr.io/cloudnook/tenant-operator:1.22.0",
        port=8080,
        rs="7d5f8b6c9",
        cluster_ip="10.100.12.40",
        pods=[("h8xqm", "1/1", "Running", "0", "12d", 1)],
    )
    gw = app(
        "tenant-gateway",
        image="ghcr.io/cloudnook/tenant-gateway:8.4.2",
        port=8443,
        rs="5c9d7f6b8",
        cluster_ip="10.100.12.8",
        pods=[
            ("m3rtz", "1/1", "Running", "0", "12d", 0),
            ("x7kdn", "1/1", "Running", "0", "12d", 2),
        ],
    )
    k8s = namespace(
        ns,
        NODES_FRA,
        [op, gw],
        seed=226,
        extra_namespaces=("tenant-acorn", "tenant-lumio"),
    )
    rows = h7.h5.split_table(k8s["kubectl get namespaces"])
    rows.append([tns, "Terminating", "211d"])
    k8s["kubectl get namespaces"] = table([rows[0], *sorted(rows[1:])])
    k8s[f"kubectl describe namespaces {tns}"] = f"""Name:         {tns}
Labels:       kubernetes.io/metadata.name={tns}
              tenants.cloudnook.io/plan=team
Annotations:  <none>
Status:       Terminating
Conditions:
  Type                                         Status  LastTransitionTime               Reason                Message
  ----                                         ------  ------------------               ------                -------
  NamespaceDeletionDiscoveryFailure            True    {when(-2150)}  DiscoveryFailed       Discovery failed for some groups, 1 failing: unable to retrieve the complete list of server APIs: metrics.k8s.io/v1beta1: stale GroupVersion discovery: metrics.k8s.io/v1beta1
  NamespaceDeletionGroupVersionParsingFailure  False   {when(-2150)}  ParsedGroupVersions   All legacy kube types successfully parsed
  NamespaceDeletionContentFailure              False   {when(-2150)}  ContentDeleted        All content successfully deleted, may be waiting on finalization
  NamespaceContentRemaining                    False   {when(-2090)}  ContentRemoved        All content successfully removed
  NamespaceFinalizersRemaining                 False   {when(-2150)}  ContentHasNoFinalizers  All content-preserving finalizers finished

No resource quota.

No LimitRange resource.
"""
    k8s[f"kubectl get namespaces {tns} -o yaml"] = f"""apiVersion: v1
kind: Namespace
metadata:
  creationTimestamp: "2026-05-08T10:41:19Z"
  deletionTimestamp: "{base.iso(-2155)}"
  labels:
    kubernetes.io/metadata.name: {tns}
    tenants.cloudnook.io/plan: team
  name: {tns}
spec:
  finalizers:
  - kubernetes
status:
  conditions:
  - lastTransitionTime: "{base.iso(-2150)}"
    message: 'Discovery failed for some groups, 1 failing: unable to retrieve the complete
      list of server APIs: metrics.k8s.io/v1beta1: stale GroupVersion discovery: metrics.k8s.io/v1beta1'
    reason: DiscoveryFailed
    status: "True"
    type: NamespaceDeletionDiscoveryFailure
  phase: Terminating
"""
    k8s[f"kubectl get pods -n {tns}"] = base.no_resources(tns)
    opp = pod_name(op, "h8xqm")
    k8s[f"kubectl logs {opp} -n {ns} --tail=1000"] = podlog(
        [
            (
                -2160,
                "INFO  reconcile tenant brightwave: plan team -> business, strategy reprovision",
            ),
            (-2155, f"INFO  deleted namespace {tns}, waiting for deletion"),
            (-1560, f"WARN  namespace {tns} still terminating after 10m0s"),
            (
                -1555,
                f'ERROR create namespace {tns}: object is being deleted: namespaces "{tns}" already exists',
            ),
            (
                -1550,
                f'ERROR create deployment workspace-app in {tns}: namespaces "{tns}" is forbidden: unable to create new content in namespace {tns} because it is being terminated',
            ),
            (
                -60,
                f"ERROR reconcile tenant brightwave failed (attempt 24): namespace {tns} still terminating after 35m0s",
            ),
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "36m",
                "Normal",
                "Reprovision",
                "Tenant/brightwave",
                "plan change team -> business: deleting namespace tenant-brightwave",
            )
        ]
    )
    gwp = [pod_name(gw, s[0]) for s in gw["pods"]]
    evs = [
        ev(
            "billing-webhook",
            "info",
            "billing-webhook 3.3.0 started (Stripe API 2026-11-20)",
            at=-5400,
        ),
        ev(
            "billing-webhook",
            "info",
            "subscription sub_{n} upgraded: tenant brightwave team -> business",
            at=start - 10,
        ),
        ev(
            "tenant-operator",
            "info",
            f"reconcile tenant brightwave: plan team -> business, strategy reprovision; deleted namespace {tns}",
            at=start - 5,
            pods=[opp],
        ),
        ev(
            "tenant-operator",
            "error",
            f'create deployment workspace-app in {tns}: namespaces "{tns}" is forbidden: unable to create new content in namespace {tns} because it is being terminated',
            **{"from": start + 600, "to": -2, "every_s": 90},
            pods=[opp],
        ),
        ev(
            "kube-controller-manager",
            "error",
            f"namespace_controller: deletion of namespace {tns} failed: Discovery failed for some groups, 1 failing: unable to retrieve the complete list of server APIs: metrics.k8s.io/v1beta1: stale GroupVersion discovery: metrics.k8s.io/v1beta1",
            **{"from": start + 10, "to": -5, "every_s": 120},
        ),
        ev(
            "tenant-gateway",
            "error",
            "GET https://brightwave.cloudnook.app/{n} 503: no upstream for tenant brightwave (service workspace-app.tenant-brightwave not found)",
            **{"from": start + 20, "to": -2, "every_s": 2},
            pods=gwp,
        ),
        ev(
            "tenant-gateway",
            "warn",
            "certificate for *.cloudnook.app renews in 21 days",
            **{"from": -3600, "to": -5, "every_s": 900},
            pods=gwp,
        ),
        ev(
            "platform-changes",
            "info",
            "CHG-7719 done: metrics-server uninstalled (HPA now on keda / prometheus-adapter)",
            at=-604000,
        ),
        ev(
            "usage-metering",
            "warn",
            "usage export for tenant acorn late by {ms}s",
            **{"from": -3600, "to": -10, "every_s": 300},
        ),
        ev(
            "tenant-gateway",
            "error",
            "upstream tenant-lumio/workspace-app reset connection",
            **{"from": -9200, "to": -9000, "every_s": 30},
            pods=gwp,
        ),
    ]
    return {
        "incident": incident(
            "customer workspace down after their plan upgrade", "workspaces", start
        ),
        "expected": expected(
            "platform",
            [
                f"namespace/{tns}",
                tns,
                "apiservice/v1beta1.metrics.k8s.io",
                "v1beta1.metrics.k8s.io",
                "metrics-server",
            ],
            "metrics.k8s.io/v1beta1",
            f"tenant-operator re-provisions a tenant on a plan upgrade by deleting its namespace and creating it again. The namespace controller cannot finish deleting {tns}: API discovery fails for metrics.k8s.io/v1beta1 (metrics-server was uninstalled last week and its APIService left behind), so the namespace keeps its kubernetes finalizer and stays Terminating for 36 min; the operator cannot recreate the namespace or its workloads and tenant-gateway has no upstream for the tenant. tenant-gateway's 503s and the operator's errors are the effect; the billing-webhook release and the upgrade itself are the trigger, not the cause; the certificate, metering and old reset lines are noise.",
            [
                f"namespace {tns}: Terminating, NamespaceDeletionDiscoveryFailure: stale GroupVersion discovery: metrics.k8s.io/v1beta1",
                "tenant-operator: unable to create new content in namespace ... because it is being terminated",
                "CHG-7719: metrics-server uninstalled last week",
            ],
            "Delete the stale APIService v1beta1.metrics.k8s.io (or reinstall metrics-server); the namespace then finishes terminating and the operator recreates it.",
        ),
        "kubernetes": k8s,
        "logs": logs(
            seed=226,
            background=[
                bg(
                    "tenant-gateway",
                    gwp,
                    [
                        "GET https://acorn.cloudnook.app/{n} 200 {ms}ms",
                        "GET https://lumio.cloudnook.app/{n} 200 {ms}ms",
                    ],
                    8,
                ),
                bg("tenant-operator", [opp], ["reconcile tenant {n}: no changes"], 30),
            ],
            events=evs,
        ),
        "metrics": metrics(
            [
                {
                    "name": "tenant-gateway",
                    "rps": 80,
                    "errors": {"503": (0.0, 0.12)},
                    "latency": (0.03, 0.03),
                }
            ],
            start=start,
            seed=226,
            gauges=[
                {
                    "name": "tenant_reconcile_errors",
                    "labels": {"service": "tenant-operator"},
                    "before": 0,
                    "after": 1,
                    "noise": 0.0,
                }
            ],
        ),
        "runbooks": {
            "tenant-down.md": runbook(
                "A tenant's workspace is down",
                "A single tenant returning 503 means tenant-gateway's route cache is stale: `kubectl rollout restart deployment/tenant-gateway -n tenant-system`.",
            )
        },
    }


# =================================================================================================
# 7. An init container waiting for a Service that was renamed: pick-planner's `wait-for-db` init
#    container loops on `nc -z inventory-db 5432`. The database chart upgrade two days ago renamed the
#    Service to inventory-postgresql (the DB_HOST secret was updated, the init script was not). The
#    running pods never re-ran it; a node-group upgrade drained them 26 min ago and the new pods wait
#    forever in Init:0/1. The incident says "warehouse".
# =================================================================================================


@scenario("init-waits-renamed-service")
def init_waits_renamed_service() -> dict[str, Any]:
    start = -1560
    ns = "warehouse"
    img = "ghcr.io/nordlager/pick-planner:11.4.2"
    pp = app(
        "pick-planner",
        image=img,
        port=8080,
        rs="7f6c9b8d5",
        cluster_ip="10.100.23.19",
        pods=[
            ("b9wzk", "0/1", "Init:0/1", "0", "26m", 0),
            ("r4mxq", "0/1", "Init:0/1", "0", "25m", 2),
        ],
    )
    db = app(
        "inventory-postgresql",
        image="docker.io/bitnami/postgresql:16.4.0",
        port=5432,
        rs="0",
        kind="StatefulSet",
        cluster_ip="10.100.23.51",
        age="2d",
        pods=[("0", "1/1", "Running", "0", "2d", 1)],
        labels="app.kubernetes.io/name=postgresql,app.kubernetes.io/instance=inventory",
    )
    scan = app(
        "scan-api",
        image="ghcr.io/nordlager/scan-api:9.0.3",
        port=8080,
        rs="6d8b5f7c9",
        cluster_ip="10.100.23.7",
        pods=[
            ("k2ndv", "1/1", "Running", "0", "25m", 1),
            ("w6qtl", "1/1", "Running", "0", "25m", 2),
        ],
    )
    sts = table(
        [
            ["NAME", "READY", "AGE", "CONTAINERS", "IMAGES"],
            [
                "inventory-postgresql",
                "1/1",
                "2d",
                "postgresql",
                "docker.io/bitnami/postgresql:16.4.0",
            ],
        ]
    )
    k8s = namespace(ns, NODES_IAD, [pp, db, scan], seed=227, statefulsets=sts)
    ppp = [pod_name(pp, s[0]) for s in pp["pods"]]
    init = (
        "Init Containers:\n  wait-for-db:\n    Image:      docker.io/library/busybox:1.36\n"
        "    Command:\n      sh\n      -c\n      until nc -z -w 2 inventory-db 5432; do echo waiting for inventory-db:5432; sleep 2; done\n"
        f"    State:          Running\n      Started:      {when(-1555)}\n    Ready:          False\n    Restart Count:  0\n"
    )
    for i, p in enumerate(ppp):
        node = NODES_IAD[0 if i == 0 else 2]
        k8s[f"kubectl describe pods {p} -n {ns}"] = pending_pod(
            p,
            ns,
            owner="ReplicaSet/pick-planner-7f6c9b8d5",
            labels=["app=pick-planner", "pod-template-hash=7f6c9b8d5"],
            sa="pick-planner",
            node=f"{node[0]}/{node[2]}",
            ip=ips_of(k8s, ns)[p],
            init=init,
            containers=(
                f"  pick-planner:\n    Image:          {img}\n    Port:           8080/TCP\n"
                "    State:          Waiting\n      Reason:       PodInitializing\n    Ready:          False\n    Restart Count:  0\n"
                "    Environment:\n      DB_HOST:  <set to the key 'host' in secret 'inventory-db-conn'>  Optional: false"
            ),
            conditions=[
                ("PodReadyToStartContainers", "True"),
                ("Initialized", "False"),
                ("Ready", "False"),
                ("ContainersReady", "False"),
                ("PodScheduled", "True"),
            ],
            events_rows=[
                (
                    "Normal",
                    "Scheduled",
                    "26m",
                    "default-scheduler",
                    f"Successfully assigned {ns}/{p} to {node[0]}",
                ),
                (
                    "Normal",
                    "Pulled",
                    "26m",
                    "kubelet",
                    'Container image "docker.io/library/busybox:1.36" already present on machine',
                ),
                (
                    "Normal",
                    "Started",
                    "26m",
                    "kubelet",
                    "Started container wait-for-db",
                ),
            ],
        )
        k8s[f"kubectl logs {p} -n {ns} -c wait-for-db --tail=1000"] = "".join(
            "nc: bad address 'inventory-db'\nwaiting for inventory-db:5432\n"
            for _ in range(6)
        )
    k8s[
        f"kubectl describe services inventory-postgresql -n {ns}"
    ] = f"""Name:                     inventory-postgresql
Namespace:                {ns}
Labels:                   app.kubernetes.io/instance=inventory
                          app.kubernetes.io/name=postgresql
                          helm.sh/chart=postgresql-16.2.1
Annotations:              meta.helm.sh/release-name: inventory
Selector:                 app.kubernetes.io/instance=inventory,app.kubernetes.io/name=postgresql
Type:                     ClusterIP
IP:                       10.100.23.51
Port:                     tcp-postgresql  5432/TCP
TargetPort:               tcp-postgresql/TCP
Endpoints:                {ips_of(k8s, ns)["inventory-postgresql-0"]}:5432
Events:                   <none>
"""
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "27m",
                "Normal",
                "NodeNotSchedulable",
                "Node/ip-10-61-1-9.us-east-1.compute.internal",
                "Node ip-10-61-1-9.us-east-1.compute.internal status is now: NodeNotSchedulable",
            ),
            (
                "26m",
                "Normal",
                "Killing",
                "Pod/pick-planner-7f6c9b8d5-c5hrp",
                "Stopping container pick-planner",
            ),
            (
                "26m",
                "Normal",
                "Scheduled",
                f"Pod/{ppp[0]}",
                f"Successfully assigned {ns}/{ppp[0]} to {NODES_IAD[0][0]}",
            ),
            (
                "26m",
                "Normal",
                "Started",
                f"Pod/{ppp[0]}",
                "Started container wait-for-db",
            ),
            (
                "25m",
                "Normal",
                "Killing",
                "Pod/pick-planner-7f6c9b8d5-t8wzn",
                "Stopping container pick-planner",
            ),
            (
                "25m",
                "Normal",
                "Scheduled",
                f"Pod/{ppp[1]}",
                f"Successfully assigned {ns}/{ppp[1]} to {NODES_IAD[2][0]}",
            ),
            (
                "25m",
                "Normal",
                "Started",
                f"Pod/{ppp[1]}",
                "Started container wait-for-db",
            ),
        ]
    )
    scp = [pod_name(scan, s[0]) for s in scan["pods"]]
    evs = [
        ev(
            "eks",
            "info",
            "node group ng-warehouse-v7 update to 1.31: draining ip-10-61-1-9.us-east-1.compute.internal, ip-10-61-2-77.us-east-1.compute.internal",
            at=start - 80,
        ),
        ev(
            "helm",
            "info",
            "release inventory upgraded: chart inventory-db 2.x -> bitnami/postgresql 16.2.1 (service renamed inventory-db -> inventory-postgresql; secret inventory-db-conn host updated)",
            at=-171000,
        ),
        ev(
            "scan-api",
            "error",
            "POST /v1/picklists 503: pick-planner.warehouse.svc: no endpoints available",
            **{"from": start + 30, "to": -2, "every_s": 2.5},
            pods=scp,
        ),
        ev(
            "scan-api",
            "warn",
            "handheld {n} sync backlog {ms} scans",
            **{"from": start + 120, "to": -2, "every_s": 25},
            pods=scp,
        ),
        ev(
            "inventory-postgresql",
            "warn",
            "checkpoints are occurring too frequently ({ms} seconds apart)",
            **{"from": -3600, "to": -5, "every_s": 400},
        ),
        ev(
            "label-printer",
            "warn",
            "printer zebra-{ms} out of labels",
            **{"from": -3600, "to": -5, "every_s": 500},
        ),
        ev(
            "pick-planner",
            "error",
            "optimizer timeout for wave {n} after 30s, falling back to greedy",
            **{"from": -9400, "to": -9100, "every_s": 40},
            pods=["pick-planner-7f6c9b8d5-c5hrp"],
        ),
    ]
    return {
        "incident": incident(
            "warehouse pick lists not being generated",
            "warehouse",
            start,
            ["handhelds show 'no pick list' for every order since about 25 minutes"],
        ),
        "expected": expected(
            "application",
            [
                "deployment/pick-planner",
                "pick-planner",
                "replicaset/pick-planner-7f6c9b8d5",
            ],
            "bad address 'inventory-db'",
            "pick-planner's init container wait-for-db loops on `nc -z inventory-db 5432`. Two days ago the database chart upgrade renamed the Service to inventory-postgresql (the DB_HOST secret was updated, the init script was not). The running pods never re-ran it; the node-group upgrade drained them 26 min ago and the new pods wait forever in Init:0/1 (nc: bad address 'inventory-db'), so pick-planner has no endpoints and scan-api gets 503s. The database is up; scan-api's 503s and backlog are the victim; the node-group upgrade is the trigger; checkpoint, printer and the old optimizer timeout are not the cause.",
            [
                "pick-planner pods Init:0/1 for 26 min; wait-for-db: nc: bad address 'inventory-db'",
                "Service inventory-postgresql (renamed from inventory-db by the chart upgrade)",
                "scan-api: pick-planner.warehouse.svc: no endpoints available",
            ],
            "Point the init container at inventory-postgresql (or at $DB_HOST) and roll pick-planner; a temporary ExternalName Service inventory-db -> inventory-postgresql unblocks it at once.",
        ),
        "kubernetes": k8s,
        "logs": logs(
            seed=227,
            background=[
                bg(
                    "scan-api",
                    scp,
                    ["POST /v1/scans 201 {ms}ms", "GET /healthz 200 1ms"],
                    8,
                ),
                bg(
                    "pick-planner",
                    ["pick-planner-7f6c9b8d5-c5hrp", "pick-planner-7f6c9b8d5-t8wzn"],
                    ["wave {n} planned: {ms} picks"],
                    10,
                    until=start - 60,
                ),
            ],
            events=evs,
        ),
        "metrics": metrics(
            [
                {
                    "name": "scan-api",
                    "rps": 35,
                    "errors": {"503": (0.0, 0.25)},
                    "latency": (0.04, 0.05),
                }
            ],
            start=start,
            seed=227,
            gauges=[
                {
                    "name": "picklists_generated_per_min",
                    "labels": {"service": "pick-planner"},
                    "before": 140,
                    "after": 0,
                    "noise": 0.05,
                }
            ],
        ),
        "runbooks": {
            "no-pick-lists.md": runbook(
                "No pick lists",
                "No pick lists usually means the inventory database is down or failing over: check inventory-postgresql's replication and restart the primary if it is stuck.",
            )
        },
    }


# =================================================================================================
# 8. Exec probes calling a binary the image no longer has: transcoder 3.0.0 moved to a distroless
#    base image; its liveness and readiness probes still run `curl -fsS localhost:8080/healthz`. The
#    probes error, the pods never become Ready and the kubelet restarts them every ~40 s. The
#    incident says "video uploads".
# =================================================================================================


@scenario("exec-probe-binary-missing")
def exec_probe_binary_missing() -> dict[str, Any]:
    start = -1980
    ns = "media"
    img = "ghcr.io/vidora/transcoder:3.0.0"
    tc = app(
        "transcoder",
        image=img,
        port=8080,
        rs="6b8f9d7c5",
        cluster_ip="10.100.57.30",
        pods=[
            ("c4nqx", "0/1", "Running", "38 (22s ago)", "33m", 0),
            ("k9trw", "0/1", "Running", "37 (41s ago)", "33m", 1),
            ("v2hmz", "0/1", "Running", "38 (9s ago)", "32m", 2),
        ],
        extra_rs=[
            (
                "transcoder-5d7c8b9f6",
                "0",
                "0",
                "0",
                "41d",
                "transcoder",
                "ghcr.io/vidora/transcoder:2.9.4",
                "app=transcoder,pod-template-hash=5d7c8b9f6",
            )
        ],
    )
    up = app(
        "upload-api",
        image="ghcr.io/vidora/upload-api:15.1.0",
        port=8080,
        rs="8c6d7f5b9",
        cluster_ip="10.100.57.12",
        pods=[
            ("f7wkd", "1/1", "Running", "0", "6d", 0),
            ("n3qzr", "1/1", "Running", "0", "6d", 2),
        ],
    )
    k8s = namespace(ns, NODES_PDX, [tc, up], seed=228)
    tcp = [pod_name(tc, s[0]) for s in tc["pods"]]
    oci = 'rpc error: code = Unknown desc = failed to exec in container: failed to start exec "{id}": OCI runtime exec failed: exec failed: unable to start container process: exec: "curl": executable file not found in $PATH: unknown'
    probes = (
        "    Liveness:       exec [curl -fsS http://localhost:8080/healthz] delay=5s timeout=1s period=10s #success=1 #failure=3\n"
        "    Readiness:      exec [curl -fsS http://localhost:8080/healthz] delay=5s timeout=1s period=5s #success=1 #failure=3\n"
    )
    for sfx, _, _, restarts, _, _ in tc["pods"]:
        n = int(restarts.split()[0])
        describe_pod(
            k8s,
            ns,
            tc,
            sfx,
            NODES_PDX,
            state=running(-22)
            + f"\n    Last State:     Terminated\n      Reason:       Error\n      Exit Code:    137\n      Started:      {when(-64)}\n      Finished:     {when(-23)}",
            started=-1980,
            restarts=n,
            probes=probes,
            events_rows=[
                (
                    "Warning",
                    "Unhealthy",
                    f"12s (x{3 * n + 2} over 33m)",
                    "kubelet",
                    "Liveness probe errored: "
                    + oci.replace("{id}", "5f1c0e8a9d2b7c63"),
                ),
                (
                    "Warning",
                    "Unhealthy",
                    f"7s (x{6 * n + 5} over 33m)",
                    "kubelet",
                    "Readiness probe errored: "
                    + oci.replace("{id}", "a93e7b1d04c25f88"),
                ),
                (
                    "Normal",
                    "Killing",
                    f"23s (x{n} over 32m)",
                    "kubelet",
                    "Container transcoder failed liveness probe, will be restarted",
                ),
            ],
        )
    k8s[f"kubectl describe deployments transcoder -n {ns}"] = deployment_describe(
        "transcoder",
        ns,
        replicas="3 desired | 3 updated | 3 total | 0 available | 3 unavailable",
        revision=52,
        containers=container_text(
            "transcoder",
            img,
            8080,
            limits="cpu:     4\n  memory:  4Gi",
            requests="cpu:      2\n  memory:   4Gi",
            liveness="exec [curl -fsS http://localhost:8080/healthz] delay=5s timeout=1s period=10s #success=1 #failure=3",
            readiness="exec [curl -fsS http://localhost:8080/healthz] delay=5s timeout=1s period=5s #success=1 #failure=3",
        ),
        conditions=[
            ("Available", "False", "MinimumReplicasUnavailable"),
            ("Progressing", "False", "ProgressDeadlineExceeded"),
        ],
        old_rs="transcoder-5d7c8b9f6 (0/0 replicas created)",
        new_rs="transcoder-6b8f9d7c5 (3/3 replicas created)",
        strategy="Recreate",
        events_rows=[
            (
                "Normal",
                "ScalingReplicaSet",
                "33m",
                "deployment-controller",
                "Scaled down replica set transcoder-5d7c8b9f6 to 0 from 3",
            ),
            (
                "Normal",
                "ScalingReplicaSet",
                "33m",
                "deployment-controller",
                "Scaled up replica set transcoder-6b8f9d7c5 to 3",
            ),
        ],
    )
    k8s[f"kubectl logs {tcp[0]} -n {ns} --previous --tail=1000"] = podlog(
        [
            (
                -64,
                'level=info msg="transcoder 3.0.0 starting" base=gcr.io/distroless/cc-debian12 ffmpeg=7.1',
            ),
            (-63, 'level=info msg="listening" addr=:8080'),
            (-60, 'level=info msg="claimed job" job=upl_8812 profile=1080p'),
            (
                -24,
                'level=info msg="received terminated signal, abandoning job" job=upl_8812',
            ),
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "33m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/transcoder",
                "Scaled down replica set transcoder-5d7c8b9f6 to 0 from 3",
            ),
            (
                "33m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/transcoder",
                "Scaled up replica set transcoder-6b8f9d7c5 to 3",
            ),
            *[
                (
                    "12s (x110 over 33m)",
                    "Warning",
                    "Unhealthy",
                    f"Pod/{p}",
                    "Liveness probe errored: "
                    + oci.replace("{id}", "5f1c0e8a9d2b7c63"),
                )
                for p in tcp
            ],
            *[
                (
                    "23s (x37 over 32m)",
                    "Normal",
                    "Killing",
                    f"Pod/{p}",
                    "Container transcoder failed liveness probe, will be restarted",
                )
                for p in tcp
            ],
        ]
    )
    upp = [pod_name(up, s[0]) for s in up["pods"]]
    evs = [
        ev(
            "argocd",
            "info",
            "application media/transcoder synced to 3.0.0 (distroless base image, ffmpeg 7.1)",
            at=start - 5,
        ),
        ev(
            "transcoder",
            "info",
            "claimed job upl_{n} profile=1080p",
            **{"from": start + 10, "to": -5, "every_s": 15},
            pods=tcp,
        ),
        ev(
            "transcoder",
            "info",
            "received terminated signal, abandoning job upl_{n}",
            **{"from": start + 45, "to": -5, "every_s": 14},
            pods=tcp,
        ),
        ev(
            "upload-api",
            "error",
            "job upl_{n} requeued: transcoder lease lost (attempt {ms})",
            **{"from": start + 60, "to": -2, "every_s": 3},
            pods=upp,
        ),
        ev(
            "upload-api",
            "warn",
            "transcode queue depth {n}",
            **{"from": start + 120, "to": -2, "every_s": 30},
            pods=upp,
        ),
        ev(
            "upload-api",
            "warn",
            "S3 multipart upload part retry ({ms}ms)",
            **{"from": -3600, "to": -5, "every_s": 300},
            pods=upp,
        ),
        ev(
            "thumbnailer",
            "error",
            "cannot decode HEIC frame for upl_{n}: unsupported codec",
            **{"from": -3600, "to": -5, "every_s": 240},
        ),
        ev(
            "transcoder",
            "error",
            "ffmpeg exited 1: Invalid data found when processing input (upl_{n})",
            **{"from": -9000, "to": -8800, "every_s": 40},
            pods=["transcoder-5d7c8b9f6-h2kxp"],
        ),
    ]
    return {
        "incident": incident(
            "uploaded videos stuck on 'processing'", "video uploads", start
        ),
        "expected": expected(
            "application",
            ["deployment/transcoder", "transcoder", "replicaset/transcoder-6b8f9d7c5"],
            'exec: "curl": executable file not found in $PATH',
            'transcoder 3.0.0 (synced 33 min ago) moved to a distroless base image, which has no curl; its liveness and readiness probes still exec `curl -fsS http://localhost:8080/healthz`. Every probe errors (exec: "curl": executable file not found in $PATH), so the pods are never Ready and the kubelet kills each one about every 40 s, abandoning the job it holds; nothing is transcoded. upload-api\'s requeues and queue depth are the victim; the SIGTERM lines are the kubelet, not crashes; the S3 retries, the HEIC decode errors and the old ffmpeg error are not the cause.',
            [
                'Liveness probe errored: ... exec: "curl": executable file not found in $PATH',
                "Liveness/Readiness: exec [curl -fsS http://localhost:8080/healthz]; image base distroless",
                "transcoder: received terminated signal, abandoning job",
            ],
            "Change the probes to httpGet on :8080/healthz (or ship a probe binary) and roll transcoder; roll back to 2.9.4 meanwhile.",
        ),
        "kubernetes": k8s,
        "logs": logs(
            seed=228,
            background=[
                bg(
                    "upload-api",
                    upp,
                    ["POST /v1/uploads 201 {ms}ms", "GET /v1/uploads/{n} 200 {ms}ms"],
                    8,
                )
            ],
            events=evs,
        ),
        "metrics": metrics(
            [{"name": "upload-api", "rps": 15, "latency": (0.09, 0.1)}],
            start=start,
            seed=228,
            gauges=[
                {
                    "name": "transcode_queue_depth",
                    "labels": {"service": "upload-api"},
                    "before": 6,
                    "after": 480,
                    "noise": 0.1,
                }
            ],
        ),
        "runbooks": {
            "videos-processing.md": runbook(
                "Videos stuck processing",
                "Stuck transcodes are usually ffmpeg failing on a new codec: find the failing upload ids in transcoder's errors and mark them failed so the queue moves.",
            )
        },
    }


# =================================================================================================
# 9. An expired OAuth client secret at the identity provider: expense-api reads approvers from
#    Microsoft Graph with client credentials. The app registration's secret expired 80 min ago; the
#    cached access token hid it until it expired 27 min ago. The incident says "reimbursements".
# =================================================================================================


@scenario("oauth-client-secret-expired")
def oauth_client_secret_expired() -> dict[str, Any]:
    start = -1620
    pods = ["expense-api-7d9f-2kqx", "expense-api-7d9f-8wzn"]
    web = ["expense-web-1", "expense-web-2"]
    aad = "AADSTS7000222: The provided client secret keys for app 'c41f7a2e-93b8-4d6a-b1e0-5f2d8c7a9e13' are expired. Visit the Azure portal to create new keys for your app: https://aka.ms/NewClientSecret, or consider using certificate credentials for added security: https://aka.ms/certCreds. Trace ID: {n}"
    return simple(
        229,
        start,
        incident(
            "can't submit expense reports",
            "reimbursements",
            start,
            ["submit fails with 'could not load approvers'"],
        ),
        expected(
            "app",
            [
                "expense-api",
                "expenses-graph-client",
                "c41f7a2e-93b8-4d6a-b1e0-5f2d8c7a9e13",
            ],
            "AADSTS7000222",
            "expense-api looks up each report's approvers in Microsoft Graph with the client-credentials flow of the app registration expenses-graph-client. Its client secret expired 80 min ago; the cached access token kept working until it expired 27 min ago, and since then every token request fails with invalid_client (AADSTS7000222: the provided client secret keys are expired), so no approvers can be loaded and submissions fail. expense-web's 502s are the loud victim; its release, the old Graph throttling, the receipt OCR warnings and the SMTP noise are not the cause.",
            [
                "expense-api: token request to login.microsoftonline.com failed: invalid_client AADSTS7000222 client secret keys are expired",
                "expense-api: access token expires_in reached 27 min ago (cached since 13:02)",
                "expense-web: POST /reports/submit 502 could not load approvers",
            ],
            "Create a new client secret (or a certificate credential) for expenses-graph-client, store it in the vault entry expense-api reads and restart expense-api; add an expiry alert.",
        ),
        [
            bg(
                "expense-api",
                pods,
                ["GET /v1/reports/{n} 200 {ms}ms", "POST /v1/receipts 201 {ms}ms"],
                8,
            ),
            bg("expense-web", web, ["GET /reports 200 {ms}ms"], 8),
        ],
        [
            ev(
                "expense-api",
                "info",
                "graph token acquired for expenses-graph-client (expires_in=5399s)",
                at=-6950,
                pods=pods,
            ),
            ev(
                "expense-api",
                "warn",
                "client secret for expenses-graph-client expires in 2 days (endDateTime 2026-12-05T12:40:00Z)",
                at=-180000,
                pods=pods,
            ),
            ev(
                "expense-api",
                "info",
                "graph token cache: access token for expenses-graph-client expired, requesting a new one",
                at=start - 5,
                pods=pods,
            ),
            ev(
                "expense-api",
                "error",
                "token request to https://login.microsoftonline.com/7b2e0c1d-5a4f-4c8e-9d36-2f8b1a6e0c47/oauth2/v2.0/token failed: 401 invalid_client: "
                + aad,
                **{"from": start, "to": -2, "every_s": 6},
                pods=pods,
            ),
            ev(
                "expense-api",
                "error",
                "GET /v1/reports/{n}/approvers 502: Graph call skipped, no access token",
                **{"from": start + 2, "to": -2, "every_s": 4},
                pods=pods,
            ),
            ev(
                "expense-web",
                "error",
                "POST /reports/submit 502: could not load approvers (expense-api 502)",
                **{"from": start + 5, "to": -2, "every_s": 1.5},
                pods=web,
            ),
            ev(
                "expense-web",
                "info",
                "expense-web 9.12.0 started (mileage calculator)",
                at=start - 900,
                pods=web,
            ),
            ev(
                "receipt-ocr",
                "warn",
                "low confidence ({ms}%) for receipt {n}",
                **{"from": -3600, "to": -5, "every_s": 200},
            ),
            ev(
                "notify",
                "warn",
                "SMTP 451 4.7.0 temporary failure for {n}@corp.example, retrying",
                **{"from": -3600, "to": -5, "every_s": 500},
            ),
            ev(
                "expense-api",
                "error",
                "Graph GET /users/{n}/manager 429 TooManyRequests: Retry-After 30",
                **{"from": -9300, "to": -9000, "every_s": 30},
                pods=pods,
            ),
        ],
        [
            {
                "name": "expense-web",
                "rps": 20,
                "errors": {"502": (0.0, 0.3)},
                "latency": (0.1, 0.12),
            },
            {
                "name": "expense-api",
                "rps": 25,
                "errors": {"502": (0.0, 0.25)},
                "latency": (0.05, 0.03),
            },
        ],
        [
            {
                "name": "graph_token_errors",
                "labels": {"service": "expense-api"},
                "before": 0,
                "after": 10,
                "noise": 0.1,
            }
        ],
        {
            "approvers-missing.md": runbook(
                "Approvers not loading",
                "Missing approvers come from Graph throttling (429): lower GRAPH_MAX_CONCURRENCY to 4 in expense-api and wait for the Retry-After window.",
            )
        },
    )


# =================================================================================================
# 10. A rate limiter keyed on the wrong header: the API gateway limits per client by X-Real-IP. A
#     CDN was put in front 50 min ago; X-Real-IP is now the CDN edge's address, so thousands of users
#     share a handful of buckets and nearly everyone gets 429. The incident says "mobile app".
# =================================================================================================


@scenario("rate-limit-shared-bucket")
def rate_limit_shared_bucket() -> dict[str, Any]:
    start = -2700
    gw = ["api-gateway-0", "api-gateway-1", "api-gateway-2"]
    bff = ["mobile-bff-1", "mobile-bff-2"]
    return simple(
        230,
        start,
        incident("app says 'too many requests' for everyone", "mobile app", start),
        expected(
            "http",
            ["api-gateway", "rate-limiting", "X-Real-IP"],
            "limit exceeded for identifier",
            "api-gateway's rate-limiting plugin counts requests per client by the X-Real-IP header (limit_by: header, 600 per minute). The CDN put in front of api.parkwise.example 45 min ago connects from a handful of edge addresses, and X-Real-IP is now the edge's address, not the user's (the user's is in CF-Connecting-IP). Thousands of users share a few buckets, so nearly every request gets 429. mobile-bff's errors are the loud victim; the CDN switch is the trigger; the mobile-bff release, the old crawler burst and the map tile warnings are not the cause.",
            [
                "api-gateway: rate-limiting: limit exceeded for identifier 172.70.x.x (header X-Real-IP), 600/min",
                "api-gateway: distinct limiter identifiers fell from ~9000 to 14",
                "cdn: proxying enabled for api.parkwise.example",
            ],
            "Key the limiter on CF-Connecting-IP (trust it only from the CDN's ranges, or set the real-IP module to it) and reload the gateway.",
        ),
        [
            bg(
                "api-gateway",
                gw,
                ["GET /v2/zones/{n} 200 {ms}ms", "POST /v2/sessions 201 {ms}ms"],
                8,
                until=start,
            ),
            bg("mobile-bff", bff, ["GET /home 200 {ms}ms"], 8, until=start),
        ],
        [
            ev(
                "cdn",
                "info",
                "zone parkwise.example: DNS record api.parkwise.example set to proxied (orange cloud), TLS mode full-strict",
                at=start - 10,
            ),
            ev(
                "api-gateway",
                "warn",
                "rate-limiting: limit exceeded for identifier 172.70.{ms}.{ms} (header X-Real-IP), 600 per minute, route mobile-v2",
                **{"from": start + 20, "to": -2, "every_s": 4},
                pods=gw,
            ),
            ev(
                "api-gateway",
                "info",
                "GET /v2/zones/{n} 429 0ms",
                **{"from": start + 20, "to": -2, "every_s": 8},
                pods=gw,
            ),
            ev(
                "api-gateway",
                "info",
                "rate-limiting: {ms} distinct identifiers in the last minute (was 9{n})",
                **{"from": start + 60, "to": -2, "every_s": 60},
                pods=gw,
            ),
            ev(
                "api-gateway",
                "info",
                "rate-limiting: 9{n} distinct identifiers in the last minute",
                **{"from": -6000, "to": start, "every_s": 300},
                pods=gw,
            ),
            ev(
                "mobile-bff",
                "error",
                "GET /home 429 from api-gateway: Too Many Requests (Retry-After 41); user {n}",
                **{"from": start + 20, "to": -2, "every_s": 3},
                pods=bff,
            ),
            ev(
                "mobile-bff",
                "info",
                "mobile-bff 24.5.0 started (EV charger filter)",
                at=start - 1200,
                pods=bff,
            ),
            ev(
                "tile-cache",
                "warn",
                "map tile miss ratio {ms}%",
                **{"from": -3600, "to": -5, "every_s": 240},
            ),
            ev(
                "api-gateway",
                "warn",
                "rate-limiting: limit exceeded for identifier 66.249.66.{ms} (header X-Real-IP), 600 per minute, route public-v1",
                **{"from": -9800, "to": -9500, "every_s": 10},
                pods=gw,
            ),
        ],
        [
            {
                "name": "mobile-bff",
                "rps": 300,
                "errors": {"429": (0.0, 0.85)},
                "latency": (0.08, 0.02),
            },
            {
                "name": "api-gateway",
                "rps": 320,
                "errors": {"429": (0.0003, 0.86)},
                "latency": (0.05, 0.003),
            },
        ],
        [
            {
                "name": "ratelimit_distinct_identifiers",
                "labels": {"service": "api-gateway"},
                "before": 9200,
                "after": 14,
                "noise": 0.05,
            }
        ],
        {
            "429-spike.md": runbook(
                "Spike of 429 Too Many Requests",
                "A 429 spike is a bot or a scraper: find the top client IPs in the gateway logs and block them at the WAF, or enable the CDN's challenge mode.",
            )
        },
    )


def wave(
    name: str,
    labels: dict[str, str],
    low: float,
    high: float,
    windows: list[tuple[int, int]],
) -> dict[str, Any]:
    """A gauge at `low`, at `high` inside each (from, to) window: one point every 30 s over 2 h."""
    pts = []
    for off in range(-base.HISTORY_S, 1, h7.STEP_S):
        inside = any(a <= off <= b for a, b in windows)
        pts.append([off, high if inside else low])
    return {"name": name, "labels": labels, "type": "gauge", "points": pts}


# =================================================================================================
# 11. An hourly batch saturating a shared database: loyalty-rollup was moved from nightly to hourly
#     (at :00) three hours ago; each run holds row locks on member_balances for 10+ min while
#     checkout-api updates the same rows. Checkout times out in waves. The incident says "checkout".
# =================================================================================================


@scenario("hourly-batch-locks-shared-db")
def hourly_batch_locks_shared_db() -> dict[str, Any]:
    start = -540
    runs = [(-4200, -3420), (-600, 0)]
    co = ["checkout-api-1", "checkout-api-2", "checkout-api-3"]
    evs = [
        ev(
            "scheduler",
            "info",
            "cronjob loyalty-rollup schedule changed '0 2 * * *' -> '0 * * * *' (PR #5120 'fresher tier badges')",
            at=-11000,
        ),
        ev(
            "checkout-api",
            "info",
            "checkout-api 40.2.1 started (apple pay button)",
            at=-2900,
            pods=co,
        ),
        ev(
            "core-db",
            "warn",
            "checkpoints are occurring too frequently ({ms} seconds apart)",
            **{"from": -7000, "to": -5, "every_s": 500},
        ),
        ev(
            "search-api",
            "warn",
            "slow facet query {ms}0ms",
            **{"from": -3600, "to": -5, "every_s": 300},
        ),
        ev(
            "core-db",
            "error",
            "could not receive data from WAL stream: server closed the connection unexpectedly",
            **{"from": -9800, "to": -9700, "every_s": 30},
        ),
    ]
    for a, b in runs:
        evs += [
            ev(
                "loyalty-rollup",
                "info",
                "rollup started: recomputing tiers for 2.4M members",
                at=a + 2,
            ),
            ev(
                "core-db",
                "info",
                "app=loyalty-rollup LOG:  duration: {n}.118 ms  statement: UPDATE member_balances mb SET tier = t.tier, points_90d = t.pts FROM tier_calc t WHERE mb.member_id = t.member_id",
                **{"from": a + 60, "to": b - 5, "every_s": 45},
            ),
            ev(
                "core-db",
                "info",
                "app=checkout-api LOG:  process {n} still waiting for ShareLock on transaction 99{n} after 1000.2 ms; blocking process: 48211 (app=loyalty-rollup)",
                **{"from": a + 70, "to": b - 5, "every_s": 6},
            ),
            ev(
                "checkout-api",
                "error",
                "POST /v3/orders 500: ERROR: canceling statement due to statement timeout (UPDATE member_balances SET points = points + $1 WHERE member_id = $2)",
                **{"from": a + 80, "to": b - 2, "every_s": 1.5},
                pods=co,
            ),
            ev(
                "storefront",
                "error",
                "checkout submit failed: checkout-api 500 after 8000ms",
                **{"from": a + 85, "to": b - 2, "every_s": 1.0},
            ),
        ]
    evs.append(
        ev(
            "loyalty-rollup",
            "info",
            "rollup finished in 13m02s: 2.4M members, 611k tier changes",
            at=-3418,
        )
    )
    spec = simple(
        231,
        start,
        incident(
            "checkout timing out",
            "checkout",
            start,
            ["timeouts come in waves, then clear up for a while"],
        ),
        expected(
            "app",
            ["loyalty-rollup", "cronjob/loyalty-rollup"],
            "app=loyalty-rollup",
            "loyalty-rollup was moved from nightly to hourly (schedule '0 * * * *', three hours ago). Each run updates 2.4M member_balances rows in core-db for ~13 min, holding row locks the checkout path also takes (points + $1 on the same rows); checkout-api's statements wait on the batch's transaction (blocking process 48211, app=loyalty-rollup) and hit the 8 s statement timeout. Checkout fails in waves at the top of each hour, the current one since 9 min ago. core-db's checkpoint warnings and lock waits are the effect; checkout-api's release, the search slowness and the old replication drop are not the cause.",
            [
                "core-db: process ... still waiting for ShareLock ...; blocking process: 48211 (app=loyalty-rollup)",
                "core-db: app=loyalty-rollup duration ... UPDATE member_balances (every hour since the schedule change)",
                "checkout-api: canceling statement due to statement timeout, at :00-:13 each hour",
            ],
            "Put loyalty-rollup back on the nightly schedule (or batch it in small transactions with SKIP LOCKED outside checkout's rows) and stop the current run.",
        ),
        [
            bg(
                "checkout-api",
                co,
                ["POST /v3/orders 201 {ms}ms", "GET /v3/cart/{n} 200 {ms}ms"],
                8,
            ),
            bg(
                "storefront",
                ["storefront-1", "storefront-2"],
                ["GET /p/{n} 200 {ms}ms"],
                8,
            ),
        ],
        evs,
        [
            {
                "name": "checkout-api",
                "rps": 40,
                "errors": {"500": (0.01, 0.35)},
                "latency": (0.12, 3.5),
            }
        ],
        [],
        {
            "core-db-slow.md": runbook(
                "core-db slow",
                "When core-db is slow, add read capacity: promote the standby to a read replica and point search-api and storefront's read traffic at it.",
            )
        },
    )
    spec["metrics"]["series"] += [
        wave(
            "pg_locks_waiting",
            {"service": "core-db", "mode": "ShareLock"},
            0,
            41,
            [(a + 60, b) for a, b in runs],
        ),
        wave(
            "pg_stat_activity_active",
            {"service": "core-db", "application_name": "loyalty-rollup"},
            0,
            1,
            [(a, b) for a, b in runs],
        ),
    ]
    return spec


# =================================================================================================
# 12. A Metaspace leak from hot redeploys: the claims portal's WAR is redeployed into a long-running
#     Tomcat by the pipeline without a restart (six times today). A leaked thread pins each old
#     class loader; Metaspace is full and the JVM throws OutOfMemoryError: Metaspace. The incident
#     says "insurance site".
# =================================================================================================


@scenario("metaspace-hot-redeploy")
def metaspace_hot_redeploy() -> dict[str, Any]:
    start = -1440
    hosts = ["tomcat-claims-01"]
    evs = [
        ev(
            "claims-portal",
            "info",
            "Deploying web application archive [/opt/tomcat/webapps/claims.war] (build 2026.12.05-{ms})",
            **{"from": -7000, "to": -1500, "every_s": 1100},
            pods=hosts,
        ),
        ev(
            "claims-portal",
            "warn",
            "org.apache.catalina.loader.WebappClassLoaderBase.clearReferencesThreads The web application [claims] appears to have started a thread named [AsyncHttpClient-timer-1-1] but has failed to stop it. This is very likely to create a memory leak.",
            **{"from": -7010, "to": -1510, "every_s": 1100},
            pods=hosts,
        ),
        ev(
            "claims-portal",
            "error",
            "org.apache.catalina.core.StandardWrapperValve.invoke Servlet.service() for servlet [dispatcher] threw exception java.lang.OutOfMemoryError: Metaspace",
            **{"from": start, "to": -2, "every_s": 3},
            pods=hosts,
        ),
        ev(
            "claims-portal",
            "warn",
            "GC (Metadata GC Threshold) [Full GC (Metadata GC Threshold) {n}K->{n}K] {ms}0 ms",
            **{"from": start - 600, "to": -2, "every_s": 20},
            pods=hosts,
        ),
        ev(
            "claims-db",
            "warn",
            "slow query: SELECT ... FROM claim_documents WHERE claim_id = $1 took {ms}00 ms",
            **{"from": -7000, "to": -5, "every_s": 240},
        ),
        ev(
            "document-service",
            "error",
            "POST /v1/documents 500: virus scanner timeout for upload {n}",
            **{"from": -3000, "to": -5, "every_s": 90},
        ),
        ev(
            "claims-web",
            "error",
            "GET /claims/{n} 500 (claims-portal)",
            **{"from": start + 5, "to": -2, "every_s": 2},
        ),
        ev(
            "claims-portal",
            "error",
            "LDAP bind to ldaps://ad.corp.example failed: connection timed out",
            **{"from": -9600, "to": -9400, "every_s": 40},
            pods=hosts,
        ),
    ]
    spec = simple(
        232,
        start,
        incident("insurance claims site throwing errors", "insurance site", start),
        expected(
            "app",
            ["claims-portal", "tomcat-claims-01"],
            "OutOfMemoryError: Metaspace",
            "The pipeline hot-redeploys claims.war into the same long-running Tomcat (six times today) without restarting the JVM. An AsyncHttpClient timer thread started by the app is never stopped, so each undeployed class loader stays reachable; Metaspace grew with every redeploy to its 512M MaxMetaspaceSize and for 24 min requests fail with java.lang.OutOfMemoryError: Metaspace (Full GCs on Metadata GC Threshold). The heap is fine. claims-web's 500s are the victim; the latest build's code, slow document queries, the virus-scanner timeouts and the old LDAP timeout are not the cause.",
            [
                "claims-portal: java.lang.OutOfMemoryError: Metaspace",
                "Tomcat: web application [claims] appears to have started a thread named [AsyncHttpClient-timer-1-1] but has failed to stop it (after each redeploy)",
                "jvm_memory_used_bytes{area=nonheap,id=Metaspace} climbing in steps with each deploy to 512M",
            ],
            "Restart Tomcat on tomcat-claims-01 now; deploy by restarting the JVM (or fix the app to close its AsyncHttpClient on context shutdown).",
        ),
        [
            bg(
                "claims-portal",
                hosts,
                ["GET /claims/{n} 200 {ms}ms", "POST /claims/{n}/notes 201 {ms}ms"],
                8,
                until=start,
            )
        ],
        evs,
        [
            {
                "name": "claims-web",
                "rps": 15,
                "errors": {"500": (0.002, 0.7)},
                "latency": (0.15, 0.4),
            },
            {
                "name": "claims-portal",
                "rps": 15,
                "errors": {"500": (0.001, 0.7)},
                "latency": (0.1, 0.35),
            },
        ],
        [
            {
                "name": "jvm_memory_used_bytes",
                "labels": {"service": "claims-portal", "area": "heap"},
                "before": 1.3e9,
                "after": 1.4e9,
            }
        ],
        {
            "claims-portal-oom.md": runbook(
                "claims-portal out of memory",
                "OutOfMemoryError in claims-portal: the heap is too small for month-end. Raise -Xmx from 2g to 3g in setenv.sh and restart Tomcat.",
            )
        },
        ramps=[
            {
                "name": "jvm_memory_used_bytes",
                "labels": {
                    "service": "claims-portal",
                    "area": "nonheap",
                    "id": "Metaspace",
                },
                "before": 1.9e8,
                "after": 5.36e8,
                "from": -7000,
                "to": start,
                "cap": 5.36e8,
                "noise": 0.01,
            }
        ],
    )
    spec["metrics"]["series"].append(
        wave(
            "jvm_memory_max_bytes",
            {"service": "claims-portal", "area": "nonheap", "id": "Metaspace"},
            5.36e8,
            5.36e8,
            [],
        )
    )
    return spec


# =================================================================================================
# 13. Presigned download links that expire too soon: a hardening change set statement-export's
#     presigned URL lifetime to 60 s, but the links are sent by email and opened minutes or hours
#     later. S3 answers 403 "Request has expired". The incident says "online banking".
# =================================================================================================


@scenario("presigned-url-expiry-short")
def presigned_url_expiry_short() -> dict[str, Any]:
    start = -2040
    se = ["statement-export-1", "statement-export-2"]
    return simple(
        233,
        start,
        incident(
            "customers can't download their statements",
            "online banking",
            start,
            ["the download link in the email opens an error page"],
        ),
        expected(
            "app",
            ["statement-export", "PRESIGNED_URL_TTL_SECONDS"],
            "Request has expired",
            "statement-export 12.0.0 (config change 40 min ago, 'security: shorten presigned URL lifetime') signs the S3 download links it emails with X-Amz-Expires=60. Customers open the email minutes or hours later, so S3 refuses the GET with 403 AccessDenied 'Request has expired' (X-Amz-Expires 60, Expires a few minutes before the request). The statements exist and the bucket is fine. web-portal's errors and the support tickets are the victim; the CDN certificate warning, the PDF renderer's font warnings and the old SES throttling are not the cause.",
            [
                "cdn/S3: GET /statements/...pdf?X-Amz-Expires=60 403 AccessDenied: Request has expired",
                "statement-export: presigned URL lifetime PRESIGNED_URL_TTL_SECONDS=60 (was 604800)",
                "statement-export: emailed link for statement ... (valid 60s)",
            ],
            "Set PRESIGNED_URL_TTL_SECONDS back to a lifetime that fits email (e.g. 7 days, or link to a portal page that signs on click) and re-send today's emails.",
        ),
        [
            bg(
                "statement-export",
                se,
                ["statement {n} rendered and stored in {ms}0ms"],
                10,
            ),
            bg(
                "web-portal",
                ["web-portal-1", "web-portal-2"],
                ["GET /account 200 {ms}ms"],
                8,
            ),
        ],
        [
            ev(
                "statement-export",
                "info",
                "config reloaded: PRESIGNED_URL_TTL_SECONDS 604800 -> 60 (change SEC-311 'shorten presigned URL lifetime')",
                at=start - 360,
                pods=se,
            ),
            ev(
                "statement-export",
                "info",
                "emailed link for statement {n} to customer (valid 60s)",
                **{"from": start - 300, "to": -5, "every_s": 20},
                pods=se,
            ),
            ev(
                "statement-export",
                "info",
                "emailed link for statement {n} to customer (valid 604800s)",
                **{"from": -7000, "to": start - 400, "every_s": 60},
                pods=se,
            ),
            ev(
                "cdn-logs",
                "warn",
                "GET /statements/2026-11/{n}.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Expires=60&X-Amz-Date=20261205T13{ms}Z 403 <Error><Code>AccessDenied</Code><Message>Request has expired</Message><X-Amz-Expires>60</X-Amz-Expires></Error>",
                **{"from": start, "to": -2, "every_s": 5},
            ),
            ev(
                "web-portal",
                "error",
                "GET /statements/open?id={n} 502: document store answered 403",
                **{"from": start + 10, "to": -2, "every_s": 3},
                pods=["web-portal-1", "web-portal-2"],
            ),
            ev(
                "support-desk",
                "warn",
                "ticket #{n}: 'statement link broken'",
                **{"from": start + 300, "to": -5, "every_s": 60},
            ),
            ev(
                "cdn-logs",
                "warn",
                "certificate for cdn.fenwick-bank.example expires in 19 days",
                **{"from": -7000, "to": -5, "every_s": 1800},
            ),
            ev(
                "pdf-renderer",
                "warn",
                "font 'Inter-Medium' not embedded, falling back",
                **{"from": -3600, "to": -5, "every_s": 180},
            ),
            ev(
                "statement-export",
                "error",
                "SES SendEmail throttled: Maximum sending rate exceeded",
                **{"from": -9600, "to": -9300, "every_s": 30},
                pods=se,
            ),
        ],
        [
            {
                "name": "web-portal",
                "rps": 25,
                "errors": {"502": (0.0, 0.08)},
                "latency": (0.09, 0.09),
            },
            {"name": "statement-export", "rps": 2, "latency": (0.4, 0.4)},
        ],
        [
            {
                "name": "s3_presign_ttl_seconds",
                "labels": {"service": "statement-export"},
                "before": 604800,
                "after": 60,
                "change_at": start - 360,
                "noise": 0.0,
            }
        ],
        {
            "statement-download.md": runbook(
                "Statement download fails",
                "Broken statement downloads mean the PDF was never stored: re-run the statement job for the customer (`statement-export rerun --customer ID`).",
            )
        },
    )


# =================================================================================================
# 14. A load balancer draining shorter than its requests: a Terraform module upgrade set the quote
#     API target group's deregistration delay to 5 s (was 120 s). PDF quotes take 20-40 s; on every
#     deploy and scale-in the ALB cuts in-flight requests to draining targets and answers 502. The
#     incident says "broker portal".
# =================================================================================================


@scenario("lb-draining-shorter-than-requests")
def lb_draining_shorter_than_requests() -> dict[str, Any]:
    start = -2520
    qa = ["quote-api-i-0a1", "quote-api-i-0b7", "quote-api-i-0c4", "quote-api-i-0d9"]
    churn = [-2500, -1900, -1300, -700, -150]
    evs = [
        ev(
            "terraform",
            "info",
            'module.quote_api_alb.aws_lb_target_group.quote_api: Modifying... deregistration_delay: "120" => "5" (module alb 4.0.0 default)',
            at=start - 200,
        ),
        ev(
            "quote-api",
            "info",
            "quote-api 7.3.0 started (new PDF letterhead)",
            at=start - 60,
            pods=qa,
        ),
        ev(
            "quote-pdf",
            "warn",
            "renderer heap at {ms}% during PDF render",
            **{"from": -3600, "to": -5, "every_s": 200},
        ),
        ev(
            "rating-engine",
            "warn",
            "tariff cache refresh took {ms}00ms",
            **{"from": -3600, "to": -5, "every_s": 400},
        ),
        ev(
            "alb",
            "info",
            "POST /v1/quotes/pdf 504 target_processing_time=60.001",
            **{"from": -9500, "to": -9300, "every_s": 30},
        ),
    ]
    for t in churn:
        evs += [
            ev(
                "autoscaling",
                "info",
                "deregistering target quote-api-i-0{ms} from quote-api-tg (deploy/scale-in); draining for 5s",
                at=t,
            ),
            ev(
                "quote-api",
                "info",
                "received SIGTERM after deregistration, {ms} requests in flight",
                at=t + 6,
                pods=qa,
            ),
            ev(
                "alb",
                "error",
                'POST /v1/quotes/pdf 502 elb_status_code=502 target_status_code=- target_processing_time=-1 error_reason=TargetConnectionReset target=quote-api-tg "target deregistered while request in flight (deregistration_delay 5s)"',
                **{"from": t + 5, "to": t + 40, "every_s": 2},
            ),
            ev(
                "broker-portal",
                "error",
                "quote {n} failed: 502 Bad Gateway from api.quotes.example",
                **{"from": t + 6, "to": t + 40, "every_s": 3},
            ),
        ]
    return simple(
        234,
        start,
        incident("quote PDFs fail every now and then", "broker portal", start),
        expected(
            "http",
            ["quote-api-tg", "alb-quotes", "deregistration_delay"],
            "deregistration_delay",
            "A Terraform module upgrade (alb 4.0.0, 45 min ago) set quote-api-tg's deregistration_delay to 5 s (was 120 s). PDF quotes take 20-40 s; on every deploy and scale-in the ALB stops waiting for in-flight requests after 5 s and the instance is terminated, so those requests end as 502 (TargetConnectionReset, target deregistered while request in flight) in bursts every ~10 min. quote-api is healthy between bursts; broker-portal's errors are the victim; the quote-api 7.3.0 release, the renderer heap and tariff cache warnings and the old 504s are not the cause.",
            [
                "alb: POST /v1/quotes/pdf 502 TargetConnectionReset, target deregistered while request in flight (deregistration_delay 5s)",
                'terraform: aws_lb_target_group.quote_api deregistration_delay "120" => "5"',
                "502 bursts line up with each target deregistration",
            ],
            "Set deregistration_delay back above the longest request (e.g. 120 s) and make quote-api finish in-flight requests on SIGTERM.",
        ),
        [
            bg(
                "quote-api",
                qa,
                ["POST /v1/quotes 201 {ms}ms", "POST /v1/quotes/pdf 200 2{ms}00ms"],
                8,
            ),
            bg(
                "alb",
                ["alb-quotes"],
                [
                    "POST /v1/quotes 201 elb_status_code=201 target_processing_time=0.{ms}"
                ],
                8,
            ),
        ],
        evs,
        [
            {
                "name": "broker-portal",
                "rps": 12,
                "errors": {"502": (0.0, 0.04)},
                "latency": (0.3, 0.3),
            },
            {"name": "quote-api", "rps": 12, "latency": (0.4, 0.4)},
        ],
        [],
        {
            "quote-pdf-failures.md": runbook(
                "Quote PDFs failing",
                "PDF failures come from the renderer running out of heap: restart quote-pdf and raise its heap to 2g.",
            )
        },
    )


# =================================================================================================
# 15. A time zone that silently became UTC: maint-scheduler's new base image (distroless/static)
#     has no tzdata, so TZ=Asia/Tokyo falls back to UTC. The orders reindex, meant for 03:00 in
#     Tokyo, now runs at 03:00 UTC, noon in Tokyo, and locks the orders table at lunch peak. The
#     incident says "orders".
# =================================================================================================


@scenario("tz-fallback-maintenance-at-peak")
def tz_fallback_maintenance_at_peak() -> dict[str, Any]:
    start = -1500
    oa = ["orders-api-1", "orders-api-2", "orders-api-3"]
    ms = ["maint-scheduler-0"]
    return simple(
        235,
        start,
        incident(
            "order history timing out",
            "orders",
            start,
            ["the 'my orders' page spins and then shows an error"],
        ),
        expected(
            "app",
            ["maint-scheduler", "reindex-orders"],
            "unknown time zone",
            "maint-scheduler 2.0.0 (released yesterday) moved to a distroless/static base image without tzdata. TZ=Asia/Tokyo cannot be loaded and the scheduler silently falls back to UTC, so the nightly 'reindex-orders' job (0 3 * * *, meant for 03:00 in Tokyo) started at 03:00 UTC, noon in Tokyo, 25 min ago. Its REINDEX TABLE orders holds locks on orders during the lunch peak and orders-api's queries wait and time out. orders-api's 504s and orders-db's lock waits are the effect; the orders-web release, the coupon warnings and the old deadlock are not the cause.",
            [
                "maint-scheduler: unknown time zone Asia/Tokyo, falling back to UTC",
                "maint-scheduler: job reindex-orders started (schedule 0 3 * * *), REINDEX TABLE orders",
                "orders-db: waiting for AccessShareLock on relation orders behind the REINDEX",
            ],
            "Stop the running reindex, add tzdata to the image (or embed it: import time/tzdata / ZONEINFO) and restart maint-scheduler; make it fail to start on an unknown zone.",
        ),
        [
            bg(
                "orders-api",
                oa,
                ["GET /v1/orders?customer={n} 200 {ms}ms"],
                8,
                until=start,
            ),
            bg("orders-web", ["orders-web-1"], ["GET /my/orders 200 {ms}ms"], 8),
        ],
        [
            ev(
                "maint-scheduler",
                "info",
                "maint-scheduler 2.0.0 starting (base image gcr.io/distroless/static-debian12)",
                at=-80000,
                pods=ms,
            ),
            ev(
                "maint-scheduler",
                "warn",
                "unknown time zone Asia/Tokyo, falling back to UTC",
                at=-79998,
                pods=ms,
            ),
            ev(
                "maint-scheduler",
                "info",
                "next runs: reindex-orders at 03:00 UTC, vacuum-events at 04:30 UTC, purge-carts at 05:00 UTC",
                at=-79990,
                pods=ms,
            ),
            ev(
                "maint-scheduler",
                "info",
                "job reindex-orders started (schedule '0 3 * * *' in UTC; TZ=Asia/Tokyo: unknown time zone Asia/Tokyo): REINDEX TABLE orders",
                at=start - 10,
                pods=ms,
            ),
            ev(
                "maint-scheduler",
                "info",
                "job reindex-orders running for {ms}m",
                **{"from": start + 300, "to": -5, "every_s": 300},
                pods=ms,
            ),
            ev(
                "orders-db",
                "info",
                "app=orders-api LOG:  process {n} still waiting for AccessShareLock on relation 16453 (orders) after 1000.4 ms; blocking process: 7001 (app=maint-scheduler REINDEX TABLE orders)",
                **{"from": start + 5, "to": -2, "every_s": 4},
            ),
            ev(
                "orders-api",
                "error",
                "GET /v1/orders?customer={n} 504: canceling statement due to statement timeout",
                **{"from": start + 10, "to": -2, "every_s": 1.5},
                pods=oa,
            ),
            ev(
                "orders-web",
                "error",
                "GET /my/orders 502: orders-api 504",
                **{"from": start + 12, "to": -2, "every_s": 2},
                pods=["orders-web-1"],
            ),
            ev(
                "orders-web",
                "info",
                "orders-web 6.8.0 started (reorder button)",
                at=start - 2400,
                pods=["orders-web-1"],
            ),
            ev(
                "coupon-svc",
                "warn",
                "coupon code {n} not found",
                **{"from": -3600, "to": -5, "every_s": 200},
            ),
            ev(
                "orders-db",
                "error",
                "ERROR:  deadlock detected (process {n} and process {n})",
                **{"from": -9000, "to": -8900, "every_s": 30},
            ),
        ],
        [
            {
                "name": "orders-web",
                "rps": 30,
                "errors": {"502": (0.001, 0.5)},
                "latency": (0.1, 3.0),
            },
            {
                "name": "orders-api",
                "rps": 45,
                "errors": {"504": (0.0, 0.5)},
                "latency": (0.05, 4.0),
            },
        ],
        [
            {
                "name": "pg_locks_waiting",
                "labels": {"service": "orders-db", "relation": "orders"},
                "before": 0,
                "after": 35,
            }
        ],
        {
            "orders-slow.md": runbook(
                "Order history slow",
                "Slow order history means orders-api needs more replicas at peak: scale orders-api to 6 and raise its DB pool to 30.",
            )
        },
    )


# =================================================================================================
# 16. An internal certificate re-issued self-signed: a cert-manager chart upgrade reset the
#     fx-rates Certificate's issuer to the chart's default self-signed issuer. fx.rates.internal now
#     serves a self-signed certificate; its callers refuse it. The incident says "payments".
# =================================================================================================


@scenario("internal-cert-self-signed")
def internal_cert_self_signed() -> dict[str, Any]:
    start = -1260
    pq = ["payment-quotes-1", "payment-quotes-2"]
    fx = ["fx-rates-1", "fx-rates-2"]
    spec = simple(
        236,
        start,
        incident("foreign currency card payments failing", "payments", start),
        expected(
            "tls",
            ["fx.rates.internal", "fx-rates", "certificate/fx-rates-tls"],
            "self-signed certificate",
            "A cert-manager values refactor (applied 22 min ago) changed the fx-rates Certificate's issuerRef to the chart default selfsigned-issuer; cert-manager re-issued fx-rates-tls self-signed and fx.rates.internal serves it since. payment-quotes verifies against the internal CA and refuses it ([SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: self-signed certificate), so every foreign-currency quote fails. fx-rates itself is up and serving; payment-quotes and checkout errors are the victim; the FX provider's latency, ledger warnings and the old provider 503s are not the cause.",
            [
                "netcheck fx-rates: tls certificate_untrusted (self-signed)",
                "payment-quotes: certificate verify failed: self-signed certificate",
                "cert-manager: Issuing certificate fx-rates-tls with issuer ClusterIssuer/selfsigned-issuer",
            ],
            "Point the Certificate back at ClusterIssuer internal-ca, let cert-manager re-issue fx-rates-tls, and pin issuerRef in the values.",
        ),
        [
            bg("fx-rates", fx, ["GET /v1/rates?base=EUR 200 {ms}ms"], 10),
            bg("payment-quotes", pq, ["POST /v1/quotes 201 {ms}ms"], 8, until=start),
        ],
        [
            ev(
                "helm",
                "info",
                "release cert-manager-config upgraded to 2.0.0 (values refactor: certificates.*.issuerRef defaults)",
                at=start - 90,
            ),
            ev(
                "cert-manager",
                "info",
                'Issuing certificate as Secret was previously issued by "ClusterIssuer.cert-manager.io/internal-ca" (Certificate fx-rates/fx-rates-tls)',
                at=start - 60,
            ),
            ev(
                "cert-manager",
                "info",
                'The certificate has been successfully issued (Certificate fx-rates/fx-rates-tls, issuer "ClusterIssuer.cert-manager.io/selfsigned-issuer")',
                at=start - 55,
            ),
            ev(
                "fx-rates",
                "info",
                "TLS certificate reloaded from /tls (CN=fx.rates.internal)",
                at=start - 30,
                pods=fx,
            ),
            ev(
                "payment-quotes",
                "error",
                "POST /v1/quotes 502: GET https://fx.rates.internal/v1/rates failed: HTTPSConnectionPool(host='fx.rates.internal', port=443): Max retries exceeded (Caused by SSLError(SSLCertVerificationError(1, '[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: self-signed certificate (_ssl.c:1006)')))",
                **{"from": start, "to": -2, "every_s": 2},
                pods=pq,
            ),
            ev(
                "checkout",
                "error",
                "card payment {n} in USD declined: quote unavailable (payment-quotes 502)",
                **{"from": start + 5, "to": -2, "every_s": 1.2},
            ),
            ev(
                "fx-provider",
                "warn",
                "upstream ECB reference feed slow: {ms}00ms",
                **{"from": -3600, "to": -5, "every_s": 300},
            ),
            ev(
                "ledger",
                "warn",
                "posting batch {n} delayed {ms}s",
                **{"from": -3600, "to": -5, "every_s": 400},
            ),
            ev(
                "fx-rates",
                "error",
                "provider refresh failed: 503 Service Unavailable",
                **{"from": -9400, "to": -9200, "every_s": 30},
                pods=fx,
            ),
        ],
        [
            {
                "name": "checkout",
                "rps": 50,
                "errors": {"502": (0.0, 0.2)},
                "latency": (0.2, 0.2),
            },
            {
                "name": "payment-quotes",
                "rps": 10,
                "errors": {"502": (0.0, 0.98)},
                "latency": (0.05, 0.02),
            },
            {"name": "fx-rates", "rps": 8, "latency": (0.01, 0.01)},
        ],
        [],
        {
            "fx-quotes-failing.md": runbook(
                "Foreign currency quotes failing",
                "FX quote failures mean the FX provider is down: switch payment-quotes to cached rates (`FX_FALLBACK=cache`, max age 4 h).",
            )
        },
    )
    spec["targets"] = [
        {
            "name": "fx-rates",
            "url": "https://fx.rates.internal/v1/rates",
            "fault": {"kind": "tls_self_signed"},
        },
        {
            "name": "ledger",
            "url": "https://ledger.payments.internal/healthz",
            "fault": {"kind": "ok"},
        },
    ]
    spec["expected"]["root_cause_probe"] = "fx-rates"
    spec["expected"]["netcheck"] = {
        "fx-rates": {"failed_layer": "tls", "reason": "certificate_untrusted"},
        "ledger": {"failed_layer": "none", "reason": None},
    }
    return spec


def main(root: Path = HERE) -> None:
    for slug, build in SCENARIOS.items():
        base.write(slug, build(), root)
        print(slug)


if __name__ == "__main__":
    main()
