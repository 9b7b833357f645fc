"""Writes the thirty-first held-out scenario set, bench/heldout31: `python bench/heldout31/_build.py`.

New incidents, none of them in the bundled set or in the earlier bench/heldout* sets (their slugs
were checked). Theme: data systems and asynchronous work: a promoted replica with a stale config,
replication read as data loss, a consumer group rebalancing in a loop, a dead-letter queue filling,
a cache miss storm, object storage throttling, a batch job holding locks, a migration taking a table
lock, connection limits and pool modes, disk burst credits, stuck shard allocation, a message size
limit and clock-dependent jobs, on Kubernetes and on VMs and managed services. In every case the
loudest service is a victim or a red herring. As in heldout28, everything that matters is written
by hand below and the bulk comes from bench/heldout28/_build.py's helpers (and through them the
earlier builders'), each scenario with a fixed seed (689-704). The author read neither the planner
(`reasoning/`) nor the engine (`diagnosis/engine/`, `docs/engine.md`), nor their tests, nor any
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


h28 = _load("heldout28_build", HERE.parent / "heldout28" / "_build.py")
base = h28.base

table = base.table
events = base.events
runbook = base.runbook
ev = h28.ev
bg = h28.bg
expected = h28.expected
simple = h28.simple
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
NODES_FRA = h28.NODES_FRA
NODES_IAD = h28.NODES_IAD
NODES_DUB = h28.NODES_DUB

SCENARIOS: dict[str, Any] = {}
STAGES: dict[str, tuple[str, str]] = {}


def scenario(slug: str, stage: tuple[str, str] | None = None):
    def register(fn):
        SCENARIOS[slug] = fn
        if stage is not None:
            STAGES[slug] = stage
        return fn

    return register


def herrings(
    release: tuple[str, str, int],
    stale: tuple[str, str],
    noisy: tuple[str, str],
) -> list[dict[str, Any]]:
    """The usual company: an innocent release, errors ~3 h ago that stopped, a noisy bystander."""
    rel_svc, rel_msg, rel_at = release
    return [
        ev(rel_svc, "info", rel_msg, at=rel_at),
        ev(stale[0], "error", stale[1], **every(-10900, -10300, 60)),
        ev(noisy[0], "warn", noisy[1], **every(-7000, -20, 240)),
    ]


# =================================================================================================
# 1. Managed MySQL, a promoted replica with a stale config: the planned failover (CHG-2231) promoted
#    the cross-AZ replica orders-db-b, which was created with the replica parameter group
#    (max_connections=150, sized for the reporting reader). The primary's group had 1200. Since the
#    switchover the order API's 24 pods with 8 connections each hit "Too many connections"; the checkout
#    errors are loud, the parameter group is in the RDS events and the DB's variables.
# =================================================================================================


@scenario("promoted-replica-kept-reader-parameter-group-max-connections")
def promoted_replica_kept_reader_parameter_group() -> dict[str, Any]:
    start = -2100
    sig = "parameter group orders-replica-pg (max_connections=150)"
    evs = [
        ev(
            "rds-events",
            "info",
            "orders-db: Multi-AZ/replica switchover CHG-2231 started; promoting orders-db-b to writer",
            at=start - 120,
        ),
        ev(
            "rds-events",
            "info",
            f"orders-db-b: promotion complete; instance is writer, {sig}, pending-reboot: none",
            at=start - 40,
        ),
        ev(
            "orders-api",
            "error",
            "sqlalchemy.exc.OperationalError: (pymysql.err.OperationalError) (1040, 'Too many connections') host=orders-db.cluster-c9xk.eu-west-1.rds.amazonaws.com",
            **every(start, -5, 7),
        ),
        ev(
            "checkout-web",
            "error",
            "POST /checkout/confirm -> 503 upstream orders-api failed (order_{n})",
            **every(start + 20, -4, 9),
        ),
        ev(
            "db-inspector",
            "info",
            "orders-db writer=orders-db-b SHOW VARIABLES max_connections=150 Threads_connected=150 Max_used_connections=150",
            **every(start, -60, 300),
        ),
        ev(
            "db-inspector",
            "info",
            "orders-db writer=orders-db-a SHOW VARIABLES max_connections=1200 Threads_connected=212",
            **every(-7200, start - 200, 300),
        ),
        *herrings(
            ("orders-api", "orders-api 5.14.0 deployed (gift wrap option)", -4700),
            ("orders-api", "redis timeout fetching cart session (ReadTimeout 200ms)"),
            ("search-api", "slow query warning: facet aggregation 1{ms} ms"),
        ),
    ]
    return simple(
        689,
        start,
        alert(
            "[FIRING] CheckoutErrorRate > 5% for 5m",
            "checkout",
            start,
            {"alertname": "CheckoutErrorRate", "team": "payments-web", "env": "prod"},
        ),
        expected(
            "application",
            [
                "orders-db",
                "orders-db-b",
                "max_connections",
                "orders-replica-pg",
                "parameter group",
                "CHG-2231",
            ],
            sig,
            "The planned switchover CHG-2231 promoted orders-db-b, which still uses the reader parameter group orders-replica-pg with max_connections=150 instead of the writer's 1200. The order API's connection pools need ~200 connections, so new connections fail with 1040 Too many connections. Checkout 503s are the victim; the orders-api release, the old Redis timeouts and search slow queries are not the cause.",
            [
                f"rds-events: {sig}",
                "db-inspector: max_connections=150 Threads_connected=150 on orders-db-b",
                "orders-api: 1040 Too many connections since the switchover",
            ],
            "Attach the writer parameter group (max_connections 1200) to orders-db-b and keep both instances on the same group; add a check to the switchover runbook.",
        ),
        [
            bg(
                "orders-api",
                ["orders-api-7f9c-1", "orders-api-7f9c-2", "orders-api-7f9c-3"],
                ['{"msg":"GET /v2/orders 200","ms":{ms}}'],
                8,
            )
        ],
        evs,
        [
            svc("orders-api", 320, {"500": (0.001, 0.09)}, (0.05, 0.4)),
            svc("checkout-web", 140, {"503": (0.001, 0.07)}, (0.2, 0.9)),
        ],
        [
            gauge(
                "mysql_global_status_threads_connected",
                {"instance": "orders-db"},
                212,
                150,
                start,
            ),
            gauge(
                "mysql_global_variables_max_connections",
                {"instance": "orders-db"},
                1200,
                150,
                start,
            ),
        ],
        {
            "checkout-errors.md": runbook(
                "Checkout errors",
                "Checkout errors after a deploy: roll back orders-api and check the Redis session store.",
            )
        },
    )


# =================================================================================================
# 2. PostgreSQL logical replication read as data loss: the reporting DB subscribes to the orders
#    publication. The orders service added a column (gift_note) with a migration on the publisher
#    only; the subscription's apply worker fails on every retry ("missing replicated column"), so the
#    reporting DB has no orders since. Finance says orders "vanished". Nothing was lost.
# =================================================================================================


@scenario("logical-subscription-stalled-on-new-column-orders-look-lost")
def logical_subscription_stalled_on_new_column() -> dict[str, Any]:
    start = -3000
    sig = 'logical replication target relation "public.orders" is missing replicated column: "gift_note"'
    evs = [
        ev(
            "orders-migrate",
            "info",
            "migration 0142_order_gift_note applied on orders-primary: ALTER TABLE orders ADD COLUMN gift_note text",
            at=start - 30,
        ),
        ev(
            "reporting-db",
            "error",
            f"ERROR:  {sig}",
            **every(start, -5, 5),
        ),
        ev(
            "reporting-db",
            "info",
            'LOG:  logical replication apply worker for subscription "orders_sub" has started',
            **every(start + 2, -3, 5),
        ),
        ev(
            "reporting-db",
            "info",
            'LOG:  background worker "logical replication worker" (PID 3{ms}) exited with exit code 1',
            **every(start + 3, -2, 5),
        ),
        ev(
            "orders-primary",
            "warn",
            'WARNING:  replication slot "orders_sub" restart_lsn is 2{ms} MB behind current WAL',
            **every(start + 600, -30, 300),
        ),
        ev(
            "finance-dashboard",
            "warn",
            "daily revenue tile: orders today 0 since 1{ms} (expected ~400/h)",
            **every(start + 300, -10, 120),
        ),
        ev(
            "support-desk",
            "error",
            "ticket: finance reports orders from today missing in Metabase; customers have confirmations",
            at=start + 1500,
        ),
        *herrings(
            ("metabase", "metabase upgraded 0.51.4 -> 0.52.1", -5400),
            ("reporting-etl", "dbt run failed: relation fct_refunds does not exist"),
            ("warehouse-loader", "s3 listing slow: 1{ms} keys scanned"),
        ),
    ]
    return simple(
        690,
        start,
        ticket(
            "Finance says today's orders disappeared from the reports",
            "reporting",
            start,
        ),
        expected(
            "application",
            [
                "orders_sub",
                "logical replication",
                "subscription",
                "gift_note",
                "reporting-db",
                "0142_order_gift_note",
            ],
            "missing replicated column",
            "Migration 0142 added orders.gift_note on the publisher only. The reporting DB's subscription orders_sub cannot apply changes to a table without that column, so its apply worker exits and restarts in a loop and no orders have replicated since. Orders are safe on the primary; the WAL held by the slot grows. The empty finance tiles are the victim; the Metabase upgrade and old dbt failure are not the cause.",
            [
                f"reporting-db: {sig}",
                "apply worker for orders_sub exits with code 1 every few seconds",
                "orders-primary: slot orders_sub falling behind",
            ],
            "Add gift_note to public.orders on the reporting DB; the subscription resumes from its slot. Run subscriber DDL before publisher DDL in future migrations.",
        ),
        [
            bg(
                "orders-primary",
                ["orders-primary"],
                ["LOG:  checkpoint complete: wrote {ms} buffers"],
                30,
            )
        ],
        evs,
        [svc("orders-api", 120, {"500": (0.001, 0.001)}, (0.04, 0.04))],
        [
            gauge(
                "pg_stat_subscription_latest_end_lag_seconds",
                {"subscription": "orders_sub"},
                1,
                2900,
                start,
            ),
            gauge(
                "pg_replication_slot_retained_bytes",
                {"slot": "orders_sub"},
                4e6,
                2.6e8,
                start,
            ),
            gauge("orders_created_per_minute", {"db": "orders-primary"}, 7, 7, start),
        ],
        {
            "missing-data.md": runbook(
                "Missing data in reports",
                "Missing report data usually comes from a failed dbt run: rerun the nightly dbt job and clear the Metabase cache.",
            )
        },
    )


# =================================================================================================
# 3. Kubernetes, a consumer group rebalancing in a loop: PR deploy#918 ("faster autoscaling for
#    the tracking consumers") set the KEDA ScaledObject's lagThreshold to 50 and the HPA behavior's
#    scaleDown stabilizationWindowSeconds to 0. Lag swings above and below 50 every poll, the HPA
#    resizes the Deployment between 3 and 12 every minute, and each new or removed pod makes the
#    Kafka group rebalance; the group spends most of its time in PreparingRebalance and lag grows.
# =================================================================================================


@scenario(
    "keda-stabilization-zero-consumer-group-rebalance-loop",
    ("autoscaling", "ScalingFlap"),
)
def keda_stabilization_zero_rebalance_loop() -> dict[str, Any]:
    start = -2700
    ns = "tracking"
    cons = app(
        "tracking-consumer",
        image="registry.fleetly.io/tracking-consumer:3.2.0",
        port=8080,
        rs="5d8c9b7f6d",
        cluster_ip="172.20.44.9",
        pods=[
            ("a1b2c", "1/1", "Running", "0", "6d", 0),
            ("d3e4f", "1/1", "Running", "0", "6d", 1),
            ("g5h6j", "1/1", "Running", "0", "6d", 2),
            ("k7l8m", "0/1", "ContainerCreating", "0", "14s", 0),
            ("n9p0q", "0/1", "ContainerCreating", "0", "14s", 1),
        ],
        desired=9,
    )
    eta = app(
        "eta-api",
        image="registry.fleetly.io/eta-api:7.4.1",
        port=8000,
        rs="7b6f5d4c9a",
        cluster_ip="172.20.44.20",
        pods=[
            ("r1s2t", "1/1", "Running", "0", "2d", 0),
            ("u3v4w", "1/1", "Running", "0", "2d", 2),
        ],
    )
    k8s = namespace(ns, NODES_IAD, [cons, eta], seed=691)
    sig = "stabilizationWindowSeconds: 0"
    k8s[f"kubectl get horizontalpodautoscalers -n {ns}"] = hpa_table(
        [
            [
                "keda-hpa-tracking-consumer",
                "Deployment/tracking-consumer",
                "61/50 (avg)",
                "3",
                "12",
                "9",
                "180d",
            ],
        ]
    )
    k8s[
        f"kubectl describe horizontalpodautoscalers keda-hpa-tracking-consumer -n {ns}"
    ] = (
        "Name:                                                   keda-hpa-tracking-consumer\n"
        f"Namespace:                                              {ns}\n"
        "Labels:                                                 scaledobject.keda.sh/name=tracking-consumer\n"
        "Annotations:                                            fleetly.io/changed-by: PR deploy#918 faster autoscaling for tracking consumers\n"
        "Reference:                                              Deployment/tracking-consumer\n"
        "Metrics:                                                ( current / target )\n"
        '  "s0-kafka-vehicle-positions" (target average value):  61 / 50 (lagThreshold 50, consumerGroup tracking-consumer)\n'
        "Min replicas:                                           3\n"
        "Max replicas:                                           12\n"
        "Behavior:\n"
        "  Scale Up:\n"
        "    Stabilization Window: 0 seconds\n"
        "    Policies:  Pods 4 / 15s, Percent 100 / 15s\n"
        "  Scale Down:\n"
        f"    Stabilization Window: 0 seconds ({sig} from ScaledObject advanced.horizontalPodAutoscalerConfig)\n"
        "    Policies:  Percent 100 / 15s\n"
        "Deployment pods:                                        5 current / 9 desired\n"
        "Conditions:\n"
        "  Type            Status  Reason            Message\n"
        "  ----            ------  ------            -------\n"
        "  AbleToScale     True    SucceededRescale  the HPA controller was able to update the target scale to 9\n"
        "  ScalingActive   True    ValidMetricFound  the HPA was able to successfully calculate a replica count from external metric s0-kafka-vehicle-positions\n"
        "  ScalingLimited  False   DesiredWithinRange  the desired count is within the acceptable range\n"
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "14s",
                "Normal",
                "SuccessfulRescale",
                "HorizontalPodAutoscaler/keda-hpa-tracking-consumer",
                "New size: 9; reason: external metric s0-kafka-vehicle-positions above target",
            ),
            (
                "74s",
                "Normal",
                "SuccessfulRescale",
                "HorizontalPodAutoscaler/keda-hpa-tracking-consumer",
                "New size: 3; reason: All metrics below target",
            ),
            (
                "2m14s",
                "Normal",
                "SuccessfulRescale",
                "HorizontalPodAutoscaler/keda-hpa-tracking-consumer",
                "New size: 12; reason: external metric s0-kafka-vehicle-positions above target",
            ),
            (
                "3m14s",
                "Normal",
                "SuccessfulRescale",
                "HorizontalPodAutoscaler/keda-hpa-tracking-consumer",
                "New size: 3; reason: All metrics below target",
            ),
            (
                "14s",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/tracking-consumer",
                "Scaled up replica set tracking-consumer-5d8c9b7f6d to 9 from 3",
            ),
            (
                "74s",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/tracking-consumer",
                "Scaled down replica set tracking-consumer-5d8c9b7f6d to 3 from 12",
            ),
        ]
    )
    evs = [
        ev(
            "argocd",
            "info",
            "app tracking synced to 4c1e9a2 (PR deploy#918 faster autoscaling for tracking consumers: lagThreshold 500->50, scaleDown stabilizationWindowSeconds 300->0)",
            at=start - 90,
        ),
        ev(
            "tracking-consumer",
            "info",
            "[Consumer clientId=tracking-consumer-{n}, groupId=tracking-consumer] Request joining group due to: group is already rebalancing",
            **every(start, -5, 20),
            pods=pods_of(cons),
        ),
        ev(
            "tracking-consumer",
            "info",
            "[Consumer groupId=tracking-consumer] Revoke previously assigned partitions vehicle-positions-0..23",
            **every(start + 5, -5, 60),
            pods=pods_of(cons),
        ),
        ev(
            "kafka-exporter",
            "info",
            "group tracking-consumer state=PreparingRebalance members={ms} generation=4{n}",
            **every(start, -10, 30),
        ),
        ev(
            "eta-api",
            "error",
            '{"level":"error","msg":"vehicle position stale","vehicle":"v-{n}","age_s":4{ms}}',
            **every(start + 300, -3, 8),
            pods=pods_of(eta),
        ),
        ev(
            "dispatch-ui",
            "error",
            "map: vehicle positions older than 5 minutes for {ms} vehicles",
            **every(start + 400, -10, 45),
        ),
        *herrings(
            (
                "eta-api",
                '{"level":"info","msg":"eta-api 7.4.1 started (new traffic model)"}',
                -5200,
            ),
            (
                "tracking-consumer",
                "org.apache.kafka.common.errors.TimeoutException: Timeout of 60000ms expired before the position for partition vehicle-positions-7 could be determined",
            ),
            ("geocoder", "upstream nominatim slow: 1{ms} ms"),
        ),
    ]
    return kube_case(
        seed=691,
        start=start,
        inc=ticket(
            "Dispatchers say trucks are frozen on the map", "dispatch map", start
        ),
        exp=expected(
            "application",
            [
                "scaledobject/tracking-consumer",
                "tracking-consumer",
                "keda-hpa-tracking-consumer",
                "stabilizationWindowSeconds",
                "lagThreshold",
                "PR deploy#918",
            ],
            sig,
            "PR deploy#918 lowered the KEDA lagThreshold to 50 and set the HPA scale-down stabilization window to 0. The consumer Deployment is resized between 3 and 12 every minute; each pod added or removed triggers a Kafka group rebalance, so tracking-consumer spends most of its time in PreparingRebalance and consumes little. Position lag grows; stale positions in eta-api and the dispatch map are the victim. The eta-api release and the old offset timeout are not the cause.",
            [
                "HPA events: New size 3 / 9 / 12 every minute",
                f"HPA keda-hpa-tracking-consumer: scale-down {sig}, lagThreshold 50",
                "kafka-exporter: group state PreparingRebalance",
            ],
            "Revert deploy#918 (lagThreshold 500, scale-down window 300 s) and consider the cooperative-sticky assignor so scaling does not stop the whole group.",
        ),
        k8s=k8s,
        bgs=[bg("eta-api", pods_of(eta), ['{"msg":"GET /eta 200","ms":{ms}}'], 8)],
        evs=evs,
        services=[svc("eta-api", 90, {"500": (0.001, 0.02)}, (0.05, 0.08))],
        gauges=[
            gauge(
                "kafka_consumergroup_lag_sum",
                {"group": "tracking-consumer"},
                40,
                182000,
                start,
            ),
            gauge(
                "kube_deployment_spec_replicas",
                {"deployment": "tracking-consumer"},
                3,
                8,
                start,
            ),
        ],
        books={
            "stale-positions.md": runbook(
                "Stale vehicle positions",
                "Stale positions mean the GPS gateway is dropping packets: restart the gateway VMs and check the carrier's status page.",
            )
        },
    )


# =================================================================================================
# 4. A dead-letter queue filling: marketing imported a five-year-old newsletter list into the
#    transactional SES account (MKT-330). The bounce rate passed 10 % and SES paused sending for the
#    account. The mailer workers get AccountSendingPausedException and after three receives SQS
#    moves every message to mail-outbox-dlq. The DLQ alarm is the loud thing; password resets fail.
# =================================================================================================


@scenario("ses-account-paused-by-stale-list-import-dlq-fills")
def ses_account_paused_dlq_fills() -> dict[str, Any]:
    start = -2500
    sig = "AccountSendingPausedException"
    evs = [
        ev(
            "marketing-tools",
            "info",
            "MKT-330 import finished: newsletter_2021_archive.csv 184,220 recipients queued via transactional SES identity mail.shoply.io",
            at=start - 5400,
        ),
        ev(
            "ses-notifications",
            "warn",
            "Bounce notification: Permanent/General recipient=user{n}@example.net source=news@mail.shoply.io",
            **every(start - 5300, start - 200, 20),
        ),
        ev(
            "aws-health",
            "warn",
            "SES: account 4412-xxxx sending status changed to PAUSED (bounce rate 14.2% exceeds 10%) region eu-west-1",
            at=start - 30,
        ),
        ev(
            "mailer-worker",
            "error",
            f"send failed template=password_reset message_id={{n}}: {sig}: Sending paused for this account",
            **every(start, -4, 6),
        ),
        ev(
            "sqs-watch",
            "warn",
            "mail-outbox-dlq ApproximateNumberOfMessagesVisible={n}",
            **every(start + 120, -30, 120),
        ),
        ev(
            "accounts-api",
            "error",
            "password reset email not delivered for user_{n} (status=dead_lettered)",
            **every(start + 200, -8, 30),
        ),
        *herrings(
            (
                "mailer-worker",
                "mailer-worker 2.3.0 deployed (new order-shipped template)",
                -4200,
            ),
            (
                "mailer-worker",
                "sqs ReceiveMessage: ReadTimeoutError (endpoint sqs.eu-west-1.amazonaws.com)",
            ),
            ("image-proxy", "cache miss ratio high: 0.4{ms}"),
        ),
    ]
    return simple(
        692,
        start,
        alert(
            "[ALARM] mail-outbox-dlq ApproximateNumberOfMessagesVisible > 100",
            "mailer",
            start,
            {"alarm": "mail-outbox-dlq-depth", "team": "platform-notify"},
        ),
        expected(
            "application",
            [
                "ses",
                "SES account",
                "sending paused",
                "MKT-330",
                "bounce rate",
                "mail.shoply.io",
            ],
            sig,
            "Marketing's MKT-330 import sent a stale 2021 newsletter list through the transactional SES account; the bounce rate went past 10 % and SES paused sending for the whole account. Every send fails with AccountSendingPausedException, so SQS moves messages to mail-outbox-dlq after three receives. The DLQ and failed password resets are the symptom; the mailer release and old SQS timeouts are not the cause.",
            [
                "aws-health: SES sending status PAUSED, bounce rate 14.2 %",
                f"mailer-worker: {sig}",
                "ses-notifications: permanent bounces from news@ during the import",
            ],
            "Ask AWS to resume sending after removing the list, move marketing to its own SES account or configuration set, then redrive mail-outbox-dlq.",
        ),
        [
            bg(
                "mailer-worker",
                ["mailer-1", "mailer-2"],
                ["received batch size={ms}"],
                10,
            )
        ],
        evs,
        [svc("mailer-worker", 30, {"500": (0.0, 0.9)}, (0.05, 0.05))],
        [
            gauge(
                "aws_ses_reputation_bounce_rate",
                {"account": "transactional"},
                0.01,
                0.142,
                start - 600,
            ),
            gauge(
                "aws_sqs_approximate_number_of_messages_visible",
                {"queue": "mail-outbox-dlq"},
                0,
                2400,
                start,
            ),
        ],
        {
            "dlq-growing.md": runbook(
                "DLQ growing",
                "A growing DLQ means a poison message or a bad release: roll back the mailer-worker and redrive the DLQ.",
            )
        },
    )


# =================================================================================================
# 5. Kubernetes, a cache that evicts its hot keys: the redis chart was bumped 17 -> 19 (PR
#    infra#1140). The old values set `master.extraFlags: ["--maxmemory 6gb"]`; chart 19 moved it to
#    `master.configuration` and the flag was dropped, so the ConfigMap has `maxmemory 1gb` (the
#    chart's default) with allkeys-lru. The session/price cache now evicts thousands of keys a
#    second, every miss goes to Postgres; the loud thing is the DB's CPU alert.
# =================================================================================================


@scenario(
    "redis-chart-bump-maxmemory-default-evicts-price-cache", ("runtime", "Evicted")
)
def redis_chart_bump_maxmemory_default() -> dict[str, Any]:
    start = -2000
    ns = "pricing"
    api = app(
        "price-api",
        image="ghcr.io/tradebay/price-api:9.1.3",
        port=8080,
        rs="6b7c8d9e0f",
        cluster_ip="172.20.70.11",
        pods=[
            (s, "1/1", "Running", "0", "5d", i % 3)
            for i, s in enumerate(["b4n5m", "c6v7x", "z8l9k", "j1h2g"])
        ],
    )
    redis = app(
        "price-cache-redis-master",
        image="docker.io/bitnami/redis:7.4.1-debian-12-r2",
        port=6379,
        rs="",
        kind="StatefulSet",
        cluster_ip="172.20.70.30",
        pods=[("0", "1/1", "Running", "0", "52m", 1)],
    )
    k8s = namespace(
        ns,
        NODES_DUB,
        [api, redis],
        seed=693,
        configmaps=[
            ("price-cache-redis-configuration", "3", "52m"),
            ("price-api-env", "4", "40d"),
        ],
    )
    sig = "maxmemory 1gb"
    k8s[f"kubectl describe configmaps price-cache-redis-configuration -n {ns}"] = (
        "Name:         price-cache-redis-configuration\n"
        f"Namespace:    {ns}\n"
        "Labels:       app.kubernetes.io/instance=price-cache helm.sh/chart=redis-19.6.4\n"
        "\nData\n====\n"
        "master.conf:\n----\n"
        "dir /data\n"
        f"{sig}\n"
        "maxmemory-policy allkeys-lru\n"
        "# extraFlags from values: (none)\n"
        "redis.conf:\n----\n"
        'appendonly no\nsave ""\n'
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "52m",
                "Normal",
                "SuccessfulCreate",
                "StatefulSet/price-cache-redis-master",
                "create Pod price-cache-redis-master-0 in StatefulSet price-cache-redis-master successful",
            ),
            (
                "52m",
                "Normal",
                "Pulled",
                "Pod/price-cache-redis-master-0",
                'Container image "docker.io/bitnami/redis:7.4.1-debian-12-r2" already present on machine',
            ),
        ]
    )
    evs = [
        ev(
            "argocd",
            "info",
            "app price-cache synced: chart redis 17.11.3 -> 19.6.4 (PR infra#1140 bump bitnami charts); values unchanged",
            at=start - 1200,
        ),
        ev(
            "price-cache-redis-master",
            "info",
            "1:M * Server initialized; maxmemory=1073741824 maxmemory-policy=allkeys-lru",
            at=start - 1150,
            pod="price-cache-redis-master-0",
        ),
        ev(
            "redis-exporter",
            "info",
            "price-cache used_memory=1.00G maxmemory=1.00G evicted_keys_per_sec=3{ms} keyspace_hit_ratio=0.2{ms}",
            **every(start, -30, 60),
        ),
        ev(
            "price-api",
            "warn",
            '{"level":"warn","msg":"price cache miss, loading from db","sku":"SKU-{n}"}',
            **every(start, -2, 3),
            pods=pods_of(api),
        ),
        ev(
            "pricing-db",
            "error",
            "ERROR:  canceling statement due to statement timeout (SELECT ... FROM price_rules WHERE sku = $1)",
            **every(start + 200, -5, 15),
        ),
        ev(
            "cloudwatch",
            "error",
            "ALARM RDSHighCPU pricing-db CPUUtilization 94%",
            **every(start + 300, -60, 300),
        ),
        *herrings(
            (
                "price-api",
                '{"level":"info","msg":"price-api 9.1.3 started (promo price rounding fix)"}',
                -4800,
            ),
            (
                "price-api",
                '{"level":"error","msg":"kafka producer: broker not available","topic":"price-changes"}',
            ),
            ("catalog-sync", "supplier feed 3 slow: 1{ms}s"),
        ),
    ]
    return kube_case(
        seed=693,
        start=start,
        inc=alert(
            "[ALERT] RDSHighCPU pricing-db > 90%",
            "pricing",
            start,
            {"alertname": "RDSHighCPU", "db": "pricing-db", "team": "pricing"},
        ),
        exp=expected(
            "application",
            [
                "price-cache-redis",
                "price-cache-redis-master",
                "maxmemory",
                "PR infra#1140",
                "redis chart",
                "extraFlags",
            ],
            sig,
            "PR infra#1140 bumped the Redis chart from 17 to 19; the old values set maxmemory 6gb through master.extraFlags, which chart 19 no longer reads, so Redis started with the chart default maxmemory 1gb. With allkeys-lru the price cache evicts thousands of keys a second and the hit ratio collapsed; every miss loads from pricing-db, whose CPU alarm and statement timeouts are the victim. The price-api release and old Kafka errors are not the cause.",
            [
                f"ConfigMap price-cache-redis-configuration: {sig}",
                "redis-exporter: used_memory = maxmemory, evicted_keys_per_sec high, hit ratio ~0.2",
                "argocd: chart redis 17 -> 19",
            ],
            "Set master.configuration maxmemory 6gb (or resources-based) in the chart-19 values and resync; warm the cache before traffic peaks.",
        ),
        k8s=k8s,
        bgs=[bg("price-api", pods_of(api), ['{"msg":"GET /prices 200","ms":{ms}}'], 8)],
        evs=evs,
        services=[svc("price-api", 400, {"500": (0.001, 0.03)}, (0.02, 0.35))],
        gauges=[
            gauge(
                "redis_evicted_keys_total_rate",
                {"instance": "price-cache"},
                0,
                3200,
                start,
            ),
            gauge(
                "redis_keyspace_hit_ratio",
                {"instance": "price-cache"},
                0.97,
                0.24,
                start,
            ),
            gauge("aws_rds_cpuutilization", {"db": "pricing-db"}, 22, 94, start),
        ],
        books={
            "rds-high-cpu.md": runbook(
                "RDS high CPU",
                "High CPU on pricing-db: find the top query in Performance Insights, add an index, scale the instance class if needed.",
            )
        },
    )


# =================================================================================================
# 6. VMs, a miss storm after a cache node was replaced: the memcached ASG recycled mc-03 (scheduled
#    instance retirement); the new node has a new IP and the PHP app's memcached client uses the
#    default modula distribution (not ketama), with the server list from Consul. With modula hashing
#    a changed server list moves most keys to another node: the hit ratio falls to ~5 % and the
#    catalogue DB takes the load. The loud thing is the product pages' latency.
# =================================================================================================


@scenario("memcached-node-replaced-modula-distribution-remaps-keys")
def memcached_node_replaced_modula() -> dict[str, Any]:
    start = -1900
    sig = "Memcached::OPT_DISTRIBUTION=DISTRIBUTION_MODULA"
    evs = [
        ev(
            "aws-health",
            "info",
            "EC2 scheduled retirement: i-0c41 (mc-03, 10.40.3.17) stopped; ASG memcached-prod launched i-09ad (10.40.3.88)",
            at=start - 80,
        ),
        ev(
            "consul-template",
            "info",
            "rendered /etc/shop/memcached.php: servers 10.40.1.12,10.40.2.31,10.40.3.88,10.40.4.9 (was 10.40.1.12,10.40.2.31,10.40.3.17,10.40.4.9)",
            at=start - 20,
        ),
        ev(
            "shop-web",
            "info",
            f"cache client init: 4 servers, {sig}, libketama_compatible=false",
            **every(start - 15, -30, 600),
        ),
        ev(
            "memcached-exporter",
            "info",
            "pool shop-cache get_hits_ratio=0.0{ms} curr_items mc-03=1{ms} others=4{n}",
            **every(start, -30, 60),
        ),
        ev(
            "catalog-db",
            "warn",
            "LOG:  duration: 1{ms}.{ms} ms  statement: SELECT * FROM products p JOIN product_i18n ...",
            **every(start, -3, 4),
        ),
        ev(
            "shop-web",
            "error",
            "PHP Fatal error: Maximum execution time of 30 seconds exceeded in /srv/shop/src/Catalog/ProductRepository.php",
            **every(start + 90, -6, 25),
        ),
        ev(
            "nginx",
            "error",
            'upstream timed out (110: Connection timed out) while reading response header from upstream, request: "GET /p/{n} HTTP/1.1"',
            **every(start + 60, -4, 12),
        ),
        *herrings(
            (
                "shop-web",
                "deploy shop-web release 2026.12.07-2 (wishlist button)",
                -5000,
            ),
            (
                "shop-web",
                "Redis session store: READONLY You can't write against a read only replica",
            ),
            ("search-indexer", "indexing lag 1{ms}s on products_v7"),
        ),
    ]
    return simple(
        694,
        start,
        ticket("Product pages are really slow since about half an hour", "shop", start),
        expected(
            "application",
            [
                "memcached",
                "shop-cache",
                "DISTRIBUTION_MODULA",
                "mc-03",
                "memcached client",
                "ketama",
            ],
            sig,
            "The memcached node mc-03 was retired and replaced by a node with a new IP. The shop's PHP memcached client uses modula distribution, so changing one server in the list remaps almost every key; the pool's hit ratio fell to a few percent and each page loads products from catalog-db, which slows down and times out PHP. nginx timeouts and slow pages are the victim; the shop release and the old Redis READONLY errors are not the cause.",
            [
                "aws-health / consul-template: mc-03 replaced, server list changed",
                f"shop-web: {sig}",
                "memcached-exporter: get_hits_ratio ~0.05",
            ],
            "Switch the client to consistent hashing (OPT_LIBKETAMA_COMPATIBLE / ketama) and warm the cache; in the meantime add read replicas or rate-limit cache fills.",
        ),
        [bg("shop-web", ["web-1", "web-2", "web-3"], ["GET /p/{n} 200 {ms}ms"], 8)],
        evs,
        [svc("shop-web", 260, {"500": (0.002, 0.04)}, (0.18, 2.6))],
        [
            gauge("memcached_get_hit_ratio", {"pool": "shop-cache"}, 0.93, 0.05, start),
            gauge(
                "pg_stat_database_tup_fetched_rate",
                {"db": "catalog-db"},
                2e4,
                3.1e5,
                start,
            ),
        ],
        {
            "slow-product-pages.md": runbook(
                "Slow product pages",
                "Slow product pages: check the search-indexer lag and restart php-fpm on the web nodes.",
            )
        },
    )


# =================================================================================================
# 7. Object storage throttling on-prem: the storage team enabled Ceph RGW per-user rate limits
#    (STO-52, max-write-ops 200 per RGW instance per minute-window) for the tenant user `media`. The
#    nightly backup tool, moved to the same `media` user last week, runs a catch-up sync in the
#    afternoon and takes the budget: photo uploads get 503 SlowDown. Loud: the mobile upload errors.
# =================================================================================================


@scenario("ceph-rgw-user-ratelimit-shared-by-backup-and-uploads")
def ceph_rgw_ratelimit_shared() -> dict[str, Any]:
    start = -2200
    sig = "ratelimit exceeded for user media"
    evs = [
        ev(
            "change-log",
            "info",
            "STO-52: radosgw-admin ratelimit set --ratelimit-scope=user --uid=media --max-write-ops=200 --max-read-ops=1000; ratelimit enable",
            at=-86400 * 2,
        ),
        ev(
            "change-log",
            "info",
            "OPS-611: restic-s3 backup of media bucket now uses access key of user media (old user backup-svc removed)",
            at=-86400 * 6,
        ),
        ev(
            "restic-sync",
            "info",
            "catch-up sync started: 1,8{n} objects pending (missed nights 12-05, 12-06)",
            at=start - 60,
        ),
        ev(
            "restic-sync",
            "info",
            "copied {n} objects in last 60s, throughput {ms} MB/s",
            **every(start, -10, 60),
        ),
        ev(
            "ceph-rgw",
            "warn",
            f"req 0x{{n}} op status=-2218 http_status=503 ====== {sig} (write ops) bucket=media-photos",
            **every(start, -2, 2),
        ),
        ev(
            "media-api",
            "error",
            "PutObject media-photos/u/{n}.jpg failed: SlowDown: Please reduce your request rate. (503)",
            **every(start + 10, -3, 4),
        ),
        ev(
            "mobile-gateway",
            "error",
            "POST /v1/photos -> 502 upstream media-api error (client app 8.{ms})",
            **every(start + 20, -3, 6),
        ),
        *herrings(
            ("media-api", "media-api 3.7.0 released (HEIC conversion)", -5300),
            ("ceph-mon", "HEALTH_WARN 1 pgs not deep-scrubbed in time"),
            ("thumbnailer", "queue backlog {ms} jobs"),
        ),
    ]
    return simple(
        695,
        start,
        ticket(
            "Users can't upload photos in the app, intermittent", "photo uploads", start
        ),
        expected(
            "application",
            ["ceph-rgw", "rgw", "ratelimit", "user media", "restic-sync", "STO-52"],
            sig,
            "STO-52 enabled Ceph RGW per-user rate limits (200 write ops) for the user media, and OPS-611 moved the backup sync onto the same user. This afternoon's catch-up sync spends the user's write budget and RGW answers the app's uploads with 503 SlowDown. Upload errors in media-api and the mobile gateway are the victim; the HEIC release and the scrub warning are not the cause.",
            [
                f"ceph-rgw: 503 {sig}",
                "restic-sync: catch-up sync running since the incident began",
                "change-log: STO-52 ratelimit on uid=media; OPS-611 backup uses media's key",
            ],
            "Give the backup its own RGW user (or pause the catch-up), and size the media user's limit for uploads.",
        ),
        [bg("media-api", ["media-1", "media-2"], ["GET /v1/photos/{n} 200 {ms}ms"], 8)],
        evs,
        [svc("media-api", 60, {"503": (0.0005, 0.3)}, (0.1, 0.3))],
        [
            gauge("ceph_rgw_put_ops_rate", {"user": "media"}, 40, 205, start),
            gauge("ceph_rgw_ratelimited_total_rate", {"user": "media"}, 0, 31, start),
        ],
        {
            "upload-failures.md": runbook(
                "Upload failures",
                "Upload failures after a media-api release: roll back and check the HEIC converter memory.",
            )
        },
    )


# =================================================================================================
# 8. Kubernetes, a batch job holding locks at the wrong hour: the points-expiry CronJob ran at
#    03:00 Europe/Madrid. The move to the common cronjob template (PR platform#455) dropped
#    `timeZone` and converted the schedule by hand to "0 15 * * *" (3 pm, not 3 am). It now runs at
#    15:00 UTC, during peak, and updates accounts in one long transaction: loyalty redemptions wait
#    on its row locks and checkout places orders without the points discount.
# =================================================================================================


@scenario(
    "points-expiry-cronjob-timezone-dropped-runs-at-peak-locks", ("runtime", "LockWait")
)
def points_expiry_cronjob_timezone_dropped() -> dict[str, Any]:
    start = -1500
    ns = "loyalty"
    lapi = app(
        "loyalty-api",
        image="ghcr.io/mercata/loyalty-api:6.2.0",
        port=8080,
        rs="7a8b9c0d1e",
        cluster_ip="172.20.90.4",
        pods=[
            ("p1o2i", "1/1", "Running", "0", "9d", 0),
            ("u3y4t", "1/1", "Running", "0", "9d", 1),
            ("r5e6w", "1/1", "Running", "0", "9d", 2),
        ],
    )
    job = app(
        "points-expiry-29422500",
        image="ghcr.io/mercata/loyalty-batch:6.2.0",
        port=8080,
        rs="",
        kind="Job",
        service=False,
        pods=[("x7c8v", "1/1", "Running", "0", "26m", 1)],
    )
    k8s = namespace(ns, NODES_FRA, [lapi, job], seed=696)
    sig = "TIMEZONE <none>"
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
            ["points-expiry", "0 15 * * *", "<none>", "False", "1", "26m", "3d"],
            ["tier-recalc", "30 2 * * *", "Europe/Madrid", "False", "0", "13h", "400d"],
        ]
    )
    k8s[f"kubectl get jobs -n {ns}"] = table(
        [
            ["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"],
            ["points-expiry-29422500", "Running", "0/1", "26m", "26m"],
            ["points-expiry-29421060", "Complete", "1/1", "41m", "24h"],
            ["tier-recalc-29421990", "Complete", "1/1", "8m", "13h"],
        ]
    )
    k8s[f"kubectl describe cronjobs points-expiry -n {ns}"] = (
        "Name:                          points-expiry\n"
        f"Namespace:                     {ns}\n"
        "Labels:                        helm.sh/chart=common-cronjob-1.0.2\n"
        "Annotations:                   mercata.io/source: PR platform#455 common cronjob template\n"
        "Schedule:                      0 15 * * *\n"
        "Time Zone:                     <unset>\n"
        "Concurrency Policy:            Forbid\n"
        "Suspend:                       False\n"
        "Last Schedule Time:            Mon, 07 Dec 2026 15:00:00 +0000\n"
        "Active Jobs:                   points-expiry-29422500\n"
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "26m",
                "Normal",
                "SuccessfulCreate",
                "CronJob/points-expiry",
                "Created job points-expiry-29422500",
            ),
            (
                "26m",
                "Normal",
                "Started",
                "Pod/points-expiry-29422500-x7c8v",
                "Started container batch",
            ),
        ]
    )
    evs = [
        ev(
            "argocd",
            "info",
            "app loyalty synced (PR platform#455 common cronjob template): CronJob points-expiry schedule '0 3 * * *' tz Europe/Madrid -> schedule '0 15 * * *' tz <none>",
            at=-86400 * 3,
        ),
        ev(
            "points-expiry",
            "info",
            "expiry run started (cron 0 15 * * *, time zone: controller default UTC): BEGIN; UPDATE accounts SET points = ... WHERE last_activity < now() - interval '24 months' (batch=all)",
            at=start - 60,
            pods=pods_of(job),
        ),
        ev(
            "loyalty-db",
            "info",
            "LOG:  process 4{ms} still waiting for ShareLock on transaction 88{n} after 1000.0 ms; blocking process: 31207 (points-expiry, xact age 2{ms}s)",
            **every(start, -4, 6),
        ),
        ev(
            "loyalty-api",
            "error",
            '{"level":"error","msg":"redeem points failed","err":"canceling statement due to lock timeout","account":"a_{n}"}',
            **every(start + 30, -3, 5),
            pods=pods_of(lapi),
        ),
        ev(
            "checkout",
            "error",
            "loyalty redemption timed out after 5000ms, order o_{n} placed without points discount",
            **every(start + 40, -4, 7),
        ),
        *herrings(
            (
                "loyalty-api",
                '{"level":"info","msg":"loyalty-api 6.2.0 started (double points weekend)"}',
                -5600,
            ),
            ("loyalty-api", '{"level":"error","msg":"CRM webhook 401"}'),
            ("recommendations", "model refresh slow: {ms}s"),
        ),
    ]
    return kube_case(
        seed=696,
        start=start,
        inc=alert(
            "[FIRING] LoyaltyRedeemErrors > 20/min",
            "loyalty",
            start,
            {"alertname": "LoyaltyRedeemErrors", "team": "loyalty"},
        ),
        exp=expected(
            "application",
            [
                "cronjob/points-expiry",
                "points-expiry",
                "points-expiry-29422500",
                "timeZone",
                "PR platform#455",
                "loyalty-db",
            ],
            "0 15 * * *",
            "PR platform#455 moved points-expiry onto the common cronjob template, which rewrote the schedule to '0 15 * * *' and dropped timeZone Europe/Madrid. The nightly expiry now runs at 15:00 UTC, during peak, and updates accounts in one long transaction; loyalty-api's redemptions wait on its row locks and time out. Checkout's loyalty timeouts are the victim; the double-points release and old CRM 401s are not the cause.",
            [
                f"kubectl get cronjobs: points-expiry 0 15 * * * {sig}, LAST SCHEDULE 26m",
                "loyalty-db: waiting for ShareLock, blocking process points-expiry",
                "argocd: tz Europe/Madrid -> <none>",
            ],
            "Stop the running job (its transaction rolls back), restore schedule 0 3 * * * with timeZone Europe/Madrid, and make the expiry commit in batches.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "loyalty-api",
                pods_of(lapi),
                ['{"msg":"GET /balance 200","ms":{ms}}'],
                8,
            )
        ],
        evs=evs,
        services=[svc("loyalty-api", 150, {"500": (0.001, 0.2)}, (0.03, 4.8))],
        gauges=[
            gauge("pg_locks_waiting", {"db": "loyalty-db"}, 0, 48, start),
            gauge(
                "pg_stat_activity_max_tx_duration_seconds",
                {"db": "loyalty-db"},
                2,
                1500,
                start,
            ),
        ],
        books={
            "loyalty-redeem-errors.md": runbook(
                "Loyalty redemption errors",
                "Redemption errors during promotions: scale loyalty-api and raise its DB pool.",
            )
        },
    )


# =================================================================================================
# 9. MySQL, a migration that took the table: migration 2026_12_07_add_review_locale runs
#    `ALTER TABLE reviews ADD locale ...` without an ALGORITHM clause. The table has a FULLTEXT index,
#    so MySQL cannot add the column instantly or in place and copies the 90 M rows (ALGORITHM=COPY),
#    blocking writes for the whole copy: every INSERT/UPDATE on reviews queues "Waiting for table
#    metadata lock", reviews-service's PHP workers fill up with them and its reads time out too.
# =================================================================================================


@scenario("mysql-alter-falls-back-to-copy-fulltext-index-metadata-lock")
def mysql_alter_falls_back_to_copy() -> dict[str, Any]:
    start = -1700
    sig = "Waiting for table metadata lock"
    evs = [
        ev(
            "deploy-pipeline",
            "info",
            "reviews-service 4.0.2: running migrations (2026_12_07_add_review_locale)",
            at=start - 30,
        ),
        ev(
            "reviews-migrate",
            "info",
            "Migrating: 2026_12_07_add_review_locale -> ALTER TABLE `reviews` ADD `locale` VARCHAR(8) NULL AFTER `body`",
            at=start - 25,
        ),
        ev(
            "reviews-db",
            "info",
            "processlist: Id 8812 User migrate Time {ms}s State 'copy to tmp table' Info 'ALTER TABLE `reviews` ADD `locale` ...' (ALGORITHM=COPY: table has FULLTEXT index ft_body)",
            **every(start, -30, 60),
        ),
        ev(
            "reviews-db",
            "info",
            f"processlist: {{ms}} threads in State '{sig}' Info 'UPDATE reviews SET helpful_votes = helpful_votes + 1 WHERE id = ?' / 'INSERT INTO reviews ...'",
            **every(start + 5, -30, 60),
        ),
        ev(
            "reviews-service",
            "error",
            "SQLSTATE[HY000]: General error: 1205 Lock wait timeout exceeded; try restarting transaction (SQL: update `reviews` set `helpful_votes` = `helpful_votes` + 1 where `id` = {n})",
            **every(start + 60, -3, 4),
        ),
        ev(
            "reviews-service",
            "warn",
            "php-fpm: [pool www] server reached pm.max_children setting (64), consider raising it",
            **every(start + 90, -10, 30),
        ),
        ev(
            "storefront",
            "error",
            "reviews widget fetch failed: timeout after 3000ms product={n}",
            **every(start + 70, -3, 5),
        ),
        *herrings(
            ("storefront", "storefront 2026.49.1 released (image lazy loading)", -4100),
            (
                "reviews-service",
                "elasticsearch review-search: circuit_breaking_exception [parent] Data too large",
            ),
            ("ads-pixel", "pixel endpoint 429 from partner"),
        ),
    ]
    return simple(
        697,
        start,
        alert(
            "[FIRING] StorefrontApdex < 0.7",
            "storefront",
            start,
            {"alertname": "StorefrontApdex", "team": "web"},
        ),
        expected(
            "application",
            [
                "reviews-db",
                "reviews",
                "2026_12_07_add_review_locale",
                "ALTER TABLE",
                "metadata lock",
                "reviews-service",
            ],
            sig,
            "The reviews-service 4.0.2 migration added a column with AFTER to the reviews table, which has a FULLTEXT index, so MySQL used ALGORITHM=COPY instead of an instant change. The 90 M-row copy blocks every write to reviews (Waiting for table metadata lock); the waiting writes fill reviews-service's php-fpm workers, so its reads time out too. Storefront's reviews widget and apdex are the victim; the storefront release and the old Elasticsearch breaker errors are not the cause.",
            [
                "processlist: ALTER TABLE reviews in 'copy to tmp table' (ALGORITHM=COPY)",
                f"processlist: threads '{sig}'",
                "reviews-service: 1205 lock wait timeout since the migration started",
            ],
            "Kill the ALTER (it rolls back the copy), then add the column at the end with ALGORITHM=INSTANT or with gh-ost/pt-online-schema-change; lint migrations for AFTER on large tables.",
        ),
        [
            bg(
                "storefront",
                ["sf-1", "sf-2", "sf-3"],
                ["GET /product/{n} 200 {ms}ms"],
                8,
            )
        ],
        evs,
        [
            svc("storefront", 300, {"500": (0.001, 0.01)}, (0.2, 3.1)),
            svc("reviews-service", 180, {"500": (0.001, 0.4)}, (0.02, 3.0)),
        ],
        [
            gauge(
                "mysql_info_schema_processlist_threads",
                {"state": "waiting for table metadata lock"},
                0,
                240,
                start,
            )
        ],
        {
            "storefront-apdex.md": runbook(
                "Storefront apdex",
                "Apdex drops after a storefront release: roll back and check the CDN hit ratio.",
            )
        },
    )


# =================================================================================================
# 10. Kubernetes, a pool mode change breaks leader election: the platform team switched the shared
#     pgbouncer to pool_mode=transaction (PR db#72, "save connections"). The billing scheduler elects
#     a leader with a session-level pg_advisory_lock; in transaction mode the lock is taken on a
#     server connection that goes back to the pool, so both scheduler replicas believe they lead.
#     Every invoice run happens twice: customers receive duplicate invoices and the charge retries.
# =================================================================================================


@scenario(
    "pgbouncer-transaction-mode-scheduler-advisory-lock-double-runs",
    ("runtime", "ConfigChange"),
)
def pgbouncer_transaction_mode_double_runs() -> dict[str, Any]:
    start = -3300
    ns = "billing"
    sched = app(
        "billing-scheduler",
        image="ghcr.io/ledgerly/billing-scheduler:2.8.4",
        port=8080,
        rs="4c5d6e7f8a",
        cluster_ip="172.20.12.8",
        pods=[
            ("m2n3b", "1/1", "Running", "0", "12d", 0),
            ("v4c5x", "1/1", "Running", "0", "12d", 1),
        ],
    )
    bouncer = app(
        "pgbouncer",
        image="docker.io/bitnami/pgbouncer:1.23.1",
        port=6432,
        rs="9f8e7d6c5b",
        cluster_ip="172.20.12.50",
        pods=[
            ("q1w2e", "1/1", "Running", "0", "58m", 1),
            ("r3t4y", "1/1", "Running", "0", "58m", 2),
        ],
    )
    k8s = namespace(
        ns,
        NODES_IAD,
        [sched, bouncer],
        seed=698,
        configmaps=[
            ("pgbouncer-config", "2", "58m"),
            ("billing-scheduler-env", "6", "90d"),
        ],
    )
    sig = "pool_mode = transaction"
    k8s[f"kubectl describe configmaps pgbouncer-config -n {ns}"] = (
        "Name:         pgbouncer-config\n"
        f"Namespace:    {ns}\n"
        "Annotations:  ledgerly.io/pr: db#72 save connections\n"
        "\nData\n====\n"
        "pgbouncer.ini:\n----\n"
        "[databases]\nbilling = host=billing-db.c1.us-east-1.rds.amazonaws.com port=5432\n"
        "[pgbouncer]\n"
        f"{sig}\n"
        "default_pool_size = 20\nmax_client_conn = 2000\nserver_reset_query = DISCARD ALL\n"
    )
    k8s[f"kubectl events -n {ns}"] = events(
        [
            (
                "58m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/pgbouncer",
                "Scaled up replica set pgbouncer-9f8e7d6c5b to 2",
            ),
            (
                "57m",
                "Normal",
                "ScalingReplicaSet",
                "Deployment/pgbouncer",
                "Scaled down replica set pgbouncer-6b5a4c3d2e to 0 from 2",
            ),
        ]
    )
    evs = [
        ev(
            "argocd",
            "info",
            "app billing synced (PR db#72 save connections): ConfigMap pgbouncer-config pool_mode session -> transaction; rollout pgbouncer",
            at=start - 500,
        ),
        ev(
            "billing-scheduler",
            "info",
            '{"level":"info","msg":"acquired leadership","lock":"pg_advisory_lock(4242)","pod":"{n}"}',
            **every(start, -60, 300),
            pods=pods_of(sched),
        ),
        ev(
            "billing-scheduler",
            "info",
            '{"level":"info","msg":"leader: starting invoice run","run":"inv-run-{n}","leader_pods_seen":2}',
            **every(start + 30, -60, 600),
            pods=pods_of(sched),
        ),
        ev(
            "billing-worker",
            "warn",
            '{"level":"warn","msg":"invoice already exists for period, creating new number","customer":"c_{n}"}',
            **every(start + 40, -10, 20),
        ),
        ev(
            "payments",
            "error",
            "stripe: charge declined card_velocity_exceeded for customer c_{n} (second charge in 10 min)",
            **every(start + 60, -10, 30),
        ),
        ev(
            "support-desk",
            "error",
            "ticket: customer received two invoices for December (INV-{n} and INV-{n})",
            **every(start + 900, -60, 400),
        ),
        *herrings(
            (
                "billing-worker",
                '{"level":"info","msg":"billing-worker 5.1.0 started (tax rounding per line)"}',
                -6000,
            ),
            ("billing-worker", '{"level":"error","msg":"tax service 503"}'),
            ("analytics-exporter", "snowflake copy slow: {ms}s"),
        ),
    ]
    return kube_case(
        seed=698,
        start=start,
        inc=ticket(
            "Customers are getting charged twice for their subscription",
            "billing",
            start,
        ),
        exp=expected(
            "application",
            [
                "pgbouncer",
                "pgbouncer-config",
                "pool_mode",
                "pg_advisory_lock",
                "billing-scheduler",
                "PR db#72",
            ],
            sig,
            "PR db#72 switched the shared pgbouncer from session to transaction pooling. billing-scheduler's leader election takes a session-level pg_advisory_lock, which in transaction mode is held on a pooled server connection and no longer tied to the scheduler's session, so both replicas acquire leadership and every invoice run happens twice. Duplicate invoices and declined second charges are the victim; the billing-worker release and old tax 503s are not the cause.",
            [
                f"ConfigMap pgbouncer-config: {sig}",
                "billing-scheduler: acquired leadership in both pods, leader_pods_seen 2",
                "billing-worker: invoice already exists for period",
            ],
            "Point billing-scheduler at a session-mode pgbouncer pool (or directly at the DB) for its lock; revert pool_mode for billing until clients are checked; void the duplicate invoices.",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "billing-worker",
                ["billing-worker-1", "billing-worker-2"],
                ['{"msg":"invoice created","ms":{ms}}'],
                10,
            )
        ],
        evs=evs,
        services=[svc("billing-worker", 20, {"500": (0.001, 0.01)}, (0.1, 0.12))],
        gauges=[
            gauge(
                "billing_invoices_created_per_run",
                {"service": "billing-worker"},
                1200,
                2400,
                start,
            ),
            gauge(
                "billing_scheduler_is_leader_sum",
                {"deployment": "billing-scheduler"},
                1,
                2,
                start,
            ),
        ],
        books={
            "duplicate-charges.md": runbook(
                "Duplicate charges",
                "Duplicate charges come from payment retries: check the Stripe idempotency keys in billing-worker and roll back its latest release.",
            )
        },
    )


# =================================================================================================
# 11. Azure Database for PostgreSQL, a connection limit: the FinOps clean-up (FIN-88) moved the
#     bookings flexible server from General Purpose D4ds_v5 to Burstable B2ms overnight. The
#     max_connections parameter was left at its default, which follows the SKU: 859 became 120 (15
#     reserved). When the morning reminder batch adds its connections to the API VMs' pools, new
#     connections get "remaining connection slots are reserved". Loud: the booking API's 500s.
# =================================================================================================


@scenario("finops-sku-downsize-lowers-flexible-server-max-connections")
def finops_sku_downsize_max_connections() -> dict[str, Any]:
    start = -2600
    sig = (
        "remaining connection slots are reserved for roles with the SUPERUSER attribute"
    )
    evs = [
        ev(
            "azure-activity",
            "info",
            "Microsoft.DBforPostgreSQL/flexibleServers/write bookings-pg: sku Standard_D4ds_v5 (GeneralPurpose) -> Standard_B2ms (Burstable) by finops-automation (FIN-88 rightsizing)",
            at=-9 * 3600,
        ),
        ev(
            "azure-activity",
            "info",
            "bookings-pg server parameter max_connections: source system-default, value 120 (was 859 on previous SKU)",
            at=-9 * 3600 + 300,
        ),
        ev(
            "bookings-pg",
            "error",
            f"FATAL:  {sig}",
            **every(start, -4, 5),
        ),
        ev(
            "bookings-api",
            "error",
            'psycopg.OperationalError: connection failed: FATAL:  remaining connection slots are reserved ... (pool "default" size 40)',
            **every(start + 5, -4, 6),
        ),
        ev(
            "pg-exporter",
            "info",
            "bookings-pg numbackends=105 max_connections=120 superuser_reserved_connections=15 cpu_credits_remaining={ms}",
            **every(-7200, -60, 300),
        ),
        ev(
            "mobile-bff",
            "error",
            "POST /bookings -> 500 from bookings-api (trace {n})",
            **every(start + 20, -5, 10),
        ),
        ev(
            "reminder-worker",
            "info",
            "morning reminder batch started: 1{n} reminders, concurrency 24",
            at=start - 30,
        ),
        *herrings(
            (
                "bookings-api",
                "bookings-api 11.3.0 rolled out to vm-bk-1..3 (recurring bookings)",
                -5000,
            ),
            ("bookings-api", "redis: MOVED error during cluster resharding"),
            ("search-sync", "cosmos RU throttling 429 on container venues"),
        ),
    ]
    return simple(
        699,
        start,
        alert(
            "[Sev2] Bookings API failure rate above 10%",
            "bookings",
            start,
            {
                "alert_rule": "bookings-api-failures",
                "resource_group": "rg-bookings-prod",
            },
        ),
        expected(
            "application",
            [
                "bookings-pg",
                "max_connections",
                "Standard_B2ms",
                "FIN-88",
                "flexible server",
                "sku",
            ],
            sig,
            "The FinOps rightsizing FIN-88 moved bookings-pg from D4ds_v5 to Burstable B2ms last night; max_connections was left at the system default, which follows the SKU, so it fell from 859 to 120 (15 reserved). Once the morning reminder batch starts its connections the API's pools can't connect: remaining connection slots are reserved. The API 500s are the victim; the bookings-api release and old Redis MOVED errors are not the cause.",
            [
                "azure-activity: sku D4ds_v5 -> B2ms, max_connections 120 (was 859)",
                f"bookings-pg: FATAL {sig}",
                "pg-exporter: numbackends at the limit",
            ],
            "Scale bookings-pg back to General Purpose (or set max_connections and put pgbouncer in front); exclude production databases from automated rightsizing.",
        ),
        [
            bg(
                "bookings-api",
                ["vm-bk-1", "vm-bk-2", "vm-bk-3"],
                ["GET /bookings/{n} 200 {ms}ms"],
                8,
            )
        ],
        evs,
        [svc("bookings-api", 110, {"500": (0.001, 0.18)}, (0.06, 0.3))],
        [
            gauge(
                "azure_postgresql_active_connections",
                {"server": "bookings-pg"},
                96,
                120,
                start,
            ),
            gauge(
                "azure_postgresql_connections_failed",
                {"server": "bookings-pg"},
                0,
                14,
                start,
            ),
        ],
        {
            "bookings-failures.md": runbook(
                "Bookings failures",
                "Booking failures after a rollout: roll back bookings-api on the VMs one by one and watch the error rate.",
            )
        },
    )


# =================================================================================================
# 12. Disk burst credits: to cut costs (OPS-740) the ClickHouse VM's data volume was moved from a
#     1.5 TB gp2 volume to a new 500 GB gp2 volume (baseline 1500 IOPS, bursting to 3000 on
#     credits). Background merges ran on credits for a day; this morning BurstBalance reached 0, the
#     volume is held at 1500 IOPS, merges fall behind and inserts fail with "Too many parts". The
#     loud thing is the event ingester's retry storm and the dashboards going stale.
# =================================================================================================


@scenario("clickhouse-volume-shrunk-gp2-burst-balance-too-many-parts")
def clickhouse_gp2_burst_balance() -> dict[str, Any]:
    start = -2300
    sig = "BurstBalance 0"
    evs = [
        ev(
            "change-log",
            "info",
            "OPS-740 storage clean-up: ch-01 /var/lib/clickhouse moved to vol-0b7e (gp2 500 GiB) from vol-03aa (gp2 1536 GiB)",
            at=-30 * 3600,
        ),
        ev(
            "cloudwatch",
            "warn",
            f"vol-0b7e (ch-01 /var/lib/clickhouse) {sig}% VolumeQueueLength 4{{ms}} ReadIOPS+WriteIOPS 1500",
            **every(start, -60, 300),
        ),
        *[
            ev(
                "cloudwatch",
                "info",
                f"vol-0b7e BurstBalance {pct}%",
                at=start - 600 * i,
            )
            for i, pct in enumerate([2, 7, 12, 17, 22, 26, 31, 36], start=1)
        ],
        ev(
            "clickhouse",
            "error",
            "<Error> executeQuery: Code: 252. DB::Exception: Too many parts (3{ms}) in table 'events.raw_events'. Merges are processing significantly slower than inserts. (TOO_MANY_PARTS)",
            **every(start + 60, -3, 4),
        ),
        ev(
            "clickhouse",
            "info",
            "<Information> MergeTreeBackgroundExecutor: merge of 'events.raw_events' took 4{ms}.2 s, disk write 2{ms} MiB/s",
            **every(start, -30, 90),
        ),
        ev(
            "event-ingester",
            "error",
            "insert batch failed (TOO_MANY_PARTS), retrying batch {n} in 1s",
            **every(start + 70, -2, 3),
        ),
        ev(
            "grafana",
            "warn",
            "dashboard 'Live sales' panel query returned no rows newer than {ms} min",
            **every(start + 400, -30, 180),
        ),
        *herrings(
            (
                "event-ingester",
                "event-ingester 1.19.0 deployed (batch size 50k -> 40k)",
                -4900,
            ),
            ("clickhouse", "<Error> ZooKeeper session expired, reconnecting"),
            ("kafka-connect", "task s3-sink-2 lagging {ms}s"),
        ),
    ]
    return simple(
        700,
        start,
        ticket("Live sales dashboard stopped updating", "analytics", start),
        expected(
            "platform",
            ["vol-0b7e", "gp2", "BurstBalance", "ch-01", "OPS-740", "ebs volume"],
            sig,
            "OPS-740 moved ch-01's data to a 500 GiB gp2 volume whose baseline is 1500 IOPS; merges ran on burst credits until BurstBalance reached 0 this morning. At baseline IOPS ClickHouse merges fall behind, parts accumulate and inserts fail with TOO_MANY_PARTS. The ingester retries and stale dashboards are the victim; the ingester release and the old ZooKeeper error are not the cause.",
            [
                f"cloudwatch: vol-0b7e {sig}%, IOPS flat at 1500, queue length high",
                "clickhouse: TOO_MANY_PARTS on events.raw_events",
                "change-log: OPS-740 volume moved from 1536 GiB to 500 GiB gp2",
            ],
            "Move the volume to gp3 with 6000 provisioned IOPS (or back to a larger size); throttle the ingester until parts merge down.",
        ),
        [
            bg(
                "clickhouse",
                ["ch-01"],
                ["<Debug> executeQuery: Read {n} rows in 0.0{ms} sec."],
                10,
            )
        ],
        evs,
        [svc("event-ingester", 500, {"500": (0.0005, 0.4)}, (0.02, 0.9))],
        [
            gauge(
                "aws_ebs_burst_balance_average", {"volume_id": "vol-0b7e"}, 31, 0, start
            ),
            gauge(
                "aws_ebs_volume_queue_length_average",
                {"volume_id": "vol-0b7e"},
                1.2,
                46,
                start,
            ),
            gauge(
                "clickhouse_max_parts_in_partition",
                {"table": "events.raw_events"},
                80,
                310,
                start,
            ),
        ],
        {
            "dashboard-stale.md": runbook(
                "Stale dashboards",
                "Stale dashboards mean Kafka Connect is lagging: restart the s3-sink connector tasks.",
            )
        },
    )


# =================================================================================================
# 13. Search, shard allocation stuck: when es-data-07 was decommissioned (OPS-512) its IP 10.12.3.41
#     went into cluster.routing.allocation.exclude._ip and was never removed. Yesterday a new data
#     node es-data-12 came up with the reused IP; nothing can be allocated on it. Today's daily
#     index logs-2026.12.08 was created at 00:00 and its shards cannot go anywhere (the other nodes
#     are over the high disk watermark), so the index is red and log ingestion fails.
# =================================================================================================


@scenario("es-allocation-exclude-ip-reused-by-new-data-node")
def es_allocation_exclude_ip_reused() -> dict[str, Any]:
    start = -2000
    sig = 'node does not match cluster setting [cluster.routing.allocation.exclude] filters [_ip:"10.12.3.41"]'
    evs = [
        ev(
            "change-log",
            "info",
            'OPS-512 decommission es-data-07: PUT _cluster/settings {"persistent":{"cluster.routing.allocation.exclude._ip":"10.12.3.41"}}',
            at=-86400 * 40,
        ),
        ev(
            "change-log",
            "info",
            "OPS-590 add capacity: es-data-12 launched (10.12.3.41), joined cluster logs-prod",
            at=-86400,
        ),
        ev(
            "elasticsearch",
            "warn",
            "[es-master-1] allocation explain logs-2026.12.08[0]: es-data-12 "
            + sig
            + "; es-data-01..11 disk usage above high watermark [90%]",
            **every(start, -60, 240),
        ),
        ev(
            "elasticsearch",
            "info",
            "[es-master-1] Cluster health status changed from [YELLOW] to [RED] (reason: [index [logs-2026.12.08] created]).",
            at=start,
        ),
        ev(
            "logstash",
            "error",
            'Could not index event to Elasticsearch. status: 503, action: ["index", {:_index=>"logs-2026.12.08"}], response: {"type"=>"unavailable_shards_exception", "reason"=>"[logs-2026.12.08][2] primary shard is not active Timeout: [1m]"}',
            **every(start + 60, -3, 3),
        ),
        ev(
            "es-exporter",
            "info",
            "node es-data-12 shards=0 disk_used=2% ; cluster unassigned_shards={ms}",
            **every(start, -60, 300),
        ),
        ev(
            "kibana",
            "error",
            "search phase execution exception: no shard available for [logs-*]",
            **every(start + 120, -20, 60),
        ),
        *herrings(
            (
                "logstash",
                "logstash pipeline 'apps' reloaded (new grok for nginx)",
                -4400,
            ),
            (
                "elasticsearch",
                "[es-data-03] GC overhead: spent [1.{ms}s] collecting in the last [2s]",
            ),
            ("filebeat", "harvester limit reached on host web-{ms}"),
        ),
    ]
    return simple(
        701,
        start,
        alert(
            "[FIRING] LogIngestionErrors logstash 503",
            "logging",
            start,
            {"alertname": "LogIngestionErrors", "team": "observability"},
        ),
        expected(
            "application",
            [
                "cluster.routing.allocation.exclude",
                "allocation exclude",
                "es-data-12",
                "10.12.3.41",
                "OPS-512",
                "logs-2026.12.08",
            ],
            "allocation.exclude",
            "The decommission of es-data-07 (OPS-512) left cluster.routing.allocation.exclude._ip=10.12.3.41 in the cluster settings. The new node es-data-12 came up with the same IP, so the allocator puts nothing on it; the other data nodes are over the high watermark, so today's index logs-2026.12.08 has no assigned primaries and the cluster is red. Logstash 503s and Kibana errors are the victim; the pipeline reload and the old GC warnings are not the cause.",
            [
                f"allocation explain: {sig}",
                "es-data-12: 0 shards, 2 % disk used",
                "cluster RED since logs-2026.12.08 was created",
            ],
            'Clear the exclude setting (PUT _cluster/settings {"persistent":{"cluster.routing.allocation.exclude._ip":null}}) and run _cluster/reroute?retry_failed; add the check to the decommission runbook.',
        ),
        [
            bg(
                "elasticsearch",
                ["es-data-01", "es-data-05", "es-data-09"],
                ["[gc][{n}] overhead, spent [{ms}ms] collecting"],
                20,
            )
        ],
        evs,
        [svc("logstash", 800, {"503": (0.0001, 0.5)}, (0.01, 1.0))],
        [
            gauge(
                "elasticsearch_cluster_health_unassigned_shards",
                {"cluster": "logs-prod"},
                0,
                12,
                start,
            ),
            gauge("elasticsearch_node_shards", {"node": "es-data-12"}, 0, 0, start),
        ],
        {
            "es-red.md": runbook(
                "Elasticsearch red",
                "Red cluster: look for a data node that crashed, restart it and wait for recovery; raise heap if GC warnings persist.",
            )
        },
    )


# =================================================================================================
# 14. A message size limit: to save money (FIN-102) the Azure Service Bus namespace sb-orders-prod
#     was moved from Premium to Standard. Standard allows messages of at most 256 KB (Premium: 100 MB).
#     Orders from B2B customers with hundreds of lines serialise to 300-900 KB: those sends fail with
#     MessageSizeExceeded and the order service retries forever; only big accounts are affected.
# =================================================================================================


@scenario("service-bus-namespace-moved-to-standard-256kb-limit")
def service_bus_standard_256kb_limit() -> dict[str, Any]:
    start = -2900
    sig = "MessageSizeExceeded"
    evs = [
        ev(
            "azure-activity",
            "info",
            "Microsoft.ServiceBus/namespaces/write sb-orders-prod: sku Premium -> Standard by j.okafor (FIN-102 messaging cost review)",
            at=start - 600,
        ),
        *[
            ev(
                "order-service",
                "error",
                f"Azure.Messaging.ServiceBus.ServiceBusException: The received message (delivery-id:0, size:{size} bytes) exceeds the limit (262144 bytes) currently allowed on the link. ({sig}) queue=order-fulfilment",
                **every(start + k * 13, -20, 120),
            )
            for k, size in enumerate([301552, 487210, 912004])
        ],
        ev(
            "order-service",
            "warn",
            "outbox: message for order B2B-{n} not published, attempt {ms}, lines=4{ms}",
            **every(start + 10, -20, 40),
        ),
        ev(
            "order-service",
            "info",
            "outbox: published order_{n} to order-fulfilment (size 1{ms} KB)",
            **every(start - 600, -5, 15),
        ),
        ev(
            "b2b-portal",
            "error",
            "order confirmation pending for > 30 min: account acme-wholesale order B2B-{n}",
            **every(start + 1800, -30, 120),
        ),
        ev(
            "account-managers",
            "error",
            "escalation: three wholesale accounts say their orders are stuck in 'processing'",
            at=start + 2400,
        ),
        *herrings(
            (
                "fulfilment-worker",
                "fulfilment-worker 3.3.0 deployed (new warehouse Leipzig)",
                -5200,
            ),
            (
                "fulfilment-worker",
                "ServiceBusException: The lock supplied is invalid. Either the lock expired (MessageLockLost)",
            ),
            ("pricing-service", "price list cache refresh took {ms}s"),
        ),
    ]
    return simple(
        702,
        start,
        ticket(
            "Big wholesale customers say their orders are stuck in processing",
            "orders",
            start,
        ),
        expected(
            "application",
            [
                "sb-orders-prod",
                "service bus",
                "Standard",
                "FIN-102",
                "262144",
                "message size",
            ],
            sig,
            "FIN-102 moved the Service Bus namespace sb-orders-prod from Premium to Standard, where a message may be at most 256 KB. B2B orders with many lines serialise to more than that, so their publishes to order-fulfilment fail with MessageSizeExceeded and sit in the outbox; small orders still flow. The stuck wholesale orders are the victim; the fulfilment-worker release and the old lock-lost errors are not the cause.",
            [
                "azure-activity: sb-orders-prod Premium -> Standard",
                f"order-service: {sig}, limit 262144 bytes",
                "outbox: only large B2B orders fail, small ones publish",
            ],
            "Move the namespace back to Premium, or publish large orders as a claim check (payload in blob storage, reference in the message).",
        ),
        [bg("order-service", ["ord-vm-1", "ord-vm-2"], ["POST /orders 201 {ms}ms"], 8)],
        evs,
        [svc("order-service", 45, {"500": (0.001, 0.001)}, (0.08, 0.08))],
        [
            gauge("order_outbox_pending", {"service": "order-service"}, 0, 87, start),
            gauge(
                "azure_servicebus_incoming_messages",
                {"namespace": "sb-orders-prod"},
                40,
                37,
                start,
            ),
        ],
        {
            "orders-stuck.md": runbook(
                "Orders stuck in processing",
                "Orders stuck in processing: the fulfilment-worker is losing message locks; raise its lock duration and restart it.",
            )
        },
    )


# =================================================================================================
# 15. A clock-dependent job: the new RDS parameter group for payments-db (PR infra#310, "tidy
#     parameter groups") copied `timezone = Europe/Berlin` from the reporting group. The scheduled
#     payments worker stores due_at in `timestamp without time zone` as UTC and selects
#     `WHERE due_at <= now()::timestamp`; now() is now Berlin time, one hour ahead of UTC, so every
#     payment goes out an hour early, before the salary it was timed after. Loud: the bank's AM04
#     insufficient-funds rejections and customers' complaints.
# =================================================================================================


@scenario("scheduled-payments-db-timezone-parameter-runs-hour-early")
def scheduled_payments_db_timezone() -> dict[str, Any]:
    start = -3400
    sig = "TimeZone=Europe/Berlin"
    evs = [
        ev(
            "rds-events",
            "info",
            "payments-db: applied parameter group payments-pg16-v2 (PR infra#310 tidy parameter groups); parameters changed: timezone UTC -> Europe/Berlin, log_min_duration_statement 1000 -> 500",
            at=start - 300,
        ),
        ev(
            "payments-db",
            "info",
            f'LOG:  parameter "TimeZone" changed to "Europe/Berlin" ({sig})',
            at=start - 290,
        ),
        ev(
            "scheduler-worker",
            "info",
            '{"level":"info","msg":"due batch","db_now_minus_host_utc_s":3600,"picked":{ms}}',
            **every(start, -30, 60),
        ),
        ev(
            "scheduler-worker",
            "warn",
            '{"level":"warn","msg":"payment executed before due time","payment":"sp_{n}","due_at_utc":"in 5{ms}s","executed_at_utc":"now"}',
            **every(start, -10, 25),
        ),
        ev(
            "bank-gateway",
            "error",
            "SEPA credit transfer rejected AM04 InsufficientFunds debtor account DE89...{ms}",
            **every(start + 60, -10, 40),
        ),
        ev(
            "support-desk",
            "error",
            "ticket: my scheduled transfer went out an hour before my salary arrived",
            **every(start + 1200, -60, 600),
        ),
        *herrings(
            (
                "scheduler-worker",
                '{"level":"info","msg":"scheduler-worker 1.42.0 started (holiday calendar 2027)"}',
                -5800,
            ),
            ("bank-gateway", "TLS handshake with bank api timed out (retrying)"),
            ("notifications", "push provider latency p95 1{ms}ms"),
        ),
    ]
    return simple(
        703,
        start,
        ticket(
            "Customers say scheduled transfers are going out at the wrong time",
            "scheduled payments",
            start,
        ),
        expected(
            "application",
            [
                "payments-db",
                "timezone",
                "payments-pg16-v2",
                "PR infra#310",
                "parameter group",
                "TimeZone",
            ],
            sig,
            "PR infra#310 applied a new parameter group to payments-db that sets timezone Europe/Berlin. The scheduler stores due_at as UTC in timestamp without time zone and compares it with now()::timestamp, which is now Berlin time, one hour ahead, so every scheduled payment executes an hour early, before the money it depends on arrives. Bank AM04 rejections and complaints are the victim; the scheduler release (holiday calendar) and old TLS timeouts are not the cause.",
            [
                f"payments-db: parameter TimeZone changed ({sig})",
                "scheduler-worker: payment executed before due time",
                "rds-events: parameter group payments-pg16-v2 applied",
            ],
            "Set timezone back to UTC on payments-db (or in the scheduler's connection), and compare with timestamptz / now() AT TIME ZONE 'UTC'.",
        ),
        [
            bg(
                "scheduler-worker",
                ["sched-1", "sched-2"],
                ['{"msg":"tick","ms":{ms}}'],
                15,
            )
        ],
        evs,
        [svc("bank-gateway", 12, {"500": (0.001, 0.05)}, (0.3, 0.3))],
        [
            gauge(
                "scheduled_payments_executed_early_total_rate",
                {"service": "scheduler-worker"},
                0,
                0.4,
                start,
            ),
            gauge(
                "sepa_rejections_am04_rate",
                {"service": "bank-gateway"},
                0.002,
                0.03,
                start,
            ),
        ],
        {
            "sepa-rejections.md": runbook(
                "SEPA rejections",
                "A rise in SEPA rejections is usually the bank: check its status page and the gateway's TLS errors.",
            )
        },
    )


# =================================================================================================
# 16. Kubernetes, periodic tasks enqueued twice: the chart's new "HA defaults" (PR deploy#1533) set
#     replicaCount 2 for every Deployment, including celery-beat. Two beat schedulers each enqueue
#     every periodic task, so inventory-sync runs twice every five minutes and the supplier's API
#     answers 429 rate limit; stock levels go stale. Loud: the partner-sync 429 errors.
# =================================================================================================


@scenario("celery-beat-two-replicas-doubles-periodic-tasks", ("rollout", "ScaledUp"))
def celery_beat_two_replicas() -> dict[str, Any]:
    start = -2800
    ns = "inventory"
    beat = app(
        "celery-beat",
        image="ghcr.io/stockwise/inventory:2026.12.3",
        port=8000,
        rs="3e4f5a6b7c",
        cluster_ip="172.20.33.3",
        service=False,
        pods=[
            ("f1g2h", "1/1", "Running", "0", "3d", 0),
            ("j3k4l", "1/1", "Running", "0", "49m", 2),
        ],
    )
    worker = app(
        "celery-worker",
        image="ghcr.io/stockwise/inventory:2026.12.3",
        port=8000,
        rs="8d9e0f1a2b",
        cluster_ip="172.20.33.4",
        service=False,
        pods=[
            ("s5d6f", "1/1", "Running", "0", "3d", 0),
            ("z7x8c", "1/1", "Running", "0", "3d", 1),
            ("v9b0n", "1/1", "Running", "0", "3d", 2),
        ],
    )
    k8s = namespace(ns, NODES_DUB, [beat, worker], seed=704)
    sig = "Scaled up replica set celery-beat-3e4f5a6b7c to 2 from 1"
    k8s[f"kubectl events -n {ns}"] = events(
        [
            ("49m", "Normal", "ScalingReplicaSet", "Deployment/celery-beat", sig),
            (
                "49m",
                "Normal",
                "SuccessfulCreate",
                "ReplicaSet/celery-beat-3e4f5a6b7c",
                "Created pod: celery-beat-3e4f5a6b7c-j3k4l",
            ),
        ]
    )
    k8s[f"kubectl describe deployments celery-beat -n {ns}"] = (
        "Name:                   celery-beat\n"
        f"Namespace:              {ns}\n"
        "Annotations:            deployment.kubernetes.io/revision: 14\n"
        "                        stockwise.io/values: PR deploy#1533 HA defaults (replicaCount: 2)\n"
        "Replicas:               2 desired | 2 updated | 2 total | 2 available | 0 unavailable\n"
        "StrategyType:           RollingUpdate\n"
        "Pod Template:\n"
        "  Containers:\n"
        "   beat:\n"
        "    Command:  celery -A inventory beat --scheduler django_celery_beat.schedulers:DatabaseScheduler\n"
        "Events:\n"
        f"  Normal  ScalingReplicaSet  49m  deployment-controller  {sig}\n"
    )
    evs = [
        ev(
            "argocd",
            "info",
            "app inventory synced (PR deploy#1533 HA defaults: replicaCount 2 for all deployments)",
            at=start - 120,
        ),
        ev(
            "celery-beat",
            "info",
            "[INFO/MainProcess] Scheduler: Sending due task inventory-sync-every-5m (inventory.tasks.sync_supplier_stock)",
            **every(start, -10, 150),
            pods=pods_of(beat),
        ),
        ev(
            "celery-worker",
            "info",
            "[INFO/ForkPoolWorker-{ms}] Task inventory.tasks.sync_supplier_stock[{n}] received",
            **every(start, -10, 150),
            pods=pods_of(worker),
        ),
        ev(
            "celery-worker",
            "error",
            "[ERROR/ForkPoolWorker-{ms}] Task inventory.tasks.sync_supplier_stock[{n}] raised unexpected: HTTPError('429 Too Many Requests: quota 1 sync per 5 minutes per client')",
            **every(start + 160, -10, 150),
            pods=pods_of(worker),
        ),
        ev(
            "storefront",
            "warn",
            "stock level for SKU-{n} last updated 4{ms} min ago (stale)",
            **every(start + 900, -20, 60),
        ),
        *herrings(
            (
                "celery-worker",
                "[INFO/MainProcess] inventory 2026.12.3 ready (new supplier mapping for Bosch)",
                -6000,
            ),
            (
                "celery-worker",
                "[ERROR/MainProcess] consumer: Cannot connect to redis://inventory-redis:6379/0: Error 111 connecting",
            ),
            ("image-cdn", "origin slow for /img/{n}.webp"),
        ),
    ]
    return kube_case(
        seed=704,
        start=start,
        inc=alert(
            "[FIRING] SupplierSyncFailures > 3 in 15m",
            "inventory sync",
            start,
            {"alertname": "SupplierSyncFailures", "team": "inventory"},
        ),
        exp=expected(
            "application",
            [
                "deployment/celery-beat",
                "celery-beat",
                "replicaCount",
                "PR deploy#1533",
                "beat",
                "HA defaults",
            ],
            sig,
            "PR deploy#1533's HA defaults set replicaCount 2 for every Deployment, including celery-beat; Celery beat must run once. Both schedulers send every periodic task, so sync_supplier_stock runs twice every five minutes and the supplier's API (one sync per five minutes per client) answers the second with 429; alternating failures leave stock levels stale. The 429s and stale stock are the victim; the supplier-mapping release and old Redis connection errors are not the cause.",
            [
                f"events: {sig}",
                "celery-beat: both pods send inventory-sync-every-5m",
                "celery-worker: sync_supplier_stock 429 quota 1 sync per 5 minutes",
            ],
            "Scale celery-beat back to 1 (exclude it from the HA defaults, or use a beat with a lock such as RedBeat).",
        ),
        k8s=k8s,
        bgs=[
            bg(
                "celery-worker",
                pods_of(worker),
                [
                    "[INFO/ForkPoolWorker-{ms}] Task inventory.tasks.reprice[{n}] succeeded in 0.{ms}s"
                ],
                10,
            )
        ],
        evs=evs,
        services=[svc("inventory-api", 40, {"500": (0.001, 0.001)}, (0.04, 0.04))],
        gauges=[
            gauge(
                "celery_task_received_rate",
                {"task": "sync_supplier_stock"},
                0.0033,
                0.0067,
                start,
            ),
            gauge("supplier_api_429_rate", {"supplier": "bosch"}, 0, 0.0033, start),
        ],
        books={
            "supplier-sync.md": runbook(
                "Supplier sync failures",
                "429s from the supplier: ask the supplier to raise our quota and add retry with backoff in sync_supplier_stock.",
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
