"""The runner's one retry policy for database calls: reconnect when PostgreSQL ended the session.

Django keeps a connection the server ended (pg_terminate_backend, a failover, a restart): every
later query on it raises. `call` closes it, so the next query opens a new one, and runs the
unit of work again after a short backoff. A unit whose COMMIT may have gone through before the
error names a `committed` probe, asked before each retry, so nothing is written twice.
"""

import contextlib
import logging
import time
from collections.abc import Callable
from typing import TypeVar

from django.db import DatabaseError, InterfaceError, OperationalError, connection

logger = logging.getLogger(__name__)

T = TypeVar("T")

# The errors of a lost or refused connection (psycopg's AdminShutdown, "the connection is
# closed", a failed connect, a serialization failure) that a new session can get past.
RETRYABLE = (OperationalError, InterfaceError)

# Seconds before each retry: about 4 s in all, well within a lease (renewed every lease/3).
BACKOFF = (0.05, 0.2, 0.5, 1.0, 2.0)


def call(
    unit: Callable[[], T],
    *,
    what: str,
    committed: Callable[[], T | None] | None = None,
) -> T:
    """Run `unit` on this thread's connection, reconnecting and retrying on a lost connection.

    `unit` must be safe to run again, or `committed` must tell, after an error, whether its
    write went through (returning what `unit` would have returned) or not (None). Inside an
    atomic block nothing is retried: the transaction is the caller's to roll back.

    Raises:
        OperationalError, InterfaceError: the database stayed away through every retry.
    """
    retries = 0
    while True:
        try:
            if retries and committed is not None:
                # The previous try may have failed after its COMMIT reached the server.
                done = committed()
                if done is not None:
                    return done
            return unit()
        except RETRYABLE as exc:
            if connection.in_atomic_block or retries == len(BACKOFF):
                raise
            delay = BACKOFF[retries]
            retries += 1
            logger.warning(
                "database error during %s (%s); reconnecting, try %d of %d in %.2fs",
                what,
                str(exc).strip() or type(exc).__name__,
                retries,
                len(BACKOFF),
                delay,
            )
            with contextlib.suppress(DatabaseError):
                connection.close()  # the next query opens a new session
            time.sleep(delay)
