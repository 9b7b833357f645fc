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


def endpoints_of(k8s: dict[str, str], ns: str, service: str) -> str:
    """The ENDPOINTS column of one Service in the namespace's `get endpoints` table."""
    for line in k8s[f"kubectl get endpoints -n {ns}"].splitlines()[1:]:
        cols = line.split()
        if cols and cols[0] == service:
            return cols[1]
    raise KeyError(service)


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
    k8s = namespace(ns, NODES_DUB, [geo, notif], seed=658)
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
    nodes = [(n[0], n[1], n[2], "7h") for n in NODES_IAD]
    k8s = namespace(ns, nodes, [idx, q], seed=659)
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
            '{"level":"warn","msg":"index freshness","last_update_age_s":2{ms}0,"index":"listings"}',
            **every(start, -30, 120),
            pods=pods_of(q),
        ),
        ev(
            "sqs",
            "info",
            "queue listing-updates ApproximateNumberOfMessagesVisible=4{ms}12 ApproximateAgeOfOldestMessage=2{ms}00",
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
                "[WARN ][o.o.i.b.HierarchyCircuitBreakerService] [search-2] parent breaker at 87% of limit",
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
            "django.security.DisallowedHost: Invalid HTTP_HOST header: '10.61.2.{ms}:8000'. You may need to add '10.61.2.{ms}' to ALLOWED_HOSTS. (GET /healthz/ 400)",
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
            "WARNING gunicorn: worker backlog 4{ms} requests (workers busy 16/16)",
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
                "# Client id={n} addr=10.61.2.{ms}:4{ms}1 scheduled to be closed ASAP for overcoming of output buffer limits.",
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
        f"                       /             loyalty-web:3000 ({endpoints_of(k8s, ns, 'loyalty-web')})\n"
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
            '{"level":"warn","msg":"queue depth high","pending_entries":1{ms}0,"workers":"busy"}',
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
            noisy=("fraud-scorer", "WARN model feature store lag {ms}s"),
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

# =================================================================================================
# 8. Infrastructure, kube-proxy OOMKilled on the big nodes: PR tf-eks#311 set the kube-proxy EKS
#    add-on's configuration values from a small cluster's module (`resources.limits.memory: 64Mi`).
#    On the two m6i.8xlarge nodes (110 pods each, 2,400 Services in the cluster) a full iptables
#    sync needs more; kube-proxy is OOMKilled and crash-loops there, so those nodes keep the rules
#    of 40 minutes ago. inventory-api rolled 25 minutes ago: callers on the big nodes still DNAT to
#    the old pod IPs and time out; callers on the small nodes are fine. The incident is checkout's.
# =================================================================================================

NODES_MIXED = [
    ("ip-10-44-1-12.us-west-2.compute.internal", "Ready", "10.44.1.12"),
    ("ip-10-44-2-87.us-west-2.compute.internal", "Ready", "10.44.2.87"),
    ("ip-10-44-1-203.us-west-2.compute.internal", "Ready", "10.44.1.203"),
    ("ip-10-44-3-140.us-west-2.compute.internal", "Ready", "10.44.3.140"),
]


@scenario(
    "kube-proxy-addon-memory-limit-oomkills-on-big-nodes",
    ("infrastructure", "OOMKilled"),
)
def kube_proxy_addon_memory_limit_oomkills_on_big_nodes() -> dict[str, Any]:
    start = -1400
    ns = "shop"
    co = app(
        "checkout-api",
        image="ghcr.io/brightcart/checkout-api:22.6.0",
        port=8080,
        rs="6f7c8d9b5e",
        cluster_ip="172.20.5.20",
        pods=[
            ("b2n4m", "1/1", "Running", "0", "4d", 0),
            ("k6l8p", "1/1", "Running", "0", "4d", 1),
            ("x3c5v", "1/1", "Running", "0", "4d", 2),
            ("q7w9e", "1/1", "Running", "0", "4d", 3),
        ],
    )
    inv = app(
        "inventory-api",
        image="ghcr.io/brightcart/inventory-api:7.0.3",
        port=8080,
        rs="84b6c5d7f9",
        cluster_ip="172.20.5.31",
        pods=[
            ("r1t3y", "1/1", "Running", "0", "25m", 0),
            ("u5i7o", "1/1", "Running", "0", "25m", 1),
        ],
    )
    k8s = namespace(ns, NODES_MIXED, [co, inv], seed=664)
    big = [NODES_MIXED[2][0], NODES_MIXED[3][0]]
    sig = "container kube-proxy OOMKilled"
    k8s["kubectl get pods -n kube-system -o wide"] = kube_system_pods(
        [
            (
                "kube-proxy-4hx8r",
                "1/1",
                "Running",
                "0",
                "41d",
                NODES_MIXED[0][2],
                NODES_MIXED[0][0],
            ),
            (
                "kube-proxy-9tq2d",
                "1/1",
                "Running",
                "0",
                "41d",
                NODES_MIXED[1][2],
                NODES_MIXED[1][0],
            ),
            (
                "kube-proxy-m7zk5",
                "0/1",
                "CrashLoopBackOff",
                "14",
                "41d",
                NODES_MIXED[2][2],
                big[0],
            ),
            (
                "kube-proxy-w2pj6",
                "0/1",
                "CrashLoopBackOff",
                "13",
                "41d",
                NODES_MIXED[3][2],
                big[1],
            ),
            (
                "coredns-7c9b6d8f5d-2mv9x",
                "1/1",
                "Running",
                "0",
                "41d",
                "10.44.1.66",
                NODES_MIXED[0][0],
            ),
            (
                "coredns-7c9b6d8f5d-8kq4n",
                "1/1",
                "Running",
                "0",
                "41d",
                "10.44.2.19",
                NODES_MIXED[1][0],
            ),
            ("aws-node-6bd2k", "2/2", "Running", "0", "41d", NODES_MIXED[2][2], big[0]),
        ]
    )
    k8s["kubectl describe pods kube-proxy-m7zk5 -n kube-system"] = (
        "Name:                 kube-proxy-m7zk5\n"
        "Namespace:            kube-system\n"
        "Priority Class Name:  system-node-critical\n"
        f"Node:                 {big[0]}/{NODES_MIXED[2][2]}\n"
        "Labels:               k8s-app=kube-proxy\n"
        "Annotations:          eks.amazonaws.com/addon-configuration: PR tf-eks#311\n"
        "Status:               Running\n"
        "Controlled By:        DaemonSet/kube-proxy\n"
        "Containers:\n"
        "  kube-proxy:\n"
        "    Image:          602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/kube-proxy:v1.31.2-minimal-eksbuild.3\n"
        "    Command:        kube-proxy --v=2 --config=/var/lib/kube-proxy-config/config --hostname-override=$(NODE_NAME)\n"
        "    State:          Waiting\n"
        "      Reason:       CrashLoopBackOff\n"
        "    Last State:     Terminated\n"
        "      Reason:       OOMKilled\n"
        "      Exit Code:    137\n"
        "    Ready:          False\n"
        "    Restart Count:  14\n"
        "    Limits:\n"
        "      memory:  64Mi\n"
        "    Requests:\n"
        "      cpu:     100m\n"
        "      memory:  32Mi\n"
        "Events:\n"
        "  Type     Reason   Age                 From     Message\n"
        "  ----     ------   ----                ----     -------\n"
        f"  Warning  BackOff  1m (x88 over 40m)   kubelet  Back-off restarting failed container kube-proxy in pod kube-proxy-m7zk5_kube-system(3f7a…)\n"
    )
    k8s["kubectl logs kube-proxy-m7zk5 -n kube-system --previous"] = podlog(
        [
            (
                -200,
                'I1208 1 server_linux.go:66] "Using iptables proxy"',
            ),
            (
                -199,
                'I1208 1 proxier.go:813] "Syncing iptables rules"',
            ),
            (
                -196,
                'I1208 1 proxier.go:1503] "Reloading service iptables data" numServices=2412 numEndpoints=9876 numFilterChains=6 numNATChains=14901',
            ),
        ]
    )
    k8s["kubectl get daemonsets -n kube-system -o wide"] = table(
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
                "aws-node",
                "4",
                "4",
                "4",
                "4",
                "4",
                "<none>",
                "2y",
                "aws-node,aws-eks-nodeagent",
                "…/amazon-k8s-cni:v1.19.0",
                "k8s-app=aws-node",
            ],
            [
                "kube-proxy",
                "4",
                "4",
                "2",
                "4",
                "2",
                "<none>",
                "2y",
                "kube-proxy",
                "…/eks/kube-proxy:v1.31.2-minimal-eksbuild.3",
                "k8s-app=kube-proxy",
            ],
        ]
    )
    inv_old = "10.64.3.{ms}:8080"
    evs = [
        ev(
            "terraform",
            "info",
            'eks_addon.kube_proxy: modified configuration_values (PR tf-eks#311 \'shared addon module\'): {"resources":{"limits":{"memory":"64Mi"}}}',
            at=-2600,
        ),
        ev(
            "kubelet",
            "warn",
            f"{big[0]}: {sig} (limit 64Mi) in pod kube-system/kube-proxy-m7zk5",
            **every(-2500, -20, 170),
        ),
        ev(
            "kubelet",
            "warn",
            f"{big[1]}: {sig} (limit 64Mi) in pod kube-system/kube-proxy-w2pj6",
            **every(-2480, -25, 175),
        ),
        ev(
            "argocd",
            "info",
            "app shop: synced inventory-api 7.0.3 (read replicas for stock lookups): deployment.apps/inventory-api configured",
            at=-1520,
        ),
        ev(
            "checkout-api",
            "error",
            f'{{"level":"error","msg":"inventory reserve failed","err":"dial tcp 172.20.5.31:8080 -> {inv_old}: i/o timeout","cart":"c_{{n}}"}}',
            **every(start, -5, 11),
            pods=["checkout-api-6f7c8d9b5e-x3c5v", "checkout-api-6f7c8d9b5e-q7w9e"],
        ),
        *herrings(
            start,
            victim=(
                "storefront",
                "[storefront] checkout step 3 failed: 502 from checkout-api (inventory check failed) session s_{n}",
                9,
            ),
            release=(
                "inventory-api",
                '{"level":"info","msg":"inventory-api 7.0.3 started (stock lookups on read replica)"}',
                -1500,
            ),
            stale=(
                "checkout-api",
                '{"level":"error","msg":"stripe: request timeout","op":"payment_intents.create"}',
            ),
            noisy=(
                "search-api",
                "WARN slow query on products_idx 1{ms}ms (facet brand)",
            ),
        ),
    ]
    return kube_case(
        seed=664,
        start=start,
        inc=ticket(
            "Checkout: about half of the orders fail with 'inventory check failed'",
            "checkout",
            start,
        ),
        exp=expected(
            "platform",
            [
                "kube-proxy",
                "daemonset/kube-proxy",
                "kube-proxy-m7zk5",
                "kube-proxy-w2pj6",
                "PR tf-eks#311",
                "eks addon kube-proxy",
                "configuration_values",
            ],
            sig,
            "PR tf-eks#311 gave the kube-proxy add-on a 64Mi memory limit. On the two large nodes, which program 2,400 Services, kube-proxy is OOMKilled during every full sync and crash-loops, so their iptables rules are frozen at 40 minutes ago. inventory-api rolled 25 minutes ago; checkout-api pods on the large nodes still DNAT its ClusterIP to the old pod IPs and time out, pods on the small nodes work. The inventory-api release is the trigger that makes stale rules visible, not the cause; the storefront errors are the victim; the old Stripe timeouts and the search warnings are noise.",
            [
                "kube-system: kube-proxy CrashLoopBackOff on the two m6i.8xlarge nodes, Last State OOMKilled, limit 64Mi",
                "checkout-api errors only from pods on those nodes: dial 172.20.5.31 -> old pod IP i/o timeout",
                "terraform: addon configuration_values changed 43 min ago",
            ],
            "Remove the memory limit (or raise it to 256Mi+) in the kube-proxy add-on configuration and let the DaemonSet pods sync; until then cordon the two large nodes and move checkout-api off them.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "checkout-api",
                ["checkout-api-6f7c8d9b5e-b2n4m", "checkout-api-6f7c8d9b5e-k6l8p"],
                ['{"level":"info","msg":"POST /v1/checkout 200","ms":{ms}}'],
                8,
            )
        ],
        evs=evs,
        services=[svc("checkout-api", 85, {"502": (0.001, 0.48)}, (0.22, 2.6))],
        gauges=[
            gauge(
                "kube_pod_container_status_restarts_total",
                {"container": "kube-proxy", "node": big[0]},
                0,
                14,
                -2500,
            ),
            gauge(
                "kubeproxy_sync_proxy_rules_last_timestamp_age_seconds",
                {"node": big[0]},
                20,
                2400,
                -2500,
            ),
        ],
        books={
            "checkout-inventory-failed.md": runbook(
                "Checkout: inventory check failed",
                "inventory-api times out when its database is overloaded. Check inventory-db CPU and locks, and roll back the latest inventory-api release if it started after a deploy.",
            )
        },
    )


# =================================================================================================
# 9. Infrastructure, a CoreDNS override left behind: for the database migration MIG-77 (self-hosted
#    PostgreSQL pg-orders-01 to RDS) the platform team added a `hosts` block to the coredns
#    ConfigMap pinning `orders-db.corp.internal` to the old server 10.40.8.21, so pods would stay on
#    it until cutover while Route 53 was already changed for the VMs. After the cutover the old
#    server was kept as a read-only logical replica for rollback; the hosts block stayed. Pods in
#    the cluster write to the read-only server; the VM-based back office writes to RDS fine.
# =================================================================================================


@scenario(
    "coredns-hosts-override-pins-old-db-after-migration",
    ("infrastructure", "StaleDNSOverride"),
)
def coredns_hosts_override_pins_old_db_after_migration() -> dict[str, Any]:
    start = -1900
    ns = "orders"
    oa = app(
        "order-service",
        image="registry.gitlab.com/fyndo/order-service:5.12.0",
        port=8080,
        rs="5b6c7d8e9f",
        cluster_ip="172.20.70.10",
        pods=[
            ("p1o2i", "1/1", "Running", "0", "31m", 0),
            ("u3y4t", "1/1", "Running", "0", "31m", 1),
            ("r5e6w", "1/1", "Running", "0", "31m", 2),
        ],
    )
    k8s = namespace(ns, NODES_DUB, [oa], seed=665)
    sig = "resolved orders-db.corp.internal to 10.40.8.21"
    k8s["kubectl describe configmaps coredns -n kube-system"] = (
        "Name:         coredns\n"
        "Namespace:    kube-system\n"
        "Labels:       eks.amazonaws.com/component=coredns\n"
        "Annotations:  fyndo.io/changed-by: MIG-77 cutover prep (j.ortega)\n"
        "\n"
        "Data\n"
        "====\n"
        "Corefile:\n"
        "----\n"
        ".:53 {\n"
        "    errors\n"
        "    health {\n"
        "        lameduck 5s\n"
        "    }\n"
        "    ready\n"
        "    hosts {\n"
        "        10.40.8.21 orders-db.corp.internal\n"
        "        fallthrough\n"
        "    }\n"
        "    kubernetes cluster.local in-addr.arpa ip6.arpa {\n"
        "        pods insecure\n"
        "        fallthrough in-addr.arpa ip6.arpa\n"
        "    }\n"
        "    prometheus :9153\n"
        "    forward . /etc/resolv.conf\n"
        "    cache 30\n"
        "    loop\n"
        "    reload\n"
        "    loadbalance\n"
        "}\n"
        "\n"
        "Events:  <none>\n"
    )
    k8s["kubectl get pods -n kube-system -o wide"] = kube_system_pods(
        [
            (
                "coredns-6d9f7c8b5a-4tq8z",
                "1/1",
                "Running",
                "0",
                "9d",
                "10.52.1.44",
                NODES_DUB[0][0],
            ),
            (
                "coredns-6d9f7c8b5a-9xw2c",
                "1/1",
                "Running",
                "0",
                "9d",
                "10.52.2.91",
                NODES_DUB[1][0],
            ),
        ]
    )
    evs = [
        ev(
            "kubernetes-audit",
            "info",
            "PATCH configmaps kube-system/coredns by j.ortega: Corefile hosts { 10.40.8.21 orders-db.corp.internal fallthrough } (MIG-77 cutover prep)",
            at=-259200,
        ),
        ev(
            "route53",
            "info",
            "ChangeResourceRecordSets corp.internal UPSERT orders-db.corp.internal CNAME orders-prod.c9xk2l.eu-west-1.rds.amazonaws.com (MIG-77)",
            at=-259000,
        ),
        ev(
            "change-log",
            "info",
            "MIG-77 cutover done: writes on RDS orders-prod; pg-orders-01 (10.40.8.21) now read-only logical replica, keep 14 days for rollback",
            at=-2300,
        ),
        ev(
            "pg-orders-01",
            "info",
            'LOG:  parameter "default_transaction_read_only" changed to "on"',
            at=-2280,
        ),
        ev(
            "order-service",
            "info",
            f'{{"level":"info","msg":"db pool refreshed","detail":"{sig}","pool":"primary"}}',
            **every(-2200, -30, 300),
            pods=pods_of(oa),
        ),
        ev(
            "order-service",
            "error",
            '{"level":"error","msg":"create order failed","err":"ERROR: cannot execute INSERT in a read-only transaction (SQLSTATE 25006)","order":"o_{n}"}',
            **every(start, -5, 8),
            pods=pods_of(oa),
        ),
        ev(
            "backoffice",
            "info",
            "backoffice-vm-02: refund r_{n} written to orders-db.corp.internal (orders-prod.c9xk2l.eu-west-1.rds.amazonaws.com)",
            **every(-3000, -60, 240),
        ),
        *herrings(
            start,
            victim=(
                "mobile-gateway",
                "ERROR POST /orders -> 500 from order-service (user u_{n}, app 6.2.{ms})",
                6,
            ),
            release=(
                "order-service",
                '{"level":"info","msg":"order-service 5.12.0 started (tip suggestions)"}',
                -1880,
            ),
            stale=(
                "order-service",
                '{"level":"error","msg":"db: too many clients already","pool":"primary"}',
            ),
            noisy=("courier-dispatch", "WARN eta model response 2{ms}ms above SLO"),
        ),
    ]
    return kube_case(
        seed=665,
        start=start,
        inc=alert(
            "[FIRING] OrderCreateErrors > 10% (order-service)",
            "orders",
            start,
            {"alertname": "OrderCreateErrors", "namespace": ns, "severity": "page"},
        ),
        exp=expected(
            "dns",
            [
                "configmap/coredns",
                "coredns",
                "hosts",
                "orders-db.corp.internal",
                "10.40.8.21",
                "MIG-77",
                "pg-orders-01",
            ],
            sig,
            "For MIG-77 a hosts block in the CoreDNS Corefile pins orders-db.corp.internal to the old server 10.40.8.21 (pg-orders-01). Route 53 already points the name at RDS, so VMs write to the new primary, but every pod resolves the override. At cutover the old server became a read-only replica; order-service's pool reconnected to it and every INSERT fails with a read-only transaction error. The order-service release (same time) is not the cause, nor the old connection-limit errors or the ETA warnings; the mobile-gateway 500s are the victim.",
            [
                f"order-service: {sig}",
                "coredns ConfigMap: hosts { 10.40.8.21 orders-db.corp.internal }",
                "backoffice VMs write to orders-db via Route 53 (RDS) fine",
            ],
            "Remove the hosts block from the coredns ConfigMap (reload picks it up within a minute) and recycle order-service's pool; replay the failed orders from the gateway logs.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "order-service",
                pods_of(oa),
                ['{"level":"info","msg":"GET /v1/orders 200","ms":{ms}}'],
                8,
            )
        ],
        evs=evs,
        services=[svc("order-service", 70, {"500": (0.001, 0.62)}, (0.06, 0.05))],
        gauges=[
            gauge(
                "pg_stat_activity_count",
                {"instance": "pg-orders-01", "state": "active"},
                3,
                48,
                -2200,
            ),
            gauge(
                "rds_database_connections", {"db_instance": "orders-prod"}, 52, 7, -2200
            ),
        ],
        books={
            "order-create-errors.md": runbook(
                "Order creation errors",
                "Order creation fails when the primary pool is exhausted. Restart order-service pods one at a time and raise max_connections on the database if it happens again.",
            )
        },
    )


# =================================================================================================
# 10. Infrastructure, a startup taint nobody removes: PR platform#640 adds a Graviton (arm64)
#     Karpenter NodePool with Cilium's usual startup taint `node.cilium.io/agent-not-ready`. The
#     Cilium DaemonSet still has `nodeSelector: kubernetes.io/arch: amd64` from the days of an
#     amd64-only image, so no agent starts on the new nodes and the taint stays. Karpenter treats
#     startup taints as temporary and keeps launching arm64 nodes; the evening scale-out of web is
#     Pending. The scheduler's message says it; the nodes are Ready.
# =================================================================================================

NODES_ARM = [
    ("ip-10-33-1-41.eu-central-1.compute.internal", "Ready", "10.33.1.41"),
    ("ip-10-33-2-58.eu-central-1.compute.internal", "Ready", "10.33.2.58"),
    ("ip-10-33-3-77.eu-central-1.compute.internal", "Ready", "10.33.3.77"),
    ("ip-10-33-1-190.eu-central-1.compute.internal", "Ready", "10.33.1.190", "38m"),
    ("ip-10-33-2-211.eu-central-1.compute.internal", "Ready", "10.33.2.211", "31m"),
]


@scenario(
    "cilium-agent-not-ready-taint-arm64-pool", ("infrastructure", "FailedScheduling")
)
def cilium_agent_not_ready_taint_arm64_pool() -> dict[str, Any]:
    start = -1700
    ns = "web"
    running_pods = [
        (f"r{i}u{i}n", "1/1", "Running", "0", "6h", i % 3) for i in range(6)
    ]
    pending = [(f"p{i}e{i}d", "0/1", "Pending", "0", "34m", -1) for i in range(6)]
    web = app(
        "web",
        image="ghcr.io/lumenbooks/web:2026.12.07",
        port=3000,
        rs="7d8c9b6f5a",
        cluster_ip="172.20.3.10",
        pods=running_pods + pending,
    )
    k8s = namespace(ns, NODES_ARM, [web], seed=666)
    arm = [NODES_ARM[3][0], NODES_ARM[4][0]]
    sig = "untolerated taint {node.cilium.io/agent-not-ready: true}"
    sched = f"0/5 nodes are available: 2 node(s) had {sig}, 3 Insufficient cpu. preemption: 0/5 nodes are available: 2 Preemption is not helpful for scheduling, 3 No preemption victims found for incoming pod."
    k8s["kubectl get nodes -o wide"] = "\n".join(
        line.replace("x86_64", "aarch64") if any(a in line for a in arm) else line
        for line in k8s["kubectl get nodes -o wide"].split("\n")
    )
    k8s[f"kubectl describe nodes {arm[0]}"] = (
        f"Name:               {arm[0]}\n"
        "Roles:              <none>\n"
        "Labels:             karpenter.sh/nodepool=general-arm64\n"
        "                    kubernetes.io/arch=arm64\n"
        "                    node.kubernetes.io/instance-type=c7g.2xlarge\n"
        "Annotations:        karpenter.sh/nodepool-hash: 1180563842871283745\n"
        "CreationTimestamp:  38m ago\n"
        "Taints:             node.cilium.io/agent-not-ready=true:NoExecute\n"
        "Unschedulable:      false\n"
        "Conditions:\n"
        "  Type             Status  Reason                       Message\n"
        "  ----             ------  ------                       -------\n"
        "  MemoryPressure   False   KubeletHasSufficientMemory   kubelet has sufficient memory available\n"
        "  DiskPressure     False   KubeletHasNoDiskPressure     kubelet has no disk pressure\n"
        "  PIDPressure      False   KubeletHasSufficientPID      kubelet has sufficient PID available\n"
        "  Ready            True    KubeletReady                 kubelet is posting ready status\n"
        "Non-terminated Pods:  (1 in total)\n"
        "  Namespace    Name                          CPU Requests  Memory Requests\n"
        "  kube-system  ebs-csi-node-7xk2p            30m (0%)      120Mi (0%)\n"
        "Events:\n"
        "  Type    Reason      Age   From       Message\n"
        "  ----    ------      ----  ----       -------\n"
        "  Normal  Registered  38m   karpenter  Status condition transitioned, Type: Registered, Status: True\n"
        "  Normal  DisruptionBlocked  38m  karpenter  Node is not initialized (waiting on startup taints: node.cilium.io/agent-not-ready)\n"
    )
    k8s["kubectl get daemonsets -n kube-system -o wide"] = table(
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
                "cilium",
                "3",
                "3",
                "3",
                "3",
                "3",
                "kubernetes.io/arch=amd64",
                "2y",
                "cilium-agent",
                "quay.io/cilium/cilium:v1.16.4",
                "k8s-app=cilium",
            ],
            [
                "ebs-csi-node",
                "5",
                "5",
                "5",
                "5",
                "5",
                "kubernetes.io/os=linux",
                "2y",
                "ebs-plugin,node-driver-registrar",
                "…/aws-ebs-csi-driver:v1.37.0",
                "app=ebs-csi-node",
            ],
        ]
    )
    pod = "web-7d8c9b6f5a-p0e0d"
    k8s[f"kubectl describe pods {pod} -n {ns}"] = (
        f"Name:             {pod}\n"
        f"Namespace:        {ns}\n"
        "Node:             <none>\n"
        "Labels:           app=web\n"
        "                  pod-template-hash=7d8c9b6f5a\n"
        "Status:           Pending\n"
        "Controlled By:    ReplicaSet/web-7d8c9b6f5a\n"
        "Containers:\n"
        "  web:\n"
        "    Image:      ghcr.io/lumenbooks/web:2026.12.07\n"
        "    Requests:\n"
        "      cpu:     1\n"
        "      memory:  1Gi\n"
        "Conditions:\n"
        "  Type           Status\n"
        "  PodScheduled   False\n"
        "Node-Selectors:  <none>\n"
        "Tolerations:     node.kubernetes.io/not-ready:NoExecute op=Exists for 300s\n"
        "                 node.kubernetes.io/unreachable:NoExecute op=Exists for 300s\n"
        "Events:\n"
        "  Type     Reason            Age                 From                Message\n"
        "  ----     ------            ----                ----                -------\n"
        f"  Warning  FailedScheduling  2m (x9 over 34m)    default-scheduler   {sched}\n"
        "  Normal   Nominated         31m                 karpenter           Pod should schedule on: nodeclaim/general-arm64-8kq2z\n"
    )
    k8s[f"kubectl get horizontalpodautoscalers -n {ns}"] = hpa_table(
        [["web", "Deployment/web", "cpu: 96%/60%", "4", "30", "12", "1y"]]
    )
    evs = [
        ev(
            "argocd",
            "info",
            "app karpenter-pools: synced (PR platform#640 'Graviton general-arm64 pool, 20% cheaper'): nodepool.karpenter.sh/general-arm64 created (startupTaints node.cilium.io/agent-not-ready=true:NoExecute, weight 50)",
            at=-86400,
        ),
        ev(
            "karpenter",
            "info",
            'found provisionable pod(s), computed new nodeclaim(s) to fit pod(s), nodepool="general-arm64", instance-types="c7g.2xlarge"',
            **every(-2280, -1860, 420),
        ),
        ev(
            "karpenter",
            "info",
            'nodeclaim not initialized, waiting on startup taints "node.cilium.io/agent-not-ready", nodepool="general-arm64"',
            **every(-2100, -30, 180),
        ),
        ev(
            "kube-scheduler",
            "warn",
            f"pod web/web-7d8c9b6f5a-*: {sched}",
            **every(-2040, -20, 120),
        ),
        ev(
            "web",
            "warn",
            "[web] event loop lag 3{ms}ms, 1{ms} in-flight requests",
            **every(start, -10, 30),
            pods=pods_of(web)[:6],
        ),
        *herrings(
            start,
            victim=(
                "cdn",
                "ERROR origin web.lumenbooks.de responded 504 for /books/{n} (edge FRA-2)",
                7,
            ),
            release=("web", "[web] web 2026.12.07 ready (book previews v2)", -21000),
            stale=(
                "web",
                "[web] ECONNRESET talking to recommendations (socket hang up)",
            ),
            noisy=(
                "recommendations",
                "WARN feature 'also_bought' cache rebuild took {ms}s",
            ),
        ),
    ]
    return kube_case(
        seed=666,
        start=start,
        inc=alert(
            "[FIRING] WebLatencyHigh p95 > 2s",
            "web shop",
            start,
            {"alertname": "WebLatencyHigh", "namespace": ns, "severity": "page"},
        ),
        exp=expected(
            "platform",
            [
                "node.cilium.io/agent-not-ready",
                "daemonset/cilium",
                "cilium",
                "nodepool/general-arm64",
                "general-arm64",
                "PR platform#640",
                "kubernetes.io/arch=amd64",
            ],
            sig,
            "PR platform#640 added the arm64 NodePool general-arm64 with Cilium's startup taint node.cilium.io/agent-not-ready. The cilium DaemonSet still selects kubernetes.io/arch=amd64 only, so no agent runs on the new nodes and nothing removes the taint. Karpenter treats it as a startup taint and keeps nominating those nodes, so the evening scale-out of web (HPA wants 12) stays Pending with 6 pods; the running pods saturate and the CDN gets 504s. The web release, the old recommendations resets and the cache rebuild warnings are not the cause.",
            [
                f"pending web pods: FailedScheduling, 2 node(s) had {sig}",
                "daemonset cilium: NODE SELECTOR kubernetes.io/arch=amd64, 3 desired of 5 nodes",
                "karpenter: nodeclaim not initialized, waiting on startup taints",
            ],
            "Remove the arch nodeSelector from the cilium DaemonSet (its image is multi-arch) so agents start on arm64 nodes; until then set the arm64 pool's weight to 0 or limit it so Karpenter launches amd64 nodes.",
        ),
        k8s=k8s,
        bgs=[bg("web", pods_of(web)[:6], ["[web] GET /books/{n} 200 {ms}ms"], 8)],
        evs=evs,
        services=[svc("web", 600, {"504": (0.001, 0.05)}, (0.3, 2.4))],
        gauges=[
            gauge(
                "kube_horizontalpodautoscaler_status_desired_replicas",
                {"horizontalpodautoscaler": "web"},
                6,
                12,
                -2100,
            ),
            gauge(
                "kube_pod_status_phase",
                {"namespace": ns, "phase": "Pending"},
                0,
                6,
                -2040,
            ),
        ],
        books={
            "web-latency.md": runbook(
                "Web shop latency",
                "High latency on web is usually the recommendations service. Disable the recommendations widget with the feature flag recs_enabled and watch p95 recover.",
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
# 11. Service routing, internalTrafficPolicy Local: the shared `service` library chart 2.0 (PR
#     charts#58) maps the old value `topologyAware: true` to `internalTrafficPolicy: Local` instead
#     of topology hints. thumbnail-api has that value and two pods on two of four nodes; upload-api
#     pods on the other two nodes have no local endpoint and kube-proxy drops their packets, so
#     about half of the uploads time out waiting for a thumbnail. Nothing is down; the Service's
#     describe and where the failing callers run say it.
# =================================================================================================

NODES_MEDIA = [
    ("ip-10-81-1-15.us-east-2.compute.internal", "Ready", "10.81.1.15"),
    ("ip-10-81-2-66.us-east-2.compute.internal", "Ready", "10.81.2.66"),
    ("ip-10-81-3-120.us-east-2.compute.internal", "Ready", "10.81.3.120"),
    ("ip-10-81-1-201.us-east-2.compute.internal", "Ready", "10.81.1.201"),
]


@scenario(
    "internal-traffic-policy-local-drops-calls-off-node",
    ("service_routing", "InternalTrafficPolicyLocal"),
)
def internal_traffic_policy_local_drops_calls_off_node() -> dict[str, Any]:
    start = -1600
    ns = "media"
    th = app(
        "thumbnail-api",
        image="ghcr.io/snapfolio/thumbnail-api:3.8.0",
        port=8080,
        rs="6a7b8c9d5e",
        cluster_ip="172.20.44.71",
        service_port="80/TCP",
        pods=[
            ("k1j2h", "1/1", "Running", "0", "29m", 0),
            ("g3f4d", "1/1", "Running", "0", "29m", 1),
        ],
    )
    up = app(
        "upload-api",
        image="ghcr.io/snapfolio/upload-api:11.2.1",
        port=8080,
        rs="59e8d7c6b4",
        cluster_ip="172.20.44.60",
        pods=[
            ("s1a2q", "1/1", "Running", "0", "3d", 0),
            ("w3e4r", "1/1", "Running", "0", "3d", 1),
            ("t5y6u", "1/1", "Running", "0", "3d", 2),
            ("i7o8p", "1/1", "Running", "0", "3d", 3),
        ],
    )
    k8s = namespace(ns, NODES_MEDIA, [th, up], seed=667)
    sig = "internalTrafficPolicy: Cluster -> Local"
    k8s[f"kubectl describe services thumbnail-api -n {ns}"] = (
        "Name:                     thumbnail-api\n"
        f"Namespace:                {ns}\n"
        "Labels:                   app=thumbnail-api\n"
        "                          helm.sh/chart=service-2.0.1\n"
        "Annotations:              meta.helm.sh/release-name: thumbnail-api\n"
        "Selector:                 app=thumbnail-api\n"
        "Type:                     ClusterIP\n"
        "IP Family Policy:         SingleStack\n"
        "IP:                       172.20.44.71\n"
        "Port:                     http  80/TCP\n"
        "TargetPort:               8080/TCP\n"
        f"Endpoints:                {endpoints_of(k8s, ns, 'thumbnail-api')}\n"
        "Session Affinity:         None\n"
        "Internal Traffic Policy:  Local\n"
        "Events:                   <none>\n"
    )
    off_node = ["upload-api-59e8d7c6b4-t5y6u", "upload-api-59e8d7c6b4-i7o8p"]
    on_node = ["upload-api-59e8d7c6b4-s1a2q", "upload-api-59e8d7c6b4-w3e4r"]
    evs = [
        ev(
            "argocd",
            "info",
            f"app thumbnail-api: synced to e4b1c7a (PR charts#58 'service library chart 2.0'): service/thumbnail-api configured ({sig}), deployment.apps/thumbnail-api configured",
            at=-1760,
        ),
        ev(
            "argocd",
            "info",
            f"app thumbnail-api: Synced Healthy; last sync diff service/thumbnail-api {sig}",
            **every(-2400, -60, 600),
        ),
        ev(
            "upload-api",
            "error",
            '{"level":"error","msg":"thumbnail request failed","err":"Post \\"http://thumbnail-api.media/v1/thumbs\\": context deadline exceeded (Client.Timeout exceeded while awaiting headers)","upload":"up_{n}"}',
            **every(start, -5, 6),
            pods=off_node,
        ),
        ev(
            "upload-api",
            "info",
            '{"level":"info","msg":"thumbnail ok","ms":{ms},"upload":"up_{n}"}',
            **every(-3600, -5, 20),
            pods=on_node,
        ),
        ev(
            "thumbnail-api", "info", "thumbnail-api 3.8.0 ready (AVIF output)", at=-1740
        ),
        *herrings(
            start,
            victim=(
                "web-app",
                "[web] upload failed for user u_{n}: 504 from upload-api after 30s",
                9,
            ),
            release=(
                "upload-api",
                '{"level":"info","msg":"upload-api 11.2.1 started (resumable uploads for iOS)"}',
                -260000,
            ),
            stale=(
                "thumbnail-api",
                "ERROR libvips: VipsJpeg: out of order read at line {n}",
            ),
            noisy=(
                "s3-events",
                "WARN SQS queue media-events ApproximateAgeOfOldestMessage {ms}s",
            ),
        ),
    ]
    return kube_case(
        seed=667,
        start=start,
        inc=ticket(
            "Users say photo uploads hang about half the time",
            "uploads",
            start,
        ),
        exp=expected(
            "connect",
            [
                "service/thumbnail-api",
                "thumbnail-api",
                "internalTrafficPolicy",
                "PR charts#58",
                "service-2.0.1",
                "topologyAware",
            ],
            sig,
            "PR charts#58 moved thumbnail-api to the service library chart 2.0, which turns the old value topologyAware: true into internalTrafficPolicy: Local. thumbnail-api has two pods on two of the four nodes; upload-api pods on the other two nodes have no node-local endpoint, kube-proxy drops their traffic and those uploads time out, while pods next to a thumbnail-api pod work. The thumbnail-api 3.8.0 rollout (same sync) is not the cause; the web-app 504s are the victim; the old libvips errors and the SQS age warnings are noise.",
            [
                "kubectl describe services thumbnail-api: Internal Traffic Policy: Local",
                "upload-api timeouts only from pods on the two nodes without a thumbnail-api pod",
                f"argocd: {sig} in the chart 2.0 sync",
            ],
            "Set internalTrafficPolicy back to Cluster (fix the library chart's mapping; use trafficDistribution/topology hints for locality), then check other services that had topologyAware: true.",
        ),
        k8s=k8s,
        bgs=[bg("thumbnail-api", pods_of(th), ["INFO POST /v1/thumbs 200 {ms}ms"], 9)],
        evs=evs,
        services=[svc("upload-api", 40, {"504": (0.001, 0.45)}, (0.4, 9.0))],
        gauges=[
            gauge(
                "upload_api_thumbnail_timeouts_per_minute",
                {"service": "upload-api"},
                0,
                96,
                -1760,
            )
        ],
        books={
            "uploads-hang.md": runbook(
                "Uploads hang",
                "Hanging uploads are usually S3 multipart uploads stuck behind the VPC endpoint. Check the S3 gateway endpoint metrics and restart upload-api to clear stuck multipart sessions.",
            )
        },
    )


# =================================================================================================
# 12. Service routing, an Ingress canary left at weight 100: to end experiment EXP-31 last month,
#     the old canary Ingress `web-canary` (ingress-nginx canary annotations) was set to weight 100
#     "to promote it" (CHG-512) and the winning code was merged into web; the canary Ingress and
#     its Deployment (2026.11.2) were never removed. Every request since goes to the canary. Today's
#     release of web adds the gift-card pages; they answer 404 because web never gets traffic.
# =================================================================================================


@scenario(
    "ingress-canary-weight-100-left-on-old-experiment",
    ("service_routing", "IngressWrongBackend"),
)
def ingress_canary_weight_100_left_on_old_experiment() -> dict[str, Any]:
    start = -2200
    ns = "storefront"
    web = app(
        "web",
        image="ghcr.io/giftly/web:2026.12.8",
        port=3000,
        rs="8c7b6a5d4f",
        cluster_ip="172.20.9.10",
        pods=[
            ("h8g7f", "1/1", "Running", "0", "52m", 0),
            ("d6s5a", "1/1", "Running", "0", "52m", 1),
            ("p4o3i", "1/1", "Running", "0", "52m", 2),
        ],
    )
    can = app(
        "web-canary",
        image="ghcr.io/giftly/web:2026.11.2-exp31",
        port=3000,
        rs="5f4e3d2c1b",
        cluster_ip="172.20.9.11",
        age="33d",
        pods=[
            ("m2n1b", "1/1", "Running", "0", "33d", 1),
            ("v9c8x", "1/1", "Running", "0", "33d", 2),
        ],
    )
    k8s = namespace(ns, NODES_FRA, [web, can], seed=668)
    sig = "storefront-web-canary-3000"
    k8s[f"kubectl get ingresses -n {ns}"] = table(
        [
            ["NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"],
            [
                "web",
                "nginx",
                "www.giftly.de",
                "a1f2c3d4e5.elb.eu-central-1.amazonaws.com",
                "80, 443",
                "2y",
            ],
            [
                "web-canary",
                "nginx",
                "www.giftly.de",
                "a1f2c3d4e5.elb.eu-central-1.amazonaws.com",
                "80, 443",
                "33d",
            ],
        ]
    )
    k8s[f"kubectl describe ingresses web-canary -n {ns}"] = (
        "Name:             web-canary\n"
        f"Namespace:        {ns}\n"
        "Ingress Class:    nginx\n"
        "Rules:\n"
        "  Host           Path  Backends\n"
        "  ----           ----  --------\n"
        "  www.giftly.de\n"
        f"                 /   web-canary:3000 ({endpoints_of(k8s, ns, 'web-canary')})\n"
        "Annotations:      giftly.io/experiment: EXP-31\n"
        "                  giftly.io/changed-by: CHG-512 promote canary\n"
        "                  nginx.ingress.kubernetes.io/canary: true\n"
        "                  nginx.ingress.kubernetes.io/canary-weight: 100\n"
        "Events:\n"
        "  Type    Reason  Age   From                      Message\n"
        "  ----    ------  ----  ----                      -------\n"
        "  Normal  Sync    52m   nginx-ingress-controller  Scheduled for sync\n"
    )
    k8s[f"kubectl describe ingresses web -n {ns}"] = (
        "Name:             web\n"
        f"Namespace:        {ns}\n"
        "Ingress Class:    nginx\n"
        "Rules:\n"
        "  Host           Path  Backends\n"
        "  ----           ----  --------\n"
        "  www.giftly.de\n"
        f"                 /   web:3000 ({endpoints_of(k8s, ns, 'web')})\n"
        "Annotations:      nginx.ingress.kubernetes.io/proxy-body-size: 8m\n"
        "Events:\n"
        "  Type    Reason  Age   From                      Message\n"
        "  ----    ------  ----  ----                      -------\n"
        "  Normal  Sync    52m   nginx-ingress-controller  Scheduled for sync\n"
    )
    evs = [
        ev(
            "change-log",
            "info",
            "CHG-512 EXP-31 wrap-up: ingress web-canary canary-weight 0 -> 100 (promote), merge exp31 into main; cleanup ticket WEB-2291 open",
            at=-2851200,
        ),
        ev(
            "argocd",
            "info",
            "app storefront: synced web 2026.12.8 (gift cards: /gift-cards, /api/gift-cards)",
            at=-3120,
        ),
        ev(
            "ingress-nginx",
            "info",
            f'10.68.0.{{n}} - - "GET /gift-cards HTTP/2.0" 404 1{{ms}} "-" "Mozilla/5.0" 61 0.0{{ms}} [{sig}] [] {endpoints_of(k8s, ns, "web-canary").split(",")[0]} 1{{ms}} 0.0{{ms}} 404',
            **every(-3000, -5, 12),
        ),
        ev(
            "ingress-nginx",
            "info",
            f'10.68.0.{{n}} - - "GET /product/{{n}} HTTP/2.0" 200 3{{ms}} "-" "Mozilla/5.0" 58 0.0{{ms}} [{sig}] [] {endpoints_of(k8s, ns, "web-canary").split(",")[1]} 3{{ms}} 0.0{{ms}} 200',
            **every(-3600, -5, 10),
        ),
        ev(
            "web-canary",
            "warn",
            "[web] 404 no route for /api/gift-cards/balance (build 2026.11.2-exp31)",
            **every(start, -10, 25),
            pods=pods_of(can),
        ),
        *herrings(
            start,
            victim=(
                "marketing-site",
                "ERROR campaign link check failed: https://www.giftly.de/gift-cards -> 404 (campaign xmas-giftcards)",
                60,
            ),
            release=("web", "[web] web 2026.12.8 ready on :3000 (gift cards)", -3100),
            stale=(
                "web",
                "[web] Error: connect ECONNREFUSED 172.20.9.40:6379 (session store)",
            ),
            noisy=("image-resizer", "WARN resize queue {ms} jobs, workers 4/4 busy"),
        ),
    ]
    return kube_case(
        seed=668,
        start=start,
        inc=ticket(
            "Marketing: the gift card page we launched this morning shows 'page not found'",
            "web shop",
            start,
        ),
        exp=expected(
            "http",
            [
                "ingress/web-canary",
                "web-canary",
                "canary-weight",
                "nginx.ingress.kubernetes.io/canary-weight",
                "EXP-31",
                "CHG-512",
                "deployment/web-canary",
            ],
            sig,
            "The canary Ingress web-canary from experiment EXP-31 was set to canary-weight 100 in CHG-512 and never removed, so ingress-nginx sends every request for www.giftly.de to the web-canary Deployment running the month-old build 2026.11.2-exp31. Today's web release with the gift-card pages is healthy but receives no traffic, so /gift-cards answers 404. The release is the obvious suspect and not the cause; the campaign link failures are the victim; the old session-store error and the resize queue warnings are noise.",
            [
                f"ingress-nginx access log: every request upstream [{sig}]",
                "kubectl describe ingresses web-canary: canary true, canary-weight 100, CHG-512",
                "web-canary runs ghcr.io/giftly/web:2026.11.2-exp31 (33d)",
            ],
            "Delete the web-canary Ingress (or set canary-weight 0) and scale down web-canary; close WEB-2291 with a check that canary Ingresses are removed after experiments.",
        ),
        k8s=k8s,
        bgs=[bg("web-canary", pods_of(can), ["[web] GET /product/{n} 200 {ms}ms"], 8)],
        evs=evs,
        services=[svc("web-canary", 180, {"404": (0.01, 0.04)}, (0.12, 0.12))],
        gauges=[
            gauge(
                "nginx_ingress_controller_requests_per_second",
                {"ingress": "web", "namespace": ns},
                0,
                0,
                start,
            ),
            gauge(
                "nginx_ingress_controller_requests_per_second",
                {"ingress": "web-canary", "namespace": ns},
                175,
                182,
                start,
            ),
        ],
        books={
            "page-not-found.md": runbook(
                "New page shows 404",
                "A new page returning 404 right after a release means the CDN still caches the old 404. Purge the path in the CDN and wait five minutes.",
            )
        },
    )


# =================================================================================================
# 13. Service routing, a NetworkPolicy whose `from` selector misses a relabelled caller: ledger-api's
#     policy admits `app=billing-worker` from the billing namespace. PR charts#212 moved
#     billing-worker to the common chart, which labels pods `app.kubernetes.io/name` and drops the
#     old `app` label. Calico denies billing-worker's connections to ledger-api; every other caller
#     (payments-api, reconciler) still works. billing-worker retries and its queue grows; invoices
#     stop being posted to the ledger. The Calico flow log names the policy.
# =================================================================================================


@scenario(
    "netpol-from-selector-misses-relabelled-billing-worker",
    ("service_routing", "NetworkPolicyDenied"),
)
def netpol_from_selector_misses_relabelled_billing_worker() -> dict[str, Any]:
    start = -2000
    ns = "ledger"
    la = app(
        "ledger-api",
        image="ghcr.io/invoicy/ledger-api:12.0.4",
        port=8443,
        rs="7a6b5c4d3e",
        cluster_ip="172.20.66.10",
        pods=[
            ("e1r2t", "1/1", "Running", "0", "12d", 0),
            ("y3u4i", "1/1", "Running", "0", "12d", 1),
        ],
    )
    k8s = namespace(
        ns, NODES_IAD, [la], seed=669, extra_namespaces=("billing", "payments")
    )
    sig = "denied by ledger/ledger-api-ingress"
    k8s[f"kubectl get networkpolicies -n {ns}"] = table(
        [
            ["NAME", "POD-SELECTOR", "AGE"],
            ["default-deny", "<none>", "2y"],
            ["ledger-api-ingress", "app=ledger-api", "2y"],
        ]
    )
    k8s[f"kubectl describe networkpolicies ledger-api-ingress -n {ns}"] = (
        "Name:         ledger-api-ingress\n"
        f"Namespace:    {ns}\n"
        "Created on:   2024-10-02 09:14:51 +0000 UTC\n"
        "Spec:\n"
        "  PodSelector:     app=ledger-api\n"
        "  Allowing ingress traffic:\n"
        "    To Port: 8443/TCP\n"
        "    From:\n"
        "      NamespaceSelector: kubernetes.io/metadata.name=billing\n"
        "      PodSelector: app=billing-worker\n"
        "    From:\n"
        "      NamespaceSelector: kubernetes.io/metadata.name=payments\n"
        "      PodSelector: app in (payments-api,reconciler)\n"
        "  Not affecting egress traffic\n"
        "  Policy Types: Ingress\n"
    )
    k8s["kubectl get pods -n billing -o wide --show-labels"] = base.pods(
        [
            (
                "billing-worker-6c8d9e7f5a-b5n6m",
                "1/1",
                "Running",
                "0",
                "44m",
                "10.69.1.83",
                NODES_IAD[0][0],
                "app.kubernetes.io/instance=billing-worker,app.kubernetes.io/name=billing-worker,pod-template-hash=6c8d9e7f5a",
            ),
            (
                "billing-worker-6c8d9e7f5a-c7v8b",
                "1/1",
                "Running",
                "0",
                "44m",
                "10.69.2.120",
                NODES_IAD[1][0],
                "app.kubernetes.io/instance=billing-worker,app.kubernetes.io/name=billing-worker,pod-template-hash=6c8d9e7f5a",
            ),
            (
                "billing-api-58b7c6d9e4-x9z8a",
                "1/1",
                "Running",
                "0",
                "6d",
                "10.69.3.41",
                NODES_IAD[2][0],
                "app=billing-api,pod-template-hash=58b7c6d9e4",
            ),
        ]
    )
    flow = f"calico-node: flow {{action=deny}} src=billing/billing-worker-6c8d9e7f5a-b5n6m (app.kubernetes.io/name=billing-worker) dst=ledger/ledger-api:8443 {sig}"
    evs = [
        ev(
            "argocd",
            "info",
            "app billing-worker: synced to 0fa3d92 (PR charts#212 'move billing-worker to common chart 1.4'): deployment.apps/billing-worker configured (labels app -> app.kubernetes.io/name)",
            at=-2640,
        ),
        ev("calico", "warn", flow, **every(-2600, -10, 30)),
        ev(
            "billing-worker",
            "error",
            '{"level":"error","msg":"post invoice to ledger failed","err":"dial tcp 172.20.66.10:8443: i/o timeout","invoice":"inv_{n}","attempt":3}',
            **every(-2580, -5, 9),
            pods=["billing-worker-6c8d9e7f5a-b5n6m", "billing-worker-6c8d9e7f5a-c7v8b"],
        ),
        ev(
            "billing-worker",
            "warn",
            '{"level":"warn","msg":"queue backlog","queue":"invoices-to-post","depth":3{ms}}',
            **every(start, -30, 120),
            pods=["billing-worker-6c8d9e7f5a-b5n6m"],
        ),
        ev(
            "ledger-api",
            "info",
            '{"level":"info","msg":"POST /v1/entries 201","caller":"payments-api","ms":{ms}}',
            **every(-3600, -5, 15),
            pods=pods_of(la),
        ),
        *herrings(
            start,
            victim=(
                "finance-dashboard",
                "ERROR DailyRevenueCheck: invoiced total 0.00 EUR for today does not match billing-api (1{ms}0 invoices)",
                120,
            ),
            release=(
                "ledger-api",
                '{"level":"info","msg":"ledger-api 12.0.4 started (faster trial balance)"}',
                -1036800,
            ),
            stale=(
                "ledger-api",
                '{"level":"error","msg":"postgres: deadlock detected","table":"entries"}',
            ),
            noisy=(
                "billing-api",
                "WARN tax rates cache stale for region BR, refreshing",
            ),
        ),
    ]
    return kube_case(
        seed=669,
        start=start,
        inc=ticket(
            "Finance: today's invoices aren't showing up in the ledger",
            "ledger",
            start,
        ),
        exp=expected(
            "connect",
            [
                "networkpolicy/ledger-api-ingress",
                "ledger-api-ingress",
                "billing-worker",
                "deployment/billing-worker",
                "PR charts#212",
                "app=billing-worker",
                "app.kubernetes.io/name",
            ],
            sig,
            "ledger-api's NetworkPolicy ledger-api-ingress admits pods labelled app=billing-worker from the billing namespace. PR charts#212 moved billing-worker to the common chart, whose pods carry app.kubernetes.io/name=billing-worker and no app label, so Calico now denies billing-worker's connections to ledger-api:8443; invoices are not posted and pile up in the queue, while payments-api and reconciler still reach ledger-api. The finance dashboard error is the victim; the ledger-api release, the old deadlocks and the tax cache warnings are not the cause.",
            [
                f"calico flow log: action=deny src billing-worker dst ledger-api:8443 {sig}",
                "billing-worker pods labelled app.kubernetes.io/name only (no app=)",
                "ledger-api still serves payments-api",
            ],
            "Change the policy's podSelector to app.kubernetes.io/name=billing-worker (or add the app label back in the chart) and let billing-worker drain its queue; grep other policies for selectors on the old label.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "ledger-api",
                pods_of(la),
                ['{"level":"info","msg":"GET /v1/balances 200","ms":{ms}}'],
                8,
            )
        ],
        evs=evs,
        services=[svc("ledger-api", 50, {"500": (0.0005, 0.0005)}, (0.05, 0.05))],
        gauges=[
            gauge(
                "billing_worker_queue_depth",
                {"queue": "invoices-to-post"},
                12,
                3400,
                -2600,
            ),
            gauge(
                "calico_denied_packets_per_second",
                {"policy": "ledger/ledger-api-ingress"},
                0,
                14,
                -2600,
            ),
        ],
        books={
            "ledger-missing-invoices.md": runbook(
                "Invoices missing from the ledger",
                "Missing invoices mean the nightly ledger-sync job failed. Re-run the ledger-sync CronJob for the date and check its logs for rejected entries.",
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
# 14. Performance, CPU throttling of a JVM that sees the whole node: PR eks#77 moved the general
#     node group to Amazon Linux 2023, which mounts cgroup v2. pricing-engine still runs on an old
#     JDK 8 (8u292) base image that predates cgroup v2 support, so the JVM sees the node's 96 CPUs
#     instead of its 4-CPU limit: 65 parallel GC threads and a 95-thread common pool burn the quota
#     in bursts; CFS throttles the container most periods and p99 quadruples. Nothing errors; the
#     startup line and the throttling ratio say it.
# =================================================================================================


@scenario(
    "jvm8-on-cgroup-v2-nodes-sees-96-cpus-throttled", ("performance", "CPUThrottling")
)
def jvm8_on_cgroup_v2_nodes_sees_96_cpus_throttled() -> dict[str, Any]:
    start = -2500
    ns = "pricing"
    pe = app(
        "pricing-engine",
        image="registry.internal.tripsy.io/pricing-engine:8.17.2",
        port=8080,
        rs="6e5d4c3b2a",
        cluster_ip="172.20.27.10",
        pods=[
            ("n4m5b", "1/1", "Running", "0", "3h", 0),
            ("x6z7c", "1/1", "Running", "0", "3h", 1),
            ("a8s9d", "1/1", "Running", "0", "3h", 2),
            ("f1g2h", "1/1", "Running", "0", "3h", 0),
        ],
    )
    fs = app(
        "fare-search",
        image="registry.internal.tripsy.io/fare-search:30.1.0",
        port=8080,
        rs="7d6c5b4a39",
        cluster_ip="172.20.27.20",
        pods=[
            ("q3w4e", "1/1", "Running", "0", "3h", 1),
            ("r5t6y", "1/1", "Running", "0", "3h", 2),
        ],
    )
    nodes = [(n[0], n[1], n[2], "3h") for n in NODES_PDX]
    k8s = namespace(ns, nodes, [pe, fs], seed=670)
    sig = "availableProcessors=96"
    pod = "pricing-engine-6e5d4c3b2a-n4m5b"
    k8s[f"kubectl logs {pod} -n {ns}"] = podlog(
        [
            (-10700, 'openjdk version "1.8.0_292" (build 1.8.0_292-b10)'),
            (
                -10699,
                f"INFO  PricingApp - runtime {sig} maxMemory=94.2g gc=ParallelGC parallelGCThreads=65 commonPoolParallelism=95",
            ),
            (-10690, "INFO  PricingApp - started on :8080 in 11.4 s"),
            (-60, "WARN  RequestTimer - slow quote: 1840 ms (fares=212, currency=EUR)"),
            (-20, "WARN  RequestTimer - slow quote: 2210 ms (fares=187, currency=USD)"),
        ]
    )
    k8s[f"kubectl describe pods {pod} -n {ns}"] = (
        f"Name:             {pod}\n"
        f"Namespace:        {ns}\n"
        f"Node:             {nodes[0][0]}/{nodes[0][2]}\n"
        "Labels:           app=pricing-engine\n"
        "                  pod-template-hash=6e5d4c3b2a\n"
        "Status:           Running\n"
        "QoS Class:        Guaranteed\n"
        "Containers:\n"
        "  pricing-engine:\n"
        "    Image:          registry.internal.tripsy.io/pricing-engine:8.17.2\n"
        "    State:          Running\n"
        "    Ready:          True\n"
        "    Restart Count:  0\n"
        "    Limits:\n"
        "      cpu:     4\n"
        "      memory:  8Gi\n"
        "    Requests:\n"
        "      cpu:     4\n"
        "      memory:  8Gi\n"
        "    Environment:\n"
        "      JAVA_OPTS:  -Xss512k -XX:+UseParallelGC\n"
        "Events:           <none>\n"
    )
    k8s[f"kubectl describe nodes {nodes[0][0]}"] = (
        f"Name:               {nodes[0][0]}\n"
        "Labels:             eks.amazonaws.com/nodegroup=general-al2023\n"
        "                    node.kubernetes.io/instance-type=m6i.24xlarge\n"
        "CreationTimestamp:  3h ago\n"
        "Taints:             <none>\n"
        "Capacity:\n"
        "  cpu:     96\n"
        "  memory:  387826280Ki\n"
        "  pods:    737\n"
        "System Info:\n"
        "  Kernel Version:             6.1.115-126.197.amzn2023.x86_64\n"
        "  OS Image:                   Amazon Linux 2023.6.20241121\n"
        "  Container Runtime Version:  containerd://1.7.23\n"
        "  Kubelet Version:            v1.31.2-eks-94953ac\n"
        "Events:  <none>\n"
    )
    evs = [
        ev(
            "terraform",
            "info",
            "aws_eks_node_group.general: replaced by general-al2023 (PR eks#77 'AL2 end of support: move to AL2023, cgroup v2')",
            at=-11200,
        ),
        ev(
            "pricing-engine",
            "info",
            f"INFO  PricingApp - runtime {sig} maxMemory=94.2g gc=ParallelGC parallelGCThreads=65 commonPoolParallelism=95",
            at=-10699,
            pods=[pod],
        ),
        ev(
            "pricing-engine",
            "info",
            f"INFO  HealthReporter - runtime {sig} heapUsed=3.1g threads=412 (limit cpu 4)",
            **every(start - 600, -30, 300),
            pods=pods_of(pe),
        ),
        ev(
            "pricing-engine",
            "warn",
            "WARN  RequestTimer - slow quote: 1{ms} ms (fares={ms}, currency=EUR)",
            **every(start, -5, 10),
            pods=pods_of(pe),
        ),
        ev(
            "pricing-engine",
            "info",
            "[GC (Allocation Failure) [PSYoungGen: 2457600K->{n}K(2785280K)] 5{ms}1234K->3{ms}2210K(8178688K), 0.4{ms} secs] [Times: user=9.81 sys=0.62, real=0.48 secs]",
            **every(start, -15, 45),
            pods=pods_of(pe),
        ),
        *herrings(
            start,
            victim=(
                "fare-search",
                "ERROR quote timeout: pricing-engine did not answer in 1500ms (search s_{n}, 1{ms} fares)",
                6,
            ),
            release=(
                "fare-search",
                "INFO fare-search 30.1.0 started (more carriers in results)",
                -11000,
            ),
            stale=(
                "pricing-engine",
                "ERROR FxClient - rates endpoint 503, using cached rates",
            ),
            noisy=("availability-cache", "WARN redis memory 81% of maxmemory"),
        ),
    ]
    return kube_case(
        seed=670,
        start=start,
        inc=alert(
            "[FIRING] FareSearchLatency p99 > 3s",
            "flight search",
            start,
            {
                "alertname": "FareSearchLatency",
                "service": "fare-search",
                "severity": "page",
            },
        ),
        exp=expected(
            "application",
            [
                "pricing-engine",
                "deployment/pricing-engine",
                "jdk 8u292",
                "cgroup v2",
                "PR eks#77",
                "general-al2023",
                "ActiveProcessorCount",
            ],
            sig,
            "PR eks#77 moved the nodes to Amazon Linux 2023 with cgroup v2. pricing-engine's JDK 8u292 does not read cgroup v2 limits, so the JVM sizes itself to the 96-CPU, 370 GB node: 65 parallel GC threads and a 95-thread common pool run against a 4-CPU limit, CFS throttles the container in most periods and GC pauses and quotes slow down. fare-search's timeouts are the victim; the fare-search release (more carriers), the old FX errors and the Redis memory warnings are not the cause.",
            [
                f"pricing-engine: runtime {sig} parallelGCThreads=65 under a 4-CPU limit",
                "container_cpu_cfs_throttled_periods ratio 0.03 -> 0.74 since the node group change",
                "nodes: general-al2023, m6i.24xlarge (96 CPUs)",
            ],
            "Move pricing-engine to a JDK with cgroup v2 support (8u372+ or 17), or set -XX:ActiveProcessorCount=4 and explicit heap/GC thread sizes; check other JDK 8 images.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "pricing-engine",
                pods_of(pe),
                ["INFO  access - POST /v2/quote 200 {ms}ms"],
                8,
            )
        ],
        evs=evs,
        services=[
            svc("pricing-engine", 380, {"500": (0.0005, 0.001)}, (0.09, 0.9)),
            svc("fare-search", 260, {"504": (0.001, 0.06)}, (0.4, 2.8)),
        ],
        gauges=[
            gauge(
                "container_cpu_cfs_throttled_periods_ratio",
                {"container": "pricing-engine", "namespace": ns},
                0.03,
                0.74,
                -11000,
            ),
            gauge(
                "container_cpu_usage_cores",
                {"container": "pricing-engine", "namespace": ns},
                2.1,
                3.95,
                -11000,
            ),
        ],
        books={
            "fare-search-latency.md": runbook(
                "Fare search latency",
                "Fare search slows when carriers' APIs slow down. Check the carrier latency dashboard and lower the per-carrier timeout in fare-search to drop the slowest carrier.",
            )
        },
    )


# =================================================================================================
# 15. Performance, an HPA maximum cut before a sale: the FinOps right-sizing PR finops#19 (FIN-22)
#     lowered catalog-api's HPA maxReplicas from 30 to 12 last week, based on the previous month's
#     peak of 9. Tonight's winter sale starts at 18:00; the HPA reaches 12, wants 21, and says
#     ScalingLimited TooManyReplicas; CPU runs at 140 % of the target, latency climbs, the cluster
#     has room. The HPA's condition says it.
# =================================================================================================


@scenario(
    "hpa-max-lowered-by-cost-review-before-sale", ("performance", "ScalingLimited")
)
def hpa_max_lowered_by_cost_review_before_sale() -> dict[str, Any]:
    start = -1500
    ns = "catalog"
    pods = [
        (f"c{i}a{i}t", "1/1", "Running", "0", "2d" if i < 4 else "25m", i % 3)
        for i in range(12)
    ]
    ca = app(
        "catalog-api",
        image="ghcr.io/snowpeak/catalog-api:19.3.0",
        port=8080,
        rs="5c6d7e8f9a",
        cluster_ip="172.20.16.10",
        pods=pods,
    )
    k8s = namespace(ns, NODES_FRA, [ca], seed=671)
    sig = "ScalingLimited  True    TooManyReplicas"
    k8s[f"kubectl get horizontalpodautoscalers -n {ns}"] = hpa_table(
        [
            [
                "catalog-api",
                "Deployment/catalog-api",
                "cpu: 91%/65%",
                "4",
                "12",
                "12",
                "1y",
            ]
        ]
    )
    k8s[f"kubectl describe horizontalpodautoscalers catalog-api -n {ns}"] = (
        "Name:                                                  catalog-api\n"
        f"Namespace:                                             {ns}\n"
        "Annotations:                                           finops.snowpeak.io/review: FIN-22 (PR finops#19)\n"
        "Reference:                                             Deployment/catalog-api\n"
        "Metrics:                                               ( current / target )\n"
        "  resource cpu on pods  (as a percentage of request):  91% (1820m) / 65%\n"
        "Min replicas:                                          4\n"
        "Max replicas:                                          12\n"
        "Deployment pods:                                       12 current / 12 desired\n"
        "Conditions:\n"
        "  Type            Status  Reason            Message\n"
        "  ----            ------  ------            -------\n"
        "  AbleToScale     True    ReadyForNewScale  recommended size matches current size\n"
        "  ScalingActive   True    ValidMetricFound  the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)\n"
        f"  {sig}   the desired replica count is more than the maximum replica count\n"
        "Events:\n"
        "  Type    Reason             Age   From                       Message\n"
        "  ----    ------             ----  ----                       -------\n"
        "  Normal  SuccessfulRescale  25m   horizontal-pod-autoscaler  New size: 12; reason: cpu resource utilization (percentage of request) above target\n"
    )
    evs = [
        ev(
            "argocd",
            "info",
            "app catalog: synced to 3e8a1f0 (PR finops#19 'FIN-22 right-size HPAs to last month peak + 30%'): horizontalpodautoscaler.autoscaling/catalog-api configured (maxReplicas 30 -> 12)",
            at=-604800,
        ),
        ev(
            "kube-state-metrics",
            "info",
            f"hpa catalog/catalog-api: currentReplicas=12 desiredReplicas=12 maxReplicas=12 condition {sig}",
            **every(start, -30, 180),
        ),
        ev(
            "catalog-api",
            "warn",
            '{"level":"warn","msg":"request queue wait","ms":1{ms},"path":"/v1/products"}',
            **every(start, -5, 12),
            pods=pods_of(ca),
        ),
        ev(
            "marketing",
            "info",
            "Winter sale live: push notification sent to 2.1M users, banner on home",
            at=-1560,
        ),
        ev(
            "cluster-autoscaler",
            "info",
            "scale-up not needed: no unschedulable pods; node utilization 44-58%",
            **every(-3000, -60, 600),
        ),
        *herrings(
            start,
            victim=(
                "storefront",
                "ERROR product page render timeout: catalog-api GET /v1/products/{n} > 2000ms",
                5,
            ),
            release=(
                "storefront",
                "INFO storefront 2026.12.8 deployed (sale banners)",
                -5400,
            ),
            stale=(
                "catalog-api",
                '{"level":"error","msg":"elasticsearch: circuit_breaking_exception [parent] Data too large"}',
            ),
            noisy=("recommendations", "WARN model v41 scoring latency 2{ms}ms"),
        ),
    ]
    return kube_case(
        seed=671,
        start=start,
        inc=alert(
            "[FIRING] StorefrontLatencyHigh p95 > 2.5s",
            "web shop",
            start,
            {
                "alertname": "StorefrontLatencyHigh",
                "service": "storefront",
                "severity": "page",
            },
            ["winter sale started at 18:00"],
        ),
        exp=expected(
            "application",
            [
                "hpa/catalog-api",
                "horizontalpodautoscaler/catalog-api",
                "catalog-api",
                "maxReplicas",
                "PR finops#19",
                "FIN-22",
            ],
            sig,
            "PR finops#19 (FIN-22) lowered catalog-api's HPA maxReplicas from 30 to 12 a week ago, sized on last month's peak. The winter sale tripled traffic; the HPA reached 12 replicas and is ScalingLimited (TooManyReplicas) while CPU is at 140 % of its target, so catalog-api queues requests and the storefront times out. The cluster has room; the sale is the trigger, not the cause. The storefront release, the old Elasticsearch breaker error and the recommendations warnings are not the cause.",
            [
                f"kubectl describe hpa catalog-api: {sig}, 12 of max 12, cpu 91%/65%",
                "argocd: maxReplicas 30 -> 12 by PR finops#19",
                "cluster-autoscaler: nodes 44-58 % used, no pending pods",
            ],
            "Raise maxReplicas back to 30 now; base HPA maxima on seasonal peaks and alert on ScalingLimited.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "catalog-api",
                pods_of(ca),
                ['{"level":"info","msg":"GET /v1/products 200","ms":{ms}}'],
                8,
            )
        ],
        evs=evs,
        services=[
            svc("catalog-api", 1400, {"503": (0.0005, 0.02)}, (0.08, 1.7)),
            svc("storefront", 900, {"504": (0.001, 0.05)}, (0.3, 2.9)),
        ],
        gauges=[
            gauge(
                "kube_horizontalpodautoscaler_status_current_replicas",
                {"horizontalpodautoscaler": "catalog-api"},
                6,
                12,
                -1560,
            ),
            gauge(
                "kube_horizontalpodautoscaler_spec_max_replicas",
                {"horizontalpodautoscaler": "catalog-api"},
                12,
                12,
                start,
            ),
            gauge(
                "catalog_api_cpu_utilization_ratio_of_target",
                {"deployment": "catalog-api"},
                0.8,
                1.4,
                -1560,
            ),
        ],
        books={
            "storefront-slow.md": runbook(
                "Storefront slow",
                "Storefront latency during campaigns comes from the recommendations widget. Switch recommendations to the static fallback list in the admin.",
            )
        },
    )


# =================================================================================================
# 16. Performance, a noisy neighbour on the node's disk: the media team's new nightly Job
#     `video-transcode` writes frames to an emptyDir on the node's root EBS volume (gp3, 125 MB/s).
#     It lands on the node that runs redis-sessions-0, whose AOF lives on an emptyDir too. The root
#     volume saturates; Redis's fsync stalls and it warns "disk is busy"; login and cart calls that
#     touch sessions slow down. redis-sessions' CPU and memory are normal; the node's disk and the
#     neighbour say it.
# =================================================================================================


@scenario(
    "transcode-job-emptydir-saturates-node-disk-redis-aof",
    ("performance", "NoisyNeighbour"),
)
def transcode_job_emptydir_saturates_node_disk_redis_aof() -> dict[str, Any]:
    start = -1300
    ns = "sessions"
    rs = app(
        "redis-sessions",
        image="redis:7.2.6",
        port=6379,
        rs="",
        kind="StatefulSet",
        cluster_ip="172.20.88.5",
        pods=[("0", "1/1", "Running", "0", "16d", 1)],
    )
    auth = app(
        "auth-api",
        image="ghcr.io/cartwise/auth-api:4.4.0",
        port=8080,
        rs="6d7e8f9a0b",
        cluster_ip="172.20.88.20",
        pods=[
            ("l5k6j", "1/1", "Running", "0", "5d", 0),
            ("h7g8f", "1/1", "Running", "0", "5d", 2),
        ],
    )
    k8s = namespace(
        ns,
        NODES_IAD,
        [rs, auth],
        seed=672,
        extra_namespaces=("media",),
        statefulsets=table(
            [
                ["NAME", "READY", "AGE", "CONTAINERS", "IMAGES"],
                ["redis-sessions", "1/1", "300d", "redis-sessions", "redis:7.2.6"],
            ]
        ),
    )
    node = NODES_IAD[1][0]
    sig = "Asynchronous AOF fsync is taking too long (disk is busy?)"
    k8s[f"kubectl describe nodes {node}"] = (
        f"Name:               {node}\n"
        "Labels:             node.kubernetes.io/instance-type=m6i.2xlarge\n"
        "Taints:             <none>\n"
        "Conditions:\n"
        "  Type             Status  Reason                       Message\n"
        "  ----             ------  ------                       -------\n"
        "  MemoryPressure   False   KubeletHasSufficientMemory   kubelet has sufficient memory available\n"
        "  DiskPressure     False   KubeletHasNoDiskPressure     kubelet has no disk pressure\n"
        "  PIDPressure      False   KubeletHasSufficientPID      kubelet has sufficient PID available\n"
        "  Ready            True    KubeletReady                 kubelet is posting ready status\n"
        "Non-terminated Pods:          (6 in total)\n"
        "  Namespace    Name                          CPU Requests  CPU Limits  Memory Requests  Memory Limits  Age\n"
        "  ---------    ----                          ------------  ----------  ---------------  -------------  ---\n"
        "  sessions     redis-sessions-0              500m (6%)     1 (12%)     2Gi (6%)         2Gi (6%)       16d\n"
        "  media        video-transcode-29422500-x8k2p  2 (25%)     0 (0%)      2Gi (6%)         0 (0%)         24m\n"
        "  media        video-transcode-29422500-q4m7n  2 (25%)     0 (0%)      2Gi (6%)         0 (0%)         24m\n"
        "  kube-system  aws-node-7tk9q                25m (0%)      0 (0%)      0 (0%)           0 (0%)         41d\n"
        "  kube-system  kube-proxy-2lw8s              100m (1%)     0 (0%)      0 (0%)           0 (0%)         41d\n"
        "  kube-system  ebs-csi-node-9fj3d            30m (0%)      0 (0%)      120Mi (0%)       768Mi (2%)     41d\n"
        "Events:  <none>\n"
    )
    k8s["kubectl get pods -n media -o wide --show-labels"] = base.pods(
        [
            (
                "video-transcode-29422500-x8k2p",
                "1/1",
                "Running",
                "0",
                "24m",
                "10.72.2.61",
                node,
                "batch.kubernetes.io/job-name=video-transcode-29422500,app=video-transcode",
            ),
            (
                "video-transcode-29422500-q4m7n",
                "1/1",
                "Running",
                "0",
                "24m",
                "10.72.2.88",
                node,
                "batch.kubernetes.io/job-name=video-transcode-29422500,app=video-transcode",
            ),
            (
                "media-api-7b8c9d0e1f-z2x3c",
                "1/1",
                "Running",
                "0",
                "3d",
                "10.72.1.40",
                NODES_IAD[0][0],
                "app=media-api,pod-template-hash=7b8c9d0e1f",
            ),
        ]
    )
    k8s["kubectl get jobs -n media"] = table(
        [
            ["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"],
            ["video-transcode-29422500", "Running", "0/2", "24m", "24m"],
        ]
    )
    k8s[f"kubectl logs redis-sessions-0 -n {ns} --tail=5"] = podlog(
        [
            (
                -300,
                f"1:M * {sig} Writing the AOF buffer without waiting for fsync to complete, this may slow down Redis.",
            ),
            (
                -200,
                "1:M * Background append only file rewriting started by pid 811",
            ),
            (
                -140,
                f"1:M * {sig} Writing the AOF buffer without waiting for fsync to complete, this may slow down Redis.",
            ),
            (
                -60,
                f"1:M * {sig} Writing the AOF buffer without waiting for fsync to complete, this may slow down Redis.",
            ),
            (
                -10,
                "1:M * 10000 changes in 60 seconds. Saving...",
            ),
        ]
    )
    evs = [
        ev(
            "argocd",
            "info",
            "app media-batch: synced (PR media#51 'nightly video-transcode job, scratch on emptyDir'): cronjob.batch/video-transcode created",
            at=-90000,
        ),
        ev(
            "kube-controller-manager",
            "info",
            "cronjob-controller: Created job video-transcode-29422500 (media)",
            at=-1460,
        ),
        ev(
            "redis-sessions",
            "warn",
            f"1:M * {sig} Writing the AOF buffer without waiting for fsync to complete, this may slow down Redis.",
            **every(-1400, -10, 80),
            pods=["redis-sessions-0"],
        ),
        ev(
            "video-transcode",
            "info",
            "ffmpeg: frame={n} fps=24 q=28.0 size=N/A speed=0.97x (writing PNG frames to /scratch/frames, emptyDir)",
            **every(-1440, -10, 60),
            pods=["video-transcode-29422500-x8k2p", "video-transcode-29422500-q4m7n"],
        ),
        ev(
            "node-exporter",
            "warn",
            f"{node}: nvme0n1 util 100% await 1{{ms}}ms write 124 MB/s (EBS gp3 throughput limit 125 MB/s)",
            **every(-1420, -20, 120),
        ),
        ev(
            "auth-api",
            "warn",
            '{"level":"warn","msg":"session store slow","op":"GET","ms":4{ms}}',
            **every(start, -5, 10),
            pods=pods_of(auth),
        ),
        *herrings(
            start,
            victim=(
                "mobile-bff",
                "ERROR login failed for user u_{n}: auth-api timeout after 3000ms",
                6,
            ),
            release=(
                "auth-api",
                '{"level":"info","msg":"auth-api 4.4.0 started (passkeys beta)"}',
                -432000,
            ),
            stale=(
                "redis-sessions",
                "1:M * MASTER aborted replication with an error: NOAUTH Authentication required.",
            ),
            noisy=(
                "cart-api",
                "WARN price cache warmup skipped {ms} SKUs (not in catalog)",
            ),
        ),
    ]
    return kube_case(
        seed=672,
        start=start,
        inc=ticket(
            "Customers complain login and cart are really slow tonight",
            "login",
            start,
        ),
        exp=expected(
            "platform",
            [
                "video-transcode",
                "job/video-transcode-29422500",
                "cronjob/video-transcode",
                node,
                "emptyDir",
                "redis-sessions-0",
                "PR media#51",
            ],
            sig,
            f"The new nightly Job video-transcode (PR media#51) writes frames to an emptyDir on the node root EBS volume; two of its pods landed on {node}, which also runs redis-sessions-0 with its AOF on an emptyDir of the same volume. The volume is at its 125 MB/s gp3 throughput limit, Redis's AOF fsync stalls (disk is busy) and session reads and writes slow down, so login and cart time out. Redis CPU and memory are normal. The auth-api release (five days ago), the old replication error and the cart-api warnings are not the cause; mobile-bff is the victim.",
            [
                f"redis-sessions-0: {sig}",
                f"node-exporter: {node} nvme0n1 util 100%, 124 MB/s",
                "describe node: two video-transcode pods next to redis-sessions-0, started 24 min ago",
            ],
            "Stop or move the video-transcode Job (node affinity to a batch pool, or a dedicated volume for scratch) and give redis-sessions a PersistentVolume of its own; consider anti-affinity between batch and stateful pods.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "auth-api",
                pods_of(auth),
                ['{"level":"info","msg":"POST /v1/session 200","ms":{ms}}'],
                8,
            )
        ],
        evs=evs,
        services=[svc("auth-api", 160, {"504": (0.001, 0.07)}, (0.02, 1.6))],
        gauges=[
            gauge(
                "node_disk_io_time_seconds_ratio",
                {"instance": node, "device": "nvme0n1"},
                0.12,
                1.0,
                -1440,
            ),
            gauge(
                "redis_aof_delayed_fsync_total",
                {"pod": "redis-sessions-0"},
                0,
                31,
                -1400,
            ),
            gauge(
                "redis_memory_used_ratio",
                {"pod": "redis-sessions-0"},
                0.41,
                0.42,
                start,
            ),
        ],
        books={
            "login-slow.md": runbook(
                "Login slow",
                "Slow logins are usually the identity provider. Check the IdP status page and the auth-api JWKS fetch latency; switch to the cached JWKS if the IdP is degraded.",
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
