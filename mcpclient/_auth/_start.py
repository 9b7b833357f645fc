"""The authorization-code grant started from a server's URL alone, for a web app's "Connect" button.

``start_authorization`` does what the provider does on a 401, without the 401: the protected-resource
metadata at its well-known URLs (or the 2025-03-26 fallback), the authorization server's metadata,
a client id (pre-registered, metadata document or dynamic registration), then the authorization
request (PKCE S256, ``resource``, the scopes, ``offline_access`` where listed). The web app sends the
user to ``pending.url``, keeps ``pending.to_dict()`` secret until the callback, and finishes with
``complete_authorization(http, PendingAuthorization.from_dict(saved), callback_url)``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._authorization import PendingAuthorization, begin_authorization
from ._discovery import (
    canonical_resource,
    discover_legacy,
    discover_resource,
    discover_server,
)
from ._registration import ClientMetadata, obtain_client

if TYPE_CHECKING:
    import httpx

    from ._tokens import ClientInfo

OFFLINE_ACCESS = "offline_access"


async def start_authorization(
    http: httpx.AsyncClient,
    server_url: str,
    *,
    redirect_uri: str,
    metadata: ClientMetadata | None = None,
    client: ClientInfo | None = None,
    scope: str | None = None,
    offline_access: bool = True,
) -> PendingAuthorization:
    """Discover the authorization server of the MCP server at ``server_url`` and begin the
    authorization-code grant there; the user agent goes to the returned ``url``.

    ``scope``: the scopes to ask for; None: the resource's ``scopes_supported``, else none.

    Raises:
        AuthorizationFlowError: discovery, registration or the PKCE check failed (``.stage``).
    """
    resource_metadata = await discover_resource(http, server_url, None)
    if resource_metadata is None:
        server = await discover_legacy(http, server_url)
        resource = canonical_resource(server_url)
    else:
        server = await discover_server(http, resource_metadata.authorization_servers[0])
        resource = resource_metadata.resource
    if scope is not None:
        scopes = [item for item in scope.split(" ") if item]
    elif resource_metadata is not None and resource_metadata.scopes_supported:
        scopes = list(resource_metadata.scopes_supported)
    else:
        scopes = []
    if (
        offline_access
        and OFFLINE_ACCESS in (server.scopes_supported or ())
        and OFFLINE_ACCESS not in scopes
    ):
        scopes.append(OFFLINE_ACCESS)
    chosen = metadata or ClientMetadata(redirect_uris=(redirect_uri,))
    registered = await obtain_client(http, server, chosen, client)
    return begin_authorization(
        server,
        registered,
        redirect_uri=redirect_uri,
        resource=resource,
        scope=" ".join(scopes) or None,
    )
