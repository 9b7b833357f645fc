"""Write each scenario's logs.jsonl and metrics.json, deterministically (`python -m mcpservers.scenarios._generate`).

Every time is an offset in seconds from "now" (negative = past), so loaders shift the data to the
moment they start and a demo always looks fresh. Seeds are fixed: running this twice gives the
same bytes, and the output is committed next to the hand-written expected.json and incident.json.
"""

from __future__ import annotations

import json
import math
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcpservers.scenarios._timeline import HEARTBEAT_S, IDLE_TIMEOUT_S, TLS_EXPIRED_AT

ROOT = Path(__file__).resolve().parent
STEP_S = 15
WINDOW_S = 2 * 3600
BUCKETS = (
    "0.005",
    "0.01",
    "0.025",
    "0.05",
    "0.1",
    "0.25",
    "0.5",
    "1",
    "2.5",
    "5",
    "10",
    "30",
    "60",
    "+Inf",
)

Shares = Callable[[float], dict[str, float]]
Latency = Callable[[float], tuple[float, float]]
Gauge = Callable[[float], float]


def ramp(t: float, start: float, length: float) -> float:
    """0 before `start`, 1 after `start + length`, linear in between."""
    if t <= start:
        return 0.0
    return min((t - start) / length, 1.0) if length > 0 else 1.0


def _phi(x: float) -> float:
    return 0.5 * (1 + math.erf(x / math.sqrt(2)))


def bucket_shares(median_s: float, p99_s: float) -> list[float]:
    """Cumulative share of requests at or below each bucket bound, for a log-normal latency."""
    sigma = max(math.log(p99_s / median_s) / 2.326, 0.05)
    shares = []
    for le in BUCKETS:
        shares.append(
            1.0
            if le == "+Inf"
            else _phi((math.log(float(le)) - math.log(median_s)) / sigma)
        )
    return shares


@dataclass
class Metrics:
    rng: random.Random
    series: list[dict[str, Any]] = field(default_factory=list)

    @staticmethod
    def offsets() -> range:
        return range(-WINDOW_S, 1, STEP_S)

    def requests(
        self,
        service: str,
        *,
        rps: Gauge,
        errors: Shares,
        latency: Latency,
        codes: tuple[str, ...],
    ) -> None:
        """http_requests_total{service,code} and http_request_duration_seconds_bucket{service,le} counters."""
        totals = dict.fromkeys(("200", *codes), 0.0)
        buckets = [0.0] * len(BUCKETS)
        by_code: dict[str, list[list[float]]] = {code: [] for code in totals}
        by_le: list[list[list[float]]] = [[] for _ in BUCKETS]
        for offset in self.offsets():
            n = max(rps(offset) * STEP_S * (1 + self.rng.gauss(0, 0.04)), 0.0)
            shares = errors(offset)
            ok_share = max(1.0 - sum(shares.values()), 0.0)
            for code in totals:
                share = ok_share if code == "200" else shares.get(code, 0.0)
                totals[code] += round(n * share)
                by_code[code].append([offset, totals[code]])
            median, p99 = latency(offset)
            jitter = 1 + self.rng.gauss(0, 0.03)
            for i, share in enumerate(bucket_shares(median * jitter, p99 * jitter)):
                buckets[i] += round(n * share)
                by_le[i].append([offset, buckets[i]])
        for code, points in by_code.items():
            self.series.append(
                {
                    "name": "http_requests_total",
                    "labels": {"service": service, "code": code},
                    "type": "counter",
                    "points": points,
                }
            )
        for le, points in zip(BUCKETS, by_le, strict=True):
            self.series.append(
                {
                    "name": "http_request_duration_seconds_bucket",
                    "labels": {"service": service, "le": le},
                    "type": "counter",
                    "points": points,
                }
            )

    def gauge(
        self,
        name: str,
        service: str,
        value: Gauge,
        *,
        noise: float = 0.0,
        cap: float = math.inf,
    ) -> None:
        """A gauge with relative noise; a value at `cap` (a saturated pool) stays exactly there."""
        points = []
        for offset in self.offsets():
            base = value(offset)
            v = base * (1 + self.rng.gauss(0, noise)) if noise and base < cap else base
            points.append([offset, max(round(min(v, cap)), 0)])
        self.series.append(
            {
                "name": name,
                "labels": {"service": service},
                "type": "gauge",
                "points": points,
            }
        )

    def standard_gauges(
        self,
        service: str,
        *,
        conns: Gauge,
        close_wait: Gauge,
        pool_in_use: Gauge | None = None,
        pool_max: int = 0,
    ) -> None:
        self.gauge("process_open_connections", service, conns, noise=0.05)
        if pool_in_use is not None:  # only services with a database pool export these
            self.gauge("db_pool_in_use", service, pool_in_use, noise=0.08, cap=pool_max)
            self.gauge("db_pool_max", service, lambda _t: pool_max)
        self.gauge("tcp_close_wait", service, close_wait, noise=0.1)

    def document(self) -> dict[str, Any]:
        return {"step_s": STEP_S, "series": self.series}


@dataclass
class Logs:
    rng: random.Random
    lines: list[dict[str, Any]] = field(default_factory=list)

    def add(
        self, offset: float, service: str, level: str, message: str, **labels: str
    ) -> None:
        if -WINDOW_S <= offset <= 0:
            self.lines.append(
                {
                    "offset_s": round(offset, 1),
                    "service": service,
                    "level": level,
                    "message": message,
                    "labels": labels,
                }
            )

    def pod(self, service: str, n: int = 3) -> str:
        replica = ("x2kq9", "m8zt4", "p5wvr", "c7hnd")[self.rng.randrange(min(n, 4))]
        return f"{service}-{_stable_hash(service) % 0xFFFF:04x}d9f-{replica}"

    def trace(self) -> str:
        return f"{self.rng.getrandbits(64):016x}"

    def every(
        self, period: float, start: float = -WINDOW_S, end: float = 0.0
    ) -> list[float]:
        """Offsets from `start` to `end`, about `period` apart, with jitter."""
        out, t = [], start + self.rng.uniform(0, period)
        while t < end:
            out.append(t)
            t += period * self.rng.uniform(0.6, 1.4)
        return out

    def background(
        self, service: str, routes: list[str], *, per_min: float = 2.0
    ) -> None:
        """Access logs, health checks and the usual chatter of a healthy service."""
        for t in self.every(60 / per_min):
            route = self.rng.choice(routes)
            ms = max(int(self.rng.lognormvariate(math.log(35), 0.5)), 2)
            self.add(
                t,
                service,
                "info",
                f"{route} 200 {ms}ms",
                pod=self.pod(service),
                trace_id=self.trace(),
            )
        for t in self.every(300):
            self.add(t, service, "debug", "GET /healthz 200 1ms", pod=self.pod(service))
        for t in self.every(900):
            self.add(
                t,
                service,
                "info",
                f"gc pause {self.rng.randint(2, 9)}ms heap={self.rng.randint(180, 260)}MiB",
                pod=self.pod(service),
            )
        for t in self.every(1500):
            self.add(
                t,
                service,
                "warn",
                f"slow query {self.rng.randint(500, 900)}ms: SELECT * FROM carts WHERE user_id = $1",
                pod=self.pod(service),
            )

    def document(self) -> str:
        self.lines.sort(key=lambda line: line["offset_s"])
        return "".join(
            json.dumps(line, separators=(",", ":")) + "\n" for line in self.lines
        )


def _stable_hash(text: str) -> int:
    return sum((i + 1) * ord(c) for i, c in enumerate(text))


def _flat(rps: float) -> Gauge:
    # A gentle daily-looking curve so healthy traffic is not a straight line.
    return lambda t: rps * (1 + 0.08 * math.sin((t + WINDOW_S) / WINDOW_S * math.pi))


def _healthy_latency(median: float = 0.04, p99: float = 0.25) -> Latency:
    return lambda _t: (median, p99)


def _secrets(logs: Logs, service: str, at: list[float]) -> None:
    """A few lines that leak credentials, as real logs do; the logs server must mask them."""
    leaks = [
        f"config reload: DATABASE_URL=postgres://{service}:Xq7-pR2v9Lw@db-primary.internal:5432/{service} pool=20",
        "outbound request dump: POST /v1/charges Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjaGVja291dCJ9.dGVzdHNpZ25hdHVyZQ",
        f"retrying auth for user=svc-{service} password=hunter2-{service}!",
        "payment client init api_key=sk_live_51HdemoNotARealKey0000aa",
    ]
    for t, line in zip(at, leaks, strict=False):
        logs.add(t, service, "debug", line, pod=logs.pod(service))


# --- 1. tls-expired ---------------------------------------------------------------------------------


def tls_expired(metrics: Metrics, logs: Logs) -> None:
    t0 = TLS_EXPIRED_AT
    metrics.requests(
        "checkout",
        rps=_flat(42),
        errors=lambda t: {"502": 0.31 * ramp(t, t0, 30), "500": 0.002},
        latency=lambda t: (0.045, 0.3 + 0.5 * ramp(t, t0, 30)),
        codes=("500", "502"),
    )
    metrics.requests(
        "payments-gw",
        rps=_flat(13),
        errors=lambda t: {"502": 0.985 * ramp(t, t0, 15), "503": 0.001},
        latency=lambda t: (0.06 - 0.05 * ramp(t, t0, 15), 0.35 - 0.3 * ramp(t, t0, 15)),
        codes=("502", "503"),
    )
    metrics.requests(
        "payments-api",
        rps=lambda t: _flat(13)(t) * (1 - 0.98 * ramp(t, t0, 15)),
        errors=lambda _t: {"500": 0.001},
        latency=_healthy_latency(0.05, 0.3),
        codes=("500",),
    )
    for service, conns in (
        ("checkout", 140),
        ("payments-gw", 60),
        ("payments-api", 55),
    ):
        metrics.standard_gauges(
            service,
            conns=lambda t, c=conns, s=service: (
                c * (0.3 if s == "payments-api" and t > t0 else 1)
            ),
            pool_in_use=lambda _t: 6,
            pool_max=20,
            close_wait=lambda _t: 1,
        )
    logs.background(
        "checkout", ["GET /api/cart", "POST /api/cart/items", "GET /api/products"]
    )
    logs.background(
        "payments-api", ["POST /v1/charges", "GET /v1/charges/{id}"], per_min=1
    )
    logs.background(
        "payments-gw", ["upstream payments-api: POST /v1/charges"], per_min=1
    )
    for t in (-6900, -5100):
        logs.add(
            t,
            "cert-manager",
            "warn",
            "certificate default/payments-api-tls: renewal failed: issuer payments-ca: secret ca-key-pair "
            f"not found; current certificate expires at notAfter (in {(t0 - t) // 60} min)",
            certificate="payments-api-tls",
        )
    logs.add(
        -4300,
        "cert-manager",
        "error",
        "certificate default/payments-api-tls: giving up renewal after 5 attempts; next retry in 1h",
        certificate="payments-api-tls",
    )
    logs.add(
        t0 + 2,
        "payments-gw",
        "error",
        "upstream connect error or disconnect/reset before headers. reset reason: connection failure, transport failure reason: TLS_error:|268435581:SSL routines:OPENSSL_internal:CERTIFICATE_VERIFY_FAILED: certificate has expired",
        upstream="api.payments.internal:8443",
    )
    for t in logs.every(9, t0 + 5):
        pod = logs.pod("payments-gw")
        logs.add(
            t,
            "payments-gw",
            "error",
            'upstream_reset_before_response_started{connection_failure,TLS_error:_CERTIFICATE_VERIFY_FAILED:_certificate_has_expired} "POST /v1/charges" 502 UF',
            pod=pod,
            upstream="api.payments.internal:8443",
            trace_id=logs.trace(),
        )
        if logs.rng.random() < 0.8:
            logs.add(
                t + 0.05,
                "checkout",
                "error",
                "POST /api/checkout 502 upstream=payments-gw: charge failed: 502 Bad Gateway",
                pod=logs.pod("checkout"),
                trace_id=logs.trace(),
            )
    for t in logs.every(240, t0 + 60):
        logs.add(
            t,
            "payments-api",
            "info",
            "http: TLS handshake error from 10.42.3.17:51544: remote error: tls: bad certificate",
            pod=logs.pod("payments-api"),
        )
    logs.add(
        t0 + 420,
        "checkout",
        "warn",
        "circuit breaker payments OPEN after 50 consecutive failures",
        pod=logs.pod("checkout"),
    )
    _secrets(logs, "checkout", [-6200, -3900, -1500, -600])


# --- 2. dns-nxdomain --------------------------------------------------------------------------------

DNS_CHANGE_AT = -2400


def _nxdomain_burst(t: float) -> float:
    """Share of lookups that fail: bursts when the cached answers expire on pods hitting the new resolver."""
    if t < DNS_CHANGE_AT:
        return 0.0
    phase = (t - DNS_CHANGE_AT) % 300
    return 0.42 if phase < 90 else 0.04


def dns_nxdomain(metrics: Metrics, logs: Logs) -> None:
    t0 = DNS_CHANGE_AT
    metrics.requests(
        "orders",
        rps=_flat(30),
        errors=lambda t: {"503": _nxdomain_burst(t) * 0.9, "500": 0.002},
        latency=lambda t: (0.05, 0.3 + 1.7 * (_nxdomain_burst(t) > 0.1)),
        codes=("500", "503"),
    )
    metrics.requests(
        "payments-api",
        rps=lambda t: _flat(9)(t) * (1 - _nxdomain_burst(t)),
        errors=lambda _t: {"500": 0.001},
        latency=_healthy_latency(0.05, 0.3),
        codes=("500",),
    )
    metrics.standard_gauges(
        "orders",
        conns=lambda _t: 90,
        pool_in_use=lambda _t: 5,
        pool_max=20,
        close_wait=lambda _t: 1,
    )
    metrics.standard_gauges(
        "payments-api",
        conns=lambda _t: 45,
        pool_in_use=lambda _t: 4,
        pool_max=20,
        close_wait=lambda _t: 0,
    )
    logs.background(
        "orders", ["GET /api/orders", "POST /api/orders", "GET /api/orders/{id}"]
    )
    logs.background(
        "payments-api", ["POST /v1/charges", "GET /v1/charges/{id}"], per_min=1
    )
    logs.add(
        t0 - 40,
        "kube-system",
        "info",
        "configmap/coredns configured (change CHG-4471: 'forward . /etc/resolv.conf' replaces the stub zone for payments.internal)",
        actor="ci-deployer",
    )
    for i, t in enumerate((t0 - 10, t0 + 50, t0 + 115)):
        logs.add(
            t,
            "coredns",
            "info",
            f"[INFO] Reloading complete; plugin/reload: Running configuration SHA512 = 7f3c…{i}",
            pod=f"coredns-5d78c9869d-{'xqzv'[i]}",
        )
    for t in logs.every(12, t0):
        if _nxdomain_burst(t) < 0.1 and logs.rng.random() < 0.8:
            continue
        trace = logs.trace()
        logs.add(
            t,
            "orders",
            "error",
            'charge request failed: Post "https://api.payments.internal/v1/charges": dial tcp: lookup api.payments.internal on 10.96.0.10:53: no such host',
            pod=logs.pod("orders"),
            trace_id=trace,
        )
        logs.add(
            t - 0.01,
            "coredns",
            "info",
            f'[INFO] 10.42.1.{logs.rng.randint(10, 60)}:{logs.rng.randint(30000, 60000)} - {logs.rng.randint(1000, 65000)} "A IN api.payments.internal. udp 47 false 512" NXDOMAIN qr,rd,ra 122 0.0{logs.rng.randint(10, 99)}s',
            pod="coredns-5d78c9869d-x",
        )
        logs.add(
            t + 0.02,
            "orders",
            "warn",
            "POST /api/orders 503 payment dependency unavailable",
            pod=logs.pod("orders"),
            trace_id=trace,
        )
    for t in logs.every(600, t0):
        logs.add(
            t,
            "orders",
            "info",
            "dns cache: evicted 14 entries (ttl 30s); re-resolving upstreams",
            pod=logs.pod("orders"),
        )
    _secrets(logs, "orders", [-6600, -4000, -1900, -300])


# --- 3. pool-exhaustion -----------------------------------------------------------------------------

DEPLOY_AT = -2700
POOL_MAX = 20


def _pool_in_use(t: float) -> float:
    if t < DEPLOY_AT:
        return 6
    return min(
        6 + (t - DEPLOY_AT) / 60 * 0.9, POOL_MAX
    )  # ~1 leaked connection a minute


def pool_exhaustion(metrics: Metrics, logs: Logs) -> None:
    t0 = DEPLOY_AT
    full_at = t0 + (POOL_MAX - 6) / 0.9 * 60
    metrics.requests(
        "checkout",
        rps=_flat(38),
        errors=lambda t: {"503": 0.22 * ramp(t, full_at, 300), "500": 0.002},
        latency=lambda t: (
            0.045 + 0.6 * ramp(t, full_at - 300, 600),
            0.3 + 4.7 * ramp(t, full_at - 300, 600),
        ),
        codes=("500", "503"),
    )
    metrics.requests(
        "fraud-check",
        rps=_flat(38),
        errors=lambda _t: {"500": 0.001},
        latency=_healthy_latency(0.02, 0.12),
        codes=("500",),
    )
    metrics.standard_gauges(
        "checkout",
        conns=lambda t: 120 + 2.2 * max(t - t0, 0) / 60,
        pool_in_use=_pool_in_use,
        pool_max=POOL_MAX,
        close_wait=lambda t: 2 + 1.9 * max(t - t0, 0) / 60,
    )
    metrics.standard_gauges(
        "fraud-check",
        conns=lambda _t: 70,
        pool_in_use=lambda _t: 3,
        pool_max=10,
        close_wait=lambda _t: 0,
    )
    logs.background(
        "checkout", ["GET /api/cart", "POST /api/cart/items", "GET /api/products"]
    )
    logs.background("fraud-check", ["POST /v1/score"], per_min=1)
    logs.add(
        t0 - 30,
        "deploy",
        "info",
        "rollout checkout v2.13.4 → v2.14.0 started (change: 'stream fraud-check responses with iter_lines')",
        actor="argo-rollouts",
    )
    for i in range(3):
        logs.add(
            t0 + 20 + 35 * i,
            "checkout",
            "info",
            "checkout v2.14.0 started; db pool size=20 overflow=0 timeout=5s",
            pod=logs.pod("checkout"),
        )
    logs.add(
        t0 + 160,
        "deploy",
        "info",
        "rollout checkout v2.14.0 complete (3/3 ready)",
        actor="argo-rollouts",
    )
    for t in logs.every(300, t0 + 200):
        logs.add(
            t,
            "checkout",
            "warn",
            f"fraud-check client: connection pool usage {int(_pool_in_use(t))}/{POOL_MAX}; unreleased responses: {int(_pool_in_use(t)) - 6}",
            pod=logs.pod("checkout"),
        )
    for t in logs.every(420, t0 + 300):
        logs.add(
            t,
            "checkout",
            "info",
            f"netstat: {int(2 + 1.9 * (t - t0) / 60)} sockets in CLOSE_WAIT to fraud-check:8080",
            pod=logs.pod("checkout"),
        )
    for t in logs.every(8, full_at - 200):
        trace = logs.trace()
        logs.add(
            t,
            "checkout",
            "error",
            f"sqlalchemy.exc.TimeoutError: QueuePool limit of size {POOL_MAX} overflow 0 reached, connection timed out, timeout 5.00",
            pod=logs.pod("checkout"),
            trace_id=trace,
        )
        logs.add(
            t + 5,
            "checkout",
            "warn",
            "POST /api/checkout 503 5012ms",
            pod=logs.pod("checkout"),
            trace_id=trace,
        )
    logs.add(
        full_at + 600,
        "checkout",
        "warn",
        "liveness probe GET /healthz 200 (pool not checked)",
        pod=logs.pod("checkout"),
    )
    _secrets(logs, "checkout", [-6500, -3300, -1200, -200])


# --- 4. proxy-idle-timeout --------------------------------------------------------------------------

PROXY_CHANGE_AT = -3300


def proxy_idle_timeout(metrics: Metrics, logs: Logs) -> None:
    t0 = PROXY_CHANGE_AT
    clients = 800

    def stream_requests(t: float) -> float:
        # after the change every stream is cut each 60 s and the browser reconnects
        return clients / (IDLE_TIMEOUT_S if t >= t0 else 1800)

    metrics.requests(
        "edge-proxy",
        rps=lambda t: _flat(55)(t) + stream_requests(t),
        errors=lambda t: {
            "504": stream_requests(t)
            / (_flat(55)(t) + stream_requests(t))
            * ramp(t, t0, 60),
            "502": 0.001,
        },
        latency=lambda t: (0.04, 0.3 + 59.7 * ramp(t, t0, 60)),
        codes=("502", "504"),
    )
    metrics.requests(
        "notifications",
        rps=stream_requests,
        errors=lambda _t: {"500": 0.001},
        latency=lambda t: (0.02, 0.1),
        codes=("500",),
    )
    metrics.standard_gauges(
        "notifications",
        conns=lambda t: (
            clients
            * (
                0.55 + 0.45 * ((t - t0) % IDLE_TIMEOUT_S) / IDLE_TIMEOUT_S
                if t >= t0
                else 1
            )
        ),
        pool_in_use=lambda _t: 3,
        pool_max=20,
        close_wait=lambda _t: 1,
    )
    metrics.standard_gauges(
        "edge-proxy", conns=lambda _t: clients + 300, close_wait=lambda _t: 0
    )
    logs.background("notifications", ["GET /v1/orders/{id}/status"])
    logs.background("edge-proxy", ["GET /api/cart", "GET /v1/stream"], per_min=2)
    logs.add(
        t0 - 20,
        "edge-proxy",
        "info",
        "ingress-nginx: configuration reloaded (change CHG-4502: proxy-read-timeout 3600 → 60, proxy-send-timeout 3600 → 60 to shed stuck uploads)",
        actor="platform-bot",
    )
    logs.add(
        -6000,
        "notifications",
        "info",
        f"sse: heartbeat interval {HEARTBEAT_S}s (NOTIFY_HEARTBEAT_S)",
        pod=logs.pod("notifications"),
    )
    for t in logs.every(6, t0 + 60):
        client = f"10.8.{logs.rng.randint(0, 40)}.{logs.rng.randint(2, 250)}"
        logs.add(
            t,
            "edge-proxy",
            "error",
            f'upstream timed out (110: Connection timed out) while reading upstream, client: {client}, server: events.shop.internal, request: "GET /v1/stream HTTP/1.1", upstream: "http://10.42.2.31:8080/v1/stream"',
            request_time="60.001",
        )
        if logs.rng.random() < 0.5:
            logs.add(
                t + 0.01,
                "notifications",
                "info",
                f"sse: client {client} disconnected after 60.0s (sent 1 event, 0 heartbeats)",
                pod=logs.pod("notifications"),
            )
        if logs.rng.random() < 0.3:
            logs.add(
                t + 1.5,
                "notifications",
                "info",
                f"sse: client {client} reconnected with Last-Event-ID",
                pod=logs.pod("notifications"),
            )
    for t in logs.every(600, t0 + 120):
        logs.add(
            t,
            "web-frontend",
            "warn",
            "EventSource error: network error; reconnecting in 3000ms (readyState=CONNECTING)",
            source="browser-rum",
        )
    _secrets(logs, "notifications", [-6800, -4100, -2000, -500])


# --- 5. log-backend-timeout -------------------------------------------------------------------------

LOKI_DEGRADED_AT = -1500


def log_backend_timeout(metrics: Metrics, logs: Logs) -> None:
    t0 = LOKI_DEGRADED_AT
    metrics.requests(
        "loki",
        rps=_flat(6),
        errors=lambda t: {
            "504": 0.7 * ramp(t, t0, 120),
            "503": 0.15 * ramp(t, t0, 120),
            "500": 0.002,
        },
        latency=lambda t: (0.3 + 20 * ramp(t, t0, 120), 2.0 + 58 * ramp(t, t0, 120)),
        codes=("500", "503", "504"),
    )
    metrics.requests(
        "checkout",
        rps=_flat(40),
        errors=lambda t: {"500": 0.004 + 0.01 * ramp(t, t0 - 300, 60)},
        latency=_healthy_latency(),
        codes=("500",),
    )
    metrics.standard_gauges(
        "loki",
        conns=lambda t: 40 + 260 * ramp(t, t0, 300),
        close_wait=lambda t: 1 + 20 * ramp(t, t0, 300),
    )
    metrics.standard_gauges(
        "checkout",
        conns=lambda _t: 130,
        pool_in_use=lambda _t: 6,
        pool_max=20,
        close_wait=lambda _t: 1,
    )
    logs.background("checkout", ["GET /api/cart", "POST /api/cart/items"])
    logs.background(
        "loki",
        ['level=info component=querier msg="executing query" type=range length=1h'],
        per_min=1,
    )
    logs.add(
        t0 - 300,
        "checkout",
        "warn",
        "POST /api/checkout 500 coupon service returned 500 (retry succeeded)",
        pod=logs.pod("checkout"),
    )
    logs.add(
        t0 - 60,
        "loki",
        "info",
        'level=info component=frontend msg="query stats" query="{service=~\\".+\\"} |~ \\"(?i)error\\"" length=168h bytes_processed=412GB',
        tenant="analytics",
    )
    logs.add(
        t0,
        "loki",
        "error",
        'level=error component=querier msg="OOMKilled: container loki-read-1 exceeded memory limit 4Gi"',
        pod="loki-read-1",
    )
    for t in logs.every(20, t0 + 30):
        logs.add(
            t,
            "loki",
            "error",
            'level=error component=frontend msg="error processing request" err="context deadline exceeded" status=504 duration=60.0s',
            pod="loki-read-0",
        )
    for t in logs.every(120, t0 + 60):
        logs.add(
            t,
            "loki",
            "warn",
            'level=warn component=querier msg="querier queue full; rejecting" queue_length=2048',
            pod="loki-read-0",
        )
    _secrets(logs, "checkout", [-6000, -2500, -800, -100])


SCENARIOS: dict[str, Callable[[Metrics, Logs], None]] = {
    "tls-expired": tls_expired,
    "dns-nxdomain": dns_nxdomain,
    "pool-exhaustion": pool_exhaustion,
    "proxy-idle-timeout": proxy_idle_timeout,
    "log-backend-timeout": log_backend_timeout,
}


def generate(slug: str) -> tuple[str, str]:
    """The (logs.jsonl, metrics.json) texts for `slug`."""
    metrics = Metrics(random.Random(f"{slug}/metrics"))
    logs = Logs(random.Random(f"{slug}/logs"))
    SCENARIOS[slug](metrics, logs)
    return logs.document(), json.dumps(metrics.document(), separators=(",", ":")) + "\n"


def main() -> None:
    for slug in SCENARIOS:
        logs_text, metrics_text = generate(slug)
        folder = ROOT / slug
        folder.mkdir(exist_ok=True)
        (folder / "logs.jsonl").write_text(logs_text, encoding="utf-8")
        (folder / "metrics.json").write_text(metrics_text, encoding="utf-8")
        sys.stdout.write(
            f"{slug}: {logs_text.count(chr(10))} log lines, {len(metrics_text) // 1024} KiB metrics\n"
        )


if __name__ == "__main__":
    main()
