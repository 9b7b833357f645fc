"""Stored OAuth grants (diagnosis/oauth_grants.py) against a live local authorization server and
protected MCP server (tests/mcpclient/servers/oauth_http.py): sealed at rest, rotated without loss,
renewed by workers under a row lock, failures recorded without a token."""

import asyncio
import logging
import threading
import time
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from asgiref.sync import sync_to_async
from cryptography.fernet import Fernet
from django.core.management import call_command

import mcpclient
from diagnosis import oauth_grants
from diagnosis.models import OAuthGrant
from diagnosis.registry import OAuthConfig, ServerEntry, connect_server
from tests.mcpclient.servers.oauth_http import OAuthWorld
from tests.mcpclient.servers.scripted_http import scripted_server

REDIRECT = "http://127.0.0.1:9/callback"
CLIENT = mcpclient.ClientInfo("app", client_secret="pw")


async def headless(url: str) -> str:
    async with httpx.AsyncClient(follow_redirects=False) as http:
        return (await http.get(url)).headers["location"]


async def admin_grant(world: OAuthWorld) -> mcpclient.Tokens:
    """What the admin's Connect obtains: the code grant, consented at the live server."""
    auth = mcpclient.AuthorizationCode(
        redirect_uri=REDIRECT, user_agent=headless, client=CLIENT
    )
    spec = mcpclient.HttpServer(url=world.mcp_url, auth=auth)
    async with mcpclient.connect(spec, protocol_version="2025-11-25") as client:
        await client.list_tools()
    assert auth.tokens is not None
    return auth.tokens


def tokens_of(world: OAuthWorld) -> list[str]:
    return [*world.tokens, *world.refresh]


def expiring(tokens: mcpclient.Tokens) -> mcpclient.Tokens:
    return mcpclient.Tokens(**{**tokens.to_dict(), "expires_at": time.time() + 5})


@pytest.mark.django_db
def test_grant_is_sealed_at_rest_and_survives_key_rotation(settings):
    old, new = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    settings.OAUTH_TOKEN_KEYS = [old]
    tokens = mcpclient.Tokens(
        access_token="at-plain-access",
        refresh_token="rt-plain-refresh",
        expires_at=time.time() + 3600,
        issuer="https://as.example",
    )
    oauth_grants.save_grant(
        environment="prod", server="metrics", tokens=tokens, client=CLIENT
    )
    row = OAuthGrant.objects.get()
    for column in (row.tokens_encrypted, row.client_encrypted):
        # Fernet tokens are base64url: never a quote, so no JSON (and no secret) in clear. A
        # short secret such as "pw" may occur in base64 by chance, so none is searched for.
        assert '"' not in column and "plain-access" not in column
        assert "plain-refresh" not in column
        Fernet(old.encode()).decrypt(column.encode())  # sealed with the first key
    before = row.tokens_encrypted

    settings.OAUTH_TOKEN_KEYS = [new, old]
    assert oauth_grants.rotate_keys() == 1
    row.refresh_from_db()
    assert row.tokens_encrypted != before

    settings.OAUTH_TOKEN_KEYS = [new]  # the old key dropped: nothing lost
    restored, client = oauth_grants.stored("prod", "metrics")
    assert restored.access_token == "at-plain-access"
    assert restored.refresh_token == "rt-plain-refresh"
    assert client == CLIENT

    settings.OAUTH_TOKEN_KEYS = [old]  # only the retired key: unreadable, said plainly
    with pytest.raises(oauth_grants.GrantUnavailable) as caught:
        oauth_grants.stored("prod", "metrics")
    assert "OAUTH_TOKEN_KEYS" in str(caught.value)


@pytest.mark.django_db
def test_rotate_command(settings, capsys):
    old, new = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    settings.OAUTH_TOKEN_KEYS = [old]
    oauth_grants.save_grant(
        environment="prod",
        server="metrics",
        tokens=mcpclient.Tokens(access_token="a"),
        client=CLIENT,
    )
    settings.OAUTH_TOKEN_KEYS = [new, old]
    call_command("rotate_oauth_keys")
    assert "re-encrypted 1 OAuth grant(s)" in capsys.readouterr().out
    settings.OAUTH_TOKEN_KEYS = [new]
    assert oauth_grants.stored("prod", "metrics")[0].access_token == "a"

    settings.OAUTH_TOKEN_KEYS = [Fernet.generate_key().decode()]
    from django.core.management.base import CommandError

    with pytest.raises(CommandError):
        call_command("rotate_oauth_keys")


@pytest.mark.django_db
def test_auth_state():
    now = datetime.now(tz=UTC)
    assert oauth_grants.auth_state(None, now) == "not connected"
    grant = OAuthGrant(expires_at=now + timedelta(hours=1))
    assert oauth_grants.auth_state(grant, now) == "connected"
    grant.expires_at = now + timedelta(seconds=10)
    assert oauth_grants.auth_state(grant, now) == "expiring"
    grant.failed_at = now
    assert oauth_grants.auth_state(grant, now) == "failed"


@pytest.mark.anyio
@pytest.mark.django_db(transaction=True)
async def test_worker_uses_the_stored_grant_and_stores_the_rotated_refresh_token(
    caplog,
):
    caplog.set_level(logging.DEBUG)
    world = OAuthWorld(clients={"app": "pw"})
    async with scripted_server(world) as server:
        world.base = server.url.removesuffix("/mcp")
        first = await admin_grant(world)
        await sync_to_async(oauth_grants.save_grant, thread_sensitive=False)(
            environment="prod", server="metrics", tokens=expiring(first), client=CLIENT
        )
        entry = ServerEntry(
            name="metrics",
            transport="http",
            url=world.mcp_url,
            oauth=OAuthConfig(grant="connected"),
        )
        auth = oauth_grants.StoredGrantAuth("prod", "metrics")
        async with connect_server(entry, auth=auth) as session:
            result = await session.call_tool("whoami", {})
        assert result.text  # the server accepted the renewed token

        renewed, _ = await sync_to_async(oauth_grants.stored, thread_sensitive=False)(
            "prod", "metrics"
        )
        row = await OAuthGrant.objects.aget()
    assert renewed.access_token != first.access_token
    assert renewed.refresh_token in world.refresh
    assert renewed.refresh_token != first.refresh_token  # the rotated one is kept
    assert row.refreshed_at is not None and row.failed_at is None
    assert oauth_grants.auth_state(row) == "connected"
    logged = caplog.text + repr(auth)
    for secret in tokens_of(world):
        assert secret not in logged


@pytest.mark.anyio
@pytest.mark.django_db(transaction=True)
async def test_concurrent_workers_renew_once():
    world = OAuthWorld(clients={"app": "pw"})
    async with scripted_server(world) as server:
        world.base = server.url.removesuffix("/mcp")
        first = await admin_grant(world)
        await sync_to_async(oauth_grants.save_grant, thread_sensitive=False)(
            environment="prod", server="metrics", tokens=expiring(first), client=CLIENT
        )
        issued_before = len(world.tokens)
        barrier = threading.Barrier(3)

        def worker() -> str:
            barrier.wait()
            return oauth_grants.fresh_tokens("prod", "metrics").access_token

        got = await asyncio.gather(
            *(sync_to_async(worker, thread_sensitive=False)() for _ in range(3))
        )
    assert len(set(got)) == 1  # one renewal, the others read it under the lock
    assert len(world.tokens) == issued_before + 1


@pytest.mark.anyio
@pytest.mark.django_db(transaction=True)
async def test_a_refused_renewal_is_recorded_without_the_tokens():
    world = OAuthWorld(clients={"app": "pw"})
    async with scripted_server(world) as server:
        world.base = server.url.removesuffix("/mcp")
        first = await admin_grant(world)
        await sync_to_async(oauth_grants.save_grant, thread_sensitive=False)(
            environment="prod", server="metrics", tokens=expiring(first), client=CLIENT
        )
        world.refresh_fails = True
        with pytest.raises(oauth_grants.GrantUnavailable) as caught:
            await sync_to_async(oauth_grants.fresh_tokens, thread_sensitive=False)(
                "prod", "metrics"
            )
        row = await OAuthGrant.objects.aget()
    assert "invalid_grant" in row.last_error
    assert oauth_grants.auth_state(row) == "failed"
    for secret in [*tokens_of(world), "pw"]:
        assert secret not in str(caught.value)
        assert secret not in row.last_error


@pytest.mark.anyio
@pytest.mark.django_db(transaction=True)
async def test_the_engine_pool_calls_a_connected_server_with_the_stored_grant(caplog):
    from diagnosis.engine.server_pool import ServerPool, pool_key

    caplog.set_level(logging.DEBUG)
    world = OAuthWorld(clients={"app": "pw"})
    async with scripted_server(world) as server:
        world.base = server.url.removesuffix("/mcp")
        first = await admin_grant(world)
        await sync_to_async(oauth_grants.save_grant, thread_sensitive=False)(
            environment="prod", server="metrics", tokens=expiring(first), client=CLIENT
        )
        entry = ServerEntry(
            name="metrics",
            transport="http",
            url=world.mcp_url,
            protocol_version="2025-11-25",
            oauth=OAuthConfig(grant="connected"),
        )
        pool = ServerPool(idle_seconds=60)
        try:
            key = pool_key("prod", entry, tenant="default")
            await pool.lend(key)
            try:
                result, attrs, _ = await pool.call_tool(key, "whoami", {}, timeout=10)
            finally:
                pool.give_back(key)
        finally:
            await asyncio.to_thread(pool.close, drain_seconds=0)
        row = await OAuthGrant.objects.aget()
    assert result.text
    assert row.refreshed_at is not None  # renewed before use: it was about to expire
    for secret in tokens_of(world):
        assert secret not in caplog.text
        assert secret not in repr(attrs)
