"""Name resolution for probes: an override table for demos, else the system resolver.

An override (`--resolve name=ip[,ip]`, `--resolve name=NXDOMAIN`, or a hosts-style file) answers
deterministically without touching the machine's resolver; every other name goes to
`loop.getaddrinfo`, so the answer is whatever the host's resolver says.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mcpservers.netcheck import dns
from mcpservers.netcheck.policy import IPAddress, normalize_host

if TYPE_CHECKING:
    from pathlib import Path

NXDOMAIN = "NXDOMAIN"


class ResolveError(Exception):
    """The name did not resolve; `reason` is a short code (nxdomain, servfail, no_address, error)."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass
class Resolver:
    """Resolve a host to IP addresses; `overrides` maps a name to addresses, or None for NXDOMAIN."""

    overrides: dict[str, list[IPAddress] | None] = field(default_factory=dict)
    # (host, port) of a DNS server to ask directly instead of the system resolver
    nameserver: tuple[str, int] | None = None

    def set_nameserver(self, spec: str) -> None:
        """Use the DNS server at `IP:PORT` (or `IP`, port 53; `[v6]:port` for IPv6)."""
        host, sep, port = spec.strip().rpartition(":")
        if not sep or (host.count(":") and not host.startswith("[")):
            host, port = spec.strip(), "53"
        try:
            address = ipaddress.ip_address(host.strip("[]"))
            number = int(port)
        except ValueError:
            raise ValueError(
                f"--dns-server {spec!r}: expected IP[:PORT], e.g. 127.0.0.1:5353"
            ) from None
        if not 0 < number < 65536:
            raise ValueError(f"--dns-server {spec!r}: port must be between 1 and 65535")
        self.nameserver = (str(address), number)

    def add_override(self, spec: str) -> None:
        """Add one `name=ip[,ip...]` or `name=NXDOMAIN` entry."""
        name, sep, value = spec.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise ValueError(
                f"--resolve {spec!r}: expected name=IP[,IP] or name=NXDOMAIN"
            )
        self.overrides[normalize_host(name)] = self._parse_value(spec, value)

    def load_hosts_file(self, path: Path) -> None:
        """Read `IP name [name...]` lines (and `NXDOMAIN name...`); `#` starts a comment."""
        for lineno, raw in enumerate(
            path.read_text(encoding="utf-8").splitlines(), start=1
        ):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            first, *names = line.split()
            if not names:
                raise ValueError(
                    f"{path}:{lineno}: expected 'IP name [name...]' or 'NXDOMAIN name...'"
                )
            value = self._parse_value(f"{path}:{lineno}", first)
            for name in names:
                known = self.overrides.get(normalize_host(name))
                if value is not None and known:
                    known.extend(a for a in value if a not in known)
                else:
                    self.overrides[normalize_host(name)] = (
                        None if value is None else list(value)
                    )

    @staticmethod
    def _parse_value(where: str, value: str) -> list[IPAddress] | None:
        if value.strip().upper() == NXDOMAIN:
            return None
        try:
            return [
                ipaddress.ip_address(v.strip().strip("[]")) for v in value.split(",")
            ]
        except ValueError:
            raise ValueError(
                f"{where}: {value!r} is neither an IP address list nor NXDOMAIN"
            ) from None

    def source_for(self, host: str) -> str:
        """Which source answers `host`: literal, override, dns-server IP:PORT or system."""
        try:
            ipaddress.ip_address(host)
        except ValueError:
            pass
        else:
            return "literal"
        if host in self.overrides:
            return "override"
        if self.nameserver is not None:
            return f"dns-server {self.nameserver[0]}:{self.nameserver[1]}"
        return "system"

    async def resolve(self, host: str, port: int) -> tuple[list[IPAddress], str]:
        """Return (addresses, source) where source is literal, override or system.

        Raises:
            ResolveError: NXDOMAIN, SERVFAIL-like failures, or a name without addresses.
        """
        try:
            return [ipaddress.ip_address(host)], "literal"
        except ValueError:
            pass
        if host in self.overrides:
            addresses = self.overrides[host]
            if addresses is None:
                raise ResolveError(
                    "nxdomain", f"NXDOMAIN: {host} does not exist (resolver override)"
                )
            return list(addresses), "override"
        if self.nameserver is not None:
            return await self._ask_nameserver(
                host
            ), f"dns-server {self.nameserver[0]}:{self.nameserver[1]}"
        loop = asyncio.get_running_loop()
        try:
            infos = await loop.getaddrinfo(
                host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP
            )
        except socket.gaierror as exc:
            raise _gaierror(host, exc) from None
        addresses: list[IPAddress] = []
        for _family, _type, _proto, _canon, sockaddr in infos:
            address = ipaddress.ip_address(str(sockaddr[0]).split("%", 1)[0])
            if address not in addresses:
                addresses.append(address)
        if not addresses:
            raise ResolveError("no_address", f"{host} resolved to no addresses")
        return addresses, "system"

    async def _ask_nameserver(self, host: str) -> list[IPAddress]:
        assert self.nameserver is not None
        where = f"{self.nameserver[0]}:{self.nameserver[1]}"
        a, aaaa = await asyncio.gather(
            dns.query(self.nameserver, host, dns.TYPE_A),
            dns.query(self.nameserver, host, dns.TYPE_AAAA),
            return_exceptions=True,
        )
        if isinstance(a, BaseException):
            if isinstance(a, OSError):
                raise ResolveError(
                    "unreachable", f"DNS server {where} unreachable: {a.strerror or a}"
                )
            raise a
        if a.rcode == 3:
            raise ResolveError(
                "nxdomain",
                f"NXDOMAIN: {host} does not exist (answer from DNS server {where})",
            )
        if a.rcode == 2:
            raise ResolveError(
                "servfail", f"SERVFAIL from DNS server {where} for {host}"
            )
        if a.rcode != 0:
            raise ResolveError(
                "error", f"DNS server {where} answered {a.rcode_name} for {host}"
            )
        addresses = list(a.addresses)
        if isinstance(aaaa, dns.Answer) and aaaa.rcode == 0:
            addresses += [x for x in aaaa.addresses if x not in addresses]
        if not addresses:
            raise ResolveError(
                "no_address",
                f"{host} exists but DNS server {where} returned no A/AAAA records",
            )
        return addresses


def _gaierror(host: str, exc: socket.gaierror) -> ResolveError:
    code = exc.args[0] if exc.args else None
    if code == socket.EAI_NONAME:
        return ResolveError(
            "nxdomain", f"NXDOMAIN: {host} does not exist ({exc.strerror})"
        )
    if code == getattr(socket, "EAI_NODATA", object()):
        return ResolveError(
            "no_address", f"{host} exists but has no A/AAAA records ({exc.strerror})"
        )
    if code == socket.EAI_AGAIN:
        return ResolveError(
            "servfail",
            f"temporary resolver failure for {host} (SERVFAIL or no answer: {exc.strerror})",
        )
    return ResolveError("error", f"resolving {host} failed: {exc.strerror or exc}")
