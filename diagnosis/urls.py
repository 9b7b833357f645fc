"""Routes of the pages."""

from django.urls import path

from diagnosis import views

app_name = "diagnosis"

urlpatterns = [
    path("", views.incident_list, name="incident-list"),
    path("incidents/demo", views.incident_demo, name="incident-demo"),
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
        "approvals/<uuid:approval_id>/decide",
        views.approval_decide,
        name="approval-decide",
    ),
]
