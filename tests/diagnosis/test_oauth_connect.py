"""An admin's Connect of an OAuth server through the pages (diagnosis/oauth_connect.py,
diagnosis/pages/oauth_views.py) against a live local authorization server and protected MCP
server (tests/mcpclient/servers/oauth_http.py): PKCE S256 and the resource on the authorize
request, a state bound to the session (single use, expiring), the grant stored sealed, every
failure shown and nothing changed; the operations page's auth state of each OAuth server."""

import html
import textwrap
import time
from datetime import UTC, datetime, timedelta
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
import time_machine
from django.test import Client

import mcpclient
from diagnosis import oauth_connect, oauth_grants
from diagnosis.models import OAuthGrant, Role
from tests import factories
from tests.mcpclient.servers.oauth_http import OAuthWorld, served_in_thread

CONNECT = "/operations/oauth/connect"


@pytest.fixture
def world():
    with served_in_thread(
        OAuthWorld(as_scopes=["mcp:read", "offline_access"], prm_scopes=["mcp:read"])
    ) as running:
        yield running


@pytest.fixture
def registry(world, tmp_path, settings):
    path = tmp_path / "servers.toml"
    path.write_text(
        textwrap.dedent(
            f"""
            default_environment = "prod"
            [environments.prod]
            description = "production"
            [environments.prod.servers.metrics]
            url = "{world.mcp_url}"
            auth = {{type = "oauth", grant = "connected"}}
            [environments.prod.servers.tickets]
            url = "{world.base}/other/mcp"
            auth = {{type = "oauth", client_id_env = "SVC_ID", client_secret_env = "SVC_SECRET"}}
            [environments.prod.servers.logs]
            url = "{world.base}/logs/mcp"
            """
        ),
        encoding="utf-8",
    )
    settings.AGENTOPS_SERVERS = str(path)
    return path


@pytest.fixture
def tenant():
    return factories.make_tenant("default")


def client_of(tenant, role=Role.ADMIN) -> Client:
    client = Client()
    client.force_login(factories.make_member(tenant, role=role).user)
    return client


def consent(url: str) -> str:
    """The provider's consent, given at once: the callback's path and query on our side."""
    location = httpx.get(url, follow_redirects=False).headers["location"]
    parts = urlsplit(location)
    assert parts.path == "/oauth/callback"
    return f"{parts.path}?{parts.query}"


def start(client: Client, server: str = "metrics"):
    return client.post(CONNECT, {"environment": "prod", "server": server})


def authorize_url(answer) -> str:
    """Where the Connect answer sends the browser on (a page that moves on by itself: a
    redirect to another origin would break the form-action policy)."""
    assert answer.status_code == 200, answer.text
    url = answer.context["authorize_url"]
    assert f'content="0;url={html.escape(url)}"' in answer.text
    return url


@pytest.mark.django_db
def test_connect_stores_the_sealed_grant_and_the_page_shows_it(world, registry, tenant):
    admin = client_of(tenant)
    assert 'data-state="not connected"' in admin.get("/operations/").text

    url = authorize_url(start(admin))
    authorize = urlsplit(url)
    assert f"{authorize.scheme}://{authorize.netloc}{authorize.path}" == (
        world.issuer + "/authorize"
    )
    query = {k: v[0] for k, v in parse_qs(authorize.query).items()}
    assert query["code_challenge_method"] == "S256"
    assert query["resource"] == world.mcp_url
    assert query["redirect_uri"] == "http://testserver/oauth/callback"
    assert query["scope"] == "mcp:read offline_access"
    [registration] = world.seen("register")
    assert registration["application_type"] == "web"
    # What the session keeps is sealed: neither the state nor the verifier in clear.
    kept = str(dict(admin.session))
    assert query["state"] not in kept and "code_verifier" not in kept

    done = admin.get(consent(url))
    assert done.status_code == 302 and done["Location"].startswith("/operations/")
    [token] = world.seen("token")
    assert token["grant_type"] == "authorization_code"
    assert token["resource"] == world.mcp_url and token["code_verifier"]

    row = OAuthGrant.objects.get(environment="prod", server="metrics")
    tokens, client = oauth_grants.stored("prod", "metrics")
    assert tokens.access_token in world.tokens and tokens.refresh_token in world.refresh
    assert client.client_id.startswith("dcr-") and client.issuer == world.issuer
    assert row.connected_by is not None and row.issuer == world.issuer
    for secret in (tokens.access_token, tokens.refresh_token, client.client_secret):
        assert secret not in row.tokens_encrypted + row.client_encrypted

    page = admin.get("/operations/").text
    assert "Connected prod/metrics." in page
    assert 'data-state="connected"' in page
    assert 'data-state="service account"' in page  # tickets: client credentials
    assert "logs" not in page.split('id="ops-oauth"')[1].split("</table>")[0]
    for secret in (tokens.access_token, tokens.refresh_token):
        assert secret not in page

    # A worker then calls the server with the stored grant.
    fresh = oauth_grants.fresh_tokens("prod", "metrics", force=True)
    reply = httpx.post(
        world.mcp_url,
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        headers={"authorization": f"Bearer {fresh.access_token}"},
    )
    assert reply.status_code == 200, reply.text


@pytest.mark.django_db
def test_a_state_is_single_use_bound_to_the_session_and_expires(
    world, registry, tenant
):
    admin = client_of(tenant)
    callback = consent(authorize_url(start(admin)))
    other = client_of(tenant)  # another admin's session: the answer is not theirs
    refused = other.get(callback)
    assert refused.status_code == 400
    assert "matches no Connect" in refused.text
    assert admin.get(callback).status_code == 302  # the session that started it
    before = OAuthGrant.objects.get().tokens_encrypted
    replay = admin.get(callback)
    assert replay.status_code == 400 and "already used" in replay.text
    forged = admin.get("/oauth/callback?code=x&state=forged")
    assert forged.status_code == 400
    assert admin.get("/oauth/callback").status_code == 400
    assert OAuthGrant.objects.get().tokens_encrypted == before
    assert len(world.seen("token")) == 1  # no refused answer reached the token endpoint

    late = consent(authorize_url(start(admin)))
    with time_machine.travel(
        datetime.now(tz=UTC) + timedelta(seconds=oauth_connect.STATE_TTL + 60)
    ):
        expired = admin.get(late)
    assert expired.status_code == 400 and "expired" in expired.text
    assert admin.get(late).status_code == 400  # spent even so
    assert OAuthGrant.objects.get().tokens_encrypted == before


@pytest.mark.django_db
def test_denied_consent_and_a_failing_token_endpoint_change_nothing(
    world, registry, tenant
):
    admin = client_of(tenant)
    world.authorize_error = "access_denied"
    denied = admin.get(consent(authorize_url(start(admin))))
    assert denied.status_code == 400
    assert "consent was denied" in denied.text
    assert not OAuthGrant.objects.exists()

    world.authorize_error = None
    admin.get(consent(authorize_url(start(admin))))
    before = OAuthGrant.objects.get()
    world.token_status = 500
    failed = admin.get(consent(authorize_url(start(admin))))
    assert failed.status_code == 400
    assert "token endpoint" in failed.text and "HTTP 500" in failed.text
    after = OAuthGrant.objects.get()
    assert (after.tokens_encrypted, after.last_error, after.failed_at) == (
        before.tokens_encrypted,
        "",
        None,
    )
    for secret in [*world.tokens, *world.refresh, *world.codes]:
        assert secret not in failed.text

    world.token_status = 200
    world.prm, world.metadata = False, False  # nothing to discover: said at once
    world.raw["/register"] = (500, b"{}")
    unreachable = start(admin)
    assert unreachable.status_code == 400
    assert "cannot start the authorization" in unreachable.text


@pytest.mark.django_db
def test_only_an_admin_connects_and_only_a_connected_grant_server(
    world, registry, tenant
):
    assert start(client_of(tenant, Role.APPROVER)).status_code == 403
    assert client_of(tenant, Role.RESPONDER).get("/oauth/callback").status_code == 403
    admin = client_of(tenant)
    for server in ("tickets", "logs", "nope"):
        answer = start(admin, server)
        assert answer.status_code == 400
        assert "not a server of this tenant" in answer.text
    other = factories.make_tenant("other")
    registry.write_text(
        registry.read_text().replace(
            "[environments.prod]", '[environments.prod]\ntenants = ["default"]'
        )
    )
    from diagnosis import environments

    environments.reset()
    assert start(client_of(other)).status_code == 400
    assert world.seen("register") == []


@pytest.mark.django_db
def test_operations_page_shows_expiring_and_failed_with_the_last_error(
    registry, tenant
):
    tokens = mcpclient.Tokens(
        access_token="at-never-shown",
        refresh_token="rt-never-shown",
        expires_at=time.time() + 10,
        issuer="https://as.example",
    )
    oauth_grants.save_grant(
        environment="prod",
        server="metrics",
        tokens=tokens,
        client=mcpclient.ClientInfo("app"),
    )
    admin = client_of(tenant)
    assert 'data-state="expiring"' in admin.get("/operations/").text
    OAuthGrant.objects.update(
        failed_at=datetime.now(tz=UTC), last_error="refresh failed: invalid_grant"
    )
    page = admin.get("/operations/").text
    assert 'data-state="failed"' in page
    assert "refresh failed: invalid_grant" in page
    assert "Connect again" in page
    assert "never-shown" not in page
