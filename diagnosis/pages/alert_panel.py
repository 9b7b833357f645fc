"""The incident page's alerts panel: every alert of the groups that opened the incident
(Alertmanager, PagerDuty), as rows. Every value is the sender's (attacker-controlled): the
template escapes it, and only an http(s) URL becomes a link (`safe_url`).
"""

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from diagnosis import selectors
from diagnosis.models import AlertGroup, Incident

SOURCE_LABELS = {"alertmanager": "Alertmanager", "pagerduty": "PagerDuty"}


@dataclass(frozen=True)
class Link:
    href: str  # http(s) only; "" when the sender's URL is not one
    text: str


@dataclass(frozen=True)
class Annotation:
    name: str
    value: str
    href: (
        str  # the value when it is an http(s) URL (runbook_url, dashboard_url), else ""
    )


@dataclass(frozen=True)
class AlertRow:
    fingerprint: str
    status: str  # firing | resolved
    name: str  # alertname, else the summary
    labels: list[tuple[str, str]]
    annotations: list[Annotation]
    links: list[Link]
    starts_at: datetime | None
    ends_at: datetime | None
    first_seen: datetime | None
    last_seen: datetime | None
    receipts: int

    @property
    def is_firing(self) -> bool:
        return self.status == "firing"


@dataclass(frozen=True)
class AlertGroupPanel:
    id: str
    source: str
    source_label: str
    key: str
    status: str  # firing | acknowledged | resolved
    rows: list[AlertRow]  # firing first, then by start
    firing: int
    payloads: int
    dropped: int  # not kept: over MAX_GROUP_ALERTS, or left out by the sender
    first_payload_at: datetime
    last_payload_at: datetime


def safe_url(value: object) -> str:
    """`value` if it is an absolute http(s) URL a browser may follow, else ""."""
    if not isinstance(value, str):
        return ""
    url = value.strip()
    # No control characters or spaces: browsers strip some of them, which could turn a
    # harmless-looking string into another URL than the one checked here.
    if not url or any(ord(c) < 0x21 or c == "\x7f" for c in url):
        return ""
    try:
        parts = urlsplit(url)
    except ValueError:
        return ""
    return url if parts.scheme.lower() in ("http", "https") and parts.hostname else ""


def _time(value: object) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None


def _pairs(value: object) -> list[tuple[str, str]]:
    if not isinstance(value, Mapping):
        return []
    return sorted((str(k), str(v)) for k, v in value.items())


def _links(record: Mapping[str, Any]) -> list[Link]:
    links = []
    generator = record.get("generator_url")
    if isinstance(generator, str) and generator:
        href = safe_url(generator)
        # Alertmanager's generatorURL: the rule's expression in its Prometheus.
        text = f"Source ({urlsplit(href).netloc})" if href else generator
        links.append(Link(href=href, text=text))
    raw = record.get("links")
    for item in raw if isinstance(raw, list) else []:
        if isinstance(item, Mapping) and isinstance(item.get("href"), str):
            sent: str = item["href"]
            label = item.get("text")
            links.append(
                Link(
                    href=safe_url(sent),
                    text=label if isinstance(label, str) and label else sent,
                )
            )
    return links


def alert_row(
    fingerprint: str, record: Mapping[str, Any], group: AlertGroup
) -> AlertRow:
    """One stored alert (diagnosis.intake.model.Alert.record) as a row; records from before
    first/last seen were kept fall back on the group's payload times."""
    labels = record.get("labels")
    annotations = record.get("annotations")
    name = ""
    if isinstance(labels, Mapping):
        name = str(labels.get("alertname") or "")
    if not name and isinstance(annotations, Mapping):
        name = str(annotations.get("summary") or "")
    receipts = record.get("receipts")
    return AlertRow(
        fingerprint=fingerprint,
        status=str(record.get("status") or ""),
        name=name or fingerprint,
        labels=_pairs(labels),
        annotations=[
            Annotation(name=name, value=value, href=safe_url(value))
            for name, value in _pairs(annotations)
        ],
        links=_links(record),
        starts_at=_time(record.get("starts_at")),
        ends_at=_time(record.get("ends_at")),
        first_seen=_time(record.get("first_seen")) or group.first_payload_at,
        last_seen=_time(record.get("last_seen")) or group.last_payload_at,
        receipts=receipts if isinstance(receipts, int) and receipts > 0 else 1,
    )


def group_panel(group: AlertGroup) -> AlertGroupPanel:
    """One group's part of the panel: its alerts as rows, firing first, then oldest first."""
    alerts = group.alerts if isinstance(group.alerts, Mapping) else {}
    rows = [
        alert_row(str(fingerprint), record, group)
        for fingerprint, record in alerts.items()
        if isinstance(record, Mapping)
    ]
    rows.sort(
        key=lambda r: (
            not r.is_firing,
            r.starts_at.isoformat() if r.starts_at else "",
            r.fingerprint,
        )
    )
    return AlertGroupPanel(
        id=str(group.id),
        source=group.source,
        source_label=SOURCE_LABELS.get(group.source, group.source),
        key=group.key,
        status=group.status,
        rows=rows,
        firing=sum(r.is_firing for r in rows),
        payloads=group.payloads,
        dropped=group.dropped_alerts + group.sender_truncated_alerts,
        first_payload_at=group.first_payload_at,
        last_payload_at=group.last_payload_at,
    )


def alert_panel(*, incident: Incident) -> list[AlertGroupPanel]:
    """The alert groups of the incident, oldest first: empty for an incident opened by hand."""
    return [
        group_panel(group)
        for group in selectors.incident_alert_groups(incident=incident)
    ]
