"""An OAuth authorization server and a protected MCP server in one scripted HTTP server, for the auth tests.

``OAuthWorld`` answers the protected-resource metadata, the authorization server's metadata, /authorize
(consent at once: a redirect with code, state and iss), /token (authorization_code with PKCE,
refresh_token, client_credentials; client authentication checked), /register, and /mcp: a minimal
2025-11-25 MCP server (initialize, tools/list, tools/call) that wants a bearer token it issued and, per
method, the scopes in ``required``. Its attributes change how it behaves; ``log`` records what came.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import json
import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlencode, urlsplit

from .scripted_http import Reply, Request, json_reply, scripted_server

if TYPE_CHECKING:
    from collections.abc import Iterator

VERSION = "2025-11-25"


@dataclass
class Issued:
    scopes: list[str]
    expires_at: float
    client_id: str


@dataclass
class OAuthWorld:
    base: str = ""  # http://127.0.0.1:<port>, set once the server listens
    issuer_path: str = ""  # "/tenant" puts the issuer (and its endpoints) under a path
    prm: bool = True
    prm_resource: str | None = None  # override the PRM's resource
    prm_scopes: list[str] | None = None
    hint_prm: bool = True  # resource_metadata in WWW-Authenticate
    metadata: bool = True  # serve AS metadata at all
    metadata_issuer: str | None = None  # override the issuer in it
    oidc: bool = False  # serve it at openid-configuration instead
    as_scopes: list[str] | None = None
    auth_methods: list[str] = field(
        default_factory=lambda: ["client_secret_basic", "none"]
    )
    grant_types: list[str] | None = None
    challenge_methods: list[str] | None = field(default_factory=lambda: ["S256"])
    cimd: bool = False
    registration: bool = True
    registered_secret: bool = True
    registered_method: str | None = None
    iss_supported: bool = True
    iss_mode: str = "correct"  # correct, wrong, omit
    authorize_error: str | None = None
    state_mode: str = "echo"  # echo, wrong
    expires_in: int | None = 3600
    refresh_tokens: bool = True
    refresh_fails: bool = False
    grant_only: list[str] | None = None  # issue only these of the scopes asked for
    rotate_refresh: bool = (
        True  # a refresh answer with a new refresh token (and the scope)
    )
    reject_tokens: bool = False  # /mcp refuses every token
    forbid: set[str] = field(
        default_factory=set
    )  # methods answered 403 without insufficient_scope
    prm_servers: list[str] | None = None  # override authorization_servers
    metadata_drop: tuple[str, ...] = ()  # fields left out of the AS metadata
    raw: dict[str, tuple[int, bytes]] = field(
        default_factory=dict
    )  # path -> raw answer
    omit_code: bool = False
    token_status: int = 200
    token_body: Any = None  # replaces the token answer when set
    registration_status: int = 201
    www_scope: str | None = None  # scope in the 401 challenge
    required: dict[str, list[str]] = field(default_factory=dict)
    clients: dict[str, str | None] = field(default_factory=dict)  # client_id -> secret
    jwt_key: Any = None  # public key for private_key_jwt
    tokens: dict[str, Issued] = field(default_factory=dict)
    refresh: dict[str, Issued] = field(default_factory=dict)
    codes: dict[str, dict[str, Any]] = field(default_factory=dict)
    log: list[tuple[str, Any]] = field(default_factory=list)

    # -- helpers -----------------------------------------------------------------------------------

    @property
    def issuer(self) -> str:
        return self.base + self.issuer_path

    @property
    def mcp_url(self) -> str:
        return self.base + "/mcp"

    def seen(self, what: str) -> list[Any]:
        return [value for name, value in self.log if name == what]

    def _challenge(self, status: int, scope: str | None, error: str) -> Reply:
        parts = [f'error="{error}"']
        if scope:
            parts.append(f'scope="{scope}"')
        if self.prm and self.hint_prm:
            parts.append(
                f'resource_metadata="{self.base}/.well-known/oauth-protected-resource/mcp"'
            )
        return json_reply(
            {"error": error}, status, {"www-authenticate": "Bearer " + ", ".join(parts)}
        )

    def _metadata(self) -> dict[str, Any]:
        prefix = self.issuer
        document: dict[str, Any] = {
            "issuer": self.metadata_issuer or self.issuer,
            "authorization_endpoint": prefix + "/authorize",
            "token_endpoint": prefix + "/token",
            "response_types_supported": ["code"],
            "token_endpoint_auth_methods_supported": self.auth_methods,
            "authorization_response_iss_parameter_supported": self.iss_supported,
        }
        if self.registration:
            document["registration_endpoint"] = prefix + "/register"
        if self.challenge_methods is not None:
            document["code_challenge_methods_supported"] = self.challenge_methods
        if self.as_scopes is not None:
            document["scopes_supported"] = self.as_scopes
        if self.grant_types is not None:
            document["grant_types_supported"] = self.grant_types
        if self.cimd:
            document["client_id_metadata_document_supported"] = True
        for name in self.metadata_drop:
            document.pop(name, None)
        return document

    # -- the handler -------------------------------------------------------------------------------

    async def __call__(self, request: Request) -> Reply:
        path = request.path.split("?", 1)[0]
        self.log.append(("path", path))
        if path in self.raw:
            status, body = self.raw[path]
            if path.endswith("/token"):
                self.log.append(("token", {}))
            return Reply(status, {"content-type": "application/json"}, [body])
        if path == "/.well-known/oauth-protected-resource/mcp" and self.prm:
            document: dict[str, Any] = {
                "resource": self.prm_resource or self.mcp_url,
                "authorization_servers": [self.issuer]
                if self.prm_servers is None
                else self.prm_servers,
            }
            if self.prm_scopes is not None:
                document["scopes_supported"] = self.prm_scopes
            return json_reply(document)
        well_known = (
            "/.well-known/openid-configuration"
            if self.oidc
            else "/.well-known/oauth-authorization-server"
        )
        if self.metadata and path == well_known + self.issuer_path:
            return json_reply(self._metadata())
        if path == self.issuer_path + "/authorize":
            return self._authorize(request)
        if path == self.issuer_path + "/token":
            return self._token(request)
        if path == self.issuer_path + "/register":
            return self._register(request)
        if path == "/mcp":
            return self._mcp(request)
        return json_reply({"error": "not_found"}, 404)

    def _authorize(self, request: Request) -> Reply:
        query = {k: v[0] for k, v in parse_qs(urlsplit(request.path).query).items()}
        self.log.append(("authorize", query))
        redirect = query["redirect_uri"]
        params: dict[str, str] = {
            "state": query.get("state", "") if self.state_mode == "echo" else "forged"
        }
        if self.authorize_error:
            params.update(error=self.authorize_error, error_description="no")
        elif not self.omit_code:
            code = secrets.token_urlsafe(8)
            self.codes[code] = query
            self.log.append(("code", code))
            params["code"] = code
        if self.iss_mode == "correct":
            params["iss"] = self.issuer
        elif self.iss_mode == "wrong":
            params["iss"] = "https://evil.example.com"
        return Reply(
            302, {"location": f"{redirect}?{urlencode(params)}", "content-length": "0"}
        )

    def _client_auth(self, request: Request, form: dict[str, str]) -> str | None:
        """The authenticated client id (None: refused)."""
        header = request.headers.get("authorization", "")
        if header.startswith("Basic "):
            client_id, _, secret = base64.b64decode(header[6:]).decode().partition(":")
            self.log.append(("client_auth", "client_secret_basic"))
            return client_id if self.clients.get(client_id) == secret else None
        if "client_assertion" in form:
            import jwt

            self.log.append(("client_auth", "private_key_jwt"))
            try:
                claims = jwt.decode(
                    form["client_assertion"],
                    self.jwt_key,
                    algorithms=["ES256"],
                    audience=self.issuer,
                )
            except jwt.PyJWTError:
                return None
            return claims["sub"]
        if "client_secret" in form:
            self.log.append(("client_auth", "client_secret_post"))
            client_id = form.get("client_id", "")
            return (
                client_id
                if self.clients.get(client_id) == form["client_secret"]
                else None
            )
        self.log.append(("client_auth", "none"))
        client_id = form.get("client_id", "")
        if client_id.startswith("https://"):
            return client_id  # a metadata document URL
        return (
            client_id
            if client_id in self.clients and self.clients[client_id] is None
            else None
        )

    def _issue(self, client_id: str, scopes: list[str]) -> Reply:
        if self.grant_only is not None:
            scopes = [scope for scope in scopes if scope in self.grant_only]
        token = "at-" + secrets.token_urlsafe(12)
        self.tokens[token] = Issued(
            scopes, time.time() + (self.expires_in or 3600), client_id
        )
        body: dict[str, Any] = {"access_token": token, "token_type": "Bearer"}
        if self.expires_in is not None:
            body["expires_in"] = self.expires_in
        if scopes:
            body["scope"] = " ".join(scopes)
        if self.refresh_tokens:
            refresh = "rt-" + secrets.token_urlsafe(12)
            self.refresh[refresh] = Issued(scopes, 0, client_id)
            body["refresh_token"] = refresh
        return json_reply(body)

    def _token(self, request: Request) -> Reply:
        form = {k: v[0] for k, v in parse_qs(request.body.decode()).items()}
        self.log.append(("token", form))
        if self.token_status != 200 or self.token_body is not None:
            return json_reply(
                self.token_body
                if self.token_body is not None
                else {"error": "server_error", "error_description": "down"},
                self.token_status,
            )
        client_id = self._client_auth(request, form)
        if client_id is None:
            return json_reply({"error": "invalid_client"}, 401)
        grant = form.get("grant_type")
        if grant == "authorization_code":
            query = self.codes.pop(form.get("code", ""), None)
            if query is None:
                return json_reply({"error": "invalid_grant"}, 400)
            verifier = form.get("code_verifier", "")
            challenge = (
                base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
                .rstrip(b"=")
                .decode()
            )
            if challenge != query.get("code_challenge"):
                return json_reply(
                    {"error": "invalid_grant", "error_description": "pkce"}, 400
                )
            return self._issue(client_id, query.get("scope", "").split())
        if grant == "refresh_token":
            issued = self.refresh.get(form.get("refresh_token", ""))
            if issued is None or self.refresh_fails:
                return json_reply({"error": "invalid_grant"}, 400)
            if not self.rotate_refresh:
                token = "at-" + secrets.token_urlsafe(12)
                self.tokens[token] = Issued(
                    issued.scopes, time.time() + 3600, client_id
                )
                return json_reply({"access_token": token, "token_type": "bearer"})
            return self._issue(client_id, issued.scopes)
        if grant == "client_credentials":
            return self._issue(client_id, form.get("scope", "").split())
        return json_reply({"error": "unsupported_grant_type"}, 400)

    def _register(self, request: Request) -> Reply:
        body = request.json()
        self.log.append(("register", body))
        if self.registration_status not in (200, 201):
            return json_reply(
                {"error": "invalid_client_metadata"}, self.registration_status
            )
        client_id = "dcr-" + secrets.token_urlsafe(6)
        secret = secrets.token_urlsafe(8) if self.registered_secret else None
        self.clients[client_id] = secret
        answer: dict[str, Any] = {"client_id": client_id, **body}
        if secret:
            answer["client_secret"] = secret
        if self.registered_method:
            answer["token_endpoint_auth_method"] = self.registered_method
        return json_reply(answer, self.registration_status)

    def _mcp(self, request: Request) -> Reply:
        if request.method != "POST":
            return json_reply({"error": "method"}, 405)
        message = request.json()
        method = message.get("method", "")
        header = request.headers.get("authorization", "")
        token = header[7:] if header.startswith("Bearer ") else None
        self.log.append(("mcp", (method, token)))
        issued = self.tokens.get(token or "")
        if issued is None or issued.expires_at < time.time() or self.reject_tokens:
            return self._challenge(401, self.www_scope, "invalid_token")
        if method in self.forbid:
            return json_reply(
                {"error": "forbidden"},
                403,
                {"www-authenticate": 'Bearer error="forbidden"'},
            )
        needed = self.required.get(method, [])
        if not all(scope in issued.scopes for scope in needed):
            return self._challenge(403, " ".join(needed), "insufficient_scope")
        if "id" not in message:
            return Reply(202, {"content-length": "0"})
        result: dict[str, Any]
        if method == "initialize":
            result = {
                "protocolVersion": VERSION,
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "oauth-world", "version": "1"},
            }
        elif method == "tools/list":
            result = {
                "tools": [
                    {
                        "name": "whoami",
                        "inputSchema": {"type": "object"},
                        # A read: an engine calls it without asking a person first.
                        "annotations": {"readOnlyHint": True},
                    }
                ]
            }
        elif method == "tools/call":
            result = {"content": [{"type": "text", "text": issued.client_id}]}
        else:
            return json_reply(
                {
                    "jsonrpc": "2.0",
                    "id": message["id"],
                    "error": {"code": -32601, "message": "no"},
                }
            )
        return json_reply({"jsonrpc": "2.0", "id": message["id"], "result": result})


def body_of(reply: Reply) -> Any:
    return json.loads(b"".join(reply.chunks))


@contextlib.contextmanager
def served_in_thread(world: OAuthWorld) -> Iterator[OAuthWorld]:
    """``world`` served on 127.0.0.1 from a thread of its own (its own event loop), for callers
    that block: a Django view, a browser test. ``world.base`` is set while it runs."""
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    stop: asyncio.Event | None = None

    async def serve() -> None:
        nonlocal stop
        stop = asyncio.Event()
        async with scripted_server(world) as server:
            world.base = server.url.removesuffix("/mcp")
            ready.set()
            await stop.wait()
        # Connections a client kept alive: end their handlers before the loop closes.
        others = asyncio.all_tasks() - {asyncio.current_task()}
        for task in others:
            task.cancel()
        await asyncio.gather(*others, return_exceptions=True)

    thread = threading.Thread(
        target=loop.run_until_complete, args=(serve(),), daemon=True
    )
    thread.start()
    if not ready.wait(10):
        raise RuntimeError("the OAuth world did not start")
    try:
        yield world
    finally:
        assert stop is not None
        loop.call_soon_threadsafe(stop.set)
        thread.join(10)
        loop.close()
