"""diagnosis.fields: the one set of field readers of the API, the pages and alert intake."""

from datetime import UTC, datetime

import pytest

from diagnosis import fields
from diagnosis.exceptions import ValidationFailed
from diagnosis.fields import FieldErrors


@pytest.mark.parametrize(
    ("value", "kwargs", "returned", "reason"),
    [
        (None, {"required": True}, "", "this field is required"),
        (None, {}, "", None),
        (3, {}, "", "must be a string"),
        ("  ", {"required": True}, "", "must not be blank"),
        (
            "  x  ",
            {"max_length": 1},
            "x",
            None,
        ),  # people's input: stripped, then measured
        (
            "  x  ",
            {"max_length": 1, "strip": False},
            "  x  ",
            "at most 1 characters (got 5)",
        ),
        (" ", {"required": True, "strip": False}, " ", "must not be blank"),
        ("a\x00b", {"required": True}, "a\x00b", "must not contain NUL characters"),
    ],
)
def test_text(value, kwargs, returned, reason):
    errors = FieldErrors()

    assert fields.text({"f": value}, "f", errors, **kwargs) == returned
    assert errors.get("f") == reason


def test_a_reader_names_the_field_as_the_caller_shows_it():
    errors = FieldErrors()

    fields.string_map(
        {"labels": {"a": "b", "n": 1}}, "labels", errors, where="alerts[0].labels"
    )

    assert errors == {"alerts[0].labels.n": "must be a string"}


def test_errors_keep_the_first_reason_and_at_most_their_limit():
    errors = FieldErrors(limit=2)
    for name in ("a", "a", "b", "c"):
        errors.add(name, name + "!")
    errors.add("a", "later")

    assert errors == {"a": "a!", "b": "b!"}
    with pytest.raises(ValidationFailed) as caught:
        errors.raise_if_any("bad")
    assert (str(caught.value), caught.value.fields) == ("bad", {"a": "a!", "b": "b!"})


def test_choice_required_and_not():
    errors = FieldErrors()

    fields.choice({}, "d", errors, ("x",), reason="must be x", required=True)
    fields.choice({}, "e", errors, ("x",), reason="must be x")

    assert errors == {"d": "this field is required", "e": "must be x"}


def test_an_incidents_values_and_every_reason_at_once():
    errors = FieldErrors()
    values = fields.incident_values(
        {
            "title": " db slow ",
            "service": "orders",
            "severity": "sev2",
            "window_start": "2026-11-30T10:00:00+01:00",
        },
        errors,
    )

    assert not errors
    assert values == {
        "title": "db slow",
        "service": "orders",
        "symptoms": "",
        "description": "",
        "labels": {},
        "severity": "sev2",
        "window_start": datetime(2026, 11, 30, 9, tzinfo=UTC),
        "window_end": None,
        "environment": None,
    }

    errors = FieldErrors()
    fields.incident_values({"severity": "sev9", "window_end": "tomorrow"}, errors)

    assert errors == {
        "title": "this field is required",
        "service": "this field is required",
        "severity": "unknown severity; one of sev1, sev2, sev3, sev4",
        "window_end": "not an ISO 8601 date-time",
    }
