"""OAuth for Streamable HTTP servers as an ``httpx.Auth``: ``HttpServer(url, auth=ClientCredentials(...))``.

Every request carries the bearer token. A 401 starts discovery (PRM, then the authorization server)
and a new grant (after trying the refresh token where the rejected token had one); a 403 with
``insufficient_scope`` re-authorizes with the union of the scopes asked so far and the challenged
ones, at most ``max_step_up`` times per request and never twice for scopes already asked. A token
about to expire is refreshed (or, for client credentials, fetched again) before it is sent. One
authorization runs at a time; requests that waited for it use its token. Tokens appear in no repr,
log line or message; ``on_tokens`` hands new ones to the caller's (secret) store.
"""

from __future__ import annotations

import abc
import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Any

import httpx

from mcpclient._exceptions import AuthorizationFlowError, UsageError, parse_challenge

from ._authorization import begin_authorization, complete_authorization
from ._discovery import (
    ResourceMetadata,
    ServerMetadata,
    canonical_resource,
    discover_legacy,
    discover_resource,
    discover_server,
)
from ._registration import ClientMetadata, obtain_client
from ._tokens import ClientInfo, Tokens, request_tokens

if TYPE_CHECKING:
    from collections.abc import AsyncGenerator, Awaitable, Callable

    UserAgent = Callable[[str], Awaitable[str]]
    TokenCallback = Callable[[Tokens], None]

logger = logging.getLogger("mcpclient.auth")

OFFLINE_ACCESS = "offline_access"


def _scopes(value: str | None) -> list[str]:
    return [scope for scope in (value or "").split(" ") if scope]


class OAuth(httpx.Auth, abc.ABC):
    """The parts every grant shares; use AuthorizationCode or ClientCredentials."""

    requires_response_body = False

    def __init__(
        self,
        *,
        scope: str | None = None,
        tokens: Tokens | None = None,
        on_tokens: TokenCallback | None = None,
        http_client: httpx.AsyncClient | None = None,
        refresh_margin: float = 60.0,
        max_step_up: int = 2,
        timeout: float = 30.0,
    ) -> None:
        self.scope = scope
        self._tokens = tokens
        self._on_tokens = on_tokens
        self._http = http_client
        self.refresh_margin = refresh_margin
        self.max_step_up = max_step_up
        self.timeout = timeout
        self._requested: list[str] = _scopes(tokens.scope if tokens else None)
        self._server: ServerMetadata | None = None
        self._resource: str | None = tokens.resource if tokens else None
        self._lock = asyncio.Lock()
        self._lock_loop: asyncio.AbstractEventLoop | None = None
        self.authorizations = (
            0  # grants obtained (not refreshes): for tests and diagnostics
        )

    def __repr__(self) -> str:
        state = "no token" if self._tokens is None else repr(self._tokens)
        return f"{type(self).__name__}({state})"

    @property
    def tokens(self) -> Tokens | None:
        return self._tokens

    def _loop_lock(self) -> asyncio.Lock:
        """The lock for this event loop (a worker may use one provider from successive loops)."""
        loop = asyncio.get_running_loop()
        if self._lock_loop is not loop:
            self._lock, self._lock_loop = asyncio.Lock(), loop
        return self._lock

    # -- the httpx hook -------------------------------------------------------------------------

    async def async_auth_flow(
        self, request: httpx.Request
    ) -> AsyncGenerator[httpx.Request, httpx.Response]:
        server_url = str(request.url)
        sent = await self._fresh_tokens(server_url)
        self._apply(request, sent)
        response = yield request
        unauthorized_retried = False
        step_ups = 0
        while response.status_code in (401, 403):
            challenge = parse_challenge(response.headers.get("www-authenticate"))
            if response.status_code == 401:
                if unauthorized_retried:
                    return
                unauthorized_retried = True
                await self._reauthorize(server_url, challenge, sent)
            else:
                if challenge.get("error") != "insufficient_scope":
                    return
                wanted = _scopes(challenge.get("scope"))
                if step_ups >= self.max_step_up or all(
                    scope in self._requested for scope in wanted
                ):
                    return  # asked for these already: the transport reports the 403
                step_ups += 1
                await self._step_up(server_url, challenge, sent)
            sent = self._tokens
            self._apply(request, sent)
            response = yield request

    def _apply(self, request: httpx.Request, tokens: Tokens | None) -> None:
        if tokens is not None:
            request.headers["authorization"] = f"Bearer {tokens.access_token}"

    # -- keeping a token ------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def _http_client(self) -> AsyncGenerator[httpx.AsyncClient, None]:
        if self._http is not None:
            yield self._http
            return
        async with httpx.AsyncClient(
            timeout=httpx.Timeout(self.timeout, connect=10.0), follow_redirects=False
        ) as client:
            yield client

    def _store(self, tokens: Tokens | None) -> None:
        self._tokens = tokens
        if tokens is not None and self._on_tokens is not None:
            try:
                self._on_tokens(tokens)
            except Exception:
                logger.exception("on_tokens failed")

    async def _fresh_tokens(self, server_url: str) -> Tokens | None:
        """The current tokens, renewed first when they expire within ``refresh_margin``."""
        tokens = self._tokens
        if tokens is None or not tokens.expires_within(self.refresh_margin):
            return tokens
        async with self._loop_lock():
            if self._tokens is not tokens:
                return self._tokens
            if not await self._refresh(server_url, tokens):
                await self._renew_expiring(server_url)
        return self._tokens

    async def _renew_expiring(self, server_url: str) -> None:
        """No refresh token, or it failed: drop the expiring token (the next 401 starts a grant)."""
        self._store(None)

    async def _refresh(self, server_url: str, tokens: Tokens) -> bool:
        """Use the refresh token; True when that gave new tokens."""
        if tokens.refresh_token is None:
            return False
        async with self._http_client() as http:
            try:
                server = self._server
                if server is None or (tokens.issuer and server.issuer != tokens.issuer):
                    server = (
                        await discover_server(http, tokens.issuer)
                        if tokens.issuer
                        else await discover_legacy(http, server_url)
                    )
                client = self._registered_client(server)
                if client is None:
                    return False
                form = {
                    "grant_type": "refresh_token",
                    "refresh_token": tokens.refresh_token,
                }
                new = await request_tokens(
                    http,
                    server,
                    client,
                    form,
                    resource=tokens.resource or self._resource,
                )
            except AuthorizationFlowError as exc:
                logger.info("refreshing the token failed: %s", exc.message)
                return False
        if new.refresh_token is None:  # the old refresh token stays valid (RFC 6749 §6)
            new = Tokens(**{**new.to_dict(), "refresh_token": tokens.refresh_token})
        if new.scope is None and tokens.scope is not None:
            new = Tokens(**{**new.to_dict(), "scope": tokens.scope})
        self._server = server
        self._store(new)
        return True

    @abc.abstractmethod
    def _registered_client(self, server: ServerMetadata) -> ClientInfo | None:
        """A client usable with ``server`` without registering (pre-registered or cached)."""

    async def _reauthorize(
        self, server_url: str, challenge: dict[str, str], sent: Tokens | None
    ) -> None:
        async with self._loop_lock():
            if self._tokens is not None and self._tokens is not sent:
                return  # another request already got a new token
            if sent is not None and await self._refresh(server_url, sent):
                return
            await self._authorize(server_url, challenge, step_up=False)

    async def _step_up(
        self, server_url: str, challenge: dict[str, str], sent: Tokens | None
    ) -> None:
        async with self._loop_lock():
            if self._tokens is not None and self._tokens is not sent:
                return
            await self._authorize(server_url, challenge, step_up=True)

    async def _authorize(
        self, server_url: str, challenge: dict[str, str], *, step_up: bool
    ) -> None:
        async with self._http_client() as http:
            resource_metadata = await discover_resource(
                http, server_url, challenge.get("resource_metadata")
            )
            if resource_metadata is None:
                server = await discover_legacy(http, server_url)
                resource = canonical_resource(server_url)
            else:
                server = await discover_server(
                    http, resource_metadata.authorization_servers[0]
                )
                resource = resource_metadata.resource
            scopes = self._select_scopes(
                challenge, resource_metadata, server, step_up=step_up
            )
            tokens = await self._grant(http, server, resource, " ".join(scopes) or None)
        self._requested = scopes
        self._server, self._resource = server, resource
        self.authorizations += 1
        self._store(tokens)

    def _select_scopes(
        self,
        challenge: dict[str, str],
        resource_metadata: ResourceMetadata | None,
        server: ServerMetadata,
        *,
        step_up: bool,
    ) -> list[str]:
        """The challenge's scope, else the PRM's scopes_supported, else ours; joined with those asked before."""
        if "scope" in challenge:
            chosen = _scopes(challenge["scope"])
        elif self.scope is not None:
            chosen = _scopes(self.scope)
        elif resource_metadata is not None and resource_metadata.scopes_supported:
            chosen = list(resource_metadata.scopes_supported)
        else:
            chosen = []
        if step_up or self._tokens is not None:
            chosen = list(dict.fromkeys([*self._requested, *chosen]))
        return chosen

    @abc.abstractmethod
    async def _grant(
        self,
        http: httpx.AsyncClient,
        server: ServerMetadata,
        resource: str,
        scope: str | None,
    ) -> Tokens:
        """New tokens for ``resource`` from ``server`` by this grant."""


class ClientCredentials(OAuth):
    """The client-credentials grant (the MCP extension for service accounts): no user, no browser.

    Authenticates with ``client_secret`` (``client_secret_basic``, or ``client_secret_post`` where
    the server takes only that) or with ``private_key`` (PEM; ``private_key_jwt`` signed with
    ``signing_algorithm``). The credentials belong to ``issuer`` when given (then refused elsewhere).
    """

    def __init__(
        self,
        client_id: str,
        *,
        client_secret: str | None = None,
        private_key: str | None = None,
        signing_algorithm: str = "ES256",
        issuer: str | None = None,
        **options: Any,
    ) -> None:
        if (client_secret is None) == (private_key is None):
            raise UsageError("give exactly one of client_secret and private_key")
        super().__init__(**options)
        self.client = ClientInfo(
            client_id=client_id,
            client_secret=client_secret,
            private_key=private_key,
            signing_algorithm=signing_algorithm,
            issuer=issuer,
        )

    def _registered_client(self, server: ServerMetadata) -> ClientInfo | None:
        return self.client

    async def _renew_expiring(self, server_url: str) -> None:
        """No user to ask: fetch a new token now instead of waiting for the 401."""
        try:
            await self._authorize(server_url, {}, step_up=False)
        except AuthorizationFlowError as exc:
            logger.info("renewing the client-credentials token failed: %s", exc.message)
            self._store(None)

    async def _grant(
        self,
        http: httpx.AsyncClient,
        server: ServerMetadata,
        resource: str,
        scope: str | None,
    ) -> Tokens:
        grants = server.grant_types_supported
        if grants is not None and "client_credentials" not in grants:
            raise AuthorizationFlowError(
                f"{server.issuer} does not offer the client_credentials grant",
                stage="token",
            )
        client = await obtain_client(http, server, ClientMetadata(), self.client)
        form = {"grant_type": "client_credentials"}
        if scope:
            form["scope"] = scope
        return await request_tokens(http, server, client, form, resource=resource)


class AuthorizationCode(OAuth):
    """The authorization-code grant with PKCE, for a user who can consent.

    ``user_agent(url)`` takes the user to the authorization URL and returns the redirect URL they
    came back with (a browser and a local callback, or a test's headless GET); None: only the given
    ``tokens`` (refreshed as needed) are used, and a 401 that needs a new grant is an error. The
    client id comes from ``client`` (pre-registered), else a metadata document at
    ``metadata.metadata_url`` where the server supports those, else dynamic registration (bound to
    that server: a server that moves to another authorization server gets a new registration).
    ``offline_access`` is asked for where the authorization server lists it.
    """

    def __init__(
        self,
        *,
        redirect_uri: str,
        user_agent: UserAgent | None,
        metadata: ClientMetadata | None = None,
        client: ClientInfo | None = None,
        offline_access: bool = True,
        **options: Any,
    ) -> None:
        super().__init__(**options)
        self.redirect_uri = redirect_uri
        self.user_agent = user_agent
        self.metadata = metadata or ClientMetadata(redirect_uris=(redirect_uri,))
        self.pre_registered = client
        self.offline_access = offline_access
        self._registrations: dict[str | None, ClientInfo] = {}

    def _registered_client(self, server: ServerMetadata) -> ClientInfo | None:
        if self.pre_registered is not None:
            return self.pre_registered
        return self._registrations.get(server.issuer)

    def _select_scopes(
        self,
        challenge: dict[str, str],
        resource_metadata: ResourceMetadata | None,
        server: ServerMetadata,
        *,
        step_up: bool,
    ) -> list[str]:
        chosen = super()._select_scopes(
            challenge, resource_metadata, server, step_up=step_up
        )
        if (
            self.offline_access
            and OFFLINE_ACCESS in (server.scopes_supported or ())
            and OFFLINE_ACCESS not in chosen
        ):
            chosen.append(OFFLINE_ACCESS)
        return chosen

    async def _grant(
        self,
        http: httpx.AsyncClient,
        server: ServerMetadata,
        resource: str,
        scope: str | None,
    ) -> Tokens:
        if self.user_agent is None:
            raise AuthorizationFlowError(
                "this server needs a new authorization, and no user agent is available here"
                " (connect the server again)",
                stage="authorization",
            )
        client = self._registrations.get(server.issuer)
        if client is None:
            client = await obtain_client(
                http, server, self.metadata, self.pre_registered
            )
            self._registrations[server.issuer] = client
        pending = begin_authorization(
            server,
            client,
            redirect_uri=self.redirect_uri,
            resource=resource,
            scope=scope,
        )
        callback = await self.user_agent(pending.url)
        return await complete_authorization(http, pending, callback)
