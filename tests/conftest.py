"""Shared fixtures. Tests run against the real PostgreSQL and Redis named by DATABASE_URL / REDIS_URL."""

import pytest


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
