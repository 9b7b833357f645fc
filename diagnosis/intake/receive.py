"""Alert payloads applied for a tenant: one AlertGroup per group, which opens one incident
(issue 12 item 1). The parsers (diagnosis.intake.alertmanager, .pagerduty) make a Notification
of a body; diagnosis.intake.mapping says what incident it opens.

How a payload is applied, under its group's lock (diagnosis.locks, which orders every lock the
intake takes: group lock, tenant lock when it opens an incident, group row, task row, intake
window), in one transaction that runs again if PostgreSQL aborts it (diagnosis.db_retry.atomic).
Payloads of different groups run in parallel; those of one group, one at a time.

1. Check the tenant's ALERT_RATE_LIMIT (fixed windows of ALERT_RATE_WINDOW_SECONDS); over it,
   AlertsRateLimited and nothing is written. The payload is counted at the end, by one
   conditional upsert just before COMMIT (refused there too when racing payloads took the
   last slots), so a payload that is refused or rolled back is never counted.
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

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any, cast

from django.conf import settings
from django.db import connection
from django.utils import timezone

from diagnosis import db_retry, environments, lifecycle, locks, selectors, services
from diagnosis.events import EventKind
from diagnosis.exceptions import AlertsRateLimited
from diagnosis.intake import alertmanager, pagerduty
from diagnosis.intake.mapping import cut, first, incident_fields
from diagnosis.intake.model import Alert, Notification, iso
from diagnosis.models import (
    AlertGroup,
    AlertGroupStatus,
    AlertIntakeWindow,
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

MAX_GROUP_ALERTS = 200  # alerts one group holds; more are counted in dropped_alerts
EVENT_ALERTS = 20  # alerts listed in one alert_received event
BRIEF_CHARS = 300
# The scope an incident's diagnosis needs (diagnosis.engine.policy.READ_SCOPE): whoever may
# send alerts may open incidents with them.
INCIDENT_SCOPE = "incidents:write"


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


def alertmanager_receive(*, principal: Principal, data: Mapping[str, Any]) -> Intake:
    """Apply one Alertmanager webhook body for the principal's tenant (module docstring).

    Raises:
        ValidationFailed: a malformed payload, or an environment the tenant may not use;
            nothing is written.
        AlertsRateLimited: the tenant sent ALERT_RATE_LIMIT payloads in this window.
        RateLimited: the payload would open an incident over INCIDENT_RATE_LIMIT.
    """
    return _receive(principal=principal, note=alertmanager.notification(data))


def pagerduty_receive(*, principal: Principal, data: Mapping[str, Any]) -> Intake:
    """Apply one PagerDuty Events API v2 body for the principal's tenant (module docstring).

    Raises:
        ValidationFailed, AlertsRateLimited, RateLimited: as alertmanager_receive.
    """
    note = pagerduty.notification(data)
    intake = _receive(principal=principal, note=note)
    return replace(intake, dedup_key=note.key)


def _acting(principal: Principal) -> Principal:
    # The diagnosis of an incident an alert opens runs for the alert's sender; its tools need
    # incidents:write (diagnosis.engine.policy), which sending alerts implies where the role
    # allows it (every role that may hold alerts:write does).
    extra = frozenset({INCIDENT_SCOPE}) & role_scopes(principal.role)
    return replace(principal, scopes=principal.scopes | extra)


def _window(now: datetime) -> tuple[datetime, float]:
    """(start of the rate limit's window holding now, seconds until it ends)."""
    window = max(1, settings.ALERT_RATE_WINDOW_SECONDS)
    epoch = math.floor(now.timestamp())
    start_s = epoch - epoch % window
    return datetime.fromtimestamp(start_s, UTC), start_s + window - now.timestamp()


def _refuse_over_limit(tenant: Tenant, now: datetime) -> None:
    """Refuse a payload of a tenant whose window is full, before any work (no lock taken)."""
    limit = settings.ALERT_RATE_LIMIT
    if limit <= 0:
        return
    start, left = _window(now)
    counted = (
        AlertIntakeWindow.objects.filter(tenant=tenant, window_start=start)
        .values_list("payloads", flat=True)
        .first()
    )
    if counted is not None and counted >= limit:
        raise AlertsRateLimited(max(1, math.ceil(left)))


def _count_payload(tenant: Tenant, now: datetime) -> None:
    """Count the payload in the tenant's window: the intake's last write (diagnosis.locks).

    Raises:
        AlertsRateLimited: racing payloads took the window's last slots; the caller's
            transaction rolls back whatever this payload wrote.
    """
    limit = settings.ALERT_RATE_LIMIT
    if limit <= 0:
        return
    start, left = _window(now)
    table = AlertIntakeWindow._meta.db_table
    with connection.cursor() as cursor:
        # Only the current window is ever read: older rows go as soon as the tenant sends again.
        cursor.execute(
            f"DELETE FROM {table} WHERE tenant_id = %s AND window_start < %s",
            [tenant.pk, start],
        )
        cursor.execute(
            f"INSERT INTO {table} AS w (tenant_id, window_start, payloads)"
            " VALUES (%s, %s, 1) ON CONFLICT (tenant_id, window_start)"
            " DO UPDATE SET payloads = w.payloads + 1 WHERE w.payloads < %s"
            " RETURNING w.payloads",
            [tenant.pk, start, limit],
        )
        if cursor.fetchone() is None:
            raise AlertsRateLimited(max(1, math.ceil(left)))


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
    now = timezone.now()
    _refuse_over_limit(tenant, now)
    # Serialises the group's payloads: one open group per key, alerts merged in turn. Locks
    # in diagnosis.locks' order: group lock, (tenant lock: an incident opened), group row,
    # task row (the alert_received event), then the intake window (_count_payload).
    locks.alert_group_lock(tenant.pk, note.source, note.key_hash)
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
            intake = Intake(source=note.source, result="ignored")
        else:
            intake = _open(principal=principal, note=note, rules=rules, now=now)
    else:
        intake = _update(group=group, note=note, rules=rules, now=now)
    _count_payload(tenant, now)
    return intake


def _merge(
    stored: Mapping[str, Any], alerts: Sequence[Alert], now: datetime
) -> tuple[dict[str, Any], list[Alert], int, int, int]:
    """(merged alerts, new or changed ones, new count, newly resolved count, dropped count).

    Each record also says when the alert was first and last received and in how many
    payloads (`first_seen`, `last_seen`, `receipts`): what the incident page's alerts panel
    shows. A record written before those keys existed counts from this payload.
    """
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
        seen = before or {}
        receipts = seen.get("receipts")
        merged[alert.fingerprint] = {
            **alert.record(),
            "first_seen": seen.get("first_seen") or iso(now),
            "last_seen": iso(now),
            "receipts": (receipts if isinstance(receipts, int) else 0) + 1,
        }
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
    merged, _changed, _new, _resolved, dropped = _merge({}, note.alerts, now)
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
    merged, changed, new, resolved, dropped = _merge(group.alerts, note.alerts, now)
    status = AlertGroupStatus(group.status)
    result = "unchanged"
    if note.status == AlertGroupStatus.RESOLVED:
        status, result = AlertGroupStatus.RESOLVED, "resolved"
        group.resolved_at = now
        # Closed: whatever the last payload did not list is over too.
        for fingerprint, record in merged.items():
            if record.get("status") == "firing":
                record.update(
                    status="resolved", ends_at=record.get("ends_at") or iso(now)
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
                "name": cut(
                    alert.labels.get("alertname")
                    or alert.annotations.get("summary", ""),
                    BRIEF_CHARS,
                ),
                "summary": cut(
                    first([alert.annotations], rules.symptom_annotations), BRIEF_CHARS
                ),
            }
            for alert in changed[:EVENT_ALERTS]
        ],
        "truncated": max(0, len(changed) - EVENT_ALERTS),
    }
