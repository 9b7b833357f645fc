"""The Twisted internals the SSE path relies on, and nothing else: a TCP transport's write buffer
and a web request's response state, read or written here only.

A Twisted FileDescriptor keeps unsent bytes in `dataBuffer[offset:]` plus `_tempDataLen` bytes
queued since its last doWrite; `twisted.web.http.Request` keeps `_disconnected`, `startedWriting`,
`chunked` and `sentLength`. None is a published API, so the Twisted range is pinned in
pyproject.toml and tests/diagnosis/test_twisted_compat.py fails, naming the version, when any of
them moves.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from twisted.internet import tcp
from twisted.internet.abstract import FileDescriptor

if TYPE_CHECKING:
    from collections.abc import Iterable

    from twisted.web.http import Request


def unflushed_bytes(transport: FileDescriptor) -> int:
    """Bytes handed to `transport.write` that have not reached the socket yet."""
    return len(transport.dataBuffer) - transport.offset + transport._tempDataLen


def any_unflushed(writers: Iterable[object]) -> bool:
    """Whether any of the reactor's writers (`reactor.getWriters()`) still holds unsent bytes;
    anything that is not a FileDescriptor counts as empty."""
    return any(
        isinstance(writer, FileDescriptor) and unflushed_bytes(writer) > 0
        for writer in writers
    )


def connection_transport(request: Request) -> Any:
    """The transport of `request`'s connection (public API: for setTcpNoDelay, abortConnection);
    None once the request is detached from its channel."""
    return getattr(request.channel, "transport", None)


def tcp_transport(request: Request) -> tcp.Connection | None:
    """The plain TCP transport under `request`'s channel, whose buffer and socket are the
    request's own bytes; None once the request is detached, and under TLS, whose transport is a
    TLSMemoryBIOProtocol: it forwards unknown attributes (`TLS`, `socket`, `dataBuffer`) to the
    TCP transport under it, where the bytes are ciphertext."""
    transport = connection_transport(request)
    if isinstance(transport, tcp.Connection) and not transport.TLS:
        return transport
    return None


class DirectWrite:
    """Write a response body chunk to the request's socket now, not on the reactor's next
    writable callback.

    `transport.write` only buffers and registers the socket for writing; the bytes leave on the
    next loop pass, after every other stream's write. Here they go out with one send(); what the
    kernel does not take goes into Twisted's buffer, and when that buffer already holds bytes
    everything queues behind them, so order holds. Returns False when the response cannot take
    body bytes this way (finished, disconnected, headers not sent yet): then the caller writes
    through the server as usual.
    """

    # Slotted: one lives as long as its stream, and idle streams are counted in kilobytes.
    __slots__ = ("request", "transport")

    def __init__(self, request: Request, transport: tcp.Connection) -> None:
        self.request = request
        self.transport = transport

    def __call__(self, body: bytes, chunk: bytes) -> bool:
        """`chunk` is `body` framed as one HTTP/1.1 chunk, sent when the response is chunked."""
        request, transport = self.request, self.transport
        if (
            request.finished
            or request._disconnected
            or request.channel is None
            or not request.startedWriting  # the headers go out with Twisted's first write
            or not transport.connected
            or transport.disconnecting
        ):
            return False
        if not body:
            return True  # an empty chunk would end the response
        data = chunk if request.chunked else body
        # What Request.write counts; its access log reports it.
        request.sentLength += len(body)
        # write() comes from twisted.internet._newtls.ConnectionMixin, which has no annotations.
        if unflushed_bytes(transport):
            transport.write(data)  # type: ignore[no-untyped-call]
            return True
        try:
            sent = transport.getHandle().send(data)
        except (BlockingIOError, InterruptedError):
            sent = 0
        except OSError:
            return False  # the connection is going; Twisted will report it
        if sent < len(data):
            transport.write(data[sent:])  # type: ignore[no-untyped-call]
        return True


def direct_write(request: Request) -> DirectWrite | None:
    """A DirectWrite for `request`, or None when it is not served over plain TCP."""
    transport = tcp_transport(request)
    return None if transport is None else DirectWrite(request, transport)
