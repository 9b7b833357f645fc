"""Getting a client id, in the MCP spec's order: pre-registered, Client ID Metadata Document, dynamic registration.

Pre-registered credentials bound to an issuer are used only with that issuer (a migrated server gets
an error, not our old secret). A metadata-document URL is portable. A dynamic registration (RFC 7591)
is bound to the server that answered it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

import httpx

from mcpclient._exceptions import AuthorizationFlowError, UsageError

from ._tokens import ClientInfo

if TYPE_CHECKING:
    from ._discovery import ServerMetadata

_REGISTRATION_LIMIT = 64 * 1024


@dataclass(frozen=True, slots=True)
class ClientMetadata:
    """Who we are to an authorization server (RFC 7591 metadata; ``metadata_url``: our CIMD client id)."""

    client_name: str = "mcpclient"
    redirect_uris: tuple[str, ...] = ()
    application_type: str = "native"  # "web" for a server-side app
    metadata_url: str | None = None
    token_endpoint_auth_method: str | None = None
    grant_types: tuple[str, ...] = ("authorization_code", "refresh_token")

    def __post_init__(self) -> None:
        if self.metadata_url is not None:
            url = httpx.URL(self.metadata_url)
            if url.scheme != "https" or url.path in ("", "/"):
                raise UsageError(
                    "a client metadata document URL must be https with a path"
                )
        if self.application_type not in ("native", "web"):
            raise UsageError("application_type must be 'native' or 'web'")

    def registration_body(self) -> dict[str, object]:
        body: dict[str, object] = {
            "client_name": self.client_name,
            "redirect_uris": list(self.redirect_uris),
            "grant_types": list(self.grant_types),
            "response_types": ["code"]
            if "authorization_code" in self.grant_types
            else [],
            "application_type": self.application_type,
        }
        if self.token_endpoint_auth_method is not None:
            body["token_endpoint_auth_method"] = self.token_endpoint_auth_method
        return body


async def obtain_client(
    http: httpx.AsyncClient,
    server: ServerMetadata,
    metadata: ClientMetadata,
    pre_registered: ClientInfo | None,
) -> ClientInfo:
    """The client id to use with ``server``.

    Raises:
        AuthorizationFlowError: pre-registered for another issuer, registration refused, or no way
            to get a client id.
    """
    if pre_registered is not None:
        if pre_registered.issuer is None or pre_registered.issuer == server.issuer:
            return pre_registered
        raise AuthorizationFlowError(
            f"the client is registered with {pre_registered.issuer}, but the server now names"
            f" {server.issuer} as its authorization server: not presenting those credentials there",
            stage="registration",
        )
    if (
        metadata.metadata_url is not None
        and server.client_id_metadata_document_supported
    ):
        return ClientInfo(
            client_id=metadata.metadata_url, token_endpoint_auth_method="none"
        )
    if server.registration_endpoint is None:
        raise AuthorizationFlowError(
            f"{server.issuer or server.authorization_endpoint} supports neither client metadata"
            " documents nor dynamic registration, and no client is pre-registered",
            stage="registration",
        )
    try:
        response = await http.post(
            server.registration_endpoint,
            json=metadata.registration_body(),
            headers={"accept": "application/json"},
        )
    except httpx.HTTPError as exc:
        raise AuthorizationFlowError(
            f"registration at {server.registration_endpoint}: {type(exc).__name__}",
            stage="registration",
        ) from None
    try:
        data = json.loads(response.content[:_REGISTRATION_LIMIT])
    except ValueError:
        data = None
    client_id = data.get("client_id") if isinstance(data, dict) else None
    if (
        response.status_code not in (200, 201)
        or not isinstance(data, dict)
        or not client_id
    ):
        error = data.get("error") if isinstance(data, dict) else None
        raise AuthorizationFlowError(
            f"registration at {server.registration_endpoint} failed: HTTP {response.status_code}"
            f"{' ' + str(error)[:100] if error else ''}",
            stage="registration",
            status=response.status_code,
            error=error if isinstance(error, str) else None,
        )
    secret = data.get("client_secret")
    method = data.get("token_endpoint_auth_method")
    return ClientInfo(
        client_id=str(client_id),
        client_secret=secret if isinstance(secret, str) and secret else None,
        token_endpoint_auth_method=method if isinstance(method, str) else None,
        issuer=server.issuer,
    )
