"""Who is calling: a user acting in one tenant with a role and scopes (session or bearer token)."""

import hashlib
import secrets
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.utils import timezone

from diagnosis.models import ApiToken, Membership, Role, Tenant

TOKEN_PREFIX = "aops_"
LAST_USED_GRANULARITY = timedelta(seconds=60)
# Scopes a session user holds; a token holds those it was created with.
ALL_SCOPES = (
    "incidents:read",
    "incidents:write",
    "tasks:read",
    "tasks:cancel",
    "approvals:decide",
)


@dataclass(frozen=True)
class Principal:
    user: Any
    tenant: Tenant
    role: str
    scopes: frozenset[str]
    token_id: Any = None

    def has_scope(self, scope: str) -> bool:
        return scope in self.scopes

    @property
    def scope_key(self) -> str:
        """The idempotency scope: keys of one caller never collide with another's."""
        return f"{self.tenant.pk}:{self.user.pk}"


def token_hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def new_token_secret() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def principal_from_token(secret: str) -> Principal | None:
    """The principal of a live bearer token, or None."""
    token = (
        ApiToken.objects.select_related("membership__tenant", "membership__user")
        .filter(
            token_hash=token_hash(secret),
            revoked_at__isnull=True,
            membership__user__is_active=True,
        )
        .first()
    )
    if token is None:
        return None
    now = timezone.now()
    # Every write is a commit, and every SSE reconnect authenticates: record use once a minute.
    if token.last_used_at is None or now - token.last_used_at > LAST_USED_GRANULARITY:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    membership = token.membership
    return Principal(
        user=membership.user,
        tenant=membership.tenant,
        role=membership.role,
        scopes=frozenset(token.scopes or ()),  # an empty list grants nothing
        token_id=token.pk,
    )


def principal_from_user(user: Any) -> Principal | None:
    """The principal of a logged-in user: their first membership (one tenant per user in the UI)."""
    if not getattr(user, "is_authenticated", False) or not user.is_active:
        return None
    membership = (
        Membership.objects.select_related("tenant")
        .filter(user=user)
        .order_by("created_at")
        .first()
    )
    if membership is None:
        return None
    scopes = set(ALL_SCOPES)
    if membership.role == Role.VIEWER:
        scopes = {s for s in scopes if s.endswith(":read")}
    return Principal(
        user=user,
        tenant=membership.tenant,
        role=membership.role,
        scopes=frozenset(scopes),
    )


def bearer_secret(authorization: str | None) -> str | None:
    """The secret of an `Authorization: Bearer …` header value, or None."""
    if not authorization:
        return None
    scheme, _, secret = authorization.partition(" ")
    if scheme.lower() != "bearer" or not secret.strip():
        return None
    return secret.strip()
