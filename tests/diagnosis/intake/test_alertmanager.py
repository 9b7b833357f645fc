"""diagnosis.intake.alertmanager: webhook bodies (version 4) as Notifications; no HTTP, no
database. What a bad body answers over HTTP is tests/diagnosis/test_alerts.py's."""

from datetime import UTC, datetime

import pytest
import time_machine

from diagnosis.exceptions import ValidationFailed
from diagnosis.intake import alertmanager, model

from .support import fixture


@pytest.fixture(autouse=True)
def _clock():
    with time_machine.travel(datetime(2026, 11, 30, 10, 8, tzinfo=UTC), tick=False):
        yield


def _errors(body):
    with pytest.raises(ValidationFailed) as caught:
        alertmanager.notification(body)
    assert str(caught.value) == "invalid alert payload"
    return caught.value.fields


def test_a_firing_group_is_one_notification_of_its_alerts():
    body = fixture("alertmanager-1-firing")

    note = alertmanager.notification(body)

    assert (note.source, note.status, note.route) == (
        "alertmanager",
        "firing",
        "payments-pager",
    )
    assert note.key == body["groupKey"]
    assert note.identity == f"alertmanager\0{body['groupKey']}"
    assert [a.fingerprint for a in note.alerts] == [
        "4f1b8a3c0d9e2a71",
        "b27c9e04a6f13d58",
    ]
    first = note.alerts[0]
    assert first.starts_at == datetime(2026, 11, 30, 10, 2, 13, 614000, UTC)
    assert first.ends_at is None  # Go's zero time
    assert first.labels["instance"] == "checkout-7d9f6c5b8-2xkqp:8080"
    assert note.labels == body["commonLabels"]
    assert note.annotations == body["commonAnnotations"]
    assert note.sender_truncated == 0


@pytest.mark.parametrize(
    "name",
    [
        "alertmanager-2-repeat",
        "alertmanager-3-same",
        "alertmanager-4-resolved",
        "alertmanager-5-fires-again",
    ],
)
def test_every_step_of_the_groups_life_parses_to_the_same_key(name):
    first = alertmanager.notification(fixture("alertmanager-1-firing"))
    note = alertmanager.notification(fixture(name))

    assert note.key_hash == first.key_hash
    assert note.status == fixture(name)["status"]


def test_a_resolved_alert_keeps_its_end():
    note = alertmanager.notification(fixture("alertmanager-4-resolved"))

    assert note.status == "resolved"
    assert all(a.ends_at is not None for a in note.alerts if a.status == "resolved")


def test_fields_it_does_not_know_are_ignored_and_truncated_alerts_counted():
    body = {**fixture("alertmanager-1-firing"), "newField": [1], "truncatedAlerts": 3.0}

    assert alertmanager.notification(body).sender_truncated == 3


@pytest.mark.parametrize(
    ("changes", "field", "reason"),
    [
        ({"version": "3"}, "version", '"4"'),
        ({"version": None}, "version", "required"),
        ({"groupKey": " "}, "groupKey", "blank"),
        ({"status": "pending"}, "status", "firing or resolved"),
        ({"alerts": []}, "alerts", "at least one"),
        ({"alerts": "x"}, "alerts", "a list of alerts"),
        ({"alerts": [7]}, "alerts[0]", "an object"),
        ({"commonLabels": {"team": 3}}, "commonLabels.team", "string"),
        ({"groupLabels": []}, "groupLabels", "object of strings"),
        ({"truncatedAlerts": -1}, "truncatedAlerts", "non-negative"),
        ({"receiver": "a\x00b"}, "receiver", "NUL"),
    ],
)
def test_a_bad_field_is_named_with_its_reason(changes, field, reason):
    body = {**fixture("alertmanager-1-firing"), **changes}

    assert reason in _errors(body)[field]


def test_an_alerts_own_fields_are_named_by_their_place():
    body = fixture("alertmanager-1-firing")
    body["alerts"][1].update(startsAt="later", fingerprint="f" * 129, labels=None)

    fields = _errors(body)

    assert "RFC 3339" in fields["alerts[1].startsAt"]
    assert "at most 128" in fields["alerts[1].fingerprint"]
    assert "required" in fields["alerts[1].labels"]


def test_at_most_max_field_errors_are_named():
    body = {**fixture("alertmanager-1-firing"), "alerts": [{"status": "?"}] * 500}

    assert len(_errors(body)) == model.MAX_FIELD_ERRORS
