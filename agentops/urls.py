"""URL routing: admin, the JSON API, the probes and /metrics, the pages. The SSE stream is routed in agentops/asgi.py."""

from django.contrib import admin
from django.urls import include, path

from diagnosis.api import probes
from diagnosis.observability import exposition

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("django.contrib.auth.urls")),
    path("api/", include("diagnosis.api.urls")),
    path("healthz", probes.healthz, name="healthz"),
    path("readyz", probes.readyz, name="readyz"),
    path("metrics", exposition.metrics_view, name="metrics"),
    path("", include("diagnosis.urls")),
]

handler404 = "diagnosis.api.views.page_not_found"
handler500 = "diagnosis.api.views.server_error"
