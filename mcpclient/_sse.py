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
    """Feed bytes, get complete events; an event larger than ``max_size`` raises MessageTooLarge."""

    __slots__ = (
        "_buf",
        "_data",
        "_event",
        "_id",
        "_max",
        "_retry",
        "_size",
        "last_event_id",
        "retry_ms",
    )

    def __init__(self, max_size: int) -> None:
        self._buf = b""
        self._max = max_size
        self._data: list[str] = []
        self._event = ""
        self._id: str | None = None
        self._retry: int | None = None
        self._size = 0
        self.last_event_id: str | None = None
        self.retry_ms: int | None = None

    def feed(self, chunk: bytes) -> list[SseEvent]:
        buf = self._buf + chunk if self._buf else chunk
        pending_cr = False
        if b"\r" in buf:
            # Normalise CRLF and lone CR; a CR at the very end may be half of a CRLF still in flight.
            pending_cr = buf.endswith(b"\r")
            if pending_cr:
                buf = buf[:-1]
            buf = buf.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        events: list[SseEvent] = []
        start = 0
        while (nl := buf.find(b"\n", start)) >= 0:
            self._line(buf[start:nl], events)
            start = nl + 1
        rest = buf[start:]
        if len(rest) + self._size > self._max:
            raise MessageTooLarge(f"SSE event over {self._max} bytes", limit=self._max)
        self._buf = rest + b"\r" if pending_cr else rest
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
