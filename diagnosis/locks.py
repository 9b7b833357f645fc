"""The lock order of the diagnosis domain, and the per-tenant lock at its head.

A transaction that takes more than one of these locks takes them in this order, so no two
transactions can each hold one the other waits for:

1. the tenant lock (`tenant_lock`): serialises a tenant's alert intake (diagnosis.alerts) and
   incident creates (services.incident_create: the rate limit's count);
2. the tenant's alert rows: its AlertIntakeWindow rows, then the AlertGroup, FOR UPDATE;
3. the task row: FOR UPDATE in services.diagnosis_event_append and approvals, the
   compare-and-swap UPDATE in services.diagnosis_transition;
4. rows of the task, written after it: its events, spans, approvals.

The tenant lock is a transaction-scoped advisory lock, not a lock on the tenant row. Every
insert of a row that references the tenant (a task, a span, a group, a window) takes FOR KEY
SHARE on the tenant row through its foreign key, and a span insert takes it on the task row
first (its task_id check runs before its tenant_id check): with the tenant row FOR UPDATE at
the head of intake, a worker's span insert held the task row and waited for the tenant row
while the intake held the tenant row and waited for the task row (issue 23: a deadlock, the
diagnosis failed). An advisory lock conflicts with nothing but itself.
"""

import uuid

from django.db import connection
from django.db.transaction import TransactionManagementError

# The first key of pg_advisory_xact_lock(int, int): the kind of thing locked. The second is
# 32 bits of the tenant's UUID; two tenants that share them only wait for each other.
TENANT_LOCK_CLASS = 23_001


def tenant_lock(tenant_id: uuid.UUID | str) -> None:
    """Take the tenant lock (step 1 above) until the current transaction ends.

    Raises:
        TransactionManagementError: called outside a transaction, where the lock would end
            with the statement that took it.
    """
    if not connection.in_atomic_block:
        raise TransactionManagementError("tenant_lock needs a transaction")
    key = int.from_bytes(uuid.UUID(str(tenant_id)).bytes[:4], "big", signed=True)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [TENANT_LOCK_CLASS, key])
