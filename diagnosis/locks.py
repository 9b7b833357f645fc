"""The lock order of the diagnosis domain, and the per-tenant lock at its head.

A transaction that takes more than one of these locks takes them in this order, so no two
transactions can each hold one the other waits for:

1. the tenant lock (`tenant_lock`): serialises a tenant's alert intake (diagnosis.intake) and
   incident creates (services.incident_create: the rate limit's count);
2. the tenant's alert rows: its AlertIntakeWindow rows, then the AlertGroup, FOR UPDATE;
3. the task row: FOR UPDATE in lifecycle.diagnosis_event_append and approvals, the
   compare-and-swap UPDATE in lifecycle.diagnosis_transition;
4. rows of the task, written after it: its events, spans, approvals, webhook deliveries.

Incident coordination (diagnosis.coordination) UPDATEs the incident row (a compare-and-swap,
FOR NO KEY UPDATE, which the foreign-key checks' FOR KEY SHARE does not wait for) before it
takes step 3.

Parent rows (tenant, incident, user) are never locked FOR UPDATE: PostgreSQL's foreign-key
checks take FOR KEY SHARE on them behind the writer's back, after it already holds rows of
step 3 or 4. A span insert checks its task_id (the task row) before its tenant_id; a task row
updated twice in one transaction (a transition: the state, then last_seq) has its incident,
tenant and created_by checked at COMMIT, the constraints being deferred. So the tenant lock is
a transaction-scoped advisory lock, which conflicts with nothing but itself, and a FOR UPDATE
that joins a parent (select_related) names `of=("self",)`. Issue 23 found both cycles: intake
held the tenant row (then the group's incident row) FOR UPDATE and waited for the task row,
while the worker held the task row and waited for the tenant (then incident) row's share lock.
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
