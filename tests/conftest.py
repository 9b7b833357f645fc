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


@pytest.fixture(autouse=True)
def _demo_listeners_stopped_after_each_test():
    """Demo diagnoses in this process share its listener sets (diagnosis.engine.shared_listeners),
    kept idle for a quarter of an hour: none outlives the test that started it."""
    yield
    from diagnosis.engine import shared_listeners

    shared_listeners.close_process_sets()


@pytest.fixture(autouse=True)
def _mcp_pool_closed_after_each_test():
    """Diagnoses in this process share its MCP session pool (diagnosis.engine.server_pool):
    no pooled server outlives the test that started it."""
    yield
    from diagnosis.engine import server_pool

    server_pool.close_process_pool()


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


@pytest.fixture(autouse=True)
def _fast_password_hasher(settings):
    """MD5 for the passwords tests hash: PBKDF2 costs about a second a user here. Autouse, so it
    runs before the fixtures that make members. A Daphne or worker the tests start runs
    agentops.settings and cannot verify these hashes: tests/browser, which logs in through the
    form, overrides this fixture; the other live tests sign in with tokens or session cookies."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


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


# --- reliability record (docs/reliability.md) --------------------------------------------------
# A fault or limit test is marked `@pytest.mark.fault("what is done to the stack", kind="fault")`
# (kind "limit" for a bound the app enforces) and calls the `reliability_record` fixture with what
# it observed and its figures. When AGENTOPS_RELIABILITY_OUT names a file, each such test appends
# one JSON line to it at teardown; `python -m scripts.reliability_report` turns a run into the doc.
RELIABILITY_OUT = "AGENTOPS_RELIABILITY_OUT"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if call.when == "call":
        item.stash[_call_outcome] = report.outcome
    return report


_call_outcome = pytest.StashKey[str]()


@pytest.fixture
def reliability_record(request):
    """record(observed=..., figures={...}): what this fault or limit test saw, for the doc."""
    import json
    from pathlib import Path

    marker = request.node.get_closest_marker("fault")
    assert marker is not None and marker.args, (
        "reliability_record needs @pytest.mark.fault('title')"
    )
    recorded: list[dict[str, object]] = []

    def record(*, observed: str, figures: dict[str, object]) -> None:
        recorded.append({"observed": observed, "figures": figures})

    yield record
    out = os.environ.get(RELIABILITY_OUT)
    if not out:
        return
    assert recorded, f"{request.node.nodeid} is marked fault but recorded nothing"
    line = {
        "nodeid": request.node.nodeid,
        "fault": marker.args[0],
        "kind": marker.kwargs.get("kind", "fault"),
        "outcome": request.node.stash.get(_call_outcome, "unknown"),
        **recorded[-1],
    }
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as file:
        file.write(json.dumps(line, sort_keys=True) + "\n")
