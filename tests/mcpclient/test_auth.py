"""OAuth against a live local authorization server and protected MCP server (servers/oauth_http.py).

Every test connects over real HTTP on 127.0.0.1 and checks what the servers saw: discovery order,
the client id, PKCE, resource, scopes, iss and state checks, refresh, step-up, client credentials,
and that no token or secret shows in a repr or an error message.
"""

from __future__ import annotations

import asyncio
import logging
import time

import httpx
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

import mcpclient
from mcpclient._auth import ServerMetadata, begin_authorization, obtain_client
from mcpclient._auth._discovery import (
    canonical_resource,
    resource_matches,
    resource_metadata_urls,
    server_metadata_urls,
)
from mcpclient._auth._tokens import request_tokens

from .servers.oauth_http import OAuthWorld
from .servers.scripted_http import scripted_server

pytestmark = pytest.mark.anyio

REDIRECT = "http://127.0.0.1:9/callback"
CIMD = "https://client.example.com/mcp-client.json"


async def headless(url: str) -> str:
    async with httpx.AsyncClient(follow_redirects=False) as http:
        return (await http.get(url)).headers["location"]


def code_auth(**options) -> mcpclient.AuthorizationCode:
    options.setdefault("user_agent", headless)
    return mcpclient.AuthorizationCode(redirect_uri=REDIRECT, **options)


async def session(world: OAuthWorld, auth: httpx.Auth, calls: int = 1) -> list[str]:
    """Connect to the running ``world``, list tools and call whoami ``calls`` times."""
    spec = mcpclient.HttpServer(url=world.mcp_url, auth=auth)
    async with mcpclient.connect(spec, protocol_version="2025-11-25") as client:
        await client.list_tools()
        return [(await client.call_tool("whoami", {})).text for _ in range(calls)]


async def run(world: OAuthWorld, auth: httpx.Auth, *, calls: int = 1) -> list[str]:
    """``session`` against ``world`` served for the occasion."""
    async with scripted_server(world) as server:
        world.base = server.url.removesuffix("/mcp")
        return await session(world, auth, calls)


def secrets_of(world: OAuthWorld) -> list[str]:
    return [*world.tokens, *world.refresh, *(s for s in world.clients.values() if s)]


async def test_authorization_code_with_dynamic_registration_end_to_end():
    world = OAuthWorld(prm_scopes=["mcp:read"])
    auth = code_auth()
    texts = await run(world, auth)
    assert texts[0].startswith("dcr-")
    [registration] = world.seen("register")
    assert registration["application_type"] == "native"
    assert "refresh_token" in registration["grant_types"]
    [query] = world.seen("authorize")
    assert query["resource"] == world.mcp_url
    assert query["code_challenge_method"] == "S256"
    assert query["scope"] == "mcp:read"
    [token] = world.seen("token")
    assert token["resource"] == world.mcp_url
    assert world.seen("client_auth") == ["client_secret_basic"]
    assert world.seen("path")[:3] == [
        "/mcp",
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-authorization-server",
    ]
    assert auth.authorizations == 1
    for secret in secrets_of(world):
        assert secret not in repr(auth)
        assert secret not in repr(auth.tokens)
        assert secret not in repr(auth._registrations)


async def test_client_metadata_document_is_used_where_supported():
    world = OAuthWorld(cimd=True)
    auth = code_auth(
        metadata=mcpclient.ClientMetadata(redirect_uris=(REDIRECT,), metadata_url=CIMD)
    )
    assert await run(world, auth) == [CIMD]
    assert world.seen("register") == []
    assert world.seen("client_auth") == ["none"]


async def test_pre_registered_client_wins_and_is_bound_to_its_issuer():
    world = OAuthWorld(clients={"pre": "s3cret"}, registration=False)
    auth = code_auth(client=mcpclient.ClientInfo("pre", client_secret="s3cret"))
    assert await run(world, auth) == ["pre"]
    assert "s3cret" not in repr(auth.pre_registered)

    world = OAuthWorld(clients={"pre": "s3cret"})
    bound = mcpclient.ClientInfo(
        "pre", client_secret="s3cret", issuer="https://other.example.com"
    )
    with pytest.raises(mcpclient.AuthorizationFlowError) as caught:
        await run(world, code_auth(client=bound))
    assert caught.value.stage == "registration"
    assert "s3cret" not in str(caught.value)
    assert world.seen("token") == []


async def test_client_secret_post_and_public_clients():
    world = OAuthWorld(auth_methods=["client_secret_post"])
    await run(world, code_auth())
    assert world.seen("client_auth") == ["client_secret_post"]

    world = OAuthWorld(registered_secret=False, registered_method="none")
    await run(world, code_auth())
    assert world.seen("client_auth") == ["none"]


@pytest.mark.parametrize(
    ("change", "stage"),
    [
        ({"iss_mode": "wrong"}, "authorization"),
        ({"iss_mode": "omit"}, "authorization"),
        ({"iss_mode": "wrong", "iss_supported": False}, "authorization"),
        ({"state_mode": "wrong"}, "authorization"),
        ({"authorize_error": "access_denied"}, "authorization"),
        ({"metadata_issuer": "https://attacker.example.com"}, "discovery"),
        ({"prm_resource": "https://evil.example.com/mcp"}, "discovery"),
        ({"challenge_methods": None}, "authorization"),
        ({"registration": False}, "registration"),
        ({"registration_status": 400}, "registration"),
        ({"metadata": False}, "discovery"),
        ({"prm_servers": []}, "discovery"),
        ({"metadata_drop": ("token_endpoint",)}, "discovery"),
        (
            {"prm": False, "metadata_issuer": "https://attacker.example.com"},
            "discovery",
        ),
        ({"omit_code": True}, "authorization"),
        ({"raw": {"/register": (201, b"not json")}}, "registration"),
    ],
)
async def test_refusals_before_any_code_reaches_the_token_endpoint(change, stage):
    world = OAuthWorld(**change)
    with pytest.raises(mcpclient.AuthorizationFlowError) as caught:
        await run(world, code_auth())
    assert caught.value.stage == stage, caught.value
    assert caught.value.layer == mcpclient.Layer.AUTHORIZATION
    assert world.seen("token") == []


async def test_iss_absent_and_not_advertised_proceeds():
    world = OAuthWorld(iss_supported=False, iss_mode="omit")
    await run(world, code_auth())
    assert len(world.seen("token")) == 1


async def test_issuer_with_a_path_found_by_oidc_discovery_without_a_hint():
    world = OAuthWorld(issuer_path="/tenant", oidc=True, hint_prm=False)
    await run(world, code_auth())
    paths = world.seen("path")
    assert paths.index("/.well-known/oauth-authorization-server/tenant") < paths.index(
        "/.well-known/openid-configuration/tenant"
    )
    assert "/.well-known/oauth-authorization-server" not in paths
    assert len(world.seen("token")) == 1


async def test_2025_03_26_fallbacks_without_protected_resource_metadata():
    world = OAuthWorld(prm=False)
    await run(world, code_auth())
    assert world.seen("authorize")[0]["resource"] == world.mcp_url
    assert "/.well-known/oauth-protected-resource" in world.seen("path")


async def test_scope_from_the_challenge_then_step_up_with_the_union():
    world = OAuthWorld(
        www_scope="mcp:read",
        prm_scopes=["mcp:other"],
        required={"tools/list": ["mcp:read"], "tools/call": ["mcp:write"]},
    )
    auth = code_auth()
    await run(world, auth)
    scopes = [query.get("scope") for query in world.seen("authorize")]
    assert scopes == ["mcp:read", "mcp:read mcp:write"]
    assert auth.authorizations == 2


async def test_step_up_stops_when_the_scopes_were_already_asked_for():
    world = OAuthWorld(
        required={"tools/call": ["mcp:admin"]}, grant_only=[], www_scope="mcp:admin"
    )
    auth = code_auth()
    with pytest.raises(mcpclient.AuthorizationError) as caught:
        await run(world, auth)
    assert caught.value.status == 403
    assert len(world.seen("authorize")) == 1

    world = OAuthWorld(required={"tools/call": ["a"]}, grant_only=[])
    auth = code_auth(max_step_up=0)
    with pytest.raises(mcpclient.AuthorizationError):
        await run(world, auth)
    assert len(world.seen("authorize")) == 1


async def test_offline_access_where_the_authorization_server_lists_it():
    world = OAuthWorld(
        as_scopes=["mcp:read", "offline_access"], prm_scopes=["mcp:read"]
    )
    await run(world, code_auth())
    assert world.seen("authorize")[0]["scope"] == "mcp:read offline_access"

    world = OAuthWorld(as_scopes=["mcp:read"])
    await run(world, code_auth())
    assert "scope" not in world.seen("authorize")[0]


async def test_refresh_before_expiry_and_after_a_rejected_token():
    world = OAuthWorld(expires_in=30)
    stored: list[mcpclient.Tokens] = []
    auth = code_auth(refresh_margin=60, on_tokens=stored.append)
    await run(world, auth, calls=2)
    grants = [form["grant_type"] for form in world.seen("token")]
    assert grants[0] == "authorization_code"
    assert grants.count("refresh_token") >= 2
    assert auth.authorizations == 1
    assert stored[-1] is auth.tokens
    assert stored[-1].refresh_token is not None

    # The server forgets the token: the 401 is answered with the refresh token, not a new grant.
    world = OAuthWorld()
    auth = code_auth()

    async def forget_then_call() -> None:
        async with scripted_server(world) as server:
            world.base = server.url.removesuffix("/mcp")
            spec = mcpclient.HttpServer(url=server.url, auth=auth)
            async with mcpclient.connect(spec, protocol_version="2025-11-25") as client:
                await client.list_tools()
                world.tokens.clear()
                await client.call_tool("whoami", {})

    await forget_then_call()
    assert [form["grant_type"] for form in world.seen("token")] == [
        "authorization_code",
        "refresh_token",
    ]


async def test_a_failed_refresh_drops_the_token_and_authorizes_again():
    world = OAuthWorld(expires_in=30, refresh_fails=True)
    auth = code_auth(refresh_margin=60)
    await run(world, auth, calls=1)
    assert auth.authorizations >= 2


async def test_stored_tokens_are_used_without_a_user_agent_and_refreshed():
    world = OAuthWorld(clients={"app": "pw"})
    client = mcpclient.ClientInfo("app", client_secret="pw")
    async with scripted_server(world) as server:
        world.base = server.url.removesuffix("/mcp")
        first = code_auth(client=client)
        await session(world, first)
        saved = mcpclient.Tokens.from_dict(first.tokens.to_dict())
        # A worker: the stored grant, about to expire, and no browser.
        expiring = mcpclient.Tokens(
            **{**saved.to_dict(), "expires_at": time.time() + 5}
        )
        worker = code_auth(client=client, user_agent=None, tokens=expiring)
        await session(world, worker)
        assert worker.authorizations == 0
        assert worker.tokens.access_token != saved.access_token
        assert worker.tokens.refresh_token == saved.refresh_token or (
            worker.tokens.refresh_token in world.refresh
        )

        stale = mcpclient.Tokens(access_token="revoked", issuer=None)
        lost = code_auth(client=client, user_agent=None, tokens=stale)
        with pytest.raises(mcpclient.AuthorizationFlowError) as caught:
            await session(world, lost)
    assert "revoked" not in str(caught.value)
    assert caught.value.stage == "authorization"


async def test_client_credentials_with_a_secret_and_with_a_private_key():
    world = OAuthWorld(clients={"svc": "pw"}, grant_types=["client_credentials"])
    auth = mcpclient.ClientCredentials("svc", client_secret="pw", scope="mcp:read")
    assert await run(world, auth) == ["svc"]
    [form] = world.seen("token")
    assert form["grant_type"] == "client_credentials"
    assert form["scope"] == "mcp:read"
    assert form["resource"] == world.mcp_url
    assert "pw" not in repr(auth) + repr(auth.client)

    key = ec.generate_private_key(ec.SECP256R1())
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    world = OAuthWorld(jwt_key=key.public_key(), auth_methods=["private_key_jwt"])
    auth = mcpclient.ClientCredentials("svc", private_key=pem)
    assert await run(world, auth) == ["svc"]
    assert world.seen("client_auth") == ["private_key_jwt"]

    bad = mcpclient.ClientCredentials("svc", private_key="not a key")
    with pytest.raises(mcpclient.AuthorizationFlowError) as caught:
        await run(OAuthWorld(), bad)
    assert caught.value.stage == "token"


async def test_client_credentials_renewed_before_expiry_and_refused_grant():
    world = OAuthWorld(clients={"svc": "pw"}, expires_in=30, refresh_tokens=False)
    auth = mcpclient.ClientCredentials("svc", client_secret="pw", refresh_margin=60)
    await run(world, auth, calls=2)
    assert auth.authorizations >= 3
    assert {form["grant_type"] for form in world.seen("token")} == {
        "client_credentials"
    }

    world = OAuthWorld(clients={"svc": "pw"}, grant_types=["authorization_code"])
    with pytest.raises(mcpclient.AuthorizationFlowError):
        await run(world, mcpclient.ClientCredentials("svc", client_secret="pw"))

    # A renewal that fails leaves no token behind: the next request starts over.
    world = OAuthWorld(clients={"svc": "pw"}, expires_in=30)
    auth = mcpclient.ClientCredentials("svc", client_secret="pw", refresh_margin=60)
    await run(world, auth)
    world.token_status = 503
    await auth._renew_expiring(world.mcp_url)
    assert auth.tokens is None


@pytest.mark.parametrize(
    ("status", "body", "expected"),
    [
        (
            400,
            {"error": "invalid_grant", "error_description": "expired code"},
            "invalid_grant",
        ),
        (500, "not json", "HTTP 500"),
        (200, {"token_type": "Bearer"}, "without an access token"),
        (200, {"access_token": "at-x", "token_type": "DPoP"}, "only Bearer"),
        (200, ["a list"], "without an access token"),
    ],
)
async def test_token_endpoint_failures_say_what_without_secrets(status, body, expected):
    world = OAuthWorld(token_status=status, token_body=body)
    with pytest.raises(mcpclient.AuthorizationFlowError) as caught:
        await run(world, code_auth())
    assert expected in str(caught.value)
    assert "at-x" not in str(caught.value)
    for secret in secrets_of(world):
        assert secret not in str(caught.value)


async def test_concurrent_requests_share_one_authorization():
    world = OAuthWorld()
    auth = code_auth()
    async with scripted_server(world) as server:
        world.base = server.url.removesuffix("/mcp")
        spec = mcpclient.HttpServer(url=server.url, auth=auth)
        async with mcpclient.connect(spec, protocol_version="2025-11-25") as client:
            world.tokens.clear()
            auth._tokens = None
            await asyncio.gather(*(client.list_tools() for _ in range(4)))
    # One for the handshake, one for the four requests that were refused together.
    assert auth.authorizations == 2
    assert len(world.seen("authorize")) == 2


async def test_unreachable_authorization_server_and_token_endpoint():
    world = OAuthWorld()
    async with scripted_server(world) as server:
        world.base = server.url.removesuffix("/mcp")
        url = server.url
    # The server is gone: discovery finds nothing (the 401 came from nowhere, so: no server).
    auth = code_auth()
    with pytest.raises(mcpclient.AuthorizationFlowError):
        await auth._authorize(url, {}, step_up=False)
    creds = mcpclient.ClientCredentials("svc", client_secret="pw")
    gone = ServerMetadata(
        issuer="http://127.0.0.1:9",
        authorization_endpoint="http://127.0.0.1:9/a",
        token_endpoint="http://127.0.0.1:9/t",
        registration_endpoint="http://127.0.0.1:9/r",
    )
    async with httpx.AsyncClient() as http:
        with pytest.raises(mcpclient.AuthorizationFlowError) as caught:
            await request_tokens(http, gone, creds.client, {}, resource=None)
        assert caught.value.stage == "token"
        with pytest.raises(mcpclient.AuthorizationFlowError) as caught:
            await obtain_client(http, gone, mcpclient.ClientMetadata(), None)
        assert caught.value.stage == "registration"


def test_usage_errors_and_reprs(caplog):
    with pytest.raises(mcpclient.UsageError):
        mcpclient.ClientCredentials("svc")
    with pytest.raises(mcpclient.UsageError):
        mcpclient.ClientCredentials("svc", client_secret="a", private_key="b")
    with pytest.raises(mcpclient.UsageError):
        mcpclient.ClientMetadata(metadata_url="http://example.com/x.json")
    with pytest.raises(mcpclient.UsageError):
        mcpclient.ClientMetadata(application_type="desktop")
    tokens = mcpclient.Tokens(
        access_token="AT-SECRET", refresh_token="RT-SECRET", expires_at=None
    )
    assert "SECRET" not in repr(tokens) + str(tokens)
    assert not tokens.expires_within(10)
    auth = code_auth(tokens=tokens, on_tokens=lambda _: 1 / 0)
    assert "SECRET" not in repr(auth)
    with caplog.at_level(logging.ERROR, logger="mcpclient.auth"):
        auth._store(tokens)
    assert "on_tokens failed" in caplog.text
    assert "SECRET" not in caplog.text
    assert repr(code_auth()).endswith("(no token)")


def test_discovery_urls_and_resource_matching():
    assert server_metadata_urls("https://as.example.com/t1/") == [
        "https://as.example.com/.well-known/oauth-authorization-server/t1",
        "https://as.example.com/.well-known/openid-configuration/t1",
        "https://as.example.com/t1/.well-known/openid-configuration",
    ]
    assert canonical_resource("HTTPS://MCP.Example.com:8443/mcp#frag") == (
        "https://mcp.example.com:8443/mcp"
    )
    assert canonical_resource("https://mcp.example.com/?a=1") == (
        "https://mcp.example.com?a=1"
    )
    assert resource_matches("https://h/mcp", "https://h")
    assert resource_matches("https://h/a/mcp", "https://h/a")
    assert not resource_matches("https://h/ab", "https://h/a")
    assert not resource_matches("https://h/mcp", "https://other/mcp")
    assert not resource_matches("https://h/mcp", "http://a:abc/")
    assert resource_metadata_urls("https://h", None) == [
        "https://h/.well-known/oauth-protected-resource"
    ]
    server = ServerMetadata(
        issuer=None,
        authorization_endpoint="https://as/a?x=1",
        token_endpoint="https://as/t",
    )
    pending = begin_authorization(
        server,
        mcpclient.ClientInfo("c"),
        redirect_uri=REDIRECT,
        resource=None,
        scope=None,
    )
    assert pending.url.startswith("https://as/a?x=1&response_type=code")
    assert "resource=" not in pending.url
    assert pending.code_verifier not in repr(pending)


async def test_a_token_still_refused_after_a_new_grant_or_a_plain_403_is_reported():
    world = OAuthWorld(reject_tokens=True)
    with pytest.raises(mcpclient.AuthorizationError) as caught:
        await run(world, code_auth())
    assert caught.value.status == 401
    assert len(world.seen("authorize")) == 1

    world = OAuthWorld(forbid={"tools/call"})
    with pytest.raises(mcpclient.AuthorizationError) as caught:
        await run(world, code_auth())
    assert caught.value.status == 403
    assert len(world.seen("authorize")) == 1


async def test_unusable_metadata_documents_are_skipped():
    prm = "/.well-known/oauth-protected-resource/mcp"
    for body in (b"x" * 300_000, b"not json", b"[1]"):
        world = OAuthWorld(raw={prm: (200, body)})
        await run(world, code_auth())
        assert len(world.seen("token")) == 1  # found through the 2025-03-26 fallback


async def test_injected_http_client_registration_method_and_refresh_keeping_the_old_token():
    async with httpx.AsyncClient() as http:
        world = OAuthWorld(
            expires_in=30,
            rotate_refresh=False,
            prm_scopes=["mcp:read"],
            registered_method="client_secret_post",
        )
        auth = code_auth(
            http_client=http,
            refresh_margin=60,
            metadata=mcpclient.ClientMetadata(
                redirect_uris=(REDIRECT,),
                token_endpoint_auth_method="client_secret_post",
            ),
        )
        first_refresh = None
        async with scripted_server(world) as server:
            world.base = server.url.removesuffix("/mcp")
            spec = mcpclient.HttpServer(url=server.url, auth=auth)
            async with mcpclient.connect(spec, protocol_version="2025-11-25") as client:
                first_refresh = auth.tokens.refresh_token
                await asyncio.gather(*(client.list_tools() for _ in range(3)))
        assert auth.tokens.refresh_token == first_refresh
        assert auth.tokens.scope == "mcp:read"
        assert (
            world.seen("register")[0]["token_endpoint_auth_method"]
            == "client_secret_post"
        )
        assert set(world.seen("client_auth")) == {"client_secret_post"}


async def test_stored_tokens_without_a_client_and_client_credentials_refresh():
    world = OAuthWorld(clients={"svc": "pw"})
    async with scripted_server(world) as server:
        world.base = server.url.removesuffix("/mcp")
        expiring = mcpclient.Tokens(
            access_token="gone",
            refresh_token="rt-x",
            expires_at=time.time(),
            issuer=world.issuer,
        )
        lost = code_auth(user_agent=None, tokens=expiring)
        with pytest.raises(mcpclient.AuthorizationFlowError):
            await session(world, lost)
        assert world.seen("token") == []  # no client to refresh with

        creds = mcpclient.ClientCredentials("svc", client_secret="pw")
        await session(world, creds)
        renewing = mcpclient.ClientCredentials(
            "svc",
            client_secret="pw",
            refresh_margin=60,
            tokens=mcpclient.Tokens(
                **{**creds.tokens.to_dict(), "expires_at": time.time() + 5}
            ),
        )
        await session(world, renewing)
        assert "refresh_token" in [
            form.get("grant_type") for form in world.seen("token")
        ]


async def test_token_answers_that_are_not_json():
    for status, body, expected in (
        (500, b"<html>down</html>", "HTTP 500"),
        (200, b"nope", "without an access token"),
    ):
        world = OAuthWorld(raw={"/token": (status, body)})
        with pytest.raises(mcpclient.AuthorizationFlowError) as caught:
            await run(world, code_auth())
        assert expected in str(caught.value)


def test_one_provider_in_successive_event_loops():
    """A worker may run each job in its own loop; the provider's lock follows the loop (a lock
    bound to the first loop would fail the second loop's waiting requests)."""
    world = OAuthWorld(clients={"svc": "pw"})
    auth = mcpclient.ClientCredentials("svc", client_secret="pw")

    async def refused_together() -> None:
        async with scripted_server(world) as server:
            world.base = server.url.removesuffix("/mcp")
            spec = mcpclient.HttpServer(url=server.url, auth=auth)
            async with mcpclient.connect(spec, protocol_version="2025-11-25") as client:
                world.tokens.clear()
                await asyncio.gather(*(client.list_tools() for _ in range(3)))

    counts = []
    for _ in range(2):
        asyncio.run(refused_together())
        counts.append(auth.authorizations)
    assert counts[0] >= 1
    assert counts[1] == counts[0] + 1  # the three refused requests shared one new grant


async def test_no_token_or_secret_in_logs_records_or_errors(caplog):
    """Everything an authorized session logs at DEBUG (ours, httpx, httpcore), every call record,
    and the errors of a refused step-up: none holds a token, a code or a secret."""
    world = OAuthWorld(
        expires_in=30,
        prm_scopes=["mcp:read"],
        required={"tools/call": ["mcp:admin"]},
        grant_only=["mcp:read"],
    )
    records: list[mcpclient.CallRecord] = []

    async def browser(url: str) -> str:
        """The user agent is the user's browser, outside this process: its traffic is not ours."""
        logging.disable(logging.CRITICAL)
        try:
            return await headless(url)
        finally:
            logging.disable(logging.NOTSET)

    auth = code_auth(refresh_margin=60, user_agent=browser)
    errors: list[str] = []
    # Each logger's own level too: another test of the run may have raised one (manage.py
    # evaluate sets httpx's to WARNING in process), which would hide what this test greps.
    with (
        caplog.at_level(logging.DEBUG),
        caplog.at_level(logging.DEBUG, logger="httpx"),
        caplog.at_level(logging.DEBUG, logger="httpcore"),
        caplog.at_level(logging.DEBUG, logger="mcpclient"),
    ):
        async with scripted_server(world) as server:
            world.base = server.url.removesuffix("/mcp")
            spec = mcpclient.HttpServer(url=server.url, auth=auth)
            async with mcpclient.connect(
                spec, protocol_version="2025-11-25", observer=records.append
            ) as client:
                await client.list_tools()
                with pytest.raises(mcpclient.AuthorizationError) as caught:
                    await client.call_tool("whoami", {})
                errors.append(repr(caught.value) + str(caught.value))
    codes = world.seen("code")
    assert codes
    # (The code challenge is public: it travels in the authorization URL.)
    secrets = [*secrets_of(world), *codes]
    assert len(world.seen("token")) >= 3  # a grant, refreshes, a step-up grant
    text = caplog.text + "".join(map(repr, records)) + "".join(errors) + repr(auth)
    assert "HTTP Request" in caplog.text  # httpx did log at DEBUG/INFO
    for secret in secrets:
        assert secret not in text


async def test_refresh_tokens_renews_a_stored_grant_and_keeps_an_unrotated_refresh_token():
    """`mcpclient.refresh_tokens`: what a worker does with a grant an admin connected earlier."""
    world = OAuthWorld(clients={"app": "pw"})
    async with scripted_server(world) as server:
        world.base = server.url.removesuffix("/mcp")
        auth = mcpclient.AuthorizationCode(
            redirect_uri="http://127.0.0.1:9/callback",
            user_agent=headless,
            client=mcpclient.ClientInfo("app", client_secret="pw"),
        )
        await session(world, auth)
        first = auth.tokens
        assert first is not None and first.refresh_token is not None
        async with httpx.AsyncClient() as http:
            renewed = await mcpclient.refresh_tokens(
                http, first, mcpclient.ClientInfo("app", client_secret="pw")
            )
            assert renewed.access_token != first.access_token
            assert renewed.access_token in world.tokens
            assert renewed.issuer == first.issuer and renewed.resource == first.resource
            # A grant without a refresh token cannot be renewed: a typed error, no request.
            bare = mcpclient.Tokens(access_token="x", issuer=first.issuer)
            with pytest.raises(
                mcpclient.AuthorizationFlowError, match="no refresh token"
            ):
                await mcpclient.refresh_tokens(http, bare, mcpclient.ClientInfo("app"))


async def test_start_authorization_from_the_server_url_then_complete_in_another_request():
    """A web app's Connect: discovery, dynamic registration and PKCE from the URL alone; the
    pending authorization survives a JSON round trip (the app's session) to the callback."""
    import json

    world = OAuthWorld(
        as_scopes=["mcp:read", "offline_access"], prm_scopes=["mcp:read"]
    )
    async with scripted_server(world) as server:
        world.base = server.url.removesuffix("/mcp")
        async with httpx.AsyncClient() as http:
            pending = await mcpclient.start_authorization(
                http,
                world.mcp_url,
                redirect_uri=REDIRECT,
                metadata=mcpclient.ClientMetadata(
                    client_name="AgentOps",
                    redirect_uris=(REDIRECT,),
                    application_type="web",
                ),
            )
            saved = json.loads(json.dumps(pending.to_dict()))
            assert pending.code_verifier not in repr(pending)
            callback = await headless(pending.url)
            restored = mcpclient.PendingAuthorization.from_dict(saved)
            assert restored == pending
            tokens = await mcpclient.complete_authorization(http, restored, callback)
        [registration] = world.seen("register")
        assert registration["application_type"] == "web"
        assert registration["client_name"] == "AgentOps"
        [query] = world.seen("authorize")
        assert query["resource"] == world.mcp_url
        assert query["code_challenge_method"] == "S256"
        assert query["scope"] == "mcp:read offline_access"
        [token] = world.seen("token")
        assert token["resource"] == world.mcp_url
        assert tokens.access_token in world.tokens
        assert tokens.refresh_token in world.refresh
        assert tokens.issuer == world.issuer and tokens.resource == world.mcp_url
        # A pre-registered client and an explicit scope; the 2025-03-26 fallback without PRM.
        world.prm = False
        world.clients["pre"] = "s3cret"
        async with httpx.AsyncClient() as http:
            pending = await mcpclient.start_authorization(
                http,
                world.mcp_url,
                redirect_uri=REDIRECT,
                client=mcpclient.ClientInfo("pre", client_secret="s3cret"),
                scope="a b",
                offline_access=False,
            )
        assert "client_id=pre" in pending.url and "scope=a+b" in pending.url
        assert pending.resource == world.mcp_url
        assert len(world.seen("register")) == 1
        # No PRM scopes and no explicit scope: none asked for.
        world.prm, world.prm_scopes, world.as_scopes = True, None, None
        async with httpx.AsyncClient() as http:
            pending = await mcpclient.start_authorization(
                http, world.mcp_url, redirect_uri=REDIRECT
            )
        assert pending.scope is None and "scope=" not in pending.url
