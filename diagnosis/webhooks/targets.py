"""A tenant's webhook targets: what makes one valid, how it is named where people see it
(its name and host: the URL of a Slack webhook is itself a credential), and the registry
file's targets kept in step with the file (`registry_targets_sync`).

Registry targets (`[webhooks.<name>]`, diagnosis.registry) are rows with `from_registry` set:
created or updated from the file, read-only in the admin, and disabled, never deleted, when the
file drops them (their deliveries stay in the log). Admin-made targets are never touched.
The reaper (beat, every DIAGNOSIS_REAPER_INTERVAL_SECONDS) and the admin's list sync them, once
per loaded registry in each process (`registry_targets_ensure`), outside any event's
transaction: a notification only reads the rows.
"""

import logging
import threading
from collections.abc import Iterable, Sequence
from urllib.parse import urlsplit

from django.db import transaction

from diagnosis import environments
from diagnosis.exceptions import ValidationFailed
from diagnosis.models import Tenant, WebhookFormat, WebhookTarget
from diagnosis.registry import Registry, WebhookEntry
from diagnosis.webhooks.rules import NOTICE_KINDS, URL_MAX, url_error

logger = logging.getLogger(__name__)

__all__ = [
    "URL_MAX",
    "registry_targets_ensure",
    "registry_targets_sync",
    "target_errors",
    "target_host",
    "url_error",
    "webhook_target_create",
]


def target_errors(
    *, name: object, url: object, format: object, notices: object
) -> dict[str, str]:
    """{field: reason} for a target's fields; empty when it is valid."""
    errors: dict[str, str] = {}
    if not isinstance(name, str) or not name.strip() or len(name) > 100:
        errors["name"] = "must be 1 to 100 characters"
    if (reason := url_error(url)) is not None:
        errors["url"] = reason
    if format not in WebhookFormat.values:
        errors["format"] = "must be one of " + ", ".join(WebhookFormat.values)
    if not isinstance(notices, list) or any(n not in NOTICE_KINDS for n in notices):
        errors["notices"] = "must be a list of " + ", ".join(NOTICE_KINDS)
    return errors


def webhook_target_create(
    *,
    tenant: Tenant,
    name: str,
    url: str,
    format: str = WebhookFormat.GENERIC,
    secret: str = "",
    notices: Iterable[str] = (),
) -> WebhookTarget:
    """Add a target to the tenant.

    Raises:
        ValidationFailed: a field target_errors refuses; nothing is written.
    """
    chosen = list(notices)
    errors = target_errors(name=name, url=url, format=format, notices=chosen)
    if len(secret) > 200:
        errors["secret"] = "at most 200 characters"
    if errors:
        raise ValidationFailed(errors)
    return WebhookTarget.objects.create(
        tenant=tenant,
        name=name.strip(),
        url=url,
        format=format,
        secret=secret,
        notices=chosen,
    )


def target_host(target: WebhookTarget) -> str:
    """The host a target posts to: what pages show instead of its URL (a registry target whose
    URL is in a variable: the variable's name)."""
    if target.url_env:
        return f"${target.url_env}"
    return urlsplit(target.url).hostname or ""


def registry_targets_sync(entries: Sequence[WebhookEntry]) -> dict[str, int]:
    """Bring the registry rows in step with `entries` (module docstring).

    Returns counts: "synced" (created or updated), "waiting" (the tenant does not exist yet),
    "disabled" (a registry row the file no longer has).
    """
    slugs = {entry.tenant for entry in entries}
    tenants = {t.slug: t for t in Tenant.objects.filter(slug__in=slugs)}
    kept: list[object] = []
    waiting = 0
    with transaction.atomic():
        for entry in entries:
            tenant = tenants.get(entry.tenant)
            if tenant is None:
                waiting += 1
                continue
            row, _created = WebhookTarget.objects.update_or_create(
                tenant=tenant,
                name=entry.name,
                from_registry=True,
                defaults={
                    "format": entry.format,
                    "url": entry.url or "",
                    "url_env": entry.url_env or "",
                    "secret": "",
                    "secret_env": entry.secret_env or "",
                    "notices": list(entry.notices),
                    "is_enabled": True,
                },
            )
            kept.append(row.pk)
        disabled = (
            WebhookTarget.objects.filter(from_registry=True, is_enabled=True)
            .exclude(pk__in=kept)
            .update(is_enabled=False)
        )
    if waiting:
        logger.warning(
            "%d registry webhook target(s) name a tenant that does not exist yet",
            waiting,
        )
    return {"synced": len(kept), "waiting": waiting, "disabled": disabled}


_synced_lock = threading.Lock()
_synced: Registry | None = None


def registry_targets_ensure() -> None:
    """Sync the loaded registry's targets once per process (again after a reload); never
    raises: a failed sync is logged and tried again at the next call."""
    global _synced
    try:
        current = environments.registry()
        if _synced is current:
            return
        with transaction.atomic():
            counts = registry_targets_sync(current.webhooks)
    except Exception:
        logger.warning("syncing the registry's webhook targets failed", exc_info=True)
        return
    # Remembered only when committed: the tenant may exist by the next call, and a sync
    # inside someone's transaction (a test's) may yet be rolled back.
    if not counts["waiting"] and not transaction.get_connection().in_atomic_block:
        with _synced_lock:
            _synced = current
