"""Tokens and client credentials, and the token endpoint: client authentication, the request, the answer.

Client authentication: ``client_secret_basic`` (RFC 6749 §2.3.1, id and secret form-encoded, then
Base64), ``client_secret_post``, ``private_key_jwt`` (RFC 7523, signed with PyJWT) or ``none``
(client_id in the body). Secrets and tokens are kept out of every repr and message.
"""

from __future__ import annotations

import base64
import json
import time
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import httpx

from mcpclient._exceptions import AuthorizationFlowError

from ._discovery import discover_server

if TYPE_CHECKING:
    from ._discovery import ServerMetadata

_TOKEN_BODY_LIMIT = 256 * 1024
JWT_ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"


@dataclass(frozen=True, slots=True)
class Tokens:
    """What a token endpoint issued. ``expires_at`` is epoch seconds; the tokens never show in repr."""

    access_token: str = field(repr=False)
    token_type: str = "Bearer"
    refresh_token: str | None = field(default=None, repr=False)
    expires_at: float | None = None
    scope: str | None = None
    issuer: str | None = None  # the authorization server that issued them
    resource: str | None = None

    def expires_within(self, seconds: float, now: float | None = None) -> bool:
        if self.expires_at is None:
            return False
        return self.expires_at - (time.time() if now is None else now) <= seconds

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able form for a token store (which must keep it secret)."""
        return {
            "access_token": self.access_token,
            "token_type": self.token_type,
            "refresh_token": self.refresh_token,
            "expires_at": self.expires_at,
            "scope": self.scope,
            "issuer": self.issuer,
            "resource": self.resource,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Tokens:
        return cls(
            access_token=str(data["access_token"]),
            token_type=str(data.get("token_type") or "Bearer"),
            refresh_token=data.get("refresh_token"),
            expires_at=data.get("expires_at"),
            scope=data.get("scope"),
            issuer=data.get("issuer"),
            resource=data.get("resource"),
        )


@dataclass(frozen=True, slots=True)
class ClientInfo:
    """A client registration: pre-registered, from dynamic registration, or a metadata-document URL.

    ``issuer`` binds it to the authorization server that issued it (None: any, for pre-registered
    credentials given without one). ``private_key`` (PEM) selects ``private_key_jwt``.
    """

    client_id: str
    client_secret: str | None = field(default=None, repr=False)
    token_endpoint_auth_method: str | None = None
    issuer: str | None = None
    private_key: str | None = field(default=None, repr=False)
    signing_algorithm: str = "ES256"


def auth_method(client: ClientInfo, server: ServerMetadata) -> str:
    """How this client authenticates at the token endpoint of ``server``."""
    if client.private_key is not None:
        return "private_key_jwt"
    if client.client_secret is None:
        return "none"
    if client.token_endpoint_auth_method in (
        "client_secret_basic",
        "client_secret_post",
        "none",
    ):
        return client.token_endpoint_auth_method
    supported = server.token_endpoint_auth_methods_supported
    if (
        supported
        and "client_secret_basic" not in supported
        and "client_secret_post" in supported
    ):
        return "client_secret_post"
    return "client_secret_basic"  # RFC 8414's default


def client_assertion(client: ClientInfo, audience: str) -> str:
    """A signed JWT authenticating ``client`` (RFC 7523 §2.2; ``aud`` is the issuer)."""
    import jwt  # PyJWT, only for private_key_jwt

    now = int(time.time())
    claims = {
        "iss": client.client_id,
        "sub": client.client_id,
        "aud": audience,
        "iat": now,
        "exp": now + 300,
        "jti": uuid.uuid4().hex,
    }
    try:
        return jwt.encode(
            claims, client.private_key or "", algorithm=client.signing_algorithm
        )
    except (ValueError, TypeError, jwt.PyJWTError) as exc:
        raise AuthorizationFlowError(
            f"cannot sign the client assertion with {client.signing_algorithm}: {type(exc).__name__}",
            stage="token",
        ) from None


def authenticate(
    client: ClientInfo, server: ServerMetadata, form: dict[str, str]
) -> dict[str, str]:
    """Add the client's authentication to ``form``; the headers to send with it."""
    method = auth_method(client, server)
    headers: dict[str, str] = {}
    if method == "client_secret_basic":
        pair = f"{quote(client.client_id, safe='')}:{quote(client.client_secret or '', safe='')}"
        headers["authorization"] = "Basic " + base64.b64encode(pair.encode()).decode()
    elif method == "client_secret_post":
        form["client_id"] = client.client_id
        form["client_secret"] = client.client_secret or ""
    elif method == "private_key_jwt":
        form["client_assertion_type"] = JWT_ASSERTION_TYPE
        form["client_assertion"] = client_assertion(
            client, server.issuer or server.token_endpoint
        )
    else:
        form["client_id"] = client.client_id
    return headers


def _error_text(body: bytes) -> tuple[str | None, str]:
    """The OAuth ``error`` and a short description from an error answer (nothing else of the body)."""
    try:
        data = json.loads(body)
    except ValueError:
        return None, ""
    if not isinstance(data, dict):
        return None, ""
    error = data.get("error") if isinstance(data.get("error"), str) else None
    description = data.get("error_description")
    text = f"{error}" if error else ""
    if isinstance(description, str) and description:
        text += f": {description[:200]}"
    return error, text


async def request_tokens(
    http: httpx.AsyncClient,
    server: ServerMetadata,
    client: ClientInfo,
    form: dict[str, str],
    *,
    resource: str | None,
) -> Tokens:
    """POST ``form`` (a grant) to the token endpoint with the client's authentication.

    Raises:
        AuthorizationFlowError: the endpoint refused, or answered without an access token.
    """
    form = dict(form)
    if resource is not None:
        form["resource"] = resource
    headers = authenticate(client, server, form)
    headers["accept"] = "application/json"
    try:
        response = await http.post(server.token_endpoint, data=form, headers=headers)
    except httpx.HTTPError as exc:
        raise AuthorizationFlowError(
            f"token endpoint {server.token_endpoint}: {type(exc).__name__}",
            stage="token",
        ) from None
    body = response.content[:_TOKEN_BODY_LIMIT]
    if response.status_code != 200:
        error, text = _error_text(body)
        raise AuthorizationFlowError(
            f"token endpoint {server.token_endpoint} answered HTTP {response.status_code}"
            f" to the {form.get('grant_type')} grant{': ' + text if text else ''}",
            stage="token",
            status=response.status_code,
            error=error,
        )
    try:
        data = json.loads(body)
    except ValueError:
        data = None
    token = data.get("access_token") if isinstance(data, dict) else None
    if not isinstance(data, dict) or not isinstance(token, str) or not token:
        raise AuthorizationFlowError(
            f"token endpoint {server.token_endpoint} answered without an access token",
            stage="token",
        )
    token_type = data.get("token_type")
    if not isinstance(token_type, str) or token_type.lower() != "bearer":
        raise AuthorizationFlowError(
            f"token endpoint {server.token_endpoint} issued a {str(token_type)[:40]!r} token;"
            " only Bearer tokens are supported",
            stage="token",
        )
    expires_in = data.get("expires_in")
    refresh = data.get("refresh_token")
    scope = data.get("scope")
    return Tokens(
        access_token=token,
        refresh_token=refresh if isinstance(refresh, str) and refresh else None,
        expires_at=time.time() + float(expires_in)
        if isinstance(expires_in, int | float) and not isinstance(expires_in, bool)
        else None,
        scope=scope if isinstance(scope, str) else form.get("scope"),
        issuer=server.issuer,
        resource=resource,
    )


async def refresh_tokens(
    http: httpx.AsyncClient, tokens: Tokens, client: ClientInfo
) -> Tokens:
    """Renew ``tokens`` with their refresh token at their issuer (a worker's stored grant).

    The issuer's metadata is discovered again, so a moved token endpoint is followed. A server
    that does not rotate the refresh token leaves the old one valid: it is kept.

    Raises:
        AuthorizationFlowError: no refresh token or issuer, discovery failed, or the token
            endpoint refused the grant.
    """
    if tokens.refresh_token is None or tokens.issuer is None:
        raise AuthorizationFlowError(
            "the tokens have no refresh token or no issuer", stage="token"
        )
    server = await discover_server(http, tokens.issuer)
    new = await request_tokens(
        http,
        server,
        client,
        {"grant_type": "refresh_token", "refresh_token": tokens.refresh_token},
        resource=tokens.resource,
    )
    return Tokens(
        access_token=new.access_token,
        token_type=new.token_type,
        refresh_token=new.refresh_token or tokens.refresh_token,
        expires_at=new.expires_at,
        scope=new.scope or tokens.scope,
        issuer=new.issuer or tokens.issuer,
        resource=new.resource or tokens.resource,
    )
