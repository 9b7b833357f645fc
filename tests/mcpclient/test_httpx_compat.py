"""The httpx internal mcpclient relies on (AsyncHTTPTransport._pool) is still what it expects.

If this fails after an httpx upgrade, mcpclient still works (it falls back to httpx's default
transport, logged), but slower: re-check _httpx_compat.py against the new release.
"""

from __future__ import annotations

import httpcore
import httpx
import pytest

import mcpclient
from mcpclient._transports import _httpx_compat
from mcpclient._transports.streamable_http import StreamableHttpTransport

from .servers.scripted_http import scripted_server
from .test_transport_streamable_http import handshake_server

pytestmark = pytest.mark.anyio


def test_httpx_keeps_only_an_httpcore_pool_in_its_transport():
    transport = httpx.AsyncHTTPTransport()
    assert set(vars(transport)) == {"_pool"}, (
        f"httpx {httpx.__version__}: AsyncHTTPTransport now holds {sorted(vars(transport))}"
    )
    assert isinstance(transport._pool, httpcore.AsyncConnectionPool), (
        f"httpx {httpx.__version__}: _pool is a {type(transport._pool)!r}"
    )
    assert _httpx_compat.keeps_pool_in_private_attribute()


async def test_the_plain_transport_round_trips_through_httpx_public_api():
    async def on_call(request):
        raise AssertionError("not called")

    async with scripted_server(handshake_server(on_call)) as srv:
        transport = _httpx_compat.plain_http_transport()
        assert transport is not None
        async with httpx.AsyncClient(transport=transport) as client:
            response = await client.post(
                srv.url,
                json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
            )
        assert response.status_code == 200 and response.json()["id"] == 1


async def test_without_the_internal_the_client_falls_back_to_httpx_default(monkeypatch):
    monkeypatch.setattr(_httpx_compat, "plain_http_transport", lambda: None)
    monkeypatch.setattr(
        "mcpclient._transports.streamable_http.plain_http_transport", lambda: None
    )

    async def on_call(request):
        from .servers.scripted_http import json_reply
        from .test_transport_streamable_http import ok

        return json_reply(ok(request, "default transport"))

    async with (
        scripted_server(handshake_server(on_call)) as srv,
        mcpclient.connect(mcpclient.HttpServer(url=srv.url)) as client,
    ):
        transport = client.transport
        assert isinstance(transport, StreamableHttpTransport)
        assert transport._direct is None
        await client.list_tools()
        assert (
            await client.call_tool("write", {}, timeout=5)
        ).text == "default transport"
