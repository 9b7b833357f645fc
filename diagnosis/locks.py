"""The lock order of the diagnosis domain, and the per-tenant lock at its head.

A transaction that takes more than one of these locks takes them in this order, so no two
transactions can each hold one the other waits for:

1. the alert group lock (`alert_group_lock`): serialises the payloads of one alert group
   (diagnosis.intake: one open group per key, its alerts merged one payload at a time), so
   the payloads of different groups go in parallel;
2. the tenant lock (`tenant_lock`): serialises a tenant's incident creates
   (services.incident_create: the rate limit's count), an alert group's first payload included;
3. the AlertGroup row, FOR UPDATE;
4. the task row: FOR UPDATE in lifecycle.diagnosis_event_append and approvals, the
   compare-and-swap UPDATE in lifecycle.diagnosis_transition;
5. rows of the task, written after it: its events, spans, approvals, webhook deliveries;
6. last, the tenant's AlertIntakeWindow row (the alert rate limit's count): one upsert just
   before COMMIT, so every payload of a tenant queues on it for a commit's time, not for the
   whole intake. Issue 23's soak found the tenant lock held over a whole intake capped a
   tenant at about 7 payloads a second under load (10 groups, 2 senders: a round every 3 s,
   not 0.3 s).

Incident coordination (diagnosis.coordination) UPDATEs the incident row (a compare-and-swap,
FOR NO KEY UPDATE, which the foreign-key checks' FOR KEY SHARE does not wait for) before it
takes step 4.

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

import hashlib
import uuid

from django.db import connection
from django.db.transaction import TransactionManagementError

# The first key of pg_advisory_xact_lock(int, int): the kind of thing locked. The second is
# 32 bits of what is locked (the tenant's UUID, a hash of the group's key); two that share
# them only wait for each other.
TENANT_LOCK_CLASS = 23_001
ALERT_GROUP_LOCK_CLASS = 23_002


def tenant_lock(tenant_id: uuid.UUID | str) -> None:
    """Take the tenant lock (step 1 above) until the current transaction ends.

    Raises:
        TransactionManagementError: called outside a transaction, where the lock would end
            with the statement that took it.
    """
    if not connection.in_atomic_block:
        raise TransactionManagementError("tenant_lock needs a transaction")
    key = int.from_bytes(uuid.UUID(str(tenant_id)).bytes[:4], "big", signed=True)
    _advisory_xact_lock(TENANT_LOCK_CLASS, key)


def alert_group_lock(tenant_id: uuid.UUID | str, source: str, key_hash: str) -> None:
    """Take the lock of one alert group (step 1 above) until the current transaction ends.

    The group is named by what finds it (tenant, source, key hash), not by its row: the lock
    must also serialise the payloads racing to open a group that has no row yet.

    Raises:
        TransactionManagementError: called outside a transaction.
    """
    if not connection.in_atomic_block:
        raise TransactionManagementError("alert_group_lock needs a transaction")
    name = f"{uuid.UUID(str(tenant_id))}|{source}|{key_hash}".encode()
    key = int.from_bytes(
        hashlib.blake2b(name, digest_size=4).digest(), "big", signed=True
    )
    _advisory_xact_lock(ALERT_GROUP_LOCK_CLASS, key)


def _advisory_xact_lock(kind: int, key: int) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [kind, key])
