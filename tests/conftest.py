"""Shared fixtures. Tests run against the real PostgreSQL and Redis named by DATABASE_URL / REDIS_URL."""

import os

import pytest

from tests import factories

# Test-only plans (the `timed` plan of sleeps) through the API and pages: for the web and worker
# processes tests start (they inherit the environment) and, below, for this one.
os.environ["DIAGNOSIS_TEST_PLANS"] = "1"


@pytest.fixture(scope="session", autouse=True)
def _test_plans_offered():
    from django.conf import settings

    settings.DIAGNOSIS_TEST_PLANS = True


@pytest.fixture(scope="session", autouse=True)
def _end_stray_sessions_before_dropping_the_test_database(
    django_db_setup, django_db_blocker
):
    """In-process SSE tests leave the stream reader's idle connections behind once their event
    loops are gone; PostgreSQL refuses to drop a database with sessions, so end them first."""
    yield
    from django.db import DatabaseError, connection

    if not str(connection.settings_dict["NAME"]).startswith("test_"):
        return  # a test changed the connection's target; never touch a real database
    with django_db_blocker.unblock():
        try:
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE datname = current_database() AND pid <> pg_backend_pid()"
                )
        except DatabaseError:
            pass  # nothing to end; pytest-django reports any real trouble when it drops the database
        finally:
            connection.close()


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
