"""Writes the twenty-sixth held-out scenario set, bench/heldout26: `python bench/heldout26/_build.py`.

New incidents, none of them in the bundled set or in bench/heldout … bench/heldout24. Theme: incidents
at small and mid-size companies running mixed stacks: VMs and bare metal, serverless functions,
managed queues and streams (SQS, Kafka, RabbitMQ, Pub/Sub), caches, CDNs and object storage, email /
payment / carrier providers, batch and cron jobs, data pipelines (ETL, CDC), legacy monoliths beside
new services. Causes are spread over the layers (dns, tls, connect, http, application, platform) and
over classes: capacity, configuration, expiry, dependency outage, bad data, clock, permissions, a
deploy, a migration. None is a Kubernetes incident. As in the earlier sets, everything that matters is
written by hand below (incident, expected answer, runbooks, the log lines that carry the fault and the
red herrings); the bulk (background request lines, 2 h of metric points thinned to one every 30 s)
comes from bench/heldout24/_build.py's helpers (and through them heldout22's and the earlier
builders'), each scenario with a fixed seed (609-624). The author read neither the planner
(`reasoning/`) nor the engine (`diagnosis/engine/`, `docs/engine.md`), nor their tests, nor any score
file. Stdlib only.
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


h24 = _load("heldout24_build", HERE.parent / "heldout24" / "_build.py")
base = h24.base

runbook = base.runbook
ev = h24.ev
bg = h24.bg
incident = h24.incident
expected = h24.expected
simple = h24.simple
svc = h24.svc
every = h24.every
gauge = h24.gauge
with_netcheck = h24.with_netcheck
tidy_clock_times = h24.tidy_clock_times

SCENARIOS: dict[str, Any] = {}


def scenario(slug: str):
    def register(fn):
        SCENARIOS[slug] = fn
        return fn

    return register


def alert(
    title: str,
    service: str,
    start: int,
    labels: dict[str, str],
    symptoms: list[str] = (),
    severity: str = "sev2",
) -> dict[str, Any]:
    """An incident opened by an alert: the alert's sentence, its labels."""
    inc = incident(title, service, start, symptoms)
    inc["labels"] = labels
    inc["severity"] = severity
    return inc


# =================================================================================================
# 1. DNS (netcheck): the CDN (Fastly) fetches product images from `img-origin.tallow.example`, a
#    CNAME to the origin's AWS load balancer. PR infra#233 replaced that ALB (new name, recreated for
#    an HTTP/2 listener); the Route 53 record kept the old ALB's name, which no longer resolves. Cached
#    images still load; every cache miss is a Fastly 503. The incident says "product images".
# =================================================================================================


@scenario("cdn-origin-cname-to-replaced-load-balancer")
def cdn_origin_cname_to_replaced_load_balancer() -> dict[str, Any]:
    start = -1600
    old_alb = "img-origin-prod-1843225610.eu-west-1.elb.amazonaws.com"
    sig = "DNS lookup failed for backend img-origin.tallow.example"
    evs = [
        ev(
            "fastly",
            "error",
            "503 Backend unavailable: "
            + sig
            + " (CNAME "
            + old_alb
            + ": NXDOMAIN) url=/p/{n}/main.webp pop=LHR",
            **every(start, -2, 4),
        ),
        ev(
            "terraform",
            "info",
            "PR infra#233 'origin ALB: enable HTTP/2 listener' applied by d.ferreira: aws_lb.img_origin must be replaced (-/+), 1 to add, 0 to change, 1 to destroy",
            at=start - 140,
        ),
        ev(
            "terraform",
            "info",
            "aws_lb.img_origin: Creation complete: dns_name=img-origin-prod-2071149932.eu-west-1.elb.amazonaws.com; aws_route53_record.img_origin: no changes (records = [var.origin_alb_dns])",
            at=start - 60,
        ),
        ev(
            "storefront",
            "error",
            "[web-vitals] LCP 9.{ms}s on /c/{n}: image element failed (503) — alert LargestContentfulPaintHigh",
            **every(start + 30, -5, 9),
        ),
        ev(
            "storefront",
            "error",
            "Unhandled error: ImageLoadError: https://img.tallow.example/p/{n}/main.webp 503",
            **every(start + 20, -3, 6),
        ),
        ev(
            "storefront",
            "info",
            "deploy storefront v88.2.0 (new category page carousel) complete",
            at=-5200,
        ),
        ev(
            "image-origin",
            "info",
            "GET /healthz 200 (target group img-origin-tg healthy 2/2)",
            **every(-3500, -30, 120),
        ),
        ev(
            "search-indexer",
            "warn",
            "bulk index slow: 1{ms} docs in 4.{ms}s (opensearch)",
            **every(-7000, -60, 300),
        ),
        ev(
            "fastly",
            "warn",
            "503 first byte timeout for backend img-origin.tallow.example url=/p/{n}/zoom.webp",
            **every(-10300, -9900, 120),
        ),
    ]
    spec = simple(
        609,
        start,
        incident(
            "product images missing on the site",
            "storefront",
            start,
            ["grey boxes instead of photos on category pages"],
        ),
        expected(
            "dns",
            [
                "img-origin.tallow.example",
                "route53",
                "aws_route53_record.img_origin",
                "PR infra#233",
                "img-origin",
                old_alb,
            ],
            sig,
            "PR infra#233 replaced the image origin's ALB; the Route 53 record img-origin.tallow.example still CNAMEs the destroyed ALB's name, which answers NXDOMAIN. Fastly's cache misses cannot resolve the backend and answer 503, so uncached product images are grey boxes. The storefront LCP alert and image errors are victims; the storefront release, the healthy origin targets and the old first-byte timeouts are not the cause.",
            [
                f"fastly: 503 Backend unavailable: {sig}",
                "terraform: aws_lb.img_origin replaced, aws_route53_record.img_origin unchanged",
                "netcheck: img-origin.tallow.example NXDOMAIN, the new ALB healthy",
            ],
            "Point img-origin.tallow.example at the new ALB (alias record to aws_lb.img_origin.dns_name, not a copied variable) and purge the 503s from Fastly.",
        ),
        [
            bg(
                "fastly",
                ["LHR", "AMS", "FRA"],
                ["200 HIT url=/p/{n}/main.webp ttfb={ms}ms"],
                8,
            )
        ],
        evs,
        [
            svc("fastly-img", 60, {"503": (0.001, 0.32)}, (0.02, 0.03)),
            svc("storefront", 30, {"500": (0.002, 0.01)}, (0.2, 0.25)),
        ],
        [gauge("fastly_cache_hit_ratio", {"service": "img"}, 0.93, 0.68, start)],
        {
            "slow-images.md": runbook(
                "Slow or missing product images",
                "Slow images are usually the origin under load: check the image-origin target group, scale the ASG to 4 and raise the Fastly first-byte timeout to 30 s.",
            )
        },
    )
    return with_netcheck(
        spec,
        [
            {
                "name": "img-origin",
                "url": "https://img-origin.tallow.example/healthz",
                "fault": {"kind": "dns_nxdomain"},
            },
            {
                "name": "img-origin-new-alb",
                "url": "https://img-origin-prod-2071149932.eu-west-1.elb.amazonaws.com/healthz",
                "fault": {"kind": "ok"},
            },
        ],
        "img-origin",
        {
            "img-origin": {"failed_layer": "dns", "reason": "nxdomain"},
            "img-origin-new-alb": {"failed_layer": "none", "reason": None},
        },
    )


# =================================================================================================
# 2. DNS: the company moved its DNS from the registrar to Cloudflare (IT-77). The zone import took the
#    A, MX and TXT records but not the CNAMEs under `_domainkey` that delegate DKIM to SendGrid.
#    Since the nameserver switch, Gmail and Outlook reject or spam order confirmations (DMARC p=reject
#    fails without DKIM). Orders work; the incident is a support lead's line about emails.
# =================================================================================================


@scenario("dkim-cname-lost-in-dns-provider-move")
def dkim_cname_lost_in_dns_provider_move() -> dict[str, Any]:
    start = -2400
    sig = "550 5.7.26 Unauthenticated email from brisket-and-co.example is not accepted due to domain's DMARC policy"
    evs = [
        ev(
            "sendgrid-events",
            "warn",
            "bounce to=customer{n}@gmail.com reason='"
            + sig
            + "' category=order-confirmation",
            **every(start, -4, 7),
        ),
        ev(
            "sendgrid-events",
            "warn",
            "dkim=none (s1._domainkey.brisket-and-co.example: no record) spf=pass dmarc=fail to=*@outlook.com",
            **every(start + 40, -10, 30),
        ),
        ev(
            "cloudflare-audit",
            "info",
            "zone brisket-and-co.example: nameservers active (IT-77 'move DNS off registrar'); 23 records imported (A, AAAA, MX, TXT); 0 CNAME under _domainkey",
            at=start - 200,
        ),
        ev(
            "shop-monolith",
            "info",
            "OrderMailer: queued order confirmation for order #{n} via SendGrid (202 Accepted)",
            **every(-3500, -4, 20),
        ),
        ev(
            "helpdesk",
            "warn",
            "new ticket: 'no confirmation email for my order, did it go through?' (tag: email)",
            **every(start + 300, -30, 180),
        ),
        ev(
            "shop-monolith",
            "info",
            "Capistrano deploy release 20261207101532 finished (gift-card balance page)",
            at=-6100,
        ),
        ev(
            "stock-sync",
            "warn",
            "supplier API slow: GET /stock?page={ms} took 8{ms}ms",
            **every(-7000, -60, 240),
        ),
        ev(
            "sendgrid-events",
            "warn",
            "bounce to=info@{n}.example reason='550 5.1.1 user unknown' category=order-confirmation",
            **every(-10500, -9800, 200),
        ),
    ]
    return simple(
        610,
        start,
        incident(
            "customers say they're not getting order confirmation emails",
            "order emails",
            start,
        ),
        expected(
            "dns",
            [
                "s1._domainkey.brisket-and-co.example",
                "dkim",
                "_domainkey",
                "cloudflare",
                "IT-77",
                "brisket-and-co.example",
                "dmarc",
            ],
            sig,
            "Moving DNS to Cloudflare (IT-77) imported A/MX/TXT records but not the _domainkey CNAMEs that delegate DKIM to SendGrid. Mail is sent unsigned; with DMARC p=reject, Gmail rejects it (550 5.7.26) and Outlook spams it. The shop queues every email fine (SendGrid 202). The helpdesk tickets are victims; the Capistrano release, stock-sync slowness and the old user-unknown bounces are not the cause.",
            [
                f"sendgrid-events: bounce: {sig}",
                "sendgrid-events: dkim=none (s1._domainkey: no record)",
                "cloudflare-audit: 0 CNAME under _domainkey imported",
            ],
            "Recreate s1._domainkey and s2._domainkey CNAMEs to SendGrid in Cloudflare (DNS only, not proxied), verify the domain in SendGrid, resend today's confirmations.",
        ),
        [
            bg(
                "shop-monolith",
                ["web-1", "web-2"],
                [
                    'Completed 200 OK in {ms}ms (Views: {ms}.1ms | ActiveRecord: {ms}.4ms) "GET /products/{n}"'
                ],
                8,
            )
        ],
        evs,
        [
            svc("shop-monolith", 15, {"500": (0.002, 0.002)}, (0.12, 0.12)),
            svc("sendgrid-delivered", 2, {"550": (0.01, 0.62)}, (1.0, 1.0)),
        ],
        [
            gauge(
                "email_delivered_ratio",
                {"category": "order-confirmation"},
                0.98,
                0.31,
                start,
            )
        ],
        {
            "emails-missing.md": runbook(
                "Customers not receiving emails",
                "Check the Sidekiq mail queue for stuck jobs and restart sidekiq-mail if the queue is above 500. Ask the customer to check spam.",
            )
        },
    )


# =================================================================================================
# 3. TLS expiry (netcheck): the three self-hosted Kafka brokers (VMs) use keystores issued a year ago
#    by the internal step-ca with a one-year lifetime; nobody automated renewal. At 06:00 the broker
#    certificates expired. The Debezium CDC connector (Kafka Connect) and the warehouse sink cannot
#    connect; the finance dashboard stops moving. The incident is "dashboard numbers stuck".
# =================================================================================================


@scenario("kafka-broker-keystore-expired-cdc-stalls")
def kafka_broker_keystore_expired_cdc_stalls() -> dict[str, Any]:
    start = -5000
    sig = "CertificateExpiredException: NotAfter: Mon Dec 07 06:00:00 UTC 2026"
    hosts = ["connect-1", "connect-2"]
    evs = [
        ev(
            "kafka-connect",
            "error",
            "[Producer clientId=connector-producer-pg-orders-cdc-0] Connection to node 2 (kafka-2.data.internal/10.20.4.12:9093) failed authentication due to: SSL handshake failed; javax.net.ssl.SSLHandshakeException: PKIX path validation failed: java.security.cert.CertPathValidatorException: validity check failed; caused by "
            + sig,
            **every(start, -5, 20),
            pods=hosts,
        ),
        ev(
            "kafka-connect",
            "error",
            "WorkerSourceTask{id=pg-orders-cdc-0} failed to send record to orders.public.payments: org.apache.kafka.common.errors.SslAuthenticationException",
            **every(start + 60, -20, 120),
            pods=hosts,
        ),
        ev(
            "kafka",
            "warn",
            "[SocketServer listenerType=ZK_BROKER, nodeId=1] Failed authentication with /10.20.6.{ms} (SSL handshake failed)",
            **every(start, -5, 15),
            pods=["kafka-1", "kafka-2", "kafka-3"],
        ),
        ev(
            "postgres",
            "warn",
            'replication slot "debezium_orders" is inactive; retained WAL 3.{ms} GB',
            **every(start + 600, -60, 600),
            pods=["pg-orders-1"],
        ),
        ev(
            "metabase",
            "warn",
            "dashboard 'Finance daily' card 'Revenue today' query took 2{ms}s (warehouse)",
            **every(-3400, -60, 300),
        ),
        ev(
            "airflow",
            "info",
            "DAG warehouse_models v41 deployed (dbt 1.8 upgrade)",
            at=-7000,
        ),
        ev(
            "step-ca",
            "info",
            "certificate renewed: subject=api-internal.data.internal notAfter=2027-03-01T00:00:00Z (acme)",
            at=-6400,
        ),
        ev(
            "kafka-connect",
            "error",
            "WorkerSinkTask{id=wh-sink-0} Commit of offsets timed out (Snowflake)",
            **every(-10400, -10000, 200),
            pods=hosts,
        ),
    ]
    spec = simple(
        611,
        start,
        incident(
            "finance dashboard numbers stuck since this morning",
            "finance dashboard",
            start,
        ),
        expected(
            "tls",
            [
                "kafka",
                "kafka-1",
                "kafka-2",
                "kafka-3",
                "kafka broker certificate",
                "kafka.keystore.jks",
                "step-ca",
                "kafka-2.data.internal",
            ],
            sig,
            "The Kafka brokers' certificates (keystores issued by step-ca with a one-year lifetime, never renewed) expired at 06:00. Kafka Connect's Debezium source and the warehouse sink fail the SSL handshake, CDC stops and the finance dashboard stops moving. Postgres's inactive replication slot and Metabase's slow cards are victims; the dbt upgrade, step-ca's other renewals and the old Snowflake commit timeouts are not the cause.",
            [
                f"kafka-connect: SSL handshake failed: {sig}",
                "kafka: Failed authentication (SSL handshake failed)",
                "netcheck: kafka-2.data.internal certificate expired",
            ],
            "Issue new broker certificates from step-ca, roll them into the keystores one broker at a time, restart the connectors; automate renewal (step ca renew --daemon) and alert 30 days before expiry.",
        ),
        [
            bg(
                "kafka-connect",
                hosts,
                [
                    "INFO [Worker clientId=connect-1] Finished commitOffsets successfully in {ms} ms"
                ],
                10,
                until=start,
                **{"from": -7200},
            )
        ],
        evs,
        [svc("metabase", 3, {"500": (0.001, 0.01)}, (1.2, 2.5))],
        [
            gauge(
                "kafka_consumergroup_lag",
                {"group": "wh-sink", "topic": "orders.public.payments"},
                40,
                52000,
                start,
            )
        ],
        {
            "stale-dashboards.md": runbook(
                "Dashboards not updating",
                "Stale dashboards mean the dbt run failed: open Airflow, clear the failed warehouse_models task and re-run it.",
            )
        },
    )
    return with_netcheck(
        spec,
        [
            {
                "name": "kafka-2",
                "url": "https://kafka-2.data.internal/",
                "fault": {"kind": "tls_expired", "expired_s_ago": 5000},
            },
            {
                "name": "metabase",
                "url": "https://bi.data.internal/api/health",
                "fault": {"kind": "ok"},
            },
        ],
        "kafka-2",
        {
            "kafka-2": {"failed_layer": "tls", "reason": "certificate_expired"},
            "metabase": {"failed_layer": "none", "reason": None},
        },
    )


# =================================================================================================
# 4. Connect (netcheck): RabbitMQ moved to a new VM, rabbit-02 (OPS-512), built with the hardened
#    Ansible base role that enables ufw with default deny. The role opens 22 and the management port
#    15672 (so the health check is green) but not AMQP 5672. The export workers on other VMs cannot
#    connect; CSV exports stay "queued". The web app's enqueue happens through the same broker and is
#    retried, so the web app is slow and loud.
# =================================================================================================


@scenario("rabbitmq-new-vm-firewall-blocks-amqp")
def rabbitmq_new_vm_firewall_blocks_amqp() -> dict[str, Any]:
    start = -2100
    sig = "[UFW BLOCK] IN=ens5 OUT= SRC=10.8.2.31 DST=10.8.1.40 PROTO=TCP SPT=41822 DPT=5672"
    evs = [
        ev(
            "rabbit-02-kernel",
            "warn",
            sig,
            at=start + 5,
        ),
        ev(
            "rabbit-02-kernel",
            "warn",
            "[UFW BLOCK] IN=ens5 OUT= SRC=10.8.2.{ms} DST=10.8.1.40 PROTO=TCP SPT=4{n} DPT=5672",
            **every(start + 10, -3, 6),
        ),
        ev(
            "export-worker",
            "error",
            "kombu.connection: Cannot connect to amqp://exports:**@rabbit.internal:5672//: timed out. Trying again in 8.00 seconds...",
            **every(start, -4, 8),
            pods=["worker-1", "worker-2"],
        ),
        ev(
            "ansible",
            "info",
            "PLAY RECAP rabbit-02: ok=48 changed=31 (roles: base-hardening[ufw default deny; allow 22/tcp, 15672/tcp], rabbitmq) OPS-512",
            at=start - 900,
        ),
        ev(
            "ops",
            "info",
            "OPS-512: DNS rabbit.internal -> 10.8.1.40 (rabbit-02); rabbit-01 stopped",
            at=start - 20,
        ),
        ev(
            "web-app",
            "error",
            "POST /reports/export -> 504: publish to exchange 'exports' timed out after 30s",
            **every(start + 30, -3, 5),
            pods=["web-1", "web-2", "web-3"],
        ),
        ev(
            "uptime",
            "info",
            "check 'rabbitmq management' http://rabbit.internal:15672/api/health/checks/alarms 200 OK",
            **every(-3500, -20, 300),
        ),
        ev(
            "web-app",
            "info",
            "deploy web-app 2026.12.07-1 (export filters UI) complete",
            at=-4800,
        ),
        ev(
            "billing-cron",
            "warn",
            "Stripe invoice sync: 3 invoices skipped (currency mismatch)",
            **every(-7000, -600, 1800),
        ),
        ev(
            "export-worker",
            "error",
            "export job {n} failed: MemoryError while building xlsx (rows=1.2M)",
            **every(-10400, -10000, 200),
            pods=["worker-1"],
        ),
    ]
    spec = simple(
        612,
        start,
        incident(
            "CSV exports stuck at 'queued' for everyone",
            "exports",
            start,
            ["export button sometimes times out"],
        ),
        expected(
            "connect",
            [
                "rabbit-02",
                "ufw",
                "rabbit.internal",
                "rabbitmq",
                "OPS-512",
                "base-hardening",
                "5672",
            ],
            "[UFW BLOCK]",
            "RabbitMQ moved to rabbit-02 (OPS-512), built with the base-hardening role: ufw default deny, only 22 and 15672 open. AMQP on 5672 is dropped, so the export workers time out connecting and the web app's publishes time out (504). The management health check on 15672 stays green. web-app's 504s are the loud victim; the web-app release, billing-cron warnings and the old xlsx MemoryError are not the cause.",
            [
                f"rabbit-02-kernel: {sig}",
                "export-worker: Cannot connect to amqp://rabbit.internal:5672: timed out",
                "netcheck: rabbit.internal AMQP times out, management answers 200",
            ],
            "ufw allow from 10.8.0.0/16 to any port 5672 proto tcp on rabbit-02, add it to the rabbitmq role's firewall vars.",
        ),
        [
            bg(
                "web-app",
                ["web-1", "web-2", "web-3"],
                ["method=GET path=/reports/{n} status=200 duration={ms}ms"],
                8,
            )
        ],
        evs,
        [
            svc("web-app", 20, {"504": (0.0, 0.08)}, (0.12, 0.9)),
        ],
        [gauge("rabbitmq_connections", {"instance": "rabbit-02"}, 42, 0, start)],
        {
            "exports-stuck.md": runbook(
                "Exports stuck in queued",
                "Exports stuck usually means the export worker ran out of memory on a huge report. Restart export-worker on worker-1 and cap rows at 1M.",
            )
        },
    )
    return with_netcheck(
        spec,
        [
            {
                "name": "rabbit-amqp",
                "url": "http://rabbit.internal/",
                "fault": {"kind": "connect_timeout"},
            },
            {
                "name": "rabbit-management",
                "url": "http://rabbit-mgmt.internal/api/health/checks/alarms",
                "fault": {"kind": "ok"},
            },
        ],
        "rabbit-amqp",
        {
            "rabbit-amqp": {"failed_layer": "connect", "reason": "timeout"},
            "rabbit-management": {"failed_layer": "none", "reason": None},
        },
    )


# =================================================================================================
# 5. Connect: the Lambda function `auth-mailer` (sends password-reset and magic-link emails through
#    the email provider Mailroom's API) was attached to the VPC in PR #612 so it can read the new
#    Aurora `accounts` database directly. Its subnets are private, with no NAT gateway route: every
#    call to api.mailroom.example now times out after 10 s. The loud part is the login page.
# =================================================================================================


@scenario("lambda-attached-to-vpc-without-nat-egress")
def lambda_attached_to_vpc_without_nat_egress() -> dict[str, Any]:
    start = -1800
    sig = "connect ETIMEDOUT 104.18.22.150:443"
    evs = [
        ev(
            "lambda/auth-mailer",
            "error",
            '{"level":"error","msg":"send failed","provider":"mailroom","url":"https://api.mailroom.example/v1/email","err":"Error: '
            + sig
            + '","attempt":3}',
            **every(start, -5, 10),
        ),
        ev(
            "lambda/auth-mailer",
            "error",
            "REPORT RequestId: {n}-a1 Duration: 30000.00 ms Billed Duration: 30000 ms Memory Size: 256 MB Max Memory Used: 88 MB Status: timeout",
            **every(start, -5, 20),
        ),
        ev(
            "cloudtrail",
            "info",
            "UpdateFunctionConfiguration auth-mailer by github-actions-deploy: VpcConfig={SubnetIds:[subnet-0a91 (app-private-a), subnet-0b22 (app-private-b)], SecurityGroupIds:[sg-mailer]} (PR #612 'auth-mailer: read accounts from Aurora')",
            at=start - 90,
        ),
        ev(
            "vpc",
            "info",
            "route table rtb-app-private: 10.40.0.0/16 local; no 0.0.0.0/0 route (nat gateways: none in vpc-accounts)",
            at=start - 80,
        ),
        ev(
            "auth-api",
            "error",
            "POST /password/forgot 502: mailer invoke failed (Task timed out after 30.00 seconds)",
            **every(start + 20, -3, 5),
            pods=["auth-api-1", "auth-api-2"],
        ),
        ev(
            "auth-api",
            "warn",
            "login failed for user {n}: invalid password (attempt 4/5)",
            **every(-3500, -3, 12),
            pods=["auth-api-1", "auth-api-2"],
        ),
        ev(
            "lambda/auth-mailer",
            "info",
            "INIT_START Runtime Version: nodejs:20.v31 (new function version 57, PR #612)",
            at=start - 60,
        ),
        ev(
            "lambda/thumbs",
            "warn",
            "image too large, downscaling {n}x{n}",
            **every(-7000, -60, 400),
        ),
        ev(
            "lambda/auth-mailer",
            "error",
            '{"level":"error","msg":"send failed","provider":"mailroom","err":"422 Unprocessable: recipient is on suppression list"}',
            **every(-10500, -9900, 200),
        ),
    ]
    return simple(
        613,
        start,
        incident(
            "Password reset emails not arriving",
            "password reset",
            start,
            ["users locked out asking support"],
        ),
        expected(
            "connect",
            [
                "auth-mailer",
                "lambda auth-mailer",
                "vpcconfig",
                "nat gateway",
                "PR #612",
                "rtb-app-private",
                "app-private-a",
                "api.mailroom.example",
            ],
            sig,
            "PR #612 attached the auth-mailer Lambda to private subnets of vpc-accounts so it can reach Aurora; those subnets have no NAT gateway route, so its HTTPS calls to the email provider Mailroom time out (connect ETIMEDOUT) and the function times out. Reset and magic-link emails are never sent. auth-api's 502s and failed logins are victims; Mailroom is up; the thumbs warnings and the old suppression-list 422 are not the cause.",
            [
                f"lambda/auth-mailer: {sig}",
                "cloudtrail: UpdateFunctionConfiguration auth-mailer VpcConfig private subnets (PR #612)",
                "vpc: rtb-app-private has no 0.0.0.0/0 route",
            ],
            "Add a NAT gateway route for the app-private subnets (or roll back VpcConfig and read accounts through the API); then re-send the queued reset emails.",
        ),
        [
            bg(
                "auth-api",
                ["auth-api-1", "auth-api-2"],
                ["POST /login 200 {ms}ms", "GET /session 200 {ms}ms"],
                8,
            )
        ],
        evs,
        [svc("auth-api", 18, {"502": (0.0, 0.04)}, (0.08, 0.09))],
        [gauge("aws_lambda_errors", {"function": "auth-mailer"}, 0, 6, start)],
        {
            "reset-emails.md": runbook(
                "Password reset emails missing",
                "Check the Mailroom suppression list for the user's address and remove it; bounced addresses are suppressed automatically.",
            )
        },
    )


# =================================================================================================
# 6. Third-party outage (netcheck): checkout asks the carrier-rates aggregator ShipQuote for shipping
#    options. ShipQuote's API answers 502 Bad Gateway since 13:10 (their status page later says "rate
#    engine degraded"). Checkout waits 15 s per attempt then shows a spinner; the cart-abandonment
#    alert and the checkout service's errors are loud. A checkout release an hour earlier is innocent.
# =================================================================================================


@scenario("shipping-rates-vendor-502-checkout-spinner")
def shipping_rates_vendor_502_checkout_spinner() -> dict[str, Any]:
    start = -1300
    sig = "POST https://api.shipquote.example/v2/rates -> 502 Bad Gateway"
    hosts = ["checkout-1", "checkout-2", "checkout-3"]
    evs = [
        ev(
            "checkout",
            "error",
            "ShippingRatesClient: " + sig + " (cf-ray {n}-LHR) after {ms}ms",
            **every(start, -2, 4),
            pods=hosts,
        ),
        ev(
            "checkout",
            "error",
            "GET /checkout/shipping-options 500: no shipping options available for basket {n}",
            **every(start + 5, -2, 3),
            pods=hosts,
        ),
        ev(
            "analytics",
            "warn",
            "alert CartAbandonmentHigh: 61% of sessions leave at step 'shipping' (baseline 18%)",
            **every(start + 400, -60, 300),
        ),
        ev(
            "checkout",
            "info",
            "checkout 4.12.0 started (Klarna button on payment step)",
            at=-4300,
            pods=hosts,
        ),
        ev(
            "redis-cache",
            "warn",
            "evicted keys: 1{ms} in the last minute (maxmemory 2gb, allkeys-lru)",
            **every(-6000, -60, 300),
        ),
        ev(
            "checkout",
            "error",
            "ShippingRatesClient: POST https://api.shipquote.example/v2/rates -> 400 invalid postcode 'SW1A 0XX'",
            **every(-10500, -9800, 150),
            pods=hosts,
        ),
    ]
    spec = simple(
        614,
        start,
        incident(
            "checkout stuck on 'calculating shipping' spinner",
            "checkout",
            start,
        ),
        expected(
            "http",
            [
                "shipquote",
                "api.shipquote.example",
                "shipquote rates api",
                "carrier rates provider",
                "ShippingRatesClient",
            ],
            sig,
            "The carrier-rates aggregator ShipQuote answers 502 on POST /v2/rates; checkout cannot get shipping options, shows a spinner and then 500. The cart-abandonment alert and checkout 500s are victims; the checkout 4.12.0 release (Klarna button), Redis evictions and the old invalid-postcode 400s are not the cause.",
            [
                f"checkout: {sig}",
                "netcheck: api.shipquote.example answers 502, checkout's own health endpoint fine",
                "analytics: sessions leave at the shipping step",
            ],
            "Turn on the flat-rate shipping fallback (table rates) until ShipQuote recovers; follow their status page.",
        ),
        [
            bg(
                "checkout",
                hosts,
                [
                    "GET /checkout/basket 200 {ms}ms",
                    "POST /checkout/payment 200 {ms}ms",
                ],
                8,
            )
        ],
        evs,
        [svc("checkout", 25, {"500": (0.002, 0.22)}, (0.15, 1.8))],
        [gauge("checkout_step_shipping_conversion", {"shop": "uk"}, 0.82, 0.39, start)],
        {
            "checkout-errors.md": runbook(
                "Checkout errors after a release",
                "When checkout errors rise after a release, roll back checkout to the previous version with `deploy rollback checkout`.",
            )
        },
    )
    return with_netcheck(
        spec,
        [
            {
                "name": "shipquote-rates",
                "url": "https://api.shipquote.example/v2/rates",
                "fault": {"kind": "http_status", "status": 502, "body": "Bad Gateway"},
            },
            {
                "name": "checkout",
                "url": "https://checkout.internal/healthz",
                "fault": {"kind": "ok"},
            },
        ],
        "shipquote-rates",
        {
            "shipquote-rates": {"failed_layer": "http", "reason": "http_502"},
            "checkout": {"failed_layer": "none", "reason": None},
        },
    )


# =================================================================================================
# 7. HTTP: the back-office monolith (Django on VMs behind nginx on lb-01) moved staff login to the
#    company's new SSO (Keycloak, CHG-88). The OIDC session now sets several large cookies (id token,
#    refresh token, a groups claim with 140 groups for some staff). nginx's proxy_buffer_size is the
#    4k default, so responses with those headers fail: "upstream sent too big header". Only staff in
#    many groups see 502 after login. The incident is one vague line.
# =================================================================================================


@scenario("nginx-proxy-buffer-too-small-for-sso-cookies")
def nginx_proxy_buffer_too_small_for_sso_cookies() -> dict[str, Any]:
    start = -2600
    sig = "upstream sent too big header while reading response header from upstream"
    evs = [
        ev(
            "nginx",
            "error",
            "2026/12/07 13:{n} [error] 2{ms}#2{ms}: *{n} "
            + sig
            + ', client: 10.1.{ms}.{ms}, server: backoffice.kestrel.example, request: "GET /oidc/callback/?code=... HTTP/1.1", upstream: "http://10.1.3.21:8000/oidc/callback/"',
            **every(start, -5, 25),
            pods=["lb-01"],
        ),
        ev(
            "nginx",
            "info",
            '10.1.{ms}.{ms} - - "GET /oidc/callback/ HTTP/1.1" 502 157 "-" "Mozilla/5.0"',
            **every(start, -5, 25),
            pods=["lb-01"],
        ),
        ev(
            "backoffice",
            "info",
            "mozilla_django_oidc: user {n} authenticated; set cookies sessionid, oidc_id_token ({n} bytes), oidc_refresh, kc_groups",
            **every(start, -5, 20),
            pods=["bo-app-1", "bo-app-2"],
        ),
        ev(
            "keycloak",
            "warn",
            "type=LOGIN_ERROR realm=staff clientId=backoffice error=expired_code",
            **every(start + 100, -30, 90),
        ),
        ev(
            "change-log",
            "info",
            "CHG-88 backoffice login via Keycloak SSO (mozilla-django-oidc 4.0, groups claim in token) released by a.nowak",
            at=start - 300,
        ),
        ev(
            "backoffice",
            "error",
            "django.db.utils.OperationalError: could not connect to server: Connection refused (pg-bo-01 restart)",
            **every(-10300, -10100, 60),
            pods=["bo-app-1", "bo-app-2"],
        ),
        ev(
            "cron-reports",
            "warn",
            "weekly stock report slow: query took 4{ms}s",
            **every(-6000, -300, 1200),
        ),
    ]
    return simple(
        615,
        start,
        incident(
            "admin panel broken for some of the team after logging in",
            "backoffice",
            start,
            ["Sarah in finance gets 'Bad Gateway', Tom is fine"],
        ),
        expected(
            "http",
            [
                "nginx",
                "lb-01",
                "proxy_buffer_size",
                "proxy_buffers",
                "CHG-88",
                "backoffice",
                "kc_groups",
            ],
            sig,
            "CHG-88 moved back-office login to Keycloak SSO; the callback response sets large cookies (id token, refresh token, a groups claim that is huge for staff in many groups). nginx on lb-01 keeps the default 4k proxy_buffer_size, so those responses fail with 'upstream sent too big header' and the user gets 502. Keycloak's expired_code errors are retries by victims; the old pg restart and the slow stock report are not the cause.",
            [
                f"nginx: {sig}",
                "nginx: GET /oidc/callback/ 502",
                "change-log: CHG-88 Keycloak SSO with groups claim",
            ],
            "Raise proxy_buffer_size to 16k and proxy_buffers 8 16k for backoffice on lb-01 and reload nginx; drop the groups claim from the cookie (keep it server-side).",
        ),
        [
            bg(
                "nginx",
                ["lb-01"],
                [
                    '10.1.{ms}.{ms} - - "GET /admin/orders/?page={ms} HTTP/1.1" 200 {n} "-" "Mozilla/5.0"'
                ],
                8,
            )
        ],
        evs,
        [svc("backoffice", 4, {"502": (0.0, 0.12)}, (0.2, 0.2))],
        [
            gauge(
                "keycloak_login_errors_per_minute",
                {"realm": "staff"},
                0.2,
                3,
                start + 100,
            )
        ],
        {
            "sso-login.md": runbook(
                "SSO login problems",
                "If staff cannot log in, the Keycloak session is stale: clear the user's sessions in the Keycloak admin console and ask them to clear cookies.",
            )
        },
    )


# =================================================================================================
# 8. Bad data: the nightly supplier feed import (cron on etl-01, Python) maps the CSV by column
#    position. Last night the supplier (Norvik Distribution) added a column `ean` after `sku`; the
#    importer logged a header mismatch as a warning and carried on, so `price` got the `stock_qty`
#    value. A customer asks why a 65" TV costs £4. The search reindex and a CDN purge are loud.
# =================================================================================================


@scenario("supplier-feed-new-column-shifts-prices")
def supplier_feed_new_column_shifts_prices() -> dict[str, Any]:
    start = -4200
    sig = "header mismatch ignored: expected 7 columns, got 8 (positional mapping)"
    evs = [
        ev(
            "feed-import",
            "warn",
            "norvik_daily_20261207.csv: "
            + sig
            + "; header=sku,ean,title,brand,price,stock_qty,lead_days,vat_code",
            at=start - 1800,
            pods=["etl-01"],
        ),
        ev(
            "feed-import",
            "info",
            "norvik_daily_20261207.csv: 18412 rows upserted into catalog.products (price updated for 17980)",
            at=start - 1700,
            pods=["etl-01"],
        ),
        ev(
            "feed-import",
            "warn",
            "norvik_delta.csv: " + sig + "; 2{ms} rows upserted into catalog.products",
            **every(start - 900, -60, 1800),
            pods=["etl-01"],
        ),
        ev(
            "catalog-api",
            "warn",
            "price sanity: sku NV-{n} price 4.00 < cost 389.00 (margin check disabled for feed imports)",
            **every(start - 1600, -30, 40),
            pods=["catalog-1", "catalog-2"],
        ),
        ev(
            "shop",
            "info",
            "order {n} placed: 1x NV-{n} 'Hisense 65\" 4K TV' total £4.00",
            **every(start, -10, 90),
        ),
        ev(
            "search-indexer",
            "warn",
            "reindex products: 17980 changed docs, bulk queue full, retrying batch {ms}",
            **every(start - 1600, start + 600, 30),
        ),
        ev(
            "cdn",
            "info",
            "purge by surrogate key 'products' requested by feed-import (17980 keys)",
            at=start - 1650,
        ),
        ev(
            "helpdesk",
            "warn",
            "ticket: 'is the price of the 65 inch TV a mistake? it says £4' (tag: pricing)",
            at=start,
        ),
        ev(
            "catalog-api",
            "info",
            "catalog-api 2.31.0 started (faceted brand filter)",
            at=-6800,
            pods=["catalog-1", "catalog-2"],
        ),
        ev(
            "feed-import",
            "error",
            "sftp.norvik.example: Authentication failed, retrying in 300s",
            **every(-10600, -10000, 300),
            pods=["etl-01"],
        ),
        ev(
            "newsletter",
            "warn",
            "Mailchimp API 429, backing off",
            **every(-7000, -100, 900),
        ),
    ]
    return simple(
        616,
        start,
        incident(
            "Customer ticket: why is the 65 inch TV listed at £4?",
            "shop",
            start,
            ["several orders already placed at that price"],
        ),
        expected(
            "application",
            [
                "feed-import",
                "norvik_daily_20261207.csv",
                "supplier feed",
                "etl-01",
                "positional mapping",
                "norvik",
                "catalog.products",
            ],
            sig,
            "The supplier Norvik added an `ean` column to the nightly CSV; feed-import on etl-01 maps columns by position and only warned about the header mismatch, so `price` received `stock_qty` for 17980 products. Wrong prices are live and being ordered. The search reindex backlog and the CDN purge follow from the import; the catalog-api release, the old SFTP auth failures and Mailchimp's 429s are not the cause.",
            [
                f"feed-import: {sig}",
                "catalog-api: price sanity: price 4.00 < cost 389.00",
                "shop: orders at £4.00",
            ],
            "Disable checkout for the affected SKUs, restore prices from yesterday's snapshot, map the feed by header names and fail the import on a header change.",
        ),
        [
            bg(
                "shop",
                ["shop-1", "shop-2"],
                ["GET /product/NV-{n} 200 {ms}ms", "GET /category/tv 200 {ms}ms"],
                8,
            )
        ],
        evs,
        [svc("shop", 12, {"500": (0.002, 0.002)}, (0.18, 0.18))],
        [
            gauge(
                "catalog_price_below_cost_products",
                {"supplier": "norvik"},
                0,
                17980,
                start - 1700,
            )
        ],
        {
            "search-stale.md": runbook(
                "Search shows wrong or stale products",
                "When search results disagree with product pages, the reindex is behind: wait for the bulk queue to drain or run `manage.py reindex --full` at night.",
            )
        },
    )


# =================================================================================================
# 9. Clock: the order-webhook sender `notify-01` (a VM) was rebuilt from the new base image, which
#    swaps chrony for systemd-timesyncd with the default pool servers; the office firewall only allows
#    NTP to ntp.internal, so the clock never syncs and drifts (the hypervisor host is 7 minutes off).
#    The partner (a 3PL warehouse) verifies signed webhooks with a 300 s timestamp tolerance and
#    rejects every one. The partner's account manager complains; our own retries are loud.
# =================================================================================================


@scenario("webhook-sender-clock-drift-partner-rejects-signatures")
def webhook_sender_clock_drift_partner_rejects_signatures() -> dict[str, Any]:
    start = -3000
    sig = "timestamp outside tolerance (skew 412s)"
    evs = [
        ev(
            "order-webhooks",
            "error",
            'POST https://hooks.packright.example/v1/orders -> 401 {"error":"'
            + sig
            + '"} order={n}',
            **every(start, -5, 12),
            pods=["notify-01"],
        ),
        ev(
            "order-webhooks",
            "warn",
            "retry scheduled for order {n} (attempt 6/10, next in 320s)",
            **every(start, -3, 6),
            pods=["notify-01"],
        ),
        ev(
            "systemd-timesyncd",
            "warn",
            "Timed out waiting for reply from 162.159.200.123:123 (0.debian.pool.ntp.org).",
            **every(-7000, -30, 240),
            pods=["notify-01"],
        ),
        ev(
            "notify-01",
            "info",
            "timedatectl: System clock synchronized: no; NTP service: active; RTC time: 2026-12-07 13:{n}",
            at=start - 400,
            pods=["notify-01"],
        ),
        ev(
            "ops",
            "info",
            "notify-01 rebuilt from base image debian-12-2026.11 (chrony replaced by systemd-timesyncd) OPS-530",
            at=-7100,
        ),
        ev(
            "firewall",
            "info",
            "deny udp 10.5.3.14:123 -> 162.159.200.123:123 (policy: ntp only to ntp.internal)",
            **every(-7000, -30, 240),
        ),
        ev(
            "orders-api",
            "info",
            "orders-api 9.4.1 deployed (gift wrap option)",
            at=-5200,
        ),
        ev(
            "order-webhooks",
            "error",
            "POST https://hooks.packright.example/v1/orders -> 503 maintenance window",
            **every(-10500, -9900, 120),
            pods=["notify-01"],
        ),
        ev(
            "newsletter",
            "warn",
            "list sync: 12 contacts rejected (invalid email)",
            **every(-6000, -200, 1200),
        ),
    ]
    return simple(
        617,
        start,
        incident(
            "Warehouse partner says they haven't received any orders from us since lunch",
            "order fulfilment",
            start,
        ),
        expected(
            "platform",
            [
                "notify-01",
                "systemd-timesyncd",
                "ntp",
                "clock",
                "clock drift",
                "OPS-530",
                "debian-12-2026.11",
            ],
            sig,
            "notify-01 was rebuilt from a base image that replaced chrony with systemd-timesyncd using public pool servers; the firewall allows NTP only to ntp.internal, so the clock never syncs and drifted about 7 minutes. The partner Packright rejects our signed webhooks because the signature timestamp is outside its 300 s tolerance (401). Our retry storm is a victim; orders-api's release, Packright's old maintenance 503 and newsletter noise are not the cause.",
            [
                f"order-webhooks: 401 {sig}",
                "systemd-timesyncd: Timed out waiting for reply from pool.ntp.org",
                "firewall: deny udp 123 to public NTP",
            ],
            "Point timesyncd at ntp.internal (or restore chrony in the base image), step the clock, replay the failed webhooks; alert on unsynchronised clocks.",
        ),
        [
            bg(
                "order-webhooks",
                ["notify-01"],
                ["POST https://hooks.carrier.example/v2/labels -> 200 in {ms}ms"],
                10,
            )
        ],
        evs,
        [svc("order-webhooks", 2, {"401": (0.0, 0.7)}, (0.2, 0.2))],
        [
            gauge(
                "node_timex_offset_seconds", {"instance": "notify-01"}, 0.01, 412, -7100
            )
        ],
        {
            "partner-webhooks.md": runbook(
                "Partner not receiving webhooks",
                "If a partner misses webhooks, check whether they rotated the shared secret: compare the key in Vault secret/partners/packright with theirs and update it.",
            )
        },
    )


# =================================================================================================
# 10. Permissions: SEC-212 ("least privilege for functions") replaced the broad Editor role of the
#     Cloud Functions' default service account with per-function accounts. `on-upload` (a GCS-triggered
#     function) got `upload-fn@…` with storage roles only; it publishes to the Pub/Sub topic
#     `image-uploaded` and now gets 403 PERMISSION_DENIED. The resizer service is idle; photos stay
#     "processing". The loud part is the listing editor's errors.
# =================================================================================================


@scenario("cloud-function-sa-missing-pubsub-publisher")
def cloud_function_sa_missing_pubsub_publisher() -> dict[str, Any]:
    start = -2200
    sig = "PERMISSION_DENIED: User not authorized to perform this action. (pubsub.topics.publish on projects/rentnest-prod/topics/image-uploaded)"
    evs = [
        ev(
            "cloudfunctions/on-upload",
            "error",
            "Error: 7 " + sig + " object=listings/{n}/photo-{ms}.jpg",
            **every(start, -3, 6),
        ),
        ev(
            "cloudaudit",
            "info",
            "SetIamPolicy projects/rentnest-prod by terraform@rentnest-ops: remove roles/editor from 1043@cloudservices; add upload-fn@rentnest-prod.iam.gserviceaccount.com roles/storage.objectViewer (SEC-212)",
            at=start - 240,
        ),
        ev(
            "cloudfunctions/on-upload",
            "info",
            "Function on-upload redeployed with service account upload-fn@rentnest-prod.iam.gserviceaccount.com (SEC-212)",
            at=start - 180,
        ),
        ev(
            "listing-editor",
            "error",
            "GET /api/listings/{n}/photos -> 200 but 6 photos still 'processing' after 600s; showing placeholder",
            **every(start + 300, -3, 5),
            pods=["editor-1", "editor-2"],
        ),
        ev(
            "resizer",
            "info",
            "subscription image-uploaded-resizer: 0 messages pulled in the last 60s",
            **every(start + 60, -30, 60),
        ),
        ev(
            "listing-editor",
            "info",
            "listing-editor 3.3.0 deployed (drag and drop photo order)",
            at=-5400,
        ),
        ev(
            "cloudsql",
            "warn",
            "rentnest-pg: CPU 82% (autovacuum on table messages)",
            **every(-7000, -100, 600),
        ),
        ev(
            "resizer",
            "error",
            "libvips: VipsJpeg: Premature end of JPEG file listings/{n}/photo-2.jpg",
            **every(-10400, -9800, 200),
        ),
    ]
    return simple(
        618,
        start,
        incident(
            "landlords say their photos are stuck on 'processing'",
            "listing photos",
            start,
        ),
        expected(
            "application",
            [
                "on-upload",
                "upload-fn@rentnest-prod.iam.gserviceaccount.com",
                "upload-fn",
                "roles/pubsub.publisher",
                "SEC-212",
                "image-uploaded",
                "iam",
            ],
            sig,
            "SEC-212 replaced the default Editor role with per-function service accounts; on-upload's new account upload-fn has storage roles only, not roles/pubsub.publisher on topic image-uploaded. Every publish is PERMISSION_DENIED, so the resizer never receives a message and photos stay 'processing'. listing-editor's placeholders and the idle resizer are victims; the listing-editor release, Cloud SQL CPU and the old corrupt-JPEG error are not the cause.",
            [
                f"cloudfunctions/on-upload: {sig}",
                "cloudaudit: SetIamPolicy removes roles/editor, adds storage roles only (SEC-212)",
                "resizer: 0 messages pulled",
            ],
            "Grant upload-fn roles/pubsub.publisher on topic image-uploaded (in the SEC-212 Terraform), then re-publish events for the objects uploaded since.",
        ),
        [
            bg(
                "listing-editor",
                ["editor-1", "editor-2"],
                [
                    "GET /api/listings/{n} 200 {ms}ms",
                    "PUT /api/listings/{n} 200 {ms}ms",
                ],
                8,
            )
        ],
        evs,
        [svc("listing-editor", 9, {"500": (0.002, 0.003)}, (0.1, 0.1))],
        [
            gauge(
                "pubsub_topic_send_message_operation_count",
                {"topic": "image-uploaded"},
                4,
                0,
                start,
            )
        ],
        {
            "photos-processing.md": runbook(
                "Photos stuck in processing",
                "Photos stuck in processing mean the resizer is overloaded: scale the resizer Cloud Run service to 10 instances.",
            )
        },
    )


# =================================================================================================
# 11. Capacity: the order-status consumer group reads the Kafka topic `order-events` (MSK), created
#     years ago with 3 partitions. For the winter sale the team scaled `status-projector` from 3 to 12
#     instances (the trigger, and their fix attempt): 9 consumers get no partition, the 3 that do are
#     CPU bound, lag climbs. Customers see "processing" for paid orders; the support tool is loud.
# =================================================================================================


@scenario("kafka-topic-three-partitions-consumers-idle")
def kafka_topic_three_partitions_consumers_idle() -> dict[str, Any]:
    start = -2700
    sig = "assigned partitions: [] (topic order-events has 3 partitions, group status-projector has 12 members)"
    pods = [f"status-projector-{i}" for i in range(1, 13)]
    evs = [
        ev(
            "status-projector",
            "warn",
            "[Consumer clientId=status-projector-{ms}, groupId=status-projector] "
            + sig,
            **every(start - 200, -30, 120),
            pods=pods[3:],
        ),
        ev(
            "status-projector",
            "info",
            "[Consumer groupId=status-projector] Adding newly assigned partitions: order-events-{ms}",
            at=start - 210,
            pods=pods[:3],
        ),
        ev(
            "status-projector",
            "warn",
            "processed batch of 500 in 9{ms}ms; cpu 98%; lag order-events-1 = 8{n}",
            **every(start, -5, 15),
            pods=pods[:3],
        ),
        ev(
            "ops",
            "info",
            "ECS service status-projector desired count 3 -> 12 (winter sale, CHG-301)",
            at=start - 260,
        ),
        ev(
            "support-console",
            "error",
            "GET /orders/{n}/status -> order paid {ms} min ago still 'processing' (projection stale)",
            **every(start + 120, -3, 5),
        ),
        ev(
            "orders-api",
            "info",
            "published OrderPaid order={n} to order-events",
            **every(-3500, -2, 6),
        ),
        ev(
            "orders-api",
            "info",
            "orders-api 6.8.0 deployed (sale banners)",
            at=-6000,
        ),
        ev(
            "recommendations",
            "warn",
            "model refresh slow: 1{ms}s",
            **every(-7000, -60, 600),
        ),
        ev(
            "status-projector",
            "error",
            "DynamoDB ProvisionedThroughputExceededException on table order_status, retrying",
            **every(-10500, -10000, 120),
            pods=pods[:3],
        ),
    ]
    return simple(
        619,
        start,
        alert(
            "[FIRING] OrderStatusLagHigh consumer lag > 50k",
            "status-projector",
            start,
            {
                "alertname": "OrderStatusLagHigh",
                "consumergroup": "status-projector",
                "topic": "order-events",
                "severity": "page",
            },
        ),
        expected(
            "application",
            [
                "order-events",
                "status-projector",
                "partitions",
                "topic order-events",
                "kafka partition count",
                "CHG-301",
            ],
            sig,
            "The topic order-events has only 3 partitions, so a consumer group can use at most 3 consumers. Scaling status-projector to 12 for the winter sale (CHG-301) left 9 members with no partitions; the 3 that have partitions are CPU bound and lag climbs. Support's stale statuses are victims; the orders-api release, recommendations and the old DynamoDB throttling are not the cause.",
            [
                f"status-projector: {sig}",
                "status-projector: cpu 98%, lag climbing on the 3 assigned consumers",
                "ops: desired count 3 -> 12 (CHG-301)",
            ],
            "Increase order-events to 24 partitions (keyed by order id: ordering per order stays), or give the 3 consumers more CPU; scale back the idle members.",
        ),
        [
            bg(
                "status-projector",
                pods[:3],
                ["projected OrderPaid order={n} in {ms}ms"],
                8,
            )
        ],
        evs,
        [svc("support-console", 3, {"500": (0.001, 0.01)}, (0.2, 0.25))],
        [
            gauge(
                "kafka_consumergroup_lag_sum",
                {"group": "status-projector", "topic": "order-events"},
                300,
                64000,
                start,
            )
        ],
        {
            "consumer-lag.md": runbook(
                "Kafka consumer lag",
                "Consumer lag means too few consumers: raise the ECS desired count of the consumer service.",
            )
        },
    )


# =================================================================================================
# 12. Capacity: the legacy PHP shop runs on web-01…web-04 with one memcached VM (memcached-01,
#     started with `-c 1024`). Ops added four web nodes for the Christmas peak (OPS-610); each
#     PHP-FPM worker keeps a persistent memcached connection, so the fleet now opens ~1,600. New
#     connections are refused, every refused worker falls through to MySQL, and db-01's CPU alert is
#     what pages. The incident is the database alert.
# =================================================================================================


@scenario("memcached-maxconns-after-web-scale-out")
def memcached_maxconns_after_web_scale_out() -> dict[str, Any]:
    start = -1900
    sig = "Too many open connections"
    webs = [f"web-0{i}" for i in range(1, 9)]
    evs = [
        ev(
            "memcached",
            "error",
            "accept(): " + sig + " (maxconns 1024 reached; curr_connections 1024)",
            **every(start, -4, 10),
            pods=["memcached-01"],
        ),
        ev(
            "php-fpm",
            "warn",
            "PHP Warning: Memcached::get(): SERVER ERROR: "
            + sig
            + " in /var/www/shop/lib/Cache.php on line 88",
            **every(start, -2, 3),
            pods=webs,
        ),
        ev(
            "mysql",
            "warn",
            "# Query_time: 4.{ms} Lock_time: 0.000 Rows_examined: 2{n} SELECT p.*, c.* FROM products p JOIN categories c ... (category page)",
            **every(start + 30, -2, 4),
            pods=["db-01"],
        ),
        ev(
            "mysql",
            "error",
            "Too many connections (max_connections 600, threads_running 2{ms})",
            **every(start + 300, -10, 40),
            pods=["db-01"],
        ),
        ev(
            "ops",
            "info",
            "OPS-610: web-05..web-08 added to haproxy backend shop (Christmas peak); php-fpm pm.max_children=200, memcached persistent_id=shop",
            at=start - 100,
        ),
        ev(
            "shop",
            "info",
            "release 2026.49.2 deployed via rsync to web-01..web-08 (advent calendar banner)",
            at=-5300,
        ),
        ev(
            "haproxy",
            "warn",
            "Server shop/web-0{ms} is DOWN, reason: Layer7 timeout, check duration: 2001ms",
            **every(start + 400, -60, 200),
        ),
        ev(
            "mailer",
            "warn",
            "smtp relay: 4.2.1 deferred for 2 recipients",
            **every(-7000, -60, 900),
        ),
        ev(
            "mysql",
            "warn",
            "InnoDB: page_cleaner: 1000ms intended loop took 4{ms}ms (backup running)",
            **every(-10600, -10100, 100),
            pods=["db-01"],
        ),
    ]
    return simple(
        620,
        start,
        alert(
            "[ALERT] MySQLHighCPU db-01 cpu > 95% for 10m",
            "mysql",
            start,
            {"alertname": "MySQLHighCPU", "instance": "db-01", "severity": "critical"},
        ),
        expected(
            "application",
            [
                "memcached-01",
                "memcached",
                "maxconns",
                "-c 1024",
                "OPS-610",
                "persistent connections",
            ],
            sig,
            "Four web nodes were added for the Christmas peak (OPS-610); every PHP-FPM worker keeps a persistent memcached connection, which exceeds memcached-01's -c 1024 limit. Refused workers miss the cache and query MySQL directly, so db-01's CPU and connections max out and haproxy marks web nodes down. MySQL is the loud victim; the shop release, the mailer deferrals and the old page_cleaner warning during a backup are not the cause.",
            [
                f"memcached: accept(): {sig} (maxconns 1024)",
                f"php-fpm: Memcached::get(): SERVER ERROR: {sig}",
                "ops: OPS-610 added web-05..web-08",
            ],
            "Restart memcached-01 with -c 4096 (and raise its LimitNOFILE), or drop persistent connections; then MySQL load returns to normal.",
        ),
        [
            bg(
                "php-fpm",
                webs,
                ['"GET /category/{ms}" 200 {ms}ms'],
                8,
            )
        ],
        evs,
        [
            svc("shop", 40, {"502": (0.001, 0.09)}, (0.15, 1.6)),
        ],
        [
            gauge(
                "mysql_global_status_threads_running",
                {"instance": "db-01"},
                12,
                230,
                start,
            ),
            gauge("node_cpu_busy_ratio", {"instance": "db-01"}, 0.3, 0.97, start),
            gauge(
                "memcached_current_connections",
                {"instance": "memcached-01"},
                610,
                1024,
                start - 100,
            ),
        ],
        {
            "mysql-cpu.md": runbook(
                "MySQL CPU high",
                "High CPU on db-01 is almost always a slow query: find it with pt-query-digest, add the index, and kill long-running reporting queries.",
            )
        },
    )


# =================================================================================================
# 13. Deploy: the billing webhooks (AWS Lambda behind API Gateway, Serverless Framework) were moved to
#     Serverless Framework v4 (PR #77). In the new serverless.yml the environment block sits under
#     `custom.stages.prod` which v4 does not read, so STRIPE_WEBHOOK_SECRET is unset in prod; every
#     Stripe webhook answers 400 and subscriptions are never activated. Stripe's own status incident
#     earlier in the day is a red herring.
# =================================================================================================


@scenario("serverless-v4-migration-drops-webhook-secret")
def serverless_v4_migration_drops_webhook_secret() -> dict[str, Any]:
    start = -2900
    sig = "STRIPE_WEBHOOK_SECRET is not set; cannot verify Stripe-Signature"
    evs = [
        ev(
            "lambda/billing-webhooks-prod-stripe",
            "error",
            '{"level":"error","msg":"'
            + sig
            + '","event":"evt_{n}","type":"checkout.session.completed"}',
            **every(start, -5, 15),
        ),
        ev(
            "apigateway",
            "warn",
            "POST /webhooks/stripe 400 (integration latency {ms} ms) requestId={n}",
            **every(start, -5, 15),
        ),
        ev(
            "github-actions",
            "info",
            "deploy billing-webhooks prod: serverless deploy --stage prod (Serverless Framework v4.4.7, PR #77 'upgrade to serverless v4') success",
            at=start - 60,
        ),
        ev(
            "lambda/billing-webhooks-prod-stripe",
            "warn",
            "Serverless: Warning: unrecognized property 'custom.stages.prod.environment' was ignored",
            at=start - 55,
        ),
        ev(
            "stripe",
            "warn",
            "webhook endpoint we_{n}: delivery failed (400), will retry (attempt {ms})",
            **every(start + 60, -10, 40),
        ),
        ev(
            "stripe-status",
            "info",
            "Stripe status: 'Elevated API error rates in Dashboard' resolved",
            at=-9000,
        ),
        ev(
            "app-api",
            "error",
            "GET /account/plan -> user {n} has paid checkout session but subscription status 'free'",
            **every(start + 200, -3, 6),
            pods=["app-api-1", "app-api-2"],
        ),
        ev(
            "app-api",
            "info",
            "app-api 14.2.0 deployed (annual plan toggle)",
            at=-5600,
            pods=["app-api-1", "app-api-2"],
        ),
        ev(
            "intercom-sync",
            "warn",
            "rate limited by Intercom, sleeping 10s",
            **every(-7000, -60, 700),
        ),
        ev(
            "lambda/billing-webhooks-prod-stripe",
            "error",
            '{"level":"error","msg":"customer not found","event":"evt_{n}","type":"invoice.paid"}',
            **every(-10600, -10000, 200),
        ),
    ]
    return simple(
        621,
        start,
        incident(
            "Customers paid but their account still shows the free plan",
            "billing",
            start,
            ["support refunding people"],
        ),
        expected(
            "application",
            [
                "billing-webhooks",
                "billing-webhooks-prod-stripe",
                "STRIPE_WEBHOOK_SECRET",
                "serverless.yml",
                "PR #77",
                "serverless framework v4",
            ],
            sig,
            "PR #77 upgraded billing-webhooks to Serverless Framework v4; its environment block moved under custom.stages.prod, which v4 ignores, so STRIPE_WEBHOOK_SECRET is unset in prod. The Stripe handler cannot verify signatures and answers 400 to every webhook, so paid checkouts never activate subscriptions. app-api's 'free plan' errors and Stripe's retries are victims; Stripe's earlier status incident, the app-api release, Intercom limits and the old customer-not-found error are not the cause.",
            [
                f"lambda/billing-webhooks-prod-stripe: {sig}",
                "lambda: unrecognized property custom.stages.prod.environment was ignored",
                "github-actions: deploy billing-webhooks with Serverless v4 (PR #77)",
            ],
            "Move the environment to provider.environment (or stages.prod.params) and redeploy; then resend the failed events from the Stripe dashboard.",
        ),
        [
            bg(
                "app-api",
                ["app-api-1", "app-api-2"],
                [
                    "GET /api/projects 200 {ms}ms",
                    "POST /api/projects/{n}/tasks 201 {ms}ms",
                ],
                8,
            )
        ],
        evs,
        [
            svc("billing-webhooks", 1, {"400": (0.01, 0.98)}, (0.08, 0.03)),
            svc("app-api", 22, {"500": (0.002, 0.004)}, (0.09, 0.09)),
        ],
        [gauge("subscriptions_activated_per_hour", {"plan": "pro"}, 40, 0, start)],
        {
            "stripe-incident.md": runbook(
                "Payments not reflected in accounts",
                "When paid accounts are not upgraded, Stripe is usually having an incident: check status.stripe.com and wait; webhooks are retried for 3 days.",
            )
        },
    )


# =================================================================================================
# 14. Migration: last night the accounts database moved from MySQL 8 (utf8mb4_0900_ai_ci,
#     case-insensitive) to PostgreSQL 16 (MIG-14, pgloader). The login query is `WHERE email = %s`;
#     users who signed up as `Jane.Doe@…` and type `jane.doe@…` (or the other way) are "not found"
#     and the app says "invalid email or password". Password reset looks up the same way, so it
#     silently sends nothing. Support tickets and the brute-force alert are loud.
# =================================================================================================


@scenario("mysql-to-postgres-migration-case-sensitive-email")
def mysql_to_postgres_migration_case_sensitive_email() -> dict[str, Any]:
    start = -3400
    sig = "no user for email (exact match, 0 rows); a case-insensitive match exists"
    hosts = ["accounts-1", "accounts-2"]
    evs = [
        ev(
            "accounts",
            "warn",
            "login failed: " + sig + " user_id={n}",
            **every(start, -3, 6),
            pods=hosts,
        ),
        ev(
            "accounts",
            "info",
            "password reset requested for unknown email (exact match, 0 rows); no email sent",
            **every(start + 60, -10, 45),
            pods=hosts,
        ),
        ev(
            "migration",
            "info",
            "MIG-14 pgloader: accounts.users 412,833 rows copied; column email varchar(255) (source collation utf8mb4_0900_ai_ci, target default collation, no citext/lower index)",
            at=-9000,
        ),
        ev(
            "migration",
            "info",
            "MIG-14: accounts cut over to pg-accounts-01 (PostgreSQL 16); DATABASE_URL switched",
            at=start - 200,
        ),
        ev(
            "waf",
            "warn",
            "rule BruteForceLogin: 3{ms} failed logins/min on /login (threshold 200)",
            **every(start + 300, -60, 120),
        ),
        ev(
            "helpdesk",
            "warn",
            "ticket: 'I can't log in, says my password is wrong, and the reset email never comes' (tag: login)",
            **every(start + 200, -60, 240),
        ),
        ev(
            "accounts",
            "info",
            "accounts 5.0.0 started (PostgreSQL driver psycopg 3)",
            at=start - 190,
            pods=hosts,
        ),
        ev(
            "accounts",
            "error",
            "pymysql.err.OperationalError: (2013, 'Lost connection to MySQL server during query')",
            **every(-10600, -10000, 100),
            pods=hosts,
        ),
        ev(
            "search",
            "warn",
            "typesense: query took 9{ms}ms",
            **every(-7000, -200, 800),
        ),
    ]
    return simple(
        622,
        start,
        incident(
            "I can't log in, it says my password is wrong and the reset email never comes",
            "login",
            start,
        ),
        expected(
            "application",
            [
                "accounts",
                "MIG-14",
                "users.email",
                "pg-accounts-01",
                "collation",
                "case-sensitive email",
                "citext",
                "pgloader",
            ],
            sig,
            "MIG-14 moved accounts from MySQL (case-insensitive collation) to PostgreSQL, where `email = %s` is case-sensitive. Users whose stored email differs in case from what they type are not found, so login says 'invalid password' and password reset sends nothing. The brute-force WAF alert and the tickets are victims; the accounts 5.0.0 driver change is part of the migration but not the fault; the old MySQL lost-connection errors and search latency are not the cause.",
            [
                f"accounts: login failed: {sig}",
                "migration: MIG-14 email column without citext or lower() index",
                "accounts: password reset for unknown email, no email sent",
            ],
            "Change users.email to citext (or compare lower(email) with a unique index on lower(email)), after de-duplicating addresses that differ only in case.",
        ),
        [
            bg(
                "accounts",
                hosts,
                ["POST /login 200 {ms}ms", "GET /me 200 {ms}ms"],
                8,
            )
        ],
        evs,
        [svc("accounts", 14, {"401": (0.03, 0.19)}, (0.07, 0.08))],
        [gauge("login_failure_ratio", {"app": "accounts"}, 0.03, 0.19, start)],
        {
            "brute-force.md": runbook(
                "BruteForceLogin alert",
                "A spike in failed logins is a credential-stuffing attack: enable the Cloudflare managed challenge on /login and block the top ASNs.",
            )
        },
    )


# =================================================================================================
# 15. Platform: the batch VM batch-02 (monthly invoice PDFs, a Python job that uses WeasyPrint via a
#     PyInstaller one-file binary) was re-provisioned with the CIS level 2 hardening role (SEC-330),
#     which mounts /tmp with noexec. A one-file binary unpacks its libraries to /tmp and dlopen()s
#     them: "failed to map segment from shared object". The 06:00 cron fails; finance notices at 09:00.
# =================================================================================================


@scenario("tmp-noexec-hardening-breaks-invoice-batch")
def tmp_noexec_hardening_breaks_invoice_batch() -> dict[str, Any]:
    start = -1200
    sig = "failed to map segment from shared object"
    evs = [
        ev(
            "invoice-batch",
            "error",
            "[PYI-3141:ERROR] Failed to load Python shared library '/tmp/_MEIk2x9Qa/libpython3.11.so.1.0': /tmp/_MEIk2x9Qa/libpython3.11.so.1.0: "
            + sig,
            at=-10800,
            pods=["batch-02"],
        ),
        ev(
            "cron",
            "error",
            "(invoices) CMD (/opt/invoices/bin/render-invoices --month 2026-11) exited with status 255",
            at=-10799,
            pods=["batch-02"],
        ),
        ev(
            "invoice-batch",
            "error",
            "[PYI-{n}:ERROR] Failed to load Python shared library '/tmp/_MEI{n}/libpython3.11.so.1.0': "
            + sig,
            **every(start, start + 600, 300),
            pods=["batch-02"],
        ),
        ev(
            "ansible",
            "info",
            "PLAY RECAP batch-02: ok=131 changed=44 (role cis_level2: mount /tmp tmpfs nodev,nosuid,noexec) SEC-330",
            at=-14400,
        ),
        ev(
            "ops",
            "info",
            "finance asked about November invoices; re-running /opt/invoices/bin/render-invoices --month 2026-11 by hand on batch-02",
            at=start - 5,
        ),
        ev(
            "finance-portal",
            "error",
            "GET /invoices?month=2026-11 -> 0 documents (expected ~3,100); export to accounting skipped",
            **every(start, -10, 60),
        ),
        ev(
            "accounting-sync",
            "warn",
            "Xero: 0 new invoices to push for 2026-11; customers awaiting invoices: 3{ms}",
            **every(start + 100, -60, 300),
        ),
        ev(
            "invoice-batch",
            "info",
            "render-invoices 2.6.0 built (PyInstaller one-file, new VAT footer)",
            at=-12600,
        ),
        ev(
            "s3",
            "warn",
            "PutObject invoices-archive/2026-10/{n}.pdf SlowDown, retried",
            **every(-10600, -10400, 60),
        ),
        ev(
            "web",
            "warn",
            "php-fpm: pool www seems busy (you may need to increase pm.start_servers)",
            **every(-6000, -60, 600),
        ),
    ]
    return simple(
        623,
        start,
        incident(
            "finance: no invoice PDFs this morning for November",
            "invoices",
            start,
        ),
        expected(
            "platform",
            [
                "batch-02",
                "/tmp",
                "noexec",
                "cis_level2",
                "SEC-330",
                "render-invoices",
                "invoice-batch",
            ],
            sig,
            "batch-02 was re-provisioned with the CIS level 2 role (SEC-330), which mounts /tmp noexec. render-invoices is a PyInstaller one-file binary that unpacks libpython into /tmp and maps it executable; the mapping is refused ('failed to map segment from shared object'), so the 06:00 cron exits 255 and no November invoices were rendered. The finance portal and the accounting sync are victims; the render-invoices 2.6.0 build, the old S3 SlowDown and php-fpm warnings are not the cause.",
            [
                f"invoice-batch: {sig}",
                "cron: render-invoices exited with status 255",
                "ansible: cis_level2 mounts /tmp noexec on batch-02 (SEC-330)",
            ],
            "Run render-invoices with TMPDIR (PyInstaller runtime_tmpdir) on an exec-allowed directory such as /var/lib/invoices/tmp, or build it one-folder; re-run the November batch.",
        ),
        [
            bg(
                "finance-portal",
                ["finance-1"],
                ["GET /reports/{ms} 200 {ms}ms"],
                12,
            )
        ],
        evs,
        [svc("finance-portal", 1, {"500": (0.001, 0.001)}, (0.3, 0.3))],
        [gauge("invoice_documents_rendered", {"month": "2026-11"}, 0, 0, start)],
        {
            "invoice-batch.md": runbook(
                "Invoice batch did not produce PDFs",
                "The invoice batch fails when S3 throttles uploads: re-run with --concurrency 4 and check the invoices-archive bucket for SlowDown errors.",
            )
        },
    )


# =================================================================================================
# 16. Expiry: the nightly database backups of the on-prem PostgreSQL (pg-main, bare metal) are pushed
#     to Azure Blob Storage with azcopy and a container SAS URL stored in /etc/pgbackup/env. The SAS
#     was created a year ago with se=2026-11-30. Backups have failed for a week; the alert that fires
#     is a restore test's "no backup newer than 7 days". A WAL-archive disk warning on pg-main is loud.
# =================================================================================================


@scenario("backup-container-sas-token-expired")
def backup_container_sas_token_expired() -> dict[str, Any]:
    start = -900
    sig = "Signed expiry time [Mon, 30 Nov 2026 00:00:00 GMT] must be after signed start time"
    evs = [
        ev(
            "pgbackup",
            "error",
            "azcopy: RESPONSE Status: 403 Server failed to authenticate the request. AuthenticationFailed: "
            + sig
            + " [current time Mon, 07 Dec 2026 02:{n} GMT] container=pg-backups",
            at=-6000,
            pods=["pg-main"],
        ),
        ev(
            "pgbackup",
            "error",
            "backup pg-main-20261207T0200 upload failed (azcopy exit 1); local dump kept in /var/backups/pg (disk 91% used)",
            at=-5995,
            pods=["pg-main"],
        ),
        ev(
            "pgbackup",
            "error",
            "retry upload of kept dumps: azcopy 403 AuthenticationFailed: "
            + sig
            + " container=pg-backups",
            **every(-4200, -60, 1800),
            pods=["pg-main"],
        ),
        ev(
            "pgbackup",
            "info",
            "backup pg-main-20261129T0200 uploaded to https://corpbackups.blob.core.windows.net/pg-backups (412 GB)",
            at=-9600,
            pods=["pg-main"],
        ),
        ev(
            "restore-test",
            "error",
            "weekly restore test: newest blob in pg-backups is pg-main-20261129T0200 (8 days old) — BackupTooOld",
            at=start,
        ),
        ev(
            "node-exporter",
            "warn",
            "pg-main: /var filesystem 91% used (local dumps and WAL archive)",
            **every(-6000, -30, 300),
        ),
        ev(
            "postgres",
            "warn",
            "archive_command slow: WAL segment 0000000100{n} took 1{ms}s",
            **every(-5000, -30, 400),
            pods=["pg-main"],
        ),
        ev(
            "ops",
            "info",
            "pg-main: PostgreSQL 15.9 -> 15.10 minor upgrade, restarted (CHG-412)",
            at=-7000,
        ),
        ev(
            "erp",
            "warn",
            "nightly MRP run took 4{ms} minutes (expected 25)",
            **every(-7200, -300, 1800),
        ),
        ev(
            "pgbackup",
            "error",
            "azcopy: network timeout to corpbackups.blob.core.windows.net (retry 1/3)",
            at=-10400,
            pods=["pg-main"],
        ),
    ]
    return simple(
        624,
        start,
        alert(
            "[ALERT] BackupTooOld pg-main newest backup > 7d",
            "pg-main backups",
            start,
            {"alertname": "BackupTooOld", "instance": "pg-main", "severity": "warning"},
            severity="sev3",
        ),
        expected(
            "application",
            [
                "pgbackup",
                "sas token",
                "pg-backups",
                "corpbackups",
                "/etc/pgbackup/env",
                "azcopy",
                "pg-main",
            ],
            sig,
            "The container SAS token that pgbackup's azcopy uses (in /etc/pgbackup/env) expired on 30 November; Azure Blob Storage answers 403 AuthenticationFailed, so every nightly backup since has failed to upload and the newest backup is 8 days old. The /var disk warning (dumps kept locally) and slow WAL archiving are consequences; the PostgreSQL minor upgrade, the ERP run and the old network timeout are not the cause.",
            [
                f"pgbackup: azcopy 403 AuthenticationFailed: {sig}",
                "restore-test: newest blob pg-main-20261129T0200",
                "pgbackup: upload failed, local dump kept",
            ],
            "Issue a new SAS (or better a managed identity / user-delegation SAS renewed automatically), update /etc/pgbackup/env, upload the kept dumps, alert on the token's expiry.",
        ),
        [
            bg(
                "postgres",
                ["pg-main"],
                ["checkpoint complete: wrote {n} buffers; write={ms}.1 s"],
                60,
            )
        ],
        evs,
        [svc("erp", 5, {"500": (0.001, 0.001)}, (0.2, 0.2))],
        [
            gauge(
                "node_filesystem_avail_ratio",
                {"instance": "pg-main", "mountpoint": "/var"},
                0.3,
                0.09,
                -6000,
            )
        ],
        {
            "pg-disk.md": runbook(
                "pg-main disk filling",
                "When /var on pg-main fills up, the WAL archive is lagging: check archive_command, then delete archived WAL older than 3 days from /var/lib/postgresql/archive.",
            )
        },
    )


def main(root: Path = HERE) -> None:
    for slug, build in SCENARIOS.items():
        spec = build()
        tidy_clock_times(spec["logs"])
        base.write(slug, spec, root)
        print(slug)


if __name__ == "__main__":
    main()
