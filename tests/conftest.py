"""Shared fixtures. Tests run against the real PostgreSQL and Redis named by DATABASE_URL / REDIS_URL."""

import pytest

from tests import factories


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def tenant(db):
    return factories.make_tenant("acme")


@pytest.fixture
def other_tenant(db):
    return factories.make_tenant("globex")


@pytest.fixture
def member(tenant):
    return factories.make_member(tenant, username="alice")


@pytest.fixture
def token(member) -> str:
    return factories.make_token(member)


@pytest.fixture
def live_db_env(transactional_db):
    """Environment for a child process (worker, Daphne, script) that must use this test's database."""
    import os

    from tests.livestack import child_database_url

    url = child_database_url()
    env = dict(os.environ)
    env.update(
        {
            "DATABASE_URL": url,
            "PYTHONUNBUFFERED": "1",
        }
    )
    return env
