"""Parsing of API input: the JSON body, the fields of each POST, list parameters and cursors.

Every failure raises ApiError before anything is written: 413 for a body over MAX_BODY_BYTES,
400 (`{"error", "code": "invalid", "fields": {name: reason}}`) for the rest, including a
content type other than application/json. Every field of a body is checked by
diagnosis.bounds.json_error (depth, valid Unicode, NUL, numbers a double holds) first, then
read by the readers the pages and alert intake use too (diagnosis.fields).
"""

import json
import math
import re
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from django.conf import settings
from django.http import HttpRequest, QueryDict

from diagnosis import bounds, fields, plans
from diagnosis.api.errors import ApiError, validation_error
from diagnosis.fields import FieldErrors

MAX_BODY_BYTES = 64 * 1024
# POST /api/alerts/*: an Alertmanager group of a few hundred alerts is well over 64 KiB.
ALERT_MAX_BODY_BYTES = 1024 * 1024
DEFAULT_PAGE_SIZE = 20
MAX_PAGE_SIZE = 100
_ASCII_INT = re.compile(r"[0-9]{1,6}")


def _too_large(limit: int = MAX_BODY_BYTES) -> ApiError:
    return ApiError(
        413,
        f"request body over {limit} bytes",
        code="too_large",
        limit=limit,
    )


def _reject_constant(name: str) -> Any:
    # NaN and Infinity are not JSON (RFC 8259), and PostgreSQL's jsonb refuses them.
    raise ValueError(f"{name} is not valid JSON")


def _parse_float(text: str) -> float | bounds.OutOfRangeNumber:
    # 1e400 is valid JSON but no double: json.loads would make it inf, which jsonb refuses.
    # A marker instead lets the field check name the field it is in.
    value = float(text)
    return value if math.isfinite(value) else bounds.OutOfRangeNumber(text)


def _field_errors(data: Mapping[str, Any]) -> dict[str, str]:
    errors: dict[str, str] = {}
    for name, value in data.items():
        if bounds.json_error(name) is not None:
            # Not echoed: a name that is not valid Unicode cannot be a key of the answer.
            errors["body"] = "field names must be valid Unicode without NUL characters"
        elif (reason := bounds.json_error(value)) is not None:
            errors[name] = reason
    return errors


def read_json_object(
    request: HttpRequest,
    *,
    allow_empty: bool = False,
    max_bytes: int = MAX_BODY_BYTES,
) -> dict[str, Any]:
    """The request body as a JSON object; an empty body is `{}` when `allow_empty`.

    Raises:
        ApiError: 413 over `max_bytes` (MAX_BODY_BYTES; agentops.body_limit.limit_for must
            allow as much); 400 for another content type, bytes that are not UTF-8 JSON, or
            JSON that is not an object.
    """
    try:
        declared = int(request.headers.get("Content-Length") or 0)
    except ValueError:
        declared = 0
    if declared > max_bytes:
        raise _too_large(max_bytes)
    # Read at most one byte past the limit, whatever the header said (chunked bodies).
    raw = request.read(max_bytes + 1)
    if len(raw) > max_bytes:
        raise _too_large(max_bytes)
    if not raw.strip():
        if allow_empty:
            return {}
        raise validation_error({"body": "a JSON object is required"}, "empty body")
    content_type = request.content_type or ""
    if content_type != "application/json":
        raise validation_error(
            {
                "Content-Type": f"must be application/json, not {content_type or 'absent'}"
            },
            "unsupported content type",
        )
    try:
        data = json.loads(
            raw.decode("utf-8"),
            parse_constant=_reject_constant,
            parse_float=_parse_float,
        )
    except RecursionError:
        raise validation_error(
            {"body": "nested too deeply"}, "malformed JSON"
        ) from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise validation_error(
            {"body": f"not valid JSON: {exc}"}, "malformed JSON"
        ) from None
    if not isinstance(data, dict):
        raise validation_error(
            {"body": f"must be a JSON object, not {type(data).__name__}"},
            "the body must be a JSON object",
        )
    _raise_if(_field_errors(data))
    return data


def _plan(data: Mapping[str, Any], errors: FieldErrors) -> tuple[str, dict[str, Any]]:
    plan = data.get("plan", "default")
    plan_args = data.get("plan_args", {})
    # Test-only plans (sleeps) are offered only where settings.DIAGNOSIS_TEST_PLANS is on.
    plan_errors = plans.plan_errors(
        plan, plan_args, include_test_only=settings.DIAGNOSIS_TEST_PLANS
    )
    for name, reason in plan_errors.items():
        errors.add(name, reason)
    if plan_errors or not isinstance(plan, str) or not isinstance(plan_args, dict):
        return "default", {}
    return plan, dict(plan_args)


def _raise_if(errors: Mapping[str, str]) -> None:
    if errors:
        raise validation_error(dict(errors))


def incident_create_args(data: Mapping[str, Any]) -> dict[str, Any]:
    """Keyword arguments for services.incident_create from a POST /api/incidents body: the
    incident's fields (diagnosis.fields.incident_values, as the page's form reads them) and
    the plan."""
    errors = FieldErrors()
    fields.unknown_fields(
        data,
        {
            "title",
            "service",
            "severity",
            "symptoms",
            "description",
            "labels",
            "window_start",
            "window_end",
            "plan",
            "plan_args",
            "environment",
        },
        errors,
    )
    values = fields.incident_values(data, errors)
    plan, plan_args = _plan(data, errors)
    _raise_if(errors)
    return {**values, "plan": plan, "plan_args": plan_args}


def demo_incident_args(data: Mapping[str, Any]) -> dict[str, Any]:
    """`{"environment": "demo-…"}` → keyword arguments for services.demo_incident_create."""
    errors = FieldErrors()
    fields.unknown_fields(data, {"environment"}, errors)
    environment = fields.text(
        data, "environment", errors, max_length=fields.ENVIRONMENT_MAX, required=True
    )
    _raise_if(errors)
    return {"environment": environment}


def diagnosis_start_args(data: Mapping[str, Any]) -> dict[str, Any]:
    """Keyword arguments for services.diagnosis_start from a re-run body (may be empty)."""
    errors = FieldErrors()
    fields.unknown_fields(data, {"plan", "plan_args"}, errors)
    plan, plan_args = _plan(data, errors)
    _raise_if(errors)
    return {"plan": plan, "plan_args": plan_args}


def no_fields(data: Mapping[str, Any]) -> None:
    """A cancel takes no fields; anything sent is a mistake worth reporting."""
    errors = FieldErrors()
    fields.unknown_fields(data, (), errors)
    _raise_if(errors)


def approval_decision_args(data: Mapping[str, Any]) -> dict[str, Any]:
    """`{"decision": "approve" | "deny", "reason"?}` → {"approve": bool, "reason": str}."""
    errors = FieldErrors()
    fields.unknown_fields(data, {"decision", "reason"}, errors)
    decision = fields.choice(
        data,
        "decision",
        errors,
        ("approve", "deny"),
        reason="must be approve or deny",
        required=True,
    )
    reason = fields.text(data, "reason", errors, max_length=fields.REASON_MAX)
    _raise_if(errors)
    return {"approve": decision == "approve", "reason": reason}


# --- list parameters and the keyset cursor ------------------------------------------------


# `{microseconds since 1970 UTC}.{id as 32 hex digits}`: every string of this shape names a
# position in the keyset (-created_at, -id), so the OpenAPI document can state the shape exactly
# and any cursor it allows pages from somewhere (up to 16 digits: until the year 2286).
CURSOR_PATTERN = r"^[0-9]{1,16}\.[0-9a-f]{32}$"
CURSOR_MAX = 16 + 1 + 32
_CURSOR = re.compile(CURSOR_PATTERN)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def encode_cursor(created_at: datetime, pk: uuid.UUID) -> str:
    """A cursor naming the last row of a page (ordering: -created_at, -id)."""
    micros = (created_at - _EPOCH) // timedelta(microseconds=1)
    return f"{micros}.{pk.hex}"


def decode_cursor(cursor: str) -> tuple[datetime, uuid.UUID]:
    """Raises ApiError 400 for a string not of the cursor's shape (CURSOR_PATTERN)."""
    if not _CURSOR.fullmatch(cursor):
        raise validation_error({"cursor": "not a cursor returned by this API"})
    micros, pk = cursor.split(".")
    return _EPOCH + timedelta(microseconds=int(micros)), uuid.UUID(hex=pk)


def list_params(query: QueryDict) -> tuple[int, tuple[datetime, uuid.UUID] | None]:
    """`?limit=` (1..MAX_PAGE_SIZE) and `?cursor=` of a list request."""
    errors = FieldErrors()
    fields.unknown_fields(query, {"limit", "cursor"}, errors)
    limit = DEFAULT_PAGE_SIZE
    raw_limit = query.get("limit")
    if raw_limit is not None:
        # ASCII digits only: str.isdigit() and int() also take "²" and "①" (or reject them).
        if _ASCII_INT.fullmatch(raw_limit) and 1 <= int(raw_limit) <= MAX_PAGE_SIZE:
            limit = int(raw_limit)
        else:
            errors.add("limit", f"an integer from 1 to {MAX_PAGE_SIZE}")
    _raise_if(errors)
    cursor = query.get("cursor")
    return limit, (decode_cursor(cursor) if cursor else None)
