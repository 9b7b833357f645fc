"""One attempt at a delivery, and the delivery log (the operations page).

The Celery task (diagnosis.tasks.webhook_deliver) calls `webhook_attempt` and, when it says
so, retries after `retry_in` seconds: t_n = min(BACKOFF_FIRST_S · 2ⁿ, BACKOFF_MAX_S), up to
MAX_ATTEMPTS attempts in all. A 2xx answer delivers; anything else (a refused connection, a
timeout, another status) is recorded by exception name or status code, never by URL, and
retried. What is recorded never holds the target's URL or secret.

At most one attempt at a time: an attempt first claims its row (`in_flight_until`, for
IN_FLIGHT_S); a second message for the same delivery (the reaper's, or a redelivered one) finds
it claimed or finished and sends nothing. A registry target's URL and secret are read from the
worker's variables (`url_env`, `secret_env`) at each attempt; an unset one fails the attempt.

Recovery (the reaper, `deliveries_redispatch`): the rows are the outbox. A delivery whose
enqueue failed (the broker was down at commit, or at a retry) stays pending or retrying; one
due more than DIAGNOSIS_QUEUED_REDISPATCH_SECONDS ago and not in flight is enqueued again.
"""

import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta

import httpx
from django.conf import settings
from django.db import transaction
from django.db.models import F, Q, QuerySet
from django.utils import timezone

from diagnosis.models import (
    Tenant,
    WebhookDelivery,
    WebhookDeliveryStatus,
    WebhookTarget,
)
from diagnosis.webhooks import bodies
from diagnosis.webhooks.notices import deliveries_enqueue
from diagnosis.webhooks.rules import url_error

logger = logging.getLogger(__name__)

MAX_ATTEMPTS = 5
BACKOFF_FIRST_S = 2.0
BACKOFF_MAX_S = 300.0
TIMEOUT_S = 5.0
# Longer than one POST can take (connect, write, read: TIMEOUT_S each); a worker lost mid-attempt
# leaves the claim to lapse, and the reaper then sends again (at least once).
IN_FLIGHT_S = 60.0
_FINISHED = (WebhookDeliveryStatus.DELIVERED, WebhookDeliveryStatus.FAILED)
_UNSENT = (WebhookDeliveryStatus.PENDING, WebhookDeliveryStatus.RETRYING)


class TargetUnresolved(Exception):
    """A registry target's variable is unset or holds no usable URL; the message names the
    variable, never its value."""


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


def target_credentials(
    target: WebhookTarget, environ: Mapping[str, str] | None = None
) -> tuple[str, str]:
    """(URL, secret) of a target: its columns, or a registry target's variables read now.

    Raises:
        TargetUnresolved: a named variable is unset or empty, or its URL breaks url_error.
    """
    environ = os.environ if environ is None else environ
    url, secret = target.url, target.secret
    if target.url_env:
        url = environ.get(target.url_env, "").strip()
        if not url:
            raise TargetUnresolved(f"variable {target.url_env} (url_env) is unset")
        if url_error(url) is not None:
            raise TargetUnresolved(
                f"variable {target.url_env} (url_env) holds no http(s) URL"
            )
    if target.secret_env:
        secret = environ.get(target.secret_env, "").strip()
        if not secret:
            raise TargetUnresolved(
                f"variable {target.secret_env} (secret_env) is unset"
            )
    return url, secret


def _claim(delivery_id: str, now: datetime) -> bool:
    """Mark an unsent delivery in flight, unless an attempt already is (module docstring)."""
    return bool(
        WebhookDelivery.objects.filter(pk=delivery_id, status__in=_UNSENT)
        .filter(Q(in_flight_until__isnull=True) | Q(in_flight_until__lt=now))
        .update(in_flight_until=now + timedelta(seconds=IN_FLIGHT_S))
    )


def webhook_attempt(*, delivery_id: str) -> Attempt:
    """Send a delivery once and record how it went (module docstring); a finished one, or one
    another attempt holds, is left."""
    if not _claim(delivery_id, timezone.now()):
        status = (
            WebhookDelivery.objects.filter(pk=delivery_id)
            .values_list("status", flat=True)
            .first()
        )
        return Attempt(status or "missing", None)
    delivery = WebhookDelivery.objects.select_related("target").get(pk=delivery_id)
    target = delivery.target
    try:
        url, secret = target_credentials(target)
    except TargetUnresolved as exc:
        code, error = None, str(exc)
    else:
        body = bodies.body_bytes(target.format, delivery.payload)
        code, error = _post(url, body, bodies.signed_headers(secret, body))
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
        last_error=error[:300],
        last_attempt_at=now,
        delivered_at=now if status == WebhookDeliveryStatus.DELIVERED else None,
        next_attempt_at=now + timedelta(seconds=retry_in or 0),
        in_flight_until=None,
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


def deliveries_redispatch(*, now: datetime | None = None) -> int:
    """Enqueue again each unsent delivery due more than DIAGNOSIS_QUEUED_REDISPATCH_SECONDS ago
    and not in flight (module docstring); its due time moves to now, so the next sweep waits as
    long again. Returns how many were enqueued (after commit)."""
    now = now or timezone.now()
    stale_before = now - timedelta(seconds=settings.DIAGNOSIS_QUEUED_REDISPATCH_SECONDS)
    due = Q(status__in=_UNSENT, next_attempt_at__lt=stale_before) & (
        Q(in_flight_until__isnull=True) | Q(in_flight_until__lt=now)
    )
    with transaction.atomic():
        ids = [
            str(pk)
            for pk in WebhookDelivery.objects.select_for_update(skip_locked=True)
            .filter(due)
            .order_by("next_attempt_at")
            .values_list("pk", flat=True)[:500]
        ]
        if ids:
            WebhookDelivery.objects.filter(pk__in=ids).update(next_attempt_at=now)
            transaction.on_commit(lambda: deliveries_enqueue(ids))
    return len(ids)


def recent_deliveries(*, tenant: Tenant, limit: int = 20) -> QuerySet[WebhookDelivery]:
    """The tenant's latest deliveries, newest first, with their targets."""
    return (
        WebhookDelivery.objects.filter(tenant=tenant)
        .select_related("target")
        .order_by("-created_at")[:limit]
    )
