"""PagerDuty Events API v2 bodies (trigger, acknowledge, resolve) as a Notification. Pure: no
ORM, no settings.
"""

import json
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from diagnosis import fields
from diagnosis.intake.model import (
    ACKNOWLEDGED,
    FINGERPRINT_MAX,
    FIRING,
    INVALID,
    MAX_LINKS,
    MAX_PAIRS,
    MAX_VALUE_CHARS,
    PAGERDUTY,
    RESOLVED,
    Alert,
    Notification,
    bounded,
    payload_errors,
    time,
)

PD_KEY_MAX = 255  # routing_key, dedup_key
PD_SUMMARY_MAX = 1024
PD_FIELD_MAX = 255  # source, component, group, class
PD_SEVERITIES = ("critical", "error", "warning", "info")
PD_ACTIONS = ("trigger", "acknowledge", "resolve")


def _links(data: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    # Optional context for people, not for the diagnosis: a malformed entry is skipped rather
    # than refusing the event, as PagerDuty shows what it can.
    found: list[tuple[str, str]] = []
    client_url = data.get("client_url")
    if isinstance(client_url, str) and client_url.strip():
        client = data.get("client")
        text = client if isinstance(client, str) and client.strip() else "client"
        found.append((client_url.strip(), text.strip()))
    links = data.get("links")
    for item in links if isinstance(links, list) else []:
        href = item.get("href") if isinstance(item, dict) else None
        if isinstance(href, str) and href.strip():
            text = item.get("text")
            found.append((href.strip(), text.strip() if isinstance(text, str) else ""))
    return tuple(
        (href[:MAX_VALUE_CHARS], text[:MAX_VALUE_CHARS])
        for href, text in found[:MAX_LINKS]
    )


def _details(custom: Any) -> tuple[str, ...]:
    if custom is None:
        return ()
    if not isinstance(custom, dict):
        text = custom if isinstance(custom, str) else json.dumps(custom)
        return (text[:MAX_VALUE_CHARS],)
    lines = []
    for key in sorted(custom)[:MAX_PAIRS]:
        value = custom[key]
        text = value if isinstance(value, str) else json.dumps(value)
        lines.append(f"{key}: {text}"[:MAX_VALUE_CHARS])
    return tuple(lines)


def notification(
    data: Mapping[str, Any], *, now: datetime | None = None
) -> Notification:
    """A PagerDuty Events API v2 body as a Notification; a trigger without `dedup_key` gets
    a new one (as PagerDuty generates one), so it always opens a new incident.

    `links` and `client_url` (named by `client`) are kept with the alert, at most MAX_LINKS;
    `images` and fields the format does not define are ignored; so is `payload` on
    acknowledge and resolve, as PagerDuty does.

    Raises:
        ValidationFailed: a field missing or malformed (`payload.severity`).
    """
    errors = payload_errors()
    routing_key = fields.text(
        data, "routing_key", errors, required=True, max_length=PD_KEY_MAX, strip=False
    )
    action = fields.choice(
        data,
        "event_action",
        errors,
        PD_ACTIONS,
        reason="must be trigger, acknowledge or resolve",
    )
    dedup_key = fields.text(
        data,
        "dedup_key",
        errors,
        required=action in ("acknowledge", "resolve"),
        max_length=PD_KEY_MAX,
        strip=False,
    )
    title = severity = ""
    hints: list[str] = []
    details: tuple[str, ...] = ()
    labels: dict[str, str] = {}
    annotations: dict[str, str] = {}
    when: datetime | None = None
    route = ""
    if action == "trigger":
        payload = data.get("payload")
        if not isinstance(payload, dict):
            errors.add("payload", "this field is required for a trigger: an object")
            payload = {}
        title = fields.text(
            payload,
            "summary",
            errors,
            where="payload.summary",
            required=True,
            max_length=PD_SUMMARY_MAX,
            strip=False,
        )
        source = fields.text(
            payload,
            "source",
            errors,
            where="payload.source",
            required=True,
            max_length=PD_FIELD_MAX,
            strip=False,
        )
        severity = str(payload.get("severity"))
        fields.choice(
            payload,
            "severity",
            errors,
            PD_SEVERITIES,
            where="payload.severity",
            reason="must be critical, error, warning or info",
        )
        when = time(payload, "timestamp", "payload.timestamp", errors)
        for name in ("component", "group", "class"):
            value = fields.text(
                payload,
                name,
                errors,
                where=f"payload.{name}",
                max_length=PD_FIELD_MAX,
                strip=False,
            )
            if value:
                labels[name] = value
        route = labels.get("group", "")
        hints = [h for h in (labels.get("component", ""), source) if h.strip()]
        labels.update(source=source, severity=severity)
        annotations["summary"] = title[:MAX_VALUE_CHARS]
        details = _details(payload.get("custom_details"))
        custom = payload.get("custom_details")
        if isinstance(custom, dict):
            # String details are labels to the service rule (custom_details.service).
            labels = {
                **bounded({k: v for k, v in custom.items() if isinstance(v, str)}),
                **labels,
            }
    errors.raise_if_any(INVALID)
    dedup_key = dedup_key or uuid.uuid4().hex
    status = {
        "trigger": FIRING,
        "acknowledge": ACKNOWLEDGED,
        "resolve": RESOLVED,
    }[str(action)]
    alerts: tuple[Alert, ...] = ()
    if action == "trigger":
        alerts = (
            Alert(
                fingerprint=dedup_key[:FINGERPRINT_MAX],
                status=FIRING,
                labels=bounded(labels),
                annotations=annotations,
                starts_at=when or now or datetime.now(UTC),
                links=_links(data),
            ),
        )
    return Notification(
        source=PAGERDUTY,
        identity=f"pagerduty\0{routing_key}\0{dedup_key}",
        key=dedup_key,
        status=status,
        alerts=alerts,
        route=route,
        title=title.strip(),
        severity=severity,
        service_hints=tuple(hints),
        details=details,
    )
