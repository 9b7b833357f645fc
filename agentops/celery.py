"""The Celery app; settings come from Django's (CELERY_ prefix)."""

import os

from celery import Celery

from diagnosis.engine import server_pool, shared_listeners
from diagnosis.observability import worker as observability_worker

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "agentops.settings")

app = Celery("agentops")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
# Django's LOGGING instead of Celery's, the worker's metrics exporter, task timings and the
# log context of each diagnosis run (Celery signals; nothing of Django is imported here).
observability_worker.install()
# Demo listener sets shared by the process's diagnoses are stopped when the worker shuts down.
shared_listeners.install()
# So are the MCP sessions the process's diagnoses share (after the borrowers gave them back).
server_pool.install()
