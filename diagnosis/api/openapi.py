"""The OpenAPI 3.1 document of the API, written out by hand and kept true by tests.

tests/diagnosis/test_api_openapi.py checks that every route Django resolves under /api/ (plus the
probes) is documented and the reverse, and validates the answers the tests observe against the
schemas below (which list every field and forbid others).
"""

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone

from diagnosis import bounds, environments, plans
from diagnosis.api.idempotency import KEY_MAX
from diagnosis.api.validation import (
    ALERT_MAX_BODY_BYTES,
    CURSOR_MAX,
    CURSOR_PATTERN,
    MAX_BODY_BYTES,
    MAX_PAGE_SIZE,
)
from diagnosis.call_labels import QUERY_MAX_CHARS
from diagnosis.coordination import NOTE_MAX
from diagnosis.events import RESYNC_REQUIRED, SERVER_DRAINING, EventKind
from diagnosis.fields import (
    DESCRIPTION_MAX,
    ENVIRONMENT_MAX,
    REASON_MAX,
    SERVICE_MAX,
    SYMPTOMS_MAX,
    TITLE_MAX,
)
from diagnosis.incident_labels import LABEL_NAME_MAX, LABEL_VALUE_MAX, LABELS_MAX
from diagnosis.incident_status import ALLOWED_STATUS_MOVES
from diagnosis.intake import model as alert_model
from diagnosis.intake import pagerduty, receive
from diagnosis.models import (
    AlertGroupStatus,
    AlertSource,
    ApprovalStatus,
    IncidentStatus,
    Severity,
)
from diagnosis.principals import Principal
from diagnosis.states import TaskState
from reasoning.report import ACTION_STATUSES

# Paths served outside Django's URL resolver (agentops/asgi.py routes them first).
ASGI_ROUTED_PATHS = frozenset({"/api/tasks/{task_id}/events"})

Schema = dict[str, Any]


def _ref(name: str) -> Schema:
    return {"$ref": f"#/components/schemas/{name}"}


def _object(properties: dict[str, Schema], *, optional: tuple[str, ...] = ()) -> Schema:
    return {
        "type": "object",
        "properties": properties,
        "required": [name for name in properties if name not in optional],
        "additionalProperties": False,
    }


STR: Schema = {"type": "string"}
UUID: Schema = {"type": "string", "format": "uuid"}
DATETIME: Schema = {"type": "string", "format": "date-time"}
NULLABLE_DATETIME: Schema = {"type": ["string", "null"], "format": "date-time"}
INT: Schema = {"type": "integer", "minimum": 0}

# What the server enforces on strings a caller sends (diagnosis.bounds, diagnosis.fields.text): no
# NUL anywhere; a required text field has a character that is not whitespace (it is stripped).
NO_NUL = "^[^\\x00]*$"
NOT_BLANK = "^[^\\x00]*[^\\s\\x00][^\\x00]*$"
TEXT: Schema = {"type": "string", "pattern": NO_NUL}


def _text(max_length: int, *, blank: bool = True, **extra: Any) -> Schema:
    if blank:
        return {"type": "string", "maxLength": max_length, "pattern": NO_NUL, **extra}
    return {
        "type": "string",
        "minLength": 1,
        "maxLength": max_length,
        "pattern": NOT_BLANK,
        **extra,
    }


# The fields of a webhook body no schema here names are ignored, but still checked (no NUL in
# a key or a string): stated for scalars, the extra values a sender would send.
SCALAR_NO_NUL: Schema = {
    "type": ["null", "boolean", "number", "string"],
    "pattern": NO_NUL,
}


def _open(schema: Schema) -> Schema:
    """An object whose unknown fields are accepted and ignored (a webhook's)."""
    return {
        **schema,
        "propertyNames": {"pattern": NO_NUL},
        "additionalProperties": SCALAR_NO_NUL,
    }


def _years(low: int, high: int) -> str:
    """A regex alternation of the four-digit years low..high."""
    return "|".join(str(year) for year in range(low, high + 1))


def datetime_input(
    now: datetime | None = None, *, year_one_is_unset: bool = False
) -> Schema:
    """A caller's datetime as the server accepts it (diagnosis.bounds.datetime_error): RFC 3339
    with an offset within ±15:59, in a year wholly inside 10 years before to 1 year after now
    (the year ends may be accepted too; the pattern states what always is)."""
    now = now or timezone.now()
    slack = bounds.MAX_UTC_OFFSET + timedelta(days=1)
    low = (now - bounds.DATETIME_PAST + slack).year + 1
    high = (now + bounds.DATETIME_FUTURE - slack).year - 1
    years = ("0001|" if year_one_is_unset else "") + _years(low, high)
    pattern = (
        f"^({years})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"
        "T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]{1,6})?"
        "(Z|[+-](0[0-9]|1[0-5]):[0-5][0-9])$"
    )
    return {**DATETIME, "pattern": pattern}


def _plan_schemas(names: list[str]) -> tuple[Schema, Schema, list[Schema]]:
    """`plan`, `plan_args` and the per-plan rule tying them (diagnosis.plans' checks)."""
    plan = {"type": "string", "enum": names, "default": "default"}
    no_args: Schema = {"type": "object", "maxProperties": 0}
    plan_args: Schema = {
        "type": "object",
        "default": {},
        "description": "Arguments of the plan, checked before anything is created. `default` "
        "takes none."
        + (
            " `timed` (test-only): `steps`, 1 to "
            f"{plans.TIMED_MAX_STEPS} durations of 0 to {plans.TIMED_MAX_STEP_SECONDS:g} s, "
            f"{plans.TIMED_MAX_TOTAL_SECONDS:g} s in all; `fail_at`, a step index; `spans`, "
            "true to write each step as a span. The "
            "schema states the part of that a schema can (steps that cannot pass the total, "
            "fail_at 0)."
            if "timed" in names
            else ""
        ),
    }
    if "timed" not in names:
        return plan, {**plan_args, **no_args}, []
    timed: Schema = {
        "type": "object",
        "properties": {
            "steps": {
                "type": "array",
                "minItems": 1,
                "maxItems": int(
                    plans.TIMED_MAX_TOTAL_SECONDS // plans.TIMED_MAX_STEP_SECONDS
                ),
                "items": {
                    "type": "number",
                    "minimum": 0,
                    "maximum": plans.TIMED_MAX_STEP_SECONDS,
                },
            },
            "fail_at": {"type": "integer", "minimum": 0, "maximum": 0},
            "spans": {"type": "boolean"},
        },
        "additionalProperties": False,
    }
    rule = {
        "if": {"properties": {"plan": {"const": "timed"}}, "required": ["plan"]},
        "then": {"properties": {"plan_args": timed}},
        "else": {"properties": {"plan_args": no_args}},
    }
    return plan, plan_args, [rule]


def _schemas(
    environment_names: list[str] | None, demo_names: list[str] | None
) -> dict[str, Schema]:
    states = [s.value for s in TaskState]
    error_props: dict[str, Schema] = {
        "error": STR,
        "code": STR,
        "fields": {"type": "object", "additionalProperties": STR},
        "state": {"type": "string", "enum": states},
        "status": STR,
        "task_id": UUID,
        "allowed": {"type": "array", "items": STR},
        "required_scope": STR,
        "limit": {"type": "integer"},
        "retry_after": {"type": "integer", "minimum": 1},
    }
    incident = {
        "id": UUID,
        "title": STR,
        "service": STR,
        "severity": {"type": "string", "enum": Severity.values},
        "symptoms": STR,
        "description": STR,
        "labels": {"type": "object", "additionalProperties": STR},
        "window_start": NULLABLE_DATETIME,
        "window_end": NULLABLE_DATETIME,
        "environment": {
            **STR,
            "description": "The environment its diagnoses run against (GET /api/environments).",
        },
        "created_at": DATETIME,
        "status": {
            "type": "string",
            "enum": IncidentStatus.values,
            "description": "Where the people running it are (POST …/status).",
        },
    }
    environment_name: Schema = {
        **_text(ENVIRONMENT_MAX, blank=False),
        "description": "The name of an environment the tenant may use (GET "
        "/api/environments); an unknown name or one of another tenant is a 400 naming "
        "`environment`. Fetched with credentials, this document lists the caller's names.",
    }
    any_environment: Schema = {
        **environment_name,
        "minLength": 0,
        "pattern": NO_NUL,
        "description": environment_name["description"]
        + " Absent or empty: the tenant's default (is_default).",
    }
    demo_environment = environment_name
    if environment_names is not None:
        any_environment = {**any_environment, "enum": ["", *environment_names]}
        for key in ("minLength", "maxLength", "pattern"):
            any_environment.pop(key)
    if demo_names is not None:
        demo_environment = {
            "type": "string",
            "enum": demo_names,
            "description": environment_name["description"],
        }
    nullable_error = {
        "oneOf": [
            {"type": "null"},
            _object({"layer": STR, "code": STR, "message": STR}),
        ]
    }
    names = plans.plan_names(include_test_only=settings.DIAGNOSIS_TEST_PLANS)
    plan, plan_args, plan_rules = _plan_schemas(names)
    when = datetime_input()
    window = (
        "ISO 8601 with a UTC offset within ±15:59, from 10 years before to 1 year after the "
        "server's clock; stored and answered in UTC."
    )
    span_properties: dict[str, Schema] = {
        "id": UUID,
        "trace_id": STR,
        "span_id": {
            "type": "string",
            "description": "The 16-hex OpenTelemetry span id: what the events and the "
            "report's evidence and actions cite.",
        },
        "parent_span_id": {"type": ["string", "null"]},
        "agent": STR,
        "server_name": STR,
        "transport": STR,
        "protocol_version": STR,
        "tool_name": STR,
        "tool_schema_hash": STR,
        "request_id": STR,
        "idempotency_key": STR,
        "arguments": {"type": "object", "description": "Redacted arguments."},
        "arguments_hash": STR,
        "principal": STR,
        "granted_scopes": {"type": "array", "items": STR},
        "approval_id": {"type": ["string", "null"], "format": "uuid"},
        "state": STR,
        "started_at": DATETIME,
        "deadline": NULLABLE_DATETIME,
        "latency_ms": {"type": ["number", "null"]},
        "retry_count": INT,
        "error": nullable_error,
        "result_hash": STR,
        "result_size": {"type": ["integer", "null"]},
        "result_preview": STR,
        "result_uri": STR,
        "side_effect_id": STR,
        "attributes": {
            "type": "object",
            "description": "The call's OpenTelemetry attributes by their semantic-convention "
            "names (gen_ai.tool.name, mcp.method.name, jsonrpc.request.id, "
            "network.transport …): what the trace page lists and the OTLP export sends. "
            "A value that is neither a scalar nor a list of one kind of scalar is its JSON text.",
            "additionalProperties": {
                "type": ["string", "number", "boolean", "array"],
                "items": {"type": ["string", "number", "boolean"]},
            },
        },
    }
    return {
        "Error": {
            **_object(
                error_props,
                optional=tuple(k for k in error_props if k not in {"error", "code"}),
            ),
            "description": "Every error body. `fields` ({name: reason}) on 400s; `state` "
            "(of the task) or `status` (of the approval) on 409s; `retry_after` (seconds) "
            "on 429s and 503s.",
        },
        "Incident": _object(incident),
        **_coordination_schemas(),
        "IncidentCreate": {
            **_object(
                {
                    "title": _text(TITLE_MAX, blank=False),
                    "service": _text(SERVICE_MAX, blank=False),
                    "severity": {"type": "string", "enum": Severity.values},
                    "symptoms": _text(SYMPTOMS_MAX, default=""),
                    "description": _text(
                        DESCRIPTION_MAX,
                        default="",
                        description="What the alert said beyond the title (its description).",
                    ),
                    "labels": {
                        "type": "object",
                        "maxProperties": LABELS_MAX,
                        "propertyNames": {
                            "minLength": 1,
                            "maxLength": LABEL_NAME_MAX,
                            "pattern": NO_NUL,
                        },
                        "additionalProperties": _text(LABEL_VALUE_MAX),
                        "default": {},
                        "description": "The alert's labels, {name: value} strings "
                        "(alertname, namespace, service, app, job …); the diagnosis "
                        "resolves the service with them when the data does not know "
                        "its name.",
                    },
                    "window_start": {**when, "description": window},
                    "window_end": {
                        **when,
                        "description": f"{window} Not before window_start.",
                    },
                    "plan": plan,
                    "plan_args": plan_args,
                    "environment": any_environment,
                },
                optional=(
                    "symptoms",
                    "description",
                    "labels",
                    "window_start",
                    "window_end",
                    "plan",
                    "plan_args",
                    "environment",
                ),
            ),
            **({"allOf": plan_rules} if plan_rules else {}),
        },
        "DemoIncidentCreate": {
            **_object({"environment": demo_environment}),
            "description": "A demo environment (name demo-…; its description is the "
            "scenario's incident title): the incident is its scenario's, with the window "
            "relative to now.",
        },
        "Environment": _object(
            {
                "name": STR,
                "description": STR,
                "servers": {
                    "type": "array",
                    "items": STR,
                    "description": "The names of its MCP servers this tenant may use.",
                },
                "is_default": {
                    "type": "boolean",
                    "description": "Used when an incident names no environment.",
                },
            }
        ),
        "EnvironmentList": _object(
            {"results": {"type": "array", "items": _ref("Environment")}}
        ),
        "TaskSummary": _object(
            {"id": UUID, "state": {"type": "string", "enum": states}, "events_url": STR}
        ),
        "IncidentCreated": _object({**incident, "task": _ref("TaskSummary")}),
        "IncidentList": _object(
            {
                "results": {"type": "array", "items": _ref("Incident")},
                "next": {
                    "type": ["string", "null"],
                    "description": "Opaque cursor of the next page; null on the last page.",
                },
            }
        ),
        "IncidentDetail": _object(
            {
                **incident,
                "tasks": {"type": "array", "items": _ref("Task")},
                "alert_groups": {
                    "type": "array",
                    "items": _ref("AlertGroup"),
                    "description": "The alert group that opened the incident (POST "
                    "/api/alerts/*); empty for an incident opened by hand. A resolved "
                    "group has status resolved and resolved_at.",
                },
            }
        ),
        **_alert_schemas(),
        "DiagnosisCreate": {
            **_object(
                {"plan": plan, "plan_args": plan_args}, optional=("plan", "plan_args")
            ),
            **({"allOf": plan_rules} if plan_rules else {}),
        },
        "Task": _object(
            {
                "id": UUID,
                "incident_id": UUID,
                "state": {"type": "string", "enum": states},
                "version": INT,
                "plan": STR,
                "environment": STR,
                "generation": {
                    "type": "integer",
                    "minimum": 1,
                    "description": "1 for the incident's first diagnosis, +1 per re-run.",
                },
                "attempt": INT,
                "max_attempts": INT,
                "last_seq": {
                    **INT,
                    "description": "seq of the newest event (the SSE id).",
                },
                "report": {
                    "type": ["object", "null"],
                    "description": "The report as it grows (its shape: docs/engine.md).",
                    "properties": {
                        "open_questions": {"type": "array", "items": STR},
                        "actions": {"type": "array", "items": _ref("ReportAction")},
                    },
                },
                "error": nullable_error,
                "approvals": {
                    "type": "array",
                    "items": _ref("Approval"),
                    "description": "The task's approvals, oldest first. A pending one "
                    "parks the task in waiting_approval until it is decided or expires.",
                },
                "created_at": DATETIME,
                "updated_at": DATETIME,
                "started_at": NULLABLE_DATETIME,
                "finished_at": NULLABLE_DATETIME,
                "deadline_at": NULLABLE_DATETIME,
                "cancel_requested_at": NULLABLE_DATETIME,
                "events_url": STR,
                "trace_url": STR,
            }
        ),
        "CancelResult": _object(
            {
                "incident_id": UUID,
                "task_id": UUID,
                "status": {
                    "type": "string",
                    "enum": [TaskState.CANCELLING.value, TaskState.CANCELLED.value],
                    "description": "cancelled when the task was still queued; cancelling "
                    "while its worker stops it.",
                },
            }
        ),
        "Span": _object(span_properties),
        "ReportAction": {
            "type": "object",
            "description": "A write the diagnosis proposed or ran. A write whose answer was "
            "lost is asked about (get_action_status, by its idempotency key) in the same "
            "attempt: done when the server has it, failed when it says it did not happen, "
            "unknown (with an open question) when it could not be asked.",
            "properties": {
                "server": STR,
                "tool": STR,
                "target": STR,
                "status": {"type": "string", "enum": list(ACTION_STATUSES)},
                "reason": {"type": ["string", "null"]},
                "span_id": {
                    "type": ["string", "null"],
                    "description": "The write's span: its 16-hex OpenTelemetry span id "
                    "(reports stored before cited the span's row id).",
                },
                "status_span_id": {
                    "type": ["string", "null"],
                    "description": "The get_action_status span that settled a lost answer, "
                    "by its OpenTelemetry span id.",
                },
                "approval_id": {"type": ["string", "null"]},
                "effect": {"type": ["string", "null"]},
            },
            "required": ["server", "tool", "target", "status"],
        },
        "SpanDetail": _object(
            {
                **span_properties,
                "result": {
                    "description": "The redacted result the engine reasoned on; null when "
                    "it went to artifact storage (result_uri) or the call gave none."
                },
            }
        ),
        "Trace": _object(
            {"task_id": UUID, "spans": {"type": "array", "items": _ref("Span")}}
        ),
        "ApprovalDecision": _object(
            {
                "decision": {"type": "string", "enum": ["approve", "deny"]},
                "reason": _text(REASON_MAX),
            },
            optional=("reason",),
        ),
        "Approval": _object(
            {
                "id": UUID,
                "task_id": UUID,
                "status": {"type": "string", "enum": ApprovalStatus.values},
                "server": {**STR, "description": "The MCP server of the tool."},
                "tool": {**STR, "description": "The tool the approval is bound to."},
                "arguments": {
                    "type": "object",
                    "description": "Redacted arguments. The approval is bound to the hash "
                    "of the canonical arguments: other arguments void it.",
                },
                "target": {**STR, "description": "What the action acts on."},
                "why": {**STR, "description": "Why the diagnosis proposes it."},
                "requested_at": DATETIME,
                "expires_at": {
                    **NULLABLE_DATETIME,
                    "description": "A pending approval not decided by then expires "
                    "(DIAGNOSIS_APPROVAL_TTL_SECONDS) and the diagnosis goes on without "
                    "the action.",
                },
                "decided_at": NULLABLE_DATETIME,
                "decided_by": {"type": ["string", "null"]},
                "reason": STR,
            }
        ),
        "StreamEvent": {
            **_object(
                {
                    "event": {
                        "type": "string",
                        "enum": [*EventKind.values, RESYNC_REQUIRED, SERVER_DRAINING],
                    },
                    "data": {
                        "type": "string",
                        "contentMediaType": "application/json",
                        "description": "The event's payload, one line of JSON.",
                    },
                    "id": {
                        "type": "string",
                        "pattern": "^[0-9]+$",
                        "description": "seq of the task's event (resync_required: the "
                        "watermark to resume after); server_draining has none.",
                    },
                    "retry": {"type": "integer", "minimum": 0},
                },
                optional=("id", "retry"),
            ),
            "description": "One event of the stream (OpenAPI 3.1: `schema` describes "
            "each event). Comments (heartbeats) carry no event.",
        },
        "StreamError": {
            **_object({"error": STR, "detail": STR}),
            "description": "A refusal of the event stream: `error` is a code "
            "(not_authenticated, permission_denied, not_found, too_many_streams), `detail` "
            "says it in words.",
        },
        "Health": _object({"status": {"const": "ok"}}),
        "Ready": _object(
            {
                "status": {"type": "string", "enum": ["ok", "unavailable"]},
                "checks": _object({"database": STR, "redis": STR}),
            }
        ),
    }


def _alert_schemas() -> dict[str, Schema]:
    # Year 1 (Go's zero time) is "not set"; other times are bounded as the incident window.
    alert_time = datetime_input(year_one_is_unset=True)
    labels: Schema = {
        "type": "object",
        "propertyNames": {"pattern": NO_NUL},
        "additionalProperties": TEXT,
    }
    alert = _open(
        {
            "type": "object",
            "description": "One alert. Fields this format does not define are ignored.",
            "properties": {
                "status": {"type": "string", "enum": ["firing", "resolved"]},
                "labels": labels,
                "annotations": labels,
                "startsAt": {
                    **alert_time,
                    "description": "RFC 3339 with an offset; 0001-01-01T00:00:00Z is unset.",
                },
                "endsAt": {**alert_time, "description": "As startsAt."},
                "generatorURL": TEXT,
                "fingerprint": {
                    **_text(alert_model.FINGERPRINT_MAX),
                    "description": "Absent: a hash of the labels.",
                },
            },
            "required": ["status", "labels"],
        }
    )
    stored_alert = _object(
        {
            "fingerprint": STR,
            "status": {"type": "string", "enum": ["firing", "resolved"]},
            "labels": labels,
            "annotations": labels,
            "starts_at": NULLABLE_DATETIME,
            "ends_at": NULLABLE_DATETIME,
            "generator_url": STR,
            "links": {
                "type": "array",
                "items": _object({"href": STR, "text": STR}),
                "maxItems": alert_model.MAX_LINKS,
                "description": "PagerDuty's client_url and links, as sent.",
            },
            "first_seen": {
                **NULLABLE_DATETIME,
                "description": "When a payload first listed this alert.",
            },
            "last_seen": {
                **NULLABLE_DATETIME,
                "description": "When a payload last listed it.",
            },
            "receipts": {
                **INT,
                "description": "How many payloads listed it.",
            },
        },
        # Absent from alerts stored before they were recorded.
        optional=("links", "first_seen", "last_seen", "receipts"),
    )
    group = _object(
        {
            "id": UUID,
            "source": {"type": "string", "enum": AlertSource.values},
            "key": {
                **STR,
                "description": "The groupKey (at most 255 characters) or the dedup_key.",
            },
            "status": {"type": "string", "enum": AlertGroupStatus.values},
            "incident_id": UUID,
            "alerts": {
                "type": "array",
                "items": stored_alert,
                "maxItems": receive.MAX_GROUP_ALERTS,
                "description": "Each alert as last received, oldest first. Labels and "
                f"annotations are cut to {alert_model.MAX_PAIRS} each and values to "
                f"{alert_model.MAX_VALUE_CHARS} characters.",
            },
            "dropped_alerts": {
                **INT,
                "description": "New alerts not kept: the group held "
                f"{receive.MAX_GROUP_ALERTS}.",
            },
            "sender_truncated_alerts": {
                **INT,
                "description": "truncatedAlerts of the last payload (Alertmanager's "
                "max_alerts).",
            },
            "payloads": {"type": "integer", "minimum": 1},
            "first_payload_at": DATETIME,
            "last_payload_at": DATETIME,
            "acknowledged_at": NULLABLE_DATETIME,
            "resolved_at": NULLABLE_DATETIME,
        }
    )
    return {
        "AlertmanagerWebhook": _open(
            {
                "type": "object",
                "description": "Alertmanager's webhook body, version 4 (webhook_config with "
                "send_resolved: true). Fields this format does not define are ignored.",
                "properties": {
                    "version": {"const": "4"},
                    "groupKey": {
                        "type": "string",
                        "minLength": 1,
                        "pattern": NOT_BLANK,
                    },
                    "truncatedAlerts": {"type": "integer", "minimum": 0},
                    "status": {"type": "string", "enum": ["firing", "resolved"]},
                    "receiver": {
                        **TEXT,
                        "description": "Picks the environment ([alerts] receivers).",
                    },
                    "groupLabels": labels,
                    "commonLabels": labels,
                    "commonAnnotations": labels,
                    "externalURL": TEXT,
                    "alerts": {"type": "array", "items": alert, "minItems": 1},
                },
                "required": ["version", "groupKey", "status", "alerts"],
            }
        ),
        "PagerDutyEvent": _open(
            {
                "type": "object",
                "description": "A PagerDuty Events API v2 alert event. client_url (named by "
                "client) and links are kept with the alert (the incident page shows them; a "
                "malformed link is skipped); images are accepted and ignored, as is payload "
                "on acknowledge and resolve.",
                "properties": {
                    "routing_key": {
                        "type": "string",
                        "minLength": 1,
                        "maxLength": pagerduty.PD_KEY_MAX,
                        "pattern": NOT_BLANK,
                        "description": "With dedup_key, names the group; hashed, never stored.",
                    },
                    "event_action": {
                        "type": "string",
                        "enum": list(pagerduty.PD_ACTIONS),
                    },
                    "dedup_key": {
                        "type": "string",
                        "minLength": 1,
                        "maxLength": pagerduty.PD_KEY_MAX,
                        "pattern": NOT_BLANK,
                        "description": "Required for acknowledge and resolve; a trigger "
                        "without one gets a new key (in the answer).",
                    },
                    "payload": _open(
                        {
                            "type": "object",
                            "properties": {
                                "summary": {
                                    "type": "string",
                                    "minLength": 1,
                                    "maxLength": pagerduty.PD_SUMMARY_MAX,
                                    "pattern": NOT_BLANK,
                                },
                                "source": {
                                    "type": "string",
                                    "minLength": 1,
                                    "maxLength": pagerduty.PD_FIELD_MAX,
                                    "pattern": NOT_BLANK,
                                },
                                "severity": {
                                    "type": "string",
                                    "enum": list(pagerduty.PD_SEVERITIES),
                                },
                                "timestamp": alert_time,
                                "component": _text(pagerduty.PD_FIELD_MAX),
                                "group": {
                                    **_text(pagerduty.PD_FIELD_MAX),
                                    "description": "Picks the environment ([alerts] "
                                    "pagerduty_groups).",
                                },
                                "class": _text(pagerduty.PD_FIELD_MAX),
                                "custom_details": _open(
                                    {"type": ["object", "string"], "pattern": NO_NUL}
                                ),
                            },
                            "required": ["summary", "source", "severity"],
                            "description": "Required for a trigger.",
                        }
                    ),
                },
                "required": ["routing_key", "event_action"],
                # A trigger carries its payload; acknowledge and resolve name the group.
                "allOf": [
                    {
                        "if": {
                            "properties": {"event_action": {"const": "trigger"}},
                            "required": ["event_action"],
                        },
                        "then": {"required": ["payload"]},
                        "else": {"required": ["dedup_key"]},
                    }
                ],
            }
        ),
        "AlertGroup": group,
        "AlertIntake": _object(
            {
                "source": {"type": "string", "enum": AlertSource.values},
                "result": {
                    "type": "string",
                    "enum": [
                        "created",
                        "updated",
                        "unchanged",
                        "acknowledged",
                        "resolved",
                        "ignored",
                    ],
                    "description": "created: a new group opened an incident (201); "
                    "updated: new or changed alerts were added to its open group; "
                    "unchanged: a repeat with nothing new; acknowledged, resolved: the "
                    "open group's status changed (resolved closes it: firing again opens "
                    "a new incident); ignored: acknowledge or resolve for no open group.",
                },
                "incident_id": {"type": ["string", "null"], "format": "uuid"},
                "task_id": {
                    "type": ["string", "null"],
                    "format": "uuid",
                    "description": "The task it created, else the incident's active one.",
                },
                "group": {"oneOf": [{"type": "null"}, _ref("AlertGroup")]},
                "dedup_key": {
                    **STR,
                    "description": "PagerDuty: the group's dedup_key.",
                },
            },
            optional=("dedup_key",),
        ),
    }


_ERROR_TEXT = {
    400: "Invalid input; `fields` names each bad field and why (`body` for the body as a "
    "whole). Strings must be valid Unicode without NUL, JSON at most "
    f"{bounds.MAX_JSON_DEPTH} levels deep, numbers finite doubles; the body must be "
    "application/json. Nothing was changed.",
    401: "No valid session or bearer token.",
    403: "Missing scope (a token holds only the scopes its role allows), or a session "
    "write without a valid CSRF token.",
    404: "No such object in the caller's tenant (another tenant's id, or not a UUID).",
    409: "Conflict with the current state, or the Idempotency-Key is still being processed.",
    413: f"Body over {MAX_BODY_BYTES} bytes. Nothing was changed.",
    422: "The Idempotency-Key was already used with a different request.",
    429: "The tenant opened INCIDENT_RATE_LIMIT incidents within the last "
    "INCIDENT_RATE_WINDOW_SECONDS; retry after `retry_after` seconds (also the Retry-After "
    "header). Nothing was changed; an Idempotency-Key replay is not counted.",
    503: "The database is unreachable (code `database_unavailable`): an outage, not a bug; "
    "retry after `retry_after` seconds (also the Retry-After header). A write may or may "
    "not have been applied: retry it with the same Idempotency-Key.",
}
_RETRY_AFTER_OUTAGE = {
    "Retry-After": {
        "description": "Seconds to wait before retrying (DATABASE_UNAVAILABLE_RETRY_AFTER).",
        "schema": {"type": "integer", "minimum": 1},
    }
}
_RETRY_AFTER = {
    "Retry-After": {
        "description": "Seconds until a slot frees.",
        "schema": {"type": "integer", "minimum": 1},
    }
}


# The stream is answered by its own ASGI app (diagnosis.streaming.consumer), before Django.
_STREAM_CURSOR: Schema = {
    "type": "string",
    "description": "seq of the last event received (ASCII digits, at most 18); any other "
    "value is taken as malformed: the stream opens with resync_required.",
}
_STREAM_ERRORS = {
    401: "No valid session or bearer token (header WWW-Authenticate).",
    403: "The token lacks the tasks:read scope.",
    404: "No such task in the caller's tenant.",
    429: "Too many open streams for this user (header Retry-After).",
}


def _json(description: str, schema: Schema) -> Schema:
    return {
        "description": description,
        "content": {"application/json": {"schema": schema}},
    }


def _errors(*codes: int) -> dict[str, Schema]:
    """The error answers `codes`, plus the 503 every operation may answer in an outage."""
    answers = {str(c): _json(_ERROR_TEXT[c], _ref("Error")) for c in (*codes, 503)}
    if "429" in answers:
        answers["429"]["headers"] = _RETRY_AFTER
    answers["503"]["headers"] = _RETRY_AFTER_OUTAGE
    return answers


def _path_param(name: str) -> Schema:
    return {"name": name, "in": "path", "required": True, "schema": UUID}


_IDEMPOTENCY_KEY = {
    "name": "Idempotency-Key",
    "in": "header",
    "required": False,
    "description": "Same key and body within 24 h: the saved answer (header "
    "Idempotent-Replayed: true), no second effect. An error answer does not keep the key.",
    "schema": {
        "type": "string",
        "minLength": 1,
        "maxLength": KEY_MAX,
        "pattern": "^[\\x20-\\x7e]+$",
        "description": "Printable ASCII.",
    },
}


def _get(
    summary: str,
    op_id: str,
    ok: Schema,
    *errors: int,
    params: list[Schema] | None = None,
) -> Schema:
    return {
        "summary": summary,
        "operationId": op_id,
        "parameters": params or [],
        "responses": {"200": ok, **_errors(401, 403, *errors)},
    }


def _post(
    summary: str,
    op_id: str,
    status: int,
    ok: Schema,
    *errors: int,
    body: str | None,
    body_required: bool = True,
    params: list[Schema] | None = None,
) -> Schema:
    operation: Schema = {
        "summary": summary,
        "operationId": op_id,
        "parameters": [*(params or []), _IDEMPOTENCY_KEY],
        "responses": {
            str(status): ok,
            **_errors(400, 401, 403, *errors, 409, 413, 422),
        },
    }
    if body is not None:
        operation["requestBody"] = {
            "required": body_required,
            "content": {"application/json": {"schema": _ref(body)}},
        }
    return operation


def _alert_post(summary: str, op_id: str, body: str, description: str) -> Schema:
    answer = _ref("AlertIntake")
    errors = _errors(400, 401, 403)
    errors["403"]["description"] = (
        "Missing scope alerts:write (the admin role's; mint a token with "
        "`create_api_token --role admin --scopes alerts:write`)."
    )
    return {
        "summary": summary,
        "operationId": op_id,
        "description": description,
        "parameters": [],
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": _ref(body)}},
        },
        "responses": {
            "201": _json("The group is new: it opened an incident.", answer),
            "200": _json(
                "Applied to the open group of the same key, or ignored.", answer
            ),
            **errors,
            "413": _json(
                f"Body over {ALERT_MAX_BODY_BYTES} bytes (Alertmanager: lower max_alerts). "
                "Nothing was changed.",
                _ref("Error"),
            ),
            "429": {
                **_json(
                    "The tenant sent ALERT_RATE_LIMIT payloads within this "
                    "ALERT_RATE_WINDOW_SECONDS window, or the payload would open an "
                    "incident over INCIDENT_RATE_LIMIT; retry after `retry_after` "
                    "seconds (also the Retry-After header). Nothing was changed.",
                    _ref("Error"),
                ),
                "headers": _RETRY_AFTER,
            },
        },
    }


def build_document(principal: Principal | None = None) -> Schema:
    """The document; with `principal`, its environment names are the caller's (enums)."""
    environment_names = demo_names = None
    if principal is not None:
        environment_names = [
            env.name for env in environments.environments_for(principal.tenant)
        ]
        demo_names = [
            env.name for env in environments.demo_environments_for(principal.tenant)
        ]
    incident_id = [_path_param("incident_id")]
    task_id = [_path_param("task_id")]
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "AgentOps API",
            "version": "0.1.0",
            "description": "Incidents, diagnosis tasks, their traces and approvals. Every "
            "query is scoped to the caller's tenant.",
        },
        "security": [{"bearerAuth": []}, {"sessionAuth": []}],
        "paths": {
            "/api/incidents": {
                "get": _get(
                    "List incidents, newest first (keyset pages)",
                    "incidentList",
                    _json("A page of incidents.", _ref("IncidentList")),
                    400,
                    params=[
                        {
                            "name": "limit",
                            "in": "query",
                            "schema": {
                                "type": "integer",
                                "minimum": 1,
                                "maximum": MAX_PAGE_SIZE,
                                "default": 20,
                            },
                            "description": "ASCII digits only.",
                        },
                        {
                            "name": "cursor",
                            "in": "query",
                            "schema": {
                                "type": "string",
                                "pattern": CURSOR_PATTERN,
                                "maxLength": CURSOR_MAX,
                            },
                            "description": "`next` of the previous page: any string of "
                            "this shape names a place in the list.",
                        },
                    ],
                ),
                "post": _post(
                    "Create an incident and start its diagnosis",
                    "incidentCreate",
                    201,
                    _json("Created, with its queued task.", _ref("IncidentCreated")),
                    429,
                    body="IncidentCreate",
                ),
            },
            "/api/incidents/demo": {
                "post": _post(
                    "Open a demo environment's incident and start its diagnosis",
                    "demoIncidentCreate",
                    201,
                    _json("Created, with its queued task.", _ref("IncidentCreated")),
                    429,
                    body="DemoIncidentCreate",
                ),
            },
            "/api/environments": {
                "get": _get(
                    "The environments the tenant may diagnose against, by name",
                    "environmentList",
                    _json("Every environment of the tenant.", _ref("EnvironmentList")),
                )
            },
            "/api/incidents/{incident_id}": {
                "get": _get(
                    "An incident with its tasks, newest first",
                    "incidentDetail",
                    _json("The incident.", _ref("IncidentDetail")),
                    404,
                    params=incident_id,
                )
            },
            "/api/incidents/{incident_id}/diagnoses": {
                "post": _post(
                    "Run the diagnosis again (409 while one is active)",
                    "diagnosisCreate",
                    201,
                    _json("The new queued task.", _ref("Task")),
                    404,
                    body="DiagnosisCreate",
                    body_required=False,
                    params=incident_id,
                )
            },
            "/api/incidents/{incident_id}/cancel": {
                "post": _post(
                    "Cancel the incident's active task (409 if none)",
                    "incidentCancel",
                    202,
                    _json("Cancel accepted.", _ref("CancelResult")),
                    404,
                    body=None,
                    params=incident_id,
                )
            },
            **_coordination_paths(incident_id),
            "/api/tasks/{task_id}": {
                "get": _get(
                    "Task snapshot",
                    "taskDetail",
                    _json("The task.", _ref("Task")),
                    404,
                    params=task_id,
                )
            },
            "/api/tasks/{task_id}/cancel": {
                "post": _post(
                    "Cancel a task (409 with its state once finished)",
                    "taskCancel",
                    202,
                    _json("Cancel accepted.", _ref("CancelResult")),
                    404,
                    body=None,
                    params=task_id,
                )
            },
            "/api/tasks/{task_id}/trace": {
                "get": _get(
                    "The task's tool-call spans in start order; `q` keeps those whose tool, "
                    "arguments or results (the redacted stored data) hold every word of it",
                    "taskTrace",
                    _json("The trace.", _ref("Trace")),
                    400,
                    404,
                    params=[
                        *task_id,
                        {
                            "name": "q",
                            "in": "query",
                            "required": False,
                            "description": "Words to search for, any case, at most 200 "
                            "characters; at most 200 spans are returned.",
                            "schema": {
                                "type": "string",
                                "maxLength": QUERY_MAX_CHARS,
                                "pattern": "^[^\\x00-\\x1f]*$",
                            },
                        },
                    ],
                )
            },
            "/api/tasks/{task_id}/spans/{span_id}": {
                "get": _get(
                    "One span of the task's trace, with its redacted result",
                    "taskSpan",
                    _json("The span.", _ref("SpanDetail")),
                    404,
                    params=[
                        *task_id,
                        {
                            "name": "span_id",
                            "in": "path",
                            "required": True,
                            "description": "The span's 16-hex OpenTelemetry span id "
                            "(`span_id` in the trace, the events and the report) or its "
                            "row id (the trace's `id`).",
                            "schema": STR,
                        },
                    ],
                )
            },
            "/api/tasks/{task_id}/report.md": {
                "get": _get(
                    "The task's report as a Markdown download (for a postmortem)",
                    "taskReportMarkdown",
                    {
                        "description": "The report rendered by diagnosis.report_markdown; "
                        "every string from the incident and the tools is escaped. A task "
                        "without a report (still queued) gets a short document saying so.",
                        "headers": {
                            "Content-Disposition": {
                                "description": 'attachment; filename="incident-'
                                '{incident_id}-report.md"',
                                "schema": STR,
                            }
                        },
                        "content": {"text/markdown": {"schema": STR}},
                    },
                    404,
                    params=task_id,
                )
            },
            "/api/tasks/{task_id}/events": {
                "get": {
                    "summary": "The task's events as a resumable Server-Sent Events stream",
                    "operationId": "taskEvents",
                    "description": "Each event has `id:` = seq and `event:` = its type; resume "
                    "with Last-Event-ID (or ?last_event_id=). Closes after a terminal event, "
                    "unless ?follow=1.",
                    "parameters": [
                        *task_id,
                        {
                            "name": "Last-Event-ID",
                            "in": "header",
                            "schema": _STREAM_CURSOR,
                        },
                        {
                            "name": "last_event_id",
                            "in": "query",
                            "schema": _STREAM_CURSOR,
                            "description": "Used when the Last-Event-ID header is absent.",
                        },
                        {
                            "name": "follow",
                            "in": "query",
                            "schema": {"type": "string", "enum": ["1"]},
                            "description": "Stay open after the terminal event, for the "
                            "incident's later events on this task (coordination, feedback, "
                            "alerts); a finished task then gets no 204.",
                        },
                    ],
                    "responses": {
                        "200": {
                            "description": "The stream. Opens with `resync_required` for a "
                            "malformed cursor or one inside a compacted range; while the "
                            "database is unreachable, an empty stream asking (`retry:`) for "
                            "a later reconnect with the same cursor.",
                            "content": {
                                "text/event-stream": {"schema": _ref("StreamEvent")}
                            },
                        },
                        "204": {
                            "description": "The cursor already covers a finished task's "
                            "terminal event (without ?follow=1)."
                        },
                        **{
                            str(code): _json(text, _ref("StreamError"))
                            for code, text in _STREAM_ERRORS.items()
                        },
                        # An id that is not a UUID misses the stream's route: Django's 404.
                        "404": _json(
                            _STREAM_ERRORS[404] + " An id that is not a UUID gets the "
                            "API's 404 (Error).",
                            {"anyOf": [_ref("StreamError"), _ref("Error")]},
                        ),
                    },
                }
            },
            "/api/approvals/{approval_id}/decision": {
                "post": _post(
                    "Approve or deny a pending approval (roles approver, admin); its "
                    "parked task is re-queued",
                    "approvalDecide",
                    200,
                    _json("The decided approval.", _ref("Approval")),
                    404,
                    body="ApprovalDecision",
                    params=[_path_param("approval_id")],
                )
            },
            "/api/alerts/alertmanager": {
                "post": _alert_post(
                    "Take an Alertmanager webhook (version 4): one incident per groupKey",
                    "alertsAlertmanager",
                    "AlertmanagerWebhook",
                    "A firing group with no open group of its groupKey opens an incident "
                    "(service, severity, title, symptoms, window and environment mapped by "
                    "the registry's [alerts] rules) and starts its diagnosis; a repeat adds "
                    "its alerts to the group and says what is new in the active "
                    "diagnosis' timeline (alert_received); resolved closes the group.",
                )
            },
            "/api/alerts/pagerduty": {
                "post": _alert_post(
                    "Take a PagerDuty Events API v2 event: one incident per dedup_key",
                    "alertsPagerDuty",
                    "PagerDutyEvent",
                    "trigger opens an incident unless the routing_key + dedup_key group is "
                    "open; acknowledge and resolve apply to the open group (resolved closes "
                    "it; a later trigger opens a new incident) or are ignored.",
                )
            },
            "/api/openapi.json": {
                "get": {
                    "summary": "This document",
                    "operationId": "openapi",
                    "security": [],
                    "responses": {
                        "200": {
                            "description": "OpenAPI 3.1",
                            "content": {
                                "application/json": {"schema": {"type": "object"}}
                            },
                        }
                    },
                }
            },
            "/healthz": {
                "get": {
                    "summary": "The process is up",
                    "operationId": "healthz",
                    "security": [],
                    "responses": {"200": _json("Up.", _ref("Health"))},
                }
            },
            "/readyz": {
                "get": {
                    "summary": "PostgreSQL and Redis answer (each bounded to ~1 s)",
                    "operationId": "readyz",
                    "security": [],
                    "responses": {
                        "200": _json("Ready.", _ref("Ready")),
                        "503": _json(
                            "Not ready; `checks` names what failed.", _ref("Ready")
                        ),
                    },
                }
            },
        },
        "components": {
            "securitySchemes": {
                "bearerAuth": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "`manage.py create_api_token`",
                },
                "sessionAuth": {
                    "type": "apiKey",
                    "in": "cookie",
                    "name": "sessionid",
                    "description": "The browser session; writes also need the X-CSRFToken header.",
                },
            },
            "schemas": _schemas(environment_names, demo_names),
        },
    }


# --- incident coordination and the timeline (diagnosis.api.coordination) --------------------


def _coordination_schemas() -> Schema:
    by = {**STR, "description": "Who: a username (a token acts as its user)."}
    return {
        "IncidentCoordination": _object(
            {
                "incident_id": UUID,
                "status": {"type": "string", "enum": IncidentStatus.values},
                "status_changed_at": NULLABLE_DATETIME,
                "severity": {"type": "string", "enum": Severity.values},
                "owner": {"type": ["string", "null"]},
            }
        ),
        "IncidentStatusChange": _object(
            {"status": {"type": "string", "enum": IncidentStatus.values}}
        ),
        "IncidentSeverityChange": _object(
            {"severity": {"type": "string", "enum": Severity.values}}
        ),
        "IncidentOwnerChange": _object(
            {
                "owner": {
                    "type": ["string", "null"],
                    "minLength": 1,
                    "description": '"me", the username of a member who may run '
                    "incidents, or null to unassign.",
                }
            }
        ),
        "IncidentNoteCreate": _object({"text": _text(NOTE_MAX, blank=False)}),
        "IncidentNote": _object(
            {
                "event_id": INT,
                "task_id": UUID,
                "text": STR,
                "by": by,
                "occurred_at": DATETIME,
            }
        ),
        "TimelineEntry": _object(
            {
                "at": DATETIME,
                "category": STR,
                "event": {"type": "string", "enum": EventKind.values},
                "title": STR,
                "who": STR,
                "detail": STR,
                "task_id": UUID,
                "seq": INT,
                "span_id": STR,
                "state": STR,
            }
        ),
        "Timeline": _object(
            {
                "incident_id": UUID,
                "entries": {"type": "array", "items": _ref("TimelineEntry")},
            }
        ),
    }


def _coordination_paths(incident_id: list[Schema]) -> Schema:
    moves = "; ".join(
        f"{src} → {', '.join(sorted(dst))}" for src, dst in ALLOWED_STATUS_MOVES.items()
    )

    def change(summary: str, op_id: str, body: str) -> Schema:
        return {
            "post": _post(
                summary + " (roles responder, approver, admin); an event on the "
                "incident's latest task. 409 with `fields` when the incident's state "
                "refuses it (a move the table lacks, the value it has, an owner who may "
                "not run it), or when it changed meanwhile.",
                op_id,
                200,
                _json(
                    "The incident's coordination fields.", _ref("IncidentCoordination")
                ),
                404,
                body=body,
                params=incident_id,
            )
        }

    return {
        "/api/incidents/{incident_id}/status": change(
            f"Move the incident's status ({moves})",
            "incidentStatus",
            "IncidentStatusChange",
        ),
        "/api/incidents/{incident_id}/severity": change(
            "Change the incident's severity",
            "incidentSeverity",
            "IncidentSeverityChange",
        ),
        "/api/incidents/{incident_id}/owner": change(
            "Give the incident an owner", "incidentOwner", "IncidentOwnerChange"
        ),
        "/api/incidents/{incident_id}/notes": {
            "post": _post(
                "Add a note to the incident's timeline (roles responder, approver, admin)",
                "incidentNoteCreate",
                201,
                _json("The note's event.", _ref("IncidentNote")),
                404,
                body="IncidentNoteCreate",
                params=incident_id,
            )
        },
        "/api/incidents/{incident_id}/timeline": {
            "get": _get(
                "The incident's timeline, oldest first: alerts, diagnosis states, tool "
                "calls, approvals, coordination and feedback, with who and when",
                "incidentTimeline",
                _json("The timeline.", _ref("Timeline")),
                404,
                params=incident_id,
            )
        },
    }
