"""JSON API of incident coordination and the timeline (issue 20 items 6 and 4):

POST /api/incidents/{id}/status    {"status"}      200  the incident's coordination fields
POST /api/incidents/{id}/severity  {"severity"}    200
POST /api/incidents/{id}/owner     {"owner"}       200  "me", a username, or null
POST /api/incidents/{id}/notes     {"text"}        201  the note's event
GET  /api/incidents/{id}/timeline                  200  diagnosis.timeline's entries

Writes need incidents:write (responder, approver, admin); the timeline incidents:read.
"""

from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse

from diagnosis import coordination, selectors, timeline
from diagnosis.api import idempotency, validation
from diagnosis.api.auth import require_scope
from diagnosis.api.errors import json_response, not_found, validation_error
from diagnosis.api.views import _idempotent, endpoint
from diagnosis.models import Incident, TaskEvent
from diagnosis.principals import Principal

WRITE_SCOPE = "incidents:write"


def coordination_to_dict(incident: Incident) -> dict[str, Any]:
    owner = incident.owner
    return {
        "incident_id": str(incident.pk),
        "status": incident.status,
        "status_changed_at": incident.status_changed_at.isoformat()
        if incident.status_changed_at
        else None,
        "severity": incident.severity,
        "owner": owner.get_username() if owner is not None else None,
    }


def note_to_dict(event: TaskEvent) -> dict[str, Any]:
    return {
        "event_id": event.seq,
        "task_id": str(event.task_id),
        "text": event.data["text"],
        "by": event.data["by"],
        "occurred_at": event.occurred_at.isoformat(),
    }


def _one_field(data: dict[str, Any], name: str) -> Any:
    unknown = sorted(set(data) - {name})
    errors = dict.fromkeys(unknown, "unknown field")
    if name not in data:
        errors[name] = "required"
    if errors:
        raise validation_error(errors)
    return data[name]


def _change(
    name: str,
    change: Callable[..., Any],
    ok: int,
    answer: Callable[[Any], dict[str, Any]],
) -> Callable[..., HttpResponse]:
    """The handler of one coordination POST: `{name: value}` → `change(…, name=value)`."""

    def handler(
        request: HttpRequest, principal: Principal, incident_id: str
    ) -> HttpResponse:
        require_scope(principal, WRITE_SCOPE)
        data = validation.read_json_object(request)
        value = _one_field(data, name)

        def effect() -> idempotency.Result:
            incident = selectors.incident_get(
                tenant=principal.tenant, incident_id=incident_id
            )
            if incident is None:
                raise not_found("incident")
            return ok, answer(
                change(incident=incident, principal=principal, **{name: value})
            )

        return _idempotent(request, principal, data, effect)

    return handler


def incident_timeline(
    request: HttpRequest, principal: Principal, incident_id: str
) -> HttpResponse:
    require_scope(principal, "incidents:read")
    incident = selectors.incident_get(tenant=principal.tenant, incident_id=incident_id)
    if incident is None:
        raise not_found("incident")
    entries = timeline.incident_timeline(incident=incident)
    return json_response(
        200,
        {
            "incident_id": str(incident.pk),
            "entries": [entry.to_dict() for entry in entries],
        },
    )


status_view = endpoint(
    post=_change(
        "status", coordination.incident_status_change, 200, coordination_to_dict
    )
)
severity_view = endpoint(
    post=_change(
        "severity", coordination.incident_severity_change, 200, coordination_to_dict
    )
)
owner_view = endpoint(
    post=_change("owner", coordination.incident_owner_set, 200, coordination_to_dict)
)
notes_view = endpoint(
    post=_change("text", coordination.incident_note_add, 201, note_to_dict)
)
timeline_view = endpoint(get=incident_timeline)
