"""targets.json: a scenario's live listeners for netcheck, drawn from a fixed catalogue of faults.

`load_targets(path)` reads and checks the file (a bad one raises `TargetsError` naming the file,
the target and the field); `start_targets()` starts one real listener per target inside a
`Listeners` group and returns the probes, name overrides, trust bundle and DNS server netcheck
needs. The catalogue (`FAULTS`) and what netcheck sees of each kind: README.md.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import ipaddress
import itertools
import json
import math
import socket
import ssl
import struct
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from mcpservers.scenarios._certs import CertAuthority, CertFiles, self_signed
from mcpservers.scenarios._listeners import (
    HOST,
    Listeners,
    Request,
    Response,
    fetch_status,
    server_ssl_context,
)

if TYPE_CHECKING:
    from pathlib import Path

__all__ = [
    "FAULTS",
    "Probe",
    "Target",
    "TargetsError",
    "Wiring",
    "load_backend",
    "load_targets",
    "start_targets",
]


class TargetsError(ValueError):
    """targets.json or backend.json is malformed; the message names the file, the target and the field."""

    def __init__(self, path: Path | str, target: str, field: str, reason: str) -> None:
        super().__init__(path, target, field, reason)
        self.path, self.target, self.field, self.reason = (
            str(path),
            target,
            field,
            reason,
        )

    def __str__(self) -> str:
        return f"{self.path}: {self.target}: {self.field}: {self.reason}"


# Each kind's parameters: name → (accepted types, default; REQUIRED when it must be given).
REQUIRED: Any = object()
_NUM = (int, float)
_STATUS = (int,)
FAULTS: dict[str, dict[str, tuple[tuple[type, ...], Any]]] = {
    "ok": {
        "status": (_STATUS, 200),
        "body": ((str,), '{"status": "ok"}'),
        "headers": ((dict,), {}),
    },
    "tls_expired": {"expired_s_ago": (_NUM, REQUIRED)},
    "tls_self_signed": {},
    "tls_wrong_host": {"cert_names": ((list,), REQUIRED)},
    "tls_wrong_chain": {},
    "connect_refused": {},
    "connect_timeout": {},
    "dns_nxdomain": {},
    "dns_servfail": {},
    "dns_slow": {"delay_s": (_NUM, REQUIRED)},
    "dns_wrong_address": {"address": ((str,), "127.0.0.2")},
    "http_status": {
        "status": (_STATUS, REQUIRED),
        "body": ((str,), None),
        "headers": ((dict,), {}),
        "delay_s": (_NUM, 0),
        "paths": ((dict,), {}),
    },
    "slow_first_byte": {
        "delay_s": (_NUM, REQUIRED),
        "status": (_STATUS, 200),
        "body": ((str,), '{"status": "ok"}'),
    },
    "silent": {},
    "stream_cut": {"after_s": (_NUM, REQUIRED), "heartbeat_s": (_NUM, 15)},
    "idle_cut_proxy": {
        "upstream": ((str,), REQUIRED),
        "idle_timeout_s": (_NUM, REQUIRED),
    },
    "sse": {"heartbeat_s": (_NUM, 15), "data": ((str,), '{"status": "ok"}')},
    "reset_mid_body": {
        "status": (_STATUS, 200),
        "after_bytes": ((int,), 64),
        "paths": ((dict,), {}),
    },
    "gateway": {
        # one target, or several: replicas behind one name, taken in turn per request
        "upstream": ((str, list), REQUIRED),
        "server": ((str,), "envoy"),
        # production seconds (scaled like every duration); None: 3 real seconds
        "route_timeout_s": (_NUM, None),
    },
    "jsonrpc_error": {
        "code": ((int,), -32603),
        "message": ((str,), "Internal error"),
    },
}
DNS_FAULTS = frozenset(
    {"dns_nxdomain", "dns_servfail", "dns_slow", "dns_wrong_address"}
)
# The loopback network a wrong DNS record may point at (nothing there listens on a target's port).
WRONG_ADDRESS_NET = ipaddress.ip_network("127.0.0.0/8")
_UPSTREAM_KINDS = frozenset({"idle_cut_proxy", "gateway"})
_TARGET_KEYS = frozenset({"name", "url", "fault", "stream_s", "protocol", "timeout_s"})
PROTOCOLS = ("http", "mcp")
_UPSTREAM_TIMEOUT_S = 3.0
_RESET_PAUSE_S = 0.2


@dataclass(frozen=True)
class Probe:
    """One netcheck target of a running scenario; `stream_s` > 0 asks netcheck to watch an event stream."""

    name: str
    url: str
    stream_s: float = 0.0
    # "mcp": the URL serves MCP; netcheck lists it as an mcp_endpoint, probed with protocol="mcp"
    protocol: str = "http"
    # netcheck's per-layer timeout for this URL (scaled), when the target sets one
    timeout_s: float | None = None


@dataclass(frozen=True)
class Target:
    """One checked entry of targets.json; `params` holds every parameter of its kind, defaults filled in."""

    name: str
    scheme: str
    host: str
    path: str
    kind: str
    params: dict[str, Any]
    stream_s: float = 0.0
    protocol: str = "http"
    timeout_s: float | None = (
        None  # production seconds, per layer, when netcheck probes it
    )

    def url(self, port: int) -> str:
        return f"{self.scheme}://{self.host}:{port}{self.path}"

    @property
    def is_ip(self) -> bool:
        try:
            ipaddress.ip_address(self.host)
        except ValueError:
            return False
        return True


@dataclass
class Wiring:
    """What a started scenario hands netcheck: probes, name overrides, trust, its DNS server, ports."""

    probes: list[Probe]
    resolve: dict[str, str] = field(default_factory=dict)
    ca_file: Path | None = None
    # IP:PORT of the scenario DNS server, when a target has a dns_* fault
    dns_server: str | None = None
    # target name → the 127.0.0.1 port its listener got (backend.json points servers at them)
    ports: dict[str, int] = field(default_factory=dict)
    # the loopback addresses wrong DNS records point at (netcheck may dial them, to be refused)
    wrong_addresses: list[str] = field(default_factory=list)


# --- loading -----------------------------------------------------------------------------------


def load_targets(path: Path) -> list[Target]:
    """Read and check targets.json.

    Raises:
        TargetsError: not JSON, or a target with a bad name, URL, fault kind or parameter.
    """
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise TargetsError(path, "(file)", "(json)", f"unreadable: {exc}") from exc
    if not isinstance(doc, dict) or not isinstance(doc.get("targets"), list):
        raise TargetsError(path, "(file)", "targets", 'expected {"targets": [ ... ]}')
    if set(doc) - {"targets"}:
        raise TargetsError(
            path, "(file)", ", ".join(sorted(set(doc) - {"targets"})), "unknown key"
        )
    targets: list[Target] = []
    for index, raw in enumerate(doc["targets"]):
        targets.append(_target(path, index, raw, {t.name for t in targets}))
    names = {t.name for t in targets}
    for target in targets:
        for upstream in upstreams(target):
            if upstream not in names - {target.name}:
                raise TargetsError(
                    path,
                    target.name,
                    "fault.upstream",
                    f"{upstream!r} is not another target's name",
                )
    _check_acyclic(path, targets)
    return targets


def _target(path: Path, index: int, raw: Any, seen: set[str]) -> Target:
    where = f"targets[{index}]"
    if not isinstance(raw, dict):
        raise TargetsError(path, where, "(target)", "expected an object")
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip():
        raise TargetsError(path, where, "name", "must be a non-empty string")
    if name in seen:
        raise TargetsError(path, name, "name", "another target has this name")
    if unknown := set(raw) - _TARGET_KEYS:
        raise TargetsError(path, name, ", ".join(sorted(unknown)), "unknown key")
    url = raw.get("url")
    if not isinstance(url, str):
        raise TargetsError(path, name, "url", "must be a string")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise TargetsError(path, name, "url", f"{url!r}: expected http(s)://host/path")
    if ":" in parts.netloc.rsplit("]", 1)[-1] or parts.username or parts.password:
        raise TargetsError(
            path,
            name,
            "url",
            f"{url!r}: no port or credentials (a free port is assigned at start)",
        )
    fault = raw.get("fault", {"kind": "ok"})
    if not isinstance(fault, dict) or not isinstance(fault.get("kind"), str):
        raise TargetsError(path, name, "fault", 'expected {"kind": ..., ...}')
    kind = fault["kind"]
    if kind not in FAULTS:
        raise TargetsError(
            path,
            name,
            "fault.kind",
            f"unknown kind {kind!r}; the catalogue: {', '.join(FAULTS)}",
        )
    params = _params(path, name, kind, fault)
    stream_s = raw.get("stream_s", 0)
    if not _is_number(stream_s) or stream_s < 0:
        raise TargetsError(path, name, "stream_s", "must be a number >= 0")
    protocol = raw.get("protocol", "http")
    if protocol not in PROTOCOLS:
        raise TargetsError(
            path, name, "protocol", f"must be one of {', '.join(PROTOCOLS)}"
        )
    timeout_s = raw.get("timeout_s")
    if timeout_s is not None and (not _is_number(timeout_s) or timeout_s <= 0):
        raise TargetsError(path, name, "timeout_s", "must be a number > 0")
    if kind.startswith("tls_") and parts.scheme != "https":
        raise TargetsError(path, name, "url", f"a {kind} fault needs an https URL")
    return Target(
        name=name,
        scheme=parts.scheme,
        host=parts.hostname.lower(),
        path=(parts.path or "/") + (f"?{parts.query}" if parts.query else ""),
        kind=kind,
        params=params,
        stream_s=float(stream_s),
        protocol=protocol,
        timeout_s=None if timeout_s is None else float(timeout_s),
    )


def upstreams(target: Target) -> list[str]:
    """The names of the targets a proxy or gateway forwards to (several: replicas taken in turn)."""
    if target.kind not in _UPSTREAM_KINDS:
        return []
    upstream = target.params["upstream"]
    return [upstream] if isinstance(upstream, str) else list(upstream)


def _is_number(value: Any) -> bool:
    """A JSON number that is finite: `1e400` (infinity) and `NaN`, which Python's json accepts, are not."""
    return (
        isinstance(value, _NUM) and not isinstance(value, bool) and math.isfinite(value)
    )


def _params(path: Path, name: str, kind: str, fault: dict[str, Any]) -> dict[str, Any]:
    spec = FAULTS[kind]
    if unknown := set(fault) - set(spec) - {"kind"}:
        raise TargetsError(
            path,
            name,
            "fault." + ", fault.".join(sorted(unknown)),
            f"not a parameter of {kind} (it takes: {', '.join(spec) or 'none'})",
        )
    params: dict[str, Any] = {}
    for key, (types, default) in spec.items():
        if key not in fault:
            if default is REQUIRED:
                raise TargetsError(path, name, f"fault.{key}", f"{kind} needs it")
            params[key] = default
            continue
        value = fault[key]
        if isinstance(value, bool) or not isinstance(value, types):
            wanted = " or ".join(t.__name__ for t in types)
            raise TargetsError(path, name, f"fault.{key}", f"must be {wanted}")
        if _is_number(value) and value < 0 and key != "code":
            raise TargetsError(path, name, f"fault.{key}", "must be >= 0")
        params[key] = value
    if "status" in params and params["status"] is not None:
        _check_status(path, name, "fault.status", params["status"])
    if "paths" in params:
        params["paths"] = {
            route: _path_answer(path, name, route, answer)
            for route, answer in params["paths"].items()
        }
    if kind == "gateway":
        upstream = params["upstream"]
        if isinstance(upstream, list) and (
            not upstream or not all(isinstance(u, str) and u for u in upstream)
        ):
            raise TargetsError(
                path,
                name,
                "fault.upstream",
                "must be a target's name or a non-empty list of names",
            )
    if kind == "dns_wrong_address":
        _check_wrong_address(path, name, params["address"])
    if kind == "tls_wrong_host" and (
        not params["cert_names"]
        or not all(isinstance(n, str) and n for n in params["cert_names"])
    ):
        raise TargetsError(
            path, name, "fault.cert_names", "must be a non-empty list of names"
        )
    if not all(
        isinstance(k, str) and isinstance(v, str)
        for k, v in params.get("headers", {}).items()
    ):
        raise TargetsError(path, name, "fault.headers", "must map names to strings")
    return params


def _path_answer(path: Path, name: str, route: str, answer: Any) -> dict[str, Any]:
    """A `paths` entry: a bare status, or {"status", "body", "headers"} (body and headers optional)."""
    where = f"fault.paths.{route}"
    if not route.startswith("/"):
        raise TargetsError(path, name, where, "must start with /")
    if not isinstance(answer, dict):
        _check_status(path, name, where, answer)
        return {"status": answer, "body": None, "headers": {}}
    if unknown := set(answer) - {"status", "body", "headers"}:
        raise TargetsError(
            path,
            name,
            where,
            f"unknown key {', '.join(sorted(unknown))} (it takes status, body, headers)",
        )
    _check_status(path, name, f"{where}.status", answer.get("status"))
    body = answer.get("body")
    if body is not None and not isinstance(body, str):
        raise TargetsError(path, name, f"{where}.body", "must be a string")
    headers = answer.get("headers", {})
    if not isinstance(headers, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in headers.items()
    ):
        raise TargetsError(path, name, f"{where}.headers", "must map names to strings")
    return {"status": answer["status"], "body": body, "headers": headers}


def _check_wrong_address(path: Path, name: str, address: str) -> None:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        raise TargetsError(
            path, name, "fault.address", f"{address!r} is not an IP address"
        ) from None
    if ip not in WRONG_ADDRESS_NET or str(ip) == HOST:
        raise TargetsError(
            path,
            name,
            "fault.address",
            f"must be a loopback address other than {HOST} (the demo stays on this machine)",
        )


def _check_status(path: Path, name: str, field: str, status: Any) -> None:
    if (
        isinstance(status, bool)
        or not isinstance(status, int)
        or not 100 <= status <= 599
    ):
        raise TargetsError(path, name, field, "must be an HTTP status 100..599")


def _check_acyclic(path: Path, targets: list[Target]) -> None:
    forwards = {t.name: upstreams(t) for t in targets}

    def visit(name: str, trail: tuple[str, ...]) -> None:
        for upstream in forwards.get(name, []):
            if upstream in trail:
                raise TargetsError(
                    path, trail[0], "fault.upstream", "upstreams form a cycle"
                )
            visit(upstream, (*trail, upstream))

    for target in targets:
        visit(target.name, (target.name,))


def load_backend(path: Path, targets: list[Target]) -> dict[str, dict[str, Any]]:
    """Read and check backend.json: which bundled server's real back end meets which target.

    Raises:
        TargetsError: a key other than logs/metrics, or a `*_target` naming no target.
    """
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise TargetsError(path, "(file)", "(json)", f"unreadable: {exc}") from exc
    if not isinstance(doc, dict):
        raise TargetsError(path, "(file)", "(json)", "expected an object")
    names = {t.name for t in targets}
    fields = {"logs": "loki_target", "metrics": "prometheus_target"}
    for server, body in doc.items():
        if server not in fields:
            raise TargetsError(path, server, "(server)", "expected logs or metrics")
        if not isinstance(body, dict) or set(body) - {fields[server], "timeout_s"}:
            raise TargetsError(
                path, server, "(keys)", f"expected {fields[server]} and timeout_s"
            )
        if body.get(fields[server]) not in names:
            raise TargetsError(
                path,
                server,
                fields[server],
                f"{body.get(fields[server])!r} is not a target in targets.json",
            )
        timeout = body.get("timeout_s", 2)
        if not _is_number(timeout) or timeout <= 0:
            raise TargetsError(path, server, "timeout_s", "must be a number > 0")
    return doc


# --- starting ----------------------------------------------------------------------------------


async def start_targets(
    targets: list[Target], listeners: Listeners, folder: Path, time_scale: float
) -> Wiring:
    """Start every target's listener on 127.0.0.1 (upstreams first) and wire netcheck to them.

    Targets with the same scheme, host and fault share one listener (one server, two probes).
    `folder` receives the certificates; `time_scale` shrinks the faults' durations.
    """
    starter = _Starter(listeners, folder, time_scale, targets)
    for target in _upstreams_first(targets):
        await starter.start(target)
    return starter.wiring()


def _upstreams_first(targets: list[Target]) -> list[Target]:
    by_name = {t.name: t for t in targets}
    ordered: list[Target] = []

    def visit(target: Target) -> None:
        if target in ordered:
            return
        for upstream in upstreams(target):
            visit(by_name[upstream])
        ordered.append(target)

    for target in targets:
        visit(target)
    return ordered


class _Starter:
    def __init__(
        self,
        listeners: Listeners,
        folder: Path,
        time_scale: float,
        targets: list[Target],
    ) -> None:
        self.listeners = listeners
        self.folder = folder
        self.scale = time_scale
        self.targets = {t.name: t for t in targets}
        self.ports: dict[str, int] = {}
        self.shared: dict[str, int] = {}
        self._authority: CertAuthority | None = None
        self.dns_records: dict[str, list[str] | int] = {}
        self.dns_delays: dict[str, float] = {}
        self._dns_server: str | None = None

    @property
    def authority(self) -> CertAuthority:
        # The scenario's CA: its certificate is the trust bundle netcheck and gateways use.
        if self._authority is None:
            self._authority = CertAuthority(self.folder / "ca", name="scenario CA")
        return self._authority

    def wiring(self) -> Wiring:
        ordered = list(self.targets.values())
        dns_hosts = {t.host for t in ordered if t.kind in DNS_FAULTS}
        resolve = {
            t.host: HOST for t in ordered if not t.is_ip and t.host not in dns_hosts
        }
        return Wiring(
            probes=[
                Probe(
                    t.name,
                    t.url(self.ports[t.name]),
                    t.stream_s * self.scale,
                    t.protocol,
                    None if t.timeout_s is None else t.timeout_s * self.scale,
                )
                for t in ordered
            ],
            resolve=resolve,
            ca_file=None if self._authority is None else self._authority.files.cert,
            dns_server=self._dns_server,
            ports=dict(self.ports),
            wrong_addresses=sorted(
                {t.params["address"] for t in ordered if t.kind == "dns_wrong_address"}
            ),
        )

    async def start(self, target: Target) -> None:
        key = json.dumps(
            [target.scheme, target.host, target.kind, target.params], sort_keys=True
        )
        if key in self.shared:
            self.ports[target.name] = self.shared[key]
        else:
            self.ports[target.name] = self.shared[key] = await self._listen(target)
        if target.kind in DNS_FAULTS:
            await self._add_dns(target)

    async def _add_dns(self, target: Target) -> None:
        if target.kind == "dns_nxdomain":
            self.dns_records[target.host] = 3
        elif target.kind == "dns_servfail":
            self.dns_records[target.host] = 2
        elif target.kind == "dns_wrong_address":
            self.dns_records[target.host] = [target.params["address"]]
        else:
            self.dns_records[target.host] = [HOST]
            self.dns_delays[target.host] = target.params["delay_s"] * self.scale
        if self._dns_server is None:
            # One server for the scenario; it reads the tables at query time, so later targets count.
            port = await self.listeners.dns_server(
                self.dns_records, delays=self.dns_delays
            )
            self._dns_server = f"{HOST}:{port}"

    def _tls(self, target: Target) -> ssl.SSLContext | None:
        if target.scheme != "https":
            return None
        names = [target.host]
        stem = f"t{len(self.ports)}-{target.name}"
        cert: CertFiles
        now = dt.datetime.now(dt.UTC)
        if target.kind == "tls_expired":
            ago = dt.timedelta(seconds=target.params["expired_s_ago"])
            cert = self.authority.issue(
                stem,
                names,
                not_before=now - ago - dt.timedelta(days=90),
                not_after=now - ago,
            )
        elif target.kind == "tls_self_signed":
            cert = self_signed(
                self.folder,
                stem,
                names,
                not_before=now - dt.timedelta(days=30),
                not_after=now + dt.timedelta(days=335),
            )
        elif target.kind == "tls_wrong_host":
            cert = self.authority.issue(stem, list(target.params["cert_names"]))
        elif target.kind == "tls_wrong_chain":
            # Signed by a CA the trust bundle does not hold, and no chain sent that leads to ours.
            other = CertAuthority(self.folder / f"{stem}-ca", name="other CA")
            cert = other.issue(stem, names)
        else:
            cert = self.authority.issue(stem, names)
        return server_ssl_context(cert.cert, cert.key)

    async def _listen(self, target: Target) -> int:
        kind, p = target.kind, target.params
        listeners = self.listeners
        if kind == "connect_refused":
            return listeners.closed_port()
        if kind == "connect_timeout":
            return listeners.backlog_full()
        if kind == "silent":
            return await listeners.silent()
        if kind == "idle_cut_proxy":
            return await listeners.idle_cut_proxy(
                self.ports[p["upstream"]],
                idle_timeout_s=p["idle_timeout_s"] * self.scale,
            )
        return await listeners.http(
            self._handler(target), ssl_context=self._tls(target)
        )

    def _handler(self, target: Target) -> Any:
        kind, p = target.kind, target.params
        scale = self.scale
        if kind in ("http_status", "slow_first_byte"):
            return _status_handler(p, scale)
        if kind == "sse":
            return _sse_handler(p["heartbeat_s"] * scale, None, p["data"])
        if kind == "stream_cut":
            return _sse_handler(
                p["heartbeat_s"] * scale, p["after_s"] * scale, '{"status": "ok"}'
            )
        if kind == "reset_mid_body":
            return _reset_handler(p["status"], p["after_bytes"], p["paths"])
        if kind == "gateway":
            return self._gateway(target)
        if kind == "jsonrpc_error":
            return _jsonrpc_handler(p["code"], p["message"])
        # ok, tls_*, dns_*: a healthy server (behind whatever the fault breaks before HTTP)
        status = p.get("status", 200)
        body = p.get("body", '{"status": "ok"}')
        headers = p.get("headers", {})

        async def healthy(request: Request, writer: asyncio.StreamWriter) -> Response:
            return Response(status, body, {**_content_type(body), **headers})

        return healthy

    def _gateway(self, target: Target) -> Any:
        replicas = [self.targets[name] for name in upstreams(target)]
        server = target.params["server"]
        route_timeout = target.params["route_timeout_s"]
        timeout = (
            _UPSTREAM_TIMEOUT_S if route_timeout is None else route_timeout * self.scale
        )
        turn = itertools.cycle(range(len(replicas)))
        contexts = {
            r.name: ssl.create_default_context(cafile=str(self.authority.files.cert))
            for r in replicas
            if r.scheme == "https"
        }

        async def gateway(request: Request, writer: asyncio.StreamWriter) -> Response:
            # Replicas in turn (round robin), as a load-balanced cluster sends requests.
            upstream = replicas[next(turn)]
            if upstream.kind in ("dns_nxdomain", "dns_servfail"):
                # Envoy's strict-DNS cluster has no endpoints when its name does not resolve.
                return Response(503, "no healthy upstream", {"Server": server})
            if upstream.kind == "dns_wrong_address":
                # The name resolves to an address where nothing listens: the connect is refused.
                return _upstream_failure("delayed connect error: 111", server)
            context = contexts.get(upstream.name)
            try:
                status, body = await fetch_status(
                    HOST,
                    self.ports[upstream.name],
                    path=request.path,
                    ssl_context=context,
                    server_hostname=upstream.host,
                    timeout=timeout,
                )
            except ssl.SSLCertVerificationError as exc:
                reason = f"TLS_error:|CERTIFICATE_VERIFY_FAILED: {exc.verify_message}"
            except TimeoutError:
                return Response(504, "upstream request timeout", {"Server": server})
            except ConnectionRefusedError:
                reason = "delayed connect error: 111"
            except (OSError, ssl.SSLError, ValueError, IndexError) as exc:
                reason = f"connection_failure: {exc!r}"
            else:
                return Response(status, body, {"Server": server})
            return _upstream_failure(reason, server)

        return gateway


def _upstream_failure(reason: str, server: str) -> Response:
    """Envoy's 502 for an upstream it could not reach, naming the transport failure."""
    return Response(
        502,
        "upstream connect error or disconnect/reset before headers. reset reason: connection failure, "
        f"transport failure reason: {reason}",
        {"Server": server},
    )


def _content_type(body: str) -> dict[str, str]:
    if body.lstrip().startswith(("{", "[")):
        return {"Content-Type": "application/json"}
    return {}


def _path_response(answer: dict[str, Any]) -> Response:
    """A `paths` entry's answer: its own body and headers, or a bare status's default body."""
    status = answer["status"]
    body = answer["body"]
    if body is None:
        body = '{"status": "ok"}' if status < 400 else ""
    return Response(status, body, {**_content_type(body), **answer["headers"]})


def _status_handler(p: dict[str, Any], scale: float) -> Any:
    default_body = p.get("body")
    paths: dict[str, dict[str, Any]] = p.get("paths", {})
    headers: dict[str, str] = p.get("headers", {})
    delay = p.get("delay_s", 0) * scale

    async def answer(request: Request, writer: asyncio.StreamWriter) -> Response:
        route = request.path.split("?", 1)[0]
        if route in paths:
            return _path_response(paths[route])
        if delay > 0:
            await asyncio.sleep(delay)
        status = p["status"]
        body = default_body if default_body is not None else f"HTTP {status}\n"
        return Response(status, body, {**_content_type(body), **headers})

    return answer


def _sse_handler(heartbeat_s: float, cut_after_s: float | None, data: str) -> Any:
    async def stream(request: Request, writer: asyncio.StreamWriter) -> None:
        loop = asyncio.get_running_loop()
        start = loop.time()
        writer.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\r\n"
        )
        writer.write(f"id: 1\nevent: status\ndata: {data}\n\n".encode())
        await writer.drain()
        while True:
            wait = heartbeat_s
            if cut_after_s is not None:
                left = cut_after_s - (loop.time() - start)
                if left <= 0:
                    return  # the proxy's stream limit: the connection closes (FIN)
                wait = min(wait, left)
            await asyncio.sleep(wait)
            if cut_after_s is None or loop.time() - start < cut_after_s:
                writer.write(b": heartbeat\n\n")
                await writer.drain()

    return stream


def _reset_handler(
    status: int, after_bytes: int, paths: dict[str, dict[str, Any]] | None = None
) -> Any:
    answers = paths or {}

    async def reset(request: Request, writer: asyncio.StreamWriter) -> Response | None:
        route = request.path.split("?", 1)[0]
        if route in answers:
            return _path_response(answers[route])
        body = b'{"items": [' + b'{"id": 1}, ' * (after_bytes // 10 + 64)
        writer.write(
            f"HTTP/1.1 {status} OK\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body) + 2}\r\n\r\n".encode()
        )
        await writer.drain()
        # Headers first, then part of the body, then the crash: a client has read what was sent
        # before the RST arrives (an RST on top of unread data would drop it, at random).
        await asyncio.sleep(_RESET_PAUSE_S)
        writer.write(body[:after_bytes])
        await writer.drain()
        await asyncio.sleep(_RESET_PAUSE_S)
        sock = writer.get_extra_info("socket")
        if sock is not None:
            # SO_LINGER 0: close() sends RST instead of FIN, as a crashing worker's kernel does.
            sock.setsockopt(
                socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0)
            )
        writer.transport.abort()
        return None

    return reset


def _jsonrpc_handler(code: int, message: str) -> Any:
    async def endpoint(request: Request, writer: asyncio.StreamWriter) -> Response:
        if request.method != "POST":
            return Response(405, "Method Not Allowed", {"Allow": "POST"})
        try:
            request_id = json.loads(request.body or b"{}").get("id")
        except (ValueError, AttributeError):
            request_id = None
        payload = {
            "jsonrpc": "2.0",
            "id": request_id,
            "error": {"code": code, "message": message},
        }
        return Response(200, json.dumps(payload), {"Content-Type": "application/json"})

    return endpoint
