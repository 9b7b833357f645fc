"""Writes the fifteenth held-out scenario set, bench/heldout15: `python bench/heldout15/_build.py`.

New incidents, none of them in the bundled set or in bench/heldout … bench/heldout14. As there,
everything that matters is written by hand below (incident, expected answer, runbooks, kubectl
answers, the log lines that carry the fault and the red herrings); the bulk (background request
lines, 2 h of metric points thinned to one every 30 s, a namespace's tables, describe layouts) comes
from bench/heldout14/_build.py's helpers (and through them heldout13's and the earlier builders'),
each scenario with a fixed seed (433-448). The author read neither the planner (`reasoning/`) nor
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


h14 = _load("heldout14_build", HERE.parent / "heldout14" / "_build.py")
h13 = h14.h13
base = h14.base

table = base.table
events = base.events
runbook = base.runbook
app = h14.app
pod_name = h14.pod_name
namespace = h14.namespace
ev = h14.ev
bg = h14.bg
incident = h14.incident
expected = h14.expected
simple = h14.simple
container_text = h14.container_text
deployment_describe = h14.deployment_describe
describe_pod = h14.describe_pod
podlog = h14.podlog
running = h14.running
crashloop = h14.crashloop
node_describe = h14.node_describe
pending_pod = h14.pending_pod
replicaset_describe = h14.replicaset_describe
sched = h14.sched
kube_case = h14.kube_case
pods_of = h14.pods_of
svc = h14.svc
every = h14.every
describe_block = h14.describe_block
retype_node = h14.retype_node
NODES_FRA = h14.NODES_FRA
NODES_IAD = h14.NODES_IAD
NODES_DUB = h14.NODES_DUB
NODES_PDX = h14.NODES_PDX

SCENARIOS: dict[str, Any] = {}


def scenario(slug: str):
    def register(fn):
        SCENARIOS[slug] = fn
        return fn

    return register


def backoff_rows(a: dict[str, Any], ns: str, sfx: str, count: str) -> list[tuple]:
    """A crash-looping pod's BackOff event row (describe layout)."""
    return [
        (
            "Warning",
            "BackOff",
            f"30s ({count})",
            "kubelet",
            f"Back-off restarting failed container {a['name']} in pod {pod_name(a, sfx)}_{ns}(9e2a…)",
        )
    ]


# =================================================================================================
# 1. Admission: the billing namespace has a ResourceQuota `batch-quota` (count/jobs.batch: 500),
#    there since a runaway CronJob two years ago. invoice-mailer's chart 4.0 dropped
#    `ttlSecondsAfterFinished` (and the CronJob's history limits were raised for an audit), so every
#    finished Job stays. Last night the 500th one finished; since then the CronJob controller cannot
#    create a Job and no invoice mail goes out. The incident says "invoices".
# =================================================================================================


@scenario("job-count-quota-filled-by-finished-jobs")
def job_count_quota_filled_by_finished_jobs() -> dict[str, Any]:
    start = -3000
    ns = "billing"
    api = app(
        "billing-api",
        image="ghcr.io/quillmark/billing-api:12.7.3",
        port=8080,
        rs="7b5d9c8f6",
        cluster_ip="10.100.22.15",
        pods=[
            ("g7kxq", "1/1", "Running", "0", "5h", 0),
            ("r2mvz", "1/1", "Running", "0", "5h", 1),
        ],
    )
    pdf = app(
        "pdf-render",
        image="ghcr.io/quillmark/pdf-render:3.1.0",
        port=3000,
        rs="58c7d6b9f",
        cluster_ip="10.100.22.40",
        pods=[
            ("b4tnw", "1/1", "Running", "2", "9d", 2),
            ("x9hcl", "1/1", "Running", "1", "9d", 0),
        ],
    )
    k8s = namespace(ns, NODES_DUB, [api, pdf], seed=433)
    sig = "exceeded quota: batch-quota, requested: count/jobs.batch=1, used: count/jobs.batch=500, limited: count/jobs.batch=500"
    k8s[f"kubectl get resourcequotas -n {ns}"] = table(
        [
            ["NAME", "AGE", "REQUEST", "LIMIT"],
            [
                "batch-quota",
                "731d",
                "count/cronjobs.batch: 3/20, count/jobs.batch: 500/500",
                "",
            ],
            [
                "compute",
                "731d",
                "requests.cpu: 7200m/24, requests.memory: 14Gi/48Gi",
                "limits.memory: 18Gi/64Gi",
            ],
        ]
    )
    k8s[f"kubectl describe resourcequotas batch-quota -n {ns}"] = (
        f"Name:                  batch-quota\nNamespace:             {ns}\n"
        "Resource               Used  Hard\n"
        "--------               ----  ----\n"
        "count/cronjobs.batch   3     20\n"
        "count/jobs.batch       500   500\n"
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
            [
                "invoice-mailer",
                "*/10 * * * *",
                "Europe/Dublin",
                "False",
                "0",
                "52m",
                "2y",
            ],
            ["dunning-run", "0 6 * * *", "Europe/Dublin", "False", "0", "3h", "2y"],
            [
                "ledger-export",
                "30 2 * * *",
                "Europe/Dublin",
                "False",
                "0",
                "5h",
                "340d",
            ],
        ]
    )
    jobs = [["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"]]
    for i in range(12):
        jobs.append(
            [
                f"invoice-mailer-2926{4411 - i * 10}",
                "Complete",
                "1/1",
                "41s",
                f"{52 + i * 10}m",
            ]
        )
    jobs.append(["dunning-run-29263980", "Complete", "1/1", "3m12s", "3h"])
    jobs.append(["ledger-export-29263830", "Complete", "1/1", "11m", "5h"])
    k8s[f"kubectl get jobs -n {ns}"] = table(jobs)
    k8s[f"kubectl describe cronjobs invoice-mailer -n {ns}"] = describe_block(
        f"Name:                          invoice-mailer\nNamespace:                     {ns}\n"
        "Labels:                        app.kubernetes.io/name=invoice-mailer\n"
        "                              helm.sh/chart=invoice-mailer-4.0.2\n"
        "Schedule:                      */10 * * * *\n"
        "Concurrency Policy:            Forbid\n"
        "Suspend:                       False\n"
        "Successful Job History Limit:  1000\n"
        "Failed Job History Limit:      50\n"
        "Starting Deadline Seconds:     <unset>\n"
        "Pod Template:\n  Containers:\n   invoice-mailer:\n"
        "    Image:      ghcr.io/quillmark/invoice-mailer:4.0.2\n"
        "    Command:    python -m mailer.send_due\n"
        "Last Schedule Time:  Sat, 05 Dec 2026 13:08:00 +0000\n"
        "Active Jobs:         <none>\n",
        [
            (
                "Warning",
                "FailedCreate",
                "40s (x5 over 50m)",
                "cronjob-controller",
                f'Error creating job: jobs.batch "invoice-mailer-29264421" is forbidden: {sig}',
            ),
        ],
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "52m",
                "Normal",
                "SuccessfulCreate",
                "CronJob/invoice-mailer",
                "Created job invoice-mailer-29264411",
            ),
            (
                "51m",
                "Normal",
                "Completed",
                "Job/invoice-mailer-29264411",
                "Job completed",
            ),
            (
                "42m",
                "Warning",
                "FailedCreate",
                "CronJob/invoice-mailer",
                f'Error creating job: jobs.batch "invoice-mailer-29264421" is forbidden: {sig}',
            ),
            (
                "40s",
                "Warning",
                "FailedCreate",
                "CronJob/invoice-mailer",
                f'Error creating job: jobs.batch "invoice-mailer-29264471" is forbidden: {sig}',
            ),
        ]
    )
    evs = [
        ev(
            "gitops",
            "info",
            "flux: helmrelease billing/invoice-mailer reconciled, revision 4.0.2 (upgraded from 3.9.1 on 2026-12-03: batch/v1 CronJob template, successfulJobsHistoryLimit 1000 for the SOX audit)",
            at=-6900,
        ),
        ev(
            "kube-controller-manager",
            "warn",
            f'E1205 cronjob_controllerv2.go:640] "Error creating job for CronJob" err="jobs.batch \\"invoice-mailer-2926{"{n}"}\\" is forbidden: {sig}" cronjob="{ns}/invoice-mailer"',
            **every(start + 120, -40, 600),
        ),
        ev(
            "billing-api",
            "warn",
            "invoice backlog: {n} invoices in state DUE_NOT_SENT older than 30 min",
            **every(start + 900, -30, 300),
            pods=pods_of(api),
        ),
        ev(
            "pdf-render",
            "error",
            "TimeoutError: Navigation timeout of 30000 ms exceeded\n    at LifecycleWatcher._LifecycleWatcher_createTimeout (/app/node_modules/puppeteer-core/lib/cjs/puppeteer/common/LifecycleWatcher.js:165:20)",
            **every(-7000, -100, 700),
            pods=pods_of(pdf),
        ),
        ev(
            "billing-api",
            "info",
            "billing-api 12.7.3 ready (VAT OSS report)",
            at=-3600,
            pods=pods_of(api),
        ),
        ev(
            "billing-api",
            "error",
            "stripe webhook signature verification failed for evt_{n}: No signatures found matching the expected signature for payload",
            **every(-10200, -9900, 60),
            pods=pods_of(api),
        ),
    ]
    return kube_case(
        seed=433,
        start=start,
        inc=incident("Customers say they didn't get their invoice", "billing", start),
        exp=expected(
            "platform",
            [
                "resourcequota/batch-quota",
                "batch-quota",
                "cronjob/invoice-mailer",
                "invoice-mailer",
                "count/jobs.batch",
                "ttlSecondsAfterFinished",
            ],
            sig,
            "The billing namespace's ResourceQuota batch-quota caps count/jobs.batch at 500. invoice-mailer's chart 4.0 dropped ttlSecondsAfterFinished and raised successfulJobsHistoryLimit to 1000, so finished Jobs pile up every 10 minutes; when the 500th was kept, the CronJob controller could no longer create a Job (admission: exceeded quota) and invoice mail stopped about 50 minutes ago. billing-api's backlog warnings are the symptom; pdf-render's Chrome errors, billing-api's release and the old Stripe signature errors are not the cause.",
            [
                f"CronJob invoice-mailer: FailedCreate: {sig}",
                "batch-quota count/jobs.batch 500/500",
                "helmrelease invoice-mailer 4.0.2: successfulJobsHistoryLimit 1000",
            ],
            "Delete finished invoice-mailer Jobs (or raise the quota for now), set ttlSecondsAfterFinished / a history limit well below the quota, and resend the backlog.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "billing-api",
                pods_of(api),
                ["GET /v2/invoices/{n} 200 {ms}ms", "POST /v2/payments 201 {ms}ms"],
                8,
            )
        ],
        evs=evs,
        services=[
            svc("billing-api", 35, {"500": (0.0005, 0.0006)}, (0.07, 0.07)),
            svc("pdf-render", 4, {"500": (0.01, 0.012)}, (0.9, 0.95)),
        ],
        gauges=[
            {
                "name": "billing_invoices_due_not_sent",
                "labels": {"service": "billing-api"},
                "before": 3,
                "after": 410,
                "change_at": start + 600,
            }
        ],
        books={
            "invoices.md": runbook(
                "Invoices not delivered",
                "Invoice e-mails are sent by pdf-render + Postmark. If customers miss invoices, check pdf-render for Chrome crashes and restart it; then check the Postmark status page.",
            )
        },
    )


# =================================================================================================
# 2. Scheduling: FinOps narrowed the Karpenter NodePool `spot-general` to one instance type
#    (c7g.xlarge, "best price-performance", PR finops#57). fraud-scorer's pods require
#    `karpenter.sh/capacity-type: spot` and that NodePool. At the morning peak the HPA scales it from
#    4 to 8; EC2 has no c7g.xlarge spot capacity left in the three zones, Karpenter cannot launch a
#    node and the four new pods stay Pending. Four pods carry scoring; payments time out. The
#    incident says "payments".
# =================================================================================================


@scenario("spot-nodepool-single-instance-type-no-capacity")
def spot_nodepool_single_instance_type_no_capacity() -> dict[str, Any]:
    start = -1500
    ns = "risk"
    rs = "84b6c5d7f"
    fs = app(
        "fraud-scorer",
        image="123456789012.dkr.ecr.us-west-2.amazonaws.com/fraud-scorer:1.14.2",
        port=8000,
        rs=rs,
        cluster_ip="172.20.88.31",
        desired=8,
        pods=[
            ("d6lmh", "1/1", "Running", "0", "2d", 0),
            ("t1pwc", "1/1", "Running", "0", "2d", 1),
            ("b9rxe", "1/1", "Running", "0", "2d", 0),
            ("y3kqa", "1/1", "Running", "0", "2d", 1),
            ("k2wqp", "0/1", "Pending", "0", "27m", -1),
            ("m7rtx", "0/1", "Pending", "0", "27m", -1),
            ("s4fdn", "0/1", "Pending", "0", "27m", -1),
            ("z8gbv", "0/1", "Pending", "0", "27m", -1),
        ],
    )
    pay = app(
        "payment-orchestrator",
        image="123456789012.dkr.ecr.us-west-2.amazonaws.com/payment-orchestrator:7.41.0",
        port=8080,
        rs="5d7f9b8c6",
        cluster_ip="172.20.88.12",
        pods=[
            ("c3jkd", "1/1", "Running", "0", "3h", 2),
            ("h9nwe", "1/1", "Running", "0", "3h", 2),
            ("v5qxa", "1/1", "Running", "0", "3h", 2),
        ],
    )
    nodes = [
        ("ip-10-90-1-18.us-west-2.compute.internal", "Ready", "10.90.1.18", "2d"),
        ("ip-10-90-2-203.us-west-2.compute.internal", "Ready", "10.90.2.203", "2d"),
        ("ip-10-90-3-77.us-west-2.compute.internal", "Ready", "10.90.3.77", "41d"),
    ]
    k8s = namespace(ns, nodes, [fs, pay], seed=434)
    sig = "InsufficientInstanceCapacity"
    msg = "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 2 Insufficient cpu. preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod."
    cont = container_text(
        "fraud-scorer",
        fs["image"],
        8000,
        env={"MODEL_URI": "s3://risk-models/gbm-2026-11/", "OMP_NUM_THREADS": "4"},
        limits="memory:  3Gi",
        requests="cpu:      1500m\n  memory:   3Gi",
    )
    for sfx in ("k2wqp", "m7rtx", "s4fdn", "z8gbv"):
        name = pod_name(fs, sfx)
        k8s[f"kubectl describe pods {name} -n {ns}"] = pending_pod(
            name,
            ns,
            owner=f"ReplicaSet/fraud-scorer-{rs}",
            labels=["app=fraud-scorer", f"pod-template-hash={rs}"],
            sa="fraud-scorer",
            containers=cont,
            events_rows=[
                (
                    "Warning",
                    "FailedScheduling",
                    "2m (x7 over 27m)",
                    "default-scheduler",
                    msg,
                ),
                (
                    "Normal",
                    "Nominated",
                    "26m",
                    "karpenter",
                    "Pod should schedule on: nodeclaim/spot-general-x7k2p",
                ),
            ],
        ).replace(
            "Node-Selectors:              <none>",
            "Node-Selectors:              karpenter.sh/capacity-type=spot\n                             karpenter.sh/nodepool=spot-general",
        )
    for i, (name, _, ip, _age) in enumerate(nodes):
        pool = "spot-general" if i < 2 else "on-demand-system"
        ctype = "spot" if i < 2 else "on-demand"
        itype = "c7g.xlarge" if i < 2 else "m7g.large"
        k8s[f"kubectl describe nodes {name}"] = retype_node(
            node_describe(
                name,
                ip,
                capacity=("4", "7869312Ki", "58")
                if i < 2
                else ("2", "7869312Ki", "29"),
            ),
            itype,
            -172800 if i < 2 else -3542400,
            f"karpenter.sh/capacity-type={ctype},karpenter.sh/nodepool={pool}",
        )
    k8s[f"kubectl get horizontalpodautoscalers -n {ns}"] = table(
        [
            ["NAME", "REFERENCE", "TARGETS", "MINPODS", "MAXPODS", "REPLICAS", "AGE"],
            [
                "fraud-scorer",
                "Deployment/fraud-scorer",
                "cpu: 118%/60%",
                "4",
                "16",
                "8",
                "1y",
            ],
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "27m",
                "Normal",
                "SuccessfulRescale",
                "HorizontalPodAutoscaler/fraud-scorer",
                "New size: 8; reason: cpu resource utilization (percentage of request) above target",
            ),
            (
                "27m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/fraud-scorer",
                f"Scaled up replica set fraud-scorer-{rs} to 8 from 4",
            ),
            ("2m", "Warning", "FailedScheduling", f"Pod/{pod_name(fs, 'k2wqp')}", msg),
            ("2m", "Warning", "FailedScheduling", f"Pod/{pod_name(fs, 's4fdn')}", msg),
        ]
    )
    fpods = [pod_name(fs, s) for s in ("d6lmh", "t1pwc", "b9rxe", "y3kqa")]
    evs = [
        ev(
            "argocd",
            "info",
            "application karpenter-nodepools sync: NodePool spot-general requirements node.kubernetes.io/instance-type In [c7g.xlarge] (was c6g/c7g/m6g/m7g .xlarge-.2xlarge; PR finops#57 'best price-performance'), result Synced",
            at=-6700,
        ),
        ev(
            "karpenter",
            "error",
            '{"level":"ERROR","logger":"controller","message":"failed launching nodeclaim","controller":"nodeclaim.lifecycle","NodeClaim":{"name":"spot-general-x7k2p"},"error":"creating instance, insufficient capacity, with fleet error(s), '
            + sig
            + ': We currently do not have sufficient c7g.xlarge capacity in the Availability Zones you requested (us-west-2a, us-west-2b, us-west-2c)."}',
            **every(start + 30, -30, 90),
        ),
        ev(
            "karpenter",
            "info",
            '{"level":"INFO","logger":"controller","message":"found provisionable pod(s)","Pods":"risk/fraud-scorer-84b6c5d7f-k2wqp, risk/fraud-scorer-84b6c5d7f-m7rtx and 2 other(s)","duration":"{ms}ms"}',
            **every(start, -20, 120),
        ),
        ev(
            "fraud-scorer",
            "warn",
            "scoring queue {n} deep, p99 {ms}0 ms, shedding to rules-only fallback",
            **every(start + 60, -10, 30),
            pods=fpods,
        ),
        ev(
            "payment-orchestrator",
            "error",
            "io.grpc.StatusRuntimeException: DEADLINE_EXCEEDED: deadline exceeded after 0.799s calling risk.FraudScorer/Score; payment {n} held for manual review",
            **every(start + 80, -1, 4),
            pods=pods_of(pay),
        ),
        ev(
            "payment-orchestrator",
            "info",
            "payment-orchestrator 7.41.0 started (Klarna v2 callbacks)",
            at=-6300,
            pods=pods_of(pay),
        ),
        ev(
            "psp-adapter",
            "warn",
            "Adyen /payments 2{n} ms (acquirer slow, region us)",
            **every(-6800, -200, 400),
        ),
        ev(
            "fraud-scorer",
            "error",
            'botocore.exceptions.ReadTimeoutError: Read timeout on endpoint URL: "https://risk-models.s3.us-west-2.amazonaws.com/gbm-2026-11/model.bin"',
            **every(-9000, -8700, 60),
            pods=fpods,
        ),
    ]
    return kube_case(
        seed=434,
        start=start,
        inc=incident(
            "Payments slow / many go to manual review",
            "payments",
            start,
            ["card payments taking ages, lots held for review"],
        ),
        exp=expected(
            "platform",
            [
                "nodepool/spot-general",
                "spot-general",
                "c7g.xlarge",
                "karpenter",
                "deployment/fraud-scorer",
                "fraud-scorer",
            ],
            sig,
            "FinOps narrowed the Karpenter NodePool spot-general to a single instance type (c7g.xlarge, PR finops#57). fraud-scorer requires spot capacity from that NodePool. At the morning peak the HPA scaled it from 4 to 8 replicas; EC2 had no c7g.xlarge spot capacity in the three zones (InsufficientInstanceCapacity), Karpenter could not launch a node and the four new pods stay Pending. Four pods at 118 % of their CPU request carry all scoring, payment-orchestrator's 800 ms deadline expires and payments go to manual review. The scale-out is the trigger; payment-orchestrator's errors and release, Adyen's latency and the old S3 read timeout are not the cause.",
            [
                f"karpenter: failed launching nodeclaim spot-general-x7k2p: {sig} (c7g.xlarge)",
                "NodePool spot-general: instance-type In [c7g.xlarge] (PR finops#57)",
                f"fraud-scorer 4 pods Pending: {msg}",
            ],
            "Widen spot-general's instance types again (several families and sizes) and allow on-demand fallback for fraud-scorer.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "payment-orchestrator",
                pods_of(pay),
                ["POST /v1/payments 201 {ms}ms", "GET /v1/payments/{n} 200 {ms}ms"],
                8,
            )
        ],
        evs=evs,
        services=[
            svc("payment-orchestrator", 60, {"500": (0.0005, 0.0008)}, (0.18, 0.95)),
            svc("fraud-scorer", 60, {"503": (0.0, 0.02)}, (0.04, 0.74)),
        ],
        books={
            "payments-slow.md": runbook(
                "Payments slow",
                "Slow payments are nearly always the acquirer: check psp-adapter's Adyen latency and, above 2 s p95, switch the routing rule to the secondary acquirer.",
            )
        },
    )


# =================================================================================================
# 3. Startup: search-indexer 5.0.0 moved to a multi-stage Dockerfile on python:3.12-slim; the build
#    stage has libpq-dev, the runtime stage lost libpq5. psycopg2 (not -binary) cannot load, the
#    process exits at import: CrashLoopBackOff, the rollout stuck; old pods keep working but the
#    catalogue admin's changes are never indexed. The incident says "product search".
# =================================================================================================


@scenario("runtime-stage-missing-libpq")
def runtime_stage_missing_libpq() -> dict[str, Any]:
    start = -2200
    ns = "catalog"
    si = app(
        "search-indexer",
        image="registry.gitlab.com/fennick/search-indexer:5.0.0",
        port=8000,
        rs="7d9f6b8c5",
        cluster_ip="10.43.18.70",
        desired=2,
        pods=[
            ("f2xkq", "0/1", "CrashLoopBackOff", "10", "34m", 1),
            ("w6jnc", "0/1", "CrashLoopBackOff", "10", "34m", 2),
        ],
    )
    ca = app(
        "catalog-admin",
        image="registry.gitlab.com/fennick/catalog-admin:22.4.0",
        port=3000,
        rs="6c8d7b9f5",
        cluster_ip="10.43.18.21",
        pods=[
            ("p7wzn", "1/1", "Running", "0", "2h", 0),
            ("t4mhc", "1/1", "Running", "0", "2h", 2),
        ],
    )
    sa = app(
        "search-api",
        image="registry.gitlab.com/fennick/search-api:9.2.1",
        port=8080,
        rs="5f6c8d9b7",
        cluster_ip="10.43.18.40",
        pods=[
            ("b8qsd", "1/1", "Running", "0", "4d", 0),
            ("n3vyr", "1/1", "Running", "0", "4d", 1),
        ],
    )
    k8s = namespace(ns, NODES_FRA, [si, ca, sa], seed=435)
    sig = "ImportError: libpq.so.5: cannot open shared object file: No such file or directory"
    crash = [
        (
            -95,
            '{"ts":"2026-12-05T13:58:24Z","level":"INFO","logger":"indexer","msg":"starting search-indexer 5.0.0"}',
        ),
        (-95, "Traceback (most recent call last):"),
        (-95, '  File "/app/indexer/__main__.py", line 4, in <module>'),
        (-95, "    from indexer.sources import postgres"),
        (-95, '  File "/app/indexer/sources/postgres.py", line 1, in <module>'),
        (-95, "    import psycopg2"),
        (
            -95,
            '  File "/usr/local/lib/python3.12/site-packages/psycopg2/__init__.py", line 51, in <module>',
        ),
        (-95, "    from psycopg2._psycopg import (                     # noqa"),
        (-95, sig),
    ]
    cont = container_text(
        "search-indexer",
        si["image"],
        8000,
        env={
            "PGHOST": "catalog-pg.catalog.svc",
            "OPENSEARCH_URL": "https://search-os.catalog.svc:9200",
        },
    )
    names = []
    for sfx in ("f2xkq", "w6jnc"):
        n = describe_pod(
            k8s,
            ns,
            si,
            sfx,
            NODES_FRA,
            state=crashloop(1, "Error", -96, -95),
            started=-2040,
            restarts=10,
            events_rows=backoff_rows(si, ns, sfx, "x140 over 33m"),
        )
        k8s[f"kubectl logs {n} -n {ns} --previous --tail=1000"] = podlog(crash)
        names.append(n)
    k8s[f"kubectl describe deployments search-indexer -n {ns}"] = deployment_describe(
        "search-indexer",
        ns,
        replicas="2 desired | 2 updated | 2 total | 0 available | 2 unavailable",
        revision=41,
        containers=cont,
        strategy="Recreate",
        conditions=[
            ("Available", "False", "MinimumReplicasUnavailable"),
            ("Progressing", "False", "ProgressDeadlineExceeded"),
        ],
        old_rs="search-indexer-5b7c9d6f8 (0/0 replicas created)",
        new_rs=f"search-indexer-{si['rs']} (2/2 replicas created)",
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "34m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/search-indexer",
                "Scaled down replica set search-indexer-5b7c9d6f8 to 0 from 2",
            ),
            (
                "34m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/search-indexer",
                f"Scaled up replica set search-indexer-{si['rs']} to 2",
            ),
            (
                "24m",
                "Warning",
                "ProgressDeadlineExceeded",
                "Deployment/search-indexer",
                'ReplicaSet "search-indexer-7d9f6b8c5" has timed out progressing.',
            ),
            (
                "30s",
                "Warning",
                "BackOff",
                f"Pod/{names[0]}",
                "Back-off restarting failed container search-indexer",
            ),
            (
                "20s",
                "Warning",
                "BackOff",
                f"Pod/{names[1]}",
                "Back-off restarting failed container search-indexer",
            ),
        ]
    )
    evs = [
        ev(
            "gitlab-ci",
            "info",
            "pipeline 88213 search-indexer: build ok (Dockerfile: multi-stage, runtime FROM python:3.12-slim, image 212 MB -> 74 MB), deploy production ok",
            at=start - 300,
        ),
        ev("search-indexer", "error", sig, **every(start + 60, -95, 300), pods=names),
        ev(
            "catalog-admin",
            "warn",
            "product {n} saved; reindex event pending for {ms} s (consumer lag 1{n})",
            **every(start + 400, -20, 60),
            pods=pods_of(ca),
        ),
        ev(
            "search-api",
            "warn",
            "stale hit ratio 0.{ms}: documents older than catalog updated_at",
            **every(start + 900, -30, 240),
            pods=pods_of(sa),
        ),
        ev(
            "search-api",
            "error",
            "OpenSearch [search-os-1] circuit breaker: request took 2.{ms}s, retry on replica",
            **every(-6500, -200, 500),
            pods=pods_of(sa),
        ),
        ev(
            "catalog-admin",
            "info",
            "catalog-admin 22.4.0 deployed (bulk price editor)",
            at=-7000,
            pods=pods_of(ca),
        ),
    ]
    return kube_case(
        seed=435,
        start=start,
        inc=incident("Product search shows old prices", "product search", start),
        exp=expected(
            "application",
            [
                "deployment/search-indexer",
                "search-indexer",
                "search-indexer 5.0.0",
                "libpq",
                "python:3.12-slim",
            ],
            sig,
            "search-indexer 5.0.0 moved to a multi-stage Dockerfile on python:3.12-slim: libpq-dev is in the build stage, but the runtime stage has no libpq5, so psycopg2 fails to import and the process exits at start (CrashLoopBackOff, ProgressDeadlineExceeded). The Deployment uses the Recreate strategy, so the old pods were stopped first and no indexer runs: catalogue change events pile up and search keeps old prices. catalog-admin's lag warnings and its release, search-api's stale hits and OpenSearch breaker lines are not the cause.",
            [
                f"search-indexer previous log: {sig}",
                "gitlab-ci: multi-stage Dockerfile, runtime FROM python:3.12-slim",
                "ProgressDeadlineExceeded",
            ],
            "Roll search-indexer back to 4.x, add libpq5 to the runtime stage (or use psycopg2-binary) and reindex the products changed in the last hour.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "search-api",
                pods_of(sa),
                ["GET /search?q={n} 200 {ms}ms", "GET /suggest?q={n} 200 {ms}ms"],
                8,
            )
        ],
        evs=evs,
        services=[
            svc("search-api", 140, {"500": (0.0005, 0.0006)}, (0.05, 0.05)),
            svc("catalog-admin", 6, {"500": (0.001, 0.001)}, (0.12, 0.12)),
        ],
        gauges=[
            {
                "name": "kafka_consumergroup_lag",
                "labels": {"group": "search-indexer", "topic": "catalog.changes"},
                "before": 12,
                "after": 14800,
                "change_at": start + 300,
            }
        ],
        books={
            "search-stale.md": runbook(
                "Search results out of date",
                "If search shows stale data, OpenSearch refresh is lagging: check the refresh interval on the products index and force a refresh; if the cluster is yellow, add a replica.",
            )
        },
    )


# =================================================================================================
# 4. Runtime: the cluster's node groups moved from Amazon Linux 2 (cgroup v1) to Bottlerocket
#    (cgroup v2) this week. ledger-service still runs on openjdk:8u292, which predates cgroup v2
#    container support (8u372): the JVM sizes its heap from the node's 64 GiB, not the 2 GiB limit.
#    Pods on the new nodes grow past the limit under the end-of-day batch and are OOMKilled; the two
#    still on an old node are fine. The incident says "account balances".
# =================================================================================================

NODES_BR = [
    ("ip-10-52-1-71.eu-west-1.compute.internal", "Ready", "10.52.1.71", "2d"),
    ("ip-10-52-2-14.eu-west-1.compute.internal", "Ready", "10.52.2.14", "2d"),
    ("ip-10-52-3-230.eu-west-1.compute.internal", "Ready", "10.52.3.230", "61d"),
]


@scenario("jdk8-heap-sized-from-host-on-cgroup-v2")
def jdk8_heap_sized_from_host_on_cgroup_v2() -> dict[str, Any]:
    start = -2600
    ns = "ledger"
    lg = app(
        "ledger-service",
        image="nexus.harrowbank.internal/core/ledger-service:3.18.4",
        port=8443,
        rs="59d7c8b6f",
        cluster_ip="10.100.61.9",
        pods=[
            ("a8kfz", "1/1", "Running", "6", "2d", 0),
            ("e3npw", "0/1", "CrashLoopBackOff", "7", "2d", 1),
            ("j5tqc", "1/1", "Running", "5", "2d", 0),
            ("u9rbd", "1/1", "Running", "0", "61d", 2),
        ],
    )
    acc = app(
        "accounts-bff",
        image="nexus.harrowbank.internal/channels/accounts-bff:14.2.0",
        port=3000,
        rs="7f9b5d6c8",
        cluster_ip="10.100.61.30",
        pods=[
            ("h2mxv", "1/1", "Running", "0", "80m", 0),
            ("r7cwl", "1/1", "Running", "0", "80m", 2),
        ],
    )
    k8s = namespace(ns, NODES_BR, [lg, acc], seed=436)
    for key, text in list(k8s.items()):
        if key == "kubectl get nodes -o wide":
            lines = text.splitlines()
            for i, line in enumerate(lines):
                if "10-52-1-71" in line or "10-52-2-14" in line:
                    lines[i] = line.replace(
                        "Amazon Linux 2023.6.20241121",
                        "Bottlerocket OS 1.26.2 (aws-k8s-1.31)",
                    ).replace("containerd://1.7.23", "containerd://1.7.24+bottlerocket")
            k8s[key] = "\n".join(lines) + "\n"
    sig = "Reason:       OOMKilled"
    cont = container_text(
        "ledger-service",
        lg["image"],
        8443,
        env={
            "JAVA_OPTS": "-XX:+UseG1GC -XX:MaxGCPauseMillis=200",
            "SPRING_PROFILES_ACTIVE": "prod",
        },
        limits="memory:  2Gi",
        requests="cpu:      1\n  memory:   2Gi",
    )
    names = []
    for sfx, restarts in (("e3npw", 7), ("a8kfz", 6), ("j5tqc", 5)):
        state = (
            "    State:          Waiting\n      Reason:       CrashLoopBackOff\n"
            "    Last State:     Terminated\n      Reason:       OOMKilled\n      Exit Code:    137\n"
            f"      Started:      {base.when(-700)}\n      Finished:     {base.when(-80)}"
            if sfx == "e3npw"
            else running(-300)
            + "\n    Last State:     Terminated\n      Reason:       OOMKilled\n      Exit Code:    137\n"
            f"      Started:      {base.when(-1500)}\n      Finished:     {base.when(-301)}"
        )
        n = describe_pod(
            k8s,
            ns,
            lg,
            sfx,
            NODES_BR,
            state=state,
            started=-170000,
            restarts=restarts,
            ready=sfx != "e3npw",
            events_rows=[
                (
                    "Warning",
                    "BackOff",
                    "70s (x9 over 38m)",
                    "kubelet",
                    f"Back-off restarting failed container ledger-service in pod {pod_name(lg, sfx)}_{ns}(0b7e…)",
                )
            ]
            if sfx == "e3npw"
            else [],
        )
        k8s[f"kubectl logs {n} -n {ns} --previous --tail=1000"] = podlog(
            [
                (
                    -700,
                    "2026-12-05 13:48:20.118  INFO 1 --- [           main] c.h.ledger.LedgerApplication : Started LedgerApplication in 21.4 seconds (JVM running for 23.0)",
                ),
                (
                    -690,
                    "2026-12-05 13:48:30.402  INFO 1 --- [           main] c.h.ledger.heap : JVM 1.8.0_292-b10, max heap 15.73 GB, available processors 16",
                ),
                (
                    -300,
                    "2026-12-05 13:55:00.911  INFO 1 --- [eod-batch-1] c.h.ledger.eod.EodPostingJob : posting batch 17/64, 48211 entries",
                ),
                (
                    -90,
                    "2026-12-05 13:58:30.004  WARN 1 --- [eod-batch-1] c.h.ledger.eod.EodPostingJob : posting batch 29/64 slow: 14803 ms",
                ),
            ]
        )
        names.append(n)
    k8s[f"kubectl describe deployments ledger-service -n {ns}"] = deployment_describe(
        "ledger-service",
        ns,
        replicas="4 desired | 4 updated | 4 total | 3 available | 1 unavailable",
        revision=64,
        containers=cont,
        conditions=[
            ("Available", "True", "MinimumReplicasAvailable"),
            ("Progressing", "True", "NewReplicaSetAvailable"),
        ],
        old_rs="ledger-service-7b6d5c9f8 (0/0 replicas created)",
        new_rs=f"ledger-service-{lg['rs']} (4/4 replicas created)",
        created=-60000000,
    )
    u = pod_name(lg, "u9rbd")
    k8s[f"kubectl logs {u} -n {ns} --tail=1000"] = podlog(
        [
            (
                -5000000,
                "2026-11-06 09:01:12.331  INFO 1 --- [           main] c.h.ledger.heap : JVM 1.8.0_292-b10, max heap 1.98 GB, available processors 2",
            )
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "38m",
                "Normal",
                "Killing",
                f"Pod/{names[0]}",
                "Container ledger-service exceeded its memory limit (OOMKilled), restarting",
            ),
            (
                "5m",
                "Normal",
                "Pulled",
                f"Pod/{names[1]}",
                f'Container image "{lg["image"]}" already present on machine',
            ),
            (
                "70s",
                "Warning",
                "BackOff",
                f"Pod/{names[0]}",
                "Back-off restarting failed container ledger-service",
            ),
        ]
    )
    lpods = pods_of(lg)
    evs = [
        ev(
            "terraform",
            "info",
            "apply eks-prod-euw1: aws_eks_node_group.general_br (ami_type BOTTLEROCKET_x86_64, instance m6i.4xlarge) created; aws_eks_node_group.general_al2 desired 3 -> 1",
            at=-7100,
        ),
        ev(
            "kernel",
            "warn",
            "Memory cgroup out of memory: Killed process {n} (java) total-vm:19{n}kB, anon-rss:2096{ms}kB, file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:4{ms}kB oom_score_adj:985",
            **every(start + 200, -80, 420),
            labels={"node": NODES_BR[0][0]},
        ),
        ev(
            "ledger-service",
            "warn",
            "c.h.ledger.eod.EodPostingJob : posting batch {n} slow: 1{n} ms",
            **every(start, -60, 120),
            pods=lpods,
        ),
        ev(
            "accounts-bff",
            "error",
            "GET http://ledger-service:8443/v3/balances/{n} failed: socket hang up (ECONNRESET) after {ms}0ms",
            **every(start + 100, -1, 5),
            pods=pods_of(acc),
        ),
        ev(
            "accounts-bff",
            "info",
            "accounts-bff 14.2.0 started (new spending insights widget)",
            at=-4800,
            pods=pods_of(acc),
        ),
        ev(
            "ledger-service",
            "warn",
            "o.h.engine.jdbc.spi.SqlExceptionHelper : SQL Error: 0, SQLState: 57014 canceling statement due to statement timeout",
            **every(-9600, -9300, 60),
            pods=lpods,
        ),
    ]
    return kube_case(
        seed=436,
        start=start,
        inc=incident(
            "Balances not loading in the app",
            "account balances",
            start,
            ["balance screen spins then errors"],
        ),
        exp=expected(
            "application",
            [
                "deployment/ledger-service",
                "ledger-service",
                "openjdk:8u292",
                "1.8.0_292",
                "cgroup v2",
                "bottlerocket",
            ],
            "max heap 15.73 GB",
            "The node groups are moving from Amazon Linux 2 (cgroup v1) to Bottlerocket (cgroup v2). ledger-service runs JDK 1.8.0_292, older than cgroup v2 container support (8u372), so on the new nodes it sizes its heap from the host's memory (max heap 15.73 GB) instead of the 2 GiB limit. Under the end-of-day posting batch the heap grows past the limit and the kernel OOM-kills the container (OOMKilled, exit 137); the pod on the remaining old node reports 1.98 GB and never restarts. accounts-bff's resets and release and the old statement timeouts are not the cause.",
            [
                f"ledger-service pods: {sig}, exit 137, 5-7 restarts on the Bottlerocket nodes",
                "previous log: JVM 1.8.0_292-b10, max heap 15.73 GB",
                "terraform: node group general_br BOTTLEROCKET_x86_64",
            ],
            "Set -XX:MaxRAM=2g / -Xmx1536m (or upgrade to 8u372+ / JDK 17) for ledger-service; keep it on the AL2 node group until then.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "accounts-bff",
                pods_of(acc),
                [
                    "GET /accounts/{n}/summary 200 {ms}ms",
                    "GET /accounts/{n}/transactions 200 {ms}ms",
                ],
                8,
            )
        ],
        evs=evs,
        services=[
            svc("accounts-bff", 70, {"502": (0.0002, 0.06)}, (0.09, 0.2)),
            svc("ledger-service", 70, {"500": (0.0004, 0.01)}, (0.05, 0.16)),
        ],
        books={
            "balances.md": runbook(
                "Balances not loading",
                "If balances fail, the ledger database is usually slow: check ledger-db CPU and long-running statements and kill the EOD reconciliation report if it blocks posting.",
            )
        },
    )


# =================================================================================================
# 5. Node / infrastructure: the cluster grew (a new tenant namespace, ~900 more pods) onto three
#    large nodes. Those nodes' kernels keep the default neighbour table size (gc_thresh3 = 1024);
#    with flat pod networking every pod talks to many peers and the ARP table overflows. Packets to
#    some peers are dropped for seconds: intermittent connect timeouts, only from pods on those
#    three nodes. The incident says "shop".
# =================================================================================================

NODES_NT = [
    ("ip-10-80-1-12.ap-southeast-2.compute.internal", "Ready", "10.80.1.12", "210d"),
    ("ip-10-80-2-33.ap-southeast-2.compute.internal", "Ready", "10.80.2.33", "210d"),
    ("ip-10-80-1-201.ap-southeast-2.compute.internal", "Ready", "10.80.1.201", "6d"),
    ("ip-10-80-2-187.ap-southeast-2.compute.internal", "Ready", "10.80.2.187", "6d"),
    ("ip-10-80-3-95.ap-southeast-2.compute.internal", "Ready", "10.80.3.95", "6d"),
]


@scenario("arp-neighbour-table-overflow-big-nodes")
def arp_neighbour_table_overflow_big_nodes() -> dict[str, Any]:
    start = -1900
    ns = "storefront"
    web = app(
        "shop-web",
        image="ghcr.io/wattleandco/shop-web:31.0.2",
        port=3000,
        rs="6b8c7d9f5",
        cluster_ip="10.100.14.3",
        pods=[
            (s, "1/1", "Running", "0", "6d", i)
            for s, i in (
                ("c1qzm", 0),
                ("g4vwk", 1),
                ("l8rtn", 2),
                ("p2xjs", 3),
                ("w6dhe", 4),
            )
        ],
    )
    inv = app(
        "inventory-api",
        image="ghcr.io/wattleandco/inventory-api:8.3.0",
        port=8080,
        rs="7c5f8b9d6",
        cluster_ip="10.100.14.22",
        pods=[
            (s, "1/1", "Running", "0", "45m", i)
            for s, i in (("b7mnk", 0), ("f3hqr", 1), ("t9vwz", 4))
        ],
    )
    k8s = namespace(
        ns, NODES_NT, [web, inv], seed=437, extra_namespaces=("analytics-tenant-b",)
    )
    sig = "neighbour: arp_cache: neighbor table overflow!"
    for i, (name, _, ip, _age) in enumerate(NODES_NT):
        rows = []
        if i >= 2:
            rows = [
                ("analytics-tenant-b", f"spark-exec-b-{j:03d}")
                for j in range(i * 7, i * 7 + 40)
            ]
        text = node_describe(
            name,
            ip,
            pods_rows=rows,
            capacity=("64", "259187972Ki", "737")
            if i >= 2
            else ("8", "32386260Ki", "110"),
        )
        text = retype_node(
            text,
            "m6i.16xlarge" if i >= 2 else "m6i.2xlarge",
            -518400 if i >= 2 else -18144000,
            "eks.amazonaws.com/nodegroup=big-m6i16xl"
            if i >= 2
            else "eks.amazonaws.com/nodegroup=general",
        )
        k8s[f"kubectl describe nodes {name}"] = text
    evs = [
        ev(
            "terraform",
            "info",
            "plan eks-prod-syd: no changes (node group big-m6i16xl: 3 x m6i.16xlarge, maxPods 737, prefix delegation, launch template v1 unchanged since 2026-11-29)",
            at=-6900,
        ),
        ev(
            "spark-operator",
            "info",
            "SparkApplication analytics-tenant-b/attribution-daily submitted: 640 executors requested (nodeSelector nodegroup=big-m6i16xl)",
            at=start - 240,
        ),
        ev(
            "kernel",
            "warn",
            f"[{'{n}'}.{'{ms}'}] {sig}",
            **every(start, -20, 40),
            labels={"node": NODES_NT[2][0]},
        ),
        ev(
            "kernel",
            "warn",
            f"[{'{n}'}.{'{ms}'}] {sig}",
            **every(start + 15, -25, 55),
            labels={"node": NODES_NT[3][0]},
        ),
        ev(
            "kernel",
            "warn",
            f"[{'{n}'}.{'{ms}'}] {sig}",
            **every(start + 30, -30, 70),
            labels={"node": NODES_NT[4][0]},
        ),
        ev(
            "node-exporter",
            "info",
            'node_arp_entries{device="eth0"} 1024 on '
            + NODES_NT[2][0]
            + " (net.ipv4.neigh.default.gc_thresh3 = 1024)",
            at=start + 60,
        ),
        ev(
            "shop-web",
            "error",
            '{"level":50,"msg":"inventory lookup failed","err":{"type":"FetchError","message":"request to http://inventory-api.storefront.svc:8080/v2/stock/{n} failed, reason: connect ETIMEDOUT 10.100.14.22:8080","code":"ETIMEDOUT"}}',
            **every(start + 20, -1, 4),
            pods=[
                pod_name(web, "l8rtn"),
                pod_name(web, "p2xjs"),
                pod_name(web, "w6dhe"),
            ],
        ),
        ev(
            "inventory-api",
            "warn",
            "stock cache miss storm: {n} misses in 10s",
            **every(start + 300, -100, 400),
            pods=pods_of(inv),
        ),
        ev(
            "inventory-api",
            "info",
            "inventory-api 8.3.0 started (multi-warehouse stock)",
            at=-2700,
            pods=pods_of(inv),
        ),
        ev(
            "analytics-tenant-b",
            "warn",
            "spark executor {n} lost: heartbeat timed out after 120000 ms",
            **every(start + 100, -50, 300),
        ),
        ev(
            "shop-web",
            "error",
            '{"level":50,"msg":"redis: connection pool timeout","err":{"type":"Error","message":"Connection is closed."}}',
            **every(-9800, -9500, 60),
            pods=pods_of(web),
        ),
    ]
    return kube_case(
        seed=437,
        start=start,
        inc=incident("Shop intermittently failing", "shop", start),
        exp=expected(
            "platform",
            [
                f"node/{NODES_NT[2][0]}",
                NODES_NT[2][0],
                f"node/{NODES_NT[3][0]}",
                NODES_NT[3][0],
                f"node/{NODES_NT[4][0]}",
                NODES_NT[4][0],
                "gc_thresh3",
                "neighbor table",
                "big-m6i16xl",
            ],
            sig,
            "Three m6i.16xlarge nodes (node group big-m6i16xl, max 737 pods each) joined six days ago for a new tenant; today its attribution job asked for 640 Spark executors on them (the trigger). Their kernels keep the default neighbour table limit (net.ipv4.neigh.default.gc_thresh3 = 1024); with that many pods talking to many peers on a flat VPC network the ARP cache overflows ('neighbor table overflow!') and packets to peers without an entry are dropped, so pods on those three nodes see intermittent connect timeouts. shop-web's ETIMEDOUT errors come only from its pods on these nodes; inventory-api's release and cache warnings, the Spark job itself, the tenant's Spark heartbeat losses (the same fault, another victim) and the old Redis pool timeout are not the cause.",
            [
                f"kernel on the three big nodes: {sig}",
                "node_arp_entries 1024 = gc_thresh3",
                "ETIMEDOUT only from shop-web pods on the m6i.16xlarge nodes",
            ],
            "Raise net.ipv4.neigh.default.gc_thresh1/2/3 (e.g. 8192/32768/65536) in the big node group's launch template user data, or cordon and drain those nodes until then.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "shop-web",
                pods_of(web),
                [
                    "GET /p/{n} 200 {ms}ms",
                    "GET /c/{n} 200 {ms}ms",
                    "POST /cart 200 {ms}ms",
                ],
                8,
            )
        ],
        evs=evs,
        services=[
            svc("shop-web", 320, {"500": (0.0004, 0.07)}, (0.09, 0.4)),
            svc(
                "inventory-api",
                260,
                {"500": (0.0003, 0.0004)},
                (0.02, 0.02),
                rps_after=170,
            ),
        ],
        books={
            "shop-5xx.md": runbook(
                "Shop 5xx",
                "Intermittent timeouts to inventory-api mean inventory-api is overloaded: scale it to 6 replicas and check its stock cache hit ratio.",
            )
        },
    )


# =================================================================================================
# 6. Service routing: the rates gRPC service used to be headless (clusterIP: None) so that clients'
#    round_robin balancer saw every pod. The shared "service" library chart 3.0 always renders a
#    ClusterIP; since the migration clients resolve one virtual IP, open one HTTP/2 connection each
#    and kube-proxy pins it to one pod. The morning scale-out adds pods that get no traffic while
#    two pods take almost everything. The incident says "quotes".
# =================================================================================================


@scenario("grpc-service-lost-headless-clusterip")
def grpc_service_lost_headless_clusterip() -> dict[str, Any]:
    start = -2000
    ns = "pricing"
    rt = app(
        "rates-grpc",
        image="eu.gcr.io/tollgate-prod/rates-grpc:6.4.1",
        port=50051,
        rs="6d9c8b7f5",
        cluster_ip="10.32.9.114",
        desired=8,
        pods=[
            (s, "1/1", "Running", r, a, i)
            for s, r, a, i in (
                ("b3xkw", "4", "2d", 0),
                ("h8mqv", "3", "2d", 1),
                ("c6tnr", "0", "2d", 2),
                ("k1zpd", "0", "2d", 0),
                ("n5wyg", "0", "31m", 1),
                ("q9fbs", "0", "31m", 2),
                ("s2lce", "0", "31m", 0),
                ("x7vjh", "0", "31m", 1),
            )
        ],
    )
    qa = app(
        "quote-api",
        image="eu.gcr.io/tollgate-prod/quote-api:19.0.3",
        port=8080,
        rs="5b7d9c6f8",
        cluster_ip="10.32.9.20",
        pods=[
            ("d4hwe", "1/1", "Running", "0", "6h", 0),
            ("j9rtm", "1/1", "Running", "0", "6h", 1),
            ("v2kxn", "1/1", "Running", "0", "6h", 2),
        ],
    )
    k8s = namespace(ns, NODES_FRA, [rt, qa], seed=438)
    key = f"kubectl get services -n {ns} -o wide"
    k8s[key] = k8s[key].replace("50051/TCP   300d", "50051/TCP   27h ")
    eps = next(
        r.split()[1]
        for r in k8s[f"kubectl get endpoints -n {ns}"].splitlines()
        if r.startswith("rates-grpc ")
    )
    k8s[f"kubectl describe services rates-grpc -n {ns}"] = (
        f"Name:              rates-grpc\nNamespace:         {ns}\n"
        "Labels:            app.kubernetes.io/managed-by=Helm\n"
        "                   helm.sh/chart=service-3.0.1\n"
        "Annotations:       meta.helm.sh/release-name: rates-grpc\n"
        "Selector:          app=rates-grpc\n"
        "Type:              ClusterIP\n"
        "IP Family Policy:  SingleStack\n"
        "IP Families:       IPv4\n"
        "IP:                10.32.9.114\n"
        "IPs:               10.32.9.114\n"
        "Port:              grpc  50051/TCP\n"
        "TargetPort:        50051/TCP\n"
        f"Endpoints:         {eps}\n"
        "Session Affinity:  None\n"
        "Internal Traffic Policy:  Cluster\n"
        "Events:            <none>\n"
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "31m",
                "Normal",
                "SuccessfulRescale",
                "HorizontalPodAutoscaler/rates-grpc",
                "New size: 8; reason: cpu resource utilization (percentage of request) above target",
            ),
            (
                "31m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/rates-grpc",
                "Scaled up replica set rates-grpc-6d9c8b7f5 to 8 from 4",
            ),
            (
                "9m",
                "Warning",
                "Unhealthy",
                f"Pod/{pod_name(rt, 'b3xkw')}",
                'Liveness probe failed: timeout: failed to connect service ":50051" within 1s',
            ),
            (
                "4m",
                "Warning",
                "Unhealthy",
                f"Pod/{pod_name(rt, 'h8mqv')}",
                'Liveness probe failed: timeout: failed to connect service ":50051" within 1s',
            ),
        ]
    )
    k8s[f"kubectl get horizontalpodautoscalers -n {ns}"] = table(
        [
            ["NAME", "REFERENCE", "TARGETS", "MINPODS", "MAXPODS", "REPLICAS", "AGE"],
            [
                "rates-grpc",
                "Deployment/rates-grpc",
                "cpu: 41%/60%",
                "4",
                "12",
                "8",
                "340d",
            ],
        ]
    )
    hot = [pod_name(rt, "b3xkw"), pod_name(rt, "h8mqv")]
    sig = "grpc.max_concurrent_streams reached"
    evs = [
        ev(
            "argocd",
            "info",
            "app pricing-rates-grpc: Synced, Healthy (last sync 27h ago: chart service 2.7.0 -> 3.0.1, shared library chart migration PLAT-2290; Service rates-grpc replaced)",
            at=-6900,
        ),
        ev(
            "rates-grpc",
            "warn",
            f'level=warn caller=server.go:412 msg="{sig}" active_streams=1000 conn_count=3 peer=10.1.{"{ms}"}.{"{ms}"}',
            **every(start, -5, 20),
            pods=hot,
        ),
        ev(
            "rates-grpc",
            "info",
            'level=info caller=server.go:201 msg="serving" addr=:50051 active_streams=0 conn_count=0',
            **every(start + 200, -30, 180),
            pods=[pod_name(rt, s) for s in ("n5wyg", "q9fbs", "s2lce", "x7vjh")],
        ),
        ev(
            "quote-api",
            "error",
            "io.grpc.StatusRuntimeException: UNAVAILABLE: io exception\n\tat io.grpc.stub.ClientCalls.toStatusRuntimeException(ClientCalls.java:268)\n\tat com.tollgate.quote.rates.RatesClient.lookup(RatesClient.kt:88)",
            **every(start + 40, -1, 5),
            pods=pods_of(qa),
        ),
        ev(
            "quote-api",
            "warn",
            "rates lookup DEADLINE_EXCEEDED after 500ms for lane {n}, using cached rate",
            **every(start + 10, -1, 3),
            pods=pods_of(qa),
        ),
        ev(
            "quote-api",
            "info",
            "quote-api 19.0.3 started (fuel surcharge table 2026-12)",
            at=-5200,
            pods=pods_of(qa),
        ),
        ev(
            "fuel-index-sync",
            "error",
            "GET https://api.fuelindex.example.org/v1/diesel/eu 503 Service Unavailable (retry in 300s)",
            **every(-7000, -100, 300),
        ),
        ev(
            "rates-grpc",
            "error",
            'level=error caller=store.go:77 msg="redis: i/o timeout" addr=rates-cache:6379',
            **every(-9800, -9500, 60),
            pods=pods_of(rt),
        ),
    ]
    return kube_case(
        seed=438,
        start=start,
        inc=incident(
            "Quotes timing out",
            "quotes",
            start,
            ["quote page times out for most lanes"],
        ),
        exp=expected(
            "connect",
            [
                "service/rates-grpc",
                "rates-grpc",
                "clusterip",
                "headless",
                "service-3.0.1",
                "chart service 3.0.1",
            ],
            sig,
            "rates-grpc used to be a headless Service so that gRPC clients' round_robin balancer saw every pod. The shared library chart service 3.0 renders every Service with a ClusterIP; since the migration each quote-api client resolves one virtual IP and keeps one long-lived HTTP/2 connection, which kube-proxy pinned to one pod. Two pods carry nearly all streams (max_concurrent_streams reached, liveness failures) while the four pods the HPA added at the morning peak get none; average CPU (41 %) looks fine. quote-api's errors and release, the fuel index 503 and the old Redis timeout are not the cause.",
            [
                f"rates-grpc b3xkw/h8mqv: {sig}, active_streams=1000",
                "new pods: active_streams=0 conn_count=0",
                "Service rates-grpc Type ClusterIP, chart service-3.0.1",
            ],
            "Render rates-grpc headless again (clusterIP: None) or give clients a proxy/xDS balancer (or MaxConnectionAge on the server); restart quote-api to rebalance.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "quote-api",
                pods_of(qa),
                ["POST /v2/quotes 200 {ms}ms", "GET /v2/lanes/{n} 200 {ms}ms"],
                8,
            )
        ],
        evs=evs,
        services=[
            svc("quote-api", 210, {"504": (0.0003, 0.21)}, (0.12, 0.48)),
            svc("rates-grpc", 900, {"503": (0.0, 0.14)}, (0.004, 0.09)),
        ],
        books={
            "quotes.md": runbook(
                "Quote timeouts",
                "Quote timeouts usually follow a fuel-index sync failure (rates recomputed on every request): check fuel-index-sync and, if it failed, enable STATIC_SURCHARGE in quote-api's ConfigMap.",
            )
        },
    )


# =================================================================================================
# 7. DNS: webhook-sender 2.0.0 moved to node:20-alpine (musl). The merchant webhook host
#    hooks.partnerhub.example resolves to a long CNAME chain with 14 A records; the answer exceeds
#    512 bytes, CoreDNS forwards it truncated (TC bit) and musl's resolver never retries over TCP,
#    so only that name fails with EAI_AGAIN. Other lookups work. The incident says "order updates".
# =================================================================================================


@scenario("musl-resolver-no-tcp-fallback-large-answer")
def musl_resolver_no_tcp_fallback_large_answer() -> dict[str, Any]:
    start = -2300
    ns = "integrations"
    ws = app(
        "webhook-sender",
        image="ghcr.io/parcelyard/webhook-sender:2.0.0",
        port=3000,
        rs="7c8d5f9b6",
        cluster_ip="10.96.40.17",
        pods=[
            ("g2kfn", "1/1", "Running", "0", "41m", 0),
            ("m9xqt", "1/1", "Running", "0", "41m", 1),
            ("w4pcz", "1/1", "Running", "0", "41m", 2),
        ],
    )
    ev_api = app(
        "order-events",
        image="ghcr.io/parcelyard/order-events:11.6.0",
        port=8080,
        rs="59b7c6d8f",
        cluster_ip="10.96.40.5",
        pods=[
            ("c8vrn", "1/1", "Running", "0", "7d", 0),
            ("t3mhw", "1/1", "Running", "0", "7d", 2),
        ],
    )
    k8s = namespace(
        ns, NODES_IAD, [ws, ev_api], seed=439, extra_namespaces=("kube-system",)
    )
    sig = "getaddrinfo EAI_AGAIN hooks.partnerhub.example"
    cont = container_text(
        "webhook-sender",
        ws["image"],
        3000,
        env={
            "NODE_ENV": "production",
            "QUEUE_URL": "amqp://rabbitmq.integrations.svc:5672",
        },
    )
    k8s[f"kubectl describe deployments webhook-sender -n {ns}"] = deployment_describe(
        "webhook-sender",
        ns,
        replicas="3 desired | 3 updated | 3 total | 3 available | 0 unavailable",
        revision=18,
        containers=cont,
        conditions=[
            ("Available", "True", "MinimumReplicasAvailable"),
            ("Progressing", "True", "NewReplicaSetAvailable"),
        ],
        old_rs="webhook-sender-6f5c8d7b9 (0/0 replicas created)",
        new_rs=f"webhook-sender-{ws['rs']} (3/3 replicas created)",
    )
    logs_lines = [
        (
            -60,
            '{"level":"error","time":1765000000000,"msg":"delivery failed","merchant":"m_4412","url":"https://hooks.partnerhub.example/v1/parcel-status","err":"'
            + sig
            + '","attempt":4}',
        ),
        (
            -58,
            '{"level":"info","msg":"delivered","merchant":"m_1180","url":"https://api.shopfront-two.example/webhooks/parcel","status":204,"ms":88}',
        ),
        (
            -41,
            '{"level":"error","msg":"delivery failed","merchant":"m_5021","url":"https://hooks.partnerhub.example/v1/parcel-status","err":"'
            + sig
            + '","attempt":2}',
        ),
    ]
    for sfx in ("g2kfn", "m9xqt"):
        k8s[f"kubectl logs {pod_name(ws, sfx)} -n {ns} --tail=1000"] = podlog(
            logs_lines
        )
    cd = "coredns-6b9f7d5c8-q4x2m"
    k8s["kubectl get pods -n kube-system -o wide --show-labels"] = table(
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
                cd,
                "1/1",
                "Running",
                "0",
                "23d",
                "10.1.1.12",
                NODES_IAD[0][0],
                "<none>",
                "<none>",
                "k8s-app=kube-dns,pod-template-hash=6b9f7d5c8",
            ],
            [
                "coredns-6b9f7d5c8-x8v1d",
                "1/1",
                "Running",
                "0",
                "23d",
                "10.1.3.27",
                NODES_IAD[2][0],
                "<none>",
                "<none>",
                "k8s-app=kube-dns,pod-template-hash=6b9f7d5c8",
            ],
        ]
    )
    k8s[f"kubectl logs {cd} -n kube-system --tail=1000"] = podlog(
        [
            (
                -120,
                '[INFO] 10.1.2.63:41822 - 5812 "A IN hooks.partnerhub.example. udp 42 false 512" NOERROR qr,rd,ra,tc 521 0.002841s',
            ),
            (
                -119,
                '[INFO] 10.1.2.63:41822 - 5812 "A IN hooks.partnerhub.example. udp 42 false 512" NOERROR qr,rd,ra,tc 521 0.000121s',
            ),
            (
                -100,
                '[INFO] 10.1.1.40:50112 - 40177 "A IN api.shopfront-two.example. udp 43 false 512" NOERROR qr,rd,ra 118 0.011403s',
            ),
            (
                -90,
                "[ERROR] plugin/errors: 2 metrics-sink.observability.svc.cluster.local. A: read udp 10.1.3.11:44120->10.0.0.2:53: i/o timeout",
            ),
        ]
    )
    evs = [
        ev(
            "argocd",
            "info",
            "app webhook-sender synced to 2.0.0 (Dockerfile FROM node:20-alpine, was node:20-bookworm-slim; image 318 MB -> 61 MB)",
            at=start - 180,
        ),
        ev(
            "webhook-sender",
            "error",
            '{"level":"error","msg":"delivery failed","merchant":"m_{n}","url":"https://hooks.partnerhub.example/v1/parcel-status","err":"'
            + sig
            + '","attempt":3}',
            **every(start, -1, 6),
            pods=pods_of(ws),
        ),
        ev(
            "webhook-sender",
            "info",
            '{"level":"info","msg":"delivered","merchant":"m_{n}","status":204,"ms":{ms}}',
            **every(-3600, -2, 10),
            pods=pods_of(ws),
        ),
        ev(
            "coredns",
            "info",
            '[INFO] 10.1.{ms}.{ms}:{n} - {n} "A IN hooks.partnerhub.example. udp 42 false 512" NOERROR qr,rd,ra,tc 521 0.00{ms}s',
            **every(start, -2, 20),
            pods=[cd],
        ),
        ev(
            "coredns",
            "error",
            "[ERROR] plugin/errors: 2 metrics-sink.observability.svc.cluster.local. A: read udp 10.1.3.11:{n}->10.0.0.2:53: i/o timeout",
            **every(-7000, -60, 400),
            pods=[cd],
        ),
        ev(
            "order-events",
            "warn",
            "webhook outbox backlog {n} for partner partnerhub (oldest {ms} min)",
            **every(start + 300, -30, 180),
            pods=pods_of(ev_api),
        ),
        ev(
            "order-events",
            "info",
            "order-events 11.6.0 rolled out (returns label events)",
            at=-6000,
            pods=pods_of(ev_api),
        ),
        ev(
            "webhook-sender",
            "error",
            '{"level":"error","msg":"delivery failed","merchant":"m_2290","url":"https://erp.brightcargo.example/hook","err":"certificate has expired"}',
            **every(-9900, -9500, 80),
            pods=pods_of(ws),
        ),
    ]
    return kube_case(
        seed=439,
        start=start,
        inc=incident("Merchants not receiving order updates", "order updates", start),
        exp=expected(
            "dns",
            [
                "deployment/webhook-sender",
                "webhook-sender",
                "webhook-sender 2.0.0",
                "node:20-alpine",
                "musl",
                "hooks.partnerhub.example",
            ],
            sig,
            "webhook-sender 2.0.0 moved from a Debian (glibc) base to node:20-alpine (musl). hooks.partnerhub.example resolves through a CNAME chain to 14 A records; the UDP answer is larger than 512 bytes, so it arrives truncated (tc flag in CoreDNS's log), and musl's resolver does not retry over TCP: getaddrinfo returns EAI_AGAIN for that name only, and every delivery to the biggest merchant platform fails. Other partners' hooks resolve. CoreDNS's unrelated upstream timeouts, order-events' backlog and release and the old certificate error are not the cause.",
            [
                f"webhook-sender: {sig}",
                "coredns: A IN hooks.partnerhub.example … NOERROR qr,rd,ra,tc 521",
                "argocd: webhook-sender 2.0.0 FROM node:20-alpine",
            ],
            "Roll webhook-sender back to the glibc image (node:20-bookworm-slim), or resolve with a TCP-capable resolver; then replay the outbox.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "order-events",
                pods_of(ev_api),
                ["POST /v1/events 202 {ms}ms", "GET /v1/orders/{n}/events 200 {ms}ms"],
                8,
            )
        ],
        evs=evs,
        services=[
            svc("order-events", 120, {"500": (0.0004, 0.0005)}, (0.03, 0.03)),
            svc("webhook-sender", 30, {"500": (0.002, 0.31)}, (0.2, 0.11)),
        ],
        books={
            "dns.md": runbook(
                "DNS errors (EAI_AGAIN)",
                "EAI_AGAIN means CoreDNS is overloaded or its upstream is failing: check the coredns pods' errors and scale the coredns Deployment to 4 replicas.",
            )
        },
    )


# =================================================================================================
# 8. Network policy: ledger-writer's egress NetworkPolicy `allow-egress-postgres` admits the RDS
#    primary's subnet (10.20.1.0/24) only, written when the database was single-AZ. It became
#    Multi-AZ last quarter; tonight's maintenance window failed it over to the standby in 10.20.2.0/24
#    (the trigger). The DNS name now points there and every new connection is dropped. The incident
#    says "transfers".
# =================================================================================================


@scenario("netpol-ipblock-misses-rds-standby-subnet")
def netpol_ipblock_misses_rds_standby_subnet() -> dict[str, Any]:
    start = -1700
    ns = "payments-core"
    lw = app(
        "ledger-writer",
        image="quay.io/fernbank/ledger-writer:4.2.7",
        port=8080,
        rs="6c7f9d8b5",
        cluster_ip="172.20.31.8",
        pods=[
            ("d8mkw", "0/1", "Running", "3", "12d", 0),
            ("q2vbn", "0/1", "Running", "3", "12d", 1),
            ("z5trx", "0/1", "Running", "2", "12d", 2),
        ],
    )
    tr = app(
        "transfer-api",
        image="quay.io/fernbank/transfer-api:21.3.0",
        port=8080,
        rs="7d5b8c9f6",
        cluster_ip="172.20.31.20",
        pods=[
            ("a3qhz", "1/1", "Running", "0", "50m", 0),
            ("k6wdn", "1/1", "Running", "0", "50m", 1),
        ],
    )
    k8s = namespace(ns, NODES_DUB, [lw, tr], seed=440)
    k8s[f"kubectl get networkpolicies -n {ns}"] = table(
        [
            ["NAME", "POD-SELECTOR", "AGE"],
            ["default-deny-all", "<none>", "402d"],
            ["allow-dns", "<none>", "402d"],
            ["allow-egress-postgres", "app=ledger-writer", "398d"],
            ["allow-ingress-from-transfer-api", "app=ledger-writer", "398d"],
            ["allow-egress-ledger-writer", "app=transfer-api", "398d"],
        ]
    )
    k8s[f"kubectl describe networkpolicies allow-egress-postgres -n {ns}"] = (
        f"Name:         allow-egress-postgres\nNamespace:    {ns}\nCreated on:   2025-11-03 10:12:44 +0000 UTC\n"
        "Labels:       team=payments-core\nAnnotations:  <none>\nSpec:\n"
        "  PodSelector:     app=ledger-writer\n"
        "  Not affecting ingress traffic\n"
        "  Allowing egress traffic:\n"
        "    To Port: 5432/TCP\n"
        "    To:\n"
        "      IPBlock:\n"
        "        CIDR: 10.20.1.0/24\n"
        "        Except: \n"
        "  Policy Types: Egress\n"
    )
    sig = "Connection to ledger-db.cx2k9wq1zt.eu-west-1.rds.amazonaws.com:5432 refused or timed out"
    names = []
    for sfx in ("d8mkw", "q2vbn", "z5trx"):
        n = describe_pod(
            k8s,
            ns,
            lw,
            sfx,
            NODES_DUB,
            state=running(-1000),
            started=-1036800,
            restarts=3,
            ready=False,
            events_rows=[
                (
                    "Warning",
                    "Unhealthy",
                    "20s (x88 over 26m)",
                    "kubelet",
                    "Readiness probe failed: HTTP probe failed with statuscode: 503",
                )
            ],
        )
        names.append(n)
        k8s[f"kubectl logs {n} -n {ns} --tail=1000"] = podlog(
            [
                (
                    -400,
                    "2026-12-05T13:53:20.114Z ERROR 1 --- [ledger-pool connection adder] com.zaxxer.hikari.pool.HikariPool : ledger-pool - Exception during pool initialization.",
                ),
                (
                    -400,
                    f"org.postgresql.util.PSQLException: {sig}. Check that the hostname and port are correct and that the postmaster is accepting TCP/IP connections.",
                ),
                (-400, "Caused by: java.net.SocketTimeoutException: Connect timed out"),
                (
                    -400,
                    "\tat java.base/sun.nio.ch.NioSocketImpl.timedFinishConnect(NioSocketImpl.java:546)",
                ),
                (
                    -30,
                    "2026-12-05T13:59:30.902Z WARN 1 --- [nio-8080-exec-4] c.f.ledger.health.DbHealthIndicator : readiness DOWN: ledger-pool has 0 connections (resolved ledger-db -> 10.20.2.47)",
                ),
            ]
        )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "26m",
                "Normal",
                "Killing",
                f"Pod/{names[0]}",
                "Container ledger-writer failed liveness probe, will be restarted",
            ),
            (
                "20s",
                "Warning",
                "Unhealthy",
                f"Pod/{names[1]}",
                "Readiness probe failed: HTTP probe failed with statuscode: 503",
            ),
            (
                "15s",
                "Warning",
                "Unhealthy",
                f"Pod/{names[2]}",
                "Readiness probe failed: HTTP probe failed with statuscode: 503",
            ),
        ]
    )
    evs = [
        ev(
            "rds",
            "info",
            "RDS-EVENT-0013: A Multi-AZ failover that resulted in the promotion of a standby instance has started. (ledger-db, maintenance: minor version upgrade 16.4 -> 16.6)",
            at=start - 150,
        ),
        ev(
            "rds",
            "info",
            "RDS-EVENT-0015: The Multi-AZ failover that resulted in the promotion of a standby instance is complete. It may take several minutes for the DNS to update. (ledger-db, now eu-west-1b)",
            at=start - 60,
        ),
        ev(
            "ledger-writer",
            "error",
            f"org.postgresql.util.PSQLException: {sig}. Check that the hostname and port are correct and that the postmaster is accepting TCP/IP connections.",
            **every(start, -10, 30),
            pods=names,
        ),
        ev(
            "transfer-api",
            "error",
            "POST http://ledger-writer:8080/v1/entries -> 503 Service Unavailable (no healthy upstream); transfer {n} rolled back",
            **every(start + 20, -1, 4),
            pods=pods_of(tr),
        ),
        ev(
            "transfer-api",
            "info",
            "transfer-api 21.3.0 started (SEPA instant limits)",
            at=-3000,
            pods=pods_of(tr),
        ),
        ev(
            "vpc-flow-logs",
            "info",
            "ACCEPT eni-0a1b2c3d4e5f60718 10.36.1.{ms} -> 10.20.1.{ms} 5432 tcp (analytics-etl)",
            **every(-6000, -10, 300),
        ),
        ev(
            "fx-feed",
            "warn",
            "ECB reference rate file late (expected 16:00 CET)",
            **every(-7000, -200, 900),
        ),
        ev(
            "ledger-writer",
            "error",
            "org.postgresql.util.PSQLException: ERROR: could not serialize access due to concurrent update",
            **every(-10000, -9700, 60),
            pods=names,
        ),
    ]
    return kube_case(
        seed=440,
        start=start,
        inc=incident("Transfers failing", "transfers", start),
        exp=expected(
            "connect",
            [
                "networkpolicy/allow-egress-postgres",
                "allow-egress-postgres",
                "ledger-writer",
                "deployment/ledger-writer",
                "10.20.1.0/24",
                "ledger-db",
            ],
            sig,
            "ledger-writer's egress NetworkPolicy allow-egress-postgres admits port 5432 only to 10.20.1.0/24, the subnet of the RDS primary when ledger-db was single-AZ. Tonight's maintenance failed ledger-db over to its standby in eu-west-1b (10.20.2.47, the trigger); the DNS name now points outside the allowed block and default-deny drops every new connection. ledger-writer's pool cannot connect, its readiness fails, and transfer-api gets 503 no healthy upstream. The failover, transfer-api's errors and release, the flow-log accepts, the FX feed and the old serialization error are not the cause.",
            [
                f"ledger-writer: {sig} (resolved ledger-db -> 10.20.2.47)",
                "NetworkPolicy allow-egress-postgres: IPBlock 10.20.1.0/24 only",
                "RDS-EVENT-0015 failover complete, now eu-west-1b",
            ],
            "Add the standby's subnet (10.20.2.0/24, and the third AZ's) to allow-egress-postgres; then restart ledger-writer's pools.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "transfer-api",
                pods_of(tr),
                ["GET /v1/transfers/{n} 200 {ms}ms", "GET /v1/limits 200 {ms}ms"],
                8,
            )
        ],
        evs=evs,
        services=[
            svc("transfer-api", 45, {"503": (0.0002, 0.62)}, (0.08, 0.04)),
            svc("ledger-writer", 30, {"503": (0.0, 0.0)}, (0.02, 0.02), rps_after=0.2),
        ],
        books={
            "transfers.md": runbook(
                "Transfers failing",
                "If transfers fail after an RDS failover, the application connection pools hold dead connections: restart transfer-api to drop them, and wait for DNS (up to 5 min).",
            )
        },
    )


# =================================================================================================
# 9. Third-party limit: finance moved the exchange-rate provider from the "Unlimited" to the
#    "Developer" plan (10,000 requests a month) to cut costs, not knowing the price service asks for
#    rates on every cache miss. The month's quota is spent on the 5th; the provider answers 429
#    `not_allowed`/`usage_limit` and checkout refuses to price foreign currencies. The incident says
#    "checkout". netcheck sees the 429 at the provider.
# =================================================================================================


@scenario("fx-provider-plan-downgraded-quota")
def fx_provider_plan_downgraded_quota() -> dict[str, Any]:
    start = -2000
    fx = ["fx-rates-5f8c-2lq", "fx-rates-5f8c-9wd"]
    co = ["checkout-svc-0", "checkout-svc-1", "checkout-svc-2"]
    sig = '"message": "usage_limit_reached"'
    evs = [
        ev(
            "procurement",
            "info",
            "subscription change applied: ratesapi.example plan Unlimited -> Developer (10,000 requests/month), requested by finance (FIN-1187 'SaaS cost review')",
            at=-7100,
        ),
        ev(
            "fx-rates",
            "info",
            "refresh EUR->{n} ok (ratesapi.example, remaining quota 4{ms})",
            **every(-7000, start - 60, 120),
            pods=fx,
        ),
        ev(
            "fx-rates",
            "error",
            'ratesapi.example GET /v1/latest?base=EUR -> 429 {"error": true, "status": 429, '
            + sig
            + ', "description": "Your monthly request allowance has been used up. Upgrade your plan."}',
            **every(start, -1, 15),
            pods=fx,
        ),
        ev(
            "fx-rates",
            "warn",
            "serving stale rate for EUR->{n}: age {n}s exceeds max_age 900s, refusing",
            **every(start + 900, -1, 10),
            pods=fx,
        ),
        ev(
            "checkout-svc",
            "error",
            'Traceback (most recent call last):\n  File "/srv/checkout/pricing.py", line 141, in convert\n    rate = fx_client.rate(base, quote)\n  File "/srv/checkout/clients/fx.py", line 58, in rate\n    raise RateUnavailable(f"{base}->{quote}: {resp.status_code}")\ncheckout.clients.fx.RateUnavailable: EUR->GBP: 503',
            **every(start + 900, -1, 6),
            pods=co,
        ),
        ev(
            "checkout-svc",
            "info",
            "checkout-svc 2026.12.4 deployed (Apple Pay button on basket)",
            at=-4000,
            pods=co,
        ),
        ev(
            "tax-engine",
            "warn",
            "vertex tax call {ms}0 ms (slow)",
            **every(-6500, -30, 200),
        ),
        ev(
            "checkout-svc",
            "error",
            "stripe.error.APIConnectionError: Network error: ReadTimeout",
            **every(-9700, -9400, 60),
            pods=co,
        ),
    ]
    spec = simple(
        441,
        start,
        incident(
            "Checkout errors for international customers",
            "checkout",
            start,
            ["UK and US customers can't pay"],
        ),
        expected(
            "http",
            [
                "ratesapi.example",
                "fx-rates",
                "developer plan",
                "usage_limit_reached",
                "FIN-1187",
            ],
            "usage_limit_reached",
            "Finance moved the exchange-rate provider ratesapi.example from the Unlimited to the Developer plan (10,000 requests a month, FIN-1187). fx-rates refreshes on every cache miss, so the month's allowance was spent on the 5th; the provider answers 429 usage_limit_reached, fx-rates serves stale rates for 15 min and then refuses, and checkout-svc cannot convert EUR to GBP / USD. checkout-svc's tracebacks and release, the tax engine's latency and the old Stripe timeout are not the cause.",
            [
                f"fx-rates: ratesapi.example 429 {sig}",
                "procurement: plan Unlimited -> Developer (10,000 requests/month)",
                "checkout-svc: RateUnavailable EUR->GBP",
            ],
            "Restore the Unlimited plan (or buy a top-up), then cache rates per base currency with a refresh interval instead of per miss.",
        ),
        [
            bg(
                "checkout-svc",
                co,
                [
                    "POST /checkout/confirm 200 {ms}ms",
                    "GET /checkout/summary 200 {ms}ms",
                ],
                8,
            )
        ],
        evs,
        [
            svc(
                "checkout-svc",
                55,
                {"500": (0.0005, 0.18)},
                (0.2, 0.22),
                change_at=start + 900,
            ),
            svc("fx-rates", 20, {"503": (0.0, 0.4)}, (0.01, 0.01)),
        ],
        [
            {
                "name": "fx_provider_requests_remaining",
                "labels": {"provider": "ratesapi.example"},
                "before": 60,
                "after": 0,
                "change_at": start,
            }
        ],
        {
            "checkout-errors.md": runbook(
                "Checkout errors",
                "Checkout 500s are usually Stripe: check the Stripe status page and checkout-svc's APIConnectionError rate; if Stripe is degraded, enable the Adyen fallback flag.",
            )
        },
    )
    spec["targets"] = [
        {
            "name": "ratesapi",
            "url": "https://api.ratesapi.example/v1/latest",
            "fault": {
                "kind": "http_status",
                "status": 429,
                "body": '{"error": true, "status": 429, "message": "usage_limit_reached", "description": "Your monthly request allowance has been used up. Upgrade your plan."}',
                "headers": {"Content-Type": "application/json"},
            },
        },
        {
            "name": "fx-rates-health",
            "url": "http://fx-rates.internal.example/healthz",
            "fault": {"kind": "ok"},
        },
    ]
    spec["expected"]["root_cause_probe"] = "ratesapi"
    spec["expected"]["netcheck"] = {
        "ratesapi": {"failed_layer": "http", "reason": "http_429"},
        "fx-rates-health": {"failed_layer": "none", "reason": None},
    }
    return spec


# =================================================================================================
# 10. Network delay: a cost-saving change replaced the VPC's managed NAT gateway with a NAT instance
#     (a t4g.small, fck-nat) for the private subnets. At the lunchtime peak its network baseline is
#     exceeded; packets queue and are shaped: calls to every external API slow down (card
#     authorisations 300 ms -> 4 s). No error in our services at first. The incident says "app".
#     netcheck sees the delay at the card network.
# =================================================================================================


@scenario("nat-instance-bandwidth-allowance-exceeded")
def nat_instance_bandwidth_allowance_exceeded() -> dict[str, Any]:
    start = -1600
    pay = ["payments-7b9d-2kf", "payments-7b9d-8xq"]
    mob = ["mobile-bff-6c8f-4tn", "mobile-bff-6c8f-h2v", "mobile-bff-6c8f-w9p"]
    sig = "bw_out_allowance_exceeded"
    evs = [
        ev(
            "terraform",
            "info",
            "apply network-prod: module.nat replaced aws_nat_gateway.main with module.fck_nat (instance t4g.small, eni-0f3a9c1d7b2e45a60); route 0.0.0.0/0 -> eni-0f3a9c1d7b2e45a60 (PR infra#904 'NAT gateway costs 3.1k/month')",
            at=-6600,
        ),
        ev(
            "fck-nat",
            "warn",
            f"ethtool -S ens5: {sig}: {'{n}'} (+{'{ms}'}{'{ms}'} in 60s), pps_allowance_exceeded: {'{ms}'}",
            **every(start, -30, 60),
        ),
        ev(
            "fck-nat", "info", "conntrack entries {n} / 65536", **every(-7000, -60, 300)
        ),
        ev(
            "payments",
            "warn",
            'level=warn msg="card auth slow" acquirer=worldline duration={ms}00ms threshold=1500ms',
            **every(start + 30, -1, 8),
            pods=pay,
        ),
        ev(
            "mobile-bff",
            "error",
            "upstream payments timed out after 5000 ms: POST /v2/authorise (order {n})",
            **every(start + 200, -1, 6),
            pods=mob,
        ),
        ev(
            "mobile-bff",
            "warn",
            "push provider slow: {ms}00 ms to fcm.googleapis.com",
            **every(start + 60, -10, 40),
            pods=mob,
        ),
        ev(
            "mobile-bff",
            "info",
            "mobile-bff 5.30.0 deployed (dark mode assets)",
            at=-2900,
            pods=mob,
        ),
        ev(
            "search",
            "error",
            "opensearch query timeout after 1000ms (index products_v12)",
            **every(-7000, -50, 250),
        ),
        ev(
            "payments",
            "error",
            'level=error msg="acquirer 3DS ACS unreachable" acs=acs.bankhub.example err="dial tcp: i/o timeout"',
            **every(-9700, -9450, 50),
            pods=pay,
        ),
    ]
    spec = simple(
        442,
        start,
        incident("App slow, payments timing out", "app", start),
        expected(
            "connect",
            [
                "fck-nat",
                "nat instance",
                "t4g.small",
                "eni-0f3a9c1d7b2e45a60",
                "module.fck_nat",
                "nat gateway",
            ],
            sig,
            "PR infra#904 replaced the VPC's managed NAT gateway with a NAT instance (fck-nat on a t4g.small). At the lunchtime peak its network baseline is exceeded (bw_out_allowance_exceeded and pps_allowance_exceeded climbing): packets to the internet are queued and shaped, so every external call is slower — card authorisations 300 ms to several seconds, FCM pushes — and mobile-bff's 5 s timeout to payments fires. payments and mobile-bff report the slowness but are victims; mobile-bff's release, search's timeouts and the old 3DS ACS timeout are not the cause.",
            [
                f"fck-nat: {sig} climbing every minute",
                "terraform: NAT gateway replaced by fck-nat t4g.small",
                "payments: card auth slow (worldline) from the same minute",
            ],
            "Route 0.0.0.0/0 back to a managed NAT gateway (or a NAT instance with enough network baseline, e.g. c7gn) and alert on the allowance counters.",
        ),
        [
            bg(
                "mobile-bff",
                mob,
                ["GET /v2/home 200 {ms}ms", "GET /v2/orders 200 {ms}ms"],
                8,
            ),
            bg("payments", pay, ["POST /v2/authorise 200 {ms}ms"], 10),
        ],
        evs,
        [
            svc("mobile-bff", 260, {"504": (0.0003, 0.05)}, (0.11, 0.9)),
            svc("payments", 35, {"500": (0.0004, 0.0006)}, (0.31, 3.8)),
        ],
        [
            {
                "name": "node_network_transmit_bytes_rate",
                "labels": {"instance": "fck-nat", "device": "ens5"},
                "before": 38000000,
                "after": 64000000,
                "change_at": start - 120,
            },
            {
                "name": "ethtool_bw_out_allowance_exceeded_rate",
                "labels": {"instance": "fck-nat"},
                "before": 0,
                "after": 410,
                "change_at": start,
            },
        ],
        {
            "payments-slow.md": runbook(
                "Payments timing out",
                "If card authorisations are slow, Worldline is degraded: check status.worldline.example and switch the acquirer routing to the secondary acquirer.",
            )
        },
    )
    spec["targets"] = [
        {
            "name": "worldline-auth",
            "url": "https://api.worldline.example/v1/authorise",
            "fault": {
                "kind": "slow_first_byte",
                "delay_s": 7,
                "status": 200,
                "body": '{"status":"AUTHORISED"}',
            },
            "timeout_s": 5,
        },
        {
            "name": "payments-internal",
            "url": "http://payments.internal.example/healthz",
            "fault": {"kind": "ok"},
        },
    ]
    spec["expected"]["root_cause_probe"] = "worldline-auth"
    spec["expected"]["netcheck"] = {
        "worldline-auth": {"failed_layer": "http", "reason": "timeout"},
        "payments-internal": {"failed_layer": "none", "reason": None},
    }
    return spec


# =================================================================================================
# 11. Config change: an Ansible change set the locale of the Frankfurt batch hosts to de_DE.UTF-8
#     (LC_ALL in /etc/default/locale, for a German-language report tool). The nightly-turned-hourly
#     Java feed exporter formats prices with String.format and now writes "12,99". The marketplace
#     connector rejects the feed rows; offers go offline. The incident says "marketplace listings".
# =================================================================================================


@scenario("locale-decimal-comma-price-feed")
def locale_decimal_comma_price_feed() -> dict[str, Any]:
    start = -2500
    sig = 'NumberFormatException: For input string: "12,99"'
    evs = [
        ev(
            "ansible",
            "info",
            "PLAY RECAP batch-fra-01 : ok=41 changed=2 (role locale: LANG/LC_ALL=de_DE.UTF-8 in /etc/default/locale for report-tool; CHG-3390)",
            at=start - 1500,
        ),
        ev(
            "feed-exporter",
            "info",
            "feed-exporter run {n} on batch-fra-01: wrote 48,2{ms} offers to s3://feeds-prod/marketplace/offers.csv (locale de_DE)",
            **every(start - 100, -60, 900),
        ),
        ev(
            "marketplace-connector",
            "error",
            f'Exception in thread "feed-import-3" java.lang.{sig}\n\tat java.base/jdk.internal.math.FloatingDecimal.readJavaFormatString(FloatingDecimal.java:2054)\n\tat java.base/java.math.BigDecimal.<init>(BigDecimal.java:513)\n\tat com.pinewood.mkt.feed.OfferRow.price(OfferRow.java:77)',
            **every(start + 60, -50, 120),
        ),
        ev(
            "marketplace-connector",
            "warn",
            "feed offers.csv: {n} of 48,2{ms} rows rejected (invalid price), offers set to inactive",
            **every(start + 70, -40, 900),
        ),
        ev(
            "listing-api",
            "warn",
            "marketplace reports {n} listings inactive (reason: INVALID_PRICE)",
            **every(start + 400, -10, 60),
        ),
        ev(
            "listing-api",
            "info",
            "listing-api 3.9.0 deployed (new category mapping)",
            at=start - 600,
        ),
        ev(
            "image-resizer",
            "error",
            "sharp: Input buffer contains unsupported image format (sku {n})",
            **every(-7000, -40, 120),
        ),
        ev(
            "marketplace-connector",
            "error",
            "HTTP 503 from partner API https://seller-api.marketplace.example/v3/offers (maintenance)",
            **every(-9800, -9300, 100),
        ),
    ]
    return simple(
        443,
        start,
        incident(
            "Marketplace listings going offline",
            "marketplace listings",
            start,
            ["products disappearing from the marketplace"],
        ),
        expected(
            "application",
            [
                "feed-exporter",
                "batch-fra-01",
                "de_DE.UTF-8",
                "LC_ALL",
                "CHG-3390",
                "locale",
            ],
            sig,
            "An Ansible change (CHG-3390) set LANG/LC_ALL=de_DE.UTF-8 on the Frankfurt batch host batch-fra-01 for a German report tool. feed-exporter runs there and formats prices with the default locale, so the offers feed now writes decimal commas (12,99). marketplace-connector's BigDecimal parser rejects those rows (NumberFormatException) and the marketplace sets the offers inactive. listing-api's warnings and release, the image resizer's errors and the old partner 503 are not the cause.",
            [
                f"marketplace-connector: {sig}",
                "ansible: locale de_DE.UTF-8 on batch-fra-01 (CHG-3390)",
                "feed-exporter: offers.csv written with locale de_DE",
            ],
            "Run feed-exporter with LC_ALL=C.UTF-8 (or Locale.ROOT in its formatter), re-export the feed and reactivate the offers.",
        ),
        [
            bg(
                "listing-api",
                ["listing-api-1", "listing-api-2"],
                ["GET /listings/{n} 200 {ms}ms", "PUT /listings/{n} 200 {ms}ms"],
                8,
            )
        ],
        evs,
        [
            svc("listing-api", 40, {"500": (0.0005, 0.0006)}, (0.05, 0.05)),
            svc("marketplace-connector", 2, {"500": (0.01, 0.6)}, (0.4, 0.5)),
        ],
        [
            {
                "name": "marketplace_active_offers",
                "labels": {"channel": "marketplace"},
                "before": 48200,
                "after": 19100,
                "change_at": start + 120,
            }
        ],
        {
            "listings.md": runbook(
                "Listings going offline",
                "When listings go inactive, the partner API is usually in maintenance: check seller-api status and pause the connector until it is back, then resubmit.",
            )
        },
    )


# =================================================================================================
# 12. Quiet root cause, louder victims: the RAID controller of the primary MySQL host (db-orders-1)
#     started its quarterly battery learn cycle; the controller switches the write cache to
#     write-through while the BBU is discharging. Every fsync now goes to disk: commit latency 0.4 ms
#     -> 12 ms, the app pools fill, APIs time out. Only one line from the controller's agent says so.
#     The incident says "order history".
# =================================================================================================


@scenario("raid-bbu-learn-cycle-write-through")
def raid_bbu_learn_cycle_write_through() -> dict[str, Any]:
    start = -1800
    api = ["order-api-01", "order-api-02", "order-api-03"]
    sig = "Current Cache Policy changed to WriteThrough"
    evs = [
        ev(
            "storcli",
            "info",
            "Controller 0 (PERC H740P) db-orders-1: BBU Learn Cycle started (scheduled, every 90 days)",
            at=start - 40,
        ),
        ev(
            "storcli",
            "warn",
            f"Controller 0 db-orders-1: VD 0 (RAID10, 8 drives) {sig} (reason: BBU charge below threshold during learn cycle)",
            at=start - 30,
        ),
        ev(
            "mysql",
            "warn",
            "[Warning] [MY-011825] [InnoDB] page_cleaner: 1000ms intended loop took {n}ms. The settings might not be optimal. (flushed={ms} and evicted=0, during the time.)",
            **every(start, -20, 90),
            labels={"host": "db-orders-1"},
        ),
        ev(
            "mysql",
            "info",
            "# Query_time: {ms}.2 Lock_time: 0.0 Rows_sent: 0 Rows_examined: 1 — COMMIT; (slow log)",
            **every(start + 20, -5, 30),
            labels={"host": "db-orders-1"},
        ),
        ev(
            "order-api",
            "error",
            "HikariPool-1 - Connection is not available, request timed out after 3000ms (total=40, active=40, idle=0, waiting={ms})",
            **every(start + 120, -1, 3),
            pods=api,
        ),
        ev(
            "order-history",
            "error",
            "GET /history/{n} upstream order-api 504 after 5s",
            **every(start + 130, -1, 3),
        ),
        ev(
            "order-api",
            "info",
            "order-api 8.12.0 deployed (returns reason codes)",
            at=start - 1300,
            pods=api,
        ),
        ev(
            "mysql",
            "info",
            "[Note] Aborted connection {n} to db: 'orders' user: 'reporting' host: '10.4.2.{ms}' (Got timeout reading communication packets)",
            **every(-7000, -100, 600),
            labels={"host": "db-orders-2"},
        ),
        ev(
            "backup",
            "info",
            "xtrabackup incremental on db-orders-2 (replica) completed in {n}s",
            at=start - 2400,
        ),
        ev(
            "order-api",
            "error",
            "Deadlock found when trying to get lock; try restarting transaction (order {n})",
            **every(-9800, -9500, 60),
            pods=api,
        ),
    ]
    return simple(
        444,
        start,
        incident("Order history not loading", "order history", start),
        expected(
            "application",
            [
                "db-orders-1",
                "raid controller",
                "bbu",
                "learn cycle",
                "writethrough",
                "mysql",
            ],
            sig,
            "The RAID controller of the MySQL primary db-orders-1 began its scheduled 90-day battery (BBU) learn cycle and, with the battery discharging, switched the virtual disk's cache policy to write-through. Every fsync now waits for the disks: commits go from sub-millisecond to 10+ ms, InnoDB's page cleaner falls behind, order-api's 40-connection pool is always busy and order-history times out. order-api and order-history are victims; order-api's release, the replica's backup and aborted reporting connections and the old deadlock are not the cause.",
            [
                f"storcli: {sig} (BBU learn cycle)",
                "mysql slow log: COMMIT taking 10-140 ms",
                "order-api: Hikari pool exhausted from the same minute",
            ],
            "Force write-back during the learn cycle (accepting the risk) or fail over to db-orders-2; move learn cycles to a quiet window and disable auto-learn.",
        ),
        [
            bg(
                "order-api",
                api,
                ["GET /orders/{n} 200 {ms}ms", "POST /orders 201 {ms}ms"],
                8,
            ),
            bg(
                "order-history",
                ["order-history-a", "order-history-b"],
                ["GET /history/{n} 200 {ms}ms"],
                9,
            ),
        ],
        evs,
        [
            svc("order-history", 95, {"504": (0.0003, 0.3)}, (0.08, 2.1)),
            svc("order-api", 140, {"500": (0.0005, 0.22)}, (0.03, 1.4)),
        ],
        [
            {
                "name": "mysql_innodb_data_fsync_seconds_avg",
                "labels": {"instance": "db-orders-1"},
                "before": 0.0004,
                "after": 0.012,
                "change_at": start - 30,
            },
            {
                "name": "node_disk_write_time_seconds_rate",
                "labels": {"instance": "db-orders-1", "device": "sda"},
                "before": 0.03,
                "after": 0.91,
                "change_at": start - 30,
            },
        ],
        {
            "order-api-pool.md": runbook(
                "order-api connection pool exhausted",
                "If order-api's Hikari pool is exhausted, a slow query is holding connections: find it in the slow log, kill it, and raise maximumPoolSize to 60 if the DB has headroom.",
            )
        },
    )


# =================================================================================================
# 13. Shared back end: a new data-migration job (tenant-rekey) logs in to Vault with its AppRole
#     once per record instead of once per run; each login creates a token with a 32-day TTL. Vault's
#     lease count passes 1.4 million, its Raft storage slows down and every service that reads a
#     secret or renews a token waits. The login service, which fetches a signing key per request,
#     fails first. The incident says "login".
# =================================================================================================


@scenario("vault-lease-explosion-per-record-login")
def vault_lease_explosion_per_record_login() -> dict[str, Any]:
    start = -2100
    auth = ["auth-svc-7d9c-2kx", "auth-svc-7d9c-8mq", "auth-svc-7d9c-tw4"]
    evs = [
        ev(
            "tenant-rekey",
            "info",
            "tenant-rekey 0.3.0 started: re-encrypting 2,310,442 customer records with tenant keys (batch 500, workers 16)",
            at=start - 1800,
        ),
        ev(
            "tenant-rekey",
            "info",
            "progress {n}/2310442 records; vault login ok (role tenant-rekey)",
            **every(start - 1790, -30, 60),
        ),
        ev(
            "vault",
            "info",
            '{"@level":"info","@message":"request counts","@module":"core","approle/login: 1'
            + "{n}"
            + '/min","kv/data/*: {n}/min","transit/sign/*: {n}/min"}',
            **every(start - 1700, -60, 300),
        ),
        ev(
            "vault",
            "warn",
            '{"@level":"warn","@message":"expiration: lease count high","@module":"expiration","num_leases":14{n}{ms},"quota":0}',
            **every(start - 600, -60, 180),
        ),
        ev(
            "vault",
            "warn",
            '{"@level":"warn","@message":"raft: failed to heartbeat to","@module":"storage.raft","peer":"vault-2","backoff time":"{ms}0ms","error":"msgpack decode error: i/o deadline reached"}',
            **every(start, -20, 90),
        ),
        ev(
            "auth-svc",
            "error",
            'ERROR vault read transit/keys/session-signer failed: Get "https://vault.internal:8200/v1/transit/keys/session-signer": context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
            **every(start + 30, -1, 3),
            pods=auth,
        ),
        ev(
            "auth-svc",
            "warn",
            "login for user {n} failed: could not sign session token",
            **every(start + 40, -1, 4),
            pods=auth,
        ),
        ev(
            "orders",
            "warn",
            "vault token renew took {n}ms (threshold 500ms)",
            **every(start + 200, -30, 120),
        ),
        ev(
            "auth-svc",
            "info",
            "auth-svc 4.18.0 deployed (passkey enrolment)",
            at=start - 900,
            pods=auth,
        ),
        ev(
            "consent-banner",
            "error",
            "TypeError: Cannot read properties of undefined (reading 'purposes') at consent.js:211",
            **every(-7000, -30, 200),
        ),
        ev(
            "vault",
            "error",
            '{"@level":"error","@message":"core: barrier reload failed","@module":"core","error":"context canceled"}',
            **every(-9900, -9700, 100),
        ),
    ]
    return simple(
        445,
        start,
        incident(
            "Users can't log in",
            "login",
            start,
            ["login spins then says something went wrong"],
        ),
        expected(
            "application",
            ["vault", "tenant-rekey", "approle", "lease count", "tenant-rekey 0.3.0"],
            "expiration: lease count high",
            "tenant-rekey 0.3.0, a data migration, logs in to Vault with its AppRole once per record instead of once per run; each login creates a token lease with a 32-day TTL. Vault's lease count passed 1.4 million, its Raft storage falls behind (heartbeat failures), and every read or renewal from every service slows down. auth-svc reads its signing key on every login, so its calls time out and logins fail; orders' slow renewals are the same fault. auth-svc's errors and release, the consent banner's script error and the old barrier reload error are not the cause.",
            [
                "vault: expiration: lease count high, num_leases 1.4M",
                "vault: approle/login requests per minute jumped with tenant-rekey",
                "auth-svc: vault read transit/keys/session-signer context deadline exceeded",
            ],
            "Stop tenant-rekey, revoke its tokens by prefix (auth/approle/login), fix it to reuse one token, and set a short token TTL / lease-count quota on its role.",
        ),
        [
            bg(
                "auth-svc",
                auth,
                ["POST /login 200 {ms}ms", "GET /session 200 {ms}ms"],
                8,
            ),
            bg("orders", ["orders-1", "orders-2"], ["GET /orders/{n} 200 {ms}ms"], 10),
        ],
        evs,
        [
            svc("auth-svc", 110, {"500": (0.0004, 0.48)}, (0.06, 2.9)),
            svc(
                "vault",
                900,
                {"500": (0.0001, 0.03)},
                (0.004, 0.8),
                rps_after=3800,
                change_at=start - 1800,
            ),
        ],
        [
            {
                "name": "vault_expire_num_leases",
                "labels": {"cluster": "vault-prod"},
                "before": 41000,
                "after": 1420000,
                "change_at": start - 600,
            }
        ],
        {
            "login.md": runbook(
                "Login failures",
                "If logins fail, check auth-svc's dependency on the user DB (pg-users): connection count and slow queries; restart auth-svc pods one by one if the pool is stuck.",
            )
        },
    )


# =================================================================================================
# 14. Performance: the API gateway's compression config was changed to Brotli quality 11 for
#     application/json ("smaller payloads for mobile", MR gw!233). Quality 11 is meant for static
#     assets compressed once; on every dynamic response it costs tens of milliseconds of CPU. The
#     gateway's CPU saturates at the evening peak and every API is slow, though upstreams are not.
#     The incident says "mobile app".
# =================================================================================================


@scenario("brotli-quality-11-dynamic-json")
def brotli_quality_11_dynamic_json() -> dict[str, Any]:
    start = -1900
    gw = ["api-gw-1", "api-gw-2", "api-gw-3"]
    sig = "brotli_comp_level 11"
    evs = [
        ev(
            "deploy",
            "info",
            f"api-gw config r512 applied to api-gw-1..3 (MR gw!233 'smaller JSON for mobile': brotli on; {sig}; brotli_types application/json; nginx -t ok; reload)",
            at=start - 2400,
        ),
        ev(
            "api-gw",
            "warn",
            "[warn] 2211#2211: *{n} an upstream response is buffered to a temporary file /var/cache/nginx/proxy_temp/{n} while reading upstream",
            **every(start, -30, 200),
            pods=gw,
        ),
        ev(
            "api-gw",
            "info",
            '{"remote":"10.2.{ms}.{ms}","req":"GET /v3/feed HTTP/2.0","status":200,"bytes":{n},"rt":1.{ms},"urt":"0.0{ms}","enc":"br"}',
            **every(start, -1, 6),
            pods=gw,
        ),
        ev(
            "node-exporter",
            "warn",
            "api-gw-{ms}: CPU busy 98% (user 91%), load1 {ms}.4 on 8 vCPU",
            **every(start + 30, -20, 60),
        ),
        ev(
            "feed-api",
            "info",
            "feed-api 12.1.0 deployed (stories carousel)",
            at=start - 300,
        ),
        ev(
            "feed-api",
            "warn",
            "GET /v3/feed served in {ms}ms (p99 target 150ms)",
            **every(-3000, -30, 400),
        ),
        ev(
            "cdn",
            "warn",
            "origin api.example-app.com ttfb p95 2.{ms}s (pop LHR)",
            **every(start + 60, -10, 90),
        ),
        ev(
            "recommender",
            "error",
            "model endpoint 429 Too Many Requests (sagemaker throttling)",
            **every(-7000, -40, 150),
        ),
        ev(
            "api-gw",
            "error",
            '[error] 2211#2211: *{n} upstream prematurely closed connection while reading response header from upstream, upstream: "http://10.2.8.31:8080/v3/profile"',
            **every(-9800, -9500, 60),
            pods=gw,
        ),
    ]
    return simple(
        446,
        start,
        incident("Mobile app very slow", "mobile app", start),
        expected(
            "application",
            ["api-gw", "brotli", "brotli_comp_level", "api-gw config r512", "gw!233"],
            sig,
            "api-gw config r512 (MR gw!233) turned Brotli on at quality 11 for application/json. Quality 11 is meant for static files compressed once; on every dynamic response it spends tens of milliseconds of CPU. At the evening peak the gateways' CPUs saturate (98 % user), so request time grows while upstream time stays small (urt 0.0x s): every API looks slow to the app. feed-api's release and its latency warnings, the CDN's slow origin (a victim), the recommender's throttling and the old upstream close are not the cause.",
            [
                f"deploy: api-gw config r512: {sig}, brotli_types application/json",
                "access log: rt 1.x s, urt 0.0x s, enc br",
                "node-exporter: api-gw CPU busy 98 %",
            ],
            "Set brotli_comp_level to 4-5 for dynamic responses (keep 11 only for pre-compressed static files) or roll back to r511.",
        ),
        [
            bg(
                "feed-api",
                ["feed-api-a", "feed-api-b"],
                ["GET /v3/feed 200 {ms}ms", "GET /v3/stories 200 {ms}ms"],
                8,
            )
        ],
        evs,
        [
            svc("api-gw", 1400, {"504": (0.0002, 0.02)}, (0.06, 1.3)),
            svc("feed-api", 600, {"500": (0.0004, 0.0005)}, (0.05, 0.05)),
        ],
        [
            {
                "name": "node_cpu_busy_ratio",
                "labels": {"instance": "api-gw-1"},
                "before": 0.31,
                "after": 0.98,
                "change_at": start,
            }
        ],
        {
            "api-slow.md": runbook(
                "API slow",
                "If the whole API is slow, feed-api is usually the culprit (heavy timeline queries): check its p99 and roll back its latest release if it went out in the last hour.",
            )
        },
    )


# =================================================================================================
# 15. Resource exhaustion: wishlist-service 2.4.0 caches "draft" wishlists in the shared Redis
#     (sessions, carts, rate limits) with SET without EX. The shared instance has maxmemory 6 GB and
#     `maxmemory-policy noeviction` (sessions must not be evicted). Three days of drafts reach the
#     limit; every write to Redis fails with OOM, sessions cannot be saved and users are logged out
#     on every click. The incident says "cart".
# =================================================================================================


@scenario("redis-noeviction-filled-by-keys-without-ttl")
def redis_noeviction_filled_by_keys_without_ttl() -> dict[str, Any]:
    start = -1500
    web = ["storefront-1", "storefront-2", "storefront-3", "storefront-4"]
    sig = "OOM command not allowed when used memory > 'maxmemory'."
    evs = [
        ev(
            "wishlist-service",
            "info",
            "wishlist-service 2.4.0 started (draft wishlists cached in redis-shared, key wl:draft:<visitor>)",
            at=-7100,
        ),
        ev(
            "wishlist-service",
            "info",
            "draft saved wl:draft:{n} ({ms} items)",
            **every(-7000, -5, 20),
        ),
        ev(
            "redis-exporter",
            "info",
            "redis-shared used_memory {n} / maxmemory 6442450944, evicted_keys 0, keys_without_ttl {n}",
            **every(-7000, -60, 600),
        ),
        ev(
            "storefront",
            "error",
            f"Redis::CommandError: {sig}\n/app/vendor/bundle/ruby/3.3.0/gems/redis-client-0.22.2/lib/redis_client/connection_mixin.rb:62:in `call_pipelined'\n/app/app/middleware/session_store.rb:41:in `write_session'",
            **every(start, -1, 3),
            pods=web,
        ),
        ev(
            "storefront",
            "warn",
            "cart {n}: session lost, created new anonymous cart",
            **every(start + 10, -1, 4),
            pods=web,
        ),
        ev(
            "cart-service",
            "error",
            "POST /cart/items 409 conflict: cart {n} belongs to another session",
            **every(start + 30, -1, 5),
        ),
        ev(
            "storefront",
            "info",
            "storefront release 2026.49.2 (checkout button colour test)",
            at=start - 500,
            pods=web,
        ),
        ev(
            "search-service",
            "warn",
            "elasticsearch slow query 1.{ms}s: match_phrase_prefix on title",
            **every(-6000, -30, 300),
        ),
        ev(
            "storefront",
            "error",
            "Redis::TimeoutError: Connection timed out (redis-shared:6379)",
            **every(-9700, -9400, 60),
            pods=web,
        ),
    ]
    return simple(
        447,
        start,
        incident(
            "Cart keeps emptying",
            "cart",
            start,
            ["items disappear from the basket after a click"],
        ),
        expected(
            "application",
            [
                "redis-shared",
                "wishlist-service",
                "wishlist-service 2.4.0",
                "wl:draft",
                "maxmemory",
                "noeviction",
            ],
            sig,
            "wishlist-service 2.4.0 caches draft wishlists in the shared Redis (redis-shared) with SET and no expiry. The instance runs maxmemory 6 GB with maxmemory-policy noeviction, because it also holds sessions; after three days of drafts it is full and every write is refused (OOM command not allowed). storefront cannot save sessions, so users get a new anonymous session and an empty cart on each click; cart-service's conflicts follow. storefront's errors and release, search's slow queries and the old Redis timeout are not the cause.",
            [
                f"storefront: Redis::CommandError: {sig}",
                "redis-shared used_memory at maxmemory 6 GB, keys without TTL growing",
                "wishlist-service 2.4.0: wl:draft keys",
            ],
            "Delete the wl:draft:* keys (SCAN + UNLINK), give them a TTL in wishlist-service (or move them to their own instance), then keep an alert on keys without TTL.",
        ),
        [
            bg(
                "storefront",
                web,
                ["GET /products/{n} 200 {ms}ms", "GET /cart 200 {ms}ms"],
                8,
            )
        ],
        evs,
        [
            svc("storefront", 300, {"500": (0.0004, 0.09)}, (0.07, 0.08)),
            svc("cart-service", 80, {"409": (0.0002, 0.2)}, (0.02, 0.02)),
        ],
        [
            {
                "name": "redis_memory_used_bytes",
                "labels": {"instance": "redis-shared"},
                "before": 6100000000,
                "after": 6442000000,
                "change_at": start - 300,
                "noise": 0.01,
            }
        ],
        {
            "cart-empty.md": runbook(
                "Carts emptying",
                "Empty carts are cart-service losing its database: check cart-db replication and fail over to the replica if the primary is unhealthy.",
            )
        },
    )


# =================================================================================================
# 16. Credential expiry: the corporate IdP (AD FS) has AutoCertificateRollover on; its token-signing
#     certificate rolled over tonight (the old one expires in 5 days). The Shibboleth SP on the
#     sso-gateway hosts, which fronts the internal tools (expenses, wiki, timesheets), loads a copy of
#     the IdP's metadata saved to disk two years ago instead of the metadata URL, so it only trusts
#     the old signing key and rejects every assertion. The incident says "expenses".
# =================================================================================================


@scenario("adfs-signing-cert-rollover-pinned-sp")
def adfs_signing_cert_rollover_pinned_sp() -> dict[str, Any]:
    start = -2400
    gw = ["sso-gateway-1", "sso-gateway-2"]
    ex = ["expenses-web-1", "expenses-web-2"]
    sig = "Message was signed, but signature could not be verified."
    evs = [
        ev(
            "adfs",
            "info",
            "Event 385 (AD FS): AutoCertificateRollover: a new token-signing certificate was generated (thumbprint 7F3A…C2E9, valid 2026-12-05 to 2027-12-05) and promoted to primary; previous certificate (thumbprint 1B88…04D1) expires 2026-12-10",
            at=start - 90,
        ),
        ev(
            "sso-gateway",
            "info",
            "2026-12-05 12:03:20 INFO OpenSAML.MetadataProvider.XML [1]: loaded XML resource (/etc/shibboleth/adfs-metadata.xml)",
            at=-7000,
            pods=gw,
        ),
        ev(
            "sso-gateway",
            "error",
            "ERROR OpenSAML.SecurityPolicyRule.XMLSigning [{ms}] [default]: unable to verify message signature with supplied trust engine",
            **every(start, -1, 8),
            pods=gw,
        ),
        ev(
            "sso-gateway",
            "error",
            f"ERROR Shibboleth.SSO.SAML2 [{'{ms}'}] [default]: error processing incoming assertion: {sig}",
            **every(start + 1, -1, 8),
            pods=gw,
        ),
        ev(
            "expenses-web",
            "warn",
            "WARN [AuthController] no REMOTE_USER header from sso-gateway for session {n}, redirecting to /Shibboleth.sso/Login",
            **every(start + 20, -1, 6),
            pods=ex,
        ),
        ev(
            "helpdesk",
            "info",
            "ticket INC-{n} 'cannot log in to expenses' (category: SSO)",
            **every(start + 300, -60, 240),
        ),
        ev(
            "expenses-web",
            "info",
            "expenses-web 7.3.1 deployed (receipt OCR)",
            at=start - 2600,
            pods=ex,
        ),
        ev(
            "adfs",
            "warn",
            "Event 364 (AD FS): Encountered error during federation passive request: MSIS7012 (relying party trust 'legacy-wiki' disabled)",
            **every(-7000, -40, 500),
        ),
        ev(
            "vpn",
            "warn",
            "GlobalProtect gateway gp-fra: {n} users connected, CPU {ms}%",
            **every(-6000, -30, 400),
        ),
        ev(
            "expenses-web",
            "error",
            "ERROR [ReceiptOcrClient] textract throttled: ProvisionedThroughputExceededException",
            **every(-9800, -9500, 60),
            pods=ex,
        ),
    ]
    return simple(
        448,
        start,
        incident("Can't log in to expenses", "expenses", start),
        expected(
            "application",
            [
                "sso-gateway",
                "shibboleth",
                "adfs-metadata.xml",
                "adfs",
                "token-signing certificate",
                "AutoCertificateRollover",
            ],
            sig,
            "AD FS's AutoCertificateRollover generated a new token-signing certificate tonight and made it primary. The Shibboleth SP on sso-gateway, which fronts expenses and the other internal tools, loads a local copy of the IdP metadata (/etc/shibboleth/adfs-metadata.xml) saved two years ago instead of the metadata URL, so it trusts only the old signing key: every assertion fails signature verification and users loop back to the IdP. expenses-web's redirects are the symptom; the helpdesk tickets, expenses-web's release and OCR throttling, the disabled legacy-wiki trust and the VPN load are not the cause.",
            [
                f"sso-gateway: Shibboleth.SSO.SAML2: {sig}",
                "AD FS Event 385: new token-signing certificate promoted to primary",
                "sso-gateway: metadata loaded from /etc/shibboleth/adfs-metadata.xml",
            ],
            "Refresh the SP's IdP metadata (better: a MetadataProvider with the AD FS metadata URL and reloadInterval, so rollovers are picked up); short term, make the old certificate primary again in AD FS until the 10th.",
        ),
        [
            bg(
                "expenses-web",
                ex,
                ["GET /claims/{n} 200 {ms}ms", "POST /claims/{n}/receipts 201 {ms}ms"],
                9,
            )
        ],
        evs,
        [
            svc("expenses-web", 12, {"302": (0.02, 0.4)}, (0.09, 0.09)),
            svc("sso-gateway", 30, {"401": (0.001, 0.35)}, (0.02, 0.02)),
        ],
        [],
        {
            "sso.md": runbook(
                "SSO login failures",
                "Most SSO failures are clock skew between the SP and AD FS: check NTP on the gateway hosts (NotBefore/NotOnOrAfter errors) and restart chronyd.",
            )
        },
    )


STAGES: dict[str, tuple[str, str]] = {
    "job-count-quota-filled-by-finished-jobs": ("admission", "FailedCreate"),
    "spot-nodepool-single-instance-type-no-capacity": (
        "scheduling",
        "FailedScheduling",
    ),
    "runtime-stage-missing-libpq": ("startup", "CrashLoopBackOff"),
    "jdk8-heap-sized-from-host-on-cgroup-v2": ("runtime", "OOMKilled"),
    "arp-neighbour-table-overflow-big-nodes": (
        "infrastructure",
        "NeighbourTableOverflow",
    ),
    "grpc-service-lost-headless-clusterip": (
        "service_routing",
        "ConnectionLevelImbalance",
    ),
    "netpol-ipblock-misses-rds-standby-subnet": ("runtime", "NetworkPolicyDenied"),
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
