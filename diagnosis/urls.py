"""Routes of the pages."""

from django.urls import path

from diagnosis.pages import incident_run, oauth_views, steering_views, views

app_name = "diagnosis"

urlpatterns = [
    path("", views.incident_list, name="incident-list"),
    path("incidents/demo", views.incident_demo, name="incident-demo"),
    path("incidents/validate", views.incident_validate, name="incident-validate"),
    path(
        "incidents/<uuid:incident_id>/", views.incident_detail, name="incident-detail"
    ),
    path(
        "incidents/<uuid:incident_id>/cancel",
        views.incident_cancel,
        name="incident-cancel",
    ),
    path(
        "incidents/<uuid:incident_id>/rerun",
        views.incident_rerun,
        name="incident-rerun",
    ),
    path(
        "incidents/<uuid:incident_id>/status",
        incident_run.incident_status_post,
        name="incident-status",
    ),
    path(
        "incidents/<uuid:incident_id>/severity",
        incident_run.incident_severity_post,
        name="incident-severity",
    ),
    path(
        "incidents/<uuid:incident_id>/owner",
        incident_run.incident_owner_post,
        name="incident-owner",
    ),
    path(
        "incidents/<uuid:incident_id>/notes",
        incident_run.incident_note_post,
        name="incident-notes",
    ),
    path("tasks/<uuid:task_id>/parts", views.task_parts, name="task-parts"),
    path("tasks/<uuid:task_id>/steer", steering_views.task_steer, name="task-steer"),
    path(
        "incidents/<uuid:incident_id>/steer",
        steering_views.incident_steer,
        name="incident-steer",
    ),
    path("tasks/<uuid:task_id>/trace", views.task_trace, name="task-trace"),
    path(
        "tasks/<uuid:task_id>/spans/<str:span_id>/artifact",
        views.span_artifact,
        name="span-artifact",
    ),
    path("tasks/<uuid:task_id>/feedback", views.task_feedback, name="task-feedback"),
    path("operations/", views.operations, name="operations"),
    path(
        "operations/oauth/connect",
        oauth_views.oauth_connect_start,
        name="oauth-connect",
    ),
    path("oauth/callback", oauth_views.oauth_callback, name="oauth-callback"),
    path("tenant", views.tenant_switch, name="tenant-switch"),
    path(
        "approvals/<uuid:approval_id>/decide",
        views.approval_decide,
        name="approval-decide",
    ),
]
