"""The stream's two reads, on psycopg's async driver with a small pool of autocommit connections.

Why not the ORM through `database_sync_to_async`: every such call hops to the one thread-sensitive
executor thread of the process and (with CONN_MAX_AGE=0) opens a new connection per call, so a burst
of wake-ups or a reconnect storm queues behind one thread. These are two fixed, indexed statements;
running them on the event loop keeps the stream free of threads. Auth still goes through the ORM.
"""

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass
from typing import Any

import psycopg
from django.db import connections

from diagnosis.models import DiagnosisTask, TaskEvent

# Keys of Django's OPTIONS that are not libpq connection parameters.
_DJANGO_ONLY_OPTIONS = {"isolation_level", "pool", "server_side_binding", "assume_role"}


@dataclass(frozen=True, slots=True)
class Row:
    seq: int
    type: str
    json: str  # the wire payload: the stored data plus event_id, type, occurred_at


def _conninfo() -> dict[str, Any]:
    db = connections["default"].settings_dict
    params: dict[str, Any] = {
        key: value
        for key, value in (db.get("OPTIONS") or {}).items()
        if key not in _DJANGO_ONLY_OPTIONS
    }
    params.update(
        dbname=db["NAME"],
        user=db.get("USER") or None,
        password=db.get("PASSWORD") or None,
        host=db.get("HOST") or None,
        port=db.get("PORT") or None,
    )
    return {key: value for key, value in params.items() if value is not None}


class EventReader:
    """Reads of the event table for one event loop; at most `size` connections, reused."""

    def __init__(self, *, size: int = 4) -> None:
        self._idle: list[psycopg.AsyncConnection[Any]] = []
        self._slots = asyncio.Semaphore(size)
        event = TaskEvent._meta.db_table
        task = DiagnosisTask._meta.db_table
        # Built in SQL so the JSON text goes to the wire without a Python load/dump; the
        # envelope keys win over same-named keys of the stored payload.
        self._events_sql = (
            f"SELECT seq, type, (data || jsonb_build_object('event_id', seq, 'type', type, "
            f"'occurred_at', occurred_at))::text FROM {event} "
            "WHERE task_id = %s AND seq > %s AND seq <= %s ORDER BY seq LIMIT %s"
        )
        self._watermark_sql = f"SELECT last_seq FROM {task} WHERE id = %s"
        self._watermarks_sql = f"SELECT id, last_seq FROM {task} WHERE id = ANY(%s)"

    @contextlib.asynccontextmanager
    async def _connection(self) -> AsyncIterator[psycopg.AsyncConnection[Any]]:
        async with self._slots:
            conn = self._idle.pop() if self._idle else None
            if conn is None or conn.closed:
                conn = await psycopg.AsyncConnection.connect(
                    autocommit=True, **_conninfo()
                )
            try:
                yield conn
            except BaseException:
                await conn.close()
                raise
            self._idle.append(conn)

    async def watermark(self, task_id: Any) -> int:
        async with self._connection() as conn:
            cur = await conn.execute(self._watermark_sql, (task_id,))
            row = await cur.fetchone()
        return 0 if row is None else int(row[0])

    async def watermarks(self, task_ids: Iterable[Any]) -> dict[str, int]:
        ids = list(task_ids)
        if not ids:
            return {}
        async with self._connection() as conn:
            cur = await conn.execute(self._watermarks_sql, (ids,))
            rows = await cur.fetchall()
        return {str(task_id): int(last_seq) for task_id, last_seq in rows}

    async def events(
        self, task_id: Any, *, after: int, upto: int | None = None, limit: int = 1000
    ) -> list[Row]:
        """Events with after < seq <= upto, in seq order, at most `limit`."""
        upto = (1 << 62) if upto is None else upto
        async with self._connection() as conn:
            cur = await conn.execute(self._events_sql, (task_id, after, upto, limit))
            rows = await cur.fetchall()
        return [Row(int(seq), kind, text) for seq, kind, text in rows]

    async def aclose(self) -> None:
        idle, self._idle = self._idle, []
        for conn in idle:
            with contextlib.suppress(Exception):
                await conn.close()
