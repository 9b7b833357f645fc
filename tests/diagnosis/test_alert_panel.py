"""The incident page's alerts panel (issue 20 item 5): diagnosis.pages.alert_panel's rows, and
the page and its /parts through Django's test client after real webhooks."""

import json
from datetime import UTC, datetime, timedelta
from html.parser import HTMLParser

import pytest
import time_machine
from django.urls import reverse

from diagnosis.models import AlertGroup, Incident, Role
from diagnosis.pages.alert_panel import group_panel, safe_url
from tests import factories
from tests.diagnosis.intake.support import fixture

AM = "/api/alerts/alertmanager"
T0 = datetime(2026, 11, 30, 10, 8, tzinfo=UTC)


# --- pure: links and rows -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "kept"),
    [
        ("https://grafana.example.com/d/x?a=1&b=2", True),
        ("http://prometheus-0:9090/graph?g0.expr=up", True),
        ("javascript:alert(1)", False),
        ("JaVaScRiPt:alert(1)", False),
        ("data:text/html,<script>alert(1)</script>", False),
        ("//evil.example.com/x", False),
        ("/relative/path", False),
        ("https://", False),
        ("https://exa mple.com", False),
        ("java\tscript:alert(1)", False),
        ("https://ok.example.com/\x00", False),
        ("", False),
    ],
)
def test_only_absolute_http_urls_become_links(url, kept):
    assert safe_url(url) == (url if kept else "")


def _group(alerts, **fields):
    values = {
        "source": "alertmanager",
        "key": '{}:{alertname="X"}',
        "status": "firing",
        "alerts": alerts,
        "payloads": 4,
        "dropped_alerts": 1,
        "sender_truncated_alerts": 2,
        "first_payload_at": T0,
        "last_payload_at": T0 + timedelta(minutes=5),
    }
    values.update(fields)
    return AlertGroup(**values)  # unsaved: the rows need no database


def test_rows_are_firing_first_with_seen_times_receipts_and_links():
    panel = group_panel(
        _group(
            {
                "old-resolved": {
                    "status": "resolved",
                    "labels": {"alertname": "A"},
                    "starts_at": "2026-11-30T09:00:00+00:00",
                    "first_seen": "2026-11-30T10:08:00+00:00",
                    "last_seen": "2026-11-30T10:09:00+00:00",
                    "receipts": 2,
                },
                "firing": {
                    "status": "firing",
                    "labels": {"severity": "critical", "alertname": "B"},
                    "annotations": {
                        "runbook_url": "https://runbooks.example.com/b",
                        "summary": "b is down",
                    },
                    "starts_at": "2026-11-30T10:00:00+00:00",
                    "generator_url": "http://prometheus-0:9090/graph?g0.expr=up",
                    "links": [
                        {"href": "https://grafana.example.com", "text": "Grafana"},
                        {"href": "javascript:alert(1)", "text": ""},
                    ],
                    "first_seen": "2026-11-30T10:08:00+00:00",
                    "last_seen": "2026-11-30T10:13:00+00:00",
                    "receipts": 3,
                },
            }
        )
    )

    assert [r.fingerprint for r in panel.rows] == ["firing", "old-resolved"]
    assert (panel.firing, panel.payloads, panel.dropped) == (1, 4, 3)
    row = panel.rows[0]
    assert row.name == "B"
    assert row.labels == [("alertname", "B"), ("severity", "critical")]
    assert [(a.name, a.href) for a in row.annotations] == [
        ("runbook_url", "https://runbooks.example.com/b"),
        ("summary", ""),
    ]
    assert [(link.href, link.text) for link in row.links] == [
        ("http://prometheus-0:9090/graph?g0.expr=up", "Source (prometheus-0:9090)"),
        ("https://grafana.example.com", "Grafana"),
        ("", "javascript:alert(1)"),  # shown as text, never a link
    ]
    assert (row.first_seen, row.last_seen, row.receipts) == (
        T0,
        T0 + timedelta(minutes=5),
        3,
    )


def test_an_alert_stored_before_receipts_were_counted_falls_back_on_the_group():
    group = _group({"f": {"status": "firing", "labels": {}, "annotations": {}}})

    (row,) = group_panel(group).rows

    assert (row.name, row.first_seen, row.last_seen, row.receipts) == (
        "f",
        group.first_payload_at,
        group.last_payload_at,
        1,
    )


# --- the page, after real webhooks ----------------------------------------------------------


class _Links(HTMLParser):
    def __init__(self, html):
        super().__init__()
        self.anchors: list[dict] = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        if tag == "a":
            self.anchors.append(dict(attrs))


@pytest.fixture
def alerts(db, tenant, settings, monkeypatch):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    monkeypatch.setattr("diagnosis.dispatch.diagnosis_run_enqueue", lambda *a: None)
    monitoring = factories.make_member(tenant, role=Role.ADMIN, username="monitoring")
    token = factories.make_token(monitoring, scopes=("alerts:write",))

    def send(client, body):
        response = client.post(
            AM,
            data=json.dumps(body),
            content_type="application/json",
            headers={"Authorization": f"Bearer {token}"},
        )
        assert response.status_code in (200, 201), response.content
        return response.json()

    return send


@pytest.fixture
def logged_in(client, member):
    client.force_login(member.user)
    return client


HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)>'


def test_the_page_shows_every_alert_escaped_with_only_http_links(logged_in, alerts):
    body = fixture("alertmanager-1-firing")
    body["alerts"][1]["labels"]["pod"] = HOSTILE
    body["alerts"][1]["annotations"]["dashboard"] = "javascript:alert(document.cookie)"
    body["alerts"][1]["generatorURL"] = "javascript:alert(2)"
    with time_machine.travel(T0, tick=False):
        incident_id = alerts(logged_in, body)["incident_id"]

    html = logged_in.get(
        reverse("diagnosis:incident-detail", args=[incident_id])
    ).content.decode()

    panel = html.split('<section id="alerts"', 1)[1].split("</section>", 1)[0]
    assert panel.count('class="alert-row"') == 2
    assert "2 of 2 firing" in panel and "1 payload received" in panel
    assert "received 1 time" in panel
    assert "<code>alertname=CheckoutHighErrorRate</code>" in panel
    assert 'first <time datetime="2026-11-30T10:08:00+00:00">' in panel
    # The hostile label is text; no script, no handler, no javascript: link.
    assert "<script" not in panel and "<img" not in panel
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in panel
    anchors = _Links(panel).anchors
    assert all(a["href"].startswith(("http://", "https://")) for a in anchors)
    assert all(a.get("rel") == "noopener noreferrer" for a in anchors)
    hrefs = [a["href"] for a in anchors]
    assert body["alerts"][0]["generatorURL"] in hrefs
    assert "https://runbooks.example.com/checkout/5xx" in hrefs
    assert "javascript:alert(2)" in panel  # shown as text, not followed


def test_a_repeat_shows_in_the_parts_the_page_refreshes(logged_in, alerts):
    with time_machine.travel(T0, tick=False) as clock:
        created = alerts(logged_in, fixture("alertmanager-1-firing"))
        clock.shift(300)
        alerts(logged_in, fixture("alertmanager-2-repeat"))

    parts = logged_in.get(
        reverse("diagnosis:task-parts", args=[created["task_id"]]),
        headers={"HX-Request": "true"},
    ).content.decode()

    assert '<section id="alerts"' in parts
    assert "3 of 3 firing" in parts and "2 payloads received" in parts
    assert "received 2 times" in parts  # the two alerts of the first payload


def test_a_pagerduty_incident_shows_its_client_url_and_links(logged_in, alerts, tenant):
    monitoring = factories.make_member(tenant, role=Role.ADMIN, username="pd")
    token = factories.make_token(monitoring, scopes=("alerts:write",))
    response = logged_in.post(
        "/api/alerts/pagerduty",
        data=json.dumps(fixture("pagerduty-trigger")),
        content_type="application/json",
        headers={"Authorization": f"Bearer {token}"},
    )
    assert response.status_code == 201, response.content

    html = logged_in.get(
        reverse("diagnosis:incident-detail", args=[response.json()["incident_id"]])
    ).content.decode()

    panel = html.split('<section id="alerts"', 1)[1].split("</section>", 1)[0]
    assert "<b>PagerDuty</b> group" in panel and "1 of 1 firing" in panel
    assert "<code>class=pool exhaustion</code>" in panel
    assert [(a["href"], a["rel"]) for a in _Links(panel).anchors] == [
        ("https://grafana.example.com", "noopener noreferrer"),
        ("https://runbooks.example.com/payments/pool", "noopener noreferrer"),
    ]


def test_an_incident_opened_by_the_form_shows_no_alerts_panel(logged_in, tenant):
    incident, task = factories.make_incident(tenant)

    page = logged_in.get(reverse("diagnosis:incident-detail", args=[incident.id]))
    parts = logged_in.get(
        reverse("diagnosis:task-parts", args=[task.id]),
        headers={"HX-Request": "true"},
    )

    assert b'id="alerts"' not in page.content
    assert b'id="alerts"' not in parts.content
    assert Incident.objects.get(pk=incident.id).alert_groups.count() == 0
