"""Every kind of answer carries the Content-Security-Policy and the other security headers.

Over real HTTP against Daphne: pages, API JSON, the SSE stream (answered outside Django), a 404
and a static file; the body-limit refusal is checked in test_body_limit.py.
"""

import httpx
import pytest

from tests import factories
from tests.diagnosis.daphneproc import daphne
from tests.livestack import child_database_url

pytestmark = pytest.mark.slow

POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'; "
    "object-src 'none'"
)


@pytest.fixture
def server(transactional_db):
    with daphne({"DATABASE_URL": child_database_url()}) as (base, _port):
        yield base


def _assert_secured(response: httpx.Response) -> None:
    what = f"{response.request.method} {response.request.url.path} → {response.status_code}"
    policy = response.headers.get("content-security-policy", "")
    assert set(policy.split("; ")) == set(POLICY.split("; ")), what  # in any order
    assert response.headers.get("x-content-type-options") == "nosniff", what
    assert response.headers.get("referrer-policy") == "same-origin", what
    assert response.headers.get("x-frame-options") == "DENY", what


def test_every_kind_of_response_carries_the_policy(server):
    tenant = factories.make_tenant("csp")
    member = factories.make_member(tenant, password="pw-123456")
    token = factories.make_token(member)
    auth = {"Authorization": f"Bearer {token}"}
    _incident, task = factories.make_incident(tenant)

    with httpx.Client(base_url=server, timeout=10) as client:
        answers = [
            client.get("/accounts/login/"),  # page
            client.get("/"),  # redirect to the login
            client.get("/api/incidents", headers=auth),  # API JSON
            client.get("/api/incidents"),  # API 401
            client.get("/no/such/page"),  # 404
            client.get("/static/agentops/app.css"),  # static, served by WhiteNoise
            client.get(f"/api/tasks/{task.id}/events"),  # SSE refusal (401)
            client.get("/healthz"),
        ]
        with client.stream(
            "GET", f"/api/tasks/{task.id}/events", headers=auth
        ) as stream:  # SSE 200
            answers.append(stream)

    assert [r.status_code for r in answers] == [
        200,
        302,
        200,
        401,
        404,
        200,
        401,
        200,
        200,
    ]
    for response in answers:
        _assert_secured(response)
    # Incident data is private (diagnosis.cache_control); static files and probes keep theirs.
    assert "private" in answers[2].headers["cache-control"]
    assert "no-store" in answers[2].headers["cache-control"]
    for public in (answers[5], answers[7]):
        assert "no-store" not in public.headers.get("cache-control", ""), public.url
