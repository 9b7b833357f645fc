"""Field readers: how a value sent from outside (an API body, a page's form, an alert payload) is
read and checked, one rule each, named the same way everywhere.

Each reader takes the mapping, the field's name and a FieldErrors; it adds `{where: reason}`
for a bad value (`where` is the name as the caller shows it: `payload.summary`, `alerts[2].labels`)
and returns a usable value either way, so one pass names every bad field. No HTTP here: the
API answers a ValidationFailed with a 400 naming the fields (diagnosis.api.errors), a form shows
the reasons next to its inputs.

Strings are checked for NUL here as well as by diagnosis.bounds.json_error, which the API runs
over a whole body first: a form's strings come by another road.
"""

from collections.abc import Collection, Mapping
from datetime import datetime
from typing import Any

from django.utils.dateparse import parse_datetime

from diagnosis import bounds
from diagnosis.exceptions import ValidationFailed
from diagnosis.incident_labels import label_errors
from diagnosis.models import Severity

# The incident's text fields (diagnosis.models.Incident).
TITLE_MAX = 200
SERVICE_MAX = 100
SYMPTOMS_MAX = 4000
DESCRIPTION_MAX = 4000
ENVIRONMENT_MAX = 64  # Incident.environment; the registry's names are at most 63
REASON_MAX = 2000  # an approval decision's reason

REQUIRED = "this field is required"


class FieldErrors(dict[str, str]):
    """{field: reason}; the first reason a field gets is kept, at most `limit` fields."""

    def __init__(self, limit: int | None = None) -> None:
        super().__init__()
        self.limit = limit

    def add(self, name: str, reason: str) -> None:
        if self.limit is None or len(self) < self.limit or name in self:
            self.setdefault(name, reason)

    def raise_if_any(self, message: str = "invalid input") -> None:
        """Raises ValidationFailed naming every field added."""
        if self:
            raise ValidationFailed(dict(self), message)


def unknown_fields(
    data: Mapping[str, Any], known: Collection[str], errors: FieldErrors
) -> None:
    """Every name of `data` outside `known` is a mistake worth reporting."""
    for name in sorted(set(data) - set(known)):
        errors.add(name, "unknown field")


def text(
    data: Mapping[str, Any],
    name: str,
    errors: FieldErrors,
    *,
    where: str | None = None,
    required: bool = False,
    max_length: int | None = None,
    strip: bool = True,
) -> str:
    """A string: required ones present and not blank, at most `max_length` characters, no NUL.

    With `strip` (people's input) the value is stripped before it is measured and returned;
    without (a sender's payload, kept as sent) only the blank check ignores white space.
    """
    where = where or name
    value = data.get(name)
    if value is None:
        if required:
            errors.add(where, REQUIRED)
        return ""
    if not isinstance(value, str):
        errors.add(where, "must be a string")
        return ""
    if strip:
        value = value.strip()
    if "\x00" in value:
        errors.add(where, "must not contain NUL characters")
    elif required and not value.strip():
        errors.add(where, "must not be blank")
    elif max_length is not None and len(value) > max_length:
        errors.add(where, f"at most {max_length} characters (got {len(value)})")
    return value


def string_map(
    data: Mapping[str, Any],
    name: str,
    errors: FieldErrors,
    *,
    where: str | None = None,
    required: bool = False,
) -> dict[str, str]:
    """An object of strings (labels, annotations): its string values; the first three others
    are named (`labels.team`)."""
    where = where or name
    value = data.get(name)
    if value is None:
        if required:
            errors.add(where, REQUIRED)
        return {}
    if not isinstance(value, dict):
        errors.add(where, "must be an object of strings")
        return {}
    bad = [k for k, v in value.items() if not isinstance(v, str)]
    for key in bad[:3]:
        errors.add(f"{where}.{key[:64]}", "must be a string")
    return {k: v for k, v in value.items() if isinstance(v, str)}


def labels(
    data: Mapping[str, Any],
    name: str,
    errors: FieldErrors,
    *,
    where: str | None = None,
) -> dict[str, str]:
    """An incident's labels, as diagnosis.incident_labels.label_errors checks them (absent: {};
    refused: {} and the reasons)."""
    where = where or name
    value = data.get(name)
    if value is None:
        return {}
    found = label_errors(value, where)
    for field_name, reason in found.items():
        errors.add(field_name, reason)
    return {} if found else dict(value)


def choice(
    data: Mapping[str, Any],
    name: str,
    errors: FieldErrors,
    choices: Collection[str],
    *,
    reason: str,
    where: str | None = None,
    required: bool = False,
) -> Any:
    """One of `choices` (else `reason`; absent and required: REQUIRED); the value as sent."""
    where = where or name
    value = data.get(name)
    if value is None and required:
        errors.add(where, REQUIRED)
    elif value not in choices:
        errors.add(where, reason)
    return value


def severity(data: Mapping[str, Any], errors: FieldErrors) -> Any:
    """An incident's severity: one of Severity's values."""
    return choice(
        data,
        "severity",
        errors,
        Severity.values,
        reason=f"unknown severity; one of {', '.join(Severity.values)}",
        required=True,
    )


def date_time(
    data: Mapping[str, Any],
    name: str,
    errors: FieldErrors,
    *,
    where: str | None = None,
    standard: str = "ISO 8601",
) -> datetime | None:
    """A date-time string as parsed (absent: None); its bounds are the caller's
    (diagnosis.bounds). `standard` names the format in the reason (RFC 3339 for alerts)."""
    where = where or name
    value = data.get(name)
    if value is None:
        return None
    if not isinstance(value, str):
        errors.add(where, f"must be an {standard} date-time string")
        return None
    try:
        parsed = parse_datetime(value)
    except ValueError:
        parsed = None
    if parsed is None:
        errors.add(where, f"not an {standard} date-time")
    return parsed


def count(data: Mapping[str, Any], name: str, errors: FieldErrors) -> int:
    """A non-negative integer (default 0), at most 2**31 - 1."""
    value: object = data.get(name, 0)
    # 3.0 is an integer to JSON Schema (and to a sender's JSON encoder) as much as 3 is.
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        errors.add(name, "must be a non-negative integer")
        return 0
    return min(value, 2**31 - 1)


def incident_values(data: Mapping[str, Any], errors: FieldErrors) -> dict[str, Any]:
    """An incident's own fields as people send them (POST /api/incidents, the page's form):
    title, service, severity, symptoms, description, labels, the window (bounded, in UTC) and
    the environment's name (whether the tenant may use it is services.incident_create's check)."""
    values: dict[str, Any] = {
        "title": text(data, "title", errors, max_length=TITLE_MAX, required=True),
        "service": text(data, "service", errors, max_length=SERVICE_MAX, required=True),
        "symptoms": text(data, "symptoms", errors, max_length=SYMPTOMS_MAX),
        "description": text(data, "description", errors, max_length=DESCRIPTION_MAX),
        "labels": labels(data, "labels", errors),
    }
    values["severity"] = severity(data, errors)
    window_start = date_time(data, "window_start", errors)
    window_end = date_time(data, "window_end", errors)
    window, window_start, window_end = bounds.window_errors(window_start, window_end)
    for name, reason in window.items():
        errors.add(name, reason)
    environment = text(data, "environment", errors, max_length=ENVIRONMENT_MAX)
    values.update(
        window_start=window_start,
        window_end=window_end,
        environment=environment or None,
    )
    return values
