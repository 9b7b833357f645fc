"""The incidents list page: filters, search, keyset pages and its live table fragment."""

import pytest
from django.urls import reverse

from diagnosis import lifecycle, services
from diagnosis.models import Incident
from diagnosis.pages import incident_browse
from tests import factories
from tests.diagnosis.test_streaming_support import finish

pytestmark = pytest.mark.django_db


def _titles(page):
    return [i.title for i in page.incidents]


def test_filters_match_the_latest_diagnosis_and_the_incident(tenant, member):
    _running, task = factories.make_incident(tenant, title="a running", service="pay")
    lifecycle.diagnosis_claim(task_id=task.id, owner="w")
    _done, first = factories.make_incident(tenant, title="b done", severity="sev1")
    finish(first)
    _mine, _ = services.incident_create(
        tenant=tenant,
        user=member.user,
        title="c mine",
        service="checkout",
        severity="sev3",
        symptoms="502 from the gateway",
        plan="timed",
        plan_args={"steps": [0.01]},
    )
    other_tenant = factories.make_tenant("other")
    factories.make_incident(other_tenant, title="d theirs", service="pay")

    def titles(**query):
        filters = incident_browse.IncidentFilters.from_query(query)
        return _titles(
            incident_browse.incident_page(
                tenant=tenant, user=member.user, filters=filters
            )
        )

    assert titles() == ["c mine", "b done", "a running"]
    assert titles(state="running") == ["a running"]
    assert titles(state="succeeded") == ["b done"]
    assert titles(severity="sev1") == ["b done"]
    assert titles(service="PAY") == ["a running"]
    assert titles(mine="1") == ["c mine"]
    assert titles(q="from the gateway") == ["c mine"]
    assert titles(q="RUNNING") == ["a running"]
    assert titles(environment="default") == ["c mine", "b done", "a running"]
    assert titles(environment="nowhere") == []
    # values outside their choices are dropped, not errors
    assert titles(state="exploded", severity="sev9") == [
        "c mine",
        "b done",
        "a running",
    ]
    assert Incident.objects.count() == 4


def test_pages_follow_the_keyset_and_a_forged_cursor_starts_over(tenant, member):
    for n in range(5):
        factories.make_incident(tenant, title=f"incident {n}")
    filters = incident_browse.IncidentFilters()
    seen, cursor = [], ""
    while True:
        page = incident_browse.incident_page(
            tenant=tenant, user=member.user, filters=filters, cursor=cursor, size=2
        )
        seen += _titles(page)
        if page.next_cursor is None:
            break
        cursor = page.next_cursor
    assert seen == [f"incident {n}" for n in reversed(range(5))]
    forged = incident_browse.incident_page(
        tenant=tenant, user=member.user, filters=filters, cursor="not-a-cursor", size=2
    )
    assert _titles(forged) == ["incident 4", "incident 3"]


def test_list_page_filters_and_its_table_refreshes_only_while_a_diagnosis_runs(
    client, member, tenant
):
    client.force_login(member.user)
    _incident, task = factories.make_incident(tenant, title="<b>bold</b> outage")
    url = reverse("diagnosis:incident-list")
    body = client.get(url, {"q": "outage"}).content.decode()
    assert "&lt;b&gt;bold&lt;/b&gt; outage" in body and "<b>bold</b>" not in body
    assert 'id="incident-filters"' in body
    table = client.get(
        url,
        {"q": "outage"},
        headers={"HX-Request": "true", "HX-Target": "incident-table"},
    ).content.decode()
    assert "<html" not in table and 'id="incident-table"' in table
    assert 'hx-trigger="every 5s"' in table and "q=outage" in table
    finish(task)
    table = client.get(
        url, headers={"HX-Request": "true", "HX-Target": "incident-table"}
    ).content.decode()
    assert 'hx-trigger="every 5s"' not in table
    assert 'data-state="succeeded"' in table
    assert (
        client.get(url, {"q": "nothing like it"})
        .content.decode()
        .count("No incident matches these filters.")
        == 1
    )
