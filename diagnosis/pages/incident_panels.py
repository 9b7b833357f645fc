"""What the incident page's coordination panel and timeline render (issue 20 items 6 and 4);
the posts of the panel's forms are diagnosis.pages.incident_run's."""

from typing import Any

from diagnosis import coordination, incident_status, timeline
from diagnosis.models import Incident, IncidentStatus, Severity
from diagnosis.principals import Principal

WRITE_SCOPE = "incidents:write"

# The button that moves the incident to each status.
STATUS_ACTIONS = {
    IncidentStatus.TRIGGERED: "Reopen",
    IncidentStatus.ACKNOWLEDGED: "Acknowledge",
    IncidentStatus.MITIGATED: "Mark mitigated",
    IncidentStatus.RESOLVED: "Resolve",
}


def coordination_context(*, principal: Principal, incident: Incident) -> dict[str, Any]:
    """What #coordination and #timeline render."""
    return {
        "can_coordinate": principal.has_scope(WRITE_SCOPE),
        "status_actions": [
            (move, STATUS_ACTIONS[IncidentStatus(move)])
            for move in incident_status.status_moves(incident.status)
        ],
        "severities": Severity.values,
        "is_owner": incident.owner_id is not None
        and incident.owner_id == principal.user.pk,
        "note_max": coordination.NOTE_MAX,
        "timeline": timeline.timeline_blocks(
            timeline.incident_timeline(incident=incident)
        ),
    }
