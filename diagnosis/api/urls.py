"""Routes of the JSON API under /api/. `/api/tasks/<id>/events` (SSE) is routed in agentops/asgi.py."""

from django.urls import path

from diagnosis.api import coordination, views

app_name = "api"

# Ids are matched as strings so that a malformed UUID is a JSON 404 from the view, not Django's page.
urlpatterns = [
    path("incidents", views.incidents, name="incidents"),
    # Before incidents/<id>, which would take "demo" for an id.
    path("incidents/demo", views.demo_incidents, name="incidents-demo"),
    path("environments", views.environments_view, name="environments"),
    path("incidents/<str:incident_id>", views.incident, name="incident"),
    path(
        "incidents/<str:incident_id>/diagnoses",
        views.incident_diagnoses,
        name="incident-diagnoses",
    ),
    path(
        "incidents/<str:incident_id>/cancel",
        views.incident_cancel_view,
        name="incident-cancel",
    ),
    path(
        "incidents/<str:incident_id>/status",
        coordination.status_view,
        name="incident-status",
    ),
    path(
        "incidents/<str:incident_id>/severity",
        coordination.severity_view,
        name="incident-severity",
    ),
    path(
        "incidents/<str:incident_id>/owner",
        coordination.owner_view,
        name="incident-owner",
    ),
    path(
        "incidents/<str:incident_id>/notes",
        coordination.notes_view,
        name="incident-notes",
    ),
    path(
        "incidents/<str:incident_id>/timeline",
        coordination.timeline_view,
        name="incident-timeline",
    ),
    path("tasks/<str:task_id>", views.task, name="task"),
    path("tasks/<str:task_id>/cancel", views.task_cancel_view, name="task-cancel"),
    path("tasks/<str:task_id>/trace", views.task_trace_view, name="task-trace"),
    path(
        "tasks/<str:task_id>/spans/<str:span_id>",
        views.task_span_view,
        name="task-span",
    ),
    path("tasks/<str:task_id>/report.md", views.task_report_view, name="task-report"),
    path(
        "approvals/<str:approval_id>/decision",
        views.approval_decision_view,
        name="approval-decision",
    ),
    path("alerts/alertmanager", views.alertmanager_view, name="alerts-alertmanager"),
    path("alerts/pagerduty", views.pagerduty_view, name="alerts-pagerduty"),
    path("openapi.json", views.openapi_document, name="openapi"),
]
