"""Settings for bench/sse.py: the project's settings plus django-eventstream (the Django peer).

The bench process and the peer's Daphne use these; our own Daphne runs agentops.settings.
"""

import os

from agentops.settings import *  # noqa: F403
from agentops.settings import INSTALLED_APPS

INSTALLED_APPS = [*INSTALLED_APPS, "django_eventstream"]
ROOT_URLCONF = "bench.sse_peer_urls"
# With model storage every open stream keeps a DB connection in its request thread (measured:
# 200 streams exhausted PostgreSQL's max_connections), so only the replay server turns it on.
if os.environ.get("BENCH_PEER_STORAGE") == "1":
    EVENTSTREAM_STORAGE_CLASS = "django_eventstream.storage.DjangoModelStorage"
# Cross-process delivery (the bench process publishes, Daphne serves): Redis pub/sub.
EVENTSTREAM_REDIS = {
    "host": "127.0.0.1",
    "port": int(os.environ.get("BENCH_REDIS_PORT", "6379")),
    "db": 0,
}
