"""What a webhook target may be, without Django: the registry file (diagnosis.registry, which
must not import Django) and the admin (diagnosis.webhooks.targets) check targets by these."""

from urllib.parse import urlsplit

URL_MAX = 2000

DIAGNOSIS_FINISHED = "diagnosis_finished"
APPROVAL_WAITING = "approval_waiting"
STATUS_CHANGED = "status_changed"
#: The notifications a target may ask for (diagnosis.webhooks.notices.NOTICE_OF).
NOTICE_KINDS = (DIAGNOSIS_FINISHED, APPROVAL_WAITING, STATUS_CHANGED)
#: diagnosis.models.WebhookFormat's values (a test checks they agree).
FORMATS = ("slack", "generic")


def url_error(url: object) -> str | None:
    """Why `url` cannot be a target (an absolute http(s) URL with a host), or None."""
    if not isinstance(url, str) or not url:
        return "must be an http or https URL"
    if len(url) > URL_MAX:
        return f"at most {URL_MAX} characters"
    try:
        parts = urlsplit(url)
        port = parts.port  # raises on a port that is not a number
    except ValueError:
        return "must be an http or https URL"
    del port
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "must be an http or https URL with a host"
    if any(c.isspace() for c in url):
        return "must not contain whitespace"
    return None
