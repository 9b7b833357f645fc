"""OAuth for remote MCP servers (the MCP authorization spec, 2025-03-26 to 2026-07-28).

    auth = mcpclient.ClientCredentials("svc-id", client_secret=os.environ["SVC_SECRET"])
    async with mcpclient.connect(mcpclient.HttpServer(url, auth=auth)) as client: ...

Modules: _discovery (protected-resource and authorization-server metadata), _registration (client
id: pre-registered, metadata document, dynamic registration), _authorization (the code grant: PKCE,
state, iss), _start (the grant begun from a server URL, for a web app's Connect), _tokens (token endpoint, client authentication), _provider (the httpx.Auth that ties
them to 401/403 answers).
"""

from ._authorization import (
    PendingAuthorization,
    begin_authorization,
    complete_authorization,
)
from ._discovery import (
    ResourceMetadata,
    ServerMetadata,
    discover_resource,
    discover_server,
)
from ._provider import AuthorizationCode, ClientCredentials, OAuth
from ._registration import ClientMetadata, obtain_client
from ._start import start_authorization
from ._tokens import ClientInfo, Tokens, refresh_tokens

__all__ = [
    "AuthorizationCode",
    "ClientCredentials",
    "ClientInfo",
    "ClientMetadata",
    "OAuth",
    "PendingAuthorization",
    "ResourceMetadata",
    "ServerMetadata",
    "Tokens",
    "begin_authorization",
    "complete_authorization",
    "discover_resource",
    "discover_server",
    "obtain_client",
    "refresh_tokens",
    "start_authorization",
]
