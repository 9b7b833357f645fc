"""Running an incident (issue 20 item 6): its status, severity, owner and notes.

Each change is a compare-and-swap UPDATE of the incident row (a lost race raises
IncidentChanged, nothing written) and an event appended to the incident's latest task through
lifecycle.diagnosis_event_append, in one transaction: every page watching the incident gets
it over SSE, the timeline reads it, and notifications go out from it. Bad input raises
ValidationFailed (malformed) or CoordinationRefused (what the incident's state refuses),
naming the field, and changes nothing. The incident row is updated (never
locked FOR UPDATE) before the task row is locked, as diagnosis.locks says.
"""

from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from diagnosis import incident_status, selectors
from diagnosis.events import EventKind
from diagnosis.exceptions import (
    CoordinationRefused,
    IncidentChanged,
    ValidationFailed,
)
from diagnosis.lifecycle import diagnosis_event_append
from diagnosis.models import (
    DiagnosisTask,
    Incident,
    IncidentStatus,
    Membership,
    Severity,
    TaskEvent,
)
from diagnosis.payloads import ByWhom
from diagnosis.principals import Principal, role_scopes

NOTE_MAX = 2000  # characters of one note
# "Assign to me": the owner field's value for the caller.
OWNER_ME = "me"
# Who may own an incident: a member whose role may write incidents.
OWNER_SCOPE = "incidents:write"


def _by(principal: Principal) -> ByWhom:
    return {
        "by": principal.user.get_username(),
        "by_token": principal.token_prefix if principal.token_id is not None else "",
    }


def _latest_task(incident: Incident) -> DiagnosisTask:
    task = selectors.incident_tasks(incident=incident).first()
    if task is None:
        raise ValidationFailed({"incident": "has no diagnosis to record the change on"})
    return task


def _swap(
    incident: Incident, field: str, expected: Any, values: dict[str, Any]
) -> None:
    """The compare-and-swap: `field` still holds `expected`, or IncidentChanged."""
    changed = Incident.objects.filter(pk=incident.pk, **{field: expected}).update(
        **values
    )
    if changed != 1:
        raise IncidentChanged(incident.pk, field)


def incident_status_change(
    *, incident: Incident, principal: Principal, status: Any
) -> Incident:
    """Move the incident to `status` (diagnosis.incident_status holds the allowed moves).

    Raises:
        ValidationFailed: `status` is not a status.
        CoordinationRefused: not a move from the current status.
        IncidentChanged: someone changed the status since `incident` was read.
    """
    if not isinstance(status, str):
        raise ValidationFailed({"status": "must be a string"})
    if status not in IncidentStatus.values:
        raise ValidationFailed(
            {"status": "must be one of " + ", ".join(IncidentStatus.values)}
        )
    reason = incident_status.status_move_error(incident.status, status)
    if reason is not None:
        raise CoordinationRefused({"status": reason})
    task = _latest_task(incident)
    previous = incident.status
    now = timezone.now()
    with transaction.atomic():
        _swap(
            incident, "status", previous, {"status": status, "status_changed_at": now}
        )
        diagnosis_event_append(
            task_id=task.pk,
            kind=EventKind.INCIDENT_STATUS_CHANGED,
            data={"status": status, "previous_status": previous, **_by(principal)},
        )
    incident.status, incident.status_changed_at = status, now
    return incident


def incident_severity_change(
    *, incident: Incident, principal: Principal, severity: Any
) -> Incident:
    """Change the incident's severity.

    Raises:
        ValidationFailed: not one of sev1 … sev4.
        CoordinationRefused: the severity it already has.
        IncidentChanged: someone changed the severity since `incident` was read.
    """
    if not isinstance(severity, str) or severity not in Severity.values:
        raise ValidationFailed(
            {"severity": "must be one of " + ", ".join(Severity.values)}
        )
    if severity == incident.severity:
        raise CoordinationRefused({"severity": f"the incident is already {severity}"})
    task = _latest_task(incident)
    previous = incident.severity
    with transaction.atomic():
        _swap(incident, "severity", previous, {"severity": severity})
        diagnosis_event_append(
            task_id=task.pk,
            kind=EventKind.INCIDENT_SEVERITY_CHANGED,
            data={
                "severity": severity,
                "previous_severity": previous,
                **_by(principal),
            },
        )
    incident.severity = severity
    return incident


def _owner_user(principal: Principal, owner: Any) -> Any:
    """The user `owner` names ("me", a username of the tenant, or None to unassign)."""
    if owner is None:
        return None
    if not isinstance(owner, str) or not owner:
        raise ValidationFailed(
            {"owner": 'must be "me", a username of this tenant, or null'}
        )
    if owner == OWNER_ME:
        user = principal.user
    else:
        user = get_user_model().objects.filter(username=owner, is_active=True).first()
    membership = (
        Membership.objects.filter(user=user, tenant=principal.tenant).first()
        if user is not None
        else None
    )
    if membership is None or OWNER_SCOPE not in role_scopes(membership.role):
        raise CoordinationRefused(
            {"owner": "must be a member of this tenant who may run incidents"}
        )
    return user


def incident_owner_set(
    *, incident: Incident, principal: Principal, owner: Any
) -> Incident:
    """Give the incident an owner ("me": the caller), or none (`owner` None).

    Raises:
        ValidationFailed: `owner` is neither a non-empty string nor None.
        CoordinationRefused: `owner` names nobody who may run the tenant's incidents, or
            the owner the incident already has.
        IncidentChanged: someone changed the owner since `incident` was read.
    """
    user = _owner_user(principal, owner)
    new_id = user.pk if user is not None else None
    if new_id == incident.owner_id:
        raise CoordinationRefused({"owner": "the incident already has this owner"})
    task = _latest_task(incident)
    previous = incident.owner
    with transaction.atomic():
        _swap(incident, "owner_id", incident.owner_id, {"owner_id": new_id})
        diagnosis_event_append(
            task_id=task.pk,
            kind=EventKind.INCIDENT_OWNER_CHANGED,
            data={
                "owner": user.get_username() if user is not None else None,
                "previous_owner": previous.get_username() if previous else None,
                **_by(principal),
            },
        )
    incident.owner = user
    return incident


def incident_note_add(
    *, incident: Incident, principal: Principal, text: Any
) -> TaskEvent:
    """Add a note to the incident: an event on its latest task, nothing else.

    Raises:
        ValidationFailed: the text is not a string, is blank, or is over NOTE_MAX characters.
    """
    if not isinstance(text, str):
        raise ValidationFailed({"text": "must be a string"})
    text = text.strip()
    if not text:
        raise ValidationFailed({"text": "must not be blank"})
    if len(text) > NOTE_MAX:
        raise ValidationFailed({"text": f"at most {NOTE_MAX} characters"})
    task = _latest_task(incident)
    return diagnosis_event_append(
        task_id=task.pk,
        kind=EventKind.INCIDENT_NOTE_ADDED,
        data={"text": text, **_by(principal)},
    )
