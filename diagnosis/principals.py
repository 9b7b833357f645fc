"""Who is calling: a user acting in one tenant with a role and scopes (session or bearer token).

The one owner of what a role may do: ROLE_SCOPES. A session holds its role's scopes; a token
holds the scopes it was created with that its role still allows (the role may have changed
since), so every check elsewhere is a scope check (`Principal.has_scope`).
"""

import contextlib
import hashlib
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.core.exceptions import ValidationError
from django.utils import timezone

from diagnosis.models import ApiToken, Membership, Role, Tenant

TOKEN_PREFIX = "aops_"
LAST_USED_GRANULARITY = timedelta(seconds=60)
ALL_SCOPES = (
    "incidents:read",
    "incidents:write",
    "tasks:read",
    "tasks:cancel",
    "approvals:decide",
    # POST /api/alerts/*: alerts open incidents (diagnosis.intake). Admin role only: a
    # monitoring system's token, minted for that alone.
    "alerts:write",
)
_READ = frozenset({"incidents:read", "tasks:read"})
_RESPOND = _READ | {"incidents:write", "tasks:cancel"}
ROLE_SCOPES: dict[str, frozenset[str]] = {
    Role.VIEWER: _READ,
    Role.RESPONDER: _RESPOND,
    Role.APPROVER: _RESPOND | {"approvals:decide"},
    Role.ADMIN: frozenset(ALL_SCOPES),
}


def role_scopes(role: str) -> frozenset[str]:
    """The scopes `role` allows; an unknown role allows none."""
    return ROLE_SCOPES.get(role, frozenset())


def scopes_beyond_role(role: str, scopes: Iterable[str]) -> list[str]:
    """Those of `scopes` that `role` does not allow, sorted (what create_api_token refuses)."""
    return sorted(set(scopes) - role_scopes(role))


@dataclass(frozen=True)
class Principal:
    user: Any
    tenant: Tenant
    role: str
    scopes: frozenset[str]
    token_id: Any = None
    token_prefix: str = ""  # ApiToken.prefix: names the token without revealing it

    def has_scope(self, scope: str) -> bool:
        return scope in self.scopes

    @property
    def label(self) -> str:
        """Who acts, as a task and its spans record it: "token:<prefix>" or "user:<username>"."""
        if self.token_id is not None:
            return f"token:{self.token_prefix}"
        return f"user:{self.user.get_username()}"

    @property
    def scope_key(self) -> str:
        """The idempotency scope: keys of one caller never collide with another's."""
        return f"{self.tenant.pk}:{self.user.pk}"


def token_hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def new_token_secret() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def _token_scopes(stored: Any) -> frozenset[str]:
    # The JSON column is written by create_api_token, but read it as untrusted all the same.
    if not isinstance(stored, list):
        return frozenset()
    return frozenset(s for s in stored if isinstance(s, str))


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
        # An empty list grants nothing; a scope the role does not allow is never effective.
        scopes=_token_scopes(token.scopes) & role_scopes(membership.role),
        token_id=token.pk,
        token_prefix=token.prefix,
    )


# The session key of the tenant a user in several chose (the pages' tenant switcher).
ACTIVE_TENANT_KEY = "agentops_active_tenant"


def user_memberships(user: Any) -> list[Membership]:
    """The user's memberships, oldest first (the first is the tenant a session starts in)."""
    return list(
        Membership.objects.select_related("tenant")
        .filter(user=user)
        .order_by("created_at", "pk")
    )


def principal_from_user(user: Any, *, session: Any = None) -> Principal | None:
    """The principal of a logged-in user in the session's active tenant (ACTIVE_TENANT_KEY).

    Without a choice, or with one the user no longer belongs to, their first membership.
    """
    if not getattr(user, "is_authenticated", False) or not user.is_active:
        return None
    memberships = Membership.objects.select_related("tenant").filter(user=user)
    chosen = session.get(ACTIVE_TENANT_KEY) if session is not None else None
    membership = None
    if isinstance(chosen, str) and chosen:
        with contextlib.suppress(ValidationError):
            membership = memberships.filter(tenant_id=chosen).first()
    if membership is None:
        membership = memberships.order_by("created_at", "pk").first()
    if membership is None:
        return None
    return Principal(
        user=user,
        tenant=membership.tenant,
        role=membership.role,
        scopes=role_scopes(membership.role),
    )


def bearer_secret(authorization: str | None) -> str | None:
    """The secret of an `Authorization: Bearer …` header value, or None."""
    if not authorization:
        return None
    scheme, _, secret = authorization.partition(" ")
    if scheme.lower() != "bearer" or not secret.strip():
        return None
    return secret.strip()
