"""An admin's "Connect" of a server whose registry entry says `auth = {type = "oauth", grant =
"connected"}`: the authorization-code grant (PKCE S256, RFC 8707 resource) in two requests.

`connect_begin` discovers the server's authorization server and registers with it (mcpclient's
`start_authorization`), keeps the pending authorization in the admin's session, sealed with the
grants' cipher and filed under a digest of its state, and answers the provider's authorize URL.
`connect_finish` takes the callback: the state must name a pending authorization of this same
session (so a forged or replayed callback finds nothing), not older than STATE_TTL, and is spent
on first use whatever follows; then the code is exchanged and the grant stored
(oauth_grants.save_grant). A failure raises ConnectFailed with a message fit for the page and
leaves any stored grant as it was. No message here carries a token, a code or a secret.
"""

import asyncio
import hashlib
import json
import os
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
from cryptography.fernet import InvalidToken
from django.contrib.sessions.backends.base import SessionBase

import mcpclient
from diagnosis import environments, oauth_grants
from diagnosis.models import OAuthGrant, Tenant
from diagnosis.registry import ServerEntry

SESSION_KEY = "oauth_connect"
STATE_TTL = 600  # seconds from the Connect click to the callback
_PENDING_LIMIT = 5  # pending authorizations kept per session (the oldest is dropped)
_HTTP_TIMEOUT = 30.0


class ConnectFailed(Exception):
    """The Connect flow stopped; `message` says why and is safe to show."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class OAuthServer:
    """One OAuth server of the tenant's environments, as the operations page shows it."""

    environment: str
    server: str
    grant: str  # "connected" or "client_credentials"
    state: str  # oauth_grants.AuthState, or "service account" for client credentials
    last_error: str = ""
    expires_at: datetime | None = None
    connected_by: str = ""
    connected_at: datetime | None = None
    refreshed_at: datetime | None = None

    @property
    def connectable(self) -> bool:
        return self.grant == "connected"


def oauth_servers(*, tenant: Tenant) -> list[OAuthServer]:
    """The OAuth servers of the environments `tenant` may use, with each stored grant's state."""
    entries = [
        (env.name, entry)
        for env in environments.environments_for(tenant)
        for entry in env.servers
        if entry.oauth is not None
    ]
    grants = {
        (g.environment, g.server): g
        for g in OAuthGrant.objects.filter(
            environment__in={name for name, _ in entries}
        ).select_related("connected_by")
    }
    out = []
    for name, entry in entries:
        assert entry.oauth is not None
        if entry.oauth.grant != "connected":
            out.append(
                OAuthServer(name, entry.name, entry.oauth.grant, "service account")
            )
            continue
        grant = grants.get((name, entry.name))
        out.append(
            OAuthServer(
                environment=name,
                server=entry.name,
                grant="connected",
                state=oauth_grants.auth_state(grant),
                last_error=grant.last_error if grant else "",
                expires_at=grant.expires_at if grant else None,
                connected_by=grant.connected_by.get_username()
                if grant and grant.connected_by
                else "",
                connected_at=grant.connected_at if grant else None,
                refreshed_at=grant.refreshed_at if grant else None,
            )
        )
    return out


def connectable_entry(*, tenant: Tenant, environment: str, server: str) -> ServerEntry:
    """The registry entry an admin of `tenant` may Connect.

    Raises:
        ConnectFailed: no such environment or server for this tenant, or it does not use the
            admin-connected grant.
    """
    for env in environments.environments_for(tenant):
        if env.name != environment:
            continue
        for entry in env.servers:
            if entry.name == server:
                if entry.oauth is None or entry.oauth.grant != "connected":
                    break
                return entry
    raise ConnectFailed(
        f"{environment}/{server} is not a server of this tenant that an admin connects"
    )


def _pre_registered(entry: ServerEntry) -> mcpclient.ClientInfo | None:
    """The client id (and secret) the entry names by variable, read from this process."""
    config = entry.oauth
    assert config is not None
    if config.client_id_env is None:
        return None
    client_id = os.environ.get(config.client_id_env, "").strip()
    if not client_id:
        raise ConnectFailed(
            f"{entry.name}: the variable {config.client_id_env} is not set in the web app"
        )
    secret = None
    if config.client_secret_env is not None:
        secret = os.environ.get(config.client_secret_env, "").strip() or None
    return mcpclient.ClientInfo(client_id=client_id, client_secret=secret)


def _digest(state: str) -> str:
    return hashlib.sha256(state.encode()).hexdigest()


async def _start(
    entry: ServerEntry, redirect_uri: str
) -> mcpclient.PendingAuthorization:
    assert entry.url is not None and entry.oauth is not None
    async with httpx.AsyncClient(timeout=_HTTP_TIMEOUT) as http:
        return await mcpclient.start_authorization(
            http,
            entry.url,
            redirect_uri=redirect_uri,
            metadata=mcpclient.ClientMetadata(
                client_name="AgentOps",
                redirect_uris=(redirect_uri,),
                application_type="web",
            ),
            client=_pre_registered(entry),
            scope=entry.oauth.scope,
        )


def connect_begin(
    *,
    tenant: Tenant,
    environment: str,
    server: str,
    redirect_uri: str,
    session: SessionBase,
) -> str:
    """Start the Connect of one server; the URL to send the admin's browser to.

    Call from a thread without a running event loop.

    Raises:
        ConnectFailed: not connectable, or discovery or registration failed.
    """
    entry = connectable_entry(tenant=tenant, environment=environment, server=server)
    try:
        pending = asyncio.run(_start(entry, redirect_uri))
    except mcpclient.McpError as exc:
        raise ConnectFailed(
            f"cannot start the authorization of {environment}/{server}: {exc}"
        ) from None
    except httpx.HTTPError as exc:
        raise ConnectFailed(
            f"cannot start the authorization of {environment}/{server}:"
            f" {type(exc).__name__}"
        ) from None
    sealed = (
        oauth_grants.cipher()
        .encrypt(
            json.dumps(
                {
                    "pending": pending.to_dict(),
                    "environment": environment,
                    "server": server,
                    "tenant": tenant.slug,
                }
            ).encode()
        )
        .decode("ascii")
    )
    waiting: dict[str, str] = dict(session.get(SESSION_KEY) or {})
    waiting[_digest(pending.state)] = sealed
    session[SESSION_KEY] = dict(list(waiting.items())[-_PENDING_LIMIT:])
    return pending.url


def _take(session: SessionBase, state: str) -> dict[str, Any]:
    """The pending authorization `state` names in this session, removed from it (single use)."""
    waiting: dict[str, str] = dict(session.get(SESSION_KEY) or {})
    sealed = waiting.pop(_digest(state), None) if state else None
    session[SESSION_KEY] = waiting
    if sealed is None:
        raise ConnectFailed(
            "this authorization answer matches no Connect started in this browser session"
            " (already used, from another session, or forged): nothing was changed"
        )
    try:
        document = json.loads(
            oauth_grants.cipher().decrypt(sealed.encode("ascii"), ttl=STATE_TTL)
        )
    except InvalidToken:
        raise ConnectFailed(
            f"this Connect was started more than {STATE_TTL // 60} minutes ago and has"
            " expired: click Connect again"
        ) from None
    assert isinstance(document, dict)
    return document


def connect_finish(
    *, tenant: Tenant, session: SessionBase, callback_url: str, user: Any
) -> OAuthGrant:
    """Finish the Connect the callback answers: check the state, exchange the code, store the
    grant (tokens and client sealed).

    Call from a thread without a running event loop.

    Raises:
        ConnectFailed: unknown, spent or expired state; the provider refused (consent denied);
            the token endpoint failed. Nothing stored changes.
    """
    query = parse_qs(urlsplit(callback_url).query)
    state = (query.get("state") or [""])[0]
    document = _take(session, state)
    environment, server = document["environment"], document["server"]
    if document.get("tenant") != tenant.slug:
        raise ConnectFailed(
            "this Connect was started in another tenant: switch back and connect again"
        )
    connectable_entry(tenant=tenant, environment=environment, server=server)
    pending = mcpclient.PendingAuthorization.from_dict(document["pending"])

    async def finish() -> mcpclient.Tokens:
        async with httpx.AsyncClient(timeout=_HTTP_TIMEOUT) as http:
            return await mcpclient.complete_authorization(http, pending, callback_url)

    try:
        tokens = asyncio.run(finish())
    except mcpclient.AuthorizationFlowError as exc:
        if exc.error == "access_denied":
            raise ConnectFailed(
                f"the provider reports that consent was denied for {environment}/{server}:"
                " nothing was changed"
            ) from None
        raise ConnectFailed(
            oauth_grants.safe_error(
                f"connecting {environment}/{server} failed: {exc}",
                pending.client.client_secret,
                pending.code_verifier,
                (query.get("code") or [""])[0],
            )
        ) from None
    return oauth_grants.save_grant(
        environment=environment,
        server=server,
        tokens=tokens,
        client=pending.client,
        user=user,
    )
