"""The posts of the incident page's coordination forms (status, severity, owner, notes; issue
20 item 6). Thin: each calls diagnosis.coordination and answers the page's parts, or the
panel with the refusal (400), which the page's script swaps in as it swaps the parts."""

from collections.abc import Callable
from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from diagnosis import coordination, selectors
from diagnosis.exceptions import (
    CoordinationRefused,
    IncidentChanged,
    ValidationFailed,
)
from diagnosis.pages import views
from diagnosis.pages.incident_panels import WRITE_SCOPE, coordination_context


def _post(
    name: str, change: Callable[..., Any]
) -> Callable[[HttpRequest, str], HttpResponse]:
    @login_required
    @require_POST
    def view(request: HttpRequest, incident_id: str) -> HttpResponse:
        principal = views._principal(request)
        incident = selectors.incident_get(
            tenant=principal.tenant, incident_id=incident_id
        )
        if incident is None or not principal.has_scope(WRITE_SCOPE):
            raise Http404("no such incident")
        value: Any = request.POST.get(name, "")
        if name == "owner" and value == "":
            value = None  # "Unassign"
        try:
            change(incident=incident, principal=principal, **{name: value})
        except (ValidationFailed, CoordinationRefused, IncidentChanged) as exc:
            reason = (
                "; ".join(f"{field}: {why}" for field, why in exc.fields.items())
                if isinstance(exc, ValidationFailed | CoordinationRefused)
                else str(exc)
            )
            incident.refresh_from_db()
            latest = selectors.incident_tasks(incident=incident).first()
            context = {
                "incident": incident,
                # The seq the panel reflects: the page swaps in nothing older than it shows.
                "seq": latest.last_seq if latest is not None else 0,
                "coordination_error": reason,
                **coordination_context(principal=principal, incident=incident),
            }
            return render(request, "diagnosis/_coordination.html", context, status=400)
        url = reverse("diagnosis:incident-detail", args=[incident.pk])
        task = selectors.incident_tasks(incident=incident).first()
        if not request.headers.get("HX-Request") or task is None:
            return redirect(url)
        return views._parts(request, principal, task)

    return view


incident_status_post = _post("status", coordination.incident_status_change)
incident_severity_post = _post("severity", coordination.incident_severity_change)
incident_owner_post = _post("owner", coordination.incident_owner_set)
incident_note_post = _post("text", coordination.incident_note_add)
