"""Who is calling: a bearer token, else the session user; CSRF enforced for session writes only.

API views are `csrf_exempt` so that bearer clients (which carry no cookie and are not exposed to
cross-site forgery) can POST; a session caller gets the same check CsrfViewMiddleware would run.
A request that sends `Authorization` is judged by it alone: a bad token is a 401, never a
fallback to the session.
"""

from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import CsrfViewMiddleware

from diagnosis.api.errors import ApiError
from diagnosis.principals import (
    Principal,
    bearer_secret,
    principal_from_token,
    principal_from_user,
    role_scopes,
)

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})
_CHALLENGE = {"WWW-Authenticate": 'Bearer realm="agentops"'}


class _CsrfCheck(CsrfViewMiddleware):
    # Return the reason instead of rendering Django's HTML failure page (as DRF does).
    def _reject(self, request: HttpRequest, reason: str) -> str:
        return reason


def _no_response(
    request: HttpRequest,
) -> HttpResponse:  # pragma: no cover - never called
    raise AssertionError("the CSRF check never calls the view")


def _enforce_csrf(request: HttpRequest) -> None:
    check = _CsrfCheck(_no_response)
    check.process_request(request)
    # The view it checks is one without csrf_exempt, so the check runs.
    reason = check.process_view(request, _no_response, (), {})
    if reason:
        raise ApiError(403, f"CSRF check failed: {reason}", code="csrf_failed")


def authenticate(request: HttpRequest) -> Principal:
    """The principal of the request.

    Raises:
        ApiError: 401 without valid credentials; 403 for a session write failing CSRF or a
            logged-in user who belongs to no tenant.
    """
    header = request.headers.get("Authorization")
    if header is not None:
        secret = bearer_secret(header)
        principal = principal_from_token(secret) if secret else None
        if principal is None:
            raise ApiError(
                401,
                "invalid or revoked bearer token",
                code="unauthenticated",
                headers=_CHALLENGE,
            )
        return principal
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        raise ApiError(
            401,
            "authentication required: a session or an Authorization: Bearer token",
            code="unauthenticated",
            headers=_CHALLENGE,
        )
    if request.method not in SAFE_METHODS:
        _enforce_csrf(request)
    principal = principal_from_user(user, session=getattr(request, "session", None))
    if principal is None:
        raise ApiError(403, "the user belongs to no tenant", code="no_membership")
    return principal


def require_scope(principal: Principal, scope: str) -> None:
    """Raises ApiError 403 unless the principal holds `scope` (its role bounds its scopes)."""
    if principal.has_scope(scope):
        return
    if scope not in role_scopes(principal.role):
        message = f"role {principal.role} does not allow {scope}"
    else:
        message = f"missing scope {scope}"
    raise ApiError(403, message, code="forbidden", required_scope=scope)
