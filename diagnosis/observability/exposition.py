"""Who may scrape, and the two places that answer: GET /metrics on the web and the worker's
own exporter (METRICS_WORKER_PORT).

Access: `Authorization: Bearer <METRICS_TOKEN>`, or a peer address inside METRICS_ALLOWED_IPS
(the TCP peer, REMOTE_ADDR; X-Forwarded-For is never trusted). With neither set, nobody may
scrape: a proxy on the same host would otherwise make every client look local. A refusal is a
JSON 401 (with a Bearer challenge) or 403. In prometheus-client's multiprocess mode
(PROMETHEUS_MULTIPROC_DIR set, for a prefork worker) the series are read from that folder.
"""

import hmac
import ipaddress
import json
import logging
import os
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, make_server

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from prometheus_client import REGISTRY, CollectorRegistry, make_wsgi_app
from prometheus_client.exposition import ThreadingWSGIServer, choose_encoder
from prometheus_client.multiprocess import MultiProcessCollector

from diagnosis.api.errors import json_response
from diagnosis.api.views import public_get
from diagnosis.observability.collectors import DatabaseCollector, StreamCollector
from diagnosis.observability.metrics import MULTIPROC_ENV

logger = logging.getLogger(__name__)

_CHALLENGE = 'Bearer realm="agentops-metrics"'


@dataclass(frozen=True)
class Refusal:
    status: int
    code: str
    error: str

    @property
    def body(self) -> dict[str, str]:
        return {"error": self.error, "code": self.code}

    @property
    def headers(self) -> dict[str, str]:
        return {"WWW-Authenticate": _CHALLENGE} if self.status == 401 else {}


def allowed_networks(
    entries: Iterable[str],
) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    """METRICS_ALLOWED_IPS parsed: addresses or CIDR blocks.

    Raises:
        ValueError: an entry is neither.
    """
    return [ipaddress.ip_network(entry.strip(), strict=False) for entry in entries]


def _is_allowed_address(remote_addr: str | None, networks: list[Any]) -> bool:
    if not remote_addr or not networks:
        return False
    try:
        address = ipaddress.ip_address(remote_addr.strip().strip("[]"))
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
        address = address.ipv4_mapped
    return any(address in network for network in networks)


def check_access(
    *,
    authorization: str | None,
    remote_addr: str | None,
    token: str,
    allowed_ips: Iterable[str],
) -> Refusal | None:
    """None if the scrape may go ahead, else why not.

    A request that sends Authorization while a token is configured is judged by it alone
    (a wrong token is a 401 even from an allowed address), as the JSON API does.
    """
    if token and authorization:
        scheme, _, secret = authorization.strip().partition(" ")
        if scheme.lower() == "bearer" and hmac.compare_digest(
            secret.strip().encode(), token.encode()
        ):
            return None
        return Refusal(401, "not_authenticated", "invalid metrics token")
    networks = allowed_networks(allowed_ips)
    if _is_allowed_address(remote_addr, networks):
        return None
    if token:
        return Refusal(
            401, "not_authenticated", "send Authorization: Bearer <METRICS_TOKEN>"
        )
    if networks:
        return Refusal(403, "permission_denied", "this address may not scrape metrics")
    return Refusal(
        403,
        "metrics_disabled",
        "metrics are off: set METRICS_TOKEN or METRICS_ALLOWED_IPS",
    )


def _settings_access(
    authorization: str | None, remote_addr: str | None
) -> Refusal | None:
    return check_access(
        authorization=authorization,
        remote_addr=remote_addr,
        token=getattr(settings, "METRICS_TOKEN", ""),
        allowed_ips=getattr(settings, "METRICS_ALLOWED_IPS", []),
    )


def exposition_registry(*, web: bool) -> CollectorRegistry:
    """What one scrape answers: this process's metrics (or the multiprocess folder's), plus
    the web's scrape-time series when `web`."""
    registry = CollectorRegistry(auto_describe=False)
    path = os.environ.get(MULTIPROC_ENV)
    if path:
        # prometheus-client leaves this constructor unannotated.
        MultiProcessCollector(registry, path=path)  # type: ignore[no-untyped-call]
    else:
        registry.register(REGISTRY)
    if web:
        registry.register(StreamCollector())
        registry.register(DatabaseCollector())
    return registry


@public_get
def metrics_view(request: HttpRequest) -> HttpResponse:
    """GET /metrics: the Prometheus exposition of this web process (token or allowlist)."""
    refusal = _settings_access(
        request.headers.get("Authorization"), request.META.get("REMOTE_ADDR")
    )
    if refusal is not None:
        return json_response(refusal.status, refusal.body, headers=refusal.headers)
    encoder, content_type = choose_encoder(request.headers.get("Accept", ""))
    response = HttpResponse(encoder(exposition_registry(web=True)))
    response["Content-Type"] = content_type
    response["Cache-Control"] = "no-store"
    return response


# --- the worker's exporter -------------------------------------------------------------------

Environ = dict[str, Any]
StartResponse = Callable[..., Any]


def worker_app(environ: Environ, start_response: StartResponse) -> list[bytes]:
    """The worker's WSGI app: the same access rule, then prometheus-client's exposition."""
    refusal = _settings_access(
        environ.get("HTTP_AUTHORIZATION"), environ.get("REMOTE_ADDR")
    )
    if refusal is not None:
        body = json.dumps(refusal.body).encode()
        headers = [
            ("Content-Type", "application/json"),
            ("Content-Length", str(len(body))),
            *refusal.headers.items(),
        ]
        phrase = "Unauthorized" if refusal.status == 401 else "Forbidden"
        start_response(f"{refusal.status} {phrase}", headers)
        return [body]
    app = make_wsgi_app(exposition_registry(web=False))
    result: list[bytes] = app(environ, start_response)
    return result


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        """Scrapes are not logged: one line per scrape interval says nothing."""


def start_worker_exporter(*, address: str, port: int) -> ThreadingWSGIServer:
    """Serve the worker's metrics on address:port from a daemon thread; port 0 picks one.

    Raises:
        OSError: the port cannot be bound.
    """
    server = make_server(
        address,
        port,
        worker_app,
        server_class=ThreadingWSGIServer,
        handler_class=_QuietHandler,
    )
    thread = threading.Thread(
        target=server.serve_forever, name="metrics-exporter", daemon=True
    )
    thread.start()
    logger.info(
        "worker metrics on http://%s:%s/metrics", address, server.server_address[1]
    )
    return server
