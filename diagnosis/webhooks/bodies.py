"""The two bodies a notification is sent as, and the signature of every request.

Signature (like Slack's and Stripe's): the hex HMAC-SHA256, keyed by the target's secret, of
`v1:{timestamp}:{body}`, sent as `X-AgentOps-Signature: v1=<hex>` with the Unix timestamp in
`X-AgentOps-Timestamp`. A receiver recomputes it over the raw body and refuses a timestamp
older than a few minutes (a replay); `signature_is_valid` is that check.
"""

import hashlib
import hmac
import json
import time
from collections.abc import Mapping
from typing import Any

from diagnosis.models import WebhookFormat

SIGNATURE_HEADER = "X-AgentOps-Signature"
TIMESTAMP_HEADER = "X-AgentOps-Timestamp"
VERSION = "v1"
TOLERANCE_SECONDS = 300

_HEADLINES = {
    "diagnosis_finished": "Diagnosis {to}",
    "approval_waiting": "Approval waiting: {tool} on {target}",
    "status_changed": "Incident {status}",
}


def _slack_escape(text: str) -> str:
    # Slack's mrkdwn control characters (its "Escaping text" guide).
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def headline(payload: Mapping[str, Any]) -> str:
    """One line saying what happened ("Incident acknowledged by alice")."""
    detail = payload.get("detail") or {}
    template = _HEADLINES.get(str(payload.get("notice")), "{notice}")
    values = {
        "to": "",
        "tool": "",
        "target": "",
        "status": "",
        **{k: str(v) for k, v in detail.items()},
        "notice": str(payload.get("notice")),
    }
    text = template.format(**values).strip()
    if detail.get("by"):
        text += f" by {detail['by']}"
    return text


def slack_body(payload: Mapping[str, Any]) -> dict[str, Any]:
    """A Slack incoming-webhook body: `text` in mrkdwn, every value escaped."""
    incident = payload.get("incident") or {}
    link = incident.get("url") or ""
    title = _slack_escape(str(incident.get("title", "")))
    name = f"<{link}|{title}>" if link.startswith(("http://", "https://")) else title
    lines = [
        f"*{_slack_escape(headline(payload))}* · {name}",
        _slack_escape(
            f"{incident.get('service', '')} · {incident.get('severity', '')} · "
            f"{incident.get('status', '')}"
        ),
    ]
    if payload.get("summary"):
        lines.append(_slack_escape(str(payload["summary"])))
    return {"text": "\n".join(lines)}


def body_bytes(format: str, payload: Mapping[str, Any]) -> bytes:
    """The request body for a target of `format`."""
    data = slack_body(payload) if format == WebhookFormat.SLACK else dict(payload)
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()


def signature(secret: str, timestamp: int, body: bytes) -> str:
    """`v1=<hex HMAC-SHA256 of v1:{timestamp}:{body}>`."""
    message = f"{VERSION}:{timestamp}:".encode() + body
    digest = hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()
    return f"{VERSION}={digest}"


def signed_headers(
    secret: str, body: bytes, *, now: float | None = None
) -> dict[str, str]:
    """The headers of one request: content type, and with a secret the timestamp and signature."""
    headers = {"Content-Type": "application/json", "User-Agent": "AgentOps-Webhook/1"}
    if secret:
        timestamp = int(time.time() if now is None else now)
        headers[TIMESTAMP_HEADER] = str(timestamp)
        headers[SIGNATURE_HEADER] = signature(secret, timestamp, body)
    return headers


def signature_is_valid(
    secret: str,
    *,
    timestamp: str,
    body: bytes,
    received: str,
    now: float | None = None,
) -> bool:
    """A receiver's check: the signature matches and the timestamp is recent."""
    try:
        sent_at = int(timestamp)
    except ValueError:
        return False
    if abs((time.time() if now is None else now) - sent_at) > TOLERANCE_SECONDS:
        return False
    return hmac.compare_digest(signature(secret, sent_at, body), received)
