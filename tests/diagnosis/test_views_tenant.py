"""The tenant switcher of a user in several tenants: pages, API and stream follow the choice."""

import json

import pytest
from django.urls import reverse

from diagnosis.models import Membership, Role
from diagnosis.principals import ACTIVE_TENANT_KEY
from diagnosis.streaming.consumer import authorize
from tests import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def both(member, other_tenant):
    """alice: responder at acme (her first tenant), viewer at globex."""
    Membership.objects.create(user=member.user, tenant=other_tenant, role=Role.VIEWER)
    return member


@pytest.fixture
def logged_in(client, both):
    client.force_login(both.user)
    return client


def switch(client, tenant, **headers):
    return client.post(
        reverse("diagnosis:tenant-switch"), {"tenant": str(tenant.pk)}, headers=headers
    )


def test_header_shows_the_switcher_only_to_a_user_in_several_tenants(
    client, member, other_tenant
):
    client.force_login(member.user)
    page = client.get(reverse("diagnosis:incident-list")).content.decode()
    assert 'id="tenant-switcher"' not in page
    Membership.objects.create(user=member.user, tenant=other_tenant)
    page = client.get(reverse("diagnosis:incident-list")).content.decode()
    assert 'id="tenant-switcher"' in page
    assert "Globex" in page
    assert f'<option value="{member.tenant_id}" selected>Acme</option>' in page


def test_switch_shows_the_other_tenants_incidents_and_role(
    logged_in, tenant, other_tenant
):
    factories.make_incident(tenant, title="ours is broken")
    factories.make_incident(other_tenant, title="theirs is broken")
    response = switch(logged_in, other_tenant)
    assert response.status_code == 302
    assert response["Location"] == reverse("diagnosis:incident-list")
    assert logged_in.session[ACTIVE_TENANT_KEY] == str(other_tenant.pk)
    page = logged_in.get(reverse("diagnosis:incident-list")).content.decode()
    assert "theirs is broken" in page
    assert "ours is broken" not in page
    assert 'id="new-incident"' not in page  # a viewer at globex opens nothing
    assert f'<option value="{other_tenant.pk}" selected>Globex</option>' in page


def test_switch_back_and_forth_by_htmx(logged_in, tenant, other_tenant):
    response = switch(logged_in, other_tenant, HX_Request="true")
    assert response["HX-Redirect"] == reverse("diagnosis:incident-list")
    switch(logged_in, tenant)
    assert logged_in.session[ACTIVE_TENANT_KEY] == str(tenant.pk)


def test_the_api_session_follows_the_switch(logged_in, tenant, other_tenant):
    factories.make_incident(other_tenant, title="theirs is broken")
    assert logged_in.get("/api/incidents").json()["results"] == []
    switch(logged_in, other_tenant)
    items = logged_in.get("/api/incidents").json()["results"]
    assert [i["title"] for i in items] == ["theirs is broken"]


def test_the_stream_follows_the_switch(logged_in, other_tenant):
    _incident, task = factories.make_incident(other_tenant)
    cookie = f"sessionid={logged_in.cookies['sessionid'].value}"
    assert (
        authorize(authorization=None, cookies=cookie, task_id=str(task.pk)).status
        == 404
    )
    switch(logged_in, other_tenant)
    assert (
        authorize(authorization=None, cookies=cookie, task_id=str(task.pk)).status
        == 200
    )


def test_switch_to_a_tenant_of_someone_else_is_refused(logged_in, tenant):
    stranger = factories.make_tenant("initech")
    response = switch(logged_in, stranger)
    assert response.status_code == 400
    assert "Select a valid choice" in response.content.decode()
    assert ACTIVE_TENANT_KEY not in logged_in.session
    response = switch(logged_in, stranger, Accept="application/json")
    assert response.status_code == 400
    body = json.loads(response.content)
    assert body["code"] == "invalid"
    assert "tenant" in body["fields"]
    assert ACTIVE_TENANT_KEY not in logged_in.session


def test_a_membership_removed_after_the_switch_falls_back_to_the_first(
    logged_in, tenant, other_tenant
):
    switch(logged_in, other_tenant)
    Membership.objects.filter(tenant=other_tenant).delete()
    factories.make_incident(tenant, title="ours is broken")
    page = logged_in.get(reverse("diagnosis:incident-list")).content.decode()
    assert "ours is broken" in page


def test_a_forged_session_value_falls_back_to_the_first(logged_in, tenant):
    session = logged_in.session
    session[ACTIVE_TENANT_KEY] = "not-a-uuid"
    session.save()
    factories.make_incident(tenant, title="ours is broken")
    assert (
        "ours is broken"
        in logged_in.get(reverse("diagnosis:incident-list")).content.decode()
    )


def test_switch_needs_a_login_and_a_post(client, both, other_tenant):
    assert switch(client, other_tenant).status_code == 302
    client.force_login(both.user)
    assert client.get(reverse("diagnosis:tenant-switch")).status_code == 405
