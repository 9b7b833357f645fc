"""One attempt at a delivery, and the delivery log (the operations page).

The Celery task (diagnosis.tasks.webhook_deliver) calls `webhook_attempt` and, when it says
so, retries after `retry_in` seconds: t_n = min(BACKOFF_FIRST_S · 2ⁿ, BACKOFF_MAX_S), up to
MAX_ATTEMPTS attempts in all. A 2xx answer delivers; anything else (a refused connection, a
timeout, another status) is recorded by exception name or status code, never by URL, and
retried. What is recorded never holds the target's URL or secret.
"""

import logging
from dataclasses import dataclass

import httpx
from django.db.models import F, QuerySet
from django.utils import timezone

from diagnosis.models import Tenant, WebhookDelivery, WebhookDeliveryStatus
from diagnosis.webhooks import bodies

logger = logging.getLogger(__name__)

MAX_ATTEMPTS = 5
BACKOFF_FIRST_S = 2.0
BACKOFF_MAX_S = 300.0
TIMEOUT_S = 5.0
_FINISHED = (WebhookDeliveryStatus.DELIVERED, WebhookDeliveryStatus.FAILED)


@dataclass(frozen=True)
class Attempt:
    status: str  # the delivery's status after it
    retry_in: float | None  # seconds until the next attempt; None when there is none


def backoff(attempts: int) -> float:
    """Seconds before the attempt after `attempts` failed ones."""
    return min(BACKOFF_FIRST_S * 2.0 ** max(0, attempts - 1), BACKOFF_MAX_S)


def _post(url: str, body: bytes, headers: dict[str, str]) -> tuple[int | None, str]:
    """(status code, error) of one POST; the error names no URL.

    Through the transport, not a Client: httpx's Client logs every request's full URL at
    INFO, and a Slack webhook URL is a credential. Redirects are not followed.
    """
    try:
        request = httpx.Request("POST", url, content=body, headers=headers)
        request.extensions["timeout"] = httpx.Timeout(TIMEOUT_S).as_dict()
        with httpx.HTTPTransport() as transport:
            response = transport.handle_request(request)
            response.close()
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        return None, type(exc).__name__
    if 200 <= response.status_code < 300:
        return response.status_code, ""
    return response.status_code, f"HTTP {response.status_code}"


def webhook_attempt(*, delivery_id: str) -> Attempt:
    """Send a delivery once and record how it went (module docstring); a finished one is left."""
    delivery = (
        WebhookDelivery.objects.select_related("target").filter(pk=delivery_id).first()
    )
    if delivery is None or delivery.status in _FINISHED:
        return Attempt(delivery.status if delivery else "missing", None)
    target = delivery.target
    body = bodies.body_bytes(target.format, delivery.payload)
    code, error = _post(target.url, body, bodies.signed_headers(target.secret, body))
    now = timezone.now()
    attempts = delivery.attempts + 1
    if not error:
        status, retry_in = WebhookDeliveryStatus.DELIVERED, None
    elif attempts >= MAX_ATTEMPTS or not target.is_enabled:
        status, retry_in = WebhookDeliveryStatus.FAILED, None
    else:
        status, retry_in = WebhookDeliveryStatus.RETRYING, backoff(attempts)
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        status=status,
        attempts=F("attempts") + 1,
        last_status_code=code,
        last_error=error,
        last_attempt_at=now,
        delivered_at=now if status == WebhookDeliveryStatus.DELIVERED else None,
    )
    if error:
        logger.warning(
            "webhook delivery %s to target %r: attempt %d failed (%s)",
            delivery.pk,
            target.name,
            attempts,
            error,
        )
    return Attempt(status, retry_in)


def recent_deliveries(*, tenant: Tenant, limit: int = 20) -> QuerySet[WebhookDelivery]:
    """The tenant's latest deliveries, newest first, with their targets."""
    return (
        WebhookDelivery.objects.filter(tenant=tenant)
        .select_related("target")
        .order_by("-created_at")[:limit]
    )
