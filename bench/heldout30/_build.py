"""Writes the thirtieth held-out scenario set, bench/heldout30: `python bench/heldout30/_build.py`.

New incidents, none of them in the bundled set or in bench/heldout … bench/heldout28 (their slugs
and READMEs were checked). Theme: service-to-service failures in microservice estates on VMs and
managed cloud services, where the loudest service is not the cause: pass-throughs (API gateway, BFF,
mesh sidecar, load balancer) relaying an upstream's errors, one replica of several failing behind a
load balancer, a third party rate-limiting us, delay and packet loss, a caller's pool exhausted by a
slow callee, a DNS name answering a wrong address, TLS (a client certificate for mTLS, SNI), retries
amplifying a small fault, a health endpoint green while the real path fails, and a config change
(flag, keepalive, circuit breaker, capacity mode) just before the start. As in the earlier sets,
everything that matters is written by hand below; the bulk (background request lines, 2 h of metric
points thinned to one every 30 s) comes from bench/heldout28/_build.py's helpers and through them the
earlier builders', each scenario with a fixed seed (673-688). The author read neither the planner
(`reasoning/`) nor the engine (`diagnosis/engine/`, `docs/engine.md`), nor their tests, nor any score
file. Stdlib only.
"""

from __future__ import annotations

import importlib.util
import random
import re
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

runbook = base.runbook
ev = h28.ev
bg = h28.bg
expected = h28.expected
simple = h28.simple
svc = h28.svc
every = h28.every
gauge = h28.gauge
with_netcheck = h28.with_netcheck
tidy_clock_times = h28.tidy_clock_times
alert = h28.alert
ticket = h28.ticket

SCENARIOS: dict[str, Any] = {}

STALE = every(-10800, -10600, 60)  # a burst of errors about three hours before


def scenario(slug: str):
    def register(fn):
        SCENARIOS[slug] = fn
        return fn

    return register


def ok_target(name: str, url: str, body: str = '{"status":"ok"}') -> dict[str, Any]:
    return {"name": name, "url": url, "fault": {"kind": "ok", "body": body}}


NONE = {"failed_layer": "none", "reason": None}


# =================================================================================================
# 1. Pass-through, keepalive: CHG-3117 (yesterday 23:40, "free sockets faster") lowered
#    inventory-svc's Node `server.keepAliveTimeout` from 65 s to 2 s on the four inventory VMs. Kong
#    keeps idle upstream connections for 60 s and reuses them; inventory closes them after 2 s, so
#    a request sent on a connection the upstream is closing fails: Kong logs "upstream prematurely
#    closed connection" and answers 502. Kong is the loud one; inventory's own logs show only 200s.
# =================================================================================================


@scenario("kong-502-inventory-keepalive-below-gateway-idle")
def kong_502_inventory_keepalive_below_gateway_idle() -> dict[str, Any]:
    start = -2600
    sig = "upstream prematurely closed connection while reading response header from upstream"
    evs = [
        ev(
            "inventory-svc",
            "info",
            "inventory-01 systemd[1]: Reloaded inventory-svc (CHG-3117: HTTP_KEEPALIVE_TIMEOUT_MS 65000 -> 2000)",
            at=start - 240,
        ),
        ev(
            "inventory-svc",
            "info",
            "inventory-0{h}: config loaded keepAliveTimeout=2000ms headersTimeout=3000ms port=8080",
            **every(start - 230, start - 200, 10),
        ),
        ev(
            "kong",
            "error",
            "kong-0{t} [error] 1{n}#0: *{n}{ms} "
            + sig
            + ', client: 10.40.{o}.{ms}, server: kong, request: "GET /api/stock/sku-{ms} HTTP/1.1", upstream: "http://10.40.12.1{h}:8080/v1/stock/sku-{ms}"',
            **every(start, -5, 9),
        ),
        ev(
            "storefront-bff",
            "error",
            "ERROR stock lookup failed: 502 Bad Gateway from api-gw (route inventory)",
            **every(start + 30, -5, 13),
        ),
        ev(
            "kong",
            "info",
            "kong-01: deck sync done: 2 plugins updated (rate-limiting on /api/search), 0 routes changed",
            at=-6100,
        ),
        ev(
            "recommendations",
            "warn",
            "WARN model cache refresh took 1{ms}ms (budget 1000ms)",
            **every(-7000, -60, 600),
        ),
        ev(
            "kong",
            "error",
            "kong-02 [error] connect() failed (111: Connection refused) while connecting to upstream inventory 10.40.12.4:8080",
            **STALE,
        ),
    ]
    return simple(
        673,
        start,
        alert(
            "[FIRING] ApiGateway5xxRate route=inventory > 2%",
            "api gateway",
            start,
            {"alertname": "ApiGateway5xxRate", "route": "inventory", "gw": "kong"},
        ),
        expected(
            "http",
            [
                "inventory-svc",
                "keepAliveTimeout",
                "HTTP_KEEPALIVE_TIMEOUT_MS",
                "CHG-3117",
                "keepalive",
                "inventory",
            ],
            sig,
            "CHG-3117 lowered inventory-svc's HTTP keep-alive timeout to 2 s, far below Kong's 60 s idle keepalive for the upstream pool. Kong reuses connections inventory is closing, reads an EOF and answers 502; inventory never sees those requests. Kong and the storefront are loud victims; the Kong deck sync, the recommendations warnings and the old connection-refused errors are not the cause.",
            [
                f"kong: {sig} (only the inventory route)",
                "inventory-svc reloaded with keepAliveTimeout=2000ms just before the start",
                "inventory-svc logs only 200s; 502 rate on the gateway",
            ],
            "Revert CHG-3117 (keep-alive above the gateway's idle timeout, e.g. 65 s) or lower Kong's upstream_keepalive_idle_timeout below the upstream's.",
        ),
        [
            bg(
                "inventory-svc",
                ["inventory-01", "inventory-02", "inventory-03", "inventory-04"],
                ["GET /v1/stock/sku-{n} 200 {ms}ms"],
                6,
            ),
            bg(
                "kong",
                ["kong-01", "kong-02"],
                ['10.40.{o}.{ms} "GET /api/stock/sku-{n}" 200 upstream_time={ms}ms'],
                6,
            ),
        ],
        evs,
        [
            svc("api-gateway", 420, {"502": (0.0002, 0.031)}, (0.04, 0.045)),
            svc("inventory-svc", 300, {"500": (0.0004, 0.0004)}, (0.012, 0.012)),
        ],
        [
            gauge(
                "kong_upstream_keepalive_reuse_ratio",
                {"upstream": "inventory"},
                0.93,
                0.41,
                start,
            )
        ],
        {
            "gateway-5xx.md": runbook(
                "Gateway 5xx",
                "A 5xx rate on the gateway is the gateway: check Kong's CPU and worker connections, and restart the Kong nodes one by one if workers are saturated.",
            )
        },
    )


# =================================================================================================
# 2. One replica of four: search-api reads its Elasticsearch endpoint from a file consul-template
#    renders. When the ES cluster moved to es-v8.search.internal (SRCH-61), consul-template on
#    search-api-02 failed to render (permission denied on the new template's destination) and kept
#    the old file: search-api-02 still queries the retired es-v7 address and answers 502 to every
#    fourth request. The ALB health check (/ping) stays green.
# =================================================================================================


@scenario("search-api-02-consul-template-render-failed-old-es")
def search_api_02_consul_template_render_failed_old_es() -> dict[str, Any]:
    start = -2100
    sig = 'consul-template[812]: [ERR] (runner) error rendering "/etc/search-api/es.env.tpl"'
    evs = [
        ev(
            "consul-template",
            "error",
            "search-api-02 "
            + sig
            + ' => "/etc/search-api/es.env": open /etc/search-api/es.env: permission denied (keeping previous contents)',
            **every(start - 40, -5, 300),
        ),
        ev(
            "consul-template",
            "info",
            'search-api-01 consul-template: (runner) rendered "/etc/search-api/es.env.tpl" => "/etc/search-api/es.env" (ES_URL=https://es-v8.search.internal:9200)',
            at=start - 140,
        ),
        ev(
            "consul-template",
            "info",
            'search-api-03 consul-template: (runner) rendered "/etc/search-api/es.env.tpl" => "/etc/search-api/es.env" (ES_URL=https://es-v8.search.internal:9200)',
            at=start - 139,
        ),
        ev(
            "consul-template",
            "info",
            'search-api-04 consul-template: (runner) rendered "/etc/search-api/es.env.tpl" => "/etc/search-api/es.env" (ES_URL=https://es-v8.search.internal:9200)',
            at=start - 138,
        ),
        ev(
            "ops",
            "info",
            "SRCH-61: Consul key search/es_url switched to https://es-v8.search.internal:9200; es-v7 cluster stopped",
            at=start - 150,
        ),
        ev(
            "search-api",
            "error",
            "search-api-02 ERROR elasticsearch: ConnectionTimeout caused by ConnectTimeoutError(es-v7.search.internal:9200, 'timed out') ES_URL=https://es-v7.search.internal:9200",
            **every(start, -5, 8),
        ),
        ev(
            "web-frontend",
            "error",
            "ERROR search request failed: 502 from search.internal (target 10.30.2.12)",
            **every(start + 20, -5, 15),
        ),
        ev(
            "search-api",
            "info",
            "search-api-03: deployed search-api 3.14.0 (typo tolerance for brand names)",
            at=-5200,
        ),
        ev(
            "image-proxy",
            "warn",
            "WARN image-proxy: upstream cdn slow, 1{ms}ms for /thumbs/{n}.webp",
            **every(-7000, -30, 500),
        ),
        ev(
            "search-api",
            "error",
            "search-api-04 ERROR elasticsearch: 429 es_rejected_execution_exception (bulk queue full)",
            **STALE,
        ),
    ]
    return simple(
        674,
        start,
        ticket(
            "Search sometimes returns an error page, works on refresh",
            "site search",
            start,
        ),
        expected(
            "application",
            [
                "search-api-02",
                "consul-template",
                "/etc/search-api/es.env",
                "es-v7.search.internal",
                "SRCH-61",
                "es.env",
            ],
            sig,
            "SRCH-61 moved search to es-v8 by changing the Consul key. consul-template re-rendered the ES endpoint on three of the four search-api VMs; on search-api-02 the render fails (permission denied on the destination) and the file keeps the retired es-v7 address. search-api-02 times out on every query and the ALB, whose /ping check does not touch Elasticsearch, keeps sending it a quarter of the traffic. The web-frontend errors are the victim; the search-api 3.14.0 release, CDN warnings and old bulk rejections are not the cause.",
            [
                f"search-api-02: {sig} (permission denied)",
                "search-api-02 still connects to es-v7.search.internal",
                "the other three replicas rendered ES_URL=es-v8",
            ],
            "Fix the file permissions on search-api-02 (or re-run the config role) so consul-template renders es.env, restart search-api there; alert on consul-template render errors and make the health check query Elasticsearch.",
        ),
        [
            bg(
                "search-api",
                ["search-api-01", "search-api-03", "search-api-04"],
                ["INFO GET /v1/search?q=... 200 hits={n} took={ms}ms"],
                5,
            ),
        ],
        evs,
        [svc("search-api", 180, {"502": (0.0003, 0.25)}, (0.09, 0.11))],
        [
            gauge(
                "consul_template_render_errors_total",
                {"instance": "search-api-02"},
                0,
                14,
                start,
            ),
            gauge("alb_target_healthy", {"target": "search-api-02"}, 1, 1, start),
        ],
        {
            "search-errors.md": runbook(
                "Search errors",
                "Search errors come from Elasticsearch overload. Check the bulk and search thread pool rejections and pause the reindex job.",
            )
        },
    )


# =================================================================================================
# 3. Third party rate-limits us: rider app 7.2 (released this morning, staged to 100 % at the start)
#    reverse-geocodes the map centre on every pan through mobile-bff and address-svc. Calls to the
#    geocoding vendor jump twelvefold; the vendor answers 429 with Retry-After: 30 for the account.
#    address-svc's errors and the vendor look like "Geocodify is down". The vendor's status page is
#    green; the call count per app version says it.
# =================================================================================================


@scenario("geocoder-429-after-app-geocodes-every-map-pan")
def geocoder_429_after_app_geocodes_every_map_pan() -> dict[str, Any]:
    start = -2300
    sig = "429 Too Many Requests (Retry-After: 30, x-ratelimit-limit: 50/s)"
    evs = [
        ev(
            "app-store",
            "info",
            'Play Console: rider app 7.2.0 staged rollout increased 20% -> 100% ("smoother map, live pickup address")',
            at=start - 300,
        ),
        ev(
            "mobile-bff",
            "info",
            "INFO GET /v1/geo/reverse?lat=..&lng=.. app=7.2.0 200 {ms}ms",
            **every(start - 280, -5, 8),
        ),
        ev(
            "address-svc",
            "error",
            "ERROR geocodify reverse failed: " + sig + " account=rider-prod",
            **every(start, -5, 8),
        ),
        ev(
            "address-svc",
            "info",
            "INFO geocodify calls last 60s: 4{d}{d}{d} (by app version: 7.2.0=92%, 7.1.3=8%)",
            **every(start - 200, -5, 60),
        ),
        ev(
            "mobile-bff",
            "error",
            "ERROR pickup address lookup failed: upstream address-svc 503 (geocoder unavailable)",
            **every(start + 40, -5, 12),
        ),
        ev(
            "geocodify-status",
            "info",
            "status.geocodify.example: All systems operational",
            **every(-7000, -60, 1800),
        ),
        ev(
            "address-svc",
            "info",
            "address-svc 2.9.1 deployed (postcode normalisation for IE)",
            at=-4800,
        ),
        ev(
            "payments",
            "warn",
            "WARN card tokenisation p95 6{d}{d}ms above 600ms",
            **every(-7000, -60, 700),
        ),
        ev(
            "address-svc",
            "error",
            "ERROR geocodify reverse failed: 503 Service Unavailable (vendor incident GC-2211)",
            **STALE,
        ),
    ]
    spec = simple(
        675,
        start,
        ticket(
            "Riders: pickup address shows 'Unknown location' and booking fails for many",
            "rider app",
            start,
        ),
        expected(
            "http",
            [
                "rider app 7.2.0",
                "rider app 7.2",
                "reverse geocode",
                "/v1/geo/reverse",
                "geocodify",
                "api.geocodify.example",
                "address-svc",
            ],
            sig,
            "Rider app 7.2.0, rolled out to everyone just before the start, reverse-geocodes on every map pan. Calls through mobile-bff and address-svc to the geocoding vendor rise about twelvefold and exceed the account's 50 requests/s: the vendor answers 429 with Retry-After 30 and pickup addresses fail. The vendor is healthy; it rate-limits us. The address-svc release, card latency and the old vendor 503s are not the cause.",
            [
                f"address-svc: geocodify {sig}",
                "geocodify calls by app version: 7.2.0 = 92 %",
                "rider app 7.2.0 staged to 100 % just before",
            ],
            "Halt the 7.2.0 rollout / turn off the live pickup address via remote config; debounce reverse geocoding, cache by rounded coordinates in address-svc and honour Retry-After.",
        ),
        [
            bg(
                "mobile-bff",
                ["mobile-bff-1", "mobile-bff-2", "mobile-bff-3"],
                ["INFO GET /v1/trips/estimate 200 {ms}ms"],
                6,
            )
        ],
        evs,
        [
            svc("address-svc", 45, {"503": (0.001, 0.38)}, (0.08, 0.09)),
            svc("mobile-bff", 600, {"503": (0.0004, 0.03)}, (0.11, 0.12)),
        ],
        [
            gauge(
                "geocodify_requests_per_second", {"account": "rider-prod"}, 6, 71, start
            )
        ],
        {
            "geocoder-down.md": runbook(
                "Geocoder down",
                "If the geocoding vendor fails, it is their outage: open a ticket with Geocodify and switch GEOCODER to the fallback provider.",
            )
        },
    )
    return with_netcheck(
        spec,
        [
            {
                "name": "geocodify-reverse",
                "url": "https://api.geocodify.example/v3/reverse?lat=53.34&lng=-6.26",
                "fault": {
                    "kind": "http_status",
                    "status": 429,
                    "body": '{"error":"rate_limited","message":"Account rider-prod exceeded 50 requests per second"}',
                    "headers": {
                        "Retry-After": "30",
                        "x-ratelimit-limit": "50",
                        "x-ratelimit-remaining": "0",
                    },
                },
            },
            ok_target("address-svc-health", "http://address-svc.internal/healthz"),
        ],
        None,
        {
            "geocodify-reverse": {"failed_layer": "http", "reason": "http_429"},
            "address-svc-health": NONE,
        },
    )


# =================================================================================================
# 4. Delay and loss: the warehouse talks to the on-prem ERP over AWS Direct Connect, with an IPsec
#    VPN over the internet as backup. NET-402 rotated the BGP MD5 key on the DX virtual interface on
#    the on-prem router only; the BGP session went down and traffic failed over to the VPN: RTT
#    4 ms -> 38 ms, 1-2 % loss. order-sync's many small ERP calls per order now take seconds; pick
#    lists are late. Nothing is down; blackbox probes and the tunnel metrics show it.
# =================================================================================================


@scenario("erp-traffic-on-backup-vpn-after-dx-bgp-key-rotation")
def erp_traffic_on_backup_vpn_after_dx_bgp_key_rotation() -> dict[str, Any]:
    start = -2700
    sig = "BGP session to 169.254.66.1 (dxvif-fg3k21) Down: BGP authentication failure"
    evs = [
        ev(
            "dc-router",
            "error",
            "edge-rtr-01 %TCP-6-BADAUTH: Invalid MD5 digest from 169.254.66.1(179) to 169.254.66.2(31{d}{d}{d})",
            **every(start - 120, -5, 60),
        ),
        ev(
            "aws-health",
            "warn",
            "DirectConnect dxcon-ffx9a2b1 VIF dxvif-fg3k21: " + sig,
            at=start - 100,
        ),
        ev(
            "ops",
            "info",
            "NET-402 done: rotated BGP MD5 keys on edge-rtr-01 (DX vif dxvif-fg3k21, ISP peers)",
            at=start - 420,
        ),
        ev(
            "vpn",
            "info",
            "AWS VPN vpn-0c4e1 tunnel 1: BGP routes received 10.200.0.0/16 now preferred (DX route withdrawn)",
            at=start - 90,
        ),
        ev(
            "blackbox",
            "warn",
            "blackbox icmp erp-app-01.corp (10.200.4.21): rtt avg 3{d}.{d} ms loss 1.{d}% (was 4.1 ms 0%)",
            **every(start, -5, 60),
        ),
        ev(
            "order-sync",
            "warn",
            "WARN order {n}{ms}: ERP RFC sequence took {d}.{d}s (38 calls, budget 2s)",
            **every(start + 20, -5, 10),
        ),
        ev(
            "warehouse-ui",
            "error",
            "ERROR pick list for wave {n} not ready after 10 min (orders pending ERP confirmation)",
            **every(start + 600, -5, 90),
        ),
        ev(
            "order-sync",
            "info",
            "order-sync 6.2.0 deployed (batch size 50 -> 40)",
            at=-5400,
        ),
        ev(
            "label-printer",
            "warn",
            "WARN printer zebra-{d} paper low",
            **every(-7000, -30, 400),
        ),
        ev(
            "order-sync",
            "error",
            "ERROR ERP RFC_COMMUNICATION_FAILURE: partner not reached (host 10.200.4.21)",
            **STALE,
        ),
    ]
    return simple(
        676,
        start,
        ticket(
            "Warehouse says pick lists are coming through really late this afternoon",
            "warehouse",
            start,
        ),
        expected(
            "connect",
            [
                "direct connect",
                "dxvif-fg3k21",
                "dxcon-ffx9a2b1",
                "bgp",
                "bgp md5",
                "NET-402",
                "edge-rtr-01",
                "vpn-0c4e1",
            ],
            sig,
            "NET-402 rotated the BGP MD5 key for the Direct Connect virtual interface on the on-prem router only. The BGP session fails authentication, the DX route is withdrawn and ERP traffic fails over to the backup IPsec VPN over the internet: round trip 4 ms to about 38 ms with 1-2 % loss. order-sync makes dozens of sequential ERP calls per order, so each order takes seconds and pick lists are late. The warehouse UI errors are the victim; the order-sync release, printer warnings and the old RFC failure are not the cause.",
            [
                f"aws: {sig}",
                "edge-rtr-01: Invalid MD5 digest from the DX peer",
                "blackbox: ERP rtt 38 ms, loss 1-2 % (was 4 ms)",
                "VPN tunnel now carries 10.200.0.0/16",
            ],
            "Set the same MD5 key on the AWS side of the VIF (or roll back NET-402 on edge-rtr-01) so the DX BGP session comes up; alert on DX BGP state.",
        ),
        [
            bg(
                "order-sync",
                ["order-sync-1", "order-sync-2"],
                ["INFO order {n} confirmed by ERP in {ms}ms"],
                10,
            )
        ],
        evs,
        [svc("order-sync", 12, {"500": (0.001, 0.004)}, (0.3, 3.4))],
        [
            gauge(
                "probe_icmp_rtt_seconds",
                {"target": "erp-app-01.corp"},
                0.0041,
                0.038,
                start,
            ),
            gauge(
                "probe_icmp_loss_ratio",
                {"target": "erp-app-01.corp"},
                0.0,
                0.014,
                start,
            ),
            gauge("aws_dx_vif_bgp_up", {"vif": "dxvif-fg3k21"}, 1, 0, start),
            gauge(
                "aws_vpn_tunnel_bytes_per_second",
                {"vpn": "vpn-0c4e1"},
                1200,
                4100000,
                start,
            ),
        ],
        {
            "erp-slow.md": runbook(
                "ERP slow",
                "Slow ERP confirmations are SAP work processes: ask the ERP team to check SM50 for busy dialog processes and restart the RFC gateway.",
            )
        },
    )


# =================================================================================================
# 5. A caller's pool exhausted by a slow callee: loyalty-svc 2.8.0 (deployed just before the start)
#    writes an audit record synchronously to an S3 bucket in us-east-1 on every points lookup; the
#    VMs run in eu-west-1. Each call gains ~900 ms. cart-api's HTTP pool to loyalty (50 connections)
#    fills and cart requests wait for a connection: cart-api is the loud one ("pool exhausted").
# =================================================================================================


@scenario("cart-pool-exhausted-by-loyalty-cross-region-audit-write")
def cart_pool_exhausted_by_loyalty_cross_region_audit_write() -> dict[str, Any]:
    start = -2000
    sig = "audit put s3://loyalty-audit-us/ (us-east-1)"
    evs = [
        ev(
            "loyalty-svc",
            "info",
            "loyalty-01: deployed loyalty-svc 2.8.0 (compliance: audit every points read, LOY-88)",
            at=start - 180,
        ),
        ev(
            "loyalty-svc",
            "info",
            "loyalty-0{h} INFO GET /v1/points/{n}{ms} 200 in 9{ms}ms; "
            + sig
            + " took 8{ms}ms",
            **every(start - 170, -5, 6),
        ),
        ev(
            "cart-api",
            "error",
            "cart-api-0{h} ERROR reactor.netty.internal.shaded.reactor.pool.PoolAcquirePendingLimitException: Pending acquire queue has reached its maximum size of 100 (pool loyalty, maxConnections=50)",
            **every(start + 60, -5, 7),
        ),
        ev(
            "cart-api",
            "warn",
            "cart-api-0{h} WARN loyalty client: acquire took 4{ms}ms (active=50 idle=0 pending=9{d})",
            **every(start + 30, -5, 9),
        ),
        ev(
            "web-bff",
            "error",
            "ERROR GET /cart 504 from cart-api after 5000ms",
            **every(start + 90, -5, 12),
        ),
        ev(
            "cart-api",
            "info",
            "cart-api 11.4.0 deployed (free-shipping banner threshold from config)",
            at=-4700,
        ),
        ev(
            "search-api",
            "warn",
            "WARN slow query on products index {ms}ms",
            **every(-7000, -60, 450),
        ),
        ev(
            "cart-api",
            "error",
            "cart-api-02 ERROR Redis command timed out after 1s (cart-cache)",
            **STALE,
        ),
    ]
    return simple(
        677,
        start,
        alert(
            "[FIRING] CartApiErrors cart-api 5xx > 5%",
            "cart",
            start,
            {"alertname": "CartApiErrors", "service": "cart-api", "env": "prod"},
        ),
        expected(
            "application",
            [
                "loyalty-svc",
                "loyalty-svc 2.8.0",
                "LOY-88",
                "loyalty-audit-us",
                "audit write",
                "s3 audit",
            ],
            sig,
            "loyalty-svc 2.8.0 (LOY-88) writes an audit record synchronously to an S3 bucket in us-east-1 on every points read, from VMs in eu-west-1: each call takes about 900 ms instead of 30 ms. cart-api calls loyalty on every cart view; its 50-connection pool to loyalty fills, requests queue for a connection and fail. cart-api's pool errors and the web-bff 504s are victims; the cart-api release, search warnings and the old Redis timeout are not the cause.",
            [
                f"loyalty-svc: {sig} on every request since 2.8.0",
                "cart-api: PoolAcquirePendingLimitException (pool loyalty, maxConnections=50)",
                "loyalty-svc latency 30 ms -> 950 ms",
            ],
            "Roll back loyalty-svc to 2.7.x or make the audit write asynchronous to a bucket in eu-west-1; give cart-api a short timeout and fallback on loyalty.",
        ),
        [
            bg(
                "cart-api",
                ["cart-api-01", "cart-api-02", "cart-api-03"],
                ["INFO GET /v2/cart/{n} 200 {ms}ms"],
                6,
            )
        ],
        evs,
        [
            svc("loyalty-svc", 140, {"500": (0.0005, 0.001)}, (0.03, 0.95)),
            svc("cart-api", 160, {"503": (0.0005, 0.09)}, (0.06, 2.8)),
        ],
        [
            gauge(
                "http_client_pool_active_connections",
                {"service": "cart-api", "pool": "loyalty"},
                7,
                50,
                start,
            ),
            gauge(
                "http_client_pool_pending_acquire",
                {"service": "cart-api", "pool": "loyalty"},
                0,
                98,
                start,
            ),
        ],
        {
            "cart-errors.md": runbook(
                "Cart errors",
                "cart-api pool exhaustion means cart-api needs more connections: raise LOYALTY_POOL_MAX and scale the cart-api VMs.",
            )
        },
    )


# =================================================================================================
# 6. DNS, wrong address: after a hypervisor failure, vSphere HA restarted ledger-old-03, a VM of the
#    retired ledger 1.x kept powered off "just in case". Its Consul agent came back and registered
#    the service `ledger` again, so ledger.service.consul answers three addresses, one the 1.x build
#    that has no /v2 API: a third of payout calls get 404. The loud one is payouts-svc.
# =================================================================================================


@scenario("consul-dns-answers-resurrected-ledger-v1-vm")
def consul_dns_answers_resurrected_ledger_v1_vm() -> dict[str, Any]:
    start = -1800
    sig = "ledger.service.consul. 0 IN A 10.20.4.17"
    evs = [
        ev(
            "vsphere",
            "warn",
            "vSphere HA restarted virtual machine ledger-old-03 on host esx-07 in cluster prod-b (host esx-04 failure)",
            at=start - 200,
        ),
        ev(
            "consul",
            "info",
            "consul-server-1: agent.catalog: Synced service: service=ledger node=ledger-old-03 address=10.20.4.17 tags=[v1]",
            at=start - 150,
        ),
        ev(
            "dns-debug",
            "info",
            "dig @127.0.0.1 -p 8600 ledger.service.consul: ledger.service.consul. 0 IN A 10.20.5.11; ledger.service.consul. 0 IN A 10.20.5.12; "
            + sig,
            **every(start + 300, -5, 600),
        ),
        ev(
            "ledger",
            "warn",
            "ledger-old-03 ledger-1.9.4: WARN 404 No route for POST /v2/entries (from 10.20.7.{o})",
            **every(start, -5, 9),
        ),
        ev(
            "payouts-svc",
            "error",
            "ERROR payout batch {n}: ledger POST /v2/entries -> 404 Not Found (http://ledger.service.consul:8080)",
            **every(start + 10, -5, 9),
        ),
        ev(
            "ops",
            "info",
            "esx-04 hardware failure (PSU), VMs restarted by HA",
            at=start - 230,
        ),
        ev(
            "payouts-svc",
            "info",
            "payouts-svc 4.3.0 deployed (SEPA instant for NL)",
            at=-5100,
        ),
        ev(
            "kyc-svc",
            "warn",
            "WARN document OCR queue depth {n}",
            **every(-7000, -60, 500),
        ),
        ev(
            "payouts-svc",
            "error",
            "ERROR ledger POST /v2/entries -> 409 Conflict (idempotency key reused)",
            **STALE,
        ),
    ]
    return simple(
        678,
        start,
        ticket(
            "Finance ops: about a third of merchant payouts failing since lunch",
            "payouts",
            start,
        ),
        expected(
            "dns",
            [
                "ledger.service.consul",
                "ledger-old-03",
                "10.20.4.17",
                "consul",
                "ledger 1.9.4",
                "vsphere ha",
            ],
            sig,
            "vSphere HA restarted ledger-old-03, a powered-off VM of the retired ledger 1.x, after a host failure. Its Consul agent re-registered the service `ledger`, so ledger.service.consul answers a third address, 10.20.4.17, whose ledger 1.9.4 has no /v2 API: a third of payout calls get 404. payouts-svc is the loud victim; its release, the OCR queue and the old 409 are not the cause.",
            [
                f"consul DNS: {sig} (ledger-old-03, tag v1)",
                "ledger-old-03: 404 No route for POST /v2/entries",
                "vSphere HA restarted ledger-old-03",
            ],
            "Power off and delete ledger-old-03 (or `consul services deregister` on it and disable its agent); filter the ledger lookup by tag v2.",
        ),
        [
            bg(
                "ledger",
                ["ledger-11", "ledger-12"],
                ["INFO POST /v2/entries 201 {ms}ms"],
                6,
            )
        ],
        evs,
        [svc("payouts-svc", 25, {"502": (0.001, 0.33)}, (0.15, 0.16))],
        [gauge("consul_catalog_service_instances", {"service": "ledger"}, 2, 3, start)],
        {
            "payouts-failing.md": runbook(
                "Payouts failing",
                "Payout failures are usually the bank: check the SEPA gateway status and the payout rejection codes, then retry the batch.",
            )
        },
    )


# =================================================================================================
# 7. TLS, mTLS client certificate: quotes to the insurer go through an Envoy egress proxy on two
#    VMs that presents our client certificate. Vault agent renewed it into a dated file
#    (insurer-client-2026.pem); PR ops#412 removed the template step that re-pointed the
#    `insurer-client.pem` symlink Envoy reads. The symlink still names last year's certificate,
#    which expired at the start: the insurer's gateway rejects the handshake. quote-svc is loud.
# =================================================================================================


@scenario("egress-envoy-presents-expired-client-cert-stale-symlink")
def egress_envoy_presents_expired_client_cert_stale_symlink() -> dict[str, Any]:
    start = -1500
    sig = "TLS error: 268436501:SSL routines:OPENSSL_internal:SSLV3_ALERT_CERTIFICATE_EXPIRED"
    evs = [
        ev(
            "egress-envoy",
            "error",
            "egress-0{t} [C{n}{ms}] upstream connect error or disconnect/reset before headers. reset reason: connection failure, transport failure reason: "
            + sig
            + " (cluster insurer_api, sni api.northsure.example)",
            **every(start, -5, 8),
        ),
        ev(
            "vault-agent",
            "info",
            'egress-0{t} vault-agent: (runner) rendered "pki/issue/insurer-client" => "/etc/envoy/certs/insurer-client-2026.pem"',
            at=start - 86400 // 20,
        ),
        ev(
            "egress-envoy",
            "info",
            "egress-01 cert-check: /etc/envoy/certs/insurer-client.pem -> insurer-client-2025.pem notAfter=Dec  7 23:40:00 2026 GMT",
            **every(start - 3000, -5, 900),
        ),
        ev(
            "ops",
            "info",
            "PR ops#412 merged: vault-agent templates write dated cert files (drop post-render ln -sf hook)",
            at=-6900,
        ),
        ev(
            "quote-svc",
            "error",
            "ERROR insurer quote failed: 503 from egress (upstream connect error), product=home",
            **every(start + 10, -5, 10),
        ),
        ev(
            "quote-svc",
            "info",
            "quote-svc 8.1.0 deployed (contents cover options)",
            at=-4300,
        ),
        ev(
            "crm-sync",
            "warn",
            "WARN salesforce bulk job {n} slow, 2{ms} records/s",
            **every(-7000, -60, 600),
        ),
        ev(
            "quote-svc",
            "error",
            "ERROR insurer quote failed: 504 upstream request timeout (insurer maintenance window)",
            **STALE,
        ),
    ]
    return simple(
        679,
        start,
        ticket(
            "Customers can't get home insurance quotes, page says 'try again later'",
            "insurance quotes",
            start,
        ),
        expected(
            "tls",
            [
                "insurer-client.pem",
                "insurer-client-2025.pem",
                "client certificate",
                "egress-envoy",
                "PR ops#412",
                "vault-agent",
                "insurer_api",
            ],
            sig,
            "The client certificate Envoy presents to the insurer for mTLS expired at the start. Vault agent had issued the renewal into insurer-client-2026.pem, but PR ops#412 dropped the hook that re-pointed the insurer-client.pem symlink Envoy reads, so Envoy still sends last year's certificate and the insurer's gateway answers a certificate_expired alert. quote-svc's 503s are the victim; its release, the CRM warnings and the old 504s are not the cause.",
            [
                f"egress-envoy: {sig} (cluster insurer_api)",
                "insurer-client.pem -> insurer-client-2025.pem, notAfter = the start",
                "vault-agent rendered insurer-client-2026.pem",
            ],
            "Point the symlink at insurer-client-2026.pem (or the Envoy config at the new file) and hot-restart Envoy on both egress VMs; restore the render hook and alert on client cert expiry.",
        ),
        [
            bg(
                "egress-envoy",
                ["egress-01", "egress-02"],
                ['"POST /v1/payments HTTP/1.1" 200 - cluster=psp_api {ms}ms'],
                8,
            )
        ],
        evs,
        [svc("quote-svc", 30, {"503": (0.002, 0.71)}, (0.6, 0.2))],
        [
            gauge(
                "envoy_cluster_upstream_cx_connect_fail",
                {"cluster": "insurer_api"},
                0,
                31,
                start,
            ),
            gauge(
                "tls_client_cert_expiry_seconds",
                {"cluster": "insurer_api"},
                1500,
                0,
                start,
            ),
        ],
        {
            "insurer-down.md": runbook(
                "Insurer quotes failing",
                "When insurer quotes fail, the insurer is down. Check status.northsure.example and show the cached indicative price.",
            )
        },
    )


# =================================================================================================
# 8. TLS, SNI: the documents vendor moved its API to a shared edge (multi-tenant, SNI routing). Our
#    web-bff nginx proxies /docs/ to it with `proxy_pass https://api.docuvault.example` but without
#    `proxy_ssl_server_name on`: nginx sends no SNI and the edge answers with its default
#    certificate, so `proxy_ssl_verify` fails (no name match). The BFF's 502s are loud.
# =================================================================================================


@scenario("bff-nginx-sends-no-sni-to-vendor-on-shared-edge")
def bff_nginx_sends_no_sni_to_vendor_on_shared_edge() -> dict[str, Any]:
    start = -2200
    sig = 'upstream SSL certificate does not match "api.docuvault.example"'
    evs = [
        ev(
            "web-bff",
            "error",
            "bff-0{t} nginx: [error] {n}#0: *{n}{ms} "
            + sig
            + ' while SSL handshaking to upstream, client: 10.8.{o}.{ms}, request: "GET /docs/contracts/{n}.pdf HTTP/1.1", upstream: "https://198.51.100.{h}0:443/contracts/{n}.pdf"',
            **every(start, -5, 10),
        ),
        ev(
            "docuvault-status",
            "info",
            "Docuvault: migration of api.docuvault.example to our new global edge completed (clients must send SNI)",
            at=start - 400,
        ),
        ev(
            "web-bff",
            "info",
            "bff-01 nginx config: location /docs/ { proxy_pass https://api.docuvault.example; proxy_ssl_verify on; proxy_ssl_server_name off (default) }",
            at=start + 900,
        ),
        ev(
            "contracts-ui",
            "error",
            "ERROR contract PDF failed to load: 502 Bad Gateway",
            **every(start + 30, -5, 20),
        ),
        ev(
            "web-bff",
            "info",
            "bff-02: deployed web-bff 2.33.0 (dashboard widgets)",
            at=-5000,
        ),
        ev(
            "notifications",
            "warn",
            "WARN SES send rate at 8{d}% of quota",
            **every(-7000, -60, 600),
        ),
        ev(
            "web-bff",
            "error",
            "bff-01 nginx: [error] upstream timed out (110) while reading response header from upstream api.docuvault.example",
            **STALE,
        ),
    ]
    spec = simple(
        680,
        start,
        ticket(
            "Customers can't open their signed contracts in the portal",
            "customer portal",
            start,
        ),
        expected(
            "tls",
            [
                "web-bff",
                "proxy_ssl_server_name",
                "sni",
                "api.docuvault.example",
                "docuvault",
                "nginx",
            ],
            sig,
            "The documents vendor moved api.docuvault.example to a shared edge that routes by SNI. web-bff's nginx proxies /docs/ to it with proxy_ssl_verify on but without proxy_ssl_server_name on, so it sends no SNI; the edge answers with its default certificate, which does not name api.docuvault.example, and nginx refuses the upstream. The 502s in the portal are the victim; the web-bff release, SES warnings and old timeouts are not the cause.",
            [
                f"web-bff nginx: {sig} while SSL handshaking to upstream",
                "docuvault: migrated to a new edge, clients must send SNI",
                "nginx config: proxy_ssl_server_name off",
            ],
            "Add `proxy_ssl_server_name on;` (and `proxy_ssl_name api.docuvault.example;`) to the /docs/ location and reload nginx on the BFF VMs.",
        ),
        [
            bg(
                "web-bff",
                ["bff-01", "bff-02"],
                ['10.8.{o}.{ms} "GET /api/dashboard" 200 {ms}ms'],
                6,
            )
        ],
        evs,
        [svc("web-bff", 210, {"502": (0.0003, 0.04)}, (0.07, 0.07))],
        [
            gauge(
                "nginx_upstream_ssl_handshake_errors_per_second",
                {"upstream": "docuvault"},
                0,
                1.6,
                start,
            )
        ],
        {
            "vendor-502.md": runbook(
                "Vendor 502",
                "502 from a vendor upstream means the vendor is failing: check their status page and open a support case with the request ids.",
            )
        },
    )
    return with_netcheck(
        spec,
        [
            {
                "name": "docuvault-without-sni",
                "url": "https://api.docuvault.example/contracts/health",
                "fault": {
                    "kind": "tls_wrong_host",
                    "cert_names": [
                        "default.edge.cdnhost.example",
                        "*.edge.cdnhost.example",
                    ],
                },
            },
            ok_target("bff-health", "http://web-bff.internal/healthz"),
        ],
        "docuvault-without-sni",
        {
            "docuvault-without-sni": {
                "failed_layer": "tls",
                "reason": "certificate_name_mismatch",
            },
            "bff-health": NONE,
        },
    )


# =================================================================================================
# 9. Retry storm: PR mesh#88 added a default retry policy to every Consul service-router
#    (`NumRetries: 5`, retry on 5xx and connect failure). search-svc's clients already retry 3 times.
#    At the start one Elasticsearch node paused for a GC of 2 s; a few search calls failed, and each
#    became up to 24 attempts. search-svc's request rate triples, its queue fills and it stays down
#    long after the GC. search-svc looks like the culprit.
# =================================================================================================


@scenario("mesh-default-retries-multiply-search-blip")
def mesh_default_retries_multiply_search_blip() -> dict[str, Any]:
    start = -2500
    sig = "x-envoy-attempt-count: 6"
    evs = [
        ev(
            "consul",
            "info",
            "consul config write service-router/* (PR mesh#88: default RetryOn [5xx connect-failure], NumRetries 5) applied to 41 services",
            at=start - 600,
        ),
        ev(
            "elasticsearch",
            "warn",
            "es-data-03 [gc][young][{n}] duration [2.1s], collections [1]/[2.4s]",
            at=start - 10,
        ),
        ev(
            "search-svc",
            "warn",
            "search-0{h} WARN request queue full (512), rejecting; incoming 2{d}{d}{d} rps, "
            + sig
            + " on 6{d}% of requests",
            **every(start, -5, 8),
        ),
        ev(
            "listing-svc",
            "error",
            "ERROR search call failed after 3 attempts: 503 upstream overflow from search-svc",
            **every(start + 10, -5, 7),
        ),
        ev(
            "search-svc",
            "error",
            "search-0{h} ERROR 503 Service Unavailable: executor saturated (active=200, queued=512)",
            **every(start + 20, -5, 9),
        ),
        ev(
            "search-svc",
            "info",
            "search-svc 5.6.2 deployed (synonyms for vehicle makes)",
            at=-5800,
        ),
        ev(
            "photos-svc",
            "warn",
            "WARN thumbnail generation lag {ms}s",
            **every(-7000, -60, 500),
        ),
        ev(
            "search-svc",
            "error",
            "search-02 ERROR es query timeout 3000ms (index listings_v12)",
            **STALE,
        ),
    ]
    return simple(
        681,
        start,
        alert(
            "[FIRING] SearchSvcDown search-svc availability < 90%",
            "search",
            start,
            {
                "alertname": "SearchSvcDown",
                "service": "search-svc",
                "team": "discovery",
            },
        ),
        expected(
            "application",
            [
                "PR mesh#88",
                "service-router",
                "NumRetries",
                "retry policy",
                "consul service-router",
                "retries",
            ],
            sig,
            "PR mesh#88 gave every Consul service-router a default retry policy (5 retries on 5xx and connect failure) on top of the clients' own 3 retries. A 2-second GC on one Elasticsearch node failed a few search calls; each became up to 24 attempts, search-svc's request rate tripled, its queue filled and the rejections fed more retries. search-svc and listing-svc are loud; the GC is the small trigger, and the search-svc release, thumbnail lag and the old ES timeout are not the cause.",
            [
                f"search-svc: {sig} on many requests, incoming rps tripled",
                "consul: service-router retries NumRetries 5 applied to 41 services (PR mesh#88)",
                "es-data-03: one 2.1 s GC at the start, then normal",
            ],
            "Revert PR mesh#88 (or set NumRetries 1 with a retry budget) and let clients keep their own retries with backoff; shed load on search-svc until the rate falls.",
        ),
        [
            bg(
                "search-svc",
                ["search-01", "search-02", "search-03"],
                ["INFO GET /v1/search 200 {ms}ms"],
                6,
            )
        ],
        evs,
        [svc("search-svc", 900, {"503": (0.0004, 0.46)}, (0.05, 1.9))],
        [
            gauge(
                "envoy_cluster_upstream_rq_retry_per_second",
                {"cluster": "search-svc"},
                0.2,
                1850,
                start,
            ),
            gauge(
                "elasticsearch_jvm_gc_pause_seconds",
                {"node": "es-data-03"},
                0.05,
                0.06,
                start,
            ),
        ],
        {
            "search-down.md": runbook(
                "search-svc down",
                "If search-svc is unavailable, it is Elasticsearch: find the slow node, restart it and scale search-svc VMs.",
            )
        },
    )


# =================================================================================================
# 10. Health green, real path failing: the PDF render VMs run headless Chromium. Last night's
#     unattended-upgrades replaced the chromium-browser deb with the transitional package that
#     installs a snap; snapd is not installed on these images, so /usr/bin/chromium-browser only
#     prints "requires the chromium snap". Every render fails; /health (process up) answers 200 and
#     the load balancer keeps both VMs in. The billing gateway relays the 500s.
# =================================================================================================


@scenario("pdf-render-health-200-chromium-replaced-by-snap-stub")
def pdf_render_health_200_chromium_replaced_by_snap_stub() -> dict[str, Any]:
    start = -2900
    sig = (
        "Command '/usr/bin/chromium-browser' requires the chromium snap to be installed"
    )
    evs = [
        ev(
            "unattended-upgrades",
            "info",
            "render-0{t} unattended-upgrade: Packages that will be upgraded: chromium-browser (1:85.0.4183.83-0ubuntu0.20.04.3 -> 1:85.0.4183.83-0ubuntu2.22.04.1)",
            at=start - 300,
        ),
        ev(
            "pdf-render",
            "error",
            "render-0{t} ERROR puppeteer: Failed to launch the browser process! " + sig,
            **every(start, -5, 8),
        ),
        ev(
            "pdf-render",
            "info",
            "render-0{t} GET /health 200 1ms (uptime 1{d}h)",
            **every(start - 3000, -5, 30),
        ),
        ev(
            "billing-gw",
            "error",
            "billing-gw: POST /invoices/{n}{ms}/pdf -> upstream pdf-render 500 (relayed)",
            **every(start + 5, -5, 9),
        ),
        ev(
            "billing",
            "info",
            "billing 14.2.0 deployed (invoice numbering per country)",
            at=-5600,
        ),
        ev(
            "postgres",
            "warn",
            "billing-db: checkpoints are occurring too frequently (1{d} seconds apart)",
            **every(-7000, -60, 700),
        ),
        ev(
            "pdf-render",
            "error",
            "render-02 ERROR TimeoutError: Navigation timeout of 30000 ms exceeded",
            **STALE,
        ),
    ]
    spec = simple(
        682,
        start,
        ticket(
            "Accounts team: invoice PDFs won't download since this morning",
            "invoices",
            start,
        ),
        expected(
            "application",
            [
                "pdf-render",
                "chromium-browser",
                "chromium",
                "unattended-upgrades",
                "render-01",
                "render-02",
                "snap",
            ],
            sig,
            "unattended-upgrades replaced the chromium-browser deb on both render VMs with the transitional package that only points to the snap; snapd is not installed, so Puppeteer cannot launch a browser and every PDF render fails. /health only checks the process and answers 200, so the load balancer keeps both VMs in service and the billing gateway relays the 500s. The billing release, checkpoint warnings and the old navigation timeout are not the cause.",
            [
                f"pdf-render: Failed to launch the browser process! {sig}",
                "unattended-upgrade upgraded chromium-browser to the 22.04 transitional package",
                "GET /health 200 throughout",
            ],
            "Install a real Chromium (the headless-shell or Google Chrome deb) and pin it; exclude chromium from unattended-upgrades; make /health render a one-line PDF.",
        ),
        [
            bg(
                "billing-gw",
                ["billing-gw-1", "billing-gw-2"],
                ["GET /invoices/{n} 200 {ms}ms"],
                8,
            )
        ],
        evs,
        [svc("pdf-render", 4, {"500": (0.002, 1.0)}, (1.8, 0.12))],
        [gauge("lb_backend_healthy", {"pool": "pdf-render"}, 2, 2, start)],
        {
            "pdf-slow.md": runbook(
                "Invoice PDFs failing",
                "PDF failures are timeouts from big invoices: raise RENDER_TIMEOUT_MS and the render VM memory.",
            )
        },
    )
    return with_netcheck(
        spec,
        [
            {
                "name": "billing-gw-pdf",
                "url": "http://billing-gw.internal/invoices/881204/pdf",
                "fault": {"kind": "gateway", "upstream": "pdf-render"},
            },
            {
                "name": "pdf-render",
                "url": "http://pdf-render.internal/render",
                "fault": {
                    "kind": "http_status",
                    "status": 500,
                    "body": '{"error":"Failed to launch the browser process! '
                    + sig.replace("'", "")
                    + '"}',
                    "paths": {"/health": 200},
                },
            },
            {
                "name": "pdf-render-health",
                "url": "http://pdf-render.internal/health",
                "fault": {"kind": "ok", "body": '{"status":"ok","uptime_s":51720}'},
            },
        ],
        None,
        {
            "billing-gw-pdf": {"failed_layer": "http", "reason": "http_500"},
            "pdf-render": {"failed_layer": "http", "reason": "http_500"},
            "pdf-render-health": NONE,
        },
    )


# =================================================================================================
# 11. Feature flag: at the start the risk team turned on `checkout.fraud_scoring_v2` for 100 % in
#     the flag service. It routes every checkout to the new fraud-v2 scorer, which runs on one small
#     VM sized for the 5 % shadow test. fraud-v2 answers in 4-6 s; checkout-api times out and
#     declines "payment could not be verified". Checkout is loud; fraud-v2 only logs slow requests.
# =================================================================================================


@scenario("fraud-v2-flag-to-100-percent-on-shadow-sized-vm")
def fraud_v2_flag_to_100_percent_on_shadow_sized_vm() -> dict[str, Any]:
    start = -1700
    sig = "flag checkout.fraud_scoring_v2 rollout 5% -> 100%"
    evs = [
        ev(
            "flags",
            "info",
            "audit: user r.okafor@ updated " + sig + " (env production)",
            at=start - 30,
        ),
        ev(
            "fraud-v2",
            "warn",
            "fraud-v2-01 WARN slow scoring 4.{d}s (workers busy 8/8, backlog {ms})",
            **every(start, -5, 7),
        ),
        ev(
            "checkout-api",
            "error",
            "checkout-api-0{h} ERROR fraud score timeout after 3000ms (scorer=v2) -> decline PAYMENT_NOT_VERIFIED",
            **every(start + 10, -5, 8),
        ),
        ev(
            "checkout-api",
            "info",
            "checkout-api-0{h} INFO fraud scorer for order {n}{ms}: v2 (flag checkout.fraud_scoring_v2)",
            **every(start, -5, 20),
        ),
        ev(
            "checkout-api",
            "info",
            "checkout-api 19.0.2 deployed (Apple Pay button styles)",
            at=-4400,
        ),
        ev(
            "fraud-v1",
            "info",
            "fraud-v1 INFO scored {n} requests last minute p99 {ms}ms",
            **every(-7000, -5, 300),
        ),
        ev(
            "reco",
            "warn",
            "WARN recommendation model stale 2{d}h",
            **every(-7000, -60, 700),
        ),
        ev(
            "checkout-api",
            "error",
            "checkout-api-01 ERROR psp authorise timeout 8000ms",
            **STALE,
        ),
    ]
    return simple(
        683,
        start,
        alert(
            "[FIRING] PaymentDeclineRate > 15% (checkout)",
            "checkout",
            start,
            {
                "alertname": "PaymentDeclineRate",
                "service": "checkout-api",
                "reason": "PAYMENT_NOT_VERIFIED",
            },
        ),
        expected(
            "application",
            [
                "checkout.fraud_scoring_v2",
                "fraud_scoring_v2",
                "fraud-v2",
                "fraud-v2-01",
                "feature flag",
            ],
            sig,
            "Just before the start the fraud_scoring_v2 flag went from 5 % to 100 %. Every checkout now asks the new fraud-v2 scorer, a single small VM sized for the 5 % shadow test; its 8 workers saturate and scores take 4-6 s, so checkout-api times out after 3 s and declines the payment. Checkout is the loud victim; the checkout release, stale recommendations and the old PSP timeout are not the cause.",
            [
                f"flags: {sig}",
                "fraud-v2-01: workers busy 8/8, slow scoring",
                "checkout-api: fraud score timeout (scorer=v2)",
            ],
            "Set checkout.fraud_scoring_v2 back to 5 % (fraud-v1 takes the rest); size fraud-v2 for full traffic before ramping.",
        ),
        [
            bg(
                "checkout-api",
                ["checkout-api-01", "checkout-api-02", "checkout-api-03"],
                ["INFO POST /v1/checkout 200 {ms}ms"],
                6,
            )
        ],
        evs,
        [
            svc("checkout-api", 55, {"402": (0.03, 0.19)}, (0.4, 3.1)),
            svc("fraud-v2", 3, {"500": (0.0, 0.002)}, (0.09, 4.8), rps_after=55),
        ],
        [
            gauge(
                "fraud_v2_worker_busy_ratio",
                {"instance": "fraud-v2-01"},
                0.12,
                1.0,
                start,
            )
        ],
        {
            "declines.md": runbook(
                "Decline spike",
                "A decline spike is the PSP or a card scheme: check the PSP status page and the decline codes by BIN.",
            )
        },
    )


# =================================================================================================
# 12. The pass-through is the cause: PR edge#231 ("protect orders from bursts") set the front
#     Envoy's circuit breaker for the orders cluster to `max_requests: 100` (HTTP/2 upstream: the
#     number of concurrent requests). At the evening peak orders-api runs ~240 concurrent requests:
#     Envoy overflows and answers 503 with flag UO without sending them. orders-api is idle and
#     healthy, but the 503s carry its route name and its dashboard alert fires.
# =================================================================================================


@scenario("front-envoy-orders-circuit-breaker-max-requests-100")
def front_envoy_orders_circuit_breaker_max_requests_100() -> dict[str, Any]:
    start = -1900
    sig = "upstream_rq_pending_overflow"
    evs = [
        ev(
            "front-envoy",
            "info",
            "edge-0{t}: hot restart epoch {n} with config rev edge#231 (clusters.orders.circuit_breakers.thresholds[0].max_requests: 1024 -> 100)",
            at=start - 2400,
        ),
        ev(
            "front-envoy",
            "warn",
            'edge-0{t} "POST /api/orders HTTP/2" 503 UO 0 81 0 - "10.2.{o}.{ms}" route=orders upstream=- (cluster orders '
            + sig
            + ")",
            **every(start, -5, 6),
        ),
        ev(
            "orders-api",
            "info",
            "orders-0{h} INFO in-flight {ms} requests, db pool 12/60 active",
            **every(-7000, -5, 120),
        ),
        ev(
            "mobile-bff",
            "error",
            "ERROR place order failed: 503 from api.edge (orders)",
            **every(start + 15, -5, 9),
        ),
        ev(
            "orders-api",
            "info",
            "orders-api 7.12.0 deployed (gift wrap option)",
            at=-5000,
        ),
        ev(
            "inventory-svc",
            "warn",
            "WARN reservation cleanup took 1{d}s",
            **every(-7000, -60, 600),
        ),
        ev(
            "orders-api",
            "error",
            "orders-02 ERROR deadlock detected on order_lines insert",
            **STALE,
        ),
    ]
    return simple(
        684,
        start,
        alert(
            "[FIRING] OrdersAvailability orders 5xx > 3% (edge)",
            "orders",
            start,
            {"alertname": "OrdersAvailability", "route": "orders", "source": "edge"},
        ),
        expected(
            "http",
            [
                "front-envoy",
                "edge#231",
                "max_requests",
                "circuit_breakers",
                "circuit breaker",
                "cluster orders",
                "edge-01",
            ],
            sig,
            "Config rev edge#231 set the front Envoy's circuit breaker for the orders cluster to max_requests 100 (was 1024). With HTTP/2 to the upstream that caps concurrent requests; the evening peak needs about 240, so Envoy overflows and answers 503 with response flag UO without forwarding them. orders-api is healthy and idle (it never sees those requests); its alert and the mobile-bff errors are victims. The orders release, inventory warnings and the old deadlock are not the cause.",
            [
                f"front-envoy: 503 UO, cluster orders {sig}",
                "edge#231: max_requests 1024 -> 100",
                "orders-api: in-flight requests normal, db pool 12/60",
            ],
            "Revert edge#231 (max_requests back to 1024, or sized from peak concurrency) and hot-restart the edge Envoys; alert on circuit-breaker overflow.",
        ),
        [
            bg(
                "front-envoy",
                ["edge-01", "edge-02"],
                ['"GET /api/catalog/{n}" 200 - route=catalog {ms}ms'],
                5,
            ),
        ],
        evs,
        [
            svc("edge-orders", 260, {"503": (0.0002, 0.14)}, (0.09, 0.08)),
            svc(
                "orders-api",
                260,
                {"500": (0.0005, 0.0005)},
                (0.09, 0.09),
                rps_after=224,
            ),
        ],
        [
            gauge(
                "envoy_cluster_upstream_rq_pending_overflow_per_second",
                {"cluster": "orders"},
                0,
                36,
                start,
            ),
            gauge(
                "envoy_cluster_circuit_breakers_default_rq_open",
                {"cluster": "orders"},
                0,
                1,
                start,
            ),
        ],
        {
            "orders-5xx.md": runbook(
                "Orders 5xx",
                "Orders errors come from orders-api or its database: look at orders-api error logs and the orders-db locks, and scale orders-api.",
            )
        },
    )


# =================================================================================================
# 13. Two of four web VMs left in maintenance mode: the monthly patch playbook (PATCH-2026-12) puts
#     a flag file /var/www/shop/maintenance.flag on each host, patches and reboots, and removes the
#     flag last. It failed on web-03 and web-04 at the reboot wait (timeout) and never removed the
#     flag. The app on those two answers 503 "We'll be back soon"; HAProxy's TCP check keeps them in.
# =================================================================================================


@scenario("web-03-04-left-in-maintenance-mode-after-patch-run")
def web_03_04_left_in_maintenance_mode_after_patch_run() -> dict[str, Any]:
    start = -3100
    sig = "maintenance mode active (/var/www/shop/maintenance.flag present), returning 503"
    evs = [
        ev(
            "ansible",
            "error",
            "PATCH-2026-12 PLAY RECAP web-03 : ok=14 changed=6 unreachable=0 failed=1 (TASK [wait for reboot] timed out after 600s); web-04 : ok=14 changed=6 failed=1",
            at=start - 60,
        ),
        ev(
            "ansible",
            "info",
            "PATCH-2026-12 PLAY RECAP web-01 : ok=17 changed=8 failed=0; web-02 : ok=17 changed=8 failed=0",
            at=start - 1500,
        ),
        ev("shop-web", "warn", "web-03 php-fpm: " + sig, **every(start, -5, 12)),
        ev("shop-web", "warn", "web-04 php-fpm: " + sig, **every(start + 6, -5, 12)),
        ev(
            "haproxy",
            "info",
            'lb-01 haproxy[{n}]: 10.0.{o}.{ms} "GET /checkout HTTP/1.1" 503 be_shop/web-03 (check L4OK)',
            **every(start, -5, 11),
        ),
        ev(
            "haproxy",
            "info",
            'lb-01 haproxy[{n}]: 10.0.{o}.{ms} "GET /product/{n} HTTP/1.1" 503 be_shop/web-04 (check L4OK)',
            **every(start + 3, -5, 11),
        ),
        ev(
            "shop-web",
            "info",
            "web-0{h}: deploy shop 2026.12.07-2 complete (newsletter popup copy)",
            at=-6200,
        ),
        ev(
            "mysql",
            "warn",
            "db-01 mysqld: [Warning] Aborted connection {n} to db: 'shop' user: 'reporting' (Got timeout reading communication packets)",
            **every(-7000, -60, 500),
        ),
        ev(
            "shop-web",
            "error",
            "web-02 php-fpm: PHP Fatal error: Allowed memory size of 268435456 bytes exhausted",
            **STALE,
        ),
    ]
    spec = simple(
        685,
        start,
        ticket(
            "Customers on chat: the shop keeps showing 'We'll be back soon' then works again",
            "web shop",
            start,
        ),
        expected(
            "application",
            [
                "web-03",
                "web-04",
                "maintenance.flag",
                "maintenance mode",
                "PATCH-2026-12",
                "patch playbook",
            ],
            sig,
            "The PATCH-2026-12 playbook sets a maintenance flag file before patching and removes it as its last task. On web-03 and web-04 it failed at the reboot wait and never removed the flag, so the shop on those two VMs answers every request with the 503 maintenance page. HAProxy checks only TCP, so both stay in the pool and half of all requests get the page. The shop release, MySQL warnings and old PHP memory error are not the cause.",
            [
                f"web-03/web-04: {sig}",
                "ansible: PATCH-2026-12 failed=1 on web-03 and web-04 (wait for reboot)",
                "haproxy: 503 only from be_shop/web-03 and web-04, check L4OK",
            ],
            "Remove /var/www/shop/maintenance.flag on web-03 and web-04 (re-run the playbook's last tasks); make the HAProxy check an HTTP check of a real page.",
        ),
        [
            bg(
                "haproxy",
                ["lb-01"],
                ['10.0.{o}.{ms} "GET /product/{n} HTTP/1.1" 200 be_shop/web-01 {ms}ms'],
                6,
            )
        ],
        evs,
        [svc("shop-web", 140, {"503": (0.0003, 0.5)}, (0.12, 0.07))],
        [gauge("haproxy_backend_active_servers", {"backend": "be_shop"}, 4, 4, start)],
        {
            "shop-down.md": runbook(
                "Shop down",
                "If the shop shows errors, the database is usually overloaded: check MySQL threads_running and kill long reporting queries.",
            )
        },
    )
    return with_netcheck(
        spec,
        [
            {
                "name": "web-03",
                "url": "http://web-03.shop.internal/",
                "fault": {
                    "kind": "http_status",
                    "status": 503,
                    "body": "<html><body><h1>We'll be back soon</h1></body></html>",
                    "headers": {"Retry-After": "3600"},
                },
            },
            ok_target("web-01", "http://web-01.shop.internal/", "<html>shop</html>"),
        ],
        None,
        {
            "web-03": {"failed_layer": "http", "reason": "http_503"},
            "web-01": NONE,
        },
    )


# =================================================================================================
# 14. Mesh sidecar relays connect failures: ratings-svc 4.0.0 moved to a new base image whose
#     systemd unit no longer sets PORT; the app falls back to its default 3000. The Consul
#     registration still says 8080. Callers' Envoy sidecars get connection refused on 8080 and
#     answer 503 UF; product-page is loud ("ratings unavailable"). The ratings process runs fine.
# =================================================================================================


@scenario("ratings-4-listens-default-port-mesh-sidecars-503-uf")
def ratings_4_listens_default_port_mesh_sidecars_503_uf() -> dict[str, Any]:
    start = -2000
    sig = "delayed connect error: 111"
    evs = [
        ev(
            "ratings-svc",
            "info",
            "ratings-0{h} ratings-svc 4.0.0 started: listening on 0.0.0.0:3000 (PORT not set, using default)",
            at=start - 90,
        ),
        ev(
            "ratings-svc",
            "info",
            "ratings-0{h}: deploy ratings-svc 4.0.0 (base image node22-slim, unit file from template)",
            at=start - 120,
        ),
        ev(
            "envoy-sidecar",
            "error",
            'product-page-0{h} envoy: "GET /v1/ratings/{n} HTTP/1.1" 503 UF upstream connect error or disconnect/reset before headers. reset reason: connection failure, transport failure reason: '
            + sig
            + " (cluster ratings, 10.60.3.1{h}:8080)",
            **every(start, -5, 7),
        ),
        ev(
            "consul",
            "warn",
            "consul: check 'service:ratings' TCP 10.60.3.1{h}:8080: dial tcp: connect: connection refused",
            **every(start + 20, -5, 120),
        ),
        ev(
            "product-page",
            "error",
            "ERROR ratings unavailable (503 from sidecar), rendering without stars",
            **every(start + 5, -5, 8),
        ),
        ev(
            "product-page",
            "info",
            "product-page 3.20.0 deployed (image carousel)",
            at=-4900,
        ),
        ev(
            "cdn",
            "warn",
            "WARN purge queue {n} items",
            **every(-7000, -60, 600),
        ),
        ev(
            "product-page",
            "error",
            "ERROR ratings timeout 800ms",
            **STALE,
        ),
    ]
    spec = simple(
        686,
        start,
        ticket(
            "Product pages have lost their star ratings and reviews",
            "product pages",
            start,
        ),
        expected(
            "connect",
            [
                "ratings-svc",
                "ratings-svc 4.0.0",
                "port 3000",
                "PORT",
                "ratings:8080",
                "ratings",
            ],
            sig,
            "ratings-svc 4.0.0 came with a new unit file that no longer sets PORT, so the service listens on its default 3000 while Consul still registers 8080. The callers' Envoy sidecars get connection refused on 8080 and answer 503 UF; product pages render without ratings. The sidecars and product-page are loud victims; the product-page release, CDN purge warnings and old ratings timeouts are not the cause.",
            [
                f"product-page sidecar: 503 UF, {sig} (cluster ratings, :8080)",
                "ratings-svc 4.0.0: listening on 0.0.0.0:3000 (PORT not set)",
                "consul: TCP check on :8080 refused",
            ],
            "Set PORT=8080 in the ratings-svc unit (or roll back to 3.x); make the deploy check the registered port answers.",
        ),
        [
            bg(
                "product-page",
                ["product-page-01", "product-page-02"],
                ["INFO GET /p/{n} 200 {ms}ms"],
                6,
            )
        ],
        evs,
        [
            svc(
                "product-page-sidecar-ratings",
                150,
                {"503": (0.0004, 1.0)},
                (0.02, 0.001),
            ),
            svc("product-page", 150, {"500": (0.0004, 0.0008)}, (0.14, 0.13)),
        ],
        [gauge("consul_health_service_passing", {"service": "ratings"}, 3, 0, start)],
        {
            "ratings-missing.md": runbook(
                "Ratings missing",
                "Missing ratings mean the ratings database is slow: check ratings-db replication and increase the ratings timeout.",
            )
        },
    )
    return with_netcheck(
        spec,
        [
            {
                "name": "ratings-8080",
                "url": "http://ratings.service.consul/v1/ratings/1042",
                "fault": {"kind": "connect_refused"},
            },
            ok_target(
                "ratings-01-process",
                "http://ratings-01.node.internal/healthz",
                '{"status":"ok","version":"4.0.0","listen":"0.0.0.0:3000"}',
            ),
        ],
        "ratings-8080",
        {
            "ratings-8080": {"failed_layer": "connect", "reason": "refused"},
            "ratings-01-process": NONE,
        },
    )


# =================================================================================================
# 15. BFF relays a managed service's throttling: FinOps change FIN-77 switched the DynamoDB table
#     `order-history` from on-demand to provisioned capacity (100 RCU, no auto scaling) "to cut
#     cost", based on the nightly average. The morning peak needs ~900 RCU; order-history-svc gets
#     ProvisionedThroughputExceededException and answers 500; the app's BFF relays them as
#     "Couldn't load your orders". The BFF is loud.
# =================================================================================================


@scenario("order-history-table-switched-to-provisioned-100-rcu")
def order_history_table_switched_to_provisioned_100_rcu() -> dict[str, Any]:
    start = -2400
    sig = "ProvisionedThroughputExceededException"
    evs = [
        ev(
            "cloudtrail",
            "info",
            'UpdateTable order-history by arn:aws:sts::4411:assumed-role/finops-automation (FIN-77): BillingMode PAY_PER_REQUEST -> PROVISIONED, ProvisionedThroughput {"ReadCapacityUnits": 100, "WriteCapacityUnits": 50}',
            at=start - 600,
        ),
        ev(
            "order-history-svc",
            "error",
            "ohs-0{h} ERROR Query order-history failed: "
            + sig
            + ": The level of configured provisioned throughput for the table was exceeded (after 3 SDK retries)",
            **every(start, -5, 7),
        ),
        ev(
            "app-bff",
            "error",
            'ERROR GET /me/orders -> order-history-svc 500, relayed ("Couldn\'t load your orders")',
            **every(start + 10, -5, 8),
        ),
        ev(
            "order-history-svc",
            "info",
            "order-history-svc 1.18.0 deployed (returns tracking links)",
            at=-5300,
        ),
        ev(
            "push-svc",
            "warn",
            "WARN FCM 429 quota for project, backing off",
            **every(-7000, -60, 650),
        ),
        ev(
            "app-bff",
            "error",
            "ERROR GET /me/orders -> order-history-svc timeout 2000ms",
            **STALE,
        ),
    ]
    return simple(
        687,
        start,
        ticket(
            "App reviews and support: 'Couldn't load your orders' for lots of users this morning",
            "mobile app",
            start,
        ),
        expected(
            "application",
            [
                "order-history",
                "dynamodb order-history",
                "FIN-77",
                "provisioned capacity",
                "BillingMode",
                "ReadCapacityUnits",
                "order-history-svc",
            ],
            sig,
            "FinOps change FIN-77 switched the DynamoDB table order-history from on-demand to provisioned capacity with 100 read units and no auto scaling, sized from the nightly average. The morning peak needs about 900; reads are throttled (ProvisionedThroughputExceededException), order-history-svc answers 500 after the SDK's retries and the app's BFF relays them. The BFF is the loud pass-through; the order-history-svc release, FCM warnings and old timeouts are not the cause.",
            [
                f"order-history-svc: {sig}",
                "cloudtrail: UpdateTable order-history BillingMode PAY_PER_REQUEST -> PROVISIONED, 100 RCU (FIN-77)",
                "ConsumedReadCapacityUnits at the provisioned 100, ThrottledRequests rising",
            ],
            "Switch order-history back to on-demand (or provisioned with auto scaling sized for the peak); review FIN-77's other tables.",
        ),
        [
            bg(
                "app-bff",
                ["app-bff-1", "app-bff-2", "app-bff-3"],
                ["INFO GET /me/profile 200 {ms}ms"],
                6,
            )
        ],
        evs,
        [svc("order-history-svc", 70, {"500": (0.0005, 0.62)}, (0.03, 0.4))],
        [
            gauge(
                "aws_dynamodb_consumed_read_capacity_units",
                {"table": "order-history"},
                180,
                100,
                start,
            ),
            gauge(
                "aws_dynamodb_read_throttle_events",
                {"table": "order-history"},
                0,
                2300,
                start,
            ),
        ],
        {
            "orders-not-loading.md": runbook(
                "Orders not loading",
                "If the orders list fails, the BFF is overloaded: scale the app-bff VMs and check its Node event-loop lag.",
            )
        },
    )


# =================================================================================================
# 16. Packet loss on one cache VM: last night's kernel update on memcached-02 (reboot at 02:10)
#     dropped the udev rule that set the NIC's RX ring to 4096; it is back at the driver default 256.
#     At the afternoon peak the ring overflows: rx_missed_errors climb, TCP retransmits, and gets to
#     memcached-02 take 200 ms+ or time out. Only keys hashed to memcached-02 are slow; the API
#     blames "the cache".
# =================================================================================================


@scenario("memcached-02-rx-ring-reset-to-256-after-kernel-update")
def memcached_02_rx_ring_reset_to_256_after_kernel_update() -> dict[str, Any]:
    start = -2200
    sig = "rx_missed_errors"
    evs = [
        ev(
            "kernel",
            "info",
            "memcached-02 kernel: Linux version 6.8.0-49-generic; ens5: ENA driver, RX ring size 256 (max 8192)",
            at=-7000,
        ),
        ev(
            "node-exporter",
            "warn",
            "memcached-02 ethtool -S ens5: "
            + sig
            + ": {n}{ms} (+{ms}{d}/min), rx_queue_0_drops rising; ethtool -g ens5 RX: 256 (max 8192)",
            **every(start, -5, 60),
        ),
        ev(
            "node-exporter",
            "info",
            "memcached-01 ethtool -S ens5: rx_missed_errors: 0; ethtool -g ens5 RX: 4096",
            **every(-7000, -5, 900),
        ),
        ev(
            "api",
            "warn",
            "api-0{h} WARN memcache get timeout 100ms server=memcached-02 (10.1.8.22 port 11211, retransmits)",
            **every(start, -5, 8),
        ),
        ev(
            "api",
            "error",
            "api-0{h} ERROR GET /v1/feed 504 after 3000ms (cache misses fell through to db)",
            **every(start + 60, -5, 13),
        ),
        ev(
            "blackbox",
            "warn",
            "blackbox icmp memcached-02 (10.1.8.22): loss 3.{d}% rtt 1.{d}ms; memcached-01 loss 0%",
            **every(start, -5, 120),
        ),
        ev(
            "ops",
            "info",
            "PATCH-K-118: kernel 6.8.0-49 rolled to cache tier (memcached-01 on Monday, memcached-02 tonight); udev rule 70-ring.rules not in the new image",
            at=-7100,
        ),
        ev(
            "api",
            "info",
            "api 12.7.0 deployed (feed ranking tweak)",
            at=-4800,
        ),
        ev(
            "worker",
            "warn",
            "WARN email digest job behind by {ms} min",
            **every(-7000, -60, 600),
        ),
        ev(
            "api",
            "error",
            "api-02 ERROR memcache server memcached-03 (10.1.8.23 port 11211) marked dead (connection refused)",
            **STALE,
        ),
    ]
    return simple(
        688,
        start,
        alert(
            "[FIRING] ApiLatencyHigh /v1/feed p99 > 1s",
            "feed",
            start,
            {"alertname": "ApiLatencyHigh", "endpoint": "/v1/feed", "service": "api"},
        ),
        expected(
            "platform",
            [
                "memcached-02",
                "rx ring",
                "ens5",
                "rx_missed_errors",
                "PATCH-K-118",
                "70-ring.rules",
                "ethtool",
            ],
            sig,
            "memcached-02 rebooted into a new kernel last night (PATCH-K-118) without the udev rule that raised its NIC's RX ring to 4096, so it runs with 256. At the afternoon peak the ring overflows: rx_missed_errors climb, packets are dropped and retransmitted, and gets to memcached-02 time out. Keys on that node fall through to the database and the feed is slow. The API alert and 504s are the victim; the API release, the digest lag and the old memcached-03 error are not the cause.",
            [
                f"memcached-02 ethtool: {sig} rising; RX ring 256 (memcached-01: 4096, 0 missed)",
                "blackbox: 3 % loss to memcached-02 only",
                "api: memcache get timeouts only for memcached-02",
            ],
            "Set the RX ring back (`ethtool -G ens5 rx 4096`) on memcached-02 and put 70-ring.rules back in the image; alert on rx_missed_errors.",
        ),
        [
            bg(
                "api",
                ["api-01", "api-02", "api-03"],
                ["INFO GET /v1/feed 200 {ms}ms"],
                6,
            )
        ],
        evs,
        [svc("api", 380, {"504": (0.0003, 0.02)}, (0.06, 0.31))],
        [
            gauge(
                "node_network_receive_drop_per_second",
                {"instance": "memcached-02", "device": "ens5"},
                0,
                850,
                start,
            ),
            gauge(
                "node_network_receive_drop_per_second",
                {"instance": "memcached-01", "device": "ens5"},
                0,
                0,
                start,
            ),
            gauge(
                "memcached_get_p99_seconds",
                {"instance": "memcached-02"},
                0.0008,
                0.21,
                start,
            ),
        ],
        {
            "feed-slow.md": runbook(
                "Feed slow",
                "A slow feed is memcached memory: check evictions and raise the slab memory (-m) on the cache VMs.",
            )
        },
    )


HOLES = re.compile(r"\{([htod])\}")
HOLE_RANGES = {"h": (1, 3), "t": (1, 2), "o": (2, 254), "d": (0, 9)}


def fill_holes(lines: list[dict[str, Any]], seed: int) -> None:
    """This set's own small holes, left alone by the shared fill ({n} is 1000-99999, {ms} 8-140):
    {h} a host of three, {t} a host of two, {o} an IP octet, {d} a digit."""
    rng = random.Random(seed)
    for line in lines:
        line["message"] = HOLES.sub(
            lambda m: str(rng.randint(*HOLE_RANGES[m.group(1)])), line["message"]
        )


def main(root: Path = HERE) -> None:
    for seed, (slug, build) in enumerate(SCENARIOS.items(), start=673):
        spec = build()
        fill_holes(spec["logs"], seed)
        tidy_clock_times(spec["logs"])
        base.write(slug, spec, root)
        print(slug)


if __name__ == "__main__":
    main()
