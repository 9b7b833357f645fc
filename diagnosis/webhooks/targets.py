"""A tenant's webhook targets: what makes one valid, and how it is named where people see it
(its name and host: the URL of a Slack webhook is itself a credential)."""

from collections.abc import Iterable
from urllib.parse import urlsplit

from diagnosis.exceptions import ValidationFailed
from diagnosis.models import Tenant, WebhookFormat, WebhookTarget
from diagnosis.webhooks.rules import NOTICE_KINDS, URL_MAX, url_error

__all__ = [
    "URL_MAX",
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
    """The host a target posts to: what pages show instead of its URL."""
    return urlsplit(target.url).hostname or ""
