"""diagnosis.intake.mapping: the incident a Notification opens, by the registry's [alerts] rules;
no HTTP, no database."""

from datetime import UTC, datetime

from diagnosis.intake import alertmanager, pagerduty
from diagnosis.intake.mapping import incident_fields
from diagnosis.registry import AlertRules

from .support import fixture


def _am(**changes):
    body = fixture("alertmanager-1-firing")
    body.update(changes)
    return body


def test_the_default_rules_take_service_then_job_and_the_most_severe_alert():
    note = alertmanager.notification(
        _am(
            commonLabels={"alertname": "NodeDown"},
            groupLabels={},
            commonAnnotations={},
            alerts=[
                {"status": "firing", "labels": {"job": "node", "severity": "warning"}},
                {"status": "firing", "labels": {"job": "node", "severity": "CRITICAL"}},
                {"status": "resolved", "labels": {"severity": "sev2"}},
            ],
        )
    )
    fields = incident_fields(note, AlertRules())

    assert (fields["service"], fields["severity"], fields["title"]) == (
        "node",
        "sev1",
        "NodeDown",
    )
    assert fields["window_start"] is None and fields["environment"] is None
    # No fingerprint (an Alertmanager before 0.20): the labels name the alert.
    assert len({a.fingerprint for a in note.alerts}) == 3


def test_unknown_labels_fall_back_to_the_defaults():
    note = alertmanager.notification(
        _am(
            commonLabels={},
            groupLabels={},
            commonAnnotations={},
            alerts=[{"status": "firing", "labels": {"severity": "page-me"}}],
        )
    )
    fields = incident_fields(note, AlertRules())

    assert (fields["service"], fields["severity"]) == ("unknown", "sev3")
    assert fields["title"].startswith("alertmanager alert {}/")


def test_a_firing_group_maps_to_its_title_symptoms_and_window():
    fields = incident_fields(
        alertmanager.notification(fixture("alertmanager-1-firing")), AlertRules()
    )

    assert fields["title"] == (
        "CheckoutHighErrorRate: checkout answers 502 to a share of requests"
    )
    assert (fields["service"], fields["severity"]) == ("checkout", "sev1")
    assert fields["symptoms"].splitlines() == [
        "checkout answers 502 to a share of requests",
        "5.2% of checkout requests answered 5xx over the last 5 minutes.",
        "6.8% of checkout requests answered 5xx over the last 5 minutes.",
        "2 of 2 alerts firing",
    ]
    assert fields["window_start"] == datetime(2026, 11, 30, 10, 2, 13, 614000, UTC)
    assert fields["window_end"] is None  # firing: no end yet


def test_a_pagerduty_trigger_maps_its_summary_details_and_group():
    rules = AlertRules(pagerduty_groups={"prod-payments": "payments"})
    fields = incident_fields(
        pagerduty.notification(fixture("pagerduty-trigger")), rules
    )

    assert fields["title"] == "payments-gw: connection pool exhausted on db-primary"
    assert fields["service"] == "payments-gw"  # custom_details.service
    assert fields["severity"] == "sev2"  # error
    assert "pool in use: 50/50" in fields["symptoms"].splitlines()
    assert fields["environment"] == "payments"
