"""Writes the twenty-ninth held-out scenario set, bench/heldout29: `python bench/heldout29/_build.py`.

New incidents, none of them in the bundled set or in bench/heldout … bench/heldout28. Theme:
Kubernetes incidents as a platform / SRE team sees them, spread over the lifecycle stages a pod goes
through: admission (a compute quota that demands limits, a LimitRange default, a deleted
PriorityClass), startup (a migration init container, a readiness probe answered 400, an image tag
missing in one region's registry, a Secret value with a trailing newline), infrastructure (kube-proxy
OOMKilled on the big nodes, a CoreDNS hosts override, an agent-not-ready taint that nobody removes),
service routing (internalTrafficPolicy Local, an Ingress canary left at weight 100, a NetworkPolicy
whose `from` selector misses a relabelled caller) and performance (CPU throttling of a JVM sized to
the node, an HPA whose maximum was cut before a sale, a noisy neighbour on the node's disk). As in
the earlier sets, everything that matters is written by hand below; the bulk (background request
lines, 2 h of metric points thinned to one every 30 s, the kubectl tables of a namespace) comes from
bench/heldout28/_build.py's helpers and through them the earlier builders', each scenario with a
fixed seed (657-672). The author read neither the planner (`reasoning/`) nor the engine
(`diagnosis/engine/`, `docs/engine.md`), nor their tests, nor any score file. Stdlib only.
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


h28 = _load("heldout28_build", HERE.parent / "heldout28" / "_build.py")
h24 = h28.h24
base = h28.base

table = base.table
events = base.events
runbook = base.runbook
ev = h28.ev
bg = h28.bg
expected = h28.expected
svc = h28.svc
every = h28.every
gauge = h28.gauge
tidy_clock_times = h28.tidy_clock_times
alert = h28.alert
ticket = h28.ticket
app = h28.app
namespace = h28.namespace
kube_case = h28.kube_case
pods_of = h28.pods_of
hpa_table = h28.hpa_table
describe_pod = h24.describe_pod
podlog = h24.podlog
running = h24.running
crashloop = h24.crashloop
NODES_FRA = h28.NODES_FRA
NODES_IAD = h28.NODES_IAD
NODES_DUB = h28.NODES_DUB
NODES_PDX = h24.NODES_PDX

SCENARIOS: dict[str, Any] = {}
STAGES: dict[str, tuple[str, str]] = {}


def scenario(slug: str, stage: tuple[str, str]):
    def register(fn):
        SCENARIOS[slug] = fn
        STAGES[slug] = stage
        return fn

    return register


def herrings(
    start: int,
    *,
    victim: tuple[str, str, int],
    release: tuple[str, str, int],
    stale: tuple[str, str],
    noisy: tuple[str, str],
) -> list[dict[str, Any]]:
    """The red herrings every case carries: a loud victim logging at ERROR from the incident on
    (service, message, every_s), an innocent release (service, message, offset), errors about three
    hours old that stopped by themselves, and an unrelated service warning all along."""
    return [
        ev(victim[0], "error", victim[1], **every(start + 40, -5, victim[2])),
        ev(release[0], "info", release[1], at=release[2]),
        ev(stale[0], "error", stale[1], **every(-10750, -10380, 50)),
        ev(noisy[0], "warn", noisy[1], **every(-6900, -45, 400)),
    ]


def kube_system_pods(rows: list[tuple[str, ...]]) -> str:
    """`kubectl get pods -n kube-system -o wide`: (name, ready, status, restarts, age, ip, node)."""
    return table(
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
            ],
            *[[*r, "<none>", "<none>"] for r in rows],
        ]
    )


# =================================================================================================
# 1. Admission, a quota that demands limits: PR platform#912 ("namespace budgets", PLAT-311) added a
#    ResourceQuota `compute` with limits.cpu / limits.memory to every tenant namespace. The billing
#    Deployments set limits in their chart; the old CronJob `invoice-mailer` (a separate manifest)
#    sets none. Once a quota covers limits, every new pod must name them: this morning's Job cannot
#    create its pod (FailedCreate, "must specify limits.cpu"), no invoice mails go out. Nothing
#    crashes; the Job sits at 0/1 and its events say it. The incident is a customer-success line.
# =================================================================================================


@scenario(
    "compute-quota-rejects-cronjob-pods-without-limits", ("admission", "FailedCreate")
)
def compute_quota_rejects_cronjob_pods_without_limits() -> dict[str, Any]:
    start = -2700
    ns = "billing"
    api = app(
        "billing-api",
        image="ghcr.io/ledgerly/billing-api:3.14.0",
        port=8080,
        rs="7c5d9f6b8a",
        cluster_ip="172.20.41.12",
        pods=[
            ("b7n2q", "1/1", "Running", "0", "78m", 0),
            ("k4x9d", "1/1", "Running", "0", "78m", 1),
        ],
    )
    pdf = app(
        "pdf-renderer",
        image="ghcr.io/ledgerly/pdf-renderer:1.9.2",
        port=3000,
        rs="5b8f7c6d94",
        cluster_ip="172.20.41.30",
        pods=[("m2c8w", "1/1", "Running", "0", "6d", 2)],
    )
    k8s = namespace(ns, NODES_FRA, [api, pdf], seed=657)
    sig = "must specify limits.cpu for: mailer"
    job = "invoice-mailer-29422440"
    k8s[f"kubectl get resourcequotas -n {ns}"] = table(
        [
            ["NAME", "AGE", "REQUEST", "LIMIT"],
            [
                "compute",
                "19h",
                "requests.cpu: 1100m/8, requests.memory: 2304Mi/16Gi",
                "limits.cpu: 3/16, limits.memory: 4608Mi/32Gi",
            ],
        ]
    )
    k8s[f"kubectl describe resourcequotas compute -n {ns}"] = (
        "Name:            compute\n"
        f"Namespace:       {ns}\n"
        "Resource         Used    Hard\n"
        "--------         ----    ----\n"
        "limits.cpu       3       16\n"
        "limits.memory    4608Mi  32Gi\n"
        "requests.cpu     1100m   8\n"
        "requests.memory  2304Mi  16Gi\n"
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
            ["invoice-mailer", "0 6 * * *", "Europe/Berlin", "False", "1", "46m", "2y"],
            [
                "dunning-reminders",
                "30 7 * * *",
                "Europe/Berlin",
                "False",
                "0",
                "20h",
                "2y",
            ],
        ]
    )
    k8s[f"kubectl get jobs -n {ns}"] = table(
        [
            ["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"],
            [job, "Running", "0/1", "46m", "46m"],
            ["invoice-mailer-29421000", "Complete", "1/1", "3m12s", "24h"],
            ["dunning-reminders-29421090", "Complete", "1/1", "41s", "20h"],
        ]
    )
    failed = (
        f'Error creating: pods "{job}-" is forbidden: failed quota: compute: '
        f"{sig}; limits.memory for: mailer"
    )
    k8s[f"kubectl describe jobs {job} -n {ns}"] = (
        f"Name:             {job}\n"
        f"Namespace:        {ns}\n"
        "Controlled By:    CronJob/invoice-mailer\n"
        "Parallelism:      1\n"
        "Completions:      1\n"
        "Backoff Limit:    2\n"
        "Pods Statuses:    0 Active (0 Ready) / 0 Succeeded / 0 Failed\n"
        "Pod Template:\n"
        "  Containers:\n"
        "   mailer:\n"
        "    Image:      ghcr.io/ledgerly/invoice-mailer:2.3.0\n"
        "    Command:    python -m mailer.run --period previous-month\n"
        "    Environment Variables from:\n"
        "      billing-mailer  Secret  Optional: false\n"
        "Events:\n"
        "  Type     Reason        Age                 From            Message\n"
        "  ----     ------        ----                ----            -------\n"
        f"  Warning  FailedCreate  2m (x19 over 46m)  job-controller  {failed}\n"
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            ("2m", "Warning", "FailedCreate", f"Job/{job}", failed),
            (
                "46m",
                "Normal",
                "SuccessfulCreate",
                "CronJob/invoice-mailer",
                f"Created job {job}",
            ),
            (
                "78m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/billing-api",
                "Scaled up replica set billing-api-7c5d9f6b8a to 2",
            ),
        ]
    )
    evs = [
        ev(
            "argocd",
            "info",
            "app platform-tenants: synced to 9e2d4c1 (PR platform#912 'PLAT-311 namespace budgets'): resourcequota/compute created in billing, catalog, search, growth",
            at=-68400,
        ),
        ev(
            "kube-controller-manager",
            "warn",
            f"job-controller: {failed}",
            **every(-2760, -60, 150),
        ),
        ev(
            "billing-api",
            "info",
            '{"level":"info","msg":"invoices finalized for period","period":"2026-11","count":18412,"mail":"queued for invoice-mailer"}',
            at=-3300,
            pods=pods_of(api),
        ),
        *herrings(
            start,
            victim=(
                "customer-portal",
                "POST /api/invoices/inv_{n}/resend -> 500 invoice_mail_not_sent (no delivery record)",
                13,
            ),
            release=(
                "billing-api",
                '{"level":"info","msg":"billing-api 3.14.0 started (new PDF footer with VAT id)"}',
                -4700,
            ),
            stale=(
                "invoice-mailer",
                "ses: Throttling: Maximum sending rate exceeded (retrying batch {n})",
            ),
            noisy=(
                "pdf-renderer",
                "[pdf] font cache miss for NotoSans-{n}, rendering with fallback",
            ),
        ),
    ]
    return kube_case(
        seed=657,
        start=start,
        inc=ticket(
            "Customers say they didn't get this month's invoice email",
            "invoices",
            start,
        ),
        exp=expected(
            "platform",
            [
                "cronjob/invoice-mailer",
                "invoice-mailer",
                f"job/{job}",
                "resourcequota/compute",
                "compute",
                "PR platform#912",
                "PLAT-311",
                "limits.cpu",
            ],
            sig,
            "PR platform#912 (PLAT-311) added the ResourceQuota compute, which covers limits.cpu and limits.memory, to the billing namespace. With such a quota every new pod must declare those limits; the CronJob invoice-mailer's pod template declares none, so this morning's Job cannot create its pod (FailedCreate, forbidden: failed quota) and no invoice mail has gone out. The customer-portal resend errors are the victim; the billing-api release, the old SES throttling and the PDF font warnings are not the cause.",
            [
                f"kubectl describe jobs {job}: FailedCreate x19, {sig}",
                "kubectl get jobs: invoice-mailer 0/1 for 46m",
                "argocd: resourcequota/compute created by PR platform#912 19h ago",
            ],
            "Add requests and limits to the invoice-mailer CronJob (or a LimitRange with defaults in billing), then re-run the Job; check every other pod template in the tenant namespaces before quotas roll further.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "billing-api",
                pods_of(api),
                ['{"level":"info","msg":"GET /v2/invoices 200","ms":{ms}}'],
                8,
            )
        ],
        evs=evs,
        services=[svc("customer-portal", 30, {"500": (0.001, 0.03)}, (0.14, 0.15))],
        gauges=[
            gauge(
                "kube_job_status_active",
                {"job_name": job, "namespace": ns},
                0,
                0,
                start,
            ),
            gauge(
                "invoice_mails_sent_total",
                {"job": "invoice-mailer"},
                412903,
                412903,
                start,
            ),
        ],
        books={
            "invoice-email-missing.md": runbook(
                "Customer did not receive the invoice email",
                "Usually the address bounced or is on the SES suppression list. Look the address up in SES, remove it from the suppression list, and resend from the customer portal.",
            )
        },
    )


# =================================================================================================
# 2. Admission, a default that becomes a limit: PR infra#1430 ("consolidate small namespaces") moved
#    geo-api from its own namespace into `shared-services`, which has a LimitRange `defaults`
#    (default memory limit 256Mi). geo-api's chart sets no resources; the LimitRanger admission
#    plugin gives its container a 256Mi limit and the JVM (heap from -XX:MaxRAMPercentage of the
#    node before, of 256Mi now, plus a 300 MB postcode index) is OOMKilled within minutes of taking
#    traffic. The pod's annotation says who set the limit. The incident is checkout's alert.
# =================================================================================================


@scenario("limitrange-default-limit-oomkills-moved-service", ("admission", "OOMKilled"))
def limitrange_default_limit_oomkills_moved_service() -> dict[str, Any]:
    start = -2100
    ns = "shared-services"
    geo = app(
        "geo-api",
        image="ghcr.io/parcelo/geo-api:5.2.1",
        port=8080,
        rs="68d4b7c9f5",
        cluster_ip="172.20.77.18",
        age="41m",
        pods=[
            ("r8k2m", "0/1", "CrashLoopBackOff", "7", "41m", 0),
            ("w3p9s", "1/1", "Running", "8", "41m", 1),
            ("z6d4t", "0/1", "CrashLoopBackOff", "7", "41m", 2),
        ],
    )
    notif = app(
        "notify-gw",
        image="ghcr.io/parcelo/notify-gw:2.0.7",
        port=9000,
        rs="7f9c6b5d8e",
        cluster_ip="172.20.77.40",
        pods=[("h5j7l", "1/1", "Running", "0", "9d", 1)],
    )
    k8s = namespace(ns, NODES_DUB, [geo, notif], seed=658, extra_namespaces=("geo",))
    sig = "LimitRanger plugin set: memory limit for container geo-api"
    pod = "geo-api-68d4b7c9f5-r8k2m"
    k8s[f"kubectl get limitranges -n {ns}"] = table(
        [["NAME", "CREATED AT"], ["defaults", "2025-03-11T09:12:40Z"]]
    )
    k8s[f"kubectl describe limitranges defaults -n {ns}"] = (
        "Name:       defaults\n"
        f"Namespace:  {ns}\n"
        "Type        Resource  Min  Max  Default Request  Default Limit  Max Limit/Request Ratio\n"
        "----        --------  ---  ---  ---------------  -------------  -----------------------\n"
        "Container   cpu       -    -    100m             500m           -\n"
        "Container   memory    -    -    128Mi            256Mi          -\n"
    )
    k8s[f"kubectl describe pods {pod} -n {ns}"] = (
        f"Name:             {pod}\n"
        f"Namespace:        {ns}\n"
        f"Node:             {NODES_DUB[0][0]}/{NODES_DUB[0][2]}\n"
        "Labels:           app=geo-api\n"
        "                  pod-template-hash=68d4b7c9f5\n"
        f"Annotations:      kubernetes.io/limit-ranger: {sig}; memory request for container geo-api; cpu request for container geo-api; cpu limit for container geo-api\n"
        "Status:           Running\n"
        "Controlled By:    ReplicaSet/geo-api-68d4b7c9f5\n"
        "Containers:\n"
        "  geo-api:\n"
        "    Image:          ghcr.io/parcelo/geo-api:5.2.1\n"
        "    Port:           8080/TCP\n"
        "    State:          Waiting\n"
        "      Reason:       CrashLoopBackOff\n"
        "    Last State:     Terminated\n"
        "      Reason:       OOMKilled\n"
        "      Exit Code:    137\n"
        "    Ready:          False\n"
        "    Restart Count:  7\n"
        "    Limits:\n"
        "      cpu:     500m\n"
        "      memory:  256Mi\n"
        "    Requests:\n"
        "      cpu:      100m\n"
        "      memory:   128Mi\n"
        "    Environment:\n"
        "      JAVA_TOOL_OPTIONS:  -XX:MaxRAMPercentage=75\n"
        "Events:\n"
        "  Type     Reason   Age                 From     Message\n"
        "  ----     ------   ----                ----     -------\n"
        f"  Warning  BackOff  90s (x61 over 38m)  kubelet  Back-off restarting failed container geo-api in pod {pod}_{ns}(4c1e…)\n"
        '  Normal   Pulled   4m (x8 over 41m)    kubelet  Container image "ghcr.io/parcelo/geo-api:5.2.1" already present on machine\n'
    )
    k8s[f"kubectl logs {pod} -n {ns} --previous"] = podlog(
        [
            (-300, "Picked up JAVA_TOOL_OPTIONS: -XX:MaxRAMPercentage=75"),
            (-298, "INFO  GeoApplication - Starting geo-api 5.2.1 (max heap 192m)"),
            (
                -291,
                "INFO  PostcodeIndex - loading postcode index (312 MB) from /data/postcodes.idx",
            ),
            (-262, "INFO  PostcodeIndex - loaded 1.8M postcodes"),
            (-259, "INFO  GeoApplication - Started in 39.2 s, serving on :8080"),
        ]
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "90s",
                "Warning",
                "BackOff",
                f"Pod/{pod}",
                f"Back-off restarting failed container geo-api in pod {pod}_{ns}(4c1e…)",
            ),
            (
                "4m",
                "Normal",
                "Killing",
                "Pod/geo-api-68d4b7c9f5-w3p9s",
                "Container geo-api exceeded its memory limit (OOMKilled), restarting",
            ),
            (
                "41m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/geo-api",
                "Scaled up replica set geo-api-68d4b7c9f5 to 3",
            ),
        ]
    )
    evs = [
        ev(
            "argocd",
            "info",
            "app geo: synced to 1b7e3a9 (PR infra#1430 'consolidate small namespaces'): deployment.apps/geo-api created in shared-services, namespace/geo pruned",
            at=-2480,
        ),
        ev(
            "kubelet",
            "warn",
            f"{NODES_DUB[0][0]}: OOM killed process (java) total-vm:3127000kB, anon-rss:261000kB in container geo-api of pod {pod} (memory limit 256Mi)",
            **every(start, -30, 240),
        ),
        ev(
            "kubernetes-audit",
            "info",
            f"CREATE pods {ns}/geo-api-68d4b7c9f5-* annotations kubernetes.io/limit-ranger={sig}",
            at=-2460,
        ),
        *herrings(
            start,
            victim=(
                "checkout-web",
                "[checkout] address lookup failed: GET http://geo-api.shared-services/v1/postcodes/{n} -> 503 (attempt 2/2)",
                6,
            ),
            release=(
                "checkout-web",
                "[checkout] checkout-web 2026.12.8-1 deployed (new address form layout)",
                -5200,
            ),
            stale=(
                "geo-api",
                "ERROR PostcodeIndex - refresh failed: S3 GetObject timeout (postcodes.idx)",
            ),
            noisy=("notify-gw", "WARN sms provider latency 1{ms}ms above 1000ms"),
        ),
    ]
    return kube_case(
        seed=658,
        start=start,
        inc=alert(
            "[FIRING] CheckoutAddressLookupErrors > 5%",
            "checkout",
            start,
            {
                "alertname": "CheckoutAddressLookupErrors",
                "service": "checkout-web",
                "severity": "page",
            },
        ),
        exp=expected(
            "platform",
            [
                "limitrange/defaults",
                "defaults",
                "geo-api",
                "deployment/geo-api",
                "PR infra#1430",
                "shared-services",
                "LimitRange",
            ],
            sig,
            "PR infra#1430 moved geo-api into the shared-services namespace, whose LimitRange defaults gives every container without resources a 256Mi memory limit. geo-api's chart sets none; the LimitRanger plugin set the limit at admission and the JVM with its 312 MB postcode index is OOMKilled minutes after each start, so the pods crash-loop and checkout's address lookups get 503. The checkout-web release, the old index refresh errors and the SMS latency warnings are not the cause.",
            [
                f"pod annotation kubernetes.io/limit-ranger: {sig}",
                "Last State Terminated OOMKilled, exit 137, limits memory 256Mi",
                "argocd: geo-api created in shared-services by PR infra#1430 40 min ago",
            ],
            "Give geo-api explicit memory requests and limits (about 1Gi) in its chart, or move it back to its own namespace; audit other moved charts for missing resources.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "geo-api",
                ["geo-api-68d4b7c9f5-w3p9s"],
                ["INFO  access - GET /v1/postcodes/{n} 200 {ms}ms"],
                9,
            )
        ],
        evs=evs,
        services=[
            svc("geo-api", 60, {"503": (0.0, 0.55)}, (0.02, 0.4)),
            svc("checkout-web", 45, {"500": (0.001, 0.09)}, (0.3, 0.9)),
        ],
        gauges=[
            gauge(
                "kube_pod_container_status_restarts_total",
                {"container": "geo-api", "namespace": ns},
                0,
                22,
                start,
            ),
            gauge(
                "kube_pod_container_resource_limits_memory_bytes",
                {"container": "geo-api"},
                2147483648,
                268435456,
                -2480,
            ),
        ],
        books={
            "address-lookup-errors.md": runbook(
                "Address lookup errors in checkout",
                "The postcode data is refreshed nightly from S3. If lookups fail, the index is probably stale or corrupt: re-run the geo-index-refresh job and restart geo-api.",
            )
        },
    )


# =================================================================================================
# 3. Admission, a deleted PriorityClass: PR cluster-addons#388 ("remove unused PriorityClasses")
#    deleted `batch-high`, judged unused by a script that only looked at running pods' spec in
#    namespaces it knew. search-indexer references it. The running pods kept working until last
#    night's AMI drift replaced the nodes; since then the ReplicaSet cannot create any pod ("no
#    PriorityClass with name batch-high was found"), the Deployment is 0/3, the update queue grows and
#    price changes stop reaching search. The incident is a marketplace ticket.
# =================================================================================================


@scenario(
    "priorityclass-deleted-in-cleanup-replicaset-failedcreate",
    ("admission", "FailedCreate"),
)
def priorityclass_deleted_in_cleanup_replicaset_failedcreate() -> dict[str, Any]:
    start = -3000
    ns = "search"
    idx = app(
        "search-indexer",
        image="registry.gitlab.com/marktly/search-indexer:4.11.0",
        port=8081,
        rs="6d9f8c7b5a",
        cluster_ip="172.20.90.21",
        age="1y",
        desired=3,
        pods=[],
    )
    q = app(
        "search-query",
        image="registry.gitlab.com/marktly/search-query:4.11.0",
        port=8080,
        rs="59c7d8b6f4",
        cluster_ip="172.20.90.10",
        pods=[
            ("a1s2d", "1/1", "Running", "0", "7h", 0),
            ("f3g4h", "1/1", "Running", "0", "7h", 1),
            ("j5k6l", "1/1", "Running", "0", "7h", 2),
        ],
    )
    k8s = namespace(ns, NODES_IAD, [idx, q], seed=659)
    sig = "no PriorityClass with name batch-high was found"
    failed = f'Error creating: pods "search-indexer-6d9f8c7b5a-" is forbidden: {sig}'
    k8s[f"kubectl describe replicasets search-indexer-6d9f8c7b5a -n {ns}"] = (
        "Name:           search-indexer-6d9f8c7b5a\n"
        f"Namespace:      {ns}\n"
        "Selector:       app=search-indexer,pod-template-hash=6d9f8c7b5a\n"
        "Controlled By:  Deployment/search-indexer\n"
        "Replicas:       0 current / 3 desired\n"
        "Pods Status:    0 Running / 0 Waiting / 0 Succeeded / 0 Failed\n"
        "Pod Template:\n"
        "  Labels:  app=search-indexer\n"
        "  Containers:\n"
        "   search-indexer:\n"
        "    Image:  registry.gitlab.com/marktly/search-indexer:4.11.0\n"
        "  Priority Class Name:  batch-high\n"
        "Conditions:\n"
        "  Type             Status  Reason\n"
        "  ----             ------  ------\n"
        "  ReplicaFailure   True    FailedCreate\n"
        "Events:\n"
        "  Type     Reason        Age                   From                   Message\n"
        "  ----     ------        ----                  ----                   -------\n"
        f"  Warning  FailedCreate  3m (x31 over 7h)      replicaset-controller  {failed}\n"
    )
    k8s[f"kubectl describe deployments search-indexer -n {ns}"] = (
        "Name:                   search-indexer\n"
        f"Namespace:              {ns}\n"
        "Replicas:               3 desired | 0 updated | 0 total | 0 available | 3 unavailable\n"
        "StrategyType:           RollingUpdate\n"
        "Conditions:\n"
        "  Type             Status  Reason\n"
        "  ----             ------  ------\n"
        "  Available        False   MinimumReplicasUnavailable\n"
        "  ReplicaFailure   True    FailedCreate\n"
        "  Progressing      True    NewReplicaSetAvailable\n"
        "NewReplicaSet:     search-indexer-6d9f8c7b5a (0/3 replicas created)\n"
        "Events:          <none>\n"
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "3m",
                "Warning",
                "FailedCreate",
                "ReplicaSet/search-indexer-6d9f8c7b5a",
                failed,
            ),
            (
                "7h",
                "Normal",
                "Killing",
                "Pod/search-indexer-6d9f8c7b5a-p0o9i",
                "Stopping container search-indexer (node drifted: ami-0f3c…)",
            ),
            (
                "7h",
                "Normal",
                "Scheduled",
                "Pod/search-query-59c7d8b6f4-a1s2d",
                f"Successfully assigned search/search-query-59c7d8b6f4-a1s2d to {NODES_IAD[0][0]}",
            ),
        ]
    )
    k8s["kubectl get pods -n kube-system -o wide"] = kube_system_pods(
        [
            (
                "karpenter-7d9c5b8f6c-2xk4p",
                "1/1",
                "Running",
                "0",
                "14d",
                "10.61.1.77",
                NODES_IAD[0][0],
            ),
            (
                "coredns-5d78c9869d-8q2wz",
                "1/1",
                "Running",
                "0",
                "7h",
                "10.61.2.19",
                NODES_IAD[1][0],
            ),
        ]
    )
    evs = [
        ev(
            "argocd",
            "info",
            "app cluster-addons: synced to 77c1d0e (PR cluster-addons#388 'remove unused PriorityClasses'): priorityclass.scheduling.k8s.io/batch-high pruned, priorityclass.scheduling.k8s.io/batch-low pruned",
            at=-172800,
        ),
        ev(
            "karpenter",
            "info",
            'disrupting nodeclaim via replace, reason="drifted" (ami-0f3c9e…), terminating 3 pods',
            **every(-25800, -25200, 200),
        ),
        ev(
            "kube-controller-manager",
            "warn",
            f"replicaset-controller: {failed}",
            **every(-25000, -60, 600),
        ),
        ev(
            "search-query",
            "warn",
            '{"level":"warn","msg":"index freshness","last_update_age_s":2{n}00,"index":"listings"}',
            **every(start, -30, 120),
            pods=pods_of(q),
        ),
        ev(
            "sqs",
            "info",
            "queue listing-updates ApproximateNumberOfMessagesVisible=4{n}12 ApproximateAgeOfOldestMessage=2{n}400",
            **every(-20000, -60, 600),
        ),
        *herrings(
            start,
            victim=(
                "seller-portal",
                "PriceSyncMismatch: listing l_{n} price on site differs from seller price (stale search doc)",
                9,
            ),
            release=(
                "search-query",
                '{"level":"info","msg":"search-query 4.11.0 started (synonyms for sizes)"}',
                -25300,
            ),
            stale=(
                "search-indexer",
                '{"level":"error","msg":"opensearch bulk rejected: es_rejected_execution_exception","queue":"write"}',
            ),
            noisy=(
                "opensearch",
                "[WARN ][o.o.i.b.HierarchyCircuitBreakerService] [search-2] parent breaker at 8{n}% of limit",
            ),
        ),
    ]
    return kube_case(
        seed=659,
        start=start,
        inc=ticket(
            "Sellers say their price changes don't show on the site",
            "marketplace search",
            start,
        ),
        exp=expected(
            "platform",
            [
                "priorityclass/batch-high",
                "batch-high",
                "deployment/search-indexer",
                "search-indexer",
                "replicaset/search-indexer-6d9f8c7b5a",
                "PR cluster-addons#388",
                "priorityClassName",
            ],
            sig,
            "PR cluster-addons#388 deleted the PriorityClass batch-high as unused, but search-indexer's pod template still names it. The running pods survived until the nodes were replaced for AMI drift 7 hours ago; since then the Priority admission plugin rejects every new pod (no PriorityClass with name batch-high was found), the Deployment has 0 of 3 pods and listing updates pile up in the queue, so search shows old prices. The seller-portal mismatch errors are the victim; the search-query release, the old bulk rejections and the breaker warnings are not the cause.",
            [
                f"replicaset search-indexer-6d9f8c7b5a: FailedCreate x31, {sig}",
                "deployment search-indexer 0/3, ReplicaFailure True",
                "argocd: batch-high pruned by PR cluster-addons#388 two days ago",
            ],
            "Recreate the PriorityClass batch-high (or change search-indexer to an existing class) and let the ReplicaSet create its pods; make the cleanup script check pod templates, not only running pods.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "search-query",
                pods_of(q),
                ['{"level":"info","msg":"GET /v1/search 200","ms":{ms}}'],
                8,
            )
        ],
        evs=evs,
        services=[svc("search-query", 220, {"500": (0.0005, 0.0007)}, (0.09, 0.1))],
        gauges=[
            gauge(
                "kube_deployment_status_replicas_available",
                {"deployment": "search-indexer", "namespace": ns},
                3,
                0,
                -25200,
            ),
            gauge(
                "sqs_approximate_number_of_messages_visible",
                {"queue": "listing-updates"},
                120,
                48000,
                -25200,
            ),
        ],
        books={
            "search-prices-stale.md": runbook(
                "Prices in search look stale",
                "Stale prices are usually the CDN caching search pages. Purge /search/* in the CDN and check that the Cache-Control on search pages is max-age=60.",
            )
        },
    )


# =================================================================================================
# 4. Startup, a migration init container: orders-api runs Flyway in an init container `migrate` and
#    uses the Recreate strategy (so old and new code never share the schema). PR #2210 "fix typo in
#    V87 comment" edited a migration that production applied last month; Flyway's validate refuses
#    the changed checksum, the init container exits 1 on every pod, the old pods are already gone,
#    and orders-api is down. The pods say Init:CrashLoopBackOff; the reason is only in the init
#    container's log. The incident is the 5xx alert.
# =================================================================================================


@scenario("flyway-init-checksum-edited-migration", ("startup", "CrashLoopBackOff"))
def flyway_init_checksum_edited_migration() -> dict[str, Any]:
    start = -1500
    ns = "orders"
    oa = app(
        "orders-api",
        image="ghcr.io/kitchnr/orders-api:9.4.0",
        port=8080,
        rs="58f6c9d7b4",
        cluster_ip="172.20.12.40",
        pods=[
            ("c4v6b", "0/1", "Init:CrashLoopBackOff", "6", "27m", 0),
            ("n8m2x", "0/1", "Init:CrashLoopBackOff", "6", "27m", 1),
            ("q1w5e", "0/1", "Init:CrashLoopBackOff", "6", "27m", 2),
        ],
    )
    pay = app(
        "payments-api",
        image="ghcr.io/kitchnr/payments-api:8.1.0",
        port=8080,
        rs="6b7d8c9f5e",
        cluster_ip="172.20.12.55",
        pods=[
            ("t7y8u", "1/1", "Running", "0", "3h", 1),
            ("g2h3j", "1/1", "Running", "0", "3h", 2),
        ],
    )
    k8s = namespace(ns, NODES_FRA, [oa, pay], seed=660)
    sig = "Migration checksum mismatch for migration version 87"
    pod = "orders-api-58f6c9d7b4-c4v6b"
    k8s[f"kubectl describe pods {pod} -n {ns}"] = (
        f"Name:             {pod}\n"
        f"Namespace:        {ns}\n"
        f"Node:             {NODES_FRA[0][0]}/{NODES_FRA[0][2]}\n"
        "Labels:           app=orders-api\n"
        "                  pod-template-hash=58f6c9d7b4\n"
        "Status:           Pending\n"
        "Controlled By:    ReplicaSet/orders-api-58f6c9d7b4\n"
        "Init Containers:\n"
        "  migrate:\n"
        "    Image:          ghcr.io/kitchnr/orders-api:9.4.0\n"
        "    Command:        flyway -configFiles=/flyway/conf/flyway.conf migrate\n"
        "    State:          Waiting\n"
        "      Reason:       CrashLoopBackOff\n"
        "    Last State:     Terminated\n"
        "      Reason:       Error\n"
        "      Exit Code:    1\n"
        "    Ready:          False\n"
        "    Restart Count:  6\n"
        "Containers:\n"
        "  orders-api:\n"
        "    Image:          ghcr.io/kitchnr/orders-api:9.4.0\n"
        "    Port:           8080/TCP\n"
        "    State:          Waiting\n"
        "      Reason:       PodInitializing\n"
        "    Ready:          False\n"
        "    Restart Count:  0\n"
        "Conditions:\n"
        "  Type              Status\n"
        "  Initialized       False\n"
        "  Ready             False\n"
        "  ContainersReady   False\n"
        "  PodScheduled      True\n"
        "Events:\n"
        "  Type     Reason   Age                 From     Message\n"
        "  ----     ------   ----                ----     -------\n"
        f"  Warning  BackOff  2m (x97 over 26m)   kubelet  Back-off restarting failed container migrate in pod {pod}_{ns}(8d2f…)\n"
    )
    k8s[f"kubectl logs {pod} -n {ns} -c migrate --previous"] = podlog(
        [
            (-130, "Flyway Community Edition 10.15.0 by Redgate"),
            (
                -129,
                "Database: jdbc:postgresql://orders-db.kitchnr.internal:5432/orders (PostgreSQL 15.6)",
            ),
            (-128, "ERROR: Validate failed: Migrations have failed validation"),
            (-128, f"{sig}"),
            (-128, "-> Applied to database : 1450022213"),
            (-128, "-> Resolved locally    : -2087716522"),
            (
                -128,
                "Either revert the changes to the migration, or run repair to update the schema history.",
            ),
        ]
    )
    k8s[f"kubectl describe deployments orders-api -n {ns}"] = (
        "Name:               orders-api\n"
        f"Namespace:          {ns}\n"
        "Annotations:        deployment.kubernetes.io/revision: 212\n"
        "                    kitchnr.io/git-pr: #2210\n"
        "Replicas:           3 desired | 3 updated | 3 total | 0 available | 3 unavailable\n"
        "StrategyType:       Recreate\n"
        "Conditions:\n"
        "  Type           Status  Reason\n"
        "  ----           ------  ------\n"
        "  Available      False   MinimumReplicasUnavailable\n"
        "  Progressing    True    ReplicaSetUpdated\n"
        "OldReplicaSets:  orders-api-7c9b6f5d8a (0/0 replicas created)\n"
        "NewReplicaSet:   orders-api-58f6c9d7b4 (3/3 replicas created)\n"
        "Events:\n"
        "  Type    Reason             Age   From                   Message\n"
        "  ----    ------             ----  ----                   -------\n"
        "  Normal  ScalingReplicaSet  27m   deployment-controller  Scaled down replica set orders-api-7c9b6f5d8a to 0 from 3\n"
        "  Normal  ScalingReplicaSet  27m   deployment-controller  Scaled up replica set orders-api-58f6c9d7b4 to 3\n"
    )
    evs = [
        ev(
            "argocd",
            "info",
            "app orders: synced to c81a07e (PR #2210 'fix typo in V87 comment; add courier eta field'): deployment.apps/orders-api configured",
            at=-1640,
        ),
        ev(
            "orders-api",
            "error",
            f"ERROR: Validate failed: Migrations have failed validation {sig} -> Applied to database : 1450022213 -> Resolved locally : -2087716522",
            **every(-1580, -60, 270),
            pods=pods_of(oa),
        ),
        ev(
            "ingress-nginx",
            "error",
            '[error] no live upstreams while connecting to upstream, upstream: "orders-orders-api-8080", request: "POST /api/orders HTTP/1.1"',
            **every(start, -5, 9),
        ),
        *herrings(
            start,
            victim=(
                "storefront",
                "[storefront] order submit failed: POST /api/orders -> 503 Service Temporarily Unavailable (cart c_{n})",
                5,
            ),
            release=(
                "payments-api",
                '{"level":"info","msg":"payments-api 8.1.0 started (Apple Pay domain verification)"}',
                -10000,
            ),
            stale=(
                "orders-api",
                '{"level":"error","msg":"orders-db: canceling statement due to lock timeout","table":"orders"}',
            ),
            noisy=(
                "courier-sync",
                "WARN courier webhook retry #{n} for order o_{ms}: 429 from partner",
            ),
        ),
    ]
    return kube_case(
        seed=660,
        start=start,
        inc=alert(
            "[FIRING] OrdersApi5xxRatio > 20%",
            "orders",
            start,
            {"alertname": "OrdersApi5xxRatio", "ingress": "orders", "severity": "page"},
        ),
        exp=expected(
            "application",
            [
                "orders-api",
                "deployment/orders-api",
                "migrate",
                "flyway",
                "V87",
                "PR #2210",
                "init container migrate",
            ],
            sig,
            "PR #2210 edited migration V87, which production applied long ago (a comment typo). Flyway's validate in the init container migrate sees a different checksum and exits 1 on every pod; orders-api uses the Recreate strategy, so the old pods were stopped first and none is left: the new pods stay Init:CrashLoopBackOff and ingress-nginx has no upstream for /api/orders. The storefront 503s are the victim; the payments-api release, the old lock timeouts and the courier 429s are not the cause.",
            [
                f"kubectl logs -c migrate --previous: {sig}",
                "pods Init:CrashLoopBackOff, deployment 0/3 available, strategy Recreate",
                "argocd: PR #2210 synced 27 min ago",
            ],
            "Revert the edit to V87 (never change applied migrations) and redeploy, or run flyway repair deliberately; consider RollingUpdate with a separate migration Job so a failed migration does not take the service down.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "payments-api",
                pods_of(pay),
                ['{"level":"info","msg":"POST /v1/intents 200","ms":{ms}}'],
                10,
            )
        ],
        evs=evs,
        services=[
            svc("orders-api", 140, {"503": (0.001, 0.97)}, (0.08, 0.01)),
            svc("storefront", 300, {"500": (0.002, 0.2)}, (0.2, 0.22)),
        ],
        gauges=[
            gauge(
                "kube_deployment_status_replicas_available",
                {"deployment": "orders-api", "namespace": ns},
                3,
                0,
                -1640,
            )
        ],
        books={
            "orders-5xx.md": runbook(
                "Orders API 5xx",
                "Most orders-api 5xx come from orders-db lock contention during the courier sync. Pause the courier-sync CronJob and kill long-running transactions on orders-db.",
            )
        },
    )


# =================================================================================================
# 5. Startup, a readiness probe answered 400: PR #784 ("harden settings") makes booking-api read
#    ALLOWED_HOSTS from the environment, set to the public name only. The kubelet's HTTP probe sends
#    the pod IP as Host, Django answers 400 DisallowedHost, the new pods never become Ready. The
#    rolling update stops with 6 of 8 old pods serving at the evening peak; latency climbs. The pods
#    are Running 0/1, no restarts; the probe's status code and Django's security log say it.
# =================================================================================================


@scenario("allowed-hosts-setting-fails-readiness-probe-host", ("startup", "Unhealthy"))
def allowed_hosts_setting_fails_readiness_probe_host() -> dict[str, Any]:
    start = -1800
    ns = "bookings"
    old = [(f"o{i}x{i}k", "1/1", "Running", "0", "2d", i % 3) for i in range(6)]
    new = [(f"n{i}v{i}p", "0/1", "Running", "0", "34m", i % 3) for i in range(4)]
    ba = app(
        "booking-api",
        image="ghcr.io/roomly/booking-api:2026.12.8",
        port=8000,
        rs="84c7f9d6b5",
        cluster_ip="172.20.33.10",
        service=False,
        pods=new,
    )
    ba_old = app(
        "booking-api",
        image="ghcr.io/roomly/booking-api:2026.12.3",
        port=8000,
        rs="6f5d8b7c9a",
        cluster_ip="172.20.33.10",
        age="300d",
        pods=old,
    )
    ps = app(
        "partner-sync",
        image="ghcr.io/roomly/partner-sync:3.3.1",
        port=8080,
        rs="5c9d7b8f6a",
        cluster_ip="172.20.33.30",
        pods=[("e5r6t", "1/1", "Running", "0", "11d", 0)],
    )
    k8s = namespace(ns, NODES_IAD, [ba, ba_old, ps], seed=661)
    sig = "Readiness probe failed: HTTP probe failed with statuscode: 400"
    k8s[f"kubectl get deployments -n {ns} -o wide"] = base.deployments(
        [
            (
                "booking-api",
                "6/8",
                "4",
                "6",
                "300d",
                "booking-api",
                "ghcr.io/roomly/booking-api:2026.12.8",
                "app=booking-api",
            ),
            (
                "partner-sync",
                "1/1",
                "1",
                "1",
                "300d",
                "partner-sync",
                "ghcr.io/roomly/partner-sync:3.3.1",
                "app=partner-sync",
            ),
        ]
    )
    pod = "booking-api-84c7f9d6b5-n0v0p"
    k8s[f"kubectl describe pods {pod} -n {ns}"] = (
        f"Name:             {pod}\n"
        f"Namespace:        {ns}\n"
        f"Node:             {NODES_IAD[0][0]}/{NODES_IAD[0][2]}\n"
        "Labels:           app=booking-api\n"
        "                  pod-template-hash=84c7f9d6b5\n"
        "Status:           Running\n"
        "Controlled By:    ReplicaSet/booking-api-84c7f9d6b5\n"
        "Containers:\n"
        "  booking-api:\n"
        "    Image:          ghcr.io/roomly/booking-api:2026.12.8\n"
        "    Port:           8000/TCP\n"
        "    State:          Running\n"
        "    Ready:          False\n"
        "    Restart Count:  0\n"
        "    Readiness:      http-get http://:8000/healthz/ delay=5s timeout=2s period=10s #success=1 #failure=3\n"
        "    Environment:\n"
        "      DJANGO_ALLOWED_HOSTS:  api.roomly.app\n"
        "Conditions:\n"
        "  Type              Status\n"
        "  Initialized       True\n"
        "  Ready             False\n"
        "  ContainersReady   False\n"
        "  PodScheduled      True\n"
        "Events:\n"
        "  Type     Reason     Age                  From     Message\n"
        "  ----     ------     ----                 ----     -------\n"
        f"  Warning  Unhealthy  9s (x203 over 34m)   kubelet  {sig}\n"
    )
    k8s[f"kubectl describe deployments booking-api -n {ns}"] = (
        "Name:                   booking-api\n"
        f"Namespace:              {ns}\n"
        "Annotations:            deployment.kubernetes.io/revision: 61\n"
        "Replicas:               8 desired | 4 updated | 10 total | 6 available | 4 unavailable\n"
        "StrategyType:           RollingUpdate\n"
        "RollingUpdateStrategy:  25% max unavailable, 25% max surge\n"
        "Conditions:\n"
        "  Type           Status  Reason\n"
        "  ----           ------  ------\n"
        "  Available      True    MinimumReplicasAvailable\n"
        "  Progressing    True    ReplicaSetUpdated\n"
        "OldReplicaSets:  booking-api-6f5d8b7c9a (6/6 replicas created)\n"
        "NewReplicaSet:   booking-api-84c7f9d6b5 (4/4 replicas created)\n"
        "Events:\n"
        "  Type    Reason             Age   From                   Message\n"
        "  ----    ------             ----  ----                   -------\n"
        "  Normal  ScalingReplicaSet  34m   deployment-controller  Scaled up replica set booking-api-84c7f9d6b5 to 2\n"
        "  Normal  ScalingReplicaSet  34m   deployment-controller  Scaled down replica set booking-api-6f5d8b7c9a to 6 from 8\n"
        "  Normal  ScalingReplicaSet  34m   deployment-controller  Scaled up replica set booking-api-84c7f9d6b5 to 4 from 2\n"
    )
    new_pods = pods_of(ba)
    evs = [
        ev(
            "argocd",
            "info",
            "app bookings: synced to 2d9f6e1 (PR #784 'harden settings: ALLOWED_HOSTS and secure cookies from env'): deployment.apps/booking-api configured",
            at=-2060,
        ),
        ev(
            "booking-api",
            "error",
            "django.security.DisallowedHost: Invalid HTTP_HOST header: '10.61.{n}.{ms}:8000'. You may need to add '10.61.{n}.{ms}' to ALLOWED_HOSTS. (GET /healthz/ 400)",
            **every(-2020, -5, 10),
            pods=new_pods,
        ),
        ev(
            "kubelet",
            "warn",
            f"{sig} (pod bookings/booking-api-84c7f9d6b5-*)",
            **every(-2000, -30, 90),
        ),
        ev(
            "booking-api",
            "warn",
            "WARNING gunicorn: worker backlog 4{n} requests (workers busy 16/16)",
            **every(start, -10, 40),
            pods=pods_of(ba_old),
        ),
        *herrings(
            start,
            victim=(
                "partner-sync",
                "ERROR availability push to partner hotelbeds failed: booking-api GET /v2/availability timed out after 5s",
                12,
            ),
            release=(
                "search-ui",
                "[search-ui] release 5.40.0 live (map view clustering)",
                -7400,
            ),
            stale=("pgbouncer", "ERROR no more connections allowed (max_client_conn)"),
            noisy=(
                "redis-sessions",
                "# Client id={n} addr=10.61.2.{ms}:5{n} scheduled to be closed ASAP for overcoming of output buffer limits.",
            ),
        ),
    ]
    return kube_case(
        seed=661,
        start=start,
        inc=alert(
            "[FIRING] BookingApiLatencyHigh p95 > 1s",
            "bookings",
            start,
            {"alertname": "BookingApiLatencyHigh", "namespace": ns, "severity": "page"},
        ),
        exp=expected(
            "application",
            [
                "booking-api",
                "deployment/booking-api",
                "ALLOWED_HOSTS",
                "DJANGO_ALLOWED_HOSTS",
                "PR #784",
                "readiness probe",
                "replicaset/booking-api-84c7f9d6b5",
            ],
            sig,
            "PR #784 sets DJANGO_ALLOWED_HOSTS to api.roomly.app only. The kubelet's readiness probe sends the pod IP as Host, so Django answers /healthz/ with 400 DisallowedHost and the new pods never become Ready. The rolling update stopped after scaling the old ReplicaSet down to 6 of 8; at the evening peak the remaining pods queue requests and p95 climbs. The partner-sync timeouts are the victim; the search-ui release, old pgbouncer errors and Redis buffer warnings are not the cause.",
            [
                f"describe pod: {sig} x203, Ready False, 0 restarts",
                "booking-api: DisallowedHost Invalid HTTP_HOST header '10.61.x.x:8000' on GET /healthz/",
                "deployment: 4 updated, 6 available, rollout not progressing",
            ],
            "Roll back to 2026.12.3 (or add the pod IPs / a probe Host header, or exempt /healthz/ from the host check), then finish the rollout; pause the rollout while fixing.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "booking-api",
                pods_of(ba_old),
                ["INFO 200 GET /v2/availability {ms}ms"],
                8,
            )
        ],
        evs=evs,
        services=[
            svc("booking-api", 520, {"504": (0.001, 0.03)}, (0.18, 1.4)),
            svc("partner-sync", 20, {"500": (0.002, 0.05)}, (0.4, 5.0)),
        ],
        gauges=[
            gauge(
                "kube_deployment_status_replicas_available",
                {"deployment": "booking-api", "namespace": ns},
                8,
                6,
                -2040,
            ),
            gauge(
                "kube_deployment_status_replicas_unavailable",
                {"deployment": "booking-api", "namespace": ns},
                0,
                4,
                -2040,
            ),
        ],
        books={
            "booking-latency.md": runbook(
                "Booking API latency",
                "Latency here is nearly always pgbouncer saturation. Raise default_pool_size on pgbouncer and restart it, one pod at a time.",
            )
        },
    )


def main(root: Path = HERE) -> None:
    for slug, build in SCENARIOS.items():
        spec = build()
        tidy_clock_times(spec["logs"])
        stage, reason = STAGES[slug]
        spec["expected"]["root_cause_stage"] = stage
        spec["expected"]["root_cause_reason"] = reason
        base.write(slug, spec, root)
        print(slug)


if __name__ == "__main__":
    main()

# =================================================================================================
# 6. Startup, an image that exists in one region only: PR ci#140 split points-engine out of the
#    loyalty monolith into its own ECR repository `loyalty/points-engine`. CI pushes to us-east-1;
#    the account's ECR replication rule copies only repositories with the prefixes `platform/` and
#    `shop/`. The US cluster runs 2.0.0; in eu-west-1 the pull is NotFound, the new Deployment has no
#    ready pod, the Service no endpoints, and the Ingress route the release moved to points-engine
#    answers 503 to EU customers only. The incident is a support line.
# =================================================================================================


@scenario(
    "ecr-replication-rule-misses-new-repo-eu-cluster", ("startup", "ImagePullBackOff")
)
def ecr_replication_rule_misses_new_repo_eu_cluster() -> dict[str, Any]:
    start = -2400
    ns = "loyalty"
    image = "418272790151.dkr.ecr.eu-west-1.amazonaws.com/loyalty/points-engine:2.0.0"
    pe = app(
        "points-engine",
        image=image,
        port=8080,
        rs="7b9d5c8f6e",
        cluster_ip="172.20.58.14",
        age="43m",
        pods=[
            ("d2f4g", "0/1", "ImagePullBackOff", "0", "43m", 0),
            ("h6j8k", "0/1", "ImagePullBackOff", "0", "43m", 1),
        ],
    )
    mono = app(
        "loyalty-web",
        image="418272790151.dkr.ecr.eu-west-1.amazonaws.com/shop/loyalty-web:14.2.0",
        port=3000,
        rs="6c8e7d9b5f",
        cluster_ip="172.20.58.30",
        pods=[
            ("l1z3x", "1/1", "Running", "0", "43m", 0),
            ("c5v7b", "1/1", "Running", "0", "43m", 2),
        ],
    )
    k8s = namespace(ns, NODES_DUB, [pe, mono], seed=662)
    sig = "loyalty/points-engine:2.0.0: not found"
    pod = "points-engine-7b9d5c8f6e-d2f4g"
    pull = (
        f'Failed to pull image "{image}": rpc error: code = NotFound desc = failed to pull and unpack image '
        f'"{image}": failed to resolve reference "{image}": {image.split("/", 1)[0]}/{sig}'
    )
    k8s[f"kubectl describe pods {pod} -n {ns}"] = (
        f"Name:             {pod}\n"
        f"Namespace:        {ns}\n"
        f"Node:             {NODES_DUB[0][0]}/{NODES_DUB[0][2]}\n"
        "Labels:           app=points-engine\n"
        "                  pod-template-hash=7b9d5c8f6e\n"
        "Status:           Pending\n"
        "Controlled By:    ReplicaSet/points-engine-7b9d5c8f6e\n"
        "Containers:\n"
        "  points-engine:\n"
        f"    Image:          {image}\n"
        "    Port:           8080/TCP\n"
        "    State:          Waiting\n"
        "      Reason:       ImagePullBackOff\n"
        "    Ready:          False\n"
        "    Restart Count:  0\n"
        "Events:\n"
        "  Type     Reason   Age                 From     Message\n"
        "  ----     ------   ----                ----     -------\n"
        f'  Normal   Pulling  12m (x10 over 43m)  kubelet  Pulling image "{image}"\n'
        f"  Warning  Failed   12m (x10 over 43m)  kubelet  {pull}\n"
        "  Warning  Failed   12m (x10 over 43m)  kubelet  Error: ErrImagePull\n"
        f'  Normal   BackOff  3m (x180 over 43m)  kubelet  Back-off pulling image "{image}"\n'
    )
    k8s[f"kubectl get ingresses -n {ns}"] = table(
        [
            ["NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"],
            [
                "loyalty",
                "alb",
                "loyalty.shopbell.eu",
                "k8s-loyalty-2f9c1e-19377.eu-west-1.elb.amazonaws.com",
                "80, 443",
                "2y",
            ],
        ]
    )
    k8s[f"kubectl describe ingresses loyalty -n {ns}"] = (
        "Name:             loyalty\n"
        f"Namespace:        {ns}\n"
        "Ingress Class:    alb\n"
        "Rules:\n"
        "  Host                 Path  Backends\n"
        "  ----                 ----  --------\n"
        "  loyalty.shopbell.eu\n"
        "                       /api/points   points-engine:8080 (<none>)\n"
        "                       /             loyalty-web:3000 (10.62.1.140:3000,10.62.3.77:3000)\n"
        "Events:\n"
        "  Type    Reason                  Age   From     Message\n"
        "  ----    ------                  ----  ----     -------\n"
        "  Normal  SuccessfullyReconciled  43m   ingress  Successfully reconciled\n"
    )
    evs = [
        ev(
            "argocd",
            "info",
            "app loyalty-euw1: synced to 5a0c2d8 (release 2026.12.8: points-engine split out, PR ci#140): deployment.apps/points-engine created, ingress.networking.k8s.io/loyalty configured",
            at=-2600,
        ),
        ev(
            "argocd",
            "info",
            "app loyalty-use1: synced to 5a0c2d8: deployment.apps/points-engine healthy (2/2)",
            at=-2580,
        ),
        ev(
            "ci",
            "info",
            "points-engine 2.0.0: pushed 418272790151.dkr.ecr.us-east-1.amazonaws.com/loyalty/points-engine:2.0.0 (repository created by PR ci#140)",
            at=-3100,
        ),
        ev(
            "ecr",
            "info",
            "replication configuration 418272790151: rule 1 destinations [eu-west-1] repositoryFilters [PREFIX_MATCH platform/, PREFIX_MATCH shop/]",
            at=-3050,
        ),
        ev("kubelet", "warn", pull, **every(-2550, -30, 300)),
        ev(
            "aws-alb",
            "warn",
            "target group k8s-loyalty-pointsen-8c1f: 0 healthy targets, returning 503 for /api/points",
            **every(start, -30, 120),
        ),
        *herrings(
            start,
            victim=(
                "loyalty-web",
                "[loyalty-web] GET /api/points/balance -> 503 from ALB (member m_{n}, locale de-DE)",
                8,
            ),
            release=(
                "loyalty-web",
                "[loyalty-web] loyalty-web 14.2.0 ready (new rewards carousel)",
                -2560,
            ),
            stale=(
                "loyalty-web",
                "[loyalty-web] redis GET rewards:catalog failed: ETIMEDOUT",
            ),
            noisy=(
                "email-service",
                "WARN template rewards_expiring_v3 missing locale pl-PL, using en",
            ),
        ),
    ]
    return kube_case(
        seed=662,
        start=start,
        inc=ticket(
            "Support: EU customers see an error on the points page, US is fine",
            "loyalty",
            start,
            ["'Something went wrong' on My Points", "only customers on shopbell.eu"],
        ),
        exp=expected(
            "platform",
            [
                "loyalty/points-engine",
                "points-engine",
                "deployment/points-engine",
                "ecr replication",
                "replication configuration",
                "PR ci#140",
                "ecr",
            ],
            sig,
            "PR ci#140 moved points-engine into a new ECR repository loyalty/points-engine. CI pushes to us-east-1 and the registry's replication rule only copies repositories prefixed platform/ and shop/, so the image does not exist in eu-west-1: the EU pods stay in ImagePullBackOff (NotFound), the Service has no endpoints and the ALB answers 503 on /api/points, which the same release moved to points-engine. The US cluster pulls from its own region and is fine. The loyalty-web errors are the victim; its release, the old Redis timeouts and the template warnings are not the cause.",
            [
                f"describe pod: Failed to pull image ... {sig}",
                "ecr: replication filter platform/, shop/ only",
                "us-east-1 cluster healthy on the same release",
            ],
            "Add loyalty/ to the ECR replication rule (and replicate 2.0.0 now), or point the EU manifests at the us-east-1 image; add a CI check that the tag exists in every region before deploying.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "loyalty-web",
                pods_of(mono),
                ["[loyalty-web] GET /rewards 200 {ms}ms"],
                8,
            )
        ],
        evs=evs,
        services=[svc("loyalty-web", 60, {"503": (0.001, 0.31)}, (0.12, 0.14))],
        gauges=[
            gauge(
                "kube_deployment_status_replicas_available",
                {"deployment": "points-engine", "namespace": ns},
                0,
                0,
                start,
            )
        ],
        books={
            "points-page-errors.md": runbook(
                "Points page errors",
                "The points page reads the rewards catalog from Redis. If it errors, check the rewards Redis (latency, evictions) and flush the rewards:catalog key so it is rebuilt.",
            )
        },
    )


# =================================================================================================
# 7. Startup, a Secret value with a trailing newline: during the Redis password rotation SEC-219
#    the on-call recreated Secret `ledger-cache` with `kubectl create secret generic --from-file`
#    from a file written by `echo`, so REDIS_URL ends with "\n". Running pods kept the old value
#    (environment is read at container start). This morning's node patching restarted three of the
#    five ledger-writer pods; Go's url.Parse refuses the control character and they crash at start.
#    Two pods carry the load. Only restarted pods fail; the rotation looked fine yesterday.
# =================================================================================================


@scenario(
    "secret-trailing-newline-breaks-redis-url-on-restart",
    ("startup", "CrashLoopBackOff"),
)
def secret_trailing_newline_breaks_redis_url_on_restart() -> dict[str, Any]:
    start = -2000
    ns = "payments"
    lw = app(
        "ledger-writer",
        image="ghcr.io/paywell/ledger-writer:1.31.4",
        port=8080,
        rs="5d8c7f9b6a",
        cluster_ip="172.20.20.15",
        pods=[
            ("a4s6d", "1/1", "Running", "0", "9d", 0),
            ("f8g1h", "1/1", "Running", "0", "9d", 1),
            ("j3k5l", "0/1", "CrashLoopBackOff", "11", "38m", 2),
            ("z7x9c", "0/1", "CrashLoopBackOff", "11", "38m", 2),
            ("v2b4n", "0/1", "CrashLoopBackOff", "10", "36m", 0),
        ],
    )
    gw = app(
        "payment-gateway",
        image="ghcr.io/paywell/payment-gateway:6.9.0",
        port=8443,
        rs="7e6d5c4b3a",
        cluster_ip="172.20.20.10",
        pods=[
            ("q9w8e", "1/1", "Running", "0", "2h", 1),
            ("r7t6y", "1/1", "Running", "0", "2h", 2),
        ],
    )
    k8s = namespace(
        ns,
        NODES_FRA,
        [lw, gw],
        seed=663,
        secrets=[("ledger-cache", "Opaque", "1", "21h")],
    )
    sig = "net/url: invalid control character in URL"
    pod = "ledger-writer-5d8c7f9b6a-j3k5l"
    crash = f'fatal: redis: parse "rediss://:****@ledger-cache.payments.internal:6380/0\\n": {sig}'
    k8s[f"kubectl logs {pod} -n {ns} --previous"] = podlog(
        [
            (
                -95,
                '{"level":"info","msg":"ledger-writer 1.31.4 starting","commit":"9f1c0ab"}',
            ),
            (
                -95,
                '{"level":"info","msg":"connecting to postgres","host":"ledger-db.payments.internal"}',
            ),
            (-94, '{"level":"fatal","msg":"' + crash.replace('"', '\\"') + '"}'),
        ]
    )
    k8s[f"kubectl describe pods {pod} -n {ns}"] = (
        f"Name:             {pod}\n"
        f"Namespace:        {ns}\n"
        f"Node:             {NODES_FRA[2][0]}/{NODES_FRA[2][2]}\n"
        "Labels:           app=ledger-writer\n"
        "                  pod-template-hash=5d8c7f9b6a\n"
        "Status:           Running\n"
        "Controlled By:    ReplicaSet/ledger-writer-5d8c7f9b6a\n"
        "Containers:\n"
        "  ledger-writer:\n"
        "    Image:          ghcr.io/paywell/ledger-writer:1.31.4\n"
        "    State:          Waiting\n"
        "      Reason:       CrashLoopBackOff\n"
        "    Last State:     Terminated\n"
        "      Reason:       Error\n"
        "      Exit Code:    1\n"
        "    Ready:          False\n"
        "    Restart Count:  11\n"
        "    Environment:\n"
        "      REDIS_URL:     <set to the key 'url' in secret 'ledger-cache'>  Optional: false\n"
        "      DATABASE_URL:  <set to the key 'url' in secret 'ledger-db'>     Optional: false\n"
        "Events:\n"
        "  Type     Reason   Age                 From     Message\n"
        "  ----     ------   ----                ----     -------\n"
        f"  Normal   Scheduled  38m               default-scheduler  Successfully assigned {ns}/{pod} to {NODES_FRA[2][0]}\n"
        f"  Warning  BackOff  2m (x160 over 37m)  kubelet  Back-off restarting failed container ledger-writer in pod {pod}_{ns}(b41d…)\n"
    )
    k8s[f"kubectl describe secrets ledger-cache -n {ns}"] = (
        "Name:         ledger-cache\n"
        f"Namespace:    {ns}\n"
        "Labels:       <none>\n"
        "Annotations:  paywell.io/rotated-by: SEC-219 (k.nowak)\n"
        "\n"
        "Type:  Opaque\n"
        "\n"
        "Data\n"
        "====\n"
        "url:  69 bytes\n"
    )
    evs = [
        ev(
            "kubernetes-audit",
            "info",
            f"DELETE+CREATE secrets {ns}/ledger-cache by k.nowak (kubectl create secret generic ledger-cache --from-file=url=./redis-url.txt) SEC-219",
            at=-75600,
        ),
        ev(
            "change-log",
            "info",
            "SEC-219 rotate ledger-cache Redis AUTH password: done, ledger-writer healthy (no restart needed)",
            at=-75000,
        ),
        ev(
            "node-patching",
            "info",
            f"drained {NODES_FRA[2][0]} and {NODES_FRA[0][0]} for kernel 6.1.119 (patch window PW-1208)",
            at=-2350,
        ),
        ev(
            "ledger-writer",
            "error",
            '{"level":"fatal","msg":"' + crash.replace('"', '\\"') + '"}',
            **every(-2290, -40, 150),
            pods=[
                pod,
                "ledger-writer-5d8c7f9b6a-z7x9c",
                "ledger-writer-5d8c7f9b6a-v2b4n",
            ],
        ),
        ev(
            "ledger-writer",
            "warn",
            '{"level":"warn","msg":"queue depth high","pending_entries":1{n}00,"workers":"busy"}',
            **every(start, -20, 60),
            pods=["ledger-writer-5d8c7f9b6a-a4s6d", "ledger-writer-5d8c7f9b6a-f8g1h"],
        ),
        *herrings(
            start,
            victim=(
                "payment-gateway",
                "ERROR capture confirmation timed out waiting for ledger ack (payment p_{n}, 5000ms)",
                7,
            ),
            release=(
                "payment-gateway",
                "INFO payment-gateway 6.9.0 started (3DS2 frictionless flow for Visa)",
                -7000,
            ),
            stale=(
                "ledger-writer",
                '{"level":"error","msg":"postgres: could not serialize access due to concurrent update","entry":"e_{n}"}',
            ),
            noisy=("fraud-scorer", "WARN model feature store lag 3{n}s"),
        ),
    ]
    return kube_case(
        seed=663,
        start=start,
        inc=alert(
            "[FIRING] PaymentCaptureSlow p99 > 4s",
            "payments",
            start,
            {
                "alertname": "PaymentCaptureSlow",
                "service": "payment-gateway",
                "severity": "page",
            },
        ),
        exp=expected(
            "application",
            [
                "secret/ledger-cache",
                "ledger-cache",
                "REDIS_URL",
                "SEC-219",
                "ledger-writer",
                "deployment/ledger-writer",
            ],
            sig,
            "During SEC-219 the Secret ledger-cache was recreated from a file that ends with a newline, so REDIS_URL now ends in \\n. Running pods kept the old value; the pods restarted by this morning's node patching read the new one and Go's url.Parse refuses it (invalid control character), so three of five ledger-writer pods crash-loop and the two left cannot keep up: payment captures wait for the ledger. The payment-gateway timeouts are the victim; the node patching is only the trigger; the gateway release, the old serialization errors and the feature-store lag are not the cause.",
            [
                f"kubectl logs --previous: {crash}",
                "secret ledger-cache recreated with --from-file by SEC-219 21h ago",
                "only pods started after the patch window crash; the 9d-old pods run",
            ],
            "Recreate the Secret without the trailing newline (printf, or stringData) and restart ledger-writer; trim the value in the app as a guard.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "ledger-writer",
                ["ledger-writer-5d8c7f9b6a-a4s6d", "ledger-writer-5d8c7f9b6a-f8g1h"],
                ['{"level":"info","msg":"entry committed","ms":{ms}}'],
                8,
            )
        ],
        evs=evs,
        services=[svc("payment-gateway", 90, {"504": (0.0005, 0.04)}, (0.35, 3.8))],
        gauges=[
            gauge(
                "kube_deployment_status_replicas_available",
                {"deployment": "ledger-writer", "namespace": ns},
                5,
                2,
                -2300,
            )
        ],
        books={
            "capture-slow.md": runbook(
                "Payment captures slow",
                "Slow captures usually mean the acquirer is slow. Check the acquirer status page and switch the routing to the secondary acquirer in the payment-gateway admin.",
            )
        },
    )


def main(root: Path = HERE) -> None:
    for slug, build in SCENARIOS.items():
        spec = build()
        tidy_clock_times(spec["logs"])
        stage, reason = STAGES[slug]
        spec["expected"]["root_cause_stage"] = stage
        spec["expected"]["root_cause_reason"] = reason
        base.write(slug, spec, root)
        print(slug)


if __name__ == "__main__":
    main()
