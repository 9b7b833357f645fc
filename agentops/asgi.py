"""ASGI entry point: Django for every HTTP path, with Channels' router in front.

get_asgi_application() runs first so the app registry is ready before anything imports models.
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "agentops.settings")
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter  # noqa: E402

application = ProtocolTypeRouter({"http": django_asgi_app})
