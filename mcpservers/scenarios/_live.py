"""The live half of each scenario: real listeners on 127.0.0.1 whose failures match the dataset.

One `start_<slug>` per scenario starts its listeners inside a `Listeners` group and returns the
netcheck probes (name → URL), the name overrides and the trust bundle netcheck needs. Times that
must agree with the data (the certificate's notAfter) come from `_timeline`, so the certificate
expired exactly when the logs say it did.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import ssl
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mcpservers.scenarios import _timeline as data
from mcpservers.scenarios._certs import CertAuthority, self_signed
from mcpservers.scenarios._listeners import (
    HOST,
    Listeners,
    Request,
    Response,
    fetch_status,
    json_response,
    server_ssl_context,
)

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable
    from pathlib import Path

POOL_SIZE = 4
POOL_TIMEOUT_S = 1.0


@dataclass(frozen=True)
class Probe:
    """One netcheck target of a running scenario; `stream_s` > 0 asks netcheck to watch an event stream."""

    name: str
    url: str
    stream_s: float = 0.0


@dataclass
class Wiring:
    """What a starter hands back: probes, name overrides (name → IP or NXDOMAIN) and extra trust."""

    probes: list[Probe]
    resolve: dict[str, str] = field(default_factory=dict)
    ca_file: Path | None = None
    # IP:PORT of a scenario DNS server netcheck should ask
    dns_server: str | None = None
    # Arguments for other bundled servers that replace their `--scenario <slug>` default
    server_args: dict[str, list[str]] = field(default_factory=dict)


async def _ok(request: Request, writer: asyncio.StreamWriter) -> Response:
    return json_response(200, {"status": "ok", "path": request.path})


async def start_tls_expired(
    listeners: Listeners, folder: Path, time_scale: float
) -> Wiring:
    """payments-api serves a self-signed certificate that expired at TLS_EXPIRED_AT; the gateway in
    front of it really dials it with verification and answers 502 as Envoy does."""
    now = dt.datetime.now(dt.UTC)
    cert = self_signed(
        folder,
        "payments-api",
        ["api.payments.internal"],
        not_before=now - dt.timedelta(days=90),
        not_after=now + dt.timedelta(seconds=data.TLS_EXPIRED_AT),
    )
    # The mesh trust bundle pins the service's own certificate, so clients report the expiry
    # (OpenSSL checks validity of the pinned anchor) rather than "self-signed".
    trust = folder / "trust-bundle.pem"
    trust.write_bytes(cert.cert.read_bytes())
    api_port = await listeners.http(
        _ok, ssl_context=server_ssl_context(cert.cert, cert.key)
    )
    upstream_context = ssl.create_default_context(cafile=str(trust))

    async def gateway(request: Request, writer: asyncio.StreamWriter) -> Response:
        try:
            status, body = await fetch_status(
                HOST,
                api_port,
                path=request.path,
                ssl_context=upstream_context,
                server_hostname="api.payments.internal",
            )
        except ssl.SSLCertVerificationError as exc:
            reason = f"TLS_error:|CERTIFICATE_VERIFY_FAILED: {exc.verify_message}"
        except (OSError, TimeoutError, ssl.SSLError) as exc:
            reason = f"connection_failure: {exc!r}"
        else:
            return Response(status, body, {"Server": "envoy"})
        return Response(
            502,
            "upstream connect error or disconnect/reset before headers. reset reason: connection failure, "
            f"transport failure reason: {reason}",
            {"Server": "envoy"},
        )

    gw_port = await listeners.http(gateway)
    return Wiring(
        probes=[
            Probe("payments-gw", f"http://payments-gw.internal:{gw_port}/v1/charges"),
            Probe("payments-api", f"https://api.payments.internal:{api_port}/healthz"),
        ],
        resolve={"payments-gw.internal": HOST, "api.payments.internal": HOST},
        ca_file=trust,
    )


async def start_dns_nxdomain(
    listeners: Listeners, folder: Path, time_scale: float
) -> Wiring:
    """payments-api is healthy (reachable by IP); the new resolver, a real DNS server on UDP, lost
    the payments.internal stub zone and answers NXDOMAIN for it."""
    authority = CertAuthority(folder)
    leaf = authority.issue("payments-api", ["api.payments.internal", HOST])
    port = await listeners.http(
        _ok, ssl_context=server_ssl_context(leaf.cert, leaf.key)
    )
    # After CHG-4471 the resolver forwards everything upstream, which knows no internal zone.
    resolver_port = await listeners.dns_server({"api.payments.internal": 3})
    return Wiring(
        probes=[
            Probe("payments-api", f"https://api.payments.internal:{port}/healthz"),
            Probe("payments-api-by-ip", f"https://{HOST}:{port}/healthz"),
        ],
        ca_file=authority.files.cert,
        dns_server=f"{HOST}:{resolver_port}",
    )


async def start_pool_exhaustion(
    listeners: Listeners, folder: Path, time_scale: float
) -> Wiring:
    """checkout v2.14.0 leaks one pool slot and one socket per request (CLOSE_WAIT once the client
    hangs up). Warm-up requests exhaust the pool, so /api/checkout waits for a slot, then 503s;
    /healthz does not touch the pool and stays green."""
    pool = asyncio.Semaphore(POOL_SIZE)

    async def checkout(request: Request, writer: asyncio.StreamWriter) -> Response:
        if request.path.startswith("/healthz"):
            return json_response(200, {"status": "ok"})
        # The bug: neither the pooled connection nor the client socket is ever released.
        listeners.leaked.append(writer)
        try:
            await asyncio.wait_for(pool.acquire(), POOL_TIMEOUT_S)
        except TimeoutError:
            return Response(
                503,
                f"sqlalchemy.exc.TimeoutError: QueuePool limit of size {POOL_SIZE} overflow 0 reached, "
                f"connection timed out, timeout {POOL_TIMEOUT_S:.2f}",
                {"Server": "checkout/2.14.0"},
            )
        return json_response(200, {"order": "created"}, server="checkout/2.14.0")

    port = await listeners.http(checkout)
    for _ in range(POOL_SIZE):
        # Well-behaved clients: read the answer, then close (FIN); the server side stays in CLOSE_WAIT.
        status, _body = await fetch_status(HOST, port, path="/api/checkout")
        if status != 200:
            raise RuntimeError(f"pool warm-up got HTTP {status}")
    return Wiring(
        probes=[
            Probe("checkout", f"http://checkout.shop.internal:{port}/api/checkout"),
            Probe("checkout-liveness", f"http://checkout.shop.internal:{port}/healthz"),
        ],
        resolve={"checkout.shop.internal": HOST},
    )


async def start_proxy_idle_timeout(
    listeners: Listeners, folder: Path, time_scale: float
) -> Wiring:
    """notifications streams SSE with heartbeats every 90 s; the edge proxy in front cuts connections
    idle for 60 s. Both run `time_scale` times faster (3 s and 4.5 s by default)."""
    heartbeat_s = data.HEARTBEAT_S * time_scale
    idle_s = data.IDLE_TIMEOUT_S * time_scale

    async def stream(request: Request, writer: asyncio.StreamWriter) -> None:
        writer.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
            b"Server: notifications/1.8\r\n\r\n"
        )
        writer.write(
            b'id: 1\nevent: status\ndata: {"order": "A-1042", "status": "packed"}\n\n'
        )
        await writer.drain()
        while True:
            await asyncio.sleep(heartbeat_s)
            writer.write(b": heartbeat\n\n")
            await writer.drain()

    upstream = await listeners.http(stream)
    proxy = await listeners.idle_cut_proxy(upstream, idle_timeout_s=idle_s)
    watch = round(idle_s * 2, 2)
    return Wiring(
        probes=[
            Probe(
                "events-via-proxy",
                f"http://events.shop.internal:{proxy}/v1/stream",
                stream_s=watch,
            ),
            Probe(
                "notifications-direct",
                f"http://notifications.internal:{upstream}/v1/stream",
                stream_s=watch,
            ),
        ],
        resolve={"events.shop.internal": HOST, "notifications.internal": HOST},
    )


async def start_log_backend_timeout(
    listeners: Listeners, folder: Path, time_scale: float
) -> Wiring:
    """loki-read-0 accepts queries and never answers; loki-read-1 was OOM-killed (port closed);
    checkout itself is healthy."""
    stuck = await listeners.silent()
    gone = listeners.closed_port()
    checkout = await listeners.http(_ok)
    return Wiring(
        probes=[
            Probe(
                "loki-read-0",
                f"http://loki-read-0.loki.internal:{stuck}/loki/api/v1/query_range",
            ),
            Probe("loki-read-1", f"http://loki-read-1.loki.internal:{gone}/ready"),
            Probe("checkout", f"http://checkout.shop.internal:{checkout}/healthz"),
        ],
        resolve={
            "loki-read-0.loki.internal": HOST,
            "loki-read-1.loki.internal": HOST,
            "checkout.shop.internal": HOST,
        },
        # The logs server can meet the same stuck reader through its Loki back end: a real timeout.
        server_args={
            "logs": ["--loki-url", f"http://{HOST}:{stuck}", "--loki-timeout", "2"]
        },
    )


STARTERS: dict[str, Callable[[Listeners, Path, float], Awaitable[Wiring]]] = {
    "tls-expired": start_tls_expired,
    "dns-nxdomain": start_dns_nxdomain,
    "pool-exhaustion": start_pool_exhaustion,
    "proxy-idle-timeout": start_proxy_idle_timeout,
    "log-backend-timeout": start_log_backend_timeout,
}
