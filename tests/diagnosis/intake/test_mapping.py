"""diagnosis.intake.mapping: the incident a Notification opens, by the registry's [alerts] rules;
no HTTP, no database."""

from datetime import UTC, datetime

from diagnosis.intake import alertmanager, model, pagerduty
from diagnosis.intake.mapping import common_labels, incident_fields
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


# --- the alert's labels and description on the incident (issue 21 item 2) --------------------


def test_an_alertmanager_incident_keeps_the_common_labels_and_the_description():
    note = alertmanager.notification(
        _am(
            commonLabels={"alertname": "BasketSlow", "namespace": "retail"},
            groupLabels={"alertname": "BasketSlow"},
            commonAnnotations={"summary": "basket is slow"},
            alerts=[
                {
                    "status": "firing",
                    "labels": {"alertname": "BasketSlow", "pod": "basket-7f-abcde"},
                    "annotations": {"description": "p99 above 2 s on /basket"},
                },
                {
                    "status": "firing",
                    "labels": {"alertname": "BasketSlow", "pod": "basket-7f-fghij"},
                },
            ],
        )
    )

    fields = incident_fields(note, AlertRules())

    assert fields["labels"] == {"alertname": "BasketSlow", "namespace": "retail"}
    assert fields["description"] == "p99 above 2 s on /basket"


def test_without_a_description_the_summary_describes_it():
    note = alertmanager.notification(
        _am(
            commonLabels={"alertname": "BasketSlow"},
            groupLabels={},
            commonAnnotations={"summary": "basket is slow"},
            alerts=[{"status": "firing", "labels": {"alertname": "BasketSlow"}}],
        )
    )

    assert incident_fields(note, AlertRules())["description"] == "basket is slow"


def test_without_common_labels_those_every_alert_shares_are_kept():
    note = alertmanager.notification(
        _am(
            commonLabels={},
            groupLabels={},
            commonAnnotations={},
            alerts=[
                {
                    "status": "firing",
                    "labels": {"app": "basket-api", "pod": "a", "x": " "},
                },
                {"status": "firing", "labels": {"app": "basket-api", "pod": "b"}},
            ],
        )
    )

    assert common_labels(note) == {"app": "basket-api"}


def test_a_pagerduty_incident_keeps_the_event_fields_and_string_details_as_labels():
    note = pagerduty.notification(
        {
            "routing_key": "r" * 32,
            "event_action": "trigger",
            "payload": {
                "summary": "basket-api: p99 above 2 s",
                "source": "basket-api-7f9c-x2k4p",
                "severity": "warning",
                "component": "basket-api",
                "group": "retail",
                "custom_details": {"namespace": "retail", "replicas": 3},
            },
        },
        now=datetime(2026, 11, 30, tzinfo=UTC),
    )

    fields = incident_fields(note, AlertRules())

    assert fields["labels"] == {
        "component": "basket-api",
        "group": "retail",
        "namespace": "retail",
        "severity": "warning",
        "source": "basket-api-7f9c-x2k4p",
    }
    assert fields["description"] == "basket-api: p99 above 2 s"


def test_the_kept_labels_are_bounded():
    many = {f"l{i:03d}": "v" * 2000 for i in range(100)}
    note = alertmanager.notification(
        _am(
            commonLabels=many,
            groupLabels={},
            alerts=[{"status": "firing", "labels": many}],
        )
    )

    labels = incident_fields(note, AlertRules())["labels"]

    assert len(labels) == model.MAX_PAIRS
    assert all(len(v) == model.MAX_VALUE_CHARS for v in labels.values())
