"""The authorization-code grant in two steps: the URL to send the user to, then the callback it comes back with.

``begin_authorization`` makes the PKCE pair (S256), the state and the URL (with ``resource`` and the
scope) and records the expected issuer; ``complete_authorization`` checks the callback (state; ``iss``
as RFC 9207 §2.4 and the MCP spec's table say: simple string comparison) before the code goes to the
token endpoint with the verifier. The two steps can run in different processes (a web app's redirect
and its callback): PendingAuthorization holds what the second needs and must be kept secret.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlencode, urlsplit

from mcpclient._exceptions import AuthorizationFlowError

from ._discovery import ServerMetadata
from ._tokens import ClientInfo, Tokens, request_tokens

if TYPE_CHECKING:
    import httpx


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def pkce_pair() -> tuple[str, str]:
    """(code_verifier, S256 code_challenge) per RFC 7636."""
    verifier = _b64url(secrets.token_bytes(32))
    return verifier, _b64url(hashlib.sha256(verifier.encode("ascii")).digest())


@dataclass(frozen=True, slots=True)
class PendingAuthorization:
    """One authorization request under way: ``url`` for the user agent, the rest for the callback."""

    url: str
    redirect_uri: str
    resource: str | None
    scope: str | None
    server: ServerMetadata
    client: ClientInfo
    state: str = field(repr=False)
    code_verifier: str = field(repr=False)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able form, to keep (secret: it holds the verifier and the client's secret)
        between the redirect and the callback."""
        document = asdict(self)
        document["server"] = {
            name: list(value) if isinstance(value, tuple) else value
            for name, value in document["server"].items()
        }
        return document

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PendingAuthorization:
        """The pending authorization ``to_dict`` gave."""
        server = dict(data["server"])
        for name, value in server.items():
            if isinstance(value, list):
                server[name] = tuple(value)
        return cls(
            url=str(data["url"]),
            redirect_uri=str(data["redirect_uri"]),
            resource=data.get("resource"),
            scope=data.get("scope"),
            server=ServerMetadata(**server),
            client=ClientInfo(**data["client"]),
            state=str(data["state"]),
            code_verifier=str(data["code_verifier"]),
        )


def begin_authorization(
    server: ServerMetadata,
    client: ClientInfo,
    *,
    redirect_uri: str,
    resource: str | None,
    scope: str | None,
) -> PendingAuthorization:
    """The authorization request for ``client`` at ``server``.

    Raises:
        AuthorizationFlowError: the server's metadata does not offer PKCE with S256.
    """
    methods = server.code_challenge_methods_supported
    if server.issuer is not None and "S256" not in (methods or ()):
        raise AuthorizationFlowError(
            f"{server.issuer} does not advertise PKCE with S256"
            " (code_challenge_methods_supported): not authorizing",
            stage="authorization",
        )
    verifier, challenge = pkce_pair()
    state = secrets.token_urlsafe(24)
    params = {
        "response_type": "code",
        "client_id": client.client_id,
        "redirect_uri": redirect_uri,
        "state": state,
        "code_challenge": challenge,
        "code_challenge_method": "S256",
    }
    if resource is not None:
        params["resource"] = resource
    if scope:
        params["scope"] = scope
    separator = "&" if "?" in server.authorization_endpoint else "?"
    return PendingAuthorization(
        url=f"{server.authorization_endpoint}{separator}{urlencode(params)}",
        redirect_uri=redirect_uri,
        resource=resource,
        scope=scope or None,
        server=server,
        client=client,
        state=state,
        code_verifier=verifier,
    )


def _check_issuer(pending: PendingAuthorization, iss: str | None) -> None:
    expected = pending.server.issuer
    if iss is None:
        if pending.server.iss_parameter_supported:
            raise AuthorizationFlowError(
                f"{expected} advertises the iss parameter, but the authorization response has none:"
                " rejected",
                stage="authorization",
            )
        return
    if expected is not None and iss != expected:
        raise AuthorizationFlowError(
            f"the authorization response comes from {iss[:200]!r}, not {expected!r}: rejected",
            stage="authorization",
        )


async def complete_authorization(
    http: httpx.AsyncClient, pending: PendingAuthorization, callback_url: str
) -> Tokens:
    """Check the redirect the user agent came back with, then exchange its code for tokens.

    Raises:
        AuthorizationFlowError: wrong state or issuer, an error response, no code, or the token
            endpoint refused.
    """
    query = parse_qs(urlsplit(callback_url).query, keep_blank_values=True)

    def one(name: str) -> str | None:
        values = query.get(name)
        return values[0] if values else None

    state = one("state") or ""
    if not hmac.compare_digest(state.encode(), pending.state.encode()):
        raise AuthorizationFlowError(
            "the authorization response does not carry our state: rejected",
            stage="authorization",
        )
    _check_issuer(pending, one("iss"))
    error = one("error")
    if error is not None:
        description = one("error_description") or ""
        raise AuthorizationFlowError(
            f"the authorization server refused: {error[:100]}"
            f"{': ' + description[:200] if description else ''}",
            stage="authorization",
            status=403 if error == "access_denied" else 400,
            error=error[:100],
        )
    code = one("code")
    if not code:
        raise AuthorizationFlowError(
            "the authorization response carries no code", stage="authorization"
        )
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": pending.redirect_uri,
        "code_verifier": pending.code_verifier,
    }
    tokens = await request_tokens(
        http, pending.server, pending.client, form, resource=pending.resource
    )
    if tokens.scope is None and pending.scope:
        return Tokens(**{**tokens.to_dict(), "scope": pending.scope})
    return tokens
