"""The layered probe (seed 000 §1.2, §2.4): DNS → TCP connect → TLS → HTTP, each timed and judged alone.

Success at one layer only covers that layer, so every layer gets its own timer, timeout and
evidence, and the result names the first layer that failed. Steps of `Prober.probe`:

1. parse and check the URL against the allowlist (no lookup happens for a refused URL);
2. resolve (override table or system resolver), then refuse forbidden resolved addresses;
3. connect to the checked addresses in order; the first that answers is used (no second lookup,
   so a rebinding resolver cannot swap the address after the check);
4. for https, handshake with verification; on a verification failure read the certificate anyway
   in a second, unverified handshake so the evidence shows subject, SAN and expiry;
5. send one GET, time the first byte, read the status line and headers, then the body to its end
   (bounded in size and time; only an excerpt is kept), so a reset or a short body fails at http;
   for `stream_s > 0` keep reading an event stream to see whether something cuts it;
6. with `protocol="mcp"`, POST a JSON-RPC `initialize` instead of the GET and judge the answer at
   the mcp layer (`mcpservers.netcheck.mcp_layer`); a session the server opened is then DELETEd.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import ipaddress
import socket
import ssl
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from mcpservers._common import mask_secrets
from mcpservers.netcheck import mcp_layer
from mcpservers.netcheck.policy import AllowEntry, IPAddress, Policy, normalize_host
from mcpservers.netcheck.resolver import ResolveError, Resolver

if TYPE_CHECKING:
    from collections.abc import AsyncGenerator, Mapping, Sequence

USER_AGENT = "agentops-netcheck/1"
MAX_HEADER_BYTES = 64 * 1024
BODY_EXCERPT_BYTES = 512
# The body is read to its end up to this many bytes (to see a reset or a short body), never kept.
MAX_BODY_BYTES = 1 << 20
PROTOCOLS = ("http", "mcp")
MAX_TIMEOUT_S = 30.0
MAX_STREAM_S = 120.0

# OpenSSL X509_V_ERR_* codes → (reason, wording).
_VERIFY_REASONS = {
    9: ("certificate_not_yet_valid", "certificate is not yet valid"),
    10: ("certificate_expired", "certificate expired"),
    18: ("certificate_untrusted", "self-signed certificate not trusted"),
    19: ("certificate_untrusted", "self-signed certificate in chain not trusted"),
    20: ("certificate_untrusted", "issuer certificate not found in the trust store"),
    21: ("certificate_untrusted", "unable to verify the first certificate"),
    62: ("certificate_name_mismatch", "certificate name mismatch"),
    64: ("certificate_name_mismatch", "certificate IP address mismatch"),
}


class BadArgument(ValueError):
    """An argument a caller can fix; the message says how."""


@dataclass(frozen=True)
class Timeouts:
    """Per-layer timeouts in seconds; each layer gets its own budget."""

    dns: float = 3.0
    connect: float = 3.0
    tls: float = 3.0
    http: float = 5.0

    @classmethod
    def uniform(cls, seconds: float) -> Timeouts:
        return cls(dns=seconds, connect=seconds, tls=seconds, http=seconds)


@dataclass(frozen=True)
class Target:
    url: str
    scheme: str
    host: str
    port: int
    path: str  # path plus query, as sent in the request line

    @classmethod
    def parse(cls, url: str) -> Target:
        if not isinstance(url, str) or not url.strip():
            raise BadArgument(
                "url is empty; pass an absolute URL such as https://api.example.internal/health"
            )
        parts = urlsplit(url.strip())
        if parts.scheme not in ("http", "https"):
            raise BadArgument(
                f"url {url!r}: scheme must be http or https, e.g. https://{parts.netloc or 'host.example'}{parts.path or '/'}"
            )
        if not parts.hostname:
            raise BadArgument(
                f"url {url!r} has no host; pass an absolute URL such as https://host:8443/health"
            )
        if parts.username or parts.password:
            raise BadArgument(
                f"url {url!r}: credentials in URLs are not accepted; probe the URL without them"
            )
        try:
            port = parts.port
        except ValueError:
            raise BadArgument(
                f"url {url!r}: the port must be a number between 1 and 65535"
            ) from None
        if port == 0:
            raise BadArgument(
                f"url {url!r}: the port must be a number between 1 and 65535"
            )
        path = parts.path or "/"
        if parts.query:
            path = f"{path}?{parts.query}"
        if any(c in path for c in "\r\n ") or any(
            c in parts.hostname for c in "\r\n /"
        ):
            raise BadArgument(
                f"url {url!r} contains spaces or line breaks; percent-encode them"
            )
        scheme = parts.scheme
        try:
            host = normalize_host(parts.hostname).encode("idna").decode("ascii")
        except UnicodeError:
            raise BadArgument(
                f"url {url!r}: {parts.hostname!r} is not a valid host name"
            ) from None
        return cls(
            url=url.strip(),
            scheme=scheme,
            host=host,
            port=port or (443 if scheme == "https" else 80),
            path=path,
        )

    @property
    def host_header(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        default = 443 if self.scheme == "https" else 80
        return host if self.port == default else f"{host}:{self.port}"


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 1)


@dataclass
class _Result:
    target: Target
    failed_layer: str = "none"
    reason: str | None = None
    evidence: list[str] = field(default_factory=list)
    timings: dict[str, float | None] = field(
        default_factory=lambda: {
            "dns_ms": None,
            "connect_ms": None,
            "tls_ms": None,
            "ttfb_ms": None,
        }
    )
    addresses: list[str] = field(default_factory=list)
    resolver: str | None = None
    address: str | None = None
    attempts: list[dict[str, Any]] = field(default_factory=list)
    tls: dict[str, Any] | None = None
    certificate: dict[str, Any] | None = None
    http: dict[str, Any] | None = None
    stream: dict[str, Any] | None = None
    mcp: dict[str, Any] | None = None
    # The Mcp-Session-Id an initialize opened: ended with DELETE, never put in the result.
    mcp_session: str | None = None

    def fail(self, layer: str, reason: str, *evidence: str) -> None:
        if self.failed_layer == "none":
            self.failed_layer = layer
            self.reason = reason
        self.evidence.extend(evidence)

    def as_dict(self, total_s: float) -> dict[str, Any]:
        return {
            "url": self.target.url,
            "status": self.http["status"] if self.http else None,
            "failed_layer": self.failed_layer,
            "reason": self.reason,
            "evidence": self.evidence,
            **self.timings,
            "total_ms": _ms(total_s),
            "resolver": self.resolver,
            "addresses": self.addresses,
            "address": self.address,
            "port": self.target.port,
            "connect_attempts": self.attempts,
            "tls": self.tls,
            "certificate": self.certificate,
            "http": self.http,
            "stream": self.stream,
            "mcp": self.mcp,
        }


def describe_certificate(
    der: bytes, *, host: str, now: dt.datetime | None = None
) -> dict[str, Any]:
    """Subject, issuer, SAN, validity and the problems a client would hit, from a DER certificate."""
    # Imported here, not at start: only a TLS probe reads a certificate.
    from cryptography import x509
    from cryptography.x509.oid import NameOID

    now = now or dt.datetime.now(dt.UTC)
    cert = x509.load_der_x509_certificate(der)
    try:
        san_ext = cert.extensions.get_extension_for_class(
            x509.SubjectAlternativeName
        ).value
        dns_names = san_ext.get_values_for_type(x509.DNSName)
        ip_names = [str(ip) for ip in san_ext.get_values_for_type(x509.IPAddress)]
    except x509.ExtensionNotFound:
        dns_names, ip_names = [], []
    not_before = cert.not_valid_before_utc
    not_after = cert.not_valid_after_utc
    self_signed = cert.issuer == cert.subject
    common_names = [
        str(a.value) for a in cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)
    ]
    problems: list[str] = []
    if now > not_after:
        problems.append(
            f"expired {_ago(now - not_after)} ago ({not_after.isoformat()})"
        )
    if now < not_before:
        problems.append(f"not valid before {not_before.isoformat()}")
    if not _host_matches(host, dns_names, ip_names):
        listed = ", ".join(dns_names + ip_names) or "no SAN entries"
        problems.append(f"name mismatch: {host} is not in the SAN ({listed})")
    if self_signed:
        problems.append("self-signed")
    return {
        "subject": cert.subject.rfc4514_string(),
        "common_name": common_names[0] if common_names else None,
        "issuer": cert.issuer.rfc4514_string(),
        "san": dns_names + ip_names,
        "not_before": not_before.isoformat(),
        "not_after": not_after.isoformat(),
        "expires_in_days": round((not_after - now).total_seconds() / 86400, 2),
        "self_signed": self_signed,
        "serial": format(cert.serial_number, "x"),
        "problems": problems,
    }


def _ago(delta: dt.timedelta) -> str:
    seconds = int(delta.total_seconds())
    if seconds >= 2 * 86400:
        return f"{seconds // 86400} days"
    if seconds >= 2 * 3600:
        return f"{seconds // 3600} hours"
    if seconds >= 120:
        return f"{seconds // 60} minutes"
    return f"{seconds} seconds"


def _host_matches(host: str, dns_names: list[str], ip_names: list[str]) -> bool:
    try:
        return str(ipaddress.ip_address(host)) in ip_names
    except ValueError:
        pass
    for name in (n.lower().rstrip(".") for n in dns_names):
        if name == host:
            return True
        # RFC 6125: a wildcard covers exactly one left-most label
        if name.startswith("*.") and "." in host and host.split(".", 1)[1] == name[2:]:
            return True
    return False


def _parse_headers(raw: bytes) -> tuple[str, int, str, dict[str, str]]:
    lines = raw.decode("latin-1").split("\r\n")
    status_line = lines[0]
    parts = status_line.split(" ", 2)
    if (
        len(parts) < 2
        or not parts[0].startswith("HTTP/")
        or not parts[1].isdigit()
        or len(parts[1]) != 3
    ):
        raise ValueError(f"malformed status line {status_line[:80]!r}")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if not line:
            continue
        name, sep, value = line.partition(":")
        if sep:
            key = name.strip().lower()
            headers[key] = (
                f"{headers[key]}, {value.strip()}" if key in headers else value.strip()
            )
    return parts[0], int(parts[1]), parts[2] if len(parts) > 2 else "", headers


_KEPT_HEADERS = (
    "server",
    "via",
    "content-type",
    "content-length",
    "transfer-encoding",
    "location",
    "retry-after",
    "x-upstream",
)


class Prober:
    """Probe URLs allowed by `policy`, resolving with `resolver` and verifying TLS with `ssl_context`."""

    def __init__(
        self,
        *,
        policy: Policy,
        resolver: Resolver | None = None,
        ssl_context: ssl.SSLContext | None = None,
        timeouts: Timeouts | None = None,
        mcp_endpoints: Sequence[str] = (),
        target_timeouts: Mapping[str, float] | None = None,
    ) -> None:
        self.policy = policy
        self.resolver = resolver or Resolver()
        self.ssl_context = ssl_context or ssl.create_default_context()
        self.timeouts = timeouts or Timeouts()
        # URL → the per-layer timeout its probes get when the caller gives none (a target known
        # to be slow, or one whose operators give it less time).
        self.target_timeouts = dict(target_timeouts or {})
        for url, seconds in self.target_timeouts.items():
            if not 0 < seconds <= MAX_TIMEOUT_S:
                raise BadArgument(
                    f"the timeout for {url} must be > 0 and <= {MAX_TIMEOUT_S:g} seconds, got {seconds}"
                )
        # Allowlisted URLs that serve MCP (Streamable HTTP), as list_targets names them: probe
        # these with protocol="mcp". Each must also be covered by the policy.
        self.mcp_endpoints = tuple(str(AllowEntry.parse(u)) for u in mcp_endpoints)

    def target_timeout(self, url: str) -> float | None:
        """The per-layer timeout configured for `url`: its own; for a bare origin (how
        list_targets names an allowlist entry: scheme, host and port, no path), that of a
        configured URL under it."""
        url = url.strip()
        if url in self.target_timeouts:
            return self.target_timeouts[url]
        try:
            bare = urlsplit(url).path == ""
        except ValueError:
            return None
        origin = _origin(url) if bare else None
        return next(
            (
                seconds
                for configured, seconds in self.target_timeouts.items()
                if origin is not None and _origin(configured) == origin
            ),
            None,
        )

    async def probe(
        self,
        url: str,
        *,
        timeout_s: float | None = None,
        stream_s: float = 0.0,
        protocol: str = "http",
    ) -> dict[str, Any]:
        """Probe `url` layer by layer and return timings, certificate, status and the first failed layer.

        `protocol="mcp"` replaces the GET with an MCP `initialize` POST and judges the answer at
        the mcp layer (result["mcp"]: serverInfo and protocolVersion, or the JSON-RPC error).

        Raises:
            BadArgument: the URL or an option is malformed or out of range.
            TargetRefused: the URL, or an address it resolves to, may not be probed.
        """
        if protocol not in PROTOCOLS:
            raise BadArgument(
                f"protocol must be one of {', '.join(PROTOCOLS)}, got {protocol!r}"
            )
        if timeout_s is not None and not 0 < timeout_s <= MAX_TIMEOUT_S:
            raise BadArgument(
                f"timeout_s must be > 0 and <= {MAX_TIMEOUT_S:g} seconds (per layer), got {timeout_s}"
            )
        if not 0 <= stream_s <= MAX_STREAM_S:
            raise BadArgument(
                f"stream_s must be between 0 and {MAX_STREAM_S:g} seconds, got {stream_s}"
            )
        if timeout_s is None:
            timeout_s = self.target_timeout(url)
        timeouts = self.timeouts if timeout_s is None else Timeouts.uniform(timeout_s)
        target = Target.parse(url)
        self.policy.check_url(
            scheme=target.scheme, host=target.host, port=target.port, path=target.path
        )
        started = time.perf_counter()
        result = _Result(target)
        addresses = await self._resolve(result, timeouts.dns)
        if addresses is not None:
            self.policy.check_addresses(target.host, addresses)
            connected = await self._connect(result, addresses, timeouts.connect)
            if connected is not None:
                reader, writer = connected
                try:
                    if target.scheme == "https":
                        tls_ok = await self._handshake(result, writer, timeouts.tls)
                    else:
                        tls_ok = True
                    if tls_ok:
                        await self._http(
                            result, reader, writer, timeouts.http, stream_s, protocol
                        )
                finally:
                    # The request said Connection: close and nothing is left to flush; abort
                    # rather than wait on a peer that may never finish a TLS close.
                    writer.transport.abort()
                if result.mcp_session:
                    await self._end_session(result, result.mcp_session, timeouts)
        return result.as_dict(time.perf_counter() - started)

    async def _resolve(self, result: _Result, timeout: float) -> list[IPAddress] | None:
        target = result.target
        t0 = time.perf_counter()
        try:
            addresses, source = await asyncio.wait_for(
                self.resolver.resolve(target.host, target.port), timeout
            )
        except TimeoutError:
            result.timings["dns_ms"] = _ms(time.perf_counter() - t0)
            result.resolver = self.resolver.source_for(target.host)
            result.fail(
                "dns",
                "timeout",
                f"no DNS answer for {target.host} within {timeout:g} s",
            )
            return None
        except ResolveError as exc:
            result.timings["dns_ms"] = _ms(time.perf_counter() - t0)
            result.resolver = self.resolver.source_for(target.host)
            result.fail("dns", exc.reason, str(exc))
            return None
        result.timings["dns_ms"] = (
            0.0 if source == "literal" else _ms(time.perf_counter() - t0)
        )
        result.resolver = source
        result.addresses = [str(a) for a in addresses]
        return addresses

    async def _connect(
        self, result: _Result, addresses: list[IPAddress], timeout: float
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
        loop = asyncio.get_running_loop()
        port = result.target.port
        failures: list[tuple[str, str]] = []
        for address in addresses:
            family = socket.AF_INET6 if address.version == 6 else socket.AF_INET
            sock = socket.socket(family, socket.SOCK_STREAM)
            sock.settimeout(0)  # non-blocking, for loop.sock_connect
            t0 = time.perf_counter()
            try:
                await asyncio.wait_for(
                    loop.sock_connect(sock, (str(address), port)), timeout
                )
            except TimeoutError:
                reason, text = (
                    "timeout",
                    f"no SYN-ACK from {address}:{port} within {timeout:g} s (filtered, blackholed or backlog full)",
                )
            except ConnectionRefusedError:
                reason, text = (
                    "refused",
                    f"connection refused by {address}:{port} (RST: nothing listens on that port)",
                )
            except OSError as exc:
                reason, text = (
                    "unreachable",
                    f"connect to {address}:{port} failed: {exc.strerror or exc}",
                )
            except BaseException:
                sock.close()  # cancelled (the caller gave up): do not leak the socket
                raise
            else:
                result.timings["connect_ms"] = _ms(time.perf_counter() - t0)
                result.address = str(address)
                result.attempts.append(
                    {
                        "address": str(address),
                        "ok": True,
                        "ms": result.timings["connect_ms"],
                    }
                )
                reader, writer = await asyncio.open_connection(
                    sock=sock, limit=MAX_HEADER_BYTES
                )
                return reader, writer
            sock.close()
            result.timings["connect_ms"] = _ms(time.perf_counter() - t0)
            result.attempts.append(
                {"address": str(address), "ok": False, "reason": reason}
            )
            failures.append((reason, text))
        result.fail("connect", failures[0][0], *(text for _, text in failures))
        return None

    async def _handshake(
        self, result: _Result, writer: asyncio.StreamWriter, timeout: float
    ) -> bool:
        target = result.target
        t0 = time.perf_counter()
        try:
            await asyncio.wait_for(
                writer.start_tls(self.ssl_context, server_hostname=target.host), timeout
            )
        except TimeoutError:
            result.timings["tls_ms"] = _ms(time.perf_counter() - t0)
            result.fail(
                "tls",
                "timeout",
                f"TCP connected but no TLS handshake from {result.address}:{target.port} within {timeout:g} s",
            )
            return False
        except ssl.SSLCertVerificationError as exc:
            result.timings["tls_ms"] = _ms(time.perf_counter() - t0)
            reason, wording = _VERIFY_REASONS.get(
                exc.verify_code, ("certificate_invalid", "certificate rejected")
            )
            result.fail(
                "tls",
                reason,
                f"{wording}: {exc.verify_message} (OpenSSL verify code {exc.verify_code})",
            )
            await self._read_unverified_certificate(result, timeout)
            return False
        except (ssl.SSLError, ConnectionError, OSError) as exc:
            result.timings["tls_ms"] = _ms(time.perf_counter() - t0)
            detail = getattr(exc, "reason", None) or exc.__class__.__name__
            result.fail(
                "tls",
                "handshake_failed",
                f"TLS handshake with {result.address}:{target.port} failed: {detail} ({exc})",
            )
            return False
        result.timings["tls_ms"] = _ms(time.perf_counter() - t0)
        ssl_object = writer.get_extra_info("ssl_object")
        result.tls = {
            "verified": True,
            "version": ssl_object.version(),
            "cipher": (ssl_object.cipher() or (None,))[0],
            "alpn": ssl_object.selected_alpn_protocol(),
            "sni": target.host,
        }
        der = ssl_object.getpeercert(binary_form=True)
        if der:
            result.certificate = describe_certificate(der, host=target.host)
        return True

    async def _read_unverified_certificate(
        self, result: _Result, timeout: float
    ) -> None:
        # Verification failed, so the first connection is gone; a second handshake that does not
        # verify reads the certificate a person needs to see (subject, SAN, expiry).
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        target = result.target
        result.tls = {"verified": False, "sni": target.host}
        try:
            _reader, writer = await asyncio.wait_for(
                asyncio.open_connection(
                    result.address,
                    target.port,
                    ssl=context,
                    server_hostname=target.host,
                ),
                timeout,
            )
        except (TimeoutError, OSError) as exc:
            result.evidence.append(
                f"could not re-read the certificate without verification: {exc!r}"
            )
            return
        try:
            ssl_object = writer.get_extra_info("ssl_object")
            result.tls["version"] = ssl_object.version()
            der = ssl_object.getpeercert(binary_form=True)
            if der:
                result.certificate = describe_certificate(der, host=target.host)
                result.evidence.extend(
                    f"certificate: {p}" for p in result.certificate["problems"]
                )
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(writer.wait_closed(), 1.0)

    async def _http(
        self,
        result: _Result,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        timeout: float,
        stream_s: float,
        protocol: str,
    ) -> None:
        target = result.target
        where = f"{result.address}:{target.port}"
        if protocol == "mcp":
            request = mcp_layer.initialize_request(target.path, target.host_header)
        else:
            request = (
                f"GET {target.path} HTTP/1.1\r\nHost: {target.host_header}\r\nUser-Agent: {USER_AGENT}\r\n"
                f"Accept: */*\r\nConnection: close\r\n\r\n"
            ).encode("latin-1")
        t0 = time.perf_counter()
        try:
            writer.write(request)
            await asyncio.wait_for(writer.drain(), timeout)
            first = await asyncio.wait_for(reader.read(1), timeout)
            if not first:
                result.timings["ttfb_ms"] = None
                result.fail(
                    "http",
                    "empty_reply",
                    f"{where} closed the connection without answering the request",
                )
                return
            result.timings["ttfb_ms"] = _ms(time.perf_counter() - t0)
            rest = await asyncio.wait_for(
                reader.readuntil(b"\r\n\r\n"),
                max(timeout - (time.perf_counter() - t0), 0.05),
            )
        except TimeoutError:
            result.fail(
                "http",
                "timeout",
                f"connected{' and TLS ok' if target.scheme == 'https' else ''}, but no response from {where} "
                f"within {timeout:g} s of sending the request (slow or stuck upstream)",
            )
            return
        except asyncio.IncompleteReadError:
            result.fail(
                "http",
                "connection_closed",
                f"{where} closed the connection in the middle of the response headers",
            )
            return
        except asyncio.LimitOverrunError:
            result.fail(
                "http",
                "malformed_response",
                f"{where} sent more than {MAX_HEADER_BYTES} bytes of headers",
            )
            return
        except (ConnectionError, OSError, ssl.SSLError) as exc:
            result.fail(
                "http",
                "connection_reset",
                f"connection to {where} lost while waiting for the response: {exc!r}",
            )
            return
        try:
            version, status, phrase, headers = _parse_headers(first + rest)
        except ValueError as exc:
            result.fail(
                "http", "malformed_response", f"{where} did not answer HTTP: {exc}"
            )
            return
        result.http = {
            "status": status,
            "reason": phrase,
            "version": version,
            "headers": {k: headers[k] for k in _KEPT_HEADERS if k in headers},
            "body_excerpt": None,
        }
        content_type = headers.get("content-type", "").split(";")[0].strip().lower()
        is_stream = content_type == "text/event-stream"
        body = _Body(reader, headers, status=status, timeout=timeout)
        if protocol == "mcp" and status < 400:
            result.mcp_session = headers.get("mcp-session-id") or None
            await self._mcp(result, body, content_type, where)
            return
        if is_stream and stream_s > 0:
            await self._watch_stream(result, reader, stream_s)
        elif is_stream:
            # An event stream does not end: the head of it is all there is to read.
            await body.read_excerpt(min(timeout, 2.0))
        else:
            await body.read_to_end()
        # The excerpt ends up in a model's context: an error page may echo credentials.
        result.http["body_excerpt"] = body.excerpt_text()
        if not is_stream:
            result.http["body_bytes"] = body.received
            result.http["body_complete"] = body.complete
        if status >= 400:
            evidence = f"HTTP {status} {phrase} from {where}"
            if status in (502, 503, 504):
                evidence += (
                    " (a gateway or the service itself reports its upstream failing)"
                )
            if result.http["body_excerpt"]:
                evidence += f"; body: {result.http['body_excerpt'][:200]!r}"
            result.fail("http", f"http_{status}", evidence)
            if protocol == "mcp":
                # An MCP server often explains a 4xx with a JSON-RPC error (no session, bad Accept).
                error = mcp_layer.error_in(body.data)
                if error is not None:
                    result.mcp = error
                    result.evidence.append(mcp_layer.describe_error(error))
        if body.error is not None:
            result.fail("http", *body.error)

    async def _mcp(
        self, result: _Result, body: _Body, content_type: str, where: str
    ) -> None:
        """Judge the answer to `initialize` at the mcp layer; transport trouble stays at http."""
        assert result.http is not None
        status = result.http["status"]
        is_stream = content_type == "text/event-stream"
        if is_stream:
            outcome = await mcp_layer.read_sse_response(body.chunks())
        else:
            await body.read_to_end()
            outcome = mcp_layer.Outcome(
                message=body.data if body.complete and body.data.strip() else None
            )
        result.http["body_excerpt"] = body.excerpt_text()
        result.http["body_bytes"] = body.received
        result.http["body_complete"] = body.complete
        if is_stream and body.error is not None and body.error[0] == "body_timeout":
            # HTTP delivered (status and an open stream); the MCP server never answered on it.
            result.fail(
                "mcp",
                "timeout",
                f"{where} opened an event stream for initialize but sent no JSON-RPC response "
                f"within {body.timeout:g} s ({outcome.events} other events)",
            )
            return
        if body.error is not None:
            result.fail("http", *body.error)
            return
        if content_type not in ("application/json", "text/event-stream"):
            result.fail(
                "mcp",
                "malformed_response",
                f"{where} answered initialize with HTTP {status} and Content-Type "
                f"{content_type or '(none)'}, not JSON-RPC (application/json or text/event-stream)",
            )
            return
        verdict = mcp_layer.judge_initialize(outcome)
        result.mcp = verdict.details
        if verdict.reason is None:
            result.evidence.append(verdict.evidence)
        else:
            result.fail("mcp", verdict.reason, f"{where}: {verdict.evidence}")

    async def _end_session(
        self, result: _Result, session: str, timeouts: Timeouts
    ) -> None:
        # The server opened a session for the probe's initialize; DELETE ends it (spec: a client
        # SHOULD). Best effort, on a fresh connection to the checked address: never a failure.
        target = result.target
        assert result.address is not None
        if result.mcp is None:
            result.mcp = {}
        context = self.ssl_context if target.scheme == "https" else None
        try:
            reader, writer = await asyncio.wait_for(
                asyncio.open_connection(
                    result.address,
                    target.port,
                    ssl=context,
                    server_hostname=target.host if context else None,
                ),
                timeouts.connect + timeouts.tls,
            )
        except (TimeoutError, OSError, ssl.SSLError) as exc:
            result.mcp["session_deleted"] = None
            result.evidence.append(f"could not end the MCP session: {exc!r}")
            return
        try:
            writer.write(
                mcp_layer.delete_request(target.path, target.host_header, session)
            )
            line = await asyncio.wait_for(reader.readline(), timeouts.http)
            parts = line.decode("latin-1").split(" ", 2)
            status = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else None
            result.mcp["session_deleted"] = status
        except (TimeoutError, OSError, ssl.SSLError, ValueError) as exc:
            result.mcp["session_deleted"] = None
            result.evidence.append(f"could not end the MCP session: {exc!r}")
        finally:
            writer.transport.abort()

    async def _watch_stream(
        self, result: _Result, reader: asyncio.StreamReader, stream_s: float
    ) -> None:
        loop = asyncio.get_running_loop()
        start = last = loop.time()
        received = 0
        events = 0
        tail = b""
        closed_by = "probe"
        error: str | None = None
        while (remaining := stream_s - (loop.time() - start)) > 0:
            try:
                chunk = await asyncio.wait_for(reader.read(4096), remaining)
            except TimeoutError:
                break
            except (ConnectionError, OSError, ssl.SSLError) as exc:
                closed_by, error = "peer", repr(exc)
                break
            if not chunk:
                closed_by = "peer"
                break
            last = loop.time()
            received += len(chunk)
            data = tail + chunk
            events += data.count(b"\n\n")
            tail = data[-1:]
        end = loop.time()
        result.stream = {
            "watched_s": stream_s,
            "bytes": received,
            "events": events,
            "closed_by": closed_by,
            "closed_after_ms": _ms(end - start) if closed_by == "peer" else None,
            "idle_before_close_ms": _ms(end - last) if closed_by == "peer" else None,
        }
        if closed_by == "peer":
            how = f"reset ({error})" if error else "closed"
            result.fail(
                "http",
                "stream_cut",
                f"event stream {how} by the peer after {end - start:.1f} s, {end - last:.1f} s after the last byte "
                f"({events} events received); an idle timeout on a proxy in the path cuts streams this way",
            )


class _Body:
    """An HTTP/1.1 response body read off `reader` (Content-Length, chunked or until close), bounded.

    Only the first BODY_EXCERPT_BYTES are kept (`data` keeps up to MAX_BODY_BYTES for the mcp
    layer's JSON); `error` is (reason, evidence) when the body ended early: a reset, fewer bytes
    than promised, framing that is not HTTP, or no progress within `timeout` seconds in all.
    """

    def __init__(
        self,
        reader: asyncio.StreamReader,
        headers: dict[str, str],
        *,
        status: int,
        timeout: float,
    ) -> None:
        self.reader = reader
        self.timeout = timeout
        self.chunked = headers.get("transfer-encoding", "").lower().endswith("chunked")
        length = headers.get("content-length", "")
        self.length: int | None = (
            int(length) if length.isdigit() and not self.chunked else None
        )
        self.empty = status in (204, 304) or 100 <= status < 200
        self.data = b""
        self.received = 0
        self.complete = False
        self.capped = False  # stopped at MAX_BODY_BYTES: neither complete nor failed
        self.error: tuple[str, str] | None = None

    def excerpt_text(self) -> str | None:
        text = self.data[:BODY_EXCERPT_BYTES].decode("utf-8", errors="replace")
        return mask_secrets(text) if text else None

    async def read_to_end(self) -> None:
        async with contextlib.aclosing(self.chunks()) as chunks:
            async for _ in chunks:
                pass

    async def read_excerpt(self, timeout: float) -> None:
        # The head of an event stream: whatever arrives first, errors and all, is the excerpt.
        with contextlib.suppress(TimeoutError):
            async with (
                asyncio.timeout(timeout),
                contextlib.aclosing(self.chunks()) as chunks,
            ):
                async for _ in chunks:
                    if self.received >= BODY_EXCERPT_BYTES:
                        break
        self.error = None

    async def chunks(self) -> AsyncGenerator[bytes, None]:
        """The body's bytes as they arrive; on a failure sets `error` and stops."""
        if self.empty or self.length == 0:
            self.complete = True
            return
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout

        async def within(step: Any) -> Any:
            return await asyncio.wait_for(step, max(deadline - loop.time(), 0.01))

        promised = (
            f" of the {self.length} promised by Content-Length"
            if self.length is not None
            else ""
        )
        try:
            if self.chunked:
                async for piece in self._dechunk(within):
                    yield piece
            else:
                while self.length is None or self.received < self.length:
                    want = 65536 if self.length is None else self.length - self.received
                    piece = await within(self.reader.read(min(want, 65536)))
                    if not piece:
                        if self.length is not None:
                            self.error = (
                                "truncated_body",
                                f"the body ended after {self.received} bytes{promised}: "
                                "the server closed the connection mid-body",
                            )
                            return
                        break  # no length: the close ends the body
                    self._take(piece)
                    yield piece
                    if self.received >= MAX_BODY_BYTES and self.received != self.length:
                        self.capped = (
                            True  # read enough to judge; the rest is not needed
                        )
                        return
            self.complete = not self.capped
        except TimeoutError:
            self.error = (
                "body_timeout",
                f"the body stalled: {self.received} bytes{promised} within {self.timeout:g} s",
            )
        except asyncio.IncompleteReadError:
            self.error = (
                "truncated_body",
                f"the chunked body ended after {self.received} bytes, before its last chunk: "
                "the server closed the connection mid-body",
            )
        except (ValueError, asyncio.LimitOverrunError):
            self.error = (
                "malformed_response",
                f"the chunked body is not valid HTTP/1.1 chunked encoding after {self.received} bytes",
            )
        except (ConnectionError, OSError, ssl.SSLError) as exc:
            self.error = (
                "connection_reset",
                f"connection reset after {self.received} bytes of the body{promised}: {exc!r}",
            )

    def _take(self, piece: bytes) -> None:
        self.received += len(piece)
        if len(self.data) < MAX_BODY_BYTES:
            self.data += piece[: MAX_BODY_BYTES - len(self.data)]

    async def _dechunk(self, within: Any) -> AsyncGenerator[bytes, None]:
        while True:
            size_line = await within(self.reader.readline())
            if not size_line.endswith(b"\n"):
                raise asyncio.IncompleteReadError(size_line, None)
            size = int(size_line.split(b";")[0].strip(), 16)
            if size == 0:
                # Trailers, then the empty line that ends the body.
                while (await within(self.reader.readline())).strip():
                    pass
                return
            left = size
            while left:
                piece = await within(self.reader.readexactly(min(left, 65536)))
                left -= len(piece)
                self._take(piece)
                yield piece
                if self.received >= MAX_BODY_BYTES:
                    self.capped = True
                    return
            if await within(self.reader.readexactly(2)) != b"\r\n":
                raise ValueError("chunk not followed by CRLF")


_DEFAULT_PORTS = {"http": 80, "https": 443}


def _origin(url: str) -> tuple[str, str, int | None] | None:
    """(scheme, host, port) of `url`, the port defaulted by the scheme; None when it is not a URL."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if not scheme or not parts.hostname:
        return None
    return scheme, parts.hostname.lower(), port or _DEFAULT_PORTS.get(scheme)
