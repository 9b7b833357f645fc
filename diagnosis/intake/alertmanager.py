"""Alertmanager webhook bodies (version 4: notify/webhook Message, template.Data plus version,
groupKey and truncatedAlerts) as a Notification. Pure: no ORM, no settings.
"""

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from diagnosis import fields
from diagnosis.fields import FieldErrors
from diagnosis.intake.model import (
    ALERTMANAGER,
    FINGERPRINT_MAX,
    FIRING,
    INVALID,
    KEY_CHARS,
    MAX_VALUE_CHARS,
    RESOLVED,
    Alert,
    Notification,
    payload_errors,
    string_map,
    time,
)


def _fingerprint(labels: Mapping[str, str]) -> str:
    # What an Alertmanager without `fingerprint` (before 0.20) identifies an alert by.
    canonical = json.dumps(sorted(labels.items()), separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def _alert(item: Any, where: str, errors: FieldErrors) -> Alert | None:
    if not isinstance(item, dict):
        errors.add(where, "must be an object")
        return None
    status = item.get("status")
    if status not in (FIRING, RESOLVED):
        errors.add(f"{where}.status", "must be firing or resolved")
    labels = string_map(item, "labels", f"{where}.labels", errors, required=True)
    annotations = string_map(item, "annotations", f"{where}.annotations", errors)
    starts_at = time(item, "startsAt", f"{where}.startsAt", errors)
    ends_at = time(item, "endsAt", f"{where}.endsAt", errors)
    generator_url = fields.text(
        item, "generatorURL", errors, where=f"{where}.generatorURL", strip=False
    )
    fingerprint = fields.text(
        item,
        "fingerprint",
        errors,
        where=f"{where}.fingerprint",
        max_length=FINGERPRINT_MAX,
        strip=False,
    )
    if not isinstance(status, str):
        return None
    return Alert(
        fingerprint=fingerprint or _fingerprint(labels),
        status=status,
        labels=labels,
        annotations=annotations,
        starts_at=starts_at,
        ends_at=ends_at,
        generator_url=generator_url[:MAX_VALUE_CHARS],
    )


def notification(data: Mapping[str, Any]) -> Notification:
    """An Alertmanager webhook body (version 4) as a Notification.

    Fields this format does not define are ignored (a newer Alertmanager may add some).

    Raises:
        ValidationFailed: a field missing or malformed, named as the payload names it
            (`alerts[2].startsAt`); at most MAX_FIELD_ERRORS of them.
    """
    errors = payload_errors()
    version = data.get("version")
    if version is None:
        errors.add("version", fields.REQUIRED)
    elif version != "4":
        errors.add("version", 'must be "4" (the Alertmanager webhook format)')
    group_key = fields.text(data, "groupKey", errors, required=True, strip=False)
    status = fields.choice(
        data, "status", errors, (FIRING, RESOLVED), reason="must be firing or resolved"
    )
    receiver = fields.text(data, "receiver", errors, strip=False)
    common_labels = string_map(data, "commonLabels", "commonLabels", errors)
    group_labels = string_map(data, "groupLabels", "groupLabels", errors)
    annotations = string_map(data, "commonAnnotations", "commonAnnotations", errors)
    fields.text(data, "externalURL", errors, strip=False)
    truncated = fields.count(data, "truncatedAlerts", errors)
    raw_alerts = data.get("alerts")
    alerts: list[Alert] = []
    if not isinstance(raw_alerts, list):
        errors.add("alerts", "this field is required: a list of alerts")
    elif not raw_alerts:
        errors.add("alerts", "must hold at least one alert")
    else:
        for index, item in enumerate(raw_alerts):
            alert = _alert(item, f"alerts[{index}]", errors)
            if alert is not None:
                alerts.append(alert)
    errors.raise_if_any(INVALID)
    return Notification(
        source=ALERTMANAGER,
        identity=f"alertmanager\0{group_key}",
        key=group_key[:KEY_CHARS],
        status=str(status),
        alerts=tuple(alerts),
        route=receiver,
        # groupLabels are a subset of every alert's labels, hence of commonLabels.
        labels={**group_labels, **common_labels},
        annotations=annotations,
        sender_truncated=truncated,
    )
