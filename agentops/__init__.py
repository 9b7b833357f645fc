"""AgentOps project wiring. Importing it binds @shared_task to our Celery app."""

from agentops.celery import app as celery_app

__all__ = ["celery_app"]
