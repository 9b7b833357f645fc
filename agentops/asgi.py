"""ASGI entry point: the SSE stream path on its own app, Django for every other HTTP path.

get_asgi_application() runs first so the app registry is ready before anything imports models.
/api/tasks/<id>/events bypasses Django's handler, which would pin a thread per open stream.
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "agentops.settings")
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.urls import path, re_path  # noqa: E402

from agentops import body_limit, daphne_forms  # noqa: E402
from diagnosis.streaming.consumer import EventStreamApp  # noqa: E402
from diagnosis.streaming.draining import install_shutdown_trigger  # noqa: E402

application = ProtocolTypeRouter(
    {
        # Bodies over the limit are refused before they are read (agentops.body_limit).
        "http": body_limit.BodyLimitMiddleware(
            # Channels' URLRouter takes Django's path()/re_path() around ASGI apps, as its docs
            # show; django-stubs types their view argument as a Django view only.
            URLRouter(
                [
                    path("api/tasks/<uuid:task_id>/events", EventStreamApp()),  # type: ignore[arg-type]
                    re_path(r"", django_asgi_app),  # type: ignore[arg-type]
                ]
            )
        )
    }
)
install_shutdown_trigger()
daphne_forms.install()
body_limit.install()
