"""Absolute links to the site's pages, for text that leaves it (the Markdown export, copied
summaries): settings.SITE_URL when set, else the origin of the request that asked."""

from django.conf import settings
from django.http import HttpRequest
from django.urls import reverse


def site_origin(request: HttpRequest) -> str:
    """The origin links start with: SITE_URL, else the request's scheme and host (checked
    against ALLOWED_HOSTS by get_host)."""
    configured: str = settings.SITE_URL
    return configured or f"{request.scheme}://{request.get_host()}"


def absolute_url(request: HttpRequest, path: str) -> str:
    """`path` (as reverse() returns it) on the site's origin."""
    return site_origin(request) + path


def trace_page_url(request: HttpRequest, task_id: object) -> str:
    """The absolute URL of a diagnosis's trace page (diagnosis:task-trace)."""
    return absolute_url(request, reverse("diagnosis:task-trace", args=[task_id]))


def incident_page_url(request: HttpRequest, incident_id: object) -> str:
    """The absolute URL of an incident's page (diagnosis:incident-detail)."""
    return absolute_url(
        request, reverse("diagnosis:incident-detail", args=[incident_id])
    )
