"""htmx pages: incident list and creation, the investigation page and its fragments, cancel,
approvals, feedback, the trace view and the operations page. Thin: form → service or selector →
render; htmx requests get the fragment, others the full page."""

import json
from collections.abc import Callable
from contextlib import suppress
from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import (
    FileResponse,
    Http404,
    HttpRequest,
    HttpResponse,
    JsonResponse,
)
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect
from django_htmx.middleware import HtmxDetails

from diagnosis import (
    approvals,
    artifacts,
    call_labels,
    environments,
    feedback,
    oauth_connect,
    selectors,
    services,
    site_links,
)
from diagnosis.events import EventKind
from diagnosis.exceptions import (
    ActiveTaskExists,
    RateLimited,
    TaskFinished,
    ValidationFailed,
)
from diagnosis.fields import REASON_MAX
from diagnosis.models import ApprovalStatus, DiagnosisTask, Incident, Role, Severity
from diagnosis.pages import (
    alert_panel,
    answer,
    incident_browse,
    incident_panels,
    investigation,
    share,
    steering_panel,
    trace_view,
)
from diagnosis.pages import operations as ops
from diagnosis.pages.forms import (
    DecisionForm,
    DemoIncidentForm,
    FeedbackForm,
    IncidentForm,
    TenantSwitchForm,
)
from diagnosis.principals import ACTIVE_TENANT_KEY, Principal, principal_from_user
from diagnosis.states import TERMINAL, TaskState
from diagnosis.webhooks import delivery_log


class HtmxHttpRequest(HttpRequest):
    """What django-htmx's middleware adds to every request (its documented typing recipe)."""

    htmx: HtmxDetails


def _principal(request: HttpRequest) -> Principal:
    principal = principal_from_user(request.user, session=request.session)
    if principal is None:
        raise Http404("no tenant membership")
    return principal


def _investigation_context(
    request: HttpRequest,
    principal: Principal,
    incident: Incident,
    task: DiagnosisTask | None,
) -> dict[str, Any]:
    """What the investigation page and its fragments render: one snapshot of `task`."""
    tasks = list(selectors.incident_tasks(incident=incident))
    latest = tasks[0] if tasks else None
    context: dict[str, Any] = {
        "incident": incident,
        "task": task,
        "is_latest": task is not None and task == latest,
        # An earlier diagnosis's page: the people's changes land on the latest task's stream.
        "latest_task": latest,
        "other_tasks": [t for t in tasks if t != task],
        "can_decide": principal.has_scope("approvals:decide"),
        "can_rerun": principal.has_scope("incidents:write"),
        "can_give_feedback": principal.has_scope("incidents:write"),
        "alert_groups": alert_panel.alert_panel(incident=incident),
        # The coordination panel and the timeline (diagnosis.pages.incident_panels).
        **incident_panels.coordination_context(principal=principal, incident=incident),
    }
    if task is None:
        return context
    snapshot = investigation.investigation_snapshot(task=task)
    task = snapshot.task  # re-read after the events (investigation_snapshot says why)
    is_finished = task.state in TERMINAL
    given = feedback.feedback_of(task=task, user=principal.user)
    facts = share.ShareFacts(
        title=incident.title,
        service=incident.service,
        severity=incident.severity,
        environment=incident.environment,
        state_label=snapshot.status.state_label,
        incident_url=site_links.incident_page_url(request, incident.id),
        trace_url=site_links.trace_page_url(request, task.id),
    )
    task_approvals = [
        (approval, approvals.approval_status(approval=approval))
        for approval in approvals.task_approvals(task=task)
    ]
    the_answer = answer.build_answer(
        snapshot.verdict,
        title=incident.title,
        symptoms=incident.symptoms,
        service=incident.service,
    )
    decisive_span = (
        selectors.task_span_get(task=task, span_id=the_answer.decisive.span_id)
        if the_answer.decisive is not None
        else None
    )
    context.update(
        steering_panel.panel_context(
            task=task,
            events=snapshot.events,
            principal=principal,
            is_finished=is_finished,
        )
    )
    context.update(
        snapshot=snapshot,
        seq=snapshot.last_seq,
        status=snapshot.status,
        verdict=snapshot.verdict,
        groups=snapshot.groups,
        is_finished=is_finished,
        can_cancel=principal.has_scope("tasks:cancel")
        and not is_finished
        and task.state != TaskState.CANCELLING,
        # Pending approvals at the top; decided ones folded lower (#decided-approvals).
        approvals=[
            pair for pair in task_approvals if pair[1] == ApprovalStatus.PENDING
        ],
        decided_approvals=[
            pair for pair in task_approvals if pair[1] != ApprovalStatus.PENDING
        ],
        answer=the_answer,
        # What the decisive call asked (`describe pod … -n shop`), its link's text.
        decisive_label=call_labels.call_label(
            decisive_span.tool_name, decisive_span.arguments_redacted
        )
        if decisive_span is not None
        else "",
        pending=ApprovalStatus.PENDING,
        reason_max=REASON_MAX,  # the decision form's bound, as the API's
        share_slack=share.slack_summary(
            facts, snapshot.verdict, is_finished=is_finished
        ),
        share_markdown=share.markdown_summary(
            facts, snapshot.verdict, is_finished=is_finished
        ),
        feedback=given,
        # The saved answer is the form's starting point: a second answer changes it.
        feedback_form=FeedbackForm(
            initial={"verdict": given.verdict, "comment": given.comment}
            if given is not None
            else None
        ),
    )
    return context


def _parts(
    request: HttpRequest, principal: Principal, task: DiagnosisTask
) -> HttpResponse:
    """The fragments the page's script swaps in, each carrying the seq it reflects."""
    context = _investigation_context(request, principal, task.incident, task)
    return render(request, "diagnosis/incident_detail.html#parts", context)


def _incident_form(principal: Principal, data: Any = None) -> IncidentForm:
    return IncidentForm(
        data,
        tenant=principal.tenant,
        validate_url=reverse("diagnosis:incident-validate"),
    )


def _list_page(
    request: HtmxHttpRequest,
    principal: Principal,
    *,
    bound: dict[str, Any] | None = None,
    status: int = 200,
) -> HttpResponse:
    """The incident list with both forms; `bound` replaces one by the form that was posted.

    The list is filtered and paged by the query; an htmx GET aimed at the table (its own
    refresh while a diagnosis on it runs) gets the table alone.
    """
    filters = incident_browse.IncidentFilters.from_query(request.GET)
    cursor = request.GET.get("after", "")
    page = incident_browse.incident_page(
        tenant=principal.tenant, user=request.user, filters=filters, cursor=cursor
    )
    context = {
        "form": _incident_form(principal),
        "demo_form": DemoIncidentForm(tenant=principal.tenant),
        **(bound or {}),
        "can_create": principal.has_scope("incidents:write"),
        "can_operate": principal.role == Role.ADMIN,
        "page": page,
        "filters": filters,
        "cursor": cursor,
        "refresh_query": filters.query(after=cursor),
        "older_query": filters.query(after=page.next_cursor or ""),
        "states": TaskState.values,
        "severities": Severity.values,
        "services": incident_browse.service_choices(tenant=principal.tenant),
        "environment_names": [
            env.name for env in environments.environments_for(principal.tenant)
        ],
    }
    if request.htmx and request.htmx.target == "incident-table":
        return render(request, "diagnosis/incident_list.html#incident-table", context)
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

    return _create_and_redirect(
        request, principal, _incident_form(principal, request.POST), create
    )


@login_required
@require_POST
def incident_validate(request: HtmxHttpRequest) -> HttpResponse:
    """One field of the "Open an incident" form, checked as a create would check it.

    The form posts itself when a field changes (htmx names the field in HX-Trigger-Name; a
    plain post may say `field`); the answer is that field with its error, or none. Nothing
    is written.
    """
    principal = _principal(request)
    if not principal.has_scope("incidents:write"):
        raise Http404("this role cannot open incidents")
    form = _incident_form(principal, request.POST)
    name = (request.htmx.trigger_name if request.htmx else None) or request.POST.get(
        "field", ""
    )
    if name not in IncidentForm.FIELDS:
        return HttpResponse("no such field", status=400, content_type="text/plain")
    form.is_valid()
    return render(
        request, "diagnosis/incident_list.html#incident-field", {"field": form[name]}
    )


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
    """The investigation page of the incident's latest diagnosis (or `?task=` an earlier one)."""
    principal = _principal(request)
    incident = selectors.incident_get(tenant=principal.tenant, incident_id=incident_id)
    if incident is None:
        raise Http404("no such incident")
    task = selectors.incident_tasks(incident=incident).first()
    if request.GET.get("task"):
        task = selectors.task_get(tenant=principal.tenant, task_id=request.GET["task"])
        if task is None or task.incident_id != incident.id:
            raise Http404("no such diagnosis of this incident")
    context = _investigation_context(request, principal, incident, task)
    context["event_kinds"] = json.dumps(list(EventKind.values))
    context["span_labels"] = json.dumps(investigation.SPAN_STATE_LABELS)
    return render(request, "diagnosis/incident_detail.html", context)


@login_required
@require_GET
def task_parts(request: HttpRequest, task_id: str) -> HttpResponse:
    principal = _principal(request)
    task = selectors.task_get(tenant=principal.tenant, task_id=task_id)
    if task is None:
        raise Http404("no such diagnosis")
    return _parts(request, principal, task)


@login_required
@require_POST
def incident_cancel(request: HttpRequest, incident_id: str) -> HttpResponse:
    principal = _principal(request)
    incident = selectors.incident_get(tenant=principal.tenant, incident_id=incident_id)
    if incident is None or not principal.has_scope("tasks:cancel"):
        raise Http404("no such incident")
    task = selectors.incident_active_task(incident=incident)
    if task is not None:
        with suppress(TaskFinished):  # it ended meanwhile; the parts show how
            services.diagnosis_cancel(task=task)
    latest = task or selectors.incident_tasks(incident=incident).first()
    if latest is None:
        raise Http404("no diagnosis to cancel")
    return _parts(request, principal, latest)


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
        # None when it was decided, expired or cancelled meanwhile: the parts show which.
        approvals.approval_decide(
            approval=approval,
            user=request.user,
            approve=form.cleaned_data["decision"] == "approve",
            reason=form.cleaned_data["reason"],
        )
    return _parts(request, principal, approval.task)


@login_required
@require_GET
def task_trace(request: HttpRequest, task_id: str) -> HttpResponse:
    """The waterfall of a task's spans, filtered by the query, with one span's detail."""
    principal = _principal(request)
    task = selectors.task_get(tenant=principal.tenant, task_id=task_id)
    if task is None:
        raise Http404("no such diagnosis")
    spans = list(selectors.task_spans(task=task).select_related("approval"))
    filters = trace_view.Filters.from_query(request.GET)
    try:
        text = call_labels.clean_query(request.GET.get("q"))
    except call_labels.BadQuery as exc:
        return JsonResponse(
            {"error": "invalid input", "code": "invalid", "fields": {"q": str(exc)}},
            status=400,
        )
    shown = call_labels.search([s for s in spans if filters.keep(s)], text)
    # By span_id (the trace's anchors, what events and reports cite) or by row id (what
    # reports stored before evidence cited the OpenTelemetry id named): old links still work.
    wanted = request.GET.get("span")
    selected = next(
        (span for span in spans if wanted in (span.span_id, str(span.id))), None
    )
    query = request.GET.copy()
    query.pop("span", None)
    context = {
        "task": task,
        "incident": task.incident,
        "filters": filters,
        "filter_fields": [
            (name, values, getattr(filters, name))
            for name, values in trace_view.filter_choices(spans).items()
        ],
        "waterfall": trace_view.waterfall(spans, shown=shown, origin=task.started_at),
        "query": text,
        "search_limit": call_labels.SEARCH_LIMIT,
        "span_count": len(spans),
        "detail": trace_view.span_detail(selected) if selected else None,
        "filter_query": query.urlencode(),
    }
    return render(request, "diagnosis/trace.html", context)


@login_required
@require_GET
def span_artifact(request: HttpRequest, task_id: str, span_id: str) -> FileResponse:
    """Download the full, redacted result of a span that went to artifact storage.

    An attachment of JSON that no browser renders or sniffs (its bytes are tool output). 404
    for another tenant's task, a span not of this task, a span with its result inline, and an
    artifact that is gone or does not hash to what the span recorded.
    """
    principal = _principal(request)
    task = selectors.task_get(tenant=principal.tenant, task_id=task_id)
    if task is None:
        raise Http404("no such diagnosis")
    span = selectors.task_spans(task=task).filter(span_id=span_id).first()
    if span is None or not span.result_uri:
        raise Http404("no artifact for this span")
    try:
        file = artifacts.open_artifact(span.result_uri, sha256=span.result_hash or None)
    except artifacts.ArtifactError as exc:
        raise Http404("the artifact cannot be read") from exc
    response = FileResponse(
        file,
        as_attachment=True,
        filename=f"span-{span.span_id}.json",
        content_type="application/json",
    )
    response["X-Content-Type-Options"] = "nosniff"
    response["Cache-Control"] = "private, no-store"
    return response


@login_required
@require_POST
def task_feedback(request: HtmxHttpRequest, task_id: str) -> HttpResponse:
    """'Was this right?': record the person's verdict and answer the feedback fragment."""
    principal = _principal(request)
    task = selectors.task_get(tenant=principal.tenant, task_id=task_id)
    if task is None or not principal.has_scope("incidents:write"):
        raise Http404("no such diagnosis")
    form = FeedbackForm(request.POST)
    status = 200
    if form.is_valid():
        try:
            feedback.feedback_give(
                task=task,
                user=request.user,
                verdict=form.cleaned_data["verdict"],
                comment=form.cleaned_data["comment"],
            )
        except ValidationFailed as exc:
            for name, reason in exc.fields.items():
                form.add_error(name if name in form.fields else None, reason)
            status = 400
    else:
        status = 400
    if not request.htmx:
        url = reverse("diagnosis:incident-detail", args=[task.incident_id])
        return (
            redirect(f"{url}?task={task.id}")
            if status == 200
            else HttpResponse(status=400)
        )
    context = _investigation_context(request, principal, task.incident, task)
    if status != 200:
        context["feedback_form"] = form
    return render(
        request, "diagnosis/incident_detail.html#feedback", context, status=status
    )


@login_required
@require_GET
def operations(request: HttpRequest) -> HttpResponse:
    """Figures of the tenant's diagnoses and tool calls (the admin role's page)."""
    principal = _principal(request)
    if principal.role != Role.ADMIN:
        raise PermissionDenied("the operations page is for the admin role")
    window = request.GET.get("window", "hour")
    if window not in ops.WINDOWS:
        window = "hour"
    figures = ops.operations_figures(tenant=principal.tenant, window=window)
    context = {
        "figures": figures,
        "pooled": ops.pooled_servers(tenant=principal.tenant),
        "windows": list(ops.WINDOWS),
        "success_chart": ops.bar_chart(
            [
                (f"{t.server}.{t.tool}", t.success_percent, f"{t.success_percent} %")
                for t in figures.tools
            ]
        ),
        "latency_chart": ops.bar_chart(
            [
                (f"{t.server}.{t.tool}", t.p95_ms or 0.0, f"p95 {t.p95_ms or 0:.0f} ms")
                for t in figures.tools
            ]
        ),
        "layer_chart": ops.bar_chart(
            [(layer, float(n), str(n)) for layer, n in figures.error_layers]
        ),
        "state_chart": ops.bar_chart(
            [(state, float(n), str(n)) for state, n in figures.tasks_by_state]
        ),
        "feedback_chart": ops.bar_chart(
            [(verdict, float(n), str(n)) for verdict, n in figures.feedback.items()]
        ),
        "deliveries": delivery_log.delivery_log(tenant=principal.tenant),
        "oauth_servers": oauth_connect.oauth_servers(tenant=principal.tenant),
    }
    return render(request, "diagnosis/operations.html", context)


@login_required
@require_POST
def tenant_switch(request: HtmxHttpRequest) -> HttpResponse:
    """Act in another of the user's tenants from now on (the session remembers it).

    A tenant the user does not belong to is a 400: JSON for a client that asks for it, else a
    page naming the error. The answer goes to the incident list: what the page showed belongs to
    the tenant left.
    """
    form = TenantSwitchForm(request.POST, user=request.user)
    if not form.is_valid():
        fields = {
            name: " ".join(str(e) for e in errors)
            for name, errors in form.errors.items()
        }
        if "application/json" in request.headers.get("Accept", ""):
            return JsonResponse(
                {"error": "invalid input", "code": "invalid", "fields": fields},
                status=400,
            )
        return render(
            request, "diagnosis/tenant_switch_error.html", {"form": form}, status=400
        )
    request.session[ACTIVE_TENANT_KEY] = form.cleaned_data["tenant"]
    url = reverse("diagnosis:incident-list")
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)
