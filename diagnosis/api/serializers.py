"""Rows to JSON-ready dicts: plain functions, no logic beyond shaping.

Datetimes become ISO 8601 strings here, so a saved idempotent answer is byte-for-byte the
answer first given.
"""

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from django.urls import reverse

from diagnosis.models import AlertGroup, Approval, DiagnosisTask, Incident, ToolCallSpan
from diagnosis.registry import Environment
from diagnosis.span_attributes import span_attributes

if TYPE_CHECKING:
    from diagnosis.intake.receive import Intake


def _dt(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def events_url(task_id: object) -> str:
    # Served by the SSE app in agentops/asgi.py, in front of Django's URL resolver.
    return f"/api/tasks/{task_id}/events"


def incident_to_dict(incident: Incident) -> dict[str, Any]:
    return {
        "id": str(incident.id),
        "title": incident.title,
        "service": incident.service,
        "severity": incident.severity,
        "symptoms": incident.symptoms,
        "description": incident.description,
        "labels": incident.labels if isinstance(incident.labels, dict) else {},
        "window_start": _dt(incident.window_start),
        "window_end": _dt(incident.window_end),
        "environment": incident.environment,
        "created_at": _dt(incident.created_at),
        "status": incident.status,
    }


def task_summary_to_dict(task: DiagnosisTask) -> dict[str, Any]:
    return {"id": str(task.id), "state": task.state, "events_url": events_url(task.id)}


def incident_created_to_dict(incident: Incident, task: DiagnosisTask) -> dict[str, Any]:
    return {**incident_to_dict(incident), "task": task_summary_to_dict(task)}


def task_to_dict(task: DiagnosisTask) -> dict[str, Any]:
    """The task snapshot: what a client re-reads after `resync_required`."""
    error = (
        {
            "layer": task.error_layer,
            "code": task.error_code,
            "message": task.error_message,
        }
        if task.error_code or task.error_layer
        else None
    )
    return {
        "id": str(task.id),
        "incident_id": str(task.incident_id),
        "state": task.state,
        "version": task.version,
        "plan": task.plan,
        "environment": task.environment,
        "generation": task.generation,
        "attempt": task.attempt,
        "max_attempts": task.max_attempts,
        "last_seq": task.last_seq,
        "report": task.report,
        "error": error,
        # Read through the prefetch of diagnosis.selectors when there is one.
        "approvals": [
            approval_to_dict(a)
            for a in sorted(task.approvals.all(), key=lambda a: (a.requested_at, a.pk))
        ],
        "created_at": _dt(task.created_at),
        "updated_at": _dt(task.updated_at),
        "started_at": _dt(task.started_at),
        "finished_at": _dt(task.finished_at),
        "deadline_at": _dt(task.deadline_at),
        "cancel_requested_at": _dt(task.cancel_requested_at),
        "events_url": events_url(task.id),
        "trace_url": reverse("api:task-trace", args=[task.id]),
    }


def incident_detail_to_dict(
    incident: Incident,
    tasks: list[DiagnosisTask],
    alert_groups: Sequence[AlertGroup] = (),
) -> dict[str, Any]:
    return {
        **incident_to_dict(incident),
        "tasks": [task_to_dict(t) for t in tasks],
        "alert_groups": [alert_group_to_dict(g) for g in alert_groups],
    }


def alert_group_to_dict(group: AlertGroup) -> dict[str, Any]:
    alerts = group.alerts if isinstance(group.alerts, dict) else {}
    # jsonb keeps no key order: oldest first, then by fingerprint.
    ordered = sorted(
        alerts.items(), key=lambda item: (item[1].get("starts_at") or "", item[0])
    )
    return {
        "id": str(group.id),
        "source": group.source,
        "key": group.key,
        "status": group.status,
        "incident_id": str(group.incident_id),
        "alerts": [{"fingerprint": fp, **record} for fp, record in ordered],
        "dropped_alerts": group.dropped_alerts,
        "sender_truncated_alerts": group.sender_truncated_alerts,
        "payloads": group.payloads,
        "first_payload_at": _dt(group.first_payload_at),
        "last_payload_at": _dt(group.last_payload_at),
        "acknowledged_at": _dt(group.acknowledged_at),
        "resolved_at": _dt(group.resolved_at),
    }


def alert_intake_to_dict(intake: "Intake") -> dict[str, Any]:
    body: dict[str, Any] = {
        "source": intake.source,
        "result": intake.result,
        "incident_id": str(intake.incident.id) if intake.incident else None,
        "task_id": str(intake.task.id) if intake.task else None,
        "group": alert_group_to_dict(intake.group) if intake.group else None,
    }
    if intake.dedup_key:
        body["dedup_key"] = intake.dedup_key
    return body


def cancel_to_dict(task: DiagnosisTask) -> dict[str, Any]:
    return {
        "incident_id": str(task.incident_id),
        "task_id": str(task.id),
        "status": task.state,
    }


def span_to_dict(span: ToolCallSpan) -> dict[str, Any]:
    return {
        "id": str(span.id),
        "trace_id": span.trace_id,
        "span_id": span.span_id,
        "parent_span_id": span.parent_span_id or None,
        "agent": span.agent,
        "server_name": span.server_name,
        "transport": span.transport,
        "protocol_version": span.protocol_version,
        "tool_name": span.tool_name,
        "tool_schema_hash": span.tool_schema_hash,
        "request_id": span.request_id,
        "idempotency_key": span.idempotency_key,
        "arguments": span.arguments_redacted,
        "arguments_hash": span.arguments_hash,
        "principal": span.principal,
        "granted_scopes": span.granted_scopes,
        "approval_id": str(span.approval_id) if span.approval_id else None,
        "state": span.state,
        "started_at": _dt(span.started_at),
        "deadline": _dt(span.deadline),
        "latency_ms": span.latency_ms,
        "retry_count": span.retry_count,
        "error": (
            {
                "layer": span.error_layer,
                "code": span.error_code,
                "message": span.error_message,
            }
            if span.error_code or span.error_layer
            else None
        ),
        "result_hash": span.result_hash,
        "result_size": span.result_size,
        "result_preview": span.result_preview,
        "result_uri": span.result_uri,
        "side_effect_id": span.side_effect_id,
        # What the trace page lists and the OTLP export sends, by their OpenTelemetry names.
        "attributes": span_attributes(span),
    }


def span_detail_to_dict(span: ToolCallSpan) -> dict[str, Any]:
    """A span with the redacted result the engine reasoned on (None when it is at result_uri)."""
    return {**span_to_dict(span), "result": span.result}


def trace_to_dict(task: DiagnosisTask, spans: list[ToolCallSpan]) -> dict[str, Any]:
    return {"task_id": str(task.id), "spans": [span_to_dict(s) for s in spans]}


def environment_to_dict(env: Environment, *, is_default: bool) -> dict[str, Any]:
    """What a user may know of an environment: never commands, URLs or secrets' names."""
    return {
        "name": env.name,
        "description": env.description,
        "servers": [server.name for server in env.servers],
        "is_default": is_default,
    }


def approval_to_dict(approval: Approval) -> dict[str, Any]:
    # Rows from before the engine may hold any JSON in `action`.
    action = approval.action if isinstance(approval.action, dict) else {}
    arguments = action.get("arguments")
    return {
        "id": str(approval.id),
        "task_id": str(approval.task_id),
        "status": approval.status,
        "server": approval.server_name,
        "tool": approval.tool_name,
        "arguments": arguments if isinstance(arguments, dict) else {},
        "target": str(action.get("target") or ""),
        "why": str(action.get("why") or ""),
        "requested_at": _dt(approval.requested_at),
        "expires_at": _dt(approval.expires_at),
        "decided_at": _dt(approval.decided_at),
        "decided_by": approval.decided_by.get_username()
        if approval.decided_by
        else None,
        "reason": approval.reason,
    }
