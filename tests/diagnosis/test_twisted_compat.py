"""diagnosis.streaming.twisted_compat against the installed Twisted: the private attributes it
reads still exist with the types it expects, and its writes land on a real loopback socket in
order. A failure here means Twisted changed: adapt twisted_compat, then move the pin."""

import socket
from collections.abc import Iterator

import pytest
import twisted
from twisted.internet import tcp
from twisted.internet.abstract import FileDescriptor
from twisted.internet.error import ConnectionDone
from twisted.internet.selectreactor import SelectReactor
from twisted.protocols.tls import TLSMemoryBIOProtocol
from twisted.python.failure import Failure
from twisted.web import http

from diagnosis.streaming import twisted_compat

TWISTED = f"Twisted {twisted.__version__}"


@pytest.fixture
def connection() -> Iterator[tuple[tcp.Server, socket.socket, SelectReactor]]:
    """A Twisted TCP server transport over a real 127.0.0.1 connection, registered with a reactor
    that is never run (nor installed): the test calls doWrite itself."""
    listener = socket.create_server(("127.0.0.1", 0))
    peer = socket.create_connection(listener.getsockname())
    accepted, address = listener.accept()
    listener.close()
    peer.settimeout(5)
    reactor = SelectReactor()
    transport = tcp.Server(accepted, http.HTTPChannel(), address, None, 1, reactor)  # type: ignore[arg-type]
    yield transport, peer, reactor
    transport.connectionLost(Failure(ConnectionDone()))
    accepted.close()
    peer.close()


def _request(transport: tcp.Server, reactor: SelectReactor) -> http.Request:
    channel = transport.protocol
    assert isinstance(channel, http.HTTPChannel)
    channel.callLater = reactor.callLater  # not the global reactor's
    channel.timeOut = None
    channel.makeConnection(transport)
    request = http.Request(channel)
    request.clientproto = b"HTTP/1.1"
    request.method = b"GET"
    return request


def _read(peer: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = peer.recv(size - len(data))
        assert chunk, "the connection closed"
        data += chunk
    return data


def test_the_private_attributes_read_still_exist_with_their_types(connection):
    transport, _, reactor = connection
    request = _request(transport, reactor)
    fresh = {
        "FileDescriptor.dataBuffer": (getattr(transport, "dataBuffer", None), bytes),
        "FileDescriptor.offset": (getattr(transport, "offset", None), int),
        "FileDescriptor._tempDataLen": (getattr(transport, "_tempDataLen", None), int),
        "FileDescriptor._tempDataBuffer": (
            getattr(transport, "_tempDataBuffer", None),
            list,
        ),
        "tcp.Connection.TLS": (getattr(transport, "TLS", None), bool),
        "Request._disconnected": (getattr(request, "_disconnected", None), bool),
        "Request.finished": (getattr(request, "finished", None), int),
        "Request.startedWriting": (getattr(request, "startedWriting", None), int),
        "Request.chunked": (getattr(request, "chunked", None), int),
        "Request.sentLength": (getattr(request, "sentLength", None), int),
    }
    wrong = {
        name: type(value).__name__
        for name, (value, kind) in fresh.items()
        if not isinstance(value, kind)
    }
    assert wrong == {}, f"{TWISTED} changed what twisted_compat reads: {wrong}"
    assert transport.TLS is False, f"{TWISTED}: a plain TCP transport says TLS"
    assert issubclass(tcp.Server, FileDescriptor), f"{TWISTED}: tcp.Server moved"


def test_unflushed_bytes_counts_what_write_buffered_until_dowrite_sends_it(connection):
    transport, peer, _ = connection
    assert twisted_compat.unflushed_bytes(transport) == 0
    transport.write(b"a" * 1000)
    transport.writeSequence([b"b" * 10, b"c" * 5])
    assert twisted_compat.unflushed_bytes(transport) == 1015, (
        f"{TWISTED}: write() no longer buffers into _tempDataBuffer/_tempDataLen"
    )
    assert twisted_compat.any_unflushed([object(), transport]) is True
    transport.doWrite()
    assert twisted_compat.unflushed_bytes(transport) == 0, (
        f"{TWISTED}: doWrite() left dataBuffer[offset:] or _tempDataLen non-empty"
    )
    assert twisted_compat.any_unflushed([object(), transport]) is False
    assert _read(peer, 1015) == b"a" * 1000 + b"b" * 10 + b"c" * 5


def test_direct_write_refuses_until_headers_then_queues_behind_buffered_bytes(
    connection,
):
    transport, peer, reactor = connection
    request = _request(transport, reactor)
    write = twisted_compat.direct_write(request)
    assert isinstance(write, twisted_compat.DirectWrite)
    assert write(b"early", b"5\r\nearly\r\n") is False  # the headers are not out yet

    request.write(b"")  # Twisted's first write: status line and headers, chunked
    assert request.chunked, (
        f"{TWISTED}: an HTTP/1.1 response without length not chunked"
    )
    headers = twisted_compat.unflushed_bytes(transport)
    assert headers > 0
    # Headers still in Twisted's buffer: the chunk must queue behind them, not overtake.
    assert write(b"one", b"3\r\none\r\n") is True
    assert twisted_compat.unflushed_bytes(transport) == headers + len(b"3\r\none\r\n")
    transport.doWrite()
    head = _read(peer, headers)
    assert head.startswith(b"HTTP/1.1 200 ")
    assert b"Transfer-Encoding: chunked" in head
    assert _read(peer, 8) == b"3\r\none\r\n"

    # Buffer empty: the chunk goes straight to the socket, nothing left for the reactor.
    assert write(b"two", b"3\r\ntwo\r\n") is True
    assert twisted_compat.unflushed_bytes(transport) == 0
    assert _read(peer, 8) == b"3\r\ntwo\r\n"
    assert request.sentLength == len(b"one") + len(b"two")
    assert write(b"", b"") is True  # never an empty chunk: it would end the response


def test_direct_write_refuses_a_finished_or_disconnected_request(connection):
    transport, _, reactor = connection
    request = _request(transport, reactor)
    write = twisted_compat.direct_write(request)
    assert write is not None
    request.write(b"")
    request.connectionLost(Failure(ConnectionDone()))
    assert request._disconnected, (
        f"{TWISTED}: connectionLost no longer sets _disconnected"
    )
    assert write(b"x", b"1\r\nx\r\n") is False


def test_no_direct_path_under_tls_whose_wrapper_forwards_to_the_raw_socket(connection):
    transport, _, reactor = connection
    request = _request(transport, reactor)
    tls = TLSMemoryBIOProtocol(None, request.channel)  # type: ignore[arg-type]
    tls.transport = transport
    request.channel.transport = tls
    # The wrapper answers for the TCP transport under it (plain TLS flag, raw socket): writing
    # there would put plaintext on a TLS connection.
    assert tls.TLS is False
    assert tls.socket is transport.socket
    assert twisted_compat.tcp_transport(request) is None
    assert twisted_compat.direct_write(request) is None
    assert twisted_compat.connection_transport(request) is tls
