"""The incident a Notification opens, mapped by the registry's `[alerts]` rules (AlertRules).
Pure: no ORM, no settings.
"""

from collections.abc import Mapping, Sequence
from typing import Any

from diagnosis.fields import DESCRIPTION_MAX, SERVICE_MAX, SYMPTOMS_MAX, TITLE_MAX
from diagnosis.intake.model import PAGERDUTY, RESOLVED, Notification, bounded
from diagnosis.registry import AlertRules


def cut(text: str, limit: int, *, one_line: bool = True) -> str:
    text = " ".join(text.split()) if one_line else text.strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def first(maps: Sequence[Mapping[str, str]], names: Sequence[str]) -> str:
    """The value of the first of `names` that any of `maps` has (names in priority order)."""
    for name in names:
        for values in maps:
            value = values.get(name, "").strip()
            if value:
                return value
    return ""


# The annotations that describe an alert, in priority order: the incident's description.
DESCRIPTION_ANNOTATIONS = ("description", "summary")


def common_labels(note: Notification) -> dict[str, str]:
    """The labels the incident keeps: the group's common labels (Alertmanager's commonLabels),
    else those every alert of the payload shares (a PagerDuty event's one alert: its own),
    bounded as an alert's are and without blank names or values."""
    shared: dict[str, str] = dict(note.labels)
    if not shared and note.alerts:
        shared = dict(note.alerts[0].labels)
        for alert in note.alerts[1:]:
            shared = {k: v for k, v in shared.items() if alert.labels.get(k) == v}
    return bounded({k: v for k, v in shared.items() if k.strip() and v.strip()})


def _symptom_lines(note: Notification, rules: AlertRules) -> list[str]:
    lines: list[str] = []
    for name in rules.symptom_annotations:
        value = note.annotations.get(name, "").strip()
        if value and value not in lines:
            lines.append(value)
    # Annotations that differ between alerts are not common: each firing alert says its own.
    for alert in sorted(note.alerts, key=lambda a: a.status != "firing"):
        for name in rules.symptom_annotations:
            value = alert.annotations.get(name, "").strip()
            if value and value not in lines:
                lines.append(value)
        if sum(len(line) + 1 for line in lines) > SYMPTOMS_MAX:
            break
    lines.extend(note.details)
    firing = sum(1 for a in note.alerts if a.status == "firing")
    if len(note.alerts) > 1 or note.sender_truncated:
        counts = f"{firing} of {len(note.alerts) + note.sender_truncated} alerts firing"
        if note.sender_truncated:
            counts += f" ({note.sender_truncated} left out of the payload)"
        lines.append(counts)
    return lines


def incident_fields(note: Notification, rules: AlertRules) -> dict[str, Any]:
    """Keyword arguments of services.incident_create for the group `note` opens.

    * service: the first of `service_labels` that has a value, in the common labels or else in
      an alert's (PagerDuty: in custom_details; then `component`, then `source`), else
      `default_service`;
    * severity: the most severe that `severity_label` values (PagerDuty: `payload.severity`)
      map to, else `default_severity`;
    * title: `alertname: <first symptom annotation>` (PagerDuty: the summary);
    * symptoms: the `symptom_annotations` values, common ones first, then each alert's own
      (PagerDuty: the summary and custom_details), at most SYMPTOMS_MAX characters;
    * description: the `description` annotation, else `summary` (common ones first; PagerDuty:
      the summary), at most DESCRIPTION_MAX characters;
    * labels: common_labels;
    * window: the earliest `startsAt` to, for a resolved group, the latest `endsAt`;
    * environment: `receivers[receiver]` (PagerDuty: `pagerduty_groups[payload.group]`),
      else None (the tenant's default).
    """
    label_maps = [note.labels, *(a.labels for a in note.alerts)]
    service = (
        first(label_maps, rules.service_labels)
        or next(iter(note.service_hints), "")
        or rules.default_service
    )
    raw_severities = (
        [note.severity]
        if note.severity
        else [m.get(rules.severity_label, "") for m in label_maps]
    )
    mapped = [s for s in map(rules.severity, raw_severities) if s is not None]
    severity = min(mapped) if mapped else rules.default_severity  # "sev1" < "sev2"
    annotation_maps = [note.annotations, *(a.annotations for a in note.alerts)]
    summary = first(annotation_maps, rules.symptom_annotations)
    alertname = first(label_maps, ("alertname",))
    title = note.title or (
        f"{alertname}: {summary}" if alertname and summary else alertname or summary
    )
    starts = [a.starts_at for a in note.alerts if a.starts_at is not None]
    ends = [a.ends_at for a in note.alerts if a.ends_at is not None]
    window_start = min(starts) if starts else None
    window_end = None
    if note.status == RESOLVED and ends:
        window_end = max(ends)
        if window_start is not None and window_end < window_start:
            window_end = None
    routes = rules.pagerduty_groups if note.source == PAGERDUTY else rules.receivers
    return {
        "title": cut(title or f"{note.source} alert {note.key}", TITLE_MAX),
        "service": cut(service, SERVICE_MAX),
        "severity": severity,
        "symptoms": cut(
            "\n".join(_symptom_lines(note, rules)), SYMPTOMS_MAX, one_line=False
        ),
        "description": cut(
            first(annotation_maps, DESCRIPTION_ANNOTATIONS),
            DESCRIPTION_MAX,
            one_line=False,
        ),
        "labels": common_labels(note),
        "window_start": window_start,
        "window_end": window_end,
        "environment": routes.get(note.route),
    }
