"""Stored OAuth grants: what an admin connected in the web app, encrypted, refreshed by workers.

A server entry with `auth = {type = "oauth", grant = "connected"}` is authorized once by an admin
("Connect" on the environment's server page); the tokens and the client registration are kept in
an OAuthGrant row, each sealed with a MultiFernet built from settings.OAUTH_TOKEN_KEYS (the first
key encrypts, every key decrypts; `rotate_keys` re-encrypts every row under the first key).

Workers never see a user's token: `StoredGrantAuth` sends only the stored grant's access token and
renews it under a row lock (`fresh_tokens`), so two workers never spend the same refresh token.
No function here logs, raises or returns a token in a message.
"""

import asyncio
import base64
import hashlib
import json
from collections.abc import AsyncGenerator
from dataclasses import asdict
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, Literal

import httpx
from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings
from django.db import transaction

import mcpclient

if TYPE_CHECKING:
    from diagnosis.models import OAuthGrant

AuthState = Literal["connected", "expiring", "failed", "not connected"]

# A grant whose access token ends within this is shown as expiring and renewed before use.
REFRESH_MARGIN = 60.0
_ERROR_LIMIT = 500


class GrantUnavailable(RuntimeError):
    """No stored grant for the server, or it cannot be read or renewed (the message is safe)."""


def cipher() -> MultiFernet:
    """The MultiFernet of settings.OAUTH_TOKEN_KEYS (or one key derived from SECRET_KEY)."""
    keys = [key for key in settings.OAUTH_TOKEN_KEYS if key]
    if not keys:
        digest = hashlib.sha256(f"oauth-grants:{settings.SECRET_KEY}".encode()).digest()
        keys = [base64.urlsafe_b64encode(digest).decode("ascii")]
    return MultiFernet([Fernet(key) for key in keys])


def _seal(document: dict[str, Any]) -> str:
    return cipher().encrypt(json.dumps(document).encode()).decode("ascii")


def _open(sealed: str) -> dict[str, Any]:
    try:
        document = json.loads(cipher().decrypt(sealed.encode("ascii")))
    except InvalidToken:
        raise GrantUnavailable(
            "the stored grant cannot be decrypted with any key in OAUTH_TOKEN_KEYS"
        ) from None
    if not isinstance(document, dict):
        raise GrantUnavailable("the stored grant is not a JSON object")
    return document


def _expiry(tokens: mcpclient.Tokens) -> datetime | None:
    if tokens.expires_at is None:
        return None
    return datetime.fromtimestamp(tokens.expires_at, tz=UTC)


def _client_from(document: dict[str, Any]) -> mcpclient.ClientInfo:
    return mcpclient.ClientInfo(
        client_id=str(document["client_id"]),
        client_secret=document.get("client_secret"),
        token_endpoint_auth_method=document.get("token_endpoint_auth_method"),
        issuer=document.get("issuer"),
        private_key=document.get("private_key"),
        signing_algorithm=str(document.get("signing_algorithm") or "ES256"),
    )


def save_grant(
    *,
    environment: str,
    server: str,
    tokens: mcpclient.Tokens,
    client: mcpclient.ClientInfo,
    user: Any = None,
) -> "OAuthGrant":
    """Store (or replace) the grant an admin just connected."""
    from diagnosis.models import OAuthGrant

    grant, _ = OAuthGrant.objects.update_or_create(
        environment=environment,
        server=server,
        defaults={
            "tokens_encrypted": _seal(tokens.to_dict()),
            "client_encrypted": _seal(asdict(client)),
            "issuer": tokens.issuer or client.issuer or "",
            "expires_at": _expiry(tokens),
            "last_error": "",
            "failed_at": None,
            "connected_by": user,
            "refreshed_at": None,
        },
    )
    return grant


def stored(
    environment: str, server: str
) -> tuple[mcpclient.Tokens, mcpclient.ClientInfo] | None:
    """The decrypted grant of one server; None when none is connected."""
    from diagnosis.models import OAuthGrant

    grant = OAuthGrant.objects.filter(environment=environment, server=server).first()
    if grant is None:
        return None
    return (
        mcpclient.Tokens.from_dict(_open(grant.tokens_encrypted)),
        _client_from(_open(grant.client_encrypted)),
    )


def rotate_keys() -> int:
    """Re-encrypt every stored grant under the first key; the count of rows rewritten.

    Raises:
        GrantUnavailable: a row no key in OAUTH_TOKEN_KEYS decrypts (nothing is changed).
    """
    from diagnosis.models import OAuthGrant

    fernet = cipher()
    count = 0
    with transaction.atomic():
        for grant in OAuthGrant.objects.select_for_update().order_by("pk"):
            try:
                grant.tokens_encrypted = fernet.rotate(
                    grant.tokens_encrypted.encode("ascii")
                ).decode("ascii")
                grant.client_encrypted = fernet.rotate(
                    grant.client_encrypted.encode("ascii")
                ).decode("ascii")
            except InvalidToken:
                raise GrantUnavailable(
                    f"grant {grant.environment}/{grant.server}: no key in OAUTH_TOKEN_KEYS"
                    " decrypts it"
                ) from None
            grant.save(update_fields=["tokens_encrypted", "client_encrypted"])
            count += 1
    return count


def auth_state(grant: "OAuthGrant | None", now: datetime | None = None) -> AuthState:
    """What the operations page shows for one server's connected grant."""
    if grant is None:
        return "not connected"
    if grant.failed_at is not None:
        return "failed"
    now = now or datetime.now(tz=UTC)
    if grant.expires_at is not None and grant.expires_at - now <= timedelta(
        seconds=REFRESH_MARGIN
    ):
        return "expiring"
    return "connected"


def safe_error(message: str, *secrets: str | None) -> str:
    """`message` bounded, with every given secret blanked (a server may echo one back)."""
    for secret in secrets:
        if secret:
            message = message.replace(secret, "[redacted]")
    return message[:_ERROR_LIMIT]


async def _refresh(
    tokens: mcpclient.Tokens, client: mcpclient.ClientInfo
) -> mcpclient.Tokens:
    # The token endpoint call is mcpclient's (client authentication, resource, error text).
    if tokens.refresh_token is None or tokens.issuer is None:
        raise GrantUnavailable(
            "the stored grant has no refresh token: an admin must Connect again"
        )
    async with httpx.AsyncClient(timeout=30.0) as http:
        return await mcpclient.refresh_tokens(http, tokens, client)


def fresh_tokens(
    environment: str,
    server: str,
    *,
    margin: float = REFRESH_MARGIN,
    force: bool = False,
) -> mcpclient.Tokens:
    """The stored grant's tokens, renewed first (under the row's lock) when they expire within
    `margin` seconds or `force`; a rotated refresh token is stored before the lock is released.

    Call from a thread without a running event loop (the renewal runs its own).

    Raises:
        GrantUnavailable: nothing connected, undecryptable, or the renewal failed (recorded on
            the row as its last error).
    """
    from diagnosis.models import OAuthGrant

    failure: str | None = None
    with transaction.atomic():
        grant = (
            OAuthGrant.objects.select_for_update()
            .filter(environment=environment, server=server)
            .first()
        )
        if grant is None:
            raise GrantUnavailable(
                f"server {server!r} of {environment!r} is not connected:"
                " an admin must Connect it"
            )
        tokens = mcpclient.Tokens.from_dict(_open(grant.tokens_encrypted))
        if not force and not tokens.expires_within(margin):
            return tokens
        client = _client_from(_open(grant.client_encrypted))
        try:
            new = asyncio.run(_refresh(tokens, client))
        except (GrantUnavailable, mcpclient.McpError, httpx.HTTPError) as exc:
            failure = safe_error(
                f"refresh failed: {exc}",
                tokens.access_token,
                tokens.refresh_token,
                client.client_secret,
            )
            grant.last_error = failure
            grant.failed_at = datetime.now(tz=UTC)
            grant.save(update_fields=["last_error", "failed_at"])
        else:
            grant.tokens_encrypted = _seal(new.to_dict())
            grant.expires_at = _expiry(new)
            grant.refreshed_at = datetime.now(tz=UTC)
            grant.last_error = ""
            grant.failed_at = None
            grant.save(
                update_fields=[
                    "tokens_encrypted",
                    "expires_at",
                    "refreshed_at",
                    "last_error",
                    "failed_at",
                ]
            )
            return new
    raise GrantUnavailable(failure)


class StoredGrantAuth(httpx.Auth):
    """httpx auth for a worker: the stored grant's access token, renewed before it expires and
    once more on a 401. Nothing of the caller's own credentials is ever sent."""

    def __init__(self, environment: str, server: str) -> None:
        self.environment = environment
        self.server = server

    def __repr__(self) -> str:
        return f"StoredGrantAuth({self.environment}/{self.server})"

    async def _tokens(self, *, force: bool) -> mcpclient.Tokens:
        from asgiref.sync import sync_to_async

        return await sync_to_async(fresh_tokens, thread_sensitive=False)(
            self.environment, self.server, force=force
        )

    async def async_auth_flow(
        self, request: httpx.Request
    ) -> AsyncGenerator[httpx.Request, httpx.Response]:
        tokens = await self._tokens(force=False)
        request.headers["Authorization"] = f"Bearer {tokens.access_token}"
        response = yield request
        if response.status_code == 401:
            tokens = await self._tokens(force=True)
            request.headers["Authorization"] = f"Bearer {tokens.access_token}"
            yield request
