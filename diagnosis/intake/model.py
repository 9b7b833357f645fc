"""What a parser makes of an alert payload: one Notification of bounded Alerts, whichever
source sent it. Pure: no ORM, no settings; the strings are those of diagnosis.models'
AlertSource and AlertGroupStatus (tests/diagnosis/intake/test_model.py holds them equal).
"""

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from diagnosis import bounds, fields, incident_labels
from diagnosis.fields import FieldErrors

# Sources (AlertSource) and a group's statuses (AlertGroupStatus).
ALERTMANAGER = "alertmanager"
PAGERDUTY = "pagerduty"
FIRING = "firing"
ACKNOWLEDGED = "acknowledged"
RESOLVED = "resolved"

# An alert's labels (or annotations) are bounded as an incident's labels are.
MAX_PAIRS = incident_labels.LABELS_MAX  # kept per alert, by name order
MAX_NAME_CHARS = incident_labels.LABEL_NAME_MAX  # of a kept label or annotation name
MAX_VALUE_CHARS = incident_labels.LABEL_VALUE_MAX  # of a kept label or annotation value
MAX_FIELD_ERRORS = 20  # a 400 names at most this many fields
MAX_LINKS = 10  # links kept per alert (PagerDuty `links` and `client_url`)
KEY_CHARS = 255  # AlertGroup.key
FINGERPRINT_MAX = 128
INVALID = "invalid alert payload"


@dataclass(frozen=True)
class Alert:
    """One alert of a payload, bounded for storage."""

    fingerprint: str
    status: str  # firing | resolved
    labels: dict[str, str]
    annotations: dict[str, str]
    starts_at: datetime | None = None
    ends_at: datetime | None = None
    generator_url: str = ""
    # (href, text) pairs the sender attached: PagerDuty's `links` and `client_url`. Kept as
    # sent; only the page decides which become links (diagnosis.pages.alert_panel).
    links: tuple[tuple[str, str], ...] = ()

    def record(self) -> dict[str, Any]:
        """The JSON kept in AlertGroup.alerts under the fingerprint (diagnosis.intake.receive
        adds when it was first and last received and how often)."""
        return {
            "status": self.status,
            "labels": self.labels,
            "annotations": self.annotations,
            "starts_at": iso(self.starts_at),
            "ends_at": iso(self.ends_at),
            "generator_url": self.generator_url,
            "links": [{"href": href, "text": text} for href, text in self.links],
        }


@dataclass(frozen=True)
class Notification:
    """One payload of either source, in one shape."""

    source: str
    identity: str  # what key_hash hashes; never stored as is
    key: str  # shown: the groupKey or the dedup_key
    status: str  # the group's: firing | acknowledged | resolved
    alerts: tuple[Alert, ...]
    route: str  # Alertmanager receiver / PagerDuty payload.group: picks the environment
    labels: dict[str, str] = field(default_factory=dict)  # commonLabels
    annotations: dict[str, str] = field(default_factory=dict)  # commonAnnotations
    sender_truncated: int = 0
    # PagerDuty's own fields where Alertmanager has labels and annotations.
    title: str = ""
    severity: str = ""
    service_hints: tuple[str, ...] = ()
    details: tuple[str, ...] = ()

    @property
    def key_hash(self) -> str:
        return hashlib.sha256(self.identity.encode()).hexdigest()


def payload_errors() -> FieldErrors:
    """The field errors of one payload: at most MAX_FIELD_ERRORS of them."""
    return FieldErrors(limit=MAX_FIELD_ERRORS)


def bounded(pairs: Mapping[str, str]) -> dict[str, str]:
    # Kept per alert and per repeat: a bound on each alert bounds the group's JSON.
    names = sorted(pairs)[:MAX_PAIRS]
    return {name[:MAX_NAME_CHARS]: pairs[name][:MAX_VALUE_CHARS] for name in names}


def string_map(
    data: Mapping[str, Any],
    name: str,
    where: str,
    errors: FieldErrors,
    *,
    required: bool = False,
) -> dict[str, str]:
    """Labels or annotations (diagnosis.fields.string_map), bounded."""
    return bounded(
        fields.string_map(data, name, errors, where=where, required=required)
    )


def time(
    data: Mapping[str, Any], name: str, where: str, errors: FieldErrors
) -> datetime | None:
    """An RFC 3339 date-time within diagnosis.bounds, in UTC; absent, "" or Go's zero: None."""
    if data.get(name) == "":
        return None
    parsed = fields.date_time(data, name, errors, where=where, standard="RFC 3339")
    if parsed is None:
        return None
    if parsed.year == 1:
        # Go's zero time: Alertmanager's "no end known yet" (endsAt of a firing alert).
        return None
    reason = bounds.datetime_error(parsed, now=datetime.now(UTC))
    if reason is not None:
        errors.add(where, reason)
        return None
    return parsed.astimezone(UTC)


def iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None
