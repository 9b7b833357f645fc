"""Finding the authorization server: protected-resource metadata (RFC 9728), then its metadata (RFC 8414 / OIDC).

PRM: the ``resource_metadata`` URL of the challenge, else ``/.well-known/oauth-protected-resource`` with
the MCP endpoint's path inserted, else at the root. Its ``resource`` must name the server we talk to
(same origin, a path prefix of ours). AS metadata: for an issuer with a path, OAuth with the path
inserted, OIDC with it inserted, OIDC with it appended; without a path, OAuth then OIDC. The document's
``issuer`` must equal the issuer the URL was built from (simple string comparison). No PRM at all: the
2025-03-26 rules (the server's origin is the authorization base; its metadata, else /authorize,
/token and /register there).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import httpx

from mcpclient._exceptions import AuthorizationFlowError

_METADATA_LIMIT = 256 * 1024


@dataclass(frozen=True, slots=True)
class ResourceMetadata:
    """What the protected resource (the MCP server) says about itself."""

    resource: str
    authorization_servers: tuple[str, ...]
    scopes_supported: tuple[str, ...] | None = None
    url: str | None = None  # where it was found; None for the 2025-03-26 fallback


@dataclass(frozen=True, slots=True)
class ServerMetadata:
    """An authorization server's endpoints and capabilities (``issuer`` None: 2025-03-26 defaults)."""

    issuer: str | None
    authorization_endpoint: str
    token_endpoint: str
    registration_endpoint: str | None = None
    scopes_supported: tuple[str, ...] | None = None
    token_endpoint_auth_methods_supported: tuple[str, ...] | None = None
    code_challenge_methods_supported: tuple[str, ...] | None = None
    grant_types_supported: tuple[str, ...] | None = None
    client_id_metadata_document_supported: bool = False
    iss_parameter_supported: bool = False
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)


def canonical_resource(url: str) -> str:
    """The canonical URI of an MCP endpoint (RFC 8707): lowercase scheme and host, no fragment."""
    parsed = httpx.URL(url)
    port = f":{parsed.port}" if parsed.port is not None else ""
    path = parsed.raw_path.decode("ascii").split("?", 1)[0]
    query = f"?{parsed.query.decode('ascii')}" if parsed.query else ""
    return f"{parsed.scheme}://{parsed.host}{port}{path if path != '/' else ''}{query}"


def origin(url: str) -> str:
    parsed = httpx.URL(url)
    port = f":{parsed.port}" if parsed.port is not None else ""
    return f"{parsed.scheme}://{parsed.host}{port}"


def _path(url: str) -> str:
    return httpx.URL(url).path.rstrip("/")


def resource_metadata_urls(server_url: str, hinted: str | None) -> list[str]:
    """Where to look for the PRM, in order."""
    urls = [hinted] if hinted else []
    base, path = origin(server_url), _path(server_url)
    if path:
        urls.append(f"{base}/.well-known/oauth-protected-resource{path}")
    urls.append(f"{base}/.well-known/oauth-protected-resource")
    return list(dict.fromkeys(urls))


def server_metadata_urls(issuer: str) -> list[str]:
    """Where to look for the metadata of ``issuer``, in the order the MCP spec gives."""
    base, path = origin(issuer), _path(issuer)
    if path:
        return [
            f"{base}/.well-known/oauth-authorization-server{path}",
            f"{base}/.well-known/openid-configuration{path}",
            f"{base}{path}/.well-known/openid-configuration",
        ]
    return [
        f"{base}/.well-known/oauth-authorization-server",
        f"{base}/.well-known/openid-configuration",
    ]


def resource_matches(server_url: str, resource: str) -> bool:
    """True when the PRM ``resource`` names ``server_url``: same origin, and a path prefix of it."""
    try:
        if origin(resource).lower() != origin(server_url).lower():
            return False
    except (httpx.InvalidURL, UnicodeError, ValueError):
        return False
    mine, theirs = _path(server_url), _path(resource)
    return mine == theirs or mine.startswith(theirs + "/")


async def _get_json(http: httpx.AsyncClient, url: str) -> dict[str, Any] | None:
    """The JSON object at ``url``, or None when it is not there (any non-200, not JSON, not an object)."""
    try:
        async with http.stream(
            "GET", url, headers={"accept": "application/json"}
        ) as response:
            if response.status_code != 200:
                return None
            body = b""
            async for chunk in response.aiter_bytes():
                body += chunk
                if len(body) > _METADATA_LIMIT:
                    return None
    except httpx.HTTPError:
        return None
    try:
        value = json.loads(body)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _strings(value: Any) -> tuple[str, ...] | None:
    if not isinstance(value, list):
        return None
    return tuple(item for item in value if isinstance(item, str))


async def discover_resource(
    http: httpx.AsyncClient, server_url: str, hinted: str | None
) -> ResourceMetadata | None:
    """The PRM of ``server_url``; None when the server publishes none (the 2025-03-26 case).

    Raises:
        AuthorizationFlowError: the PRM names another resource, or no authorization server.
    """
    for url in resource_metadata_urls(server_url, hinted):
        document = await _get_json(http, url)
        if document is None:
            continue
        resource = document.get("resource")
        servers = _strings(document.get("authorization_servers")) or ()
        if not isinstance(resource, str) or not resource_matches(server_url, resource):
            raise AuthorizationFlowError(
                f"the protected resource metadata at {url} names the resource {str(resource)[:200]!r},"
                f" not this server ({server_url}): not authorizing",
                stage="discovery",
            )
        if not servers:
            raise AuthorizationFlowError(
                f"the protected resource metadata at {url} lists no authorization server",
                stage="discovery",
            )
        return ResourceMetadata(
            resource=resource,
            authorization_servers=servers,
            scopes_supported=_strings(document.get("scopes_supported")),
            url=url,
        )
    return None


def _server_metadata(issuer: str | None, document: dict[str, Any]) -> ServerMetadata:
    def text(key: str) -> str | None:
        value = document.get(key)
        return value if isinstance(value, str) and value else None

    authorization, token = text("authorization_endpoint"), text("token_endpoint")
    if authorization is None or token is None:
        raise AuthorizationFlowError(
            f"the metadata of {issuer} lacks its authorization or token endpoint",
            stage="discovery",
        )
    return ServerMetadata(
        issuer=issuer,
        authorization_endpoint=authorization,
        token_endpoint=token,
        registration_endpoint=text("registration_endpoint"),
        scopes_supported=_strings(document.get("scopes_supported")),
        token_endpoint_auth_methods_supported=_strings(
            document.get("token_endpoint_auth_methods_supported")
        ),
        code_challenge_methods_supported=_strings(
            document.get("code_challenge_methods_supported")
        ),
        grant_types_supported=_strings(document.get("grant_types_supported")),
        client_id_metadata_document_supported=document.get(
            "client_id_metadata_document_supported"
        )
        is True,
        iss_parameter_supported=document.get(
            "authorization_response_iss_parameter_supported"
        )
        is True,
        raw=document,
    )


async def discover_server(http: httpx.AsyncClient, issuer: str) -> ServerMetadata:
    """The validated metadata of the authorization server ``issuer``.

    Raises:
        AuthorizationFlowError: none found, or its ``issuer`` differs from ``issuer`` (RFC 8414 §3.3).
    """
    for url in server_metadata_urls(issuer):
        document = await _get_json(http, url)
        if document is None:
            continue
        if document.get("issuer") != issuer:
            raise AuthorizationFlowError(
                f"the authorization server metadata at {url} declares the issuer"
                f" {str(document.get('issuer'))[:200]!r}, not {issuer!r}: not using it",
                stage="discovery",
            )
        return _server_metadata(issuer, document)
    raise AuthorizationFlowError(
        f"no authorization server metadata found for {issuer}", stage="discovery"
    )


async def discover_legacy(http: httpx.AsyncClient, server_url: str) -> ServerMetadata:
    """2025-03-26: the server's origin is the authorization base URL; its metadata or the default paths."""
    base = origin(server_url)
    document = await _get_json(http, f"{base}/.well-known/oauth-authorization-server")
    if document is not None:
        if document.get("issuer") != base:
            raise AuthorizationFlowError(
                f"the authorization server metadata of {base} declares the issuer"
                f" {str(document.get('issuer'))[:200]!r}: not using it",
                stage="discovery",
            )
        return _server_metadata(base, document)
    return ServerMetadata(
        issuer=None,
        authorization_endpoint=f"{base}/authorize",
        token_endpoint=f"{base}/token",
        registration_endpoint=f"{base}/register",
    )
