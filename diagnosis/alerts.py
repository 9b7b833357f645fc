"""Incidents from alerts (issue 12 item 1): Alertmanager webhooks (version 4) and PagerDuty
Events API v2 bodies, parsed, mapped by the registry's `[alerts]` rules and applied to one
AlertGroup per group, which opens one incident.

How a payload is applied, under the tenant lock (diagnosis.locks, which orders every lock the
intake takes: tenant lock, intake window, group row, task row), in one transaction that runs
again if PostgreSQL aborts it (diagnosis.db_retry.atomic):

1. Count it against the tenant's ALERT_RATE_LIMIT (fixed windows of ALERT_RATE_WINDOW_SECONDS);
   over it, AlertsRateLimited and nothing is written.
2. Find the tenant's open group of the same key (Alertmanager `groupKey`; PagerDuty
   `routing_key` + `dedup_key`, hashed: the routing key is a credential and is never stored).
3. No open group and the group fires: map the alerts to an incident and open it
   (services.incident_create: the incident rate limit, the environment check and the enqueue
   of its diagnosis apply). No open group and it is resolved or acknowledged: ignored, as
   PagerDuty drops such events; nothing is opened for something already over.
4. An open group: its alerts are merged by fingerprint (at most MAX_GROUP_ALERTS); `resolved`
   closes it (resolved_at, every alert resolved). When something changed, an `alert_received`
   event is appended to the incident's active diagnosis, which runs on either way.

A group that resolves and fires again opens a new incident: the old incident's diagnosis and
report describe the old occurrence, and PagerDuty does the same (a trigger after a resolve
creates a new incident). The incident's fields are mapped once, from the payload that opened
it; repeats add alerts to the group, not to the incident's text.
"""

import hashlib
import json
import math
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, cast

from django.conf import settings
from django.db.models import F
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from diagnosis import (
    bounds,
    db_retry,
    environments,
    lifecycle,
    locks,
    selectors,
    services,
)
from diagnosis.events import EventKind
from diagnosis.exceptions import AlertsRateLimited, ValidationFailed
from diagnosis.models import (
    AlertGroup,
    AlertGroupStatus,
    AlertIntakeWindow,
    AlertSource,
    DiagnosisTask,
    Incident,
    Tenant,
)
from diagnosis.payloads import (
    AlertGroupStatusValue,
    AlertReceivedData,
    AlertSourceValue,
    AlertStatusValue,
)
from diagnosis.principals import Principal, role_scopes
from diagnosis.registry import AlertRules

__all__ = [
    "MAX_GROUP_ALERTS",
    "Alert",
    "Intake",
    "Notification",
    "alertmanager_notification",
    "alertmanager_receive",
    "incident_fields",
    "pagerduty_notification",
    "pagerduty_receive",
]

MAX_GROUP_ALERTS = 200  # alerts one group holds; more are counted in dropped_alerts
MAX_PAIRS = 64  # labels (or annotations) kept per alert, by name order
MAX_NAME_CHARS = 128  # of a kept label or annotation name
MAX_VALUE_CHARS = 1000  # of a kept label or annotation value
MAX_FIELD_ERRORS = 20  # a 400 names at most this many fields
EVENT_ALERTS = 20  # alerts listed in one alert_received event
BRIEF_CHARS = 300
KEY_CHARS = 255  # AlertGroup.key
TITLE_MAX = 200  # Incident.title
SERVICE_MAX = 100  # Incident.service
SYMPTOMS_MAX = 4000  # Incident.symptoms
FINGERPRINT_MAX = 128
PD_KEY_MAX = 255  # routing_key, dedup_key
PD_SUMMARY_MAX = 1024
PD_FIELD_MAX = 255  # source, component, group, class
PD_SEVERITIES = ("critical", "error", "warning", "info")
PD_ACTIONS = ("trigger", "acknowledge", "resolve")
# The scope an incident's diagnosis needs (diagnosis.engine.policy.READ_SCOPE): whoever may
# send alerts may open incidents with them.
INCIDENT_SCOPE = "incidents:write"


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

    def record(self) -> dict[str, Any]:
        """The JSON kept in AlertGroup.alerts under the fingerprint."""
        return {
            "status": self.status,
            "labels": self.labels,
            "annotations": self.annotations,
            "starts_at": _iso(self.starts_at),
            "ends_at": _iso(self.ends_at),
            "generator_url": self.generator_url,
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


@dataclass(frozen=True)
class Intake:
    """What a payload did: created | updated | unchanged | acknowledged | resolved | ignored."""

    source: str
    result: str
    group: AlertGroup | None = None
    incident: Incident | None = None
    task: DiagnosisTask | None = (
        None  # the task it created, else the incident's active one
    )
    dedup_key: str = ""  # PagerDuty: the key (generated for a trigger without one)

    @property
    def created(self) -> bool:
        return self.result == "created"


# --- parsing ---------------------------------------------------------------------------------


class _Errors(dict[str, str]):
    """Field errors, at most MAX_FIELD_ERRORS of them."""

    def add(self, name: str, reason: str) -> None:
        if len(self) < MAX_FIELD_ERRORS:
            self.setdefault(name, reason)

    def raise_if_any(self) -> None:
        if self:
            raise ValidationFailed(dict(self), "invalid alert payload")


def _string(
    data: Mapping[str, Any],
    name: str,
    where: str,
    errors: _Errors,
    *,
    required: bool = False,
    max_length: int | None = None,
) -> str:
    value = data.get(name)
    if value is None:
        if required:
            errors.add(where, "this field is required")
        return ""
    if not isinstance(value, str):
        errors.add(where, "must be a string")
        return ""
    if required and not value.strip():
        errors.add(where, "must not be blank")
    elif max_length is not None and len(value) > max_length:
        errors.add(where, f"at most {max_length} characters (got {len(value)})")
    return value


def _string_map(
    data: Mapping[str, Any],
    name: str,
    where: str,
    errors: _Errors,
    *,
    required: bool = False,
) -> dict[str, str]:
    value = data.get(name)
    if value is None:
        if required:
            errors.add(where, "this field is required")
        return {}
    if not isinstance(value, dict):
        errors.add(where, "must be an object of strings")
        return {}
    bad = [k for k, v in value.items() if not isinstance(v, str)]
    for key in bad[:3]:
        errors.add(f"{where}.{key[:64]}", "must be a string")
    return _bounded({k: v for k, v in value.items() if isinstance(v, str)})


def _bounded(pairs: Mapping[str, str]) -> dict[str, str]:
    # Kept per alert and per repeat: a bound on each alert bounds the group's JSON.
    names = sorted(pairs)[:MAX_PAIRS]
    return {name[:MAX_NAME_CHARS]: pairs[name][:MAX_VALUE_CHARS] for name in names}


def _time(
    data: Mapping[str, Any], name: str, where: str, errors: _Errors
) -> datetime | None:
    value = data.get(name)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        errors.add(where, "must be an RFC 3339 date-time string")
        return None
    try:
        parsed = parse_datetime(value)
    except ValueError:
        parsed = None
    if parsed is None:
        errors.add(where, "not an RFC 3339 date-time")
        return None
    if parsed.year == 1:
        # Go's zero time: Alertmanager's "no end known yet" (endsAt of a firing alert).
        return None
    reason = bounds.datetime_error(parsed)
    if reason is not None:
        errors.add(where, reason)
        return None
    return parsed.astimezone(UTC)


def _count(data: Mapping[str, Any], name: str, errors: _Errors) -> int:
    value: object = data.get(name, 0)
    # 3.0 is an integer to JSON Schema (and to a sender's JSON encoder) as much as 3 is.
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        errors.add(name, "must be a non-negative integer")
        return 0
    return min(value, 2**31 - 1)


def _fingerprint(labels: Mapping[str, str]) -> str:
    # What an Alertmanager without `fingerprint` (before 0.20) identifies an alert by.
    canonical = json.dumps(sorted(labels.items()), separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def _alertmanager_alert(item: Any, where: str, errors: _Errors) -> Alert | None:
    if not isinstance(item, dict):
        errors.add(where, "must be an object")
        return None
    status = item.get("status")
    if status not in ("firing", "resolved"):
        errors.add(f"{where}.status", "must be firing or resolved")
    labels = _string_map(item, "labels", f"{where}.labels", errors, required=True)
    annotations = _string_map(item, "annotations", f"{where}.annotations", errors)
    starts_at = _time(item, "startsAt", f"{where}.startsAt", errors)
    ends_at = _time(item, "endsAt", f"{where}.endsAt", errors)
    generator_url = _string(item, "generatorURL", f"{where}.generatorURL", errors)
    fingerprint = _string(
        item, "fingerprint", f"{where}.fingerprint", errors, max_length=FINGERPRINT_MAX
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


def alertmanager_notification(data: Mapping[str, Any]) -> Notification:
    """An Alertmanager webhook body (version 4) as a Notification.

    Fields this format does not define are ignored (a newer Alertmanager may add some).

    Raises:
        ValidationFailed: a field missing or malformed, named as the payload names it
            (`alerts[2].startsAt`); at most MAX_FIELD_ERRORS of them.
    """
    errors = _Errors()
    version = data.get("version")
    if version is None:
        errors.add("version", "this field is required")
    elif version != "4":
        errors.add("version", 'must be "4" (the Alertmanager webhook format)')
    group_key = _string(data, "groupKey", "groupKey", errors, required=True)
    status = data.get("status")
    if status not in ("firing", "resolved"):
        errors.add("status", "must be firing or resolved")
    receiver = _string(data, "receiver", "receiver", errors)
    common_labels = _string_map(data, "commonLabels", "commonLabels", errors)
    group_labels = _string_map(data, "groupLabels", "groupLabels", errors)
    annotations = _string_map(data, "commonAnnotations", "commonAnnotations", errors)
    _string(data, "externalURL", "externalURL", errors)
    truncated = _count(data, "truncatedAlerts", errors)
    raw_alerts = data.get("alerts")
    alerts: list[Alert] = []
    if not isinstance(raw_alerts, list):
        errors.add("alerts", "this field is required: a list of alerts")
    elif not raw_alerts:
        errors.add("alerts", "must hold at least one alert")
    else:
        for index, item in enumerate(raw_alerts):
            alert = _alertmanager_alert(item, f"alerts[{index}]", errors)
            if alert is not None:
                alerts.append(alert)
    errors.raise_if_any()
    return Notification(
        source=AlertSource.ALERTMANAGER,
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


def pagerduty_notification(
    data: Mapping[str, Any], *, now: datetime | None = None
) -> Notification:
    """A PagerDuty Events API v2 body as a Notification; a trigger without `dedup_key` gets
    a new one (as PagerDuty generates one), so it always opens a new incident.

    `images`, `links`, `client`, `client_url` and fields the format does not define are
    ignored; so is `payload` on acknowledge and resolve, as PagerDuty does.

    Raises:
        ValidationFailed: a field missing or malformed (`payload.severity`).
    """
    errors = _Errors()
    routing_key = _string(
        data, "routing_key", "routing_key", errors, required=True, max_length=PD_KEY_MAX
    )
    action = data.get("event_action")
    if action not in PD_ACTIONS:
        errors.add("event_action", "must be trigger, acknowledge or resolve")
    dedup_key = _string(
        data,
        "dedup_key",
        "dedup_key",
        errors,
        required=action in ("acknowledge", "resolve"),
        max_length=PD_KEY_MAX,
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
        title = _string(
            payload,
            "summary",
            "payload.summary",
            errors,
            required=True,
            max_length=PD_SUMMARY_MAX,
        )
        source = _string(
            payload,
            "source",
            "payload.source",
            errors,
            required=True,
            max_length=PD_FIELD_MAX,
        )
        severity = str(payload.get("severity"))
        if payload.get("severity") not in PD_SEVERITIES:
            errors.add("payload.severity", "must be critical, error, warning or info")
        when = _time(payload, "timestamp", "payload.timestamp", errors)
        for name in ("component", "group", "class"):
            value = _string(
                payload, name, f"payload.{name}", errors, max_length=PD_FIELD_MAX
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
                **_bounded({k: v for k, v in custom.items() if isinstance(v, str)}),
                **labels,
            }
    errors.raise_if_any()
    dedup_key = dedup_key or uuid.uuid4().hex
    status = {
        "trigger": AlertGroupStatus.FIRING,
        "acknowledge": AlertGroupStatus.ACKNOWLEDGED,
        "resolve": AlertGroupStatus.RESOLVED,
    }[str(action)]
    alerts: tuple[Alert, ...] = ()
    if action == "trigger":
        alerts = (
            Alert(
                fingerprint=dedup_key[:FINGERPRINT_MAX],
                status="firing",
                labels=_bounded(labels),
                annotations=annotations,
                starts_at=when or now or timezone.now(),
            ),
        )
    return Notification(
        source=AlertSource.PAGERDUTY,
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


# --- mapping to an incident --------------------------------------------------------------------


def _cut(text: str, limit: int, *, one_line: bool = True) -> str:
    text = " ".join(text.split()) if one_line else text.strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _first(maps: Sequence[Mapping[str, str]], names: Sequence[str]) -> str:
    """The value of the first of `names` that any of `maps` has (names in priority order)."""
    for name in names:
        for values in maps:
            value = values.get(name, "").strip()
            if value:
                return value
    return ""


def _symptom_lines(note: Notification, rules: AlertRules) -> list[str]:
    lines: list[str] = []
    for name in rules.symptom_annotations:
        value = note.annotations.get(name, "").strip()
        if value and value not in lines:
            lines.append(value)
    # Annotations that differ between alerts are not common: each firing alert says its own.
    for alert in sorted(note.alerts, key=lambda a: a.status != "firing"):
        for name in rules.symptom_annotations:
            value = alert.annotations.get(name, "").strip()
            if value and value not in lines:
                lines.append(value)
        if sum(len(line) + 1 for line in lines) > SYMPTOMS_MAX:
            break
    lines.extend(note.details)
    firing = sum(1 for a in note.alerts if a.status == "firing")
    if len(note.alerts) > 1 or note.sender_truncated:
        counts = f"{firing} of {len(note.alerts) + note.sender_truncated} alerts firing"
        if note.sender_truncated:
            counts += f" ({note.sender_truncated} left out of the payload)"
        lines.append(counts)
    return lines


def incident_fields(note: Notification, rules: AlertRules) -> dict[str, Any]:
    """Keyword arguments of services.incident_create for the group `note` opens.

    * service: the first of `service_labels` that has a value, in the common labels or else in
      an alert's (PagerDuty: in custom_details; then `component`, then `source`), else
      `default_service`;
    * severity: the most severe that `severity_label` values (PagerDuty: `payload.severity`)
      map to, else `default_severity`;
    * title: `alertname: <first symptom annotation>` (PagerDuty: the summary);
    * symptoms: the `symptom_annotations` values, common ones first, then each alert's own
      (PagerDuty: the summary and custom_details), at most SYMPTOMS_MAX characters;
    * window: the earliest `startsAt` to, for a resolved group, the latest `endsAt`;
    * environment: `receivers[receiver]` (PagerDuty: `pagerduty_groups[payload.group]`),
      else None (the tenant's default).
    """
    label_maps = [note.labels, *(a.labels for a in note.alerts)]
    service = (
        _first(label_maps, rules.service_labels)
        or next(iter(note.service_hints), "")
        or rules.default_service
    )
    raw_severities = (
        [note.severity]
        if note.severity
        else [m.get(rules.severity_label, "") for m in label_maps]
    )
    mapped = [s for s in map(rules.severity, raw_severities) if s is not None]
    severity = min(mapped) if mapped else rules.default_severity  # "sev1" < "sev2"
    annotation_maps = [note.annotations, *(a.annotations for a in note.alerts)]
    summary = _first(annotation_maps, rules.symptom_annotations)
    alertname = _first(label_maps, ("alertname",))
    title = note.title or (
        f"{alertname}: {summary}" if alertname and summary else alertname or summary
    )
    starts = [a.starts_at for a in note.alerts if a.starts_at is not None]
    ends = [a.ends_at for a in note.alerts if a.ends_at is not None]
    window_start = min(starts) if starts else None
    window_end = None
    if note.status == AlertGroupStatus.RESOLVED and ends:
        window_end = max(ends)
        if window_start is not None and window_end < window_start:
            window_end = None
    routes = rules.pagerduty_groups if note.source == "pagerduty" else rules.receivers
    return {
        "title": _cut(title or f"{note.source} alert {note.key}", TITLE_MAX),
        "service": _cut(service, SERVICE_MAX),
        "severity": severity,
        "symptoms": _cut(
            "\n".join(_symptom_lines(note, rules)), SYMPTOMS_MAX, one_line=False
        ),
        "window_start": window_start,
        "window_end": window_end,
        "environment": routes.get(note.route),
    }


# --- applying --------------------------------------------------------------------------------


def alertmanager_receive(*, principal: Principal, data: Mapping[str, Any]) -> Intake:
    """Apply one Alertmanager webhook body for the principal's tenant (module docstring).

    Raises:
        ValidationFailed: a malformed payload, or an environment the tenant may not use;
            nothing is written.
        AlertsRateLimited: the tenant sent ALERT_RATE_LIMIT payloads in this window.
        RateLimited: the payload would open an incident over INCIDENT_RATE_LIMIT.
    """
    return _receive(principal=principal, note=alertmanager_notification(data))


def pagerduty_receive(*, principal: Principal, data: Mapping[str, Any]) -> Intake:
    """Apply one PagerDuty Events API v2 body for the principal's tenant (module docstring).

    Raises:
        ValidationFailed, AlertsRateLimited, RateLimited: as alertmanager_receive.
    """
    note = pagerduty_notification(data)
    intake = _receive(principal=principal, note=note)
    return replace(intake, dedup_key=note.key)


def _acting(principal: Principal) -> Principal:
    # The diagnosis of an incident an alert opens runs for the alert's sender; its tools need
    # incidents:write (diagnosis.engine.policy), which sending alerts implies where the role
    # allows it (every role that may hold alerts:write does).
    extra = frozenset({INCIDENT_SCOPE}) & role_scopes(principal.role)
    return replace(principal, scopes=principal.scopes | extra)


def _take_slot(tenant: Tenant, now: datetime) -> None:
    """Count one payload in the tenant's current window; the tenant lock is held."""
    limit = settings.ALERT_RATE_LIMIT
    if limit <= 0:
        return
    window = max(1, settings.ALERT_RATE_WINDOW_SECONDS)
    epoch = math.floor(now.timestamp())
    start_s = epoch - epoch % window
    start = datetime.fromtimestamp(start_s, UTC)
    # Only the current window is ever read: older rows go as soon as the tenant sends again.
    AlertIntakeWindow.objects.filter(tenant=tenant, window_start__lt=start).delete()
    slot, _ = AlertIntakeWindow.objects.get_or_create(tenant=tenant, window_start=start)
    if slot.payloads >= limit:
        raise AlertsRateLimited(max(1, math.ceil(start_s + window - now.timestamp())))
    AlertIntakeWindow.objects.filter(pk=slot.pk).update(payloads=F("payloads") + 1)


def _receive(*, principal: Principal, note: Notification) -> Intake:
    rules = environments.registry().alerts
    # Repeats race the diagnosis they feed (its worker writes the task's events and spans):
    # a transaction PostgreSQL aborts anyway (a deadlock outside the lock order, a
    # serialization failure) runs again whole rather than answering 500.
    return db_retry.atomic(
        lambda: _apply(principal=principal, note=note, rules=rules),
        what=f"{note.source} alert intake",
    )


def _apply(*, principal: Principal, note: Notification, rules: AlertRules) -> Intake:
    tenant = principal.tenant
    # Serialises the tenant's payloads: one group per key, and an exact count. Locks in
    # diagnosis.locks' order: tenant lock, intake window, group row, then the task row (the
    # alert_received event).
    locks.tenant_lock(tenant.pk)
    now = timezone.now()
    _take_slot(tenant, now)
    group = (
        # The group row alone: FOR UPDATE of the joined incident row too would block the
        # worker's COMMIT, which rechecks the task's foreign keys (diagnosis.locks).
        AlertGroup.objects.select_for_update(of=("self",))
        .filter(tenant=tenant, source=note.source, key_hash=note.key_hash)
        .exclude(status=AlertGroupStatus.RESOLVED)
        .select_related("incident")
        .first()
    )
    if group is None:
        if note.status != AlertGroupStatus.FIRING:
            return Intake(source=note.source, result="ignored")
        return _open(principal=principal, note=note, rules=rules, now=now)
    return _update(group=group, note=note, rules=rules, now=now)


def _merge(
    stored: Mapping[str, Any], alerts: Sequence[Alert]
) -> tuple[dict[str, Any], list[Alert], int, int, int]:
    """(merged alerts, new or changed ones, new count, newly resolved count, dropped count)."""
    merged = dict(stored)
    changed: list[Alert] = []
    new = resolved = dropped = 0
    for alert in alerts:
        before = merged.get(alert.fingerprint)
        if before is None:
            if len(merged) >= MAX_GROUP_ALERTS:
                dropped += 1
                continue
            new += 1
            changed.append(alert)
        elif before.get("status") != alert.status:
            resolved += alert.status == "resolved"
            changed.append(alert)
        merged[alert.fingerprint] = alert.record()
    return merged, changed, new, resolved, dropped


def _open(
    *, principal: Principal, note: Notification, rules: AlertRules, now: datetime
) -> Intake:
    incident, task = services.incident_create(
        tenant=principal.tenant,
        user=principal.user,
        principal=_acting(principal),
        **incident_fields(note, rules),
    )
    merged, _changed, _new, _resolved, dropped = _merge({}, note.alerts)
    group = AlertGroup.objects.create(
        tenant=principal.tenant,
        source=note.source,
        key_hash=note.key_hash,
        key=note.key,
        incident=incident,
        status=AlertGroupStatus.FIRING,
        alerts=merged,
        dropped_alerts=dropped,
        sender_truncated_alerts=note.sender_truncated,
        first_payload_at=now,
        last_payload_at=now,
    )
    return Intake(
        source=note.source, result="created", group=group, incident=incident, task=task
    )


def _update(
    *, group: AlertGroup, note: Notification, rules: AlertRules, now: datetime
) -> Intake:
    merged, changed, new, resolved, dropped = _merge(group.alerts, note.alerts)
    status = AlertGroupStatus(group.status)
    result = "unchanged"
    if note.status == AlertGroupStatus.RESOLVED:
        status, result = AlertGroupStatus.RESOLVED, "resolved"
        group.resolved_at = now
        # Closed: whatever the last payload did not list is over too.
        for fingerprint, record in merged.items():
            if record.get("status") == "firing":
                record.update(
                    status="resolved", ends_at=record.get("ends_at") or _iso(now)
                )
                resolved += 1
                if not any(a.fingerprint == fingerprint for a in changed):
                    changed.append(_from_record(fingerprint, record))
    elif note.status == AlertGroupStatus.ACKNOWLEDGED:
        if status != AlertGroupStatus.ACKNOWLEDGED:
            status, result = AlertGroupStatus.ACKNOWLEDGED, "acknowledged"
            group.acknowledged_at = now
    elif changed:
        result = "updated"
    group.status = status
    group.alerts = merged
    group.dropped_alerts += dropped
    group.sender_truncated_alerts = note.sender_truncated
    group.payloads += 1
    group.last_payload_at = now
    group.save(
        update_fields=[
            "status",
            "alerts",
            "dropped_alerts",
            "sender_truncated_alerts",
            "payloads",
            "last_payload_at",
            "acknowledged_at",
            "resolved_at",
        ]
    )
    task = selectors.incident_active_task(incident=group.incident)
    if task is not None and result != "unchanged":
        lifecycle.diagnosis_event_append(
            task_id=task.id,
            kind=EventKind.ALERT_RECEIVED,
            data=_event(group, changed, new, resolved, rules),
        )
    return Intake(
        source=note.source,
        result=result,
        group=group,
        incident=group.incident,
        task=task,
    )


def _from_record(fingerprint: str, record: Mapping[str, Any]) -> Alert:
    return Alert(
        fingerprint=fingerprint,
        status=str(record.get("status", "")),
        labels=dict(record.get("labels") or {}),
        annotations=dict(record.get("annotations") or {}),
    )


def _event(
    group: AlertGroup,
    changed: Sequence[Alert],
    new: int,
    resolved: int,
    rules: AlertRules,
) -> AlertReceivedData:
    return {
        # The model's choices are the payload's literals (diagnosis.payloads).
        "source": cast("AlertSourceValue", group.source),
        "group_id": str(group.id),
        "status": cast("AlertGroupStatusValue", group.status),
        "new_alerts": new,
        "resolved_alerts": resolved,
        "alerts": [
            {
                "fingerprint": alert.fingerprint,
                "status": cast("AlertStatusValue", alert.status),
                "name": _cut(
                    alert.labels.get("alertname")
                    or alert.annotations.get("summary", ""),
                    BRIEF_CHARS,
                ),
                "summary": _cut(
                    _first([alert.annotations], rules.symptom_annotations), BRIEF_CHARS
                ),
            }
            for alert in changed[:EVENT_ALERTS]
        ],
        "truncated": max(0, len(changed) - EVENT_ALERTS),
    }


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None
