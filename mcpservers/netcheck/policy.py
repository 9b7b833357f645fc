"""Which targets netcheck may probe: the allowlist given at start and the addresses never dialled.

The name check happens before resolution and the address check after it, on every resolved IP, so
a listed name that resolves to a metadata or link-local address is refused too (DNS rebinding).
"""

from __future__ import annotations

import ipaddress
import posixpath
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

if TYPE_CHECKING:
    from collections.abc import Sequence

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

# Cloud metadata services: AWS/GCP/Azure/OpenStack, AWS over IPv6, Alibaba.
METADATA_ADDRESSES = frozenset(
    ipaddress.ip_address(a)
    for a in ("169.254.169.254", "fd00:ec2::254", "100.100.100.200")
)
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_IPV4_COMPATIBLE = ipaddress.ip_network(
    "::/96"
)  # deprecated, but some stacks still route it
_LINK_LOCAL = (
    ipaddress.ip_network("169.254.0.0/16"),
    ipaddress.ip_network("fe80::/10"),
)


class TargetRefused(Exception):
    """The URL or one of its addresses is outside what this server may probe."""


def normalize_host(host: str) -> str:
    """Lower-case, no trailing dot, no IPv6 brackets."""
    return host.strip().strip("[]").rstrip(".").lower()


def _default_port(scheme: str) -> int:
    return 443 if scheme == "https" else 80


@dataclass(frozen=True)
class AllowEntry:
    """One `--allow` value: a bare host (any port, any scheme) or a URL (scheme, port, path prefix)."""

    host: str
    scheme: str | None = None
    port: int | None = None
    path_prefix: str = ""

    @classmethod
    def parse(cls, value: str) -> AllowEntry:
        """Parse `api.internal`, `127.0.0.1`, `[::1]`, `host:8443` or `https://host:8443/prefix`."""
        text = value.strip()
        if not text:
            raise ValueError("empty --allow value")
        if "://" not in text:
            # host, host:port, [v6] or [v6]:port; a bare IPv6 literal has several colons
            try:
                return cls(host=str(ipaddress.ip_address(text.strip("[]"))))
            except ValueError:
                pass
            text = f"//{text}"
        parts = urlsplit(text)
        if parts.scheme and parts.scheme not in ("http", "https"):
            raise ValueError(
                f"--allow {value!r}: only http and https URLs can be allowed"
            )
        try:
            port = parts.port
        except ValueError as exc:
            raise ValueError(f"--allow {value!r}: {exc}") from None
        if not parts.hostname:
            raise ValueError(f"--allow {value!r}: no host name")
        path = parts.path if parts.path not in ("", "/") else ""
        if parts.scheme and port is None:
            port = _default_port(parts.scheme)
        return cls(
            host=normalize_host(parts.hostname),
            scheme=parts.scheme or None,
            port=port,
            path_prefix=path,
        )

    def matches(self, *, scheme: str, host: str, port: int, path: str) -> bool:
        """True if a URL with these parts is covered by this entry."""
        if self.host != host:
            return False
        if self.scheme is not None and self.scheme != scheme:
            return False
        if self.port is not None and self.port != port:
            return False
        if not self.path_prefix:
            return True
        # Match what the server will see: decoded, dot segments resolved ("/api/../admin" is /admin).
        # (POSIX normpath keeps a leading "//", so the path's own slashes go first.)
        plain = posixpath.normpath("/" + unquote(path.split("?", 1)[0]).lstrip("/"))
        return plain == self.path_prefix.rstrip("/") or plain.startswith(
            self.path_prefix.rstrip("/") + "/"
        )

    def __str__(self) -> str:
        if self.scheme is None and self.port is None:
            return self.host
        host = f"[{self.host}]" if ":" in self.host else self.host
        scheme = f"{self.scheme}://" if self.scheme else ""
        return (
            f"{scheme}{host}:{self.port}{self.path_prefix}"
            if self.port
            else f"{scheme}{host}{self.path_prefix}"
        )


def _embedded_ipv4(address: IPAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address carries (mapped, compatible, 6to4, NAT64), if any."""
    if not isinstance(address, ipaddress.IPv6Address):
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address in _NAT64 or (address in _IPV4_COMPATIBLE and int(address) > 0xFFFF):
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def forbidden_reason(address: IPAddress) -> str | None:
    """Why `address` is never dialled, or None if it may be."""
    embedded = _embedded_ipv4(address)
    if embedded is not None:
        reason = forbidden_reason(embedded)
        return f"{address} embeds {reason}" if reason else None
    if address in METADATA_ADDRESSES:
        return f"{address} is a cloud metadata address"
    if any(address in net for net in _LINK_LOCAL):
        return f"{address} is link-local"
    if address.is_unspecified:
        return f"{address} is the unspecified address"
    if address.is_multicast:
        return f"{address} is multicast"
    if isinstance(address, ipaddress.IPv4Address) and address == ipaddress.IPv4Address(
        "255.255.255.255"
    ):
        return f"{address} is broadcast"
    return None


@dataclass(frozen=True)
class Policy:
    """The allowlist given at start; nothing else is ever probed."""

    entries: tuple[AllowEntry, ...]
    # If set, every resolved address must also fall inside one of these (--allow-net).
    networks: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...] = ()

    @classmethod
    def from_values(cls, values: list[str], *, networks: Sequence[str] = ()) -> Policy:
        """Build from `--allow` values and optional `--allow-net` CIDRs.

        Raises:
            ValueError: a malformed entry, or one naming a forbidden address.
        """
        nets = []
        for net in networks:
            try:
                nets.append(ipaddress.ip_network(net.strip(), strict=False))
            except ValueError:
                raise ValueError(
                    f"--allow-net {net!r}: expected a CIDR such as 127.0.0.0/8"
                ) from None
        entries = tuple(AllowEntry.parse(v) for v in values)
        for entry in entries:
            try:
                reason = forbidden_reason(ipaddress.ip_address(entry.host))
            except ValueError:
                continue
            if reason:
                raise ValueError(f"--allow {entry}: {reason} and can never be probed")
        return cls(entries, tuple(nets))

    def check_url(self, *, scheme: str, host: str, port: int, path: str) -> None:
        """Raise TargetRefused unless an entry covers the URL (checked before any lookup)."""
        try:
            reason = forbidden_reason(ipaddress.ip_address(host))
        except ValueError:
            reason = None
        if reason:
            raise TargetRefused(
                f"refused: {reason}; netcheck never probes such addresses"
            )
        if not any(
            e.matches(scheme=scheme, host=host, port=port, path=path)
            for e in self.entries
        ):
            allowed = ", ".join(str(e) for e in self.entries) or "(nothing)"
            raise TargetRefused(
                f"refused: {scheme}://{host}:{port}{path} is not in the allowlist given at start "
                f"(allowed: {allowed}); restart netcheck with --allow to add it"
            )

    def check_addresses(self, host: str, addresses: list[IPAddress]) -> None:
        """Raise TargetRefused if any resolved address is forbidden or outside --allow-net (after resolution)."""
        for address in addresses:
            reason = forbidden_reason(address)
            if reason:
                raise TargetRefused(
                    f"refused: {host} resolves to {address}, and {reason}; netcheck never probes such addresses"
                )
            plain = (
                address.ipv4_mapped
                if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped
                else address
            )
            if self.networks and not any(plain in net for net in self.networks):
                allowed = ", ".join(str(n) for n in self.networks)
                raise TargetRefused(
                    f"refused: {host} resolves to {address}, outside the networks allowed at start ({allowed})"
                )
