"""htmx pages: incident list and creation, the live incident page, cancel, approvals. Thin:
form → service or selector → render; htmx requests get the fragment, others the full page."""

from collections.abc import Callable
from contextlib import suppress
from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect
from django_htmx.middleware import HtmxDetails

from diagnosis import approvals, selectors, services
from diagnosis.exceptions import (
    ActiveTaskExists,
    RateLimited,
    TaskFinished,
    ValidationFailed,
)
from diagnosis.forms import DecisionForm, DemoIncidentForm, IncidentForm
from diagnosis.models import ApprovalStatus, DiagnosisTask, Incident
from diagnosis.principals import Principal, principal_from_user
from diagnosis.states import TERMINAL


class HtmxHttpRequest(HttpRequest):
    """What django-htmx's middleware adds to every request (its documented typing recipe)."""

    htmx: HtmxDetails


def _principal(request: HttpRequest) -> Principal:
    principal = principal_from_user(request.user)
    if principal is None:
        raise Http404("no tenant membership")
    return principal


def _panel_context(principal: Principal, incident: Any) -> dict[str, Any]:
    tasks = list(selectors.incident_tasks(incident=incident))
    task = tasks[0] if tasks else None
    return {
        "incident": incident,
        "task": task,
        "earlier_tasks": tasks[1:],
        "is_finished": task is None or task.state in TERMINAL,
        "spans": list(selectors.task_spans(task=task)) if task else [],
        "approvals": list(approvals.task_approvals(task=task)) if task else [],
        "can_decide": principal.has_scope("approvals:decide"),
        "can_cancel": principal.has_scope("tasks:cancel"),
        "can_rerun": principal.has_scope("incidents:write"),
        "pending": ApprovalStatus.PENDING,
    }


def _list_page(
    request: HtmxHttpRequest,
    principal: Principal,
    *,
    bound: dict[str, Any] | None = None,
    status: int = 200,
) -> HttpResponse:
    """The incident list with both forms; `bound` replaces one by the form that was posted."""
    incidents = selectors.incident_list(tenant=principal.tenant).prefetch_related(
        "tasks"
    )[:100]
    context = {
        "form": IncidentForm(tenant=principal.tenant),
        "demo_form": DemoIncidentForm(tenant=principal.tenant),
        **(bound or {}),
        "can_create": principal.has_scope("incidents:write"),
        "incidents": incidents,
    }
    return render(request, "diagnosis/incident_list.html", context, status=status)


# The name each posted form has in the template, and its fragment (partialdef).
_FORM_SLOTS: dict[type, tuple[str, str]] = {
    IncidentForm: ("form", "new-incident"),
    DemoIncidentForm: ("demo_form", "demo-incident"),
}


def _create_and_redirect(
    request: HtmxHttpRequest,
    principal: Principal,
    form: IncidentForm | DemoIncidentForm,
    create: Callable[..., tuple[Incident, DiagnosisTask]],
) -> HttpResponse:
    """Run `create` with a valid form's data and go to the new incident; else the form with its
    errors: its fragment for htmx (400), the whole page otherwise (400, or 429 rate-limited)."""
    retry_after = None
    if form.is_valid():
        try:
            incident, _task = create(**form.cleaned_data)
        except RateLimited as exc:
            form.add_error(None, str(exc))
            retry_after = exc.retry_after
        except ValidationFailed as exc:
            # E.g. the registry changed since the form was drawn.
            for name, reason in exc.fields.items():
                form.add_error(name if name in form.fields else None, reason)
        else:
            url = reverse("diagnosis:incident-detail", args=[incident.id])
            return HttpResponseClientRedirect(url) if request.htmx else redirect(url)
    key, fragment = _FORM_SLOTS[type(form)]
    if request.htmx and retry_after is None:
        response = render(
            request,
            f"diagnosis/incident_list.html#{fragment}",
            {key: form, "can_create": True},
            status=400,
        )
    else:
        status = 400 if retry_after is None else 429
        response = _list_page(request, principal, bound={key: form}, status=status)
    if retry_after is not None:
        response["Retry-After"] = str(retry_after)
    return response


@login_required
@require_http_methods(["GET", "POST"])
def incident_list(request: HtmxHttpRequest) -> HttpResponse:
    principal = _principal(request)
    if request.method != "POST":
        return _list_page(request, principal)
    if not principal.has_scope("incidents:write"):
        raise Http404("this role cannot open incidents")

    def create(**fields: Any) -> tuple[Incident, DiagnosisTask]:
        return services.incident_create(
            tenant=principal.tenant, user=request.user, principal=principal, **fields
        )

    form = IncidentForm(request.POST, tenant=principal.tenant)
    return _create_and_redirect(request, principal, form, create)


@login_required
@require_POST
def incident_demo(request: HtmxHttpRequest) -> HttpResponse:
    """Open the incident of the chosen demo environment's scenario and go to it."""
    principal = _principal(request)
    if not principal.has_scope("incidents:write"):
        raise Http404("this role cannot open incidents")

    def create(*, environment: str) -> tuple[Incident, DiagnosisTask]:
        return services.demo_incident_create(
            tenant=principal.tenant,
            user=request.user,
            principal=principal,
            environment=environment,
        )

    form = DemoIncidentForm(request.POST, tenant=principal.tenant)
    return _create_and_redirect(request, principal, form, create)


@login_required
@require_GET
def incident_detail(request: HtmxHttpRequest, incident_id: str) -> HttpResponse:
    principal = _principal(request)
    incident = selectors.incident_get(tenant=principal.tenant, incident_id=incident_id)
    if incident is None:
        raise Http404("no such incident")
    context = _panel_context(principal, incident)
    if request.htmx:
        return render(request, "diagnosis/incident_detail.html#panel", context)
    task = context["task"]
    events = (
        list(selectors.diagnosis_events_after(task_id=task.id, after_seq=0))
        if task
        else []
    )
    # The stream resumes after the last event rendered, not after task.last_seq: the task was
    # read first, so events appended since are in this list and must not be streamed again.
    context["events"] = events
    context["events_last_seq"] = events[-1].seq if events else 0
    return render(request, "diagnosis/incident_detail.html", context)


@login_required
@require_POST
def incident_cancel(request: HttpRequest, incident_id: str) -> HttpResponse:
    principal = _principal(request)
    incident = selectors.incident_get(tenant=principal.tenant, incident_id=incident_id)
    if incident is None or not principal.has_scope("tasks:cancel"):
        raise Http404("no such incident")
    task = selectors.incident_active_task(incident=incident)
    if task is not None:
        with suppress(TaskFinished):  # it ended meanwhile; the panel shows how
            services.diagnosis_cancel(task=task)
    return render(
        request,
        "diagnosis/incident_detail.html#panel",
        _panel_context(principal, incident),
    )


@login_required
@require_POST
def incident_rerun(request: HttpRequest, incident_id: str) -> HttpResponse:
    principal = _principal(request)
    incident = selectors.incident_get(tenant=principal.tenant, incident_id=incident_id)
    if incident is None or not principal.has_scope("incidents:write"):
        raise Http404("no such incident")
    latest = selectors.incident_tasks(incident=incident).first()
    # A diagnosis already runs (the page shows it), or the environment was withdrawn from the
    # tenant (the page keeps showing the last run; the API says why).
    with suppress(ActiveTaskExists, ValidationFailed):
        services.diagnosis_start(
            incident=incident,
            user=request.user,
            principal=principal,
            plan=latest.plan if latest else "default",
            plan_args=latest.plan_args if latest else {},
        )
    return HttpResponseClientRedirect(
        reverse("diagnosis:incident-detail", args=[incident.id])
    )


@login_required
@require_POST
def approval_decide(request: HttpRequest, approval_id: str) -> HttpResponse:
    principal = _principal(request)
    approval = selectors.approval_get(tenant=principal.tenant, approval_id=approval_id)
    if approval is None:
        raise Http404("no such approval")
    if not principal.has_scope("approvals:decide"):
        raise PermissionDenied("this role cannot decide approvals")
    form = DecisionForm(request.POST)
    if form.is_valid():
        # None when it was decided, expired or cancelled meanwhile: the panel shows which.
        approvals.approval_decide(
            approval=approval,
            user=request.user,
            approve=form.cleaned_data["decision"] == "approve",
            reason=form.cleaned_data["reason"],
        )
    context = _panel_context(principal, approval.task.incident)
    return render(request, "diagnosis/incident_detail.html#panel", context)
