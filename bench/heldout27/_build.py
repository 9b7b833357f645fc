"""Writes the twenty-seventh held-out scenario set, bench/heldout27: `python bench/heldout27/_build.py`.

Theme: incidents modelled on published public post-mortems of well-known cloud, SaaS and internet
companies (negative DNS caching, a DNSSEC key rollover, a root that expired for old clients, a
capacity-removal command with a typo, a global config push, a CDN caching private pages, a cache
flush stampede, a repurposed feature flag, an int32 key running out, a leap-day date bug ...),
retold at fictional companies with small data. The author read neither the planner (`reasoning/`)
nor the engine (`diagnosis/engine/`, `docs/engine.md`), nor their tests, nor any score file. The
bulk comes from bench/heldout26/_build.py's helpers (and through them heldout24's and the earlier
builders'), each scenario with a fixed seed (625-640). None is a Kubernetes incident. Stdlib only.
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
base = h26.base
runbook = h26.runbook
ev = h26.ev
bg = h26.bg
incident = h26.incident
expected = h26.expected
simple = h26.simple
svc = h26.svc
every = h26.every
gauge = h26.gauge
alert = h26.alert
tidy_clock_times = h26.tidy_clock_times

SCENARIOS: dict[str, Any] = {}


def case(
    slug: str, seed: int, start: int, inc, exp, background, evs, svcs, gauges, books
):
    """Registers one scenario built by heldout26's `simple` from hand-written parts."""

    def build() -> dict[str, Any]:
        return simple(seed, start, inc, exp, background, evs, svcs, gauges, books)

    SCENARIOS[slug] = build


# 1. DNS: a record deleted and re-created; resolvers cache the NXDOMAIN for the SOA minimum (1 day).
S = -1500
SIG = "getaddrinfo ENOTFOUND ledger-api.int.corvid.example"
case(
    "record-recreated-negative-cache-soa-minimum",
    625,
    S,
    incident(
        "invoices page errors for some customers",
        "billing-web",
        S,
        ["intermittent 502"],
    ),
    expected(
        "dns",
        [
            "ledger-api.int.corvid.example",
            "int.corvid.example SOA",
            "CHG-5120",
            "ledger-api",
            "unbound",
            "negative cache",
        ],
        SIG,
        "CHG-5120 deleted and re-created the record ledger-api.int.corvid.example; during the gap the resolvers cached NXDOMAIN for the zone's SOA minimum of 86400 s, so billing-web pods using those resolvers still cannot resolve it. The billing-web release and the old ledger timeouts are not the cause.",
        [
            f"billing-web: {SIG}",
            "dns-admin: CHG-5120 delete then create",
            "unbound: negative cache ttl=86400",
        ],
        "Flush the name on the resolvers (unbound-control flush_negative), lower the SOA minimum to 300 s, never delete-and-recreate records.",
    ),
    [bg("billing-web", ["web-1", "web-2"], ["GET /invoices 200 {ms}ms"], 8)],
    [
        ev(
            "billing-web",
            "error",
            "Error: "
            + SIG
            + " at GetAddrInfoReqWrap.onlookup (node:dns:107:26) path=/invoices/{n}",
            **every(S, -3, 11),
        ),
        ev(
            "billing-web",
            "error",
            "upstream 502 on GET /invoices/{n} (ledger client failed)",
            **every(S + 10, -2, 5),
        ),
        ev(
            "dns-admin",
            "info",
            "CHG-5120 ledger-api.int.corvid.example A record deleted (type change to CNAME) by r.ames",
            at=S - 200,
        ),
        ev(
            "dns-admin",
            "info",
            "CHG-5120 ledger-api.int.corvid.example CNAME ledger-lb.int.corvid.example created (12 min later)",
            at=S + 520,
        ),
        ev(
            "unbound",
            "info",
            "resolver-2: ledger-api.int.corvid.example. NXDOMAIN cached from int.corvid.example SOA minimum ttl=86400",
            at=S - 150,
        ),
        ev(
            "billing-web",
            "info",
            "deploy billing-web 5.14.0 (PDF export) done",
            at=-4800,
        ),
        ev(
            "ledger-api",
            "warn",
            "slow query 2{ms}ms on entries_by_account",
            **every(-7000, -6000, 200),
        ),
        ev(
            "report-cron",
            "error",
            "nightly export retry {n}: S3 SlowDown",
            **every(-3600, -60, 240),
        ),
    ],
    [svc("billing-web", 20, {"502": (0.001, 0.2)}, (0.1, 0.12))],
    [],
    {
        "ledger-latency.md": runbook(
            "Ledger API slow",
            "Invoice errors mean the ledger database is slow: restart ledger-api and add a read replica.",
        )
    },
)

# 2. DNS: DNSSEC key rollover published a new KSK but the DS at the registrar still points at the old key.
S = -1800
SIG = "validation failure <shop.ferrule.example. A IN>: no keys have a DS"
case(
    "dnssec-ksk-rollover-ds-mismatch-servfail",
    626,
    S,
    alert(
        "Probe failure rate high",
        "storefront",
        S,
        {"probe": "blackbox-public", "job": "http_2xx"},
    ),
    expected(
        "dns",
        [
            "ferrule.example DS",
            "KSK 40112",
            "dnssec",
            "registrar DS record",
            "OPS-331",
            "ferrule.example",
        ],
        SIG,
        "OPS-331 rolled the zone's KSK to key tag 40112 and removed the old key, but the DS record at the registrar still names key tag 18231; validating resolvers answer SERVFAIL for every name in ferrule.example. Non-validating resolvers still work, so only part of the traffic fails. The CDN warnings and the storefront release are not the cause.",
        [
            f"unbound: {SIG}",
            "dns-ops: OPS-331 KSK rollover, old key removed",
            "registrar: DS key tag 18231",
        ],
        "Publish the DS for key tag 40112 at the registrar (or re-add the old KSK) and wait for the DS TTL.",
    ),
    [bg("storefront", ["sf-1", "sf-2"], ["GET / 200 {ms}ms"], 8)],
    [
        ev(
            "blackbox-public",
            "error",
            "probe shop.ferrule.example failed: lookup shop.ferrule.example on 8.8.8.8:53: server misbehaving (SERVFAIL)",
            **every(S, -4, 15),
        ),
        ev(
            "unbound-validator",
            "error",
            "info: " + SIG + " from 2001:db8::53 (DS key tag 18231 not in DNSKEY set)",
            **every(S, -5, 40),
        ),
        ev(
            "dns-ops",
            "info",
            "OPS-331 KSK rollover: published KSK 40112, removed KSK 18231 (double-signature period skipped)",
            at=S - 300,
        ),
        ev("storefront", "info", "release storefront 2026.12.07 rolled out", at=-5000),
        ev(
            "cdn",
            "warn",
            "origin latency high pop=FRA p95={ms}ms",
            **every(-6500, -100, 400),
        ),
        ev(
            "storefront",
            "error",
            "checkout: payment provider timeout order={n}",
            **every(-9000, -8000, 300),
        ),
    ],
    [svc("storefront", 40, {"500": (0.002, 0.003)}, (0.2, 0.2))],
    [gauge("probe_success", {"probe": "blackbox-public"}, 1.0, 0.45, S)],
    {
        "storefront-down.md": runbook(
            "Storefront unreachable",
            "If probes fail, the CDN is usually at fault: purge the cache and fail over to the secondary CDN.",
        )
    },
)

# 3. DNS: database moved to a new IP without lowering the TTL first; apps keep the old address.
S = -1300
SIG = "connection to 10.20.4.17:5432 refused: the database system is shutting down"
case(
    "db-host-moved-without-lowering-ttl",
    627,
    S,
    incident(
        "orders API slow and erroring after tonight's maintenance", "orders-api", S
    ),
    expected(
        "dns",
        [
            "db-orders.int.pebble.example",
            "TTL 86400",
            "MNT-88",
            "10.20.4.17",
            "db-orders",
            "dns ttl",
        ],
        SIG,
        "MNT-88 moved db-orders to a new host (10.20.9.40) and changed db-orders.int.pebble.example, but the record's TTL was 86400 s and was not lowered beforehand; resolvers and the JVM keep handing out the old address 10.20.4.17, whose server is being decommissioned. The slow-query warnings and the orders-api release are not the cause.",
        [
            f"orders-api: {SIG}",
            "dns: db-orders TTL 86400 A 10.20.9.40",
            "MNT-88 cutover notes",
        ],
        "Flush resolver caches and restart the pools, or put the old IP back on the new host; lower TTLs a day before a move.",
    ),
    [bg("orders-api", ["oa-1", "oa-2"], ["POST /orders 201 {ms}ms"], 8)],
    [
        ev(
            "orders-api",
            "error",
            "org.postgresql.util.PSQLException: "
            + SIG
            + "\n\tat org.postgresql.core.v3.ConnectionFactoryImpl.openConnectionImpl(ConnectionFactoryImpl.java:319)",
            **every(S, -3, 9),
        ),
        ev(
            "mnt",
            "info",
            "MNT-88 cutover: db-orders.int.pebble.example A 10.20.4.17 -> 10.20.9.40 (TTL 86400 unchanged); old host entering shutdown",
            at=S - 60,
        ),
        ev(
            "db-orders-new",
            "info",
            "LOG:  database system is ready to accept connections (10.20.9.40)",
            at=S - 90,
        ),
        ev(
            "orders-api",
            "warn",
            "HikariPool-1 - Connection is not available, request timed out after 30000ms",
            **every(S + 30, -5, 20),
        ),
        ev("orders-api", "info", "deploy orders-api 3.9.1 finished", at=-6000),
        ev(
            "db-orders",
            "warn",
            "LOG:  duration: 2{ms} ms  statement: SELECT * FROM orders WHERE status='open'",
            **every(-7000, -2500, 300),
        ),
        ev("mailer", "error", "SMTP 421 try again later", **every(-3000, -50, 180)),
    ],
    [svc("orders-api", 25, {"500": (0.002, 0.3)}, (0.1, 0.9))],
    [],
    {
        "slow-orders.md": runbook(
            "Orders API slow",
            "Slow orders come from long queries: run VACUUM ANALYZE orders and raise the Hikari pool to 40.",
        )
    },
)

# 4. TLS: the old cross-signed root expired; old Android devices no longer trust the chain.
S = -2200
SIG = "javax.net.ssl.SSLHandshakeException: java.security.cert.CertPathValidatorException: Trust anchor for certification path not found"
case(
    "old-android-clients-fail-after-cross-sign-root-expired",
    628,
    S,
    incident(
        "app login broken for some users (support tickets mention older phones)",
        "mobile-api",
        S,
    ),
    expected(
        "tls",
        [
            "api.lanternpay.example",
            "cross-signed root",
            "Old Root R1",
            "certificate chain",
            "fullchain.pem",
            "tls chain",
        ],
        SIG,
        "The cross-signed chain served by api.lanternpay.example ends at Old Root R1, which expired at 00:00 UTC; Android 7 and older do not have the new root and now fail every handshake. Newer clients are fine. The iOS crash reports and the app release are unrelated.",
        [
            f"mobile-crash: {SIG}",
            "edge: chain served ends at Old Root R1 (expired)",
            "mobile-api: handshake failures by client os",
        ],
        "Serve the alternate chain that old clients trust (or a chain from a CA with an older root), and warn users of unsupported devices.",
    ),
    [
        bg(
            "mobile-api",
            ["api-1", "api-2"],
            ["POST /v2/session 200 {ms}ms ua=okhttp/4"],
            8,
        )
    ],
    [
        ev(
            "mobile-crash",
            "error",
            SIG + " (android 7.1.1, app 8.2.0) host=api.lanternpay.example",
            **every(S, -4, 13),
        ),
        ev(
            "edge-nginx",
            "info",
            "ssl_certificate /etc/ssl/lanternpay/fullchain.pem: chain leaf -> Intermediate R3 -> Old Root R1 (cross-sign, notAfter=today 00:00 UTC)",
            at=S - 400,
        ),
        ev(
            "edge-nginx",
            "warn",
            "SSL_do_handshake() failed (SSL: error:0A000412:SSL routines::sslv3 alert bad certificate) client android-7",
            **every(S, -6, 17),
        ),
        ev(
            "mobile-crash",
            "error",
            "iOS: EXC_BAD_ACCESS in ImageCache.prefetch (app 8.2.0)",
            **every(-8000, -10, 500),
        ),
        ev("mobile-api", "info", "app release 8.2.0 staged to 100% of users", at=-9000),
        ev("auth", "warn", "login rate limit hit user={n}", **every(-5000, -100, 350)),
    ],
    [svc("mobile-api", 40, {"401": (0.01, 0.012)}, (0.1, 0.1))],
    [gauge("login_success_ratio", {"platform": "android"}, 0.98, 0.71, S)],
    {
        "login-failures.md": runbook(
            "Login failures",
            "Login failures are usually the auth rate limiter: raise the limit for /v2/session.",
        )
    },
)

# 5. TLS: OpenSSL 3 base image upgrade drops the only cipher the bank's SFTP/TLS endpoint offers.
S = -1400
SIG = "SSL routines::no cipher match"
case(
    "openssl3-base-image-drops-bank-cipher",
    629,
    S,
    alert(
        "PayoutFileNotDelivered",
        "payouts",
        S,
        {"job": "payout-upload", "bank": "northbank"},
    ),
    expected(
        "tls",
        [
            "payout-uploader",
            "openssl 3",
            "debian bookworm base image",
            "MinProtocol SECLEVEL=2",
            "AES128-SHA",
            "northbank",
        ],
        SIG,
        "payout-uploader was rebuilt on the bookworm base image (OpenSSL 3, SECLEVEL=2), which no longer offers AES128-SHA with RSA key exchange, the only cipher NorthBank's FTPS endpoint accepts; every upload handshake fails. The bank's maintenance notice and the ledger warnings are red herrings.",
        [
            f"payout-uploader: {SIG}",
            "build: base image bullseye -> bookworm",
            "bank endpoint offers only AES128-SHA",
        ],
        "Pin a CipherString for this connection (@SECLEVEL=1:AES128-SHA) until the bank upgrades, or roll the image back.",
    ),
    [bg("payouts", ["pay-1"], ["payout batch {n} queued"], 20)],
    [
        ev(
            "payout-uploader",
            "error",
            "curl: (35) error:0A0000B9:"
            + SIG
            + " connecting to ftps.northbank.example:990",
            **every(S, -5, 60),
        ),
        ev(
            "ci",
            "info",
            "payout-uploader image rebuilt: FROM debian:bullseye-slim -> debian:bookworm-slim (OpenSSL 1.1.1w -> 3.0.11)",
            at=S - 500,
        ),
        ev(
            "payouts",
            "error",
            "PayoutFileNotDelivered batch={n} retries exhausted",
            **every(S + 100, -10, 120),
        ),
        ev(
            "northbank-notice",
            "info",
            "NorthBank planned maintenance Saturday 02:00-04:00 (portal only)",
            at=-20000,
        ),
        ev(
            "ledger",
            "warn",
            "reconciliation drift {n} cents on account 44",
            **every(-7000, -50, 600),
        ),
    ],
    [svc("payouts", 2, {"500": (0.01, 0.5)}, (1.0, 1.0))],
    [],
    {
        "bank-outage.md": runbook(
            "Bank upload failures",
            "Upload failures happen during bank maintenance: wait for the window to end, then re-run the job.",
        )
    },
)

# 6. TLS: a renewed certificate deployed without its intermediate; browsers cope, API clients fail.
S = -1700
SIG = "x509: certificate signed by unknown authority"
case(
    "renewed-cert-deployed-without-intermediate",
    630,
    S,
    incident(
        "partner says our webhooks API is down, works in my browser", "partner-api", S
    ),
    expected(
        "tls",
        [
            "partners.quillco.example",
            "haproxy.pem",
            "intermediate certificate",
            "CHG-902",
            "partner-lb",
            "cert chain",
        ],
        SIG,
        "CHG-902 renewed the certificate of partners.quillco.example and deployed haproxy.pem with the leaf only, without the intermediate; browsers fetch the missing intermediate (AIA) but Go, curl and Java clients do not, so partner calls fail. The 429s and the release are not the cause.",
        [
            f"partner-gw: {SIG}",
            "CHG-902 deploy: haproxy.pem 1 certificate",
            "openssl s_client depth 0 only",
        ],
        "Deploy the full chain (leaf + intermediate) in haproxy.pem and add a chain check to the renewal job.",
    ),
    [bg("partner-api", ["papi-1", "papi-2"], ["POST /v1/hooks 200 {ms}ms"], 10)],
    [
        ev(
            "partner-gw",
            "error",
            'Post "https://partners.quillco.example/v1/hooks": tls: failed to verify certificate: '
            + SIG,
            **every(S, -3, 12),
        ),
        ev(
            "certbot",
            "info",
            "CHG-902 renewed partners.quillco.example; deploy hook wrote /etc/haproxy/certs/haproxy.pem from cert.pem (1 certificate)",
            at=S - 240,
        ),
        ev(
            "partner-lb",
            "info",
            "haproxy reloaded: 1 certificate loaded for partners.quillco.example (no chain)",
            at=S - 230,
        ),
        ev(
            "partner-api",
            "warn",
            "429 too many requests client=acme-bulk",
            **every(-6000, -20, 90),
        ),
        ev(
            "partner-api",
            "info",
            "deploy partner-api 2.3.0 (new hook filter)",
            at=-4000,
        ),
    ],
    [svc("partner-api", 15, {"429": (0.02, 0.02)}, (0.1, 0.1))],
    [gauge("partner_requests_per_s", {"service": "partner-api"}, 15, 3, S)],
    {
        "partner-429.md": runbook(
            "Partner errors",
            "Partner complaints are usually rate limits: raise the per-client quota.",
        )
    },
)

# 7. Connect: NAT gateway source ports exhausted by a new bulk sync hitting the payment API.
S = -1200
SIG = "ErrorPortAllocation"
case(
    "nat-gateway-port-exhaustion-to-payment-api",
    631,
    S,
    incident("card payments timing out", "checkout", S),
    expected(
        "connect",
        [
            "nat-0a1b2c3d",
            "NAT gateway",
            "catalog-sync",
            "ErrorPortAllocation",
            "api.paygate.example",
            "SNAT ports",
        ],
        SIG,
        "The new catalog-sync job opens a connection per product to the same vendor IP through NAT gateway nat-0a1b2c3d; the gateway's 55k ports to one destination ran out (ErrorPortAllocation) and checkout's calls to api.paygate.example behind the same NAT time out on connect. The payment provider status and the checkout release are not the cause.",
        [
            "cloudwatch: nat-0a1b2c3d ErrorPortAllocation",
            "checkout: connect timeout to api.paygate.example",
            "catalog-sync: started, 40k connections",
        ],
        "Stop catalog-sync, give it connection reuse and its own NAT/EIP, add more EIPs to the gateway.",
    ),
    [bg("checkout", ["co-1", "co-2"], ["POST /pay 200 {ms}ms"], 8)],
    [
        ev(
            "checkout",
            "error",
            "dial tcp 203.0.113.40:443: i/o timeout (connect) host=api.paygate.example order={n}",
            **every(S, -2, 7),
        ),
        ev(
            "cloudwatch",
            "warn",
            "AWS/NATGateway nat-0a1b2c3d " + SIG + " Sum=1{n} (1 min)",
            **every(S, -30, 60),
        ),
        ev(
            "catalog-sync",
            "info",
            "catalog-sync v1 started: 48000 products, concurrency 512, new HTTP client per item",
            at=S - 120,
        ),
        ev(
            "paygate-status",
            "info",
            "PayGate status: all systems operational",
            **every(-5000, -100, 900),
        ),
        ev("checkout", "info", "deploy checkout 11.2 (apple pay button)", at=-3900),
        ev(
            "recs",
            "error",
            "model server OOMKilled, restarting",
            **every(-7200, -60, 700),
        ),
    ],
    [svc("checkout", 30, {"504": (0.001, 0.25)}, (0.3, 2.5))],
    [gauge("nat_active_connections", {"nat": "nat-0a1b2c3d"}, 9000, 54000, S - 100)],
    {
        "payments.md": runbook(
            "Payment timeouts",
            "Payment timeouts mean PayGate is degraded: check their status page and switch to the backup processor.",
        )
    },
)

# 8. Connect: a capacity-removal command with a typo removes far more hosts than intended.
S = -1600
SIG = "no healthy upstream hosts in pool search-backend"
case(
    "capacity-removal-typo-drains-search-fleet",
    632,
    S,
    incident("search is down", "search-web", S),
    expected(
        "connect",
        [
            "search-backend",
            "fleetctl remove",
            "OPS-4471",
            "search-backend-*",
            "capacity removal",
            "haproxy pool",
        ],
        SIG,
        "OPS-4471 meant to remove 2 hosts from the billing-index pool, but the fleetctl remove command's pattern matched search-backend-* and took 38 of 40 search backends out; the two left refuse connections under load. The slow queries and the new ranking release are not the cause.",
        [
            f"search-lb: {SIG}",
            "fleetctl: removed 38 hosts matching search-backend-*",
            "search-backend: accept queue overflow",
        ],
        "Re-add the hosts (fleetctl add --pool search-backend), and make the tool refuse to remove more than a few percent of a pool.",
    ),
    [bg("search-web", ["sw-1", "sw-2"], ["GET /search?q=... 200 {ms}ms"], 8)],
    [
        ev(
            "search-lb",
            "error",
            "[WARNING] backend search-backend has no server available! " + SIG,
            **every(S, -3, 10),
        ),
        ev(
            "ops-shell",
            "info",
            "OPS-4471 fleetctl remove --pool 'search-backend-*' --count 2 by j.nkemelu: removed 38 hosts from rotation",
            at=S - 40,
        ),
        ev(
            "search-backend",
            "warn",
            "kernel: TCP: request_sock_TCP: Possible SYN flooding on port 9200. Dropping request.",
            **every(S, -5, 30),
        ),
        ev(
            "search-web",
            "error",
            "502 Bad Gateway from search-lb q={n}",
            **every(S, -2, 4),
        ),
        ev("search-web", "info", "deploy search-web ranking-v7 10%", at=-3000),
        ev(
            "search-backend",
            "warn",
            "[slowlog] took[4.{ms}s] query wildcard",
            **every(-9000, -7000, 300),
        ),
    ],
    [svc("search-web", 50, {"502": (0.001, 0.6)}, (0.1, 0.1))],
    [
        gauge(
            "haproxy_backend_active_servers",
            {"backend": "search-backend"},
            40,
            2,
            S - 40,
        )
    ],
    {
        "search-slow.md": runbook(
            "Search slow",
            "Search outages follow slow wildcard queries: block wildcard queries at the web tier.",
        )
    },
)

# 9. HTTP: a global proxy config push with an empty upstream value returns 503 everywhere.
S = -900
SIG = "no upstream configured for route /api/"
case(
    "global-edge-config-push-empty-upstream",
    633,
    S,
    alert(
        "EdgeErrorRateHigh",
        "edge",
        S,
        {"region": "all", "status": "503"},
        severity="sev1",
    ),
    expected(
        "http",
        [
            "edge-config v4412",
            "routes.yaml",
            "upstream_api",
            "config push",
            "envoy-edge",
            "CFG-4412",
        ],
        SIG,
        "Config push CFG-4412 (edge-config v4412) went to every PoP at once and set upstream_api to an empty value in routes.yaml; Envoy answers 503 for every /api/ request. The api pods are idle and healthy; the older origin 504s and the release are red herrings.",
        [
            f"envoy-edge: {SIG}",
            "config-push: v4412 pushed to 100% of PoPs in 1 step",
            "diff: upstream_api: '' ",
        ],
        "Roll the edge config back to v4411 and make pushes staged with a canary PoP and validation for required keys.",
    ),
    [
        bg(
            "edge",
            ["pop-ams", "pop-iad", "pop-sin"],
            ['"GET /static/app.js HTTP/2" 200 {ms}'],
            6,
        )
    ],
    [
        ev(
            "envoy-edge",
            "error",
            '"GET /api/v1/feed HTTP/2" 503 NR ' + SIG + " config=v4412",
            **every(S, -1, 3),
        ),
        ev(
            "config-push",
            "info",
            "CFG-4412 edge-config v4412 pushed globally (stages: 1) diff: routes.yaml upstream_api: 'api-origin.int:443' -> ''",
            at=S - 30,
        ),
        ev(
            "api",
            "info",
            "request rate dropped to 3 rps; all health checks passing",
            **every(S + 60, -60, 300),
        ),
        ev("api", "info", "deploy api 9.8.0 done", at=-2500),
        ev(
            "envoy-edge",
            "warn",
            '"GET /api/v1/feed HTTP/2" 504 UT upstream timeout',
            **every(-8000, -7000, 200),
        ),
    ],
    [svc("edge", 200, {"503": (0.001, 0.7)}, (0.05, 0.05))],
    [],
    {
        "edge-503.md": runbook(
            "Edge 503s",
            "Edge 503s mean the API origin is overloaded: scale api to 30 replicas.",
        )
    },
)

# 10. HTTP: a CDN rule change caches account pages including Set-Cookie; users see others' data.
S = -1100
SIG = "X-Cache: HIT path=/account"
case(
    "cdn-rule-caches-account-pages-with-cookies",
    634,
    S,
    alert(
        "customer says they see someone else's name on the account page",
        "web",
        S,
        {"source": "support"},
        severity="sev1",
    ),
    expected(
        "http",
        [
            "cdn cache rule",
            "cache-everything rule",
            "/account",
            "CDN-208",
            "Cache-Control",
            "edge cache",
        ],
        SIG,
        "CDN-208 added a cache-everything rule for /* to absorb a traffic spike, overriding Cache-Control: private; the CDN caches /account responses with one user's page and Set-Cookie and serves them to others. The login spike and the session store warnings are not the cause.",
        [
            f"cdn-logs: {SIG}",
            "CDN-208: rule 'cache everything' /* ttl 600",
            "origin: Cache-Control: private, no-store",
        ],
        "Remove the rule, purge the cache, invalidate sessions issued since, exclude authenticated paths from edge caching.",
    ),
    [bg("web", ["web-a", "web-b"], ["GET /products/{n} 200 {ms}ms"], 8)],
    [
        ev(
            "cdn-logs",
            "warn",
            '{"status":200,"cache":"HIT","msg":"'
            + SIG
            + '","set_cookie":true,"age":{n}}',
            **every(S, -2, 9),
        ),
        ev(
            "cdn-admin",
            "info",
            "CDN-208 page rule added: /* cache level=cache everything, edge ttl=600 (traffic spike mitigation)",
            at=S - 90,
        ),
        ev(
            "web",
            "info",
            "GET /account 200 Cache-Control: private, no-store",
            **every(S, -30, 120),
        ),
        ev(
            "auth", "warn", "login spike: 3{n} logins/min", **every(S - 2000, -100, 200)
        ),
        ev("session-redis", "warn", "used_memory above 80%", **every(-6000, -50, 600)),
    ],
    [svc("web", 80, {"500": (0.001, 0.001)}, (0.2, 0.05))],
    [gauge("cdn_cache_hit_ratio", {"zone": "www"}, 0.6, 0.97, S)],
    {
        "account-bug.md": runbook(
            "Wrong data on account page",
            "Mixed-up account data is a session store bug: flush session-redis.",
        )
    },
)

# 11. Application: a cache flush for a schema change causes a thundering herd on the catalog database.
S = -1000
SIG = (
    "remaining connection slots are reserved for non-replication superuser connections"
)
case(
    "memcached-flush-thundering-herd-on-catalog-db",
    635,
    S,
    incident("product pages very slow", "catalog", S),
    expected(
        "application",
        [
            "catalog-db",
            "flush_all",
            "memcached",
            "CHG-731",
            "catalog cache",
            "cache stampede",
        ],
        SIG,
        "CHG-731 ran flush_all on the catalog memcached to drop entries of an old schema; every cache miss now queries catalog-db at once with no request coalescing, its connections are exhausted and queries queue. The CDN alert and the catalog release are victims or unrelated.",
        [
            f"catalog: {SIG}",
            "memcached: flush_all (CHG-731)",
            "catalog-db: connections 500/500",
        ],
        "Rate-limit misses (single flight), warm the cache gradually, shed load; next time version keys instead of flushing.",
    ),
    [bg("catalog", ["cat-1", "cat-2"], ["GET /product/{n} 200 {ms}ms cache=hit"], 8)],
    [
        ev(
            "catalog",
            "error",
            "psycopg2.OperationalError: FATAL:  " + SIG,
            **every(S, -2, 6),
        ),
        ev(
            "catalog",
            "warn",
            "cache miss product:{n} -> db query 3.{ms}s",
            **every(S, -1, 3),
        ),
        ev(
            "memcached-ops",
            "info",
            "CHG-731 flush_all on mc-catalog-1..4 (schema v12 entries)",
            at=S - 20,
        ),
        ev(
            "catalog-db",
            "warn",
            "LOG:  connections 500/500, 3{n} waiting",
            **every(S, -10, 30),
        ),
        ev(
            "cdn",
            "error",
            "origin 504 ratio above 5% for /product/*",
            **every(S + 30, -5, 25),
        ),
        ev("catalog", "info", "deploy catalog 14.0 (schema v13)", at=S - 600),
    ],
    [svc("catalog", 60, {"504": (0.001, 0.35)}, (0.05, 3.0))],
    [gauge("memcached_hit_ratio", {"cluster": "mc-catalog"}, 0.96, 0.05, S - 20)],
    {
        "catalog-rollback.md": runbook(
            "Catalog slow after deploy",
            "If catalog is slow after a deploy, roll back the release.",
        )
    },
)

# 12. Application: a feature flag repurposed; one host missed the deploy and runs dead code.
S = -1300
SIG = "legacy_bulk_reprice enabled (flag fast_import)"
case(
    "repurposed-flag-wakes-dead-code-on-one-host",
    636,
    S,
    incident("some prices in the shop look wrong", "pricing", S),
    expected(
        "application",
        [
            "pricing-7",
            "fast_import",
            "legacy_bulk_reprice",
            "pricing 4.2 deploy",
            "feature flag",
            "pricing host",
        ],
        SIG,
        "The fast_import flag was repurposed for the new importer in pricing 4.2 and turned on for everyone; pricing-7 was skipped by the deploy and still runs 4.1, where the same flag enables the retired legacy_bulk_reprice path, which re-prices items. The other hosts are fine; the CSV warnings are old.",
        [
            f"pricing-7: {SIG}",
            "deploy: 7/8 hosts updated, pricing-7 unreachable",
            "flags: fast_import on 100%",
        ],
        "Turn the flag off, deploy 4.2 to pricing-7 (or remove it from rotation), restore prices, never reuse flag names.",
    ),
    [bg("pricing", ["pricing-1", "pricing-2", "pricing-3"], ["reprice sku={n} ok"], 8)],
    [
        ev(
            "pricing-7",
            "warn",
            "WARNING pricing.legacy: " + SIG + " repriced sku={n} factor=0.1",
            **every(S, -2, 5),
        ),
        ev(
            "deploy",
            "warn",
            "pricing 4.2 deploy: 7/8 hosts updated; pricing-7 ssh timeout, skipped",
            at=S - 1800,
        ),
        ev(
            "flags",
            "info",
            "flag fast_import set to 100% by m.lee (new importer)",
            at=S - 30,
        ),
        ev("shop", "error", "order total mismatch sku={n}", **every(S + 60, -4, 20)),
        ev(
            "import",
            "warn",
            "CSV row {n}: unknown currency",
            **every(-8000, -6500, 200),
        ),
    ],
    [svc("pricing", 10, {"500": (0.001, 0.001)}, (0.1, 0.1))],
    [],
    {
        "pricing-import.md": runbook(
            "Wrong prices",
            "Wrong prices come from bad supplier CSV files: re-run the import with --validate.",
        )
    },
)

# 13. Application: the deploy ran the code before its migration; the new column does not exist yet.
S = -800
SIG = 'column "delivery_window" of relation "orders" does not exist'
case(
    "code-rolled-out-before-migration-column-missing",
    637,
    S,
    incident("can't place orders", "orders", S),
    expected(
        "application",
        [
            "orders",
            "migration 0142_delivery_window",
            "deploy pipeline",
            "orders 7.1.0",
            "delivery_window",
            "migrate step",
        ],
        SIG,
        "The reordered pipeline in orders 7.1.0 rolled the new code out before the migrate step; migration 0142_delivery_window waits for the rollout and has not run, so every insert with the new column fails. The DB CPU alert and the payments warnings are not the cause.",
        [f"orders: {SIG}", "pipeline: rollout before migrate", "migrate: 0142 pending"],
        "Run the migration now (it is additive), then restore migrate-before-rollout in the pipeline.",
    ),
    [bg("orders", ["ord-1", "ord-2"], ["GET /orders/{n} 200 {ms}ms"], 8)],
    [
        ev(
            "orders",
            "error",
            "django.db.utils.ProgrammingError: "
            + SIG
            + "\nLINE 1: INSERT INTO orders (..., delivery_window) VALUES",
            **every(S, -2, 6),
        ),
        ev(
            "pipeline",
            "info",
            "orders 7.1.0: stages reordered (rollout, smoke, migrate); rollout complete",
            at=S - 40,
        ),
        ev(
            "pipeline",
            "info",
            "stage migrate waiting for smoke tests (0142_delivery_window pending)",
            at=S - 30,
        ),
        ev(
            "orders-db",
            "warn",
            "CPU 85% (autovacuum orders)",
            **every(-6000, -2000, 300),
        ),
        ev("payments", "warn", "3DS challenge timeout", **every(-5000, -60, 400)),
    ],
    [svc("orders", 20, {"500": (0.001, 0.5)}, (0.1, 0.1))],
    [],
    {
        "orders-down.md": runbook(
            "Orders failing",
            "Order failures are usually orders-db load: kill long-running queries.",
        )
    },
)

# 14. Application: an int32 primary key ran out on the comments table.
S = -1500
SIG = 'nextval: reached maximum value of sequence "comments_id_seq" (2147483647)'
case(
    "comments-int32-primary-key-exhausted",
    638,
    S,
    incident("users can't post comments", "community", S),
    expected(
        "application",
        [
            "comments_id_seq",
            "comments.id",
            "integer primary key",
            "comments table",
            "community-db",
            "int4",
        ],
        SIG,
        "comments.id is an int4 column; its sequence comments_id_seq reached 2147483647 and every insert fails. Reads work, so the site looks up. The spam filter noise and the release are not the cause.",
        [
            f"community: {SIG}",
            "community-db: comments_id_seq last_value 2147483647",
            "table created 2014 with serial",
        ],
        "Alter comments.id and the sequence to bigint (or a temporary negative range) and alert on sequence usage.",
    ),
    [bg("community", ["com-1", "com-2"], ["GET /t/{n} 200 {ms}ms"], 8)],
    [
        ev(
            "community",
            "error",
            "PG::SequenceGeneratorLimitExceeded: ERROR:  "
            + SIG
            + "\n/app/models/comment.rb:41:in `create'",
            **every(S, -3, 10),
        ),
        ev(
            "community-db",
            "warn",
            "sequence comments_id_seq 99% used (int4)",
            at=-80000,
        ),
        ev("spamfilter", "warn", "akismet timeout post={n}", **every(-7000, -10, 150)),
        ev(
            "community",
            "info",
            "deploy community 2026.49 (emoji reactions)",
            at=S - 900,
        ),
    ],
    [svc("community", 20, {"500": (0.001, 0.05)}, (0.1, 0.1))],
    [],
    {
        "posting.md": runbook(
            "Posting broken",
            "Posting issues follow spam filter outages: disable akismet.",
        )
    },
)

# 15. Application (clock): certificate validity computed as "same day next year" on 29 February.
S = -1400
SIG = "ValueError: day is out of range for month"
case(
    "leap-day-agent-cert-validity-crash",
    639,
    S,
    incident("new VMs not joining the cluster today", "provisioner", S),
    expected(
        "application",
        [
            "agent-ca",
            "issue_agent_cert",
            "leap day",
            "valid_to",
            "certs.py",
            "provisioner",
        ],
        SIG,
        "agent-ca's issue_agent_cert computes valid_to as the same date next year; on 29 February that date does not exist and every certificate request crashes, so new hosts cannot join. Existing hosts are fine; the quota warning and the image release are unrelated.",
        [
            f"agent-ca: {SIG}",
            "agent-ca: date.replace(year=+1) in certs.py",
            "provisioner: join timeouts",
        ],
        "Compute validity as now + 365 days, hotfix agent-ca, retry joins.",
    ),
    [bg("provisioner", ["prov-1"], ["vm {n} boot ok"], 30)],
    [
        ev(
            "agent-ca",
            "error",
            'Traceback (most recent call last):\n  File "/srv/agent_ca/certs.py", line 58, in issue_agent_cert\n    valid_to = now.replace(year=now.year + 1)\n'
            + SIG,
            **every(S, -5, 30),
        ),
        ev(
            "provisioner",
            "error",
            "host {n} join timeout: no agent certificate after 600s",
            **every(S + 300, -5, 60),
        ),
        ev("cloud", "warn", "vCPU quota at 80% in region", **every(-9000, -100, 900)),
        ev("provisioner", "info", "golden image 2026.12 published", at=-5000),
    ],
    [svc("agent-ca", 2, {"500": (0.001, 0.9)}, (0.05, 0.05))],
    [],
    {
        "join.md": runbook(
            "Hosts not joining",
            "Join failures are cloud quota: request a vCPU quota increase.",
        )
    },
)

# 16. Platform: a config-management change rewrote the systemd unit and dropped LimitNOFILE.
S = -1300
SIG = "accept4: too many open files"
case(
    "systemd-unit-rewrite-drops-nofile-limit",
    640,
    S,
    incident("websocket chat disconnecting", "chat-gw", S),
    expected(
        "platform",
        [
            "chat-gw.service",
            "LimitNOFILE",
            "ansible role systemd_service",
            "PR ops#912",
            "ulimit",
            "file descriptors",
        ],
        SIG,
        "PR ops#912 moved chat-gw.service to the shared systemd_service Ansible role, whose template has no LimitNOFILE; after the restart chat-gw runs with the default 1024 descriptors and refuses new websocket connections at peak. The redis warnings and the chat-gw release are not the cause.",
        [
            f"chat-gw: {SIG}",
            "ansible: chat-gw.service changed (LimitNOFILE=65536 removed)",
            "/proc/<pid>/limits: 1024",
        ],
        "Add LimitNOFILE=65536 back to the unit (role variable), daemon-reload and restart chat-gw.",
    ),
    [bg("chat-gw", ["chat-1", "chat-2"], ["ws upgrade ok user={n}"], 8)],
    [
        ev(
            "chat-gw",
            "error",
            "http: Accept error: " + SIG + "; retrying in 1s",
            **every(S, -2, 5),
        ),
        ev(
            "ansible",
            "info",
            "PR ops#912 TASK [systemd_service : unit file] changed: chat-gw.service (- LimitNOFILE=65536); RUNNING HANDLER restart chat-gw",
            at=S - 900,
        ),
        ev(
            "chat-web", "error", "WebSocket closed 1006 reconnecting", **every(S, -1, 3)
        ),
        ev(
            "redis",
            "warn",
            "client output buffer limit reached for pubsub client",
            **every(-7000, -100, 500),
        ),
        ev("chat-gw", "info", "deploy chat-gw 1.19 (typing indicators)", at=-6000),
    ],
    [svc("chat-gw", 40, {"502": (0.001, 0.2)}, (0.05, 0.05))],
    [gauge("process_open_fds", {"service": "chat-gw"}, 9000, 1024, S - 900)],
    {
        "chat.md": runbook(
            "Chat disconnects",
            "Disconnects come from Redis pub/sub buffers: raise client-output-buffer-limit.",
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
