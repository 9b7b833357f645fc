"""diagnosis.intake.model: the Notification both parsers make, its bounds and date-times."""

from datetime import UTC, datetime

import pytest
import time_machine

from diagnosis.fields import FieldErrors
from diagnosis.intake import model
from diagnosis.models import AlertGroupStatus, AlertSource


def test_the_models_strings_are_the_databases():
    assert {model.ALERTMANAGER, model.PAGERDUTY} == set(AlertSource.values)
    assert {model.FIRING, model.ACKNOWLEDGED, model.RESOLVED} == set(
        AlertGroupStatus.values
    )


def test_labels_are_bounded_in_count_name_and_value_by_name_order():
    pairs = {f"k{n:03}" + "n" * 200: "v" * 2000 for n in range(100)}

    kept = model.bounded(pairs)

    assert len(kept) == model.MAX_PAIRS
    assert min(kept) == "k000" + "n" * (model.MAX_NAME_CHARS - 4)
    assert {len(v) for v in kept.values()} == {model.MAX_VALUE_CHARS}


@time_machine.travel(datetime(2026, 11, 30, tzinfo=UTC), tick=False)
@pytest.mark.parametrize(
    ("value", "expected", "reason"),
    [
        (
            "2026-11-30T10:05:58.315+0100",
            datetime(2026, 11, 30, 9, 5, 58, 315000, UTC),
            None,
        ),
        ("0001-01-01T00:00:00Z", None, None),  # Go's zero time: no end yet
        ("", None, None),
        (None, None, None),
        ("soon", None, "not an RFC 3339 date-time"),
        (7, None, "must be an RFC 3339 date-time string"),
        ("2026-11-30T10:00:00", None, "must carry a UTC offset"),
        ("1999-01-01T00:00:00Z", None, "must be between"),
    ],
)
def test_a_time_is_rfc_3339_within_bounds_in_utc(value, expected, reason):
    errors = FieldErrors()

    parsed = model.time({"at": value}, "at", "alerts[0].at", errors)

    assert parsed == expected
    if reason is None:
        assert not errors
    else:
        assert reason in errors["alerts[0].at"]


def test_a_record_is_the_json_a_group_keeps():
    alert = model.Alert(
        fingerprint="f",
        status="firing",
        labels={"a": "b"},
        annotations={},
        starts_at=datetime(2026, 11, 30, tzinfo=UTC),
    )

    assert alert.record() == {
        "status": "firing",
        "labels": {"a": "b"},
        "annotations": {},
        "starts_at": "2026-11-30T00:00:00+00:00",
        "ends_at": None,
        "generator_url": "",
        "links": [],
    }
