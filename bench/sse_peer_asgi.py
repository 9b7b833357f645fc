"""ASGI app of the peer: Django's handler serving django-eventstream's async view."""

import os

os.environ["DJANGO_SETTINGS_MODULE"] = "bench.sse_peer_settings"

from django.core.asgi import get_asgi_application

application = get_asgi_application()
