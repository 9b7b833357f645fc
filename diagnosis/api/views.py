"""JSON API views: parse → service or selector → serialize. Sync views, served through Django's ASGI handler.

`endpoint()` is the one shape every API URL takes: method dispatch (405 as JSON), authentication,
and the mapping of ApiError and domain errors to JSON answers.
"""

import contextlib
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.db.models import Q
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template import loader
from django.views import defaults
from django.views.decorators.csrf import csrf_exempt

from diagnosis import (
    call_labels,
    environments,
    outage,
    report_markdown,
    selectors,
    services,
    site_links,
)
from diagnosis.api import idempotency, openapi, serializers, validation
from diagnosis.api.auth import authenticate, require_scope
from diagnosis.api.errors import (
    ApiError,
    api_error_from,
    json_response,
    not_found,
    validation_error,
)
from diagnosis.approvals import approval_decide, approval_status
from diagnosis.exceptions import DiagnosisError
from diagnosis.intake import receive
from diagnosis.principals import Principal

Handler = Callable[..., HttpResponse]


def endpoint(**handlers: Handler) -> Callable[..., HttpResponse]:
    """A view dispatching on method (`get=…, post=…`) to handlers taking (request, principal, **kw)."""
    allowed = sorted(m.upper() for m in handlers)

    @csrf_exempt  # CSRF is enforced in authenticate() for session callers only
    def view(request: HttpRequest, **kwargs: Any) -> HttpResponse:
        handler = handlers.get((request.method or "").lower())
        try:
            if handler is None:
                raise ApiError(
                    405,
                    f"method {request.method} not allowed",
                    code="method_not_allowed",
                    headers={"Allow": ", ".join(allowed)},
                    allowed=allowed,
                )
            principal = authenticate(request)
            return handler(request, principal, **kwargs)
        except ApiError as exc:
            return exc.response()
        except DiagnosisError as exc:
            return api_error_from(exc).response()

    view.allowed_methods = allowed  # type: ignore[attr-defined]  # read by the OpenAPI test
    return view


def _idempotent(
    request: HttpRequest,
    principal: Principal,
    data: dict[str, Any],
    effect: idempotency.Effect,
) -> JsonResponse:
    key = idempotency.idempotency_key(request.headers)
    digest = idempotency.request_hash(request.method or "POST", request.path, data)
    (status, body), replayed = idempotency.run(
        principal=principal, key=key, digest=digest, effect=effect
    )
    headers = {idempotency.REPLAYED_HEADER: "true"} if replayed else None
    return json_response(status, body, headers=headers)


# --- incidents ----------------------------------------------------------------------------


def incident_list(request: HttpRequest, principal: Principal) -> HttpResponse:
    require_scope(principal, "incidents:read")
    limit, after = validation.list_params(request.GET)
    rows = selectors.incident_list(tenant=principal.tenant)
    if after is not None:
        created_at, pk = after
        # Keyset: rows strictly after the cursor's (created_at, id) in (-created_at, -id) order.
        rows = rows.filter(
            Q(created_at__lt=created_at) | Q(created_at=created_at, pk__lt=pk)
        )
    page = list(rows[: limit + 1])
    has_more = len(page) > limit
    page = page[:limit]
    next_cursor = (
        validation.encode_cursor(page[-1].created_at, page[-1].pk) if has_more else None
    )
    return json_response(
        200,
        {
            "results": [serializers.incident_to_dict(i) for i in page],
            "next": next_cursor,
        },
    )


def incident_create(request: HttpRequest, principal: Principal) -> HttpResponse:
    require_scope(principal, "incidents:write")
    data = validation.read_json_object(request)
    args = validation.incident_create_args(data)

    def effect() -> idempotency.Result:
        incident, task = services.incident_create(
            tenant=principal.tenant, user=principal.user, principal=principal, **args
        )
        return 201, serializers.incident_created_to_dict(incident, task)

    return _idempotent(request, principal, data, effect)


def demo_incident_create(request: HttpRequest, principal: Principal) -> HttpResponse:
    require_scope(principal, "incidents:write")
    data = validation.read_json_object(request)
    args = validation.demo_incident_args(data)

    def effect() -> idempotency.Result:
        incident, task = services.demo_incident_create(
            tenant=principal.tenant, user=principal.user, principal=principal, **args
        )
        return 201, serializers.incident_created_to_dict(incident, task)

    return _idempotent(request, principal, data, effect)


def environment_list(request: HttpRequest, principal: Principal) -> HttpResponse:
    require_scope(principal, "incidents:read")
    default = environments.default_for(principal.tenant)
    return json_response(
        200,
        {
            "results": [
                serializers.environment_to_dict(
                    env, is_default=default is not None and env.name == default.name
                )
                for env in environments.environments_for(principal.tenant)
            ]
        },
    )


def incident_detail(
    request: HttpRequest, principal: Principal, incident_id: str
) -> HttpResponse:
    require_scope(principal, "incidents:read")
    incident = selectors.incident_get(tenant=principal.tenant, incident_id=incident_id)
    if incident is None:
        raise not_found("incident")
    tasks = list(selectors.incident_tasks(incident=incident))
    groups = list(selectors.incident_alert_groups(incident=incident))
    return json_response(
        200, serializers.incident_detail_to_dict(incident, tasks, groups)
    )


def diagnosis_create(
    request: HttpRequest, principal: Principal, incident_id: str
) -> HttpResponse:
    require_scope(principal, "incidents:write")
    data = validation.read_json_object(request, allow_empty=True)
    args = validation.diagnosis_start_args(data)

    def effect() -> idempotency.Result:
        incident = selectors.incident_get(
            tenant=principal.tenant, incident_id=incident_id
        )
        if incident is None:
            raise not_found("incident")
        task = services.diagnosis_start(
            incident=incident, user=principal.user, principal=principal, **args
        )
        return 201, serializers.task_to_dict(task)

    return _idempotent(request, principal, data, effect)


def incident_cancel(
    request: HttpRequest, principal: Principal, incident_id: str
) -> HttpResponse:
    require_scope(principal, "tasks:cancel")
    data = validation.read_json_object(request, allow_empty=True)
    validation.no_fields(data)

    def effect() -> idempotency.Result:
        incident = selectors.incident_get(
            tenant=principal.tenant, incident_id=incident_id
        )
        if incident is None:
            raise not_found("incident")
        task = selectors.incident_active_task(incident=incident)
        if task is None:
            raise ApiError(
                409, "the incident has no active diagnosis", code="no_active_task"
            )
        task = services.diagnosis_cancel(task=task)
        return 202, serializers.cancel_to_dict(task)

    return _idempotent(request, principal, data, effect)


# --- tasks --------------------------------------------------------------------------------


def task_detail(
    request: HttpRequest, principal: Principal, task_id: str
) -> HttpResponse:
    require_scope(principal, "tasks:read")
    task = selectors.task_get(tenant=principal.tenant, task_id=task_id)
    if task is None:
        raise not_found("task")
    return json_response(200, serializers.task_to_dict(task))


def task_cancel(
    request: HttpRequest, principal: Principal, task_id: str
) -> HttpResponse:
    require_scope(principal, "tasks:cancel")
    data = validation.read_json_object(request, allow_empty=True)
    validation.no_fields(data)

    def effect() -> idempotency.Result:
        task = selectors.task_get(tenant=principal.tenant, task_id=task_id)
        if task is None:
            raise not_found("task")
        task = services.diagnosis_cancel(task=task)
        return 202, serializers.cancel_to_dict(task)

    return _idempotent(request, principal, data, effect)


def task_trace(
    request: HttpRequest, principal: Principal, task_id: str
) -> HttpResponse:
    require_scope(principal, "tasks:read")
    task = selectors.task_get(tenant=principal.tenant, task_id=task_id)
    if task is None:
        raise not_found("task")
    try:
        query = call_labels.clean_query(request.GET.get("q"))
    except call_labels.BadQuery as exc:
        raise validation_error({"q": str(exc)}) from exc
    spans = list(selectors.task_spans(task=task))
    if query:  # the redacted stored data, the trace page's search (call_labels.search)
        spans = call_labels.search(spans, query)
    return json_response(200, serializers.trace_to_dict(task, spans))


def task_span(
    request: HttpRequest, principal: Principal, task_id: str, span_id: str
) -> HttpResponse:
    """One span by its 16-hex OpenTelemetry span id (the events' and the report's `span_id`)
    or by its row id (the trace's `id`, what reports stored before cited)."""
    require_scope(principal, "tasks:read")
    task = selectors.task_get(tenant=principal.tenant, task_id=task_id)
    if task is None:
        raise not_found("task")
    found = selectors.task_span_get(task=task, span_id=span_id)
    if found is None:
        raise not_found("span")
    return json_response(200, serializers.span_detail_to_dict(found))


def task_report(
    request: HttpRequest, principal: Principal, task_id: str
) -> HttpResponse:
    require_scope(principal, "tasks:read")
    task = selectors.task_get(tenant=principal.tenant, task_id=task_id)
    if task is None:
        raise not_found("task")
    body = report_markdown.report_markdown(
        report=task.report,
        incident=serializers.incident_to_dict(task.incident),
        task=serializers.task_to_dict(task),
        # Absolute (SITE_URL, else this request's origin): the file is read elsewhere.
        trace_url=site_links.trace_page_url(request, task.id),
        span_ids=selectors.task_span_ids(task=task),
    )
    return HttpResponse(
        body,
        content_type="text/markdown; charset=utf-8",
        headers={
            "Content-Disposition": "attachment; "
            f'filename="incident-{task.incident_id}-report.md"'
        },
    )


# --- approvals ----------------------------------------------------------------------------


def approval_decision(
    request: HttpRequest, principal: Principal, approval_id: str
) -> HttpResponse:
    require_scope(principal, "approvals:decide")  # approver and admin roles only
    data = validation.read_json_object(request)
    args = validation.approval_decision_args(data)

    def effect() -> idempotency.Result:
        approval = selectors.approval_get(
            tenant=principal.tenant, approval_id=approval_id
        )
        if approval is None:
            raise not_found("approval")
        decided = approval_decide(approval=approval, user=principal.user, **args)
        if decided is None:
            approval.refresh_from_db()
            raise ApiError(
                409,
                "the approval is no longer pending",
                code="approval_not_pending",
                status=approval_status(approval=approval),
            )
        return 200, serializers.approval_to_dict(decided)

    return _idempotent(request, principal, data, effect)


# --- alerts: incidents opened by monitoring (diagnosis.intake) ---------------------------------
# No Idempotency-Key: a payload names its group, and a repeat of a group is what it handles.


def _alert_intake(
    request: HttpRequest,
    principal: Principal,
    apply: Callable[..., receive.Intake],
) -> HttpResponse:
    require_scope(principal, "alerts:write")  # the admin role only
    data = validation.read_json_object(
        request, max_bytes=validation.ALERT_MAX_BODY_BYTES
    )
    intake = apply(principal=principal, data=data)
    return json_response(
        201 if intake.created else 200, serializers.alert_intake_to_dict(intake)
    )


def alertmanager_alerts(request: HttpRequest, principal: Principal) -> HttpResponse:
    return _alert_intake(request, principal, receive.alertmanager_receive)


def pagerduty_alerts(request: HttpRequest, principal: Principal) -> HttpResponse:
    return _alert_intake(request, principal, receive.pagerduty_receive)


# --- unauthenticated GETs: the document (probes in diagnosis.api.probes) --------------------------------------


def public_get(
    view: Callable[[HttpRequest], HttpResponse],
) -> Callable[..., HttpResponse]:
    """A GET-only view without authentication; other methods get a JSON 405."""

    @csrf_exempt
    @wraps(view)
    def wrapper(request: HttpRequest) -> HttpResponse:
        if request.method != "GET":
            return ApiError(
                405,
                f"method {request.method} not allowed",
                code="method_not_allowed",
                headers={"Allow": "GET"},
                allowed=["GET"],
            ).response()
        return view(request)

    wrapper.allowed_methods = ["GET"]  # type: ignore[attr-defined]
    return wrapper


@public_get
def openapi_document(request: HttpRequest) -> HttpResponse:
    """Served without credentials; with valid ones, its environment names are the caller's."""
    principal = None
    with contextlib.suppress(ApiError):
        principal = authenticate(request)
    return JsonResponse(
        openapi.build_document(principal), json_dumps_params={"ensure_ascii": False}
    )


incidents = endpoint(get=incident_list, post=incident_create)
demo_incidents = endpoint(post=demo_incident_create)
environments_view = endpoint(get=environment_list)
incident = endpoint(get=incident_detail)
incident_diagnoses = endpoint(post=diagnosis_create)
incident_cancel_view = endpoint(post=incident_cancel)
task = endpoint(get=task_detail)
task_cancel_view = endpoint(post=task_cancel)
task_trace_view = endpoint(get=task_trace)
task_span_view = endpoint(get=task_span)
task_report_view = endpoint(get=task_report)
approval_decision_view = endpoint(post=approval_decision)
alertmanager_view = endpoint(post=alertmanager_alerts)
pagerduty_view = endpoint(post=pagerduty_alerts)


# --- error pages (handler404 / handler500 in agentops/urls.py) -----------------------------


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """JSON 404 under /api/ (an unknown route); Django's page elsewhere."""
    if request.path.startswith("/api/"):
        return ApiError(404, "no such API endpoint", code="not_found").response()
    return defaults.page_not_found(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    """JSON 500 under /api/; Django's page elsewhere. An unreachable database (diagnosis.outage)
    is an outage, not a bug: 503 + Retry-After, as JSON under /api/ and a page elsewhere.

    Django calls this inside the `except` block of whatever raised, in a view or in a
    middleware (the session lookup), so the error is sys.exc_info()'s. Nothing here may touch
    the database.
    """
    if outage.handling_database_outage():
        seconds = outage.retry_after()
        headers = {"Retry-After": str(seconds)}
        if request.path.startswith("/api/"):
            return ApiError(
                503,
                "the database is unavailable; retry later",
                code="database_unavailable",
                headers=headers,
                retry_after=seconds,
            ).response()
        page = loader.get_template("503.html").render({"retry_after": seconds})
        return HttpResponse(page, status=503, headers=headers)
    if request.path.startswith("/api/"):
        return ApiError(500, "internal error", code="internal").response()
    return defaults.server_error(request)
