"""htmx pages: incident list and creation, the live incident page, cancel, approvals. Thin:
form → service or selector → render; htmx requests get the fragment, others the full page."""

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
from diagnosis.exceptions import ActiveTaskExists, RateLimited, TaskFinished
from diagnosis.forms import DecisionForm, IncidentForm
from diagnosis.models import ApprovalStatus
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


@login_required
@require_http_methods(["GET", "POST"])
def incident_list(request: HtmxHttpRequest) -> HttpResponse:
    principal = _principal(request)
    form = IncidentForm(request.POST or None)
    if request.method == "POST":
        if not principal.has_scope("incidents:write"):
            raise Http404("this role cannot open incidents")
        retry_after = None
        if form.is_valid():
            try:
                incident, _task = services.incident_create(
                    tenant=principal.tenant, user=request.user, **form.cleaned_data
                )
            except RateLimited as exc:
                form.add_error(None, str(exc))
                retry_after = exc.retry_after
            else:
                url = reverse("diagnosis:incident-detail", args=[incident.id])
                return (
                    HttpResponseClientRedirect(url) if request.htmx else redirect(url)
                )
        if request.htmx or retry_after is not None:
            response = render(
                request,
                "diagnosis/incident_list.html"
                + ("#new-incident" if request.htmx else ""),
                {"form": form},
                status=400 if retry_after is None else 429,
            )
            if retry_after is not None:
                response["Retry-After"] = str(retry_after)
            return response
    incidents = selectors.incident_list(tenant=principal.tenant).prefetch_related(
        "tasks"
    )[:100]
    return render(
        request, "diagnosis/incident_list.html", {"form": form, "incidents": incidents}
    )


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
    with suppress(ActiveTaskExists):  # a diagnosis already runs; the page shows it
        services.diagnosis_start(
            incident=incident,
            user=request.user,
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
