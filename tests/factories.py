"""Small builders for test rows; each takes only what a test cares about."""

import itertools
from typing import Any

from django.contrib.auth import get_user_model

from diagnosis import services
from diagnosis.models import ApiToken, DiagnosisTask, Incident, Membership, Role, Tenant
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
