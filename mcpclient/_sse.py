"""Incremental Server-Sent Events parser (WHATWG rules): comments, multi-line data, CR/LF/CRLF."""

from __future__ import annotations

from dataclasses import dataclass

from ._exceptions import MessageTooLarge


@dataclass(slots=True)
class SseEvent:
    event: str
    data: str
    id: str | None
    retry: int | None


class SseParser:
    """Feed bytes, get complete events; an event larger than ``max_size`` raises MessageTooLarge.

    Linear in the input however it is chunked: only each new chunk is scanned for line ends, and
    the pieces of an unfinished line are joined once, when its end arrives.
    """

    __slots__ = (
        "_data",
        "_event",
        "_id",
        "_max",
        "_partial",
        "_partial_size",
        "_retry",
        "_size",
        "_skip_lf",
        "last_event_id",
        "retry_ms",
    )

    def __init__(self, max_size: int) -> None:
        self._partial: list[bytes] = []  # the pieces of the line still in flight
        self._partial_size = 0
        self._skip_lf = (
            False  # the last chunk ended in CR: a leading LF is its CRLF's second half
        )
        self._max = max_size
        self._data: list[str] = []
        self._event = ""
        self._id: str | None = None
        self._retry: int | None = None
        self._size = 0
        self.last_event_id: str | None = None
        self.retry_ms: int | None = None

    def feed(self, chunk: bytes) -> list[SseEvent]:
        if self._skip_lf and chunk[:1] == b"\n":
            chunk = chunk[1:]
        self._skip_lf = False
        if b"\r" in chunk:
            # Normalise CRLF and lone CR to LF; a CR at the very end already ends its line.
            self._skip_lf = chunk.endswith(b"\r")
            chunk = chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        events: list[SseEvent] = []
        start = 0
        nl = chunk.find(b"\n")
        if nl >= 0 and self._partial:
            self._partial.append(chunk[:nl])
            line = b"".join(self._partial)
            self._partial = []
            self._partial_size = 0
            self._line(line, events)
            start = nl + 1
        while (nl := chunk.find(b"\n", start)) >= 0:
            self._line(chunk[start:nl], events)
            start = nl + 1
        if start < len(chunk):
            self._partial.append(chunk[start:] if start else chunk)
            self._partial_size += len(chunk) - start
        if self._partial_size + self._size > self._max:
            raise MessageTooLarge(f"SSE event over {self._max} bytes", limit=self._max)
        return events

    def _line(self, raw: bytes, events: list[SseEvent]) -> None:
        if not raw:
            if self._data or self._event:
                events.append(
                    SseEvent(
                        self._event or "message",
                        "\n".join(self._data),
                        self._id,
                        self._retry,
                    )
                )
            self._data = []
            self._event = ""
            self._retry = None
            self._size = 0
            return
        if raw[0] == 0x3A:  # ":" comment / keep-alive
            return
        line = raw.decode("utf-8", "replace")
        name, sep, value = line.partition(":")
        if sep and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._size += len(raw)
            if self._size > self._max:
                raise MessageTooLarge(
                    f"SSE event over {self._max} bytes", limit=self._max
                )
            self._data.append(value)
        elif name == "event":
            self._event = value
        elif name == "id":
            if "\x00" not in value:
                self._id = value
                self.last_event_id = value
        elif name == "retry" and value.isdigit():
            self._retry = self.retry_ms = int(value)
