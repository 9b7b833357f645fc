"""Event kinds persisted in TaskEvent (DESIGN §5), and the stream-only control kinds."""

from django.db import models


class EventKind(models.TextChoices):
    TASK_CREATED = "task_created"
    TASK_STARTED = "task_started"
    AGENT_STARTED = "agent_started"
    # A planned call of a round, before it waits for a slot (diagnosis.engine.agents).
    TOOL_QUEUED = "tool_queued"
    TOOL_STARTED = "tool_started"
    TOOL_PROGRESS = "tool_progress"
    TOOL_COMPLETED = "tool_completed"
    TOOL_FAILED = "tool_failed"
    APPROVAL_REQUESTED = "approval_requested"
    APPROVAL_DECIDED = "approval_decided"
    AGENT_COMPLETED = "agent_completed"
    TASK_CANCELLING = "task_cancelling"
    TASK_CANCELLED = "task_cancelled"
    TASK_REQUEUED = "task_requeued"
    TASK_COMPLETED = "task_completed"
    TASK_FAILED = "task_failed"
    TASK_TIMED_OUT = "task_timed_out"
    # An alert group of the incident repeated, was acknowledged or resolved (diagnosis.intake).
    ALERT_RECEIVED = "alert_received"
    # Steering context a person added (diagnosis.steering): a note, an excluded hypothesis, a
    # corrected service; and what the planner read of it before a round (the engine).
    STEERING_ADDED = "steering_added"
    STEERING_READ = "steering_read"
    # A server of the environment connecting before the first round, and how that ended.
    SERVER_STATE = "server_state"
    # The people running the incident (diagnosis.coordination), on its latest task.
    INCIDENT_STATUS_CHANGED = "incident_status_changed"
    INCIDENT_SEVERITY_CHANGED = "incident_severity_changed"
    INCIDENT_OWNER_CHANGED = "incident_owner_changed"
    INCIDENT_NOTE_ADDED = "incident_note_added"
    # 'Was this right?' answered or changed (diagnosis.feedback).
    FEEDBACK_GIVEN = "feedback_given"


# Events that end a task: the SSE stream closes after sending one.
TERMINAL_EVENTS: frozenset[str] = frozenset(
    {
        EventKind.TASK_COMPLETED,
        EventKind.TASK_FAILED,
        EventKind.TASK_CANCELLED,
        EventKind.TASK_TIMED_OUT,
    }
)
# Kept when old progress is compacted (retention).
MILESTONE_EVENTS: frozenset[str] = frozenset(EventKind) - {EventKind.TOOL_PROGRESS}

# Never stored; sent on the stream only.
RESYNC_REQUIRED = "resync_required"
SERVER_DRAINING = "server_draining"
