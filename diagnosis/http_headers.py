"""The security headers of every response, for answers built outside Django's middleware.

Django's middleware (SecurityMiddleware, django-csp's CSPMiddleware, XFrameOptionsMiddleware)
sets them on Django's responses; the SSE app and the ASGI body-limit refusal take them from here,
so one policy (CONTENT_SECURITY_POLICY in settings) covers every answer.
"""

from csp.constants import HEADER as CSP_HEADER
from csp.utils import build_policy
from django.conf import settings


def security_headers() -> list[tuple[bytes, bytes]]:
    """CSP, nosniff, Referrer-Policy and frame denial, as ASGI header pairs."""
    headers = [(CSP_HEADER.lower().encode(), build_policy().encode())]
    if settings.SECURE_CONTENT_TYPE_NOSNIFF:
        headers.append((b"x-content-type-options", b"nosniff"))
    policy = settings.SECURE_REFERRER_POLICY
    if policy:
        # A list or tuple is joined, as SecurityMiddleware does.
        value = policy if isinstance(policy, str) else ",".join(policy)
        headers.append((b"referrer-policy", value.encode()))
    headers.append((b"x-frame-options", str(settings.X_FRAME_OPTIONS).encode()))
    return headers
