"""The one rule for "the database is unreachable": which errors mean it, and the answer's delay.

A lost or refused PostgreSQL connection (psycopg's OperationalError or InterfaceError, wrapped by
Django's) at connect or mid-request, in a view, in authentication or the session lookup, or in a
middleware, is an outage, not a bug: handler500 (diagnosis.api.views.server_error) answers it
503 + Retry-After, as /readyz does, so clients and proxies can tell the two apart.
"""

import sys

from django.conf import settings

# The errors of a lost or refused connection: db_retry owns that list (it retries them).
from diagnosis.db_retry import RETRYABLE as UNAVAILABLE


def retry_after() -> int:
    """Seconds a client should wait before retrying (DATABASE_UNAVAILABLE_RETRY_AFTER)."""
    return int(getattr(settings, "DATABASE_UNAVAILABLE_RETRY_AFTER", 5))


def is_database_unavailable(exc: BaseException | None) -> bool:
    """True when `exc`, or an error it was raised from or during, is a lost connection."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, UNAVAILABLE):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


def handling_database_outage() -> bool:
    """True inside an `except` block (as handler500 runs) whose error is a database outage."""
    return is_database_unavailable(sys.exc_info()[1])
