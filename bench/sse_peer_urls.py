"""URLs of the peer: django-eventstream's view at /events/<channel>/ (no auth, one channel)."""

import django_eventstream
from django.urls import include, path

urlpatterns = [
    path(
        "events/<channel>/",
        include(django_eventstream.urls),
        {"format-channels": ["{channel}"]},
    ),
]
