"""The incidents list of the pages: filters (state of the latest diagnosis, service, severity,
mine, environment), a search over title, service and symptoms, and keyset pages newest first."""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django.db.models import OuterRef, Q, QuerySet, Subquery

from diagnosis.api.errors import ApiError
from diagnosis.api.validation import decode_cursor, encode_cursor
from diagnosis.models import DiagnosisTask, Incident, Severity, Tenant
from diagnosis.selectors import incident_list
from diagnosis.states import ACTIVE, TaskState

PAGE_SIZE = 25
SEARCH_CHARS = 200


@dataclass(frozen=True)
class IncidentFilters:
    state: str = ""
    service: str = ""
    severity: str = ""
    environment: str = ""
    q: str = ""
    is_mine: bool = False

    @classmethod
    def from_query(cls, query: Mapping[str, str]) -> "IncidentFilters":
        """Filters from the page's query; a value outside its choices is dropped."""
        state = str(query.get("state", ""))
        severity = str(query.get("severity", ""))
        return cls(
            state=state if state in TaskState.values else "",
            service=str(query.get("service", "")).strip()[:100],
            severity=severity if severity in Severity.values else "",
            environment=str(query.get("environment", "")).strip()[:64],
            q=str(query.get("q", "")).strip()[:SEARCH_CHARS],
            is_mine=query.get("mine") in ("1", "on", "true"),
        )

    def query(self, **extra: str) -> str:
        """The query string of these filters (plus `extra`), for links that keep them."""
        values = {
            "state": self.state,
            "service": self.service,
            "severity": self.severity,
            "environment": self.environment,
            "q": self.q,
            "mine": "1" if self.is_mine else "",
            **extra,
        }
        return urlencode({k: v for k, v in values.items() if v})

    @property
    def is_active(self) -> bool:
        return bool(self.query())


@dataclass(frozen=True)
class IncidentPage:
    incidents: list[Incident]  # each with latest_state / latest_task_id annotated
    next_cursor: str | None

    @property
    def has_active(self) -> bool:
        """Whether a diagnosis on this page still runs (the page then refreshes its badges)."""
        return any(getattr(i, "latest_state", None) in ACTIVE for i in self.incidents)


def _latest_tasks(incidents: QuerySet[Incident]) -> QuerySet[Incident]:
    latest = DiagnosisTask.objects.filter(incident=OuterRef("pk")).order_by(
        "-created_at", "-id"
    )
    return incidents.annotate(
        latest_state=Subquery(latest.values("state")[:1]),
        latest_task_id=Subquery(latest.values("id")[:1]),
    )


def incident_page(
    *,
    tenant: Tenant,
    user: Any,
    filters: IncidentFilters,
    cursor: str = "",
    size: int = PAGE_SIZE,
) -> IncidentPage:
    """One page of the tenant's incidents matching `filters`, after `cursor` (newest first).

    A cursor this list did not make starts from the first page.
    """
    rows = _latest_tasks(incident_list(tenant=tenant))
    if filters.state:
        rows = rows.filter(Q(latest_state=filters.state))  # the annotation
    if filters.service:
        rows = rows.filter(service__iexact=filters.service)
    if filters.severity:
        rows = rows.filter(severity=filters.severity)
    if filters.environment:
        rows = rows.filter(environment=filters.environment)
    if filters.is_mine:
        rows = (
            rows.filter(created_by=user) if getattr(user, "pk", None) else rows.none()
        )
    if filters.q:
        rows = rows.filter(
            Q(title__icontains=filters.q)
            | Q(service__icontains=filters.q)
            | Q(symptoms__icontains=filters.q)
        )
    if cursor:
        try:
            created_at, pk = decode_cursor(cursor)
        except ApiError:
            pass
        else:
            # Keyset: strictly after the cursor's row in (-created_at, -id) order.
            rows = rows.filter(
                Q(created_at__lt=created_at) | Q(created_at=created_at, pk__lt=pk)
            )
    page = list(rows[: size + 1])
    more = len(page) > size
    page = page[:size]
    return IncidentPage(
        incidents=page,
        next_cursor=encode_cursor(page[-1].created_at, page[-1].pk) if more else None,
    )


def service_choices(*, tenant: Tenant) -> list[str]:
    """The services the tenant's incidents name, for the filter (at most 200)."""
    return list(
        Incident.objects.filter(tenant=tenant)
        .order_by("service")
        .values_list("service", flat=True)
        .distinct()[:200]
    )
