"""Legacy HTTP+SSE transport (2024-11-05): GET an event stream, wait for ``endpoint``, POST to it.

One reader task owns the GET stream and delivers every ``message`` event to the session.
"""

from __future__ import annotations

import asyncio
import contextlib
import urllib.parse
from typing import TYPE_CHECKING, Any

import httpx

from mcpclient import _jsonrpc, _timings
from mcpclient._exceptions import (
    ConnectError,
    ConnectionLost,
    MalformedMessage,
    McpError,
)
from mcpclient._sse import SseParser

from .streamable_http import (
    _ERROR_BODY_LIMIT,
    map_httpx_errors,
    read_capped,
    read_prefix,
    status_error,
)

if TYPE_CHECKING:
    from mcpclient._types import LegacySseServer

    from .base import Closed, Deliver


class LegacySseTransport:
    """Client side of the 2024-11-05 HTTP with SSE transport."""

    kind = "legacy_sse"
    cancels_by_closing = False

    def __init__(self, server: LegacySseServer) -> None:
        self.server = server
        self.name = server.display_name
        self.endpoint: str | None = None
        self._client = server.http_client
        self._owns_client = server.http_client is None
        self._headers = dict(server.headers or {})
        self._reader: asyncio.Task[None] | None = None
        self._endpoint_ready: asyncio.Future[str] | None = None
        self._deliver: Deliver | None = None
        self._closed: Closed | None = None
        self._dead: McpError | None = None

    def configure(self, *, protocol_version: str, modern: bool) -> None:
        """The 2024-11-05 transport has no version header."""

    async def start(self, deliver: Deliver, closed: Closed) -> None:
        self._deliver = deliver
        self._closed = closed
        if self._client is None:
            self._client = httpx.AsyncClient(timeout=httpx.Timeout(None, connect=10.0))
        client = self._client
        headers = {**self._headers, "accept": "text/event-stream"}
        with map_httpx_errors(name=self.name):
            response = await client.send(
                client.build_request("GET", self.server.url, headers=headers),
                stream=True,
            )
        if response.status_code != 200:
            with map_httpx_errors(name=self.name):
                body = await read_prefix(response, _ERROR_BODY_LIMIT)
                await response.aclose()
            exc = status_error(response, body, name=self.name, had_session=False)
            raise ConnectError(
                f"{self.name}: cannot open the event stream: {exc}"
            ) from exc
        self._endpoint_ready = asyncio.get_running_loop().create_future()
        self._reader = asyncio.create_task(
            self._read(response), name=f"mcpclient-sse-reader:{self.name}"
        )
        try:
            self.endpoint = await asyncio.shield(self._endpoint_ready)
        except BaseException:
            await self.aclose()
            raise

    async def _read(self, response: httpx.Response) -> None:
        parser = SseParser(self.server.max_message_size)
        deliver = self._deliver
        assert deliver is not None and self._endpoint_ready is not None
        exc: McpError = ConnectionLost(f"{self.name}: the event stream ended")
        try:
            with map_httpx_errors(name=self.name):
                async for chunk in response.aiter_bytes():
                    for event in parser.feed(chunk):
                        if event.event == "endpoint":
                            url = urllib.parse.urljoin(
                                self.server.url, event.data.strip()
                            )
                            if (
                                urllib.parse.urlsplit(url)[:2]
                                != urllib.parse.urlsplit(self.server.url)[:2]
                            ):
                                raise MalformedMessage(
                                    f"{self.name}: endpoint {url!r} is on another origin"
                                )
                            if not self._endpoint_ready.done():
                                self._endpoint_ready.set_result(url)
                        elif event.event == "message" and event.data:
                            deliver(_jsonrpc.decode(event.data))
        except McpError as error:
            exc = error
        finally:
            await response.aclose()
        self._die(exc)

    def _die(self, exc: McpError) -> None:
        if self._dead is not None:
            return
        self._dead = exc
        if self._endpoint_ready is not None and not self._endpoint_ready.done():
            self._endpoint_ready.set_exception(
                ConnectError(f"no endpoint event: {exc}")
            )
        if self._closed is not None:
            self._closed(exc)

    async def send(
        self, message: dict[str, Any], *, headers: dict[str, str] | None = None
    ) -> None:
        if self._dead is not None or self.endpoint is None or self._client is None:
            raise ConnectionLost(f"{self.name}: connection closed ({self._dead})")
        client = self._client
        # The POST only: the answer comes on the event stream, whose time is the call's latency.
        trace = (
            _timings.request_trace()
            if "id" in message and "method" in message
            else None
        )
        request = client.build_request(
            "POST",
            self.endpoint,
            content=_jsonrpc.encode(message),
            headers={
                **self._headers,
                **(headers or {}),
                "content-type": "application/json",
            },
            extensions=None if trace is None else {"trace": trace},
        )
        try:
            await self._post(client, request, message)
        finally:
            if trace is not None:
                trace.finish()

    async def _post(
        self, client: httpx.AsyncClient, request: httpx.Request, message: dict[str, Any]
    ) -> None:
        with map_httpx_errors(name=self.name):
            # Streamed, so the answer's body is bounded like everything else this client reads (the
            # answer itself comes on the event stream; the POST's body is only "Accepted").
            response = await client.send(request, stream=True)
            try:
                if response.status_code >= 300:
                    body = await read_prefix(response, _ERROR_BODY_LIMIT)
                    raise status_error(
                        response,
                        body,
                        name=self.name,
                        had_session=False,
                        request_id=message.get("id"),
                    )
                await read_capped(response, self.server.max_message_size)
            finally:
                await response.aclose()

    async def aclose(self) -> None:
        if self._dead is None:
            self._dead = ConnectionLost(f"{self.name}: closed by the client")
        reader, self._reader = self._reader, None
        if reader is not None:
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader
        client, self._client = self._client, None
        if client is not None and self._owns_client:
            await client.aclose()
