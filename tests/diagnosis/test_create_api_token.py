"""manage.py create_api_token: creates what is missing, stores only a hash, prints the token last."""

import json
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from diagnosis.models import ApiToken, Incident, Membership, Role, Tenant
from diagnosis.principals import token_hash
from tests import factories


def _run(*args):
    out = StringIO()
    call_command("create_api_token", *args, stdout=out)
    return out.getvalue().splitlines()


def test_creates_tenant_user_membership_and_prints_the_token_last(db):
    lines = _run(
        "--tenant",
        "initech",
        "--user",
        "bob",
        "--role",
        "approver",
        "--scopes",
        "incidents:read,incidents:write",
        "--name",
        "ci",
    )

    secret = lines[-1]
    assert secret.startswith("aops_")
    assert secret.strip() == secret and " " not in secret
    tenant = Tenant.objects.get(slug="initech")
    user = get_user_model().objects.get(username="bob")
    assert not user.has_usable_password()
    membership = Membership.objects.get(user=user, tenant=tenant)
    assert membership.role == Role.APPROVER
    token = ApiToken.objects.get()
    assert token.membership == membership
    assert token.name == "ci"
    assert token.scopes == ["incidents:read", "incidents:write"]
    # Only the hash is stored; the secret appears nowhere in the row.
    assert token.token_hash == token_hash(secret)
    assert secret not in {token.token_hash, token.prefix, token.name}
    assert all(secret not in line for line in lines[:-1])


def test_printed_token_works_against_the_api_within_its_scopes(client, db):
    secret = _run(
        "--tenant",
        "initech",
        "--user",
        "bob",
        "--scopes",
        "incidents:read,incidents:write",
    )[-1]
    headers = {"Authorization": f"Bearer {secret}"}

    created = client.post(
        "/api/incidents",
        data=json.dumps({"title": "t", "service": "s", "severity": "sev4"}),
        content_type="application/json",
        headers=headers,
    )
    listed = client.get("/api/incidents", headers=headers)
    task_id = created.json()["task"]["id"]
    snapshot = client.get(f"/api/tasks/{task_id}", headers=headers)

    assert created.status_code == 201
    assert Incident.objects.get().tenant.slug == "initech"
    assert [row["id"] for row in listed.json()["results"]] == [created.json()["id"]]
    assert snapshot.status_code == 403  # tasks:read was not granted


def test_reuses_existing_tenant_user_and_membership(db):
    tenant = factories.make_tenant("acme")
    member = factories.make_member(tenant, username="alice", role=Role.ADMIN)

    lines = _run("--tenant", "acme", "--user", "alice", "--role", "admin")

    assert (Tenant.objects.count(), Membership.objects.count()) == (1, 1)
    assert ApiToken.objects.get().membership == member
    assert get_user_model().objects.get(username="alice").check_password("pw-123456")
    assert ApiToken.objects.get().token_hash == token_hash(lines[-1])


def test_each_run_mints_a_new_token(db):
    first = _run("--tenant", "acme", "--user", "alice")[-1]
    second = _run("--tenant", "acme", "--user", "alice")[-1]

    assert first != second
    assert ApiToken.objects.count() == 2


@pytest.mark.parametrize(
    ("role", "scopes"),
    [
        ("viewer", ["incidents:read", "tasks:read"]),
        (
            "responder",
            ["incidents:read", "incidents:write", "tasks:cancel", "tasks:read"],
        ),
        (
            "admin",
            [
                "alerts:write",
                "approvals:decide",
                "incidents:read",
                "incidents:write",
                "tasks:cancel",
                "tasks:read",
            ],
        ),
    ],
)
def test_default_scopes_are_what_the_role_allows(db, role, scopes):
    lines = _run("--tenant", "acme", "--user", "alice", "--role", role)

    assert sorted(ApiToken.objects.get().scopes) == scopes
    assert f"scopes {','.join(scopes)}:" in lines[-2]


def test_default_scopes_of_an_existing_viewer_are_read_only(db):
    factories.make_member(
        factories.make_tenant("acme"), username="alice", role="viewer"
    )

    _run("--tenant", "acme", "--user", "alice")

    assert sorted(ApiToken.objects.get().scopes) == ["incidents:read", "tasks:read"]


@pytest.mark.parametrize(
    ("role", "scopes", "refused"),
    [
        ("viewer", "incidents:read,tasks:cancel", "tasks:cancel"),
        ("viewer", "incidents:write", "incidents:write"),
        ("responder", "tasks:read,approvals:decide", "approvals:decide"),
    ],
)
def test_scopes_beyond_the_role_are_refused_and_nothing_is_created(
    db, role, scopes, refused
):
    with pytest.raises(CommandError, match=f"role {role} does not allow {refused}"):
        _run("--tenant", "acme", "--user", "alice", "--role", role, "--scopes", scopes)

    # The tenant, user and membership the run would have made are rolled back with it.
    assert (Tenant.objects.count(), Membership.objects.count()) == (0, 0)
    assert ApiToken.objects.count() == 0


def test_scopes_beyond_an_existing_members_role_are_refused(db):
    factories.make_member(
        factories.make_tenant("acme"), username="alice", role="viewer"
    )

    with pytest.raises(CommandError, match="does not allow tasks:cancel"):
        _run("--tenant", "acme", "--user", "alice", "--scopes", "tasks:cancel")

    assert ApiToken.objects.count() == 0


@pytest.mark.parametrize(
    "args",
    [
        ("--tenant", "acme", "--user", "alice", "--scopes", "incidents:read,root"),
        ("--tenant", "acme", "--user", "alice", "--scopes", ","),
        ("--tenant", "not a slug", "--user", "alice"),
        ("--tenant", "acme", "--user", "  "),
    ],
)
def test_bad_arguments_fail_and_create_nothing(db, args):
    with pytest.raises(CommandError):
        _run(*args)

    assert (Tenant.objects.count(), ApiToken.objects.count()) == (0, 0)


def test_role_conflicting_with_an_existing_membership_fails_without_a_token(db):
    tenant = factories.make_tenant("acme")
    factories.make_member(tenant, username="alice", role=Role.VIEWER)

    with pytest.raises(CommandError, match="already viewer"):
        _run("--tenant", "acme", "--user", "alice", "--role", "admin")

    assert ApiToken.objects.count() == 0
    assert Membership.objects.get().role == Role.VIEWER
