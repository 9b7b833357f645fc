"""The one retry policy for database writes and reads: run the unit again when PostgreSQL
ended the session, or rolled the transaction back to break a deadlock or a serialization
conflict.

* A lost session (pg_terminate_backend, a failover, a restart): Django keeps the connection
  the server ended and every later query on it raises. `call` closes it, so the next query
  opens a new one, and runs the unit again after a short backoff. A unit whose COMMIT may have
  gone through before the error names a `committed` probe, asked before each retry, so nothing
  is written twice.
* A transaction PostgreSQL aborted (SQLSTATE 40P01 deadlock_detected, 40001
  serialization_failure): the error ends it before COMMIT, so nothing of it was written and
  the session is fine; `call` and `atomic` run it again after a short jittered backoff (two
  victims of one conflict do not retry in step). The lock order that keeps deadlocks out in
  the first place is diagnosis.locks'.

Inside a caller's atomic block nothing is retried: the transaction is the caller's to roll
back, and the outermost `call` or `atomic` runs it again. A `call` inside another retries on
its own; the outer one does not repeat what the inner gave up.

An outage longer than the backoff raises to the caller, which ends the attempt as retryable
(`is_transient`), never as the task's failure. `connection_reset` gives a worker thread a
clean connection before each task.
"""

import contextlib
import logging
import random
import time
from collections.abc import Callable
from typing import TypeVar

from django.db import DatabaseError, InterfaceError, OperationalError, connection
from django.db import transaction as db_transaction

from diagnosis import failures

logger = logging.getLogger(__name__)

T = TypeVar("T")

# The errors of a lost or refused connection (psycopg's AdminShutdown, "the connection is
# closed", a failed connect) and of an aborted transaction (psycopg's DeadlockDetected and
# SerializationFailure are OperationalErrors too).
RETRYABLE = (OperationalError, InterfaceError)

# SQLSTATEs of a transaction PostgreSQL rolled back whole so that others could go on.
ROLLED_BACK = frozenset({"40P01", "40001"})

# Set on an error a retry loop gave up on, so a `call` around it does not retry it all again.
_EXHAUSTED = "_agentops_db_retry_exhausted"

# Seconds before each retry of a lost session: about 4 s in all, well within a lease
# (renewed every lease/3).
BACKOFF = (0.05, 0.2, 0.5, 1.0, 2.0)

# Seconds before each retry of an aborted transaction (each times 0.5 to 1.5): the other
# side of the conflict goes on at once, so it is usually gone by the first.
ROLLBACK_BACKOFF = (0.01, 0.05, 0.1, 0.25, 0.5)


def is_rolled_back(exc: BaseException) -> bool:
    """True for an error of a transaction PostgreSQL aborted (deadlock, serialization failure)."""
    seen: BaseException | None = exc
    while (
        seen is not None
    ):  # Django's error wraps psycopg's, which carries the SQLSTATE
        if getattr(seen, "sqlstate", None) in ROLLED_BACK:
            return True
        seen = seen.__cause__
    return False


def is_transient(exc: BaseException) -> bool:
    """Whether `exc` is a lost or refused connection or an aborted transaction, also inside an
    ExceptionGroup (every exception it holds is one): the attempt may be tried again, it did
    not fail."""
    found = failures.leaves(exc)
    return bool(found) and all(isinstance(leaf, RETRYABLE) for leaf in found)


def call(
    unit: Callable[[], T],
    *,
    what: str,
    committed: Callable[[], T | None] | None = None,
) -> T:
    """Run `unit` on this thread's connection, retrying on a lost connection or an aborted
    transaction.

    `unit` must be safe to run again, or `committed` must tell, after an error, whether its
    write went through (returning what `unit` would have returned) or not (None). Inside an
    atomic block nothing is retried: the transaction is the caller's to roll back.

    Raises:
        OperationalError, InterfaceError: the database stayed away, or kept aborting the
            transaction, through every retry.
    """
    return _retrying(unit, what=what, committed=committed, is_reconnecting=True)


def atomic(unit: Callable[[], T], *, what: str) -> T:
    """Run `unit` in one transaction, and run it whole again if PostgreSQL aborted it
    (deadlock, serialization failure), a bounded number of times.

    A lost connection is not retried: its COMMIT may have gone through, and only the caller
    knows whether running `unit` twice is harmless. Inside a caller's atomic block `unit` runs
    once, in a savepoint, and an abort is raised for the outermost retry to handle.

    Raises:
        OperationalError: the transaction was aborted on every try, or the connection was lost.
        InterfaceError: the connection was lost.
    """

    def in_transaction() -> T:
        with db_transaction.atomic():
            return unit()

    return _retrying(in_transaction, what=what, committed=None, is_reconnecting=False)


def _retrying(
    unit: Callable[[], T],
    *,
    what: str,
    committed: Callable[[], T | None] | None,
    is_reconnecting: bool,
) -> T:
    lost = aborted = 0
    while True:
        try:
            if lost and committed is not None:
                # The previous try may have failed after its COMMIT reached the server.
                done = committed()
                if done is not None:
                    return done
            return unit()
        except RETRYABLE as exc:
            if connection.in_atomic_block:
                raise
            if getattr(exc, _EXHAUSTED, False):
                raise  # an inner call gave up on it already
            if is_rolled_back(exc):
                if aborted == len(ROLLBACK_BACKOFF):
                    setattr(exc, _EXHAUSTED, True)
                    raise
                delay = ROLLBACK_BACKOFF[aborted] * random.uniform(0.5, 1.5)
                aborted += 1
                _log(
                    what, exc, "running it again", aborted, len(ROLLBACK_BACKOFF), delay
                )
            else:
                if not is_reconnecting or lost == len(BACKOFF):
                    if is_reconnecting:
                        setattr(exc, _EXHAUSTED, True)
                    raise
                delay = BACKOFF[lost]
                lost += 1
                _log(what, exc, "reconnecting", lost, len(BACKOFF), delay)
                with contextlib.suppress(DatabaseError):
                    connection.close()  # the next query opens a new session
            time.sleep(delay)


def _log(
    what: str, exc: BaseException, doing: str, n: int, of: int, delay: float
) -> None:
    logger.warning(
        "database error during %s (%s); %s, try %d of %d in %.2fs",
        what,
        str(exc).strip() or type(exc).__name__,
        doing,
        n,
        of,
        delay,
    )


def connection_reset(*, what: str) -> None:
    """Give this thread a connection fit for a new unit of work (a Celery task).

    A thread's connection outlives its tasks. One left inside a transaction (an atomic block
    whose exit never ran, a close while in one, autocommit off) would run every later query
    in that broken transaction, or refuse it, so it is dropped, loudly; one whose last query
    failed is dropped quietly, and the next query opens a new session.
    """
    if connection.connection is None and not connection.in_atomic_block:
        return
    broken = (
        connection.in_atomic_block
        or connection.closed_in_transaction
        or connection.needs_rollback
        or not connection.get_autocommit()
    )
    if broken:
        logger.error(
            "before %s: this thread's database connection was left inside a transaction "
            "(in_atomic_block=%s, needs_rollback=%s, closed_in_transaction=%s); dropping it",
            what,
            connection.in_atomic_block,
            connection.needs_rollback,
            connection.closed_in_transaction,
        )
    elif not connection.errors_occurred:
        return
    with contextlib.suppress(DatabaseError):
        connection.close()
    # A close inside an atomic block keeps the closed connection object and the block's
    # flags; forget both, so the next query connects afresh (connect() resets the flags).
    connection.connection = None
    connection.in_atomic_block = False
    connection.closed_in_transaction = False
    connection.needs_rollback = False
    connection.savepoint_ids = []
    connection.atomic_blocks = []
