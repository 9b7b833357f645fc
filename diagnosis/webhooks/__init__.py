"""Outgoing notifications (issue 20 item 7): per-tenant webhook targets, the bodies and their
signature, the outbox the event append fills, and the delivery a Celery task retries."""
