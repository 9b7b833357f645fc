"""A minimal DNS stub resolver over UDP (RFC 1035): A and AAAA queries to one configured server.

Used when netcheck is started with `--dns-server HOST:PORT`, so a probe asks that resolver directly
and sees its real answer code (NXDOMAIN, SERVFAIL, REFUSED) instead of libc's summary. The
encoder and decoder are shared with the demo DNS server in `mcpservers.scenarios`.
"""

from __future__ import annotations

import asyncio
import ipaddress
import secrets
import struct
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mcpservers.netcheck.policy import IPAddress

TYPE_A = 1
TYPE_AAAA = 28
CLASS_IN = 1
RCODES = {
    0: "NOERROR",
    1: "FORMERR",
    2: "SERVFAIL",
    3: "NXDOMAIN",
    4: "NOTIMP",
    5: "REFUSED",
}


class DnsFormatError(ValueError):
    """A packet that is not a well-formed DNS message."""


@dataclass(frozen=True)
class Answer:
    rcode: int
    addresses: list[IPAddress]

    @property
    def rcode_name(self) -> str:
        return RCODES.get(self.rcode, f"RCODE{self.rcode}")


def encode_name(name: str) -> bytes:
    out = b""
    for label in name.rstrip(".").split("."):
        raw = label.encode("idna")
        if not 0 < len(raw) < 64:
            raise DnsFormatError(f"invalid label in {name!r}")
        out += bytes([len(raw)]) + raw
    return out + b"\0"


def read_name(packet: bytes, offset: int) -> tuple[str, int]:
    """Decode a (possibly compressed) name at `offset`; return it and the offset just after it."""
    labels: list[str] = []
    end = None
    for _ in range(128):  # bounded: a pointer loop must not spin forever
        if offset >= len(packet):
            raise DnsFormatError("name runs past the end of the packet")
        length = packet[offset]
        if length & 0xC0 == 0xC0:
            if offset + 1 >= len(packet):
                raise DnsFormatError("truncated compression pointer")
            if end is None:
                end = offset + 2
            offset = ((length & 0x3F) << 8) | packet[offset + 1]
            continue
        if length == 0:
            return ".".join(labels), end if end is not None else offset + 1
        labels.append(
            packet[offset + 1 : offset + 1 + length].decode("ascii", errors="replace")
        )
        offset += 1 + length
    raise DnsFormatError("too many labels or a compression loop")


def build_query(query_id: int, name: str, qtype: int) -> bytes:
    header = struct.pack("!HHHHHH", query_id, 0x0100, 1, 0, 0, 0)  # RD set
    return header + encode_name(name) + struct.pack("!HH", qtype, CLASS_IN)


def parse_query(packet: bytes) -> tuple[int, str, int]:
    """(id, name, qtype) of a query; raises DnsFormatError."""
    if len(packet) < 12:
        raise DnsFormatError("short header")
    query_id, _flags, qdcount = struct.unpack("!HHH", packet[:6])
    if qdcount != 1:
        raise DnsFormatError("expected one question")
    name, offset = read_name(packet, 12)
    if offset + 4 > len(packet):
        raise DnsFormatError("truncated question")
    (qtype,) = struct.unpack("!H", packet[offset : offset + 2])
    return query_id, name.lower(), qtype


def build_response(
    query: bytes, rcode: int, addresses: list[IPAddress], *, ttl: int = 30
) -> bytes:
    """An answer to `query` with `rcode` and the addresses matching its qtype."""
    query_id, _name, qtype = parse_query(query)
    question = query[12 : read_name(query, 12)[1] + 4]
    records = b""
    count = 0
    for address in addresses:
        if (address.version == 4 and qtype == TYPE_A) or (
            address.version == 6 and qtype == TYPE_AAAA
        ):
            rdata = address.packed
            records += (
                struct.pack("!HHHIH", 0xC00C, qtype, CLASS_IN, ttl, len(rdata)) + rdata
            )
            count += 1
    flags = 0x8180 | (rcode & 0xF)  # QR, RD, RA
    return struct.pack("!HHHHHH", query_id, flags, 1, count, 0, 0) + question + records


def parse_response(packet: bytes, query_id: int) -> Answer:
    if len(packet) < 12:
        raise DnsFormatError("short header")
    got_id, flags, qdcount, ancount = struct.unpack("!HHHH", packet[:8])
    if got_id != query_id or not flags & 0x8000:
        raise DnsFormatError("not an answer to our query")
    offset = 12
    for _ in range(qdcount):
        offset = read_name(packet, offset)[1] + 4
    addresses: list[IPAddress] = []
    for _ in range(ancount):
        offset = read_name(packet, offset)[1]
        if offset + 10 > len(packet):
            raise DnsFormatError("truncated record")
        rtype, _rclass, _ttl, rdlength = struct.unpack(
            "!HHIH", packet[offset : offset + 10]
        )
        rdata = packet[offset + 10 : offset + 10 + rdlength]
        offset += 10 + rdlength
        if (rtype == TYPE_A and rdlength == 4) or (
            rtype == TYPE_AAAA and rdlength == 16
        ):
            addresses.append(ipaddress.ip_address(rdata))
    return Answer(rcode=flags & 0xF, addresses=addresses)


class _Exchange(asyncio.DatagramProtocol):
    def __init__(self, query_id: int) -> None:
        self.query_id = query_id
        self.answer: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()

    def datagram_received(self, data: bytes, addr: object) -> None:
        try:
            answer = parse_response(data, self.query_id)
        except DnsFormatError:
            return  # stray or spoofed datagram: keep waiting for ours
        if not self.answer.done():
            self.answer.set_result(answer)

    def error_received(self, exc: Exception) -> None:
        if not self.answer.done():
            self.answer.set_exception(exc)


async def query(server: tuple[str, int], name: str, qtype: int) -> Answer:
    """Send one question to `server` and wait for the matching answer (the caller bounds the wait)."""
    query_id = secrets.randbelow(0x10000)
    loop = asyncio.get_running_loop()
    transport, protocol = await loop.create_datagram_endpoint(
        lambda: _Exchange(query_id), remote_addr=server
    )
    try:
        transport.sendto(build_query(query_id, name, qtype))
        return await protocol.answer
    finally:
        transport.close()
