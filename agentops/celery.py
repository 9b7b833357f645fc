"""The Celery app; settings come from Django's (CELERY_ prefix)."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "agentops.settings")

app = Celery("agentops")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
