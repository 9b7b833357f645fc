"""Writes the twenty-eighth held-out scenario set, bench/heldout28: `python bench/heldout28/_build.py`.

New incidents, none of them in the bundled set or in bench/heldout … bench/heldout26. Theme: quiet
failures, where the evidence is not an ERROR line: warnings and info lines new since the incident
started, a rate or latency that jumped in the metrics, a count that went to zero (a consumer that
stopped consuming, a cron that stopped running, a queue growing, a cache hit ratio collapsing, a
replica falling behind), probes that are slow or answer the wrong thing, and Kubernetes objects whose
status says it (conditions, events, HPA status, endpoints), at web, mobile-backend, data and fintech
companies. Seven cases are Kubernetes (the application team's view), nine VMs and managed services.
As in the earlier sets, everything that matters is written by hand below; the bulk (background
request lines, 2 h of metric points thinned to one every 30 s, the kubectl tables of a namespace)
comes from bench/heldout26/_build.py's helpers and through them the earlier builders', each scenario
with a fixed seed (641-656). The author read neither the planner (`reasoning/`) nor the engine
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


h26 = _load("heldout26_build", HERE.parent / "heldout26" / "_build.py")
h24 = h26.h24
base = h26.base

table = base.table
events = base.events
runbook = base.runbook
ev = h26.ev
bg = h26.bg
incident = h26.incident
expected = h26.expected
simple = h26.simple
svc = h26.svc
every = h26.every
gauge = h26.gauge
with_netcheck = h26.with_netcheck
tidy_clock_times = h26.tidy_clock_times
alert = h26.alert
app = h24.app
namespace = h24.namespace
kube_case = h24.kube_case
pods_of = h24.pods_of
hpa_table = h24.hpa_table
NODES_FRA = h24.NODES_FRA
NODES_IAD = h24.NODES_IAD
NODES_DUB = h24.NODES_DUB

SCENARIOS: dict[str, Any] = {}
STAGES: dict[str, tuple[str, str]] = {}


def scenario(slug: str, stage: tuple[str, str] | None = None):
    def register(fn):
        SCENARIOS[slug] = fn
        if stage is not None:
            STAGES[slug] = stage
        return fn

    return register


def ticket(title: str, service: str, start: int, symptoms: list[str] = ()) -> dict:
    """An incident a person opened: one line, their word for the service."""
    return incident(title, service, start, list(symptoms))


# =================================================================================================
# 1. Kubernetes, a cron that stopped running: during last week's ledger maintenance (CHG-1904) the
#    CronJob `settlement-export` was suspended with `kubectl patch … suspend: true`; nobody resumed
#    it. Argo CD ignores `spec.suspend` (an ignoreDifferences rule), so the app shows Synced. No job
#    has run for 26 hours; merchants' payout reports stop. No error anywhere: the CronJob's SUSPEND
#    column and LAST SCHEDULE say it. The incident is a merchant success line.
# =================================================================================================


@scenario("settlement-export-cronjob-left-suspended", ("runtime", "Suspended"))
def settlement_export_cronjob_left_suspended() -> dict[str, Any]:
    start = -2400
    ns = "settlements"
    api = app(
        "payout-reports-api",
        image="ghcr.io/paydock/payout-reports-api:4.8.1",
        port=8080,
        rs="6c9f7d8b5d",
        cluster_ip="172.20.61.14",
        pods=[
            ("q2w8e", "1/1", "Running", "0", "3d", 0),
            ("t5y7u", "1/1", "Running", "0", "3d", 1),
        ],
    )
    rec = app(
        "reconciler",
        image="ghcr.io/paydock/reconciler:2.19.0",
        port=9000,
        rs="84bd6f9c77",
        cluster_ip="172.20.61.20",
        pods=[("h3j4k", "1/1", "Running", "0", "70m", 2)],
    )
    k8s = namespace(ns, NODES_FRA, [api, rec], seed=641)
    sig = "suspended-by: CHG-1904"
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
                "settlement-export",
                "0 2 * * *",
                "Europe/Berlin",
                "True",
                "0",
                "8d",
                "411d",
            ],
            ["fx-snapshot", "*/15 * * * *", "<none>", "False", "0", "6m", "411d"],
        ]
    )
    k8s[f"kubectl get jobs -n {ns}"] = table(
        [
            ["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"],
            ["fx-snapshot-29421120", "Complete", "1/1", "9s", "6m"],
            ["fx-snapshot-29421105", "Complete", "1/1", "11s", "21m"],
            ["settlement-export-29409960", "Complete", "1/1", "14m", "8d"],
        ]
    )
    k8s[f"kubectl describe cronjobs settlement-export -n {ns}"] = (
        "Name:                          settlement-export\n"
        f"Namespace:                     {ns}\n"
        "Labels:                        app.kubernetes.io/instance=settlements\n"
        "Annotations:                   ops.paydock.io/suspended-by: CHG-1904 ledger maintenance (m.brandt)\n"
        "Schedule:                      0 2 * * *\n"
        "Concurrency Policy:            Forbid\n"
        "Suspend:                       True\n"
        "Successful Job History Limit:  3\n"
        "Failed Job History Limit:      1\n"
        "Last Schedule Time:            Sun, 29 Nov 2026 01:00:00 +0000\n"
        "Active Jobs:                   <none>\n"
        "Events:                        <none>\n"
    )
    evs = [
        ev(
            "argocd",
            "info",
            "app settlements: sync status Synced, health Healthy (ignoreDifferences: /spec/suspend on batch/CronJob)",
            **every(-7200, -60, 900),
        ),
        ev(
            "change-log",
            "info",
            'CHG-1904 ledger maintenance: kubectl patch cronjob settlement-export -p \'{"spec":{"suspend":true}}\' (resume after maintenance)',
            at=-7200 * 12,
        ),
        ev(
            "argocd",
            "info",
            "app settlements: live CronJob settlement-export differs from git only in ignored fields (spec.suspend: true, annotation ops.paydock.io/suspended-by: CHG-1904 ledger maintenance)",
            **every(start, -60, 1800),
        ),
        ev(
            "payout-reports-api",
            "warn",
            '{"level":"warn","msg":"no settlement file for business date","date":"2026-12-06","merchant":"m_{n}","fallback":"previous report"}',
            **every(start, -20, 45),
            pods=pods_of(api),
        ),
        ev(
            "merchant-portal",
            "error",
            "GET /api/payouts/report?date=2026-12-06 -> 404 report_not_ready merchant=m_{n}",
            **every(start + 30, -5, 11),
        ),
        ev(
            "reconciler",
            "info",
            '{"level":"info","msg":"reconciler 2.19.0 started (faster matching of partial refunds)"}',
            at=-4200,
            pods=pods_of(rec),
        ),
        ev(
            "fx-snapshot",
            "warn",
            "ECB reference rate unchanged since 16:00 CET (weekend feed); using cached",
            **every(-7000, -60, 900),
        ),
        ev(
            "merchant-portal",
            "error",
            "GET /api/payouts/report -> 502 upstream connect error (payout-reports-api rolling)",
            **every(-10500, -10300, 40),
        ),
    ]
    return kube_case(
        seed=641,
        start=start,
        inc=ticket(
            "Merchants asking why yesterday's payout report isn't there",
            "merchant portal",
            start,
        ),
        exp=expected(
            "application",
            [
                "cronjob/settlement-export",
                "settlement-export",
                "CHG-1904",
                "spec.suspend",
                "suspend",
                "ignoreDifferences",
            ],
            sig,
            "The CronJob settlement-export was suspended for the ledger maintenance CHG-1904 and never resumed; Argo CD ignores /spec/suspend so the app looks Synced. No settlement file has been produced since, so payout reports for the latest business dates are missing. The merchant-portal 404s are the victim; the reconciler release, the FX feed warnings and the old 502s are not the cause.",
            [
                "kubectl get cronjobs: settlement-export SUSPEND True, LAST SCHEDULE 8d",
                f"cronjob annotation: {sig}",
                "payout-reports-api: no settlement file for business date",
            ],
            "Resume the CronJob (suspend: false), run a manual job for each missing business date, and remove the ignoreDifferences rule so Argo CD reports the drift.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "payout-reports-api",
                pods_of(api),
                [
                    '{"level":"info","msg":"GET /v1/payouts 200","ms":{ms},"merchant":"m_{n}"}'
                ],
                8,
            )
        ],
        evs=evs,
        services=[svc("merchant-portal", 25, {"404": (0.002, 0.06)}, (0.12, 0.13))],
        gauges=[
            gauge(
                "kube_cronjob_status_last_schedule_time_age_seconds",
                {"cronjob": "settlement-export", "namespace": ns},
                600000,
                700000,
                -7000,
            ),
            gauge(
                "settlement_files_written_total",
                {"job": "settlement-export"},
                412,
                412,
                start,
            ),
        ],
        books={
            "payout-report-missing.md": runbook(
                "Payout report missing for a merchant",
                "Usually the merchant's bank details failed validation. Check the merchant in the admin, fix the IBAN, and re-trigger the report from the portal.",
            )
        },
    )


# =================================================================================================
# 2. Kubernetes, autoscaling: PR deploy#2231 ("HPA per service, tidy values") wrote
#    averageUtilization 900 for feed-api instead of 90. The HPA is healthy in every condition, the
#    CPU sits at 310 % of requests, and replicas stay at the minimum 3 through the evening peak;
#    latency climbs, nothing errors except the mobile BFF's timeouts. The incident is an alert.
# =================================================================================================


@scenario("feed-api-hpa-target-utilization-900", ("performance", "HPANotScaling"))
def feed_api_hpa_target_utilization_900() -> dict[str, Any]:
    start = -1800
    ns = "feed"
    fa = app(
        "feed-api",
        image="registry.gitlab.com/snapnest/feed-api:7.2.0",
        port=8080,
        rs="5f8c6b7d49",
        cluster_ip="172.20.14.31",
        pods=[
            ("a8d2k", "1/1", "Running", "0", "2d", 0),
            ("c3m9p", "1/1", "Running", "0", "2d", 1),
            ("x7n4r", "1/1", "Running", "0", "2d", 2),
        ],
    )
    bff = app(
        "mobile-bff",
        image="registry.gitlab.com/snapnest/mobile-bff:12.40.0",
        port=3000,
        rs="7d6c59f8b8",
        cluster_ip="172.20.14.40",
        pods=[
            ("k2l5m", "1/1", "Running", "0", "5h", 0),
            ("v9b3n", "1/1", "Running", "0", "5h", 2),
        ],
    )
    k8s = namespace(ns, NODES_IAD, [fa, bff], seed=642)
    sig = "cpu: 310%/900%"
    k8s[f"kubectl get horizontalpodautoscalers -n {ns}"] = hpa_table(
        [
            ["feed-api", "Deployment/feed-api", sig, "3", "40", "3", "2d"],
            [
                "mobile-bff",
                "Deployment/mobile-bff",
                "cpu: 41%/70%",
                "2",
                "10",
                "2",
                "188d",
            ],
        ]
    )
    k8s[f"kubectl describe horizontalpodautoscalers feed-api -n {ns}"] = (
        "Name:                                                  feed-api\n"
        f"Namespace:                                             {ns}\n"
        "Annotations:                                           deploy.snapnest.io/pr: deploy#2231\n"
        "Reference:                                             Deployment/feed-api\n"
        "Metrics:                                               ( current / target )\n"
        "  resource cpu on pods  (as a percentage of request):  310% (775m) / 900%\n"
        "Min replicas:                                          3\n"
        "Max replicas:                                          40\n"
        "Deployment pods:                                       3 current / 3 desired\n"
        "Conditions:\n"
        "  Type            Status  Reason            Message\n"
        "  ----            ------  ------            -------\n"
        "  AbleToScale     True    ReadyForNewScale  recommended size matches current size\n"
        "  ScalingActive   True    ValidMetricFound  the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)\n"
        "  ScalingLimited  False   DesiredWithinRange  the desired count is within the acceptable range\n"
        "Events:           <none>\n"
    )
    evs = [
        ev(
            "argocd",
            "info",
            "app feed: synced to 4f1e9a2 (PR deploy#2231 'HPA per service, tidy values'): horizontalpodautoscaler.autoscaling/feed-api configured",
            at=-172000,
        ),
        ev(
            "kube-state-metrics",
            "info",
            "hpa feed/feed-api: currentReplicas=3 desiredReplicas=3 metrics cpu: 310%/900% (ScalingActive True)",
            **every(start, -30, 300),
        ),
        ev(
            "feed-api",
            "warn",
            '{"level":"warn","msg":"slow request","path":"/v3/feed","ms":2{ms},"inflight":1{ms}}',
            **every(start, -10, 25),
            pods=pods_of(fa),
        ),
        ev(
            "mobile-bff",
            "error",
            "[bff] TimeoutError: upstream feed-api /v3/feed exceeded 3000ms (user u_{n}, app 9.14.{ms})",
            **every(start + 60, -4, 7),
            pods=pods_of(bff),
        ),
        ev(
            "mobile-bff",
            "info",
            "[bff] mobile-bff 12.40.0 ready (stories prefetch)",
            at=-18000,
            pods=pods_of(bff),
        ),
        ev(
            "image-cdn",
            "warn",
            "origin shield hit ratio 0.8{ms} below 0.9 for /stories",
            **every(-6000, -60, 600),
        ),
        ev(
            "feed-api",
            "error",
            '{"level":"error","msg":"redis: connection pool timeout","pool":"ranking"}',
            **every(-10600, -10200, 60),
            pods=pods_of(fa),
        ),
    ]
    return kube_case(
        seed=642,
        start=start,
        inc=alert(
            "[FIRING] FeedLatencyHigh p95 > 1.5s",
            "feed",
            start,
            {
                "alertname": "FeedLatencyHigh",
                "namespace": ns,
                "service": "mobile-bff",
                "severity": "page",
            },
        ),
        exp=expected(
            "application",
            [
                "hpa/feed-api",
                "horizontalpodautoscaler/feed-api",
                "feed-api",
                "averageUtilization",
                "deploy#2231",
                "deployment/feed-api",
            ],
            sig,
            "PR deploy#2231 set the feed-api HPA's CPU target to 900 % instead of 90 %. At the evening peak the pods run at 310 % of their CPU request, which is below the target, so the HPA keeps the minimum 3 replicas and feed-api saturates: slow requests, mobile-bff timeouts. The HPA's conditions are all healthy; its TARGETS column says it. The BFF release, CDN hit ratio and old Redis pool errors are not the cause.",
            [
                f"kubectl get hpa: feed-api {sig}, replicas 3 of 40",
                "argocd: deploy#2231 configured the HPA 2 days ago",
                "feed-api slow request warnings, CPU 3x request",
            ],
            "Set averageUtilization back to 90 (or 70) for feed-api and add a CI check for targets over 100.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "feed-api",
                pods_of(fa),
                ['{"level":"info","msg":"GET /v3/feed 200","ms":{ms}}'],
                8,
            )
        ],
        evs=evs,
        services=[
            svc("feed-api", 400, {"500": (0.0005, 0.002)}, (0.18, 1.9)),
            svc("mobile-bff", 380, {"504": (0.001, 0.04)}, (0.25, 2.4)),
        ],
        gauges=[
            gauge(
                "kube_horizontalpodautoscaler_status_current_replicas",
                {"horizontalpodautoscaler": "feed-api"},
                3,
                3,
                start,
            ),
            gauge(
                "container_cpu_usage_ratio_of_request",
                {"deployment": "feed-api"},
                1.1,
                3.1,
                start,
            ),
        ],
        books={
            "feed-slow.md": runbook(
                "Feed slow",
                "Feed latency is almost always the ranking Redis. Check redis-ranking memory and evictions, and fail over to the replica if the primary is above 90 % CPU.",
            )
        },
    )


# =================================================================================================
# 3. Kubernetes, a consumer that stopped consuming: the notifications chart 3.0 renamed
#    `worker.replicas` to `worker.replicaCount`; the values file (PR #455, chart bump) still says
#    `worker.replicas: 4`, so the default 0 applies. Deployment push-worker is 0/0, healthy, no
#    pods, no errors; the SQS queue depth grows and the oldest message ages. The incident is a
#    customer ticket.
# =================================================================================================


@scenario("push-worker-scaled-to-zero-by-chart-key-rename", ("rollout", "ScaledToZero"))
def push_worker_scaled_to_zero_by_chart_key_rename() -> dict[str, Any]:
    start = -2100
    ns = "notifications"
    api = app(
        "notify-api",
        image="123456789012.dkr.ecr.eu-west-1.amazonaws.com/notify-api:5.3.0",
        port=8000,
        rs="6b7c8d9f5a",
        cluster_ip="172.20.9.11",
        pods=[
            ("r4t6y", "1/1", "Running", "0", "41m", 0),
            ("u8i2o", "1/1", "Running", "0", "41m", 1),
        ],
    )
    wk = app(
        "push-worker",
        image="123456789012.dkr.ecr.eu-west-1.amazonaws.com/push-worker:5.3.0",
        port=9100,
        rs="59d7c4b8f6",
        cluster_ip="172.20.9.12",
        desired=0,
        pods=[],
        service=False,
    )
    k8s = namespace(ns, NODES_DUB, [api, wk], seed=643)
    sig = "Scaled down replica set push-worker-7c5d8b9f44 to 0 from 4"
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "41m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/notify-api",
                "Scaled up replica set notify-api-6b7c8d9f5a to 2",
            ),
            ("41m", "Normal", "ScalingReplicaSet", "Deployment/push-worker", sig),
            (
                "40m",
                "Normal",
                "Killing",
                "Pod/push-worker-7c5d8b9f44-p2q8w",
                "Stopping container push-worker",
            ),
        ]
    )
    k8s[f"kubectl describe deployments push-worker -n {ns}"] = (
        "Name:                   push-worker\n"
        f"Namespace:              {ns}\n"
        "Annotations:            deployment.kubernetes.io/revision: 31\n"
        "                        meta.helm.sh/release-name: notifications\n"
        "Selector:               app=push-worker\n"
        "Replicas:               0 desired | 0 updated | 0 total | 0 available | 0 unavailable\n"
        "StrategyType:           RollingUpdate\n"
        "Conditions:\n"
        "  Type           Status  Reason\n"
        "  ----           ------  ------\n"
        "  Available      True    MinimumReplicasAvailable\n"
        "  Progressing    True    NewReplicaSetAvailable\n"
        "NewReplicaSet:   push-worker-59d7c4b8f6 (0/0 replicas created)\n"
        "Events:\n"
        "  Type    Reason             Age   From                   Message\n"
        "  ----    ------             ----  ----                   -------\n"
        f"  Normal  ScalingReplicaSet  41m   deployment-controller  {sig}\n"
    )
    evs = [
        ev(
            "helm",
            "info",
            "Release \"notifications\" has been upgraded. Happy Helming! chart notifications-3.0.0 (PR #455 'bump notifications chart to 3.0')",
            at=-2480,
        ),
        ev(
            "kube-events",
            "info",
            f"Deployment notifications/push-worker: ScalingReplicaSet: {sig}",
            at=-2460,
        ),
        ev(
            "helm",
            "warn",
            "coalesce.go:286: warning: skipped value for notifications.worker.replicas: Not a table.",
            at=-2482,
        ),
        ev(
            "notify-api",
            "info",
            '{"level":"info","msg":"enqueued","queue":"push-outbound","approx_depth":{n}}',
            **every(start, -5, 30),
            pods=pods_of(api),
        ),
        ev(
            "cloudwatch",
            "warn",
            "ALARM ApproximateAgeOfOldestMessage push-outbound {ms}0s > 300s",
            **every(start + 300, -30, 300),
        ),
        ev(
            "support-widget",
            "error",
            "PushReceiptMissing: no delivery receipt within 10m for campaign c_{n} (users reported no notification)",
            **every(start + 120, -5, 13),
        ),
        ev(
            "notify-api",
            "info",
            '{"level":"info","msg":"notify-api 5.3.0 started (quiet hours per timezone)"}',
            at=-2450,
            pods=pods_of(api),
        ),
        ev(
            "fcm-relay",
            "warn",
            "FCM 429 QUOTA_EXCEEDED for project snapnest-prod, backing off 2s",
            **every(-7000, -60, 700),
        ),
        ev(
            "notify-api",
            "error",
            '{"level":"error","msg":"APNs token expired, refreshed","team":"K9X2"}',
            **every(-10700, -10500, 100),
            pods=pods_of(api),
        ),
    ]
    return kube_case(
        seed=643,
        start=start,
        inc=ticket(
            "Users say they stopped getting push notifications this afternoon",
            "push notifications",
            start,
        ),
        exp=expected(
            "application",
            [
                "deployment/push-worker",
                "push-worker",
                "worker.replicas",
                "worker.replicaCount",
                "PR #455",
                "notifications chart 3.0",
                "push-outbound",
            ],
            sig,
            "The notifications chart 3.0 (PR #455) renamed worker.replicas to worker.replicaCount; the values still set the old key, so the push-worker Deployment was scaled from 4 to 0. Nothing consumes push-outbound: the queue grows and no push is sent. The Deployment is 'Available' with 0/0; its events and the helm warning say it. notify-api's release, FCM quota warnings and old APNs errors are not the cause.",
            [
                f"events: {sig}",
                "helm: skipped value for notifications.worker.replicas",
                "cloudwatch: ApproximateAgeOfOldestMessage alarm on push-outbound",
            ],
            "Set worker.replicaCount: 4 in the values and sync; then drain the backlog (expire stale campaigns).",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "notify-api",
                pods_of(api),
                ['{"level":"info","msg":"POST /v1/notify 202","ms":{ms}}'],
                8,
            )
        ],
        evs=evs,
        services=[svc("notify-api", 60, {"500": (0.001, 0.001)}, (0.03, 0.03))],
        gauges=[
            gauge(
                "aws_sqs_approximate_number_of_messages_visible",
                {"queue": "push-outbound"},
                40,
                182000,
                start,
            ),
            gauge(
                "push_worker_messages_processed_per_second",
                {"queue": "push-outbound"},
                95,
                0,
                start,
            ),
        ],
        books={
            "push-not-delivered.md": runbook(
                "Push notifications not delivered",
                "Check FCM and APNs quotas and credentials first: a 429 from FCM or an expired APNs key stops deliveries. Rotate the key in the console.",
            )
        },
    )


# =================================================================================================
# 4. Kubernetes, ingress: the move from the `nginx` to the `nginx-internal` IngressClass (PR
#    platform#318) rewrote the reports Ingress from a template without the annotation
#    `nginx.ingress.kubernetes.io/proxy-read-timeout: "300"`. Large CSV exports take 70-200 s; the
#    controller now gives up at the default 60 s and answers 504. The controller logs it at [error]
#    in its own format, the reports-api keeps working and logs the export as finished.
# =================================================================================================


@scenario(
    "reports-ingress-read-timeout-annotation-lost",
    ("service_routing", "UpstreamTimeout"),
)
def reports_ingress_read_timeout_annotation_lost() -> dict[str, Any]:
    start = -1500
    ns = "analytics"
    ra = app(
        "reports-api",
        image="quay.io/tallyrow/reports-api:2026.12.2",
        port=8000,
        rs="7fb9c6d854",
        cluster_ip="172.20.77.5",
        pods=[
            ("f4g5h", "1/1", "Running", "0", "6d", 0),
            ("j6k7l", "1/1", "Running", "0", "6d", 1),
        ],
    )
    k8s = namespace(ns, NODES_FRA, [ra], seed=644)
    sig = "upstream timed out (110: Operation timed out) while reading response header from upstream"
    k8s[f"kubectl get ingresses -n {ns}"] = table(
        [
            ["NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"],
            [
                "reports",
                "nginx-internal",
                "reports.tallyrow.io",
                "10.40.8.20",
                "80, 443",
                "3h",
            ],
        ]
    )
    k8s[f"kubectl describe ingresses reports -n {ns}"] = (
        "Name:             reports\n"
        f"Namespace:        {ns}\n"
        "Address:          10.40.8.20\n"
        "Ingress Class:    nginx-internal\n"
        "Rules:\n"
        "  Host                 Path  Backends\n"
        "  ----                 ----  --------\n"
        "  reports.tallyrow.io\n"
        "                       /   reports-api:8000 (10.124.1.33:8000,10.124.2.61:8000)\n"
        "Annotations:      argocd.argoproj.io/tracking-id: analytics:networking.k8s.io/Ingress:analytics/reports\n"
        "                  nginx.ingress.kubernetes.io/proxy-body-size: 20m\n"
        "Events:\n"
        "  Type    Reason  Age   From                      Message\n"
        "  ----    ------  ----  ----                      -------\n"
        "  Normal  Sync    3h    nginx-ingress-controller  Scheduled for sync\n"
    )
    evs = [
        ev(
            "argocd",
            "info",
            "app analytics: synced PR platform#318 'move internal apps to nginx-internal IngressClass': ingress.networking.k8s.io/reports configured",
            at=-10900,
        ),
        ev(
            "ingress-nginx-internal",
            "warn",
            f'2026/12/07 14:{{n}}:{{ms}} [error] 31#31: *{{n}} {sig}, client: 10.40.3.{{ms}}, server: reports.tallyrow.io, request: "GET /exports/{{n}}.csv?range=quarter HTTP/2.0", upstream: "http://10.124.1.33:8000/exports/{{n}}.csv"',
            **every(start, -10, 70),
        ),
        ev(
            "ingress-nginx-internal",
            "info",
            '10.40.3.{ms} - - "GET /exports/{n}.csv?range=quarter HTTP/2.0" 504 160 "-" "Mozilla/5.0" 60.001 [analytics-reports-api-8000] 60.001',
            **every(start + 2, -8, 70),
        ),
        ev(
            "reports-api",
            "info",
            "INFO reports.export export finished rows=1{n} seconds=1{ms} client_gone=True",
            **every(start + 50, -5, 70),
            pods=pods_of(ra),
        ),
        ev(
            "finance-dashboard",
            "error",
            "ExportFailed: HTTP 504 Gateway Time-out fetching https://reports.tallyrow.io/exports/quarter.csv (user finance-{n})",
            **every(start + 60, -5, 40),
        ),
        ev(
            "reports-api",
            "info",
            "INFO gunicorn reports-api 2026.12.2 booted (pivot exports)",
            at=-520000,
            pods=pods_of(ra),
        ),
        ev(
            "clickhouse",
            "warn",
            "MergeTree: too many parts (3{ms}) in events_local, merges are slower than inserts",
            **every(-7000, -60, 600),
        ),
        ev(
            "reports-api",
            "error",
            "ERROR reports.export clickhouse: Code: 241. Memory limit (for query) exceeded",
            **every(-10500, -10100, 200),
            pods=pods_of(ra),
        ),
    ]
    return kube_case(
        seed=644,
        start=start,
        inc=ticket(
            "Finance can't download quarterly exports, it spins then fails",
            "reports",
            start,
        ),
        exp=expected(
            "http",
            [
                "ingress/reports",
                "reports",
                "proxy-read-timeout",
                "nginx.ingress.kubernetes.io/proxy-read-timeout",
                "PR platform#318",
                "nginx-internal",
                "ingress-nginx-internal",
            ],
            sig,
            "PR platform#318 moved the reports Ingress to the nginx-internal class and rewrote it without the proxy-read-timeout: 300 annotation. The controller now waits the default 60 s for response headers; quarterly CSV exports take 70-200 s, so the controller answers 504 while reports-api finishes the export for a client that left. The finance dashboard errors are the victim; ClickHouse part warnings, the old memory-limit errors and the reports-api release are not the cause.",
            [
                f"ingress-nginx-internal: {sig} on /exports",
                "ingress access log: 504 after 60.00 s",
                "describe ingress: no proxy-read-timeout annotation; argocd sync of platform#318",
            ],
            'Add nginx.ingress.kubernetes.io/proxy-read-timeout: "300" (and proxy-send-timeout) to the reports Ingress; longer term make exports asynchronous.',
        ),
        k8s=k8s,
        bgs=[
            bg(
                "reports-api",
                pods_of(ra),
                ["INFO access GET /api/widgets/{n} 200 {ms}ms"],
                8,
            )
        ],
        evs=evs,
        services=[svc("reports-api", 12, {"504": (0.0, 0.08)}, (0.4, 0.45))],
        gauges=[
            gauge(
                "nginx_ingress_controller_request_duration_seconds_max",
                {"ingress": "reports"},
                180,
                60,
                -10900,
            )
        ],
        books={
            "exports-failing.md": runbook(
                "Exports failing",
                "Export failures are ClickHouse memory: lower max_threads for the reports user or split the export by month.",
            )
        },
    )


# =================================================================================================
# 5. Kubernetes, jobs: the nightly ledger reconciliation Job has activeDeadlineSeconds 3600. Since
#    the card-issuing launch the day's transactions doubled; the job ran 60 minutes and was killed
#    (DeadlineExceeded) at 03:00, and this morning's manual retry again. No stack trace: the pod is
#    terminated, the Job's condition says it; the app's last lines are progress at 71 %.
# =================================================================================================


@scenario("ledger-recon-job-active-deadline-exceeded", ("runtime", "DeadlineExceeded"))
def ledger_recon_job_active_deadline_exceeded() -> dict[str, Any]:
    start = -2700
    ns = "ledger"
    la = app(
        "ledger-api",
        image="europe-docker.pkg.dev/coinlane-prod/apps/ledger-api:9.0.4",
        port=8080,
        rs="66f8d7c9b5",
        cluster_ip="10.60.3.14",
        pods=[
            ("b1n2m", "1/1", "Running", "0", "12d", 0),
            ("c3v4b", "1/1", "Running", "0", "12d", 1),
        ],
    )
    k8s = namespace(ns, NODES_FRA, [la], seed=645)
    sig = "Job was active longer than specified deadline"
    k8s[f"kubectl get jobs -n {ns}"] = table(
        [
            ["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"],
            ["ledger-recon-manual-1207", "Failed", "0/1", "60m", "61m"],
            ["ledger-recon-29421000", "Failed", "0/1", "60m", "7h"],
            ["ledger-recon-29419560", "Complete", "1/1", "52m", "31h"],
        ]
    )
    k8s[f"kubectl describe jobs ledger-recon-manual-1207 -n {ns}"] = (
        "Name:                     ledger-recon-manual-1207\n"
        f"Namespace:                {ns}\n"
        "Parallelism:              1\n"
        "Completions:              1\n"
        "Active Deadline Seconds:  3600s\n"
        "Pods Statuses:            0 Active (0 Ready) / 0 Succeeded / 1 Failed\n"
        "Conditions:\n"
        "  Type    Status  Reason\n"
        "  ----    ------  ------\n"
        "  Failed  True    DeadlineExceeded\n"
        "Events:\n"
        "  Type     Reason            Age   From            Message\n"
        "  ----     ------            ----  ----            -------\n"
        "  Normal   SuccessfulCreate  61m   job-controller  Created pod: ledger-recon-manual-1207-9xk2p\n"
        "  Normal   SuccessfulDelete  60s   job-controller  Deleted pod: ledger-recon-manual-1207-9xk2p\n"
        f"  Warning  DeadlineExceeded  60s   job-controller  {sig}\n"
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            ("7h", "Warning", "DeadlineExceeded", "Job/ledger-recon-29421000", sig),
            (
                "61m",
                "Normal",
                "SuccessfulCreate",
                "Job/ledger-recon-manual-1207",
                "Created pod: ledger-recon-manual-1207-9xk2p",
            ),
            ("60s", "Warning", "DeadlineExceeded", "Job/ledger-recon-manual-1207", sig),
        ]
    )
    evs = [
        *[
            ev(
                "ledger-recon",
                "info",
                f"2026-12-07 07:{{n}}:{{ms}} INFO  recon.Runner - progress {pct}% ({done} of 2,318,442 entries), rate 457/s",
                at=at,
            )
            for at, pct, done in [
                (-3000, 12, "278,213"),
                (-2400, 24, "556,426"),
                (-1800, 36, "834,639"),
                (-1200, 48, "1,112,852"),
                (-600, 59, "1,367,880"),
                (-90, 71, "1,646,118"),
            ]
        ],
        ev(
            "ledger-recon",
            "info",
            "2026-12-07 07:22:41 INFO  recon.Runner - business date 2026-12-06: 2,318,442 card transactions to match (previous day 1,086,911)",
            at=-3590,
        ),
        ev(
            "kube-events",
            "warn",
            f"Job ledger/ledger-recon-manual-1207: DeadlineExceeded: {sig}",
            at=-60,
        ),
        ev(
            "kube-events",
            "warn",
            f"Job ledger/ledger-recon-29421000: DeadlineExceeded: {sig}",
            at=-25200,
        ),
        ev(
            "treasury-ui",
            "error",
            "ReconStatusError: business date 2026-12-06 not reconciled; end-of-day balances unavailable (desk {n})",
            **every(start, -5, 20),
        ),
        ev(
            "ledger-api",
            "warn",
            '{"level":"WARN","logger":"EodController","msg":"EOD balance requested before reconciliation complete","date":"2026-12-06"}',
            **every(start, -10, 40),
            pods=pods_of(la),
        ),
        ev(
            "ledger-api",
            "info",
            '{"level":"INFO","msg":"ledger-api 9.0.4 started (card issuing: chargeback states)"}',
            at=-1036800,
            pods=pods_of(la),
        ),
        ev(
            "card-issuing",
            "info",
            "card issuing: 1{ms} cards activated today (launch campaign)",
            **every(-7000, -60, 900),
        ),
        ev(
            "fx-feed", "warn", "stale quote EURGBP age 4{ms}s", **every(-6500, -60, 500)
        ),
        ev(
            "ledger-api",
            "error",
            '{"level":"ERROR","msg":"deadlock detected on ledger_entries, retried"}',
            **every(-10700, -10400, 120),
            pods=pods_of(la),
        ),
    ]
    return kube_case(
        seed=645,
        start=start,
        inc=ticket(
            "Treasury: yesterday isn't reconciled, EOD balances missing",
            "treasury",
            start,
        ),
        exp=expected(
            "application",
            [
                "job/ledger-recon-manual-1207",
                "cronjob/ledger-recon",
                "ledger-recon",
                "activeDeadlineSeconds",
                "ledger-recon-29421000",
            ],
            sig,
            "The ledger-recon Job has activeDeadlineSeconds 3600. Since the card-issuing launch the day's transactions doubled (2.3 M vs 1.1 M); the 03:00 run and this morning's manual retry both reached 71 % and were killed by the job controller (DeadlineExceeded). No error line: the Jobs are Failed with DeadlineExceeded. Treasury's errors are the victim; the ledger-api release, FX staleness and old deadlocks are not the cause.",
            [
                f"describe job: Failed True DeadlineExceeded, {sig}",
                "ledger-recon: 71 % matched after 60 min, 2.3 M transactions",
                "treasury-ui: business date not reconciled",
            ],
            "Raise activeDeadlineSeconds (e.g. 3 h) on the ledger-recon CronJob template, re-run for 2026-12-06, and alert on job duration against the deadline.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "ledger-api",
                pods_of(la),
                ['{"level":"INFO","msg":"POST /v1/entries 201","ms":{ms}}'],
                8,
            )
        ],
        evs=evs,
        services=[svc("ledger-api", 90, {"500": (0.0005, 0.0008)}, (0.04, 0.045))],
        gauges=[
            gauge(
                "kube_job_status_failed",
                {"job_name": "ledger-recon-manual-1207"},
                0,
                1,
                -60,
            )
        ],
        books={
            "recon-late.md": runbook(
                "Reconciliation late",
                "A late reconciliation is normally the bank statement file arriving late over SFTP. Check the sftp-inbox for today's camt.053 and ask the bank to resend.",
            )
        },
    )


# =================================================================================================
# 6. Kubernetes, a sidecar: the platform team's new pod template (PR infra#702, "standard Cloud SQL
#    Auth Proxy sidecar") sets `--max-connections=10` on cloud-sql-proxy. checkout-api's pool is 30
#    per pod; connections beyond 10 wait in the proxy. The proxy warns quietly, the app logs slow
#    queries at WARN, p95 triples. The pods are Running 2/2, probes pass.
# =================================================================================================


@scenario("cloudsql-proxy-sidecar-max-connections-10", ("performance", "SidecarLimit"))
def cloudsql_proxy_sidecar_max_connections_10() -> dict[str, Any]:
    start = -1600
    ns = "checkout"
    ca = app(
        "checkout-api",
        image="europe-west1-docker.pkg.dev/plantly-prod/shop/checkout-api:3.41.2",
        port=8080,
        rs="6d4b8c7f59",
        cluster_ip="10.70.2.18",
        pods=[
            ("g5h6j", "2/2", "Running", "0", "2h", 0),
            ("k7l8z", "2/2", "Running", "0", "2h", 1),
            ("x9c1v", "2/2", "Running", "0", "2h", 2),
        ],
    )
    k8s = namespace(ns, NODES_DUB, [ca], seed=646)
    sig = "max connections reached (10), waiting for a connection to close"
    pod = pods_of(ca)[0]
    k8s[f"kubectl logs {pod} -n {ns} -c cloud-sql-proxy --tail=200"] = "".join(
        f"2026/12/07 15:{m:02d}:{(m * 7) % 60:02d} [plantly-prod:europe-west1:shop-db] {sig}\n"
        for m in range(10, 38, 2)
    )
    k8s[f"kubectl describe pods {pod} -n {ns}"] = (
        f"Name:             {pod}\n"
        f"Namespace:        {ns}\n"
        "Status:           Running\n"
        "Annotations:      infra.plantly.io/template: cloudsql-sidecar-v2 (PR infra#702)\n"
        "Containers:\n"
        "  checkout-api:\n"
        "    Image:          europe-west1-docker.pkg.dev/plantly-prod/shop/checkout-api:3.41.2\n"
        "    State:          Running\n"
        "    Ready:          True\n"
        "    Environment:\n"
        "      DB_POOL_SIZE:  30\n"
        "  cloud-sql-proxy:\n"
        "    Image:          gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.14.1\n"
        "    Args:\n"
        "      --structured-logs=false\n"
        "      --port=5432\n"
        "      --max-connections=10\n"
        "      plantly-prod:europe-west1:shop-db\n"
        "    State:          Running\n"
        "    Ready:          True\n"
        "Events:            <none>\n"
    )
    evs = [
        ev(
            "argocd",
            "info",
            "app checkout: synced PR infra#702 'standard Cloud SQL Auth Proxy sidecar (v2 template)': deployment.apps/checkout-api configured",
            at=start - 300,
        ),
        ev(
            "cloud-sql-proxy",
            "warn",
            f"[plantly-prod:europe-west1:shop-db] {sig}",
            **every(start, -5, 15),
            pods=pods_of(ca),
        ),
        ev(
            "checkout-api",
            "warn",
            "WARN  o.h.e.j.s.SqlExceptionHelper - HikariPool-1 - Connection is not available, request timed out after 2{ms}ms (total=10, active=10, idle=0, waiting=1{ms})",
            **every(start + 20, -5, 25),
            pods=pods_of(ca),
        ),
        ev(
            "checkout-api",
            "warn",
            "WARN  c.p.checkout.PlaceOrder - slow place-order 3{ms}ms cart=c_{n}",
            **every(start, -5, 18),
            pods=pods_of(ca),
        ),
        ev(
            "storefront",
            "error",
            "ERROR checkout submit failed: 504 from /api/checkout (gateway timeout) session=s_{n}",
            **every(start + 60, -4, 8),
        ),
        ev(
            "checkout-api",
            "info",
            "INFO  c.p.checkout.Application - checkout-api 3.41.2 started (gift message field)",
            at=-4000,
            pods=pods_of(ca),
        ),
        ev(
            "cloudsql",
            "info",
            "shop-db: CPU 31%, connections 44/1000, replication lag 0s",
            **every(-7000, -30, 300),
        ),
        ev(
            "recommendations",
            "warn",
            "model refresh took 4{ms}s (threshold 300s)",
            **every(-6000, -60, 900),
        ),
        ev(
            "checkout-api",
            "error",
            "ERROR c.p.checkout.Payments - Adyen timeout after 10000ms, retried",
            **every(-10600, -10200, 100),
            pods=pods_of(ca),
        ),
    ]
    return kube_case(
        seed=646,
        start=start,
        inc=alert(
            "[FIRING] CheckoutLatencyHigh p95 > 2s",
            "checkout",
            start,
            {
                "alertname": "CheckoutLatencyHigh",
                "namespace": ns,
                "service": "checkout-api",
            },
        ),
        exp=expected(
            "application",
            [
                "cloud-sql-proxy",
                "--max-connections=10",
                "max-connections",
                "PR infra#702",
                "cloudsql-sidecar-v2",
                "deployment/checkout-api",
                "checkout-api",
            ],
            sig,
            "PR infra#702's standard sidecar runs cloud-sql-proxy with --max-connections=10, while checkout-api's Hikari pool is 30 per pod. Past 10 connections the proxy makes new ones wait; Hikari times out and queues, place-order slows to seconds and the storefront gets 504s. The database is idle (40 of 1000 connections), pods are Ready 2/2. The storefront errors are the victim; the checkout release, recommendations and old Adyen timeouts are not the cause.",
            [
                f"cloud-sql-proxy: {sig}",
                "Hikari total=10 active=10 with pool size 30",
                "argocd: PR infra#702 sidecar template 27 min before",
            ],
            "Remove --max-connections (or set it above the pool size) in the sidecar template and roll checkout-api.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "checkout-api",
                pods_of(ca),
                ["INFO  c.p.checkout.Http - POST /api/cart/{n} 200 {ms}ms"],
                8,
            )
        ],
        evs=evs,
        services=[svc("checkout-api", 45, {"504": (0.001, 0.05)}, (0.35, 2.6))],
        gauges=[
            gauge(
                "hikaricp_connections_pending",
                {"pool": "HikariPool-1", "service": "checkout-api"},
                0,
                19,
                start,
            ),
            gauge("db_pool_in_use", {"service": "checkout-api"}, 6, 10, start),
            gauge("db_pool_max", {"service": "checkout-api"}, 30, 30, start),
            gauge(
                "cloudsql_database_postgresql_num_backends",
                {"database": "shop-db"},
                44,
                32,
                start,
            ),
        ],
        books={
            "checkout-slow.md": runbook(
                "Checkout slow",
                "Slow checkout is usually the payment provider. Check Adyen's status page and the payments latency panel; switch to the fallback acquirer if Adyen p95 > 5 s.",
            )
        },
    )


# =================================================================================================
# 7. Kubernetes, config: the shared config refactor (ConfigMap `catalog-env`, PR #1288) templated
#    `CACHE_KEY_PREFIX: "catalog:$(HOSTNAME):"` meaning the release name; kubelet expands it to the
#    pod name. Each of the 8 pods now writes and reads its own keys: the hit ratio falls from 0.94
#    to 0.07 and after each rollout to zero; the products database carries the load and is loud.
# =================================================================================================


@scenario(
    "catalog-cache-key-prefix-per-pod-hit-ratio-collapse", ("runtime", "ConfigChange")
)
def catalog_cache_key_prefix_per_pod_hit_ratio_collapse() -> dict[str, Any]:
    start = -2000
    ns = "catalog"
    cat = app(
        "catalog-api",
        image="ghcr.io/bricklane-market/catalog-api:8.12.0",
        port=3000,
        rs="58b9c7d6f4",
        cluster_ip="172.20.50.9",
        desired=8,
        pods=[
            (s, "1/1", "Running", "0", "36m", i % 3)
            for i, s in enumerate(["a1", "b2", "c3", "d4", "e5", "f6", "g7", "h8"])
        ],
    )
    k8s = namespace(
        ns, NODES_IAD, [cat], seed=647, configmaps=[("catalog-env", "14", "36m")]
    )
    sig = "CACHE_KEY_PREFIX:  catalog:$(HOSTNAME):"
    k8s[f"kubectl describe configmaps catalog-env -n {ns}"] = (
        "Name:         catalog-env\n"
        f"Namespace:    {ns}\n"
        "Annotations:  bricklane.io/pr: #1288 shared env refactor\n"
        "\nData\n====\n"
        "CACHE_TTL_SECONDS:\n----\n600\n"
        "CACHE_KEY_PREFIX:\n----\ncatalog:$(HOSTNAME):\n"
        "REDIS_URL:\n----\nredis://catalog-cache.abc123.use1.cache.amazonaws.com:6379/0\n"
    )
    k8s[f"kubectl describe deployments catalog-api -n {ns}"] = (
        "Name:                   catalog-api\n"
        f"Namespace:              {ns}\n"
        "Replicas:               8 desired | 8 updated | 8 total | 8 available | 0 unavailable\n"
        "Pod Template:\n"
        "  Containers:\n"
        "   catalog-api:\n"
        "    Environment:\n"
        "      HOSTNAME:           (v1:metadata.name)\n"
        f"      {sig}\n"
        "    Environment Variables from:\n"
        "      catalog-env  ConfigMap  Optional: false\n"
    )
    evs = [
        ev(
            "argocd",
            "info",
            "app catalog: synced PR #1288 'shared env refactor': configmap/catalog-env configured, deployment.apps/catalog-api configured",
            at=start - 150,
        ),
        ev(
            "argocd",
            "info",
            "app catalog diff configmap/catalog-env: CACHE_KEY_PREFIX 'catalog:v8:' -> 'catalog:$(HOSTNAME):'",
            at=start - 149,
        ),
        ev(
            "catalog-api",
            "info",
            '{"level":30,"msg":"cache client ready","prefix":"catalog:catalog-api-58b9c7d6f4-{ms}:"}',
            at=start - 120,
            pods=pods_of(cat),
        ),
        ev(
            "catalog-api",
            "info",
            '{"level":30,"msg":"cache stats","hits":{ms},"misses":1{n},"hit_ratio":0.0{ms}}',
            **every(start, -10, 60),
            pods=pods_of(cat),
        ),
        ev(
            "products-db",
            "error",
            "[1{ms}] ERROR:  canceling statement due to statement timeout; STATEMENT: SELECT p.*, array_agg(v.*) FROM products p JOIN variants v ...",
            **every(start + 60, -4, 9),
        ),
        ev(
            "rds",
            "warn",
            "products-db CPUUtilization 93.{ms}% > 85% (alarm products-db-cpu)",
            **every(start + 120, -30, 120),
        ),
        ev(
            "catalog-api",
            "warn",
            '{"level":40,"msg":"slow db query","ms":1{ms}0,"query":"product_by_slug"}',
            **every(start, -5, 12),
            pods=pods_of(cat),
        ),
        ev(
            "catalog-api",
            "info",
            '{"level":30,"msg":"catalog-api 8.12.0 started (colour swatches)"}',
            at=-90000,
            pods=pods_of(cat),
        ),
        ev(
            "search-sync",
            "warn",
            "opensearch bulk 429, backing off 5s",
            **every(-7000, -60, 700),
        ),
        ev(
            "products-db",
            "error",
            "ERROR:  could not serialize access due to concurrent update",
            **every(-10700, -10400, 120),
        ),
    ]
    return kube_case(
        seed=647,
        start=start,
        inc=alert(
            "[ALERT] RDSHighCPU products-db > 85%",
            "products-db",
            start,
            {"alertname": "RDSHighCPU", "dbinstance": "products-db", "team": "catalog"},
        ),
        exp=expected(
            "application",
            [
                "configmap/catalog-env",
                "catalog-env",
                "CACHE_KEY_PREFIX",
                "PR #1288",
                "catalog-api",
                "deployment/catalog-api",
            ],
            "catalog:$(HOSTNAME):",
            "PR #1288 set CACHE_KEY_PREFIX to catalog:$(HOSTNAME): in the catalog-env ConfigMap; in the pod spec $(HOSTNAME) expands to each pod's name, so each of the 8 catalog-api pods uses its own keys in the shared Redis. The hit ratio fell from 0.94 to a few percent and every product page reads products-db, which is now at 90 % CPU with statement timeouts (the loud victim). The catalog release, OpenSearch 429s and old serialization errors are not the cause.",
            [
                "catalog-api cache stats: hit_ratio 0.0x since the sync",
                "configmap catalog-env: CACHE_KEY_PREFIX catalog:$(HOSTNAME):",
                "argocd: PR #1288 synced just before",
            ],
            "Set CACHE_KEY_PREFIX to a fixed 'catalog:v8:' and roll catalog-api; add the hit ratio to the catalog dashboards.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "catalog-api",
                pods_of(cat),
                ['{"level":30,"msg":"GET /p/{n} 200","ms":{ms}}'],
                8,
            )
        ],
        evs=evs,
        services=[svc("catalog-api", 300, {"500": (0.0005, 0.01)}, (0.05, 0.6))],
        gauges=[
            gauge(
                "redis_keyspace_hit_ratio",
                {"cluster": "catalog-cache"},
                0.94,
                0.06,
                start,
            ),
            gauge("rds_cpu_utilization", {"dbinstance": "products-db"}, 22, 93, start),
        ],
        books={
            "rds-high-cpu.md": runbook(
                "RDS high CPU",
                "High CPU on products-db is a missing index or a bad plan. Find the top query in Performance Insights, ANALYZE the table, and scale the instance class if needed.",
            )
        },
    )


# =================================================================================================
# 8. DNS, a wrong answer: for Friday's restore drill (DR-41) someone pointed the private record
#    `reports-db.data.internal` at the restored instance pg-restore-drill (from Saturday's snapshot)
#    "for ten minutes" and never pointed it back. BI dashboards read frozen numbers: no error, the
#    queries succeed; the database's own health answer names the wrong instance.
# =================================================================================================


@scenario("reports-db-record-left-on-restore-drill-instance")
def reports_db_record_left_on_restore_drill_instance() -> dict[str, Any]:
    start = -3000
    sig = "reports-db.data.internal. 60 IN CNAME pg-restore-drill.c9xk2.eu-central-1.rds.amazonaws.com."
    evs = [
        ev(
            "route53",
            "info",
            f"ChangeResourceRecordSets UPSERT {sig} by sso/j.kowalski (DR-41 restore drill, revert in 10m)",
            at=-259000,
        ),
        ev(
            "bi-refresh",
            "info",
            "INFO connected to reports-db.data.internal:5432 (server_addr 10.20.4.17, inet_server: pg-restore-drill, pg_is_in_recovery=false)",
            **every(start, -60, 600),
        ),
        ev(
            "bi-refresh",
            "info",
            "INFO refresh daily_gmv ok rows=0 new since last refresh (max(order_date)=2026-12-05)",
            **every(start, -60, 600),
        ),
        ev(
            "bi-refresh",
            "warn",
            "WARN freshness check orders_fact: newest row 2026-12-05 23:59, expected >= 2026-12-07 14:00",
            **every(start, -60, 300),
        ),
        ev(
            "pg-reports-replica",
            "info",
            "LOG:  checkpoint complete: wrote 1{ms} buffers; replay lag 0 s (reports-replica-2)",
            **every(-7000, -30, 300),
        ),
        ev(
            "superset",
            "error",
            "Dashboard 'Revenue today' alert: value 0.00 below threshold; chart 'GMV by hour' empty for 2026-12-07",
            **every(start + 60, -5, 20),
        ),
        ev(
            "superset",
            "info",
            "Superset 4.1.1 upgrade complete (helm release superset)",
            at=-6200,
        ),
        ev(
            "airflow",
            "warn",
            "Task dbt_run.orders_fact took 1{ms}s longer than SLA",
            **every(-6800, -60, 900),
        ),
        ev(
            "superset",
            "error",
            "OperationalError: could not connect to server: Connection timed out (reports-db.data.internal)",
            **every(-10800, -10500, 60),
        ),
    ]
    spec = simple(
        648,
        start,
        ticket(
            "Revenue dashboard shows nothing for today",
            "dashboards",
            start,
            ["numbers frozen since the weekend"],
        ),
        expected(
            "dns",
            [
                "reports-db.data.internal",
                "reports-db",
                "route53",
                "pg-restore-drill",
                "DR-41",
                "private hosted zone data.internal",
            ],
            "pg-restore-drill",
            "For the DR-41 restore drill reports-db.data.internal was pointed at pg-restore-drill, the instance restored from Saturday's snapshot, and never pointed back at reports-replica-2. BI reads a frozen copy: queries succeed, today's data is absent. The health endpoint behind the name answers the drill instance. Superset alerts are the victim; the Superset upgrade, dbt SLA warnings and old connect timeouts are not the cause.",
            [
                f"route53: UPSERT {sig}",
                "reports-db health names pg-restore-drill, snapshot 2026-12-05",
                "bi-refresh: newest row 2026-12-05",
            ],
            "Point reports-db.data.internal back at reports-replica-2, delete pg-restore-drill, and add the record to Terraform so drift is visible.",
        ),
        [
            bg(
                "superset",
                ["superset-web-1", "superset-web-2"],
                ['INFO 127.0.0.1 "POST /api/v1/chart/data HTTP/1.1" 200 {ms}ms'],
                8,
            )
        ],
        evs,
        [svc("superset", 15, {"500": (0.002, 0.004)}, (0.8, 0.8))],
        [
            gauge(
                "bi_orders_fact_newest_row_age_seconds",
                {"source": "reports-db"},
                900,
                140000,
                -259000,
            )
        ],
        {
            "dashboards-empty.md": runbook(
                "Dashboards empty",
                "An empty dashboard means the dbt run failed. Re-run the dbt_run DAG in Airflow and clear the Superset cache.",
            )
        },
    )
    return with_netcheck(
        spec,
        [
            {
                "name": "reports-db-health",
                "url": "http://reports-db.data.internal/health",
                "fault": {
                    "kind": "ok",
                    "body": '{"instance":"pg-restore-drill","restored_from":"rds:reports-2026-12-05-23-00","in_recovery":false}',
                },
            },
            {
                "name": "reports-replica-2-health",
                "url": "http://reports-replica-2.data.internal/health",
                "fault": {
                    "kind": "ok",
                    "body": '{"instance":"reports-replica-2","in_recovery":true,"replay_lag_s":0}',
                },
            },
        ],
        None,
        {
            "reports-db-health": {"failed_layer": "none", "reason": None},
            "reports-replica-2-health": {"failed_layer": "none", "reason": None},
        },
    )


# =================================================================================================
# 9. TLS, slowness: the api.wayfare.app certificate was renewed with an RSA 4096 key (SEC-77,
#    "stronger keys") on the two HAProxy VMs. Mobile clients on flaky networks make a full handshake
#    often; HAProxy's CPU saturates on handshakes, the handshake p99 goes from 40 ms to 2.1 s, and the
#    apps time out connecting. No error lines: HAProxy logs the timing; the app servers are idle.
# =================================================================================================


@scenario("api-lb-rsa4096-cert-handshake-cpu")
def api_lb_rsa4096_cert_handshake_cpu() -> dict[str, Any]:
    start = -1400
    sig = "SSL handshake took 2{ms}ms"
    evs = [
        ev(
            "certbot",
            "info",
            "haproxy-01: Renewed certificate for api.wayfare.app with --key-type rsa --rsa-key-size 4096 (SEC-77 stronger keys); deploy hook: systemctl reload haproxy",
            at=start - 200,
        ),
        ev(
            "certbot",
            "info",
            "haproxy-02: Renewed certificate for api.wayfare.app with --key-type rsa --rsa-key-size 4096 (SEC-77 stronger keys); deploy hook: systemctl reload haproxy",
            at=start - 180,
        ),
        ev(
            "haproxy",
            "warn",
            "haproxy-01: fe_api: "
            + sig.replace("{ms}", "1{ms}")
            + " (full handshake, no session resumption), ssl_conn_rate 1{ms}/s, idle 0%",
            **every(start, -5, 10),
        ),
        ev(
            "haproxy",
            "info",
            "haproxy-01 fe_api: 10.8.{ms}.21:{n} [07/Dec/2026:15:{n}:{ms}] fe_api~ be_api/app-02 2{ms}/0/1/38/2{ms} 200 412 - - ---- TLSv1.3 hs=2{ms}ms",
            **every(start, -6, 14),
        ),
        ev(
            "mobile-telemetry",
            "error",
            "NSURLErrorDomain -1001 The request timed out. host=api.wayfare.app app=ios 6.2.{ms} phase=secureConnectionStart",
            **every(start + 30, -3, 6),
        ),
        ev(
            "mobile-telemetry",
            "error",
            "java.net.SocketTimeoutException: SSL handshake timed out host=api.wayfare.app app=android 6.2.{ms}",
            **every(start + 40, -3, 7),
        ),
        ev(
            "app",
            "info",
            "app-02: deploy wayfare-api 2026.49.1 complete (trip sharing)",
            at=-5000,
        ),
        ev(
            "app",
            "info",
            "app-02: puma stats: busy 3/32, backlog 0",
            **every(-7000, -30, 120),
        ),
        ev(
            "redis",
            "warn",
            "redis-01: Asynchronous AOF fsync is taking too long (disk is busy?)",
            **every(-6500, -60, 600),
        ),
        ev(
            "haproxy",
            "error",
            "haproxy-02: Server be_api/app-03 is DOWN, reason: Layer4 timeout",
            **every(-10600, -10500, 50),
        ),
    ]
    return simple(
        649,
        start,
        ticket(
            "App is really slow to load for a lot of users, some get 'request timed out'",
            "mobile app",
            start,
        ),
        expected(
            "tls",
            [
                "api.wayfare.app",
                "haproxy-01",
                "haproxy-02",
                "rsa 4096",
                "SEC-77",
                "certificate",
                "haproxy",
                "fe_api",
            ],
            "full handshake, no session resumption",
            "The api.wayfare.app certificate was renewed with an RSA 4096 key (SEC-77) on both HAProxy VMs. RSA 4096 signatures cost several times RSA 2048; with mobile clients making full handshakes (no resumption) HAProxy's CPU saturates and handshakes take ~2 s, so the apps time out in the TLS phase. The app servers are idle (busy 3/32). The mobile timeouts are the victim; the API release, Redis fsync warnings and old server-down lines are not the cause.",
            [
                "haproxy: SSL handshake took 2 s (full handshake), idle 0%",
                "certbot: renewed with RSA 4096 (SEC-77) 27 min ago",
                "mobile telemetry: timeouts at secureConnectionStart",
            ],
            "Re-issue with an ECDSA P-256 key (or RSA 2048) and reload; enable TLS session tickets/resumption; add handshake time to the LB dashboard.",
        ),
        [
            bg(
                "haproxy",
                ["haproxy-01", "haproxy-02"],
                [
                    "fe_api~ be_api/app-02 0/0/1/3{ms}/3{ms} 200 {n} - - ---- TLSv1.3 hs={ms}ms"
                ],
                8,
            )
        ],
        evs,
        [
            svc("wayfare-api", 220, {"500": (0.001, 0.001)}, (0.06, 0.06)),
            svc("haproxy-fe_api", 230, {"503": (0.0005, 0.003)}, (0.08, 2.2)),
        ],
        [
            gauge(
                "haproxy_tls_handshake_p99_seconds",
                {"frontend": "fe_api"},
                0.04,
                2.1,
                start,
            ),
            gauge("node_cpu_busy_ratio", {"instance": "haproxy-01"}, 0.22, 0.99, start),
            gauge("node_cpu_busy_ratio", {"instance": "app-01"}, 0.3, 0.12, start),
        ],
        {
            "app-slow.md": runbook(
                "App slow",
                "Slow app loads are the Rails API. Check puma backlog and scale the app VMs (terraform var app_count).",
            )
        },
    )


# =================================================================================================
# 10. Connect, quiet queue: the mailer VM was rebuilt in the new GCP project (OPS-88, project
#     consolidation). Google Cloud blocks outbound TCP 25; Postfix relays to the provider on port 25
#     and defers every message: no ERROR, just `status=deferred` at info and a growing queue.
# =================================================================================================


@scenario("mailer-vm-new-project-outbound-25-blocked")
def mailer_vm_new_project_outbound_25_blocked() -> dict[str, Any]:
    start = -2800
    sig = "connect to smtp.relaypost.example[203.0.113.25]:25: Connection timed out"
    evs = [
        ev(
            "terraform",
            "info",
            "OPS-88 project consolidation: google_compute_instance.mailer-01 created in project housely-prod-core (was housely-legacy); relayhost unchanged [smtp.relaypost.example]:25",
            at=start - 400,
        ),
        ev(
            "postfix",
            "info",
            "mailer-01 postfix/smtp[1{ms}]: {n}A{ms}: to=<user{n}@gmail.com>, relay=none, delay=1{ms}, delays=0.01/0/30/0, dsn=4.4.1, status=deferred ("
            + sig
            + ")",
            **every(start, -5, 9),
        ),
        ev(
            "postfix",
            "warn",
            "mailer-01 postfix/qmgr[9{ms}]: queue active 1{ms} deferred 3{ms}",
            **every(start, -30, 300),
        ),
        ev(
            "web",
            "error",
            "ERROR users.views - password reset requested again by user {n} (3rd time in 10 min), rate-limited",
            **every(start + 100, -5, 14),
        ),
        ev(
            "web",
            "info",
            "INFO django housely-web 4.22 deployed (new listing form)",
            at=-5400,
        ),
        ev(
            "celery",
            "info",
            "INFO tasks.send_email queued message to mailer-01 (port 587) ok (accepted by local postfix)",
            **every(start, -5, 20),
        ),
        ev(
            "search", "warn", "solr: autowarming took 1{ms}ms", **every(-6500, -60, 600)
        ),
        ev(
            "postfix",
            "warn",
            "mailer-01 postfix/smtp: {n}: to=<x@hotmail.example>, status=bounced (550 5.1.1 mailbox unavailable)",
            **every(-10700, -10300, 120),
        ),
    ]
    spec = simple(
        650,
        start,
        ticket(
            "people say they're not receiving our emails (reset links, viewing confirmations)",
            "email",
            start,
        ),
        expected(
            "connect",
            [
                "mailer-01",
                "smtp.relaypost.example",
                "port 25",
                "OPS-88",
                "relayhost",
                "postfix",
                "housely-prod-core",
            ],
            sig,
            "mailer-01 was rebuilt in the GCP project housely-prod-core (OPS-88). Google Cloud blocks outbound TCP port 25, and Postfix still relays to smtp.relaypost.example:25, so every connection times out and every message is deferred (dsn 4.4.1). Nothing logs an error: the deferred queue grows. The web's repeated reset requests are the victim; the web release, Solr warnings and old bounces are not the cause.",
            [
                f"postfix: status=deferred ({sig})",
                "postfix qmgr: deferred queue growing",
                "terraform: mailer-01 recreated in housely-prod-core",
            ],
            "Set relayhost to [smtp.relaypost.example]:587 (submission, with auth) and flush the queue (postqueue -f).",
        ),
        [
            bg(
                "celery",
                ["celery-1", "celery-2"],
                ["INFO Task tasks.index_listing[{n}] succeeded in 0.{ms}s"],
                8,
            )
        ],
        evs,
        [svc("web", 40, {"429": (0.001, 0.02)}, (0.2, 0.2))],
        [
            gauge("postfix_queue_deferred", {"instance": "mailer-01"}, 2, 4100, start),
            gauge("postfix_sent_per_minute", {"instance": "mailer-01"}, 70, 0, start),
        ],
        {
            "emails-missing.md": runbook(
                "Emails not received",
                "Missing emails are usually spam filtering. Check the provider's suppression list and our SPF/DKIM in the DNS dashboard.",
            )
        },
    )
    return with_netcheck(
        spec,
        [
            {
                "name": "smtp-relay",
                "url": "http://smtp.relaypost.example/",
                "fault": {"kind": "connect_timeout"},
            },
            {
                "name": "relay-submission",
                "url": "https://submission.relaypost.example/",
                "fault": {"kind": "ok"},
            },
        ],
        "smtp-relay",
        {
            "smtp-relay": {"failed_layer": "connect", "reason": "timeout"},
            "relay-submission": {"failed_layer": "none", "reason": None},
        },
    )


# =================================================================================================
# 11. HTTP, a wrong answer: the FX rates provider moved its API behind a CDN; a cache rule on
#     their side serves /v2/latest from cache (`Age` keeps growing, `cache-control: max-age=86400`).
#     Every call answers 200 with yesterday's rates. Our pricing service only warns "rates unchanged";
#     card payments in other currencies are priced with stale rates and the treasury desk sees losses.
# =================================================================================================


@scenario("fx-provider-cdn-serves-stale-rates-200")
def fx_provider_cdn_serves_stale_rates_200() -> dict[str, Any]:
    start = -3200
    sig = "rates unchanged since 2026-12-06T16:00:00Z"
    evs = [
        ev(
            "fx-rates",
            "warn",
            "WARN  fx.RatesPoller - "
            + sig
            + " (x-cache: HIT, age: 86{ms}s) source=api.ratesource.example/v2/latest",
            **every(start, -15, 60),
        ),
        ev(
            "fx-rates",
            "info",
            "INFO  fx.RatesPoller - GET https://api.ratesource.example/v2/latest 200 in 2{ms}ms, 168 currencies",
            **every(start, -10, 60),
        ),
        ev(
            "ratesource-status",
            "info",
            "Ratesource status: 'We have moved our API to a global edge network for faster responses' (maintenance completed)",
            at=start - 600,
        ),
        ev(
            "treasury",
            "error",
            "ERROR margin check: realised FX loss on EUR/TRY card settlements 1.{ms}% above tolerance (batch {n})",
            **every(start + 300, -10, 60),
        ),
        ev(
            "payments",
            "info",
            "INFO payments-core 12.3.0 deployed (3DS2 frictionless for AmEx)",
            at=-7600,
        ),
        ev(
            "payments",
            "warn",
            "WARN acquirer latency p95 8{ms}ms (threshold 800)",
            **every(-7000, -60, 600),
        ),
        ev(
            "fx-rates",
            "error",
            "ERROR fx.RatesPoller - GET https://api.ratesource.example/v2/latest failed: 503 Service Unavailable",
            **every(-10800, -10600, 60),
        ),
    ]
    spec = simple(
        651,
        start,
        ticket(
            "Treasury: FX margins on card payments look wrong today",
            "card payments",
            start,
        ),
        expected(
            "http",
            [
                "api.ratesource.example",
                "ratesource",
                "fx rates provider",
                "ratesource cdn",
                "fx-rates",
                "/v2/latest",
            ],
            sig,
            "The FX provider moved its API behind a CDN whose cache rule serves /v2/latest for a day: every call answers 200 with the rates of 2026-12-06 16:00 (x-cache HIT, large Age). fx-rates only warns that rates are unchanged, so card payments in other currencies are priced on stale rates and treasury sees margin losses (the victim). The payments release, acquirer latency and old 503s are not the cause.",
            [
                f"fx-rates: {sig} (x-cache: HIT)",
                "netcheck: api.ratesource.example answers 200 with age 86000 and yesterday's timestamp",
                "treasury: realised FX loss above tolerance",
            ],
            "Ask the provider to bypass the cache for /v2/latest (or add a cache-busting parameter / Cache-Control: no-cache request header); make fx-rates refuse rates older than 5 min and fail over to the secondary provider.",
        ),
        [
            bg(
                "payments",
                ["payments-core-1", "payments-core-2"],
                ["INFO authorise ok currency=EUR amount={n}.{ms} ms={ms}"],
                8,
            )
        ],
        evs,
        [svc("payments-core", 80, {"402": (0.01, 0.011)}, (0.3, 0.31))],
        [gauge("fx_rates_age_seconds", {"source": "ratesource"}, 40, 86000, start)],
        {
            "fx-rates-stale.md": runbook(
                "FX rates stale",
                "If the rates poller logs failures (503), switch FX_PROVIDER to the secondary; failures are the only way rates get stale.",
            )
        },
    )
    return with_netcheck(
        spec,
        [
            {
                "name": "ratesource-latest",
                "url": "https://api.ratesource.example/v2/latest",
                "fault": {
                    "kind": "ok",
                    "body": '{"base":"EUR","timestamp":"2026-12-06T16:00:00Z","rates":{"USD":1.0571,"TRY":36.912}}',
                    "headers": {
                        "x-cache": "HIT",
                        "age": "86012",
                        "cache-control": "public, max-age=86400",
                    },
                },
            }
        ],
        None,
        {"ratesource-latest": {"failed_layer": "none", "reason": None}},
    )


# =================================================================================================
# 12. Application, a replica falling behind: to stop an analyst's long queries being cancelled on
#     the read replica, CHG-2210 set `max_standby_streaming_delay = -1` on pg-replica-01. A 3-hour
#     risk query now holds WAL replay; replication lag grows to 40 minutes. The app reads balances
#     from the replica: customers see old balances. Postgres only logs the setting at LOG level.
# =================================================================================================


@scenario("replica-replay-paused-by-standby-delay-unlimited")
def replica_replay_paused_by_standby_delay_unlimited() -> dict[str, Any]:
    start = -2400
    sig = "max_standby_streaming_delay = -1"
    evs = [
        ev(
            "ansible",
            "info",
            "CHG-2210 'stop cancelling analyst queries on replica': pg-replica-01 postgresql.conf: "
            + sig
            + " (was 30s); reload",
            at=-11000,
        ),
        ev(
            "pg-replica-01",
            "info",
            'LOG:  parameter "max_standby_streaming_delay" changed to "-1"',
            at=-10990,
        ),
        ev(
            "pg-replica-01",
            "info",
            "LOG:  duration: 94122{ms}.{ms} ms  statement: /* risk-weekly */ SELECT account_id, sum(amount) FROM ledger_entries le JOIN ... (user analyst_ro)",
            **every(start, -120, 600),
        ),
        ev(
            "pg-replica-01",
            "warn",
            "LOG:  recovery is waiting on conflict with query, replay paused behind pid 2{ms} (user analyst_ro, running 2h41m; max_standby_streaming_delay = -1)",
            **every(start, -30, 120),
        ),
        ev(
            "accounts-api",
            "warn",
            '{"level":"warning","event":"balance_read_from_replica","lag_s":{ms}0,"account":"acc_{n}"}',
            **every(start, -5, 20),
        ),
        ev(
            "mobile-gateway",
            "error",
            '{"level":"error","msg":"transfer rejected: insufficient funds (client balance shown higher)","user":"u_{n}"}',
            **every(start + 120, -5, 12),
        ),
        ev(
            "accounts-api",
            "info",
            '{"level":"info","event":"startup","version":"3.18.0","note":"instant top-ups"}',
            at=-6000,
        ),
        ev(
            "pg-primary",
            "warn",
            "LOG:  checkpoints are occurring too frequently (2{ms} seconds apart)",
            **every(-7000, -60, 900),
        ),
        ev(
            "accounts-api",
            "error",
            '{"level":"error","event":"db_error","msg":"server closed the connection unexpectedly"}',
            **every(-10800, -10600, 60),
        ),
    ]
    return simple(
        652,
        start,
        ticket(
            "Customers say their balance in the app is wrong after top-ups",
            "balances",
            start,
        ),
        expected(
            "application",
            [
                "pg-replica-01",
                "max_standby_streaming_delay",
                "CHG-2210",
                "replication lag",
                "analyst_ro",
                "read replica",
            ],
            sig,
            "CHG-2210 set max_standby_streaming_delay = -1 on pg-replica-01 so analyst queries are never cancelled. A multi-hour risk query by analyst_ro now conflicts with replay and WAL replay waits for it; replication lag grows to 40 minutes. accounts-api reads balances from the replica, so the app shows balances from before recent top-ups and transfers are rejected against the primary. The mobile gateway errors are the victim; the accounts-api release, checkpoint warnings and old connection errors are not the cause.",
            [
                f"ansible: CHG-2210 {sig}",
                "pg-replica-01: recovery is waiting on conflict with query",
                "pg_replication_lag_seconds 2 -> 2400",
            ],
            "Set max_standby_streaming_delay back to 30s (or move analysts to a separate replica with hot_standby_feedback), cancel the blocking query, and make accounts-api read balances from the primary when the lag passes 5 s.",
        ),
        [
            bg(
                "accounts-api",
                ["accounts-api-1", "accounts-api-2"],
                ['{"level":"info","event":"GET /v1/accounts/acc_{n}","ms":{ms}}'],
                8,
            )
        ],
        evs,
        [svc("accounts-api", 150, {"500": (0.0005, 0.0007)}, (0.03, 0.03))],
        [
            gauge(
                "pg_replication_lag_seconds",
                {"instance": "pg-replica-01"},
                0.4,
                2400,
                start,
            )
        ],
        {
            "balance-wrong.md": runbook(
                "Balance wrong",
                "Balance discrepancies come from the ledger projector. Check the ledger-projector consumer lag in Kafka and restart it if stuck.",
            )
        },
    )


# =================================================================================================
# 13. Application, a count that stopped moving: the search team reindexed products into a new
#     OpenSearch index with `refresh_interval: -1` for speed (SRCH-19) and swapped the alias; the
#     step that resets it to 1s failed silently (`|| true` in the script). Indexing succeeds, but
#     nothing is searchable after the swap: new and edited products never appear.
# =================================================================================================


@scenario("search-index-refresh-disabled-after-reindex")
def search_index_refresh_disabled_after_reindex() -> dict[str, Any]:
    start = -3400
    sig = '"index.refresh_interval": "-1"'
    evs = [
        ev(
            "reindex-job",
            "info",
            "SRCH-19 reindex products_v14 -> products_v15 done: 1,842,210 docs; settings {"
            + sig
            + ', "number_of_replicas": 0}',
            at=start - 500,
        ),
        ev(
            "reindex-job",
            "info",
            "alias products -> products_v15 swapped",
            at=start - 480,
        ),
        ev(
            "reindex-job",
            "warn",
            "reset settings failed: curl: (22) The requested URL returned error: 400 (ignored)",
            at=start - 470,
        ),
        ev(
            "catalog-indexer",
            "info",
            "bulk indexed {ms} docs into products (took {ms}ms, errors=false)",
            **every(start, -10, 30),
        ),
        ev(
            "opensearch",
            "info",
            "[os-data-02] [products_v15] refresh skipped: refresh_interval -1, {n} docs pending in buffer",
            **every(start, -30, 300),
        ),
        ev(
            "seller-portal",
            "error",
            "ERROR listing not found in search after publish: listing_id={n} seller=s_{n} (support ticket opened)",
            **every(start + 200, -5, 25),
        ),
        ev(
            "storefront",
            "info",
            "storefront 61.0.0 deployed (new filters sidebar)",
            at=-8000,
        ),
        ev(
            "opensearch",
            "warn",
            "[os-master-01] low disk watermark [85%] exceeded on os-data-03",
            **every(-7000, -60, 600),
        ),
        ev(
            "catalog-indexer",
            "error",
            "bulk failed: es_rejected_execution_exception (queue full)",
            **every(-10800, -10500, 60),
        ),
    ]
    return simple(
        653,
        start,
        ticket("Sellers say new listings don't show up in search", "search", start),
        expected(
            "application",
            [
                "products_v15",
                "refresh_interval",
                "SRCH-19",
                "reindex-job",
                "opensearch index products",
                "products",
            ],
            "refresh_interval -1",
            "The SRCH-19 reindex built products_v15 with refresh_interval -1, swapped the products alias to it, and the reset of the setting failed and was ignored. Documents are indexed but never refreshed, so new and edited listings are not searchable; the index count is frozen at the swap. Seller-portal errors are the victim; the storefront release, disk watermark warnings and old bulk rejections are not the cause.",
            [
                "reindex-job: settings refresh_interval -1, reset failed (ignored)",
                "opensearch: refresh skipped: refresh_interval -1",
                "searchable docs flat since the swap while indexing continues",
            ],
            'PUT products_v15/_settings {"index.refresh_interval": "1s", "number_of_replicas": 1}; remove \'|| true\' from the reindex script.',
        ),
        [
            bg(
                "search-api",
                ["search-api-1", "search-api-2"],
                ['{"path":"/search","q_len":{ms},"hits":{n},"ms":{ms}}'],
                8,
            )
        ],
        evs,
        [svc("search-api", 120, {"500": (0.0005, 0.0005)}, (0.04, 0.035))],
        [
            gauge(
                "opensearch_index_searchable_docs",
                {"index": "products"},
                1840000,
                1840000,
                start,
            ),
            gauge(
                "catalog_indexer_docs_indexed_per_minute",
                {"index": "products"},
                900,
                900,
                start,
            ),
        ],
        {
            "listing-missing.md": runbook(
                "Listing missing from search",
                "Listings missing from search are usually moderation holds. Check the listing's status in the admin and release it from the moderation queue.",
            )
        },
    )


# =================================================================================================
# 14. Platform, slowness on one VM: the cloud provider live-migrated api-03 to another host for
#     maintenance (a scheduled event announced by email). The new host is oversubscribed: CPU steal
#     is 35-45 % on api-03 only. A third of requests (the ones the LB sends to api-03) are slow; no
#     errors from the app, only its own latency warnings and the kernel's clocksource note.
# =================================================================================================


@scenario("api-vm-live-migrated-noisy-host-cpu-steal")
def api_vm_live_migrated_noisy_host_cpu_steal() -> dict[str, Any]:
    start = -1900
    sig = "%steal 41"
    evs = [
        ev(
            "gce",
            "info",
            "compute.instances.migrateOnHostMaintenance: instance api-03 (europe-west4-b) migrated to a new host (scheduled maintenance)",
            at=start - 120,
        ),
        ev(
            "kernel",
            "warn",
            "api-03 kernel: clocksource: timekeeping watchdog on CPU1: hpet retried 3 times before success",
            at=start - 100,
        ),
        ev(
            "sysstat",
            "info",
            "api-03 sar -u: all %user 48.2 %system 6.1 " + sig + ".3 %idle 4.4",
            **every(start, -30, 120),
        ),
        ev(
            "sysstat",
            "info",
            "api-01 sar -u: all %user 31.7 %system 5.0 %steal 0.0 %idle 63.3",
            **every(-7000, -30, 300),
        ),
        ev(
            "api",
            "warn",
            "api-03 gunicorn[{n}]: WARNING slow request GET /v2/trips/{n} took 2.{ms}s (worker busy)",
            **every(start, -5, 11),
        ),
        ev(
            "mobile-bff",
            "error",
            "ERROR upstream timeout: api.internal GET /v2/trips after 3000ms (backend api-03)",
            **every(start + 60, -5, 14),
        ),
        ev(
            "api",
            "info",
            "api-02: deploy rideshare-api 5.77.0 complete (promo codes)",
            at=-5600,
        ),
        ev(
            "postgres",
            "warn",
            "pg-01: autovacuum: found 1{n} dead tuples in trips, took 4{ms}s",
            **every(-6000, -60, 900),
        ),
        ev(
            "api",
            "error",
            "api-02 gunicorn: ERROR psycopg2.OperationalError: SSL SYSCALL error: EOF detected",
            **every(-10800, -10600, 60),
        ),
    ]
    return simple(
        654,
        start,
        ticket(
            "rider app: trips page slow and sometimes times out", "rider app", start
        ),
        expected(
            "platform",
            [
                "api-03",
                "cpu steal",
                "steal",
                "host maintenance",
                "live migration",
                "migrateOnHostMaintenance",
            ],
            sig,
            "api-03 was live-migrated to another host for scheduled maintenance; the new host is oversubscribed and api-03 loses about 40 % of its CPU to steal. The load balancer still sends it a third of requests, which are slow (2 s) while api-01 and api-02 are normal. The BFF timeouts are the victim; the API release, autovacuum and old SSL errors are not the cause.",
            [
                f"sar on api-03: {sig} since the migration",
                "gce: api-03 migrated on host maintenance",
                "slow requests only on api-03",
            ],
            "Stop and start api-03 (moves it to another host) or take it out of the LB pool; alert on CPU steal.",
        ),
        [
            bg(
                "api",
                ["api-01", "api-02", "api-03"],
                ["gunicorn: INFO GET /v2/trips/{n} 200 {ms}ms"],
                8,
            )
        ],
        evs,
        [svc("rideshare-api", 260, {"504": (0.0005, 0.02)}, (0.09, 0.8))],
        [
            gauge("node_cpu_steal_ratio", {"instance": "api-03"}, 0.0, 0.41, start),
            gauge("node_cpu_steal_ratio", {"instance": "api-01"}, 0.0, 0.0, start),
        ],
        {
            "trips-slow.md": runbook(
                "Trips page slow",
                "Slow trips page is the trips query. Run EXPLAIN on the trips_by_rider query and check pg-01 for missing indexes and autovacuum.",
            )
        },
    )


# =================================================================================================
# 15. DNS, latency: the mobile API uses Route 53 weighted records per region. During a load test
#     (PERF-12) the `eu-west-1` record's weight was set to 0 to push all traffic to us-east-1 and
#     left there. European users now cross the Atlantic for every call: latency doubles, nothing
#     fails. The only trace is the change and the resolver answers.
# =================================================================================================


@scenario("mobile-api-eu-weighted-record-left-at-zero")
def mobile_api_eu_weighted_record_left_at_zero() -> dict[str, Any]:
    start = -3000
    sig = "SetIdentifier=eu-west-1 Weight=0"
    evs = [
        ev(
            "cloudtrail",
            "info",
            f"route53:ChangeResourceRecordSets UPSERT api.gomobi.app A ALIAS {sig} (was 50) by k.ito (PERF-12 load test us-east-1)",
            at=start - 900,
        ),
        ev(
            "route53",
            "info",
            f"weighted records api.gomobi.app: SetIdentifier=us-east-1 Weight=50, {sig} (health checks: both healthy)",
            **every(start, -60, 900),
        ),
        ev(
            "edge-metrics",
            "info",
            "api.gomobi.app requests by region: us-east-1 100%, eu-west-1 0% (was 48%)",
            **every(start, -60, 300),
        ),
        ev(
            "api-eu",
            "info",
            "api-eu-02: nginx active connections 0, reqs/s 0",
            **every(start, -60, 300),
        ),
        ev(
            "api-us",
            "warn",
            "api-us-02: WARN high request rate 2{ms} rps, cpu 78%",
            **every(start, -30, 240),
        ),
        ev(
            "mobile-rum",
            "warn",
            "RUM p75 api latency DE 3{ms}ms FR 3{ms}ms (was 1{ms}ms) resolver answers 3.210.44.17 (us-east-1 ALB)",
            **every(start, -30, 180),
        ),
        ev(
            "mobile-rum",
            "error",
            "ERROR iOS crash-free rate dip: AppHangDetected on feed refresh > 2000ms region=EU",
            **every(start + 200, -10, 60),
        ),
        ev(
            "api-us",
            "info",
            "gomobi-api 14.2 deployed us-east-1 and eu-west-1 (reactions)",
            at=-7200,
        ),
        ev(
            "redis",
            "warn",
            "elasticache eu-west-1: CurrConnections dropped to 0 (idle)",
            **every(start, -60, 600),
        ),
        ev(
            "api-eu",
            "error",
            "api-eu-02: upstream connect error to payments.internal (timeout)",
            **every(-10800, -10600, 60),
        ),
    ]
    return simple(
        655,
        start,
        ticket("App feels sluggish for users in Europe today", "mobile app", start),
        expected(
            "dns",
            [
                "api.gomobi.app",
                "route53",
                "weighted record eu-west-1",
                "PERF-12",
                "eu-west-1",
                "SetIdentifier eu-west-1",
            ],
            sig,
            "During the PERF-12 load test the Route 53 weighted record for api.gomobi.app in eu-west-1 was set to weight 0 and never restored. DNS answers only the us-east-1 ALB, so European users cross the Atlantic for every call; latency roughly doubles and the EU stack is idle. App hangs in Europe are the victim; the API release, the US rate warnings and old upstream errors are not the cause.",
            [
                f"cloudtrail: UPSERT {sig}",
                "edge metrics: eu-west-1 0 % of requests",
                "RUM: EU latency doubled, resolver answers us-east-1",
            ],
            "Restore eu-west-1's weight (50) or switch to latency-based routing; keep load-test changes in Terraform with an expiry.",
        ),
        [
            bg(
                "api-us",
                ["api-us-01", "api-us-02", "api-us-03"],
                ['{"msg":"GET /v1/feed 200","ms":{ms},"country":"DE"}'],
                8,
            )
        ],
        evs,
        [svc("gomobi-api", 500, {"500": (0.0005, 0.0008)}, (0.12, 0.26))],
        [
            gauge(
                "alb_request_count_per_second", {"region": "eu-west-1"}, 240, 0, start
            ),
            gauge(
                "alb_request_count_per_second", {"region": "us-east-1"}, 260, 500, start
            ),
        ],
        {
            "app-sluggish.md": runbook(
                "App sluggish",
                "General slowness: check the Redis hit rate and scale the API ASG in the affected region.",
            )
        },
    )


# =================================================================================================
# 16. Application, a count that dropped: the events collector's remote config (PR config#77,
#     "sample debug events") set `sample_rate: 0.1` at the top level instead of under `debug`. All
#     events are now sampled at 10 %: the warehouse's event counts fall 90 %, the growth team's
#     conversion anomaly alert fires. The collector only logs the loaded config at INFO.
# =================================================================================================


@scenario("events-collector-sample-rate-applied-to-all-events")
def events_collector_sample_rate_applied_to_all_events() -> dict[str, Any]:
    start = -3300
    sig = "effective sample_rate=0.1 for all event types"
    evs = [
        ev(
            "config-service",
            "info",
            'published events-collector config rev 77 (PR config#77 \'sample debug events\'): {"sample_rate": 0.1, "debug": {"enabled": true}}',
            at=start - 60,
        ),
        ev(
            "events-collector",
            "info",
            'level=info msg="config reloaded" rev=77 ' + sig,
            at=start - 50,
        ),
        ev(
            "events-collector",
            "info",
            'level=info msg="flush" accepted=1{ms} sampled_out=1{n} dest=kinesis:events-raw',
            **every(start, -10, 60),
        ),
        ev(
            "growth-alerts",
            "error",
            "ANOMALY checkout_conversion_rate -88% vs 7-day baseline (events: order_completed)",
            **every(start + 600, -10, 300),
        ),
        ev(
            "warehouse",
            "warn",
            "dbt test failed: events_daily row count 1{ms}k below expected range",
            **every(start + 900, -60, 600),
        ),
        ev(
            "orders",
            "info",
            "orders-api: 1{ms} orders placed in last 5m (normal)",
            **every(-7000, -30, 300),
        ),
        ev(
            "web",
            "info",
            "web-app 2026.12.7 released (checkout redesign A/B 50%)",
            at=-6000,
        ),
        ev(
            "kinesis",
            "warn",
            "events-raw shard-0003 WriteProvisionedThroughputExceeded, retrying",
            **every(-10800, -10500, 60),
        ),
        ev(
            "events-collector",
            "error",
            'level=error msg="kinesis put failed" err="ProvisionedThroughputExceededException"',
            **every(-10800, -10500, 90),
        ),
    ]
    return simple(
        656,
        start,
        alert(
            "[ALERT] ConversionRateAnomaly checkout conversion -88%",
            "conversion tracking",
            start,
            {
                "alertname": "ConversionRateAnomaly",
                "team": "growth",
                "metric": "checkout_conversion_rate",
            },
        ),
        expected(
            "application",
            [
                "events-collector",
                "sample_rate",
                "PR config#77",
                "config rev 77",
                "events-collector config",
                "sampling",
            ],
            sig,
            "PR config#77 put sample_rate: 0.1 at the top level of the events-collector config instead of under debug; the collector applies it to every event type, so 90 % of analytics events are dropped. Orders are normal; the conversion anomaly and warehouse row-count failures are the victims. The web release with its checkout A/B test (the obvious suspect) and the old Kinesis throughput errors are not the cause.",
            [
                f"events-collector: config reloaded rev=77 {sig}",
                "flush: sampled_out ~10x accepted",
                "orders-api: order count normal",
            ],
            "Move sample_rate under debug (revert rev 77) and backfill the missing hours from the server-side order events.",
        ),
        [
            bg(
                "events-collector",
                ["collector-1", "collector-2"],
                ['level=info msg="ingest" type=page_view n={ms}'],
                8,
            )
        ],
        evs,
        [svc("events-collector", 900, {"500": (0.0002, 0.0002)}, (0.01, 0.01))],
        [
            gauge(
                "events_collector_accepted_per_second",
                {"stream": "events-raw"},
                880,
                88,
                start,
            ),
            gauge("orders_placed_per_minute", {"service": "orders-api"}, 42, 41, start),
        ],
        {
            "conversion-drop.md": runbook(
                "Conversion drop",
                "A conversion drop after a release is the release: roll back the web-app and end any running checkout A/B test.",
            )
        },
    )


def main(root: Path = HERE) -> None:
    for slug, build in SCENARIOS.items():
        spec = build()
        tidy_clock_times(spec["logs"])
        if slug in STAGES:
            stage, reason = STAGES[slug]
            spec["expected"]["root_cause_stage"] = stage
            spec["expected"]["root_cause_reason"] = reason
        base.write(slug, spec, root)
        print(slug)


if __name__ == "__main__":
    main()
