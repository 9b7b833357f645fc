"""The steering forms of the investigation page (issue 20 item 9): a note or an excluded hypothesis
for the running diagnosis, or a re-run with a hypothesis excluded, a corrected service or
environment. Thin: the rules are diagnosis.steering's."""

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_POST
from django_htmx.http import HttpResponseClientRedirect

from diagnosis import selectors, steering
from diagnosis.exceptions import ActiveTaskExists, TaskFinished, ValidationFailed
from diagnosis.pages.views import _investigation_context, _parts, _principal


def _fragment(
    request: HttpRequest, task_id: object, *, error: str, status: int
) -> HttpResponse:
    principal = _principal(request)
    task = selectors.task_get(tenant=principal.tenant, task_id=str(task_id))
    if task is None:
        raise Http404("no such diagnosis")
    context = _investigation_context(request, principal, task.incident, task)
    context["steering_error"] = error
    return render(request, "diagnosis/_steering.html", context, status=status)


@login_required
@require_POST
def task_steer(request: HttpRequest, task_id: str) -> HttpResponse:
    """Add a note (or mark a hypothesis wrong) on a running diagnosis; answer the parts."""
    principal = _principal(request)
    task = selectors.task_get(tenant=principal.tenant, task_id=task_id)
    if task is None or not principal.has_scope("incidents:write"):
        raise Http404("no such diagnosis")
    try:
        if request.POST.get("exclude"):
            steering.steering_exclude_add(
                task=task, user=request.user, hypothesis=request.POST["exclude"]
            )
        else:
            steering.steering_note_add(
                task=task, user=request.user, note=request.POST.get("note")
            )
    except ValidationFailed as exc:
        return _fragment(
            request, task.pk, error="; ".join(exc.fields.values()), status=400
        )
    except TaskFinished:
        return _fragment(
            request,
            task.pk,
            error="the diagnosis has ended: run it again with the note below",
            status=400,
        )
    return _parts(request, principal, task)


@login_required
@require_POST
def incident_steer(request: HttpRequest, incident_id: str) -> HttpResponse:
    """Run the incident again with a hypothesis excluded, a corrected service or environment."""
    principal = _principal(request)
    incident = selectors.incident_get(tenant=principal.tenant, incident_id=incident_id)
    if incident is None or not principal.has_scope("incidents:write"):
        raise Http404("no such incident")
    latest = selectors.incident_tasks(incident=incident).first()
    try:
        steering.steering_rerun(
            incident=incident,
            principal=principal,
            exclude=request.POST.get("exclude") or None,
            service=_changed(request.POST.get("service"), incident.service),
            environment=_changed(
                request.POST.get("environment"), latest.environment if latest else ""
            ),
            note=request.POST.get("note") or None,
        )
    except ValidationFailed as exc:
        if latest is None:
            raise Http404("no diagnosis to steer") from exc
        error = "; ".join(f"{k}: {v}" for k, v in exc.fields.items())
        return _fragment(request, latest.pk, error=error, status=400)
    except ActiveTaskExists as exc:
        if latest is None:
            raise Http404("no diagnosis to steer") from exc
        return _fragment(
            request,
            latest.pk,
            error="a diagnosis of this incident still runs: cancel it first, or add a note to it",
            status=400,
        )
    return HttpResponseClientRedirect(
        reverse("diagnosis:incident-detail", args=[incident.id])
    )


def _changed(value: str | None, current: str) -> str | None:
    value = (value or "").strip()
    return value if value and value != current else None
