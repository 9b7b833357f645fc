"""API errors: one exception carrying the status and JSON body, and the mapping of domain errors.

Every error body has `error` (a sentence) and `code` (stable, for machines); validation errors add
`fields` ({name: reason}), conflicts may add `state`, `status` or `task_id`.
"""

from typing import Any

from django.http import JsonResponse

from diagnosis.exceptions import (
    ActiveTaskExists,
    CoordinationRefused,
    DiagnosisError,
    InvalidTransition,
    RateLimited,
    StaleTransition,
    TaskFinished,
    ValidationFailed,
)


class ApiError(Exception):
    def __init__(
        self,
        http_status: int,
        error: str,
        /,
        *,
        code: str,
        headers: dict[str, str] | None = None,
        **extra: Any,
    ) -> None:
        super().__init__(error)
        self.status = http_status
        self.body: dict[str, Any] = {"error": error, "code": code, **extra}
        self.headers = headers or {}

    def response(self) -> JsonResponse:
        return json_response(self.status, self.body, headers=self.headers)


def json_response(
    status: int, body: dict[str, Any], *, headers: dict[str, str] | None = None
) -> JsonResponse:
    return JsonResponse(body, status=status, headers=headers)


def not_found(what: str) -> ApiError:
    return ApiError(404, f"{what} not found", code="not_found")


def validation_error(
    fields: dict[str, str], message: str = "invalid input"
) -> ApiError:
    return ApiError(400, message, code="invalid", fields=fields)


def api_error_from(exc: DiagnosisError) -> ApiError:
    """The HTTP answer to a domain error a service raised on purpose."""
    if isinstance(exc, ValidationFailed):
        return validation_error(exc.fields, str(exc))
    if isinstance(exc, ActiveTaskExists):
        return ApiError(
            409,
            "the incident already has an active diagnosis",
            code="active_task_exists",
            task_id=str(exc.task_id),
        )
    if isinstance(exc, TaskFinished):
        return ApiError(
            409, "the task has already finished", code="task_finished", state=exc.state
        )
    if isinstance(exc, RateLimited):
        return ApiError(
            429,
            str(exc),
            code="rate_limited",
            headers={"Retry-After": str(exc.retry_after)},
            retry_after=exc.retry_after,
        )
    if isinstance(exc, CoordinationRefused):
        return ApiError(
            409, "the incident's state refuses it", code="conflict", fields=exc.fields
        )
    if isinstance(exc, StaleTransition | InvalidTransition):
        return ApiError(
            409, "the task changed meanwhile; read it and retry", code="conflict"
        )
    return ApiError(409, str(exc), code="conflict")
