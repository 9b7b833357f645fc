"""An admin connects an OAuth-protected MCP server in real Chromium (issue 22): Connect on the
operations page, consent at a live local authorization server, back to the app, the grant
stored sealed; then the stack's Celery worker runs a diagnosis that calls the server with it."""

import html
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from cryptography.fernet import Fernet

from diagnosis import oauth_grants
from diagnosis.models import DiagnosisTask, OAuthGrant, Role
from diagnosis.states import TERMINAL
from tests import factories
from tests.browser.conftest import log_in, member, open_incident
from tests.livestack import wait_for
from tests.mcpclient.servers.oauth_http import OAuthWorld, served_in_thread
from tests.mcpclient.servers.scripted_http import Reply, Request

KEY = Fernet.generate_key().decode()


class ConsentWorld(OAuthWorld):
    """OAuthWorld whose /authorize asks the user: a page with Allow and Deny, as a provider's."""

    def _authorize(self, request: Request) -> Reply:
        parts = urlsplit(request.path)
        if parts.path.endswith("/authorize/decide"):
            query = {k: v[0] for k, v in parse_qs(parts.query).items()}
            if query.pop("decision", "") != "allow":
                self.authorize_error = "access_denied"
            return super()._authorize(
                Request("GET", "/authorize?" + urlencode(query), request.headers, b"")
            )
        fields = "".join(
            f'<input type="hidden" name="{html.escape(k)}" value="{html.escape(v[0])}">'
            for k, v in parse_qs(parts.query).items()
        )
        body = (
            "<!doctype html><html lang=en><title>Consent</title><h1>Allow AgentOps?</h1>"
            f'<form action="/authorize/decide">{fields}'
            '<button name="decision" value="allow">Allow</button>'
            '<button name="decision" value="deny">Deny</button></form>'
        ).encode()
        return Reply(
            200,
            {"content-type": "text/html", "content-length": str(len(body))},
            [body],
        )

    async def __call__(self, request: Request) -> Reply:
        if request.path.startswith("/authorize/decide"):
            return self._authorize(request)
        return await super().__call__(request)


@pytest.fixture
def world():
    with served_in_thread(
        ConsentWorld(
            as_scopes=["mcp:read", "offline_access"],
            prm_scopes=["mcp:read"],
        )
    ) as running:
        yield running


@pytest.fixture
def stack_env(stack_env, world, tmp_path, settings):
    registry = tmp_path / "servers.toml"
    registry.write_text(
        'default_environment = "prod"\n'
        "[environments.prod]\n"
        'description = "production, behind an identity provider"\n'
        "[environments.prod.servers.metrics]\n"
        f'url = "{world.mcp_url}"\n'
        'protocol_version = "2025-11-25"\n'
        'auth = {type = "oauth", grant = "connected"}\n'
    )
    stack_env["AGENTOPS_SERVERS"] = str(registry)
    stack_env["OAUTH_TOKEN_KEYS"] = KEY
    settings.AGENTOPS_SERVERS = str(registry)
    settings.OAUTH_TOKEN_KEYS = [KEY]
    return stack_env


def test_connect_consent_and_a_worker_calls_the_server_with_the_grant(
    pages, stack, world
):
    tenant = factories.make_tenant("browser-oauth")
    admin = member(tenant, "admin-oauth", Role.ADMIN)
    page = pages.new()
    log_in(page, "admin-oauth")
    page.goto("/operations/")
    row = page.locator('#ops-oauth tr[data-server="prod/metrics"]')
    assert row.locator(".auth-state").inner_text() == "not connected"

    # Deny first: the app says so, and nothing is stored.
    page.get_by_role("button", name="Connect prod/metrics").click()
    page.wait_for_url(f"{world.base}/authorize?*")
    page.get_by_role("button", name="Deny").click()
    page.wait_for_selector("#connect-error")
    assert "consent was denied" in page.inner_text("#connect-error")
    assert not OAuthGrant.objects.exists()

    world.authorize_error = None
    page.goto("/operations/")
    page.get_by_role("button", name="Connect prod/metrics").click()
    page.wait_for_url(f"{world.base}/authorize?*")
    query = {k: v[0] for k, v in parse_qs(urlsplit(page.url).query).items()}
    assert query["code_challenge_method"] == "S256"
    assert query["resource"] == world.mcp_url
    assert query["redirect_uri"] == f"{stack}/oauth/callback"
    assert page.get_by_role("heading").inner_text() == "Allow AgentOps?"
    page.get_by_role("button", name="Allow").click()
    page.wait_for_url(f"{stack}/operations/*")
    assert "Connected prod/metrics." in page.inner_text("main")
    assert row.locator(".auth-state").inner_text() == "connected"
    assert "admin-oauth" in row.inner_text()

    grant = OAuthGrant.objects.get(environment="prod", server="metrics")
    assert grant.connected_by == admin.user
    tokens, _ = oauth_grants.stored("prod", "metrics")
    assert tokens.access_token in world.tokens
    assert tokens.refresh_token in world.refresh
    content = page.content()
    assert tokens.access_token not in content and tokens.refresh_token not in content

    # The worker (its own process, no browser) calls the server with the stored grant; the
    # provider has revoked the access token meanwhile, so the worker renews it on the 401.
    world.tokens[tokens.access_token].expires_at = 0
    token = factories.make_token(member(tenant, "oncall-oauth"))
    _, task_id = open_incident(
        stack,
        token,
        {
            "title": "checkout slow",
            "service": "checkout",
            "severity": "sev2",
            "environment": "prod",
        },
    )
    wait_for(
        lambda: DiagnosisTask.objects.get(pk=task_id).state in TERMINAL,
        timeout=30,
        what="the diagnosis to end",
    )
    used = {token for method, token in world.seen("mcp") if method == "initialize"}
    renewed, _ = oauth_grants.stored("prod", "metrics")
    assert renewed.access_token in used  # renewed by the worker, then sent
    assert renewed.access_token != tokens.access_token
    assert [f["grant_type"] for f in world.seen("token")] == [
        "authorization_code",
        "refresh_token",
    ]
    grant.refresh_from_db()
    assert grant.refreshed_at is not None and grant.failed_at is None
