"""diagnosis.intake.pagerduty: Events API v2 bodies as Notifications; no HTTP, no database."""

from datetime import UTC, datetime

import pytest
import time_machine

from diagnosis.exceptions import ValidationFailed
from diagnosis.intake import pagerduty

from .support import fixture

NOW = datetime(2026, 11, 30, 10, 8, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _clock():
    with time_machine.travel(NOW, tick=False):
        yield


def _errors(body):
    with pytest.raises(ValidationFailed) as caught:
        pagerduty.notification(body)
    return caught.value.fields


def test_a_trigger_is_one_firing_alert_under_its_dedup_key():
    body = fixture("pagerduty-trigger")

    note = pagerduty.notification(body)

    assert (note.source, note.status, note.key) == (
        "pagerduty",
        "firing",
        "payments-gw/pool-exhausted",
    )
    # The routing key is a credential: hashed into the group's identity, never its key.
    assert body["routing_key"] in note.identity and body["routing_key"] not in note.key
    assert note.route == "prod-payments"
    assert note.title == body["payload"]["summary"]
    assert note.severity == "error"
    assert note.service_hints == ("payments-gw", "payments-gw-5c8d7b9f4-hx2lp")
    assert note.details == (
        "pool in use: 50/50",
        "service: payments-gw",
        "wait p99: 4.2s",
    )
    (alert,) = note.alerts
    assert alert.fingerprint == "payments-gw/pool-exhausted"
    assert alert.starts_at == datetime(2026, 11, 30, 10, 5, 58, 315000, UTC)
    assert alert.labels["service"] == "payments-gw"  # a string custom detail
    assert alert.labels["class"] == "pool exhaustion"


def test_a_triggers_client_url_and_links_are_kept_and_bad_ones_skipped():
    body = fixture("pagerduty-trigger")
    body["links"] = [
        *body["links"],
        {"text": "no href"},
        "not an object",
        {
            "href": "javascript:alert(1)"
        },  # kept as sent: the page decides what is a link
        *({"href": f"https://example.com/{n}", "text": str(n)} for n in range(20)),
    ]

    (alert,) = pagerduty.notification(body).alerts

    assert alert.links[:3] == (
        ("https://grafana.example.com", "Grafana"),
        ("https://runbooks.example.com/payments/pool", "Runbook"),
        ("javascript:alert(1)", ""),
    )
    assert len(alert.links) == 10  # MAX_LINKS


@pytest.mark.parametrize(
    ("name", "status"),
    [("pagerduty-acknowledge", "acknowledged"), ("pagerduty-resolve", "resolved")],
)
def test_acknowledge_and_resolve_name_the_group_and_carry_no_alert(name, status):
    note = pagerduty.notification(fixture(name))
    trigger = pagerduty.notification(fixture("pagerduty-trigger"))

    assert (note.status, note.alerts) == (status, ())
    assert note.key_hash == trigger.key_hash


def test_a_trigger_without_a_dedup_key_gets_a_new_one_and_without_a_timestamp_now():
    body = fixture("pagerduty-trigger")
    del body["dedup_key"], body["payload"]["timestamp"]

    first, second = pagerduty.notification(body), pagerduty.notification(body)

    assert first.key != second.key and first.key_hash != second.key_hash
    assert first.alerts[0].starts_at == NOW


@pytest.mark.parametrize(
    ("changes", "payload", "field", "reason"),
    [
        ({"event_action": "escalate"}, {}, "event_action", "trigger"),
        ({"routing_key": ""}, {}, "routing_key", "blank"),
        ({"dedup_key": "k" * 256}, {}, "dedup_key", "at most 255"),
        ({"payload": None}, {}, "payload", "required"),
        ({}, {"severity": "high"}, "payload.severity", "critical"),
        ({}, {"summary": None}, "payload.summary", "required"),
        ({}, {"source": "s" * 256}, "payload.source", "at most 255"),
        ({}, {"timestamp": "soon"}, "payload.timestamp", "date-time"),
    ],
)
def test_a_bad_field_is_named_with_its_reason(changes, payload, field, reason):
    body = fixture("pagerduty-trigger")
    body.update(changes)
    if isinstance(body.get("payload"), dict):
        body["payload"].update(payload)

    assert reason in _errors(body)[field]


def test_a_resolve_needs_its_dedup_key_and_ignores_a_payload():
    assert (
        "required"
        in _errors({"routing_key": "r", "event_action": "resolve"})["dedup_key"]
    )
    body = {**fixture("pagerduty-resolve"), "payload": {"severity": "nonsense"}}

    assert pagerduty.notification(body).status == "resolved"
