"""Small builders for test rows; each takes only what a test cares about."""

import itertools
from typing import Any

from django.contrib.auth import get_user_model
from django.utils import timezone

from diagnosis import approvals, lifecycle, services
from diagnosis.models import (
    ApiToken,
    Approval,
    DiagnosisTask,
    Incident,
    Membership,
    Role,
    Tenant,
    ToolCallSpan,
)
from diagnosis.principals import ALL_SCOPES, new_token_secret, token_hash

_counter = itertools.count(1)


def make_tenant(slug: str | None = None) -> Tenant:
    slug = slug or f"tenant-{next(_counter)}"
    return Tenant.objects.create(slug=slug, name=slug.title())


def make_member(
    tenant: Tenant,
    *,
    role: str = Role.RESPONDER,
    username: str | None = None,
    password: str = "pw-123456",
) -> Membership:
    username = username or f"user-{next(_counter)}"
    user = get_user_model().objects.create_user(username=username, password=password)
    return Membership.objects.create(user=user, tenant=tenant, role=role)


def make_token(membership: Membership, *, scopes: tuple[str, ...] = ALL_SCOPES) -> str:
    """Create a token and return its secret (shown once, as the command does)."""
    secret = new_token_secret()
    ApiToken.objects.create(
        membership=membership,
        prefix=secret[:12],
        token_hash=token_hash(secret),
        scopes=list(scopes),
    )
    return secret


def make_incident(
    tenant: Tenant,
    *,
    plan: str = "timed",
    plan_args: dict[str, Any] | None = None,
    **fields: Any,
) -> tuple[Incident, DiagnosisTask]:
    values = {
        "title": "checkout 502s",
        "service": "checkout",
        "severity": "sev2",
        "symptoms": "502 from gateway",
    }
    values.update(fields)
    return services.incident_create(
        tenant=tenant,
        user=None,
        plan=plan,
        plan_args=plan_args or {"steps": [0.01]},
        **values,
    )


def make_approval(
    tenant: Tenant, *, owner: str = "worker-1", **request: Any
) -> tuple[DiagnosisTask, Approval]:
    """A new incident's task parked on a pending approval."""
    _incident, task = make_incident(tenant)
    approval = park_on_approval(task, owner=owner, **request)
    return task, approval


def park_on_approval(
    task: DiagnosisTask, *, owner: str = "worker-1", **request: Any
) -> Approval:
    """Park a queued task on a pending approval, as the engine leaves it (claimed, then parked)."""
    lifecycle.diagnosis_claim(task_id=task.id, owner=owner)
    values: dict[str, Any] = {
        "server": "actions",
        "tool": "restart_workload",
        "arguments_redacted": {"workload": "payments-gw", "token": "[REDACTED]"},
        "arguments_hash": "a" * 64,
        "replay_key": "actions:1:" + "a" * 16,
        "target": "payments-gw",
        "why": "connection leak confirmed",
        "idempotency_key": f"{task.incident_id}:restart_workload:payments-gw:1",
    }
    values.update(request)
    approval = approvals.approval_request(task_id=task.id, owner=owner, **values)
    task.refresh_from_db()
    return approval


def make_span(task: DiagnosisTask, **fields: Any) -> ToolCallSpan:
    """A finished-looking tool-call span of `task`; `fields` override the defaults."""
    values: dict[str, Any] = {
        "trace_id": "a" * 32,
        "span_id": "b" * 16,
        "agent": "logs",
        "server_name": "logs",
        "transport": "stdio",
        "tool_name": "search_logs",
        "started_at": timezone.now(),
        "result": {"lines": ["upstream timeout"]},
    }
    values.update(fields)
    return ToolCallSpan.objects.create(task=task, tenant=task.tenant, **values)
